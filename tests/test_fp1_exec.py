"""!!FP1.0 programs run through xlate.execute: the worked examples of nv_dialects.md 11.5 give
the stated values; FP1's numerics (POW/LIT 0^0 = NaN, NaN-propagating MIN/MAX, IEEE set-on, no
|x| in RSQ, fp16 H registers, fx12 X precision, TXP without divide on cube maps) behave as the
spec says; the translated GLSL agrees on a real GL implementation (Mesa llvmpipe)."""
from __future__ import annotations

import numpy as np
import pytest

from conftest import gl_runner

import xlate
from xlate.exec import Texture

FP1_A = """!!FP1.0
DEFINE quarter = 0.25;
DECLARE tint = {1.0, 0.5, 0.25, 1.0};
ADDRC  RC.x, f[TEX0].x, -quarter;   # CC.x = sign(s - 0.25)
KIL    LT.x;
TEX    R0, f[TEX0], TEX0, 2D;
ADDRC  RC.y, f[TEX0].y, -0.5;       # CC.y = sign(t - 0.5)
MULR   R0 (GT.y), R0, tint;         # GT.y replicated: all four components or none
MULR   o[COLR], R0, f[COL0];
END
"""

FP1_B = """!!FP1.0
DECLARE expo = {0.0, 0.0, 0.0, 0.0};   # x = exponent (ProgramNamedParameter4fNV)
MAXR   R0.x, f[TEX0].x, 0;             # base = max(s, 0)
POWR   R1.x, R0.x, expo.x;             # NaN for 0^0 in FP1
SNERC  RC.x, R1.x, R1.x;               # 1.0 only for NaN -> CC.x = GT
MOVR   R1.x (GT.x), 1.0;               # replace NaN by 1
MULR   o[COLR], f[COL0], R1.x;
END
"""


def vec(*v):
    return np.array(v, np.float32)


def run(text, inputs=None, params=None, **kw):
    return xlate.execute(text, inputs or {}, params=params or {}, filename="t.fp", **kw)


def texture_1x1(rgba):
    return {0: Texture(levels=[np.array([[rgba]], np.float32)], target="2D")}


# ---- nv_dialects.md 11.5 ----------------------------------------------------------------------

def test_fp1_a():
    tc = np.array([[0.5, 0.75, 0, 1], [0.5, 0.25, 0, 1], [0.1, 0.9, 0, 1], [0.25, 0.9, 0, 1]],
                  np.float32)
    r = run(FP1_A, {"f[TEX0]": tc, "f[COL0]": vec(1, 1, 1, 0.5)},
            {"tint": vec(1.0, 0.5, 0.25, 1.0)}, textures=texture_1x1([0.8, 0.6, 0.4, 1.0]))
    out = r.float("o[COLR]")
    np.testing.assert_allclose(out[0], [0.8, 0.3, 0.1, 0.5], rtol=1e-6)
    np.testing.assert_allclose(out[1], [0.8, 0.6, 0.4, 0.5], rtol=1e-6)
    np.testing.assert_allclose(out[3], [0.8, 0.3, 0.1, 0.5], rtol=1e-6)     # EQ: not killed
    assert r.killed.tolist() == [False, False, True, False]


@pytest.mark.parametrize("s, e, expected", [
    (0.0, 0.0, [1, 0.5, 0.25, 1]), (0.5, 2.0, [0.25, 0.125, 0.0625, 0.25]), (0.0, 3.0, [0, 0, 0, 0])])
def test_fp1_b(s, e, expected):
    r = run(FP1_B, {"f[TEX0]": vec(s, 0, 0, 0), "f[COL0]": vec(1, 0.5, 0.25, 1)},
            {"expo": vec(e, 0, 0, 0)})
    np.testing.assert_allclose(r.float("o[COLR]")[0], expected, rtol=1e-6)


def test_fp1_b_without_fixup_is_nan():
    text = FP1_B.replace("SNERC  RC.x, R1.x, R1.x;", "").replace("MOVR   R1.x (GT.x), 1.0;", "")
    r = run(text, {"f[TEX0]": vec(0, 0, 0, 0), "f[COL0]": vec(1, 0.5, 0.25, 1)}, {"expo": vec(0, 0, 0, 0)})
    assert np.isnan(r.float("o[COLR]")[0]).all()


def test_lit_zero_to_the_zero_is_nan():
    # FP1 LIT uses the POW rules (no exponent clamp): z = NaN for {1, 0, 0, 0}; ARB gives 1.0
    r = run("!!FP1.0\nLITR o[COLR], {1, 0, 0, 0};\nEND\n")
    out = r.float("o[COLR]")[0]
    assert out[[0, 1, 3]].tolist() == [1, 1, 1] and np.isnan(out[2])
    arb = run("!!ARBfp1.0\nLIT result.color, {1, 0, 0, 0};\nEND\n").float("result.color")[0]
    assert arb.tolist() == [1, 1, 1, 1]
    # no clamp of w to +-(128 - 1/256): 2^200 overflows to +INF in FP1, not in ARB
    r = run("!!FP1.0\nLITR o[COLR], {1, 2, 0, 200};\nEND\n")
    assert r.float("o[COLR]")[0, 2] == np.inf
    arb = run("!!ARBfp1.0\nLIT result.color, {1, 2, 0, 200};\nEND\n").float("result.color")[0, 2]
    assert 3.3e38 < arb < np.inf                     # 2^(128 - 1/256)


def test_min_max_propagate_nan():
    r = run("!!FP1.0\nMINR R0, f[TEX0], p[0];\nMAXR R1, f[TEX0], p[0];\nMOVR o[COLR], R0;\n"
            "MOVR o[DEPR], R1;\nEND\n", {"f[TEX0]": vec(np.nan, 1, 2, -0.0)},
            {"p[0]": vec(1, np.nan, 3, 0.0)})
    mn, mx = r.float("o[COLR]")[0], r.float("o[DEPR]")[0]
    assert np.isnan(mn[:2]).all() and np.isnan(mx[:2]).all()
    assert mn[2] == 2 and mx[2] == 3


def test_set_on_and_rsq():
    # IEEE set-on (NaN compares false, SNE true); RSQ of a negative number is NaN (no |x|)
    r = run("!!FP1.0\nSEQR R0.x, f[TEX0].x, f[TEX0].x;\nSNER R0.y, f[TEX0].x, f[TEX0].x;\n"
            "SGER R0.z, f[TEX0].x, f[TEX0].x;\nRSQR R0.w, f[TEX0].y;\nMOVR o[COLR], R0;\nEND\n",
            {"f[TEX0]": vec(np.nan, -4, 0, 0)})
    out = r.float("o[COLR]")[0]
    assert out[:3].tolist() == [0, 1, 0] and np.isnan(out[3])


def test_h_registers_are_fp16_and_x_is_fx12():
    text = ("!!FP1.0\nMOVR H0, f[COL0];\nMOVX R1, f[COL0];\nMOVR R2, H0;\nADDR o[COLR], R2, 0;\n"
            "MOVR o[DEPR], R1;\nEND\n")
    c = vec(0.1, 1e5, 3.0, 1 / 3)
    r = run(text, {"f[COL0]": c})
    with np.errstate(over="ignore"):
        assert r.float("o[COLR]")[0].tolist() == c.astype(np.float16).astype(np.float32).tolist()
    assert r.float("o[DEPR]")[0].tolist() == [102 / 1024, 2047 / 1024, 2047 / 1024, 341 / 1024]


def test_colh_output_and_hc_condition_code():
    # o[COLH] holds fp16; HC updates the CC from the fp16 value: 1e-8 -> 0 -> EQ
    text = ("!!FP1.0\nMOVRC HC.x, f[COL0].x;\nMOVR o[COLH], f[COL0];\nMOVR o[COLH].w (EQ.x), 7;\nEND\n")
    r = run(text, {"f[COL0]": vec(1e-8, 0.1, 0, 0)})
    assert r.float("o[COLH]")[0].tolist() == [0, np.float32(np.float16(0.1)), 0, 7]


def test_texcoord_operands_run_at_fp32():
    # FP1 3.11.4.2: an instruction reading f[TEXn] is carried out at fp32 whatever its suffix
    r = run("!!FP1.0\nMULX R0, f[TEX0], 1;\nMULX R1, f[COL0], 1;\nMOVR o[COLR], R0;\n"
            "MOVR o[DEPR], R1;\nEND\n", {"f[TEX0]": vec(0.1, 0, 0, 0), "f[COL0]": vec(0.1, 0, 0, 0)})
    assert r.float("o[COLR]")[0, 0] == np.float32(0.1)
    assert r.float("o[DEPR]")[0, 0] == 102 / 1024


def test_txp_does_not_divide_for_cube_maps():
    faces = [np.full((1, 1, 4), f, np.float32) for f in range(6)]
    tex = {0: Texture(levels=[np.stack(faces)], target="CUBE")}
    r = run("!!FP1.0\nTXP o[COLR], f[TEX0], TEX0, CUBE;\nEND\n",
            {"f[TEX0]": np.array([[2, 0.1, 0.1, -1], [-2, 0.1, 0.1, 1]], np.float32)}, textures=tex)
    assert r.float("o[COLR]")[:, 0].tolist() == [0, 1]                 # +X, -X: q ignored


def test_merged_constants_and_named_parameters():
    r = run("!!FP1.0\nDEFINE two = 2;\nDECLARE d;\nMAD R0, f[COL0], two, -1;\nMULR R0, R0, d;\n"
            "MOVR o[COLR], R0;\nEND\n", {"f[COL0]": vec(1, 0.5, 0, 2)}, {"d": vec(1, 2, 3, 4)})
    assert r.float("o[COLR]")[0].tolist() == [1, 0, -3, 12]
    # a named parameter is set through its binding too (ProgramNamedParameter4fNV)
    r = run("!!FP1.0\nDECLARE d;\nMOVR o[COLR], d;\nEND\n", params={"program.named.d": vec(5, 6, 7, 8)})
    assert r.float("o[COLR]")[0].tolist() == [5, 6, 7, 8]


# ---- the translation agrees with the executor on a real GL implementation ---------------------

GL_PROGRAMS = {
    "fp1_b": FP1_B,
    "numerics": "!!FP1.0\nMINR R0, f[TEX0], p[0];\nMAXX H1, f[COL0], p[0];\nLITR R2, R0;\n"
                "SLTRC HC, R0, H1;\nMOVH o[COLH], R2;\nMOVR o[COLH] (LT.y), H1;\nEND\n",
    "precision": "!!FP1.0\nMULH H0, f[COL0], p[1];\nADDX R1, H0, f[COL1];\nMADRC HC, R1, 2, -0.5;\n"
                 "MOVR o[COLR], R1;\nMOVR o[COLR] (GT), H0;\nMOVR o[DEPR].z, f[WPOS].z;\nEND\n",
}


@pytest.mark.parametrize("name", sorted(GL_PROGRAMS))
def test_translation_matches_executor_on_gl(name):
    from xlate.verify import verify_source
    rep = verify_source(GL_PROGRAMS[name], f"{name}.fp", lanes=1024, runner=gl_runner("gl"))
    assert rep.status == "pass", (rep.reason, rep.localization[:1])
