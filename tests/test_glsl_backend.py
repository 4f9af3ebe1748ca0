"""GLSL backend: literals, write patterns, interface mapping, and every texture path compiles."""
from __future__ import annotations

import struct

import pytest
from hypothesis import given, settings, strategies as st

import xlate
from xlate.backends.glsl import float_literal, int_literal, snippet_table, helper_library
from xlate.ir.model import DataType
from xlate.ir.ops import OPCODES


@given(st.integers(min_value=0, max_value=0xFFFFFFFF))
@settings(max_examples=2000, deadline=None)
def test_float_literal_round_trips_bits(bits):
    text = float_literal(bits)
    value = struct.unpack("<f", struct.pack("<I", bits))[0]
    if text.startswith("uintBitsToFloat("):
        assert int(text[len("uintBitsToFloat("):-2], 16) == bits
        assert value != value or value in (float("inf"), float("-inf")) or bits == 0x80000000
    else:
        assert struct.unpack("<I", struct.pack("<f", float(text)))[0] == bits
        assert "." in text


def test_int_literals():
    assert int_literal(0x80000000, DataType.INT) == "(-2147483647 - 1)"
    assert int_literal(0xFFFFFFFF, DataType.INT) == "-1"
    assert int_literal(0xFFFFFFFF, DataType.UINT) == "0xffffffffu"
    assert int_literal(7, DataType.UINT) == "7u"


def test_every_alu_opcode_has_a_snippet_and_helpers_exist():
    table = snippet_table()
    for name, info in OPCODES.items():
        if info.category != "alu":
            continue
        types = ["F"] if "F" in info.mods else []
        if "I" in info.mods:
            types += ["S", "U"]
        for t in types:
            assert (name, t) in table, f"{name}.{t} has no GLSL snippet"
    lib = helper_library()
    for (op, t), (_, helpers) in table.items():
        for h in helpers:
            assert h in lib, f"{op}.{t} needs unknown helper {h}"


CC_WRITE = """!!NVvp4.0
TEMP a, b;
MOV a, vertex.position;
SUB.CC b, a, 1;
MOV a.xy (GT.zwzw), b;
MOV.CC1 b.x, -a;
IF LT1.x;
  MOV a, 0;
ENDIF;
MOV result.position, a;
END
"""


def test_conditional_write_is_an_exact_select():
    glsl = xlate.translate(CC_WRITE).glsl
    # float updates only: the CC registers hold the value, tests compare it (cctests_value.txt)
    assert "    b = a - 1.0;\n    xl_cc0 = b;\n" in glsl
    # a move under a condition: one select of the written components' tests, no temporaries
    assert "    a.xy = mix(a.xy, b.xy, greaterThan(xl_cc0.zw, vec2(0.0)));\n" in glsl
    # CC1's one test follows its update: it reads the written register, and CC1 is gone
    # (passes/condcodes.py forward_value_tests)
    assert "    b.x = -a.x;\n    if (b.x < 0.0)\n" in glsl and "xl_cc1" not in glsl
    assert "vec4 xl_cc0 = vec4(0.0);" in glsl       # EQ at start
    # an integer update of CC0 keeps the flag words for that register
    mixed = xlate.translate(CC_WRITE.replace("TEMP a, b;", "TEMP a, b;\nINT TEMP i;\n"
                                             "MOV.S.CC i, 1;")).glsl
    assert "uvec4 xl_cc0 = uvec4(2u);" in mixed and \
        "    a.xy = mix(a.xy, b.xy, xl_ccGT(xl_cc0.zw));\n" in mixed
    assert "bvec2 xl_ccGT(uvec2 f)\n{\n    uvec2 s = f & 1u, z = (f >> 1) & 1u, o = (f >> 2) & 1u;\n" \
        "    return notEqual((((1u - s) ^ o) & (1u - z)), uvec2(0u));\n}\n" in mixed
    # a flag-word update is the flags of the value written, read back from the register
    # (no temporaries: before, '{ precise vec4 xl_t1 = a - 1.0; ... xl_cc0 = xl_ccf(xl_t1); }')
    assert "    i = ivec4(1);\n    xl_cc0 = xl_cci(uvec4(i));\n" in mixed
    assert "    b = a - 1.0;\n    xl_cc0 = xl_ccf(b);\n" in mixed and "if (b.x < 0.0)" in mixed


def test_integer_flags_are_taken_before_an_aliasing_write():
    # SUB.S.CC i.x, i.x, 1: the flags read i.x, which the instruction overwrites
    glsl = xlate.translate("""!!NVvp4.0
INT TEMP i;
MOV.S i, 3;
REP;
  SUB.S.CC i.x, i.x, 1;
  BRK LE.x;
ENDREP;
I2F result.position, i;
END
""").glsl
    body = glsl[glsl.index("for (;;)"):]
    lines = [line.strip() for line in body.splitlines()[2:4]]
    assert lines == ["xl_cc0.x = xl_ccsub(uvec4(i.xxxx), uvec4(ivec4(1))).x;",
                     "i.x = (i.xxxx - 1).x;"]


def test_unread_condition_codes_are_not_computed():
    glsl = xlate.translate("""!!NVfp4.0
TEMP t;
ADD.CC t, fragment.texcoord[0], 1;
MOV result.color, t;
END
""").glsl
    assert "xl_cc0" not in glsl and "xl_ccf" not in glsl


def _program(stage: str, op: str, target: str, offset: str = "", dtype: str = "") -> str:
    header = {"vert": "!!NVvp4.0", "frag": "!!NVfp4.0", "geom": "!!NVgp4.0"}[stage]
    geo = "PRIMITIVE_IN POINTS;\nPRIMITIVE_OUT POINTS;\nVERTICES_OUT 1;\n" if stage == "geom" else ""
    src = {"vert": "vertex.attrib[1]", "frag": "fragment.texcoord[0]", "geom": "vertex[0].texcoord[0]"}[stage]
    out = {"vert": "result.texcoord[0]", "frag": "result.color", "geom": "result.texcoord[0]"}[stage]
    tail = "EMIT;\n" if stage == "geom" else ""
    pos = "MOV result.position, {0,0,0,1};\n" if stage != "frag" else ""
    if op == "TXD":
        body = f"TXD{dtype} t, c, c, c, texture[2], {target}{offset};\n"
    elif op in ("TXF", "TXQ"):
        body = f"{op}{dtype} t, i, texture[2], {target}{offset};\n"
    else:
        body = f"{op}{dtype} t, c, texture[2], {target}{offset};\n"
    return (f"{header}\n{geo}INT TEMP i;\nTEMP c, t;\nMOV c, {src};\nFLR.S i, c;\n{body}"
            f"{pos}MOV{'.U' if dtype == '.U' else '.S' if dtype == '.S' else ''} {out}, t;\n{tail}END\n")


TEX_CASES = []
for _op in ("TEX", "TXB", "TXL", "TXP", "TXD", "TXF", "TXQ"):
    for _target in ("1D", "2D", "3D", "CUBE", "RECT", "SHADOW1D", "SHADOW2D", "SHADOWRECT", "ARRAY1D",
                    "ARRAY2D", "SHADOWCUBE", "SHADOWARRAY1D", "SHADOWARRAY2D", "BUFFER"):
        if _target == "BUFFER" and _op not in ("TXF", "TXQ"):
            continue
        if _op == "TXF" and (_target.startswith("SHADOW") or _target == "CUBE"):
            continue
        if _op in ("TXB", "TXL", "TXP") and _target in ("SHADOWCUBE", "SHADOWARRAY2D"):
            continue
        TEX_CASES.append((_op, _target))


@pytest.mark.parametrize("op,target", TEX_CASES)
def test_texture_paths_compile_in_every_stage_and_profile(op, target):
    for stage in ("vert", "frag", "geom"):
        for profile in ("glsl450", "vulkan"):
            src = _program(stage, op, target)
            r = xlate.translate(src, filename=f"{op}_{target}.{stage}", profile=profile)
            assert r.glsl and "texture2" in r.glsl
    # integer textures and texel offsets
    if not target.startswith("SHADOW") and target not in ("CUBE", "BUFFER") and op != "TXQ":
        xlate.translate(_program("frag", op, target, dtype=".S"), profile="vulkan")
        dims = {"1D": 1, "ARRAY1D": 1, "3D": 3}.get(target, 2)
        if op != "TXQ":
            off = ", (" + ", ".join(["1", "-2", "3"][:dims]) + ")"
            xlate.translate(_program("frag", op, target, offset=off), profile="glsl450")


def test_vulkan_profile_layouts_and_reflection():
    src = """!!NVvp4.0
PARAM m[4] = { state.matrix.mvp };
PARAM k = program.local[3];
BUFFER4 bones[] = { program.buffer[1] };
INT TEMP b;
TEMP p;
MOV.S b.x, vertex.id;
DP4 p.x, bones[b.x], vertex.position;
DP4 result.position.x, m[0], p;
MOV result.texcoord[1], k;
END
"""
    r = xlate.translate(src, filename="v.vp", target="spirv", via="glsl")
    g = r.glsl
    assert "layout(set = 0, binding = 0, std140) uniform XlateParameters" in g
    assert "gl_VertexIndex" in g and "gl_VertexID" not in g
    assert "layout(set = 0, binding = 41, std140) uniform XlateBuffer1" in g
    refl = r.reflection
    assert [(u["name"], u["array_size"], u["offset"]) for u in refl["uniforms"]] == [
        ("state_matrix_mvp", 4, 0), ("program_local", 4, 64)]
    assert refl["uniforms"][1]["elements"] == {"3": "program.local[3]"}
    assert refl["buffers"][0]["binding"] == 41
    assert [o["binding"] for o in refl["outputs"]] == ["result.position", "result.texcoord[1]"]
    g450 = xlate.translate(src).glsl
    assert "layout(location = 0) uniform vec4 state_matrix_mvp[4];" in g450
    assert "layout(location = 4) uniform vec4 program_local[4];" in g450
    assert "gl_VertexID" in g450


def test_geometry_layout_and_emit():
    src = """!!NVgp4.0
PRIMITIVE_IN TRIANGLES_ADJACENCY;
PRIMITIVE_OUT LINE_STRIP;
VERTICES_OUT 2;
ATTRIB pos = vertex.position;
MOV result.position, pos[0];
MOV result.layer.x, primitive.id;
EMIT;
MOV result.position, pos[4];
EMIT;
ENDPRIM;
END
"""
    g = xlate.translate(src).glsl
    assert "layout(triangles_adjacency) in;" in g
    assert "layout(line_strip, max_vertices = 2) out;" in g
    assert "in_vertex_position[5] = gl_in[5].gl_Position;" in g
    assert g.count("    xl_emit();") == 2 and "EndPrimitive();" in g
    assert "gl_Layer = out_result_layer.x;" in g


def test_large_parameter_sets_use_a_block():
    """program.local[4095] needs 4096 locations; GL guarantees 1024 (GL 4.5 Table 23.53)."""
    r = xlate.translate("""!!NVvp4.0
ADD result.position, program.local[4095], program.env[0];
END
""")
    assert "layout(std140, binding = 16) uniform XlateParameters" in r.glsl
    assert [(u["name"], u["offset"], u["block"]) for u in r.reflection["uniforms"]] == [
        ("program_local", 0, "XlateParameters"), ("program_env", 65536, "XlateParameters")]
    small = xlate.translate("!!NVvp4.0\nMOV result.position, program.local[3];\nEND\n")
    assert small.reflection["uniforms"][0]["location"] == 0


# ---- 'precise' (NV_gpu_program4 issue 18: every instruction rounds its own result) -----------

PRECISE_SRC = """!!NVvp4.0
TEMP r;
MAD r, vertex.attrib[1], vertex.attrib[2], vertex.attrib[3];
ADD.CC r.y, r.x, 8.0;
MOV r.z (GT.y), vertex.attrib[1];
MAD r.w, vertex.attrib[1], vertex.attrib[2], r;
DP3 result.texcoord[0].x, r, vertex.attrib[1];
LRP result.texcoord[0].yzw, r, vertex.attrib[2], vertex.attrib[3];
MOV result.position, vertex.position;
END
"""


def test_computed_values_are_precise():
    g = xlate.translate(PRECISE_SRC).glsl
    # registers: 'precise highp' (glslang needs the precision qualifier to keep a precise
    # global global); outputs written in place: 'precise out', built-ins redeclared precise;
    # inputs are read in place (no staging copies)
    assert "precise highp vec4 r = vec4(0);" in g
    assert "layout(location = 5) precise out vec4 result_texcoord_0;\nprecise gl_Position;\n" in g
    assert "in_vertex_attrib" not in g and "out_result" not in g
    # a CC update narrowed too: the value-holding CC register takes the value written
    assert "\n    r.y = r.x + 8.0;\n    xl_cc0.y = r.y;\n" in g
    # a masked float computation is narrowed to its mask, into the precise register: glslang
    # loses NoContraction through 'r.w = (a * b + c).w', not through 'r.w = a.w * b.w + c.w'
    # (test_precise_reaches_spirv_in_every_function checks the SPIR-V)
    assert "\n    r.w = vertex_attrib_1.w * vertex_attrib_2.w + r.w;\n" in g
    assert "float xl_dp3(vec4 a, vec4 b) { precise float xl_r = a.x * b.x + a.y * b.y + a.z * b.z; " \
           "return xl_r; }" in g
    assert "vec4 xl_lrp(vec4 a, vec4 b, vec4 c) { precise vec4 xl_r = a * b + (vec4(1.0) - a) * c; " \
           "return xl_r; }" in g


def test_precise_reaches_spirv_in_every_function():
    """glslang marks NoContraction function by function: every float multiply and add of the
    vulkan-profile SPIR-V, in xl_main and in the helpers, carries it; the module validates."""
    from xlate.backends.spirv import disassemble_spirv
    r = xlate.translate(PRECISE_SRC, target="spirv")
    dis = disassemble_spirv(r.spirv)
    decorated = {ln.split()[1] for ln in dis.splitlines() if ln.endswith("NoContraction")}
    arith = [ln.split()[0] for ln in dis.splitlines()
             if " = OpFMul " in ln or " = OpFAdd " in ln or " = OpFSub " in ln]
    assert len(arith) >= 10
    assert set(arith) <= decorated, sorted(set(arith) - decorated)


def test_precise_helper_rewrites_every_return():
    from xlate.backends.glsl import precise_helper
    text = ("float xl_a(float x) { return x * x + x; }\n"
            "uvec4 xl_b(uvec4 a) { uvec4 hi, lo; umulExtended(a, a, hi, lo); return hi; }\n"
            "vec4 xl_c(float t) {\n"
            "    float u = t * t + 1.0;\n"
            "    if (isnan(t)) return vec4(u);\n"
            "    return vec4(u, t, 0.0, 1.0);\n"
            "}\n"
            "bvec4 xl_d(vec4 a) { return isnan(a); }\n")
    assert precise_helper(text).splitlines() == [
        "float xl_a(float x) { precise float xl_r = x * x + x; return xl_r; }",
        "uvec4 xl_b(uvec4 a) { uvec4 hi, lo; umulExtended(a, a, hi, lo); precise uvec4 xl_r = hi; "
        "return xl_r; }",
        "vec4 xl_c(float t) {",
        "    precise float u = t * t + 1.0;",
        "    if (isnan(t)) { precise vec4 xl_r = vec4(u); return xl_r; }",
        "    precise vec4 xl_r = vec4(u, t, 0.0, 1.0);",
        "    return xl_r;",
        "}",
        "bvec4 xl_d(vec4 a) { return isnan(a); }",
    ]


def _profile_helpers(profile: str) -> list[str]:
    """The helper texts a profile emits, each after the helpers it needs (as the backend
    orders them): "name@<profile>" sections in place of "name"."""
    lib = helper_library()
    out: list[str] = []

    def add(name: str) -> None:
        key = f"{name}@{profile}" if f"{name}@{profile}" in lib else name
        if key in out:
            return
        for n in lib[key][1]:
            add(n)
        out.append(key)
    for name in lib:
        if "@" not in name:
            add(name)
    return [lib[k][0] for k in out]


def test_every_helper_compiles_precise():
    """Every helper of helpers.glsl, after precise_helper, compiles (glslang) and validates."""
    from xlate.backends.glsl import precise_helper
    from xlate.backends.spirv import compile_glsl, validate_spirv
    from xlate.backends.glsl.emitter import HELPER_EXTENSIONS
    body = "\n".join(precise_helper(text) for text in _profile_helpers("glsl450"))
    # the extensions some helper sections require (the emitter adds them when it uses them)
    exts = "".join(f"#extension {e} : require\n"
                   for e in sorted({e for group in HELPER_EXTENSIONS.values() for e in group}))
    src = "#version 450\n" + exts + "layout(location = 0) out vec4 o;\n" + body + \
        "\nvoid main() { o = vec4(0.0); }\n"
    assert validate_spirv(compile_glsl(src, "frag")) is None


@pytest.mark.parametrize("profile, head", [
    ("glsl330", "#version 330 core\n"),
    ("es310", "#version 310 es\nprecision highp float;\nprecision highp int;\n")])
def test_every_helper_compiles_in_the_profiles_without_precise(profile, head):
    """glsl330 and es310 emit the helpers as written (no 'precise'), with the profile's own
    sections; every one compiles under that #version (glslang, no client API)."""
    from xlate.backends.spirv import check_glsl
    body = "\n".join(_profile_helpers(profile))
    assert "precise" not in body
    src = head + "layout(location = 0) out vec4 o;\n" + body + "\nvoid main() { o = vec4(0.0); }\n"
    check_glsl(src, "frag", version=head.split("\n")[0][len("#version "):])


# ---- interface types per element -----------------------------------------------------------------

def test_integer_varyings_are_flat_ivec4_per_element():
    v = xlate.translate("""!!NVvp4.0
INT OUTPUT o = result.texcoord[0];
MOV.S o, {5, -3, 7, 1};
MOV result.texcoord[1], vertex.attrib[1];
MOV result.position, vertex.position;
END
""", target="spirv", via="glsl")
    g = v.glsl
    assert "layout(location = 5) flat out ivec4 result_texcoord_0;" in g
    assert "layout(location = 6) out vec4 result_texcoord_1;" in g
    assert "result_texcoord_0 = out_result_texcoord[0];" in g
    # the staging array is integer (raw words); the float element is bitcast, not converted
    assert "result_texcoord_1 = intBitsToFloat(out_result_texcoord[1]);" in g
    assert {o["binding"]: o["type"] for o in v.reflection["outputs"]} == {
        "result.texcoord[0]": "ivec4", "result.texcoord[1]": "vec4", "result.position": "vec4"}
    f = xlate.translate("""!!NVfp4.0
FLAT INT ATTRIB k = fragment.attrib[1];
ATTRIB a = fragment.attrib[0];
INT TEMP i;
MOV.S i, k;
I2F result.color.x, i.x;
MOV result.color.yzw, a;
END
""").glsl
    # an integer attribute does not make its float neighbour flat
    assert "layout(location = 13) in vec4 fragment_attrib_0;" in f
    assert "layout(location = 14) flat in ivec4 fragment_attrib_1;" in f
    assert "in_fragment_attrib[0] = floatBitsToInt(fragment_attrib_0);" in f


def test_geometry_integer_inputs_and_outputs():
    g = xlate.translate("""!!NVgp4.0
PRIMITIVE_IN POINTS;
PRIMITIVE_OUT POINTS;
VERTICES_OUT 1;
INT ATTRIB k = vertex[0].attrib[1];
INT OUTPUT o = result.attrib[1];
MOV.S o, k;
MOV result.attrib[0], vertex[0].attrib[0];
MOV result.position, vertex[0].position;
EMIT;
END
""", target="spirv", via="glsl").glsl
    assert "layout(location = 14) in ivec4 vertex_attrib_1[];" in g
    assert "layout(location = 13) in vec4 vertex_attrib_0[];" in g
    assert "layout(location = 14) flat out ivec4 result_attrib_1;" in g
    assert "layout(location = 13) out vec4 result_attrib_0;" in g


@pytest.mark.parametrize("word", ["packed", "sampler2D", "mat3x2", "iimage2DArray", "dvec3"])
def test_temporaries_named_like_glsl_keywords_are_renamed(word):
    """GLSL 4.50 §3.6 / ES 3.10 §3.7 keywords and reserved words (found: a TEMP named
    'packed' in corpus/dialects/arbfp_nv_pack.fp, which Mesa refused)."""
    import xlate
    # (read twice, so that the register stays: a value read once is inlined, expressions.py)
    text = f"!!ARBfp1.0\nTEMP {word};\nMOV {word}, fragment.color;\nMUL result.color, {word}, {word};\nEND\n"
    glsl = xlate.translate(text, filename="k.fp", target="glsl").glsl
    assert f"vec4 u_{word} = vec4(0);" in glsl and f" {word} " not in glsl


def test_a_loop_count_read_from_a_register_is_its_component():
    """REP's count is the operand's first component: 'xl_n2 = n.y', not 'n.yyyy.x'."""
    glsl = xlate.translate("!!NVfp4.0\nINT TEMP n;\nTEMP a;\nMOV a, 0;\n"
                           "TRUNC.S n, fragment.texcoord[0];\nREP.S n.y;\n"
                           "ADD a, a, 1;\nENDREP;\nMOV result.color, a;\nEND\n").glsl
    assert "for (int xl_i1 = 0, xl_n2 = n.y; xl_i1 < xl_n2; ++xl_i1)" in glsl
