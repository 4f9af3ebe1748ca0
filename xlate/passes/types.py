"""Register typing: the storage type of every temporary.

Registers hold raw 32-bit words (IR model).  For readable, fast GLSL a register that is only
ever read and written as float becomes ``vec4``, as signed int ``ivec4``, as unsigned int
``uvec4``.  A register used with several types keeps raw bits (``uvec4``) and every access
bitcasts, so no value is ever converted where the program reinterpreted bits.  Declared
INT/UINT/FLOAT temporaries keep their declared type.
"""
from __future__ import annotations

from ..ir.model import DataType, Instruction, Program, RegKind
from ..ir.ops import OPCODES, RAW_OPERAND_OPS, RAW_RESULT_OPS   # noqa: F401 (re-exported)


_OPERAND_MEMO: dict[tuple[str, DataType, int], DataType] = {}
_RESULT_MEMO: dict[tuple[str, DataType], DataType] = {}


def operand_type(ins: Instruction, i: int) -> DataType:
    """How operand i is read (memoized: it depends only on opcode, data type and position)."""
    key = (ins.op, ins.dtype, i)
    t = _OPERAND_MEMO.get(key)
    if t is None:
        if ins.op in RAW_OPERAND_OPS:
            t = DataType.UINT
        elif ins.op == "REP":
            t = ins.dtype
        else:
            t = OPCODES[ins.op].operand_type(i, ins.dtype)
        _OPERAND_MEMO[key] = t
    return t


def result_type(ins: Instruction) -> DataType:
    key = (ins.op, ins.dtype)
    t = _RESULT_MEMO.get(key)
    if t is None:
        t = DataType.UINT if ins.op in RAW_RESULT_OPS else OPCODES[ins.op].result_type(ins.dtype)
        _RESULT_MEMO[key] = t
    return t


def register_types(prog: Program) -> dict[str, DataType]:
    """Storage type per TEMP register name."""
    uses: dict[str, set[DataType]] = {}
    INT = DataType.INT

    def note(name: str, t: DataType):
        seen = uses.get(name)
        if seen is None:
            uses[name] = {t}
        else:
            seen.add(t)

    # operand_type/result_type inlined (their memos read directly): this loop visits every
    # operand of the program
    operand_memo, result_memo = _OPERAND_MEMO, _RESULT_MEMO
    for ins in prog.instructions:
        op, dtype = ins.op, ins.dtype
        for i, src in enumerate(ins.srcs):
            t = operand_memo.get((op, dtype, i))
            note(src.reg, operand_type(ins, i) if t is None else t)
            idx = src.index
            if idx is not None and idx.reg is not None:
                note(idx.reg, INT)
            idx = src.vertex
            if idx is not None and idx.reg is not None:
                note(idx.reg, INT)
        dst = ins.dst
        if dst is not None:
            t = result_memo.get((op, dtype))
            note(dst.reg, result_type(ins) if t is None else t)
            if dst.index is not None and dst.index.reg is not None:
                note(dst.index.reg, INT)
    out: dict[str, DataType] = {}
    for name, reg in prog.registers.items():
        if reg.kind != RegKind.TEMP:
            continue
        if reg.dtype != DataType.NONE:
            out[name] = reg.dtype
            continue
        seen = uses.get(name, {DataType.FLOAT})
        out[name] = next(iter(seen)) if len(seen) == 1 else DataType.UINT
    return out
