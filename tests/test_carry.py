"""The carry/overflow rule, defined once (xlate/ir/carry.py) and used by the NV4 frontend (the
instruction's cc_kind), the executor (exec/cc.py), the GLSL backend and the IR validator.

GP4 2.X.4.3: "negation modifiers turn add operations into subtracts and vice versa.  If the
operation is equivalent to an add with both operands negated (-A-B), the carry and overflow
flags are both undefined."""
from __future__ import annotations

import pytest

from conftest import gl_runner
from test_exec_cc import flags_after, i
from xlate.api import parse, translate
from xlate.ir.carry import CarryForm, Term, carry_form
from xlate.ir.model import CCKind
from xlate.ir.validate import IRValidationError, validate

A, B, C = Term("src", (0,)), Term("src", (1,)), Term("src", (2,))
AB = Term("mul", (0, 1))


@pytest.mark.parametrize("op, negated, form", [
    ("ADD", (0, 0), CarryForm(CCKind.ADD, A, B)),         # a + b
    ("ADD", (0, 1), CarryForm(CCKind.SUB, A, B)),         # a + -b: a - b
    ("ADD", (1, 0), CarryForm(CCKind.SUB, B, A)),         # -a + b: b - a
    ("ADD", (1, 1), CarryForm(CCKind.UNDEF_OFCF)),        # -a + -b
    ("SUB", (0, 0), CarryForm(CCKind.SUB, A, B)),         # a - b
    ("SUB", (0, 1), CarryForm(CCKind.ADD, A, B)),         # a - -b: a + b
    ("SUB", (1, 0), CarryForm(CCKind.UNDEF_OFCF)),        # -a - b
    ("SUB", (1, 1), CarryForm(CCKind.SUB, B, A)),         # -a - -b: b - a
    ("MAD", (0, 0, 0), CarryForm(CCKind.ADD, AB, C)),     # a*b + c
    ("MAD", (0, 0, 1), CarryForm(CCKind.SUB, AB, C)),     # a*b - c
    ("MAD", (1, 0, 0), CarryForm(CCKind.SUB, C, AB)),     # -(a*b) + c: c - a*b
    ("MAD", (0, 1, 1), CarryForm(CCKind.UNDEF_OFCF)),     # -(a*b) - c
    ("MAD", (1, 1, 0), CarryForm(CCKind.ADD, AB, C)),     # (-a)(-b) + c
    ("SAD", (0, 0, 1), CarryForm(CCKind.SUB, Term("sad", (0, 1)), C)),
])
def test_carry_form(op, negated, form):
    assert carry_form(op, tuple(bool(n) for n in negated)) == form


def test_executor_flags_of_sub_with_both_operands_negated():
    # -a - (-b) is b - a: CF set when b >= a unsigned (no borrow).  a = 0, b = 1: b - a = 1,
    # CF = 1; the subtract of the loaded values (-0) - (-1) = 0 - 0xFFFFFFFF would borrow.
    got = flags_after("SUB.S.CC R0, -a, -b", a=i(0, 1, 5, 0), b=i(1, 0, 5, -1))
    assert [g[3] for g in got] == [1, 0, 1, 1]            # 0xFFFFFFFF - 0: no borrow
    assert got == flags_after("SUB.S.CC R0, b, a", a=i(0, 1, 5, 0), b=i(1, 0, 5, -1))


def test_executor_flags_of_mad_with_negated_addend():
    # a*b - c: the flags of the subtract (CF = no borrow), not of the add of -c
    a, b, c = i(2, 1, 0, 3), i(3, 1, 0, 1), i(6, 2, 0, 1)
    got = flags_after("MAD.S.CC R0, a, b, -c", a=a, b=b, c=c)
    assert [g[3] for g in got] == [1, 0, 1, 1]
    assert [g[1] for g in got] == [1, 0, 1, 0]              # ZF of 6-6, 1-2, 0-0, 3-1
    # -a*b + c: c - a*b
    got = flags_after("MAD.S.CC R0, -a, b, c", a=a, b=b, c=c)
    assert [g[3] for g in got] == [1, 1, 1, 0]


def test_validator_checks_the_frontends_flag_rule():
    prog = parse("!!NVfp4.0\nINT TEMP a, r;\nMOV.S a, 1;\nSUB.S.CC r, -a, -a;\n"
                 "MOV result.color, 0;\nEND\n")
    ins = [x for x in prog.instructions if x.op == "SUB"][0]
    assert ins.cc_kind == CCKind.SUB
    validate(prog)
    ins.cc_kind = CCKind.ADD
    with pytest.raises(IRValidationError) as e:
        validate(prog)
    assert str(e.value) == (f"invalid IR:\n  instruction {prog.instructions.index(ins)} (SUB): "
                            "flag rule add is not the carry rule of SUB with these negations")


def test_glsl_prints_the_rule():
    src = ("!!NVfp4.0\nINT TEMP a, b, c, r;\nTRUNC.S a, fragment.texcoord[0];\n"
           "TRUNC.S b, fragment.texcoord[1];\nTRUNC.S c, fragment.texcoord[2];\n"
           "SUB.S.CC r.x, -a, -b;\nMAD.S.CC r.y, a, b, -c;\nMOV result.color(CF), 1;\nEND\n")
    glsl = translate(src, filename="carry.fp").glsl
    assert "xl_ccsub(uvec4(b), uvec4(a))" in glsl           # -a - -b: b - a
    assert "xl_ccsub(uvec4(a) * uvec4(b), uvec4(c))" in glsl  # a*b - c


CARRY_PROGRAM = """!!NVfp4.0
INT TEMP a, b, c, r;
TEMP o;
TRUNC.S a, fragment.texcoord[0];
TRUNC.S b, fragment.texcoord[1];
TRUNC.S c, fragment.texcoord[2];
MOV o, 0;
SUB.S.CC r.x, -a, -b;
ADD.S.CC r.y, a, -b;
MAD.S.CC r.z, a, b, -c;
MAD.S.CC r.w, -a, b, c;
MOV o.x(CF.x), 1;
MOV o.y(CF.y), 1;
MOV o.z(CF.z), 1;
MOV o.w(CF.w), 1;
ADD o(OF), o, 2;
SUB.S.CC r, a, -b;
ADD o(CF), o, 4;
MOV result.color, o;
END
"""


def test_executor_and_gl_agree_on_carry_flags():
    """Before the rule was one function, the backend printed SUB -a, -b as the subtract of the
    loaded values, and this program's CF differed from the executor's on most lanes."""
    from xlate.verify import verify_source
    rep = verify_source(CARRY_PROGRAM, "carry.fp", lanes=1024, runner=gl_runner("gl"))
    assert rep.status == "pass", (rep.reason, rep.localization[:1])
