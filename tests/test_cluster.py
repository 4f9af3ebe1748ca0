"""``--cluster``: batch, verify and diffcheck on a Dask cluster give what the local pool gives.

The cluster is a real one, started by this module (a scheduler and two worker processes on this
machine, ``distributed.LocalCluster``); the commands connect to its TCP address as they would
to a remote one.  Skips without the ``xlate[cluster]`` extra (fails under
XLATE_REQUIRE_CLUSTER=1, as CI sets it).
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from conftest import gl_runner, missing
from xlate.cli import main

ROOT = Path(__file__).resolve().parents[1]
REQUIRE_CLUSTER = "XLATE_REQUIRE_CLUSTER"

GOOD_FP = "!!ARBfp1.0\nTEMP t;\nMUL t, fragment.color, program.local[0];\nMOV result.color, t;\nEND\n"
GOOD_VP = ("!!ARBvp1.0\nDP4 result.position.x, state.matrix.mvp.row[0], vertex.position;\n"
           "DP4 result.position.y, state.matrix.mvp.row[1], vertex.position;\n"
           "DP4 result.position.z, state.matrix.mvp.row[2], vertex.position;\n"
           "DP4 result.position.w, state.matrix.mvp.row[3], vertex.position;\n"
           "MOV result.color, vertex.color;\nEND\n")
BROKEN_FP = "!!ARBfp1.0\nMOV result.color, nothing;\nEND\n"


@pytest.fixture(scope="module")
def cluster_address():
    try:
        import distributed
    except ImportError as e:
        missing(REQUIRE_CLUSTER, f"the cluster extra is not installed ({e}): "
                "pip install 'xlate[cluster]'")
    import logging
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None, silence_logs=logging.CRITICAL)
    try:
        yield cluster.scheduler_address
    finally:
        cluster.close()


@pytest.fixture(autouse=True)
def own_cache(monkeypatch):
    # each output folder keeps its own cache (OUTDIR/.xlate-cache), as without XLATE_CACHE_DIR
    monkeypatch.delenv("XLATE_CACHE_DIR", raising=False)


def make_tree(root: Path) -> Path:
    src = root / "src"
    (src / "sub").mkdir(parents=True)
    (src / "water.fp").write_text(GOOD_FP)
    (src / "water.fp2").write_text(GOOD_FP)        # same output name: E8002 for the second
    (src / "sub" / "water.vp").write_text(GOOD_VP)
    (src / "bad.fp").write_text(BROKEN_FP)
    (src / "notes.md").write_text("not a program\n")
    for k in range(12):                            # enough groups for several cluster tasks
        (src / "sub" / f"p{k:02d}.fp").write_text(GOOD_FP.replace("local[0]", f"local[{k}]"))
    return src


def files_of(out: Path) -> dict[str, bytes]:
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*"))
            if p.is_file() and not p.relative_to(out).as_posix().startswith(".xlate-")}


def comparable(report_path: Path) -> dict:
    doc = json.loads(report_path.read_text())
    doc["summary"].pop("seconds")
    doc["options"].pop("jobs")
    doc["options"].pop("outdir")
    return doc


def test_batch_on_the_cluster_gives_the_local_outputs_cache_and_report(tmp_path, cluster_address,
                                                                         capsys):
    src = make_tree(tmp_path)
    assert main(["batch", str(src), "-o", str(tmp_path / "local"), "-j", "2",
                 "--report", str(tmp_path / "local.json")]) == 1
    local_err = capsys.readouterr().err
    assert main(["batch", str(src), "-o", str(tmp_path / "remote"), "--cluster", cluster_address,
                 "--report", str(tmp_path / "remote.json")]) == 1
    remote_err = capsys.readouterr().err
    assert files_of(tmp_path / "local") == files_of(tmp_path / "remote")
    assert len(files_of(tmp_path / "remote")) == 3 * 14       # 14 programs translated
    local, remote = comparable(tmp_path / "local.json"), comparable(tmp_path / "remote.json")
    assert remote == local
    statuses = {f["source"].rsplit("/", 1)[-1]: f["status"] for f in remote["files"]}
    assert statuses["bad.fp"] == "error" and statuses["water.fp2"] == "error"
    assert "is not translated: its outputs water.frag, " in json.dumps(remote["files"])
    # the same diagnostics, in the same order; the summary says where the work ran
    assert remote_err.splitlines()[:-1] == local_err.splitlines()[:-1]
    summary = remote_err.splitlines()[-1]
    assert summary.startswith("xlate batch: 16 programs: 14 ok (0 with warnings), 2 with errors; "
                              "1 other files skipped; 15 translated, 0 unchanged (cache);")
    assert summary.endswith(f"2 jobs on cluster {cluster_address}")
    # the client wrote the cache: a second run, locally or on the cluster, translates only the
    # `water` group again (an output-name clash, E8002, is never cached) ...
    assert main(["batch", str(src), "-o", str(tmp_path / "remote"), "-q", "-j", "1"]) == 1
    assert "1 translated, 14 unchanged (cache)" in capsys.readouterr().err
    # ... and what changed
    (src / "sub" / "p03.fp").write_text(GOOD_FP.replace("local[0]", "local[7]"))
    assert main(["batch", str(src), "-o", str(tmp_path / "remote"), "-q",
                 "--cluster", cluster_address]) == 1
    assert "2 translated, 13 unchanged (cache)" in capsys.readouterr().err


def test_verify_on_the_cluster_gives_the_local_reports(tmp_path, cluster_address, capsys):
    gl_runner("gl")
    files = [str(ROOT / "corpus/examples/bright_pass.fp"), str(tmp_path / "bad.fp"),
             str(tmp_path / "water.vp")]
    (tmp_path / "bad.fp").write_text(BROKEN_FP)
    (tmp_path / "water.vp").write_text(GOOD_VP)
    runs = {}
    for name, extra in (("local", []), ("remote", ["--cluster", cluster_address])):
        code = main(["verify", *files, "--lanes", "64", "--json", str(tmp_path / f"{name}.json"),
                     *extra])
        out, err = capsys.readouterr()
        doc = json.loads((tmp_path / f"{name}.json").read_text())
        for p in doc["programs"]:
            p.pop("seconds")
        runs[name] = (code, out, err, doc)
    assert runs["remote"] == runs["local"]
    code, out, err, doc = runs["remote"]
    assert code == 1                                       # bad.fp does not parse
    assert out.splitlines()[-1] == "summary: 1 error, 2 pass"
    assert "error[E" in err and "nothing" in err
    assert doc["implementation"].startswith("gl on ")


def test_diffcheck_batch_on_the_cluster_with_its_time_limit(tmp_path, cluster_address):
    gl_runner("gl")
    from xlate.verify.batch import run_all
    paths = [str(ROOT / "corpus/examples/bright_pass.fp"), str(tmp_path / "water.vp")]
    (tmp_path / "water.vp").write_text(GOOD_VP)
    local = run_all(paths, lanes=64, jobs=1, timeout=300)
    remote = run_all(paths, lanes=64, timeout=300, cluster=cluster_address)
    for d in local + remote:
        d.pop("seconds")
    assert remote == local
    assert [d["status"] for d in remote] == ["pass", "pass"]
    # a program over the limit is a `timeout` and its worker's child is replaced: the next
    # program verifies normally
    short = run_all(paths, lanes=64, timeout=1e-4, cluster=cluster_address)
    assert [d["status"] for d in short] == ["timeout", "timeout"]
    assert short[0]["reason"] == "no result within 0 s"
    again = run_all(paths[:1], lanes=64, timeout=300, cluster=cluster_address)
    assert again[0]["status"] == "pass"


def test_without_the_extra_one_line_and_exit_3(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "distributed", None)       # import distributed fails
    src = make_tree(tmp_path)
    assert main(["batch", str(src), "-o", str(tmp_path / "out"), "--cluster", "local"]) == 3
    err = capsys.readouterr().err
    assert err == ("xlate: error: --cluster needs the optional extra: "
                   "python3 -m pip install 'xlate[cluster]'\n")
    assert main(["verify", str(src / "water.fp"), "--cluster", "tcp://127.0.0.1:9"]) == 3
    assert capsys.readouterr().err == ("xlate verify: error: --cluster needs the optional extra: "
                                       "python3 -m pip install 'xlate[cluster]'\n")


def test_cluster_address_checked_by_the_parser(tmp_path, capsys):
    for bad in ("local:0", "local:x", ""):
        assert main(["batch", str(tmp_path), "-o", str(tmp_path / "o"), "--cluster", bad]) == 2
        assert f"invalid cluster address {bad!r}" in capsys.readouterr().err


def test_a_scheduler_that_does_not_answer_exits_3(tmp_path, monkeypatch, capsys):
    pytest.importorskip("distributed", reason="the cluster extra is not installed")
    from xlate import cluster
    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT_S", 1)
    (tmp_path / "a.fp").write_text(GOOD_FP)
    assert main(["batch", str(tmp_path / "a.fp"), "-o", str(tmp_path / "o"), "-q",
                 "--cluster", "tcp://127.0.0.1:9"]) == 3
    err = capsys.readouterr().err
    assert err.startswith("xlate: error: cannot reach the cluster at tcp://127.0.0.1:9: ")
    assert len(err.splitlines()) == 1
    # nothing was translated or written
    assert not (tmp_path / "o" / "a.frag").exists()
    assert os.listdir(tmp_path / "o") in ([], [".xlate-cache"], [".xlate-cache", ".xlate-tmp"],
                                          [".xlate-tmp", ".xlate-cache"])


def test_imap_keeps_a_window_and_reports_failed_tasks(cluster_address):
    import operator
    from xlate.cluster import TaskFailed, connect
    with connect(cluster_address) as cluster:
        assert cluster.workers == 2 and cluster.window() == 16
        items = list(range(50)) + ["x"]                 # -"x" raises TypeError on the worker
        got = dict(cluster.imap(operator.neg, items))
    assert sorted(got) == list(range(51))
    assert all(got[i] == -i for i in range(50))
    assert isinstance(got[50], TaskFailed) and str(got[50]).startswith("TypeError: bad operand")


def test_ctrl_c_stops_verify_on_the_cluster_with_one_line(tmp_path):
    """Ctrl-C (SIGINT to the whole process group, as a terminal sends it) during ``xlate verify
    --cluster local:2``: exit 130 with 'xlate: interrupted', no traceback from the client, the
    workers or their verifying children (which ignore the signal and end with their pipe), and
    nothing of the run left in its process group."""
    import signal
    import subprocess
    import time
    try:
        import distributed  # noqa: F401
    except ImportError as e:
        missing(REQUIRE_CLUSTER, f"the cluster extra is not installed ({e})")
    gl_runner("gl")
    files = []
    for k in range(120):
        f = tmp_path / f"p{k:03d}.fp"
        f.write_text(GOOD_FP.replace("local[0]", f"local[{k}]"))
        files.append(str(f))
    # unbuffered: the first PASS line must arrive while the run is under way (a pipe is
    # block-buffered, and the whole run's lines could come only at its end: CI saw rc 0)
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1")
    p = subprocess.Popen([sys.executable, "-m", "xlate", "verify", "--lanes", "64",
                          "--cluster", "local:2"] + files, cwd=tmp_path, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True,
                         # a terminal's foreground job: SIGINT at its default even where this
                         # test runs in a background job that ignores it (nohup ... &)
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        first = p.stdout.readline()             # the first program verified: work under way
        assert first.startswith("PASS "), first
        os.killpg(p.pid, signal.SIGINT)
        out, err = p.communicate(timeout=600)   # (generous: a loaded CI machine)
        assert p.returncode == 130, (out[-500:], err[-2000:])
        assert "xlate: interrupted" in err.splitlines(), err[-2000:]
        assert "Traceback" not in err and "Traceback" not in out, err[-3000:]
        for _ in range(120):                    # the workers' children end with their pipes
            left = subprocess.run(["pgrep", "-g", str(p.pid)], capture_output=True, text=True)
            if not left.stdout.strip():
                break
            time.sleep(1)
        assert not left.stdout.strip(), left.stdout
    finally:
        try:
            os.killpg(p.pid, signal.SIGKILL)    # whatever a failure left behind
        except ProcessLookupError:
            pass
