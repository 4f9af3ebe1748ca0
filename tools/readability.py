#!/usr/bin/env python3
"""How much GLSL xlate writes, against cgc's own GLSL for the same Cg entry points (issue 18).

    python tools/readability.py                       # every cgc pair of ../shared/corpus/cg
    python tools/readability.py --profiles fp40,vp40 --limit 100 --worst 5

cgc compiled each Cg entry point twice: to assembly (``cg/<profile>/``), which xlate translates,
and to GLSL (``cg/glslf|glslv|glslg/``), written from the Cg source.  The figure is the number of
statements in function bodies, xlate's over cgc's, per pair; the tool prints the median and the
90th percentile per assembly profile and over all pairs.

What counts as a statement (:func:`count_statements`): every ``;`` that ends a statement, and
every ``if``/``for``/``while``/``do``/``switch`` (the two ``;`` of a ``for`` header are one
statement with its loop).  Braces, blank lines and comments do not count.  Two figures are
printed: the program's own functions (``main`` and the translated subroutines; the ``xl_*``
helper library is left out, as cgc's built-ins are) and everything (helpers included).
Programs xlate refuses and pairs whose ``__noopt`` variant has no GLSL twin are skipped and
counted.
"""
from __future__ import annotations

import argparse
import re
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

sys.path.insert(0, str(ROOT / "tools"))
from shared_location import shared_dir  # noqa: E402  (XLATE_SHARED)

CG = shared_dir(ROOT) / "corpus" / "cg"
PROFILES = ("gp4fp", "gp4vp", "gp4gp", "fp40", "vp40", "fp30", "vp30", "arbfp1", "arbvp1", "vp20")
GLSL_TWIN = {".fp": ("glslf", ".frag"), ".vp": ("glslv", ".vert"), ".gp": ("glslg", ".geom")}

_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_PREPROC = re.compile(r"^\s*#[^\n]*", re.M)
_CONTROL = re.compile(r"\b(if|for|while|do|switch)\b")
_FUNCTION = re.compile(r"\b([A-Za-z_]\w*)\s*\([^;{}()]*(?:\([^()]*\)[^;{}()]*)*\)\s*\{")


def function_bodies(text: str) -> list[tuple[str, str]]:
    """``(name, body)`` of every function definition at file scope (comments and preprocessor
    lines removed first)."""
    text = _PREPROC.sub("", _COMMENT.sub("", text))
    out = []
    pos = 0
    while True:
        m = _FUNCTION.search(text, pos)
        if m is None:
            return out
        depth, i = 1, m.end()
        while depth and i < len(text):
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        out.append((m.group(1), text[m.end():i - 1]))
        pos = i


def count_statements(body: str) -> int:
    """Statements of one function body (see the module docstring)."""
    n = 0
    for m in re.finditer(r";|\bfor\s*\(", body):
        if m.group(0) == ";":
            n += 1
        else:                    # a for header: its two ';' and the loop are one statement
            n -= 1
    n += len([m for m in _CONTROL.finditer(body) if m.group(1) != "for"])
    return n


def statements(text: str, *, helpers: bool) -> int:
    return sum(count_statements(body) for name, body in function_bodies(text)
               if helpers or not name.startswith("xl_") or name == "xl_main")


def pairs(profiles, limit: int | None):
    for profile in profiles:
        folder = CG / profile
        if not folder.is_dir():
            continue
        files = sorted(p for p in folder.iterdir() if p.suffix in GLSL_TWIN)
        if limit:
            files = files[:limit]
        for asm in files:
            twin_dir, ext = GLSL_TWIN[asm.suffix]
            twin = CG / twin_dir / (asm.stem + ext)
            yield profile, asm, (twin if twin.is_file() else None)


def percentile(values: list[float], q: float) -> float:
    values = sorted(values)
    k = (len(values) - 1) * q
    lo = int(k)
    hi = min(lo + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (k - lo)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--profiles", default=",".join(PROFILES))
    ap.add_argument("--limit", type=int, default=None, help="programs per profile (sorted by name)")
    ap.add_argument("--worst", type=int, default=0, help="list the N pairs with the largest ratio")
    args = ap.parse_args(argv)
    if not CG.is_dir():
        print(f"no cgc corpus at {CG}: nothing to measure", file=sys.stderr)
        return 3
    from xlate.api import translate
    from xlate.diagnostics import XlateError

    ratios: dict[str, list[tuple[float, float, str]]] = {}
    skipped = {"no GLSL twin": 0, "refused": 0, "empty twin": 0}
    for profile, asm, twin in pairs(args.profiles.split(","), args.limit):
        if twin is None:
            skipped["no GLSL twin"] += 1
            continue
        theirs = statements(twin.read_text(errors="replace"), helpers=True)
        if theirs == 0:
            skipped["empty twin"] += 1
            continue
        try:
            ours = translate(asm.read_text(errors="replace"), filename=str(asm)).glsl
        except XlateError:
            skipped["refused"] += 1
            continue
        own = statements(ours, helpers=False) / theirs
        every = statements(ours, helpers=True) / theirs
        ratios.setdefault(profile, []).append((own, every, asm.name))

    print(f"{'profile':8} {'pairs':>6} {'median':>7} {'p90':>6} {'median+helpers':>15} {'p90+helpers':>12}")
    everything: list[tuple[float, float, str]] = []
    for profile in args.profiles.split(","):
        rows = ratios.get(profile)
        if not rows:
            continue
        everything += rows
        own = [r[0] for r in rows]
        every = [r[1] for r in rows]
        print(f"{profile:8} {len(rows):6d} {statistics.median(own):7.2f} {percentile(own, 0.9):6.2f} "
              f"{statistics.median(every):15.2f} {percentile(every, 0.9):12.2f}")
    if everything:
        own = [r[0] for r in everything]
        every = [r[1] for r in everything]
        print(f"{'all':8} {len(everything):6d} {statistics.median(own):7.2f} {percentile(own, 0.9):6.2f} "
              f"{statistics.median(every):15.2f} {percentile(every, 0.9):12.2f}")
    print("skipped: " + ", ".join(f"{k} {v}" for k, v in skipped.items()))
    if args.worst:
        for own, _every, name in sorted(everything, reverse=True)[:args.worst]:
            print(f"  {own:5.2f}  {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
