"""Every fragment program of the shared corpus in the dialects of issue 5 part A (ARBfp1.0 plain
and with the NV_fragment_program(2) options, FP1.0): the programs MANIFEST.tsv marks ``ok``
translate to GLSL and to valid SPIR-V, the ones marked ``error`` are rejected with a diagnostic
at the offending line.  Folders: collected/arbfp, arbfp_nv, arbfp_nv2, nvfp1.0 and cgc's
cg/arbfp1, cg/fp40, cg/fp30 (cg/MANIFEST.tsv has no ``expected`` column: all ``ok``).

Where the MANIFEST and the specifications disagree, each file is listed below with the reason
and the diagnostic it gets: translated with a warning where a driver of the time loaded it
(COMPAT_WARNINGS), rejected where the text is damaged or uses what xlate does not implement
(SPEC_REJECTS), accepted where the specification allows what piglit expected to fail
(SPEC_ACCEPTS).  Per file: translates, or is rejected at the pinned line with the pinned code.
"""
from __future__ import annotations

import csv

import pytest

from conftest import SHARED_CORPUS, corpus_mark

import xlate
from xlate.diagnostics import XlateError

DIALECTS = ("arbfp", "arbfp_nv", "arbfp_nv2", "nvfp1.0")
PROFILES = ("arbfp1", "fp40", "fp30")

#: MANIFEST "ok", rejected: file -> (code, line, why)
SPEC_REJECTS = {
    "collected/arbfp/yuq+mesa-lima/tri-inv.fp":
        ("E3001", 3, "INV is not an opcode of ARB_fragment_program (ARBFP Table X.5) nor of any "
                     "option or driver parser (Mesa's demo progs/fp/tri-inv.c)"),
    "collected/arbfp/KhronosGroup+OpenGL-Registry/ARB_fragment_program-4.fp":
        ("E5002", 3, "the spec's own example of a program that fails to load: two targets on "
                     "texture unit 0 (ARBFP 3.11.6)"),
    "collected/arbfp/KhronosGroup+OpenGL-Registry/ARB_fragment_program_shadow-1.fp":
        ("E5002", 3, "ARB_fragment_program_shadow's example of a program that fails to load"),
    "collected/arbfp/KhronosGroup+OpenGL-Registry/ARB_fragment_program_shadow-2.fp":
        ("E5002", 4, "ARB_fragment_program_shadow's example of a program that fails to load"),
    "collected/arbfp/csuzhangxc+vvv/prog1sfx.fp":
        ("E1006", 7, "two-component swizzle 'tmp.xy' on a source (ARBFP <optionalSuffix> has one "
                     "or four components); the file also misses an operand on line 8"),
    "collected/arbfp/zhou0+qutemol/CgUtil-7.fp":
        ("E2003", 5, "uses the undeclared temporaries 'tmp' and 'n' (ARBFP 3.11.3): as "
                     "extracted from the C string, no parser can load it"),
    "collected/nvfp1.0/Igalia+piglit/fptest1-1.fp":
        ("E3005", 3, "writes both o[COLR] and o[COLH] (FP1 3.11.1.3); a parser exercise of "
                     "Mesa's tests/fptest1.c (Mesa's nvfragparse did not check the rule; nothing "
                     "documents NVIDIA's driver loading such a program)"),
    "collected/nvfp1.0/Igalia+piglit/fptest1-2.fp":
        ("E2003", 7, "'DECLARE bar3 = bar;' initializes from a DECLAREd parameter, but "
                     "<optionalLocalValue> takes a constant: a number or a DEFINEd name (FP1 3.11.3). "
                     "Mesa's nvfragparse took any name ('XXX Check that it's a constant and not a "
                     "parameter'); a parser exercise of fptest1.c, no shipped program relies on it"),
    "collected/nvfp1.0/larskanis+opengl/test_gl_ext_nv-3.fp":
        ("E2015", 1, "writes no output register (FP1 3.11.1.3: fails to load; Mesa too: 'Invalid "
                     "fragment program - no outputs written')"),
}

#: MANIFEST "ok", the specification says the program fails to load, but the drivers of the time
#: loaded it: translated, with a warning: file -> (code, line, why)
COMPAT_WARNINGS = {
    "collected/arbfp_nv/Igalia+piglit/size_specifier-68.fp":
        ("E3010", 31, "RFL writing w: FPO 3.11.5.36 'fail to load if the w component of the "
                      "result is enabled'; an asmparsertest for NVIDIA's parser (REQUIRE "
                      "GL_NV_fragment_program_option) that expects it to load"),
    "collected/arbfp_nv/Igalia+piglit/fp-rfl-2.fp":
        ("E3010", 13, "RFL writing w (FPO 3.11.5.36); piglit's fp-rfl rendering test expects it "
                      "to run"),
}

#: MANIFEST "error", accepted: file -> why
SPEC_ACCEPTS = {
    "collected/arbfp/Igalia+piglit/arbfp.fp":
        "an empty !!ARBfp1.0 program is valid (ARBFP 3.11.2: <statementSequence> may be empty); "
        "piglit keeps this file under ARBvp1.0/, where a fragment header fails to load",
    "collected/arbfp/Igalia+piglit/constant-01.fp":
        "'MOV result.color, 0.5;' is valid: <vectorSrcReg> ::= <optionalSign> <srcReg> "
        "<optionalSuffix> with <paramConstScalarUse> and an empty suffix (ARBFP 3.11.2; FPO "
        "restates <paramUseV> ::= <constantScalar> <swizzleSuffix>); only *scalar* operands need "
        "'0.5.x' (cos-03.fp), and piglit's own texgen.fp (ok) writes 'MUL r0, fragment.texcoord, 4;'",
}

#: MANIFEST "error" programs: file name -> (code, line) of the first error (the offending
#: statement; checked by reading each piglit "# FAIL" program)
ERROR_LINES = {
    "abs-02.fp": ("E3004", 6), "cos-02.fp": ("E3004", 4), "cos-03.fp": ("E3004", 4),
    "ddx-01.fp": ("E3001", 4), "ddy-01.fp": ("E3001", 4), "fog-04.fp": ("E2011", 4),
    "precision_hint-04.fp": ("E2011", 4), "shadow-02.fp": ("E5002", 7),
    "shadow-03.fp": ("E5001", 5), "sincos-02.fp": ("E3004", 5), "sincos-03.fp": ("E3004", 5),
    "size_specifier-06.fp": ("E2008", 4), "swz-04.fp": ("E3004", 6), "swz-07.fp": ("E3004", 3),
    "txd-02.fp": ("E3001", 4), "txd-03.fp": ("E3003", 7),
    **{f"result-{i:02d}.fp": ("E2004", 4) for i in range(2, 12)},
    # size_specifier-08 ... -88: one instruction on line 3, a suffix or opcode that needs
    # OPTION NV_fragment_program
    **{f"size_specifier-{i:02d}.fp": ("E3001" if i in (47, 48, 49, 50, 51, 52, 56, 57, 58, 59, 60,
                                                       61, 65, 66, 67, 71, 83, 88) else "E3002", 3)
       for i in range(8, 89)},
}


def corpus_files() -> list[tuple[str, str]]:
    if not SHARED_CORPUS.is_dir():
        return []
    out = []
    with open(SHARED_CORPUS / "collected" / "MANIFEST.tsv", newline="") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            if row["dialect"] in DIALECTS:
                out.append(("collected/" + row["file"], row["expected"]))
    with open(SHARED_CORPUS / "cg" / "MANIFEST.tsv", newline="") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            if row["profile"] in PROFILES:
                out.append(("cg/" + row["file"], "ok"))
    return sorted(out)


FILES = corpus_files()
CHUNKS = 8
needs_corpus = corpus_mark()


def expected_outcome(rel: str, manifest: str) -> str:
    if rel in SPEC_REJECTS:
        return "error"
    if rel in SPEC_ACCEPTS:
        return "ok"
    return manifest


@needs_corpus
def test_corpus_inventory():
    heads = {(SHARED_CORPUS / rel).read_text(errors="replace")[:10] for rel, _ in FILES}
    assert {"!!ARBfp1.0", "!!FP1.0\n"} <= {h if h.startswith("!!ARB") else h[:8] for h in heads}
    assert len(FILES) > 2000
    listed = {rel for rel, _ in FILES}
    assert set(SPEC_REJECTS) <= listed and set(SPEC_ACCEPTS) <= listed
    assert set(COMPAT_WARNINGS) <= listed
    for rel, manifest in FILES:
        # SPEC_REJECTS: the MANIFEST said "ok" when these were listed; it has since been
        # corrected for some (CgUtil-7: "error"), which agrees with the rejection pinned here
        if rel in COMPAT_WARNINGS:
            assert manifest == "ok", rel
        if rel in SPEC_ACCEPTS:
            assert manifest == "error", rel


@needs_corpus
@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_ok_programs_translate_to_valid_spirv(chunk):
    failures = []
    for rel, manifest in FILES[chunk::CHUNKS]:
        if expected_outcome(rel, manifest) != "ok":
            continue
        text = (SHARED_CORPUS / rel).read_text(errors="replace")
        try:
            # the GLSL translation and glslang's SPIR-V of it (the direct path's modules:
            # tests/test_spirv_direct.py)
            result = xlate.translate(text, filename=rel, target="spirv", via="glsl")
        except XlateError as e:
            failures.append(f"{rel}: {e.diagnostics[0].header()}")
            continue
        if not (result.glsl and result.spirv and result.spirv[:4] == b"\x03\x02\x23\x07"):
            failures.append(f"{rel}: no GLSL/SPIR-V")
    assert not failures, "\n".join(failures[:20])


@needs_corpus
def test_error_programs_are_rejected_at_the_offending_line():
    wrong = []
    for rel, manifest in FILES:
        if expected_outcome(rel, manifest) != "error":
            continue
        text = (SHARED_CORPUS / rel).read_text(errors="replace")
        try:
            xlate.parse(text, filename=rel)
        except XlateError as e:
            first = next(d for d in e.diagnostics if d.is_error)
            want = SPEC_REJECTS[rel][:2] if rel in SPEC_REJECTS else ERROR_LINES[rel.rsplit("/", 1)[1]]
            if (first.code, first.span.line) != want:
                wrong.append(f"{rel}: got {first.header()}, want {want}")
            continue
        wrong.append(f"{rel}: accepted")
    assert not wrong, "\n".join(wrong)


@needs_corpus
@pytest.mark.parametrize("rel", sorted(COMPAT_WARNINGS))
def test_compatibility_readings_translate_with_their_warning(rel):
    code, line, _ = COMPAT_WARNINGS[rel]
    result = xlate.translate((SHARED_CORPUS / rel).read_text(errors="replace"), filename=rel,
                             target="spirv")
    assert (code, line) in [(d.code, d.span.line) for d in result.diagnostics]
