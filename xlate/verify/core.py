"""Verify one program: run the executor and the translation on the same inputs, compare.

:func:`verify_source` is the whole pipeline for one file; :class:`ProgramReport` its result
(also what ``xlate verify --json`` writes, one per file).

Status values: ``pass`` (outputs bit for bit equal, or every difference shown permitted by the
replay, :mod:`replay`); ``mismatch`` (a difference the replay does not explain);
``unsupported`` (the translator or the harness cannot express the program,
or it uses something the executor cannot run yet -- the reason says which); ``error`` (the
input does not parse: diagnostics as for ``xlate convert``); ``skipped`` (every input made
the program run longer than the executor's step limit).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from ..diagnostics import XlateError
from ..ir.model import Program, RegKind, Stage, storage_label
from . import compare as cmp
from .analysis import analyse
from .direct_check import (chosen_direct_module, folding_defect_shown, judge_direct_departures,
                           nonfinite_components)
from .draw_run import (DrawHarness, DrawRun, describe_inputs, one_run, runner_profile,
                       textures_supported)
from .output_compare import same_capture
from .subgroups import uses_lane_ops, whole_rows
from .inputs import GeneratedInputs


@dataclass
class ProgramReport:
    file: str
    stage: str = ""
    dialect: str = ""
    status: str = "pass"
    reason: str = ""
    backend: str = ""
    lanes: int = 0
    seed: int = 0
    compared: int = 0
    differences: list = field(default_factory=list)      # compare.Difference
    total_differences: int = 0
    localization: list = field(default_factory=list)     # dicts from trace.localize
    notes: list = field(default_factory=list)
    diagnostics: list = field(default_factory=list)
    seconds: float = 0.0
    inputs_of: dict = field(default_factory=dict)        # lane -> {binding: values}
    #: what ``xlate verify --report`` draws (evidence.Evidence), kept on request only
    evidence: object = field(default=None, repr=False, compare=False)

    def to_json(self) -> dict:
        return {
            "file": self.file, "stage": self.stage, "dialect": self.dialect,
            "status": self.status, "reason": self.reason, "backend": self.backend,
            "lanes": self.lanes, "seed": self.seed, "components_compared": self.compared,
            "differences": self.total_differences,
            "first_differences": [d.to_json() for d in self.differences[:20]],
            "localization": self.localization, "notes": self.notes,
            "inputs": {str(k): v for k, v in self.inputs_of.items()},
            "seconds": round(self.seconds, 3),
        }


# ---- the pipeline: a run's parts are draw_run (both sides of a draw), output_compare (what is
# compared) and direct_check (the cross-checks that need a second compilation) -----------------

def make_runner(backend: str = "gl", *, precise: bool = False, profile: str | None = None):
    """The runner of a backend: :class:`gl.Runner` for ``gl``/``gl-spirv``,
    :class:`vulkan.Runner` for ``vulkan``, :class:`native.Runner` for ``native`` (the original
    assembly program on the driver's own interface).  Raises :class:`glapi.GLUnavailable` (for Vulkan its
    subclass ``VulkanUnavailable``) when the implementation is missing.  ``profile``: the GLSL
    profile the translation is made in -- ``glsl450`` (default), ``glsl330`` or ``es310`` on
    the GL backends (:mod:`profile_runs`); ``vulkan`` and ``native`` have their own."""
    if profile not in (None, "glsl450") and backend not in ("gl", "gl-spirv"):
        raise ValueError(f"profile {profile!r} runs on the gl and gl-spirv backends only")
    if backend == "native":
        from .native import Runner as NativeRunner
        return NativeRunner(backend)
    if backend == "vulkan":
        from .vulkan import Runner as VulkanRunner
        return VulkanRunner(backend, precise=precise)
    from .gl import Runner
    return Runner(backend, precise=precise, profile=profile or "glsl450")


def verify_source(text: str, filename: str, *, lanes: int = 4096, seed: int = 1,
                  backend: str = "gl", runner=None, localize: bool = True,
                  max_reported: int = 50, keep_evidence: bool = False,
                  via: str = "auto") -> ProgramReport:
    """Verify one program text.  ``runner``: a runner to reuse (:func:`make_runner`; else one
    is made for ``backend``; :class:`glapi.GLUnavailable` propagates when no implementation
    exists).  ``keep_evidence``: attach the outputs and differences an HTML report draws
    (``rep.evidence``, :mod:`evidence`; not for the ``native`` backend).  ``via`` (backends
    ``vulkan`` and ``gl-spirv``): which SPIR-V runs -- ``auto`` the direct path's where it
    covers the program, else glslang's; ``direct`` the direct path's only (a program it does
    not cover is ``unsupported``); ``glsl`` glslang's compile of the GLSL translation."""
    from ..frontends import parse_program
    t0 = time.perf_counter()
    rep = ProgramReport(file=filename, backend=backend, seed=seed)
    try:
        program = parse_program(text, filename)
    except XlateError as e:
        rep.status, rep.reason = "error", "the program does not parse"
        rep.diagnostics = list(e.diagnostics)
        rep.seconds = time.perf_counter() - t0
        return rep
    rep.stage, rep.dialect = program.stage.value, program.dialect
    if backend == "native":         # the original text runs on the driver: no translation
        from .native_verify import verify_program
        try:
            verify_program(text, program, rep, lanes=lanes, seed=seed, runner=runner,
                           max_reported=max_reported)
        finally:
            rep.seconds = time.perf_counter() - t0
        return rep
    if program.stage == Stage.COMPUTE:
        # a dispatch compared through storage buffers and images (compute_verify.py)
        try:
            from .compute_verify import verify_compute
            verify_compute(program, rep, seed=seed, runner=runner or make_runner(backend),
                           max_reported=max_reported, via=via, localize=localize)
        finally:
            rep.seconds = time.perf_counter() - t0
        return rep
    if program.resources:
        # buffers and images (buffer images included) outside compute shaders: the draw
        # harnesses of every backend bind none
        rep.status, rep.reason = "unsupported", \
            f"{resource_names(program)} in a {program.stage.value} program: the draw " \
            "harnesses bind no storage buffers or images (compute programs verify them)"
        rep.seconds = time.perf_counter() - t0
        return rep
    try:
        _verify_program(program, rep, lanes=lanes, seed=seed, backend=backend, runner=runner,
                        localize=localize, max_reported=max_reported,
                        keep_evidence=keep_evidence, via=via)
    finally:
        rep.seconds = time.perf_counter() - t0
    return rep


def resource_names(program) -> str:
    """The program's storage buffers and images as TGSI names them, a buffer image as such:
    ``BUFFER[1], IMAGE[0] (a buffer image)`` (by kind, then binding)."""
    names = []
    for r in sorted(program.resources.values(), key=lambda r: (r.kind, r.binding)):
        if r.kind == "shared":
            continue
        name = storage_label(r.binding) if r.kind == "buffer" else \
            f"{r.kind.upper()}[{r.binding}]"
        names.append(name + (" (a buffer image)" if r.target == "BUFFER" else ""))
    return ", ".join(names)


#: verdicts of adopted departures that explain a difference (see :mod:`permits`)
EXPLAINED = ("signedzero", "ftz", "nonfinite", "tolerance", "reassociated", "range", "undefined",
             "boundary", "lod", "implementation", "propagated", "recompiled", "nanchoice")
#: verdicts of differences nothing explains
SUSPECT = ("divergence", "cc", "flow", "interface")


def _verify_program(program: Program, rep: ProgramReport, *, lanes: int, seed: int, backend: str,
                    runner, localize: bool, max_reported: int, keep_evidence: bool = False,
                    via: str = "auto") -> None:
    from ..backends.glsl import emit_glsl
    from . import gl as glmod
    stage = program.stage
    facts = analyse(program, set(cmp.INEXACT))
    if facts.uses_textures and not textures_supported():
        rep.status, rep.reason = "unsupported", "textures (the executor cannot sample yet)"
        return
    for reg in program.registers.values():
        paths = {b.path for b in reg.bindings if b is not None} if reg.kind == RegKind.INPUT \
            else set()
        if "fragment.clip" in paths:
            rep.status, rep.reason = "unsupported", "fragment.clip inputs (harness)"
            return
        if "fragment.pointcoord" in paths:
            # GL 4.5 §14.8.3 / GLSL gl_PointCoord: defined only when rasterizing points, and the
            # harness draws one triangle per fragment block
            rep.status, rep.reason = "unsupported", ("fragment.pointcoord inputs (the harness "
                                                     "draws triangles; gl_PointCoord is defined "
                                                     "for points only)")
            return
    if uses_lane_ops(program) and stage != Stage.FRAGMENT:
        rep.status, rep.reason = "unsupported", (
            "inter-lane opcodes in a vertex or geometry program: the harness probes the "
            "subgroups of its fragment draw only (verify/subgroups.py)")
        return
    if uses_lane_ops(program) and (backend == "gl-spirv"
                                   or getattr(runner, "backend", None) == "gl-spirv"):
        # measured: Mesa 22.3.6's GL_ARB_gl_spirv (llvmpipe) dies with SIGSEGV loading a module
        # with SPV_KHR_shader_ballot -- glslang's and the direct path's alike, the harness's
        # probe too -- so these run on the gl (GLSL) and vulkan backends only
        rep.status, rep.reason = "unsupported", (
            "inter-lane opcodes on gl-spirv: Mesa's GL_ARB_gl_spirv crashes on "
            "SPV_KHR_shader_ballot modules; the gl and vulkan backends verify them")
        return
    if runner is None:
        runner = make_runner(backend)
    try:
        out = emit_glsl(program, runner_profile(runner))
    except XlateError as e:
        rep.status = "unsupported"
        rep.reason = "translation: " + "; ".join(d.message for d in e.diagnostics)
        rep.diagnostics = list(e.diagnostics)
        return
    glsl, reflection = out.source, out.reflection
    if stage in (Stage.TESS_EVAL, Stage.TESS_CTRL):     # gl_tess: lanes of their own
        from .tess_verify import verify_tess_ctrl, verify_tess_eval
        verify = verify_tess_eval if stage == Stage.TESS_EVAL else verify_tess_ctrl
        try:
            # on gl-spirv and vulkan the direct module runs where it covers the program, with
            # the harness's edits made in SPIR-V (tess_verify.chosen_module)
            verify(program, rep, facts, glsl, reflection, runner, seed=seed,
                   max_reported=max_reported, via=via)
        except glmod.GLUnavailable as e:
            rep.status, rep.reason = "unsupported", str(e)
        except glmod.GLError as e:
            rep.status, rep.reason = "mismatch", f"implementation error: {e}"
        return
    if stage == Stage.FRAGMENT:
        lanes = (lanes + 3) // 4 * 4
        from .capture import FRAG_WIDTH
        lanes = whole_rows(program, lanes, FRAG_WIDTH)
    rep.lanes = lanes
    direct = None
    if backend in ("vulkan", "gl-spirv") and via != "glsl":
        direct = chosen_direct_module(program, runner_profile(runner), via, rep)
        if direct is False:
            return
    try:
        run = one_run(program, facts, glsl, reflection, lanes, seed, runner, rep, direct)
        if run is not None and run.diffs and direct is not None:
            # the two translations check each other.  The replay reads its probes from the
            # GLSL translation, so it explains glslang's module's outputs; the direct module's
            # are explained by it where they have the same bits, and elsewhere must equal the
            # executor's, or differ within the documented tolerances (compare's rules) --
            # never by a freedom only glslang's compilation was shown to take
            other = one_run(program, facts, glsl, reflection, lanes, seed, runner, rep)
            if other is not None and not same_capture(run.cap, other.cap):
                # where the direct module departs from the executor otherwise than glslang's
                # does, nothing replays the direct module, so no freedom can be *shown* there:
                # the component is a mismatch, unless the two words are the same value by
                # GLSL 4.50 4.7.1 itself -- two zeros (the sign of a zero result is the
                # implementation's) or two NaNs (any payload).  (Compare's loose tolerances
                # were accepted here before: the tree-level mutation harness passed 45 wrong
                # direct modules through them -- a 1 % literal after a TEX, a write to a
                # component the analysis calls undefined; docs/verify_mutants_baseline.md.)
                if judge_direct_departures(
                        rep, run.diffs, other.diffs, max_reported,
                        nonfinite=lambda apart: nonfinite_components(
                            program, facts, reflection, run.gen, lanes, run.cap, apart)):
                    return
                words = sum(int(np.count_nonzero(run.cap.outputs[k] != other.cap.outputs[k]))
                            for k in run.cap.outputs if k in other.cap.outputs)
                rep.notes.append(f"the direct SPIR-V's outputs differ from glslang's SPIR-V's in "
                                 f"{words} words (zeros of the other sign, NaNs of another "
                                 "payload, denormals flushed, or where both depart from the "
                                 "executor: explained through the GLSL translation)")
            else:
                rep.notes.append("the direct SPIR-V's outputs are bit-identical to glslang's "
                                 "SPIR-V's on these inputs: differences explained through the "
                                 "GLSL translation")
            run = other if other is not None else run
    except glmod.GLError as e:
        rep.status, rep.reason = "mismatch", f"implementation error: {e}"
        return
    if run is None:
        return
    if keep_evidence:
        from .evidence import collect
        rep.evidence = collect(program, facts, reflection, run, glsl, lanes)
    diffs = run.diffs
    rep.compared = run.compared
    rep.total_differences = len(diffs)
    rep.differences = diffs[:max_reported]
    if facts.control_varies:
        # no output is comparable (compare_all's note): the dependence shows it, nothing passes
        rep.status = "skipped"
        rep.reason = (f"every output depends on {', '.join(sorted(facts.control_varies))} "
                      "through a condition: the implementation's value, different in every run")
        return
    if not diffs:
        rep.status = "pass"
        return
    rep.status = "mismatch"
    _note_inputs(rep, run.gen, diffs)
    if not localize:
        rep.reason = "outputs differ (localization off: nothing was explained)"
        return
    _explain(program, facts, glsl, reflection, lanes, runner, rep, run, max_reported)


def _explain(program, facts, glsl, reflection, lanes, runner, rep, run, max_reported,
             probe=None, harness=None, level_pinned: bool = False, opaque: bool = False):
    """Replay the executor against the implementation's probed values (:mod:`replay`): pass
    when the executor, adopting the implementation's value only where a rule of
    :mod:`permits` shows the difference permitted, reproduces every output bit for bit;
    otherwise mismatch, with the unexplained departures (instruction, lane, operands).
    ``glsl`` None and ``probe`` given: the native backend (the original text is probed; there
    is no GLSL to make precise).  ``harness``: how both sides run and what is compared
    (:class:`DrawHarness` by default; a compute dispatch passes its own).
    ``level_pinned``: ``run`` is already :func:`_level_choice_shown`'s counterfactual;
    ``opaque``: :func:`_folding_shown`'s."""
    from . import gl as glmod
    from .replay import replay
    harness = harness or DrawHarness(program, facts, reflection, runner)
    try:
        out = replay(program, facts, reflection, run.gen, run.cap, runner, lanes,
                     getattr(runner, "backend", None), probe=probe, harness=harness)
    except glmod.GLUnavailable:
        raise
    except glmod.GLError as e:
        rep.reason = f"outputs differ; the probed translation failed: {e}"
        return
    hook = out.hook
    if out.diffs and glsl is not None and isinstance(harness, DrawHarness):
        _judge_output_writers(program, rep, run, out, lanes, harness)
    if rep.evidence is not None:
        rep.evidence.unexplained = list(out.diffs)
    adopted = sorted({v for (_, v) in hook.adopted} | ({"recompiled"} if out.recompiled else set()))
    rep.localization = [d.to_json(program) for d in hook.unexplained[:max_reported]]
    rep.localization += [d.to_json(program) for d in hook.examples[:max_reported]]
    n_adopted = sum(hook.adopted.values())
    rep.notes.append(f"replay: {len(run.diffs)} differing components; the executor adopted "
                     f"{n_adopted} permitted results ({', '.join(adopted) or 'none'}) at "
                     f"{len({k for (k, _) in hook.adopted})} instructions; "
                     f"{len(out.diffs)} differences left")
    if out.recompiled:
        rep.notes.append(f"recompiled: on {len(out.recompiled)} lanes (first {out.recompiled[0]}) "
                         "the main compilation chose otherwise at a freedom the replay adopted; "
                         "the replay reproduces the probe compilation's complete run there")
    # geometry probes are read at the last EMIT, where GLSL leaves outputs written before an
    # EmitVertex() undefined: a departure seen there proves nothing, the outputs decide
    unreliable = program.stage == Stage.GEOMETRY
    if not out.diffs and (not hook.unexplained or unreliable) and \
            not folding_defect_shown(program, facts, glsl, reflection, lanes, runner, rep, run,
                                      hook, harness):
        return
    if not out.diffs and (not hook.unexplained or unreliable):
        if hook.unexplained:
            rep.notes.append(f"{len(hook.unexplained)} departures seen through geometry probes "
                             "(read at the last EMIT) are not counted: every output agrees")
            rep.localization = [d for d in rep.localization
                                if d.get("verdict") not in SUSPECT]
        rep.status = "pass"
        rep.reason = ("differences explained: " + ", ".join(adopted) +
                      " (shown: the executor, adopting those results, reproduces every output)")
        return
    if not level_pinned and glsl is not None and isinstance(harness, DrawHarness) and \
            _level_choice_shown(program, facts, glsl, reflection, lanes, runner, rep, run,
                                max_reported, harness, len(out.diffs), hook.unexplained):
        return
    if not opaque and glsl is not None and isinstance(harness, DrawHarness) and \
            _folding_shown(program, facts, glsl, reflection, lanes, runner, rep, run,
                           max_reported, len(out.diffs)):
        return
    rep.total_differences = len(out.diffs)
    rep.differences = out.diffs[:max_reported]
    rep.inputs_of = {}
    _note_inputs(rep, run.gen, out.diffs, harness.describe)
    bad_lanes = {d.lane for d in hook.unexplained}
    silent = sorted(cmp.diff_lanes(out.diffs, lanes) - bad_lanes)
    if silent:
        rep.localization.append({"verdict": "interface", "lanes": silent[:20], "detail": (
            "every probed value agreed on these lanes, the outputs do not: the difference "
            "arises where results are written out, or in an execution the probes did not "
            "capture")})
    verdicts = sorted({x.get("verdict") for x in rep.localization
                       if x.get("verdict") in SUSPECT})
    first = hook.unexplained[0].to_json(program)["instruction"] if hook.unexplained else None
    where = f" at {first['text']!r} (line {first['line']})" if first else ""
    rep.reason = "localized: " + ", ".join(verdicts) + where
    if glsl is not None and _vanishes_with_precise(program, facts, glsl, reflection, lanes,
                                                   runner, run, harness):
        rep.reason += ("; the differences vanish with 'precise' GLSL: the implementation "
                       "reassociates or contracts float operations")


def _level_choice_shown(program, facts, glsl, reflection, lanes, runner, rep, run,
                        max_reported, harness, left: int, departures=()) -> bool:
    """The replay left ``left`` differences: whether the run with the level choice removed
    (:mod:`level_choice`: every texture only lookups with undefined derivatives read, at one
    level and one filter; the same program, translation and inputs) passes the whole
    verification.  If it does, every difference of the main run came from the levels those
    lookups chose, which GLSL leaves to the implementation: pass, ``lod`` shown.

    A texture that lookups with defined derivatives read as well (``shared_level_units``)
    joins when none of the replay's unexplained ``departures`` is at such a lookup: its
    levels were judged there in the main run (a wrong level departs at the lookup on every
    lane that reaches it), and the one-level run judges everything else.  (Corpus TGSI
    webgl-water-40 and cg fp40 nedi-pass0 noopt: one texture read in uniform flow and inside
    an IF; the lookups inside took other levels in each probe compilation.)"""
    from . import gl as glmod
    from .level_choice import defined_lookup_departures, pinned_inputs, shared_level_units
    shared = shared_level_units(program)
    if shared and defined_lookup_departures(program, departures, shared):
        shared = set()
    pinned = pinned_inputs(program, run.gen, also=shared)
    if pinned is None:
        return False
    gen, changed = pinned
    units = ", ".join(str(u) for u in changed)
    joined = sorted(set(changed) & shared)
    res = harness.execute(program, gen, lanes)
    try:
        cap = harness.run_impl(glsl, gen, lanes)
    except glmod.GLError as e:
        rep.notes.append(f"level counterfactual not run: {e}")
        return False
    diffs = harness.compare(res, cap)
    # _explain leaves a mismatch as it finds it and sets only a pass
    sub = ProgramReport(rep.file, backend=rep.backend, status="mismatch")
    if diffs:
        _explain(program, facts, glsl, reflection, lanes, runner, sub,
                 DrawRun(gen, res, cap, diffs, run.compared), max_reported, harness=harness,
                 level_pinned=True)
        if sub.status != "pass":
            rep.notes.append(f"level counterfactual (texture units {units} at one level and "
                             f"one filter): still {sub.reason or 'a mismatch'}")
            return False
    rep.notes.append(f"the replay left {left} differences: values probed from compilations "
                     "that chose other levels at lookups with undefined derivatives")
    rep.localization = [d for d in rep.localization if d.get("verdict") not in SUSPECT]
    rep.status = "pass"
    also = ""
    if joined:
        also = (f"; unit{'s' if len(joined) > 1 else ''} {', '.join(map(str, joined))} also "
                "read where derivatives are defined, and no lookup there departed in the "
                "main run")
    rep.reason = (f"differences explained: lod (shown: with texture units {units} -- read "
                  f"{'' if joined else 'only '}by lookups whose derivatives GLSL leaves "
                  f"undefined{also} -- at one level and one filter, the same inputs " +
                  (f"pass as well: {sub.reason}" if diffs else "agree bit for bit") + ")")
    return True


def _folding_shown(program, facts, glsl, reflection, lanes, runner, rep, run, max_reported,
                   left: int) -> bool:
    """The replay left ``left`` differences: whether the same GLSL with no float literal known
    at compile time (:mod:`opaque`: each read through a uniform zero; every run-time value the
    same, bit for bit) passes the whole verification on the same inputs.  If it does, the
    differences came from the compiler's evaluation of constants -- Mesa's GL compiler folds
    ``x * 0.0`` to +0.0 and a division by a constant zero to 0.0, which the same operations at
    run time give as IEEE does (generated NV4 fragment seed 1216) -- a defect of the
    implementation, not of the translation: pass, ``implementation`` shown.  Only where GLSL
    text of the glsl450 profile runs (``gl``, and ``gl-spirv`` through glslang)."""
    from . import gl as glmod
    from .opaque import OpaqueRunner
    if getattr(runner, "backend", None) not in ("gl", "gl-spirv") or \
            getattr(runner, "profile", "glsl450") != "glsl450":
        return False
    opaque_runner = OpaqueRunner(runner)
    harness = DrawHarness(program, facts, reflection, opaque_runner)
    try:
        cap = harness.run_impl(glsl, run.gen, lanes)
    except glmod.GLError as e:
        rep.notes.append(f"folding counterfactual not run: {e}")
        return False
    diffs = harness.compare(run.res, cap)
    if len(diffs) >= len(run.diffs):
        # no fewer differences: folding made none of them (and the replay of this run, the
        # costly part, is not made for every mismatch)
        rep.notes.append(f"folding counterfactual (no float literal known at compile time): "
                         f"{len(diffs)} differences, as many as or more than before")
        return False
    sub = ProgramReport(rep.file, backend=rep.backend, status="mismatch")
    if diffs:
        _explain(program, facts, glsl, reflection, lanes, opaque_runner, sub,
                 DrawRun(run.gen, run.res, cap, diffs, run.compared), max_reported,
                 harness=harness, level_pinned=True, opaque=True)
        if sub.status != "pass":
            rep.notes.append("folding counterfactual (no float literal known at compile "
                             f"time): still {sub.reason or 'a mismatch'}")
            return False
    rep.notes.append(f"the replay left {left} differences; with no float literal known at "
                     "compile time the same GLSL " +
                     ("agrees bit for bit" if not diffs else "passes"))
    rep.localization = [d for d in rep.localization if d.get("verdict") not in SUSPECT]
    rep.status = "pass"
    rep.reason = ("differences explained: implementation (shown: the same GLSL with every "
                  "float literal read through a uniform zero the compiler cannot see -- the "
                  "same values at run time, nothing to fold -- " +
                  (f"passes as well: {sub.reason}" if diffs else "agrees bit for bit") +
                  "; the compiler evaluated constants otherwise than it runs the operations)")
    return True


def _judge_output_writers(program, rep, run, out, lanes: int, harness) -> None:
    """Lanes where every probe agreed and the outputs differ: the main compilation's own
    choice at an output's writer, shown by :func:`output_writers.writer_verdicts` (a flushed
    denormal only the main shader flushed: generated TGSI fragment seed 44).  Their
    differences leave ``out.diffs``; the adoptions join the replay's records."""
    from .output_writers import writer_verdicts
    hook = out.hook
    silent = sorted(cmp.diff_lanes(out.diffs, lanes) - {d.lane for d in hook.unexplained})
    shown = writer_verdicts(program, out.diffs, silent, hook, harness, run.gen, lanes,
                            getattr(run.cap, "killed", None))
    if not shown.lanes:
        return
    explained = set(shown.lanes)
    out.diffs = [d for d in out.diffs if d.lane not in explained]
    for key, n in shown.adopted.items():
        hook.adopted[key] = hook.adopted.get(key, 0) + n
    hook.examples += shown.examples
    verdicts = ", ".join(sorted({v for (_, v) in shown.adopted}))
    rep.notes.append(f"output writers: on {len(shown.lanes)} lanes (first {shown.lanes[0]}) "
                     "every probed value agreed and the outputs did not; the main run's output "
                     f"words are the writers' values shown permitted ({verdicts}): the writer "
                     "recomputed with that cause removed gives them, and nothing reads them")


def _vanishes_with_precise(program, facts, glsl, reflection, lanes, runner, run,
                           harness=None) -> bool:
    """Whether the same inputs give no difference when every GLSL variable is ``precise``
    (a hint for the report; it explains nothing)."""
    from . import gl as glmod
    harness = harness or DrawHarness(program, facts, reflection, runner)
    try:
        cap = harness.run_impl(glmod.make_precise(glsl), run.gen, lanes)
    except glmod.GLError:
        return False
    return not harness.compare(run.res, cap)


def _note_inputs(rep: ProgramReport, gen: GeneratedInputs, diffs, describe=None) -> None:
    """The inputs of the first three lanes with a difference (``describe(gen, lane)``: what a
    lane's inputs were, :meth:`DrawHarness.describe` by default)."""
    lanes_seen: list[int] = []
    for d in diffs:
        # the difference's lane (a dispatch's word or texel: the invocation that stored it)
        for lane in cmp.diff_lanes([d], 1 << 62):
            if lane not in lanes_seen:
                lanes_seen.append(lane)
        if len(lanes_seen) >= 3:
            break
    for lane in lanes_seen[:3]:
        info = describe(gen, lane) if describe is not None else (
            describe_inputs(gen, lane) if lane < gen.lanes else None)
        if info is not None:
            rep.inputs_of[lane] = info


