"""TGSI FBFETCH (issue 20): the colour the framebuffer held at the fragment before this
invocation.  The frontend makes it a MOV from an implicit input bound to
``fragment.framebuffer[n]`` (the executor's and the generator's ordinary input); the vulkan
profile reads it through a subpass input on colour attachment n (GLSL subpassLoad, direct
SPIR-V OpImageRead of a SubpassData image), and the Vulkan harness loads the generated values
into that attachment before the draw (xlate/verify/vulkan_fetch.py).  OpenGL has it only
through GL_EXT_shader_framebuffer_fetch, which glslang does not implement: refused (E7001)."""
from __future__ import annotations

import numpy as np
import pytest

from conftest import gl_runner

from xlate import api, execute
from xlate.diagnostics import XlateError
from xlate.verify.core import verify_source

PROGRAM = """FRAG
DCL IN[0], GENERIC[0], PERSPECTIVE
DCL OUT[0], COLOR
DCL OUT[1], COLOR[1]
DCL TEMP[0..1]
  0: MOV OUT[0], IN[0]
  1: FBFETCH TEMP[0], OUT[0]
  2: FBFETCH TEMP[1], OUT[1]
  3: ADD OUT[0], TEMP[0], -TEMP[1].yxzw
  4: MUL OUT[1], TEMP[1], IN[0]
  5: END
"""


def test_executor_reads_the_framebuffer_input_not_the_output_written():
    fb0 = np.float32([[1, 2, 3, 4]] * 4)
    fb1 = np.float32([[10, 20, 30, 40]] * 4)
    r = execute(api.parse(PROGRAM), {"fragment.generic[0]": np.float32([[2, 2, 2, 2]] * 4),
                                     "fragment.framebuffer[0]": fb0,
                                     "fragment.framebuffer[1]": fb1})
    # OUT[0] was written before the fetch: FBFETCH still reads what the framebuffer held
    assert r.float("result.color[0]")[0].tolist() == [-19.0, -8.0, -27.0, -36.0]
    assert r.float("result.color[1]")[0].tolist() == [20.0, 40.0, 60.0, 80.0]


def test_ir_is_a_move_from_the_framebuffer_input():
    prog = api.parse(PROGRAM)
    fb = prog.registers["FB1"]
    assert (fb.kind.value, [b.text() for b in fb.bindings]) == ("input",
                                                              ["fragment.framebuffer[1]"])
    assert "OUT0_v" not in prog.registers          # naming the output does not read it


def test_a_program_without_inputs_fetches_with_modifiers():
    # (no IN declared: the fetch names only the output; the modifiers apply to the value read)
    src = ("FRAG\nDCL OUT[0], COLOR[0]\nDCL TEMP[0]\nFBFETCH TEMP[0], -OUT[0].yxzw\n"
           "MOV OUT[0], TEMP[0]\nEND\n")
    r = execute(api.parse(src), {"fragment.framebuffer[0]": np.float32([[1, 2, 3, 4]])})
    assert r.float("result.color[0]")[0].tolist() == [-2.0, -1.0, -3.0, -4.0]
    assert "subpassLoad(xl_framebuffer0)" in api.translate(src, profile="vulkan").glsl


def test_vulkan_glsl_reads_a_subpass_input():
    glsl = api.translate(PROGRAM, profile="vulkan").glsl
    assert ("layout(input_attachment_index = 1, set = 0, binding = 57) uniform subpassInput "
            "xl_framebuffer1;\n") in glsl
    assert "    in_fragment_framebuffer[0] = subpassLoad(xl_framebuffer0);\n" in glsl


def test_direct_spirv_reads_a_subpass_image():
    from xlate.backends.spirv import disassemble_spirv
    text = disassemble_spirv(api.translate_program(api.parse(PROGRAM), target="spirv",
                                                   profile="vulkan", via="direct").spirv)
    assert "OpCapability InputAttachment" in text
    assert "InputAttachmentIndex 1" in text and "OpImageRead" in text


@pytest.mark.parametrize("profile", ["glsl450", "glsl330", "es310"])
def test_gl_profiles_refuse_naming_the_reason(profile):
    with pytest.raises(XlateError) as e:
        api.translate(PROGRAM, filename="t.tgsi", profile=profile)
    assert [d.header() for d in e.value.diagnostics] == [
        "t.tgsi:7:6: error[E7001]: framebuffer fetch (fragment.framebuffer[0], TGSI FBFETCH: "
        "GL_EXT_shader_framebuffer_fetch, which glslang does not implement; the vulkan profile "
        f"has it as a subpass input) cannot be expressed in the {profile} profile"]


@pytest.mark.parametrize("body, message", [
    ("FBFETCH TEMP[0], IN[0]", "FBFETCH reads the framebuffer of a COLOR output: src0 must be "
                               "OUT[n], not IN"),
    ("FBFETCH TEMP[0], OUT[1]", "FBFETCH is only valid on COLOR outputs (tgsi.rst): OUT[1] is "
                                "result.depth"),
])
def test_frontend_refusals(body, message):
    src = ("FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL OUT[1], POSITION\n"
           f"DCL TEMP[0]\n  0: {body}\n  1: MOV OUT[0], TEMP[0]\n  2: END\n")
    with pytest.raises(XlateError) as e:
        api.parse(src, filename="t.tgsi")
    assert [d.header() for d in e.value.diagnostics] == [f"t.tgsi:6:6: error[E3004]: {message}"]


@pytest.mark.parametrize("via", ["direct", "glsl"])
def test_fbfetch_verifies_on_vulkan(via):
    rep = verify_source(PROGRAM, "fb.tgsi", lanes=64, seed=3, backend="vulkan",
                        runner=gl_runner("vulkan"), via=via)
    assert rep.status == "pass", (rep.reason, [d.describe() for d in rep.differences[:5]])
    assert rep.compared == 64 * 8


def test_a_swizzled_fetch_is_a_mismatch(monkeypatch):
    from xlate.backends import interface
    real = interface.input_interface

    def swizzled(*a, **k):
        var, expr = real(*a, **k)
        return var, (expr + ".yxzw" if expr.startswith("subpassLoad") else expr)
    monkeypatch.setattr(interface, "input_interface", swizzled)
    rep = verify_source(PROGRAM, "fb.tgsi", lanes=64, seed=3, backend="vulkan",
                        runner=gl_runner("vulkan"), via="glsl")
    assert rep.status == "mismatch"


def test_a_fetch_of_the_neighbour_pixel_is_a_mismatch_on_the_direct_path(monkeypatch):
    from xlate.backends.spirv_direct import fragment_ops
    monkeypatch.setattr(fragment_ops, "_FETCH_AT", (1, 0))
    rep = verify_source(PROGRAM, "fb.tgsi", lanes=64, seed=3, backend="vulkan",
                        runner=gl_runner("vulkan"), via="direct")
    assert rep.status == "mismatch"
    assert rep.reason.startswith("the direct SPIR-V departs from the executor")


def test_gl_backends_report_the_refusal():
    rep = verify_source(PROGRAM, "fb.tgsi", lanes=64, seed=3, backend="gl",
                        runner=gl_runner("gl"))
    assert rep.status == "unsupported" and "GL_EXT_shader_framebuffer_fetch" in rep.reason
