"""The cgc oracle's solve (:mod:`oracle_explain`): ``precision`` -- a lane's remaining
difference solved for as moves of the float results, each within 2^-12 relative --,
``rounding`` -- moves of one or two results by 1-2 ulps, for outputs chaotic in them -- and
``ill-conditioned``, the one verdict that does not reproduce cgc's value (docs/cgc-oracle.md).
Every move is shown by a run of the executor with exactly those moves."""
from __future__ import annotations

import numpy as np

from ..ir.model import DataType, RegKind
from ..ir.ops import OPCODES
from .oracle_causes import _scaled, _ulps
from .oracle_match import REL

F32 = np.float32

#: ``rounding``: moves of a result by this many ulps, at the sites (at most ROUNDING_SITES) that
#: move the open lanes' outputs most, then up to two ulps at two of the first ROUNDING_PAIR_SITES
#: at once, within ROUNDING_RUNS more runs
ROUNDING_ULPS = (1, -1, 2, -2)
ROUNDING_SITES = 24
ROUNDING_PAIR_SITES = 6
ROUNDING_PAIR_ULPS = tuple(sorted(((a, b) for a in (1, -1, 2, -2) for b in (1, -1, 2, -2)),
                                  key=lambda p: abs(p[0]) + abs(p[1])))
ROUNDING_RUNS = 320
#: runs of the one-site ulp moves tried again from the open lanes' unchanged runs
FRESH_ROUNDING_RUNS = 96
#: ``ill-conditioned`` also needs the move parallel to the lane's difference (cosine)
ILL_ALIGNED = 0.99
#: the move of ``ill-conditioned``: 2^-20 relative, 8 units in the last place of a float
ILL_CONDITIONED = 2.0 ** -20

def _float_result(program, k: int) -> bool:
    ins = program.instructions[k]
    reg = program.registers.get(ins.dst.reg) if ins.dst is not None else None
    info = OPCODES.get(ins.op)
    return reg is not None and reg.kind in (RegKind.TEMP, RegKind.OUTPUT) and \
        info is not None and info.writes and ins.dtype in (DataType.FLOAT, DataType.NONE) \
        and ins.op not in ("TXQ", "KIL")


def _vec(words_of: dict, compared) -> np.ndarray:
    """(lanes, m) float64 of every compared output component (denormals flushed)."""
    from . import compare as cmp
    cols = []
    for b, _, comps in compared:
        w = words_of.get(b)
        if w is None:
            continue
        for c in comps:
            cols.append(cmp.flush(np.ascontiguousarray(w[:, c])).view(F32).astype(np.float64))
    return np.stack(cols, axis=1) if cols else np.zeros((0, 0))


def _distance(mine: np.ndarray, target: np.ndarray) -> np.ndarray:
    """(lanes,) the largest relative difference of a lane's compared components (inf where one
    side is not finite and the other is)."""
    with np.errstate(all="ignore"):
        rel = np.abs(mine - target) / np.maximum(np.maximum(np.abs(mine), np.abs(target)),
                                                 2.0 ** -16)
        same = (mine == target) | (np.isnan(mine) & np.isnan(target))
        rel = np.where(same, 0.0, np.where(np.isnan(rel), np.inf, rel))
    return rel.max(axis=1) if rel.size else np.zeros(mine.shape[0])


def _parallel(move: np.ndarray, gap: np.ndarray) -> bool:
    """The move of a lane's compared components (all of them, the agreeing ones too) points
    along its difference from cgc (cosine >= ILL_ALIGNED, either sign): one result that the
    output is chaotic in moves the components together, so a difference of one component
    alone (the others agreeing), or of components in other proportions, is not its doing."""
    ok = np.isfinite(move) & np.isfinite(gap)
    if not ok.all():
        return False
    nm, ng = np.linalg.norm(move), np.linalg.norm(gap)
    return bool(nm > 0 and ng > 0 and abs(float(move @ gap)) >= ILL_ALIGNED * nm * ng)


def _precision_pass(program, order, state, trial, keep, vec_of, target, limit, ex,
                    builtins=None, fresh_keep=None) -> None:
    """``precision``: the differences a lane still has are solved for as moves of the float
    results of the instructions (each by a relative u_k, one per instruction and lane): a
    finite-difference Jacobian of the compared outputs in each u_k, the least-norm solution of
    J u = cgc - assembly, accepted when every |u_k| <= REL (a value the oracle itself could
    not tell from the executor's), and shown by the run with exactly those moves (up to three
    Newton steps on the same Jacobian)."""
    sites = [k for k in order if _float_result(program, k)]
    room = limit - ex.runs - 3
    if room <= 0:
        return
    sites = sites[-room:]
    lanes = state["todo"].shape[0]
    _, base = trial({})
    o0 = vec_of(base)
    h = ILL_CONDITIONED       # small: ill-conditioned lanes leave the linear regime early
    jac = np.zeros(o0.shape + (len(sites),))
    mask = state["todo"].copy()
    for j, k in enumerate(sites):
        _, w = trial({k: [(mask, _scaled(np.full(lanes, h)))]})
        with np.errstate(all="ignore"):
            jac[:, :, j] = (vec_of(w) - o0) / h
    moved = jac * h                              # each site's move of each output
    u = np.zeros((lanes, len(sites)))
    cur = o0
    for _ in range(3):
        ok = np.zeros(lanes, bool)
        for ln in np.flatnonzero(state["todo"] & mask):
            r = target[ln] - cur[ln]
            a = jac[ln]
            rows = np.isfinite(r) & np.all(np.isfinite(a), axis=1)
            if not rows.any() or not np.all(np.isfinite(target[ln])):
                continue
            sol = np.linalg.lstsq(a[rows], r[rows], rcond=None)[0]
            u[ln] += sol
            ok[ln] = np.max(np.abs(u[ln])) <= REL
        if not ok.any():
            break
        extra = {k: [(ok.copy(), _scaled(u[:, j].copy()))] for j, k in enumerate(sites)
                 if np.any(u[ok, j] != 0)}
        d, w = trial(extra)
        keep(extra, d, "precision",
             {k: np.abs(u[:, j] * np.nan_to_num(np.abs(jac[:, :, j])).max(axis=1))
              for j, k in enumerate(sites)})
        cur = vec_of(w)
        if not state["todo"].any():
            return
    # rounding: a lane no solve reproduced may be chaotic in one result (a hash's argument:
    # fract(sin(x) * 43758.5) moves by 0.2 when x moves by one ulp), so moves of a few ulps
    # at the sites that move its outputs most, one site at a time
    open_ = np.flatnonzero(state["todo"] & mask)
    if open_.size and ex.runs < limit + ROUNDING_RUNS:
        size = np.nan_to_num(np.abs(moved[open_])).max(axis=1).max(axis=0)
        top = [int(j) for j in np.argsort(-size, kind="stable")[:ROUNDING_SITES] if size[j] > 0]
        for j in top:
            for n in ROUNDING_ULPS:
                if not (state["todo"] & mask).any() or ex.runs >= limit + ROUNDING_RUNS:
                    break
                extra = {sites[j]: [((state["todo"] & mask).copy(), _ulps(n))]}
                d, _ = trial(extra)
                keep(extra, d, "rounding")
        # two sites at once, one ulp each, with the implementation's own built-ins
        # (``builtins``: site -> change) at their sites: the hash's argument and the sin() of
        # it both differ (noise-mudlord)
        pairs_ = [(a, b) for i, a in enumerate(top[:ROUNDING_PAIR_SITES])
                  for b in top[i + 1:ROUNDING_PAIR_SITES]]
        combos = []
        if builtins:                  # the built-ins alone, and with one site moved
            combos += [((), ())] + [((a,), (n,)) for a in top[:ROUNDING_PAIR_SITES]
                                     for n in ROUNDING_ULPS]
        combos += [((a, b), ns) for a, b in pairs_ for ns in ROUNDING_PAIR_ULPS]
        for at, ns in combos:
            live = (state["todo"] & mask).copy()
            if not live.any() or ex.runs >= limit + ROUNDING_RUNS:
                break
            if at or builtins:
                extra = {k: [(live, ch)] for k, ch in (builtins or {}).items()}
                for j, n in zip(at, ns):
                    extra.setdefault(sites[j], []).append((live, _ulps(n)))
                d, _ = trial(extra)
                keep(extra, d, "rounding" if at else "implementation")
        # the same one-site moves from the lanes' unchanged runs (``fresh_keep``): a partial
        # solve kept above lowered the count and stood in the way (ntsc-3phase lanes 2 and
        # 110: one ulp of y * 0.33333334 -- cgc's y / 3.0 -- reproduces them alone)
        if fresh_keep is not None:
            start = ex.runs
            for j in top:
                for n in ROUNDING_ULPS:
                    live = (state["todo"] & mask).copy()
                    if not live.any() or ex.runs >= start + FRESH_ROUNDING_RUNS:
                        break
                    extra = {sites[j]: [(live, _ulps(n))]}
                    d, _ = trial(extra, fresh=live)
                    fresh_keep(extra, d, "rounding")
        if not state["todo"].any():
            return
    # ill-conditioned: a lane no solve reproduced, where a move of one result by 2^-20
    # relative moves every differing output component by at least its difference from cgc
    with np.errstate(all="ignore"):
        gap = np.abs(target - o0)
        differs = ~np.isclose(target, o0, rtol=REL, atol=0) & np.isfinite(o0) & \
            np.isfinite(target)

    def judge(moves, order_):
        for ln in np.flatnonzero(state["todo"] & mask):
            cols = differs[ln]
            if ln in state["ill"] or not cols.any() or not np.isfinite(o0[ln]).all():
                continue
            g = target[ln] - o0[ln]
            for j in order_:
                mv = np.abs(moves[ln, cols, j])
                if np.all(np.isfinite(mv) & (mv >= gap[ln, cols])) and \
                        _parallel(moves[ln, :, j], g):
                    state["ill"][ln] = sites[j]
                    break

    judge(moved, range(len(sites)))
    # a chaotic output moves either way: the same move downwards, at the sites that moved
    # the lanes still open the most (at most 16 more runs)
    left = [ln for ln in np.flatnonzero(state["todo"] & mask) if ln not in state["ill"]]
    if left and ex.runs < limit:
        size = np.nan_to_num(np.abs(moved[left])).max(axis=1).max(axis=0)
        top = [int(j) for j in np.argsort(-size)[:min(16, max(0, limit - ex.runs))]
               if size[j] > 0]
        down = np.full_like(moved, np.nan)
        for j in top:
            _, w = trial({sites[j]: [(mask, _scaled(np.full(lanes, -h)))]})
            with np.errstate(all="ignore"):
                down[:, :, j] = vec_of(w) - o0
        judge(down, top)
