"""Why a cgc oracle pair differs, shown by counterfactual runs of the assembly (issue 17 §4).

:mod:`oracle` runs xlate's translation of cgc's NV4 assembly and cgc's own GLSL for the same
Cg entry point on the same inputs.  cgc's GLSL has no instruction mapping to the assembly, so
its values cannot be probed per instruction; the assembly can (our executor runs it, and
``xlate verify``'s probes read every instruction's value on the implementation).  A difference
between the two programs is split in two at the executor, which runs the assembly by the specs:

1. **translation** -- xlate's translation against the executor, on the oracle's own inputs:
   where they differ, ``verify``'s replay (:mod:`replay`, :mod:`permits`) judges it per
   instruction, lane and component with its sound verdicts; a lane it cannot explain is a
   translation (or executor) defect, reported with the instruction.
2. **assembly vs cgc's GLSL** -- where the executor's output itself differs from cgc's, the
   cause lies between the assembly and cgc's GLSL.  It is localized by *counterfactual
   replays* of the executor: at one instruction ``k`` of the assembly, on the differing lanes
   only, the executor's result is replaced by a value a named cause allows (below), and the
   run goes on from there by the specs.  A lane is explained when the replay with those
   replacements -- and no others -- reproduces every compared output component of cgc's GLSL
   on that lane (within the oracle's tolerance, :func:`oracle_match.near`) and its kill status.
   Replacements are accumulated greedily in execution order: one is kept for a lane only when
   it lowers the number of that lane's differing components, and a final run with exactly the
   kept replacements confirms each explained lane.  The localized instruction of a lane is its
   first kept replacement.  The search is :mod:`oracle_search`, its runs and hooks
   :mod:`oracle_counterfactual`.

The causes (each a freedom the two compilations have, with the spec passage):

* ``tie`` -- a decision on near-equal values: a comparison, a select, a rounding to an
  integer, a texel or mip-level choice (``SLT``..``SNE``, ``CMP``, ``MIN``/``MAX``,
  ``FLR``/``CEIL``/``TRUNC``/``ROUND``/``FRC``, ``TEX``..., ``KIL``), recomputed from its
  float operands moved by at most the oracle's relative tolerance :data:`oracle.REL`
  (2^-12) -- the rounding cgc's GLSL (another operation order, ``dot()``, folded constants,
  GLSL 1.10 §4.1.4 leaves float precision to the implementation) may have given them.  The
  recomputation is the executor's own instruction; only the operands move.
* ``undefined-domain`` -- an operation whose result GLSL 1.10 §8.2 (and the Cg standard
  library, which defines pow/log2/rsqrt alike) leaves undefined for the operands the lane has
  there (``pow(x, y)`` with x < 0 or x = 0 and y <= 0, ``log2(x)`` and
  ``inversesqrt(x)`` with x <= 0, division by zero: §5.9), where the assembly defines one
  (NV_gpu_program4 2.X.8: POW/LG2/RSQ/RCP/DIV of such operands): cgc's GLSL may return any
  value there, and cgc's two outputs do differ (its GLSL expands ``pow(x, 4.0)`` to
  products where the assembly has ``POW``, defined as EX2(4 * LG2(x)), NaN for x < 0).  The
  replacement is one of a fixed set (NaN, 0, +-Inf, the operation of |x|), tried at one site
  or at every site of the operation at once; everything computed from it afterwards is held
  to the specs.  Also: integer ``%`` of a negative (floored, truncated or unsigned
  remainder) and ``int(x)`` of a NaN or out-of-range x (:mod:`oracle_causes`).
* ``implementation`` -- the value the implementation's own built-in (sin, cos, exp2, log2,
  pow, inversesqrt: no precision in GLSL 1.10 §8) returns for the executor's operands,
  measured on the context cgc's GLSL runs on (:mod:`oracle_builtin`).
* ``nan-operand`` -- MIN/MAX of one NaN give the other operand (GLSL 4.50 §4.7.1).
* ``overflow`` -- a non-finite result from finite operands (OpenGL 1.4 §2.1.1, to which GLSL
  1.10 §4.1.4 defers, leaves overflow unspecified): +-FLT_MAX, 0 or NaN there.
* ``precision`` -- the remaining difference solved for as relative moves of the float
  results, each at most REL, shown by the run with those moves (:func:`_precision_pass`).
* ``rounding`` -- moves of one or two results by 1-2 ulps (with the measured built-ins),
  for outputs chaotic in them (a hash), shown by the run (:func:`_precision_pass`).
* ``uninitialised`` (cgc defect) -- cgc's GLSL reads a variable no path wrote; its
  initialised twin (:mod:`oracle_uninit`) reproduces the lane.
* ``order`` -- cgc's GLSL's own grouping of the same arithmetic (its quotients where the
  assembly multiplies by an RCP or a folded reciprocal, its products before a division, its
  dot() in another order or folded), recomputed by the executor on the lanes every other
  pass left open (:mod:`oracle_order`).
* ``ill-conditioned`` (counted apart: it does not reproduce cgc's value) -- a move of one
  result by :data:`ILL_CONDITIONED` relative moves every differing output component by more
  than its difference from cgc's, along the lane's difference (:func:`_parallel`): the output
  is not determined at float precision.

What no replacement explains is ``unexplained``: reported with the lane, its inputs, the
output components that still differ, and the first instruction where a replacement lowered
the difference (or the output's last writer when none did).  The pair's verdict is
``match`` / ``explained`` (every differing lane explained; the verdicts and localized
instructions listed) / ``unexplained``.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field

import numpy as np

from ..ir.model import MAX_CALL_DEPTH
from .oracle_depth import DEEP_CALL_DEPTH, deeper_stack
from .oracle_match import near
from .oracle_search import Search
from .oracle_translation import LaneExplanation, judge_translation

F32 = np.float32

VERDICTS = {
    "call-depth": "NV_gpu_program4 2.X.5: a CAL made with MAX_PROGRAM_CALL_DEPTH_NV calls pending "
                  "is undefined (issue 38: no effect), and that depth may be as small as 4, "
                  "the stack the executor models; the executor with a deeper stack (cgc's "
                  "target) reproduces cgc on the lane (oracle_depth)",
    "cgc-int-constant": "cgc defect: an integer constant in a typeless PARAM is the float it "
                        "spells (NV_gpu_program4 'Constant bindings', issue 7), read as an "
                        "integer's bits; the run with the integer cgc meant reproduces its GLSL",
    "implementation": "GLSL 1.10 §8.1-8.2 give sin/cos/exp2/log2/pow/inversesqrt no "
                      "precision (and leave some operands undefined): the value the "
                      "implementation's own built-in returns for the same operands, measured",
    "lod": "GL 4.5 §8.14.1, GLSL 4.50 §4.7.1: a lookup whose implicit derivatives are not "
           "finite (a quad neighbour's coordinate is NaN) has no defined level of detail; the "
           "same lookup at an explicit level reproduces cgc",
    "nan-operand": "GLSL 4.50 §4.7.1: an operation on a NaN need not return NaN; min()/max() "
                   "of one NaN return the other operand (IEEE 754-2008 minNum/maxNum)",
    "order": "cgc's GLSL rounds the same arithmetic in another order: x / y where its assembly "
             "has RCP then MUL or a folded reciprocal (GLSL 1.10 §5.9), (a * k) / b where it "
             "divides first, dot() summed in another order or folded, or with the literal "
             "factors of its terms multiplied first (GLSL 1.10 §8.4, §4.1.4: "
             "precision is the implementation's); the executor recomputing those steps so "
             "reproduces cgc",
    "overflow": "OpenGL 1.4 §2.1.1 (GLSL 1.10 §4.1.4): what an overflowing operation returns is "
                "not specified",
    "precision": "each moved result within 2^-12 relative: two compilations' rounding "
                 "(GLSL 1.10 §4.1.4), amplified",
    "ill-conditioned": "an 8-ulp move of one result outweighs the difference, along it: the "
                       "output is not determined at float precision (does not reproduce "
                       "cgc's value)",
    "rounding": "one result moved by at most 2 ulps: the two compilations round one "
                "operation differently (GLSL 1.10 §4.1.4; dot() and a*b+c of another order or "
                "fused, GLSL 4.50 §4.7.1), amplified by what follows",
    "tie": "a decision on operands within 2^-12 relative of each other (GLSL 1.10 §4.1.4: "
           "float precision is the implementation's; two compilations round differently)",
    "uninitialised": "cgc defect: its GLSL reads a variable no path wrote (GLSL 1.10 §4.3: "
                     "undefined); the same GLSL with the declarations given zero reproduces "
                     "the lane",
    "undefined-domain": "GLSL 1.10 §8.2/§5.9: pow(x<0), pow(0, y<=0), log2(x<=0), "
                      "inversesqrt(x<=0), x/0 are undefined; the assembly defines them",
}


@dataclass
class Explanation:
    status: str = "explained"          # explained | unexplained
    lanes: int = 0                     # differing lanes
    explained: int = 0
    verdicts: dict = field(default_factory=dict)        # verdict -> lanes
    examples: list = field(default_factory=list)        # LaneExplanation (first per verdict)
    unexplained: list = field(default_factory=list)     # LaneExplanation (up to 4)
    runs: int = 0

    def to_json(self) -> dict:
        return {"status": self.status, "lanes": self.lanes, "explained": self.explained,
                "verdicts": dict(sorted(self.verdicts.items())), "runs": self.runs,
                "examples": [e.__dict__ for e in self.examples],
                "unexplained": [e.__dict__ for e in self.unexplained]}


def explain(run, runner=None, compat=None, twin=None) -> Explanation:
    """Explain a differing pair from its :class:`oracle.PairRun` (see the module docstring).
    ``compat``: the :class:`oracle.CompatRunner` that ran cgc's GLSL; with it, the
    ``implementation`` replacement measures the built-ins there (:mod:`oracle_builtin`).
    ``twin``: the PairRun of cgc's GLSL with its declarations initialised
    (:mod:`oracle_uninit`): a differing lane it reproduces is ``uninitialised``; the others
    are judged against its outputs."""
    pair, ex = _Pair(run), Explanation()
    exe_out, exe_killed, depth_lanes = _executor_outputs(pair, ex)
    xl_out = {b: run.cap.outputs[name] for b, name, _ in run.compared
              if name in run.cap.outputs}
    xl_killed = getattr(run.cap, "killed", None)
    bad_lanes = np.flatnonzero(pair.differing(xl_out, xl_killed) > 0)
    ex.lanes = int(bad_lanes.size)
    result: dict[int, LaneExplanation] = {}
    if twin is not None:
        bad_lanes = _uninitialised(pair, twin, xl_out, xl_killed, bad_lanes, result)
    d_exe = pair.differing(exe_out, exe_killed)
    _translation_lanes(pair, runner, xl_out, exe_out, bad_lanes, d_exe, depth_lanes, result)
    _search(pair, ex, bad_lanes, d_exe, depth_lanes, compat, result)
    return _tally(ex, result)


class _Pair:
    """The pair as the explanation's steps compare it: ``program`` (the executor's: the one
    with a deeper call stack once ``call-depth`` holds), ``run`` (cgc's outputs: its
    initialised twin's once ``uninitialised`` is judged, then on the search's lanes only),
    ``gen`` and ``lanes`` (the search's lanes once it starts: :func:`_narrow`).
    The methods read them as they are at the call."""

    def __init__(self, run):
        from .output_compare import output_elements
        self.run, self.program, self.gen, self.lanes = run, run.program, run.gen, run.lanes
        self.elems = output_elements(run.program)

    def outputs_of(self, res) -> dict:
        """The compared outputs of an executor run, as words."""
        from .output_compare import executor_output
        elems, got = self.elems, {}
        for b, name, comps in self.run.compared:
            el = elems.get(b) or elems.get(b + "[0]") or elems.get(b.replace("[0]", ""))
            if el is None:
                continue
            got[b] = executor_output(self.program, self.run.facts, res.outputs, b, el)[0]
        return got

    def theirs(self, b):
        """cgc's words of the output ``b``."""
        run = self.run
        return run.theirs.get(b) if b in run.theirs else run.theirs.get(b + "[0]")

    def differing(self, words_of, killed, vs_cgc=True) -> np.ndarray:
        """(lanes,) count of compared components that differ (kill status counts one)."""
        cgc_killed = self.run.killed
        n = np.zeros(self.lanes, np.int64)
        live = np.ones(self.lanes, bool)
        if cgc_killed is not None and killed is not None:
            n += (cgc_killed != killed)
            live = ~(cgc_killed | killed)
        for b, name, comps in self.run.compared:
            mine = words_of.get(b)
            other = self.theirs(b)
            if mine is None or other is None:
                continue
            for c in comps:
                n += live & ~near(mine[:, c], other[:, c])
        return n


def _executor_outputs(pair: _Pair, ex: Explanation):
    """The executor's outputs and kill status on every lane, and the lanes ``call-depth``
    covers: those a deeper call stack changes (:mod:`oracle_depth`), on which the executor
    with that stack stands for the assembly from here on (``pair.program`` becomes it)."""
    from .draw_run import run_executor
    program, gen, lanes = pair.program, pair.gen, pair.lanes
    base = run_executor(program, gen, lanes)
    ex.runs += 1
    exe_out = pair.outputs_of(base)
    exe_killed = getattr(base, "killed", None)
    # call-depth (oracle_depth): the lanes a deeper call stack changes are judged, from here
    # on, by the executor with that stack
    depth_lanes = np.zeros(lanes, bool)
    deep = deeper_stack(program)
    if deep is not None:
        res = run_executor(deep, gen, lanes)
        ex.runs += 1
        deep_out, deep_killed = pair.outputs_of(res), getattr(res, "killed", None)
        for b in exe_out:
            depth_lanes |= (exe_out[b] != deep_out[b]).any(axis=1)
        if exe_killed is not None:
            depth_lanes |= exe_killed != deep_killed
        if depth_lanes.any():
            pair.program, exe_out, exe_killed = deep, deep_out, deep_killed
    return exe_out, exe_killed, depth_lanes


def _uninitialised(pair: _Pair, twin, xl_out: dict, xl_killed, bad_lanes: np.ndarray,
                   result: dict) -> np.ndarray:
    """``uninitialised``: the differing lanes that cgc's initialised twin reproduces; the
    other lanes are returned, and from here on judged against the twin's outputs
    (``pair.run`` becomes a copy of the run with them)."""
    # the lanes cgc's initialised twin reproduces read an undefined value in cgc's GLSL
    run = copy.copy(pair.run)
    run.theirs, run.killed = twin.theirs, twin.killed
    pair.run = run
    d_twin = pair.differing(xl_out, xl_killed)
    for ln in bad_lanes:
        if d_twin[ln] == 0:
            result[int(ln)] = LaneExplanation(
                int(ln), "uninitialised", [],
                "cgc's GLSL with its uninitialised declarations given zero reproduces "
                "xlate's outputs on this lane")
    return np.array([ln for ln in bad_lanes if d_twin[ln] > 0], np.int64)


def _translation_lanes(pair: _Pair, runner, xl_out: dict, exe_out: dict, bad_lanes: np.ndarray,
                       d_exe: np.ndarray, depth_lanes: np.ndarray, result: dict) -> None:
    """Part 1 of the explanation: the lanes where the executor (or the executor with a deeper
    stack: ``call-depth``) agrees with cgc, and the translation departs from the executor,
    get :func:`oracle_translation.judge_translation`'s verdict."""
    # 1. lanes where the executor agrees with cgc: the translation departs from the executor.
    # Lanes where both differ from cgc and the translation also departs from the executor
    # are judged here too: a departure verify cannot explain is the lane's verdict
    d_xe = np.zeros(pair.lanes, bool)
    for b, name, comps in pair.run.compared:
        if b in xl_out and b in exe_out:
            for c in comps:
                d_xe |= ~near(xl_out[b][:, c], exe_out[b][:, c])
    trans = [int(ln) for ln in bad_lanes if d_exe[ln] == 0 and not depth_lanes[ln]]
    both = [int(ln) for ln in bad_lanes if d_exe[ln] > 0 and d_xe[ln] and not depth_lanes[ln]]
    for ln in bad_lanes:
        if d_exe[ln] == 0 and depth_lanes[ln]:
            result[int(ln)] = LaneExplanation(
                int(ln), "call-depth", [],
                f"the executor with a call stack of {DEEP_CALL_DEPTH} (not "
                f"{MAX_CALL_DEPTH}) reproduces cgc's outputs on this lane")
    if trans or both:
        for ln, le in judge_translation(pair.run, runner, trans + both).items():
            if ln in trans or le.verdict == "unexplained":
                result[ln] = le


def _search(pair: _Pair, ex: Explanation, bad_lanes: np.ndarray, d_exe: np.ndarray,
            depth_lanes: np.ndarray, compat, result: dict) -> None:
    """Part 2 of the explanation: the lanes of ``bad_lanes`` where the assembly (executor)
    differs from cgc's GLSL (``d_exe``: each lane's count of differing components) get their
    verdict from the counterfactual search: the passes of :class:`oracle_search.Search`, in
    this order, then the confirming run.  The precision solve's budget grows by the runs the
    tie, lod and cancelled-sum passes took on budgets of their own."""
    # 2. lanes where the assembly (executor) differs from cgc's GLSL: counterfactual search,
    # run on those lanes only (whole quads of fragments: derivatives read the neighbours)
    todo_full = np.zeros(pair.lanes, bool)
    todo_full[[int(ln) for ln in bad_lanes if d_exe[ln] > 0]] = True
    if not todo_full.any():
        return
    pick = _narrow(pair, todo_full)
    s = Search(pair, ex, d_exe[pick], todo_full[pick], compat)
    s.every_site_alike()
    s.int_constants()
    near_sites = s.near_ties_at_once()
    tried_ties = s.one_site_at_a_time(near_sites)
    tie_used = s.near_ties_left(tried_ties)
    lod_start = ex.runs
    s.lod_levels()
    s.cancelled_sums()
    s.precision(extra_runs=ex.runs - lod_start + tie_used)   # the passes above
    s.precision_again_unchanged()
    s.order()
    sub_out = s.unchanged_outputs()
    final = s.confirm_with_quads(todo_full[pick])
    _lane_verdicts(s, final, pick, todo_full, depth_lanes, sub_out, result)


def _narrow(pair: _Pair, todo_full: np.ndarray) -> np.ndarray:
    """Narrow ``pair`` to the whole quads (fragments) of the lanes ``todo_full``; returns
    those lanes' numbers (the search's rows)."""
    group = 4 if pair.program.stage.value == "fragment" else 1
    quads = np.unique(np.flatnonzero(todo_full) // group)
    pick = (quads[:, None] * group + np.arange(group)[None, :]).reshape(-1)
    pair.gen, pair.lanes, pair.run = _subset(pair.gen, pair.run, pick, pair.lanes)
    return pick


def _lane_verdicts(s: Search, final: np.ndarray, pick: np.ndarray, todo_full: np.ndarray,
                   depth_lanes: np.ndarray, sub_out: dict, result: dict) -> None:
    """Each searched lane's verdict in ``result``: explained by the causes of its kept
    replacements (and ``call-depth``) where the confirming run reproduces it,
    ``ill-conditioned`` where only that holds, else ``unexplained`` at the first
    instruction that helped."""
    from .draw_run import describe_inputs
    from .trace import _ins_info
    program, gen, run = s.pair.program, s.pair.gen, s.pair.run
    for r_i, ln in enumerate(pick):
        ln = int(ln)
        if ln in result or not todo_full[ln]:
            continue
        chs = s.lane_changes.get(r_i, [])
        if final[r_i] == 0 and (chs or depth_lanes[ln]):
            verdicts = sorted({v for _, v in chs} | ({"call-depth"} if depth_lanes[ln]
                                                     else set()))
            ks = list(dict.fromkeys(k for k, _ in chs))
            result[ln] = LaneExplanation(
                ln, "+".join(verdicts), [_ins_info(program, k) for k in ks[:4]],
                f"{len(chs)} replacement(s); the replay reproduces cgc's outputs")
        elif r_i in s.state["ill"] and not chs:
            k = s.state["ill"][r_i]
            result[ln] = LaneExplanation(
                ln, "ill-conditioned", [_ins_info(program, k)],
                "a move of this result by 2^-20 relative moves every differing output "
                "component by more than its difference from cgc's",
                describe_inputs(gen, r_i))
        else:
            k = s.first_help.get(r_i)
            where = [_ins_info(program, k)] if k is not None else []
            result[ln] = LaneExplanation(
                ln, "unexplained", where,
                _lane_values(run, sub_out, r_i, s.pair.theirs),
                describe_inputs(gen, r_i))


def _subset(gen, run, pick: np.ndarray, lanes: int):
    """The generated inputs and the pair's cgc outputs on the lanes ``pick`` only."""
    sub = copy.copy(gen)
    sub.inputs = {k: (v[pick] if np.shape(v)[:1] == (lanes,) else v)
                  for k, v in gen.inputs.items()}
    sub.lanes = len(pick)
    r = copy.copy(run)
    r.theirs = {k: v[pick] for k, v in run.theirs.items()}
    r.killed = None if run.killed is None else run.killed[pick]
    r.lanes = len(pick)
    return sub, len(pick), r


def _lane_values(run, exe_out, ln, theirs) -> str:
    parts = []
    for b, name, comps in run.compared:
        mine, other = exe_out.get(b), theirs(b)
        if mine is None or other is None:
            continue
        for c in comps:
            if not near(mine[ln:ln + 1, c], other[ln:ln + 1, c])[0]:
                e = float(mine[ln:ln + 1, c].view(F32)[0])
                g = float(other[ln:ln + 1, c].view(F32)[0])
                parts.append(f"{b}.{'xyzw'[c]}: assembly {e!r}, cgc {g!r}")
    return "; ".join(parts[:4])


def _tally(ex: Explanation, result: dict) -> Explanation:
    """The pair's explanation from its lanes' verdicts: counts per verdict, the first lane of
    each as its example, up to 4 unexplained lanes; ``unexplained`` if any lane is."""
    for ln in sorted(result):
        le = result[ln]
        if le.verdict == "unexplained":
            if len(ex.unexplained) < 4:
                ex.unexplained.append(le)
            continue
        ex.explained += 1
        if le.verdict not in ex.verdicts:
            ex.examples.append(le)
        ex.verdicts[le.verdict] = ex.verdicts.get(le.verdict, 0) + 1
    ex.verdicts = {v: n for v, n in ex.verdicts.items()}
    unexplained = sum(le.verdict == "unexplained" for le in result.values())
    if unexplained:
        ex.verdicts["unexplained"] = unexplained
    ex.status = "unexplained" if unexplained else "explained"
    return ex
