"""``xlate verify --backend vulkan`` of tessellation programs (issue 20): the harnesses of
gl_tess / gl_tcs in a Vulkan pipeline with tessellation stages on lavapipe
(xlate/verify/vulkan_tess.py), the evaluation shader captured by VK_EXT_transform_feedback and
matched by patch and gl_TessCoord.  The programs of test_tgsi_tess.py pass, with the same lanes
and components as on GL (the same tessellator), and wrong translations are mismatches.  Tests
skip with the reason when no Vulkan implementation exists (XLATE_REQUIRE_VULKAN: fail)."""
from __future__ import annotations

import pytest

from conftest import gl_runner

from xlate import api
from xlate.backends.glsl import emit_glsl
from xlate.verify import compare as cmp
from xlate.verify import core
from xlate.verify.analysis import analyse
from xlate.verify.core import ProgramReport
from xlate.verify.tess_verify import verify_tess_ctrl, verify_tess_eval

from test_tgsi_tess import TCS, TES, _tes


def _verify(text: str, name: str, seed: int):
    return core.verify_source(text, name, seed=seed, backend="vulkan",
                              runner=gl_runner("vulkan"))


@pytest.mark.parametrize("prim,point,lanes", [(4, 0, 2496), (7, 0, 2496), (1, 0, 768),
                                              (4, 1, 768)])
def test_evaluation_programs_pass_on_vulkan(prim, point, lanes):
    rep = _verify(_tes(prim, 2, 0, point), "tes.tgsi", seed=3)
    assert rep.status == "pass", (rep.reason, [d.describe() for d in rep.differences[:5]])
    # as many captured vertices as llvmpipe's GL makes (test_tgsi_tess: lanes > 64)
    assert (rep.lanes, rep.compared, rep.backend) == (lanes, lanes * 8, "vulkan")


def test_the_richer_evaluation_program_passes_on_vulkan():
    rep = _verify(TES, "tes.tgsi", seed=5)
    assert rep.status == "pass", (rep.reason, [d.describe() for d in rep.differences[:5]])
    assert (rep.lanes, rep.compared) == (4224, 4224 * 12)
    assert rep.notes[0] == ("glslang's SPIR-V ran (the tessellation harness instruments "
                            "the GLSL translation)")
    assert rep.notes[-1] == ("64 patches of 3 vertices, levels outer (2.0, 3.0, 4.0, 2.0) inner "
                             "(3.0, 2.0): 4224 captured vertices compared one by one, matched "
                             "by patch and gl_TessCoord")


def test_the_same_vertices_as_on_gl():
    vk = _verify(TES, "tes.tgsi", seed=5)
    gl = core.verify_source(TES, "tes.tgsi", seed=5, runner=gl_runner("gl"))
    assert (gl.status, gl.lanes, gl.compared) == (vk.status, vk.lanes, vk.compared)


def test_swapped_tess_coordinates_are_a_mismatch_on_vulkan():
    runner = gl_runner("vulkan")
    prog = api.parse(TES)
    out = emit_glsl(prog, "vulkan")
    wrong = out.source.replace("vec4(gl_TessCoord, 0.0)", "vec4(gl_TessCoord.yxz, 0.0)")
    assert wrong != out.source
    rep = ProgramReport(file="tes.tgsi", backend="vulkan")
    verify_tess_eval(prog, rep, analyse(prog, set(cmp.INEXACT)), wrong, out.reflection, runner,
                     seed=1, max_reported=5)
    assert rep.status == "mismatch"
    assert {d.output for d in rep.differences} <= {"result.position", "result.generic[0]"}
    rep = ProgramReport(file="tes.tgsi", backend="vulkan")
    verify_tess_eval(prog, rep, analyse(prog, set(cmp.INEXACT)), out.source, out.reflection,
                     runner, seed=1, max_reported=5)
    assert rep.status == "pass"


def test_control_program_passes_on_vulkan():
    rep = _verify(TCS, "tcs.tgsi", seed=2)
    assert rep.status == "pass", (rep.reason, [d.describe() for d in rep.differences[:5]])
    # 16 patches x 3 invocations, 5 compared outputs of 4 words each (as on GL)
    assert (rep.lanes, rep.compared) == (48, 48 * 5 * 4)


def test_a_wrong_level_of_a_control_program_is_a_mismatch_on_vulkan():
    prog = api.parse(TCS)
    out = emit_glsl(prog, "vulkan")
    wrong = out.source.replace("gl_TessLevelOuter[2] = out_result_tessouter.z",
                               "gl_TessLevelOuter[2] = out_result_tessouter.w")
    assert wrong != out.source
    rep = ProgramReport(file="tcs.tgsi", backend="vulkan")
    verify_tess_ctrl(prog, rep, analyse(prog, set(cmp.INEXACT)), wrong, out.reflection,
                     gl_runner("vulkan"), seed=1, max_reported=100)
    assert rep.status == "mismatch"
    assert {(d.output, d.component) for d in rep.differences} == {("result.tessouter (patch)", 2)}
    assert rep.total_differences == 16


def test_the_gl_spirv_backend_still_refuses_tessellation():
    rep = core.verify_source(TES, "tes.tgsi", backend="gl-spirv",
                             runner=gl_runner("gl-spirv"))
    assert (rep.status, rep.reason) == ("unsupported", "tessellation evaluation programs are "
                                        "verified on the gl and vulkan backends only")


def test_the_direct_module_alone_is_not_run_for_tessellation():
    rep = core.verify_source(TES, "tes.tgsi", backend="vulkan", runner=gl_runner("vulkan"),
                             via="direct")
    assert (rep.status, rep.reason) == ("unsupported", "the direct SPIR-V module of a "
                                        "tessellation program is not run (the harness "
                                        "instruments the GLSL translation, which glslang "
                                        "compiles)")
