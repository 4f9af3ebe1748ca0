"""The verifier's verdict tail for compute programs (xlate/verify/compute_replay.py): probes
stored into a harness buffer per invocation, the replay adopting only what a rule of permits
shows permitted -- an approximate EX2/LG2 is explained (tolerance), a wrong translation after
it is not (a perturbed literal, a swapped operator), and a racy program is not compared."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from conftest import gl_runner

from xlate import api
from xlate.exec.compute import execute_compute
from xlate.verify.compute_replay import instrument
from xlate.verify.core import verify_source
from xlate.verify.trace import _events

#: each invocation of the 2 x 2 grid its own 16 bytes at (4 (block.x + 2 block.y) + thread) * 16:
#: EX2 and LG2 of the loaded words (approximations on llvmpipe), then exact MUL / ADD by literals
APPROX = """COMP
PROPERTY CS_FIXED_BLOCK_WIDTH 4
PROPERTY CS_FIXED_BLOCK_HEIGHT 1
PROPERTY CS_FIXED_BLOCK_DEPTH 1
DCL SV[0], THREAD_ID
DCL SV[1], BLOCK_ID
DCL BUFFER[0]
DCL TEMP[0..3]
IMM[0] UINT32 {0, 1, 2, 4}
IMM[1] FLT32 {3.0, 0.375, 1.5, 0.0}
UMAD TEMP[0].x, SV[1].yyyy, IMM[0].zzzz, SV[1].xxxx
UMAD TEMP[0].x, TEMP[0].xxxx, IMM[0].wwww, SV[0].xxxx
SHL TEMP[0].x, TEMP[0].xxxx, IMM[0].wwww
LOAD TEMP[1], BUFFER[0], TEMP[0].xxxx
EX2 TEMP[2].x, TEMP[1].xxxx
LG2 TEMP[2].y, TEMP[1].yyyy
MUL TEMP[2].z, TEMP[2].xxxx, IMM[1].xxxx
ADD TEMP[2].w, TEMP[2].yyyy, IMM[1].yyyy
STORE BUFFER[0], TEMP[0].xxxx, TEMP[2]
END
"""


def _verify(text: str, backend: str = "gl", **kw):
    return verify_source(text, "c.tgsi", backend=backend, runner=gl_runner(backend), **kw)


def _wrong(monkeypatch, old: str, new: str) -> None:
    """Every GLSL translation (the main run's and the probes') with ``old`` replaced."""
    from xlate.backends import glsl as glsl_mod
    real = glsl_mod.emit_glsl

    def emit(prog, profile="glsl450", **kw):
        out = real(prog, profile, **kw)
        assert old in out.source
        return dataclasses.replace(out, source=out.source.replace(old, new))
    monkeypatch.setattr(glsl_mod, "emit_glsl", emit)


def test_probes_store_each_invocations_value_in_its_own_slot():
    # the instrumented program, run by the executor: slot (invocation, probe) holds the value
    # the probed instruction left in that invocation (no GL needed)
    prog = api.parse(APPROX)
    events = [ev for ev in _events(prog) if ev[0] == "value"]
    k = next(k for _, k, _ in events if prog.instructions[k].op == "MUL")
    probes = [(k, what, "after") for _, kk, what in events if kk == k]
    probed, names, binding = instrument(prog, probes, (2, 2, 1))
    words = np.arange(256, dtype=np.float32).view(np.uint32) % 7
    res = execute_compute(probed, (2, 2, 1), buffers={0: words.copy(), binding: np.zeros(
        16 * 4, np.uint32)})
    slots = res.buffers[binding].reshape(16, 4)
    plain = execute_compute(prog, (2, 2, 1), buffers={0: words.copy()})
    # MUL wrote TEMP[2].z = EX2(x) * 3 where the invocation stored TEMP[2] (its 16 bytes)
    assert np.array_equal(slots[:, 2], plain.buffers[0].reshape(64, 4)[:16, 2])
    assert res.race is None and names == ["xv_probe0"]


def test_approximations_are_explained_by_tolerance():
    rep = _verify(APPROX)
    assert rep.status == "pass" and rep.total_differences > 0, rep.reason
    assert "tolerance" in rep.reason and rep.reason.startswith("differences explained")
    ops = {x["instruction"]["op"] for x in rep.localization if x["verdict"] == "tolerance"}
    assert ops <= {"EX2", "LG2"} and ops


@pytest.mark.parametrize("backend", ["gl-spirv", "vulkan"])
def test_approximations_are_explained_on_the_spirv_backends(backend):
    rep = _verify(APPROX, backend)
    assert rep.status == "pass", (rep.reason, [d.describe() for d in rep.differences[:3]])


def test_a_perturbed_literal_after_an_approximation_is_a_mismatch(monkeypatch):
    _wrong(monkeypatch, "TEMP2.x) * 3.0)", "TEMP2.x) * 3.03)")
    rep = _verify(APPROX)
    assert rep.status == "mismatch", rep.reason
    bad = [x for x in rep.localization if x["verdict"] == "divergence"]
    assert bad and {x["instruction"]["op"] for x in bad} == {"MUL"}
    assert rep.reason.startswith("localized: divergence at 'MUL")


def test_a_swapped_operator_after_an_approximation_is_a_mismatch(monkeypatch):
    _wrong(monkeypatch, "TEMP2.y) + 0.375)", "TEMP2.y) - 0.375)")
    rep = _verify(APPROX)
    assert rep.status == "mismatch", rep.reason
    assert {x["instruction"]["op"] for x in rep.localization
            if x["verdict"] == "divergence"} == {"ADD"}


def test_localization_off_explains_nothing():
    rep = _verify(APPROX, localize=False)
    assert (rep.status, rep.reason) == ("mismatch", "outputs differ (localization off: nothing "
                                        "was explained)")


def test_a_data_race_is_unsupported_not_compared():
    # every invocation stores its own thread id to word 0: the word left is whichever store
    # the implementation did last
    racy = APPROX.replace("LOAD TEMP[1], BUFFER[0], TEMP[0].xxxx\n",
                          "STORE BUFFER[0].x, IMM[0].xxxx, SV[0].xxxx\n")
    rep = verify_source(racy, "race.tgsi", runner=gl_runner("gl"))
    assert (rep.status, rep.reason) == (
        "unsupported", "data race: BUFFER0 location 0: invocations 0 and 1 store different "
        "values with no BARRIER between -- the result depends on an order of the invocations "
        "the program leaves open (exec/races.py); not compared")


def test_a_value_whose_execution_count_is_unknown_is_not_probed():
    # a program with flow: each value is placed at a pass by its region's execution count; a
    # probe function that has no counts (a compute dispatch rejected because its atomics ran
    # otherwise) leaves those instructions unprobed, instead of comparing their first pass
    # with the last pass's value (a false divergence inside a loop, seen on lavapipe)
    from xlate.verify.probes import probe_values
    prog = api.parse(APPROX.replace("MUL TEMP[2].z", "UIF TEMP[0].xxxx\nMUL TEMP[2].z").replace(
        "ADD TEMP[2].w", "ENDIF\nADD TEMP[2].w"))

    def probe(program, gen, runner, lanes, events, which=None, into=None, nth=None, **kw):
        chosen = range(len(events)) if which is None else which
        return {}, {i: (None if nth == 0 else np.full((lanes, 4), 7, np.uint32))
                    for i in chosen}
    values = probe_values(prog, None, None, 16, probe)
    assert values == {}
    with_counts = probe_values(prog, None, None, 16, lambda *a, nth=None, **kw: probe(
        *a, nth=None if nth == 0 else nth, **kw))
    assert {prog.instructions[k].op for k in with_counts} >= {"MUL", "EX2"}
