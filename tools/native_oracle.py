#!/usr/bin/env python3
"""Run ``xlate verify --backend native`` over corpus folders and summarize per folder.

    tools/native_oracle.py [--lanes N] [--seed S] [--json OUT] [--limit K] FOLDER...

Every file under each FOLDER is verified with the driver's own assembly interface
(:mod:`xlate.verify.native`).  On Mesa llvmpipe only the plain ``!!ARBvp1.0``/``!!ARBfp1.0``
folders run (``collected/arbvp``, ``collected/arbfp``, ``cg/arbvp1``, ``cg/arbfp1``); on an
NVIDIA driver every NV dialect loads (``tools/gpu_oracle.sh``).

The corpus MANIFEST.tsv ``expected`` column (collected/) marks programs that must be
rejected: those are counted apart (``rejected as expected`` when xlate reports an error).
Prints, per folder: programs, passed (identical outputs), explained (the outputs differ and
the replay shows every difference permitted: ``pass``, "differences explained"; counted per
verdict -- a program can have several), unexplained (``mismatch``; grouped by the replay's
verdict, or by why nothing was localized), unsupported (grouped by reason), errors, skipped,
and the mean seconds per program.  Exit 0 always (a report, not a gate).
"""
from __future__ import annotations

import argparse
import collections
import csv
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))


def manifest_expected(folder: str) -> dict[str, str]:
    """file path -> expected ("ok"/"error") from the MANIFEST.tsv above ``folder``."""
    root = os.path.dirname(os.path.abspath(folder))
    path = os.path.join(root, "MANIFEST.tsv")
    out: dict[str, str] = {}
    if not os.path.exists(path):
        return out
    with open(path, newline="") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            if "expected" in row and row.get("file"):
                out[os.path.join(root, row["file"])] = row["expected"]
    return out


def files_of(folder: str) -> list[str]:
    out = []
    for base, _, names in os.walk(folder):
        out += [os.path.join(base, n) for n in names]
    return sorted(out)


def reason_group(rep) -> str:
    r = rep.reason
    for key in ("driver refuses the program", "native harness", "driver refuses the harness",
                "textures"):
        if r.startswith(key):
            return key
    return r[:60]


def verdicts(rep, which) -> list[str]:
    """The replay's verdicts in ``rep`` that are among ``which``, sorted."""
    return sorted({x.get("verdict") for x in rep.localization if x.get("verdict") in which})


def mismatch_group(rep) -> str:
    from xlate.verify.core import SUSPECT
    v = verdicts(rep, SUSPECT)
    if v:
        return "+".join(v)
    return rep.reason.split(":", 1)[0] + (": " + rep.reason.split(":", 2)[1].strip()[:50]
                                          if rep.reason.count(":") >= 2 else "")


def summarize(folder: str, reports: list, expected: dict) -> dict:
    from xlate.verify.core import EXPLAINED
    s = collections.Counter()
    unsupported = collections.Counter()
    explained = collections.Counter()
    unexplained = collections.Counter()
    for rep in reports:
        exp = expected.get(os.path.abspath(rep.file), "ok")
        if exp == "error":
            s["expected_error"] += 1
            s["rejected_as_expected" if rep.status in ("error", "unsupported")
              else "accepted_though_expected_error"] += 1
            continue
        if rep.status == "pass" and rep.reason.startswith("differences explained"):
            s["explained"] += 1
            for v in verdicts(rep, EXPLAINED):
                explained[v] += 1
            continue
        s[rep.status] += 1
        if rep.status == "mismatch":
            unexplained[mismatch_group(rep)] += 1
        if rep.status == "unsupported":
            unsupported[reason_group(rep)] += 1
    secs = [r.seconds for r in reports]
    return {"folder": folder, "programs": len(reports), "counts": dict(s),
            "explained_verdicts": dict(explained), "unexplained_groups": dict(unexplained),
            "unsupported_reasons": dict(unsupported),
            "seconds_per_program": round(sum(secs) / max(len(secs), 1), 3)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--lanes", type=int, default=1024)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--limit", type=int, default=0, help="at most K files per folder")
    ap.add_argument("--json", help="write every report and the summary")
    ap.add_argument("--quiet", action="store_true", help="no line per program")
    args = ap.parse_args(argv)
    os.environ.setdefault("EGL_PLATFORM", "surfaceless")
    from xlate.verify import verify
    from xlate.verify.cli import format_report
    from xlate.verify.core import make_runner
    from xlate.verify.glapi import GLUnavailable
    try:
        runner = make_runner("native")
    except GLUnavailable as e:
        print(f"native_oracle: no implementation: {e}", file=sys.stderr)
        return 3
    print(f"implementation: {runner.describe()}")
    summaries, everything = [], []
    for folder in args.folders:
        expected = manifest_expected(folder)
        files = files_of(folder)[:args.limit or None]
        reports = []
        t0 = time.perf_counter()
        for path in files:
            rep = verify(path, lanes=args.lanes, seed=args.seed, backend="native", runner=runner)
            reports.append(rep)
            if not args.quiet:
                print(format_report(rep, verbose=False)[0], flush=True)
        s = summarize(folder, reports, expected)
        s["wall_seconds"] = round(time.perf_counter() - t0, 1)
        summaries.append(s)
        everything += [dict(r.to_json(), folder=folder,
                            expected=expected.get(os.path.abspath(r.file), "ok"))
                       for r in reports]
    print("\nfolder                         programs  pass  explained  unexplained  "
          "unsupported  error  skipped  expected-error  s/program")
    for s in summaries:
        c = s["counts"]
        print(f"{s['folder'][-30:]:30} {s['programs']:8} {c.get('pass', 0):5}  "
              f"{c.get('explained', 0):9}  {c.get('mismatch', 0):11}  "
              f"{c.get('unsupported', 0):11}  {c.get('error', 0):5}  {c.get('skipped', 0):7}  "
              f"{c.get('expected_error', 0):14}  {s['seconds_per_program']:9}")
        for v, n in sorted(s["explained_verdicts"].items(), key=lambda x: (-x[1], x[0])):
            print(f"    explained   {n:4}  {v}")
        for why, n in sorted(s["unexplained_groups"].items(), key=lambda x: (-x[1], x[0])):
            print(f"    unexplained {n:4}  {why}")
        for why, n in sorted(s["unsupported_reasons"].items(), key=lambda x: (-x[1], x[0])):
            print(f"    unsupported {n:4}  {why}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"implementation": runner.describe(), "lanes": args.lanes,
                       "seed": args.seed, "summary": summaries, "programs": everything}, f,
                      indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
