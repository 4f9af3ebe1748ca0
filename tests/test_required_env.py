"""The XLATE_REQUIRE_* switches of conftest.py: without them a missing OpenGL/Vulkan
implementation or ../shared/corpus skips the tests that need it (with the reason); with them the
same tests fail, so a CI run whose Mesa install or corpus checkout broke cannot go green by
skipping.  Checked on a child pytest run that simulates the missing things."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent

CHILD = '''
import pytest
import conftest
from conftest import corpus_mark, gl_context, gl_runner, shared_corpus_or_skip
from xlate.verify import core, glapi
from xlate.verify.vulkan_device import VulkanUnavailable


def _unavailable(exc):
    def make_runner(backend="gl", *, precise=False, profile=None):
        raise exc
    return make_runner


def test_gl_missing(monkeypatch):
    monkeypatch.setattr(conftest, "_runners", {})
    monkeypatch.setattr(core, "make_runner", _unavailable(glapi.GLUnavailable("no libEGL")))
    gl_runner("gl")


def test_gl_context_missing(monkeypatch):
    def context(profile="core"):
        raise glapi.GLUnavailable("no EGL display")
    monkeypatch.setattr(glapi, "context", context)
    gl_context("core")


def test_vulkan_missing(monkeypatch):
    monkeypatch.setattr(conftest, "_runners", {})
    monkeypatch.setattr(core, "make_runner", _unavailable(VulkanUnavailable("no ICD")))
    gl_runner("vulkan")


def test_broken_driver_is_a_failure_even_when_not_required(monkeypatch):
    monkeypatch.setattr(conftest, "_runners", {})
    monkeypatch.setattr(core, "make_runner", _unavailable(RuntimeError("driver crashed")))
    gl_runner("gl")


def test_corpus_missing(monkeypatch):
    monkeypatch.setattr(conftest, "SHARED_CORPUS", conftest.ROOT / "no-such-corpus")
    shared_corpus_or_skip()


@corpus_mark("no/such/file.vp")
def test_corpus_mark_missing():
    pass


@corpus_mark()
def test_corpus_mark_present_or_not():
    pass
'''


def _outcomes(tmp_path: Path, **env) -> dict[str, str]:
    (tmp_path / "test_child.py").write_text(CHILD)
    # the child decides by the switches given here, and finds the shared folder where the
    # checkout's layout puts it (a hidden one would skip with another reason)
    e = {k: v for k, v in os.environ.items()
         if not k.startswith("XLATE_REQUIRE_") and k != "XLATE_SHARED"}
    e.update(env, PYTHONPATH=os.pathsep.join([str(TESTS), str(TESTS.parent),
                                               os.environ.get("PYTHONPATH", "")]))
    r = subprocess.run([sys.executable, "-m", "pytest", "-p", "conftest", "-p", "no:cacheprovider",
                        "-v", "-rs", "test_child.py"], cwd=tmp_path, env=e, capture_output=True,
                       text=True, timeout=300)
    got = dict(re.findall(r"test_child\.py::(\w+) (PASSED|FAILED|SKIPPED|ERROR)", r.stdout))
    assert len(got) == 7, r.stdout + r.stderr
    return got | {"_stdout": r.stdout}


def test_missing_things_skip_with_the_reason_by_default(tmp_path):
    got = _outcomes(tmp_path)
    for name in ("test_gl_missing", "test_gl_context_missing", "test_vulkan_missing",
                 "test_corpus_missing", "test_corpus_mark_missing"):
        assert got[name] == "SKIPPED", (name, got["_stdout"])
    assert got["test_broken_driver_is_a_failure_even_when_not_required"] == "FAILED"
    out = got["_stdout"]
    assert "no OpenGL implementation: backend gl: no libEGL" in out
    assert "no Vulkan implementation: backend vulkan: no ICD" in out
    assert "shared corpus not present" in out and "no-such-corpus" in out


@pytest.mark.parametrize("var, failing", [
    ("XLATE_REQUIRE_GL", {"test_gl_missing", "test_gl_context_missing"}),
    ("XLATE_REQUIRE_VULKAN", {"test_vulkan_missing"}),
    ("XLATE_REQUIRE_CORPUS", {"test_corpus_missing", "test_corpus_mark_missing"}),
])
def test_each_switch_turns_its_skips_into_failures(tmp_path, var, failing):
    got = _outcomes(tmp_path, **{var: "1"})
    missing = {"test_gl_missing", "test_gl_context_missing", "test_vulkan_missing",
               "test_corpus_missing", "test_corpus_mark_missing"}
    for name in failing:
        assert got[name] in ("FAILED", "ERROR"), (name, got["_stdout"])
    for name in missing - failing:
        assert got[name] == "SKIPPED", (name, got["_stdout"])
    assert f"[{var} is set: this environment must provide it]" in got["_stdout"]
    assert got["test_broken_driver_is_a_failure_even_when_not_required"] == "FAILED"


def test_switch_values():
    import conftest
    for value, on in (("1", True), ("true", True), ("yes", True), ("0", False), ("", False),
                      ("false", False), ("no", False)):
        os.environ["XLATE_REQUIRE_TEST_SWITCH"] = value
        try:
            assert conftest.required("XLATE_REQUIRE_TEST_SWITCH") is on, value
        finally:
            del os.environ["XLATE_REQUIRE_TEST_SWITCH"]


@pytest.mark.parametrize("ci, derandomize", [("true", True), ("", False)])
def test_hypothesis_profile_follows_ci(ci, derandomize):
    """CI=true loads the derandomized "ci" profile (the same examples every run, no deadline);
    otherwise "dev" (random examples, no deadline)."""
    e = {k: v for k, v in os.environ.items() if k not in ("CI", "HYPOTHESIS_PROFILE")}
    if ci:
        e["CI"] = ci
    e.update(PYTHONPATH=os.pathsep.join([str(TESTS), str(TESTS.parent)]))
    code = ("import conftest\nfrom hypothesis import settings\n"
            "s = settings(max_examples=7)\n"
            "print(settings.default.derandomize, s.derandomize, s.deadline, s.max_examples)")
    out = subprocess.run([sys.executable, "-c", code], env=e, capture_output=True, text=True,
                         timeout=120, check=True).stdout.split()
    assert out == [str(derandomize), str(derandomize), "None", "7"]
