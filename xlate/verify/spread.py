"""How far a value of the driver's own compilation may lie from the executor's: GL's precision
rule propagated through the program (native backend only; verdict ``propagated``).

GL 2.1 §2.1.1 asks of each floating-point operation only "about 1 part in 10^5", and the ARB
program specs (ARB_vertex_program issue 22, ARB_fragment_program issue 3) let a compiler order
and combine the operations of a program as it likes.  :func:`permits_native.rule_gl_precision`
applies the bound to one instruction, from its operands.  But a driver that folds two
instructions into one expression (Mesa reassociates inexact ARB arithmetic: ``(a + b) + c`` as
``a + (b + c)``, a constant product chain folded) computes the *second* instruction from an
operand that differs from the first instruction's value within *its* bound -- and where the
first one cancelled (``1.0002 - 1.0001``), that is a large relative change, which the second
instruction's own bound does not cover.  Measured: cg ``bicubic-normal.fp`` (``MAD``, ``ADD``
then ``MUL R2.y, R1.z, c[3].z`` 1.4e-4 apart relative, every operand within its own 1e-5), and
crystalspace ``splatting_amb_l.vp`` (an ``EX2`` of a folded product, 20 ulps).

So each value the replay computes carries a *spread*: an absolute bound, per lane and
component, of how far a correct compilation's value of it may be from the replay's --

    spread(result) = 1e-5 * magnitude(own terms)                   (GL §2.1.1, this operation)
                   + sum over operands i of  max |f(.., o_i +- spread(o_i), ..) - f(..)|

-- the operation's own bound (:func:`permits_native._magnitude`, zero for exact operations:
moves, selects, compares, conversions) plus each operand's spread carried through the
instruction by recomputing it at the ends of the operand's interval (the executor's own
instruction, so a floor, a compare or a select that the interval straddles carries its jump:
``SGE`` of operands closer than their spread is either 0 or 1).  For dot products and other
opcodes that mix components each operand component is moved alone and the effects are added.
Temporaries carry spreads; parameters, inputs and literals are exact (zero).  A non-finite
spread counts as zero (no bound is claimed), and so does an adopted value's departure:
the spread of an adopted value is its spread plus its distance from the executor's value.

The spread is one-sided where the operation is (``SPREAD`` arrays are (n, 4, 2): how far below
and how far above the replay's value a correct compilation's value may lie).  That matters at a
pole: ``RSQ`` of an operand whose interval reaches zero is bounded below (by ``RSQ`` of the
interval's far end) and unbounded above -- and the ``RCP`` that reads it (cg's ``sqrt`` idiom,
``RSQ`` then ``RCP``: crt-geom's ``sqrt(1 - |x|)`` near 0) is bounded again, between 0 and the
square root of the far end.  So an operand interval that holds a pole is recomputed at +0 and
-0 too: the infinities come out on the side they belong to, and a side that is infinite stays
infinite through the instructions that read it (``RCP`` of ``[a, inf)`` is ``(0, 1/a]``).  A
result unbounded on *both* sides (``RCP`` of an interval across zero) claims nothing.

A departure is then ``propagated`` when both values are finite and the driver's lies within
``[executor - below, executor + above]`` -- "everything downstream is explained by propagation
of that bound" (issue 17 §1).  The translation path never uses it: a translation is held to its
own GLSL's exactness.
"""
from __future__ import annotations

import numpy as np

from ..ir.model import RegKind
from ..ir.ops import COMPONENTWISE, OPCODES
from .gl_precision import APPROXIMATE, ARITHMETIC, GL_RELATIVE, magnitude

F32 = np.float32
U32 = np.uint32
#: the last axis of a spread: how far below, how far above
BELOW, ABOVE = 0, 1


def no_spread(n: int) -> np.ndarray:
    """(n, 4, 2) zeros: no departure claimed."""
    return np.zeros((n, 4, 2))


def claimed(spread: np.ndarray) -> np.ndarray:
    """(n, 4, 2) -> the spread with what bounds nothing removed: a NaN side, or both sides
    infinite (anything at all), claims no spread."""
    s = np.array(spread, np.float64)
    void = np.isnan(s).any(axis=-1) | np.isinf(s).all(axis=-1)
    s[void] = 0.0
    return s


def within(exe: np.ndarray, imp: np.ndarray, spread: np.ndarray) -> np.ndarray:
    """(n, 4): the driver's value ``imp`` lies in the interval ``spread`` claims around the
    executor's ``exe`` (float values), both finite and some spread claimed."""
    with np.errstate(all="ignore"):
        return (imp >= exe - spread[..., BELOW]) & (imp <= exe + spread[..., ABOVE]) & \
            np.isfinite(exe) & np.isfinite(imp) & (spread > 0).any(axis=-1)


def reaches(value: np.ndarray, spread: np.ndarray, point: float = 0.0) -> np.ndarray:
    """(n, 4): ``point`` lies in the interval ``spread`` claims around ``value``, and some
    spread is claimed (a decision at ``point`` may go either way)."""
    with np.errstate(all="ignore"):
        return (value - spread[..., BELOW] <= point) & (value + spread[..., ABOVE] >= point) & \
            (spread > 0).any(axis=-1)


def after_adoption(spread: np.ndarray, exe: np.ndarray, adopted: np.ndarray) -> np.ndarray:
    """The spread around an adopted value: another compilation may lie anywhere near the
    executor's value or near the adopted one -- the interval around the executor's, and the
    same interval shifted to the adopted value (the hull, relative to the adopted value)."""
    with np.errstate(all="ignore"):
        gap = adopted - exe
        gap = np.where(np.isfinite(gap), gap, 0.0)
    out = np.array(spread, np.float64)
    out[..., BELOW] += np.maximum(gap, 0.0)
    out[..., ABOVE] += np.maximum(-gap, 0.0)
    return out


def _recompute(x, operands, n: int) -> np.ndarray:
    """The executor's instruction on other operands: (n, 4) result words, saturation and
    precision applied as the executor applies them (as ``permits.Site.recompute``)."""
    from ..exec.operands import _PRECISION, saturate
    res = x.fn(x, *operands)
    if res.ndim == 1:
        res = res[:, None]
    if x.sat is not None:
        res = saturate(res, *x.sat)
    words = np.ascontiguousarray(np.broadcast_to(res, (n, 4))).view(U32)
    conv = _PRECISION.get(x.inst.precision)
    if conv is not None:
        words = np.ascontiguousarray(conv(words.view(F32)), F32).view(U32)
    return words


def _as_lanes(o, n: int) -> np.ndarray:
    """An operand as (n, 4) float32 (scalars and uniform rows broadcast)."""
    a = np.asarray(o)
    if a.ndim == 1:
        a = a[:, None] if a.shape[0] == n and n > 1 else a[None, :]
    return np.array(np.broadcast_to(a, (n, a.shape[1]) if a.shape[1] != 1 else (n, 1)))


class Spreads:
    """Per temporary register (element 0: temporaries are single vec4s in ARB): the (lanes, 4, 2)
    float64 spread (below, above) of the value it holds."""

    def __init__(self, program, lanes: int):
        self.program = program
        self.lanes = lanes
        self.of: dict[str, np.ndarray] = {}

    def operand(self, src, lanes: np.ndarray) -> np.ndarray:
        """(n, 4, 2) spread of an operand as the instruction reads it: swizzled; negation swaps
        below and above; ``|x|`` moves no further than x does, either way (it may fold an
        interval across zero onto one side, so it takes the wider side for both)."""
        reg = self.program.registers.get(src.reg)
        held = self.of.get(src.reg)
        n = len(lanes)
        if held is None or reg is None or reg.kind != RegKind.TEMP or src.index is not None:
            return no_spread(n)
        rows = held[lanes]
        out = no_spread(n)
        for c, s in enumerate(src.swizzle):
            if s < 4:
                out[:, c] = rows[:, s]
        if src.abs:
            wide = out.max(axis=-1)
            out = claimed(np.stack([wide, wide], axis=-1))
        flip = np.array([src.neg != neg for neg in src.comp_neg])
        out[:, flip] = out[:, flip][..., ::-1]
        return out

    def write(self, ins, lanes: np.ndarray, spread: np.ndarray, written: np.ndarray) -> None:
        """Record the spread ((n, 4, 2)) of the components ``written`` ((n, 4) bool) of the
        destination."""
        reg = self.program.registers.get(ins.dst.reg)
        if reg is None or reg.kind != RegKind.TEMP or ins.dst.index is not None:
            return
        held = self.of.setdefault(ins.dst.reg, np.zeros((self.lanes, 4, 2)))
        held[lanes] = np.where(written[..., None], claimed(spread), held[lanes])


#: opcodes whose result moves continuously with their operands: their spread is carried by
#: recomputation at the ends of each operand's interval
CONTINUOUS = frozenset("ABS ADD SUB MUL MAD FMA DP2 DP2A DP3 DP4 DPH DST EX2 LG2 LRP MAX MIN "
                       "MOV SWZ POW RCP RSQ SIN COS XPD X2D NRM RFL DIV".split())
#: opcodes with a pole or a boundary of their domain at an operand of zero
POLES = frozenset("RCP RSQ LG2 POW DIV".split())
#: selects: the spread of the operands they may pass on (the condition's decision is judged
#: apart: :func:`permits_native.rule_propagated` lets a condition within its spread of the
#: boundary choose either); the operands are the opcode table's.  MIN/MAX are CONTINUOUS
#: (their result moves with both operands), so only CMP is carried as a select here
SELECTS = {"CMP": OPCODES["CMP"].selected_operands}
# FRC has its own rule (:func:`_fraction_spread`).  Everything else -- compares, floor/round,
# LIT, EXP/LOG, lookups, integer work -- has a
# discrete decision inside: an interval straddling it would be carried on as a range of values
# no compilation produces (a select of 0 or 1e6 is not "anything between"), so those results
# carry no spread (none is claimed: stricter, never looser); their decisions are judged by the
# compare rules, and what follows from an adopted decision is held to it exactly.


def result_spread(x, ops, lanes: np.ndarray, spreads: Spreads, exe: np.ndarray) -> np.ndarray:
    """(n, 4, 2) spread of instruction ``x``'s result on ``lanes`` (module docstring).  ``ops``:
    the operands the executor read; ``exe``: its result words."""
    ins = x.inst
    n = len(lanes)
    out = no_spread(n)
    if ins.op == "FRC" and len(ops) == 1 and len(ins.srcs) == 1:
        return _fraction_spread(ops[0], spreads.operand(ins.srcs[0], lanes), n)
    if ins.op not in CONTINUOUS and ins.op not in SELECTS:
        return out
    with np.errstate(all="ignore"):
        if ins.op in ARITHMETIC or ins.op in APPROXIMATE:
            fops = [np.broadcast_to(np.asarray(o, F32).astype(np.float64).reshape(-1, 4)
                                    if np.shape(o)[-1] == 4 else
                                    np.asarray(o, F32).astype(np.float64).reshape(-1, 1), (n, 4))
                    for o in ops]
            m = magnitude(ins.op, exe, fops)
            if m is not None:
                out += (GL_RELATIVE * m)[..., None]
        if len(ops) != len(ins.srcs):
            return claimed(np.where(np.isfinite(out), out, 0.0))
        base = np.ascontiguousarray(exe, U32).view(F32).astype(np.float64)
        for i, src in enumerate(ins.srcs):
            if ins.op in SELECTS and i not in SELECTS[ins.op]:
                continue
            u = spreads.operand(src, lanes)
            if not u.any() or np.asarray(ops[i]).dtype != F32:
                continue
            o = _as_lanes(ops[i], n)
            if o.shape[1] == 1:
                o = np.repeat(o, 4, axis=1)
            o = o.astype(np.float64)
            groups = [range(4)] if ins.op in COMPONENTWISE else [[c] for c in range(4)]
            for comps in groups:
                comps = [c for c in comps if u[:, c].any()]
                if not comps:
                    continue
                lowest = np.zeros((n, 4))
                highest = np.zeros((n, 4))
                read_sign = 0 if not src.abs else (-1 if src.neg else 1)
                for moved in _trial_operands(ins.op, o, u, comps, read_sign):
                    trial = list(ops)
                    trial[i] = moved.astype(F32)
                    got = _recompute(x, trial, n).view(F32).astype(np.float64)
                    delta = got - base
                    lowest = np.minimum(lowest, np.where(np.isnan(delta), -np.inf, delta))
                    highest = np.maximum(highest, np.where(np.isnan(delta), np.inf, delta))
                # moving one operand at a time misses what moving several together does
                # (MIN of two tied operands moves up only when both do): a finite effect is
                # taken both ways; only an infinite one (a pole reached on one side) stays on
                # its side
                either = np.maximum(-lowest, highest)
                finite = np.isfinite(either)
                out[..., BELOW] += np.where(finite, either, -lowest)
                out[..., ABOVE] += np.where(finite, either, highest)
        out[~np.isfinite(base)] = 0.0
    return claimed(out)


def _trial_operands(op: str, o: np.ndarray, u: np.ndarray, comps: list, read_sign: int = 0):
    """The operand values an instruction is recomputed at: the ends of the interval of the
    components ``comps`` (moved together), and -- for an opcode with a pole at zero, where the
    interval holds zero inside -- +0 and -0 in place of those components (the pole's two
    infinities, each on the side it lies).  ``read_sign``: +1 for an operand read as ``|x|``
    (-1 for ``-|x|``), whose values never cross zero: its interval ends there (ARB ``RSQ``
    reads ``|x|``, so ``RSQ`` of a value within its spread of zero reaches ``+inf`` only)."""
    for side, sign in ((BELOW, -1.0), (ABOVE, 1.0)):
        moved = o.copy()
        moved[:, comps] += sign * u[:, comps, side]
        if read_sign > 0:
            moved = np.maximum(moved, 0.0)
        elif read_sign < 0:
            moved = np.minimum(moved, -0.0)
        yield moved
    if op in POLES:
        lo = o[:, comps] - u[:, comps, BELOW]
        hi = o[:, comps] + u[:, comps, ABOVE]
        across = (lo < 0) & (hi > 0)
        if across.any() and read_sign == 0:        # |x| ends at zero, reached above
            for zero in (0.0, -0.0):
                moved = o.copy()
                moved[:, comps] = np.where(across, zero, o[:, comps])
                yield moved


def _fraction_spread(operand, u: np.ndarray, n: int) -> np.ndarray:
    """FRC's spread: its operand's where the operand's interval holds no integer (FRC moves
    with it there); 1 -- every value FRC can give, [0, 1) -- where the interval is a whole unit
    long or more (a hash such as ``FRC(SIN(x) * 43758.5)``: a last-ulp difference of the SIN
    moves the product by more than 1, and any fraction is a correct result); none claimed where
    a shorter interval straddles an integer (the outcomes are then near 0 or near 1, not
    between: a discrete jump, judged by nothing here)."""
    x = _as_lanes(operand, n).astype(np.float64)
    if x.shape[1] == 1:
        x = np.repeat(x, 4, axis=1)
    with np.errstate(all="ignore"):
        lo, hi = x - u[..., BELOW], x + u[..., ABOVE]
        whole = hi - lo >= 1.0
        straddles = np.floor(lo) != np.floor(hi)
        out = np.where(whole[..., None], 1.0, np.where(straddles[..., None], 0.0, u))
    return claimed(np.where(np.isfinite(out) & np.isfinite(x)[..., None], out, 0.0))


def carries_adoption(op: str) -> bool:
    """Whether an adopted value of ``op`` widens its spread by its distance from the
    executor's (continuous results: another compilation may lie anywhere near either); a
    discrete result adopted is one of the outcomes, held to exactly."""
    return op in CONTINUOUS or op in SELECTS
