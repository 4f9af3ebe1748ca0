"""Condition codes: flag generation and the Table X.16 tests.

NV4 model (GP4 §2.X.3.7, §2.X.4.3): two registers CC0/CC1, four components each, every
component a set of four flags.  Stored per lane as ``uint8`` arrays of shape (2, lanes, 4)
with the bits below.  The older single-CC dialects map onto the same bits (digest §6.5), so the
executor needs one model only.
"""
from __future__ import annotations

import numpy as np

from ..ir.carry import Term, instruction_carry
from ..ir.model import CCKind, DataType, Instruction
from ..ir.ops import CARRY_OPS

SF, ZF, OF, CF = 1, 2, 4, 8

#: initial value of every CC component on every lane: "EQ" (ZF only).  GP4 §2.X.3.7 says the
#: value is undefined at program start; digest §6.2 / §6.5: initialise to EQ for determinism.
CC_INIT = ZF

_U8 = np.uint8


def flags_float(r: np.ndarray) -> np.ndarray:
    """GP4 §2.X.4.3: float results: SF = r < 0 or NaN, ZF = r == 0 or NaN; OF = CF = 0
    (OF/CF are unspecified for float results; project choice: cleared, digest §12 item 27)."""
    nan = np.isnan(r)
    sf = (r < 0) | nan
    zf = (r == 0) | nan
    return (sf.astype(_U8) * SF) | (zf.astype(_U8) * ZF)


def flags_int(u: np.ndarray) -> np.ndarray:
    """GP4 §2.X.4.3: integer results: SF = most significant bit, ZF = (r == 0); OF = CF = 0."""
    sf = (u >> np.uint32(31)).astype(_U8)
    zf = (u == 0).astype(_U8)
    return sf * SF | zf * ZF


def flags_add(a: np.ndarray, b: np.ndarray, r: np.ndarray) -> np.ndarray:
    """GP4 §2.X.4.3, integer add r = a + b (uint32 words): OF = signed overflow,
    CF = unsigned carry out."""
    of = (((a ^ r) & (b ^ r)) >> np.uint32(31)).astype(_U8)
    cf = (r < a).astype(_U8)
    return flags_int(r) | of * OF | cf * CF


def flags_sub(a: np.ndarray, b: np.ndarray, r: np.ndarray) -> np.ndarray:
    """GP4 §2.X.4.3, integer subtract r = a - b: OF = signed overflow; CF is set iff the
    unsigned difference is >= 0, i.e. a >= b unsigned (no borrow; digest §6.2)."""
    of = (((a ^ b) & (a ^ r)) >> np.uint32(31)).astype(_U8)
    cf = (a >= b).astype(_U8)
    return flags_int(r) | of * OF | cf * CF


# --------------------------------------------------------------------------------------------
# Carry/overflow for ADD, SUB, MAD, SAD (GP4 2.X.4.3): the rule is ir/carry.py's, computed here
# from the operands as loaded (a source read without its '-' is the loaded word negated back:
# two's complement negation is exact).  UNDEF_OFCF (-a + -b): OF/CF undefined; project choice:
# cleared (like INT).
# --------------------------------------------------------------------------------------------


def _term(t: Term, inst: Instruction, ops: list[np.ndarray]) -> np.ndarray:
    """The uint32 words of one term of the carry rule (ir/carry.py)."""
    def plain(i: int) -> np.ndarray:
        u = ops[i].view(np.uint32) if ops[i].dtype != np.uint32 else ops[i]
        return np.negative(u) if inst.srcs[i].neg else u
    if t.what == "src":
        return plain(t.srcs[0])
    if t.what == "mul":
        return plain(t.srcs[0]) * plain(t.srcs[1])
    if t.what == "sad":
        x, y = ops[t.srcs[0]], ops[t.srcs[1]]
        return np.abs(x.astype(np.int64) - y.astype(np.int64)).astype(np.uint32)
    raise ValueError(f"carry term {t.what!r}")


def carry_flags(inst: Instruction, kind: CCKind, ops: list[np.ndarray],
                result: np.ndarray) -> np.ndarray:
    form = instruction_carry(inst)
    if form.kind != kind:
        # the IR validator checks this too: a frontend's cc_kind is the rule's
        raise ValueError(f"{inst.op}: flag rule {kind.value} is not the carry rule's "
                         f"{form.kind.value} for these negations")
    first, second = _term(form.first, inst, ops), _term(form.second, inst, ops)
    if kind == CCKind.ADD:
        return flags_add(first, second, result)
    return flags_sub(first, second, result)


def default_kind(inst: Instruction, rtype: DataType) -> CCKind:
    """The flag rule when the frontend left ``cc_kind`` unset (same choice a frontend makes)."""
    if rtype == DataType.FLOAT:
        return CCKind.FLOAT
    if inst.op not in CARRY_OPS:
        return CCKind.INT
    return instruction_carry(inst).kind


# --------------------------------------------------------------------------------------------
# Tests: GP4 Table X.16 (§2.X.4.3)
# --------------------------------------------------------------------------------------------

def _b(f, bit):
    return (f & bit) != 0


def _eq(f):   # !SF && ZF
    return ~_b(f, SF) & _b(f, ZF)


def _ne(f):   # SF || !ZF
    return _b(f, SF) | ~_b(f, ZF)


def _ge(f):   # !(SF ^ OF)
    return ~(_b(f, SF) ^ _b(f, OF))


def _gt(f):   # (!SF ^ OF) && !ZF
    return (~_b(f, SF) ^ _b(f, OF)) & ~_b(f, ZF)


def _le(f):   # SF ^ (ZF || OF)
    return _b(f, SF) ^ (_b(f, ZF) | _b(f, OF))


def _lt(f):   # (SF && !ZF) ^ OF
    return (_b(f, SF) & ~_b(f, ZF)) ^ _b(f, OF)


TESTS = {
    "EQ": _eq,
    "NE": _ne,
    "GE": _ge,
    "GT": _gt,
    "LE": _le,
    "LT": _lt,
    "TR": lambda f: np.ones(f.shape, bool),
    "FL": lambda f: np.zeros(f.shape, bool),
    "NAN": lambda f: _b(f, SF) & _b(f, ZF),           # SF && ZF
    "LEG": lambda f: ~_b(f, SF) | ~_b(f, ZF),         # !SF || !ZF
    "CF": lambda f: _b(f, CF),
    "NCF": lambda f: ~_b(f, CF),
    "OF": lambda f: _b(f, OF),
    "NOF": lambda f: ~_b(f, OF),
    "SF": lambda f: _b(f, SF),
    "NSF": lambda f: ~_b(f, SF),
    "AB": lambda f: _b(f, CF) & ~_b(f, ZF),           # CF && !ZF
    "BLE": lambda f: ~_b(f, CF) | _b(f, ZF),          # !CF || ZF
}


def test(rule: str, flags: np.ndarray) -> np.ndarray:
    """Evaluate a Table X.16 rule on flag words (any shape) -> bool array."""
    try:
        fn = TESTS[rule]
    except KeyError:
        raise ValueError(f"unknown condition-code rule {rule!r}") from None
    return fn(flags)
