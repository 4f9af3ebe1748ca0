"""TGSI compute programs (COMP) and memory (BUFFER, MEMORY SHARED; LOAD/STORE/BARRIER/MEMBAR):
the frontend's readings and refusals, the executor's dispatch with exact hand-computed values,
the GLSL and reflection, and verification on llvmpipe (issue 20)."""
from __future__ import annotations

import numpy as np
import pytest

from conftest import gl_runner

from xlate import api
from xlate.diagnostics import XlateError
from xlate.ir.model import DataType
from xlate.exec import ExecError, execute
from xlate.exec.compute import execute_compute


def comp(body: str, decls: str = "", size=(4, 1, 1)) -> str:
    return ("COMP\n"
            f"PROPERTY CS_FIXED_BLOCK_WIDTH {size[0]}\n"
            f"PROPERTY CS_FIXED_BLOCK_HEIGHT {size[1]}\n"
            f"PROPERTY CS_FIXED_BLOCK_DEPTH {size[2]}\n"
            "DCL SV[0], THREAD_ID\nDCL SV[1], BLOCK_ID\n" + decls +
            "DCL TEMP[0..3]\n"
            "IMM[0] UINT32 {0, 1, 2, 4}\n" + body + "END\n")


def errors(src: str) -> list[str]:
    with pytest.raises(XlateError) as e:
        api.parse(src, filename="t.tgsi")
    return [d.header() for d in e.value.diagnostics if d.is_error]


# ---- the frontend ------------------------------------------------------------------------------

def test_block_size_and_system_values():
    prog = api.parse(comp("STORE BUFFER[0].x, IMM[0].xxxx, SV[0].xxxx\n", "DCL BUFFER[0]\n",
                          (8, 2, 1)))
    assert prog.stage.value == "compute" and prog.local_size == (8, 2, 1)
    paths = {r.name: r.bindings[0].path for r in prog.registers.values()
             if r.kind.value == "input"}
    assert paths == {"SV0": "invocation.localid"}
    assert [(r.name, r.kind, r.binding) for r in prog.resources.values()] == \
        [("BUFFER0", "buffer", 0)]


def test_a_partly_given_block_size_is_refused():
    src = "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 8\nDCL TEMP[0]\nEND\n"
    assert errors(src) == [
        "t.tgsi:2:10: error[E7001]: CS_FIXED_BLOCK_HEIGHT, CS_FIXED_BLOCK_DEPTH missing or 0 while "
        "the block size is fixed: tgsi.rst wants all three at least 1"]


def test_a_block_size_beyond_gl_is_refused():
    assert errors(comp("", size=(64, 32, 1))) == [
        "t.tgsi:2:10: error[E7001]: block size 64 x 32 x 1 is beyond what GL guarantees "
        "(1024 x 1024 x 64, 1024 invocations)"]


def test_memory_refusals_name_the_case():
    src = comp("LOAD TEMP[0].x, MEMORY[0], IMM[0].xxxx\nLOAD TEMP[1].x, IMAGE[0], IMM[0].xxxx\n"
               "STORE IMAGE[1].xy, IMM[0].xxxx, IMM[0].xxxx\n"
               "STORE IMAGE[1], IMM[0].xxxx, IMM[0].xxxx, 3D\n",
               "DCL MEMORY[0], GLOBAL\nDCL IMAGE[0], 2D, WR\n"
               "DCL IMAGE[1], 2D, PIPE_FORMAT_R8G8B8A8_UNORM, WR\n"
               "DCL IMAGE[2], 2D, PIPE_FORMAT_B5G6R5_UNORM\n")
    assert errors(src) == [
        "t.tgsi:7:5: error[E7001]: DCL MEMORY[0], GLOBAL: global memory is OpenCL's (clover); "
        "GLSL has shared memory only (MEMORY ..., SHARED)",
        "t.tgsi:10:5: error[E7001]: DCL IMAGE[2], PIPE_FORMAT_B5G6R5_UNORM: no GLSL image layout "
        "qualifier names this format (R, RG or RGBA of 8/16/32-bit FLOAT, UNORM, SNORM, UINT, "
        "SINT are translated)",
        "t.tgsi:14:1: error[E7001]: LOAD from IMAGE[0], declared without a format: a read needs "
        "the texel format (GLSL's layout qualifier; formatted loads of an unknown format are "
        "GL_EXT_shader_image_load_formatted)",
        "t.tgsi:15:1: error[E7001]: STORE to IMAGE[1] with the write mask .xy: an image texel is "
        "written whole (imageStore has no mask): the mask must cover the format's channels",
        "t.tgsi:16:1: error[E5002]: STORE names target 3D, IMAGE[1] is declared 2D"]


def test_barrier_and_shared_memory_belong_to_compute():
    src = ("FRAG\nDCL OUT[0], COLOR\nDCL MEMORY[0], SHARED\nDCL TEMP[0]\n"
           "BARRIER\nMOV OUT[0], TEMP[0]\nEND\n")
    assert errors(src) == [
        "t.tgsi:3:5: error[E3004]: DCL MEMORY[0], SHARED: shared memory belongs to compute shaders",
        "t.tgsi:5:1: error[E3004]: BARRIER synchronises the invocations of a compute workgroup: "
        "tgsi.rst allows it in compute programs only, not in FRAG"]


# ---- the executor ------------------------------------------------------------------------------

REDUCTION = comp(
    # each invocation stores (thread + 1) * (block + 1) into shared word `thread`; after the
    # barrier invocation 0 adds the four words up and stores the sum at word `block`
    "UADD TEMP[0].x, SV[0].xxxx, IMM[0].yyyy\n"
    "UADD TEMP[0].y, SV[1].xxxx, IMM[0].yyyy\n"
    "UMUL TEMP[0].x, TEMP[0].xxxx, TEMP[0].yyyy\n"
    "SHL TEMP[1].x, SV[0].xxxx, IMM[0].zzzz\n"
    "STORE MEMORY[0].x, TEMP[1].xxxx, TEMP[0].xxxx\n"
    "BARRIER\n"
    "USEQ TEMP[2].x, SV[0].xxxx, IMM[0].xxxx\n"
    "UIF TEMP[2].xxxx\n"
    "  LOAD TEMP[3], MEMORY[0], IMM[0].xxxx\n"
    "  UADD TEMP[3].x, TEMP[3].xxxx, TEMP[3].yyyy\n"
    "  UADD TEMP[3].x, TEMP[3].xxxx, TEMP[3].zzzz\n"
    "  UADD TEMP[3].x, TEMP[3].xxxx, TEMP[3].wwww\n"
    "  SHL TEMP[1].x, SV[1].xxxx, IMM[0].zzzz\n"
    "  STORE BUFFER[0].x, TEMP[1].xxxx, TEMP[3].xxxx\n"
    "ENDIF\n",
    "DCL BUFFER[0]\nDCL MEMORY[0], SHARED\n")


def test_shared_memory_reduction_with_a_barrier():
    res = execute_compute(api.parse(REDUCTION), (3, 1, 1))
    # block b: (1 + 2 + 3 + 4) * (b + 1) = 10, 20, 30; the rest of the 1024 bytes stays 0
    assert res.buffers[0][:4].tolist() == [10, 20, 30, 0]
    assert not res.steps_exceeded.any() and not res.out_of_range


def test_buffers_persist_and_inputs_are_read():
    prog = api.parse(comp(
        "SHL TEMP[1].x, SV[0].xxxx, IMM[0].zzzz\n"
        "LOAD TEMP[0].xy, BUFFER[0], TEMP[1].xxxx\n"     # words t and t + 1
        "UADD TEMP[0].x, TEMP[0].xxxx, TEMP[0].yyyy\n"
        "STORE BUFFER[1].x, TEMP[1].xxxx, TEMP[0].xxxx\n", "DCL BUFFER[0]\nDCL BUFFER[1]\n"))
    words = np.arange(100, 108, dtype=np.uint32)
    res = execute_compute(prog, (1, 1, 1), buffers={0: words, 1: np.zeros(4, np.uint32)})
    assert res.buffers[1].tolist() == [201, 203, 205, 207]
    assert res.buffers[0].tolist() == words.tolist()


def test_stores_to_one_word_keep_the_last_lane_and_out_of_range_is_zero():
    prog = api.parse(comp(
        "STORE BUFFER[0].x, IMM[0].xxxx, SV[0].xxxx\n"          # all four lanes: word 0
        "LOAD TEMP[0].x, BUFFER[0], IMM[0].wwww\n"               # word 1: 7
        "SHL TEMP[1].x, IMM[0].wwww, IMM[0].wwww\n"              # byte 64: outside 16 bytes
        "LOAD TEMP[0].y, BUFFER[0], TEMP[1].xxxx\n"
        "UADD TEMP[0].x, TEMP[0].xxxx, TEMP[0].yyyy\n"
        "STORE BUFFER[0].x, IMM[0].zzzz, TEMP[0].xxxx\n"         # byte 2 -> word 0 (>> 2)
        "STORE BUFFER[0].x, TEMP[1].xxxx, TEMP[0].xxxx\n", "DCL BUFFER[0]\n"))
    res = execute_compute(prog, (1, 1, 1), buffers={0: np.array([9, 7, 0, 0], np.uint32)})
    assert res.buffers[0].tolist() == [7, 7, 0, 0] and res.out_of_range


def test_a_resource_swizzle_selects_the_words():
    prog = api.parse(comp("LOAD TEMP[0].xy, BUFFER[0].wzyx, IMM[0].xxxx\n"
                          "STORE BUFFER[1].xy, IMM[0].xxxx, TEMP[0]\n",
                          "DCL BUFFER[0]\nDCL BUFFER[1]\n", (1, 1, 1)))
    res = execute_compute(prog, buffers={0: np.array([1, 2, 3, 4], np.uint32),
                                         1: np.zeros(2, np.uint32)})
    assert res.buffers[1].tolist() == [4, 3]


#: lanes 0 and 1 return early from the subroutine, which the executor's smallest-pc-first
#: scheduler places after main: they reach main's BARRIER while lanes 2 and 3 are still in the
#: subroutine, storing.  The BARRIER is in uniform flow (every invocation reaches it), so the
#: early lanes wait there; each lane then reads the next lane's shared word.
EARLY_RETURN_BARRIER = comp(
    "CAL :9\n"
    "BARRIER\n"
    "UADD TEMP[0].x, SV[0].xxxx, IMM[0].yyyy\n"
    "AND TEMP[0].x, TEMP[0].xxxx, IMM[1].zzzz\n"
    "UMUL TEMP[0].x, TEMP[0].xxxx, IMM[0].wwww\n"
    "LOAD TEMP[3].x, MEMORY[0], TEMP[0].xxxx\n"
    "UMUL TEMP[0].x, SV[0].xxxx, IMM[0].wwww\n"
    "STORE BUFFER[0].x, TEMP[0].xxxx, TEMP[3].xxxx\n"
    "END\n"
    "BGNSUB\n"
    "  UMUL TEMP[1].x, SV[0].xxxx, IMM[0].wwww\n"
    "  USLT TEMP[2].x, SV[0].xxxx, IMM[0].zzzz\n"
    "  UIF TEMP[2].xxxx\n"
    "    STORE MEMORY[0].x, TEMP[1].xxxx, SV[0].xxxx\n"
    "    RET\n"
    "  ENDIF\n"
    "  UADD TEMP[3].x, SV[0].xxxx, IMM[1].xxxx\n"
    "  STORE MEMORY[0].x, TEMP[1].xxxx, TEMP[3].xxxx\n"
    "  RET\n"
    "ENDSUB\n",
    "DCL BUFFER[0]\nDCL MEMORY[0], SHARED\n").replace(
    "IMM[0] UINT32 {0, 1, 2, 4}\n", "IMM[0] UINT32 {0, 1, 2, 4}\nIMM[1] UINT32 {100, 0, 3, 0}\n")


def test_lanes_back_early_from_a_subroutine_wait_at_the_barrier():
    res = execute_compute(api.parse(EARLY_RETURN_BARRIER),
                          buffers={0: np.zeros(4, np.uint32)})
    # shared words [0, 1, 102, 103]: lane n reads word (n + 1) mod 4
    assert res.buffers[0].tolist() == [1, 102, 103, 0]


def test_a_barrier_after_an_early_return_verifies_on_gl():
    rep = _verify(EARLY_RETURN_BARRIER, "early.tgsi")
    assert rep.status == "pass", (rep.reason, [d.describe() for d in rep.differences[:3]])


def test_two_barriers_at_once_are_an_error():
    # lanes 0, 1 wait at the first BARRIER, lanes 2, 3 reach the second
    prog = api.parse(comp("USLT TEMP[0].x, SV[0].xxxx, IMM[0].zzzz\nUIF TEMP[0].xxxx\n"
                          "BARRIER\nELSE\nBARRIER\nENDIF\n"))
    with pytest.raises(ExecError, match=r"BARRIER at <input>:11 reached by 2 of the 4 "
                       r"invocations of workgroup \(0, 0, 0\): the others wait at another "
                       r"BARRIER"):
        execute_compute(prog)


def test_a_stored_immediate_and_a_vector_atomic_operand():
    # a uniform operand (an immediate) loads as one row for all lanes: STORE and the atomics
    # broadcast it (generated compute programs crashed here with 8 lanes)
    prog = api.parse(comp("SHL TEMP[0].x, SV[0].xxxx, IMM[0].wwww\n"     # 16 bytes a lane
                          "STORE BUFFER[0].xy, TEMP[0].xxxx, IMM[0].wzyx\n"
                          "ATOMUADD TEMP[1].x, BUFFER[1], IMM[0].xxxx, IMM[0]\n",
                          "DCL BUFFER[0]\nDCL BUFFER[1]\n", (8, 1, 1)))
    res = execute_compute(prog, buffers={0: np.zeros(32, np.uint32),
                                         1: np.zeros(1, np.uint32)})
    assert res.buffers[0].tolist() == [4, 2, 0, 0] * 8
    assert res.buffers[1].tolist() == [0]       # eight adds of IMM[0].x = 0


def test_a_barrier_under_divergent_flow_is_an_error():
    prog = api.parse(comp("USEQ TEMP[0].x, SV[0].xxxx, IMM[0].xxxx\nUIF TEMP[0].xxxx\n"
                          "BARRIER\nENDIF\n"))
    with pytest.raises(ExecError, match=r"BARRIER at <input>:11 reached by 1 of the 4 "
                       r"invocations of workgroup \(0, 0, 0\)"):
        execute_compute(prog)


def test_system_values_of_a_3d_dispatch():
    prog = api.parse(
        "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 1\nPROPERTY CS_FIXED_BLOCK_HEIGHT 2\n"
        "PROPERTY CS_FIXED_BLOCK_DEPTH 1\nDCL SV[0], THREAD_ID\nDCL SV[1], BLOCK_ID\n"
        "DCL SV[2], GRID_SIZE\nDCL SV[3], BLOCK_SIZE\nDCL BUFFER[0]\nDCL TEMP[0..2]\n"
        "IMM[0] UINT32 {2, 10, 100, 0}\n"
        "UMAD TEMP[0].x, SV[1].yyyy, IMM[0].xxxx, SV[1].xxxx\n"   # group x + 2 * group y
        "UMAD TEMP[0].x, TEMP[0].xxxx, IMM[0].xxxx, SV[0].yyyy\n"  # * 2 + thread y
        "SHL TEMP[1].x, TEMP[0].xxxx, IMM[0].xxxx\n"
        "UMAD TEMP[2].x, SV[2].yyyy, IMM[0].yyyy, SV[0].yyyy\n"    # grid y * 10 + thread y
        "UMAD TEMP[2].x, SV[3].yyyy, IMM[0].zzzz, TEMP[2].xxxx\n"  # + block y * 100
        "UMAD TEMP[2].x, SV[2].wwww, IMM[0].zzzz, TEMP[2].xxxx\n"  # + w (0) * 100
        "STORE BUFFER[0].x, TEMP[1].xxxx, TEMP[2].xxxx\nEND\n")
    res = execute_compute(prog, (2, 3, 1))
    assert res.buffers[0][:13].tolist() == [230, 231] * 6 + [0]


def test_buffers_in_a_fragment_program():
    prog = api.parse("FRAG\nDCL IN[0], GENERIC[0], CONSTANT\nDCL OUT[0], COLOR\nDCL BUFFER[0]\n"
                     "DCL TEMP[0]\nIMM[0] UINT32 {0, 0, 0, 0}\n"
                     "F2U TEMP[0].x, IN[0].xxxx\nLOAD TEMP[0].x, BUFFER[0], TEMP[0].xxxx\n"
                     "STORE BUFFER[0].x, IMM[0].xxxx, TEMP[0].xxxx\n"
                     "U2F OUT[0], TEMP[0].xxxx\nEND\n")
    res = execute(prog, {"fragment.generic[0]": np.array([[0, 0, 0, 0], [4, 0, 0, 0]],
                                                          np.float32)},
                  buffers={0: np.array([5, 6], np.uint32)})
    assert res.float("result.color")[:, 0].tolist() == [5.0, 6.0]
    assert res.buffers[0].tolist() == [6, 6]        # lane 1 stores last


IMAGES = comp(
    # texel (t, 0) of the R8_UINT image 0 plus 300 goes to texel (t, g) of the RGBA8 image 1,
    # as (texel / 255, 0.5, -1 -> 0, 2 -> 1); RESQ of image 1 to the buffer
    "MOV TEMP[0].x, SV[0].xxxx\nMOV TEMP[0].y, IMM[0].xxxx\n"
    "LOAD TEMP[1].x, IMAGE[0], TEMP[0], 2D, PIPE_FORMAT_R8_UINT\n"
    "UADD TEMP[1].x, TEMP[1].xxxx, IMM[1].xxxx\n"
    "STORE IMAGE[2].x, TEMP[0], TEMP[1], 2D, PIPE_FORMAT_R8_UINT\n"
    "U2F TEMP[2].x, TEMP[1].xxxx\nDIV TEMP[2].x, TEMP[2].xxxx, IMM[2].xxxx\n"
    "MOV TEMP[2].yzw, IMM[2].yyzw\nMOV TEMP[0].y, SV[1].xxxx\n"
    "STORE IMAGE[1], TEMP[0], TEMP[2], 2D, PIPE_FORMAT_R8G8B8A8_UNORM\n"
    "RESQ TEMP[3], IMAGE[1]\nSTORE BUFFER[0].xy, IMM[0].xxxx, TEMP[3]\n",
    "DCL IMAGE[0], 2D, PIPE_FORMAT_R8_UINT\nDCL IMAGE[1], 2D, PIPE_FORMAT_R8G8B8A8_UNORM, WR\n"
    "DCL IMAGE[2], 2D, PIPE_FORMAT_R8_UINT, WR\nDCL BUFFER[0]\n").replace(
    "IMM[0] UINT32 {0, 1, 2, 4}\n",
    "IMM[0] UINT32 {0, 1, 2, 4}\nIMM[1] UINT32 {300, 0, 0, 0}\n"
    "IMM[2] FLT32 {255.0, 0.5, -1.0, 2.0}\n")


def test_reflection_of_images():
    r = api.translate(IMAGES, filename="i.tgsi", target="spirv", profile="vulkan").reflection
    assert r["images"] == [
        {"resource": "IMAGE[0]", "name": "xl_image0", "target": "2D", "format": "R8_UINT",
         "access": "read", "binding": 96, "set": 0},
        {"resource": "IMAGE[1]", "name": "xl_image1", "target": "2D",
         "format": "R8G8B8A8_UNORM", "access": "write", "binding": 97, "set": 0},
        {"resource": "IMAGE[2]", "name": "xl_image2", "target": "2D", "format": "R8_UINT",
         "access": "write", "binding": 98, "set": 0}]
    assert r["storage_buffers"] == [{"resource": "BUFFER[0]", "name": "xl_storage0",
                                     "block": "XlateStorage0", "binding": 64, "set": 0}]


def test_image_loads_stores_and_size_with_format_conversions():
    src = np.zeros((1, 16, 16, 4), np.uint32)
    src[0, 0, :4, 0] = [0, 10, 200, 255]
    res = execute_compute(api.parse(IMAGES), (2, 1, 1), images={0: src})
    r8 = res.images[2][0, 0, :4]
    # R8_UINT clamps (300 -> 255: GL leaves it undefined, llvmpipe clamps -- the GL test below
    # checks it); missing channels read (0, 0, 1)
    assert r8.tolist() == [[255, 0, 0, 1]] * 4
    rgba = res.images[1][0, :2, :4].view(np.float32)
    # RGBA8 UNORM: clamps and rounds to k / 255 (300 / 255 -> 1, 0.5 -> 128 / 255)
    want = [[1.0, np.float32(128) / np.float32(255), 0.0, 1.0],
            [np.float32(254) / np.float32(255), np.float32(128) / np.float32(255), 0.0, 1.0]]
    assert rgba[0, 0].tolist() == want[0] and rgba[1, 3].tolist() == want[0]
    assert rgba[0, 1].tolist() == [1.0, want[0][1], 0.0, 1.0]
    assert res.buffers[0][:3].tolist() == [16, 16, 0]


# ---- atomics -------------------------------------------------------------------------------------

ATOMICS = comp(
    # shared word 0 is set to 100 by invocation 0 (then a barrier); each invocation exchanges
    # its id into it, and increments buffer word 0 with tgsi.rst's INC_WRAP at 5; the values
    # returned go to buffer words 16 + 2 * (block * 4 + thread) and the next one, the block
    # numbered across a grid two wide (x + 2 y: verify's 2 x 2 grid; with the x alone, the
    # two rows of workgroups stored to the same words -- a race the executor's race check
    # names, and lavapipe's order made verify flaky on it)
    "USEQ TEMP[3].x, SV[0].xxxx, IMM[0].xxxx\nUIF TEMP[3].xxxx\n"
    "  STORE MEMORY[0].x, IMM[0].xxxx, IMM[1].zzzz\nENDIF\nBARRIER\n"
    "ATOMXCHG TEMP[0].x, MEMORY[0], IMM[0].xxxx, SV[0].xxxx\n"
    "ATOMINC_WRAP TEMP[0].y, BUFFER[0], IMM[0].xxxx, IMM[1].yyyy\n"
    "UMAD TEMP[2].x, SV[1].yyyy, IMM[0].zzzz, SV[1].xxxx\n"
    "UMAD TEMP[2].x, TEMP[2].xxxx, IMM[0].wwww, SV[0].xxxx\n"
    "SHL TEMP[2].x, TEMP[2].xxxx, IMM[1].wwww\nUADD TEMP[2].x, TEMP[2].xxxx, IMM[1].xxxx\n"
    "STORE BUFFER[0].xy, TEMP[2].xxxx, TEMP[0]\n",
    "DCL BUFFER[0]\nDCL MEMORY[0], SHARED\n").replace(
    "IMM[0] UINT32 {0, 1, 2, 4}\n", "IMM[0] UINT32 {0, 1, 2, 4}\nIMM[1] UINT32 {64, 5, 100, 3}\n")


def test_atomics_in_lane_order():
    res = execute_compute(api.parse(ATOMICS), (2, 1, 1))
    words = res.buffers[0]
    # INC_WRAP as tgsi.rst writes it: returns old + 1 and stores it while <= 5, else 0:
    # 0 -> 1, 1 -> 2, ..., 5 -> 6 stored as 0, then 0 -> 1, 1 -> 2: word 0 ends at 2
    assert words[0] == 2
    pairs = words[16:32].reshape(8, 2).tolist()
    # XCHG in lane order within each workgroup: 100, then each predecessor's id
    assert [p[0] for p in pairs] == [100, 0, 1, 2, 100, 0, 1, 2]
    assert [p[1] for p in pairs] == [1, 2, 3, 4, 5, 6, 1, 2]
    assert [a[:4] for a in res.atomics[:2]] == [(0, 0, "MEMORY0", 0), (1, 0, "MEMORY0", 0)]


def test_every_atomic_opcode_against_its_rule():
    from xlate.exec.atomics import RULES
    ops = {"ATOMUADD": (7, 5, 12), "ATOMXCHG": (7, 5, 5), "ATOMAND": (6, 3, 2),
           "ATOMOR": (6, 3, 7), "ATOMXOR": (6, 3, 5), "ATOMUMIN": (7, 0xFFFFFFFF, 7),
           "ATOMUMAX": (7, 0xFFFFFFFF, 0xFFFFFFFF), "ATOMIMIN": (7, 0xFFFFFFFF, 0xFFFFFFFF),
           "ATOMIMAX": (7, 0xFFFFFFFF, 7), "ATOMINC_WRAP": (7, 7, 0),
           "ATOMDEC_WRAP": (7, 9, 6)}
    for tgsi, (before, operand, after) in ops.items():
        prog = api.parse(comp(f"{tgsi} TEMP[0].x, BUFFER[0], IMM[0].xxxx, IMM[1].xxxx\n"
                              "STORE BUFFER[0].y, IMM[0].xxxx, TEMP[0].xxxx\n",
                              "DCL BUFFER[0]\n", (1, 1, 1)).replace(
            "IMM[0] UINT32 {0, 1, 2, 4}\n",
            f"IMM[0] UINT32 {{0, 1, 2, 4}}\nIMM[1] UINT32 {{{operand}, 0, 0, 0}}\n"))
        res = execute_compute(prog, buffers={0: np.array([before, 0], np.uint32)})
        returned = before + 1 if tgsi == "ATOMINC_WRAP" else before
        assert res.buffers[0].tolist() == [after, returned], tgsi
    # CAS and the float add (the same rules the verifier's order search uses)
    assert RULES["ATOMCAS"](3, 3, 9) == (3, 9) and RULES["ATOMCAS"](4, 3, 9) == (4, 4)
    one, half = 0x3F800000, 0x3F000000
    assert RULES["ATOMFADD"](one, half, 0) == (one, 0x3FC00000)


def test_the_order_search():
    from xlate.exec.atomics import find_order
    adds = [("ATOMADD", 1, 0, r) for r in (2, 0, 1)]
    assert find_order(0, adds) == ([1, 2, 0], 3, 0)
    assert find_order(0, [("ATOMADD", 1, 0, r) for r in (0, 0, 1)]) is None
    # exchanges: the returned values chain from the initial word through each operand
    xchg = [("ATOMXCHG", 1, 0, 9), ("ATOMXCHG", 2, 0, 3), ("ATOMXCHG", 3, 0, 1)]
    assert find_order(9, xchg) == ([0, 2, 1], 2, 0)
    # many identical operations are one choice per state (AND of 0 returns 0 after the first)
    ands = [("ATOMAND", 0, 0, 5)] + [("ATOMAND", 0, 0, 0)] * 500
    assert find_order(5, ands)[1] == 0


#: an image word's float adds as llvmpipe returned them (generated TGSI compute seed 1402,
#: inputs seed 1400): 0.5 added to a denormal, then NaNs; the NaN added first stays in the word
#: (the executor's numpy sum of two NaNs takes the operand's)
NAN_ADDS = [("ATOMFADD", 0x3F000000, 0, 0x28), ("ATOMFADD", 0xFFFFFFCA, 0, 0xFFFFFFEB),
            ("ATOMFADD", 0xFFFFFFD2, 0, 0xFFFFFFEB), ("ATOMFADD", 0xFFFFFFEB, 0, 0x3F000000),
            ("ATOMFADD", 0xFFFFFFF5, 0, 0xFFFFFFEB)]


def test_a_float_add_may_leave_either_nan():
    from xlate.exec.atomics import find_order
    from xlate.verify.gl_compute import float_add_words
    assert find_order(0x28, NAN_ADDS) is None            # the executor's NaN alone
    order, word, freed = find_order(0x28, NAN_ADDS, stored=float_add_words)
    # 0.5 first, then the NaN the others returned; the two adds after it kept the word's NaN
    # (the last add's NaN is left open: final words compare NaN to any NaN)
    assert (order, word, freed) == ([0, 3, 1, 2, 4], 0xFFFFFFF5, 2)
    # a NaN that is neither operand's (nor the default NaN) is returned by no order
    other = NAN_ADDS[:1] + [(op, a, b, 0xFFFFFF00 if r == 0xFFFFFFEB else r)
                            for op, a, b, r in NAN_ADDS[1:]]
    assert find_order(0x28, other, stored=float_add_words) is None


def test_a_float_add_may_flush_its_denormals():
    from xlate.exec.atomics import find_order
    from xlate.verify.gl_compute import float_add_words
    # 2^-149 + 2^-149: IEEE 2^-148 (0x2); flushed, zero; the second add returned what was left
    flushed = [("ATOMFADD", 0x1, 0, 0x1), ("ATOMFADD", 0x3F800000, 0, 0x0)]
    assert find_order(0x1, flushed) is None
    assert find_order(0x1, flushed, stored=float_add_words) == ([0, 1], 0x3F800000, 1)
    # a zero is no freedom where nothing is a denormal
    normal = [("ATOMFADD", 0x3F800000, 0, 0x3F800000), ("ATOMFADD", 0x3F800000, 0, 0x0)]
    assert find_order(0x3F800000, normal, stored=float_add_words) is None
    # only float adds have these freedoms
    assert float_add_words("ATOMADD", 0x1, 0x1, 0, 0x2) == (0x2,)


# ---- GLSL and reflection -----------------------------------------------------------------------

def test_glsl_and_reflection_of_a_compute_program():
    t = api.translate(REDUCTION, filename="r.tgsi")
    assert "layout(local_size_x = 4, local_size_y = 1, local_size_z = 1) in;" in t.glsl
    assert "layout(std430, binding = 0) buffer XlateStorage0 { uint words[]; } xl_storage0;" \
        in t.glsl
    assert "shared uint xl_shared0[8192];" in t.glsl
    assert "    memoryBarrierShared();\n    barrier();\n" in t.glsl
    r = t.reflection
    assert r["stage"] == "compute" and r["compute"] == {"local_size": [4, 1, 1]}
    assert r["storage_buffers"] == [{"resource": "BUFFER[0]", "name": "xl_storage0",
                                     "block": "XlateStorage0", "binding": 0}]
    assert r["shared_memory"] == [{"resource": "MEMORY[0]", "name": "xl_shared0",
                                   "bytes": 32768}]
    assert [i["name"] for i in r["inputs"]] == ["gl_LocalInvocationID", "gl_WorkGroupID"]
    v = api.translate(REDUCTION, filename="r.tgsi", target="spirv", profile="vulkan")
    assert v.reflection["storage_buffers"][0]["binding"] == 64 and v.spirv
    assert v.spirv_via == "direct"


def test_direct_spirv_of_compute_and_memory():
    # both environments, validated by spirv-val (the API's check); images and atomics too
    # (tests/test_spirv_direct_memory.py has their details)
    from xlate.backends.spirv import disassemble_spirv as disassemble, validate_spirv
    for profile in ("vulkan", "glsl450"):
        t = api.translate(REDUCTION, filename="r.tgsi", target="spirv", profile=profile,
                          via="direct")
        text = disassemble(t.spirv)
        assert validate_spirv(t.spirv, target="vulkan" if profile == "vulkan" else "opengl") \
            is None
        assert "OpEntryPoint GLCompute" in text and " LocalSize 4 1 1" in text
        assert "OpControlBarrier" in text and "OpMemoryBarrier" in text and "BufferBlock" in text
        assert "Workgroup" in text           # the shared array's storage class
    for src in (IMAGES, ATOMICS, IMAGE_ATOMICS):
        t = api.translate(src, filename="i.tgsi", target="spirv", profile="vulkan")
        assert t.spirv_via == "direct" and t.spirv_fallback_reason is None
        assert "OpAtomic" in disassemble(t.spirv) or "OpImageWrite" in disassemble(t.spirv)


def test_glsl330_refuses_compute():
    with pytest.raises(XlateError) as e:
        api.translate(REDUCTION, filename="r.tgsi", profile="glsl330")
    assert [d.message for d in e.value.diagnostics] == [
        "compute shaders (GLSL 4.30 / ES 3.10; glsl330 has neither) cannot be expressed in the "
        "glsl330 profile"]


def test_membar_fences():
    t = api.translate(comp("MEMBAR IMM[0].wwww\nMEMBAR IMM[0].yyyy\n"))
    assert "    memoryBarrierImage();\n    memoryBarrierBuffer();\n" in t.glsl


def test_membar_of_atomic_counters_in_the_vulkan_profile_is_a_buffer_fence():
    # bit 2 (atomic buffers): memoryBarrierAtomicCounter() is not Vulkan GLSL -- glslang
    # rejected the module; with bit 1 the buffer fence is written once
    src = comp("MEMBAR IMM[0].zzzz\nMEMBAR IMM[1].xxxx\n").replace(
        "IMM[0] UINT32 {0, 1, 2, 4}\n", "IMM[0] UINT32 {0, 1, 2, 4}\nIMM[1] UINT32 {3, 0, 0, 0}\n")
    assert "memoryBarrierAtomicCounter();" in api.translate(src).glsl
    t = api.translate(src, profile="vulkan", target="spirv", via="glsl")
    assert "memoryBarrierAtomicCounter" not in t.glsl and t.spirv
    body = t.glsl[t.glsl.index("void xl_main()"):]
    assert body.count("memoryBarrierBuffer();") == 2


# ---- verification on llvmpipe ------------------------------------------------------------------

def _verify(text: str, name: str = "c.tgsi"):
    from xlate.verify.core import verify_source
    runner = gl_runner("gl")
    return verify_source(text, name, runner=runner)


def test_images_verify_on_gl():
    rep = _verify(IMAGES, "images.tgsi")
    assert rep.status == "pass", (rep.reason, [d.describe() for d in rep.differences[:3]])


def test_atomics_verify_on_gl():
    rep = _verify(ATOMICS, "atomics.tgsi")
    assert rep.status == "pass", (rep.reason, [d.describe() for d in rep.differences[:3]])
    assert any(n.startswith("atomics: ") for n in rep.notes)


IMAGE_ATOMICS = comp(
    "MOV TEMP[1], IMM[0].xxxx\n"
    "ATOMUADD TEMP[0].x, IMAGE[0], TEMP[1], SV[0].xxxx, 2D, PIPE_FORMAT_R32_UINT\n"
    "ATOMIMIN TEMP[0].y, IMAGE[1], IMM[0].yyyy, SV[0].xxxx, 2D_ARRAY, PIPE_FORMAT_R32_SINT\n"
    "ATOMCAS TEMP[0].z, IMAGE[0], IMM[0].yxxx, IMM[0].xxxx, SV[0].xxxx, 2D, PIPE_FORMAT_R32_UINT\n"
    # each invocation of the 2x2 grid stores its own texel, in the rows below the atomics'
    # (a texel two workgroups stored to would hold whichever came last: a race)
    "UMAD TEMP[1].x, SV[1].xxxx, IMM[0].wwww, SV[0].xxxx\n"
    "UADD TEMP[1].y, SV[1].yyyy, IMM[0].yyyy\n"
    "STORE IMAGE[0], TEMP[1], TEMP[0], 2D, PIPE_FORMAT_R32_UINT\n",
    "DCL IMAGE[0], 2D, PIPE_FORMAT_R32_UINT, WR\n"
    "DCL IMAGE[1], 2D_ARRAY, PIPE_FORMAT_R32_SINT, WR\n")


def test_image_atomics_translate_and_verify_on_gl():
    t = api.translate(IMAGE_ATOMICS, filename="ia.tgsi", profile="es310")
    assert "#extension GL_OES_shader_image_atomic : require" in t.glsl
    assert "layout(binding = 0, r32ui) uniform highp uimage2D xl_image0;" in t.glsl
    rep = _verify(IMAGE_ATOMICS, "ia.tgsi")
    assert rep.status == "pass", (rep.reason, [d.describe() for d in rep.differences[:3]])


def test_a_wrong_atomic_is_a_mismatch(monkeypatch):
    # the exchange translated as an add: no order of the shared word's atomics returns what
    # the implementation returned, and the log shows the other operation
    import xlate.backends.glsl.memory as mem
    monkeypatch.setitem(mem._NATIVE_ATOMICS, "ATOMXCHG", "Add")
    rep = _verify(ATOMICS, "atomics.tgsi")
    assert rep.status == "mismatch"
    assert all(d.kind == "atomic" or d.kind == "memory" for d in rep.differences)
    assert any("no order of its 4 atomics returns what the implementation returned" in
               d.describe() for d in rep.differences)


def test_reading_shared_memory_before_writing_it_is_not_compared():
    rep = _verify(comp("LOAD TEMP[0].x, MEMORY[0], IMM[0].xxxx\n"
                       "STORE BUFFER[0].x, IMM[0].xxxx, TEMP[0].xxxx\n",
                       "DCL BUFFER[0]\nDCL MEMORY[0], SHARED\n"))
    assert (rep.status, rep.reason) == ("unsupported", "the program reads shared memory its "
                                        "workgroup has not written: GLSL leaves its contents "
                                        "undefined (the executor reads 0)")


def test_reduction_verifies_on_gl_through_the_direct_spirv():
    from xlate.verify.core import verify_source
    rep = verify_source(REDUCTION, "r.tgsi", backend="gl-spirv",
                        runner=gl_runner("gl-spirv"))
    assert rep.status == "pass" and "the direct SPIR-V path's module ran" in rep.notes


def test_reduction_verifies_on_gl():
    rep = _verify(REDUCTION)
    assert (rep.status, rep.compared, rep.total_differences) == ("pass", 256, 0), rep.reason


def test_a_store_to_a_wrong_offset_is_a_mismatch(monkeypatch):
    import dataclasses
    from xlate.backends import glsl as glsl_mod
    real = glsl_mod.emit_glsl

    def wrong(prog, profile="glsl450", **kw):
        out = real(prog, profile, **kw)
        bad = out.source.replace("xl_store_BUFFER0((TEMP1.x >> 2u),",
                                 "xl_store_BUFFER0((TEMP1.x >> 2u) + 1u,")
        assert bad != out.source
        return dataclasses.replace(out, source=bad)
    monkeypatch.setattr(glsl_mod, "emit_glsl", wrong)
    rep = _verify(REDUCTION)
    assert rep.status == "mismatch"
    # blocks (x, y) = (0, 0), (1, 0), (0, 1), (1, 1) store 10, 20, 10, 20 at word x; the
    # translation at x + 1: word 0 keeps its generated value, words 1 and 2 get 10 and 20
    d = rep.differences
    assert [(x.lane, x.expected) for x in d[:2]] == [(0, 10), (1, 20)]
    assert [x.got for x in d[1:3]] == [10, 20] and d[2].lane == 2 and rep.total_differences == 3
    assert d[1].describe() == ("BUFFER[0] word 1 (byte 4): executor 20 = 2.802596928649634e-44 "
                               "(0x00000014), implementation 10 = 1.401298464324817e-44 "
                               "(0x0000000a)")


def test_a_normalized_channel_has_no_negative_zero():
    # a value rounding to 0 in an SNORM/UNORM channel reads back +0.0 (np.rint(-0.4) = -0.0
    # was kept: an R8G8B8A8_SNORM image copy was a mismatch on llvmpipe)
    from xlate.exec.images import store_words
    from xlate.ir.image_formats import image_format
    words = np.array([[-0.001, -0.0, 0.5, -1.0]], np.float32).view(np.uint32)
    got = store_words(image_format("R8G8B8A8_SNORM"), words).view(np.float32)[0].tolist()
    assert got == [0.0, 0.0, float(np.float32(64 / 127)), -1.0]
    assert store_words(image_format("R8G8B8A8_SNORM"), words)[0, :2].tolist() == [0, 0]
    assert store_words(image_format("R8G8B8A8_UNORM"), words)[0, :2].tolist() == [0, 0]


def test_a_rectangle_image_is_a_2d_image_in_vulkan():
    # Vulkan 1.0 has no ImageRect capability: glslang's module for image2DRect failed
    # validation (E7003); the same integer texel coordinates address a 2D image
    src = comp("STORE IMAGE[0], SV[0], SV[0].xxxx, RECT, PIPE_FORMAT_R32_UINT\n",
               "DCL IMAGE[0], RECT, PIPE_FORMAT_R32_UINT, WR\n")
    t = api.translate(src, filename="rect.tgsi", target="spirv", profile="vulkan", via="glsl")
    assert "uniform writeonly uimage2D xl_image0;" in t.glsl and t.spirv
    assert "uimage2DRect" in api.translate(src, filename="rect.tgsi", profile="glsl450").glsl


# ---- parameters that keep a bounded program inside its bounds ---------------------------------

# the shape of Mesa's vl_compositor_cs: only the invocations whose global id lies in
# [CONST[0].xy, CONST[0].zw) write, scaled by the float CONST[1].x
BOUNDED = """COMP
PROPERTY CS_FIXED_BLOCK_WIDTH 8
PROPERTY CS_FIXED_BLOCK_HEIGHT 8
PROPERTY CS_FIXED_BLOCK_DEPTH 1
DCL SV[0], THREAD_ID
DCL SV[1], BLOCK_ID
DCL CONST[0..1]
DCL BUFFER[0]
DCL TEMP[0..3]
IMM[0] UINT32 {8, 8, 16, 4}
UMAD TEMP[0].xy, SV[1].xyyy, IMM[0].xyyy, SV[0].xyyy
USGE TEMP[1].xy, TEMP[0].xyxy, CONST[0].xyxy
USLT TEMP[1].zw, TEMP[0].xyxy, CONST[0].zwzw
AND TEMP[1].x, TEMP[1].xxxx, TEMP[1].yyyy
AND TEMP[1].x, TEMP[1].xxxx, TEMP[1].zzzz
AND TEMP[1].x, TEMP[1].xxxx, TEMP[1].wwww
UIF TEMP[1].xxxx
  U2F TEMP[2].x, TEMP[0].xxxx
  MUL TEMP[2].x, TEMP[2].xxxx, CONST[1].xxxx
  UMAD TEMP[3].x, TEMP[0].yyyy, IMM[0].zzzz, TEMP[0].xxxx
  UMUL TEMP[3].x, TEMP[3].xxxx, IMM[0].wwww
  STORE BUFFER[0].x, TEMP[3].xxxx, TEMP[2].xxxx
ENDIF
END
"""


def test_small_parameters_follow_how_each_element_is_read():
    """gl_compute.small_parameters: CONST[0] is read only as unsigned bounds, CONST[1].x only as
    a float factor -- element by element, though both are one declared array.  (Each word
    either kind at random put a float's word, about 10^9, in a lower bound: Mesa's
    vl_compositor_cs-1..9 wrote nothing under all 16 input sets and were skipped.)"""
    from xlate.verify import compare as cmp
    from xlate.verify.analysis import analyse
    from xlate.verify.gl_compute import small_parameters
    from xlate.verify.inputs import generate
    prog = api.parse(BOUNDED, filename="bounded.tgsi")
    facts = analyse(prog, set(cmp.INEXACT))
    for seed in range(1, 40, 2):
        gen = generate(prog, facts, 1, seed)
        bounds = gen.param_types["program.local[0]"]
        assert [sorted(t.value for t in ts) for ts in bounds] == [["U"]] * 4
        assert gen.param_types["program.local[1]"][0] == {DataType.FLOAT}
        assert gen.param_types["program.local[1]"][1] == frozenset()       # not read
        small_parameters(gen, seed)
        assert (gen.params["program.local[0]"] < 16).all()
        factor = gen.params["program.local[1]"][:1].view(np.float32)[0]
        assert 0.25 <= factor <= 8.0 and factor * 4 == int(factor * 4)


@pytest.mark.gl
def test_a_bounded_program_is_compared_not_skipped():
    """Seed 10: the general sets and the small sets drawn either kind per word put no
    invocation inside the bounds in 16 tries (the program was skipped as writing nothing); the
    small sets that follow how each element is read, and 32 tries, find one."""
    from xlate.verify.core import verify_source
    rep = verify_source(BOUNDED, "bounded.tgsi", runner=gl_runner("gl"), seed=10)
    assert rep.status == "pass", (rep.status, rep.reason)
    assert any(n.startswith("inputs of seed ") for n in rep.notes)
