"""The folding counterfactual (xlate/verify/opaque.py, core._folding_shown): Mesa's GL
compiler evaluates constant expressions otherwise than it runs the same operations, and the
verdict ``implementation`` is shown by the same GLSL with no float literal known at compile
time."""
from __future__ import annotations

import pytest

from xlate.verify.opaque import opaque_literals

SHADER = """#version 450 core
// a comment with 1.0 in it
layout(location = 0) uniform vec4 program_local[8];
layout(location = 8) uniform vec4 extra;
const float k = 2.5;
precise highp vec4 R0 = vec4(0.0);

vec4 f(vec4 a) { precise vec4 r = a * 0.5 + vec4(1e3, .25, 2.0e-3, 1); return r; }

void main()
{
    const float e = 127.99609375;
    R0.xy = program_local[3].xy * -2.0;   // 4.0 in a comment stays
    R0.z = R0.x > 0.0 ? e : 0.0;
    R0.w = float(ivec2(1, 2).x) + 3.0lf;
}
"""

OPAQUE = """#version 450 core
layout(location = 9) uniform int xl_opaque_zero;
float xl_opaque(float x) { return intBitsToFloat(floatBitsToInt(x) | xl_opaque_zero); }
// a comment with 1.0 in it
layout(location = 0) uniform vec4 program_local[8];
layout(location = 8) uniform vec4 extra;
const float k = 2.5;
precise highp vec4 R0 = vec4(0.0);

vec4 f(vec4 a) { precise vec4 r = a * xl_opaque(0.5) + vec4(xl_opaque(1e3), \
xl_opaque(.25), xl_opaque(2.0e-3), 1); return r; }

void main()
{
    const float e = 127.99609375;
    R0.xy = program_local[3].xy * -xl_opaque(2.0);   // 4.0 in a comment stays
    R0.z = R0.x > xl_opaque(0.0) ? e : xl_opaque(0.0);
    R0.w = float(ivec2(1, 2).x) + 3.0lf;
}
"""


def test_float_literals_of_function_bodies_are_read_through_the_opaque_zero():
    """Function bodies only; ``const`` lines, globals, comments, integers and a double's
    literal keep theirs; the uniform's location follows the last one the shader uses."""
    assert opaque_literals(SHADER) == OPAQUE


def test_the_opaque_text_compiles_with_glslang():
    from xlate.backends import spirv as sp
    try:
        sp.compile_glsl(opaque_literals(SHADER.replace("+ 3.0lf", "")), "frag",
                        target="opengl")
    except sp.ToolchainUnavailable as e:
        pytest.skip(str(e))


#: generated NV4 fragment seed 1216 reduced: SFL leaves R1 = 0, so the RFL's second operand
#: is the constant vec4(0.0) in the GLSL; Mesa's GL compiler folds the reflection to +0.0
#: and 1.0 / -0.0 to 0.0, where the operations at run time give -0.0 and +Inf (IEEE, the
#: executor, lavapipe)
REFLECT_ZERO = """!!NVfp4.0
PARAM c[8] = { program.local[0..7] };
TEMP R1, R4;
SFL.F R1, R1, R1;
RFL.F R4, -c[7], R1.ywxx;
RCP.F R4.z, -R4.z;
MOV.F result.color, R4;
END
"""


def test_constants_the_compiler_folds_otherwise_are_shown_by_the_opaque_run(monkeypatch):
    """The program passes as ``implementation``, shown; without the counterfactual it is the
    mismatch at the RCP that generated NV4 fragment seed 1216 was."""
    from conftest import gl_runner
    from xlate.verify import core
    from xlate.verify.core import verify_source
    rep = verify_source(REFLECT_ZERO, "reflect.fp", lanes=64, seed=1, runner=gl_runner("gl"))
    assert rep.status == "pass", rep.reason
    assert rep.reason.startswith(
        "differences explained: implementation (shown: the same GLSL with every float "
        "literal read through a uniform zero the compiler cannot see"), rep.reason
    assert "agrees bit for bit" in rep.reason
    monkeypatch.setattr(core, "_folding_shown", lambda *a, **k: False)
    rep = verify_source(REFLECT_ZERO, "reflect.fp", lanes=64, seed=1, runner=gl_runner("gl"))
    assert (rep.status, rep.reason) == (
        "mismatch", "localized: divergence at 'RCP.F R4.z, -R4.z' (line 6)")


class _Replace:
    def __init__(self, old: str, new: str):
        self.old, self.new = old, new

    def apply(self, glsl: str) -> str:
        return glsl.replace(self.old, self.new)


@pytest.mark.parametrize("old, new", [
    ("result_color0 = R4;", "result_color0 = R4.zyxw;"),   # a swizzle changed
    ("1.0 / -R4.z", "1.0 / R4.z"),                         # the sign of the divisor
    ("1.0 / -R4.z", "1.0 / (-R4.z + 1.0)"),                # an operation added
])
def test_a_wrong_translation_stays_a_mismatch_in_the_opaque_run(old, new):
    """The mutation is made to the text the opaque run compiles too (the mutating runner
    changes the text before the literals are made opaque), so it is no constant to fold."""
    from conftest import gl_runner
    from xlate.verify.core import verify_source
    from xlate.verify.mutants_glsl import MutatingRunner
    runner = MutatingRunner(gl_runner("gl"), _Replace(old, new))
    rep = verify_source(REFLECT_ZERO, "reflect.fp", lanes=64, seed=1, runner=runner)
    assert runner.applied > 0
    assert rep.status == "mismatch", rep.reason
    assert any("folding counterfactual" in n for n in rep.notes), rep.notes
