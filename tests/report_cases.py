"""Inputs of the report tests (tests/test_reports.py, tests/test_reports_browser.py): a batch
tree with programs of several dialects, a warning, an error and a file that is not a program;
and a verify run whose translations are made wrong on purpose (xlate/verify/mutants.py), so that
its report shows a mismatch of a fragment and of a vertex program beside a program that passes.
Everything here is the project's own (corpus/, generated programs), never ../shared.
"""
from __future__ import annotations

import shutil
from pathlib import Path

from xlate.cli import main

ROOT = Path(__file__).resolve().parents[1]

BROKEN_FP = "!!ARBfp1.0\nTEMP a;\nMOV result.color, b;\nADD a, a;\nEND\n"
# text after END: translated, with warning E1005; the comment tries to end the page's script
WARNED_VP = """!!ARBvp1.0
# </script><script>document.title = "injected"</script> & <b>not bold</b>
MOV result.position, vertex.position;
MOV result.color, vertex.color;
END
trailing words
"""
BATCH_COUNTS = {"programs": 6, "ok": 4, "warning": 1, "error": 1, "skipped": 1}


def batch_tree(root: Path) -> Path:
    """``root/src``: 6 programs (NVfp4.0 x2, NVvp4.0, ARBfp1.0 x2 one broken, ARBvp1.0 with a
    warning) and a README that is not one."""
    from xlate.verify.generate import generate
    src = root / "src"
    (src / "nv4").mkdir(parents=True)
    (src / "arb").mkdir()
    shutil.copy(ROOT / "corpus" / "examples" / "bright_pass.fp", src)
    for name in ("fp4_gbuffer_mrt.fp", "vp4_loop_table.vp"):
        shutil.copy(ROOT / "corpus" / "nv4" / name, src / "nv4")
    (src / "arb" / "random.fp").write_text(generate("arbfp", 3))
    (src / "arb" / "broken.fp").write_text(BROKEN_FP)
    (src / "arb" / "warned.vp").write_text(WARNED_VP)
    (src / "README.txt").write_text("not a shader\n")
    return src


def run_batch_report(root: Path, page: Path, *extra: str) -> int:
    src = batch_tree(root) if not (root / "src").exists() else root / "src"
    return main(["batch", str(src), "-o", str(root / "out"), "-j", "1", "-q", "--report",
                 str(page), *extra])


# ---- verify: wrong translations ---------------------------------------------------------------

def mutations():
    """Two wrong translations: kinds.fp's MUL becomes a division ('arith'), kinds.vp's
    condition test is inverted ('cc') -- the sites of tests/test_verify_mutants.py."""
    from test_verify_mutants import _site
    return [_site("arith"), _site("cc")]


def mutated_make_runner(real_make_runner):
    """A ``core.make_runner`` whose runners compile every shader with :func:`mutations` (a
    mutation leaves a shader without its statement alone)."""
    from xlate.verify import mutants as M

    def make(backend="gl", **kw):
        runner = real_make_runner(backend, **kw)
        for m in mutations():
            runner = M.MutatingRunner(runner, m)
        return runner
    return make


def verify_files(root: Path) -> list[str]:
    """kinds.fp and kinds.vp (made to mismatch) and bright_pass.fp (passes)."""
    from test_verify_mutants import ARBFP, NVVP4
    (root / "kinds.fp").write_text(ARBFP)
    (root / "kinds.vp").write_text(NVVP4)
    shutil.copy(ROOT / "corpus" / "examples" / "bright_pass.fp", root)
    return ["kinds.fp", "kinds.vp", "bright_pass.fp"]


def run_verify_report(root: Path, page: str, monkeypatch, lanes: int = 256) -> int:
    """``xlate verify --report page`` in ``root`` with the wrong translations; the exit code."""
    from conftest import gl_runner
    from xlate.verify import core
    gl_runner("gl")                 # skips (fails under XLATE_REQUIRE_GL) without OpenGL
    files = verify_files(root)
    monkeypatch.chdir(root)
    monkeypatch.setattr(core, "make_runner", mutated_make_runner(core.make_runner))
    return main(["verify", *files, "--lanes", str(lanes), "--report", page, "--in-process"])
