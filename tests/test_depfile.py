"""``--depfile FILE`` of ``xlate convert`` and ``xlate batch``: one make rule, names escaped as
GCC's -MD escapes them, written atomically; exact file contents."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from xlate.cli import main
from xlate.depfile import make_escape, make_rule

ROOT = Path(__file__).resolve().parents[1]
BRIGHT = ROOT / "corpus" / "examples" / "bright_pass.fp"
BROKEN = "!!NVfp4.0\nADD.S a, b, 1;\nEND\n"


def test_make_escape():
    assert make_escape("plain/file.fp") == "plain/file.fp"
    assert make_escape("my shaders/a b.fp") == "my\\ shaders/a\\ b.fp"
    assert make_escape("tab\there") == "tab\\\there"
    assert make_escape("cost$1#2") == "cost$$1\\#2"
    # backslashes right before a blank are doubled, then the blank escaped (GCC mkdeps)
    assert make_escape("a\\ b") == "a\\\\\\ b"
    assert make_escape("a\\b") == "a\\b"


def test_make_rule():
    assert make_rule(["o 1", "o2"], ["i1", "i 2"]) == "o\\ 1 o2: i1 i\\ 2\n"
    assert make_rule(["o"], []) == "o:\n"
    with pytest.raises(ValueError) as info:
        make_rule(["o"], ["line\nbreak.fp"])
    assert str(info.value) == ("the file name 'line\\nbreak.fp' has a line break, which a make "
                               "rule cannot hold")


def test_convert_writes_the_rule(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "my shaders").mkdir()
    shutil.copy(BRIGHT, tmp_path / "my shaders" / "bright $1.fp")
    (tmp_path / "out").mkdir()
    (tmp_path / "deps").mkdir()
    assert main(["convert", "my shaders/bright $1.fp", "-o", "out/bright #1.frag",
                 "--depfile", "deps/bright.d"]) == 0
    assert (tmp_path / "deps" / "bright.d").read_text() == \
        "out/bright\\ \\#1.frag: my\\ shaders/bright\\ $$1.fp\n"
    assert sorted(os.listdir(tmp_path / "deps")) == ["bright.d"]      # no temporary left


def test_convert_refuses_a_rule_without_files(tmp_path, capsys):
    prog = tmp_path / "b.fp"
    shutil.copy(BRIGHT, prog)
    message = ("xlate: error: --depfile needs an input file and an output file (-o FILE): a make "
               "rule names both\n")
    assert main(["convert", str(prog), "--depfile", str(tmp_path / "d")]) == 2
    assert capsys.readouterr().err == message
    assert main(["convert", "-", "-o", str(tmp_path / "o"), "--depfile", str(tmp_path / "d")]) == 2
    assert capsys.readouterr().err == message
    assert not (tmp_path / "d").exists() and not (tmp_path / "o").exists()


def test_convert_writes_no_rule_when_the_program_has_errors(tmp_path, capsys):
    prog = tmp_path / "bad.fp"
    prog.write_text(BROKEN)
    assert main(["convert", str(prog), "-o", str(tmp_path / "o"), "--depfile", str(tmp_path / "d")]) == 1
    assert not (tmp_path / "d").exists()


def test_convert_unwritable_depfile(tmp_path, capsys):
    prog = tmp_path / "b.fp"
    shutil.copy(BRIGHT, prog)
    (tmp_path / "file").write_text("")
    assert main(["convert", str(prog), "-o", str(tmp_path / "o"),
                 "--depfile", str(tmp_path / "file" / "d")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"xlate: error[E8002]: cannot write {tmp_path / 'file' / 'd'}: ")


def test_batch_writes_every_output_and_every_program(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "src" / "fx").mkdir(parents=True)
    shutil.copy(BRIGHT, tmp_path / "src" / "fx" / "bright pass.fp")
    (tmp_path / "src" / "bad.fp").write_text(BROKEN)
    (tmp_path / "src" / "notes.txt").write_text("not a program\n")
    assert main(["batch", "src", "-o", "build", "-j", "1", "-q", "--depfile", "build.d"]) == 1
    assert (tmp_path / "build.d").read_text() == (
        "build/fx/bright\\ pass.frag build/fx/bright\\ pass.frag.spv "
        "build/fx/bright\\ pass.frag.reflect.json: src/bad.fp src/fx/bright\\ pass.fp\n")
    # a second run serves the outputs from the cache: the same rule
    os.unlink("build.d")
    assert main(["batch", "src", "-o", "build", "-j", "1", "-q", "--targets", "glsl,spirv,reflect",
                 "--depfile", "build.d"]) == 1
    assert (tmp_path / "build.d").read_text().startswith("build/fx/bright\\ pass.frag build/")
    # only glsl: one output per program
    assert main(["batch", "src", "-o", "b2", "-j", "1", "-q", "--targets", "glsl",
                 "--profile", "glsl330", "--depfile", "b2.d"]) == 1
    assert (tmp_path / "b2.d").read_text() == \
        "b2/fx/bright\\ pass.glsl330.frag: src/bad.fp src/fx/bright\\ pass.fp\n"


def test_batch_without_outputs_leaves_the_depfile_alone(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "bad.fp").write_text(BROKEN)
    (tmp_path / "old.d").write_text("x: y\n")
    assert main(["batch", "src", "-o", "build", "-j", "1", "-q", "--depfile", "old.d"]) == 1
    assert (tmp_path / "old.d").read_text() == "x: y\n"
