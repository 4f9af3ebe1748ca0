"""ALU opcodes: one small function per opcode, registered in :data:`ALU` by name -- here those
of NV_gpu_program4, in :mod:`.alu_dialects` those only other dialects have (older NV/ARB, FP1,
TGSI).

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
