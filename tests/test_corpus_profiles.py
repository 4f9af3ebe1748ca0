"""Every program of ../shared/corpus (the NV4 programs of test_corpus_nv4 and the TGSI programs of
test_corpus_tgsi) under the glsl330 and es310 profiles: it translates to GLSL that glslang accepts
under that profile's own rules ("330 core", "310 es"), or it is rejected with E7001 naming a
feature the profile lacks -- never an internal error.  The counts are pinned per profile, and the
rejections per feature, so a change either way shows.

Measured (the pinned figures; before issue 20's compute shaders, which the test's dict
comments): of 1,986 files, 1,931 parse (the rest are the damaged and
compute-shader TGSI files test_corpus_tgsi counts); glsl330 translates all 1,931; es310
translates 1,892 and rejects 39: noperspective interpolation 34 (TGSI LINEAR inputs), 1D
textures 2, rectangle textures 1, buffer textures 1, a fragment position with its origin at the
upper left 1 (TGSI FS_COORD_ORIGIN UPPER_LEFT: ES has no layout(origin_upper_left)).

Cost: one parse (about 28 s of CPU for the corpus) and per profile one translation (3 s) and one
glslang check (5 s): about 44 s of CPU, in a pool of two processes -- about 25 s on two idle
cores; 67 s were measured on the shared 2-core machine while other jobs kept its load at 4-7.
"""
from __future__ import annotations

import collections
import multiprocessing
from concurrent.futures import ProcessPoolExecutor

import pytest

from conftest import SHARED_CORPUS, corpus_mark

from xlate import api
from xlate.diagnostics import XlateError

PROFILES = ("glsl330", "es310")


def corpus_files():
    if not SHARED_CORPUS.is_dir():
        return []
    out = []
    for sub in ("cg/gp4vp", "cg/gp4fp", "cg/gp4gp", "collected/nvfp4", "collected/nvgp4"):
        out += sorted((SHARED_CORPUS / sub).rglob("*.*p"))
    return out + sorted((SHARED_CORPUS / "collected" / "tgsi").rglob("*.tgsi"))


FILES = corpus_files()


def _outcomes(paths) -> list[tuple[str, str, str]]:
    """(file, profile, outcome) with outcome "ok", "E7001 <feature>" or another code's header."""
    out = []
    for path in paths:
        rel = path.relative_to(SHARED_CORPUS).as_posix()
        try:
            prog = api.parse(path.read_bytes().decode("utf-8", "replace"), filename=rel)
        except XlateError:
            out.append((rel, "-", "not parsed"))
            continue
        for profile in PROFILES:
            try:
                api.translate_program(prog, target="glsl", profile=profile, validate=True)
                out.append((rel, profile, "ok"))
            except XlateError as e:
                d = e.diagnostics[0]
                # E7001 messages start with the feature, its details in parentheses
                what = f"E7001 {d.message.split(' (')[0]}" if d.code == "E7001" else d.header()
                out.append((rel, profile, what))
    return out


@corpus_mark()
def test_every_corpus_program_translates_or_is_rejected_per_profile():
    chunks = [FILES[i::2] for i in range(2)]
    context = multiprocessing.get_context("fork") if "fork" in \
        multiprocessing.get_all_start_methods() else None
    with ProcessPoolExecutor(2, mp_context=context) as pool:
        outcomes = [o for part in pool.map(_outcomes, chunks) for o in part]
    counts = collections.Counter((profile, what) for _, profile, what in outcomes)
    unexpected = [f"{f} [{p}]: {w}" for f, p, w in outcomes
                  if w not in ("ok", "not parsed") and not w.startswith("E7001 ")]
    assert not unexpected, "\n".join(unexpected[:20])
    assert len(FILES) == 1986
    assert dict(counts) == {
        # yuq+mesa-lima/u_tests-3 (TXF from a 2D_MSAA view) translates since issue 20
        # the 13 modern compute shaders parse since issue 20: glsl330 has no compute shaders;
        # es310 translates 3 of them and refuses 6 for their rectangle samplers, 2 for their
        # R8_UINT images (ES 3.1 has no r8ui image format) and 2 for an image without a format
        # yuq+mesa-lima/u_tests-2's FBFETCH parses since issue 20 (a vulkan subpass input;
        # the GL profiles refuse it)
        ("-", "not parsed"): 40,
        ("glsl330", "ok"): 1932,
        ("glsl330", "E7001 compute shaders"): 13,
        ("glsl330", "E7001 framebuffer fetch"): 1,
        ("es310", "ok"): 1896,
        ("es310", "E7001 framebuffer fetch"): 1,
        ("es310", "E7001 noperspective interpolation"): 34,
        ("es310", "E7001 1D textures"): 2,
        ("es310", "E7001 rectangle textures"): 7,
        ("es310", "E7001 buffer textures"): 1,
        ("es310", "E7001 a fragment position with its origin at the upper left"): 1,
        ("es310", "E7001 format R8_UINT"): 2,
        ("es310", "E7001 an image without a format"): 2,
    }


# ---- the pre-NV4 dialects (issue 5's frontends) ----------------------------------------------
OLDER_FOLDERS = ("collected/nvvp1.0", "collected/nvvp1.1", "collected/nvvsp1.0", "cg/vp20",
                 "cg/vp30", "collected/arbvp", "collected/arbvp_nv2", "collected/arbvp_nv3",
                 "cg/vp40", "cg/arbvp1", "collected/arbfp", "collected/arbfp_nv",
                 "collected/arbfp_nv2", "cg/fp40", "cg/arbfp1", "collected/nvfp1.0", "cg/fp30")
OLDER_STRIDE = 8       # every 8th program of each folder (all: about 8 minutes of CPU)


def older_files():
    if not SHARED_CORPUS.is_dir():
        return []
    out = []
    for sub in OLDER_FOLDERS:
        out += sorted(p for p in (SHARED_CORPUS / sub).rglob("*")
                      if p.suffix in (".vp", ".fp") and p.is_file())[::OLDER_STRIDE]
    return out


OLDER_FILES = older_files()


@corpus_mark()
def test_older_dialect_programs_translate_or_are_rejected_per_profile():
    """The same contract for VP1.x/VSP1.0/VP2.0, ARBvp (+NV2/NV3), ARBfp (+NV/NV2) and FP1.0
    (a fixed sample per folder): each program that parses translates under glsl330 and es310,
    and glslang accepts it under that profile's own rules, or it is rejected with E7001."""
    chunks = [OLDER_FILES[i::2] for i in range(2)]
    context = multiprocessing.get_context("fork") if "fork" in \
        multiprocessing.get_all_start_methods() else None
    with ProcessPoolExecutor(2, mp_context=context) as pool:
        outcomes = [o for part in pool.map(_outcomes, chunks) for o in part]
    counts = collections.Counter((profile, what) for _, profile, what in outcomes)
    unexpected = [f"{f} [{p}]: {w}" for f, p, w in outcomes
                  if w not in ("ok", "not parsed") and not w.startswith("E7001 ")]
    assert not unexpected, "\n".join(unexpected[:20])
    assert (len(OLDER_FILES), dict(counts)) == OLDER_EXPECTED


OLDER_EXPECTED = (600, {
    ("-", "not parsed"): 30,
    ("glsl330", "ok"): 570,
    ("es310", "ok"): 565,
    ("es310", "E7001 rectangle textures"): 3,
    ("es310", "E7001 1D textures"): 1,
    ("es310", "E7001 clip distances"): 1,
})
