"""Verification of compute programs on OpenGL (Mesa llvmpipe): the translated compute shader is
dispatched over a small grid with its storage buffers filled from generated words, the buffers
are read back and compared word by word with the executor's dispatch of the original program
(``xlate.exec.compute``) on the same words, parameters and grid.

What is compared and how:

* Every word of every storage buffer after the dispatch, exactly (bit for bit; two NaNs of
  any payload are the same value).  Shared memory is private to a workgroup and is seen only
  through what the program stores.
* Inputs: each buffer holds ``BUFFER_BYTES`` bytes of generated words, each either a small
  integer (0..63: valid byte offsets and counts) or a float k/4 with |k| <= 32; parameters
  (CONST) are what ``xlate verify`` generates for any stage.
* The grid is ``GROUPS`` workgroups (2 x 2 x 1 by default): enough for two groups to share a
  buffer and each to have its own shared memory.
* The executor's order (exec/memory.py) is one order the implementation may take.  Plain
  stores of several invocations to one word without a BARRIER between them (or from two
  workgroups) race, and so does a load of a word another invocation stores unsynchronised: the
  program leaves the result open, yet it is compared as if the executor's order were the only
  one -- such a program can be reported a mismatch that is not a translation error (races are
  not detected yet; issue 20).
* A BARRIER that only part of a workgroup reaches is undefined (exec/memory.py): the program is
  reported ``unsupported`` with the executor's reason.
* Programs that sample textures are not run here yet (``unsupported``, named).
"""
from __future__ import annotations

import numpy as np

from ..exec.bind import ExecError
from ..ir.model import Program
from . import glapi as G
from .compare import Difference

BUFFER_BYTES = 1024
GROUPS = (2, 2, 1)


def generated_buffers(program: Program, seed: int) -> dict[int, np.ndarray]:
    """Initial words of every storage buffer (see the module docstring)."""
    rng = np.random.default_rng(seed * 7919 + 20)
    out = {}
    for r in sorted(program.resources.values(), key=lambda r: r.binding):
        if r.kind != "buffer":
            continue
        n = BUFFER_BYTES // 4
        ints = rng.integers(0, 64, n).astype(np.uint32)
        floats = (rng.integers(-32, 33, n).astype(np.float32) / np.float32(4)).view(np.uint32)
        out[r.binding] = np.where(rng.random(n) < 0.5, ints, floats).astype(np.uint32)
    return out


def run_gl_compute(runner, glsl: str, reflection: dict, groups, buffers: dict[int, np.ndarray],
                   uniforms, param_buffers) -> dict[int, np.ndarray]:
    """Dispatch ``glsl`` on the GL runner's context; the storage buffers' words after it."""
    gl = runner.gl
    gl.use()
    try:
        prog = runner.program([(G.GL_COMPUTE_SHADER, glsl)])
        runner._objects.append(("program", prog))
        gl.UseProgram(prog)
        runner._set_uniforms(prog, uniforms)
        runner._set_buffers(param_buffers)
        bound = {}
        for sb in reflection.get("storage_buffers", []):
            binding = int(sb["resource"][len("BUFFER["):-1])
            words = np.ascontiguousarray(buffers[binding], np.uint32)
            buf = runner._buffer(G.GL_SHADER_STORAGE_BUFFER, words.tobytes())
            gl.BindBufferBase(G.GL_SHADER_STORAGE_BUFFER, sb["binding"], buf)
            bound[binding] = (buf, words.nbytes)
        gl.check("binding the storage buffers")
        gl.DispatchCompute(*groups)
        gl.MemoryBarrier(G.GL_ALL_BARRIER_BITS)
        gl.Finish()
        gl.check("dispatching the compute shader")
        return {b: np.frombuffer(runner._read_buffer(G.GL_SHADER_STORAGE_BUFFER, buf, n),
                                 np.uint32).copy() for b, (buf, n) in bound.items()}
    finally:
        runner._cleanup()


def _same(a: int, b: int) -> bool:
    if a == b:
        return True
    fa, fb = np.uint32(a).view(np.float32), np.uint32(b).view(np.float32)
    return bool(np.isnan(fa) and np.isnan(fb))


def verify_compute(program: Program, rep, *, seed: int, runner, max_reported: int = 50,
                   groups=GROUPS) -> None:
    """Fill ``rep`` (:class:`core.ProgramReport`) with the verdict for a compute program."""
    from .. import api
    from ..diagnostics import XlateError
    from ..exec.compute import execute_compute
    from .analysis import analyse
    from .core import gl_interface
    from .inputs import generate
    from . import compare as cmp
    rep.lanes = int(np.prod(program.local_size)) * int(np.prod(groups))
    facts = analyse(program, set(cmp.INEXACT))
    if facts.uses_textures:
        rep.status, rep.reason = "unsupported", "compute programs that sample textures are " \
            "not verified yet"
        return
    try:
        tr = api.translate_program(program, target="glsl", profile="glsl450")
    except XlateError as e:
        rep.status, rep.reason = "error", "the program does not translate"
        rep.diagnostics = list(e.diagnostics)
        return
    gen = generate(program, facts, 1, seed)
    buffers = generated_buffers(program, seed)
    try:
        res = execute_compute(program, groups, buffers=buffers, params=gen.exec_params(program))
    except ExecError as e:
        rep.status, rep.reason = "unsupported", f"the executor finds the program undefined: {e}"
        return
    _, uniforms, param_buffers = gl_interface(tr.reflection, gen, 1)
    got = run_gl_compute(runner, tr.glsl, tr.reflection, groups, buffers, uniforms,
                         param_buffers)
    if res.out_of_range:
        rep.notes.append("some access fell outside its buffer: the executor reads 0 and drops "
                         "the write, as the translation's bounds checks do")
    diffs = []
    compared = 0
    for binding, want in sorted(res.buffers.items()):
        have = got[binding]
        for w in range(len(want)):
            compared += 1
            if not _same(int(want[w]), int(have[w])):
                diffs.append(Difference(f"BUFFER[{binding}]", w, None, int(want[w]),
                                        int(have[w]), kind="memory"))
    rep.compared = compared
    rep.total_differences = len(diffs)
    rep.differences = diffs[:max_reported]
    rep.status = "mismatch" if diffs else "pass"
    rep.notes.append(f"grid {groups[0]} x {groups[1]} x {groups[2]} workgroups of "
                     + " x ".join(map(str, program.local_size)) + "; storage buffers compared "
                     "word by word")


__all__ = ["verify_compute", "run_gl_compute", "generated_buffers"]
