"""Subroutines called from one place are spliced in there (xlate/passes/inline.py): which are,
which are not, and that the executor and the translated shader still agree."""
from __future__ import annotations

import numpy as np
import pytest

import xlate
from xlate.ir.model import CondTest, Instruction
from xlate.passes.inline import inline_single_calls
from xlate.passes.structurize import (MAX_STRUCTURE_DEPTH, Function, If, Jump, Loop, Op,
                                      Structured, call_order, structurize)


def glsl_functions(src: str) -> list[str]:
    glsl = xlate.translate(src).glsl
    return sorted(line[5:-2] for line in glsl.splitlines()
                  if line.startswith("void sub_") and line.endswith("()"))


HEAD = "!!NVfp4.0\nTEMP R0, R1;\nMOV.F R0, fragment.color;\nMOV.F.CC R1, R0;\n"
TAIL = "MOV.F result.color, R0;\nRET;\n"


def test_a_subroutine_called_once_is_spliced_in():
    src = HEAD + "CAL once;\nCAL twice;\nCAL twice;\n" + TAIL + \
        "once:\nADD.F R0, R0, 1;\nRET;\ntwice:\nMUL.F R0, R0, 2;\nRET;\nEND\n"
    assert glsl_functions(src) == ["sub_twice"]
    glsl = xlate.translate(src).glsl
    body = glsl[glsl.index("void xl_main()"):]
    assert body.index("R0 = R0 + 1.0;") < body.index("sub_twice();")


def test_a_conditional_call_becomes_an_if_and_tr_is_always_taken():
    src = HEAD + "CAL a (GT.x);\nCAL b (TR);\n" + TAIL + \
        "a:\nADD.F R0, R0, 1;\nRET;\nb:\nMUL.F R0, R0, 2;\nRET;\nEND\n"
    assert glsl_functions(src) == []
    glsl = xlate.translate(src).glsl
    main = glsl[glsl.index("void xl_main()"):]
    # (the test reads R1, the register its update wrote: passes/condcodes.py forward_value_tests)
    assert "if (R1.x > 0.0)\n    {\n        R0 = R0 + 1.0;" in main
    # CAL b (TR): no if (its product, read once, is written where the output reads it)
    assert "\n    result_color0 = R0 * 2.0;" in main


@pytest.mark.parametrize("body", [
    "IF GT.x;\nRET;\nENDIF;\nADD.F R0, R0, 1;\nRET;\n",      # a RET inside a block
    "RET (GT.x);\nADD.F R0, R0, 1;\nRET;\n",                  # a RET before the end
], ids=["ret-in-if", "early-ret"])
def test_a_subroutine_that_returns_early_stays_a_function(body):
    src = HEAD + "CAL s;\n" + TAIL + "s:\n" + body + "END\n"
    assert glsl_functions(src) == ["sub_s"]


def test_trailing_returns_are_dropped_conditional_or_not():
    src = HEAD + "CAL s;\n" + TAIL + "s:\nADD.F R0, R0, 1;\nRET (GT.x);\nRET;\nEND\n"
    assert glsl_functions(src) == []


def test_recursion_is_left_alone():
    rec = HEAD + "CAL s;\n" + TAIL + "s:\nADD.F R0, R0, 1;\nCAL s;\nRET;\nEND\n"
    assert glsl_functions(rec) == ["sub_s_d1", "sub_s_d2", "sub_s_d3", "sub_s_d4"]


def test_a_chain_of_single_calls_is_spliced_callees_first():
    entry = ("!!NVfp4.0\nTEMP R0;\nMOV.F R0, fragment.color;\nCAL top;\nRET;\n"
             "top:\nADD.F R0, R0, 1;\nCAL s;\nMOV.F result.color, R0;\nRET;\n"
             "s:\nADD.F R0, R0, 2;\nRET;\nEND\n")
    prog = xlate.parse(entry)
    st = structurize(prog)
    assert inline_single_calls(st) == ["s", "top"]
    assert st.order == [] and st.functions == {}


def _jump(kind: str, target: str | None = None) -> Jump:
    ins = Instruction("CAL" if kind == "call" else {"break": "BRK", "continue": "CONT",
                                                      "return": "RET"}[kind])
    return Jump(kind, None, ins, target)


def _st(main: list, **functions: list) -> Structured:
    st = Structured(None, Function("main", [], main, 0))
    for name, body in functions.items():
        st.functions[name] = Function(name, [name], body, 0)
    st.order = call_order(st)
    return st


@pytest.mark.parametrize("body,spliced", [
    ([_jump("break")], False),                                   # BRK of the caller's loop
    ([_jump("continue")], False),
    ([Loop(None, Instruction("REP"), [_jump("break"), _jump("continue")])], True),
], ids=["break", "continue", "own-loop"])
def test_break_and_continue_must_belong_to_the_subroutine(body, spliced):
    st = _st([Loop(None, Instruction("REP"), [_jump("call", "s")])], s=body)
    assert inline_single_calls(st) == (["s"] if spliced else [])


def _nest(depth: int, inner: list) -> list:
    for _ in range(depth):
        inner = [If(CondTest("GT"), inner, [], Instruction("IF"))]
    return inner


def test_splicing_stays_within_the_structure_depth():
    half = MAX_STRUCTURE_DEPTH // 2
    op = Op(Instruction("MOV"))
    fits = _st(_nest(half, [_jump("call", "s")]), s=_nest(MAX_STRUCTURE_DEPTH - half, [op]))
    assert inline_single_calls(fits) == ["s"]
    deep = _st(_nest(half + 1, [_jump("call", "s")]), s=_nest(MAX_STRUCTURE_DEPTH - half, [op]))
    assert inline_single_calls(deep) == []
    assert deep.order == ["s"]


def test_spliced_subroutines_agree_with_the_executor_on_llvmpipe():
    """A conditional CAL inside a REP, a subroutine with its own REP and BRK, one calling
    another, and a subroutine called twice (kept): executor and llvmpipe agree."""
    from tests.test_verify_cases import run_both
    src = ("!!NVfp4.0\nTEMP R0, R1;\nMOV.F R0, fragment.texcoord[0];\n"
           "REP 3;\nMOV.F.CC R1, R0;\nCAL grow (GT.x);\nCAL twice;\nENDREP;\n"
           "CAL twice;\nMOV.F result.color, R0;\nRET;\n"
           "grow:\nREP 4;\nADD.F.CC R0, R0, -0.25;\nBRK (LT.y);\nENDREP;\nCAL leaf;\nRET;\n"
           "leaf:\nMUL.F R0, R0, 0.5;\nRET;\n"
           "twice:\nADD.F R0, R0, 0.125;\nRET;\nEND\n")
    assert glsl_functions(src) == ["sub_twice"]
    rng = np.random.default_rng(5)
    x = rng.uniform(-2, 2, (64, 4)).astype(np.float32)
    diffs, res, _ = run_both(src, {"fragment.texcoord[0]": x})
    assert diffs == []
    assert not np.array_equal(res.float("result.color"), x)
