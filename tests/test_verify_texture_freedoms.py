"""Texture lookups the implementation may compute otherwise than the executor, each shown by
recomputation (xlate/verify/permits.py: rule_fine_derivatives, rule_lod, rule_boundary).

Unit tests ask the rules about one lookup with a chosen implementation value: the freedom's
value is permitted, a value beside it is not.  The GL tests pin what llvmpipe (Mesa 22.3) was
measured to do -- fine derivatives for a cube map's implicit LOD; NEAREST texels of a SIMD
group that also minifies with LINEAR fetched through the linear filter -- and check that the
verifier explains exactly that, and still catches a translation corrupted in one small way.
"""
from __future__ import annotations

import numpy as np
import pytest

import xlate
from xlate.exec import Texture, execute
from xlate.exec import texture as tx
from xlate.verify import permits, permits_texture
from xlate.verify.compare import INEXACT, same_words

from conftest import gl_runner

F32 = np.float32


def f32(*v) -> np.ndarray:
    return np.array(v, np.float32).view(np.uint32)


class _Judge:
    """Executor hook: at instruction ``k``, the Site of the executor's result with the
    implementation value ``imp(exe)`` ((n, 4) words), and the verdicts of permits.permitted
    (or of one ``rule``) for the components that differ and were written."""

    def __init__(self, k, imp, rule=None):
        self.instructions = [k]
        self.imp, self.rule = imp, rule
        self.verdicts = self.exe = None

    def __call__(self, x, st, idx, ops, bits, cmask):
        n = st.lanes if idx is None else len(idx)
        exe = np.ascontiguousarray(np.broadcast_to(bits, (n, 4)))
        imp = np.asarray(self.imp(exe.copy()), np.uint32)
        written = np.broadcast_to(np.array(x.inst.dst.mask, bool), (n, 4))
        differ = ~same_words(exe, imp) & written
        site = permits.Site(x, ops, np.arange(n), exe, imp, "gl")
        self.exe = exe
        if self.rule is None:
            self.verdicts = permits.permitted(site, differ)
        else:
            self.verdicts = np.asarray(self.rule(site), bool) & differ
        return bits, cmask

    def before_flow(self, x, st, sel):
        pass


def judge(text, k, imp, inputs, textures, lanes=4, rule=None):
    hook = _Judge(k, imp, rule)
    execute(xlate.parse(text), inputs=inputs, lanes=lanes, hooks=hook, textures=textures,
            sampling="llvmpipe")
    return hook


def level_colours(shape, colours):
    """A mip chain whose level i is ``colours[i]`` everywhere (the LOD is read off the value);
    ``shape(n)``: a level's texel shape for size n."""
    return [np.broadcast_to(np.array(c, F32), shape(8 >> i) + (4,)).copy()
            for i, c in enumerate(colours)]


# ---- fine derivatives: a cube map's implicit LOD per pixel ---------------------------------------

CUBE_TEX = "!!NVfp4.0\nTEX result.color, fragment.texcoord[0], texture[0], CUBE;\nEND\n"
#: one quad, every direction on the +Z face at z = 1 (face s = 0.5 x + 0.5, t = -0.5 y + 0.5):
#: coarse differences (lane 1 - lane 0, lane 2 - lane 0) give every lane rho = 8 * 0.5 * 0.25
#: = 1, LOD 0; lane 3's fine ones (lane 3 - lane 2, lane 3 - lane 1) give rho = 8 * 0.5 * 0.75
#: = 3: llvmpipe's log2 of rho^2 = 9 = 0.5625 * 2^4 is (3 + 0.125) / 2 = LOD 1.5625
CUBE_QUAD = np.array([[0, 0, 1, 0], [0.25, 0, 1, 0], [0, 0.25, 1, 0], [0.75, 0.25, 1, 0]], F32)
CUBE_LEVELS = [(0.25, 0.25, 0.25, 0.25), (0.5, 0.5, 0.5, 0.5), (0.75, 0.75, 0.75, 0.75),
               (1.0, 1.0, 1.0, 1.0)]


def cube_texture():
    return Texture(level_colours(lambda n: (6, n, n), CUBE_LEVELS), "CUBE",
                   filter="LINEAR_MIPMAP_LINEAR", mag_filter="LINEAR")


def _lane3(value):
    def imp(e):
        out = e.copy()
        out[3] = f32(value, value, value, value)
        return out
    return imp


def test_cube_lookup_with_fine_derivatives_is_its_lod():
    """LOD 1.5625 between the levels 0.5 and 0.75: 0.640625 on lane 3 (GLSL 4.50 §8.14.1:
    coarse or fine differences are the implementation's choice); the executor's coarse LOD 0
    gives 0.25 there."""
    inputs = {"fragment.texcoord[0]": CUBE_QUAD}
    hook = judge(CUBE_TEX, 0, _lane3(0.640625), inputs, {0: cube_texture()},
                 rule=permits.rule_fine_derivatives)
    assert hook.exe[3].view(F32).tolist() == [0.25] * 4
    assert hook.verdicts.tolist() == [[False] * 4] * 3 + [[True] * 4]
    hook = judge(CUBE_TEX, 0, _lane3(0.640625), inputs, {0: cube_texture()})
    assert hook.verdicts[3].tolist() == ["lod"] * 4


@pytest.mark.parametrize("wrong", [0.625, 0.65625])
def test_cube_lookup_at_another_lod_is_not_fine_derivatives(wrong):
    """LOD 1.5 and 1.625: no fine (or coarse) derivative of this quad gives them."""
    hook = judge(CUBE_TEX, 0, _lane3(wrong), {"fragment.texcoord[0]": CUBE_QUAD},
                 {0: cube_texture()}, rule=permits.rule_fine_derivatives)
    assert not hook.verdicts.any()


def test_fine_partials_are_each_lanes_row_and_column():
    """texture._implicit_partials(fine=True): lane 3's differences are lane 3 - lane 2 (x) and
    lane 3 - lane 1 (y); the coarse ones are the quad's lane 1 - lane 0 and lane 2 - lane 0."""
    captured = {}

    class Grab:
        instructions = [0]

        def __call__(self, x, st, idx, ops, bits, cmask):
            captured["coarse"] = tx._implicit_partials(x, (0, 1, 2), False)
            captured["fine"] = tx._implicit_partials(x, (0, 1, 2), False, fine=True)
            return bits, cmask

        def before_flow(self, x, st, sel):
            pass

    execute(xlate.parse(CUBE_TEX), inputs={"fragment.texcoord[0]": CUBE_QUAD}, lanes=4,
            hooks=Grab(), textures={0: cube_texture()})
    cdx, cdy = captured["coarse"]
    fdx, fdy = captured["fine"]
    assert cdx.tolist() == [[0.25, 0, 0]] * 4 and cdy.tolist() == [[0, 0.25, 0]] * 4
    assert fdx.tolist() == [[0.25, 0, 0], [0.25, 0, 0], [0.75, 0, 0], [0.75, 0, 0]]
    assert fdy.tolist() == [[0, 0.25, 0], [0.5, 0.25, 0], [0, 0.25, 0], [0.5, 0.25, 0]]


# ---- rule_lod: one LOD for the whole lookup -------------------------------------------------------

TEX_2D = "!!NVfp4.0\nTEMP t;\nTEX t{mask}, fragment.texcoord[0], texture[0], 2D;\n" \
         "MOV result.color, t;\nEND\n"
#: x rises and y falls with the level: x = 0.25 is level 0's, y = 0.25 level 2's
LOD_LEVELS = [(0.25, 0.75, 0, 1), (0.5, 0.5, 0, 1), (0.75, 0.25, 0, 1), (1.0, 0.0, 0, 1)]


def _lod_judge(value, mask=""):
    tex = Texture(level_colours(lambda n: (n, n), LOD_LEVELS), "2D",
                  filter="LINEAR_MIPMAP_LINEAR", mag_filter="LINEAR")
    # one coordinate on every lane: zero derivatives, the base level (0.25, 0.75, 0, 1)
    coords = np.tile(np.array([[0.3, 0.3, 0, 1]], F32), (4, 1))
    return judge(TEX_2D.format(mask=mask), 0, lambda e: np.tile(f32(*value), (len(e), 1)),
                 {"fragment.texcoord[0]": coords}, {0: tex}, rule=permits.rule_lod)


def test_lod_rule_takes_one_lod_for_every_component():
    """(0.25, 0.25): x at LOD 0, y at LOD 2 -- each component at a LOD of its own, no lookup.
    The old rule (any LOD per component) permitted y."""
    hook = _lod_judge((0.25, 0.25, 0, 1))
    assert hook.exe[0].view(F32).tolist() == [0.25, 0.75, 0, 1]
    assert not hook.verdicts.any()
    hook = _lod_judge((0.375, 0.625, 0, 1))             # LOD 0.5: both components
    assert hook.verdicts.tolist() == [[True, True, False, False]] * 4


def test_lod_rule_keeps_to_the_approximations_gl_allows_where_derivatives_are_defined():
    """Straight-line code, one quad one texel apart in x and y on the 8x8 base level: rho = 1,
    lambda = 0.  GL 4.5 §8.14.1 lets rho be approximated within a factor sqrt(2) in 2D (half
    a level; lod_reach adds a quarter for llvmpipe's approximate log2): LOD 0.5's value is a
    lookup the implementation may make, LOD 2's is not.  Before, every LOD of the texture was
    taken, and a mutated coordinate passed as a lookup at some other level (cg fp40
    advanced-aa, campaign seed 7)."""
    tex = Texture(level_colours(lambda n: (n, n), LOD_LEVELS), "2D",
                  filter="LINEAR_MIPMAP_LINEAR", mag_filter="LINEAR")
    step = F32(1 / 8)
    quad = np.array([[0.3, 0.3, 0, 1], [0.3 + step, 0.3, 0, 1], [0.3, 0.3 + step, 0, 1],
                     [0.3 + step, 0.3 + step, 0, 1]], F32)

    def lod_of(value):
        return judge(TEX_2D.format(mask=""), 0, lambda e: np.tile(f32(*value), (len(e), 1)),
                     {"fragment.texcoord[0]": quad}, {0: tex}, rule=permits.rule_lod)
    hook = lod_of((0.375, 0.625, 0, 1))                  # LOD 0.5
    assert hook.exe[0].view(F32).tolist() == [0.25, 0.75, 0, 1]     # the executor: LOD 0
    assert hook.verdicts.tolist() == [[True, True, False, False]] * 4   # (z, w: no change)
    assert not lod_of((0.75, 0.25, 0, 1)).verdicts.any()           # LOD 2
    assert permits_texture.lod_reach(2) == 0.75 and permits_texture.lod_reach(1) == 0.25


def test_lod_rule_judges_the_written_components_only():
    """TEX t.y: x is not the lookup's (the register's old value there), y = 0.25 is LOD 2."""
    hook = _lod_judge((0.25, 0.25, 0, 1), mask=".y")
    assert hook.verdicts.tolist() == [[False, True, False, False]] * 4


#: a depth comparison of a shadow cube array (the reference in TEX2's second operand, where
#: TXL2 reads its level): 0.5 <= depth fails on levels 0 and 2 (0.2), passes on level 1 (0.8)
SHADOW_CUBE_ARRAY_TEX2 = (
    "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL IN[1], GENERIC[1], PERSPECTIVE\n"
    "DCL OUT[0], COLOR\nDCL SAMP[0]\nDCL SVIEW[0], CUBEARRAY, FLOAT\nDCL TEMP[0]\n"
    "  0: TEX2 TEMP[0], IN[0], IN[1], SAMP[0], SHADOWCUBEARRAY\n  1: MOV OUT[0], TEMP[0]\n"
    "  2: END\n")


@pytest.mark.parametrize("value, permitted", [
    ((0.5, 0.5, 0.5, 1), True),          # LOD 0.5: half of level 0's 0, half of level 1's 1
    ((1, 1, 1, 1), True),                # LOD 1
    ((0.25, 0.75, 0.5, 1), False),       # a LOD of its own per component
    ((0.5, 0.5, 0.5, 0.5), False),       # w is 1.0 exactly
])
def test_shadow_cube_array_lookup_at_another_lod(value, permitted):
    """GL 4.5 §8.14.1's approximate LOD for TEX2 SHADOWARRAYCUBE, re-run at each level with its
    reference (generated TGSI fragment seed 1104, inputs seed 1100: llvmpipe's filtered
    comparison 0.129 where the executor's LOD 0 gave 1.0; rule_lod skipped those targets)."""
    levels = [np.full((6, n, n, 1), d, F32) for n, d in ((8, 0.2), (4, 0.8), (2, 0.2))]
    tex = Texture(levels, "ARRAYCUBE", filter="LINEAR_MIPMAP_LINEAR", mag_filter="LINEAR")
    inputs = {"IN0": np.tile(np.array([[0.3, 0.2, 1, 0]], F32), (4, 1)),
              "IN1": np.tile(np.array([[0.5, 0, 0, 0]], F32), (4, 1))}
    hook = judge(SHADOW_CUBE_ARRAY_TEX2, 0, lambda e: np.tile(f32(*value), (len(e), 1)), inputs,
                 {0: tex}, rule=permits.rule_lod)
    assert hook.exe[0].view(F32).tolist() == [0, 0, 0, 1]        # zero derivatives: LOD 0
    differ = ~same_words(hook.exe, np.tile(f32(*value), (4, 1)))
    assert (hook.verdicts == (differ if permitted else False)).all()


def test_the_targets_whose_reference_takes_the_lods_place_come_from_the_executors_coordinates():
    """permits_texture.REFERENCE_IN_LOD_PLACE is derived from exec/texture_ops._coords (GP4
    Table X.17): the reference in w, or TEX2's second operand for a shadow cube array."""
    from xlate.verify.permits_texture import REFERENCE_IN_LOD_PLACE
    assert REFERENCE_IN_LOD_PLACE == {"SHADOWCUBE", "SHADOWARRAY2D", "SHADOWARRAYCUBE"}


def _shadow_array_lookup(target, coord):
    """TEX of a shadow array whose levels hold depth 0.2, 0.5, 0.2, compared EQUAL: a reference
    of 0.5 fails on levels 0 and 2 and passes on level 1 -- and a lookup that took its level
    for its reference (the level in w) would pass on no level at LOD 1."""
    text = ("FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL SAMP[0]\n"
            f"DCL TEMP[0]\n  0: TEX TEMP[0], IN[0], SAMP[0], {target}\n"
            "  1: MOV OUT[0], TEMP[0]\n  2: END\n")
    base = "ARRAY1D" if "1D" in target else "ARRAY2D"
    shape = (lambda n: (2, n, 1)) if base == "ARRAY1D" else (lambda n: (2, n, n, 1))
    levels = [np.full(shape(n), d, F32) for n, d in ((8, 0.2), (4, 0.5), (2, 0.2))]
    tex = Texture(levels, base, filter="LINEAR_MIPMAP_LINEAR", mag_filter="LINEAR",
                  compare="EQUAL")
    return text, {"IN0": np.tile(np.array([coord], F32), (4, 1))}, {0: tex}


@pytest.mark.parametrize("target, coord", [
    ("SHADOW1D_ARRAY", (0.3, 1, 0.5, 0)),      # reference in z: the level goes in w (TXL)
    ("SHADOW2D_ARRAY", (0.3, 0.2, 1, 0.5)),    # reference in w: the level goes in `lod`
])
@pytest.mark.parametrize("value, permitted", [
    ((1, 1, 1, 1), True),                      # LOD 1
    ((0.5, 0.5, 0.5, 1), True),                # LOD 0.5
    ((0.25, 0.75, 0.5, 1), False),             # a LOD of its own per component
])
def test_shadow_array_lookup_at_another_lod(target, coord, value, permitted):
    text, inputs, textures = _shadow_array_lookup(target, coord)
    hook = judge(text, 0, lambda e: np.tile(f32(*value), (len(e), 1)), inputs, textures,
                 rule=permits.rule_lod)
    assert hook.exe[0].view(F32).tolist() == [0, 0, 0, 1]        # zero derivatives: LOD 0
    differ = ~same_words(hook.exe, np.tile(f32(*value), (4, 1)))
    assert (hook.verdicts == (differ if permitted else False)).all()


#: TXD on a cube whose direction ties x, y and z (generated TGSI fragment seed 1119, inputs seed
#: 1100); level i of face f is (f / 8, i, 0, 1) everywhere, no filtering across faces: x names
#: the face, y the level of detail.  The derivatives projected onto +Z give LOD 4.50, onto +Y
#: 4.78, onto +X 5.13 (32 texels: 2 more than on the seed's 8)
TXD_CUBE = ("FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL IN[1], GENERIC[1], PERSPECTIVE\n"
            "DCL IN[2], GENERIC[2], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL SAMP[0]\n"
            "DCL SVIEW[0], CUBE, FLOAT\n  0: TXD OUT[0], IN[0], IN[1], IN[2], SAMP[0], CUBE\n"
            "  1: END\n")


@pytest.mark.parametrize("direction, value, permitted", [
    ((0.8125, 0.8125, 0.8125), (0.25, 4.503, 0, 1), True),    # +Y texels, +Z's LOD (llvmpipe)
    ((0.8125, 0.8125, 0.8125), (0.0, 4.503, 0, 1), True),     # +X texels, +Z's LOD
    ((0.8125, 0.8125, 0.8125), (0.25, 5.0, 0, 1), True),      # +Y, +X's LOD 5.13 clamped
    ((0.8125, 0.8125, 0.8125), (0.25, 4.7, 0, 1), False),     # no face's LOD
    ((0.8125, 0.8125, 0.8125), (0.375, 4.503, 0, 1), False),  # -Y: not a face of the tie
    ((0.8125, 0.8, 0.8125), (0.25, 4.503, 0, 1), False),      # y not tied: no +Y texels
])
def test_cube_tie_takes_texels_and_derivatives_from_faces_of_its_own(direction, value,
                                                                      permitted):
    """GL 4.5 Table 8.19 leaves a tie of the major axis to the implementation, for the
    coordinates and for the derivatives' projection separately (rule_cube_tie_derivatives);
    the executor takes +Z for both: (0.5, 4.50)."""
    levels = [np.stack([np.broadcast_to(np.array([f / 8, i, 0, 1], F32), (32 >> i, 32 >> i, 4))
                        for f in range(6)]).copy() for i in range(6)]
    tex = Texture(levels, "CUBE", filter="LINEAR_MIPMAP_LINEAR", mag_filter="LINEAR",
                  seamless=False, wrap="CLAMP_TO_EDGE")
    lane = lambda v: np.tile(np.array([[*v, 0]], F32), (4, 1))      # noqa: E731
    inputs = {"IN0": lane(direction), "IN1": lane((1.9375, 0.5625, 0.8125)),
              "IN2": lane((-1.5625, -1.9375, -1.9375))}
    hook = judge(TXD_CUBE, 0, lambda e: np.tile(f32(*value), (len(e), 1)), inputs, {0: tex},
                 rule=permits.rule_cube_tie_derivatives)
    if direction[1] == direction[2]:
        assert np.allclose(hook.exe[0].view(F32), [0.5, 4.503, 0, 1], atol=1e-3)
    assert hook.verdicts[:, :2].all() == permitted


@pytest.mark.parametrize("level, permitted", [(0, True), (2, False)])
def test_cube_derivatives_overflowing_llvmpipes_rho_look_up_the_base_level(level, permitted):
    """A cube TXD whose derivative, projected onto the face, reaches 2^64 texels: llvmpipe's
    rho overflows, its LOD wraps and it reads the base level where the executor reads the last
    (rule_wrapped_lod; generated TGSI fragment seed 1301, inputs seed 1300: a derivative of
    1e34 at (100, 100, -6.5)).  Only the base level is permitted, not any level."""
    levels = [np.stack([np.broadcast_to(np.array([f / 8, i, 0, 1], F32), (32 >> i, 32 >> i, 4))
                        for f in range(6)]).copy() for i in range(6)]
    tex = Texture(levels, "CUBE", filter="LINEAR_MIPMAP_LINEAR", mag_filter="LINEAR",
                  seamless=False, wrap="CLAMP_TO_EDGE")
    lane = lambda v: np.tile(np.array([[*v, 0]], F32), (4, 1))      # noqa: E731
    inputs = {"IN0": lane((100.0, 100.0, -6.5)), "IN1": lane((0.0, -7.0, -7.0)),
              "IN2": lane((-3.85e-34, 0.0, 1.04e34))}
    hook = judge(TXD_CUBE, 0, lambda e: np.tile(f32(0.25, level, 0, 1), (len(e), 1)), inputs,
                 {0: tex}, rule=permits.rule_wrapped_lod)
    assert hook.exe[0].view(F32).tolist() == [0.25, 5.0, 0.0, 1.0]   # +Y, the last level
    assert hook.verdicts[:, 1].all() == permitted


def _cube_centre_texture():
    """8x8 faces, level 0's texel (i, j) of face f = (i, j, f, 1) / 8 (neighbours 1/8 apart);
    the other levels -1 everywhere.  NEAREST when minified, LINEAR when magnified."""
    i, j = np.meshgrid(np.arange(8), np.arange(8))
    lv0 = np.stack([np.stack([i, j, np.full_like(i, f), np.full_like(i, 8)], -1)
                    for f in range(6)]).astype(F32) / F32(8)
    levels = [lv0] + [np.full((6, 8 >> k, 8 >> k, 4), -1, F32) for k in (1, 2, 3)]
    return Texture(levels, "CUBE", filter="NEAREST_MIPMAP_NEAREST", mag_filter="LINEAR")


@pytest.mark.parametrize("texel,permitted", [
    ((3, 3), True),      # below and left of the centre: the edge's other side, minified
    ((4, 4), True),      # floor(4.0): the executor's own texel when minified (the plain grid)
    ((2, 3), False),     # two texels from the centre: no rounding of s reaches it
])
def test_an_edge_texel_at_an_other_lod_at_once(texel, permitted):
    """The centre of the +Z face (0, 0, 1) is a corner of four texels.  With zero derivatives
    the executor magnifies (LINEAR: the four texels' mean); an implementation whose LOD
    minifies takes one of the four with NEAREST -- two freedoms at once, GL 4.5 §8.14.1's LOD
    and §8.14.2's edge (generated TGSI fragment seed 927, inputs seed 900: llvmpipe on a cube
    array).  rule_lod tries the edge's moves on its LOD grid; a texel that is not at the
    corner is not permitted."""
    coords = np.tile(np.array([[0, 0, 1, 0]], F32), (4, 1))
    i, j = texel
    want = np.array([i, j, 4, 8], F32) / F32(8)
    hook = judge(CUBE_TEX, 0, lambda e: np.tile(want.view(np.uint32), (len(e), 1)),
                 {"fragment.texcoord[0]": coords}, {0: _cube_centre_texture()},
                 rule=permits.rule_lod)
    assert hook.exe[0].view(F32).tolist() == [0.4375, 0.4375, 0.5, 1.0]     # the mean of four
    assert hook.verdicts[0].tolist() == [permitted, permitted, False, False]


@pytest.mark.parametrize("value,permitted", [
    ((0.4375, 0.4375, 3 / 8, 1), True),     # the -Y face's centre (the mean of its four texels)
    ((0.4375, 0.4375, 1 / 8, 1), True),     # the -X face's: x ties with y
    ((0.4375, 0.4375, 5 / 8, 1), False),    # the -Z face's: z is not a major axis
    ((0.125, 0.125, 3 / 8, 1), False),      # the -Y face, off its centre
])
def test_a_cube_direction_beyond_the_division_range_looks_up_a_face_centre(value, permitted):
    """(-1.5e38, -1.5e38, -2.59): 1 / |ma| is a denormal, which llvmpipe flushes, so the face
    coordinates sc / |ma| become the face's centre (GLSL 4.50 §4.7.1: a / b is defined for |b|
    up to 2^126; generated TGSI fragment seed 531, inputs seed 500).  The lookup at the major
    axis alone -- for a tie, either tied axis -- is permitted ('ftz'), nothing else is."""
    coords = np.tile(np.array([[-1.5e38, -1.5e38, -2.59, 0]], F32), (4, 1))
    want = np.array(value, F32)
    hook = judge(CUBE_TEX, 0, lambda e: np.tile(want.view(np.uint32), (len(e), 1)),
                 {"fragment.texcoord[0]": coords}, {0: _cube_centre_texture()},
                 rule=permits.rule_cube_flushed_reciprocal)
    differ = ~same_words(hook.exe[0], want.view(np.uint32))
    assert differ.any()
    assert hook.verdicts[0].tolist() == (differ.tolist() if permitted else [False] * 4)


# ---- rule_boundary: an edge texel through the linear filter -------------------------------------

NEAREST_TEX = "!!NVfp4.0\nTEX result.color, fragment.texcoord[0], texture[0], 2D;\nEND\n"


def _edge_texture():
    """8x8, texel (i, j) = (i, j, i + 8 j, 1) / 8 at level 0 (neighbours 1/8 apart)."""
    i, j = np.meshgrid(np.arange(8), np.arange(8))
    lv0 = np.stack([i, j, i + 8 * j, np.full_like(i, 8)], -1).astype(F32) / F32(8)
    levels = [lv0] + [np.full((8 >> k, 8 >> k, 4), -1, F32) for k in (1, 2, 3)]
    return Texture(levels, "2D", filter="LINEAR_MIPMAP_LINEAR", mag_filter="NEAREST")


@pytest.mark.parametrize("texel,ulps,verdicts", [
    # the other neighbour of u = 4.0 (floor(4.0) = 4 exactly); y and w are the same texel's
    (3, 0, ["boundary", "", "boundary", ""]),
    # ... as llvmpipe's linear filter returns it, a + 1.0 * (b - a): 1 ulp off
    (3, 1, ["boundary", "tolerance", "boundary", "tolerance"]),
    # two texels away: no rounding of u reaches it
    (2, 0, ["", "", "", ""]),
])
def test_edge_texel_within_the_filtering_tolerance(texel, ulps, verdicts):
    coords = np.tile(np.array([[0.5, 0.3, 0, 1]], F32), (4, 1))   # u = 4.0, v = 2.4: row 2
    want = np.array([texel, 2, texel + 16, 8], F32) / F32(8)
    hook = judge(NEAREST_TEX, 0, lambda e: np.tile(want.view(np.uint32) + np.uint32(ulps),
                                                   (len(e), 1)),
                 {"fragment.texcoord[0]": coords}, {0: _edge_texture()})
    assert hook.exe[0].view(F32).tolist() == [0.5, 0.25, 2.5, 1.0]     # texel (4, 2)
    assert hook.verdicts[0].tolist() == verdicts


# ---- on llvmpipe -------------------------------------------------------------------------------------

#: etnaviv_compiler_tests' ffox-otmc-57.tgsi, a single implicit-LOD cube lookup
CUBE_TGSI = ("FRAG\nDCL IN[0], GENERIC[0], LINEAR\nDCL OUT[0], COLOR\nDCL SAMP[0]\n"
             "  0: TEX OUT[0], IN[0], SAMP[0], CUBE\n  1: END\n")


def _runs(text, runner, lanes=256, seed=1, inputs=None, textures=None):
    """The program's generated inputs (``inputs``/``textures``: replaced), the executor's
    result and llvmpipe's capture of the translation."""
    from xlate.backends.glsl import emit_glsl
    from xlate.verify import compare as cmp
    from xlate.verify import draw_run
    from xlate.verify.analysis import analyse
    from xlate.verify.inputs import generate
    from xlate.verify.textures import generate_textures
    prog = xlate.parse(text)
    out = emit_glsl(prog, draw_run.runner_profile(runner))
    gen = generate(prog, analyse(prog, set(cmp.INEXACT)), lanes, seed,
                   builtin_values=draw_run.builtin_values_for(prog.stage, lanes,
                                                          draw_run.fragment_xy(prog, lanes)))
    gen.textures = textures or generate_textures(prog, seed)
    gen.inputs.update(inputs or {})
    res = draw_run.run_executor(prog, gen, lanes)
    cap = draw_run.run_gl(runner, prog, out.source, out.reflection, gen, lanes)
    return prog, gen, res, cap


def test_llvmpipe_cube_lod_is_from_fine_derivatives(monkeypatch):
    """The counterfactual behind rule_fine_derivatives: with the executor's coarse differences
    replaced by fine ones, every lane of the cube lookup agrees with llvmpipe within TEX's
    filtering tolerance; with the coarse ones, lanes do not (random directions per lane)."""
    runner = gl_runner()
    prog, gen, res, cap = _runs(CUBE_TGSI, runner)
    imp = np.asarray(cap.outputs["result_color0"], np.uint32).reshape(-1, 4).view(F32)
    coarse = np.asarray(res.outputs["OUT0"], np.uint32).reshape(-1, 4).view(F32)
    from xlate.exec import texture_ops     # where the executor's lookups call _texture
    original = texture_ops._texture
    monkeypatch.setattr(texture_ops, "_texture",
                        lambda x, op, c, gdx=None, gdy=None, extra=None, fine=False:
                        original(x, op, c, gdx, gdy, extra, fine=True))
    from xlate.verify import draw_run
    fine = np.asarray(draw_run.run_executor(prog, gen, 256).outputs["OUT0"],
                      np.uint32).reshape(-1, 4).view(F32)
    tol = INEXACT["TEX"][1]
    assert int((np.abs(fine - imp) > tol).any(axis=1).sum()) == 0
    assert int((np.abs(coarse - imp) > tol).any(axis=1).sum()) > 50


def test_cube_lookup_verifies_and_a_wrong_direction_does_not():
    from xlate.backends.glsl import emit_glsl
    from xlate.verify.core import verify_source
    rep = verify_source(CUBE_TGSI, "cube.tgsi", runner=gl_runner(), lanes=256)
    assert rep.status == "pass", rep.reason
    assert "lod" in rep.reason
    src = emit_glsl(xlate.parse(CUBE_TGSI)).source
    old = "texture(texture0, fragment_generic_0.xyz)"
    assert old in src, src
    from test_verify_replay import Editing
    rep = verify_source(CUBE_TGSI, "cube.tgsi", lanes=256, runner=Editing(
        gl_runner(), old, "texture(texture0, fragment_generic_0.xzy)"))
    assert rep.status == "mismatch", rep.reason
    assert any(x.get("verdict") == "divergence" and x["instruction"]["op"] == "TEX"
               for x in rep.localization if "instruction" in x)


def test_llvmpipe_edge_texel_of_a_mixed_simd_group():
    """Pins the driver behaviour rule_boundary's tolerance rests on.  Quads 0 and 1 share an
    8-wide SIMD group: quad 0 is magnified (NEAREST) at u = 4.0 exactly, quad 1 minified
    (LINEAR_MIPMAP_LINEAR).  gallivm samples the group with the linear filter and forces quad
    0's weights to 0/1 (fpart > 0.5): texel 3, not floor(4.0) = 4, and the row through
    ``a + 1.0 * (b - a)``.  Quads 2 and 3 are both magnified: the plain NEAREST path, texel 4
    as the executor has it."""
    runner = gl_runner()
    coords = np.zeros((16, 4), F32)
    coords[:, 0] = 0.5
    coords[:, 1] = 0.3 + 0.001 * (np.arange(16) & 3)          # rows 2, tiny derivatives
    coords[4:8, :2] = [[0.1, 0.1], [0.9, 0.1], [0.1, 0.9], [0.9, 0.9]]     # minified
    coords[:, 3] = 1
    tex = _edge_texture()
    prog, gen, res, cap = _runs(NEAREST_TEX, runner, lanes=16,
                                inputs={"fragment.texcoord[0]": coords.view(np.uint32)},
                                textures={0: tex})
    imp = np.asarray(cap.outputs["result_color0"], np.uint32).reshape(-1, 4)
    exe = np.asarray(next(iter(res.outputs.values())), np.uint32).reshape(-1, 4)
    texel4 = np.array([4, 2, 20, 8], F32) / F32(8)
    texel3 = np.array([3, 2, 19, 8], F32) / F32(8)
    assert (exe[0:4].view(F32) == texel4).all() and (exe[8:16].view(F32) == texel4).all()
    assert (imp[8:16].view(F32) == texel4).all()                         # plain NEAREST
    assert np.abs(imp[0:4].view(F32) - texel3).max() <= 2.0 ** -20       # the other neighbour
    # and the verifier explains exactly that: the edge nudged, within the tolerance
    hook = judge(NEAREST_TEX, 0, lambda e: imp[:len(e)].copy(),
                 {"fragment.texcoord[0]": coords}, {0: tex}, lanes=16)
    assert set(hook.verdicts[0:4, [0, 2]].ravel()) == {"boundary"}
    differ = ~same_words(hook.exe, imp)
    assert (hook.verdicts[differ] != "").all()


#: a NEAREST lookup of a cube at an explicit LOD (level 0 of one)
TXL_CUBE = ("FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL SAMP[0]\n"
            "DCL SVIEW[0], CUBE, FLOAT\n  0: TXL OUT[0], IN[0], SAMP[0], CUBE\n  1: END\n")


@pytest.mark.parametrize("direction, value, permitted", [
    ((0.5, 0.5, -0.5), "mean3", True),      # the corner of +X, +Y and -Z: their texels' mean
    ((0.5, 0.5, -0.5), "mean2", False),     # two of the three texels: no corner's value
    ((0.5, 0.5, -0.25), "mean3", False),    # the edge of +X and +Y, no corner
])
def test_a_cube_corner_is_the_mean_of_its_three_texels(direction, value, permitted):
    """GL 4.5 §8.14.2, seamless cube maps: a texel beyond both edges of a face is the average
    of the three texels meeting at the corner; llvmpipe's NEAREST lookup at an exact corner
    gives that mean (generated ARBvp+NV3 vertex seed 1602, inputs seed 1600).  The texels at
    direction (+, +, -): +X (row 0, column 7), +Y (row 0, column 7), -Z (row 0, column 0)."""
    level = np.zeros((6, 8, 8, 4), F32)         # the corner texels 1, 2 and 4, the rest 0
    level[0, 0, 7], level[2, 0, 7], level[5, 0, 0] = 1, 2, 4
    tex = Texture([level], "CUBE", filter="NEAREST", mag_filter="NEAREST")
    corner = [level[0, 0, 7], level[2, 0, 7], level[5, 0, 0]]
    want = {"mean3": (corner[0] + corner[1] + corner[2]) * F32(1.0 / 3.0),
            "mean2": (corner[0] + corner[1]) * F32(0.5)}[value]
    inputs = {"IN0": np.tile(np.array([list(direction) + [0.0]], F32), (4, 1))}
    hook = judge(TXL_CUBE, 0, lambda e: np.tile(want.astype(F32).view(np.uint32), (len(e), 1)),
                 inputs, {0: tex}, rule=permits.rule_boundary)
    differ = ~same_words(hook.exe, np.tile(want.astype(F32).view(np.uint32), (4, 1)))
    assert differ.any()
    assert (hook.verdicts == (differ if permitted else False)).all()


TXL_ARRAY2D = ("FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL SAMP[0]\n"
               "DCL SVIEW[0], 2D_ARRAY, FLOAT\n  0: TXL OUT[0], IN[0], SAMP[0], 2D_ARRAY\n"
               "  1: END\n")


@pytest.mark.parametrize("layer_coord, implementation_layer, permitted", [
    (8.4e27, 0, True),       # beyond int32: llvmpipe's conversion overflows, clamped to 0
    (8.4e27, 1, False),      # another layer than 0: no such defect
    (3.0e9, 0, True),        # just past 2^31
    (1.0e9, 0, False),       # within int32: GL's clamp to the last layer, llvmpipe's too
])
def test_an_array_layer_beyond_the_integer_range_reads_layer_0(layer_coord,
                                                                implementation_layer,
                                                                permitted):
    """GL 4.5 §8.14.2: layer clamp(RNE(r), 0, d - 1) -- the last for a large r.  gallivm
    rounds r to a 32-bit integer first, and an out-of-range conversion gives INT_MIN, which
    its clamp takes to layer 0 (rule_wrapped_layer; generated TGSI fragment seed 1904, inputs
    seed 1900: TXL2 on a cube array at r = 8.4e27).  Only layer 0, only past 2^31."""
    layers = np.stack([np.full((4, 4, 4), k / 8, F32) for k in range(3)])
    tex = Texture([layers], "ARRAY2D", filter="NEAREST")
    inputs = {"IN0": np.tile(np.array([[0.3, 0.6, layer_coord, 0.0]], F32), (4, 1))}
    value = f32(*[implementation_layer / 8] * 4)
    hook = judge(TXL_ARRAY2D, 0, lambda e: np.tile(value, (len(e), 1)), inputs, {0: tex},
                 rule=permits.rule_wrapped_layer)
    assert hook.exe[0].view(F32).tolist() == [0.25] * 4          # the executor: layer 2
    assert hook.verdicts.all() == permitted


@pytest.mark.parametrize("layer_coord, implementation_layer, permitted", [
    (1.5, 1, True),          # a tie: the lower layer (gallivm's round to nearest even)
    (1.5, 0, False),         # a layer that is neither neighbour
    (0.5, 0, True),          # generated TGSI fragment seed 2201: a literal layer 0.5
    (1.4999999, 0, False),   # no tie: the executor's layer 1 is the only nearest
    (1.4999999, 2, False),
])
def test_an_array_layer_halfway_between_two_layers_reads_either(layer_coord,
                                                                implementation_layer,
                                                                permitted):
    """NV_gpu_program4 2.X.8.Z rounds the layer coordinate "to the nearest integer" and says
    nothing of a tie; the executor takes GLSL's floor(r + 0.5), gallivm rounds to nearest
    even (rule_layer_tie).  Only an exact k + 0.5, only layer k."""
    layers = np.stack([np.full((4, 4, 4), k / 8, F32) for k in range(3)])
    tex = Texture([layers], "ARRAY2D", filter="NEAREST")
    inputs = {"IN0": np.tile(np.array([[0.3, 0.6, layer_coord, 0.0]], F32), (4, 1))}
    value = f32(*[implementation_layer / 8] * 4)
    hook = judge(TXL_ARRAY2D, 0, lambda e: np.tile(value, (len(e), 1)), inputs, {0: tex},
                 rule=permits.rule_layer_tie)
    executor_layer = int(np.floor(np.float32(layer_coord) + 0.5))
    assert hook.exe[0].view(F32).tolist() == [executor_layer / 8] * 4
    assert hook.verdicts.all() == permitted
    assert hook.verdicts.any() == permitted


TXP_CUBE = ("FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL SAMP[0]\n"
            "DCL SVIEW[0], CUBE, FLOAT\n  0: TXP OUT[0], IN[0], SAMP[0], CUBE\n  1: END\n")


@pytest.mark.parametrize("q, permitted", [
    (1.0310199e-38, True),     # a denormal q: flushed, the direction is 1/0 (generated 2801)
    (-5e-39, True),
    (0.0, True),
    (1.2e-38, False),          # the smallest normals are no denormals
    (0.5, False),
])
def test_a_projected_lookup_by_a_denormal_q_may_take_any_value(q, permitted):
    """GLSL 4.50 §4.7.1 lets the denormal q be flushed, and the projection then divides by
    zero (rule_nonfinite); the executor divides by the denormal (generated TGSI fragment seed
    2801, inputs seed 2800: TXP on a cube, q = 1.03e-38, llvmpipe's texel another face's)."""
    level = np.zeros((6, 4, 4, 4), F32)
    level[0] = 1.0                      # +X
    tex = Texture([level], "CUBE", filter="NEAREST", mag_filter="NEAREST")
    inputs = {"IN0": np.tile(np.array([[1.5625, 1.5625, 1.1875, q]], F32), (4, 1))}
    other = f32(0.25, 0.5, 0.75, 1.0)
    hook = judge(TXP_CUBE, 0, lambda e: np.tile(other, (len(e), 1)), inputs, {0: tex},
                 rule=permits.rule_nonfinite)
    assert not same_words(hook.exe[0], other[0]).all()
    assert hook.verdicts.all() == permitted and hook.verdicts.any() == permitted
