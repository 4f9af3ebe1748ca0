"""Disagreements xlate verify found between the executor and the translated shader on llvmpipe,
each reduced to a minimal program and inputs, with the side judged wrong (NV_gpu_program4
§2.X.8 and the GL/GLSL specifications).

A defect of the implementation is a strict xfail *only on the Mesa version it was observed
with* (:func:`mesa_defect`): there it fails today, and a fix makes the strict XPASS a failure so
the marker goes; on another version the test asserts the specified behaviour outright.  Such a
test asserts the implementation's output against the spec's values, never the executor's; the
executor's values for the same program and inputs are asserted by a normal test beside it, so an
executor regression cannot pass as the expected failure.  Cases that need GL skip with the
reason when no implementation is available (fail under XLATE_REQUIRE_GL=1).
"""
from __future__ import annotations

import numpy as np
import pytest

from conftest import gl_runner, mesa_version

import xlate
from xlate.verify.mutants_common import Delegate
from xlate.backends.glsl import emit_glsl
from xlate.verify import compare as cmp
from xlate.verify import core
from xlate.verify import draw_run
from xlate.verify import output_compare
from xlate.verify.analysis import analyse
from xlate.verify.inputs import GeneratedInputs


def runner_or_skip(backend: str = "gl"):
    return gl_runner(backend)


def _inputs(inputs: dict, params: dict | None, textures) -> GeneratedInputs:
    lanes = len(next(iter(inputs.values())))
    gen = GeneratedInputs(lanes, inputs={k: np.ascontiguousarray(v).view(np.uint32)
                                         for k, v in inputs.items()},
                          params={k: np.asarray(v).view(np.uint32) for k, v in (params or {}).items()})
    if textures:
        gen.textures = textures
    return gen


def run_executor(text: str, inputs: dict, params: dict | None = None, textures=None):
    """The executor alone on exactly these inputs (no GL needed)."""
    gen = _inputs(inputs, params, textures)
    return draw_run.run_executor(xlate.parse(text), gen, gen.lanes)


def impl_words(text: str, cap, binding: str) -> np.ndarray:
    """The implementation's (lanes, 4) words of the output ``binding`` (a glsl450 capture)."""
    refl = xlate.translate(text).reflection
    name = next(o["name"] for o in refl["outputs"] if o["binding"] in (binding, binding + "[0]"))
    return cap.outputs[name]


def mesa_defect(request, observed: tuple[int, ...], reason: str, backend: str = "gl") -> None:
    """Marks the running test a strict xfail when the implementation is the Mesa version
    ``observed`` (a prefix: (22, 3) is any 22.3.x) the defect ``reason`` was seen on.  Elsewhere
    the test runs unmarked and asserts the specified behaviour: a version with the same defect
    then fails, and ``observed`` needs that version added (or the defect lives on)."""
    v = mesa_version(runner_or_skip(backend))
    if v is not None and v[:len(observed)] == observed:
        request.applymarker(pytest.mark.xfail(strict=True, reason=reason))


def run_both(text: str, inputs: dict, params: dict | None = None, textures=None,
             backend: str = "gl"):
    """Executor and implementation on exactly these inputs (binding -> (lanes, 4) values);
    returns (differences, executor result, capture)."""
    runner = runner_or_skip(backend)
    prog = xlate.parse(text)
    facts = analyse(prog, set(cmp.INEXACT))
    out = emit_glsl(prog, draw_run.runner_profile(runner))
    gen = _inputs(inputs, params, textures)
    lanes = gen.lanes
    res = draw_run.run_executor(prog, gen, lanes)
    cap = draw_run.run_gl(runner, prog, out.source, out.reflection, gen, lanes)
    diffs, _ = output_compare.compare_all(prog, facts, out.reflection, res, cap, [])
    return diffs, res, cap


def with_inputs(monkeypatch, words: dict[str, list[int]]):
    """verify's generated inputs with the given bindings (raw words, every lane) replaced."""
    orig = draw_run.generate

    def generate(*a, **kw):
        gen = orig(*a, **kw)
        for key, w in words.items():
            w = np.array(w, np.uint32)
            if key in gen.inputs:
                gen.inputs[key] = np.tile(w, (gen.lanes, 1))
            else:
                assert key in gen.params, (key, list(gen.params))
                gen.params[key] = w
        return gen
    monkeypatch.setattr(draw_run, "generate", generate)



# ---- translation side --------------------------------------------------------------------------

@pytest.mark.parametrize("backend", ["gl", "gl-spirv"])
def test_mad_add_contraction(backend):
    """Fixed in the backend: registers, staged outputs and write temporaries are declared
    'precise', so Mesa may not contract MAD + ADD into one fma (NV_gpu_program4 issue 18: every
    instruction rounds its result; seen in ~2% of the NV4 corpus before, e.g. cg/gp4vp crt
    GTU-famicom DAC).  gl-spirv: masked writes go through a precise temporary, because glslang
    drops NoContraction through 'r.x = (a * b + c).x'."""
    text = ("!!NVvp4.0\nTEMP r;\nMAD r.x, vertex.attrib[0].x, vertex.attrib[0].y, "
            "vertex.attrib[0].z;\nADD result.texcoord[0].x, r.x, 8.0;\nEND\n")
    a = np.array([[0x402f4f9b, 0xc0935625, 0xc112e373, 0]], np.uint32).view(np.float32)
    diffs, res, cap = run_both(text, {"vertex.attrib[0]": a}, backend=backend)
    # executor: round(round(2.7392337 * -4.6042657) + -9.1805296) + 8 = -13.79269027709961
    assert res.words("result.texcoord[0]")[0, 0] == 0xC15CAEDC
    assert not diffs, [d.describe() for d in diffs]


def test_integer_vertex_output_is_converted():
    """Fixed: an integer OUTPUT of a vertex (or geometry) program is declared 'flat out ivec4'
    and carries the integer bits a fragment program reads as INT ATTRIB (it used to be 'out
    vec4', converting 5 -> 5.0); corpus/nv4/gp4_vertex_ids.gp."""
    text = ("!!NVvp4.0\nINT OUTPUT o = result.texcoord[0];\nMOV.S o, {5, -3, 7, 1};\n"
            "MOV result.position, vertex.position;\nEND\n")
    z = np.zeros((4, 4), np.float32)
    diffs, res, cap = run_both(text, {"vertex.position": z})
    assert res.words("result.texcoord[0]")[0].view(np.int32).tolist() == [5, -3, 7, 1]
    assert cap.outputs["result_texcoord_0"][0].view(np.int32).tolist() == [5, -3, 7, 1]


def test_integer_color1_keeps_color0_float():
    """Fixed: integer-ness is decided per element, so 'INT OUTPUT o = result.color[1]' no
    longer makes result.color[0] (written by float instructions) an 'out ivec4'."""
    text = ("!!NVfp4.0\nOPTION ARB_draw_buffers;\nINT OUTPUT o = result.color[1];\n"
            "MOV result.color, fragment.texcoord[0];\nMOV.S o, {1, 2, 3, 4};\nEND\n")
    out = xlate.translate(text)
    types = {o["binding"]: o["type"] for o in out.reflection["outputs"]}
    assert types.get("result.color") == "vec4" or types.get("result.color[0]") == "vec4", types


def test_call_chain_deeper_than_the_call_stack():
    """Fixed in the backend: a chain of six nested calls (no recursion).  The executor ignores
    the CALs made with MAX_PROGRAM_CALL_DEPTH_NV (4) calls pending (GP4 issue 38); the shader
    used to make all six (plain functions).  It now takes the per-depth copies, as for
    recursion.  Found by tools/bench_scaling.py's call chain; xlate verify had passed it as
    'nonfinite' (see test_verify_unit)."""
    subs = "".join(f"s{i}: ADD.F R1, R1, 1;\nCAL s{i + 1};\nRET;\n" for i in range(6))
    text = ("!!NVfp4.0\nTEMP R1;\nMOV.F R1, fragment.texcoord[0];\nCAL s0;\n"
            "MOV.F result.color, R1;\nRET;\n" + subs + "s6: RET;\nEND\n")
    z = np.zeros((4, 4), np.float32)
    diffs, res, cap = run_both(text, {"fragment.texcoord[0]": z})
    assert res.float("result.color").tolist() == [[4.0] * 4] * 4
    assert diffs == []


# ---- implementation side (Mesa 22.3 llvmpipe) ----------------------------------------------------

def _txq_case():
    from xlate.exec import Texture
    text = ("!!NVfp4.0\nFLAT INT ATTRIB lod = fragment.attrib[1];\nINT TEMP s;\n"
            "TXQ s, lod.x, texture[0], 2D;\nI2F result.color, s;\nEND\n")
    lod = np.zeros((8, 4), np.int32)
    lod[:, 0] = [0, 0, 0, 0, 0, 1, 9, 0]
    levels = [np.zeros((n, n, 4), np.float32) for n in (8, 4, 2, 1)]
    tex = Texture(levels=levels, filter="NEAREST_MIPMAP_NEAREST")
    # GP4 TXQ, per fragment: level 0 is 8x8, level 1 4x4 (lane 6 asks for level 9, which does
    # not exist: undefined, not compared)
    want = {0: 8, 1: 8, 2: 8, 3: 8, 4: 8, 5: 4, 7: 8}
    return text, {"fragment.attrib[1]": lod}, {0: tex}, want


def test_texture_size_with_nonuniform_lod_executor():
    text, inputs, textures, want = _txq_case()
    got = run_executor(text, inputs, textures=textures).float("result.color")
    assert {k: tuple(got[k, :2]) for k in want} == {k: (v, v) for k, v in want.items()}


def test_texture_size_with_nonuniform_lod(request):
    mesa_defect(request, (22, 3), reason=(
        "implementation: llvmpipe's textureSize(sampler, lod) with a LOD that varies between "
        "fragments uses one LOD for a whole 8-fragment block (Mesa 22.3.6: lane 5, LOD 1, gets "
        "level 0's size 8); GP4 TXQ is per fragment; corpus/nv4/fp4_texel_fetch_kill.fp"))
    text, inputs, textures, want = _txq_case()
    _, _, cap = run_both(text, inputs, textures=textures)
    got = impl_words(text, cap, "result.color").view(np.float32)
    assert {k: tuple(got[k, :2]) for k in want} == {k: (v, v) for k, v in want.items()}


def _int_nearest_case():
    from xlate.exec import Texture
    text = "!!NVfp4.0\nINT TEMP t;\nTEX.S t, fragment.texcoord[0], texture[0], 2D;\n" \
           "I2F result.color, t;\nEND\n"
    tc = np.zeros((8, 4), np.float32)
    tc[:, 0] = [0, 5, 0, 5, 0, 0.01, 0, 0.01]            # large derivatives in quad 0
    levels = [np.full((n, n, 4), k + 1, np.int32) for k, n in enumerate((8, 4, 2, 1))]
    return text, {"fragment.texcoord[0]": tc}, {0: Texture(levels=levels, filter="NEAREST")}


def test_integer_texture_nearest_uses_base_level_executor():
    """GL 4.5 §8.14: with minification NEAREST (no mipmapping) the base level (all 1) is read."""
    text, inputs, textures = _int_nearest_case()
    assert run_executor(text, inputs, textures=textures).float("result.color").tolist() == \
        [[1.0] * 4] * 8


def test_integer_texture_nearest_uses_base_level(request):
    mesa_defect(request, (22, 3), reason=(
        "implementation: llvmpipe samples an integer texture with minification filter NEAREST "
        "(no mipmapping) from the mip level its LOD selects instead of the base level (GL 4.5 "
        "§8.14: with NEAREST/LINEAR the base level is used; Mesa 22.3.6 reads level 3 in quad 0)"))
    text, inputs, textures = _int_nearest_case()
    _, _, cap = run_both(text, inputs, textures=textures)
    assert impl_words(text, cap, "result.color").view(np.float32).tolist() == [[1.0] * 4] * 8


@pytest.mark.xfail(strict=True, reason=(
    "toolchain: glslang 13.1 gives a global declared 'precise' without a precision qualifier "
    "temporary storage -- a Function variable of main() that xl_main() then uses, an invalid "
    "module (spirv-val: \"ID ... has not been defined\") on which Mesa 22.3 crashes "
    "(SIGSEGV in glLinkProgram, GL_ARB_gl_spirv path).  The backend declares its globals "
    "'precise highp' (glsl.PRECISE_GLOBAL), which glslang keeps global: "
    "test_spirv_precise_highp_global_links"))
def test_spirv_precise_copied_array_links():
    _link_spirv_in_subprocess("precise vec4 in_vertex_attrib[1];")


def test_spirv_precise_highp_global_links():
    """The same shader with the qualifier the backend emits ('precise highp') is valid SPIR-V
    and links on the GL_ARB_gl_spirv path."""
    from xlate.backends.spirv import compile_glsl, validate_spirv
    src = _PRECISE_VS.replace("DECL", "precise highp vec4 in_vertex_attrib[1];")
    assert validate_spirv(compile_glsl(src, "vert")) is None
    assert validate_spirv(compile_glsl(_PRECISE_VS.replace(
        "DECL", "precise vec4 in_vertex_attrib[1];"), "vert")) is not None
    _link_spirv_in_subprocess("precise highp vec4 in_vertex_attrib[1];")


_PRECISE_VS = """#version 450 core
layout(xfb_buffer = 0, xfb_stride = 16) out;
layout(location = 0) in vec4 vertex_attrib_0;
layout(location = 5, xfb_buffer = 0, xfb_offset = 0) out vec4 result_texcoord_0;
DECL
vec4 out_result_texcoord[1] = vec4[1](vec4(0));
vec4 r = vec4(0);
void xl_main()
{
    r.x = (in_vertex_attrib[0].xxxx * in_vertex_attrib[0].yyyy + in_vertex_attrib[0].zzzz).x;
    out_result_texcoord[0].x = (r.xxxx + vec4(8.0)).x;
}
void main()
{
    in_vertex_attrib[0] = vertex_attrib_0;
    xl_main();
    result_texcoord_0 = out_result_texcoord[0];
}
"""


def _link_spirv_in_subprocess(decl: str) -> None:
    import subprocess
    import sys
    runner_or_skip("gl-spirv")
    code = ("from xlate.verify import gl as G\nfrom xlate.verify import glapi as GA\n"
            f"src = {_PRECISE_VS.replace('DECL', decl)!r}\n"
            "G.Runner('gl-spirv').program([(GA.GL_VERTEX_SHADER, src)])\n")
    rc = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=120,
                        cwd=str(__import__("pathlib").Path(__file__).resolve().parents[1])).returncode
    assert rc == 0, f"the GL implementation crashed (exit status {rc})"


# ---- derivatives: one rule on both sides ----------------------------------------------------------

def test_ddx_ddy_are_fine_derivatives():
    """DDX/DDY (NV_fragment_program4 2.X.8.Z): "The partial derivatives are evaluated at the
    sample location of the pixel" (DDX) / "at the center of the pixel" (DDY) -- per pixel, so
    xlate's rule is the *fine* derivative: within each 2x2 quad DDX is the difference along the
    pixel's own row, DDY along its own column.  The executor computes that (exec/alu.py
    _derivative) and the GLSL is dFdxFine/dFdyFine; a coarse derivative (one value per quad)
    would give the second row/column the first one's value.  Implicit texture LODs stay
    per-quad (exec/texture_ops.py), which derivatives of TEX do not expose."""
    text = ("!!NVfp4.0\nTEMP a, b;\nDDX a, fragment.texcoord[0];\nDDY b, fragment.texcoord[0];\n"
            "MOV result.color.x, a.x;\nMOV result.color.y, b.x;\nMOV result.color.zw, 0;\nEND\n")
    assert "dFdxFine(" in xlate.translate(text).glsl and "dFdyFine(" in xlate.translate(text).glsl
    tc = np.zeros((8, 4), np.float32)
    # lanes 4k..4k+3 of a quad: (x0,y0) (x1,y0) (x0,y1) (x1,y1); values not linear in x, y
    tc[:, 0] = [1, 2, 4, 8, 0.5, -3, 10, 100]
    diffs, res, cap = run_both(text, {"fragment.texcoord[0]": tc})
    got = res.float("result.color")[:, :2].tolist()
    assert got == [[1, 3], [1, 6], [4, 3], [4, 6], [-3.5, 9.5], [-3.5, 103], [90, 9.5], [90, 103]]
    assert not diffs, [d.describe() for d in diffs]


MULHI_CONSTANTS = ("!!NVvp4.0\nUINT TEMP t;\n"
                   "MUL.U.HI t, {4, 0xffffffff, 0x80000000, 3}, {0x40000000, 0xffffffff, 2, 3};\n"
                   "MOV.U result.texcoord[0], t;\nMOV result.position, vertex.attrib[0];\nEND\n")
#: the high 32 bits of each 64-bit product (NV_gpu_program4 MUL.HI), computed here
MULHI_WANT = [(a * b) >> 32 for a, b in zip((4, 0xffffffff, 0x80000000, 3),
                                            (0x40000000, 0xffffffff, 2, 3))]


def test_mulhi_of_constants_executor():
    res = run_executor(MULHI_CONSTANTS, {"vertex.attrib[0]": np.zeros((8, 4), np.float32)})
    assert MULHI_WANT == [1, 0xfffffffe, 1, 0]
    assert res.words("result.texcoord[0]").tolist() == [MULHI_WANT] * 8


def test_mulhi_of_constants(request):
    mesa_defect(request, (22, 3), reason=(
        "implementation: Mesa 22.3's GLSL compiler constant-folds umulExtended/imulExtended of "
        "two constant operands wrongly (0xffffffff*0xffffffff gives msb 9, 4*2^30 gives 0; "
        "GLSL 4.50 §8.8: msb is the high 32 bits of the product); the same GLSL through SPIR-V "
        "is right, and so is the GLSL path when one operand is not constant (test below).  "
        "verify's localization names it verdict 'implementation' (trace.known_defect).  "
        "Corpus: vert-umul_hi/vert-imul_hi"))
    _, _, cap = run_both(MULHI_CONSTANTS, {"vertex.attrib[0]": np.zeros((8, 4), np.float32)})
    assert impl_words(MULHI_CONSTANTS, cap, "result.texcoord[0]").tolist() == [MULHI_WANT] * 8


@pytest.mark.parametrize("backend", ["gl", "gl-spirv"])
def test_mulhi_of_a_varying_operand(backend):
    text = ("!!NVvp4.0\nUINT ATTRIB a = vertex.attrib[1];\nUINT TEMP t;\n"
            "MUL.U.HI t, a, {0x40000000, 0xffffffff, 2, 3};\n"
            "MOV.U result.texcoord[0], t;\nMOV result.position, vertex.attrib[0];\nEND\n")
    a = np.tile(np.array([4, 0xffffffff, 0x80000000, 3], np.uint32), (8, 1))
    diffs, res, cap = run_both(text, {"vertex.attrib[0]": np.zeros((8, 4), np.float32),
                                      "vertex.attrib[1]": a}, backend=backend)
    assert list(res.words("result.texcoord[0]")[0]) == [1, 0xfffffffe, 1, 0]
    assert not diffs, [d.describe() for d in diffs]


# ---- found by the dialect generators (xlate.verify.generate; test_verify_random_dialects.py) ------

@pytest.mark.parametrize("src", ["-program.env[0].x", "|program.env[0].x|"])
def test_unpack_of_a_negated_float_operand(src):
    """Fixed in the backend: UP2H/UP2US/UP4B/UP4UB read the bits of their operand *after* its
    modifiers, applied in the operand type (FPO 3.11.5.43-46: a float scalar, so -x flips and
    |x| clears the sign bit), as the executor loads it; the GLSL negated the bits as an integer
    (two's complement) and ignored |x| (generator arbfp-nv seed 7)."""
    text = ("!!ARBfp1.0\nOPTION NV_fragment_program;\nTEMP r;\n"
            f"UP4B r, {src};\nUP2US result.color.xy, {src};\n"
            "ADD result.color.zw, r.xxxw, fragment.texcoord[0];\nEND\n")
    tc = np.zeros((8, 4), np.float32)
    env = np.array([np.uint32(0xFFFFFFF4).view(np.float32), 0, 0, 0], np.float32)
    for bits in (0xFFFFFFF4, 0xBF81F202, 0x7FC01234):
        env[0] = np.uint32(bits).view(np.float32)
        diffs, res, cap = run_both(text, {"fragment.texcoord[0]": tc},
                                   params={"program.env[0]": env})
        assert not diffs, (hex(bits), [d.describe() for d in diffs])


def test_fp1_lit_power_is_approximate():
    """Fixed in verify: FP1's LIT (IR LITNC: no clamp of the exponent) computes its z with the
    same ApproxPower as LIT (FP1 3.11.5.13/24), so its results get LIT's tolerance
    (compare.INEXACT); llvmpipe's exp2(w * log2(y)) is 2 ulp off here (fp1.0 seed 25)."""
    text = "!!FP1.0\nLIT o[COLR], f[TEX3].wyzy;\nEND\n"
    t = np.tile(np.array([[377.7276611328125, 0.4375, 3.2216923236846924, 2.2833590507507324]],
                         np.float32), (8, 1))
    diffs, res, cap = run_both(text, {"fragment.texcoord[3]": t})
    assert not diffs, [d.describe() for d in diffs]


def test_cube_face_tie_x_y():
    """Fixed in the executor: a direction whose largest magnitudes tie (GL 4.5 §8.13 leaves the
    face to the implementation) samples the face llvmpipe picks -- Z when |z| >= max(|x|, |y|),
    else X only when |x| > |y|, so (1, 1, 0.5) samples +Y, not +X (arbvp-nv3 seed 265)."""
    from xlate.exec import Texture
    faces = np.stack([np.full((2, 2, 4), float(f), np.float32) for f in range(6)])
    dirs = [(1, 1, 0.5), (1, 0.5, 1), (0.5, 1, 1), (1, 1, 1), (-1, 1, 0.5), (1, -1, 0.5),
            (-1, -1, 0.2), (-1, -1, -1)]
    c = np.array([d + (0,) for d in dirs], np.float32)
    text = ("!!ARBvp1.0\nOPTION NV_vertex_program3;\nTEMP t;\n"
            "TXL t, vertex.attrib[1], texture[0], CUBE;\nMOV result.texcoord[0], t;\n"
            "MOV result.position, vertex.position;\nEND\n")
    diffs, res, cap = run_both(text, {"vertex.attrib[1]": c, "vertex.position": np.zeros_like(c)},
                               textures={0: Texture([faces], "CUBE")})
    assert res.float("result.texcoord[0]")[:, 0].tolist() == [2, 4, 4, 4, 2, 3, 3, 5]
    assert not diffs, [d.describe() for d in diffs]


def test_coarse_scan_fills_in_skipped_events():
    """Fixed in the localization: a long program is probed coarsely first (every stride-th
    event); when the first coarse event that differs has differing operands, the events the
    scan skipped are probed before concluding "operands".  NV4 vertex seed 31 (an open strict
    xfail of test_verify_random.py until now): SNE of a denormal input (an integer pattern of
    a component also read by MOV.S) is flushed by llvmpipe, and the values agree again at the
    coarse probes after it."""
    from xlate.verify.generate import random_program
    runner_or_skip()
    rep = core.verify_source(random_program(31, "vertex"), "nv4-vertex-31", lanes=256, seed=31,
                             runner=core.make_runner("gl", precise=True))
    assert rep.status == "pass", rep.reason
    first = rep.localization[0]
    assert first["verdict"] == "ftz" and first["instruction"]["op"] == "SNE", first


_STRIPS_GS = ("GEOM\nPROPERTY GS_INPUT_PRIMITIVE TRIANGLES\n"
              "PROPERTY GS_OUTPUT_PRIMITIVE TRIANGLE_STRIP\nPROPERTY GS_MAX_OUTPUT_VERTICES {n}\n"
              "DCL IN[][0], POSITION\nDCL OUT[0], POSITION\nIMM[0] INT32 {{0, 0, 0, 0}}\n"
              "  0: MOV OUT[0], IN[0][0]\n  1: EMIT IMM[0].xxxx\n  2: MOV OUT[0], IN[1][0]\n"
              "  3: EMIT IMM[0].xxxx\n  4: ENDPRIM IMM[0].xxxx\n  5: MOV OUT[0], IN[2][0]\n"
              "  6: EMIT IMM[0].xxxx\n  7: END\n")


def _draw_gs_in_subprocess(n: int, workaround: bool) -> int:
    """Exit status of a child that verifies _STRIPS_GS 20 times under glibc's heap checks
    (MALLOC_CHECK_=3 aborts at the first corrupted chunk)."""
    import os
    import subprocess
    import sys
    runner_or_skip()
    code = ("import xlate.verify.gl as G\nimport xlate.verify.capture as CAP\n"
            "from xlate.verify.core import verify_source\n"
            + ("" if workaround else "CAP.strip_room = lambda src: src\n")
            + f"text = {_STRIPS_GS.format(n=n)!r}\nr = G.Runner('gl')\n"
            "for _ in range(20):\n    assert verify_source(text, 'gs', lanes=64, runner=r)"
            ".status == 'pass'\n")
    env = dict(os.environ, MALLOC_CHECK_="3")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=300, env=env,
                          cwd=str(__import__("pathlib").Path(__file__).resolve().parents[1])
                          ).returncode


# The defect itself is not asserted: the write past the array corrupts the heap, and whether
# glibc notices before the child exits depends on the allocation pattern (a fresh clone with an
# empty Mesa shader cache went through 20 draws clean in CI), so a test of the crash could only
# be a non-strict xfail, which cannot fail.  What is deterministic is asserted instead: the
# harness's workaround (capture.strip_room) gives the shader room for a strip per vertex, and with it
# the program verifies (next test).  The defect, for the record: Mesa 22.3's draw module
# (llvmpipe; lavapipe shares it) keeps one length per output strip in an array sized for the
# complete primitives max_vertices vertices make (max_vertices - 2 for a triangle strip), but
# every EndPrimitive takes an entry: EmitVertex x2, EndPrimitive, EmitVertex under
# max_vertices = 3 writes past the array (valgrind: invalid write in swrast_dri.so); generator
# tgsi geometry seeds 3 and 122 crashed campaigns.
def test_gs_strip_room_makes_room_for_a_strip_per_vertex():
    import re
    import xlate.verify.capture as G
    glsl = xlate.translate(_STRIPS_GS.format(n=3)).glsl
    assert re.search(r"max_vertices = 3\b", glsl)
    room = G.strip_room(glsl)
    assert re.search(r"max_vertices = 5\b", room)          # 3 + a triangle's vertices - 1
    assert "EmitVertex();" in glsl and "EndPrimitive();" in glsl
    assert room.count("if (xv_emitted < 3) { xv_emitted++; xv_pending++; EmitVertex(); }") == \
        glsl.count("EmitVertex();")
    assert room.count("if (xv_pending > 0) { xv_pending = 0; EndPrimitive(); }") == \
        glsl.count("EndPrimitive();")
    assert G.strip_room(xlate.translate(VP_PLAIN).glsl) == xlate.translate(VP_PLAIN).glsl


VP_PLAIN = "!!NVvp4.0\nMOV result.position, vertex.attrib[0];\nEND\n"


def test_gs_more_strips_than_primitives_workaround():
    """capture.strip_room: room for a strip per vertex, the emitted vertices capped at the declared
    number and empty EndPrimitives skipped -- the same captures, no heap corruption."""
    assert _draw_gs_in_subprocess(3, workaround=True) == 0
    assert _draw_gs_in_subprocess(1, workaround=True) == 0


def test_vp1_total_order_compare_of_a_zero_whose_sign_was_lost():
    """Explained by verify (verdict signedzero): VP1's SGE/SLT order -0 before +0 (VP1
    2.14.1.11).  DST's y = -v.y * R3.y with R3 = 0 is -0 in the executor's IEEE product; VP1
    itself says 0*x = +0 (not emulated, frontends/nv/vp.py), and Mesa folds x*0 to +0, so the
    SLT differs although its operands compare equal (vp1.0 seed 1017 of the campaign)."""
    runner_or_skip()
    text = ("!!VP1.0\nDST R8.xy, -v[9], R3;\nSLT o[FOGC], -R1, R8.y;\n"
            "MOV o[HPOS], v[0];\nEND\n")
    rep = core.verify_source(text, "vp1-signed-zero", lanes=64, seed=3,
                             runner=core.make_runner("gl", precise=True))
    assert rep.status == "pass", rep.reason
    assert "signedzero" in {x.get("verdict") for x in rep.localization}, rep.localization


ABS_OF_SQRT = ("VERT\nDCL IN[0]\nDCL OUT[0], POSITION\nDCL OUT[1], GENERIC[0]\nDCL TEMP[0..1]\n"
               "IMM[0] FLT32 {0.0, 1.0, 2.0, 4.0}\n"
               "MUL TEMP[1], IN[0], IMM[0].xxxx\nSQRT TEMP[0], -TEMP[1]\nMOV OUT[0], IN[0]\n"
               "MOV OUT[1], |TEMP[0]|\nEND\n")


def test_abs_of_a_square_root_of_minus_zero():
    """Explained by verify (verdict signedzero): Mesa folds |x| to x where its range analysis
    proves x >= 0 (a square root), so |sqrt(-0.0)| is -0.0 on llvmpipe, +0.0 in IEEE (random
    TGSI geometry seed 12).  The freedom is the zero's sign only: the same program with the
    absolute value dropped and a negation instead (-sqrt(x) of x > 0 differs in sign on
    nonzero lanes) stays a mismatch."""
    runner_or_skip()
    runner = core.make_runner("gl", precise=True)
    rep = core.verify_source(ABS_OF_SQRT, "abs-sqrt", lanes=64, seed=3,
                             runner=runner)
    assert rep.status == "pass", rep.reason
    assert "signedzero" in {x.get("verdict") for x in rep.localization}, rep.localization
    wrong = ABS_OF_SQRT.replace("MUL TEMP[1], IN[0], IMM[0].xxxx",
                                                 "MUL TEMP[1], -|IN[0]|, IMM[0].yyyy")
    rep = core.verify_source(wrong, "abs-sqrt-nonzero", lanes=64, seed=3, runner=runner)
    assert rep.status == "pass", rep.reason       # sqrt(|x|): nonzero on most lanes

    class Negated(Delegate):                      # the translation's abs( printed as -(
        def run(self, stage, glsl, reflection, lanes, **kw):
            return self.inner.run(stage, glsl.replace("abs(", "-("), reflection, lanes, **kw)

    rep = core.verify_source(wrong, "abs-sqrt-wrong", lanes=64, seed=3, runner=Negated(runner))
    assert rep.status == "mismatch", rep.reason


#: an explicit-LOD lookup of a 1D texture whose coordinate the IMAX makes raw input words:
#: tiny ones (7.6e-16, denormals, -0.0) and huge ones (-1.7e38)
LOOKUP_OF_RAW_WORDS = ("FRAG\nDCL IN[0], GENERIC[0], LINEAR\nDCL OUT[0], COLOR\nDCL SAMP[0]\n"
                       "DCL TEMP[0..6]\nIMM[0] INT32 {-8, 16, 2, 3}\n"
                       "TXL TEMP[3], IN[0].wwww, SAMP[0], 1D\nIMAX TEMP[6], IMM[0], IN[0].xyxw\n"
                       "MOV OUT[0], TEMP[3]\nEND\n")


def test_lookups_at_an_edge_and_past_the_float_range():
    """Explained by verify: llvmpipe fetches the border colour of a CLAMP_TO_BORDER texture
    for s = 7.6e-16, where floor(s * 8) = 0 names texel 0 (``boundary``: an edge within
    EDGE_REACH of the coordinate), and NaN for s = -1.7e38, whose s * 8 overflows (``range``:
    texel arithmetic on an infinity).  A coordinate moved by a quarter stays a mismatch."""
    runner_or_skip()
    runner = core.make_runner("gl", precise=True)
    rep = core.verify_source(LOOKUP_OF_RAW_WORDS, "edge", lanes=256, seed=7, runner=runner)
    assert rep.status == "pass", rep.reason
    verdicts = {x.get("verdict") for x in rep.localization}
    assert {"boundary", "range"} <= verdicts, verdicts

    class Moved(Delegate):                       # the lookup's coordinate off by a quarter
        def run(self, stage, glsl, reflection, lanes, **kw):
            glsl = glsl.replace("textureLod(texture0, fragment_generic_0.w,",
                                "textureLod(texture0, fragment_generic_0.w + 0.25,")
            return self.inner.run(stage, glsl, reflection, lanes, **kw)

    rep = core.verify_source(LOOKUP_OF_RAW_WORDS, "edge-moved", lanes=256, seed=7,
                             runner=Moved(runner))
    assert rep.status == "mismatch", rep.reason


RSQ_SAT = ("!!NVvp4.0\nTEMP r;\nRSQ.F.{sat} r, vertex.attrib[1].x;\nMOV result.texcoord[0], r;\n"
           "MOV result.position, vertex.attrib[0];\nEND\n")
#: NV_fragment_program 3.11.5.19 (and GP4 RSQ): ApproxRSQRT(-0.0) = -INF, ApproxRSQRT(+0.0)
#: = +INF; saturated: 0.0 and 1.0 (SAT), -1.0 and 1.0 (SSAT, to [-1, 1])
RSQ_SAT_IN = np.array([[-0.0, 0, 0, 0], [0.0, 0, 0, 0], [4.0, 0, 0, 0], [0.25, 0, 0, 0]],
                      np.float32)
RSQ_SAT_WANT = {"SAT": [0.0, 1.0, 0.5, 1.0], "SSAT": [-1.0, 1.0, 0.5, 1.0]}


@pytest.mark.parametrize("sat", ["SAT", "SSAT"])
def test_saturated_rsq_of_negative_zero_executor(sat):
    res = run_executor(RSQ_SAT.format(sat=sat), {
        "vertex.attrib[1]": RSQ_SAT_IN, "vertex.attrib[0]": np.zeros((4, 4), np.float32)})
    assert res.float("result.texcoord[0]")[:, 0].tolist() == RSQ_SAT_WANT[sat]


@pytest.mark.parametrize("sat", ["SAT", "SSAT"])
@pytest.mark.parametrize("backend", ["gl", "gl-spirv"])
def test_saturated_rsq_of_negative_zero(request, backend, sat):
    """Found by the replay (random NV4 vertex seed 12; SSAT: generated NV4 vertex seed 705,
    inputs seed 700): the old verifier had explained it."""
    if backend == "gl":                 # the same GLSL through SPIR-V is right
        mesa_defect(request, (22, 3), backend=backend, reason=(
            "implementation: Mesa 22.3's GLSL compiler returns -INF for xl_sat(1.0 / "
            "sqrt(-0.0)) and xl_ssat(...) -- a saturated value below the clamp (it takes "
            "1/sqrt(x) to be >= 0 and drops the lower clamp); the specs' RSQ(-0.0) is -INF, "
            "saturated 0.0 (SAT) or -1.0 (SSAT).  verify names it verdict 'implementation' "
            "(trace.known_defect)"))
    program = RSQ_SAT.format(sat=sat)
    _, _, cap = run_both(program, {"vertex.attrib[1]": RSQ_SAT_IN,
                                   "vertex.attrib[0]": np.zeros((4, 4), np.float32)},
                         backend=backend)
    got = impl_words(program, cap, "result.texcoord[0]").view(np.float32)[:, 0]
    assert got.tolist() == RSQ_SAT_WANT[sat]


IDIV = ("!!NVvp4.0\nINT TEMP q, r, s;\nDIV.S q, vertex.attrib[0], vertex.attrib[1].x;\n"
        "MOD.S r, vertex.attrib[0], vertex.attrib[1].x;\nSHL.S s, vertex.attrib[0], "
        "vertex.attrib[1].y;\nMOV.S result.texcoord[0], q;\nMOV.S result.texcoord[1], r;\n"
        "MOV.S result.texcoord[2], s;\nMOV result.position, vertex.attrib[2];\nEND\n")


def test_integer_division_by_zero_and_shift_counts_on_gl():
    """Found by the replay: GLSL leaves "/" and "%" by zero, "%" of negative operands and
    shifts by 32 or more undefined, and llvmpipe returned compilation-dependent values there,
    which the old verifier passed as 'undefined'.  The translation now computes the executor's
    documented choices (all bits set; C truncation; count & 31) with defined GLSL."""
    a = np.array([[7, -7, -2147483648, 5]] * 4, np.int32)
    b = np.array([[0, 33, 0, 0], [-2, -1, 0, 0], [3, 32, 0, 0], [-2147483648, 1, 0, 0]],
                 np.int32)
    inputs = {"vertex.attrib[0]": a, "vertex.attrib[1]": b,
              "vertex.attrib[2]": np.zeros((4, 4), np.float32)}
    res = run_executor(IDIV, inputs)
    assert res.int("result.texcoord[0]")[:, 0].tolist() == [-1, -3, 2, 0]
    assert res.int("result.texcoord[1]")[:, 1].tolist() == [-1, -1, -1, -7]
    assert res.int("result.texcoord[2]")[:, 0].tolist() == [14, -2147483648, 7, 14]
    diffs, res, cap = run_both(IDIV, inputs)
    for out in ("result.texcoord[0]", "result.texcoord[1]", "result.texcoord[2]"):
        assert impl_words(IDIV, cap, out).tolist() == res.words(out).tolist(), out


def test_mulhi_folding_defect_is_shown_by_the_spirv_run():
    """The folding defect's 'any value' holds only when the same GLSL through SPIR-V (no
    folding) reproduces the executor: the pinned program passes with that note; where Mesa
    does not fold (this driver is fixed) nothing is adopted at all."""
    from xlate.verify.core import verify_source
    rep = verify_source(MULHI_CONSTANTS, "m.vp", backend="gl", lanes=64, runner=gl_runner("gl"))
    assert rep.status == "pass", rep.reason
    if "implementation" in rep.reason:
        assert ("implementation: the same GLSL through SPIR-V (which Mesa does not fold) "
                "reproduces every output of the executor replayed with the executor's own "
                "values at the folded instructions") in rep.notes


#: random TGSI geometry seed 17 (issue 20's LDEXP), reduced: an LDEXP whose exponent, -65535,
#: is below -126 -- GLSL 4.50 8.3 ldexp "may be flushed to zero" -- beside a folded IMUL_HI
FOLDED_BESIDE_LDEXP = """VERT
DCL IN[0]
DCL OUT[0], POSITION
DCL OUT[1], GENERIC[0]
DCL OUT[2], GENERIC[1]
DCL TEMP[0..1]
IMM[0] INT32 {65535, -8, 3, 2}
  0: MOV TEMP[1], IMM[0]
  1: LDEXP OUT[1], IN[0], -TEMP[1].xxxx
  2: IMUL_HI OUT[2], TEMP[1].yyyy, IMM[0].zzzz
  3: MOV OUT[0], IN[0]
  4: END
"""


def test_folding_defect_shown_by_a_spirv_run_with_its_own_freedoms():
    """The SPIR-V compilation of the same GLSL, which shows the folding defect, takes other
    permitted freedoms than the GLSL compilation (llvmpipe's ldexp gives +0 for -0 and for a
    NaN there): replayed against its own probes -- where the MUL.HI has no freedom -- it
    reproduces every output.  Replayed with the GLSL compilation's adoptions only, it did not
    (a mismatch of a correct translation)."""
    from xlate.verify.core import verify_source
    rep = verify_source(FOLDED_BESIDE_LDEXP, "fold.tgsi", backend="gl", lanes=256, seed=1,
                        runner=gl_runner("gl"))
    assert rep.status == "pass", rep.reason
    if "implementation" in rep.reason:
        assert any(n.startswith("implementation: the same GLSL through SPIR-V") for n in
                   rep.notes), rep.notes

#: tgsi tess_control seed 19, reduced: DST_SAT of -|x| where x.w is a denormal
DST_SAT_DENORMAL = """VERT
DCL IN[0]
DCL IN[1]
DCL OUT[0], POSITION
DCL OUT[1], GENERIC[1]
  0: DST_SAT OUT[1].xyw, IN[1].wwww, -|IN[1]|
  1: MOV OUT[0], IN[0]
  2: END
"""


def test_saturated_denormal_written_unclamped_is_a_flush(monkeypatch):
    """llvmpipe's saturation compares the flushed -0 (in range) and writes the denormal
    itself; verify shows it (permits.rule_ftz: the unsaturated result is that denormal) where
    it was an unexplained divergence; y (w * -|y|, flushed to -0) is a zero of the other sign."""
    runner = runner_or_skip("gl")
    with_inputs(monkeypatch, {"vertex.attrib[1]": [0x3F800000, 0x40000000, 0x3F000000, 0x1B]})
    rep = core.verify_source(DST_SAT_DENORMAL, "dst.tgsi", lanes=16, seed=1, runner=runner)
    assert rep.status == "pass", (rep.reason, rep.localization[:2])
    assert {x["verdict"] for x in rep.localization} <= {"ftz", "signedzero"}
