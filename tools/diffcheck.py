#!/usr/bin/env python3
"""Run ``xlate verify`` over the NV_gpu_program4 corpus and print a table per dialect.

    python tools/diffcheck.py                      # every NV4 program of ../shared/corpus
    python tools/diffcheck.py --sample 20 --seed 3 # a fixed deterministic sample per folder
    python tools/diffcheck.py --json out.json --backend gl-spirv --jobs 2

Folders: cg/gp4vp, cg/gp4fp, cg/gp4gp, collected/nvfp4, collected/nvgp4 (dialect = the
program header).  Each program runs in a worker process with a time limit (a translation that
loops forever on the implementation must not hang the run).  The table counts programs,
passed, mismatched, unsupported (and skipped/error/timeout when present); the mismatches are
listed with the first localized instruction and its verdict (see ``xlate/verify/trace.py``).

Exit status: 0 when nothing mismatched, 1 otherwise, 3 when no implementation is available.
"""
from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import queue
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"
FOLDERS = ("cg/gp4vp", "cg/gp4fp", "cg/gp4gp", "collected/nvfp4", "collected/nvgp4")
EXTS = (".vp", ".fp", ".gp")


def corpus_files(corpus: Path = CORPUS, folders=FOLDERS) -> dict[str, list[Path]]:
    out = {}
    for folder in folders:
        d = corpus / folder
        if d.is_dir():
            out[folder] = sorted(p for p in d.rglob("*") if p.suffix in EXTS and p.is_file())
    return out


def sample(files: dict[str, list[Path]], n: int | None, seed: int) -> dict[str, list[Path]]:
    if n is None:
        return files
    out = {}
    for folder, lst in files.items():
        rng = random.Random(f"{seed}:{folder}")
        out[folder] = sorted(rng.sample(lst, min(n, len(lst))))
    return out


# ---- worker processes ----------------------------------------------------------------------------

def _worker(tasks, results, backend: str, lanes: int, seed: int, localize: bool) -> None:
    os.environ.setdefault("EGL_PLATFORM", "surfaceless")
    sys.path.insert(0, str(ROOT))
    from xlate.verify.core import verify_source
    from xlate.verify.gl import Runner
    from xlate.verify.glapi import GLUnavailable
    try:
        runner = Runner(backend)
    except GLUnavailable as e:
        results.put(("unavailable", None, str(e)))
        return
    while True:
        item = tasks.get()
        if item is None:
            return
        idx, path = item
        results.put(("start", idx, time.time()))
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
            results.put(("unavailable", idx, str(e)))
            return
        except Exception as e:                     # a crash of the verifier itself
            import traceback
            doc = {"file": path, "status": "crash", "reason": f"{type(e).__name__}: {e}",
                   "traceback": traceback.format_exc()[-2000:]}
        results.put(("done", idx, doc))


def run_all(paths: list[str], *, backend="gl", lanes=1024, seed=1, jobs=1, timeout=120.0,
            localize=True, progress=None) -> list[dict]:
    ctx = mp.get_context("spawn")
    tasks, results = ctx.Queue(), ctx.Queue()
    for i, p in enumerate(paths):
        tasks.put((i, p))
    docs: list[dict | None] = [None] * len(paths)
    workers: dict[int, tuple] = {}         # slot -> (process, current task, start)

    def spawn(slot):
        proc = ctx.Process(target=_worker, args=(tasks, results, backend, lanes, seed, localize),
                           daemon=True)
        proc.start()
        workers[slot] = [proc, None, None]

    n_jobs = max(1, min(jobs, len(paths)))
    for slot in range(n_jobs):
        spawn(slot)
    pid_slot = {}
    remaining = len(paths)
    started_by = {}
    while remaining:
        try:
            kind, idx, payload = results.get(timeout=1.0)
        except queue.Empty:
            kind = None
        now = time.time()
        if kind == "unavailable":
            for w in workers.values():
                w[0].kill()
            raise RuntimeError(payload)
        if kind == "start":
            started_by[idx] = payload
        elif kind == "done":
            if docs[idx] is None:
                docs[idx] = payload
                remaining -= 1
                if progress:
                    progress(idx, payload)
        # time limits: a task started long ago and not done -> kill every worker that may be
        # running it (we do not know which one), restart them, and record a timeout
        for idx2, t0 in list(started_by.items()):
            if docs[idx2] is not None:
                del started_by[idx2]
                continue
            if now - t0 > timeout:
                docs[idx2] = {"file": paths[idx2], "status": "timeout",
                              "reason": f"no result within {timeout:.0f} s"}
                remaining -= 1
                del started_by[idx2]
                if progress:
                    progress(idx2, docs[idx2])
                # restart all workers: the hung one is among them; tasks in flight elsewhere
                # are requeued
                for slot, w in list(workers.items()):
                    w[0].kill()
                    w[0].join()
                for idx3 in list(started_by):
                    if docs[idx3] is None:
                        tasks.put((idx3, paths[idx3]))
                started_by.clear()
                for slot in list(workers):
                    spawn(slot)
                break
        for slot, w in list(workers.items()):
            if not w[0].is_alive() and remaining:
                # a crashed worker (e.g. a driver abort): mark its task, restart
                for idx3, t0 in list(started_by.items()):
                    if docs[idx3] is None and now - t0 > 0:
                        pass
                spawn(slot)
    for _ in workers:
        tasks.put(None)
    for w in workers.values():
        w[0].join(timeout=5)
        if w[0].is_alive():
            w[0].kill()
    return [d for d in docs if d is not None]


# ---- reporting -------------------------------------------------------------------------------------

COLUMNS = ("programs", "passed", "mismatched", "unsupported", "skipped", "error", "timeout",
           "crash")


def table(results: dict[str, list[dict]]) -> str:
    rows = []
    totals = {c: 0 for c in COLUMNS}
    for folder, docs in results.items():
        c = {k: 0 for k in COLUMNS}
        c["programs"] = len(docs)
        for d in docs:
            st = d["status"]
            key = {"pass": "passed", "mismatch": "mismatched"}.get(st, st)
            c[key] = c.get(key, 0) + 1
        rows.append((folder, c))
        for k in COLUMNS:
            totals[k] += c.get(k, 0)
    rows.append(("total", totals))
    shown = [k for k in COLUMNS if k in ("programs", "passed", "mismatched", "unsupported")
             or totals[k]]
    w = max(len(r[0]) for r in rows) + 2
    out = ["dialect folder".ljust(w) + "".join(k.rjust(12) for k in shown)]
    out.append("-" * len(out[0]))
    for folder, c in rows:
        out.append(folder.ljust(w) + "".join(str(c.get(k, 0)).rjust(12) for k in shown))
    return "\n".join(out)


def describe(d: dict) -> str:
    name = os.path.relpath(d["file"], CORPUS) if os.path.isabs(d["file"]) else d["file"]
    s = f"{name}: {d['status']}"
    if d.get("reason"):
        s += f" ({d['reason']})"
    locs = d.get("localization") or []
    if locs:
        loc = locs[0]
        ins = loc.get("instruction")
        s += f"\n    [{loc.get('verdict')}]"
        if ins:
            s += f" line {ins.get('line')}: {ins.get('text')}"
        if loc.get("executor") and ins:
            s += f"\n      executor {', '.join(loc['executor'])}\n      implementation " \
                 f"{', '.join(loc.get('implementation') or [])}"
    elif d.get("first_differences"):
        fd = d["first_differences"][0]
        s += f"\n    {fd.get('output')} lane {fd.get('lane')}: {fd.get('detail') or ''}" \
             f"{fd.get('expected', '')} vs {fd.get('got', '')}"
    return s


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--corpus", default=str(CORPUS))
    p.add_argument("--sample", type=int, default=None, help="programs per folder (fixed sample)")
    p.add_argument("--seed", type=int, default=1, help="seed of the sample and of the inputs")
    p.add_argument("--lanes", type=int, default=1024)
    p.add_argument("--backend", default="gl", choices=["gl", "gl-spirv", "vulkan"])
    p.add_argument("--jobs", type=int, default=max(1, min(4, os.cpu_count() or 1)))
    p.add_argument("--timeout", type=float, default=120.0, help="seconds per program")
    p.add_argument("--no-localize", action="store_true", help="skip first-instruction search")
    p.add_argument("--json", metavar="OUT", help="write every program's report")
    p.add_argument("--quiet", action="store_true")
    args = p.parse_args(argv)
    files = sample(corpus_files(Path(args.corpus)), args.sample, args.seed)
    if not files:
        print(f"diffcheck: no corpus at {args.corpus}", file=sys.stderr)
        return 2
    paths, folder_of = [], []
    for folder, lst in files.items():
        for f in lst:
            paths.append(str(f))
            folder_of.append(folder)
    t0 = time.time()
    done = [0]

    def progress(idx, doc):
        done[0] += 1
        if not args.quiet:
            print(f"[{done[0]}/{len(paths)}] {doc['status']:11s} "
                  f"{os.path.relpath(doc['file'], args.corpus)}", file=sys.stderr, flush=True)

    try:
        docs = run_all(paths, backend=args.backend, lanes=args.lanes, seed=args.seed,
                       jobs=args.jobs, timeout=args.timeout, localize=not args.no_localize,
                       progress=progress)
    except RuntimeError as e:
        print(f"diffcheck: no implementation available: {e}", file=sys.stderr)
        return 3
    by_file = {d["file"]: d for d in docs}
    results: dict[str, list[dict]] = {}
    for path, folder in zip(paths, folder_of):
        results.setdefault(folder, []).append(by_file[path])
    print(f"xlate verify over {len(paths)} NV4 programs (backend {args.backend}, "
          f"{args.lanes} lanes, seed {args.seed}, {time.time() - t0:.0f} s)\n")
    print(table(results))
    bad = [d for docs_ in results.values() for d in docs_
           if d["status"] not in ("pass", "unsupported")]
    if bad:
        print("\nnot passing:")
        for d in bad:
            print("  " + describe(d))
    unsup: dict[str, int] = {}
    for docs_ in results.values():
        for d in docs_:
            if d["status"] == "unsupported":
                unsup[d.get("reason", "")] = unsup.get(d.get("reason", ""), 0) + 1
    if unsup:
        print("\nunsupported, by reason:")
        for r, n in sorted(unsup.items(), key=lambda kv: -kv[1]):
            print(f"  {n:5d}  {r}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"backend": args.backend, "lanes": args.lanes, "seed": args.seed,
                       "results": results}, f, indent=1)
    return 1 if any(d["status"] == "mismatch" for d in bad) else 0


if __name__ == "__main__":
    sys.exit(main())
