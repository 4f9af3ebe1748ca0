#!/usr/bin/env python3
"""Translation speed on the shared NV4 corpus, as ratios against baselines measured in this run.

Prints:
  * programs/s source -> GLSL (parse + passes + GLSL emission, no glslang), per core:
    over the whole corpus, and for the median program (1 / median per-program time);
  * end-to-end source -> validated SPIR-V (vulkan profile: translate + glslang + SPIRV-Tools)
    as a ratio to glslang alone compiling the same GLSL (goal: <= 3x).
Both through the library call an engine's build script makes: ``xlate.translate(source,
target="glsl", validate=False)`` and ``xlate.translate(source, target="spirv")``.

With ``--direct``: also source -> validated SPIR-V by the direct path (xlate's own SPIR-V,
``translate(..., via="direct")``, spirv-val only) for the programs it covers, as a ratio to
glslang alone on the same programs (goal <= 1.5x, aim < 1x), with where the time goes:
parse, passes (the middle end), emission (interface plan + SPIR-V words), spirv-val.
``--corpus arb`` times the ARB/NV1 corpus folders instead of NV4.

Run:  python tools/bench_translate.py [--limit N] [--repeat R] [--direct] [--corpus nv4|arb]
One process, one core (the other core idle is best).  The first glslang compile of a process
builds glslang's built-in tables; a warm-up compile keeps it out of the figures.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from xlate.api import SPIRV_STAGE, translate  # noqa: E402
from xlate.backends import spirv as sp  # noqa: E402
from xlate.backends.glsl import emit_glsl  # noqa: E402
from xlate.frontends import parse_program  # noqa: E402

sys.path.insert(0, str(ROOT / "tools"))
from shared_location import shared_dir  # noqa: E402  (XLATE_SHARED)
CORPUS = shared_dir(ROOT) / "corpus"


CORPORA = {"nv4": ("cg/gp4vp", "cg/gp4fp", "cg/gp4gp", "collected/nvfp4", "collected/nvgp4"),
           "arb": ("cg/arbvp1", "cg/arbfp1", "cg/fp40", "cg/vp40", "collected/arbfp",
                   "collected/arbvp", "cg/fp30", "cg/vp20")}


def corpus_files(corpus: str = "nv4") -> list[Path]:
    files = []
    for sub in CORPORA[corpus]:
        files += sorted((CORPUS / sub).rglob("*.*p"))
    return files


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=int, default=0, help="use only the first N programs")
    ap.add_argument("--repeat", type=int, default=3, help="best of R timings per program")
    ap.add_argument("--direct", action="store_true", help="also time the direct SPIR-V path")
    ap.add_argument("--corpus", choices=sorted(CORPORA), default="nv4")
    args = ap.parse_args()
    if not CORPUS.is_dir():
        print(f"shared corpus not found at {CORPUS}", file=sys.stderr)
        return 2
    sources = []
    for f in corpus_files(args.corpus):
        text = f.read_text(errors="replace")
        try:
            parse_program(text, f.name)
        except Exception:
            continue                      # programs the spec rejects are not timed
        sources.append((f.name, text))
    if args.limit:
        sources = sources[: args.limit]
    # warm up: grammar, templates, glslang built-in tables
    prog = parse_program(sources[0][1], sources[0][0])
    sp.compile_glsl(emit_glsl(prog, "vulkan").source, SPIRV_STAGE[prog.stage])

    to_glsl, glslang_alone, end_to_end = [], [], []
    for name, text in sources:
        best = float("inf")
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            translate(text, filename=name, target="glsl", validate=False)
            best = min(best, time.perf_counter() - t0)
        to_glsl.append(best)
        prog = parse_program(text, name)
        vk = emit_glsl(prog, "vulkan").source
        stage = SPIRV_STAGE[prog.stage]
        best_g = best_e = float("inf")
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            sp.compile_glsl(vk, stage)
            best_g = min(best_g, time.perf_counter() - t0)
            t0 = time.perf_counter()
            assert translate(text, filename=name, target="spirv").spirv     # validated
            best_e = min(best_e, time.perf_counter() - t0)
        glslang_alone.append(best_g)
        end_to_end.append(best_e)

    n = len(sources)
    med = statistics.median(to_glsl)
    print(f"programs: {n} {args.corpus} programs from {CORPUS}")
    print(f"source -> GLSL:      {n / sum(to_glsl):8.1f} programs/s/core over the corpus; "
          f"median program {med * 1e3:.2f} ms = {1 / med:.1f} programs/s/core (goal >= 300)")
    g, e = sum(glslang_alone), sum(end_to_end)
    print(f"glslang alone:       {g / n * 1e3:8.2f} ms/program (baseline, same GLSL, in-process)")
    print(f"end to end (SPIR-V): {e / n * 1e3:8.2f} ms/program = {e / g:.2f}x glslang alone "
          f"(median ratio {statistics.median(b / a for a, b in zip(glslang_alone, end_to_end)):.2f}x; goal <= 3x)")
    if args.direct:
        direct_figures(sources, glslang_alone, args.repeat)
    return 0


def direct_figures(sources, glslang_alone, repeat: int) -> None:
    """End to end by the direct path, against glslang alone on the programs it covers."""
    from xlate.backends.spirv_direct import NotCovered, emit_spirv
    rows = []          # (glslang alone, direct end to end, parse, passes, emission, spirv-val)
    for (name, text), g in zip(sources, glslang_alone):
        prog = parse_program(text, name)
        try:
            emit_spirv(prog, "vulkan")
        except NotCovered:
            continue
        best = [float("inf")] * 5
        for _ in range(repeat):
            t0 = time.perf_counter()
            assert translate(text, filename=name, target="spirv", via="direct").spirv
            t1 = time.perf_counter()
            prog = parse_program(text, name)
            t2 = time.perf_counter()
            split: dict = {}
            words = emit_spirv(prog, "vulkan", timings=split).spirv
            t4 = time.perf_counter()
            assert sp.validate_spirv(words, target="vulkan") is None
            t5 = time.perf_counter()
            for i, v in enumerate((t1 - t0, t2 - t1, split["passes"], split["emission"], t5 - t4)):
                best[i] = min(best[i], v)
        rows.append((g, *best))
    if not rows:
        print("direct SPIR-V: no program of this corpus is covered")
        return
    n = len(rows)
    g = sum(r[0] for r in rows)
    d = sum(r[1] for r in rows)
    med = statistics.median(r[1] / r[0] for r in rows)
    print(f"direct SPIR-V:       {n} of {len(sources)} programs covered")
    print(f"  glslang alone      {g / n * 1e3:8.2f} ms/program on these")
    print(f"  end to end direct  {d / n * 1e3:8.2f} ms/program = {d / g:.2f}x glslang alone "
          f"(median ratio {med:.2f}x; goal <= 1.5x, aim < 1x)")
    parts = [sum(r[i] for r in rows) for i in range(2, 6)]
    total = sum(parts)
    print("  where the time goes: " + ", ".join(
        f"{what} {t / n * 1e3:.2f} ms ({100 * t / total:.0f} %)"
        for what, t in zip(("parse", "passes", "emission", "spirv-val"), parts)))


if __name__ == "__main__":
    sys.exit(main())
