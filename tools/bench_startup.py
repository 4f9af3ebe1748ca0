#!/usr/bin/env python3
"""Start-up cost of the pre-commit hook: ``xlate check one.fp`` against ``import lark, jinja2``.

Prints the median wall time of each command over repeated runs (hyperfine-style: warm-up runs
first, then the commands interleaved so that load on the machine hits both alike), and the
ratio check / baseline.  Goal (issue 7): <= 1.5x for the parse-and-translate path.

Measured:
  baseline    python -c "import lark, jinja2"   (what any parser+template tool pays)
  check       xlate check FILE                  (parse, translate, compile with glslang)
  no-validate xlate check --no-validate FILE    (parse and translate only)
  check spirv xlate check --targets spirv FILE  (direct SPIR-V, spirv-val only: issue 19)
  check x10   xlate check FILE FILE ... (10x)   (what one more file costs in one invocation)

``xlate`` is the console script beside this interpreter when there is one (what pre-commit
runs), else ``python -c "from xlate.console import main; main()"``, which is what
that script does.
Note ``PYTHONDONTWRITEBYTECODE``: with it set and an editable install, xlate's own modules are
compiled from source on every run (a wheel install has .pyc files); ``--compile`` measures a
byte-compiled copy of the package (xlate/ and templates/ copied to a temporary folder, compiled,
first on PYTHONPATH), as a wheel install would run.

Run:  python tools/bench_startup.py [--runs N] [--file FILE] [--compile]
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def xlate_command() -> list[str]:
    script = Path(sys.executable).parent / "xlate"
    if script.is_file() and os.access(script, os.X_OK):
        first = script.open("rb").readline()
        if first.startswith(b"#!") and Path(first[2:].decode().strip().split()[0]).resolve() == \
                Path(sys.executable).resolve():
            return [str(script)]
    return [sys.executable, "-c", "from xlate.console import main; main()"]


def once(cmd: list[str], env: dict) -> float:
    t = time.perf_counter()
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    elapsed = time.perf_counter() - t
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({r.returncode}):\n{r.stderr.decode()}")
    return elapsed


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=20, help="measured runs per command")
    ap.add_argument("--warmup", type=int, default=3, help="unmeasured runs per command first")
    ap.add_argument("--file", default=str(ROOT / "corpus" / "examples" / "bright_pass.fp"))
    ap.add_argument("--compile", action="store_true",
                    help="byte-compile the xlate package first (as a wheel install would)")
    args = ap.parse_args()
    env = dict(os.environ)
    copy = None
    if args.compile:
        import compileall
        import tempfile
        copy = Path(tempfile.mkdtemp(prefix="xlate-bench-startup-"))
        shutil.copytree(ROOT / "xlate", copy / "xlate", ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copytree(ROOT / "templates", copy / "templates")
        compileall.compile_dir(str(copy / "xlate"), quiet=1)
        env["PYTHONPATH"] = str(copy) + os.pathsep + env.get("PYTHONPATH", "")
    try:
        return measure(args, env)
    finally:
        if copy is not None:
            shutil.rmtree(copy, ignore_errors=True)


def measure(args, env: dict) -> int:
    xl = xlate_command()
    commands = {
        "baseline": [sys.executable, "-c", "import lark, jinja2"],
        "check": [*xl, "check", args.file],
        "no-validate": [*xl, "check", "--no-validate", args.file],
        # issue 19: the direct SPIR-V validated by spirv-val alone (no glslang start-up)
        "check spirv": [*xl, "check", "--targets", "spirv", args.file],
        "check x10": [*xl, "check", *[args.file] * 10],   # pre-commit passes many files at once
    }
    for _ in range(args.warmup):
        for cmd in commands.values():
            once(cmd, env)
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(args.runs):
        for name, cmd in commands.items():
            times[name].append(once(cmd, env))
    base = statistics.median(times["baseline"])
    print(f"xlate: {' '.join(xl)}")
    mode = "byte-compiled copy of the package" if args.compile else \
        f"the checkout, PYTHONDONTWRITEBYTECODE={env.get('PYTHONDONTWRITEBYTECODE', '')!r}"
    print(f"{mode}  runs={args.runs}  file={os.path.relpath(args.file)}")
    for name, values in times.items():
        med = statistics.median(values)
        sd = statistics.stdev(values) if len(values) > 1 else 0.0
        print(f"{name:12s} median {med * 1000:7.1f} ms  (sd {sd * 1000:5.1f}, min "
              f"{min(values) * 1000:6.1f})  ratio {med / base:4.2f}x")
    print(f"goal: check / baseline <= 1.5x; got {statistics.median(times['check']) / base:.2f}x "
          f"(no-validate {statistics.median(times['no-validate']) / base:.2f}x)")
    print(f"goal (issue 19): check --targets spirv / baseline <= 1.2x; got "
          f"{statistics.median(times['check spirv']) / base:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
