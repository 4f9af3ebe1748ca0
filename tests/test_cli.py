"""The command line: outputs, exit codes, diagnostics format, atomic writes."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from xlate.cli import main

PROGRAM = """!!NVfp4.0
# modulate a texture by the interpolated color
ATTRIB uv = fragment.texcoord[0];
TEMP c;
TEX c, uv, texture[0], 2D;
MUL result.color, c, fragment.color;
END
"""

BROKEN = """!!NVfp4.0
TEMP a;
MOV a, fragment.texcoord[0];
ADD.S a, b, 1;
MOV result.color, c;
END
"""


@pytest.fixture
def prog(tmp_path):
    p = tmp_path / "mod.fp"
    p.write_text(PROGRAM)
    return p


def run(args, stdin=None):
    return subprocess.run([sys.executable, "-m", "xlate.cli", *args], input=stdin,
                          capture_output=True, text=True)


def test_convert_to_stdout_glsl(prog):
    r = run(["convert", str(prog)])
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("#version 450 core\n")
    assert "layout(binding = 0) uniform sampler2D texture0;" in r.stdout
    assert "layout(location = 5) in vec4 fragment_texcoord_0;" in r.stdout
    assert r.stderr == ""


def test_convert_stdin_and_output_file(tmp_path):
    out = tmp_path / "sub" / "mod.frag"
    # the output's folder must exist (as for a compiler's -o): nothing is created on a typo
    r = run(["convert", "-", "-o", str(out)], stdin=PROGRAM)
    assert r.returncode == 2
    assert r.stderr == (f"xlate: error[E8002]: cannot write {out}: folder {out.parent} "
                        "does not exist\n")
    assert not out.parent.exists()
    out.parent.mkdir()
    r = run(["convert", "-", "-o", str(out)], stdin=PROGRAM)
    assert r.returncode == 0, r.stderr
    assert out.read_text().startswith("#version 450 core")
    assert "<stdin>" in out.read_text()
    assert [p.name for p in out.parent.iterdir()] == ["mod.frag"]   # no temporary left behind


def test_targets(prog, tmp_path):
    spv = tmp_path / "m.spv"
    assert main(["convert", str(prog), "--target", "spirv", "-o", str(spv)]) == 0
    assert spv.read_bytes()[:4] == b"\x03\x02\x23\x07"
    r = run(["convert", str(prog), "--target", "spirv-asm"])
    assert "OpEntryPoint Fragment" in r.stdout
    r = run(["convert", str(prog), "--target", "reflect", "--profile", "vulkan"])
    refl = json.loads(r.stdout)
    assert refl["schema"] == "xlate-reflection/1"
    assert refl["textures"] == [{"unit": 0, "name": "texture0", "target": "2D", "type": "sampler2D",
                                 "binding": 1, "set": 0}]
    assert [i["binding"] for i in refl["inputs"]] == ["fragment.texcoord[0]", "fragment.color"]
    r = run(["convert", str(prog), "--target", "ir"])
    assert "TEX.F c, uv, texture[0], 2D" in r.stdout


def test_errors_are_diagnostics_with_caret(tmp_path):
    p = tmp_path / "bad.fp"
    p.write_text(BROKEN)
    r = run(["convert", str(p)])
    assert r.returncode == 1
    assert r.stdout == ""
    lines = r.stderr.splitlines()
    assert lines[0] == f"{p}:4:10: error[E2003]: undeclared name 'b'"
    assert lines[1] == "    ADD.S a, b, 1;"
    assert lines[2] == "             ^"
    assert f"{p}:5:19: error[E2003]: undeclared name 'c'" in lines
    assert "Traceback" not in r.stderr


def test_no_color_when_not_a_tty(tmp_path):
    p = tmp_path / "bad.fp"
    p.write_text(BROKEN)
    r = run(["convert", str(p)])
    assert "\x1b[" not in r.stderr


def test_missing_file_and_bad_usage(tmp_path):
    r = run(["convert", str(tmp_path / "nope.fp")])
    assert r.returncode == 2
    assert "error[E8001]: cannot read" in r.stderr
    assert run(["convert"]).returncode == 2
    assert run(["frobnicate"]).returncode == 2


def test_failed_conversion_leaves_no_output(tmp_path):
    p = tmp_path / "bad.fp"
    p.write_text(BROKEN)
    out = tmp_path / "bad.frag"
    assert main(["convert", str(p), "-o", str(out)]) == 1
    assert not out.exists()


def test_explain_every_code():
    from xlate.diagnostics import CODES
    for code in CODES:
        r = run(["explain", code]) if code == "E2003" else None
        if r is not None:
            assert r.returncode == 0 and r.stdout.startswith("E2003: undeclared name")
    assert main(["explain", "E9999"]) == 2
    r = run(["explain", "--list"])
    assert len(r.stdout.splitlines()) == len(CODES)


def test_garbage_inputs_never_traceback(tmp_path):
    for i, data in enumerate([b"", b"\x00\x01\x02", b"!!NVfp4.0", b"   !!NVfp4.0\nEND",
                              b"!!NVfp4.0\nMOV result.color, {1,2,3,4,5};\nEND",
                              "!!NVfp4.0\nMOV result.color, \u00e9;\nEND".encode(),
                              b"\xff\xfe!!NVvp4.0"]):
        p = tmp_path / f"g{i}.fp"
        p.write_bytes(data)
        r = run(["convert", str(p)])
        assert r.returncode == 1, (data, r.stderr)
        assert "Traceback" not in r.stderr
        assert "error[E" in r.stderr


@pytest.mark.parametrize("command", ["run", "verify"])
def test_missing_numpy_is_a_one_line_hint(tmp_path, command):
    """`pip install .` has no numpy: the executor and the verifier say what to install and
    exit 3, no traceback (numpy blocked in a child process)."""
    prog = tmp_path / "p.fp"
    prog.write_text("!!NVfp4.0\nMOV result.color, fragment.texcoord[0];\nEND\n")
    code = ("import sys; sys.modules['numpy'] = None\n"
            "from xlate.cli import main\n"
            f"sys.exit(main([{command!r}, {str(prog)!r}]))\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 3, r.stderr
    assert r.stderr == (f"xlate: error: '{command}' needs the Python package 'numpy' "
                        "(python3 -m pip install numpy)\n")
