"""Executor: condition codes -- flag generation (GP4 §2.X.4.3), the Table X.16 tests, CC write
masks and CC updates (digest §4.3, §6.2, §6.4)."""
from __future__ import annotations

import numpy as np
import pytest

from test_exec_helpers import bits_equal, build
from xlate.exec import execute
from xlate.exec import cc as ccmod

NAN = float("nan")
INT_MIN, INT_MAX = -(1 << 31), (1 << 31) - 1

_READ_FLAGS = """
MOV.U fs, 0
MOV.U fs (SF{n}), 1
MOV.U fz, 0
MOV.U fz (EQ{n}), 1
MOV.U fz (NAN{n}), 1
MOV.U fo, 0
MOV.U fo (OF{n}), 1
MOV.U fc, 0
MOV.U fc (CF{n}), 1
"""


def flags_after(text, cc=0, **ins):
    """Run ``text`` and read the four flags of every component of CC<cc> back through CC-masked
    writes: returns [(SF, ZF, OF, CF) for x, y, z, w]."""
    p = build(text + _READ_FLAGS.format(n=cc if cc else ""),
              inputs={k: f"vertex.attrib[{i}]" for i, k in enumerate("abc")},
              outputs={k: f"result.texcoord[{i}]" for i, k in enumerate(["fs", "fz", "fo", "fc"])})
    r = execute(p, ins)
    cols = [r.outputs[k][0] for k in ("fs", "fz", "fo", "fc")]
    return [tuple(int(c[j]) for c in cols) for j in range(4)]


def i(*v):
    return np.array(v, np.int64)


def f(*v):
    return np.array(v, np.float32)


def test_initial_cc_is_eq():
    # digest §6.2: CC0/CC1 start undefined; project choice EQ (ZF only) on every lane
    assert flags_after("") == [(0, 1, 0, 0)] * 4
    assert flags_after("", cc=1) == [(0, 1, 0, 0)] * 4


def test_float_flags():
    # GP4 §2.X.4.3: SF = r<0 or NaN, ZF = r==0 or NaN (-0.0 -> SF0 ZF1); OF/CF cleared
    assert flags_after("MOV.CC R0, a", a=f(-2, -0.0, 3, NAN)) == \
        [(1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 0, 0), (1, 1, 0, 0)]


def test_int_flags_sign_bit():
    # GP4 §2.X.4.3: SF = most significant bit of the value written, ZF = zero; OF/CF cleared
    assert flags_after("MOV.U.CC R0, a", a=i(0x80000000, 0, 1, 0xFFFFFFFF)) == \
        [(1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 0, 0), (1, 0, 0, 0)]


def test_vp4b_add_u_flag_trace():
    # digest §11.6 VP4-B: ADD.U.CC sum, u.xzzw, u.yzyw with u = (0xFFFFFFFF, 1, 0x80000000, 3):
    # x: 0xFFFFFFFF+1, y: 0x80000000+0x80000000, z: 0x80000000+1, w: 3+3
    # -> (SF,ZF,OF,CF) = (0,1,0,1), (0,1,1,1), (1,0,0,0), (0,0,0,0)
    got = flags_after("ADD.U.CC sum, a.xzzw, a.yzyw  #kind=ADD", a=i(0xFFFFFFFF, 1, 0x80000000, 3))
    assert got == [(0, 1, 0, 1), (0, 1, 1, 1), (1, 0, 0, 0), (0, 0, 0, 0)]
    # the same without cc_kind: the executor picks ADD itself
    assert flags_after("ADD.U.CC sum, a.xzzw, a.yzyw", a=i(0xFFFFFFFF, 1, 0x80000000, 3)) == got


def test_add_s_overflow():
    # signed overflow: INT_MAX + 1, INT_MIN + -1; carry is the unsigned carry-out
    got = flags_after("ADD.S.CC R0, a, b", a=i(INT_MAX, INT_MIN, -1, 5), b=i(1, -1, 1, -5))
    assert got == [(1, 0, 1, 0), (0, 0, 1, 1), (0, 1, 0, 1), (0, 1, 0, 1)]


def test_sub_u_carry_is_not_borrow():
    # digest §6.2: subtract CF = 1 iff a >= b unsigned (no borrow, ARM convention)
    got = flags_after("SUB.U.CC R0, a, b", a=i(5, 3, 7, 0), b=i(3, 5, 7, 0xFFFFFFFF))
    assert [g[3] for g in got] == [1, 0, 1, 0]
    assert [g[1] for g in got] == [0, 0, 1, 0]


def _rule_mask(setup, rule, **ins):
    p = build(setup + f"\nMOV.U o, 0\nMOV.U o ({rule}), 1",
              inputs={k: f"vertex.attrib[{j}]" for j, k in enumerate("ab")},
              outputs={"o": "result.color"})
    return [int(v) for v in execute(p, ins).outputs["o"][0]]


# digest §6.2 table (GP4 Table X.16) for float results r = (-1, 0, +1, NaN)
_FLOAT_TABLE = {
    "EQ": [0, 1, 0, 0], "NE": [1, 0, 1, 1], "GE": [0, 1, 1, 0], "GT": [0, 0, 1, 0],
    "LE": [1, 1, 0, 0], "LT": [1, 0, 0, 0], "TR": [1, 1, 1, 1], "FL": [0, 0, 0, 0],
    "NAN": [0, 0, 0, 1], "LEG": [1, 1, 1, 0], "CF": [0, 0, 0, 0], "NCF": [1, 1, 1, 1],
    "OF": [0, 0, 0, 0], "NOF": [1, 1, 1, 1], "SF": [1, 0, 0, 1], "NSF": [0, 1, 1, 0],
    "AB": [0, 0, 0, 0], "BLE": [1, 1, 1, 1],
}


@pytest.mark.parametrize("rule", sorted(_FLOAT_TABLE))
def test_table_x16_float(rule):
    got = _rule_mask("MOV.CC R0, a", rule, a=f(-1, 0, 1, NAN))
    assert got == _FLOAT_TABLE[rule]
    # the same rule on CC1
    got1 = _rule_mask("MOV.CC1 R0, a", rule + "1", a=f(-1, 0, 1, NAN))
    assert got1 == _FLOAT_TABLE[rule]


def test_table_x16_all_flag_combinations():
    # every rule against the Table X.16 condition column, for all 16 flag combinations
    fl = np.arange(16, dtype=np.uint8)
    SF, ZF, OF, CF = ((fl & b) != 0 for b in (1, 2, 4, 8))
    expect = {
        "EQ": ~SF & ZF, "NE": SF | ~ZF, "GE": ~(SF ^ OF), "GT": (~SF ^ OF) & ~ZF,
        "LE": SF ^ (ZF | OF), "LT": (SF & ~ZF) ^ OF, "TR": np.ones(16, bool),
        "FL": np.zeros(16, bool), "NAN": SF & ZF, "LEG": ~SF | ~ZF, "CF": CF, "NCF": ~CF,
        "OF": OF, "NOF": ~OF, "SF": SF, "NSF": ~SF, "AB": CF & ~ZF, "BLE": ~CF | ZF,
    }
    from xlate.ir.ops import CC_RULES
    assert set(expect) == set(CC_RULES)
    for rule, e in expect.items():
        assert np.array_equal(ccmod.test(rule, fl), e), rule


def test_unsigned_compare_rules_after_sub_u():
    # GP4 issue 23 (digest §6.2): after SUB.U.CC a, b: AB = a > b, BLE = a <= b, CF = a >= b,
    # NCF = a < b; GT tests bit 31 of the difference and is wrong for unsigned magnitudes
    a, b = i(0xFFFFFFFF, 1, 7, 0), i(1, 0xFFFFFFFF, 7, 1)
    setup = "SUB.U.CC R0, a, b"
    assert _rule_mask(setup, "AB", a=a, b=b) == [1, 0, 0, 0]
    assert _rule_mask(setup, "BLE", a=a, b=b) == [0, 1, 1, 1]
    assert _rule_mask(setup, "CF", a=a, b=b) == [1, 0, 1, 0]
    assert _rule_mask(setup, "NCF", a=a, b=b) == [0, 1, 0, 1]
    assert _rule_mask(setup, "EQ", a=a, b=b) == [0, 0, 1, 0]
    assert _rule_mask(setup, "GT", a=a, b=b) == [0, 1, 0, 0]     # "wrong" by design


def test_signed_compare_rules_after_sub_s_with_overflow():
    # GP4 issue 23: after SUB.S.CC a, b, GT/GE/LT/LE give the signed comparison even when the
    # subtraction overflows (INT_MIN - 1, INT_MAX - -1)
    a, b = i(INT_MIN, INT_MAX, -3, 4), i(1, -1, -3, 9)
    setup = "SUB.S.CC R0, a, b"
    assert _rule_mask(setup, "LT", a=a, b=b) == [1, 0, 0, 1]
    assert _rule_mask(setup, "GT", a=a, b=b) == [0, 1, 0, 0]
    assert _rule_mask(setup, "GE", a=a, b=b) == [0, 1, 1, 0]
    assert _rule_mask(setup, "LE", a=a, b=b) == [1, 0, 1, 1]
    assert _rule_mask(setup, "OF", a=a, b=b) == [1, 1, 0, 0]


def test_negation_turns_add_into_sub_for_flags():
    # GP4 §2.X.4.3: "negation modifiers turn add operations into subtracts and vice versa";
    # the frontend marks them with cc_kind.  ADD a, -b (kind SUB): flags of a - b, so with b = 0
    # CF = 1 (a >= 0) whereas the literal addition a + 0 has no carry.
    a, b = i(5, 3, 0, 0x80000000), i(0, 5, 0, 1)
    sub = flags_after("ADD.U.CC R0, a, -b  #kind=SUB", a=a, b=b)
    assert [g[3] for g in sub] == [1, 0, 1, 1]
    plain = flags_after("SUB.U.CC R0, a, b", a=a, b=b)
    assert sub == plain
    # without cc_kind the executor infers SUB from the negate
    assert flags_after("ADD.U.CC R0, a, -b", a=a, b=b) == plain
    # -a + b -> flags of b - a
    assert flags_after("ADD.U.CC R0, -a, b  #kind=SUB", a=a, b=b) == \
        flags_after("SUB.U.CC R0, b, a", a=a, b=b)
    # SUB a, -b (kind ADD): flags of a + b: 0xFFFFFFFF + 1 carries
    got = flags_after("SUB.U.CC R0, a, -b  #kind=ADD", a=i(0xFFFFFFFF, 1, 0, 0), b=i(1, 1, 0, 0))
    assert got[0] == (0, 1, 0, 1) and got[1] == (0, 0, 0, 0)
    # -a - b: OF/CF undefined -> cleared (project choice)
    got = flags_after("ADD.S.CC R0, -a, -b  #kind=UNDEF_OFCF", a=i(INT_MIN, 1, 0, 0),
                      b=i(INT_MIN, 0, 0, 0))
    assert all(g[2] == 0 and g[3] == 0 for g in got)


def test_mad_sad_flags_describe_final_addition():
    # digest §6.2/§12 item 27: MAD/SAD carry and overflow of the final addition
    got = flags_after("MAD.U.CC R0, a, b, c", a=i(1, 2, 0x10000, 0), b=i(0xFFFFFFFF, 0x80000000,
                      0x10000, 0), c=i(1, 1, 0, 0))
    assert got[0] == (0, 1, 0, 1)          # 0xFFFFFFFF + 1: carry
    assert got[1] == (0, 0, 0, 0)          # product wraps to 0 (no flag), + 1
    assert got[2] == (0, 1, 0, 0)
    got = flags_after("SAD.U.CC R0, a, b, c", a=i(0, 5, 0, 0), b=i(0xFFFFFFFF, 3, 0, 0),
                      c=i(1, 0x7FFFFFFF, 0, 0))
    assert got[0] == (0, 1, 0, 1) and got[1] == (1, 0, 1, 0)


def test_mul_flags_never_carry():
    # GP4 MUL: integer multiply CC updates clear OF and CF even on overflow
    got = flags_after("MUL.U.CC R0, a, b", a=i(0x10000, 0xFFFFFFFF, 0, 0), b=i(0x10000, 2, 0, 0))
    assert got[0] == (0, 1, 0, 0) and got[1] == (1, 0, 0, 0)


def test_canonical_mask_example():
    # digest §6.4 (VP2 §2.14.2.2 ...), in NV4 flags: LT=SF, EQ=ZF, GT=none, UN=SF|ZF
    text = """
        MOV.CC R0, a
        MOV.CC R0.xyz, a.yzwx
        MOV.CC R0 (NE), a.zywx
        MOV o, R0
    """
    got = flags_after(text, a=f(-2, 0, 2, NAN))
    assert got == [(0, 1, 0, 0), (0, 1, 0, 0), (1, 1, 0, 0), (1, 0, 0, 0)]   # EQ EQ UN LT
    p = build(text, inputs={"a": "vertex.attrib[0]"}, outputs={"o": "result.color"})
    assert bits_equal(execute(p, {"a": f(-2, 0, 2, NAN)}).float("o"), [[0, 0, NAN, -2]])


def test_replicated_cc_mask_and_old_cc():
    # digest §4.2: (GT.x) masks every component by CC.x; the mask reads the CC before the op
    p = build("""
        MOV.CC R0, a
        MOV o, 5
        MOV o (GT.x), b
        MOV.CC q (GT), b
    """, inputs={"a": "vertex.attrib[0]", "b": "vertex.attrib[1]"},
        outputs={"o": "result.color", "q": "result.texcoord[0]"})
    r = execute(p, {"a": f(1, -1, 1, -1), "b": f(-7, -8, 9, 10)})
    assert bits_equal(r.float("o"), [[-7, -8, 9, 10]])
    assert bits_equal(r.float("q"), [[-7, 0, 9, 0]])
    # after the last instruction CC.x = LT (from -7): GT.x now fails everywhere
    r2 = flags_after("MOV.CC R0, a\nMOV.CC q (GT), b", a=f(1, -1, 1, -1), b=f(-7, -8, 9, 10))
    assert r2 == [(1, 0, 0, 0), (1, 0, 0, 0), (0, 0, 0, 0), (1, 0, 0, 0)]


def test_cc_update_only_enabled_components_and_after_saturation():
    # digest §4.3: masked-off components keep their CC; CC sees the saturated value
    # (ADD_SAT R0, -1, 0 -> CC = EQ, not LT)
    got = flags_after("MOV.CC R0, a\nADD.SAT.CC R0.xz, b, 0", a=f(-1, -1, -1, -1), b=f(-1, 5, 2, 0))
    assert got == [(0, 1, 0, 0), (1, 0, 0, 0), (0, 0, 0, 0), (1, 0, 0, 0)]


def test_cc1_independent_of_cc0():
    got0 = flags_after("MOV.CC1 R0, a", a=f(-1, -1, -1, -1))
    got1 = flags_after("MOV.CC1 R0, a", cc=1, a=f(-1, -1, -1, -1))
    assert got0 == [(0, 1, 0, 0)] * 4 and got1 == [(1, 0, 0, 0)] * 4


def test_scalar_result_cc_update():
    # a scalar result is replicated; the CC updates for the written components only
    got = flags_after("DP4.CC R0.y, a, a", a=f(1, 0, 0, 0))
    assert got == [(0, 1, 0, 0), (0, 0, 0, 0), (0, 1, 0, 0), (0, 1, 0, 0)]


def test_dummy_cc_destination():
    # digest §6.1/§12 item 4: "MOVC CC, R0" -- a CC-kind destination only updates flags
    from xlate.ir.model import Register, RegKind
    p = build("MOV.CC CC, a" + _READ_FLAGS.format(n=""), inputs={"a": "vertex.attrib[0]"},
              outputs={k: f"result.texcoord[{j}]" for j, k in enumerate(["fs", "fz", "fo", "fc"])},
              registers=[Register("CC", RegKind.CC)])
    r = execute(p, {"a": f(-1, 0, 1, NAN)})
    assert [int(v) for v in r.outputs["fs"][0]] == [1, 0, 0, 1]
    assert [int(v) for v in r.outputs["fz"][0]] == [0, 1, 0, 1]
