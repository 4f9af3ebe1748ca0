"""ARBfp options real programs carry (issue 21): GL_ARB_fragment_coord_conventions'
``OPTION ARB_fragment_coord_origin_upper_left`` / ``ARB_fragment_coord_pixel_center_integer``
and Mesa's ``OPTION MESA_texture_array``; and empty vertex program text (NV_vertex_program2).

The programs are written here after the piglit/Mesa programs of the shared corpus that use the
options (fp-arb-fragment-coord-conventions-integer, progs/fp/position-upper-left ...)."""
from __future__ import annotations

import numpy as np
import pytest

from conftest import gl_runner

import xlate
from xlate.diagnostics import XlateError
from xlate.verify.core import verify_source

UPPER_LEFT = """!!ARBfp1.0
OPTION ARB_fragment_coord_origin_upper_left;
MOV result.color, {0}.x;
MUL result.color.xy, fragment.position, {.005}.x;
END
"""

INTEGER = """!!ARBfp1.0
OPTION ARB_fragment_coord_pixel_center_integer;
MOV result.color, {0.0, 0.0, 0.0, 0.0};
FRC result.color.xy, fragment.position;
END
"""

BOTH_WITH_DERIVATIVES = """!!ARBfp1.0
OPTION NV_fragment_program2;
OPTION ARB_fragment_coord_origin_upper_left;
OPTION ARB_fragment_coord_pixel_center_integer;
TEMP t, u;
MUL t, fragment.position, fragment.position;
DDY u, t;
DDX t, t;
ADD result.color, u, t;
END
"""

ARRAYS = """!!ARBfp1.0
OPTION MESA_texture_array;
OPTION ARB_fragment_program_shadow;
TEMP a, b, c;
TEX a, fragment.texcoord[0], texture[0], ARRAY2D;
TEX b, fragment.texcoord[1], texture[1], ARRAY1D;
TEX c, fragment.texcoord[2], texture[2], ARRAYSHADOW2D;
TEX c.y, fragment.texcoord[3], texture[3], ARRAYSHADOW1D;
ADD a, a, b;
ADD result.color, a, c;
END
"""


def glsl(text: str, profile: str = "glsl450") -> str:
    return xlate.translate(text, filename="t.fp", target="glsl", profile=profile).glsl


def error(text: str, **kw) -> str:
    with pytest.raises(XlateError) as e:
        xlate.translate(text, filename="t.fp", **kw)
    return e.value.diagnostics[0].header()


# ---- fragment coordinate conventions ----------------------------------------------------------
@pytest.mark.parametrize("profile", ["glsl450", "glsl330"])
def test_desktop_glsl_declares_the_conventions_on_gl_fragcoord(profile):
    both = glsl(BOTH_WITH_DERIVATIVES, profile)
    assert "layout(origin_upper_left, pixel_center_integer) in vec4 gl_FragCoord;\n" in both
    assert "layout(origin_upper_left) in vec4 gl_FragCoord;\n" in glsl(UPPER_LEFT, profile)
    assert "layout(pixel_center_integer) in vec4 gl_FragCoord;\n" in glsl(INTEGER, profile)
    # without the options: no redeclaration (the same bytes as before)
    plain = INTEGER.replace("OPTION ARB_fragment_coord_pixel_center_integer;\n", "")
    assert "gl_FragCoord;" not in glsl(plain, profile).split("void main")[0]


def test_vulkan_has_no_integer_centres_and_subtracts_half_a_pixel():
    # VUID-StandaloneSpirv-PixelCenterInteger-04654: the execution mode is not allowed
    out = glsl(INTEGER, "vulkan")
    assert "in vec4 gl_FragCoord;" not in out
    assert "in_fragment_position = (gl_FragCoord - vec4(0.5, 0.5, 0.0, 0.0));" in out
    spirv = xlate.translate(INTEGER, filename="t.fp", target="spirv").spirv   # validated
    assert spirv[:4] == b"\x03\x02\x23\x07"


def test_es_refuses_the_upper_left_origin_and_fixes_integer_centres():
    assert error(UPPER_LEFT, target="glsl", profile="es310") == (
        "t.fp:4:1: error[E7001]: a fragment position with its origin at the upper left (OPTION "
        "ARB_fragment_coord_origin_upper_left; GLSL ES has no origin_upper_left layout for "
        "gl_FragCoord) cannot be expressed in the es310 profile")
    assert "(gl_FragCoord - vec4(0.5, 0.5, 0.0, 0.0))" in glsl(INTEGER, "es310")


def test_options_are_recorded_on_the_program():
    prog = xlate.parse(BOTH_WITH_DERIVATIVES, filename="t.fp")
    assert prog.fragcoord_origin_upper_left and prog.fragcoord_pixel_center_integer
    plain = xlate.parse("!!ARBfp1.0\nMOV result.color, fragment.position;\nEND\n")
    assert not plain.fragcoord_origin_upper_left and not plain.fragcoord_pixel_center_integer


def test_harness_gives_fragment_position_in_the_programs_conventions():
    from xlate.verify.draw_run import builtin_values_for, fragment_xy, pixel_centre
    default = xlate.parse("!!ARBfp1.0\nMOV result.color, fragment.position;\nEND\n")
    both = xlate.parse(BOTH_WITH_DERIVATIVES)

    def positions(prog, follows=True):
        xy = fragment_xy(prog, 4, origin_follows_program=follows)
        v = builtin_values_for(prog.stage, 4, xy, pixel_centre(prog))("fragment.position", 4)
        return v.view(np.float32)[:, :2].tolist()

    # one 2x2 quad: lanes x0y0, x1y0, x0y1, x1y1 of a 64 x 2 framebuffer
    assert positions(default) == [[0.5, 0.5], [1.5, 0.5], [0.5, 1.5], [1.5, 1.5]]
    assert positions(both) == [[0.0, 1.0], [1.0, 1.0], [0.0, 0.0], [1.0, 0.0]]
    # Vulkan's framebuffer origin is the upper left for every program: y as laid out
    assert positions(both, follows=False) == [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]


@pytest.mark.parametrize("backend", ["gl", "gl-spirv", "vulkan"])
@pytest.mark.parametrize("name, text", [("upper_left", UPPER_LEFT), ("integer", INTEGER),
                                        ("both", BOTH_WITH_DERIVATIVES)])
def test_verify_agrees_on_the_implementation(backend, name, text):
    runner = gl_runner(backend)
    rep = verify_source(text, f"{name}.fp", lanes=256, backend=backend, runner=runner)
    assert rep.status == "pass", (rep.status, rep.reason)


def test_without_the_harness_conventions_the_implementation_disagrees():
    """The check can fail: the GLSL of the integer-centre program run against positions at
    half-integers (the default harness) differs from the executor."""
    from xlate.verify import draw_run
    runner = gl_runner("gl")
    original = draw_run.pixel_centre
    try:
        draw_run.pixel_centre = lambda program: 0.5
        rep = verify_source(INTEGER, "integer.fp", lanes=64, backend="gl", runner=runner,
                            localize=False)
    finally:
        draw_run.pixel_centre = original
    assert rep.status == "mismatch"


# ---- MESA_texture_array -----------------------------------------------------------------------
def test_array_targets_translate_to_array_samplers():
    out = glsl(ARRAYS)
    for line in ("uniform sampler2DArray texture0;", "uniform sampler1DArray texture1;",
                 "uniform sampler2DArrayShadow texture2;",
                 "uniform sampler1DArrayShadow texture3;"):
        assert line in out
    prog = xlate.parse(ARRAYS)
    assert [i.tex.target for i in prog.instructions if i.tex is not None] == [
        "ARRAY2D", "ARRAY1D", "SHADOWARRAY2D", "SHADOWARRAY1D"]


def test_array_targets_need_their_options():
    without = ARRAYS.replace("OPTION MESA_texture_array;\n", "")
    assert error(without) == ("t.fp:4:42: error[E5001]: the ARRAY2D target requires OPTION "
                              "MESA_texture_array")
    no_shadow = ARRAYS.replace("OPTION ARB_fragment_program_shadow;\n", "")
    assert error(no_shadow) == ("t.fp:6:42: error[E5001]: the ARRAYSHADOW2D target requires "
                                "OPTION ARB_fragment_program_shadow (ARBFPS) besides "
                                "MESA_texture_array")
    nv_spelling = ARRAYS.replace("ARRAYSHADOW2D", "SHADOWARRAY2D")
    assert error(nv_spelling) == ("t.fp:7:42: error[E5001]: 'SHADOWARRAY2D' is "
                                  "NV_gpu_program4's spelling; OPTION MESA_texture_array names "
                                  "it ARRAYSHADOW2D")


@pytest.mark.parametrize("backend", ["gl", "vulkan"])
def test_array_textures_verify(backend):
    runner = gl_runner(backend)
    rep = verify_source(ARRAYS, "arrays.fp", lanes=256, backend=backend, runner=runner)
    assert rep.status == "pass", (rep.status, rep.reason)


# ---- empty vertex program text (NV_vertex_program2 2.14.1.8) ----------------------------------
@pytest.mark.parametrize("header", ["!!VP1.1", "!!VP2.0"])
def test_a_position_invariant_vertex_program_may_be_empty(header):
    result = xlate.translate(f"{header}\nOPTION NV_position_invariant;\nEND\n", filename="t.vp")
    assert result.stage == "vertex"


def test_an_empty_vertex_program_fails_by_the_load_rules_not_the_grammar():
    assert error("!!VP1.0\nEND\n") == ("t.fp:2:1: error[E2015]: a vertex program must write "
                                       "o[HPOS] (at least one component)")
    assert error("!!VSP1.0\nEND\n") == ("t.fp:2:1: error[E2015]: a vertex state program must "
                                        "write at least one program parameter c[n]")



def test_empty_statement_sequences_of_the_other_dialects():
    # ARBvp/ARBfp (<statementSequence> ::= ... | "") and NV_gpu_program4 (/* empty */) allow an
    # empty program; FP1.0's <instructionSequence> needs a statement, and its load rule (write
    # an output, FP1 3.11.1.3) refuses an empty program either way (E2015)
    for header in ("!!ARBfp1.0", "!!ARBvp1.0", "!!NVfp4.0", "!!NVvp4.0"):
        assert xlate.translate(f"{header}\nEND\n", filename="t.fp").glsl
    assert error("!!FP1.0\nEND\n").startswith("t.fp:1:1: error[E2015]: the program writes no "
                                              "output register")
