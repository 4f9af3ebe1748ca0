"""Where ../shared is (XLATE_SHARED, tools/shared_location.py), the markers conftest applies
(gl, corpus), and the CI run that proves the suite passes without ../shared."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, SHARED_LOCATION

TESTS = ROOT / "tests"


@pytest.mark.parametrize("value, expected", [
    (None, ROOT.resolve().parent / "shared"),
    ("/somewhere/else", Path("/somewhere/else")),
    ("none", Path(os.devnull) / "shared"),
    ("", Path(os.devnull) / "shared"),
])
def test_the_rule(monkeypatch, value, expected):
    if value is None:
        monkeypatch.delenv("XLATE_SHARED", raising=False)
    else:
        monkeypatch.setenv("XLATE_SHARED", value)
    assert SHARED_LOCATION.shared_dir(ROOT) == expected
    assert SHARED_LOCATION.hidden() == (value in ("none", ""))
    if SHARED_LOCATION.hidden():
        assert not (SHARED_LOCATION.shared_dir(ROOT) / "corpus").exists()


def test_no_test_or_tool_finds_shared_by_itself():
    """Every test and tool takes the location from the one rule, so that XLATE_SHARED=none
    hides ../shared from all of them (a path spelled out here would escape the CI run)."""
    spelled = re.compile(r"""(/\s*["']shared["'])|(["']\.\./shared)""")
    offenders = []
    for path in sorted(list(TESTS.glob("*.py")) + list((ROOT / "tools").glob("*.py"))):
        if path.name in ("shared_location.py", "test_shared_location.py"):
            continue
        for n, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("#")[0]
            if spelled.search(code):
                offenders.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert offenders == []


def test_ci_runs_the_suite_again_with_shared_hidden():
    ci = (ROOT / ".ci" / "run").read_text()
    assert re.search(r'^XLATE_SHARED=none XLATE_REQUIRE_CORPUS=0 python3 -m pytest -q -n auto '
                     r'-p no:cacheprovider \\\n  -m "corpus or not gl"$', ci, re.M)


CHILD = '''
from pathlib import Path
import pytest
from conftest import SHARED_CORPUS, corpus_mark, gl_runner, shared_corpus_or_skip

CORPUS = SHARED_CORPUS


def test_plain():
    assert 1 + 1 == 2


def test_needs_gl():
    gl_runner("gl")


def test_reads_the_corpus():
    shared_corpus_or_skip()


def _helper():
    return sorted(CORPUS.rglob("*.fp"))


def test_reads_the_corpus_through_a_helper():
    assert _helper() is not None


@corpus_mark()
def test_marked():
    pass
'''


def _child(tmp_path: Path, *args: str, **env) -> subprocess.CompletedProcess:
    (tmp_path / "test_child.py").write_text(CHILD)
    e = {k: v for k, v in os.environ.items() if not k.startswith(("XLATE_REQUIRE_", "XLATE_SHARED"))}
    e.update(env, PYTHONPATH=os.pathsep.join([str(TESTS), str(ROOT),
                                               os.environ.get("PYTHONPATH", "")]))
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "conftest", "-p",
                           "no:cacheprovider", "-v", "-rs", *args, "test_child.py"],
                          cwd=tmp_path, env=e, capture_output=True, text=True, timeout=300)


def test_markers_leave_the_plain_tests_for_the_quick_run(tmp_path):
    r = _child(tmp_path, "-m", "not gl and not corpus")
    assert re.findall(r"test_child\.py::(\w+) PASSED", r.stdout) == ["test_plain"], r.stdout
    assert "4 deselected" in r.stdout
    r = _child(tmp_path, "-m", "corpus")
    assert re.findall(r"test_child\.py::(\w+) ", r.stdout) == [
        "test_reads_the_corpus", "test_reads_the_corpus_through_a_helper", "test_marked"]


def test_hidden_shared_skips_with_the_reason_and_a_given_one_is_used(tmp_path):
    r = _child(tmp_path, "-k", "reads_the_corpus or marked", XLATE_SHARED="none",
               XLATE_REQUIRE_CORPUS="0")
    assert re.findall(r"test_child\.py::(\w+) (\w+)", r.stdout) == [
        ("test_reads_the_corpus", "SKIPPED"), ("test_reads_the_corpus_through_a_helper", "PASSED"),
        ("test_marked", "SKIPPED")], r.stdout
    assert "shared corpus not present: hidden by XLATE_SHARED='none'" in r.stdout
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "corpus").mkdir(parents=True)
    r = _child(tmp_path, "-k", "reads_the_corpus or marked", XLATE_SHARED=str(elsewhere))
    assert re.findall(r"test_child\.py::(\w+) (\w+)", r.stdout) == [
        ("test_reads_the_corpus", "PASSED"), ("test_reads_the_corpus_through_a_helper", "PASSED"),
        ("test_marked", "PASSED")], r.stdout
