"""The IR pipeline: validator after the frontend and after each pass; printer; passes."""
from __future__ import annotations

import pytest

import xlate
from xlate.ir.model import CCKind, DataType, RegKind
from xlate.ir.printer import print_program
from xlate.ir.validate import IRValidationError, validate
from xlate.passes.condcodes import tested_cc_registers as cc_registers_tested
from xlate.passes.structurize import If, Jump, Loop, structurize
from xlate.passes.types import register_types

VP = """!!NVvp4.0
PARAM mvp[4] = { state.matrix.mvp };
PARAM table[8] = { program.local[0..7] };
PARAM ctl = program.local[8];
INT TEMP i, k;
TEMP acc, t;
main:
  DP4 result.position.x, mvp[0], vertex.position;
  MOV acc, 0;
  MOV.S k.x, vertex.id.x;
  REP ctl.y;
    AND.S i.x, k.x, 7;
    ADD acc, acc, table[i.x];
    ADD.S k.x, k.x, 1;
    SGT.CC t.x, acc.x, ctl.x;
    BRK (GT.x);
  ENDREP;
  CAL finish;
finish:
  MOV.SAT result.color, acc;
  I2F result.texcoord[0].x, k.x;
  RET;
END
"""


def test_validator_after_frontend_and_passes():
    prog = xlate.parse(VP, filename="vp4a.vp")
    validate(prog)
    st = structurize(prog)
    validate(prog)        # passes are pure: the program is unchanged
    assert [type(n).__name__ for n in st.main.body] == ["Op", "Op", "Op", "Loop", "Jump", "Jump"]
    loop = st.main.body[3]
    assert isinstance(loop, Loop) and loop.count.reg == "ctl"
    assert isinstance(loop.body[-1], Jump) and loop.body[-1].kind == "break"
    # the frontend made NV4's "a label ends the subroutine" explicit
    assert st.main.body[-1].kind == "return" and st.main.body[-1].ins.text == "(implicit RET before label)"
    assert list(st.functions) == ["finish"] and st.order == ["finish"]


def test_validator_catches_broken_ir():
    prog = xlate.parse(VP)
    prog.instructions[1].srcs = ()
    with pytest.raises(IRValidationError, match="instruction 1 \\(MOV\\): 0 sources"):
        validate(prog)


def test_register_types_and_cc_analysis():
    prog = xlate.parse(VP)
    types = register_types(prog)
    assert types == {"i": DataType.INT, "k": DataType.INT, "acc": DataType.FLOAT, "t": DataType.FLOAT}
    assert cc_registers_tested(prog) == {0}
    sgt = next(i for i in prog.instructions if i.op == "SGT")
    assert sgt.cc_update == 0 and sgt.cc_kind == CCKind.FLOAT
    assert prog.registers["mvp"].kind == RegKind.PARAM and prog.registers["mvp"].size == 4
    assert [b.text() for b in prog.registers["mvp"].bindings] == [
        f"state.matrix.mvp.row[{r}]" for r in range(4)]


def test_mixed_registers_keep_raw_bits():
    prog = xlate.parse("""!!NVfp4.0
TEMP r;
MOV.F r, fragment.texcoord[0];
MOV.U r.y, r.x;
MOV result.color, r;
END
""")
    assert register_types(prog) == {"r": DataType.UINT}
    glsl = xlate.translate("""!!NVfp4.0
TEMP r;
MOV.F r, fragment.texcoord[0];
MOV.U r.y, r.x;
MOV result.color, r;
END
""").glsl
    assert "uvec4 r = uvec4(0);" in glsl
    assert "r = floatBitsToUint(fragment_texcoord_0);" in glsl


def test_flag_rule_for_negated_add():
    prog = xlate.parse("""!!NVvp4.0
INT TEMP a, b;
ADD.S.CC a, b, -b;
ADD.S.CC a, -b, -b;
SUB.S.CC a, b, -b;
MAD.S.CC a, b, b, b;
MOV result.position, vertex.position;
END
""")
    kinds = [i.cc_kind for i in prog.instructions if i.cc_update is not None]
    assert kinds == [CCKind.SUB, CCKind.UNDEF_OFCF, CCKind.ADD, CCKind.ADD]


def test_printer_is_readable_and_stable():
    prog = xlate.parse(VP, filename="vp4a.vp")
    text = print_program(prog)
    assert text == print_program(xlate.parse(VP, filename="vp4a.vp"))
    lines = text.splitlines()
    assert lines[0] == "; xlate IR: NVvp4.0 (vertex program), source vp4a.vp"
    assert "param  mvp[4] = { state.matrix.mvp.row[0], state.matrix.mvp.row[1], " \
           "state.matrix.mvp.row[2], state.matrix.mvp.row[3] }" in lines
    assert "   7    SGT.F.CC0 t.x, acc.x, ctl.x" in lines
    assert "   8    BRK (GT.x)" in lines
    assert "   4    AND.S i.x, k.x, 7" in lines
    assert "  11  RET" in lines and "finish:" in lines


def test_recursion_runs_to_the_call_depth_limit():
    """GP4 allows recursion up to MAX_PROGRAM_CALL_DEPTH_NV (4); a deeper CAL has no effect
    (issue 38).  GLSL has none, so the backend emits one copy per depth - and agrees with the
    executor, which ignores a CAL when four returns are pending."""
    src = """!!NVvp4.0
TEMP t;
MOV t, 0;
CAL a;
MOV result.position, t;
RET;
a:
ADD t, t, 1;
CAL a;
RET;
END
"""
    glsl = xlate.translate(src, filename="rec.vp").glsl
    for d in (1, 2, 3, 4):
        assert f"void sub_a_d{d}()" in glsl
    assert "sub_a_d5" not in glsl
    assert "// CAL a: call stack full, ignored (GP4 issue 38)" in glsl
    from xlate.exec import execute
    result = execute(xlate.parse(src), {}, lanes=1)
    assert result.float("result.position").tolist() == [[4.0, 4.0, 4.0, 4.0]]


def test_call_chain_deeper_than_the_limit_is_cut_at_the_limit():
    """No recursion, but a chain of six nested calls: the CALs made with four calls pending
    have no effect (GP4 issue 38, as for recursion), so the GLSL takes the per-depth copies;
    only the copies some call reaches are emitted (s0 at depth 1 ... s3 at depth 4)."""
    subs = "".join(f"s{i}: ADD t, t, 1;\nCAL s{i + 1};\nRET;\n" for i in range(6))
    src = ("!!NVvp4.0\nTEMP t;\nMOV t, 0;\nCAL s0;\nMOV result.position, t;\nRET;\n" + subs
           + "s6: RET;\nEND\n")
    glsl = xlate.translate(src, filename="chain.vp").glsl
    defined = sorted(line[5:-2] for line in glsl.splitlines()
                     if line.startswith("void sub_") and line.endswith("()"))
    assert defined == ["sub_s0_d1", "sub_s1_d2", "sub_s2_d3", "sub_s3_d4"]
    assert "// CAL s4: call stack full, ignored (GP4 issue 38)" in glsl
    from xlate.exec import execute
    result = execute(xlate.parse(src), {}, lanes=1)
    assert result.float("result.position").tolist() == [[4.0, 4.0, 4.0, 4.0]]


def test_recursion_emits_only_the_copies_calls_reach():
    """A subroutine first called at depth 2 has no depth-1 copy."""
    src = ("!!NVvp4.0\nTEMP t;\nMOV t, 0;\nCAL a;\nMOV result.position, t;\nRET;\n"
           "a:\nADD t, t, 1;\nCAL b;\nRET;\nb:\nADD t, t, 2;\nCAL a;\nRET;\nEND\n")
    glsl = xlate.translate(src, filename="ab.vp").glsl
    defined = sorted(line[5:-2] for line in glsl.splitlines()
                     if line.startswith("void sub_") and line.endswith("()"))
    assert defined == ["sub_a_d1", "sub_a_d3", "sub_b_d2", "sub_b_d4"]
    from xlate.exec import execute
    result = execute(xlate.parse(src), {}, lanes=1)
    assert result.float("result.position").tolist() == [[6.0, 6.0, 6.0, 6.0]]


def test_output_is_deterministic():
    a = xlate.translate(VP, filename="x.vp", target="spirv")
    b = xlate.translate(VP, filename="x.vp", target="spirv")
    assert a.glsl == b.glsl and a.spirv == b.spirv


def test_ir_values_keep_dataclass_behaviour_with_the_direct_init():
    """Source, Dest, Index, CondTest, TexRef and Binding are slotted (no instance dict for the
    garbage collector to walk) and store their fields through the slots directly
    (xlate/ir/model.py _direct_init); otherwise they are the frozen dataclasses they were."""
    import dataclasses
    import pickle

    import pytest

    from xlate.ir.model import Binding, CondTest, Dest, Index, Source, TexRef, _direct_init
    src = Source("r0", Index(2, "a0", 1), swizzle=(1, 1, 1, 1), neg=True)
    assert (src.reg, src.index, src.vertex, src.swizzle, src.neg, src.abs, src.comp_neg) == \
        ("r0", Index(2, "a0", 1), None, (1, 1, 1, 1), True, False, (False,) * 4)
    assert src == Source("r0", Index(2, "a0", 1), None, (1, 1, 1, 1), True)
    assert hash(src) == hash(Source("r0", Index(2, "a0", 1), None, (1, 1, 1, 1), True))
    assert dataclasses.replace(src, neg=False) == Source("r0", Index(2, "a0", 1), swizzle=(1,) * 4)
    assert pickle.loads(pickle.dumps(src)) == src
    assert not hasattr(src, "__dict__") and not hasattr(Dest("o"), "__dict__")
    with pytest.raises(dataclasses.FrozenInstanceError):
        src.reg = "r1"
    with pytest.raises(TypeError):
        Dest()                                             # reg is required
    assert Dest("o").mask == (True,) * 4 and CondTest("GT").swizzle == (0, 1, 2, 3)
    assert repr(TexRef(1, "2D")) == "TexRef(unit=1, target='2D', offset=(0, 0, 0), component=0)"
    assert Binding("vertex.attrib", 3).text() == "vertex.attrib[3]"

    @dataclasses.dataclass(frozen=True)
    class WithFactory:
        items: list = dataclasses.field(default_factory=list)
    with pytest.raises(TypeError, match="needs the generated __init__"):
        _direct_init(WithFactory)


def test_executor_operands_hold_no_closure_cells():
    """The operand fetchers, loaders and writers take their settings as defaults (see the note
    in xlate/exec/operands.py): no closure cells, which the garbage collector would have to
    walk after every compile (tools/bench_scaling.py exec ratios)."""
    from xlate.api import parse
    from xlate.exec.operands import make_loader, make_writer
    from xlate.ir.model import DataType
    prog = parse("!!NVfp4.0\nTEMP R0[4];\nINT TEMP A;\nMOV.F R0[A.x + 1], -|fragment.color.yzxw|;"
                 "\nMOV.F result.color, R0[1];\nEND\n")
    ins = prog.instructions[0]
    load = make_loader(prog, ins.srcs[0], DataType.FLOAT, False)
    write = make_writer(prog, ins.dst)
    assert load.__closure__ is None and write.__closure__ is None
    assert load.__kwdefaults__["fetch"].__closure__ is None
    assert load.__kwdefaults__["do_abs"] and load.__kwdefaults__["do_neg"]


def test_executor_shares_loaders_and_writers_between_instructions():
    """compile_program builds one loader per (operand, type, scalar) and one writer per
    (destination, precision): repeated operands share them (a 3,200-instruction program held
    ~8 MB of distinct closures); a different operand type or precision gets its own."""
    from xlate.api import parse
    from xlate.exec.machine import compile_program
    prog = parse("!!NVfp4.0\nTEMP R0, R1;\nINT TEMP I;\nMOV.F R0, fragment.color;\n"
                 "ADD.F R1, R0, R0;\nMUL.F R1, R0, R1;\nMOV.S I, R0;\n"
                 "ADD.F R1, -R0, R1;\nMOV.F result.color, R1;\nEND\n")
    code, _ = compile_program(prog)
    mov, add, mul, movs, addn, out = code
    assert add.loaders[0] is add.loaders[1] is mul.loaders[0]       # R0 read as float
    assert movs.loaders[0] is not add.loaders[0]                   # R0 read as int
    assert addn.loaders[0] is not add.loaders[0]                   # -R0
    assert add.write is mul.write is addn.write                    # R1, full mask
    assert mov.write is not add.write


def test_fp16_precision_writer_is_not_shared_with_full_precision():
    """An H-suffixed FP1 instruction writes through the fp16 conversion, an R-suffixed one to
    the same destination does not: the writer cache keys on the precision too."""
    import numpy as np

    import xlate
    src = ("!!FP1.0\nMOVR R0, f[COL0];\nMOVR R1, R0;\nMOVH R0, f[COL0];\n"
           "ADDR o[COLR], R0, -R1;\nEND\n")
    third = np.float32(1 / 3)
    r = xlate.execute(src, {"f[COL0]": np.full((1, 4), third, np.float32)})
    out = r.outputs[next(iter(r.outputs))][0].view(np.float32)
    assert out[0] == np.float32(np.float16(third)) - third != 0


def test_glsl_emission_runs_with_the_collector_paused():
    """emit_glsl pauses the cyclic collector itself (for every caller, not only translate)."""
    import gc

    from xlate.api import parse
    from xlate.backends.glsl import emit_glsl
    prog = parse("!!NVfp4.0\nMOV.F result.color, fragment.color;\nEND\n")
    seen = []
    import xlate.backends.glsl as glsl
    real = glsl.GlslEmitter.emit
    try:
        glsl.GlslEmitter.emit = lambda self: (seen.append(gc.isenabled()), real(self))[1]
        assert gc.isenabled()
        out = emit_glsl(prog, "glsl450")
    finally:
        glsl.GlslEmitter.emit = real
    assert seen == [False] and gc.isenabled() and "void main()" in out.source


def test_a_translation_keeps_the_collector_paused_between_its_stages():
    """translate / translate_program pause the collector over the whole translation (issue 19:
    the collections between stages walked the trees the stages leave behind); it is back on
    after, and after a translation that fails."""
    import gc

    from xlate import api
    from xlate.backends import spirv as sp
    from xlate.diagnostics import XlateError
    seen = []
    real = sp.validate_spirv
    try:
        sp.validate_spirv = lambda *a, **k: (seen.append(gc.isenabled()), real(*a, **k))[1]
        assert gc.isenabled()
        api.translate("!!NVfp4.0\nMOV.F result.color, fragment.color;\nEND\n", target="spirv",
                      via="direct")
        assert seen == [False] and gc.isenabled()
        api.translate_program(api.parse("!!NVfp4.0\nMOV.F result.color, fragment.color;\nEND\n"),
                              target="spirv", via="direct")
        assert seen == [False, False] and gc.isenabled()
    finally:
        sp.validate_spirv = real
    with pytest.raises(XlateError):
        api.translate("!!NVfp4.0\nMOV.F result.color, R9;\nEND\n")
    assert gc.isenabled()
