"""Seed-format token streams lowered to the IR (issue 20): the NV instruction extension's
CondFlowEnable on KILL_IF and on IF with a source keeps its condition, the FLOAT16 / FIXED12
precisions convert the result, opcodes that cannot honour a condition refuse it, and
``xlate convert --target tgsi`` names what tgsi_dump text cannot spell instead of dumping a
dataclass.  Checked by running the lowered IR in the executor and the GLSL on llvmpipe."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from conftest import gl_runner

from xlate import api, execute
from xlate.diagnostics import XlateError
from xlate.frontends.tgsi.binary import encode_seed
from xlate.frontends.tgsi.model import (CondCode, Declaration, Dst, Immediate, Instruction,
                                        RegRef, Shader, Src)
from xlate.verify.core import verify_source

X4 = (0, 0, 0, 0)
DECLS = [Declaration("IN", 0, 0), Declaration("OUT", 0, 0), Declaration("TEMP", 0, 1)]
ONE, TWO = 0x3F800000, 0x40000000


def R(file, index):
    return RegRef(file, index)


def seed(instructions, processor="FRAG", immediates=()) -> bytes:
    return encode_seed(Shader(processor, declarations=DECLS, immediates=list(immediates),
                              instructions=list(instructions) + [Instruction("END")]))


def run_frag(data: bytes, a):
    prog = api.parse(data, filename="t.bin")
    r = execute(prog, {"fragment.generic[0]": np.asarray(a, np.float32)})
    return r


# CC0 from IN[0] (LT where IN.c < 0), then KILL_IF IN[0].yyyy gated by LT on CC0.x: a fragment
# dies where IN.x < 0 and IN.y < 0 -- not where only IN.y < 0 (the unconditional KIL of old)
KILL_IF_COND = [
    Instruction("MOV", (Dst(R("TEMP", 1)),), (Src(R("IN", 0)),), cc_update=0),
    Instruction("KILL_IF", (), (Src(R("IN", 0), (1, 1, 1, 1)),), cond=CondCode("LT", X4, 0)),
    Instruction("MOV", (Dst(R("OUT", 0)),), (Src(R("IN", 0)),))]


def test_kill_if_with_condflowenable_keeps_its_condition():
    r = run_frag(seed(KILL_IF_COND), [[-1, -1, 0, 0], [1, -1, 0, 0], [-1, 1, 0, 0],
                                      [1, 1, 0, 0], [-0.0, -1, 0, 0]])
    assert r.killed.tolist() == [True, False, False, False, False]


def test_kill_if_condition_is_per_component():
    # CondSwizzle (x, y, z, w) gates each component by its own CC: killed where some c has
    # IN.c < 0 (the CC test LT) and the killed source -IN... > 0 never; with source IN, c < 0
    ins = [KILL_IF_COND[0],
           Instruction("KILL_IF", (), (Src(R("IN", 0)),), cond=CondCode("GE", (0, 1, 2, 3), 0)),
           KILL_IF_COND[2]]
    # GE gates exactly the components >= 0, which are never < 0: nothing dies
    r = run_frag(seed(ins), [[-1, -1, -1, -1], [1, -1, 2, -3], [0, 0, 0, 0]])
    assert r.killed.tolist() == [False, False, False]


# IF IN[0].xxxx with CondFlowEnable EQ on CC0.y: taken where IN.x != 0.0 and IN.y == 0
IF_COND = [
    Instruction("MOV", (Dst(R("TEMP", 1)),), (Src(R("IN", 0)),), cc_update=0),
    Instruction("MOV", (Dst(R("TEMP", 0)),), (Src(R("IMM", 0), X4),)),
    Instruction("IF", (), (Src(R("IN", 0), X4),), cond=CondCode("EQ", (1, 1, 1, 1), 0), label=4),
    Instruction("MOV", (Dst(R("TEMP", 0)),), (Src(R("IMM", 0), (1, 1, 1, 1)),)),
    Instruction("ENDIF"),
    Instruction("MOV", (Dst(R("OUT", 0)),), (Src(R("TEMP", 0)),))]
IMMS = [Immediate("FLT32", (ONE, TWO, 0, 0))]


def test_if_with_a_source_and_condflowenable_keeps_both_tests():
    a = [[1, 0, 0, 0], [1, 5, 0, 0], [0, 0, 0, 0], [-0.0, 0, 0, 0], [float("nan"), -0.0, 0, 0]]
    r = run_frag(seed(IF_COND, immediates=IMMS), a)
    assert r.float("result.color[0]")[:, 0].tolist() == [2.0, 1.0, 1.0, 1.0, 2.0]


def test_fixed12_and_float16_precision_convert_the_result():
    # FIXED12: clamped to [-2, 2047/1024], multiples of 1/1024; FLOAT16: rounded to half
    ins = [Instruction("MOV", (Dst(R("TEMP", 0)),), (Src(R("IN", 0)),), precision="FIXED12"),
           Instruction("MOV", (Dst(R("TEMP", 1)),), (Src(R("IN", 0)),), precision="FLOAT16"),
           Instruction("ADD", (Dst(R("OUT", 0), (True, True, False, False)),),
                       (Src(R("TEMP", 0), (0, 1, 0, 1)), Src(R("IMM", 0), (2, 2, 2, 2)))),
           Instruction("ADD", (Dst(R("OUT", 0), (False, False, True, True)),),
                       (Src(R("TEMP", 1), (0, 0, 0, 3)), Src(R("IMM", 0), (2, 2, 2, 2))))]
    r = run_frag(seed(ins, immediates=IMMS), [[3.0, 0.3, 0, 1.0001], [-7.0, float("nan"), 0, 0]])
    got = r.float("result.color[0]")
    assert got[0, :2].tolist() == [2047 / 1024, np.float32(307 / 1024)]
    assert got[1, :2].tolist() == [-2.0, 0.0]
    assert got[0, 2:].tolist() == [3.0, float(np.float16(1.0001))]


def test_fixed12_on_an_integer_result_is_refused():
    # (the seed opcode tables have no integer arithmetic; ARL's address result is integer)
    ins = [Instruction("ARL", (Dst(R("ADDR", 0)),), (Src(R("IN", 0)),), precision="FIXED12"),
           Instruction("MOV", (Dst(R("OUT", 0)),), (Src(R("IN", 0)),))]
    with pytest.raises(XlateError) as e:
        api.parse(seed(ins), filename="t.bin")
    assert [d.message for d in e.value.diagnostics] == [
        "ARL with FIXED12 precision: integer results have no reduced-precision form"]


def test_condition_on_an_opcode_that_cannot_honour_it_is_refused():
    ins = [Instruction("MOV", (Dst(R("TEMP", 1)),), (Src(R("IN", 0)),), cc_update=0),
           Instruction("BGNLOOP", cond=CondCode("LT", X4, 0)), Instruction("BRK"),
           Instruction("ENDLOOP"), Instruction("MOV", (Dst(R("OUT", 0)),), (Src(R("IN", 0)),))]
    with pytest.raises(XlateError) as e:
        api.parse(seed(ins), filename="t.bin")
    assert [d.message for d in e.value.diagnostics] == [
        "BGNLOOP with a condition-code test (seed CondFlowEnable) is not supported"]


@pytest.mark.parametrize("name,ins,imms", [("kill", KILL_IF_COND, []), ("if", IF_COND, IMMS)])
def test_seed_conditions_verify_on_gl(name, ins, imms):
    runner = gl_runner("gl")
    rep = verify_source(seed(ins, immediates=imms), f"{name}.bin", lanes=256, seed=4,
                        backend="gl", runner=runner)
    assert rep.status == "pass", (rep.reason, [d.describe() for d in rep.differences[:5]])
    assert rep.compared > 0


def test_cli_tgsi_text_of_a_stream_with_condition_codes_is_a_diagnostic(tmp_path, capsys):
    from xlate.cli import main
    path = tmp_path / "cc.bin"
    path.write_bytes(seed(KILL_IF_COND))
    assert main(["convert", "--target", "tgsi", str(path)]) == 1
    err = capsys.readouterr().err
    assert err == (f"{path}:1:1: error[E7001]: TGSI text cannot express Instruction.cc_update "
                   "(an NV condition-code update) of instruction 0 (MOV); no tgsi_dump text for "
                   "this program\n")


# CC1 set from IN[0] before an `IF src` and tested after its ENDIF: lowering the IF must not
# take CC1 as its scratch (it used to: every lane then saw the IF's own flags, NE on IN.y)
CC1_ACROSS_IF = [
    Instruction("MOV", (Dst(R("TEMP", 1)),), (Src(R("IN", 0)),), cc_update=1),
    Instruction("MOV", (Dst(R("TEMP", 0)),), (Src(R("IMM", 0), X4),)),
    Instruction("IF", (), (Src(R("IN", 0), (1, 1, 1, 1)),), label=5),
    Instruction("ADD", (Dst(R("TEMP", 0)),), (Src(R("TEMP", 0)), Src(R("IMM", 0), X4))),
    Instruction("ENDIF"),
    Instruction("MOV", (Dst(R("TEMP", 0), cond=CondCode("LT", X4, 1)),),
                (Src(R("IMM", 0), (1, 1, 1, 1)),)),
    Instruction("MOV", (Dst(R("OUT", 0)),), (Src(R("TEMP", 0)),))]


def test_if_with_a_source_keeps_the_programs_cc1():
    # x < 0 (CC1.x LT) gives 2.0 whatever IN.y; else 1.0, plus 1.0 where IN.y != 0.0
    a = [[-1, 0, 0, 0], [-1, 3, 0, 0], [1, 0, 0, 0], [1, 3, 0, 0], [0, -0.0, 0, 0]]
    r = run_frag(seed(CC1_ACROSS_IF, immediates=IMMS), a)
    assert r.float("result.color[0]")[:, 0].tolist() == [2.0, 2.0, 1.0, 2.0, 1.0]


def test_if_with_a_source_in_a_program_using_cc0_and_cc1_is_refused():
    ins = CC1_ACROSS_IF[:-1] + [dataclasses.replace(CC1_ACROSS_IF[-1], cc_update=0)]
    with pytest.raises(XlateError) as e:
        api.parse(seed(ins, immediates=IMMS), filename="t.bin")
    assert [d.message for d in e.value.diagnostics] == [
        "IF with a source register in a program that uses both condition-code registers CC0 "
        "and CC1: the IR has no third one to test the source with"]


def test_condition_code_register_beyond_cc1_is_refused():
    ins = [Instruction("MOV", (Dst(R("TEMP", 1)),), (Src(R("IN", 0)),), cc_update=2),
           Instruction("MOV", (Dst(R("OUT", 0)),), (Src(R("IN", 0)),))]
    with pytest.raises(XlateError) as e:
        api.parse(seed(ins), filename="t.bin")
    assert [(d.code, d.message) for d in e.value.diagnostics] == [
        ("E7001", "condition-code register CC2: the seed token format has 16 but xlate's IR has "
                  "two, CC0 and CC1 (NV_gpu_program4)")]


def test_cc1_across_an_if_verifies_on_gl():
    test_seed_conditions_verify_on_gl("cc1", CC1_ACROSS_IF, IMMS)
