#!/usr/bin/env python3
"""Run ``xlate verify`` over the corpus (NV_gpu_program4 by default; TGSI or the pre-NV4
families with ``--dialect``) and print a table per dialect folder.

    python tools/diffcheck.py                      # every NV4 program of ../shared/corpus
    python tools/diffcheck.py --sample 20 --seed 3 # a fixed deterministic sample per folder
    python tools/diffcheck.py --json out.json --backend gl-spirv --jobs 2
    python tools/diffcheck.py --backend vulkan --jobs 1  # the Vulkan SPIR-V on lavapipe
    python tools/diffcheck.py --cluster tcp://HOST:8786   # on a Dask cluster (xlate.cluster)
    python tools/diffcheck.py --dialect tgsi        # the TGSI programs that translate
    python tools/diffcheck.py --dialect older --lanes 256   # VP1/VP2, ARBvp/fp (+NV), FP1
    python tools/diffcheck.py --generated vp2.0 --count 500 --lanes 256 --jobs 1
                                                   # random valid programs of a dialect
                                                   # (xlate.verify.generate; "all": every one)

Folders: cg/gp4vp, cg/gp4fp, cg/gp4gp, collected/nvfp4, collected/nvgp4 (dialect = the
program header).  Each program runs in a worker process with a time limit (a translation that
loops forever on the implementation must not hang the run).  The table counts programs,
passed, mismatched, unsupported (and skipped/error/timeout when present); the mismatches are
listed with the first localized instruction and its verdict (see ``xlate/verify/trace.py``).

Columns: ``passed`` (no difference), ``mismatched`` (outputs differed) = ``explained`` (every
difference has a verdict of ``xlate.verify.compare.EXPLANATIONS``, which names the spec passage
and the documented tolerance; printed per verdict) + ``unexplained`` (a mismatch to fix).

Exit status: 0 when no mismatch is unexplained, 1 otherwise, 3 when no implementation is
available.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from xlate.verify.batch import run_all  # noqa: E402
sys.path.insert(0, str(ROOT / "tools"))
from shared_location import shared_dir  # noqa: E402  (XLATE_SHARED)
CORPUS = shared_dir(ROOT) / "corpus"
FOLDERS = ("cg/gp4vp", "cg/gp4fp", "cg/gp4gp", "collected/nvfp4", "collected/nvgp4")
TGSI_FOLDERS = ("collected/tgsi",)      # --dialect tgsi (issue 6)
#: --dialect for the pre-NV4 families (issue 5): collected programs and cgc's output per profile
OLDER = {
    "vp": ("collected/nvvp1.0", "collected/nvvp1.1", "collected/nvvsp1.0", "cg/vp20", "cg/vp30"),
    "arbvp": ("collected/arbvp", "collected/arbvp_nv2", "collected/arbvp_nv3", "cg/vp40",
              "cg/arbvp1"),
    "arbfp": ("collected/arbfp", "collected/arbfp_nv", "collected/arbfp_nv2", "cg/fp40",
              "cg/arbfp1"),
    "fp1": ("collected/nvfp1.0", "cg/fp30"),
}
DIALECTS = {"nv4": FOLDERS, "tgsi": TGSI_FOLDERS, **OLDER,
            "older": tuple(f for fs in OLDER.values() for f in fs)}
EXTS = (".vp", ".fp", ".gp", ".tgsi")


def corpus_files(corpus: Path = CORPUS, folders=FOLDERS) -> dict[str, list[Path]]:
    out = {}
    for folder in folders:
        d = corpus / folder
        if d.is_dir():
            out[folder] = sorted(p for p in d.rglob("*") if p.suffix in EXTS and p.is_file())
    return out


def generated_files(dialects: str, count: int, seed: int, stage: str,
                    outdir: str | None, avoid=frozenset()) -> dict[str, list[Path]]:
    """``--generated``: write ``count`` random programs (seeds ``seed``..) of each dialect
    (comma-separated, or ``all``) and stage into ``outdir`` (a temporary folder by default),
    leaving out the generator features ``avoid``; one table row per dialect and stage."""
    import tempfile
    sys.path.insert(0, str(ROOT / "tools"))
    from gen_programs import write_programs
    from xlate.verify.generate import DIALECTS as GEN
    names = list(GEN) if dialects == "all" else [d for d in dialects.split(",") if d]
    root = Path(outdir or tempfile.mkdtemp(prefix="xlate-generated-"))
    out: dict[str, list[Path]] = {}
    for name in names:
        if name not in GEN:
            raise SystemExit(f"diffcheck: unknown generator dialect {name!r} "
                             f"(known: {', '.join(GEN)})")
        for st in GEN[name].stages if stage == "all" else [stage]:
            if st not in GEN[name].stages:
                continue
            label = name if len(GEN[name].stages) == 1 else f"{name} {st}"
            out[f"generated/{label}"] = write_programs(str(root / name), name, count, seed, st,
                                                       avoid=avoid)
    return out


def sample(files: dict[str, list[Path]], n: int | None, seed: int) -> dict[str, list[Path]]:
    if n is None:
        return files
    out = {}
    for folder, lst in files.items():
        rng = random.Random(f"{seed}:{folder}")
        out[folder] = sorted(rng.sample(lst, min(n, len(lst))))
    return out


# ---- reporting -------------------------------------------------------------------------------------

COLUMNS = ("programs", "passed", "mismatched", "explained", "unexplained", "unsupported",
           "skipped", "error", "timeout", "crash")
ALWAYS_SHOWN = ("programs", "passed", "mismatched", "explained", "unexplained", "unsupported")


def explained_verdicts(d: dict) -> list[str] | None:
    """The verdicts of a program whose differences are all explained (it passed with reason
    "differences explained"); None when it had no differences or is not explained."""
    if d["status"] != "pass" or not d.get("reason", "").startswith("differences explained"):
        return None
    from xlate.verify.compare import EXPLANATIONS
    vs = sorted({x.get("verdict") for x in d.get("localization") or []} & set(EXPLANATIONS))
    return vs or ["tolerance"]


def category(d: dict) -> str:
    """passed (no difference at all) | explained (every difference explained by a verdict of
    compare.EXPLANATIONS) | unexplained (a mismatch) | unsupported | skipped | error | ..."""
    st = d["status"]
    if st == "pass":
        return "explained" if explained_verdicts(d) is not None else "passed"
    if st == "mismatch":
        return "unexplained"
    return st


def table(results: dict[str, list[dict]]) -> str:
    rows = []
    totals = {c: 0 for c in COLUMNS}
    for folder, docs in results.items():
        c = {k: 0 for k in COLUMNS}
        c["programs"] = len(docs)
        for d in docs:
            key = category(d)
            c[key] = c.get(key, 0) + 1
            if key in ("explained", "unexplained"):
                c["mismatched"] += 1
        rows.append((folder, c))
        for k in COLUMNS:
            totals[k] += c.get(k, 0)
    rows.append(("total", totals))
    shown = [k for k in COLUMNS if k in ALWAYS_SHOWN or totals[k]]
    w = max(len(r[0]) for r in rows) + 2
    out = ["dialect folder".ljust(w) + "".join(k.rjust(12) for k in shown)]
    out.append("-" * len(out[0]))
    for folder, c in rows:
        out.append(folder.ljust(w) + "".join(str(c.get(k, 0)).rjust(12) for k in shown))
    return "\n".join(out)


def shown(path: str, corpus=CORPUS) -> str:
    """A corpus file relative to the corpus; anything else (generated programs) as it is."""
    rel = os.path.relpath(path, corpus)
    return path if rel.startswith("..") else rel


def describe(d: dict) -> str:
    name = shown(d["file"]) if os.path.isabs(d["file"]) else d["file"]
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


def oracle_main(args) -> int:
    from xlate.verify.glapi import GLUnavailable
    from xlate.verify.gl import Runner
    from xlate.verify.oracle import CompatRunner, compare_pair, pairs
    ps = pairs(Path(args.corpus))
    if args.match:
        ps = [p for p in ps if any(m in p[0].as_posix() for m in args.match)]
    if args.sample is not None:
        rng = random.Random(f"{args.seed}:oracle")
        ps = sorted(rng.sample(ps, min(args.sample, len(ps))))
    try:
        runner, compat = Runner("gl"), CompatRunner()
    except GLUnavailable as e:
        print(f"diffcheck: no implementation available: {e}", file=sys.stderr)
        return 3
    results = []
    t0 = time.time()
    for k, (asm, glsl, stage) in enumerate(ps):
        try:
            r = compare_pair(asm, glsl, stage, lanes=min(args.lanes, 1024), seed=args.seed,
                             runner=runner, compat=compat,
                             explain=not args.no_explain).to_json()
        except Exception as e:                      # keep going; report it
            r = {"asm": str(asm), "glsl": str(glsl), "stage": stage, "status": "error",
                 "reason": f"{type(e).__name__}: {e}", "compared": 0, "exact": 0,
                 "tolerant": 0, "differing": 0, "max_rel": 0.0, "examples": []}
        results.append(r)
        if not args.quiet:
            print(f"[{k + 1}/{len(ps)}] {r['status']:11s} {os.path.relpath(str(asm), args.corpus)}",
                  file=sys.stderr, flush=True)
    print(f"cgc-GLSL oracle over {len(results)} pairs ({time.time() - t0:.0f} s, seed {args.seed})\n")
    for stage in ("vertex", "fragment", None):
        rs = [r for r in results if stage is None or r["stage"] == stage]
        cnt = {s: sum(r["status"] == s for r in rs) for s in ("match", "differ", "unsupported",
                                                              "error", "cgc-defect")}
        expl = sum(r["status"] == "differ" and (r.get("explanation") or {}).get("status")
                   == "explained" for r in rs)
        comps = sum(r["compared"] for r in rs)
        exact = sum(r["exact"] for r in rs)
        tol = sum(r["tolerant"] for r in rs)
        print(f"{stage or 'total':9s} pairs {len(rs):5d}  match {cnt['match']:5d}  differ "
              f"{cnt['differ']:4d} (explained {expl:4d}, unexplained {cnt['differ'] - expl:4d})"
              f"  cgc-defect {cnt['cgc-defect']:3d}  unsupported {cnt['unsupported']:4d}  "
              f"error {cnt['error']:4d}"
              f"  | components {comps}: exact {exact}, within 2^-12 relative {tol}, "
              f"differing {comps - exact - tol}")
    causes = collections.Counter(r.get("cause") or "?" for r in results if r["status"] == "differ")
    if causes:
        print("\ndiffering pairs by cause (xlate/verify/oracle.py cause()): "
              + ", ".join(f"{c} {n}" for c, n in causes.most_common()))
    verdicts = collections.Counter()
    for r in results:
        for v, n in ((r.get("explanation") or {}).get("verdicts") or {}).items():
            verdicts[v] += n
    if verdicts:
        from xlate.verify.oracle_explain import VERDICTS
        print("\ndiffering lanes by shown verdict (xlate/verify/oracle_explain.py, "
              "docs/cgc-oracle.md):")
        for v, n in verdicts.most_common():
            print(f"  {n:7d}  {v}: {VERDICTS.get(v.split('+')[0], '')}")
        ill = sum("ill-conditioned" in ((r.get("explanation") or {}).get("verdicts") or {})
                  and r["explanation"]["status"] == "explained" for r in results)
        print(f"  ({ill} explained pairs rest partly on ill-conditioned lanes, which do not "
              f"reproduce cgc's value)")
    for r in results:
        if r["status"] in ("differ", "error", "unsupported", "cgc-defect"):
            e = r.get("explanation") or {}
            state = f"{r['status']}/{e['status']}" if e else r["status"]
            print(f"  {state:20s} {os.path.relpath(r['asm'], args.corpus)}: "
                  f"{r.get('cause') or r.get('reason') or ''} max rel {r.get('max_rel', 0):.2g} "
                  f"{'; '.join(r.get('examples', [])[:2])}")
            if e:
                print(f"      lanes {e['lanes']}, explained {e['explained']}: "
                      + ", ".join(f"{v} {n}" for v, n in e["verdicts"].items()))
                for u in e["unexplained"][:1]:
                    where = "; ".join(f"line {i.get('line')}: {i['text']}"
                                      for i in u["instructions"][:1]) or "(no instruction)"
                    print(f"      unexplained lane {u['lane']} at {where}: {u['detail']}")
    if args.json:
        from xlate.fsio import atomic_write
        atomic_write(args.json, (json.dumps({"oracle": results}, indent=1) + "\n").encode())
    unexplained = sum(r["status"] == "differ" and (r.get("explanation") or {}).get("status")
                      != "explained" for r in results)
    return 1 if unexplained and not args.no_explain else 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--corpus", default=str(CORPUS))
    p.add_argument("--dialect", default="nv4", choices=list(DIALECTS),
                   help="which corpus folders: the NV4 ones (default), collected/tgsi, or a "
                        "pre-NV4 family (vp: VP1.x/VSP1.0/VP2.0; arbvp: ARBvp1.0 +NV2/NV3; "
                        "arbfp: ARBfp1.0 +NV/NV2; fp1: FP1.0; older: all four)")
    p.add_argument("--sample", type=int, default=None, help="programs per folder (fixed sample)")
    p.add_argument("--match", action="append", default=[], metavar="TEXT",
                   help="only the programs whose corpus path contains TEXT (repeatable: any "
                        "of them), e.g. --match foonull+HaloMD")
    p.add_argument("--seed", type=int, default=1, help="seed of the sample and of the inputs")
    p.add_argument("--lanes", type=int, default=1024)
    p.add_argument("--backend", default="gl", choices=["gl", "gl-spirv", "vulkan"],
                   help="gl (default), gl-spirv (GL_ARB_gl_spirv) or vulkan (lavapipe); not "
                        "used by --oracle, which runs on GL")
    p.add_argument("--jobs", type=int, default=max(1, min(4, os.cpu_count() or 1)))
    p.add_argument("--timeout", type=float, default=120.0, help="seconds per program")
    p.add_argument("--cluster", metavar="ADDRESS",
                   help="verify on a Dask cluster instead of --jobs local processes: "
                   "tcp://HOST:PORT of a scheduler, or local[:N] (pip install 'xlate[cluster]')")
    p.add_argument("--no-localize", action="store_true", help="skip first-instruction search")
    p.add_argument("--json", metavar="OUT", help="write every program's report")
    p.add_argument("--quiet", action="store_true")
    p.add_argument("--list-explained", action="store_true",
                   help="list the programs under each explanation")
    p.add_argument("--generated", metavar="DIALECTS",
                   help="instead of the corpus: random valid programs of these generator "
                        "dialects (comma-separated, or 'all'; tools/gen_programs.py --list)")
    p.add_argument("--count", type=int, default=100, help="--generated: programs per dialect "
                   "and stage (seeds --seed ..)")
    p.add_argument("--stage", default="all", help="--generated: vertex, fragment, geometry, "
                   "tess_evaluation, tess_control, compute (tgsi) or all (default)")
    p.add_argument("--avoid", default="", help="--generated: comma-separated generator "
                   "features to leave out (e.g. transcendental; xlate/verify/generate)")
    p.add_argument("--out", metavar="DIR", help="--generated: write the programs here (kept)")
    p.add_argument("--no-explain", action="store_true",
                   help="--oracle: skip the counterfactual explanation of differing pairs "
                        "(xlate/verify/oracle_explain.py)")
    p.add_argument("--oracle", action="store_true",
                   help="instead: compare xlate's translation of cgc's NV4 assembly with cgc's "
                        "own GLSL for the same Cg entry point (xlate/verify/oracle.py)")
    args = p.parse_args(argv)
    if args.oracle:
        return oracle_main(args)
    if args.generated:
        files = generated_files(args.generated, args.count, args.seed, args.stage, args.out,
                                frozenset(a for a in args.avoid.split(",") if a))
    else:
        files = sample(corpus_files(Path(args.corpus), DIALECTS[args.dialect]), args.sample,
                       args.seed)
    if args.match:
        files = {folder: [f for f in lst if any(m in f.as_posix() for m in args.match)]
                 for folder, lst in files.items()}
        files = {folder: lst for folder, lst in files.items() if lst}
    if args.dialect != "nv4" and not args.generated:
        # programs that do not translate (MANIFEST `error` files, damaged dumps, rejected
        # constructs) are counted per file by the corpus tests (test_corpus_tgsi.py,
        # test_vp_corpus.py ...); verify compares the ones that do
        from xlate import api
        from xlate.diagnostics import XlateError
        for folder, lst in files.items():
            keep = []
            for f in lst:
                try:
                    api.parse(f.read_bytes().decode("utf-8", "replace"), filename=str(f))
                    keep.append(f)
                except XlateError:
                    pass
            files[folder] = keep
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
                  f"{shown(doc['file'], args.corpus)}", file=sys.stderr, flush=True)

    from xlate.cluster import ClusterUnavailable
    try:
        docs = run_all(paths, backend=args.backend, lanes=args.lanes, seed=args.seed,
                       jobs=args.jobs, timeout=args.timeout, localize=not args.no_localize,
                       progress=progress, cluster=args.cluster)
    except RuntimeError as e:
        print(f"diffcheck: no implementation available: {e}", file=sys.stderr)
        return 3
    except ClusterUnavailable as e:
        print(f"diffcheck: {e}", file=sys.stderr)
        return 3
    by_file = {d["file"]: d for d in docs}
    results: dict[str, list[dict]] = {}
    for path, folder in zip(paths, folder_of):
        results.setdefault(folder, []).append(by_file[path])
    what = f"generated ({args.generated})" if args.generated else args.dialect.upper()
    print(f"xlate verify over {len(paths)} {what} programs (backend {args.backend}, "
          f"{args.lanes} lanes, seed {args.seed}, {time.time() - t0:.0f} s)\n")
    print(table(results))
    print("\n(mismatched = explained + unexplained: programs whose outputs differed; explained ="
          " every difference\n has a verdict of xlate.verify.compare.EXPLANATIONS, listed below"
          " with its spec passage and tolerance)")
    bad = [d for docs_ in results.values() for d in docs_
           if d["status"] not in ("pass", "unsupported")]
    by_verdict: dict[str, list[dict]] = {}
    for docs_ in results.values():
        for d in docs_:
            for v in explained_verdicts(d) or []:
                by_verdict.setdefault(v, []).append(d)
    if by_verdict:
        from xlate.verify.compare import EXPLANATIONS
        print("\nexplained, by verdict (a program may have several):")
        for v, ds in sorted(by_verdict.items(), key=lambda kv: -len(kv[1])):
            spec, tol = EXPLANATIONS[v]
            print(f"  {len(ds):5d}  {v}\n         spec: {spec}\n         tolerance: {tol}")
            if args.list_explained:
                for d in ds:
                    print(f"           {shown(d['file'], args.corpus)}")
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
    unexplained = sum(d["status"] == "mismatch" for d in bad)
    explained = sum(len(v) for v in by_verdict.values())
    print(f"\nexplained: {sum(explained_verdicts(d) is not None for docs_ in results.values() for d in docs_)}"
          f" programs ({explained} verdicts); unexplained: {unexplained}")
    return 1 if unexplained else 0


if __name__ == "__main__":
    sys.exit(main())
