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
    assert s.done == ["nesting", "structurize", "inline", "constanttests", "zerodivisors", "types",
                      "condcodes", "ccforward", "deadstores", "deadcode"]
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


# ---- ccforward: CC tests read from the register their update wrote ---------------------------

def _forward(body: str):
    """The lowering of an NVfp4 program: (main body's nodes, cc_used, cc_values)."""
    s = pipeline.lower(xlate.parse("!!NVfp4.0\nTEMP t, u;\nINT TEMP i, j;\n" + body +
                                   "MOV result.color, t;\nEND\n"), validate=True)
    return s.structured.main.body, s.cc_used, s.cc_values


def _conds(nodes):
    from xlate.passes.structurize import If
    return [n.cond for n in nodes if isinstance(n, If)]


def test_a_test_after_its_update_reads_the_written_register():
    """cgc's shape: the update, an instruction that writes elsewhere, the IF."""
    from xlate.ir.model import DataType
    from xlate.passes.condcodes import ValueTest
    nodes, used, values = _forward("TRUNC.S.CC i.x, fragment.texcoord[0];\n"
                                   "MOV t, fragment.texcoord[1];\nIF NE.x;\nMOV t, 1;\nENDIF;\n")
    assert _conds(nodes) == [ValueTest("i", 0, "NE", DataType.INT)]
    assert used == set() and values == {}          # CC0 needs no register any more
    glsl = xlate.translate("!!NVfp4.0\nTEMP t;\nINT TEMP i;\nTRUNC.S.CC i.x, "
                           "fragment.texcoord[0];\nIF NE.x;\nMOV t, 1;\nENDIF;\n"
                           "MOV result.color, t;\nEND\n").glsl
    assert "if (i.x != 0)" in glsl and "xl_cc" not in glsl


def test_a_test_is_not_forwarded_past_a_write_of_the_component_or_a_call():
    from xlate.passes.structurize import If
    nodes, used, values = _forward("MOV.CC t.y, fragment.texcoord[0];\nMOV t.y, 2;\n"
                                   "IF GT.y;\nMOV t, 1;\nENDIF;\n")
    assert _conds(nodes)[0].cc == 0 and used == {0}      # t.y changed since the update
    nodes, used, _ = _forward("MOV.CC t.y, fragment.texcoord[0];\nIF GT.y;\nMOV u, 1;\nENDIF;\n"
                              "IF LT.y;\nMOV u, 2;\nENDIF;\n")
    # the second test follows an IF whose plain branch writes neither t.y nor CC0 (a cond
    # probe's shape, verify/trace.probe_value): both read t.y, and CC0 is gone
    conds = _conds(nodes)
    assert [type(c).__name__ for c in conds] == ["ValueTest", "ValueTest"] and used == set()
    assert isinstance(nodes[1], If)
    for between in ("MOV t.y, 3;", "MOV.CC u.y, 3;"):
        # a branch that writes the component or updates CC0 stops the forwarding
        nodes, used, _ = _forward(f"MOV.CC t.y, fragment.texcoord[0];\nIF GT.y;\n{between}\n"
                                  "ENDIF;\nIF LT.y;\nMOV u, 2;\nENDIF;\n")
        conds = _conds(nodes)
        assert type(conds[0]).__name__ == "ValueTest" and conds[1].cc == 0 and used == {0}


# ---- deadstores: output writes replaced before anything reads them ------------------------------

def _main_ops(text: str) -> list[str]:
    s = pipeline.lower(xlate.parse(text), validate=True)
    return [f"{n.ins.op} {n.ins.dst.reg}" if isinstance(n, Op) and n.ins.dst is not None
            else type(n).__name__ if not isinstance(n, Op) else n.ins.op
            for n in s.structured.main.body]


def test_vp1_result_defaults_go_where_the_program_writes_the_result_whole():
    """NV_vertex_program 2.14.1.5: results start as (0,0,0,1) -- the frontend's moves stay only
    for a result some component of which the program never writes."""
    ops = _main_ops("!!VP1.0\nMOV o[HPOS], v[0];\nMOV o[TEX0].xy, v[8];\nEND\n")
    assert ops == ["MOV o[TEX0]", "MOV o[HPOS]", "MOV o[TEX0]"]
    glsl = xlate.translate("!!VP1.0\nMOV o[HPOS], v[0];\nMOV o[TEX0].xy, v[8];\nEND\n").glsl
    body = glsl[glsl.index("void xl_main()"):]
    assert "gl_Position = vec4(0.0, 0.0, 0.0, 1.0);" not in body
    assert body.count("vec4(0.0, 0.0, 0.0, 1.0)") == 1           # TEX0's z, w stay defaults


def test_a_store_stays_before_an_emit_a_call_or_a_conditional_return():
    """A geometry program's EMIT sends the outputs; a subroutine or a return may see the first
    value: the earlier write is not dead."""
    gp = ("!!NVgp4.0\nPRIMITIVE_IN POINTS;\nPRIMITIVE_OUT POINTS;\nVERTICES_OUT 2;\n"
          "MOV result.position, 1;\nEMIT;\nMOV result.position, 2;\nEMIT;\nEND\n")
    assert _main_ops(gp).count("MOV result.position") == 2
    # (two calls: the inline pass leaves the subroutine a function)
    vp = ("!!NVvp4.0\nMOV result.position, 1;\nCAL f;\nMOV result.position, 2;\nCAL f;\n"
          "RET;\nf:\nMOV result.color, 1;\nRET;\nEND\n")
    assert _main_ops(vp).count("MOV result.position") == 2
    vp2 = ("!!VP2.0\nMOV o[HPOS], v[0];\nMOVC R0, v[1];\nRET (LT.x);\nMOV o[HPOS], v[2];\nEND\n")
    # the (0,0,0,1) default is replaced at once; v[0]'s value is what a return exposes
    assert [op for op in _main_ops(vp2) if op == "MOV o[HPOS]"] == ["MOV o[HPOS]"] * 2


#: writes under the constant tests: TR (every component), FL (none; its CC update neither)
CONSTANT_TESTS = """!!NVfp4.0
TEMP t, u;
MOV t, fragment.texcoord[0];
MOV u, fragment.texcoord[1];
MOV t (TR), u.yxzw;
ADD.CC u (FL.x), t, 1;
TEX u (FL), t, texture[0], 2D;
MOV t.xy (TR1.zwzw), -u;
MOV result.color, t;
KIL FL;
END
"""


def test_writes_under_constant_tests_are_plain_or_gone():
    """GP4 2.X.4.3: components are written only where the test passes, and the condition code
    only for components written -- a write under FL has no effect at all."""
    s = pipeline.lower(xlate.parse(CONSTANT_TESTS), validate=True)
    ops = [n.ins for n in s.structured.main.body if isinstance(n, Op)]
    # (the first MOV is dead: the write under TR replaces t whole)
    assert [(i.op, i.dst.reg, i.dst.cond) for i in ops] == [
        ("MOV", "u", None), ("MOV", "t", None), ("MOV", "t", None), ("MOV", "result.color[0]", None)]
    assert s.cc_used == set()                      # the FL update is gone, nothing tests CC0
    # the IR itself is unchanged (the executor runs it as written)
    assert [i.dst.cond.rule for i in s.program.instructions if i.dst and i.dst.cond] == \
        ["TR", "FL", "FL", "TR"]
    glsl = xlate.translate(CONSTANT_TESTS).glsl
    body = glsl[glsl.index("void xl_main()"):glsl.index("void main()")]
    assert body == ("void xl_main()\n{\n    u = fragment_texcoord_1;\n    t = u.yxzw;\n"
                    "    t.xy = -u.xy;\n    result_color0 = t;\n}\n\n")


@pytest.mark.parametrize("backend", ["gl", "vulkan"])
def test_writes_under_constant_tests_verify(backend):
    """The folded translation agrees with the executor running the writes under TR/FL as
    written (CONSTANT_TESTS plus conditional moves, negations and literals of every kind)."""
    from conftest import gl_runner
    from xlate.verify.core import verify_source
    text = CONSTANT_TESTS.replace("MOV result.color, t;", (
        "MOV.CC u, fragment.texcoord[1];\nMOV t.yz (GT.xyzw), -u.wzyx;\nMOV t.w (LE.x), 0.5;\n"
        "FLR t.x (NE.y), u;\nMOV result.color, t;"))
    rep = verify_source(text, "constant.fp", lanes=64, seed=5, backend=backend,
                        runner=gl_runner(backend))
    assert rep.status == "pass", (rep.reason, rep.localization[:2])


#: LEG and NAN of condition-code registers: CC1 only integer updates write, CC0 a float one
INTEGER_FLAG_TESTS = """!!NVvp4.0
TEMP t, u, i;
MOV t, vertex.attrib[0];
MOV u, vertex.attrib[1];
SNE.U.CC1 i, vertex.attrib[2], 3;
MOV.F.CC0 u.w, vertex.attrib[3].x;
MOV t.xy (LEG1.zwzw), -u;
MOV t.z (NAN1.x), u;
MOV t.w (LEG0.x), u;
MOV result.position, t;
MOV result.texcoord[0], u;
I2F.U result.texcoord[1], i;
END
"""


def test_leg_and_nan_of_a_register_only_integer_updates_write_are_constant():
    """GP4 2.X.4.3: an integer update's SF is bit 31 and its ZF r == 0, never both (nor
    before any update), so LEG passes and NAN fails on every component of CC1 (Table X.16);
    CC0, which a float update writes, keeps its test (a NaN sets both).  Generated NV4
    vertex seed 2202: ``SCS.F R3 (LEG1.z), R0.y`` printed ``mix(R3, ..., bvec4(true))``."""
    s = pipeline.lower(xlate.parse(INTEGER_FLAG_TESTS), validate=True)
    ops = [n.ins for n in s.structured.main.body if isinstance(n, Op)]
    writes_of_t = [(i.dst.mask, i.dst.cond.rule if i.dst.cond else None) for i in ops
                   if i.dst is not None and i.dst.reg == "t"]
    assert writes_of_t == [((True,) * 4, None), ((True, True, False, False), None),
                           ((False, False, False, True), "LEG")]
    glsl = xlate.translate(INTEGER_FLAG_TESTS).glsl
    assert "t.xy = -u.xy;" in glsl and "bvec4(true)" not in glsl and "t.z" not in glsl


@pytest.mark.parametrize("backend", ["gl", "vulkan"])
def test_leg_and_nan_of_integer_flags_verify(backend):
    from conftest import gl_runner
    from xlate.verify.core import verify_source
    rep = verify_source(INTEGER_FLAG_TESTS, "flags.vp", lanes=64, seed=5, backend=backend,
                        runner=gl_runner(backend))
    assert rep.status == "pass", (rep.reason, rep.localization[:2])
