"""Cube-map arrays, multisample textures and the texture opcodes that need them (issue 20):
TEX2 / TXB2 / TXL2 (the reference, bias or level in a second operand), TXQS (samples),
LODQ (textureQueryLod), SAMPLE_I_MS and TXF with a sample index; the targets CUBEARRAY,
SHADOWCUBEARRAY, 2D_MSAA and 2D_ARRAY_MSAA in DCL SAMP/SVIEW -- the refusals, the GLSL of each
profile, the direct SPIR-V, the reflection, exact executor values and ``xlate verify`` on
llvmpipe / lavapipe.

Readings chosen where tgsi.rst is silent (each also at the code):

* a cube array's texels are GL's layer-faces: face f of layer l at ``6 l + f``; the layer is
  ``clamp(floor(w + 0.5), 0, layers - 1)`` (GL 4.5 §8.14.2, as for 2D arrays);
* a multisample texture's input is one texel array per sample (``xlate.exec.Texture`` level
  ``(samples, h, w, C)``, ``(layers, samples, h, w, C)`` for arrays); ``xlate verify`` renders
  those samples into the GL texture / Vulkan image (``xlate/verify/gl_multisample.py``,
  ``vulkan_multisample.py``); a sample or layer out of range reads 0;
* LODQ's x is llvmpipe's (lambda' clamped to [MIN_LOD, MAX_LOD], rounded to the nearest level
  for *_MIPMAP_NEAREST, clamped to the levels; 0 without mipmaps), its y lambda' before the
  MIN/MAX_LOD clamp; z and w are 0."""
from __future__ import annotations

import numpy as np
import pytest

from conftest import gl_runner

import xlate
from xlate import api, execute
from xlate.diagnostics import XlateError
from xlate.exec.texture import Texture
from xlate.verify.core import verify_source

HEAD = """{proc}
DCL IN[0]{interp}
DCL IN[1]{interp}
DCL OUT[0], {out}
DCL SAMP[0]
DCL SVIEW[0], {target}, {rtype}
DCL TEMP[0..1]
IMM[0] UINT32 {{0, 1, 2, 3}}
IMM[1] INT32 {{1, 0, 0, 0}}
"""


def prog(body: str, target: str, rtype: str = "FLOAT", stage: str = "fragment") -> str:
    frag = stage == "fragment"
    head = HEAD.format(proc="FRAG" if frag else "VERT", target=target, rtype=rtype,
                       interp=", GENERIC[0], PERSPECTIVE" if frag else "",
                       out="COLOR" if frag else "POSITION")
    if frag:
        head = head.replace("DCL IN[1], GENERIC[0]", "DCL IN[1], GENERIC[1]")
    lines = body.strip().splitlines() + ["END"]
    return head + "".join(f"{k:3d}: {ln.strip()}\n" for k, ln in enumerate(lines))


def errors(src: str, **kw) -> list[tuple[str, str]]:
    with pytest.raises(XlateError) as e:
        api.translate(src, filename="t.tgsi", **kw)
    return [(d.code, d.message) for d in e.value.diagnostics if d.is_error]


# ---- the frontend's refusals ----------------------------------------------------------------
REFUSALS = [
    ("SHADOWCUBEARRAY", "TEX TEMP[0], IN[0], SAMP[0], SHADOWCUBEARRAY",
     ("E5001", "TEX on a shadow cube array: the reference value goes in TEX2's second operand")),
    ("SHADOWCUBEARRAY", "TXB2 TEMP[0], IN[0], IN[1], SAMP[0], SHADOWCUBEARRAY",
     ("E7001", "TXB2 on a shadow cube array: GLSL has no lookup of a samplerCubeArrayShadow "
               "with a bias, a level or gradients")),
    ("SHADOWCUBEARRAY", "TXL2 TEMP[0], IN[0], IN[1], SAMP[0], SHADOWCUBEARRAY",
     ("E7001", "TXL2 on a shadow cube array: GLSL has no lookup of a samplerCubeArrayShadow "
               "with a bias, a level or gradients")),
    ("CUBEARRAY", "TXB TEMP[0], IN[0], SAMP[0], CUBEARRAY",
     ("E5001", "TXB cannot be used with CUBEARRAY (a cube-array coordinate fills all four "
               "components; TGSI has TXB2/TXL2 for the bias and the level)")),
    ("CUBEARRAY", "TXF TEMP[0], IMM[0], SAMP[0], CUBEARRAY",
     ("E5001", "TXF cannot fetch from CUBEARRAY textures")),
    ("CUBEARRAY", "TEX TEMP[0], IN[0], SAMP[0], CUBEARRAY, IMM[1]",
     ("E5003", "texel offsets are not allowed with the CUBEARRAY target")),
    ("CUBE", "TEX2 TEMP[0], IN[0], IN[1], SAMP[0], CUBE",
     ("E5001", "TEX2 is for shadow cube arrays only (tgsi.rst TEX2), not CUBE")),
    ("2D", "TXL2 TEMP[0], IN[0], IN[1], SAMP[0], 2D",
     ("E5001", "TXL2 is for cube arrays only (tgsi.rst TXL2), not 2D")),
    ("2D", "TXB2 TEMP[0], IN[0], IN[1], SAMP[0], 2D",
     ("E5001", "TXB2 is for cube arrays and shadow cube maps only (tgsi.rst TXB2), not 2D")),
    ("2D_MSAA", "TEX TEMP[0], IN[0], SAMP[0], 2D_MSAA",
     ("E5001", "TEX cannot sample a multisample (2D_MSAA) texture: only texel fetches (TXF, "
               "SAMPLE_I_MS) and size/sample-count queries read one")),
    ("2D_ARRAY_MSAA", "SAMPLE TEMP[0], IN[0], SVIEW[0], SAMP[0]",
     ("E5001", "SAMPLE cannot sample a multisample (2D_ARRAY_MSAA) texture: only texel fetches "
               "(TXF, SAMPLE_I_MS) and size/sample-count queries read one")),
    ("2D_MSAA", "SAMPLE_I TEMP[0], IMM[0], SVIEW[0]",
     ("E5001", "SAMPLE_I cannot fetch from a multisample sampler view (2D_MSAA): SAMPLE_I_MS "
               "names the sample")),
    ("2D", "SAMPLE_I_MS TEMP[0], IMM[0], SVIEW[0], IMM[0].xxxx",
     ("E5001", "SAMPLE_I_MS fetches from multisample sampler views only, not 2D (SAMPLE_I "
               "reads the others)")),
    ("2D_MSAA", "TXF TEMP[0], IMM[0], SAMP[0], 2D_MSAA, IMM[1]",
     ("E5003", "TXF: texel offsets are not allowed with multisample textures (GLSL has no "
               "texelFetchOffset for them)")),
    ("CUBEARRAY", "SAMPLE_C_LZ TEMP[0], IN[0], SVIEW[0], SAMP[0], IN[1].xxxx",
     ("E7001", "SAMPLE_C_LZ on a cube-array sampler view: GLSL has no explicit-level lookup of "
               "a samplerCubeArrayShadow")),
    ("SHADOWCUBEARRAY", "TG4 TEMP[0], IN[0], IMM[0].xxxx, SAMP[0], SHADOWCUBEARRAY",
     ("E7001", "TG4 from a shadow cube array (SHADOWCUBEARRAY): the depth reference has no "
               "operand of its own in TG4")),
    ("RECT", "LODQ TEMP[0], IN[0], SAMP[0], RECT",
     ("E5001", "LODQ cannot query the level of detail of a RECT texture (GLSL's "
               "textureQueryLod takes no rectangle, buffer or multisample sampler)")),
]


@pytest.mark.parametrize("target,body,want", REFUSALS, ids=[b.split()[0] + "-" + t
                                                            for t, b, _ in REFUSALS])
def test_refusals_name_the_opcode_and_the_reason(target, body, want):
    assert errors(prog(body + "\nMOV OUT[0], TEMP[0]", target)) == [want]


# ---- GLSL per profile, direct SPIR-V, reflection ----------------------------------------------
CUBE_ARRAY = prog("""
TXL2 TEMP[0], IN[0], IN[1], SAMP[0], CUBEARRAY
TXB2 TEMP[1], IN[0], IN[1], SAMP[0], CUBEARRAY
ADD TEMP[0], TEMP[0], TEMP[1]
TEX TEMP[1], IN[0], SAMP[0], CUBEARRAY
ADD TEMP[0], TEMP[0], TEMP[1]
TXQ TEMP[1], IMM[0].xxxx, SAMP[0], CUBEARRAY
ADD OUT[0], TEMP[0], TEMP[1]
""", "CUBEARRAY")

MULTISAMPLE = """FRAG
DCL IN[0], GENERIC[0], PERSPECTIVE
DCL OUT[0], COLOR
DCL SAMP[0]
DCL SAMP[1]
DCL SVIEW[0], 2D_MSAA, FLOAT
DCL SVIEW[1], 2D_ARRAY_MSAA, UINT
DCL TEMP[0..3]
IMM[0] UINT32 {7, 3, 1, 2}
  0: F2I TEMP[0], IN[0]
  1: AND TEMP[0], TEMP[0], IMM[0].xxyy
  2: TXF TEMP[1], TEMP[0], SAMP[0], 2D_MSAA
  3: SAMPLE_I_MS TEMP[2], TEMP[0], SVIEW[1].yxwz, TEMP[0].wwww
  4: TXQS TEMP[3].x, SAMP[1], 2D_ARRAY_MSAA
  5: TXQ TEMP[3].yzw, IMM[0].zzzz, SAMP[1], 2D_ARRAY_MSAA
  6: ADD TEMP[1], TEMP[1], TEMP[2]
  7: ADD OUT[0], TEMP[1], TEMP[3]
  8: END
"""


def glsl_lines(src: str, profile: str) -> list[str]:
    return api.translate(src, filename="t.tgsi", profile=profile).glsl.splitlines()


def test_cube_array_glsl_450():
    lines = glsl_lines(CUBE_ARRAY, "glsl450")
    assert "layout(binding = 0) uniform samplerCubeArray texture0;" in lines
    body = "\n".join(lines)
    assert "textureLod(texture0, fragment_generic_0, fragment_generic_1.x)" in body
    assert "texture(texture0, fragment_generic_0, fragment_generic_1.x)" in body   # the bias
    assert "textureSize(texture0, " in body and not any("#extension" in ln for ln in lines)


@pytest.mark.parametrize("profile,extension", [
    ("glsl330", "GL_ARB_texture_cube_map_array"), ("es310", "GL_EXT_texture_cube_map_array")])
def test_cube_arrays_below_4_00_need_the_extension(profile, extension):
    assert f"#extension {extension} : require" in glsl_lines(CUBE_ARRAY, profile)


def test_multisample_glsl():
    body = "\n".join(glsl_lines(MULTISAMPLE, "glsl450"))
    assert "layout(binding = 0) uniform sampler2DMS texture0;" in body
    assert "layout(binding = 1) uniform usampler2DMSArray texture1;" in body
    assert "texelFetch(texture0, ivec4(TEMP0).xy, ivec4(TEMP0).w)" in body
    assert "textureSamples(texture1)" in body and "textureSize(texture1)" in body
    no_query = MULTISAMPLE.replace("  4: TXQS TEMP[3].x, SAMP[1], 2D_ARRAY_MSAA\n",
                                   "  4: MOV TEMP[3].x, IMM[0].xxxx\n")
    es = glsl_lines(no_query, "es310")
    assert "#extension GL_OES_texture_storage_multisample_2d_array : require" in es
    assert not any("#extension" in ln for ln in glsl_lines(no_query, "glsl330"))


@pytest.mark.parametrize("profile", ["glsl330", "es310"])
def test_txqs_below_4_50_is_refused_naming_the_profile(profile):
    assert errors(MULTISAMPLE, profile=profile) == [
        ("E7001", "the sample count of a multisample texture (texture[1]; textureSamples: "
                  f"GLSL 4.50) cannot be expressed in the {profile} profile")]


def test_txqs_of_a_texture_that_is_not_multisampled_is_1():
    body = "\n".join(glsl_lines(prog("TXQS TEMP[0], SAMP[0], CUBEARRAY\nMOV OUT[0], TEMP[0]",
                                     "CUBEARRAY"), "es310"))
    assert "ivec4(1)" in body


LODQ = prog("LODQ TEMP[0], IN[0], SAMP[0], 2D\nMOV OUT[0], TEMP[0]", "2D")
#: tgsi.rst LOD: the sampler-view form of LODQ ("Same syntax as the SAMPLE opcode")
LOD_SVIEW = prog("LOD TEMP[0], IN[0], SVIEW[0], SAMP[0]\nMOV OUT[0], TEMP[0]", "2D")


def test_lod_is_lodq_with_the_sampler_view_operands():
    """The same query as LODQ on the view's target, its swizzle not applied (LOD returns no
    texel components); a rectangle view and a sampler of another index are refused."""
    assert glsl_lines(LOD_SVIEW, "glsl450") == glsl_lines(LODQ, "glsl450")
    swizzled = LOD_SVIEW.replace("LOD TEMP[0], IN[0], SVIEW[0]", "LOD TEMP[0], IN[0], SVIEW[0].wzyx")
    assert glsl_lines(swizzled, "glsl450") == glsl_lines(LODQ, "glsl450")
    assert errors(prog("LOD TEMP[0], IN[0], SVIEW[0], SAMP[0]\nMOV OUT[0], TEMP[0]", "RECT")) == [
        ("E5001", "LOD cannot query the level of detail of a RECT sampler view (GLSL's "
                  "textureQueryLod takes no rectangle, buffer or multisample sampler)")]
    two = LOD_SVIEW.replace("DCL SAMP[0]\n", "DCL SAMP[0]\nDCL SAMP[1]\n").replace(
        "SVIEW[0], SAMP[0]", "SVIEW[0], SAMP[1]")
    assert errors(two) == [
        ("E7001", "LOD pairs SVIEW[0] with SAMP[1]: xlate binds a sampler view with the sampler "
                  "of the same index (texture unit n)")]


def test_lodq_glsl_and_its_refusals():
    body = "\n".join(glsl_lines(LODQ, "glsl450"))
    assert "vec4(textureQueryLod(texture0, fragment_generic_0.xy), 0.0, 0.0)" in body
    for profile in ("glsl330", "es310"):
        assert errors(LODQ, profile=profile) == [
            ("E7001", "the level-of-detail query (texture[0]; textureQueryLod: GLSL 4.00) "
                      f"cannot be expressed in the {profile} profile")]
    vert = prog("LODQ TEMP[0], IN[0], SAMP[0], 2D\nMOV OUT[0], TEMP[0]", "2D", stage="vertex")
    assert errors(vert) == [
        ("E7001", "the level-of-detail query outside a fragment program (texture[0]; GLSL has "
                  "textureQueryLod in fragment shaders only) cannot be expressed in the "
                  "glsl450 profile")]
    with pytest.raises(XlateError) as e:
        api.translate(vert, filename="t.tgsi", target="spirv", profile="vulkan", via="direct")
    assert [d.code for d in e.value.diagnostics if d.is_error] == ["E7006"]
    assert "the level-of-detail query outside a fragment program" in \
        e.value.diagnostics[0].message


SHADOW_VERTEX = prog("TEX2 TEMP[0], IN[0], IN[1], SAMP[0], SHADOWCUBEARRAY\nMOV OUT[0], TEMP[0]",
                     "SHADOWCUBEARRAY", stage="vertex")


@pytest.mark.parametrize("src", [CUBE_ARRAY, MULTISAMPLE, LODQ, SHADOW_VERTEX],
                         ids=["cube-array", "multisample", "lodq", "shadow-cube-array"])
@pytest.mark.parametrize("profile", ["vulkan", "glsl450"])
def test_direct_spirv_is_valid(src, profile):
    out = api.translate(src, filename="t.tgsi", target="spirv", profile=profile, via="direct")
    assert out.spirv                       # spirv-val passed (translate validates)


def test_reflection_names_the_targets_and_sampler_types():
    out = api.translate(MULTISAMPLE, filename="t.tgsi", target="reflect")
    import json
    refl = json.loads(out.reflection) if isinstance(out.reflection, str) else out.reflection
    assert [(t["unit"], t["target"], t["type"]) for t in refl["textures"]] == [
        (0, "2DMS", "sampler2DMS"), (1, "ARRAY2DMS", "usampler2DMSArray")]
    refl = api.translate(SHADOW_VERTEX, filename="t.tgsi", target="reflect").reflection
    refl = json.loads(refl) if isinstance(refl, str) else refl
    assert [(t["target"], t["type"]) for t in refl["textures"]] == [
        ("SHADOWARRAYCUBE", "samplerCubeArrayShadow")]


# ---- the executor -----------------------------------------------------------------------------
def ms_texture(layers: int | None = None) -> Texture:
    """4 samples of 2x2 texels: sample s of texel (i, j) [of layer l] = 1000 l + 100 s + i + 2 j."""
    s = np.arange(4)[:, None, None]
    j = np.arange(2)[None, :, None]
    i = np.arange(2)[None, None, :]
    one = (100 * s + i + 2 * j).astype(np.float32)
    if layers is None:
        return Texture([np.repeat(one[..., None], 4, axis=-1)], "2DMS")
    arr = np.stack([one + 1000 * k for k in range(layers)])
    return Texture([np.repeat(arr[..., None], 4, axis=-1)], "ARRAY2DMS")


def test_sample_i_ms_reads_the_sample_of_the_layer():
    src = prog("SAMPLE_I_MS OUT[0], IN[0], SVIEW[0], IN[1].xxxx", "2D_ARRAY_MSAA", "FLOAT")
    coords = np.array([[1, 0, 1, 0], [0, 1, 2, 0], [1, 1, 0, 0], [1, 1, 5, 0], [0, 0, 0, 0]],
                      np.int32).view(np.float32)
    samples = np.array([[3, 0, 0, 0], [1, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [4, 0, 0, 0]],
                       np.int32).view(np.float32)
    r = execute(api.parse(src, filename="t.tgsi"),
                {"fragment.generic[0]": coords, "fragment.generic[1]": samples},
                textures={0: ms_texture(layers=3)})
    # layer 5 (of 3) and sample 4 (of 4) are out of range: 0
    assert r.float("result.color[0]")[:, 0].tolist() == [1301, 2102, 3, 0, 0]


def test_txqs_and_txq_of_a_multisample_array():
    src = prog("TXQS TEMP[0].x, SAMP[0], 2D_ARRAY_MSAA\nTXQ TEMP[0].yzw, IMM[0].xxxx, SAMP[0], "
               "2D_ARRAY_MSAA\nMOV OUT[0], TEMP[0]", "2D_ARRAY_MSAA")
    r = execute(api.parse(src, filename="t.tgsi"), {}, lanes=1, textures={0: ms_texture(3)})
    assert r.words("result.color[0]").tolist() == [[4, 2, 3, 0]]


def test_lodq_rounds_to_the_nearest_level_and_keeps_lambda_prime():
    # 8x8 with 4 levels, derivatives of 3 texels per pixel: lambda' = log2(3) = 1.585
    levels = [np.zeros((n, n, 4), np.float32) for n in (8, 4, 2, 1)]
    quad = np.array([[0, 0, 0, 0], [3 / 8, 0, 0, 0], [0, 3 / 8, 0, 0], [3 / 8, 3 / 8, 0, 0]],
                    np.float32)
    got = {}
    for filt in ("NEAREST_MIPMAP_NEAREST", "LINEAR_MIPMAP_LINEAR", "LINEAR"):
        r = execute(api.parse(LODQ, filename="t.tgsi"), {"fragment.generic[0]": quad},
                    textures={0: Texture(levels, "2D", filter=filt)})
        got[filt] = r.float("result.color[0]")[0].tolist()
    lam = float(np.log2(np.float32(3)))
    assert got["NEAREST_MIPMAP_NEAREST"] == [2.0, pytest.approx(lam, abs=1e-6), 0, 0]
    assert got["LINEAR_MIPMAP_LINEAR"][0] == pytest.approx(lam, abs=1e-6)
    assert got["LINEAR"][:1] == [0.0]                      # no mipmaps: level 0


def test_cube_array_layer_faces():
    faces = np.arange(12, dtype=np.float32)[:, None, None, None] * np.ones((1, 1, 1, 4),
                                                                           np.float32)
    src = prog("TXL2 OUT[0], IN[0], IN[1], SAMP[0], CUBEARRAY", "CUBEARRAY", stage="vertex")
    dirs = np.array([[1, 0, 0, 0], [-1, 0, 0, 1], [0, 1, 0, 1], [0, 0, -1, 0.4],
                     [0, 0, 1, 1.6], [0, -1, 0, -3]], np.float32)
    r = execute(api.parse(src, filename="t.tgsi"),
                {"vertex.attrib[0]": dirs, "vertex.attrib[1]": np.zeros((6, 4), np.float32)},
                textures={0: Texture([faces], "ARRAYCUBE")})
    # face +X -X +Y -Y +Z -Z = 0..5, layer l adds 6; the layer rounds and clamps to 0..1
    assert r.float("result.position")[:, 0].tolist() == [0, 7, 8, 5, 10, 3]


# ---- xlate verify on llvmpipe / lavapipe ------------------------------------------------------
VERIFIED = {
    "multisample": MULTISAMPLE,
    "lod-sview": LOD_SVIEW,
    "cube-array-vertex": """VERT
DCL IN[0]
DCL IN[1]
DCL OUT[0], POSITION
DCL OUT[1], GENERIC[0]
DCL OUT[2], GENERIC[1]
DCL OUT[3], GENERIC[2]
DCL SAMP[0]
DCL SAMP[1]
DCL SVIEW[0], CUBEARRAY, FLOAT
DCL SVIEW[1], SHADOWCUBEARRAY, FLOAT
DCL TEMP[0..3]
IMM[0] UINT32 {0, 1, 2, 3}
  0: TEX TEMP[0], IN[0], SAMP[0], CUBEARRAY
  1: TEX2 TEMP[1], IN[0], IN[1], SAMP[1], SHADOWCUBEARRAY
  2: TXQ TEMP[2], IMM[0].yyyy, SAMP[0], CUBEARRAY
  3: TXQS TEMP[3], SAMP[0], CUBEARRAY
  4: MOV OUT[0], IN[0]
  5: MOV OUT[1], TEMP[0]
  6: MOV OUT[2], TEMP[1]
  7: ADD OUT[3], TEMP[2], TEMP[3]
  8: END
""",
    # explicit levels on a cube array, the coordinate folded into [-1, 1) and the layer [0, 3)
    "txl2": """FRAG
DCL IN[0], GENERIC[0], PERSPECTIVE
DCL IN[1], GENERIC[1], PERSPECTIVE
DCL OUT[0], COLOR
DCL TEMP[0..4]
DCL SAMP[0]
DCL SVIEW[0], CUBEARRAY, FLOAT
IMM[0] FLT32 {    2.0000,    -1.0000,     3.0000,     0.5000}
  0: FRC TEMP[4], IN[0]
  1: MAD TEMP[4].xyz, TEMP[4], IMM[0].xxxx, IMM[0].yyyy
  2: MUL TEMP[4].w, TEMP[4].wwww, IMM[0].zzzz
  3: FRC TEMP[1], IN[1]
  4: MUL TEMP[1], TEMP[1], IMM[0].zzzz
  5: TXL2 TEMP[0], TEMP[4], TEMP[1], SAMP[0], CUBEARRAY
  6: MOV OUT[0], TEMP[0]
  7: END
""",
    "lodq": LODQ,
    # implicit derivatives on a cube array: llvmpipe differentiates the direction with fine
    # differences (an LOD per pixel), shown by recomputation (permits.rule_fine_derivatives;
    # before, TXB2 and LODQ were not recomputed and mismatched)
    "cube-array-implicit": """FRAG
DCL IN[0], GENERIC[0], PERSPECTIVE
DCL IN[1], GENERIC[1], PERSPECTIVE
DCL OUT[0], COLOR
DCL OUT[1], COLOR[1]
DCL OUT[2], COLOR[2]
DCL SAMP[0]
DCL SVIEW[0], CUBEARRAY, FLOAT
  0: TEX OUT[0], IN[0], SAMP[0], CUBEARRAY
  1: TXB2 OUT[1], IN[0], IN[1], SAMP[0], CUBEARRAY
  2: LODQ OUT[2], IN[0], SAMP[0], CUBEARRAY
  3: END
""",
    # TXB2 on a shadow cube map: the reference in the coordinate's w, the bias (ignored outside
    # fragment programs) in the second operand
    "txb2-shadow-cube": """VERT
DCL IN[0]
DCL IN[1]
DCL OUT[0], POSITION
DCL OUT[1], GENERIC[0]
DCL SAMP[0]
DCL SVIEW[0], SHADOWCUBE, FLOAT
DCL TEMP[0]
  0: TXB2 TEMP[0], IN[0], IN[1], SAMP[0], SHADOWCUBE
  1: MOV OUT[0], IN[0]
  2: MOV OUT[1], TEMP[0]
  3: END
""",
}


@pytest.mark.parametrize("name", sorted(VERIFIED))
@pytest.mark.parametrize("backend", ["gl", "gl-spirv", "vulkan"])
def test_verify(name, backend):
    runner = gl_runner(backend)
    rep = verify_source(VERIFIED[name], f"{name}.tgsi", lanes=1024, seed=1, backend=backend,
                        runner=runner)
    assert rep.status == "pass", (rep.reason, [d.describe() for d in rep.differences[:5]])
    assert rep.compared > 0


def test_the_corpus_multisample_fetch_translates():
    """yuq+mesa-lima/u_tests-3 (TXF from a 2D_MSAA view with the sample id in w) was refused
    with E7001 before issue 20; its shape, inline."""
    src = """FRAG
DCL SV[0], POSITION
DCL SV[1], SAMPLEID
DCL SAMP[0]
DCL SVIEW[0], 2D_MSAA, FLOAT
DCL OUT[0], COLOR[0]
DCL TEMP[0]
IMM[0] FLT32 { 0.1, 0.2, 0.3, 0.4}
F2I TEMP[0].xy, SV[0].xyyy
MOV TEMP[0].w, SV[1].xxxx
TXF TEMP[0], TEMP[0], SAMP[0], 2D_MSAA
ADD OUT[0], TEMP[0], IMM[0]
END
"""
    out = xlate.translate(src, filename="u_tests-3.tgsi")
    assert "    TEMP0 = floatBitsToUint(texelFetch(texture0, ivec4(TEMP0).xy, ivec4(TEMP0).w));" \
        in out.glsl.splitlines()
