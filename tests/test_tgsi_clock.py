"""TGSI CLOCK (issue 20): the shader time, the implementation's and different in every run.
GLSL clock2x32ARB (GL_ARB_shader_clock), direct SPIR-V OpReadClockKHR (SPV_KHR_shader_clock);
the executor returns a stand-in (a count of the lane's CLOCK reads), and ``xlate verify`` compares
nothing that depends on it -- by data, or through a condition, shown by the analysis's
dependence -- while every other output must still match bit for bit (a wrong translation of
one is a mismatch)."""
from __future__ import annotations

import numpy as np
import pytest

from conftest import gl_runner

from xlate import api, execute
from xlate.diagnostics import XlateError
from xlate.verify import compare as cmp
from xlate.verify.analysis import analyse
from xlate.verify.core import verify_source

# OUT[0] does not depend on CLOCK, OUT[1] does
PROGRAM = """FRAG
DCL IN[0], GENERIC[0], PERSPECTIVE
DCL OUT[0], COLOR
DCL OUT[1], COLOR[1]
DCL TEMP[0..1]
  0: CLOCK TEMP[0]
  1: ADD OUT[0], IN[0], IN[0].yxwz
  2: U2F TEMP[1], TEMP[0]
  3: ADD OUT[1], TEMP[1], IN[0]
  4: END
"""

# every output depends on CLOCK through the UIF
CONTROL = """FRAG
DCL IN[0], GENERIC[0], PERSPECTIVE
DCL OUT[0], COLOR
DCL TEMP[0..1]
IMM[0] UINT32 {1000, 0, 0, 0}
  0: CLOCK TEMP[0]
  1: USLT TEMP[1].x, TEMP[0].xxxx, IMM[0].xxxx
  2: MOV OUT[0], IN[0]
  3: UIF TEMP[1].xxxx :5
  4:   MOV OUT[0], -IN[0]
  5: ENDIF
  6: END
"""


def test_executor_stand_in_counts_the_lanes_reads():
    src = ("VERT\nDCL IN[0]\nDCL OUT[0], POSITION\nDCL OUT[1], GENERIC[0]\nDCL TEMP[0..1]\n"
           "  0: MOV OUT[0], IN[0]\n  1: CLOCK TEMP[0]\n  2: CLOCK TEMP[1]\n"
           "  3: MOV OUT[1].xy, TEMP[0].xyxy\n  4: MOV OUT[1].zw, TEMP[1].xyxy\n  5: END\n")
    r = execute(api.parse(src), {"vertex.attrib[0]": np.zeros((2, 4), np.float32)})
    assert r.outputs["OUT1"].tolist() == [[1, 0, 2, 0]] * 2


def test_analysis_tracks_data_and_control_dependence():
    f = analyse(api.parse(PROGRAM), set(cmp.INEXACT))
    assert [f.varies("OUT1", c) for c in range(4)] == [{"CLOCK"}] * 4
    assert [f.varies("OUT0", c) for c in range(4)] == [set()] * 4
    g = analyse(api.parse(CONTROL), set(cmp.INEXACT))
    assert g.control_varies == {"CLOCK"} and g.varies("OUT0", 0) == {"CLOCK"}


def test_glsl_and_spirv_forms():
    glsl = api.translate(PROGRAM).glsl
    assert glsl.startswith("#version 450 core\n#extension GL_ARB_shader_clock : require\n")
    assert "    TEMP0 = uvec4(clock2x32ARB(), 0u, 0u);\n" in glsl
    from xlate.backends.spirv import disassemble_spirv
    text = disassemble_spirv(api.translate_program(api.parse(PROGRAM), target="spirv",
                                                   profile="vulkan", via="direct").spirv)
    assert "OpCapability ShaderClockKHR" in text and 'OpExtension "SPV_KHR_shader_clock"' in text
    assert "OpReadClockKHR" in text


def test_clock_reads_are_not_moved():
    # the second read stays where it is (not inlined into its reader, past other reads)
    src = PROGRAM.replace("  2: U2F TEMP[1], TEMP[0]\n",
                          "  2: CLOCK TEMP[1]\n  3: U2F TEMP[1], TEMP[1]\n").replace(
        "  3: ADD OUT[1]", "  4: ADD OUT[1]").replace("  4: END", "  5: END")
    glsl = api.translate(src).glsl
    assert "    TEMP1 = uvec4(clock2x32ARB(), 0u, 0u);\n" in glsl


@pytest.mark.parametrize("profile, line", [
    ("glsl330", "t.tgsi:6:6: error[E7001]: the instruction CLOCK.U cannot be expressed in the "
                "glsl330 profile"),
    ("es310", "t.tgsi:6:6: error[E7001]: the instruction CLOCK.U cannot be expressed in the "
              "es310 profile")])
def test_profiles_without_a_clock_refuse(profile, line):
    with pytest.raises(XlateError) as e:
        api.translate(PROGRAM, filename="t.tgsi", profile=profile)
    assert [d.header() for d in e.value.diagnostics] == [line]


BACKENDS = [("gl", "auto"), ("gl-spirv", "direct"), ("gl-spirv", "glsl"), ("vulkan", "direct"),
            ("vulkan", "glsl")]
NOTE = ("result.color[1].xyzw depends on CLOCK: the implementation's value, different in every "
        "run (tgsi.rst), not compared")


@pytest.mark.parametrize("backend, via", BACKENDS)
def test_outputs_not_depending_on_clock_are_compared(backend, via):
    rep = verify_source(PROGRAM, "clock.tgsi", lanes=64, seed=3, backend=backend,
                        runner=gl_runner(backend), via=via)
    assert rep.status == "pass", (rep.reason, [d.describe() for d in rep.differences[:5]])
    assert rep.compared == 64 * 4             # result.color[0] only
    assert NOTE in rep.notes


def test_a_wrong_translation_of_the_other_output_is_a_mismatch(monkeypatch):
    from xlate.backends.glsl import emitter
    table = dict(emitter.snippet_table())
    expr, helpers = table[("ADD", "F")]
    table[("ADD", "F")] = (expr.replace(" + ", " - "), helpers)
    monkeypatch.setattr(emitter, "snippet_table", lambda: table)
    rep = verify_source(PROGRAM, "clock.tgsi", lanes=64, seed=3, backend="gl",
                        runner=gl_runner("gl"))
    assert rep.status == "mismatch"
    assert {d.output for d in rep.differences} == {"result.color[0]"}


@pytest.mark.parametrize("backend", ["gl", "vulkan"])
def test_an_output_depending_on_clock_through_a_condition_is_not_compared(backend):
    rep = verify_source(CONTROL, "clock.tgsi", lanes=64, seed=3, backend=backend,
                        runner=gl_runner(backend))
    assert (rep.status, rep.reason, rep.compared) == (
        "skipped", "every output depends on CLOCK through a condition: the implementation's "
                   "value, different in every run", 0)
