"""The wheel ships the Jinja/GLSL templates and the grammar, and an installed copy finds them
without a checkout (issue: foundation, item 1)."""
from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    out = tmp_path_factory.mktemp("wheel")
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                        "-q", "-w", str(out), str(ROOT)], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"cannot build a wheel here: {r.stderr.strip()[-300:]}")
    return next(out.glob("xlate-*.whl"))


def test_wheel_contains_templates_and_grammar(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for f in ("xlate/templates/glsl/program.j2", "xlate/templates/glsl/ops.txt",
              "xlate/templates/glsl/helpers.glsl", "xlate/templates/glsl/cctests.txt",
              "xlate/templates/report/batch.html.j2", "xlate/templates/report/batch.js",
              "xlate/templates/report/verify.html.j2", "xlate/templates/report/verify.js",
              "xlate/templates/report/report.css",
              "xlate/frontends/nv/nv.lark", "xlate/py.typed",
              "xlate/verify/generate/__init__.py", "xlate/verify/generate/tgsi.py"):
        assert f in names, f
    assert not any(n.startswith(("tests/", "corpus/", "tools/")) for n in names)


def test_unpacked_wheel_translates_without_the_checkout(wheel, tmp_path):
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import xlate\n"
            "from xlate.backends.glsl import _template_dir\n"
            "print(_template_dir())\n"
            "print(xlate.translate('!!NVfp4.0\\nMOV result.color, fragment.color;\\nEND\\n').glsl[:17])")
    r = subprocess.run([sys.executable, "-c", code, str(site)], capture_output=True, text=True,
                       cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    where, head = r.stdout.splitlines()
    assert Path(where) == site / "xlate" / "templates" / "glsl"
    assert head == "#version 450 core"


def test_unpacked_wheel_finds_the_report_templates(wheel, tmp_path):
    """The HTML reports' templates (templates/report/) come with the wheel."""
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    code = ("import sys; sys.path.insert(0, sys.argv[1])\n"
            "from xlate import pages\n"
            "print(pages.template_dir())\n"
            "print(pages.render('batch.html.j2', version='v', targets='glsl', profile='default', "
            "outdir='out', counts=dict(programs=0, ok=0, warnings=0, errors=0, skipped=0), "
            "statuses=(), grid=[], status_choices=[('all', 'all', 0)], dialects=[], stages=[], "
            "rows=[], skipped=[], data=[]).splitlines()[0])")
    r = subprocess.run([sys.executable, "-c", code, str(site)], capture_output=True, text=True,
                       cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    where, head = r.stdout.splitlines()
    assert Path(where) == site / "xlate" / "templates" / "report"
    assert head == "<!DOCTYPE html>"


def test_every_package_is_listed_in_pyproject():
    """pyproject.toml lists the packages one by one (the templates folder is mapped into the
    package): a new subpackage left out installs as missing -- `pip install .` then failed
    with "No module named 'xlate.backends.spirv_direct'" in `xlate batch`."""
    import re
    text = (ROOT / "pyproject.toml").read_text()      # (tomllib is 3.11+; xlate runs on 3.10)
    block = re.search(r"^packages = \[(.*?)\]", text, re.S | re.M).group(1)
    listed = set(re.findall(r'"([\w.]+)"', block))
    found = {".".join(p.parent.relative_to(ROOT).parts)
             for p in (ROOT / "xlate").rglob("__init__.py")}
    assert found <= listed, sorted(found - listed)


def test_wheel_contains_every_module(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    missing = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "xlate").rglob("*.py")
                     if p.relative_to(ROOT).as_posix() not in names)
    assert not missing, missing
