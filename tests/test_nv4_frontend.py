"""What the NV_gpu_program4 frontend produces (IR fields), for legal programs.

Opcode/suffix decomposition, modifiers, typed constants, condition-code tests in both
syntaxes, labels and the implicit RET, relative addressing, geometry inputs, parameter buffers,
binding canonicalization and the syntax cgc emits.  Spec abbreviations as in
design/nv_dialects.md: GP4 = NV_gpu_program4, VP4/FP4/GEO4 = NV_vertex/fragment/
geometry_program4, PBO = NV_parameter_buffer_object.
"""
from __future__ import annotations

import itertools
import struct

import pytest

from xlate.diagnostics import XlateError
from xlate.frontends import parse_program
from xlate.ir.model import (Binding, CCKind, CondTest, DataType, Geometry, Index, RegKind, Sat,
                            Stage, VarInfo)
from xlate.ir.validate import validate
from nv4_examples import VP4_A, VP4_B, FP4_A, FP4_B, GP4_A, GP4_B, PBO  # noqa: E402


def f32(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


def load(body: str, header: str = "!!NVfp4.0", name: str | None = None):
    """Parse header + body + END and check the IR invariants."""
    ext = {"!!NVvp4.0": "t.vp", "!!NVfp4.0": "t.fp", "!!NVgp4.0": "t.gp"}[header]
    prog = parse_program(f"{header}\n{body}\nEND\n", name or ext)
    validate(prog)
    return prog


def const(prog, src):
    """The words and type of the literal constant a source operand reads."""
    reg = prog.registers[src.reg]
    assert reg.kind == RegKind.CONST
    return reg.value[0], reg.dtype


def rejected(body: str, header: str = "!!NVfp4.0") -> list[str]:
    with pytest.raises(XlateError) as info:
        parse_program(f"{header}\n{body}\nEND\n", "t")
    return [d.code for d in info.value.diagnostics]


# ---------------------------------------------------------------------------------------------
# opcodes, suffixes and modifiers (GP4 2.X.4.1, Tables X.13-X.15; nv_dialects.md 2.5)
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("text, op, dtype, precision, cc, sat", [
    # R and H are the F data type modifier plus a precision floor (Table X.15)
    ("MOVR a, b;", "MOV", DataType.FLOAT, "R", None, Sat.NONE),
    ("MOVH a, b;", "MOV", DataType.FLOAT, "H", None, Sat.NONE),
    ("ADDC_SAT a, b, b;", "ADD", DataType.FLOAT, None, 0, Sat.SAT),
    ("ADDH_SAT a, b, b;", "ADD", DataType.FLOAT, "H", None, Sat.SAT),
    # the spec's own example: "ADDRC1_SSAT carries out an add at 32-bit floating-point precision,
    # clamps the results to [-1,1], and updates condition code one"
    ("ADDRC1_SSAT a, b, b;", "ADD", DataType.FLOAT, "R", 1, Sat.SSAT),
    ("MOVC0 a, b;", "MOV", DataType.FLOAT, None, 0, Sat.NONE),
    ("MOVC1 a, b;", "MOV", DataType.FLOAT, None, 1, Sat.NONE),
    # longest legal mnemonic first: RCC (Table X.13 "reciprocal (clamped)") + C; FRC + C;
    # STR + R; FLR + C0; DP2A + C
    ("RCCC a.x, b.x;", "RCC", DataType.FLOAT, None, 0, Sat.NONE),
    ("FRCC a, b;", "FRC", DataType.FLOAT, None, 0, Sat.NONE),
    ("STRR a, b, b;", "STR", DataType.FLOAT, "R", None, Sat.NONE),
    ("FLRC0 a, b;", "FLR", DataType.FLOAT, None, 0, Sat.NONE),
    ("DP2AC a.x, b, b, b;", "DP2A", DataType.FLOAT, None, 0, Sat.NONE),
    ("TEXC_SAT a, b, texture[0], 2D;", "TEX", DataType.FLOAT, None, 0, Sat.SAT),
    # defaults of Table X.13 column D
    ("AND a, b, b;", "AND", DataType.INT, None, None, Sat.NONE),
    ("I2F a, b;", "I2F", DataType.INT, None, None, Sat.NONE),
    ("TXQ a, b.x, texture[0], 2D;", "TXQ", DataType.INT, None, None, Sat.NONE),
    ("MOV.U.CC1 a, b;", "MOV", DataType.UINT, None, 1, Sat.NONE),
])
def test_opcode_suffix_decomposition(text, op, dtype, precision, cc, sat):
    prog = load(f"TEMP a, b;\n{text}")
    (ins,) = prog.instructions
    assert (ins.op, ins.dtype, ins.precision, ins.cc_update, ins.sat) == (op, dtype, precision, cc, sat)


@pytest.mark.parametrize("text", ["MADXC a, b, b, b;", "MAXX a, b, b;", "MOVX a, b;"])
def test_x_precision_suffix_is_not_nv4(text):
    # GP4 Table X.15 lists R, H, C, C0, C1, _SAT, _SSAT only (nv_dialects.md 2.5: "X is not an
    # NV4 suffix"); MADXC is FP1/ARBfp syntax
    assert rejected(f"TEMP a, b;\n{text}") == ["E3001"]


def test_dot_modifiers_in_any_order():
    # GP4 2.X.4.1: stand-alone modifiers, "separated by periods", in any order
    fields = set()
    for mods in itertools.permutations(["F", "CC1", "SAT"]):
        (ins,) = load(f"TEMP a, b;\nADD.{'.'.join(mods)} a, b, b;").instructions
        fields.add((ins.op, ins.dtype, ins.cc_update, ins.sat))
    assert fields == {("ADD", DataType.FLOAT, 1, Sat.SAT)}
    # a glued suffix of one category and a dot modifier of another combine
    (ins,) = load("TEMP a, b;\nADDC.SAT.F a, b, b;").instructions
    assert (ins.cc_update, ins.sat, ins.dtype) == (0, Sat.SAT, DataType.FLOAT)


def test_mul_modifiers():
    # GP4 2.X.8.Z MUL: S24/U24 select signed/unsigned 24-bit multiplies, HI the high word
    prog = load("TEMP a, b;\nMUL.S24 a, b, b;\nMUL.U24 a, b, b;\nMUL.HI.U a, b, b;\nMUL.S.HI a, b, b;")
    assert [(i.dtype, i.mul_mode) for i in prog.instructions] == [
        (DataType.INT, "S24"), (DataType.UINT, "U24"), (DataType.UINT, "HI"), (DataType.INT, "HI")]


def test_ntc_allows_a_typed_variable_of_another_type():
    # GP4 2.X.4.1: "NTC" disables type checking
    prog = load("FLOAT TEMP f;\nINT TEMP i;\nMOV.S.NTC f, i;")
    assert prog.instructions[0].dtype == DataType.INT


@pytest.mark.parametrize("text, kind", [
    # GP4 2.X.4.3 / issue 23 / nv_dialects.md 12 item 27: the flag rule of each CC update
    ("ADD.F.CC a, b, b;", CCKind.FLOAT),
    ("I2F.S.CC a, b;", CCKind.FLOAT),          # float result of an integer instruction
    ("AND.S.CC a, b, b;", CCKind.INT),
    ("ADD.U.CC a, b, b;", CCKind.ADD),
    ("MAD.S.CC a, b, b, b;", CCKind.ADD),
    ("SUB.S.CC a, b, b;", CCKind.SUB),
    ("ADD.S.CC a, b, -b;", CCKind.SUB),         # a + (-b) is a subtraction for the carry
    ("ADD.S.CC a, -b, b;", CCKind.SUB),         # -a + b reads as b - a
    ("SUB.S.CC a, b, -b;", CCKind.ADD),         # a - (-b) is an addition
])
def test_condition_code_flag_rule(text, kind):
    (ins,) = load(f"TEMP a, b;\n{text}").instructions
    assert ins.cc_kind == kind


# ---------------------------------------------------------------------------------------------
# constants typed by the instruction (GP4 2.X.3.3 "Constant Bindings")
# ---------------------------------------------------------------------------------------------
def test_constants_take_the_type_of_the_operand():
    prog = load("TEMP i, u, a;\n"
                "MOV.S i, {3};\n"              # {3} -> (3, 0, 0, 1) as integers
                "MOV.U u, 0x80000000;\n"       # hex integer, replicated
                "MOV a, {2, -1};\n"            # y, z = 0, w = 1; floats
                "MOV.S i, {2, -1};\n"          # the same text read as integers
                "MOV.U u, -1;\n"               # operand negation of 1 (two's complement)
                "MOV a, 0.5;\n"                # a scalar replicates
                "MOV.S i, 0xFFFFFFFF;\n"       # hex spells the raw bits of -1
                "MOV a, {2, -1};\n")           # reuses the float constant
    srcs = [ins.srcs[0] for ins in prog.instructions]
    assert const(prog, srcs[0]) == ((3, 0, 0, 1), DataType.INT)
    assert const(prog, srcs[1]) == ((0x80000000,) * 4, DataType.UINT)
    assert const(prog, srcs[2]) == ((f32(2.0), f32(-1.0), 0, f32(1.0)), DataType.FLOAT)
    assert const(prog, srcs[3]) == ((2, 0xFFFFFFFF, 0, 1), DataType.INT)
    assert const(prog, srcs[4]) == ((1, 1, 1, 1), DataType.UINT) and srcs[4].neg
    assert const(prog, srcs[5]) == ((f32(0.5),) * 4, DataType.FLOAT)
    assert const(prog, srcs[6]) == ((0xFFFFFFFF,) * 4, DataType.INT)
    assert srcs[7].reg == srcs[2].reg and srcs[3].reg != srcs[2].reg


def test_constants_in_declarations_take_the_declared_type():
    # GP4 2.X.3.3: declaration constants follow the variable's type; untyped means float, so
    # "PARAM x = 2;" is 2.0 (GP4 issue 7)
    prog = load("PARAM x = 2;\nINT PARAM i = {1, 2};\nUINT PARAM u = 0xFFFFFFFF;\n"
                "PARAM v = {1.5, 2, 3, 4};\nPARAM arr[] = { {1}, program.local[3], -2 };")
    r = prog.registers
    assert r["x"].value == ((f32(2.0),) * 4,)
    assert r["i"].value == ((1, 2, 0, 1),) and r["i"].dtype == DataType.INT
    assert r["u"].value == ((0xFFFFFFFF,) * 4,)
    assert r["v"].value == ((f32(1.5), f32(2.0), f32(3.0), f32(4.0)),)
    assert r["arr"].size == 3
    assert r["arr"].bindings == (None, Binding("program.local", 3), None)
    assert r["arr"].value[0] == (f32(1.0), 0, 0, f32(1.0))
    assert r["arr"].value[2] == (f32(-2.0),) * 4


def test_number_spellings():
    # GP4 2.X.2 <float>: "1.", ".5", "1e3", "1.5E-2"; nv_dialects.md 2.4 traps 2 and 3
    prog = load("TEMP a;\nPARAM p[] = { program.local[0..7] };\n"
                "MOV a, {1., .5, 1e3, 1.5E-2};\nMOV a, 2.x;\nMOV a, 2.0.x;\nMOV a, p[7];")
    srcs = [i.srcs[0] for i in prog.instructions]
    assert const(prog, srcs[0])[0] == (f32(1.0), f32(0.5), f32(1000.0), f32(0.015))
    assert const(prog, srcs[1])[0] == (f32(2.0),) * 4 and srcs[1].swizzle == (0, 0, 0, 0)
    assert const(prog, srcs[2])[0] == (f32(2.0),) * 4
    assert prog.registers["p"].size == 8 and srcs[3].index == Index(7)


# ---------------------------------------------------------------------------------------------
# operands (GP4 2.X.4.2) and destinations (GP4 2.X.4.3)
# ---------------------------------------------------------------------------------------------
def test_swizzles_masks_and_absolute_values():
    prog = load("TEMP a, b;\nMOV a.xz, -|b.wzyx|;\nMOV a.rgb, |-b.a|;\nMOV a.w, +b.g;\n"
                "SWZ a, b, -x, 0, 1, a;")
    i0, i1, i2, i3 = prog.instructions
    assert i0.dst.mask == (True, False, True, False)
    assert (i0.srcs[0].swizzle, i0.srcs[0].neg, i0.srcs[0].abs) == ((3, 2, 1, 0), True, True)
    # GP4 2.X.4.2: a negate inside |...| has no effect once the absolute value is taken
    assert i1.dst.mask == (True, True, True, False)
    assert (i1.srcs[0].swizzle, i1.srcs[0].neg, i1.srcs[0].abs) == ((3, 3, 3, 3), False, True)
    assert (i2.srcs[0].swizzle, i2.srcs[0].neg) == ((1, 1, 1, 1), False)
    # GP4 2.X.8.Z SWZ: selectors 0/1 are the constants (encoded 4/5), signs per component
    assert i3.srcs[0].swizzle == (0, 4, 5, 3)
    assert i3.srcs[0].comp_neg == (True, False, False, False)


def test_relative_addressing():
    # GP4 2.X.4.2: integer scalar plus a constant offset in [0, n-1]; nv_dialects.md 12 item 3:
    # any integer or typeless variable component, a missing component reads .x (warning)
    prog = load("PARAM p[4] = { program.local[0..3] };\nINT TEMP i;\nTEMP t, stack[8];\n"
                "ALIAS j = i;\n"
                "MOV t, p[i.x + 3];\nMOV t, p[i.w];\nMOV stack[j.y + 7], t;\nMOV t, p[i];\n"
                "MOV t, stack[2];", "!!NVvp4.0")
    i0, i1, i2, i3, i4 = prog.instructions
    assert i0.srcs[0].index == Index(3, "i", 0)
    assert i1.srcs[0].index == Index(0, "i", 3)
    assert i2.dst.index == Index(7, "i", 1)            # through the ALIAS
    assert i3.srcs[0].index == Index(0, "i", 0)
    assert i4.srcs[0].index == Index(2)
    assert [d.header() for d in prog.diagnostics] == [
        "t.vp:9:10: warning[E2010]: index 'i' has no component selector; using 'i.x'"]


def test_cc_dummy_destinations():
    # nv_dialects.md 12 item 4: "CC" is a write-only dummy unless a variable of that name exists
    prog = load("TEMP a;\nMOVC CC, a;\nMOV.CC CC.x, a;")
    assert [i.dst.reg for i in prog.instructions] == ["CC", "CC"]
    assert prog.instructions[1].dst.mask == (True, False, False, False)
    assert all(i.cc_update == 0 for i in prog.instructions)


# ---------------------------------------------------------------------------------------------
# condition-code tests in both syntaxes (GP4 2.X.2 <ccTest>/<ccMask>; nv_dialects.md 12 items 1, 5)
# ---------------------------------------------------------------------------------------------
def test_condition_tests_bare_and_parenthesized():
    prog = load("TEMP a;\n"
                "REP;\nBRK NE.x;\nBRK (NE.x);\nCONT GT1.y;\nCONT (GT1.y);\nENDREP;\n"
                "IF EQ1.xyzx;\nENDIF;\nIF (EQ1.xyzx);\nENDIF;\n"
                "KIL LT.w;\nKIL (LT.w);\n"
                "CAL sub NAN;\nCAL sub (NAN);\nCAL sub;\n"
                "RET LE.z;\nRET (LE.z);\nsub:\nRET;")
    conds = [(i.op, i.cond) for i in prog.instructions]
    ne_x, gt1_y = CondTest("NE", 0, (0, 0, 0, 0)), CondTest("GT", 1, (1, 1, 1, 1))
    eq1 = CondTest("EQ", 1, (0, 1, 2, 0))
    lt_w, nan, le_z = CondTest("LT", 0, (3, 3, 3, 3)), CondTest("NAN", 0), CondTest("LE", 0, (2, 2, 2, 2))
    assert conds == [("REP", None), ("BRK", ne_x), ("BRK", ne_x), ("CONT", gt1_y), ("CONT", gt1_y),
                     ("ENDREP", None), ("IF", eq1), ("ENDIF", None), ("IF", eq1), ("ENDIF", None),
                     ("KIL", lt_w), ("KIL", lt_w), ("CAL", nan), ("CAL", nan), ("CAL", None),
                     ("RET", le_z), ("RET", le_z),
                     ("RET", None),   # implicit: a conditional RET does not end the subroutine
                     ("RET", None)]
    assert [i.label for i in prog.instructions if i.op == "CAL"] == ["sub"] * 3


def test_condition_mask_on_destination():
    # GP4 2.X.4.3: the CC mask; cgc glues it to the write mask ("R0.y(NE.x)")
    prog = load("TEMP a, b;\nMOV a (GT.x), b;\nMOVR a.y(NE.x), b;\nMOV a.xw (TR1), b;")
    assert [i.dst.cond for i in prog.instructions] == [
        CondTest("GT", 0, (0, 0, 0, 0)), CondTest("NE", 0, (0, 0, 0, 0)), CondTest("TR", 1)]
    assert prog.instructions[1].dst.mask == (False, True, False, False)


@pytest.mark.parametrize("rule", ["EQ", "NE", "LT", "LE", "GT", "GE", "TR", "FL", "NAN", "LEG",
                                  "CF", "NCF", "OF", "NOF", "AB", "BLE", "SF", "NSF"])
def test_every_condition_rule(rule):
    # GP4 Table X.16, with and without the CC register number
    prog = load(f"IF {rule};\nENDIF;\nIF {rule}1.x;\nENDIF;\nIF {rule}0;\nENDIF;")
    assert [i.cond for i in prog.instructions if i.op == "IF"] == [
        CondTest(rule, 0), CondTest(rule, 1, (0, 0, 0, 0)), CondTest(rule, 0)]


def test_a_variable_named_like_a_condition_rule():
    # nv_dialects.md 2.2: rule names are not reserved.  Where only a test is legal (IF, BRK,
    # CONT, CAL, RET) the variable is irrelevant; for KIL, where a vector operand is legal too,
    # the digest's reading is taken: "prefer the ccTest reading and warn".  A negated operand
    # or a variable used anywhere else is the variable.
    prog = load("TEMP LT, NE;\nKIL LT.x;\nKIL (LT.x);\nKIL -LT.x;\nIF LT.x;\nENDIF;\n"
                "REP 2;\nBRK NE;\nENDREP;\nMOV LT, NE;")
    kil, kil2, kil3, if_, _, _, brk, _, mov = prog.instructions
    assert kil.cond == kil2.cond == if_.cond == CondTest("LT", 0, (0, 0, 0, 0))
    assert kil3.srcs[0].reg == "LT" and kil3.srcs[0].neg and kil3.cond is None
    assert brk.cond == CondTest("NE")
    assert (mov.dst.reg, mov.srcs[0].reg) == ("LT", "NE")
    assert [d.header() for d in prog.diagnostics] == [
        "t.fp:3:5: warning[E3007]: 'LT' is both a variable and a condition-code rule; it is read "
        "as a condition-code test here"]


# ---------------------------------------------------------------------------------------------
# labels, subroutines and main (GP4 2.X.5; nv_dialects.md 12 item 29)
# ---------------------------------------------------------------------------------------------
def test_labels_end_subroutines_with_an_implicit_ret():
    prog = load("TEMP a;\n"
                "MOV a, 1;\n"          # 0
                "CAL s1;\n"            # 1
                "RET;\n"               # 2   unconditional: no RET added before s1
                "s1:\n"
                "MOV a, 2;\n"          # 3
                "s2:\n"                # 4   implicit RET, s2 -> 5
                "MOV a, 3;\n"          # 5
                "RET (TR);\n"          # 6   conditional: an implicit RET follows
                "s3:\n"                # 7   implicit RET
                "main:\n"              # a run of labels marks one position
                "MOV a, 4;")           # 8
    ops = [i.op for i in prog.instructions]
    assert ops == ["MOV", "CAL", "RET", "MOV", "RET", "MOV", "RET", "RET", "MOV"]
    assert prog.labels == {"s1": 3, "s2": 5, "s3": 8, "main": 8}
    assert prog.entry == 8
    implicit = [prog.instructions[4], prog.instructions[7]]
    assert all(i.cond is None and i.text == "(implicit RET before label)" for i in implicit)
    assert prog.instructions[6].cond == CondTest("TR")


def test_entry_is_the_first_instruction_without_main():
    # GP4 2.X.5: "Otherwise, it begins with the first instruction of the program"; a label at
    # the very beginning needs no RET before it
    prog = load("sub:\nMOV result.color, fragment.color;")
    assert prog.entry == 0 and prog.labels == {"sub": 0}
    assert [i.op for i in prog.instructions] == ["MOV"]


def test_labels_may_be_used_before_their_definition():
    # GP4 2.X.5: "labels used in CAL instructions do not need to be defined in the program text
    # that precedes the instruction"
    prog = load("CAL later;\nRET;\nlater:\nRET;")
    assert prog.instructions[0].label == "later" and prog.labels["later"] == 2


# ---------------------------------------------------------------------------------------------
# geometry programs (GEO4 2.X.3.2, 2.14.6)
# ---------------------------------------------------------------------------------------------
def test_geometry_inputs():
    prog = load("PRIMITIVE_IN TRIANGLES;\nPRIMITIVE_OUT TRIANGLE_STRIP;\nVERTICES_OUT 6;\n"
                "ATTRIB pos = vertex.position;\n"                       # per-vertex: pos[m]
                "ATTRIB pos2 = vertex[2].position;\n"                   # one vertex
                "ATTRIB texcoords[] = { vertex.texcoord[0..3] };\n"     # texcoords[m][k]
                "ATTRIB tcoords1[4] = { vertex[1].texcoord[1..4] };\n"  # of vertex 1
                "INT TEMP A0;\nTEMP R0;\n"
                "MOV R0, pos[1];\nMOV R0, vertex[1].position;\nMOV R0, pos2;\n"
                "MOV R0, texcoords[A0.x][1];\nMOV R0, texcoords[A0.x][A0.y];\n"
                "MOV R0, tcoords1[2];\nMOV R0, vertex[0].color.front.primary;\n"
                "MOV R0, primitive.id;\nMOV result.color.back, R0;\nEMIT;\nENDPRIM;",
                "!!NVgp4.0")
    assert prog.stage == Stage.GEOMETRY
    assert prog.geometry == Geometry("TRIANGLES", "TRIANGLE_STRIP", 6)
    assert prog.geometry.input_vertices == 3
    r = prog.registers
    assert r["pos"].per_vertex and r["pos"].bindings == (Binding("vertex.position"),)
    assert not r["pos2"].per_vertex and r["pos2"].bindings == (Binding("vertex.position", vertex=2),)
    assert r["texcoords"].per_vertex and r["texcoords"].size == 4
    assert r["tcoords1"].bindings == tuple(Binding("vertex.texcoord", n, vertex=1) for n in range(1, 5))
    s = [i.srcs[0] for i in prog.instructions[:9]]
    assert (s[0].reg, s[0].vertex, s[0].index) == ("pos", Index(1), None)
    assert (s[1].reg, s[1].vertex) == ("vertex.position", Index(1))
    assert r["vertex.position"].per_vertex
    assert (s[2].reg, s[2].vertex) == ("pos2", None)
    assert (s[3].vertex, s[3].index) == (Index(0, "A0", 0), Index(1))
    assert (s[4].vertex, s[4].index) == (Index(0, "A0", 0), Index(0, "A0", 1))
    assert (s[5].vertex, s[5].index) == (None, Index(2))
    assert (s[6].reg, s[6].vertex) == ("vertex.color", Index(0))   # front.primary is the default
    assert s[7].reg == "primitive.id" and not r["primitive.id"].per_vertex
    assert prog.instructions[8].dst.reg == "result.color.back"
    assert [i.op for i in prog.instructions[-2:]] == ["EMIT", "ENDPRIM"]


@pytest.mark.parametrize("prim, count", [("POINTS", 1), ("LINES", 2), ("LINES_ADJACENCY", 4),
                                         ("TRIANGLES", 3), ("TRIANGLES_ADJACENCY", 6)])
def test_vertex_numbers_follow_the_input_primitive(prim, count):
    # GEO4 2.14.6.1: one to six vertices per input primitive
    body = f"PRIMITIVE_IN {prim};\nPRIMITIVE_OUT POINTS;\nVERTICES_OUT 1;\n"
    load(body + f"MOV result.position, vertex[{count - 1}].position;", "!!NVgp4.0")
    assert rejected(body + f"MOV result.position, vertex[{count}].position;", "!!NVgp4.0") == ["E6003"]


# ---------------------------------------------------------------------------------------------
# parameter buffers (PBO; GP4 2.X.3.6)
# ---------------------------------------------------------------------------------------------
def test_buffer_declarations():
    prog = load("BUFFER words[] = { program.buffer[0] };\n"
                "BUFFER4 rows[] = { program.buffer[1] };\n"
                "BUFFER4 some[8] = { program.buffer[2] };\n"
                "BUFFER range[] = { program.buffer[3][2..5] };\n"
                "BUFFER list[] = { program.buffer[4][2], program.buffer[4][3..4], program.buffer[4][5] };\n"
                "BUFFER one = program.buffer[5][7];\n"
                "INT TEMP b;\nTEMP p;\n"
                "MOV p, words[b.x];\nDP4 p.x, rows[b.x + 2], p;\nMOV p, one;\nMOV p, list[3];",
                "!!NVvp4.0")
    r = prog.registers
    assert all(r[n].kind == RegKind.BUFFER for n in ("words", "rows", "some", "range", "list", "one"))
    # whole buffers: 4096 words (PBO minimum) or 1024 vec4; a declared size wins
    assert (r["words"].size, r["words"].buffer_vec4) == (4096, False)
    assert (r["rows"].size, r["rows"].buffer_vec4) == (1024, True)
    assert r["some"].size == 8
    assert (r["range"].size, r["range"].bindings) == (4, (Binding("program.buffer", 3, 2),))
    assert (r["list"].size, r["list"].bindings) == (4, (Binding("program.buffer", 4, 2),))
    assert (r["one"].size, r["one"].bindings) == (None, (Binding("program.buffer", 5, 7),))
    assert prog.instructions[0].srcs[0].index == Index(0, "b", 0)
    assert prog.instructions[1].srcs[0].index == Index(2, "b", 0)


# ---------------------------------------------------------------------------------------------
# bindings: canonical spellings (GP4 2.X.3.3, VP4/FP4 attribute tables, GEO4 Table X.2)
# ---------------------------------------------------------------------------------------------
def test_matrix_bindings_in_param_arrays():
    prog = load("PARAM m[] = { state.matrix.mvp };\n"
                "PARAM rows[4] = { state.matrix.mvp.row[0..3] };\n"
                "PARAM mv = state.matrix.modelview.row[2];\n"
                "PARAM mv0 = state.matrix.modelview[0].row[2];\n"
                "PARAM t[] = { state.matrix.texture[1].inverse.row[0..1] };", "!!NVvp4.0")
    r = prog.registers
    # a whole matrix in a PARAM array is its four rows
    assert r["m"].size == 4
    assert r["m"].bindings == tuple(Binding("state.matrix.mvp.row", None, n) for n in range(4))
    assert r["rows"].bindings == r["m"].bindings
    assert r["mv"].bindings == r["mv0"].bindings == (Binding("state.matrix.modelview.row", 0, 2),)
    assert r["t"].bindings == (Binding("state.matrix.texture.inverse.row", 1, 0),
                               Binding("state.matrix.texture.inverse.row", 1, 1))


def test_optional_binding_words_are_dropped():
    # VP4 Table X.X: vertex.color == vertex.color.primary; vertex.texcoord == vertex.texcoord[0];
    # VP4 results: result.color == result.color.front.primary; GP4 2.X.3.3: "front" is the
    # default face of state.material and state.lightmodel
    prog = load("PARAM mat = state.material.front.ambient;\nPARAM mat2 = state.material.ambient;\n"
                "PARAM lm = state.lightmodel.front.scenecolor;\nPARAM lm2 = state.lightmodel.scenecolor;\n"
                "TEMP a;\n"
                "MOV a, vertex.color.primary;\nMOV a, vertex.color;\n"
                "MOV a, vertex.texcoord;\nMOV a, vertex.texcoord[0];\n"
                "MOV result.color.front.primary, a;\nMOV result.color, a;\n"
                "MOV result.color.front, a;\nMOV result.color.back.secondary, a;", "!!NVvp4.0")
    r = prog.registers
    assert r["mat"].bindings == r["mat2"].bindings == (Binding("state.material.ambient"),)
    assert r["lm"].bindings == r["lm2"].bindings
    srcs = [i.srcs[0].reg for i in prog.instructions[:4]]
    assert srcs == ["vertex.color", "vertex.color", "vertex.texcoord[0]", "vertex.texcoord[0]"]
    dsts = [i.dst.reg for i in prog.instructions[4:]]
    assert dsts[:3] == ["result.color"] * 3
    assert r[dsts[3]].bindings == (Binding("result.color.back.secondary"),)


def test_fragment_bindings():
    prog = load("OPTION ARB_draw_buffers;\n"
                "ATTRIB c = fragment.color.primary;\nATTRIB tc[] = { fragment.texcoord[1..3] };\n"
                "FLAT INT ATTRIB id = fragment.attrib[2];\nTEMP a;\n"
                "MOV a, fragment.color;\nMOV a, fragment.facing;\nMOV a, primitive.id;\n"
                "MOV result.color[1], a;\nMOV result.depth.z, a;")
    r = prog.registers
    assert r["c"].bindings == (Binding("fragment.color"),)
    assert r["tc"].bindings == tuple(Binding("fragment.texcoord", n) for n in (1, 2, 3))
    assert (r["id"].interpolation, r["id"].dtype) == ("FLAT", DataType.INT)
    assert prog.options == ("ARB_draw_buffers",)
    assert prog.instructions[0].srcs[0].reg == "fragment.color"
    assert r[prog.instructions[3].dst.reg].bindings == (Binding("result.color", 1),)


# ---------------------------------------------------------------------------------------------
# cgc's output (../shared/corpus/cg/gp4*; corpus README "Syntax cgc emits")
# ---------------------------------------------------------------------------------------------
CGC = """!!NVfp4.0
# cgc version 3.1.0013, build date Apr 24 2012
# command line args: -quiet -profile gp4fp -DPARAMETER_UNIFORM
#vendor NVIDIA Corporation
#version 3.1.0.13
#profile gp4fp
#program main_fragment
#semantic decal : TEXUNIT0
#var float4 VOUT.Color : $vin.COLOR :  : 0 : 0
#var float2 VOUT.texCoord : $vin.TEXCOORD0 : TEX0 : 0 : 1
#var float2 IN.video_size :  : c[0] : 1 : 1
#var sampler2D decal : TEXUNIT0 : texunit 0 : -1 : 1
#var float4x4 modelViewProj :  : , 4 : -1 : 0
#var float4 main_fragment : $vout.COLOR : COL0[0] : -1 : 1
PARAM c[1] = { program.local[0] };
ATTRIB fragment_texcoord[] = { fragment.texcoord[0..0] };
TEMP R0, R1;
TEMP RC, HC;
TEMP lmem[8];
OUTPUT result_color0 = result.color;
SEQ.F R0.x, c[0], {1}.x;
TRUNC.U.CC HC.x, R0;
IF    NE.x;
TEX.F result_color0, fragment.texcoord[0], texture[0], 2D;
ELSE;
MOV.F result_color0, {0}.x;
ENDIF;
MOV.S R1.w, {1}.x;
REP.S ;
SLE.S R0.x, R1.w, {7};
SEQ.U R0.x, -R0, {0};
MOV.U.CC RC.x, -R0;
BRK   (GT.x);
MOV.F lmem[R1.w + 1].xyz, R0;
ENDREP;
REP.S {7};
ENDREP;
CAL BB1 (TR);
RET   (TR);
BB1:
BB2:
MOV.F R0, fragment_texcoord[0];
RET   (TR);
END
# 24 instructions, 4 R-regs
"""


def test_cgc_output():
    prog = parse_program(CGC, "cgc.fp")
    validate(prog)
    ops = [i.op for i in prog.instructions]
    # "TEMP RC, HC;" declares ordinary temps that cgc uses as dummy CC destinations
    assert prog.registers["RC"].kind == prog.registers["HC"].kind == RegKind.TEMP
    trunc = prog.instructions[ops.index("TRUNC")]
    assert (trunc.dst.reg, trunc.dtype, trunc.cc_update) == ("HC", DataType.UINT, 0)
    # "REP.S ;" is a REP without a count (its BRK is at its level); "REP.S {7};" an integer count
    reps = [i for i in prog.instructions if i.op == "REP"]
    assert [(r.dtype, len(r.srcs)) for r in reps] == [(DataType.INT, 0), (DataType.INT, 1)]
    assert const(prog, reps[1].srcs[0]) == ((7, 0, 0, 1), DataType.INT)
    # "CAL BB1 (TR);" and "RET (TR);" closing main, then a run of labels
    cal = prog.instructions[ops.index("CAL")]
    assert (cal.label, cal.cond) == ("BB1", CondTest("TR"))
    assert prog.labels["BB1"] == prog.labels["BB2"]
    lmem = next(i for i in prog.instructions if i.dst is not None and i.dst.reg == "lmem")
    assert lmem.dst.index == Index(1, "R1", 3)
    # "#var type name : semantic : resource : param# : referenced"
    assert prog.vars[:2] == [VarInfo("float4", "VOUT.Color", "$vin.COLOR", "", "0", False),
                             VarInfo("float2", "VOUT.texCoord", "$vin.TEXCOORD0", "TEX0", "0", True)]
    assert [v.resource for v in prog.vars] == ["", "TEX0", "c[0]", "texunit 0", ", 4", "COL0[0]"]
    assert prog.diagnostics == []


# ---------------------------------------------------------------------------------------------
# nv_dialects.md 11.6-11.9: the worked examples parse, validate, and carry the expected fields
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("src", [VP4_A, VP4_B, FP4_A, FP4_B, GP4_A, GP4_B, PBO],
                         ids=["VP4-A", "VP4-B", "FP4-A", "FP4-B", "GP4-A", "GP4-B", "PBO"])
def test_worked_examples_validate(src):
    prog = parse_program(src, "example")
    validate(prog)
    assert prog.diagnostics == []


def test_vp4_a_fields():
    prog = parse_program(VP4_A, "vp4a.vp")
    ops = [i.op for i in prog.instructions]
    assert prog.stage == Stage.VERTEX and prog.dialect == "NVvp4.0"
    assert prog.entry == prog.labels["main"] == 0
    assert prog.labels["finish"] == ops.index("RET") + 1       # "RET;" ends main explicitly
    assert prog.registers["mvp"].size == 4 and prog.registers["table"].size == 8
    rep = prog.instructions[ops.index("REP")]
    assert (rep.srcs[0].reg, rep.srcs[0].swizzle) == ("ctl", (1, 1, 1, 1))
    add = [i for i in prog.instructions if i.op == "ADD"][0]
    assert add.srcs[1].index == Index(0, "i", 0)
    sgt = prog.instructions[ops.index("SGT")]
    assert (sgt.cc_update, sgt.cc_kind, sgt.dst.mask) == (0, CCKind.FLOAT, (True, False, False, False))
    assert prog.instructions[ops.index("BRK")].cond == CondTest("GT", 0, (0, 0, 0, 0))
    mov_sat = [i for i in prog.instructions if i.sat == Sat.SAT]
    assert [i.dst.reg for i in mov_sat] == ["result.color"]
    i2f = prog.instructions[ops.index("I2F")]
    assert (i2f.dtype, i2f.dst.reg) == (DataType.INT, "result.texcoord[0]")


def test_vp4_b_fields():
    prog = parse_program(VP4_B, "vp4b.vp")
    ins = prog.instructions
    add = next(i for i in ins if i.op == "ADD")
    assert (add.dtype, add.cc_kind, add.srcs[0].swizzle) == (DataType.UINT, CCKind.ADD, (0, 2, 2, 3))
    masked = [i.dst.cond for i in ins if i.dst is not None and i.dst.cond is not None]
    assert masked == [CondTest("CF"), CondTest("SF", 0, (2, 2, 2, 2))]
    assert next(i for i in ins if i.op == "IF").cond == CondTest("OF", 0, (1, 1, 1, 1))
    mul = next(i for i in ins if i.op == "MUL")
    assert (mul.dtype, mul.mul_mode) == (DataType.UINT, "HI")
    neg_one = next(i for i in ins if i.op == "MOV" and i.dtype == DataType.INT)
    assert const(prog, neg_one.srcs[0]) == ((1, 1, 1, 1), DataType.INT) and neg_one.srcs[0].neg
    trunc = next(i for i in ins if i.op == "TRUNC")
    assert const(prog, trunc.srcs[0]) == ((f32(1.5),) * 4, DataType.FLOAT)   # TRUNC reads "vf"
    assert trunc.srcs[0].neg and trunc.dtype == DataType.INT


def test_fp4_a_fields():
    prog = parse_program(FP4_A, "fp4a.fp")
    ins = prog.instructions
    assert (prog.registers["lod"].interpolation, prog.registers["lod"].dtype) == ("FLAT", DataType.INT)
    txq, txf = ins[0], next(i for i in ins if i.op == "TXF")
    assert (txq.op, txq.tex.unit, txq.tex.target, txq.srcs[0].swizzle) == ("TXQ", 0, "2D", (0, 0, 0, 0))
    assert (txf.tex.unit, txf.tex.target, txf.dtype) == (0, "2D", DataType.FLOAT)
    kil = next(i for i in ins if i.op == "KIL")
    assert (kil.cond, kil.srcs) == (CondTest("GT", 0, (0, 0, 0, 0)), ())


def test_fp4_b_fields():
    prog = parse_program(FP4_B, "fp4b.fp")
    ins = prog.instructions
    assert next(i for i in ins if i.op == "CONT").cond == CondTest("NE", 0, (0, 0, 0, 0))
    assert [i.cond.rule for i in ins if i.op == "IF"] == ["NAN", "LT"]
    depth = next(i for i in ins if i.dst is not None and i.dst.reg == "result.depth")
    assert depth.dst.mask == (False, False, True, False)
    assert prog.registers["face"].bindings == (Binding("fragment.facing"),)


def test_gp4_a_fields():
    prog = parse_program(GP4_A, "gp4a.gp")
    assert prog.geometry == Geometry("TRIANGLES", "TRIANGLE_STRIP", 6)
    assert prog.registers["vpos"].per_vertex and prog.registers["vcol"].per_vertex
    mov = next(i for i in prog.instructions if i.srcs and i.srcs[0].reg == "vpos")
    assert mov.srcs[0].vertex == Index(0, "i", 0) and mov.srcs[0].index is None
    assert [i.op for i in prog.instructions].count("EMIT") == 2
    sub = next(i for i in prog.instructions if i.op == "SUB")
    assert sub.dtype == DataType.INT


def test_gp4_b_fields():
    prog = parse_program(GP4_B, "gp4b.gp")
    ops = [i.op for i in prog.instructions]
    assert prog.entry == prog.labels["main"] == 0
    # "RET;" ends main explicitly: no implicit RET before "corner:"
    assert ops[prog.labels["corner"] - 1] == "RET" and ops.count("RET") == 4
    assert prog.registers["corners"].value[0] == (f32(-1.0), f32(-1.0), 0, 0)
    mad = prog.instructions[prog.labels["corner"]]
    assert (mad.op, mad.srcs[0].index, mad.srcs[1].swizzle) == ("MAD", Index(0, "i", 0), (0, 0, 0, 0))
    assert not prog.registers["p"].per_vertex
    assert prog.registers["p"].bindings == (Binding("vertex.position", vertex=0),)


def test_gp4_b_without_the_final_ret_still_ends_main():
    # nv_dialects.md 11.8: deleting "RET;" at the end of main must not fall into "corner" -
    # the label ends the main subroutine (GP4 2.X.5; nv_dialects.md 12 item 29)
    prog = parse_program(GP4_B.replace("  ENDREP;\n  RET;\n", "  ENDREP;\n"), "gp4b.gp")
    validate(prog)
    before = prog.instructions[prog.labels["corner"] - 1]
    assert (before.op, before.cond, before.text) == ("RET", None, "(implicit RET before label)")


def test_pbo_fields():
    prog = parse_program(PBO, "pbo.vp")
    bones = prog.registers["bones"]
    assert (bones.kind, bones.buffer_vec4, bones.size) == (RegKind.BUFFER, True, 1024)
    dp4 = [i for i in prog.instructions if i.op == "DP4"][:3]
    assert [i.srcs[0].index for i in dp4] == [Index(0, "b", 0), Index(1, "b", 0), Index(2, "b", 0)]
    rnd = prog.instructions[0]
    assert (rnd.op, rnd.dtype, rnd.srcs[0].reg) == ("ROUND", DataType.INT, "vertex.attrib[6]")


@pytest.mark.parametrize("text", [
    # an OUTPUT variable and a direct write of its binding
    "!!NVvp4.0\nOUTPUT o = result.color;\nMOV o, vertex.attrib[0];\n"
    "MOV result.color.y, {5}.x;\nMOV result.position, vertex.attrib[0];\nEND\n",
    # the direct write first, then the declaration
    "!!NVvp4.0\nMOV result.color, vertex.attrib[0];\nOUTPUT o = result.color;\n"
    "MOV o.y, {5}.x;\nMOV result.position, vertex.attrib[0];\nEND\n",
    # two names for one result
    "!!NVvp4.0\nOUTPUT a = result.color;\nOUTPUT b = result.color;\nMOV a, vertex.attrib[0];\n"
    "MOV b.y, {5}.x;\nMOV result.position, vertex.attrib[0];\nEND\n",
    # an element of an OUTPUT array and a direct write of its binding
    "!!NVvp4.0\nOUTPUT c[] = { result.texcoord[0..3] };\n"
    "MOV c[1], vertex.attrib[0];\nMOV result.texcoord[1].y, {5}.x;\n"
    "MOV result.position, vertex.attrib[0];\nEND\n",
])
def test_one_storage_per_result_binding(text):
    """NV_gpu_program4 2.X.3.5: result variables are names for the result bindings; every
    name of a binding and its direct writes are one storage (the executor kept two copies and
    reported the last register's, [0, 5, 0, 0])."""
    import numpy as np
    import xlate
    prog = xlate.parse(text)
    v = np.tile(np.array([1, 2, 3, 4], np.float32), (2, 1))
    res = xlate.execute(prog, {"vertex.attrib[0]": v}, lanes=2)
    binding = "result.texcoord[1]" if "texcoord" in text else "result.color"
    value = res.float("c")[:, 1] if "texcoord" in text else res.float("result.color")
    assert value.tolist() == [[1, 5, 3, 4]] * 2
    holders = [r for r in prog.registers.values() if any(
        b is not None and b.text() == binding for b in r.bindings)]
    assert len(holders) == 1
