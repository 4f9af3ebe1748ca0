#!/usr/bin/env python3
"""Translation speed on the shared NV4 corpus, as ratios against baselines measured in this run.

Prints:
  * programs/s source -> GLSL (parse + passes + GLSL emission, no glslang), per core:
    over the whole corpus, and for the median program (1 / median per-program time);
  * end-to-end source -> validated SPIR-V (vulkan profile: translate + glslang + SPIRV-Tools)
    as a ratio to glslang alone compiling the same GLSL (goal: <= 3x).
Both through the library call an engine's build script makes: ``xlate.translate(source,
target="glsl", validate=False)`` and ``xlate.translate(source, target="spirv")``.

Run:  python tools/bench_translate.py [--limit N] [--repeat R]
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


def corpus_files() -> list[Path]:
    files = []
    for sub in ("cg/gp4vp", "cg/gp4fp", "cg/gp4gp", "collected/nvfp4", "collected/nvgp4"):
        files += sorted((CORPUS / sub).rglob("*.*p"))
    return files


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=int, default=0, help="use only the first N programs")
    ap.add_argument("--repeat", type=int, default=3, help="best of R timings per program")
    args = ap.parse_args()
    if not CORPUS.is_dir():
        print(f"shared corpus not found at {CORPUS}", file=sys.stderr)
        return 2
    sources = []
    for f in corpus_files():
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
    print(f"programs: {n} NV4 programs from {CORPUS}")
    print(f"source -> GLSL:      {n / sum(to_glsl):8.1f} programs/s/core over the corpus; "
          f"median program {med * 1e3:.2f} ms = {1 / med:.1f} programs/s/core (goal >= 300)")
    g, e = sum(glslang_alone), sum(end_to_end)
    print(f"glslang alone:       {g / n * 1e3:8.2f} ms/program (baseline, same GLSL, in-process)")
    print(f"end to end (SPIR-V): {e / n * 1e3:8.2f} ms/program = {e / g:.2f}x glslang alone "
          f"(median ratio {statistics.median(b / a for a, b in zip(glslang_alone, end_to_end)):.2f}x; goal <= 3x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
