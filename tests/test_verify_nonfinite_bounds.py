"""What an operand's NaN or infinity frees (permits.rule_nonfinite), bounded:

* a select (MIN, MAX, CMP ...) may select either operand, or give a NaN -- not any value
  (permits_site.selected_values; mutation campaign seed 17: a MINNUM that read another
  component of its finite operand passed as ``nonfinite``, corpus TGSI vl_compositor_cs-7);
* a NaN the instruction does not read frees nothing: DP3 does not read w, LIT does not read z
  (permits_site.nonfinite_reach);
* an overflow of finite operands (ADD, MUL, DP4, EX2 ...) gives an infinity of its sign or a
  value of the top binade (ir.ops.OVERFLOWS) -- an operation outside a GLSL function's domain
  (log2(0)) still any value.
"""
from __future__ import annotations

import numpy as np
import pytest

from xlate.verify import permits

from test_verify_texture_freedoms import f32, judge

F32 = np.float32
NAN, INF = float("nan"), float("inf")
#: per component: a NaN against a number, an infinity against a number, a number against a
#: NaN, a number against -inf
A = (NAN, INF, 1.0, 2.0)
B = (5.0, 5.0, NAN, -INF)


def _verdicts(text, value, inputs):
    """rule_nonfinite's verdicts where the implementation gives ``value`` (True where that is
    the executor's own word: nothing to permit)."""
    def imp(e):
        out = e.copy()
        out[:] = f32(*value)
        return out
    hook = judge(text, 0, imp, {k: np.array([v] * 4, F32) for k, v in inputs.items()}, {},
                 rule=permits.rule_nonfinite)
    differ = hook.exe != f32(*value)[None, :]
    return (hook.verdicts | ~differ)[0].tolist()


MIN = "!!NVfp4.0\nMIN result.color, fragment.texcoord[0], fragment.texcoord[1];\nEND\n"
MAX_SAT = "!!NVfp4.0\nMAX.SAT result.color, fragment.texcoord[0], fragment.texcoord[1];\nEND\n"
CMP = ("!!NVfp4.0\nCMP result.color, fragment.texcoord[0], fragment.texcoord[1], "
       "fragment.texcoord[2];\nEND\n")
TEX = {"fragment.texcoord[0]": A, "fragment.texcoord[1]": B}


@pytest.mark.parametrize("value,expected", [
    ((5.0, INF, 1.0, -INF), [True] * 4),              # the other operand each time
    ((NAN, 5.0, NAN, 2.0), [True] * 4),               # the executor's (a > b ? b : a) and NaNs
    ((4.0, 4.0, 4.0, 4.0), [False] * 4),              # neither operand
])
def test_min_of_a_non_finite_operand_selects_one_of_them(value, expected):
    assert _verdicts(MIN, value, TEX) == expected


def test_a_saturated_select_gives_its_operand_saturated():
    # MAX.SAT(NaN, 5) and MAX.SAT(inf, 5): 1.0 either way; 5.0 unsaturated is no select's value
    assert _verdicts(MAX_SAT, (1.0, 1.0, 1.0, 1.0), TEX)[:2] == [True, True]
    assert _verdicts(MAX_SAT, (5.0, 5.0, 1.0, 1.0), TEX)[:2] == [False, False]
    # a NaN passes saturation (GP4 2.X.4.3: "if (r < lo) r = lo; else if (r > hi) r = hi"); an
    # infinity does not
    assert _verdicts(MAX_SAT, (NAN, INF, 1.0, 1.0), TEX)[:2] == [True, False]


def test_cmp_of_a_nan_condition_selects_b_or_c():
    inputs = {"fragment.texcoord[0]": (NAN, NAN, -INF, 1.0),
              "fragment.texcoord[1]": (1.0, 1.0, 1.0, 1.0),
              "fragment.texcoord[2]": (2.0, 2.0, 2.0, 2.0)}
    assert _verdicts(CMP, (1.0, 2.0, 1.0, 2.0), inputs)[:3] == [True, True, True]
    # a third value is no select's; -inf < 0 is an operation on an infinity, either outcome
    assert _verdicts(CMP, (3.0, NAN, 2.0, 2.0), inputs)[:3] == [False, True, True]
    assert _verdicts(CMP, (1.5, 1.5, 1.5, 2.0), inputs)[:3] == [False, False, False]


DP3 = "!!NVfp4.0\nDP3 result.color, fragment.texcoord[0], fragment.texcoord[1];\nEND\n"
LIT = "!!NVfp4.0\nLIT result.color, fragment.texcoord[0];\nEND\n"


@pytest.mark.parametrize("a,free", [((1.0, 2.0, 3.0, NAN), False),    # w: not read
                                    ((1.0, NAN, 3.0, 1.0), True)])     # y: read
def test_a_nan_the_dot_product_does_not_read_frees_nothing(a, free):
    inputs = {"fragment.texcoord[0]": a, "fragment.texcoord[1]": (1.0, 1.0, 1.0, 1.0)}
    assert _verdicts(DP3, (7.0, 7.0, 7.0, 7.0), inputs) == [free] * 4


def test_lit_of_a_nan_frees_only_what_reads_it():
    # LIT = (1, max(a.x, 0), a.x > 0 ? max(a.y, 0)^a.w : 0, 1): a NaN in a.z is never read; a
    # NaN in a.y reaches only the result's z; x and w are the constant 1.0
    assert _verdicts(LIT, (7.0, 7.0, 7.0, 7.0), {"fragment.texcoord[0]": (0.5, 0.5, NAN, 2.0)}) \
        == [False] * 4
    assert _verdicts(LIT, (7.0, 7.0, 7.0, 7.0), {"fragment.texcoord[0]": (0.5, NAN, 0.0, 2.0)}) \
        == [False, False, True, False]


MUL = "!!NVfp4.0\nMUL result.color, fragment.texcoord[0], fragment.texcoord[0];\nEND\n"
LG2 = "!!NVfp4.0\nLG2 result.color, fragment.texcoord[0].x;\nEND\n"


@pytest.mark.parametrize("value,expected", [
    ((5.0, 4.0, 5.0, 1e38), [False, True, False, True]),         # an overflow is no freedom
    ((INF, 4.0, 3.4e38, 1e38), [True, True, True, True]),        # IEEE's infinity, or near it
    ((-INF, 4.0, 2.0e38, 1e38), [False, True, True, True]),       # not the other sign's
    ((5.0, 4.0, 1.6e38, 1e38), [False, True, False, True]),       # below 2^127
])
def test_an_overflow_gives_infinity_or_near_it(value, expected):
    # 1e30 and 3e20 squared overflow; 2.0 and 1e19 do not
    assert _verdicts(MUL, value, {"fragment.texcoord[0]": (1e30, 2.0, 3e20, 1e19)}) == expected


def test_log2_of_zero_is_any_value():
    """GLSL 4.50 §8.2: log2(x) is undefined for x <= 0 -- no bound there."""
    assert _verdicts(LG2, (5.0, 5.0, 5.0, 5.0), {"fragment.texcoord[0]": (0.0, 1.0, 1.0, 1.0)}) \
        == [True] * 4


def test_the_bounds_give_way_where_the_operands_are_not_the_main_compilations():
    """On lanes whose operands the replay holds from a probe compilation that disagrees with
    the main one (probes.consistent_values: Site.inconsistent), the main compilation's
    operands are not known, and a bound that rests on them gives way: corpus TGSI etnaviv
    fragProg1-26, where Mesa folded ``0 * log2(0)`` to 0 in the main compilation (EX2 -> 1.0)
    while every probe kept the NaN, and a CMP of it gave 1.0 -- a false mismatch under the
    select bound."""
    def inconsistent_lane0(s):
        s.inconsistent = np.arange(len(s.exe)) == 0
        return permits.rule_nonfinite(s)

    def imp(e):
        out = e.copy()
        out[:] = f32(4.0, 4.0, 4.0, 4.0)
        return out
    hook = judge(MIN, 0, imp, {k: np.array([v] * 4, F32) for k, v in TEX.items()}, {},
                 rule=inconsistent_lane0)
    # x, y, z read a NaN or an infinity: free on lane 0 only; w (2 against -inf) too
    assert hook.verdicts[0].tolist() == [True] * 4
    assert hook.verdicts[1:].tolist() == [[False] * 4] * 3
