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

from dataclasses import dataclass, fields, is_dataclass, replace

from ..ir.model import CCKind, CondTest, DataType, Instruction, Program, RegKind


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
        values = {_value_kind(kind) for kind in kinds[cc]}
        if values <= {DataType.FLOAT}:
            out[cc] = DataType.FLOAT
        elif values == {DataType.INT}:
            out[cc] = DataType.INT
    return out


#: integer updates whose flags are the value's: SF = bit 31, ZF = r == 0, OF = CF = 0
_VALUE_INT = frozenset({CCKind.INT, CCKind.UNDEF_OFCF})


def _value_kind(kind: CCKind) -> DataType | None:
    """The value type whose comparison with zero gives one update's flags (None: its flags
    carry more than the value -- carry or overflow)."""
    if kind == CCKind.FLOAT:
        return DataType.FLOAT
    return DataType.INT if kind in _VALUE_INT else None


# ---- tests forwarded to the register the update wrote -------------------------------------------

@dataclass(frozen=True)
class ValueTest:
    """A condition-code test read from the register component its update just wrote: the test
    ``rule`` of that component's value, a float or an integer (``dtype``, the register's
    cc_values kind), compared with zero as ``cctests_value.txt`` says.  cgc's
    ``MOV.U.CC RC.x, R0; IF NE.x;`` prints ``if (RC.x != 0u)``."""

    reg: str
    comp: int
    rule: str
    dtype: DataType


def forward_value_tests(structured, prog: Program, cc_values: dict[int, DataType]) -> set[int]:
    """Replace each ``If``/``Jump`` condition that tests one component shortly after the update
    that wrote it (in the same body, with only instructions in between that neither update that
    CC register nor write the component) by a :class:`ValueTest` of the written register: it
    still holds the value the flags were set from.  The update must write that component
    unconditionally, into a plain temporary (no relative index, no array), and be a float one or
    an integer one without carry -- its own kind decides, so a register that also takes other
    updates elsewhere (TGSI's IF and UIF share CC1: float and integer updates) has its tests
    forwarded too; ``cc_values`` gives the kind of a value-holding register.  Returns the CC
    registers still tested anywhere (those not returned need no register at all)."""
    from .structurize import If, Jump, Op

    def forwardable(before: list, cond) -> ValueTest | None:
        """``before``: the nodes preceding the test in its body, nearest last."""
        if not isinstance(cond, CondTest) or cond.rule in ("TR", "FL") or \
                len(set(cond.swizzle)) != 1:
            return None
        k = cond.swizzle[0]
        between = []
        for node in reversed(before[-REACH:]):
            if isinstance(node, If) and node.cond is not None:
                inside = _plain_ops(node)
                if inside is None or any(i.cc_update == cond.cc for i in inside):
                    return None
                between += inside               # an if of plain instructions (a probe's)
                continue
            if not isinstance(node, Op):
                return None                     # a call, a loop: it may write anything
            if node.ins.cc_update == cond.cc:
                break
            between.append(node.ins)
        else:
            return None
        dst = node.ins.dst
        if dst is None or dst.index is not None or not dst.mask[k] or \
                (dst.cond is not None and dst.cond.rule != "TR"):
            return None
        reg = prog.registers.get(dst.reg)
        if reg is None or reg.kind != RegKind.TEMP or reg.size is not None:
            return None
        if any(i.dst is not None and i.dst.reg == dst.reg and i.dst.mask[k] for i in between):
            return None                         # the written component changed since
        kind = cc_values.get(cond.cc) or _value_kind(node.ins.cc_kind)
        return None if kind is None else ValueTest(dst.reg, k, cond.rule, kind)

    def body(nodes: list) -> None:
        for i, node in enumerate(nodes):
            if isinstance(node, (If, Jump)):
                vt = forwardable(nodes[max(0, i - REACH):i], node.cond)
                if vt is not None:
                    node.cond = vt
            for child in _child_bodies(node):
                body(child)

    body(structured.main.body)
    for fn in structured.functions.values():
        body(fn.body)
    return _tested_in_tree(structured)


#: how many instructions back a test looks for its update (cgc puts one or two in between)
REACH = 8


def _plain_ops(node) -> list | None:
    """The instructions of an if's branches when they are plain instructions (no nested flow,
    call or loop), else None."""
    from .structurize import Op
    out = []
    for body in _child_bodies(node):
        for child in body:
            if not isinstance(child, Op):
                return None
            out.append(child.ins)
    return out


#: opcode categories whose instructions do nothing but write their destination (and CC): a write
#: under FL, which writes no component, is no instruction at all
_WRITES_ONLY = ("alu", "tex")


def fold_constant_write_tests(structured) -> None:
    """Conditional write masks whose test is a constant (Table X.16 TR, FL; LEG and NAN of
    a register only integer updates write, :func:`_constant_rule`): under TR every
    component passes -- a plain write; under FL none does, and the condition code is updated
    only for components "enabled by both write masks" (GP4 2.X.4.3), so the instruction has no
    effect and leaves the tree (an ALU or texture instruction: those with other effects stay),
    as does a KIL under FL, which kills nothing.  The IR is not changed: a folded instruction
    is a new object in the tree only."""
    from ..ir.ops import OPCODES
    from .structurize import Op

    # the tree's instructions are the program's and the structurizer's, which write
    # unconditionally and kill nothing: without a conditional write or KIL in the program
    # there is nothing to fold (most programs; the walk was a tenth of the middle end)
    if not any(ins.dst is not None and ins.dst.cond is not None or
               ins.op == "KIL" and ins.cond is not None
               for ins in structured.program.instructions):
        return
    float_updated = _float_updated_registers(structured)

    def body(nodes: list) -> None:
        keep = []
        for node in nodes:
            if isinstance(node, Op) and node.ins.op == "KIL" and \
                    _constant_rule(node.ins.cond, float_updated) == "FL":
                continue
            if isinstance(node, Op) and node.ins.dst is not None and \
                    _constant_rule(node.ins.dst.cond, float_updated) is not None:
                ins = node.ins
                if _constant_rule(ins.dst.cond, float_updated) == "TR":
                    node = Op(replace(ins, dst=replace(ins.dst, cond=None)))
                elif OPCODES[ins.op].category in _WRITES_ONLY:
                    continue
            for child in _child_bodies(node):
                body(child)
            keep.append(node)
        nodes[:] = keep

    body(structured.main.body)
    for fn in structured.functions.values():
        body(fn.body)


def _float_updated_registers(structured) -> set[int]:
    """The CC registers some float update writes (or one whose flag rule is unknown).  The
    tree's own instructions, the structurizer's counter tests, update with integer flags."""
    return {ins.cc_update for ins in structured.program.instructions
            if ins.cc_update is not None and ins.cc_kind in (CCKind.FLOAT, None)}


def _constant_rule(cond, float_updated: set[int]) -> str | None:
    """'TR' or 'FL' where the test ``cond`` has one outcome on every component: Table X.16's
    TR and FL; and LEG and NAN of a register no float update writes -- an integer update's
    SF is bit 31 and its ZF r == 0 (GP4 2.X.4.3), never both, and before any update neither
    is set, so LEG (not both) passes and NAN (both) fails.  Else None."""
    if not isinstance(cond, CondTest):
        return None
    if cond.rule in ("TR", "FL"):
        return cond.rule
    if cond.rule in ("LEG", "NAN") and cond.cc not in float_updated:
        return "TR" if cond.rule == "LEG" else "FL"
    return None


def _child_bodies(node):
    """The node lists inside a node of the tree (if/else, loop bodies, cases, labeled blocks)."""
    for name in ("then", "orelse", "body"):
        v = getattr(node, name, None)
        if isinstance(v, list):
            yield v
    for case in getattr(node, "cases", ()) or ():
        yield case.body


def _tested_in_tree(structured) -> set[int]:
    """Every CC register some condition of the tree still tests: its nodes' ``cond`` (if, jump,
    the general structurizer's gotos) and its instructions' (KIL, conditional writes)."""
    from .structurize import Op
    out: set[int] = set()

    def note(cond) -> None:
        if isinstance(cond, CondTest) and cond.rule not in ("TR", "FL"):
            out.add(cond.cc)

    def walk(value) -> None:
        if isinstance(value, list):
            for v in value:
                walk(v)
        elif isinstance(value, Op):
            note(value.ins.cond)
            if value.ins.dst is not None:
                note(value.ins.dst.cond)
        elif is_dataclass(value) and not isinstance(value, Instruction):
            for f in fields(value):
                v = getattr(value, f.name)
                if f.name == "cond" or (isinstance(v, tuple) and f.name == "term"):
                    for c in (v if isinstance(v, tuple) else (v,)):
                        note(c)
                elif isinstance(v, list) or is_dataclass(v):
                    walk(v)
    walk(structured.main.body)
    for fn in structured.functions.values():
        walk(fn.body)
    return out
