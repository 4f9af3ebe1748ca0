"""The cross-checks that need a second compilation: the direct SPIR-V path's module against
glslang's (:func:`chosen_direct_module`, :func:`judge_direct_departures`), and Mesa's folding
defect at MUL.HI shown by the same GLSL through SPIR-V (:func:`folding_defect_shown`)."""
from __future__ import annotations

import numpy as np

from ..diagnostics import XlateError
from ..ir.model import Program, Stage
from .draw_run import DrawHarness
from .mutants_common import Delegate
from .output_compare import diff_key, diff_words


def chosen_direct_module(program: Program, profile: str, via: str, rep):
    """The direct module maker (:func:`direct_module`) the run uses, with the note saying so;
    None where the path does not cover the program and glslang's module runs instead (noted);
    False where ``via`` is "direct" and it does not cover it (``rep`` is then unsupported)."""
    direct = direct_module(program, profile)
    if not isinstance(direct, str):
        rep.notes.append("ran the direct SPIR-V path's module (xlate's own SPIR-V)")
        return direct
    if via == "direct":
        rep.status, rep.reason = "unsupported", f"direct SPIR-V does not cover {direct}"
        return False
    rep.notes.append(f"direct SPIR-V does not cover {direct}: glslang's SPIR-V ran")
    return None


def direct_module(program: Program, profile: str):
    """A maker of the direct SPIR-V path's module of ``program`` with a harness's
    instrumentation (``Instrumentation -> bytes``, each module validated by spirv-val), or the
    reason the direct path does not cover the program (a str)."""
    from ..backends import spirv as sp
    from ..backends.spirv_direct import NotCovered, emit_spirv
    from . import gl as glmod
    try:
        emit_spirv(program, profile)
    except NotCovered as e:
        return str(e)
    except XlateError as e:
        return "; ".join(d.message for d in e.diagnostics)
    env = "vulkan" if profile == "vulkan" else "opengl"

    def make(instrumentation) -> bytes:
        words = emit_spirv(program, profile, instrumentation=instrumentation).spirv
        problem = sp.validate_spirv(words, target=env)
        if problem:
            raise glmod.GLError(f"the direct SPIR-V with the harness's additions is invalid: "
                                f"{problem}")
        return words
    return make


def judge_direct_departures(rep, direct_diffs, glslang_diffs, max_reported: int,
                            unit: str = "components", nonfinite=None) -> bool:
    """Where the direct module's run departs from the executor and glslang's run does not
    (:func:`direct_departures`): ``rep`` becomes a mismatch showing those differences, and
    True.  ``unit``: what a difference is (output components, buffer words).  ``nonfinite``:
    departures -> the keys of those on components whose value the program leaves to the
    implementation, shown (:func:`nonfinite_components`); they are not counted."""
    apart = direct_departures(direct_diffs, glslang_diffs)
    if apart and nonfinite is not None:
        free = nonfinite(apart)
        if free:
            apart = [d for d in apart if diff_key(d) not in free]
            rep.notes.append(
                f"the direct SPIR-V departs from the executor on {len(free)} {unit} whose "
                "executor value depends on an Inf or NaN the program computes (shown: the "
                "executor with each such value replaced by a finite word gives another value "
                "there; GLSL 4.50 §4.7.1 leaves operations on them unspecified): not counted")
    if not apart:
        return False
    rep.status = "mismatch"
    rep.reason = ("the direct SPIR-V departs from the executor where glslang's SPIR-V does "
                  f"not ({len(apart)} {unit}; nothing replays the direct module)")
    rep.total_differences = len(direct_diffs)
    rep.differences = apart[:max_reported]
    return True


def nonfinite_components(program: Program, facts, reflection: dict, gen, lanes: int, cap,
                         apart: list) -> set:
    """The keys (:func:`output_compare.diff_key`) of the departures ``apart`` -- the capture
    ``cap`` against the executor -- on output components (or kills) whose executor value
    depends on an Inf or NaN the program computes: each takes another value in a run of
    :func:`nonfinite_runs.nonfinite_counterfactuals` (generated ARBfp seed 2003, inputs seed
    2000: ``XPD`` of the fog coordinate's zeros and an Inf, NaN by the executor, 0.0 by
    lavapipe from the direct module, which spells the products out one by one)."""
    from .nonfinite_runs import nonfinite_counterfactuals
    from .output_compare import compare_all
    if program.stage not in (Stage.VERTEX, Stage.FRAGMENT):
        # a geometry lane's vertices share a key (output, lane, component): a key does not
        # name one word, so nothing is shown there (cg gs_md2shadow, the direct mutation
        # campaign seed 10: the normals' flip inverted passed, keyed to another vertex)
        return set()
    runs = nonfinite_counterfactuals(program, gen, lanes)
    if not runs:
        return set()
    missing = object()
    free = set()
    for res in runs:
        diffs, _ = compare_all(program, facts, reflection, res, cap, [], strict=True)
        expected = {diff_key(d): d.expected for d in diffs}
        for d in apart:
            e = expected.get(diff_key(d), missing)
            # missing: the counterfactual's value is the capture's, so not the executor's
            if e is missing or not _same_word(e, d.expected):
                free.add(diff_key(d))
    return free


def _same_word(a, b) -> bool:
    """Two executor words alike (NaNs of any payload as one); None (a kill) alike."""
    from .compare import same_words
    if a is None or b is None:
        return a is b
    return bool(same_words(np.uint32(a), np.uint32(b)))


def direct_departures(direct_diffs, glslang_diffs) -> list:
    """The differences of the direct SPIR-V module's run that glslang's module's run (same
    inputs) does not have with the same word -- unless the two words are the same value by
    GLSL 4.50 4.7.1 (:func:`same_value_by_glsl`).  Nothing replays the direct module, so no
    freedom can be shown for these: each is a mismatch."""
    own = diff_words(glslang_diffs)
    return [d for d in direct_diffs if own.get(diff_key(d), object()) != d.got
            and not same_value_by_glsl(d)]


def same_value_by_glsl(d) -> bool:
    """A difference between two words GLSL 4.50 section 4.7.1 does not tell apart: two zeros
    of either sign, or two NaNs of any payload (float words only); and, for a float output
    component, the executor's denormal given as a zero of either sign -- section 4.7.1: "any
    denormalized value ... potentially generated by any operation in a shader can be flushed
    to 0", the write to the output included (generated NV4 vertex seed 2305, inputs seed
    2300: ``DST.F.SSAT`` passing a denormal through its clamp, flushed by lavapipe from the
    direct module only).  Not for buffer words, which carry no type."""
    if d.kind not in ("value", "memory", "texel") or d.integer or d.expected is None \
            or d.got is None:
        return False
    a, b = int(d.expected), int(d.got)
    zero = (a & 0x7FFFFFFF) == 0 and (b & 0x7FFFFFFF) == 0
    nan = all((w & 0x7F800000) == 0x7F800000 and (w & 0x007FFFFF) != 0 for w in (a, b))
    flushed = d.kind == "value" and (a & 0x7F800000) == 0 and (a & 0x007FFFFF) != 0 and \
        (b & 0x7FFFFFFF) == 0
    return zero or nan or flushed


def folding_defect_shown(program, facts, glsl, reflection, lanes, runner, rep, run,
                          hook, harness=None) -> bool:
    """Mesa's folding of ``umulExtended`` of constants (:func:`trace.known_defect`) lets
    ``permits.rule_implementation_any`` adopt any value at that instruction on ``gl``: assumed,
    not shown, it would pass any wrong translation of it (a mutant reading ``.y`` for ``.x``
    there passed).  The cause is removed by compiling the *same* GLSL through glslang's SPIR-V
    (``GL_ARB_gl_spirv``), which Mesa does not fold: that run must reproduce exactly the
    executor replayed with every *other* adoption of the replay (its shown freedoms: a
    filtered lookup's tolerance, a flushed denormal ...) and the executor's own value at the
    defect's instructions -- the departures there are the only ones the SPIR-V run removes
    (tgsi fragment seed 69: a TXL within its filtering tolerance beside the folded UMUL_HI).
    True when no such adoption was made or the run shows it; else the report becomes a
    mismatch naming the run."""
    from . import gl as glmod
    from .replay import ReplayHook
    defect = {k for (k, v) in hook.adopted if v == "implementation"
              and program.instructions[k].op == "MUL"}
    if not defect or glsl is None or getattr(runner, "backend", None) != "gl":
        return True
    harness = harness or DrawHarness(program, facts, reflection, runner)
    try:
        cap = harness.run_impl(glsl, run.gen, lanes, through_spirv=True)
    except (glmod.GLUnavailable, glmod.GLError) as e:
        rep.status, rep.reason = "mismatch", (
            "outputs differ; the folding defect at MUL.HI is not shown: the run of the same "
            f"GLSL through SPIR-V failed ({e})")
        return False
    values = {k: v for k, v in hook.values.items() if k not in defect}
    again = ReplayHook(program, values, lanes, getattr(runner, "backend", None), hook.conds,
                       final=True, impl_killed=getattr(run.cap, "killed", None))
    res = harness.execute(program, run.gen, lanes, hooks=again)
    diffs = harness.compare(res, cap)
    if not diffs:
        rep.notes.append("implementation: the same GLSL through SPIR-V (which Mesa does not "
                         "fold) reproduces every output of the executor replayed with the "
                         "executor's own values at the folded instructions")
        return True
    shown = _replayed_through_spirv(program, facts, reflection, lanes, runner, run, cap,
                                    harness)
    if shown is not None:
        rep.notes.append("implementation: the same GLSL through SPIR-V (which Mesa does not "
                         "fold) took other permitted freedoms than the GLSL compilation; its "
                         "own replay, with no freedom at the folded instructions, reproduces "
                         f"every output (adopted: {', '.join(shown) or 'none'})")
        return True
    rep.status, rep.reason = "mismatch", (
        f"outputs differ; the folding defect at MUL.HI is not shown: the same GLSL "
        f"through SPIR-V (no folding) still differs from the executor replayed without "
        f"that defect ({len(diffs)} components, first: {diffs[0].describe()})")
    rep.total_differences = len(diffs)
    rep.differences = diffs[:50]
    return False


class _ThroughSpirv(Delegate):
    """A ``gl`` runner whose every run (the probe runs too) compiles the GLSL through
    glslang's SPIR-V (``through_spirv``)."""

    backend = "gl-spirv"

    def run(self, stage, glsl, reflection, lanes, **kw):
        return self.inner.run(stage, glsl, reflection, lanes, **{**kw, "through_spirv": True})


def _replayed_through_spirv(program, facts, reflection, lanes, runner, run, cap,
                            harness) -> list[str] | None:
    """The replay of the run through glslang's SPIR-V (``cap``) against that compilation's own
    probes, judged as on ``gl-spirv``: there the folding defect is no freedom (trace.
    known_defect is ``gl``'s), so the MUL.HI must give the executor's value.  A second
    compilation may take other permitted freedoms than the first (llvmpipe's ldexp of an
    exponent below -126 gives +0 through SPIR-V where the GLSL compilation kept -0: random
    TGSI geometry seed 17), which a replay with the first one's adoptions cannot show.  The
    verdicts it adopted, or None when it does not reproduce every output."""
    from . import gl as glmod
    from .replay import replay
    try:
        out = replay(program, facts, reflection, run.gen, cap, _ThroughSpirv(runner), lanes,
                     "gl-spirv", harness=harness)
    except (glmod.GLUnavailable, glmod.GLError):
        return None
    if out.diffs or (out.hook.unexplained and program.stage != Stage.GEOMETRY):
        return None
    return sorted({v for (_, v) in out.hook.adopted})
