"""!!FP1.0 frontend: the IR produced for each construct (xlate/frontends/nv/fp1.py; FP1 3.11;
nv_dialects.md 3.7, 5, 8.2, 9)."""
from __future__ import annotations

import struct

import pytest

import xlate
from xlate.ir.model import Binding, CCKind, CondTest, RegKind, Sat
from xlate.ir.printer import print_program
from xlate.ir.validate import validate


def parse(text: str):
    prog = xlate.parse(text, filename="t.fp")
    validate(prog)
    return prog


def f32(bits: int) -> float:
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def body(prog):
    return [line.split(None, 1)[1] for line in print_program(prog).splitlines()
            if line[:5].strip().isdigit()]


def test_registers_and_bindings():
    prog = parse("!!FP1.0\nADD R0, f[WPOS], p[3];\nADD H1, R0, f[COL1];\nMOV o[DEPR].z, H1;\n"
                 "MOV o[COLR], f[TEX7];\nEND\n")
    regs = prog.registers
    assert regs["f[WPOS]"].bindings == (Binding("fragment.position"),)
    assert regs["f[COL1]"].bindings == (Binding("fragment.color.secondary"),)
    assert regs["f[TEX7]"].bindings == (Binding("fragment.texcoord", 7),)
    assert regs["p[3]"].kind == RegKind.PARAM and regs["p[3]"].bindings == (Binding("program.local", 3),)
    assert regs["o[DEPR]"].bindings == (Binding("result.depth"),)
    assert regs["o[COLR]"].bindings == (Binding("result.color", 0),)
    assert regs["R0"].kind == RegKind.TEMP and regs["R0"].precision is None
    assert regs["H1"].precision == "SHORT"                        # fp16 register (FP1 3.11.1.2)
    assert prog.call_overflow == "ignore" and prog.max_exec_instructions is None


def test_define_and_declare():
    prog = parse("!!FP1.0\nDEFINE pi = 3.5;\nDEFINE v = {pi, 1};\nDEFINE ww = v;\n"
                 "DECLARE tint = {1, 0.5};\nDECLARE zz;\nDECLARE s = pi;\n"
                 "MAD R0, R1, ww.yxxy, pi;\nMUL R0, R0, tint;\nMUL R0, R0, zz;\n"
                 "ADD o[COLR], R0, s;\nEND\n")
    tint = prog.registers["tint"]
    assert tint.kind == RegKind.PARAM and tint.bindings == (Binding("program.named.tint"),)
    assert [f32(w) for w in tint.value[0]] == [1, 0.5, 0, 1]          # declared initial value
    assert [f32(w) for w in prog.registers["zz"].value[0]] == [0, 0, 0, 0]
    assert [f32(w) for w in prog.registers["s"].value[0]] == [3.5] * 4
    mad = prog.instructions[0]
    assert [f32(w) for w in prog.registers[mad.srcs[1].reg].value[0]] == [3.5, 1, 0, 1]
    assert mad.srcs[1].swizzle == (1, 0, 0, 1)
    assert [f32(w) for w in prog.registers[mad.srcs[2].reg].value[0]] == [3.5] * 4


@pytest.mark.parametrize("text, op, precision, cc, sat", [
    ("ADDR R0, f[COL0], R1;", "ADD", "R", None, Sat.NONE),
    ("ADDH R0, f[COL0], R1;", "ADD", "FP16", None, Sat.NONE),
    ("ADDX R0, f[COL0], R1;", "ADD", "X", None, Sat.NONE),
    ("ADD H0, f[COL0], R1;", "ADD", "FP16", None, Sat.NONE),        # destination precision
    ("ADDR H0, f[COL0], R1;", "ADD", "FP16", None, Sat.NONE),       # converted to the dest
    ("ADDX H0, f[COL0], R1;", "ADD", "X", None, Sat.NONE),          # fx12 fits in fp16
    ("ADDHC_SAT RC, f[COL0], R1;", "ADD", "FP16", 0, Sat.SAT),
    ("MOVXC HC, R1;", "MOV", "X", 0, Sat.NONE),
    ("MOVH o[COLR], R1;", "MOV", "FP16", None, Sat.NONE),
    ("MOVR o[COLH], R1;", "MOV", "FP16", None, Sat.NONE),
    # FP1 3.11.4.2: instructions reading f[FOGC] or f[TEXn] run at fp32 whatever the suffix
    ("MULX R0, f[TEX0], R1;", "MUL", None, None, Sat.NONE),
    ("MULH R0, f[FOGC], R1;", "MUL", None, None, Sat.NONE),
    ("MULX H0, f[TEX0], R1;", "MUL", "FP16", None, Sat.NONE),       # the destination still rounds
    ("TEXC R0, f[TEX0], TEX0, 2D;", "TEX", None, 0, Sat.NONE),
    ("TEX H0, f[TEX0], TEX0, 2D;", "TEX", "FP16", None, Sat.NONE),
])
def test_precision(text, op, precision, cc, sat):
    ins = parse("!!FP1.0\n" + text + "\nMOV o[DEPR].z, R0;\nEND\n").instructions[-2]
    assert (ins.op, ins.precision, ins.cc_update, ins.sat) == (op, precision, cc, sat)
    if cc is not None:
        assert ins.cc_kind == CCKind.FLOAT


def test_fp1_numerics_are_explicit():
    prog = parse("!!FP1.0\nRSQ R0.x, -R1.x;\nMIN R0, R1, R2;\nMAX R0, R1, R2;\nLIT R0, R1;\n"
                 "SNE R0, R1, R2;\nTXP R0, f[TEX0], TEX0, CUBE;\nTXP R1, f[TEX1], TEX1, 2D;\n"
                 "MOV o[COLR], R0;\nEND\n")
    ops = [i.op for i in prog.instructions]
    assert ops == ["RSQ", "MINN", "MAXN", "LITNC", "SNE", "TEX", "TXP", "MOV"]
    rsq = prog.instructions[0].srcs[0]
    assert rsq.neg and not rsq.abs                    # FP1 3.11.5.27: no |x| (unlike ARB)
    assert prog.instructions[5].tex.target == "CUBE"  # FP1 3.11.5.40: no divide for cube maps


def test_kil_and_condition_codes():
    prog = parse("!!FP1.0\nMOVC RC, f[COL0];\nKIL NE;\nKIL EQ.xyxy;\nMOV R0 (GT.wzyx), R1;\n"
                 "MOV o[COLR], R0;\nEND\n")
    assert prog.instructions[1].cond == CondTest("NE", 0, (0, 1, 2, 3))
    assert prog.instructions[2].cond == CondTest("EQ", 0, (0, 1, 0, 1))
    assert prog.instructions[3].dst.cond == CondTest("GT", 0, (3, 2, 1, 0))
    assert prog.instructions[0].dst.reg == "RC"


def test_operand_forms():
    # FP1 3.11.4.3: negate(base), |abs|, negate(abs); "+" signs; scalar constants anywhere
    prog = parse("!!FP1.0\nMOV R0, -|-R1|;\nMOV R0, +|R1.x|;\nMOV R0, {1, -2, +3, 4};\n"
                 "POWH R0.x, R1.x, 16;\nMOV R0, -5;\nMOV o[COLR], R0;\nEND\n")
    a, b, c, d, e = prog.instructions[:5]
    assert (a.srcs[0].abs, a.srcs[0].neg) == (True, True)
    assert (b.srcs[0].abs, b.srcs[0].neg, b.srcs[0].swizzle) == (True, False, (0, 0, 0, 0))
    assert [f32(w) for w in prog.registers[c.srcs[0].reg].value[0]] == [1, -2, 3, 4]
    assert f32(prog.registers[d.srcs[1].reg].value[0][0]) == 16.0
    assert e.srcs[0].neg


def test_fogcoord_reads_as_f000():
    # FP1 Table X.1: f[FOGC] holds the fog coordinate in x and 0 elsewhere
    prog = parse("!!FP1.0\nMOV o[COLR], f[FOGC];\nEND\n")
    assert body(prog)[:2] == ["MOV.F %fogcoord.yzw, 0.0",
                              "MOV.F %fogcoord.x, f[FOGC].x"]
    r = xlate.execute(prog, {"f[FOGC]": [0.25, 9, 9, 9]})
    assert r.float("o[COLR]")[0].tolist() == [0.25, 0, 0, 0]


def test_corpus_style_program_translates():
    text = ("!!FP1.0\nDECLARE IN$size;\nTEX R0.xyz, f[TEX1], TEX1, 2D;\nMADR R0.xyz, 2, R0, -1;\n"
            "DP3X H0.x, R0, f[TEX2];\nDP3H H0.w, H0, H0;\nRSQH H0.w, H0.w;\nMULH H0.xyz, H0.w, H0;\n"
            "POWH H0.x, H0.x, 16;\nLITR R1, H0;\nMINX R1, R1, IN$size;\nSGERC HC, R1, 0.5;\n"
            "KIL LT.x;\nTXP R2, f[TEX0], TEX2, CUBE;\nUP2H R3, R2.x;\nMOVH o[COLH] (NE), R1;\n"
            "MOVR o[DEPR].z, R3.x;\nEND\n")
    result = xlate.translate(text, filename="t.fp", target="spirv", via="glsl")
    assert result.spirv[:4] == b"\x03\x02\x23\x07"
    assert "xl_litnc(" in result.glsl and "xl_minn(" in result.glsl
