"""``xlate verify`` must not pass a wrong translation (issue 17 §2): a CI-sized mutation run.

Each mutant makes the GLSL the verifier runs wrong in one small way (xlate/verify/mutants.py;
the campaign tool is tools/verify_mutants.py).  The tests check the harness itself (every
mutation kind yields a live mutant on a program built for it; equivalent and live mutants are
told apart; a mutation follows its statement into re-numbered probe shaders) and then that
every live mutant of a fixed sample is caught.  The cases today's verifier explains away are
listed in ``FOOLED`` as strict xfails: when the verdict rewrite catches one, its xfail turns
into a failure and the entry must go.
"""
from __future__ import annotations

import pytest

from conftest import gl_runner

from xlate import api
from xlate.backends.glsl import emit_glsl
from xlate.verify import mutants as M
from xlate.verify.generate import generate

LIVE = ("caught",) + M.FOOLED

# One program per family of mutation kinds, every statement of which reaches an output.
ARBFP = """!!ARBfp1.0
PARAM k = {0.5, 2.0, 3.0, 4.0};
TEMP r, t, d;
MOV d, fragment.texcoord[1].yxzw;
ADD r, fragment.texcoord[0], k;
MUL r, r, fragment.texcoord[1].yxzw;
SLT t, r, fragment.texcoord[0];
ADD_SAT r, r, t;
TEX t, fragment.texcoord[0], texture[0], 2D;
ADD r, r, t;
MOV result.color, r;
END
"""
NVVP4 = """!!NVvp4.0
TEMP R0, R1;
MOV.F R0, vertex.attrib[0];
MOV.F.CC R1, vertex.attrib[1];
MOV.F R0 (GT.x), vertex.attrib[2];
REP.S 3;
ADD.F R0, R0, vertex.attrib[1];
ENDREP;
MOV.F result.position, R0;
MOV.F result.color, R1;
END
"""
PROGRAMS = {"kinds.fp": ARBFP, "kinds.vp": NVVP4}

# kind -> (program, the mutated statement after the mutation: a substring)
KIND_SITES = {
    # (the translation inlines the first ADD into the MUL, the SLT, ADD_SAT and TEX into the
    # last ADD: backends/glsl/expressions.py)
    "arith": ("kinds.fp", "r = (fragment_texcoord_0 + vec4(0.5, 2.0, 3.0, 4.0)) / "
              "fragment_texcoord_1.yxzw;"),
    "literal": ("kinds.fp", "vec4(0.505, 2.0, 3.0, 4.0)"),
    "literal-ulp": ("kinds.fp", "vec4(0.5, 2.0000002, 3.0, 4.0)"),
    "swizzle": ("kinds.fp", "r = (fragment_texcoord_0 + vec4(0.5, 2.0, 3.0, 4.0)) * "
                "fragment_texcoord_1.zxzw;"),
    "saturate": ("kinds.fp", "result_color0 = (r + vec4(lessThan(r, fragment_texcoord_0))) + "
                 "texture(texture0, fragment_texcoord_0.xy);"),
    "compare": ("kinds.fp", "greaterThanEqual(r, fragment_texcoord_0)"),
    "texcoord": ("kinds.fp", "texture(texture0, fragment_texcoord_0.yy)"),
    "output": ("kinds.fp", "result_color0.xyz = (xl_sat(r + vec4(lessThan(r, "
               "fragment_texcoord_0))) + texture(texture0, fragment_texcoord_0.xy)).xyz;"),
    "cc": ("kinds.vp", "if (!(xl_cc0.x > 0.0)) R0 = vertex_attrib_2;"),
    "loop": ("kinds.vp", "xl_i1 <= xl_n2"),
}

# The fixed sample: generated programs (dialect, stage, seed) and programs of corpus/ that
# verify cleanly; the first MUTANTS non-equivalent mutants of each (seed 1) are checked.
SAMPLE = [("nv4", "fragment", 2), ("arbvp-nv2", "vertex", 2), ("tgsi", "vertex", 1),
          ("arbfp", "fragment", 2)]
CORPUS = ["corpus/nv4/fp4_swz_normal_decode.fp", "corpus/nv4/vp4_loop_table.vp",
          "corpus/nv4/fp4_rep_cont_facing.fp"]
MUTANTS = 4

# Live mutants the current verifier passes (program, index among the non-equivalent
# mutants, or kind for KIND_SITES) -> what it said.  Measured with tools/verify_mutants.py.
#: mutants the verifier passes (program, mutant index) / (kind) -> why: strict xfails.  Empty
#: since the replay (xlate/verify/replay.py) shows every explanation: the four the old verifier
#: passed (a discard condition inverted as 'tolerance', an output dropped, a loop count + 1, a
#: constant 1 ulp off absorbed by the comparison's tolerance) are caught.
FOOLED: dict[tuple[str, int], str] = {}
FOOLED_KINDS: dict[str, str] = {}


@pytest.fixture(scope="module")
def runner():
    return gl_runner("gl")


def _glsl(text: str) -> str:
    return emit_glsl(api.parse(text, filename="t"), "glsl450").source

def _site(kind: str) -> M.Mutation:
    prog, after = KIND_SITES[kind]
    found = [m for m in M.candidates(_glsl(PROGRAMS[prog]), (kind,))[kind] if after in m.after]
    assert found, f"no {kind} mutation gives {after!r}"
    return found[0]


# ---- the harness, without GL -------------------------------------------------------------------

def test_every_kind_has_a_site():
    for kind in M.KINDS:
        _site(kind)


def test_mutation_follows_renumbered_and_precise_statement():
    """Probe shaders number their temporaries differently and the 'precise' re-run qualifies
    declarations: the mutation must still find its statement (and only it)."""
    glsl = _glsl(NVVP4)
    m = _site("loop")
    probe = glsl.replace("xl_i1", "xl_i17").replace("xl_n2", "xl_n9") \
                .replace("precise highp vec4 R0", "precise highp precise vec4 R0")
    assert probe.count("xl_i17") == 3
    out = m.apply(probe)
    assert out != probe and "xl_i17 <= xl_n9" in out
    assert out.count("<=") == probe.count("<=") + 1


def test_mutation_leaves_other_shaders_alone():
    m = _site("arith")
    other = _glsl(NVVP4)
    assert m.apply(other) == other


def test_mutations_stay_in_program_code():
    """Helpers, declarations and main() (the harness's edits) are never mutated."""
    glsl = _glsl(ARBFP)
    body = glsl[glsl.index("void xl_main()"):glsl.index("void main()")]
    for kind, ms in M.candidates(glsl).items():
        for m in ms:
            assert m.before in body, (kind, m.before)


# ---- classification on GL ----------------------------------------------------------------------

def _classify(runner, name, text, mutations):
    pr = M.mutate_program(text, name, "test", runner, per_program=len(mutations), seed=1,
                          mutations=mutations)
    assert pr.status == "clean", pr.status
    return pr.mutants


@pytest.mark.parametrize("kind", M.KINDS)
def test_kind_makes_live_mutant(runner, kind):
    prog = KIND_SITES[kind][0]
    [r] = _classify(runner, prog, PROGRAMS[prog], [_site(kind)])
    assert r.outcome in LIVE, (r.outcome, r.reason)
    assert r.shaders_mutated >= 1       # the verifier ran the mutant, not the original
    # the verifier's main run is the harness's equivalence run (same shader, same inputs)
    assert r.main_run_reused


#: ``d`` is written in a subroutine and never read: changing what it gets changes no output bit.
#: (Straight-line code that is never read is not in the GLSL at all -- the middle end's deadcode
#: pass removes it -- but a subroutine's writes count as read at its end: the analysis does not
#: follow them to the callers.)
EQUIVALENT_FP = """!!NVfp4.0
TEMP d;
CAL f;
CAL f;
MOV result.color, fragment.texcoord[0];
RET;
f:
MOV d, fragment.texcoord[1].yxzw;
RET;
END
"""


def test_unread_value_is_equivalent(runner):
    glsl = _glsl(EQUIVALENT_FP)
    sites = [m for m in M.candidates(glsl, ("swizzle",))["swizzle"] if "texcoord_1" in m.before]
    assert sites, glsl
    [r] = _classify(runner, "equivalent.fp", EQUIVALENT_FP, sites[:1])
    assert r.outcome == "equivalent"


def test_rejected_mutant(runner):
    """GLSL the compiler refuses is counted apart, not as caught."""
    m = _site("swizzle")
    bad = M.Mutation("swizzle", m.key, m.occurrence, ((0, 1, "undeclared_name"),), "", "")
    [r] = _classify(runner, "kinds.fp", ARBFP, [bad])
    assert r.outcome == "rejected"


@pytest.mark.parametrize("kind", [pytest.param(k, marks=pytest.mark.xfail(
    strict=True, reason=f"explained away by the current verifier: {FOOLED_KINDS[k]}"))
    if k in FOOLED_KINDS else k for k in M.KINDS])
def test_kind_mutant_caught(runner, kind):
    prog = KIND_SITES[kind][0]
    [r] = _classify(runner, prog, PROGRAMS[prog], [_site(kind)])
    assert r.outcome == "caught", (r.outcome, r.status, r.reason)


# ---- every live mutant of the sample is caught -------------------------------------------------

_CACHE: dict[str, list] = {}


def _sample_text(name: str) -> str:
    if name.startswith("gen:"):
        d, st, s = name[4:].rsplit("-", 2)
        return generate(d, int(s), st, 12, frozenset())
    with open(name) as f:
        return f.read()


def _live_mutants(runner, name: str) -> list:
    if name not in _CACHE:
        pr = M.mutate_program(_sample_text(name), name, "sample", runner,
                              per_program=MUTANTS, seed=1, tries=6)
        assert pr.status == "clean", f"{name} no longer verifies cleanly: {pr.status}"
        _CACHE[name] = [m for m in pr.mutants if m.outcome != "equivalent"]
    return _CACHE[name]


def _cases():
    names = [f"gen:{d}-{st}-{s}" for d, st, s in SAMPLE] + CORPUS
    for name in names:
        for i in range(MUTANTS):
            reason = FOOLED.get((name, i))
            marks = [pytest.mark.xfail(strict=True, reason="explained away by the current "
                                       f"verifier: {reason}")] if reason else []
            yield pytest.param(name, i, marks=marks, id=f"{name}#{i}")


@pytest.mark.parametrize("name,i", list(_cases()))
def test_every_live_mutant_caught(runner, name, i):
    ms = _live_mutants(runner, name)
    if i >= len(ms) or ms[i].outcome not in LIVE:
        return                   # fewer live mutants there, or one the compiler rejected
    m = ms[i]
    assert m.outcome == "caught", (f"{m.kind}: {m.before!r} -> {m.after!r}: verifier "
                                   f"{m.status} ({m.differences} differences) {m.reason}")



# ---- mutants a verifier once explained away: each must stay caught --------------------------------

#: (program, kind, the statement before, after): found by tools/verify_mutants.py
FORMERLY_EXPLAINED = [
    # an unpack reads its operand's bits: a NaN bit pattern there gave 'nonfinite' freedom
    ("gen:fp1.0-fragment-4", "output",
     "out_result_depth.z = unpackUnorm4x8(floatBitsToUint(program_local[5].x)).z;", ";"),
    ("gen:fp1.0-fragment-4", "swizzle",
     "out_result_depth.z = unpackUnorm4x8(floatBitsToUint(program_local[5].x)).z;",
     "out_result_depth.z = unpackUnorm4x8(floatBitsToUint(program_local[5].y)).z;"),
    # DIV.F of a non-zero by a zero is the IEEE infinity: its non-finite result was 'any value'
    ("gen:nv4-fragment-17", "arith", "R2.xyz = fragment_texcoord_2.xyz / ceil(abs(R1)).y;",
     "R2.xyz = fragment_texcoord_2.xyz * ceil(abs(R1)).y;"),
    # Mesa's folding of umulExtended of constants was 'any value' (verdict implementation),
    # assumed: now shown by the same GLSL through SPIR-V, which this mutant fails (campaign
    # seed 4, the project's own corpus/nv4/vp4_int_flags.vp)
    ("corpus/nv4/vp4_int_flags.vp", "swizzle",
     "hi.x = xl_mulhi(floatBitsToUint(program_local[0].xxxx), "
     "floatBitsToUint(program_local[0].xxxx)).x;",
     "hi.x = xl_mulhi(floatBitsToUint(program_local[0].yxxx), "
     "floatBitsToUint(program_local[0].xxxx)).x;"),
]


@pytest.mark.parametrize("name,kind,before,after", FORMERLY_EXPLAINED,
                         ids=[f"{n}:{k}" for n, k, _, _ in FORMERLY_EXPLAINED])
def test_formerly_explained_away_is_caught(runner, name, kind, before, after):
    text = _sample_text(name)
    found = [m for m in M.candidates(_glsl(text), (kind,))[kind]
             if m.before == before and m.after == after]
    assert found, f"{name} no longer has the statement {before!r}"
    [r] = _classify(runner, name, text, found[:1])
    assert r.outcome == "caught", (r.outcome, r.status, r.reason)


def test_folded_mulhi_mutant_is_caught_by_the_spirv_replay(runner):
    """Where the SPIR-V run that shows the folding defect is replayed against its own probes
    (direct_check._replayed_through_spirv: it takes other freedoms than the GLSL compilation), the
    MUL.HI has no freedom there: a mutant of its operand's swizzle stays caught."""
    from test_verify_cases import FOLDED_BESIDE_LDEXP
    before = "result_generic_1 = intBitsToFloat(xl_mulhi(ivec4(TEMP1.yyyy), ivec4(3)));"
    found = [m for m in M.candidates(_glsl(FOLDED_BESIDE_LDEXP), ("swizzle",))["swizzle"]
             if m.before == before and m.after == before.replace(".yyyy", ".yyyz")]
    assert len(found) == 1
    # (not through mutate_program: a program with differences, even explained ones, is not
    # clean enough for a campaign)
    from xlate.verify.core import verify_source
    rec = M.RecordingRunner(runner)
    rep = verify_source(FOLDED_BESIDE_LDEXP, "fold.tgsi", lanes=256, seed=1, runner=rec)
    assert rep.status == "pass", rep.reason
    r = M.classify(FOLDED_BESIDE_LDEXP, "fold.tgsi", "test", found[0], runner, rec.first,
                   lanes=256, seed=1)
    assert r.outcome == "caught", (r.outcome, r.status, r.reason)

# ---- mutants inside an instruction's former "any value" freedom (issue 17 §1) --------------------

#: RSQ of a zero (VP1.0 temporaries start at 0): the specs and GLSL's IEEE infinities fix +Inf.
#: The old rule let a non-finite result be any value, so '1.0 / sqrt' -> '1.0 * sqrt' (0.0)
#: passed as 'nonfinite' (the campaign's gen:vp1.0-vertex-6, where the RSQ wrote an output).
#: R1 is read twice, so the RSQ keeps its own statement (a value read once is written where it is
#: read: backends/glsl/expressions.py) and the mutant sits in the instruction's freedom.
RSQ_OF_ZERO = """!!VP1.0
RSQ R1, R0.w;
ADD R2, R1, R1;
MOV o[COL0], R2;
MOV o[HPOS], v[OPOS];
END
"""


def test_reciprocal_of_zero_mutant_is_caught(runner):
    glsl = _glsl(RSQ_OF_ZERO)
    found = [m for m in M.candidates(glsl, ("arith",))["arith"]
             if m.after == "R1 = vec4((1.0 * sqrt(abs(R0.w))));"]
    assert found, glsl
    [r] = _classify(runner, "rsq0.vp", RSQ_OF_ZERO, found[:1])
    assert r.outcome == "caught", (r.outcome, r.status, r.reason)
    assert "RSQ" in r.reason


# ---- the campaign tool's scheduling (no GL) ------------------------------------------------------

def _fake_work(task):
    """A stand-in for tools/verify_mutants._work: programs with an even number are clean."""
    name, group, _text, _opts = task
    return M.ProgramResult(name, group, "clean" if int(name[1:]) % 2 == 0 else "not clean")


@pytest.mark.parametrize("jobs", [1, 2])
def test_campaign_rounds_fill_every_group_quota(monkeypatch, jobs):
    """Round robin over the groups, each up to its clean quota; with workers, the programs out
    at a worker count against the quota, so no group overshoots it, and a program that is not
    clean hands its slot to the next one."""
    import multiprocessing
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
    import verify_mutants as VM
    monkeypatch.setattr(VM, "_work", _fake_work)
    groups = [VM.Group(g, iter([(f"{g}{i}", "") for i in range(10)]), 2, 9) for g in "ab"]
    seen = []
    pool = multiprocessing.get_context("fork").Pool(jobs) if jobs > 1 else None
    try:
        VM.run_rounds(groups, {}, pool, 0, lambda: seen.append(1), jobs)
    finally:
        if pool:
            pool.terminate()
    for g in groups:
        assert sorted(r.program for r in g.done) == [f"{g.name}0", f"{g.name}2"]
        assert g.pending == 0 and g.finished
    assert len(seen) == sum(g.seen for g in groups)


def test_max_timeouts_stops_a_slow_program(runner):
    """After ``max_timeouts`` mutants ran past the timeout, the program's other wanted mutants
    are not run and are counted apart (a verifier run cannot finish in a millisecond)."""
    pr = M.mutate_program(ARBFP, "kinds.fp", "test", runner, per_program=3, seed=1, tries=4,
                          timeout=0.001, max_timeouts=1)
    assert pr.status == "clean"
    outcomes = [m.outcome for m in pr.mutants]
    assert outcomes.count("timeout") == 1 and outcomes[-1] == "timeout", outcomes
    assert pr.skipped_slow == 3 - sum(o != "equivalent" for o in outcomes[:-1]) - 1


#: RCP of an infinity (RSQ of a zero first): ApproxReciprocal(+INF) = +0.0.  The old rule let
#: the operand's infinity excuse any value: '1.0 / R1.x' -> '1.0 * R1.x' passed as
#: 'nonfinite' (the campaign's Celestia eclipse2_nv.fp, two mutants).  (Both values read twice:
#: each keeps its statement.)
RCP_OF_INF = """!!FP1.0
RSQ R1.x, R0.x;
ADD R3.x, R1.x, R1.x;
RCP R1.x, R1.x;
MUL R2, R1.x, R1.x;
ADD R2.y, R2.y, R3.x;
MOV o[COLR], R2;
END
"""


def test_reciprocal_of_infinity_mutant_is_caught(runner):
    glsl = _glsl(RCP_OF_INF)
    found = [m for m in M.candidates(glsl, ("arith",))["arith"]
             if "1.0 * R1.x" in m.after]
    assert found, glsl
    [r] = _classify(runner, "rcpinf.fp", RCP_OF_INF, found[:1])
    assert r.outcome == "caught", (r.outcome, r.status, r.reason)
    assert "RCP" in r.reason


# ---- mutants that are no wrong translation (permitted_mutant, the harness's own check) -----------

#: R1.x is 1/x of an input: Inf on the lanes where the input's x is 0 (the generator's special
#: values include zeros)
RCP_OF_INPUT = """!!VP1.0
RCP R1.x, v[3].x;
MOV o[COL0], R1.x;
MOV o[HPOS], v[OPOS];
END
"""


#: the same reciprocal, dead: R2 is never read, so no output depends on its Inf
DEAD_RCP_OF_INPUT = """!!VP1.0
RCP R2.x, v[3].x;
MOV o[COL0], v[3];
MOV o[HPOS], v[OPOS];
END
"""


def _main_run(text: str, lanes: int = 64):
    """The executor's (program, inputs, lanes) of the verifier's main run (RecordedRun.
    executor_run) and the reciprocal's operand, v[3].x, per lane."""
    import numpy as np
    from xlate.verify import compare as cmp
    from xlate.verify.analysis import analyse
    from xlate.verify.core import ProgramReport
    from xlate.verify.draw_run import main_run_inputs
    prog = api.parse(text, filename="t.vp")
    gen, _ = main_run_inputs(prog, analyse(prog, set(cmp.INEXACT)), lanes, 1,
                             ProgramReport("t.vp", backend="gl"))
    x = np.asarray(gen.inputs["vertex.attrib[3]"], np.uint32).view(np.float32)
    pos = np.asarray(gen.inputs["vertex.attrib[0]"], np.uint32).view(np.float32)
    return (prog, gen, lanes), x, pos


def _nonfinite_case():
    import numpy as np
    from xlate.verify.capture import Capture
    run, _, _ = _main_run(RCP_OF_INPUT)
    lanes = run[2]
    bad = M.undetermined_lanes(*run)
    assert bad is not None and 0 < bad.sum() < lanes, "the generator gave no zero input"
    col = np.arange(lanes * 4, dtype=np.uint32).reshape(lanes, 4)
    cap0 = Capture(outputs={"result_color0": col.copy()})
    return run, bad, cap0, col


def test_undetermined_lanes_are_where_an_infinity_reaches_an_output():
    """R1.x = 1/v[3].x goes to the colour: the lanes whose operand is a zero (1/0 = Inf) are
    undetermined, those whose operand is itself an Inf or NaN (1/Inf = 0 is finite, but an
    operation on an Inf is unspecified: the verifier's nonfinite rule frees it too -- corpus
    arbfp_nv2_loop.fp, campaign seed 8, '/' -> '*' by an Inf), and those whose copied inputs
    are not finite; no other lane."""
    import numpy as np
    run, x, pos = _main_run(RCP_OF_INPUT)
    with np.errstate(divide="ignore"):
        reciprocal_infinite = ~np.isfinite(np.float32(1) / x[:, 0])
    of_infinity = ~np.isfinite(x[:, 0]) & ~reciprocal_infinite
    expected = reciprocal_infinite | of_infinity | ~np.isfinite(pos).all(axis=1)
    assert reciprocal_infinite.any()
    assert M.undetermined_lanes(*run).tolist() == expected.tolist()
    # an Inf operand on a lane of finite inputs: 1/Inf = 0, the lane undetermined
    prog, gen, lanes = run
    words = np.array(gen.inputs["vertex.attrib[3]"], np.uint32)
    finite = np.flatnonzero(~expected)
    words[finite[0], 0] = 0x7F800000
    gen.inputs["vertex.attrib[3]"] = words
    assert M.undetermined_lanes(prog, gen, lanes)[finite[0]]
    assert not M.undetermined_lanes(prog, gen, lanes)[finite[1:]].any()


def test_an_infinity_no_output_depends_on_leaves_its_lane_determined():
    """The same Inf written to a register nothing reads: its lanes stay determined (the
    counterfactual runs change no output there), so a mutant that differs on them is not
    'nonfinite-only' -- before, any lane with an Inf or NaN anywhere counted."""
    import numpy as np
    from xlate.verify.capture import Capture
    run, x, pos = _main_run(DEAD_RCP_OF_INPUT)
    copied_nonfinite = ~np.isfinite(x).all(axis=1) | ~np.isfinite(pos).all(axis=1)
    with np.errstate(divide="ignore"):
        dead_infinity = ~np.isfinite(np.float32(1) / x[:, 0]) & ~copied_nonfinite
    assert dead_infinity.any(), "the generator gave no finite zero input"
    undetermined = M.undetermined_lanes(*run)
    assert undetermined.tolist() == copied_nonfinite.tolist()
    lanes = run[2]
    col = np.arange(lanes * 4, dtype=np.uint32).reshape(lanes, 4)
    changed = col.copy()
    changed[dead_infinity, 0] += 1
    refl = {"outputs": [{"name": "result_color0", "type": "vec4"}]}
    m = M.Mutation("literal", (), 0, (), "a", "b")
    assert M.permitted_mutant(m, refl, Capture(outputs={"result_color0": col}),
                              Capture(outputs={"result_color0": changed}), run) is None


def test_a_pass_that_changes_only_nonfinite_lanes_is_counted_apart():
    """A mutant differing from the unmutated translation only on lanes whose outputs depend
    on an Inf the original computes is 'nonfinite-only'; one more difference on a determined
    lane and it is not (it stays 'explained': a fooled verifier)."""
    from xlate.verify.capture import Capture
    run, bad, cap0, col = _nonfinite_case()
    m = M.Mutation("literal", (), 0, (), "a", "b")
    refl = {"outputs": [{"name": "result_color0", "type": "vec4"}]}
    only_bad = col.copy()
    only_bad[bad, 0] += 1
    why = M.permitted_mutant(m, refl, cap0, Capture(outputs={"result_color0": only_bad}), run)
    assert why is not None and why[0] == "nonfinite-only"
    finite_too = only_bad.copy()
    finite_too[int((~bad).nonzero()[0][0]), 1] += 1
    assert M.permitted_mutant(m, refl, cap0, Capture(outputs={"result_color0": finite_too}),
                              run) is None
    # a zero's sign on a determined lane as well: each difference is a permitted one
    signed = only_bad.copy()
    signed[int((~bad).nonzero()[0][0]), 2] = 0x80000000
    base = col.copy()
    base[int((~bad).nonzero()[0][0]), 2] = 0
    why = M.permitted_mutant(m, refl, Capture(outputs={"result_color0": base}),
                             Capture(outputs={"result_color0": signed}), run)
    assert why is not None and why[0] == "nonfinite-only", why
    # without the executor's run of those lanes there is no such class
    assert M.permitted_mutant(m, refl, cap0,
                              Capture(outputs={"result_color0": only_bad})) is None


#: a geometry program: one point per input point, its GENERIC[0] the reciprocal of an input
GS_RCP_OF_INPUT = """GEOM
PROPERTY GS_INPUT_PRIMITIVE POINTS
PROPERTY GS_OUTPUT_PRIMITIVE POINTS
PROPERTY GS_MAX_OUTPUT_VERTICES 1
DCL IN[][0], POSITION
DCL IN[][1], GENERIC[0]
DCL OUT[0], POSITION
DCL OUT[1], GENERIC[0]
DCL TEMP[0]
IMM[0] UINT32 {0, 0, 0, 0}
  0: RCP TEMP[0].x, IN[0][1].xxxx
  1: MOV OUT[0], IN[0][0]
  2: MOV OUT[1], TEMP[0].xxxx
  3: EMIT IMM[0].xxxx
  4: END
"""


def test_a_geometry_pass_that_changes_only_nonfinite_invocations_is_counted_apart():
    """A geometry lane is one invocation (one input point here); its outputs are the
    primitives it emits.  The invocations whose reciprocal is an Inf (a zero input), or whose
    inputs are not finite, are undetermined, and a mutant that changes only their primitives
    is 'nonfinite-only'; one more change on a determined invocation and it is not.  Before,
    geometry had no such class (generated TGSI geometry 8, campaign seed 8: an exp2 that
    overflows on every invocation stayed 'explained')."""
    import numpy as np
    from xlate.verify import compare as cmp
    from xlate.verify.analysis import analyse
    from xlate.verify.capture import Capture
    from xlate.verify.core import ProgramReport
    from xlate.verify.draw_run import main_run_inputs
    lanes = 64
    prog = api.parse(GS_RCP_OF_INPUT, filename="t.tgsi")
    gen, _ = main_run_inputs(prog, analyse(prog, set(cmp.INEXACT)), lanes, 1,
                             ProgramReport("t.tgsi", backend="gl"))
    # one vertex per input point: (lanes, 4) words each
    x = np.asarray(gen.inputs["vertex.generic[0]"], np.uint32).view(np.float32).reshape(lanes, 4)
    pos = np.asarray(gen.inputs["vertex.position"], np.uint32).view(np.float32).reshape(lanes, 4)
    with np.errstate(divide="ignore"):
        expected = ~np.isfinite(np.float32(1) / x[:, 0]) | ~np.isfinite(x[:, 0]) \
            | ~np.isfinite(pos).all(axis=1)
    assert 0 < expected.sum() < lanes, "the generator gave no zero input"
    bad = M.undetermined_lanes(prog, gen, lanes)
    assert bad.tolist() == expected.tolist()

    words = np.arange(lanes * 4, dtype=np.uint32).reshape(lanes, 4)

    def capture(w):
        return Capture(outputs={}, primitives=[[[{"out_generic0": w[i], "gl_Position": w[i]}]]
                                               for i in range(lanes)])
    refl = {"outputs": [{"name": "out_generic0", "type": "vec4"},
                        {"name": "gl_Position", "type": "vec4"}]}
    m = M.Mutation("literal", (), 0, (), "a", "b")
    run = (prog, gen, lanes)
    only_bad = words.copy()
    only_bad[bad, 0] += 1
    why = M.permitted_mutant(m, refl, capture(words), capture(only_bad), run)
    assert why is not None and why[0] == "nonfinite-only", why
    finite_too = only_bad.copy()
    finite_too[int((~bad).nonzero()[0][0]), 1] += 1
    assert M.permitted_mutant(m, refl, capture(words), capture(finite_too), run) is None
    # a determined invocation that emits one primitive fewer is no permitted mutant either
    fewer = capture(only_bad)
    fewer.primitives[int((~bad).nonzero()[0][0])] = []
    assert M.permitted_mutant(m, refl, capture(words), fewer, run) is None


def test_generated_geometry_seed_8_overflowing_exp2_is_caught(runner):
    """Campaign seed 8's geometry case: 'EX2 TEMP[1], CONST[ADDR[0].w+3]' overflows to Inf on
    every invocation of the verifier's inputs, and every output depends on it.  A mutant that
    reads another constant there (relative index '+ 3' -> '- 3') gives a finite EX2: caught,
    since an overflow gives IEEE's infinity or a value near it (GLSL 4.50 §4.7.1;
    ir.ops.OVERFLOWS).  Before that bound the verifier let the EX2 be any value and the
    harness counted the mutant 'nonfinite-only' (and before that, a fooled verifier)."""
    text = generate("tgsi", 8, "geometry", 12, frozenset())
    sites = [m for ms in M.candidates(_glsl(text), ("arith",)).values() for m in ms
             if "exp2(program_local[clamp(clamp(ADDR0.w, -4, 1) + 3" in m.before
             and "exp2(program_local[clamp(clamp(ADDR0.w, -4, 1) - 3" in m.after]
    assert len(sites) == 1, "the generator no longer writes the statement"
    pr = M.mutate_program(text, "gen:tgsi-geometry-8", "test", runner, per_program=1,
                          seed=8, mutations=sites)
    assert pr.status == "clean", pr.status
    [r] = pr.mutants
    assert r.outcome == "caught", (r.outcome, r.reason)
    assert "EX2" in r.reason


def _edge_case_site(text: str, value: str):
    """Generated ARBvp+NV3 vertex 7's lookup at the literal (10, -1, 0), exactly on texel
    edges of its 3D texture (REPEAT), with -1.0 written as ``-value``."""
    import dataclasses
    found = [m for m in M.candidates(_glsl(text), ("literal",))["literal"]
             if "textureGrad(texture7, vec3(10.0, -1.01, 0.0)" in m.after]
    assert len(found) == 1, "the generator no longer writes the lookup"
    [site] = found
    return dataclasses.replace(site, edits=tuple((a, b, value) for a, b, _ in site.edits),
                               after=site.after.replace("-1.01", "-" + value))


@pytest.mark.parametrize("value, outcome", [("1.01", "edge-only"), ("1.3", "caught")])
def test_a_literal_coordinate_moved_across_a_texel_edge_is_counted_apart(runner, monkeypatch,
                                                                         value, outcome):
    """Campaign seed 7's 'boundary' case: the coordinate lies exactly on a texel edge, where
    GL lets the implementation take either texel (s * size is held to 1 part in 10^5), and
    the mutant -1.0 -> -1.01 takes the neighbouring one.  The harness shows that its outputs
    are, bit for bit, the original program's with the lookup moved across that edge
    (choice_runs): 'edge-only'.  -1.3 lands two texels away: the verifier catches it.  And a
    capture one word off that edge run is no such mutant."""
    import numpy as np
    from xlate.verify.capture import Capture
    text = generate("arbvp-nv3", 7, "vertex", 12, frozenset())
    seen = []
    edge_only = M._edge_only

    def spy(reflection, cap0, cap, run):
        seen.append((reflection, cap0, cap, run))
        return edge_only(reflection, cap0, cap, run)
    monkeypatch.setattr(M, "_edge_only", spy)
    pr = M.mutate_program(text, "gen:arbvp-nv3-vertex-7", "test", runner, per_program=1,
                          seed=7, mutations=[_edge_case_site(text, value)])
    assert pr.status == "clean", pr.status
    [r] = pr.mutants
    assert r.outcome == outcome, (r.outcome, r.reason)
    if outcome != "edge-only":
        return
    reflection, cap0, cap, run = seen[-1]
    name = "result_texcoord_4"                  # result.texcoord[4].yz: the lookup
    changed = np.flatnonzero((np.asarray(cap.outputs[name]) !=
                              np.asarray(cap0.outputs[name])).any(axis=-1).reshape(run[2], -1)
                             .any(axis=1))
    assert len(changed), "the mutant changes no lane"
    # one word more changed: on the lookup's lane, or in an output the lookup does not reach
    for output, lane, component in ((name, changed[0], 1), ("result_texcoord_1", 0, 0)):
        off = {k: np.array(v) for k, v in cap.outputs.items()}
        off[output].reshape(run[2], -1)[lane, component] += 1
        assert edge_only(reflection, cap0, Capture(outputs=off, killed=cap.killed), run) \
            is None, output


def test_a_one_ulp_literal_is_within_gl_precision():
    from xlate.verify.capture import Capture
    _, _, cap0, col = _nonfinite_case()
    m = M.Mutation("literal-ulp", (), 0, (), "2.0", "2.0000002")
    why = M.permitted_mutant(m, {"outputs": []}, cap0,
                             Capture(outputs={"result_color0": col + 1}))
    assert why[0] == "precision"


def test_a_pass_that_changes_only_the_sign_of_zeros_is_counted_apart():
    """corpus/nv4/fp4_shadow_targets.fp, campaign seed 5: '* k.wwww' -> '* k.xwww' where the
    shadow sum's x is always 0 on the verifier's inputs -- only the sign of the zero product
    changes.  A non-zero change anywhere is not counted apart."""
    import numpy as np
    from xlate.verify.capture import Capture
    refl = {"outputs": [{"name": "result_color0", "type": "vec4"}]}
    words = np.zeros((8, 4), np.uint32)
    words[:, 3] = 0x3F800000
    negated = words.copy()
    negated[:, 0] = 0x80000000
    m = M.Mutation("swizzle", (), 0, (), "a", "b")
    cap0 = Capture(outputs={"result_color0": words})
    why = M.permitted_mutant(m, refl, cap0, Capture(outputs={"result_color0": negated}))
    assert why is not None and why[0] == "zero-sign-only"
    other = negated.copy()
    other[3, 1] = 0x3F800000
    assert M.captures_differ(refl, cap0, Capture(outputs={"result_color0": other}),
                             zero_signs=True)


def test_flush_only_is_a_denormal_given_as_zero_and_nothing_else():
    """A mutant whose outputs are the right translation's with denormals given as zeros is
    a permitted run of the right translation on these inputs; any other change is not."""
    import numpy as np
    from xlate.verify.capture import Capture
    refl = {"outputs": [{"name": "result_color0", "type": "vec4"}]}
    words = np.full((8, 4), 0x3F800000, np.uint32)
    words[:, 2] = 0x80000004                      # -5.6e-45
    cap0 = Capture(outputs={"result_color0": words})
    flushed = words.copy()
    flushed[::2, 2] = 0
    flushed[1::2, 2] = 0x80000000
    assert M.differs_only_by_flushing(refl, cap0, Capture(outputs={"result_color0": flushed}))
    other = flushed.copy()
    other[5, 2] = 0x00000004                      # a denormal of the other sign: no flush
    assert not M.differs_only_by_flushing(refl, cap0, Capture(outputs={"result_color0": other}))
    signs = words.copy()
    signs[:, 1] = 0
    resigned = signs.copy()
    resigned[:, 1] = 0x80000000                   # a zero's sign alone: no denormal flushed
    assert not M.differs_only_by_flushing(refl, Capture(outputs={"result_color0": signs}),
                                          Capture(outputs={"result_color0": resigned}))
    grown = words.copy()
    grown[0, 0] = 0                               # a normal value given as zero
    assert not M.differs_only_by_flushing(refl, cap0, Capture(outputs={"result_color0": grown}))
    # geometry: per lane, primitives of vertices {output: words}
    prims0 = [[[{"pos": words[0]}]], [[{"pos": words[1]}]]]
    prims1 = [[[{"pos": flushed[0]}]], [[{"pos": flushed[1]}]]]
    geo = {"outputs": [{"name": "pos", "type": "vec4"}]}
    assert M.differs_only_by_flushing(geo, Capture(outputs={}, primitives=prims0),
                                      Capture(outputs={}, primitives=prims1))
    assert not M.differs_only_by_flushing(geo, Capture(outputs={}, primitives=prims0),
                                          Capture(outputs={}, primitives=prims1[:1] + [[]]))


def test_generated_geometry_seed_7_dropped_w_is_a_flush_only_mutant(runner):
    """Campaign ``--source generated --dialect tgsi --seed 3``: ``MOV OUT[0], -CONST[0][2]``
    mutated to write only .xyz passed as ``ftz``.  The parameter's w is the denormal
    -5.6e-45 on every lane, the dropped component keeps the output's initial 0, and an
    implementation may flush that denormal: on these inputs the mutant's outputs are a
    permitted run of the right translation, counted apart as ``flush-only``."""
    text = generate("tgsi", 7, "geometry", 12, frozenset())
    found = [m for m in M.candidates(_glsl(text), ("output",))["output"]
             if m.after == "out_result_position.xyz = (-program_local[2]).xyz;"]
    assert found, "the generator no longer writes the statement"
    pr = M.mutate_program(text, "gen:tgsi-geometry-7", "test", runner, per_program=1,
                          seed=3, mutations=found)
    assert [(r.outcome, r.status) for r in pr.mutants] == [("flush-only", "pass")], \
        [(r.outcome, r.reason) for r in pr.mutants]


def test_campaign_seed_5_pass_is_a_zero_sign_change(runner):
    """The one mutant of campaign seed 5 the verifier passed: on the verifier's inputs the
    shadow sum's x is 0, so '* k.wwww' -> '* k.xwww' changes only a zero's sign.  The harness
    shows it by comparing the two translations' outputs (docs/verify_mutants_baseline.md)."""
    name = "corpus/nv4/fp4_shadow_targets.fp"
    text = _sample_text(name)
    found = [m for m in M.candidates(_glsl(text), ("swizzle",))["swizzle"]
             if m.after == "acc = (acc + s) * program_local[0].xwww;"]
    assert found, f"{name} no longer has the statement"
    pr = M.mutate_program(text, name, "test", runner, per_program=1, seed=5, mutations=found)
    assert [r.outcome for r in pr.mutants] == ["zero-sign-only"], \
        [(r.outcome, r.reason) for r in pr.mutants]


@pytest.mark.parametrize("stage, seed", [("tess_evaluation", 1), ("tess_control", 2),
                                         ("tess_control", 3)])
def test_tessellation_programs_are_mutated_and_every_live_mutant_caught(runner, stage, seed):
    """The verifier sets a tessellation program's lanes on the runner (tess_context): the
    harness's wrappers pass that to the runner that draws (Delegate.FORWARDED), and the
    equivalence run sets the recorded lanes again (RecordedRun.state).  Before, neither held:
    no tessellation program was ever clean (0 of 19 tried per stage in the campaigns)."""
    text = generate("tgsi", seed, stage, 12, frozenset())
    pr = M.mutate_program(text, f"{stage}{seed}.tgsi", "test", runner, per_program=2, seed=1,
                          tries=8)
    assert pr.status == "clean", pr.status
    live = [r for r in pr.mutants if r.outcome in LIVE]
    assert live and all(r.outcome == "caught" for r in live), \
        [(r.kind, r.before, r.after, r.outcome, r.reason) for r in live]
    assert all(r.dialect == f"TGSI/{stage}" for r in pr.mutants)


def test_a_tess_control_division_by_zero_is_judged_on_the_invocations_lanes(runner):
    """Generated TGSI tess_control seed 2: 'DIV TEMP[0], -CONST[0][3].xwxz, TEMP[1].wwww'
    divides by zero on some invocations, and a mutant that swaps the numerator's component
    changes only outputs that depend on that quotient.  The harness runs the executor on the
    verifier's own lanes (the patches' invocations, RecordedRun.executor_run) to tell: the
    mutant is 'nonfinite-only'.  Before, it ran the executor on 256 lanes of vertex-like
    inputs, which no TCS capture matches, and counted the mutant 'explained' (a fooled
    verifier)."""
    text = generate("tgsi", 2, "tess_control", 12, frozenset())
    sites = [m for ms in M.candidates(_glsl(text)).values() for m in ms
             if m.before.startswith("TEMP0.x = -program_local[3].x /")
             and m.after.startswith("TEMP0.x = -program_local[3].y /")]
    assert len(sites) == 1
    pr = M.mutate_program(text, "tess_control2.tgsi", "test", runner, per_program=1, seed=1,
                          mutations=sites)
    assert pr.status == "clean", pr.status
    [r] = pr.mutants
    assert r.outcome == "nonfinite-only", (r.outcome, r.reason)
    assert r.reason.startswith("identical on the 3 lanes whose outputs the original program "
                               "determines (but for the sign of zeros); differs on 13 lanes "
                               "whose outputs depend on an Inf or NaN"), r.reason


def test_tess_control_captures_differ_by_their_per_patch_combination():
    """A TCS capture's per-patch combination (Capture.patch) counts: two captures equal lane
    by lane but not in a patch's stored level differ, and with a lane mask only the patches
    whose invocations are all in it are compared."""
    import numpy as np
    from xlate.verify.capture import Capture
    lanes = np.zeros((4, 4), np.uint32)
    a, b = Capture(outputs={"o": lanes}), Capture(outputs={"o": lanes.copy()})
    a.patch = {"gl_TessLevelOuter": np.zeros((2, 4), np.uint32)}
    b.patch = {"gl_TessLevelOuter": np.zeros((2, 4), np.uint32)}
    b.patch["gl_TessLevelOuter"][1, 0] = 0x3F800000          # patch 1: lanes 2 and 3
    refl = {"outputs": [{"name": "o", "type": "vec4"}]}
    assert M.captures_differ(refl, a, b)
    assert M.captures_differ(refl, a, b, lanes=np.array([True, True, True, False])) is False
    assert M.captures_differ(refl, a, b, lanes=np.array([False, False, True, True]))


def test_compute_programs_are_mutated_and_every_live_mutant_caught(runner):
    """A compute dispatch goes through the runner's run("compute", ...): the harness records
    its main run and mutates its translation like any draw's (before, no compute program was
    ever clean: the dispatch bypassed the recording runner).  A generated TGSI compute program
    whose memory the verifier compares bit for bit; every live mutant is a mismatch."""
    text = generate("tgsi", 2, "compute")
    pr = M.mutate_program(text, "c2.tgsi", "test", runner, per_program=4, seed=1, tries=8)
    assert pr.status == "clean", pr.status
    live = [r for r in pr.mutants if r.outcome in LIVE]
    assert live and all(r.outcome == "caught" for r in live), \
        [(r.kind, r.before, r.after, r.outcome, r.reason) for r in live]
    assert all(r.dialect == "TGSI/compute" for r in pr.mutants)


#: a compute program: each invocation stores 1/x of its buffer word next to a copy of x
RCP_COMPUTE = """COMP
PROPERTY CS_FIXED_BLOCK_WIDTH 4
PROPERTY CS_FIXED_BLOCK_HEIGHT 1
PROPERTY CS_FIXED_BLOCK_DEPTH 1
DCL SV[0], THREAD_ID
DCL BUFFER[0]
DCL TEMP[0..2]
IMM[0] UINT32 {0, 4, 16, 32}
  0: UMUL TEMP[0].x, SV[0].xxxx, IMM[0].yyyy
  1: LOAD TEMP[1].x, BUFFER[0], TEMP[0].xxxx
  2: RCP TEMP[2].x, TEMP[1].xxxx
  3: UADD TEMP[0].y, TEMP[0].xxxx, IMM[0].zzzz
  4: STORE BUFFER[0].x, TEMP[0].yyyy, TEMP[2].xxxx
  5: UADD TEMP[0].z, TEMP[0].xxxx, IMM[0].wwww
  6: STORE BUFFER[0].x, TEMP[0].zzzz, TEMP[1].xxxx
  7: END
"""


def test_a_compute_programs_words_an_infinity_reaches_are_undetermined():
    """Words 4..7 take 1/x of words 0..3 (x = 0 -> Inf), words 8..11 copy x.  Only the
    reciprocal of the zero is undetermined; a mutant differing there alone is
    'nonfinite-only', one more word and it is not (generated TGSI compute 11, campaign seed
    11: a LOG of zero's component swapped passed as 'explained' -- compute had no such
    class)."""
    import numpy as np
    from xlate.verify.gl_compute import ComputeCapture
    from xlate.verify.nonfinite_runs import ComputeInputs, undetermined_words
    prog = api.parse(RCP_COMPUTE, filename="rcp.tgsi")
    words = np.zeros(16, np.uint32)
    words[:4] = np.array([2.0, 0.0, -4.0, 0.5], np.float32).view(np.uint32)
    inputs = ComputeInputs((1, 1, 1), {0: words}, {}, {})
    free = undetermined_words(prog, inputs, 4)
    assert free["BUFFER[0]"].tolist() == [False] * 5 + [True] + [False] * 10
    final = inputs.run(prog).buffers[0]
    m = M.Mutation("swizzle", (), 0, (), "a", "b")
    run = (prog, inputs, 4)
    other = final.copy()
    other[5] = np.float32(7.0).view(np.uint32)
    why = M.permitted_mutant(m, {}, ComputeCapture({0: final}, {}), ComputeCapture({0: other}, {}),
                             run)
    assert why is not None and why[0] == "nonfinite-only", why
    other[4] ^= 1
    assert M.permitted_mutant(m, {}, ComputeCapture({0: final}, {}),
                              ComputeCapture({0: other}, {}), run) is None


def test_generated_compute_11_log_of_zero_swapped_is_a_nonfinite_only_mutant(runner):
    text = generate("tgsi", 11, "compute", 12, frozenset())
    sites = [m for ms in M.candidates(_glsl(text), ("swizzle",)).values() for m in ms
             if "xl_loga(uintBitsToFloat(TEMP0.x))" in m.before
             and "xl_loga(uintBitsToFloat(TEMP0.y))" in m.after]
    assert len(sites) == 1, "the generator no longer writes the statement"
    pr = M.mutate_program(text, "gen:tgsi-compute-11", "test", runner, per_program=1,
                          seed=11, mutations=sites)
    assert pr.status == "clean", pr.status
    [r] = pr.mutants
    assert r.outcome == "nonfinite-only", (r.outcome, r.reason)


def test_a_lookup_shifted_by_no_level_is_the_lookup_itself():
    """choice_runs._ShiftedLod computes a TEX as a TXB of the shift: at 0 it is the
    executor's own lookup, word for word; at +0.75 a lane whose lambda is near a level's edge
    reads the next level."""
    import numpy as np
    from xlate.exec import Texture, execute
    from xlate.verify.choice_runs import _ShiftedLod
    prog = api.parse("!!ARBfp1.0\nTEX result.color, fragment.texcoord[0], texture[0], 2D;\n"
                     "END\n", filename="t.fp")
    rng = np.random.default_rng(3)
    levels = [rng.uniform(-2, 2, (16 >> i, 16 >> i, 4)).astype(np.float32) for i in range(5)]
    tex = Texture(levels, "2D", filter="NEAREST_MIPMAP_NEAREST", mag_filter="NEAREST")
    # quads whose texcoords step by 1/16, 2/16 ...: lambda 0, 1, ...
    lanes = 16
    coords = np.zeros((lanes, 4), np.float32)
    for q in range(4):
        step = np.float32(2 ** q / 16)
        coords[4 * q:4 * q + 4, :2] = np.array([[0, 0], [step, 0], [0, step], [step, step]],
                                               np.float32) + np.float32(0.3)
    inputs = {"fragment.texcoord[0]": coords.view(np.uint32)}

    def run(hooks=None):
        res = execute(prog, inputs=inputs, lanes=lanes, textures={0: tex}, hooks=hooks)
        return np.asarray(res.outputs["result.color[0]"], np.uint32).reshape(lanes, 4)
    plain = run()
    assert np.array_equal(run(_ShiftedLod(prog, 0.0)), plain)
    shifted = run(_ShiftedLod(prog, 0.75))
    assert not np.array_equal(shifted, plain)


def test_a_coordinate_read_at_a_level_gl_lets_the_original_take_is_counted_apart(runner,
                                                                                   monkeypatch):
    """Campaign seed 12: cg arbfp1 scalefx-hybrid-pass0, 'texture(..., VAR_t2.yw)' -> '.yx'.
    On lane 112 the executor's lambda is 2.06; the mutant's lookup read the 1x1 level, which
    the original reads at lambda 2.81 -- within GL 4.5 §8.14.1's approximation of rho (half a
    level) and llvmpipe's log2 (a quarter).  The harness shows it by the original program
    with its lookups a quarter level apart up to 0.75 away: 'lod-only'.  A capture one word off
    that run is no such mutant."""
    import numpy as np
    from conftest import shared_corpus_or_skip
    from xlate.verify.capture import Capture
    path = shared_corpus_or_skip(
        "cg/arbfp1/scalefx__shaders__old__scalefx-hybrid-pass0.cg__main_fragment.fp")
    text = path.read_text()
    sites = [m for ms in M.candidates(_glsl(text), ("texcoord",)).values() for m in ms
             if "texture(PASSPREV2_texture, VAR_t2.yw)" in m.before and "VAR_t2.yx" in m.after]
    assert len(sites) == 1
    seen = []
    lod_only = M._lod_only

    def spy(reflection, cap0, cap, run):
        seen.append((reflection, cap0, cap, run))
        return lod_only(reflection, cap0, cap, run)
    monkeypatch.setattr(M, "_lod_only", spy)
    pr = M.mutate_program(text, str(path), "test", runner, per_program=1, seed=12,
                          mutations=sites)
    [r] = pr.mutants
    assert r.outcome == "lod-only", (r.outcome, r.reason)
    reflection, cap0, cap, run = seen[-1]
    words = {k: np.array(v) for k, v in cap.outputs.items()}
    name = next(iter(words))
    changed = np.flatnonzero((words[name] != np.asarray(cap0.outputs[name])).any(axis=1))
    words[name][changed[0], 0] ^= 1
    assert lod_only(reflection, cap0, Capture(outputs=words, killed=cap.killed), run) is None


def test_a_dropped_saturation_of_a_denormal_is_the_original_unclamped(runner, monkeypatch):
    """Campaign seed 12: generated TGSI compute 16 drops the xl_sat of a DP2 whose value is a
    negative denormal.  A saturation is a select on flushed values (GP4 2.X.4.3, GLSL 4.50
    §4.7.1): an implementation may write the denormal unclamped, as the mutant does.  The
    harness shows it by the original program run with its saturated denormals unclamped
    (choice_runs._DenormalUnclamped): 'flush-only'; the mutant's words also depend on an Inf,
    so the harness's first check already counts it apart.  One word more changed: neither."""
    import numpy as np
    from xlate.verify.gl_compute import ComputeCapture
    text = generate("tgsi", 16, "compute", 12, frozenset())
    before = ("TEMP0 = uvec4(floatBitsToUint(xl_sat(xl_dp2(program_local[7].wwyy, "
              "program_local[4]))));")
    sites = [m for ms in M.candidates(_glsl(text), ("saturate",)).values() for m in ms
             if m.before.strip() == before]
    assert len(sites) == 1, "the generator no longer writes the statement"
    seen = []
    permitted = M.permitted_mutant

    def spy(mutation, reflection, cap0, cap, run=None):
        seen.append((reflection, cap0, cap, run))
        return permitted(mutation, reflection, cap0, cap, run)
    monkeypatch.setattr(M, "permitted_mutant", spy)
    pr = M.mutate_program(text, "gen:tgsi-compute-16", "test", runner, per_program=1,
                          seed=12, mutations=sites)
    assert [r.outcome for r in pr.mutants] == ["nonfinite-only"]
    reflection, cap0, cap, run = seen[-1]
    why = M._unclamped_denormals(reflection, cap0, cap, run)
    assert why is not None and why[0] == "flush-only", why
    buffers = {b: np.array(w) for b, w in cap.buffers.items()}
    b = next(k for k in buffers if (buffers[k] != np.asarray(cap0.buffers[k])).any())
    w = int(np.flatnonzero(buffers[b] != np.asarray(cap0.buffers[b]))[0])
    buffers[b][w] ^= 0x00400000
    other = ComputeCapture(buffers, cap.images)
    assert M._unclamped_denormals(reflection, cap0, other, run) is None


#: a projected lookup of a varying, scaled by a constant (the shape of a TGSI driver dump)
TXP_TGSI = """FRAG
DCL IN[0], GENERIC[0], PERSPECTIVE
DCL OUT[0], COLOR
DCL SAMP[0]
DCL CONST[1..4]
DCL TEMP[0], LOCAL
  0: MOV TEMP[0].xy, IN[0].xyyy
  1: MOV TEMP[0].w, IN[0].wwww
  2: TXP TEMP[0], TEMP[0], SAMP[0], 2D
  3: MUL TEMP[0], TEMP[0], CONST[4]
  4: MOV OUT[0], TEMP[0]
  5: END
"""


def test_a_projection_by_multiplication_is_caught(runner):
    """Campaign seed 12: a TGSI TXP whose projection '/ w' became '* w' passed as 'lod' --
    a projected lookup's level of detail was the whole range (permits_texture._lod_window),
    and the mutant's lookups at coarse levels matched some level there.  A projected lookup
    now gets the window of a TEX around its own lambda, from the projected coordinates'
    partials: caught.  (The unmutated program still passes: every corpus program with a TXP
    does, at seeds 1 and 11.)"""
    sites = [m for ms in M.candidates(_glsl(TXP_TGSI), ("arith",)).values() for m in ms
             if "xl_c1.xyz / xl_c1.w" in m.before and "xl_c1.xyz * xl_c1.w" in m.after]
    assert len(sites) == 1, [m.after for m in M.candidates(_glsl(TXP_TGSI), ("arith",))["arith"]]
    pr = M.mutate_program(TXP_TGSI, "txp.tgsi", "test", runner, per_program=1, seed=12,
                          mutations=sites)
    assert pr.status == "clean", pr.status
    assert [(r.outcome, r.status) for r in pr.mutants] == [("caught", "mismatch")], \
        [(r.outcome, r.reason) for r in pr.mutants]


#: an integer MOD of two inputs into the colour: NV_gpu_program4 2.X.8.Z leaves a negative
#: dividend or a divisor <= 0 undefined
MOD_OF_INPUTS = """!!NVvp4.0
INT TEMP r;
MOD.S r.x, vertex.attrib[3].x, vertex.attrib[3].y;
MOV.S result.color, r.x;
MOV result.position, vertex.attrib[0];
END
"""


def test_a_pass_that_changes_only_undefined_lanes_is_counted_apart():
    """A mutant differing only on lanes whose outputs depend on a result the specs leave
    undefined (here MOD of a negative dividend or by a divisor <= 0) is 'undefined-only',
    shown by executor runs with those results replaced; one more difference on a lane the
    original determines and it is not (campaign seed 17: vp4_int_flags.vp's MOD of random
    words passed as 'explained')."""
    import numpy as np
    from xlate.verify.capture import Capture
    run, x, _ = _main_run(MOD_OF_INPUTS)
    a, b = x.view(np.int32)[:, 0], x.view(np.int32)[:, 1]
    undefined = (a < 0) | (b <= 0)
    assert 0 < undefined.sum() < run[2], "the generator gave no mix of defined and undefined"
    assert M.undetermined_lanes(*run, undefined=True).tolist() == undefined.tolist()
    lanes = run[2]
    col = np.arange(lanes * 4, dtype=np.uint32).reshape(lanes, 4)
    cap0 = Capture(outputs={"result_color0": col.copy()})
    refl = {"outputs": [{"name": "result_color0", "type": "vec4"}]}
    m = M.Mutation("swizzle", (), 0, (), "a", "b")
    changed = col.copy()
    changed[undefined, 0] += 1
    why = M.permitted_mutant(m, refl, cap0, Capture(outputs={"result_color0": changed}), run)
    assert why is not None and why[0] == "undefined-only", why
    changed[int((~undefined).nonzero()[0][0]), 0] += 1
    assert M.permitted_mutant(m, refl, cap0, Capture(outputs={"result_color0": changed}),
                              run) is None
