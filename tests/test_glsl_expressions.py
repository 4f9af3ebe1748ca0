"""The temporaries policy and the precedence-aware printer (xlate/backends/glsl/expressions.py):
which values are inlined into their reader and which stay in their register, and where the
printer puts parentheses.  Exactness of what is inlined (NoContraction in the SPIR-V) is
checked at the end; the random and mutation campaigns (test_verify_random*.py,
test_verify_mutants.py) check the results on llvmpipe."""
from __future__ import annotations

import re

import pytest

import xlate
from xlate.backends.glsl.expressions import (PRIMARY, UNARY, arithmetic_under_swizzle, fill,
                                             place, precedence)


def _main(src: str) -> list[str]:
    """The statements of xl_main, stripped."""
    g = xlate.translate(src).glsl
    body = g[g.index("void xl_main()"):]
    body = body[body.index("{") + 1:body.index("\n}")]
    return [line.strip() for line in body.strip().splitlines()]


# ---- precedence ----------------------------------------------------------------------------------

def test_precedence_of_printed_expressions():
    assert precedence("a * b + c") == 13
    assert precedence("a * b") == 14
    assert precedence("f(a + b)") == PRIMARY
    assert precedence("(a + b)") == PRIMARY
    assert precedence("R0.xy") == PRIMARY
    assert precedence("-R0") == UNARY
    assert precedence("-0.5") == PRIMARY          # a literal
    assert precedence("a << (b & 31)") == 12
    assert precedence("x[i + 1]") == PRIMARY


def test_parentheses_only_where_needed():
    assert fill("({a} * {b} + {c})", dict(a="x + y", b="-z", c="p * q")) == "((x + y) * -z + p * q)"
    assert fill("({a} + {b})", dict(a="x + y", b="p * q")) == "(x + y + p * q)"
    # the right operand of a non-associative operator keeps its group: float addition and
    # subtraction do not associate
    assert fill("({a} - {b})", dict(a="x - y", b="q + r")) == "(x - y - (q + r))"
    assert fill("({a} + {b})", dict(a="x", b="q + r")) == "(x + (q + r))"
    assert fill("(1.0 / {a})", dict(a="x * y")) == "(1.0 / (x * y))"
    assert fill("xl_max({a}, {b})", dict(a="x * y", b="q + r")) == "xl_max(x * y, q + r)"
    assert fill("(~{a})", dict(a="x | y")) == "(~(x | y))"
    assert fill("(xl_dp3({a}, {b}) + {c}.x)", dict(a="p", b="q", c="r + s")) == \
        "(xl_dp3(p, q) + (r + s).x)"
    assert place("-x", UNARY, True) == "(-x)"          # never '--x'


def test_arithmetic_under_a_swizzle_is_found():
    assert arithmetic_under_swizzle("R0.xy = texture(s, a.xy * b.xy).xy;", ["a.xy * b.xy"])
    assert arithmetic_under_swizzle("R0.x = (a * b + c).x;", ["a * b"])
    assert not arithmetic_under_swizzle("R0.xy = texture(s, a.xy * b.xy);", ["a.xy * b.xy"])
    assert not arithmetic_under_swizzle("R0.x = xl_dp3(a * b, c);", ["a * b"])
    assert not arithmetic_under_swizzle("R0.xy = texture(s, R1.xy).xy;", ["texture(s, R1.xy)"])


# ---- the policy -------------------------------------------------------------------------------------

def test_a_value_read_once_is_inlined_with_its_precedence():
    src = """!!NVfp4.0
TEMP R0, R1;
ADD R0, fragment.texcoord[0], fragment.texcoord[1];
MUL R1, R0, fragment.texcoord[2];
MOV result.color, R1;
END
"""
    body = _main(src)
    assert body == ["result_color0 = (fragment_texcoord_0 + fragment_texcoord_1) * fragment_texcoord_2;"]


def test_a_value_read_twice_is_baked():
    src = """!!NVfp4.0
TEMP R0;
ADD R0, fragment.texcoord[0], fragment.texcoord[1];
MUL result.color, R0, R0;
END
"""
    assert _main(src) == ["R0 = fragment_texcoord_0 + fragment_texcoord_1;",
                          "result_color0 = R0 * R0;"]


def test_a_value_read_again_later_is_baked():
    src = """!!NVfp4.0
TEMP R0, R1;
ADD R0, fragment.texcoord[0], fragment.texcoord[1];
MUL R1, R0, fragment.texcoord[2];
ADD result.color, R1, R0;
END
"""
    body = _main(src)
    assert body[0] == "R0 = fragment_texcoord_0 + fragment_texcoord_1;"


def test_a_value_read_across_control_flow_is_baked():
    src = """!!NVfp4.0
TEMP R0, R1;
ADD R0, fragment.texcoord[0], fragment.texcoord[1];
MOVC R1.x, fragment.texcoord[2].x;
IF GT.x;
MUL result.color, R0, 2.0;
ENDIF;
END
"""
    body = _main(src)
    assert body[0] == "R0 = fragment_texcoord_0 + fragment_texcoord_1;"


def test_an_intervening_write_to_what_it_reads_bakes_it():
    src = """!!NVfp4.0
TEMP R0, R1;
MOV R1, fragment.texcoord[1];
ADD R0.x, R1.x, fragment.texcoord[0].x;
MOV R1.x, fragment.texcoord[2].x;
MUL result.color, R0.x, R1;
END
"""
    body = _main(src)
    assert "R0.x = R1.x + fragment_texcoord_0.x;" in body


def test_outputs_are_baked_and_chains_inline():
    src = """!!NVfp4.0
TEMP R0, R1;
MUL R0.xy, fragment.texcoord[0], 0.5;
ADD R1.xy, R0, fragment.texcoord[1];
TEX result.color, R1, texture[0], 2D;
END
"""
    body = _main(src)
    # the coordinate is the inlined expression: narrowed to the components the lookup reads
    assert body == ["result_color0 = texture(texture0, fragment_texcoord_0.xy * 0.5 + "
                    "fragment_texcoord_1.xy);"]
    assert "vec4 R0" not in xlate.translate(src).glsl       # no unused declaration


def test_swizzled_arithmetic_is_baked_for_exactness():
    src = """!!NVfp4.0
TEMP R0, R1;
MUL R0.xy, fragment.texcoord[0], 0.5;
TEX R1.xyz, R0, texture[0], 2D;
MOV result.color, R1;
END
"""
    body = _main(src)
    # texture(s, a * 0.5).xyz: the multiply would lose NoContraction under the swizzle
    assert body[0] == "R0.xy = fragment_texcoord_0.xy * 0.5;"
    assert body[1] == "R1.xyz = texture(texture0, R0.xy).xyz;"


def test_inlined_arithmetic_keeps_no_contraction():
    """Every float multiply and add of the vulkan SPIR-V of a program with inlined values
    carries NoContraction (the operations of an expression assigned to a precise variable)."""
    from xlate.backends.spirv import disassemble_spirv
    src = """!!NVfp4.0
TEMP R0, R1, R2;
MUL R0, fragment.texcoord[0], fragment.texcoord[1];
ADD R1, R0, fragment.texcoord[2];
MAD R2.xy, R1, 3.0, fragment.texcoord[0];
TEX R2, R2, texture[0], 2D;
MUL R0.x, R2.y, fragment.texcoord[3].x;
ADD result.color, R0.x, R2;
END
"""
    r = xlate.translate(src, target="spirv")
    dis = disassemble_spirv(r.spirv)
    decorated = {ln.split()[1] for ln in dis.splitlines() if ln.endswith("NoContraction")}
    arith = [ln.split()[0] for ln in dis.splitlines()
             if re.search(r" = Op(FMul|FAdd|FSub|VectorTimesScalar) ", ln)]
    assert len(arith) >= 4
    assert set(arith) <= decorated, sorted(set(arith) - decorated)


def _undecorated_arithmetic(spirv: bytes) -> list[str]:
    from xlate.backends.spirv import disassemble_spirv
    dis = disassemble_spirv(spirv)
    decorated = {ln.split()[1] for ln in dis.splitlines() if ln.endswith("NoContraction")}
    return [ln.strip() for ln in dis.splitlines()
            if re.search(r" = Op(FMul|FAdd|FSub|VectorTimesScalar|MatrixTimesVector|Dot) ", ln)
            and ln.split()[0] not in decorated]


@pytest.mark.parametrize("path", sorted(
    p.name for p in (__import__("pathlib").Path(__file__).parents[1] / "corpus" / "nv4").iterdir()
    if p.suffix in (".vp", ".fp", ".gp")))
def test_every_float_operation_of_our_corpus_is_no_contraction(path):
    """The inlined expressions of the NV4 corpus keep every float multiply and add of the
    vulkan SPIR-V NoContraction: nothing inlined landed under a swizzle of an rvalue."""
    from pathlib import Path
    src = (Path(__file__).parents[1] / "corpus" / "nv4" / path).read_text()
    r = xlate.translate(src, filename=path, target="spirv")
    assert _undecorated_arithmetic(r.spirv) == []


#: R0 holds floats and integers (stored as uvec4): its masked float writes are bitcast
BITCAST_STORE = """!!NVfp4.0
TEMP R0, R1;
MOV R1, fragment.texcoord[1];
MAD R0.zw, R1.xyxy, fragment.texcoord[0], R1.y;
TRUNC.U R0.x, R1;
ADD R0.y, -R1.x, 1;
MOV result.color, R0;
END
"""


def test_a_masked_write_into_a_register_of_another_type_is_narrowed_and_bitcast():
    """``R0.zw = floatBitsToUint(a * b + c)``: no precise temporary, and glslang still marks
    every multiply and add NoContraction (through floatBitsToUint, as it does not through a
    swizzle of an rvalue)."""
    body = _main(BITCAST_STORE)
    assert "R0.zw = floatBitsToUint(R1.xy * fragment_texcoord_0.zw + R1.yy);" in body
    assert "R0.y = floatBitsToUint(-R1.x + 1.0);" in body
    r = xlate.translate(BITCAST_STORE, target="spirv", via="glsl")
    assert r.spirv_via == "glsl" and _undecorated_arithmetic(r.spirv) == []


def test_a_value_read_in_a_loop_or_a_subroutine_is_baked():
    loop = """!!NVfp4.0
TEMP R0, R1;
MOV R1, 0;
ADD R0, fragment.texcoord[0], fragment.texcoord[1];
REP 3;
ADD R1, R1, R0;
ENDREP;
MOV result.color, R1;
END
"""
    assert "R0 = fragment_texcoord_0 + fragment_texcoord_1;" in _main(loop)
    call = """!!NVfp4.0
TEMP R0, R1;
ADD R0, fragment.texcoord[0], fragment.texcoord[1];
CAL f;
CAL f;
MOV result.color, R1;
RET;
f:
MUL R1, R0, 2.0;
RET;
END
"""
    g = xlate.translate(call).glsl
    assert "R0 = fragment_texcoord_0 + fragment_texcoord_1;" in g


def test_liveness_of_plain_temporaries():
    from xlate.api import parse
    from xlate.passes.liveness import liveness
    from xlate.passes.structurize import structurize
    src = """!!NVfp4.0
TEMP R0, R1;
MOV R0.xy, fragment.texcoord[0];
MOV R1, R0.x;
MOV R0.x, 1;
MOV result.color, R0;
END
"""
    prog = parse(src)
    # the structurizer's tree itself: the deadcode pass would remove the unread MOV R1
    live = liveness(structurize(prog))
    ins = prog.instructions
    names = lambda bits: sorted((r, c) for r in live.tracked for c in range(4) if bits & live.bit(r, c))
    # the last MOV reads every component of R0 (z and w still hold their zero)
    assert names(live.live_after(ins[0])) == [("R0", 0), ("R0", 1), ("R0", 2), ("R0", 3)]
    # R0.x is overwritten before that read: only y, z, w are live after the first read of x
    assert names(live.live_after(ins[1])) == [("R0", 1), ("R0", 2), ("R0", 3)]
    assert names(live.live_after(ins[3])) == []


def test_a_masked_write_into_a_register_of_another_type_verifies():
    from conftest import gl_runner
    from xlate.verify.core import verify_source
    rep = verify_source(BITCAST_STORE, "bitcast.fp", lanes=64, seed=3, backend="gl",
                        runner=gl_runner("gl"))
    assert rep.status == "pass", (rep.reason, rep.localization[:2])


# ---- components of a converted value (text.components) ------------------------------------------

@pytest.mark.parametrize("value, m, expected", [
    # a bit cast keeps its argument's size: the components are taken from the argument
    ("uintBitsToFloat(R1)", ".xy", "uintBitsToFloat(R1.xy)"),
    ("floatBitsToUint(texture(t, c.xy))", ".xyz", "floatBitsToUint(texture(t, c.xy).xyz)"),
    ("floatBitsToUint(vec4(1.0))", ".y", "floatBitsToUint(1.0)"),
    # a constructor of a register (a known four-component name) or of a four-component swizzle
    ("ivec4(R8)", ".x", "int(R8.x)"),
    ("ivec4(R8)", ".zw", "ivec2(R8.zw)"),
    ("ivec4(TEMP[ADDR0.x + 1])", ".y", "int(TEMP[ADDR0.x + 1].y)"),
    ("ivec4(xl_t1)", ".x", "int(xl_t1.x)"),
    ("vec4(R29.yyyy)", ".x", "float(R29.y)"),
    ("floatBitsToUint(vec4(ivec4(R8)))", ".x", "floatBitsToUint(float(int(R8.x)))"),
    # under a minus and parentheses
    ("(-(ivec4(R8)))", ".x", "-int(R8.x)"),
    ("-uintBitsToFloat(R1)", ".w", "-uintBitsToFloat(R1.w)"),
    # four arguments, one component each
    ("uvec4(uint(imageSize(i)), 0u, 0u, 0u)", ".x", "uint(imageSize(i))"),
    ("ivec4(7, 0, 0, 1)", ".w", "1"),
    ("vec4(r, r, r, 1.0)", ".xw", "vec2(r, 1.0)"),
    ("vec4(r, s, s, 1.0)", ".x", "float(r)"),
    # a swizzled call in parentheses
    ("(unpackHalf2x16(w).xyxy)", ".zw", "unpackHalf2x16(w).xy"),
    # a comparison of four-component operands: those components compared, one component by
    # the scalar operator (GLSL's comparison functions take vectors only)
    ("vec4(greaterThan(R1.xxxx, vec4(0.5)))", ".x", "float(R1.x > 0.5)"),
    ("vec4(notEqual(R8, R1.yyyy))", ".z", "float(R8.z != R1.y)"),
    ("vec4(equal(R8, vec4(0.0)))", ".zw", "vec2(equal(R8.zw, vec2(0.0)))"),
    ("lessThanEqual(R1, R8.wzyx)", ".y", "(R1.y <= R8.z)"),
    # a helper with a float overload beside its vec4 one (helpers.glsl fp16, fx12)
    ("xl_fx12(R29.zzzz)", ".x", "xl_fx12(R29.z)"),
    ("xl_fp16(vec4(lessThan(R1.wwww, R8.yyyy)))", ".x", "xl_fp16(float(R1.w < R8.y))"),
    # not narrowed: the argument may be a scalar (ivec4(s) replicates it), or its size is
    # unknown (three arguments), or the call is no conversion; a helper without overloads of
    # two or three components, or of an argument of unknown size; a comparison of operands of
    # unknown size
    ("xl_fx12(R29)", ".zw", "xl_fx12(R29).zw"),
    ("xl_fp16(x)", ".x", "xl_fp16(x).x"),
    ("vec4(lessThan(x, y))", ".y", "vec4(lessThan(x, y)).y"),
    ("ivec4(s)", ".x", "ivec4(s).x"),
    ("vec4(a.xy, b, c)", ".x", "vec4(a.xy, b, c).x"),
    ("xl_sat(R0)", ".x", "xl_sat(R0).x"),
    ("uintBitsToFloat(R1) * 2.0", ".x", "(uintBitsToFloat(R1) * 2.0).x"),
])
def test_components_of_a_converted_value(value, m, expected):
    from xlate.backends.glsl.text import components
    assert components(value, m, {"R1", "R8", "R29", "TEMP"}) == expected


# ---- literals the GLSL compiler folds ----------------------------------------------------------------

#: RCP of the float 2.2 is 0x3ee8ba2e; glslang folds '1.0 / 2.2' in double precision from the
#: decimal text (1/2.2 rounded once: 0x3ee8ba2f).  cgc's gamma (blur7x7-last-pass noopt: MOV
#: R1.x, {2.2} then RCP R1.xyz, R1.x) was printed as 'vec3((1.0 / 2.2))', one ulp from the
#: program, and the direct SPIR-V path, which divides the float, departed from glslang's
FOLDED_LITERALS = """!!NVfp4.0
TEMP R0, R1;
RCP.F R0.x, {2.2}.x;
ADD.F R0.y, {0.1}.x, {0.2}.x;
POW.F R0.z, {2.718282}.x, fragment.texcoord[0].x;
MUL.F R0.w, {0.1}.x, fragment.texcoord[0].y;
MOV.F R1.x, {2.2};
RCP.F R1.y, R1.x;
ADD.F result.color, R0, R1.y;
END
"""


def _words(spirv: bytes) -> set[int]:
    import struct
    return set(struct.unpack(f"<{len(spirv) // 4}I", spirv))


def test_literals_the_compiler_folds_are_printed_exactly():
    """Operands that glslang folds with other constants are spelled with their exact value,
    a moved literal inlined into such an operation too (MOV R1.x, {2.2}; RCP R1.y, R1.x); a
    literal beside a run-time value keeps its short spelling."""
    assert _main(FOLDED_LITERALS) == [
        "R0.x = 1.0 / 2.200000047683716;",
        "R0.y = 0.10000000149011612 + 0.20000000298023224;",
        "R0.z = exp2(fragment_texcoord_0.x * log2(2.718282));",
        "R0.w = 0.1 * fragment_texcoord_0.y;",
        "result_color0 = R0 + 1.0 / 2.200000047683716;",
    ]


def test_a_pow_base_is_spelled_exactly_where_its_log2_would_fold_apart():
    """POW's base beside a run-time exponent: only its log2 folds, so the short spelling stays
    where log2 of the decimal rounds to the float log2 of the literal (e = 2.718282), and the
    exact one is printed where it does not (1.1: log2(1.1) and log2(1.1f) round apart)."""
    import math
    import struct
    short = struct.unpack("<f", struct.pack("<f", math.log2(1.1)))[0]
    exact = struct.unpack("<f", struct.pack("<f", math.log2(
        struct.unpack("<f", struct.pack("<f", 1.1))[0])))[0]
    assert short != exact
    src = ("!!NVfp4.0\nTEMP R0;\nPOW.F R0, {1.1}.x, fragment.texcoord[0].x;\n"
           "MOV.F result.color, R0;\nEND\n")
    assert _main(src) == ["result_color0 = vec4(exp2(fragment_texcoord_0.x * "
                          "log2(1.100000023841858)));"]


def test_folded_constants_are_the_programs_float_results():
    """glslang's SPIR-V of the GLSL holds the float operations' own results: RCP(2.2f) =
    0x3ee8ba2e (not 1/2.2 rounded once, 0x3ee8ba2f), 0.1f + 0.2f = 0x3e99999a, and log2 of the
    float 2.718282 rounded once (the direct path's fold, spirv_direct.module.fold, the same)."""
    import math
    import struct
    import numpy as np
    words = _words(xlate.translate(FOLDED_LITERALS, target="spirv", via="glsl").spirv)
    rcp = (np.float32(1) / np.float32(2.2)).view(np.uint32)
    assert int(rcp) == 0x3EE8BA2E and 0x3EE8BA2E in words and 0x3EE8BA2F not in words
    assert int((np.float32(0.1) + np.float32(0.2)).view(np.uint32)) in words
    log2e = struct.unpack("<I", struct.pack("<f", math.log2(float(np.float32(2.718282)))))[0]
    assert log2e in words
    direct = _words(xlate.translate(FOLDED_LITERALS, target="spirv", via="direct").spirv)
    assert log2e in direct
