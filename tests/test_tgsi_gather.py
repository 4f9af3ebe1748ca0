"""Texture gather and the sampler-view size query of TGSI (issue 20): TG4 (component operand,
shadow targets), GATHER4 (red, swizzled by the view), SVIEWINFO (size of the level and the number
of levels) -- exact values from the executor (ARB_texture_gather's texel order: (i0,j1), (i1,j1),
(i1,j0), (i0,j0) in x, y, z, w), the refusals, and ``xlate verify`` on llvmpipe."""
from __future__ import annotations

import numpy as np
import pytest

from conftest import gl_runner

from xlate import api, execute
from xlate.diagnostics import XlateError
from xlate.exec.texture import Texture
from xlate.verify.core import verify_source

HEAD = """FRAG
DCL IN[0], GENERIC[0], PERSPECTIVE
DCL IN[1], GENERIC[1], PERSPECTIVE
DCL OUT[0], COLOR
DCL SAMP[0]
DCL SVIEW[0], 2D, {rtype}
DCL TEMP[0..1]
IMM[0] UINT32 {{0, 1, 2, 3}}
IMM[1] FLT32 {{0.0000, 1.0000, 2.0000, 3.0000}}
IMM[2] INT32 {{1, 0, 0, 0}}
"""


def prog(body: str, rtype="FLOAT") -> str:
    lines = body.strip().splitlines() + ["END"]
    return HEAD.format(rtype=rtype) + "".join(f"{k:3d}: {ln.strip()}\n"
                                              for k, ln in enumerate(lines))


def run(src: str, a, tex: Texture, b=None):
    ins = {"fragment.generic[0]": np.asarray(a, np.float32)}
    if b is not None:
        ins["fragment.generic[1]"] = np.asarray(b, np.float32)
    return execute(api.parse(src, filename="g.tgsi"), ins, textures={0: tex})


def tex3x3(dtype=np.float32, **kw) -> Texture:
    """texel (i, j) = (10j + i, 100 + 10j + i, 200 + .., 300 + ..); row j = 0 at the bottom."""
    v = np.array([[[c * 100 + 10 * j + i for c in range(4)] for i in range(3)] for j in range(3)],
                 dtype)
    return Texture([v], "2D", wrap="CLAMP_TO_EDGE", **kw)


# the centre of texel (1, 1) plus a quarter texel: footprint i0 = 1, i1 = 2, j0 = 1, j1 = 2
AT = [[1.75 / 3, 1.75 / 3, 0, 0]]


@pytest.mark.parametrize("comp", [0, 1, 3])
def test_tg4_gathers_one_component_in_arb_order(comp):
    r = run(prog(f"TG4 OUT[0], IN[0], IMM[0].{'xyzw'[comp] * 4}, SAMP[0], 2D"), AT, tex3x3())
    base = 100 * comp
    assert r.float("result.color[0]").tolist() == [[base + 21, base + 22, base + 12, base + 11]]


def test_tg4_component_as_a_float_immediate_and_an_offset():
    # IMM[1].zzzz is 2.0 (tgsi_dump prints integer components of FLT32 immediates so); the
    # offset (1, 0) moves the footprint one texel right: i0 = 2, i1 = 3 clamped to 2
    r = run(prog("TG4 OUT[0], IN[0], IMM[1].zzzz, SAMP[0], 2D, IMM[2]"), AT, tex3x3())
    assert r.float("result.color[0]").tolist() == [[222, 222, 212, 212]]


def test_tg4_on_an_integer_view_keeps_the_words():
    r = run(prog("TG4 TEMP[0], IN[0], IMM[0].yyyy, SAMP[0], 2D\nMOV OUT[0], TEMP[0]",
                 rtype="UINT"), AT, tex3x3(np.uint32))
    assert r.float("result.color[0]").view(np.uint32).tolist() == [[121, 122, 112, 111]]


def test_tg4_shadow_compares_each_texel():
    # LEQUAL: 1.0 where ref <= depth; ref 0.165: texels 11 and 12 (0.11, 0.12) fail
    depth = Texture([np.array([[[0.01 * (10 * j + i)] for i in range(3)] for j in range(3)],
                              np.float32)], "2D", wrap="CLAMP_TO_EDGE")
    r = run(prog("TG4 OUT[0], IN[0], IMM[0].xxxx, SAMP[0], SHADOW2D"),
            [[1.75 / 3, 1.75 / 3, 0.165, 0]], depth)
    assert r.float("result.color[0]").tolist() == [[1, 1, 0, 0]]


def test_gather4_reads_red_and_swizzles_by_the_view():
    r = run(prog("GATHER4 OUT[0], IN[0], SVIEW[0].wzyx, SAMP[0]"), AT, tex3x3())
    assert r.float("result.color[0]").tolist() == [[11, 12, 22, 21]]


def test_sviewinfo_gives_the_level_size_and_the_level_count():
    levels = [np.zeros((8 >> k, 16 >> k, 4), np.float32) for k in range(4)]
    tex = Texture(levels, "2D", filter="NEAREST_MIPMAP_NEAREST")
    body = "F2U TEMP[0], IN[0]\nSVIEWINFO TEMP[1], TEMP[0].xxxx, SVIEW[0]\nU2F OUT[0], TEMP[1]"
    r = run(prog(body), [[0, 0, 0, 0], [2, 0, 0, 0]], tex)
    assert r.float("result.color[0]").tolist() == [[16, 8, 0, 4], [4, 2, 0, 4]]


ONE_LEVEL_VIEWS = """FRAG
DCL IN[0], GENERIC[0], PERSPECTIVE
DCL OUT[0], COLOR
DCL OUT[1], COLOR[1]
DCL SAMP[0]
DCL SVIEW[0], RECT, FLOAT
DCL SAMP[1]
DCL SVIEW[1], BUFFER, FLOAT
DCL TEMP[0..1]
IMM[0] UINT32 {0, 1, 2, 3}
  0: SVIEWINFO TEMP[0], IMM[0].xxxx, SVIEW[0]
  1: SVIEWINFO TEMP[1].w, IMM[0].yyyy, SVIEW[1]
  2: U2F OUT[0], TEMP[0]
  3: U2F OUT[1].w, TEMP[1]
  4: END
"""


def test_sviewinfo_of_a_rectangle_or_buffer_view_counts_one_level():
    """GLSL's textureQueryLevels takes no rectangle or buffer sampler (GLSL 4.50 8.9.1):
    glslang accepts sampler2DRect, Mesa's compiler refuses it (TGSI fragment seed 905).  Such a
    view has one level, which the translation writes as a constant; on llvmpipe it verifies."""
    out = api.translate(ONE_LEVEL_VIEWS, filename="levels.tgsi")
    assert "textureQueryLevels" not in out.glsl
    assert "textureSize(texture0)" in out.glsl
    rep = verify_source(ONE_LEVEL_VIEWS, "levels.tgsi", lanes=64, seed=1, runner=gl_runner("gl"))
    assert rep.status == "pass", (rep.reason, [d.describe() for d in rep.differences[:3]])
    assert rep.compared == 64 * 8


@pytest.mark.parametrize("body,code,message", [
    ("TG4 OUT[0], IN[0], IN[1].xxxx, SAMP[0], 2D", "E7001",
     "TG4: the component operand must be an immediate 0..3 (GLSL's textureGather takes a "
     "constant component)"),
    ("TG4 OUT[0], IN[0], IMM[0].xxxx, SAMP[0], 3D", "E5001",
     "TG4 cannot gather from 3D textures (2D, 2D array, cube, cube array and rectangle textures only)"),
])
def test_refusals_name_the_case(body, code, message):
    with pytest.raises(XlateError) as e:
        api.parse(prog(body), filename="g.tgsi")
    assert [(d.code, d.message) for d in e.value.diagnostics if d.is_error] == [(code, message)]


@pytest.mark.parametrize("profile,message", [
    ("glsl330", "texture gather (texture[0]; textureGather with a component: GLSL 4.00) cannot "
                "be expressed in the glsl330 profile"),
    ("es310", None)])
def test_profiles(profile, message):
    src = prog("TG4 OUT[0], IN[0], IMM[0].yyyy, SAMP[0], 2D")
    if message is None:
        assert "textureGather(texture0, fragment_generic_0.xy, 1)" in \
            api.translate(src, filename="g.tgsi", profile=profile).glsl
        return
    with pytest.raises(XlateError) as e:
        api.translate(src, filename="g.tgsi", profile=profile)
    assert [d.message for d in e.value.diagnostics if d.is_error] == [message]


GATHERS = """FRAG
DCL IN[0], GENERIC[0], PERSPECTIVE
DCL IN[1], GENERIC[1], PERSPECTIVE
DCL OUT[0], COLOR
DCL SAMP[0..4]
DCL SVIEW[4], 2D_ARRAY, FLOAT
DCL TEMP[0..2]
IMM[0] UINT32 {0, 1, 2, 3}
IMM[1] INT32 {-2, 1, 0, 0}
  0: TG4 TEMP[0], IN[0], IMM[0].wwww, SAMP[0], CUBE
  1: TG4 TEMP[1], IN[0], IMM[0].xxxx, SAMP[1], SHADOW2D
  2: ADD TEMP[0], TEMP[0], TEMP[1]
  3: TG4 TEMP[1], IN[1], IMM[0].xxxx, SAMP[2], SHADOWCUBE
  4: ADD TEMP[0], TEMP[0], TEMP[1]
  5: TG4 TEMP[1], IN[1], IMM[0].yyyy, SAMP[3], 2D_ARRAY, IMM[1]
  6: ADD TEMP[0], TEMP[0], TEMP[1]
  7: GATHER4 TEMP[1], IN[0], SVIEW[4].yxwz, SAMP[4]
  8: ADD TEMP[0], TEMP[0], TEMP[1]
  9: SVIEWINFO TEMP[1], IMM[0].yyyy, SVIEW[4]
 10: I2F TEMP[1], TEMP[1]
 11: ADD OUT[0], TEMP[0], TEMP[1]
 12: END
"""


def test_sviewinfo_level_count_needs_glsl430():
    src = prog("SVIEWINFO OUT[0], IMM[0].xxxx, SVIEW[0]", rtype="UINT")
    for profile in ("glsl330", "es310"):
        with pytest.raises(XlateError) as e:
            api.translate(src, filename="g.tgsi", profile=profile)
        assert [d.message for d in e.value.diagnostics if d.is_error] == [
            f"the number of mipmap levels (texture[0]; textureQueryLevels: GLSL 4.30) cannot be "
            f"expressed in the {profile} profile"]


@pytest.mark.parametrize("backend", ["gl", "gl-spirv"])
def test_verify_on_gl(backend):
    # the cube gather reaches face corners: the executor's corner texel (the average of the
    # three others, times 1/3) agrees bit for bit
    runner = gl_runner(backend)
    rep = verify_source(GATHERS, "gathers.tgsi", lanes=4096, seed=1, backend=backend,
                        runner=runner)
    assert rep.status == "pass", (rep.reason, [d.describe() for d in rep.differences[:5]])
    assert rep.compared > 0


@pytest.mark.parametrize("backend", ["vulkan", "gl-spirv"])
def test_gathers_on_the_direct_module(backend):
    """The direct SPIR-V path spells TXG as OpImageGather / OpImageDrefGather and SVIEWINFO's
    level count as OpImageQueryLevels (refused with E7006 before), and the module itself runs:
    the gathers program verifies with no difference at all."""
    import xlate
    out = xlate.translate(GATHERS, filename="gathers.tgsi", target="spirv", via="direct")
    words = memoryview(out.spirv).cast("I")
    ops, i = set(), 5
    while i < len(words):
        ops.add(words[i] & 0xFFFF)
        i += words[i] >> 16
    assert {96, 97, 106} <= ops          # OpImageGather, OpImageDrefGather, OpImageQueryLevels
    rep = verify_source(GATHERS, "gathers.tgsi", lanes=1024, seed=1, backend=backend,
                        runner=gl_runner(backend), via="direct")
    assert (rep.status, rep.total_differences) == ("pass", 0), \
        (rep.reason, [d.describe() for d in rep.differences[:5]])
    assert any("direct SPIR-V path's module" in n for n in rep.notes)


CUBE_GATHERS = """FRAG
DCL IN[0], GENERIC[0], PERSPECTIVE
DCL OUT[0], COLOR
DCL OUT[1], COLOR[1]
DCL SAMP[0]
DCL SVIEW[0], {target}, FLOAT
IMM[0] UINT32 {{0, 1, 2, 3}}
  0: TG4 OUT[0], IN[0], IMM[0].xxxx, SAMP[0], {target}
  1: TG4 OUT[1], IN[0], IMM[0].zzzz, SAMP[0], {target}
  2: END
"""


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("target", ["CUBE", "CUBEARRAY"])
def test_cube_gathers_agree_bit_for_bit(target, seed):
    """Gathers at cube corners: llvmpipe sums the other row's two texels first, then the one
    beside the missing texel, times 1/3 (exec/texture_sampling.py).  Summed in index order the
    missing (i0,j0) and (i1,j0) corners were one ulp off on these seeds (CUBE); cube arrays
    gather from the layer's six faces (TG4 on CUBEARRAY was refused before)."""
    runner = gl_runner("gl")
    rep = verify_source(CUBE_GATHERS.format(target=target), "cube_gathers.tgsi", lanes=1024,
                        seed=seed, backend="gl", runner=runner)
    assert (rep.status, rep.total_differences) == ("pass", 0), \
        (rep.reason, [d.describe() for d in rep.differences[:5]])
