"""TGSI bitfield opcodes (issue 20): IBFE UBFE BFI BREV POPC LSB IMSB UMSB -- tgsi.rst's
"Bitwise ISA" -- in the executor (exact expected words, edge cases: width 0, a window past bit 31,
offsets of 32 and more, the MSB of 0 and -1), on llvmpipe through ``xlate verify`` (gl and
gl-spirv), and the GLSL 3.30 helpers that replace the GLSL 4.00 built-ins, run on llvmpipe
against the executor."""
from __future__ import annotations

import numpy as np
import pytest

from conftest import gl_context, gl_runner, no_gl

from xlate import api, execute
from xlate.verify.core import verify_source

# offsets and widths 0..63 from the lanes' random words (so every lane mixes in-range windows,
# width 0, windows past bit 31 and offsets past 32), fixed edge cases from immediates, and the
# MSB/LSB of 0, -1, 1 and INT_MIN
EDGES = """FRAG
DCL IN[0], GENERIC[0], CONSTANT
DCL IN[1], GENERIC[1], CONSTANT
DCL IN[2], GENERIC[2], CONSTANT
DCL OUT[0], COLOR
DCL OUT[1], COLOR[1]
DCL OUT[2], COLOR[2]
DCL OUT[3], COLOR[3]
DCL OUT[4], COLOR[4]
DCL OUT[5], COLOR[5]
DCL TEMP[0..9]
IMM[0] UINT32 {63, 31, 0, 32}
IMM[1] INT32 {0, -1, 1, -2147483648}
IMM[2] UINT32 {0, 4294967295, 1, 2147483648}
  0: AND TEMP[8], IN[1], IMM[0].xxxx
  1: AND TEMP[9], IN[2], IMM[0].xxxx
  2: IBFE TEMP[0], IN[0], TEMP[8], TEMP[9]
  3: UBFE TEMP[1], IN[0], TEMP[8], TEMP[9]
  4: BFI TEMP[2], IN[0], IN[2], TEMP[8], TEMP[9]
  5: UBFE TEMP[3], IN[0], IMM[0].zwyz, IMM[0].wzyy
  6: BREV TEMP[4], IN[0]
  7: POPC TEMP[5], IN[0]
  8: XOR OUT[3], TEMP[4], TEMP[5]
  9: LSB TEMP[6], IN[0]
 10: IMSB TEMP[7], IN[0]
 11: UADD OUT[4], TEMP[6], TEMP[7]
 12: IMSB TEMP[6], IMM[1]
 13: UMSB TEMP[7], IMM[2]
 14: LSB TEMP[4], IMM[2]
 15: UMUL TEMP[7], TEMP[7], IMM[0].yyyy
 16: UADD TEMP[6], TEMP[6], TEMP[7]
 17: XOR OUT[5], TEMP[6], TEMP[4]
 18: MOV OUT[0], TEMP[0]
 19: MOV OUT[1], TEMP[1]
 20: XOR OUT[2], TEMP[2], TEMP[3]
 21: END
"""


def one_op(op: str, nsrc: int) -> str:
    decls = "".join(f"DCL IN[{k}], GENERIC[{k}], CONSTANT\n" for k in range(nsrc))
    srcs = ", ".join(f"IN[{k}]" for k in range(nsrc))
    return (f"FRAG\n{decls}DCL OUT[0], COLOR\nDCL TEMP[0]\n  0: {op} TEMP[0], {srcs}\n"
            "  1: MOV OUT[0], TEMP[0]\n  2: END\n")


def run(op: str, *cols) -> list[int]:
    """``op`` on lanes whose inputs are the words of ``cols`` (x component; one lane each)."""
    prog = api.parse(one_op(op, len(cols)))
    inputs = {f"fragment.generic[{k}]": np.repeat(np.asarray(c, np.uint64).astype(np.uint32)
                                                  [:, None], 4, axis=1).view(np.float32)
              for k, c in enumerate(cols)}
    return execute(prog, inputs).words("result.color[0]")[:, 0].tolist()


M = 0xFFFFFFFF


def test_ubfe_ibfe_windows():
    v = 0xF0F0_8421
    # (offset, width): in range, width 0, the whole word, past bit 31 (clipped), offset 32+
    cases = [(4, 8), (0, 0), (31, 0), (0, 32), (28, 8), (31, 1), (32, 4), (40, 40), (16, 16)]
    o = [c[0] for c in cases]
    w = [c[1] for c in cases]
    assert run("UBFE", [v] * 9, o, w) == [0x42, 0, 0, v, 0xF, 1, 0, 0, 0xF0F0]
    assert run("IBFE", [v] * 9, o, w) == [0x42, 0, 0, v, M, M, 0, 0, 0xFFFF_F0F0]


def test_bfi_windows():
    base, ins = 0x1234_5678, 0xFFFF_FFFF
    cases = [(4, 8), (0, 0), (0, 32), (28, 8), (32, 4), (8, 0)]
    got = run("BFI", [base] * 6, [ins] * 6, [c[0] for c in cases], [c[1] for c in cases])
    assert got == [0x1234_5FF8, base, M, 0xF234_5678, base, base]


def test_brev_popc_lsb_msb():
    words = [0, M, 1, 0x8000_0000, 0x0000_0F00, 0x7FFF_FFFF, 0xFFFF_FFFE]
    assert run("BREV", words) == [0, M, 0x8000_0000, 1, 0x00F0_0000, 0xFFFF_FFFE, 0x7FFF_FFFF]
    assert run("POPC", words) == [0, 32, 1, 1, 4, 31, 31]
    assert run("LSB", words) == [M, 0, 0, 31, 8, 0, 1]
    assert run("UMSB", words) == [M, 31, 0, 31, 11, 30, 31]
    # IMSB: the highest bit that differs from the sign bit; -1 for 0 and -1 (tgsi.rst)
    assert run("IMSB", words) == [M, M, 0, 30, 11, 30, 0]


@pytest.mark.parametrize("backend", ["gl", "gl-spirv", "vulkan"])
def test_bitfield_edges_verify_on_gl(backend):
    runner = gl_runner(backend)
    rep = verify_source(EDGES, "bitfield.tgsi", lanes=1024, seed=9, backend=backend,
                        runner=runner)
    assert rep.status == "pass", (rep.reason, [d.describe() for d in rep.differences[:5]])
    if backend != "gl":
        # xlate's own SPIR-V (issue 19), exact against the executor, and glslang's beside it
        assert any("direct SPIR-V path's module" in n for n in rep.notes), rep.notes
    assert rep.compared == 1024 * 6 * 4


def test_glsl330_bit_helpers_match_the_executor_on_gl():
    """bitfieldReverse/bitCount/findLSB/findMSB have GLSL 3.30 helpers (bits330); run them
    and the bitfield helpers on llvmpipe over edge words and random words."""
    try:
        import moderngl
    except ImportError as e:
        no_gl(f"moderngl is not installed ({e})")
    gl_context("core")
    from xlate.backends.glsl import helper_library
    from xlate.exec.alu_dialects import op_bfext, op_bfins, op_brev, op_lsb, op_msb, op_popc
    from xlate.ir.model import DataType
    lib = helper_library()
    vs = ("#version 330 core\n" + lib["bitfield"][0] + lib["bits330"][0] + """
layout(location = 0) in uvec4 a;
layout(location = 1) in uvec4 b;
flat out uvec4 r0;
flat out uvec4 r1;
void main()
{
    r0 = uvec4(xl_brev(a).x, xl_popc(a).x, uint(xl_lsb(a).x), uint(xl_msb(a).x));
    uvec4 o = b & 63u;
    uvec4 w = (b >> 8u) & 63u;
    r1 = uvec4(xl_ubfe(a, o, w).x, uint(xl_ibfe(ivec4(a), o, w).x), xl_bfi(a, b, o, w).x,
               uint(xl_msb(uvec4(ivec4(a) ^ (ivec4(a) >> 31))).x));
    gl_Position = vec4(0.0);
}
""")
    rng = np.random.default_rng(3)
    n = 1 << 14
    a = rng.integers(0, 1 << 32, size=(n, 4), dtype=np.uint64).astype(np.uint32)
    b = rng.integers(0, 1 << 32, size=(n, 4), dtype=np.uint64).astype(np.uint32)
    a[:8, 0] = [0, 0xFFFFFFFF, 1, 0x80000000, 0x7FFFFFFF, 2, 0x00010000, 0xFFFFFFFE]
    ctx = moderngl.create_standalone_context(backend="egl", require=330)
    try:
        ctx.simple_framebuffer((1, 1)).use()
        prog = ctx.program(vertex_shader=vs, varyings=["r0", "r1"])
        vbo = ctx.buffer(np.concatenate([a, b], axis=1).tobytes())
        vao = ctx.vertex_array(prog, [(vbo, "4u4 4u4", "a", "b")])
        out = ctx.buffer(reserve=n * 32)
        vao.transform(out, mode=moderngl.POINTS, vertices=n)
        r = np.frombuffer(out.read(), np.uint32).reshape(n, 8)
    finally:
        ctx.release()

    class X:
        t = DataType.UINT

    class XS:
        t = DataType.INT
    x = a[:, :1]
    o, w = b[:, :1] & 63, (b[:, :1] >> 8) & 63
    want = np.concatenate([
        op_brev(X, x), op_popc(X, x), op_lsb(X, x).view(np.uint32), op_msb(X, x).view(np.uint32),
        op_bfext(X, x, o, w), op_bfext(XS, x.view(np.int32), o, w).view(np.uint32),
        op_bfins(X, x, b[:, :1], o, w), op_msb(XS, x.view(np.int32)).view(np.uint32)], axis=1)
    bad = {k: int(np.sum(r[:, k] != want[:, k])) for k in range(8)}
    assert bad == {k: 0 for k in range(8)}
