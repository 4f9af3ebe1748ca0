"""tools/diffcheck.py over a fixed sample of the shared NV4 corpus (well under five minutes).

Checks that the cross-check runs end to end on real programs of every NV4 folder: each
program gets a verdict (no verifier crash, no hang), the table counts add up, and every
mismatch comes with a localization (the first differing instruction and its verdict).  The
mismatches themselves are the findings listed in tests/test_verify_cases.py.
"""
from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

import verdict_pins
from conftest import ROOT, gl_context, shared_corpus_or_skip


class _Report:
    """A diffcheck JSON document seen as a report for verdict_pins."""

    def __init__(self, d: dict):
        self.status = d["status"]
        self.reason = d.get("reason", "")
        self.localization = d.get("localization") or []
        self.differences = []

SAMPLE = 4          # programs per folder
SEED = 11


def _diffcheck():
    spec = importlib.util.spec_from_file_location("diffcheck", ROOT / "tools" / "diffcheck.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_diffcheck_sample():
    corpus = shared_corpus_or_skip()
    gl_context("core")
    dc = _diffcheck()
    files = dc.sample(dc.corpus_files(Path(corpus)), SAMPLE, SEED)
    assert set(files) == set(dc.FOLDERS)
    again = dc.sample(dc.corpus_files(Path(corpus)), SAMPLE, SEED)
    assert files == again                                    # deterministic sample
    paths = [str(p) for lst in files.values() for p in lst]
    docs = dc.run_all(paths, lanes=256, seed=SEED, jobs=2, timeout=120)
    assert len(docs) == len(paths)
    by_file = {d["file"]: d for d in docs}
    results = {folder: [by_file[str(p)] for p in lst] for folder, lst in files.items()}
    table = dc.table(results)
    assert "total" in table and all(folder in table for folder in files)
    statuses = [d["status"] for d in docs]
    assert not {"crash", "timeout"} & set(statuses), [d for d in docs if d["status"] in
                                                       ("crash", "timeout")]
    for d in docs:
        if d["status"] == "mismatch":
            assert d["localization"], d
            assert all(x.get("verdict") for x in d["localization"])
    # every program's outcome is pinned (tests/verdict_pins.py), not "half of them pass"
    for d in docs:
        rel = os.path.relpath(d["file"], corpus)
        verdict_pins.check(f"diffcheck-{rel}", _Report(d))


def test_cgc_glsl_oracle_sample():
    """cgc's own GLSL for the same entry point, beside xlate's translation of the assembly."""
    corpus = shared_corpus_or_skip()
    from xlate.verify.oracle import CompatRunner, compare_pair, pairs
    from xlate.verify.gl import Runner
    gl_context("core", "compat")
    ps = pairs(Path(corpus))
    assert len(ps) > 1000
    vs = [p for p in ps if p[2] == "vertex"][::97][:3]
    fs = [p for p in ps if p[2] == "fragment"][::151][:3]
    runner, compat = Runner("gl"), CompatRunner()
    results = [compare_pair(a, g, st, lanes=128, seed=SEED, runner=runner, compat=compat)
               for a, g, st in vs + fs]
    assert all(r.status in ("match", "differ", "unsupported") for r in results), \
        [(r.asm, r.reason) for r in results]
    assert sum(r.status == "match" for r in results) >= 4
    assert all(r.compared > 0 for r in results if r.status != "unsupported")


def test_oracle_struct_attribute_read_as_a_uniform():
    """cgc's GLSL 1.10 has no struct attributes: a varying struct input (ATTR1 in the
    assembly) becomes a uniform there.  The oracle gives the attribute one value for every
    vertex and the uniform that value, so the pair compares like for like (it differed on
    every vertex before)."""
    corpus = shared_corpus_or_skip()
    from xlate.verify.oracle import compare_pair
    gl_context("core", "compat")
    cg = Path(corpus) / "cg"
    name = "scalefx__shaders__scalefx-pass4-hybrid.cg__main_vertex"
    r = compare_pair(cg / "gp4vp" / f"{name}__noopt.vp", cg / "glslv" / f"{name}.vert",
                     "vertex", lanes=64, seed=SEED)
    assert (r.status, r.differing) == ("match", 0), r.examples


def test_oracle_cause_classification():
    from xlate.verify.oracle import PairResult, cause
    def pr(**kw):
        return PairResult("a", "g", "fragment", status="differ", **kw)
    assert cause(pr(kill=3, large=5)) == "kill"
    assert cause(pr(nonfinite=4)) == "nonfinite"
    assert cause(pr(nonfinite=4, small=9)) == "nonfinite"
    assert cause(pr(small=9)) == "precision"
    assert cause(pr(small=9, large=1)) == "decision"
    assert cause(pr(nonfinite=1, large=1, textures=True)) == "decision (textures)"


def test_every_project_corpus_program_verifies():
    """The programs we wrote (corpus/): each passes `xlate verify` on GL -- equal, or every
    difference explained (each explanation names its spec passage or pinned defect) -- or is
    reported unsupported by the harness for a stated reason."""
    import json
    import subprocess
    import sys
    gl_context("core")
    files = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "corpus").rglob("*")
                   if p.suffix in (".vp", ".fp", ".gp", ".tgsi"))
    assert len(files) >= 30
    report = Path(ROOT / ".cache" / "verify-project-corpus.json")
    report.parent.mkdir(exist_ok=True)
    r = subprocess.run([sys.executable, "-m", "xlate.cli", "verify", *files, "--lanes", "256",
                        "--json", str(report)], cwd=ROOT, capture_output=True, text=True)
    docs = json.loads(report.read_text())
    docs = docs if isinstance(docs, list) else docs.get("programs", docs)
    status = {d["file"]: d["status"] for d in docs}
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    assert set(status.values()) <= {"pass", "unsupported"}, status
    assert [f for f, s in status.items() if s == "unsupported"] == ["corpus/nv4/fp4_gbuffer_mrt.fp"]
