"""Condition-code analysis.

The IR already says, per update, which flag rule applies (CCKind, chosen by the frontend).  This
pass finds which CC registers a program ever *tests*; updates of a register nobody tests are
dead and the backend omits them (cgc sets CC on many instructions whose flags are never read).

A register whose flags are a function of the updated value holds that value instead of flag
words, and every test of Table X.16 becomes a comparison of it with zero
(``templates/glsl/cctests_value.txt``; :func:`value_condition_codes`):

* every update a float one: SF = r < 0 or NaN, ZF = r == 0 or NaN, OF = CF = 0 (GP4 2.X.4.3);
  the tests are IEEE comparisons -- ``if (R0.x > 0.0)`` where the flag form is
  ``if (any(xl_ccGT(xl_cc0.xxxx)))``;
* every update an integer one without carry (``CCKind.INT``, and ``UNDEF_OFCF``, whose OF/CF
  the project clears): SF = bit 31, ZF = r == 0, OF = CF = 0, so the tests are signed integer
  comparisons of the result's words -- cgc's ``MOV.U.CC RC.x, R0; IF NE.x;`` prints
  ``if (xl_cc0.x != 0)``.

A register some update of which computes carry or overflow (ADD, SUB, MAD, SAD with integer
types), or with updates of both kinds, keeps the flag words.
"""
from __future__ import annotations

from ..ir.model import CCKind, DataType, Instruction, Program


def tested_cc_registers(prog: Program) -> set[int]:
    used: set[int] = set()
    for ins in prog.instructions:
        for cond in (ins.cond, ins.dst.cond if ins.dst is not None else None):
            if cond is not None and cond.rule not in ("TR", "FL"):
                used.add(cond.cc)
    return used


def value_condition_codes(prog: Program, tested: set[int],
                          extra: list[Instruction] | tuple = ()) -> dict[int, DataType]:
    """The tested CC registers that hold the value of their last update, with its type:
    ``DataType.FLOAT`` where every update is a float one, ``DataType.INT`` where every update is
    an integer one without carry or overflow -- among the program's instructions and ``extra``
    ones (the structurizer's own: its counter tests update CC1 with integer flags)."""
    kinds: dict[int, set[CCKind]] = {cc: set() for cc in tested}
    for ins in list(prog.instructions) + list(extra):
        if ins.cc_update in kinds:
            kinds[ins.cc_update].add(ins.cc_kind)
    out: dict[int, DataType] = {}
    for cc in sorted(tested):
        if kinds[cc] <= {CCKind.FLOAT}:
            out[cc] = DataType.FLOAT
        elif kinds[cc] <= _VALUE_INT:
            out[cc] = DataType.INT
    return out


#: integer updates whose flags are the value's: SF = bit 31, ZF = r == 0, OF = CF = 0
_VALUE_INT = frozenset({CCKind.INT, CCKind.UNDEF_OFCF})
