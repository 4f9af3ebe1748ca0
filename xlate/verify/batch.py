"""Verify many programs in worker processes, with a time limit per program.

Used by ``tools/diffcheck.py`` (and its test).  Each worker holds one runner (a GL context or
a Vulkan device) and verifies the programs it takes from a queue; a program that does not
finish within ``timeout`` seconds (a translation looping forever on the implementation) is
recorded as ``timeout`` and the workers are restarted; a worker that dies (a driver crash) is
replaced.

With ``cluster=ADDRESS`` (``--cluster`` of ``xlate verify`` and ``tools/diffcheck.py``) the
programs go to a Dask cluster (:mod:`xlate.cluster`) instead: the client sends each program's
bytes, and on each worker a child process holds the runner and verifies them one at a time
(:func:`verify_remote`), so the time limit and a driver crash are handled the same way there
-- neither engine can stop a task that runs forever, but a worker can kill its child.
"""
from __future__ import annotations

import multiprocessing as mp
import os
import pickle
import select
import struct
import subprocess
import sys
import threading
import time
from functools import partial
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
            localize=True, progress=None, cluster: str | None = None) -> list[dict]:
    """Verify every path; returns one report dict (``ProgramReport.to_json``) per path, in
    order, with status ``timeout``/``crash`` where the verifier could not finish.  Raises
    RuntimeError when no implementation is available.

    Each worker process has its own pipe and runs one program at a time, so a program that
    exceeds ``timeout`` (or a worker that dies) is attributed exactly: that worker is killed
    and replaced, the others carry on.

    ``cluster``: verify on the Dask cluster at this address instead of ``jobs`` local
    processes (same reports; :class:`xlate.cluster.ClusterUnavailable` when it cannot be
    used)."""
    if cluster is not None:
        return _run_all_cluster(paths, cluster, backend=backend, lanes=lanes, seed=seed,
                                timeout=timeout, localize=localize, progress=progress)
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


# ---- on a cluster (xlate.cluster) ----------------------------------------------------------------
def _run_all_cluster(paths, address, *, backend, lanes, seed, timeout, localize,
                     progress) -> list[dict]:
    items = []
    for path in paths:
        with open(path, "rb") as f:
            items.append((path, f.read()))
    docs: list[dict | None] = [None] * len(paths)
    for idx, rep, _ in verify_on_cluster(address, items, backend=backend, lanes=lanes, seed=seed,
                                      timeout=timeout, localize=localize):
        docs[idx] = rep if isinstance(rep, dict) else rep.to_json()
        if progress:
            progress(idx, docs[idx])
    return [d for d in docs if d is not None]


def verify_on_cluster(address: str, items: list[tuple[str, bytes]], *, backend: str, lanes: int,
                      seed: int, timeout: float | None = None, localize: bool = True):
    """Verify ``(name, bytes)`` items on the cluster at ``address``; yields ``(index, report,
    implementation)`` as each finishes: the report a :class:`core.ProgramReport`, or a dict
    with status ``timeout``/``crash`` where the verifier could not finish; the implementation
    the worker's ``Runner.describe()`` (None when unknown).  Raises :class:`glapi.GLUnavailable`
    (a RuntimeError) when the workers have no implementation, and
    :class:`xlate.cluster.ClusterUnavailable`."""
    from ..cluster import TaskFailed, connect
    from .glapi import GLUnavailable
    task = partial(verify_remote, backend, lanes, seed, localize, timeout)
    with connect(address) as cluster:
        for idx, result in cluster.imap(task, items):
            if isinstance(result, TaskFailed):
                result = ("crash", f"the cluster task failed: {result}", None)
            kind, payload, implementation = result
            if kind == "unavailable":
                raise GLUnavailable(f"on a worker of {address}: {payload}")
            if kind in ("timeout", "crash"):
                payload = {"file": items[idx][0], "status": kind, "reason": payload}
            yield idx, payload, implementation


_FRAME = struct.Struct(">Q")
_children = threading.local()          # per worker thread: backend -> _Child


def _write_frame(f, obj) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    f.write(_FRAME.pack(len(data)) + data)
    f.flush()


def _read_exact(f, n: int) -> bytes:
    chunks, left = [], n
    while left:
        b = f.read(left)
        if not b:
            raise EOFError
        chunks.append(b)
        left -= len(b)
    return b"".join(chunks)


def _read_frame(f):
    (n,) = _FRAME.unpack(_read_exact(f, _FRAME.size))
    return pickle.loads(_read_exact(f, n))


def serve_child(backend: str) -> None:
    """Main of the child process a cluster worker starts (:class:`_Child`): make the runner,
    then verify ``(name, data, lanes, seed, localize)`` frames from standard input, answering
    on the original standard output (fd 1 then points at stderr: nothing else writes there)."""
    import signal
    # Ctrl-C reaches the whole process group: the client stops the run and the cluster, and
    # this child ends when its pipe closes -- not with a KeyboardInterrupt of its own
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    inp = sys.stdin.buffer
    try:
        _serve(out, inp, backend)
    except BrokenPipeError:
        os._exit(0)             # the worker went away (the run was stopped): nothing to answer


def _serve(out, inp, backend: str) -> None:
    os.environ.setdefault("EGL_PLATFORM", "surfaceless")
    from .core import make_runner, verify_source
    from .glapi import GLUnavailable
    try:
        runner = make_runner(backend)
    except GLUnavailable as e:
        _write_frame(out, ("unavailable", str(e)))
        return
    _write_frame(out, ("ready", runner.describe()))
    while True:
        try:
            item = _read_frame(inp)
        except EOFError:
            return
        if item is None:
            return
        name, data, lanes, seed, localize = item
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text = data.decode("latin-1")
        try:
            rep = verify_source(text, name, lanes=lanes, seed=seed, backend=backend,
                                runner=runner, localize=localize)
        except GLUnavailable as e:
            _write_frame(out, ("unavailable", str(e)))
            return
        except Exception as e:                     # a crash of the verifier itself
            import traceback
            rep = {"file": name, "status": "crash", "reason": f"{type(e).__name__}: {e}",
                   "traceback": traceback.format_exc()[-2000:]}
        _write_frame(out, ("done", rep))


class _Child:
    """The child process of :func:`serve_child`, started with the worker's Python and the
    xlate it imports (a subprocess, not multiprocessing: Dask's worker processes are daemons,
    which multiprocessing forbids to have children)."""

    def __init__(self, backend: str):
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
        env.setdefault("EGL_PLATFORM", "surfaceless")
        self.proc = subprocess.Popen(
            [sys.executable, "-c", f"from xlate.verify.batch import serve_child; "
             f"serve_child({backend!r})"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            bufsize=0, env=env)
        kind, self.implementation = self.receive(None)
        if kind != "ready":
            self.kill()
            raise _ChildUnavailable(self.implementation)

    def send(self, item) -> None:
        _write_frame(self.proc.stdin, item)

    def receive(self, timeout: float | None):
        """The next answer; TimeoutError after ``timeout`` seconds; EOFError when it died."""
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if not ready:
            raise TimeoutError
        return _read_frame(self.proc.stdout)

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait(5)


class _ChildUnavailable(Exception):
    pass


def verify_remote(backend: str, lanes: int, seed: int, localize: bool, timeout: float | None,
                  item: tuple[str, bytes]) -> tuple[str, object, str | None]:
    """The task of ``--cluster`` (runs on a cluster worker): verify one ``(name, bytes)``
    program in this worker thread's child process, started on first use and replaced after a
    time-out or a crash.  Returns ``(kind, payload, implementation)``: ``done`` with the
    report, ``timeout``/``crash`` with the reason, ``unavailable`` with GL's message."""
    children = getattr(_children, "by_backend", None)
    if children is None:
        children = _children.by_backend = {}
    child = children.get(backend)
    try:
        if child is None or child.proc.poll() is not None:
            child = children[backend] = _Child(backend)
        child.send(item[:2] + (lanes, seed, localize))
        kind, payload = child.receive(timeout)
    except _ChildUnavailable as e:
        return "unavailable", str(e), None
    except TimeoutError:
        children.pop(backend).kill()
        return "timeout", f"no result within {timeout:.0f} s", child.implementation
    except (EOFError, OSError):
        children.pop(backend, None)
        if child is not None:
            child.kill()
        return "crash", "the worker process died", None
    if kind == "unavailable":
        children.pop(backend).kill()
        return "unavailable", payload, None
    return kind, payload, child.implementation
