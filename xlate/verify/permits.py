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
leave the result undefined.  The spec passage behind each rule is in its docstring and in
:data:`xlate.verify.compare.EXPLANATIONS`.
"""
from __future__ import annotations

import numpy as np

from ..ir.model import DataType, Stage
from . import compare as cmp
from .compare import same_words

F32, U32 = np.float32, np.uint32
SIGN = U32(0x80000000)

#: opcodes whose result component c reads only component c of each operand (a NaN in another
#: component cannot reach it)
COMPONENTWISE = frozenset(
    "ABS ADD AND CEIL CMP FLR FRC I2F LRP MAD MAX MIN MOV NOT OR ROUND SEQ SFL SGE SGT SLE SLT "
    "SNE SSG STR SUB TRUNC XOR MINN MAXN SEQN SGEN SGTN SLEN SLTN SNEN SGET SLTT SSGN".split())

#: components the specifications leave undefined (the executor and the GLSL write 0.0):
#: XPD/NRM/RFL w (NV_gpu_program4 2.X.8.Z: "the w component of the result is undefined"),
#: SCS z/w (NV_fragment_program 3.11.5.22)
UNDEFINED_COMPONENTS = {"XPD": (3,), "NRM": (3,), "RFL": (3,), "SCS": (2, 3)}

#: the magnitude beyond which SIN/COS/SCS carry no precision at all (llvmpipe's range reduction
#: fails past 2^23; the specs' ApproxSine/ApproxCosine require nothing)
RANGE_LIMIT = 2.0 ** 23

_DOTS = {"DP2": 2, "DP2A": 2, "DP3": 3, "DP4": 4, "DPH": 3}


def _nonfinite(w) -> np.ndarray:
    return (np.asarray(w, U32) & 0x7F800000) == 0x7F800000


def _denormal(w) -> np.ndarray:
    w = np.asarray(w, U32)
    return ((w & 0x7F800000) == 0) & ((w & 0x007FFFFF) != 0)


class Site:
    """One instruction's result on the lanes where it differs: what every rule reads.

    ``op``: the executor's compiled instruction (:class:`xlate.exec.machine.Op`, whose ``fn``
    recomputes the result); ``all_operands``: the operands as the instruction read them
    (swizzled, negated; the executor's typed arrays) for its whole lane selection, ``rows``
    the positions of the lanes judged here in it (``operands``: those rows);
    ``exe``/``imp``: (n, 4) result words of the judged lanes."""

    def __init__(self, op, all_operands, rows, exe, imp, backend: str | None):
        self.op = op
        self.ins = op.inst
        self.all_operands = all_operands
        n = len(rows)
        self.operands = [np.asarray(o)[rows] if np.shape(o)[0] > 1 else
                         np.broadcast_to(o, (n,) + np.shape(o)[1:]) for o in all_operands]
        self.exe = exe
        self.imp = imp
        self.rows = rows
        self.backend = backend

    def float_operands(self) -> list[np.ndarray]:
        """The float operands as (n, 4) uint32 words (scalars widened)."""
        out = []
        for i, o in enumerate(self.operands):
            if self.op.info.operand_type(i, self.op.t) != DataType.FLOAT:
                continue
            w = np.asarray(o)
            if w.dtype != np.float32:
                continue
            w = w.view(U32)
            if w.ndim == 1:
                w = w[:, None]
            out.append(np.broadcast_to(w, (w.shape[0], 4)) if w.shape[1] == 1 else w)
        return out

    def feeding(self, per_lane: np.ndarray, per_comp: np.ndarray | None = None) -> np.ndarray:
        """(n, 4) mask: a property of the operands reaches result component c -- per component
        for componentwise opcodes, else any component of any operand."""
        if per_comp is not None and self.ins.op in COMPONENTWISE:
            return per_comp
        return np.broadcast_to(per_lane[:, None], (len(per_lane), 4))

    def recompute(self, all_operands) -> np.ndarray:
        """The instruction's result words on the judged lanes for other operands (given for
        the whole lane selection: implicit derivatives read the quad neighbours), saturation
        and precision applied as the executor applies them."""
        from ..exec.operands import _PRECISION, saturate
        x = self.op
        with np.errstate(all="ignore"):
            res = x.fn(x, *all_operands)
            if res.ndim == 1:
                res = res[:, None]
            if res.shape[0] > 1:
                res = res[self.rows]
            if x.sat is not None:
                res = saturate(res, *x.sat)
            res = np.broadcast_to(res, (res.shape[0], 4))
            words = np.ascontiguousarray(res).view(U32)
            conv = _PRECISION.get(self.ins.precision)
            if conv is not None:        # FP16/X: a conversion of the float values
                words = np.ascontiguousarray(conv(words.view(F32)), F32).view(U32)
            return words


# ---- the rules --------------------------------------------------------------------------------
# Each takes the Site and returns an (n, 4) bool mask of the components it permits.

#: opcodes that only move bits (negation and |x| act on the sign bit alone): an
#: implementation has no freedom there -- a -0.0 or a NaN moved stays one
MOVES = frozenset({"MOV", "SWZ"})


def rule_signedzero(s: Site) -> np.ndarray:
    """Both results are zeros of different signs.  GLSL 4.50 §4.7.1 leaves operations on
    special values to the implementation, and Mesa folds ``0 + x`` to ``x`` and ``x * 0`` to
    ``+0``; NV_vertex_program 2.14.1.11 itself defines ``0 * x = +0``.  For moves
    (:data:`MOVES`) only where the component is a constant the compiler folds (an immediate,
    a constant register, SWZ's 0/1 selectors: Mesa turns ``-0.0`` into ``0.0``); a moved
    register value keeps its sign."""
    zeros = ((s.exe & 0x7FFFFFFF) == 0) & ((s.imp & 0x7FFFFFFF) == 0)
    if s.ins.op not in MOVES:
        return zeros
    from .trace import _constant_source
    src = s.ins.srcs[0]
    if _constant_source(s.op.st.program, src):
        return zeros
    folded = np.array([c >= 4 for c in src.swizzle][:4] + [False] * (4 - len(src.swizzle)))
    return zeros & folded


def rule_ftz(s: Site) -> np.ndarray:
    """Denormals flushed (NV_gpu_program4 issue 18: "Denorms ... may be flushed to zero,
    preserving the sign bit"; GLSL 4.50 §4.7.1).  Shown by recomputation: the implementation's
    value is the executor's result flushed, or the instruction recomputed with every denormal
    operand flushed (and its result flushed), or -- for dot products and MAD -- with the
    denormal intermediate products flushed."""
    flushed = cmp.flush(s.exe)
    ok = _same_or_zeros(flushed, s.imp) & _denormal(s.exe)
    # every subset of the operands holding denormals, flushed: an implementation flushes where
    # it computes (a compare) and may move the other operands' bits unchanged (a select)
    holders = [i for i, o in enumerate(s.all_operands) if _holds_denormal(o)]
    for mask in range(1, 1 << len(holders)):
        chosen = {holders[j] for j in range(len(holders)) if mask >> j & 1}
        ops = [_flush_operand(o) if i in chosen else o for i, o in enumerate(s.all_operands)]
        r = s.recompute(ops)
        ok |= _same_or_zeros(r, s.imp) | _same_or_zeros(cmp.flush(r), s.imp)
    inter = _flushed_intermediates(s)
    if inter is not None:
        ok |= _same_or_zeros(inter, s.imp) | _same_or_zeros(cmp.flush(inter), s.imp)
    deriv = _flushed_derivative(s)
    if deriv is not None:
        ok |= _same_or_zeros(deriv, s.imp) | _same_or_zeros(cmp.flush(deriv), s.imp)
    if holders and s.ins.op in _SELECTS:
        # a select compares flushed values and may move the chosen operand's bits unflushed:
        # with a denormal among the operands, either candidate, flushed or not
        for j in _SELECTS[s.ins.op]:
            w = np.ascontiguousarray(np.broadcast_to(np.asarray(s.operands[j]), s.exe.shape))
            if w.dtype == np.float32:
                w = w.view(U32)
                ok |= _same_or_zeros(w, s.imp) | _same_or_zeros(cmp.flush(w), s.imp)
    return ok


#: selecting opcodes -> the operands whose value they return
_SELECTS = {"MIN": (0, 1), "MAX": (0, 1), "MINN": (0, 1), "MAXN": (0, 1), "CMP": (1, 2)}


def _same_or_zeros(a, b) -> np.ndarray:
    """Equal words, or two zeros of either sign (a flushed denormal keeps its sign in GP4's
    words, not always in an implementation's)."""
    return same_words(a, b) | (((a & 0x7FFFFFFF) == 0) & ((b & 0x7FFFFFFF) == 0))


def _holds_denormal(o) -> bool:
    a = np.asarray(o)
    return a.dtype == np.float32 and bool(_denormal(np.ascontiguousarray(a).view(U32)).any())


def _flush_operand(o):
    a = np.asarray(o)
    if a.dtype != np.float32:
        return o
    return cmp.flush(a.view(U32)).view(F32).reshape(a.shape)


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


def _flushed_intermediates(s: Site) -> np.ndarray | None:
    """DPn/DPH/DP2A/MAD/LRP recomputed with each product flushed when denormal (summed in the
    executor's order: dot products left to right, LRP as a*b + (1-a)*c); None for other
    opcodes or when no product is denormal."""
    op = s.ins.op
    if op not in _DOTS and op not in ("MAD", "LRP"):
        return None
    if s.op.t != DataType.FLOAT:
        return None
    flush = lambda v: cmp.flush(np.ascontiguousarray(v, F32).view(U32)).view(F32)  # noqa: E731
    with np.errstate(all="ignore"):
        a = np.asarray(s.operands[0], F32)
        b = np.asarray(s.operands[1], F32)
        prod = (a * b).astype(F32)
        if op == "LRP":
            c = np.asarray(s.operands[2], F32)
            other = ((F32(1) - a) * c).astype(F32)
            if not (_denormal(prod.view(U32)).any() or _denormal(other.view(U32)).any()):
                return None
            return _saturated(s, (flush(prod) + flush(other)).astype(F32))
        if not _denormal(prod.view(U32)).any():
            return None
        p = flush(prod)
        if op == "MAD":
            r = (p + np.asarray(s.operands[2], F32)).astype(F32)
        else:
            n = _DOTS[op]
            r = p[:, 0].copy()
            for i in range(1, n):
                r = (r + p[:, i]).astype(F32)
            if op == "DPH":
                r = (r + b[:, 3]).astype(F32)
            elif op == "DP2A":
                r = (r + np.asarray(s.operands[2], F32)[:, 0]).astype(F32)
            r = np.broadcast_to(r[:, None], (len(r), 4))
        return _saturated(s, r)


def _saturated(s: Site, r: np.ndarray) -> np.ndarray:
    """Words of a recomputed float result after the instruction's saturation."""
    if s.op.sat is not None:
        from ..exec.operands import saturate
        r = saturate(np.asarray(r, F32), *s.op.sat)
    return np.ascontiguousarray(np.broadcast_to(r, (len(r), 4)), F32).view(U32)


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
    IEEE 754 (Mesa folds ``x * 0`` to 0 even for ``precise``).  Also POW/LIT of a base <= 0
    (``exp2(y * log2(x))``: log2 of x <= 0 is undefined in GLSL §8.2), TXP with q = 0 and a
    cube lookup of the zero direction (the coordinates become 0/0).  Not for moves
    (:data:`MOVES`): a NaN or infinity moved stays one (any NaN payload)."""
    if s.ins.op in MOVES:
        return np.zeros(s.exe.shape, bool)
    fops = s.float_operands()
    n = len(s.exe)
    lane = np.zeros(n, bool)
    comp = np.zeros((n, 4), bool)
    for w in fops:
        bad = _nonfinite(w)
        lane |= bad.any(axis=1)
        comp |= bad
    ok = s.feeding(lane, comp) | _nonfinite(s.exe)
    if any(_holds_denormal(o) for o in s.all_operands):
        # a denormal operand may be flushed first (GP4 issue 18), and on zero the result is
        # non-finite (LG2 of a denormal: -INF), which GLSL need not produce
        ok = ok | _nonfinite(s.recompute([_flush_operand(o) for o in s.all_operands]))
    with np.errstate(all="ignore"):
        op = s.ins.op
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
        elif op == "TXP":
            c = np.asarray(s.operands[0], F32)
            q = c[:, 3:4]
            ok = ok | ~np.isfinite(c[:, :3] / q).all(axis=1)[:, None]
        if op in ("TEX", "TXB", "TXL", "TXP", "TXD") and s.ins.tex is not None and \
                s.ins.tex.target.replace("SHADOW", "") == "CUBE":
            c = np.asarray(s.operands[0], F32)
            ok = ok | (c[:, :3] == 0).all(axis=1)[:, None]
    return ok


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
    and the components XPD/NRM/RFL w and SCS z/w: any value."""
    n = len(s.exe)
    ok = np.zeros((n, 4), bool)
    for c in UNDEFINED_COMPONENTS.get(s.ins.op, ()):
        ok[:, c] = True
    op = s.ins.op
    if op in ("MOD", "DIV", "SHL", "SHR") and s.op.t in (DataType.INT, DataType.UINT):
        a = np.asarray(s.operands[0]).astype(np.int64).reshape(n, -1)
        b = np.asarray(s.operands[1]).astype(np.int64).reshape(n, -1)[:, 0]
        if op == "MOD":
            bad = (b[:, None] <= 0) | (a < 0)
        elif op == "DIV":
            bad = np.broadcast_to((b == 0)[:, None], (n, 4))
        else:
            bad = np.broadcast_to(((b < 0) | (b >= 32))[:, None], (n, 4))
        ok |= np.broadcast_to(bad, (n, 4))
    return ok


def rule_boundary(s: Site) -> np.ndarray:
    """A NEAREST-filtered lookup whose coordinate lies on a texel edge: GL 4.5 §8.14.2 selects
    the texel by ``floor(u)`` of ``u = s * size``, and the implementation's rounding of that
    product picks either neighbour.  Shown by recomputation with the coordinates moved by one
    ulp down or up (each spatial component independently)."""
    if s.ins.op not in ("TEX", "TXB", "TXL", "TXP", "TXD") or s.ins.tex is None:
        return np.zeros(s.exe.shape, bool)
    ok = np.zeros(s.exe.shape, bool)
    c = np.asarray(s.all_operands[0], F32)
    dims = 3 if s.ins.tex.target.replace("SHADOW", "") in ("3D", "CUBE") else 2
    rest = list(s.all_operands[1:])
    for nudge in _nudges(dims):
        moved = c.copy()
        for i, d in enumerate(nudge):
            if d:
                moved[:, i] = np.nextafter(c[:, i], F32(np.inf) if d > 0 else F32(-np.inf))
        ok |= same_words(s.recompute([moved] + rest), s.imp)
    return ok


def _nudges(dims: int):
    import itertools
    for combo in itertools.product((-1, 0, 1), repeat=dims):
        if any(combo):
            yield combo


#: levels of detail tried around the executor's: GL 4.5 §8.14.1 lets rho be approximated
#: between max(|du|, |dv|) and |du| + |dv| (log2: within 1 level), and llvmpipe takes one
#: LOD per 2x2 quad
LOD_SPAN, LOD_STEP = 1.5, 1.0 / 64


def rule_lod(s: Site) -> np.ndarray:
    """An implicit-derivative lookup (TEX/TXB/TXP in a fragment program) on a texture where the
    level of detail matters: GL 4.5 §8.14.1 lets implementations approximate rho (and the LOD
    with it).  Shown by recomputation: the implementation's value is the same lookup at an
    explicit level of detail within LOD_SPAN of the executor's (a grid of LOD_STEP), within
    the filtering tolerance of compare.INEXACT["TEX"].  Derivatives GLSL leaves undefined
    (DDX/DDY or implicit lookups in non-uniform control flow or after a KIL, GLSL 4.50 §6.4)
    permit any value."""
    n = len(s.exe)
    if s.op.stage != Stage.FRAGMENT or s.ins.op not in ("TEX", "TXB", "TXP") or \
            s.ins.tex is None:
        return np.zeros((n, 4), bool)
    from ..exec import texture as tx
    P = s.op.st.textures.get(s.ins.tex.unit)
    # TXL reads the LOD from w: targets whose w holds the depth reference cannot be re-run so
    if P is None or tx.BASE_TARGET[s.ins.tex.target] == "RECT" or \
            s.ins.tex.target in ("SHADOWCUBE", "SHADOWARRAY2D", "SHADOWARRAY1D"):
        return np.zeros((n, 4), bool)
    c = np.asarray(s.operands[0], F32).copy()
    if s.ins.op == "TXP":
        c = tx._project(c)
    # the executor's own LOD is unknown here; the grid spans every level the texture has
    top = float(getattr(P, "q", 0)) - float(getattr(P, "base", 0))
    ok = np.zeros((n, 4), bool)
    tol = cmp.INEXACT["TEX"]
    for lam in np.arange(-LOD_SPAN, top + LOD_SPAN + LOD_STEP / 2, LOD_STEP, dtype=np.float64):
        cc = c.copy()
        cc[:, 3] = F32(lam)
        with np.errstate(all="ignore"):
            # an explicit LOD reads no neighbours: the judged lanes alone suffice
            r = np.ascontiguousarray(np.broadcast_to(tx._texture(s.op, "TXL", cc), (n, 4)))
        near = cmp.float_equal(r.view(U32), s.imp, *tol)
        if "SHADOW" in s.ins.tex.target:     # w is 1.0 exactly, not filtered
            near[:, 3] = same_words(r.view(U32)[:, 3], s.imp[:, 3])
        ok |= near
    return ok


def rule_undefined_derivatives(s: Site) -> np.ndarray:
    """DDX/DDY or an implicit-LOD lookup in non-uniform control flow or after a KIL: GLSL 4.50
    §6.4 leaves those derivatives undefined (the assembly models keep killed fragments running
    for their neighbours): any value."""
    from .trace import _undefined_derivatives
    hit = s.op.stage == Stage.FRAGMENT and s.op.index in _undefined_derivatives(s.op.st.program)
    return np.full(s.exe.shape, hit)


def rule_implementation_any(s: Site) -> np.ndarray:
    """Mesa's folding of ``umulExtended``/``imulExtended`` of constants on ``gl``
    (:func:`trace.known_defect`, pinned by a strict-xfail test): any value."""
    from .trace import known_defect
    hit = s.ins.op == "MUL" and known_defect(s.op.st.program, s.ins, s.backend, True,
                                            s.op.index) is not None
    return np.full(s.exe.shape, hit)


def rule_implementation(s: Site) -> np.ndarray:
    """A departure of the implementation reduced to a strict-xfail test
    (:func:`trace.known_defect`).  llvmpipe's TXQ (``textureSize`` with a per-fragment LOD)
    takes one LOD for a block of 8 fragments and returns 0 when a fragment of the block asks
    for a level that does not exist: shown by recomputation, the implementation's value is
    the size at the LOD of some fragment of the same aligned 8-lane block, or zero.  Mesa's
    folding of ``umulExtended`` of constants: any value of that instruction on ``gl``."""
    from .trace import known_defect
    program = s.op.st.program
    if known_defect(program, s.ins, s.backend, True, s.op.index) is None:
        return np.zeros(s.exe.shape, bool)
    if s.ins.op == "RSQ":
        # the saturation dropped: the unsaturated result, where it is below zero
        with np.errstate(all="ignore"):
            raw = np.asarray(s.op.fn(s.op, *s.operands), np.float32).reshape(len(s.exe), -1)
        raw = np.ascontiguousarray(np.broadcast_to(raw[:, :1], s.exe.shape))
        return same_words(raw.view(U32), s.imp) & (raw < 0)
    if s.ins.op != "TXQ":
        return np.zeros(s.exe.shape, bool)
    if s.op.idx is not None:            # block-mates outside the lane selection: not shown
        return np.zeros(s.exe.shape, bool)
    ok = np.all(s.imp == 0, axis=1, keepdims=True) & np.ones((1, 4), bool)
    lod = np.asarray(s.all_operands[0])
    if lod.shape[0] == 1:               # one LOD for every lane: nothing to share
        return ok
    block = (np.asarray(s.rows) // 8) * 8
    for j in range(8):
        mates = np.minimum(block + j, len(lod) - 1)
        moved = lod.copy()
        moved[s.rows] = lod[mates]
        ok |= same_words(s.recompute([moved] + list(s.all_operands[1:])), s.imp)
    return ok


# ---- the driver's own assembly implementation (``verify --backend native``) ----------------------
# The translation path compares ``precise`` GLSL, whose + and * are IEEE operations in the
# order written; a driver running the ORIGINAL ARB program owes less (GL 2.1 §2.1.1).  These two
# rules apply only to the native backend.

#: GL 2.1 §2.1.1, quoted by ARB_fragment_program issue 3 and ARB_vertex_program issue 22: "the
#: individual results of floating-point operations must be accurate to about 1 part in 10^5"
GL_RELATIVE = 1e-5

#: opcode -> result component -> the terms summed: ("p", i, ci, j, cj) the product of operand i
#: component ci and operand j component cj, ("v", i, ci) operand i component ci (negation and
#: swizzle are already in the operands as read)
_TERMS = {
    "MAD": [[("p", 0, c, 1, c), ("v", 2, c)] for c in range(4)],
    "DP2": [[("p", 0, i, 1, i) for i in range(2)]] * 4,
    "DP3": [[("p", 0, i, 1, i) for i in range(3)]] * 4,
    "DP4": [[("p", 0, i, 1, i) for i in range(4)]] * 4,
    "DPH": [[("p", 0, i, 1, i) for i in range(3)] + [("v", 1, 3)]] * 4,
    "DP2A": [[("p", 0, 0, 1, 0), ("p", 0, 1, 1, 1), ("v", 2, 0)]] * 4,
    "X2D": [[("v", 0, 0), ("p", 1, 0, 2, 0), ("p", 1, 1, 2, 1)],
            [("v", 0, 1), ("p", 1, 0, 2, 2), ("p", 1, 1, 2, 3)]] * 2,
}


def fma32(a, b, c) -> np.ndarray:
    """float32 a*b + c with one rounding (IEEE fusedMultiplyAdd), exactly: the product of two
    float32 values is exact in float64; the float64 sum's own error (TwoSum) decides the one
    case where rounding the float64 sum to float32 would round twice (a float32 midpoint)."""
    a, b, c = (np.asarray(v, F32).astype(np.float64) for v in (a, b, c))
    with np.errstate(all="ignore"):
        p = a * b
        s = p + c
        bb = s - p
        e = (p - (s - bb)) + (c - bb)            # s + e == p + c exactly
        r = s.astype(F32)
        r64 = r.astype(np.float64)
        other = np.nextafter(r, np.where(s > r64, F32(np.inf), F32(-np.inf)).astype(F32))
        tie = (r64 != s) & (s == (r64 + other.astype(np.float64)) / 2) & (e != 0) & \
            np.isfinite(s)
        # at a midpoint the exact value lies on the side of e
        toward_other = np.sign(other.astype(np.float64) - s) == np.sign(e)
        return np.where(tie & toward_other, other, r).astype(F32)


def _term_value(t, ops, fused_into=None):
    """A term's float32 value (a product rounded), or with ``fused_into`` (an accumulator)
    the product fused with it: fma(p, q, acc)."""
    if t[0] == "v":
        v = ops[t[1]][:, t[2]]
        return v if fused_into is None else (fused_into + v).astype(F32)
    p, q = ops[t[1]][:, t[2]], ops[t[3]][:, t[4]]
    if fused_into is None:
        return (p * q).astype(F32)
    return fma32(p, q, fused_into)


def _sums(terms, ops):
    """Every value of sum(terms) an implementation may compute by adding in another order,
    each product rounded or fused into the addition (FMA), plus the two-by-two trees of four
    terms: float32 arrays, yielded lazily -- rounded orders first (what llvmpipe does), then
    the fused ones."""
    import itertools
    n = len(terms)
    rounded = [_term_value(t, ops) for t in terms]
    for order in itertools.permutations(range(n)):
        if n > 1 and order[0] > order[1]:
            continue                    # a + b == b + a: the first two commute
        acc = rounded[order[0]]
        for i in order[1:]:
            acc = (acc + rounded[i]).astype(F32)
        yield acc
    if n == 4:
        for (i, j), (k, m) in (((0, 1), (2, 3)), ((0, 2), (1, 3)), ((0, 3), (1, 2))):
            yield ((rounded[i] + rounded[j]).astype(F32) +
                   (rounded[k] + rounded[m]).astype(F32)).astype(F32)
    for order in itertools.permutations(range(n)):
        for fuse in range(1, 1 << (n - 1)):
            acc = rounded[order[0]]
            for step, i in enumerate(order[1:]):
                t = terms[i]
                if fuse >> step & 1:
                    if t[0] != "p":
                        acc = None
                        break
                    acc = _term_value(t, ops, acc)
                else:
                    acc = (acc + rounded[i]).astype(F32)
            if acc is not None:
                yield acc


def _lrp_forms(a, b, c):
    """LRP a*b + (1-a)*c as implementations evaluate it: the executor's form with either
    product fused, and Mesa's lowering a*(b-c) + c (rounded or fused)."""
    one = F32(1)
    with np.errstate(all="ignore"):
        d = (b - c).astype(F32)
        other = ((one - a) * c).astype(F32)
        return [(a * b).astype(F32) + other, fma32(a, b, other),
                fma32((one - a).astype(F32), c, (a * b).astype(F32)),
                ((a * d).astype(F32) + c).astype(F32), fma32(a, d, c)]


def _xpd_forms(a, b):
    """XPD's components p - q (products p = a.y*b.z, q = a.z*b.y for x ...), rounded or with
    either product fused: fma(a.y, b.z, -q) or fma(-a.z, b.y, p)."""
    out = []
    idx = ((1, 2), (2, 0), (0, 1))
    for variant in range(3):
        cols = []
        for i, j in idx:
            p = (a[:, i] * b[:, j]).astype(F32)
            q = (a[:, j] * b[:, i]).astype(F32)
            if variant == 0:
                cols.append((p - q).astype(F32))
            elif variant == 1:
                cols.append(fma32(a[:, i], b[:, j], -q))
            else:
                cols.append(fma32(-a[:, j], b[:, i], p))
        out.append(np.stack(cols + [np.zeros_like(cols[0])], axis=1))
    return out


def rule_reassociated(s: Site) -> np.ndarray:
    """Native backend only: a MAD, dot product (DP2/DP3/DP4/DPH/DP2A), X2D, LRP or XPD whose
    value equals the same sum of products added in another order, with products rounded or
    fused into the addition (FMA) -- shown by recomputing each candidate from the operands.
    The ARB specs define DP4 as ``tmp0.x*tmp1.x + tmp0.y*tmp1.y + ...`` and ask of the result
    only GL 2.1 §2.1.1's "about 1 part in 10^5" (ARB_vertex_program issue 22: "it is
    difficult to spell out precision requirements for 'compound' operations such as DP4");
    llvmpipe sums DP4 as ((w + z) + y) + x (Mesa 22.3, measured), an NVIDIA GPU fuses."""
    n = len(s.exe)
    ok = np.zeros((n, 4), bool)
    op = s.ins.op
    if s.backend != "native" or s.op.rt != DataType.FLOAT or \
            (op not in _TERMS and op not in ("LRP", "XPD")):
        return ok
    ops = [np.ascontiguousarray(np.broadcast_to(np.asarray(o, F32).reshape(n, -1)
                                                if np.ndim(o) > 1 else
                                                np.asarray(o, F32).reshape(n, 1), (n, 4)))
           for o in s.operands]
    with np.errstate(all="ignore"):
        if op == "LRP":
            cands = iter([np.ascontiguousarray(r, F32) for r in _lrp_forms(*ops[:3])])
        elif op == "XPD":
            cands = iter(_xpd_forms(ops[0], ops[1]))
        else:
            cands = _candidates(_TERMS[op], ops)
        # both sides must be such sums: the executor's value one of the candidates (its own
        # order) -- a recomputation independent of the executor's arithmetic would otherwise
        # bless an executor that computes something else
        exe_ok = np.zeros((n, 4), bool)
        for r in cands:
            w = _saturated(s, np.asarray(r, F32))
            ok |= _same_or_zeros(w, s.imp)
            exe_ok |= _same_or_zeros(w, s.exe)
            if (ok & exe_ok).all():
                break
    return ok & exe_ok


def _candidates(per_comp, ops):
    """(n, 4) candidate results of an opcode whose components are sums (:data:`_TERMS`): one
    enumeration when every component sums the same terms (dot products), else per component."""
    if all(t is per_comp[0] for t in per_comp):
        for v in _sums(per_comp[0], ops):
            yield np.broadcast_to(np.asarray(v, F32)[:, None], (len(v), 4))
        return
    for vs in zip(*[_sums(per_comp[c], ops) for c in range(4)]):
        yield np.stack(vs, axis=1)


#: opcodes the GL precision rule covers: float arithmetic whose exact result the IEEE
#: operations only round (selects, compares, moves and conversions have nothing to round;
#: the approximate opcodes have their own bounds in compare.INEXACT)
_ARITHMETIC = frozenset("ADD SUB MUL MAD DP2 DP2A DP3 DP4 DPH LRP XPD X2D DST RCP".split())
#: approximate opcodes: GL's 1 part in 10^5 of the result itself where that is looser than
#: their compare.INEXACT bound (ARBvp's EX2/LG2/POW "Approx..." name no accuracy of their own)
_APPROXIMATE = frozenset("EX2 LG2 POW RSQ SIN COS".split())


def _magnitude(s: Site, ops) -> np.ndarray | None:
    """(n, 4) float64: the sum of the magnitudes of what the opcode adds (its exact result
    for one operation) -- the scale GL's "1 part in 10^5" is taken of."""
    op = s.ins.op
    a = ops[0] if ops else None
    if op in _APPROXIMATE:
        return np.abs(np.ascontiguousarray(s.exe).view(F32).astype(np.float64))
    if op in ("ADD", "SUB"):
        # the operands are themselves results known to 1 part in 10^5: |a| + |b|
        return np.abs(a) + np.abs(ops[1])
    if op == "MUL":
        return np.abs(a * ops[1])
    if op == "RCP":
        return np.abs(1.0 / a[:, :1]) * np.ones((1, 4))
    if op == "DST":
        return np.abs(a * ops[1])                # y = a.y*b.y; x/z/w are exact moves
    if op == "LRP":
        return np.abs(a * ops[1]) + np.abs((1 - a) * ops[2])
    if op == "XPD":
        m = np.zeros_like(a)
        for c, (i, j) in enumerate(((1, 2), (2, 0), (0, 1))):
            m[:, c] = np.abs(a[:, i] * ops[1][:, j]) + np.abs(a[:, j] * ops[1][:, i])
        return m
    terms = _TERMS.get(op)
    if terms is None:
        return None
    m = np.zeros_like(a)
    for c in range(4):
        for t in terms[c]:
            m[:, c] += np.abs(ops[t[1]][:, t[2]] * (ops[t[3]][:, t[4]] if t[0] == "p" else 1))
    return m


def rule_gl_precision(s: Site) -> np.ndarray:
    """Native backend only: float arithmetic (:data:`_ARITHMETIC`) within GL 2.1 §2.1.1's
    "about 1 part in 10^5" (ARB_fragment_program issue 3, ARB_vertex_program issue 22) of the
    executor's result -- 1e-5 of the sum of the magnitudes of the terms the instruction adds
    (ADD/SUB |a| + |b|: the operands are themselves results known to that precision; MUL |ab|;
    MAD, dot products, LRP, XPD, X2D their products and addends; RCP |1/a|), computed from the
    executor's operands.
    Verdict ``tolerance``."""
    n = len(s.exe)
    if s.backend != "native" or s.op.rt != DataType.FLOAT or \
            (s.ins.op not in _ARITHMETIC and s.ins.op not in _APPROXIMATE):
        return np.zeros((n, 4), bool)
    ops = [np.broadcast_to(np.asarray(o, F32).astype(np.float64).reshape(n, -1), (n, 4))
           if np.ndim(o) > 1 and np.shape(o)[-1] in (1, 4) else
           np.broadcast_to(np.asarray(o, F32).astype(np.float64).reshape(n, 1), (n, 4))
           for o in s.operands]
    with np.errstate(all="ignore"):
        m = _magnitude(s, ops)
        if m is None:
            return np.zeros((n, 4), bool)
        e = np.ascontiguousarray(s.exe).view(F32).astype(np.float64)
        g = np.ascontiguousarray(s.imp).view(F32).astype(np.float64)
        ok = (np.abs(e - g) <= GL_RELATIVE * m) & np.isfinite(e) & np.isfinite(g) & \
            np.isfinite(m)
    return ok


#: set-on-compare opcodes -> the test (the result is 1.0 or 0.0)
_SET_COMPARES = frozenset("SGE SLT SEQ SNE SGT SLE".split())


def rule_gl_precision_compare(s: Site) -> np.ndarray:
    """Native backend only: a set-on-compare (SGE, SLT, SEQ, SNE, SGT, SLE) or MIN/MAX whose
    two operand components are within GL 2.1 §2.1.1's "about 1 part in 10^5" of each other
    (of the larger magnitude): the operands are themselves results known only to that
    precision, so either outcome (1.0 or 0.0; either operand) is a correct one.  Seen on
    llvmpipe: Mesa rewrites ``SGE(r + c, r)`` as ``c >= 0`` (inexact ARB arithmetic), which
    differs where the rounded sum equals r.  Verdict ``tolerance``."""
    n = len(s.exe)
    op = s.ins.op
    if s.backend != "native" or (op not in _SET_COMPARES and op not in ("MIN", "MAX")) or \
            len(s.operands) < 2 or s.op.t != DataType.FLOAT:
        return np.zeros((n, 4), bool)
    a, b = (np.broadcast_to(np.asarray(o, F32).reshape(n, -1), (n, 4)).astype(np.float64)
            for o in s.operands[:2])
    with np.errstate(all="ignore"):
        close = np.abs(a - b) <= GL_RELATIVE * np.maximum(np.abs(a), np.abs(b))
        close |= a == b                         # equal infinities
        g = np.ascontiguousarray(s.imp)
        if op in _SET_COMPARES:
            outcome = (g == 0x3F800000) | ((g & 0x7FFFFFFF) == 0)
        else:
            outcome = same_words(g, np.ascontiguousarray(a.astype(F32)).view(U32)) | \
                same_words(g, np.ascontiguousarray(b.astype(F32)).view(U32))
    return close & outcome


#: operand -> the components an opcode reads of it, where not all four (and not per result
#: component): dot products and XPD read xyz (DPH's second operand all four), DP2 xy
_READS = {("DP3", 0): (0, 1, 2), ("DP3", 1): (0, 1, 2), ("DPH", 0): (0, 1, 2),
          ("DP2", 0): (0, 1), ("DP2", 1): (0, 1), ("XPD", 0): (0, 1, 2), ("XPD", 1): (0, 1, 2)}
_uninitialized_cache: dict[int, tuple] = {}


def uninitialized_reads(program) -> dict[int, np.ndarray]:
    """Instruction -> (4,) bool: the result components computed from a temporary's component
    no earlier instruction (in execution order, ``trace.execution_order``) wrote.  Only for
    programs whose text has no control flow (plain ARB: every statement runs once, in order)."""
    hit = _uninitialized_cache.get(id(program))
    if hit is not None and hit[0] is program:
        return hit[1]
    from ..ir.model import RegKind
    from ..ir.ops import OPCODES
    from .trace import execution_order
    out: dict[int, np.ndarray] = {}
    flow = any(i.span is not None and OPCODES[i.op].category == "flow"
               for i in program.instructions)
    if not flow:
        written: dict[str, set] = {}
        for k in execution_order(program):
            ins = program.instructions[k]
            free = np.zeros(4, bool)
            for j, src in enumerate(ins.srcs):
                reg = program.registers.get(src.reg)
                if reg is None or reg.kind != RegKind.TEMP or src.index is not None:
                    continue
                have = written.get(src.reg, set())
                sw = list(src.swizzle) + [src.swizzle[-1]] * (4 - len(src.swizzle))
                if ins.op in COMPONENTWISE:
                    free |= np.array([sw[c] < 4 and sw[c] not in have for c in range(4)])
                else:
                    used = _READS.get((ins.op, j), (0,) if len(src.swizzle) == 1 else (0, 1, 2, 3))
                    if any(sw[c] < 4 and sw[c] not in have for c in used):
                        free[:] = True
            if free.any() and ins.dst is not None:
                out[k] = free & np.array(ins.dst.mask, bool)
            if ins.dst is not None:
                written.setdefault(ins.dst.reg, set()).update(
                    c for c in range(4) if ins.dst.mask[c])
    _uninitialized_cache.clear()
    _uninitialized_cache[id(program)] = (program, out)
    return out


def rule_uninitialized(s: Site) -> np.ndarray:
    """Native backend only: result components computed from a temporary's component the
    program never wrote before: ARB_vertex_program issue 16 ("it was decided to leave these
    values uninitalized"; table X.? "temporary registers: undefined"), ARB_fragment_program
    likewise -- the executor's 0.0 is one choice, the driver reads whatever the register holds:
    any value (free: what depends on it is shown by the replay's playback).  Verdict
    ``undefined``."""
    n = len(s.exe)
    if s.backend != "native":
        return np.zeros((n, 4), bool)
    free = uninitialized_reads(s.op.st.program).get(s.op.index)
    if free is None:
        return np.zeros((n, 4), bool)
    return np.broadcast_to(free, (n, 4)).copy()


def rule_native_signedzero(s: Site) -> np.ndarray:
    """Native backend only: both results are zeros, at any instruction (a move, a negation,
    the fixed-function clamp of an option's fog blend included): GL 2.1 §2.1.1's floating-point
    model has no signed zero -- it asks for "about 1 part in 10^5" and lets 0 * x be 0 --
    and the ARB specs define their operations on it (ARBvp issue 22); Mesa folds a negated
    product of zero to +0.0.  (The translation path keeps the stricter rule_signedzero:
    ``precise`` GLSL moves keep a zero's sign.)  Verdict ``signedzero``."""
    if s.backend != "native":
        return np.zeros(s.exe.shape, bool)
    return ((s.exe & 0x7FFFFFFF) == 0) & ((s.imp & 0x7FFFFFFF) == 0)


def rule_fixed_function_nonfinite(s: Site) -> np.ndarray:
    """Native backend only: an instruction the frontend made from an option's fixed-function
    work (no statement: the ARB_fog_* blend, ARB_position_invariant's transform) with a NaN or
    infinity reaching the component -- even a move: the driver's fixed-function clamp and
    blend of a non-finite colour are not the program's instructions, and GL 2.1 §2.1.1 leaves
    non-finite values given to the GL's own arithmetic unspecified.  Verdict ``nonfinite``."""
    n = len(s.exe)
    if s.backend != "native" or s.ins.span is not None:
        return np.zeros((n, 4), bool)
    lane = np.zeros(n, bool)
    comp = np.zeros((n, 4), bool)
    for w in s.float_operands():
        bad = _nonfinite(w)
        lane |= bad.any(axis=1)
        comp |= bad
    return s.feeding(lane, comp) | _nonfinite(s.exe)


def _register_component(s: Site, src) -> np.ndarray:
    """(n,) float64: the executor's current value of a plain register operand's first swizzle
    component on the judged lanes (a fog option's parameters and fog coordinate)."""
    R = s.op.st.regs[src.reg][:, 0, src.swizzle[0]]
    n = len(s.exe)
    if R.shape[0] > 1:
        R = R if s.op.idx is None else R[np.asarray(s.op.idx)]
        R = R[s.rows]
    return np.broadcast_to(np.ascontiguousarray(R, np.uint32).view(F32), (n,)).astype(np.float64)


def rule_fog_factor(s: Site) -> np.ndarray:
    """Native backend only: the blend of an ``ARB_fog_*`` option (an LRP without a statement,
    whose factor f the driver computes inside its fixed-function fog, which no probe can read)
    within the bound that f's error carries, times |b - c|, plus 1e-5 of the blend's terms
    (ARBfp 3.11.4.5.1, fog applied to the clamped colour).  exp/exp2 (f = 2^x by EX2):
    |Δf| <= 8 ulp(f) (EX2, compare.INEXACT) + 1e-5·f·|ln f| (x known to GL 2.1 §2.1.1's 1 part
    in 10^5; d(2^x) = 2^x ln2 dx) + 2^-24; linear (f = (end - c)·scale): 1e-5·(|end| +
    |c|)·|scale| + 1e-5·f + ulp(f), from the executor's fog parameters and coordinate.
    Verdict ``tolerance``."""
    n = len(s.exe)
    prog = s.op.st.program
    if s.backend != "native" or s.ins.span is not None or s.ins.op != "LRP":
        return np.zeros((n, 4), bool)
    exp = any(i.op == "EX2" and i.span is None for i in prog.instructions)
    linear = None if exp else next((i for i in prog.instructions
                                    if i.op == "SUB" and i.span is None), None)
    if not exp and linear is None:
        return np.zeros((n, 4), bool)
    a, b, c = (np.broadcast_to(np.asarray(o, F32).reshape(n, -1), (n, 4)).astype(np.float64)
               for o in s.operands[:3])
    with np.errstate(all="ignore"):
        f = np.abs(a)
        ulp = np.spacing(np.asarray(f, F32)).astype(np.float64)
        if exp:
            df = 8 * ulp + 1e-5 * f * np.abs(np.log(np.where(f > 0, f, 1.0))) + 2.0 ** -24
        else:
            # linear: f = (end - c) * scale, each operation to 1 part in 10^5 of its terms
            end, fogc = (_register_component(s, src) for src in linear.srcs)
            scale = _register_component(s, next(i for i in prog.instructions if i.op == "MUL"
                                                and i.span is None).srcs[1])
            df = (1e-5 * (np.abs(end) + np.abs(fogc)) * np.abs(scale))[:, None] + \
                1e-5 * f + ulp
        bound = df * np.abs(b - c) + GL_RELATIVE * (np.abs(a * b) + np.abs((1 - a) * c))
        e = np.ascontiguousarray(s.exe).view(F32).astype(np.float64)
        g = np.ascontiguousarray(s.imp).view(F32).astype(np.float64)
        return (np.abs(e - g) <= bound) & np.isfinite(e) & np.isfinite(g)


def rule_relative_out_of_range(s: Site) -> np.ndarray:
    """Native backend only: an operand read by relative addressing whose computed index lies
    outside its array: ARB_vertex_program 2.14.1.? ("If the computed offset is negative or
    exceeds the size of the array, the results of the access are undefined, but may not lead
    to program or GL termination"; the executor clamps, a project choice) -- any value of the
    result components that read it.  Verdict ``undefined``."""
    n = len(s.exe)
    out = np.zeros((n, 4), bool)
    if s.backend != "native":
        return out
    from ..exec.operands import _read_index
    prog = s.op.st.program
    for src in s.ins.srcs:
        if src.index is None or not src.index.relative:
            continue
        reg = prog.registers.get(src.reg)
        if reg is None:
            continue
        v = np.asarray(_read_index(s.op.st, src.index, s.op.idx))
        v = v[s.rows] if v.shape[0] > 1 else np.broadcast_to(v, (n,))
        bad = (v < 0) | (v >= reg.length)
        out |= bad[:, None]
    return out


def rule_rough_power(s: Site) -> np.ndarray:
    """Native backend, ARB vertex programs: LIT's z is ``RoughApproxPower(y, w) =
    RoughApproxExp2(w * RoughApproxLog2(y))`` (ARB_vertex_program 2.14.5.8, "may not be any
    more accurate than the underlying EXP and LOG operations", each "accurate to at least 10
    bits": |error| < 2^-11, relative for the exponential): the value within
    2^(±|w|·2^-11)·(1 ± 2^-11) of the executor's, w clamped to ±(128 - 1/256) as the
    executor clamps it; beyond FLT_MAX, infinity.  ARB fragment programs too: ARBfp 3.11.5.13's
    pseudo-code names the same RoughApproxPower, though its prose defines ApproxPower through
    EX2/LG2 without a bound -- read as the vertex program's rough bound (the looser reading;
    llvmpipe's LIT is 1.35e-3 off at w = 128, beyond 1 part in 10^5).  Verdict ``tolerance``."""
    n = len(s.exe)
    out = np.zeros((n, 4), bool)
    if s.backend != "native" or s.ins.op != "LIT" or \
            not str(getattr(s.op.st.program, "dialect", "")).startswith(("ARBvp", "ARBfp")):
        return out
    with np.errstate(all="ignore"):
        w = np.asarray(s.operands[0], F32).reshape(n, -1)[:, -1].astype(np.float64)
        w = np.clip(w, -(128 - 1 / 256), 128 - 1 / 256)
        e = np.ascontiguousarray(s.exe[:, 2]).view(F32).astype(np.float64)
        g = np.ascontiguousarray(s.imp[:, 2]).view(F32).astype(np.float64)
        factor = 2.0 ** (np.abs(w) * 2.0 ** -11) * (1 + 2.0 ** -11)
        hi, lo = np.abs(e) * factor, np.abs(e) / factor
        ok = np.isfinite(e) & (((np.abs(g) <= hi) & (np.abs(g) >= lo) & (np.sign(g) == np.sign(e)))
                               | (np.isinf(g) & (hi > np.finfo(F32).max) & (g > 0)))
    out[:, 2] = ok
    return out


#: the rules in the order they are tried (the first that permits a component names it); what
#: float values a rule speaks of: "result" (an integer result's words are no float: the integer
#: 8 is no denormal, INT_MIN no negative zero), "any" (float operands or a float result: a
#: float compare writing integer masks flushes its operands too), or None; and whether the
#: value it permits is free (any value: the replay then shows which outputs depend on it by
#: running again with another value, see replay.ReplayHook.perturb) or recomputed
RULES = (
    ("signedzero", rule_signedzero, "result", False),
    ("signedzero", rule_native_signedzero, "result", False),
    ("ftz", rule_ftz, "any", False),
    ("ftz", rule_ftz_multistep, "result", True),
    ("nonfinite", rule_nonfinite, "any", True),
    ("nonfinite", rule_fixed_function_nonfinite, "any", True),
    ("tolerance", rule_tolerance, "result", False),
    ("reassociated", rule_reassociated, "result", False),
    ("tolerance", rule_gl_precision, "result", False),
    ("tolerance", rule_gl_precision_compare, "any", False),
    ("tolerance", rule_fog_factor, "result", False),
    ("tolerance", rule_rough_power, "result", False),
    ("range", rule_range, "any", True),
    ("undefined", rule_undefined, None, True),
    ("undefined", rule_uninitialized, None, True),
    ("undefined", rule_relative_out_of_range, None, True),
    ("boundary", rule_boundary, None, False),
    ("lod", rule_lod, None, False),
    ("lod", rule_undefined_derivatives, None, True),
    ("implementation", rule_implementation, None, False),
    ("implementation", rule_implementation_any, None, True),
)


def permitted(site: Site, differ: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For the components in ``differ``: an (n, 4) array of verdict names ('' where no rule
    permits the difference) and an (n, 4) bool array, True where the permitted value is free
    (any value) rather than recomputed."""
    out = np.full(differ.shape, "", dtype=object)
    free = np.zeros(differ.shape, bool)
    todo = differ.copy()
    has = {"result": site.op.rt == DataType.FLOAT, None: True}
    has["any"] = has["result"] or bool(site.float_operands())
    for name, rule, needs, is_free in RULES:
        if not todo.any():
            break
        if not has[needs]:
            continue
        ok = np.asarray(rule(site), bool) & todo
        out[ok] = name
        free |= ok & is_free
        todo &= ~ok
    return out, free
