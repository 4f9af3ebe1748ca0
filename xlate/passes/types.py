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

    def note(name: str, t: DataType):
        uses.setdefault(name, set()).add(t)

    for ins in prog.instructions:
        for i, src in enumerate(ins.srcs):
            note(src.reg, operand_type(ins, i))
            for idx in (src.index, src.vertex):
                if idx is not None and idx.relative:
                    note(idx.reg, DataType.INT)
        if ins.dst is not None:
            note(ins.dst.reg, result_type(ins))
            if ins.dst.index is not None and ins.dst.index.relative:
                note(ins.dst.index.reg, DataType.INT)
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
