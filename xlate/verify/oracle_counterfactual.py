"""The counterfactual runs of the cgc oracle's search (:mod:`oracle_search`, docs/cgc-oracle.md):
the executor result hook that replaces an instruction's result on chosen lanes
(:class:`Counterfactual`), the recording runs that find where a replacement can matter (the
decisions near their boundary, :func:`_near_tie_sites`; the sums that cancel,
:func:`_cancel_sites`), the ``order`` candidates built from :mod:`oracle_order`'s
replacements (:func:`_order_candidates`, :func:`_constant_candidates`), and the repair of a
fragment quad the confirming run takes apart (:func:`_repair_quads`)."""
from __future__ import annotations

import itertools

import numpy as np

from .oracle_causes import _cancels
from .oracle_match import REL
from .oracle_order import DOT_ORDERS, DOTS, dot_order_variant, factored_operand, factored_variant

F32, U32 = np.float32, np.uint32

#: runs the folded constants (oracle_order.ConstantProducts) may take after the other ``order``
#: replacements, and again in :func:`_repair_quads`
CONSTANT_RUNS = 4
#: the sums :func:`_cancel_sites` returns (the first in execution order)
CANCEL_SITES = 12


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
