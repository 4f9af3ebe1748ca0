"""The carry/overflow rule of integer condition-code updates, defined once in the IR's terms.

GP4 2.X.4.3: an integer ADD, SUB, MAD or SAD that updates a condition code sets OF and CF
"by doing both signed and unsigned adds/subtracts"; "for the purposes of condition code
setting, negation modifiers turn add operations into subtracts and vice versa.  If the
operation is equivalent to an add with both operands negated (-A-B), the carry and overflow
flags are both undefined."

Every carry opcode computes ``A + B`` of two addends (as loaded: |abs| and negation applied):

    ADD a, b        A = a          B = b
    SUB a, b        A = a          B = -b       (the subtraction negates b once more)
    MAD a, b, c     A = a * b      B = c        (the product is negated when one factor is)
    SAD a, b, c     A = |a - b|    B = c

An addend is *negated* when the source modifiers negate it (B of SUB unless ``b`` carried a
``-`` too).  Then: no addend negated -- the flags of the add ``A + B`` (CCKind.ADD); exactly
one -- the flags of the subtract ``P - N`` (CCKind.SUB), ``P`` the other addend and ``N`` the
negated one's value before its negation; both -- OF/CF undefined (CCKind.UNDEF_OFCF; the
executor and the backends clear them, as for other integer results).

:func:`carry_form` gives the rule for one instruction as two :class:`Term` s over its sources;
the NV4 frontend takes the instruction's ``cc_kind`` from it, the executor (``exec/cc.py``)
computes the flags from it, and the GLSL backend prints them from it.  Two's complement negation
is exact, so ``N`` is always available as the source read without its ``-``.
"""
from __future__ import annotations

from dataclasses import dataclass

from .model import CCKind, Instruction
from .ops import CARRY_OPS


@dataclass(frozen=True)
class Term:
    """One operand of the flag computation: ``src`` (source ``srcs[0]``), ``mul`` (the product
    of ``srcs[0]`` and ``srcs[1]``), both read *without* their negation modifiers (|abs| kept),
    or ``sad`` (``|srcs[0] - srcs[1]|`` of the sources as loaded).

    Why without the negations: an addend the modifiers do not negate reads the same either way
    (a product of two negated factors too), and a negated one's value before its negation is
    what the subtraction takes -- so every case is a plain read.  SUB's ``B = -b`` is the same:
    positive when ``b`` carried a ``-`` (then ``B`` is ``b`` without it), negated otherwise
    (then its value before the negation is ``b`` itself)."""

    what: str
    srcs: tuple[int, ...]


@dataclass(frozen=True)
class CarryForm:
    """``kind`` ADD: the flags of ``first + second``; SUB: of ``first - second``;
    UNDEF_OFCF: SF/ZF of the result only (``first``/``second`` are None)."""

    kind: CCKind
    first: Term | None = None
    second: Term | None = None


def carry_form(op: str, negated: tuple[bool, ...]) -> CarryForm:
    """The carry rule of ``op`` (one of :data:`CARRY_OPS`) whose sources carry the negation
    modifiers ``negated``."""
    if op in ("ADD", "SUB"):
        a, b = Term("src", (0,)), Term("src", (1,))
        neg_a, neg_b = negated[0], negated[1] if op == "ADD" else not negated[1]
    elif op == "MAD":
        a, b = Term("mul", (0, 1)), Term("src", (2,))
        neg_a, neg_b = negated[0] != negated[1], negated[2]
    elif op == "SAD":
        a, b = Term("sad", (0, 1)), Term("src", (2,))
        neg_a, neg_b = False, negated[2]
    else:
        raise ValueError(f"{op} has no carry flags")
    if neg_a and neg_b:
        return CarryForm(CCKind.UNDEF_OFCF)
    if neg_a:
        return CarryForm(CCKind.SUB, b, a)
    if neg_b:
        return CarryForm(CCKind.SUB, a, b)
    return CarryForm(CCKind.ADD, a, b)


def instruction_carry(ins: Instruction) -> CarryForm:
    """:func:`carry_form` of an instruction (its op and its sources' negations)."""
    return carry_form(ins.op, tuple(s.neg for s in ins.srcs))
