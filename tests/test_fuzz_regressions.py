"""Inputs the fuzzer (tools/fuzz.py) found crashing, hanging or producing invalid GLSL, reduced
to their essence, with the exact outcome now expected.

Each case: the minimal input inline and the exact diagnostics (severity, code, line/col,
message), or a translation (``ok``) with its exact warnings.  Binary TGSI inputs are token
streams in Mesa's layout, written as hex; the comment gives what they decode to.
"""
from __future__ import annotations

import pytest

from conftest import gl_runner

import xlate
from xlate import XlateError


def outcome(src):
    """The diagnostics of ``src`` translated to validated SPIR-V: a list for a rejected input,
    ``("ok", warnings)`` for a translation."""
    def rows(diags):
        return [(d.severity, d.code, (d.span.line, d.span.col) if d.span else None, d.message)
                for d in diags]
    try:
        t = xlate.translate(src, filename="t", target="spirv")
    except XlateError as e:
        return rows(e.diagnostics)
    assert t.spirv and len(t.spirv) % 4 == 0
    return ("ok", rows(t.diagnostics))


# -------------------------------------------------------------------------------------------------
# TGSI lowering (xlate/frontends/tgsi/lower*.py)
# -------------------------------------------------------------------------------------------------

def test_rejected_switch_then_case_is_a_diagnostic_not_indexerror():
    # fuzz seed 1 #4411: SWITCH rejected (|x| on an integer selector) before it recorded its CASE
    # values, then CASE indexed an empty stack (IndexError in _case)
    src = ("VERT\nDCL TEMP[0]\nIMM[0] INT32 {4, 6, 5, 2}\n  0: SWITCH |TEMP[0].yyyy|\n"
           "  1:   CASE IMM[0].xxxx\n  2:     BRK\n  3: ENDSWITCH\n  4: END\n")
    assert outcome(src) == [
        ("error", "E3004", (4, 6), "SWITCH reads integers: |x| is not allowed (tgsi.md 2.1)")]


def test_switch_with_wrong_operand_count_then_case():
    src = ("VERT\nDCL TEMP[0]\nIMM[0] INT32 {4, 6, 5, 2}\n  0: SWITCH\n  1:   CASE IMM[0].xxxx\n"
           "  2:     BRK\n  3: ENDSWITCH\n  4: END\n")
    assert outcome(src) == [("error", "E3003", (4, 6), "SWITCH takes 1 source operand, found 0")]


@pytest.mark.parametrize("op,target", [("TXL", "SHADOW2D_ARRAY"), ("TXB", "SHADOWCUBE")])
def test_lod_or_bias_on_a_shadow_target_without_a_free_coordinate(op, target):
    # fuzz seed 1 #2383 / #1174: textureLod/texture(bias) on sampler2DArrayShadow/samplerCubeShadow
    # need GL_EXT_texture_shadow_lod (E7002); the NV4 frontend already rejects these (GP4 2.X.8.Z)
    src = ("FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL SAMP[0]\nDCL TEMP[0]\n"
           f"  0: {op} TEMP[0], IN[0], SAMP[0], {target}\n  1: MOV OUT[0], TEMP[0]\n  2: END\n")
    ir_target = {"SHADOW2D_ARRAY": "SHADOWARRAY2D"}.get(target, target)
    assert outcome(src) == [
        ("error", "E5001", (6, 6), f"{op} cannot be used with {ir_target} (no coordinate left for "
         "the reference value; TGSI has TXB2/TXL2 for it)")]


def test_one_sampler_two_targets():
    # fuzz seed 1 #3628: SAMP[0] sampled as 1D and SHADOW1D: one GLSL sampler cannot be both
    src = ("FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL SAMP[0]\nDCL TEMP[0..1]\n"
           "  0: TEX TEMP[0], IN[0], SAMP[0], 1D\n  1: TEX TEMP[1], IN[0], SAMP[0], SHADOW1D\n"
           "  2: ADD OUT[0], TEMP[0], TEMP[1]\n  3: END\n")
    assert outcome(src) == [
        ("error", "E5002", (7, 6), "SAMP[0] is used with target SHADOW1D and 1D; one target per "
         "sampler")]


def test_texel_offset_out_of_range():
    # fuzz seed 1 #4003: an offset of 9 reached GLSL (outside gl_MaxProgramTexelOffset)
    src = ("VERT\nDCL IN[0]\nDCL OUT[0], POSITION\nDCL SAMP[0]\nIMM[0] INT32 {9, 6, 6, 1}\n"
           "  0: TXL OUT[0], IN[0], SAMP[0], 3D, IMM[0].xyz\n  1: END\n")
    assert outcome(src) == [("error", "E5003", (6, 6), "texel offset 9 out of range [-8, 7]")]


def test_texel_offset_components_beyond_the_target_are_ignored():
    # TGSI offsets always have three components; a 2D lookup uses two (z = 99 is not checked)
    src = ("VERT\nDCL IN[0]\nDCL OUT[0], POSITION\nDCL SAMP[0]\nIMM[0] INT32 {1, -2, 99, 1}\n"
           "  0: TXL OUT[0], IN[0], SAMP[0], 2D, IMM[0].xyz\n  1: END\n")
    assert outcome(src) == ("ok", [])


def test_texel_offset_on_a_cube_map():
    src = ("VERT\nDCL IN[0]\nDCL OUT[0], POSITION\nDCL SAMP[0]\nIMM[0] INT32 {1, 0, 0, 0}\n"
           "  0: TXL OUT[0], IN[0], SAMP[0], CUBE, IMM[0].xyz\n  1: END\n")
    assert outcome(src) == [
        ("error", "E5003", (6, 6), "texel offsets are not allowed with the CUBE target")]


def test_geometry_input_vertex_beyond_the_primitive():
    # fuzz seed 1 #3113 (a token stream): IN[1][0] of a POINTS primitive indexed a 1-element
    # GLSL array out of range (E7002)
    src = ("GEOM\nPROPERTY GS_INPUT_PRIMITIVE POINTS\nPROPERTY GS_OUTPUT_PRIMITIVE POINTS\n"
           "PROPERTY GS_MAX_OUTPUT_VERTICES 1\nDCL IN[][0], POSITION\nDCL OUT[0], POSITION\n"
           "  0: MOV OUT[0], IN[1][0]\n  1: EMIT\n  2: END\n")
    assert outcome(src) == [
        ("error", "E6003", (7, 6), "vertex 1 does not exist: the input primitive has 1 vertices")]


def test_negative_register_index_in_a_token_stream():
    # fuzz seed 1 #2042: VERT; DCL IN[0]; DCL OUT[0], POSITION; MOV OUT[0], IN[-32768]; END
    # (the source register's signed 16-bit Index field set to 0x8000): a negative GLSL location
    data = bytes.fromhex("020900000000000020200f000000000030302f0000000000000000003210a000"
                         "f30000000200203912500700")
    assert outcome(data) == [
        ("error", "E2006", (1, 1), "IN[-32768]: a register index cannot be negative")]


def test_vertex_input_beyond_the_attributes():
    # fuzz seed 1 #3971 (a token stream reading IN[16385]): location 16385 reached GLSL
    src = "VERT\nDCL IN[16385]\nDCL OUT[0], POSITION\n  0: MOV OUT[0], IN[16385]\n  1: END\n"
    assert outcome(src) == [
        ("error", "E2006", (4, 6), "IN[16385]: vertex inputs are vertex.attrib[0..15]")]


def test_relative_constant_read_with_no_buffer_declared():
    # fuzz seed 1 #379 / seed 2 #19600: CONST[ADDR[0].x+1] with only CONST[1][0] declared named
    # an IR register that did not exist (KeyError 'CONST' in the GLSL backend)
    src = ("VERT\nDCL IN[0]\nDCL OUT[0], POSITION\nDCL CONST[1][0]\nDCL ADDR[0]\n"
           "  0: ARL ADDR[0].x, IN[0].xxxx\n  1: MOV OUT[0], CONST[ADDR[0].x+1]\n  2: END\n")
    assert outcome(src) == [
        ("error", "E2003", (7, 6), "constant buffer 0 has no declared elements to address "
         "relatively (DCL CONST[first..last])")]


def test_relative_immediate_read_with_no_immediates():
    # fuzz seed 100 #562493 (a token stream): IMM[ADDR[0].y+2] named an IR register "IMM" that
    # was never made (KeyError 'IMM' in the GLSL backend)
    # VERT; DCL IN[0]; DCL OUT[0], POSITION; DCL ADDR[0]; ARL ADDR[0].x, IN[0].xxxx;
    # MOV OUT[0], IMM[ADDR[0].x+2]; END -- and no IMM token
    data = bytes.fromhex("020f00000000000020200f000000000030302f00000000000000000020600f0000"
                         "0000003200a00016000000020000004210a000f3000000970000390600000012500700")
    assert outcome(data) == [
        ("error", "E2003", (1, 1), "IMM[...] is addressed relatively, but the program has no "
         "immediates")]
    # the text parser says it itself
    src = ("VERT\nDCL IN[0]\nDCL OUT[0], POSITION\nDCL ADDR[0]\n  0: ARL ADDR[0].x, IN[0].xxxx\n"
           "  1: MOV OUT[0], IMM[ADDR[0].x+2]\n  2: END\n")
    assert outcome(src) == [
        ("error", "E2003", (6, 18), "IMM is addressed indirectly but the program has no "
         "immediates")]


def test_shadow_lookup_through_an_integer_sampler_view():
    # fuzz seed 2 #6790: SVIEW SINT + SHADOW2D produced an integer-typed depth comparison
    # (E7002); the comparison result is a float whatever the view's return type
    src = ("FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL SAMP[0]\n"
           "DCL SVIEW[0], 2D, SINT\n  0: TEX OUT[0], IN[0], SAMP[0], SHADOW2D\n  1: END\n")
    assert outcome(src) == ("ok", [])


def test_empty_write_mask_in_a_token_stream():
    # fuzz seed 2 #16460: a destination with WriteMask 0 (text cannot say it) became
    # "out_result_position. = vec0(...)"; it writes nothing, so it is dropped with a warning.
    # VERT; DCL IN[0]; DCL OUT[0], POSITION; MOV OUT[0].<none>, IN[0]; END
    data = bytes.fromhex("020900000000000020200f000000000030302f0000000000000000003210a000"
                         "030000000200003912500700")
    assert outcome(data) == ("ok", [
        ("warning", "E3005", (1, 1), "MOV has an empty write mask and writes nothing; ignored")])


def test_sampler_index_outside_the_texture_units():
    # fuzz seed 100 #82388 (a token stream with SAMP[-32768]): "layout(binding = -32768)"
    src = ("FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL SAMP[40]\n"
           "  0: TEX OUT[0], IN[0], SAMP[40], 2D\n  1: END\n")
    assert outcome(src) == [
        ("error", "E5004", (5, 6), "SAMP[40]: texture units are 0..31 (as texture[n] of the NV "
         "frontends)")]


def test_constant_buffer_beyond_the_parameter_buffers():
    # fuzz seed 100 #188260: DCL CONST[65535][0..5] became "layout(binding = 65575)"
    src = "FRAG\nDCL OUT[0], COLOR\nDCL CONST[65535][0..5]\n  MOV OUT[0], CONST[65535][0]\n  END\n"
    assert outcome(src) == [
        ("error", "E2006", (3, 5), "DCL CONST[65535][..]: constant buffers are 0..15 "
         "(program.buffer[b])"),
        ("error", "E2006", (4, 3), "CONST[65535][..]: constant buffers are 0..15 "
         "(program.buffer[b])")]


def test_switch_with_two_defaults():
    # fuzz seed 100 #236605: glslang "'default' : duplicate label"
    src = ("FRAG\nDCL OUT[0], COLOR\nDCL TEMP[0]\n  SWITCH TEMP[0].xxxx\n  DEFAULT\n  BRK\n"
           "  DEFAULT\n  BRK\n  ENDSWITCH\n  MOV OUT[0], TEMP[0]\n  END\n")
    assert outcome(src) == [("error", "E3004", (7, 3), "DEFAULT appears twice in this SWITCH")]


def test_fragment_color_output_beyond_the_draw_buffers():
    # fuzz seed 3 #9473 (a token stream): OUT COLOR[128] became layout(location = 128) out
    src = "FRAG\nDCL IN[0], COLOR, CONSTANT\nDCL OUT[0], COLOR[128]\n  0: MOV OUT[0], IN[0]\n  1: END\n"
    assert outcome(src) == [
        ("error", "E7001", (4, 6), "COLOR[128] is beyond the fragment outputs (COLOR[0..7], "
         "result.color[n])")]


def test_geometry_max_output_vertices_out_of_range():
    # fuzz seed 3 #9271: 2147483648 wrapped to a negative max_vertices
    src = ("GEOM\nPROPERTY GS_INPUT_PRIMITIVE TRIANGLES\nPROPERTY GS_OUTPUT_PRIMITIVE TRIANGLE_STRIP\n"
           "PROPERTY GS_MAX_OUTPUT_VERTICES 2147483648\nDCL OUT[0], POSITION\n  0: END\n")
    assert outcome(src) == [
        ("error", "E6001", (4, 10), "GS_MAX_OUTPUT_VERTICES 2147483648 is outside [1, 256] "
         "(gl_MaxGeometryOutputVertices, MAX_PROGRAM_OUTPUT_VERTICES_NV)")]


# -------------------------------------------------------------------------------------------------
# NV/ARB frontends
# -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("src", [
    "!!ARBvp1.0\nOPTION ARB_position_invariant;\nMOV result.texcoord[1], vertex.attrib[0].x;\nEND\n",
    "!!NVvp4.0\nOPTION ARB_position_invariant;\nMOV.F result.texcoord[1], vertex.attrib[0];\nEND\n",
], ids=["arbvp", "nv4"])
def test_position_invariant_program_reading_generic_attribute_0(src):
    # fuzz seed 102 (vertex.attrib[1e-5] = vertex.attrib[0]): the position-invariant transform
    # added a vertex.position input beside the program's vertex.attrib[0], two GLSL inputs at
    # location 0 ("overlapping use of location 0", E7002); it now reads the program's alias
    assert outcome(src) == ("ok", [])
    prog = xlate.parse(src)
    inputs = [r for r in prog.registers.values() if r.kind.name == "INPUT"]
    assert [b.text() for r in inputs for b in r.bindings] == ["vertex.attrib[0]"]


@pytest.mark.parametrize("src", ["!!FP1.0\nLRP o[COLH], 0x0, R0, R1;\nEND\n",
                                 "!!FP1.0\nMOV o[COLR], -0x3f800000;\nEND\n"])
def test_fp1_hex_scalar_constant(src):
    # fuzz seed 1 #3468: float("0x0") raised ValueError while counting FP1's distinct constants
    assert outcome(src) == ("ok", [])


def test_syntax_error_recovery_positions_one_line():
    # the statement-by-statement re-parse after a syntax error padded every statement with the
    # whole text before it (quadratic: a 46 KB program took over a second, fuzz seed 1 #429);
    # statements are now parsed alone and their positions shifted: the same diagnostics
    src = ("!!ARBfp1.0 TEMP t; MOV t, ; ADD t, t, fragment.color ; MUL t t, t; "
           "MOV result.color, t; END")
    assert outcome(src) == [
        ("error", "E1002", (1, 27), "unexpected ';'; expected '(', '{', '|', DOTTED, a name, a "
         "number, a sign, a texture target"),
        ("error", "E1002", (1, 63), "unexpected ','; expected ')', ';'")]


def test_syntax_error_recovery_positions_many_lines():
    src = ("!!NVfp4.0\nTEMP R0;\nMOV.F R0, ;\n  ADD.F R0, R0 fragment.color;\n"
           "MOV.F result.color, R0; MUL.F R0 R0, R0;\nEND\n")
    assert outcome(src) == [
        ("error", "E1002", (3, 11), "unexpected ';'; expected '(', '{', '|', DOTTED, a name, a "
         "number, a sign, a texture target"),
        ("error", "E1002", (4, 16), "unexpected 'fragment.color'; expected ',', ';'"),
        ("error", "E1002", (5, 36), "unexpected ','; expected ')', ';'")]


def test_syntax_errors_in_every_statement_keep_their_lines():
    # 2000 statements, each with an error: every one is reported at its own line
    body = "".join(f"MOV R0, ;\n" for _ in range(2000))
    diags = outcome("!!ARBfp1.0\nTEMP R0;\n" + body + "END\n")
    assert [d[2] for d in diags] == [(3 + k, 9) for k in range(2000)]
    assert {d[1] for d in diags} == {"E1002"}


# -------------------------------------------------------------------------------------------------
# GLSL backend
# -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("op,dtype,target", [("TEX", "S", "SHADOW2D"), ("TXB", "U", "SHADOW2D"),
                                             ("TXL", "U", "SHADOWARRAY1D"), ("TXP", "U", "SHADOWRECT"),
                                             ("TXD", "S", "SHADOW2D")])
def test_nv4_integer_typed_shadow_lookup(op, dtype, target):
    # fuzz seeds 1-3 (12 distinct E7002 keys): a SHADOW lookup with .S/.U assigned the float
    # comparison vec4 to an integer register.  GP4 2.X.4.4: the result is "interpreted as ...
    # integer according to the data type modifier" (undefined for a depth texture): its bits.
    extra = ", fragment.texcoord[1], fragment.texcoord[2]" if op == "TXD" else ""
    t = "INT" if dtype == "S" else "UINT"
    src = (f"!!NVfp4.0\n{t} TEMP I0;\n{op}.{dtype} I0, fragment.texcoord[0]{extra}, texture[0], "
           f"{target};\nI2F.{dtype} result.color, I0;\nEND\n")
    assert outcome(src) == ("ok", [])
    glsl = xlate.translate(src, target="glsl").glsl
    assert f"floatBitsTo{'Int' if dtype == 'S' else 'Uint'}(vec4(" in glsl


# -------------------------------------------------------------------------------------------------
# Geometry output limits (xlate/ir/limits.py): NV_geometry_program4 2.14.6.4 and GLSL agree
# -------------------------------------------------------------------------------------------------

def _gp4(nverts, extra=""):
    return ("!!NVgp4.0\nPRIMITIVE_IN POINTS;\nPRIMITIVE_OUT POINTS;\nVERTICES_OUT %d;\n"
            "MOV.F result.position, vertex[0].position;\n%sEMIT;\nEND\n" % (nverts, extra))


def _tgsi_gs(nverts, extra_dcl="", extra_ins=""):
    return ("GEOM\nPROPERTY GS_INPUT_PRIMITIVE POINTS\nPROPERTY GS_OUTPUT_PRIMITIVE POINTS\n"
            f"PROPERTY GS_MAX_OUTPUT_VERTICES {nverts}\nDCL IN[][0], POSITION\nDCL OUT[0], "
            f"POSITION\n{extra_dcl}  0: MOV OUT[0], IN[0][0]\n{extra_ins}  1: EMIT\n  2: END\n")


@pytest.mark.parametrize("nverts", [257, 553, 1023, 1024])
def test_nv4_vertices_out_above_the_output_vertex_limit(nverts):
    # fuzz seed 3 #13384 (TGSI GS_MAX_OUTPUT_VERTICES 553), seed 100 #220165 (NVgp4.0 1023):
    # accepted up to 1024, then glslang refused "max_vertices" above gl_MaxGeometryOutputVertices
    # (256; E7002).  The limit is now MAX_PROGRAM_OUTPUT_VERTICES_NV = 256, the spec's minimum
    # and GLSL's: a load error naming it
    assert outcome(_gp4(nverts)) == [
        ("error", "E6001", (4, 14), "VERTICES_OUT must be an integer in [1, 256] "
         "(MAX_PROGRAM_OUTPUT_VERTICES_NV, GEO4 2.14.6.4)")]
    assert outcome(_tgsi_gs(nverts)) == [
        ("error", "E6001", (4, 10), f"GS_MAX_OUTPUT_VERTICES {nverts} is outside [1, 256] "
         "(gl_MaxGeometryOutputVertices, MAX_PROGRAM_OUTPUT_VERTICES_NV)")]


@pytest.mark.parametrize("nverts", [1, 255, 256])
def test_nv4_vertices_out_at_the_output_vertex_limit(nverts):
    # 256 vertices of a 4-component position: 1024 components, both limits reached exactly
    assert outcome(_gp4(nverts)) == ("ok", [])
    assert outcome(_tgsi_gs(nverts)) == ("ok", [])
    glsl = xlate.translate(_gp4(nverts), target="glsl", profile="glsl450").glsl
    assert f"layout(points, max_vertices = {nverts}) out;" in glsl


def test_total_output_components_boundary():
    # GEO4 2.14.6.4: VERTICES_OUT x result components written <= 1024.  position (4) and
    # texcoord[0].x (1): 204 x 5 = 1020 loads, 205 x 5 = 1025 does not
    extra = "MOV.F result.texcoord[0].x, 1;\n"
    assert outcome(_gp4(204, extra)) == ("ok", [])
    assert outcome(_gp4(205, extra)) == [
        ("error", "E6001", (4, 14), "VERTICES_OUT 205 times the 5 result components written is "
         "1025, more than MAX_PROGRAM_TOTAL_OUTPUT_COMPONENTS_NV (1024, GEO4 2.14.6.4)")]
    dcl, ins = "DCL OUT[1], GENERIC[0]\n", "  0: MOV OUT[1].x, IN[0][0]\n"
    assert outcome(_tgsi_gs(204, dcl, ins)) == ("ok", [])
    assert outcome(_tgsi_gs(205, dcl, ins)) == [
        ("error", "E6001", (4, 10), "GS_MAX_OUTPUT_VERTICES 205 times the 5 output components "
         "written is 1025, more than gl_MaxGeometryTotalOutputComponents (1024)")]


def test_total_output_components_counting():
    # NV_gpu_program4 2.X.3.5: only written components count; a variable and a direct use of the
    # same binding share them; a relatively addressed result array counts all its bindings
    from xlate.ir.limits import result_components
    prog = xlate.parse(_gp4(1, "OUTPUT o = result.texcoord[1];\nMOV.F o.xy, 1;\n"
                                  "MOV.F result.texcoord[1].yz, 2;\n").replace(
        "MOV.F result.position", "MOV.F result.position.xyw"))
    assert result_components(prog) == 3 + 3
    prog = xlate.parse("!!NVgp4.0\nPRIMITIVE_IN POINTS;\nPRIMITIVE_OUT POINTS;\nVERTICES_OUT 1;\n"
                       "OUTPUT arr[] = { result.texcoord[0..2] };\nINT TEMP i;\n"
                       "MOV.F arr[i.x].x, 1;\nEMIT;\nEND\n")
    assert result_components(prog) == 3


# -------------------------------------------------------------------------------------------------
# GLSL backend: literal tables read with a relative index (declare_globals, param_relative)
# -------------------------------------------------------------------------------------------------

def test_tgsi_negative_zero_immediate_read_relatively():
    # fuzz seed 3 #10250 and seed 100 #86453 (token streams; 8 hits in 110,000 inputs):
    # -0.0 was written uintBitsToFloat(0x80000000u) inside a const array initializer, which
    # glslang does not accept as a constant expression (E7002).  -0.0 is spelled -0.0 now
    src = ("VERT\nDCL IN[0]\nDCL OUT[0], POSITION\nDCL ADDR[0]\n"
           "IMM[0] FLT32 {-0.0, 1.0, 1.0, 1.0}\nIMM[1] FLT32 {1.0, 0.0, 0.0, 1.0}\n"
           "  0: ARL ADDR[0].x, IN[0].xxxx\n  1: MOV OUT[0], IMM[ADDR[0].x+0]\n  2: END\n")
    assert outcome(src) == ("ok", [])
    glsl = xlate.translate(src, target="glsl").glsl
    assert "const vec4 xl_p_IMM[2] = vec4[2](vec4(-0.0, 1.0, 1.0, 1.0), vec4(1.0, 0.0, 0.0, 1.0));" \
        in glsl


_TABLES = {
    # NaN (quiet, negative, with a payload), infinities and -0.0: a table of bits
    "tgsi-special": ("VERT\nDCL IN[0]\nDCL OUT[0], POSITION\nDCL OUT[1], GENERIC[0]\nDCL ADDR[0]\n"
                     "IMM[0] FLT32 {-0.0, 0x7fc00000, 0x7f800000, 0xff800000}\n"
                     "IMM[1] FLT32 {0xffc00000, 0x7fc12345, -0.0, 1.0}\n"
                     "  0: ARL ADDR[0].x, IN[0].xxxx\n  1: MOV OUT[1], IMM[ADDR[0].x+0]\n"
                     "  2: MOV OUT[0], IN[0]\n  3: END\n"),
    "tgsi-int": ("VERT\nDCL IN[0]\nDCL OUT[0], POSITION\nDCL OUT[1], GENERIC[0]\nDCL ADDR[0]\n"
                 "IMM[0] INT32 {-1, 2, -2147483648, 4}\nIMM[1] INT32 {5, 6, 7, 8}\n"
                 "  0: ARL ADDR[0].x, IN[0].xxxx\n  1: MOV OUT[1], IMM[ADDR[0].x+0]\n"
                 "  2: MOV OUT[0], IN[0]\n  3: END\n"),
    # 1e39 overflows to +inf (GP4 2.X.4.4 float constants); -0.0 in a table of float literals
    "nv4": ("!!NVvp4.0\nPARAM arr[] = { {-0.0, 1e39, -1e39, 3}, {4, -0.0, 6, 7} };\n"
            "PARAM neg[] = { {-0.0, 1, 2, 3}, {4, 5, -0.0, 7} };\n"
            "INT PARAM iarr[] = { {-1, 2, -2147483648, 4}, {5, 6, 7, 8} };\nINT TEMP a;\n"
            "FLR.S a.x, vertex.attrib[0].x;\nMOV result.texcoord[0], arr[a.x];\n"
            "MOV result.texcoord[1], neg[a.x];\nMOV.S result.texcoord[2], iarr[a.x];\n"
            "MOV result.position, vertex.attrib[0];\nEND\n"),
}


@pytest.mark.parametrize("name", sorted(_TABLES))
@pytest.mark.parametrize("profile", ["glsl450", "glsl330", "es310", "vulkan"])
def test_relatively_read_literal_tables_translate(name, profile):
    # tables with integers, NaN or infinities (no GLSL literal: only uintBitsToFloat spells them,
    # and glslang does not fold it in a const initializer) were E7002 in every profile
    # (the glslang path: the GLSL must compile, so the SPIR-V is asked of it)
    assert xlate.translate(_TABLES[name], target="spirv" if profile == "vulkan" else "glsl",
                           profile=profile, via="glsl").glsl


def test_relatively_read_literal_tables_glsl():
    glsl = xlate.translate(_TABLES["nv4"], target="glsl").glsl
    # a table of finite floats stays a const vec4 array, -0.0 spelled as such ...
    assert "const vec4 xl_p_neg[2] = vec4[2](vec4(-0.0, 1.0, 2.0, 3.0), vec4(4.0, 5.0, -0.0, 7.0));" \
        in glsl
    # ... one with an infinity, or integers, is a const uvec4 array of the bits, read through
    # uintBitsToFloat; integer reads take the bits directly (no float in between)
    assert ("const uvec4 xl_p_arr[2] = uvec4[2](uvec4(0x80000000u, 0x7f800000u, 0xff800000u, "
            "0x40400000u), uvec4(0x40800000u, 0x80000000u, 0x40c00000u, 0x40e00000u));") in glsl
    assert "result_texcoord_0 = uintBitsToFloat(xl_p_arr[clamp(a.x, 0, 1)]);" in glsl
    assert "result_texcoord_1 = xl_p_neg[clamp(a.x, 0, 1)];" in glsl
    assert ("const uvec4 xl_p_iarr[2] = uvec4[2](uvec4(0xffffffffu, 2u, 0x80000000u, 4u), "
            "uvec4(5u, 6u, 7u, 8u));") in glsl
    assert "ivec4(xl_p_iarr[clamp(a.x, 0, 1)])" in glsl


@pytest.mark.parametrize("backend", ["gl", "gl-spirv"])
@pytest.mark.parametrize("name", sorted(_TABLES))
def test_relatively_read_literal_tables_bit_exact_on_gl(name, backend):
    """Executor and the translation on an OpenGL implementation (llvmpipe; skipped without
    one) agree bit for bit on every element of every table, NaN payloads included."""
    import numpy as np
    from xlate.backends.glsl import emit_glsl
    from xlate.verify import draw_run
    from xlate.verify.inputs import GeneratedInputs
    runner = gl_runner(backend)
    prog = xlate.parse(_TABLES[name])
    out = emit_glsl(prog, "vulkan" if backend == "gl-spirv" else "glsl450")
    binding = next(b.text() for r in prog.registers.values() if r.kind.name == "INPUT"
                   for b in r.bindings if b is not None)
    # indices 0, 1, then 2 and -1 (clamped to the table)
    pos = np.array([[0, 0, 0, 1], [1, 0, 0, 1], [2, 0, 0, 1], [-1, 0, 0, 1]], np.float32)
    gen = GeneratedInputs(4, inputs={binding: pos.view(np.uint32)}, params={})
    res = draw_run.run_executor(prog, gen, 4)
    cap = draw_run.run_gl(runner, prog, out.source, out.reflection, gen, 4)
    compared = 0
    for o in out.reflection["outputs"]:
        if o["binding"] == "result.position":
            continue
        want = np.asarray(res.words(o["binding"]), np.uint32)
        got = np.asarray(cap.outputs[o["name"]], np.uint32)
        assert [[hex(w) for w in row] for row in got] == [[hex(w) for w in row] for row in want]
        compared += 1
    assert compared == (3 if name == "nv4" else 1)
    # the special values really are in the tables
    words = {int(w) for o in out.reflection["outputs"] if o["binding"] != "result.position"
             for w in np.asarray(res.words(o["binding"])).ravel()}
    assert 0x80000000 in words
    if name == "tgsi-special":
        assert {0x7fc00000, 0x7f800000, 0xff800000, 0xffc00000, 0x7fc12345} <= words


# (found with the two fuzz cases above; fixed: xlate/cli.py turns the printer's refusal into
# E7001)
def test_cli_tgsi_text_of_an_inexpressible_token_stream(tmp_path, capsys):
    from xlate.cli import main
    # the empty-write-mask stream of test_empty_write_mask_in_a_token_stream
    path = tmp_path / "t.bin"
    path.write_bytes(bytes.fromhex("020900000000000020200f000000000030302f0000000000000000003210a000"
                                   "030000000200003912500700"))
    assert main(["convert", "--target", "tgsi", str(path)]) == 1
    err = capsys.readouterr().err
    assert f"{path}:1:1: error[E7001]: TGSI text cannot express an empty write mask; no " \
           "tgsi_dump text for this program" in err
