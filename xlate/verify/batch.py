"""Verify many programs in worker processes, with a time limit per program.

Used by ``tools/diffcheck.py`` (and its test).  Each worker holds one GL context and verifies
the programs it takes from a queue; a program that does not finish within ``timeout``
seconds (a translation looping forever on the implementation) is recorded as ``timeout``
and the workers are restarted; a worker that dies (a driver crash) is replaced.
"""
from __future__ import annotations

import multiprocessing as mp
import os
import queue
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _worker(tasks, results, backend: str, lanes: int, seed: int, localize: bool) -> None:
    os.environ.setdefault("EGL_PLATFORM", "surfaceless")
    sys.path.insert(0, str(ROOT))
    from xlate.verify.core import verify_source
    from xlate.verify.gl import Runner
    from xlate.verify.glapi import GLUnavailable
    try:
        runner = Runner(backend)
    except GLUnavailable as e:
        results.put(("unavailable", None, str(e)))
        return
    while True:
        item = tasks.get()
        if item is None:
            return
        idx, path = item
        results.put(("start", idx, time.time()))
        try:
            with open(path, "rb") as f:
                data = f.read()
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                text = data.decode("latin-1")
            rep = verify_source(text, path, lanes=lanes, seed=seed, backend=backend,
                                runner=runner, localize=localize)
            doc = rep.to_json()
        except GLUnavailable as e:
            results.put(("unavailable", idx, str(e)))
            return
        except Exception as e:                     # a crash of the verifier itself
            import traceback
            doc = {"file": path, "status": "crash", "reason": f"{type(e).__name__}: {e}",
                   "traceback": traceback.format_exc()[-2000:]}
        results.put(("done", idx, doc))


def run_all(paths: list[str], *, backend="gl", lanes=1024, seed=1, jobs=1, timeout=120.0,
            localize=True, progress=None) -> list[dict]:
    """Verify every path; returns one report dict (``ProgramReport.to_json``) per path, in
    order, with status ``timeout``/``crash`` where the verifier could not finish.  Raises
    RuntimeError when no implementation is available."""
    ctx = mp.get_context("spawn")
    tasks, results = ctx.Queue(), ctx.Queue()
    for i, p in enumerate(paths):
        tasks.put((i, p))
    docs: list[dict | None] = [None] * len(paths)
    workers: dict[int, tuple] = {}         # slot -> (process, current task, start)

    def spawn(slot):
        proc = ctx.Process(target=_worker, args=(tasks, results, backend, lanes, seed, localize),
                           daemon=True)
        proc.start()
        workers[slot] = [proc, None, None]

    n_jobs = max(1, min(jobs, len(paths)))
    for slot in range(n_jobs):
        spawn(slot)
    remaining = len(paths)
    started_by = {}
    while remaining:
        try:
            kind, idx, payload = results.get(timeout=1.0)
        except queue.Empty:
            kind = None
        now = time.time()
        if kind == "unavailable":
            for w in workers.values():
                w[0].kill()
            raise RuntimeError(payload)
        if kind == "start":
            started_by[idx] = payload
        elif kind == "done":
            if docs[idx] is None:
                docs[idx] = payload
                remaining -= 1
                if progress:
                    progress(idx, payload)
        # time limits: a task started long ago and not done -> kill every worker that may be
        # running it (we do not know which one), restart them, and record a timeout
        for idx2, t0 in list(started_by.items()):
            if docs[idx2] is not None:
                del started_by[idx2]
                continue
            if now - t0 > timeout:
                docs[idx2] = {"file": paths[idx2], "status": "timeout",
                              "reason": f"no result within {timeout:.0f} s"}
                remaining -= 1
                del started_by[idx2]
                if progress:
                    progress(idx2, docs[idx2])
                # restart all workers: the hung one is among them; tasks in flight elsewhere
                # are requeued
                for slot, w in list(workers.items()):
                    w[0].kill()
                    w[0].join()
                for idx3 in list(started_by):
                    if docs[idx3] is None:
                        tasks.put((idx3, paths[idx3]))
                started_by.clear()
                for slot in list(workers):
                    spawn(slot)
                break
        for slot, w in list(workers.items()):
            if not w[0].is_alive() and remaining:
                # a crashed worker (e.g. a driver abort): its task runs into the time limit
                spawn(slot)
    for _ in workers:
        tasks.put(None)
    for w in workers.values():
        w[0].join(timeout=5)
        if w[0].is_alive():
            w[0].kill()
    return [d for d in docs if d is not None]


