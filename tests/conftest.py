"""Shared test configuration: where the shared corpus is, environment for GL backends, the
hypothesis profiles, and the one place each test that needs something outside the repository
(an OpenGL or Vulkan implementation, ``../shared/corpus``) goes when that thing is missing.

A plain clone skips those tests with the reason.  CI sets the switches below, which turn such a
skip into a failure, so that a broken install cannot leave a green run that tested nothing:

* ``XLATE_REQUIRE_GL=1``      -- an OpenGL implementation (Mesa llvmpipe via EGL) must exist;
* ``XLATE_REQUIRE_VULKAN=1``  -- a Vulkan implementation (lavapipe + the loader) must exist;
* ``XLATE_REQUIRE_CORPUS=1``  -- ``../shared/corpus`` must be present.

(``XLATE_REQUIRE_BROWSER=1``, for the HTML report tests' Chromium, lives in tests/browser.py.)
``XLATE_SHARED`` moves or hides ``../shared`` for every test and tool
(tools/shared_location.py): ``XLATE_SHARED=none`` runs the suite as a plain clone does.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import NoReturn

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _shared_location():
    # tools/shared_location.py: the rule tests and tools share (XLATE_SHARED)
    import importlib.util
    spec = importlib.util.spec_from_file_location("shared_location",
                                                  ROOT / "tools" / "shared_location.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SHARED_LOCATION = _shared_location()
SHARED = SHARED_LOCATION.shared_dir(ROOT)       # ../shared, or where XLATE_SHARED says
SHARED_CORPUS = SHARED / "corpus"

# Mesa's shader cache and EGL platform for tests that run shaders (set before moderngl loads)
os.environ.setdefault("MESA_SHADER_CACHE_DIR", str(ROOT / ".cache" / "mesa"))
os.environ.setdefault("EGL_PLATFORM", "surfaceless")
os.environ.setdefault("XLATE_CACHE_DIR", str(ROOT / ".cache" / "xlate"))

REQUIRE_GL, REQUIRE_VULKAN, REQUIRE_CORPUS = \
    "XLATE_REQUIRE_GL", "XLATE_REQUIRE_VULKAN", "XLATE_REQUIRE_CORPUS"


# ---- hypothesis profiles ---------------------------------------------------------------------
# "ci" (loaded when CI is set, as CI services and .ci/run set it): the same examples on every
# run (derandomize), a fixed count, no per-example deadline (a loaded 2-core runner is slow,
# not wrong).  "dev" (the default): random examples, no deadline either.  Tests that pass their
# own max_examples keep it; HYPOTHESIS_PROFILE picks another profile by name.
try:
    from hypothesis import settings as _hsettings
except ImportError:                             # pragma: no cover - hypothesis is a test dep
    _hsettings = None
if _hsettings is not None:
    _hsettings.register_profile("ci", derandomize=True, max_examples=50, deadline=None,
                                print_blob=True)
    _hsettings.register_profile("dev", derandomize=False, deadline=None)
    _hsettings.load_profile(os.environ.get("HYPOTHESIS_PROFILE")
                            or ("ci" if os.environ.get("CI") else "dev"))


# ---- required environments -------------------------------------------------------------------
def required(var: str) -> bool:
    """Whether the environment switch ``var`` (one of the XLATE_REQUIRE_* above) is on."""
    return os.environ.get(var, "").strip().lower() not in ("", "0", "false", "no")


def missing(var: str, reason: str) -> NoReturn:
    """Skip with ``reason`` -- or fail, when the switch ``var`` says this environment must have
    what is missing."""
    if required(var):
        pytest.fail(f"{reason} [{var} is set: this environment must provide it]", pytrace=False)
    pytest.skip(reason)


def no_gl(reason) -> NoReturn:
    missing(REQUIRE_GL, f"no OpenGL implementation: {reason}")


def no_vulkan(reason) -> NoReturn:
    missing(REQUIRE_VULKAN, f"no Vulkan implementation: {reason}")


def no_corpus(reason) -> NoReturn:
    missing(REQUIRE_CORPUS, f"shared corpus not present: {reason}")


def shared_corpus_or_skip(sub: str = "") -> Path:
    """``../shared/corpus`` (or the file/folder ``sub`` in it); skips (fails under
    XLATE_REQUIRE_CORPUS) when absent."""
    path = SHARED_CORPUS / sub if sub else SHARED_CORPUS
    if not path.exists():
        if SHARED_LOCATION.hidden():
            no_corpus(f"hidden by {SHARED_LOCATION.VARIABLE}={os.environ[SHARED_LOCATION.VARIABLE]!r}")
        no_corpus(f"{path} (../shared is not part of a plain clone)")
    return path


def corpus_mark(sub: str = "") -> pytest.MarkDecorator:
    """Mark: the test needs ``../shared/corpus`` (or ``sub`` in it); see shared_corpus_or_skip."""
    return pytest.mark.needs_corpus(sub)


# ---- markers: gl, corpus (applied here), slow (on the tests) ---------------------------------
#: what a test calls when it needs an OpenGL/Vulkan implementation, or the shared corpus
GL_NAMES = frozenset({"gl_runner", "gl_context", "runner_or_skip", "no_gl", "no_vulkan",
                      "make_runner", "verify_source"})
CORPUS_NAMES = frozenset({"shared_corpus_or_skip", "no_corpus", "SHARED_CORPUS", "SHARED"})


def _needs(func, seen: set) -> set[str]:
    """{"gl", "corpus"}: what ``func`` needs, from the names its code (nested functions and the
    test modules' helpers it calls, transitively) refers to, and the module paths under
    ../shared it reads."""
    import types
    func = getattr(getattr(func, "hypothesis", None), "inner_test", func)   # @given's test
    code = getattr(func, "__code__", None)
    if code is None or code in seen:
        return set()
    seen.add(code)
    found: set[str] = set()
    glb = getattr(func, "__globals__", {})
    stack = [code]
    while stack:
        c = stack.pop()
        stack += [k for k in c.co_consts if isinstance(k, types.CodeType)]
        for name in c.co_names:
            if name in GL_NAMES:
                found.add("gl")
            elif name in CORPUS_NAMES:
                found.add("corpus")
            value = glb.get(name)
            if isinstance(value, Path) and _under_shared(value):
                found.add("corpus")
            elif isinstance(value, types.FunctionType) and value.__module__ != __name__ and \
                    value.__module__.split(".")[0].startswith(("test_", "verdict_", "nv4_")):
                found |= _needs(value, seen)
    return found


def _under_shared(path: Path) -> bool:
    try:
        path.relative_to(SHARED)
        return True
    except ValueError:
        return False


def pytest_collection_modifyitems(config, items):
    """Mark ``gl`` the tests that need an OpenGL/Vulkan implementation and ``corpus`` those
    that read the shared corpus -- from the helpers they (and their fixtures) call, their
    ``needs_corpus`` mark and their parameters -- so that ``-m "not gl and not corpus"`` is
    the part of the suite that needs neither (README, the quick run)."""
    for item in items:
        funcs = [getattr(item, "function", None)]
        info = getattr(item, "_fixtureinfo", None)
        for name in getattr(item, "fixturenames", ()):
            defs = info.name2fixturedefs.get(name) if info is not None else None
            if defs:
                funcs.append(defs[-1].func)
        needs: set[str] = set()
        for f in funcs:
            if f is not None:
                needs |= _needs(f, set())
        if item.get_closest_marker("needs_corpus"):
            needs.add("corpus")
        params = getattr(getattr(item, "callspec", None), "params", {})
        if any(isinstance(v, Path) and _under_shared(v) for v in params.values()):
            needs.add("corpus")
        for mark in sorted(needs):
            item.add_marker(getattr(pytest.mark, mark))


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    for mark in item.iter_markers("needs_corpus"):
        shared_corpus_or_skip(*mark.args)


_runners: dict = {}


def gl_runner(backend: str = "gl", *, precise: bool = False, profile: str | None = None):
    """The (cached) verify runner of ``backend`` ("gl", "gl-spirv" or "vulkan"); skips --
    fails under XLATE_REQUIRE_GL / XLATE_REQUIRE_VULKAN -- when the implementation is missing
    (``GLUnavailable``, for Vulkan its subclass).  Any other exception propagates: a broken
    driver or harness is a failure, not a missing implementation."""
    from xlate.verify import core
    from xlate.verify.glapi import GLUnavailable
    key = (backend, precise, profile)
    if key not in _runners:
        try:
            _runners[key] = core.make_runner(backend, precise=precise, profile=profile)
        except GLUnavailable as e:
            _runners[key] = e
    r = _runners[key]
    if isinstance(r, Exception):
        (no_vulkan if backend == "vulkan" else no_gl)(f"backend {backend}: {r}")
    return r


def gl_context(*profiles: str):
    """xlate.verify.glapi's context of each of ``profiles`` ("core", "compat"; default core);
    returns the last.  Skips/fails like gl_runner."""
    from xlate.verify.glapi import GLUnavailable, context
    gl = None
    for profile in profiles or ("core",):
        try:
            gl = context(profile)
        except GLUnavailable as e:
            no_gl(f"{profile} profile: {e}")
    return gl


def mesa_version(runner) -> tuple[int, ...] | None:
    """The Mesa version (22, 3, 6) behind a verify runner (from its GL_VERSION / Vulkan driver
    description), or None when the implementation is not Mesa -- for xfails of a defect
    observed with one version (test_verify_cases.mesa_defect)."""
    import re
    m = re.search(r"Mesa (\d+)\.(\d+)(?:\.(\d+))?", runner.describe())
    return tuple(int(g) for g in m.groups() if g is not None) if m else None
