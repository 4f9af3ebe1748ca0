"""The pre-commit hooks (``.pre-commit-hooks.yaml``) run by the real ``pre-commit`` in a
temporary git repository (issue 7, item 2).

The manifest's hooks are ``language: python`` (pre-commit installs xlate into its own
environment from the hook repository, which needs the network); offline, the tests use the
manifest's hook definitions as ``repo: local`` hooks with ``language: system`` and an entry
that runs this interpreter's xlate, which is also how a repository without network access can
configure them (docs/batch.md)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pre_commit")
yaml = pytest.importorskip("yaml")

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = ROOT / ".pre-commit-hooks.yaml"

GOOD_FP = (ROOT / "corpus" / "examples" / "bright_pass.fp").read_text()
GOOD_VP = """!!NVvp4.0
MOV result.position, vertex.attrib[0];
END
"""
BROKEN_FP = """!!NVfp4.0
TEMP a;
MOV result.color, b;
END
"""

if shutil.which("git") is None:
    pytest.skip("git is not installed", allow_module_level=True)


def local_config(hooks: dict[str, list[str]]) -> str:
    """A .pre-commit-config.yaml running the manifest's hooks with this interpreter."""
    manifest = {h["id"]: h for h in yaml.safe_load(MANIFEST.read_text())}
    entries = []
    for hook_id, args in hooks.items():
        h = dict(manifest[hook_id])
        command = h["entry"].split()
        assert command[0] == "xlate"
        h["entry"] = " ".join([sys.executable, "-m", "xlate.cli", *command[1:]])
        h["language"] = "system"
        if args:
            h["args"] = args
        entries.append(h)
    return yaml.safe_dump({"repos": [{"repo": "local", "hooks": entries}]}, sort_keys=False)


@pytest.fixture
def repo(tmp_path):
    path = tmp_path / "repo"
    path.mkdir()
    env = dict(os.environ, PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"),
               PYTHONPATH=str(ROOT), GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1",
               GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@example.com", NO_COLOR="1")
    env.pop("XLATE_CACHE_DIR", None)

    def run(*args, check=False):
        r = subprocess.run(list(args), cwd=path, capture_output=True, text=True, env=env,
                           timeout=120)
        if check:
            assert r.returncode == 0, r.stdout + r.stderr
        return r
    run("git", "init", "-q", "-b", "main", check=True)
    (path / "shaders").mkdir()
    (path / "shaders" / "bloom.fp").write_text(GOOD_FP)
    (path / "shaders" / "pass.vp").write_text(GOOD_VP)
    (path / "README.md").write_text("not a shader\n")
    run.path = path
    return run


def test_manifest_is_valid_for_pre_commit():
    r = subprocess.run([sys.executable, "-m", "pre_commit", "validate-manifest", str(MANIFEST)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    hooks = {h["id"]: h for h in yaml.safe_load(MANIFEST.read_text())}
    assert hooks["xlate-check"]["entry"] == "xlate check"
    assert hooks["xlate-sync"]["entry"] == "xlate sync"


def test_check_hook_passes_on_good_and_fails_on_broken_shaders(repo):
    path = repo.path
    (path / ".pre-commit-config.yaml").write_text(local_config({"xlate-check": []}))
    repo("git", "add", "-A", check=True)
    r = repo(sys.executable, "-m", "pre_commit", "run")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "xlate check" in r.stdout and "Passed" in r.stdout
    # a broken shader blocks the commit, with the standard diagnostics
    repo(sys.executable, "-m", "pre_commit", "install", check=True)
    (path / "shaders" / "broken.fp").write_text(BROKEN_FP)
    repo("git", "add", "-A", check=True)
    r = repo("git", "commit", "-q", "-m", "add a broken shader")
    assert r.returncode != 0
    out = r.stdout + r.stderr
    assert "Failed" in out
    assert "shaders/broken.fp:3:19: error[E2003]: undeclared name 'b'" in out
    assert "    MOV result.color, b;" in out
    assert repo("git", "rev-parse", "--verify", "-q", "HEAD").returncode != 0   # nothing committed
    (path / "shaders" / "broken.fp").write_text(BROKEN_FP.replace("TEMP a;", "TEMP b;"))
    repo("git", "add", "-A", check=True)
    r = repo("git", "commit", "-q", "-m", "shaders")
    assert r.returncode == 0, r.stdout + r.stderr


def test_sync_hook_fails_when_outputs_are_stale_and_passes_after(repo):
    path = repo.path
    (path / ".pre-commit-config.yaml").write_text(
        local_config({"xlate-sync": ["--targets", "glsl,reflect"]}))
    repo("git", "add", "-A", check=True)
    r = repo(sys.executable, "-m", "pre_commit", "run")
    assert r.returncode == 1
    assert "created shaders/bloom.frag (from shaders/bloom.fp)" in r.stdout
    assert (path / "shaders" / "pass.vert.reflect.json").is_file()
    # outputs regenerated and staged: the hook passes and the commit goes through
    repo("git", "add", "-A", check=True)
    r = repo(sys.executable, "-m", "pre_commit", "run")
    assert r.returncode == 0, r.stdout
    repo(sys.executable, "-m", "pre_commit", "install", check=True)
    assert repo("git", "commit", "-q", "-m", "shaders and outputs").returncode == 0
    # a program edited without regenerating its output: the commit is refused, the output fixed
    (path / "shaders" / "pass.vp").write_text(GOOD_VP.replace("attrib[0]", "attrib[1]"))
    repo("git", "add", "shaders/pass.vp", check=True)
    r = repo("git", "commit", "-q", "-m", "edit")
    assert r.returncode != 0
    assert "updated shaders/pass.vert (from shaders/pass.vp)" in r.stdout + r.stderr
    assert "vertex_attrib_1" in (path / "shaders" / "pass.vert").read_text()
    repo("git", "add", "-A", check=True)
    assert repo("git", "commit", "-q", "-m", "edit").returncode == 0
    assert repo("git", "status", "--porcelain").stdout == ""
