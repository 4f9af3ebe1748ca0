#!/usr/bin/env python3
"""``xlate batch`` on the shared corpus, twice: a cold run, then a run with nothing changed.

Prints the wall time of both runs and their ratio (goal, issue 7: the second run takes at most
10 % of the first, i.e. the content-hash cache makes an unchanged tree nearly free), plus each
run's summary line.

Run:  python tools/bench_batch.py [--corpus ../shared/corpus] [-j 2] [--keep OUTDIR] [--no-snapshot]
The output folder is a fresh temporary folder (removed afterwards unless --keep is given), and
XLATE_CACHE_DIR is unset so that the cache lives in it.

The cache key includes a hash of xlate's code (docs/batch.md), so an edit to the checkout
between the two runs rightly makes the second run translate everything again.  Several people
edit this checkout at once, so by default both runs use a snapshot of the package (xlate/,
templates/ copied to a temporary folder, first on PYTHONPATH); --no-snapshot runs the checkout.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_startup import xlate_command  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
from shared_location import shared_dir  # noqa: E402  (XLATE_SHARED; tools/ is on sys.path)


def run(cmd: list[str], env: dict) -> tuple[float, str, int]:
    t = time.perf_counter()
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    elapsed = time.perf_counter() - t
    return elapsed, r.stderr.strip().splitlines()[-1] if r.stderr.strip() else "", r.returncode


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default=str(shared_dir(ROOT) / "corpus"))
    ap.add_argument("-j", "--jobs", default="2")
    ap.add_argument("--keep", metavar="OUTDIR", help="output folder to use and keep")
    ap.add_argument("--no-snapshot", action="store_true",
                    help="run the checkout itself, not a copy taken before the first run")
    args = ap.parse_args()
    if not Path(args.corpus).is_dir():
        print(f"corpus not found at {args.corpus}", file=sys.stderr)
        return 2
    out = args.keep or tempfile.mkdtemp(prefix="xlate-bench-batch-")
    if args.keep and os.path.exists(out):
        shutil.rmtree(out)
    env = {k: v for k, v in os.environ.items() if k != "XLATE_CACHE_DIR"}
    snapshot = None
    if not args.no_snapshot:
        snapshot = tempfile.mkdtemp(prefix="xlate-bench-code-")
        shutil.copytree(ROOT / "xlate", Path(snapshot) / "xlate",
                        ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copytree(ROOT / "templates", Path(snapshot) / "templates")
        shutil.copy(ROOT / "pyproject.toml", snapshot)
        env["PYTHONPATH"] = snapshot + os.pathsep + env.get("PYTHONPATH", "")
    cmd = [*xlate_command(), "batch", args.corpus, "-o", out, "-j", args.jobs, "-q"]
    try:
        first, summary1, rc1 = run(cmd, env)
        second, summary2, rc2 = run(cmd, env)
    finally:
        if not args.keep:
            shutil.rmtree(out, ignore_errors=True)
        if snapshot:
            shutil.rmtree(snapshot, ignore_errors=True)
    print(f"command: xlate batch {args.corpus} -o OUT -j {args.jobs} -q   (exit {rc1}, {rc2}; "
          f"{'checkout' if args.no_snapshot else 'snapshot of the checkout'})")
    print(f"first run:  {first:8.2f} s   {summary1}")
    print(f"second run: {second:8.2f} s   {summary2}")
    print(f"second / first = {second / first:.3f} ({100 * second / first:.1f} %; goal <= 10 %)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
