"""!!FP1.0 load-time errors (FP1 3.11.2, 3.11.3, 3.11.5; nv_dialects.md 3.7, 13): codes, lines,
columns; every error of a file; never a traceback."""
from __future__ import annotations

import pytest

import xlate
from xlate.diagnostics import XlateError


def headers(text: str) -> list[str]:
    try:
        prog = xlate.parse(text, filename="t.fp")
    except XlateError as e:
        return [d.header() for d in e.diagnostics]
    return [d.header() for d in prog.diagnostics]


CASES = [
    pytest.param('!!FP1.0\nMOV o[COLR], f[TEX0];\nMOV o[COLH], f[TEX0];\nEND\n',
                 ['t.fp:3:5: error[E3005]: the program writes both o[COLR] and o[COLH] (FP1 3.11.1.3)'],
                 id='both_color_outputs'),
    pytest.param('!!FP1.0\nMOV R0, f[TEX0];\nEND\n',
                 ['t.fp:1:1: error[E2015]: the program writes no output register; an FP1.0 program must write o[COLR], o[COLH] or o[DEPR] (FP1 3.11.1.3)'],
                 id='no_output'),
    pytest.param('!!FP1.0\nDECLARE test = {0,0,0,0};\nEND\n',
                 ['t.fp:1:1: error[E2015]: the program writes no output register; an FP1.0 program must write o[COLR], o[COLH] or o[DEPR] (FP1 3.11.1.3)'],
                 id='no_instructions'),
    pytest.param('!!FP1.0\nDEFINE R3 = 1;\nDEFINE MOVR_SAT = 1;\nDECLARE TEX2;\nDEFINE x = {1};\nDEFINE EQ = 2;\nDECLARE f;\nMOV o[COLR], f[COL0];\nEND\n',
                 ["t.fp:2:8: error[E2002]: 'R3' is a reserved word or register name and cannot be DEFINEd or DECLAREd (FP1 3.11.2)",
                  "t.fp:3:8: error[E2002]: 'MOVR_SAT' is a reserved word or register name and cannot be DEFINEd or DECLAREd (FP1 3.11.2)",
                  "t.fp:4:9: error[E2002]: 'TEX2' is a reserved word or register name and cannot be DEFINEd or DECLAREd (FP1 3.11.2)",
                  "t.fp:5:8: error[E2002]: 'x' is a reserved word or register name and cannot be DEFINEd or DECLAREd (FP1 3.11.2)",
                  "t.fp:6:8: error[E2002]: 'EQ' is a reserved word or register name and cannot be DEFINEd or DECLAREd (FP1 3.11.2)",
                  "t.fp:7:9: error[E2002]: 'f' is a reserved word or register name and cannot be DEFINEd or DECLAREd (FP1 3.11.2)"],
                 id='reserved_names'),
    pytest.param('!!FP1.0\nDEFINE ok = {1, 2};\nDEFINE ok = 2;\nDECLARE ok;\nMOV o[COLR], ok;\nEND\n',
                 ["t.fp:3:8: error[E2001]: 'ok' is already defined (FP1 3.11.2)",
                  "t.fp:4:9: error[E2001]: 'ok' is already defined (FP1 3.11.2)"],
                 id='redefinition'),
    pytest.param('!!FP1.0\nDECLARE a = 1;\nDECLARE b = a;\nDEFINE c = b;\nDEFINE d = {1, 2, 3, 4, 5};\nDEFINE e = {a, 1};\nMOV o[COLR], a;\nEND\n',
                 ["t.fp:3:13: error[E2003]: 'a' is a DECLAREd local parameter, not a constant (FP1 3.11.3 <scalarConstant>, <namedVectorConstant>)",
                  "t.fp:4:12: error[E2003]: 'b' is not a DEFINEd constant (FP1 3.11.3 <scalarConstant>, <namedVectorConstant>)",
                  't.fp:5:25: error[E1007]: a constant vector has at most 4 components',
                  "t.fp:6:13: error[E2003]: 'a' is not a DEFINEd scalar constant"],
                 id='constant_values'),
    pytest.param('!!FP1.0\nDECLARE tint = {1.0, 0.5, 0.25, 1.0};\nMULR R0, tint, {2,3,4,5};\nMAD R1, p[0], p[1], f[TEX0];\nMAD R1, p[0], tint, f[TEX0];\nMAD R1, p[0], p[0], f[TEX0];\nMOV o[COLR], R0;\nEND\n',
                 ['t.fp:3:16: error[E2014]: the instruction reads more than one program parameter (tint, constant); FP1 allows one, or only constants with at most four distinct values (FP1 3.11.2)',
                  't.fp:4:15: error[E2014]: the instruction reads more than one program parameter (p[0], p[1]); FP1 allows one, or only constants with at most four distinct values (FP1 3.11.2)',
                  't.fp:5:15: error[E2014]: the instruction reads more than one program parameter (p[0], tint); FP1 allows one, or only constants with at most four distinct values (FP1 3.11.2)'],
                 id='one_parameter_per_instruction'),
    pytest.param('!!FP1.0\nDEFINE four = {1, 2, 3, 4};\nADD R0, {1,2,3,4}, -4;\nADD R0, {1,2,3,4}, |-4|;\nADD R0, {1,2,3,4}, -{-1,-2,-3,-4};\nADD R0, {1,2,3,4}, {4,5,6,7}.x;\nADD R0, four, 5;\nMAD R0, R1, 2, -1;\nADD R0, {1,2,3,4}, 4;\nADD R0, {2}, {3};\nMOV o[COLR], R0;\nEND\n',
                 ['t.fp:3:20: error[E2014]: the constants of this instruction hold 5 distinct values; at most 4 can be merged into one parameter (FP1 3.11.2; swizzles, negation and |abs| are not applied first)',
                  't.fp:4:22: error[E2014]: the constants of this instruction hold 5 distinct values; at most 4 can be merged into one parameter (FP1 3.11.2; swizzles, negation and |abs| are not applied first)',
                  't.fp:5:20: error[E2014]: the constants of this instruction hold 8 distinct values; at most 4 can be merged into one parameter (FP1 3.11.2; swizzles, negation and |abs| are not applied first)',
                  't.fp:6:20: error[E2014]: the constants of this instruction hold 7 distinct values; at most 4 can be merged into one parameter (FP1 3.11.2; swizzles, negation and |abs| are not applied first)',
                  't.fp:7:15: error[E2014]: the constants of this instruction hold 5 distinct values; at most 4 can be merged into one parameter (FP1 3.11.2; swizzles, negation and |abs| are not applied first)'],
                 id='constant_merging'),
    pytest.param('!!FP1.0\nADD R1, f[TEX0], f[TEX1];\nADD R1, f[TEX0], f[TEX0].x;\nTXD R1, f[TEX0], f[TEX1], R2, TEX0, 2D;\nMOV o[COLR], R1;\nEND\n',
                 ['t.fp:2:18: error[E2014]: the instruction reads 2 different attribute registers (f[TEX0], f[TEX1]); FP1 allows one (FP1 3.11.3)',
                  't.fp:4:18: error[E2014]: the instruction reads 2 different attribute registers (f[TEX0], f[TEX1]); FP1 allows one (FP1 3.11.3)'],
                 id='one_attribute_per_instruction'),
    pytest.param('!!FP1.0\nABS R0, R1;\nCMP R0, R1, R2, R3;\nTXB R0, f[TEX0], TEX0, 2D;\nDPH R0, R1, R2;\nFOO R0, R1;\nMOV o[COLR], R0;\nEND\n',
                 ["t.fp:2:1: error[E3001]: 'ABS' is not an FP1.0 opcode (FP1 Table X.4 has 45: no ABS, CMP, DPH, SWZ, XPD, SCS, TXB ...; use |x| operands instead of ABS)",
                  "t.fp:3:1: error[E3001]: 'CMP' is not an FP1.0 opcode (FP1 Table X.4 has 45: no ABS, CMP, DPH, SWZ, XPD, SCS, TXB ...; use |x| operands instead of ABS)",
                  "t.fp:4:1: error[E3001]: 'TXB' is not an FP1.0 opcode (FP1 Table X.4 has 45: no ABS, CMP, DPH, SWZ, XPD, SCS, TXB ...; use |x| operands instead of ABS)",
                  "t.fp:5:1: error[E3001]: 'DPH' is not an FP1.0 opcode (FP1 Table X.4 has 45: no ABS, CMP, DPH, SWZ, XPD, SCS, TXB ...; use |x| operands instead of ABS)",
                  "t.fp:6:1: error[E3001]: unknown opcode 'FOO'"],
                 id='not_fp1_opcodes'),
    pytest.param('!!FP1.0\nMOV R32, R0;\nMOV H64, R0;\nMOV R0, RC;\nMOV R0, o[COLR];\nMOV f[TEX0], R0;\nMOV p[0], R0;\nMOV R0, p[64];\nMOV R0, f[TEX8];\nMOV o[COLQ], R0;\nMOV R0, undefined;\nMOV R0, p[R1.x];\nMOV R0, CC;\nMOV o[COLR], R0;\nEND\n',
                 ["t.fp:2:5: error[E2003]: 'R32' is not a register (R0-R31, H0-H63)",
                  "t.fp:3:5: error[E2003]: 'H64' is not a register (R0-R31, H0-H63)",
                  't.fp:4:9: error[E3004]: RC is write-only: it only updates the condition code (FP1 3.11.1.2)',
                  't.fp:5:9: error[E3004]: output registers are write-only (FP1 3.11.1.3)',
                  't.fp:6:5: error[E3005]: attribute registers are read-only',
                  't.fp:7:5: error[E3005]: program parameters are read-only',
                  't.fp:8:11: error[E2006]: p[64] out of range [0, 63]',
                  't.fp:9:11: error[E2004]: expected an attribute register f[WPOS], f[COL0], f[COL1], f[FOGC] or f[TEX0] ... f[TEX7]',
                  't.fp:10:7: error[E2004]: expected an output register o[COLR], o[COLH] or o[DEPR]',
                  "t.fp:11:9: error[E2003]: 'undefined' is not a register and was not DEFINEd or DECLAREd",
                  't.fp:12:11: error[E2010]: p[] takes a constant index (no relative addressing in FP1)',
                  "t.fp:13:9: error[E2003]: 'CC' is not a register and was not DEFINEd or DECLAREd"],
                 id='registers'),
    pytest.param('!!FP1.0\nCOSX R0, R1.x;\nTEXX R0, f[TEX0], TEX0, 2D;\nMOV_SSAT R0, R1;\nPK2HC R0, R1;\nUP2H_SAT R0, R1.x;\nMOVXCR R0, R1;\nMOV o[COLR], R0;\nEND\n',
                 ["t.fp:2:1: error[E3002]: COS does not take the precision suffix 'X' (FP1 Table X.4)",
                  "t.fp:3:1: error[E3002]: TEX does not take the precision suffix 'X' (FP1 Table X.4)",
                  "t.fp:4:1: error[E3002]: '_SSAT' does not exist in FP1.0 (only _SAT)",
                  "t.fp:5:1: error[E3002]: PK2H does not take the condition-code update suffix 'C' (FP1 Table X.4)",
                  "t.fp:7:1: error[E3001]: 'MOVXCR': the suffixes of MOV must appear in the order R/H/X, then C, then _SAT, each at most once"],
                 id='suffixes'),
    pytest.param('!!FP1.0\nKIL R0;\nKIL f[TEX0].x;\nKIL (GT.x);\nKIL NAN;\nMOV o[COLR], R0;\nEND\n',
                 ["t.fp:2:5: error[E3004]: FP1 KIL takes a condition-code test such as 'KIL LT.x;' (FP1 3.11.5.11)",
                  "t.fp:3:5: error[E3004]: FP1 KIL takes a condition-code test such as 'KIL LT.x;' (FP1 3.11.5.11)",
                  "t.fp:5:5: error[E3004]: FP1 KIL takes a condition-code test such as 'KIL LT.x;' (FP1 3.11.5.11)"],
                 id='kil'),
    pytest.param('!!FP1.0\nPK2H H0, R1;\nPK4B o[COLH], R1;\nPK4UB HC, R1;\nUP2H R0, H0.x;\nRFL R0, R1, R2;\nMOV o[COLR], R0;\nEND\n',
                 ['t.fp:2:6: error[E3005]: PK2H cannot write a 16-bit register (H0-H63, HC, o[COLH]): the packed 32-bit word does not fit (FP1 3.11.5.20-23)',
                  't.fp:3:6: error[E3005]: PK4B cannot write a 16-bit register (H0-H63, HC, o[COLH]): the packed 32-bit word does not fit (FP1 3.11.5.20-23)',
                  't.fp:4:7: error[E3005]: PK4UB cannot write a 16-bit register (H0-H63, HC, o[COLH]): the packed 32-bit word does not fit (FP1 3.11.5.20-23)',
                  't.fp:5:10: error[E3004]: UP2H cannot read a 16-bit register (H0-H63, HC, o[COLH]): it unpacks a 32-bit word (FP1 3.11.5.41-44)',
                  "t.fp:6:5: warning[E3010]: RFL writes the w component, which its result does not define (FPO 3.11.5.36 / FP1 3.11.5.26: fails to load); accepted as NVIDIA's drivers did, w = 0.0",
                  't.fp:7:5: error[E3005]: the program writes both o[COLR] and o[COLH] (FP1 3.11.1.3)'],
                 id='pack_unpack_rfl'),
    pytest.param('!!FP1.0\nMOV R0.xg, R1;\nMOV R0, R1.xyzr;\nMOV R0, R1.xy;\nMOV R0 (NAN), R1;\nMOV o[COLR], R0;\nEND\n',
                 ["t.fp:2:8: error[E1006]: invalid write mask '.xg' (FP1 uses x, y, z, w)",
                  "t.fp:3:12: error[E1006]: invalid swizzle '.xyzr' (FP1 uses x, y, z, w)",
                  "t.fp:4:12: error[E1006]: swizzle '.xy' must have 1 or 4 components",
                  "t.fp:5:9: error[E3007]: unknown condition-code rule 'NAN' (expected one of EQ, GE, GT, LE, LT, NE, TR, FL)"],
                 id='swizzles_and_masks'),
    pytest.param('!!FP1.0\nTEX R0, f[TEX0], TEX16, 2D;\nTEX R0, f[TEX0], texture[0], 2D;\nTEX R0, f[TEX0], TEX0, SHADOW2D;\nTEX R1, f[TEX0], TEX1, 2D;\nTEX R1, f[TEX0], TEX1, 3D;\nTEX R1, f[TEX0], TEX2;\nMOV o[COLR], R0;\nEND\n',
                 ['t.fp:2:18: error[E3004]: expected a texture unit TEX0 ... TEX15',
                  't.fp:3:18: error[E3004]: expected a texture unit TEX0 ... TEX15',
                  't.fp:4:24: error[E5001]: expected a texture target (1D, 2D, 3D, CUBE, RECT)',
                  't.fp:6:24: error[E5002]: texture unit 1 is used with target 3D and 2D; one target per unit',
                  't.fp:7:1: error[E3003]: TEX takes a destination, 1 coordinate operand, a texture unit and a target'],
                 id='textures'),
    pytest.param('!!FP1.0\nTEMP R0;\nOPTION NV_fragment_program;\nlab:\nPARAM p = {1};\nMOV o[COLR], R0;\nEND\n',
                 ['t.fp:2:1: error[E1002]: TEMP declarations do not exist in FP1.0 (use DEFINE or DECLARE; registers R0-R31, H0-H63 are predefined)',
                  't.fp:3:1: error[E2011]: FP1.0 programs have no options',
                  "t.fp:4:1: error[E1002]: labels ('lab:') do not exist in FP1.0 programs",
                  't.fp:5:1: error[E1002]: PARAM declarations do not exist in FP1.0 (use DEFINE or DECLARE; registers R0-R31, H0-H63 are predefined)'],
                 id='declarations_and_labels'),
    pytest.param('!!FP1.0\nDEFINE pi = 3.14;\nDEFINE v = {pi, 1};\nMOV R0, pi.x;\nRCP R0, v;\nRCP R0.x, pi;\nMUL R1, v.xyxy, pi;\nMOV o[COLR], R0;\nEND\n',
                 ["t.fp:4:12: error[E3004]: 'pi' is a scalar constant and takes no component selector (FP1 3.11.3 <namedScalarConstant>)",
                  "t.fp:5:9: error[E3004]: vector constant 'v' used as a scalar operand needs a component selector"],
                 id='named_constant_operands'),
    pytest.param('!!FP1.0\nMOV R0, f[COL0];\nMOV R1, f[COL0];\nMOV R2, f[COL0];\nMOV R3, f[COL0];\nMOV R4, f[COL0];\nMOV R5, f[COL0];\nMOV R6, f[COL0];\nMOV R7, f[COL0];\nMOV R8, f[COL0];\nMOV R9, f[COL0];\nMOV R10, f[COL0];\nMOV R11, f[COL0];\nMOV R12, f[COL0];\nMOV R13, f[COL0];\nMOV R14, f[COL0];\nMOV R15, f[COL0];\nMOV R16, f[COL0];\nMOV R17, f[COL0];\nMOV R18, f[COL0];\nMOV R19, f[COL0];\nMOV R20, f[COL0];\nMOV R21, f[COL0];\nMOV R22, f[COL0];\nMOV R23, f[COL0];\nMOV R24, f[COL0];\nMOV R25, f[COL0];\nMOV R26, f[COL0];\nMOV R27, f[COL0];\nMOV R28, f[COL0];\nMOV R29, f[COL0];\nMOV R30, f[COL0];\nMOV H0, f[COL0];\nMOV o[COLR], R0;\nMOV HC, R0;\nMOV RC, R0;\nEND\n',
                 ['t.fp:1:1: error[E1008]: the program uses 65 register units (fp32 registers and outputs count 2, fp16 ones 1); the limit is 64 (FP1 3.11.3)'],
                 id='register_budget'),
]


@pytest.mark.parametrize("text, expected", CASES)
def test_diagnostics(text, expected):
    assert headers(text) == expected


def test_valid_constant_merges():
    # FP1 3.11.2's own examples of merged constants, and one parameter used twice
    text = ("!!FP1.0\nDECLARE k;\nMAD R0, R1, 2, -1;\nADD R0, {1,2,3,4}, 4;\nMAD R0, k, k.x, R0;\n"
            "ADD R1, f[TEX0], f[TEX0].x;\nMOV o[COLR], R0;\nEND\n")
    assert headers(text) == []


def test_dollar_names_and_cgc_style():
    # cgc's fp30 output: DECLARE with '$' in names, X/H suffixes, conditions glued to the dest
    text = ("!!FP1.0\nDECLARE IN$texture_size;\nRCPR R0.x, IN$texture_size.x;\n"
            "MOVXC RC.xy, |R0|;\nMOVR R1.y(NE.x), R0;\nMULH H0, R1, f[TEX0];\nMOVH o[COLH], H0;\nEND\n")
    assert headers(text) == []


_PIECES = list(";:,.[]{}()|+-=#\n \tx019AZaz_$!@\x00") + [
    "f[TEX0]", "o[COLR]", "o[COLH]", "p[3]", "H3", "RC", "HC", "DEFINE", "DECLARE", "TEX1", "2D",
    "CUBE", "END", "{1,2}", "-|", "_SAT", "X", "H", "C", "KIL", "(GT.x)"]
_BASE = ("!!FP1.0\nDEFINE k = {1, 2};\nDECLARE d = 0.5;\nMULX H0, f[TEX0], k;\n"
         "ADDRC RC.x, H0.x, -d.x;\nKIL LT.x;\nTXP R0, f[TEX1], TEX1, CUBE;\nLITH H1, R0;\n"
         "MINR R1 (GT.x), R0, |H1|;\nMOVR o[COLR], R1;\nEND\n")


def test_no_traceback_on_mutated_programs():
    import random
    rng = random.Random(7)
    for _ in range(400):
        text = _BASE
        for _ in range(rng.randint(1, 3)):
            pos = rng.randrange(len(text))
            if rng.random() < 0.5:
                text = text[:pos] + rng.choice(_PIECES) + text[pos:]
            else:
                text = text[:pos] + text[pos + rng.randint(1, 6):]
        try:
            xlate.parse(text, filename="t.fp")
        except XlateError as e:
            assert all(d.span is not None for d in e.diagnostics if d.is_error), text
