"""The replacements the cgc oracle's counterfactual runs make (:mod:`oracle_explain`): each
a change of one instruction's result, on given lanes, that a named cause allows -- the
executor's own instruction recomputed from moved operands (``tie``), a value GLSL leaves
undefined for the operands (``undefined-domain``), an overflow's value (``overflow``), the
other operand of a MIN/MAX of one NaN (``nan-operand``), cgc's integer constants
(``cgc-int-constant``), relative and ulp moves (``precision``, ``rounding``).  A change is
``change(x, ops, bits, rows, ids) -> bits`` (x: the compiled instruction, ops: its operands,
bits: its result words, rows: the positions of the changed lanes, ids: their numbers); it
returns None where it changes nothing."""
from __future__ import annotations

import numpy as np

from ..ir.model import DataType, RegKind
from .oracle_match import REL

F32, U32 = np.float32, np.uint32

#: discrete decisions whose outcome may flip on near-equal operands (``tie``)
DECISIONS = frozenset({"SLT", "SGE", "SGT", "SLE", "SEQ", "SNE", "SFL", "STR", "CMP", "MIN",
                       "MAX", "FLR", "CEIL", "TRUNC", "ROUND", "FRC", "SSG", "I2F", "TEX",
                       "TXB", "TXL", "TXP", "TXD", "MOD"})
#: operations GLSL leaves undefined for some operands (``undefined-domain``)
UNDEFINED_DOMAIN = frozenset({"POW", "LG2", "RSQ", "RCP", "DIV", "NRM", "LIT", "MOD", "FLR",
                              "CEIL", "TRUNC", "ROUND"})
#: selections whose NaN operand GLSL need not return (``nan-operand``)
NAN_SELECTS = frozenset({"MIN", "MAX"})
#: roundings that convert to an integer when their result type is .S/.U (``int(x)`` in cgc's
#: GLSL): undefined there for a NaN or out-of-range operand (:func:`_conversion_variants`)
CONVERSIONS = frozenset({"FLR", "CEIL", "TRUNC", "ROUND"})


def _result(x, ops) -> np.ndarray:
    """The instruction's result words for operands ``ops`` (as machine.run_alu computes them,
    before the writer's precision step)."""
    from ..exec.operands import saturate
    with np.errstate(all="ignore"):
        res = x.fn(x, *ops)
        if res.ndim == 1:
            res = res[:, None]
        if x.sat is not None:
            res = saturate(res, *x.sat)
        res = np.broadcast_to(res, (res.shape[0], 4))
        return np.ascontiguousarray(res).view(U32)


def _float_operands(x) -> list[int]:
    return [i for i in range(len(x.inst.srcs))
            if x.info.operand_type(i, x.t) == DataType.FLOAT]


def _tie_variants(x) -> list:
    """Changes recomputing a decision with one float operand scaled by (1 +- REL) (for
    texture lookups: the coordinate's components, each moved or not, both ways)."""
    out = []
    fl = _float_operands(x)
    if x.inst.tex is not None:
        fl = fl[:1]
        patterns = [(a, b) for a in (-1, 0, 1) for b in (-1, 0, 1) if (a, b) != (0, 0)]
    else:
        patterns = None
    for i in fl:
        for sign in (-1.0, 1.0):
            if patterns is None:
                scales = [np.full(4, 1.0 + sign * REL)]
            else:
                scales = [np.array([1.0 + sign * REL * a, 1.0 + sign * REL * b, 1.0, 1.0])
                          for a, b in patterns if sign > 0 or (a, b) == (1, 1)]
            for sc in scales:
                def change(x, ops, bits, rows, ids, i=i, sc=sc):
                    o = np.asarray(ops[i])
                    if o.dtype != F32:
                        return None
                    moved = list(ops)
                    with np.errstate(all="ignore"):
                        moved[i] = (o.astype(np.float64) * (sc if o.ndim == 2 and
                                                            o.shape[-1] == 4 else sc[0])
                                    ).astype(F32)
                    new = _result(x, moved)
                    return (new[rows] if new.shape[0] > 1 else
                            np.broadcast_to(new, (len(rows), 4)))
                out.append(change)
    return out


def _raw_loaders(x, program) -> dict:
    """Loaders of the operands of ``x`` that carry |abs|, without it (operand index -> loader):
    the value the Cg source passed to the GLSL function."""
    from dataclasses import replace
    from ..exec.operands import make_loader
    if program is None:
        return {}
    out = {}
    for i, src in enumerate(x.inst.srcs):
        if src.abs:
            out[i] = make_loader(program, replace(src, abs=False), x.info.operand_type(i, x.t),
                                 x.info.inputs[i] == "s")
    return out


def _int_constant_sites(program) -> dict[int, list[int]]:
    """Instruction -> operand indices that read a typeless PARAM constant (a float by the
    spec) as a signed or unsigned integer, where the float is integral and its bits are not
    that integer."""
    from ..exec.machine import compile_program
    out: dict[int, list[int]] = {}
    code = None
    for k, ins in enumerate(program.instructions):
        for i, src in enumerate(ins.srcs):
            reg = program.registers.get(src.reg)
            if reg is None or reg.value is None or reg.dtype != DataType.NONE or \
                    reg.kind not in (RegKind.PARAM, RegKind.CONST):
                continue
            if code is None:
                code = compile_program(program)[0]
            x = code[k]
            if x.info.operand_type(i, x.t) not in (DataType.INT, DataType.UINT):
                continue
            rows = reg.value if src.index is None or src.index.relative else \
                [reg.value[min(src.index.offset, len(reg.value) - 1)]]
            f = np.array(rows, U32).view(F32)
            if np.all(np.isfinite(f)) and np.all(f == np.round(f)) and \
                    np.any((f != 0) & (f.astype(np.int64) != np.array(rows, np.int64))):
                out.setdefault(k, []).append(i)
    return out


def _int_constant_variant(operands: list[int]):
    """The instruction recomputed with those operands' words read as the float they hold,
    converted to the integer it is."""
    def change(x, ops, bits, rows, ids):
        moved = list(ops)
        for i in operands:
            o = np.ascontiguousarray(np.asarray(ops[i]))
            w = o.view(U32) if o.dtype.itemsize == 4 else o.astype(U32)
            moved[i] = w.view(F32).astype(np.int64).astype(o.dtype)
        new = _result(x, moved)
        return new[rows] if new.shape[0] > 1 else np.broadcast_to(new, (len(rows), 4))
    return change


#: remainders an implementation may compute for ``%`` of a negative operand (undefined there):
#: floored (the divisor's sign), truncated (C's; the dividend's sign), and the remainder of the
#: operands' 32-bit words read as unsigned (llvmpipe on cgc's GLSL 1.10 + EXT_gpu_shader4:
#: (-128) % 12 is 8, the remainder of 4294967168 by 12)
INT_MOD_KINDS = ("floored", "truncated", "unsigned")


def _int_mod_variant(kind: str):
    """Integer MOD of a negative operand or by a divisor <= 0 (EXT_gpu_shader4 §5.9 / GLSL 1.30
    §5.9: ``%`` is undefined if either operand is negative; NV_gpu_program4 leaves MOD of
    negative operands undefined too): one of :data:`INT_MOD_KINDS`, or, by zero, 0."""
    def change(x, ops, bits, rows, ids):
        a = np.asarray(ops[0]).astype(np.int64)
        b = np.asarray(ops[1]).astype(np.int64)
        if x.t == DataType.UINT:
            return None
        a, b = np.broadcast_arrays(a.reshape(a.shape[0], -1), b.reshape(b.shape[0], -1))
        bad = (a < 0) | (b <= 0)
        bnz = np.where(b == 0, 1, b)
        if kind == "floored":
            r = np.mod(a, bnz)
        elif kind == "truncated":
            r = np.where(b == 0, 0, np.fmod(a, bnz))
        else:
            ua, ub = a & 0xFFFFFFFF, b & 0xFFFFFFFF
            r = np.where(ub == 0, 0, ua % np.where(ub == 0, 1, ub))
        r = (r & 0xFFFFFFFF).astype(U32)
        r = np.broadcast_to(r, (r.shape[0], 4)) if r.shape[1] == 1 else r
        bad = np.broadcast_to(bad, (bad.shape[0], 4)) if bad.shape[1] == 1 else bad
        r = r[rows] if r.shape[0] > 1 else np.broadcast_to(r, (len(rows), 4))
        bad = bad[rows] if bad.shape[0] > 1 else np.broadcast_to(bad, (len(rows), 4))
        if not bad.any():
            return None
        return np.where(bad, r, bits[rows])
    return change


#: what an implementation's float-to-integer conversion may give where GLSL leaves it undefined:
#: x86's "integer indefinite" 0x80000000 (cvttss2si, which llvmpipe's fptosi becomes), 0, and the
#: saturated ends (NV_gpu_program4's clamp; the executor's NaN -> 0 is the project's choice)
CONVERSION_VALUES = (0x80000000, 0, 0x7FFFFFFF, 0xFFFFFFFF)


def _nan_select_variant():
    """MIN/MAX with exactly one NaN operand component: the other operand's value (IEEE 754-2008
    minNum/maxNum, which llvmpipe's min()/max() are), where NV_gpu_program4 2.X.8 gives the
    NaN (``(a > b) ? b : a``).  GLSL 4.50 §4.7.1: "operations and built-in functions that
    operate on a NaN are not required to return a NaN as the result" (GLSL 1.10 says nothing of
    NaN).  Recomputed by the executor's own instruction with the NaN operand replaced by the
    other; only those components change."""
    def change(x, ops, bits, rows, ids):
        if len(ops) != 2 or any(np.asarray(o).dtype != F32 for o in ops):
            return None
        a, b = (np.asarray(o) for o in ops)
        a2, b2 = (o.reshape(o.shape[0], -1) if o.ndim else o.reshape(1, 1) for o in (a, b))
        a2, b2 = np.broadcast_arrays(a2, b2)
        one = np.isnan(a2) ^ np.isnan(b2)
        if not one.any():
            return None
        new = _result(x, [np.where(np.isnan(a2), b2, a2), np.where(np.isnan(b2), a2, b2)])
        one = np.broadcast_to(one, (one.shape[0], 4)) if one.shape[1] == 1 else one
        one = one[rows] if one.shape[0] > 1 else np.broadcast_to(one, (len(rows), 4))
        new = new[rows] if new.shape[0] > 1 else np.broadcast_to(new, (len(rows), 4))
        return np.where(one, new, bits[rows])
    return change


def _conversion_variants() -> list:
    """``int(x)`` / ``uint(x)`` of a NaN, of a value outside the integer's range, or (uint) of a
    negative value: EXT_gpu_shader4 and GLSL 1.30 §5.4.1 define the conversion only as dropping
    the fractional part -- an integer these values do not have -- and GLSL 1.30 §5.4.1 makes a
    negative float to uint undefined; NV_gpu_program4 (FLR/CEIL/TRUNC/ROUND .S/.U, issue 41)
    clamps, and leaves NaN to the implementation.  One of :data:`CONVERSION_VALUES` on exactly
    those components; every other component keeps the executor's value."""
    def make(value):
        def change(x, ops, bits, rows, ids):
            a = np.asarray(ops[0])
            if a.dtype != F32:
                return None
            with np.errstate(all="ignore"):
                r = {"FLR": np.floor, "CEIL": np.ceil, "TRUNC": np.trunc,
                     "ROUND": np.rint}[x.inst.op](a.astype(np.float64))
                lo, hi = (-(2.0 ** 31), 2.0 ** 31 - 1) if x.rt == DataType.INT else \
                    (0.0, 2.0 ** 32 - 1)
                bad = np.isnan(r) | (r < lo) | (r > hi)
            bad = np.broadcast_to(bad.reshape(bad.shape[0], -1) if bad.ndim else
                                  np.array([[bool(bad)]]), (bad.shape[0] if bad.ndim else 1, 4))
            bad = bad[rows] if bad.shape[0] > 1 else np.broadcast_to(bad, (len(rows), 4))
            if not bad.any():
                return None
            return np.where(bad, U32(value), bits[rows])
        return change
    return [make(v) for v in CONVERSION_VALUES]


def _int_domain_site(program, k: int) -> bool:
    """An integer-result instruction with an undefined domain: MOD, or a conversion to .S/.U."""
    ins = program.instructions[k]
    return ins.op == "MOD" or (ins.op in CONVERSIONS and ins.dtype in (DataType.INT,
                                                                        DataType.UINT))


def _undefined_variants(x, which: str = "undefined-domain", program=None) -> list:
    """Changes giving the value cgc's GLSL may have returned where GLSL leaves the operation
    undefined for the lane's operands (``undefined-domain``), or where the executor's result
    overflowed to a non-finite value from finite operands (``overflow``); the other lanes and
    components keep the executor's value."""
    op = x.inst.op
    if which == "nan-operand":
        return [_nan_select_variant()] if op in NAN_SELECTS and x.rt == DataType.FLOAT else []
    raw_loaders = _raw_loaders(x, program) if which == "undefined-domain" else {}

    def out_of_domain(ops, bits):
        with np.errstate(all="ignore"):
            if which == "overflow":
                # a non-finite result from finite operands
                fin = np.ones(np.shape(bits)[0], bool)
                for o in ops:
                    o = np.asarray(o)
                    if o.dtype == F32:
                        f = np.isfinite(o)
                        f = f.reshape(f.shape[0], -1).all(axis=1) if f.ndim else \
                            np.array([bool(f)])
                        fin = fin & f if f.shape[0] == fin.shape[0] else fin & f[0]
                w = np.asarray(bits, U32)
                return ((w & 0x7F800000) == 0x7F800000) & fin[:, None]
            a = np.asarray(ops[0], np.float64)
            if op == "POW":
                b = np.asarray(ops[1], np.float64)
                bad = (a < 0) | ((a == 0) & (b <= 0))
            elif op in ("LG2", "RSQ"):
                bad = a <= 0
            elif op == "RCP":
                bad = a == 0
            elif op == "DIV":
                bad = np.asarray(ops[1], np.float64) == 0
            elif op == "NRM":
                bad = np.sum(a[..., :3] ** 2, axis=-1, keepdims=True) == 0
            else:                                   # LIT: pow(y, w) with y <= 0
                bad = a[..., 1:2] <= 0
            bad = np.asarray(bad)
            if bad.ndim == 1:
                bad = bad[:, None]
            return np.broadcast_to(bad.any(axis=-1, keepdims=True), (bad.shape[0], 4))

    def make(kind):
        def change(x, ops, bits, rows, ids):
            if any(np.asarray(o).dtype != F32 for o in ops):
                return None
            full = np.asarray(bits)
            # the domain is the GLSL operation's: cgc writes pow(x, y) as POW |x|, y in the
            # assembly -- the operand before the |...| decides
            seen = [raw_loaders[i](x.st, x.idx) if i in raw_loaders else o
                    for i, o in enumerate(ops)]
            bad = out_of_domain(seen, full if which == "overflow" else full[:, :1])
            bad = bad[rows] if bad.shape[0] > 1 else np.broadcast_to(bad, (len(rows), 4))
            if which != "overflow":
                bad = np.broadcast_to(bad.any(axis=1, keepdims=True), (len(rows), 4))
            if not bad.any():
                return None
            if kind == "max":
                w = np.asarray(bits[rows], U32)
                new = np.where((w & 0x80000000) != 0, U32(0xFF7FFFFF), U32(0x7F7FFFFF))
            elif kind == "abs":
                new = _result(x, [np.abs(o) for o in ops[:1]] + list(ops[1:]))
                new = new[rows] if new.shape[0] > 1 else np.broadcast_to(new, (len(rows), 4))
            else:
                new = np.full((len(rows), 4), {"nan": 0x7FC00000, "zero": 0, "inf": 0x7F800000,
                                                "-inf": 0xFF800000}[kind], U32)
            return np.where(bad, new, bits[rows])
        return change
    if op in CONVERSIONS:
        return _conversion_variants() if which == "undefined-domain" and \
            x.rt in (DataType.INT, DataType.UINT) else []
    if op == "MOD" and x.t in (DataType.INT, DataType.UINT):
        return [_int_mod_variant(kind) for kind in INT_MOD_KINDS] \
            if which == "undefined-domain" else []
    if which == "overflow":
        return [make(k) for k in ("max", "zero", "nan")]
    return [make(k) for k in ("nan", "zero", "abs", "inf", "-inf")]


#: sums whose result may cancel: ``a - b`` of near-equal a and b (``rounding`` of an operand)
CANCELLING = frozenset({"ADD", "SUB", "MAD", "DP2", "DP2A", "DP3", "DP4", "DPH"})
#: a result cancels when it is within this much of its largest operand component (relative):
#: 2^-20, eight units in the last place of that operand (exact zero included)
CANCELLED = 2.0 ** -20


def _cancels(x, ops, bits) -> np.ndarray:
    """(n,) lanes where the float sum ``x`` cancelled: a written component whose result is
    within CANCELLED of the largest nonzero float operand component (an exact 0 from a - b
    with a == b among them)."""
    n = np.shape(bits)[0]
    if x.inst.op not in CANCELLING or x.rt != DataType.FLOAT or \
            any(np.asarray(o).dtype != F32 for o in ops):
        return np.zeros(n, bool)
    with np.errstate(all="ignore"):
        big = np.zeros(n)
        for o in ops:
            a = np.abs(np.asarray(o, np.float64).reshape(np.shape(o)[0] if np.ndim(o) else 1,
                                                         -1))
            a = np.where(np.isfinite(a), a, 0).max(axis=1)
            big = np.maximum(big, np.broadcast_to(a, (n,)))
        r = np.abs(np.ascontiguousarray(np.broadcast_to(bits, (n, 4)), U32).view(F32)
                   .astype(np.float64))
        written = np.broadcast_to(np.array(x.inst.dst.mask, bool), (n, 4))
        hit = written & (r <= CANCELLED * big[:, None]) & (big[:, None] > 0)
    return hit.any(axis=1)


def _operand_ulps(i: int, n: int):
    """A change recomputing the instruction (the executor's own) with float operand ``i``
    moved by ``n`` units in the last place (its nonzero finite components): the operand as
    another compilation rounded it (``rounding``), where the sum cancels -- ``a - b`` of
    a == b is 0 in the executor and one ulp of a either way in cgc's GLSL."""
    def change(x, ops, bits, rows, ids):
        if i >= len(ops) or np.asarray(ops[i]).dtype != F32:
            return None
        o = np.asarray(ops[i], F32)
        moved_o = o.copy()
        for _ in range(abs(n)):
            moved_o = np.nextafter(moved_o, F32(np.inf if n > 0 else -np.inf)).astype(F32)
        keep = (o == 0) | ~np.isfinite(o)
        moved = list(ops)
        moved[i] = np.where(keep, o, moved_o).astype(F32)
        new = _result(x, moved)
        new = new[rows] if new.shape[0] > 1 else np.broadcast_to(new, (len(rows), 4))
        # only the lanes where the sum cancelled: elsewhere the result stays the executor's
        at = _cancels(x, ops, bits)[rows]
        return np.where(at[:, None], new, np.asarray(bits, U32)[rows])
    return change


#: lookups whose level of detail comes from implicit derivatives (fragment programs)
IMPLICIT_LOOKUPS = frozenset({"TEX", "TXB", "TXP"})


def _lod_levels(program, k: int, textures) -> list:
    """The explicit levels of detail ``lod`` tries at lookup ``k``: -1 (magnification), then
    each level of its texture (none for targets an explicit LOD cannot re-run: rectangles,
    cubes, shadow lookups)."""
    ins = program.instructions[k]
    if ins.op not in IMPLICIT_LOOKUPS or ins.tex is None or program.stage.value != "fragment":
        return []
    from ..exec.texture_objects import BASE_TARGET
    if BASE_TARGET.get(ins.tex.target) not in ("1D", "2D", "3D") or \
            "SHADOW" in ins.tex.target:
        return []
    tex = (textures or {}).get(ins.tex.unit)
    levels = len(getattr(tex, "levels", None) or ()) or 1
    return [-1.0] + [float(v) for v in range(levels)]


def _undefined_lod_variant(level: float):
    """``lod``: the lookup at the explicit level of detail ``level`` on the lanes whose
    implicit derivatives are not finite in the executor (a quad neighbour's coordinate is NaN
    or infinite: lambda = log2(rho) of a NaN, GL 4.5 §8.14.1 and GLSL 4.50 §4.7.1 -- and the
    neighbour's coordinate came from an operation whose value cgc's GLSL need not share);
    elsewhere the executor's lookup stays."""
    def change(x, ops, bits, rows, ids):
        from ..exec import texture_ops as tx
        from ..exec.texture_objects import _SPATIAL, BASE_TARGET
        if x.inst.op not in IMPLICIT_LOOKUPS or x.inst.tex is None or \
                np.asarray(ops[0]).dtype != F32:
            return None
        base = BASE_TARGET.get(x.inst.tex.target)
        if base not in ("1D", "2D", "3D") or x.st.textures.get(x.inst.tex.unit) is None:
            return None
        n = np.shape(bits)[0]
        with np.errstate(all="ignore"):
            dx, dy = tx._implicit_partials(x, _SPATIAL[base], x.inst.op == "TXP")
            finite = np.isfinite(dx).all(axis=1) & np.isfinite(dy).all(axis=1)
        at = ~np.broadcast_to(finite, (n,))[rows]
        if not at.any():
            return None
        c = np.array(np.broadcast_to(np.asarray(ops[0], F32), (n, 4))[rows], F32)
        with np.errstate(all="ignore"):
            if x.inst.op == "TXP":
                c = tx._project(c)
            c[:, 3] = level
            r = tx._texture(x, "TXL", c)
        r = np.ascontiguousarray(np.broadcast_to(np.asarray(r, F32), (len(rows), 4))).view(U32)
        return np.where(at[:, None], r, np.asarray(bits, U32)[rows])
    return change


def _scaled(u: np.ndarray):
    """A change multiplying a float result by (1 + u[lane])."""
    def change(x, ops, bits, rows, ids):
        if x.rt != DataType.FLOAT:
            return None
        f = np.ascontiguousarray(bits[rows], U32).view(F32).astype(np.float64)
        with np.errstate(all="ignore"):
            return (f * (1.0 + u[ids])[:, None]).astype(F32).view(U32)
    return change


def _ulps(n: int):
    """A change moving a float result by ``n`` units in the last place (toward +-Inf; every
    component; a non-finite value stays)."""
    def change(x, ops, bits, rows, ids):
        if x.rt != DataType.FLOAT:
            return None
        f = np.ascontiguousarray(bits[rows], U32).view(F32)
        for _ in range(abs(n)):
            f = np.nextafter(f, F32(np.inf if n > 0 else -np.inf)).astype(F32)
        return f.view(U32)
    return change
