"""ARB fragment programs run through xlate.execute: the worked examples of nv_dialects.md 11.4
give the stated values, and the dialect semantics made explicit in the IR (RSQ |x|, fp16/fx12
precision with the CC after conversion, LOOP/A0, REP clamping, FP2 flow) behave as specified.
The last test cross-checks the translated GLSL on a real GL implementation (Mesa llvmpipe)."""
from __future__ import annotations

import numpy as np
import pytest

from conftest import gl_runner

import xlate

NV = "!!ARBfp1.0\nOPTION NV_fragment_program;\n"
NV2 = "!!ARBfp1.0\nOPTION NV_fragment_program2;\n"

AFP_A = """!!ARBfp1.0
PARAM k = {0.5, -4.0, 0.25, 2.0};
TEMP  t, c;
KIL   fragment.texcoord[0];                  # any component < 0 -> discard
RSQ   t.x, k.y;                              # ARB RSQ uses |x|: 1/sqrt(4) = 0.5
SUB   t.y, fragment.texcoord[0].y, k.x;
CMP   c, t.y, fragment.color, k;             # t.y < 0 ? color : k  (t.y replicated)
SWZ   c.w, fragment.texcoord[0], 0, 0, 0, -1;
LRP_SAT result.color, t.x, c, fragment.texcoord[0];
END
"""

AFPN_A = """!!ARBfp1.0
OPTION NV_fragment_program;
TEMP d, p, u;
SHORT TEMP h;
SUBC  d, fragment.texcoord[0], fragment.texcoord[1];  # CC = sign(d)
MOV   d (LT), -d;                       # d = |tc0 - tc1|
PK4UB p.x, d;                           # four unorm8 in one 32-bit word
UP4UBC u, p.x;                          # unpack, CC = sign(u)
KIL   EQ.w;                             # discard when the unpacked w is 0
MULH  h, u, fragment.color;             # fp16 multiply into a SHORT temp
MOV_SAT result.color, h;
END
"""

AFP2_A = """!!ARBfp1.0
OPTION NV_fragment_program2;
PARAM lp    = program.local[0];     # LOOP setup: (count, first index, increment, -)
PARAM limit = program.local[1];     # x = cap on the running sum
TEMP acc, t;
MOV   acc, 0;
LOOP  lp;
  ADD   acc, acc, fragment.texcoord[A0.x];
  SUBC  t.x, acc.x, limit.x;        # CC.x = sign(acc.x - cap)
  BRK   (GT.x);
ENDLOOP;
SGEC  t.x, acc.w, 0.5;              # 1.0 / 0.0 -> CC.x = GT / EQ
IF    GT.x;
  MUL   result.color, acc, 0.1;
ELSE;
  MOV   result.color, 0;
ENDIF;
END
"""

AFP2_B = """!!ARBfp1.0
OPTION NV_fragment_program2;
PARAM reps = program.local[0];      # x = iteration count
PARAM k    = {0.5, 0.25, 2.0, 0.0};
TEMP  r, n, t;
main:
  NRM   n.xyz, fragment.texcoord[0];
  MOV   r, 0;
  REP   reps;
    CAL   accum;
  ENDREP;
  DIV   r, r, k.z;
  SUBC  t.x, r.z, 2.5;              # CC.x = sign(r.z - 2.5)
  KIL   GT.x;
  MOV_SSAT result.color, r;
  RET;                              # empty stack: end of program
accum:
  DP2A  r.x, n, n, r;               # r.x = n.x^2 + n.y^2 + r.x
  ADD   r, r, k;
  RET;
END
"""


def vec(*v):
    return np.array(v, np.float32)


def run(text, inputs=None, params=None, **kw):
    return xlate.execute(text, inputs or {}, params=params or {}, filename="t.fp", **kw)


# ---- nv_dialects.md 11.4 ----------------------------------------------------------------------

def test_afp_a():
    tc = [vec(0.2, 0.8, 0.4, 1.0), vec(0.2, 0.3, 0.4, 1.0), vec(-0.01, 0.8, 0.4, 1.0),
          vec(-0.0, 0.8, 0.4, 1.0)]
    r = run(AFP_A, {"fragment.texcoord[0]": np.stack(tc), "fragment.color": vec(1, 0.5, 0.25, 1)})
    out = r.float("result.color")
    np.testing.assert_allclose(out[0], [0.35, 0, 0.325, 0], rtol=1e-6)
    np.testing.assert_allclose(out[1], [0.6, 0.4, 0.325, 0], rtol=1e-6)     # CMP picks color
    assert r.killed.tolist() == [False, False, True, False]                 # -0.0 does not kill


def test_afpn_a():
    r = run(AFPN_A, {"fragment.texcoord[0]": np.stack([vec(0.3, 1.0, 0.5, 0.0)] * 2),
                     "fragment.texcoord[1]": np.stack([vec(0.5, 0.4, 0.5, 1.0), vec(0.5, 0.4, 0.5, 0.0)]),
                     "fragment.color": vec(1, 0.5, 1, 1)})
    out = r.float("result.color")
    # fp16: 0.19995, 0.30005 (the SHORT temp rounds the MULH result)
    assert out[0].tolist() == [np.float32(np.float16(0.2)), np.float32(np.float16(0.3)), 0, 1]
    assert r.killed.tolist() == [False, True]                # tc1.w = 0 -> packed w byte 0


def test_afpn_a_packed_bits():
    text = AFPN_A.replace("MOV_SAT result.color, h;", "MOV result.color, p;")
    r = run(text, {"fragment.texcoord[0]": vec(0.3, 1.0, 0.5, 0.0),
                   "fragment.texcoord[1]": vec(0.5, 0.4, 0.5, 1.0), "fragment.color": vec(1, 1, 1, 1)})
    assert hex(int(r.words("result.color")[0, 0])) == "0xff009933"


@pytest.mark.parametrize("lp, limit, expected", [
    ((4, 0, 1, 0), 5, [0.6, 0, 0, 0.075]),     # breaks after the 3rd iteration
    ((4, 0, 1, 0), 100, [1, 0, 0, 0.1]),
    ((1, 0, 1, 0), 5, [0, 0, 0, 0]),           # acc.w = 0.25 -> ELSE
    ((0, 0, 1, 0), 5, [0, 0, 0, 0]),           # loop skipped
])
def test_afp2_a(lp, limit, expected):
    tc = {f"fragment.texcoord[{i}]": vec(i + 1, 0, 0, 0.25) for i in range(8)}
    r = run(AFP2_A, tc, {"program.local[0]": vec(*lp), "program.local[1]": vec(limit, 0, 0, 0)})
    np.testing.assert_allclose(r.float("result.color")[0], expected, rtol=1e-6)


@pytest.mark.parametrize("reps, expected, killed", [
    (2, [0.86, 0.25, 1, 0], False), (3, None, True), (0, [0, 0, 0, 0], False)])
def test_afp2_b(reps, expected, killed):
    r = run(AFP2_B, {"fragment.texcoord[0]": vec(3, 0, 4, 1)}, {"program.local[0]": vec(reps, 0, 0, 0)})
    assert r.killed[0] == killed
    if expected is not None:
        np.testing.assert_allclose(r.float("result.color")[0], expected, rtol=1e-4)


def test_afp2_b_without_ret_falls_through():
    # Removing the RET after MOV_SSAT: execution falls into "accum" (no implicit RET in FP2),
    # whose final RET then ends the program; the result was already written
    text = AFP2_B.replace("  RET;                              # empty stack: end of program\n", "")
    text = text.replace("  ADD   r, r, k;\n  RET;", "  ADD   r, r, k;\n  MOV   result.depth.z, r.y;\n  RET;")
    r = run(text, {"fragment.texcoord[0]": vec(3, 0, 4, 1)}, {"program.local[0]": vec(2, 0, 0, 0)})
    np.testing.assert_allclose(r.float("result.color")[0], [0.86, 0.25, 1, 0], rtol=1e-4)
    # r.y: 0.5 after the two calls, 0.25 after the DIV, 0.5 again when accum runs once more
    assert r.float("result.depth")[0, 2] == 0.5


# ---- condition codes (digest 6.4, identical in FPO) --------------------------------------------

def test_canonical_cc_example():
    text = NV + """OPTION ATI_draw_buffers;
TEMP R0, R1;
MOV R1, fragment.texcoord[0];
MOVC R0, R1;
MOVC R0.xyz, R1.yzwx;
MOVC R0 (NE), R1.zywx;
MOV result.color, R0;
MOV result.color[1], 3;          # UN: only NE passes
MOV result.color[1] (EQ), 1;
MOV result.color[1] (LT), -1;
MOV result.color[1] (GT), 2;
END
"""
    r = run(text, {"fragment.texcoord[0]": vec(-2, 0, 2, np.nan)})
    out = r.float("result.color[0]")[0]
    assert out[:2].tolist() == [0, 0] and np.isnan(out[2]) and out[3] == -2
    assert r.float("result.color[1]")[0].tolist() == [1, 1, 3, -1]       # (EQ, EQ, UN, LT)


# ---- numerics made explicit ---------------------------------------------------------------------

def test_rsq_absolute_value_and_ssat():
    r = run(NV2 + "TEMP t;\nRSQ t.x, -fragment.color.x;\nMOV t.y, fragment.color.y;\n"
            "MOV_SSAT result.color, t;\nEND\n", {"fragment.color": vec(-4, -3, 0, 0)})
    assert r.float("result.color")[0, :2].tolist() == [0.5, -1]


def test_fp16_and_fx12_results():
    text = NV + """TEMP a, b;
MOVH a, fragment.texcoord[0];
MOVX b, fragment.texcoord[0];
MOV result.color, a;
MOV result.depth, b;
END
"""
    tc = np.array([[1e-8, 70000.0, 0.1, np.nan], [3.0, -5.0, 0.00049, -0.0004],
                   [1 / 3, 2.0, -2.0, 0.000489]], np.float32)
    r = run(text, {"fragment.texcoord[0]": tc})
    h, x = r.float("result.color"), r.float("result.depth")
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(h[:, :3], tc[:, :3].astype(np.float16).astype(np.float32))
    assert h[0, 1] == np.inf and np.isnan(h[0, 3])                      # overflow -> INF; NaN kept
    # fx12: NaN -> 0, clamp to [-2048/1024, 2047/1024], multiples of 1/1024 (ties to even)
    assert x[0].tolist() == [0, 2047 / 1024, 102 / 1024, 0]
    assert x[1].tolist() == [2047 / 1024, -2, 1 / 1024, -0.0]
    assert x[2].tolist() == [341 / 1024, 2047 / 1024, -2, 1 / 1024]


def test_cc_from_the_converted_value():
    # digest 12 item 25: 1e-8 written with H precision becomes 0 -> EQ, not GT
    text = NV + """TEMP a;
MOV result.color, 0;
MOVHC a.x, fragment.texcoord[0].x;
MOVXC a.y, fragment.texcoord[0].y;
MOVC a.z, fragment.texcoord[0].x;
MOV result.color.x (EQ.x), 1;
MOV result.color.y (EQ.y), 1;
MOV result.color.z (GT.z), 1;
END
"""
    r = run(text, {"fragment.texcoord[0]": vec(1e-8, 0.0004, 0, 0)})
    assert r.float("result.color")[0, :3].tolist() == [1, 1, 1]


def test_saturate_then_convert():
    r = run(NV + "MOVX_SAT result.color, fragment.color;\nEND\n",
            {"fragment.color": vec(1.7, -3, 0.3, np.nan)})
    assert r.float("result.color")[0].tolist() == [1, 0, 307 / 1024, 0]


def test_loop_index_clamp_increment_and_count_limit():
    text = NV2 + """PARAM lp = program.local[0];
TEMP acc;
MOV acc, 0;
LOOP lp;
  ADD acc, acc, fragment.texcoord[A0.x];
ENDLOOP;
MOV result.color, acc;
END
"""
    tc = {f"fragment.texcoord[{i}]": vec(10 ** i, 0, 0, 1) for i in range(8)}
    # start below 0 -> A0.x = 0; increment -1 keeps it clamped at 0
    r = run(text, tc, {"program.local[0]": vec(3.7, -5, -1, 0)})
    assert r.float("result.color")[0].tolist() == [3, 0, 0, 3]
    # start 2.9 -> 2, increment 2: indices 2, 4, 6
    r = run(text, tc, {"program.local[0]": vec(3, 2.9, 2.5, 0)})
    assert r.float("result.color")[0].tolist() == [100 + 10 ** 4 + 10 ** 6, 0, 0, 3]
    # counts are clamped to MAX_PROGRAM_LOOP_COUNT_NV = 255 (digest 12 item 31)
    r = run(text, tc, {"program.local[0]": vec(1e6, 0, 0, 0)})
    assert r.float("result.color")[0].tolist() == [255, 0, 0, 255]


def test_rep_count_clamp_and_nan():
    text = NV2 + "PARAM n = program.local[0];\nTEMP a;\nMOV a, 0;\nREP n;\nADD a, a, 1;\nENDREP;\n" \
                 "MOV result.color, a;\nEND\n"
    out = [run(text, params={"program.local[0]": vec(c, 0, 0, 0)}).float("result.color")[0, 0]
           for c in (1000.0, np.nan, 2.9, -1)]
    assert out == [255, 0, 2, 0]


def test_call_stack_overflow_terminates():
    # FP2 3.11.X.2: a CAL with MAX_PROGRAM_CALL_DEPTH_NV (4) calls pending terminates the program
    text = NV2 + """TEMP a;
MOV a, 0;
CAL f;
MOV result.color.y, 1;
RET;
f:
ADD a, a, 1;
MOV result.color.x, a.x;
CAL f;
RET;
END
"""
    r = run(text)
    assert r.float("result.color")[0, :2].tolist() == [4, 0]


def test_shadow_and_projective_cube():
    # ARB TXP divides by q for cube maps too (unlike FP1)
    from xlate.exec import Texture
    faces = [np.full((1, 1, 4), f, np.float32) for f in range(6)]
    tex = {0: Texture(levels=[np.stack(faces)], target="CUBE")}
    r = run("!!ARBfp1.0\nTXP result.color, fragment.texcoord[0], texture[0], CUBE;\nEND\n",
            {"fragment.texcoord[0]": np.array([[2, 0.1, 0.1, -1], [2, 0.1, 0.1, 1]], np.float32)},
            textures=tex)
    assert r.float("result.color")[:, 0].tolist() == [1, 0]             # -X face, +X face


# ---- the translation agrees with the executor on a real GL implementation ---------------------

GL_PROGRAMS = {
    "afp_a": AFP_A, "afpn_a": AFPN_A, "afp2_a": AFP2_A, "afp2_b": AFP2_B,
    "precision": NV + "SHORT TEMP h;\nTEMP a;\nMULH a, fragment.color, fragment.texcoord[0];\n"
                      "ADDXC h, a, fragment.texcoord[1];\nMOV result.color (GT), h;\n"
                      "MOV result.color (LE), -a;\nEND\n",
    "loops": NV2 + "PARAM lp = program.local[0];\nTEMP a;\nMOV a, 0;\nLOOP lp;\nLOOP {3, 1, 2};\n"
                   "ADD a, a, fragment.texcoord[A0.x + 1];\nENDLOOP;\nADD a, a, fragment.texcoord[A0.x];\n"
                   "ENDLOOP;\nMOV result.color, a;\nEND\n",
    "fall_through": AFP2_B.replace("  RET;                              # empty stack: end of program\n", ""),
}


@pytest.mark.parametrize("name", sorted(GL_PROGRAMS))
def test_translation_matches_executor_on_gl(name):
    from xlate.verify import verify_source
    rep = verify_source(GL_PROGRAMS[name], f"{name}.fp", lanes=1024, runner=gl_runner("gl"))
    assert rep.status == "pass", (rep.reason, rep.localization[:1])


def test_rfl_writing_w_is_accepted_with_w_zero():
    # FPO 3.11.5.36 says such a program fails to load; NVIDIA's drivers loaded it (piglit
    # size_specifier-68, fp-rfl): warning E3010, w = 0.0 in the executor and in the GLSL helper
    src = NV + "RFL result.color, fragment.texcoord[0], fragment.texcoord[1];\nEND\n"
    prog = xlate.parse(src)
    assert [d.code for d in prog.diagnostics] == ["E3010"]
    r = xlate.execute(prog, {"fragment.texcoord[0]": np.array([0, 0, 2, 7], np.float32),
                             "fragment.texcoord[1]": np.array([1, 2, 3, 9], np.float32)})
    assert r.float("result.color").tolist() == [[-1, -2, 3, 0]]
    assert "vec4(s * a.xyz - b.xyz, 0.0)" in xlate.translate(src).glsl


# ---- FP2 run-time nesting limits (3.11.X.7-9): the calling code's blocks count ------------------

LOOPS_THROUGH_A_CALL = NV2 + """PARAM two = {2, 0, 0, 0};
TEMP acc;
MOV acc, 0;
REP two;
 REP two;
  REP two;
   CAL sub;
  ENDREP;
 ENDREP;
ENDREP;
MOV result.color, acc;
RET;
sub:
ADD acc, acc, 1;
MOV result.color, acc;
REP two;
 ADD acc, acc, 100;
 MOV result.color, acc;
 REP two;
  ADD acc, acc, 10000;
 ENDREP;
ENDREP;
RET;
END
"""


def test_loop_nesting_through_a_call_terminates_at_run_time():
    # every block passes the load-time limit (3 and 2 nested loops), but sub's inner REP runs
    # with 4 loops active: "a REP instruction will cause the fragment program to terminate",
    # and the fragment keeps the results written so far (3.11.4.X)
    prog = xlate.parse(LOOPS_THROUGH_A_CALL)
    assert prog.nesting_limits == (48, 4)
    r = xlate.execute(prog, {}, lanes=1)
    assert r.float("result.color").tolist() == [[101, 101, 101, 101]]
    assert r.abnormal.tolist() == [True] and not r.steps_exceeded[0]
    # the translation cannot count active blocks: refused, at the REP that terminates
    with pytest.raises(xlate.XlateError) as err:
        xlate.translate(LOOPS_THROUGH_A_CALL, filename="t.fp")
    d = err.value.diagnostics[0]
    assert (d.code, d.span.line) == ("E7001", 21) and "MAX_PROGRAM_LOOP_DEPTH_NV" in d.message
    # one loop fewer around the call: nothing terminates, and it translates
    ok = LOOPS_THROUGH_A_CALL.replace(" REP two;\n  ADD acc, acc, 10000;\n ENDREP;\n", "")
    r = xlate.execute(xlate.parse(ok), {}, lanes=1)
    assert r.float("result.color")[0, 0] == 8 * 201 and not r.abnormal[0]
    xlate.translate(ok, target="spirv")


def _nested_ifs(n: int, body: str) -> str:
    return "IF TR.x;\n" * n + body + "ENDIF;\n" * n


def test_if_nesting_through_a_call_terminates_at_run_time():
    # 40 IF blocks around the CAL, 10 nested in the subroutine: the 9th IF of the subroutine
    # runs with 48 active (MAX_PROGRAM_IF_DEPTH_NV) and terminates the program
    src = (NV2 + "TEMP acc;\nMOV acc, 0;\n" + _nested_ifs(40, "CAL sub;\n") +
           "MOV result.color, 1000;\nRET;\nsub:\n" +
           "IF TR.x;\nADD acc, acc, 1;\nMOV result.color, acc;\n" * 10 +
           "ENDIF;\n" * 10 + "RET;\nEND\n")
    r = xlate.execute(xlate.parse(src), {}, lanes=1)
    assert r.float("result.color")[0, 0] == 8 and r.abnormal.tolist() == [True]
    with pytest.raises(xlate.XlateError) as err:
        xlate.translate(src, filename="t.fp")
    assert err.value.diagnostics[0].code == "E7001"
    assert "MAX_PROGRAM_IF_DEPTH_NV" in err.value.diagnostics[0].message


def test_blocks_left_by_brk_and_ret_no_longer_count():
    # BRK leaves the IF it sits in, RET the IF blocks of its subroutine: 60 iterations that
    # each leave an IF early never add up to the IF limit
    src = NV2 + """PARAM many = {60, 0, 0, 0};
TEMP acc;
MOV acc, 0;
REP many;
  REP many;
    IF TR.x;
      ADD acc, acc, 1;
      BRK;
    ENDIF;
  ENDREP;
  CAL sub;
ENDREP;
MOV result.color, acc;
RET;
sub:
IF TR.x;
  ADD acc, acc, 100;
  RET;
ENDIF;
RET;
END
"""
    r = xlate.execute(xlate.parse(src), {}, lanes=1)
    assert r.float("result.color")[0, 0] == 60 * 101 and not r.abnormal[0]
    xlate.translate(src, target="spirv")


def test_nv4_has_no_run_time_nesting_limit():
    # GP4: the limits apply per subroutine at load time only
    src = ("!!NVfp4.0\nTEMP acc;\nMOV acc, 0;\nREP 2;\nREP 2;\nREP 2;\nCAL sub;\nENDREP;\n"
           "ENDREP;\nENDREP;\nMOV result.color, acc;\nRET;\nsub:\nREP 2;\nREP 2;\n"
           "ADD acc, acc, 1;\nENDREP;\nENDREP;\nRET;\nEND\n")
    prog = xlate.parse(src)
    assert prog.nesting_limits is None
    r = xlate.execute(prog, {}, lanes=1)
    assert r.float("result.color")[0, 0] == 32 and not r.abnormal[0]
