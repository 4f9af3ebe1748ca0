"""Condition codes: flag generation and the Table X.16 tests.

NV4 model (GP4 §2.X.3.7, §2.X.4.3): two registers CC0/CC1, four components each, every
component a set of four flags.  Stored per lane as ``uint8`` arrays of shape (2, lanes, 4)
with the bits below.  The older single-CC dialects map onto the same bits (digest §6.5), so the
executor needs one model only.
"""
from __future__ import annotations

import numpy as np

from ..ir.model import CCKind, DataType, Instruction

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
# Carry/overflow for ADD, SUB, MAD, SAD (GP4 §2.X.4.3 last paragraphs; digest §6.2, §12.27)
#
# Every carry op computes r = A + B (mod 2^32) for two "addends" A and B:
#   ADD x, y        A = x,      B = y
#   SUB x, y        A = x,      B = -y
#   MAD x, y, z     A = x*y,    B = z           (the final addition of product and z)
#   SAD x, y, z     A = |x-y|,  B = z           (the final addition)
# where x, y, z are the operands as loaded (after |abs| and negation).  An addend is
# "negated" when the source modifiers negate it (for SUB the subtraction itself negates y, so
# B counts as negated unless y carried a '-' as well; for MAD the product is negated when
# exactly one of x, y is).
#   cc_kind ADD:        flags of the unsigned/signed addition A + B.
#   cc_kind SUB:        flags of the subtraction  minuend - subtrahend, where the subtrahend is
#                       the un-negated value of the negated addend: if B is negated it is
#                       A - (-B), else if A is negated B - (-A), else A - (-B).  For
#                       "ADD a, -b" that is a - b with b the loaded value before the '-'
#                       (two's complement negation is an involution, so -B is exactly it).
#   cc_kind UNDEF_OFCF: -a + -b: OF/CF undefined; project choice: cleared (like INT).
# --------------------------------------------------------------------------------------------


def addends(inst: Instruction, ops: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray, bool, bool]:
    """(A, B, A negated, B negated) as uint32 arrays with result == A + B (see above)."""
    u = [o.view(np.uint32) if o.dtype != np.uint32 else o for o in ops]
    neg = [s.neg for s in inst.srcs]
    name = inst.op
    if name == "ADD":
        return u[0], u[1], neg[0], neg[1]
    if name == "SUB":
        return u[0], np.negative(u[1]), neg[0], not neg[1]
    if name == "MAD":
        return u[0] * u[1], u[2], neg[0] != neg[1], neg[2]
    if name == "SAD":
        x, y = ops[0], ops[1]
        d = np.abs(x.astype(np.int64) - y.astype(np.int64)).astype(np.uint32)
        return d, u[2], False, neg[2]
    raise ValueError(f"{name} has no carry flags")


def carry_flags(inst: Instruction, kind: CCKind, ops: list[np.ndarray],
                result: np.ndarray) -> np.ndarray:
    a, b, neg_a, neg_b = addends(inst, ops)
    if kind == CCKind.ADD:
        return flags_add(a, b, result)
    # kind SUB: the subtrahend is the un-negated value of the negated addend
    if neg_a and not neg_b:
        m, s = b, np.negative(a)
    else:
        m, s = a, np.negative(b)
    return flags_sub(m, s, result)


def default_kind(inst: Instruction, rtype: DataType) -> CCKind:
    """The flag rule when the frontend left ``cc_kind`` unset (same choice a frontend makes)."""
    if rtype == DataType.FLOAT:
        return CCKind.FLOAT
    if inst.op not in ("ADD", "SUB", "MAD", "SAD"):
        return CCKind.INT
    negs = [s.neg for s in inst.srcs]
    if inst.op == "SUB":
        na, nb = negs[0], not negs[1]
    elif inst.op == "MAD":
        na, nb = negs[0] != negs[1], negs[2]
    elif inst.op == "SAD":
        na, nb = False, negs[2]
    else:
        na, nb = negs[0], negs[1]
    if na and nb:
        return CCKind.UNDEF_OFCF
    return CCKind.SUB if (na or nb) else CCKind.ADD


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
