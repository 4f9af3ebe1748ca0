"""Instructions that run more than once per invocation (a loop body, a subroutine called twice):
the replay judges every pass with the implementation's value of that pass, condition tests
included, and takes each value from a compilation that ran the program as the main one did
(xlate/verify/replay.py: _probe_passes, consistent_values; xlate/verify/trace.py)."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

import xlate
from xlate.verify import replay as R, trace
from xlate.verify.core import verify_source

from test_verify_cases import runner_or_skip, with_inputs


class Editing:
    """A runner that edits every GLSL text it runs (the main run and every probe compilation
    alike): a wrong translation on purpose."""

    def __init__(self, inner, old: str, new: str):
        self.inner, self.old, self.new = inner, old, new

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def run(self, stage, glsl, reflection, lanes, **kw):
        assert self.old in glsl, glsl
        return self.inner.run(stage, glsl.replace(self.old, self.new), reflection, lanes, **kw)


LOOP = ("!!NVvp4.0\nTEMP t;\nMOV t, {0, 0, 0, 0};\nREP {5};\n  ADD t, t, {1.5, 2, 3, 4};\n"
        "ENDREP;\nMOV result.texcoord[0], t;\nMOV result.position, vertex.attrib[0];\nEND\n")
CALLED_TWICE = ("!!NVvp4.0\nTEMP t;\nMOV t, {0, 0, 0, 0};\nCAL f;\nCAL f;\n"
                "MOV result.texcoord[0], t;\nMOV result.position, vertex.attrib[0];\nRET;\n"
                "f:\nADD t, t, {1.5, 2, 3, 4};\nRET;\nEND\n")
ADD_STATEMENT = "t = t + vec4(1.5, 2.0, 3.0, 4.0);"
#: the ADD is wrong on its second pass only (t.x is 1.5 when that pass starts): w gets 4.5
SECOND_PASS_WRONG = ("t = t + (t.x == 1.5 ? vec4(1.5, 2.0, 3.0, 4.5) : "
                     "vec4(1.5, 2.0, 3.0, 4.0));")


@pytest.mark.parametrize("text,line", [(LOOP, 5), (CALLED_TWICE, 10)], ids=["loop", "called-twice"])
def test_a_wrong_second_pass_is_localized_to_that_pass(text, line):
    runner = runner_or_skip("gl")
    rep = verify_source(text, "twice.vp", lanes=8, seed=1,
                        runner=Editing(runner, ADD_STATEMENT, SECOND_PASS_WRONG))
    assert rep.status == "mismatch", rep.reason
    first = rep.localization[0]
    assert (first["verdict"], first["instruction"]["op"], first["instruction"]["line"],
            first["pass"], first["components"]) == ("divergence", "ADD", line, 2, "w")
    assert first["executor"][3].startswith("8.0/") and \
        first["implementation"][3].startswith("8.5/")
    # the same program translated as it is passes: the edit is the only difference
    assert verify_source(text, "twice.vp", lanes=8, seed=1, runner=runner).status == "pass"


#: a float IF of a denormal constant inside a loop (tgsi tess_evaluation seed 168, reduced)
IF_DENORMAL_IN_LOOP = """VERT
DCL IN[0]
DCL OUT[0], POSITION
DCL OUT[1], GENERIC[0]
DCL CONST[0]
DCL TEMP[0..1]
IMM[0] INT32 {3, -1, 0, 1}
IMM[1] FLT32 {1.0, 0.0, 0.0, 0.0}
  0: MOV TEMP[0], IMM[1].yyyy
  1: MOV TEMP[1].x, IMM[0].xxxx
  2: BGNLOOP
  3:   ISGE TEMP[1].y, IMM[0].zzzz, TEMP[1].xxxx
  4:   UIF TEMP[1].yyyy
  5:     BRK
  6:   ENDIF
  7:   UADD TEMP[1].x, TEMP[1].xxxx, IMM[0].yyyy
  8:   IF CONST[0].xxxx
  9:     BRK
 10:   ENDIF
 11:   ADD TEMP[0].x, TEMP[0].xxxx, IMM[1].xxxx
 12: ENDLOOP
 13: MOV OUT[0], IN[0]
 14: MOV OUT[1], TEMP[0]
 15: END
"""


def test_condition_test_of_each_pass_is_judged(monkeypatch):
    """IF CONST[0].x with a denormal there: the executor (IEEE) leaves the loop on its first
    pass; llvmpipe flushes the denormal (GLSL 4.50 §4.7.1) and runs all three.  The test of
    pass 1 must be compared with the implementation's outcome *of pass 1* -- the last-pass
    probe holds pass 3's -- and then the flushed value's flags give that outcome (verdict
    ftz).  Before the tests were probed per pass this was an unexplained ISSG/MOV downstream."""
    runner = runner_or_skip("gl")
    with_inputs(monkeypatch, {"program.local[0]": [3, 0, 0, 0]})
    rep = verify_source(IF_DENORMAL_IN_LOOP, "if.tgsi", lanes=16, seed=1, runner=runner)
    assert rep.status == "pass", (rep.reason, rep.localization[:2])
    if rep.total_differences or rep.localization:      # an implementation that flushes
        first = rep.localization[0]
        assert (first["verdict"], first["instruction"]["op"], first["pass"]) == ("ftz", "IF", 1)
    # a normal tiny value is no denormal: both sides leave the loop at once, nothing differs
    with_inputs(monkeypatch, {"program.local[0]": [0x00800000, 0, 0, 0]})
    rep = verify_source(IF_DENORMAL_IN_LOOP, "if.tgsi", lanes=16, seed=1, runner=runner)
    assert rep.status == "pass" and not rep.localization, rep.reason


def test_a_wrong_test_outcome_in_a_later_pass_is_a_mismatch():
    """The per-pass test probes must not explain a branch the translation takes wrongly: with
    a zero in place of the constant the loop runs three passes; the GLSL edited to leave it
    after the second adds 2, not 3 -- the unflushed test of pass 3 is no denormal's."""
    from xlate.backends.glsl import emit_glsl
    runner = runner_or_skip("gl")
    text = IF_DENORMAL_IN_LOOP.replace("CONST[0].xxxx", "IMM[1].yyyy")
    src = emit_glsl(xlate.parse(text)).source
    stmt = next(ln.strip() for ln in src.splitlines() if "+ 1.0" in ln)
    target = stmt.split("=")[0].strip()
    wrong = f"{stmt} if ({target} == 2.0) break;"
    rep = verify_source(text, "brk.tgsi", lanes=8, seed=1, runner=Editing(runner, stmt, wrong))
    assert rep.status == "mismatch", rep.reason
    assert rep.localization and rep.localization[0]["verdict"] in ("divergence", "flow", "cc",
                                                                   "interface")


MULHI_IN_LOOP = """VERT
DCL IN[0]
DCL OUT[0], POSITION
DCL OUT[1], GENERIC[0]
DCL TEMP[0..2]
IMM[0] INT32 {-1, 16, 7, 3}
IMM[1] INT32 {0, 1, 3, -1}
  0: MOV TEMP[0], IMM[1]
  1: MOV TEMP[2].x, IMM[1].zzzz
  2: BGNLOOP
  3:   ISGE TEMP[2].y, IMM[1].xxxx, TEMP[2].xxxx
  4:   UIF TEMP[2].yyyy
  5:     BRK
  6:   ENDIF
  7:   UADD TEMP[2].x, TEMP[2].xxxx, IMM[1].wwww
  8:   UMUL_HI TEMP[1], IMM[0], TEMP[0]
  9: ENDLOOP
 10: MOV OUT[0], IN[0]
 11: MOV OUT[1], TEMP[1]
 12: END
"""


def test_compile_time_operands_inside_a_loop():
    """trace._compile_time_sources: TEMP[0] set from an immediate before the loop, and written
    nowhere after, is known to the compiler inside the loop (Mesa propagates it: tgsi fragment
    seed 69, UMUL_HI in nested loops); a write in the loop body or in a subroutine makes it
    unknown; a PARAM bound to program.local is no literal."""
    prog = xlate.parse(MULHI_IN_LOOP)
    k = next(i for i, ins in enumerate(prog.instructions) if ins.mul_mode == "HI")
    assert trace._compile_time_sources(prog, k) == [True, True]
    written = MULHI_IN_LOOP.replace("  9: ENDLOOP", "     MOV TEMP[0].y, IN[0].xxxx\n  9: ENDLOOP")
    prog = xlate.parse(written)
    k = next(i for i, ins in enumerate(prog.instructions) if ins.mul_mode == "HI")
    assert trace._compile_time_sources(prog, k) == [True, False]
    arb = xlate.parse("!!ARBvp1.0\nPARAM c = {1, 2, 3, 4};\nPARAM d = program.local[0];\n"
                      "ADD result.position, c, d;\nEND\n")
    assert trace._compile_time_sources(arb, 0) == [True, False]


def test_mulhi_of_constants_in_a_loop_is_the_shown_folding_defect():
    """The pinned Mesa defect (test_verify_cases.py::test_mulhi_of_constants) reached through
    a copy into a loop: adopted as 'implementation' only because the same GLSL through SPIR-V
    reproduces the executor (replayed with its own values there)."""
    runner = runner_or_skip("gl")
    rep = verify_source(MULHI_IN_LOOP, "mulhi.tgsi", lanes=16, seed=1, runner=runner)
    assert rep.status == "pass", (rep.reason, rep.localization[:2])
    if any(x.get("verdict") == "implementation" for x in rep.localization):
        assert any(n.startswith("implementation: the same GLSL through SPIR-V") for n in rep.notes)
    # a wrong translation of that instruction is not excused by the defect
    from xlate.backends.glsl import emit_glsl
    src = emit_glsl(xlate.parse(MULHI_IN_LOOP)).source
    line = next(ln.strip() for ln in src.splitlines() if "= xl_mulhi(uvec4" in ln)
    wrong = line.replace("3u), TEMP0", "4u), TEMP0")          # hi(4 * 0xffffffff) = 3, not 2
    assert wrong != line
    rep = verify_source(MULHI_IN_LOOP, "mulhi.tgsi", lanes=16, seed=1,
                        runner=Editing(runner, line, wrong))
    assert rep.status == "mismatch", rep.reason


# ---- consistent_values: a value is taken from a compilation that ran as the main one -----------

def test_values_are_taken_from_compilations_that_agree_with_the_main_one(monkeypatch):
    """A batch whose own outputs differ from the main compilation's on a needed lane has its
    values probed again alone; the lone compilation's words replace them on the lanes where it
    agrees with the main one, and nowhere else; the lookups whose LOD GLSL leaves undefined
    are probed again alone even where their batch agreed."""
    prog = xlate.parse("!!NVfp4.0\nTEMP t, c;\nMOV.CC c, fragment.texcoord[1];\nIF GT.x;\n"
                       "TEX t, fragment.texcoord[0], texture[0], 2D;\nENDIF;\n"
                       "ADD t, t, c;\nMOV result.color, t;\nEND\n")
    tex = next(k for k, ins in enumerate(prog.instructions) if ins.op == "TEX")
    add = next(k for k, ins in enumerate(prog.instructions) if ins.op == "ADD")
    assert tex in trace._undefined_derivatives(prog)
    lanes = 4
    main = SimpleNamespace(outputs={"o": np.zeros((lanes, 4), np.uint32)}, killed=None)
    batch = SimpleNamespace(outputs={"o": np.array([[0] * 4, [9] * 4, [0] * 4, [9] * 4],
                                                   np.uint32)})
    lone = SimpleNamespace(outputs={"o": np.array([[0] * 4, [0] * 4, [0] * 4, [7] * 4],
                                                  np.uint32)})
    events = [ev for ev in trace._events(prog) if ev[0] == "value"]
    i_add = next(i for i, ev in enumerate(events) if ev[1] == add)
    i_tex = next(i for i, ev in enumerate(events) if ev[1] == tex)
    values = {add: R.ImplValues(np.full((lanes, 4), 1, np.uint32)),
              tex: R.ImplValues(np.full((lanes, 4), 1, np.uint32))}
    log = [("value", i_add, add, None, batch), ("value", i_tex, tex, None, main)]
    asked = []

    def probe(program, gen, runner, n, evs, which, nth=None, origins=None, batch=None):
        asked.append((evs[which[0]][1], batch))
        origins[which[0]] = lone
        return {}, {which[0]: np.full((lanes, 4), 5, np.uint32)}
    monkeypatch.setattr(trace, "_probe_events", probe)
    assert R.consistent_values(prog, None, None, lanes, main, log, values, {}, {1, 2, 3})
    assert sorted(asked) == sorted([(add, 1), (tex, 1)])
    # ADD: lane 1 replaced (batch disagreed, lone agrees); lane 3: the lone one disagrees
    # too; lanes 0 and 2: the batch agreed (lane 0 is not needed either)
    assert values[add].last[:, 0].tolist() == [1, 5, 1, 1]
    # TEX (LOD undefined): every needed lane where the lone compilation agrees
    assert values[tex].last[:, 0].tolist() == [1, 5, 5, 1]
    # nothing needed, nothing probed
    asked.clear()
    assert not R.consistent_values(prog, None, None, lanes, main, log, values, {}, set())
    assert asked == []


def test_subroutine_called_twice_after_a_lookup_in_divergent_flow():
    """cg crt-ddt.fp (NV4, -inline none): POW in a subroutine called three times, its second
    call reading a TEX whose derivatives are undefined (inside an IF).  The batch of probes
    around that TEX compiled it to another LOD than the main compilation and every other
    batch did; the replay mixed the two runs and called pass 2 of the POW a divergence.  Taken
    from compilations that agree with the main one, every value is explained by a shown rule
    (seed 3, 256 lanes: the campaign's inputs)."""
    from conftest import SHARED_CORPUS, shared_corpus_or_skip
    name = "cg/gp4fp/test__lab__ddt__crt-ddt.cg__main_fragment__noopt.fp"
    shared_corpus_or_skip(name)
    runner = runner_or_skip("gl")
    path = SHARED_CORPUS / name
    rep = verify_source(path.read_text(), str(path), lanes=256, seed=3, runner=runner)
    assert rep.status == "pass", (rep.reason, rep.localization[:2])
    assert {x["verdict"] for x in rep.localization} <= {"boundary", "lod", "tolerance"}
