"""Condition-code analysis.

The IR already says, per update, which flag rule applies (CCKind, chosen by the frontend).  This
pass finds which CC registers a program ever *tests*; updates of a register nobody tests are
dead and the backend omits them (cgc sets CC on many instructions whose flags are never read).

A register whose every update is a float one holds all it needs in the updated value itself:
its flags are a function of the value (GP4 2.X.4.3), and every test of Table X.16 an IEEE
comparison of it with zero (``templates/glsl/cctests_value.txt``).  The printers store the value
for those (:func:`value_condition_codes`) and print ``if (R0.x > 0.0)`` where the flag form is
``if (any(xl_ccGT(xl_cc0.xxxx)))``; integer and mixed registers keep the flag words.
"""
from __future__ import annotations

from ..ir.model import CCKind, Instruction, Program


def tested_cc_registers(prog: Program) -> set[int]:
    used: set[int] = set()
    for ins in prog.instructions:
        for cond in (ins.cond, ins.dst.cond if ins.dst is not None else None):
            if cond is not None and cond.rule not in ("TR", "FL"):
                used.add(cond.cc)
    return used


def value_condition_codes(prog: Program, tested: set[int],
                          extra: list[Instruction] | tuple = ()) -> set[int]:
    """The tested CC registers every update of which is a float one (``CCKind.FLOAT``), among
    the program's instructions and ``extra`` ones (the structurizer's own: its counter tests
    update CC1 with integer flags)."""
    value = set(tested)
    for ins in list(prog.instructions) + list(extra):
        if ins.cc_update is not None and ins.cc_kind != CCKind.FLOAT:
            value.discard(ins.cc_update)
    return value
