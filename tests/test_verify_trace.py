"""Localization (xlate/verify/trace.py): per-pass probes, the static set of instructions that
may run more than once, and the verdicts of the TGSI corpus programs whose differences are
explained by a specification passage or a pinned implementation defect."""
from __future__ import annotations

import numpy as np
import pytest

from conftest import SHARED_CORPUS, shared_corpus_or_skip

import xlate
from xlate.ir.model import Source
from xlate.verify import trace
from xlate.verify.core import verify_source
from xlate.verify.inputs import GeneratedInputs

from test_verify_cases import runner_or_skip

CORPUS = SHARED_CORPUS

LOOP_VP = """!!NVvp4.0
INT TEMP i;
TEMP t;
MOV t, {0, 0, 0, 0};
REP {5};
  ADD t, t, {1.5, 2, 3, 4};
ENDREP;
MOV result.texcoord[0], t;
MOV result.position, vertex.attrib[0];
END
"""


def _index(prog, op):
    return next(k for k, ins in enumerate(prog.instructions) if ins.op == op)


def test_repeated_instructions_of_loops_backward_branches_and_subroutines():
    prog = xlate.parse(LOOP_VP)
    rep, end = _index(prog, "REP"), _index(prog, "ENDREP")
    assert trace._repeated(prog) == set(range(rep, end + 1))
    sub = xlate.parse("!!NVvp4.0\nTEMP t;\nCAL f;\nMOV result.position, t;\nRET;\n"
                      "f:\nADD t, t, {1, 1, 1, 1};\nRET;\nEND\n")
    start = sub.labels["f"]
    assert trace._repeated(sub) == set(range(start, len(sub.instructions)))
    vp2 = xlate.parse("!!VP2.0\nMOV R0, v[0];\nloop:\nADDC R0, R0, -c[0];\n"
                      "BRA loop (GT.x);\nMOV o[HPOS], R0;\nEND\n")
    target, bra = vp2.labels["loop"], _index(vp2, "BRA")
    assert set(range(target, bra + 1)) <= trace._repeated(vp2)
    assert 0 not in trace._repeated(vp2)


@pytest.mark.parametrize("backend", ["gl", "gl-spirv", "vulkan"])
def test_probe_of_the_nth_pass_and_the_pass_count(backend):
    """The same per-pass probe on both sides: the value after pass n of a loop body, and the
    number of passes; no condition codes are used (the program's own stay untouched)."""
    runner = runner_or_skip(backend)
    prog = xlate.parse(LOOP_VP)
    add = _index(prog, "ADD")
    gen = GeneratedInputs(4, inputs={"vertex.attrib[0]": np.zeros((4, 4), np.uint32)})
    probes = [(add, trace._dest_source(prog.instructions[add]), "after", n) for n in (1, 3, 5, 6)]
    probes.append((add, Source("xv_zero"), "before", 0))
    names, exe, imp, _ = trace._run_both(prog, gen, runner, 4, probes)
    want = [np.float32([1.5, 2, 3, 4]) * n for n in (1, 3, 5)] + [np.zeros(4, np.float32)]
    for name, w in zip(names, want):
        assert np.array_equal(exe[name][0].view(np.float32), w), name
        assert np.array_equal(imp[name][0], exe[name][0]), name
    assert list(exe[names[4]][0]) == list(imp[names[4]][0]) == [5, 5, 5, 5]


# TGSI corpus programs that once were "unexplained"; each verdict is argued in trace.py /
# compare.EXPLANATIONS: an implementation defect pinned by test_verify_cases.py, a TXP whose
# q is 0 (infinite coordinates), derivatives after a non-uniform KILL (GLSL 4.50 §6.4).
EXPLAINED = [
    ("yuq+mesa-lima/vert-umul_hi.tgsi", "implementation"),
    ("yuq+mesa-lima/vert-imul_hi.tgsi", "implementation"),
    ("austriancoder+etnaviv_compiler_tests/tex-clamp1.tgsi", "nonfinite"),
    ("austriancoder+etnaviv_compiler_tests/0ad-94.tgsi", "lod"),
]


# NV4 programs of cgc, with the verdicts the replay shows (xlate/verify/replay.py): an integer
# pattern moved with MOV.F no longer differs at all (the old verifier called it 'ftz'); a
# sin-hash noise (approximations within their bound, SIN of huge arguments).
EXPLAINED_NV4 = [
    ("cg/gp4fp/crt__shaders__GTU-famicom__DAC.cg__main_fragment__noopt.fp", set()),
    ("cg/gp4fp/borders__resources__color-grid.cg__main_fragment.fp", {"range", "tolerance"}),
    pytest.param(
        "cg/gp4fp/xbr__shaders__super-xbr__super-4xbr-3d-pass1.cg__main_fragment.fp", {"lod"},
        marks=pytest.mark.xfail(strict=True, reason=(
            "open: TEXs in non-uniform flow (derivatives undefined, GLSL 4.50 §8.14.1) feed "
            "DP3s compared for equality (SEQ) into an AND.U.CC HC whose flags decide an IF; "
            "the TEX values agree in the probed compilations and differ in the unprobed one. "
            "A lookup with an undefined LOD is adopted where the probe shows it and everything "
            "after it is checked exactly, so the main compilation's other choice is a "
            "mismatch on 7 lanes (the first verifier passed it as 'lod' without showing "
            "anything)"))),
]


@pytest.mark.parametrize("name,verdicts", [("collected/tgsi/" + n, {v}) for n, v in EXPLAINED]
                         + EXPLAINED_NV4)
def test_corpus_differences_are_explained(name, verdicts):
    path = CORPUS / name
    shared_corpus_or_skip(name)
    runner = runner_or_skip("gl")
    rep = verify_source(path.read_text(), str(path), lanes=256, seed=1, runner=runner)
    assert rep.status == "pass", (rep.status, rep.reason, rep.localization)
    assert {x["verdict"] for x in rep.localization} == verdicts


def test_refine_finds_the_first_pass_that_differs():
    """The value read after the loop comes from pass 1 of an instruction later in the body:
    the last-pass probes see MOV's operand differ first; the per-pass search names pass 1 of
    the MUL.HI (a defect of Mesa's GLSL compiler, pinned in test_verify_cases.py)."""
    runner = runner_or_skip("gl")
    text = ("!!NVvp4.0\nUINT TEMP a, b;\nREP {2};\nMOV.U b, a;\n"
            "MUL.U.HI a, {4, 0xffffffff, 0x80000000, 3}, {0x40000000, 0xffffffff, 2, 3};\n"
            "ENDREP;\nMOV.U result.texcoord[0], b;\nMOV result.position, vertex.attrib[0];\nEND\n")
    rep = verify_source(text, "refine.vp", lanes=8, seed=1, runner=runner)
    # Mesa 22.3 (CI's Debian 12) has the defect; an implementation without it leaves nothing to
    # localize, and then this test must fail rather than pass having checked nothing
    assert rep.localization, (f"no difference to localize on {runner.describe()}: it folds "
                              "mul-hi of constants correctly; pin another defect for this test")
    loc = rep.localization[0]
    assert (loc["verdict"], loc["pass"], loc["instruction"]["line"]) == \
        ("implementation", 1, 5)
