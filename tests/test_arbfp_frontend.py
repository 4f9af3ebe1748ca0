"""!!ARBfp1.0 frontend (plain, + NV_fragment_program, + NV_fragment_program2): the IR produced
for each construct (xlate/frontends/nv/arbfp.py; nv_dialects.md 3.5, 3.6, 4, 5, 6, 7.2, 12)."""
from __future__ import annotations

import struct

import pytest

import xlate
from xlate.ir.model import Binding, CCKind, CondTest, DataType, RegKind, Sat
from xlate.ir.printer import print_program
from xlate.ir.validate import validate

F, S = DataType.FLOAT, DataType.INT
NV = "!!ARBfp1.0\nOPTION NV_fragment_program;\n"
NV2 = "!!ARBfp1.0\nOPTION NV_fragment_program2;\n"


def parse(text: str):
    prog = xlate.parse(text, filename="t.fp")
    validate(prog)
    return prog


def f32(bits: int) -> float:
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def body(prog):
    """Instructions as printed, without the register table."""
    return [line.split(None, 1)[1] for line in print_program(prog).splitlines()
            if line[:5].strip().isdigit()]


# ---- header, dialect, program fields -----------------------------------------------------------

def test_plain_program_fields():
    prog = parse("!!ARBfp1.0\nMOV result.color, fragment.color;\nEND\n")
    assert prog.dialect == "ARBfp1.0" and prog.stage.value == "fragment"
    assert prog.call_overflow == "ignore" and prog.max_exec_instructions is None
    assert body(prog) == ["MOV.F result.color[0], fragment.color"]
    assert prog.registers["result.color[0]"].bindings == (Binding("result.color", 0),)


def test_fp2_program_fields():
    # FP2 3.11.X.2 (CAL overflow terminates), 3.11.4.X (MAX_PROGRAM_EXEC_INSTRUCTIONS_NV)
    prog = parse(NV2 + "MOV result.color, fragment.color;\nEND\n")
    assert prog.call_overflow == "terminate"
    assert prog.max_exec_instructions == 65536
    assert prog.options == ("NV_fragment_program2",)


def test_empty_program_is_valid():
    # ARBFP 3.11.2: <statementSequence> may be empty
    assert parse("!!ARBfp1.0\nEND\n").instructions == []


def test_crlf_and_comments():
    prog = parse("!!ARBfp1.0\r\n# c\r\nTEMP a; # c\r\nMOV a, fragment.color;MOV result.color, a;\r\nEND")
    assert len(prog.instructions) == 2


# ---- opcode + suffix decomposition (digest 2.5, FPO/FP2 Table X.5) ---------------------------

@pytest.mark.parametrize("head, text, op, precision, cc, sat", [
    ("!!ARBfp1.0\n", "MOV_SAT r, fragment.color;", "MOV", None, None, Sat.SAT),
    (NV, "MOVR r, fragment.color;", "MOV", "R", None, Sat.NONE),
    (NV, "MOVH r, fragment.color;", "MOV", "FP16", None, Sat.NONE),
    (NV, "MOVX r, fragment.color;", "MOV", "X", None, Sat.NONE),
    (NV, "MOVXC_SAT r, fragment.color;", "MOV", "X", 0, Sat.SAT),
    (NV, "MAXX r, fragment.color, fragment.color;", "MAX", "X", None, Sat.NONE),
    (NV, "STRR r, fragment.color, fragment.color;", "STR", "R", None, Sat.NONE),
    (NV, "FRCC r, fragment.color;", "FRC", None, 0, Sat.NONE),
    (NV, "TEXC_SAT r, fragment.color, texture[0], 2D;", "TEX", None, 0, Sat.SAT),
    (NV, "UP2HC r, fragment.color.x;", "UP2H", None, 0, Sat.NONE),
    (NV, "DPHH r, fragment.color, fragment.color;", "DPH", "FP16", None, Sat.NONE),
    (NV2, "ADDRC_SSAT r, fragment.color, fragment.color;", "ADD", "R", 0, Sat.SSAT),
    (NV2, "DP2AH r, fragment.color, fragment.color, fragment.color;", "DP2A", "FP16", None, Sat.NONE),
    (NV2, "CMPC r, fragment.color, fragment.color, fragment.color;", "CMP", None, 0, Sat.NONE),
    (NV2, "XPDH r, fragment.color, fragment.color;", "XPD", "FP16", None, Sat.NONE),
])
def test_opcode_suffixes(head, text, op, precision, cc, sat):
    ins = parse(head + "TEMP r;\n" + text + "\nEND\n").instructions[0]
    assert (ins.op, ins.precision, ins.cc_update, ins.sat) == (op, precision, cc, sat)
    if cc is not None:
        assert ins.cc_kind == CCKind.FLOAT          # one CC, float results (digest 6.5)


def test_condition_code_names_are_not_keywords():
    # piglit condition_code-01: "The condition code names are *not* reserved as keywords"
    prog = parse(NV + "TEMP EQ, FL, LE, LT, GE, GT, NE, TR;\nMOV LT, fragment.color;\n"
                 "MOV result.color (LT.x), LT;\nEND\n")
    assert prog.instructions[1].dst.cond == CondTest("LT", 0, (0, 0, 0, 0))
    assert prog.instructions[1].srcs[0].reg == "LT"


def test_opcode_names_are_names_without_the_option():
    # piglit reserved_words-01: only the ARB opcodes are reserved in plain ARB_fragment_program
    prog = parse("!!ARBfp1.0\nTEMP DDX, SEQ, X2D, ARL;\nMOV X2D, fragment.color;\nEND\n")
    assert prog.registers["X2D"].kind == RegKind.TEMP


# ---- operands ----------------------------------------------------------------------------

def test_rsq_takes_absolute_value():
    # ARBFP 3.11.5.22: 1/sqrt(|x|) - made explicit with the abs modifier; a negation is moot
    prog = parse(NV + "TEMP t;\nRSQ t.x, -fragment.color.y;\nRSQH t.y, |fragment.color.z|;\nEND\n")
    for ins, comp in zip(prog.instructions, (1, 2)):
        src = ins.srcs[0]
        assert (ins.op, src.abs, src.neg, src.swizzle) == ("RSQ", True, False, (comp,) * 4)


def test_scalar_constants():
    # ARB "2.0.x" (required for scalar operands); bare scalar constants in vector operands
    prog = parse("!!ARBfp1.0\nTEMP t;\nRCP t, 2.0.x;\nMUL t, t, 0.5;\nMOV t, -2;\nEND\n")
    rcp, mul, mov = prog.instructions
    k = prog.registers[rcp.srcs[0].reg]
    assert k.kind == RegKind.CONST and f32(k.value[0][0]) == 2.0
    assert f32(prog.registers[mul.srcs[1].reg].value[0][1]) == 0.5
    assert mov.srcs[0].neg and f32(prog.registers[mov.srcs[0].reg].value[0][0]) == 2.0
    nv = parse(NV + "TEMP t;\nRCP t, 2.0;\nEND\n")          # FPO <paramUseS> ::= <constantScalar>
    assert f32(nv.registers[nv.instructions[0].srcs[0].reg].value[0][0]) == 2.0


def test_vector_constants_expand_and_swizzle():
    prog = parse("!!ARBfp1.0\nTEMP t;\nADD t, {0.5}.r, {1, 2};\nEND\n")
    a, b = prog.instructions[0].srcs
    assert [f32(w) for w in prog.registers[a.reg].value[0]] == [0.5, 0, 0, 1]
    assert a.swizzle == (0, 0, 0, 0)
    assert [f32(w) for w in prog.registers[b.reg].value[0]] == [1, 2, 0, 1]


def test_abs_operand_order():
    # FPO 3.11.4.1: swizzle, |abs|, then the negation outside the bars
    src = parse(NV + "TEMP t;\nMOV t, -|fragment.color.yzwx|;\nEND\n").instructions[0].srcs[0]
    assert (src.abs, src.neg, src.swizzle) == (True, True, (1, 2, 3, 0))


def test_swz_extended_swizzle():
    ins = parse("!!ARBfp1.0\nSWZ result.color, fragment.color, -g, 0, 1, a;\nEND\n").instructions[0]
    src = ins.srcs[0]
    assert src.swizzle == (1, 4, 5, 3) and src.comp_neg == (True, False, False, False)


def test_param_arrays_and_state():
    prog = parse("!!ARBfp1.0\nPARAM m[] = { state.matrix.mvp, program.local[0..1], {1, 2} };\n"
                 "TEMP t;\nDP4 t.x, m[5], state.matrix.texture[1].inverse.row[2];\n"
                 "MOV t, state.texenv[2].color;\nMOV t, state.depth.range;\n"
                 "MOV t, state.matrix.palette[3].row[0];\nMOV t, program.env[7];\nEND\n")
    m = prog.registers["m"]
    assert m.size == 7
    assert m.bindings[:5] == tuple(Binding("state.matrix.mvp.row", None, r) for r in range(4)) + (
        Binding("program.local", 0),)
    assert m.bindings[6] is None
    texts = [r.bindings[0].text() for r in prog.registers.values() if r.implicit and r.kind == RegKind.PARAM]
    assert texts == ["state.matrix.texture[1].inverse.row[2]", "state.texenv[2].color",
                     "state.depth.range", "state.matrix.palette[3].row[0]", "program.env[7]"]


def test_output_variables_share_the_result_register():
    # an OUTPUT variable and a direct result.color write are one register (one storage)
    prog = parse("!!ARBfp1.0\nOUTPUT o = result.color;\nOUTPUT p = result.color;\n"
                 "MOV o.x, 1;\nMOV result.color.y, 2;\nMOV p.z, 3;\nEND\n")
    assert {i.dst.reg for i in prog.instructions} == {"o"}
    r = xlate.execute(prog, {})
    assert r.float("result.color")[0, :3].tolist() == [1, 2, 3]


def test_fragment_facing_and_fogcoord_constant_components():
    # FP2 3.11.3.1 fragment.facing = (f, 0, 0, 1); ARBFP Table X.1 fragment.fogcoord = (f, 0, 0, 1)
    prog = parse(NV2 + "TEMP t;\nADD t, fragment.facing, fragment.fogcoord;\nMOV result.color, t;\nEND\n")
    assert body(prog)[:4] == ["MOV.F %facing.yzw, {0.0, 0.0, 0.0, 1.0}",
                              "MOV.F %facing.x, fragment.facing.x",
                              "MOV.F %fogcoord.yzw, {0.0, 0.0, 0.0, 1.0}",
                              "MOV.F %fogcoord.x, fragment.fogcoord.x"]
    r = xlate.execute(prog, {"fragment.facing": [-1.0, 7, 7, 7], "fragment.fogcoord": [0.5, 9, 9, 9]})
    assert r.float("result.color")[0].tolist() == [-0.5, 0, 0, 2]


# ---- precision (FPO 3.11.4.X, FP1 3.11.4.2; module docstring of arbfp.py) -------------------

def test_short_destination_rounds_to_fp16():
    prog = parse(NV + "SHORT TEMP h;\nLONG TEMP l;\nSHORT OUTPUT o = result.color;\n"
                 "MOV h, fragment.color;\nMOVX l, fragment.color;\nMOVR h, fragment.color;\n"
                 "MOVX h, fragment.color;\nMOV l, fragment.color;\nMOV o, l;\nEND\n")
    assert [i.precision for i in prog.instructions] == ["FP16", "X", "FP16", "X", None, "FP16"]
    assert prog.registers["h"].precision == "SHORT"


# ---- textures --------------------------------------------------------------------------------

def test_texture_instructions():
    prog = parse(NV2 + "OPTION ARB_fragment_program_shadow;\nTEMP t;\n"
                 "TEX t, fragment.texcoord[0], texture, 2D;\n"
                 "TXP t, fragment.texcoord[1], texture[1], CUBE;\n"
                 "TXB t, fragment.texcoord[1], texture[2], SHADOW2D;\n"
                 "TXL t, fragment.texcoord[1], texture[3], 3D;\n"
                 "TXD t, t, t, t, texture[4], RECT;\nEND\n")
    got = [(i.op, i.tex.unit, i.tex.target, len(i.srcs)) for i in prog.instructions]
    # ARB TXP on a cube map divides (unlike FP1, test_fp1_frontend)
    assert got == [("TEX", 0, "2D", 1), ("TXP", 1, "CUBE", 1), ("TXB", 2, "SHADOW2D", 1),
                   ("TXL", 3, "3D", 1), ("TXD", 4, "RECT", 3)]


def test_kil_forms():
    prog = parse(NV + "KIL fragment.texcoord[0];\nKIL LT.x;\nKIL (NE.wzyx);\nEND\n")
    a, b, c = prog.instructions
    assert a.srcs[0].reg == "fragment.texcoord[0]" and a.cond is None
    assert b.cond == CondTest("LT", 0, (0, 0, 0, 0)) and not b.srcs
    assert c.cond == CondTest("NE", 0, (3, 2, 1, 0))


def test_cc_dummy_destination():
    prog = parse(NV2 + "MOVC CC, fragment.color;\nIF GT.x;\nMOV result.color, 1;\nENDIF;\nEND\n")
    assert prog.instructions[0].dst.reg == "CC" and prog.registers["CC"].implicit


def test_draw_buffers_option():
    prog = parse("!!ARBfp1.0\nOPTION ATI_draw_buffers;\nMOV result.color[1], fragment.texcoord[1];\n"
                 "MOV result.color, fragment.texcoord[0];\nEND\n")
    assert [i.dst.reg for i in prog.instructions] == ["result.color[1]", "result.color[0]"]


def test_fog_option_lowered():
    # options.py: the body becomes a subroutine and the blend follows it
    prog = parse("!!ARBfp1.0\nOPTION ARB_fog_linear;\nOPTION ARB_precision_hint_nicest;\n"
                 "MOV result.color, fragment.color;\nEND\n")
    assert prog.instructions[0].op == "CAL" and "LRP" in [i.op for i in prog.instructions]
    r = xlate.execute(prog, {"fragment.color": [1.0, 1, 1, 0.5], "fragment.fogcoord": [2.0, 0, 0, 0]},
                      params={"state.fog.params": [0.0, 0.0, 4.0, 0.25],
                              "state.fog.color": [0.0, 0, 0, 0]})
    assert r.float("result.color")[0].tolist() == [0.5, 0.5, 0.5, 0.5]


# ---- NV_fragment_program2 flow control ------------------------------------------------------

def test_loop_lowering():
    # FP2 3.11.X.5/8: count = floor(x) (clamped to 255), A0.x = floor(y) >= 0, incr = floor(z)
    prog = parse(NV2 + "PARAM lp = program.local[0];\nTEMP a;\nLOOP lp;\n"
                 "ADD a, a, fragment.texcoord[A0.x + 1];\nENDLOOP;\nMOV result.color, a;\nEND\n")
    assert body(prog) == [
        "FLR.S %A0_0.x, lp.y",
        "MAX.S %A0_0.x, %A0_0.x, 0.x",
        "FLR.S %A0_0.y, lp.z",
        "MIN.F %loop_count0.x, lp.x, 255.0.x",
        "REP.F %loop_count0.x",
        "ADD.F a, a, fragment.texcoord[][%A0_0.x + 1]",
        "ADD.S %A0_0.x, %A0_0.x, %A0_0.y",
        "MAX.S %A0_0.x, %A0_0.x, 0.x",
        "ENDREP",
        "MOV.F result.color[0], a",
    ]
    assert prog.registers["%A0_0"].dtype == S
    arr = prog.registers["fragment.texcoord[]"]
    assert arr.kind == RegKind.INPUT and arr.size == 8
    assert arr.bindings == tuple(Binding("fragment.texcoord", i) for i in range(8))


def test_nested_loops_use_the_innermost_index():
    prog = parse(NV2 + "PARAM lp = program.local[0];\nTEMP a;\nLOOP lp;\n"
                 "LOOP {2, 3, 0};\nADD a, a, fragment.texcoord[A0.x];\nENDLOOP;\n"
                 "REP lp;\nADD a, a, fragment.texcoord[A0.x];\nENDREP;\nENDLOOP;\nEND\n")
    adds = [i for i in prog.instructions if i.op == "ADD" and i.dtype == F]
    assert [i.srcs[1].index.reg for i in adds] == ["%A0_1", "%A0_0"]
    reps = [i.srcs[0].reg for i in prog.instructions if i.op == "REP"]
    assert reps == ["%loop_count0", "%loop_count1", "%loop_count1"]


def test_rep_and_if_blocks():
    prog = parse(NV2 + "PARAM n = program.local[0];\nTEMP a;\nREP n;\nIF NE.x;\nBRK (GT.y);\n"
                 "ELSE;\nMOV a, 1;\nENDIF;\nENDREP;\nEND\n")
    assert [i.op for i in prog.instructions] == ["MIN", "REP", "IF", "BRK", "ELSE", "MOV", "ENDIF",
                                                 "ENDREP"]
    assert prog.instructions[2].cond == CondTest("NE", 0, (0, 0, 0, 0))
    assert prog.instructions[3].cond == CondTest("GT", 0, (1, 1, 1, 1))


def test_labels_fall_through():
    # FP2 labels are markers: execution falls into "sub" (no implicit RET as in NV4); the
    # fall-through is made explicit as CAL + RET so every label region ends with a RET
    prog = parse(NV2 + "TEMP a;\nmain:\nMOV a, 1;\nsub:\nADD a, a, 1;\nMOV result.color, a;\n"
                 "RET;\nEND\n")
    assert body(prog) == ["MOV.F a, 1.0", "CAL sub", "RET", "ADD.F a, a, 1.0",
                          "MOV.F result.color[0], a", "RET"]
    assert prog.labels == {"main": 0, "sub": 3} and prog.entry == 0
    assert xlate.execute(prog, {}).float("result.color")[0, 0] == 2.0


def test_no_fall_through_after_ret():
    prog = parse(NV2 + "TEMP a;\nCAL f;\nMOV result.color, a;\nRET (TR);\nf:\nMOV a, 1;\nRET;\nEND\n")
    assert [i.op for i in prog.instructions] == ["CAL", "MOV", "RET", "MOV", "RET"]
    assert xlate.execute(prog, {}).float("result.color")[0, 0] == 1.0


def test_call_conditions():
    prog = parse(NV2 + "CAL f (GT.x);\nCAL f NE.y;\nRET (LT);\nf:\nRET;\nEND\n")
    a, b, c = prog.instructions[:3]
    assert a.label == "f" and a.cond == CondTest("GT", 0, (0, 0, 0, 0))
    assert b.cond == CondTest("NE", 0, (1, 1, 1, 1))
    assert c.cond == CondTest("LT", 0, (0, 1, 2, 3))


def test_everything_translates_to_spirv():
    text = (NV2 + "OPTION ARB_fragment_program_shadow;\nOPTION ARB_fog_exp2;\n"
            "PARAM lp = program.local[0];\nSHORT TEMP h;\nTEMP a, b;\n"
            "MOVC CC, fragment.facing;\nIF LT.x;\nMOVH h, fragment.color;\nENDIF;\n"
            "LOOP lp;\nADDXC a, a, fragment.texcoord[A0.x + 2];\nBRK (GT.x);\nENDLOOP;\n"
            "TXB b, a, texture[1], SHADOW2D;\nPK2H b.x, a;\nUP2H b, b.x;\nRFL b.xyz, a, b;\n"
            "X2D b, a, b, a;\nDIV b, b, a.x;\nNRM b.xyz, b;\nKIL LT.x;\nCAL f (GT.x);\n"
            "MOV_SSAT result.color, b;\nRET;\nf:\nMOV result.depth.z, h.x;\nRET;\nEND\n")
    result = xlate.translate(text, filename="t.fp", target="spirv", via="glsl")
    assert result.spirv[:4] == b"\x03\x02\x23\x07"
    assert "xl_fx12(" in result.glsl and "xl_fp16(" in result.glsl
