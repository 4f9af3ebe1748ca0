"""Can a call chain take an FP2 program past its run-time nesting limits?

NV_fragment_program2 has two kinds of nesting limit.  Load time (3.11.4.X): an IF nested
inside MAX_PROGRAM_IF_DEPTH_NV (48) IF blocks, or a LOOP/REP nested inside
MAX_PROGRAM_LOOP_DEPTH_NV (4) loops, fails to load (frontend, E4005).  Run time (3.11.X.7-9):
an IF executed while 48 IF blocks are active, or a LOOP/REP while 4 loops are active,
*terminates the program* -- and the blocks of the calling code count: a subroutine with two
nested REPs called from inside three loops reaches the limit although every block passed the
load-time check.

The executor implements the run-time rule (``Program.nesting_limits``, xlate/exec/flow.py).
The translated shader does not: the structurizer emits subroutines as functions (or inlines
them) without nesting counters.  :func:`runtime_nesting_overflow` finds, from the linear IR,
whether some call chain reaches an IF or REP with the limit active; the GLSL backend refuses
such a program (E7001) instead of translating it with a silent difference.  No program of the
corpus comes near (the cgc fp40 programs nest at most two loops across calls).

Reading of the program: labels are top-level markers (FP2: no label inside a block), so the
nesting of an instruction relative to its subroutine is its static nesting in the text.  A
call to label L runs from L up to the first RET that is unconditional and outside every block
(or to the end: labels are fall-through markers); the main program likewise from
``Program.entry``.  The run-time nesting at an IF is the sum of the static nesting at each
pending CAL plus its own.  Chains are at most MAX_CALL_DEPTH calls deep (a CAL with four calls
pending terminates instead, ``call_overflow``); the walk memoizes (label, IF depth, loop depth,
call depth), so it is linear in the program for all practical purposes.
"""
from __future__ import annotations

from ..ir.model import MAX_CALL_DEPTH, Instruction, Program


def runtime_nesting_overflow(prog: Program) -> tuple[Instruction, str, int] | None:
    """(the IF or REP, "IF" or "loop", the active blocks it can see) for the first instruction
    some call chain reaches with the run-time limit active, else None."""
    limits = prog.nesting_limits
    ins = prog.instructions
    if limits is None or not any(i.op == "CAL" for i in ins):
        return None             # without calls the load-time limits are the run-time ones
    max_if, max_loop = limits
    n = len(ins)
    ifs, loops = [0] * n, [0] * n         # blocks enclosing each instruction
    stack: list[str] = []
    for k, i in enumerate(ins):
        if i.op in ("ENDIF", "ENDREP") and stack:
            stack.pop()
        ifs[k] = stack.count("IF")
        loops[k] = len(stack) - ifs[k]
        if i.op == "IF":
            stack.append("IF")
        elif i.op == "REP":
            stack.append("REP")

    regions: dict[int, tuple[list, list]] = {}

    def region(start: int) -> tuple[list, list]:
        """(IF/REP indices, CAL indices) a call entering at ``start`` can execute."""
        if start not in regions:
            blocks, calls = [], []
            for k in range(start, n):
                op = ins[k].op
                if op in ("IF", "REP"):
                    blocks.append(k)
                elif op == "CAL" and ins[k].label in prog.labels:
                    calls.append(k)
                elif op == "RET" and ins[k].cond is None and ifs[k] == 0 and loops[k] == 0:
                    break
            regions[start] = (blocks, calls)
        return regions[start]

    seen: set[tuple[int, int, int, int]] = set()
    work = [(prog.entry, 0, 0, 0)]
    found = None
    while work:
        state = work.pop()
        if state in seen:
            continue
        seen.add(state)
        start, at_if, at_loop, depth = state
        blocks, calls = region(start)
        for k in blocks:
            if ins[k].op == "IF" and at_if + ifs[k] >= max_if:
                hit = (k, "IF", at_if + ifs[k])
            elif ins[k].op == "REP" and at_loop + loops[k] >= max_loop:
                hit = (k, "loop", at_loop + loops[k])
            else:
                continue
            if found is None or hit[0] < found[0]:
                found = hit
        if depth < MAX_CALL_DEPTH:
            for k in calls:
                work.append((prog.labels[ins[k].label], at_if + ifs[k], at_loop + loops[k],
                             depth + 1))
    if found is None:
        return None
    return ins[found[0]], found[1], found[2]
