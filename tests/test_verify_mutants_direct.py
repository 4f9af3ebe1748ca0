"""The mutation harness on the direct SPIR-V path (issue 19): a wrong direct translation must not
pass ``xlate verify --backend vulkan`` / ``gl-spirv`` (``via="direct"``).

Mutants are edits of the lowered tree the direct backend prints (xlate/verify/mutants_tree.py),
made in every direct module the verifier has emitted (the emitter's ``Instrumentation.tree_edit``
hook).  The tests check the harness without a GPU (each kind has a site; an edit never touches
the program the executor runs; the mutated module passes spirv-val; a lowering without the site
is left alone) and then, on lavapipe, that each kind's mutant is caught and that every live
mutant of a fixed sample is caught with none explained away.
"""
from __future__ import annotations

from dataclasses import replace

import pytest

from conftest import gl_runner

from xlate import api
from xlate.backends import spirv as sp
from xlate.backends.spirv_direct import Instrumentation, emit_spirv
from xlate.ir.printer import print_program
from xlate.passes.structurize import Op
from xlate.verify import mutants as M
from xlate.verify.core import verify_source
from xlate.verify import mutants_tree as T
from xlate.verify.generate import generate

LIVE = ("caught",) + M.FOOLED

NVFP4 = """!!NVfp4.0
PARAM k = {0.5, 2.0, 3.0, 4.0};
TEMP r, t;
ADD.F r, fragment.texcoord[0], k;
MUL.F r, r, fragment.texcoord[1].yxzw;
SLT.F t, r, fragment.texcoord[0];
ADD.F.SAT r, r, t;
TEX.F t, fragment.texcoord[0], texture[0], 2D;
MAD.F r, r, t, k.y;
MOV.F result.color, r;
END
"""
from test_verify_mutants import NVVP4  # noqa: E402  (the same vertex program)
PROGRAMS = {"kinds.fp": NVFP4, "kinds.vp": NVVP4}

# kind -> (program, the node before, the node after): IR printer text
KIND_SITES = {
    "arith": ("kinds.fp", "MAD.F r, r, t, k.y", "MAD.F r, r, t, -k.y"),
    "literal": ("kinds.fp", "ADD.F r, fragment.texcoord[0], k",
                "ADD.F r, fragment.texcoord[0], {0.5049999952316284, 2.0, 3.0, 4.0}"),
    "literal-ulp": ("kinds.fp", "ADD.F r, fragment.texcoord[0], k",
                    "ADD.F r, fragment.texcoord[0], {0.5, 2.000000238418579, 3.0, 4.0}"),
    "swizzle": ("kinds.fp", "MUL.F r, r, fragment.texcoord[1].yxzw",
                "MUL.F r, r, fragment.texcoord[1].zxzw"),
    "saturate": ("kinds.fp", "ADD.F.SAT r, r, t", "ADD.F r, r, t"),
    "compare": ("kinds.fp", "SLT.F t, r, fragment.texcoord[0]",
                "SGE.F t, r, fragment.texcoord[0]"),
    "texcoord": ("kinds.fp", "TEX.F t, fragment.texcoord[0], texture[0], 2D",
                 "TEX.F t, fragment.texcoord[0].yyzw, texture[0], 2D"),
    "output": ("kinds.fp", "MOV.F result.color[0], r", "MOV.F result.color[0].xyz, r"),
    "cc": ("kinds.vp", "MOV.F R0 (GT.x), vertex.attrib[2]", "MOV.F R0 (LE.x), vertex.attrib[2]"),
    "loop": ("kinds.vp", "REP.S 3", "REP.S 4"),
}

# The fixed sample: generated programs (dialect, stage, seed) of several dialects; the first
# MUTANTS non-equivalent mutants of each (seed 1) must all be caught.
SAMPLE = [("nv4", "fragment", 2), ("arbvp-nv2", "vertex", 2), ("tgsi", "vertex", 1),
          ("arbfp", "fragment", 2), ("vp1.0", "vertex", 1), ("fp1.0", "fragment", 1)]
MUTANTS = 3


def _program(name: str):
    return api.parse(PROGRAMS[name], filename=name)


def _site(kind: str) -> T.TreeMutation:
    prog, before, after = KIND_SITES[kind]
    cands, _ = T.program_candidates(_program(prog), "vulkan", (kind,))
    found = [m for m in cands[kind] if (m.before, m.after) == (before, after)]
    assert found, f"no {kind} mutation {before!r} -> {after!r}: " \
                  f"{[(m.before, m.after) for m in cands[kind]]}"
    return found[0]


def _emit(program, mutation=None, **instrumentation) -> tuple[bytes, list[bool]]:
    hit = []
    edit = None if mutation is None else (lambda lowered: hit.append(mutation.apply(lowered)))
    words = emit_spirv(program, "vulkan",
                       instrumentation=Instrumentation(tree_edit=edit, **instrumentation)).spirv
    return words, hit


# ---- the harness, without a GPU ------------------------------------------------------------

@pytest.mark.parametrize("kind", T.KINDS)
def test_every_kind_has_a_site(kind):
    _site(kind)


@pytest.mark.parametrize("kind", T.KINDS)
def test_mutated_module_is_valid_and_differs(kind):
    """The edit reaches the module, which spirv-val accepts (Vulkan 1.0 environment)."""
    prog = _program(KIND_SITES[kind][0])
    plain, _ = _emit(prog)
    words, hit = _emit(prog, _site(kind))
    assert hit == [True]
    assert words != plain
    assert sp.validate_spirv(words, target="vulkan") is None


def test_edit_leaves_the_program_alone():
    """The executor runs the same Program object: no instruction or register may change."""
    prog = _program("kinds.fp")
    before = print_program(prog)
    plain, _ = _emit(prog)
    for kind in ("literal", "swizzle", "output", "arith"):
        _emit(prog, _site(kind))
    assert print_program(prog) == before
    assert _emit(prog)[0] == plain          # and the next lowering is the program's own
    assert T.KINDS and "xl_mutant" not in prog.registers


def test_site_is_found_by_content_in_every_instrumented_module():
    """The verifier's capture and feeds change the module, not the tree: the site is found."""
    prog = _program("kinds.fp")
    m = _site("compare")
    _, hit = _emit(prog, m, extra_output=3, feeds={"fragment_texcoord_0": 1})
    assert hit == [True]


def test_lowering_without_the_site_is_left_alone():
    m = _site("compare")
    other = _program("kinds.vp")
    plain, _ = _emit(other)
    words, hit = _emit(other, m)
    assert hit == [False] and words == plain


def test_occurrence_names_the_second_equal_node():
    """Two nodes with the same text are told apart by their order."""
    text = NVVP4.replace("MOV.F result.color, R1;", "MOV.F R1, vertex.attrib[1];\n"
                         "MOV.F result.texcoord[0], R1;\nMOV.F R1, vertex.attrib[1];\n"
                         "MOV.F result.color, R1;")
    cands, _ = T.program_candidates(api.parse(text, filename="t.vp"), "vulkan", ("swizzle",))
    occ = sorted({m.occurrence for m in cands["swizzle"]
                  if m.before == "MOV.F R1, vertex.attrib[1]"})
    assert occ == [0, 1]


def test_dead_instruction_is_not_a_candidate():
    """An instruction whose value nothing reads is not in the lowered tree (the middle end's
    deadcode pass), so the harness never mutates it; nothing is left for its own dead-site
    count either."""
    text = NVVP4.replace("MOV.F R0, vertex.attrib[0];", "MOV.F R0, vertex.attrib[0];\n"
                         "MOV.F R1, vertex.attrib[3];")
    cands, dead = T.program_candidates(api.parse(text, filename="t.vp"), "vulkan")
    assert not any(m.before == "MOV.F R1, vertex.attrib[3]" for ms in cands.values() for m in ms)
    assert dead == 0


# ---- classification on lavapipe --------------------------------------------------------------

@pytest.fixture(scope="module")
def runner():
    return gl_runner("vulkan")


def _classify(runner, name, text, mutations):
    pr = M.mutate_program(text, name, "test", runner, per_program=len(mutations), seed=1,
                          mutations=mutations, target="spirv-direct")
    assert pr.status == "clean", pr.status
    return pr.mutants


@pytest.mark.parametrize("kind", T.KINDS)
def test_kind_mutant_is_caught(runner, kind):
    prog = KIND_SITES[kind][0]
    [r] = _classify(runner, prog, PROGRAMS[prog], [_site(kind)])
    if kind == "literal-ulp":
        # within GL's precision: permitted when passed (mutants.permitted_mutant); caught here
        assert r.outcome in ("caught", "precision"), (r.outcome, r.reason)
        return
    assert r.outcome == "caught", (r.outcome, r.status, r.reason)
    assert r.shaders_mutated >= 1       # the verifier ran the mutated direct module
    assert r.main_run_reused            # its main run is the harness's equivalence run


def test_equivalent_mutant_is_a_real_edit(runner):
    """Dropping the clamp of a constant inside [0, 1] changes the module, not an output bit:
    equivalent, and the module that ran carried the edit."""
    text = NVVP4.replace("MOV.F result.color, R1;", "MOV.F.SAT R1, {0.5};\n"
                         "MOV.F result.color, R1;")
    cands, _ = T.program_candidates(api.parse(text, filename="t.vp"), "vulkan", ("saturate",))
    [m] = cands["saturate"]
    assert m.after == "MOV.F R1, {0.5, 0.0, 0.0, 1.0}"
    [r] = _classify(runner, "t.vp", text, [m])
    assert (r.outcome, r.shaders_mutated) == ("equivalent", 1)


def test_gl_spirv_backend_catches_a_mutant():
    runner = gl_runner("gl-spirv")
    [r] = _classify(runner, "kinds.fp", NVFP4, [_site("compare")])
    assert r.outcome == "caught", (r.outcome, r.reason)


def test_tree_the_emitter_refuses_is_rejected(runner):
    m = _site("arith")
    bad = replace(m, node=Op(m.node.ins.replace(op="SAD")), after="SAD.F r, r, t, k.y")
    [r] = _classify(runner, "kinds.fp", NVFP4, [bad])
    assert r.outcome == "rejected"
    assert "the mutated tree is not printed: the instruction SAD.F" in r.reason


_SAMPLE_RESULTS: dict = {}


def _sample(runner):
    if not _SAMPLE_RESULTS:
        for d, st, seed in SAMPLE:
            name = f"gen:{d}-{st}-{seed}"
            pr = M.mutate_program(generate(d, seed, st, 12, frozenset()), name, "sample", runner,
                                  per_program=MUTANTS, seed=1, tries=10, target="spirv-direct")
            _SAMPLE_RESULTS[name] = pr
    return _SAMPLE_RESULTS


def test_sample_every_live_mutant_is_caught(runner):
    results = _sample(runner)
    assert all(pr.status == "clean" for pr in results.values()), \
        {n: pr.status for n, pr in results.items()}
    mutants = [m for pr in results.values() for m in pr.mutants]
    live = [m for m in mutants if m.outcome in LIVE]
    assert len(live) >= len(SAMPLE) * 2, [(m.program, m.outcome) for m in mutants]
    fooled = [(m.program, m.kind, m.before, m.after, m.reason) for m in live
              if m.outcome != "caught"]
    assert fooled == []
    assert all(m.shaders_mutated >= 1 for m in live)


# ---- what the direct path's verification passed before it held the direct module exactly ------------------------------------------

#: a literal 1 % off added to a lookup's result: the output moves by <= 0.005, which the direct
#: path's cross-check (xlate/verify/core.py, ``_verify_program``: where the direct module
#: departs from glslang's, compare's *loose* tolerance rules decide) accepts, because the
#: component depends on a TEX and INEXACT["TEX"] allows 2^-7 absolute.  The GLSL path catches
#: the same mutant (its differences must be replayed).  Found by this harness; the direct
#: module's own departures are now mismatches (core._verify_program).
TEX_PLUS_LITERAL = """!!NVfp4.0
TEMP t;
TEX.F t, fragment.texcoord[0], texture[0], 2D;
ADD.F result.color, t, {0.5, 0.25, 0.125, 1.0};
END
"""


def test_small_literal_change_after_a_lookup_is_caught(runner):
    cands, _ = T.program_candidates(api.parse(TEX_PLUS_LITERAL, filename="t.fp"), "vulkan",
                                    ("literal",))
    [m] = [m for m in cands["literal"] if "0.5049999952316284" in m.after]
    pr = M.mutate_program(TEX_PLUS_LITERAL, "t.fp", "test", runner, per_program=1, seed=1,
                          mutations=[m], target="spirv-direct")
    assert [r.outcome for r in pr.mutants] == ["caught"], \
        [(r.outcome, r.status, r.reason) for r in pr.mutants]


def test_inverted_cc_write_to_a_component_called_undefined_is_caught(runner):
    """corpus/nv4/gp4_explode_flat_lit.gp: ``MOV col.w (GT1.y), 0.5`` -> ``(LE1.y)`` changes
    result.color.w on 768 vertices; the analysis marks result.color undefined (it is computed
    from NRM/XPD results), so the loose comparison does not look at it."""
    name = "corpus/nv4/gp4_explode_flat_lit.gp"
    with open(name) as f:
        text = f.read()
    cands, _ = T.program_candidates(api.parse(text, filename=name), "vulkan", ("cc",))
    [m] = [m for m in cands["cc"] if m.after == "MOV.F col.w (LE1.y), 0.5"]
    pr = M.mutate_program(text, name, "test", runner, per_program=1, seed=1, mutations=[m],
                          target="spirv-direct")
    assert [r.outcome for r in pr.mutants] == ["caught"], \
        [(r.outcome, r.status, r.reason) for r in pr.mutants]


# ---- the campaign tool ---------------------------------------------------------------------------

def _tool():
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
    import verify_mutants as VM
    return VM


def test_tool_refuses_the_direct_target_on_the_gl_backend(capsys):
    with pytest.raises(SystemExit) as e:
        _tool().main(["--target", "spirv-direct", "--backend", "gl"])
    assert e.value.code == 2
    assert "--target spirv-direct runs on --backend vulkan or gl-spirv" in capsys.readouterr().err


def test_tool_runs_the_direct_target(runner, capsys):
    """``--target spirv-direct`` on lavapipe: the per-kind table, every live mutant caught."""
    code = _tool().main(["--target", "spirv-direct", "--source", "generated", "--dialect",
                         "vp1.0", "--programs", "1", "--mutants-per-program", "2", "--quiet"])
    out = capsys.readouterr().out
    assert code == 0, out
    kind_table = out[out.index("\nkind "):]
    total = kind_table.split("\ntotal")[1].split()
    assert int(total[0]) == int(total[1]) >= 1          # live == caught
    assert "0 live mutants passed the verifier" in out


def test_pk4b_of_a_nan_matches_the_executor_on_the_direct_path(runner):
    """Held exactly, the direct module showed its own defect: PK4B of a NaN packed byte 0x00
    (FClamp of a NaN is undefined; lavapipe's gave 0) where the executor packs 0.0 (0x80) and
    glslang's module agrees.  Generated arbfp-nv2 fragment program, seed 8."""
    from xlate.verify.generate import generate
    text = generate("arbfp-nv2", 8, "fragment", 12, frozenset())
    assert "PK4B result.color, r2;" in text
    rep = verify_source(text, "g.fp", lanes=256, seed=1, backend="vulkan", runner=runner,
                        via="direct")
    assert rep.status == "pass", rep.reason
