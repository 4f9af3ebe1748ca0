"""Literal operands as both backends read them: the words a swizzled, negated or |abs| literal
gives, folded at translation time (the GLSL backend prints them, the direct SPIR-V backend makes
constants of them)."""
from __future__ import annotations

from ..ir.model import DataType


def negate_bits(bits: int, dtype: DataType) -> int:
    return bits ^ 0x80000000 if dtype == DataType.FLOAT else (-bits) & 0xFFFFFFFF


def abs_bits(bits: int, dtype: DataType) -> int:
    if dtype == DataType.FLOAT:
        return bits & 0x7FFFFFFF
    if dtype == DataType.INT and bits & 0x80000000:
        return (-bits) & 0xFFFFFFFF
    return bits


def literal_operand_bits(words, src, optype: DataType) -> list[int]:
    """The words a literal operand reads -- its swizzle (4: 0, 5: 1) with |abs| and negation
    applied to the bits -- shared by the GLSL and the direct SPIR-V backends."""
    out = []
    for c, neg in zip(src.swizzle, src.comp_neg):
        bits = 0 if c == 4 else (0x3F800000 if optype == DataType.FLOAT else 1) if c == 5 \
            else words[c]
        if src.abs and optype != DataType.UINT:
            bits = abs_bits(bits, optype)
        if src.neg:
            bits = negate_bits(bits, optype)
        if neg:
            bits = negate_bits(bits, optype)
        out.append(bits)
    return out
