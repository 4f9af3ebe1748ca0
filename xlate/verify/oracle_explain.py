"""Why a cgc oracle pair differs, shown by counterfactual runs of the assembly (issue 17 §4).

:mod:`oracle` runs xlate's translation of cgc's NV4 assembly and cgc's own GLSL for the same
Cg entry point on the same inputs.  cgc's GLSL has no instruction mapping to the assembly, so
its values cannot be probed per instruction; the assembly can (our executor runs it, and
``xlate verify``'s probes read every instruction's value on the implementation).  A difference
between the two programs is split in two at the executor, which runs the assembly by the specs:

1. **translation** -- xlate's translation against the executor, on the oracle's own inputs:
   where they differ, ``verify``'s replay (:mod:`replay`, :mod:`permits`) judges it per
   instruction, lane and component with its sound verdicts; a lane it cannot explain is a
   translation (or executor) defect, reported with the instruction.
2. **assembly vs cgc's GLSL** -- where the executor's output itself differs from cgc's, the
   cause lies between the assembly and cgc's GLSL.  It is localized by *counterfactual
   replays* of the executor: at one instruction ``k`` of the assembly, on the differing lanes
   only, the executor's result is replaced by a value a named cause allows (below), and the
   run goes on from there by the specs.  A lane is explained when the replay with those
   replacements -- and no others -- reproduces every compared output component of cgc's GLSL
   on that lane (within the oracle's tolerance, :func:`oracle_match.near`) and its kill status.
   Replacements are accumulated greedily in execution order: one is kept for a lane only when
   it lowers the number of that lane's differing components, and a final run with exactly the
   kept replacements confirms each explained lane.  The localized instruction of a lane is its
   first kept replacement.

The causes (each a freedom the two compilations have, with the spec passage):

* ``tie`` -- a decision on near-equal values: a comparison, a select, a rounding to an
  integer, a texel or mip-level choice (``SLT``..``SNE``, ``CMP``, ``MIN``/``MAX``,
  ``FLR``/``CEIL``/``TRUNC``/``ROUND``/``FRC``, ``TEX``..., ``KIL``), recomputed from its
  float operands moved by at most the oracle's relative tolerance :data:`oracle.REL`
  (2^-12) -- the rounding cgc's GLSL (another operation order, ``dot()``, folded constants,
  GLSL 1.10 §4.1.4 leaves float precision to the implementation) may have given them.  The
  recomputation is the executor's own instruction; only the operands move.
* ``undefined-domain`` -- an operation whose result GLSL 1.10 §8.2 (and the Cg standard
  library, which defines pow/log2/rsqrt alike) leaves undefined for the operands the lane has
  there (``pow(x, y)`` with x < 0 or x = 0 and y <= 0, ``log2(x)`` and
  ``inversesqrt(x)`` with x <= 0, division by zero: §5.9), where the assembly defines one
  (NV_gpu_program4 2.X.8: POW/LG2/RSQ/RCP/DIV of such operands): cgc's GLSL may return any
  value there, and cgc's two outputs do differ (its GLSL expands ``pow(x, 4.0)`` to
  products where the assembly has ``POW``, defined as EX2(4 * LG2(x)), NaN for x < 0).  The
  replacement is one of a fixed set (NaN, 0, +-Inf, the operation of |x|), tried at one site
  or at every site of the operation at once; everything computed from it afterwards is held
  to the specs.

* ``overflow`` -- a non-finite result from finite operands (OpenGL 1.4 §2.1.1, to which GLSL
  1.10 §4.1.4 defers, leaves overflow unspecified): +-FLT_MAX, 0 or NaN there.
* ``precision`` -- the remaining difference solved for as relative moves of the float
  results, each at most REL, shown by the run with those moves (:func:`_precision_pass`).
* ``ill-conditioned`` (counted apart: it does not reproduce cgc's value) -- a move of one
  result by :data:`ILL_CONDITIONED` relative moves every differing output component by more
  than its difference from cgc's: the output is not determined at float precision.

What no replacement explains is ``unexplained``: reported with the lane, its inputs, the
output components that still differ, and the first instruction where a replacement lowered
the difference (or the output's last writer when none did).  The pair's verdict is
``match`` / ``explained`` (every differing lane explained; the verdicts and localized
instructions listed) / ``unexplained``.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..ir.model import DataType, RegKind
from ..ir.ops import OPCODES
from .oracle_builtin import BUILTINS, BuiltinEvaluator, implementation_variant
from .oracle_match import REL, near

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
#: executor runs one pair's search may take (keeps the worst program bounded; deterministic):
#: the replacement search, then the precision solve (one run per instruction, at most)
MAX_RUNS = 80
PRECISION_RUNS = 120
#: ``rounding``: moves of a result by this many ulps, at the sites (at most ROUNDING_SITES) that
#: move the open lanes' outputs most, then up to two ulps at two of the first ROUNDING_PAIR_SITES
#: at once, within ROUNDING_RUNS more runs
ROUNDING_ULPS = (1, -1, 2, -2)
ROUNDING_SITES = 24
ROUNDING_PAIR_SITES = 6
ROUNDING_PAIR_ULPS = tuple(sorted(((a, b) for a in (1, -1, 2, -2) for b in (1, -1, 2, -2)),
                                  key=lambda p: abs(p[0]) + abs(p[1])))
ROUNDING_RUNS = 320
#: ``ill-conditioned`` also needs the move parallel to the lane's difference (cosine)
ILL_ALIGNED = 0.99
#: the move of ``ill-conditioned``: 2^-20 relative, 8 units in the last place of a float
ILL_CONDITIONED = 2.0 ** -20

VERDICTS = {
    "cgc-int-constant": "cgc defect: an integer constant in a typeless PARAM is the float it "
                        "spells (NV_gpu_program4 'Constant bindings', issue 7), read as an "
                        "integer's bits; the run with the integer cgc meant reproduces its GLSL",
    "implementation": "GLSL 1.10 §8.1-8.2 give sin/cos/exp2/log2/pow/inversesqrt no "
                      "precision (and leave some operands undefined): the value the "
                      "implementation's own built-in returns for the same operands, measured",
    "nan-operand": "GLSL 4.50 §4.7.1: an operation on a NaN need not return NaN; min()/max() "
                   "of one NaN return the other operand (IEEE 754-2008 minNum/maxNum)",
    "overflow": "OpenGL 1.4 §2.1.1 (GLSL 1.10 §4.1.4): what an overflowing operation returns is "
                "not specified",
    "precision": "each moved result within 2^-12 relative: two compilations' rounding "
                 "(GLSL 1.10 §4.1.4), amplified",
    "ill-conditioned": "an 8-ulp move of one result outweighs the difference: the output is "
                       "not determined at float precision (does not reproduce cgc's value)",
    "rounding": "one result moved by at most 2 ulps: the two compilations round one "
                "operation differently (GLSL 1.10 §4.1.4; dot() and a*b+c of another order or "
                "fused, GLSL 4.50 §4.7.1), amplified by what follows",
    "tie": "a decision on operands within 2^-12 relative of each other (GLSL 1.10 §4.1.4: "
           "float precision is the implementation's; two compilations round differently)",
    "uninitialised": "cgc defect: its GLSL reads a variable no path wrote (GLSL 1.10 §4.3: "
                     "undefined); the same GLSL with the declarations given zero reproduces "
                     "the lane",
    "undefined-domain": "GLSL 1.10 §8.2/§5.9: pow(x<0), pow(0, y<=0), log2(x<=0), "
                      "inversesqrt(x<=0), x/0 are undefined; the assembly defines them",
}


@dataclass
class LaneExplanation:
    lane: int
    verdict: str                       # tie | glsl-undefined | translation:<v> | unexplained
    instructions: list = field(default_factory=list)   # localized instructions (_ins_info)
    detail: str = ""
    inputs: dict | None = None


@dataclass
class Explanation:
    status: str = "explained"          # explained | unexplained
    lanes: int = 0                     # differing lanes
    explained: int = 0
    verdicts: dict = field(default_factory=dict)        # verdict -> lanes
    examples: list = field(default_factory=list)        # LaneExplanation (first per verdict)
    unexplained: list = field(default_factory=list)     # LaneExplanation (up to 4)
    runs: int = 0

    def to_json(self) -> dict:
        return {"status": self.status, "lanes": self.lanes, "explained": self.explained,
                "verdicts": dict(sorted(self.verdicts.items())), "runs": self.runs,
                "examples": [e.__dict__ for e in self.examples],
                "unexplained": [e.__dict__ for e in self.unexplained]}


class Counterfactual:
    """Executor result hook: at instruction k, on the lanes given, the result is replaced by
    ``change(x, ops, bits, rows, ids) -> bits`` (rows: positions of those lanes in the
    selection, ids: their lane numbers)."""

    def __init__(self, changes: dict[int, list]):
        self.changes = changes            # k -> [(lane mask (lanes,), change)]
        self.instructions = sorted(changes)
        self.touched: dict[int, set] = {}  # k -> lanes whose value a change altered

    def __call__(self, x, st, idx, ops, bits, cmask):
        sel = st.all_lanes if idx is None else np.asarray(idx)
        lanes = st.base + sel
        out = None
        for mask, change in self.changes.get(x.index, ()):
            rows = np.flatnonzero(mask[lanes])
            if rows.size == 0:
                continue
            if out is None:
                out = np.array(np.broadcast_to(bits, (len(lanes), 4)), U32)
            new = change(x, ops, out, rows, lanes[rows])
            if new is not None:
                new = np.asarray(new, U32)
                altered = (new != out[rows]).any(axis=1)
                if altered.any():
                    self.touched.setdefault(x.index, set()).update(
                        int(v) for v in lanes[rows][altered])
                out[rows] = new
        return (bits if out is None else out), cmask

    def before_flow(self, x, st, sel):
        pass

    def kill_decision(self, x, st, sel, kill, operand):
        return kill


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


def explain(run, runner=None, compat=None, twin=None) -> Explanation:
    """Explain a differing pair from its :class:`oracle.PairRun` (see the module docstring).
    ``compat``: the :class:`oracle.CompatRunner` that ran cgc's GLSL; with it, the
    ``implementation`` replacement measures the built-ins there (:mod:`oracle_builtin`).
    ``twin``: the PairRun of cgc's GLSL with its declarations initialised
    (:mod:`oracle_uninit`): a differing lane it reproduces is ``uninitialised``; the others
    are judged against its outputs."""
    import copy
    original = run
    from .core import executor_output, output_elements, run_executor, describe_inputs
    from .trace import _ins_info, execution_order
    program, gen, lanes = run.program, run.gen, run.lanes
    elems = output_elements(program)
    cgc_killed = run.killed
    xl_killed = getattr(run.cap, "killed", None)

    def outputs_of(res):
        got = {}
        for b, name, comps in run.compared:
            el = elems.get(b) or elems.get(b + "[0]") or elems.get(b.replace("[0]", ""))
            if el is None:
                continue
            got[b] = executor_output(program, run.facts, res.outputs, b, el)[0]
        return got

    def theirs(b):
        return run.theirs.get(b) if b in run.theirs else run.theirs.get(b + "[0]")

    def differing(words_of, killed, vs_cgc=True) -> np.ndarray:
        """(lanes,) count of compared components that differ (kill status counts one)."""
        n = np.zeros(lanes, np.int64)
        live = np.ones(lanes, bool)
        if cgc_killed is not None and killed is not None:
            n += (cgc_killed != killed)
            live = ~(cgc_killed | killed)
        for b, name, comps in run.compared:
            mine = words_of.get(b)
            other = theirs(b)
            if mine is None or other is None:
                continue
            for c in comps:
                n += live & ~near(mine[:, c], other[:, c])
        return n

    ex = Explanation()
    base = run_executor(program, gen, lanes)
    ex.runs += 1
    exe_out = outputs_of(base)
    exe_killed = getattr(base, "killed", None)
    xl_out = {b: run.cap.outputs[name] for b, name, _ in run.compared
              if name in run.cap.outputs}
    d_xl = differing(xl_out, xl_killed)
    d_exe = differing(exe_out, exe_killed)
    bad_lanes = np.flatnonzero(d_xl > 0)
    ex.lanes = int(bad_lanes.size)
    result: dict[int, LaneExplanation] = {}
    if twin is not None:
        # the lanes cgc's initialised twin reproduces read an undefined value in cgc's GLSL
        run = copy.copy(original)
        run.theirs, run.killed = twin.theirs, twin.killed
        cgc_killed = run.killed
        d_twin = differing(xl_out, xl_killed)
        for ln in bad_lanes:
            if d_twin[ln] == 0:
                result[int(ln)] = LaneExplanation(
                    int(ln), "uninitialised", [],
                    "cgc's GLSL with its uninitialised declarations given zero reproduces "
                    "xlate's outputs on this lane")
        bad_lanes = np.array([ln for ln in bad_lanes if d_twin[ln] > 0], np.int64)
        d_xl, d_exe = d_twin, differing(exe_out, exe_killed)

    # 1. lanes where the executor agrees with cgc: the translation departs from the executor.
    # Lanes where both differ from cgc and the translation also departs from the executor
    # are judged here too: a departure verify cannot explain is the lane's verdict
    d_xe = np.zeros(lanes, bool)
    for b, name, comps in run.compared:
        if b in xl_out and b in exe_out:
            for c in comps:
                d_xe |= ~near(xl_out[b][:, c], exe_out[b][:, c])
    trans = [int(ln) for ln in bad_lanes if d_exe[ln] == 0]
    both = [int(ln) for ln in bad_lanes if d_exe[ln] > 0 and d_xe[ln]]
    if trans or both:
        for ln, le in _judge_translation(run, runner, trans + both).items():
            if ln in trans or le.verdict == "unexplained":
                result[ln] = le

    # 2. lanes where the assembly (executor) differs from cgc's GLSL: counterfactual search,
    # run on those lanes only (whole quads of fragments: derivatives read the neighbours)
    todo_full = np.zeros(lanes, bool)
    todo_full[[int(ln) for ln in bad_lanes if d_exe[ln] > 0]] = True
    if todo_full.any():
        group = 4 if program.stage.value == "fragment" else 1
        quads = np.unique(np.flatnonzero(todo_full) // group)
        pick = (quads[:, None] * group + np.arange(group)[None, :]).reshape(-1)
        full_lanes = lanes
        gen, lanes, run = _subset(gen, run, pick, full_lanes)
        cgc_killed = run.killed
        d_exe = d_exe[pick]
        todo = todo_full[pick]
        order = execution_order(program)
        kept: dict[int, list] = {}                # k -> [(mask, change)]
        lane_changes: dict[int, list] = {}        # lane -> [(k, verdict)]
        current = d_exe.copy()
        first_help: dict[int, int] = {}
        state = {"todo": todo, "ill": {}}

        def trial(extra: dict[int, list]):
            merged = {k: list(v) for k, v in kept.items()}
            for k, v in extra.items():
                merged.setdefault(k, []).extend(v)
            hook = Counterfactual(merged)
            res = run_executor(program, gen, lanes, hooks=hook)
            ex.runs += 1
            words = outputs_of(res)
            state["touched"] = hook.touched
            return differing(words, getattr(res, "killed", None)), words

        def keep(extra: dict[int, list], d: np.ndarray, verdict: str,
                 weight: dict | None = None, whole: bool = False) -> None:
            """Keep ``extra``'s replacements on the lanes where they lower the count
            (``weight``: site -> (lanes,) size of its move; a lane names its largest;
            ``whole``: only on the lanes they reproduce entirely)."""
            nonlocal current
            better = state["todo"] & (d < current)
            if whole:
                better &= d == 0
            if not better.any():
                return
            for k, v in extra.items():
                for mask, change in v:
                    if (mask & better).any():
                        kept.setdefault(k, []).append((mask & better, change))
            for ln in np.flatnonzero(better):
                touched = state.get("touched", {})
                ks = [k for k, v in extra.items() if any(mask[ln] for mask, _ in v)
                      and int(ln) in touched.get(k, ())]
                if weight is not None:
                    ks = sorted((k for k in ks if weight[k][ln] > 0),
                                key=lambda k: -weight[k][ln])[:4]
                for k in ks:
                    lane_changes.setdefault(int(ln), []).append((k, verdict))
                    first_help.setdefault(int(ln), k)
            current = np.where(better, d, current)
            state["todo"] = state["todo"] & (current > 0)

        def budget(limit: int) -> bool:
            return bool(state["todo"].any()) and ex.runs < limit

        # a formula cgc's GLSL uses at every site alike (pow(x, 4.0) expanded to products
        # where the assembly has POW; an overflow to Inf it does not reach): one replacement
        # kind at every site at once, before the one-site search (a lane with four such POWs
        # improves only when all four change)
        # first the implementation's own built-ins at their sites (sin() of a hash argument,
        # pow() of a negative: a measured value, see oracle_builtin)
        evaluate = BuiltinEvaluator(compat) if compat is not None else None

        def variants_of(x, verdict):
            if verdict == "implementation":
                return [implementation_variant(evaluate)] if x.inst.op in BUILTINS else []
            return _undefined_variants(x, verdict, program)

        passes = ((("implementation", frozenset(BUILTINS)),) if evaluate is not None else ()) \
            + (("undefined-domain", UNDEFINED_DOMAIN), ("overflow", None),
               ("nan-operand", NAN_SELECTS))
        for verdict, ops_ in passes:
            sites = [k for k in order if program.instructions[k].dst is not None
                     and (ops_ is None or program.instructions[k].op in ops_)
                     and (_float_result(program, k) or (ops_ is not None and
                                                        _int_domain_site(program, k)))]
            if not sites:
                continue
            compiled = {k: _compiled(program, k) for k in sites}
            variants = {k: variants_of(compiled[k], verdict) for k in sites}
            for j in range(max(len(v) for v in variants.values())):
                if not budget(MAX_RUNS):
                    break
                extra = {k: [(state["todo"].copy(), variants[k][j])] for k in sites
                         if j < len(variants[k])}
                d, _ = trial(extra)
                # the measured built-ins change every lane a little: kept only where they
                # reproduce cgc entirely, so that they do not stand in another cause's way
                keep(extra, d, verdict, whole=verdict == "implementation")
            # then each operation's sites alike, the others held to the specs (easymode-
            # halation: every int() of a NaN gives 0x80000000, every pow() of a negative NaN,
            # while its inversesqrt()s keep the assembly's value)
            groups: dict[str, list[int]] = {}
            for k in sites:
                if variants[k]:
                    groups.setdefault(program.instructions[k].op, []).append(k)
            for op_, ks in sorted(groups.items()):
                if len(groups) < 2:
                    break
                for j in range(max(len(variants[k]) for k in ks)):
                    if not budget(MAX_RUNS):
                        break
                    extra = {k: [(state["todo"].copy(), variants[k][j])] for k in ks
                             if j < len(variants[k])}
                    d, _ = trial(extra)
                    keep(extra, d, verdict, whole=verdict == "implementation")
        # cgc's integer constants in typeless PARAM declarations: NV_gpu_program4 (issue 7,
        # "Constant bindings") makes ``PARAM c[1] = { {4} };`` the float 4.0, which an integer
        # instruction (ADD.S R2.x, R1.w, c[0]) reads as the integer 0x40800000; cgc meant 4.
        # Shown by the run where those reads take the integer cgc meant
        sites = _int_constant_sites(program)
        if sites and budget(MAX_RUNS):
            extra = {k: [(state["todo"].copy(), _int_constant_variant(ops_))]
                     for k, ops_ in sites.items()}
            d, _ = trial(extra)
            keep(extra, d, "cgc-int-constant")
        # one site at a time, in execution order
        for k in order:
            if not budget(MAX_RUNS):
                break
            ins = program.instructions[k]
            info = OPCODES.get(ins.op)
            if ins.dst is None or info is None or not info.writes:
                continue
            reg = program.registers.get(ins.dst.reg)
            if reg is None or reg.kind not in (RegKind.TEMP, RegKind.OUTPUT):
                continue
            kinds = []
            if ins.op in DECISIONS:
                kinds.append("tie")
            if ins.op in UNDEFINED_DOMAIN:
                kinds.append("undefined-domain")
            if not kinds:
                continue
            x = _compiled(program, k)
            for verdict in kinds:
                variants = _tie_variants(x) if verdict == "tie" else \
                    _undefined_variants(x, verdict, program)
                for change in variants:
                    if not budget(MAX_RUNS):
                        break
                    extra = {k: [(state["todo"].copy(), change)]}
                    d, _ = trial(extra)
                    keep(extra, d, verdict)
        # precision: every float result moved by at most REL relative, the moves solved for
        if budget(MAX_RUNS + PRECISION_RUNS):
            _precision_pass(program, order, state, trial, keep, vec_of=lambda w: _vec(
                w, run.compared), target=_vec({b: theirs(b) for b, _, _ in run.compared},
                                              run.compared),
                limit=MAX_RUNS + PRECISION_RUNS, ex=ex,
                builtins={k: implementation_variant(evaluate) for k in order
                          if program.instructions[k].op in BUILTINS and
                          _float_result(program, k)} if evaluate is not None else {})
        sub_out = outputs_of(run_executor(program, gen, lanes))
        ex.runs += 1
        # the confirming run: exactly the kept replacements
        if kept:
            res = run_executor(program, gen, lanes, hooks=Counterfactual(kept))
            ex.runs += 1
            final = differing(outputs_of(res), getattr(res, "killed", None))
        else:
            final = d_exe
        for r_i, ln in enumerate(pick):
            ln = int(ln)
            if ln in result or not todo_full[ln]:
                continue
            chs = lane_changes.get(r_i, [])
            if final[r_i] == 0 and chs:
                verdicts = sorted({v for _, v in chs})
                ks = list(dict.fromkeys(k for k, _ in chs))
                result[ln] = LaneExplanation(
                    ln, "+".join(verdicts), [_ins_info(program, k) for k in ks[:4]],
                    f"{len(chs)} replacement(s); the replay reproduces cgc's outputs")
            elif r_i in state["ill"] and not chs:
                k = state["ill"][r_i]
                result[ln] = LaneExplanation(
                    ln, "ill-conditioned", [_ins_info(program, k)],
                    "a move of this result by 2^-20 relative moves every differing output "
                    "component by more than its difference from cgc's",
                    describe_inputs(gen, r_i))
            else:
                k = first_help.get(r_i)
                where = [_ins_info(program, k)] if k is not None else []
                result[ln] = LaneExplanation(
                    ln, "unexplained", where,
                    _lane_values(run, sub_out, r_i, theirs),
                    describe_inputs(gen, r_i))
    for ln in sorted(result):
        le = result[ln]
        if le.verdict == "unexplained":
            if len(ex.unexplained) < 4:
                ex.unexplained.append(le)
            continue
        ex.explained += 1
        if le.verdict not in ex.verdicts:
            ex.examples.append(le)
        ex.verdicts[le.verdict] = ex.verdicts.get(le.verdict, 0) + 1
    ex.verdicts = {v: n for v, n in ex.verdicts.items()}
    unexplained = sum(le.verdict == "unexplained" for le in result.values())
    if unexplained:
        ex.verdicts["unexplained"] = unexplained
    ex.status = "unexplained" if unexplained else "explained"
    return ex


def _float_result(program, k: int) -> bool:
    ins = program.instructions[k]
    reg = program.registers.get(ins.dst.reg) if ins.dst is not None else None
    info = OPCODES.get(ins.op)
    return reg is not None and reg.kind in (RegKind.TEMP, RegKind.OUTPUT) and \
        info is not None and info.writes and ins.dtype in (DataType.FLOAT, DataType.NONE) \
        and ins.op not in ("TXQ", "KIL")


def _vec(words_of: dict, compared) -> np.ndarray:
    """(lanes, m) float64 of every compared output component (denormals flushed)."""
    from . import compare as cmp
    cols = []
    for b, _, comps in compared:
        w = words_of.get(b)
        if w is None:
            continue
        for c in comps:
            cols.append(cmp.flush(np.ascontiguousarray(w[:, c])).view(F32).astype(np.float64))
    return np.stack(cols, axis=1) if cols else np.zeros((0, 0))


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


def _parallel(move: np.ndarray, gap: np.ndarray) -> bool:
    """The move of a lane's compared components (all of them, the agreeing ones too) points
    along its difference from cgc (cosine >= ILL_ALIGNED, either sign): one result that the
    output is chaotic in moves the components together, so a difference of one component
    alone (the others agreeing), or of components in other proportions, is not its doing."""
    ok = np.isfinite(move) & np.isfinite(gap)
    if not ok.all():
        return False
    nm, ng = np.linalg.norm(move), np.linalg.norm(gap)
    return bool(nm > 0 and ng > 0 and abs(float(move @ gap)) >= ILL_ALIGNED * nm * ng)


def _precision_pass(program, order, state, trial, keep, vec_of, target, limit, ex,
                    builtins=None) -> None:
    """``precision``: the differences a lane still has are solved for as moves of the float
    results of the instructions (each by a relative u_k, one per instruction and lane): a
    finite-difference Jacobian of the compared outputs in each u_k, the least-norm solution of
    J u = cgc - assembly, accepted when every |u_k| <= REL (a value the oracle itself could
    not tell from the executor's), and shown by the run with exactly those moves (up to three
    Newton steps on the same Jacobian)."""
    sites = [k for k in order if _float_result(program, k)]
    room = limit - ex.runs - 3
    if room <= 0:
        return
    sites = sites[-room:]
    lanes = state["todo"].shape[0]
    _, base = trial({})
    o0 = vec_of(base)
    h = ILL_CONDITIONED       # small: ill-conditioned lanes leave the linear regime early
    jac = np.zeros(o0.shape + (len(sites),))
    mask = state["todo"].copy()
    for j, k in enumerate(sites):
        _, w = trial({k: [(mask, _scaled(np.full(lanes, h)))]})
        with np.errstate(all="ignore"):
            jac[:, :, j] = (vec_of(w) - o0) / h
    moved = jac * h                              # each site's move of each output
    u = np.zeros((lanes, len(sites)))
    cur = o0
    for _ in range(3):
        ok = np.zeros(lanes, bool)
        for ln in np.flatnonzero(state["todo"] & mask):
            r = target[ln] - cur[ln]
            a = jac[ln]
            rows = np.isfinite(r) & np.all(np.isfinite(a), axis=1)
            if not rows.any() or not np.all(np.isfinite(target[ln])):
                continue
            sol = np.linalg.lstsq(a[rows], r[rows], rcond=None)[0]
            u[ln] += sol
            ok[ln] = np.max(np.abs(u[ln])) <= REL
        if not ok.any():
            break
        extra = {k: [(ok.copy(), _scaled(u[:, j].copy()))] for j, k in enumerate(sites)
                 if np.any(u[ok, j] != 0)}
        d, w = trial(extra)
        keep(extra, d, "precision",
             {k: np.abs(u[:, j] * np.nan_to_num(np.abs(jac[:, :, j])).max(axis=1))
              for j, k in enumerate(sites)})
        cur = vec_of(w)
        if not state["todo"].any():
            return
    # rounding: a lane no solve reproduced may be chaotic in one result (a hash's argument:
    # fract(sin(x) * 43758.5) moves by 0.2 when x moves by one ulp), so moves of a few ulps
    # at the sites that move its outputs most, one site at a time
    open_ = np.flatnonzero(state["todo"] & mask)
    if open_.size and ex.runs < limit + ROUNDING_RUNS:
        size = np.nan_to_num(np.abs(moved[open_])).max(axis=1).max(axis=0)
        top = [int(j) for j in np.argsort(-size, kind="stable")[:ROUNDING_SITES] if size[j] > 0]
        for j in top:
            for n in ROUNDING_ULPS:
                if not (state["todo"] & mask).any() or ex.runs >= limit + ROUNDING_RUNS:
                    break
                extra = {sites[j]: [((state["todo"] & mask).copy(), _ulps(n))]}
                d, _ = trial(extra)
                keep(extra, d, "rounding")
        # two sites at once, one ulp each, with the implementation's own built-ins
        # (``builtins``: site -> change) at their sites: the hash's argument and the sin() of
        # it both differ (noise-mudlord)
        pairs_ = [(a, b) for i, a in enumerate(top[:ROUNDING_PAIR_SITES])
                  for b in top[i + 1:ROUNDING_PAIR_SITES]]
        combos = []
        if builtins:                  # the built-ins alone, and with one site moved
            combos += [((), ())] + [((a,), (n,)) for a in top[:ROUNDING_PAIR_SITES]
                                     for n in ROUNDING_ULPS]
        combos += [((a, b), ns) for a, b in pairs_ for ns in ROUNDING_PAIR_ULPS]
        for at, ns in combos:
            live = (state["todo"] & mask).copy()
            if not live.any() or ex.runs >= limit + ROUNDING_RUNS:
                break
            if at or builtins:
                extra = {k: [(live, ch)] for k, ch in (builtins or {}).items()}
                for j, n in zip(at, ns):
                    extra.setdefault(sites[j], []).append((live, _ulps(n)))
                d, _ = trial(extra)
                keep(extra, d, "rounding" if at else "implementation")
        if not state["todo"].any():
            return
    # ill-conditioned: a lane no solve reproduced, where a move of one result by 2^-20
    # relative moves every differing output component by at least its difference from cgc
    with np.errstate(all="ignore"):
        gap = np.abs(target - o0)
        differs = ~np.isclose(target, o0, rtol=REL, atol=0) & np.isfinite(o0) & \
            np.isfinite(target)

    def judge(moves, order_):
        for ln in np.flatnonzero(state["todo"] & mask):
            cols = differs[ln]
            if ln in state["ill"] or not cols.any() or not np.isfinite(o0[ln]).all():
                continue
            g = target[ln] - o0[ln]
            for j in order_:
                mv = np.abs(moves[ln, cols, j])
                if np.all(np.isfinite(mv) & (mv >= gap[ln, cols])) and \
                        _parallel(moves[ln, :, j], g):
                    state["ill"][ln] = sites[j]
                    break

    judge(moved, range(len(sites)))
    # a chaotic output moves either way: the same move downwards, at the sites that moved
    # the lanes still open the most (at most 16 more runs)
    left = [ln for ln in np.flatnonzero(state["todo"] & mask) if ln not in state["ill"]]
    if left and ex.runs < limit:
        size = np.nan_to_num(np.abs(moved[left])).max(axis=1).max(axis=0)
        top = [int(j) for j in np.argsort(-size)[:min(16, max(0, limit - ex.runs))]
               if size[j] > 0]
        down = np.full_like(moved, np.nan)
        for j in top:
            _, w = trial({sites[j]: [(mask, _scaled(np.full(lanes, -h)))]})
            with np.errstate(all="ignore"):
                down[:, :, j] = vec_of(w) - o0
        judge(down, top)


def _subset(gen, run, pick: np.ndarray, lanes: int):
    """The generated inputs and the pair's cgc outputs on the lanes ``pick`` only."""
    import copy
    sub = copy.copy(gen)
    sub.inputs = {k: (v[pick] if np.shape(v)[:1] == (lanes,) else v)
                  for k, v in gen.inputs.items()}
    sub.lanes = len(pick)
    r = copy.copy(run)
    r.theirs = {k: v[pick] for k, v in run.theirs.items()}
    r.killed = None if run.killed is None else run.killed[pick]
    r.lanes = len(pick)
    return sub, len(pick), r


def _lane_values(run, exe_out, ln, theirs) -> str:
    parts = []
    for b, name, comps in run.compared:
        mine, other = exe_out.get(b), theirs(b)
        if mine is None or other is None:
            continue
        for c in comps:
            if not near(mine[ln:ln + 1, c], other[ln:ln + 1, c])[0]:
                e = float(mine[ln:ln + 1, c].view(F32)[0])
                g = float(other[ln:ln + 1, c].view(F32)[0])
                parts.append(f"{b}.{'xyzw'[c]}: assembly {e!r}, cgc {g!r}")
    return "; ".join(parts[:4])


def _compiled(program, k):
    from ..exec.machine import compile_program
    code, _ = compile_program(program)
    return code[k]


def _judge_translation(run, runner, lanes_: list[int]) -> dict[int, LaneExplanation]:
    """``verify``'s replay of xlate's translation against the executor, on the oracle's inputs:
    the lanes it explains get ``translation:<verdicts>``, the others ``unexplained`` with the
    departure's instruction."""
    from .core import describe_inputs
    from .replay import replay
    from .trace import _ins_info
    out = {}
    try:
        rr = replay(run.program, run.facts, run.out.reflection, run.gen, run.cap, runner,
                    run.lanes, "gl")
    except Exception as e:            # noqa: BLE001 -- reported, not hidden: the lane stays open
        for ln in lanes_:
            out[ln] = LaneExplanation(ln, "unexplained", [], f"replay failed: {e}",
                                      describe_inputs(run.gen, ln))
        return out
    bad = {d.lane: d for d in rr.hook.unexplained}
    left = {d.lane for d in rr.diffs}
    verdicts = sorted({v for (_, v) in rr.hook.adopted})
    for ln in lanes_:
        if ln in bad:
            dep = bad[ln]
            out[ln] = LaneExplanation(ln, "unexplained", [_ins_info(run.program, dep.index)],
                                      f"translation departs from the executor: "
                                      f"{dep.executor} vs {dep.implementation}",
                                      describe_inputs(run.gen, ln))
        elif ln in left:
            out[ln] = LaneExplanation(ln, "unexplained", [], "translation differs from the "
                                      "executor with no departure found (interface)",
                                      describe_inputs(run.gen, ln))
        else:
            out[ln] = LaneExplanation(ln, "translation:" + "+".join(verdicts or ["exact"]), [],
                                      "verify's replay reproduces xlate's outputs")
    return out
