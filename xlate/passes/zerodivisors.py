"""Float divisions by a literal zero become multiplications by the infinity of the same sign.

A float ``DIV`` whose divisor is a literal +-0 (an immediate or a constant the program gives a
value, not relatively addressed) is IEEE's ``a / +-0`` in every dialect that has it -- NV4's
DIV.F ("a / b", GP4 2.X.8.Z), TGSI's DIV (tgsi.rst: ``dst.x = src0.x / src1.x``; tgsi_exec
divides in C) -- which is, for *every* ``a``, the product ``a * +-Inf``: +-Inf for a finite
non-zero ``a``, NaN for a zero or NaN one, +-Inf for an infinite one.

The two spellings are not the same to a GLSL implementation.  GLSL 4.50 is read two ways
for ``x / 0.0``: section 4.7.1 generates infinities "as dictated by IEEE" (the reading the
verifier takes, ``verify/permits.py`` ZERO_POLES and ``_divided_by_zero``), section 5.9 says
"dividing by zero ... results in an unspecified value".  Mesa does not give the infinity for a
divisor it sees as the constant +0.0: measured on llvmpipe and lavapipe (Mesa 22.3), ``x /
0.0`` is 0.0, or the destination's old value, through the GLSL path, glslang's SPIR-V and the
direct SPIR-V alike, while the same division by a zero known only at run time, and by a
constant -0.0, gives the infinity.  A multiplication by an infinity is defined under both
readings (section 4.7.1: infinities as IEEE dictates; ``*`` is correctly rounded), so the
translation states what the program means whichever reading an implementation takes.  Found
by the TGSI tess_evaluation generator (seed 186: ``DIV TEMP[0], TEMP[1].xyzx, IMM[0]`` with
``IMM[0].x = 0``); tests/test_zero_divisors.py.

The rewrite is of the lowered tree only (the IR, which the executor runs, keeps its DIV); the
infinities are two implicit constant registers, as the structurizer adds its own constants.
"""
from __future__ import annotations

from dataclasses import is_dataclass, replace

from ..ir.literals import literal_vector
from ..ir.model import DataType, Instruction, Program, Register, RegKind, Source

#: the constant registers holding +Inf and -Inf
INFINITY = {0: "%kinf", 0x80000000: "%kninf"}


def zero_divisor_sign(program: Program, ins: Instruction) -> int | None:
    """The sign bit (0 or 0x80000000) of the literal zero ``ins`` divides by, or None when it
    is no float DIV by a literal +-0.  (DIV's divisor is a scalar: the first component of its
    swizzle, with |abs| and the negations applied to the float's sign bit.)"""
    if ins.op != "DIV" or ins.dtype != DataType.FLOAT or len(ins.srcs) != 2:
        return None
    src = ins.srcs[1]
    words = literal_vector(program, src)
    if words is None:
        return None
    c = src.swizzle[0]
    bits = 0 if c == 4 else 0x3F800000 if c == 5 else words[c]
    if src.abs:
        bits &= 0x7FFFFFFF
    for flip in (src.neg, src.comp_neg[0]):
        if flip:
            bits ^= 0x80000000
    return bits & 0x80000000 if bits & 0x7FFFFFFF == 0 else None


def _infinity(program: Program, sign: int) -> str:
    name = INFINITY[sign]
    if name not in program.registers:
        words = ((0x7F800000 | sign,) * 4,)
        program.registers[name] = Register(name, RegKind.CONST, DataType.FLOAT, None, (),
                                           words, implicit=True)
    return name


def multiply_by_infinity(program: Program, ins: Instruction) -> Instruction | None:
    """``ins`` as ``MUL.F a, +-Inf`` when it is a float DIV by a literal +-0, else None."""
    sign = zero_divisor_sign(program, ins)
    if sign is None:
        return None
    return replace(ins, op="MUL", srcs=(ins.srcs[0], Source(_infinity(program, sign))))


def rewrite_zero_divisors(structured, program: Program) -> int:
    """Rewrite every such DIV of the tree (any depth, every function) in place; the count."""
    from .structurize import Op
    # the tree's instructions are the program's (copied per call depth at most) and the
    # structurizer's own moves and counters, never a DIV: without such a DIV in the program
    # there is nothing to walk for (most programs; the walk was 8 % of the middle end)
    if not any(ins.op == "DIV" and zero_divisor_sign(program, ins) is not None
               for ins in program.instructions):
        return 0
    done = 0

    def walk(value):
        nonlocal done
        if isinstance(value, Op):
            new = multiply_by_infinity(program, value.ins)
            if new is not None:
                value.ins = new
                done += 1
        elif isinstance(value, list):
            for v in value:
                walk(v)
        elif is_dataclass(value) and not isinstance(value, Instruction):
            for name in value.__dataclass_fields__:
                v = getattr(value, name)
                if isinstance(v, (list, Op)) or is_dataclass(v):
                    walk(v)
    walk(structured.main.body)
    for fn in structured.functions.values():
        walk(fn.body)
    return done
