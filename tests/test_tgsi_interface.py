"""TGSI declarations that shape the interface (issue 20): ranged declarations with a semantic,
ARRAY(n) ranges addressed relatively, the fragment-coordinate properties and SAMPLEID under the
older profiles.  Each reading is checked in the executor, in the GLSL, and on llvmpipe through
``xlate verify`` (skipped with the reason where no GL implementation exists)."""
from __future__ import annotations

import numpy as np
import pytest

from conftest import gl_runner

from xlate import api, execute
from xlate.diagnostics import XlateError
from xlate.verify.core import verify_source

RANGED_SEMANTIC = """VERT
DCL IN[0]
DCL OUT[0], POSITION
DCL OUT[1..2], GENERIC[0]
MOV OUT[0], IN[0]
MOV OUT[1], IN[0]
MOV OUT[2], -IN[0]
END
"""

# the ARRAY(1) range written through ADDR: OUT[ADDR[0].x+1] is OUT[2], GENERIC[1]
ARRAY_INDIRECT_WRITE = """VERT
DCL IN[0]
DCL OUT[0], POSITION
DCL OUT[1..2], ARRAY(1), GENERIC[0]
DCL ADDR[0]
IMM[0] INT32 {1, 0, 0, 0}
MOV OUT[0], IN[0]
UARL ADDR[0].x, IMM[0].xxxx
MOV OUT[1], IN[0]
MOV OUT[ADDR[0].x+1], -IN[0]
END
"""

# the fragment-input form: IN[ADDR[0].x+1] with ADDR 1 is IN[2], GENERIC[2]
ARRAY_INDIRECT_READ = """FRAG
DCL IN[1..3], ARRAY(1), GENERIC[1], PERSPECTIVE
DCL OUT[0], COLOR
DCL ADDR[0]
IMM[0] INT32 {1, 0, 0, 0}
UARL ADDR[0].x, IMM[0].xxxx
MOV OUT[0], IN[ADDR[0].x+1]
END
"""


def _inputs(n, names):
    rng = np.random.default_rng(7)
    return {name: rng.uniform(-4, 4, (n, 4)).astype(np.float32) for name in names}


def test_ranged_declaration_advances_the_semantic_index():
    # Mesa reads DCL OUT[1..2], GENERIC[0] as GENERIC[0], GENERIC[1] (tgsi_scan adds
    # reg - Range.First); before issue 20 both were GENERIC[0]
    prog = api.parse(RANGED_SEMANTIC)
    ins = _inputs(5, ["vertex.attrib[0]"])
    r = execute(prog, ins)
    a = ins["vertex.attrib[0]"]
    assert np.array_equal(r.words("result.generic[0]").view(np.float32), a)
    assert np.array_equal(r.words("result.generic[1]").view(np.float32), -a)
    glsl = api.translate(RANGED_SEMANTIC).glsl
    assert "layout(location = 5) precise out vec4 result_generic_0;" in glsl      # written in place
    assert "layout(location = 6) precise out vec4 result_generic_1;" in glsl


def test_array_range_written_relatively_reaches_its_own_elements():
    prog = api.parse(ARRAY_INDIRECT_WRITE)
    ins = _inputs(5, ["vertex.attrib[0]"])
    r = execute(prog, ins)
    a = ins["vertex.attrib[0]"]
    assert np.array_equal(r.words("result.position").view(np.float32), a)
    assert np.array_equal(r.words("result.generic[0]").view(np.float32), a)
    assert np.array_equal(r.words("result.generic[1]").view(np.float32), -a)


def test_array_range_read_relatively_in_a_fragment_shader():
    prog = api.parse(ARRAY_INDIRECT_READ)
    ins = _inputs(5, ["fragment.generic[1]", "fragment.generic[2]", "fragment.generic[3]"])
    r = execute(prog, ins)
    assert np.array_equal(r.words("result.color[0]").view(np.float32), ins["fragment.generic[2]"])


def test_relative_base_outside_every_declaration_is_reported():
    src = ARRAY_INDIRECT_READ.replace("IN[ADDR[0].x+1]", "IN[ADDR[0].x+7]")
    with pytest.raises(XlateError) as e:
        api.parse(src, filename="t.tgsi")
    assert [d.header() for d in e.value.diagnostics] == [
        "t.tgsi:7:1: error[E2003]: IN[7], the base of a relative operand, is not declared"]


@pytest.mark.parametrize("name,text", [("ranged", RANGED_SEMANTIC),
                                       ("array_write", ARRAY_INDIRECT_WRITE),
                                       ("array_read", ARRAY_INDIRECT_READ)])
def test_ranged_declarations_verify_on_gl(name, text):
    runner = gl_runner("gl")
    rep = verify_source(text, f"{name}.tgsi", lanes=256, seed=5, backend="gl", runner=runner)
    assert rep.status == "pass", (rep.reason, [d.describe() for d in rep.differences[:5]])
    assert rep.compared > 0


def _fragcoord_program(origin: str, center: str = "HALF_INTEGER") -> str:
    # the position itself and its derivative along y: the origin flips the sign of DDY
    return f"""FRAG
PROPERTY FS_COORD_ORIGIN {origin}
PROPERTY FS_COORD_PIXEL_CENTER {center}
DCL IN[0], POSITION, LINEAR
DCL OUT[0], COLOR
DCL OUT[1], COLOR[1]
DDY OUT[1], IN[0]
MOV OUT[0], IN[0]
END
"""


def test_fs_coord_origin_upper_left_redeclares_gl_fragcoord():
    upper = api.translate(_fragcoord_program("UPPER_LEFT"))
    lower = api.translate(_fragcoord_program("LOWER_LEFT"))
    assert upper.program.fragcoord_origin_upper_left and not lower.program.fragcoord_origin_upper_left
    assert "layout(origin_upper_left) in vec4 gl_FragCoord;" in upper.glsl
    assert "origin_upper_left" not in lower.glsl
    assert "layout(origin_upper_left) in vec4 gl_FragCoord;" in api.translate(
        _fragcoord_program("UPPER_LEFT"), profile="glsl330").glsl


def test_fs_coord_origin_upper_left_is_refused_where_it_cannot_be_said():
    # ES 3.10 has no origin qualifier: y from the top would need the framebuffer height
    with pytest.raises(XlateError) as e:
        api.translate(_fragcoord_program("UPPER_LEFT"), filename="t.tgsi", profile="es310")
    assert [d.header() for d in e.value.diagnostics] == [
        "t.tgsi:7:1: error[E7001]: a fragment position with its origin at the upper left "
        "(PROPERTY FS_COORD_ORIGIN UPPER_LEFT; GLSL ES has no origin_upper_left layout for "
        "gl_FragCoord) cannot be expressed in the es310 profile"]
    # Vulkan's gl_FragCoord counts y from the top already (the reading the ARBfp option shares,
    # tests/test_arbfp_options.py): translated as it is
    vk = api.translate(_fragcoord_program("UPPER_LEFT"), profile="vulkan").glsl
    assert "gl_FragCoord" in vk and "origin_upper_left" not in vk


def test_harness_fragment_position_follows_the_origin():
    from xlate.verify.draw_run import builtin_values_for, fragment_xy
    from xlate.verify.capture import quad_layout
    _, y, _, h = quad_layout(16)
    lower_prog, upper_prog = (api.parse(_fragcoord_program(o)) for o in ("LOWER_LEFT", "UPPER_LEFT"))
    lower = builtin_values_for(lower_prog.stage, 16, fragment_xy(lower_prog, 16))
    upper = builtin_values_for(upper_prog.stage, 16, fragment_xy(upper_prog, 16))
    assert lower("fragment.position", 16).view(np.float32)[:, 1].tolist() == (y + 0.5).tolist()
    # counted from the top row: H - (row + 0.5)
    assert upper("fragment.position", 16).view(np.float32)[:, 1].tolist() == \
        (h - (y + 0.5)).tolist()


@pytest.mark.parametrize("backend", ["gl", "gl-spirv"])
@pytest.mark.parametrize("origin,center", [("UPPER_LEFT", "HALF_INTEGER"),
                                           ("UPPER_LEFT", "INTEGER"),
                                           ("LOWER_LEFT", "INTEGER")])
def test_fs_coord_properties_verify_on_gl(backend, origin, center):
    runner = gl_runner(backend)
    rep = verify_source(_fragcoord_program(origin, center), "fc.tgsi", lanes=256, seed=2,
                        backend=backend, runner=runner)
    assert rep.status == "pass", (rep.reason, [d.describe() for d in rep.differences[:5]])
    assert rep.compared == 256 * 8


SAMPLEID = """FRAG
DCL SV[0], SAMPLEID
DCL OUT[0], COLOR
DCL TEMP[0]
U2F TEMP[0], SV[0].xxxx
MOV OUT[0], TEMP[0]
END
"""


@pytest.mark.parametrize("profile,header", [
    ("glsl330", "#version 330 core\n#extension GL_ARB_sample_shading : require\n"),
    ("es310", "#version 310 es\n#extension GL_OES_sample_variables : require\n"),
    ("glsl450", "#version 450 core\n//")])
def test_sampleid_enables_the_extension_the_profile_needs(profile, header):
    # before issue 20 glslang rejected the glsl330/es310 GLSL (E7002, the internal-error code)
    t = api.translate(SAMPLEID, profile=profile)        # glslang compiles it
    assert t.glsl.startswith(header)
    assert "ivec4(gl_SampleID, 0, 0, 0)" in t.glsl


def test_sampleid_glsl330_links_on_gl():
    from conftest import gl_context, no_gl
    try:
        import moderngl
    except ImportError as e:
        no_gl(f"moderngl is not installed ({e})")
    gl_context("core")
    ctx = moderngl.create_standalone_context(backend="egl", require=330)
    try:
        fs = api.translate(SAMPLEID, profile="glsl330").glsl
        vs = "#version 330 core\nvoid main() { gl_Position = vec4(0.0, 0.0, 0.0, 1.0); }\n"
        prog = ctx.program(vertex_shader=vs, fragment_shader=fs)
        assert prog is not None
    finally:
        ctx.release()


def test_relative_inputs_of_a_seed_stream_span_the_consecutive_generics():
    # no semantics anywhere (the seed convention): IN[n] is GENERIC[n], so DCL IN[0] ... IN[2]
    # declared one by one are one run, and IN[ADDR[0].x] reaches IN[2]
    src = ("FRAG\nDCL IN[0]\nDCL IN[1]\nDCL IN[2]\nDCL OUT[0]\nDCL ADDR[0]\n"
           "IMM[0] INT32 {2, 0, 0, 0}\n  0: UARL ADDR[0].x, IMM[0].xxxx\n"
           "  1: MOV OUT[0], IN[ADDR[0].x]\n  2: END\n")
    prog = api.parse(src)
    ins = _inputs(3, ["fragment.generic[0]", "fragment.generic[1]", "fragment.generic[2]"])
    r = execute(prog, ins)
    assert np.array_equal(r.words("result.color[0]").view(np.float32), ins["fragment.generic[2]"])
