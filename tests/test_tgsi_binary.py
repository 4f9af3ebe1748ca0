"""TGSI binary token streams (xlate/frontends/tgsi/binary*.py): the SEED document's worked
examples (tgsi.md 4.3), the encoded T2 program (tgsi.md 7.5, both layouts), the spec readings
documented in binary.py, error reporting, and round-trip / fuzz properties."""
from __future__ import annotations

import random
import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from xlate.diagnostics import DiagnosticSink
from xlate.frontends.tgsi import binary as B
from xlate.frontends.tgsi import binary_tables as T
from xlate.frontends.tgsi import binary_write as BW
from xlate.frontends.tgsi.binary import decode, detect_layout, encode_modern, encode_seed
from xlate.frontends.tgsi.model import (CC_TESTS, IMM_TYPES, INTERPOLATIONS, RETURN_TYPES,
                                        TEXTURE_TARGETS, CondCode, Declaration, Dst,
                                        Immediate, Indirect, Instruction, Property, RegRef,
                                        Shader, Src)

SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def pack(words):
    return struct.pack(f"<{len(words)}I", *words)


def unpack(data):
    return list(struct.unpack(f"<{len(data) // 4}I", data))


def dec(words_or_bytes, **kw):
    data = words_or_bytes if isinstance(words_or_bytes, bytes) else pack(words_or_bytes)
    sink = DiagnosticSink("t.bin")
    return decode(data, sink, **kw), sink


def ok(words, **kw):
    shader, sink = dec(words, **kw)
    assert not sink.items, [d.message for d in sink.items]
    assert shader is not None
    return shader


def messages(sink):
    return [(d.code, d.message) for d in sink.items]


def seed_stream(body, processor=0):
    return [0x101, 2 | len(body) << 8, processor] + list(body)


def modern_stream(body, processor=4):
    return [2 | len(body) << 8, processor] + list(body)


def seed_instr_with_src(src_tokens, opcode=1):
    """MOV TEMP[0], <src tokens> in a SEED stream."""
    body = [2 | (2 + len(src_tokens)) << 4 | opcode << 12 | 1 << 22 | 1 << 24, 0x000000f4]
    return seed_stream(body + list(src_tokens))


def the_src(words):
    return ok(words).instructions[0].srcs[0]


def R(file, index, **kw):
    return RegRef(file, index, **kw)


XYZW = (True, True, True, True)


# ---------------------------------------------------------------------------------------------
# tgsi.md 4.3: the SEED document's operand examples, decoded and re-encoded word for word
# ---------------------------------------------------------------------------------------------

def test_seed_641_negated_swizzled_input():
    src = the_src(seed_instr_with_src([0x00039942]))
    assert src == Src(R("IN", 7), (0, 1, 1, 2), neg=True)
    assert BW._SeedWriter(B.SEED_OPCODES_2008, CC_TESTS, ()).src(src) == [0x00039942]


def test_seed_642_ext_swizzle_constants_and_component_negate():
    src = the_src(seed_instr_with_src([0x80060e44, 0x05a30540]))
    assert src.reg == R("TEMP", 12)
    assert src.swizzle == (4, 5, 0, 3)                   # 0, 1, x, w
    assert src.comp_neg == (False, True, False, True)     # 0, -1, x, -w
    assert src.ext_divide == 5 and not src.neg
    assert BW._SeedWriter(B.SEED_OPCODES_2008, CC_TESTS, ()).src(src) == [0x80060e44, 0x05a30540]


def test_seed_643_abs_then_negate():
    src = the_src(seed_instr_with_src([0x80058e44, 0x00000181]))
    assert src == Src(R("TEMP", 11), abs=True, abs_neg=True)
    assert BW._SeedWriter(B.SEED_OPCODES_2008, CC_TESTS, ()).src(src) == [0x80058e44, 0x00000181]


def test_seed_644_indirect_constant():
    src = the_src(seed_instr_with_src([0x0008ae41, 0x00008e56]))
    assert src == Src(R("CONST", 17, indirect=Indirect("ADDR", 1, 1)))
    assert BW._SeedWriter(B.SEED_OPCODES_2008, CC_TESTS, ()).src(src) == [0x0008ae41, 0x00008e56]


def test_seed_645_dimension_order_register_token_is_first_bracket():
    """Spec reading (SEED 6.4.5): CONSTANT_ARRAY[A0.x+2][TEMPORARY[5].w+9] puts the first
    bracket in the SRC_REGISTER and the second in DIMENSION (MODERN does the opposite).
    CONSTANT stands in for the undefined CONSTANT_ARRAY file; swizzle x, x, x, 1."""
    words = [0x80000000 | 2 << 15 | 1 << 14 | 1 << 13 | 0xe40 | 1,   # CONST, Ind, Dim, Index 2
             0x05050000,                                            # SWZ x x x 1
             0x00000e46,                                            # ADDR[0].x
             0x00048001,                                            # DIMENSION Ind, Index 9 (4.3)
             0x00028e74]                                            # TEMP[5].w
    src = the_src(seed_instr_with_src(words))
    assert src.reg == R("CONST", 9, indirect=Indirect("TEMP", 5, 3), dim=2,
                        dim_indirect=Indirect("ADDR", 0, 0))
    assert src.swizzle == (0, 0, 0, 5)
    assert BW._SeedWriter(B.SEED_OPCODES_2008, CC_TESTS, ()).src(src) == words


def test_seed_651_dst_write_mask():
    shader = ok(seed_stream([2 | 3 << 4 | 1 << 12 | 1 << 22 | 1 << 24, 0x00000ca4, 0x00000e44]))
    dst = shader.instructions[0].dsts[0]
    assert dst == Dst(R("TEMP", 3), (False, True, False, True))
    assert BW._SeedWriter(B.SEED_OPCODES_2008, CC_TESTS, ()).dst(dst) == [0x00000ca4]


def test_seed_652_dst_condcode():
    shader = ok(seed_stream([2 | 4 << 4 | 1 << 12 | 1 << 22 | 1 << 24,
                             0x800000f4, 0x0001f410, 0x00000e44]))
    dst = shader.instructions[0].dsts[0]
    assert dst == Dst(R("TEMP", 0), XYZW, cond=CondCode("EQ", (0, 1, 3, 3), 1))
    assert BW._SeedWriter(B.SEED_OPCODES_2008, CC_TESTS, ()).dst(dst) == [0x800000f4, 0x0001f410]


def test_seed_553_movc_ext_nv_default_cc_table():
    words = seed_stream([2 | 4 << 4 | 1 << 12 | 1 << 22 | 1 << 24 | 1 << 31, 0x1e470000,
                         0x000000f4, 0x00000e44])
    ins = ok(words).instructions[0]
    assert (ins.opcode, ins.cc_update, ins.cond, ins.precision) == ("MOV", 0, None, None)
    assert unpack(encode_seed(ok(words))) == words


def test_seed_553_movc_with_mesa2008_cc_table():
    words = seed_stream([2 | 4 << 4 | 1 << 12 | 1 << 22 | 1 << 24 | 1 << 31, 0x1e460000,
                         0x000000f4, 0x00000e44])
    shader = ok(words, cc_table="mesa2008")
    assert shader.instructions[0].cc_update == 0
    assert unpack(encode_seed(shader, cc_table="mesa2008")) == words
    # with the default (H2007) table 6 is NE: same words, different meaning, still valid
    assert unpack(encode_seed(shader)) != words


def test_seed_cc_tables_differ_from_UN_on():
    flow = lambda mask: seed_stream([2 | 4 << 4 | 1 << 12 | 1 << 22 | 1 << 24 | 1 << 31,
                                     0x20000000 | mask << 16 | 0xe400000, 0xf4, 0xe44])
    assert ok(flow(3)).instructions[0].cond.test == "UN"
    assert ok(flow(3), cc_table="mesa2008").instructions[0].cond.test == "GE"
    _, sink = dec(flow(8), cc_table="mesa2008")
    assert [c for c, _ in messages(sink)] == ["E1009"]
    shader = ok(flow(3))
    with pytest.raises(ValueError, match="UN"):
        encode_seed(shader, cc_table="mesa2008")


# ---------------------------------------------------------------------------------------------
# tgsi.md 7.5: T2 in both layouts
# ---------------------------------------------------------------------------------------------

T2_SEED = [int(x, 16) for x in """
00000101 00003302 00000000 00102030 00010000 00000002 00003020 00000000 00001020 00010000
00014020 00000003 00005020 00000000 00000051 3f000000 3f800000 00000000 3dcccccd 82434052
00000022 000000f4 00000e42 00000e45 02408052 00000414 80000ff4 00000081 00001ff7 01074022
00008004 0240e042 00000414 00000002 00000007 8104a032 00000061 00008004 02407042 000000f4
00000e44 00008e42 8004d022 00000081 03412052 00000074 00000001 00000e44 00008e41 0004e012
01501032 000000f3 00000e44 00075012""".split()]

T2_MODERN_BODY = [int(x, 16) for x in """
006f2040 00000000 00000002 00000005  006f2040 00010001 00000002 00000001
002f3030 00000000 00000001  000f1020 00010000  000f4020 00010000  000f5020 00000000
00000051 3f000000 3f800000 00000000 3dcccccd  11234052 00000002 000000f4 39000002 39000005
01208042 00000414 7fc00004 bfc00007  00874022 00000044  0120e042 00000414 00000002 00000007
0884a032 00000006 00000044  01207042 000000f4 39000004 39000042  0804d022 00000008
01a12052 00000074 00000001 39000004 39000041  0004e012  00b01032 000000f3 39000004
00075012""".split()]

X, Y, Z, W = 0, 1, 2, 3
MASK_X = (True, False, False, False)


def t2_instructions():
    t0, t1 = R("TEMP", 0), R("TEMP", 1)
    return [
        Instruction("TEX", (Dst(t0),), (Src(R("IN", 0)), Src(R("SAMP", 0))), texture="2D"),
        Instruction("ADD", (Dst(t1, MASK_X),),
                    (Src(t0, (W, W, W, W), abs=True), Src(R("IMM", 0), (W, W, W, W), neg=True))),
        Instruction("KILL_IF", (), (Src(t1, (X, X, X, X)),)),
        Instruction("SLT", (Dst(t1, MASK_X),),
                    (Src(R("IN", 0), (X, X, X, X)), Src(R("IMM", 0), (X, X, X, X)))),
        Instruction("IF", (), (Src(t1, (X, X, X, X)),), label=6),
        Instruction("MUL", (Dst(t0),), (Src(t0), Src(R("IN", 1)))),
        Instruction("ELSE", label=8),
        Instruction("LRP", (Dst(t0, (True, True, True, False)),),
                    (Src(R("CONST", 0), (X, X, X, X)), Src(t0), Src(R("CONST", 1)))),
        Instruction("ENDIF"),
        Instruction("MOV", (Dst(R("OUT", 0)),), (Src(t0),), saturate="SAT"),
        Instruction("END"),
    ]


T2_IMM = Immediate("FLT32", (0x3f000000, 0x3f800000, 0x00000000, 0x3dcccccd))


def t2_seed_model():
    return Shader("FRAG", declarations=[
        Declaration("IN", 0, 1, interpolate="PERSPECTIVE"), Declaration("OUT", 0, 0),
        Declaration("CONST", 0, 1), Declaration("TEMP", 0, 1), Declaration("SAMP", 0, 0)],
        immediates=[T2_IMM], instructions=t2_instructions())


def t2_modern_model():
    return Shader("FRAG", declarations=[
        Declaration("IN", 0, 0, semantic="GENERIC", interpolate="PERSPECTIVE"),
        Declaration("IN", 1, 1, semantic="COLOR", interpolate="PERSPECTIVE"),
        Declaration("OUT", 0, 0, semantic="COLOR"),
        Declaration("CONST", 0, 1), Declaration("TEMP", 0, 1), Declaration("SAMP", 0, 0)],
        immediates=[T2_IMM], instructions=t2_instructions())


def test_t2_seed_decodes_field_by_field():
    assert len(T2_SEED) == 54
    assert detect_layout(pack(T2_SEED)) == "seed"
    shader = ok(T2_SEED)
    assert shader.processor == "FRAG" and shader.version == (1, 1)
    assert shader.declarations == t2_seed_model().declarations     # MASK 0b11 -> TEMP[0..1]
    assert shader.immediates == [T2_IMM]
    want = t2_instructions()
    assert len(shader.instructions) == len(want)
    for got, exp in zip(shader.instructions, want):
        assert got == exp
    assert shader == t2_seed_model()


def test_t2_seed_encodes_word_for_word():
    assert unpack(encode_seed(t2_seed_model(), declare_mask={"TEMP"})) == T2_SEED
    # without DECLARE_MASK the TEMP declaration becomes a RANGE token (same size)
    plain = unpack(encode_seed(t2_seed_model()))
    assert plain[10:12] == [0x00004020, 0x00010000] and plain[12:] == T2_SEED[12:]


def test_t2_modern_decodes_and_encodes():
    words = modern_stream(T2_MODERN_BODY, processor=4)
    assert words[0] == 0x00003802
    assert detect_layout(pack(words)) == "modern"
    shader = ok(words)
    assert shader.version is None
    assert shader == t2_modern_model()
    for got, exp in zip(shader.instructions, t2_instructions()):
        assert got == exp
    assert unpack(encode_modern(t2_modern_model())) == words


@pytest.mark.parametrize("enum,number", [("mesa2023", 4), ("pipe2016", 1), ("tgsi2008", 0)])
def test_modern_processor_numberings(enum, number):
    words = modern_stream(T2_MODERN_BODY, processor=number)
    assert ok(words, processor_enum=enum).processor == "FRAG"
    assert unpack(encode_modern(t2_modern_model(), processor_enum=enum)) == words


def test_modern_processor_task_is_reported():
    _, sink = dec(modern_stream([], processor=6))
    assert messages(sink) == [("E1009", "word 1: processor 6 (TASK) is not supported")]
    _, sink = dec(seed_stream([], processor=5))
    assert messages(sink) == [("E1009", "word 2: processor 5 (undefined) is not supported")]
    assert detect_layout(pack(seed_stream([], processor=5))) is None


# ---------------------------------------------------------------------------------------------
# Spec readings and SEED details
# ---------------------------------------------------------------------------------------------

def test_seed_several_ranges_are_merged_into_runs():
    """SEED 3.1: several RANGE tokens are united; the model holds one range per declaration,
    so a non-contiguous union becomes one Declaration per contiguous run."""
    body = [0 | 5 << 4 | 4 << 12, 0x00010000, 0x00030002, 0x00070006, 0x00050005]
    decls = ok(seed_stream(body)).declarations
    assert decls == [Declaration("TEMP", 0, 3), Declaration("TEMP", 5, 7)]


def test_seed_declaration_without_range_is_default_0_0():
    """SEED 3.1: "The default range is as if [First = 0, Last = 0] was parsed"."""
    assert ok(seed_stream([0 | 1 << 4 | 2 << 12])).declarations == [Declaration("IN", 0, 0)]


def test_seed_mask_declaration_and_interpolation():
    body = [0 | 3 << 4 | 2 << 12 | 1 << 16 | 1 << 20, 0b1011, 1]
    assert ok(seed_stream(body)).declarations == [
        Declaration("IN", 0, 1, interpolate="LINEAR"), Declaration("IN", 3, 3, interpolate="LINEAR")]


def test_seed_label_readings():
    def label_instr(ext):
        return seed_stream([2 | 2 << 4 | 99 << 12 | 1 << 31, ext])     # BGNLOOP2 with EXT_LABEL
    assert ok(label_instr(0x00000061)).instructions[0].label == 6
    assert ok(label_instr(0x00000001)).instructions[0].label == 0      # Target 0, Label 0
    assert ok(label_instr(0x10000001)).instructions[0].label is None   # SEED "disabled" default
    _, sink = dec(label_instr(0x10000061))                             # symbolic declaration
    assert [c for c, _ in messages(sink)] == ["E1009"]
    assert "word 4:" in sink.items[0].message and "Target" in sink.items[0].message


def test_seed_swz_composes_with_plain_swizzle():
    # plain swizzle .wzyx, SWZ selects (y, ONE, x, ZERO) -> register components (z, 1, w, 0)
    plain = 3 << 4 | 2 << 6 | 1 << 8 | 0 << 10
    src = the_src(seed_instr_with_src([0x80000000 | plain | 4, 1 << 4 | 5 << 8 | 0 << 12 | 4 << 16
                                       | 2 << 24]))
    assert src.swizzle == (2, 5, 3, 4)
    assert src.ext_divide == 1                # ExtDivide z through .wzyx = y
    # re-encoded with an identity plain swizzle, which decodes to the same model
    again = BW._SeedWriter(B.SEED_OPCODES_2008, CC_TESTS, ()).src(src)
    assert the_src(seed_instr_with_src(again)) == src


def test_seed_ext_mod_all_modifiers_and_modulate_and_precision():
    shader = Shader("FRAG", instructions=[Instruction(
        "MAD", (Dst(R("TEMP", 1), cond=CondCode("GE", (1, 1, 2, 0), 1), modulate="QUARTER"),),
        (Src(R("IN", 0), complement=True, bias=True, scale2x=True, abs=True, abs_neg=True,
             neg=True), Src(R("CONST", -3, indirect=Indirect("ADDR", 2, 3))),
         Src(R("TEMP", 0), (4, 5, 4, 5), comp_neg=(True, False, False, True), ext_divide=3)),
        saturate="SSAT", precision="FIXED12", cc_update=1,
        cond=CondCode("NE", (3, 2, 1, 0), 1))])
    assert ok(unpack(encode_seed(shader))) == shader


def test_seed_texture_and_2007_table():
    shader = Shader("FRAG", instructions=[
        Instruction("TXP", (Dst(R("TEMP", 0)),), (Src(R("IN", 0)), Src(R("SAMP", 0))),
                    texture="SHADOWRECT"),
        Instruction("KILL"), Instruction("KILL_IF", (), (Src(R("TEMP", 0)),))])
    words = unpack(encode_seed(shader, opcode_table="2007-08"))
    assert (words[3] >> 12) & 0xFF == 132                    # 2007-08 TXP
    assert ok(words, opcode_table="2007-08") == shader
    assert (unpack(encode_seed(shader))[3] >> 12) & 0xFF == 54   # 2008-03 TXP


def test_seed_opcode_numbers_2008():
    want = {"TEX": 52, "ADD": 8, "KILL_IF": 116, "KILL": 39, "SLT": 14, "IF": 74, "MUL": 7,
            "ELSE": 77, "LRP": 18, "ENDIF": 78, "MOV": 1, "END": 117, "BGNLOOP": 99,
            "ENDLOOP": 101, "DP2A": 21, "XPD": 31}
    rev = BW._reverse(B.SEED_OPCODES_2008)
    assert {k: rev[k] for k in want} == want


def test_seed_unnamed_or_unknown_opcodes_are_E3001():
    for num, name in ((120, None), (103, "NOISE1"), (79, "ENDLOOP(NV)")):
        _, sink = dec(seed_stream([2 | 1 << 4 | num << 12]))
        assert [c for c, _ in messages(sink)] == ["E3001"]
        assert sink.items[0].message.startswith("word 3: opcode %d" % num)
        if name:
            assert name in sink.items[0].message


def test_seed_writer_rejects_what_seed_cannot_express():
    base = dict(processor="FRAG")
    cases = [
        (Shader(properties=[Property("FS_COORD_ORIGIN", "UPPER_LEFT")], **base), "properties"),
        (Shader(declarations=[Declaration("IN", 0, 0, semantic="COLOR")], **base), "semantic"),
        (Shader(declarations=[Declaration("SV", 0, 0)], **base), "SV"),
        (Shader(declarations=[Declaration("IN", 0, 0, interpolate="COLOR")], **base), "COLOR"),
        (Shader(immediates=[Immediate("UINT32", (1, 2, 3, 4))], **base), "UINT32"),
        (Shader(instructions=[Instruction("UADD", (Dst(R("TEMP", 0)),),
                                          (Src(R("TEMP", 0)), Src(R("TEMP", 0))))], **base), "UADD"),
        (Shader(instructions=[Instruction("MOV", (Dst(R("TEMP", 0)),), (Src(R("TEMP", 0)),),
                                          precise=True)], **base), "precise"),
        (Shader(instructions=[Instruction("TEX", (), (), texture="2D_ARRAY")], **base), "2D_ARRAY"),
        (Shader("COMP"), "COMP"),
    ]
    for shader, what in cases:
        with pytest.raises(ValueError, match=what):
            encode_seed(shader)


def test_modern_writer_rejects_what_modern_cannot_express():
    def one(**kw):
        return Shader("FRAG", instructions=[Instruction("MOV", (Dst(R("TEMP", 0)),),
                                                        (Src(R("TEMP", 1)),), **kw)])
    with pytest.raises(ValueError, match="condition codes"):
        encode_modern(one(cc_update=0))
    with pytest.raises(ValueError, match="precision"):
        encode_modern(one(precision="FLOAT16"))
    with pytest.raises(ValueError, match="SSAT"):
        encode_modern(one(saturate="SSAT"))
    for src, what in ((Src(R("TEMP", 1), (4, 0, 1, 2)), "0/1 swizzle"),
                      (Src(R("TEMP", 1), complement=True), "complement"),
                      (Src(R("TEMP", 1), comp_neg=(True, False, False, False)), "per-component"),
                      (Src(R("TEMP", 1), ext_divide=3), "ExtDivide"),
                      (Src(R("TEMP", 1), neg=True, abs=True), "negate before")):
        with pytest.raises(ValueError, match=what):
            encode_modern(Shader("FRAG", instructions=[Instruction("MOV", (), (src,))]))
    with pytest.raises(ValueError, match="modulate"):
        encode_modern(Shader("FRAG", instructions=[
            Instruction("MOV", (Dst(R("TEMP", 0), modulate="2X"),), ())]))
    with pytest.raises(ValueError, match="SUB"):
        encode_modern(Shader("FRAG", instructions=[Instruction("SUB")]))
    with pytest.raises(ValueError, match="implicit_dim"):
        encode_modern(Shader("GEOM", declarations=[Declaration("IN", 0, 0)]))


def test_modern_geometry_inputs_get_implicit_dim():
    shader = Shader("GEOM", declarations=[
        Declaration("IN", 0, 0, implicit_dim=True, semantic="POSITION"),
        Declaration("OUT", 0, 0, semantic="POSITION")])
    assert ok(unpack(encode_modern(shader))) == shader
    tcs = Shader("TESS_CTRL", declarations=[
        Declaration("OUT", 0, 0, implicit_dim=True, semantic="GENERIC"),
        Declaration("OUT", 1, 1, semantic="PATCH")])
    assert ok(unpack(encode_modern(tcs))) == tcs


def test_modern_properties_images_memory_offsets():
    shader = Shader("COMP", properties=[
        Property("CS_FIXED_BLOCK_WIDTH", "64"), Property("NEXT_SHADER", "FRAG"),
        Property("GS_INPUT_PRIMITIVE", "TRIANGLES")],
        declarations=[
            Declaration("IMAGE", 0, 0, target="2D", format="PIPE_FORMAT_R8_UNORM", writable=True),
            Declaration("SVIEW", 0, 0, target="CUBEARRAY",
                        return_types=("FLOAT", "SINT", "UINT", "UNORM")),
            Declaration("MEMORY", 0, 0, memory_type="SHARED"),
            Declaration("BUFFER", 0, 0, atomic=True),
            Declaration("TEMP", 0, 7, array_id=3, local=True)],
        immediates=[Immediate("FLT64", (1, 2, 3, 4)), Immediate("INT32", (0xFFFFFFFF,) * 4)],
        instructions=[
            Instruction("LOAD", (Dst(R("TEMP", 0)),), (Src(R("IMAGE", 0)), Src(R("TEMP", 1))),
                        memory=("COHERENT", "VOLATILE", "2D", "PIPE_FORMAT_R8_UNORM")),
            Instruction("TXF", (Dst(R("TEMP", 0)),), (Src(R("TEMP", 1)), Src(R("SAMP", 0))),
                        texture="2D", tex_offsets=(Src(R("IMM", 0), (0, 1, 1, 3)),)),
            Instruction("MOV", (Dst(R("TEMP", 0, indirect=Indirect("ADDR", 0, 1),
                                      array_id=3)),),
                        (Src(R("CONST", 4, dim=1, dim_indirect=Indirect("ADDR", 1, 2, 5))),),
                        precise=True)])
    formats = [None] * 100
    formats[64] = "PIPE_FORMAT_R8_UNORM"
    words = unpack(encode_modern(shader, formats=formats))
    assert ok(words, formats=formats) == shader
    # without a format table the number is kept: PIPE_FORMAT_64
    plain = ok(words)
    assert plain.declarations[0].format == "PIPE_FORMAT_64"
    assert unpack(encode_modern(plain)) == words


# ---------------------------------------------------------------------------------------------
# Detection
# ---------------------------------------------------------------------------------------------

def test_detect_layouts():
    assert detect_layout(pack(T2_SEED)) == "seed"
    assert detect_layout(pack(modern_stream(T2_MODERN_BODY))) == "modern"
    assert detect_layout(pack(seed_stream([]))) == "seed"
    assert detect_layout(pack(modern_stream([]))) == "modern"
    assert detect_layout(b"FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\n  0: END\n") is None
    assert detect_layout(b"") is None
    assert detect_layout(pack(T2_SEED)[:-1]) is None            # not a multiple of 4
    assert detect_layout(pack(T2_SEED[:-1])) is None            # BodySize mismatch
    assert detect_layout(pack([0x102] + T2_SEED[1:])) is None   # VERSION 1.2 is not 1.1
    bad_walk = list(T2_SEED)
    bad_walk[19] = (bad_walk[19] & ~0xFF0) | 9 << 4             # TEX Size 5 -> 9
    assert detect_layout(pack(bad_walk)) is None


def test_detect_random_garbage_is_none():
    rnd = random.Random(1234)
    for n in range(2000):
        data = bytes(rnd.getrandbits(8) for _ in range(rnd.choice([4, 8, 12, 16, 40, 64, 200])))
        assert detect_layout(data) is None, data.hex()


# ---------------------------------------------------------------------------------------------
# Errors: E1009 with word offsets, reported, never raised; all errors reported
# ---------------------------------------------------------------------------------------------

def test_not_a_stream_messages():
    for data, text in ((b"abc", "not a multiple of 4"), (b"", "too short"),
                       (b"FRAG\nEND\n   ", "neither"),
                       (pack([0x201, 0x0002, 0]), "VERSION 1.2"),
                       (pack(T2_SEED[:-3]), "BodySize 51"),
                       (pack(modern_stream(T2_MODERN_BODY)[:-1]), "BodySize 56")):
        shader, sink = dec(data)
        assert shader is None
        assert [c for c, _ in messages(sink)] == ["E1009"], messages(sink)
        assert text in sink.items[0].message and sink.items[0].message.startswith("word ")


def test_truncated_token_and_size_mismatch():
    # END whose Size says 5 (runs past the end of the body)
    words = list(T2_SEED)
    words[53] = (words[53] & ~0xFF0) | 0x50
    _, sink = dec(words)
    assert messages(sink) == [("E1009", "word 53: token type 2 has Size 5 but only 1 words of "
                                        "the body remain (truncated stream)")]
    # a TEX whose Size says 9: its tokens end after 5; the next 4 words are skipped, then the
    # walk resumes mid-instruction and reports what it finds there (garbage-in, no crash)
    words = list(T2_SEED)
    words[19] = (words[19] & ~0xFF0) | 0x90
    _, sink = dec(words)
    assert messages(sink)[0] == ("E1009", "word 19: INSTRUCTION Size 9 but its tokens end "
                                          "after 5 words")
    # an instruction whose Size is one too small: its operands run out of the token
    words = seed_stream([2 | 2 << 4 | 1 << 12 | 1 << 22 | 1 << 24, 0xf4])
    _, sink = dec(words)
    assert messages(sink) == [("E1009", "word 5: INSTRUCTION ends (Size) before its "
                                        "SRC_REGISTER token")]


def test_all_bad_tokens_are_reported_and_skipped():
    words = list(T2_SEED)
    words[6] = (words[6] & ~0xF000) | 9 << 12      # DCL OUT -> file 9
    words[29] = (words[29] & ~0xFF000) | 200 << 12  # KILL_IF -> opcode 200
    words[44] |= 1 << 21 | 1 << 20                 # LRP -> Saturate 3
    words[53] = (words[53] & ~0xF) | 7             # END -> token type 7
    shader, sink = dec(words)
    assert shader is None
    assert messages(sink) == [
        ("E1009", "word 6: register file 9 is not a SEED file (0..7)"),
        ("E3001", "word 29: opcode 200 has no name in the 2008-03 opcode table"),
        ("E1009", "word 44: Saturate 3 is not a SEED saturate mode (0..2)"),
        ("E1009", "word 53: unknown token type 7 (SEED defines 0 DECLARATION, 1 IMMEDIATE, "
                  "2 INSTRUCTION); skipped by its Size"),
    ]


def test_unknown_extensions_and_padding():
    # SRC_REGISTER with an extension of type 2 (H2007 had none; SEED defines SWZ 0 and MOD 1)
    _, sink = dec(seed_instr_with_src([0x80000e44, 0x00000002]))
    assert [c for c, _ in messages(sink)] == ["E1009"]
    assert sink.items[0].message.startswith("word 6: unknown SRC_REGISTER extension type 2")
    # EXT_PREDICATE (H2007 type 3) on an instruction
    _, sink = dec(seed_stream([2 | 2 << 4 | 117 << 12 | 1 << 31, 0x00000003]))
    assert sink.items[0].message.startswith("word 4: unknown INSTRUCTION extension type 3")
    # two MOD extensions
    _, sink = dec(seed_instr_with_src([0x80000e44, 0x80000081, 0x00000091]))
    assert "second SRC_REGISTER MOD" in sink.items[0].message
    # padding
    _, sink = dec(seed_stream([0 | 2 << 4 | 4 << 12 | 1 << 25, 0]))
    assert messages(sink) == [("E1009", "word 3: DECLARATION: padding bits 0x02000000 must be 0")]


def test_modern_errors():
    _, sink = dec(modern_stream([0 | 2 << 4 | 15 << 12, 0]))
    assert messages(sink) == [("E1009", "word 2: register file 15 is not defined (0..14)")]
    _, sink = dec(modern_stream([0 | 3 << 4 | 4 << 12 | 0xF << 16, 0, 0]))  # no flag for word 2
    assert messages(sink)[0][1].startswith("word 2: DECLARATION NrTokens 3 but its flags")
    _, sink = dec(modern_stream([3 | 2 << 4 | 77 << 12, 0]))
    assert messages(sink) == [("E1009", "word 2: property 77 is not defined (0..29)")]
    _, sink = dec(modern_stream([2 | 1 << 4 | 67 << 12]))
    assert messages(sink) == [("E3001", "word 2: opcode 67 has no name in the modern opcode table")]
    _, sink = dec(modern_stream([1 | 5 << 4 | 9 << 18, 0, 0, 0, 0]))
    assert messages(sink) == [("E1009", "word 2: immediate DataType 9 is not defined (0..5)")]


def test_decode_never_raises_on_bad_arguments_in_data_but_raises_on_bad_options():
    with pytest.raises(ValueError):
        decode(pack(T2_SEED), DiagnosticSink("x"), opcode_table="1999")


# ---------------------------------------------------------------------------------------------
# Property tests
# ---------------------------------------------------------------------------------------------

s16 = st.integers(-0x8000, 0x7FFF)
comp = st.integers(0, 3)
swz4 = st.tuples(comp, comp, comp, comp)
mask4 = st.tuples(st.booleans(), st.booleans(), st.booleans(), st.booleans())
SEED_FILES = ("NULL", "CONST", "IN", "OUT", "TEMP", "SAMP", "ADDR", "IMM")
SEED_OPS = sorted(BW._reverse(B.SEED_OPCODES_2008))
MODERN_OPS = sorted(BW._reverse(B.MODERN_OPCODES))
MODERN_FILES = T._MODERN_FILES


def seed_indirect():
    return st.builds(Indirect, st.sampled_from(SEED_FILES), s16, comp)


@st.composite
def seed_reg(draw):
    file = draw(st.sampled_from(SEED_FILES))
    ind = draw(st.none() | seed_indirect())
    if draw(st.booleans()):
        return RegRef(file, draw(s16), ind)
    return RegRef(file, draw(s16), ind, dim=draw(s16), dim_indirect=draw(st.none() | seed_indirect()))


cond_codes = st.builds(CondCode, st.sampled_from(CC_TESTS), swz4, st.integers(0, 15))
seed_srcs = st.builds(
    Src, seed_reg(), st.tuples(*[st.integers(0, 5)] * 4), neg=st.booleans(), abs=st.booleans(),
    abs_neg=st.booleans(), comp_neg=mask4, complement=st.booleans(), bias=st.booleans(),
    scale2x=st.booleans(), ext_divide=st.integers(0, 5))
seed_dsts = st.builds(Dst, seed_reg(), mask4, cond=st.none() | cond_codes,
                      modulate=st.sampled_from(T._MODULATES))
seed_instrs = st.builds(
    Instruction, st.sampled_from(SEED_OPS), st.lists(seed_dsts, max_size=2).map(tuple),
    st.lists(seed_srcs, max_size=4).map(tuple), saturate=st.sampled_from(("", "SAT", "SSAT")),
    label=st.none() | st.integers(0, (1 << 24) - 1),
    texture=st.none() | st.sampled_from(T._SEED_TEXTURES),
    precision=st.sampled_from(T._PRECISIONS), cc_update=st.none() | st.integers(0, 15),
    cond=st.none() | cond_codes)


@st.composite
def seed_decls(draw):
    first = draw(st.integers(0, 0xFFFF - 40))
    return Declaration(draw(st.sampled_from(SEED_FILES)), first,
                       first + draw(st.integers(0, 40)),
                       interpolate=draw(st.none() | st.sampled_from(T._SEED_INTERP)))


words32 = st.integers(0, 0xFFFFFFFF)
seed_shaders = st.builds(
    Shader, st.sampled_from(("FRAG", "VERT", "GEOM")), st.just([]),
    st.lists(seed_decls(), max_size=4),
    st.lists(st.builds(Immediate, st.just("FLT32"),
                       st.lists(words32, min_size=1, max_size=4).map(tuple)), max_size=3),
    st.lists(seed_instrs, max_size=6))


@pytest.mark.slow
@SETTINGS
@given(seed_shaders, st.sampled_from(["h2007", "mesa2008"]), st.booleans())
def test_seed_round_trip(shader, cc_table, use_mask):
    if cc_table == "mesa2008":
        uses_un = any(c is not None and c.test == "UN" for i in shader.instructions
                      for c in [i.cond] + [d.cond for d in i.dsts])
        if uses_un:
            with pytest.raises(ValueError):
                encode_seed(shader, cc_table=cc_table)
            return
    data = encode_seed(shader, cc_table=cc_table,
                       declare_mask=SEED_FILES if use_mask else ())
    assert detect_layout(data) == "seed"
    sink = DiagnosticSink("t")
    back = decode(data, sink, cc_table=cc_table)
    assert not sink.items, messages(sink)
    assert back == shader
    assert encode_seed(back, cc_table=cc_table,
                       declare_mask=SEED_FILES if use_mask else ()) == data


def modern_indirect(array_id=True):
    return st.builds(Indirect, st.sampled_from(MODERN_FILES), s16, comp,
                     st.integers(0, 1023) if array_id else st.just(0))


@st.composite
def modern_reg(draw):
    file = draw(st.sampled_from(MODERN_FILES))
    ind = draw(st.none() | modern_indirect(array_id=False))
    aid = draw(st.integers(0, 1023)) if ind is not None else 0
    if draw(st.booleans()):
        return RegRef(file, draw(s16), ind, array_id=aid)
    return RegRef(file, draw(s16), ind, dim=draw(s16),
                  dim_indirect=draw(st.none() | modern_indirect()), array_id=aid)


@st.composite
def modern_srcs(draw):
    mod = draw(st.sampled_from(["", "neg", "abs", "-abs"]))
    return Src(draw(modern_reg()), draw(swz4), neg=mod == "neg", abs=mod in ("abs", "-abs"),
               abs_neg=mod == "-abs")


formats = st.integers(1, 1023).map(lambda n: f"PIPE_FORMAT_{n}")


@st.composite
def memory_items(draw):
    quals = [q for q in T._MEMQUALS if draw(st.booleans())]
    tex = draw(st.none() | st.sampled_from(TEXTURE_TARGETS[1:]))
    fmt = draw(st.none() | formats)
    return tuple(quals + [x for x in (tex, fmt) if x])


modern_instrs = st.builds(
    Instruction, st.sampled_from(MODERN_OPS),
    st.lists(st.builds(Dst, modern_reg(), mask4), max_size=2).map(tuple),
    st.lists(modern_srcs(), max_size=4).map(tuple), saturate=st.sampled_from(("", "SAT")),
    precise=st.booleans(), label=st.none() | st.integers(0, (1 << 24) - 1),
    memory=memory_items())


@st.composite
def modern_instr(draw):
    ins = draw(modern_instrs)
    if draw(st.booleans()):
        offs = draw(st.lists(st.builds(lambda f, i, s: Src(RegRef(f, i), s + (3,)),
                                       st.sampled_from(MODERN_FILES), s16,
                                       st.tuples(comp, comp, comp)), max_size=4))
        from dataclasses import replace
        ins = replace(ins, texture=draw(st.sampled_from(TEXTURE_TARGETS)), tex_offsets=tuple(offs))
    return ins


@st.composite
def modern_decl(draw, processor):
    file = draw(st.sampled_from(MODERN_FILES))
    first = draw(st.integers(0, 0xFFFF - 40))
    kw = {}
    um = draw(mask4)
    kw["usage_mask"] = None if all(um) else um
    kw["dim"] = draw(st.none() | st.integers(0, 0xFFFF))
    kw["array_id"] = draw(st.integers(0, 1023))
    kw["local"], kw["invariant"], kw["atomic"] = draw(st.booleans()), draw(st.booleans()), draw(st.booleans())
    kw["memory_type"] = draw(st.sampled_from(T._MEMTYPES))
    if draw(st.booleans()):
        kw["semantic"] = draw(st.sampled_from(T.SEMANTICS))
        kw["semantic_index"] = draw(st.integers(0, 0xFFFF))
        stream = draw(swz4)
        kw["stream"] = None if stream == (0, 0, 0, 0) else stream
    if draw(st.booleans()):
        kw["interpolate"] = draw(st.sampled_from(INTERPOLATIONS))
        kw["location"] = draw(st.sampled_from((None, "CENTROID", "SAMPLE")))
    if file == "IMAGE":
        kw.update(target=draw(st.sampled_from(TEXTURE_TARGETS)), raw=draw(st.booleans()),
                  writable=draw(st.booleans()), format=draw(st.none() | formats))
    if file == "SVIEW":
        kw.update(target=draw(st.sampled_from(TEXTURE_TARGETS)),
                  return_types=draw(st.tuples(*[st.sampled_from(RETURN_TYPES)] * 4)))
    return Declaration(file, first, first + draw(st.integers(0, 40)),
                       implicit_dim=B.implicit_dim(processor, file, kw.get("semantic")), **kw)


@st.composite
def modern_property(draw, processors):
    name = draw(st.sampled_from(T.PROPERTIES))
    names = processors if name == "NEXT_SHADER" else T._PROPERTY_ENUMS.get(name)
    if names is not None:
        return Property(name, draw(st.sampled_from(names)))
    return Property(name, str(draw(words32)))


@st.composite
def modern_shaders(draw):
    enum = draw(st.sampled_from(sorted(T._MODERN_PROCESSORS)))
    procs = [p for p in T._MODERN_PROCESSORS[enum] if p in
             ("VERT", "FRAG", "GEOM", "TESS_CTRL", "TESS_EVAL", "COMP")]
    proc = draw(st.sampled_from(procs))
    imms = draw(st.lists(st.builds(
        lambda t, w: Immediate(t, w[:len(w) - (len(w) % 2)] if IMM_TYPES.index(t) >= 3 else w),
        st.sampled_from(IMM_TYPES), st.lists(words32, min_size=2, max_size=4).map(tuple)),
        max_size=3))
    shader = Shader(proc, draw(st.lists(modern_property(T._MODERN_PROCESSORS[enum]), max_size=3)),
                    draw(st.lists(modern_decl(proc), max_size=4)), imms,
                    draw(st.lists(modern_instr(), max_size=6)))
    return shader, enum


@pytest.mark.slow
@SETTINGS
@given(modern_shaders())
def test_modern_round_trip(shader_enum):
    shader, enum = shader_enum
    data = encode_modern(shader, processor_enum=enum)
    assert detect_layout(data) == "modern"
    sink = DiagnosticSink("t")
    back = decode(data, sink, processor_enum=enum)
    assert not sink.items, messages(sink)
    assert back == shader
    assert encode_modern(back, processor_enum=enum) == data


FUZZ = settings(max_examples=400, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def decode_no_crash(data):
    sink = DiagnosticSink("fuzz")
    shader = decode(data, sink)
    assert not any(d.code == "E7005" for d in sink.items), messages(sink)   # no internal error
    assert (shader is None) == bool(sink.items)
    assert all(d.code in ("E1009", "E3001") for d in sink.items)
    assert all(d.message.startswith("word ") for d in sink.items)
    return shader, sink


@FUZZ
@given(st.binary(max_size=400))
def test_fuzz_garbage(data):
    shader, sink = decode_no_crash(data)
    if len(data) % 4 or len(data) < 8:
        assert shader is None


@FUZZ
@given(st.sampled_from(["seed", "modern"]), st.integers(0, 7), st.lists(words32, max_size=40))
def test_fuzz_random_body_behind_a_valid_header(layout, proc, body):
    """Random words behind a correct header: exercises every token decoder."""
    words = seed_stream(body, proc) if layout == "seed" else modern_stream(body, proc)
    decode_no_crash(pack(words))


@FUZZ
@given(st.sampled_from(["seed", "modern"]), st.lists(
    st.tuples(st.integers(0, 3), st.integers(1, 8), st.lists(words32, min_size=8, max_size=8)),
    max_size=8))
def test_fuzz_plausible_tokens(layout, tokens):
    """Bodies made of tokens with valid types and sizes and random fields."""
    body = []
    for ttype, size, rest in tokens:
        if layout == "seed":
            ttype %= 3
        head = (rest[0] & ~0xFFF) | size << 4 | ttype
        body += [head] + rest[1:size]
    words = seed_stream(body) if layout == "seed" else modern_stream(body)
    decode_no_crash(pack(words))


@st.composite
def corrupted(draw):
    base = draw(st.sampled_from([T2_SEED, modern_stream(T2_MODERN_BODY)]))
    words = list(base)
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(words) - 1))
        kind = draw(st.sampled_from(["bit", "word", "drop", "dup"]))
        if kind == "bit":
            words[i] ^= 1 << draw(st.integers(0, 31))
        elif kind == "word":
            words[i] = draw(words32)
        elif kind == "drop" and len(words) > 3:
            del words[i]
        else:
            words.insert(i, words[i])
    data = pack(words)
    if draw(st.booleans()):
        data = data[:draw(st.integers(0, len(data)))]
    return data


@FUZZ
@given(corrupted())
def test_fuzz_corrupted_valid_streams(data):
    decode_no_crash(data)


@pytest.mark.slow
@SETTINGS
@given(seed_shaders, st.data())
def test_fuzz_corrupted_random_seed_streams(shader, data):
    words = unpack(encode_seed(shader))
    i = data.draw(st.integers(0, len(words) - 1))
    words[i] ^= 1 << data.draw(st.integers(0, 31))
    decode_no_crash(pack(words))
