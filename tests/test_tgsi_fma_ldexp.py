"""TGSI FMA, LDEXP, DDX_FINE and DDY_FINE (issue 20): FMA rounds once (tgsi.rst "no intermediate
rounding step"), where GLSL's fma() may round twice -- llvmpipe's does -- so the GLSL goes
through doubles with the executor's correction of double rounding; LDEXP scales exactly.  Exact
executor words for the edge cases, ``xlate verify`` on llvmpipe (gl, gl-spirv), and E7001 in the
profiles that cannot say them."""
from __future__ import annotations

import struct

import numpy as np
import pytest

from conftest import gl_runner

from xlate import api, execute
from xlate.diagnostics import XlateError
from xlate.verify.core import verify_source


def f32(w: int) -> float:
    return struct.unpack("<f", struct.pack("<I", w))[0]


def words(v) -> np.ndarray:
    return np.asarray(v, np.float32).view(np.uint32)


A = 1 + 2.0 ** -12           # A * A = 1 + 2^-11 + 2^-24: halfway between two floats
ROUNDS = """FRAG
DCL IN[0], GENERIC[0], CONSTANT
DCL IN[1], GENERIC[1], CONSTANT
DCL IN[2], GENERIC[2], CONSTANT
DCL OUT[0], COLOR
DCL OUT[1], COLOR[1]
DCL OUT[2], COLOR[2]
DCL OUT[3], COLOR[3]
DCL TEMP[0..2]
IMM[0] FLT32 {0x39800800, 0x15800000, 0x95800000, 0xbf801000}
IMM[1] UINT32 {255, 0, 0, 0}
IMM[2] INT32 {-150, 0, 0, 0}
IMM[3] FLT32 {0x3f800800, 0x3f800800, 0x3f800800, 0x3f800800}
  0: FMA OUT[0], IN[0], IN[1], IN[2]
  1: AND TEMP[0], IN[2], IMM[1].xxxx
  2: UADD TEMP[0], TEMP[0], IMM[2].xxxx
  3: LDEXP OUT[1], IN[0], TEMP[0]
  4: DDX_FINE TEMP[1], IN[0]
  5: DDY_FINE TEMP[2], IN[1]
  6: ADD OUT[2], TEMP[1], TEMP[2]
  7: FMA OUT[3], IMM[3], IMM[3], IMM[0].yzwx
  8: END
"""


def run_one(op: str, *cols):
    decls = "".join(f"DCL IN[{k}], GENERIC[{k}], CONSTANT\n" for k in range(len(cols)))
    srcs = ", ".join(f"IN[{k}]" for k in range(len(cols)))
    src = (f"FRAG\n{decls}DCL OUT[0], COLOR\n  0: {op} OUT[0], {srcs}\n  1: END\n")
    inputs = {f"fragment.generic[{k}]": np.repeat(np.asarray(c)[:, None], 4, axis=1)
              for k, c in enumerate(cols)}
    r = execute(api.parse(src), inputs)
    return r.words("result.color[0]")[:, 0]


def test_fma_rounds_once():
    big = f32(0x7f7fffff)
    a = np.float32([A, A, A, 2.0, big])
    b = np.float32([A, A, A, 3.0, 2.0])
    c = np.float32([2.0 ** -80, -(2.0 ** -80), -(1 + 2.0 ** -11), 0.5, -big])
    got = run_one("FMA", a, b, c)
    assert got.tolist() == [
        0x3f801001,                  # halfway + a tiny addend: up (float64 then float32: down)
        0x3f801000,                  # halfway - a tiny addend: down
        0x33800000,                  # 2^-24: the residue a*b+c keeps (a*b rounded first: 0)
        0x40d00000,                  # 6.5
        0x7f7fffff]                  # MAX*2 - MAX: the product does not overflow first
    # the unfused form would give 1 + 2^-11 for the first and 0 for the third
    assert float(np.float32(np.float32(A) * np.float32(A)) + np.float32(2.0 ** -80)) == 1 + 2.0 ** -11


def test_ldexp_scales_exactly():
    a = np.float32([1.5, 1.0, 1.0, f32(0x3f7fffff), 3.0, np.nan, 1.0, -1.0])
    e = np.int32([3, -149, 128, -126, -1000, 4, 2**31 - 1, -150]).view(np.float32)
    got = run_one("LDEXP", a, e)
    assert got.tolist() == [0x41400000, 0x00000001, 0x7f800000, 0x00800000, 0, 0x7fc00000,
                            0x7f800000, 0x80000000]


@pytest.mark.parametrize("backend", ["gl", "gl-spirv", "vulkan"])
def test_fma_ldexp_fine_derivatives_verify_on_gl(backend):
    runner = gl_runner(backend)
    rep = verify_source(ROUNDS, "rounds.tgsi", lanes=1024, seed=2, backend=backend, runner=runner)
    # denormals the implementation flushes are the only differences it may show (ftz)
    assert rep.status == "pass", (rep.reason, [d.describe() for d in rep.differences[:5]])
    if backend != "gl":
        # xlate's own SPIR-V (issue 19), exact against the executor, and glslang's beside it
        assert any("direct SPIR-V path's module" in n for n in rep.notes), rep.notes
    assert rep.compared == 1024 * 4 * 4


@pytest.mark.parametrize("profile,op", [("glsl330", "FMA"), ("es310", "FMA"),
                                        ("glsl330", "LDEXP")])
def test_profiles_without_them_refuse_by_name(profile, op):
    src = f"FRAG\nDCL IN[0], GENERIC[0], CONSTANT\nDCL OUT[0], COLOR\n  0: {op} OUT[0], IN[0], IN[0]{', IN[0]' if op == 'FMA' else ''}\n  1: END\n"
    with pytest.raises(XlateError) as e:
        api.translate(src, filename="t.tgsi", profile=profile)
    assert [d.header() for d in e.value.diagnostics] == [
        f"t.tgsi:4:6: error[E7001]: the instruction {op}.F cannot be expressed in the "
        f"{profile} profile"]


def test_ldexp_in_es310_is_the_builtin():
    src = ("FRAG\nDCL IN[0], GENERIC[0], CONSTANT\nDCL OUT[0], COLOR\n"
           "  0: LDEXP OUT[0], IN[0], IN[0]\n  1: END\n")
    assert "ldexp(" in api.translate(src, profile="es310").glsl
