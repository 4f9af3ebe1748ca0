"""``xlate run``: input/parameter/texture files, the printed table, saved outputs, exit codes."""
from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from xlate.cli import main

VP = """!!NVvp4.0
PARAM k = program.local[0];
ATTRIB p = vertex.attrib[0];
INT TEMP n;
TEMP t;
MUL t, p, k;
TEX result.color, p, texture[0], 2D;
MOV result.texcoord[0], t;
TRUNC.S n, p;
MOV.S result.texcoord[1], n;
MOV result.position, p;
END
"""

FP = """!!NVfp4.0
KIL fragment.texcoord[0];
MOV result.color, fragment.texcoord[0];
END
"""

GP = """!!NVgp4.0
PRIMITIVE_IN POINTS;
PRIMITIVE_OUT POINTS;
VERTICES_OUT 4;
MOV result.position, vertex[0].position;
EMIT;
ADD result.position, vertex[0].position, 1;
EMIT;
END
"""

BROKEN = """!!NVvp4.0
MOV result.color, nothing;
END
"""


@pytest.fixture
def files(tmp_path):
    (tmp_path / "p.vp").write_text(VP)
    (tmp_path / "in.json").write_text(json.dumps({
        "vertex.attrib[0]": [[0.25, 0.25, 0, 1], [0.75, 0.25, 0, 1], ["nan", 2.5, "-inf", 1]]}))
    (tmp_path / "par.json").write_text(json.dumps({"program.local[0]": [2, 3, 4, 5]}))
    (tmp_path / "tex.json").write_text(json.dumps({"0": {
        "target": "2D", "levels": [[[[1, 0, 0, 1], [0, 1, 0, 1]], [[0, 0, 1, 1], [1, 1, 1, 1]]]],
        "filter": "NEAREST", "wrap": "CLAMP_TO_EDGE"}}))
    return tmp_path


def args(d, *extra):
    return ["run", str(d / "p.vp"), "--inputs", str(d / "in.json"), "--params",
            str(d / "par.json"), "--textures", str(d / "tex.json"), *extra]


def test_run_prints_tables(files, capsys):
    assert main(args(files)) == 0
    out = capsys.readouterr().out
    assert "result.color  [float]" in out
    assert "result.texcoord[1]  [int32]" in out                  # written by MOV.S
    lines = out.splitlines()
    i = lines.index("result.texcoord[0]  [float]")
    assert lines[i + 1].split() == ["lane", "x", "y", "z", "w"]
    assert lines[i + 2].split() == ["0", "0.5", "0.75", "0.0", "5.0"]
    assert lines[i + 4].split() == ["2", "nan", "7.5", "-inf", "5.0"]
    j = lines.index("result.texcoord[1]  [int32]")
    assert lines[j + 4].split() == ["2", "0", "2", "-2147483648", "1"]
    k = lines.index("result.color  [float]")
    assert lines[k + 2].split() == ["0", "1.0", "0.0", "0.0", "1.0"]
    assert lines[k + 3].split() == ["1", "0.0", "1.0", "0.0", "1.0"]


def test_run_saves_npz_and_json(files):
    assert main(args(files, "-o", str(files / "out.npz"))) == 0
    z = np.load(files / "out.npz")
    assert z["result.texcoord[0]"].dtype == np.float32
    assert z["result.texcoord[0]"][0].tolist() == [0.5, 0.75, 0, 5]
    assert z["result.texcoord[1]"].dtype == np.int32
    assert z["steps_exceeded"].tolist() == [False] * 3
    assert main(args(files, "-o", str(files / "out.json"))) == 0
    doc = json.loads((files / "out.json").read_text())
    assert doc["lanes"] == 3 and doc["stage"] == "vertex"
    o = doc["outputs"]["result.texcoord[0]"]
    assert o["type"] == "float" and o["values"][2] == ["nan", 7.5, "-inf", 5.0]
    assert o["words"][0][0] == 0x3F000000
    assert doc["outputs"]["result.texcoord[1]"]["values"][2][2] == -2 ** 31


def test_npz_inputs_params_textures_and_lanes(files, capsys):
    np.savez(files / "in.npz", **{"p": np.array([0.25, 0.75, 0, 1], np.float32)})
    np.savez(files / "par.npz", **{"k": np.ones(4, np.float32)})
    np.savez(files / "tex.npz", **{
        "t0.level0": np.full((2, 2, 4), 7, np.float32), "t0.target": np.array("2D"),
        "t0.wrap": np.array(["REPEAT", "CLAMP_TO_EDGE"]), "t0.lod_bias": np.array(0.5)})
    rc = main(["run", str(files / "p.vp"), "--inputs", str(files / "in.npz"), "--params",
               str(files / "par.npz"), "--textures", str(files / "tex.npz"), "--lanes", "5",
               "-o", str(files / "o.npz")])
    assert rc == 0
    z = np.load(files / "o.npz")
    assert z["result.color"].shape == (5, 4) and (z["result.color"] == 7).all()


def test_many_lanes_are_truncated_in_the_table(files, capsys):
    assert main(args(files, "--lanes", "1")) == 2               # 3 lanes given, 1 asked
    assert "has 3 lanes, but lanes=1" in capsys.readouterr().err
    (files / "in.json").write_text(json.dumps({"vertex.attrib[0]": [0.5, 0.5, 0, 1]}))
    assert main(args(files, "--lanes", "100")) == 0
    out = capsys.readouterr().out
    assert "... 68 more lanes (use -o OUT.npz or OUT.json to save all)" in out


def test_fragment_killed_and_geometry_primitives(tmp_path, capsys):
    (tmp_path / "k.fp").write_text(FP)
    (tmp_path / "i.json").write_text(json.dumps({"fragment.texcoord[0]": [[1, 1, 1, 1], [1, -1, 1, 1]]}))
    assert main(["run", str(tmp_path / "k.fp"), "--inputs", str(tmp_path / "i.json")]) == 0
    assert "killed: 1 of 2 fragments (lanes 1)" in capsys.readouterr().out
    (tmp_path / "g.gp").write_text(GP)
    (tmp_path / "v.json").write_text(json.dumps({"vertex.position": [[[1, 2, 3, 1]]]}))
    assert main(["run", str(tmp_path / "g.gp"), "--inputs", str(tmp_path / "v.json")]) == 0
    out = capsys.readouterr().out
    assert "emitted primitives:" in out and "lane 0: 1 strip(s)" in out
    assert main(["run", str(tmp_path / "g.gp"), "--inputs", str(tmp_path / "v.json"), "-o",
                 str(tmp_path / "g.npz")]) == 0
    z = np.load(tmp_path / "g.npz")
    assert z["vertices.result.position"].tolist() == [[1, 2, 3, 1], [2, 3, 4, 2]]
    assert z["vertices.lane"].tolist() == [0, 0] and z["vertices.strip"].tolist() == [0, 0]


def test_source_errors_print_diagnostics_exit_1(tmp_path, capsys):
    (tmp_path / "b.vp").write_text(BROKEN)
    assert main(["run", str(tmp_path / "b.vp")]) == 1
    err = capsys.readouterr().err
    assert "b.vp:2:" in err and "error[E" in err
    assert "MOV result.color, nothing;" in err and "^" in err


@pytest.mark.parametrize("mutate, message", [
    (lambda d: (d / "in.json").write_text("{not json"), "--inputs .*invalid JSON"),
    (lambda d: (d / "in.json").write_text("[1, 2]"), "expected a JSON object"),
    (lambda d: (d / "in.json").write_text(json.dumps({"vertex.attrib[9]": [1, 2, 3, 4]})),
     r"unknown input 'vertex.attrib\[9\]'"),
    (lambda d: (d / "in.json").write_text(json.dumps({"p": [[1, 2], [3, 4]]})),
     r"'p': wrong shape \(2, 2\)"),
    (lambda d: (d / "in.json").write_text(json.dumps({"p": ["x", 2, 3, 4]})),
     r"'p': 'x' is not a number"),
    (lambda d: (d / "in.json").write_text(json.dumps({})), r"missing input 'p' \(vertex.attrib\[0\]\)"),
    (lambda d: (d / "in.json").unlink(), r"--inputs .*in.json: cannot read"),
    (lambda d: (d / "tex.json").write_text(json.dumps({"3": {"target": "2D", "levels": [[[[1]]]]}})),
     r"texture\[3\]: the program uses no texture unit 3"),
    (lambda d: (d / "tex.json").write_text(json.dumps({"0": {"target": "3D", "levels": [[[[[1]]]]]}})),
     r"texture\[0\]: a 3D texture, but instruction"),
    (lambda d: (d / "tex.json").write_text(json.dumps({"0": {"levels": [[[[1]]]]}})), r"no 'target'"),
    (lambda d: (d / "tex.json").write_text(json.dumps({"0": {"target": "2D", "levels": [[[[1]]]],
                                                            "colour": 1}})), r"unknown field"),
    (lambda d: (d / "par.json").write_text(json.dumps({"program.env[0]": [1, 2, 3, 4]})),
     r"unknown parameter 'program.env\[0\]'"),
])
def test_bad_input_files_exit_2(files, capsys, mutate, message):
    mutate(files)
    assert main(args(files)) == 2
    err = capsys.readouterr().err
    assert err.startswith("xlate: error: ")
    import re
    assert re.search(message, err), err


def test_bad_paths_exit_2(files, capsys):
    assert main(["run", str(files / "nope.vp")]) == 2
    assert "E8001" in capsys.readouterr().err
    assert main(args(files, "-o", str(files / "out.txt"))) == 2
    assert "must be a .npz or .json" in capsys.readouterr().err
    (files / "x.csv").write_text("1,2")
    assert main(["run", str(files / "p.vp"), "--inputs", str(files / "x.csv")]) == 2
    assert "expected a .json or .npz file" in capsys.readouterr().err


def test_subprocess(files):
    r = subprocess.run([sys.executable, "-m", "xlate.cli", *args(files, "-o", str(files / "s.json"))],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert json.loads((files / "s.json").read_text())["lanes"] == 3
    r = subprocess.run([sys.executable, "-m", "xlate.cli", "run", str(files / "p.vp")],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "missing texture[0] (2D)" in r.stderr
