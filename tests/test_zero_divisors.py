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


def _divisions(text: str) -> list[tuple[str, str]]:
    """(opcode, divisor register) of the tree's float DIVs, rewritten or not."""
    return [(i.op, i.srcs[1].reg) for i in _tree_ops(lower(xlate.parse(text)))
            if i.op == "DIV" or (i.op == "MUL" and i.srcs[1].reg.startswith("%k"))]


def _nv4(body: str) -> str:
    return ("!!NVvp4.0\nTEMP R0, R1, R2;\nMOV R0, vertex.attrib[0];\n" + body +
            "MOV result.position, R2;\nMOV result.texcoord[0], R1;\nEND\n")


@pytest.mark.parametrize("body, want", [
    # a literal moved into a temporary: Mesa's propagation sees the constant divisor too
    ("MOV R1.w, 0.0;\nDIV R2, R0, R1.w;\n", [("MUL", "%kinf")]),
    ("MOV R1, {1, 2, 0, 4};\nMOV R1.y, -R1.z;\nDIV R2, R0, R1.y;\n", [("MUL", "%kninf")]),
    ("MOV R1.w, 0.0;\nDIV R2, R0, -|R1.w|;\n", [("MUL", "%kninf")]),
    # SCS's z and w are +0.0 (generated NV4 vertex seed 2202)
    ("SCS R1, R0.x;\nDIV R2, R0, R1.w;\n", [("MUL", "%kinf")]),
    ("SCS R1, R0.x;\nDIV R2, R0, R1.x;\n", [("DIV", "R1")]),
    # a later write forgets the word, whatever it writes
    ("MOV R1.w, 0.0;\nMOV R1.w, R0.x;\nDIV R2, R0, R1.w;\n", [("DIV", "R1")]),
    ("MOV R1.w, 0.0;\nADD R1, R0, 1;\nDIV R2, R0, R1.w;\n", [("DIV", "R1")]),
    ("MOV R1.w, 0.0;\nMOV.SAT R1.w, 0.0;\nDIV R2, R0, R1.w;\n", [("DIV", "R1")]),
    # a conditional write may or may not happen
    ("MOV.CC R1, R0;\nMOV R1.w (GT.x), 0.0;\nDIV R2, R0, R1.w;\n", [("DIV", "R1")]),
    # both arms of an IF must leave the word; the divisions inside see their own arm's
    ("MOV.CC R1, R0;\nMOV R1.w, 0.0;\nIF GT.x;\nMOV R1.w, 2.0;\nELSE;\nDIV R2, R0, R1.w;\n"
     "ENDIF;\nDIV R2, R2, R1.w;\n", [("MUL", "%kinf"), ("DIV", "R1")]),
    ("MOV.CC R1, R0;\nIF GT.x;\nMOV R1.w, 0.0;\nELSE;\nMOV R1.w, -0.0;\nENDIF;\n"
     "DIV R2, R0, R1.w;\n", [("DIV", "R1")]),
    ("MOV.CC R1, R0;\nIF GT.x;\nMOV R1.w, 0.0;\nELSE;\nSCS R1, R0.y;\nENDIF;\n"
     "DIV R2, R0, R1.w;\n", [("MUL", "%kinf")]),
    # a loop that writes it: not known at the head, nor after
    ("MOV R1.w, 0.0;\nREP 2;\nDIV R2, R0, R1.w;\nMOV R1.w, R0.x;\nENDREP;\n"
     "DIV R2, R2, R1.w;\n", [("DIV", "R1"), ("DIV", "R1")]),
    ("MOV R1.w, 0.0;\nREP 2;\nDIV R2, R0, R1.w;\nADD R0, R0, 1;\nENDREP;\n",
     [("MUL", "%kinf")]),
])
def test_a_literal_zero_reaches_the_divisor_through_temporaries(body, want):
    assert _divisions(_nv4(body)) == want


def test_a_call_forgets_what_the_temporaries_held():
    text = ("!!NVvp4.0\nTEMP R0, R1, R2;\nMOV R0, vertex.attrib[0];\nMOV R1.w, 0.0;\n"
            "MOV.CC R2, R0;\nCAL f (GT.x);\nCAL f (LT.y);\nDIV R2, R0, R1.w;\n"
            "MOV result.position, R2;\nRET;\nf:\nMOV R1.w, R0.x;\nRET;\nEND\n")
    assert _divisions(text) == [("DIV", "R1")]


@pytest.mark.parametrize("backend", ["gl", "vulkan"])
def test_verify_passes_a_zero_divisor_left_by_scs(backend):
    """Generated NV4 vertex seed 2202, reduced: the DIV of a finite dividend by SCS's +0.0 w
    gives +-Inf, saturated to +-1; llvmpipe folded ``R / R1.w`` to 0.0 before the rewrite."""
    from conftest import gl_runner
    text = _nv4("SCS R1, R0.y;\nDIV.F.SSAT R2, R0, R1.w;\n")
    rep = verify_source(text, "scs_div.vp", lanes=64, seed=2200, backend=backend,
                        runner=gl_runner(backend))
    assert rep.status == "pass", (rep.reason, rep.localization[:2])   # (SCS's tolerance)


def test_a_literal_moved_through_a_precision_conversion_is_not_followed():
    """``MOVH`` rounds what it moves to fp16 (a literal 1e-10 becomes 0): not followed; an
    ``R`` (fp32) move is no conversion."""
    base = ("!!ARBfp1.0\nOPTION NV_fragment_program2;\nTEMP R0, R1;\nSHORT TEMP H1;\n"
            "MOVR R0, fragment.texcoord[0];\n{move}\nDIVR R0, R0, {reg}.w;\n"
            "MOVR result.color, R0;\nEND\n")
    assert _divisions(base.format(move="MOVR R1.w, 0;", reg="R1")) == [("MUL", "%kinf")]
    assert _divisions(base.format(move="MOVH H1.w, 0;", reg="H1")) == [("DIV", "H1")]
