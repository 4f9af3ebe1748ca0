#!/usr/bin/env python3
"""Write random valid programs of one dialect (xlate.verify.generate) to files.

    python tools/gen_programs.py OUTDIR --count 50 --seed 1 [--dialect nv4]
        [--stage vertex|fragment|geometry|tess_evaluation|tess_control|compute|all]
        [--size 12] [--avoid shift,intdiv]
    python tools/gen_programs.py --list          # the dialects and their stages

Dialects: nv4 (default; !!NVvp4.0/!!NVfp4.0), vp1.0, vp1.1, vsp1.0, vp2.0, arbvp, arbvp-nv2,
arbvp-nv3, arbfp, arbfp-nv, arbfp-nv2, fp1.0, tgsi.  ``--stage`` applies to the dialects with
several stages (nv4: vertex/fragment, tgsi: vertex/fragment/geometry/tess_evaluation/
tess_control/compute); ``all`` (or the older
``both``) writes every stage.  File names: ``<stage>-<seed>.vp/.fp`` for nv4 (as before),
``<dialect>-<seed>.<ext>`` or ``<dialect>-<stage>-<seed>.tgsi`` otherwise; the same seed always
gives the same program.

A campaign (one process; every program must pass or be explained)::

    python tools/gen_programs.py /tmp/gen-vp2 --dialect vp2.0 --count 500
    xlate verify /tmp/gen-vp2/* --lanes 256 --json /tmp/gen-vp2.json

or ``python tools/diffcheck.py --generated vp2.0 --count 500`` for the table with the
passed/explained/unexplained counts.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from xlate.verify.generate import DIALECTS, file_name, generate  # noqa: E402


def stages_of(dialect: str, stage: str) -> list[str]:
    stages = DIALECTS[dialect].stages
    if stage in ("all", "both"):
        return list(stages)
    if stage not in stages:
        raise SystemExit(f"gen_programs: dialect {dialect} has no {stage} programs "
                         f"(stages: {', '.join(stages)})")
    return [stage]


def write_programs(outdir: str, dialect: str = "nv4", count: int = 20, seed: int = 1,
                   stage: str = "all", size: int = 12, avoid=frozenset()) -> list[Path]:
    os.makedirs(outdir, exist_ok=True)
    paths = []
    for s in range(seed, seed + count):
        for st in stages_of(dialect, stage):
            path = Path(outdir) / file_name(dialect, s, st)
            path.write_text(generate(dialect, s, st, size, avoid))
            paths.append(path)
    return paths


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("outdir", nargs="?")
    p.add_argument("--dialect", default="nv4", choices=list(DIALECTS))
    p.add_argument("--count", type=int, default=20)
    p.add_argument("--seed", type=int, default=1, help="first seed")
    p.add_argument("--stage", default="all",
                   help="vertex, fragment, geometry, or all (default; 'both' = all)")
    p.add_argument("--size", type=int, default=12, help="top-level statements")
    p.add_argument("--avoid", default="", help="comma-separated features to leave out")
    p.add_argument("--list", action="store_true", help="list the dialects and exit")
    args = p.parse_args(argv)
    if args.list:
        for d in DIALECTS.values():
            print(f"{d.name:10s} {'/'.join(d.stages):26s} {d.what}")
        return 0
    if not args.outdir:
        p.error("OUTDIR is required")
    avoid = {a for a in args.avoid.split(",") if a}
    paths = write_programs(args.outdir, args.dialect, args.count, args.seed, args.stage,
                           args.size, avoid)
    print(f"wrote {len(paths)} programs to {args.outdir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
