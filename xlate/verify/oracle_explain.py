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
   first kept replacement.

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

import itertools
from dataclasses import dataclass, field

import numpy as np

from ..ir.model import MAX_CALL_DEPTH, RegKind
from ..ir.ops import OPCODES
from .oracle_builtin import BUILTINS, BuiltinEvaluator, implementation_variant
from .oracle_causes import (DECISIONS, NAN_SELECTS, UNDEFINED_DOMAIN, _cancels,
                            _int_constant_sites, _int_constant_variant, _int_domain_site,
                            _lod_levels, _operand_ulps, _tie_variants,
                            _undefined_lod_variant, _undefined_variants)
from .oracle_depth import DEEP_CALL_DEPTH, deeper_stack
from .oracle_match import REL, near
from .oracle_order import (DOT_ORDERS, DOTS, ConstantProducts, Quotients,
                           dot_order_variant, factored_operand, factored_variant)
from .oracle_solve import ROUNDING_ULPS, _distance, _float_result, _precision_pass, _vec
from .oracle_translation import LaneExplanation, judge_translation

F32, U32 = np.float32, np.uint32

#: executor runs one pair's search may take (keeps the worst program bounded; deterministic):
#: the replacement search, then the precision solve (one run per instruction, at most)
MAX_RUNS = 80
PRECISION_RUNS = 120
#: runs the cancelled sums may take (:func:`_cancel_sites`), and the sites tried (first in
#: execution order)
CANCEL_RUNS = 64
#: runs the near decisions the one-site search did not reach may take
TIE_RUNS = 64
#: runs the ``lod`` levels may take
LOD_RUNS = 16
#: runs the ``order`` replacements may take (oracle_order: the quotients, each other dot()
#: order, and both together; each alone and with the measured built-ins)
ORDER_RUNS = 48
#: runs the folded constants (oracle_order.ConstantProducts) may take after them
CONSTANT_RUNS = 4
CANCEL_SITES = 12
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


class Counterfactual:
    """Executor result hook: at instruction k, on the lanes given, the result is replaced by
    ``change(x, ops, bits, rows, ids) -> bits`` (rows: positions of those lanes in the
    selection, ids: their lane numbers)."""

    def __init__(self, changes: dict[int, list]):
        self.changes = changes            # k -> [(lane mask (lanes,), change)]
        self.instructions = sorted(changes)
        self.touched: dict[int, set] = {}  # k -> lanes whose value a change altered

    def __call__(self, x, st, idx, ops, bits, cmask):
        sel = st.all_lanes if idx is None else np.asarray(idx)
        lanes = st.base + sel
        out = None
        for mask, change in self.changes.get(x.index, ()):
            rows = np.flatnonzero(mask[lanes])
            if rows.size == 0:
                continue
            if out is None:
                out = np.array(np.broadcast_to(bits, (len(lanes), 4)), U32)
            new = change(x, ops, out, rows, lanes[rows])
            if new is not None:
                new = np.asarray(new, U32)
                altered = (new != out[rows]).any(axis=1)
                if altered.any():
                    self.touched.setdefault(x.index, set()).update(
                        int(v) for v in lanes[rows][altered])
                out[rows] = new
        return (bits if out is None else out), cmask

    def before_flow(self, x, st, sel):
        pass

    def kill_decision(self, x, st, sel, kill, operand):
        return kill


def explain(run, runner=None, compat=None, twin=None) -> Explanation:
    """Explain a differing pair from its :class:`oracle.PairRun` (see the module docstring).
    ``compat``: the :class:`oracle.CompatRunner` that ran cgc's GLSL; with it, the
    ``implementation`` replacement measures the built-ins there (:mod:`oracle_builtin`).
    ``twin``: the PairRun of cgc's GLSL with its declarations initialised
    (:mod:`oracle_uninit`): a differing lane it reproduces is ``uninitialised``; the others
    are judged against its outputs."""
    import copy
    original = run
    from .output_compare import executor_output, output_elements
    from .draw_run import run_executor, describe_inputs
    from .trace import _ins_info, execution_order
    program, gen, lanes = run.program, run.gen, run.lanes
    elems = output_elements(program)
    cgc_killed = run.killed
    xl_killed = getattr(run.cap, "killed", None)

    def outputs_of(res):
        got = {}
        for b, name, comps in run.compared:
            el = elems.get(b) or elems.get(b + "[0]") or elems.get(b.replace("[0]", ""))
            if el is None:
                continue
            got[b] = executor_output(program, run.facts, res.outputs, b, el)[0]
        return got

    def theirs(b):
        return run.theirs.get(b) if b in run.theirs else run.theirs.get(b + "[0]")

    def differing(words_of, killed, vs_cgc=True) -> np.ndarray:
        """(lanes,) count of compared components that differ (kill status counts one)."""
        n = np.zeros(lanes, np.int64)
        live = np.ones(lanes, bool)
        if cgc_killed is not None and killed is not None:
            n += (cgc_killed != killed)
            live = ~(cgc_killed | killed)
        for b, name, comps in run.compared:
            mine = words_of.get(b)
            other = theirs(b)
            if mine is None or other is None:
                continue
            for c in comps:
                n += live & ~near(mine[:, c], other[:, c])
        return n

    ex = Explanation()
    base = run_executor(program, gen, lanes)
    ex.runs += 1
    exe_out = outputs_of(base)
    exe_killed = getattr(base, "killed", None)
    # call-depth (oracle_depth): the lanes a deeper call stack changes are judged, from here
    # on, by the executor with that stack
    depth_lanes = np.zeros(lanes, bool)
    deep = deeper_stack(program)
    if deep is not None:
        res = run_executor(deep, gen, lanes)
        ex.runs += 1
        deep_out, deep_killed = outputs_of(res), getattr(res, "killed", None)
        for b in exe_out:
            depth_lanes |= (exe_out[b] != deep_out[b]).any(axis=1)
        if exe_killed is not None:
            depth_lanes |= exe_killed != deep_killed
        if depth_lanes.any():
            program, exe_out, exe_killed = deep, deep_out, deep_killed
    xl_out = {b: run.cap.outputs[name] for b, name, _ in run.compared
              if name in run.cap.outputs}
    d_xl = differing(xl_out, xl_killed)
    d_exe = differing(exe_out, exe_killed)
    bad_lanes = np.flatnonzero(d_xl > 0)
    ex.lanes = int(bad_lanes.size)
    result: dict[int, LaneExplanation] = {}
    if twin is not None:
        # the lanes cgc's initialised twin reproduces read an undefined value in cgc's GLSL
        run = copy.copy(original)
        run.theirs, run.killed = twin.theirs, twin.killed
        cgc_killed = run.killed
        d_twin = differing(xl_out, xl_killed)
        for ln in bad_lanes:
            if d_twin[ln] == 0:
                result[int(ln)] = LaneExplanation(
                    int(ln), "uninitialised", [],
                    "cgc's GLSL with its uninitialised declarations given zero reproduces "
                    "xlate's outputs on this lane")
        bad_lanes = np.array([ln for ln in bad_lanes if d_twin[ln] > 0], np.int64)
        d_xl, d_exe = d_twin, differing(exe_out, exe_killed)

    # 1. lanes where the executor agrees with cgc: the translation departs from the executor.
    # Lanes where both differ from cgc and the translation also departs from the executor
    # are judged here too: a departure verify cannot explain is the lane's verdict
    d_xe = np.zeros(lanes, bool)
    for b, name, comps in run.compared:
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
        for ln, le in judge_translation(run, runner, trans + both).items():
            if ln in trans or le.verdict == "unexplained":
                result[ln] = le

    # 2. lanes where the assembly (executor) differs from cgc's GLSL: counterfactual search,
    # run on those lanes only (whole quads of fragments: derivatives read the neighbours)
    todo_full = np.zeros(lanes, bool)
    todo_full[[int(ln) for ln in bad_lanes if d_exe[ln] > 0]] = True
    if todo_full.any():
        group = 4 if program.stage.value == "fragment" else 1
        quads = np.unique(np.flatnonzero(todo_full) // group)
        pick = (quads[:, None] * group + np.arange(group)[None, :]).reshape(-1)
        full_lanes = lanes
        gen, lanes, run = _subset(gen, run, pick, full_lanes)
        cgc_killed = run.killed
        d_exe = d_exe[pick]
        todo = todo_full[pick]
        order = execution_order(program)
        kept: dict[int, list] = {}                # k -> [(mask, change)]
        lane_changes: dict[int, list] = {}        # lane -> [(k, verdict)]
        current = d_exe.copy()
        first_help: dict[int, int] = {}
        state = {"todo": todo, "ill": {}}

        def trial(extra: dict[int, list], fresh: np.ndarray | None = None):
            """A run with the kept replacements and ``extra``'s (``fresh``: without the kept
            replacements on these lanes)."""
            merged = {k: list(v) for k, v in kept.items()}
            if fresh is not None:
                merged = {k: [(m & ~fresh, ch) for m, ch in v] for k, v in merged.items()}
            for k, v in extra.items():
                merged.setdefault(k, []).extend(v)
            hook = Counterfactual(merged)
            res = run_executor(program, gen, lanes, hooks=hook)
            ex.runs += 1
            words = outputs_of(res)
            state["touched"] = hook.touched
            return differing(words, getattr(res, "killed", None)), words

        def keep(extra: dict[int, list], d: np.ndarray, verdict: str,
                 weight: dict | None = None, whole: bool = False,
                 closer: np.ndarray | None = None) -> None:
            """Keep ``extra``'s replacements on the lanes where they lower the count
            (``weight``: site -> (lanes,) size of its move; a lane names its largest;
            ``whole``: only on the lanes they reproduce entirely; ``closer``: also on these
            lanes where the count stays)."""
            nonlocal current
            better = state["todo"] & (d < current)
            if closer is not None:
                better |= state["todo"] & closer & (d <= current)
            if whole:
                better &= d == 0
            if not better.any():
                return
            for k, v in extra.items():
                for mask, change in v:
                    if (mask & better).any():
                        kept.setdefault(k, []).append((mask & better, change))
            for ln in np.flatnonzero(better):
                touched = state.get("touched", {})
                ks = [k for k, v in extra.items() if any(mask[ln] for mask, _ in v)
                      and int(ln) in touched.get(k, ())]
                if weight is not None:
                    ks = sorted((k for k in ks if weight[k][ln] > 0),
                                key=lambda k: -weight[k][ln])[:4]
                for k in ks:
                    lane_changes.setdefault(int(ln), []).append((k, verdict))
                    first_help.setdefault(int(ln), k)
            current = np.where(better, d, current)
            state["todo"] = state["todo"] & (current > 0)

        def forget(lanes_mask: np.ndarray) -> None:
            """Drop the kept replacements and the bookkeeping of the lanes in ``lanes_mask``
            (they are solved again, or were reproduced from their unchanged run)."""
            for k in list(kept):
                kept[k] = [(m & ~lanes_mask, ch) for m, ch in kept[k] if (m & ~lanes_mask).any()]
                if not kept[k]:
                    del kept[k]
            for ln in np.flatnonzero(lanes_mask):
                lane_changes.pop(int(ln), None)
                first_help.pop(int(ln), None)

        def fresh_keep(extra: dict[int, list], d: np.ndarray, verdict: str) -> None:
            """After a ``fresh`` trial: the lanes it reproduces entirely drop their earlier kept
            replacements (a greedy step that lowered the count but led elsewhere: 2xbr-lv3-
            pass1 lane 100, where a TRUNC tie kept first stood in the way of its ROUND's)
            and keep ``extra``'s."""
            won = state["todo"] & (d == 0)
            if not won.any():
                return
            forget(won)
            keep(extra, d, verdict, whole=True)

        def budget(limit: int) -> bool:
            return bool(state["todo"].any()) and ex.runs < limit

        # a formula cgc's GLSL uses at every site alike (pow(x, 4.0) expanded to products
        # where the assembly has POW; an overflow to Inf it does not reach): one replacement
        # kind at every site at once, before the one-site search (a lane with four such POWs
        # improves only when all four change)
        # first the implementation's own built-ins at their sites (sin() of a hash argument,
        # pow() of a negative: a measured value, see oracle_builtin)
        evaluate = BuiltinEvaluator(compat) if compat is not None else None

        def variants_of(x, verdict):
            if verdict == "implementation":
                return [implementation_variant(evaluate)] if x.inst.op in BUILTINS else []
            return _undefined_variants(x, verdict, program)

        passes = ((("implementation", frozenset(BUILTINS)),) if evaluate is not None else ()) \
            + (("undefined-domain", UNDEFINED_DOMAIN), ("overflow", None),
               ("nan-operand", NAN_SELECTS))
        for verdict, ops_ in passes:
            sites = [k for k in order if program.instructions[k].dst is not None
                     and (ops_ is None or program.instructions[k].op in ops_)
                     and (_float_result(program, k) or (ops_ is not None and
                                                        _int_domain_site(program, k)))]
            if not sites:
                continue
            compiled = {k: _compiled(program, k) for k in sites}
            variants = {k: variants_of(compiled[k], verdict) for k in sites}
            for j in range(max(len(v) for v in variants.values())):
                if not budget(MAX_RUNS):
                    break
                extra = {k: [(state["todo"].copy(), variants[k][j])] for k in sites
                         if j < len(variants[k])}
                d, _ = trial(extra)
                # the measured built-ins change every lane a little: kept only where they
                # reproduce cgc entirely, so that they do not stand in another cause's way
                keep(extra, d, verdict, whole=verdict == "implementation")
            # then each operation's sites alike, the others held to the specs (easymode-
            # halation: every int() of a NaN gives 0x80000000, every pow() of a negative NaN,
            # while its inversesqrt()s keep the assembly's value)
            groups: dict[str, list[int]] = {}
            for k in sites:
                if variants[k]:
                    groups.setdefault(program.instructions[k].op, []).append(k)
            for op_, ks in sorted(groups.items()):
                if len(groups) < 2:
                    break
                for j in range(max(len(variants[k]) for k in ks)):
                    if not budget(MAX_RUNS):
                        break
                    extra = {k: [(state["todo"].copy(), variants[k][j])] for k in ks
                             if j < len(variants[k])}
                    d, _ = trial(extra)
                    keep(extra, d, verdict, whole=verdict == "implementation")
        # cgc's integer constants in typeless PARAM declarations: NV_gpu_program4 (issue 7,
        # "Constant bindings") makes ``PARAM c[1] = { {4} };`` the float 4.0, which an integer
        # instruction (ADD.S R2.x, R1.w, c[0]) reads as the integer 0x40800000; cgc meant 4.
        # Shown by the run where those reads take the integer cgc meant
        sites = _int_constant_sites(program)
        if sites and budget(MAX_RUNS):
            extra = {k: [(state["todo"].copy(), _int_constant_variant(ops_))]
                     for k, ops_ in sites.items()}
            d, _ = trial(extra)
            keep(extra, d, "cgc-int-constant")
        # one site at a time, in execution order; a decision only where an open lane's
        # operands are near its boundary there (elsewhere the tie variants change nothing,
        # and big programs ran out of budget on them before reaching the site that mattered)
        near_sites = _near_tie_sites(program, gen, lanes, kept, state["todo"])
        ex.runs += 1
        # first every near decision at once (xBR's quantised flags: a lane whose output
        # changes only when two comparisons flip together), kept where it reproduces a lane
        tv = {k: _tie_variants(_compiled(program, k)) for k in sorted(near_sites)
              if program.instructions[k].op in DECISIONS}
        for j in range(max((len(v) for v in tv.values()), default=0)):
            if not budget(MAX_RUNS):
                break
            extra = {k: [(state["todo"].copy(), v[j])] for k, v in tv.items() if j < len(v)}
            d, _ = trial(extra)
            keep(extra, d, "tie", whole=True)
        tried_ties: set = set()
        for k in order:
            if not budget(MAX_RUNS):
                break
            ins = program.instructions[k]
            info = OPCODES.get(ins.op)
            if ins.dst is None or info is None or not info.writes:
                continue
            reg = program.registers.get(ins.dst.reg)
            if reg is None or reg.kind not in (RegKind.TEMP, RegKind.OUTPUT):
                continue
            kinds = []
            if ins.op in DECISIONS and (k in near_sites or ins.op not in NEAR_TESTED):
                kinds.append("tie")
            if ins.op in UNDEFINED_DOMAIN:
                kinds.append("undefined-domain")
            if not kinds:
                continue
            x = _compiled(program, k)
            for verdict in kinds:
                variants = _tie_variants(x) if verdict == "tie" else \
                    _undefined_variants(x, verdict, program)
                for j, change in enumerate(variants):
                    if not budget(MAX_RUNS):
                        break
                    extra = {k: [(state["todo"].copy(), change)]}
                    d, _ = trial(extra)
                    keep(extra, d, verdict)
                    if verdict == "tie":
                        tried_ties.add((k, j))
        # the near decisions the loop above did not reach within MAX_RUNS (a program's texture
        # lookups, always tried, take many variants each: 2xbr-lv3-pass1 spent the budget on
        # them before its ROUND at exactly .5), one at a time with their own budget
        # (near the boundary on a lane still open: a recording run with the kept replacements)
        tie_start = ex.runs
        near_open = set()
        if state["todo"].any():
            near_open = _near_tie_sites(program, gen, lanes, kept, state["todo"])
            ex.runs += 1
        for k in order:
            if not state["todo"].any() or ex.runs >= tie_start + TIE_RUNS:
                break
            if k not in near_open or program.instructions[k].op not in DECISIONS:
                continue
            for j, change in enumerate(_tie_variants(_compiled(program, k))):
                if (k, j) in tried_ties:
                    continue
                if not state["todo"].any() or ex.runs >= tie_start + TIE_RUNS:
                    break
                extra = {k: [(state["todo"].copy(), change)]}
                d, _ = trial(extra, fresh=state["todo"])
                fresh_keep(extra, d, "tie")
        tie_used = ex.runs - tie_start
        # lod: a lookup whose implicit derivatives are not finite in the executor (a quad
        # neighbour's coordinate is NaN: crt-interlaced-halation-pass2 noopt lane 189, whose
        # neighbour's curvature arithmetic is undefined) has no defined level of detail; the
        # same lookup at each explicit level, at every such lookup at once.  Kept where the
        # count of differing components falls, or stays and the lane comes 4x closer to cgc
        # (the rest of the difference is then another cause's: the lane is explained only
        # when the final run reproduces it entirely)
        lod_levels = {k: _lod_levels(program, k, gen.textures) for k in order}
        lod_levels = {k: v for k, v in lod_levels.items() if v}
        lod_start = ex.runs
        if lod_levels and state["todo"].any():
            target = _vec({b: theirs(b) for b, _, _ in run.compared}, run.compared)
            _, w0 = trial({})
            dist0 = _distance(_vec(w0, run.compared), target)
            for lv in sorted({lv for v in lod_levels.values() for lv in v}):
                if not state["todo"].any() or ex.runs >= lod_start + LOD_RUNS:
                    break
                extra = {k: [(state["todo"].copy(), _undefined_lod_variant(lv))]
                         for k, v in lod_levels.items() if lv in v}
                d, w = trial(extra)
                keep(extra, d, "lod",
                     closer=_distance(_vec(w, run.compared), target) * 4 < dist0)
        # rounding where a sum cancels: a - b of a == b is 0 in the executor and +-1 ulp of
        # a in cgc's GLSL (another order of the same sum), and a decision on its sign flips
        # (super-xbr's d_edge of a flat neighbourhood).  The sums that cancelled on an open
        # lane (a recording run), each operand moved by 1-2 ulps: every such site at once,
        # then one at a time; kept only on lanes a run reproduces entirely
        cancel_start = ex.runs
        if state["todo"].any():
            sites = _cancel_sites(program, gen, lanes, kept, state["todo"])
            ex.runs += 1
            variants = [(i, n) for n in ROUNDING_ULPS for i in range(3)]
            for group in ([sites] if len(sites) > 1 else []) + [[k] for k in sites]:
                for i, n in variants:
                    ks = [k for k in group if i < len(program.instructions[k].srcs)]
                    if not state["todo"].any() or ex.runs >= cancel_start + CANCEL_RUNS:
                        break
                    if not ks:
                        continue
                    extra = {k: [(state["todo"].copy(), _operand_ulps(i, n))] for k in ks}
                    d, _ = trial(extra, fresh=state["todo"])
                    fresh_keep(extra, d, "rounding")
        extra_runs = ex.runs - lod_start + tie_used   # the passes above
        # precision: every float result moved by at most REL relative, the moves solved for
        builtins = {k: implementation_variant(evaluate) for k in order
                    if program.instructions[k].op in BUILTINS and
                    _float_result(program, k)} if evaluate is not None else {}
        target = _vec({b: theirs(b) for b, _, _ in run.compared}, run.compared)
        if budget(MAX_RUNS + PRECISION_RUNS + extra_runs):
            _precision_pass(program, order, state, trial, keep, vec_of=lambda w: _vec(
                w, run.compared), target=target, limit=MAX_RUNS + PRECISION_RUNS + extra_runs,
                ex=ex, builtins=builtins, fresh_keep=fresh_keep)
        # the lanes the solve did not reproduce on top of replacements kept for them earlier
        # (a step that lowered the count and led elsewhere: ntsc-3phase's MUL, water's RCP):
        # the same solve once more from their unchanged run, with a budget of its own
        stuck = state["todo"] & np.isin(np.arange(lanes), list(lane_changes))
        if stuck.any():
            others = state["todo"] & ~stuck
            forget(stuck)
            for ln in np.flatnonzero(stuck):
                state["ill"].pop(int(ln), None)
            current = np.where(stuck, d_exe, current)
            state["todo"] = stuck.copy()
            _precision_pass(program, order, state, trial, keep, vec_of=lambda w: _vec(
                w, run.compared), target=target, limit=ex.runs + PRECISION_RUNS, ex=ex,
                builtins=builtins, fresh_keep=fresh_keep)
            state["todo"] = state["todo"] | others
        # order: the lanes still open, from their unchanged run, with cgc's GLSL's rounding
        # steps -- its quotients where the assembly multiplies by an RCP, its dot() summed in
        # another order (oracle_order) -- then solved once more (borders/snow's hash of a
        # quotient near 2^17, whose fract() moves by 1/64 per ulp).  Only lanes every pass
        # above left open are touched, so no lane explained above changes; a lane this pass
        # does not reproduce gets back what the passes above left it (its replacements, its
        # ill-conditioned site)
        groupings = [Quotients(program, lanes, run.divisors),
                     Quotients(program, lanes, writers=("DIV",))]
        constants = ConstantProducts(program, lanes)
        dots = [k for k in order if program.instructions[k].op in DOTS]
        if state["todo"].any() and (any(groupings) or dots):
            open_ = state["todo"].copy()
            before = ({k: list(v) for k, v in kept.items()}, dict(lane_changes),
                      dict(first_help), dict(state["ill"]), current.copy())
            forget(open_)
            for ln in np.flatnonzero(open_):
                state["ill"].pop(int(ln), None)
            current = np.where(open_, d_exe, current)
            kept_before = {k: len(v) for k, v in kept.items()}
            quad = 4 if program.stage.value == "fragment" else 1
            # the folded constants after the others, with a budget of their own (every
            # candidate before them is tried as it was before they existed), from the open
            # lanes' unchanged run: kept only on lanes they reproduce entirely, whose earlier
            # order replacements they drop (a dot order kept for lowering loose-connection's
            # count stood in the way of its folded dot)
            for candidates, limit, fresh in (
                    (_order_candidates(program, groupings, dots), ORDER_RUNS, False),
                    (_constant_candidates(groupings, constants), CONSTANT_RUNS, True)):
                order_start = ex.runs
                for extra_of in candidates:
                    # alone, then with the implementation's measured built-ins at their sites
                    # (pal-singlepass: fract(sin(x) * 43758.5) of a folded dot() needs both)
                    for with_builtins in ((False, True) if builtins else (False,)):
                        if not state["todo"].any() or ex.runs >= order_start + limit:
                            break
                        # the folded constants on whole quads: cgc's GLSL folds them on every
                        # fragment, and a lane's derivatives read its neighbours'
                        # (loose-connection: 21 of its lanes agree only so)
                        todo_ = state["todo"].copy()
                        where = _quads(todo_, quad) if fresh else todo_
                        extra = extra_of(where)
                        if with_builtins:
                            for k, change in builtins.items():
                                extra.setdefault(k, []).append((where.copy(), change))
                        verdict = "order+implementation" if with_builtins else "order"
                        if not fresh:
                            d, _ = trial(extra)
                            keep(extra, d, verdict)
                            continue
                        d, _ = trial(extra, fresh=todo_)
                        won = todo_ & (d == 0)
                        won = _quads(won, quad) & ~won
                        fresh_keep(extra, d, verdict)
                        for k, v in extra.items():      # the reproduced lanes' neighbours
                            for m, ch in v:
                                if (m & won).any():
                                    kept.setdefault(k, []).append((m & won, ch))
            if state["todo"].any() and any(len(v) > kept_before.get(k, 0)
                                           for k, v in kept.items()):
                _precision_pass(program, order, state, trial, keep, vec_of=lambda w: _vec(
                    w, run.compared), target=target, limit=ex.runs + PRECISION_RUNS, ex=ex,
                    builtins=builtins, fresh_keep=fresh_keep)
            left = state["todo"] & open_
            if left.any():
                forget(left)
                for k, v in before[0].items():
                    for m, ch in v:
                        if (m & left).any():
                            kept.setdefault(k, []).append((m & left, ch))
                for ln in map(int, np.flatnonzero(left)):
                    for was, now in zip(before[1:4], (lane_changes, first_help, state["ill"])):
                        if ln in was:
                            now[ln] = was[ln]
                        else:
                            now.pop(ln, None)
                current = np.where(left, before[4], current)
        sub_out = outputs_of(run_executor(program, gen, lanes))
        ex.runs += 1

        def confirm() -> np.ndarray:
            """The confirming run: exactly the kept replacements."""
            if not kept:
                return d_exe
            res = run_executor(program, gen, lanes, hooks=Counterfactual(kept))
            ex.runs += 1
            return differing(outputs_of(res), getattr(res, "killed", None))

        final = confirm()
        quad_lanes = 4 if program.stage.value == "fragment" else 1
        if quad_lanes > 1 and constants:
            final = _repair_quads(final, todo_full[pick], quad_lanes, trial, forget, kept,
                                  lane_changes, first_help, state, ex,
                                  _constant_candidates(groupings, constants), builtins, confirm)
        for r_i, ln in enumerate(pick):
            ln = int(ln)
            if ln in result or not todo_full[ln]:
                continue
            chs = lane_changes.get(r_i, [])
            if final[r_i] == 0 and (chs or depth_lanes[ln]):
                verdicts = sorted({v for _, v in chs} | ({"call-depth"} if depth_lanes[ln]
                                                         else set()))
                ks = list(dict.fromkeys(k for k, _ in chs))
                result[ln] = LaneExplanation(
                    ln, "+".join(verdicts), [_ins_info(program, k) for k in ks[:4]],
                    f"{len(chs)} replacement(s); the replay reproduces cgc's outputs")
            elif r_i in state["ill"] and not chs:
                k = state["ill"][r_i]
                result[ln] = LaneExplanation(
                    ln, "ill-conditioned", [_ins_info(program, k)],
                    "a move of this result by 2^-20 relative moves every differing output "
                    "component by more than its difference from cgc's",
                    describe_inputs(gen, r_i))
            else:
                k = first_help.get(r_i)
                where = [_ins_info(program, k)] if k is not None else []
                result[ln] = LaneExplanation(
                    ln, "unexplained", where,
                    _lane_values(run, sub_out, r_i, theirs),
                    describe_inputs(gen, r_i))
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


#: decisions whose boundary :func:`_near_tie_sites` can test from the operands (others --
#: lookups, MOD, I2F -- are always tried)
NEAR_TESTED = frozenset({"SLT", "SGE", "SGT", "SLE", "SEQ", "SNE", "MIN", "MAX", "CMP", "SSG",
                         "FLR", "CEIL", "TRUNC", "ROUND", "FRC"})


class _NearTies(Counterfactual):
    """The kept replacements, and a record of the decisions whose float operands are within
    2 REL of their boundary on the lanes ``todo`` (a superset of what a tie variant, which
    moves one operand by REL, can flip)."""

    def __init__(self, changes, todo, sites):
        super().__init__(changes)
        self.instructions = sorted(set(changes) | set(sites))
        self.todo, self.near = todo, set()

    def __call__(self, x, st, idx, ops, bits, cmask):
        out = super().__call__(x, st, idx, ops, bits, cmask)
        op = x.inst.op
        if op not in NEAR_TESTED or x.index in self.near or \
                any(np.asarray(o).dtype != F32 for o in ops):
            return out
        sel = st.all_lanes if idx is None else np.asarray(idx)
        rows = self.todo[st.base + sel]
        if not rows.any():
            return out
        f = [np.asarray(o, np.float64) for o in ops]
        f = [o.reshape(o.shape[0], -1) if o.ndim else o.reshape(1, 1) for o in f]
        with np.errstate(all="ignore"):
            if op in ("CMP", "SSG"):
                hit = f[0] == 0
            elif op in ("FLR", "CEIL", "TRUNC", "ROUND", "FRC"):
                a = f[0]
                whole = np.abs(a - np.rint(a)) <= 2 * REL * np.abs(a)
                half = np.abs(a - np.floor(a) - 0.5) <= 2 * REL * np.abs(a)
                hit = whole | (half if op == "ROUND" else False)
            else:
                a, b = np.broadcast_arrays(f[0], f[1])
                hit = np.abs(a - b) <= 2 * REL * np.maximum(np.abs(a), np.abs(b))
        hit = hit.any(axis=1)
        if hit.shape[0] == rows.shape[0]:
            hit = hit & rows
        if hit.any():
            self.near.add(x.index)
        return out


def _near_tie_sites(program, gen, lanes, kept, todo) -> set:
    from .draw_run import run_executor
    sites = [k for k, ins in enumerate(program.instructions) if ins.op in NEAR_TESTED]
    hook = _NearTies(kept, todo, sites)
    run_executor(program, gen, lanes, hooks=hook)
    return hook.near


class _Cancellations(Counterfactual):
    """The kept replacements, and a record of the sums (:data:`oracle_causes.CANCELLING`)
    whose result cancelled on one of the lanes ``todo`` (:func:`oracle_causes._cancels`)."""

    def __init__(self, changes, todo, sites):
        super().__init__(changes)
        self.instructions = sorted(set(changes) | set(sites))
        self.todo, self.hits = todo, []

    def __call__(self, x, st, idx, ops, bits, cmask):
        out, cmask = super().__call__(x, st, idx, ops, bits, cmask)
        if x.index in self.hits:
            return out, cmask
        sel = st.all_lanes if idx is None else np.asarray(idx)
        rows = self.todo[st.base + sel]
        if rows.any():
            hit = _cancels(x, ops, out)
            if hit.shape[0] == rows.shape[0] and (hit & rows).any():
                self.hits.append(x.index)
        return out, cmask


def _cancel_sites(program, gen, lanes, kept, todo) -> list:
    """The first CANCEL_SITES sums, in execution order, that cancel on an open lane."""
    from .draw_run import run_executor
    from .oracle_causes import CANCELLING
    sites = [k for k, ins in enumerate(program.instructions) if ins.op in CANCELLING
             and ins.dst is not None]
    hook = _Cancellations(kept, todo, sites)
    run_executor(program, gen, lanes, hooks=hook)
    return hook.hits[:CANCEL_SITES]


def _repair_quads(final, bad_rows, group, trial, forget, kept, lane_changes, first_help,
                  state, ex, candidates, builtins, confirm) -> np.ndarray:
    """Quads the confirming run does not reproduce, tried once more whole with cgc's folded
    constants; the confirming run's counts after it.

    The search explains lanes one at a time, but a fragment's derivatives read its quad: a
    replacement kept for one lane moves its neighbours' lookups, and a neighbour explained
    earlier (by ``precision``, solved while the lane beside it was unchanged) comes apart in
    the confirming run (ntsc-vcr/loose-connection: 13 such lanes, in quads where the folded
    constants were kept for one lane and appended to its neighbours).  cgc's GLSL folds its
    constants on every fragment alike, so such a quad is tried from its unchanged run with
    only the folded constants (alone, with the quotients, each also with the measured
    built-ins: :func:`_constant_candidates`) on all its lanes; where that run reproduces
    every lane of the quad, the quad's replacements are exactly those (``order``, or
    ``order+implementation``), and the confirming run is made again."""
    broken = _quads(bad_rows & (final > 0), group)
    start = ex.runs
    for extra_of in candidates:
        for with_builtins in ((False, True) if builtins else (False,)):
            if not broken.any() or ex.runs >= start + CONSTANT_RUNS:
                break
            extra = extra_of(broken.copy())
            if with_builtins:
                for k, change in builtins.items():
                    extra.setdefault(k, []).append((broken.copy(), change))
            d, _ = trial(extra, fresh=broken)
            whole = broken & np.repeat((d.reshape(-1, group) == 0).all(axis=1), group)
            if not whole.any():
                continue
            forget(whole)
            verdict = "order+implementation" if with_builtins else "order"
            touched = state.get("touched", {})
            for k, v in extra.items():
                for mask, change in v:
                    if (mask & whole).any():
                        kept.setdefault(k, []).append((mask & whole, change))
            for ln in map(int, np.flatnonzero(whole & bad_rows)):
                state["ill"].pop(ln, None)
                ks = [k for k in sorted(extra) if ln in touched.get(k, ())]
                lane_changes[ln] = [(k, verdict) for k in ks]
                if ks:
                    first_help[ln] = ks[0]
            broken &= ~whole
    return confirm() if ex.runs > start else final


def _quads(mask: np.ndarray, group: int) -> np.ndarray:
    """``mask`` widened to the whole quads (``group`` lanes) of its lanes."""
    return np.repeat(mask.reshape(-1, group).any(axis=1), group) if group > 1 else mask.copy()


def _merged(*makers):
    """One candidate of several (each a function of the open lanes' mask)."""
    def make(mask):
        out: dict[int, list] = {}
        for m in makers:
            for k, v in m(mask).items():
                out.setdefault(k, []).extend(v)
        return out
    return make


def _constant_candidates(groupings: list, constants) -> list:
    """The dot products' constants folded (oracle_order.ConstantProducts), alone and with every
    grouping (``loose-connection``'s hash needs both: its ``/ 3.14`` and its folded dot)."""
    if not constants:
        return []
    groups = [g.changes for g in groupings if g]
    return [constants.changes] + ([_merged(constants.changes, *groups)] if groups else [])


def _order_candidates(program, groupings: list, dots: list[int]):
    """The ``order`` replacements, each a function of the open lanes' mask: each nonempty
    combination of ``groupings`` (oracle_order.Quotients: the quotients, the products of
    quotients), then each other order of summation at every dot product at once, alone and
    with every grouping (the orders distinct for the program's widest dot product; the
    executor's own left to right is left out)."""
    merged = _merged
    groups = [g.changes for g in groupings if g]
    out = [merged(*combo) for n in range(1, len(groups) + 1)
           for combo in itertools.combinations(groups, n)]
    factored = [k for k in dots if factored_operand(program, program.instructions[k])
                is not None]
    if factored:
        def fold(mask):
            return {k: [(mask.copy(), factored_variant(program))] for k in factored}
        out.append(fold)
        if groups:
            out.append(merged(fold, *groups))
    width = max((DOTS[program.instructions[k].op] for k in dots), default=0)
    seen = {tuple(range(width))}
    for o in DOT_ORDERS if dots else ():
        key = o if o == "pairwise" and width == 4 else \
            tuple(i for i in (o if o != "pairwise" else range(4)) if i < width)
        key = key if key == "pairwise" else tuple(sorted(key[:2])) + key[2:]
        if key in seen:
            continue
        seen.add(key)

        def dot(mask, o=o):
            return {k: [(mask.copy(), dot_order_variant(o))] for k in dots}
        out.append(dot)
        if groups:
            out.append(merged(dot, *groups))
    return out


def _subset(gen, run, pick: np.ndarray, lanes: int):
    """The generated inputs and the pair's cgc outputs on the lanes ``pick`` only."""
    import copy
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


def _compiled(program, k):
    from ..exec.machine import compile_program
    code, _ = compile_program(program)
    return code[k]
