#!/usr/bin/env python3
"""Mutation testing of ``xlate verify``: make clean translations wrong, count what passes.

    python tools/verify_mutants.py --source generated --programs 60 --mutants-per-program 4
    python tools/verify_mutants.py --source shared --programs 80 --dialect arbfp,fp40
    python tools/verify_mutants.py --source own --json /tmp/mutants-own.json

For every program that verifies cleanly (status ``pass``, zero differences) the tool injects
faults into the GLSL the verifier runs (``xlate/verify/mutants.py``: a wrapper runner edits
every shader the verifier compiles, probes and re-runs included) and verifies each mutant.
Outcomes: ``caught`` (mismatch), ``tolerated`` (pass, zero differences), ``explained``
(pass, differences explained away), ``equivalent`` (bit-identical outputs on the verifier's
inputs), ``precision`` / ``zero-sign-only`` / ``nonfinite-only`` / ``undefined-only`` /
``flush-only`` /
``edge-only`` (passed, and shown by the harness's own check to be no wrong translation on
these inputs: a literal one ulp off, within GL's precision; outputs identical but for zero
signs; identical on every lane whose outputs do not depend on an Inf or NaN the original
program computes, or on every lane whose outputs do not depend on a result the specs leave
undefined; identical but for denormals given as zeros; identical but on lanes that
are, bit for bit, the original program with its lookups moved across the texel edges they
lie on -- ``mutants.permitted_mutant``; counted apart, listed with the reason), ``rejected`` (the implementation refuses the mutant, or the
verifier says unsupported/error/skipped), ``timeout``.  ``live`` = caught + tolerated +
explained; the verifier is sound on the sample when tolerated + explained = 0.

Sources (``--source``, comma-separated or ``all``): ``generated`` (``xlate.verify.generate``,
every dialect and stage, seeds from ``--seed``), ``own`` (the project's ``corpus/``),
``shared`` (``../shared/corpus``, the collected programs expected to be valid and cgc's output;
groups are the corpus folders).  Groups are named ``source:group``.  ``--programs`` is the
number of clean programs, spread evenly over the groups, which are visited round robin (one
program each per round) so that a run stopped by ``--deadline`` has covered all of them.
``--dialect`` keeps the groups whose name contains one of the comma-separated words.

Only statements whose result may reach an output are mutated (``glsl_liveness``); the
mutations the other statements would have had are equivalent by construction and only
counted (``not run``).  The report has tables per dialect (the parsed program's), per group
and per kind.

The full campaign (2,000+ live mutants over all dialects; hours on two cores), in the
background::

    nohup nice -n 15 python tools/verify_mutants.py --source all --programs 900 \
        --mutants-per-program 5 --tries 8 --jobs 2 --timeout 25 --deadline 4800 \
        --json /tmp/mutants.json > /tmp/mutants.txt 2> /tmp/mutants.log &

(the JSON is rewritten after every program, so a long run can be read while it goes on).

Where the time goes, and what is reused (docs/verify_mutants_baseline.md has the figures):
a program is checked for cleanness without localization (clean means no difference, so
nothing to localize; a program that differs is dropped at once); the verifier's main run of
a live mutant is the harness's equivalence run of the same shader on the same inputs
(``MutatingRunner(known=...)``, checked argument by argument); statements the liveness pass
proves dead are not run; ``jobs + 1`` programs are kept at the workers, so a slow program
does not idle the others at the end of a round.  Everything else -- the probes, the replay,
the permits -- is the verifier's own path, unchanged.
The direct SPIR-V path (issue 19), ``--target spirv-direct``: the mutants are edits of the
lowered tree the direct backend prints (``xlate/verify/mutants_tree.py``: the same kinds where
the tree has them), made in every direct module the verifier has emitted, and the verifier
runs ``--backend vulkan`` (lavapipe; the default for this target) or ``gl-spirv`` with
``via="direct"``; a program the direct path does not cover is not clean.  A mutated module
spirv-val refuses is ``rejected``::

    nohup nice -n 10 python tools/verify_mutants.py --target spirv-direct --source all \
        --programs 300 --mutants-per-program 4 --tries 12 --deadline 3000 \
        --json /tmp/mutants-direct.json > /tmp/mutants-direct.txt 2> /tmp/mutants-direct.log &

Exit status: 0 when no live mutant fooled the verifier, 1 otherwise, 3 without OpenGL (or
Vulkan, for ``--backend vulkan``).
"""
from __future__ import annotations

import argparse
import csv
import json
import math
import multiprocessing
import os
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from xlate.verify import mutants as M  # noqa: E402

sys.path.insert(0, str(ROOT / "tools"))
from shared_location import shared_dir  # noqa: E402  (XLATE_SHARED)
SHARED = shared_dir(ROOT) / "corpus"
PROGRAM_EXTS = (".vp", ".fp", ".gp", ".tgsi")


# ---- program sources: group -> iterator of (name, text) -----------------------------------------

def generated_groups(seed: int, size: int = 12) -> dict[str, object]:
    from xlate.verify.generate import DIALECTS, generate

    def programs(dialect, stage):
        s = seed
        while True:
            yield f"gen:{dialect}-{stage}-{s}", generate(dialect, s, stage, size, frozenset())
            s += 1

    return {f"{d.name}/{st}" if len(d.stages) > 1 else d.name: programs(d.name, st)
            for d in DIALECTS.values() for st in d.stages}


def _read(path: Path) -> str:
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def _group_of(text: str, name: str) -> str:
    from xlate import api
    try:
        p = api.parse(text, filename=name)
    except Exception:
        return "unparsed"
    return f"{p.dialect}/{p.stage.value}"


def own_groups(seed: int) -> dict[str, object]:
    files = sorted(p for p in (ROOT / "corpus").rglob("*") if p.suffix in PROGRAM_EXTS)
    groups: dict[str, list] = {}
    for p in files:
        text = _read(p)
        groups.setdefault(_group_of(text, str(p)), []).append((str(p.relative_to(ROOT)), text))
    return {g: iter(v) for g, v in sorted(groups.items()) if g != "unparsed"}


def shared_groups(seed: int) -> dict[str, object]:
    """Corpus folders -> a deterministic shuffle of their programs (valid ones only)."""
    groups: dict[str, list] = {}
    for part in ("collected", "cg"):
        manifest = SHARED / part / "MANIFEST.tsv"
        if not manifest.exists():
            continue
        with open(manifest, newline="") as f:
            for row in csv.DictReader(f, delimiter="\t"):
                if row.get("expected", "ok") != "ok" or \
                        not row["file"].endswith(PROGRAM_EXTS):
                    continue
                folder = row["file"].split("/")[0]
                groups.setdefault(f"{part}/{folder}", []).append(row["file"])
    def programs(part, files):
        for f in files:
            yield f"shared:{part}/{f}", _read(SHARED / part / f)

    out = {}
    for g, files in sorted(groups.items()):
        random.Random(f"{seed}:{g}").shuffle(files)
        out[g] = programs(g.split("/")[0], files)
    return out


SOURCES = {"generated": generated_groups, "own": own_groups, "shared": shared_groups}


# ---- workers ------------------------------------------------------------------------------------

_RUNNER = None


def _runner(backend: str):
    global _RUNNER
    if _RUNNER is None:
        from xlate.verify.core import make_runner
        _RUNNER = make_runner(backend)
    return _RUNNER


def _work(task) -> M.ProgramResult:
    name, group, text, opts = task
    try:
        return M.mutate_program(text, name, group, _runner(opts["backend"]), **opts["kw"])
    except Exception as e:                 # a harness failure must not end a long campaign
        return M.ProgramResult(name, group, f"harness error: {type(e).__name__}: {e}"[:300])


class Group:
    """One group's progress: its programs (an iterator), the clean ones done, how many tried,
    how many are out at a worker."""

    def __init__(self, name: str, programs, quota: int, max_candidates: int):
        self.name, self.programs, self.quota = name, programs, quota
        self.max_candidates = max_candidates
        self.done: list = []
        self.seen = 0
        self.pending = 0
        self.exhausted = False

    @property
    def open(self) -> bool:
        """More programs may be handed out: the clean quota is not met counting those out at
        workers (each might be clean), and the group has candidates left."""
        return not self.exhausted and len(self.done) + self.pending < self.quota and \
            self.seen < self.max_candidates

    @property
    def finished(self) -> bool:
        return not self.open and not self.pending

    def take(self):
        """The next program (name, group, text), or None when the group has none left."""
        for name, text in self.programs:
            self.seen += 1
            self.pending += 1
            return name, self.name, text
        self.exhausted = True
        return None


def run_rounds(groups: list[Group], opts: dict, pool, deadline: float, on_result,
               jobs: int = 1) -> None:
    """Clean programs of every group, handed out round robin (one program per open group per
    round, so a run stopped at its deadline has covered every group evenly), each group in a
    deterministic order.  With a pool, ``jobs + 1`` programs are kept at the workers at all
    times: a round's slowest program no longer leaves the other workers idle (a program that
    is not clean frees its slot at once and the next group's program takes it).
    ``on_result`` is called after every program (the JSON is rewritten there)."""
    by_name = {g.name: g for g in groups}
    turn = [0]

    def next_task():
        for _ in range(len(groups)):
            g = groups[turn[0] % len(groups)]
            turn[0] += 1
            if g.open:
                t = g.take()
                if t is not None:
                    return t + (opts,)
        return None

    def accept(r) -> None:
        g = by_name[r.group]
        g.pending -= 1
        if r.status == "clean" and len(g.done) < g.quota:
            g.done.append(r)
        on_result()

    if pool is None:
        while (task := next_task()) is not None:
            accept(_work(task))
            if deadline and time.time() >= deadline:
                return
        return
    out: list = []
    while True:
        while len(out) < jobs + 1 and (task := next_task()) is not None:
            out.append(pool.apply_async(_work, (task,)))
        if not out:
            return
        ready = [a for a in out if a.ready()]
        if not ready:
            if deadline and time.time() >= deadline:
                return            # at the deadline, stop waiting for programs still running
            out[0].wait(0.2)
            continue
        for a in ready:
            out.remove(a)
            accept(a.get())
        if deadline and time.time() >= deadline:
            return


# ---- report --------------------------------------------------------------------------------------

def fooled_lines(mutants: list[M.MutantResult]) -> list[str]:
    out = []
    for m in mutants:
        if m.outcome in M.FOOLED:
            out.append(f"{m.program} [{m.kind}] {m.outcome}: {m.before}  =>  {m.after}\n"
                       f"    verifier: {m.status} ({m.differences} differences) {m.reason}")
    return out


def write_json(path: str, settings: dict, programs: list, skipped: dict) -> None:
    mutants = [m for p in programs for m in p.mutants]
    doc = {"settings": settings, "by_dialect": M.tally(mutants, "dialect"),
           "by_group": M.tally(mutants, "group"), "by_kind": M.tally(mutants, "kind"),
           "dead_sites": sum(p.dead_sites for p in programs),
           "skipped_slow": sum(p.skipped_slow for p in programs),
           "programs": [{"program": p.program, "group": p.group, "mutants": len(p.mutants),
                         "dead_sites": p.dead_sites, "skipped_slow": p.skipped_slow}
                        for p in programs],
           "groups_short_of_clean_programs": skipped,
           "mutants": [m.to_json() for m in mutants]}
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1)
    os.replace(tmp, path)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--source", default="generated",
                   help=f"comma-separated: {', '.join(SOURCES)} (or 'all')")
    p.add_argument("--programs", type=int, default=30, help="clean programs in all")
    p.add_argument("--mutants-per-program", type=int, default=4,
                   help="non-equivalent mutants wanted per program")
    p.add_argument("--tries", type=int, default=8,
                   help="live sites tried per wanted mutant (a live statement's mutant may "
                        "still change no output bit on the verifier's inputs)")
    p.add_argument("--dialect", default="", help="comma-separated group name parts")
    p.add_argument("--target", default="glsl", choices=("glsl", "spirv-direct"),
                   help="what is mutated: the GLSL translation, or the direct SPIR-V path's "
                        "lowered tree")
    p.add_argument("--kinds", default="", help="comma-separated (default: every kind)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--lanes", type=int, default=256)
    p.add_argument("--backend", choices=("gl", "gl-spirv", "vulkan"),
                   help="default: gl for --target glsl, vulkan for --target spirv-direct")
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--timeout", type=float, default=120.0, help="seconds per mutant verify")
    p.add_argument("--max-timeouts", type=int, default=0,
                   help="stop mutating a program after this many of its mutants timed out "
                        "(0: never; the report counts the mutants not run)")
    p.add_argument("--deadline", type=float, default=0,
                   help="seconds: stop after this long (the report covers the programs that "
                        "finished)")
    p.add_argument("--json", help="write the full report here (rewritten after every program)")
    p.add_argument("--quiet", action="store_true")
    args = p.parse_args(argv)
    from xlate.verify import mutants_tree as T
    all_kinds = M.KINDS if args.target == "glsl" else T.KINDS
    kinds = tuple(k for k in args.kinds.split(",") if k) or all_kinds
    unknown = set(kinds) - set(all_kinds)
    if unknown:
        p.error(f"unknown kinds {sorted(unknown)}; known: {', '.join(all_kinds)}")
    if args.backend is None:
        args.backend = "gl" if args.target == "glsl" else "vulkan"
    if args.target == "spirv-direct" and args.backend not in ("vulkan", "gl-spirv"):
        p.error("--target spirv-direct runs on --backend vulkan or gl-spirv")
    if args.target == "glsl" and args.backend == "vulkan":
        p.error("--target glsl runs on --backend gl or gl-spirv")
    sources = list(SOURCES) if args.source == "all" else args.source.split(",")
    if set(sources) - set(SOURCES):
        p.error(f"unknown sources {sorted(set(sources) - set(SOURCES))}; known: "
                f"{', '.join(SOURCES)}")
    groups = {}
    for src in sources:
        for g, v in SOURCES[src](args.seed).items():
            groups[f"{src}:{g}"] = v
    if args.dialect:
        words = args.dialect.split(",")
        groups = {g: v for g, v in groups.items() if any(w in g for w in words)}
    if not groups:
        p.error("no program group matches")
    quota = math.ceil(args.programs / len(groups))
    opts = {"backend": args.backend, "jobs": args.jobs,
            "kw": {"per_program": args.mutants_per_program, "seed": args.seed,
                   "lanes": args.lanes, "kinds": kinds, "timeout": args.timeout,
                   "tries": args.tries, "max_timeouts": args.max_timeouts,
                   "target": args.target}}
    settings = {k: v for k, v in vars(args).items() if k != "json"}
    from xlate.verify.glapi import GLUnavailable
    if args.jobs <= 1:
        try:
            _runner(args.backend)
        except GLUnavailable as e:
            what = "Vulkan" if args.backend == "vulkan" else "OpenGL"
            print(f"verify_mutants: no {what} implementation: {e}", file=sys.stderr)
            return 3
    pool = multiprocessing.get_context("fork").Pool(args.jobs) if args.jobs > 1 else None
    state = [Group(g, progs, quota, quota * 6 + 6) for g, progs in groups.items()]
    t0 = time.time()

    def programs():
        return [r for g in state for r in g.done]

    def short():
        return {g.name: f"{len(g.done)} clean of {quota} wanted ({g.seen} tried)"
                for g in state if len(g.done) < quota}

    def on_result():
        ms = [m for x in programs() for m in x.mutants]
        live = sum(m.outcome in M.LIVE for m in ms)
        if not args.quiet:
            print(f"[{time.time() - t0:7.1f}s] {len(programs())} programs, {len(ms)} mutants, "
                  f"{live} live, {sum(m.outcome in M.FOOLED for m in ms)} explained away",
                  file=sys.stderr, flush=True)
        if args.json:
            write_json(args.json, settings, programs(), short())

    try:
        run_rounds(state, opts, pool, t0 + args.deadline if args.deadline else 0, on_result,
                   args.jobs)
    finally:
        if pool:
            pool.terminate()
    done = programs()
    if args.json:
        write_json(args.json, settings, done, short())
    mutants = [m for x in done for m in x.mutants]
    print(M.format_table(M.tally(mutants, "dialect"), "dialect"))
    print()
    print(M.format_table(M.tally(mutants, "group"), "group"))
    print()
    print(M.format_table(M.tally(mutants, "kind"), "kind"))
    dead = sum(x.dead_sites for x in done)
    how = "glsl_liveness" if args.target == "glsl" else "passes/liveness.py"
    print(f"\nnot run: {dead} mutations of statements whose result is never read "
          f"(equivalent by construction, {how})")
    slow = sum(x.skipped_slow for x in done)
    if slow:
        print(f"not run: {slow} wanted mutants of programs whose mutants timed out "
              f"{args.max_timeouts} times (--max-timeouts)")
    fooled = fooled_lines(mutants)
    print(f"\n{len(fooled)} live mutants passed the verifier (explained away):")
    for line in fooled:
        print(line)
    permitted = [m for m in mutants if m.outcome in M.PERMITTED]
    print(f"\n{len(permitted)} mutants passed and are no wrong translation (counted apart):")
    for m in permitted:
        print(f"{m.program} [{m.kind}] {m.outcome}: {m.before}  =>  {m.after}\n    {m.reason}")
    if short():
        print("\ngroups short of clean programs: " +
              "; ".join(f"{g} ({v})" for g, v in short().items()))
    print(f"\n{len(done)} programs, {len(mutants)} mutants, {time.time() - t0:.0f} s")
    return 1 if fooled else 0


if __name__ == "__main__":
    sys.exit(main())
