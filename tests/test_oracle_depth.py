"""The cgc oracle's ``call-depth`` cause (xlate/verify/oracle_depth.py): the executor models the
smallest call stack NV_gpu_program4 allows (4 pending calls; a CAL past it has no effect, issue
38), and the counterfactual runs a copy with a deeper one.  No GL or corpus needed."""
import numpy as np

from xlate import parse
from xlate.exec import execute
from xlate.ir.model import MAX_CALL_DEPTH
from xlate.verify.oracle_depth import DEEP_CALL_DEPTH, deeper_stack

#: main -> A -> B -> C -> D -> E: five calls pending when E's ADD runs (cgc's crt-lottes noopt
#: chain main -> Tri -> Horz3 -> Fetch -> ToLinear -> ToLinear1 has the same shape)
CHAIN = """!!NVfp4.0
TEMP R0;
MOV.F R0, {0}.x;
CAL A;
MOV.F result.color, R0;
RET;
A:
ADD.F R0.x, R0, {1}.x;
CAL B;
RET;
B:
ADD.F R0.y, R0, {1}.x;
CAL C;
RET;
C:
ADD.F R0.z, R0, {1}.x;
CAL D;
RET;
D:
ADD.F R0.w, R0, {1}.x;
CAL E;
RET;
E:
ADD.F R0.x, R0, {10}.x;
RET;
END
"""


def _color(prog):
    return execute(prog, {}, lanes=2).words("result.color").view(np.float32)


def test_deeper_stack_runs_the_call_and_leaves_the_program_alone():
    """The smallest stack ignores E's CAL (tests/test_exec_flow.py checks the limit itself);
    the copy with the deeper stack runs it, and the program keeps the smallest."""
    prog = parse(CHAIN, filename="t.fp")
    assert (prog.call_depth, MAX_CALL_DEPTH) == (4, 4)
    deep = deeper_stack(prog)
    assert deep.call_depth == DEEP_CALL_DEPTH and prog.call_depth == MAX_CALL_DEPTH
    assert _color(deep).tolist() == [[11.0, 1.0, 1.0, 1.0]] * 2
    assert _color(prog).tolist() == [[1.0, 1.0, 1.0, 1.0]] * 2


def test_no_call_no_counterfactual():
    prog = parse("!!NVfp4.0\nMOV.F result.color, {1}.x;\nEND\n", filename="t.fp")
    assert deeper_stack(prog) is None
