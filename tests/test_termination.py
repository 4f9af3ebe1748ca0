"""How programs end, in the executor and in the translated shader (VP2 2.14.2.3, 2.14.3.7;
VP2O; VP3 2.14.5.34/43/44; FP2 3.11.4.X, 3.11.X.2/10).

* Normal end: past the last instruction, or RET with an empty call stack.
* Abnormal end: a CAL with four calls pending, RET finding a PUSHA entry, POPA on an empty
  stack or finding a return address, PUSHA on a full stack, the executed-instruction limit
  (65536), FP2's run-time nesting limits (test_arbfp_exec.py).

In every case the invocation keeps the results written so far (VP2 and FP2: "it will emit a
vertex/fragment whose attributes are taken from the final values"; the ARB vertex options call
them undefined, xlate keeps them too), ``ExecResult.abnormal`` records the abnormal ends, and
the translated GLSL stops at the same point -- run on an OpenGL implementation where one is
available (Mesa llvmpipe), through ``xlate.verify``, with the executor's results compared
component by component.  One documented divergence: the executed-instruction limit, which the
shader approximates by counting loop iterations (xlate/passes/structurize.py), is only checked
in the executor and for the guard's presence in the GLSL.
"""
from __future__ import annotations

import numpy as np
import pytest

from conftest import gl_runner

import xlate


def f(*v):
    return np.array(v, np.float32)


def _runner():
    return gl_runner("gl")


def on_gl(src: str, name: str) -> None:
    """The translated shader agrees with the executor on generated inputs."""
    from xlate.verify.core import verify_source
    rep = verify_source(src, name, lanes=64, runner=_runner())
    assert rep.status == "pass", (rep.reason, rep.differences[:3])


VP2_CAL_OVERFLOW = """!!VP2.0
MOV   o[HPOS], v[OPOS];
MOV   R0, c[0];
CAL   rec;
MOV   o[COL1], c[1];     # never reached
RET;
rec:
ADD   R0, R0, c[1];
MOV   o[COL0], R0;
CAL   rec;               # the 5th nested CAL finds 4 entries on the stack
RET;
END
"""

VP3_RET_ON_PUSHA = """!!ARBvp1.0
OPTION NV_vertex_program3;
ADDRESS A0;
MOV result.position, vertex.position;
MOV result.color, 1;
ARL A0, vertex.attrib[1];
PUSHA A0;
RET;                     # the top entry is an address vector: abnormal end
MOV result.color, 2;
END
"""

FP2_CAL_OVERFLOW = """!!ARBfp1.0
OPTION NV_fragment_program2;
TEMP a;
MOV a, 0;
CAL f;
MOV result.color.y, 1;
RET;
f:
ADD a, a, fragment.texcoord[0];
MOV result.color.x, a.x;
CAL f;
RET;
END
"""

FP2_RET_ENDS = """!!ARBfp1.0
OPTION NV_fragment_program2;
MOV result.color, fragment.texcoord[0];
RET;                     # empty call stack: the program ends normally here
MOV result.color, 7;
END
"""


def test_vp2_call_stack_overflow_keeps_the_results_and_is_recorded():
    env = np.zeros((256, 4), np.float32)
    env[1] = 1
    r = xlate.execute(xlate.parse(VP2_CAL_OVERFLOW), {"v[0]": f(1, 2, 3, 1)},
                      params={"program.env": env})
    assert r.float("o[COL0]").tolist() == [[4, 4, 4, 4]]      # four calls ran
    assert r.float("o[COL1]").tolist() == [[0, 0, 0, 1]]      # the initial value
    assert r.abnormal.tolist() == [True] and not r.steps_exceeded[0]


def test_vp2_call_stack_overflow_on_gl():
    on_gl(VP2_CAL_OVERFLOW, "cal_overflow.vp")


ARBVP2_CAL_OVERFLOW = """!!ARBvp1.0
OPTION NV_vertex_program2;
TEMP r;
MOV result.position, vertex.position;
MOV r, 0;
CAL rec;
MOV result.texcoord[0], 1;     # never reached
RET;
rec:
ADD r, r, vertex.attrib[1];
MOV result.color, r;
CAL rec;
RET;
END
"""


def test_arb_option_call_stack_overflow():
    # VP2O: the same termination; the results are "undefined" there -- xlate keeps the values
    # written so far, in the executor and in the shader alike
    prog = xlate.parse(ARBVP2_CAL_OVERFLOW)
    assert prog.call_overflow == "terminate"
    r = xlate.execute(prog, {"vertex.position": f(0, 0, 0, 1), "vertex.attrib[1]": f(1, 2, 3, 4)})
    assert r.float("result.color").tolist() == [[4, 8, 12, 16]] and r.abnormal.tolist() == [True]
    on_gl(ARBVP2_CAL_OVERFLOW, "arbvp2_cal_overflow.vp")


def test_ret_on_an_address_entry():
    r = xlate.execute(xlate.parse(VP3_RET_ON_PUSHA), {"vertex.attrib[1]": f(1, 2, 3, 4),
                                                      "vertex.position": f(0, 0, 0, 1)})
    assert r.float("result.color").tolist() == [[1, 1, 1, 1]] and r.abnormal.tolist() == [True]
    on_gl(VP3_RET_ON_PUSHA, "ret_on_pusha.vp")


@pytest.mark.parametrize("body, abnormal", [
    ("POPA A0;\n", True),                                   # empty stack
    ("CAL f;\nMOV result.color, 3;\nRET;\nf:\nPOPA A0;\n", True),   # a return address on top
    ("PUSHA A0;\n" * 5, True),                              # the fifth PUSHA: full stack
    ("PUSHA A0;\n" * 4 + "POPA A0;\n" * 4, False),
])
def test_address_stack_misuse(body, abnormal):
    src = ("!!ARBvp1.0\nOPTION NV_vertex_program3;\nADDRESS A0;\nMOV result.position, "
           "vertex.position;\nMOV result.color, 1;\n" + body + "MOV result.color, 2;\nEND\n")
    r = xlate.execute(xlate.parse(src), {"vertex.position": f(0, 0, 0, 1)}, lanes=1)
    assert r.abnormal.tolist() == [abnormal]
    assert r.float("result.color")[0, 0] == (1 if abnormal else 2)
    on_gl(src, "astack.vp")


def test_fp2_call_stack_overflow():
    r = xlate.execute(xlate.parse(FP2_CAL_OVERFLOW), {"fragment.texcoord[0]": f(2, 0, 0, 0)},
                      lanes=1)
    assert r.float("result.color")[0, :2].tolist() == [8, 0] and r.abnormal.tolist() == [True]
    on_gl(FP2_CAL_OVERFLOW, "fp2_cal_overflow.fp")


def test_ret_with_an_empty_stack_is_a_normal_end():
    r = xlate.execute(xlate.parse(FP2_RET_ENDS), {"fragment.texcoord[0]": f(1, 2, 3, 4)},
                      lanes=1)
    assert r.float("result.color").tolist() == [[1, 2, 3, 4]] and not r.abnormal[0]
    on_gl(FP2_RET_ENDS, "fp2_ret.fp")


def test_executed_instruction_limit():
    # VP2 2.14.2.3: abnormal termination after 65536 executed instructions, results kept
    src = "!!VP2.0\nMOV o[HPOS], v[0];\nloop:\nADD R0, R0, v[1];\nMOV o[TEX0], R0;\nBRA loop;\nEND"
    prog = xlate.parse(src)
    r = xlate.execute(prog, {"v[0]": f(0, 0, 0, 1), "v[1]": f(1, 1, 1, 1)})
    assert r.steps_exceeded.tolist() == [True] and r.abnormal.tolist() == [True]
    assert r.float("o[TEX0]")[0, 0] == 21845            # 1 + 3k instructions
    # a smaller watchdog of the caller's is not the program's limit: not abnormal
    r = xlate.execute(prog, {"v[0]": f(0, 0, 0, 1), "v[1]": f(1, 1, 1, 1)}, max_steps=100)
    assert r.steps_exceeded.tolist() == [True] and r.abnormal.tolist() == [False]
    # the shader bounds the loop by its iteration guard (a documented approximation)
    assert "65536" in xlate.translate(src).glsl


def test_nv4_has_no_abnormal_end():
    # GP4 issue 38: a CAL beyond the depth limit is ignored; nothing terminates abnormally
    src = ("!!NVvp4.0\nTEMP a;\nMOV a, 0;\nCAL f;\nMOV result.color, a;\nRET;\nf:\n"
           "ADD a, a, 1;\nCAL f;\nRET;\nEND\n")
    r = xlate.execute(xlate.parse(src), {}, lanes=1)
    assert r.float("result.color")[0, 0] == 4 and not r.abnormal[0]


def test_xlate_run_reports_abnormal_lanes(tmp_path, capsys):
    from xlate.cli import main
    prog = tmp_path / "t.vp"
    prog.write_text(VP2_CAL_OVERFLOW)
    (tmp_path / "in.json").write_text('{"v[0]": [1, 2, 3, 1]}')
    (tmp_path / "p.json").write_text('{"program.env": [[0, 0, 0, 0], [1, 1, 1, 1]]}')
    args = ["--inputs", str(tmp_path / "in.json"), "--params", str(tmp_path / "p.json")]
    assert main(["run", str(prog), "--lanes", "2"] + args) == 0
    assert "terminated abnormally: 2 of 2 invocations (lanes 0, 1)" in capsys.readouterr().out
    out = tmp_path / "r.json"
    assert main(["run", str(prog), "--lanes", "2", "-o", str(out)] + args) == 0
    import json
    assert json.loads(out.read_text())["abnormal"] == [True, True]
