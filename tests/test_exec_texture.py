"""Executor textures by the GL 4.5 formulas (sampling="spec"), with hand-computed values:
texel selection and wrapping (§8.14.2), LOD (§8.14.1), mipmapping (§8.14.3), the
magnification switch-over (§8.15), cube faces (§8.13, Table 8.19), comparisons (§8.22), and the
assembly side (GP4 §2.X.4.4, §2.X.8.Z TEX..TXQ).  Agreement with a real GL implementation is
checked in test_exec_texture_gl.py."""
from __future__ import annotations

import numpy as np
import pytest

from test_exec_helpers import build
from xlate.diagnostics import XlateError
from xlate.exec import ExecError, Texture, execute
from xlate.exec.texture import _cube_remap


def f32(*v):
    return np.array(v, np.float32)


def vp(body: str) -> str:
    return f"!!NVvp4.0\nTEMP R0, R1;\nINT TEMP I;\n{body}\nMOV result.texcoord[0], R0;\nEND\n"


def fp(body: str) -> str:
    return f"!!NVfp4.0\nTEMP R0, R1;\nINT TEMP I;\n{body}\nMOV result.color, R0;\nEND\n"


def run_v(body, coords, textures, **kw):
    r = execute(vp(body), {"vertex.attrib[0]": np.asarray(coords)}, textures=textures, **kw)
    return r.words("result.texcoord[0]")


def run_f(body, coords, textures, **kw):
    r = execute(fp(body), {"fragment.texcoord[0]": np.asarray(coords, np.float32)},
                textures=textures, **kw)
    return r.float("result.color")


def ramp1d(n=4, comps=4):
    """texel i = (i, 10 i, 100 i, 1)"""
    i = np.arange(n, dtype=np.float32)
    return np.stack([i, 10 * i, 100 * i, np.ones(n, np.float32)], 1)[:, :comps]


def levels2d(w, h, n_levels=None):
    """level l is constant 10 * l in every component (a texture whose LOD is visible)"""
    out = []
    lv = 0
    while True:
        out.append(np.full((h, w, 4), 10.0 * lv, np.float32))
        if (w == 1 and h == 1) or (n_levels and len(out) == n_levels):
            return out
        w, h, lv = max(1, w // 2), max(1, h // 2), lv + 1


# ---- texel selection and wrapping (GL §8.14.2, Table 8.20) --------------------------------

@pytest.mark.parametrize("wrap, expect", [
    # u = s * 4 for s = -1.125 .. 1.875 step 0.25 -> i = floor(u) = -5 .. 7
    ("REPEAT", [3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3]),
    ("CLAMP_TO_EDGE", [0, 0, 0, 0, 0, 0, 1, 2, 3, 3, 3, 3, 3]),
    ("CLAMP_TO_BORDER", [-1, -1, -1, -1, -1, 0, 1, 2, 3, -1, -1, -1, -1]),
    ("MIRRORED_REPEAT", [3, 3, 2, 1, 0, 0, 1, 2, 3, 3, 2, 1, 0]),
    ("MIRROR_CLAMP_TO_EDGE", [3, 3, 2, 1, 0, 0, 1, 2, 3, 3, 3, 3, 3]),
])
def test_wrap_modes_nearest(wrap, expect):
    s = np.arange(-1.125, 2.0, 0.25, dtype=np.float32)
    coords = np.stack([s, 0 * s, 0 * s, 0 * s], 1)
    tex = Texture([ramp1d()], "1D", wrap=wrap, border=(-1, -10, -100, 7))
    out = run_v("TEX R0, vertex.attrib[0], texture[0], 1D;", coords, {0: tex}).view(np.float32)
    want = np.array([ramp1d()[i] if i >= 0 else (-1, -10, -100, 7) for i in expect], np.float32)
    assert np.array_equal(out, want)


def test_linear_2d_weights_and_offsets():
    img = np.arange(4 * 4, dtype=np.float32).reshape(4, 4)        # texel (i, j) = 4 j + i
    tex = Texture([np.repeat(img[..., None], 4, -1)], "2D", filter="LINEAR",
                  wrap="CLAMP_TO_EDGE")
    # u = 0.375 * 4 = 1.5 -> i0 = 1, alpha = 0; v = 0.5 * 4 = 2 -> j0 = 1, beta = 0.5
    # (1, 1.5) -> 5 + 0.5 * 4 = 7; with offset (1, -1): (2, 0.5) -> 2 + 0.5 * 4 = 4
    out = run_v("TEX R0, vertex.attrib[0], texture[0], 2D;\n"
                "TEX R1, vertex.attrib[0], texture[0], 2D, (1, -1);\n"
                "ADD R0.w, R1.x, 0;", f32(0.375, 0.5, 0, 0), {0: tex}).view(np.float32)
    assert out[0].tolist() == [7, 7, 7, 4]
    # u = 0.45 * 4 = 1.8: i0 = 1, alpha = 0.3 (float32); v = 0.125 * 4 = 0.5: j0 = 0, beta = 0
    out = run_v("TEX R0, vertex.attrib[0], texture[0], 2D;", f32(0.45, 0.125, 0, 0),
                {0: tex}).view(np.float32)
    a = np.float32(np.float32(0.45) * 4) - np.float32(0.5) - 1
    assert out[0, 0] == np.float32(1 + a * (2 - 1))


def test_components_padding_and_base_level():
    # R32F -> (r, 0, 0, 1); RG -> (r, g, 0, 1); the base level is the one sampled
    r = Texture([np.full((1, 1), 5, np.float32).reshape(1, 1, 1),
                 np.full((1, 1, 1), 6, np.float32)], "2D", base_level=1)
    rg = Texture([np.array([[[1, 2]]], np.float32)], "2D")
    out = run_v("TEX R0, vertex.attrib[0], texture[0], 2D;\n"
                "TEX R1, vertex.attrib[0], texture[1], 2D;\nMOV R0.zw, R1.xxxy;",
                f32(0.5, 0.5, 0, 0), {0: r, 1: rg}).view(np.float32)
    assert out[0].tolist() == [6, 0, 1, 2]


def test_3d_trilinear():
    d = np.zeros((2, 2, 2, 4), np.float32)
    d[1, 1, 1] = 8                                     # texel (1, 1, 1)
    tex = Texture([d], "3D", filter="LINEAR", wrap="CLAMP_TO_EDGE")
    out = run_v("TEX R0, vertex.attrib[0], texture[0], 3D;", f32(0.5, 0.5, 0.5, 0),
                {0: tex}).view(np.float32)
    assert out[0].tolist() == [1, 1, 1, 1]             # 8 / 8 at the centre


# ---- level of detail and mipmaps (GL §8.14.1, §8.14.3, §8.15) ------------------------------

@pytest.mark.parametrize("filt, lods, expect", [
    ("NEAREST_MIPMAP_NEAREST", [0.5, 0.51, 1.5, 1.51, 2.6, 9], [0, 10, 10, 20, 30, 30]),
    ("LINEAR_MIPMAP_NEAREST", [-1, 0.4, 0.6], [0, 0, 10]),
    ("NEAREST_MIPMAP_LINEAR", [0.25, 1.5, 2.75, 3, 50], [2.5, 15, 27.5, 30, 30]),
    ("LINEAR_MIPMAP_LINEAR", [-3, 0.0, 1.0], [0, 0, 10]),
    ("NEAREST", [3, -3], [0, 0]),
])
def test_txl_level_selection(filt, lods, expect):
    tex = Texture(levels2d(8, 8), "2D", filter=filt, mag_filter="NEAREST")
    coords = np.array([[0.3, 0.6, 0, l] for l in lods], np.float32)
    out = run_v("TXL R0, vertex.attrib[0], texture[0], 2D;", coords, {0: tex}).view(np.float32)
    assert out[:, 0].tolist() == pytest.approx(expect, abs=1e-5)


def test_lod_state_bias_and_clamps():
    tex = Texture(levels2d(8, 8), "2D", filter="NEAREST_MIPMAP_LINEAR", lod_bias=0.5,
                  min_lod=0.75, max_lod=2.25)
    coords = np.array([[0.3, 0.6, 0, l] for l in (-5, 0.5, 1.0, 1.5, 9)], np.float32)
    out = run_v("TXL R0, vertex.attrib[0], texture[0], 2D;", coords, {0: tex}).view(np.float32)
    # lambda = clamp(w + 0.5, 0.75, 2.25)
    assert out[:, 0].tolist() == pytest.approx([7.5, 10, 15, 20, 22.5])


def test_switch_over_point_c():
    # GL §8.15: mag LINEAR + min NEAREST_MIPMAP_* -> c = 0.5: lambda = 0.3 is magnification
    img = np.zeros((2, 2, 4), np.float32)
    img[0, 1] = 4
    levels = [img, np.full((1, 1, 4), 100, np.float32)]
    tex = Texture(levels, "2D", filter="NEAREST_MIPMAP_LINEAR", mag_filter="LINEAR",
                  wrap="CLAMP_TO_EDGE")
    c = f32(0.5, 0.25, 0, 0.3)          # u = 1, v = 0.5: linear -> (0 + 4) / 2 = 2
    body = "TXL R0, vertex.attrib[0], texture[0], 2D;"
    assert run_v(body, c, {0: tex}).view(np.float32)[0, 0] == 2
    # llvmpipe switches at 0: minification, NEAREST_MIPMAP_LINEAR between levels 0 and 1
    # (nearest texel (1, 0) = 4): 4 + 0.3 * (100 - 4)
    got = run_v(body, c, {0: tex}, sampling="llvmpipe").view(np.float32)[0, 0]
    assert got == pytest.approx(4 + 0.3 * 96)


def test_vertex_programs_sample_the_base_level_with_mag_filter():
    # GP4 §2.X.4.4: partials are 0 outside fragment programs -> lambda = -inf; TXB's bias
    # cannot raise it (GLSL: textureGrad with zero gradients)
    tex = Texture(levels2d(8, 8), "2D", filter="NEAREST_MIPMAP_NEAREST", base_level=1)
    c = f32(0.3, 0.3, 0, 5)
    for op in ("TEX", "TXB", "TXP"):
        out = run_v(f"{op} R0, vertex.attrib[0], texture[0], 2D;", c, {0: tex})
        assert out.view(np.float32)[0, 0] == 10, op


def quad(c0, dx, dy):
    c0, dx, dy = (np.asarray(v, np.float32) for v in (c0, dx, dy))
    return np.stack([c0, c0 + dx, c0 + dy, c0 + dx + dy])


def test_fragment_implicit_lod_from_quads():
    tex = Texture(levels2d(16, 16), "2D", filter="NEAREST_MIPMAP_LINEAR")
    # d/dx = (1/16, 0) -> |du/dx| = 1 texel; d/dy = (0, 4/16) -> 4 texels: lambda = log2 4 = 2
    q1 = quad([0.1, 0.1, 0, 0], [1 / 16, 0, 0, 0], [0, 4 / 16, 0, 0])
    # rho = |(3, 4)| texels = 5 -> lambda = log2 5
    q2 = quad([0.1, 0.1, 0, 0], [3 / 16, 4 / 16, 0, 0], [0, 1 / 16, 0, 0])
    out = run_f("TEX R0, fragment.texcoord[0], texture[0], 2D;", np.concatenate([q1, q2]),
                {0: tex})
    assert out[:4, 0].tolist() == [20] * 4
    assert out[4:, 0] == pytest.approx([10 * np.log2(5)] * 4, rel=1e-5)
    # TXB adds w per lane; TXD takes the partials from its operands
    q1[:, 3] = [0, 0.5, -1, -9]
    out = run_f("TXB R0, fragment.texcoord[0], texture[0], 2D;", q1, {0: tex})
    assert out[:, 0].tolist() == [20, 25, 10, 0]
    out = run_f("TXD R0, fragment.texcoord[0], {0.125, 0, 0, 0}, {0, 0.0625, 0, 0}, "
                "texture[0], 2D;", q1, {0: tex})
    assert out[:, 0].tolist() == [10] * 4          # rho = max(2, 1) texels


def test_fragment_lod_is_per_quad_and_chunk_independent():
    rng = np.random.default_rng(0)
    tex = Texture(levels2d(64, 64), "2D", filter="LINEAR_MIPMAP_LINEAR", mag_filter="LINEAR")
    coords = rng.random((4 * 50 + 2, 4)).astype(np.float32)     # a partial quad at the end
    src = fp("TEX R0, fragment.texcoord[0], texture[0], 2D;")
    a = execute(src, {"fragment.texcoord[0]": coords}, textures={0: tex}).float("result.color")
    b = execute(src, {"fragment.texcoord[0]": coords}, textures={0: tex}, chunk=12).float(
        "result.color")
    assert np.array_equal(a, b)
    # coarse: the four lanes of a quad share one LOD (levels are constant -> same result)
    assert (a[:200].reshape(50, 4, 4) == a[:200].reshape(50, 4, 4)[:, :1]).all()
    # the partial quad: d/dy's missing partner counts as the lane itself (0), d/dx is there
    assert a[-2, 0] == a[-1, 0] != 0
    one = execute(src, {"fragment.texcoord[0]": coords[-1:]}, textures={0: tex})
    assert one.float("result.color")[0, 0] == 0            # a lone lane: lambda = -inf


def test_fragment_partials_under_divergence_use_neighbour_values():
    tex = Texture(levels2d(16, 16), "2D", filter="NEAREST_MIPMAP_NEAREST")
    src = fp("MOV R1, fragment.texcoord[0];\nMOV.S I, fragment.texcoord[1];\n"
             "IF NE.x;\nMUL R1, R1, 4;\nTEX R0, R1, texture[0], 2D;\nENDIF;")
    src = src.replace("MOV.S I, fragment.texcoord[1];", "MOVC.S I, fragment.texcoord[1];")
    q = quad([0.1, 0.1, 0, 0], [1 / 16, 0, 0, 0], [0, 1 / 16, 0, 0])
    flag = np.array([[1, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]], np.int32)
    r = execute(src, {"fragment.texcoord[0]": q, "fragment.texcoord[1]": flag},
                textures={0: tex}).float("result.color")
    # lane 0 ran alone: its neighbours still hold the unscaled coordinates:
    # d/dx = (0.1 + 1/16 - 0.4, 0.1 - 0.4) -> 16 * |(-0.2375, -0.3)| = 6.12 texels, d/dy alike
    # -> lambda = 2.61 -> NEAREST_MIPMAP_NEAREST level ceil(lambda + 0.5) - 1 = 3
    assert r[0, 0] == 30
    assert r[1:, 0].tolist() == [0, 0, 0]              # the others did not sample


# ---- projection, rectangles, arrays ------------------------------------------------------------

def test_txp_divides_xyz_by_w():
    tex = Texture([ramp1d()], "1D")
    out = run_v("TXP R0, vertex.attrib[0], texture[0], 1D;", f32(1.25, 0, 0, 2),
                {0: tex}).view(np.float32)
    assert out[0].tolist() == ramp1d()[2].tolist()     # s = 0.625 -> texel 2


def test_rect_unnormalized_and_lod_ignored():
    img = np.arange(3 * 5, dtype=np.float32).reshape(3, 5)
    tex = Texture([np.repeat(img[..., None], 4, -1)], "RECT", filter="NEAREST",
                  mag_filter="LINEAR")
    # RECT: s, t in texels; TXL's w and TXB's bias are ignored (GLSL has no LOD for rectangles)
    for op in ("TEX", "TXL", "TXB"):
        out = run_v(f"{op} R0, vertex.attrib[0], texture[0], RECT;", f32(3.0, 1.5, 0, 7),
                    {0: tex}).view(np.float32)
        assert out[0, 0] == 7.5, op                      # (2.5, 1) -> between texels 7 and 8
    # default wrap for RECT is CLAMP_TO_EDGE; REPEAT is not allowed
    with pytest.raises(ExecError, match=r"texture\[0\].*RECT.*CLAMP"):
        run_v("TEX R0, vertex.attrib[0], texture[0], RECT;", f32(0, 0, 0, 0),
              {0: Texture(tex.levels, "RECT", wrap="REPEAT")})


def test_array_layers_round_and_clamp():
    layers = np.stack([np.full((2, 4), 10.0 * k, np.float32) for k in range(3)])
    t1 = Texture([layers], "ARRAY1D")
    t2 = Texture([layers[:, None]], "ARRAY2D")                # (layers, 1, 2, 4)
    # layer = clamp(floor(y + 0.5), 0, 2)
    ys = [-3, 0.49, 0.5, 1.49, 1.5, 7]
    want = [0, 0, 10, 10, 20, 20]
    c = np.array([[0.2, y, 0, 0] for y in ys], np.float32)
    assert run_v("TEX R0, vertex.attrib[0], texture[0], ARRAY1D;", c, {0: t1}).view(
        np.float32)[:, 0].tolist() == want
    c = np.array([[0.2, 0.5, y, 0] for y in ys], np.float32)
    assert run_v("TEX R0, vertex.attrib[0], texture[0], ARRAY2D;", c, {0: t2}).view(
        np.float32)[:, 0].tolist() == want


# ---- cube maps (GL §8.13, Table 8.19) -------------------------------------------------------

def cube_faces(n=2):
    return np.stack([np.full((n, n, 4), float(f), np.float32) for f in range(6)])


def test_cube_face_selection_and_ties():
    tex = Texture([cube_faces()], "CUBE")
    dirs = [(1, 0.2, -0.3), (-1, 0.5, 0.5), (0.1, 2, 0), (0.1, -2, 0.3), (0, 0, 1), (0.3, 0.2, -1),
            (1, 1, 0.5), (1, 0.5, 1), (0.5, -1, -1), (-1, -1, -1), (0, 0, 0)]
    # ties: Z wins, then Y (as llvmpipe: tests/test_verify_cases.py::test_cube_face_tie_x_y);
    # 0 counts as positive
    want = [0, 1, 2, 3, 4, 5, 2, 4, 5, 5, 4]
    c = np.array([d + (0,) for d in dirs], np.float32)
    out = run_v("TEX R0, vertex.attrib[0], texture[0], CUBE;", c, {0: tex}).view(np.float32)
    assert out[:10, 0].tolist() == want[:10]


def test_cube_face_coordinates():
    n = 4
    faces = np.zeros((6, n, n, 4), np.float32)
    faces[..., 0] = np.arange(n)[None, None, :]           # i
    faces[..., 1] = np.arange(n)[None, :, None]           # j
    tex = Texture([faces], "CUBE", seamless=False, wrap="CLAMP_TO_EDGE")
    # +X: sc = -z, tc = -y; direction (1, -0.5, 0.75): s = (-0.75 + 1) / 2 = 0.125 -> i 0,
    # t = (0.5 + 1) / 2 = 0.75 -> j 3;  -Y: sc = x, tc = -z; (0.3, -1, 0.2) -> i 2, j 1
    c = f32([1, -0.5, 0.75, 0], [0.3, -1, 0.2, 0])
    out = run_v("TEX R0, vertex.attrib[0], texture[0], CUBE;", c, {0: tex}).view(np.float32)
    assert out[:, :2].tolist() == [[0, 3], [2, 1]]


def test_seamless_cube_corner_is_the_average_of_three():
    faces = np.stack([np.full((2, 2, 4), v, np.float32) for v in (0, 9, 2, 9, 4, 9)])
    tex = Texture([faces], "CUBE", filter="LINEAR")
    # towards the (+X, +Y, +Z) corner, on +Z: footprint = +Z, +X (across i), +Y (across j) and
    # the corner texel, which is their average -> (4 + 0 + 2) / 3 = 2
    out = run_v("TEX R0, vertex.attrib[0], texture[0], CUBE;", f32(1, 1, 1, 0),
                {0: tex}).view(np.float32)
    assert out[0, 0] == pytest.approx(2.0)
    # not seamless, CLAMP_TO_EDGE: the face alone
    flat = Texture([faces], "CUBE", filter="LINEAR", seamless=False, wrap="CLAMP_TO_EDGE")
    out = run_v("TEX R0, vertex.attrib[0], texture[0], CUBE;", f32(1, 1, 1, 0),
                {0: flat}).view(np.float32)
    assert out[0, 0] == 4


def test_cube_remap_edges():
    # face +X (0), texel i = -1 of a 2x2 face is on +Z at its last column
    face, i, j, corner = _cube_remap(np.array([0]), np.array([-1]), np.array([0]), 2)
    assert (face[0], i[0], j[0], corner[0]) == (4, 1, 0, False)
    # +Z, j = -1 (t < 0 -> +y) -> +Y, bottom row t = 1 side
    face, i, j, corner = _cube_remap(np.array([4]), np.array([0]), np.array([-1]), 2)
    assert (face[0], corner[0]) == (2, False) and (i[0], j[0]) == (0, 1)
    _, _, _, corner = _cube_remap(np.array([4]), np.array([2]), np.array([-1]), 2)
    assert corner[0]


# ---- shadow comparisons (GL §8.22; GP4 Table X.17 reference components) -------------------

@pytest.mark.parametrize("func, expect", [
    ("LEQUAL", [1, 1, 0]), ("GEQUAL", [0, 1, 1]), ("LESS", [1, 0, 0]), ("GREATER", [0, 0, 1]),
    ("EQUAL", [0, 1, 0]), ("NOTEQUAL", [1, 0, 1]), ("ALWAYS", [1, 1, 1]), ("NEVER", [0, 0, 0]),
])
def test_shadow_compare_functions(func, expect):
    tex = Texture([np.full((2, 2, 1), 0.5, np.float32)], "2D", compare=func)
    c = f32([0.5, 0.5, 0.25, 0], [0.5, 0.5, 0.5, 0], [0.5, 0.5, 0.75, 0])
    out = run_v("TEX R0, vertex.attrib[0], texture[0], SHADOW2D;", c, {0: tex}).view(np.float32)
    assert out.tolist() == [[e, e, e, 1] for e in expect]


def test_shadow_reference_components_pcf_and_clamp():
    d = np.array([[0.2, 0.8]], np.float32).reshape(1, 2, 1)     # 2 texels in a row
    tex2 = Texture([d], "2D", filter="LINEAR", wrap="CLAMP_TO_EDGE")
    # u = 1 (between the texels): LEQUAL ref 0.5 -> (0 + 1) / 2
    out = run_v("TEX R0, vertex.attrib[0], texture[0], SHADOW2D;", f32(0.5, 0.5, 0.5, 0),
                {0: tex2}).view(np.float32)
    assert out[0].tolist() == [0.5, 0.5, 0.5, 1]
    # 1D: reference in z; array 1D: layer y, reference z; cube: reference w
    t1 = Texture([np.array([[3.0], [-1.0]], np.float32)], "1D")     # stored clamped: 1, 0
    out = run_v("TEX R0, vertex.attrib[0], texture[0], SHADOW1D;",
                f32([0.25, 9, 1.0, 0], [0.75, 9, 0.0, 0], [0.75, 9, 0.01, 0]), {0: t1})
    assert out.view(np.float32)[:, 0].tolist() == [1, 1, 0]
    ta = Texture([np.array([[[0.3]], [[0.7]]], np.float32)], "ARRAY1D")
    out = run_v("TEX R0, vertex.attrib[0], texture[0], SHADOWARRAY1D;",
                f32([0.5, 1, 0.5, 0], [0.5, 0, 0.5, 0]), {0: ta})
    assert out.view(np.float32)[:, 0].tolist() == [1, 0]
    tc = Texture([np.full((6, 1, 1, 1), 0.5, np.float32)], "CUBE")
    out = run_v("TEX R0, vertex.attrib[0], texture[0], SHADOWCUBE;",
                f32([1, 0, 0, 0.25], [1, 0, 0, 0.75]), {0: tc})
    assert out.view(np.float32)[:, 0].tolist() == [1, 0]
    # TXP divides the reference too: z / w = 0.4 <= 0.5
    out = run_v("TXP R0, vertex.attrib[0], texture[0], SHADOW2D;", f32(1, 1, 0.8, 2),
                {0: Texture([np.full((1, 1, 1), 0.5, np.float32)], "2D")})
    assert out.view(np.float32)[0].tolist() == [1, 1, 1, 1]


def test_shadow_border_compares_border_depth():
    tex = Texture([np.full((2, 2, 1), 0.0, np.float32)], "2D", wrap="CLAMP_TO_BORDER",
                  border=(1, 0, 0, 0))
    out = run_v("TEX R0, vertex.attrib[0], texture[0], SHADOW2D;", f32(-1, 0.5, 0.5, 0), {0: tex})
    assert out.view(np.float32)[0].tolist() == [1, 1, 1, 1]


# ---- integer textures, TXF, TXQ ---------------------------------------------------------------

def test_integer_textures_tex_and_txf():
    img = np.array([[[-5, 6, -7, 8], [2 ** 31 - 1, -2 ** 31, 0, 1]]], np.int32)
    ti = Texture([img], "2D")
    out = run_v("TEX.S R0, vertex.attrib[0], texture[0], 2D;", f32(0.75, 0.5, 0, 0), {0: ti})
    assert out.view(np.int32)[0].tolist() == [2 ** 31 - 1, -2 ** 31, 0, 1]
    tu = Texture([img.view(np.uint32)], "2D")
    out = execute(vp("TXF.U R0, vertex.attrib[0], texture[0], 2D;"),
                  {"vertex.attrib[0]": np.array([[0, 0, 0, 0]], np.int32)}, textures={0: tu})
    assert out.words("result.texcoord[0]")[0].tolist() == [2 ** 32 - 5, 6, 2 ** 32 - 7, 8]


def test_txf_coordinates_lod_offsets_and_out_of_range():
    lv0 = np.arange(4 * 8 * 4, dtype=np.float32).reshape(4, 8, 4)
    lv1 = 1000 + np.arange(2 * 4 * 4, dtype=np.float32).reshape(2, 4, 4)
    tex = Texture([lv0, lv1, np.full((1, 2, 4), 7, np.float32)], "2D",
                  filter="NEAREST_MIPMAP_NEAREST")
    coords = np.array([[3, 2, 0, 0], [3, 1, 0, 1], [8, 0, 0, 0], [0, -1, 0, 0], [0, 0, 0, 3],
                       [0, 0, 0, -1], [1, 0, 9, 2]], np.int32)
    r = execute(vp("TXF R0, vertex.attrib[0], texture[0], 2D;\n"
                   "TXF R1, vertex.attrib[0], texture[0], 2D, (-1, 1);"),
                {"vertex.attrib[0]": coords}, textures={0: tex})
    out = r.float("result.texcoord[0]")
    assert out[0].tolist() == lv0[2, 3].tolist()
    assert out[1].tolist() == lv1[1, 3].tolist()
    assert out[2:6].tolist() == [[0, 0, 0, 0]] * 4        # outside the level / no such level
    assert out[6].tolist() == [7] * 4
    p = build("TXF R0, a, texture[0], 2D\nMOV o, R0", inputs={"a": "vertex.attrib[0]"},
              outputs={"o": "result.color"})
    p.instructions[0] = p.instructions[0].replace(
        tex=p.instructions[0].tex.__class__(0, "2D", (-1, 1, 0)))
    out = execute(p, {"a": coords}, textures={0: tex}).float("o")
    assert out[0].tolist() == lv0[3, 2].tolist()
    buf = Texture([np.arange(5 * 4, dtype=np.int32).reshape(5, 4)], "BUFFER")
    out = execute(vp("TXF.S R0, vertex.attrib[0], texture[0], BUFFER;"),
                  {"vertex.attrib[0]": np.array([[4, 9, 9, 9], [5, 0, 0, 0]], np.int32)},
                  textures={0: buf}).words("result.texcoord[0]")
    assert out.view(np.int32).tolist() == [[16, 17, 18, 19], [0, 0, 0, 0]]


@pytest.mark.parametrize("target, level, expect", [
    ("1D", np.zeros((16, 4)), [[16, 0, 0, 0], [8, 0, 0, 0]]),
    ("2D", np.zeros((4, 16, 4)), [[16, 4, 0, 0], [8, 2, 0, 0]]),
    ("3D", np.zeros((2, 4, 16, 4)), [[16, 4, 2, 0], [8, 2, 1, 0]]),
    ("CUBE", np.zeros((6, 8, 8, 4)), [[8, 8, 0, 0], [4, 4, 0, 0]]),
    ("ARRAY1D", np.zeros((3, 16, 4)), [[16, 3, 0, 0], [8, 3, 0, 0]]),
    ("ARRAY2D", np.zeros((5, 4, 16, 4)), [[16, 4, 5, 0], [8, 2, 5, 0]]),
    ("RECT", np.zeros((4, 16, 4)), [[16, 4, 0, 0], [16, 4, 0, 0]]),
    ("BUFFER", np.zeros((13, 4)), [[13, 0, 0, 0], [13, 0, 0, 0]]),
])
def test_txq_sizes(target, level, expect):
    level = level.astype(np.float32)
    levels = [level]
    if target not in ("RECT", "BUFFER"):
        half = {"1D": (8, 4), "2D": (2, 8, 4), "3D": (1, 2, 8, 4), "CUBE": (6, 4, 4, 4),
                "ARRAY1D": (3, 8, 4), "ARRAY2D": (5, 2, 8, 4)}[target]
        levels.append(np.zeros(half, np.float32))
    tex = Texture(levels, target)
    c = np.array([[0, 5, 5, 5], [1, 0, 0, 0], [2, 0, 0, 0], [-1, 0, 0, 0]], np.int32)
    out = execute(vp(f"TXQ R0, vertex.attrib[0], texture[0], {target};"),
                  {"vertex.attrib[0]": c}, textures={0: tex}).words("result.texcoord[0]")
    out = out.view(np.int32).tolist()
    assert out[:2] == expect
    if target not in ("RECT", "BUFFER"):
        assert out[2:] == [[0, 0, 0, 0]] * 2             # no such level
    tex2 = Texture(levels, target, base_level=1) if target not in ("RECT", "BUFFER") else None
    if tex2 is not None:
        out = execute(vp(f"TXQ R0, vertex.attrib[0], texture[0], {target};"),
                      {"vertex.attrib[0]": c}, textures={0: tex2}).words("result.texcoord[0]")
        assert out.view(np.int32).tolist()[0] == expect[1]


# ---- validation (ExecError names the texture unit) -------------------------------------------

def _tex_prog(op="TEX", target="2D", t=""):
    return vp(f"{op}{t} R0, vertex.attrib[0], texture[3], {target};")


@pytest.mark.parametrize("textures, match", [
    ({}, r"missing texture\[3\] \(2D\)"),
    ({3: "x"}, r"texture\[3\]: expected xlate.exec.Texture"),
    ({"3": Texture([np.zeros((1, 1, 4))])}, r"texture key '3'"),
    ({3: Texture([np.zeros((1, 1, 4))]), 5: Texture([np.zeros((1, 1, 4))])},
     r"texture\[5\]: the program uses no texture unit 5 \(units used: 3\)"),
    ({3: Texture([np.zeros((4, 4))], "1D")}, r"texture\[3\]: a 1D texture, but instruction 0"),
    ({3: Texture([np.zeros((4, 4))], "2D")}, r"texture\[3\]: level 0 has shape \(4, 4\)"),
    ({3: Texture([])}, r"texture\[3\]: no levels"),
    ({3: Texture([np.zeros((1, 1, 4), np.int32)])}, r"texture\[3\]: has int32 \(.S\) texels"),
    ({3: Texture([np.zeros((1, 1, 4))], filter="LINEAR_MIPMAP_LINEAR"),
      }, None),
    ({3: Texture([np.zeros((4, 4, 4)), np.zeros((1, 1, 4))], filter="LINEAR_MIPMAP_LINEAR")},
     r"texture\[3\]: level 1 has size 1x1, expected 2x2"),
    ({3: Texture([np.zeros((1, 1, 4))], filter="BILINEAR")}, r"unknown minification filter"),
    ({3: Texture([np.zeros((1, 1, 4))], mag_filter="CUBIC")}, r"unknown magnification filter"),
    ({3: Texture([np.zeros((1, 1, 4))], wrap="CLAMP")}, r"unknown wrap mode 'CLAMP'"),
    ({3: Texture([np.zeros((1, 1, 4))], compare="SOMETIMES")}, r"unknown compare function"),
    ({3: Texture([np.zeros((1, 1, 4))], base_level=1)}, r"base_level 1 out of range 0..0"),
    ({3: Texture([np.zeros((1, 1, 4))], target="4D")}, r"unknown target '4D'"),
])
def test_texture_validation(textures, match):
    src = _tex_prog()
    if match is None:
        execute(src, {"vertex.attrib[0]": f32(0, 0, 0, 0)}, textures=textures)
        return
    with pytest.raises(ExecError, match=match):
        execute(src, {"vertex.attrib[0]": f32(0, 0, 0, 0)}, textures=textures)


def test_texture_validation_types_and_targets():
    z = np.zeros((1, 1, 4), np.float32)
    a = {"vertex.attrib[0]": f32(0, 0, 0, 0)}
    with pytest.raises(ExecError, match=r"integer texture must use NEAREST"):
        execute(_tex_prog(t=".S"), a, textures={3: Texture([z.astype(np.int32)], filter="LINEAR")})
    with pytest.raises(ExecError, match=r"has float texels, but instruction 0 .* reads uint32"):
        execute(_tex_prog(t=".U"), a, textures={3: Texture([z])})
    with pytest.raises(ExecError, match=r"SHADOW target, so it must be a depth"):
        execute(_tex_prog(target="SHADOW2D"), a, textures={3: Texture([z.astype(np.uint32)])})
    with pytest.raises(ExecError, match=r"RECT texture cannot use the mipmap filter"):
        execute(_tex_prog(target="RECT"), a,
                textures={3: Texture([z], "RECT", filter="LINEAR_MIPMAP_LINEAR")})
    with pytest.raises(ExecError, match=r"CUBE level is \(6, n, n, C\)"):
        execute(_tex_prog(target="CUBE"), a, textures={3: Texture([np.zeros((6, 2, 3, 4))], "CUBE")})
    # hand-built IR may hold what the frontend rejects (GP4 load errors)
    for op, target, base in (("TXF", "CUBE", "CUBE"), ("TXB", "SHADOWCUBE", "CUBE"),
                             ("TEX", "BUFFER", "BUFFER"), ("TXF", "SHADOW2D", "2D")):
        p = build(f"{op} o, a, texture[3], {target}", inputs={"a": "vertex.attrib[0]"},
                  outputs={"o": "result.color"})
        lv = np.zeros((6, 1, 1, 4) if base == "CUBE" else (1, 4) if base == "BUFFER"
                      else (1, 1, 4), np.float32)
        with pytest.raises(ExecError, match=rf"{op} does not support the {target} target"):
            execute(p, a, textures={3: Texture([lv], base)})


def test_execute_accepts_source_text_and_reports_diagnostics():
    tex = Texture([np.full((1, 1, 4), 3, np.float32)])
    r = execute(_tex_prog(), {"vertex.attrib[0]": f32(0, 0, 0, 0)}, textures={3: tex})
    assert r.float("result.texcoord[0]").tolist() == [[3, 3, 3, 3]]
    with pytest.raises(XlateError, match="E"):
        execute("!!NVvp4.0\nMOV result.color, nothing;\nEND\n", {})
    with pytest.raises(ExecError, match="program: expected"):
        execute(42, {})
