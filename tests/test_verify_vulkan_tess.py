"""``xlate verify --backend vulkan`` of tessellation programs (issue 20): the harnesses of
gl_tess / gl_tcs in a Vulkan pipeline with tessellation stages on lavapipe
(xlate/verify/vulkan_tess.py), the evaluation shader captured by VK_EXT_transform_feedback and
matched by patch and gl_TessCoord.  The programs of test_tgsi_tess.py pass, with the same lanes
and components as on GL (the same tessellator), and wrong translations are mismatches.  On
gl-spirv and vulkan the direct SPIR-V module runs where ``--via`` picks it (a mutated word of
it is a mismatch), glslang's under ``--via glsl``.  Tests skip with the reason when no Vulkan
implementation exists (XLATE_REQUIRE_VULKAN: fail)."""
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
    assert rep.notes[0] == "ran the direct SPIR-V path's module (xlate's own SPIR-V)"
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
    # the wrong GLSL runs as glslang compiles it (the direct module would run otherwise)
    verify_tess_eval(prog, rep, analyse(prog, set(cmp.INEXACT)), wrong, out.reflection, runner,
                     seed=1, max_reported=5, via="glsl")
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
                     gl_runner("vulkan"), seed=1, max_reported=100, via="glsl")
    assert rep.status == "mismatch"
    assert {(d.output, d.component) for d in rep.differences} == {("result.tessouter (patch)", 2)}
    assert rep.total_differences == 16


@pytest.mark.parametrize("backend", ["gl-spirv", "vulkan"])
@pytest.mark.parametrize("name, text, seed, lanes, compared", [
    ("tes", TES, 5, 4224, 4224 * 12), ("tcs", TCS, 2, 48, 48 * 5 * 4)])
@pytest.mark.parametrize("via", ["auto", "direct", "glsl"])
def test_tessellation_runs_the_module_via_picks(backend, name, text, seed, lanes, compared, via):
    # gl-spirv runs evaluation programs too (GL_ARB_gl_spirv on llvmpipe takes tessellation
    # stages and their transform feedback decorations); the direct module carries the
    # harness's capture / stores made in SPIR-V (spirv_direct/tess.py)
    rep = core.verify_source(text, f"{name}.tgsi", seed=seed, backend=backend,
                             runner=gl_runner(backend), via=via)
    assert (rep.status, rep.lanes, rep.compared) == ("pass", lanes, compared), \
        (rep.reason, [d.describe() for d in rep.differences[:5]])
    ran = "ran the direct SPIR-V path's module (xlate's own SPIR-V)"
    assert (ran in rep.notes) == (via != "glsl")


@pytest.mark.parametrize("text", [TES, TCS])
def test_a_program_the_direct_path_does_not_cover(text, monkeypatch):
    from xlate.backends import spirv_direct

    def declined(prog, profile="vulkan", **kw):
        raise spirv_direct.NotCovered("this test's case")
    monkeypatch.setattr(spirv_direct, "emit_spirv", declined)
    rep = core.verify_source(text, "t.tgsi", backend="vulkan", runner=gl_runner("vulkan"),
                             via="direct")
    assert (rep.status, rep.reason) == ("unsupported",
                                        "direct SPIR-V does not cover this test's case")
    rep = core.verify_source(text, "t.tgsi", seed=2, backend="vulkan",
                             runner=gl_runner("vulkan"))
    assert (rep.status, rep.notes[0]) == ("pass", "direct SPIR-V does not cover this test's "
                                          "case: glslang's SPIR-V ran")


def _mutated_direct_module(monkeypatch):
    """The direct module with its first OpFAdd an OpFSub (still valid): the TES's
    interpolation, the TCS's generic[0] + generic[1]."""
    from spirv_mutants import OP_FADD, OP_FSUB, mutate_direct_module
    return mutate_direct_module(monkeypatch, OP_FADD, OP_FSUB)


@pytest.mark.parametrize("backend", ["gl-spirv", "vulkan"])
def test_a_mutated_direct_module_of_an_evaluation_program_is_a_mismatch(backend, monkeypatch):
    made = _mutated_direct_module(monkeypatch)
    rep = core.verify_source(TES, "tes.tgsi", seed=5, backend=backend,
                             runner=gl_runner(backend), via="direct")
    assert made and set(made) == {"vulkan" if backend == "vulkan" else "glsl450"}
    assert rep.status == "mismatch"
    assert rep.reason.startswith("the direct SPIR-V departs from the executor where glslang's "
                                 "SPIR-V does not (")
    assert {d.output for d in rep.differences} <= {"result.position", "result.generic[0]"}
    # glslang's module of the same translation passes: the difference is the mutation's
    monkeypatch.undo()
    rep = core.verify_source(TES, "tes.tgsi", seed=5, backend=backend,
                             runner=gl_runner(backend), via="glsl")
    assert rep.status == "pass"


@pytest.mark.parametrize("backend", ["gl-spirv", "vulkan"])
def test_a_mutated_direct_module_of_a_control_program_is_a_mismatch(backend, monkeypatch):
    _mutated_direct_module(monkeypatch)
    rep = core.verify_source(TCS, "tcs.tgsi", seed=2, backend=backend,
                             runner=gl_runner(backend), via="direct")
    assert rep.status == "mismatch"
    assert rep.reason.startswith("the direct SPIR-V departs from the executor where glslang's "
                                 "SPIR-V does not (")
    assert {d.output for d in rep.differences} == {"result.generic[0]"}
