"""Condition-code tests of flag words, sized to what they decide (backends/glsl/instructions.py
``sized_cc_test``): a conditional write of N components selects by the N tests it reads
(``mix(c.w, 0.0, xl_ccEQ(xl_cc1.z))``, ``bvec2 xl_ccGT(uvec2 f)``), an IF of one component
tests one word (``if (xl_ccOF(xl_cc0.y))``).  Each of Table X.16's rules, at sizes 1 to 4,
verified against the executor on the implementation."""
from __future__ import annotations

import pytest

import xlate
from conftest import gl_runner
from xlate.ir.ops import CC_RULES
from xlate.verify.core import verify_source

#: the rules that test flags (TR and FL are folded before printing: passes/condcodes.py)
FLAG_RULES = [r for r in CC_RULES if r not in ("TR", "FL")]


def _program(rules: list[str]) -> str:
    """An integer add with carry sets CC0's flag words from random program.local words; for
    each rule, writes of 1, 2, 3 and 4 components under it and an IF of one component."""
    lines = ["!!NVvp4.0", "UINT PARAM u[2] = { program.local[0..1] };", "UINT TEMP a, t;",
             "ADD.U.CC a, u[0], u[1];", "MOV result.position, vertex.position;"]
    for k, rule in enumerate(rules):
        lines += ["MOV.U t, 0;",
                  f"MOV.U t.w ({rule}.z), 1;",
                  f"MOV.U t.xy ({rule}.wxzy), 2;",
                  f"MOV.U t.xyw ({rule}.zxyw), a.yzwx;",
                  f"ADD.U t ({rule}.wzyx), t, 8;",
                  f"IF {rule}.y;", "  ADD.U t.z, t.z, 16;", "ENDIF;",
                  f"MOV.U result.attrib[{k}], t;"]
    return "\n".join(lines + ["END", ""])


def test_the_tests_are_printed_at_the_size_they_decide():
    glsl = xlate.translate(_program(["GT"])).glsl
    assert "    t.w = mix(t.w, 1u, xl_ccGT(xl_cc0.z));\n" in glsl
    assert "    t.xy = mix(t.xy, uvec2(2u), xl_ccGT(xl_cc0.wx));\n" in glsl
    assert "xl_ccGT(xl_cc0.zxw)" in glsl and "    if (xl_ccGT(xl_cc0.y))\n" in glsl
    assert "bool xl_ccGT(uint f)\n{\n    uint s = f & 1u, z = (f >> 1) & 1u, o = (f >> 2) & 1u;\n" \
        "    return (((1u - s) ^ o) & (1u - z)) != 0u;\n}\n" in glsl
    assert "bvec3 xl_ccGT(uvec3 f)" in glsl and "bvec2 xl_ccGT(uvec2 f)" in glsl
    assert ".xxxx)" not in glsl and "any(" not in glsl


@pytest.mark.parametrize("backend", ["gl", "vulkan"])
@pytest.mark.parametrize("part", range(0, len(FLAG_RULES), 6))
def test_every_flag_rule_at_every_size_verifies(backend, part):
    runner = gl_runner(backend)
    text = _program(FLAG_RULES[part:part + 6])
    rep = verify_source(text, "flags.vp", lanes=256, seed=7, backend=backend, runner=runner)
    assert rep.status == "pass", (rep.reason, rep.localization[:2])
    assert not rep.notes or all("explained" not in n for n in rep.notes)
