"""TGSI INTERP_CENTROID / INTERP_SAMPLE / INTERP_OFFSET (issue 20): the executor's model
(single-sampled: the centroid and every sample are the pixel centre; an offset point lies on
the input's plane, its slopes taken in the lane's 2x2 quad; a flat input is constant), the
GLSL and direct SPIR-V forms, the frontend's refusals, and ``xlate verify`` on llvmpipe and
lavapipe with the harness feeding the interpolated inputs as planes (xlate/verify/planes.py) --
where a translation with the offset's components swapped is a mismatch."""
from __future__ import annotations

import numpy as np
import pytest

from conftest import gl_runner

from xlate import api, execute
from xlate.diagnostics import XlateError
from xlate.verify import planes
from xlate.verify.core import verify_source

PROGRAM = """FRAG
DCL IN[0], GENERIC[0], PERSPECTIVE
DCL IN[1], GENERIC[1], LINEAR
DCL IN[2], GENERIC[2], CONSTANT
DCL OUT[0], COLOR
DCL OUT[1], COLOR[1]
DCL TEMP[0..2]
IMM[0] FLT32 {    0.2500,    -0.1250,     0.0000,     0.5000}
IMM[1] INT32 {1, 0, 0, 0}
  0: INTERP_OFFSET TEMP[0], IN[0].yxzw, IMM[0]
  1: INTERP_CENTROID TEMP[1], -IN[1]
  2: INTERP_SAMPLE TEMP[1].x, IN[0], IMM[1]
  3: INTERP_OFFSET TEMP[2], IN[2], IMM[0].yxzw
  4: ADD OUT[0], TEMP[0], TEMP[1]
  5: ADD OUT[1], TEMP[2], IN[1]
  6: END
"""

# one row of two quads: lane 4k + j is pixel (2k + (j & 1), j >> 1)
X = np.array([0, 1, 0, 1, 2, 3, 2, 3]) + 0.5
Y = np.array([0, 0, 1, 1, 0, 0, 1, 1]) + 0.5


def _plane(a, b, c, x=X, y=Y):
    return np.asarray(a)[None] + np.asarray(b)[None] * x[:, None] + np.asarray(c)[None] * y[:, None]


def test_executor_interpolates_on_the_plane_of_the_quad():
    p0 = ([1, 2, 3, 4], [0.5, 0.25, -1, 0], [0.125, 1, 2, -0.5])
    p1 = ([0, 1, 0, 1], [1, 1, 1, 1], [2, 2, 2, 2])
    flat = np.float32([[k, 10 + k, 0, 0] for k in range(8)])
    r = execute(api.parse(PROGRAM), {"fragment.generic[0]": _plane(*p0).astype(np.float32),
                                     "fragment.generic[1]": _plane(*p1).astype(np.float32),
                                     "fragment.generic[2]": flat})
    sw = [1, 0, 2, 3]
    at_offset = _plane(*(np.asarray(p)[sw] for p in p0), x=X + 0.25, y=Y - 0.125)
    centroid = -_plane(*p1)
    centroid[:, 0] = _plane(*p0)[:, 0]          # INTERP_SAMPLE: single-sampled, the centre
    assert r.float("result.color[0]").tolist() == (at_offset + centroid).astype(np.float32).tolist()
    # a flat input is the same everywhere on the primitive: the offset changes nothing
    assert r.float("result.color[1]").tolist() == (flat + _plane(*p1)).astype(np.float32).tolist()
    # lane 0, by hand: IN[0].yxzw at (0.75, 0.375) plus (IN[0].x at the centre, -IN[1].yzw)
    assert r.float("result.color[0]")[0].tolist() == [3.875, -1.078125, 1.5, 1.3125]


def test_an_offset_component_of_zero_adds_nothing_next_to_an_infinite_neighbour():
    src = ("FRAG\nDCL IN[0], GENERIC[0], LINEAR\nDCL OUT[0], COLOR\n"
           "IMM[0] FLT32 {    0.0000,     0.5000,     0.0000,     0.0000}\n"
           "  0: INTERP_OFFSET OUT[0], IN[0], IMM[0]\n  1: END\n")
    v = np.float32([[1, 1, 0, 0], [np.inf, 2, 0, 0], [3, 5, 0, 0], [4, 6, 0, 0]])
    out = execute(api.parse(src), {"fragment.generic[0]": v}).float("result.color[0]")
    # offset (0, 0.5): half of each column's difference; lane 0's x-slope (inf - 1) times 0 is
    # not taken (it would make NaN); lane 1's column (2 - inf) makes its x NaN
    assert out[:, :2].tolist()[0] == [2.0, 3.0]
    assert np.isnan(out[1, 0]) and out[1, 1] == 4.0
    assert out[2:, :2].tolist() == [[4.0, 7.0], [-np.inf, 8.0]]


def test_glsl_calls_interpolate_at_on_the_variable_with_the_swizzle_after():
    glsl = api.translate(PROGRAM).glsl
    assert "    TEMP1 = -interpolateAtCentroid(fragment_generic_1);\n" in glsl
    assert "    TEMP1.x = interpolateAtSample(fragment_generic_0, ivec4(1, 0, 0, 0).x).x;\n" in glsl
    assert ("    result_color0 = interpolateAtOffset(fragment_generic_0, vec4(0.25, -0.125, 0.0, "
            "0.5).xy).yxzw + TEMP1;\n") in glsl


def test_es310_enables_the_oes_extension():
    glsl = api.translate(PROGRAM.replace("LINEAR", "PERSPECTIVE"), profile="es310").glsl
    assert glsl.startswith("#version 310 es\n#extension GL_OES_shader_multisample_interpolation"
                           " : require\n")


def test_glsl330_refuses_naming_the_profile():
    with pytest.raises(XlateError) as e:
        api.translate(PROGRAM, filename="t.tgsi", profile="glsl330")
    assert [d.header() for d in e.value.diagnostics][0] == (
        "t.tgsi:10:6: error[E7001]: the instruction INTERPOFFSET (interpolateAt*, GLSL 4.00; "
        "glslang has no GL_ARB_gpu_shader5 form of it) cannot be expressed in the glsl330 "
        "profile")


def test_direct_spirv_uses_the_input_variable():
    from xlate.backends.spirv import disassemble_spirv
    words = api.translate_program(api.parse(PROGRAM), target="spirv", profile="vulkan",
                                  via="direct").spirv
    text = disassemble_spirv(words)
    assert "OpCapability InterpolationFunction" in text
    for name in ("InterpolateAtCentroid", "InterpolateAtSample", "InterpolateAtOffset"):
        assert name in text


@pytest.mark.parametrize("body, message", [
    ("INTERP_CENTROID TEMP[0], TEMP[1]", "INTERP_CENTROID interpolates an input: src0 must be "
                                         "IN[n], not TEMP"),
    ("INTERP_OFFSET TEMP[0], IN[1], IMM[0]", "INTERP_OFFSET interpolates a varying: IN[1] is "
                                             "fragment.position"),
])
def test_frontend_refuses_what_is_not_a_varying(body, message):
    src = ("FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL IN[1], POSITION, LINEAR\n"
           "DCL OUT[0], COLOR\nDCL TEMP[0..1]\nIMM[0] FLT32 { 0.0, 0.0, 0.0, 0.0}\n"
           f"  0: {body}\n  1: MOV OUT[0], TEMP[0]\n  2: END\n")
    with pytest.raises(XlateError) as e:
        api.parse(src, filename="t.tgsi")
    assert [d.header() for d in e.value.diagnostics] == [f"t.tgsi:7:6: error[E3004]: {message}"]


def test_vertex_programs_have_no_interpolation():
    src = ("VERT\nDCL IN[0]\nDCL OUT[0], POSITION\n  0: INTERP_CENTROID OUT[0], IN[0]\n"
           "  1: END\n")
    with pytest.raises(XlateError) as e:
        api.parse(src, filename="t.tgsi")
    assert [d.header() for d in e.value.diagnostics] == [
        "t.tgsi:4:6: error[E3004]: INTERP_CENTROID is a fragment-shader opcode"]


def test_planes_are_exact_at_vertices_and_centres():
    rng = np.random.default_rng(5)
    c = planes.draw_plane(rng)
    assert set(np.unique((c[0] - 2.0 ** -11) * 4 % 1)) == {0.0} and set(np.unique(c[1:] * 16 % 1)) == {0.0}
    v = planes.vertex_values(c, 64, 32)
    assert v.dtype == np.float32 and v.tolist() == (
        c[0][None].astype(np.float64) + c[1][None] * np.array([0, 128, 0.])[:, None]
        + c[2][None] * np.array([0, 0, 64.])[:, None]).tolist()
    words = planes.lane_values(c, np.array([3]), np.array([5]))
    assert words.view(np.float32)[0].tolist() == (c[0] + c[1] * 3.5 + c[2] * 5.5).tolist()


def test_the_harness_vertex_shader_writes_the_planes():
    c = np.float32([[1, 0, 0, 0], [0.5, 0, 0, 0], [0, 0, 0, 0.25]])
    vs = planes.vertex_shader("#version 450 core", "gl_VertexID", [(5, c)], 64, 32)
    assert ("    xv_plane5 = uintBitsToFloat(uvec4[3](uvec4(0x3f800000u, 0x00000000u, "
            "0x00000000u, 0x00000000u), uvec4(0x42820000u, 0x00000000u, 0x00000000u, "
            "0x00000000u), uvec4(0x3f800000u, 0x00000000u, 0x00000000u, 0x41800000u))"
            "[gl_VertexID]);\n") in vs
    assert "layout(location = 5) out vec4 xv_plane5;\n" in vs


BACKENDS = [("gl", "auto"), ("gl-spirv", "direct"), ("gl-spirv", "glsl"), ("vulkan", "direct"),
            ("vulkan", "glsl")]


@pytest.mark.parametrize("backend, via", BACKENDS)
def test_interp_verifies(backend, via):
    runner = gl_runner(backend)
    rep = verify_source(PROGRAM, "interp.tgsi", lanes=256, seed=3, backend=backend,
                        runner=runner, via=via)
    assert rep.status == "pass", (rep.reason, [d.describe() for d in rep.differences[:5]])
    assert rep.compared == 256 * 8


def test_swapped_offset_components_are_a_mismatch_on_the_glsl_path(monkeypatch):
    from xlate.backends.glsl import emitter
    table = dict(emitter.snippet_table())
    expr, helpers = table[("INTERPOFFSET", "F")]
    table[("INTERPOFFSET", "F")] = (expr.replace("{b}.xy", "{b}.yx"), helpers)
    monkeypatch.setattr(emitter, "snippet_table", lambda: table)
    _expect_offset_mismatch("gl", "auto")


def test_swapped_offset_components_are_a_mismatch_on_the_direct_path(monkeypatch):
    from xlate.backends.spirv_direct import fragment_ops
    real = fragment_ops.interpolate

    def swapped(e, ins):
        if ins.op == "INTERPOFFSET":
            from dataclasses import replace
            ins = replace(ins, srcs=(ins.srcs[0], replace(ins.srcs[1], swizzle=(1, 0, 2, 3))))
        return real(e, ins)
    monkeypatch.setattr(fragment_ops, "interpolate", swapped)
    from xlate.backends.spirv_direct import emitter
    monkeypatch.setattr(emitter, "interpolate", swapped)
    _expect_offset_mismatch("gl-spirv", "direct")


def _expect_offset_mismatch(backend, via):
    runner = gl_runner(backend)
    rep = verify_source(PROGRAM, "interp.tgsi", lanes=64, seed=3, backend=backend,
                        runner=runner, via=via)
    assert rep.status == "mismatch", rep.reason
    assert [d.describe() for d in rep.differences[:1]] == [
        "result.color[0].x lane 0: executor -5.3974609375 (0xc0acb800), implementation -5.2568359375 "
        "(0xc0a83800)"]


@pytest.mark.parametrize("op, wrong", [
    ("INTERPCENTROID", "interpolateAtOffset({a}, vec2(0.25, 0.0))"),
    ("INTERPSAMPLE", "interpolateAtOffset({a}, vec2(0.0, -0.25))"),
])
def test_a_wrong_centroid_or_sample_point_is_a_mismatch(monkeypatch, op, wrong):
    # single-sampled, both are the pixel centre: any other point of the plane departs
    from xlate.backends.glsl import emitter
    table = dict(emitter.snippet_table())
    table[(op, "F")] = (wrong, ())
    monkeypatch.setattr(emitter, "snippet_table", lambda: table)
    rep = verify_source(PROGRAM, "interp.tgsi", lanes=64, seed=3, backend="gl",
                        runner=gl_runner("gl"))
    assert rep.status == "mismatch", rep.reason
    assert op in rep.reason
