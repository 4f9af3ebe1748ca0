"""Arithmetic is not inlined into the arguments of a helper function (expressions.takes_arithmetic).

glslang carries ``precise`` into a call's arguments (NoContraction on the argument's
operations), Mesa's GLSL compiler does not: it inlines the helper, the argument becomes a
parameter temporary that is not precise, and NIR folds ``w * (-b + a) + b`` (a lerp) however it
likes.  On llvmpipe ``xl_cmp(w, w * (-b + a) + b, b)`` came out 1 ulp off where the same
expression written as a statement into a precise register was exact (cg arbfp1 xbr-lv3-pass1,
inputs seed 21: a mismatch at its CMP once sized helper overloads let the MAD be inlined).  So
a value with arithmetic in it is kept in its register when its reader's ops.txt row is a
helper call: the reduced program below passes, and with the MAD inlined into the call it is a
mismatch."""
from __future__ import annotations

import pytest

from xlate import api
from xlate.backends.glsl import emit_glsl

LERP_THEN_CMP = """!!ARBfp1.0
TEMP R0, R1, R3;
TEX R1, fragment.texcoord[1], texture[0], 2D;
MOV R0, fragment.texcoord[0];
ADD R0.xyz, -R1, R0;
MAD R0.xyz, fragment.texcoord[2].w, R0, R1;
CMP R3.xyz, fragment.texcoord[3].w, R0, R1;
MOV R3.w, R1.w;
MOV result.color, R3;
END
"""

BAKED = ("    R0.xyz = fragment_texcoord_2.www * (-R1.xyz + R0.xyz) + R1.xyz;\n"
         "    R3.xyz = xl_cmp(fragment_texcoord_3.www, R0.xyz, R1.xyz);\n")
INLINED = ("    R3.xyz = xl_cmp(fragment_texcoord_3.www, fragment_texcoord_2.www * (-R1.xyz + "
           "R0.xyz) + R1.xyz, R1.xyz);\n")


def test_a_helper_call_takes_its_arithmetic_from_a_register():
    glsl = emit_glsl(api.parse(LERP_THEN_CMP, filename="t.fp"), "glsl450").source
    assert BAKED in glsl
    # an operator or a built-in still takes it inline ('result_color0 = R3;' reads no
    # arithmetic; the lookup's coordinate is an input)
    assert "    R1 = texture(texture0, fragment_texcoord_1.xy);\n" in glsl


class _Inlined:
    """The MAD printed inside the helper call, as before (in the main compilation only)."""

    def apply(self, glsl: str) -> str:
        return glsl.replace(BAKED, INLINED)


@pytest.mark.parametrize("seed", [1, 2])
def test_the_lerp_kept_in_its_register_is_exact_on_llvmpipe(seed):
    from conftest import gl_runner
    from xlate.verify.core import verify_source
    from xlate.verify.mutants_glsl import MutatingRunner
    runner = gl_runner("gl")
    rep = verify_source(LERP_THEN_CMP, "lerp.fp", lanes=1024, seed=seed, runner=runner)
    assert rep.status == "pass", rep.reason
    inlined = MutatingRunner(runner, _Inlined())
    rep = verify_source(LERP_THEN_CMP, "lerp.fp", lanes=1024, seed=seed, runner=inlined)
    assert inlined.applied > 0
    assert (rep.status, rep.reason) == (
        "mismatch", "localized: divergence at 'CMP.F R3.xyz, fragment.texcoord[3].w, R0, R1' "
        "(line 7)"), rep.reason
