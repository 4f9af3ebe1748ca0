"""TGSI text parser (xlate/frontends/tgsi/text*.py): every declaration and operand form, the
lenient forms (hex floats, CR/CRLF, short swizzles, virgl one-line programs, legacy spellings),
every error path with its exact diagnostic, garbage resistance, and the collected corpus."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from conftest import SHARED_CORPUS, shared_corpus_or_skip

from xlate.diagnostics import DiagnosticSink, Span
from xlate.frontends.tgsi.model import (Declaration, Dst, Immediate, Indirect, Instruction,
                                        Property, RegRef, Shader, Src)
from xlate.frontends.tgsi.text import parse_float32, parse_float64, parse_text

ROOT = Path(__file__).resolve().parents[1]
CORPUS = SHARED_CORPUS / "collected" / "tgsi"


def parse(src: str, name: str = "t.tgsi"):
    sink = DiagnosticSink(name, src)
    shader = parse_text(src, sink)
    return shader, [d.header() for d in sink.items]


def ok(src: str) -> Shader:
    shader, diags = parse(src)
    assert shader is not None and diags == [], diags
    return shader


def errors(src: str) -> list[str]:
    shader, diags = parse(src)
    assert shader is None
    return diags


def decl(line: str, processor: str = "FRAG") -> Declaration:
    return ok(f"{processor}\n{line}\nEND\n").declarations[0]


T0 = RegRef("TEMP", 0)
T1 = RegRef("TEMP", 1)


def inst(body: str, dcls: str = "", processor: str = "FRAG") -> Instruction:
    src = (f"{processor}\nDCL TEMP[0..3]\nDCL ADDR[0..1]\nDCL CONST[0..7]\nDCL CONST[1][0..3]\n"
           f"DCL SAMP[0]\nDCL SVIEW[0], 2D, FLOAT\nDCL IN[0..1]\nDCL OUT[0]\nDCL BUFFER[0]\n"
           f"DCL IMAGE[0], 2D, PIPE_FORMAT_R32G32B32A32_FLOAT, WR\n{dcls}"
           "IMM[0] FLT32 {    0.0000,     1.0000,     2.0000,     3.0000}\n"
           "IMM[1] INT32 {1, -1, 0, 0}\n"
           f"  0: {body}\n  1: END\n")
    return ok(src).instructions[0]


# ---- header, properties ---------------------------------------------------------------------
@pytest.mark.parametrize("head, processor", [
    ("VERT", "VERT"), ("FRAG", "FRAG"), ("GEOM", "GEOM"), ("TESS_CTRL", "TESS_CTRL"),
    ("TESS_EVAL", "TESS_EVAL"), ("COMP", "COMP"), ("  \n frag", "FRAG")])
def test_headers(head, processor):
    shader = ok(f"{head}\nEND\n")
    assert shader.processor == processor and shader.version is None
    assert shader.instructions == [Instruction("END")]


def test_legacy_header_sets_version():
    shader = ok("FRAG1.1\nDCL TEMP[0]\n  0: KILP\n  1: END\n")
    assert (shader.processor, shader.version) == ("FRAG", (1, 1))
    assert ok("VERT1.1\nEND\n").version == (1, 1)


def test_properties():
    shader = ok("GEOM\nPROPERTY GS_INPUT_PRIMITIVE triangles\n"
                "PROPERTY GS_OUTPUT_PRIMITIVE LINE_STRIP\nPROPERTY GS_MAX_OUTPUT_VERTICES 3\n"
                "property fs_coord_origin lower_left\nPROPERTY FS_COORD_PIXEL_CENTER INTEGER\n"
                "PROPERTY NEXT_SHADER FRAG\nPROPERTY VS_POSITION_WINDOW_SPACE 1\nEND\n")
    assert shader.properties == [
        Property("GS_INPUT_PRIMITIVE", "TRIANGLES"), Property("GS_OUTPUT_PRIMITIVE", "LINE_STRIP"),
        Property("GS_MAX_OUTPUT_VERTICES", "3"), Property("FS_COORD_ORIGIN", "LOWER_LEFT"),
        Property("FS_COORD_PIXEL_CENTER", "INTEGER"), Property("NEXT_SHADER", "FRAG"),
        Property("VS_POSITION_WINDOW_SPACE", "1")]
    assert shader.properties[0].span == Span("t.tgsi", 2, 10, 18)


# ---- declarations ---------------------------------------------------------------------------
@pytest.mark.parametrize("line, processor, expected", [
    ("DCL TEMP[0]", "FRAG", Declaration("TEMP", 0, 0)),
    ("DCL TEMP[1..258], LOCAL", "FRAG", Declaration("TEMP", 1, 258, local=True)),
    ("DCL TEMP[0..2], ARRAY(1), LOCAL", "FRAG",
     Declaration("TEMP", 0, 2, array_id=1, local=True)),
    ("DCL CONST[1][0..3]", "FRAG", Declaration("CONST", 0, 3, dim=1)),
    ("DCL CONST[0..7]", "VERT", Declaration("CONST", 0, 7)),
    ("DCL IN[][0], POSITION", "GEOM",
     Declaration("IN", 0, 0, implicit_dim=True, semantic="POSITION")),
    ("DCL IN[3][1], GENERIC[20]", "GEOM",
     Declaration("IN", 1, 1, implicit_dim=True, semantic="GENERIC", semantic_index=20)),
    ("DCL IN[][2], TEXCOORD[1]", "TESS_EVAL",
     Declaration("IN", 2, 2, implicit_dim=True, semantic="TEXCOORD", semantic_index=1)),
    ("DCL OUT[][0], POSITION", "TESS_CTRL",
     Declaration("OUT", 0, 0, implicit_dim=True, semantic="POSITION")),
    ("DCL OUT[5], TESSOUTER", "TESS_CTRL", Declaration("OUT", 5, 5, semantic="TESSOUTER")),
    ("DCL IN[0].xy, GENERIC[3], PERSPECTIVE, CENTROID", "FRAG",
     Declaration("IN", 0, 0, usage_mask=(True, True, False, False), semantic="GENERIC",
                 semantic_index=3, interpolate="PERSPECTIVE", location="CENTROID")),
    ("DCL IN[0].xyzw, COLOR", "FRAG", Declaration("IN", 0, 0, semantic="COLOR")),
    ("DCL IN[1], COLOR[1], COLOR, SAMPLE", "FRAG",
     Declaration("IN", 1, 1, semantic="COLOR", semantic_index=1, interpolate="COLOR",
                 location="SAMPLE")),
    ("DCL IN[2], FACE, CONSTANT, CENTER", "FRAG",
     Declaration("IN", 2, 2, semantic="FACE", interpolate="CONSTANT")),
    ("DCL IN[3], CONSTANT", "FRAG", Declaration("IN", 3, 3, interpolate="CONSTANT")),
    ("DCL OUT[0], POSITION, INVARIANT", "VERT",
     Declaration("OUT", 0, 0, semantic="POSITION", invariant=True)),
    ("DCL OUT[1], GENERIC[0], STREAM(0, 1, 2, 3)", "GEOM",
     Declaration("OUT", 1, 1, semantic="GENERIC", stream=(0, 1, 2, 3))),
    ("DCL OUT[1], GENERIC[0], STREAM(0, 0, 0, 0)", "GEOM",
     Declaration("OUT", 1, 1, semantic="GENERIC")),
    # per-vertex 2-D follows the processor/file/semantic (Mesa's dumper rule), brackets or not
    ("DCL IN[0], POSITION", "GEOM", Declaration("IN", 0, 0, implicit_dim=True,
                                                semantic="POSITION")),
    ("DCL IN[2], PATCH[0]", "TESS_EVAL", Declaration("IN", 2, 2, semantic="PATCH")),
    ("DCL IN[][2], PATCH[0]", "TESS_EVAL", Declaration("IN", 2, 2, semantic="PATCH")),
    ("DCL IN[0], PRIM_ID", "TESS_CTRL", Declaration("IN", 0, 0, semantic="PRIM_ID")),
    ("DCL IN[1], GENERIC[0]", "TESS_CTRL", Declaration("IN", 1, 1, implicit_dim=True,
                                                       semantic="GENERIC")),
    ("DCL OUT[1], GENERIC[0]", "TESS_EVAL", Declaration("OUT", 1, 1, semantic="GENERIC")),
    ("DCL IN[0], POSITION", "VERT", Declaration("IN", 0, 0, semantic="POSITION")),
    ("DCL SV[0], THREAD_ID", "COMP", Declaration("SV", 0, 0, semantic="THREAD_ID")),
    ("DCL SV[1], BLOCK_ID[0]", "COMP", Declaration("SV", 1, 1, semantic="BLOCK_ID")),
    ("DCL SVIEW[0], 2D, FLOAT", "FRAG",
     Declaration("SVIEW", 0, 0, target="2D", return_types=("FLOAT",) * 4)),
    ("DCL SVIEW[1..2], 2D_ARRAY, UINT, SINT, UNORM, FLOAT", "FRAG",
     Declaration("SVIEW", 1, 2, target="2D_ARRAY",
                 return_types=("UINT", "SINT", "UNORM", "FLOAT"))),
    ("DCL IMAGE[0], 2D, PIPE_FORMAT_R32_UINT, WR", "COMP",
     Declaration("IMAGE", 0, 0, target="2D", format="PIPE_FORMAT_R32_UINT", writable=True)),
    ("DCL IMAGE[1], BUFFER, RAW, WR", "COMP",
     Declaration("IMAGE", 1, 1, target="BUFFER", raw=True, writable=True)),
    ("DCL RES[0], BUFFER, RAW, WR", "COMP",
     Declaration("RES", 0, 0, target="BUFFER", raw=True, writable=True)),
    ("DCL RES[0], 2D, FLOAT", "FRAG",
     Declaration("RES", 0, 0, target="2D", return_types=("FLOAT",) * 4)),
    ("DCL BUFFER[0], ATOMIC", "COMP", Declaration("BUFFER", 0, 0, atomic=True)),
    ("DCL BUFFER[1]", "COMP", Declaration("BUFFER", 1, 1)),
    ("DCL MEMORY[0], SHARED", "COMP", Declaration("MEMORY", 0, 0, memory_type="SHARED")),
    ("DCL MEMORY[1], GLOBAL", "COMP", Declaration("MEMORY", 1, 1)),
    ("DCL SAMP[0..3]", "FRAG", Declaration("SAMP", 0, 3)),
    ("dcl temp[0], local", "FRAG", Declaration("TEMP", 0, 0, local=True)),
])
def test_declaration_forms(line, processor, expected):
    assert decl(line, processor) == expected


def test_declaration_span_is_the_register_file():
    assert decl("DCL TEMP[0]").span == Span("t.tgsi", 2, 5, 4)


# ---- immediates -----------------------------------------------------------------------------
def test_immediates_of_every_type():
    shader = ok("FRAG\n"
                "IMM[0] FLT32 {    1.0000,    -0.5000, 0x3f800000, 0x7fc00001}\n"
                "IMM FLT32 { 0.1, 1e-45, -0.0, -inf }\n"
                "IMM[2] UINT32 {0, 4294967295, 7, 8}\n"
                "IMM[3] INT32 {-2147483648, 2147483647, -1, +5}\n"
                "IMM[4] FLT64 {1.0, 0x1.8p1}\n"
                "IMM[5] UINT64 {18446744073709551615, 0x10}\n"
                "IMM[6] INT64 {-1, 010}\n"
                "IMM[7] FLT64 {0x7ff8000000000001, -0.1}\nEND\n")
    assert shader.immediates == [
        Immediate("FLT32", (0x3F800000, 0xBF000000, 0x3F800000, 0x7FC00001)),
        Immediate("FLT32", (0x3DCCCCCD, 0x00000001, 0x80000000, 0xFF800000)),
        Immediate("UINT32", (0, 0xFFFFFFFF, 7, 8)),
        Immediate("INT32", (0x80000000, 0x7FFFFFFF, 0xFFFFFFFF, 5)),
        Immediate("FLT64", (0, 0x3FF00000, 0, 0x40080000)),
        Immediate("UINT64", (0xFFFFFFFF, 0xFFFFFFFF, 16, 0)),
        Immediate("INT64", (0xFFFFFFFF, 0xFFFFFFFF, 8, 0)),
        Immediate("FLT64", (1, 0x7FF80000, 0x9999999A, 0xBFB99999)),
    ]


@pytest.mark.parametrize("text, bits", [
    ("0x3f800000", 0x3F800000), ("0X3F800000", 0x3F800000), ("1", 0x3F800000),
    ("0x1p0", 0x3F800000), ("0x10", 0x41800000), ("-0x3f800000", 0xCE7E0000),
    (".5", 0x3F000000), ("5.", 0x40A00000), ("1e-46", 0), ("3.4028236e38", 0x7F800000),
    ("NaN", 0x7FC00000), ("-nan", 0xFFC00000), ("Infinity", 0x7F800000),
    # half-way between two float32 values after rounding to double: the text decides
    ("1.000000059604644775390625", 0x3F800000),
    ("1.00000005960464477539062500001", 0x3F800001),
    ("1.0000001788139343261718750", 0x3F800002),
    ("1.0.0", None), ("0x3f80000g", None), ("1e", None), ("", None), ("1_0", None)])
def test_flt32_literals(text, bits):
    assert parse_float32(text) == bits


def test_flt64_literals():
    assert parse_float64("0x3ff0000000000000") == 0x3FF0000000000000
    assert parse_float64("1e400") == 0x7FF0000000000000
    assert parse_float64("0x1p99999") == 0x7FF0000000000000
    assert parse_float64("abc") is None


# ---- instructions and operands --------------------------------------------------------------
def test_operand_forms():
    def src(reg, swizzle=(0, 1, 2, 3), **kw):
        return Src(reg, swizzle, **kw)
    cases = {
        "MOV TEMP[0].xz, -|IN[1].yyww|":
            Instruction("MOV", (Dst(T0, (True, False, True, False)),),
                        (src(RegRef("IN", 1), (1, 1, 3, 3), abs=True, abs_neg=True),)),
        "MOV TEMP[0], |IN[1]|": Instruction("MOV", (Dst(T0),), (src(RegRef("IN", 1), abs=True),)),
        "MOV TEMP[0], -IN[1].wzyx": Instruction("MOV", (Dst(T0),),
                                                (src(RegRef("IN", 1), (3, 2, 1, 0), neg=True),)),
        "MAD_SAT OUT[0], CONST[1][3], TEMP[0].xxxx, IMM[0].wzyx":
            Instruction("MAD", (Dst(RegRef("OUT", 0)),),
                        (src(RegRef("CONST", 3, dim=1)), src(T0, (0, 0, 0, 0)),
                         src(RegRef("IMM", 0), (3, 2, 1, 0))), saturate="SAT"),
        "UARL ADDR[0].x, TEMP[1].xxxx":
            Instruction("UARL", (Dst(RegRef("ADDR", 0), (True, False, False, False)),),
                        (src(T1, (0, 0, 0, 0)),)),
        "MOV TEMP[2], CONST[0][ADDR[0].x+4]":
            Instruction("MOV", (Dst(RegRef("TEMP", 2)),),
                        (src(RegRef("CONST", 4, Indirect("ADDR", 0, 0), dim=0)),)),
        "MOV TEMP[ADDR[0].x+1](2).y, IMM[0].xxxx":
            Instruction("MOV", (Dst(RegRef("TEMP", 1, Indirect(), array_id=2),
                                    (False, True, False, False)),),
                        (src(RegRef("IMM", 0), (0, 0, 0, 0)),)),
        "MOV TEMP[0], CONST[ADDR[1].y-3]":
            Instruction("MOV", (Dst(T0),), (src(RegRef("CONST", -3, Indirect("ADDR", 1, 1))),)),
        "MOV TEMP[0], CONST[ADDR[1]]":
            Instruction("MOV", (Dst(T0),), (src(RegRef("CONST", 0, Indirect("ADDR", 1, 0))),)),
        "MOV TEMP[0], IMM[ADDR[0].x + 1]":
            Instruction("MOV", (Dst(T0),), (src(RegRef("IMM", 1, Indirect())),)),
        "MOV TEMP[0], CONST[ADDR[0].y][0]":
            Instruction("MOV", (Dst(T0),),
                        (src(RegRef("CONST", 0, dim=0, dim_indirect=Indirect("ADDR", 0, 1))),)),
        "MOV TEMP[0], CONST[ADDR[0].z+1](3)[2]":
            Instruction("MOV", (Dst(T0),),
                        (src(RegRef("CONST", 2, dim=1,
                                    dim_indirect=Indirect("ADDR", 0, 2, array_id=3))),)),
        "TEX TEMP[3], IN[0], SAMP[0], 2D, IMM[1].xyz":
            Instruction("TEX", (Dst(RegRef("TEMP", 3)),),
                        (src(RegRef("IN", 0)), src(RegRef("SAMP", 0))), texture="2D",
                        tex_offsets=(src(RegRef("IMM", 1), (0, 1, 2, 3)),)),
        "TXF TEMP[0], TEMP[1], SAMP[0], BUFFER":
            Instruction("TXF", (Dst(T0),), (src(T1), src(RegRef("SAMP", 0))), texture="BUFFER"),
        "TG4 TEMP[0], TEMP[1], TEMP[2].xxxx, SAMP[0], SHADOWCUBEARRAY, IMM[1].yxz, IMM[1].zzz":
            Instruction("TG4", (Dst(T0),), (src(T1), src(RegRef("TEMP", 2), (0, 0, 0, 0)),
                                            src(RegRef("SAMP", 0))),
                        texture="SHADOWCUBEARRAY",
                        tex_offsets=(src(RegRef("IMM", 1), (1, 0, 2, 3)),
                                     src(RegRef("IMM", 1), (2, 2, 2, 3)))),
        "SAMPLE TEMP[3], IN[0], SVIEW[0], SAMP[0]":
            Instruction("SAMPLE", (Dst(RegRef("TEMP", 3)),),
                        (src(RegRef("IN", 0)), src(RegRef("SVIEW", 0)), src(RegRef("SAMP", 0))),
                        texture="UNKNOWN"),
        "SAMPLE TEMP[3], IN[0], SVIEW[0], SAMP[0], IMM[1].xyz":
            Instruction("SAMPLE", (Dst(RegRef("TEMP", 3)),),
                        (src(RegRef("IN", 0)), src(RegRef("SVIEW", 0)), src(RegRef("SAMP", 0))),
                        texture="UNKNOWN", tex_offsets=(src(RegRef("IMM", 1)),)),
        "MUL_PRECISE TEMP[0], TEMP[1], TEMP[1]":
            Instruction("MUL", (Dst(T0),), (src(T1), src(T1)), precise=True),
        "mad_sat_precise temp[0], temp[1], temp[1], temp[1]":
            Instruction("MAD", (Dst(T0),), (src(T1),) * 3, saturate="SAT", precise=True),
        "LOAD TEMP[0].x, BUFFER[0], TEMP[1].xxxx, COHERENT":
            Instruction("LOAD", (Dst(T0, (True, False, False, False)),),
                        (src(RegRef("BUFFER", 0)), src(T1, (0, 0, 0, 0))), memory=("COHERENT",)),
        "LOAD TEMP[0], IMAGE[0], TEMP[1], PIPE_FORMAT_R32G32B32A32_FLOAT, 2D, VOLATILE, "
        "RESTRICT":
            Instruction("LOAD", (Dst(T0),), (src(RegRef("IMAGE", 0)), src(T1)),
                        memory=("RESTRICT", "VOLATILE", "2D", "PIPE_FORMAT_R32G32B32A32_FLOAT")),
        "STORE BUFFER[0].x, TEMP[1].xxxx, TEMP[2].xxxx":
            Instruction("STORE", (Dst(RegRef("BUFFER", 0), (True, False, False, False)),),
                        (src(T1, (0, 0, 0, 0)), src(RegRef("TEMP", 2), (0, 0, 0, 0)))),
        "IF TEMP[0].xxxx :11": Instruction("IF", (), (src(T0, (0, 0, 0, 0)),), label=11),
        "UIF TEMP[0].xxxx": Instruction("UIF", (), (src(T0, (0, 0, 0, 0)),)),
        "BGNLOOP :0": Instruction("BGNLOOP", label=0),
        "BGNSUB :4": Instruction("BGNSUB", label=4),
        "CAL :7": Instruction("CAL", label=7),
        "ELSE": Instruction("ELSE"),
        "KILL": Instruction("KILL"),
        "EMIT IMM[1].xxxx": Instruction("EMIT", (), (src(RegRef("IMM", 1), (0, 0, 0, 0)),)),
        "EMIT": Instruction("EMIT"),
        "ENDPRIM": Instruction("ENDPRIM"),
        "BARRIER": Instruction("BARRIER"),
    }
    for body, expected in cases.items():
        assert inst(body) == expected, body


def test_two_dimensional_inputs_of_a_geometry_shader():
    shader = ok("GEOM\nPROPERTY GS_INPUT_PRIMITIVE TRIANGLES\nDCL IN[][0], POSITION\n"
                "DCL OUT[0], POSITION\nDCL ADDR[0]\n"
                "  0: MOV OUT[0], IN[2][0]\n  1: MOV OUT[0], IN[ADDR[0].x][0]\n"
                "  2: EMIT\n  3: END\n")
    assert shader.instructions[0].srcs[0].reg == RegRef("IN", 0, dim=2)
    assert shader.instructions[1].srcs[0].reg == RegRef("IN", 0, dim=0,
                                                        dim_indirect=Indirect())


@pytest.mark.parametrize("old, new, nsrc", [
    ("KILP", "KILL", 0), ("KIL TEMP[0]", "KILL_IF", 1), ("LERP TEMP[0], TEMP[0], TEMP[0], "
                                                         "TEMP[0]", "LRP", 3),
    ("FRAC TEMP[0], TEMP[0]", "FRC", 1), ("FLOOR TEMP[0], TEMP[0]", "FLR", 1),
    ("EXPBASE2 TEMP[0], TEMP[0]", "EX2", 1), ("LOGBASE2 TEMP[0], TEMP[0]", "LG2", 1),
    ("POWER TEMP[0], TEMP[0], TEMP[0]", "POW", 2), ("BGNLOOP2", "BGNLOOP", 0),
    ("CROSSPRODUCT TEMP[0], TEMP[0], TEMP[0]", "XPD", 2),
    ("SUB_SAT TEMP[0], TEMP[0], TEMP[0]", "SUB", 2)])
def test_legacy_opcode_spellings(old, new, nsrc):
    got = inst(old)
    assert got.opcode == new and len(got.srcs) == nsrc


def test_instruction_numbers_are_ignored_and_spans_point_at_the_opcode():
    shader = ok("FRAG\nDCL TEMP[0]\n 12: MOV TEMP[0], TEMP[0]\n7:MOV TEMP[0], TEMP[0]\n"
                "MOV TEMP[0], TEMP[0]\n  END\n")
    assert [i.span for i in shader.instructions] == [
        Span("t.tgsi", 3, 6, 3), Span("t.tgsi", 4, 3, 3), Span("t.tgsi", 5, 1, 3),
        Span("t.tgsi", 6, 3, 3)]


# ---- lenient forms --------------------------------------------------------------------------
PROGRAM = ("FRAG\nPROPERTY FS_COORD_ORIGIN LOWER_LEFT\nDCL IN[0], GENERIC[0], PERSPECTIVE\n"
           "DCL OUT[0], COLOR\nDCL SAMP[0]\nDCL SVIEW[0], 2D, FLOAT\nDCL TEMP[0]\n"
           "IMM[0] FLT32 {0x3f800000, 0x00000000, 0xbf000000, 0x7f800000}\n"
           "  0: TEX TEMP[0], IN[0], SAMP[0], 2D\n  1: IF TEMP[0].xxxx :3\n"
           "  2:   MOV OUT[0], TEMP[0]\n  3: ELSE :5\n  4:   MOV OUT[0], -IMM[0].zzzz\n"
           "  5: ENDIF\n  6: END\n")


def test_crlf_and_bare_cr_line_ends():
    reference = ok(PROGRAM)
    assert ok(PROGRAM.replace("\n", "\r\n")) == reference
    assert ok(PROGRAM.replace("\n", "\r")) == reference
    crlf = ok(PROGRAM.replace("\n", "\r\n"))
    assert crlf.instructions[1].span == Span("t.tgsi", 10, 6, 2)


def test_virgl_one_line_form():
    one_line = " ".join(PROGRAM.split())
    assert "\n" not in one_line
    shader = ok(one_line)
    assert shader == ok(PROGRAM)
    assert shader.immediates[0].words == (0x3F800000, 0, 0xBF000000, 0x7F800000)
    assert shader.instructions[3] == Instruction("ELSE", label=5)
    # everything separated by single spaces, numbers glued to their opcode
    assert ok("FRAG DCL TEMP[0] 0:MOV TEMP[0], TEMP[0] 1:END").instructions[0].opcode == "MOV"


def test_tabs_and_odd_spacing():
    shader = ok("FRAG\n\tDCL\tTEMP[ 0 .. 1 ]\n  0:\tADD TEMP[ 0 ] , TEMP [1] . xxxx , - TEMP[1]\n"
                "END")
    assert shader.declarations == [Declaration("TEMP", 0, 1)]
    assert shader.instructions[0].srcs == (Src(T1, (0, 0, 0, 0)), Src(T1, neg=True))


def test_short_swizzles_are_accepted_with_a_warning():
    shader, diags = parse("FRAG\nDCL TEMP[0]\n  0: MOV TEMP[0], TEMP[0].y\n"
                          "  1: ADD TEMP[0], TEMP[0].xz, -TEMP[0].xyW\n  2: END\n")
    assert [i.srcs for i in shader.instructions[:2]] == [
        (Src(T0, (1, 1, 1, 1)),),
        (Src(T0, (0, 2, 2, 2)), Src(T0, (0, 1, 3, 3), neg=True))]
    assert diags == [
        "t.tgsi:3:27: warning[E1006]: short swizzle '.y' read as '.yyyy' (TGSI swizzles have "
        "four letters)",
        "t.tgsi:4:27: warning[E1006]: short swizzle '.xz' read as '.xzzz' (TGSI swizzles have "
        "four letters)",
        "t.tgsi:4:40: warning[E1006]: short swizzle '.xyW' read as '.xyww' (TGSI swizzles have "
        "four letters)"]


def test_keywords_are_case_insensitive_and_whole_words():
    shader = ok("frag\ndcl in[0], generic[0], perspective\ndcl temp[0]\ndcl samp[0]\n"
                "imm[0] flt32 {1, 2, 3, 4}\n"
                "  0: tex_lz temp[0].xY, in[0], samp[0], 2d_array\n  1: ddx_fine temp[0], in[0]\n"
                "  2: end\n")
    assert [i.opcode for i in shader.instructions] == ["TEX_LZ", "DDX_FINE", "END"]
    assert shader.instructions[0].texture == "2D_ARRAY"
    # DDX must not swallow DDX_FINE, IN must not match INPUT
    assert errors("FRAG\nDCL INPUT[0]\nEND\n") == [
        "t.tgsi:2:5: error[E3004]: unknown register file 'INPUT'"]


def test_missing_end_is_a_warning_and_end_is_appended():
    shader, diags = parse("COMP\nDCL TEMP[0]\n  BGNSUB\n  MOV TEMP[0], TEMP[0]\n  RET\n  ENDSUB\n")
    assert diags == ["t.tgsi:7:1: warning[E1004]: program has no END; one is assumed at the end"]
    assert [i.opcode for i in shader.instructions] == ["BGNSUB", "MOV", "RET", "ENDSUB", "END"]


def test_instructions_after_end_are_allowed():
    shader = ok("FRAG\nDCL TEMP[0]\n  0: CAL :2\n  1: END\n  2: BGNSUB :2\n  3: RET\n"
                "  4: ENDSUB\n")
    assert [i.label for i in shader.instructions] == [2, None, 2, None, None]


# ---- errors ---------------------------------------------------------------------------------
@pytest.mark.parametrize("src, expected", [
    ("", ["t.tgsi:1:1: error[E1001]: empty program: expected a processor header (VERT, FRAG, "
          "GEOM, TESS_CTRL, TESS_EVAL or COMP)"]),
    ("FRAGMENT\nEND\n", ["t.tgsi:1:1: error[E1001]: expected a processor header (VERT, FRAG, "
                         "GEOM, TESS_CTRL, TESS_EVAL or COMP), found 'FRAGMENT'"]),
    # a cpp line at the start of a line: named, and the only error (issue 20: the 2012-era
    # compute tests were cpp sources); a '#' elsewhere stays an unexpected character
    ("FRAG\n#define X\nEND\n", ["t.tgsi:2:1: error[E1003]: '#' starts a C preprocessor line "
                                 "(#define, #ifdef ...): the Mesa 2012-era compute tests "
                                 "(src/gallium/tests/trivial/compute.c) ran their TGSI through "
                                 "cpp first; xlate reads the preprocessed text (cpp -P)"]),
    ("FRAG\nDCL TEMP[0]\n  0: MOV TEMP[0], TEMP[0] # c\n  1: END\n",
     ["t.tgsi:3:27: error[E1003]: unexpected character '#'"]),
    ("FRAG\nDCL TEMP[0]\n  0: TEX TEMP[0], TEMP[0], %s, 2D\n  1: END\n",
     ["t.tgsi:3:28: error[E1003]: unexpected character '%'"]),
    ("FRAG\nDCL TEMP[0]\n  0: FOO TEMP[0], TEMP[0]\n  1: END\n",
     ["t.tgsi:3:6: error[E3001]: unknown opcode 'FOO'"]),
    ("FRAG\nDCL TEMP[0]\n  0: MOV_SATX TEMP[0], TEMP[0]\n  1: END\n",
     ["t.tgsi:3:6: error[E3001]: unknown opcode 'MOV_SATX'"]),
    ("FRAG\nDCL TEMP[0]\n  0: MOV_PRECISE_SAT TEMP[0], TEMP[0]\n  1: END\n",
     ["t.tgsi:3:6: error[E3001]: unknown opcode 'MOV_PRECISE_SAT'"]),
    ("FRAG\nDCL TEMP[0]\n  0: MOV TEMP[0]\n  1: ADD TEMP[0], TEMP[0], TEMP[0], TEMP[0]\n"
     "  2: RET TEMP[0]\n  3: KILL_IF\n  4: END\n",
     ["t.tgsi:3:6: error[E3003]: MOV takes 1 destination and 1 source (2 operands), found 1",
      "t.tgsi:4:6: error[E3003]: ADD takes 1 destination and 2 sources (3 operands), found 4",
      "t.tgsi:5:10: error[E3003]: RET takes no operands",
      "t.tgsi:6:6: error[E3003]: KILL_IF takes 1 source operand, found 0"]),
    ("FRAG\nDCL TEMP[0]\n  0: MOV -TEMP[0], TEMP[0]\n  1: MOV TEMP[0], |TEMP[0]\n  2: END\n",
     ["t.tgsi:3:10: error[E3004]: a destination operand takes no negation or absolute value",
      "t.tgsi:4:27: error[E1002]: expected '|' closing the absolute value, found end of line"]),
    ("FRAG\nDCL TEMP[0]\n  0: MOV TEMP[0], TEMPX[0]\n  1: END\n",
     ["t.tgsi:3:19: error[E3004]: TEMPX is the register file of the Mesa 2011-2013 indexable "
      "temporaries (DCL TEMPX[a][first..last]); modern TGSI declares DCL TEMP[first..last], "
      "ARRAY(a) and addresses TEMP[ADDR[0].x+first](a); xlate reads the modern spelling only"]),
    ("FRAG\nDCL TEMP[0]\n  0: LOAD TEMP[0], RGLOBAL, TEMP[0]\n  1: END\n",
     ["t.tgsi:3:20: error[E3004]: RGLOBAL is a resource of the Mesa 2012-era compute syntax "
      "(clover, before the 2015 MEMORY/BUFFER files); modern TGSI declares DCL MEMORY[n], GLOBAL "
      "and addresses MEMORY[n]; xlate reads the modern spelling only"]),
    ("FRAG\nDCL TEMP[0]\n  0: STORE RLOCAL.x, TEMP[0], TEMP[0]\n  1: END\n",
     ["t.tgsi:3:12: error[E3004]: RLOCAL is a resource of the Mesa 2012-era compute syntax "
      "(clover, before the 2015 MEMORY/BUFFER files); modern TGSI declares DCL MEMORY[n], SHARED "
      "and addresses MEMORY[n]; xlate reads the modern spelling only"]),
    ("FRAG\nDCL TEMP[0]\n  0: MFENCE RGLOBAL\n  1: END\n",
     ["t.tgsi:3:6: error[E3001]: MFENCE is an opcode of the Mesa 2012-era compute syntax "
      "(clover, before the 2015 MEMORY/BUFFER files); modern TGSI writes MEMBAR; xlate reads "
      "the modern spelling only"]),
    ("FRAG\nDCL TEMP[0]\n  0: MOV TEMP[0], IMMX[0][1]\n  1: END\n",
     ["t.tgsi:3:19: error[E3004]: IMMX is the register file of the Mesa 2011-2013 immediate "
      "arrays (IMMX[a][n]); modern TGSI declares IMM[n] and addresses IMM[ADDR[0].x+n]; xlate "
      "reads the modern spelling only"]),
    ("FRAG\nDCL TEMP[0]\n  0: MOV TEMP[0], TEMP[0], \n  1: END\n",
     ["t.tgsi:3:27: error[E1002]: expected an operand, found end of line"]),
    ("FRAG\nDCL TEMP[0]\n  0: MOV TEMP[0], TEMP[x]\n  1: END\n",
     ["t.tgsi:3:24: error[E1002]: expected a register index, found 'x'"]),
    ("FRAG\nDCL TEMP[0]\n  0: MOV TEMP[0], TEMP[0], 2D\n  1: END\n",
     ["t.tgsi:3:28: error[E1002]: expected an operand, found '2D'"]),
    ("FRAG\nDCL TEMP[0]\n  0: IF TEMP[0].xxxx :\n  1: END\n",
     ["t.tgsi:3:23: error[E1002]: expected a label (instruction index), found end of line"]),
    ("FRAG\nDCL TEMP[0]\n  0: MOV TEMP[0], TEMP[0] :3\n  1: END\n",
     ["t.tgsi:3:27: error[E1002]: expected a declaration, immediate, property or instruction, "
      "found ':'"]),
    ("FRAG\n 82\nEND\n",
     ["t.tgsi:2:4: error[E1002]: expected ':' after the instruction number 82, found end of "
      "line"]),
    # swizzles and write masks
    ("FRAG\nDCL TEMP[0]\n  0: MOV TEMP[0]., TEMP[0]\n  1: MOV TEMP[0].yx, TEMP[0]\n"
     "  2: MOV TEMP[0].xx, TEMP[0]\n  3: MOV TEMP[0], TEMP[0].xyzwx\n"
     "  4: MOV TEMP[0], TEMP[0].xq\n  5: MOV TEMP[0], TEMP[0].\n"
     "  6: MOV TEMP[0], TEMP[ADDR[0].q]\n  7: END\n",
     ["t.tgsi:3:17: error[E1006]: empty write mask after '.'",
      "t.tgsi:4:18: error[E1006]: invalid write mask '.yx': letters x, y, z, w in this order, "
      "each at most once",
      "t.tgsi:5:18: error[E1006]: invalid write mask '.xx': letters x, y, z, w in this order, "
      "each at most once",
      "t.tgsi:6:27: error[E1006]: invalid swizzle '.xyzwx': at most four letters",
      "t.tgsi:7:27: error[E1006]: invalid swizzle '.xq': letters x, y, z, w only",
      "t.tgsi:8:26: error[E1006]: empty swizzle after '.'",
      "t.tgsi:9:32: error[E1006]: expected one component (x, y, z or w) selecting the address, "
      "found 'q'"]),
    ("FRAG\nDCL IN[0].yx\nEND\n",
     ["t.tgsi:2:11: error[E1006]: invalid usage mask '.yx': letters x, y, z, w in this order, "
      "each at most once"]),
    # texture targets
    ("FRAG\nDCL TEMP[0]\nDCL SAMP[0]\n  0: TEX TEMP[0], TEMP[0], SAMP[0], 4D\n"
     "  1: TEX TEMP[0], TEMP[0], SAMP[0]\n  2: TEX TEMP[0], TEMP[0], SAMP[0], 2D, TEMP[0].xy\n"
     "  3: TEX TEMP[0], TEMP[0], SAMP[0], 2D, TEMP[ADDR[0].x]\n  4: END\n",
     ["t.tgsi:4:37: error[E5001]: unknown texture target '4D'",
      "t.tgsi:5:35: error[E1002]: expected ', TARGET' (a texture target) after the operands of "
      "TEX, found end of line",
      "t.tgsi:6:49: error[E1006]: a texel offset takes a 3-letter swizzle, found 'xy'",
      "t.tgsi:7:46: error[E2003]: undeclared register ADDR[0] used as an address",
      "t.tgsi:7:41: error[E3004]: a texel offset is a plain register (no indirect index, "
      "dimension or array id)"]),
    ("FRAG\nDCL TEMP[0]\nDCL SAMP[0]\nIMM[0] INT32 {0, 0, 0, 0}\n"
     "  0: TEX TEMP[0], TEMP[0], SAMP[0], 2D, IMM[0].xyz, IMM[0].xyz, IMM[0].xyz, IMM[0].xyz, "
     "IMM[0].xyz\n  1: END\n",
     ["t.tgsi:5:89: error[E3003]: TEX takes at most 4 texel offsets"]),
    ("COMP\nDCL TEMP[0]\nDCL BUFFER[0]\n  0: LOAD TEMP[0], BUFFER[0], TEMP[0], SHINY\n"
     "  1: END\n",
     ["t.tgsi:4:40: error[E1002]: expected a memory qualifier, texture target or format, found "
      "'SHINY'"]),
    # declarations
    ("FRAG\nDCL TEMP[0]\nDCL TEMP[0]\nDCL TEMP[3..5]\nDCL TEMP[1..3]\nDCL CONST[1][0]\n"
     "DCL CONST[1][0]\nDCL CONST[0]\nEND\n",
     ["t.tgsi:3:5: error[E2001]: TEMP[0] is declared twice",
      "t.tgsi:5:5: error[E2001]: TEMP[3] is declared twice",
      "t.tgsi:7:5: error[E2001]: CONST[1][0] is declared twice"]),
    ("FRAG\nDCL TEMPX[0][0..1]\nDCL IN[0], FOO\nDCL SVIEW[0], 2D\nDCL SVIEW[1], 2D, FLOAT, "
     "FLOAT\nDCL IMAGE[0], 9D\nDCL IN[1], LINEAR, COLOR\nDCL IN[2], ARRAY(1), ARRAY(2)\n"
     "DCL TEMP[3..1]\nDCL TEMP[]\nDCL CONST[0..1][0]\nDCL OUT[0], STREAM(1, 2)\n"
     "DCL TEMP[4294967296]\nDCL [0]\nEND\n",
     ["t.tgsi:2:5: error[E3004]: TEMPX is the register file of the Mesa 2011-2013 indexable "
      "temporaries (DCL TEMPX[a][first..last]); modern TGSI declares DCL TEMP[first..last], "
      "ARRAY(a) and addresses TEMP[ADDR[0].x+first](a); xlate reads the modern spelling only",
      "t.tgsi:3:12: error[E1002]: unknown declaration attribute 'FOO'",
      "t.tgsi:4:17: error[E1002]: expected a return type (UNORM, SNORM, SINT, UINT, FLOAT) "
      "after the SVIEW target, found end of line",
      "t.tgsi:5:26: error[E1002]: a sampler view takes one return type or four, found 2",
      "t.tgsi:6:15: error[E5001]: unknown texture target '9D'",
      "t.tgsi:7:20: error[E1002]: 'COLOR' is repeated or out of place in this declaration "
      "(order: ARRAY, LOCAL, semantic, STREAM, interpolation, location, INVARIANT)",
      "t.tgsi:8:22: error[E1002]: 'ARRAY' is repeated or out of place in this declaration "
      "(order: ARRAY, LOCAL, semantic, STREAM, interpolation, location, INVARIANT)",
      "t.tgsi:9:10: error[E1002]: empty register range 3..1",
      "t.tgsi:10:10: error[E1002]: expected a register index, found ']'",
      "t.tgsi:11:11: error[E1002]: the first bracket of a 2-D declaration is one index, not a "
      "range",
      "t.tgsi:12:24: error[E1002]: expected ',', found ')'",
      "t.tgsi:13:10: error[E1007]: integer 4294967296 does not fit in 32 bits",
      "t.tgsi:14:5: error[E1002]: expected a register file, found '['"]),
    ("GEOM\nDCL IN[]\nEND\n", ["t.tgsi:2:8: error[E1002]: '[]' needs a second bracket "
                               "('IN[][0]')"]),
    ("FRAG\nDCL TEMP[0]\n  0: MOV TEMP[0], TEMP[0]\nDCL TEMP[1]\n"
     "IMM[0] FLT32 {1.0, 2.0, 3.0, 4.0}\n  1: END\n",
     ["t.tgsi:4:1: error[E1002]: declaration after the first instruction (declarations and "
      "immediates come first)",
      "t.tgsi:5:1: error[E1002]: immediate after the first instruction (declarations and "
      "immediates come first)"]),
    # registers used but not declared
    ("FRAG\nDCL OUT[0], COLOR\nDCL TEMP[0]\nDCL ADDR[0]\nDCL CONST[2][0..3]\n"
     "  0: MOV OUT[0], IMM[0]\n  1: MOV TEMP[0], TEMP[1]\n  2: MOV TEMP[0], IN[ADDR[0].x]\n"
     "  3: MOV TEMP[0], CONST[1][0]\n  4: MOV TEMP[0], CONST[0]\n  5: MOV TEMP[0], NULL[0]\n"
     "  6: MOV TEMP[0], IMM[ADDR[0].x]\n  7: MOV TEMP[0], CONST[2][3]\n"
     "  8: MOV TEMP[0], CONST[ADDR[0].x][7]\n  9: END\n",
     ["t.tgsi:6:18: error[E2003]: IMM[0] is not declared (the program has 0 immediates)",
      "t.tgsi:7:19: error[E2003]: undeclared register TEMP[1]",
      "t.tgsi:8:19: error[E2003]: IN is addressed indirectly but no IN register is declared",
      "t.tgsi:9:19: error[E2003]: undeclared register CONST[1][0]",
      "t.tgsi:10:19: error[E2003]: undeclared register CONST[0]",
      "t.tgsi:11:19: error[E3004]: the NULL register file cannot be used",
      "t.tgsi:12:19: error[E2003]: IMM is addressed indirectly but the program has no "
      "immediates",
      "t.tgsi:14:19: error[E2003]: undeclared register CONST[ADDR[0]][7]"]),
    # immediates
    ("FRAG\nIMM[1] FLT32 {1.0, 2.0, 3.0, 4.0}\nIMM[0] FLT32 {1.0, 2.0, 3.0}\n"
     "IMM[0] FLT32 {1.0, 2.0, 3.0, 4.x}\nIMM UINT32 {1, -2, 3, 4}\n"
     "IMM[0] INT32 {1, 2, 3, 99999999999}\nIMM FLT64 {1.0, 2.0, 3.0}\nIMM[0] FOO32 {1}\n"
     "IMM[0] FLT32 {1.0, , 3.0, 4.0}\nIMM[0] FLT32 {1.0, 2.0, 3.0, }\n"
     "IMM[0] FLT32 {1.0 2.0, 3.0, 4.0}\nIMM[0] FLT32 {1.0, 2.0\nIMM[0] FLT32 1.0\n"
     "IMM[0] UINT64 {-1, 0}\nIMM[0] INT64 {9223372036854775808, 0}\nIMM[0] FLT64 {1.0, x}\n"
     "IMM[0] FLT32 {}\nEND\n",
     ["t.tgsi:2:5: error[E1002]: immediates must be numbered in order: expected IMM[0], found "
      "IMM[1]",
      "t.tgsi:3:14: error[E1002]: FLT32 immediates take exactly 4 values, found 3",
      "t.tgsi:4:30: error[E1007]: invalid FLT32 value '4.x'",
      "t.tgsi:5:16: error[E1007]: invalid UINT32 value '-2' (unsigned decimal below 2^32)",
      "t.tgsi:6:24: error[E1007]: invalid INT32 value '99999999999' (decimal in [-2^31, 2^31))",
      "t.tgsi:7:11: error[E1002]: FLT64 immediates take exactly 2 values, found 3",
      "t.tgsi:8:8: error[E1002]: unknown immediate type 'FOO32' (expected FLT32, UINT32, "
      "INT32, FLT64, UINT64 or INT64)",
      "t.tgsi:9:20: error[E1002]: expected a value, found ','",
      "t.tgsi:10:30: error[E1002]: expected a value, found '}'",
      "t.tgsi:11:14: error[E1002]: FLT32 immediates take exactly 4 values, found 3",
      "t.tgsi:12:23: error[E1002]: expected '}' to close the immediate values",
      "t.tgsi:13:14: error[E1002]: expected '{', found '1'",
      "t.tgsi:14:16: error[E1007]: invalid UINT64 value '-1'",
      "t.tgsi:15:15: error[E1007]: invalid INT64 value '9223372036854775808'",
      "t.tgsi:16:20: error[E1007]: invalid FLT64 value 'x'",
      "t.tgsi:17:14: error[E1002]: FLT32 immediates take exactly 4 values, found 0"]),
    # properties
    ("FRAG\nPROPERTY FOO 1\nPROPERTY FS_COORD_ORIGIN MIDDLE\nPROPERTY GS_INVOCATIONS X\n"
     "PROPERTY\nEND\n",
     ["t.tgsi:2:10: error[E1002]: unknown property 'FOO'",
      "t.tgsi:3:26: error[E1002]: invalid value 'MIDDLE' for property FS_COORD_ORIGIN: "
      "expected one of UPPER_LEFT, LOWER_LEFT",
      "t.tgsi:4:25: error[E1002]: invalid value 'X' for property GS_INVOCATIONS: expected an "
      "unsigned integer",
      "t.tgsi:5:9: error[E1002]: expected a property name, found end of line"]),
])
def test_error_diagnostics(src, expected):
    assert errors(src) == expected


def test_error_spans_and_rendering():
    src = "FRAG\nDCL TEMP[0]\n  0: MOV TEMP[0], TEMP[1].xyzw\n  1: END\n"
    sink = DiagnosticSink("t.tgsi", src)
    assert parse_text(src, sink) is None
    (diag,) = sink.items
    assert diag.span == Span("t.tgsi", 3, 19, 4)
    assert diag.render(src) == (
        "t.tgsi:3:19: error[E2003]: undeclared register TEMP[1]\n"
        "      0: MOV TEMP[0], TEMP[1].xyzw\n"
        "                      ^~~~")


def test_duplicate_declaration_note():
    sink = DiagnosticSink("t.tgsi")
    parse_text("FRAG\nDCL TEMP[0..3]\nDCL TEMP[2]\nEND\n", sink)
    assert sink.items[0].notes == ("first declared on line 2",)


def test_all_errors_of_a_file_are_reported_and_recovery_is_per_line():
    src = ("FRAG\nDCL TEMP[0]\n  0: MOV TEMP[0], TEMP[0]\n  1: BOGUS x y z\n"
           "  2: MOV TEMP[0], TEMP[0]], TEMP[0]\n  3: MOV TEMP[0],\n  4: MOV TEMP[0], TEMP[0]\n"
           "  5: END\n")
    assert errors(src) == [
        "t.tgsi:4:6: error[E3001]: unknown opcode 'BOGUS'",
        "t.tgsi:5:26: error[E1002]: expected a declaration, immediate, property or "
        "instruction, found ']'",
        "t.tgsi:6:18: error[E1002]: expected an operand, found end of line"]


def test_damaged_corpus_style_files():
    truncated = ("FRAG\nDCL TEMP[0..1]\n 80: MOV TEMP[0], TEMP[1]\n 81: MOV TE\n"
                 "TGSI asm error: Unknown opcode [83 : 7] \n"
                 "etnaviv_compiler: could not parse `tgsi/dd.tgsi'\n")
    assert errors(truncated) == [
        "t.tgsi:4:6: error[E3003]: MOV takes 1 destination and 1 source (2 operands), found 0",
        "t.tgsi:5:1: error[E3001]: unknown opcode 'TGSI'",
        "t.tgsi:6:1: error[E3001]: unknown opcode 'etnaviv_compiler'",
        "t.tgsi:7:1: warning[E1004]: program has no END; one is assumed at the end"]
    machine_code = ("FRAG\nDCL TEMP[0]\n  0: MOV TEMP[0], TEMP[0]\n 98: SFRAG\n"
                    "0000: 078c1001 39000800 00000000 201400e8  ADD t12, t0, void, u14.xxyy\n")
    assert errors(machine_code) == [
        "t.tgsi:4:6: error[E3001]: unknown opcode 'SFRAG'",
        "t.tgsi:5:7: error[E3001]: unknown opcode '078c1001'",
        "t.tgsi:6:1: warning[E1004]: program has no END; one is assumed at the end"]


# ---- garbage never raises -------------------------------------------------------------------
MUTATION_SOURCES = [
    "austriancoder+etnaviv_compiler_tests/simple-loop.tgsi",
    "freedesktop+virglrenderer/test_virgl_cmd-4.tgsi",
    "yuq+mesa-lima/compute-10.tgsi",
    "aerisarn+mesa-uwp/vl_compositor_cs-1.tgsi",
]
MUTATION_FALLBACK = PROGRAM + ("GEOM\nDCL IN[][0], POSITION\nDCL OUT[0], POSITION, "
                               "STREAM(0, 1, 0, 0)\nDCL CONST[1][ADDR[0].x]\n"
                               "IMM[0] INT64 {1, -1}\n")


def _mutation_texts() -> list[str]:
    texts = [MUTATION_FALLBACK, " ".join(PROGRAM.split())]
    for rel in MUTATION_SOURCES:
        path = CORPUS / rel
        if path.is_file():
            texts.append(path.read_text())
    return texts


def test_random_mutations_never_raise():
    rng = random.Random(1234)
    alphabet = "[](){}.,:|+-_ \t\r\nxyzw0123456789ADFGIMNOPRSTUVWXZ#%"
    checked = 0
    for text in _mutation_texts():
        for _ in range(150):
            chars = list(text)
            for _ in range(rng.randint(1, 3)):
                pos = rng.randrange(len(chars) + 1)
                if chars and rng.random() < 0.5:
                    del chars[min(pos, len(chars) - 1)]
                else:
                    chars.insert(pos, rng.choice(alphabet))
            mutated = "".join(chars)
            sink = DiagnosticSink("m.tgsi", mutated)
            shader = parse_text(mutated, sink)
            if shader is None:
                assert sink.has_errors
            else:
                assert isinstance(shader, Shader) and not sink.has_errors
            for d in sink.items:
                assert d.span is not None and d.span.line >= 1 and d.span.col >= 1
                d.render(mutated)
            checked += 1
    assert checked >= 300


@pytest.mark.parametrize("text", ["\x00", "FRAG\x00", "FRAG\nDCL\n", "FRAG\nIMM\n",
                                  "FRAG\n0:\n", "FRAG\nDCL TEMP[", "FRAG\nDCL TEMP[0",
                                  "FRAG\n  0: MOV TEMP[ADDR[", "FRAG\n{", "FRAG\n..",
                                  "FRAG\n\u00e9\u0663", "FRAG\nIMM[0] FLT32 {",
                                  "FRAG\nDCL SVIEW[0], 2D,", "FRAG\nDCL OUT[0], STREAM(",
                                  "VERT\n" + "MOV " * 50])
def test_truncated_inputs_give_diagnostics(text):
    sink = DiagnosticSink("x.tgsi", text)
    assert parse_text(text, sink) is None
    assert sink.has_errors


# ---- the collected corpus -------------------------------------------------------------------
# 480 files: 449 parse, 31 are rejected with diagnostics.  The rejected ones, with the code of
# their first error and why:
REJECTED = {
    # etnaviv test dumps cut off mid-line, followed by "TGSI asm error: ..." (or by an
    # etnaviv machine-code listing after "SFRAG"/"...FRAG" glued to the cut line)
    "austriancoder+etnaviv_compiler_tests/0ad-55.tgsi": "E1002",
    "austriancoder+etnaviv_compiler_tests/0ad-64.tgsi": "E3003",
    "austriancoder+etnaviv_compiler_tests/0ad-cycladic-archipelago-34.tgsi": "E3001",
    "austriancoder+etnaviv_compiler_tests/0ad-cycladic-archipelago-36.tgsi": "E1002",
    "austriancoder+etnaviv_compiler_tests/0ad-cycladic-archipelago-40.tgsi": "E1006",
    "austriancoder+etnaviv_compiler_tests/0ad-cycladic-archipelago-62.tgsi": "E3001",
    "austriancoder+etnaviv_compiler_tests/0ad-cycladic-archipelago-63.tgsi": "E1002",
    "austriancoder+etnaviv_compiler_tests/0ad-cycladic-archipelago-64.tgsi": "E3001",
    "austriancoder+etnaviv_compiler_tests/0ad-cycladic-archipelago-65.tgsi": "E1002",
    "austriancoder+etnaviv_compiler_tests/0ad-cycladic-archipelago-70.tgsi": "E3001",
    "austriancoder+etnaviv_compiler_tests/0ad-cycladic-archipelago-71.tgsi": "E1002",
    "austriancoder+etnaviv_compiler_tests/0ad-cycladic-archipelago-72.tgsi": "E3001",
    "austriancoder+etnaviv_compiler_tests/0ad-cycladic-archipelago-73.tgsi": "E1002",
    "austriancoder+etnaviv_compiler_tests/0ad-cycladic-archipelago-85.tgsi": "E1002",
    "austriancoder+etnaviv_compiler_tests/dd.tgsi": "E1002",
    "austriancoder+etnaviv_compiler_tests/glmark3.tgsi": "E3003",
    "austriancoder+etnaviv_compiler_tests/glsl-fs-raytrace-bug27060.tgsi": "E1006",
    "austriancoder+etnaviv_compiler_tests/jellyfish-frag.tgsi": "E3001",
    "austriancoder+etnaviv_compiler_tests/segfault.tgsi": "E1002",
    "austriancoder+etnaviv_compiler_tests/shadertoy-frag.tgsi": "E1002",
    "austriancoder+etnaviv_compiler_tests/webgl-water-38.tgsi": "E1002",
    "austriancoder+etnaviv_compiler_tests/webgl-water-40.tgsi": "E3001",
    # 2011-era clover compute tests: resources RLOCAL/RGLOBAL/RINPUT that no longer exist
    # (E3004 naming the era and DCL MEMORY[n], ...), cpp directives (#define) in the source
    "yuq+mesa-lima/compute-13.tgsi": "E3004",
    "yuq+mesa-lima/compute-14.tgsi": "E1003",
    "yuq+mesa-lima/compute-15.tgsi": "E1003",
    "yuq+mesa-lima/compute-4.tgsi": "E3004",
    "yuq+mesa-lima/compute-5.tgsi": "E3004",
    "yuq+mesa-lima/compute-6.tgsi": "E3004",
    # TEMPX (indexable temporaries, removed from TGSI in 2013)
    "yuq+mesa-lima/frag-tempx.tgsi": "E3004",
    # printf templates: "%s" where the target goes
    "yuq+mesa-lima/texture_blit-2.tgsi": "E1003",
    "yuq+mesa-lima/texture_blit-4.tgsi": "E1003",
}


def corpus_files() -> list[Path]:
    shared_corpus_or_skip("collected/tgsi")
    return sorted(p for p in CORPUS.rglob("*") if p.is_file())


def test_corpus_parses_or_fails_with_diagnostics_only():
    files = corpus_files()
    parsed, rejected = [], {}
    for path in files:
        text = path.read_text(errors="replace")
        rel = path.relative_to(CORPUS).as_posix()
        sink = DiagnosticSink(rel, text)
        shader = parse_text(text, sink)
        if shader is None:
            errs = [d for d in sink.items if d.is_error]
            assert errs, rel
            rejected[rel] = errs[0].code
        else:
            assert not sink.has_errors
            assert shader.instructions and any(i.opcode == "END" for i in shader.instructions)
            parsed.append(rel)
    assert (len(files), len(parsed), len(rejected)) == (480, 449, 31)
    assert rejected == REJECTED


def test_corpus_virgl_hex_immediates():
    path = CORPUS / "freedesktop+virglrenderer" / "large_shader.tgsi"
    shared_corpus_or_skip("collected/tgsi/freedesktop+virglrenderer/large_shader.tgsi")
    shader = ok(path.read_text())
    assert shader.immediates[0] == Immediate("FLT32", (0x40000000, 0xBF800000, 0, 0x3F7FFFFF))
