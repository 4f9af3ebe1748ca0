#!/usr/bin/env python3
"""Measure the distributed engines xlate could run on: Dask (distributed) and Ray.

    nice -n 10 python tools/bench_cluster.py [--workers 2] [--tasks 200] [--payload 65536]

For each engine installed, on a local cluster of ``--workers`` worker processes (one task at a
time each), in one run:

* start-up: from nothing to a client connected to a cluster whose workers are ready, and the
  shutdown after;
* per-task overhead: ``--tasks`` tasks that do nothing, submitted at once, until every result
  is back (seconds per task);
* result transfer: the same tasks each returning ``--payload`` bytes (the default is about
  what one program's GLSL + SPIR-V + reflection weigh; the largest corpus outputs are ~200 KB);
* memory: the resident set of every process the engine started (scheduler, workers, daemons),
  measured once the workers are ready;
* the local process pool (``concurrent.futures.ProcessPoolExecutor``, what ``xlate batch``
  uses) as the baseline of the last two.

Figures are printed as ratios to the process pool measured in the same run.  The numbers
chose the engine of ``xlate.cluster`` (its docstring has them).  On a shared machine the
absolute times vary; the ratios are what to compare.
"""
from __future__ import annotations

import argparse
import os
import sys
import time


def nothing(i):
    return i


def payload(n):
    return os.urandom(n)


def _rss_mb() -> float:
    """Resident memory of this process's descendants (the engine's processes), in MB."""
    import psutil
    total = 0
    for child in psutil.Process().children(recursive=True):
        try:
            total += child.memory_info().rss
        except psutil.Error:
            pass
    return total / 1e6


def _time_tasks(submit, gather, fn, args) -> float:
    gather([submit(fn, a) for a in args])            # warm-up round, not timed
    t = time.perf_counter()
    gather([submit(fn, a) for a in args])
    return time.perf_counter() - t


def bench_pool(workers, tasks, size):
    from concurrent.futures import ProcessPoolExecutor
    t = time.perf_counter()
    pool = ProcessPoolExecutor(workers)
    list(pool.map(nothing, range(workers)))        # workers up
    start = time.perf_counter() - t
    rss = _rss_mb()

    def gather(fs):
        return [f.result() for f in fs]
    per = _time_tasks(pool.submit, gather, nothing, range(tasks)) / tasks
    big = _time_tasks(pool.submit, gather, payload, [size] * tasks) / tasks
    t = time.perf_counter()
    pool.shutdown()
    return start, time.perf_counter() - t, per, big, rss


def bench_dask(workers, tasks, size):
    from distributed import Client, LocalCluster
    t = time.perf_counter()
    import logging
    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                           dashboard_address=None, silence_logs=logging.CRITICAL)
    client = Client(cluster)
    client.wait_for_workers(workers)
    client.submit(nothing, -1, pure=False).result()
    start = time.perf_counter() - t
    rss = _rss_mb()

    def submit(fn, a):
        return client.submit(fn, a, pure=False)
    per = _time_tasks(submit, client.gather, nothing, range(tasks)) / tasks
    big = _time_tasks(submit, client.gather, payload, [size] * tasks) / tasks
    t = time.perf_counter()
    client.close()
    cluster.close()
    return start, time.perf_counter() - t, per, big, rss


def bench_ray(workers, tasks, size):
    import ray
    t = time.perf_counter()
    ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False,
             configure_logging=False)
    r_nothing, r_payload = ray.remote(nothing), ray.remote(payload)
    ray.get([r_nothing.remote(-1) for _ in range(workers)])
    start = time.perf_counter() - t
    rss = _rss_mb()
    per = _time_tasks(lambda fn, a: fn.remote(a), ray.get, r_nothing, range(tasks)) / tasks
    big = _time_tasks(lambda fn, a: fn.remote(a), ray.get, r_payload, [size] * tasks) / tasks
    t = time.perf_counter()
    ray.shutdown()
    return start, time.perf_counter() - t, per, big, rss


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--tasks", type=int, default=200)
    p.add_argument("--payload", type=int, default=64 << 10, help="bytes each task returns")
    args = p.parse_args(argv)
    rows = [("process pool", bench_pool(args.workers, args.tasks, args.payload))]
    for name, fn, module in (("dask", bench_dask, "distributed"), ("ray", bench_ray, "ray")):
        try:
            __import__(module)
        except ImportError:
            print(f"{name}: not installed (pip install {module})", file=sys.stderr)
            continue
        rows.append((name, fn(args.workers, args.tasks, args.payload)))
    base = rows[0][1]
    print(f"{args.workers} workers, {args.tasks} tasks, {args.payload} B results "
          f"(ratio = engine / process pool, same run)")
    print(f"{'':14s}{'start-up s':>12s}{'shutdown s':>12s}{'per task ms':>14s}{'ratio':>8s}"
          f"{'+result ms':>12s}{'ratio':>8s}{'memory MB':>11s}")
    for name, (start, stop, per, big, rss) in rows:
        print(f"{name:14s}{start:12.2f}{stop:12.2f}{per * 1e3:14.2f}{per / base[2]:8.1f}"
              f"{big * 1e3:12.2f}{big / base[3]:8.1f}{rss:11.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
