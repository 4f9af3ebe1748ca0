"""TGSI double-precision opcodes (tgsi.rst "Double ISA") -> the IR's word-typed D* opcodes
(xlate/exec/doubles.py gives their semantics and the readings chosen).

A double operand's ``-`` and ``|.|`` act on the doubles (tgsi_exec's fetch_double_channel):
here bit operations on the sign words (y, w) after the swizzle, so the IR opcodes see plain
words.  ``_SAT`` on a double result is refused (E7001): xlate has no saturating double form."""
from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from ...ir.model import DataType, Dest, Instruction, Source
from . import model as M

if TYPE_CHECKING:
    from .lower import Lowerer

F, S, U = DataType.FLOAT, DataType.INT, DataType.UINT
_SIGN = (0, 0x80000000, 0, 0x80000000)
_MAGNITUDE = (0xFFFFFFFF, 0x7FFFFFFF, 0xFFFFFFFF, 0x7FFFFFFF)

#: TGSI mnemonic -> IR opcode, for the opcodes whose every operand is a double
_SAME = {n: n for n in ("DADD", "DMUL", "DDIV", "DMIN", "DMAX", "DSEQ", "DSNE", "DSLT", "DSGE",
                        "DMAD", "DFMA", "DFRAC", "DTRUNC", "DCEIL", "DFLR", "DROUND", "DSSG", "DRCP",
                        "DSQRT", "DRSQ", "D2F", "D2I", "D2U")}
#: the 64-bit integer opcodes (tgsi.rst "64-bit Integer ISA"): the same names in the IR
INT64 = frozenset("""U64ADD U64MUL U64MIN U64MAX I64MIN I64MAX U64SEQ U64SNE U64SLT U64SGE I64SLT
I64SGE U64SHL U64SHR I64SHR U64DIV U64MOD I64DIV I64MOD I64ABS I64NEG I64SSG F2U64 F2I64 D2U64
D2I64 U2I64 I2I64 U642F I642F U642D I642D""".split())
#: results that are doubles or words (registers the doubles pass through are bit copies)
INT_RESULT = frozenset(_SAME) - {"D2F"} | {"DABS", "DNEG", "DLDEXP", "DFRACEXP", "F2D", "I2D",
                                                  "U2D"} | (INT64 - {"U642F", "I642F"})
#: operands read as words
INT_SOURCE = frozenset(_SAME) | {"DABS", "DNEG", "DLDEXP", "DFRACEXP", "I2D", "U2D"} \
    | (INT64 - {"F2U64", "F2I64"})


def _dsrc(lw: "Lowerer", s: M.Src, n: int = 0) -> Source:
    """A double operand (the ``n``-th): the words after the swizzle, its modifiers applied to
    the doubles (in a scratch register of its own)."""
    plain = lw.src(dataclasses.replace(s, neg=False, abs=False), integer=True)
    if not (s.neg or s.abs):
        return plain
    k = lw.scratch(f"dm{n}")
    if s.abs:
        lw.emit(Instruction("AND", U, Dest(k), (plain, Source(lw.const(_MAGNITUDE)))))
        plain = Source(k)
    if s.neg:
        lw.emit(Instruction("XOR", U, Dest(k), (plain, Source(lw.const(_SIGN)))))
    return Source(k)


def _no_sat(lw: "Lowerer", t: M.Instruction) -> None:
    if t.saturate:
        lw.reject("E7001", f"{t.opcode}_{t.saturate}: saturating a double result is not supported")


def _same(lw: "Lowerer", t: M.Instruction):
    _no_sat(lw, t)
    srcs = tuple(_dsrc(lw, s, n) for n, s in enumerate(t.srcs))
    lw.emit(Instruction(_SAME[t.opcode], U, lw.dst(t.dsts[0]), srcs))


def _dabs(lw: "Lowerer", t: M.Instruction):
    # tgsi.rst DABS: |src| of each double -- the sign bits cleared (NaN payloads kept)
    _no_sat(lw, t)
    lw.emit(Instruction("AND", U, lw.dst(t.dsts[0]),
                        (_dsrc(lw, t.srcs[0]), Source(lw.const(_MAGNITUDE)))))


def _dneg(lw: "Lowerer", t: M.Instruction):
    # DNEG (Mesa's older double negate; not in today's tgsi.rst): the sign bits flipped
    _no_sat(lw, t)
    lw.emit(Instruction("XOR", U, lw.dst(t.dsts[0]),
                        (_dsrc(lw, t.srcs[0]), Source(lw.const(_SIGN)))))


def _dldexp(lw: "Lowerer", t: M.Instruction):
    _no_sat(lw, t)
    lw.emit(Instruction("DLDEXP", U, lw.dst(t.dsts[0]),
                        (_dsrc(lw, t.srcs[0]), lw.src(t.srcs[1], integer=True))))


def _dfracexp(lw: "Lowerer", t: M.Instruction):
    """DFRACEXP dst0, dst1, src: the mantissas into dst0 (xy, zw), the exponents into dst1
    (x y from the first double, z w from the second, as tgsi_exec stores them)."""
    _no_sat(lw, t)
    src = _dsrc(lw, t.srcs[0])
    if any(lw.overlaps(d, t.srcs) for d in t.dsts):
        k = lw.scratch("dx")
        lw.emit(Instruction("MOV", U, Dest(k), (src,)))
        src = Source(k)
    lw.emit(Instruction("DFREXPM", U, lw.dst(t.dsts[0]), (src,)))
    lw.emit(Instruction("DFREXPE", U, lw.dst(t.dsts[1]), (src,)))


def _to_double(irop: str):
    def fn(lw: "Lowerer", t: M.Instruction):
        _no_sat(lw, t)
        s = t.srcs[0]
        src = lw.src(s, integer=irop != "F2D")      # F2D reads floats: float modifiers
        lw.emit(Instruction(irop, U, lw.dst(t.dsts[0]), (src,)))
    return fn


def _int64(lw: "Lowerer", t: M.Instruction):
    """A 64-bit integer opcode: its IR opcode of the same name; the float operand of F2U64/F2I64
    takes float modifiers, the 64-bit operands none (tgsi_exec would apply a double's sign
    operations to them; Mesa negates through I64NEG)."""
    _no_sat(lw, t)
    srcs = []
    for s in t.srcs:
        if t.opcode in ("F2U64", "F2I64"):
            srcs.append(lw.src(s))
            continue
        if s.neg or s.abs:
            lw.reject("E7001", f"{t.opcode}: a source modifier on a 64-bit integer operand is not "
                      "supported (negate with I64NEG, I64ABS)")
        srcs.append(lw.src(s, integer=True))
    lw.emit(Instruction(t.opcode, U, lw.dst(t.dsts[0]), tuple(srcs)))


DOUBLE_OPS = {**{n: _int64 for n in INT64},**{n: _same for n in _SAME}, "DABS": _dabs, "DNEG": _dneg, "DLDEXP": _dldexp,
              "DFRACEXP": _dfracexp, "F2D": _to_double("F2D"), "I2D": _to_double("I2D"),
              "U2D": _to_double("U2D")}
