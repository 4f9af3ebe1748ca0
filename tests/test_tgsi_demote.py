"""TGSI DEMOTE and READ_HELPER (issue 20): a demoted invocation's outputs are discarded but it
keeps executing, so the derivatives its quad neighbours take still see its values (a KILL'd one
stops); READ_HELPER is ~0 in it.  Executor, GLSL (a flag, discard at the end of main), and
``xlate verify`` on llvmpipe."""
from __future__ import annotations

import numpy as np
import pytest

from conftest import gl_runner

from xlate import api, execute
from xlate.diagnostics import XlateError
from xlate.verify.core import verify_source

# lanes whose x is not 0.0 demote; TEMP[0] is written after the demotion, and DDX reads it
PROGRAM = """FRAG
DCL IN[0], GENERIC[0], PERSPECTIVE
DCL OUT[0], COLOR
DCL OUT[1], COLOR[1]
DCL TEMP[0..2]
  0: IF IN[0].xxxx :2
  1:   DEMOTE
  2: ENDIF
  3: READ_HELPER TEMP[1]
  4: MOV TEMP[0], IN[0]
  5: DDX TEMP[2], TEMP[0]
  6: MOV OUT[0], TEMP[2]
  7: MOV OUT[1], TEMP[1]
  8: END
"""


def test_demoted_lanes_are_dropped_but_keep_executing():
    # one quad: lanes 0 (x0,y0) and 1 (x1,y0) form a DDX pair; lane 1 demotes
    a = np.float32([[0, 1, 0, 0], [5, 7, 0, 0], [0, 2, 0, 0], [0, 10, 0, 0]])
    r = execute(api.parse(PROGRAM), {"fragment.generic[0]": a})
    assert r.killed.tolist() == [False, True, False, False]
    # lane 0's DDX sees lane 1's values, written after lane 1 demoted
    assert r.float("result.color[0]")[0].tolist() == [5.0, 6.0, 0.0, 0.0]
    assert r.words("result.color[1]")[0].tolist() == [0, 0, 0, 0]


def test_read_helper_is_all_ones_in_a_demoted_lane():
    from xlate.exec.alu_dialects import op_readhelper

    class St:
        killed = np.array([False, True, False])
        all_lanes = np.arange(3)

    class X:
        st, idx = St, None
    assert op_readhelper(X)[:, 0].tolist() == [0, 0xFFFFFFFF, 0]


def test_glsl_sets_a_flag_and_discards_at_the_end():
    glsl = api.translate(PROGRAM).glsl
    assert "xl_demoted = true;" in glsl
    assert "    xl_main();\n    if (xl_demoted) discard;\n" in glsl
    assert "uvec4((gl_HelperInvocation || xl_demoted) ? 0xffffffffu : 0u)" in glsl


def test_read_helper_has_no_glsl330_form():
    with pytest.raises(XlateError) as e:
        api.translate(PROGRAM, filename="t.tgsi", profile="glsl330")
    assert [d.header() for d in e.value.diagnostics] == [
        "t.tgsi:9:6: error[E7001]: the instruction READHELPER.U cannot be expressed in the "
        "glsl330 profile"]


@pytest.mark.parametrize("backend", ["gl", "gl-spirv", "vulkan"])
def test_demote_verifies_on_gl(backend):
    runner = gl_runner(backend)
    rep = verify_source(PROGRAM, "demote.tgsi", lanes=1024, seed=6, backend=backend,
                        runner=runner)
    assert rep.status == "pass", (rep.reason, [d.describe() for d in rep.differences[:5]])
    if backend != "gl":
        # xlate's own SPIR-V (issue 19): a Private flag, a kill at the end of main
        assert any("direct SPIR-V path's module" in n for n in rep.notes), rep.notes
    assert 0 < rep.compared < 1024 * 8          # the demoted lanes are not compared


def test_direct_spirv_kills_at_the_end_of_main():
    """The direct module sets a flag at DEMOTE and kills at the end of main, after the outputs
    are written (as the GLSL path's ``if (xl_demoted) discard;``).  llvmpipe/lavapipe compute
    every lane of a quad on after a kill too, so a run cannot tell the two apart here: the
    module's shape is what is checked."""
    from xlate.backends.spirv import disassemble_spirv
    from xlate.backends.spirv_direct import emit_spirv
    text = disassemble_spirv(emit_spirv(api.parse(PROGRAM, filename="d.tgsi"), "vulkan").spirv)
    assert "BuiltIn HelperInvocation" in text and text.count("OpKill") == 1
    main = text[text.rindex("OpFunction "):]
    call, kill = main.index("OpFunctionCall"), main.index("OpKill")
    stores = [ln for ln in main[call:kill].splitlines() if "OpStore" in ln]
    assert stores, "the outputs are stored before the kill"



# a denormal product on every lane (llvmpipe flushes it), and the lanes with y < 0 demoted
DEMOTE_FTZ = """FRAG
DCL IN[0], GENERIC[0], PERSPECTIVE
DCL OUT[0], COLOR
DCL TEMP[0..1]
IMM[0] FLT32 {0x00400000, 0.5, 0.0, 0.0}
  0: MUL TEMP[0], IN[0], IMM[0].xxxx
  1: FSLT TEMP[1], IN[0].yyyy, IMM[0].zzzz
  2: UIF TEMP[1].xxxx :0
  3:   DEMOTE
  4: ENDIF
  5: MOV OUT[0], TEMP[0]
  6: END
"""


def test_the_probe_runs_do_not_demote():
    """The localization's probe runs leave DEMOTE out, as they leave KIL out (trace.
    without_kills): a demoted lane's outputs -- the probes with them -- are discarded at the
    end of main, so with it every demoted lane looked as if the implementation had not run
    the first instruction (an unexplained 'flow' verdict, random TGSI fragment seed 11), and
    the flushed denormals went unexplained.  Found by the generator's DEMOTE (issue 20)."""
    rep = verify_source(DEMOTE_FTZ, "demote-ftz.tgsi", lanes=256, seed=1, backend="gl",
                        runner=gl_runner("gl"))
    assert rep.status == "pass", (rep.reason, rep.localization[:2])
    assert {x["verdict"] for x in rep.localization} == {"ftz"}


def test_replay_reads_the_probe_programs_read_helper():
    """The probe programs have no DEMOTE (verify/trace.without_kills): their READ_HELPER is 0
    on every lane, and the replay runs them so -- a demoted lane's 0 there is no departure
    (generated TGSI fragment seed 1307, inputs seed 1300: ~0 in the executor, 0 probed)."""
    from test_verify_replay import _Record
    from xlate.verify.replay import ImplValues, ReplayHook
    from xlate.verify.trace import without_kills
    prog = api.parse(PROGRAM, filename="demote.tgsi")
    inputs = {"IN0": np.repeat(np.array([[1, 0, 0, 0], [0, 0, 0, 0]], np.float32), 4, axis=0)}
    helper = [k for k, ins in enumerate(prog.instructions) if ins.op == "READHELPER"][0]
    main = _Record(len(prog.instructions))
    execute(prog, inputs, lanes=8, hooks=main)
    assert main.words[helper][:, 0].tolist() == [0xFFFFFFFF] * 4 + [0] * 4
    probe = _Record(len(prog.instructions))          # what the probe compilations record
    execute(without_kills(prog), inputs, lanes=8, hooks=probe)
    assert probe.words[helper][:, 0].tolist() == [0] * 8
    hook = ReplayHook(prog, {k: ImplValues(w) for k, w in probe.words.items()}, 8, "gl")
    execute(prog, inputs, lanes=8, hooks=hook)
    assert hook.unexplained == [] and hook.adopted == {}
    # the main run's ~0 probed instead is a departure
    probed = {**probe.words, helper: main.words[helper]}
    hook = ReplayHook(prog, {k: ImplValues(w) for k, w in probed.items()}, 8, "gl")
    execute(prog, inputs, lanes=8, hooks=hook)
    assert {d.index for d in hook.unexplained} == {helper}
