"""Rules of :mod:`permits` for the native backend only (``xlate verify --backend native``):
the freedoms of a driver running the ORIGINAL ARB program, which owes less than the
``precise`` GLSL the translation path compares (GL 2.1 §2.1.1: results "accurate to about 1
part in 10^5"; the ARB specs' undefined values).  Every rule returns nothing unless
``Site.backend == "native"``; :data:`permits.RULES` lists them in their place.  The spec
passage behind each is in its docstring and in :data:`compare.EXPLANATIONS`.
"""
from __future__ import annotations

import numpy as np

from ..ir.model import DataType
from .compare import same_words
from .permits_site import (COMPONENTWISE, SAMPLING_OPS, Site, _nonfinite, _same_or_zeros,
                      _saturated)

F32, U32 = np.float32, np.uint32



from .spread import BELOW, ABOVE, reaches, within as spread_within  # noqa: E402
from .gl_precision import (  # noqa: E402  (GL's precision rule, shared with spread.py)
    APPROXIMATE as _APPROXIMATE, ARITHMETIC as _ARITHMETIC, GL_RELATIVE, TERMS as _TERMS,
    magnitude)


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
        m = magnitude(s.ins.op, s.exe, ops)
        if m is None:
            return np.zeros((n, 4), bool)
        e = np.ascontiguousarray(s.exe).view(F32).astype(np.float64)
        g = np.ascontiguousarray(s.imp).view(F32).astype(np.float64)
        ok = (np.abs(e - g) <= GL_RELATIVE * m) & np.isfinite(e) & np.isfinite(g) & \
            np.isfinite(m)
    return ok


def rule_propagated(s: Site) -> np.ndarray:
    """Native backend only: the driver's value within the *spread* of the executor's
    (:mod:`spread`): GL 2.1 §2.1.1's "about 1 part in 10^5" of this operation plus the bounds of
    the instructions its operands come from, carried through this one -- a compilation that
    folds instructions into one expression computes this one from operands that differ from the
    earlier instructions' values within their bounds (ARB_vertex_program issue 22,
    ARB_fragment_program issue 3: no order of evaluation is required).  Both values finite.
    Verdict ``propagated``."""
    n = len(s.exe)
    if s.backend != "native" or s.spread is None:
        return np.zeros((n, 4), bool)
    with np.errstate(all="ignore"):
        e = np.ascontiguousarray(s.exe).view(F32).astype(np.float64)
        g = np.ascontiguousarray(s.imp).view(F32).astype(np.float64)
        return spread_within(e, g, s.spread) | _decided_within_spread(s) | \
            _largest_finite_within_spread(s)


#: float64 forms of the scalar approximations whose float32 result overflows (their operands as
#: read: ARB's |x| of RSQ is applied before)
_EXACT64 = {"RCP": lambda a: 1.0 / a, "RSQ": lambda a: 1.0 / np.sqrt(a), "EX2": np.exp2}
_FLT_MAX = float(np.finfo(F32).max)


def _largest_finite_within_spread(s: Site) -> np.ndarray:
    """A result too large for float32.  GL 2.1 §2.1.1 asks each operation for about 1 part in
    10^5 of its exact result; a float32 holds magnitudes up to FLT_MAX.  Where the executor's
    RCP/RSQ/EX2 overflowed to +-inf and the driver gave +-FLT_MAX, that is a correct result if
    some exact (float64) result over the operand's interval (its spread, ends included) lies
    within 1e-5 of FLT_MAX.  Measured: cg ``xbr-lv2-small-details`` -- the replay adopted the
    driver's flush of ``RCP(FLT_MAX)`` = 2^-128 to 0, so ``RCP`` of ``R13.x * 0.5 * 2`` is
    RCP(0) = inf in the executor; Mesa folds ``rcp(rcp(x) * 0.5 * 2)`` to ``x`` = FLT_MAX, the
    exact result 2^128 of the unflushed operand to within 6e-8."""
    n = len(s.exe)
    out = np.zeros((n, 4), bool)
    exact = _EXACT64.get(s.ins.op)
    if exact is None or s.operand_spreads is None or len(s.operands) != 1:
        return out
    with np.errstate(all="ignore"):
        e = np.ascontiguousarray(s.exe).view(F32).astype(np.float64)
        g = np.ascontiguousarray(s.imp).view(F32).astype(np.float64)
        cand = np.isinf(e) & (np.abs(g) == _FLT_MAX) & (np.sign(g) == np.sign(e))
        if not cand.any():
            return out
        o = np.broadcast_to(np.asarray(s.operands[0], F32).reshape(n, -1), (n, 4)) \
            .astype(np.float64)
        u = s.operand_spreads[0]
        # monotone on the interval (a pole can only be an end: across it the spread claims
        # nothing), so the exact results lie between those at the ends
        r = np.abs(np.stack([exact(o - u[..., BELOW]), exact(o), exact(o + u[..., ABOVE])]))
        lowest, highest = np.nanmin(r, axis=0), np.nanmax(r, axis=0)
        reach = (lowest <= _FLT_MAX / (1 - GL_RELATIVE)) & \
            (highest >= _FLT_MAX / (1 + GL_RELATIVE))
    return cand & reach


def _decided_within_spread(s: Site) -> np.ndarray:
    """A decision whose operands lie within their spreads of its boundary takes either outcome
    -- exactly one of the outcomes, not a value between: a set-on compare writes 1.0 or 0.0
    (its operands within their spreads plus 1e-5 of each other); CMP writes its second or third
    operand's value (its first within its spread of zero)."""
    n = len(s.exe)
    op = s.ins.op
    out = np.zeros((n, 4), bool)
    if s.operand_spreads is None or len(s.operands) < 2 or s.op.t != DataType.FLOAT:
        return out
    f = [np.broadcast_to(np.asarray(o, F32).reshape(n, -1), (n, 4)).astype(np.float64)
         for o in s.operands]
    u = s.operand_spreads
    g = np.ascontiguousarray(s.imp)
    if op in _SET_COMPARES:
        # the two operands' intervals (plus 1e-5 of the larger) overlap
        slack = GL_RELATIVE * np.maximum(np.abs(f[0]), np.abs(f[1]))
        with np.errstate(all="ignore"):
            close = (f[0] - u[0][..., BELOW] <= f[1] + u[1][..., ABOVE] + slack) & \
                (f[1] - u[1][..., BELOW] <= f[0] + u[0][..., ABOVE] + slack)
        outcome = (g == 0x3F800000) | ((g & 0x7FFFFFFF) == 0)
        return close & outcome & np.isfinite(f[0]) & np.isfinite(f[1])
    if op == "CMP" and len(f) == 3:
        near = reaches(f[0], u[0]) & np.isfinite(f[0])
        pick = same_words(g, np.ascontiguousarray(f[1].astype(F32)).view(U32)) | \
            same_words(g, np.ascontiguousarray(f[2].astype(F32)).view(U32))
        return near & pick
    return out


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
    no earlier instruction (in execution order, ``trace.execution_order``) wrote -- or from a
    component computed so.  Only for programs whose text has no control flow (plain ARB: every
    statement runs once, in order).

    What is computed from an undefined value is undefined too.  The specs give temporaries an
    "undefined" initial value (ARBvp Table X.? and issue 16, ARBfp Table X.8) and do not say
    that it stays one value between reads; Mesa's compiler gives each read its own (LLVM
    ``undef``), measured on piglit's arbfptest1-4.fp (``MOV R0, R1; MOV R0, -R1;`` gives colour
    components that no single value of R1 explains).  So the freedom follows the value: a
    component is free when it reads a component no instruction wrote or one computed from
    such a component, and a write of defined values ends it."""
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
        undefined: dict[str, set] = {}          # components holding a value computed from one
        for k in execution_order(program):
            ins = program.instructions[k]
            free = np.zeros(4, bool)
            for j, src in enumerate(ins.srcs):
                reg = program.registers.get(src.reg)
                if reg is None or reg.kind != RegKind.TEMP or src.index is not None:
                    continue
                have = written.get(src.reg, set()) - undefined.get(src.reg, set())
                sw = list(src.swizzle) + [src.swizzle[-1]] * (4 - len(src.swizzle))
                if ins.op in COMPONENTWISE:
                    free |= np.array([sw[c] < 4 and sw[c] not in have for c in range(4)])
                else:
                    used = _READS.get((ins.op, j), (0,) if len(src.swizzle) == 1 else (0, 1, 2, 3))
                    if any(sw[c] < 4 and sw[c] not in have for c in used):
                        free[:] = True
            if free.any() and ins.dst is not None:
                out[k] = free & np.array(ins.dst.mask, bool)
            elif free.any() and ins.op == "KIL":
                out[k] = free               # a decision read from an undefined component
            if ins.dst is not None:
                mask = [c for c in range(4) if ins.dst.mask[c]]
                written.setdefault(ins.dst.reg, set()).update(mask)
                bad = undefined.setdefault(ins.dst.reg, set())
                bad.difference_update(mask)
                bad.update(c for c in mask if free[c])
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


def rule_saturated_nan(s: Site) -> np.ndarray:
    """Native backend only, plain ARB programs (no NV option): a saturated instruction
    (``_SAT``) whose unsaturated result is NaN may give NaN or any value of the clamp's range.
    ARB_fragment_program section 3.11.4.3 says only that "_SAT" clamps the result components
    to [0,1]; NaN lies in no order, and the spec's one word on NaN (the MUL rules: "IEEE 'not a
    number' and 'infinity' encodings may be exceptions") leaves operations on it open.  The
    executor keeps the NaN (NV_fragment_program's UpdateDestination pseudocode: ``if (x < 0)
    x = 0; else if (x > 1) x = 1;`` lets it through; xlate/exec/__init__.py); llvmpipe and
    NVIDIA's driver give 0.0 (measured).  Programs with an NV option follow the NV pseudocode:
    not covered.  Verdict ``undefined``."""
    n = len(s.exe)
    program = s.op.st.program
    if s.backend != "native" or s.op.sat is None or not program.dialect.startswith("ARB") \
            or getattr(program, "options", ()) and any(o.startswith("NV_")
                                                        for o in program.options):
        return np.zeros((n, 4), bool)
    lo, hi = (np.float32(v) for v in s.op.sat)
    exe = s.exe.view(np.float32)
    imp = s.imp.view(np.float32)
    with np.errstate(invalid="ignore"):
        in_range = (imp >= lo) & (imp <= hi)
    return np.isnan(exe) & (np.isnan(imp) | in_range)


def rule_minimum_precision(s: Site) -> np.ndarray:
    """Native backend only: an instruction with an fp16 or fx12 precision (``H``/``X``
    suffixes, ``.FP16``) may be carried out at a higher precision: NV_fragment_program_option
    section 3.11.4.X, "The 'R', 'H', and 'X' opcode precision modifiers ... specify the
    *minimum* precision used to perform arithmetic operations" ("at no less than 16-bit
    floating-point precision"), and NV_gpu_program4 issue (18): SHORT temporaries "may be, but
    are not necessarily, stored as fp16".  Shown by recomputation: the implementation's value
    is the fp32 result of the same operands, or lies between it and the executor's
    lower-precision one (any precision in between).  NVIDIA's driver computes them at fp32
    (measured).  Verdict ``tolerance``."""
    from ..exec.operands import _PRECISION
    n = len(s.exe)
    if s.backend != "native" or _PRECISION.get(s.ins.precision) is None:
        return np.zeros((n, 4), bool)
    full = s.recompute(s.all_operands, precision=False)
    exe, imp, r32 = (w.view(np.float32) for w in (s.exe, s.imp, full))
    with np.errstate(invalid="ignore"):
        between = (imp >= np.minimum(exe, r32)) & (imp <= np.maximum(exe, r32))
    return (s.imp == full) | (between & np.isfinite(imp))


#: sub-texel precision of a filtered lookup: the fraction of a texel the filter weights are
#: resolved to (2^-8: Direct3D 10+'s requirement, which NVIDIA's and AMD's hardware meet --
#: and no finer, measured on NVIDIA)
SUBTEXEL = 1.0 / 256


def rule_subtexel_weights(s: Site) -> np.ndarray:
    """Native backend only: a LINEAR-filtered lookup (1D, 2D, rectangle and their arrays)
    whose value lies within the values the same filter gives with each coordinate moved by up
    to half a sub-texel step (:data:`SUBTEXEL`) either way.  GL 4.5 section 8.14.2 defines the
    weights from frac(u - 0.5) but sets no precision for them; real texture units resolve a
    coordinate to a fixed number of fraction bits before weighting (NVIDIA's: 8).  The
    bilinear value is linear in each weight, so its extremes over that box lie at the box's
    corners: the lookup is recomputed at every corner, and the implementation's value must
    lie within their range, component by component (within 2^-20 of the larger end, the
    rounding of the filter's own arithmetic).  A wrong texel, a wrong coordinate component or a wrong
    level lies outside it.  Verdict ``tolerance``."""
    import itertools
    n = len(s.exe)
    none = np.zeros((n, 4), bool)
    if s.backend != "native" or s.ins.op not in SAMPLING_OPS or s.ins.tex is None \
            or s.op.rt != DataType.FLOAT or "SHADOW" in s.ins.tex.target:
        return none
    from ..exec.texture_objects import BASE_TARGET
    base = BASE_TARGET.get(s.ins.tex.target, s.ins.tex.target)
    if base not in ("1D", "2D", "RECT", "ARRAY1D", "ARRAY2D"):
        return none
    P = s.op.st.textures.get(s.ins.tex.unit) if hasattr(s.op.st.textures, "get") else None
    if P is None or not (P.mag_lin or P.min_lin):
        return none
    dims = 1 if base in ("1D", "ARRAY1D") else 2
    c = np.asarray(s.all_operands[0], F32)
    rest = list(s.all_operands[1:])
    lo = np.full((n, 4), np.inf, np.float64)
    hi = np.full((n, 4), -np.inf, np.float64)
    # the step in the coordinate's own units: a texel of level 0 (normalized coordinates) or
    # a texel (rectangles); at a smaller level the step is larger, so level 0's is the finest
    sizes = (float(P.W[0]), float(P.H[0]))
    for corner in itertools.product((-1, 1), repeat=dims):
        moved = c.copy()
        for i, d in enumerate(corner):
            step = SUBTEXEL / 2 if base == "RECT" else SUBTEXEL / 2 / sizes[i]
            moved[:, i] = c[:, i] + F32(d * step)
        r = s.recompute([moved] + rest).view(np.float32).astype(np.float64)
        lo = np.minimum(lo, r)
        hi = np.maximum(hi, r)
    imp = s.imp.view(np.float32).astype(np.float64)
    slack = np.maximum(np.abs(lo), np.abs(hi)) * 2.0 ** -20
    ok = (imp >= lo - slack) & (imp <= hi + slack)
    return ok & np.isfinite(imp)


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
