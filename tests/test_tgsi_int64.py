"""TGSI 64-bit integer opcodes (tgsi.rst "64-bit Integer ISA"; issue 20): exact words from the
executor (expected values from Python integers), the readings chosen (division by zero all bits
set, truncating signed division, the zw shift count from src1.y, clamped conversions), refusals,
and ``xlate verify`` on llvmpipe (GL_ARB_gpu_shader_int64)."""
from __future__ import annotations

import struct

import numpy as np
import pytest

from conftest import gl_runner

from xlate import api, execute
from xlate.diagnostics import XlateError
from xlate.verify.core import verify_source

M64 = (1 << 64) - 1


def words(*vals) -> list[int]:
    out = []
    for v in vals:
        v &= M64
        out += [v & 0xFFFFFFFF, v >> 32]
    return out


def imm64(a: int, b: int) -> tuple[str, str]:
    return ("UINT32", ", ".join(str(w) for w in words(a, b)))


def prog(body: str, imms) -> str:
    head = "FRAG\nDCL OUT[0], COLOR\nDCL TEMP[0..3]\n" + "".join(
        f"IMM[{k}] {t} {{{v}}}\n" for k, (t, v) in enumerate(imms))
    lines = body.strip().splitlines() + ["MOV OUT[0], TEMP[0]", "END"]
    return head + "".join(f"{k:3d}: {ln.strip()}\n" for k, ln in enumerate(lines))


def run(body: str, imms) -> list[int]:
    r = execute(api.parse(prog(body, imms), filename="q.tgsi"), {}, lanes=1)
    return r.float("result.color[0]").view(np.uint32)[0].tolist()


A, B = 0x123456789ABCDEF0, -0x0FEDCBA987654321


def test_arithmetic_wraps_modulo_2_64():
    im = [imm64(A, -1), imm64(B, 5)]
    assert run("U64ADD TEMP[0], IMM[0], IMM[1]", im) == words(A + B, 4)
    assert run("U64MUL TEMP[0], IMM[0], IMM[1]", im) == words(A * B, -5)
    assert run("I64NEG TEMP[0], IMM[1]", im) == words(-B, -5)
    assert run("I64ABS TEMP[0], IMM[1]", im) == words(-B, 5)
    assert run("I64ABS TEMP[0], IMM[0]", [imm64(-(1 << 63), 0)]) == words(1 << 63, 0)
    assert run("I64SSG TEMP[0], IMM[1]", im) == words(-1, 1)


def test_division_readings():
    im = [imm64(-7, 7), imm64(2, -2), imm64(0, -1), imm64(-(1 << 63), 3)]
    assert run("I64DIV TEMP[0], IMM[0], IMM[1]", im) == words(-3, -3)       # toward zero
    assert run("I64MOD TEMP[0], IMM[0], IMM[1]", im) == words(-1, 1)        # dividend's sign
    # by zero: all bits set (as the IR's 32-bit divisions); INT64_MIN / -1 wraps
    assert run("I64DIV TEMP[0], IMM[3], IMM[2]", im)[:2] == words(-1)
    assert run("I64DIV TEMP[0], IMM[3], IMM[2].zwzw", im)[:2] == words(-(1 << 63))
    assert run("I64MOD TEMP[0], IMM[3], IMM[2].zwzw", im)[:2] == words(0)
    assert run("U64DIV TEMP[0], IMM[0], IMM[2]", im) == words(M64, (7 & M64) // M64)
    assert run("U64MOD TEMP[0], IMM[1], IMM[2]", im) == words(M64, (-2 & M64) % M64)


def test_shifts_mask_the_count_and_take_zw_from_src1_y():
    im = [imm64(A, B), ("UINT32", "68, 1, 99, 99")]
    # x count 68 & 63 = 4 for xy; y count 1 for zw (tgsi.rst; tgsi_exec would read z = 99)
    assert run("U64SHL TEMP[0], IMM[0], IMM[1]", im) == words(A << 4, B << 1)
    assert run("U64SHR TEMP[0], IMM[0], IMM[1]", im) == words(A >> 4, (B & M64) >> 1)
    assert run("I64SHR TEMP[0], IMM[0], IMM[1]", im) == words(A >> 4, B >> 1)


def test_compares_min_max():
    t = 0xFFFFFFFF
    im = [imm64(-1, 3), imm64(1, 3)]
    assert run("I64SLT TEMP[0], IMM[0], IMM[1]", im) == [t, 0, 0, 0]
    assert run("U64SLT TEMP[0], IMM[0], IMM[1]", im) == [0, 0, 0, 0]
    assert run("U64SGE TEMP[0], IMM[0], IMM[1]", im) == [t, 0, t, 0]
    assert run("I64SGE TEMP[0], IMM[0], IMM[1]", im) == [0, 0, t, 0]
    assert run("U64SEQ TEMP[0], IMM[0], IMM[1]", im) == [0, 0, t, 0]
    assert run("U64SNE TEMP[0], IMM[0], IMM[1]", im) == [t, 0, 0, 0]
    assert run("I64MIN TEMP[0], IMM[0], IMM[1]", im) == words(-1, 3)
    assert run("U64MIN TEMP[0], IMM[0], IMM[1]", im) == words(1, 3)
    assert run("I64MAX TEMP[0], IMM[0], IMM[1]", im) == words(1, 3)
    assert run("U64MAX TEMP[0], IMM[0], IMM[1]", im) == words(-1, 3)


def test_conversions():
    im = [("FLT32", "-2.75, 1e19, 0.0, 0.0"), ("INT32", "-5, 7, 0, 0"),
          ("FLT64", f"{2.0 ** 62 + 2048.0!r}, -1e30"), ("FLT32", "nan, -1e19, 0.0, 0.0")]
    assert run("F2I64 TEMP[0], IMM[0]", im) == words(-2, (1 << 63) - 1)    # clamped
    assert run("F2U64 TEMP[0], IMM[0]", im) == words(0, int(np.float32(1e19)))
    assert run("F2I64 TEMP[0], IMM[3]", im) == words(0, -(1 << 63))         # NaN 0, clamped
    assert run("I2I64 TEMP[0], IMM[1]", im) == words(-5, 7)
    assert run("U2I64 TEMP[0], IMM[1]", im) == words(0xFFFFFFFB, 7)
    assert run("D2I64 TEMP[0], IMM[2]", im) == words(2 ** 62 + 2048, -(1 << 63))
    assert run("D2U64 TEMP[0], IMM[2]", im) == words(2 ** 62 + 2048, 0)
    # to float: one rounding (2^62 + 2^38 + 1 is just above a halfway point of float32)
    v = (1 << 62) + (1 << 38) + 1
    f = struct.unpack("<I", struct.pack("<f", float(np.float32(2.0 ** 62 + 2.0 ** 39))))[0]
    assert run("U642F TEMP[0], IMM[0]", [imm64(v, 3)]) == [f, 0x40400000, 0, 0]
    assert run("I642F TEMP[0], IMM[0]", [imm64(-3, 3)]) == [0xC0400000, 0x40400000, 0, 0]
    assert run("I642D TEMP[0], IMM[0]", [imm64(-3, 1 << 60)]) == \
        list(struct.unpack("<IIII", struct.pack("<dd", -3.0, 2.0 ** 60)))


def test_modifiers_on_64_bit_operands_are_refused():
    with pytest.raises(XlateError) as e:
        api.parse(prog("U64ADD TEMP[0], -IMM[0], IMM[0]", [imm64(1, 2)]), filename="q.tgsi")
    assert [(d.code, d.message) for d in e.value.diagnostics if d.is_error] == [
        ("E7001", "U64ADD: a source modifier on a 64-bit integer operand is not supported "
                  "(negate with I64NEG, I64ABS)")]


@pytest.mark.parametrize("profile", ["glsl330", "es310"])
def test_profiles_without_int64_refuse(profile):
    with pytest.raises(XlateError) as e:
        api.translate(prog("U64ADD TEMP[0], IMM[0], IMM[0]", [imm64(1, 2)]), filename="q.tgsi",
                      profile=profile)
    assert [(d.code, d.message) for d in e.value.diagnostics if d.is_error] == [
        ("E7001", f"the instruction U64ADD.U cannot be expressed in the {profile} profile")]


def test_glsl_requires_the_extension():
    g = api.translate(prog("U64ADD TEMP[0], IMM[0], IMM[0]", [imm64(1, 2)]), filename="q.tgsi").glsl
    assert g.splitlines()[1] == "#extension GL_ARB_gpu_shader_int64 : require"


VERIFY = {"arith": """FRAG
DCL IN[0], GENERIC[0], PERSPECTIVE
DCL IN[1], GENERIC[1], PERSPECTIVE
DCL OUT[0], COLOR
DCL OUT[1], COLOR[1]
DCL TEMP[0..4]
  0: U64ADD TEMP[0], IN[0], IN[1]
  1: U64MUL TEMP[1], TEMP[0], IN[0]
  2: I64DIV TEMP[2], TEMP[1], IN[1].zwxy
  3: I64MOD TEMP[3], IN[0], TEMP[2]
  4: U64DIV TEMP[4], TEMP[1], IN[1]
  5: U64MOD TEMP[4].zw, TEMP[3], IN[1]
  6: I64SHR TEMP[0], TEMP[4], IN[0].wzyx
  7: U64SHL TEMP[1], TEMP[0], IN[1].yxwz
  8: U64SHR TEMP[1].zw, TEMP[1], IN[1]
  9: I64MIN TEMP[2], TEMP[1], TEMP[3]
 10: U64MAX TEMP[2].zw, TEMP[0], TEMP[4]
 11: I64ABS TEMP[3], TEMP[2]
 12: I64NEG TEMP[3].zw, TEMP[1]
 13: I64SSG TEMP[4], TEMP[3]
 14: U64SLT TEMP[0], TEMP[2], TEMP[3]
 15: I64SGE TEMP[0].yw, TEMP[3], TEMP[1]
 16: U64SEQ TEMP[1], TEMP[4], IN[0]
 17: XOR OUT[0], TEMP[0], TEMP[4]
 18: XOR OUT[1], TEMP[1], TEMP[3]
 19: END
""", "conversions": """FRAG
DCL IN[0], GENERIC[0], PERSPECTIVE
DCL IN[1], GENERIC[1], PERSPECTIVE
DCL OUT[0], COLOR
DCL OUT[1], COLOR[1]
DCL TEMP[0..4]
  0: F2I64 TEMP[0], IN[0]
  1: F2U64 TEMP[1], IN[1].zwxy
  2: U2I64 TEMP[2], IN[0]
  3: I2I64 TEMP[3], IN[1]
  4: U64ADD TEMP[2], TEMP[2], TEMP[0]
  5: U64MUL TEMP[3], TEMP[3], TEMP[1]
  6: I642F TEMP[4].xy, TEMP[2]
  7: U642F TEMP[4].zw, TEMP[3].xyxy
  8: I642D TEMP[0], TEMP[3]
  9: U642D TEMP[1], TEMP[2]
 10: D2I64 TEMP[2], TEMP[0]
 11: D2U64 TEMP[3], IN[0]
 12: F2D TEMP[0], IN[1]
 13: D2I64 TEMP[0], TEMP[0]
 14: XOR OUT[0], TEMP[0], TEMP[1]
 15: XOR OUT[1], TEMP[2], TEMP[3]
 16: MOV OUT[1].xy, TEMP[4]
 17: END
"""}


@pytest.mark.parametrize("backend", ["gl", "gl-spirv", "vulkan"])
@pytest.mark.parametrize("name", sorted(VERIFY))
def test_verify_on_gl(backend, name):
    runner = gl_runner(backend)
    rep = verify_source(VERIFY[name], f"{name}.tgsi", lanes=4096, seed=1, backend=backend,
                        runner=runner)
    assert rep.status == "pass", (rep.reason, [d.describe() for d in rep.differences[:5]])
    if backend != "gl":
        # xlate's own SPIR-V (issue 19: spirv_direct/wide.py), exact against the executor
        assert any("direct SPIR-V path's module" in n for n in rep.notes), rep.notes
    assert rep.compared > 0
