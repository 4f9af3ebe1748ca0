"""ALU opcodes of the dialects beside NV_gpu_program4, registered in :data:`.alu.ALU` like the GP4
ones (the calling convention is :mod:`.alu`'s): the older NV/ARB dialects' opcodes
(``xlate.ir.ops.LEGACY_OPCODES``), FP1's LIT, and the TGSI opcodes (issues 6 and 20).
:mod:`.machine` imports this module so that the table is complete.
"""
from __future__ import annotations

import numpy as np

from .alu import ALU, F32, I32, S, U32, _clamp01_nan0, _packed, _raw, _stack, alu


# ---- opcodes of the older NV/ARB dialects (xlate.ir.ops.LEGACY_OPCODES) ---------------------
# Digest sections: nv_dialects.md §5, §9.  "NaN" results are the canonical quiet NaN
# 0x7FC00000 (the GLSL helpers return the same bits).

_QNAN = np.array(0x7FC00000, U32).view(F32)


def _nan_in(a, b):
    return np.isnan(a) | np.isnan(b)


@alu("MINN")
def op_minn(x, a, b):
    # VP2 §2.14.3.22 MIN (FP1 §3.11.5.15): min(NaN, <x>) == NaN for all <x>; otherwise the GP4
    # select (a > b) ? b : a.
    return np.where(_nan_in(a, b), _QNAN, np.where(a > b, b, a))


@alu("MAXN")
def op_maxn(x, a, b):
    # VP2 §2.14.3.21 MAX (FP1 §3.11.5.14): max(NaN, <x>) == NaN; otherwise (a > b) ? a : b.
    return np.where(_nan_in(a, b), _QNAN, np.where(a > b, a, b))


def _setop_nan(cmp):
    def fn(x, a, b):
        # VP2 §2.14.3.29-36: 1.0 / 0.0 from the IEEE comparison, then "if (tmp0.c is NaN or
        # tmp1.c is NaN) result.c = NaN".  (SNE(-0, +0) is FALSE: IEEE; digest §12 item 18.)
        return np.where(_nan_in(a, b), _QNAN, np.where(cmp(a, b), F32(1), F32(0)))
    return fn


ALU["SEQN"] = _setop_nan(np.equal)
ALU["SGEN"] = _setop_nan(np.greater_equal)
ALU["SGTN"] = _setop_nan(np.greater)
ALU["SLEN"] = _setop_nan(np.less_equal)
ALU["SLTN"] = _setop_nan(np.less)
ALU["SNEN"] = _setop_nan(np.not_equal)


def _total_order_key(a: np.ndarray) -> np.ndarray:
    """VP1 §2.14.1.11: "for the purpose of comparisons performed by the SGE and SLT
    instructions, -0.0 is less than +0.0, -NaN is less than -Inf, and +NaN is greater than
    +Inf": the float bits as a sign-magnitude integer turned into two's complement."""
    i = a.view(I32).astype(np.int64)
    return np.where(i < 0, -(i & 0x7FFFFFFF) - 1, i)


@alu("SGET")
def op_sget(x, a, b):
    # VP1 §2.14.1.10.14 SGE with the total order of §2.14.1.11
    return np.where(_total_order_key(a) >= _total_order_key(b), F32(1), F32(0))


@alu("SLTT")
def op_sltt(x, a, b):
    # VP1 §2.14.1.10.13 SLT with the total order of §2.14.1.11
    return np.where(_total_order_key(a) < _total_order_key(b), F32(1), F32(0))


@alu("SSGN")
def op_ssgn(x, a):
    # VP2 §2.14.3.37 SSG: SetSign(NaN) = NaN, SetSign(+-0) = 0, else -1 / +1
    return np.where(np.isnan(a), _QNAN,
                    np.where(a > 0, F32(1), np.where(a < 0, F32(-1), F32(0)))).astype(F32)


def _pow2_exact(n: np.ndarray) -> np.ndarray:
    """2^n for integral float n, exactly: +INF above 127, 0 below -126 (VP1 §2.14.1.11 and VP2
    flush denormals), NaN for NaN."""
    e = np.clip(np.nan_to_num(n, nan=0.0), -127, 128).astype(np.int64)
    bits = ((e + 127) << 23).astype(np.uint64).astype(U32)
    p = bits.view(F32)
    p = np.where(n > 127, F32(np.inf), np.where(n < -126, F32(0), p))
    return np.where(np.isnan(n), _QNAN, p).astype(F32)


@alu("EXP")
def op_exp(x, a):
    # VP1 §2.14.1.10.15, VP2 §2.14.3.14, ARBVP §2.14.5.9 EXP:
    #   x = 2^floor(t) (exact; overflows to +INF, underflows to 0), y = t - floor(t),
    #   z = x * 2^y (the approximation, more accurate than the required 11 bits), w = 1.
    # VP1: "EXP(-Inf) or if the exponential result underflows gives [0,0,0,1]; EXP(+Inf) or if
    # it overflows gives [+Inf,0,+Inf,1]" -- so y = 0 whenever x is 0 or +INF (VP2/ARB leave
    # those cases open; one rule for every dialect).  NaN gives (NaN, NaN, NaN, 1).
    t = a[:, 0]
    f = np.floor(t)
    px = _pow2_exact(f)
    y = np.where((px == 0) | np.isinf(px), F32(0), t - f).astype(F32)
    z = (px * np.exp2(y)).astype(F32)
    return _stack(px, y, z, np.ones_like(px)).astype(F32)


@alu("LOG")
def op_log(x, a):
    # VP1 §2.14.1.10.16, VP2 §2.14.3.19, ARBVP §2.14.5.14 LOG of |t|:
    #   x = Exponent(|t|) (unbiased, exact), y = Mantissa(|t|) in [1, 2) (exact),
    #   z = x + log2(y) (the approximation of log2 |t|), w = 1.
    # LOG(+-0) = (-INF, 1, -INF, 1) (denormals count as 0: flushed, VP1 §2.14.1.11);
    # LOG(+-INF) = (+INF, 1, +INF, 1); LOG(NaN) = (NaN, NaN, NaN, 1) (VP2: "NaN").
    t = np.abs(a[:, 0])
    bits = t.view(U32)
    e = (bits >> U32(23)) & U32(0xFF)
    zero = e == 0
    inf = np.isinf(t)
    nan = np.isnan(t)
    ex = e.astype(F32) - F32(127)
    m = ((bits & U32(0x7FFFFF)) | U32(0x3F800000)).view(F32)
    z = (ex + np.log2(m)).astype(F32)
    ninf, pinf = F32(-np.inf), F32(np.inf)
    rx = np.where(zero, ninf, np.where(inf, pinf, ex))
    ry = np.where(zero | inf, F32(1), m)
    rz = np.where(zero, ninf, np.where(inf, pinf, z))
    rx, ry, rz = (np.where(nan, _QNAN, v) for v in (rx, ry, rz))
    return _stack(rx, ry, rz, np.ones_like(rx)).astype(F32)


@alu("EXPA")
def op_expa(x, a):
    # ARBVP 2.14.5.9, VP2 2.14.3.14, tgsi.rst EXP -- the pseudo-code with no exception:
    #   x = 2^floor(t), y = t - floor(t), z = RoughApprox2ToX(t), w = 1.
    # So y is NaN for t = +-INF (INF - INF), x = 2^floor(t) as in op_exp (exact, +INF above 127,
    # 0 below -126: denormals flushed), and z follows 2^t: 0 for an underflowing x, +INF for an
    # overflowing one (VP2 special cases: RoughApprox2ToX(-INF) = +0, (+INF) = +INF), x * 2^y
    # otherwise (as op_exp: 2^floor(t) * 2^fraction, exact scaling of an accurate 2^fraction).
    t = a[:, 0]
    f = np.floor(t)
    px = _pow2_exact(f)
    y = (t - f).astype(F32)
    with np.errstate(invalid="ignore"):
        z = np.where(px == 0, F32(0), np.where(np.isinf(px), px, px * np.exp2(y))).astype(F32)
    z = np.where(np.isnan(t), _QNAN, z)
    return _stack(px, y, z, np.ones_like(px)).astype(F32)


@alu("LOGA")
def op_loga(x, a):
    # ARBVP 2.14.5.14, VP2 2.14.3.19, tgsi.rst LOG -- the pseudo-code with no exception, of
    # tmp = |t|: x = floor(log2(tmp)), y = tmp / 2^floor(log2(tmp)), z = RoughApproxLog2(tmp).
    # For tmp = 0 (denormals flushed, as op_log): x = z = -INF and y = 0 / 2^-INF = 0 / 0 = NaN;
    # for tmp = INF: x = z = +INF and y = INF / INF = NaN; NaN gives NaN.  Otherwise as op_log.
    r = op_log(x, a)
    t = np.abs(a[:, 0])
    special = (((t.view(U32) >> U32(23)) & U32(0xFF)) == 0) | np.isinf(t)
    r[:, 1] = np.where(special, _QNAN, r[:, 1])
    return r


# ---- FP1 LIT (issue 5 fragment dialects; IR opcode LITNC, xlate.ir.ops) --------------------

@alu("LITNC")
def op_litnc(x, a):
    # FP1 3.11.5.13 LIT: if (t.x < 0) t.x = 0; if (t.y < 0) t.y = 0;
    #   result = (1, t.x, t.x > 0 ? ApproxPower(t.y, t.w) : 0, 1)
    # with no clamp of t.w and ApproxPower = ApproxExp2(w * ApproxLog2(y)) "including ... the
    # processing of any special cases" (FP1 3.11.5.24): 0^0 = NaN (log2(0) = -INF, 0 * -INF =
    # NaN), 0^(w>0) = +0, 0^(w<0) = +INF -- exactly IEEE exp2(w * log2(y)).
    ax, ay, aw = a[:, 0], a[:, 1], a[:, 3]
    ax = np.where(ax < 0, F32(0), ax)
    ay = np.where(ay < 0, F32(0), ay)
    power = np.exp2(aw * np.log2(ay))
    z = np.where(ax > 0, power, F32(0))
    one = np.ones_like(ax)
    return _stack(one, ax, z, one).astype(F32)


# ---- TGSI opcodes (issue 6; IR rows in xlate.ir.ops._TGSI_ROWS; tgsi.md section 2) -------------

@alu("SQRT")
def op_sqrt(x, a):
    # tgsi.rst SQRT: dst = sqrt(src.x) (undefined for src < 0; IEEE gives NaN)
    return np.sqrt(a)


@alu("MINNUM")
def op_minnum(x, a, b):
    # tgsi.rst MIN / tgsi_exec fminf: the non-NaN operand when one is NaN.  Written as the one
    # select the GLSL helper uses too (xl_minnum), so the choice between -0.0 and +0.0 for equal
    # operands is the same on both sides: isnan(b) || a < b ? a : b.
    return np.where(np.isnan(b) | (a < b), a, b)


@alu("MAXNUM")
def op_maxnum(x, a, b):
    # tgsi.rst MAX / fmaxf: isnan(b) || a > b ? a : b
    return np.where(np.isnan(b) | (a > b), a, b)


def _fset(cmp):
    def fn(x, a, b):
        # tgsi.rst FSEQ/FSNE/FSLT/FSGE: float compare, result ~0 (true) or 0 as integers;
        # IEEE comparisons, so NaN gives 0 except for FSNE (unordered not-equal).
        return np.where(cmp(a, b), U32(0xFFFFFFFF), U32(0))
    return fn


ALU["FSEQ"] = _fset(np.equal)
ALU["FSNE"] = _fset(np.not_equal)
ALU["FSLT"] = _fset(np.less)
ALU["FSGE"] = _fset(np.greater_equal)


@alu("ISSG")
def op_issg(x, a):
    # tgsi.rst ISSG: -1, 0 or 1 by the sign of the signed integer
    return np.sign(a.astype(I32)).astype(I32) if x.t == S else np.where(a != 0, U32(1), U32(0))


@alu("UCMP")
def op_ucmp(x, a, b, c):
    # tgsi.rst UCMP: src0 != 0 ? src1 : src2, src0 tested as a 32-bit integer (so -0.0 =
    # 0x80000000 selects src1); src1/src2 are copied as bits.
    return np.where(a != 0, b, c)


# ---- bitfield (issue 20; IR rows BFEXT..MSB; tgsi.rst "Bitwise ISA") --------------------------
# Offsets and widths are unsigned; the window [offset, offset + width) is clipped at bit 31
# (tgsi.rst leaves offset + width > 32 undefined; clipped, it is what Mesa's tgsi_exec and SM5
# compute for offsets and widths below 32).  The GLSL helpers (helpers.glsl "bitfield") do the
# same with shifts that stay in [0, 31].

def _window(o, b):
    oc = np.minimum(o.astype(np.int64), 32)
    bc = np.minimum(b.astype(np.int64), 32 - oc)
    return oc, bc


@alu("BFEXT")
def op_bfext(x, v, o, b):
    # tgsi.rst IBFE/UBFE: (value << (32 - offset - bits)) >> (32 - bits), arithmetic for IBFE;
    # bits == 0 gives 0
    oc, bc = _window(o, b)
    v, oc, bc = np.broadcast_arrays(v, oc, bc)
    sh1 = np.where(bc > 0, 32 - oc - bc, 0).astype(np.uint64)
    sh2 = np.where(bc > 0, 32 - bc, 0)
    up = ((v.view(U32).astype(np.uint64) << sh1) & 0xFFFFFFFF).astype(U32)
    if x.t == S:
        r = up.view(I32) >> sh2.astype(I32)
        return np.where(bc > 0, r, I32(0)).astype(I32)
    r = up >> sh2.astype(U32)
    return np.where(bc > 0, r, U32(0)).astype(U32)


@alu("BFINS")
def op_bfins(x, base, ins, o, b):
    # tgsi.rst BFI: mask = ((1 << bits) - 1) << offset (all ones for bits 32, offset 0);
    # ((insert << offset) & mask) | (base & ~mask)
    oc, bc = _window(o, b)
    mask = (((np.int64(1) << bc) - 1) << oc) & 0xFFFFFFFF
    shifted = (ins.astype(np.int64) << oc) & 0xFFFFFFFF
    r = (shifted & mask) | (base.astype(np.int64) & ~mask & 0xFFFFFFFF)
    return r.astype(U32)


_BIT_REVERSED_BYTE = np.array([int(f"{i:08b}"[::-1], 2) for i in range(256)], np.uint32)


@alu("BREV")
def op_brev(x, a):
    # tgsi.rst BREV (SM5 BFREV): bit i of the result is bit 31 - i of the operand
    a = a.view(U32)
    r = np.zeros_like(a)
    for k in range(4):
        r |= _BIT_REVERSED_BYTE[(a >> U32(8 * k)) & U32(0xFF)] << U32(24 - 8 * k)
    return r


def _popcount(a):
    a = a.view(U32).astype(np.uint64)
    n = np.zeros(a.shape, np.uint64)
    for k in range(32):
        n += (a >> np.uint64(k)) & np.uint64(1)
    return n.astype(U32)


@alu("POPC")
def op_popc(x, a):
    # tgsi.rst POPC (SM5 COUNTBITS): the number of set bits
    return _popcount(a)


@alu("LSB")
def op_lsb(x, a):
    # tgsi.rst LSB (SM5 FIRSTBIT_LO): index of the lowest set bit, -1 if none
    a = a.view(U32)
    low = a & (~a + U32(1))                     # the lowest set bit alone
    return np.where(a == 0, I32(-1), _popcount(low - U32(1)).astype(I32))


@alu("MSB")
def op_msb(x, a):
    # tgsi.rst UMSB (SM5 FIRSTBIT_HI): index of the highest set bit, -1 if none; IMSB (SM5
    # FIRSTBIT_SHI): of the highest bit that differs from the sign bit, -1 for 0 and -1
    u = a.view(U32)
    if x.t == S:
        u = np.where(a.view(I32) < 0, ~u, u)
    idx = np.full(u.shape, -1, I32)
    for k in range(32):
        idx = np.where((u >> U32(k)) & U32(1) != 0, I32(k), idx)
    return idx


# ---- FMA, LDEXP (issue 20; tgsi.rst) --------------------------------------------------------

@alu("FMA")
def op_fma(x, a, b, c):
    # tgsi.rst FMA: a * b + c "with no intermediate rounding step".  The float32 product is
    # exact in float64; the float64 sum s is rounded once more to float32, which is wrong only
    # where s lies exactly halfway between two float32 values while the exact sum does not
    # (double rounding): there the exact sum's side of the halfway point decides (its float64
    # rounding error, from TwoSum, gives the side).
    F64 = np.float64
    p = a.astype(F64) * b.astype(F64)
    c64 = c.astype(F64)
    with np.errstate(all="ignore"):
        s = p + c64
        bb = s - p
        err = (p - (s - bb)) + (c64 - bb)
        r = s.astype(F32)
        r64 = r.astype(F64)
        toward = np.where(s > r64, F32(np.inf), F32(-np.inf))
        other = np.nextafter(r, toward)
        halfway = (r64 != s) & ((r64 + other.astype(F64)) * 0.5 == s) & np.isfinite(s) & (err != 0)
        up = np.where(err > 0, np.maximum(r, other), np.minimum(r, other))
    return np.where(halfway, up, r).astype(F32)


@alu("LDEXP")
def op_ldexp(x, a, e):
    # tgsi.rst LDEXP: src0 * 2^src1, src1 an integer; exact scaling, rounded once (subnormal
    # results round to nearest even; overflow gives +-INF)
    with np.errstate(all="ignore"):
        e = np.clip(e.astype(np.int64), -400, 400)       # beyond, every float32 is 0 or INF
        return np.ldexp(a.astype(np.float64), e).astype(F32)


# ---- TGSI snorm8 packing (issue 20; IR PK4SNORM/UP4SNORM) ---------------------------------------

@alu("PK4SNORM")
def op_pk4snorm(x, a):
    # tgsi.rst PK4B: f32_to_snorm8 per component (Mesa: lroundeven(CLAMP(v, -1, 1) * 127)),
    # two's complement bytes, x in the least significant byte; NaN packs as 0 (as PK4UB)
    v = _clamp01_nan0(a, F32(-1), F32(1))
    b = (np.rint(F32(127) * v).astype(np.int32) & 0xFF).astype(U32)
    return _packed(x, b[:, 0] | (b[:, 1] << U32(8)) | (b[:, 2] << U32(16)) | (b[:, 3] << U32(24)))


@alu("UP4SNORM")
def op_up4snorm(x, a):
    # TGSI UP4B ("TBD" in tgsi.rst): the inverse of PK4B, snorm8 -> float: max(byte / 127, -1)
    w = _raw(a)
    cols = []
    for i in range(4):
        byte = ((w >> U32(8 * i)) & U32(0xFF)).astype(np.int32)
        signed = np.where(byte >= 128, byte - 256, byte).astype(F32)
        cols.append(np.maximum(signed / F32(127), F32(-1)))
    return _stack(*cols)


@alu("READHELPER")
def op_readhelper(x):
    # tgsi.rst READ_HELPER: ~0 where the invocation is a helper.  The executor runs no helper
    # invocations of its own (every lane is a fragment), so: the lanes DEMOTE made helpers
    lanes = x.st.all_lanes if x.idx is None else x.idx
    helper = x.st.killed[lanes]
    return np.where(helper, U32(0xFFFFFFFF), U32(0))[:, None].repeat(4, axis=1)
