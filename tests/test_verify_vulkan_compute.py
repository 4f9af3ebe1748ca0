"""``xlate verify --backend vulkan`` of compute programs (issue 20): the translated module runs as
a compute pipeline on lavapipe (xlate/verify/vulkan_compute.py) with the inputs, grid and
verdict of the GL path (compute_verify.verify_compute).  Exact texel packing of every image format
kind, the test programs of test_tgsi_compute.py passing, wrong translations (a GLSL template,
a word of the direct SPIR-V module, an atomic) reported as mismatches, the 13 modern compute
shaders of ../shared/corpus, and the CLI.  Tests that run shaders skip with the reason when no
Vulkan implementation exists (XLATE_REQUIRE_VULKAN makes them fail instead)."""
from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from conftest import SHARED_CORPUS, corpus_mark, gl_runner

from xlate import cli
from xlate.ir.image_formats import image_format
from xlate.verify import core
from xlate.verify.image_bytes import pack_texels, unpack_texels
from xlate.verify.vulkan_compute import vk_format_name

from spirv_mutants import mutate_direct_module
from test_tgsi_compute import ATOMICS, IMAGE_ATOMICS, IMAGES, REDUCTION, comp


def _verify(text: str, name: str = "c.tgsi", **kw):
    return core.verify_source(text, name, backend="vulkan", runner=gl_runner("vulkan"), **kw)


def _words(values, dtype=np.float32) -> np.ndarray:
    return np.array(values, dtype).view(np.uint32).reshape(1, 1, -1, 4)


# ---- texel packing (no device needed) ------------------------------------------------------------

def test_vulkan_format_names():
    assert vk_format_name(None) == "VK_FORMAT_R32G32B32A32_SFLOAT"
    assert vk_format_name(image_format("PIPE_FORMAT_R16G16_FLOAT")) == "VK_FORMAT_R16G16_SFLOAT"
    assert vk_format_name(image_format("R8G8B8A8_UNORM")) == "VK_FORMAT_R8G8B8A8_UNORM"
    assert vk_format_name(image_format("R32_SINT")) == "VK_FORMAT_R32_SINT"


def test_normalized_texels_pack_to_their_codes_and_read_back_as_gl_gives_them():
    unorm = image_format("R8G8_UNORM")
    texels = _words([0.0, 128 / 255, 0.0, 0.0, 1.0, 3 / 255, 0.0, 0.0])
    assert list(pack_texels(unorm, texels)) == [0, 128, 255, 3]
    back = unpack_texels(unorm, pack_texels(unorm, texels), texels.shape).view(np.float32)
    # missing channels read (0, 1): GL's RGBA read-back of an RG image
    assert back.reshape(-1, 4).tolist() == [[0.0, np.float32(128) / np.float32(255), 0.0, 1.0],
                                            [1.0, np.float32(3) / np.float32(255), 0.0, 1.0]]
    snorm = image_format("R8_SNORM")
    codes = np.frombuffer(pack_texels(snorm, _words([-1.0, 0, 0, 0, 0.5, 0, 0, 0])), np.int8)
    assert codes.tolist() == [-127, 64]
    # the code -128 reads as -1 (clamped), as GL defines it
    assert unpack_texels(snorm, bytes([0x80]), (1, 1, 1, 4)).view(np.float32)[0, 0, 0, 0] == -1.0


def test_integer_and_half_texels_pack_exactly():
    sint = image_format("R16G16B16A16_SINT")
    texels = np.array([-3, 7, 0, 63], np.int32).view(np.uint32).reshape(1, 1, 1, 4)
    data = pack_texels(sint, texels)
    assert np.frombuffer(data, np.int16).tolist() == [-3, 7, 0, 63]
    assert unpack_texels(sint, data, texels.shape).view(np.int32).ravel().tolist() == \
        [-3, 7, 0, 63]
    uint = image_format("R8_UINT")
    assert unpack_texels(uint, bytes([200]), (1, 1, 1, 4)).ravel().tolist() == [200, 0, 0, 1]
    half = image_format("R16_FLOAT")
    data = pack_texels(half, _words([-2.25, 0, 0, 0]))
    assert np.frombuffer(data, np.float16).tolist() == [-2.25]
    assert unpack_texels(half, data, (1, 1, 1, 4)).view(np.float32).ravel().tolist() == \
        [-2.25, 0.0, 0.0, 1.0]


# ---- verify on lavapipe ----------------------------------------------------------------

@pytest.mark.parametrize("name, text, compared", [
    ("reduction", REDUCTION, 256), ("images", IMAGES, 3328), ("atomics", ATOMICS, 256),
    ("image_atomics", IMAGE_ATOMICS, 5120)])
@pytest.mark.parametrize("via, ran", [
    ("auto", "the direct SPIR-V path's module ran"),
    ("glsl", "glslang's SPIR-V ran (--via glsl)")])
def test_compute_programs_pass_on_vulkan(name, text, compared, via, ran):
    # the direct module (with the verifier's log of atomics where the program has atomics)
    # and glslang's compile of the GLSL translation
    rep = _verify(text, f"{name}.tgsi", via=via)
    assert (rep.status, rep.compared, rep.total_differences) == ("pass", compared, 0), \
        (rep.reason, [d.describe() for d in rep.differences[:3]])
    assert rep.backend == "vulkan" and rep.notes[0] == ran
    assert rep.notes[-1] == ("grid 2 x 2 x 1 workgroups of 4 x 1 x 1; storage buffers compared "
                             "word by word")


TEXTURED = comp(
    # a texel of the generated texture (TEX_LZ at a coordinate from the constants), an image
    # without a format (RGBA32F on both APIs) and a parameter, stored per invocation
    "MOV TEMP[0].xy, CONST[0].xyxx\n"
    "TEX_LZ TEMP[1], TEMP[0], SAMP[0], 2D\n"
    "SHL TEMP[2].x, SV[0].xxxx, IMM[0].wwww\n"
    "STORE BUFFER[0], TEMP[2].xxxx, TEMP[1]\n"
    "MOV TEMP[3].xy, SV[0].xyxx\nMOV TEMP[3].y, SV[1].xxxx\n"
    "ADD TEMP[1], TEMP[1], CONST[0]\n"
    "STORE IMAGE[0], TEMP[3], TEMP[1], 2D\n",
    "DCL SAMP[0]\nDCL SVIEW[0], 2D, FLOAT\nDCL CONST[0]\nDCL BUFFER[0]\n"
    "DCL IMAGE[0], 2D, WR\n")


def test_textures_parameters_and_an_unformatted_image_pass_on_vulkan():
    rep = _verify(TEXTURED, "textured.tgsi")
    assert rep.status == "pass", (rep.reason, [d.describe() for d in rep.differences[:3]])
    # 256 buffer words and 16 x 16 RGBA32F texels
    assert rep.compared == 256 + 16 * 16 * 4


def _every_target() -> str:
    """Each image target with a format of another kind: every invocation loads its own texel
    -- (4 block.x + thread, block.y), or x = 16 block.y + 4 block.x + thread in the 1D
    targets -- and stores it two rows further (1D: 32 texels further), where no invocation
    loads: no two invocations touch one texel (no data race)."""
    images = [("1D", "R32G32B32A32_FLOAT"), ("3D", "R16G16_SNORM"), ("CUBE", "R8G8B8A8_UINT"),
              ("2D_ARRAY", "R16_SINT"), ("1D_ARRAY", "R16G16B16A16_FLOAT"),
              ("CUBEARRAY", "R8_UNORM"), ("RECT", "R32_UINT")]
    body = ("UMAD TEMP[0].x, SV[1].xxxx, IMM[0].wwww, SV[0].xxxx\nMOV TEMP[0].y, SV[1].yyyy\n"
            "MOV TEMP[0].zw, IMM[0].xxxx\nMOV TEMP[2], IMM[0].xxxx\n"
            "UMAD TEMP[2].x, SV[1].yyyy, IMM[0].wwww, SV[1].xxxx\n"
            "UMAD TEMP[2].x, TEMP[2].xxxx, IMM[0].wwww, SV[0].xxxx\n")
    decls = ""
    for i, (target, fmt) in enumerate(images):
        decls += f"DCL IMAGE[{i}], {target}, PIPE_FORMAT_{fmt}, WR\n"
        if target.startswith("1D"):
            at, to = "TEMP[2]", "MOV TEMP[3], TEMP[2]\nUADD TEMP[3].x, TEMP[2].xxxx, IMM[1].xxxx\n"
        else:
            at, to = "TEMP[0]", "MOV TEMP[3], TEMP[0]\nUADD TEMP[3].y, TEMP[0].yyyy, IMM[0].zzzz\n"
        body += (f"LOAD TEMP[1], IMAGE[{i}], {at}, {target}, PIPE_FORMAT_{fmt}\n" + to +
                 f"STORE IMAGE[{i}], TEMP[3], TEMP[1], {target}, PIPE_FORMAT_{fmt}\n")
    return comp(body, decls).replace("IMM[0] UINT32 {0, 1, 2, 4}\n",
                                     "IMM[0] UINT32 {0, 1, 2, 4}\nIMM[1] UINT32 {32, 0, 0, 0}\n")


def test_every_image_target_and_format_kind_passes_on_vulkan():
    rep = _verify(_every_target(), "targets.tgsi")
    assert rep.status == "pass", (rep.reason, [d.describe() for d in rep.differences[:3]])
    # every texel of the seven images (executor default sizes), 4 channels each
    texels = 64 + 4 * 16 * 16 + 6 * 8 * 8 + 4 * 16 * 16 + 4 * 64 + 12 * 8 * 8 + 16 * 16
    assert rep.compared == texels * 4 == 15104


MULTISAMPLE = comp(
    # texel fetches from a 2D and a 2D-array multisample texture (rendered into the image by
    # vulkan_multisample, read by the compute stage after its barrier)
    "AND TEMP[0], SV[0].xxxx, IMM[0].zzzz\nMOV TEMP[0].w, SV[1].xxxx\n"
    "TXF TEMP[1], TEMP[0], SAMP[0], 2D_MSAA\n"
    "SAMPLE_I_MS TEMP[2], TEMP[0], SVIEW[1], TEMP[0].wwww\n"
    # each invocation its own 16 bytes, (4 (x + 2 y) + thread) * 16, then 256 bytes on
    "UMAD TEMP[3].x, SV[1].yyyy, IMM[0].zzzz, SV[1].xxxx\n"
    "UMAD TEMP[3].x, TEMP[3].xxxx, IMM[0].wwww, SV[0].xxxx\n"
    "SHL TEMP[3].x, TEMP[3].xxxx, IMM[0].wwww\nSTORE BUFFER[0], TEMP[3].xxxx, TEMP[1]\n"
    "UADD TEMP[3].x, TEMP[3].xxxx, IMM[1].xxxx\nSTORE BUFFER[0], TEMP[3].xxxx, TEMP[2]\n",
    "DCL SAMP[0]\nDCL SAMP[1]\nDCL SVIEW[0], 2D_MSAA, FLOAT\nDCL SVIEW[1], 2D_ARRAY_MSAA, UINT\n"
    "DCL BUFFER[0]\n").replace("IMM[0] UINT32 {0, 1, 2, 4}\n",
                                "IMM[0] UINT32 {0, 1, 2, 4}\nIMM[1] UINT32 {256, 0, 0, 0}\n")


def test_multisample_textures_pass_on_vulkan():
    rep = _verify(MULTISAMPLE, "ms.tgsi")
    assert (rep.status, rep.compared) == ("pass", 256), \
        (rep.reason, [d.describe() for d in rep.differences[:3]])


def test_the_gl_and_vulkan_verdicts_compare_the_same_words():
    gl = core.verify_source(TEXTURED, "textured.tgsi", runner=gl_runner("gl"))
    vk = _verify(TEXTURED, "textured.tgsi")
    assert (gl.status, gl.compared, gl.lanes) == (vk.status, vk.compared, vk.lanes)


def test_via_direct_reports_a_program_the_direct_path_does_not_cover(monkeypatch):
    from xlate.backends import spirv_direct

    def declined(prog, profile="vulkan", **kw):
        raise spirv_direct.NotCovered("this test's case")
    monkeypatch.setattr(spirv_direct, "emit_spirv", declined)
    rep = _verify(REDUCTION, via="direct")
    assert (rep.status, rep.reason) == ("unsupported",
                                        "direct SPIR-V does not cover this test's case")
    rep = _verify(REDUCTION)
    assert (rep.status, rep.notes[0]) == ("pass", "glslang's SPIR-V ran (the direct path does "
                                          "not cover this test's case)")


def test_a_wrong_glsl_template_is_a_mismatch_on_vulkan(monkeypatch):
    # the store offset one word off in the GLSL; the direct module (which would run otherwise)
    # is declined so that glslang's compile of the wrong GLSL is what lavapipe runs
    from xlate.backends import glsl as glsl_mod
    from xlate.backends import spirv_direct
    real = glsl_mod.emit_glsl

    def wrong(prog, profile="glsl450", **kw):
        out = real(prog, profile, **kw)
        bad = out.source.replace("xl_store_BUFFER0((TEMP1.x >> 2u),",
                                 "xl_store_BUFFER0((TEMP1.x >> 2u) + 1u,")
        assert bad != out.source
        return dataclasses.replace(out, source=bad)

    def declined(prog, profile="vulkan", **kw):
        raise spirv_direct.NotCovered("this test's wrong GLSL")
    monkeypatch.setattr(glsl_mod, "emit_glsl", wrong)
    monkeypatch.setattr(spirv_direct, "emit_spirv", declined)
    rep = _verify(REDUCTION)
    assert rep.status == "mismatch"
    assert rep.notes[0] == "glslang's SPIR-V ran (the direct path does not cover this test's " \
        "wrong GLSL)"
    # as on GL (test_tgsi_compute.test_a_store_to_a_wrong_offset_is_a_mismatch)
    d = rep.differences
    assert [(x.lane, x.expected) for x in d[:2]] == [(0, 10), (1, 20)]
    assert [x.got for x in d[1:3]] == [10, 20] and d[2].lane == 2 and rep.total_differences == 3


def test_a_mutated_direct_module_is_a_mismatch_on_vulkan(monkeypatch):
    seen = mutate_direct_module(monkeypatch, validate=True)
    rep = _verify(REDUCTION)
    assert seen == ["vulkan"] and rep.notes[0] == "the direct SPIR-V path's module ran"
    assert rep.status == "mismatch" and rep.total_differences > 0
    assert all(d.kind == "memory" for d in rep.differences)


def test_a_mutated_atomic_of_the_direct_module_is_a_mismatch_on_vulkan(monkeypatch):
    # the shared word's OpAtomicExchange (229) made an OpAtomicIAdd (234)
    mutate_direct_module(monkeypatch, 229, 234, validate=True)
    rep = _verify(ATOMICS, "atomics.tgsi")
    assert rep.status == "mismatch" and rep.notes[0] == "the direct SPIR-V path's module ran"
    assert any("no order of its 4 atomics returns what the implementation returned" in
               d.describe() for d in rep.differences)


def test_a_wrong_atomic_is_a_mismatch_on_vulkan(monkeypatch):
    import xlate.backends.glsl.memory as mem
    monkeypatch.setitem(mem._NATIVE_ATOMICS, "ATOMXCHG", "Add")     # the GLSL's template
    rep = _verify(ATOMICS, "atomics.tgsi", via="glsl")
    assert rep.status == "mismatch"
    assert any("no order of its 4 atomics returns what the implementation returned" in
               d.describe() for d in rep.differences)


def test_cli_verify_a_compute_program_on_vulkan(tmp_path, capsys):
    gl_runner("vulkan")
    f = tmp_path / "r.tgsi"
    f.write_text(REDUCTION)
    report = tmp_path / "r.json"
    rc = cli.main(["verify", str(f), "--backend", "vulkan", "--json", str(report)])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert out.startswith("PASS ") and "(compute program, 16 lanes, 256 components" in out
    doc = json.loads(report.read_text())
    assert doc["backend"] == "vulkan" and doc["summary"] == {"pass": 1}
    assert [(p["stage"], p["backend"], p["components_compared"]) for p in doc["programs"]] == \
        [("compute", "vulkan", 256)]


# ---- the shared corpus's compute shaders ------------------------------------------------

CORPUS_TGSI = SHARED_CORPUS / "collected" / "tgsi"
#: the 13 modern compute shaders (test_corpus_tgsi.py; those of yuq+mesa-lima are 2012-era,
#: refused)
MODERN_COMPUTE = sorted(f.relative_to(CORPUS_TGSI).as_posix() for f in CORPUS_TGSI.rglob("*.tgsi")
                        if f.read_bytes().startswith(b"COMP")
                        and f.parent.name != "yuq+mesa-lima") if CORPUS_TGSI.is_dir() else []


@corpus_mark("collected/tgsi")
def test_the_modern_corpus_compute_shaders_pass_on_vulkan():
    runner = gl_runner("vulkan")
    assert len(MODERN_COMPUTE) == 13
    results = {}
    for rel in MODERN_COMPUTE:
        rep = core.verify_source((CORPUS_TGSI / rel).read_text(), rel, backend="vulkan",
                                 runner=runner)
        results[rel] = (rep.status, rep.reason)
        assert rep.compared > 0, rel
    # two compositor programs divide and take dot products of lookups: within the tolerance
    # of those (shown by the executor adopting the results)
    tolerance = "differences explained: tolerance (shown: the executor, adopting those " \
        "results, reproduces every output)"
    explained = {f"aerisarn+mesa-uwp/vl_compositor_cs-{k}.tgsi" for k in (2, 4)}
    assert results == {rel: ("pass", tolerance if rel in explained else "")
                       for rel in MODERN_COMPUTE}
