"""Executor: ALU opcodes with spec-derived special values (NaN, +-0, +-INF, wrap-around).

Section references: GP4 = NV_gpu_program4 §2.X.8.Z <opcode> unless stated; digest = design/
nv_dialects.md.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from test_exec_helpers import bits_equal, build
from xlate.exec import execute

NAN, INF = float("nan"), float("inf")
INT_MIN, INT_MAX = -(1 << 31), (1 << 31) - 1
F32 = np.float32


def run(text, stage="vertex", lanes=None, **ins):
    p = build(text, stage=stage,
              inputs={k: f"vertex.attrib[{i}]" if stage != "fragment" else f"fragment.attrib[{i}]"
                      for i, k in enumerate("abcd")},
              outputs={"o": "result.color", "q": "result.texcoord[0]"})
    return execute(p, ins, lanes=lanes)


def f(*v):
    return np.array(v, np.float32)


def i(*v):
    return np.array(v, np.int64)


def of(text, **ins):
    """float32 view of output o"""
    return run(text, **ins).float("o")


def ow(text, **ins):
    """raw words of output o (as Python ints, lane 0 when a single lane)"""
    w = run(text, **ins).outputs["o"]
    return [int(x) for x in (w[0] if w.shape[0] == 1 else w.ravel())]


def oi(text, **ins):
    return [x - (1 << 32) if x >= 1 << 31 else x for x in ow(text, **ins)]


def same(a, b):
    return bits_equal(np.asarray(a, np.float32).ravel(), np.asarray(b, np.float32).ravel())


# ---- operand load pipeline (GP4 §2.X.4.2; digest §4.1) ---------------------------------------

def test_swizzle_and_scalar_replicate():
    # GP4 §2.X.4.2: ".yzzx" rearranges, ".y" replicates; digest §10.1 item 1: scalar results
    # replicate to every written component
    assert same(of("MOV o, a.yzzx", a=f(2, 8, 9, 0)), [8, 9, 9, 2])
    assert same(of("MOV o, a.y", a=f(2, 8, 9, 0)), [8, 8, 8, 8])
    assert same(of("RCP o.xz, a.w", a=f(1, 1, 1, 4)), [0.25, 0, 0.25, 0])


def test_abs_then_negate_float():
    # GP4 §2.X.4.2: |x| then the outer negate: -|x| is never positive; -(-0) = +0 via abs
    assert same(of("MOV o, -|a|", a=f(-2, 3, -0.0, NAN)), [-2, -3, -0.0, NAN])
    assert same(of("MOV o, |a|", a=f(-2, -INF, -0.0, 1)), [2, INF, 0.0, 1])
    r = run("MOV o, -a", a=f(0.0, -0.0, 1, -1)).outputs["o"][0]
    assert list(r[:2]) == [0x80000000, 0]       # negation flips the sign bit of zeros


def test_integer_negate_and_abs():
    # GP4 §2.X.4.2: two's complement negate; issue 22: |INT_MIN| = -INT_MIN = INT_MIN;
    # unsigned: negate = two's complement, abs = no-op
    assert oi("MOV.S o, -a", a=i(5, INT_MIN, 0, -7)) == [-5, INT_MIN, 0, 7]
    assert oi("MOV.S o, |a|", a=i(-5, INT_MIN, 0, 7)) == [5, INT_MIN, 0, 7]
    assert ow("MOV.U o, -a", a=i(1, 0, 0xFFFFFFFF, 0x80000000)) == [0xFFFFFFFF, 0, 1, 0x80000000]
    assert ow("MOV.U o, |a|", a=i(1, 0, 0xFFFFFFFF, 0x80000000)) == [1, 0, 0xFFFFFFFF, 0x80000000]


def test_swz_extended_selectors():
    # GP4 SWZ: selectors 0/1/x/y/z/w with per-component negation
    assert same(of("SWZ o, a, -x, 0, 1, w", a=f(2, 3, 4, 5)), [-2, 0, 1, 5])
    assert same(of("SWZ o, a, -0, -1, y, -z", a=f(2, 3, 4, 5)), [-0.0, -1, 3, -4])


def test_saturation_keeps_nan():
    # digest §4.3 step 2 / §12 item 19: if (r<0) r=0; else if (r>1) r=1 -> NaN passes, -0 stays
    assert same(of("MOV.SAT o, a", a=f(-2, 2, NAN, -0.0)), [0, 1, NAN, -0.0])
    assert same(of("MOV.SSAT o, a", a=f(-2, 2, NAN, 0.5)), [-1, 1, NAN, 0.5])
    assert same(of("ADD.SAT o, a, b", a=f(0.75, -INF, 0.25, 1), b=f(0.5, 0, 0.25, 0)), [1, 0, 0.5, 1])


def test_relative_index_clamped():
    # GP4 §2.X.4.2: out-of-range relative index is undefined; project choice: clamp to [0, n-1]
    p = build("""
        MOV.S i, a
        MOV o.x, tab[i.x + 1].x
        MOV o.y, tab[i.y].y
        MOV o.z, tab[i.z + 2].z
        MOV o.w, tab[i.w].w
    """, inputs={"a": "vertex.attrib[0]"}, outputs={"o": "result.color"},
        params={"tab": ["program.local[0]", "program.local[1]", "program.local[2]"]})
    tab = np.array([[10] * 4, [11] * 4, [12] * 4], np.float32)
    r = execute(p, {"a": i(-7, 100, 0, 1)}, params={"tab": tab})
    assert same(r.float("o"), [10, 12, 12, 11])


# ---- arithmetic (GP4 ADD SUB MUL MAD DIV; digest §5.1) ---------------------------------------

def test_add_sub_float_specials():
    # IEEE: INF + -INF = NaN, -0 + -0 = -0, -0 + +0 = +0, overflow -> INF
    assert same(of("ADD o, a, b", a=f(INF, -0.0, -0.0, 3e38), b=f(-INF, -0.0, 0.0, 3e38)),
                [NAN, -0.0, 0.0, INF])
    assert same(of("SUB o, a, b", a=f(INF, 0.0, 1, -0.0), b=f(INF, 0.0, NAN, 0.0)),
                [NAN, 0.0, NAN, -0.0])


def test_add_sub_integer_wrap():
    # digest §5.1: integer ADD/SUB wrap modulo 2^32
    assert oi("ADD.S o, a, b", a=i(INT_MAX, -1, 5, INT_MIN), b=i(1, 1, -7, -1)) == \
        [INT_MIN, 0, -2, INT_MAX]
    assert ow("SUB.U o, a, b", a=i(0, 5, 0xFFFFFFFF, 3), b=i(1, 3, 0xFFFFFFFF, 4)) == \
        [0xFFFFFFFF, 2, 0, 0xFFFFFFFF]


def test_mul_float_and_integer():
    # IEEE 0*INF = NaN, -0*5 = -0; integer MUL keeps the low 32 bits (GP4 MUL)
    assert same(of("MUL o, a, b", a=f(0, -0.0, 4, NAN), b=f(INF, 5, 1e38, 1)), [NAN, -0.0, INF, NAN])
    assert ow("MUL.U o, a, b", a=i(0x10000, 0xFFFFFFFF, 3, 7), b=i(0x10000, 0xFFFFFFFF, 5, 0)) == \
        [0, 1, 15, 0]
    assert oi("MUL.S o, a, b", a=i(-3, INT_MIN, 46341, 0), b=i(7, -1, 46341, 9)) == \
        [-21, INT_MIN, -2147479015, 0]


def test_mul_hi_and_24bit():
    # GP4 MUL .HI: high 32 bits of the 64-bit product, signed or unsigned; S24/U24 like MUL
    assert ow("MUL.U.HI o, a, b", a=i(0xFFFFFFFF, 0x10000, 2, 0x80000000),
              b=i(0xFFFFFFFF, 0x10000, 3, 2)) == [0xFFFFFFFE, 1, 0, 1]
    assert oi("MUL.S.HI o, a, b", a=i(-1, INT_MIN, INT_MAX, -2), b=i(-1, 2, INT_MAX, 3)) == \
        [0, -1, 0x3FFFFFFF, -1]
    assert oi("MUL.S24 o, a, b", a=i(-3, 1000, 0, 8388607), b=i(5, 1000, 4, 2)) == \
        [-15, 1000000, 0, 16777214]
    assert ow("MUL.U24 o, a, b", a=i(16777215, 2, 0, 1), b=i(2, 3, 4, 1)) == [33554430, 6, 0, 1]


def test_mad_not_fused():
    # GP4 MAD: "subject to the same rules as MUL and ADD" -> round(round(a*b) + c).
    # a*b = 1 + 2^-11 + 2^-24 rounds (tie to even) to 1 + 2^-11, so the sum is exactly 0 (a
    # fused multiply-add would give 2^-24).
    a = F32(1 + 2 ** -12)
    c = -F32(1 + 2 ** -11)
    assert same(of("MAD o, a, b, c", a=f(a, 2, INF, 1), b=f(a, 3, 0, 1), c=f(c, 1, 1, NAN)),
                [0.0, 7, NAN, NAN])
    assert ow("MAD.U o, a, b, c", a=i(0xFFFFFFFF, 2, 0, 0), b=i(2, 3, 0, 0), c=i(3, 1, 0, 0)) == \
        [1, 7, 0, 0]


def test_div_float_and_scalar_operand():
    # GP4 DIV: vector / scalar; IEEE 1/0 = INF, -1/0 = -INF, 0/0 = NaN
    assert same(of("DIV o, a, b.y", a=f(1, -1, 0, 6), b=f(9, 0, 9, 9)), [INF, -INF, NAN, INF])
    assert same(of("DIV o, a, b.x", a=f(1, -1, 0, 6), b=f(2, 0, 9, 9)), [0.5, -0.5, 0, 3])


def test_div_mod_integer():
    # GP4 DIV/MOD; digest §12 item 28: truncation toward zero; INT_MIN/-1 wraps;
    # project choice: x/0 and x%0 give all bits set
    assert oi("DIV.S o, a, b.x", a=i(7, -7, INT_MIN, 0), b=i(2, 0, 0, 0)) == [3, -3, -1073741824, 0]
    assert oi("DIV.S o, a, b.x", a=i(7, -7, INT_MIN, 5), b=i(-2, 0, 0, 0)) == \
        [-3, 3, 1073741824, -2]
    assert oi("DIV.S o, a, b.x", a=i(7, -7, INT_MIN, 0), b=i(-1, 0, 0, 0)) == [-7, 7, INT_MIN, 0]
    assert oi("DIV.S o, a, b.x", a=i(7, -7, 0, 1), b=i(0, 0, 0, 0)) == [-1, -1, -1, -1]
    assert ow("DIV.U o, a, b.x", a=i(7, 0xFFFFFFFF, 0, 1), b=i(2, 0, 0, 0)) == \
        [3, 0x7FFFFFFF, 0, 0]
    assert ow("DIV.U o, a, b.y", a=i(7, 0, 0, 1), b=i(2, 0, 0, 0)) == [0xFFFFFFFF] * 4
    assert oi("MOD.S o, a, b.x", a=i(7, -7, 6, 0), b=i(4, 0, 0, 0)) == [3, -3, 2, 0]
    assert oi("MOD o, a, b.y", a=i(7, -7, 6, 0), b=i(4, 0, 0, 0)) == [-1, -1, -1, -1]
    assert ow("MOD.U o, a, b.x", a=i(7, 0xFFFFFFFF, 6, 0), b=i(3, 0, 0, 0)) == [1, 0, 0, 0]


def test_sad():
    # GP4 SAD: |a-b| (exact) + c, c and the result unsigned, wrapping modulo 2^32
    assert ow("SAD.S o, a, b, c", a=i(-5, INT_MIN, 3, 0), b=i(3, INT_MAX, 3, 0),
              c=i(1, 1, 0xFFFFFFFF, 7)) == [9, 0, 0xFFFFFFFF, 7]
    assert ow("SAD.U o, a, b, c", a=i(3, 0, 0xFFFFFFFF, 5), b=i(5, 0xFFFFFFFF, 0, 5),
              c=i(10, 0, 1, 0)) == [12, 0xFFFFFFFF, 0, 0]


# ---- bitwise and shifts (GP4 AND OR XOR NOT SHL SHR) -----------------------------------------

def test_bitwise():
    a, b = i(0xF0F0, -1, 0, 0x12345678), i(0x0FF0, 5, 0, 0xFFFF0000)
    assert ow("AND o, a, b", a=a, b=b) == [0x00F0, 5, 0, 0x12340000]
    assert ow("OR.U o, a, b", a=a, b=b) == [0xFFF0, 0xFFFFFFFF, 0, 0xFFFF5678]
    assert ow("XOR o, a, b", a=a, b=b) == [0xFF00, 0xFFFFFFFA, 0, 0xEDCB5678]
    assert ow("NOT.U o, a", a=a) == [0xFFFF0F0F, 0, 0xFFFFFFFF, 0xEDCBA987]


def test_shifts():
    # GP4 SHL/SHR: SHR arithmetic for .S, logical for .U; counts >= 32 undefined ->
    # project choice: count & 31
    assert oi("SHR.S o, a, b.x", a=i(-8, 8, INT_MIN, -1), b=i(1, 0, 0, 0)) == \
        [-4, 4, -(1 << 30), -1]
    assert ow("SHR.U o, a, b.x", a=i(-8, 8, 0x80000000, -1), b=i(31, 0, 0, 0)) == [1, 0, 1, 1]
    assert ow("SHL.U o, a, b.x", a=i(3, 1, 0x80000001, 0), b=i(4, 0, 0, 0)) == [48, 16, 16, 0]
    assert ow("SHL.S o, a, b.x", a=i(3, 1, 2, 0), b=i(33, 0, 0, 0)) == [6, 2, 4, 0]


# ---- comparisons and selects (GP4 SEQ ... SNE, SFL, STR, CMP, MIN, MAX, SSG) -----------------

@pytest.mark.parametrize("op,expect", [
    # a = (1, NaN, -0, 2), b = (1, 1, +0, 3); IEEE: NaN compares false, -0 == +0 (digest §9)
    ("SEQ", [1, 0, 1, 0]), ("SNE", [0, 1, 0, 1]), ("SLT", [0, 0, 0, 1]),
    ("SLE", [1, 0, 1, 1]), ("SGT", [0, 0, 0, 0]), ("SGE", [1, 0, 1, 0]),
    ("SFL", [0, 0, 0, 0]), ("STR", [1, 1, 1, 1]),
])
def test_set_on_float(op, expect):
    assert same(of(f"{op} o, a, b", a=f(1, NAN, -0.0, 2), b=f(1, 1, 0.0, 3)), expect)


def test_set_on_integer_true_values():
    # GP4 SEQ..: TRUE is -1 for .S and 0xFFFFFFFF for .U; comparisons by type
    a, b = i(-1, 1, 5, 0), i(1, 1, 4, 0)
    assert oi("SLT.S o, a, b", a=a, b=b) == [-1, 0, 0, 0]
    assert ow("SLT.U o, a, b", a=a, b=b) == [0, 0, 0, 0]          # 0xFFFFFFFF > 1 unsigned
    assert ow("SGT.U o, a, b", a=a, b=b) == [0xFFFFFFFF, 0, 0xFFFFFFFF, 0]
    assert oi("STR.S o, a, b", a=a, b=b) == [-1] * 4
    assert ow("STR.U o, a, b", a=a, b=b) == [0xFFFFFFFF] * 4
    assert ow("SFL.U o, a, b", a=a, b=b) == [0] * 4


def test_cmp():
    # GP4 CMP: a < 0 ? b : c -- NaN and -0.0 select c (digest §5.2)
    assert same(of("CMP o, a, b, c", a=f(-1, -0.0, NAN, 1), b=f(10, 10, 10, 10), c=f(20, 20, 20, 20)),
                [10, 20, 20, 20])
    assert oi("CMP.S o, a, b, c", a=i(-1, 0, INT_MIN, 1), b=i(10, 10, 10, 10), c=i(2, 2, 2, 2)) == \
        [10, 2, 10, 2]
    assert ow("CMP.U o, a, b, c", a=i(-1, 0, 0, 1), b=i(10, 10, 10, 10), c=i(2, 2, 2, 2)) == [2] * 4


def test_min_max_nan_and_zero():
    # GP4 MAX: a > b ? a : b;  MIN: a > b ? b : a  (digest §10.2 item 13)
    a, b = f(NAN, 1, -0.0, 0.0), f(1, NAN, 0.0, -0.0)
    assert same(of("MAX o, a, b", a=a, b=b), [1, NAN, 0.0, -0.0])
    assert same(of("MIN o, a, b", a=a, b=b), [NAN, 1, -0.0, 0.0])
    assert oi("MAX.S o, a, b", a=i(-1, 5, INT_MIN, 0), b=i(1, 2, INT_MAX, 0)) == [1, 5, INT_MAX, 0]
    assert ow("MIN.U o, a, b", a=i(-1, 5, 0, 0), b=i(1, 2, 7, 0)) == [1, 2, 0, 0]


def test_ssg():
    # GP4 SSG: 1 / 0 / -1 by sign; +-0 -> 0; NaN -> 0 (project choice, brief)
    assert same(of("SSG o, a", a=f(-3, -0.0, NAN, 2)), [-1, 0, 0, 1])


# ---- rounding and conversion (GP4 FLR CEIL TRUNC ROUND FRC I2F; issue 41) --------------------

def test_rounding_float_results():
    a = f(-1.7, 2.5, -0.5, 3.5)
    assert same(of("FLR o, a", a=a), [-2, 2, -1, 3])
    assert same(of("CEIL o, a", a=a), [-1, 3, -0.0, 4])
    assert same(of("TRUNC o, a", a=a), [-1, 2, -0.0, 3])
    assert same(of("ROUND o, a", a=a), [-2, 2, -0.0, 4])     # half to even
    s = f(INF, -INF, NAN, -0.0)
    for op in ("FLR", "CEIL", "TRUNC", "ROUND"):
        assert same(of(f"{op} o, a", a=s), [INF, -INF, NAN, -0.0]), op


def test_rounding_integer_results_clamp():
    # GP4 issue 41: float -> int conversions clamp; project choice NaN -> 0
    a = f(3e9, -3e9, NAN, -1.5)
    assert oi("TRUNC.S o, a", a=a) == [INT_MAX, INT_MIN, 0, -1]
    assert oi("FLR.S o, a", a=a) == [INT_MAX, INT_MIN, 0, -2]
    assert oi("CEIL.S o, a", a=a) == [INT_MAX, INT_MIN, 0, -1]
    assert oi("ROUND.S o, a", a=f(2.5, -2.5, 1.5, INF)) == [2, -2, 2, INT_MAX]
    assert ow("TRUNC.U o, a", a=f(5e9, -1, NAN, 7.9)) == [0xFFFFFFFF, 0, 0, 7]
    assert ow("FLR.U o, a", a=f(4294967040.0, -0.5, 0.5, -INF)) == [4294967040, 0, 0, 0]


def test_frc():
    # GP4 FRC: a - floor(a); FRC(-1.7) = 0.3 (in float32 arithmetic); FRC(+-INF) = NaN
    a = f(-1.7, 2.25, INF, -0.0)
    with np.errstate(invalid="ignore"):
        expect = a - np.floor(a)
    assert same(of("FRC o, a", a=a), expect)
    assert math.isnan(of("FRC o, a", a=a)[0, 2])
    assert same(of("FRC o, a", a=a)[0, :2], [F32(-1.7) + 2, 0.25])


def test_i2f():
    # GP4 I2F; issue 41: nearest float (0x3FFFFFFF -> 2^30); .U reads unsigned
    assert same(of("I2F o, a", a=i(-1, 0x3FFFFFFF, INT_MIN, 16777217)),
                [-1, 2.0 ** 30, -2.0 ** 31, 16777216])
    assert same(of("I2F.U o, a", a=i(0xFFFFFFFF, 0x80000000, 1, 16777219)),
                [2.0 ** 32, 2.0 ** 31, 1, 16777220])


# ---- reciprocals, exponentials, trig (GP4 RCP RSQ RCC EX2 LG2 POW SIN COS SCS; digest §5.3-5.5)

def test_rcp():
    assert same(of("RCP o, a.x", a=f(1, 0, 0, 0)), [1] * 4)            # RCP(1) exactly 1
    for v, r in ((0.0, INF), (-0.0, -INF), (INF, 0.0), (-INF, -0.0), (NAN, NAN), (3, 1 / F32(3))):
        assert same(of("RCP o, a.x", a=f(v, 0, 0, 0))[0, 0], r), v


def test_rsq_no_abs():
    # GP4 RSQ: no implicit |a| in NV4 (unlike ARB); IEEE 1/sqrt
    for v, r in ((4, 0.5), (0.0, INF), (-0.0, -INF), (-1, NAN), (INF, 0.0), (NAN, NAN)):
        assert same(of("RSQ o, a.x", a=f(v, 0, 0, 0))[0, 0], r), v
    assert same(of("RSQ o, |a.x|", a=f(-4, 0, 0, 0))[0, 0], 0.5)


def test_rcc():
    # GP4 RCC / digest §5.3: magnitude of 1/a clamped to [2^-64, 2^64], sign kept; NaN passes
    cases = ((0.0, 2.0 ** 64), (-0.0, -2.0 ** 64), (INF, 2.0 ** -64), (-INF, -2.0 ** -64),
             (NAN, NAN), (2, 0.5), (1e-30, 2.0 ** 64), (-1e30, -2.0 ** -64))
    for v, r in cases:
        got = of("RCC o, a.x", a=f(v, 0, 0, 0))[0, 0]
        assert same(got, r), (v, got)
    w = run("RCC o, a.x", a=f(0.0, 0, 0, 0)).outputs["o"][0, 0]
    assert w == 0x5F800000                                           # 2^64


def test_ex2_lg2_pow():
    # digest §5.4 special values (IEEE exp2/log2)
    assert same([of("EX2 o, a.x", a=f(v, 0, 0, 0))[0, 0] for v in (0, -INF, INF, NAN, 3, -1)],
                [1, 0, INF, NAN, 8, 0.5])
    assert same([of("LG2 o, a.x", a=f(v, 0, 0, 0))[0, 0] for v in (8, 0, INF, -1, 1, NAN)],
                [3, -INF, INF, NAN, 0, NAN])
    # GP4 POW = exp2(b * log2(a)): 2^3 = 8; 0^2 = 0; 0^0 = exp2(0 * -INF) = NaN (no special
    # case for POW, unlike LIT); negative base -> NaN
    assert same(of("POW o, a.x, b.x", a=f(2, 0, 0, 0), b=f(3, 0, 0, 0))[0, 0], 8)
    assert same(of("POW o, a.x, b.x", a=f(0, 0, 0, 0), b=f(2, 0, 0, 0))[0, 0], 0)
    assert same(of("POW o, a.x, b.x", a=f(0, 0, 0, 0), b=f(0, 0, 0, 0))[0, 0], NAN)
    assert same(of("POW o, a.x, b.x", a=f(-2, 0, 0, 0), b=f(2, 0, 0, 0))[0, 0], NAN)


def test_sin_cos_scs():
    # digest §5.5: SIN(+-0) = +-0, COS(+-0) = 1, +-INF/NaN -> NaN
    assert same([of("SIN o, a.x", a=f(v, 0, 0, 0))[0, 0] for v in (0.0, -0.0, INF, NAN)],
                [0.0, -0.0, NAN, NAN])
    assert same([of("COS o, a.x", a=f(v, 0, 0, 0))[0, 0] for v in (0.0, -0.0, -INF, NAN)],
                [1, 1, NAN, NAN])
    r = of("SCS o, a.x", a=f(1.0, 0, 0, 0))[0]
    assert same(r, [np.cos(F32(1)), np.sin(F32(1)), 0, 0])   # z, w undefined -> 0 (project)
    r = of("SIN o, a.x", a=f(np.pi / 2, 0, 0, 0))[0]
    assert abs(r[0] - 1) < 1e-6 and len(set(r.tolist())) == 1


# ---- dot products and vector ops (GP4 DP2 DP2A DP3 DP4 DPH DST XPD NRM RFL X2D LRP) ---------

def test_dot_products_left_to_right():
    # GP4 DP3 pseudocode: (x*x' + y*y') + z*z' -- in float32, (1e8 + 1) - 1e8 = 0
    a, b = f(1e8, 1, -1e8, 5), f(1, 1, 1, 1)
    assert same(of("DP3 o, a, b", a=a, b=b)[0], [0] * 4)
    assert same(of("DP4 o, a, b", a=a, b=b)[0], [5] * 4)
    assert same(of("DP2 o, a, b", a=f(1, 2, 3, 4), b=f(5, 6, 7, 8))[0], [17] * 4)
    assert same(of("DP2A o, a, b, c", a=f(1, 2, 3, 4), b=f(5, 6, 7, 8), c=f(0.5, 9, 9, 9))[0],
                [17.5] * 4)
    # DPH: dot3 + b.w (a.w ignored)
    assert same(of("DPH o, a, b", a=f(1, 2, 3, NAN), b=f(1, 1, 1, 10))[0], [16] * 4)
    assert same(of("DP4 o, a, b", a=f(0, 1, 1, 1), b=f(INF, 1, 1, 1))[0], [NAN] * 4)


def test_dst_xpd():
    assert same(of("DST o, a, b", a=f(NAN, 4, 16, NAN), b=f(NAN, 0.25, NAN, 0.25))[0],
                [1, 1, 16, 0.25])
    assert same(of("XPD o, a, b", a=f(1, 0, 0, 7), b=f(0, 1, 0, 7))[0], [0, 0, 1, 0])
    assert same(of("XPD o, a, b", a=f(2, 3, 4, 0), b=f(5, 6, 7, 0))[0], [-3, 6, -3, 0])


def test_nrm_rfl():
    a = f(3, 4, 0, 9)
    scale = F32(1) / np.sqrt(F32(25))
    assert same(of("NRM o, a", a=a)[0], [a[0] * scale, a[1] * scale, 0, 0])
    assert same(of("NRM o, a", a=f(0, 0, 0, 1))[0], [NAN, NAN, NAN, 0])
    n, d = f(0, 2, 0, 0), f(1, -1, 0, 0)
    # reflection of (1,-1,0) about the y axis: 2*(n.d)/(n.n)*n - d = (-1, -1, -0) (z: -1*0 - 0)
    assert same(of("RFL o, a, b", a=n, b=d)[0], [-1, -1, -0.0, 0])


def test_x2d_lrp():
    # GP4 X2D: (a.x + b.x*c.x + b.y*c.y, a.y + b.x*c.z + b.y*c.w, same, same)
    assert same(of("X2D o, a, b, c", a=f(1, 2, 0, 0), b=f(3, 4, 0, 0), c=f(1, 2, 3, 4))[0],
                [12, 27, 12, 27])
    # GP4 LRP: a*b + (1-a)*c
    assert same(of("LRP o, a, b, c", a=f(0, 1, 0.25, 0.5), b=f(10, 10, 10, INF),
                   c=f(2, 2, 2, 2))[0], [2, 10, 4, INF])


def test_lit():
    # GP4 LIT pseudocode; digest §5.6: 0^0 = 1, 0^(w>0) = 0, 0^(w<0) = +INF; x <= 0 -> z = 0;
    # w clamped to +-(128 - 1/256)
    cases = [
        ((-1, 5, 0, 2), (1, 0, 0, 1)),
        ((0.5, 0, 0, 0), (1, 0.5, 1, 1)),
        ((0.5, 0, 0, 2), (1, 0.5, 0, 1)),
        ((0.5, 0, 0, -2), (1, 0.5, INF, 1)),
        ((0.5, 0.5, 0, 2), (1, 0.5, 0.25, 1)),
        ((2, -3, 0, 2), (1, 2, 0, 1)),            # y < 0 clamps to 0
        ((0, 0.5, 0, 1), (1, 0, 0, 1)),           # x == 0: no specular
    ]
    for a, e in cases:
        assert same(of("LIT o, a", a=f(*a))[0], e), a
    big = of("LIT o, a", a=f(1, 2, 0, 200))[0, 2]
    assert np.isfinite(big) and big == np.exp2(F32(127.99609375))   # clamped exponent
    tiny = of("LIT o, a", a=f(1, 2, 0, -200))[0, 2]
    assert tiny == np.exp2(F32(-127.99609375))
    r = of("LIT o, a", a=f(NAN, 2, 0, 1))[0]                        # NaN x: not > 0 -> z = 0
    assert same(r, [1, NAN, 0, 1])


# ---- pack / unpack (digest §5.8) --------------------------------------------------------------

def test_pk2h_up2h():
    assert ow("PK2H o, a", a=f(1.0, -2.0, 0, 0)) == [0xC0003C00] * 4
    assert ow("PK2H.U o, a", a=f(65520.0, -0.0, 0, 0)) == [0x80007C00] * 4    # overflow -> INF
    assert ow("PK2H o, a", a=f(1 + 2 ** -11, 0, 0, 0))[0] & 0xFFFF == 0x3C00  # tie -> even
    r = of("PK2H R0, a\nUP2H o, R0.x", a=f(0.5, -3.25, 7, 7))[0]
    assert same(r, [0.5, -3.25, 0.5, -3.25])
    assert same(of("UP2H o, a.x", a=i(0x7E00FC00, 0, 0, 0))[0], [-INF, NAN, -INF, NAN])


def test_pk2us_up2us():
    assert ow("PK2US o, a", a=f(0.0, 1.0, 9, 9)) == [0xFFFF0000] * 4
    assert ow("PK2US o, a", a=f(-1.0, 2.0, 9, 9)) == [0xFFFF0000] * 4         # clamped
    assert ow("PK2US o, a", a=f(0.25, NAN, 9, 9))[0] == 16384                 # NaN -> 0
    assert same(of("UP2US o, a.x", a=i(0xFFFF0000, 0, 0, 0))[0], [0, 1, 0, 1])
    assert same(of("UP2US o, a.x", a=i(0x00014000, 0, 0, 0))[0],
                [F32(0x4000) / F32(65535), F32(1) / F32(65535)] * 2)


def test_pk4b_up4b_excess128():
    # PK4B: byte = round(127 * clamp(v, -128/127, 1) + 128): 0 -> 0x80, -1 -> 1, 1 -> 0xFF,
    # -128/127 (and below) -> 0
    assert ow("PK4B o, a", a=f(0, -1, 1, -5)) == [0x00FF0180] * 4
    assert same(of("UP4B o, a.x", a=i(0x00FF0180, 0, 0, 0))[0], [0, -1, 1, F32(-128) / F32(127)])


def test_pk4ub_up4ub():
    assert ow("PK4UB o, a", a=f(0, 1, 0.2, 2)) == [0xFF33FF00] * 4
    assert ow("PK4UB o, a", a=f(-1, NAN, 0, 0)) == [0] * 4
    assert same(of("UP4UB o, a.x", a=i(0x80FF0033, 0, 0, 0))[0],
                [F32(0x33) / F32(255), 0, 1, F32(128) / F32(255)])


def test_unpack_reads_raw_bits_of_float_operand():
    # GP4 UP*: "the 32 least significant bits of the encoding are used" -- also for .F operands
    # (a float register holding packed bits, or a negated one: the sign bit is part of it)
    r = of("UP4UB o, -a.x", a=f(2.0, 0, 0, 0))[0]              # -2.0 = 0xC0000000
    assert same(r, [0, 0, 0, F32(0xC0) / F32(255)])


# ---- derivatives (digest §5.9) ----------------------------------------------------------------

def test_ddx_ddy_quads():
    # project choice: lanes 4k..4k+3 = (x0,y0) (x1,y0) (x0,y1) (x1,y1); coarse differences
    v = np.array([[1, 0, 0, 0], [3, 0, 0, 0], [10, 0, 0, 0], [17, 0, 0, 0],
                  [0, 0, 0, 0], [5, 0, 0, 0]], np.float32)
    r = run("DDX o, a\nDDY q, a", stage="fragment", a=v)
    assert same(r.float("o")[:, 0], [2, 2, 7, 7, 5, 5])
    assert same(r.float("q")[:, 0], [9, 14, 9, 14, 0, 0])      # lanes 6, 7 missing -> 0
    r = run("DDX o, a\nDDY q, a", stage="vertex", a=v)
    assert same(r.float("o"), np.zeros((6, 4))) and same(r.float("q"), np.zeros((6, 4)))


def test_ddx_under_divergence_uses_current_neighbour_values():
    # the lanes of a quad that are not at the DDX (here: took the other branch) still supply
    # their current register value
    p = build("""
        MOV R0, a
        MOVC R1, b
        IF NE.x
          DDX o, R0
        ELSE
          MOV o, -1
        ENDIF
    """.replace("MOVC", "MOV.CC"), stage="fragment",
        inputs={"a": "fragment.attrib[0]", "b": "fragment.attrib[1]"}, outputs={"o": "result.color"})
    a = np.array([[1] * 4, [4] * 4, [0] * 4, [0] * 4], np.float32)
    b = np.array([[1] * 4, [0] * 4, [0] * 4, [0] * 4], np.float32)
    r = execute(p, {"a": a, "b": b})
    assert same(r.float("o")[:, 0], [3, -1, -1, -1])
