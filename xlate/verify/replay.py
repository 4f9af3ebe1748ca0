"""Show why the implementation's outputs differ from the executor's, or find the defect.

When a translated program's outputs differ from the executor's (compared bit for bit,
:func:`compare.compare_output` with ``strict``), the verifier does not guess at a cause.  It

1. probes the implementation: the value every writing instruction left in its destination
   (``trace._probe_events``: the instrumented program, translated and run like the original;
   a value per lane, of the instruction's last execution, plus the number of executions for
   instructions that can run more than once -- and, when needed, the value of each of the
   first :data:`PASS_LIMIT` executions, or :data:`PASS_LIMIT_WIDE` where a lane departs
   after a pass beyond those);
2. *replays* the executor on the same inputs with a result hook (``xlate.exec``'s ``hooks``):
   at each execution of a probed instruction it compares its own result with the
   implementation's.  Where they differ it asks :func:`permits.permitted` whether the
   specifications leave that difference to the implementation, for the operands the executor
   holds at that point.  A permitted difference is **adopted** (the executor continues with the
   implementation's value and records the departure with its verdict); any other one is an
   **unexplained departure**: the lane is a defect of the translation (or of the executor),
   and the instruction, lane, components, operands and both results are reported;
3. compares the replayed executor's outputs with the implementation's original outputs, bit for
   bit.  The program passes only if they are identical on every lane and component: the
   executor, taking the implementation's value at exactly the recorded places -- each one a
   freedom the specifications grant, shown by its rule's recomputation -- reproduces the
   implementation.  A difference left on a lane with no recorded departure is reported as
   ``interface`` (every probed value agreed, the outputs do not).

The final comparison is always with the implementation's unmodified translation, never with the
probed compilations, so probes that compile differently can cost an explanation but never
invent one.

A rule that permits *any* value (an operation on NaN/Inf, an undefined result, derivatives in
non-uniform flow) frees that instruction's result only: the executor adopts the probed value
and every later instruction is held to it exactly, since no spec passage leaves the
computations downstream of such a value open (GLSL 4.50 §4.7.1 leaves the result of the
operation on a special value unspecified, not the operations that read it).  When the main
compilation chose another value at such an instruction than the probed one, the outputs stay
different and the verdict is ``mismatch``: a freedom can cost a pass, never buy one.  The one
exception is a NaN's bits (:mod:`nan_choices`): which NaN an operation returns follows the
code generated around it, so a reader probed in another compilation may have read another of
the few NaNs the operation may return; the reader is recomputed with those, and held exactly
to one of them (verdict ``nanchoice``).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..ir.model import DataType, Program, Stage
from ..ir.ops import RAW_RESULT_OPS
from . import permits
from .nan_choices import DOUBLE_RESULTS, NanChoices
from .compare import diff_lanes, flush as cmp_flush, same_words
# (the probing half of the replay; its names are re-exported for the modules that use them)
from .probes import (ImplValues, _probe_passes, consistent_values, probe_conditions,  # noqa: F401
                     probe_values, regions)

#: executions per instruction whose values are probed one by one (round two)
PASS_LIMIT = 8
#: ... and, where a departure remains on a lane that read a later, unprobed pass, up to this
#: many (round three: generated NV4 fragment seed 811, inputs seed 800 -- a MIN at pass 4 of a
#: REP 4 read the SIN of pass 9 of the REP 3 inside it, 1 ulp off within its tolerance)
PASS_LIMIT_WIDE = 32


@dataclass
class Departure:
    index: int
    lane: int
    passno: int
    components: tuple
    verdict: str                  # a rule of permits.RULES, or "" (unexplained)
    executor: list
    implementation: list
    operands: list

    def to_json(self, program: Program) -> dict:
        from .trace import _ins_info
        return {"instruction": _ins_info(program, self.index), "lane": self.lane,
                "pass": self.passno, "components": "".join("xyzw"[c] for c in self.components),
                "verdict": self.verdict or "divergence",
                "executor": self.executor, "implementation": self.implementation,
                "operands": self.operands}


def _words(a) -> np.ndarray:
    """An array of results as uint32 words (float32 results viewed, not converted)."""
    a = np.ascontiguousarray(a)
    return a.view(np.uint32) if a.dtype.itemsize == 4 else a.astype(np.uint32)


def _fmt(words) -> list[str]:
    w = np.ascontiguousarray(np.asarray(words, np.uint32).reshape(-1))
    f = w.view(np.float32)
    return [f"{float(x)!r}/0x{int(y):08x}" for x, y in zip(f, w)]


class ReplayHook:
    """The executor's result hook: adopts permitted differences, records the rest."""

    def __init__(self, program: Program, values: dict[int, ImplValues], lanes: int,
                 backend: str | None, conds: dict[int, ImplValues] | None = None,
                 final: bool = True, impl_killed: np.ndarray | None = None):
        self.program = program
        self.values = values
        self.conds = conds or {}
        kils = {k for k, ins in enumerate(program.instructions) if ins.op == "KIL"}
        self.instructions = sorted(set(values) | set(self.conds) | kils)
        # the driver's own compilation (native): every value carries its spread, GL's
        # precision propagated (:mod:`spread`), so the hook sees every writing instruction
        self.spreads = None
        if backend == "native":
            from .spread import Spreads
            self.spreads = Spreads(program, lanes)
            self.instructions = sorted(set(self.instructions) | {
                k for k, ins in enumerate(program.instructions) if ins.dst is not None})
        # flags a CC update may have set instead of the executor's: those of the flushed value
        # where the value written was denormal (GP4 issue 18: denormals may be flushed)
        self.alt_flags = np.zeros((2, lanes, 4), np.uint8)
        self.has_alt = np.zeros((2, lanes, 4), bool)
        self.backend = backend
        self.passes = {k: np.zeros(lanes, np.int64) for k in self.instructions}
        self.bad = np.zeros(lanes, bool)            # lanes with an unexplained departure
        # lanes where a probed value is no agreeing compilation's (probes.consistent_values)
        self.inconsistent: np.ndarray | None = None
        self.unchecked = np.zeros(lanes, bool)      # lanes with an execution whose value is unknown
        # lanes that took a repeated instruction's value from its last-value probe
        self.read_last = np.zeros(lanes, bool)
        self.unexplained: list[Departure] = []
        # departures on lanes where an earlier execution went unchecked (a loop pass whose
        # value was not probed): judged again once every pass is probed, unless ``final``
        self.final = final
        self.tentative: list[Departure] = []
        self.impl_killed = impl_killed
        self.adopted: dict[tuple[int, str], int] = {}     # (instruction, verdict) -> components
        self.examples: list[Departure] = []
        self.free_lanes = np.zeros(lanes, bool)     # lanes where a permitted result was adopted
        # lanes where an instruction had a choice that is any value's (a NaN, infinite or
        # denormal float operand; the native backend's undefined temporaries) whether or not
        # the probe compilation took it (:func:`recompiled_lanes`)
        self.free_sites = np.zeros(lanes, bool)
        # the NaNs each operation may have chosen instead of the one the replay holds: a
        # reader probed in another compilation than the NaN's producer may have read another
        self.nans = NanChoices(lanes)
        # the denormals a flush adopted from one probe compilation (verdict ftz): a reader
        # probed in another compilation, which kept the denormal, may have read it
        # (generated NV4 vertex seed 2506, inputs seed 2500: ABS.F.SAT in a loop, its first
        # pass flushed in the pass's own probe compilation, the second pass's compilation
        # reading the denormal on)
        self.flushes = NanChoices(lanes)
        self._flushed = None

    def _impl(self, k: int, lanes: np.ndarray, p: np.ndarray, table=None):
        iv = (self.values if table is None else table)[k]
        n = len(lanes)
        imp = np.zeros((n, 4), np.uint32)
        known = np.zeros(n, bool)
        if iv.count is None:
            known[:] = p == 1
            imp[:] = iv.last[lanes]
        else:
            # a pass probed on its own (``nth``: a compilation that records that pass only)
            # before the last value (a compilation that records every pass, the last one
            # kept): llvmpipe ran the top of a loop once more on lanes that had left it by a
            # later BRK in one probe compilation, and not in the others (generated TGSI vertex
            # seed 711, inputs seed 700) -- its last value was another pass's
            for q, words in iv.nth.items():
                m = p == q
                known |= m
                imp[m] = words[lanes[m]]
            last = (p == iv.count[lanes]) & ~known
            # the executor runs the instruction more often than the implementation did: the
            # control flow has parted (found at the condition that decided it, or here)
            ahead = p > iv.count[lanes]
            # (geometry probes are read at the last EMIT: an instruction after it shows no
            # count there, so the count proves nothing -- the outputs decide)
            if self.program.stage != Stage.GEOMETRY:
                for lane in lanes[ahead & ~self.bad[lanes]]:
                    self._flow_parted(k, int(lane), int(p[lanes == lane][0]))
            known |= last
            imp[last] = iv.last[lanes[last]]
            # a departure there is judged again with the pass probed on its own (round two)
            self.read_last[lanes[last]] = True
        return known, imp

    def __call__(self, x, st, idx, ops, bits, cmask):
        k = x.index
        sel = st.all_lanes if idx is None else np.asarray(idx)
        lanes = st.base + sel
        if x.inst.op == "READHELPER":
            # the values replayed are the probe programs', which have no DEMOTE
            # (trace.without_kills): there no lane is a helper, and READ_HELPER is 0 on the
            # lanes the program's DEMOTE made helpers too -- whose outputs, probes included,
            # the program discards (generated TGSI fragment seed 1307, inputs seed 1300)
            bits = np.zeros_like(np.broadcast_to(bits, (len(sel), 4)))
        n = len(lanes)
        p = self.passes[k][lanes] + 1
        self.passes[k][lanes] = p
        if cmask is not None and k in self.conds:
            cmask = self._agree_on_test(x, st, sel, lanes, p, x.inst.dst.cond, cmask)
        spread = None
        if self.spreads is not None and x.inst.dst is not None:
            from .spread import result_spread
            spread = result_spread(x, ops, lanes, self.spreads, np.broadcast_to(bits, (n, 4)))
        exe = np.broadcast_to(bits, (n, 4))
        written = np.broadcast_to(np.array(x.inst.dst.mask, bool), (n, 4)) \
            if x.inst.dst is not None else np.zeros((n, 4), bool)
        if cmask is not None:
            written = written & np.broadcast_to(cmask, (n, 4))
        if k not in self.values:
            self.nans.wrote(x, ops, lanes, exe, written)
            self.flushes.wrote_flushed(x, lanes, exe, exe, False, written)
            if spread is not None:
                self._write_spread(x, lanes, spread, cmask)
            return bits, cmask
        known, imp = self._impl(k, lanes, p)
        live = ~self.bad[lanes]
        self.unchecked[lanes[~known & live]] = True
        known &= live
        if known.any():
            self._note_free_sites(x, ops, lanes, np.flatnonzero(known))
        out = exe
        self._flushed = None
        if known.any():
            # results the executor found undefined on some lanes (exec/subgroup.py)
            self._undefined = getattr(st, "undefined_lanes", {}).get(k)
            out = self._adopt(x, ops, lanes, p, exe, imp, written, known, spread)
        self.nans.wrote(x, ops, lanes, out, written)
        self.flushes.wrote_flushed(x, lanes, out, exe,
                                   False if self._flushed is None else self._flushed, written)
        if spread is not None:
            from .spread import carries_adoption
            # an adopted value lies its departure further from the executor's
            if not carries_adoption(x.inst.op):
                self._write_spread(x, lanes, spread, cmask)
                return out, cmask
            from .spread import after_adoption
            self._write_spread(x, lanes, after_adoption(
                spread, np.ascontiguousarray(exe, np.uint32).view(np.float32).astype(np.float64),
                np.ascontiguousarray(out, np.uint32).view(np.float32).astype(np.float64)),
                cmask)
        if x.cc_reg is not None and x.rt == DataType.FLOAT:
            self._note_alternatives(x.cc_reg, lanes, out, written)
        return out, cmask

    def _write_spread(self, x, lanes, spread, cmask) -> None:
        written = np.broadcast_to(np.array(x.inst.dst.mask, bool), spread.shape[:2])
        if cmask is not None:
            written = written & np.broadcast_to(cmask, spread.shape[:2])
        self.spreads.write(x.inst, lanes, spread, written)

    def _adopt(self, x, ops, lanes, p, exe, imp, written, known, spread=None):
        from ..exec.operands import _PRECISION
        conv = _PRECISION.get(x.inst.precision)
        # the precision step the writer applies (FP16/X: a conversion of float values)
        as_written = exe if conv is None else \
            conv(np.ascontiguousarray(exe, np.uint32).view(np.float32))
        as_written = _words(as_written)
        # two NaNs are the same float whatever their bits (compare.same_words), but the words
        # of an integer or double result (a double's NaN has a float NaN's bits in its high
        # word) are compared exactly: a later instruction may read those bits
        # (tests/test_tgsi_doubles.py: the sign of DRSQ's NaN, read by I2F); so are a packed
        # word's (PK2H: a float NaN pattern whose low half is another 16-bit value)
        same = same_words if x.rt == DataType.FLOAT and x.inst.op not in DOUBLE_RESULTS \
            and x.inst.op not in RAW_RESULT_OPS else np.equal
        differ = ~same(as_written, imp) & written & known[:, None]
        if not differ.any():
            return exe
        rows = np.flatnonzero(differ.any(axis=1))
        site = permits.Site(x, ops, rows, np.ascontiguousarray(as_written[rows]), imp[rows],
                            self.backend)
        site.written = written[rows]
        if self.inconsistent is not None:
            site.inconsistent = self.inconsistent[lanes][rows]
        undefined = getattr(self, "_undefined", None)
        if undefined is not None and len(undefined) == len(exe):
            site.undefined_rows = np.asarray(undefined)[rows]
        if spread is not None:
            site.spread = spread[rows]
            site.operand_spreads = [self.spreads.operand(src, lanes[rows])
                                    for src in x.inst.srcs]
        verdicts = permits.permitted(site, differ[rows])
        self._nan_choices(x, ops, lanes, rows, site, verdicts, differ[rows], written[rows], same)
        self._nan_choices(x, ops, lanes, rows, site, verdicts, differ[rows], written[rows], same,
                          self.flushes, "ftz")
        out = np.array(exe, np.uint32)
        self._flushed = np.zeros(out.shape, bool)
        for r_i, r in enumerate(rows):
            comps = tuple(int(c) for c in np.flatnonzero(differ[r]))
            lane = int(lanes[r])
            bad = tuple(c for c in comps if not verdicts[r_i, c])
            if bad:
                self._unexplained(lane, self._departure(x, site, r_i, lane, int(p[r]), bad, ""))
                continue
            self.free_lanes[lane] = True
            for c in comps:
                out[r, c] = imp[r, c]
                self._flushed[r, c] = verdicts[r_i, c] == "ftz"
                key = (x.index, verdicts[r_i, c])
                if key not in self.adopted:
                    self.examples.append(self._departure(x, site, r_i, lane, int(p[r]), comps,
                                                         verdicts[r_i, c]))
                self.adopted[key] = self.adopted.get(key, 0) + 1
        return out

    def _nan_choices(self, x, ops, lanes, rows, site, verdicts, differ, written, same,
                     table=None, verdict: str = "nanchoice") -> None:
        """Verdict ``nanchoice`` (:mod:`nan_choices`) for the rows no rule explains where the
        instruction, recomputed with another NaN its operands' producers may have chosen,
        gives the implementation's value on every component it wrote.  With ``table`` the
        flushes (:attr:`flushes`) and ``verdict`` ``ftz``: recomputed with a denormal that
        an adopted flush replaced."""
        table = self.nans if table is None else table
        open_ = (differ & (verdicts == "")).any(axis=1)
        if not open_.any():
            return
        which = np.flatnonzero(open_)

        def site_of(trial, n):
            none = np.zeros((n, 4), np.uint32)
            return permits.Site(x, trial, np.arange(n), none, none, self.backend)
        found = table.explain(x, ops, lanes, rows[which], site.imp[which], written[which],
                              same, site_of)
        for r_i in which[found]:
            verdicts[r_i][differ[r_i]] = verdict

    def _note_free_sites(self, x, ops, lanes, rows) -> None:
        if x.inst.op in permits.MOVES or x.inst.op in permits.BIT_READS:
            return              # a NaN moved or unpacked stays what it is: no choice
        if self.backend == "native":
            from .permits_native import uninitialized_reads
            if uninitialized_reads(self.program).get(x.index) is not None:
                self.free_sites[lanes[rows]] = True
                return
        none = np.zeros((len(rows), 4), np.uint32)
        site = permits.Site(x, ops, rows, none, none, self.backend)
        for w in site.float_operands():
            special = (permits._nonfinite(w) | permits._denormal(w)).any(axis=1)
            self.free_sites[lanes[rows[special]]] = True

    def _note_alternatives(self, cc: int, lanes, words, written) -> None:
        from ..exec import cc as ccmod
        w = np.ascontiguousarray(words, np.uint32)
        den = permits._denormal(w) & written
        self.has_alt[cc][lanes] = np.where(written, den, self.has_alt[cc][lanes])
        if den.any():
            alt = ccmod.flags_float(cmp_flush(w).view(np.float32))
            self.alt_flags[cc][lanes] = np.where(den, alt, self.alt_flags[cc][lanes])

    def before_flow(self, x, st, sel) -> None:
        k = x.index
        sel = np.asarray(sel)
        lanes = st.base + sel
        p = self.passes[k][lanes] + 1
        self.passes[k][lanes] = p
        cond = x.inst.cond
        if cond is None or k not in self.conds:
            return
        from ..exec.operands import cond_mask
        exe = cond_mask(st, cond, None if len(sel) == st.lanes else sel)
        self._agree_on_test(x, st, sel, lanes, p, cond, exe)

    def _agree_on_test(self, x, st, sel, lanes, p, cond, exe_pass):
        """The implementation's outcome of a condition-code test against the executor's: where
        they part and the tested flags were set from a denormal value, the flags of the
        flushed value (GP4 issue 18) are adopted when they give the implementation's
        outcome; any other parting is an unexplained departure (verdict ``cc``)."""
        from ..exec import cc as ccmod
        known, imp_words = self._impl(x.index, lanes, p, self.conds)
        known &= ~self.bad[lanes]
        imp_pass = imp_words == 0x3F800000
        exe_pass = np.broadcast_to(exe_pass, imp_pass.shape)
        differ = (exe_pass != imp_pass).any(axis=1) & known
        if not differ.any():
            return exe_pass
        sw = list(cond.swizzle)
        out = np.array(exe_pass)
        for r in np.flatnonzero(differ):
            lane = int(lanes[r])
            loc = int(sel[r]) if len(sel) else lane - st.base
            flags = st.cc[cond.cc][loc].copy()
            alt = np.where(self.has_alt[cond.cc][lane], self.alt_flags[cond.cc][lane], flags)
            if self.has_alt[cond.cc][lane][sw].any() and \
                    np.array_equal(ccmod.test(cond.rule, alt[sw][None])[0], imp_pass[r]):
                st.cc[cond.cc][loc] = alt
                self.has_alt[cond.cc][lane] = False
                self.free_lanes[lane] = True
                out[r] = imp_pass[r]
                key = (x.index, "ftz")
                if key not in self.adopted:
                    self.examples.append(Departure(
                        x.index, lane, int(p[r]), tuple(range(4)), "ftz",
                        [str(b) for b in exe_pass[r]], [str(b) for b in imp_pass[r]],
                        [["the tested flags were set from a denormal value; the flags of the "
                          "flushed value give the implementation's outcome"]]))
                self.adopted[key] = self.adopted.get(key, 0) + 1
                continue
            dep = Departure(
                x.index, lane, int(p[r]), tuple(range(4)), "cc",
                ["pass" if b else "fail" for b in exe_pass[r]],
                ["pass" if b else "fail" for b in imp_pass[r]],
                [[f"CC{cond.cc} flags {[int(f) for f in flags]}"]])
            self._unexplained(lane, dep)
        return out

    def kill_decision(self, x, st, sel, kill, operand):
        """KIL of a float operand holding a denormal: the implementation may flush it
        (GP4 issue 18), which can turn "< 0" false.  Where the flushed decision differs from
        the executor's and agrees with whether the implementation kept the fragment in the
        end, the executor takes it (a killed fragment stops: the decision is needed now)."""
        if self.impl_killed is None or x.t != DataType.FLOAT:
            return kill
        a = np.ascontiguousarray(np.asarray(operand, np.float32))
        alt = (cmp_flush(a.view(np.uint32)).view(np.float32) < 0).any(axis=1)
        lanes = st.base + np.asarray(sel)
        alt = np.broadcast_to(alt, kill.shape)
        take = (alt != kill) & (alt == self.impl_killed[lanes]) & ~self.bad[lanes]
        if self.spreads is not None and x.inst.srcs:
            kill = self._kill_within_spread(x, lanes, kill, a, take)
            kill = self._kill_of_undefined(x, lanes, kill, a, take)
        if not take.any():
            return kill
        self._adopt_kill(x, lanes, take, "ftz", kill, a)
        return np.where(take, alt, kill)

    def _adopt_kill(self, x, lanes, rows, verdict: str, kill, operand) -> None:
        """Record the implementation's kill decision adopted on ``rows`` (a mask of ``lanes``)
        with ``verdict``; ``kill``: the executor's decisions; ``operand``: KIL's operand."""
        for r in np.flatnonzero(rows):
            self.free_lanes[int(lanes[r])] = True
            key = (x.index, verdict)
            if key not in self.adopted:
                row = operand[r] if operand.shape[0] > 1 else operand[0]
                self.examples.append(Departure(
                    x.index, int(lanes[r]), 1, tuple(range(4)), verdict,
                    ["kill" if kill[r] else "keep"], ["keep" if kill[r] else "kill"],
                    [_fmt(np.ascontiguousarray(row, np.float32).view(np.uint32))]))
            self.adopted[key] = self.adopted.get(key, 0) + 1

    def _kill_within_spread(self, x, lanes, kill, a, taken) -> np.ndarray:
        """Native: a KIL whose operand components lie within their spreads of zero
        (:mod:`spread`) decides either way -- the driver's decision (whether it kept the
        fragment in the end) is adopted there, verdict ``propagated``."""
        n = len(lanes)
        f = np.broadcast_to(a.reshape(a.shape[0], -1), (n, 4)).astype(np.float64) \
            if a.shape[0] > 1 else np.broadcast_to(a.reshape(1, -1), (n, 4)).astype(np.float64)
        from .spread import reaches
        open_ = reaches(f, self.spreads.operand(x.inst.srcs[0], lanes))
        can_keep = ((f >= 0) | open_).all(axis=1)
        can_kill = ((f < 0) | open_).any(axis=1)
        want = self.impl_killed[lanes]
        flip = (want != kill) & ~taken & ~self.bad[lanes] & np.where(want, can_kill, can_keep)
        self._adopt_kill(x, lanes, flip, "propagated", kill, a)
        return np.where(flip, want, kill)

    def _kill_of_undefined(self, x, lanes, kill, a, taken) -> np.ndarray:
        """Native: Mesa (llvmpipe, LLVM ``undef``) keeps a fragment whose KIL operand has a
        negative defined component when another component is undefined (a temporary never
        written) -- against ARB_fragment_program 3.11.6.4, whose test is an OR of the four
        ``< 0``: a driver defect, reduced to the strict xfail
        ``test_verify_native_probe.py::test_driver_kil_discards_with_undefined_components``.
        Where the operand reads an undefined component, the executor kills and the driver kept
        the fragment, the driver's keep is adopted, verdict ``implementation`` (a named
        defect, as :func:`permits.rule_implementation`)."""
        from .permits_native import uninitialized_reads
        if uninitialized_reads(self.program).get(x.index) is None:
            return kill
        flip = kill & ~self.impl_killed[lanes] & ~taken & ~self.bad[lanes]
        self._adopt_kill(x, lanes, flip, "implementation", kill, a)
        return np.where(flip, False, kill)

    def _unexplained(self, lane: int, dep: Departure) -> None:
        self.bad[lane] = True
        if not self.final and (self.unchecked[lane] or self.read_last[lane]):
            self.tentative.append(dep)
        else:
            self.unexplained.append(dep)

    def _flow_parted(self, k: int, lane: int, passno: int) -> None:
        self._unexplained(lane, Departure(
            k, lane, passno, (), "flow", [f"runs it {passno} times or more"],
            ["ran it fewer times"], []))

    def _departure(self, x, site, r_i, lane, passno, comps, verdict) -> Departure:
        ops = []
        for o in site.operands:
            a = np.asarray(o)
            row = a[r_i] if a.ndim and a.shape[0] > 1 else a.reshape(-1, a.shape[-1])[0]
            ops.append(_fmt(np.ascontiguousarray(row).view(np.uint32)))
        return Departure(x.index, lane, passno, comps, verdict, _fmt(site.exe[r_i]),
                         _fmt(site.imp[r_i]), ops)


@dataclass
class ReplayResult:
    """``diffs``: differences left between the replayed executor and the implementation;
    ``hook``: its records; ``res``: the replayed executor's result; ``recompiled``: lanes
    explained by :func:`recompiled_lanes`."""

    diffs: list
    hook: ReplayHook
    res: object
    rounds: int
    recompiled: list = field(default_factory=list)


def replay(program: Program, facts, reflection, gen, cap, runner, lanes: int,
           backend: str | None, probe=None, harness=None) -> ReplayResult:
    """Explain the differences between the executor and the capture ``cap`` by replay (see the
    module docstring); at most two rounds of probing.  ``probe``: how the implementation's
    values are probed -- by default the instrumented IR's translation
    (:func:`trace._probe_events`); the native backend passes one that instruments the original
    assembly text (:class:`native.TextProbe`), with the same signature.  ``harness``: how the
    executor runs and what is compared (:class:`draw_run.DrawHarness` by default: the draw's
    outputs; compute programs pass :class:`compute_replay.ComputeHarness`, whose outputs are
    the memory after the dispatch and whose probes are its own)."""
    from .draw_run import DrawHarness
    if harness is None:
        harness = DrawHarness(program, facts, reflection, runner)
    if probe is None:
        probe = harness.probe
    run_executor = harness.execute

    def compare_all(program, facts, reflection, res, cap, notes, strict=True):
        return harness.compare(res, cap), 0
    runs: list = []
    log: list = []
    values = probe_values(program, gen, runner, lanes, probe, runs=runs, log=log)
    conds = probe_conditions(program, gen, runner, lanes, values, probe, log=log)
    # round one: the last pass of each instruction; round two (when a lane that still differs
    # went through passes whose values were not probed, or departed where it read a repeated
    # instruction's last value): each of the first PASS_LIMIT passes, probed on its own
    repeated = any(v.count is not None for v in values.values())
    killed = getattr(cap, "killed", None)
    hook = ReplayHook(program, values, lanes, backend, conds, final=not repeated,
                      impl_killed=killed)
    res = run_executor(program, gen, lanes, hooks=hook)
    diffs, _ = compare_all(program, facts, reflection, res, cap, [], strict=True)
    rounds = 1
    if not hook.final:
        left = diff_lanes(diffs, lanes) - {d.lane for d in hook.unexplained}
        if not hook.tentative and not any(hook.unchecked[ln] for ln in left if ln < lanes):
            hook.unexplained += hook.tentative
            hook.tentative = []
        else:
            upto = min(PASS_LIMIT, max(int(v.count.max()) for v in values.values()
                                       if v.count is not None))
            _probe_passes(program, gen, runner, lanes, values, upto, probe, conds, log=log)
            hook = ReplayHook(program, values, lanes, backend, conds, final=True,
                              impl_killed=killed)
            res = run_executor(program, gen, lanes, hooks=hook)
            diffs, _ = compare_all(program, facts, reflection, res, cap, [], strict=True)
            rounds = 2
            most = max(int(v.count.max()) for v in values.values() if v.count is not None)
            if most > upto and any(hook.unchecked[d.lane] for d in hook.unexplained):
                _probe_passes(program, gen, runner, lanes, values, min(PASS_LIMIT_WIDE, most),
                              probe, conds, log=log)
                hook = ReplayHook(program, values, lanes, backend, conds, final=True,
                                  impl_killed=killed)
                res = run_executor(program, gen, lanes, hooks=hook)
                diffs, _ = compare_all(program, facts, reflection, res, cap, [], strict=True)
                rounds = 3
    if (diffs or hook.unexplained) and log:
        needed = diff_lanes(diffs, lanes) | {dep.lane for dep in hook.unexplained}
        inconsistent = np.zeros(lanes, bool)
        if consistent_values(program, gen, runner, lanes, cap, log, values, conds, needed,
                             inconsistent) or inconsistent.any():
            hook = ReplayHook(program, values, lanes, backend, conds, final=True,
                              impl_killed=killed)
            hook.inconsistent = inconsistent
            res = run_executor(program, gen, lanes, hooks=hook)
            diffs, _ = compare_all(program, facts, reflection, res, cap, [], strict=True)
            rounds += 1
    tied = recompiled_lanes(program, facts, reflection, diffs, hook, res, runs, values, conds,
                            lanes) if diffs and backend == "native" else []
    if tied:
        diffs = [d for d in diffs if d.lane not in set(tied)]
    main = getattr(probe, "main_finals", None)
    if diffs and backend == "native" and main:
        diffs = main_run_lanes(program, facts, reflection, gen, cap, lanes, values, conds,
                               hook, main, diffs)
    return ReplayResult(diffs, hook, res, rounds, tied)


def main_run_lanes(program: Program, facts, reflection, gen, cap, lanes: int, values, conds,
                   hook: ReplayHook, main: dict, diffs: list) -> list:
    """Native, one probe compilation: the lanes the first replay left different, replayed
    again with the outputs' writers read from the *main* run (``main``: instruction -> words)
    instead of the probe compilation's -- the two compilations round a chain differently where
    no freedom of ``recompiled_lanes`` is involved (1 ulp at cg ``image-adjustment.vp``'s last
    ADD).  Each writer's departure is then judged like any other (tolerance, propagated).  A
    lane is explained when this replay alone reproduces every output of it (fragment programs:
    every lane of its quad, whose derivatives it shares) with no unexplained departure; the
    returned differences are the others.  Its adoptions are added to ``hook``'s records."""
    from .output_compare import compare_all
    from .draw_run import run_executor
    table = dict(values)
    for k, words in main.items():
        if k in table:
            table[k] = ImplValues(np.asarray(words, np.uint32), table[k].count, table[k].nth)
    second = ReplayHook(program, table, lanes, "native", conds, final=True,
                        impl_killed=getattr(cap, "killed", None))
    res = run_executor(program, gen, lanes, hooks=second)
    left, _ = compare_all(program, facts, reflection, res, cap, [], strict=True)
    bad = {d.lane for d in left} | {int(ln) for ln in np.flatnonzero(second.bad)}
    group = 4 if program.stage == Stage.FRAGMENT else 1
    bad_groups = {ln // group for ln in bad}
    ok = {d.lane for d in diffs if d.lane < lanes and d.lane // group not in bad_groups}
    if not ok:
        return diffs
    for key, n in second.adopted.items():
        hook.adopted[key] = hook.adopted.get(key, 0) + n
    hook.examples += [e for e in second.examples if e.lane in ok][:8]
    return [d for d in diffs if d.lane not in ok]


def recompiled_lanes(program: Program, facts, reflection, diffs, hook: ReplayHook, res, runs,
                     values, conds, lanes: int) -> list[int]:
    """Lanes whose remaining difference is another compilation's choice at a freedom (verdict
    ``recompiled``).

    A freedom the replay adopted (a flushed denormal, the value of an operation on NaN, an
    uninitialized temporary's garbage) is the probe compilation's choice; the main compilation
    may choose otherwise -- llvmpipe does, measured: the same program flushes a denormal in one
    compilation and not in the other, and a NaN compare's result follows the code generated
    around it -- and then the outputs differ although each compilation is a valid run.  Such a
    lane is explained when the replay reproduces, bit for bit on every output, the complete run
    of the compilation it took its values from: the probe compilation is the program itself
    plus probe outputs, so every defect is in it and shows in the replay.

    Native backend only (:func:`replay` asks for no other): there the probe text is the
    original program's text with moves appended, so the program's own statements are the same
    in every compilation.  A translation's probe shaders are other GLSL (outputs staged,
    registers kept for the probes): a defect in code that only the main shader has -- an output
    written in place -- would show in the main run alone, and this rule would excuse it on a
    lane with a free site (found by tests/test_verify_replay.py: a NaN injected in the main
    shader's output statement passed).
    The lane must have a freedom -- one the replay adopted, or an instruction whose choice is
    any value's (a NaN, infinite or denormal float operand; an undefined temporary), which the
    main compilation may have taken where the probe compilation did not (llvmpipe's SGE of a
    NaN gives 1.0 in one compilation and 0.0 in another: mesa-lima sge2.fp) -- and no
    unexplained departure.

    When the values came from several compilations (probe batches), the replay must reproduce
    the complete run of every one of them on the lane: they then agree with each other there,
    and the replay is a valid run whichever compilation gave a value.  Only for programs
    without control flow (no execution counts, no probed condition tests) and without KIL or
    DEMOTE (the probe runs have none), and not geometry programs (whose probes are read at the
    last EMIT)."""
    from .trace import has_discards
    if not runs or conds or program.stage == Stage.GEOMETRY or \
            any(v.count is not None for v in values.values()) or has_discards(program):
        return []
    from .output_compare import compare_all
    differ: set[int] = set()
    for run in runs:
        other, _ = compare_all(program, facts, reflection, res, run, [], strict=True)
        differ |= {d.lane for d in other}
    return sorted({d.lane for d in diffs if d.lane < lanes and d.lane not in differ
                   and (hook.free_lanes[d.lane] or hook.free_sites[d.lane])
                   and not hook.bad[d.lane]})
