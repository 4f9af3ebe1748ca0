"""permits.rule_ftz flushes floats, not integers: an integer result's small values are the
words of float denormals (1 is 0x00000001), and "flushing" them passed a wrong translation
(cg GTU-famicom scaleX noopt vertex, mutation campaign seed 10: ``TRUNC.U.CC HC.x, R1`` gave
1, the mutant 0, and the IF it decides was skipped; the verdict was 'ftz')."""
from __future__ import annotations

import numpy as np
import pytest

from test_verify_texture_freedoms import f32, judge
from xlate.verify import permits

#: TRUNC.U of a float to an unsigned integer (the result's words are integers)
TRUNC_U = ("!!NVfp4.0\nTEMP R1;\nTRUNC.U R1, fragment.texcoord[0];\n"
           "MOV.U result.color, R1;\nEND\n")
#: the same truncation with a float result
TRUNC_F = ("!!NVfp4.0\nTEMP R1;\nTRUNC.F R1, fragment.texcoord[0];\n"
           "MOV.F result.color, R1;\nEND\n")


def _inputs(*v):
    return {"fragment.texcoord[0]": np.tile(np.array([v], np.float32), (4, 1))}


def test_an_integer_result_is_not_flushed():
    hook = judge(TRUNC_U, 0, lambda e: np.zeros_like(e), _inputs(1.5, 3.0, 0.0, 7.9), {},
                 rule=permits.rule_ftz)
    assert hook.exe[0].tolist() == [1, 3, 0, 7]
    assert not hook.verdicts.any()


def test_a_float_result_that_is_a_denormal_may_be_flushed():
    tiny = float(np.array([5], np.uint32).view(np.float32)[0])       # 7e-45
    hook = judge(TRUNC_F, 0, lambda e: np.zeros_like(e), _inputs(tiny, 2.5, 0.0, 0.0), {},
                 rule=permits.rule_ftz)
    assert hook.exe[0].view(np.float32).tolist() == [0.0, 2.0, 0.0, 0.0]
    # trunc of a denormal is +0 already: nothing differs; the 2.0 -> 0 is no flush
    assert not hook.verdicts.any()


@pytest.mark.parametrize("operand, permitted", [(5, True), (0x00800000, False)])
def test_an_integer_result_of_a_flushed_denormal_operand_is_permitted(operand, permitted):
    """CEIL.S of a denormal: 1 unflushed, 0 from the flushed operand -- the operand's flush
    is the freedom, and the integer result is compared exactly; a normal operand has none."""
    value = float(np.array([operand], np.uint32).view(np.float32)[0])
    text = ("!!NVfp4.0\nTEMP R1;\nCEIL.S R1, fragment.texcoord[0];\n"
            "MOV.S result.color, R1;\nEND\n")
    hook = judge(text, 0, lambda e: np.zeros_like(e), _inputs(value, 0.0, 0.0, 0.0), {},
                 rule=permits.rule_ftz)
    assert hook.exe[0].tolist() == [1, 0, 0, 0]
    assert bool(hook.verdicts[:, 0].all()) == permitted


#: cg's GTU-famicom scaleX vertex program, reduced: an IF decided by TRUNC.U of a compare
SCALE_X = """!!NVvp4.0
TEMP R0, R1;
TEMP HC;
MOV.F R0, vertex.attrib[0];
MOV.F R1.x, {0};
SNE.F R1.x, vertex.attrib[1], R1;
TRUNC.U.CC HC.x, R1;
MOV.F result.position, R0;
IF    NE.x;
MUL.F result.position.x, R0, {1.0666667};
ENDIF;
MOV.F result.texcoord[0].xy, vertex.attrib[8];
END
"""


def test_a_mutant_that_skips_the_if_an_integer_truncation_decides_is_caught():
    """The campaign's case: TRUNC.U's .x -> .y; before, 'ftz' flushed that 1 and passed it.
    (The SNE is inlined into the TRUNC now, so the mutant compares the y components, of which
    R1's is never written: 0.)"""
    from conftest import gl_runner
    from xlate import api
    from xlate.backends.glsl import emit_glsl
    from xlate.verify import mutants as M
    glsl = emit_glsl(api.parse(SCALE_X, filename="scale_x.vp"), "glsl450").source
    sites = [m for m in M.candidates(glsl, ("swizzle",))["swizzle"]
             if m.after == "HC.x = xl_f2u(trunc(float(notEqual(vertex_attrib_1, R1).y)));"]
    assert len(sites) == 1, [m.after for m in M.candidates(glsl, ("swizzle",))["swizzle"]]
    pr = M.mutate_program(SCALE_X, "scale_x.vp", "test", gl_runner("gl"), per_program=1,
                          seed=10, mutations=sites)
    assert pr.status == "clean", pr.status
    assert [(r.outcome, r.status) for r in pr.mutants] == [("caught", "mismatch")], \
        [(r.outcome, r.reason) for r in pr.mutants]
