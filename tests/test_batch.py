"""``xlate batch``: tree walking, detection by content, output names, reports, the cache, exit
codes, determinism across -j, and resuming after SIGKILL (issue 7, item 1)."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from xlate.batch.cache import code_fingerprint as REAL_FINGERPRINT
from xlate.cli import main

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "corpus"            # 29 programs with other files (goldens) beside them

GOOD_FP = """!!NVfp4.0
# modulate a texture by the interpolated color
ATTRIB uv = fragment.texcoord[0];
TEMP c;
TEX c, uv, texture[0], 2D;
MUL result.color, c, fragment.color;
END
"""
GOOD_VP = """!!NVvp4.0
TEMP p;
DP4 p.x, vertex.attrib[0], program.local[0];
MOV p.yzw, vertex.attrib[0];
MOV result.position, p;
END
"""
BROKEN_FP = """!!NVfp4.0
TEMP a;
ADD a, b, 1;
MOV result.color, a;
END
"""
WARNING_FP = """!!NVfp4.0
MOV result.color, fragment.color;
END
trailing words
"""


@pytest.fixture(autouse=True)
def cache_under_outdir(monkeypatch):
    """The suite's conftest points XLATE_CACHE_DIR at the checkout; batch tests keep their
    cache in their own output folder unless a test sets it.  In-process runs see a fixed code
    fingerprint, so that edits to the checkout while the suite runs cannot empty the cache
    between two runs of a test (test_code_fingerprint covers the real one)."""
    from xlate.batch import cache
    monkeypatch.delenv("XLATE_CACHE_DIR", raising=False)
    monkeypatch.setattr(cache, "code_fingerprint", lambda: "fixed for the test")


def env_without_cache_dir(**extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "XLATE_CACHE_DIR"}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.update(extra)
    return env


def xlate(args, cwd, **kw):
    return subprocess.run([sys.executable, "-m", "xlate.cli", *args], cwd=cwd,
                          capture_output=True, text=True, env=kw.pop("env", env_without_cache_dir()),
                          **kw)


def make_tree(root: Path) -> Path:
    src = root / "shaders"
    (src / "sub").mkdir(parents=True)
    (src / ".hidden").mkdir()
    (src / "water.fp").write_text(GOOD_FP)
    (src / "sub" / "water.vp").write_text(GOOD_VP)
    (src / "sub" / "vertex_program.txt").write_text(GOOD_VP)     # detected by content
    (src / "bad.fp").write_text(BROKEN_FP)
    (src / "warn.fp").write_text(WARNING_FP)
    (src / "notes.md").write_text("# not a program\n")
    (src / "water.frag").write_text("#version 450\nvoid main() {}\n")   # GLSL: not a program
    (src / "image.bin").write_bytes(bytes(range(256)) * 4)
    (src / ".hidden" / "x.fp").write_text(GOOD_FP)                 # hidden folders are not walked
    return src


def report(path: Path) -> dict:
    return json.loads(path.read_text())


def files_of(out: Path) -> dict[str, bytes]:
    """Every file of an output tree except the cache and temporaries."""
    result = {}
    for p in sorted(out.rglob("*")):
        rel = p.relative_to(out).as_posix()
        if p.is_file() and not rel.startswith((".xlate-cache", ".xlate-tmp")):
            result[rel] = p.read_bytes()
    return result


def test_tree_mirrored_detected_by_content_and_reported(tmp_path):
    src = make_tree(tmp_path)
    out = tmp_path / "out"
    code = main(["batch", str(src), "-o", str(out), "-j", "1", "-q", "--report",
                 str(tmp_path / "r.json")])
    assert code == 1                                    # bad.fp has errors
    assert sorted(files_of(out)) == [
        "sub/vertex_program.vert", "sub/vertex_program.vert.reflect.json",
        "sub/vertex_program.vert.spv",
        "sub/water.vert", "sub/water.vert.reflect.json", "sub/water.vert.spv",
        "warn.frag", "warn.frag.reflect.json", "warn.frag.spv",
        "water.frag", "water.frag.reflect.json", "water.frag.spv"]
    assert (out / "water.frag").read_text().startswith("#version 450 core\n")
    assert (out / "water.frag.spv").read_bytes()[:4] == b"\x03\x02\x23\x07"
    refl = json.loads((out / "water.frag.reflect.json").read_text())
    assert refl["schema"] == "xlate-reflection/1" and refl["profile"] == "glsl450"
    rep = report(tmp_path / "r.json")
    assert rep["schema"] == "xlate-batch-report/1"
    assert rep["summary"] | {"seconds": 0} == {
        "inputs": 8, "skipped": 3, "programs": 5, "ok": 4, "warnings": 1, "errors": 1,
        "cached": 0, "translated": 5, "not_regular": {}, "seconds": 0}
    by_name = {Path(f["source"]).name: f for f in rep["files"]}
    assert [Path(f["source"]).relative_to(src).as_posix() for f in rep["files"]] == [
        "bad.fp", "image.bin", "notes.md", "sub/vertex_program.txt", "sub/water.vp", "warn.fp",
        "water.fp", "water.frag"]
    bad = by_name["bad.fp"]
    assert bad["status"] == "error" and bad["outputs"] == []
    assert bad["diagnostics"] == [{"code": "E2003", "severity": "error",
                                   "message": "undeclared name 'b'", "file": str(src / "bad.fp"),
                                   "line": 3, "col": 8, "length": 1}]
    assert by_name["warn.fp"]["status"] == "warning"
    assert by_name["warn.fp"]["diagnostics"][0]["code"] == "E1005"
    assert by_name["water.vp"] | {"source": ""} == {
        "source": "", "status": "ok", "cached": False, "dialect": "NVvp4.0", "stage": "vertex",
        "outputs": ["sub/water.vert", "sub/water.vert.spv", "sub/water.vert.reflect.json"],
        "diagnostics": []}
    assert by_name["notes.md"]["status"] == "skipped"


def test_diagnostics_summary_and_exit_codes(tmp_path):
    src = make_tree(tmp_path)
    r = xlate(["batch", "shaders", "-o", "out", "-j", "2"], cwd=tmp_path)
    assert r.returncode == 1
    assert "shaders/bad.fp:3:8: error[E2003]: undeclared name 'b'\n    ADD a, b, 1;\n" in r.stderr
    assert "shaders/warn.fp:4:1: warning[E1005]" in r.stderr
    assert r.stderr.strip().splitlines()[-1].startswith(
        "xlate batch: 5 programs: 4 ok (1 with warnings), 1 with errors; 3 other files skipped; "
        "5 translated, 0 unchanged (cache);")
    assert "\r" not in r.stderr                          # no progress bar without a terminal
    # the GLSL names the program as it was walked
    assert "from shaders/water.fp (NVfp4.0" in (tmp_path / "out" / "water.frag").read_text()
    (src / "bad.fp").unlink()
    r = xlate(["batch", "shaders", "-o", "out", "-q"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stderr.count("\n") == 1                      # -q: the summary only
    # usage errors
    assert xlate(["batch", "missing", "-o", "out"], cwd=tmp_path).returncode == 2
    assert xlate(["batch", "shaders", "-o", "out", "--report", "r.txt"], cwd=tmp_path).returncode == 2
    assert xlate(["batch", "shaders", "-o", "out", "--targets", "glsl,hlsl"], cwd=tmp_path).returncode == 2
    assert xlate(["batch", "shaders", "-o", "out", "-j", "0"], cwd=tmp_path).returncode == 2
    assert xlate(["batch", "shaders"], cwd=tmp_path).returncode == 2          # -o is required
    (tmp_path / "afile").write_text("x")
    r = xlate(["batch", "shaders", "-o", "afile"], cwd=tmp_path)
    assert r.returncode == 2 and "error[E8002]" in r.stderr


def test_targets_and_profile(tmp_path):
    src = make_tree(tmp_path)
    (src / "bad.fp").unlink()
    out = tmp_path / "out"
    assert main(["batch", str(src), "-o", str(out), "-j", "1", "-q", "--targets", "spirv,glsl",
                 "--profile", "vulkan"]) == 0
    # GLSL of another profile than glsl450 carries its name; SPIR-V's default is vulkan
    assert sorted(files_of(out)) == [
        "sub/vertex_program.vert.spv", "sub/vertex_program.vulkan.vert", "sub/water.vert.spv",
        "sub/water.vulkan.vert", "warn.frag.spv", "warn.vulkan.frag", "water.frag.spv",
        "water.vulkan.frag"]
    assert (out / "water.vulkan.frag").read_text().startswith("#version 450\n")  # vulkan profile


def test_output_name_collision_is_an_error_of_the_second_input(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "water.fp").write_text(GOOD_FP)
    (src / "water.fp2").write_text(GOOD_FP)        # both become water.frag
    out = tmp_path / "out"
    assert main(["batch", str(src), "-o", str(out), "-j", "1", "-q", "--targets", "glsl",
                 "--report", str(tmp_path / "r.json")]) == 1
    files = report(tmp_path / "r.json")["files"]
    assert [f["status"] for f in files] == ["ok", "error"]
    assert files[1]["diagnostics"][0]["code"] == "E8002"
    assert "water.frag is already written from" in files[1]["diagnostics"][0]["message"]
    assert f"from {src / 'water.fp'} (" in (out / "water.frag").read_text()


def test_several_sources_mirror_from_their_common_folder(tmp_path):
    (tmp_path / "a" / "x").mkdir(parents=True)
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "x" / "one.fp").write_text(GOOD_FP)
    (tmp_path / "b" / "two.vp").write_text(GOOD_VP)
    out = tmp_path / "out"
    assert main(["batch", str(tmp_path / "a"), str(tmp_path / "b" / "two.vp"), "-o", str(out),
                 "-j", "1", "-q", "--targets", "glsl"]) == 0
    assert sorted(files_of(out)) == ["a/x/one.frag", "b/two.vert"]


def test_outputs_identical_whatever_the_number_of_jobs(tmp_path):
    trees, reports = [], []
    for jobs in ("1", "2", "3"):
        out = tmp_path / f"out{jobs}"
        r = xlate(["batch", "corpus", "-o", str(out), "-j", jobs, "-q", "--report",
                   str(tmp_path / f"r{jobs}.json")], cwd=ROOT)
        assert r.returncode == 0, r.stderr
        trees.append(files_of(out))
        rep = report(tmp_path / f"r{jobs}.json")
        rep["options"].pop("jobs"), rep["options"].pop("outdir"), rep["summary"].pop("seconds")
        reports.append(rep)
    assert len(trees[0]) == 3 * reports[0]["summary"]["programs"] > 60
    assert trees[0] == trees[1] == trees[2]
    assert reports[0] == reports[1] == reports[2]
    # and the same bytes as `xlate convert`
    for target, suffix in (("glsl", ""), ("reflect", ".reflect.json")):
        r = subprocess.run([sys.executable, "-m", "xlate.cli", "convert", "--target", target,
                            "corpus/examples/bright_pass.fp"], cwd=ROOT, capture_output=True)
        assert trees[0]["examples/bright_pass.frag" + suffix] == r.stdout
    assert main(["convert", "--target", "spirv", str(ROOT / "corpus/examples/bright_pass.fp"),
                 "-o", str(tmp_path / "b.spv")]) == 0
    assert trees[0]["examples/bright_pass.frag.spv"] == (tmp_path / "b.spv").read_bytes()


def test_cache_skips_unchanged_inputs(tmp_path, capsys):
    src = make_tree(tmp_path)
    (src / "bad.fp").unlink()
    out = tmp_path / "out"
    rep = tmp_path / "r.json"
    args = ["batch", str(src), "-o", str(out), "-j", "1", "-q", "--report", str(rep)]
    assert main(args) == 0
    first = files_of(out)
    stamps = {p: os.stat(out / p).st_mtime_ns for p in first}
    assert main(args) == 0
    assert report(rep)["summary"]["cached"] == 4 and report(rep)["summary"]["translated"] == 0
    assert {p: os.stat(out / p).st_mtime_ns for p in first} == stamps     # nothing rewritten
    assert all(f["cached"] for f in report(rep)["files"] if f["status"] != "skipped")
    assert (out / ".xlate-cache").is_dir()
    # an edited input, a deleted output, other options: translated again
    (src / "water.fp").write_text(GOOD_FP.replace("MUL", "ADD"))
    (out / "sub" / "water.vert.spv").unlink()
    assert main(args) == 0
    again = {f["source"]: f["cached"] for f in report(rep)["files"] if f["status"] != "skipped"}
    assert again == {str(src / "sub" / "vertex_program.txt"): True,
                     str(src / "sub" / "water.vp"): False, str(src / "warn.fp"): True,
                     str(src / "water.fp"): False}
    assert files_of(out)["sub/water.vert.spv"] == first["sub/water.vert.spv"]
    assert "ADD" not in first["water.frag"].decode() and "+" in files_of(out)["water.frag"].decode()
    assert main(args + ["--targets", "glsl"]) == 0
    assert report(rep)["summary"]["translated"] == 4
    assert main(args + ["--no-cache"]) == 0
    assert report(rep)["summary"]["translated"] == 4
    # a cached failure is still a failure, with its diagnostics
    (src / "bad.fp").write_text(BROKEN_FP)
    args = ["batch", str(src), "-o", str(out), "-j", "1", "--targets", "glsl"]
    assert main(args) == 1
    capsys.readouterr()
    assert main(args) == 1
    err = capsys.readouterr().err
    assert "error[E2003]" in err and "0 translated, 5 unchanged" in err


def test_code_fingerprint(tmp_path):
    """Edits to the package or its templates change the cache key; other files do not."""
    code_fingerprint = REAL_FINGERPRINT
    pkg = tmp_path / "xlate"
    (pkg / "backends").mkdir(parents=True)
    (pkg / "verify").mkdir()
    (tmp_path / "templates" / "glsl").mkdir(parents=True)
    (tmp_path / "pyproject.toml").write_text("")
    (pkg / "backends" / "glsl.py").write_text("x = 1\n")
    (pkg / "verify" / "core.py").write_text("y = 1\n")
    (tmp_path / "templates" / "glsl" / "ops.txt").write_text("ADD  F  {a} + {b}\n")
    first = code_fingerprint(pkg)
    assert code_fingerprint(pkg) == first
    (pkg / "verify" / "core.py").write_text("y = 2\n")            # not part of a translation
    assert code_fingerprint(pkg) == first
    (tmp_path / "templates" / "glsl" / "ops.txt").write_text("ADD  F  {b} + {a}\n")
    second = code_fingerprint(pkg)
    assert second != first
    (pkg / "backends" / "glsl.py").write_text("x = 2\n")
    assert code_fingerprint(pkg) not in (first, second)


def test_cache_dir_from_environment(tmp_path, monkeypatch):
    src = make_tree(tmp_path)
    cache = tmp_path / "cache"
    monkeypatch.setenv("XLATE_CACHE_DIR", str(cache))
    out = tmp_path / "out"
    main(["batch", str(src), "-o", str(out), "-j", "1", "-q", "--targets", "glsl"])
    assert not (out / ".xlate-cache").exists()
    assert len(list((cache / "batch").rglob("*.json"))) == 5


def test_internal_error_of_one_file_does_not_stop_the_batch(tmp_path, monkeypatch):
    from xlate.batch import outputs
    src = make_tree(tmp_path)
    real = outputs.translate_outputs

    def flaky(text, filename, *a, **kw):
        if filename.endswith("water.fp"):
            raise RuntimeError("boom")
        return real(text, filename, *a, **kw)
    monkeypatch.setattr(outputs, "translate_outputs", flaky)
    out = tmp_path / "out"
    assert main(["batch", str(src), "-o", str(out), "-j", "1", "-q", "--targets", "glsl",
                 "--report", str(tmp_path / "r.json")]) == 1
    files = {Path(f["source"]).name: f for f in report(tmp_path / "r.json")["files"]}
    assert files["water.fp"]["diagnostics"][0]["code"] == "E7005"
    assert "RuntimeError: boom" in files["water.fp"]["diagnostics"][0]["message"]
    assert files["warn.fp"]["status"] == "warning"
    # internal errors are not cached: fixed, the next run translates the file
    monkeypatch.setattr(outputs, "translate_outputs", real)
    main(["batch", str(src), "-o", str(out), "-j", "1", "-q", "--targets", "glsl",
          "--report", str(tmp_path / "r.json")])
    files = {Path(f["source"]).name: f for f in report(tmp_path / "r.json")["files"]}
    assert files["water.fp"]["status"] == "ok" and not files["water.fp"]["cached"]


def test_pool_broken_between_waits_loses_no_group(monkeypatch):
    """A worker can die after one wait() and before the next submit(); submit() then raises
    BrokenProcessPool at once (CI on 2 cores hit this: the batch died with a traceback).
    The groups in flight are re-run alone, the refused one goes to a fresh pool, and every
    group is finished exactly once."""
    import concurrent.futures
    from concurrent.futures import Future
    from concurrent.futures.process import BrokenProcessPool
    from xlate.batch import runner

    submits = []

    class Pool:                       # a pool whose 3rd task breaks it and 4th submit is refused
        def __init__(self, max_workers, **kw):
            self.max_workers = max_workers

        def submit(self, fn, arg):
            submits.append(arg)
            n = len(submits)
            if n == 4:
                raise BrokenProcessPool("a child process terminated abruptly")
            fut = Future()
            if n == 3:
                fut.set_exception(BrokenProcessPool("a child process terminated abruptly"))
            else:
                fut.set_result(fn(arg))
            return fut

        def shutdown(self, wait=True, cancel_futures=False):
            pass

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", Pool)
    monkeypatch.setattr(runner, "_translate_group", lambda group: [f"done {g}" for g in group])
    work = [[f"g{i}"] for i in range(6)]
    finished = []
    runner._run_pool(work, work, {}, 1, lambda group, records: finished.append((group, records)))
    assert sorted(finished) == [([f"g{i}"], [f"done g{i}"]) for i in range(6)]
    # g2 broke the pool: it ran again alone; g3 was refused and went to the next pool
    assert submits == [["g0"], ["g1"], ["g2"], ["g3"], ["g2"], ["g3"], ["g4"], ["g5"]]


def test_html_report_links_source_lines_to_glsl(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(ROOT / "corpus" / "examples" / "bright_pass.fp", src)
    (src / "bad.fp").write_text(BROKEN_FP)
    out, page = tmp_path / "out", tmp_path / "report.html"
    assert main(["batch", str(src), "-o", str(out), "-j", "1", "-q", "--report", str(page)]) == 1
    html = page.read_text()
    # self-contained: no external resources
    for needle in ("http://", "https://", "<link", " src=", "@import"):
        assert needle not in html
    start = html.index('<script type="application/json" id="xlate-data">') + 48
    data = json.loads(html[start:html.index("</script>", start)])
    assert len(data) == 2
    bad, good = data
    assert "error[E2003]: undeclared name 'b'" in bad["diag"][0] and "^" in bad["diag"][0]
    assert bad["glsl"] == ""
    src_lines, glsl_lines = good["src"].split("\n"), good["glsl"].split("\n")
    assert good["glsl"] == (out / "bright_pass.frag").read_text()
    assert len(good["map"]) == len(glsl_lines)
    links = {glsl_lines[i].strip(): src_lines[s - 1].strip() for i, s in enumerate(good["map"]) if s}
    # the DP3 read once is written inside the SUB that reads it: the statement is the SUB's
    assert links["y.x = xl_dp3(texel, vec4(0.2126, 0.7152, 0.0722, 0.0)) - program_local[0].z;"] \
        .startswith("SUB.CC y.x, y.x, setup.z;")
    assert links["sum = vec4(0.0);"] == "MOV sum, 0;"
    assert links["if (y.x > 0.0)"] == "IF GT.x;"        # the test reads the SUB.CC's register
    assert any(v.startswith("REP 5;") for v in links.values())
    # every source line of an instruction is linked; declarations produce no code lines
    linked = {s for s in good["map"] if s}
    assert src_lines.index("MOV sum, 0;") + 1 in linked
    assert src_lines.index("TEMP coord, texel, sum, y;") + 1 not in linked
    # the summary table is plain HTML
    assert '<span class="badge error">error</span>' in html and "bright_pass.fp" in html


def test_progress_bar_on_a_terminal(tmp_path):
    import pty
    src = make_tree(tmp_path)
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "xlate.cli", "batch", str(src), "-o",
                             str(tmp_path / "out"), "-j", "2", "-q", "--targets", "glsl"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=slave,
                            env=env_without_cache_dir(NO_COLOR="1"))
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
    assert "\r\x1b[K[" in text and "5/5" in text and "1 failed" in text and "files/s" in text
    assert text.rstrip().splitlines()[-1].lstrip("\r\x1b[K").startswith("xlate batch: 5 programs")


@pytest.mark.slow
def test_sigkill_leaves_complete_outputs_and_the_next_run_resumes(tmp_path):
    """Runs in subprocesses, which see the real code fingerprint: when the checkout is edited
    while the test runs (several developers at work), the resumed run rightly misses the
    cache; the test then tries again."""
    for attempt in range(3):
        before = REAL_FINGERPRINT()
        try:
            sigkill_and_resume(tmp_path / f"attempt{attempt}")
            return
        except AssertionError:
            if REAL_FINGERPRINT() == before:
                raise


def sigkill_and_resume(tmp_path):
    tmp_path.mkdir()
    # enough programs for a one-process run to take a few seconds
    src = tmp_path / "src"
    for copy in range(6):
        shutil.copytree(EXAMPLES / "nv4", src / f"c{copy}",
                        ignore=shutil.ignore_patterns("*.glsl", "*.json", "*.rejected"))
    total = len(list(src.rglob("*.*p")))
    ref = tmp_path / "ref"
    r = xlate(["batch", "src", "-o", str(ref), "-j", "2", "-q"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    reference = files_of(ref)
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "xlate.cli", "batch", "src", "-o", str(out),
                             "-j", "1", "-q"], cwd=tmp_path, env=env_without_cache_dir(),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    cache = out / ".xlate-cache"
    deadline = time.monotonic() + 60
    while len(list(cache.rglob("*.json"))) < 5 and time.monotonic() < deadline:
        assert proc.poll() is None, "the batch ended before it could be killed"
        time.sleep(0.01)
    os.killpg(proc.pid, signal.SIGKILL)
    assert proc.wait() == -signal.SIGKILL
    done = len(list(cache.rglob("*.json")))
    assert 5 <= done < total
    # no partial output: every file in the tree is complete (temporaries live in .xlate-tmp)
    partial = files_of(out)
    assert partial and all(reference[p] == data for p, data in partial.items())
    r = xlate(["batch", "src", "-o", str(out), "-j", "2", "--report", "r.json"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    summary = report(tmp_path / "r.json")["summary"]
    assert summary["cached"] >= done and summary["cached"] + summary["translated"] == total
    assert summary["translated"] > 0
    assert files_of(out) == reference
    assert not list((out / ".xlate-tmp").iterdir()) if (out / ".xlate-tmp").exists() else True


def test_batch_does_not_import_numpy_or_moderngl(tmp_path):
    src = make_tree(tmp_path)
    r = subprocess.run([sys.executable, "-X", "importtime", "-m", "xlate.cli", "batch", str(src),
                        "-o", str(tmp_path / "out"), "-j", "1", "-q"], capture_output=True,
                       text=True, env=env_without_cache_dir())
    modules = {line.split("|")[-1].strip() for line in r.stderr.splitlines()
               if line.startswith("import time:")}
    # (modules imported through importlib.import_module are not logged; their imports are)
    assert r.returncode == 1 and "xlate.batch.outputs" in modules
    assert not {m for m in modules if m.split(".")[0] in ("numpy", "moderngl")}


def test_a_crashing_worker_is_isolated_and_the_batch_goes_on(tmp_path):
    """A worker process that dies (as on a segfault in a native library) fails only the input
    it was translating (E7005); every other input is translated."""
    src = tmp_path / "src"
    src.mkdir()
    for i in range(12):
        (src / f"p{i:02}.fp").write_text(GOOD_FP)
    (src / "crash.fp").write_text(GOOD_FP)
    script = f"""
import os, signal, sys
from xlate.batch import cache, outputs, runner
real = outputs.translate_outputs
def crashing(text, filename, *a, **kw):
    if filename.endswith("crash.fp"):
        os.kill(os.getpid(), signal.SIGSEGV)
    return real(text, filename, *a, **kw)
outputs.translate_outputs = crashing
s = runner.run_batch([{str(src)!r}], {str(tmp_path / 'out')!r}, jobs=2, targets=("glsl",))
from xlate.batch.report import write_report
write_report(s, {str(tmp_path / 'r.json')!r})
sys.exit(s.exit_code)
"""
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                       env=env_without_cache_dir(), timeout=120)
    assert r.returncode == 1, r.stderr
    files = {Path(f["source"]).name: f for f in report(tmp_path / "r.json")["files"]}
    assert files["crash.fp"]["diagnostics"][0]["code"] == "E7005"
    assert "died" in files["crash.fp"]["diagnostics"][0]["message"]
    assert [n for n, f in files.items() if f["status"] != "ok"] == ["crash.fp"]
    assert len(list((tmp_path / "out").glob("p*.frag"))) == 12
