"""TGSI's double-precision and 64-bit integer opcodes (tgsi.rst "Double ISA", "64-bit Integer
ISA"; issue 20) on raw words.

A 4-word vector holds two doubles, ``xy`` and ``zw``, each low word first (tgsi.rst: "reinterpret
four-component vectors into two-component vectors with doubled precision").  Every IR opcode
here is typed ``.U``: its operands and its result are the words, so moves, masks and the GLSL
registers stay bit copies; the arithmetic happens in float64, IEEE round to nearest even.

Readings where tgsi.rst is silent (each mirrored by the GLSL helpers "doubles" and tested in
tests/test_tgsi_doubles.py):

* DMIN/DMAX: the non-NaN operand, as the float MIN/MAX (fmin/fmax); of two equal operands
  (+0 and -0) the first.
* DSSG of NaN: 0.0 (tgsi.rst's formula: neither > 0 nor < 0).
* D2I/D2U: truncation, clamped to the integer range, NaN 0 (as F2I/F2U, GP4 issue 41).
* DROUND: half to even (as ROUND).
* DMAD: two roundings (a * b, then + c); DFMA one (exact, then rounded; the GLSL is fma(),
  which llvmpipe fuses -- GLSL 4.50 8.3 does not promise it); DSEQ..DSGE write ~0/0 into x and z, 0 into y and w.
* DFRACEXP: the mantissa in [0.5, 1) (DFREXPM) and the exponent (DFREXPE, in x y for the first
  double and z w for the second, as tgsi_exec stores it); 0 gives (0, 0); INF and NaN give
  themselves and exponent 0; denormals their exact decomposition (the GLSL helper works on the
  bits, so an implementation that reads denormals as 0 computes it too).
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from .alu import alu

F64, U32, I32 = np.float64, np.uint32, np.int32


def _d(a) -> np.ndarray:
    """(k, 4) words -> (k, 2) float64: xy and zw, low word first."""
    w = np.ascontiguousarray(np.asarray(a).view(U32)).astype(np.uint64)
    bits = w[:, 0::2] | (w[:, 1::2] << np.uint64(32))
    return bits.view(F64)


def _w(d) -> np.ndarray:
    """(k, 2) float64 -> (k, 4) words."""
    bits = np.ascontiguousarray(np.asarray(d, F64)).view(np.uint64)
    out = np.empty((bits.shape[0], 4), U32)
    out[:, 0::2] = (bits & np.uint64(0xFFFFFFFF)).astype(U32)
    out[:, 1::2] = (bits >> np.uint64(32)).astype(U32)
    return out


def _binary(fn):
    def op(x, a, b):
        with np.errstate(all="ignore"):
            return _w(fn(_d(a), _d(b)))
    return op


def _unary(fn):
    def op(x, a):
        with np.errstate(all="ignore"):
            return _w(fn(_d(a)))
    return op


alu("DADD")(_binary(np.add))
alu("DMUL")(_binary(np.multiply))
alu("DDIV")(_binary(np.divide))
# the non-NaN operand; of equal operands (+0 and -0) the first
alu("DMIN")(_binary(lambda a, b: np.where((np.isnan(b) | (a <= b)) & ~np.isnan(a), a, b)))
alu("DMAX")(_binary(lambda a, b: np.where((np.isnan(b) | (a >= b)) & ~np.isnan(a), a, b)))
alu("DFRAC")(_unary(lambda a: a - np.floor(a)))
alu("DTRUNC")(_unary(np.trunc))
alu("DCEIL")(_unary(np.ceil))
alu("DFLR")(_unary(np.floor))
alu("DROUND")(_unary(np.rint))
alu("DSSG")(_unary(lambda a: np.where(a > 0, 1.0, np.where(a < 0, -1.0, 0.0))))
alu("DRCP")(_unary(lambda a: 1.0 / a))
alu("DSQRT")(_unary(np.sqrt))
alu("DRSQ")(_unary(lambda a: 1.0 / np.sqrt(a)))


@alu("DMAD")
def op_dmad(x, a, b, c):
    with np.errstate(all="ignore"):
        return _w(_d(a) * _d(b) + _d(c))


@alu("DFMA")
def op_dfma(x, a, b, c):
    # tgsi.rst DFMA: a * b + c "with no intermediate rounding step": the exact value (Python
    # fractions; float() of a Fraction rounds correctly), INF/NaN operands as IEEE's fma
    da, db, dc = np.broadcast_arrays(_d(a), _d(b), _d(c))
    with np.errstate(all="ignore"):
        out = da * db + dc                        # right wherever an operand is not finite
    fin = np.isfinite(da) & np.isfinite(db) & np.isfinite(dc)
    for i, j in zip(*np.nonzero(fin)):
        exact = Fraction(float(da[i, j])) * Fraction(float(db[i, j])) + Fraction(float(dc[i, j]))
        try:
            v = float(exact)
        except OverflowError:
            v = math.inf if exact > 0 else -math.inf
        if v == 0.0 and exact == 0:
            # an exact zero sum: +0 unless both the product and c are -0 (IEEE 754 6.3)
            prod_neg = (math.copysign(1, da[i, j]) * math.copysign(1, db[i, j])) < 0
            v = -0.0 if prod_neg and math.copysign(1, dc[i, j]) < 0 else 0.0
        elif v == 0.0:
            v = 0.0 if exact > 0 else -0.0
        out[i, j] = v
    return _w(out)


def _pair_booleans(r) -> np.ndarray:
    """(n, 2) truth values of two 64-bit compares -> (n, 4) words: ~0 or 0 in x and z (tgsi.rst:
    a 64-bit compare writes a 32-bit boolean per pair)."""
    out = np.zeros((r.shape[0], 4), U32)
    out[:, 0] = np.where(r[:, 0], U32(0xFFFFFFFF), U32(0))
    out[:, 2] = np.where(r[:, 1], U32(0xFFFFFFFF), U32(0))
    return out


def _compare(fn):
    def op(x, a, b):
        r = fn(_d(a), _d(b))
        return _pair_booleans(r)
    return op


alu("DSEQ")(_compare(np.equal))
alu("DSNE")(_compare(np.not_equal))
alu("DSLT")(_compare(np.less))
alu("DSGE")(_compare(np.greater_equal))


@alu("DLDEXP")
def op_dldexp(x, a, e):
    # tgsi.rst DLDEXP: dst.xy = src0.xy * 2^src1.x, dst.zw = src0.zw * 2^src1.z (one rounding)
    k = np.asarray(e).view(I32)[:, 0::2].astype(np.int64)
    with np.errstate(all="ignore"):
        return _w(np.ldexp(_d(a), np.clip(k, -2200, 2200)))


@alu("DFREXPM")
def op_dfrexpm(x, a):
    d = _d(a)
    m, _ = np.frexp(d)
    return _w(np.where(np.isfinite(d), m, d))       # INF, NaN: themselves (bits kept)


@alu("DFREXPE")
def op_dfrexpe(x, a):
    d = _d(a)
    _, e = np.frexp(d)
    e = np.where(np.isfinite(d), e, 0).astype(I32).view(U32)
    return np.repeat(e, 2, axis=1)


def _from32(kind):
    def op(x, a):
        v = np.ascontiguousarray(a).view({"F": np.float32, "I": I32, "U": U32}[kind])[:, :2]
        return _w(v.astype(F64))
    return op


alu("F2D")(_from32("F"))
alu("I2D")(_from32("I"))
alu("U2D")(_from32("U"))


@alu("D2F")
def op_d2f(x, a):
    with np.errstate(all="ignore"):
        f = _d(a).astype(np.float32).view(U32)
    return np.concatenate([f, np.zeros_like(f)], axis=1)


def _to_int(lo: int, hi: int, dtype):
    def op(x, a):
        d = np.trunc(_d(a))
        d = np.where(np.isnan(d), 0.0, np.clip(d, lo, hi))
        v = d.astype(np.int64).astype(dtype).view(U32)
        return np.concatenate([v, np.zeros_like(v)], axis=1)
    return op


alu("D2I")(_to_int(-(1 << 31), (1 << 31) - 1, I32))
alu("D2U")(_to_int(0, (1 << 32) - 1, U32))


# ---- 64-bit integers (tgsi.rst "64-bit Integer ISA") ----------------------------------------------
# Words in and out like the doubles: a 64-bit integer in xy and one in zw, low word first.
# Readings: division and remainder by zero give all bits set (as the 32-bit IDIV/UDIV/MOD/UMOD
# of the IR); INT64_MIN / -1 wraps (remainder 0); signed quotients truncate toward zero and
# remainders take the dividend's sign; the zw shift count is src1.y (tgsi.rst; tgsi_exec reads
# src1.z -- the spec wins); float and double conversions truncate, clamp to the range, NaN 0.

U64, I64 = np.uint64, np.int64


def _q(a) -> np.ndarray:
    """(k, 4) words -> (k, 2) uint64."""
    w = np.ascontiguousarray(np.asarray(a).view(U32)).astype(U64)
    return w[:, 0::2] | (w[:, 1::2] << U64(32))


def _qw(q) -> np.ndarray:
    q = np.ascontiguousarray(np.asarray(q)).view(U64)
    out = np.empty((q.shape[0], 4), U32)
    out[:, 0::2] = (q & U64(0xFFFFFFFF)).astype(U32)
    out[:, 1::2] = (q >> U64(32)).astype(U32)
    return out


def _q2(fn, signed: bool = False):
    def op(x, a, b):
        qa, qb = np.broadcast_arrays(_q(a), _q(b))
        if signed:
            qa, qb = qa.view(I64), qb.view(I64)
        with np.errstate(all="ignore"):
            return _qw(np.asarray(fn(qa, qb)).astype(qa.dtype).view(U64))
    return op


def _qcompare(fn, signed: bool = False):
    def op(x, a, b):
        qa, qb = np.broadcast_arrays(_q(a), _q(b))
        if signed:
            qa, qb = qa.view(I64), qb.view(I64)
        r = fn(qa, qb)
        return _pair_booleans(r)
    return op


alu("U64ADD")(_q2(np.add))
alu("U64MUL")(_q2(np.multiply))
alu("U64MIN")(_q2(np.minimum))
alu("U64MAX")(_q2(np.maximum))
alu("I64MIN")(_q2(np.minimum, True))
alu("I64MAX")(_q2(np.maximum, True))
alu("U64SEQ")(_qcompare(np.equal))
alu("U64SNE")(_qcompare(np.not_equal))
alu("U64SLT")(_qcompare(np.less))
alu("U64SGE")(_qcompare(np.greater_equal))
alu("I64SLT")(_qcompare(np.less, True))
alu("I64SGE")(_qcompare(np.greater_equal, True))


@alu("I64ABS")
def op_i64abs(x, a):
    q = _q(a).view(I64)
    with np.errstate(all="ignore"):
        return _qw(np.where(q < 0, (U64(0) - q.view(U64)), q.view(U64)))     # |INT64_MIN| wraps


@alu("I64NEG")
def op_i64neg(x, a):
    return _qw(U64(0) - _q(a))


@alu("I64SSG")
def op_i64ssg(x, a):
    return _qw(np.sign(_q(a).view(I64)).astype(I64).view(U64))


def _shift(kind: str):
    def op(x, a, b):
        q = _q(a)
        n = (np.asarray(b).view(U32)[:, 0:2] & U32(63)).astype(U64)     # src1.x, src1.y
        q, n = np.broadcast_arrays(q, n)
        if kind == "SHL":
            return _qw(q << n)
        if kind == "USHR":
            return _qw(q >> n)
        return _qw((q.view(I64) >> n.astype(I64)).view(U64))
    return op


alu("U64SHL")(_shift("SHL"))
alu("U64SHR")(_shift("USHR"))
alu("I64SHR")(_shift("ISHR"))


def _udivmod(mod: bool):
    def op(x, a, b):
        qa, qb = np.broadcast_arrays(_q(a), _q(b))
        safe = np.where(qb == 0, U64(1), qb)
        r = qa % safe if mod else qa // safe
        return _qw(np.where(qb == 0, U64(0xFFFFFFFFFFFFFFFF), r))
    return op


def _idivmod(mod: bool):
    def op(x, a, b):
        qa, qb = np.broadcast_arrays(_q(a), _q(b))
        sa, sb = qa.view(I64) < 0, qb.view(I64) < 0
        ma = np.where(sa, U64(0) - qa, qa)              # magnitudes as unsigned (INT64_MIN too)
        mb = np.where(sb, U64(0) - qb, qb)
        safe = np.where(mb == 0, U64(1), mb)
        if mod:
            r = ma % safe
            r = np.where(sa, U64(0) - r, r)             # the dividend's sign
        else:
            r = ma // safe
            r = np.where(sa != sb, U64(0) - r, r)       # truncation toward zero; MIN / -1 wraps
        return _qw(np.where(qb == 0, U64(0xFFFFFFFFFFFFFFFF), r))
    return op


alu("U64DIV")(_udivmod(False))
alu("U64MOD")(_udivmod(True))
alu("I64DIV")(_idivmod(False))
alu("I64MOD")(_idivmod(True))


def _to64(src: str, signed: bool):
    """F2U64 F2I64 (float x, y), D2U64 D2I64 (doubles): truncated, clamped, NaN 0."""
    def op(x, a):
        if src == "F":
            v = np.ascontiguousarray(a).view(np.float32)[:, :2].astype(F64)
        else:
            v = _d(a)
        t = np.trunc(v)
        t = np.where(np.isnan(t), 0.0, t)
        lo, hi = (-2.0 ** 63, 2.0 ** 63) if signed else (0.0, 2.0 ** 64)
        over, under = t >= hi, t < lo
        t = np.where(over | under, 0.0, t)
        if signed:
            r = np.where(over, I64(2 ** 63 - 1), np.where(under, I64(-2 ** 63), t.astype(I64)))
            return _qw(r.view(U64))
        top = t >= 2.0 ** 63
        r = np.where(top, (np.where(top, t - 2.0 ** 63, 0.0)).astype(U64) + U64(2 ** 63),
                     np.where(top, 0.0, t).astype(U64))
        r = np.where(over, U64(2 ** 64 - 1), np.where(under, U64(0), r))
        return _qw(r)
    return op


alu("F2U64")(_to64("F", False))
alu("F2I64")(_to64("F", True))
alu("D2U64")(_to64("D", False))
alu("D2I64")(_to64("D", True))


@alu("U2I64")
def op_u2i64(x, a):
    return _qw(np.ascontiguousarray(a).view(U32)[:, :2].astype(U64))


@alu("I2I64")
def op_i2i64(x, a):
    return _qw(np.ascontiguousarray(a).view(I32)[:, :2].astype(I64).view(U64))


def _from64(to: str, signed: bool):
    """U642F I642F (float x, y; z, w 0), U642D I642D: rounded to nearest even (numpy's integer
    to float conversion rounds so)."""
    def op(x, a):
        q = _q(a)
        v = q.view(I64) if signed else q
        if to == "D":
            return _w(v.astype(F64))
        f = _int64_to_f32(v)
        return np.concatenate([f.view(U32), np.zeros_like(f.view(U32))], axis=1)
    return op


def _int64_to_f32(v: np.ndarray) -> np.ndarray:
    """64-bit integers to float32, one rounding (int -> float64 -> float32 would round twice):
    the low bits below float precision are folded into a sticky bit first."""
    neg = v < 0 if v.dtype == I64 else np.zeros(v.shape, bool)
    m = np.where(neg, U64(0) - v.view(U64), v.view(U64)) if v.dtype == I64 else v
    m = m.astype(U64)
    # keep 40 significant bits (> 24 + 2): the bits below are ORed into bit 0 (sticky)
    bits = np.zeros(m.shape, np.int64)
    t = m.copy()
    for s in (32, 16, 8, 4, 2, 1):
        big = t >= (U64(1) << U64(s))
        bits = np.where(big, bits + s, bits)
        t = np.where(big, t >> U64(s), t)
    drop = np.clip(bits - 39, 0, 64).astype(U64)
    kept = m >> drop
    sticky = (m & ((U64(1) << drop) - U64(1))) != 0
    kept = kept | sticky.astype(U64)
    f = np.ldexp(kept.astype(F64), drop.astype(np.int64)).astype(np.float32)
    return np.where(neg, -f, f)


alu("U642F")(_from64("F", False))
alu("I642F")(_from64("F", True))
alu("U642D")(_from64("D", False))
alu("I642D")(_from64("D", True))
