"""Back to linear IR (tests; locating a pass that broke a program).
"""
from __future__ import annotations

from ...ir.model import (CCKind, CondTest, DataType, Dest, Instruction, Program, Register,
                        RegKind, Source)
from .cfg import CountTest, Dispatch, Goto, Labeled
from .tree import If, Jump, Op, Structured


def linearize(st: Structured) -> Program:
    """The structured form of the general path as a linear IR program (BRA/CAL/RET and labels)
    that the executor runs: running it against the original program checks the structurizer.
    Iteration guards are left out (the executor has its own step limit)."""
    src = st.program
    prog = Program(src.stage, src.dialect, dict(src.registers), [], {}, 0, src.options,
                   src.geometry, source_name=src.source_name)
    prog.tessellation = src.tessellation
    prog.call_overflow = src.call_overflow
    prog.max_exec_instructions = src.max_exec_instructions
    prog.fragcoord_origin_upper_left = src.fragcoord_origin_upper_left
    prog.fragcoord_pixel_center_integer = src.fragcoord_pixel_center_integer
    prog.kills_as_flags = src.kills_as_flags
    out = prog.instructions
    counter = [0]

    def fresh(prefix: str) -> str:
        counter[0] += 1
        return f"%{prefix}{counter[0]}"

    def place(name: str) -> None:
        prog.labels[name] = len(out)

    def cond_of(c) -> CondTest:
        if isinstance(c, CountTest):
            # test the counter through CC1.x (linearized programs only): GT = reg.x > 0
            t = DataType.UINT if c.unsigned else DataType.INT
            out.append(Instruction("MOV", t, Dest("%cc_probe", None, (True, False, False, False)),
                                   (Source(c.reg, swizzle=(0, 0, 0, 0)),), cc_update=1,
                                   cc_kind=CCKind.INT, text="(count test)"))
            prog.registers.setdefault("%cc_probe", Register("%cc_probe", RegKind.TEMP, t))
            return CondTest("NE" if c.unsigned else "GT", 1, (0, 0, 0, 0))
        return c

    def emit(nodes: list, targets: dict) -> None:
        for node in nodes:
            if isinstance(node, Op):
                out.append(node.ins)
            elif isinstance(node, If):
                then, end = fresh("then"), fresh("endif")
                out.append(Instruction("BRA", label=then, cond=cond_of(node.cond)))
                emit(node.orelse, targets)
                out.append(Instruction("BRA", label=end))
                place(then)
                emit(node.then, targets)
                place(end)
            elif isinstance(node, Labeled):
                start, end = fresh("start"), fresh("end")
                place(start)
                emit(node.body, {**targets, node.id: start if node.kind == "loop" else end})
                place(end)
            elif isinstance(node, Goto):
                out.append(Instruction("BRA", label=targets[node.target]))
            elif isinstance(node, Jump) and node.kind == "return":
                out.append(Instruction("BRA", label=END, cond=node.cond))
            elif isinstance(node, Dispatch):
                emit_dispatch(node)
            else:
                raise AssertionError(node)

    def emit_dispatch(d: Dispatch) -> None:
        name = {b.id: fresh("b") for b in d.blocks}
        name[-1] = END
        if d.entry != (d.blocks[0].id if d.blocks else -1):
            out.append(Instruction("BRA", label=name[d.entry]))
        for blk in d.blocks:
            place(name[blk.id])
            for s in blk.body:
                if isinstance(s, Op):
                    out.append(s.ins)
                    continue
                k = s.kind
                if k == "goto":
                    out.append(Instruction("BRA", label=name[s.target]))
                elif k == "branch":
                    out.append(Instruction("BRA", label=name[s.target], cond=cond_of(s.cond)))
                    out.append(Instruction("BRA", label=name[s.other]))
                elif k == "call":
                    out.append(Instruction("CAL", label=name[s.target], cond=s.cond))
                    out.append(Instruction("BRA", label=name[s.other]))
                elif k == "ret":
                    out.append(Instruction("RET", cond=s.cond))
                    out.append(Instruction("BRA", label=name[s.other]))
                elif k in ("pusha", "popa"):
                    out.append(s.ins)
                elif k == "exit":
                    out.append(Instruction("BRA", label=name[-1]))

    # the end of the program (a label after the last instruction): execution ends there even
    # with return addresses on the call stack, as at the end of the original program
    END = "%end"
    emit(st.main.body, {})
    place(END)
    return prog
