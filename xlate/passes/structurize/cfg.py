"""The general path's data: its tree nodes (Labeled blocks and loops, Goto, REP counter tests),
the dispatch loop's blocks and statements, and the expanded control-flow graph over (pc, call
stack) states that both the structurer and the dispatch fallback start from.

Unstructured control flow (VP2 and ARBvp + NV_vertex_program2/3: BRA, CAL/RET with labels that
execution falls through, PUSHA/POPA).  vkd3d-shader's approach (anchors.md section 8.3):

1. Calls are inlined by expanding the program over (pc, call stack) states: the call stack is
   at most MAX_CALL_DEPTH deep and its entries are static (return addresses; PUSHA entries
   whose address vectors live in the registers %astack0-3), so the expanded graph is finite,
   and CAL overflow (terminate or ignore, Program.call_overflow), RET on an empty stack (end),
   RET/POPA on the wrong kind of entry (abnormal end) become ordinary edges.  Structured
   IF/ELSE/ENDIF and REP/ENDREP/BRK/CONT become edges too (REP counters are registers %rcN).
2. A reducible graph is turned into blocks, loops and ifs by Ramsey's dominator-tree
   algorithm ("Beyond Relooper", ICFP 2022): a labelled block ends before each merge node,
   a labelled loop starts at each loop header, and branches become exits of an enclosing
   labelled construct (Goto).  The GLSL backend emits blocks as do { } while (false) and
   loops as for (;;), multi-level exits with a jump-target variable.  Every loop carries an
   iteration guard (the input cannot bound them): one counter of loop iterations for the
   whole invocation, which ends the shader (keeping its results) past
   Program.max_exec_instructions.  Documented divergence: the spec counts executed
   *instructions* (the executor does exactly that), the shader counts *iterations*, so it
   only stops programs the spec also stops, but later (their results then differ).
3. Irreducible graphs (or expansions over MAX_EXPANDED instructions) fall back to a
   program-counter dispatch loop over the original basic blocks with an explicit return stack
   (Dispatch; while (true) switch (pc)).

Structured inputs whose labels only start subroutines (NV4; VP2 without branches whose every
label follows a RET) keep the per-function tree above (structurize's first path), so NV4
output is unchanged.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from dataclasses import replace

from ...ir.model import (MAX_CALL_DEPTH, DataType, Dest, Instruction, Program, Register, RegKind,
                        Source)
from ...ir.ops import OPCODES
from .tree import Op, StructureError


MAX_EXPANDED = 20000           # instructions after inlining; beyond that: dispatch


ITERATION_LIMIT = 65536        # default guard (VP2 MAX_PROGRAM_EXEC_INSTRUCTIONS_NV)


EXIT = "exit"                  # the end of the program as a branch target


@dataclass(frozen=True)
class CountTest:
    """A REP counter test of the general path: passes while ``reg.x > 0``."""

    reg: str
    unsigned: bool = False


@dataclass
class Labeled:
    """A construct that Goto nodes can leave: ``block`` (a Goto continues after it) or
    ``loop`` (a Goto starts its next iteration).  Falling off the end of either leaves it."""

    kind: str
    id: int
    body: list
    guard: bool = False           # loops: count iterations against the program's limit


@dataclass
class Goto:
    target: int                   # id of an enclosing Labeled
    ins: Instruction | None = None


@dataclass
class DStmt:
    """A statement of the dispatch fallback.  kind: goto (target), branch (cond, target,
    other), call (cond, target, other = return block), ret (cond, other = next block),
    pusha (src), popa (dst), exit."""

    kind: str
    cond: object = None
    target: int | None = None
    other: int | None = None
    ins: Instruction | None = None


@dataclass
class DBlock:
    id: int
    body: list                    # Op and non-terminator DStmt, then one terminator DStmt


@dataclass
class Dispatch:
    entry: int
    blocks: list
    call_overflow: str
    limit: int




@dataclass
class _Block:
    key: tuple
    ops: list = field(default_factory=list)
    term: tuple = ()              # ("goto", t) | ("branch", cond, t, f, ins) | ("exit",)

    def succ(self) -> list:
        if self.term[0] == "goto":
            return [self.term[1]]
        if self.term[0] == "branch":
            return [self.term[2], self.term[3]]
        return []


class _TooBig(Exception):
    pass


def _merge_chains(entry, blocks: dict) -> dict:
    """Fold each block reached only by a plain goto from one predecessor into it: straight-line
    code that labels split into blocks (cgc's fall-through labels) becomes one block again.  The
    same program, with a dominator tree that is not one level deeper per label."""
    preds: dict = {}
    for b in blocks.values():
        for t in b.succ():
            preds[t] = preds.get(t, 0) + 1
    for k in list(blocks):
        b = blocks.get(k)
        while b is not None and b.term and b.term[0] == "goto":
            t = b.term[1]
            if t == EXIT or t == k or t == entry or preds.get(t) != 1 or t not in blocks:
                break
            nxt = blocks.pop(t)
            b.ops.extend(nxt.ops)
            b.term = nxt.term
    return blocks


def _match_blocks(ins: list[Instruction]) -> dict[int, dict[str, int]]:
    """IF/ELSE/ENDIF and REP/ENDREP partners (the IR validator guarantees proper nesting)."""
    out: dict[int, dict[str, int]] = {}
    stack: list[int] = []
    loops: list[int] = []
    for i, x in enumerate(ins):
        if x.op in ("IF", "REP"):
            stack.append(i)
            out[i] = {}
            if x.op == "REP":
                loops.append(i)
        elif x.op == "ELSE":
            out[stack[-1]]["else"] = i
            out[i] = {"if": stack[-1]}
        elif x.op in ("ENDIF", "ENDREP"):
            j = stack.pop()
            out[j]["end"] = i
            if "else" in out[j]:
                out[out[j]["else"]]["end"] = i
            if x.op == "ENDREP":
                loops.pop()
                out[i] = {"rep": j}
        elif x.op in ("BRK", "CONT"):
            out[i] = {"rep": loops[-1]}
    for i, x in enumerate(ins):
        if x.op in ("BRK", "CONT"):
            out[i]["end"] = out[out[i]["rep"]]["end"]
    return out


class _Builder:
    """Program -> expanded CFG (shared registers added to the program: %astackN, %rcN)."""

    def __init__(self, prog: Program):
        self.prog = prog
        self.ins = prog.instructions
        self.match = _match_blocks(self.ins)
        self.leaders = set(prog.labels.values())
        for i, x in enumerate(self.ins):
            if x.op == "CAL":
                self.leaders.add(i + 1)
            elif x.op == "IF":
                m = self.match[i]
                self.leaders.add(m.get("else", m["end"]) + 1)
                self.leaders.add(i + 1)
                self.leaders.add(m["end"] + 1)
            elif x.op in ("REP", "ENDREP"):
                rep = i if x.op == "REP" else self.match[i]["rep"]
                end = self.match[rep]["end"]
                self.leaders |= {rep + 1, end, end + 1}
        self.counters: dict[tuple, str] = {}

    def register(self, name: str, dtype: DataType) -> str:
        if name not in self.prog.registers:
            self.prog.registers[name] = Register(name, RegKind.TEMP, dtype, implicit=True)
        return name

    def const(self, value: int) -> str:
        name = f"%kcfg{value & 0xFFFFFFFF:08x}"
        if name not in self.prog.registers:
            words = (value & 0xFFFFFFFF,) * 4
            self.prog.registers[name] = Register(name, RegKind.CONST, DataType.INT, None, (),
                                                 (words,), implicit=True)
        return name

    def counter(self, rep: int, stack: tuple) -> tuple[str, bool]:
        x = self.ins[rep]
        unsigned = x.dtype == DataType.UINT
        name = self.counters.get((rep, stack))
        if name is None:
            name = self.register(f"%rc{len(self.counters)}",
                                 DataType.UINT if unsigned else DataType.INT)
            self.counters[(rep, stack)] = name
        return name, unsigned

    def expand(self) -> tuple[tuple, dict]:
        prog, ins = self.prog, self.ins
        n = len(ins)
        entry = (prog.entry, ())
        blocks: dict[tuple, _Block] = {}
        work = [entry]
        total = 0
        while work:
            key = work.pop()
            if key == EXIT or key in blocks:
                continue
            blk = blocks[key] = _Block(key)
            pc, stack = key
            first = True
            while True:
                total += 1
                if total > MAX_EXPANDED:
                    raise _TooBig
                if pc >= n:
                    blk.term = ("exit",)
                    break
                if not first and pc in self.leaders:
                    blk.term = ("goto", (pc, stack))
                    break
                first = False
                term, pc, stack = self.step(blk, pc, stack)
                if term is not None:
                    blk.term = term
                    break
            work.extend(k for k in blk.succ() if k != EXIT and k not in blocks)
        return entry, blocks

    def branch(self, cond, taken, other, ins) -> tuple:
        if cond is None or cond.rule == "TR":
            return ("goto", taken)
        if cond.rule == "FL":
            return ("goto", other)
        if taken == other:
            return ("goto", taken)
        return ("branch", cond, taken, other, ins)

    def step(self, blk: _Block, pc: int, stack: tuple):
        """One instruction: (terminator or None, next pc, stack after it)."""
        i = self.ins[pc]
        op = i.op
        nxt = (pc + 1, stack)
        if op == "BRA":
            target = (self.prog.labels[i.label], stack)
            return self.branch(i.cond, target, nxt, i), pc, stack
        if op == "CAL":
            if len(stack) >= MAX_CALL_DEPTH:
                taken = EXIT if self.prog.call_overflow == "terminate" else nxt
            else:
                taken = (self.prog.labels[i.label], stack + (("ret", pc + 1),))
            return self.branch(i.cond, taken, nxt, i), pc, stack
        if op == "RET":
            if not stack or stack[-1][0] != "ret":
                taken = EXIT          # normal end, or an address entry on top (abnormal end)
            else:
                taken = (stack[-1][1], stack[:-1])
            return self.branch(i.cond, taken, nxt, i), pc, stack
        if op == "PUSHA":
            if len(stack) >= MAX_CALL_DEPTH:
                return ("goto", EXIT), pc, stack          # VP3 2.14.5.44: full stack ends
            reg = self.register(f"%astack{len(stack)}", DataType.INT)
            blk.ops.append(Op(Instruction("MOV", DataType.INT, Dest(reg), (i.srcs[0],),
                                          span=i.span, text="(PUSHA)")))
            return None, pc + 1, stack + (("addr",),)
        if op == "POPA":
            if not stack or stack[-1][0] != "addr":
                return ("goto", EXIT), pc, stack          # VP3 2.14.5.43: abnormal end
            reg = self.register(f"%astack{len(stack) - 1}", DataType.INT)
            blk.ops.append(Op(Instruction("MOV", DataType.INT, i.dst, (Source(reg),),
                                          span=i.span, text="(POPA)")))
            return None, pc + 1, stack[:-1]
        if op == "IF":
            m = self.match[pc]
            false = (m.get("else", m["end"]) + 1, stack)
            return self.branch(i.cond, nxt, false, i), pc, stack
        if op == "ELSE":
            return ("goto", (self.match[pc]["end"] + 1, stack)), pc, stack
        if op == "ENDIF":
            return None, pc + 1, stack
        if op == "REP":
            end = self.match[pc]["end"]
            if not i.srcs:
                return ("goto", nxt), pc, stack
            reg, unsigned = self.counter(pc, stack)
            t = i.dtype
            load = "FLR" if t == DataType.FLOAT else "MOV"
            src = replace(i.srcs[0], swizzle=(i.srcs[0].swizzle[0],) * 4)
            blk.ops.append(Op(Instruction(load, t if t != DataType.FLOAT else DataType.INT,
                                          Dest(reg, None, (True, False, False, False)), (src,),
                                          span=i.span, text="(REP count)")))
            return ("branch", CountTest(reg, unsigned), nxt, (end + 1, stack), i), pc, stack
        if op == "ENDREP":
            rep = self.match[pc]["rep"]
            if not self.ins[rep].srcs:
                return ("goto", (rep + 1, stack)), pc, stack
            reg, unsigned = self.counter(rep, stack)
            t = DataType.UINT if unsigned else DataType.INT
            blk.ops.append(Op(Instruction("ADD", t, Dest(reg, None, (True, False, False, False)),
                                          (Source(reg), Source(self.const(-1))), span=i.span,
                                          text="(ENDREP)")))
            return ("branch", CountTest(reg, unsigned), (rep + 1, stack), nxt, i), pc, stack
        if op in ("BRK", "CONT"):
            m = self.match[pc]
            target = (m["end"] + 1 if op == "BRK" else m["end"], stack)
            return self.branch(i.cond, target, nxt, i), pc, stack
        if OPCODES[op].category == "flow":
            raise StructureError(f"{op} is not supported with unstructured control flow", i)
        blk.ops.append(Op(i))
        return None, pc + 1, stack
