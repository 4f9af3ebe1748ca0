"""The build-script examples of README.md (Library) and docs/library.md run as documented."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BROKEN = "!!NVfp4.0\nMOV result.color, b;\nEND\n"


def python_block_after(doc: Path, marker: str) -> str:
    text = doc.read_text()
    return re.search(re.escape(marker) + r".*?```python\n(.*?)```", text, re.S).group(1)


def shaders(tmp_path: Path) -> Path:
    src = tmp_path / "shaders"
    shutil.copytree(ROOT / "corpus" / "nv4", src / "nv4",
                    ignore=shutil.ignore_patterns("*.glsl", "*.json", "*.rejected"))
    shutil.copy(ROOT / "corpus" / "examples" / "bright_pass.fp", src)
    return src


def run(script: str, tmp_path: Path, *args: str):
    path = tmp_path / "build_script.py"
    path.write_text(script)
    return subprocess.run([sys.executable, str(path), *args], cwd=tmp_path, capture_output=True,
                          text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)))


def test_readme_build_script(tmp_path):
    script = python_block_after(ROOT / "README.md", "A build script that turns")
    src = shaders(tmp_path)
    r = run(script, tmp_path)
    assert r.returncode == 0, r.stderr
    spv = sorted(p.relative_to(tmp_path / "build" / "shaders").as_posix()
                 for p in (tmp_path / "build").rglob("*.spv"))
    assert "bright_pass.frag.spv" in spv and len(spv) == len(list(src.rglob("*.*p")))
    assert any(name.endswith(".vert.spv") for name in spv)
    assert (tmp_path / "build" / "shaders" / "bright_pass.frag.spv").read_bytes()[:4] == \
        b"\x03\x02\x23\x07"
    (src / "broken.fp").write_text(BROKEN)
    r = run(script, tmp_path)
    assert r.returncode == 1
    assert "shaders/broken.fp:2:19: error[E2003]: undeclared name 'b'" in r.stderr


def test_library_build_script(tmp_path):
    script = python_block_after(ROOT / "docs" / "library.md", "## Build-script example")
    src = shaders(tmp_path)
    r = run(script, tmp_path, "shaders", "out")
    assert r.returncode == 0, r.stderr
    table = json.loads((tmp_path / "out" / "bindings.json").read_text())
    assert len(table) == len(list(src.rglob("*.*p")))
    bright = table["bright_pass.fp"]
    assert bright == {"spirv": "bright_pass.frag.spv",
                      "textures": {"0": {"set": 0, "binding": 1}},
                      "parameters": [{"element": "program.local[0]", "offset": 0}],
                      "attributes": {"fragment.texcoord[0]": 5}}
    stamp = (tmp_path / "out" / "bright_pass.frag.spv").stat().st_mtime_ns
    (src / "broken.fp").write_text(BROKEN)
    r = run(script, tmp_path, "shaders", "out")
    assert r.returncode == 1 and "error[E2003]" in r.stderr
    assert (tmp_path / "out" / "bright_pass.frag.spv").stat().st_mtime_ns == stamp  # unchanged
