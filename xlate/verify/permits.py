"""Which departures from the executor's result the specifications permit, one rule each.

The replay (:mod:`replay`) runs the executor again and, at every instruction whose result the
implementation computed differently, asks :func:`permitted` whether that very difference is a
freedom the specifications leave (for the operands the executor holds at that point).  A
permitted difference is *adopted* -- the executor continues with the implementation's value --
and every other one is recorded as a translation (or executor) defect.  A program passes only
when the executor, taking the implementation's value at exactly those permitted places and
nowhere else, reproduces every output of the implementation bit for bit: the explanation is
shown by that run, not assumed.

Each rule decides per lane and per component; the first rule that permits a component names
its verdict.  A rule either recomputes the instruction with the cause removed (flushed
operands, a nudged texel coordinate, another level of detail) and accepts the implementation's
value only when it equals that recomputation, or accepts any value where the specifications
leave *that instruction's* result undefined.  Either way the value is adopted and everything
computed from it afterwards must match exactly (see :data:`RULES`).  The spec passage behind each rule is in its docstring and in
:data:`xlate.verify.compare.EXPLANATIONS`.
"""
from __future__ import annotations

import numpy as np

from ..ir.model import DataType, Stage
from ..ir.ops import COMPONENTWISE  # noqa: F401  (re-exported)
from ..ir.ops import BIT_MOVES, OPCODES, PACK_FIELD_BITS, RAW_OPERAND_OPS
from . import compare as cmp
from .compare import same_words
# the site and helpers (permits_site.py), the texture and layer rules (permits_texture.py,
# permits_layer.py), re-exported: the replay and the tests name them through this module
from .permits_site import nonfinite_reach, selected_values
from .permits_site import (CUBE_DIRECTION_OPS, DOUBLE_OPS, F32, RANGE_LIMIT,  # noqa: F401
                           SAMPLING_OPS, SIGN, U32, UNDEFINED_COMPONENTS, _DOTS, Site,
                           _denormal, _flush_operand, _half_nan, _holds_denormal, _nonfinite,
                           _same_or_zeros, _saturated)
from .permits_texture import (LOD_BATCH, LOD_SPAN, LOD_STEP, TEXEL_RANGE_LIMIT,  # noqa: F401
                              _between_grid, _implicit_lookup, rule_boundary,
                              rule_cube_flushed_reciprocal, rule_cube_tie_derivatives,
                              rule_fine_derivatives, rule_lod, rule_texcoord_range,
                              rule_undefined_derivatives, rule_wrapped_lod)
from .permits_layer import rule_layer_tie, rule_wrapped_layer  # noqa: F401
from .lookup_hull import possible_lookup
from .permits_defects import rule_implementation, rule_implementation_any  # noqa: F401


# ---- the rules --------------------------------------------------------------------------------
# Each takes the Site and returns an (n, 4) bool mask of the components it permits.

#: opcodes that only move bits (ir/ops.BIT_MOVES): a -0.0 or a NaN moved stays one
MOVES = BIT_MOVES

#: opcodes that read their scalar operand's bits, not its value (GP4 UP2H/UP2US/UP4B/UP4UB:
#: "the 32 least significant bits of the encoding"; GLSL floatBitsToUint is exact): a NaN or
#: denormal bit pattern there is no operation on a NaN or a denormal -- no freedom
BIT_READS = RAW_OPERAND_OPS

#: set-on compares of float operands: whatever a NaN or infinity among the operands does to
#: the comparison, the instruction still writes its TRUE or FALSE value (GLSL 4.50 §4.7.1
#: leaves the *outcome* of an operation on NaN open -- glslang emits ordered compares for
#: ``<``/``==`` and unordered ones for ``!=``, Mesa may fold ``a != a`` to false -- not the
#: values a compare writes: ``vec4(bvec4)`` is 1.0 or 0.0, GLSL §5.4.1).  The VP2 ``...N``
#: forms also give NaN (their own result on a NaN operand, NV_vertex_program2 2.14.1.10).
SET_ON = frozenset({"SEQ", "SGE", "SGT", "SLE", "SLT", "SNE", "SEQN", "SGEN", "SGTN", "SLEN",
                    "SLTN", "SNEN", "SGET", "SLTT", "FSEQ", "FSNE", "FSLT", "FSGE"})
#: set-on opcodes whose result reads no operand value: no freedom at all
CONSTANT_SETS = frozenset({"SFL", "STR"})

#: reciprocals with a pole at zero: on an exact +-0 operand the result is an infinity the specs
#: fix (NV_vertex_program 2.14.1.10.7 "RSQ(0.0) gives [+Inf, +Inf, +Inf, +Inf]";
#: NV_fragment_program 3.11.5 "ApproxReciprocal(+0.0) = +INF, ApproxReciprocal(-0.0) = -INF")
#: and the translation's ``1.0 / x`` / ``1.0 / sqrt(x)`` generates it too: GLSL 4.50 §4.7.1
#: "Positive and negative infinities and positive and negative zeros are generated as dictated
#: by IEEE" (sqrt(+-0) = +-0, 1/+-0 = +-Inf; the table's 2.5 ulp bound for ``a / b`` speaks of
#: the rounding of finite quotients, an infinity has none -- the reading chosen here; llvmpipe
#: agrees, design/toolchain.md).  So a non-finite result there is no freedom: the
#: implementation's value must be the executor's infinity (a mutant ``1.0 * sqrt(0)`` passed
#: as 'nonfinite').  Likewise an infinite operand: ApproxReciprocal(+-INF) = +-0.0, "RSQ(+Inf)
#: and RSQ(-Inf) give [0.0, 0.0, 0.0, 0.0]", and IEEE 1/+-Inf = +-0 -- a zero (of either sign,
#: rule_signedzero), not any value (a mutant ``1.0 / x`` -> ``1.0 * x`` of RCP(RSQ(0)) passed
#: as 'nonfinite': Celestia eclipse2_nv.fp, NV_fragment_program).
ZERO_POLES = frozenset({"RCP", "RSQ"})



def rule_signedzero(s: Site) -> np.ndarray:
    """Both results are zeros of different signs.  GLSL 4.50 §4.7.1 leaves operations on
    special values to the implementation, and Mesa folds ``0 + x`` to ``x`` and ``x * 0`` to
    ``+0``; NV_vertex_program 2.14.1.11 itself defines ``0 * x = +0``.  For moves
    (:data:`MOVES`) only where the component is a constant the compiler folds (an immediate,
    a constant register, SWZ's 0/1 selectors: Mesa turns ``-0.0`` into ``0.0``); a moved
    register value keeps its sign.

    Not narrowed for products to {+0, the IEEE sign}, though NV_vertex_program 2.14.1.11 and
    GLSL 4.50 §4.7.1 ("zeros are generated as dictated by IEEE") would allow only those:
    llvmpipe gives -0 where the executor's IEEE product is +0 (``MUL.F R1, -texcoord[1].xyww,
    R0.ywxw`` with R0 = +0, every lane of random nv4 fragment seed 11163527 in
    tests/test_verify_random.py), a correct translation, so the implementation's freedom is
    taken to be the sign of any zero result (issue 17 §1)."""
    zeros = ((s.exe & 0x7FFFFFFF) == 0) & ((s.imp & 0x7FFFFFFF) == 0)
    if s.ins.op not in MOVES:
        return zeros
    from .trace import _constant_source
    src = s.ins.srcs[0]
    if src.abs:
        # Mesa folds |x| to x where its range analysis proves x >= 0 -- a SQRT's result, which
        # -0.0 satisfies -- so |sqrt(-0.0)| is -0.0 on llvmpipe where IEEE gives +0.0 (random
        # TGSI geometry seed 12, MOV OUT[0], |TEMP[0]| after SQRT TEMP[0].y, -TEMP[1]):
        # an operation on a zero's sign, as above
        return zeros
    if _constant_source(s.op.st.program, src):
        return zeros
    folded = np.array([c >= 4 for c in src.swizzle][:4] + [False] * (4 - len(src.swizzle)))
    return zeros & folded


def rule_ftz(s: Site) -> np.ndarray:
    """Denormals flushed (NV_gpu_program4 issue 18: "Denorms ... may be flushed to zero,
    preserving the sign bit"; GLSL 4.50 §4.7.1).  Shown by recomputation: the implementation's
    value is the executor's result flushed, or the instruction recomputed with every denormal
    operand flushed (and its result flushed), or -- for dot products and MAD -- with the
    denormal intermediate products (and a dot product's partial sums) flushed."""
    if s.ins.op in DOUBLE_OPS:
        return _ftz_doubles(s)
    if s.op.rt != DataType.FLOAT:
        # an integer result is no float: its words are not flushed, and two zeros of other
        # signs are two integers (cg GTU-famicom scaleX noopt vertex, campaign seed 10:
        # TRUNC.U's 1, the word of a float denormal, "flushed" to 0 passed a mutant that
        # skipped the IF it decides); only operands are flushed, the result compared exactly
        return _ftz_integer_result(s)
    flushed = cmp.flush(s.exe)
    ok = _same_or_zeros(flushed, s.imp) & _denormal(s.exe)
    if s.ins.op in BIT_READS:           # the operand's bits are no denormal value
        return ok
    # every subset of the operands holding denormals, flushed: an implementation flushes where
    # it computes (a compare) and may move the other operands' bits unchanged (a select)
    holders = [i for i, o in enumerate(s.all_operands) if _holds_denormal(o)]
    for ops in _flushed_subsets(s, holders):
        r = s.recompute(ops)
        ok |= _same_or_zeros(r, s.imp) | _same_or_zeros(cmp.flush(r), s.imp)
        if s.ins.op in SAMPLING_OPS:
            # a lookup with flushed coordinates or LOD is filtered like any other (llvmpipe's
            # texels are not the executor's bit for bit): within the filtering tolerance, every
            # written component of the one lookup (TGSI fragment seed 128, inputs seed 31: a
            # denormal TXL LOD flushed to 0 magnifies where the executor minified)
            written = s.written_components()
            near = cmp.float_equal(r, s.imp, *cmp.INEXACT["TEX"]) | ~written
            ok |= near.all(axis=1)[:, None] & written
    ok |= _saturation_moved_denormal(s, holders)
    inter = _flushed_intermediates(s)
    if inter is not None:
        ok |= _same_or_zeros(inter, s.imp) | _same_or_zeros(cmp.flush(inter), s.imp)
    if s.ins.op == "LDEXP":
        # the exact product below the smallest normal, rounded up to it by the executor:
        # an implementation that flushes the denormal exact value gives zero (llvmpipe does)
        a = np.broadcast_to(np.asarray(s.operands[0], np.float64), s.exe.shape)
        e = np.clip(np.broadcast_to(np.asarray(s.operands[1]).astype(np.int64), s.exe.shape),
                    -400, 400)
        with np.errstate(all="ignore"):
            tiny = np.abs(np.ldexp(a, e)) < 2.0 ** -126
        ok |= tiny & ((s.imp & 0x7FFFFFFF) == 0)
    deriv = _flushed_derivative(s)
    if deriv is not None:
        ok |= _same_or_zeros(deriv, s.imp) | _same_or_zeros(cmp.flush(deriv), s.imp)
    if holders and OPCODES[s.ins.op].selected_operands:
        # a select compares flushed values and may move the chosen operand's bits unflushed:
        # where a component's operands hold a denormal, either candidate, flushed or not --
        # that component only (a denormal elsewhere frees no other component's choice)
        words = [np.ascontiguousarray(np.broadcast_to(np.asarray(o), s.exe.shape))
                 for o in s.operands]
        free = np.zeros(s.exe.shape, bool)
        for w in words:
            if w.dtype == np.float32:
                free |= _denormal(w.view(U32))
        for j in OPCODES[s.ins.op].selected_operands:
            w = words[j]
            if w.dtype == np.float32:
                w = w.view(U32)
                ok |= free & (_same_or_zeros(w, s.imp) | _same_or_zeros(cmp.flush(w), s.imp))
    return ok


def _ftz_integer_result(s: Site) -> np.ndarray:
    """:func:`rule_ftz` for an instruction with an integer result (a conversion, a compare
    of floats to a mask): recomputed with every subset of its denormal float operands
    flushed, the result equal word for word."""
    ok = np.zeros(s.exe.shape, bool)
    if s.ins.op in BIT_READS:
        return ok
    holders = [i for i, o in enumerate(s.all_operands) if _holds_denormal(o)]
    for ops in _flushed_subsets(s, holders):
        ok |= same_words(s.recompute(ops), s.imp)
    return ok


def _flushed_subsets(s: Site, holders: list[int], with_none: bool = False):
    """The instruction's operands with each non-empty subset of ``holders`` (the indices of
    the operands holding denormals) flushed; ``with_none``: the operands as read first."""
    for mask in range(0 if with_none else 1, 1 << len(holders)):
        chosen = {holders[j] for j in range(len(holders)) if mask >> j & 1}
        yield [_flush_operand(o) if i in chosen else o for i, o in enumerate(s.all_operands)]


def _saturation_moved_denormal(s: Site, holders: list[int]) -> np.ndarray:
    """A saturated instruction whose unsaturated value is a denormal, written unclamped.  The
    saturation is a select (GP4 2.X.4.3: "if (r < lo) r = lo; else if (r > hi) r = hi"; the
    translation's ``xl_sat`` is ``mix(.., lessThan(x, 0.0))``): an implementation that flushes
    denormals compares the flushed value -- +-0, inside every saturation range, so no bound is
    chosen -- and moves the value's own bits, unflushed, as a select of MIN/MAX does
    (``OpInfo.selected_operands``).  llvmpipe writes a saturated -3.8e-44 so (``DST_SAT`` of ``-|x|``
    with a denormal x.w: tgsi tess_control seed 19).  Shown by recomputation: the
    implementation's word is the instruction's unsaturated result (from the operands as read,
    or with a subset of the denormal ones flushed), and that result is a denormal."""
    ok = np.zeros(s.exe.shape, bool)
    if s.op.sat is None or s.op.rt != DataType.FLOAT:
        return ok
    for ops in _flushed_subsets(s, holders, with_none=True):
        raw = s.recompute(ops, saturate=False)
        ok |= same_words(raw, s.imp) & _denormal(raw)
    return ok


def _flush_doubles(words) -> np.ndarray:
    """(k, 4) words holding two doubles: the denormal doubles flushed to zero (sign kept)."""
    w = np.array(np.broadcast_to(np.asarray(words), np.shape(words)), copy=True).view(U32)
    for hi in (1, 3):
        exp = w[:, hi] & 0x7FF00000
        mant = (w[:, hi] & 0x000FFFFF) | w[:, hi - 1]
        den = (exp == 0) & (mant != 0)
        w[:, hi - 1] = np.where(den, U32(0), w[:, hi - 1])
        w[:, hi] = np.where(den, w[:, hi] & SIGN, w[:, hi])
    return w


def _ftz_doubles(s: Site) -> np.ndarray:
    """A double operation on a CPU that flushes double denormals too (llvmpipe sets the x86
    DAZ/FTZ modes, which act on doubles as on floats): recomputed with every double-denormal
    operand flushed, its result flushed.  A double result is judged as a whole (both words);
    the 32-bit results of the conversions and comparisons per component."""
    op = s.ins.op
    ops = [o if (op == "DLDEXP" and i == 1) else _flush_doubles(np.broadcast_to(
        np.asarray(o), (len(np.asarray(o)), 4))) for i, o in enumerate(s.all_operands)]
    r = s.recompute(ops)
    if op in ("DSEQ", "DSNE", "DSLT", "DSGE", "DFREXPE", "D2I", "D2U"):
        return _same_or_zeros(r, s.imp)
    if op == "D2F":
        return _same_or_zeros(r, s.imp) | _same_or_zeros(cmp.flush(r), s.imp)
    ok = np.zeros(s.exe.shape, bool)
    # a word the write mask leaves alone holds the register's old value, not the result's:
    # a double written through .y only is judged by its high word (TGSI fragment seed 121,
    # inputs seed 31: DCEIL.U TEMP4.y of a flushed denormal double)
    unwritten = ~np.asarray(s.written, bool) if getattr(s, "written", None) is not None \
        else np.zeros(s.exe.shape, bool)
    for cand in (r, _flush_doubles(r), _flush_doubles(s.exe)):
        ok |= _same_doubles(cand, s.imp, unwritten)
    if op in ("DMIN", "DMAX"):
        # a select compares the flushed doubles and may move the chosen operand's words
        # unflushed (xl_dmin1's a <= b ? a : b; 0 <= 0 picks a): where either operand's double
        # is a denormal, either operand's double, flushed or not -- that double only (TGSI
        # fragment seed 477, inputs seed 477: DMIN of two denormals gave the larger)
        words = [np.ascontiguousarray(np.broadcast_to(np.asarray(o), s.exe.shape)).view(U32)
                 for o in s.operands]
        free = np.zeros(s.exe.shape, bool)
        for w in words:
            den = _flush_doubles(w) != w
            free |= np.repeat(den[:, 0::2] | den[:, 1::2], 2, axis=1)
        for w in words:
            for cand in (w, _flush_doubles(w)):
                ok |= free & _same_doubles(cand, s.imp, unwritten)
    return ok


def _same_doubles(cand: np.ndarray, imp: np.ndarray, unwritten: np.ndarray) -> np.ndarray:
    """Per word: whether the double it belongs to is the same in ``cand`` and ``imp`` (both
    words equal or unwritten; a zero of either sign matches a zero)."""
    same = same_words(cand, imp) | (((cand & 0x7FFFFFFF) == 0) & ((imp & 0x7FFFFFFF) == 0))
    same |= unwritten
    return np.repeat(same[:, 0::2] & same[:, 1::2], 2, axis=1)




def _flushed_derivative(s: Site) -> np.ndarray | None:
    """DDX/DDY recomputed from the quad's values with denormals flushed (the executor's
    derivative reads the neighbours from the registers, not from the operand passed)."""
    if s.ins.op not in ("DDX", "DDY") or s.op.stage != Stage.FRAGMENT:
        return None
    from ..exec.alu import _partner_lanes
    x = s.op
    full = np.asarray(x.loaders[0](x.st, None), F32)
    if full.shape[0] == 1 or not _denormal(np.ascontiguousarray(full).view(U32)).any():
        return None
    flat = cmp.flush(np.ascontiguousarray(full).view(U32)).view(F32)
    lanes = x.st.all_lanes if x.idx is None else np.asarray(x.idx)
    first, second = _partner_lanes(lanes, full.shape[0], s.ins.op[-1].lower())
    with np.errstate(all="ignore"):
        r = (flat[second] - flat[first]).astype(F32)[s.rows]
    return np.ascontiguousarray(r).view(U32)


def _flushed_xpd(s: Site, a, b, flush) -> np.ndarray | None:
    """XPD (exec/alu.op_xpd's order: x = a.y*b.z - a.z*b.y ...) with its denormal products
    flushed; w as the executor's; None when no product is denormal."""
    pairs = ((1, 2), (2, 0), (0, 1))
    products = [((a[:, i] * b[:, j]).astype(F32), (a[:, j] * b[:, i]).astype(F32))
                for i, j in pairs]
    if not any(_denormal(p.view(U32)).any() for pq in products for p in pq):
        return None
    out = np.ascontiguousarray(s.exe, U32).copy().view(F32)
    for k, (p, q) in enumerate(products):
        out[:, k] = (flush(p) - flush(q)).astype(F32)
    return _saturated(s, out)


def _flushed_intermediates(s: Site) -> np.ndarray | None:
    """DPn/DPH/DP2A/X2D/MAD/LRP recomputed with each product flushed when denormal, and for the
    dot products and X2D each partial sum too (summed in the executor's order: dot products
    left to right, X2D as (a.x + b.x*c.x) + b.y*c.y, LRP as a*b + (1-a)*c) -- an implementation
    that flushes denormals flushes every step it rounds (generated FP1.0 fragment seed 913,
    inputs seed 900: in a DP3 of -1.18e-38-sized products, the first two summed to a denormal
    that llvmpipe flushed; NV4 fragment seed 1318, inputs seed 1300: X2D's two products of
    5.9e-39 summed to FLT_MIN by the executor, 0 flushed); None for other opcodes or when no
    product and no partial sum is denormal.  XPD likewise: each of the six products flushed
    when denormal (generated NV4 vertex seed 1507, inputs seed 1500: 2^-124 * 0.138, a
    denormal product that llvmpipe flushed, left z = a.x*b.y alone).
    """
    op = s.ins.op
    if op not in _DOTS and op not in ("MAD", "LRP", "X2D", "XPD"):
        return None
    if s.op.t != DataType.FLOAT:
        return None
    flush = lambda v: cmp.flush(np.ascontiguousarray(v, F32).view(U32)).view(F32)  # noqa: E731
    with np.errstate(all="ignore"):
        a = np.asarray(s.operands[0], F32)
        b = np.asarray(s.operands[1], F32)
        if op == "X2D":
            return _flushed_x2d(s, a, b, np.asarray(s.operands[2], F32), flush)
        if op == "XPD":
            return _flushed_xpd(s, a, b, flush)
        prod = (a * b).astype(F32)
        if op == "LRP":
            c = np.asarray(s.operands[2], F32)
            other = ((F32(1) - a) * c).astype(F32)
            if not (_denormal(prod.view(U32)).any() or _denormal(other.view(U32)).any()):
                return None
            return _saturated(s, (flush(prod) + flush(other)).astype(F32))
        denormal = _denormal(prod.view(U32)).any()
        p = flush(prod)
        if op == "MAD":
            if not denormal:
                return None
            r = (p + np.asarray(s.operands[2], F32)).astype(F32)
        else:
            n = _DOTS[op]
            r = p[:, 0].copy()
            for i in range(1, n):
                r = (r + p[:, i]).astype(F32)
                if i < n - 1 or op in ("DPH", "DP2A"):      # a partial sum
                    denormal = denormal or _denormal(r.view(U32)).any()
                    r = flush(r)
            if op == "DPH":
                r = (r + b[:, 3]).astype(F32)
            elif op == "DP2A":
                r = (r + np.asarray(s.operands[2], F32)[:, 0]).astype(F32)
            if not denormal:
                return None
            r = np.broadcast_to(r[:, None], (len(r), 4))
        return _saturated(s, r)


def _flushed_x2d(s: Site, a, b, c, flush) -> np.ndarray | None:
    """X2D (GP4: x = a.x + b.x*c.x + b.y*c.y, y = a.y + b.x*c.z + b.y*c.w; result x, y, x, y)
    with its denormal products and partial sums flushed (:func:`_flushed_intermediates`)."""
    out, denormal = [], False
    for first, (cx, cy) in ((0, (0, 1)), (1, (2, 3))):
        p1 = (b[:, 0] * c[:, cx]).astype(F32)
        p2 = (b[:, 1] * c[:, cy]).astype(F32)
        part = (a[:, first] + flush(p1)).astype(F32)
        denormal = denormal or any(_denormal(v.view(U32)).any() for v in (p1, p2, part))
        out.append((flush(part) + flush(p2)).astype(F32))
    if not denormal:
        return None
    return _saturated(s, np.stack([out[0], out[1], out[0], out[1]], axis=1))


def rule_ftz_multistep(s: Site) -> np.ndarray:
    """RFL and NRM with a denormal intermediate (RFL's ``2*dot(a,b)/dot(a,a)``, NRM's scale,
    or a product of their dot products): GP4 issue 18 lets the implementation flush it, and
    the flushed intermediate feeds every component -- any value of the result's x, y, z."""
    if s.ins.op not in ("RFL", "NRM"):
        return np.zeros(s.exe.shape, bool)
    from .trace import _denormal_intermediate
    lanes = np.zeros(len(s.exe), bool)
    for r in range(len(s.exe)):
        raw = [np.ascontiguousarray(np.broadcast_to(np.asarray(o)[r], (4,))).view(U32)
               for o in s.operands]
        # the operands as read already carry swizzle and negation: judge them plainly
        plain = type(s.ins)(s.ins.op, s.ins.dtype, s.ins.dst,
                            tuple(type(src)(src.reg) for src in s.ins.srcs))
        lanes[r] = _denormal_intermediate(plain, raw)
    return s.feeding(lanes)


def rule_nonfinite(s: Site) -> np.ndarray:
    """A NaN or infinity among the operands that reach the component, or a non-finite result:
    GLSL 4.50 §4.7.1 -- NaNs need not be generated and operations on NaN/Inf need not follow
    IEEE 754 (Mesa folds ``x * 0`` to 0 even for ``precise``); a lookup's value stays one
    its texture can give (:func:`lookup_hull.possible_lookup`).  Also POW/LIT of a base <= 0
    (``exp2(y * log2(x))``: log2 of x <= 0 is undefined in GLSL §8.2), TXP with q = 0 (a
    denormal q too, which flushing makes 0) and a cube lookup of the zero direction (the
    coordinates become 0/0) -- a direction of zeros and denormals too, which flushing
    (GLSL 4.50 §4.7.1) makes the zero direction.  Not for moves
    (:data:`MOVES`): a NaN or infinity moved stays one (any NaN payload); not for the unpacks
    (:data:`BIT_READS`), which read the operand's bits: a NaN bit pattern unpacked is no
    operation on a NaN (a mutant dropping an output UP4UB wrote passed as 'nonfinite')."""
    op = s.ins.op
    if op in MOVES or op in BIT_READS or op in CONSTANT_SETS:
        return np.zeros(s.exe.shape, bool)
    if s.ins.op in DOUBLE_OPS:
        return _nonfinite_doubles(s)
    if op in PACK_FIELD_BITS:
        return _nonfinite_packed(s)
    fops = s.float_operands()
    n = len(s.exe)
    lane = np.zeros(n, bool)
    comp = np.zeros((n, 4), bool)
    for w in fops:
        bad = _nonfinite(w)
        lane |= bad.any(axis=1)
        comp |= bad
    ok = s.feeding(lane, comp)
    if op not in COMPONENTWISE and op not in SET_ON and OPCODES[op].category == "alu":
        ok = ok & s.bounded(nonfinite_reach(s))     # DP3 does not read w
    if op in ZERO_POLES:    # an infinite operand of a reciprocal gives its zero: no freedom
        ok = ok & ~_infinite_operand(s)[:, None]
    if op in SET_ON:
        # a compare on NaN/Inf: either outcome, nothing else (SET_ON)
        return ok & _set_on_values(s)
    if OPCODES[op].selected_operands and s.op.rt == DataType.FLOAT and s.backend != "native":
        # either operand, nothing else (the driver's own program, --backend native, computes
        # the operands within spreads the replay does not adopt: the freedom stays whole there)
        return ok & s.bounded(selected_values(s))
    # a non-finite *result* (from finite operands: an overflow, LG2(0)); an integer result's
    # words are no float (an integer compare's TRUE, 0xFFFFFFFF, is no NaN)
    float_result = s.op.rt == DataType.FLOAT
    if float_result:
        made = _nonfinite(s.exe) & ~_at_pole(s)[:, None] & ~_divided_by_zero(s)
        if OPCODES[op].overflows:     # IEEE's infinity, or near it within the op's precision
            imp, exe = np.asarray(s.imp, U32), np.asarray(s.exe, U32)
            nan = (imp & 0x7FFFFFFF) > 0x7F800000
            made &= s.bounded(nan | (((imp & 0x7F800000) >= 0x7F000000) & (
                ((imp ^ exe) & SIGN == 0) | ((exe & 0x7FFFFFFF) > 0x7F800000))))
        ok = ok | made
    if float_result and op not in ZERO_POLES and \
            any(_holds_denormal(o) for o in s.all_operands):
        # a denormal operand may be flushed first (GP4 issue 18), and on zero the result is
        # non-finite (LG2 of a denormal: -INF), which GLSL need not produce.  Not for the
        # reciprocals: their flushed operand's infinity is fixed (ZERO_POLES), and rule_ftz
        # accepts exactly that recomputation
        ok = ok | _nonfinite(s.recompute([_flush_operand(o) for o in s.all_operands]))
    with np.errstate(all="ignore"):
        # a denormal base may be flushed first (GP4 issue 18), then it is a base <= 0
        if op == "POW":
            base = np.asarray(s.operands[0], F32).reshape(n, -1)[:, 0]
            ok = ok | ((base <= 0) | np.isnan(base) | _denormal(base.view(U32)))[:, None]
        elif op in ("LIT", "LITNC"):
            # only z is the power; x, y and w do not involve it
            base = np.ascontiguousarray(np.asarray(s.operands[0], F32)[:, 1])
            bad = (base <= 0) | np.isnan(base) | _denormal(base.view(U32))
            ok = ok.copy()
            ok[:, 2] |= bad
        elif op == "TXP":   # (flushed too: a denormal q; generated TGSI fragment seed 2801)
            c = np.asarray(s.operands[0], F32)
            for words in (c, cmp.flush(c.view(U32)).view(F32)):
                ok = ok | ~np.isfinite(words[:, :3] / words[:, 3:4]).all(axis=1)[:, None]
        if op in CUBE_DIRECTION_OPS and s.ins.tex is not None and \
                s.ins.tex.target.replace("SHADOW", "") in ("CUBE", "ARRAYCUBE"):
            c = np.ascontiguousarray(np.asarray(s.operands[0], F32)[:, :3])
            ok = ok | ((c == 0) | _denormal(c.view(U32))).all(axis=1)[:, None]
    if op in SAMPLING_OPS:
        # which texels: the implementation's; what they hold: the texture's (lookup_hull)
        ok = ok & s.bounded(possible_lookup(s))
    return ok


def _double_nonfinite(words) -> np.ndarray:
    """(k, 4) words holding two doubles -> (k, 2): INF or NaN."""
    w = np.asarray(words).view(U32)
    return (w[:, 1::2] & 0x7FF00000) == 0x7FF00000


def _nonfinite_packed(s: Site) -> np.ndarray:
    """A pack of a non-finite component: only that component's field of the word is free, the
    other fields stay exact (before, one NaN let the whole word be anything).
    PK2H: a NaN's half may be any 16-bit NaN -- IEEE 754-2008 6.2.3 only says a converted NaN
    "should" keep its payload, 6.3 does not interpret its sign, and GLSL 4.50 §4.7.1 lets
    operations on NaN depart from IEEE; measured: numpy (the executor) keeps the payload
    (0xFFC00000 -> 0xFE00), llvmpipe's compiled conversion writes the sign and 0x7FFF
    (generated TGSI tess_control seed 706).  An infinity converts exactly (IEEE, no choice).
    PK2US/PK4B/PK4UB clamp before they round: clamp of a NaN or an infinity is an operation on
    it (GLSL 4.50 §4.7.1), so that field may hold any value."""
    op = s.ins.op
    bits = PACK_FIELD_BITS[op]
    mask = U32((1 << bits) - 1)
    exe = np.asarray(s.exe, U32)
    imp = np.asarray(s.imp, U32)
    src = np.ascontiguousarray(np.broadcast_to(np.asarray(s.operands[0]).reshape(
        len(exe), -1), (len(exe), 4))).view(U32)
    ok = np.ones(exe.shape, bool)
    for i in range(32 // bits):
        shift = U32(i * bits)
        e, m = (exe >> shift) & mask, (imp >> shift) & mask
        if op == "PK2H":
            free = _half_nan(e) & _half_nan(m)
        else:
            free = np.broadcast_to(_nonfinite(src[:, i])[:, None], exe.shape)
        ok &= (e == m) | free
    return ok


def _nonfinite_doubles(s: Site) -> np.ndarray:
    """rule_nonfinite for the double opcodes: a NaN or infinity among the doubles that reach a
    result component (double p of each operand reaches double p of the result: words 2p, 2p+1,
    or component p of D2F/D2I/D2U, component 2p of the comparisons), or a non-finite double
    result -- any words there (a NaN's payload is the implementation's)."""
    n = len(s.exe)
    pair = np.zeros((n, 2), bool)
    for i, o in enumerate(s.operands):
        if s.ins.op == "DLDEXP" and i == 1:
            continue                     # the exponents are integers
        pair |= _double_nonfinite(np.broadcast_to(np.asarray(o), (n, 4)))
    op = s.ins.op
    if op in ("D2F", "D2I", "D2U"):
        return np.stack([pair[:, 0], pair[:, 1], np.zeros(n, bool), np.zeros(n, bool)], axis=1)
    if op in ("DSEQ", "DSNE", "DSLT", "DSGE"):
        return np.stack([pair[:, 0], np.zeros(n, bool), pair[:, 1], np.zeros(n, bool)], axis=1)
    if op != "DFREXPE":
        pair = pair | _double_nonfinite(s.exe)
    return np.repeat(pair, 2, axis=1)


def _set_on_values(s: Site) -> np.ndarray:
    """(n, 4): the implementation's word is the compare's TRUE or FALSE value (after
    saturation; a VP2 ``...N`` compare's NaN too)."""
    from ..exec.alu import _true_false
    tv, fv = _true_false(s.op, s.op.rt)
    words = [np.asarray([v]).view(U32)[0] for v in (tv, fv)]
    if s.op.sat is not None:
        from ..exec.operands import saturate
        words = [np.asarray(saturate(np.asarray([v]), *s.op.sat)).view(U32)[0]
                 if s.op.rt == DataType.FLOAT else w for v, w in zip((tv, fv), words)]
    ok = np.zeros(s.imp.shape, bool)
    for w in words:
        ok |= s.imp == w
    if s.ins.op in ("SEQN", "SGEN", "SGTN", "SLEN", "SLTN", "SNEN"):
        nan = ((s.imp & 0x7F800000) == 0x7F800000) & ((s.imp & 0x007FFFFF) != 0)
        ok |= nan
    return ok


def _infinite_operand(s: Site) -> np.ndarray:
    """(n,): lanes where a ZERO_POLES reciprocal reads +-Inf (its result is a zero)."""
    fops = s.float_operands()
    if not fops:
        return np.zeros(len(s.exe), bool)
    return (np.asarray(fops[0], U32)[:, 0] & 0x7FFFFFFF) == 0x7F800000


def _divided_by_zero(s: Site) -> np.ndarray:
    """(n, 4): float DIV of a finite non-zero dividend by an exact +-0: the quotient is the
    IEEE infinity (GP4 DIV "a / b", IEEE; GLSL 4.50 §4.7.1 infinities "generated as dictated
    by IEEE"), so its non-finite result is no freedom.  0/0 stays free: NaNs need not be
    generated (llvmpipe gives 0.0 for the 0/0 of random nv4 fragment seed 691)."""
    n = len(s.exe)
    if s.ins.op != "DIV" or s.op.t != DataType.FLOAT:
        return np.zeros((n, 4), bool)
    fops = s.float_operands()
    if len(fops) < 2:
        return np.zeros((n, 4), bool)
    a = np.asarray(fops[0], U32)
    b = np.asarray(fops[1], U32)[:, :1]
    finite_nonzero = ((a & 0x7FFFFFFF) != 0) & ~_nonfinite(a) & ~_denormal(a)
    return finite_nonzero & ((b & 0x7FFFFFFF) == 0)


def _at_pole(s: Site) -> np.ndarray:
    """(n,): lanes where a ZERO_POLES reciprocal reads an exact +-0 (its result is fixed)."""
    n = len(s.exe)
    if s.ins.op not in ZERO_POLES:
        return np.zeros(n, bool)
    fops = s.float_operands()
    if not fops:
        return np.zeros(n, bool)
    return (np.asarray(fops[0], U32)[:, 0] & 0x7FFFFFFF) == 0


def rule_tolerance(s: Site) -> np.ndarray:
    """An approximate opcode (``compare.INEXACT``: EX2, LG2, POW, SIN/COS/SCS, RSQ, LIT,
    EXP/LOG, NRM/RFL, filtered TEX*) whose value is within that opcode's documented bound of
    the executor's result for the same operands: NV_gpu_program4 2.X.8.Z's ApproxExp2,
    ApproxLog2, ApproxSine ..., GLSL 4.50 §4.7.1's precision of exp2/log2/pow/inversesqrt,
    NV_vertex_program2 EXP/LOG ("accurate to at least 11 bits")."""
    tol = cmp.INEXACT.get(s.ins.op)
    if tol is None:
        return np.zeros(s.exe.shape, bool)
    e, g = s.exe, s.imp
    ok = cmp.float_equal(e, g, *tol) & ~_nonfinite(e) & ~_nonfinite(g)
    if s.op.rt != DataType.FLOAT:
        ok[:] = False
    if s.ins.tex is not None and "SHADOW" in s.ins.tex.target:
        ok[:, 3] = False                # a depth comparison's w is 1.0 exactly, not filtered
    if s.ins.op in POWERS and s.op.rt == DataType.FLOAT:
        ok = ok | _inherited_power(s)
    return ok


#: the approximate powers: POW and LIT's z (FP1's LITNC too), exp2(y * log2(x))
POWERS = frozenset({"POW", "LIT", "LITNC"})


def _inherited_power(s: Site) -> np.ndarray:
    """A power is ApproxExp2(y * ApproxLog2(x)) (NV_gpu_program4 2.X.8.19 POW; GLSL 4.50
    §4.7.1: pow's precision is "inherited from exp2(y * log2(x))"), so the logarithm's error
    reaches the result multiplied by |y|: where the exponent is large, INEXACT's fixed bound
    is tighter than the definition (generated NV4 vertex seed 1113, inputs seed 1100:
    ``POW R4.xy, R5.z, -R2.w`` of 0.99999994 and -1099838.9 gave 0.89262 on llvmpipe, the
    executor 0.93655 -- exponents -0.164 and -0.095, a logarithm 6.3e-8 off).  Accepted: a
    positive finite base and a finite result whose log2 is within |y| times LG2's bound (its
    ulps of log2(x), at least its absolute bound) of y * log2(x), plus the rounding of that
    product and EX2's own bound.  A base <= 0 and non-finite values are other rules'."""
    n = len(s.exe)
    ok = np.zeros((n, 4), bool)
    a = np.asarray(s.operands[0], F32).reshape(n, -1).astype(np.float64)
    if s.ins.op == "POW":
        x = a[:, 0]
        y = np.asarray(s.operands[1], F32).reshape(n, -1)[:, 0].astype(np.float64)
        comps = [0, 1, 2, 3]
    else:
        x, y = a[:, 1], a[:, 3]
        if s.ins.op == "LIT":
            from ..exec.alu import _LIT_MAX      # the executor's clamp of LIT's exponent
            y = np.clip(y, -float(_LIT_MAX), float(_LIT_MAX))
        x = np.where(a[:, 0] > 0, x, np.nan)        # z is 0 where LIT's x <= 0: exact
        comps = [2]
    lg_ulps, lg_abs = cmp.INEXACT["LG2"]
    ex_ulps, _ = cmp.INEXACT["EX2"]
    with np.errstate(all="ignore"):
        lg = np.log2(x)
        lg_err = np.maximum(lg_abs, np.abs(lg) * lg_ulps * 2.0 ** -23)
        exponent = y * lg
        err = np.abs(y) * lg_err + np.abs(exponent) * 2.0 ** -23 + ex_ulps * 2.0 ** -23 * 1.5
        valid = (x > 0) & np.isfinite(x) & np.isfinite(exponent)
        for c in comps:
            g = s.imp[:, c].view(np.float32).astype(np.float64)
            got = np.log2(g)
            # a result below the smallest denormal may be zero
            tiny = (g == 0) & (exponent - err < -149)
            near = np.isfinite(got) & (np.abs(got - exponent) <= err)
            ok[:, c] = valid & (near | tiny)
    return ok


def rule_range(s: Site) -> np.ndarray:
    """SIN/COS/SCS of an operand beyond 2^23 in magnitude: the specs' ApproxSine/ApproxCosine
    carry no precision requirement and GLSL 4.50 §8.1 none for sin/cos -- any value."""
    if s.ins.op not in ("SIN", "COS", "SCS"):
        return np.zeros(s.exe.shape, bool)
    with np.errstate(all="ignore"):
        x = np.asarray(s.operands[0], F32).reshape(len(s.exe), -1)[:, 0]
        big = np.isfinite(x) & (np.abs(x.astype(np.float64)) > RANGE_LIMIT)
    return np.broadcast_to(big[:, None], s.exe.shape)


def rule_undefined(s: Site) -> np.ndarray:
    """Results NV_gpu_program4 leaves undefined -- integer MOD of a negative dividend or by a
    divisor <= 0, integer DIV by zero, shifts by a negative count or by 32 or more (2.X.8.Z) --
    the components XPD/NRM/RFL w and SCS z/w, and the lanes the executor recorded as undefined
    (TGSI READ_INVOC: Site.undefined_rows): any value.  TGSI defines most of those integer
    cases (tgsi.rst: UDIV and UMOD by zero give 0xffffffff, shift counts are masked to 5
    bits; MOD is C's remainder): there only IDIV ("TBD") and MOD by zero are free (a mutant
    of a UMOD by zero passed as 'undefined': campaign seed 13, generated TGSI compute 27)."""
    n = len(s.exe)
    ok = np.zeros((n, 4), bool)
    for c in UNDEFINED_COMPONENTS.get(s.ins.op, ()):
        ok[:, c] = True
    # lanes whose result the executor found undefined (TGSI READ_INVOC of an inactive
    # invocation or with an index that differs in the subgroup: exec/subgroup.py)
    rows = getattr(s, "undefined_rows", None)
    if rows is not None:
        ok |= np.asarray(rows, bool)[:, None]
    op = s.ins.op
    if op in ("MOD", "DIV", "SHL", "SHR") and s.op.t in (DataType.INT, DataType.UINT):
        a = np.asarray(s.operands[0]).astype(np.int64).reshape(n, -1)
        b = np.asarray(s.operands[1]).astype(np.int64).reshape(n, -1)[:, 0]
        if s.op.st.program.dialect == "TGSI":      # (the spec the program was written to)
            free = op in ("MOD", "DIV") and s.op.t == DataType.INT
            bad = np.broadcast_to(((b == 0) & free)[:, None], (n, 4))
        elif op == "MOD":
            bad = (b[:, None] <= 0) | (a < 0)
        elif op == "DIV":
            bad = np.broadcast_to((b == 0)[:, None], (n, 4))
        else:
            bad = np.broadcast_to(((b < 0) | (b >= 32))[:, None], (n, 4))
        ok |= np.broadcast_to(bad, (n, 4))
    return ok


# ---- the native backend's rules (permits_native.py) ------------------------------------------
# (imported here, below Site and the helpers they use: permits_native imports those)
from .permits_native import (  # noqa: E402
    rule_fixed_function_nonfinite, rule_fog_factor, rule_gl_precision,
    rule_gl_precision_compare, rule_native_signedzero, rule_propagated, rule_reassociated,
    rule_minimum_precision, rule_relative_out_of_range, rule_rough_power,
    rule_saturated_nan, rule_subtexel_weights, rule_uninitialized)


#: the rules in the order they are tried (the first that permits a component names it), and
#: what float values a rule speaks of: "result" (an integer result's words are no float: the
#: integer 8 is no denormal, INT_MIN no negative zero), "any" (float operands or a float result:
#: a float compare writing integer masks flushes its operands too), or None.  Some rules permit
#: any value of the instruction's result (nonfinite, range, undefined, derivatives in
#: non-uniform flow, the folding defect): that freedom is the instruction's own.  The replay
#: adopts the implementation's value there and checks every later instruction exactly -- no
#: spec passage leaves the *downstream* computation open: GLSL 4.50 §4.7.1 makes the result of
#: an operation on NaN/Inf unspecified, not the operations that later read that result, and
#: §8.14.1 makes the derivative undefined, not what is computed from it.  The native backend's
#: rules (permits_native.py) return nothing for a translation.
RULES = (
    ("signedzero", rule_signedzero, "result"),
    ("signedzero", rule_native_signedzero, "result"),
    ("ftz", rule_ftz, "any"),
    ("ftz", rule_ftz_multistep, "result"),
    ("ftz", rule_cube_flushed_reciprocal, None),
    ("nonfinite", rule_nonfinite, "any"),
    ("nonfinite", rule_fixed_function_nonfinite, "any"),
    ("tolerance", rule_tolerance, "result"),
    ("reassociated", rule_reassociated, "result"),
    ("tolerance", rule_gl_precision, "result"),
    ("tolerance", rule_gl_precision_compare, "any"),
    ("propagated", rule_propagated, "result"),
    ("tolerance", rule_fog_factor, "result"),
    ("tolerance", rule_rough_power, "result"),
    ("tolerance", rule_minimum_precision, "result"),
    ("tolerance", rule_subtexel_weights, None),
    ("range", rule_range, "any"),
    ("undefined", rule_undefined, None),
    ("undefined", rule_uninitialized, None),
    ("undefined", rule_saturated_nan, None),
    ("undefined", rule_relative_out_of_range, None),
    ("boundary", rule_boundary, None),
    ("boundary", rule_cube_tie_derivatives, None),
    ("boundary", rule_layer_tie, None),
    ("lod", rule_fine_derivatives, None),
    ("lod", rule_lod, None),
    ("lod", rule_undefined_derivatives, None),
    # (after the lod rules: a lookup they show at some level of detail keeps that verdict)
    ("range", rule_texcoord_range, None),
    ("implementation", rule_wrapped_lod, None),
    ("implementation", rule_wrapped_layer, None),
    ("implementation", rule_implementation, None),
    ("implementation", rule_implementation_any, None),
)


def permitted(site: Site, differ: np.ndarray) -> np.ndarray:
    """For the components in ``differ``: an (n, 4) array of verdict names ('' where no rule
    permits the difference)."""
    out = np.full(differ.shape, "", dtype=object)
    todo = differ.copy()
    has = {"result": site.op.rt == DataType.FLOAT, None: True}
    # the double opcodes compute in floating point on words (.U): their denormals flush too
    has["any"] = has["result"] or bool(site.float_operands()) or site.ins.op in DOUBLE_OPS
    for name, rule, needs in RULES:
        if not todo.any():
            break
        if not has[needs]:
            continue
        ok = np.asarray(rule(site), bool) & todo
        out[ok] = name
        todo &= ~ok
    return out
