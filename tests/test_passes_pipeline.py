"""The middle end as a list (xlate/passes/pipeline.py): order, validation after each pass,
refusals, and that the GLSL backend prints what it is given."""
from __future__ import annotations

import pytest

import xlate
from xlate.diagnostics import XlateError
from xlate.ir.model import Dest, Instruction, Source
from xlate.ir.validate import IRValidationError
from xlate.passes import pipeline
from xlate.passes.structurize import Op
from xlate.verify.generate import DIALECTS, generate

CALLS = """!!NVfp4.0
TEMP t;
MOV t, fragment.texcoord[0];
CAL sub;
MOV result.color, t;
RET;
sub:
ADD t, t, 1;
RET;
END
"""


def test_the_passes_run_in_their_order():
    s = pipeline.lower(xlate.parse(CALLS), validate=True)
    assert s.done == ["nesting", "structurize", "inline", "types", "condcodes"]
    assert [name for name, _ in pipeline.PASSES] == s.done
    # one caller: the inline pass spliced the subroutine into main
    assert s.structured.functions == {}
    assert [node.ins.op for node in s.structured.main.body] == ["MOV", "ADD", "MOV", "RET"]


@pytest.mark.parametrize("dialect", sorted(DIALECTS))
def test_generated_programs_validate_after_every_pass(dialect):
    for seed in range(6):
        pipeline.lower(xlate.parse(generate(dialect, seed)), validate=True)


def test_a_pass_that_breaks_the_ir_is_named(monkeypatch):
    def bad_pass(s):
        # an instruction reading a register that does not exist, put into the tree
        s.structured.main.body.insert(0, Op(Instruction(
            "MOV", dst=Dest("t"), srcs=(Source("no_such_register"),))))
    monkeypatch.setattr(pipeline, "PASSES", pipeline.PASSES[:2] + [("broken", bad_pass)]
                        + pipeline.PASSES[2:])
    with pytest.raises(IRValidationError) as info:
        pipeline.lower(xlate.parse(CALLS), validate=True)
    assert str(info.value).startswith("after pass 'broken': invalid IR:")
    assert "unknown register no_such_register" in str(info.value)
    # without validation the broken tree goes through unnoticed: what the switch is for
    pipeline.lower(xlate.parse(CALLS), validate=False)


def test_validation_follows_the_environment(monkeypatch):
    monkeypatch.setenv("XLATE_VALIDATE_PASSES", "1")
    assert pipeline.validating()
    monkeypatch.setenv("XLATE_VALIDATE_PASSES", "0")
    assert not pipeline.validating()


def test_a_structure_the_profile_cannot_express_is_refused_by_its_pass():
    # a run-time nesting overflow through a call (FP2 3.11.X.7-9; test_arbfp_exec.py has the
    # executor's side): refused by the nesting pass, before anything is structured
    from test_arbfp_exec import LOOPS_THROUGH_A_CALL
    prog = xlate.parse(LOOPS_THROUGH_A_CALL)
    with pytest.raises(XlateError) as info:
        pipeline.lower(prog, profile="glsl330")
    [d] = info.value.diagnostics
    assert (d.code, d.span.line) == ("E7001", 21)
    assert d.message.startswith("run-time nesting limit (REP reached through subroutine calls "
                                "with 4 LOOP/REP blocks active, MAX_PROGRAM_LOOP_DEPTH_NV")
    assert d.message.endswith("cannot be expressed in the glsl330 profile")
