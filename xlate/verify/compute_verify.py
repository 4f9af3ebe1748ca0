"""``xlate verify`` of compute programs: the translated compute shader is dispatched over a
small grid with its storage buffers filled from generated words, the buffers and images are
read back and compared word by word and texel by texel with the executor's dispatch of the
original program (``xlate.exec.compute``) on the same words, parameters and grid.
:func:`verify_compute` chooses the inputs and gives the verdict for every backend; the dispatch
is ``Runner.run("compute", ...)`` (:func:`gl_compute.run_job`: :func:`gl_compute.run_gl_compute`
on the GL backends, :func:`vulkan_compute.run_vulkan_compute` on ``vulkan``), and differences
go to the verifier's verdict tail through :mod:`compute_replay`.

What is compared and how:

* Every word of every storage buffer after the dispatch, bit for bit (two NaNs of any payload
  are the same value).  Shared memory is private to a workgroup and is seen only through what
  the program stores.  A difference is then judged like any other stage's: the verifier's
  verdict tail (``core._explain``, through :class:`compute_replay.ComputeHarness`) probes the
  implementation's value of every instruction per invocation (stored into a harness buffer)
  and replays the executor, adopting the implementation's value only where a rule of
  :mod:`permits` shows the difference permitted (an approximate EX2/LG2/POW within its bound,
  a zero of the other sign, an operation on a NaN ...); the program passes only when the
  replayed executor reproduces every word and texel, else it is a mismatch localized at the
  first unexplained instruction (invocation, operands, both results).
* Inputs: each buffer holds ``BUFFER_BYTES`` bytes of generated words, each either a small
  integer (0..63: valid byte offsets and counts) or a float k/4 with |k| <= 32; parameters
  (CONST) are what ``xlate verify`` generates for any stage, and in every other input set
  small values that follow how each element is read (``gl_compute.small_parameters``): the
  first of ``SEEDS`` sets under which the program writes is compared.
* The grid is ``GROUPS`` workgroups (2 x 2 x 1 by default): enough for two groups to share a
  buffer and each to have its own shared memory.
* The executor's order (exec/memory.py) is one order the implementation may take.  Plain
  stores of several invocations to one word without a BARRIER between them (or from two
  workgroups), and a load of a word another invocation stores unsynchronised, race: the
  program leaves the result open.  The executor finds the first race (exec/races.py,
  ``ComputeResult.race``) and such a program is reported ``unsupported`` with it, not
  compared.  Atomics do not race each other: their order is checked apart
  (:func:`check_atomics`).
* A BARRIER that only part of a workgroup reaches is undefined (exec/memory.py): the program is
  reported ``unsupported`` with the executor's reason.
* Images: every texel of every image after the dispatch, exactly, read back as the shader
  reads them (the executor's texel words, exec/images.py).  Each image has the executor's
  default size (images.py ``DEFAULT_SHAPE``) and starts with generated texels (small integers
  for integer formats, k/4 floats for float ones, k/255-style values for normalized ones: the
  words the format holds, so the upload is exact).  An image declared without a format is an
  RGBA32F image.  A buffer image (``DCL IMAGE[n], BUFFER``) is a GL buffer texture
  (``glTexBuffer``) or a Vulkan storage texel buffer of its format holding the executor's 64
  texels, read back from its buffer.  Channels of UNORM and SNORM images are compared to
  1 ulp (GL does not bound the rounding of c / (2^b - 1));
  a value LOADed from such an image and carried into other results is compared exactly
  (such a program can show a 1-ulp mismatch that is llvmpipe's conversion).
* Textures: those ``xlate verify`` generates for any stage, sampled by the executor as llvmpipe
  samples (``sampling="llvmpipe"``); a filtered lookup llvmpipe rounds otherwise is judged by
  the replay's texture rules, as in the other stages.
"""
from __future__ import annotations

import numpy as np

from ..backends.glsl.memory import atomic_functions
from ..exec.bind import ExecError
from ..ir.model import Program
from . import glapi as G
from .gl_multisample import ImageLimit
from .gl_compute import (ATOMIC_CAPACITY, GROUPS, SEEDS, generated_buffers, generated_images,
                         small_parameters)
from .draw_run import DrawRun, gl_interface
from .direct_check import judge_direct_departures


def verify_compute(program: Program, rep, *, seed: int, runner, max_reported: int = 50,
                   groups=GROUPS, via: str = "auto", localize: bool = True) -> None:
    """Fill ``rep`` (:class:`core.ProgramReport`) with the verdict for a compute program.
    ``via`` (backends ``gl-spirv`` and ``vulkan``): as :func:`core.verify_source`'s --
    which SPIR-V runs: ``auto`` the direct path's where it covers the program, ``direct`` only it,
    ``glsl`` glslang's.  Differences go to the verifier's verdict tail (``core._explain``
    through :class:`compute_replay.ComputeHarness`): localized, and explained only where a
    rule of :mod:`permits` shows them permitted."""
    from ..diagnostics import XlateError
    from ..exec.compute import execute_compute
    from .analysis import analyse
    from .compute_replay import (ATOMIC_TRIES, ComputeDispatch, ComputeHarness,
                                 compare_dispatch, translate)
    from .draw_run import EXECUTOR_RUNS
    from .inputs import generate
    from .nonfinite_runs import ComputeInputs
    from . import compare as cmp
    from . import core
    rep.lanes = lanes = int(np.prod(program.local_size)) * int(np.prod(groups))
    facts = analyse(program, set(cmp.INEXACT))
    backend = getattr(runner, "backend", "gl")
    # the GL backends run the glsl450 translation (whatever profile a GL runner's draws
    # adapt: compute needs GLSL 4.30), vulkan the vulkan profile's
    profile = "vulkan" if backend == "vulkan" else "glsl450"
    try:
        # the translation plus, with atomics, the verifier's log of what each atomic returned
        tr = translate(program, profile)
    except XlateError as e:
        rep.status, rep.reason = "error", "the program does not translate"
        rep.diagnostics = list(e.diagnostics)
        return
    # inputs under which the program writes something: generated parameters often put every
    # access out of bounds (a random CONST offset), which would compare nothing but the
    # inputs; up to SEEDS input sets are tried (every other one with small parameters,
    # small_parameters), the first that changes memory is compared
    chosen = None
    for k in range(SEEDS):
        s = seed + 1000 * k
        gen = generate(program, facts, 1, s)
        if k % 2:
            small_parameters(gen, s)
        if facts.uses_textures:
            # the textures xlate verify makes for every stage; the executor samples as
            # llvmpipe does (texture.prepare "llvmpipe"), as the main verifier runs it
            from .textures import generate_textures, shadow_units
            gen.textures = generate_textures(program, s)
            gen.shadow = shadow_units(program)
        buffers = generated_buffers(program, s)
        images = generated_images(program, s)
        exec_kw = dict(params=gen.exec_params(program), textures=gen.textures or None,
                       **({"sampling": "llvmpipe"} if gen.textures else {}))
        try:
            res = execute_compute(program, groups, buffers=buffers, images=images, **exec_kw)
        except ExecError as e:
            rep.status, rep.reason = "unsupported", \
                f"the executor finds the program undefined: {e}"
            return
        if res.steps_exceeded.any():
            continue
        if any((res.buffers[b] != buffers[b]).any() for b in buffers) or \
                any((res.images[u] != images[u]).any() for u in images):
            chosen = s
            break
    if chosen is not None and res.race is not None:
        # tgsi.rst orders the memory accesses of different invocations only through BARRIER
        # (exec/races.py): the executor's order is one of several the program allows
        rep.status, rep.reason = "unsupported", f"data race: {res.race} -- the result " \
            "depends on an order of the invocations the program leaves open (exec/races.py); " \
            "not compared"
        return
    if chosen is not None and res.uninitialized_shared:
        rep.status, rep.reason = "unsupported", "the program reads shared memory its " \
            "workgroup has not written: GLSL leaves its contents undefined (the executor " \
            "reads 0)"
        return
    if chosen is None:
        rep.status, rep.reason = "skipped", f"the program changed no buffer word and no " \
            f"texel under {SEEDS} generated input sets (or ran past the executor's step " \
            "limit): nothing to compare"
        return
    if chosen != seed:
        rep.notes.append(f"inputs of seed {chosen}: the first of seeds {seed}, {seed + 1000}, "
                         "... under which the program writes")
    runs = EXECUTOR_RUNS.get()
    if runs is not None:
        # the mutation harness's record of the executor's run (draw_run.EXECUTOR_RUNS)
        runs.append((program, ComputeInputs(groups, buffers, images, exec_kw), lanes))
    _, uniforms, param_buffers = gl_interface(tr.reflection, gen, 1)
    capacity = ATOMIC_CAPACITY if atomic_functions(program) else 0
    dispatch = ComputeDispatch(runner, groups, buffers, images, gen, uniforms, param_buffers,
                               capacity)
    shader = tr.source
    direct = False
    if backend in ("gl-spirv", "vulkan"):
        # the direct SPIR-V path's module where it covers the program, else glslang's (the
        # module xlate convert --target spirv writes); with atomics, the direct module keeps
        # the same log as the GLSL translation above
        if via == "glsl":
            rep.notes.append("glslang's SPIR-V ran (--via glsl)")
        else:
            from ..backends.spirv_direct import Instrumentation, NotCovered, emit_spirv
            try:
                shader = emit_spirv(program, profile, instrumentation=Instrumentation(
                    atomic_log=bool(capacity))).spirv
                direct = True
                rep.notes.append("the direct SPIR-V path's module ran")
            except NotCovered as e:
                if via == "direct":
                    rep.status, rep.reason = "unsupported", \
                        f"direct SPIR-V does not cover {e}"
                    return
                rep.notes.append(f"glslang's SPIR-V ran (the direct path does not cover {e})")
    try:
        cap = dispatch.run(shader, tr.reflection, program)
        if cap.log is not None and cap.log[0] > capacity:
            rep.status, rep.reason = "unsupported", f"{cap.log[0]} atomics ran, more than " \
                f"the verifier logs ({capacity})"
            return
        harness = ComputeHarness(program, dispatch, tr.reflection, cap.log, exec_kw)
        # with atomics: the executor again, each atomic returning what the implementation's
        # returned (check_atomics judges that order)
        res = harness.execute(program, gen, lanes)
        diffs, compared, orders = compare_dispatch(program, res, cap,
                                                   int(np.prod(program.local_size)))
        if diffs and direct:
            # the two translations check each other (as core._verify_program): the replay
            # probes the GLSL translation, so it explains glslang's module's results; the
            # direct module's must be the same words there, or the same value by GLSL 4.7.1
            other = dispatch.run(tr.source, tr.reflection, program)
            if other.log is not None:
                harness = ComputeHarness(program, dispatch, tr.reflection, other.log, exec_kw)
                res = harness.execute(program, gen, lanes)
            diffs2, compared, orders = compare_dispatch(program, res, other,
                                                        int(np.prod(program.local_size)))
            if judge_direct_departures(rep, diffs, diffs2, max_reported, "words"):
                return
            rep.notes.append("the direct SPIR-V's results differ from the executor's only where "
                             "glslang's SPIR-V's do (or by a zero's sign / a NaN's payload): "
                             "explained through the GLSL translation")
            cap, diffs = other, diffs2
    except ImageLimit as e:
        rep.status, rep.reason = "unsupported", str(e)
        return
    except G.GLError as e:        # the driver refused the translation: as core.py reports it
        rep.status, rep.reason = "mismatch", f"implementation error: {e}"
        return
    if orders[0]:
        freed = (f" ({orders[1]} of them leaving a float add's other NaN or flushed denormal: "
                 "gl_compute.float_add_words)" if orders[1] else "")
        rep.notes.append(f"atomics: {orders[0]} contended words, each with an order of its "
                         f"atomics that returns what the implementation returned{freed}")
    if orders[2]:
        rep.notes.append(f"atomics: {orders[2]} float adds of a NaN the implementation chose "
                         "otherwise (sign or payload; the operation that made it chooses: "
                         "gl_compute._other_nan_operand) ran with the implementation's NaN")
    if res.out_of_range:
        rep.notes.append("some access fell outside its buffer: the executor reads 0 and drops "
                         "the write, as the translation's bounds checks do")
    rep.notes.append(f"grid {groups[0]} x {groups[1]} x {groups[2]} workgroups of "
                     + " x ".join(map(str, program.local_size)) + "; storage buffers compared "
                     "word by word")
    rep.compared = compared
    rep.total_differences = len(diffs)
    rep.differences = diffs[:max_reported]
    if not diffs:
        rep.status = "pass"
        return
    rep.status = "mismatch"
    if not localize:
        rep.reason = "outputs differ (localization off: nothing was explained)"
        return
    core._note_inputs(rep, gen, diffs, harness.describe)
    run = DrawRun(gen, res, cap, diffs, compared)
    try:
        core._explain(program, facts, tr.source, tr.reflection, lanes, runner, rep, run,
                      max_reported, harness=harness)
    except G.GLError as e:
        rep.reason = f"outputs differ; the probed translation failed: {e}"
    if harness.probe.rejected:
        rep.notes.append(f"{harness.probe.rejected} probe dispatches whose atomics returned "
                         "otherwise than the main run's: their values were not used (a probe "
                         f"compilation is dispatched up to {ATOMIC_TRIES} times)")


__all__ = ["verify_compute"]
