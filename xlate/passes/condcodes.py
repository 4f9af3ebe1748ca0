"""Condition-code analysis.

The IR already says, per update, which flag rule applies (CCKind, chosen by the frontend).  This
pass finds which CC registers a program ever *tests*; updates of a register nobody tests are
dead and the backend omits them (cgc sets CC on many instructions whose flags are never read).
"""
from __future__ import annotations

from ..ir.model import Program


def tested_cc_registers(prog: Program) -> set[int]:
    used: set[int] = set()
    for ins in prog.instructions:
        for cond in (ins.cond, ins.dst.cond if ins.dst is not None else None):
            if cond is not None and cond.rule not in ("TR", "FL"):
                used.add(cond.cc)
    return used
