#!/usr/bin/env python3
"""Write random NV_gpu_program4 programs (xlate.verify.generate) to files.

    python tools/gen_programs.py OUTDIR --count 50 --seed 1 [--stage vertex|fragment|both]
        [--size 12] [--avoid shift,intdiv]

Each file is ``<stage>-<seed>.vp``/``.fp``; the same seed always gives the same program.
Verify them with ``xlate verify OUTDIR/*``.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from xlate.verify.generate import random_program  # noqa: E402


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("outdir")
    p.add_argument("--count", type=int, default=20)
    p.add_argument("--seed", type=int, default=1, help="first seed")
    p.add_argument("--stage", choices=["vertex", "fragment", "both"], default="both")
    p.add_argument("--size", type=int, default=12, help="top-level statements")
    p.add_argument("--avoid", default="", help="comma-separated features to leave out")
    args = p.parse_args(argv)
    avoid = {a for a in args.avoid.split(",") if a}
    os.makedirs(args.outdir, exist_ok=True)
    stages = ["vertex", "fragment"] if args.stage == "both" else [args.stage]
    n = 0
    for seed in range(args.seed, args.seed + args.count):
        for stage in stages:
            text = random_program(seed, stage, args.size, avoid)
            ext = ".vp" if stage == "vertex" else ".fp"
            path = Path(args.outdir) / f"{stage}-{seed}{ext}"
            path.write_text(text)
            n += 1
    print(f"wrote {n} programs to {args.outdir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
