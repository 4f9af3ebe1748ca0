"""TGSI tessellation control programs on the direct SPIR-V path (issue 19/20;
backends/spirv_direct/tess.py): the module's entry point, interface and per-patch stores,
spirv-val in both environments, execution on llvmpipe through GL_ARB_gl_spirv checked exactly
against the executor (``xlate verify --backend gl-spirv`` runs the direct module in the control
harness, verify/gl_tcs.py), and a wrong store made a mismatch."""
from __future__ import annotations

import re

import pytest

from conftest import gl_runner

from xlate import api
from xlate.backends.spirv import disassemble_spirv, validate_spirv
from xlate.backends.spirv_direct import Instrumentation, emit_spirv
from xlate.verify.core import verify_source
from xlate.verify.gl_tcs import lane_outputs

from test_tgsi_tess import TCS

#: every kind of control output: a per-vertex varying, gl_Position, gl_PointSize, both levels
#: and an integer patch varying, each component of PATCH[0] written by another invocation
ALL_OUTPUTS = """TESS_CTRL
PROPERTY TCS_VERTICES_OUT 4
DCL IN[][0], GENERIC[0]
DCL IN[][1], POSITION
DCL SV[0], INVOCATIONID
DCL SV[1], PRIM_ID
DCL OUT[][0], GENERIC[3]
DCL OUT[][1], POSITION
DCL OUT[][2], PSIZE
DCL OUT[3], TESSOUTER
DCL OUT[4], TESSINNER
DCL OUT[5], PATCH[0]
DCL ADDR[0]
DCL TEMP[0..1]
IMM[0] UINT32 {0, 1, 2, 3}
IMM[1] FLT32 {1.5, 2.0, 3.0, 0.25}
  0: UARL ADDR[0].x, SV[0].xxxx
  1: MUL OUT[ADDR[0].x][0], IN[0][0], IN[2][1].yxzw
  2: ADD OUT[ADDR[0].x][1], IN[1][1], IMM[1]
  3: I2F TEMP[0].x, SV[0].xxxx
  4: MOV OUT[ADDR[0].x][2].x, TEMP[0].xxxx
  5: USEQ TEMP[1], SV[0].xxxx, IMM[0]
  6: UIF TEMP[1].xxxx
  7:   MOV OUT[3], IMM[1]
  8:   UADD OUT[5].x, SV[1].xxxx, IMM[0].wwww
  9: ENDIF
 10: UIF TEMP[1].yyyy
 11:   MOV OUT[4].xy, IMM[1].wzzz
 12:   MOV OUT[5].y, SV[0].xxxx
 13: ENDIF
 14: UIF TEMP[1].wwww
 15:   MOV OUT[5].zw, IMM[0].yyzz
 16: ENDIF
 17: END
"""


def _modules(src: str) -> dict[str, str]:
    prog = api.parse(src, filename="tcs.tgsi")
    out = {}
    for profile, env in (("vulkan", "vulkan"), ("glsl450", "opengl")):
        plain = emit_spirv(prog, profile)
        assert validate_spirv(plain.spirv, target=env) is None, profile
        outputs = plain.reflection["outputs"]
        harness = emit_spirv(prog, profile, instrumentation=Instrumentation(
            tcs_lanes=64, tcs_lane_outputs=lane_outputs(plain.reflection,
                                                         prog.tessellation.written),
            tcs_patch_outputs=[o for o in outputs if o["binding"] in (
                "result.tessouter", "result.tessinner") or o["binding"].startswith(
                "result.patch")]))
        assert validate_spirv(harness.spirv, target=env) is None, profile
        t = api.translate(src, filename="tcs.tgsi", target="spirv", profile=profile)
        assert t.spirv_via == "direct" and t.spirv == plain.spirv
        assert t.reflection == api.translate(src, filename="tcs.tgsi", target="spirv",
                                             profile=profile, via="glsl").reflection
        out[profile] = disassemble_spirv(plain.spirv)
    return out


def test_the_control_module():
    for text in _modules(ALL_OUTPUTS).values():
        assert re.search(r"OpEntryPoint TessellationControl %\w+ \"main\"", text)
        assert re.search(r"OpExecutionMode %\w+ OutputVertices 4\n", text)
        assert "OpCapability Tessellation" in text
        for builtin in ("InvocationId", "PrimitiveId", "TessLevelOuter", "TessLevelInner",
                        "Position", "PointSize"):
            assert re.search(rf"OpDecorate %\w+ BuiltIn {builtin}\n", text), builtin
        # the two levels and PATCH[0] are Patch outputs; the per-vertex ones arrays of 4
        assert len(re.findall(r"OpDecorate %\w+ Patch\n", text)) == 3
        assert re.search(r"OpTypeArray %\w+ %\w+\n", text)
        # each level and PATCH[0] component stored under its written-components flag:
        # 4 + 2 + 4 selection constructs
        assert text.count("OpSelectionMerge") >= 10


def test_the_golden_control_program_validates():
    text = _modules(TCS)["glsl450"]
    assert re.search(r"OpExecutionMode %\w+ OutputVertices 3\n", text)


def _verify(src: str, seed: int = 1, via: str = "direct"):
    return verify_source(src, "tcs.tgsi", seed=seed, backend="gl-spirv",
                         runner=gl_runner("gl-spirv"), via=via)


@pytest.mark.parametrize("src", [TCS, ALL_OUTPUTS], ids=["golden", "all-outputs"])
def test_control_programs_verify_through_gl_spirv(src):
    rep = _verify(src)
    assert rep.status == "pass", (rep.reason, [d.describe() for d in rep.differences[:4]])
    assert "ran the direct SPIR-V path's module (xlate's own SPIR-V)" in rep.notes
    assert rep.compared > 0
    # glslang's module through the same harness (the constant lane count) agrees
    g = _verify(src, via="glsl")
    assert g.status == "pass" and not any("direct" in n for n in g.notes)


def test_generated_control_programs_verify_on_the_direct_module():
    from xlate.verify.generate import generate
    failures = []
    for seed in range(6):
        rep = _verify(generate("tgsi", seed, "tess_control"), seed)
        assert "ran the direct SPIR-V path's module (xlate's own SPIR-V)" in rep.notes
        if rep.status != "pass":
            failures.append(f"{seed}: {rep.status}: {rep.reason}")
    assert not failures, failures


def test_ignoring_the_written_components_is_a_mismatch(monkeypatch):
    # every invocation stores every level: the ones that did not write a level store 0 over
    # invocation 0's levels
    from xlate.backends.spirv_direct.tess import TessMixin
    monkeypatch.setattr(TessMixin, "written_flag",
                        lambda self, w, c: self.m.const("b", True))
    rep = _verify(TCS)
    assert rep.status == "mismatch"
    assert "per-patch output components differ from the combination" in rep.reason or \
        "the direct SPIR-V departs from the executor" in rep.reason


def test_a_level_stored_to_the_wrong_component_is_a_mismatch(monkeypatch):
    from xlate.backends.spirv_direct.tess import TessMixin
    real = TessMixin.patch_component

    def shifted(self, out, elem, c):
        return real(self, out, elem, 1 - c if c < 2 else c)     # levels 0 and 1 swapped
    monkeypatch.setattr(TessMixin, "patch_component", shifted)
    rep = _verify(TCS)
    assert rep.status == "mismatch"
    assert {(d.output, d.component) for d in rep.differences} >= {
        ("result.tessouter (patch)", 0), ("result.tessouter (patch)", 1)}
