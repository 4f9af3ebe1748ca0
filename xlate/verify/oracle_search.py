"""The cgc oracle's counterfactual search (part 2 of :mod:`oracle_explain`, docs/cgc-oracle.md):
its state on the lanes where the executor's own output differs from cgc's GLSL, and its passes.
Each pass tries the replacements a cause allows, in a fixed order and within a fixed run budget;
one is kept for a lane only when it lowers the number of that lane's differing components, and
the confirming run with exactly the kept replacements gives each lane its verdict
(:func:`oracle_explain._search` makes the passes in order).  The runs and their hooks are
:mod:`oracle_counterfactual`'s; the replacements :mod:`oracle_causes`', :mod:`oracle_builtin`'s
and :mod:`oracle_order`'s; the solve :mod:`oracle_solve`'s."""
from __future__ import annotations

import numpy as np

from ..ir.model import RegKind
from ..ir.ops import OPCODES
from .oracle_builtin import BUILTINS, BuiltinEvaluator, implementation_variant
from .oracle_causes import (DECISIONS, NAN_SELECTS, UNDEFINED_DOMAIN, _int_constant_sites,
                            _int_constant_variant, _int_domain_site, _lod_levels,
                            _operand_ulps, _tie_variants, _undefined_lod_variant,
                            _undefined_variants)
from .oracle_counterfactual import (CONSTANT_RUNS, NEAR_TESTED, Counterfactual, _cancel_sites,
                                    _constant_candidates, _near_tie_sites, _order_candidates,
                                    _quads, _repair_quads)
from .oracle_order import DOTS, ConstantProducts, Quotients
from .oracle_solve import ROUNDING_ULPS, _distance, _float_result, _precision_pass, _vec

#: executor runs one pair's search may take (keeps the worst program bounded; deterministic):
#: the replacement search, then the precision solve (one run per instruction, at most)
MAX_RUNS = 80
PRECISION_RUNS = 120
#: runs the cancelled sums may take (:func:`oracle_counterfactual._cancel_sites`: the first
#: CANCEL_SITES in execution order are tried)
CANCEL_RUNS = 64
#: runs the near decisions the one-site search did not reach may take
TIE_RUNS = 64
#: runs the ``lod`` levels may take
LOD_RUNS = 16
#: runs the ``order`` replacements may take (oracle_order: the quotients, each other dot()
#: order, and both together; each alone and with the measured built-ins)
ORDER_RUNS = 48


class Search:
    """The search's state on its lanes (``pair``: :class:`oracle_explain._Pair`, narrowed to
    them; ``exec_order``: the program's instructions in execution order): ``kept``
    (k -> [(mask, change)]: the replacements kept so far), ``lane_changes`` (lane ->
    [(k, verdict)]), ``first_help`` (lane -> the first instruction whose replacement lowered
    its count), ``current`` (the lanes' counts of differing components now) and ``state``,
    which :func:`oracle_solve._precision_pass` and :func:`oracle_counterfactual._repair_quads`
    read and update too: ``todo`` (the lanes still open), ``ill`` (lane -> its
    ill-conditioned site), ``touched`` (k -> the lanes whose value the last trial's
    replacements altered)."""

    def __init__(self, pair, ex, d_exe: np.ndarray, todo: np.ndarray, compat):
        from .trace import execution_order
        self.pair, self.ex, self.d_exe = pair, ex, d_exe
        self.exec_order = execution_order(pair.program)
        self.kept: dict[int, list] = {}                # k -> [(mask, change)]
        self.lane_changes: dict[int, list] = {}        # lane -> [(k, verdict)]
        self.current = d_exe.copy()
        self.first_help: dict[int, int] = {}
        self.state = {"todo": todo, "ill": {}}
        # the implementation's own built-ins are measured on the context cgc's GLSL runs on
        self.evaluate = BuiltinEvaluator(compat) if compat is not None else None
        self.builtins: dict = {}
        self.target = None
        self.groupings: list = []
        self.constants = None

    # -- the search's moves: a trial run, keeping and forgetting replacements

    def trial(self, extra: dict[int, list], fresh: np.ndarray | None = None):
        """A run with the kept replacements and ``extra``'s (``fresh``: without the kept
        replacements on these lanes)."""
        from .draw_run import run_executor
        pair = self.pair
        merged = {k: list(v) for k, v in self.kept.items()}
        if fresh is not None:
            merged = {k: [(m & ~fresh, ch) for m, ch in v] for k, v in merged.items()}
        for k, v in extra.items():
            merged.setdefault(k, []).extend(v)
        hook = Counterfactual(merged)
        res = run_executor(pair.program, pair.gen, pair.lanes, hooks=hook)
        self.ex.runs += 1
        words = pair.outputs_of(res)
        self.state["touched"] = hook.touched
        return pair.differing(words, getattr(res, "killed", None)), words

    def keep(self, extra: dict[int, list], d: np.ndarray, verdict: str,
             weight: dict | None = None, whole: bool = False,
             closer: np.ndarray | None = None) -> None:
        """Keep ``extra``'s replacements on the lanes where they lower the count
        (``weight``: site -> (lanes,) size of its move; a lane names its largest;
        ``whole``: only on the lanes they reproduce entirely; ``closer``: also on these
        lanes where the count stays)."""
        state, kept = self.state, self.kept
        better = state["todo"] & (d < self.current)
        if closer is not None:
            better |= state["todo"] & closer & (d <= self.current)
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
                self.lane_changes.setdefault(int(ln), []).append((k, verdict))
                self.first_help.setdefault(int(ln), k)
        self.current = np.where(better, d, self.current)
        state["todo"] = state["todo"] & (self.current > 0)

    def forget(self, lanes_mask: np.ndarray) -> None:
        """Drop the kept replacements and the bookkeeping of the lanes in ``lanes_mask``
        (they are solved again, or were reproduced from their unchanged run)."""
        kept = self.kept
        for k in list(kept):
            kept[k] = [(m & ~lanes_mask, ch) for m, ch in kept[k] if (m & ~lanes_mask).any()]
            if not kept[k]:
                del kept[k]
        for ln in np.flatnonzero(lanes_mask):
            self.lane_changes.pop(int(ln), None)
            self.first_help.pop(int(ln), None)

    def fresh_keep(self, extra: dict[int, list], d: np.ndarray, verdict: str) -> None:
        """After a ``fresh`` trial: the lanes it reproduces entirely drop their earlier kept
        replacements (a greedy step that lowered the count but led elsewhere: 2xbr-lv3-
        pass1 lane 100, where a TRUNC tie kept first stood in the way of its ROUND's)
        and keep ``extra``'s."""
        won = self.state["todo"] & (d == 0)
        if not won.any():
            return
        self.forget(won)
        self.keep(extra, d, verdict, whole=True)

    def budget(self, limit: int) -> bool:
        return bool(self.state["todo"].any()) and self.ex.runs < limit

    def vec_of(self, words: dict) -> np.ndarray:
        return _vec(words, self.pair.run.compared)

    def _variants_of(self, x, verdict):
        if verdict == "implementation":
            return [implementation_variant(self.evaluate)] if x.inst.op in BUILTINS else []
        return _undefined_variants(x, verdict, self.pair.program)

    # -- the passes, in the order oracle_explain._search makes them

    def every_site_alike(self) -> None:
        """``implementation``, ``undefined-domain``, ``overflow``, ``nan-operand``: one
        replacement kind at every site of it at once, then at each operation's sites alike.

        A formula cgc's GLSL uses at every site alike (pow(x, 4.0) expanded to products
        where the assembly has POW; an overflow to Inf it does not reach): one replacement
        kind at every site at once, before the one-site search (a lane with four such POWs
        improves only when all four change).  First the implementation's own built-ins at
        their sites (sin() of a hash argument, pow() of a negative: a measured value, see
        oracle_builtin)."""
        program, state, order = self.pair.program, self.state, self.exec_order
        passes = ((("implementation", frozenset(BUILTINS)),) if self.evaluate is not None
                  else ()) + (("undefined-domain", UNDEFINED_DOMAIN), ("overflow", None),
                              ("nan-operand", NAN_SELECTS))
        for verdict, ops_ in passes:
            sites = [k for k in order if program.instructions[k].dst is not None
                     and (ops_ is None or program.instructions[k].op in ops_)
                     and (_float_result(program, k) or (ops_ is not None and
                                                        _int_domain_site(program, k)))]
            if not sites:
                continue
            compiled = {k: _compiled(program, k) for k in sites}
            variants = {k: self._variants_of(compiled[k], verdict) for k in sites}
            for j in range(max(len(v) for v in variants.values())):
                if not self.budget(MAX_RUNS):
                    break
                extra = {k: [(state["todo"].copy(), variants[k][j])] for k in sites
                         if j < len(variants[k])}
                d, _ = self.trial(extra)
                # the measured built-ins change every lane a little: kept only where they
                # reproduce cgc entirely, so that they do not stand in another cause's way
                self.keep(extra, d, verdict, whole=verdict == "implementation")
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
                    if not self.budget(MAX_RUNS):
                        break
                    extra = {k: [(state["todo"].copy(), variants[k][j])] for k in ks
                             if j < len(variants[k])}
                    d, _ = self.trial(extra)
                    self.keep(extra, d, verdict, whole=verdict == "implementation")

    def int_constants(self) -> None:
        """``cgc-int-constant``: the integer reads of cgc's typeless PARAM constants take the
        integer cgc meant, at every such read at once.

        cgc's integer constants in typeless PARAM declarations: NV_gpu_program4 (issue 7,
        "Constant bindings") makes ``PARAM c[1] = { {4} };`` the float 4.0, which an integer
        instruction (ADD.S R2.x, R1.w, c[0]) reads as the integer 0x40800000; cgc meant 4.
        Shown by the run where those reads take the integer cgc meant."""
        sites = _int_constant_sites(self.pair.program)
        if sites and self.budget(MAX_RUNS):
            extra = {k: [(self.state["todo"].copy(), _int_constant_variant(ops_))]
                     for k, ops_ in sites.items()}
            d, _ = self.trial(extra)
            self.keep(extra, d, "cgc-int-constant")

    def near_ties_at_once(self) -> set:
        """``tie`` at every decision near its boundary on an open lane at once (one variant
        at a time), kept only where it reproduces a lane; returns those decisions (found by a
        recording run), to which the one-site search then limits its ties."""
        program, state, pair = self.pair.program, self.state, self.pair
        # one site at a time, in execution order; a decision only where an open lane's
        # operands are near its boundary there (elsewhere the tie variants change nothing,
        # and big programs ran out of budget on them before reaching the site that mattered)
        near_sites = _near_tie_sites(program, pair.gen, pair.lanes, self.kept, state["todo"])
        self.ex.runs += 1
        # first every near decision at once (xBR's quantised flags: a lane whose output
        # changes only when two comparisons flip together), kept where it reproduces a lane
        tv = {k: _tie_variants(_compiled(program, k)) for k in sorted(near_sites)
              if program.instructions[k].op in DECISIONS}
        for j in range(max((len(v) for v in tv.values()), default=0)):
            if not self.budget(MAX_RUNS):
                break
            extra = {k: [(state["todo"].copy(), v[j])] for k, v in tv.items() if j < len(v)}
            d, _ = self.trial(extra)
            self.keep(extra, d, "tie", whole=True)
        return near_sites

    def one_site_at_a_time(self, near_sites: set) -> set:
        """``tie`` and ``undefined-domain`` at one site at a time, in execution order, within
        MAX_RUNS: a decision only where it is near its boundary (``near_sites``) or cannot be
        tested from its operands (lookups, MOD, I2F); returns the (site, variant) ties tried."""
        program, state = self.pair.program, self.state
        tried_ties: set = set()
        for k in self.exec_order:
            if not self.budget(MAX_RUNS):
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
                    if not self.budget(MAX_RUNS):
                        break
                    extra = {k: [(state["todo"].copy(), change)]}
                    d, _ = self.trial(extra)
                    self.keep(extra, d, verdict)
                    if verdict == "tie":
                        tried_ties.add((k, j))
        return tried_ties

    def near_ties_left(self, tried_ties: set) -> int:
        """``tie`` at the near decisions the one-site search did not try, each from the open
        lanes' unchanged run (``fresh``), within TIE_RUNS; returns the runs it took.

        The near decisions the loop above did not reach within MAX_RUNS (a program's texture
        lookups, always tried, take many variants each: 2xbr-lv3-pass1 spent the budget on
        them before its ROUND at exactly .5), one at a time with their own budget
        (near the boundary on a lane still open: a recording run with the kept
        replacements)."""
        program, state, ex, pair = self.pair.program, self.state, self.ex, self.pair
        tie_start = ex.runs
        near_open = set()
        if state["todo"].any():
            near_open = _near_tie_sites(program, pair.gen, pair.lanes, self.kept, state["todo"])
            ex.runs += 1
        for k in self.exec_order:
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
                d, _ = self.trial(extra, fresh=state["todo"])
                self.fresh_keep(extra, d, "tie")
        return ex.runs - tie_start

    def lod_levels(self) -> None:
        """``lod``: every lookup whose implicit derivatives are not finite, at one explicit
        level at a time, within LOD_RUNS.

        A lookup whose implicit derivatives are not finite in the executor (a quad
        neighbour's coordinate is NaN: crt-interlaced-halation-pass2 noopt lane 189, whose
        neighbour's curvature arithmetic is undefined) has no defined level of detail; the
        same lookup at each explicit level, at every such lookup at once.  Kept where the
        count of differing components falls, or stays and the lane comes 4x closer to cgc
        (the rest of the difference is then another cause's: the lane is explained only
        when the final run reproduces it entirely)."""
        program, state, ex, pair, run = (self.pair.program, self.state, self.ex, self.pair,
                                         self.pair.run)
        lod_levels = {k: _lod_levels(program, k, pair.gen.textures) for k in self.exec_order}
        lod_levels = {k: v for k, v in lod_levels.items() if v}
        lod_start = ex.runs
        if lod_levels and state["todo"].any():
            target = _vec({b: pair.theirs(b) for b, _, _ in run.compared}, run.compared)
            _, w0 = self.trial({})
            dist0 = _distance(_vec(w0, run.compared), target)
            for lv in sorted({lv for v in lod_levels.values() for lv in v}):
                if not state["todo"].any() or ex.runs >= lod_start + LOD_RUNS:
                    break
                extra = {k: [(state["todo"].copy(), _undefined_lod_variant(lv))]
                         for k, v in lod_levels.items() if lv in v}
                d, w = self.trial(extra)
                self.keep(extra, d, "lod",
                          closer=_distance(_vec(w, run.compared), target) * 4 < dist0)

    def cancelled_sums(self) -> None:
        """``rounding`` where a sum cancels, from the open lanes' unchanged run, within
        CANCEL_RUNS.

        Rounding where a sum cancels: a - b of a == b is 0 in the executor and +-1 ulp of
        a in cgc's GLSL (another order of the same sum), and a decision on its sign flips
        (super-xbr's d_edge of a flat neighbourhood).  The sums that cancelled on an open
        lane (a recording run), each operand moved by 1-2 ulps: every such site at once,
        then one at a time; kept only on lanes a run reproduces entirely."""
        program, state, ex, pair = self.pair.program, self.state, self.ex, self.pair
        cancel_start = ex.runs
        if state["todo"].any():
            sites = _cancel_sites(program, pair.gen, pair.lanes, self.kept, state["todo"])
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
                    d, _ = self.trial(extra, fresh=state["todo"])
                    self.fresh_keep(extra, d, "rounding")

    def precision(self, extra_runs: int) -> None:
        """``precision`` (and ``rounding``, ``ill-conditioned``): every float result moved by
        at most REL relative, the moves solved for (:func:`oracle_solve._precision_pass`),
        within MAX_RUNS + PRECISION_RUNS and the ``extra_runs`` the tie, lod and cancelled-sum
        passes took with budgets of their own.  Fixes the measured built-ins' sites and cgc's
        outputs as a vector for the passes after it."""
        program, run = self.pair.program, self.pair.run
        self.builtins = {k: implementation_variant(self.evaluate) for k in self.exec_order
                         if program.instructions[k].op in BUILTINS and
                         _float_result(program, k)} if self.evaluate is not None else {}
        self.target = _vec({b: self.pair.theirs(b) for b, _, _ in run.compared}, run.compared)
        if self.budget(MAX_RUNS + PRECISION_RUNS + extra_runs):
            self._solve(limit=MAX_RUNS + PRECISION_RUNS + extra_runs)

    def _solve(self, limit: int) -> None:
        _precision_pass(self.pair.program, self.exec_order, self.state, self.trial, self.keep,
                        vec_of=self.vec_of, target=self.target, limit=limit, ex=self.ex,
                        builtins=self.builtins, fresh_keep=self.fresh_keep)

    def precision_again_unchanged(self) -> None:
        """The solve once more, within PRECISION_RUNS of its own, for the open lanes that kept
        replacements, from their unchanged run.

        The lanes the solve did not reproduce on top of replacements kept for them earlier
        (a step that lowered the count and led elsewhere: ntsc-3phase's MUL, water's RCP):
        the same solve once more from their unchanged run, with a budget of its own."""
        state = self.state
        stuck = state["todo"] & np.isin(np.arange(self.pair.lanes), list(self.lane_changes))
        if stuck.any():
            others = state["todo"] & ~stuck
            self.forget(stuck)
            for ln in np.flatnonzero(stuck):
                state["ill"].pop(int(ln), None)
            self.current = np.where(stuck, self.d_exe, self.current)
            state["todo"] = stuck.copy()
            self._solve(limit=self.ex.runs + PRECISION_RUNS)
            state["todo"] = state["todo"] | others

    def order(self) -> None:
        """``order``: the open lanes, from their unchanged run, with cgc's GLSL's rounding
        steps (:func:`oracle_counterfactual._order_candidates` within ORDER_RUNS, then its
        folded constants within CONSTANT_RUNS), then solved once more.

        Order: the lanes still open, from their unchanged run, with cgc's GLSL's rounding
        steps -- its quotients where the assembly multiplies by an RCP, its dot() summed in
        another order (oracle_order) -- then solved once more (borders/snow's hash of a
        quotient near 2^17, whose fract() moves by 1/64 per ulp).  Only lanes every pass
        above left open are touched, so no lane explained above changes; a lane this pass
        does not reproduce gets back what the passes above left it (its replacements, its
        ill-conditioned site)."""
        program, state, ex, kept = self.pair.program, self.state, self.ex, self.kept
        lanes, run = self.pair.lanes, self.pair.run
        groupings = [Quotients(program, lanes, run.divisors),
                     Quotients(program, lanes, writers=("DIV",))]
        constants = ConstantProducts(program, lanes)
        self.groupings, self.constants = groupings, constants
        dots = [k for k in self.exec_order if program.instructions[k].op in DOTS]
        if not (state["todo"].any() and (any(groupings) or dots)):
            return
        open_ = state["todo"].copy()
        before = ({k: list(v) for k, v in kept.items()}, dict(self.lane_changes),
                  dict(self.first_help), dict(state["ill"]), self.current.copy())
        self.forget(open_)
        for ln in np.flatnonzero(open_):
            state["ill"].pop(int(ln), None)
        self.current = np.where(open_, self.d_exe, self.current)
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
                for with_builtins in ((False, True) if self.builtins else (False,)):
                    if not state["todo"].any() or ex.runs >= order_start + limit:
                        break
                    # the folded constants on whole quads: cgc's GLSL folds them on every
                    # fragment, and a lane's derivatives read its neighbours'
                    # (loose-connection: 21 of its lanes agree only so)
                    todo_ = state["todo"].copy()
                    where = _quads(todo_, quad) if fresh else todo_
                    extra = extra_of(where)
                    if with_builtins:
                        for k, change in self.builtins.items():
                            extra.setdefault(k, []).append((where.copy(), change))
                    verdict = "order+implementation" if with_builtins else "order"
                    if not fresh:
                        d, _ = self.trial(extra)
                        self.keep(extra, d, verdict)
                        continue
                    d, _ = self.trial(extra, fresh=todo_)
                    won = todo_ & (d == 0)
                    won = _quads(won, quad) & ~won
                    self.fresh_keep(extra, d, verdict)
                    for k, v in extra.items():      # the reproduced lanes' neighbours
                        for m, ch in v:
                            if (m & won).any():
                                kept.setdefault(k, []).append((m & won, ch))
        if state["todo"].any() and any(len(v) > kept_before.get(k, 0)
                                       for k, v in kept.items()):
            self._solve(limit=ex.runs + PRECISION_RUNS)
        self._give_back(state["todo"] & open_, before)

    def _give_back(self, left: np.ndarray, before: tuple) -> None:
        """The lanes ``left`` that the ``order`` pass did not reproduce get back what the
        passes before it left them (``before``: kept, lane_changes, first_help, ill, current
        as they were)."""
        if not left.any():
            return
        kept = self.kept
        self.forget(left)
        for k, v in before[0].items():
            for m, ch in v:
                if (m & left).any():
                    kept.setdefault(k, []).append((m & left, ch))
        for ln in map(int, np.flatnonzero(left)):
            for was, now in zip(before[1:4], (self.lane_changes, self.first_help,
                                              self.state["ill"])):
                if ln in was:
                    now[ln] = was[ln]
                else:
                    now.pop(ln, None)
        self.current = np.where(left, before[4], self.current)

    # -- the verdicts

    def unchanged_outputs(self) -> dict:
        """The executor's outputs on the search's lanes with no replacement (what an
        unexplained lane reports)."""
        from .draw_run import run_executor
        pair = self.pair
        out = pair.outputs_of(run_executor(pair.program, pair.gen, pair.lanes))
        self.ex.runs += 1
        return out

    def confirm(self) -> np.ndarray:
        """The confirming run: exactly the kept replacements."""
        from .draw_run import run_executor
        pair = self.pair
        if not self.kept:
            return self.d_exe
        res = run_executor(pair.program, pair.gen, pair.lanes, hooks=Counterfactual(self.kept))
        self.ex.runs += 1
        return pair.differing(pair.outputs_of(res), getattr(res, "killed", None))

    def confirm_with_quads(self, bad_rows: np.ndarray) -> np.ndarray:
        """The confirming run's counts of differing components, after the fragment quads it
        takes apart are tried once more whole (:func:`oracle_counterfactual._repair_quads`):
        a replacement kept for one lane moves its quad neighbours' derivatives."""
        final = self.confirm()
        quad_lanes = 4 if self.pair.program.stage.value == "fragment" else 1
        if quad_lanes > 1 and self.constants:
            final = _repair_quads(final, bad_rows, quad_lanes, self.trial, self.forget,
                                  self.kept, self.lane_changes, self.first_help, self.state,
                                  self.ex, _constant_candidates(self.groupings, self.constants),
                                  self.builtins, self.confirm)
        return final


def _compiled(program, k):
    from ..exec.machine import compile_program
    code, _ = compile_program(program)
    return code[k]
