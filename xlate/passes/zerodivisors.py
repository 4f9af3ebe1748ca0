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

A literal divisor may also reach the DIV through a temporary: ``SCS R3, a`` writes R3.zw =
0.0 (the project's choice for SCS's undefined z and w, exec/alu.py), ``MOV R3.w, 0.0`` a zero,
and Mesa's own propagation then sees ``R4 / R3.w`` as a division by the constant +0.0 --
generated NV4 vertex seed 2202 (inputs seed 2200): ``DIV.F.SSAT R4, R4, R3.w`` after an SCS,
llvmpipe's quotient 0.0 where the executor's +Inf saturates to 1.0.  So the divisor's words
are followed through the tree's temporaries (:class:`LiteralTemporaries`): what an
unconditional MOV of a literal, or SCS's z and w, leave in a TEMP component, forgotten at its
next write, met over both arms of an IF, and not carried into or out of anything that loops,
jumps or calls.  That is no constant folding of the whole language (Mesa also folds
arithmetic); it covers the moves and SCS's zeros, what a translation leaves literal itself.

The rewrite is of the lowered tree only (the IR, which the executor runs, keeps its DIV); the
infinities are two implicit constant registers, as the structurizer adds its own constants.
"""
from __future__ import annotations

from dataclasses import is_dataclass, replace

from ..ir.literals import literal_vector
from ..ir.model import DataType, Instruction, Program, Register, RegKind, Sat, Source

#: a TEMP component -> the word it is known to hold
Known = dict[tuple[str, int], int]

#: the constant registers holding +Inf and -Inf
INFINITY = {0: "%kinf", 0x80000000: "%kninf"}


def zero_divisor_sign(program: Program, ins: Instruction, known: Known | None = None
                      ) -> int | None:
    """The sign bit (0 or 0x80000000) of the literal zero ``ins`` divides by, or None when it
    is no float DIV by a literal +-0 -- a literal operand, or a TEMP component ``known`` to
    hold a literal word.  (DIV's divisor is a scalar: the first component of its swizzle,
    with |abs| and the negations applied to the float's sign bit.)"""
    if ins.op != "DIV" or ins.dtype != DataType.FLOAT or len(ins.srcs) != 2:
        return None
    bits = _float_source_word(program, ins.srcs[1], 0, known or {})
    if bits is None:
        return None
    return bits & 0x80000000 if bits & 0x7FFFFFFF == 0 else None


def _float_source_word(program: Program, src: Source, comp: int, known: Known) -> int | None:
    """The word component ``comp`` of the float operand ``src`` reads, when it is literal:
    the swizzle's constant 0 or 1, a literal vector's word, or a known TEMP word; then
    |abs| and the negations on the sign bit (GP4 2.X.4.2)."""
    c = src.swizzle[comp]
    if c == 4:
        bits = 0
    elif c == 5:
        bits = 0x3F800000
    else:
        words = literal_vector(program, src)
        if words is not None:
            bits = words[c]
        elif src.index is None and src.vertex is None and (src.reg, c) in known:
            bits = known[(src.reg, c)]
        else:
            return None
    if src.abs:
        bits &= 0x7FFFFFFF
    for flip in (src.neg, src.comp_neg[comp]):
        if flip:
            bits ^= 0x80000000
    return bits


class LiteralTemporaries:
    """The literal words a TEMP component holds at each point of one function's tree, walked
    in order (see the module's docstring for what is followed and what is forgotten)."""

    def __init__(self, program: Program):
        self.program = program

    def is_temp(self, name: str) -> bool:
        reg = self.program.registers.get(name)
        return reg is not None and reg.kind == RegKind.TEMP

    def written(self, ins: Instruction, known: Known) -> None:
        """``known`` after ``ins``: the components it writes forgotten, then learnt again
        where it is an unconditional MOV of a literal word (no saturation or precision
        conversion; a float MOV's modifiers on the sign bit, an integer one's none) or SCS's
        z and w (+0.0)."""
        d = ins.dst
        if d is None or not self.is_temp(d.reg):
            return
        if d.index is not None:
            for key in [k for k in known if k[0] == d.reg]:
                del known[key]
            return
        for comp in range(4):
            if d.mask[comp]:
                known.pop((d.reg, comp), None)
        if d.cond is not None or ins.sat != Sat.NONE or ins.precision in ("FP16", "X"):
            return                  # (a precision conversion rounds the literal: not followed)
        if ins.op == "SCS":
            for comp in (2, 3):
                if d.mask[comp]:
                    known[(d.reg, comp)] = 0
        elif ins.op == "MOV" and len(ins.srcs) == 1:
            src = ins.srcs[0]
            if ins.dtype != DataType.FLOAT and (src.neg or src.abs or any(src.comp_neg)):
                return
            for comp in range(4):
                if d.mask[comp]:
                    word = _float_source_word(self.program, src, comp, known)
                    if word is not None:
                        known[(d.reg, comp)] = word

    def writes_in(self, node) -> set[str] | None:
        """The TEMPs anything in ``node`` may write; None where it calls (a callee writes
        any register)."""
        from .structurize import Jump, Op
        out: set[str] = set()
        for value in _nodes(node):
            if isinstance(value, Jump) and value.kind == "call":
                return None
            if getattr(value, "kind", None) in ("call", "popa"):     # the dispatch's DStmt
                return None
            ins = value.ins if isinstance(value, Op) else None
            if ins is not None and ins.dst is not None:
                out.add(ins.dst.reg)
        return out


def _nodes(value):
    """Every dataclass node under ``value`` (itself included), depth first."""
    if isinstance(value, list):
        for v in value:
            yield from _nodes(v)
    elif is_dataclass(value) and not isinstance(value, (Instruction, Source)):
        yield value
        for name in value.__dataclass_fields__:
            v = getattr(value, name)
            if isinstance(v, list) or (is_dataclass(v) and not isinstance(v, Instruction)):
                yield from _nodes(v)


def _infinity(program: Program, sign: int) -> str:
    name = INFINITY[sign]
    if name not in program.registers:
        words = ((0x7F800000 | sign,) * 4,)
        program.registers[name] = Register(name, RegKind.CONST, DataType.FLOAT, None, (),
                                           words, implicit=True)
    return name


def multiply_by_infinity(program: Program, ins: Instruction, known: Known | None = None
                         ) -> Instruction | None:
    """``ins`` as ``MUL.F a, +-Inf`` when it is a float DIV by a literal +-0, else None."""
    sign = zero_divisor_sign(program, ins, known)
    if sign is None:
        return None
    return replace(ins, op="MUL", srcs=(ins.srcs[0], Source(_infinity(program, sign))))


def rewrite_zero_divisors(structured, program: Program) -> int:
    """Rewrite every such DIV of the tree (any depth, every function) in place; the count."""
    from .structurize import If, Jump, Op
    # without a float DIV in the program there is nothing to walk for (most programs; the
    # walk was 8 % of the middle end)
    if not any(ins.op == "DIV" and ins.dtype == DataType.FLOAT
               for ins in program.instructions):
        return 0
    temps = LiteralTemporaries(program)
    done = 0

    def forget(known: Known, node) -> None:
        regs = temps.writes_in(node)
        if regs is None:
            known.clear()
        else:
            for key in [k for k in known if k[0] in regs]:
                del known[key]

    def body(nodes: list, known: Known) -> None:
        nonlocal done
        for node in nodes:
            if isinstance(node, Op):
                new = multiply_by_infinity(program, node.ins, known)
                if new is not None:
                    node.ins = new
                    done += 1
                temps.written(node.ins, known)
            elif isinstance(node, If):
                other = dict(known)
                body(node.then, known)
                body(node.orelse, other)
                for key in [k for k, v in known.items() if other.get(k) != v]:
                    del known[key]
            elif isinstance(node, Jump):
                if node.kind == "call":
                    known.clear()
            else:
                # loops, switches, labeled blocks, the dispatch: entered (at any of their
                # points) with what none of their writes can change, left the same way
                forget(known, node)
                for child in _child_lists(node):
                    body(child, dict(known))

    body(structured.main.body, {})
    for fn in structured.functions.values():
        body(fn.body, {})
    return done


def _child_lists(node):
    """The statement lists directly inside a node: loop and labeled-block bodies, a switch's
    cases, the dispatch's blocks."""
    from .structurize import Case
    from .structurize.cfg import DBlock
    for name in node.__dataclass_fields__:
        v = getattr(node, name)
        if isinstance(v, list):
            if v and isinstance(v[0], (Case, DBlock)):
                for x in v:
                    yield x.body
            else:
                yield v
