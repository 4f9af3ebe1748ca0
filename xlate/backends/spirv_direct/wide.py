"""The direct SPIR-V templates of TGSI's doubles and 64-bit integers (tgsi.rst "Double ISA" and
"64-bit Integer ISA"; IR opcodes ``D*``, ``U64*``/``I64*`` and the conversions, all typed
``.U``: words in, words out).

A register's four words hold two values, ``xy`` and ``zw``, low word first -- exactly the
memory layout of a ``dvec2`` / ``u64vec2``, so a value is one ``OpBitcast`` of the register's
``uvec4`` away and the arithmetic runs on 2-vectors.  The readings are the executor's
(xlate/exec/doubles.py, whose docstring lists them) and the GLSL path's helpers.glsl "doubles" /
"int64", instruction for instruction, including the Mesa work-arounds there: double
division and square root on operands scaled into [1, 4) (llvmpipe's lose the range), a double
of 2^52 or more converted to a 64-bit integer from its bits, and DROUND from Floor (llvmpipe's
RoundEven is inexact on a Zen 3, AVX2 without AVX-512).  Every float operation is
decorated NoContraction; no operation divides by zero (a zero divisor is selected away first:
SPIR-V leaves that undefined)."""
from __future__ import annotations

# ---- words <-> values ---------------------------------------------------------------------------


def _d(e, w):
    """uvec4 words -> dvec2."""
    return e.val("Bitcast", e.t("d", 2), w)


def _dw(e, d):
    return e.val("Bitcast", e.t("u"), d)


def _q(e, w, kind="q"):
    """uvec4 words -> u64vec2 (``q``) or i64vec2 (``l``)."""
    return e.val("Bitcast", e.t(kind, 2), w)


def _qw(e, q):
    return e.val("Bitcast", e.t("u"), q)


def _pair(e, w, i, j, kind="u"):
    """(w[i], w[j]) as a 2-vector."""
    return e.shuffle(w, w, (i, j), kind)


def _flags(e, cond):
    """bvec2 -> uvec4(~0/0, 0, ~0/0, 0) (helpers.glsl xl_ds / xl_qs)."""
    s = e.sel(cond, e.cbits("u", 0xFFFFFFFF, 2), e.c("u", 0, 2), "u", 2)
    return e.shuffle(s, e.c("u", 0, 2), (0, 2, 1, 2), "u")


def _low_pair(e, v2, kind="u"):
    """A 2-vector of 32-bit values -> uvec4(x, y, 0, 0)."""
    u = e.bitcast(v2, kind, "u", 2)
    return e.shuffle(u, e.c("u", 0, 2), (0, 1, 2, 2), "u")


# ---- doubles ---------------------------------------------------------------------------------

def _dbin(op):
    return lambda e, a, b: _dw(e, e.fval(op, e.t("d", 2), _d(e, a), _d(e, b)))


def _dext(name):
    return lambda e, a: _dw(e, e.ext(name, e.t("d", 2), _d(e, a)))


def _dminmax(le):
    """DMIN/DMAX: the non-NaN operand; of equal ones the first (xl_dmin1/xl_dmax1)."""
    def f(e, a, b):
        x, y = _d(e, a), _d(e, b)
        take_x = e.val("LogicalAnd", e.t("b", 2), e.bor(e.isnan(y, 2), e.cmp(le, x, y, 2), 2),
                       e.val("LogicalNot", e.t("b", 2), e.isnan(x, 2)))
        return _dw(e, e.sel(take_x, x, y, "d", 2))
    return f


def _dcmp(op):
    return lambda e, a, b: _flags(e, e.cmp(op, _d(e, a), _d(e, b), 2))


def _pow2(e, k):
    """2^k for ivec2 k in the normal range, built from its exponent field (xl_pow2)."""
    hi = e.val("ShiftLeftLogical", e.t("u", 2),
               e.bitcast(e.val("IAdd", e.t("i", 2), k, e.c("i", 1023, 2)), "i", "u", 2),
               e.c("u", 20, 2))
    words = e.shuffle(e.c("u", 0, 2), hi, (0, 2, 1, 3), "u")          # (0, hi0, 0, hi1)
    return _d(e, words)


def _ldexp(e, a, k):
    """a * 2^k by exact powers of two, rounded once (xl_dldexp1): the remainder first, then up
    to two steps of 2^-1022 (or 2^1023) -- k is clamped to +-2200, so n = k / step <= 2."""
    i2, d2 = e.t("i", 2), e.t("d", 2)
    k = e.ext("SClamp", i2, k, e.c("i", -2200, 2), e.c("i", 2200, 2))
    negative = e.cmp("SLessThan", k, e.c("i", 0, 2), 2)
    step = e.sel(negative, e.c("i", -1022, 2), e.c("i", 1023, 2), "i", 2)
    n = e.val("SDiv", i2, k, step)
    r = e.fval("FMul", d2, a, _pow2(e, e.val("ISub", i2, k, e.val("IMul", i2, n, step))))
    p = _pow2(e, step)
    for i in range(2):
        more = e.cmp("SGreaterThan", n, e.c("i", i, 2), 2)
        r = e.sel(more, e.fval("FMul", d2, r, p), r, "d", 2)
    return r


def _dexp(e, x):
    """The unbiased exponent field of each double (xl_dexp), and whether it is normal."""
    hi = _pair(e, _dw(e, x), 1, 3)
    field = e.val("BitwiseAnd", e.t("u", 2), e.val("ShiftRightLogical", e.t("u", 2), hi,
                                                   e.c("u", 20, 2)), e.c("u", 0x7FF, 2))
    normal = e.val("LogicalAnd", e.t("b", 2), e.cmp("INotEqual", field, e.c("u", 0, 2), 2),
                   e.cmp("INotEqual", field, e.c("u", 0x7FF, 2), 2))
    return e.val("ISub", e.t("i", 2), e.bitcast(field, "u", "i", 2), e.c("i", 1023, 2)), normal


def _neg(e, k):
    return e.val("SNegate", e.t("i", 2), k)


def _ddiv1(e, x, y):
    """x / y with both operands scaled into [1, 2) first where both are normal (xl_ddiv1)."""
    d2 = e.t("d", 2)
    plain = e.fval("FDiv", d2, x, y)
    ex, nx = _dexp(e, x)
    ey, ny = _dexp(e, y)
    q = e.fval("FDiv", d2, _ldexp(e, x, _neg(e, ex)), _ldexp(e, y, _neg(e, ey)))
    scaled = _ldexp(e, q, e.val("ISub", e.t("i", 2), ex, ey))
    return e.sel(e.val("LogicalAnd", e.t("b", 2), nx, ny), scaled, plain, "d", 2)


def _sqrt_scaled(e, x, reciprocal: bool):
    """sqrt(x) (xl_dsqrt1) or 1 / sqrt(x) (xl_drsq1) of x brought into [1, 4) by 2^-2k."""
    d2, i2 = e.t("d", 2), e.t("i", 2)
    one = e.c("d", 1.0, 2)
    plain = e.ext("Sqrt", d2, x)
    if reciprocal:
        plain = e.fval("FDiv", d2, one, plain)
    ex, normal = _dexp(e, x)
    k = e.val("ShiftRightArithmetic", i2, ex, e.c("u", 1, 2))
    r = e.ext("Sqrt", d2, _ldexp(e, x, e.val("IMul", i2, k, e.c("i", -2, 2))))
    if reciprocal:
        r = e.fval("FDiv", d2, one, r)
    scaled = _ldexp(e, r, _neg(e, k) if reciprocal else k)
    usable = e.val("LogicalAnd", e.t("b", 2), normal,
                   e.val("LogicalNot", e.t("b", 2), e.cmp("FOrdLessThan", x, e.c("d", 0.0, 2), 2)))
    return e.sel(usable, scaled, plain, "d", 2)


def _frexp(e, w):
    """DFRACEXP on the words of each double (xl_frexp1): (mantissa low, mantissa high, exponent)
    as three uvec2s; 0, INF and NaN give themselves and exponent 0, denormals their exact
    decomposition."""
    u2, b2 = e.t("u", 2), e.t("b", 2)
    lo, hi = _pair(e, w, 0, 2), _pair(e, w, 1, 3)

    def c(v):
        return e.c("u", v, 2)

    def band(a, b):
        return e.val("BitwiseAnd", u2, a, b)

    def bor(a, b):
        return e.val("BitwiseOr", u2, a, b)

    def shl(a, n):
        return e.val("ShiftLeftLogical", u2, a, band(n, c(31)))

    def shr(a, n):
        return e.val("ShiftRightLogical", u2, a, band(n, c(31)))

    def eq(a, v):
        return e.cmp("IEqual", a, c(v), 2)

    def both(a, b):
        return e.val("LogicalAnd", b2, a, b)

    field = band(shr(hi, c(20)), c(0x7FF))
    fhi = band(hi, c(0xFFFFF))
    special = e.bor(eq(field, 0x7FF), both(eq(field, 0), both(eq(fhi, 0), eq(lo, 0))), 2)
    # normal: the exponent field set to 1022 (a mantissa in [0.5, 1)), exponent - 1022
    n_hi = bor(band(hi, c(0x800FFFFF)), c(0x3FE00000))
    n_exp = e.val("ISub", u2, field, c(1022))
    # denormal m * 2^-1074: its highest set bit p moves to bit 52 (the implicit one)
    i2 = e.t("i", 2)
    p = e.sel(e.cmp("INotEqual", fhi, c(0), 2),
              e.val("IAdd", i2, e.ext("FindUMsb", i2, fhi), e.c("i", 32, 2)),
              e.ext("FindUMsb", i2, lo), "i", 2)
    sh = e.bitcast(e.val("ISub", i2, e.c("i", 52, 2), p), "i", "u", 2)
    wide = e.cmp("UGreaterThanEqual", sh, c(32), 2)
    d_hi = e.sel(wide, shl(lo, e.val("ISub", u2, sh, c(32))),
                 bor(shl(fhi, sh), shr(lo, e.val("ISub", u2, c(32), sh))), "u", 2)
    d_lo = e.sel(wide, c(0), shl(lo, sh), "u", 2)
    d_hi = bor(bor(band(hi, c(0x80000000)), c(0x3FE00000)), band(d_hi, c(0xFFFFF)))
    d_exp = e.bitcast(e.val("ISub", i2, p, e.c("i", 1073, 2)), "i", "u", 2)
    denormal = eq(field, 0)
    m_lo = e.sel(special, lo, e.sel(denormal, d_lo, lo, "u", 2), "u", 2)
    m_hi = e.sel(special, hi, e.sel(denormal, d_hi, n_hi, "u", 2), "u", 2)
    exp = e.sel(special, c(0), e.sel(denormal, d_exp, n_exp, "u", 2), "u", 2)
    return m_lo, m_hi, exp


def _dfrexpm(e, a):
    m_lo, m_hi, _ = _frexp(e, a)
    return e.shuffle(m_lo, m_hi, (0, 2, 1, 3), "u")


def _dfrexpe(e, a):
    _, _, exp = _frexp(e, a)
    return e.shuffle(exp, exp, (0, 0, 1, 1), "u")


def _dssg(e, a):
    x = _d(e, a)
    zero = e.c("d", 0.0, 2)
    r = e.sel(e.cmp("FOrdLessThan", x, zero, 2), e.c("d", -1.0, 2), zero, "d", 2)
    return _dw(e, e.sel(e.cmp("FOrdGreaterThan", x, zero, 2), e.c("d", 1.0, 2), r, "d", 2))


def _dround(e, a):
    """DROUND: half to even from Floor (helpers.glsl xl_dround1: llvmpipe's double RoundEven is
    inexact on a Zen 3, AVX2 without AVX-512); a zero result keeps the operand's sign."""
    d2, u2 = e.t("d", 2), e.t("u", 2)
    x = _d(e, a)
    half = e.c("d", 0.5, 2)
    f = e.ext("Floor", d2, x)
    frac = e.fval("FSub", d2, x, f)
    h = e.fval("FMul", d2, f, half)
    odd = e.cmp("FOrdNotEqual", e.ext("Floor", d2, h), h, 2)
    up = e.bor(e.cmp("FOrdGreaterThan", frac, half, 2),
               e.val("LogicalAnd", e.t("b", 2), e.cmp("FOrdEqual", frac, half, 2), odd), 2)
    r = _dw(e, e.fval("FAdd", d2, f, e.sel(up, e.c("d", 1.0, 2), e.c("d", 0.0, 2), "d", 2)))
    sign = e.val("BitwiseAnd", u2, _pair(e, a, 1, 3), e.cbits("u", 0x80000000, 2))
    hi = e.val("BitwiseOr", u2, _pair(e, r, 1, 3), sign)
    return e.shuffle(r, hi, (0, 4, 2, 5), "u")


def _dldexp(e, a, b):
    return _dw(e, _ldexp(e, _d(e, a), e.bitcast(_pair(e, b, 0, 2), "u", "i", 2)))


def _dmad(e, a, b, c):
    d2 = e.t("d", 2)
    return _dw(e, e.fval("FAdd", d2, e.fval("FMul", d2, _d(e, a), _d(e, b)), _d(e, c)))


def _dfma(e, a, b, c):
    # helpers.glsl xl_dfma is GLSL's fma(): GLSL.std.450 Fma through glslang, the same here
    return _dw(e, e.ext("Fma", e.t("d", 2), _d(e, a), _d(e, b), _d(e, c)))


def _dfrac(e, a):
    x = _d(e, a)
    return _dw(e, e.fval("FSub", e.t("d", 2), x, e.ext("Floor", e.t("d", 2), x)))


def _d2int(signed: bool):
    """D2I / D2U: truncated, clamped to the range, NaN 0 (xl_d2i1 / xl_d2u1)."""
    def f(e, a):
        d2 = e.t("d", 2)
        t = e.ext("Trunc", d2, _d(e, a))
        nan = e.isnan(t, 2)
        lo, hi = (-2147483648.0, 2147483647.0) if signed else (0.0, 4294967295.0)
        cl = e.ext("FClamp", d2, e.sel(nan, e.c("d", 0.0, 2), t, "d", 2), e.c("d", lo, 2),
                   e.c("d", hi, 2))
        kind = "i" if signed else "u"
        v = e.val("ConvertFToS" if signed else "ConvertFToU", e.t(kind, 2), cl)
        return _low_pair(e, e.sel(nan, e.c(kind, 0, 2), v, kind, 2), kind)
    return f


# ---- 64-bit integers --------------------------------------------------------------------------

def _qbin(op, kind="q"):
    return lambda e, a, b: _qw(e, e.val(op, e.t(kind, 2), _q(e, a, kind), _q(e, b, kind)))


def _qext(name, kind):
    return lambda e, a, b: _qw(e, e.ext(name, e.t(kind, 2), _q(e, a, kind), _q(e, b, kind)))


def _qcmp(op, kind="q"):
    return lambda e, a, b: _flags(e, e.cmp(op, _q(e, a, kind), _q(e, b, kind), 2))


def _qshift(op, kind="q"):
    """The shift counts are src1.x and src1.y, & 63 (tgsi.rst), widened to 64 bits."""
    def f(e, a, b):
        n = e.val("BitwiseAnd", e.t("u", 2), _pair(e, b, 0, 1), e.c("u", 63, 2))
        n = e.val("UConvert", e.t("q", 2), n)
        return _qw(e, e.val(op, e.t(kind, 2), _q(e, a, kind), n))
    return f


_ALL_ONES = 0xFFFFFFFFFFFFFFFF


def _zero_divisor(e, qb):
    return e.cmp("IEqual", qb, e.c("q", 0, 2), 2)


def _udivmod(mod: bool):
    def f(e, a, b):
        q2 = e.t("q", 2)
        qa, qb = _q(e, a), _q(e, b)
        zero = _zero_divisor(e, qb)
        safe = e.sel(zero, e.c("q", 1, 2), qb, "q", 2)
        r = e.val("UMod" if mod else "UDiv", q2, qa, safe)
        return _qw(e, e.sel(zero, e.c("q", _ALL_ONES, 2), r, "q", 2))
    return f


def _negative(e, q):
    return e.cmp("SLessThan", e.bitcast(q, "q", "l", 2), e.c("l", 0, 2), 2)


def _minus(e, q):
    return e.val("ISub", e.t("q", 2), e.c("q", 0, 2), q)


def _idivmod(mod: bool):
    """Magnitudes divided as unsigned values; the quotient truncated toward zero, the
    remainder with the dividend's sign; by zero all bits (xl_qidiv / xl_qimod)."""
    def f(e, a, b):
        q2 = e.t("q", 2)
        qa, qb = _q(e, a), _q(e, b)
        sa, sb = _negative(e, qa), _negative(e, qb)
        ma = e.sel(sa, _minus(e, qa), qa, "q", 2)
        mb = e.sel(sb, _minus(e, qb), qb, "q", 2)
        zero = _zero_divisor(e, qb)
        safe = e.sel(zero, e.c("q", 1, 2), mb, "q", 2)
        r = e.val("UMod" if mod else "UDiv", q2, ma, safe)
        flip = sa if mod else e.val("LogicalNotEqual", e.t("b", 2), sa, sb)
        r = e.sel(flip, _minus(e, r), r, "q", 2)
        return _qw(e, e.sel(zero, e.c("q", _ALL_ONES, 2), r, "q", 2))
    return f


def _i64abs(e, a):
    q = _q(e, a)
    return _qw(e, e.sel(_negative(e, q), _minus(e, q), q, "q", 2))


def _qbits(e, t):
    """The integer magnitude of a finite double of 2^52 or more, from its bits (xl_qbits:
    llvmpipe's SPIR-V path converted such doubles with the low bits wrong)."""
    u2, q2 = e.t("u", 2), e.t("q", 2)
    w = _dw(e, t)
    lo, hi = _pair(e, w, 0, 2), _pair(e, w, 1, 3)
    m_hi = e.val("BitwiseOr", u2, e.val("BitwiseAnd", u2, hi, e.c("u", 0xFFFFF, 2)),
                 e.c("u", 0x100000, 2))
    m = _q(e, e.shuffle(lo, m_hi, (0, 2, 1, 3), "u"))
    field = e.val("BitwiseAnd", u2, e.val("ShiftRightLogical", u2, hi, e.c("u", 20, 2)),
                  e.c("u", 0x7FF, 2))
    # shifts of 0..11 where it is used; kept below 64 everywhere else
    sh = e.val("BitwiseAnd", u2, e.val("ISub", u2, field, e.c("u", 1075, 2)), e.c("u", 63, 2))
    return e.val("ShiftLeftLogical", q2, m, e.val("UConvert", q2, sh))


def _from_double(e, x, signed: bool):
    """F2U64 F2I64 D2U64 D2I64 of a dvec2: truncated, clamped to the range, NaN 0
    (xl_qfromd)."""
    d2 = e.t("d", 2)
    t = e.ext("Trunc", d2, x)
    big = e.cmp("FOrdGreaterThanEqual", e.ext("FAbs", d2, t), e.c("d", 2.0 ** 52, 2), 2)
    nan = e.isnan(t, 2)
    # the converted value only where it is in range (every lane computes both sides)
    safe = e.sel(e.bor(big, nan, 2), e.c("d", 0.0, 2), t, "d", 2)
    if signed:
        over = e.cmp("FOrdGreaterThanEqual", t, e.c("d", 2.0 ** 63, 2), 2)
        under = e.cmp("FOrdLessThan", t, e.c("d", -2.0 ** 63, 2), 2)
        over_v, under_v = e.c("q", 0x7FFFFFFFFFFFFFFF, 2), e.c("q", 0x8000000000000000, 2)
        small = e.bitcast(e.val("ConvertFToS", e.t("l", 2), safe), "l", "q", 2)
    else:
        over = e.cmp("FOrdGreaterThanEqual", t, e.c("d", 2.0 ** 64, 2), 2)
        under = e.cmp("FOrdLessThan", t, e.c("d", 0.0, 2), 2)
        over_v, under_v = e.c("q", _ALL_ONES, 2), e.c("q", 0, 2)
        small = e.val("ConvertFToU", e.t("q", 2),
                      e.sel(under, e.c("d", 0.0, 2), safe, "d", 2))
    m = _qbits(e, t)
    big_v = e.sel(e.cmp("FOrdLessThan", t, e.c("d", 0.0, 2), 2), _minus(e, m), m, "q", 2)
    r = e.sel(big, big_v, small, "q", 2)
    r = e.sel(under, under_v, r, "q", 2)
    r = e.sel(over, over_v, r, "q", 2)
    return _qw(e, e.sel(nan, e.c("q", 0, 2), r, "q", 2))


def _f2q(signed):
    return lambda e, a: _from_double(e, e.val("FConvert", e.t("d", 2), _pair(e, a, 0, 1, "f")),
                                     signed)


def _d2q(signed):
    return lambda e, a: _from_double(e, _d(e, a), signed)


def _q2float(signed: bool, double: bool):
    def f(e, a):
        kind = "l" if signed else "q"
        conv = "ConvertSToF" if signed else "ConvertUToF"
        if double:
            return _dw(e, e.val(conv, e.t("d", 2), _q(e, a, kind)))
        return _low_pair(e, e.val(conv, e.t("f", 2), _q(e, a, kind)), "f")
    return f


WIDE = {
    ("DADD", "u"): _dbin("FAdd"), ("DMUL", "u"): _dbin("FMul"),
    ("DDIV", "u"): lambda e, a, b: _dw(e, _ddiv1(e, _d(e, a), _d(e, b))),
    ("DRCP", "u"): lambda e, a: _dw(e, _ddiv1(e, e.c("d", 1.0, 2), _d(e, a))),
    ("DSQRT", "u"): lambda e, a: _dw(e, _sqrt_scaled(e, _d(e, a), False)),
    ("DRSQ", "u"): lambda e, a: _dw(e, _sqrt_scaled(e, _d(e, a), True)),
    ("DMIN", "u"): _dminmax("FOrdLessThanEqual"), ("DMAX", "u"): _dminmax("FOrdGreaterThanEqual"),
    ("DSEQ", "u"): _dcmp("FOrdEqual"), ("DSNE", "u"): _dcmp("FUnordNotEqual"),
    ("DSLT", "u"): _dcmp("FOrdLessThan"), ("DSGE", "u"): _dcmp("FOrdGreaterThanEqual"),
    ("DLDEXP", "u"): _dldexp, ("DMAD", "u"): _dmad, ("DFMA", "u"): _dfma,
    ("DFRAC", "u"): _dfrac, ("DTRUNC", "u"): _dext("Trunc"), ("DCEIL", "u"): _dext("Ceil"),
    ("DFLR", "u"): _dext("Floor"), ("DROUND", "u"): _dround, ("DSSG", "u"): _dssg,
    ("DFREXPM", "u"): _dfrexpm, ("DFREXPE", "u"): _dfrexpe,
    ("F2D", "u"): lambda e, a: _dw(e, e.val("FConvert", e.t("d", 2), _pair(e, a, 0, 1, "f"))),
    ("I2D", "u"): lambda e, a: _dw(e, e.val("ConvertSToF", e.t("d", 2),
                                            e.bitcast(_pair(e, a, 0, 1), "u", "i", 2))),
    ("U2D", "u"): lambda e, a: _dw(e, e.val("ConvertUToF", e.t("d", 2), _pair(e, a, 0, 1))),
    ("D2F", "u"): lambda e, a: _low_pair(e, e.val("FConvert", e.t("f", 2), _d(e, a)), "f"),
    ("D2I", "u"): _d2int(True), ("D2U", "u"): _d2int(False),
    ("U64ADD", "u"): _qbin("IAdd"), ("U64MUL", "u"): _qbin("IMul"),
    ("U64MIN", "u"): _qext("UMin", "q"), ("U64MAX", "u"): _qext("UMax", "q"),
    ("I64MIN", "u"): _qext("SMin", "l"), ("I64MAX", "u"): _qext("SMax", "l"),
    ("U64SEQ", "u"): _qcmp("IEqual"), ("U64SNE", "u"): _qcmp("INotEqual"),
    ("U64SLT", "u"): _qcmp("ULessThan"), ("U64SGE", "u"): _qcmp("UGreaterThanEqual"),
    ("I64SLT", "u"): _qcmp("SLessThan", "l"), ("I64SGE", "u"): _qcmp("SGreaterThanEqual", "l"),
    ("U64SHL", "u"): _qshift("ShiftLeftLogical"), ("U64SHR", "u"): _qshift("ShiftRightLogical"),
    ("I64SHR", "u"): _qshift("ShiftRightArithmetic", "l"),
    ("U64DIV", "u"): _udivmod(False), ("U64MOD", "u"): _udivmod(True),
    ("I64DIV", "u"): _idivmod(False), ("I64MOD", "u"): _idivmod(True),
    ("I64ABS", "u"): _i64abs, ("I64NEG", "u"): lambda e, a: _qw(e, _minus(e, _q(e, a))),
    ("I64SSG", "u"): lambda e, a: _qw(e, e.ext("SSign", e.t("l", 2), _q(e, a, "l"))),
    ("F2U64", "u"): _f2q(False), ("F2I64", "u"): _f2q(True),
    ("D2U64", "u"): _d2q(False), ("D2I64", "u"): _d2q(True),
    ("U2I64", "u"): lambda e, a: _qw(e, e.val("UConvert", e.t("q", 2), _pair(e, a, 0, 1))),
    ("I2I64", "u"): lambda e, a: _qw(e, e.val("SConvert", e.t("l", 2),
                                              e.bitcast(_pair(e, a, 0, 1), "u", "i", 2))),
    ("U642F", "u"): _q2float(False, False), ("I642F", "u"): _q2float(True, False),
    ("U642D", "u"): _q2float(False, True), ("I642D", "u"): _q2float(True, True),
}
