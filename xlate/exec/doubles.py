"""TGSI's double-precision opcodes (tgsi.rst "Double ISA"; issue 20) on raw words.

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


def _compare(fn):
    def op(x, a, b):
        r = fn(_d(a), _d(b))
        out = np.zeros((r.shape[0], 4), U32)
        out[:, 0] = np.where(r[:, 0], U32(0xFFFFFFFF), U32(0))
        out[:, 2] = np.where(r[:, 1], U32(0xFFFFFFFF), U32(0))
        return out
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
