"""Shared corpus, NV vertex-program dialects: every ``!!VP1.0`` / ``!!VP1.1`` / ``!!VSP1.0`` /
``!!VP2.0`` program (collected/nvvp1.0, nvvp1.1, nvvsp1.0; cgc profiles vp20 and vp30) that
MANIFEST.tsv marks ``ok`` translates to GLSL that glslang accepts and to SPIR-V that SPIRV-Tools
validates; programs the specification rejects fail with a diagnostic at the right line.

Where MANIFEST says ``ok`` but the specification says the program fails to load, the spec wins
(SPEC_ERRORS, each with its reason)."""
from __future__ import annotations

import csv
from collections import Counter

import pytest

from conftest import SHARED_CORPUS, corpus_mark

import xlate
from xlate.diagnostics import XlateError
from xlate.passes.structurize import structurize


def manifest(dialects: tuple[str, ...], profiles: tuple[str, ...]) -> list[tuple[str, str]]:
    """(path relative to the corpus, expected) for the collected dialects and cgc profiles."""
    if not SHARED_CORPUS.is_dir():
        return []
    rows = []
    with open(SHARED_CORPUS / "collected" / "MANIFEST.tsv", newline="") as fh:
        for r in csv.DictReader(fh, delimiter="\t"):
            if r["dialect"] in dialects:
                rows.append(("collected/" + r["file"], r["expected"]))
    with open(SHARED_CORPUS / "cg" / "MANIFEST.tsv", newline="") as fh:
        for r in csv.DictReader(fh, delimiter="\t"):
            if r["profile"] in profiles:
                rows.append(("cg/" + r["file"], "ok"))
    return rows


def read(rel: str) -> str:
    return (SHARED_CORPUS / rel).read_text(errors="replace")


def first_error(rel: str) -> tuple[int, str] | None:
    try:
        xlate.parse(read(rel), filename=rel)
    except XlateError as e:
        d = next(d for d in e.diagnostics if d.is_error)
        return d.span.line, d.code
    return None


def translate_both(rel: str) -> str | None:
    """None, or the first problem: GLSL (glsl450, compiled by glslang) and SPIR-V (vulkan,
    validated by spirv-val)."""
    text = read(rel)
    for target, profile in (("glsl", "glsl450"), ("spirv", "vulkan")):
        try:
            out = xlate.translate(text, filename=rel, target=target, profile=profile)
        except XlateError as e:
            return f"{rel} [{profile}]: {e.diagnostics[0].header()}"
        if target == "spirv" and out.spirv[:4] != b"\x03\x02\x23\x07":
            return f"{rel}: not SPIR-V"
    return None


ROWS = manifest(("nvvp1.0", "nvvp1.1", "nvvsp1.0"), ("vp20", "vp30"))
NO_CORPUS = corpus_mark()

#: MANIFEST says ok, the specification says the program fails to load, and so did the drivers:
#: (line, code).  Both are parser exercises (Mesa's tests/vptest1.c, a Ruby binding's test), not
#: shipped programs.
SPEC_ERRORS = {
    # VP1 2.14.1.7: "A vertex programs fails to load if it does not write at least one
    # component of the HPOS register" (the program only writes o[COL0]); reported at END.
    # Mesa's nvvertparse.c rejected it too: "glLoadProgramNV(HPOS not written)"
    "collected/nvvp1.0/Igalia+piglit/vptest1-1.vp": (3, "E2015"),
    # '!!VSP1.0 END': NV_vertex_program2 2.14.1.8 allows the empty program text (its
    # <programText> may be ""), but a vertex state program "fails to load if it does not
    # write at least one program parameter register" (VP1 2.14.4, kept by VP2; Mesa:
    # "glLoadProgramNV(c[#] not written)")
    "collected/nvvsp1.0/larskanis+opengl/test_gl_ext_nv-2.vp": (2, "E2015"),
}

#: MANIFEST "error" programs of these dialects: (line, code) of the first error.  The corpus
#: has none today (piglit's NV vertex program tests carry no "# FAIL" marker); a new one must be
#: pinned here.
ERROR_LINES: dict[str, tuple[int, str]] = {}


@NO_CORPUS
def test_corpus_has_the_vertex_program_dialects():
    heads = Counter(read(rel)[:8].split()[0] for rel, _ in ROWS)
    assert {"!!VP1.0", "!!VP1.1", "!!VSP1.0", "!!VP2.0"} <= set(heads)
    assert len(ROWS) > 800


@NO_CORPUS
@pytest.mark.parametrize("chunk", range(6))
def test_ok_programs_translate_to_glsl_and_spirv(chunk):
    failures = []
    for rel, expected in ROWS[chunk::6]:
        if expected != "ok" or rel in SPEC_ERRORS:
            continue
        problem = translate_both(rel)
        if problem:
            failures.append(problem)
    assert not failures, "\n".join(failures[:20])


@NO_CORPUS
@pytest.mark.parametrize("rel", sorted(SPEC_ERRORS))
def test_spec_wins_over_the_manifest(rel):
    assert dict(ROWS)[rel] == "ok"
    assert first_error(rel) == SPEC_ERRORS[rel]


@NO_CORPUS
def test_every_error_program_is_rejected_at_its_line():
    errors = [rel for rel, expected in ROWS if expected == "error"]
    assert sorted(errors) == sorted(ERROR_LINES)
    wrong = [rel for rel in errors if first_error(rel) != ERROR_LINES[rel]]
    assert not wrong


@NO_CORPUS
def test_control_flow_modes_and_the_dispatch_fallback():
    """How the structurizer handled the corpus: VP2 programs (vp30: CAL/BRA, labels that
    execution falls through) take the general path; none needs the dispatch fallback."""
    modes = Counter()
    for rel, expected in ROWS:
        if expected == "ok" and rel not in SPEC_ERRORS:
            modes[structurize(xlate.parse(read(rel))).mode] += 1
    assert modes["dispatch"] == 0, modes
    assert modes["structured"] >= 560, modes
