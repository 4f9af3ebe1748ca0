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
    assert set(cc_value_tests()) == set(CC_RULES) - {"TR", "FL"}


def _program(rules: list[str]) -> str:
    """A float CC update from vertex.attrib[0], then each rule as a one-component conditional
    write (the scalar form), as a four-component one (the vector form) and as an IF."""
    lines = ["!!NVvp4.0", "TEMP t, s, v, b;", "MOV.CC t, vertex.attrib[0];"]
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
