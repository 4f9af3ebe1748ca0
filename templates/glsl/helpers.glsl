// Helper functions of the generated GLSL.  Each section starts with "//@ name" (and optional
// "needs: other ..."); the backend emits a section only when an instruction uses it.
// Semantics mirror the executor exactly (xlate/exec); comments cite the spec.
// A section "name@<profile>" replaces "name" in that profile.  glsl330: GLSL 3.30 lacks integer
// mix (GLSL 4.50), uaddCarry/usubBorrow/umulExtended/imulExtended (4.00) and the packing functions
// (4.00/4.20); its sections compute the same bits with operations GLSL 3.30 has (integer
// arithmetic wraps modulo 2^32), and its packing helpers follow the executor (numpy's float16
// rules, round half to even) where the 4.50 built-ins leave rounding and NaN to the implementation.
// (Text before the first section, like this, is never emitted.)

//@ sat
// _SAT/_SSAT: "if (r < lo) r = lo; else if (r > hi) r = hi;" (GP4 2.X.4.3) - NaN passes through,
// so clamp() (undefined for NaN) is not used.
vec4 xl_sat(vec4 x) { return mix(mix(x, vec4(1.0), greaterThan(x, vec4(1.0))), vec4(0.0), lessThan(x, vec4(0.0))); }
vec4 xl_ssat(vec4 x) { return mix(mix(x, vec4(1.0), greaterThan(x, vec4(1.0))), vec4(-1.0), lessThan(x, vec4(-1.0))); }

//@ f2i
// Float to int conversions clamp to the representable range, NaN gives 0 (GP4 issue 41).
ivec4 xl_f2i(vec4 x) {
    ivec4 r = ivec4(clamp(x, -2147483648.0, 2147483520.0));
    r = mix(r, ivec4(0x7fffffff), greaterThanEqual(x, vec4(2147483648.0)));
    return mix(r, ivec4(0), isnan(x));
}

//@ f2u
uvec4 xl_f2u(vec4 x) {
    uvec4 r = uvec4(clamp(x, 0.0, 4294967040.0));
    r = mix(r, uvec4(0xffffffffu), greaterThanEqual(x, vec4(4294967296.0)));
    return mix(r, uvec4(0u), isnan(x));
}

//@ idiv
// Integer DIV/MOD (GP4 2.X.8.Z): the quotient truncates toward zero, the remainder takes the
// dividend's sign (C); INT_MIN / -1 wraps.  GP4 leaves division by zero (and MOD of negative
// operands) undefined -- project choice, as the executor (xlate/exec/alu.py): all bits set.
// GLSL leaves "/" and "%" by zero and "%" of negative operands undefined too, and an
// implementation really returns garbage there (llvmpipe), so these compute on magnitudes as
// unsigned values; (q ^ s) - s negates q where s is all ones (no integer mix: GLSL 3.30 lacks it).
ivec4 xl_div(ivec4 a, int b) {
    uvec4 sa = uvec4(0u) - uvec4(lessThan(a, ivec4(0)));
    uint bm = b < 0 ? 0u - uint(b) : uint(b);
    uvec4 q = ((uvec4(a) ^ sa) - sa) / max(bm, 1u);
    uvec4 sq = sa ^ uvec4(b < 0 ? 0xffffffffu : 0u);
    return b == 0 ? ivec4(-1) : ivec4((q ^ sq) - sq);
}
uvec4 xl_div(uvec4 a, uint b) { return b == 0u ? uvec4(0xffffffffu) : a / b; }
ivec4 xl_mod(ivec4 a, int b) {
    uvec4 sa = uvec4(0u) - uvec4(lessThan(a, ivec4(0)));
    uint bm = b < 0 ? 0u - uint(b) : uint(b);
    uvec4 r = ((uvec4(a) ^ sa) - sa) % max(bm, 1u);
    return b == 0 ? ivec4(-1) : ivec4((r ^ sa) - sa);
}
uvec4 xl_mod(uvec4 a, uint b) { return b == 0u ? uvec4(0xffffffffu) : a % b; }

//@ cmp
// CMP: a < 0 ? b : c per component (-0.0 and NaN select c).
vec4 xl_cmp(vec4 a, vec4 b, vec4 c) { return mix(c, b, lessThan(a, vec4(0.0))); }
ivec4 xl_cmp(ivec4 a, ivec4 b, ivec4 c) { return mix(c, b, lessThan(a, ivec4(0))); }
uvec4 xl_cmp(uvec4 a, uvec4 b, uvec4 c) { return c; }

//@ dot
// Dot products summed left to right, as the executor does (no dot(): its order is unspecified).
float xl_dp2(vec4 a, vec4 b) { return a.x * b.x + a.y * b.y; }
float xl_dp3(vec4 a, vec4 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
float xl_dp4(vec4 a, vec4 b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }

//@ dst
vec4 xl_dst(vec4 a, vec4 b) { return vec4(1.0, a.y * b.y, a.z, b.w); }

//@ frc
vec4 xl_frc(vec4 a) { return a - floor(a); }

//@ lit
// LIT (GP4 2.X.8.Z): x, y clamped at 0 (NaN kept), w clamped to +-(128 - 1/256);
// z = x > 0 ? y^w : 0 with 0^0 = 1, 0^(w>0) = 0, 0^(w<0) = +INF.
vec4 xl_lit(vec4 a) {
    float x = a.x < 0.0 ? 0.0 : a.x;
    float y = a.y < 0.0 ? 0.0 : a.y;
    const float e = 127.99609375;
    float w = a.w < -e ? -e : (a.w > e ? e : a.w);
    float p = y == 0.0 ? (w == 0.0 ? 1.0 : (w > 0.0 ? 0.0 : uintBitsToFloat(0x7f800000u)))
                       : exp2(w * log2(y));
    return vec4(1.0, x, x > 0.0 ? p : 0.0, 1.0);
}

//@ lrp
vec4 xl_lrp(vec4 a, vec4 b, vec4 c) { return a * b + (vec4(1.0) - a) * c; }

//@ minmax
// MIN = a > b ? b : a, MAX = a > b ? a : b (GP4 pseudocode; NaN handling follows from it).
vec4 xl_min(vec4 a, vec4 b) { return mix(a, b, greaterThan(a, b)); }
ivec4 xl_min(ivec4 a, ivec4 b) { return mix(a, b, greaterThan(a, b)); }
uvec4 xl_min(uvec4 a, uvec4 b) { return mix(a, b, greaterThan(a, b)); }
vec4 xl_max(vec4 a, vec4 b) { return mix(b, a, greaterThan(a, b)); }
ivec4 xl_max(ivec4 a, ivec4 b) { return mix(b, a, greaterThan(a, b)); }
uvec4 xl_max(uvec4 a, uvec4 b) { return mix(b, a, greaterThan(a, b)); }

//@ mulhi
ivec4 xl_mulhi(ivec4 a, ivec4 b) { ivec4 hi, lo; imulExtended(a, b, hi, lo); return hi; }
uvec4 xl_mulhi(uvec4 a, uvec4 b) { uvec4 hi, lo; umulExtended(a, b, hi, lo); return hi; }

//@ nrm
vec4 xl_nrm(vec4 a) { return vec4(a.xyz * (1.0 / sqrt(a.x * a.x + a.y * a.y + a.z * a.z)), 0.0); }

//@ pk4b
// PK4B: excess-128 bytes, round(127 * clamp(v, -128/127, 1) + 128), x in the low byte; NaN
// packs as 0 (executor op_pk4b): clamp of NaN is undefined in GLSL, and llvmpipe gave different
// bytes in two compilations of one program (corpus/dialects/arbfp_nv_pack.fp).
uint xl_pk4b(vec4 a) {
    uvec4 b = uvec4(roundEven(clamp(mix(a, vec4(0.0), isnan(a)), -128.0 / 127.0, 1.0) * 127.0 + 128.0));
    return b.x | (b.y << 8) | (b.z << 16) | (b.w << 24);
}

//@ up4b
vec4 xl_up4b(uint u) { return (vec4((uvec4(u) >> uvec4(0u, 8u, 16u, 24u)) & 0xffu) - 128.0) / 127.0; }

//@ rcc
// RCC: 1/a with the magnitude clamped to [2^-64, 2^64], sign kept (GP4 2.X.8.Z RCC).
float xl_rcc(float a) {
    float u = 1.0 / a;
    float lo = uintBitsToFloat(0x1f800000u), hi = uintBitsToFloat(0x5f800000u);
    if (isnan(u)) return u;
    if (floatBitsToUint(u) < 0x80000000u) return u < lo ? lo : (u > hi ? hi : u);
    return u > -lo ? -lo : (u < -hi ? -hi : u);
}

//@ rfl
vec4 xl_rfl(vec4 a, vec4 b) {
    float s = 2.0 * (a.x * b.x + a.y * b.y + a.z * b.z) / (a.x * a.x + a.y * a.y + a.z * a.z);
    return vec4(s * a.xyz - b.xyz, 0.0);
}

//@ sad
ivec4 xl_sad(ivec4 a, ivec4 b, uvec4 c) { return ivec4(mix(uvec4(b - a), uvec4(a - b), greaterThan(a, b)) + c); }
uvec4 xl_sad(uvec4 a, uvec4 b, uvec4 c) { return mix(b - a, a - b, greaterThan(a, b)) + c; }

//@ ssg
vec4 xl_ssg(vec4 a) { return mix(mix(vec4(0.0), vec4(-1.0), lessThan(a, vec4(0.0))), vec4(1.0), greaterThan(a, vec4(0.0))); }

//@ x2d
vec4 xl_x2d(vec4 a, vec4 b, vec4 c) {
    vec2 r = vec2(a.x + b.x * c.x + b.y * c.y, a.y + b.x * c.z + b.y * c.w);
    return r.xyxy;
}

//@ ccf
// Condition-code flags, one uint per component: SF = 1, ZF = 2, OF = 4, CF = 8 (GP4 2.X.4.3).
// Float results: SF = r < 0 or NaN, ZF = r == 0 or NaN; OF and CF cleared.
uvec4 xl_ccf(vec4 r) {
    uvec4 n = uvec4(isnan(r));
    return (uvec4(lessThan(r, vec4(0.0))) | n) | ((uvec4(equal(r, vec4(0.0))) | n) << 1u);
}

//@ cci
// Integer results: SF = bit 31, ZF = r == 0.
uvec4 xl_cci(uvec4 r) { return (r >> 31u) | (uvec4(equal(r, uvec4(0u))) << 1u); }

//@ ccadd  needs: cci
// Integer addition: OF = signed overflow, CF = carry out (GP4 2.X.4.3, issue 23).
uvec4 xl_ccadd(uvec4 a, uvec4 b) {
    uvec4 carry;
    uvec4 r = uaddCarry(a, b, carry);
    return xl_cci(r) | ((((a ^ r) & (b ^ r)) >> 31u) << 2u) | (carry << 3u);
}

//@ ccsub  needs: cci
// Integer subtraction: OF = signed overflow, CF = 1 when there is no borrow (a >= b unsigned).
uvec4 xl_ccsub(uvec4 a, uvec4 b) {
    uvec4 borrow;
    uvec4 r = usubBorrow(a, b, borrow);
    return xl_cci(r) | ((((a ^ b) & (a ^ r)) >> 31u) << 2u) | ((1u - borrow) << 3u);
}

//@ qnan
// The canonical quiet NaN (0x7fc00000) that the executor returns for "NaN" results.
float xl_qnan() { return uintBitsToFloat(0x7fc00000u); }

//@ nanminmax  needs: qnan
// VP2 MIN/MAX (2.14.3.21-22), FP1: NaN if either operand is NaN, else the GP4 select.
vec4 xl_minn(vec4 a, vec4 b) { return mix(mix(a, b, greaterThan(a, b)), vec4(xl_qnan()), bvec4(uvec4(isnan(a)) | uvec4(isnan(b)))); }
vec4 xl_maxn(vec4 a, vec4 b) { return mix(mix(b, a, greaterThan(a, b)), vec4(xl_qnan()), bvec4(uvec4(isnan(a)) | uvec4(isnan(b)))); }

//@ setn  needs: qnan
// VP2 set-on instructions (2.14.3.29-36): 1.0/0.0 from the comparison, NaN if an operand is NaN.
vec4 xl_setn(bvec4 r, vec4 a, vec4 b) { return mix(vec4(r), vec4(xl_qnan()), bvec4(uvec4(isnan(a)) | uvec4(isnan(b)))); }

//@ tkey
// VP1 SGE/SLT total order (2.14.1.11): -NaN < -INF < ... < -0 < +0 < ... < +INF < +NaN, as
// two's-complement keys of the sign-magnitude float bits.
ivec4 xl_tkey(vec4 a) { ivec4 i = floatBitsToInt(a); return mix(i, -(i & 0x7fffffff) - 1, lessThan(i, ivec4(0))); }

//@ ssgn  needs: qnan ssg
// VP2 SSG (2.14.3.37): SetSign(NaN) = NaN.
vec4 xl_ssgn(vec4 a) { return mix(xl_ssg(a), vec4(xl_qnan()), isnan(a)); }

//@ exp  needs: qnan
// EXP (VP1 2.14.1.10.15, VP2 2.14.3.14, ARBVP 2.14.5.9): (2^floor(t) exact, t - floor(t),
// 2^floor(t) * 2^fraction, 1); 2^floor(t) is +INF above 127 and 0 below -126, and then the
// fraction is 0 (VP1 special cases).  Mirrors xlate/exec/alu.py op_exp.
vec4 xl_exp(float t) {
    float f = floor(t);
    float x = f > 127.0 ? uintBitsToFloat(0x7f800000u)
            : (f < -126.0 ? 0.0 : intBitsToFloat((int(f) + 127) << 23));
    if (isnan(t)) return vec4(xl_qnan(), xl_qnan(), xl_qnan(), 1.0);
    float y = (x == 0.0 || isinf(x)) ? 0.0 : t - f;
    return vec4(x, y, x * exp2(y), 1.0);
}

//@ log  needs: qnan
// LOG of |t| (VP1 2.14.1.10.16, VP2 2.14.3.19, ARBVP 2.14.5.14): (exponent, mantissa in [1,2),
// exponent + log2(mantissa), 1); +-0 and denormals -> (-INF, 1, -INF, 1), +-INF -> (+INF, 1,
// +INF, 1), NaN -> NaN.  Mirrors xlate/exec/alu.py op_log.
vec4 xl_log(float t) {
    uint b = floatBitsToUint(t) & 0x7fffffffu;
    uint e = b >> 23;
    float inf = uintBitsToFloat(0x7f800000u);
    if (b > 0x7f800000u) return vec4(xl_qnan(), xl_qnan(), xl_qnan(), 1.0);
    if (e == 0u) return vec4(-inf, 1.0, -inf, 1.0);
    if (e == 255u) return vec4(inf, 1.0, inf, 1.0);
    float x = float(int(e) - 127);
    float m = uintBitsToFloat((b & 0x7fffffu) | 0x3f800000u);
    return vec4(x, m, x + log2(m), 1.0);
}

//@ expa  needs: qnan
// EXP without VP1's special cases (ARBVP 2.14.5.9, VP2 2.14.3.14, tgsi.rst): y = t - floor(t)
// always (NaN for +-INF); z = 0 / +INF where 2^floor(t) underflows / overflows.  Mirrors
// xlate/exec/alu.py op_expa.
vec4 xl_expa(float t) {
    float f = floor(t);
    float x = f > 127.0 ? uintBitsToFloat(0x7f800000u)
            : (f < -126.0 ? 0.0 : intBitsToFloat((int(f) + 127) << 23));
    if (isnan(t)) return vec4(xl_qnan(), xl_qnan(), xl_qnan(), 1.0);
    float y = isinf(t) ? xl_qnan() : t - f;
    return vec4(x, y, (x == 0.0 || isinf(x)) ? x : x * exp2(y), 1.0);
}

//@ loga  needs: qnan
// LOG without VP1's special cases (ARBVP 2.14.5.14, VP2 2.14.3.19, tgsi.rst): y = |t| /
// 2^floor(log2 |t|), NaN for 0 (denormals count as 0) and INF.  Mirrors op_loga.
vec4 xl_loga(float t) {
    uint b = floatBitsToUint(t) & 0x7fffffffu;
    uint e = b >> 23;
    float inf = uintBitsToFloat(0x7f800000u);
    if (b > 0x7f800000u) return vec4(xl_qnan(), xl_qnan(), xl_qnan(), 1.0);
    if (e == 0u) return vec4(-inf, xl_qnan(), -inf, 1.0);
    if (e == 255u) return vec4(inf, xl_qnan(), inf, 1.0);
    float x = float(int(e) - 127);
    float m = uintBitsToFloat((b & 0x7fffffu) | 0x3f800000u);
    return vec4(x, m, x + log2(m), 1.0);
}

//@ litnc
// FP1 LIT (NV_fragment_program 3.11.5.13): no exponent clamp, z = y^w with the POW rules
// (0^0 = NaN, 0^(w>0) = 0, 0^(w<0) = +INF), gated on x > 0 after x, y are clamped at 0.
// log2(0) is undefined in GLSL, so y == 0 is spelled out (the executor: IEEE exp2(w*log2(y))).
vec4 xl_litnc(vec4 a) {
    float x = a.x < 0.0 ? 0.0 : a.x;
    float y = a.y < 0.0 ? 0.0 : a.y;
    float w = a.w;
    float p = y == 0.0 ? (w == 0.0 || isnan(w) ? uintBitsToFloat(0x7fc00000u)
                                               : (w > 0.0 ? 0.0 : uintBitsToFloat(0x7f800000u)))
                       : exp2(w * log2(y));
    return vec4(1.0, x, x > 0.0 ? p : 0.0, 1.0);
}

//@ fp16
// Result conversion to fp16 (IR precision "FP16": FP1 H suffix, H registers, o[COLH], HC; the
// NV_fragment_program options' H suffix and SHORT variables): round to nearest even, overflow
// to +-INF, fp16 denormals kept (FP1 3.11.4.1-2).  The executor uses numpy float16 (the same).
// One component per pack: on lavapipe (Mesa 22.3) the pair form lost the high half of the
// packed pair (random programs arbfp-nv seed 101, arbfp-nv2 seed 105 on Vulkan).
float xl_fp16(float x) { return unpackHalf2x16(packHalf2x16(vec2(x, 0.0))).x; }
vec4 xl_fp16(vec4 x) { return vec4(xl_fp16(x.x), xl_fp16(x.y), xl_fp16(x.z), xl_fp16(x.w)); }

//@ fx12
// Result conversion to fx12 (IR precision "X"): NaN -> 0, clamp to [-2048/1024, 2047/1024],
// round to a multiple of 1/1024, ties to even (FP1 3.11.4.1-2; the rounding is our choice, the
// spec does not name one).  The sign of a zero is kept.
float xl_fx12(float x) { return isnan(x) ? 0.0 : roundEven(clamp(x, -2.0, 2047.0 / 1024.0) * 1024.0) / 1024.0; }
vec4 xl_fx12(vec4 x) { return mix(roundEven(clamp(x, vec4(-2.0), vec4(2047.0 / 1024.0)) * 1024.0) / 1024.0, vec4(0.0), isnan(x)); }

//@ minmaxnum
// TGSI MIN/MAX (tgsi_exec fminf/fmaxf): the non-NaN operand when one is NaN.  The same select
// as xlate/exec/alu.py op_minnum/op_maxnum, so equal operands (-0.0 vs +0.0) pick the same one.
vec4 xl_minnum(vec4 a, vec4 b) { return mix(b, a, bvec4(uvec4(isnan(b)) | uvec4(lessThan(a, b)))); }
vec4 xl_maxnum(vec4 a, vec4 b) { return mix(b, a, bvec4(uvec4(isnan(b)) | uvec4(greaterThan(a, b)))); }


//@ sel
// m ? b : a per component with integer masks (GLSL 3.30's mix takes float types only).
int xl_sel(int a, int b, bool m) { return m ? b : a; }
ivec2 xl_sel(ivec2 a, ivec2 b, bvec2 m) { ivec2 k = -ivec2(m); return (a & ~k) | (b & k); }
ivec3 xl_sel(ivec3 a, ivec3 b, bvec3 m) { ivec3 k = -ivec3(m); return (a & ~k) | (b & k); }
ivec4 xl_sel(ivec4 a, ivec4 b, bvec4 m) { ivec4 k = -ivec4(m); return (a & ~k) | (b & k); }
uint xl_sel(uint a, uint b, bool m) { return m ? b : a; }
uvec2 xl_sel(uvec2 a, uvec2 b, bvec2 m) { uvec2 k = uvec2(m) * 0xffffffffu; return (a & ~k) | (b & k); }
uvec3 xl_sel(uvec3 a, uvec3 b, bvec3 m) { uvec3 k = uvec3(m) * 0xffffffffu; return (a & ~k) | (b & k); }
uvec4 xl_sel(uvec4 a, uvec4 b, bvec4 m) { uvec4 k = uvec4(m) * 0xffffffffu; return (a & ~k) | (b & k); }

//@ f2i@glsl330  needs: sel
// Float to int conversions clamp to the representable range, NaN gives 0 (GP4 issue 41).
ivec4 xl_f2i(vec4 x) {
    ivec4 r = ivec4(clamp(x, -2147483648.0, 2147483520.0));
    r = xl_sel(r, ivec4(0x7fffffff), greaterThanEqual(x, vec4(2147483648.0)));
    return xl_sel(r, ivec4(0), isnan(x));
}

//@ f2u@glsl330  needs: sel
uvec4 xl_f2u(vec4 x) {
    uvec4 r = uvec4(clamp(x, 0.0, 4294967040.0));
    r = xl_sel(r, uvec4(0xffffffffu), greaterThanEqual(x, vec4(4294967296.0)));
    return xl_sel(r, uvec4(0u), isnan(x));
}

//@ cmp@glsl330  needs: sel
// CMP: a < 0 ? b : c per component (-0.0 and NaN select c).
vec4 xl_cmp(vec4 a, vec4 b, vec4 c) { return mix(c, b, lessThan(a, vec4(0.0))); }
ivec4 xl_cmp(ivec4 a, ivec4 b, ivec4 c) { return xl_sel(c, b, lessThan(a, ivec4(0))); }
uvec4 xl_cmp(uvec4 a, uvec4 b, uvec4 c) { return c; }

//@ minmax@glsl330  needs: sel
// MIN = a > b ? b : a, MAX = a > b ? a : b (GP4 pseudocode; NaN handling follows from it).
vec4 xl_min(vec4 a, vec4 b) { return mix(a, b, greaterThan(a, b)); }
ivec4 xl_min(ivec4 a, ivec4 b) { return xl_sel(a, b, greaterThan(a, b)); }
uvec4 xl_min(uvec4 a, uvec4 b) { return xl_sel(a, b, greaterThan(a, b)); }
vec4 xl_max(vec4 a, vec4 b) { return mix(b, a, greaterThan(a, b)); }
ivec4 xl_max(ivec4 a, ivec4 b) { return xl_sel(b, a, greaterThan(a, b)); }
uvec4 xl_max(uvec4 a, uvec4 b) { return xl_sel(b, a, greaterThan(a, b)); }

//@ sad@glsl330  needs: sel
ivec4 xl_sad(ivec4 a, ivec4 b, uvec4 c) { return ivec4(xl_sel(uvec4(b - a), uvec4(a - b), greaterThan(a, b)) + c); }
uvec4 xl_sad(uvec4 a, uvec4 b, uvec4 c) { return xl_sel(b - a, a - b, greaterThan(a, b)) + c; }

//@ tkey@glsl330  needs: sel
// VP1 SGE/SLT total order (2.14.1.11), as tkey.
ivec4 xl_tkey(vec4 a) { ivec4 i = floatBitsToInt(a); return xl_sel(i, -(i & 0x7fffffff) - 1, lessThan(i, ivec4(0))); }

//@ mulhi@glsl330
// High word of the 64-bit product from 16-bit partial products (each fits 32 bits); signed:
// the unsigned high word minus b where a < 0 and minus a where b < 0 (modulo 2^32).
uvec4 xl_umulhi(uvec4 a, uvec4 b) {
    uvec4 a0 = a & 0xffffu, a1 = a >> 16u, b0 = b & 0xffffu, b1 = b >> 16u;
    uvec4 mid = ((a0 * b0) >> 16u) + ((a0 * b1) & 0xffffu) + ((a1 * b0) & 0xffffu);
    return a1 * b1 + ((a0 * b1) >> 16u) + ((a1 * b0) >> 16u) + (mid >> 16u);
}
ivec4 xl_mulhi(ivec4 a, ivec4 b) {
    uvec4 ua = uvec4(a), ub = uvec4(b);
    return ivec4(xl_umulhi(ua, ub) - ub * uvec4(lessThan(a, ivec4(0))) - ua * uvec4(lessThan(b, ivec4(0))));
}
uvec4 xl_mulhi(uvec4 a, uvec4 b) { return xl_umulhi(a, b); }

//@ ccadd@glsl330  needs: cci
// Integer addition flags, as ccadd: the wrapped sum is below an addend exactly when it carried.
uvec4 xl_ccadd(uvec4 a, uvec4 b) {
    uvec4 r = a + b;
    uvec4 carry = uvec4(lessThan(r, a));
    return xl_cci(r) | ((((a ^ r) & (b ^ r)) >> 31u) << 2u) | (carry << 3u);
}

//@ ccsub@glsl330  needs: cci
// Integer subtraction flags, as ccsub: a borrow happens exactly when a < b (unsigned).
uvec4 xl_ccsub(uvec4 a, uvec4 b) {
    uvec4 r = a - b;
    uvec4 borrow = uvec4(lessThan(a, b));
    return xl_cci(r) | ((((a ^ b) & (a ^ r)) >> 31u) << 2u) | ((1u - borrow) << 3u);
}

//@ f2h
// fp16 bits of a float: round to nearest even, overflow to infinity, fp16 subnormals kept, a NaN
// keeps its sign and top mantissa bits (and stays a NaN) -- numpy's float16 conversion
// (npy_floatbits_to_halfbits), which the executor uses.
uint xl_f2h(float x) {
    uint f = floatBitsToUint(x);
    uint s = (f >> 16u) & 0x8000u;
    uint e = f & 0x7f800000u;
    uint m = f & 0x007fffffu;
    if (e >= 0x47800000u) {
        if (e == 0x7f800000u && m != 0u) return s | max(0x7c00u | (m >> 13u), 0x7c01u);
        return s | 0x7c00u;
    }
    if (e <= 0x38000000u) {
        if (e < 0x33000000u) return s;
        uint sig = (0x00800000u | m) >> (113u - (e >> 23u));
        if ((sig & 0x3fffu) != 0x1000u || (f & 0x7ffu) != 0u) sig += 0x1000u;
        return s | (sig >> 13u);
    }
    if ((m & 0x3fffu) != 0x1000u) m += 0x1000u;
    // a carry out of the mantissa increments the exponent (up to infinity), as it should
    return s | (((e - 0x38000000u) >> 13u) + (m >> 13u));
}

//@ h2f
// The float of fp16 bits (exact: every fp16 value is a float).
float xl_h2f(uint h) {
    uint s = (h & 0x8000u) << 16u;
    uint e = h & 0x7c00u;
    uint m = h & 0x03ffu;
    if (e == 0x7c00u) return uintBitsToFloat(s | 0x7f800000u | (m << 13u));
    if (e != 0u) return uintBitsToFloat(s | (((h & 0x7fffu) + 0x1c000u) << 13u));
    return uintBitsToFloat(s | floatBitsToUint(float(m) * uintBitsToFloat(0x33800000u)));
}

//@ fp16@glsl330  needs: f2h h2f
// Result conversion to fp16 (IR precision "FP16"), as fp16.
float xl_fp16(float x) { return xl_h2f(xl_f2h(x)); }
vec4 xl_fp16(vec4 x) { return vec4(xl_fp16(x.x), xl_fp16(x.y), xl_fp16(x.z), xl_fp16(x.w)); }

//@ pk2h  needs: f2h
uint xl_pk2h(vec2 a) { return xl_f2h(a.x) | (xl_f2h(a.y) << 16u); }

//@ up2h  needs: h2f
vec4 xl_up2h(uint w) { return vec2(xl_h2f(w & 0xffffu), xl_h2f(w >> 16u)).xyxy; }

//@ pk2us
// PK2US: NaN packs as 0, clamp [0, 1], round(65535 v) half to even (executor op_pk2us).
uint xl_pk2us(vec2 a) {
    uvec2 u = uvec2(roundEven(clamp(mix(a, vec2(0.0), isnan(a)), 0.0, 1.0) * 65535.0));
    return u.x | (u.y << 16u);
}

//@ up2us
vec4 xl_up2us(uint w) { return (vec2(float(w & 0xffffu), float(w >> 16u)) / 65535.0).xyxy; }

//@ pk4ub
// PK4UB: NaN packs as 0, clamp [0, 1], round(255 v) half to even, x in the low byte.
uint xl_pk4ub(vec4 a) {
    uvec4 b = uvec4(roundEven(clamp(mix(a, vec4(0.0), isnan(a)), 0.0, 1.0) * 255.0));
    return b.x | (b.y << 8u) | (b.z << 16u) | (b.w << 24u);
}

//@ up4ub
vec4 xl_up4ub(uint w) { return vec4((uvec4(w) >> uvec4(0u, 8u, 16u, 24u)) & 0xffu) / 255.0; }

//@ bitfield
// TGSI IBFE/UBFE/BFI (tgsi.rst "Bitwise ISA"): the window [offset, offset + width) clipped at
// bit 31, as the executor (xlate/exec/alu.py op_bfext/op_bfins); width 0 extracts 0 and
// inserts nothing.  Shifts stay in [0, 31] (GLSL leaves 32 undefined).
uvec4 xl_bfo(uvec4 o) { return min(o, uvec4(32u)); }
uvec4 xl_bfw(uvec4 o, uvec4 b) { return min(b, uvec4(32u) - xl_bfo(o)); }
ivec4 xl_ibfe(ivec4 v, uvec4 o, uvec4 b) {
    uvec4 w = xl_bfw(o, b);
    uvec4 s1 = uvec4(32u) - xl_bfo(o) - w;
    ivec4 r = ivec4(uvec4(v) << (s1 & 31u)) >> ivec4((uvec4(32u) - w) & 31u);
    return ivec4(uvec4(r) & (uvec4(0u) - uvec4(notEqual(w, uvec4(0u)))));
}
uvec4 xl_ubfe(uvec4 v, uvec4 o, uvec4 b) {
    uvec4 w = xl_bfw(o, b);
    uvec4 s1 = uvec4(32u) - xl_bfo(o) - w;
    uvec4 r = (v << (s1 & 31u)) >> ((uvec4(32u) - w) & 31u);
    return r & (uvec4(0u) - uvec4(notEqual(w, uvec4(0u))));
}
uvec4 xl_bfi(uvec4 base, uvec4 ins, uvec4 o, uvec4 b) {
    uvec4 w = xl_bfw(o, b);
    uvec4 oc = xl_bfo(o) & 31u;        // an offset of 32 has width 0: no bit is inserted
    // ((1 << w) - 1) << o without a shift by 32: (~0 >> (32 - w)) for w > 0, 0 for w == 0
    uvec4 ones = (uvec4(0xffffffffu) >> ((uvec4(32u) - w) & 31u)) & (uvec4(0u) - uvec4(notEqual(w, uvec4(0u))));
    uvec4 mask = ones << oc;
    return ((ins << oc) & mask) | (base & ~mask);
}

//@ bits330
// GLSL 3.30 forms of bitfieldReverse, bitCount, findLSB, findMSB (GLSL 4.00), same results.
uvec4 xl_brev(uvec4 v) {
    v = ((v >> 1u) & 0x55555555u) | ((v & 0x55555555u) << 1u);
    v = ((v >> 2u) & 0x33333333u) | ((v & 0x33333333u) << 2u);
    v = ((v >> 4u) & 0x0f0f0f0fu) | ((v & 0x0f0f0f0fu) << 4u);
    v = ((v >> 8u) & 0x00ff00ffu) | ((v & 0x00ff00ffu) << 8u);
    return (v >> 16u) | (v << 16u);
}
uvec4 xl_popc(uvec4 v) {
    v = v - ((v >> 1u) & 0x55555555u);
    v = (v & 0x33333333u) + ((v >> 2u) & 0x33333333u);
    v = (v + (v >> 4u)) & 0x0f0f0f0fu;
    return (v * 0x01010101u) >> 24u;
}
ivec4 xl_lsb(uvec4 v) {
    // the bits below the lowest set one, counted; 0 has 32 of them and gives -1
    return ivec4(xl_popc((v & (~v + 1u)) - 1u)) - 33 * ivec4(equal(v, uvec4(0u)));
}
ivec4 xl_msb(uvec4 v) {
    // smear the highest set bit down, count: index = popcount - 1 (-1 for 0)
    v |= v >> 1u; v |= v >> 2u; v |= v >> 4u; v |= v >> 8u; v |= v >> 16u;
    return ivec4(xl_popc(v)) - 1;
}

//@ fma
// TGSI FMA: a * b + c rounded once (tgsi.rst: "no intermediate rounding step").  GLSL's fma() may
// round twice (GLSL 4.50 8.3: its precision "can differ" from a*b + c; llvmpipe's does), so, as
// the executor's op_fma: the float product is exact in double; the double sum s, rounded to
// float, is right unless s lies exactly halfway between two floats while the exact sum does
// not -- then the sign of s's own rounding error e (TwoSum) picks the side.
float xl_fma1(float a, float b, float c) {
    precise double p = double(a) * double(b);
    precise double s = p + double(c);
    precise double bb = s - p;
    precise double e = (p - (s - bb)) + (double(c) - bb);
    float r = float(s);
    if (isnan(s) || isinf(s) || e == 0.0LF || isinf(r)) return r;
    precise double r64 = double(r);
    uint w = floatBitsToUint(r);
    // the float next to r on s's side (r is finite)
    uint next = (r == 0.0) ? (s > 0.0LF ? 1u : 0x80000001u)
                           : (((s > r64) == (r > 0.0)) ? w + 1u : w - 1u);
    float o = uintBitsToFloat(next);
    precise double mid = (r64 + double(o)) * 0.5LF;
    if (r64 != s && mid == s) r = (e > 0.0LF) ? max(r, o) : min(r, o);
    return r;
}
vec4 xl_fma(vec4 a, vec4 b, vec4 c) {
    return vec4(xl_fma1(a.x, b.x, c.x), xl_fma1(a.y, b.y, c.y), xl_fma1(a.z, b.z, c.z), xl_fma1(a.w, b.w, c.w));
}

//@ fma@glsl330
// FMA has no form in GLSL 3.30 (no doubles: ops.txt "-", E7001), so no helper either.

//@ fma@es310
// FMA has no form in GLSL ES 3.10 (no doubles: ops.txt "-", E7001), so no helper either.

//@ snorm8
// TGSI PK4B/UP4B: two's-complement snorm8 bytes, x in the low byte (the executor's
// op_pk4snorm/op_up4snorm): round half to even, NaN packs as 0 (packSnorm4x8 leaves the
// rounding to the implementation); unpacking gives max(byte / 127, -1).
uint xl_pk4snorm(vec4 a) {
    vec4 v = clamp(mix(a, vec4(0.0), isnan(a)), -1.0, 1.0);
    uvec4 b = uvec4(ivec4(roundEven(v * 127.0))) & 0xffu;
    return b.x | (b.y << 8u) | (b.z << 16u) | (b.w << 24u);
}
vec4 xl_up4snorm(uint u) {
    ivec4 b = ivec4(uvec4(u) << uvec4(24u, 16u, 8u, 0u)) >> 24;
    return max(vec4(b) / 127.0, vec4(-1.0));
}

//@ demoted
// TGSI DEMOTE: a flag set where the invocation demoted itself to a helper; main() discards at
// the end where it is set (the outputs are dropped, execution went on, so derivatives of the
// other invocations of the quad stay defined); READ_HELPER reads it with gl_HelperInvocation.
bool xl_demoted = false;

//@ killed
// A verifier probe program (Program.kills_as_flags): set where a KIL would have ended the
// invocation; the inter-lane operations leave such an invocation out (ops.txt "@flagged").
bool xl_killed = false;

//@ read_active  needs: killed
// The value of the first invocation no KIL flagged (readFirstInvocationARB over those only);
// with none, the subgroup's own first one.
uint xl_first_active() {
    uvec2 b = unpackUint2x32(ballotARB(!xl_killed));
    return b.x != 0u ? uint(findLSB(b.x)) : b.y != 0u ? 32u + uint(findLSB(b.y))
                                                       : readFirstInvocationARB(gl_SubGroupInvocationARB);
}
uint xl_read_active(uint v) { return readInvocationARB(v, xl_first_active()); }
uvec4 xl_read_active(uvec4 v) { return readInvocationARB(v, xl_first_active()); }

//@ read_active@glsl330
// (no inter-lane operations in this profile: ops.txt)

//@ read_active@es310
// (no inter-lane operations in this profile: ops.txt)

//@ doubles
// TGSI doubles on words (the executor's xlate/exec/doubles.py, whose docstring gives the
// readings): a double in xy and one in zw, low word first.
double xl_d0(uvec4 w) { return packDouble2x32(w.xy); }
double xl_d1(uvec4 w) { return packDouble2x32(w.zw); }
uvec4 xl_dw(double a, double b) { return uvec4(unpackDouble2x32(a), unpackDouble2x32(b)); }
uvec4 xl_ds(bool a, bool b) { return uvec4(a ? 0xffffffffu : 0u, 0u, b ? 0xffffffffu : 0u, 0u); }
double xl_dmin1(double a, double b) { return (isnan(b) || a <= b) && !isnan(a) ? a : b; }
double xl_dmax1(double a, double b) { return (isnan(b) || a >= b) && !isnan(a) ? a : b; }
double xl_dssg1(double a) { return a > 0.0LF ? 1.0LF : (a < 0.0LF ? -1.0LF : 0.0LF); }
// round half to even from floor: Mesa 22.3.6 llvmpipe's double roundEven is inexact on a Zen 3
// (AVX2, no AVX-512; CI machines with AVX-512 passed): roundEven(7.5) gave 7.0 and
// roundEven(-6.5000000015) -6.0 through SPIR-V, roundEven(0.49999999999999994) 1.0 through
// GLSL (tests/test_tgsi_doubles.py ROUND_CASES), its floor exact.  a - floor(a) is exact (0 where |a| >= 2^52); a zero result keeps
// a's sign (roundEven(-0.3) is -0.0); NaN and INF pass through floor
double xl_dround1(double a) {
    precise double f = floor(a);
    precise double d = a - f;
    precise double h = f * 0.5LF;
    precise double r = f + ((d > 0.5LF || (d == 0.5LF && floor(h) != h)) ? 1.0LF : 0.0LF);
    uvec2 w = unpackDouble2x32(r);
    return packDouble2x32(uvec2(w.x, w.y | (unpackDouble2x32(a).y & 0x80000000u)));
}
// frexp on the words: GLSL's frexp leaves INF and NaN undefined, and an implementation that
// reads denormals as 0 (llvmpipe) returns them unchanged; (mantissa words, exponent)
uvec3 xl_frexp1(uvec2 w) {
    uint e = (w.y >> 20) & 0x7ffu;
    uint fhi = w.y & 0xfffffu;
    if (e == 0x7ffu || (e == 0u && fhi == 0u && w.x == 0u)) return uvec3(w, 0u);
    if (e != 0u) return uvec3(w.x, (w.y & 0x800fffffu) | 0x3fe00000u, uint(int(e) - 1022));
    // a denormal m * 2^-1074: its highest set bit p moves to bit 52 (the implicit one)
    int p = fhi != 0u ? findMSB(fhi) + 32 : findMSB(w.x);
    int sh = 52 - p;
    uint hi = sh >= 32 ? w.x << uint(sh - 32) : (fhi << uint(sh)) | (w.x >> uint(32 - sh));
    uint lo = sh >= 32 ? 0u : w.x << uint(sh);
    return uvec3(lo, (w.y & 0x80000000u) | 0x3fe00000u | (hi & 0xfffffu), uint(p - 1073));
}
int xl_d2i1(double a) {
    double t = trunc(a);
    return isnan(t) ? 0 : int(clamp(t, -2147483648.0LF, 2147483647.0LF));
}
uint xl_d2u1(double a) {
    double t = trunc(a);
    return isnan(t) ? 0u : uint(clamp(t, 0.0LF, 4294967295.0LF));
}
uvec4 xl_dadd(uvec4 a, uvec4 b) { return xl_dw(xl_d0(a) + xl_d0(b), xl_d1(a) + xl_d1(b)); }
uvec4 xl_dmul(uvec4 a, uvec4 b) { return xl_dw(xl_d0(a) * xl_d0(b), xl_d1(a) * xl_d1(b)); }
uvec4 xl_dmad(uvec4 a, uvec4 b, uvec4 c) {
    // two roundings: the products are not contracted into fma (precise)
    precise double p0 = xl_d0(a) * xl_d0(b);
    precise double p1 = xl_d1(a) * xl_d1(b);
    precise double s0 = p0 + xl_d0(c);
    precise double s1 = p1 + xl_d1(c);
    return xl_dw(s0, s1);
}
uvec4 xl_dfma(uvec4 a, uvec4 b, uvec4 c) { return xl_dw(fma(xl_d0(a), xl_d0(b), xl_d0(c)), fma(xl_d1(a), xl_d1(b), xl_d1(c))); }
uvec4 xl_dmin(uvec4 a, uvec4 b) { return xl_dw(xl_dmin1(xl_d0(a), xl_d0(b)), xl_dmin1(xl_d1(a), xl_d1(b))); }
uvec4 xl_dmax(uvec4 a, uvec4 b) { return xl_dw(xl_dmax1(xl_d0(a), xl_d0(b)), xl_dmax1(xl_d1(a), xl_d1(b))); }
uvec4 xl_dseq(uvec4 a, uvec4 b) { return xl_ds(xl_d0(a) == xl_d0(b), xl_d1(a) == xl_d1(b)); }
uvec4 xl_dsne(uvec4 a, uvec4 b) { return xl_ds(xl_d0(a) != xl_d0(b), xl_d1(a) != xl_d1(b)); }
uvec4 xl_dslt(uvec4 a, uvec4 b) { return xl_ds(xl_d0(a) < xl_d0(b), xl_d1(a) < xl_d1(b)); }
uvec4 xl_dsge(uvec4 a, uvec4 b) { return xl_ds(xl_d0(a) >= xl_d0(b), xl_d1(a) >= xl_d1(b)); }
// a * 2^e by exact powers of two (llvmpipe's double ldexp adds to the exponent field: ldexp(0, 3)
// gave 4.0): the remainder first, then steps of 2^-1022 (or 2^1023), so that a result below the
// normal range is rounded once.  e is clamped, so there are at most two steps, written out: as a
// loop, twenty inlined copies of it (a probed program with DDIV DRCP DSQRT DRSQ) kept LLVM 15's
// ScalarEvolution in llvmpipe busy for minutes (tests/test_tgsi_doubles.py)
double xl_pow2(int k) { return packDouble2x32(uvec2(0u, uint(k + 1023) << 20u)); }
double xl_dldexp1(double a, int e) {
    e = clamp(e, -2200, 2200);
    int step = e < 0 ? -1022 : 1023;
    int n = e / step;
    precise double r = a * xl_pow2(e - n * step);
    if (n > 0) r = r * xl_pow2(step);
    if (n > 1) r = r * xl_pow2(step);
    return r;
}
// DDIV DRCP DSQRT DRSQ on operands brought to [1, 4) by exact powers of two, the result scaled
// back: llvmpipe's double division and square root (float approximations refined) lose the
// range (sqrt of 2^1021 gave INF); within it they round as IEEE does
int xl_dexp(double a) { return int((unpackDouble2x32(a).y >> 20u) & 0x7ffu) - 1023; }
bool xl_dnormal(double a) { uint e = (unpackDouble2x32(a).y >> 20u) & 0x7ffu; return e != 0u && e != 0x7ffu; }
double xl_ddiv1(double a, double b) {
    if (!xl_dnormal(a) || !xl_dnormal(b)) return a / b;
    int ea = xl_dexp(a), eb = xl_dexp(b);
    precise double q = xl_dldexp1(a, -ea) / xl_dldexp1(b, -eb);
    return xl_dldexp1(q, ea - eb);
}
double xl_dsqrt1(double a) {
    if (!xl_dnormal(a) || a < 0.0LF) return sqrt(a);
    int k = xl_dexp(a) >> 1;
    return xl_dldexp1(sqrt(xl_dldexp1(a, -2 * k)), k);
}
double xl_drsq1(double a) {
    if (!xl_dnormal(a) || a < 0.0LF) return 1.0LF / sqrt(a);
    int k = xl_dexp(a) >> 1;
    precise double r = 1.0LF / sqrt(xl_dldexp1(a, -2 * k));
    return xl_dldexp1(r, -k);
}
uvec4 xl_ddiv(uvec4 a, uvec4 b) { return xl_dw(xl_ddiv1(xl_d0(a), xl_d0(b)), xl_ddiv1(xl_d1(a), xl_d1(b))); }
uvec4 xl_drcp(uvec4 a) { return xl_dw(xl_ddiv1(1.0LF, xl_d0(a)), xl_ddiv1(1.0LF, xl_d1(a))); }
uvec4 xl_dsqrt(uvec4 a) { return xl_dw(xl_dsqrt1(xl_d0(a)), xl_dsqrt1(xl_d1(a))); }
uvec4 xl_drsq(uvec4 a) { return xl_dw(xl_drsq1(xl_d0(a)), xl_drsq1(xl_d1(a))); }
uvec4 xl_dldexp(uvec4 a, uvec4 b) {
    return xl_dw(xl_dldexp1(xl_d0(a), int(b.x)), xl_dldexp1(xl_d1(a), int(b.z)));
}
uvec4 xl_dfrac(uvec4 a) { return xl_dw(xl_d0(a) - floor(xl_d0(a)), xl_d1(a) - floor(xl_d1(a))); }
uvec4 xl_dtrunc(uvec4 a) { return xl_dw(trunc(xl_d0(a)), trunc(xl_d1(a))); }
uvec4 xl_dceil(uvec4 a) { return xl_dw(ceil(xl_d0(a)), ceil(xl_d1(a))); }
uvec4 xl_dflr(uvec4 a) { return xl_dw(floor(xl_d0(a)), floor(xl_d1(a))); }
uvec4 xl_dround(uvec4 a) { return xl_dw(xl_dround1(xl_d0(a)), xl_dround1(xl_d1(a))); }
uvec4 xl_dssg(uvec4 a) { return xl_dw(xl_dssg1(xl_d0(a)), xl_dssg1(xl_d1(a))); }
uvec4 xl_dfrexpm(uvec4 a) { return uvec4(xl_frexp1(a.xy).xy, xl_frexp1(a.zw).xy); }
uvec4 xl_dfrexpe(uvec4 a) { return uvec4(xl_frexp1(a.xy).zz, xl_frexp1(a.zw).zz); }
uvec4 xl_f2d(vec4 a) { return xl_dw(double(a.x), double(a.y)); }
uvec4 xl_i2d(uvec4 a) { return xl_dw(double(int(a.x)), double(int(a.y))); }
uvec4 xl_u2d(uvec4 a) { return xl_dw(double(a.x), double(a.y)); }
uvec4 xl_d2f(uvec4 a) { return uvec4(floatBitsToUint(float(xl_d0(a))), floatBitsToUint(float(xl_d1(a))), 0u, 0u); }
uvec4 xl_d2i(uvec4 a) { return uvec4(uint(xl_d2i1(xl_d0(a))), uint(xl_d2i1(xl_d1(a))), 0u, 0u); }
uvec4 xl_d2u(uvec4 a) { return uvec4(xl_d2u1(xl_d0(a)), xl_d2u1(xl_d1(a)), 0u, 0u); }

//@ doubles@glsl330
// The doubles have no form in GLSL 3.30 (ops.txt "-", E7001), so no helpers either.

//@ doubles@es310
// The doubles have no form in GLSL ES 3.10 (ops.txt "-", E7001), so no helpers either.

//@ int64  needs: doubles
// TGSI 64-bit integers on words (the executor's xlate/exec/doubles.py gives the readings): one
// in xy and one in zw, low word first, computed as GL_ARB_gpu_shader_int64's uint64_t/int64_t.
uint64_t xl_q0(uvec4 w) { return packUint2x32(w.xy); }
uint64_t xl_q1(uvec4 w) { return packUint2x32(w.zw); }
uvec4 xl_qw(uint64_t a, uint64_t b) { return uvec4(unpackUint2x32(a), unpackUint2x32(b)); }
uvec4 xl_qs(bool a, bool b) { return uvec4(a ? 0xffffffffu : 0u, 0u, b ? 0xffffffffu : 0u, 0u); }
bool xl_qneg(uint64_t a) { return int64_t(a) < 0l; }
uint64_t xl_qidiv(uint64_t a, uint64_t b) {
    if (b == 0ul) return 0xfffffffffffffffful;
    uint64_t ma = xl_qneg(a) ? 0ul - a : a, mb = xl_qneg(b) ? 0ul - b : b;
    uint64_t q = ma / mb;
    return xl_qneg(a) != xl_qneg(b) ? 0ul - q : q;
}
uint64_t xl_qimod(uint64_t a, uint64_t b) {
    if (b == 0ul) return 0xfffffffffffffffful;
    uint64_t ma = xl_qneg(a) ? 0ul - a : a, mb = xl_qneg(b) ? 0ul - b : b;
    uint64_t r = ma % mb;
    return xl_qneg(a) ? 0ul - r : r;
}
uint64_t xl_qudiv(uint64_t a, uint64_t b) { return b == 0ul ? 0xfffffffffffffffful : a / b; }
uint64_t xl_qumod(uint64_t a, uint64_t b) { return b == 0ul ? 0xfffffffffffffffful : a % b; }
// the integer magnitude of a finite double of at least 2^52, from its bits (llvmpipe's SPIR-V
// path converted such doubles to int64 with the low bits wrong)
uint64_t xl_qbits(double t) {
    uvec2 w = unpackDouble2x32(t);
    uint64_t m = packUint2x32(uvec2(w.x, (w.y & 0xfffffu) | 0x100000u));
    return m << uint(int((w.y >> 20u) & 0x7ffu) - 1075);
}
uint64_t xl_qfromd(double t, bool signed_) {
    t = trunc(t);
    if (isnan(t)) return 0ul;
    if (signed_) {
        if (t >= 9223372036854775808.0LF) return 0x7ffffffffffffffful;
        if (t < -9223372036854775808.0LF) return 0x8000000000000000ul;
    } else {
        if (t >= 18446744073709551616.0LF) return 0xfffffffffffffffful;
        if (t < 0.0LF) return 0ul;
    }
    if (abs(t) >= 4503599627370496.0LF) {
        uint64_t m = xl_qbits(t);
        return t < 0.0LF ? 0ul - m : m;
    }
    return signed_ ? uint64_t(int64_t(t)) : uint64_t(t);
}
uvec4 xl_u64add(uvec4 a, uvec4 b) { return xl_qw(xl_q0(a) + xl_q0(b), xl_q1(a) + xl_q1(b)); }
uvec4 xl_u64mul(uvec4 a, uvec4 b) { return xl_qw(xl_q0(a) * xl_q0(b), xl_q1(a) * xl_q1(b)); }
uvec4 xl_u64min(uvec4 a, uvec4 b) { return xl_qw(min(xl_q0(a), xl_q0(b)), min(xl_q1(a), xl_q1(b))); }
uvec4 xl_u64max(uvec4 a, uvec4 b) { return xl_qw(max(xl_q0(a), xl_q0(b)), max(xl_q1(a), xl_q1(b))); }
uvec4 xl_i64min(uvec4 a, uvec4 b) { return xl_qw(uint64_t(min(int64_t(xl_q0(a)), int64_t(xl_q0(b)))), uint64_t(min(int64_t(xl_q1(a)), int64_t(xl_q1(b))))); }
uvec4 xl_i64max(uvec4 a, uvec4 b) { return xl_qw(uint64_t(max(int64_t(xl_q0(a)), int64_t(xl_q0(b)))), uint64_t(max(int64_t(xl_q1(a)), int64_t(xl_q1(b))))); }
uvec4 xl_u64seq(uvec4 a, uvec4 b) { return xl_qs(xl_q0(a) == xl_q0(b), xl_q1(a) == xl_q1(b)); }
uvec4 xl_u64sne(uvec4 a, uvec4 b) { return xl_qs(xl_q0(a) != xl_q0(b), xl_q1(a) != xl_q1(b)); }
uvec4 xl_u64slt(uvec4 a, uvec4 b) { return xl_qs(xl_q0(a) < xl_q0(b), xl_q1(a) < xl_q1(b)); }
uvec4 xl_u64sge(uvec4 a, uvec4 b) { return xl_qs(xl_q0(a) >= xl_q0(b), xl_q1(a) >= xl_q1(b)); }
uvec4 xl_i64slt(uvec4 a, uvec4 b) { return xl_qs(int64_t(xl_q0(a)) < int64_t(xl_q0(b)), int64_t(xl_q1(a)) < int64_t(xl_q1(b))); }
uvec4 xl_i64sge(uvec4 a, uvec4 b) { return xl_qs(int64_t(xl_q0(a)) >= int64_t(xl_q0(b)), int64_t(xl_q1(a)) >= int64_t(xl_q1(b))); }
uvec4 xl_u64shl(uvec4 a, uvec4 b) { return xl_qw(xl_q0(a) << (b.x & 63u), xl_q1(a) << (b.y & 63u)); }
uvec4 xl_u64shr(uvec4 a, uvec4 b) { return xl_qw(xl_q0(a) >> (b.x & 63u), xl_q1(a) >> (b.y & 63u)); }
uvec4 xl_i64shr(uvec4 a, uvec4 b) { return xl_qw(uint64_t(int64_t(xl_q0(a)) >> (b.x & 63u)), uint64_t(int64_t(xl_q1(a)) >> (b.y & 63u))); }
uvec4 xl_u64div(uvec4 a, uvec4 b) { return xl_qw(xl_qudiv(xl_q0(a), xl_q0(b)), xl_qudiv(xl_q1(a), xl_q1(b))); }
uvec4 xl_u64mod(uvec4 a, uvec4 b) { return xl_qw(xl_qumod(xl_q0(a), xl_q0(b)), xl_qumod(xl_q1(a), xl_q1(b))); }
uvec4 xl_i64div(uvec4 a, uvec4 b) { return xl_qw(xl_qidiv(xl_q0(a), xl_q0(b)), xl_qidiv(xl_q1(a), xl_q1(b))); }
uvec4 xl_i64mod(uvec4 a, uvec4 b) { return xl_qw(xl_qimod(xl_q0(a), xl_q0(b)), xl_qimod(xl_q1(a), xl_q1(b))); }
uvec4 xl_i64abs(uvec4 a) { return xl_qw(xl_qneg(xl_q0(a)) ? 0ul - xl_q0(a) : xl_q0(a), xl_qneg(xl_q1(a)) ? 0ul - xl_q1(a) : xl_q1(a)); }
uvec4 xl_i64neg(uvec4 a) { return xl_qw(0ul - xl_q0(a), 0ul - xl_q1(a)); }
uvec4 xl_i64ssg(uvec4 a) { return xl_qw(uint64_t(sign(int64_t(xl_q0(a)))), uint64_t(sign(int64_t(xl_q1(a))))); }
uvec4 xl_f2u64(vec4 a) { return xl_qw(xl_qfromd(double(a.x), false), xl_qfromd(double(a.y), false)); }
uvec4 xl_f2i64(vec4 a) { return xl_qw(xl_qfromd(double(a.x), true), xl_qfromd(double(a.y), true)); }
uvec4 xl_d2u64(uvec4 a) { return xl_qw(xl_qfromd(xl_d0(a), false), xl_qfromd(xl_d1(a), false)); }
uvec4 xl_d2i64(uvec4 a) { return xl_qw(xl_qfromd(xl_d0(a), true), xl_qfromd(xl_d1(a), true)); }
uvec4 xl_u2i64(uvec4 a) { return xl_qw(uint64_t(a.x), uint64_t(a.y)); }
uvec4 xl_i2i64(uvec4 a) { return xl_qw(uint64_t(int64_t(int(a.x))), uint64_t(int64_t(int(a.y)))); }
uvec4 xl_u642f(uvec4 a) { return uvec4(floatBitsToUint(float(xl_q0(a))), floatBitsToUint(float(xl_q1(a))), 0u, 0u); }
uvec4 xl_i642f(uvec4 a) { return uvec4(floatBitsToUint(float(int64_t(xl_q0(a)))), floatBitsToUint(float(int64_t(xl_q1(a)))), 0u, 0u); }
uvec4 xl_u642d(uvec4 a) { return xl_dw(double(xl_q0(a)), double(xl_q1(a))); }
uvec4 xl_i642d(uvec4 a) { return xl_dw(double(int64_t(xl_q0(a))), double(int64_t(xl_q1(a)))); }

//@ int64@glsl330
// The 64-bit integers have no form in GLSL 3.30 (ops.txt "-", E7001), so no helpers either.

//@ int64@es310
// The 64-bit integers have no form in GLSL ES 3.10 (ops.txt "-", E7001), so no helpers either.
