"""Verification in a child process (xlate/verify/isolated.py): an implementation that aborts
gives its program an ERROR report, and the next program is verified by a new child."""
from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from conftest import gl_runner
from xlate.cli import main
from xlate.verify.isolated import ChildDied, VerifierProcess, crash_reason

DATA = Path(__file__).parent / "data"
#: five TGSI instructions on which Mesa 22.3's llvmpipe aborts compiling the translation
#: (``LLVM ERROR: Cannot select``: READ_FIRST and a dead indexed TEMP read; reduced from
#: generated TGSI fragment seed 89, inputs seed 31)
ABORTS = DATA / "llvmpipe_cannot_select.tgsi"
GOOD = Path(__file__).parents[1] / "corpus" / "examples" / "bright_pass.fp"


class _Abort:
    """Unpickled in the child, this object aborts it: a crash without a driver defect."""

    def __reduce__(self):
        return (os.abort, ())


def test_crash_reason_names_the_signal_and_the_line_that_says_why():
    out = "Mesa warning: x\nLLVM ERROR: Cannot select: 0x1: v4i32 = scalar_to_vector\n" \
          "  0x2: f32,ch = load\nIn function: fs_variant_partial\n"
    assert crash_reason(-signal.SIGABRT, out) == \
        "the verifying process died (SIGABRT): LLVM ERROR: Cannot select: 0x1: v4i32 = " \
        "scalar_to_vector"
    assert crash_reason(-signal.SIGSEGV, "") == "the verifying process died (SIGSEGV)"
    assert crash_reason(1, "last words\n") == "the verifying process died (exit status 1): " \
        "last words"


def test_a_child_that_aborts_is_a_child_died_naming_sigabrt():
    gl_runner("gl")                 # the child makes a GL runner first
    child = VerifierProcess("gl")
    try:
        with pytest.raises(ChildDied, match=r"^the verifying process died \(SIGABRT\)"):
            child.verify("x.vp", b"", {"lanes": _Abort()})
    finally:
        child.kill()


def test_verify_reports_an_implementation_abort_and_goes_on(tmp_path, capsys):
    """``xlate verify`` of a program llvmpipe aborts on, then a good one: ERROR with the
    signal and LLVM's message for the first, PASS for the second (a new child), exit 1."""
    gl_runner("gl")
    rc = main(["verify", str(ABORTS), str(GOOD), "--lanes", "16", "--json",
               str(tmp_path / "r.json")])
    out = capsys.readouterr().out
    if rc == 0:
        pytest.skip("this Mesa's llvmpipe compiles the program (its LLVM defect is fixed)")
    assert rc == 1
    lines = out.splitlines()
    assert lines[0].startswith(f"ERROR {ABORTS}: crash: the verifying process died (SIGABRT): "
                               "LLVM ERROR: Cannot select"), out
    assert lines[1].startswith(f"PASS {GOOD} ")
    assert lines[2] == "summary: 1 error, 1 pass"


def test_in_process_verifies_in_this_process(tmp_path, capsys, monkeypatch):
    """``--in-process``: no child (a child would not see this process's monkeypatch)."""
    gl_runner("gl")
    import xlate.verify.isolated as isolated
    monkeypatch.setattr(isolated, "VerifierProcess", None)    # any use of a child fails
    assert main(["verify", str(GOOD), "--lanes", "16", "--in-process"]) == 0
    assert capsys.readouterr().out.startswith(f"PASS {GOOD} ")


def test_run_all_reports_an_abort_and_an_unreadable_file_and_goes_on(tmp_path):
    """tools/diffcheck.py's local workers (batch.run_all): the abort is a ``crash`` naming
    SIGABRT and LLVM's message, a file that cannot be read is a ``crash`` saying so, and the
    good program after them passes."""
    gl_runner("gl")
    from xlate.verify.batch import run_all
    missing = str(tmp_path / "missing.tgsi")
    docs = run_all([str(ABORTS), missing, str(GOOD)], lanes=16, timeout=300)
    if docs[0]["status"] == "pass":
        pytest.skip("this Mesa's llvmpipe compiles the program (its LLVM defect is fixed)")
    assert [d["status"] for d in docs] == ["crash", "crash", "pass"]
    assert docs[0]["reason"].startswith("the verifying process died (SIGABRT): LLVM ERROR: "
                                        "Cannot select")
    assert docs[1] == {"file": missing, "status": "crash",
                       "reason": "cannot read it: No such file or directory"}
