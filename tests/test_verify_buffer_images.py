"""Buffer images (``DCL IMAGE[n], BUFFER, <format>``, GLSL ``imageBuffer``) in ``xlate verify`` of
compute programs (issue 20): the executor's loads, stores, RESQ and atomics with hand-computed
values, then the same program passing on every backend -- a GL buffer texture (``glTexBuffer``) on
gl and gl-spirv, a storage texel buffer on vulkan -- through the direct SPIR-V module and
glslang's, and wrong translations (a texel coordinate one off in the GLSL, a word of the direct
module) reported as mismatches.  Outside compute programs a buffer image is ``unsupported`` with
the resources named.  Tests that run shaders skip when no implementation exists."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from conftest import gl_runner

from xlate import api
from xlate.exec.compute import execute_compute
from xlate.verify import core
from xlate.verify.mutants_common import Delegate, same_arguments

from test_tgsi_compute import comp
from resource_verify_cases import (DIRECT_BACKENDS, EVERY_MODULE, assert_passes,
                                   assert_mutated_direct_module_caught)

#: invocation n = 4 (block.x + 2 block.y) + thread of verify's 2 x 2 grid (0..15) works on
#: texel n of each buffer image and stores to texel n + 32 (no invocation loads there: no
#: race); atomics go to texel n & 3 (four invocations each, their order checked apart):
#: * IMAGE[0] R32G32B32A32_FLOAT: texel n + (0.5, -1, 2, 0.25);
#: * IMAGE[1] R32_UINT: ATOMUADD of n + 1, what it returned; RESQ of IMAGE[3] at n + 48;
#: * IMAGE[2] R32_SINT: ATOMIMIN of n - 8, what it returned;
#: * IMAGE[3] R16G16_SINT: texel n negated (two channels: z, w read 0, 1).
BUFFER_IMAGES = comp(
    "UMAD TEMP[0].x, SV[1].yyyy, IMM[0].zzzz, SV[1].xxxx\n"
    "UMAD TEMP[0].x, TEMP[0].xxxx, IMM[0].wwww, SV[0].xxxx\n"
    "UADD TEMP[0].y, TEMP[0].xxxx, IMM[1].xxxx\n"
    "AND TEMP[0].z, TEMP[0].xxxx, IMM[1].yyyy\n"
    "LOAD TEMP[1], IMAGE[0], TEMP[0].xxxx, BUFFER, PIPE_FORMAT_R32G32B32A32_FLOAT\n"
    "ADD TEMP[1], TEMP[1], IMM[2]\n"
    "STORE IMAGE[0], TEMP[0].yyyy, TEMP[1], BUFFER, PIPE_FORMAT_R32G32B32A32_FLOAT\n"
    "UADD TEMP[2].x, TEMP[0].xxxx, IMM[0].yyyy\n"
    "ATOMUADD TEMP[2].x, IMAGE[1], TEMP[0].zzzz, TEMP[2].xxxx, BUFFER, PIPE_FORMAT_R32_UINT\n"
    "STORE IMAGE[1], TEMP[0].yyyy, TEMP[2], BUFFER, PIPE_FORMAT_R32_UINT\n"
    "RESQ TEMP[3].x, IMAGE[3]\n"
    "UADD TEMP[3].y, TEMP[0].yyyy, IMM[1].zzzz\n"
    "STORE IMAGE[1], TEMP[3].yyyy, TEMP[3].xxxx, BUFFER, PIPE_FORMAT_R32_UINT\n"
    "UADD TEMP[2].x, TEMP[0].xxxx, IMM[1].wwww\n"
    "ATOMIMIN TEMP[2].x, IMAGE[2], TEMP[0].zzzz, TEMP[2].xxxx, BUFFER, PIPE_FORMAT_R32_SINT\n"
    "STORE IMAGE[2], TEMP[0].yyyy, TEMP[2], BUFFER, PIPE_FORMAT_R32_SINT\n"
    "LOAD TEMP[3], IMAGE[3], TEMP[0].xxxx, BUFFER, PIPE_FORMAT_R16G16_SINT\n"
    "INEG TEMP[3], TEMP[3]\n"
    "STORE IMAGE[3], TEMP[0].yyyy, TEMP[3], BUFFER, PIPE_FORMAT_R16G16_SINT\n",
    "DCL IMAGE[0], BUFFER, PIPE_FORMAT_R32G32B32A32_FLOAT, WR\n"
    "DCL IMAGE[1], BUFFER, PIPE_FORMAT_R32_UINT, WR\n"
    "DCL IMAGE[2], BUFFER, PIPE_FORMAT_R32_SINT, WR\n"
    "DCL IMAGE[3], BUFFER, PIPE_FORMAT_R16G16_SINT, WR\n").replace(
    "IMM[0] UINT32 {0, 1, 2, 4}\n",
    "IMM[0] UINT32 {0, 1, 2, 4}\nIMM[1] UINT32 {32, 3, 16, 4294967288}\n"
    "IMM[2] FLT32 {0.5, -1.0, 2.0, 0.25}\n")

#: every texel of the four buffer images (64 texels each, exec/images.py DEFAULT_SHAPE), 4 words
COMPARED = 4 * 64 * 4


def _texels(values, dtype) -> np.ndarray:
    out = np.zeros((1, 1, 64, 4), dtype)
    out[0, 0, :len(values)] = values
    return out.view(np.uint32)


def test_the_executor_runs_buffer_image_loads_stores_resq_and_atomics():
    prog = api.parse(BUFFER_IMAGES)
    f = [[k / 4, -k, 2 * k, 1.0] for k in range(64)]
    u = [[10 * k, 0, 0, 1] for k in range(64)]
    s = [[k - 2, 0, 0, 1] for k in range(64)]
    h = [[k, -3 * k, 0, 1] for k in range(64)]
    res = execute_compute(prog, (2, 2, 1), images={
        0: _texels(f, np.float32), 1: _texels(u, np.uint32), 2: _texels(s, np.int32),
        3: _texels(h, np.int32)})
    img = res.images
    assert img[0][0, 0, 32:48].view(np.float32).tolist() == \
        [[k / 4 + 0.5, -k - 1.0, 2 * k + 2.0, 1.25] for k in range(16)]
    # ATOMUADD in lane order: texel k (0..3) gets k + 1, k + 5, k + 9, k + 13 added
    assert img[1][0, 0, :4, 0].tolist() == [10 * k + 4 * k + 28 for k in range(4)]
    assert img[1][0, 0, 32:48, 0].tolist() == \
        [10 * (n & 3) + sum(m + 1 for m in range(n & 3, n, 4)) for n in range(16)]
    # RESQ of a buffer image: its width in texels
    assert img[1][0, 0, 48:64, 0].tolist() == [64] * 16
    # ATOMIMIN of n - 8: texel k ends at min(k - 2, k - 8) = k - 8; each returns the minimum
    # so far
    assert img[2][0, 0, :4, 0].view(np.int32).tolist() == [k - 8 for k in range(4)]
    assert img[2][0, 0, 32:48, 0].view(np.int32).tolist() == \
        [min([(n & 3) - 2] + [m - 8 for m in range(n & 3, n, 4)]) for n in range(16)]
    # R16G16_SINT: two channels stored, z and w read back 0 and 1
    assert img[3][0, 0, 32:48].view(np.int32).tolist() == [[-k, 3 * k, 0, 1] for k in range(16)]
    assert res.race is None


def test_the_glsl_declares_buffer_images():
    t = api.translate(BUFFER_IMAGES, filename="bi.tgsi", profile="vulkan")
    assert "layout(set = 0, binding = 96, rgba32f) uniform imageBuffer xl_image0;" in t.glsl
    assert "layout(set = 0, binding = 99, rg16i) uniform iimageBuffer xl_image3;" in t.glsl
    assert [(i["resource"], i["target"], i["binding"]) for i in t.reflection["images"]] == \
        [(f"IMAGE[{u}]", "BUFFER", 96 + u) for u in range(4)]


def _verify(backend: str, text: str = BUFFER_IMAGES, **kw):
    return core.verify_source(text, "bi.tgsi", backend=backend, runner=gl_runner(backend), **kw)


@EVERY_MODULE
def test_buffer_images_pass(backend, via, ran):
    # the four contended texels of each atomic image, their orders found
    assert_passes(_verify(backend, via=via), COMPARED, 8, ran)


def _negated_copy(fmt: str) -> str:
    """Invocation n stores texel n of a buffer image of ``fmt`` negated (a uint format's
    copied: a negative integer is out of its range, which GL leaves undefined) at texel
    n + 32."""
    negate = "" if fmt.endswith("_UINT") else \
        "INEG TEMP[1], TEMP[1]\n" if fmt.endswith("_SINT") else "MOV TEMP[1], -TEMP[1]\n"
    return comp("UMAD TEMP[0].x, SV[1].yyyy, IMM[0].zzzz, SV[1].xxxx\n"
                "UMAD TEMP[0].x, TEMP[0].xxxx, IMM[0].wwww, SV[0].xxxx\n"
                f"LOAD TEMP[1], IMAGE[0], TEMP[0].xxxx, BUFFER, PIPE_FORMAT_{fmt}\n" + negate +
                "UADD TEMP[0].y, TEMP[0].xxxx, IMM[1].xxxx\n"
                f"STORE IMAGE[0], TEMP[0].yyyy, TEMP[1], BUFFER, PIPE_FORMAT_{fmt}\n",
                f"DCL IMAGE[0], BUFFER, PIPE_FORMAT_{fmt}, WR\n").replace(
        "IMM[0] UINT32 {0, 1, 2, 4}\n", "IMM[0] UINT32 {0, 1, 2, 4}\nIMM[1] UINT32 {32, 0, 0, 0}\n")


@pytest.mark.parametrize("backend", ["gl", "gl-spirv", "vulkan"])
@pytest.mark.parametrize("fmt", ["R8G8B8A8_SNORM", "R16_SNORM", "R16G16B16A16_UNORM", "R8_UINT",
                                 "R16G16_FLOAT", "R8G8_SINT"])
def test_buffer_images_of_narrow_formats_pass(fmt, backend):
    # SNORM: GL has no SNORM buffer texture, the buffer gets the UNORM format of its size and
    # the image unit the SNORM one (gl_compute._gl_buffer_image); read as UNORM, the negated
    # values would store as 0 (and the generated negative ones read positive)
    rep = _verify(backend, _negated_copy(fmt))
    assert (rep.status, rep.compared) == ("pass", 64 * 4), \
        (rep.reason, [d.describe() for d in rep.differences[:3]])


def _coordinate_one_off(monkeypatch):
    """The GLSL the verifier runs with IMAGE[0]'s store one texel further (n + 33).  The
    program has atomics, so that GLSL is compute_replay.translate's (with the atomic log)."""
    from xlate.verify import compute_replay
    real = compute_replay.translate

    def wrong(prog, profile):
        out = real(prog, profile)
        bad = out.source.replace("imageStore(xl_image0, int(TEMP0.y),",
                                 "imageStore(xl_image0, int(TEMP0.y) + 1,")
        assert bad != out.source
        return dataclasses.replace(out, source=bad)
    monkeypatch.setattr(compute_replay, "translate", wrong)


@pytest.mark.parametrize("backend", ["gl", "gl-spirv", "vulkan"])
def test_a_wrong_buffer_image_coordinate_is_a_mismatch(backend, monkeypatch):
    _coordinate_one_off(monkeypatch)
    rep = _verify(backend, via="glsl")
    assert rep.status == "mismatch"
    # the executor's texels 32..47 hold the loads plus (0.5, -1, 2, 0.25) and texel 48 stays as
    # generated; the wrong translation leaves texel 32 as generated and writes 33..48: all four
    # channels of the 17 texels differ (the generated values are k / 4, none equal here)
    assert rep.total_differences == 17 * 4
    # the first 50 reported, texel by texel
    assert [d.output for d in rep.differences] == \
        [f"IMAGE[0] texel ({32 + k // 4}, 0, 0)" for k in range(50)]
    first = rep.differences[0]
    assert (first.lane, first.component, first.invocation) == (32, 0, 0)


@DIRECT_BACKENDS
def test_a_mutated_direct_module_with_buffer_images_is_a_mismatch(backend, monkeypatch):
    assert_mutated_direct_module_caught(monkeypatch, _verify, backend)


def test_buffer_images_outside_compute_are_unsupported_with_the_resources_named():
    src = ("FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\n"
           "DCL IMAGE[0], BUFFER, PIPE_FORMAT_R32_UINT, WR\nDCL BUFFER[1]\nDCL TEMP[0]\n"
           "IMM[0] UINT32 {0, 1, 2, 4}\n"
           "LOAD TEMP[0].x, IMAGE[0], IMM[0].yyyy, BUFFER, PIPE_FORMAT_R32_UINT\n"
           "STORE IMAGE[0], IMM[0].xxxx, TEMP[0], BUFFER, PIPE_FORMAT_R32_UINT\n"
           "MOV OUT[0], IN[0]\nEND\n")
    for backend in ("gl", "vulkan"):
        rep = core.verify_source(src, "f.tgsi", backend=backend)
        assert (rep.status, rep.reason) == (
            "unsupported", "BUFFER[1], IMAGE[0] (a buffer image) in a fragment program: the "
            "draw harnesses bind no storage buffers or images (compute programs verify them)")


#: tgsi.rst ATOMUMIN / ATOMUMAX compare unsigned, whatever the image's format: on an R32_SINT
#: image (GLSL iimageBuffer, whose imageAtomicMin/Max compare signed) the word 1 against
#: 0xfffffffc (-4) keeps 1, then against 0xfffffff0 (-16) becomes 0xfffffff0.  Found by the
#: TGSI random generator (compute seed 26 of tools/diffcheck.py --generated tgsi: "no order
#: of its atomics returns what the implementation returned").  Invocation g = x + 2y of the
#: 2 x 2 grid (one a workgroup) works on texel g alone and stores both returned words at
#: BUFFER[0] word 2g.
UNSIGNED_ON_SINT = comp(
    "UMAD TEMP[1].x, SV[1].yyyy, IMM[0].zzzz, SV[1].xxxx\n"
    "STORE IMAGE[0], TEMP[1].xxxx, IMM[0].yyyy, BUFFER, PIPE_FORMAT_R32_SINT\n"
    "ATOMUMIN TEMP[0].x, IMAGE[0], TEMP[1].xxxx, IMM[1].xxxx, BUFFER, PIPE_FORMAT_R32_SINT\n"
    "ATOMUMAX TEMP[0].y, IMAGE[0], TEMP[1].xxxx, IMM[1].yyyy, BUFFER, PIPE_FORMAT_R32_SINT\n"
    "UMUL TEMP[1].y, TEMP[1].xxxx, IMM[1].zzzz\n"
    "STORE BUFFER[0].xy, TEMP[1].yyyy, TEMP[0]\n",
    "DCL IMAGE[0], BUFFER, PIPE_FORMAT_R32_SINT, WR\nDCL BUFFER[0]\n", (1, 1, 1)).replace(
    "IMM[0] UINT32 {0, 1, 2, 4}\n",
    "IMM[0] UINT32 {0, 1, 2, 4}\nIMM[1] UINT32 {4294967292, 4294967280, 8, 0}\n")


def test_unsigned_atomics_on_a_signed_image_compare_unsigned():
    res = execute_compute(api.parse(UNSIGNED_ON_SINT), (2, 2, 1), images={
        0: _texels([[7, 0, 0, 1]] * 64, np.int32)}, buffers={0: np.zeros(64, np.uint32)})
    assert res.images[0][0, 0, :5, 0].tolist() == [0xfffffff0] * 4 + [7]
    assert res.buffers[0][:8].tolist() == [1, 1] * 4
    glsl = api.translate(UNSIGNED_ON_SINT, filename="us.tgsi").glsl
    assert "imageAtomicMin" not in glsl and "imageAtomicMax" not in glsl


@pytest.mark.parametrize("backend, via", [("gl", "auto"), ("gl-spirv", "auto"),
                                          ("gl-spirv", "glsl"), ("vulkan", "glsl")])
def test_unsigned_atomics_on_a_signed_image_pass(backend, via):
    rep = _verify(backend, UNSIGNED_ON_SINT, via=via)
    assert rep.status == "pass", (rep.reason, [d.describe() for d in rep.differences[:3]])


class _RecordedDispatches(Delegate):
    """The real runner, each distinct dispatch run once: a repeated call returns the first
    capture.  llvmpipe runs a grid's workgroups on several threads, so the order of contended
    atomics -- and whether a NaN meets a NaN -- differs between dispatches; judging the same
    dispatch twice is what makes the two verdicts below comparable."""

    def __init__(self, inner):
        super().__init__(inner)
        self.seen = []

    def run(self, stage, glsl, reflection, lanes, **kw):
        import copy
        for key, cap in self.seen:
            if same_arguments(key, (stage, glsl, lanes, kw)):
                return copy.deepcopy(cap)
        cap = self.inner.run(stage, glsl, reflection, lanes, **kw)
        self.seen.append(((stage, glsl, lanes, copy.deepcopy(kw)), copy.deepcopy(cap)))
        return cap


def test_float_adds_of_nans_take_either_nan(monkeypatch):
    """Generated TGSI compute seed 1402 (inputs seed 1400): ATOMFADD of NaNs to an image word.
    llvmpipe keeps the word's NaN where the executor's sum takes the operand's; the order search
    takes either NaN (gl_compute.float_add_words).  Every dispatch passes with that freedom;
    one whose order makes two NaNs meet is a mismatch at the image's words without it -- judged
    on the same dispatch (_RecordedDispatches: llvmpipe runs the workgroups on several threads,
    and whether the NaNs meet depends on their order; on some machines no dispatch of a few
    needs the freedom, which tests/test_tgsi_compute.py shows on the reduced word)."""
    from xlate.verify import gl_compute
    from xlate.verify.generate import generate
    text = generate("tgsi", 1402, "compute", 12, frozenset())
    freedom = gl_compute.float_add_words
    for _ in range(6):
        runner = _RecordedDispatches(gl_runner("gl"))
        monkeypatch.setattr(gl_compute, "float_add_words", freedom)
        rep = core.verify_source(text, "c1402.tgsi", lanes=256, seed=1400, runner=runner)
        assert rep.status == "pass", rep.reason
        monkeypatch.setattr(gl_compute, "float_add_words",
                            lambda name, old, a, b, word: (word,))
        rep = core.verify_source(text, "c1402.tgsi", lanes=256, seed=1400, runner=runner)
        if rep.status != "pass":
            assert rep.status == "mismatch"
            assert {d.output.split(" location")[0] for d in rep.differences} == {"IMAGE5"}
            return
    pytest.skip("no dispatch of 6 made two NaNs meet on this machine's llvmpipe threads")


@pytest.mark.parametrize("mine, theirs, op, taken", [
    (0xFFC00000, 0x7FC00000, "ATOMFADD", True),     # the default NaN, the other sign
    (0xFF800001, 0x7FC00001, "ATOMFADD", True),     # the executor's NaN quieted, other sign
    (0x7FC00000, 0x7FC00123, "ATOMFADD", False),    # a payload no operation chose
    (0xFFC00000, 0x3F800000, "ATOMFADD", False),    # a number is no other NaN
    (0xFFC00000, 0x7FC00000, "ATOMUADD", False),    # an integer add's operand is exact bits
])
def test_a_float_adds_nan_operand_may_be_another_nan(mine, theirs, op, taken):
    from xlate.verify.gl_compute import _other_nan_operand
    assert _other_nan_operand(op, mine, theirs) == taken


@pytest.mark.parametrize("backend", ["gl", "vulkan"])
def test_an_atomic_add_of_another_nan_then_integer_atomics_on_its_word(backend):
    """Generated TGSI compute seed 2505 (inputs seed 2500): ``LG2`` of a negative number
    (0xFFC00000 to the executor, 0x7FC00000 to llvmpipe) added by ATOMFADD to an R32_UINT
    image word that ATOMUADD and ATOMOR then change: the word left follows the NaN's sign.
    A mismatch at the atomic's operand before gl_compute._other_nan_operand."""
    from xlate.verify.generate import generate
    text = generate("tgsi", 2505, "compute", 12, frozenset())
    assert "ATOMFADD TEMP[4].y, IMAGE[1], TEMP[4], TEMP[3]" in text, "the generator changed"
    rep = core.verify_source(text, "c2505.tgsi", lanes=256, seed=2500, backend=backend,
                             runner=gl_runner(backend))
    assert rep.status == "pass", rep.reason
    assert any("float adds of a NaN the implementation chose otherwise" in n
               for n in rep.notes), rep.notes
