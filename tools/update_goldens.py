#!/usr/bin/env python3
"""Regenerate (or check) the golden translations of our own corpus.

The corpus folders are ``corpus/nv4`` (the NV_gpu_program4 family) and ``corpus/dialects``
(one program or more for every other dialect xlate reads: VP1.0/1.1, VSP1.0, VP2.0, ARBvp1.0
with and without the NV_vertex_program2/3 options, ARBfp1.0 with and without the
NV_fragment_program/2 options, FP1.0 and TGSI text).  For every
``corpus/<folder>/<name>.vp|.fp|.gp|.tgsi`` this writes, beside the program:

* ``<name>.glsl450.glsl`` - ``xlate.translate(..., target="glsl", profile="glsl450")``
* ``<name>.vulkan.glsl``  - the same with ``profile="vulkan"``
* ``<name>.glsl330.glsl``, ``<name>.es310.glsl`` - the same with ``profile="glsl330"`` /
  ``"es310"``; where that profile cannot express the program, ``<name>.<profile>.rejected``
  instead: the E7001 diagnostics, one header per line (the rejection is pinned like a
  translation, and a program that starts or stops translating shows up as a changed golden)
* ``<name>.reflect.json`` - the reflection of the glsl450 translation, formatted exactly as
  ``xlate convert FILE --target reflect`` prints it

The file name passed to the library is the program's path relative to the repository root
(``corpus/nv4/<name>.vp``), so the goldens do not depend on where the checkout lives.  The
translations are not validated here (``validate=False``): compiling the goldens with glslang
is the job of ``tests/test_golden.py``, which reports a rejected golden as its own failure.

Usage::

    python tools/update_goldens.py            # rewrite goldens that changed, remove orphans
    python tools/update_goldens.py --check    # change nothing; exit 1 listing stale goldens

Exit status: 0 when every golden is up to date (or was written), 1 when ``--check`` found a
stale, missing or orphaned golden, or when a program that has goldens can no longer be
translated.  A program xlate rejects and that has no goldens yet (a known xlate bug, listed in
``KNOWN_BUGS`` of tests/test_golden.py) only gets a warning; its goldens appear once it translates.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPORA = (ROOT / "corpus" / "nv4", ROOT / "corpus" / "dialects")
CORPUS = CORPORA[0]             # the NV4 folder (kept for callers that name it)
SOURCE_EXTS = (".vp", ".fp", ".gp", ".tgsi")
PROFILES = ("glsl450", "vulkan", "glsl330", "es310")
#: profiles whose golden may be a rejection (E7001: the program needs a feature they lack)
REJECTABLE = ("glsl330", "es310")
GOLDEN_SUFFIXES = (tuple(f".{p}.glsl" for p in PROFILES) + tuple(f".{p}.rejected" for p in REJECTABLE)
                   + (".reflect.json",))
#: program extension -> glslang stage name
STAGE_OF_EXT = {".vp": "vert", ".fp": "frag", ".gp": "geom"}
#: TGSI text header -> glslang stage name
STAGE_OF_TGSI = {"VERT": "vert", "FRAG": "frag", "GEOM": "geom"}


def stage_of(src: Path) -> str:
    """The glslang stage name of a corpus program (TGSI: from its processor header)."""
    if src.suffix == ".tgsi":
        return STAGE_OF_TGSI[src.read_text(encoding="utf-8").split(None, 1)[0]]
    return STAGE_OF_EXT[src.suffix]


def sources(corpora: tuple[Path, ...] = CORPORA) -> list[Path]:
    """The corpus programs, sorted by folder and file name."""
    if isinstance(corpora, Path):
        corpora = (corpora,)
    return sorted(p for corpus in corpora for p in corpus.iterdir()
                  if p.is_file() and p.suffix in SOURCE_EXTS)


def golden_paths(src: Path) -> dict[str, Path]:
    """``{"glsl450": ..., "vulkan": ..., "glsl330": ..., "es310": ..., "reflect": ...}`` golden
    paths of one program (the GLSL ones; :func:`rejection_path` is the alternative)."""
    stem = src.with_suffix("")
    out = {p: stem.with_name(f"{stem.name}.{p}.glsl") for p in PROFILES}
    out["reflect"] = stem.with_name(f"{stem.name}.reflect.json")
    return out


def rejection_path(src: Path, profile: str) -> Path:
    """``<name>.<profile>.rejected``: the golden of a program ``profile`` cannot express."""
    stem = src.with_suffix("")
    return stem.with_name(f"{stem.name}.{profile}.rejected")


def alternatives(src: Path, rendered: dict[Path, bytes]) -> list[Path]:
    """The golden files of ``src`` that the translation now does not produce: the GLSL of a
    profile that now rejects the program, or the rejection of one that now translates it."""
    out = []
    for profile in REJECTABLE:
        for path in (golden_paths(src)[profile], rejection_path(src, profile)):
            if path not in rendered:
                out.append(path)
    return out


def relative_name(src: Path) -> str:
    """The file name handed to xlate (and printed in the goldens): repo-relative, POSIX."""
    try:
        return src.resolve().relative_to(ROOT).as_posix()
    except ValueError:
        return src.name


def render(src: Path) -> dict[Path, bytes]:
    """Golden path -> expected bytes for one program.  Raises xlate.XlateError on bad input."""
    import xlate

    text = src.read_text(encoding="utf-8")
    name = relative_name(src)
    paths = golden_paths(src)
    out: dict[Path, bytes] = {}
    for profile in PROFILES:
        try:
            result = xlate.translate(text, filename=name, target="glsl", profile=profile,
                                     validate=False)
        except xlate.XlateError as e:
            errors = [d for d in e.diagnostics if d.is_error]
            if profile not in REJECTABLE or any(d.code != "E7001" for d in errors):
                raise
            headers = "".join(d.header() + "\n" for d in e.diagnostics)
            out[rejection_path(src, profile)] = headers.encode("utf-8")
            continue
        out[paths[profile]] = result.glsl.encode("utf-8")
        if profile == "glsl450":
            reflect = json.dumps(result.reflection, indent=2, sort_keys=False) + "\n"
            out[paths["reflect"]] = reflect.encode("utf-8")
    return out


def atomic_write(path: Path, data: bytes) -> None:
    """Write via a temporary file in the same folder and os.replace (never a half file)."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def orphans(corpora, srcs: list[Path]) -> list[Path]:
    """Golden-looking files whose program no longer exists."""
    if isinstance(corpora, Path):
        corpora = (corpora,)
    expected = {p for s in srcs for p in golden_paths(s).values()}
    expected |= {rejection_path(s, p) for s in srcs for p in REJECTABLE}
    found = [p for corpus in corpora for p in corpus.iterdir()
             if p.is_file() and p.name.endswith(GOLDEN_SUFFIXES)]
    return sorted(p for p in found if p not in expected)


def duplicate_stems(srcs: list[Path]) -> list[str]:
    """Programs whose goldens would collide (``a.vp`` and ``a.fp``)."""
    seen: dict[str, Path] = {}
    dups = []
    for s in srcs:
        stem = s.with_suffix("").name
        if stem in seen:
            dups.append(f"{seen[stem].name} and {s.name}")
        seen.setdefault(stem, s)
    return dups


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true",
                    help="write nothing; exit 1 and list goldens that differ from the translation")
    args = ap.parse_args(argv)

    import xlate

    srcs = sources()
    dups = duplicate_stems(srcs)
    if dups:
        for d in dups:
            print(f"error: programs share a golden name: {d}", file=sys.stderr)
        return 1
    stale: list[str] = []
    failed: list[str] = []
    written = 0
    for src in srcs:
        rel = relative_name(src)
        try:
            expected = render(src)
        except xlate.XlateError as e:
            first = e.diagnostics[0].header() if e.diagnostics else str(e)
            existing = [p for p in golden_paths(src).values() if p.exists()]
            if existing:
                # it translated once: its goldens can no longer be reproduced
                failed.append(f"{rel}: cannot translate (its goldens are stale): {first}")
            else:
                print(f"warning: {rel}: cannot translate, no goldens: {first}", file=sys.stderr)
            continue
        for path, data in expected.items():
            current = path.read_bytes() if path.exists() else None
            if current == data:
                continue
            what = "missing" if current is None else "differs"
            if args.check:
                stale.append(f"{relative_name(path)} ({what})")
            else:
                atomic_write(path, data)
                written += 1
                print(f"wrote {relative_name(path)} ({what})")
        for path in alternatives(src, expected):
            if not path.exists():
                continue
            if args.check:
                stale.append(f"{relative_name(path)} (replaced: the profile now "
                             f"{'translates' if path.suffix == '.rejected' else 'rejects'} it)")
            else:
                path.unlink()
                print(f"removed {relative_name(path)} (the profile's golden is now the other kind)")
    for path in orphans(CORPORA, srcs):
        if args.check:
            stale.append(f"{relative_name(path)} (orphan: no program)")
        else:
            path.unlink()
            print(f"removed {relative_name(path)} (orphan: no program)")
    for line in failed:
        print(line, file=sys.stderr)
    if args.check:
        for line in stale:
            print(f"stale golden: {line}")
        if stale:
            print(f"{len(stale)} golden file(s) out of date; review the change and run "
                  "`python tools/update_goldens.py`", file=sys.stderr)
    else:
        print(f"{len(srcs)} programs, {written} golden file(s) written")
    return 1 if stale or failed else 0


if __name__ == "__main__":
    sys.exit(main())
