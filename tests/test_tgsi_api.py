"""TGSI through the library and the command line: text and both binary token layouts give the
same IR and the same GLSL; a byte stream that is neither gets E1009, never a traceback."""
from __future__ import annotations

import dataclasses
import subprocess
import sys

import numpy as np

from conftest import SHARED_CORPUS, shared_corpus_or_skip

from xlate import api, execute
from xlate.diagnostics import DiagnosticSink, XlateError
from xlate.frontends.tgsi import binary
from xlate.frontends.tgsi.text import parse_text
from xlate.ir.printer import print_program

FRAG = """FRAG
DCL IN[0], GENERIC[0], PERSPECTIVE
DCL OUT[0], COLOR
DCL TEMP[0]
IMM[0] FLT32 {    0.5000,     1.0000,     0.0000,     0.0000}
  0: MUL TEMP[0], IN[0], IMM[0].xxxy
  1: IF TEMP[0].xxxx :0
  2:   ADD TEMP[0], TEMP[0], IMM[0].yyyy
  3: ENDIF
  4: MOV OUT[0], TEMP[0]
  5: END
"""


def _shader(text: str):
    sink = DiagnosticSink("t.tgsi")
    sh = parse_text(text, sink)
    assert sh is not None, sink.items
    return sh


def test_modern_binary_gives_the_same_ir_and_glsl_as_text():
    data = binary.encode_modern(_shader(FRAG))
    from_text = api.translate(FRAG)
    from_bin = api.translate(data)
    assert print_program(from_bin.program) == print_program(from_text.program)
    assert from_bin.glsl == from_text.glsl


def test_seed_binary_without_semantics_uses_the_documented_convention():
    # seed streams carry no semantics: FS IN[n] = GENERIC[n], OUT[n] = COLOR[n] (lower.py)
    sh = _shader(FRAG)
    sh.declarations = [dataclasses.replace(d, semantic=None, semantic_index=0, interpolate=None)
                       for d in sh.declarations]
    data = binary.encode_seed(sh)
    assert binary.detect_layout(data) == "seed"
    prog = api.parse(data)
    r = execute(prog, {"fragment.generic[0]": np.array([[2, 4, 6, 8], [0, 4, 6, 8]], np.float32)})
    assert r.words("result.color[0]").view(np.float32).tolist() == [[2, 3, 4, 9], [0, 2, 3, 8]]


def test_cli_converts_a_binary_file(tmp_path):
    path = tmp_path / "shader.tgsib"
    path.write_bytes(binary.encode_modern(_shader(FRAG)))
    out = subprocess.run([sys.executable, "-m", "xlate.cli", "convert", str(path)],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout == api.translate(FRAG, filename=str(path)).glsl


def test_bytes_that_are_no_stream_get_e1009(tmp_path):
    path = tmp_path / "junk.bin"
    path.write_bytes(b"\x00\x01\x02\x03garbage")
    out = subprocess.run([sys.executable, "-m", "xlate.cli", "convert", str(path)],
                         capture_output=True, text=True)
    assert out.returncode == 1
    assert out.stderr == (f"{path}:1:1: error[E1009]: word 0: length 11 bytes is not a multiple "
                          "of 4: not a TGSI token stream\n")


def test_truncated_stream_is_a_diagnostic():
    data = binary.encode_modern(_shader(FRAG))
    try:
        api.parse(data[:40], filename="cut.bin")
    except XlateError as e:
        assert [d.code for d in e.diagnostics] == ["E1009"]
        assert e.diagnostics[0].message.startswith("word 0: HEADER")
    else:
        raise AssertionError("a truncated stream parsed")


def test_print_then_parse_gives_the_same_ir_for_the_corpus():
    # the printer's round trip, checked on the lowered IR (the model round trip is in
    # test_tgsi_printer.py): parse -> print -> parse -> lower gives the same IR, for every
    # corpus program that translates
    import pytest
    from xlate.frontends.tgsi.printer import print_shader
    corpus = SHARED_CORPUS / "collected" / "tgsi"
    files = sorted(corpus.rglob("*.tgsi")) if corpus.is_dir() else []
    if not files:
        shared_corpus_or_skip("collected/tgsi")
        assert files, f"no TGSI programs under {corpus}"
    compared = 0
    for f in files:
        text = f.read_bytes().decode("utf-8", "replace")
        try:
            first = api.parse(text)
        except XlateError:
            continue
        again = api.parse(print_shader(_shader(text)))
        assert print_program(again) == print_program(first), f
        compared += 1
    assert compared == 441          # 427 + the 13 modern COMP programs + FBFETCH's (issue 20)


def test_cli_disassembles_a_token_stream(tmp_path):
    path = tmp_path / "shader.tgsib"
    path.write_bytes(binary.encode_modern(_shader(FRAG)))
    out = subprocess.run([sys.executable, "-m", "xlate.cli", "convert", "--target", "tgsi", str(path)],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout == FRAG


def test_tgsi_target_needs_a_tgsi_program(tmp_path):
    path = tmp_path / "a.fp"
    path.write_text("!!NVfp4.0\nMOV result.color, fragment.color;\nEND\n")
    out = subprocess.run([sys.executable, "-m", "xlate.cli", "convert", "--target", "tgsi", str(path)],
                         capture_output=True, text=True)
    assert out.returncode == 1
    assert out.stderr.splitlines()[0] == (f"{path}:1:1: error[E1001]: TGSI output needs a TGSI "
                                          "program (text or token stream)")
