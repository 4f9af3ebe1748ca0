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

import select
import threading
import time
from functools import partial

from .isolated import ChildDied, ChildUnavailable, VerifierProcess


class _Slot:
    """One local worker: a :class:`VerifierProcess` and the program it verifies."""

    def __init__(self, backend, lanes, seed, localize):
        try:
            self.child = VerifierProcess(backend)
        except ChildUnavailable as e:
            raise RuntimeError(str(e)) from None
        self.options = {"lanes": lanes, "seed": seed, "localize": localize}
        self.task: int | None = None
        self.start = 0.0

    def dispatch(self, task: int, paths) -> None:
        """Send program ``task`` (its path as its name, as the report's file).  OSError when
        the file cannot be read (nothing is sent)."""
        with open(paths[task], "rb") as f:
            data = f.read()
        self.task, self.start = task, time.time()
        try:
            self.child.send((paths[task], data, self.options))
        except OSError:         # it died since its last answer: receive() says so
            pass


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
    args = (backend, lanes, seed, localize)
    todo = list(range(len(paths)))[::-1]
    docs: list[dict | None] = [None] * len(paths)
    slots = [_Slot(*args) for _ in range(max(1, min(jobs, len(paths))))]

    def finish(idx, doc):
        docs[idx] = doc
        if progress:
            progress(idx, doc)

    try:
        while any(d is None for d in docs):
            for slot in slots:
                while slot.task is None and todo:
                    idx = todo.pop()
                    try:
                        slot.dispatch(idx, paths)
                    except OSError as e:
                        finish(idx, {"file": paths[idx], "status": "crash",
                                     "reason": f"cannot read it: {e.strerror}"})
            busy = [s.child.proc.stdout for s in slots if s.task is not None]
            if not busy:
                continue
            ready, _, _ = select.select(busy, [], [], 1.0)
            now = time.time()
            for i, slot in enumerate(slots):
                if slot.task is None:
                    continue
                if slot.child.proc.stdout in ready:
                    try:
                        kind, payload = slot.child.receive(0)
                    except (EOFError, OSError):
                        kind, payload = "died", slot.child.crash_reason()
                    if kind == "unavailable":
                        raise RuntimeError(payload)
                    if kind == "done":
                        finish(slot.task, payload if isinstance(payload, dict)
                               else payload.to_json())
                        slot.task = None
                        continue
                    finish(slot.task, {"file": paths[slot.task], "status": "crash",
                                       "reason": payload})
                elif now - slot.start > timeout:
                    finish(slot.task, {"file": paths[slot.task], "status": "timeout",
                                       "reason": f"no result within {timeout:.0f} s"})
                else:
                    continue
                slot.child.kill()
                slots[i] = _Slot(*args)
    finally:
        for slot in slots:
            slot.child.close()
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


_children = threading.local()          # per worker thread: backend -> VerifierProcess


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
    options = {"lanes": lanes, "seed": seed, "localize": localize}
    try:
        if child is None or child.proc.poll() is not None:
            child = children[backend] = VerifierProcess(backend)
        kind, payload = child.verify(item[0], item[1], options, timeout)
    except ChildUnavailable as e:
        return "unavailable", str(e), None
    except TimeoutError:
        children.pop(backend).kill()
        return "timeout", f"no result within {timeout:.0f} s", child.implementation
    except ChildDied as e:
        children.pop(backend, None)
        return "crash", str(e), None
    if kind == "unavailable":
        children.pop(backend).kill()
        return "unavailable", payload, None
    return kind, payload, child.implementation
