"""The sampler-view texture opcodes of TGSI (issue 20): SAMPLE, SAMPLE_B, SAMPLE_L, SAMPLE_D,
SAMPLE_C, SAMPLE_C_LZ, SAMPLE_I with ``DCL SVIEW[n], <target>, <type>`` -- exact texels from the
executor (tgsi.rst "Resource Sampling Opcodes"; the sampler view's swizzle applied to the result
as tgsi_exec's ``exec_sample`` does), refusals naming the case, the token round trip, and
``xlate verify`` agreeing on llvmpipe."""
from __future__ import annotations

import numpy as np
import pytest

from conftest import gl_runner

from xlate import api, execute
from xlate.diagnostics import DiagnosticSink, XlateError
from xlate.exec.texture import Texture
from xlate.frontends.tgsi.binary import decode, encode_modern
from xlate.frontends.tgsi.printer import print_shader
from xlate.frontends.tgsi.text import parse_text
from xlate.verify.core import verify_source

HEAD = """FRAG
DCL IN[0], GENERIC[0], PERSPECTIVE
DCL IN[1], GENERIC[1], PERSPECTIVE
DCL OUT[0], COLOR
DCL SAMP[0]
DCL SVIEW[0], {target}, {rtype}
DCL TEMP[0..1]
IMM[0] UINT32 {{0, 1, 2, 3}}
IMM[1] FLT32 {{0.0000, 1.0000, 0.5000, 2.0000}}
"""


def prog(body: str, target="2D", rtype="FLOAT") -> str:
    lines = body.strip().splitlines() + ["END"]
    return HEAD.format(target=target, rtype=rtype) + "".join(
        f"{k:3d}: {ln.strip()}\n" for k, ln in enumerate(lines))


def run(src: str, a, b=None, tex=None):
    a = np.asarray(a, np.float32)
    ins = {"fragment.generic[0]": a}
    if b is not None:
        ins["fragment.generic[1]"] = np.asarray(b, np.float32)
    return execute(api.parse(src, filename="s.tgsi"), ins, textures={0: tex})


# 2x2 RGBA texture, texel (i, j) = (10j + i + 1, 2, 3, 4) * (1, 1, 1, 1) + (0, 1, 2, 3)
def tex2x2(dtype=np.float32, target="2D", **kw) -> Texture:
    img = np.array([[[1, 2, 3, 4], [2, 3, 4, 5]], [[11, 12, 13, 14], [12, 13, 14, 15]]], dtype)
    return Texture([img], target, **kw)


def mip4x4(**kw) -> Texture:
    """4x4 / 2x2 / 1x1 levels filled with 1, 2, 3 (the level read shows in every texel)."""
    return Texture([np.full((4 >> k, 4 >> k, 4), k + 1, np.float32) for k in range(3)], "2D",
                   filter="NEAREST_MIPMAP_NEAREST", **kw)


COORDS = [[0.25, 0.25, 0, 0], [0.75, 0.25, 0, 0], [0.25, 0.75, 0, 0], [0.75, 0.75, 0, 0]]


def test_sample_reads_the_texel_and_swizzles_by_the_view():
    r = run(prog("SAMPLE OUT[0], IN[0], SVIEW[0].wzyx, SAMP[0]"), COORDS, tex=tex2x2())
    assert r.float("result.color[0]").tolist() == [
        [4, 3, 2, 1], [5, 4, 3, 2], [14, 13, 12, 11], [15, 14, 13, 12]]


def test_sample_i_fetches_integer_texels_and_zero_out_of_range():
    # address (x, y, -, mip level) as unsigned words; x = 2 is outside the 2-texel row and
    # level 1 does not exist: tgsi.rst gives 0 in all components for both
    body = "F2U TEMP[0], IN[0]\nSAMPLE_I TEMP[0], TEMP[0], SVIEW[0]\nU2F OUT[0], TEMP[0]"
    r = run(prog(body, rtype="UINT"), [[1, 0, 0, 0], [1, 1, 0, 0], [2, 0, 0, 0], [0, 0, 0, 1]],
            tex=tex2x2(np.uint32))
    assert r.float("result.color[0]").tolist() == [[2, 3, 4, 5], [12, 13, 14, 15], [0, 0, 0, 0],
                                                   [0, 0, 0, 0]]


def test_sample_l_selects_the_level():
    r = run(prog("SAMPLE_L OUT[0], IN[0], SVIEW[0], SAMP[0], IN[1].xxxx"),
            COORDS[:3], [[0, 0, 0, 0], [1, 0, 0, 0], [2, 0, 0, 0]], tex=mip4x4())
    assert r.float("result.color[0]")[:, 0].tolist() == [1, 2, 3]


# one quad whose coordinate moves by one texel of the 4x4 level per pixel: lambda = 0
QUAD = [[0.1, 0.1, 0, 0], [0.35, 0.1, 0, 0], [0.1, 0.35, 0, 0], [0.35, 0.35, 0, 0]]


@pytest.mark.parametrize("bias,level", [(0.0, 1), (1.0, 2), (1.6, 3)])
def test_sample_b_adds_the_bias_to_the_implicit_lod(bias, level):
    # NEAREST_MIPMAP_NEAREST: level ceil(lambda + 0.5) - 1 (GL eq. 8.7), lambda <= 0 magnifies
    r = run(prog("SAMPLE_B OUT[0], IN[0], SVIEW[0], SAMP[0], IN[1].yyyy"), QUAD,
            [[0, bias, 0, 0]] * 4, tex=mip4x4())
    assert r.float("result.color[0]")[:, 0].tolist() == [level] * 4


@pytest.mark.parametrize("ds,level", [(0.25, 1), (0.5, 2), (1.0, 3)])
def test_sample_d_takes_the_derivatives_given(ds, level):
    body = "SAMPLE_D OUT[0], IN[0], SVIEW[0], SAMP[0], IN[1], IN[1].yxzw"
    r = run(prog(body), COORDS[:1], [[ds, 0, 0, 0]], tex=mip4x4())
    assert r.float("result.color[0]")[:, 0].tolist() == [level]


def depth2x2() -> Texture:
    return Texture([np.array([[[0.2], [0.4]], [[0.6], [0.8]]], np.float32)], "2D")


def test_sample_c_compares_the_reference_with_lequal():
    # LEQUAL: 1.0 where ref <= depth; (r, r, r, 1) swizzled by the view's .xxxw
    r = run(prog("SAMPLE_C OUT[0], IN[0], SVIEW[0].xxxw, SAMP[0], IN[1].zzzz"), COORDS,
            [[0, 0, 0.5, 0]] * 4, tex=depth2x2())
    assert r.float("result.color[0]").tolist() == [[0, 0, 0, 1], [0, 0, 0, 1], [1, 1, 1, 1],
                                                   [1, 1, 1, 1]]


def test_sample_c_lz_compares_on_level_zero():
    r = run(prog("SAMPLE_C_LZ OUT[0], IN[0], SVIEW[0], SAMP[0], IN[1].xxxx"), COORDS[1:3],
            [[0.4, 0, 0, 0], [0.7, 0, 0, 0]], tex=depth2x2())
    assert r.float("result.color[0]").tolist() == [[1, 1, 1, 1], [0, 0, 0, 1]]


@pytest.mark.parametrize("body,target,code,message", [
    ("DCL SAMP[1]\nSAMPLE OUT[0], IN[0], SVIEW[0], SAMP[1]", "2D", "E7001",
     "SAMPLE pairs SVIEW[0] with SAMP[1]: xlate binds a sampler view with the sampler of the same "
     "index (texture unit n)"),
    ("SAMPLE OUT[0], IN[0], SVIEW[3], SAMP[0]", "2D", "E2003", "undeclared register SVIEW[3]"),
    ("SAMPLE_C_LZ OUT[0], IN[0], SVIEW[0], SAMP[0], IN[1].xxxx", "CUBE", "E7001",
     "SAMPLE_C_LZ on a CUBE sampler view: the IR's explicit-LOD lookup has no coordinate left for "
     "both the reference and the level (GLSL has no textureLod for this sampler type)"),
    ("SAMPLE_C OUT[0], IN[0], SVIEW[0], SAMP[0], IN[1].xxxx", "3D", "E5001",
     "SAMPLE_C cannot compare against a 3D sampler view"),
    ("SAMPLE_I OUT[0], IN[0], SVIEW[0]", "CUBE", "E5001",
     "SAMPLE_I cannot fetch from CUBE textures"),
])
def test_refusals_name_the_case(body, target, code, message):
    src = prog(body.split("\n")[-1], target)
    if body.startswith("DCL"):
        src = src.replace("DCL SAMP[0]\n", "DCL SAMP[0..1]\n")
    with pytest.raises(XlateError) as e:
        api.parse(src, filename="s.tgsi")
    assert [(d.code, d.message) for d in e.value.diagnostics if d.is_error] == [(code, message)]


ALL = prog("""
    SAMPLE TEMP[0], IN[0], SVIEW[0].yxwz, SAMP[0]
    SAMPLE_L TEMP[1], IN[0], SVIEW[0], SAMP[0], IN[1].xxxx
    ADD TEMP[0], TEMP[0], TEMP[1]
    SAMPLE_B TEMP[1], IN[0], SVIEW[0], SAMP[0], IN[1].yyyy
    ADD TEMP[0], TEMP[0], TEMP[1]
    SAMPLE_D TEMP[1], IN[0], SVIEW[0], SAMP[0], IN[1], IN[1].yxzw
    ADD TEMP[0], TEMP[0], TEMP[1]
    F2U TEMP[1], IN[0]
    SAMPLE_I TEMP[1], TEMP[1], SVIEW[0]
    U2F TEMP[1], TEMP[1]
    ADD OUT[0], TEMP[0], TEMP[1]
""")


def test_tokens_round_trip():
    shader = parse_text(ALL, DiagnosticSink("s.tgsi"))
    data = encode_modern(shader)
    assert print_shader(decode(data, DiagnosticSink("s.bin"))) == print_shader(shader)
    from_tokens, from_text = api.parse(data, filename="s.bin"), api.parse(ALL, filename="s.tgsi")
    assert [(i.op, i.tex) for i in from_tokens.instructions] == \
        [(i.op, i.tex) for i in from_text.instructions]


COMPARE = prog("""
    SAMPLE_C TEMP[0], IN[0], SVIEW[0], SAMP[0], IN[1].xxxx
    SAMPLE_C_LZ TEMP[1], IN[0], SVIEW[0].xxxw, SAMP[0], IN[1].yyyy
    ADD OUT[0], TEMP[0], TEMP[1]
""", "2D_ARRAY".replace("2D_ARRAY", "1D_ARRAY"))


@pytest.mark.parametrize("backend", ["gl", "gl-spirv"])
@pytest.mark.parametrize("name,src", [("all", ALL), ("compare", COMPARE)])
def test_verify_on_gl(backend, name, src):
    runner = gl_runner(backend)
    rep = verify_source(src, f"{name}.tgsi", lanes=1024, seed=3, backend=backend, runner=runner)
    assert rep.status == "pass", (rep.reason, [d.describe() for d in rep.differences[:5]])
    assert rep.compared > 0
