"""The dispatch fallback: a program-counter loop over the original basic blocks with an explicit
return stack, for irreducible graphs and expansions over ``MAX_EXPANDED`` instructions.
"""
from __future__ import annotations

from dataclasses import replace

from ...ir.model import (DataType, Dest, Instruction, Program, Source)
from ...ir.ops import OPCODES
from .cfg import CountTest, DBlock, DStmt, Dispatch, _Builder
from .tree import Op, StructureError


def dispatch(prog: Program, limit: int) -> Dispatch:
    """Basic blocks of the original program in a ``while (true) switch (pc)`` loop with an
    explicit return stack (CAL pushes the block after it, RET pops; PUSHA/POPA share it)."""
    b = _Builder(prog)
    ins = b.ins
    n = len(ins)
    starts = sorted({prog.entry, 0} | {p for p in b.leaders if p < n} |
                    {i + 1 for i, x in enumerate(ins) if OPCODES[x.op].category == "flow"
                     and i + 1 < n})
    ids = {p: k for k, p in enumerate(starts)}
    ids[n] = -1                                      # past the end: exit

    def bid(p: int) -> int:
        return ids[p] if p < n else -1

    out = []
    for k, start in enumerate(starts):
        end = starts[k + 1] if k + 1 < len(starts) else n
        body: list = []
        term = None
        for pc in range(start, end):
            i = ins[pc]
            op = i.op
            nxt = bid(pc + 1) if OPCODES[op].category == "flow" else None
            if op == "BRA":
                term = _dbranch(i.cond, bid(prog.labels[i.label]), nxt, i)
            elif op == "CAL":
                term = DStmt("call", _cond(i.cond), bid(prog.labels[i.label]), nxt, i)
            elif op == "RET":
                term = DStmt("ret", _cond(i.cond), None, nxt, i)
            elif op == "PUSHA":
                body.append(DStmt("pusha", ins=i))
            elif op == "POPA":
                body.append(DStmt("popa", ins=i))
            elif op == "IF":
                m = b.match[pc]
                term = _dbranch(i.cond, nxt, bid(m.get("else", m["end"]) + 1), i)
            elif op == "ELSE":
                term = DStmt("goto", target=bid(b.match[pc]["end"] + 1), ins=i)
            elif op == "ENDIF":
                pass
            elif op == "REP":
                end_ = b.match[pc]["end"]
                if i.srcs:
                    reg, unsigned = b.counter(pc, ())
                    t = i.dtype
                    src = replace(i.srcs[0], swizzle=(i.srcs[0].swizzle[0],) * 4)
                    body.append(Op(Instruction("FLR" if t == DataType.FLOAT else "MOV",
                                               t if t != DataType.FLOAT else DataType.INT,
                                               Dest(reg, None, (True, False, False, False)),
                                               (src,), span=i.span, text="(REP count)")))
                    term = DStmt("branch", CountTest(reg, unsigned), nxt, bid(end_ + 1), i)
                else:
                    term = DStmt("goto", target=nxt, ins=i)
            elif op == "ENDREP":
                rep = b.match[pc]["rep"]
                if ins[rep].srcs:
                    reg, unsigned = b.counter(rep, ())
                    t = DataType.UINT if unsigned else DataType.INT
                    body.append(Op(Instruction("ADD", t, Dest(reg, None, (True, False, False, False)),
                                               (Source(reg), Source(b.const(-1))), span=i.span,
                                               text="(ENDREP)")))
                    term = DStmt("branch", CountTest(reg, unsigned), bid(rep + 1), nxt, i)
                else:
                    term = DStmt("goto", target=bid(rep + 1), ins=i)
            elif op in ("BRK", "CONT"):
                m = b.match[pc]
                target = bid(m["end"] + 1) if op == "BRK" else bid(m["end"])
                term = _dbranch(i.cond, target, nxt, i)
            elif OPCODES[op].category == "flow":
                raise StructureError(f"{op} is not supported with unstructured control flow", i)
            else:
                body.append(Op(i))
        if term is None:
            term = DStmt("goto", target=bid(end)) if end < n else DStmt("exit")
        body.append(term)
        out.append(DBlock(k, body))
    return Dispatch(ids[prog.entry] if prog.entry < n else -1, out, prog.call_overflow, limit)


def _cond(c):
    return None if c is None or c.rule == "TR" else c


def _dbranch(cond, taken: int, other: int, ins) -> DStmt:
    if cond is None or cond.rule == "TR":
        return DStmt("goto", target=taken, ins=ins)
    if cond.rule == "FL":
        return DStmt("goto", target=other, ins=ins)
    return DStmt("branch", cond, taken, other, ins)
