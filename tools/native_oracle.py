#!/usr/bin/env python3
"""Run ``xlate verify --backend native`` over corpus folders and summarize per folder.

    tools/native_oracle.py [--lanes N] [--seed S] [--json OUT] [--limit K] [--jobs J]
                           [--progress LINES.jsonl] FOLDER...
    tools/native_oracle.py --from-jsonl LINES.jsonl FOLDER...      (summarize a partial run)

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

``--jobs J`` verifies in J worker processes, each with its own context
(:func:`xlate.verify.batch.run_all`: a program running past ``--timeout`` is ``timeout``, a
worker the driver crashes is replaced and its program is ``crash``; both are reported, never
passed).  ``--progress`` appends each report as one JSON line the moment it is finished, so a
run stopped early (a lease running out) still leaves everything it did; ``--from-jsonl``
prints the summary of such a file.
"""
from __future__ import annotations

import argparse
import collections
import csv
import json
import os
import sys
import time
import types

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


def as_report(doc: dict):
    """A report dict (``ProgramReport.to_json``, or batch's ``timeout``/``crash`` record) with
    the attributes :func:`summarize` reads."""
    return types.SimpleNamespace(file=doc["file"], status=doc["status"],
                                 reason=doc.get("reason", ""),
                                 localization=doc.get("localization") or [],
                                 seconds=doc.get("seconds", 0.0))


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


def folder_of(path: str, folders: list[str]) -> str:
    """The FOLDER argument that holds ``path`` (the longest that does)."""
    best = ""
    for folder in folders:
        root = os.path.abspath(folder) + os.sep
        if os.path.abspath(path).startswith(root) and len(folder) > len(best):
            best = folder
    return best


def print_table(summaries: list[dict]) -> None:
    print("\nfolder                         programs  pass  explained  unexplained  "
          "unsupported  error  skipped  expected-error  s/program")
    for s in summaries:
        c = s["counts"]
        other = {k: n for k, n in c.items() if k in ("timeout", "crash")}
        print(f"{s['folder'][-30:]:30} {s['programs']:8} {c.get('pass', 0):5}  "
              f"{c.get('explained', 0):9}  {c.get('mismatch', 0):11}  "
              f"{c.get('unsupported', 0):11}  {c.get('error', 0):5}  {c.get('skipped', 0):7}  "
              f"{c.get('expected_error', 0):14}  {s['seconds_per_program']:9}"
              + "".join(f"  {k} {n}" for k, n in sorted(other.items())))
        for v, n in sorted(s["explained_verdicts"].items(), key=lambda x: (-x[1], x[0])):
            print(f"    explained   {n:4}  {v}")
        for why, n in sorted(s["unexplained_groups"].items(), key=lambda x: (-x[1], x[0])):
            print(f"    unexplained {n:4}  {why}")
        for why, n in sorted(s["unsupported_reasons"].items(), key=lambda x: (-x[1], x[0])):
            print(f"    unsupported {n:4}  {why}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--lanes", type=int, default=1024)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--limit", type=int, default=0, help="at most K files per folder")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    ap.add_argument("--timeout", type=float, default=120.0,
                    help="seconds one program may take (default 120)")
    ap.add_argument("--json", help="write every report and the summary")
    ap.add_argument("--progress", help="append each report to this file as a JSON line")
    ap.add_argument("--from-jsonl", help="summarize the reports of a --progress file; run nothing")
    ap.add_argument("--quiet", action="store_true", help="no line per program")
    args = ap.parse_args(argv)
    os.environ.setdefault("EGL_PLATFORM", "surfaceless")
    from xlate.verify.batch import run_all
    from xlate.verify.core import make_runner
    from xlate.verify.glapi import GLUnavailable
    paths = [p for folder in args.folders for p in files_of(folder)[:args.limit or None]]
    if args.from_jsonl:
        implementation = "(from " + args.from_jsonl + ")"
        try:
            with open(args.from_jsonl) as f:
                docs = [json.loads(line) for line in f if line.strip()]
        except (OSError, ValueError) as e:
            print(f"native_oracle: cannot read {args.from_jsonl}: {e}", file=sys.stderr)
            return 2
    else:
        try:
            # one context here too: the implementation's name, and a clear message when
            # there is none (the workers have their own contexts)
            implementation = make_runner("native").describe()
        except GLUnavailable as e:
            print(f"native_oracle: no implementation: {e}", file=sys.stderr)
            return 3
        print(f"implementation: {implementation}", flush=True)
        sink = open(args.progress, "a") if args.progress else None

        def progress(idx, doc):
            if sink:
                sink.write(json.dumps(doc) + "\n")
                sink.flush()
            if not args.quiet:
                print(f"{doc['file']}: {doc['status']}: {doc.get('reason', '')[:100]}",
                      flush=True)
        t0 = time.perf_counter()
        try:
            docs = run_all(paths, backend="native", lanes=args.lanes, seed=args.seed,
                           jobs=args.jobs, timeout=args.timeout, progress=progress)
        except RuntimeError as e:
            print(f"native_oracle: {e}", file=sys.stderr)
            return 3
        finally:
            if sink:
                sink.close()
        print(f"wall: {time.perf_counter() - t0:.1f} s for {len(paths)} programs, "
              f"{args.jobs} job(s)")
    summaries, everything = [], []
    for folder in args.folders:
        expected = manifest_expected(folder)
        mine = [d for d in docs if folder_of(d["file"], args.folders) == folder]
        summaries.append(summarize(folder, [as_report(d) for d in mine], expected))
        everything += [dict(d, folder=folder,
                            expected=expected.get(os.path.abspath(d["file"]), "ok"))
                       for d in mine]
    print_table(summaries)
    if args.json:
        tmp = args.json + ".tmp"
        with open(tmp, "w") as f:
            json.dump({"implementation": implementation, "lanes": args.lanes,
                       "seed": args.seed, "summary": summaries, "programs": everything}, f,
                      indent=1)
        os.replace(tmp, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
