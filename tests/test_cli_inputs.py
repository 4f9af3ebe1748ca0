"""Inputs that must not hang the tool, and what issue 21 found by following README and docs/
to the letter: bounded reads, non-regular files in tree walks, output names and folders,
``xlate run`` defaults, binary TGSI everywhere, small command-line fixes.

Commands that could hang run in a child process with a timeout generous enough for a loaded
machine: a hang is a failure (the timeout), slowness is not."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from xlate.cli import main

ROOT = Path(__file__).resolve().parents[1]
BRIGHT = ROOT / "corpus" / "examples" / "bright_pass.fp"
HANG_TIMEOUT = 240          # seconds: generous for a loaded 2-core machine

FP = "!!ARBfp1.0\nMOV result.color, fragment.color;\nEND\n"
POSITION_FP = "!!ARBfp1.0\nMOV result.color, fragment.position;\nEND\n"
TGSI_TEXT = """FRAG
DCL IN[0], GENERIC[0], PERSPECTIVE
DCL OUT[0], COLOR
IMM[0] FLT32 {    0.5000,     2.0000,     0.0000,     1.0000}
  0: MUL OUT[0], IN[0], IMM[0].xxxy
  1: END
"""


def xlate_child(*args, stdin=None, cwd=None):
    """``python -m xlate ARGS`` in a child, bounded by HANG_TIMEOUT (a TimeoutExpired is the
    test's failure)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "xlate", *map(str, args)], input=stdin,
                          capture_output=True, text=True, timeout=HANG_TIMEOUT, cwd=cwd, env=env)


def token_stream(text: str = TGSI_TEXT) -> bytes:
    from xlate.frontends import parse_tgsi_shader
    from xlate.frontends.tgsi.binary import encode_modern
    return encode_modern(parse_tgsi_shader(text, "t.tgsi"))


# ---- bounded reading --------------------------------------------------------------------------
def test_read_bounded_stops_one_byte_past_the_limit():
    from xlate.fsio import read_bounded

    class Endless:                      # a device, or a file that grows faster than it is read
        calls = 0

        def read(self, n):
            self.calls += 1
            return b"x" * n

    f = Endless()
    assert len(read_bounded(f, 5 << 20)) == (5 << 20) + 1


def test_convert_of_a_character_device_ends_with_E1008():
    r = xlate_child("convert", "/dev/zero")
    assert r.returncode == 1
    assert r.stderr == ("/dev/zero:1:1: error[E1008]: input is more than 16777216 bytes "
                        "(the limit); reading stopped there\n")


def test_a_file_that_grows_while_read_is_bounded(tmp_path, monkeypatch, capsys):
    import xlate.frontends
    monkeypatch.setattr(xlate.frontends, "MAX_SOURCE_BYTES", 64 * 1024)
    src = tmp_path / "src"
    src.mkdir()
    growing = src / "growing.fp"
    growing.write_text("!!ARBfp1.0\n" + "# padding\n" * 8000)      # 80 kB, over the limit
    stop = threading.Event()

    def grow():
        with open(growing, "a") as f:
            while not stop.is_set():
                f.write("# more\n" * 1000)
                f.flush()

    writer = threading.Thread(target=grow, daemon=True)
    writer.start()
    try:
        code = main(["batch", str(src), "-o", str(tmp_path / "out"), "-j", "1", "--targets",
                     "glsl", "--report", str(tmp_path / "r.json")])
    finally:
        stop.set()
        writer.join()
    assert code == 1
    (entry,) = json.loads((tmp_path / "r.json").read_text())["files"]
    assert [d["code"] for d in entry["diagnostics"]] == ["E1008"]
    assert entry["diagnostics"][0]["message"] == ("input is more than 65536 bytes (the limit); "
                                                  "reading stopped there")


# ---- tree walks: regular files only ----------------------------------------------------------
@pytest.fixture
def odd_tree(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "good.fp").write_text(FP)
    os.mkfifo(src / "pipe.fp")                       # opened, it would block forever
    os.symlink("loop", src / "loop")                 # a symbolic link to itself
    os.symlink("/dev/zero", src / "zero.fp")         # a symbolic link to a device
    os.symlink("nowhere", src / "dangling.fp")
    return src


def test_batch_skips_what_is_not_a_regular_file_and_counts_it(odd_tree, tmp_path):
    r = xlate_child("batch", odd_tree, "-o", tmp_path / "out", "-j", "1",
                    "--report", tmp_path / "r.json")
    assert r.returncode == 0, r.stderr
    assert ("xlate batch: 1 programs: 1 ok (0 with warnings), 0 with errors; 4 other files "
            "skipped (4 not regular files: 1 broken symbolic link, 1 named pipe (FIFO), "
            "1 symbolic link loop, 1 symbolic link to a character device); 1 translated") \
        in r.stderr
    doc = json.loads((tmp_path / "r.json").read_text())
    assert doc["summary"]["not_regular"] == {
        "broken symbolic link": 1, "named pipe (FIFO)": 1, "symbolic link loop": 1,
        "symbolic link to a character device": 1}
    reasons = {Path(f["source"]).name: f.get("reason") for f in doc["files"]}
    assert reasons == {"dangling.fp": "broken symbolic link", "good.fp": None,
                       "loop": "symbolic link loop", "pipe.fp": "named pipe (FIFO)",
                       "zero.fp": "symbolic link to a character device"}


def test_not_regular_reason():
    from xlate.fsio import not_regular_reason
    assert not_regular_reason(str(BRIGHT)) is None
    assert not_regular_reason("/dev/null") == "character device"
    assert not_regular_reason(str(ROOT)) == "folder"


# ---- batch takes every dialect convert takes ---------------------------------------------------
def test_batch_takes_tgsi_text_and_token_streams(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "particle.tgsi").write_text(TGSI_TEXT)
    (src / "particle2.bin").write_bytes(token_stream())
    (src / "image.bin").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(40))
    out = tmp_path / "out"
    assert main(["batch", str(src), "-o", str(out), "-j", "1", "--targets", "glsl",
                 "--report", str(tmp_path / "r.json")]) == 0
    assert sorted(p.name for p in out.iterdir() if not p.name.startswith(".")) == [
        "particle.frag", "particle2.frag"]
    files = {Path(f["source"]).name: f["status"]
             for f in json.loads((tmp_path / "r.json").read_text())["files"]}
    assert files == {"image.bin": "skipped", "particle.tgsi": "ok", "particle2.bin": "ok"}


def test_a_file_named_on_the_command_line_is_always_translated(tmp_path, capsys):
    odd = tmp_path / "image.bin"
    odd.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(40))
    notes = tmp_path / "notes.txt"
    notes.write_text("not a program\n")
    assert main(["batch", str(odd), str(notes), "-o", str(tmp_path / "out"), "-j", "1",
                 "-q"]) == 1
    assert "2 programs: 0 ok (0 with warnings), 2 with errors; 0 other files skipped" \
        in capsys.readouterr().err


# ---- batch outputs -----------------------------------------------------------------------------
def test_duplicate_outputs_are_one_error_of_the_losing_input(tmp_path, capsys):
    src = tmp_path / "src"
    src.mkdir()
    (src / "water.fp").write_text(FP)
    (src / "water.fp2").write_text(FP)
    out = tmp_path / "out"
    assert main(["batch", str(src), "-o", str(out), "-j", "1"]) == 1
    err = capsys.readouterr().err
    lost, winner = src / "water.fp2", src / "water.fp"
    assert err.count("error[E8002]") == 1
    assert (f"{lost}:1:1: error[E8002]: {lost} is not translated: its outputs water.frag, "
            f"water.frag.spv, water.frag.reflect.json are already written from {winner} "
            "(outputs are named after the file name without its last extension; rename one "
            "of the two)") in err
    assert "2 programs: 1 ok (0 with warnings), 1 with errors; 0 other files skipped; " \
           "1 translated, 0 unchanged" in err
    assert f"from {winner} (" in (out / "water.frag").read_text()


def test_profile_outputs_do_not_replace_the_default_ones(tmp_path):
    out = tmp_path / "out"
    assert main(["batch", str(BRIGHT), "-o", str(out), "-j", "1", "-q"]) == 0
    glsl450 = (out / "bright_pass.frag").read_text()
    assert main(["batch", str(BRIGHT), "-o", str(out), "-j", "1", "-q", "--profile",
                 "es310"]) == 0
    assert sorted(p.name for p in out.iterdir() if not p.name.startswith(".")) == [
        "bright_pass.es310.frag", "bright_pass.es310.frag.reflect.json", "bright_pass.frag",
        "bright_pass.frag.reflect.json", "bright_pass.frag.spv"]
    assert (out / "bright_pass.frag").read_text() == glsl450
    assert (out / "bright_pass.es310.frag").read_text().startswith("#version 310 es\n")


@pytest.mark.parametrize("option", ["--report", "--depfile"])
def test_batch_checks_report_and_depfile_before_the_work(tmp_path, capsys, option):
    (tmp_path / "afile").write_text("")
    out = tmp_path / "out"
    dest = tmp_path / "afile" / ("x.json" if option == "--report" else "x.d")
    assert main(["batch", str(BRIGHT), "-o", str(out), option, str(dest)]) == 2
    assert capsys.readouterr().err == \
        f"xlate: error[E8002]: cannot write {dest}: {tmp_path / 'afile'} is not a folder\n"
    assert not out.exists()                            # nothing was done
    missing = tmp_path / "nonexist" / "x.json"
    assert main(["batch", str(BRIGHT), "-o", str(out), "--report", str(missing)]) == 2
    assert capsys.readouterr().err == (f"xlate: error[E8002]: cannot write {missing}: folder "
                                       f"{missing.parent} does not exist\n")
    assert not missing.parent.exists()
    # directly in OUTDIR, which the run creates: allowed
    assert main(["batch", str(BRIGHT), "-o", str(out), "-q", option, str(out / "x.json")]) == 0
    assert (out / "x.json").is_file()


# ---- convert -----------------------------------------------------------------------------------
def test_output_extension_picks_the_target(tmp_path, capsys):
    spv = tmp_path / "out.spv"
    assert main(["convert", str(BRIGHT), "-o", str(spv)]) == 0
    assert spv.read_bytes()[:4] == b"\x03\x02\x23\x07"
    refl = tmp_path / "out.reflect.json"
    assert main(["convert", str(BRIGHT), "-o", str(refl)]) == 0
    assert json.loads(refl.read_text())["schema"] == "xlate-reflection/1"
    other = tmp_path / "out.txt"                 # no known extension: the default, GLSL
    assert main(["convert", str(BRIGHT), "-o", str(other)]) == 0
    assert other.read_text().startswith("#version 450 core\n")
    capsys.readouterr()
    assert main(["convert", str(BRIGHT), "-o", str(tmp_path / "x.spv"), "--target", "glsl"]) == 2
    assert capsys.readouterr().err == (
        f"xlate: error: -o {tmp_path / 'x.spv'} names a spirv output but --target is glsl; drop "
        "--target (the extension picks spirv) or name the output for glsl\n")
    assert not (tmp_path / "x.spv").exists()


def test_convert_of_two_programs_points_at_batch(capsys):
    assert main(["convert", "a.fp", "b.fp"]) == 2
    assert capsys.readouterr().err == ("xlate: error: convert translates one program (2 given); "
                                       "translate several with 'xlate batch a.fp b.fp -o OUTDIR'\n")


def test_explain_list_is_sorted_and_survives_a_closed_pipe():
    r = subprocess.run(f"{sys.executable} -m xlate explain --list | head -1", shell=True,
                       capture_output=True, text=True, timeout=HANG_TIMEOUT,
                       env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert r.stdout == "E1001  unknown program header\n"
    assert r.stderr == ""
    codes = [line.split()[0] for line in xlate_child("explain", "--list").stdout.splitlines()]
    assert codes == sorted(codes) and len(codes) > 50


def test_python_dash_m_xlate():
    from xlate import __version__
    r = xlate_child("--version")
    assert (r.returncode, r.stdout) == (0, f"xlate {__version__}\n")


def test_check_reads_standard_input_and_sync_says_why_it_cannot():
    r = xlate_child("check", "-", stdin="!!ARBfp1.0\nMOV result.color, b;\nEND\n")
    assert r.returncode == 1
    assert r.stderr.startswith("<stdin>:2:")
    assert xlate_child("check", "-", stdin=FP).returncode == 0
    r = xlate_child("sync", "-", stdin=FP)
    assert r.returncode == 2
    assert r.stderr == ("xlate: error: sync cannot take '-' (standard input): its outputs are "
                        "named after the program file and written beside it; use 'xlate "
                        "convert - -o FILE'\n")


# ---- binary TGSI in run and verify --------------------------------------------------------------
def test_run_reads_a_token_stream(tmp_path):
    path = tmp_path / "p.tgsibin"
    path.write_bytes(token_stream())
    r = xlate_child("run", path, "--inputs", "random", "--lanes", "1")
    assert r.returncode == 0, r.stderr
    assert "E1003" not in r.stderr
    assert r.stdout.startswith("OUT0 (result.color[0])  [float]\n")


def test_verify_reads_a_token_stream(tmp_path):
    from conftest import gl_runner
    gl_runner("gl")
    path = tmp_path / "p.tgsibin"
    path.write_bytes(token_stream())
    r = xlate_child("verify", path, "--lanes", "64")
    assert r.returncode == 0, r.stderr
    assert r.stdout == f"PASS {path} (fragment program, 64 lanes, 256 components compared)\n"


# ---- xlate run defaults -------------------------------------------------------------------------
def test_run_random_gives_fragment_positions_of_one_quad(tmp_path, capsys):
    prog = tmp_path / "p.fp"
    prog.write_text(POSITION_FP)
    assert main(["run", str(prog), "--inputs", "random"]) == 0
    assert capsys.readouterr().out == (
        "result.color[0]  [float]\n"
        "  lane             x             y             z             w\n"
        "     0           0.5           0.5           0.5           1.0\n"
        "     1           1.5           0.5           0.5           1.0\n"
        "     2           0.5           1.5           0.5           1.0\n"
        "     3           1.5           1.5           0.5           1.0\n"
        "\n"
        "killed: 0 of 4 fragments\n")
    prog.write_text(POSITION_FP.replace("!!ARBfp1.0\n", "!!ARBfp1.0\nOPTION "
                                        "ARB_fragment_coord_origin_upper_left;\n"))
    assert main(["run", str(prog), "--inputs", "random"]) == 0
    lines = capsys.readouterr().out.splitlines()[2:6]
    assert [line.split()[1:3] for line in lines] == [["0.5", "1.5"], ["1.5", "1.5"],
                                                      ["0.5", "0.5"], ["1.5", "0.5"]]


def test_template_round_trips_to_the_random_run(tmp_path, capsys):
    prefix = tmp_path / "bp"
    assert main(["run", str(BRIGHT), "--template", str(prefix), "--seed", "7"]) == 0
    err = capsys.readouterr().err
    names = [f"{prefix}.inputs.json", f"{prefix}.params.json", f"{prefix}.textures.json"]
    assert err == (f"xlate: wrote {', '.join(names)} (4 lanes, seed 7); edit them, then run: "
                   f"xlate run {BRIGHT} --inputs {names[0]} --params {names[1]} "
                   f"--textures {names[2]}\n")
    assert list(json.loads(Path(names[0]).read_text())) == ["fragment.texcoord[0]"]
    assert list(json.loads(Path(names[1]).read_text())) == ["program.local[0]"]
    assert json.loads(Path(names[2]).read_text())["0"]["target"] == "2D"
    assert main(["run", str(BRIGHT), "--inputs", names[0], "--params", names[1],
                 "--textures", names[2]]) == 0
    from_files = capsys.readouterr().out
    assert main(["run", str(BRIGHT), "--inputs", "random", "--seed", "7"]) == 0
    assert capsys.readouterr().out == from_files


def test_a_missing_input_points_at_the_template(tmp_path, capsys):
    assert main(["run", str(BRIGHT)]) == 2
    assert capsys.readouterr().err == (
        "xlate: error: missing texture[0] (2D) used by instruction 4 (TEX); "
        f"'xlate run {BRIGHT} --template PREFIX' writes every input, parameter and texture "
        "the program needs, '--inputs random' draws them\n")


def test_readme_worked_example_of_run(tmp_path, monkeypatch, capsys):
    """The README's `xlate run` example gives the output the README shows."""
    import re
    import shutil
    readme = (ROOT / "README.md").read_text()
    shown = re.search(r"\$ xlate run bright_pass.fp --inputs bp.inputs.json --params "
                      r"bp.params.json --textures bp.textures.json\n(.*?)\$ xlate verify",
                      readme, re.S).group(1)
    monkeypatch.chdir(tmp_path)
    shutil.copy(BRIGHT, "bright_pass.fp")
    assert main(["run", "bright_pass.fp", "--template", "bp"]) == 0
    assert '"program.local[0]": [-0.7568616, -1.3125, 4.9999995, 0.21259998]' in \
        Path("bp.params.json").read_text() and Path("bp.params.json").read_text() in readme
    Path("bp.params.json").write_text('{"program.local[0]": [0.125, 0.0, 0.5, 2.0]}')
    capsys.readouterr()
    assert main(["run", "bright_pass.fp", "--inputs", "bp.inputs.json", "--params",
                 "bp.params.json", "--textures", "bp.textures.json"]) == 0
    assert capsys.readouterr().out == shown


def test_verify_checks_its_json_destination_before_the_work(tmp_path, capsys):
    dest = tmp_path / "nonexist2" / "r.json"
    assert main(["verify", str(BRIGHT), "--json", str(dest)]) == 2
    assert capsys.readouterr() == ("", f"xlate: error[E8002]: cannot write {dest}: folder "
                                       f"{dest.parent} does not exist\n")
    assert not dest.parent.exists()


def test_an_output_that_is_a_pipe_is_written_not_replaced(tmp_path):
    """``-o`` naming a FIFO (or /dev/null, /dev/stdout): the bytes go into it, and it stays
    what it was -- an atomic rename onto it would have replaced it by a regular file (found
    when ``xlate convert ... -o /dev/null`` run as root turned /dev/null into a file)."""
    import stat
    from xlate.fsio import atomic_write
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    atomic_write(str(fifo), b"#version 450\n")
    reader.join(10)
    assert got == [b"#version 450\n"]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["out.fifo"]      # no temporary left
