"""Property tests: random NV_gpu_program4 programs (xlate.verify.generate) run in the executor
and, translated, on llvmpipe must agree.

The runner declares every GLSL variable ``precise`` (``Runner(precise=True)``): without it
Mesa reassociates and contracts float operations (a*b+c -> fma, x*0 -> 0) and nearly every
program differs by an ulp somewhere -- that problem is tracked on its own by
``test_verify_cases.py::test_mad_add_contraction``.  Differences the specs allow (denormal
flushing, NaN/Inf freedoms of GLSL, approximate transcendentals, undefined integer cases)
are explained by ``xlate.verify`` and count as passes.  A deterministic, modest number of
examples keeps the test well under a minute.
"""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import verdict_pins
from conftest import gl_runner

from xlate.verify.core import verify_source
from xlate.verify.generate import random_program

EXAMPLES = 24          # per stage
LANES = 256


def runner_or_skip():
    return gl_runner("gl", precise=True)


def _check(stage: str, seed: int) -> None:
    runner = runner_or_skip()
    text = random_program(seed, stage)
    rep = verify_source(text, f"random-{stage}-{seed}", lanes=LANES, seed=seed, runner=runner)
    assert rep.status == "pass", (
        f"{stage} program from seed {seed} ({rep.reason}):\n{text}\n"
        + "\n".join(d.describe() for d in rep.differences[:5])
        + f"\nlocalization: {rep.localization}")
    # the fragment seeds come from hypothesis: fixed in CI's profile, not elsewhere
    verdict_pins.check(f"random-nv4-{stage}-{seed}", rep, required=stage == "vertex")


# Vertex programs: a fixed seed range (deterministic in CI).  Seeds with an open, not yet
# diagnosed disagreement are strict xfails: they turn red once fixed, so they get removed here.
OPEN_VERTEX_SEEDS: dict[int, str] = {
    29: ("open: a float DIV by an XPD's zero w feeds a LG2 loop; llvmpipe's value there differs "
         "between compilations (nonfinite: free), and the per-pass probes of the loop come from "
         "different compilations, which the replay cannot tie together -- reported as "
         "divergence (the old verifier passed it without showing it)"),
}     # seed 31: test_verify_cases.py::
#                                             test_coarse_scan_fills_in_skipped_events


@pytest.mark.parametrize("seed", [
    pytest.param(s, marks=pytest.mark.xfail(strict=True, reason=OPEN_VERTEX_SEEDS[s]))
    if s in OPEN_VERTEX_SEEDS else s for s in range(40)])
def test_random_vertex_programs(seed):
    _check("vertex", seed)


@settings(max_examples=EXAMPLES, derandomize=True, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(st.integers(min_value=0, max_value=2 ** 31 - 1))
def test_random_fragment_programs(seed):
    _check("fragment", seed)
