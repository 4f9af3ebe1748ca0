"""A float DIV by a literal +-0 is printed as a product by the infinity of that sign
(xlate/passes/zerodivisors.py): the IEEE value of every dividend, which GLSL's ``x / 0.0``
does not promise (GLSL 4.50 §5.9) and llvmpipe does not give (gallivm folds a constant +0.0
divisor to undef: 0.0, or the register's old value -- tgsi tess_evaluation seed 186)."""
from __future__ import annotations

import numpy as np
import pytest

import xlate
from xlate.backends.glsl import emit_glsl
from xlate.passes.pipeline import lower
from xlate.passes.structurize import Op
from xlate.verify.core import verify_source

from test_verify_cases import impl_words, run_both, runner_or_skip

DIV0 = """VERT
DCL IN[0]
DCL OUT[0], POSITION
DCL OUT[1], GENERIC[0]
DCL OUT[2], GENERIC[1]
DCL TEMP[0..1]
IMM[0] FLT32 {0x00000000, 0x80000000, 0x40000000, 0x3f800000}
IMM[1] FLT32 {3.0, 3.0, 3.0, 2.0}
  0: MOV TEMP[0], IMM[1]
  1: MOV TEMP[1], IN[0]
  2: DIV TEMP[0], TEMP[1], IMM[0]
  3: MOV OUT[0], IN[0]
  4: MOV OUT[1], TEMP[0]
  5: DIV OUT[2], TEMP[1], -IMM[0].xxxx
  6: END
"""


def _tree_ops(lowered):
    out = []

    def walk(v):
        if isinstance(v, Op):
            out.append(v.ins)
        elif isinstance(v, list):
            for x in v:
                walk(x)
        elif hasattr(v, "__dataclass_fields__"):
            for name in v.__dataclass_fields__:
                walk(getattr(v, name))
    walk(lowered.structured.main.body)
    return out


def test_the_tree_multiplies_by_the_signed_infinity_and_the_ir_keeps_its_div():
    prog = xlate.parse(DIV0)
    before = [ins.op for ins in prog.instructions]
    ops = _tree_ops(lower(prog))
    assert [ins.op for ins in prog.instructions] == before      # the executor's IR is untouched
    divs = [(ins.op, ins.srcs[1].reg, ins.dst.mask) for ins in ops if ins.op in ("DIV", "MUL")]
    # TGSI's componentwise DIV is one scalar-divisor DIV per component: x by +0, y by -0
    # (both infinities), z by 2 and w by 1 stay divisions; OUT[2] divides each by -(+0) = -0
    assert divs == [("MUL", "%kinf", (True, False, False, False)),
                    ("MUL", "%kninf", (False, True, False, False)),
                    ("DIV", "IMM0", (False, False, True, False)),
                    ("DIV", "IMM0", (False, False, False, True))] + \
        [("MUL", "%kninf", tuple(c == i for c in range(4))) for i in range(4)]
    assert prog.registers["%kinf"].value == ((0x7F800000,) * 4,)
    assert prog.registers["%kninf"].value == ((0xFF800000,) * 4,)


def test_glsl_of_a_literal_zero_divisor():
    src = emit_glsl(xlate.parse(DIV0)).source
    assert "* uintBitsToFloat(0x7f800000u)" in src and "* uintBitsToFloat(0xff800000u)" in src
    assert "/ 0.0" not in src and "/ -0.0" not in src
    assert "/ 2.0" in src                                   # a non-zero literal stays a division


@pytest.mark.parametrize("text", [
    "!!NVvp4.0\nDIV result.position, vertex.attrib[0], program.local[0].x;\nEND\n",
    "!!NVvp4.0\nPARAM c = program.local[0];\nDIV result.position, vertex.attrib[0], c.x;\n"
    "END\n",
])
def test_a_divisor_the_program_does_not_state_stays_a_division(text):
    """program.local is a uniform (its PARAM carries placeholder words, not a value)."""
    prog = xlate.parse(text)
    assert not any(ins.op == "MUL" for ins in _tree_ops(lower(prog)))
    assert "%kinf" not in prog.registers


@pytest.mark.parametrize("backend", ["gl", "gl-spirv", "vulkan"])
def test_division_by_a_literal_zero_on_the_implementation(backend):
    """Every dividend: finite (both signs), zero (NaN), infinite, NaN -- the implementation's
    words are the executor's IEEE quotients (NaN payloads aside)."""
    a = np.array([[2.0, -3.0, 0.0, np.inf], [-0.5, np.inf, -np.inf, np.nan],
                  [1e-30, -1e30, 7.0, 0.0], [0.0, 0.0, 0.0, 0.0]], np.float32)
    diffs, res, cap = run_both(DIV0, {"vertex.attrib[0]": a}, backend=backend)
    exe = res.words("result.generic[0]")
    assert exe[0].tolist() == [0x7F800000, 0x7F800000, 0, 0x7F800000]    # 2/+0, -3/-0, 0/2, inf/1
    assert not diffs, [d.describe() for d in diffs[:4]]
    got = impl_words(DIV0, cap, "result.generic[1]")
    assert got[0].view(np.float32)[:2].tolist() == [-np.inf, np.inf]


def test_verify_passes_the_campaign_program_reduced():
    """The reduced tess_evaluation seed 186 (``DIV TEMP[0], TEMP[1].xyzx, IMM[0]``, x by 0):
    a divergence at the DIV before the rewrite."""
    runner = runner_or_skip("gl")
    rep = verify_source(DIV0, "div0.tgsi", lanes=64, seed=1, runner=runner)
    assert rep.status == "pass" and not rep.localization, (rep.reason, rep.localization[:2])
