"""Shared corpus, ARB vertex programs: every ``!!ARBvp1.0`` program (collected/arbvp,
arbvp_nv2, arbvp_nv3; cgc profiles arbvp1 and vp40 = ``OPTION NV_vertex_program3``) that
MANIFEST.tsv marks ``ok`` translates to GLSL that glslang accepts and to SPIR-V that SPIRV-Tools
validates, and every ``error`` program is rejected with a diagnostic at the line of the
construct that fails (ERROR_LINES: piglit's ``# FAIL`` programs, each checked by hand against
the comment that names the failure).

Where MANIFEST says ``ok`` but the specification says the program fails to load, the program is
translated when a driver of the time loaded it -- with a warning that names the bent rule
(COMPAT_WARNINGS and HALO_ALIAS: E2016, E2017, E3009) -- and rejected when it is a damaged text
no driver was given (REJECTED_OK, each with its reason).  Per file: translates (with the pinned
warning where there is one), or is rejected at the pinned line with the pinned code."""
from __future__ import annotations

import csv
import re
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


ROWS = manifest(("arbvp", "arbvp_nv2", "arbvp_nv3"), ("arbvp1", "vp40"))
NO_CORPUS = corpus_mark()

#: MANIFEST says ok, still rejected -- each a damaged text that no driver was ever given: (line,
#: code) of the first error
REJECTED_OK = {
    # a line "; loading index 1 of the array": in piglit's .vpfp container a line starting with
    # ';' is a comment of the container (tests/shaders/vpfp-generic.cpp skips it before the
    # program reaches the driver); the extraction kept it, and as program text ';' alone is no
    # statement (comments start with '#', ARBVP 2.14.2)
    "collected/arbvp/Igalia+piglit/vp-arl-constant-array-huge-overwritten-1.vp": (126, "E1002"),
    "collected/arbvp/Igalia+piglit/vp-exp-alias-1.vp": (7, "E1002"),
    # a numbered instruction dump ("0: MOV ..."), not program text
    "collected/arbvp/yuq+mesa-lima/shading.vp": (2, "E1002"),
    # XML template leftovers ("]]>", "<?if ...?>") inside the program text
    "collected/arbvp/crystalspace+CS/scattering.vp": (34, "E1002"),
    "collected/arbvp/crystalspace+CS/terrain_fixed_base.vp": (12, "E1002"),
    "collected/arbvp/crystalspace+CS/shader_scattering.vp": (33, "E1002"),
    # "DP4 r8.z, v0, c[6]" without its ';' (the next line's MUL is the unexpected token): a typo
    # in two HaloMD files, a syntax error for every parser
    "collected/arbvp/foonull+HaloMD/transparent_generic_screenspace_ff.vp": (48, "E1002"),
    "collected/arbvp/foonull+HaloMD/transparent_generic_viewer_centered_ff.vp": (52, "E1002"),
}

HALO = "collected/arbvp/foonull+HaloMD/"
#: ARBVP 2.14.2: <ALIAS_statement> ::= "ALIAS" <establishName> "=" <establishedName>, and
#: 2.14.3.6: "the right hand side must be an established variable name".  Every HaloMD program
#: writes "ALIAS oPos = result.position;" (an alias of a binding), which NVIDIA's drivers took:
#: accepted with warning E2016 at the first such line (xlate/frontends/nv/arbvp.py,
#: binding_alias).
HALO_ALIAS = re.compile(r"^[ \t]*ALIAS[ \t]+\w+[ \t]*=[ \t]*\w+\.", re.M)

#: MANIFEST says ok, the specification says the program fails to load, a driver of the time
#: loaded it: translated, with a warning at (line, code)
COMPAT_WARNINGS = {
    # ARBVP <addrRegPosOffset> is 0..63 (the program uses A0.x+109); Mesa accepts offsets up to
    # MaxAddressOffset = MAX_PROGRAM_LOCAL_PARAMS, the NV_vertex_program2 option grammar has no
    # bound (digest 12 item 34): E2017
    "collected/arbvp/Igalia+piglit/vp-arl-constant-array-huge-relative-offset.vp": (126, "E2017"),
    # VP3 2.14.5.43: POPA "will fail to load if it includes ... a condition code write mask test
    # other than TR"; revision 7: "some driver versions erroneously allowed conditional write
    # masks on POPA" -- NVIDIA's, which piglit's REQUIRE GL_NV_vertex_program3 tests ran on: E3009
    "collected/arbvp_nv3/Igalia+piglit/astack-08.vp": (11, "E3009"),
    "collected/arbvp_nv3/Igalia+piglit/astack-09.vp": (11, "E3009"),
}


def expected_error(rel: str) -> tuple[int, str] | None:
    return REJECTED_OK.get(rel)


def expected_warning(rel: str) -> tuple[int, str] | None:
    if rel in COMPAT_WARNINGS:
        return COMPAT_WARNINGS[rel]
    if rel.startswith(HALO) and rel not in REJECTED_OK:
        m = HALO_ALIAS.search(read(rel))
        if m:
            return read(rel).count("\n", 0, m.start()) + 1, "E2016"
    return None


#: expected-error programs (MANIFEST "error"): (line, code) of the first diagnostic
ERROR_LINES = {
    'arbvp/Igalia+piglit/address-02.vp': (5, 'E2001'),
    'arbvp/Igalia+piglit/address-04.vp': (9, 'E2010'),
    'arbvp/Igalia+piglit/address-07.vp': (10, 'E2010'),
    'arbvp/Igalia+piglit/address-08.vp': (10, 'E2010'),
    'arbvp/Igalia+piglit/address-09.vp': (10, 'E2010'),
    'arbvp/Igalia+piglit/address-10.vp': (9, 'E3005'),
    'arbvp/Igalia+piglit/address-11.vp': (8, 'E2006'),
    'arbvp/Igalia+piglit/alias-02.vp': (5, 'E2003'),
    'arbvp/Igalia+piglit/all_state-02.vp': (5, 'E2003'),
    'arbvp/Igalia+piglit/all_state-03.vp': (5, 'E2003'),
    'arbvp/Igalia+piglit/all_state-04.vp': (5, 'E2003'),
    'arbvp/Igalia+piglit/all_state-05.vp': (5, 'E2003'),
    'arbvp/Igalia+piglit/all_state-06.vp': (5, 'E2003'),
    'arbvp/Igalia+piglit/all_state-07.vp': (5, 'E2003'),
    'arbvp/Igalia+piglit/all_state-08.vp': (5, 'E2003'),
    'arbvp/Igalia+piglit/all_state-10.vp': (5, 'E2003'),
    'arbvp/Igalia+piglit/all_state-11.vp': (5, 'E2003'),
    'arbvp/Igalia+piglit/all_state-12.vp': (5, 'E2003'),
    'arbvp/Igalia+piglit/all_state-13.vp': (5, 'E2003'),
    'arbvp/Igalia+piglit/all_state-14.vp': (5, 'E2003'),
    'arbvp/Igalia+piglit/all_state-15.vp': (5, 'E2003'),
    'arbvp/Igalia+piglit/all_state-17.vp': (5, 'E2003'),
    'arbvp/Igalia+piglit/all_state-18.vp': (5, 'E2003'),
    'arbvp/Igalia+piglit/ara-01.vp': (5, 'E3001'),
    'arbvp/Igalia+piglit/arl-03.vp': (6, 'E3004'),
    'arbvp/Igalia+piglit/array_range-03.vp': (5, 'E2006'),
    'arbvp/Igalia+piglit/array_range-04.vp': (5, 'E2004'),
    'arbvp/Igalia+piglit/array_range-05.vp': (5, 'E2004'),
    'arbvp/Igalia+piglit/array_range-06.vp': (5, 'E2004'),
    'arbvp/Igalia+piglit/array_range-07.vp': (4, 'E2004'),
    'arbvp/Igalia+piglit/astack-01.vp': (7, 'E3001'),
    'arbvp/Igalia+piglit/astack-02.vp': (5, 'E3001'),
    'arbvp/Igalia+piglit/attrib-02.vp': (4, 'E2006'),
    'arbvp/Igalia+piglit/attrib-03.vp': (6, 'E2013'),
    'arbvp/Igalia+piglit/attrib-04.vp': (6, 'E2013'),
    'arbvp/Igalia+piglit/clipdistance-03.vp': (5, 'E2004'),
    'arbvp/Igalia+piglit/cos-01.vp': (4, 'E3001'),
    'arbvp/Igalia+piglit/matrix-01.vp': (5, 'E1002'),
    'arbvp/Igalia+piglit/numbers-02.vp': (4, 'E2003'),
    'arbvp/Igalia+piglit/numbers-03.vp': (4, 'E1002'),
    'arbvp/Igalia+piglit/numbers-05.vp': (4, 'E2003'),
    'arbvp/Igalia+piglit/numbers-06.vp': (4, 'E1002'),
    'arbvp/Igalia+piglit/numbers-07.vp': (4, 'E1002'),
    'arbvp/Igalia+piglit/option-01.vp': (4, 'E2011'),
    'arbvp/Igalia+piglit/output-02.vp': (4, 'E2004'),
    'arbvp/Igalia+piglit/param-02.vp': (9, 'E2007'),
    'arbvp/Igalia+piglit/param-04.vp': (7, 'E2007'),
    'arbvp/Igalia+piglit/param-05.vp': (5, 'E2006'),
    'arbvp/Igalia+piglit/param-07.vp': (7, 'E2007'),
    'arbvp/Igalia+piglit/param-08.vp': (9, 'E2012'),
    'arbvp/Igalia+piglit/position_invariant-02.vp': (6, 'E2004'),
    'arbvp/Igalia+piglit/rcp-03.vp': (6, 'E3004'),
    'arbvp/Igalia+piglit/rcp-04.vp': (6, 'E1006'),
    'arbvp/Igalia+piglit/rcp-05.vp': (6, 'E1006'),
    'arbvp/Igalia+piglit/rcp-06.vp': (6, 'E1006'),
    'arbvp/Igalia+piglit/rcp-07.vp': (6, 'E1006'),
    'arbvp/Igalia+piglit/reserved_word-01.vp': (3, 'E2002'),
    'arbvp/Igalia+piglit/result-02.vp': (4, 'E2007'),
    'arbvp/Igalia+piglit/seq-01.vp': (4, 'E3001'),
    'arbvp/Igalia+piglit/sfl-01.vp': (4, 'E3001'),
    'arbvp/Igalia+piglit/sgt-01.vp': (4, 'E3001'),
    'arbvp/Igalia+piglit/sin-01.vp': (4, 'E3001'),
    'arbvp/Igalia+piglit/sle-01.vp': (4, 'E3001'),
    'arbvp/Igalia+piglit/sne-01.vp': (4, 'E3001'),
    'arbvp/Igalia+piglit/ssg-01.vp': (4, 'E3001'),
    'arbvp/Igalia+piglit/str-01.vp': (4, 'E3001'),
    'arbvp/Igalia+piglit/swz-04.vp': (6, 'E3004'),
    'arbvp/Igalia+piglit/swz-05.vp': (6, 'E3004'),
    'arbvp/Igalia+piglit/tex-02.vp': (3, 'E3001'),
    'arbvp/Igalia+piglit/tex-03.vp': (4, 'E3001'),
    'arbvp/Igalia+piglit/tex-05.vp': (4, 'E3001'),
    'arbvp/Igalia+piglit/tex-06.vp': (5, 'E3001'),
    'arbvp/Igalia+piglit/tex-07.vp': (5, 'E3001'),
    'arbvp/Igalia+piglit/txb-01.vp': (3, 'E3001'),
    'arbvp/Igalia+piglit/txb-02.vp': (3, 'E3001'),
    'arbvp/Igalia+piglit/txb-03.vp': (4, 'E3001'),
    'arbvp/Igalia+piglit/txb-04.vp': (4, 'E3001'),
    'arbvp/Igalia+piglit/txb-05.vp': (4, 'E3001'),
    'arbvp/Igalia+piglit/txb-07.vp': (5, 'E3001'),
    'arbvp/Igalia+piglit/txd-02.vp': (3, 'E3001'),
    'arbvp/Igalia+piglit/txd-04.vp': (4, 'E3001'),
    'arbvp/Igalia+piglit/txd-05.vp': (4, 'E3001'),
    'arbvp/Igalia+piglit/txd-06.vp': (5, 'E3001'),
    'arbvp/Igalia+piglit/txd-07.vp': (5, 'E3001'),
    'arbvp/Igalia+piglit/txf-01.vp': (3, 'E3001'),
    'arbvp/Igalia+piglit/txf-03.vp': (4, 'E3001'),
    'arbvp/Igalia+piglit/txf-04.vp': (4, 'E3001'),
    'arbvp/Igalia+piglit/txf-05.vp': (4, 'E3001'),
    'arbvp/Igalia+piglit/txf-06.vp': (5, 'E3001'),
    'arbvp/Igalia+piglit/txf-07.vp': (5, 'E3001'),
    'arbvp/Igalia+piglit/txl-02.vp': (3, 'E3001'),
    'arbvp/Igalia+piglit/txl-03.vp': (4, 'E3001'),
    'arbvp/Igalia+piglit/txl-04.vp': (4, 'E3001'),
    'arbvp/Igalia+piglit/txl-05.vp': (4, 'E3001'),
    'arbvp/Igalia+piglit/txl-06.vp': (5, 'E3001'),
    'arbvp/Igalia+piglit/txl-07.vp': (5, 'E3001'),
    'arbvp/Igalia+piglit/txp-01.vp': (3, 'E3001'),
    'arbvp/Igalia+piglit/txp-02.vp': (3, 'E3001'),
    'arbvp/Igalia+piglit/txp-03.vp': (4, 'E3001'),
    'arbvp/Igalia+piglit/txp-04.vp': (4, 'E3001'),
    'arbvp/Igalia+piglit/txp-05.vp': (4, 'E3001'),
    'arbvp/Igalia+piglit/txq-01.vp': (3, 'E3001'),
    'arbvp/Igalia+piglit/txq-02.vp': (3, 'E3001'),
    'arbvp/Igalia+piglit/txq-04.vp': (4, 'E3001'),
    'arbvp/Igalia+piglit/txq-05.vp': (4, 'E3001'),
    'arbvp/Igalia+piglit/txq-06.vp': (5, 'E3001'),
    'arbvp/Igalia+piglit/txq-07.vp': (5, 'E3001'),
    'arbvp_nv2/Igalia+piglit/ara-03.vp': (7, 'E3004'),
    'arbvp_nv2/Igalia+piglit/clipdistance-04.vp': (7, 'E2006'),
    'arbvp_nv2/Igalia+piglit/cos-02.vp': (7, 'E3004'),
    'arbvp_nv2/Igalia+piglit/sin-02.vp': (7, 'E3004'),
    'arbvp_nv3/Igalia+piglit/astack-04.vp': (11, 'E3004'),
    'arbvp_nv3/Igalia+piglit/astack-05.vp': (11, 'E3004'),
    'arbvp_nv3/Igalia+piglit/astack-07.vp': (12, 'E3005'),
    'arbvp_nv3/Igalia+piglit/txd-08.vp': (6, 'E3001'),
    'arbvp_nv3/Igalia+piglit/txd-10.vp': (7, 'E3001'),
    'arbvp_nv3/Igalia+piglit/txd-11.vp': (7, 'E3001'),
    'arbvp_nv3/Igalia+piglit/txd-12.vp': (7, 'E3001'),
    'arbvp_nv3/Igalia+piglit/txd-13.vp': (8, 'E3001'),
    'arbvp_nv3/Igalia+piglit/txd-14.vp': (8, 'E3001'),
    'arbvp_nv3/Igalia+piglit/txd-15.vp': (8, 'E3001'),
    'arbvp_nv3/Igalia+piglit/txd-16.vp': (8, 'E3001'),
    'arbvp_nv3/Igalia+piglit/txd-17.vp': (9, 'E3001'),
    'arbvp_nv3/Igalia+piglit/txd-18.vp': (9, 'E3001'),
    'arbvp_nv3/Igalia+piglit/txd-19.vp': (9, 'E3001'),
    'arbvp_nv3/Igalia+piglit/txd-20.vp': (10, 'E3001'),
    'arbvp_nv3/Igalia+piglit/txf-08.vp': (6, 'E3001'),
    'arbvp_nv3/Igalia+piglit/txf-09.vp': (6, 'E3001'),
    'arbvp_nv3/Igalia+piglit/txf-11.vp': (7, 'E3001'),
    'arbvp_nv3/Igalia+piglit/txf-13.vp': (8, 'E3001'),
    'arbvp_nv3/Igalia+piglit/txf-14.vp': (8, 'E3001'),
    'arbvp_nv3/Igalia+piglit/txf-16.vp': (8, 'E3001'),
    'arbvp_nv3/Igalia+piglit/txf-17.vp': (9, 'E3001'),
    'arbvp_nv3/Igalia+piglit/txf-18.vp': (9, 'E3001'),
    'arbvp_nv3/Igalia+piglit/txf-20.vp': (10, 'E3001'),
    'arbvp_nv3/Igalia+piglit/txq-09.vp': (6, 'E3001'),
    'arbvp_nv3/Igalia+piglit/txq-12.vp': (7, 'E3001'),
    'arbvp_nv3/Igalia+piglit/txq-14.vp': (8, 'E3001'),
    'arbvp_nv3/Igalia+piglit/txq-19.vp': (9, 'E3001'),
    'arbvp_nv3/Igalia+piglit/txq-20.vp': (10, 'E3001'),
}


@NO_CORPUS
def test_corpus_has_the_arb_dialects():
    options = Counter(("NV_vertex_program3" in read(rel), "NV_vertex_program2" in read(rel))
                      for rel, _ in ROWS)
    assert len(ROWS) > 1500 and len(options) >= 3


@NO_CORPUS
@pytest.mark.parametrize("chunk", range(8))
def test_ok_programs_translate_to_glsl_and_spirv(chunk):
    failures = []
    for rel, expected in ROWS[chunk::8]:
        if expected != "ok" or expected_error(rel) is not None:
            continue
        problem = translate_both(rel)
        if problem:
            failures.append(problem)
    assert not failures, "\n".join(failures[:20])


@NO_CORPUS
def test_error_programs_are_rejected_at_the_right_line():
    wrong = []
    errors = [rel for rel, expected in ROWS if expected == "error"]
    assert len(errors) == len(ERROR_LINES)
    for rel in errors:
        got = first_error(rel)
        if got != ERROR_LINES[rel.split("/", 1)[1]]:
            wrong.append(f"{rel}: {got} != {ERROR_LINES[rel.split('/', 1)[1]]}")
    assert not wrong, "\n".join(wrong)


@NO_CORPUS
def test_damaged_ok_programs_are_rejected_at_the_right_line():
    rows = dict(ROWS)
    for rel, want in REJECTED_OK.items():
        assert rows[rel] == "ok", rel
        assert first_error(rel) == want, rel


@NO_CORPUS
def test_compatibility_readings_translate_with_their_warning():
    """The ok programs the specification rejects and a driver of the time loaded: each one
    parses with its warning at the pinned line (and translates: the ok-programs test above)."""
    rows = dict(ROWS)
    wrong, halo = [], 0
    for rel, _ in ROWS:
        want = expected_warning(rel)
        if want is None:
            continue
        assert rows[rel] == "ok", rel
        halo += rel.startswith(HALO)
        got = [(d.span.line, d.code) for d in xlate.parse(read(rel), filename=rel).diagnostics]
        if want not in got:
            wrong.append(f"{rel}: warnings {got}, want {want}")
    assert not wrong, "\n".join(wrong)
    # every HaloMD program aliases bindings; 2 of the 79 are damaged (REJECTED_OK)
    assert halo == 77


@NO_CORPUS
def test_control_flow_modes_and_the_dispatch_fallback():
    """vp40 programs with BRA take the general structurizer; none needs the dispatch loop."""
    modes = Counter()
    for rel, expected in ROWS:
        if expected == "ok" and expected_error(rel) is None:
            modes[structurize(xlate.parse(read(rel))).mode] += 1
    assert modes["dispatch"] == 0, modes
    assert modes["structured"] >= 286, modes
