"""Componentwise helpers written at the size of the write (backends/glsl/tables.py
``sized_overload``, instructions.py ``sized_call`` and ``result_steps``): ``R6.xyz =
xl_max(R2.xyz, R3.xyz);`` with ``vec3 xl_max(vec3 a, vec3 b)``, not ``xl_max(R2, R3).xyz``;
saturation and the fp16/fx12 conversions at that size too.  Each overload calls the
four-component helper, and the programs below are verified against the executor on the
implementation."""
from __future__ import annotations

import numpy as np
import pytest

import xlate
from conftest import gl_runner
from test_exec_alu import run
from xlate.ir.ops import OPCODES
from xlate.backends.glsl.tables import helper_library, sized_overload
from xlate.verify.core import verify_source

#: float, integer and saturated componentwise helpers at sizes 1 to 3, a saturated scalar
#: (DP3), and the operand types that pick an overload (MIN/MAX.S, FLR.S)
NV4 = """!!NVvp4.0
PARAM p[4] = { program.local[0..3] };
INT PARAM q[2] = { program.local[4..5] };
TEMP a, b, c;
INT TEMP i;
MOV result.position, vertex.position;
MOV a, p[3];
MAX a.x, p[0].y, p[1].z;
MIN a.yz, p[0], p[1].wxyz;
CMP.SAT a.w, p[2].x, p[0].z, p[1].w;
MOV result.attrib[0], a;
MOV b, p[0];
FRC b.xyz, p[2];
SSG b.w, p[3].x;
MOV result.attrib[1], b;
MOV c, p[1];
LRP.SAT c.xy, p[0], p[1], p[2];
DP3.SAT c.z, p[0], p[1];
MUL.SSAT c.w, p[0].x, p[3].y;
MOV result.attrib[2], c;
FLR.S i.xy, p[3];
MAX.S i.z, q[0].x, q[1].y;
MIN.S i.w, q[0], q[1];
MOV.S result.attrib[3], i;
END
"""

#: FP1.0's fp16 and fx12 result conversions (H and X suffixes) at sizes 1 to 3, and set-on
#: comparisons, whose 0.0 and 1.0 need neither saturation nor a conversion
FP1 = """!!FP1.0
MOVR R2, f[TEX1];
MOVR R3, f[TEX2];
MULH H0.xy, f[TEX0], R2;
ADDX H0.z, f[TEX0].x, R2.y;
MAXH_SAT H0.w, f[TEX0].z, R2.w;
FRCX R1.xyz, R3;
MINH R1.w, f[TEX0].x, R3.y;
SLTH H1.zw, R3.xyxy, 0.5;
SGEX_SAT H1.x, R2.z, R3.w;
SNER_SAT R4.y, R2.x, R3.x;
MOVR R4.xzw, 0.25;
MULR R1, R1, R4;
MADR o[COLR], H0, R1, H1;
END
"""


def _main(glsl: str) -> str:
    return glsl[glsl.index("void xl_main()"):]


def test_a_masked_helper_is_called_on_the_written_components():
    glsl = xlate.translate(NV4).glsl
    body = _main(glsl)
    for line in ["    a.x = xl_max(program_local[0].y, program_local[1].z);",
                 "    a.yz = xl_min(program_local[0].yz, program_local[1].xy);",
                 "    a.w = xl_sat(xl_cmp(program_local[2].x, program_local[0].z, program_local[1].w));",
                 "    b.xyz = xl_frc(program_local[2].xyz);",
                 "    b.w = xl_ssg(program_local[3].x);",
                 "    c.xy = xl_sat(xl_lrp(program_local[0].xy, program_local[1].xy, program_local[2].xy));",
                 "    c.z = xl_sat(xl_dp3(program_local[0], program_local[1]));",
                 "    c.w = xl_ssat(program_local[0].x * program_local[3].y);",
                 "    i.xy = xl_f2i(floor(program_local[3].xy));",
                 "    i.z = xl_max(floatBitsToInt(program_local[4].x), floatBitsToInt(program_local[5].y));"]:
        assert line + "\n" in body, line
    # the overloads of the sizes used, each once, after the helpers they call
    for overload in ["float xl_max(float a, float b) { return xl_max(vec4(a), vec4(b)).x; }",
                     "vec2 xl_min(vec2 a, vec2 b) { return xl_min(a.xyxy, b.xyxy).xy; }",
                     "vec3 xl_frc(vec3 a) { return xl_frc(a.xyzz).xyz; }",
                     "int xl_max(int a, int b) { return xl_max(ivec4(a), ivec4(b)).x; }",
                     "ivec2 xl_f2i(vec2 x) { return xl_f2i(x.xyxy).xy; }",
                     "float xl_sat(float x) { return xl_sat(vec4(x)).x; }",
                     "vec2 xl_sat(vec2 x) { return xl_sat(x.xyxy).xy; }"]:
        assert glsl.count(overload + "\n") == 1, overload
        name = overload.split("(")[0].split()[1]
        assert glsl.index(f"vec4 {name}(") < glsl.index(overload)
    assert "vec3 xl_max(" not in glsl and "vec2 xl_max(" not in glsl    # unused sizes: none
    assert ").x;" not in body and ").xy" not in body and "xxxx" not in body


def test_the_precision_conversions_take_the_written_size():
    body = _main(xlate.translate(FP1).glsl)
    assert "    H0.xy = xl_fp16(fragment_texcoord_0.xy * R2.xy);\n" in body
    assert "    H0.w = xl_fp16(xl_sat(xl_maxn(fragment_texcoord_0.z, R2.w)));\n" in body
    assert "    R1.xyz = xl_fx12(xl_frc(R3.xyz));\n" in body
    # set-ons: 0.0 and 1.0 are what saturation and both conversions give them back
    assert "    H1.zw = vec2(lessThan(R3.xy, vec2(0.5)));\n" in body
    assert "    H1.x = float(R2.z >= R3.w);\n" in body
    assert "    R4.y = float(R2.x != R3.x);\n" in body


@pytest.mark.parametrize("op", ["SEQ", "SGE", "SGT", "SLE", "SLT", "SNE", "SFL", "STR"])
def test_a_boolean_result_is_zero_or_one(op):
    """ir.ops.BOOLEAN_RESULTS, which lets the backend leave out saturation and the precision
    conversions: the executor's set-on results over special operands are 0.0 or 1.0 (+0.0)."""
    values = [float("nan"), -float("nan"), float("inf"), -float("inf"), 0.0, -0.0, 1e-45, -2.5, 3.0]
    a = np.array([[x, y, x, y] for x in values for y in values], np.float32)
    b = np.array([[y, x, x, y] for x in values for y in values], np.float32)
    out = run(f"{op}.F o, a, b", a=a, b=b).float("o")
    assert OPCODES[op].boolean_result
    assert set(np.unique(out.view(np.uint32)).tolist()) <= {0, 0x3F800000}


def test_sized_overloads_of_the_helper_library():
    lib = helper_library()
    assert sized_overload(lib["idiv"][0], "xl_div", ("ivec4", "int"), 1) == \
        "int xl_div(int a, int b) { return xl_div(ivec4(a), b).x; }"
    assert sized_overload(lib["setn"][0], "xl_setn", ("bvec4", "vec4", "vec4"), 3) == \
        "vec3 xl_setn(bvec3 r, vec3 a, vec3 b) { return xl_setn(r.xyzz, a.xyzz, b.xyzz).xyz; }"
    # the argument types pick the overload: SAD.S reads ints and adds an unsigned
    assert sized_overload(lib["sad"][0], "xl_sad", ("ivec4", "ivec4", "uvec4"), 2) == \
        "ivec2 xl_sad(ivec2 a, ivec2 b, uvec2 c) { return xl_sad(a.xyxy, b.xyxy, c.xyxy).xy; }"
    assert sized_overload(lib["minmax@glsl330"][0], "xl_min", ("uvec4", "uvec4"), 1) == \
        "uint xl_min(uint a, uint b) { return xl_min(uvec4(a), uvec4(b)).x; }"
    # written by hand (fp16's float overload), or four components: nothing to add
    assert sized_overload(lib["fp16"][0], "xl_fp16", ("vec4",), 1) == ""
    assert sized_overload(lib["minmax"][0], "xl_max", ("vec4", "vec4"), 4) == ""
    # no single four-component overload: not sized (the caller keeps the swizzled form)
    assert sized_overload(lib["minmax"][0], "xl_max", (None, None), 2) is None
    assert sized_overload(lib["dot"][0], "xl_dp3", ("vec4", "vec4"), 1) is None


@pytest.mark.parametrize("backend", ["gl", "vulkan"])
@pytest.mark.parametrize("name,text", [("sized.vp", NV4), ("sized.fp", FP1)], ids=["nv4", "fp1"])
def test_the_sized_helpers_verify(backend, name, text):
    runner = gl_runner(backend)
    # (via="glsl": on Vulkan the GLSL's SPIR-V runs, not the direct path's module)
    rep = verify_source(text, name, lanes=256, seed=11, backend=backend, runner=runner, via="glsl")
    assert rep.status == "pass", (rep.reason, rep.localization[:2])
    assert not rep.notes or all("explained" not in n for n in rep.notes), rep.notes
