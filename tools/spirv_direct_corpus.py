#!/usr/bin/env python3
"""How many shared-corpus programs the direct SPIR-V path (xlate/backends/spirv_direct) covers,
per dialect folder, and whether spirv-val accepts every module (Vulkan 1.0 and OpenGL 4.5).

Counts, per folder: programs that translate today (the GLSL path's parse + emission succeed),
``direct``: direct SPIR-V emitted and valid in both environments, ``invalid``: emitted but
rejected by spirv-val (a bug: listed), ``not covered``: NotCovered raised (reasons tallied).

Run:  python tools/spirv_direct_corpus.py [--limit N] [--show-reasons]
"""
from __future__ import annotations

import argparse
import collections
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

from shared_location import shared_dir  # noqa: E402

from xlate.backends.glsl import emit_glsl  # noqa: E402
from xlate.backends.spirv import validate_spirv  # noqa: E402
from xlate.backends.spirv_direct import NotCovered, emit_spirv  # noqa: E402
from xlate.diagnostics import XlateError  # noqa: E402
from xlate.frontends import parse_program  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=int, default=0, help="at most N programs per folder")
    ap.add_argument("--show-reasons", action="store_true", help="the not-covered reasons")
    ap.add_argument("--show-invalid", action="store_true", help="each invalid module's message")
    args = ap.parse_args()
    corpus = shared_dir(ROOT) / "corpus"
    folders = sorted({p.parent for p in corpus.rglob("*") if p.is_file()
                      and p.suffix in (".vp", ".fp", ".gp", ".tgsi")})
    by_dialect: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    reasons: collections.Counter = collections.Counter()
    invalid = []
    for folder in folders:
        rel = folder.relative_to(corpus)
        key = "/".join(rel.parts[:2])
        files = sorted(p for p in folder.iterdir() if p.suffix in (".vp", ".fp", ".gp", ".tgsi"))
        if args.limit:
            files = files[: args.limit]
        for f in files:
            text = f.read_text(errors="replace")
            try:
                prog = parse_program(text, f.name)
                emit_glsl(prog, "vulkan")
            except Exception:               # noqa: BLE001 - does not translate today
                continue
            c = by_dialect[key]
            c["translate"] += 1
            try:
                outs = [(env, emit_spirv(prog, prof).spirv)
                        for prof, env in (("vulkan", "vulkan"), ("glsl450", "opengl"))]
            except NotCovered as e:
                c["not covered"] += 1
                reasons[str(e).split(" (")[0]] += 1
                continue
            except XlateError:
                c["refused"] += 1
                continue
            problems = [f"{env}: {validate_spirv(words, target=env)}" for env, words in outs
                        if validate_spirv(words, target=env)]
            if problems:
                c["invalid"] += 1
                invalid.append((str(f.relative_to(corpus)), problems[0]))
            else:
                c["direct"] += 1
    total = collections.Counter()
    print(f"{'dialect folder':28} {'translate':>9} {'direct':>7} {'invalid':>7} {'not covered':>11}")
    for key in sorted(by_dialect):
        c = by_dialect[key]
        total.update(c)
        print(f"{key:28} {c['translate']:9} {c['direct']:7} {c['invalid']:7} {c['not covered']:11}")
    print(f"{'total':28} {total['translate']:9} {total['direct']:7} {total['invalid']:7} "
          f"{total['not covered']:11}")
    if args.show_reasons:
        for reason, n in reasons.most_common():
            print(f"{n:6}  {reason}")
    if args.show_invalid:
        for name, msg in invalid[:30]:
            print(f"INVALID {name}: {msg[:300]}")
    return 1 if invalid else 0


if __name__ == "__main__":
    sys.exit(main())
