"""NV_vertex_program family (``!!VP1.0``, ``!!VP1.1``, ``!!VSP1.0``, ``!!VP2.0``): the IR each
construct becomes, the worked examples of nv_dialects.md 11.1-11.2 through ``xlate.execute``
with the stated values, and the per-dialect numerics (each test cites the spec section)."""
from __future__ import annotations

import numpy as np
import pytest

import xlate
from xlate.ir.model import CCKind, CondTest, DataType, Index, RegKind
from xlate.ir.printer import instruction_text
from xlate.ir.validate import validate

NAN, INF = float("nan"), float("inf")


def f(*v):
    return np.array(v, np.float32)


def params(n: int = 96, **rows) -> dict:
    c = np.zeros((n, 4), np.float32)
    for k, v in rows.items():
        c[int(k[1:])] = v
    return {"program.env": c}


def ir(src: str) -> list[str]:
    prog = xlate.parse(src)
    validate(prog)
    return [instruction_text(i, prog) for i in prog.instructions]


def body(src: str) -> list[str]:
    """IR of the program's own instructions (without the result-initialisation prologue)."""
    prog = xlate.parse(src)
    validate(prog)
    return [instruction_text(i, prog) for i in prog.instructions
            if not i.text.startswith("(results start")]


# ---- nv_dialects.md 11.1 VP1-A -------------------------------------------------------------------

VP1_A = """!!VP1.0
# c[0..3]  modelview-projection rows
# c[4]     light direction L, c[5] half vector H (object space, normalized)
# c[6].w   specular exponent, c[7] specular color
# c[8..11] diffuse palette; v[TEX1].x selects the entry
DP4   o[HPOS].x, c[0], v[OPOS];
DP4   o[HPOS].y, c[1], v[OPOS];
DP4   o[HPOS].z, c[2], v[OPOS];
DP4   o[HPOS].w, c[3], v[OPOS];
DP3   R0.x, v[NRML], c[4];
DP3   R0.y, v[NRML], c[5];
MOV   R0.w, c[6].w;
LIT   R1, R0;
ARL   A0.x, v[TEX1].x;
MUL   R2, c[A0.x + 8], R1.y;
MAD   o[COL0], c[7], R1.z, R2;
MOV   o[TEX0], v[TEX0];
END
"""


def vp1a_run(tex1x: float):
    prog = xlate.parse(VP1_A)
    p = params(c0=[1, 0, 0, 0], c1=[0, 1, 0, 0], c2=[0, 0, 1, 0], c3=[0, 0, 0, 1], c4=[0, 0, 1, 0],
               c5=[0, 0.6, 0.8, 0], c6=[0, 0, 0, 2], c7=[1, 1, 1, 0], c10=[0, 1, 0, 1])
    ins = {"v[0]": f(1, 2, 3, 1), "v[2]": f(0, 0, 1, 1), "v[8]": f(0.25, 0.5, 0, 1),
           "v[9]": f(tex1x, 0, 0, 1)}
    return prog, xlate.execute(prog, ins, params=p)


def test_vp1_a_lighting_relative_addressing_and_lit():
    prog, r = vp1a_run(2.7)
    assert r.float("o[HPOS]").tolist() == [[1, 2, 3, 1]]
    np.testing.assert_allclose(r.float("o[COL0]")[0], [0.64, 1.64, 0.64, 1], rtol=2e-3)
    assert r.float("o[TEX0]").tolist() == [[0.25, 0.5, 0, 1]]
    # the results the program names start as (0,0,0,1) (VP1 2.14.1.5); ARL floors (2.7 -> 2)
    assert "FLR.S A0.x, v[9].x" in ir(VP1_A)


def test_vp1_a_negative_index_and_out_of_range_read():
    # ARL floors: -0.5 -> -1 -> c[7]; VP1 2.14.1.9: relative reads outside 0..95 read (0,0,0,0)
    np.testing.assert_allclose(vp1a_run(-0.5)[1].float("o[COL0]")[0], [1.64, 1.64, 1.64, 0],
                               rtol=2e-3)
    np.testing.assert_allclose(vp1a_run(100)[1].float("o[COL0]")[0], [0.64, 0.64, 0.64, 0],
                               rtol=2e-3)
    np.testing.assert_allclose(vp1a_run(-200)[1].float("o[COL0]")[0], [0.64, 0.64, 0.64, 0],
                               rtol=2e-3)


def test_vp1_relative_reads_use_a_guarded_parameter_array():
    prog = xlate.parse(VP1_A)
    c = prog.registers["c"]
    assert c.kind == RegKind.PARAM and c.size == 98
    assert c.bindings[0] is None and c.bindings[97] is None          # zero guards
    assert c.bindings[1].text() == "program.env[0]" and c.bindings[96].text() == "program.env[95]"
    mul = next(i for i in prog.instructions if i.op == "MUL")
    assert mul.srcs[0].index == Index(9, "A0", 0)                      # c[A0.x + 8] -> element 9
    assert prog.registers["A0"].kind == RegKind.TEMP and prog.registers["A0"].dtype == DataType.INT


def test_unwritten_results_start_as_0001():
    src = VP1_A.replace("MOV   o[TEX0], v[TEX0];", "MOV   o[TEX1].x, v[TEX0];")
    prog = xlate.parse(src)
    r = xlate.execute(prog, {"v[0]": f(1, 2, 3, 1), "v[2]": f(0, 0, 1, 1), "v[8]": f(5, 6, 7, 8),
                             "v[9]": f(0, 0, 0, 1)}, params=params())
    assert r.float("o[TEX1]").tolist() == [[5, 0, 0, 1]]


# ---- VP1-B: VP1.1, position invariance, DPH/ABS/RCC/SUB -------------------------------------------

VP1_B = """!!VP1.1
OPTION NV_position_invariant;
# c[12] = plane (a,b,c,d), c[13].x = fog scale
DPH   R0.x, v[OPOS], c[12];      # signed distance a*x + b*y + c*z + d
ABS   R0.y, R0.x;
RCC   R0.z, R0.y;                # 1/|d| clamped to [2^-64, 2^64]
MUL   o[FOGC].x, R0.y, c[13].x;
MOV   o[TEX0], R0.z;
SUB   o[COL0], v[COL0], R0.z;
END
"""


def test_vp1_b_position_invariant_dph_abs_rcc_sub():
    prog = xlate.parse(VP1_B)
    p = params(c12=[0, 0, 1, -2], c13=[0.5, 0, 0, 0])
    mvp = np.array([[2, 0, 0, 0], [0, 3, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]], np.float32)
    p["state.matrix.mvp.row"] = mvp
    r = xlate.execute(prog, {"v[0]": f(0, 0, 5, 1), "v[3]": f(1, 1, 1, 1)}, params=p)
    assert r.float("o[FOGC]")[0, 0] == 1.5
    np.testing.assert_allclose(r.float("o[TEX0]")[0], [1 / 3] * 4, rtol=1e-6)
    np.testing.assert_allclose(r.float("o[COL0]")[0], [2 / 3] * 4, rtol=1e-6)
    # VP11 2.14.B: the position is the fixed-function transformation of v[OPOS]
    assert r.float("o[HPOS]").tolist() == [[0, 0, 5, 1]]
    r = xlate.execute(prog, {"v[0]": f(1, 1, 2, 1), "v[3]": f(1, 1, 1, 1)}, params=p)
    assert r.float("o[HPOS]").tolist() == [[2, 3, 2, 1]]
    # d = 0 -> RCC(+0) = 2^64 (VP11 2.14.1.10.19)
    assert r.float("o[TEX0]").tolist() == [[2.0 ** 64] * 4]
    assert r.float("o[COL0]").tolist() == [[1 - 2.0 ** 64] * 4]


def test_position_invariant_prologue_is_ir():
    code = ir(VP1_B)
    assert code[-3:] == ["MUL.F o[FOGC].x, R0.y, c[13].x", "MOV.F o[TEX0], R0.z",
                         "SUB.F o[COL0], v[3], R0.z"]
    assert [c for c in code if c.startswith("DP4")] == [
        f"DP4.F o[HPOS].{'xyzw'[i]}, state.matrix.mvp.row[{i}], v[0]" for i in range(4)]
    # the result initialisation comes first, then the transformation
    assert code.index("MOV.F o[HPOS], {0.0, 0.0, 0.0, 1.0}") < code.index(
        "DP4.F o[HPOS].x, state.matrix.mvp.row[0], v[0]")


# ---- VSP-A -------------------------------------------------------------------------------------------

VSP_A = """!!VSP1.0
# Normalize c[20].xyz in place and scale it by v[0].x.
DP3   R0.w, c[20], c[20];
RSQ   R0.w, R0.w;
MUL   R0, c[20], R0.w;
MUL   c[20].xyz, R0, v[0].x;
END
"""


def test_vsp_a_vertex_state_program():
    prog = xlate.parse(VSP_A)
    r = xlate.execute(prog, {"v[0]": f(2, 0, 0, 0)}, params=params(c20=[3, 0, 4, 7]))
    np.testing.assert_allclose(r.float("c[20]")[0], [1.2, 0, 1.6, 7], rtol=1e-6)
    out = prog.registers["c[20]"]
    assert out.kind == RegKind.OUTPUT and out.bindings[0].text() == "result.attrib[0]"
    assert prog.registers["c"].kind == RegKind.TEMP and prog.registers["c"].size == 98


def test_vsp_relative_read_of_written_parameter():
    src = "!!VSP1.0\nARL A0.x, v[0].x;\nMOV c[5], v[0];\nMOV R0, c[A0.x + 1];\nADD c[6], R0, R0;\nEND\n"
    r = xlate.execute(xlate.parse(src), {"v[0]": f(4, 1, 2, 3)}, params=params(c6=[9, 9, 9, 9]))
    assert r.float("c[5]").tolist() == [[4, 1, 2, 3]]
    assert r.float("c[6]").tolist() == [[8, 2, 4, 6]]     # c[A0.x + 1] = c[5], just written


# ---- VP2-A, B, C --------------------------------------------------------------------------------------

VP2_A = """!!VP2.0
# c[0]      = (lightCount, 16, -1, 2)  -> A1 = (count, index, -1, +2)
# c[1]      = (0, 0, 0, 1)
# c[4..7]   = MVP rows
# c[16+2i]  = light i direction, c[17+2i] = light i color
main:
  DP4   o[HPOS].x, c[4], v[OPOS];
  DP4   o[HPOS].y, c[5], v[OPOS];
  DP4   o[HPOS].z, c[6], v[OPOS];
  DP4   o[HPOS].w, c[7], v[OPOS];
  MOV   R0, c[1];                  # color accumulator
  ARLC  A1, c[0];                  # A1 = floor(c[0]); CC from the integers
  BRA   done (LE.x);               # no lights
loop:
  CAL   light;
  ARAC  A1.xy, A1;                 # count += -1, index += 2
  BRA   loop (GT.x);
done:
  MOV   o[COL0], R0;
  RET;                             # empty call stack: normal termination
light:
  DP3C  R1.x, v[NRML], c[A1.y];    # N.L -> CC.x
  RET   (LE.x);                    # facing away: no contribution
  MAD   R0.xyz, R1.x, c[A1.y + 1], R0;
  RET;
END
"""


def vp2a(count: float, **kw):
    p = params(256, c0=[count, 16, -1, 2], c1=[0, 0, 0, 1], c4=[1, 0, 0, 0], c5=[0, 1, 0, 0],
               c6=[0, 0, 1, 0], c7=[0, 0, 0, 1], c16=[0, 0, 1, 0], c17=[1, 0, 0, 0],
               c18=[0, 0, -1, 0], c19=[0, 1, 0, 0], c20=[0, 0.6, 0.8, 0], c21=[0, 0, 1, 0])
    return xlate.execute(xlate.parse(VP2_A), {"v[0]": f(0.5, 0.5, 0, 1), "v[2]": f(0, 0, 1, 1)},
                         params=p, **kw)


def test_vp2_a_loop_subroutine_relative_a1():
    r = vp2a(3)
    assert r.float("o[HPOS]").tolist() == [[0.5, 0.5, 0, 1]]
    np.testing.assert_allclose(r.float("o[COL0]")[0], [1, 0, 0.8, 1], rtol=1e-6)


def test_vp2_a_executes_28_instructions():
    # nv_dialects.md 11.2: 28 executed instructions, counting untaken BRA/RET and the final RET;
    # the frontend's prologue (result initialisation) and the ARL clamp steps do not count
    assert not vp2a(3, max_steps=28).steps_exceeded[0]
    assert vp2a(3, max_steps=27).steps_exceeded[0]


@pytest.mark.parametrize("count, color", [(0, [0, 0, 0, 1]), (0.9, [0, 0, 0, 1]),
                                          (-2, [0, 0, 0, 1]), (1, [1, 0, 0, 1])])
def test_vp2_a_variants(count, color):
    np.testing.assert_allclose(vp2a(count).float("o[COL0]")[0], color, rtol=1e-6)


VP2_B = """!!VP2.0
# c[0] = threshold, c[1] = fallback value, c[2] = (0,0,0,0)
MOV   o[HPOS], v[OPOS];
SUBC  CC, v[TEX0], c[0];          # only the condition code is written
MOV   o[TEX0], c[1];
MOV   o[TEX0] (GE), v[TEX0];      # keep components >= threshold
MOVC  R0, v[TEX1];                # CC = sign(tex1)
MOV   R0 (LT), -R0;               # |tex1|; NaN (UN) fails LT and stays NaN
MOV   o[TEX1], R0;
MOV   o[TEX2], c[2];
MOV   o[TEX2] (NE.x), c[1];       # all four components iff CC.x is not EQ
END
"""


@pytest.mark.parametrize("tex1, t1, t2", [
    ((-2, 0, 3, -0.5), [2, 0, 3, 0.5], [9, 9, 9, 9]),
    ((NAN, 0, 3, -0.5), [NAN, 0, 3, 0.5], [9, 9, 9, 9]),       # UN passes NE
    ((-0.0, 0, 3, -0.5), [-0.0, 0, 3, 0.5], [0, 0, 0, 0]),     # -0 is EQ
])
def test_vp2_b_cc_masks_un_and_replicated_swizzle(tex1, t1, t2):
    prog = xlate.parse(VP2_B)
    r = xlate.execute(prog, {"v[0]": f(0, 0, 0, 1), "v[8]": f(0.5, 2, -1, 1), "v[9]": f(*tex1)},
                      params=params(256, c0=[1] * 4, c1=[9] * 4))
    assert r.float("o[TEX0]").tolist() == [[9, 2, 9, 1]]
    got = r.float("o[TEX1]")[0]
    assert np.array_equal(got, f(*t1), equal_nan=True) and np.signbit(got[0]) == np.signbit(t1[0])
    assert r.float("o[TEX2]").tolist() == [t2]


def test_vp2_b_cc_dummy_destination_and_cc_kinds():
    prog = xlate.parse(VP2_B)
    sub = next(i for i in prog.instructions if i.op == "SUB")
    assert sub.dst.reg == "CC" and sub.cc_update == 0 and sub.cc_kind == CCKind.FLOAT
    mov = [i for i in prog.instructions if i.op == "MOV" and i.dst.cond is not None]
    assert mov[0].dst.cond == CondTest("GE", 0, (0, 1, 2, 3))
    assert mov[-1].dst.cond == CondTest("NE", 0, (0, 0, 0, 0))


VP2_C = """!!VP2.0
# c[0] = (0,0,0,0), c[1] = (1,1,1,1)
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


def test_vp2_c_call_stack_overflow_terminates():
    prog = xlate.parse(VP2_C)
    assert prog.call_overflow == "terminate" and prog.max_exec_instructions == 65536
    r = xlate.execute(prog, {"v[0]": f(1, 2, 3, 1)}, params=params(256, c1=[1] * 4))
    # VP2 2.14.3.7 / 2.14.2.3: termination at the fifth CAL, the results keep their values
    assert r.float("o[COL0]").tolist() == [[4, 4, 4, 4]]
    assert r.float("o[COL1]").tolist() == [[0, 0, 0, 1]]


def test_vp2_canonical_cc_example():
    # VP2 2.14.2.2 / nv_dialects.md 6.4, verbatim
    src = """!!VP2.0
MOV o[HPOS], v[0];
MOVC R0, v[1];
MOV o[TEX0], R0;
MOVC R0.xyz, v[1].yzwx;
MOV o[TEX1], R0;
MOVC R0 (NE), v[1].zywx;
MOV o[TEX2], R0;
SEQ o[TEX3], R0, R0;
MOV o[TEX4], v[2];
MOV o[TEX4] (EQ), v[3];
END"""
    r = xlate.execute(xlate.parse(src), {"v[0]": f(0, 0, 0, 1), "v[1]": f(-2, 0, 2, NAN),
                                          "v[2]": f(0, 0, 0, 0), "v[3]": f(1, 1, 1, 1)})
    eq = lambda a, b: np.array_equal(a, f(*b), equal_nan=True)   # noqa: E731
    assert eq(r.float("o[TEX0]")[0], (-2, 0, 2, NAN))
    assert eq(r.float("o[TEX1]")[0], (0, 2, NAN, NAN))
    assert eq(r.float("o[TEX2]")[0], (0, 0, NAN, -2))
    # CC = (EQ, EQ, UN, LT): EQ passes for x and y only
    assert r.float("o[TEX4]").tolist() == [[1, 1, 0, 0]]


# ---- IR per construct ---------------------------------------------------------------------------

def test_vp2_address_instructions_clamp_and_int_cc():
    code = body("!!VP2.0\nMOV o[HPOS], v[0];\nARLC A0.xz (GT.y), c[3];\nARR A1, -c[4];\n"
                "ARAC A0, A1;\nEND")
    assert code[1:] == [
        "FLR.S %addr, c[3]",                               # VP2 2.14.3.4: floor, then clamp
        "MIN.S %addr, %addr, 511",
        "MAX.S.CC0 A0.xz (GT.y), %addr, -512",
        "ROUND.S %addr, -c[4]",                            # 2.14.3.5: round half to even
        "MIN.S %addr, %addr, 511",
        "MAX.S A1, %addr, -512",
        "ADD.S %addr, A1.xyxy, A1.zwzw",                   # 2.14.3.3: (x+z, y+w, x+z, y+w)
        "MIN.S %addr, %addr, 511",
        "MAX.S.CC0 A0, %addr, -512",
    ]
    prog = xlate.parse("!!VP2.0\nMOV o[HPOS], v[0];\nARLC A0, c[3];\nEND")
    assert prog.instructions[-1].cc_kind == CCKind.INT     # VP2O: integer CC results


def test_vp2_address_clamp_values():
    src = "!!VP2.0\nARLC A0, c[0];\nARR A1, c[1];\nMOV o[HPOS], c[A0.x];\nMOV o[TEX0], c[A1.y];\nEND"
    prog = xlate.parse(src)
    p = params(256, c0=[1000, -1000, 0.5, -0.5], c1=[0, 2.5, 0, 0], c2=[7, 7, 7, 7],
               c255=[5, 5, 5, 5])
    r = xlate.execute(prog, {}, params=p)
    assert r.float("o[TEX0]").tolist() == [[7, 7, 7, 7]]    # ARR(2.5) = 2 (half to even)
    # A0.x = 1000 clamps to 511: a relative read past c[255] is undefined in VP2 (clamped here)
    assert r.float("o[HPOS]").tolist() == [[5, 5, 5, 5]]


def test_vp1_arl_is_scalar_floor_into_x():
    code = body("!!VP1.0\nARL A0.x, -c[3].y;\nMOV o[HPOS], c[A0.x - 64];\nEND")
    assert code == ["FLR.S A0.x, -c[3].y", "MOV.F o[HPOS], c[A0.x + -63]"]   # guard: +1


@pytest.mark.parametrize("header, rsq", [
    ("!!VP1.0", "RSQ.F o[HPOS], |c[0].x|"),      # VP1 2.14.1.10.7: 1/sqrt(fabs(x))
    ("!!VP1.1", "RSQ.F o[HPOS], |c[0].x|"),
    ("!!VP2.0", "RSQ.F o[HPOS], -c[0].x"),       # VP2 2.14.3.28: no abs (digest 12 item 16)
])
def test_rsq_abs_per_dialect(header, rsq):
    assert body(f"{header}\nRSQ o[HPOS], -c[0].x;\nEND") == [rsq]


def test_rsq_values():
    for header, want in (("!!VP1.0", 0.5), ("!!VP2.0", NAN)):
        r = xlate.execute(xlate.parse(f"{header}\nRSQ o[HPOS], c[0].x;\nEND"), {},
                          params=params(256, c0=[-4, 0, 0, 0]))
        assert np.array_equal(r.float("o[HPOS]")[0, :1], [want], equal_nan=True)


@pytest.mark.parametrize("header, op, ir_text", [
    ("!!VP1.0", "MIN", "MIN.F o[HPOS], v[1], c[0]"),   # VP1: t < u ? t : u == GP4 MIN(u, t)
    ("!!VP1.0", "MAX", "MAX.F o[HPOS], c[0], v[1]"),
    ("!!VP1.0", "SGE", "SGET.F o[HPOS], c[0], v[1]"),   # VP1 2.14.1.11 total order
    ("!!VP1.0", "SLT", "SLTT.F o[HPOS], c[0], v[1]"),
    ("!!VP2.0", "MIN", "MINN.F o[HPOS], c[0], v[1]"),   # VP2 2.14.3.21-22: NaN -> NaN
    ("!!VP2.0", "MAX", "MAXN.F o[HPOS], c[0], v[1]"),
    ("!!VP2.0", "SGE", "SGEN.F o[HPOS], c[0], v[1]"),   # VP2 2.14.3.29-36
    ("!!VP2.0", "SLT", "SLTN.F o[HPOS], c[0], v[1]"),
    ("!!VP2.0", "SEQ", "SEQN.F o[HPOS], c[0], v[1]"),
    ("!!VP2.0", "SNE", "SNEN.F o[HPOS], c[0], v[1]"),
    ("!!VP2.0", "SGT", "SGTN.F o[HPOS], c[0], v[1]"),
    ("!!VP2.0", "SLE", "SLEN.F o[HPOS], c[0], v[1]"),
    ("!!VP2.0", "SFL", "SFL.F o[HPOS], c[0], v[1]"),
])
def test_set_on_and_min_max_numerics(header, op, ir_text):
    assert body(f"{header}\n{op} o[HPOS], c[0], v[1];\nEND") == [ir_text]


def test_vp1_min_max_nan_and_total_order_values():
    src = ("!!VP1.0\nMIN o[HPOS], c[0], v[1];\nMAX o[TEX0], c[0], v[1];\nSGE o[TEX1], c[0], v[1];\n"
           "SLT o[TEX2], c[0], v[1];\nEND")
    r = xlate.execute(xlate.parse(src), {"v[1]": f(1, NAN, 0, 2)},
                      params=params(c0=[NAN, 1, -0.0, 2]))
    # VP1 2.14.1.10.11-12: (t < u) ? t : u and (t >= u) ? t : u with C comparisons
    assert np.array_equal(r.float("o[HPOS]")[0], f(1, NAN, 0, 2), equal_nan=True)
    assert np.array_equal(r.float("o[TEX0]")[0], f(1, NAN, 0, 2), equal_nan=True)
    # VP1 2.14.1.11: -0 < +0 for SGE/SLT
    assert r.float("o[TEX1]")[0, 2] == 0 and r.float("o[TEX2]")[0, 2] == 1


def test_vp2_set_on_nan_values():
    src = "!!VP2.0\nSGE o[HPOS], c[0], v[1];\nSSG o[TEX0], c[0];\nEND"
    r = xlate.execute(xlate.parse(src), {"v[1]": f(1, NAN, 0, 2)},
                      params=params(256, c0=[NAN, 1, -0.0, 2]))
    assert np.array_equal(r.float("o[HPOS]")[0], f(NAN, NAN, 1, 1), equal_nan=True)
    assert np.array_equal(r.float("o[TEX0]")[0], f(NAN, 1, 0, 1), equal_nan=True)


def test_exp_log_four_components():
    src = "!!VP1.0\nEXP o[HPOS], c[0].x;\nLOG o[TEX0], c[0].y;\nLOG o[TEX1], c[0].z;\nEND"
    r = xlate.execute(xlate.parse(src), {}, params=params(c0=[2.5, -6, 0, 0]))
    # VP1 2.14.1.10.15: (2^floor, fraction, ~2^x, 1); 2.14.1.10.16: of |x|
    np.testing.assert_allclose(r.float("o[HPOS]")[0], [4, 0.5, 2 ** 2.5, 1], rtol=2 ** -11)
    np.testing.assert_allclose(r.float("o[TEX0]")[0], [2, 1.5, np.log2(6), 1], rtol=2 ** -11)
    assert r.float("o[TEX1]").tolist() == [[-INF, 1, -INF, 1]]
    assert body(src)[:2] == ["EXP.F o[HPOS], c[0].x", "LOG.F o[TEX0], c[0].y"]


def test_labels_are_fall_through_markers_and_main_is_the_entry():
    src = "!!VP2.0\nsub:\nMOV o[TEX0], v[1];\nRET;\nmain:\nMOV o[HPOS], v[0];\nCAL sub;\nEND"
    prog = xlate.parse(src)
    # the prologue (result initialisation) runs first and continues at main (VP2 2.14.2.3)
    assert prog.entry == 0 and prog.instructions[2].op == "BRA" and prog.instructions[2].label == "main"
    assert not any(i.op == "RET" and i.text for i in prog.instructions)      # no implicit RETs
    r = xlate.execute(prog, {"v[0]": f(1, 1, 1, 1), "v[1]": f(2, 2, 2, 2)})
    assert r.float("o[TEX0]").tolist() == [[2, 2, 2, 2]]


def test_exec_limit_terminates_an_endless_loop():
    src = "!!VP2.0\nMOV o[HPOS], v[0];\nloop:\nADD R0, R0, v[1];\nMOV o[TEX0], R0;\nBRA loop;\nEND"
    r = xlate.execute(xlate.parse(src), {"v[0]": f(0, 0, 0, 1), "v[1]": f(1, 1, 1, 1)})
    # VP2 2.14.2.3: abnormal termination after 65536 executed instructions; the vertex keeps
    # its results: 1 + 3k instructions -> 21845 loop iterations completed
    assert r.steps_exceeded[0]
    assert r.float("o[TEX0]")[0, 0] == 21845


def test_vp2_labels_and_ccmask_swizzles_in_ir():
    code = body("!!VP2.0\nMOV o[HPOS], v[0];\nBRA l1 (LT.wyzw);\nCAL l1 (NE);\nl1:\nRET (GT.x);\nEND")
    assert code == ["MOV.F o[HPOS], v[0]", "BRA.F l1 (LT.wyzw)", "CAL l1 (NE)", "RET (GT.x)"]


def test_cc_rule_names_are_not_keywords():
    # a label may be called like a condition-code rule (nv_dialects.md 2.2)
    prog = xlate.parse("!!VP2.0\nMOV o[HPOS], v[0];\nBRA EQ (EQ.x);\nEQ:\nEND")
    assert prog.labels["EQ"] == len(prog.instructions)


def test_translates_to_glsl_and_spirv():
    for src in (VP1_A, VP1_B, VSP_A, VP2_A, VP2_B, VP2_C):
        out = xlate.translate(src, target="spirv")
        assert out.spirv[:4] == b"\x03\x02\x23\x07"
