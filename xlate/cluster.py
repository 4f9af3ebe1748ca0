r"""Work beyond one machine: ``--cluster ADDRESS`` runs xlate's tasks on a Dask cluster.

``xlate batch``, ``xlate verify`` and ``tools/diffcheck.py`` run their work in a local
process pool by default.  With ``--cluster ADDRESS`` the same tasks go to a distributed
engine instead, and come back to the same code that writes the outputs, the cache and the
report -- so a run gives the same summary either way.  ``ADDRESS`` is

* ``tcp://HOST:PORT`` (or ``HOST:PORT``): a running Dask scheduler (``dask scheduler`` on one
  machine, ``dask worker tcp://HOST:PORT`` on each machine that computes);
* ``local`` or ``local:N``: a cluster of N worker processes (default: the CPUs) started here and
  stopped at the end -- to try the option, and what the tests use.

Every worker must have the same xlate installed (checked at connection: a worker with other
code would produce other outputs under the same cache key) and, for verification, an OpenGL
(or Vulkan) implementation.  Workers need no shared file system: the client sends each program's
bytes and receives the outputs; only the client writes files.

Why Dask and not Ray: measured with ``tools/bench_cluster.py`` (2 workers, 200 tasks, 64 KB
results -- about one program's GLSL + SPIR-V + reflection) on the 2-core development machine,
shared with other jobs (load average 4 to 20), so absolute times vary from run to run; two
runs, the second with a memory column (both before the script's untimed warm-up round was
added: the first 200 tasks include each engine's warm-up)::

                start-up s  shutdown s   per task ms   ratio  +result ms   ratio  memory MB
  process pool    0.01        0.00          0.14        1.0       0.54     1.0
  dask            2.30        0.39          3.28       23.0       7.77    14.3
  ray            12.52        1.51          1.86       13.1       3.58     6.6

  process pool    0.03        0.00          0.15        1.0       0.48     1.0        28
  dask            2.49        0.64          9.37       63.1       5.01    10.5       147
  ray             9.11        1.51          1.12        7.6       1.19     2.5       717

xlate's tasks take 10-50 ms (a translation) to 0.5 s and more (a verification), so the per-task
cost of either engine is a few per cent of the work once translations travel in chunks of
several programs (:func:`chunk_size`), while Ray's start-up is 7-10 s more on every run -- the
whole of a small batch -- and its daemons (GCS, raylet, workers) take about five times Dask's
memory on the machine that starts them.  Dask is also a pure-Python install with a plain TCP
address.  Neither engine can stop a task that runs forever (Ray's forced cancel kills the
worker; Dask has none), so verification keeps its per-program time limit in a child process on
the worker (:mod:`xlate.verify.batch`).

Measured on the shared corpus (``../shared/corpus``), same machine and load, ``nice -n 10``,
the local run first, then ``--cluster local:2`` (the same 2 cores: the figures show what the
option costs, not what more machines gain)::

  xlate batch ../shared/corpus -o OUT -q --report r.json [--cluster local:2]
  local:   xlate batch: 6242 programs: 5983 ok (114 with warnings), 259 with errors;
           1322 other files skipped; 6242 translated, 0 unchanged (cache); 704.01 s, 2 jobs
  cluster: (the same counts) ... 598.32 s, 2 jobs on cluster local:2
  wall 705 s local, 600 s cluster: ratio 0.85 (load average 18-20 during both runs);
  17,949 output files byte-identical, the JSON reports equal but for seconds and jobs.

Verify, a documented deterministic sample (the whole corpus is hours of llvmpipe on this
machine: a first try with every 100th program did 28 of 68 in 35 minutes locally): every
300th ``.vp``/``.fp``/``.gp``/``.tgsi`` file of the corpus in sorted (C locale) order, 23
programs, 256 lanes::

  find ../shared/corpus -type f \( -name '*.vp' -o -name '*.fp' -o -name '*.gp' \
      -o -name '*.tgsi' \) | LC_ALL=C sort | awk 'NR % 300 == 1' > sample
  xlate verify $(cat sample) --lanes 256 --json r.json [--cluster local:2]
  both: summary: 1 error, 22 pass     (stdout byte-identical; JSON equal but for seconds)
  wall 25.9 s local (one process), 46.2 s cluster: ratio 1.78 (load average 9-11)

On a sample this small the cluster's fixed cost dominates: starting the scheduler and two
workers, and a child process with a GL context per worker (every 1200th program, 6 programs:
4.2 s local, 23.0 s cluster).  The option pays where the work is larger than that cost and
where the workers are more machines than the client has cores.

The engine is an optional extra: ``pip install 'xlate[cluster]'``; without it ``--cluster``
prints :data:`INSTALL_HINT` and the command exits 3.
"""
from __future__ import annotations

import contextlib
import logging
import os
import signal
import threading

INSTALL_HINT = "--cluster needs the optional extra: python3 -m pip install 'xlate[cluster]'"
EXIT_UNAVAILABLE = 3
CONNECT_TIMEOUT_S = 10          # a scheduler that does not answer: give up with a message


class ClusterUnavailable(Exception):
    """The engine is not installed, the scheduler cannot be reached, or its workers run other
    code (exit code 3, as for a missing GL implementation)."""


class TaskFailed:
    """The result of a task that raised on its worker, or whose worker died (Dask reschedules
    such a task on another worker and gives up after a few deaths: ``KilledWorker``)."""

    def __init__(self, error: BaseException):
        self.error = error

    def __str__(self) -> str:
        return f"{type(self.error).__name__}: {self.error}"


class Cluster:
    """A connection to a Dask scheduler, or a local Dask cluster this process started.

    The one interface the commands use: :meth:`imap` (and :meth:`run`, its callback form) maps
    a function over items on the workers and hands each result back to the caller as it
    arrives.  The local process pools of ``xlate batch`` and ``xlate.verify.batch`` stay the
    default; this class is only imported for ``--cluster``."""

    def __init__(self, address: str):
        try:
            import distributed
        except ImportError:
            raise ClusterUnavailable(INSTALL_HINT) from None
        self.address = address
        self._local = None
        # Dask's INFO lines (scheduler started, worker registered) are not xlate's output
        logging.getLogger("distributed").setLevel(logging.ERROR)
        try:
            if address == "local" or address.startswith("local:"):
                n = _local_workers(address)
                with _workers_ignore_ctrl_c():
                    self._local = distributed.LocalCluster(
                        n_workers=n, threads_per_worker=1, processes=True,
                        dashboard_address=None, silence_logs=logging.CRITICAL)
                self.client = distributed.Client(self._local, timeout=CONNECT_TIMEOUT_S)
                self.client.wait_for_workers(n, timeout=CONNECT_TIMEOUT_S * 3)
            else:
                target = address if "://" in address else f"tcp://{address}"
                self.client = distributed.Client(target, timeout=CONNECT_TIMEOUT_S)
        except ClusterUnavailable:
            self.close()
            raise
        except (OSError, TimeoutError, ValueError) as e:
            self.close()
            raise ClusterUnavailable(f"cannot reach the cluster at {address}: {e}") from None
        self._check_workers()

    @property
    def workers(self) -> int:
        """Tasks the cluster runs at a time (worker threads over all workers)."""
        info = self.client.scheduler_info()["workers"]
        return max(1, sum(w.get("nthreads", 1) for w in info.values()))

    def _check_workers(self) -> None:
        from .batch.cache import code_fingerprint
        if not self.client.scheduler_info()["workers"]:
            self.close()
            raise ClusterUnavailable(f"the cluster at {self.address} has no workers")
        mine = code_fingerprint()
        try:
            theirs = self.client.run(_worker_fingerprint)
        except Exception as e:          # a worker without xlate fails to unpickle the call
            self.close()
            raise ClusterUnavailable(f"the workers of {self.address} cannot run xlate: "
                                     f"{type(e).__name__}: {e}") from None
        other = sorted(w for w, fp in theirs.items() if fp != mine)
        if other:
            self.close()
            raise ClusterUnavailable(f"worker {other[0]} runs other xlate code than this client "
                                     f"(install the same version on every worker)")

    def imap(self, fn, items: list):
        """Call ``fn(item)`` on the workers for every item; yields ``(index, result)`` in this
        process as each finishes (completion order), with a :class:`TaskFailed` as the result
        of a task that raised or lost its worker.  At most :meth:`window` tasks are in flight
        (the scheduler holds their inputs: an archive of 100,000 programs is not sent at
        once).  Leaving early (Ctrl-C, an exception, closing the generator) cancels what has
        not finished."""
        from distributed import as_completed
        pending = iter(enumerate(items))
        index: dict = {}
        running = as_completed()

        def submit_next() -> None:
            for i, item in pending:
                fut = self.client.submit(fn, item, pure=False)
                index[fut.key] = (i, fut)
                running.add(fut)
                return

        for _ in range(self.window()):
            submit_next()
        try:
            for fut in running:
                try:
                    result = fut.result()
                except Exception as e:
                    result = TaskFailed(e)
                i, _ = index.pop(fut.key)
                fut.release()
                submit_next()
                yield i, result
        finally:
            if index and self.client is not None:
                self.client.cancel([f for _, f in index.values()])

    def window(self) -> int:
        """Tasks in flight at a time: enough that no worker thread waits for the next one."""
        return max(16, 4 * self.workers)

    def run(self, fn, items: list, on_done) -> None:
        """:meth:`imap` with a callback: ``on_done(index, result)`` for each item."""
        for i, result in self.imap(fn, items):
            on_done(i, result)

    def close(self) -> None:
        client = getattr(self, "client", None)
        if client is not None:
            client.close()
            self.client = None
        if self._local is not None:
            self._local.close()
            self._local = None

    def __enter__(self) -> "Cluster":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


@contextlib.contextmanager
def _workers_ignore_ctrl_c():
    """Processes started inside ignore SIGINT (an ignored signal stays ignored across exec, and
    Python installs its KeyboardInterrupt handler only over the default): Ctrl-C in a terminal
    reaches the whole process group, and a local cluster's nanny and worker processes would
    each print a traceback.  The client alone handles it -- it stops the run and closes the
    cluster, which ends them."""
    if threading.current_thread() is not threading.main_thread():
        yield                       # (signal handlers belong to the main thread)
        return
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


def _local_workers(address: str) -> int:
    if address == "local":
        try:
            return max(1, len(os.sched_getaffinity(0)))
        except AttributeError:
            return os.cpu_count() or 1
    try:
        n = int(address[len("local:"):])
    except ValueError:
        n = 0
    if n < 1:
        raise ClusterUnavailable(f"--cluster {address}: expected local:N with N a positive "
                                 "number of workers")
    return n


def _worker_fingerprint() -> str:
    from .batch.cache import code_fingerprint
    return code_fingerprint()


def chunk_size(tasks: int, workers: int) -> int:
    """How many small tasks (translations) travel together: enough that the engine's few
    milliseconds per task are a small part of the work, few enough that every worker gets
    several chunks (the slowest chunk bounds the end of the run)."""
    return max(1, min(16, tasks // (workers * 8)))


def connect(address: str) -> Cluster:
    """Connect to ``address`` (see the module docstring); raises :class:`ClusterUnavailable`."""
    return Cluster(address)
