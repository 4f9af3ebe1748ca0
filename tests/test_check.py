"""``xlate check`` and ``xlate sync`` (the pre-commit hooks' commands) and their start-up
footprint (issue 7, item 2)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "corpus" / "examples" / "bright_pass.fp"

GOOD = """!!NVfp4.0
MOV result.color, fragment.color;
END
"""
BROKEN = """!!NVfp4.0
TEMP a;
MOV a, fragment.texcoord[0];
ADD.S a, b, 1;
END
"""


def xlate(args, cwd, **env):
    e = dict(os.environ, PYTHONPATH=str(ROOT), **env)
    return subprocess.run([sys.executable, "-m", "xlate.console", *args], cwd=cwd, capture_output=True,
                          text=True, env=e)


@pytest.fixture
def work(tmp_path):
    (tmp_path / "good.fp").write_text(GOOD)
    (tmp_path / "bad.fp").write_text(BROKEN)
    (tmp_path / "bright.fp").write_text(EXAMPLE.read_text())
    return tmp_path


def test_check_passes_quietly_and_fails_with_diagnostics(work):
    r = xlate(["check", "good.fp", "bright.fp"], work)
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")
    r = xlate(["check", "good.fp", "bad.fp", "bright.fp"], work)
    assert r.returncode == 1
    assert r.stderr == ("bad.fp:4:10: error[E2003]: undeclared name 'b'\n"
                        "    ADD.S a, b, 1;\n"
                        "             ^\n")
    r = xlate(["check", "good.fp", "missing.fp"], work)
    assert r.returncode == 2 and "error[E8001]: cannot read missing.fp" in r.stderr
    (work / "notes.txt").write_text("hello\n")
    r = xlate(["check", "notes.txt"], work)
    assert r.returncode == 1 and "error[E1001]" in r.stderr


def test_check_without_validation_and_with_the_vulkan_profile(work):
    assert xlate(["check", "--no-validate", "bright.fp"], work).returncode == 0
    assert xlate(["check", "--profile", "vulkan", "bright.fp"], work).returncode == 0


def test_check_reports_a_missing_toolchain(work):
    # glslang cannot be found: exit code 3 with the E7004 diagnostic
    code = ("import importlib.metadata as md, sys\n"
            "real = md.distribution\n"
            "def fake(name):\n"
            "    if name.startswith('cmeel-'): raise md.PackageNotFoundError(name)\n"
            "    return real(name)\n"
            "md.distribution = fake\n"
            "from xlate.backends import spirv\n"   # and the sys.path fast path finds no library
            "spirv._MARKER = dict.fromkeys(spirv._MARKER, 'no-such-library.so')\n"
            "from xlate.cli import main\n"
            "sys.exit(main(['check', 'good.fp']))\n")
    r = subprocess.run([sys.executable, "-c", code], cwd=work, capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert r.returncode == 3, r.stderr
    assert "error[E7004]" in r.stderr


def test_console_script_quick_exit_loses_no_output(work):
    """check and sync end with os._exit after flushing (xlate.cli.console_main): every
    diagnostic of every file still reaches the pipe, and the exit code is the command's."""
    names = []
    for i in range(40):
        (work / f"bad{i}.fp").write_text(BROKEN)
        names.append(f"bad{i}.fp")
    r = xlate(["check", "good.fp", *names], work)
    assert r.returncode == 1
    assert r.stderr.count("error[E2003]") == 40
    assert r.stderr.rstrip().endswith("^")                  # the last caret line arrived whole
    assert (xlate(["check", "good.fp"], work).returncode, r.stdout) == (0, "")
    r = xlate(["sync", "good.fp"], work)
    assert (r.returncode, r.stderr) == (1, "xlate: created good.frag (from good.fp)\n")
    assert (work / "good.frag").read_text() == xlate(["convert", "good.fp"], work).stdout


def test_main_in_process_returns_instead_of_exiting(work, monkeypatch):
    from xlate.cli import main
    monkeypatch.chdir(work)
    assert main(["check", "good.fp"]) == 0
    assert main(["check", "bad.fp"]) == 1


def test_sync_creates_updates_and_then_passes(work):
    r = xlate(["sync", "bright.fp", "good.fp"], work)
    assert r.returncode == 1
    assert "created bright.frag (from bright.fp)" in r.stderr
    assert "created good.frag (from good.fp)" in r.stderr
    convert = xlate(["convert", "bright.fp"], work)
    assert (work / "bright.frag").read_text() == convert.stdout
    r = xlate(["sync", "bright.fp", "good.fp"], work)
    assert (r.returncode, r.stderr) == (0, "")
    (work / "good.frag").write_text("stale\n")
    r = xlate(["sync", "--check", "bright.fp", "good.fp"], work)
    assert r.returncode == 1 and "good.frag is out of date" in r.stderr
    assert (work / "good.frag").read_text() == "stale\n"          # --check writes nothing
    r = xlate(["sync", "bright.fp", "good.fp"], work)
    assert r.returncode == 1 and "updated good.frag (from good.fp)" in r.stderr
    assert xlate(["sync", "good.fp"], work).returncode == 0


def test_sync_targets_and_errors(work):
    r = xlate(["sync", "--targets", "glsl,reflect,spirv", "bright.fp"], work)
    assert r.returncode == 1
    assert sorted(p.name for p in work.glob("bright.*")) == [
        "bright.fp", "bright.frag", "bright.frag.reflect.json", "bright.frag.spv"]
    assert (work / "bright.frag.spv").read_bytes()[:4] == b"\x03\x02\x23\x07"
    assert xlate(["sync", "--targets", "glsl,reflect,spirv", "bright.fp"], work).returncode == 0
    r = xlate(["sync", "bad.fp"], work)
    assert r.returncode == 1 and "error[E2003]" in r.stderr and not (work / "bad.frag").exists()
    # a program named like its own output is never overwritten
    (work / "prog.frag").write_text(GOOD)
    r = xlate(["sync", "prog.frag"], work)
    assert r.returncode == 1 and "would overwrite the program" in r.stderr
    assert (work / "prog.frag").read_text() == GOOD


def imported_modules(args, cwd) -> set[str]:
    r = subprocess.run([sys.executable, "-X", "importtime", "-c",
                        "import sys; from xlate.cli import main; sys.exit(main())", *args],
                       cwd=cwd, capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert r.returncode == 0, r.stderr
    return {line.split("|")[-1].strip() for line in r.stderr.splitlines()
            if line.startswith("import time:")}


def test_check_start_up_imports_nothing_heavy(work):
    """The hook's import path (toolchain.md section 4): never numpy or moderngl; without
    validation not even ctypes or the glslang binding."""
    def heavy(mods):
        return {m for m in mods if m.split(".")[0] in ("numpy", "moderngl", "glcontext", "xlate")
                and (not m.startswith("xlate") or m.startswith(("xlate.exec", "xlate.verify")))}
    validating = imported_modules(["check", "bright.fp"], work)
    assert "xlate.frontends.nv.syntax" in validating and "ctypes" in validating
    assert heavy(validating) == set()
    translating = imported_modules(["check", "--no-validate", "bright.fp"], work)
    assert "xlate.backends.glsl" in translating
    assert heavy(translating) == set()
    assert {"ctypes", "xlate.backends.spirv", "concurrent.futures"} & translating == set()
    # every statement of bright.fp is of a shape fastparse.py takes: lark is never imported
    assert "lark" not in translating and "xlate.frontends.nv.larkparse" not in translating


def test_check_loads_lark_for_a_statement_the_fast_path_refuses(work):
    """A statement fastparse.py refuses (here an ALIAS declaration) is parsed by the lark
    grammar, imported then."""
    (work / "alias.fp").write_text(
        "!!NVfp4.0\nTEMP t;\nALIAS u = t;\nMOV u, fragment.texcoord[0];\n"
        "MOV result.color, u;\nEND\n")
    mods = imported_modules(["check", "--no-validate", "alias.fp"], work)
    assert "lark" in mods and "xlate.frontends.nv.larkparse" in mods


def test_check_starts_glslang_before_loading_the_translator(work):
    """glslang's built-in tables (~80 ms of C) are the longest part of `xlate check`; the
    warm-up thread must start before the parser, the IR and the diagnostics are imported so
    that the two overlap (ctypes releases the GIL).  `import xlate.cli` loads none of them."""
    r = subprocess.run([sys.executable, "-X", "importtime", "-c",
                        "import sys; from xlate.cli import main; sys.exit(main())",
                        "check", "bright.fp"], cwd=work, capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert r.returncode == 0, r.stderr
    order = [line.split("|")[-1].strip() for line in r.stderr.splitlines()
             if line.startswith("import time:")]
    first_of = {name: order.index(name) for name in
                ("xlate.backends.spirv", "xlate.diagnostics", "xlate.ir.model")}
    assert first_of["xlate.backends.spirv"] < min(first_of["xlate.diagnostics"],
                                                  first_of["xlate.ir.model"])


def test_import_xlate_is_lazy_but_complete():
    code = ("import sys, xlate\n"
            "assert 'xlate.api' not in sys.modules and 'xlate.diagnostics' not in sys.modules\n"
            "names = [n for n in xlate.__all__ if n != '__version__']\n"
            "print(sorted((n, getattr(xlate, n).__module__) for n in names))\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == str(sorted([
        ("Diagnostic", "xlate.diagnostics"), ("Span", "xlate.diagnostics"),
        ("XlateError", "xlate.diagnostics"), ("Translation", "xlate.api"),
        ("parse", "xlate.api"), ("translate", "xlate.api"), ("execute", "xlate.exec.api"),
        ("verify", "xlate.verify")]))


@pytest.mark.parametrize("argv, target", [
    (["a.fp"], "opengl"),
    (["--profile", "glsl450", "a.fp"], "opengl"),
    (["--profile=vulkan", "a.fp", "b.fp"], "vulkan"),
    (["--profile", "es310", "a.fp"], None),          # checked without SPIR-V: no glslang tables
    (["--no-validate", "a.fp"], None),
    (["--profile", "vulkan"], None),                   # no file: argparse will refuse it
])
def test_console_script_guesses_the_warm_up_before_argparse(argv, target, monkeypatch):
    from xlate import warmup
    from xlate.backends import spirv
    monkeypatch.setattr(spirv, "warm_up", lambda t: None)
    monkeypatch.setattr(warmup, "_early", None)
    warmup.start_early(argv)
    assert (warmup._early[0] if warmup._early else None) == target


def test_check_takes_over_the_early_warm_up_only_when_it_matches(work, monkeypatch):
    from xlate import warmup
    from xlate.backends import spirv
    from xlate.cli import main
    started = []
    real = spirv.warm_up
    monkeypatch.setattr(spirv, "warm_up", lambda t: (started.append(t), real(t)))
    monkeypatch.chdir(work)
    warmup.start_early(["good.fp"])
    assert main(["check", "good.fp"]) == 0 and started == ["opengl"] and warmup._early is None
    warmup.start_early(["good.fp"])                    # a wrong guess: check starts its own
    assert main(["check", "--profile", "vulkan", "good.fp"]) == 0
    assert started == ["opengl", "opengl", "vulkan"] and warmup._early is None


def test_console_process_tuning_for_the_warm_up(monkeypatch):
    """xlate.console tunes its own short-lived check process (xlate/warmup.py): a 0.5 ms GIL
    switch interval, glibc malloc's top pad and trim threshold; and nothing when the C library
    has no mallopt."""
    import ctypes
    from xlate import warmup
    calls = []

    class Libc:
        def __init__(self, name, has_mallopt=True):
            if has_mallopt:
                self.mallopt = lambda *a: calls.append(a) or 1

    monkeypatch.setattr(sys, "setswitchinterval", lambda s: calls.append(("switch", s)))
    monkeypatch.setattr(ctypes, "CDLL", Libc)
    warmup.tune_process()
    assert calls == [("switch", 0.0005), (-2, 16 << 20), (-1, 256 << 20)]
    calls.clear()
    monkeypatch.setattr(ctypes, "CDLL", lambda name: Libc(name, has_mallopt=False))
    warmup.tune_process()                                   # musl, macOS: only the interval
    assert calls == [("switch", 0.0005)]


def test_warm_up_never_raises_and_leaves_compiles_unchanged():
    from xlate.backends import spirv
    spirv.warm_up("no-such-target")                        # reported by the real compile
    src = "#version 450 core\nlayout(location = 0) out vec4 c;\nvoid main() { c = vec4(0.5); }\n"
    before = spirv.compile_glsl(src, "frag", target="opengl")
    spirv.warm_up("opengl")
    spirv.warm_up("vulkan")
    assert spirv.compile_glsl(src, "frag", target="opengl") == before
    assert spirv.validate_spirv(before, target="opengl") is None
