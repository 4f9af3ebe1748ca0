"""The direct SPIR-V module's departures from the executor on components whose value the
program leaves to the implementation (an Inf or NaN it computes reaches them), shown by the
executor's counterfactual runs (xlate/verify/nonfinite_runs.py,
direct_check.nonfinite_components); any other departure stays a mismatch."""
from __future__ import annotations

import numpy as np
import pytest

from conftest import gl_runner
from xlate.verify import core
from xlate.verify.core import verify_source
from xlate.verify.direct_check import nonfinite_components
from xlate.verify.generate import generate
from xlate.verify.output_compare import compare_all, diff_key


def _arbfp_2003() -> str:
    """Generated ARBfp seed 2003: ``XPD result.color.xy, r0, r1.y`` with r0 the fog
    coordinate (f, 0, 0, 1), so x = 0 * r1.y - 0 * r1.y: NaN where r1.y is an Inf (inputs
    seed 2000, lane 253).  lavapipe gives 0.0 from the direct module, which spells each
    product out; glslang's module gives the NaN."""
    text = generate("arbfp", 2003, "fragment", 12, frozenset())
    assert "XPD result.color.xy, r0, r1.y;" in text, "the generator no longer writes it"
    return text


def test_a_direct_departure_on_a_value_an_infinity_reaches_is_not_counted(monkeypatch):
    runner = gl_runner("vulkan")
    seen = []

    def spy(program, facts, reflection, gen, lanes, cap, apart):
        free = nonfinite_components(program, facts, reflection, gen, lanes, cap, apart)
        seen.append((program, facts, reflection, gen, lanes, cap, apart, free))
        return free
    monkeypatch.setattr(core, "nonfinite_components", spy)
    rep = verify_source(_arbfp_2003(), "arbfp2003.fp", lanes=256, seed=2000, runner=runner,
                        backend="vulkan", via="direct")
    if not seen:
        assert rep.status == "pass", rep.reason
        pytest.skip("this lavapipe gives the NaN from the direct module too: no departure "
                    "to judge")
    program, facts, reflection, gen, lanes, cap, apart, free = seen[-1]
    assert rep.status == "pass", rep.reason
    assert {diff_key(d) for d in apart} == free
    assert any("whose executor value depends on an Inf or NaN" in n for n in rep.notes)

    # the same capture with one more word wrong on a lane no Inf or NaN reaches: that
    # departure is counted
    from xlate.verify.draw_run import run_executor
    res = run_executor(program, gen, lanes)
    name = next(n for n in cap.outputs if "color" in n)
    words = np.array(cap.outputs[name], np.uint32)
    nan_lanes = {d.lane for d in apart}
    killed = np.zeros(lanes, bool) if cap.killed is None else np.asarray(cap.killed, bool)
    finite = [lane for lane in range(lanes) if lane not in nan_lanes and not killed[lane]
              and np.isfinite(words[lane].view(np.float32)).all()]
    lane = finite[0]
    words[lane, 0] ^= 1
    wrong = type(cap)(outputs={**cap.outputs, name: words}, killed=cap.killed)
    diffs, _ = compare_all(program, facts, reflection, res, wrong, [], strict=True)
    added = [d for d in diffs if d.lane == lane]
    assert added, "the changed word is not compared"
    free2 = nonfinite_components(program, facts, reflection, gen, lanes, wrong, apart + added)
    assert free2 == free


MD2_SHADOW = ("cg/gp4gp/cg-toolkit__examples__OpenGL__advanced__gs_md2render__gs_md2shadow."
              "cgfx__MD2_AddSingleLight_geometry_sans_normal.gp")


def test_a_geometry_programs_direct_departures_stay_counted():
    """A geometry lane emits several vertices, and a difference's key (output, lane,
    component) does not say which: the first version matched a departure with another
    vertex's counterfactual word and freed it -- the direct mutation campaign (seed 10) passed
    cg gs_md2shadow with its normals' flip inverted ('IF (NE.x)' -> 'IF (EQ.x)' in the
    lowered tree).  Geometry departures are not freed: the mutant is caught."""
    from conftest import shared_corpus_or_skip
    from xlate.frontends import parse_program
    from xlate.verify import mutants as M
    from xlate.verify import mutants_tree as T
    from xlate.verify.draw_run import runner_profile
    path = shared_corpus_or_skip(MD2_SHADOW)
    text = path.read_text()
    runner = gl_runner("vulkan")
    cands, _ = T.program_candidates(parse_program(text, str(path)), runner_profile(runner),
                                    ("cc",))
    sites = [m for m in cands["cc"] if m.before == "IF (NE.x)" and m.after == "IF (EQ.x)"]
    assert len(sites) == 1, [(m.before, m.after) for m in cands["cc"]]
    pr = M.mutate_program(text, str(path), "test", runner, per_program=1, seed=10,
                          mutations=sites, target="spirv-direct")
    assert pr.status == "clean", pr.status
    assert [(r.outcome, r.status) for r in pr.mutants] == [("caught", "mismatch")], \
        [(r.outcome, r.reason) for r in pr.mutants]


def test_a_wrong_integer_output_whose_words_look_like_nans_is_caught():
    """Generated NV4 fragment 11: icolor = TRUNC.S of a parameter, (-766, -5, 0, -1); the
    direct tree mutant 'MOV.S icolor, I0.yyzw' writes -5 for -766, both a float NaN's bits.
    The output comparison took them for one NaN and passed it (the harness then counted it
    'edge-only': no run differed from it either).  Integers are compared exactly: caught."""
    from xlate.frontends import parse_program
    from xlate.verify import mutants as M
    from xlate.verify import mutants_tree as T
    from xlate.verify.draw_run import runner_profile
    text = generate("nv4", 11, "fragment", 12, frozenset())
    runner = gl_runner("vulkan")
    cands, _ = T.program_candidates(parse_program(text, "nv4f11.fp"), runner_profile(runner),
                                    ("swizzle",))
    sites = [m for m in cands["swizzle"] if m.after == "MOV.S icolor, I0.yyzw"]
    assert len(sites) == 1, "the generator no longer writes it"
    pr = M.mutate_program(text, "nv4f11.fp", "test", runner, per_program=1, seed=10,
                          mutations=sites, target="spirv-direct")
    assert pr.status == "clean", pr.status
    assert [(r.outcome, r.status) for r in pr.mutants] == [("caught", "mismatch")], \
        [(r.outcome, r.reason) for r in pr.mutants]


@pytest.mark.parametrize("expected, got, kind, integer, same", [
    (0x00000002, 0x00000000, "value", False, True),     # a denormal flushed (GLSL 4.50 §4.7.1)
    (0x80004000, 0x00000000, "value", False, True),     # either sign of zero
    (0x00000002, 0x00000001, "value", False, False),    # another denormal: no flush
    (0x00800000, 0x00000000, "value", False, False),    # the smallest normal is no denormal
    (0x00000000, 0x00000002, "value", False, False),    # a zero given as a denormal
    (0x00000002, 0x00000000, "value", True, False),     # an integer 2 is not a float
    (0x00000002, 0x00000000, "memory", False, False),   # a buffer word carries no type
    (0x80000000, 0x00000000, "value", False, True),     # zeros
    (0x7FC00000, 0xFFC00001, "value", False, True),     # NaNs
])
def test_words_the_direct_check_takes_for_one_value(expected, got, kind, integer, same):
    from xlate.verify.compare import Difference
    from xlate.verify.direct_check import same_value_by_glsl
    d = Difference("result.texcoord[0]", 0, 0, expected, got, kind=kind, integer=integer)
    assert same_value_by_glsl(d) == same


def test_a_denormal_the_direct_module_flushes_at_an_output_passes():
    """Generated NV4 vertex seed 2305 (inputs seed 2300): ``DST.F.SSAT R3.xzw, R0.y, |R5|``
    passes R0.y's denormals through the clamp; lavapipe flushes them from the direct module,
    not from glslang's."""
    runner = gl_runner("vulkan")
    text = generate("nv4", 2305, "vertex", 12, frozenset())
    assert "DST.F.SSAT R3.xzw, R0.y, |R5|;" in text, "the generator no longer writes it"
    rep = verify_source(text, "nv4-2305.vp", lanes=256, seed=2300, runner=runner,
                        backend="vulkan", via="direct")
    assert rep.status == "pass", rep.reason
