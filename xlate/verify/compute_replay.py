"""The verdict tail of a compute dispatch: the replay of :mod:`replay` (and every rule of
:mod:`permits`) applied to a compute program, whose "outputs" are the storage buffers' words
and the images' texels after the dispatch and whose lanes are its invocations (dispatch order:
workgroup by workgroup, ``gl_LocalInvocationIndex`` within one -- the executor's lane order,
``exec/compute.py``).

* :class:`ComputeDispatch` runs one translation (GLSL, or a SPIR-V module on ``gl-spirv`` and
  ``vulkan``) over the verifier's grid with the chosen inputs, through the runner's
  ``run("compute", ...)``; :class:`gl_compute.ComputeCapture` is what it read back.
* :func:`compare_dispatch` compares an executor result with a capture: the atomics' order rule
  (``gl_compute.check_atomics``), then every word and texel.  A differing word or texel is
  attributed to the invocation that stored it last on the executor's side
  (``Difference.invocation``, from ``ComputeResult.writers``), which is the lane the replay
  judges.
* Probes: :func:`instrument` copies the program and, after each probed instruction, stores the
  value it left in its destination into a harness storage buffer (one 16-byte slot per
  invocation per probe, at ``(invocation * probes + j) * 16``; the invocation's index computed
  from ``THREAD_ID`` and ``BLOCK_ID``, which the copy declares when the program does not).  The
  probe is the same ``MOV.F`` bit copy as :mod:`trace`'s (into a scratch register, so the
  program's own registers keep their types), followed by a ``STORE``: the last execution's
  value stays, a slot never stored reads 0, and the pass counters of ``trace._nth_execution``
  work unchanged.  :class:`ComputeProbe` has :func:`trace._probe_events`' signature, so
  :mod:`probes` (execution counts, n-th passes) runs it as it runs the draws' probes.
* :class:`ComputeHarness` is :class:`draw_run.DrawHarness`' counterpart: ``core._explain``
  gives the verdict through it, so a compute program's differences are explained exactly as
  every other stage's -- by the executor, adopting the implementation's values only where a
  rule shows the difference permitted, reproducing every word and texel.

Atomics: the executor returns, at each atomic, what the main run's atomic returned
(``atomic_values``) and the order rule is checked on the result, as before.  A probe
compilation is another dispatch whose atomics may take another order; where its atomics
returned anything else than the main run's (its own log), its values are not used (the
instructions stay unprobed: nothing is adopted from them, so a difference left there is
unexplained -- a freedom can cost a pass, never buy one).
"""
from __future__ import annotations

import copy

import numpy as np

from ..backends.glsl.memory import ATOMIC_LOG_BINDING, atomic_functions
from ..ir.model import (Binding, DataType, Dest, Instruction, MemRef, Program,
                        Register, RegKind, Resource, Source, storage_label)
from .compare import Difference
from .gl_compute import ComputeCapture

#: probes per compilation (one storage buffer holds them all; the limit keeps the shader small)
PROBE_BATCH = 48
#: dispatches of one probe compilation tried until its atomics return what the main run's did
#: (the order of contended atomics is the implementation's, and varies between dispatches)
ATOMIC_TRIES = 3
#: the storage-buffer binding of the probes (below the atomic log's)
PROBE_BINDING = ATOMIC_LOG_BINDING - 1


def translate(program: Program, profile: str):
    """The GLSL translation the verifier runs: ``emit_glsl``'s, plus the log of what each atomic
    returned where the program has atomics (``backends/glsl/memory.py``)."""
    from ..backends.glsl import GlslEmitter, emit_glsl
    from ..gcpause import paused
    if not atomic_functions(program):
        return emit_glsl(program, profile)
    em = GlslEmitter(program, profile)
    em.atomic_log = True
    with paused():
        return em.emit()


class ComputeDispatch:
    """One grid, one set of inputs, any translation: :meth:`run` dispatches it."""

    def __init__(self, runner, groups, buffers, images, gen, uniforms, param_buffers,
                 capacity: int):
        self.runner = runner
        self.backend = getattr(runner, "backend", "gl")
        self.profile = "vulkan" if self.backend == "vulkan" else "glsl450"
        self.groups = groups
        self.buffers, self.images, self.gen = buffers, images, gen
        self.uniforms, self.param_buffers = uniforms, param_buffers
        self.capacity = capacity

    def run(self, shader, reflection: dict, program: Program, extra: dict | None = None,
            through_spirv: bool = False) -> ComputeCapture:
        """Dispatch ``shader`` (GLSL, or SPIR-V bytes on gl-spirv / vulkan) through the
        runner's ``run("compute", ...)`` (:func:`run_job`; a wrapping runner -- the mutation
        harness's -- sees it as any draw); ``extra``: more storage buffers (binding -> words:
        the probes'); ``through_spirv``: on ``gl``, compile the GLSL with glslang and load the
        SPIR-V this once."""
        from .gl_compute import ComputeJob
        job = ComputeJob(tuple(self.groups), {**self.buffers, **(extra or {})}, self.images,
                         program, self.capacity)
        lanes = int(np.prod(program.local_size)) * int(np.prod(self.groups))
        kw = {"through_spirv": True} if through_spirv else {}
        return self.runner.run("compute", shader, reflection, lanes, inputs={},
                               uniforms=self.uniforms, buffers=self.param_buffers,
                               textures=self.gen.textures, shadow=self.gen.shadow,
                               compute=job, **kw)


def compare_dispatch(program: Program, res, cap: ComputeCapture, local_count: int):
    """Differences between an executor result (``ComputeResult``) and a capture, the number of
    words and texel channels compared, and the number of words whose atomics' order was
    checked (the module docstring)."""
    from ..ir.image_formats import image_format
    from .gl_compute import _same, _ulps, check_atomics
    diffs: list = []
    finals: dict = {}
    orders = (0, 0, 0)  # contended words, those whose order took a float add's freedom, NaN operands
    if cap.log is not None:
        _, entries = cap.log
        diffs, finals, orders = check_atomics(program, res.atomics, entries, local_count)
    writers = res.writers or {}
    by_binding = {r.binding: r for r in program.resources.values() if r.kind == "buffer"}
    compared = 0
    for binding, want in sorted(res.buffers.items()):
        if binding not in cap.buffers:
            continue
        have = cap.buffers[binding]
        want = want.copy()
        for (name, loc), word in finals.items():          # the order's word, not lane order's
            r = program.resources[name]
            if r.kind == "buffer" and r.binding == binding:
                want[loc] = word
        who = writers.get(by_binding[binding].name)
        compared += len(want)
        for w in np.flatnonzero(want != have[:len(want)]):
            # (a word has no type here, so two NaN patterns count as one NaN -- which also
            # takes two small negative integers, -766 and -5, for one: open, a typed word
            # needs its writer's instruction; docs/verify_mutants_baseline.md)
            if not _same(int(want[w]), int(have[w])):
                inv = int(who[w]) if who is not None and who[w] >= 0 else None
                diffs.append(Difference(storage_label(binding), int(w), None, int(want[w]),
                                        int(have[w]), kind="memory", invocation=inv))
    by_unit = {r.binding: r for r in program.resources.values() if r.kind == "image"}
    for binding, want in sorted((res.images or {}).items()):
        r = by_unit[binding]
        fmt = image_format(r.format)
        want = want.copy()
        for (name, loc), word in finals.items():
            rr = program.resources[name]
            if rr.kind == "image" and rr.binding == binding:
                want.reshape(-1, 4)[loc, 0] = word
        # GL defines a normalized channel's value as c / (2^b - 1) without bounding the
        # rounding of that division (GL 4.6 2.3.5.1); llvmpipe multiplies by the reciprocal,
        # one ulp from the quotient for some c: the texels of UNORM/SNORM images agree to 1 ulp
        ulps = 1 if fmt is not None and fmt.kind in ("unorm", "snorm") else 0
        have = cap.images[binding].reshape(-1, 4)
        flat = want.reshape(-1, 4)
        who = writers.get(r.name)
        _, h, w = want.shape[:3]
        compared += flat.size
        for t, c in zip(*np.nonzero(flat != have)):
            a, b = int(flat[t, c]), int(have[t, c])
            if not _same(a, b) and not (ulps and c < fmt.channels and _ulps(a, b) <= ulps):
                z, y, x = t // (h * w), t // w % h, t % w
                inv = int(who[t]) if who is not None and who[t] >= 0 else None
                diffs.append(Difference(f"IMAGE[{binding}] texel ({x}, {y}, {z})", int(t),
                                        int(c), a, b, kind="texel", invocation=inv))
    return diffs, compared, orders


def _free_binding(program: Program) -> int:
    used = {r.binding for r in program.resources.values() if r.kind == "buffer"}
    for b in range(PROBE_BINDING, -1, -1):
        if b not in used:
            return b
    raise RuntimeError("no free storage-buffer binding for the probes")


def _id_register(prog: Program, path: str, name: str) -> str:
    for reg in prog.registers.values():
        if reg.kind == RegKind.INPUT and reg.bindings and reg.bindings[0] is not None \
                and reg.bindings[0].path == path:
            return reg.name
    prog.registers[name] = Register(name, RegKind.INPUT, DataType.NONE,
                                    bindings=(Binding(path),), implicit=True)
    return name


def instrument(program: Program, probes: list[tuple], groups) -> tuple[Program, list[str], int]:
    """A copy of ``program`` whose probes store into a harness buffer (the module docstring).
    ``probes`` as :func:`trace.instrument`'s: (position, Source | CondTest, "after" | "before"
    [, nth]).  Returns the program, the probes' scratch registers (in the order given) and the
    probe buffer's binding."""
    from .trace import insert_at, insert_probes, probe_value
    prog = copy.copy(program)
    prog.registers = dict(program.registers)
    prog.instructions = list(program.instructions)
    prog.labels = dict(program.labels)
    prog.resources = dict(program.resources)
    binding = _free_binding(program)
    prog.resources["xv_probes"] = Resource("xv_probes", "buffer", binding)
    U = DataType.UINT
    lx, ly, lz = program.local_size
    gx, gy, _ = groups
    n = len(probes)
    one = 0x3F800000

    def const(name: str, v) -> str:
        prog.registers[name] = Register(name, RegKind.CONST, U, value=(tuple(v),),
                                        implicit=True)
        return name

    for name, v in (("xv_zero", (0, 0, 0, 0)), ("xv_one", (one,) * 4)):
        prog.registers[name] = Register(name, RegKind.CONST, DataType.FLOAT, value=(v,),
                                        implicit=True)
    local = _id_register(prog, "invocation.localid", "xv_localid")
    group = _id_register(prog, "invocation.groupid", "xv_groupid")
    sizes = const("xv_sizes", (lx, lx * ly, gx, gx * gy))
    more = const("xv_more", (lx * ly * lz, 16 * n, 0, 0))
    prog.registers["xv_gid"] = Register("xv_gid", RegKind.TEMP, U, implicit=True)
    prog.registers["xv_addr"] = Register("xv_addr", RegKind.TEMP, U, implicit=True)

    def ins(op, dst, mask, *srcs):
        return Instruction(op, U, Dest(dst, mask=mask), tuple(srcs), text=f"{op}.U {dst}  # probe")

    def s(reg, c):
        return Source(reg, swizzle=(c,) * 4)
    X, Y = (True, False, False, False), (False, True, False, False)
    # invocation = local index + workgroup index * invocations per workgroup (dispatch order)
    prologue = [
        ins("MAD", "xv_gid", X, s(local, 1), s(sizes, 0), s(local, 0)),
        ins("MAD", "xv_gid", X, s(local, 2), s(sizes, 1), s("xv_gid", 0)),
        ins("MAD", "xv_gid", Y, s(group, 1), s(sizes, 2), s(group, 0)),
        ins("MAD", "xv_gid", Y, s(group, 2), s(sizes, 3), s("xv_gid", 1)),
        ins("MAD", "xv_gid", X, s("xv_gid", 1), s(more, 0), s("xv_gid", 0)),
        ins("MUL", "xv_gid", X, s("xv_gid", 0), s(more, 1)),
    ]
    names = []
    inserts = []
    for j, probe in enumerate(probes):
        pos, what, where = probe[:3]
        nth = probe[3] if len(probe) > 3 else None
        name = f"xv_probe{j}"
        prog.registers[name] = Register(name, RegKind.TEMP, DataType.NONE, implicit=True)
        seq = probe_value(prog, j, what, nth)
        offset = const(f"xv_off{j}", (16 * j,) * 4)
        seq += [ins("ADD", "xv_addr", X, s("xv_gid", 0), s(offset, 0)),
                Instruction("STORE", U, None, (s("xv_addr", 0), Source(name)),
                            text="STORE  # probe", mem=MemRef("xv_probes"))]
        inserts.append((pos + 1 if where == "after" else pos, j, seq, where))
        names.append(name)
    insert_probes(prog, inserts)
    insert_at(prog, prog.entry, prologue, True)
    return prog, names, binding


class ComputeProbe:
    """The implementation's value of probed events (:func:`trace._probe_events`' signature):
    the instrumented program's translation dispatched with the main run's inputs."""

    def __init__(self, dispatch: ComputeDispatch, main_log):
        self.dispatch = dispatch
        self.main = None
        if main_log is not None:
            self.main = {(int(e[0]), int(e[1])): int(e[6]) for e in main_log[1]}
        self.rejected = 0           # dispatches whose atomics returned otherwise

    def __call__(self, program, gen, runner, lanes, events, which=None, into=None, nth=None,
                 runs=None, origins=None, batch=None):
        exe_all, imp_all = into if into is not None else ({}, {})
        todo = [(i, events[i]) for i in (range(len(events)) if which is None else sorted(which))
                if i not in imp_all]
        batch = batch or PROBE_BATCH
        for start in range(0, len(todo), batch):
            group = todo[start:start + batch]
            probes = [(k, what, "before" if kind == "cond" else "after", nth)
                      for _, (kind, k, what) in group]
            words = self._run(program, probes, lanes)
            for j, (e_idx, _) in enumerate(group):
                exe_all[e_idx] = None
                imp_all[e_idx] = None if words is None else words[:, j]
        return exe_all, imp_all

    def _run(self, program: Program, probes, lanes: int):
        d = self.dispatch
        prog, _, binding = instrument(program, probes, d.groups)
        tr = translate(prog, d.profile)
        for _ in range(ATOMIC_TRIES if self.main is not None else 1):
            slots = np.zeros(lanes * len(probes) * 4, np.uint32)
            cap = d.run(tr.source, tr.reflection, prog, {binding: slots})
            if self.main is not None:
                theirs = {(int(e[0]), int(e[1])): int(e[6]) for e in (cap.log or (0, []))[1]}
                if theirs != self.main:
                    # the dispatch's atomics took another order: its values are another run's
                    self.rejected += 1
                    continue
            return cap.buffers[binding].reshape(lanes, len(probes), 4)
        return None


class ComputeHarness:
    """:class:`draw_run.DrawHarness` for a compute dispatch (the module docstring)."""

    def __init__(self, program: Program, dispatch: ComputeDispatch, reflection: dict,
                 main_log, exec_kw: dict):
        self.program, self.dispatch, self.reflection = program, dispatch, reflection
        self.exec_kw = exec_kw
        self.forced = None
        if main_log is not None:
            self.forced = {(int(e[0]), int(e[1])): int(e[6]) for e in main_log[1]}
        self.probe = ComputeProbe(dispatch, main_log)
        self.local_count = int(np.prod(program.local_size))

    def execute(self, program: Program, gen, lanes: int, hooks=None):
        from ..exec.compute import execute_compute
        d = self.dispatch
        return execute_compute(program, d.groups, buffers=d.buffers, images=d.images,
                               atomic_values=self.forced, hooks=hooks, **self.exec_kw)

    def compare(self, res, cap) -> list:
        return compare_dispatch(self.program, res, cap, self.local_count)[0]

    def run_impl(self, glsl: str, gen, lanes: int, through_spirv: bool = False):
        return self.dispatch.run(glsl, self.reflection, self.program,
                                 through_spirv=through_spirv)

    def describe(self, gen, lane: int) -> dict | None:
        n = self.local_count
        gx, gy, _ = self.dispatch.groups
        lx, ly, _ = self.program.local_size
        g, i = divmod(lane, n)
        return {"invocation": [str(lane)],
                "workgroup": [str(g % gx), str(g // gx % gy), str(g // (gx * gy))],
                "local_invocation": [str(i % lx), str(i // lx % ly), str(i // (lx * ly))]}


__all__ = ["ComputeDispatch", "ComputeHarness", "ComputeProbe",
           "compare_dispatch", "instrument", "translate"]
