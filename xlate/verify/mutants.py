"""Mutation testing of ``xlate verify``: a wrong translation must not pass.

The verifier compares the executor (the ORIGINAL program) with the translated GLSL run on a
real implementation.  When it explains differences away (implementation freedoms: ``ftz``,
``nonfinite``, ``tolerance`` ...), a bug in the translation could pass unnoticed.  This module
measures that: for a program that verifies cleanly (``pass``, zero differences) it makes the
translation wrong in one small, live way and checks that the verifier says ``mismatch``.

Only the verifier's public entry point is used (:func:`xlate.verify.core.verify_source` with a
``runner``).  The fault is injected by :class:`MutatingRunner`, which wraps the real runner and
edits every GLSL text it is asked to compile -- the main run, the instrumented probe shaders of
the localization and the re-runs (finite inputs, ``precise``) -- so the program is mutated
consistently wherever the verifier looks.  A mutation names its site by content (the
statement's tokens, with the backend's numbered temporaries ``xl_t12`` and the ``precise`` /
``highp`` qualifiers ignored, plus which occurrence of that statement), so it finds the same
statement in probe shaders, whose temporaries are numbered differently; a shader without that
statement is left alone.

The direct SPIR-V path has no text to edit: its mutants are edits of the lowered tree it
prints (:mod:`mutants_tree`, ``mutate_program(..., target="spirv-direct")``), classified here
the same way.

Outcome of one mutant (:class:`MutantResult`), decided apart from the verifier's verdicts:

* ``rejected``: the implementation refuses the mutated GLSL (compile/link error), or the
  verifier answers ``unsupported``/``error``/``skipped`` -- caught trivially, counted apart;
* ``equivalent``: the mutated shader's outputs are bit-identical (NaN == NaN whatever the
  payload) to the unmutated shader's on every lane for the verifier's own inputs (those of its
  main run, recorded by :class:`RecordingRunner`), so no verifier could tell them apart on
  these inputs;
* otherwise the mutant is *live* and the verifier's status decides: ``caught`` (``mismatch``),
  ``tolerated`` (``pass`` with zero differences: the comparison's tolerance absorbed it) or
  ``explained`` (``pass`` after differences were explained away; the reason is kept).
  ``tolerated`` + ``explained`` are the mutants that fooled the verifier ("explained away").

A mutant the verifier passes is then asked, by a check of the harness's own that uses none of
the verifier's rules, whether it is a *wrong* translation at all (:func:`permitted_mutant`);
if not, it is counted apart, with the reason, instead of as fooling the verifier:

* ``precision``: a ``literal-ulp`` mutant -- a literal moved by one ulp (2^-24 relative at
  most) is as correct a translation as the original: GL 2.1 §2.1.1 asks a floating-point value
  for "about 1 part in 10^5", so a constant one ulp off is a correct representation of it.  The
  verifier holds translations to bit-exactness where llvmpipe is exact (most such mutants are
  caught); where the literal feeds an approximate operation it may pass one, rightly.
* ``zero-sign-only``: the mutant's outputs equal the unmutated translation's on every lane once
  -0.0 and +0.0 count as one value: GLSL 4.50 §4.7.1 leaves the sign of a zero result to the
  implementation (``permits.rule_signedzero``), so no check held to that contract could tell
  them apart on these inputs (a swizzle that moves a product's factor where the other factor
  is always 0);
* ``nonfinite-only``: the mutant's outputs are bit-identical to the unmutated translation's
  (but for the sign of zeros, as ``zero-sign-only``) on every lane whose outputs the ORIGINAL
  program determines; it changes only lanes whose outputs
  depend on an infinity or NaN the program computes or reads, and GLSL 4.50 §4.7.1 leaves
  operations on those unspecified -- no translation's output there is more right than
  another's.  Which lanes depend is shown, not assumed (:func:`undetermined_lanes`): the
  executor runs the verifier's own main-run lanes again with every Inf/NaN result, and every
  result computed from an Inf/NaN operand, replaced by a finite word; a lane whose outputs
  change depends on one.  An Inf that no output reads leaves its lane determined.
* ``undefined-only``: the same, for lanes whose outputs depend on a result the specifications
  leave undefined (``permits.rule_undefined``: an integer MOD of a negative dividend, a DIV by
  zero ...), shown by runs with those results replaced (``nonfinite_runs.UndefinedResults``).
* ``flush-only``: the mutant's outputs equal the unmutated translation's word for word, except
  words the unmutated one gives as a denormal and the mutant as a zero (either sign): GLSL
  4.50 §4.7.1 and NV_gpu_program4 issue 18 let an implementation flush denormals
  (``permits.rule_ftz``), so on these inputs the mutant's outputs are those of a permitted run
  of the right translation (generated TGSI geometry seed 7: a dropped ``.w`` left the
  initial 0 where the right statement writes the negated denormal parameter; every lane's
  parameter is that denormal).  Draws and geometry primitives both.  Or, wherever the
  mutant differs, its words are bit for bit the ORIGINAL program's with its saturated
  denormals written unclamped (:mod:`.choice_runs`; a saturation is a select on flushed
  values: generated TGSI compute 16, campaign seed 12, a dropped ``xl_sat`` of a denormal).
* ``edge-only``: the mutant's outputs equal the unmutated translation's (but for the sign of
  zeros) on every lane but those where they are, bit for bit, the ORIGINAL program's with its
  lookups' coordinates moved across the texel edges they lie on (:mod:`.choice_runs`): GL
  4.5 §8.14.2 picks a NEAREST texel by floor(s * size), a product §2.3.4.1 holds to about 1
  part in 10^5, so at an edge either texel is a right translation's (generated ARBvp+NV3
  vertex 7, campaign seed 7: ``TEXC0 ..., {10.0, -1.0}, texture[7], 3D`` exactly on an edge,
  the literal -1.0 -> -1.01 taking the neighbouring texel).
* ``lod-only``: the same, with the ORIGINAL program's implicit-LOD lookups at another level of
  detail within GL 4.5 §8.14.1's approximation of rho (:mod:`.choice_runs`: cg arbfp1
  scalefx-hybrid-pass0, campaign seed 12, a coordinate ``.yw`` -> ``.yx`` reading the 1x1
  level, which the original reads at lambda 2.06 + 0.75).
"""
from __future__ import annotations

import random
import signal
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field

import numpy as np

from .mutants_common import Delegate

# the GLSL mutations (re-exported: callers of the harness import this module only)
from .mutants_glsl import (KINDS, MUTATORS, MutatingRunner, Mutation, candidates,  # noqa: F401
                           code_lines, live_candidates, output_names, pick, significant,
                           statement_key, tokenize)

# ---- runners -----------------------------------------------------------------------------------

class RecordedRun(tuple):
    """(stage, glsl, reflection, lanes, keyword arguments, capture) of a run, with ``state``:
    the runner state the verifier had set for it (:data:`Delegate.FORWARDED`: a tessellation
    program's lanes), which a run with the same arguments needs again; ``executor_run``: the
    executor run on the same lanes (program, inputs, lanes), or None."""

    state: dict
    executor_run: tuple | None = None


class RecordingRunner(Delegate):
    """The real runner; keeps the first call (the verifier's main run) and its capture, and
    the executor run that preceded it from ``executor_runs`` (draw_run.EXECUTOR_RUNS)."""

    def __init__(self, inner, executor_runs: list | None = None):
        super().__init__(inner)
        self.first = None
        self.executor_runs = executor_runs

    def run(self, stage, glsl, reflection, lanes, **kw):
        cap = self.inner.run(stage, glsl, reflection, lanes, **kw)
        if self.first is None:
            self.first = RecordedRun((stage, glsl, reflection, lanes, kw, cap))
            self.first.state = {a: getattr(self.inner, a, None) for a in Delegate.FORWARDED}
            if self.executor_runs and self.executor_runs[-1][2] == lanes:
                from dataclasses import replace
                program, gen, n = self.executor_runs[-1]
                if hasattr(gen, "inputs"):     # (a compute dispatch's ComputeInputs as they are)
                    gen = replace(gen, inputs=dict(gen.inputs))
                self.first.executor_run = (program, gen, n)
        return cap


@contextmanager
def runner_state(runner, state: dict):
    """``runner`` with the state of a recorded run set for the calls made inside, cleared
    after (the verifier clears it after its own runs too)."""
    for a, v in state.items():
        setattr(runner, a, v)
    try:
        yield
    finally:
        for a in state:
            setattr(runner, a, None)


# ---- comparing captures ------------------------------------------------------------------------

_INT_TYPES = ("ivec4", "uvec4", "int", "uint", "ivec2", "uvec2", "ivec3", "uvec3")


def _canon(words, integer: bool) -> np.ndarray:
    from .compare import canonical_nans
    return np.asarray(words, np.uint32) if integer else canonical_nans(words)


def captures_differ(reflection: dict, a, b, *, lanes=None, zero_signs: bool = False) -> bool:
    """Whether two captures of the same interface differ bitwise (NaN == NaN whatever the
    payload; integer outputs compared raw), on lanes that neither run killed.  ``lanes``: a
    (lanes,) bool mask, compare those lanes only (vertex/fragment captures); ``zero_signs``:
    -0.0 and +0.0 of a float output are one value."""
    integer = {o["name"]: o.get("type") in _INT_TYPES for o in reflection.get("outputs", [])}

    def rows(words):
        w = np.asarray(words)
        if lanes is None:
            return w
        return w[lanes] if w.shape[:1] == lanes.shape else None

    if a.killed is not None or b.killed is not None:
        if a.killed is None or b.killed is None:
            return True
        ka, kb = rows(a.killed), rows(b.killed)
        if ka is None or kb is None or not np.array_equal(ka, kb):
            return True
    if a.primitives is not None or b.primitives is not None:
        return _primitives_differ(integer, a.primitives or [], b.primitives or [])
    if set(a.outputs) != set(b.outputs):
        return True
    if _patches_differ(getattr(a, "patch", None), getattr(b, "patch", None), lanes,
                       zero_signs):
        return True
    keep = None if a.killed is None else ~np.asarray(rows(a.killed), bool)
    for name, wa in a.outputs.items():
        is_int = integer.get(name, False)
        ia, ib = rows(_canon(wa, is_int)), rows(_canon(b.outputs[name], is_int))
        if ia is None or ib is None:
            return True
        if zero_signs and not is_int:
            ia, ib = _one_zero(ia), _one_zero(ib)
        if keep is not None:
            ia, ib = ia[keep], ib[keep]
        if not np.array_equal(ia, ib):
            return True
    return False


def _one_zero(words: np.ndarray) -> np.ndarray:
    """Float words with -0.0 given as +0.0 (a zero's sign compared as one value)."""
    return np.where((words & 0x7FFFFFFF) == 0, np.uint32(0), words)


def _patches_differ(pa: dict | None, pb: dict | None, lanes, zero_signs: bool) -> bool:
    """Whether two tessellation control captures' per-patch combinations (``Capture.patch``:
    binding -> (patches, 4) words, float) differ; with a lane mask, only the patches whose
    invocations (consecutive lanes) are all in it count."""
    if pa is None and pb is None:
        return False
    if pa is None or pb is None or set(pa) != set(pb):
        return True
    for binding, wa in pa.items():
        ia, ib = _canon(wa, False), _canon(pb[binding], False)
        if ia.shape != ib.shape:
            return True
        if zero_signs:
            ia, ib = _one_zero(ia), _one_zero(ib)
        if lanes is not None:
            patches = ia.shape[0]
            if patches == 0 or lanes.shape[0] % patches:
                return True
            whole = np.asarray(lanes, bool).reshape(patches, -1).all(axis=1)
            ia, ib = ia[whole], ib[whole]
        if not np.array_equal(ia, ib):
            return True
    return False


def _lane_primitives_differ(reflection: dict, cap0, cap, lanes) -> bool:
    """Whether two geometry captures' primitives differ on the invocations (lanes) in the
    mask, the sign of a zero not counted."""
    integer = {o["name"]: o.get("type") in _INT_TYPES for o in reflection.get("outputs", [])}
    pa, pb = cap0.primitives or [], cap.primitives or []
    if len(pa) != len(pb) or len(pa) != len(lanes):
        return True

    def canon(name, words):
        c = _canon(words, integer.get(name, False))
        return c if integer.get(name, False) else _one_zero(c)

    from .output_compare import same_primitives
    keep = np.flatnonzero(lanes)
    return not same_primitives([pa[i] for i in keep], [pb[i] for i in keep], canon)


def _primitives_differ(integer, pa, pb) -> bool:
    from .output_compare import same_primitives
    return not same_primitives(pa or [], pb or [],
                               lambda name, w: _canon(w, integer.get(name, False)))


# ---- one program -------------------------------------------------------------------------------

@dataclass
class MutantResult:
    program: str
    group: str
    kind: str
    before: str
    after: str
    outcome: str                 # one of OUTCOMES
    status: str = ""             # the verifier's status (live mutants)
    reason: str = ""             # the verifier's reason, or the compile error
    verdicts: list = field(default_factory=list)
    differences: int = 0
    shaders_mutated: int = 0     # how many of the verifier's shaders carried the mutation
    main_run_reused: bool = False  # the verifier's main run was the equivalence run's capture
    dialect: str = ""            # the program's dialect/stage
    seconds: float = 0.0         # time to classify it (equivalence run + verifier)

    def to_json(self) -> dict:
        return asdict(self)


@dataclass
class ProgramResult:
    program: str
    group: str
    status: str                  # clean, or why the program was not used
    mutants: list = field(default_factory=list)
    dead_sites: int = 0          # mutations of statements whose result is never read (not run)
    skipped_slow: int = 0        # wanted mutants not run after max_timeouts timeouts


class _Timeout(Exception):
    pass


def _alarm(seconds: float):
    """A SIGALRM deadline for one mutant (the verifier may localize for long)."""
    def handler(signum, frame):
        raise _Timeout()
    if seconds and hasattr(signal, "SIGALRM"):
        signal.signal(signal.SIGALRM, handler)
        signal.setitimer(signal.ITIMER_REAL, seconds)


def _disarm():
    if hasattr(signal, "SIGALRM"):
        signal.setitimer(signal.ITIMER_REAL, 0)


def classify(text: str, name: str, group: str, mutation, runner, first, *,
             lanes: int, seed: int, timeout: float = 0, target: str = "glsl") -> MutantResult:
    """Run one mutant on the verifier's inputs, then (when live) through the verifier.
    ``mutation``: a GLSL :class:`Mutation`, or a :class:`mutants_tree.TreeMutation` of the
    direct SPIR-V path (``target`` ``spirv-direct``); each makes its own mutating runner."""
    import time
    t0 = time.perf_counter()
    res = _classify(text, name, group, mutation, runner, first, lanes=lanes, seed=seed,
                    timeout=timeout, target=target)
    res.seconds = round(time.perf_counter() - t0, 3)
    return res


def _verify_kw(runner, target: str) -> dict:
    """verify_source's arguments for a target: the direct SPIR-V path runs on its runner's
    backend (``vulkan`` or ``gl-spirv``) with ``via="direct"`` (never glslang's module in its
    place)."""
    if target == "glsl":
        return {}
    if target == "spirv-direct":
        return {"backend": getattr(runner, "backend", "vulkan"), "via": "direct"}
    raise ValueError(f"no mutation target {target!r}")


def _classify(text, name, group, mutation, runner, first, *, lanes, seed, timeout,
              target="glsl"):
    from .core import verify_source
    from .glapi import GLError
    stage, glsl, reflection, n, kw, cap0 = first
    res = MutantResult(name, group, mutation.kind, mutation.before, mutation.after, "")
    equivalence_run = mutation.mutating_runner(runner)
    try:
        with runner_state(equivalence_run, getattr(first, "state", {})):
            cap = equivalence_run.run(stage, glsl, reflection, n, **kw)
    except GLError as e:
        res.outcome, res.reason = "rejected", f"implementation error: {e}"[:300]
        return res
    if not captures_differ(reflection, cap0, cap):
        res.outcome = "equivalent"
        # 1: the shader that ran carried the mutation (an equivalent mutant is a real edit)
        res.shaders_mutated = equivalence_run.applied
        return res
    mr = mutation.mutating_runner(runner, known=(stage, glsl, n, kw, cap))
    try:
        _alarm(timeout)
        rep = verify_source(text, name, lanes=lanes, seed=seed, runner=mr,
                            **_verify_kw(runner, target))
    except _Timeout:
        res.outcome, res.reason = "timeout", f"verifier ran past {timeout} s"
        return res
    finally:
        _disarm()
    res.status, res.reason = rep.status, rep.reason
    res.verdicts = sorted({str(x.get("verdict")) for x in rep.localization})
    res.differences, res.shaders_mutated = rep.total_differences, mr.applied
    res.main_run_reused = mr.reused > 0
    if rep.status == "mismatch":
        res.outcome = "caught"
    elif rep.status == "pass":
        res.outcome = "tolerated" if rep.total_differences == 0 else "explained"
        why = permitted_mutant(mutation, reflection, cap0, cap,
                               getattr(first, "executor_run", None))
        if why is not None:
            res.outcome, res.reason = why[0], f"{why[1]} (verifier: {rep.reason})"
    else:
        res.outcome = "rejected"
    return res


def permitted_mutant(mutation, reflection, cap0, cap, executor_run=None):
    """(outcome, reason) when a mutant the verifier passed is no wrong translation (module
    docstring: ``precision`` ... ``edge-only``), shown by the harness's own check; else None.
    ``cap0``/``cap``: the unmutated and the mutated translation's captures on the verifier's
    main-run inputs; ``executor_run``: the executor's (program, inputs, lanes) of those lanes
    (:attr:`RecordedRun.executor_run`; None: no ``nonfinite-only`` or ``edge-only``)."""
    if mutation.kind == "literal-ulp":
        return ("precision", "a literal one ulp off: within GL 2.1 §2.1.1's 1 part in 10^5, a "
                "correct translation of the same constant")
    is_geometry = cap0.primitives is not None or cap.primitives is not None
    if not is_geometry and not captures_differ(reflection, cap0, cap, zero_signs=True):
        return ("zero-sign-only", "identical on the verifier's inputs but for the sign of "
                "zeros, which GLSL 4.50 §4.7.1 leaves to the implementation (permits."
                "rule_signedzero): no check held to that contract could tell them apart on "
                "these inputs")
    if differs_only_by_flushing(reflection, cap0, cap):
        return ("flush-only", "identical on the verifier's inputs but for outputs the "
                "unmutated translation gives as denormals and the mutant as zeros: a flush "
                "GLSL 4.50 §4.7.1 permits (permits.rule_ftz), so no check held to that "
                "contract could tell them apart on these inputs")
    if executor_run is None:
        return None
    return _nonfinite_only(reflection, cap0, cap, executor_run) or \
        _undefined_only(reflection, cap0, cap, executor_run) or \
        _unclamped_denormals(reflection, cap0, cap, executor_run) or \
        _edge_only(reflection, cap0, cap, executor_run) or \
        _lod_only(reflection, cap0, cap, executor_run)


def _differ_outside(reflection, cap0, cap, lanes) -> bool:
    """Whether two captures differ (but for the sign of zeros) on the lanes of the mask; a
    geometry lane is one invocation, its outputs the primitives it emits."""
    if cap0.primitives is not None or cap.primitives is not None:
        return _lane_primitives_differ(reflection, cap0, cap, lanes)
    return captures_differ(reflection, cap0, cap, lanes=lanes, zero_signs=True)


def _reproduced(finder, reflection, cap0, cap, executor_run) -> bool:
    """Whether every lane on which the mutant's capture ``cap`` differs from ``cap0`` is
    reproduced, bit for bit, by one of the runs of ``finder`` (:mod:`choice_runs`)."""
    program, gen, lanes = executor_run
    matched = finder(program, gen, lanes, reflection, cap,
                     done=lambda m: not _differ_outside(reflection, cap0, cap, ~m))
    return matched is not None and not _differ_outside(reflection, cap0, cap, ~matched)


def _edge_only(reflection, cap0, cap, executor_run):
    """``edge-only`` (:mod:`xlate.verify.choice_runs`): every lane on which the mutant
    differs is, bit for bit, the original program with its lookups' coordinates moved across
    the texel edges they lie on."""
    from .choice_runs import edge_choice_lanes
    if not _reproduced(edge_choice_lanes, reflection, cap0, cap, executor_run):
        return None
    return ("edge-only", "identical on the verifier's inputs but on lanes where it gives, "
            "bit for bit, the original program with its lookups' coordinates moved across the "
            "texel edges they lie on: a texel GL 4.5 §8.14.2 and §2.3.4.1 leave to the "
            "implementation there (permits.rule_boundary), so no check held to that contract "
            "could tell them apart on these inputs")


def _unclamped_denormals(reflection, cap0, cap, executor_run):
    """``flush-only`` by a run (:mod:`xlate.verify.choice_runs`): wherever the mutant
    differs, it gives, bit for bit, the original program with its saturated denormals written
    unclamped -- a select on flushed values, which GLSL 4.50 §4.7.1 permits."""
    from .choice_runs import unclamped_lanes, unclamped_words
    from .nonfinite_runs import ComputeInputs
    program, gen, lanes = executor_run
    if isinstance(gen, ComputeInputs):
        run = unclamped_words(program, gen)
        if run is None or set(cap0.outputs) != set(cap.outputs):
            return None
        for name, wa in cap0.outputs.items():
            a, b = _canon(wa, False), _canon(cap.outputs[name], False)
            r = run.get(name)
            if r is None or a.shape != b.shape or r.shape != b.shape:
                return None
            if ((a != b) & (b != _canon(r, False))).any():
                return None
    else:
        matched = unclamped_lanes(program, gen, lanes, reflection, cap)
        if matched is None or _differ_outside(reflection, cap0, cap, ~matched):
            return None
    return ("flush-only", "identical on the verifier's inputs but where it gives, bit for bit, "
            "the original program with its saturated denormals written unclamped: a "
            "saturation compares the flushed value and moves the value's own bits, which "
            "GLSL 4.50 §4.7.1 permits (permits._saturation_moved_denormal)")


def _lod_only(reflection, cap0, cap, executor_run):
    """``lod-only`` (:mod:`xlate.verify.choice_runs`): every lane on which the mutant differs
    is, bit for bit, the original program with its lookups at another level of detail within
    GL's approximation of rho."""
    from .choice_runs import lod_choice_lanes
    from .nonfinite_runs import ComputeInputs
    if isinstance(executor_run[1], ComputeInputs) or \
            not _reproduced(lod_choice_lanes, reflection, cap0, cap, executor_run):
        return None
    return ("lod-only", "identical on the verifier's inputs but on lanes where it gives, bit "
            "for bit, the original program with its lookups at another level of detail, "
            "within the approximation of rho GL 4.5 §8.14.1 allows (permits_texture."
            "lod_reach): no check held to that contract could tell them apart on these inputs")


def _nonfinite_only(reflection, cap0, cap, executor_run):
    from .nonfinite_runs import ComputeInputs
    if isinstance(executor_run[1], ComputeInputs):
        return _compute_nonfinite_only(cap0, cap, executor_run)
    # (geometry: generated TGSI geometry 8, campaign seed 8, an exp2 that overflows)
    return _undetermined_only(reflection, cap0, cap, executor_run, False)


def _undefined_only(reflection, cap0, cap, executor_run):
    """``undefined-only``: as ``nonfinite-only``, for the lanes whose outputs depend on a result
    the specifications leave undefined (NV_gpu_program4 2.X.8.Z: an integer MOD of a negative
    dividend; corpus vp4_int_flags.vp, campaign seed 17: MOD of random words, whose every lane
    was undefined)."""
    from .nonfinite_runs import ComputeInputs
    if isinstance(executor_run[1], ComputeInputs):
        return None
    return _undetermined_only(reflection, cap0, cap, executor_run, True)


def _undetermined_only(reflection, cap0, cap, executor_run, undefined: bool):
    """``nonfinite-only`` (``undefined``: ``undefined-only``) of a draw: the mutant equals the
    unmutated translation on every lane the original program determines."""
    undetermined = undetermined_lanes(*executor_run, undefined=undefined)
    if undetermined is None or not undetermined.any():
        return None
    determined = ~undetermined
    # on the determined lanes the sign of a zero may differ too (zero-sign-only's freedom):
    # each difference is then one a right translation may show (corpus arbfp_nv2_loop.fp,
    # campaign seed 7: a CC test's component swapped, a NaN on some lanes, -0 on others)
    if _differ_outside(reflection, cap0, cap, determined):
        return None
    depend = ("a result the specifications leave undefined (permits.rule_undefined)"
              if undefined else "an Inf or NaN it computes (GLSL 4.50 §4.7.1)")
    return ("undefined-only" if undefined else "nonfinite-only",
            f"identical on the {int(determined.sum())} lanes whose outputs the original "
            "program determines (but for the sign of zeros); differs on "
            f"{int(undetermined.sum())} lanes whose outputs depend on {depend}")


def _compute_nonfinite_only(cap0, cap, executor_run):
    """``nonfinite-only`` of a compute program: the mutant's buffers and images equal the
    unmutated translation's (but for the sign of zeros) in every word whose final value the
    original program determines -- its words are its outputs (generated TGSI compute 11,
    campaign seed 11: LOG of a zero, then saturated, read from another component)."""
    from .nonfinite_runs import undetermined_words
    program, inputs, lanes = executor_run
    free = undetermined_words(program, inputs, lanes)
    if free is None or not any(m.any() for m in free.values()):
        return None
    a, b = cap0.outputs, cap.outputs
    if set(a) != set(b):
        return None
    for name, wa in a.items():
        ia, ib = _one_zero(_canon(wa, False)), _one_zero(_canon(b[name], False))
        mask = free.get(name)
        if ia.shape != ib.shape or (mask is not None and mask.shape != ia.shape):
            return None
        apart = ia != ib
        if mask is not None:
            apart &= ~mask
        if apart.any():
            return None
    n = sum(int(m.sum()) for m in free.values())
    return ("nonfinite-only", "identical on every buffer word and texel the original program "
            f"determines (but for the sign of zeros); differs only among the {n} whose final "
            "value depends on an Inf or NaN it computes (GLSL 4.50 §4.7.1)")


def _flushed_words_only(wa, wb, integer: bool) -> bool:
    """Whether ``wb`` is ``wa`` (NaNs as one), or a float word ``wa`` holds as a denormal
    given as a zero of either sign."""
    a, b = _canon(wa, integer), _canon(wb, integer)
    if a.shape != b.shape:
        return False
    if integer:
        return bool(np.array_equal(a, b))
    denormal = ((a & 0x7F800000) == 0) & ((a & 0x007FFFFF) != 0)
    flushed = denormal & ((b & 0x7FFFFFFF) == 0)
    return bool(np.all((a == b) | flushed))


def differs_only_by_flushing(reflection: dict, cap0, cap) -> bool:
    """Whether ``cap`` is ``cap0`` with some denormal float outputs given as zeros (and no
    other change): kills and primitive structure equal, every word equal or flushed."""
    integer = {o["name"]: o.get("type") in _INT_TYPES for o in reflection.get("outputs", [])}
    if (cap0.killed is None) != (cap.killed is None) or (
            cap0.killed is not None and not np.array_equal(cap0.killed, cap.killed)):
        return False
    if cap0.primitives is not None or cap.primitives is not None:
        from .output_compare import same_primitives
        return same_primitives(
            cap0.primitives or [], cap.primitives or [],
            same=lambda k, a, b: _flushed_words_only(a, b, integer.get(k, False)))
    if set(cap0.outputs) != set(cap.outputs):
        return False
    keep = None if cap0.killed is None else ~np.asarray(cap0.killed, bool)
    for name, wa in cap0.outputs.items():
        wa, wb = np.asarray(wa), np.asarray(cap.outputs[name])
        if keep is not None and wa.shape[:1] == keep.shape:
            wa, wb = wa[keep], wb[keep]
        if not _flushed_words_only(wa, wb, integer.get(name, False)):
            return False
    return True


def _lanes_apart(a, b, lanes: int) -> np.ndarray:
    """(lanes,) bool: lanes whose outputs or kill differ between two executor results (NaNs
    as one whatever the payload)."""
    apart = np.zeros(lanes, bool)
    if a.primitives is not None:
        from .output_compare import same_primitives
        canon = lambda name, words: _canon(words, False)  # noqa: E731 (bits, NaNs as one)
        for lane in range(lanes):
            apart[lane] = not same_primitives([a.primitives[lane]], [b.primitives[lane]],
                                              canon)
        return apart
    if a.killed is not None:
        apart |= np.asarray(a.killed, bool) != np.asarray(b.killed, bool)
    for name, wa in a.outputs.items():
        ca, cb = _canon(wa, False), _canon(b.outputs[name], False)
        apart |= (ca != cb).reshape(lanes, -1).any(axis=1)
    return apart


def undetermined_lanes(program, gen, lanes: int, undefined: bool = False) -> np.ndarray | None:
    """(lanes,) bool: lanes whose outputs depend on an Inf or NaN the original program
    computes, run by the executor on the verifier's main-run inputs ``gen``.  GLSL 4.50
    §4.7.1 leaves the operations on those values (and a division by zero, which makes one)
    unspecified, so a right translation may give any output on such a lane -- but only where
    the value reaches an output: an Inf written and then overwritten changes nothing, and a
    lane where only that happens is determined.  Shown by counterfactual runs: every Inf or
    NaN result replaced by a finite word (:func:`nonfinite_runs.nonfinite_counterfactuals`); a lane
    whose outputs or kill change in either run depends on one.  None: no outputs by lane
    (compute) or nothing the hook could follow.  A geometry lane is one invocation; its
    outputs are the primitives it emits.  ``undefined``: the lanes whose outputs depend on a
    result the specifications leave undefined instead (:class:`nonfinite_runs.UndefinedResults`)."""
    from .nonfinite_runs import nonfinite_counterfactuals, undefined_counterfactuals
    runs = (undefined_counterfactuals if undefined else nonfinite_counterfactuals)(
        program, gen, lanes)
    if runs is None:
        return None
    out = np.zeros(lanes, bool)
    if not runs:
        return out
    from .draw_run import run_executor
    base = run_executor(program, gen, lanes)
    for res in runs:
        out |= _lanes_apart(base, res, lanes)
    return out


def mutate_program(text: str, name: str, group: str, runner, *, per_program: int, seed: int,
                   lanes: int = 256, kinds=None, timeout: float = 0, tries: int = 4,
                   mutations=None, max_timeouts: int = 0, target: str = "glsl") -> ProgramResult:
    """Verify ``text``; when it is clean, classify mutants until ``per_program`` of them are
    not equivalent (live or rejected), trying at most ``tries * per_program`` sites.

    Random programs carry much dead code: only statements whose result may reach an output
    are mutated (:func:`live_candidates`; the others are counted in ``dead_sites``).  A live
    statement's mutant may still be equivalent on the verifier's inputs; trying more sites
    (cheap: one run each) gives more live mutants per second of verifier time.  The order of
    the sites is deterministic in ``seed`` and ``name``.  ``mutations``: classify exactly these
    instead (tests).  ``max_timeouts`` (0: no limit): after that many mutants ran past
    ``timeout``, the program's remaining mutations are not run (``skipped_slow`` counts them):
    a program whose verification of a mutant outlasts the timeout mostly does so for every
    mutant (long loops probed pass by pass), and a campaign's time is better spent elsewhere.

    ``target``: ``glsl`` (mutants of the GLSL translation, this module) or ``spirv-direct``
    (mutants of the direct SPIR-V path's lowered tree, :mod:`mutants_tree`; ``runner`` a
    ``vulkan`` or ``gl-spirv`` one; a program the direct path does not cover is not clean).
    ``kinds``: None for every kind of the target."""
    from .core import verify_source
    from .draw_run import EXECUTOR_RUNS
    executor_runs: list = []
    rec = RecordingRunner(runner, executor_runs)
    # clean means no difference at all, so localization (which only explains differences) is
    # not needed to tell: a program that differs is dropped without being localized
    token = EXECUTOR_RUNS.set(executor_runs)
    try:
        rep = verify_source(text, name, lanes=lanes, seed=seed, runner=rec, localize=False,
                            **_verify_kw(runner, target))
    finally:
        EXECUTOR_RUNS.reset(token)
    if rep.status != "pass" or rep.total_differences or rec.first is None:
        why = rep.status if rep.status != "pass" else "pass with differences explained"
        return ProgramResult(name, group, f"not clean: {why} {rep.reason}".strip())
    cap0 = rec.first[-1]
    if cap0.primitives is not None and not any(len(p) for p in cap0.primitives):
        # a geometry program that emits nothing on these inputs (an EMIT to another stream,
        # a condition never met): every mutant would be equivalent
        return ProgramResult(name, group, "not used: no primitive emitted on any lane")
    out = ProgramResult(name, group, "clean")
    if target == "spirv-direct" and "direct" not in rec.first[4]:
        return ProgramResult(name, group, "not used: the main run was not the direct module")
    if mutations is None:
        rng = random.Random(f"{seed}:{name}")
        if target == "spirv-direct":
            from . import mutants_tree as T
            from .draw_run import runner_profile
            from ..frontends import parse_program
            cands, out.dead_sites = T.program_candidates(
                parse_program(text, name), runner_profile(runner),
                T.KINDS if kinds is None else kinds)
        else:
            cands, out.dead_sites = live_candidates(rec.first[1],
                                                    KINDS if kinds is None else kinds)
        mutations = pick(cands, sum(map(len, cands.values())), rng)[:tries * per_program]
        wanted = per_program
    else:
        wanted = len(mutations)
    found = timeouts = 0
    dialect = _dialect_of(text, name)
    for i, m in enumerate(mutations):
        if max_timeouts and timeouts >= max_timeouts:
            out.skipped_slow = min(len(mutations) - i, wanted - found)
            break
        r = classify(text, name, group, m, runner, rec.first, lanes=lanes, seed=seed,
                     timeout=timeout, target=target)
        r.dialect = dialect
        out.mutants.append(r)
        found += r.outcome != "equivalent"
        timeouts += r.outcome == "timeout"
        if found >= wanted:
            break
    return out


def _dialect_of(text: str, name: str) -> str:
    from ..frontends import parse_program
    p = parse_program(text, name)
    return f"{p.dialect}/{p.stage.value}"


# ---- summary -----------------------------------------------------------------------------------

OUTCOMES = ("caught", "tolerated", "explained", "equivalent", "precision", "zero-sign-only",
            "nonfinite-only", "undefined-only", "flush-only", "edge-only", "lod-only", "rejected",
            "timeout")
FOOLED = ("tolerated", "explained")
#: passed, and no wrong translation by the harness's own check (:func:`permitted_mutant`)
PERMITTED = ("precision", "zero-sign-only", "nonfinite-only", "undefined-only", "flush-only",
             "edge-only", "lod-only")
LIVE = ("caught",) + FOOLED


def tally(results: list[MutantResult], by: str) -> dict[str, dict[str, int]]:
    """Counts per ``group`` or ``kind``: live (caught + fooled) and every outcome."""
    table: dict[str, dict[str, int]] = {}
    for r in results:
        row = table.setdefault(getattr(r, by), dict.fromkeys(("live",) + OUTCOMES, 0))
        row[r.outcome] += 1
        row["live"] += r.outcome in ("caught",) + FOOLED
    return dict(sorted(table.items()))


def format_table(table: dict[str, dict[str, int]], title: str) -> str:
    cols = ("live", "caught", "tolerated", "explained", "equivalent", "precision",
            "zero-sign-only", "nonfinite-only", "undefined-only", "flush-only", "edge-only",
            "lod-only", "rejected", "timeout")
    width = max([len(title)] + [len(k) for k in table])
    lines = [f"{title:<{width}}  " + "  ".join(f"{c:>10}" for c in cols)]
    total = dict.fromkeys(cols, 0)
    for key, row in table.items():
        lines.append(f"{key:<{width}}  " + "  ".join(f"{row[c]:>10}" for c in cols))
        for c in cols:
            total[c] += row[c]
    lines.append(f"{'total':<{width}}  " + "  ".join(f"{total[c]:>10}" for c in cols))
    return "\n".join(lines)
