"""A freedom only the main compilation took, shown at the output's last writer
(xlate/verify/output_writers.py): the main run's output word judged as the writer's value by
the recomputing rules (ftz, signedzero, tolerance) -- and nothing else."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

import xlate
from conftest import gl_runner
from xlate.verify.analysis import analyse
from xlate.verify.compare import Difference
from xlate.verify.draw_run import DrawHarness, builtin_values_for, fragment_xy
from xlate.verify.inputs import generate
from xlate.verify.output_compare import output_elements
from xlate.verify.output_writers import applies, writer_verdicts
from xlate.verify.replay import ReplayHook

SSG = ("FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL TEMP[0]\n"
       "MOV TEMP[0], IN[0]\nSSG OUT[0], -TEMP[0].xxxx\nEND\n")
LANES = 8
DENORMAL, ONE = 0x00000001, 0x3F800000
MINUS_ONE, MINUS_ZERO, PLUS_ONE = 0xBF800000, 0x80000000, 0x3F800000


def _run(text: str, inputs: list[int]):
    """``text`` parsed, with IN[0].x = ``inputs[lane]``, and its output's binding."""
    program = xlate.parse(text, filename="w.tgsi")
    facts = analyse(program, set())
    gen = generate(program, facts, LANES, 1, builtin_values=builtin_values_for(
        program.stage, LANES, fragment_xy(program, LANES)))
    (key,) = [k for k in gen.inputs if k not in gen.builtin]
    gen.inputs[key][:, 0] = inputs
    binding = next(iter(output_elements(program)))
    return program, facts, gen, binding


def _verdicts(text: str, inputs: list[int], diffs):
    """What the writer judge finds where every probe agreed (none was read: the writer is
    judged alone) and the outputs differ by ``diffs(binding)``."""
    program, facts, gen, binding = _run(text, inputs)
    diffs = diffs(binding)
    return writer_verdicts(program, diffs, sorted({d.lane for d in diffs}),
                           ReplayHook(program, {}, LANES, "gl"),
                           DrawHarness(program, facts, {}, None), gen, LANES)


def _judge(text: str, inputs: list[int], got: dict[int, int]):
    """The implementation's OUT[0].x is ``got[lane]`` where the executor's is -1."""
    return _verdicts(text, inputs, lambda binding: [
        Difference(binding, lane, 0, MINUS_ONE, word) for lane, word in got.items()])


def test_a_flushed_denormal_at_the_writer_is_ftz():
    found = _judge(SSG, [DENORMAL] * LANES, {1: MINUS_ZERO, 2: 0})
    assert found.lanes == [1, 2]
    assert found.adopted == {(1, "ftz"): 2}
    (example,) = found.examples
    assert (example.index, example.lane, example.verdict) == (1, 1, "ftz")


@pytest.mark.parametrize("inputs, word", [
    ([DENORMAL] * LANES, PLUS_ONE),     # the sign flipped: no rule recomputes +1
    ([DENORMAL] * LANES, 0x7FC00000),   # a NaN written out: no operand is NaN
    ([ONE] * LANES, MINUS_ZERO)])       # a normal operand: nothing to flush
def test_a_wrong_output_word_is_not_shown(inputs, word):
    found = _judge(SSG, inputs, {3: word})
    assert (found.lanes, found.adopted) == ([], {})


def test_one_unshown_component_leaves_the_lane_unexplained():
    assert _judge(SSG, [DENORMAL] * LANES, {4: MINUS_ZERO}).lanes == [4]
    found = _verdicts(SSG, [DENORMAL] * LANES, lambda binding: [
        Difference(binding, 4, 0, MINUS_ONE, MINUS_ZERO),
        Difference(binding, 4, 1, MINUS_ONE, PLUS_ONE)])
    assert (found.lanes, found.adopted) == ([], {})


def test_an_output_read_back_is_judged_at_its_final_copy():
    """The TGSI frontend writes a read-back output to a temporary copied out at the end: the
    copy is the writer, and a MOV of the executor's -1 recomputes no -0."""
    reads = SSG.replace("END\n", "MOV TEMP[0], OUT[0]\nEND\n")
    program = xlate.parse(reads, filename="w.tgsi")
    assert [(i.op, i.dst and i.dst.reg) for i in program.instructions][-2:] == \
        [("MOV", "OUT0"), ("RET", None)]
    assert applies(program)
    assert _judge(reads, [DENORMAL] * LANES, {1: MINUS_ZERO}).lanes == []


def test_a_program_whose_instructions_read_an_output_register_is_not_judged():
    program = xlate.parse(SSG, filename="w.tgsi")
    mov = program.instructions[0]
    program.instructions[0] = dataclasses.replace(
        mov, srcs=(dataclasses.replace(mov.srcs[0], reg="OUT0"),))
    assert not applies(program)


@pytest.mark.gl
def test_generated_fragment_seed_44_flushes_only_in_the_main_compilation():
    """tests/data/generated_tgsi_fragment_44.tgsi: ``tools/diffcheck.py --generated tgsi
    --stage fragment --seed 44 --count 1 --lanes 256`` as the generator wrote it on
    2026-11-28.  ``SSG OUT[0], -TEMP[2].y`` of a denormal: -1 in the executor and in every
    probe compilation, -0 from the main one, on 22 lanes; the writer recomputed with the
    denormal flushed gives the main run's words (Mesa 22.3.6, llvmpipe)."""
    from xlate.verify.core import verify_source
    text = (Path(__file__).parent / "data" / "generated_tgsi_fragment_44.tgsi").read_text()
    rep = verify_source(text, "generated-tgsi-fragment-44", lanes=256, seed=44,
                        runner=gl_runner("gl"))
    assert (rep.status, rep.reason) == ("pass", "differences explained: ftz, tolerance (shown: "
                                        "the executor, adopting those results, reproduces "
                                        "every output)")
    assert rep.notes[0].startswith("output writers: on 22 lanes (first 9) every probed value "
                                   "agreed and the outputs did not;")
    ssg = [x for x in rep.localization if x["instruction"]["op"] == "SSG"]
    assert [(x["verdict"], x["executor"][0], x["implementation"][0]) for x in ssg] == \
        [("ftz", "-1.0/0xbf800000", "-0.0/0x80000000")]
