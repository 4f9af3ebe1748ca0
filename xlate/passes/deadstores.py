"""Dead stores to outputs: a write of an output register that a later write replaces before
anything can read it or leave the program.

The case that matters is a frontend's: VP1/VP2 result registers start as (0,0,0,1)
(NV_vertex_program 2.14.1.5), which the frontend spells as one ``MOV o[...], {0,0,0,1}`` per
result at the start of the program; most programs then write every component of most results.
Printed, those moves are ten statements a person would not write.

The analysis is deliberately small and conservative: only statements at the top level of the
main function, only output registers written whole or per component without relative
addressing (a geometry program's EMIT reads every output), and the replacing writes must be unconditional statements at the top level too,
later in the same body.  Between the dead store and its replacement nothing may read the
register (an operand, an index), and no construct may leave the program or call a subroutine (a
``return`` would expose the first value; a subroutine may read or keep it); an if or a loop in
between is looked into only to see that it does neither.  A store that updates a tested
condition-code register, or has a write condition, is kept.
"""
from __future__ import annotations

from ..ir.model import Instruction, Program, RegKind
from ..ir.ops import OPCODES
from .structurize import If, Jump, Labeled, Loop, Op, Structured, Switch


def drop_dead_output_stores(st: Structured, cc_used: set[int]) -> int:
    """Remove the dead output stores at the top level of ``st``'s main function (in place);
    returns how many were removed."""
    body = st.main.body
    prog = st.program
    dead = [i for i, node in enumerate(body)
            if type(node) is Op and node.ins.op == "MOV" and _candidate(node.ins, prog, cc_used)
            and _overwritten(body, i, node.ins)]
    for i in reversed(dead):
        del body[i]
    return len(dead)


def _candidate(ins: Instruction, prog: Program, cc_used: set[int]) -> bool:
    # (only moves: the frontends' initialisations; the caller checks the opcode)
    d = ins.dst
    if d is None or d.index is not None or (d.cond is not None and d.cond.rule != "TR"):
        return False
    if ins.cc_update is not None and ins.cc_update in cc_used:
        return False
    reg = prog.registers.get(d.reg)
    return reg is not None and reg.kind == RegKind.OUTPUT and reg.size is None


def _overwritten(body: list, i: int, ins: Instruction) -> bool:
    reg = ins.dst.reg
    pending = {c for c in range(4) if ins.dst.mask[c]}
    for node in body[i + 1:]:
        if isinstance(node, Op):
            later = node.ins
            if _reads(later, reg):
                return False
            d = later.dst
            if d is not None and d.reg == reg and d.index is None and \
                    (d.cond is None or d.cond.rule == "TR"):
                pending -= {c for c in range(4) if d.mask[c]}
                if not pending:
                    return True
            continue
        if not _harmless(node, reg):
            return False
    return False


def _reads(ins: Instruction, reg: str) -> bool:
    if OPCODES[ins.op].category == "geom":
        return True                           # EMIT sends every output (GP4 2.X.4.5)
    for s in ins.srcs:
        if s.reg == reg or any(x is not None and x.reg == reg for x in (s.index, s.vertex)):
            return True
    d = ins.dst
    return d is not None and d.index is not None and d.index.reg == reg


def _harmless(node, reg: str) -> bool:
    """A construct that neither reads ``reg`` nor leaves the program or calls (any depth):
    ifs, loops, switches and the general structurizer's labeled blocks are looked into; any
    other construct (a goto, the dispatch loop) counts as harmful."""
    if isinstance(node, list):
        return all(_harmless(n, reg) for n in node)
    if isinstance(node, Op):
        return not _reads(node.ins, reg)
    if isinstance(node, Jump):
        return node.kind in ("break", "continue")
    if isinstance(node, If):
        return _harmless(node.then, reg) and _harmless(node.orelse, reg)
    if isinstance(node, Loop):
        return (node.count is None or node.count.reg != reg) and _harmless(node.body, reg)
    if isinstance(node, Switch):
        return node.selector.reg != reg and all(_harmless(c.body, reg) for c in node.cases)
    if isinstance(node, Labeled):
        return _harmless(node.body, reg)
    return False


# ---- temporaries nothing reads ---------------------------------------------------------------

#: opcode categories whose only effect is the destination written
_PURE = frozenset({"alu", "tex"})

#: rounds of removal: a removed instruction may leave the one that fed it unread
MAX_ROUNDS = 4


def drop_unread_temporaries(st: Structured, cc_used: set[int]):
    """Remove (in place) every instruction of the tree whose only effect is a write of plain
    temporary components that nothing reads afterwards (``liveness.py``: a subroutine's
    temporaries count as read at its end, a call or a construct the analysis does not follow
    reads everything).  Returns the liveness of the final tree, for the printers' temporaries
    policy."""
    from .liveness import liveness, tree_bodies
    # (only the general structurizer repeats instructions; the per-function tree holds each once)
    repeated = _repeated_instructions(st) if st.mode != "functions" else set()
    for _ in range(MAX_ROUNDS):
        live = liveness(st)
        dead = set()
        for body in tree_bodies(st):
            for node in body:
                if isinstance(node, Op) and id(node.ins) not in repeated and \
                        _unread(node.ins, live, cc_used):
                    dead.add(id(node))
        if not dead:
            return live
        for body in tree_bodies(st):
            body[:] = [n for n in body if id(n) not in dead]
    return liveness(st)


def _unread(ins: Instruction, live, cc_used: set[int]) -> bool:
    d = ins.dst
    if d is None or d.index is not None or d.reg not in live.tracked:
        return False
    if OPCODES[ins.op].category not in _PURE or (ins.cc_update is not None and
                                                  ins.cc_update in cc_used):
        return False
    after = live.after.get(id(ins))
    if after is None:
        return False                          # not analysed: counted as read
    written = 0
    for c in range(4):
        if d.mask[c]:
            written |= live.bit(d.reg, c)
    return not written & after


def _repeated_instructions(st: Structured) -> set[int]:
    """Instructions the tree holds in more than one place (the general structurizer repeats
    some): their liveness entries mix the places, so they are left alone."""
    from .liveness import tree_bodies
    seen: set[int] = set()
    again: set[int] = set()
    for body in tree_bodies(st):
        for n in body:
            if isinstance(n, Op):
                (again if id(n.ins) in seen else seen).add(id(n.ins))
    return again
