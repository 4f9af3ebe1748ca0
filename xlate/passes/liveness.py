"""Which components of the plain temporaries are live after each instruction of the structured
tree: the facts the temporaries policy (``backends/glsl/expressions.py``) needs to know that a
value has no reader left once its one reader has taken it.

Only *tracked* registers are followed: TEMP registers of one vec4 (no array, so no relative
access can reach them).  A live set is a set of ``(register, component)`` pairs of those, kept as the bits of an int.  The
analysis over-approximates, which is the safe direction (a value thought live is kept in its
register): an operand reads every component its swizzle names, whatever the opcode uses; a
conditional write kills nothing; at a call, at a switch and in the general structurizer's
constructs everything is live; a loop's head has every component its body reads live, plus
what is live after the loop (a superset of what its ``break``/``continue`` edges need).  At the
end of the main function nothing tracked is live (temporaries are not outputs); at the end of
a subroutine everything is (the caller may read any of them).
"""
from __future__ import annotations

from ..ir.model import Instruction, Program, RegKind, Source
from .condcodes import ValueTest
from .structurize import CountTest, If, Jump, Loop, Op, Structured



def tracked_registers(prog: Program) -> set[str]:
    """The registers the analysis follows: single-vec4 temporaries."""
    return {name for name, reg in prog.registers.items()
            if reg.kind == RegKind.TEMP and reg.size is None}


class Liveness:
    """``after[id(ins)]``: the tracked components live after each ``Op`` instruction of the
    function bodies analysed (instructions met in the general structurizer's constructs get no
    entry: for them everything counts as live).  A live set is an int, one bit per tracked
    (register, component): :meth:`bit`."""

    def __init__(self, prog: Program):
        self.tracked = tracked_registers(prog)
        self.bits = {name: 4 * i for i, name in enumerate(sorted(self.tracked))}
        self.everything = (1 << (4 * len(self.bits))) - 1
        self.after: dict[int, int] = {}
        self.killed: dict[int, int] = {}      # id(ins) -> kills(ins), of the instructions analysed
        self.read_bits: dict[int, int] = {}    # id(ins) -> reads(ins), computed once each

    def bit(self, reg: str, comp: int) -> int:
        base = self.bits.get(reg)
        return 0 if base is None else 1 << (base + comp)

    def live_after(self, ins: Instruction) -> int:
        return self.after.get(id(ins), self.everything)

    def source_reads(self, src: Source) -> int:
        """Components an operand may read: its swizzle's (extended selectors 0/1 read nothing),
        and the components that index it (relative addressing)."""
        out = 0
        base = self.bits.get(src.reg)
        if base is not None:
            for c in src.swizzle:
                if c < 4:
                    out |= 1 << (base + c)
        for idx in (src.index, src.vertex):
            if idx is not None and idx.reg is not None:
                out |= self.bit(idx.reg, idx.comp)
        return out

    def reads(self, ins: Instruction) -> int:
        out = self.read_bits.get(id(ins))
        if out is None:
            out = 0
            for s in ins.srcs:
                out |= self.source_reads(s)
            d = ins.dst
            if d is not None and d.index is not None and d.index.reg is not None:
                out |= self.bit(d.index.reg, d.index.comp)
            self.read_bits[id(ins)] = out
        return out

    def kills(self, ins: Instruction) -> int:
        """Components surely overwritten: an unconditional write of a tracked register."""
        d = ins.dst
        if d is None or d.index is not None:
            return 0
        base = self.bits.get(d.reg)
        if base is None or (d.cond is not None and d.cond.rule != "TR"):
            return 0
        m = d.mask
        return (m[0] | m[1] << 1 | m[2] << 2 | m[3] << 3) << base

    def cond_reads(self, cond) -> int:
        if isinstance(cond, CountTest):
            return self.bit(cond.reg, 0)
        if isinstance(cond, ValueTest):          # a CC test forwarded to the written register
            return self.bit(cond.reg, cond.comp)
        return 0

    def function(self, body: list, is_main: bool) -> None:
        end = 0 if is_main else self.everything
        self.body(body, end, None, end)

    def body(self, nodes: list, live: int, loop_head: int | None, fn_end: int) -> int:
        for node in reversed(nodes):
            live = self.node(node, live, loop_head, fn_end)
        return live

    def node(self, node, live: int, loop_head: int | None, fn_end: int) -> int:
        if isinstance(node, Op):
            ins = node.ins
            key = id(ins)
            self.after[key] = live
            kill = self.killed[key] = self.kills(ins)
            return (live & ~kill) | self.reads(ins)
        if isinstance(node, If):
            then = self.body(node.then, live, loop_head, fn_end)
            orelse = self.body(node.orelse, live, loop_head, fn_end)
            return then | orelse | self.cond_reads(node.cond)
        if isinstance(node, Loop):
            head = live | self.reads_in(node.body)
            if node.count is not None:
                head |= self.source_reads(node.count)
            self.body(node.body, head, head, fn_end)
            return head
        if isinstance(node, Jump):
            if node.kind == "call":
                return self.everything
            if node.kind == "return":
                out = fn_end
            else:
                out = loop_head if loop_head is not None else self.everything
            if node.cond is not None:        # conditional: the fall-through path too
                out |= live
            return out | self.cond_reads(node.cond)
        return self.everything               # switch, general structurizer: no analysis

    def reads_in(self, nodes: list) -> int:
        """Every tracked component read anywhere in ``nodes`` (everything when a node is one
        the analysis does not follow)."""
        out = 0
        for node in nodes:
            if isinstance(node, Op):
                out |= self.reads(node.ins)
            elif isinstance(node, If):
                out |= self.reads_in(node.then) | self.reads_in(node.orelse)
                out |= self.cond_reads(node.cond)
            elif isinstance(node, Loop):
                out |= self.reads_in(node.body)
                if node.count is not None:
                    out |= self.source_reads(node.count)
            elif isinstance(node, Jump):
                if node.kind == "call":
                    return self.everything
                out |= self.cond_reads(node.cond)
            else:
                return self.everything
        return out


def liveness(st: Structured) -> Liveness:
    """The analysis of every function of the tree."""
    result = Liveness(st.program)
    result.function(st.main.body, True)
    for fn in st.functions.values():
        result.function(fn.body, False)
    return result


def tree_bodies(st: Structured):
    """Every node list of the tree: the functions', and those inside ifs, loops, switch cases
    and the general structurizer's labeled blocks (the dispatch loop's blocks are not lists
    of the tree)."""
    from .structurize import Labeled, Switch
    todo = [st.main.body] + [fn.body for fn in st.functions.values()]
    while todo:
        nodes = todo.pop()
        yield nodes
        for n in nodes:
            if isinstance(n, If):
                todo += [n.then, n.orelse]
            elif isinstance(n, (Loop, Labeled)):
                todo.append(n.body)
            elif isinstance(n, Switch):
                todo += [c.body for c in n.cases]
