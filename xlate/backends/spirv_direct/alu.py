"""The per-opcode templates of the direct SPIR-V path: ``ALU[(opcode, kind)]`` is a function of
the emitter and the loaded operands giving the result's id -- the instruction sequence of that
opcode, with the semantics of the executor (xlate/exec) and of the GLSL path's snippets and
helpers (templates/glsl/ops.txt, helpers.glsl), which cite the specs.  ``kind``: f float, i
signed, u unsigned (the instruction's data type).  Float arithmetic goes through ``e.fval``
(decorated NoContraction)."""
from __future__ import annotations

from .base import INF, QNAN


def f2i(e, x: int) -> int:
    """xl_f2i: clamp into the int range, 2^31 and above -> INT_MAX, NaN -> 0 (GP4 issue 41)."""
    f4, i4 = e.t("f"), e.t("i")
    r = e.val("ConvertFToS", i4, e.ext("FClamp", f4, x, e.c("f", -2147483648.0), e.c("f", 2147483520.0)))
    r = e.sel(e.cmp("FOrdGreaterThanEqual", x, e.c("f", 2147483648.0)), e.c("i", 0x7FFFFFFF), r, "i")
    return e.sel(e.isnan(x), e.c("i", 0), r, "i")


def _f2u(e, x: int) -> int:
    f4, u4 = e.t("f"), e.t("u")
    r = e.val("ConvertFToU", u4, e.ext("FClamp", f4, x, e.c("f", 0.0), e.c("f", 4294967040.0)))
    r = e.sel(e.cmp("FOrdGreaterThanEqual", x, e.c("f", 4294967296.0)), e.cbits("u", 0xFFFFFFFF), r, "u")
    return e.sel(e.isnan(x), e.c("u", 0), r, "u")


def _fb(op):
    return lambda e, a, b: e.fval(op, e.t("f"), a, b)


def _ext4(name, kind="f"):
    return lambda e, a: e.ext(name, e.t(kind), a)


def _ext1(name):
    return lambda e, a: e.ext(name, e.t("f", 1), a)


def _dot(n, extra=None):
    # the products componentwise in one multiplication (each rounded on its own, as the
    # scalar ones would be; the unused ones are never read), summed left to right
    def f(e, a, b, c=None):
        f1 = e.t("f", 1)
        p = e.fval("FMul", e.t("f"), a, b)
        s = e.x(p, 0)
        for i in range(1, n):
            s = e.fval("FAdd", f1, s, e.x(p, i))
        if extra == "w":
            s = e.fval("FAdd", f1, s, e.x(b, 3))
        elif extra == "c":
            s = e.fval("FAdd", f1, s, e.x(c, 0))
        return s
    return f


def _setf(op):
    def f(e, a, b):
        return e.sel(e.cmp(op, a, b), e.c("f", 1.0), e.c("f", 0.0), "f")
    return f


def _seti(op, kind):
    def f(e, a, b):
        return e.sel(e.cmp(op, a, b), e.cbits(kind, 0xFFFFFFFF), e.c(kind, 0), kind)
    return f


def _either_nan(e, a, b):
    return e.bor(e.isnan(a), e.isnan(b))


def _setn(op):
    def f(e, a, b):
        r = e.sel(e.cmp(op, a, b), e.c("f", 1.0), e.c("f", 0.0), "f")
        return e.sel(_either_nan(e, a, b), e.cbits("f", QNAN), r, "f")
    return f


def _min(kind, gt):
    return lambda e, a, b: e.sel(e.cmp(gt, a, b), b, a, kind)


def _max(kind, gt):
    return lambda e, a, b: e.sel(e.cmp(gt, a, b), a, b, kind)


def _ssg(e, a):
    r = e.sel(e.cmp("FOrdLessThan", a, e.c("f", 0.0)), e.c("f", -1.0), e.c("f", 0.0), "f")
    return e.sel(e.cmp("FOrdGreaterThan", a, e.c("f", 0.0)), e.c("f", 1.0), r, "f")


def _tkey(e, a):
    i4 = e.t("i")
    i = e.bitcast(a, "f", "i")
    mag = e.val("BitwiseAnd", i4, i, e.c("i", 0x7FFFFFFF))
    neg = e.val("ISub", i4, e.val("SNegate", i4, mag), e.c("i", 1))
    return e.sel(e.cmp("SLessThan", i, e.c("i", 0)), neg, i, "i")


def _tset(op):
    def f(e, a, b):
        return e.sel(e.cmp(op, _tkey(e, a), _tkey(e, b)), e.c("f", 1.0), e.c("f", 0.0), "f")
    return f


def _lrp(e, a, b, c):
    f4 = e.t("f")
    ab = e.fval("FMul", f4, a, b)
    rest = e.fval("FMul", f4, e.fval("FSub", f4, e.c("f", 1.0), a), c)
    return e.fval("FAdd", f4, ab, rest)


def _mad(e, a, b, c):
    f4 = e.t("f")
    return e.fval("FAdd", f4, e.fval("FMul", f4, a, b), c)


def _dst(e, a, b):
    y = e.fval("FMul", e.t("f", 1), e.x(a, 1), e.x(b, 1))
    return e.vec("f", [e.c("f", 1.0, 1), y, e.x(a, 2), e.x(b, 3)])


def _frc(e, a):
    f4 = e.t("f")
    return e.fval("FSub", f4, a, e.ext("Floor", f4, a))


def _lit(e, a, clamp_w=True):
    f1 = e.t("f", 1)
    z, one = e.c("f", 0.0, 1), e.c("f", 1.0, 1)
    ax, ay, aw = e.x(a, 0), e.x(a, 1), e.x(a, 3)
    x = e.sel(e.cmp("FOrdLessThan", ax, z, 1), z, ax, "f", 1)
    y = e.sel(e.cmp("FOrdLessThan", ay, z, 1), z, ay, "f", 1)
    if clamp_w:
        lim = 127.99609375
        w = e.sel(e.cmp("FOrdGreaterThan", aw, e.c("f", lim, 1), 1), e.c("f", lim, 1), aw, "f", 1)
        w = e.sel(e.cmp("FOrdLessThan", aw, e.c("f", -lim, 1), 1), e.c("f", -lim, 1), w, "f", 1)
        zero_pow = e.sel(e.cmp("FOrdEqual", w, z, 1), one,
                         e.sel(e.cmp("FOrdGreaterThan", w, z, 1), z, e.cbits("f", INF, 1), "f", 1),
                         "f", 1)
    else:
        w = aw
        w_zero = e.bor(e.cmp("FOrdEqual", w, z, 1), e.isnan(w, 1), 1)
        zero_pow = e.sel(w_zero, e.cbits("f", QNAN, 1),
                         e.sel(e.cmp("FOrdGreaterThan", w, z, 1), z, e.cbits("f", INF, 1), "f", 1),
                         "f", 1)
    pw = e.ext("Exp2", f1, e.fval("FMul", f1, w, e.ext("Log2", f1, y)))
    p = e.sel(e.cmp("FOrdEqual", y, z, 1), zero_pow, pw, "f", 1)
    zc = e.sel(e.cmp("FOrdGreaterThan", x, z, 1), p, z, "f", 1)
    return e.vec("f", [one, x, zc, one])


def _nrm(e, a):
    f1, f4 = e.t("f", 1), e.t("f")
    d = _dot(3)(e, a, a)
    s = e.fval("FDiv", f1, e.c("f", 1.0, 1), e.ext("Sqrt", f1, d))
    v = e.fval("FMul", f4, a, e.splat(s, "f"))
    return e.val("CompositeInsert", f4, e.c("f", 0.0, 1), v, 3)


def _rfl(e, a, b):
    f1, f4 = e.t("f", 1), e.t("f")
    s = e.fval("FDiv", f1, e.fval("FMul", f1, e.c("f", 2.0, 1), _dot(3)(e, a, b)), _dot(3)(e, a, a))
    v = e.fval("FSub", f4, e.fval("FMul", f4, e.splat(s, "f"), a), b)
    return e.val("CompositeInsert", f4, e.c("f", 0.0, 1), v, 3)


def _xpd(e, a, b):
    f1 = e.t("f", 1)

    def term(i, j):
        return e.fval("FSub", f1, e.fval("FMul", f1, e.x(a, i), e.x(b, j)),
                      e.fval("FMul", f1, e.x(b, i), e.x(a, j)))
    return e.vec("f", [term(1, 2), term(2, 0), term(0, 1), e.c("f", 0.0, 1)])


def _scs(e, a):
    f1 = e.t("f", 1)
    z = e.c("f", 0.0, 1)
    return e.vec("f", [e.ext("Cos", f1, a), e.ext("Sin", f1, a), z, z])


def _x2d(e, a, b, c):
    f1 = e.t("f", 1)

    def row(ai, c0, c1):
        s = e.fval("FAdd", f1, e.x(a, ai), e.fval("FMul", f1, e.x(b, 0), e.x(c, c0)))
        return e.fval("FAdd", f1, s, e.fval("FMul", f1, e.x(b, 1), e.x(c, c1)))
    x, y = row(0, 0, 1), row(1, 2, 3)
    return e.vec("f", [x, y, x, y])


def _rcc(e, a):
    f1 = e.t("f", 1)
    u = e.fval("FDiv", f1, e.c("f", 1.0, 1), a)
    lo, hi = e.cbits("f", 0x1F800000, 1), e.cbits("f", 0x5F800000, 1)
    nlo, nhi = e.cbits("f", 0x9F800000, 1), e.cbits("f", 0xDF800000, 1)
    pos = e.sel(e.cmp("FOrdLessThan", u, lo, 1), lo,
                e.sel(e.cmp("FOrdGreaterThan", u, hi, 1), hi, u, "f", 1), "f", 1)
    neg = e.sel(e.cmp("FOrdGreaterThan", u, nlo, 1), nlo,
                e.sel(e.cmp("FOrdLessThan", u, nhi, 1), nhi, u, "f", 1), "f", 1)
    bits = e.bitcast(u, "f", "u", 1)
    r = e.sel(e.cmp("ULessThan", bits, e.cbits("u", 0x80000000, 1), 1), pos, neg, "f", 1)
    return e.sel(e.isnan(u, 1), u, r, "f", 1)


def _exp(e, t, pseudocode: bool = False):
    """EXP with VP1's special cases, or (``pseudocode``: IR EXPA, ARBvp/VP2/TGSI) without: y is
    t - floor(t) always (NaN for an infinite t) and z follows x where it is 0 or INF
    (templates/glsl/helpers.glsl xl_exp / xl_expa; executor op_exp / op_expa)."""
    f1 = e.t("f", 1)
    f = e.ext("Floor", f1, t)
    inf, q, one, z = e.cbits("f", INF, 1), e.cbits("f", QNAN, 1), e.c("f", 1.0, 1), e.c("f", 0.0, 1)
    i1 = e.t("i", 1)
    bits = e.val("ShiftLeftLogical", i1, e.val("IAdd", i1, e.val("ConvertFToS", i1, f), e.c("i", 127, 1)),
                 e.c("i", 23, 1))
    x = e.sel(e.cmp("FOrdGreaterThan", f, e.c("f", 127.0, 1), 1), inf,
              e.sel(e.cmp("FOrdLessThan", f, e.c("f", -126.0, 1), 1), z, e.bitcast(bits, "i", "f", 1),
                    "f", 1), "f", 1)
    special = e.bor(e.cmp("FOrdEqual", x, z, 1), e.val("IsInf", e.t("b", 1), x), 1)
    if pseudocode:
        y = e.sel(e.val("IsInf", e.t("b", 1), t), q, e.fval("FSub", f1, t, f), "f", 1)
        w = e.sel(special, x, e.fval("FMul", f1, x, e.ext("Exp2", f1, y)), "f", 1)
    else:
        y = e.sel(special, z, e.fval("FSub", f1, t, f), "f", 1)
        w = e.fval("FMul", f1, x, e.ext("Exp2", f1, y))
    nan = e.isnan(t, 1)
    return e.vec("f", [e.sel(nan, q, x, "f", 1), e.sel(nan, q, y, "f", 1), e.sel(nan, q, w, "f", 1), one])


def _log(e, t, pseudocode: bool = False):
    """LOG with VP1's special cases (y = 1 for 0 and INF), or (``pseudocode``: IR LOGA) y NaN
    there (xl_log / xl_loga; op_log / op_loga)."""
    f1, u1 = e.t("f", 1), e.t("u", 1)
    b = e.val("BitwiseAnd", u1, e.bitcast(t, "f", "u", 1), e.cbits("u", 0x7FFFFFFF, 1))
    ex = e.val("ShiftRightLogical", u1, b, e.c("u", 23, 1))
    inf, ninf = e.cbits("f", INF, 1), e.cbits("f", 0xFF800000, 1)
    q, one = e.cbits("f", QNAN, 1), e.c("f", 1.0, 1)
    nan = e.cmp("UGreaterThan", b, e.cbits("u", INF, 1), 1)
    e0 = e.cmp("IEqual", ex, e.c("u", 0, 1), 1)
    e255 = e.cmp("IEqual", ex, e.c("u", 255, 1), 1)
    i1 = e.t("i", 1)
    x = e.val("ConvertSToF", f1, e.val("ISub", i1, e.bitcast(ex, "u", "i", 1), e.c("i", 127, 1)))
    mbits = e.val("BitwiseOr", u1, e.val("BitwiseAnd", u1, b, e.cbits("u", 0x7FFFFF, 1)),
                  e.cbits("u", 0x3F800000, 1))
    m = e.bitcast(mbits, "u", "f", 1)
    z = e.fval("FAdd", f1, x, e.ext("Log2", f1, m))

    def pick(normal, zero_case, inf_case):
        r = e.sel(e255, inf_case, normal, "f", 1)
        r = e.sel(e0, zero_case, r, "f", 1)
        return e.sel(nan, q, r, "f", 1)
    special_y = q if pseudocode else one
    return e.vec("f", [pick(x, ninf, inf), pick(m, special_y, special_y), pick(z, ninf, inf), one])


def _minmaxnum(gt):
    def f(e, a, b):
        return e.sel(e.bor(e.isnan(b), e.cmp(gt, a, b)), a, b, "f")
    return f


def _nanpick(inner):
    def f(e, a, b):
        return e.sel(_either_nan(e, a, b), e.cbits("f", QNAN), inner(e, a, b), "f")
    return f


def _ib(op, kind):
    return lambda e, a, b: e.val(op, e.t(kind), a, b)


def _shift(op, kind):
    return lambda e, a, b: e.val(op, e.t(kind), a, e.splat(e.val("BitwiseAnd", e.t(kind, 1), b,
                                                                  e.c(kind, 31, 1)), kind))


def _cvt(rounding, to):
    def f(e, a):
        r = a if rounding is None else e.ext(rounding, e.t("f"), a)
        return f2i(e, r) if to == "i" else _f2u(e, r)
    return f


ALU = {
    ("ABS", "f"): _ext4("FAbs"), ("ABS", "i"): _ext4("SAbs", "i"), ("ABS", "u"): lambda e, a: a,
    ("ADD", "f"): _fb("FAdd"), ("SUB", "f"): _fb("FSub"), ("MUL", "f"): _fb("FMul"),
    ("MAD", "f"): _mad, ("DIV", "f"): lambda e, a, b: e.fval("FDiv", e.t("f"), a, e.splat(b, "f")),
    ("CMP", "f"): lambda e, a, b, c: e.sel(e.cmp("FOrdLessThan", a, e.c("f", 0.0)), b, c, "f"),
    ("CMP", "i"): lambda e, a, b, c: e.sel(e.cmp("SLessThan", a, e.c("i", 0)), b, c, "i"),
    ("CMP", "u"): lambda e, a, b, c: c,
    ("COS", "f"): _ext1("Cos"), ("SIN", "f"): _ext1("Sin"), ("EX2", "f"): _ext1("Exp2"),
    ("LG2", "f"): _ext1("Log2"), ("SQRT", "f"): _ext1("Sqrt"),
    ("DDX", "f"): lambda e, a: e.derivative("DPdxFine", a),
    ("DDY", "f"): lambda e, a: e.derivative("DPdyFine", a),
    ("DP2", "f"): _dot(2), ("DP3", "f"): _dot(3), ("DP4", "f"): _dot(4), ("DPH", "f"): _dot(3, "w"),
    ("DP2A", "f"): _dot(2, "c"), ("DST", "f"): _dst,
    ("FLR", "f"): _ext4("Floor"), ("CEIL", "f"): _ext4("Ceil"), ("TRUNC", "f"): _ext4("Trunc"),
    ("ROUND", "f"): _ext4("RoundEven"), ("FRC", "f"): _frc,
    ("FLR", "i"): _cvt("Floor", "i"), ("CEIL", "i"): _cvt("Ceil", "i"),
    ("TRUNC", "i"): _cvt("Trunc", "i"), ("ROUND", "i"): _cvt("RoundEven", "i"),
    ("FLR", "u"): _cvt("Floor", "u"), ("CEIL", "u"): _cvt("Ceil", "u"),
    ("TRUNC", "u"): _cvt("Trunc", "u"), ("ROUND", "u"): _cvt("RoundEven", "u"),
    ("I2F", "i"): lambda e, a: e.val("ConvertSToF", e.t("f"), a),
    ("I2F", "u"): lambda e, a: e.val("ConvertUToF", e.t("f"), a),
    ("LIT", "f"): _lit, ("LITNC", "f"): lambda e, a: _lit(e, a, clamp_w=False),
    ("LRP", "f"): _lrp,
    ("MAX", "f"): _max("f", "FOrdGreaterThan"), ("MIN", "f"): _min("f", "FOrdGreaterThan"),
    ("MAX", "i"): _max("i", "SGreaterThan"), ("MIN", "i"): _min("i", "SGreaterThan"),
    ("MAX", "u"): _max("u", "UGreaterThan"), ("MIN", "u"): _min("u", "UGreaterThan"),
    ("MOV", "f"): lambda e, a: a, ("MOV", "i"): lambda e, a: a, ("MOV", "u"): lambda e, a: a,
    ("SWZ", "f"): lambda e, a: a,
    ("NRM", "f"): _nrm, ("RFL", "f"): _rfl, ("XPD", "f"): _xpd, ("SCS", "f"): _scs, ("X2D", "f"): _x2d,
    ("POW", "f"): lambda e, a, b: e.ext("Exp2", e.t("f", 1), e.fval("FMul", e.t("f", 1), b,
                                                                    e.ext("Log2", e.t("f", 1), a))),
    ("RCP", "f"): lambda e, a: e.fval("FDiv", e.t("f", 1), e.c("f", 1.0, 1), a),
    ("RSQ", "f"): lambda e, a: e.fval("FDiv", e.t("f", 1), e.c("f", 1.0, 1),
                                      e.ext("Sqrt", e.t("f", 1), a)),
    ("RCC", "f"): _rcc, ("EXP", "f"): _exp, ("LOG", "f"): _log,
    ("EXPA", "f"): lambda e, t: _exp(e, t, pseudocode=True),
    ("LOGA", "f"): lambda e, t: _log(e, t, pseudocode=True),
    ("SEQ", "f"): _setf("FOrdEqual"), ("SNE", "f"): _setf("FUnordNotEqual"),
    ("SGE", "f"): _setf("FOrdGreaterThanEqual"), ("SGT", "f"): _setf("FOrdGreaterThan"),
    ("SLE", "f"): _setf("FOrdLessThanEqual"), ("SLT", "f"): _setf("FOrdLessThan"),
    ("SFL", "f"): lambda e, a, b: e.c("f", 0.0), ("STR", "f"): lambda e, a, b: e.c("f", 1.0),
    ("SSG", "f"): _ssg,
    ("SSGN", "f"): lambda e, a: e.sel(e.isnan(a), e.cbits("f", QNAN), _ssg(e, a), "f"),
    ("MINN", "f"): _nanpick(_min("f", "FOrdGreaterThan")),
    ("MAXN", "f"): _nanpick(_max("f", "FOrdGreaterThan")),
    ("SEQN", "f"): _setn("FOrdEqual"), ("SNEN", "f"): _setn("FUnordNotEqual"),
    ("SGEN", "f"): _setn("FOrdGreaterThanEqual"), ("SGTN", "f"): _setn("FOrdGreaterThan"),
    ("SLEN", "f"): _setn("FOrdLessThanEqual"), ("SLTN", "f"): _setn("FOrdLessThan"),
    ("SGET", "f"): _tset("SGreaterThanEqual"), ("SLTT", "f"): _tset("SLessThan"),
    ("MINNUM", "f"): _minmaxnum("FOrdLessThan"), ("MAXNUM", "f"): _minmaxnum("FOrdGreaterThan"),
}
def _pk(name, n):
    def f(e, a):
        v = e.shuffle(a, a, (0, 1), "f") if n == 2 else a
        return e.ext(name, e.t("u", 1), v)
    return f


def _up(name, n):
    def f(e, a):
        v = e.ext(name, e.t("f", n), a)
        return e.shuffle(v, v, (0, 1, 0, 1), "f") if n == 2 else v
    return f


def _pk4b(e, a):
    """PK4B: excess-128 bytes, roundEven(127 * clamp(v, -128/127, 1) + 128), x low.  A NaN
    packs as 0.0 (byte 0x80; the executor's choice, xlate/exec/__init__.py): FClamp of a NaN is
    undefined (GLSL.std.450), and lavapipe's gave byte 0x00 -- found by the tree-level
    mutation harness's strict cross-check of the direct module."""
    f4, u4, u1 = e.t("f"), e.t("u"), e.t("u", 1)
    a = e.sel(e.isnan(a), e.c("f", 0.0), a, "f")
    cl = e.ext("FClamp", f4, a, e.c("f", -128.0 / 127.0), e.c("f", 1.0))
    v = e.fval("FAdd", f4, e.fval("FMul", f4, cl, e.c("f", 127.0)), e.c("f", 128.0))
    b = e.val("ConvertFToU", u4, e.ext("RoundEven", f4, v))
    r = e.x(b, 0, "u")
    for i in (1, 2, 3):
        r = e.val("BitwiseOr", u1, r, e.val("ShiftLeftLogical", u1, e.x(b, i, "u"), e.c("u", 8 * i, 1)))
    return r


def _up4b(e, u):
    f4, u4 = e.t("f"), e.t("u")
    shifts = e.m.vconst_bits("u", (0, 8, 16, 24))
    bytes_ = e.val("BitwiseAnd", u4, e.val("ShiftRightLogical", u4, e.splat(u, "u"), shifts),
                   e.c("u", 0xFF))
    f = e.fval("FSub", f4, e.val("ConvertUToF", f4, bytes_), e.c("f", 128.0))
    return e.fval("FDiv", f4, f, e.c("f", 127.0))


for _k in ("f", "i", "u"):
    ALU.update({("PK2H", _k): _pk("PackHalf2x16", 2), ("PK2US", _k): _pk("PackUnorm2x16", 2),
                 ("PK4UB", _k): _pk("PackUnorm4x8", 4), ("PK4B", _k): _pk4b,
                 ("UP2H", _k): _up("UnpackHalf2x16", 2), ("UP2US", _k): _up("UnpackUnorm2x16", 2),
                 ("UP4UB", _k): _up("UnpackUnorm4x8", 4), ("UP4B", _k): _up4b})

def _fset(op):
    return lambda e, a, b: e.sel(e.cmp(op, a, b), e.cbits("u", 0xFFFFFFFF), e.c("u", 0), "u")


def _idiv(mod):
    """xl_div / xl_mod (helpers.glsl "idiv"): magnitudes divided as unsigned values, the
    quotient truncated toward zero, the remainder with the dividend's sign; by zero: all bits
    set (the project's reading of what GP4 leaves undefined)."""
    def signed(e, a, b):
        u4, u1 = e.t("u"), e.t("u", 1)
        zero_u = e.c("u", 0)
        sa = e.val("ISub", u4, zero_u, e.sel(e.cmp("SLessThan", a, e.c("i", 0)), e.c("u", 1),
                                              zero_u, "u"))
        au = e.val("ISub", u4, e.val("BitwiseXor", u4, e.bitcast(a, "i", "u"), sa), sa)
        bneg = e.cmp("SLessThan", b, e.c("i", 0, 1), 1)
        bu = e.bitcast(b, "i", "u", 1)
        bm = e.sel(bneg, e.val("ISub", u1, e.c("u", 0, 1), bu), bu, "u", 1)
        d = e.splat(e.ext("UMax", u1, bm, e.c("u", 1, 1)), "u")
        if mod:
            r = e.val("UMod", u4, au, d)
            res = e.val("ISub", u4, e.val("BitwiseXor", u4, r, sa), sa)
        else:
            q = e.val("UDiv", u4, au, d)
            sq = e.val("BitwiseXor", u4, sa, e.splat(e.sel(bneg, e.cbits("u", 0xFFFFFFFF, 1),
                                                           e.c("u", 0, 1), "u", 1), "u"))
            res = e.val("ISub", u4, e.val("BitwiseXor", u4, q, sq), sq)
        bz = e.splat(e.cmp("IEqual", b, e.c("i", 0, 1), 1), "b")
        return e.sel(bz, e.c("i", -1), e.bitcast(res, "u", "i"), "i")

    def unsigned(e, a, b):
        u4, u1 = e.t("u"), e.t("u", 1)
        d = e.splat(e.ext("UMax", u1, b, e.c("u", 1, 1)), "u")
        r = e.val("UMod" if mod else "UDiv", u4, a, d)
        bz = e.splat(e.cmp("IEqual", b, e.c("u", 0, 1), 1), "b")
        return e.sel(bz, e.cbits("u", 0xFFFFFFFF), r, "u")
    return signed, unsigned


def _mulhi(kind):
    def f(e, a, b):
        t4 = e.t(kind)
        st = e.m._type(("struct2", t4), "TypeStruct", t4, t4)
        r = e.val("SMulExtended" if kind == "i" else "UMulExtended", st, a, b)
        return e.val("CompositeExtract", t4, r, 1)
    return f


def sad(kind):
    """|a - b| + c, the difference taken as unsigned words (helpers sad)."""
    def f(e, a, b, c):
        t4, u4 = e.t(kind), e.t("u")
        gt = e.cmp("SGreaterThan" if kind == "i" else "UGreaterThan", a, b)
        d = e.sel(gt, e.val("ISub", t4, a, b), e.val("ISub", t4, b, a), kind)
        return e.val("IAdd", u4, e.bitcast(d, kind, "u"), c)
    return f


ALU.update({
    ("SAD", "i"): sad("i"), ("SAD", "u"): sad("u"),
    ("FSEQ", "f"): _fset("FOrdEqual"), ("FSNE", "f"): _fset("FUnordNotEqual"),
    ("FSLT", "f"): _fset("FOrdLessThan"), ("FSGE", "f"): _fset("FOrdGreaterThanEqual"),
    ("ISSG", "i"): lambda e, a: e.ext("SSign", e.t("i"), a),
    ("ISSG", "u"): lambda e, a: e.sel(e.cmp("INotEqual", a, e.c("u", 0)), e.c("u", 1), e.c("u", 0), "u"),
    ("DIV", "i"): _idiv(False)[0], ("DIV", "u"): _idiv(False)[1],
    ("MOD", "i"): _idiv(True)[0], ("MOD", "u"): _idiv(True)[1],
})
for _k in ("f", "i", "u"):
    ALU[("UCMP", _k)] = lambda e, a, b, c, _k=_k: e.sel(e.cmp("INotEqual", a, e.c("u", 0)), b, c, _k)
MULHI = {"i": _mulhi("i"), "u": _mulhi("u")}

for _k in ("i", "u"):
    ALU.update({
        ("ADD", _k): _ib("IAdd", _k), ("SUB", _k): _ib("ISub", _k), ("MUL", _k): _ib("IMul", _k),
        ("MAD", _k): lambda e, a, b, c, _k=_k: e.val("IAdd", e.t(_k), e.val("IMul", e.t(_k), a, b), c),
        ("AND", _k): _ib("BitwiseAnd", _k), ("OR", _k): _ib("BitwiseOr", _k),
        ("XOR", _k): _ib("BitwiseXor", _k), ("NOT", _k): lambda e, a, _k=_k: e.val("Not", e.t(_k), a),
        ("SHL", _k): _shift("ShiftLeftLogical", _k),
        ("SHR", _k): _shift("ShiftRightArithmetic" if _k == "i" else "ShiftRightLogical", _k),
        ("SEQ", _k): _seti("IEqual", _k), ("SNE", _k): _seti("INotEqual", _k),
        ("SGE", _k): _seti("SGreaterThanEqual" if _k == "i" else "UGreaterThanEqual", _k),
        ("SGT", _k): _seti("SGreaterThan" if _k == "i" else "UGreaterThan", _k),
        ("SLE", _k): _seti("SLessThanEqual" if _k == "i" else "ULessThanEqual", _k),
        ("SLT", _k): _seti("SLessThan" if _k == "i" else "ULessThan", _k),
        ("SFL", _k): lambda e, a, b, _k=_k: e.c(_k, 0),
        ("STR", _k): lambda e, a, b, _k=_k: e.cbits(_k, 0xFFFFFFFF),
    })


# ---- bitfield (TGSI IBFE/UBFE/BFI/BREV/POPC/LSB/IMSB/UMSB) ----------------------------------------
# The window [offset, offset + bits) clipped at bit 31, as the executor (xlate/exec/alu_dialects.py
# op_bfext/op_bfins) and helpers.glsl "bitfield": OpBitField*Extract/Insert leave an offset +
# count past 32 undefined, so the shifts are spelled out, each kept in [0, 31] (SPIR-V leaves a
# shift by the width undefined) and a width of 0 selected to 0 / no bit.

def _bf_window(e, o, b):
    """(offset clipped to 32, width clipped to 32 - offset), as uvec4s."""
    u4 = e.t("u")
    oc = e.ext("UMin", u4, o, e.c("u", 32))
    return oc, e.ext("UMin", u4, b, e.val("ISub", u4, e.c("u", 32), oc))


def _ones_where_nonzero(e, w):
    return e.sel(e.cmp("INotEqual", w, e.c("u", 0)), e.cbits("u", 0xFFFFFFFF), e.c("u", 0), "u")


def _below_31(e, v):
    return e.val("BitwiseAnd", e.t("u"), v, e.c("u", 31))


def _bfext(kind):
    def f(e, v, o, b):
        u4 = e.t("u")
        oc, w = _bf_window(e, o, b)
        up_shift = _below_31(e, e.val("ISub", u4, e.val("ISub", u4, e.c("u", 32), oc), w))
        down_shift = _below_31(e, e.val("ISub", u4, e.c("u", 32), w))
        up = e.val("ShiftLeftLogical", u4, e.bitcast(v, kind, "u"), up_shift)
        if kind == "i":
            down = e.bitcast(e.val("ShiftRightArithmetic", e.t("i"), e.bitcast(up, "u", "i"),
                                   down_shift), "i", "u")
        else:
            down = e.val("ShiftRightLogical", u4, up, down_shift)
        return e.bitcast(e.val("BitwiseAnd", u4, down, _ones_where_nonzero(e, w)), "u", kind)
    return f


def _bfins(e, base, ins, o, b):
    u4 = e.t("u")
    oc, w = _bf_window(e, o, b)
    at = _below_31(e, oc)               # an offset of 32 has width 0: no bit is inserted
    # ((1 << w) - 1) << offset without a shift by 32: (~0 >> (32 - w)) where w > 0, else 0
    ones = e.val("BitwiseAnd", u4, e.val("ShiftRightLogical", u4, e.cbits("u", 0xFFFFFFFF),
                                         _below_31(e, e.val("ISub", u4, e.c("u", 32), w))),
                 _ones_where_nonzero(e, w))
    mask = e.val("ShiftLeftLogical", u4, ones, at)
    moved = e.val("BitwiseAnd", u4, e.val("ShiftLeftLogical", u4, ins, at), mask)
    kept = e.val("BitwiseAnd", u4, base, e.val("Not", u4, mask))
    return e.val("BitwiseOr", u4, moved, kept)


ALU.update({
    ("BFEXT", "i"): _bfext("i"), ("BFEXT", "u"): _bfext("u"), ("BFINS", "u"): _bfins,
    ("BREV", "u"): lambda e, a: e.val("BitReverse", e.t("u"), a),
    ("POPC", "u"): lambda e, a: e.val("BitCount", e.t("u"), a),
    # GLSL.std.450 FindILsb/FindUMsb/FindSMsb give -1 where no bit is found, as tgsi.rst LSB and
    # UMSB; FindSMsb: the highest bit that differs from the sign bit (IMSB, SM5 FIRSTBIT_SHI)
    ("LSB", "u"): lambda e, a: e.ext("FindILsb", e.t("i"), a),
    ("MSB", "u"): lambda e, a: e.ext("FindUMsb", e.t("i"), a),
    ("MSB", "i"): lambda e, a: e.ext("FindSMsb", e.t("i"), a),
})


# ---- LDEXP, FMA, snorm8 packing (TGSI) ------------------------------------------------------------

def _fma(e, a, b, c):
    """tgsi.rst FMA, a * b + c rounded once, as the executor's op_fma and helpers.glsl ``xl_fma1``
    (the same reading, componentwise): the float product is exact in double; the double sum s,
    converted to float, is right unless s lies exactly halfway between two floats while the
    exact sum does not -- then the sign of s's own rounding error (TwoSum) picks the side.
    OpExtInst Fma would do, but GLSL.std.450 leaves its rounding to the implementation."""
    d4, f4, u4, b4 = e.t("d"), e.t("f"), e.t("u"), e.t("b")
    a64, b64, c64 = (e.val("FConvert", d4, v) for v in (a, b, c))
    p = e.fval("FMul", d4, a64, b64)
    s = e.fval("FAdd", d4, p, c64)
    bb = e.fval("FSub", d4, s, p)
    err = e.fval("FAdd", d4, e.fval("FSub", d4, p, e.fval("FSub", d4, s, bb)),
                 e.fval("FSub", d4, c64, bb))
    r = e.val("FConvert", f4, s)
    r64 = e.val("FConvert", d4, r)
    zero_d = e.c("d", 0.0)
    w = e.bitcast(r, "f", "u")
    # the float next to r on s's side (r finite): away from zero where s is, else toward it
    away = e.val("LogicalEqual", b4, e.cmp("FOrdGreaterThan", s, r64),
                 e.cmp("FOrdGreaterThan", r, e.c("f", 0.0)))
    step = e.sel(away, e.val("IAdd", u4, w, e.c("u", 1)), e.val("ISub", u4, w, e.c("u", 1)), "u")
    from_zero = e.sel(e.cmp("FOrdGreaterThan", s, zero_d), e.c("u", 1), e.c("u", 0x80000001), "u")
    o = e.bitcast(e.sel(e.cmp("FOrdEqual", r, e.c("f", 0.0)), from_zero, step, "u"), "u", "f")
    mid = e.fval("FMul", d4, e.fval("FAdd", d4, r64, e.val("FConvert", d4, o)), e.c("d", 0.5))
    halfway = e.val("LogicalAnd", b4, e.cmp("FOrdNotEqual", r64, s), e.cmp("FOrdEqual", mid, s))
    plain = e.bor(e.bor(e.isnan(s), e.val("IsInf", b4, s)),
                  e.bor(e.cmp("FOrdEqual", err, zero_d), e.val("IsInf", b4, r)))
    up = e.sel(e.cmp("FOrdGreaterThan", err, zero_d),
               e.sel(e.cmp("FOrdGreaterThan", o, r), o, r, "f"),
               e.sel(e.cmp("FOrdLessThan", o, r), o, r, "f"), "f")
    fix = e.val("LogicalAnd", b4, e.val("LogicalNot", b4, plain), halfway)
    return e.sel(fix, up, r, "f")


def _pk4snorm(e, a):
    """TGSI PK4B (IR PK4SNORM), as the executor's op_pk4snorm and helpers.glsl xl_pk4snorm:
    roundEven(127 * clamp(v, -1, 1)) as two's-complement bytes, x low; a NaN packs as 0 (selected
    before the clamp: FClamp of a NaN is undefined)."""
    f4, u4, u1 = e.t("f"), e.t("u"), e.t("u", 1)
    a = e.sel(e.isnan(a), e.c("f", 0.0), a, "f")
    cl = e.ext("FClamp", f4, a, e.c("f", -1.0), e.c("f", 1.0))
    n = e.val("ConvertFToS", e.t("i"), e.ext("RoundEven", f4, e.fval("FMul", f4, cl, e.c("f", 127.0))))
    b = e.val("BitwiseAnd", u4, e.bitcast(n, "i", "u"), e.c("u", 0xFF))
    r = e.x(b, 0, "u")
    for i in (1, 2, 3):
        r = e.val("BitwiseOr", u1, r, e.val("ShiftLeftLogical", u1, e.x(b, i, "u"), e.c("u", 8 * i, 1)))
    return r


def _up4snorm(e, u):
    """TGSI UP4B (IR UP4SNORM): each byte sign-extended, max(byte / 127, -1)."""
    f4 = e.t("f")
    up = e.val("ShiftLeftLogical", e.t("u"), e.splat(u, "u"), e.m.vconst_bits("u", (24, 16, 8, 0)))
    b = e.val("ShiftRightArithmetic", e.t("i"), e.bitcast(up, "u", "i"), e.c("u", 24))
    f = e.fval("FDiv", f4, e.val("ConvertSToF", f4, b), e.c("f", 127.0))
    return e.sel(e.cmp("FOrdLessThan", f, e.c("f", -1.0)), e.c("f", -1.0), f, "f")


ALU.update({
    # tgsi.rst LDEXP; the GLSL path's ldexp() (GLSL.std.450 Ldexp too, through glslang)
    ("LDEXP", "f"): lambda e, a, b: e.ext("Ldexp", e.t("f"), a, b),
    ("FMA", "f"): _fma,
    ("PK4SNORM", "u"): _pk4snorm, ("UP4SNORM", "u"): _up4snorm,
})


def _readhelper(e):
    """TGSI READ_HELPER: ~0 in a helper invocation -- one the implementation runs for
    derivatives, or one DEMOTE made (helpers.glsl / ops.txt READHELPER)."""
    bt = e.t("b", 1)
    helper = e.bor(e.val("Load", bt, e.helper_invocation()), e.val("Load", bt, e.demoted_flag()), 1)
    return e.splat(e.sel(helper, e.cbits("u", 0xFFFFFFFF, 1), e.c("u", 0, 1), "u", 1), "u")


ALU[("READHELPER", "u")] = _readhelper

# the doubles and 64-bit integers (their own module: two values a register, 2-vector templates)
from .wide import WIDE  # noqa: E402  (after ALU: its templates use the emitter only)
ALU.update(WIDE)
