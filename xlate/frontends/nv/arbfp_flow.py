"""Control flow of NV_fragment_program2 (part of :class:`~.arbfp.ARBfpBuilder`): IF/ELSE/ENDIF,
REP/ENDREP with its loop counter, LOOP/ENDLOOP and BRK/CAL/RET, labels, lowered onto the IR's
flow opcodes (the address register of LOOP in a temporary; nesting limits FP2 3.11.X.7-9).
"""
from __future__ import annotations

from ...ir.model import DataType, Dest, Instruction, Register, RegKind, Source
from . import fp_tables as T
from .nv4_tables import _Skip
from .syntax import Instr, Label
from .fp_tables import F, MASK_X, MASK_Y, S, f32


class ARBfpFlow:
    """Part of :class:`~.arbfp.ARBfpBuilder` (mixed in, before the NV4 builder): flow
    instructions and labels."""

    # ---- flow control (NV_fragment_program2) -------------------------------------------------
    def block_structure(self, name: str, ins: Instr) -> None:
        """FP2 3.11.4.X: IF/ELSE/ENDIF, LOOP/ENDLOOP, REP/ENDREP must nest; static depth limits."""
        self.closing = None
        if name in ("ELSE", "ENDIF", "ENDLOOP", "ENDREP"):
            opener = {"ELSE": "IF", "ENDIF": "IF", "ENDLOOP": "LOOP", "ENDREP": "REP"}[name]
            self.closing = self.close_block(name, opener, ins)      # the NV4 builder's
        elif name == "IF":
            # counts kept by push_block/pop_block (nv4.py): O(1) checks, E4005 once per limit
            if self.open_blocks.get("IF", 0) >= T.MAX_IF_DEPTH:
                self.nesting_error("IF", f"IF nested inside {T.MAX_IF_DEPTH} IF blocks "
                                   "(MAX_PROGRAM_IF_DEPTH_NV)", ins.span)
            self.push_block(("IF", "then", ins.span))
        elif name in ("LOOP", "REP"):
            loops = self.open_blocks.get("LOOP", 0)
            depth = loops + self.open_blocks.get("REP", 0)
            if depth >= T.MAX_LOOP_DEPTH:
                self.nesting_error("LOOP", f"{name} nested inside {T.MAX_LOOP_DEPTH} LOOP/REP "
                                   "blocks (MAX_PROGRAM_LOOP_DEPTH_NV)", ins.span)
            self.push_block((name, {"a0": f"%A0_{loops}" if name == "LOOP" else None,
                                    "count": f"%loop_count{depth}"}, ins.span))

    def current_a0(self) -> str | None:
        for kind, state, _ in reversed(self.blocks):
            if kind == "LOOP":
                return state["a0"]
        return None

    def temp(self, name: str, dtype: DataType = DataType.NONE) -> str:
        if name not in self.prog.registers:
            self.prog.registers[name] = Register(name, RegKind.TEMP, dtype, implicit=True)
        return name

    def lowered(self, op: str, dtype: DataType, dst: Dest, srcs, ins: Instr, what: str) -> None:
        self.prog.instructions.append(Instruction(op, dtype, dst, tuple(srcs), span=ins.span,
                                                  text=f"({what})"))

    def flow(self, ins: Instr, name: str, out: Instruction) -> None:
        if name in ("ELSE", "ENDIF", "ENDREP", "ENDLOOP"):
            self.expect_operands(ins, 0, "no operands")
            if name == "ENDLOOP" and self.closing is not None:
                # FP2 3.11.X.5: LoopIndex += LoopIncr (clamped >= 0, digest 12 item 31)
                a0 = self.closing[1]["a0"]
                ax = Source(a0, swizzle=(0, 0, 0, 0))
                self.lowered("ADD", S, Dest(a0, None, MASK_X), [ax, Source(a0, swizzle=(1, 1, 1, 1))],
                             ins, "ENDLOOP: A0.x += increment")
                self.lowered("MAX", S, Dest(a0, None, MASK_X), [ax, self.int_const(0)], ins,
                             "ENDLOOP: A0.x >= 0")
            if name == "ENDLOOP":
                out.op = "ENDREP"
            return
        if name == "IF":
            self.expect_operands(ins, 1, "one condition-code test")
            out.cond = self.require_cctest(ins.operands[0])
            return
        if name in ("LOOP", "REP"):
            self.expect_operands(ins, 1, "one program parameter operand")
            opnd = ins.operands[0]
            v = self.source(opnd, F, scalar=False, ntc=False)
            reg = self.prog.registers[v.reg]
            if reg.kind not in (RegKind.PARAM, RegKind.CONST):
                self.err("E3004", f"the {name} operand must be a program parameter (FP2 "
                         "3.11.X.8/9), not a temporary or attribute", opnd.span)
            state = self.blocks[-1][1] if self.blocks and self.blocks[-1][0] == name else None
            if state is None:
                raise _Skip
            if name == "LOOP":
                # FP2 3.11.X.8: LoopIndex = floor(v.y) (>= 0), LoopIncr = floor(v.z)
                a0 = self.temp(state["a0"], S)
                self.lowered("FLR", S, Dest(a0, None, MASK_X), [self.component(v, 1)], ins,
                             "LOOP: A0.x = floor(y)")
                self.lowered("MAX", S, Dest(a0, None, MASK_X),
                             [Source(a0, swizzle=(0, 0, 0, 0)), self.int_const(0)], ins,
                             "LOOP: A0.x >= 0")
                self.lowered("FLR", S, Dest(a0, None, MASK_Y), [self.component(v, 2)], ins,
                             "LOOP: increment = floor(z)")
            # count = floor(min(x, 255)) (REP floors; MAX_PROGRAM_LOOP_COUNT_NV, digest 12 item 31)
            count = self.temp(state["count"], F)
            self.lowered("MIN", F, Dest(count, None, MASK_X),
                         [self.component(v, 0), self.float_const(float(T.MAX_LOOP_COUNT))], ins,
                         f"{name}: count clamped to {T.MAX_LOOP_COUNT}")
            out.op = "REP"
            out.srcs = (Source(count, swizzle=(0, 0, 0, 0)),)
            return
        if name == "BRK":
            if not (self.open_blocks.get("LOOP") or self.open_blocks.get("REP")):
                self.err("E4004", "BRK outside a LOOP or REP block", ins.span)
            return self.optional_condition(ins, out)
        if name == "RET":
            return self.optional_condition(ins, out)
        if name == "CAL":
            return self.call(ins, out)        # the NV4 builder's (the same grammar)
        raise AssertionError(name)

    def component(self, v: Source, c: int) -> Source:
        sel = v.swizzle[c]
        return Source(v.reg, v.index, v.vertex, (sel,) * 4, v.neg, v.abs)

    def int_const(self, value: int) -> Source:
        return Source(self.const_register((value & 0xFFFFFFFF,) * 4, S), swizzle=(0, 0, 0, 0))

    def float_const(self, value: float) -> Source:
        return Source(self.const_register((f32(value),) * 4, F), swizzle=(0, 0, 0, 0))

    def label(self, lab: Label) -> None:
        if self.level < 2:
            self.seen_statement = self.seen_body = True
            self.err("E1002", f"labels ('{lab.name}:') require OPTION NV_fragment_program2",
                     lab.span)
        super().label(lab)
