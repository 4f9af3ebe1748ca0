"""Condition-code registers that hold a float value (passes/condcodes.py value_condition_codes,
templates/glsl/cctests_value.txt): every test of Table X.16 as a comparison of the value agrees
with the executor's flag formulas (xlate/exec/cc.py), in Python and on an implementation."""
from __future__ import annotations

import numpy as np
import pytest

from conftest import gl_runner

import xlate
from xlate.backends.glsl import cc_value_tests
from xlate.exec import cc
from xlate.ir.ops import CC_RULES

SPECIALS = np.array([0.0, -0.0, 1e-45, -1e-45, 1.5, -1.5, np.inf, -np.inf, np.nan, -np.nan],
                    np.float32)


def _python(form: str):
    """The comparison text of a table row as a NumPy expression of ``v`` (IEEE comparisons;
    '||' joins the two parenthesized halves of the SF row)."""
    text = (form.replace("{v}", "v").replace("||", ") | (").replace("!isnan", "~isnan")
            .replace("true", "np.ones(v.shape, bool)").replace("false", "np.zeros(v.shape, bool)"))
    return lambda v: eval(text, {"np": np, "isnan": np.isnan, "v": v})


@pytest.mark.parametrize("rule", sorted(set(CC_RULES) - {"TR", "FL"}))
def test_every_row_is_the_flag_test_of_a_float(rule):
    scalar, vector = cc_value_tests()[rule]
    want = cc.test(rule, cc.flags_float(SPECIALS))
    with np.errstate(invalid="ignore"):
        assert _python(scalar)(SPECIALS).tolist() == want.tolist()
    assert "{v}" in vector or vector in ("bvec4(false)", "bvec4(true)")


def test_the_table_covers_every_rule_but_the_constant_ones():
    rules = set(CC_RULES) - {"TR", "FL"}
    assert set(cc_value_tests()) == rules | {r + ".i" for r in rules}


#: integer results' words: zero, small, the sign bit alone and with others, the extremes
INT_SPECIALS = np.array([0, 1, 2, 0x7FFFFFFF, 0x80000000, 0x80000001, 0xFFFFFFFF, 0xFFFFFFFE,
                         0x40000000, 0xC0000000], np.uint32)


@pytest.mark.parametrize("rule", sorted(set(CC_RULES) - {"TR", "FL"}))
def test_every_integer_row_is_the_flag_test_of_an_integer(rule):
    """An integer update without carry: SF = bit 31, ZF = r == 0, OF = CF = 0 (GP4 2.X.4.3);
    the register holds the words as an ivec4, each test a signed comparison with 0."""
    scalar, vector = cc_value_tests()[rule + ".i"]
    want = cc.test(rule, cc.flags_int(INT_SPECIALS))
    assert _python(scalar)(INT_SPECIALS.view(np.int32)).tolist() == want.tolist()
    assert "{v}" in vector or vector in ("bvec4(false)", "bvec4(true)")


def test_only_updates_without_carry_make_an_integer_value_register():
    """condcodes.value_condition_codes: INT (and UNDEF_OFCF, whose OF/CF are cleared) updates
    hold the value; an ADD.S.CC's carry/overflow keeps the flag words, and so does a register
    with float and integer updates."""
    from xlate.ir.model import DataType
    from xlate.passes.condcodes import tested_cc_registers, value_condition_codes

    def kinds(body: str):
        prog = xlate.parse("!!NVfp4.0\nTEMP t;\nINT TEMP i;\n" + body +
                           "IF NE.x;\nMOV result.color, 1;\nENDIF;\nEND\n")
        return value_condition_codes(prog, tested_cc_registers(prog))
    assert kinds("MOV.CC t, fragment.texcoord[0];\n") == {0: DataType.FLOAT}
    assert kinds("TRUNC.S.CC i, fragment.texcoord[0];\n") == {0: DataType.INT}
    assert kinds("TRUNC.S i, fragment.texcoord[0];\nADD.S.CC i, i, 1;\n") == {}
    assert kinds("TRUNC.S.CC i, fragment.texcoord[0];\nMOV.CC t, fragment.texcoord[0];\n") == {}


def _int_program(rules: list[str]) -> str:
    """An integer CC update (no carry) from vertex.attrib[0]'s words, then each rule as in
    :func:`_program`."""
    return _rules_program(["!!NVvp4.0", "INT ATTRIB a = vertex.attrib[0];", "INT TEMP t;",
                           "TEMP s, v, b;", "MOV.S.CC t, a;"], rules)


@pytest.mark.parametrize("rules", [["EQ", "NE"], ["LT", "LE"], ["GT", "GE"], ["NAN", "LEG"],
                                   ["SF", "NSF"], ["CF", "NCF"], ["OF", "NOF"], ["AB", "BLE"]])
def test_integer_value_tests_agree_with_the_executor(rules):
    from test_verify_cases import run_both
    gl_runner("gl")
    text = _int_program(rules)
    glsl = xlate.translate(text).glsl
    assert "ivec4 xl_cc0 = ivec4(0);" in glsl and "xl_cci" not in glsl   # the value form
    n = len(INT_SPECIALS)
    lanes = n * n
    a = np.empty((lanes, 4), np.uint32)
    a[:, 0] = np.repeat(INT_SPECIALS, n)
    a[:, 1] = np.tile(INT_SPECIALS, n)
    a[:, 2] = a[:, 1][::-1]
    a[:, 3] = a[:, 0][::-1]
    pos = np.zeros((lanes, 4), np.float32)
    diffs, res, _ = run_both(text, {"vertex.attrib[0]": a.view(np.float32),
                                    "vertex.attrib[1]": pos})
    assert diffs == []
    want = cc.test(rules[0], cc.flags_int(a[:, 0]))
    assert (res.float("result.texcoord[0]")[:, 1] == want).all()


@pytest.mark.parametrize("backend", ["gl-spirv", "vulkan"])
def test_integer_value_tests_on_the_direct_module(backend):
    """The direct SPIR-V path's integer value register (an OpSLessThan etc. of the words),
    exact against the executor on the verifier's inputs."""
    from xlate.verify.core import verify_source
    runner = gl_runner(backend)
    for rules in (["EQ", "NE"], ["LT", "LE"], ["GT", "GE"], ["SF", "NSF"]):
        rep = verify_source(_int_program(rules), "i.vp", lanes=256, seed=3, backend=backend,
                            runner=runner, via="direct")
        assert rep.status == "pass" and not rep.differences, rep.reason
        assert any("direct SPIR-V path's module" in n for n in rep.notes)


def _program(rules: list[str]) -> str:
    """A float CC update from vertex.attrib[0], then each rule as a one-component conditional
    write (the scalar form), as a four-component one (the vector form) and as an IF."""
    return _rules_program(["!!NVvp4.0", "TEMP t, s, v, b;", "MOV.CC t, vertex.attrib[0];"],
                          rules)


def _rules_program(head: list[str], rules: list[str]) -> str:
    """``head`` (one CC update), then each rule as a one-component conditional write, a
    four-component one and an IF, their results written to texture coordinates."""
    lines = list(head)
    for k, rule in enumerate(rules):
        lines += [f"MOV s, {{0, 0, 0, 0}};", f"MOV s.y ({rule}.x), 1;", f"MOV s.z ({rule}.z), 1;",
                  f"MOV v, {{0, 0, 0, 0}};", f"MOV v ({rule}), {{1, 2, 3, 4}};",
                  f"MOV b, {{0, 0, 0, 0}};", f"IF {rule}.y;", "MOV b.x, 1;", "ENDIF;",
                  f"MOV result.texcoord[{3 * k}], s;", f"MOV result.texcoord[{3 * k + 1}], v;",
                  f"MOV result.texcoord[{3 * k + 2}], b;"]
    return "\n".join(lines + ["MOV result.position, vertex.attrib[1];", "END", ""])


@pytest.mark.parametrize("rules", [["EQ", "NE"], ["LT", "LE"], ["GT", "GE"], ["NAN", "LEG"],
                                   ["SF", "NSF"], ["CF", "NCF"], ["OF", "NOF"], ["AB", "BLE"]])
def test_value_tests_agree_with_the_executor_on_gl(rules):
    from test_verify_cases import run_both
    gl_runner("gl")
    text = _program(rules)
    glsl = xlate.translate(text).glsl
    assert "vec4 xl_cc0 = vec4(0.0);" in glsl and "xl_ccf" not in glsl   # the value form
    # no denormals here: llvmpipe flushes them before comparing (1e-45 == 0.0), a freedom the
    # specs give (the verifier's ftz permit), with the flag form as with this one
    specials = SPECIALS[np.abs(SPECIALS) != np.float32(1e-45)]
    lanes = len(specials) ** 2
    a = np.empty((lanes, 4), np.float32)
    a[:, 0] = np.repeat(specials, len(specials))          # x: every special with every ...
    a[:, 1] = np.tile(specials, len(specials))            # ... other in y (the IF)
    a[:, 2] = a[:, 1][::-1]
    a[:, 3] = a[:, 0][::-1]
    pos = np.zeros((lanes, 4), np.float32)
    diffs, res, _ = run_both(text, {"vertex.attrib[0]": a, "vertex.attrib[1]": pos})
    assert diffs == []
    # and the executor did test the specials (not a program that tests nothing)
    want = cc.test(rules[0], cc.flags_float(a[:, 0]))
    assert (res.float("result.texcoord[0]")[:, 1] == want).all()
