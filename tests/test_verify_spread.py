"""The native backend's ``propagated`` verdict (``xlate/verify/spread.py``): GL's 1e-5 per
operation, carried through the program.  The replay hook runs against 'driver values' that are
the executor's own, edited; no GL implementation is needed."""
from __future__ import annotations

import numpy as np

import xlate
from xlate.exec import execute
from xlate.verify.replay import ImplValues, ReplayHook

from test_verify_replay import _Record

F32 = np.float32

# the cancellation of bicubic-normal.fp: R1.z = a + b nearly cancels, the MUL reads it
CANCEL = ("!!ARBfp1.0\nTEMP r, s;\n"
          "ADD r.z, fragment.texcoord[0].x, fragment.texcoord[0].y;\n"
          "MUL s.y, r.z, 0.16666667;\n"
          "MOV result.color, s;\nEND\n")
INPUTS = {"fragment.texcoord[0]": [1.0002, -1.0001, 0.0, 0.0]}


def _replay(text, inputs, change, backend="native"):
    prog = xlate.parse(text)
    inputs = {k: np.array([v], F32) for k, v in inputs.items()}
    rec = _Record(len(prog.instructions))
    execute(prog, inputs=inputs, lanes=1, hooks=rec)
    values = {k: ImplValues(change.get(k, lambda w: w)(w.copy())) for k, w in rec.words.items()}
    hook = ReplayHook(prog, values, 1, backend)
    execute(prog, inputs=inputs, lanes=1, hooks=hook)
    return hook, rec


def _constant(value):
    def change(w):
        w[:] = np.full_like(w.view(F32), F32(value)).view(np.uint32)
        return w
    return change


def _scaled(c, factor):
    def change(w):
        f = w.view(F32)
        f[:, c] = f[:, c] * F32(factor)
        return w
    return change


def test_spread_of_a_cancellation_reaches_the_reader():
    """ADD's bound is 1e-5 of |a| + |b| (2.0003e-5 here, 200x its result 1e-4); the MUL that
    reads it may differ by 1/6 of that: 1.5e-2 relative is permitted there, 'propagated'."""
    hook, rec = _replay(CANCEL, INPUTS, {1: _scaled(1, 1.015)})
    assert not hook.unexplained
    assert ("propagated" in {v for (_, v) in hook.adopted})
    # the spread recorded for s.y: the MUL's own 1e-5 of |r.z / 6|, plus r.z's spread / 6,
    # plus the adopted value's distance from the executor's
    rz = float(rec.words[0].view(F32)[0, 2])
    sy = float(rec.words[1].view(F32)[0, 1])
    below, above = hook.spreads.of["s"][0, 1]
    own_add = 1e-5 * (abs(F32(1.0002)) + abs(F32(-1.0001)))
    gap = float(F32(sy) * F32(1.015)) - sy
    carried = 1e-5 * abs(rz * F32(0.16666667)) + own_add * 0.16666667
    # the adopted value lies above the executor's when sy > 0: the interval around it reaches
    # down to the executor's interval, not further up
    assert np.isclose(below, carried + max(gap, 0.0), rtol=1e-3)
    assert np.isclose(above, carried + max(-gap, 0.0), rtol=1e-3)


def test_beyond_the_propagated_spread_is_a_divergence():
    """Twice the bound is not permitted: the MUL's departure stays unexplained."""
    hook, _ = _replay(CANCEL, INPUTS, {1: _scaled(1, 1.5)})
    assert [(d.index, d.verdict) for d in hook.unexplained] == [(1, "")]   # unexplained


def test_no_spread_without_an_inexact_producer():
    """An operand that is an exact move of an input carries no spread: a MUL 1e-4 off (ten
    times its own bound) is a divergence."""
    text = ("!!ARBfp1.0\nTEMP r, s;\nMOV r, fragment.texcoord[0];\n"
            "MUL s, r, 0.5;\nMOV result.color, s;\nEND\n")
    hook, _ = _replay(text, {"fragment.texcoord[0]": [1.0, 2.0, 3.0, 4.0]},
                      {1: _scaled(0, 1.0001)})
    assert [(d.index, d.verdict) for d in hook.unexplained] == [(1, "")]   # unexplained


def test_a_compare_straddled_by_the_spread_takes_either_outcome():
    """SGE of a value whose spread reaches across the other operand: the driver's other
    outcome is permitted (the recomputation at the interval's end flips it)."""
    text = ("!!ARBfp1.0\nTEMP r, s;\n"
            "ADD r.x, fragment.texcoord[0].x, fragment.texcoord[0].y;\n"
            "SGE s, r.x, 0.0001;\nMOV result.color, s;\nEND\n")
    flip = {1: lambda w: np.where(w == 0x3F800000, 0, 0x3F800000).astype(np.uint32)}
    hook, _ = _replay(text, INPUTS, {1: flip[1], 2: flip[1]})
    assert not hook.unexplained and "propagated" in {v for (_, v) in hook.adopted}
    # far from the threshold the same flip is a divergence
    hook, _ = _replay(text.replace("0.0001", "0.5"), INPUTS, {1: flip[1], 2: flip[1]})
    assert [(d.index, d.verdict) for d in hook.unexplained] == [(1, "")]   # unexplained


def test_translations_never_get_the_spread():
    """The GL path holds a translation to its own exactness: the same departure is unexplained
    there (spread is native only)."""
    hook, _ = _replay(CANCEL, INPUTS, {1: _scaled(1, 1.015)}, backend="gl")
    assert hook.spreads is None
    assert [(d.index, d.verdict) for d in hook.unexplained] == [(1, "")]   # unexplained


def test_a_flipped_compare_carries_no_spread_downstream():
    """A decision within the spread takes one outcome or the other, not a range: after the
    adopted flip, the MUL reading it is held to the flipped value exactly (half a flip off is
    a divergence at the MUL)."""
    text = ("!!ARBfp1.0\nTEMP r, s, t;\n"
            "ADD r.x, fragment.texcoord[0].x, fragment.texcoord[0].y;\n"
            "SGE s, r.x, 0.0001;\nMUL t, s, 1000.0;\nMOV result.color, t;\nEND\n")
    flip = lambda w: np.where(w == 0x3F800000, 0, 0x3F800000).astype(np.uint32)  # noqa: E731

    def flipped_mul(w):
        f = w.view(F32)
        f[:] = np.where(f == 0, F32(500.0), F32(500.0))     # neither 0 nor 1000
        return w
    hook, _ = _replay(text, INPUTS, {1: flip, 2: flipped_mul})
    assert [(d.index, d.verdict) for d in hook.unexplained] == [(2, "")]
    assert hook.spreads.of["s"][0].tolist() == [[0.0, 0.0]] * 4


def test_cmp_near_zero_selects_either_operand_and_nothing_else():
    text = ("!!ARBfp1.0\nTEMP r, s;\n"
            "ADD r.x, fragment.texcoord[0].x, fragment.texcoord[0].y;\n"
            "CMP s, -r.x, 2.0, 3.0;\nMOV result.color, s;\nEND\n")

    near = {"fragment.texcoord[0]": [1.00001, -1.0, 0.0, 0.0]}    # r.x within 2e-5 of 0
    hook, rec = _replay(text, near, {1: _constant(3.0), 2: _constant(3.0)})
    assert float(rec.words[1].view(F32)[0, 0]) == 2.0        # the executor's choice
    assert not hook.unexplained and "propagated" in {v for (_, v) in hook.adopted}
    hook, _ = _replay(text, near, {1: _constant(2.5), 2: _constant(2.5)})
    assert [(d.index, d.verdict) for d in hook.unexplained] == [(1, "")]


def test_no_spread_claimed_across_a_pole():
    """RCP of a value whose spread reaches across zero: the interval bounds nothing, no
    spread is claimed (a driver value 10% off is a divergence)."""
    text = ("!!ARBfp1.0\nTEMP r, s, t;\n"
            "ADD r.x, fragment.texcoord[0].x, fragment.texcoord[0].y;\n"
            "MUL s.x, r.x, 1e-6;\nRCP t, s.x;\nMOV result.color, t;\nEND\n")
    hook, _ = _replay(text, {"fragment.texcoord[0]": [1.0, -0.99999994, 0.0, 0.0]},
                      {2: _scaled(0, 1.1)})
    assert hook.spreads.of["t"][0].tolist() == [[0.0, 0.0]] * 4
    assert [(d.index, d.verdict) for d in hook.unexplained] == [(2, "")]


def test_kil_within_the_spread_of_zero_takes_the_drivers_decision():
    """KIL of a value within its spread of zero: the driver kept the fragment, the executor
    would discard it -- the replay keeps it ('propagated'); a clearly negative value stays
    discarded (the outputs then differ: a mismatch)."""
    text = ("!!ARBfp1.0\nTEMP r;\n"
            "ADD r, fragment.texcoord[0].x, fragment.texcoord[0].y;\n"
            "KIL -r;\nMOV result.color, r;\nEND\n")

    def run(inputs):
        prog = xlate.parse(text)
        ins = {k: np.array([v], F32) for k, v in inputs.items()}
        rec = _Record(len(prog.instructions))
        execute(prog, inputs=ins, lanes=1, hooks=rec)
        values = {k: ImplValues(w) for k, w in rec.words.items()}
        hook = ReplayHook(prog, values, 1, "native", impl_killed=np.array([False]))
        res = execute(prog, inputs=ins, lanes=1, hooks=hook)
        return hook, res
    hook, res = run({"fragment.texcoord[0]": [1.00001, -1.0, 0.0, 0.0]})
    assert not res.killed[0] and ("propagated" in {v for (_, v) in hook.adopted})
    hook, res = run({"fragment.texcoord[0]": [1.5, -1.0, 0.0, 0.0]})
    assert res.killed[0] and not hook.adopted


def _one_compilation(scale: float):
    """A vertex program replayed against 'driver values' equal to the executor's (the one
    probe compilation), and a main run whose last writer on lane 0 is the executor's value
    times ``scale``: the remaining differences after :func:`replay.main_run_lanes`."""
    from xlate.verify import compare as cmp
    from xlate.verify.analysis import analyse
    from xlate.verify.capture import Capture
    from xlate.verify.draw_run import builtin_values_for, run_executor
    from xlate.verify.output_compare import compare_all
    from xlate.verify.inputs import generate
    from xlate.verify.native_verify import output_keys, reflection_for
    from xlate.verify.replay import main_run_lanes
    text = ("!!ARBvp1.0\nTEMP t;\nMUL t, vertex.position, program.local[0];\n"
            "ADD result.texcoord[0], t, program.local[1];\n"
            "MOV result.position, vertex.position;\nEND\n")
    prog = xlate.parse(text)
    facts = analyse(prog, set(cmp.INEXACT))
    lanes = 8
    gen = generate(prog, facts, lanes, 3, builtin_values=builtin_values_for(prog.stage, lanes))
    rec = _Record(len(prog.instructions))
    run_executor(prog, gen, lanes, hooks=rec)
    values = {k: ImplValues(w) for k, w in rec.words.items()}
    keys = output_keys(prog)
    reflection = reflection_for(keys)
    main_words = rec.words[1].copy()
    f = main_words.view(F32)
    f[0, 0] = f[0, 0] * F32(scale)
    outputs = {"result.texcoord[0]": main_words, "result.position": rec.words[2].copy()}
    cap = Capture(outputs=outputs)
    hook = ReplayHook(prog, values, lanes, "native")
    res = run_executor(prog, gen, lanes, hooks=hook)
    diffs, _ = compare_all(prog, facts, reflection, res, cap, [], strict=True)
    assert [d.lane for d in diffs] == [0]            # the probe compilation's run differs
    return main_run_lanes(prog, facts, reflection, gen, cap, lanes, values, {}, hook,
                          {1: main_words}, diffs), hook


def test_main_run_writers_explain_a_rounding_of_the_main_compilation():
    """One probe compilation, a main run 1 ulp off at the last writer: replayed with the main
    run's writer the lane is explained (GL's precision at the ADD), the probe compilation's
    alone could not."""
    left, hook = _one_compilation(1.0 + 2.0 ** -23)
    assert left == [] and any(v == "tolerance" for (_, v) in hook.adopted)


def test_main_run_writers_do_not_explain_a_wrong_output():
    left, _ = _one_compilation(1.01)
    assert [d.lane for d in left] == [0]


FRC_TEXT = ("!!ARBfp1.0\nTEMP r, s;\n"
            "MUL r.x, fragment.texcoord[0].x, fragment.texcoord[0].y;\n"
            "FRC s, r.x;\nMOV result.color, s;\nEND\n")


def test_fraction_of_a_value_known_to_more_than_a_unit_is_any_fraction():
    """FRC of a product whose GL bound (1e-5 of 4.4e9) is far over 1: every fraction is a
    correct result (a hash such as FRC(SIN(x) * 43758.5), mudlord oldtv)."""
    hook, _ = _replay(FRC_TEXT, {"fragment.texcoord[0]": [43758.5, 1e5, 0.0, 0.0]},
                      {1: _constant(0.123), 2: _constant(0.123)})
    assert not hook.unexplained and "propagated" in {v for (_, v) in hook.adopted}


def test_fraction_of_a_value_known_well_is_held_to_it():
    """The same FRC of 2.5 * 1.5 (bound 4e-5, no integer near): 0.1 off is a divergence;
    and of a value straddling an integer within its bound, the other side (0.99999) too --
    the outcomes are near 0 or near 1, a jump the spread does not carry."""
    hook, _ = _replay(FRC_TEXT, {"fragment.texcoord[0]": [2.5, 1.5, 0.0, 0.0]},
                      {1: _constant(0.85), 2: _constant(0.85)})
    assert [(d.index, d.verdict) for d in hook.unexplained] == [(1, "")]
    hook, _ = _replay(FRC_TEXT, {"fragment.texcoord[0]": [3.0, 1.0, 0.0, 0.0]},
                      {1: _constant(0.99999), 2: _constant(0.99999)})
    assert [(d.index, d.verdict) for d in hook.unexplained] == [(1, "")]


SQRT_IDIOM = ("!!ARBfp1.0\nTEMP r, s, t;\n"
              "ADD r.x, fragment.texcoord[0].x, fragment.texcoord[0].y;\n"
              "RSQ s.x, r.x;\nRCP t.x, s.x;\nMOV result.color, t;\nEND\n")
#: r.x = 1e-6 (rounded), its spread 2e-5 (1e-5 of |a| + |b|) reaches zero
NEAR_ZERO = {"fragment.texcoord[0]": [1.000001, -1.0, 0.0, 0.0]}


def test_rsq_of_a_value_within_its_spread_of_zero_is_bounded_below_only():
    """ARB RSQ reads |x|: an operand interval reaching zero takes RSQ up to +inf (and no
    further down than RSQ of the interval's far end) -- a one-sided spread."""
    hook, rec = _replay(SQRT_IDIOM, NEAR_ZERO, {})
    assert not hook.unexplained
    below, above = hook.spreads.of["s"][0, 0]
    rx = float(rec.words[0].view(F32)[0, 0])
    sx = float(rec.words[1].view(F32)[0, 0])
    far = rx + 1e-5 * (abs(float(F32(1.000001))) + 1.0)
    assert above == np.inf
    assert np.isclose(below, sx - 1 / np.sqrt(far), rtol=1e-4)


def test_rcp_after_rsq_near_zero_is_bounded_by_the_square_root():
    """cg's sqrt idiom (crt-geom): RCP of that RSQ lies in (0, sqrt(far end)] -- a driver
    value twice the executor's is 'propagated'; one past sqrt(far end) is a divergence."""
    hook, rec = _replay(SQRT_IDIOM, NEAR_ZERO, {2: _scaled(0, 2.0)})
    assert not hook.unexplained and "propagated" in {v for (_, v) in hook.adopted}
    rx = float(rec.words[0].view(F32)[0, 0])
    tx = float(rec.words[2].view(F32)[0, 0])
    far = rx + 1e-5 * (abs(float(F32(1.000001))) + 1.0)
    beyond = 1.01 * np.sqrt(far) / tx                  # 1% past the interval's end
    hook, _ = _replay(SQRT_IDIOM, NEAR_ZERO, {2: _scaled(0, beyond)})
    assert [(d.index, d.verdict) for d in hook.unexplained] == [(2, "")]
    # without the spread reaching zero (r.x = 0.25, spread 2e-5) twice is a divergence too
    hook, _ = _replay(SQRT_IDIOM, {"fragment.texcoord[0]": [1.25, -1.0, 0.0, 0.0]},
                      {2: _scaled(0, 2.0)})
    assert [(d.index, d.verdict) for d in hook.unexplained] == [(2, "")]


def test_negation_swaps_the_sides_of_a_spread():
    from xlate.ir.model import Source
    from xlate.verify.spread import Spreads
    prog = xlate.parse(SQRT_IDIOM)
    spreads = Spreads(prog, 1)
    spreads.of["r"] = np.array([[[1.0, np.inf]] * 4])
    lanes = np.array([0])
    assert spreads.operand(Source("r"), lanes)[0, 0].tolist() == [1.0, np.inf]
    assert spreads.operand(Source("r", neg=True), lanes)[0, 0].tolist() == [np.inf, 1.0]
    # |x| takes the wider side both ways: here infinite both ways, which claims nothing
    assert spreads.operand(Source("r", abs=True), lanes)[0, 0].tolist() == [0.0, 0.0]


def test_an_adopted_value_widens_the_spread_toward_the_executors_only():
    """after_adoption: the interval around the adopted value reaches back to the executor's
    interval, on that side alone (a flushed denormal: [0, d], not [-d, d])."""
    from xlate.verify.spread import after_adoption
    s = after_adoption(np.zeros((1, 1, 2)), np.array([[2.0 ** -128]]), np.array([[0.0]]))
    assert s[0, 0].tolist() == [0.0, 2.0 ** -128]
    s = after_adoption(np.full((1, 1, 2), 0.5), np.array([[1.0]]), np.array([[1.25]]))
    assert s[0, 0].tolist() == [0.75, 0.5]


def _x_set(value):
    def change(w):
        w.view(F32)[:, 0] = F32(value)
        return w
    return change


def test_largest_finite_is_correct_where_an_exact_result_in_reach_is_near_it():
    """xbr-lv2-small-details: RCP(FLT_MAX) = 2^-128 flushed by the driver (ftz, adopted), the
    product by 0.5 and 2 kept, then RCP: the executor's RCP(0) = inf, the driver FLT_MAX (Mesa
    folds rcp(rcp(x)) to x).  The operand's interval [0, 2^-128] reaches the exact result
    2^128, within 1e-5 of FLT_MAX: 'propagated'.  Without a spread (an exact 0 operand) the
    same FLT_MAX is a divergence."""
    text = ("!!ARBfp1.0\nTEMP r, s, t;\nRCP r.x, fragment.texcoord[0].x;\n"
            "MUL s.x, r.x, 0.5;\nMUL s.x, s.x, 2.0;\nRCP t.x, s.x;\n"
            "MOV result.color, t;\nEND\n")
    big = float(np.finfo(F32).max)
    hook, rec = _replay(text, {"fragment.texcoord[0]": [big, 0.0, 0.0, 0.0]},
                        {0: _constant(0.0), 1: _constant(0.0), 2: _constant(0.0),
                         3: _constant(big), 4: _x_set(big)})
    assert float(rec.words[0].view(F32)[0, 0]) == 2.0 ** -128
    assert float(rec.words[3].view(F32)[0, 0]) == np.inf
    assert not hook.unexplained
    assert {v for (_, v) in hook.adopted} >= {"ftz", "propagated"}
    # the same driver value from an exact zero: RCP(0) is +inf only
    text0 = ("!!ARBfp1.0\nTEMP t;\nRCP t.x, fragment.texcoord[0].x;\n"
             "MOV result.color, t;\nEND\n")
    hook, _ = _replay(text0, {"fragment.texcoord[0]": [0.0, 0.0, 0.0, 0.0]},
                      {0: _constant(big)})
    assert [(d.index, d.verdict) for d in hook.unexplained] == [(0, "")]


def test_min_of_tied_operands_moves_both_ways():
    """MIN of two equal values, each known to its spread: moving one operand up alone leaves
    the result, moving both does not (crt-easymode's MIN R0.xyz, R3, R0) -- so a finite
    effect is carried both ways, and the driver's value a little above is 'propagated'."""
    text = ("!!ARBfp1.0\nTEMP r, s, t;\n"
            "ADD r.x, fragment.texcoord[0].x, fragment.texcoord[0].y;\n"
            "ADD s.x, fragment.texcoord[0].x, fragment.texcoord[0].y;\n"
            "MIN t.x, r.x, s.x;\nMOV result.color, t;\nEND\n")
    inputs = {"fragment.texcoord[0]": [1.25, 1.0, 0.0, 0.0]}
    hook, _ = _replay(text, inputs, {})
    below, above = hook.spreads.of["t"][0, 0]
    assert below == above > 0
    hook, _ = _replay(text, inputs, {2: _scaled(0, 1.000001), 3: _scaled(0, 1.000001)})
    assert not hook.unexplained and "propagated" in {v for (_, v) in hook.adopted}
    hook, _ = _replay(text, inputs, {2: _scaled(0, 1.001), 3: _scaled(0, 1.001)})
    assert [(d.index, d.verdict) for d in hook.unexplained] == [(2, "")]
