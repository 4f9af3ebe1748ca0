"""Every opcode of Mesa's tgsi.rst, table-driven (issue 20): each one either translates -- a
small program using it compiles to GLSL that glslang accepts and to validated SPIR-V, and runs
in the executor -- or is refused with a diagnostic naming the opcode: E3008 "not yet supported"
for the opcodes listed in ``NOT_YET_SUPPORTED`` (a list that can only shrink: an opcode that
starts translating fails the test until it is taken off), or a documented refusal.

The names come from ``../shared/specs/tgsi.rst`` when it exists (and must equal the committed
list ``tests/data/tgsi_rst_opcodes.txt``), else from that list alone."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from conftest import SHARED

from xlate import api
from xlate.diagnostics import XlateError
from xlate.frontends.tgsi.opcodes import OPCODES
from xlate.verify import compare as cmp
from xlate.verify.analysis import analyse
from xlate.verify.draw_run import builtin_values_for, run_executor
from xlate.verify.inputs import generate
from xlate.verify.textures import generate_textures

NAMES_FILE = Path(__file__).parent / "data" / "tgsi_rst_opcodes.txt"
SPEC = SHARED / "specs" / "tgsi.rst"


def committed_names() -> list[str]:
    return [ln.strip() for ln in NAMES_FILE.read_text().splitlines()
            if ln.strip() and not ln.startswith("#")]


def spec_names(text: str) -> list[str]:
    """``.. opcode:: DDX, DDX_FINE - Derivative ...`` -> DDX, DDX_FINE (some lines have no
    title: ``.. opcode:: SAMPLE``)."""
    out = []
    for m in re.finditer(r"^\.\. opcode:: *(.*?)(?: - .*)?$", text, re.M):
        out += [n.strip() for n in m.group(1).split(",")]
    return out


NAMES = committed_names()

#: opcodes refused with E3008 "not yet supported": this list may only shrink
NOT_YET_SUPPORTED = frozenset("""
""".split())

#: opcodes refused for a reason other than "not yet", with the diagnostic (code, message part)
DOCUMENTED_REFUSALS: dict[str, tuple[str, str]] = {
    # tgsi.rst: "NOTE: no driver has implemented this opcode yet (and no gallium frontend
    # emits it).  This information is subject to change."
    "SAMPLE_POS": ("E3008", "unsupported opcode SAMPLE_POS (no Mesa driver ever implemented it)"),
    "SAMPLE_INFO": ("E3008", "unsupported opcode SAMPLE_INFO (no Mesa driver ever implemented "
                             "it)"),
    # tgsi.rst "Bindless Opcodes ... require PIPE_CAP_BINDLESS_TEXTURE": a handle is the
    # driver's value, usable only through GL_ARB_bindless_texture (not in llvmpipe's extension
    # list; Vulkan SPIR-V has no handles)
    "IMG2HND": ("E3008", "unsupported opcode IMG2HND (a bindless handle (tgsi.rst: "
                         "PIPE_CAP_BINDLESS_TEXTURE) is the driver's 64-bit value"),
    "SAMP2HND": ("E3008", "unsupported opcode SAMP2HND (a bindless handle (tgsi.rst: "
                          "PIPE_CAP_BINDLESS_TEXTURE) is the driver's 64-bit value"),
    # tgsi.rst FBFETCH: the framebuffer's colour.  The vulkan profile translates it (a subpass
    # input: tests/test_tgsi_fbfetch.py); OpenGL has it only through
    # GL_EXT_shader_framebuffer_fetch, which glslang does not implement, so the default glsl450
    # profile (this test's) refuses it
    "FBFETCH": ("E7001", "framebuffer fetch (fragment.framebuffer[0], TGSI FBFETCH: "
                         "GL_EXT_shader_framebuffer_fetch, which glslang does not implement"),
}

# ---- per-opcode programs ------------------------------------------------------------------------
FRAG_HEAD = """FRAG
DCL IN[0], GENERIC[0], PERSPECTIVE
DCL IN[1], GENERIC[1], PERSPECTIVE
DCL OUT[0], COLOR
DCL TEMP[0..3]
DCL ADDR[0]
DCL SAMP[0]
DCL SVIEW[0], {target}, FLOAT
DCL BUFFER[0]
DCL IMAGE[0], 2D, PIPE_FORMAT_R32G32B32A32_FLOAT, WR
IMM[0] FLT32 {{    1.0000,     2.0000,     0.0000,     0.5000}}
IMM[1] UINT32 {{0, 1, 2, 3}}
"""

BLOCKS = {
    "IF": "IF IN[0].xxxx :2\nMOV TEMP[0], IN[1]\nELSE :3\nMOV TEMP[0], IN[0]\nENDIF",
    "UIF": "UIF IMM[1].yyyy :2\nMOV TEMP[0], IN[1]\nELSE :3\nMOV TEMP[0], IN[0]\nENDIF",
    "BGNLOOP": "MOV TEMP[0], IN[0]\nBGNLOOP :5\nADD TEMP[0], TEMP[0], IMM[0].xxxx\n"
               "IF IN[0].xxxx :4\nBRK\nENDIF\nCONT\nENDLOOP :1",
    "SWITCH": "MOV TEMP[0], IN[0]\nSWITCH IMM[1].yyyy\nCASE IMM[1].xxxx\nMOV TEMP[0], IN[1]\n"
              "BRK\nDEFAULT\nMOV TEMP[0], -IN[1]\nBRK\nENDSWITCH",
    "CAL": "CAL :4\nMOV TEMP[0], TEMP[1]",
    "NOP": "MOV TEMP[0], IN[0]\nNOP",
    "KILL": "MOV TEMP[0], IN[0]\nKILL",
    "KILL_IF": "MOV TEMP[0], IN[0]\nKILL_IF IN[1]",
    "DEMOTE": "MOV TEMP[0], IN[0]\nDEMOTE",
}
BLOCK_OF = {"ELSE": "IF", "ENDIF": "IF", "ENDLOOP": "BGNLOOP", "BRK": "BGNLOOP",
            "CONT": "BGNLOOP", "CASE": "SWITCH", "DEFAULT": "SWITCH", "ENDSWITCH": "SWITCH",
            "RET": "CAL", "BGNSUB": "CAL", "ENDSUB": "CAL"}
SUB = "BGNSUB\nMOV TEMP[1], IN[1]\nRET\nENDSUB\n"

TEX_TARGET = {"TEX2": "SHADOWCUBEARRAY", "TXB2": "CUBEARRAY", "TXL2": "CUBEARRAY",
              "TXF": "2D", "TXF_LZ": "2D", "TXQS": "2D_MSAA", "SAMPLE_I_MS": "2D_MSAA"}
# the operand before SAMP of each texture opcode (beyond the coordinate)
SAMPLE_OPS = {"SAMPLE": 0, "SAMPLE_I_MS": 1, "SAMPLE_B": 1, "SAMPLE_C": 1,
              "SAMPLE_C_LZ": 1, "SAMPLE_D": 2, "SAMPLE_L": 1, "GATHER4": 0}
MEMORY_FIRST = {"LOAD", "RESQ", "ATOMUADD", "ATOMFADD", "ATOMXCHG", "ATOMCAS", "ATOMAND",
                "ATOMOR", "ATOMXOR", "ATOMUMIN", "ATOMUMAX", "ATOMIMIN", "ATOMIMAX",
                "ATOMINC_WRAP", "ATOMDEC_WRAP"}


def _body(name: str) -> tuple[str, str]:
    """(instructions, texture target) of the program that uses ``name``."""
    op = OPCODES[name]
    if name in BLOCKS or name in BLOCK_OF:
        return BLOCKS[BLOCK_OF.get(name, name)], "2D"
    target = TEX_TARGET.get(name, "2D")
    t = "TEMP[0]"
    if name == "SAMPLE_I":                  # no sampler: an unfiltered fetch
        return f"{name} {t}, IMM[1], SVIEW[0]", target
    if name == "SAMPLE_I_MS":               # no sampler; the sample index last
        return f"{name} {t}, IMM[1], SVIEW[0], IMM[1].yyyy", target
    if name in SAMPLE_OPS:
        extra = ", IN[1]" * SAMPLE_OPS[name]
        return f"{name} {t}, IN[0], SVIEW[0], SAMP[0]{extra}", target
    if name in ("SVIEWINFO",):
        return f"{name} {t}, IMM[1].xxxx, SVIEW[0]", target
    if name in ("SAMPLE_POS", "SAMPLE_INFO"):
        return f"{name} {t}, IMM[1].xxxx, SVIEW[0]", target
    if name == "LOD":
        return f"{name} {t}, IN[0], SVIEW[0], SAMP[0]", target
    if name in MEMORY_FIRST:
        rest = ", IN[0]" * (op.nsrc - 1)
        return f"{name} {t}, BUFFER[0]{rest}", target
    if name == "STORE":
        return "STORE BUFFER[0], IN[0], IN[1]", target
    if name == "IMG2HND":
        return f"{name} {t}, IMAGE[0]", target
    if name == "SAMP2HND":
        return f"{name} {t}, SAMP[0]", target
    if name == "FBFETCH":                   # tgsi.rst: "FBFETCH TEMP[0], OUT[0]"
        return f"{name} {t}, OUT[0]", target
    if name == "MEMBAR":
        return "MEMBAR IMM[1].yyyy", target
    if name == "TG4":                       # the component: a constant (textureGather's)
        return f"{name} {t}, IN[0], IMM[1].yyyy, SAMP[0], {target}", target
    if op.tex:
        coords = ["IN[0]", "IN[1]", "IN[0]"][:op.nsrc - 1]
        if name == "TXQ":
            coords = ["IMM[1].xxxx"]
        if name in ("TXF", "TXF_LZ"):
            coords = ["IMM[1]"]
        return f"{name} {t}, {', '.join(coords + ['SAMP[0]'])}, {target}", target
    dsts = [f"TEMP[{k}]" for k in range(op.ndst)]
    srcs = ["IN[0]", "IN[1]", "IN[0]", "IN[1]", "IN[0]"][:op.nsrc]
    if name in ("UARL", "ARL", "ARR"):
        dsts = ["ADDR[0]"]
    return f"{name} {', '.join(dsts + srcs)}".strip(), target


COMP_BARRIER = """COMP
PROPERTY CS_FIXED_BLOCK_WIDTH 4
PROPERTY CS_FIXED_BLOCK_HEIGHT 1
PROPERTY CS_FIXED_BLOCK_DEPTH 1
DCL SV[0], THREAD_ID
DCL BUFFER[0]
DCL MEMORY[0], SHARED
DCL TEMP[0]
IMM[0] UINT32 {2, 0, 0, 0}
  0: SHL TEMP[0].x, SV[0].xxxx, IMM[0].xxxx
  1: STORE MEMORY[0].x, TEMP[0].xxxx, SV[0].xxxx
  2: BARRIER
  3: LOAD TEMP[0].y, MEMORY[0], IMM[0].yyyy
  4: STORE BUFFER[0].x, TEMP[0].xxxx, TEMP[0].yyyy
  5: END
"""


def program(name: str) -> str:
    if name == "BARRIER":                  # a compute opcode (tgsi.rst)
        return COMP_BARRIER
    if name in ("EMIT", "ENDPRIM"):
        return ("GEOM\nPROPERTY GS_INPUT_PRIMITIVE POINTS\nPROPERTY GS_OUTPUT_PRIMITIVE POINTS\n"
                "PROPERTY GS_MAX_OUTPUT_VERTICES 2\nDCL IN[][0], POSITION\nDCL OUT[0], POSITION\n"
                "IMM[0] INT32 {0, 0, 0, 0}\n  0: MOV OUT[0], IN[0][0]\n  1: EMIT IMM[0].xxxx\n"
                "  2: ENDPRIM IMM[0].xxxx\n  3: END\n")
    body, target = _body(name)
    lines = body.splitlines() + ["MOV OUT[0], TEMP[0]", "END"]
    if name in ("CAL", "RET", "BGNSUB", "ENDSUB"):
        lines += SUB.splitlines()
    numbered = "".join(f"{k:3d}: {ln}\n" for k, ln in enumerate(lines))
    return FRAG_HEAD.format(target=target) + numbered


def test_the_committed_names_are_the_specs():
    if not SPEC.is_file():
        pytest.skip(f"{SPEC} is not here (a clone without ../shared): the committed list is used")
    assert spec_names(SPEC.read_text()) == NAMES


def test_every_listed_opcode_is_a_known_mnemonic():
    assert sorted(n for n in NAMES if n not in OPCODES) == []
    assert len(NAMES) == len(set(NAMES)) == 241
    assert NOT_YET_SUPPORTED <= set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_opcode_translates_or_is_refused_by_name(name):
    src = program(name)
    try:
        glsl = api.translate(src, filename=f"{name}.tgsi")          # glslang accepts the GLSL
    except XlateError as e:
        errors = [d for d in e.diagnostics if d.is_error]
        assert errors, name
        if name in DOCUMENTED_REFUSALS:
            code, part = DOCUMENTED_REFUSALS[name]
            assert any(d.code == code and part in d.message for d in errors), \
                [d.header() for d in errors]
            return
        assert name in NOT_YET_SUPPORTED, (
            f"{name} neither translates nor is listed as not yet supported:\n"
            + "\n".join(d.header() for d in errors) + "\n" + src)
        assert [d.header() for d in errors if d.code != "E3008"] == [], src
        assert any(re.match(rf"unsupported opcode {name} \(not yet supported", d.message)
                   for d in errors), [d.header() for d in errors]
        return
    assert name not in NOT_YET_SUPPORTED, f"{name} translates now: take it off NOT_YET_SUPPORTED"
    assert name not in DOCUMENTED_REFUSALS, f"{name} translates now: take it off the refusals"
    assert glsl.glsl
    api.translate_program(glsl.program, target="spirv", profile="vulkan")   # validated
    # the executor runs it, on the inputs and textures xlate verify generates (what matters
    # here is that it runs; the values are checked by the tests of each opcode group)
    prog = glsl.program
    if prog.stage.value == "compute":
        from xlate.exec.compute import execute_compute
        res = execute_compute(prog, (2, 1, 1))
        # LOAD TEMP[0].y reads word 1 (component c is the word at address + 4c), which
        # invocation 1 stored before the BARRIER: every invocation stores 1
        assert not res.steps_exceeded.any() and res.buffers[0][:5].tolist() == [1, 1, 1, 1, 0]
        return
    facts = analyse(prog, set(cmp.INEXACT))
    gen = generate(prog, facts, 8, 1, builtin_values=builtin_values_for(prog.stage, 8, (
        np.arange(8, dtype=np.float32) % 2, np.arange(8, dtype=np.float32) // 4)))
    if facts.uses_textures:
        gen.textures = generate_textures(prog, 1)
    res = run_executor(prog, gen, 8)
    assert res.outputs and not res.steps_exceeded.any()


# ---- declaration forms of the memory files ------------------------------------------------------

#: every image target tgsi.rst's DCL IMAGE takes (the texture targets of "Texture targets"
#: an image can have) and the atomic counter forms ("Hardware Atomic Register File"): each
#: declares, is used by an atomic (an image: LOAD, which every target takes), translates to GLSL
#: that glslang accepts and to both validated SPIR-V modules, and runs in the executor
DECLARATION_FORMS = {
    **{f"IMAGE {t}": (f"DCL IMAGE[0], {t}, PIPE_FORMAT_R32G32B32A32_UINT, WR\n",
                      f"LOAD TEMP[0], IMAGE[0], IMM[0], {t}, PIPE_FORMAT_R32G32B32A32_UINT\n")
       for t in ("BUFFER", "1D", "2D", "3D", "CUBE", "RECT", "1D_ARRAY", "2D_ARRAY", "CUBEARRAY",
                 "2D_MSAA", "2D_ARRAY_MSAA")},
    "HWATOMIC[b][i]": ("DCL HWATOMIC[1][2]\n",
                       "ATOMUADD TEMP[0].x, HWATOMIC[1][2], IMM[0].xxxx, IMM[0].yyyy\n"),
    "HWATOMIC[b][i..j], ARRAY(n)": (
        "DCL HWATOMIC[0][1..3], ARRAY(1)\nDCL ADDR[0]\n",
        "UARL ADDR[0].x, IMM[0].yyyy\n"
        "ATOMUADD TEMP[0].x, HWATOMIC[0][ADDR[0].x+1], IMM[0].xxxx, IMM[0].yyyy\n"),
}


@pytest.mark.parametrize("form", sorted(DECLARATION_FORMS))
def test_declaration_form_translates_and_runs(form):
    from xlate.backends.spirv import validate_spirv
    from xlate.backends.spirv_direct import emit_spirv
    from xlate.exec.compute import execute_compute
    decl, body = DECLARATION_FORMS[form]
    src = ("COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 1\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\n"
           "PROPERTY CS_FIXED_BLOCK_DEPTH 1\n" + decl + "DCL BUFFER[0]\nDCL TEMP[0]\n"
           "IMM[0] UINT32 {0, 1, 0, 1}\n" + body + "STORE BUFFER[0], IMM[0].xxxx, TEMP[0]\nEND\n")
    t = api.translate(src, filename="d.tgsi")                    # glslang-checked
    for profile in ("vulkan", "glsl450"):
        api.translate_program(t.program, target="spirv", profile=profile)
        words = emit_spirv(t.program, profile).spirv
        assert validate_spirv(words, target="vulkan" if profile == "vulkan" else "opengl") \
            is None
    res = execute_compute(t.program, (1, 1, 1))
    assert not res.steps_exceeded.any()
