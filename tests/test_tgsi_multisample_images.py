"""Multisample images (``DCL IMAGE[n], 2D_MSAA|2D_ARRAY_MSAA, <format>``; issue 20): the sample
index in the address's w (tgsi_to_nir's reading: frontends/tgsi/lower_memory.py IMAGE_TARGETS),
RESQ's w the sample count.  The GLSL (``image2DMS`` / ``image2DMSArray`` with the sample argument,
``imageSamples``) that glslang accepts, the direct SPIR-V (MS images, the Sample operand) that
spirv-val accepts, the executor's values computed by hand, ``pass`` on gl, gl-spirv and vulkan
through both SPIR-V modules, wrong translations (the sample index of the GLSL, a word of the direct
module) reported as mismatches, and ``unsupported`` naming the limit where an implementation has
no 4-sample images.  Tests that run shaders skip when no implementation exists."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from conftest import gl_runner

from xlate import api
from xlate.backends import spirv as sp
from xlate.backends.spirv_direct import emit_spirv
from xlate.diagnostics import XlateError
from xlate.exec.compute import execute_compute
from xlate.verify import core

from test_tgsi_compute import comp
from resource_verify_cases import (DIRECT_BACKENDS, EVERY_MODULE, assert_passes,
                                   assert_mutated_direct_module_caught)

#: invocation n = 4 (block.x + 2 block.y) + thread (0..15) of verify's 2 x 2 grid, at
#: texel (x, y) = (n & 7, n >> 3) and sample s = n & 3 (TEMP[1] = (x, y, 0, s)):
#: * IMAGE[0] 2D_MSAA RGBA32F: its texel plus (0.5, -1, 2, 0.25) stored at (x, y + 4), sample s;
#: * IMAGE[1] 2D_ARRAY_MSAA R32_UINT: ATOMUADD of n + 1 at (0, 0), layer 1, sample s (four
#:   invocations each); what it returned stored at (x, y + 2), layer 0, sample s;
#: * IMAGE[2] 2D_MSAA RGBA32UI: RESQ of IMAGE[1] at (x, y), sample s; RESQ of IMAGE[0] at
#:   (x, y + 2), sample s.
MS_IMAGES = comp(
    "UMAD TEMP[0].x, SV[1].yyyy, IMM[0].zzzz, SV[1].xxxx\n"
    "UMAD TEMP[0].x, TEMP[0].xxxx, IMM[0].wwww, SV[0].xxxx\n"
    "AND TEMP[1].x, TEMP[0].xxxx, IMM[1].xxxx\n"
    "USHR TEMP[1].y, TEMP[0].xxxx, IMM[1].yyyy\n"
    "MOV TEMP[1].z, IMM[0].xxxx\n"
    "AND TEMP[1].w, TEMP[0].xxxx, IMM[1].yyyy\n"
    "LOAD TEMP[2], IMAGE[0], TEMP[1], 2D_MSAA, PIPE_FORMAT_R32G32B32A32_FLOAT\n"
    "ADD TEMP[2], TEMP[2], IMM[2]\n"
    "UADD TEMP[3], TEMP[1], IMM[3]\n"
    "STORE IMAGE[0], TEMP[3], TEMP[2], 2D_MSAA, PIPE_FORMAT_R32G32B32A32_FLOAT\n"
    "MOV TEMP[3], IMM[4]\n"
    "MOV TEMP[3].w, TEMP[1].wwww\n"
    "UADD TEMP[2].x, TEMP[0].xxxx, IMM[0].yyyy\n"
    "ATOMUADD TEMP[2].x, IMAGE[1], TEMP[3], TEMP[2].xxxx, 2D_ARRAY_MSAA, PIPE_FORMAT_R32_UINT\n"
    "UADD TEMP[3], TEMP[1], IMM[5]\n"
    "STORE IMAGE[1], TEMP[3], TEMP[2].xxxx, 2D_ARRAY_MSAA, PIPE_FORMAT_R32_UINT\n"
    "RESQ TEMP[2], IMAGE[1]\n"
    "STORE IMAGE[2], TEMP[1], TEMP[2], 2D_MSAA, PIPE_FORMAT_R32G32B32A32_UINT\n"
    "RESQ TEMP[2], IMAGE[0]\n"
    "STORE IMAGE[2], TEMP[3], TEMP[2], 2D_MSAA, PIPE_FORMAT_R32G32B32A32_UINT\n",
    "DCL IMAGE[0], 2D_MSAA, PIPE_FORMAT_R32G32B32A32_FLOAT, WR\n"
    "DCL IMAGE[1], 2D_ARRAY_MSAA, PIPE_FORMAT_R32_UINT, WR\n"
    "DCL IMAGE[2], 2D_MSAA, PIPE_FORMAT_R32G32B32A32_UINT, WR\n").replace(
    "IMM[0] UINT32 {0, 1, 2, 4}\n",
    "IMM[0] UINT32 {0, 1, 2, 4}\nIMM[1] UINT32 {7, 3, 2, 1}\n"
    "IMM[2] FLT32 {0.5, -1.0, 2.0, 0.25}\nIMM[3] UINT32 {0, 4, 0, 0}\n"
    "IMM[4] UINT32 {0, 0, 1, 0}\nIMM[5] UINT32 {0, 2, 0, 0}\n")

#: every sample of the three images (exec/images.py DEFAULT_SHAPE: 8 x 8 texels, 4 samples;
#: IMAGE[1] 2 layers), 4 words each
COMPARED = (4 + 8 + 4) * 8 * 8 * 4


# ---- translation ---------------------------------------------------------------------------------

def test_the_glsl_passes_the_sample_index_and_queries_the_sample_count():
    t = api.translate(MS_IMAGES, filename="ms.tgsi")
    for line in ("layout(binding = 0, rgba32f) uniform image2DMS xl_image0;",
                 "layout(binding = 1, r32ui) uniform uimage2DMSArray xl_image1;",
                 "layout(binding = 2, rgba32ui) uniform writeonly uimage2DMS xl_image2;",
                 "TEMP2 = floatBitsToUint(imageLoad(xl_image0, ivec2(TEMP1.xy), "
                 "int(TEMP1.w)));",
                 "uint xl_atomadd_IMAGE1(ivec3 c, int s, uint a)",
                 "    uint r = imageAtomicAdd(xl_image1, c, s, a);",
                 "TEMP2 = uvec4(uvec3(imageSize(xl_image1)), uint(imageSamples(xl_image1)));",
                 "TEMP2 = uvec4(uvec2(imageSize(xl_image0)), 0u, uint(imageSamples(xl_image0)));"):
        assert line in t.glsl, line
    assert [(i["resource"], i["target"]) for i in t.reflection["images"]] == \
        [("IMAGE[0]", "2DMS"), ("IMAGE[1]", "ARRAY2DMS"), ("IMAGE[2]", "2DMS")]


@pytest.mark.parametrize("profile", ["vulkan", "glsl450"])
def test_the_direct_spirv_has_multisample_images(profile):
    words = emit_spirv(api.parse(MS_IMAGES), profile).spirv
    assert sp.validate_spirv(words, target="vulkan" if profile == "vulkan" else "opengl") is None
    text = sp.disassemble_spirv(words)
    for cap in ("StorageImageMultisample", "ImageMSArray", "ImageQuery"):
        assert f"OpCapability {cap}\n" in text
    # 2D, not arrayed / arrayed, MS 1, a storage image (Sampled 2)
    assert " 2D 0 0 1 2 Rgba32f" in text and " 2D 0 1 1 2 R32ui" in text
    assert "Sample %" in text.split("OpImageRead", 1)[1].split("\n", 1)[0]
    assert text.count("OpImageQuerySamples") == 2


def test_glslang_compiles_the_translation_for_every_spirv_profile():
    for via in ("glsl", "direct"):
        for profile in ("vulkan", "glsl450"):
            assert api.translate(MS_IMAGES, filename="ms.tgsi", target="spirv", profile=profile,
                                 via=via).spirv


def test_es_has_no_multisample_images():
    with pytest.raises(XlateError) as e:
        api.translate(MS_IMAGES, filename="ms.tgsi", profile="es310")
    assert [d.message for d in e.value.diagnostics] == [
        "a 2DMS image (IMAGE[0]) cannot be expressed in the es310 profile"]


# ---- the executor ------------------------------------------------------------------------------

def test_the_executor_runs_multisample_loads_stores_atomics_and_resq():
    prog = api.parse(MS_IMAGES)
    f = (np.arange(4 * 8 * 8 * 4, dtype=np.float32) / 4).reshape(4, 8, 8, 4)
    u = np.zeros((8, 8, 8, 4), np.uint32)
    u[..., 0] = np.arange(8 * 8 * 8).reshape(8, 8, 8) * 10
    u[..., 3] = 1
    res = execute_compute(prog, (2, 2, 1), images={0: f.view(np.uint32), 1: u,
                                                   2: np.zeros((4, 8, 8, 4), np.uint32)})
    img = res.images
    assert res.race is None
    for n in range(16):
        x, y, s = n & 7, n >> 3, n & 3
        # layer-sample s (2D_MSAA: one layer), rows y + 4
        assert img[0][s, y + 4, x].view(np.float32).tolist() == \
            (f[s, y, x] + np.float32([0.5, -1, 2, 0.25])).tolist()
        # ATOMUADD returned: the word at layer 1 sample s before it, in lane order
        assert img[1][s, y + 2, x, 0] == u[4 + s, 0, 0, 0] + sum(m + 1 for m in range(s, n, 4))
        assert img[2][s, y, x].tolist() == [8, 8, 2, 4]          # w, h, layers, samples
        assert img[2][s, y + 2, x].tolist() == [8, 8, 0, 4]
    # layer 1 (layer-samples 4..7), texel (0, 0): n + 1 of n = s, s + 4, s + 8, s + 12 added
    assert img[1][4:, 0, 0, 0].tolist() == [u[4 + s, 0, 0, 0] + 4 * s + 28 for s in range(4)]


def test_the_executor_reads_a_sample_past_the_last_as_zero():
    src = comp("LOAD TEMP[1], IMAGE[0], IMM[1], 2D_MSAA, PIPE_FORMAT_R32G32B32A32_UINT\n"
               "STORE IMAGE[0], IMM[0].xxxx, TEMP[1], 2D_MSAA, PIPE_FORMAT_R32G32B32A32_UINT\n",
               "DCL IMAGE[0], 2D_MSAA, PIPE_FORMAT_R32G32B32A32_UINT, WR\n", (1, 1, 1)).replace(
        "IMM[0] UINT32 {0, 1, 2, 4}\n", "IMM[0] UINT32 {0, 1, 2, 4}\nIMM[1] UINT32 {1, 1, 0, 4}\n")
    res = execute_compute(api.parse(src), (1, 1, 1), images={
        0: np.full((4, 8, 8, 4), 7, np.uint32)})
    assert res.images[0][0, 0, 0].tolist() == [0, 0, 0, 0] and res.out_of_range


# ---- verify ------------------------------------------------------------------------------------

def _verify(backend: str, text: str = MS_IMAGES, **kw):
    return core.verify_source(text, "ms.tgsi", backend=backend, runner=gl_runner(backend), **kw)


@EVERY_MODULE
def test_multisample_images_pass(backend, via, ran):
    assert_passes(_verify(backend, via=via), COMPARED, 4, ran)


def _sample_off_by_one(monkeypatch):
    """The GLSL the verifier runs with IMAGE[0]'s load from the next sample (wrapping 3 to 0).
    The program has atomics, so that GLSL is compute_replay.translate's (with the atomic
    log)."""
    from xlate.verify import compute_replay
    real = compute_replay.translate

    def wrong(prog, profile):
        out = real(prog, profile)
        bad = out.source.replace("imageLoad(xl_image0, ivec2(TEMP1.xy), int(TEMP1.w))",
                                 "imageLoad(xl_image0, ivec2(TEMP1.xy), (int(TEMP1.w) + 1) & 3)")
        assert bad != out.source
        return dataclasses.replace(out, source=bad)
    monkeypatch.setattr(compute_replay, "translate", wrong)


@pytest.mark.parametrize("backend", ["gl", "gl-spirv", "vulkan"])
def test_a_wrong_sample_index_is_a_mismatch(backend, monkeypatch):
    _sample_off_by_one(monkeypatch)
    rep = _verify(backend, via="glsl")
    assert rep.status == "mismatch"
    # the 16 texels IMAGE[0]'s stores write, all four channels (the generated values of
    # neighbouring samples differ)
    assert rep.total_differences == 16 * 4, [d.describe() for d in rep.differences[:3]]
    assert {d.output.split(" texel")[0] for d in rep.differences} == {"IMAGE[0]"}


@DIRECT_BACKENDS
def test_a_mutated_direct_module_with_multisample_images_is_a_mismatch(backend, monkeypatch):
    assert_mutated_direct_module_caught(monkeypatch, _verify, backend)


def test_a_gl_without_multisample_images_is_unsupported_naming_the_limit(monkeypatch):
    from xlate.verify import gl_multisample
    runner = gl_runner("gl")
    real = runner.gl.GetIntegerv

    def lacking(what, out):
        real(what, out)
        if what == gl_multisample.GL_MAX_IMAGE_SAMPLES:
            out._obj.value = 0
    monkeypatch.setattr(runner.gl, "GetIntegerv", lacking)
    rep = _verify("gl")
    assert (rep.status, rep.reason) == (
        "unsupported", "IMAGE[0] is a 4-sample image: this GL's GL_MAX_IMAGE_SAMPLES is 0")


def test_a_vulkan_device_without_multisample_storage_images_is_unsupported(monkeypatch):
    runner = gl_runner("vulkan")
    monkeypatch.setattr(runner.dev, "storage_image_multisample", False)
    rep = _verify("vulkan")
    assert (rep.status, rep.reason) == (
        "unsupported", "IMAGE[0] is a multisample image: this device has no "
        "shaderStorageImageMultisample")
