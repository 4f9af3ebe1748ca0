"""Verify many programs in worker processes, with a time limit per program.

Used by ``tools/diffcheck.py`` (and its test).  Each worker holds one runner (a GL context or
a Vulkan device) and verifies the programs it takes from a queue; a program that does not
finish within ``timeout`` seconds (a translation looping forever on the implementation) is
recorded as ``timeout`` and the workers are restarted; a worker that dies (a driver crash) is
replaced.
"""
from __future__ import annotations

import multiprocessing as mp
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _worker(conn, backend: str, lanes: int, seed: int, localize: bool) -> None:
    """Verify the paths the parent sends through ``conn``, one at a time."""
    os.environ.setdefault("EGL_PLATFORM", "surfaceless")
    sys.path.insert(0, str(ROOT))
    from xlate.verify.core import make_runner, verify_source
    from xlate.verify.glapi import GLUnavailable
    try:
        runner = make_runner(backend)
    except GLUnavailable as e:
        conn.send(("unavailable", str(e)))
        return
    conn.send(("ready", None))
    while True:
        try:
            path = conn.recv()
        except EOFError:
            return
        if path is None:
            return
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
            conn.send(("unavailable", str(e)))
            return
        except Exception as e:                     # a crash of the verifier itself
            import traceback
            doc = {"file": path, "status": "crash", "reason": f"{type(e).__name__}: {e}",
                   "traceback": traceback.format_exc()[-2000:]}
        conn.send(("done", doc))


class _Slot:
    def __init__(self, ctx, args):
        self.parent, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker, args=(child,) + args, daemon=True)
        self.proc.start()
        child.close()
        self.task: int | None = None
        self.start = 0.0
        self.ready = False

    def kill(self) -> None:
        self.proc.kill()
        self.proc.join(5)
        self.parent.close()


def run_all(paths: list[str], *, backend="gl", lanes=1024, seed=1, jobs=1, timeout=120.0,
            localize=True, progress=None) -> list[dict]:
    """Verify every path; returns one report dict (``ProgramReport.to_json``) per path, in
    order, with status ``timeout``/``crash`` where the verifier could not finish.  Raises
    RuntimeError when no implementation is available.

    Each worker process has its own pipe and runs one program at a time, so a program that
    exceeds ``timeout`` (or a worker that dies) is attributed exactly: that worker is killed
    and replaced, the others carry on."""
    from multiprocessing.connection import wait
    ctx = mp.get_context("spawn")
    args = (backend, lanes, seed, localize)
    todo = list(range(len(paths)))[::-1]
    docs: list[dict | None] = [None] * len(paths)
    slots = [_Slot(ctx, args) for _ in range(max(1, min(jobs, len(paths))))]

    def finish(idx, doc):
        docs[idx] = doc
        if progress:
            progress(idx, doc)

    def dispatch(slot):
        if todo and slot.ready:
            slot.task = todo.pop()
            slot.start = time.time()
            slot.parent.send(paths[slot.task])

    try:
        while any(d is None for d in docs):
            ready = wait([s.parent for s in slots] + [s.proc.sentinel for s in slots], 1.0)
            now = time.time()
            for i, slot in enumerate(list(slots)):
                msg = None
                if slot.parent in ready:
                    try:
                        msg = slot.parent.recv()
                    except (EOFError, OSError):
                        msg = ("died", None)
                elif slot.proc.sentinel in ready and not slot.proc.is_alive():
                    msg = ("died", None)
                if msg is not None:
                    kind, payload = msg
                    if kind == "unavailable":
                        raise RuntimeError(payload)
                    if kind == "ready":
                        slot.ready = True
                    elif kind == "done":
                        finish(slot.task, payload)
                        slot.task = None
                    elif kind == "died":
                        if slot.task is not None:
                            finish(slot.task, {"file": paths[slot.task], "status": "crash",
                                               "reason": "the worker process died"})
                        slot.kill()
                        slots[i] = slot = _Slot(ctx, args)
                elif slot.task is not None and now - slot.start > timeout:
                    finish(slot.task, {"file": paths[slot.task], "status": "timeout",
                                       "reason": f"no result within {timeout:.0f} s"})
                    slot.kill()
                    slots[i] = slot = _Slot(ctx, args)
                if slot.task is None:
                    dispatch(slot)
    finally:
        for slot in slots:
            try:
                slot.parent.send(None)
            except (OSError, BrokenPipeError):
                pass
        for slot in slots:
            slot.proc.join(2)
            if slot.proc.is_alive():
                slot.kill()
    return [d for d in docs if d is not None]
