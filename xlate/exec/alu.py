"""ALU opcodes: one small function per opcode, registered in :data:`ALU` by name.

Each function receives ``x`` (the compiled instruction: ``x.t`` the operand data type,
``x.rt`` the result data type, ``x.inst`` the IR instruction, ``x.st``/``x.idx`` the running
state and lanes) and the loaded operands as typed arrays -- float32 / int32 / uint32 per
``OpInfo.operand_type`` -- of shape (k, 4) for vector operands and (k, 1) for scalar ones
(k may be 1 when an operand is the same on every lane).  It returns the result as an array of
the result type's NumPy dtype, shape (k|1, 4) or (k|1, 1) for scalar results (replicated to
every component by the writer, GP4 §2.X.4.3 / digest §10.1 item 1).

Float arithmetic is IEEE float32 (NumPy), each operation rounded separately (no fusing), dot
products summed left to right.  Integer arithmetic wraps modulo 2^32.  Section numbers are those
of NV_gpu_program4 (GP4) §2.X.8.Z unless a digest (nv_dialects.md) section is named.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from ..ir.model import DataType, Stage

F, S, U = DataType.FLOAT, DataType.INT, DataType.UINT
U32, I32, F32 = np.uint32, np.int32, np.float32
NP = {F: F32, S: I32, U: U32, DataType.NONE: U32}

ALU: dict[str, Callable] = {}


def alu(*names: str):
    def deco(fn):
        for n in names:
            ALU[n] = fn
        return fn
    return deco


# ---- helpers ---------------------------------------------------------------------------------

def _u(a):
    return a.view(U32)


def _as(u: np.ndarray, t: DataType) -> np.ndarray:
    """uint32 words -> the NumPy type of ``t`` (bit reinterpretation)."""
    return u.view(NP[t])


def _stack(*cols) -> np.ndarray:
    """Columns (k|1,) -> (k, 4) (broadcast)."""
    cols = np.broadcast_arrays(*cols)
    return np.stack(cols, axis=1)


def _dot(a, b, n):
    """Left-to-right sum of products ((x+y)+z)+w, float32 (GP4 DP2/DP3/DP4 pseudocode)."""
    s = a[:, 0] * b[:, 0]
    for i in range(1, n):
        s = s + a[:, i] * b[:, i]
    return s


def _true_false(x, t: DataType):
    """Set-on TRUE/FALSE values (GP4 SEQ..SNE): 1.0/0.0 (F), -1/0 (S), 0xFFFFFFFF/0 (U)."""
    if t == F:
        return F32(1.0), F32(0.0)
    if t == S:
        return I32(-1), I32(0)
    return U32(0xFFFFFFFF), U32(0)


# ---- moves, absolute value, negation-free basics -------------------------------------------

@alu("MOV", "SWZ")
def op_mov(x, a):
    # GP4 MOV: result = VectorLoad(op0); SWZ: the extended swizzle (selectors 4/5, comp_neg)
    # is already applied by the operand loader (GP4 SWZ pseudocode).
    return a


@alu("ABS")
def op_abs(x, a):
    # GP4 ABS; int: |INT_MIN| = INT_MIN (GP4 issue 22); uint: no-op.
    if x.t == U:
        return a
    return np.abs(a)


# ---- add / sub / mul / mad -------------------------------------------------------------------

@alu("ADD")
def op_add(x, a, b):
    # GP4 ADD; integers wrap modulo 2^32 (digest §5.1)
    if x.t == F:
        return a + b
    return _as(_u(a) + _u(b), x.t)


@alu("SUB")
def op_sub(x, a, b):
    # GP4 SUB
    if x.t == F:
        return a - b
    return _as(_u(a) - _u(b), x.t)


@alu("MUL")
def op_mul(x, a, b):
    # GP4 MUL: float product; integer: low 32 bits; .HI: high 32 bits of the 64-bit product
    # (signed or unsigned per type); .S24/.U24 behave like the plain integer multiply.
    if x.t == F:
        return a * b
    if x.inst.mul_mode == "HI":
        if x.t == S:
            return ((a.astype(np.int64) * b.astype(np.int64)) >> 32).astype(I32)
        return ((a.astype(np.uint64) * b.astype(np.uint64)) >> np.uint64(32)).astype(U32)
    return _as(_u(a) * _u(b), x.t)


@alu("MAD")
def op_mad(x, a, b, c):
    # GP4 MAD: "subject to the same rules as MUL and ADD": round(round(a*b) + c), not fused.
    if x.t == F:
        return a * b + c
    return _as(_u(a) * _u(b) + _u(c), x.t)


@alu("DIV")
def op_div(x, a, b):
    # GP4 DIV: float a / b (IEEE).  Integer division truncates toward zero (C; digest §12
    # item 28).  Division by zero is undefined in GP4; project choice: all bits set
    # (0xFFFFFFFF for .U, -1 for .S) regardless of the dividend.  INT_MIN / -1 wraps to INT_MIN.
    if x.t == F:
        return a / b
    a64, b64 = np.broadcast_arrays(a.astype(np.int64), b.astype(np.int64))
    zero = b64 == 0
    bnz = np.where(zero, 1, b64)
    if x.t == S:
        qa = np.abs(a64) // np.abs(bnz)
        q = np.where((a64 < 0) != (bnz < 0), -qa, qa)
    else:
        q = a64 // bnz
    q = np.where(zero, -1, q)
    return _as((q & 0xFFFFFFFF).astype(U32), x.t)


@alu("MOD")
def op_mod(x, a, b):
    # GP4 MOD: C remainder (sign of the dividend; GP4 leaves negative operands undefined).
    # Modulus by zero: project choice, all bits set (like DIV).
    a64, b64 = np.broadcast_arrays(a.astype(np.int64), b.astype(np.int64))
    zero = b64 == 0
    bnz = np.where(zero, 1, b64)
    r = np.fmod(a64, bnz) if x.t == S else a64 % bnz
    r = np.where(zero, -1, r)
    return _as((r & 0xFFFFFFFF).astype(U32), x.t)


@alu("SAD")
def op_sad(x, a, b, c):
    # GP4 SAD: |a - b| + c; a, b of the instruction type, c and the result unsigned.  The
    # absolute difference is computed exactly (64-bit), wrapped to 32 bits, then c is added
    # modulo 2^32 (digest §10.2 item 22).
    d = np.abs(a.astype(np.int64) - b.astype(np.int64)) & 0xFFFFFFFF
    return d.astype(U32) + c


# ---- bitwise and shifts ---------------------------------------------------------------------

@alu("AND")
def op_and(x, a, b):
    return a & b          # GP4 AND


@alu("OR")
def op_or(x, a, b):
    return a | b          # GP4 OR


@alu("XOR")
def op_xor(x, a, b):
    return a ^ b          # GP4 XOR


@alu("NOT")
def op_not(x, a):
    return ~a             # GP4 NOT


@alu("SHL")
def op_shl(x, a, b):
    # GP4 SHL: count >= 32 or negative is undefined; project choice: count & 31.
    n = _u(b) & U32(31)
    return _as(_u(a) << n, x.t)


@alu("SHR")
def op_shr(x, a, b):
    # GP4 SHR: arithmetic (sign-filling) for .S, logical for .U; count & 31 (project choice).
    n = _u(b) & U32(31)
    if x.t == S:
        return a >> n.astype(I32)
    return _u(a) >> n


# ---- comparisons, selects -------------------------------------------------------------------

def _setop(cmp):
    def fn(x, a, b):
        tv, fv = _true_false(x, x.rt)
        return np.where(cmp(a, b), tv, fv)
    return fn


# GP4 SEQ/SGE/SGT/SLE/SLT/SNE: C comparisons of the typed operands; for floats IEEE (NaN
# compares false, so SNE is true on NaN; digest §9/§10.6).
ALU["SEQ"] = _setop(np.equal)
ALU["SGE"] = _setop(np.greater_equal)
ALU["SGT"] = _setop(np.greater)
ALU["SLE"] = _setop(np.less_equal)
ALU["SLT"] = _setop(np.less)
ALU["SNE"] = _setop(np.not_equal)


@alu("SFL")
def op_sfl(x, a, b):
    # GP4 SFL: constant FALSE
    return np.full((1, 4), _true_false(x, x.rt)[1])


@alu("STR")
def op_str(x, a, b):
    # GP4 STR: constant TRUE
    return np.full((1, 4), _true_false(x, x.rt)[0])


@alu("CMP")
def op_cmp(x, a, b, c):
    # GP4 CMP: (a < 0) ? b : c  (NaN and -0.0 select c; unsigned a never < 0)
    return np.where(a < 0, b, c)


@alu("MAX")
def op_max(x, a, b):
    # GP4 MAX: (a > b) ? a : b
    return np.where(a > b, a, b)


@alu("MIN")
def op_min(x, a, b):
    # GP4 MIN: (a > b) ? b : a
    return np.where(a > b, b, a)


@alu("SSG")
def op_ssg(x, a):
    # GP4 SSG: 1.0 if a > 0, -1.0 if a < 0, else 0.0 (so +-0 -> 0 and NaN -> 0: project choice)
    return np.where(a > 0, F32(1), np.where(a < 0, F32(-1), F32(0))).astype(F32)


# ---- rounding and conversion ----------------------------------------------------------------

def _float_to_int(x, f: np.ndarray) -> np.ndarray:
    """Result of FLR/CEIL/ROUND/TRUNC in the result type: float unchanged; .S/.U clamp to the
    integer range (GP4 issue 41; digest §12 item 26), NaN -> 0 (project choice)."""
    if x.rt == F:
        return f
    d = f.astype(np.float64)
    lo, hi = (-(1 << 31), (1 << 31) - 1) if x.rt == S else (0, (1 << 32) - 1)
    d = np.where(np.isnan(d), 0.0, np.clip(d, lo, hi))
    return d.astype(np.int64).astype(NP[x.rt])


@alu("FLR")
def op_flr(x, a):
    return _float_to_int(x, np.floor(a))       # GP4 FLR


@alu("CEIL")
def op_ceil(x, a):
    return _float_to_int(x, np.ceil(a))        # GP4 CEIL


@alu("TRUNC")
def op_trunc(x, a):
    return _float_to_int(x, np.trunc(a))       # GP4 TRUNC


@alu("ROUND")
def op_round(x, a):
    return _float_to_int(x, np.rint(a))        # GP4 ROUND: half to even


@alu("FRC")
def op_frc(x, a):
    return a - np.floor(a)                     # GP4 FRC: a - floor(a); FRC(+-INF) = NaN


@alu("I2F")
def op_i2f(x, a):
    # GP4 I2F: nearest float32 (GP4 issue 41); .S signed, .U unsigned.  Via float64, which holds
    # every 32-bit integer exactly, so the float32 conversion rounds once (to nearest even).
    return a.astype(np.float64).astype(F32)


# ---- scalar transcendental and reciprocal ops ----------------------------------------------

@alu("RCP")
def op_rcp(x, a):
    return F32(1) / a                          # GP4 RCP: 1/a (+-0 -> +-INF, +-INF -> +-0)


@alu("RSQ")
def op_rsq(x, a):
    # GP4 RSQ: 1/sqrt(a), no implicit |a| in NV4 (GP4 RSQ note; digest §5.3)
    return F32(1) / np.sqrt(a)


_TWO_M64, _TWO_P64 = F32(2.0 ** -64), F32(2.0 ** 64)


@alu("RCC")
def op_rcc(x, a):
    # GP4 RCC: 1/a with its magnitude clamped to [2^-64, 2^64], sign kept (digest §5.3:
    # RCC(+0) = 2^64, RCC(-0) = -2^64, RCC(+INF) = 2^-64); NaN passes.
    r = F32(1) / a
    m = np.abs(r)
    m = np.where(m < _TWO_M64, _TWO_M64, np.where(m > _TWO_P64, _TWO_P64, m))
    return np.copysign(m, r).astype(F32)


@alu("EX2")
def op_ex2(x, a):
    return np.exp2(a)                          # GP4 EX2


@alu("LG2")
def op_lg2(x, a):
    return np.log2(a)                          # GP4 LG2 (undefined for a <= 0: IEEE log2)


@alu("POW")
def op_pow(x, a, b):
    # GP4 POW: ApproxPower(a, b) = ApproxExp2(b * ApproxLog2(a))
    return np.exp2(b * np.log2(a))


@alu("SIN")
def op_sin(x, a):
    return np.sin(a)                           # GP4 SIN


@alu("COS")
def op_cos(x, a):
    return np.cos(a)                           # GP4 COS


@alu("SCS")
def op_scs(x, a):
    # GP4 SCS: (cos a, sin a, undefined, undefined); project choice: z = w = 0.0
    c, s = np.cos(a[:, 0]), np.sin(a[:, 0])
    z = np.zeros_like(c)
    return _stack(c, s, z, z)


# ---- dot products and vector ops ------------------------------------------------------------

@alu("DP2")
def op_dp2(x, a, b):
    return _dot(a, b, 2)[:, None]              # GP4 DP2


@alu("DP2A")
def op_dp2a(x, a, b, c):
    return (_dot(a, b, 2) + c[:, 0])[:, None]  # GP4 DP2A: (a.x*b.x + a.y*b.y) + c.x


@alu("DP3")
def op_dp3(x, a, b):
    return _dot(a, b, 3)[:, None]              # GP4 DP3


@alu("DP4")
def op_dp4(x, a, b):
    return _dot(a, b, 4)[:, None]              # GP4 DP4


@alu("DPH")
def op_dph(x, a, b):
    return (_dot(a, b, 3) + b[:, 3])[:, None]  # GP4 DPH: dot3 + b.w (a.w ignored)


@alu("DST")
def op_dst(x, a, b):
    # GP4 DST: (1, a.y*b.y, a.z, b.w)
    y = a[:, 1] * b[:, 1]
    return _stack(np.ones_like(y), y, a[:, 2], b[:, 3])


@alu("XPD")
def op_xpd(x, a, b):
    # GP4 XPD: cross product of xyz; w undefined, project choice 0.0
    cx = a[:, 1] * b[:, 2] - a[:, 2] * b[:, 1]
    cy = a[:, 2] * b[:, 0] - a[:, 0] * b[:, 2]
    cz = a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0]
    return _stack(cx, cy, cz, np.zeros_like(cx))


@alu("NRM")
def op_nrm(x, a):
    # GP4 NRM: xyz * RSQ(dot3(a, a)); w undefined, project choice 0.0
    scale = F32(1) / np.sqrt(_dot(a, a, 3))
    xyz = a[:, :3] * scale[:, None]
    return _stack(xyz[:, 0], xyz[:, 1], xyz[:, 2], np.zeros_like(scale))


@alu("RFL")
def op_rfl(x, a, b):
    # GP4 RFL pseudocode: w' = dot3(a,a); t = 2*dot3(a,b); t = t / w'; r = t*a - b; w undefined
    # (project choice 0.0)
    nn = _dot(a, a, 3)
    t = (F32(2) * _dot(a, b, 3)) / nn
    r = t[:, None] * a[:, :3] - b[:, :3]
    return _stack(r[:, 0], r[:, 1], r[:, 2], np.zeros_like(t))


@alu("X2D")
def op_x2d(x, a, b, c):
    # GP4 X2D: x = a.x + b.x*c.x + b.y*c.y; y = a.y + b.x*c.z + b.y*c.w; result (x, y, x, y),
    # summed left to right as the C expression: (a.x + b.x*c.x) + b.y*c.y
    rx = (a[:, 0] + b[:, 0] * c[:, 0]) + b[:, 1] * c[:, 1]
    ry = (a[:, 1] + b[:, 0] * c[:, 2]) + b[:, 1] * c[:, 3]
    return _stack(rx, ry, rx, ry)


@alu("LRP")
def op_lrp(x, a, b, c):
    # GP4 LRP: a*b + (1 - a)*c
    return a * b + (F32(1) - a) * c


_LIT_MAX = F32(128.0 - 1.0 / 256.0)   # 128 - epsilon, epsilon = 1/256 (digest §12 item 20)


@alu("LIT")
def op_lit(x, a):
    # GP4 LIT pseudocode:
    #   if (x < 0) x = 0;  if (y < 0) y = 0;  clamp w to +-(128 - epsilon);
    #   result = (1, x, x > 0 ? RoughApproxPower(y, w) : 0, 1)
    # Power: 0^0 = 1 (explicit in GP4), 0^(w>0) = 0, 0^(w<0) = +INF (digest §5.6, §12 item 21),
    # otherwise exp2(w * log2(y)).
    ax, ay, aw = a[:, 0], a[:, 1], a[:, 3]
    ax = np.where(ax < 0, F32(0), ax)
    ay = np.where(ay < 0, F32(0), ay)
    aw = np.where(aw < -_LIT_MAX, -_LIT_MAX, np.where(aw > _LIT_MAX, _LIT_MAX, aw))
    general = np.exp2(aw * np.log2(ay))
    at_zero = np.where(aw == 0, F32(1), np.where(aw > 0, F32(0),
                                                  np.where(aw < 0, F32(np.inf), general)))
    power = np.where(ay == 0, at_zero, general)
    z = np.where(ax > 0, power, F32(0))
    one = np.ones_like(ax)
    return _stack(one, ax, z, one).astype(F32)


# ---- pack / unpack (digest §5.8; GP4 PK2H ... UP4UB) ----------------------------------------

def _packed(x, word: np.ndarray) -> np.ndarray:
    """A packed uint32 word (k,) -> result column (k, 1) carrying the raw bits in the result
    type (GP4: 'the result is written as a floating-point value, a signed integer, or an
    unsigned integer' -- the bits are the same)."""
    return _as(word.astype(U32), x.rt)[:, None]


def _clamp01_nan0(v, lo, hi):
    # the GP4 pseudocode clamps with `if (v < lo) v = lo; if (v > hi) v = hi;`; a NaN would
    # reach round() -- undefined; project choice: NaN packs as 0.0.
    v = np.where(np.isnan(v), F32(0), v)
    return np.where(v < lo, lo, np.where(v > hi, hi, v))


@alu("PK2H")
def op_pk2h(x, a):
    # GP4 PK2H: fp16(x) | fp16(y) << 16; float16 conversion is IEEE round-to-nearest-even
    h = a[:, :2].astype(np.float16).view(np.uint16).astype(U32)
    return _packed(x, h[:, 0] | (h[:, 1] << U32(16)))


@alu("PK2US")
def op_pk2us(x, a):
    # GP4 PK2US: clamp [0,1], round(65535 * v) (round half to even), x in the low half
    v = _clamp01_nan0(a[:, :2], F32(0), F32(1))
    us = np.rint(F32(65535) * v).astype(U32)
    return _packed(x, us[:, 0] | (us[:, 1] << U32(16)))


_M128_127 = F32(-128.0 / 127.0)


@alu("PK4B")
def op_pk4b(x, a):
    # GP4 PK4B: clamp [-128/127, 127/127], byte = round(127*v + 128) -- excess-128 encoding
    v = _clamp01_nan0(a, _M128_127, F32(1))
    ub = np.clip(np.rint(F32(127) * v + F32(128)), 0, 255).astype(U32)
    return _packed(x, ub[:, 0] | (ub[:, 1] << U32(8)) | (ub[:, 2] << U32(16)) | (ub[:, 3] << U32(24)))


@alu("PK4UB")
def op_pk4ub(x, a):
    # GP4 PK4UB: clamp [0,1], byte = round(255 * v), x in the least significant byte
    v = _clamp01_nan0(a, F32(0), F32(1))
    ub = np.rint(F32(255) * v).astype(U32)
    return _packed(x, ub[:, 0] | (ub[:, 1] << U32(8)) | (ub[:, 2] << U32(16)) | (ub[:, 3] << U32(24)))


def _raw(a):
    """'The 32 least significant bits of the encoding' of a scalar operand (k,)."""
    return _u(a)[:, 0]


@alu("UP2H")
def op_up2h(x, a):
    # GP4 UP2H: (h(lo), h(hi), h(lo), h(hi))
    w = _raw(a)
    lo = (w & U32(0xFFFF)).astype(np.uint16).view(np.float16).astype(F32)
    hi = (w >> U32(16)).astype(np.uint16).view(np.float16).astype(F32)
    return _stack(lo, hi, lo, hi)


@alu("UP2US")
def op_up2us(x, a):
    # GP4 UP2US: (lo/65535, hi/65535, lo/65535, hi/65535)
    w = _raw(a)
    lo = (w & U32(0xFFFF)).astype(F32) / F32(65535)
    hi = (w >> U32(16)).astype(F32) / F32(65535)
    return _stack(lo, hi, lo, hi)


@alu("UP4B")
def op_up4b(x, a):
    # GP4 UP4B: ((byte_i - 128) / 127), byte 0 = x
    w = _raw(a)
    cols = [(((w >> U32(8 * i)) & U32(0xFF)).astype(F32) - F32(128)) / F32(127) for i in range(4)]
    return _stack(*cols)


@alu("UP4UB")
def op_up4ub(x, a):
    # GP4 UP4UB: byte_i / 255
    w = _raw(a)
    cols = [((w >> U32(8 * i)) & U32(0xFF)).astype(F32) / F32(255) for i in range(4)]
    return _stack(*cols)


# ---- derivatives ------------------------------------------------------------------------------

def _partner_lanes(lanes: np.ndarray, total: int, axis: str):
    """Lanes form 2x2 quads in lane order: 4k+0 (x0,y0), 4k+1 (x1,y0), 4k+2 (x0,y1),
    4k+3 (x1,y1).  Returns (first, second) lanes of the row (DDX) or column (DDY) pair; a
    partner missing past the last lane is replaced by the first lane (derivative 0)."""
    q = lanes - (lanes & 3)
    r = lanes & 3
    if axis == "x":
        first = q + (r & 2)
        second = first + 1
    else:
        first = q + (r & 1)
        second = first + 2
    second = np.where(second >= total, first, second)
    return first, second


def _derivative(x, a, axis):
    # FP4 DDX/DDY (digest §5.9): fine differences within 2x2 quads of lanes (NV_fragment_program4
    # 2.X.8.Z: evaluated per pixel; GLSL dFdxFine/dFdyFine)
    # (see _partner_lanes), value(x1) - value(x0) / value(y1) - value(y0), the same for both
    # lanes of the pair.  Vertex and geometry programs: 0 (GP4 §2.X.4.4 ComputePartials).
    if x.stage != Stage.FRAGMENT:
        return np.zeros((1, 4), F32)
    full = x.loaders[0](x.st, None)           # the operand on every lane of the chunk
    if full.shape[0] == 1:
        return np.zeros((1, 4), F32)
    lanes = x.st.all_lanes if x.idx is None else x.idx
    first, second = _partner_lanes(lanes, full.shape[0], axis)
    return full[second] - full[first]


@alu("DDX")
def op_ddx(x, a):
    return _derivative(x, a, "x")


@alu("DDY")
def op_ddy(x, a):
    return _derivative(x, a, "y")


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
