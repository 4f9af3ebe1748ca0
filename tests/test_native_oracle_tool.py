"""tools/native_oracle.py: worker processes, the JSON-lines progress file and the summary of a
partial run (--from-jsonl) -- what tools/gpu_oracle.sh relies on when a lease runs out."""
from __future__ import annotations

import importlib.util
import json
import os

import pytest

from test_verify_native import runner_or_skip

HERE = os.path.dirname(os.path.abspath(__file__))


def _tool():
    spec = importlib.util.spec_from_file_location(
        "native_oracle", os.path.join(HERE, "..", "tools", "native_oracle.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


PROGRAMS = {
    "a.fp": "!!ARBfp1.0\nADD result.color, fragment.texcoord[0], program.local[0];\nEND\n",
    "b.vp": "!!ARBvp1.0\nMOV result.position, vertex.position;\n"
            "MUL result.texcoord[0], vertex.attrib[3], program.env[1];\nEND\n",
    "c.vp": "!!VP1.0\nMOV o[HPOS], v[OPOS];\nEND\n",
}


def test_jobs_progress_and_from_jsonl(tmp_path, capsys):
    runner_or_skip()
    folder = tmp_path / "progs"
    folder.mkdir()
    for name, text in PROGRAMS.items():
        (folder / name).write_text(text)
    lines = tmp_path / "native.jsonl"
    report = tmp_path / "native.json"
    tool = _tool()
    assert tool.main(["--quiet", "--jobs", "2", "--lanes", "64", "--progress", str(lines),
                      "--json", str(report), str(folder)]) == 0
    docs = [json.loads(line) for line in lines.read_text().splitlines()]
    by_name = {os.path.basename(d["file"]): d["status"] for d in docs}
    assert by_name == {"a.fp": "pass", "b.vp": "pass", "c.vp": by_name["c.vp"]}
    # a VP1.0 program: llvmpipe refuses it (unsupported); NVIDIA's driver loads it but the
    # harness does not run it yet (unsupported too) -- never a pass
    assert by_name["c.vp"] == "unsupported"
    full = json.loads(report.read_text())["summary"][0]
    capsys.readouterr()
    assert tool.main(["--from-jsonl", str(lines), str(folder)]) == 0
    out = capsys.readouterr().out
    assert full["counts"] == {"pass": 2, "unsupported": 1}
    assert f"{str(folder)[-30:]:30}        3     2" in out
