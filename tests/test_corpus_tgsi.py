"""Every TGSI program of ../shared/corpus translates to GLSL + valid SPIR-V or is rejected with
diagnostics (issue 6): the counts are pinned, so a regression in either direction shows.

Rejections (53 of 480), by first error: 21 E7001 (compute shaders -- no compute stage in
xlate; the TXF from a 2D_MSAA texture of yuq+mesa-lima/u_tests-3 translates since issue 20's
multisample targets; fs-fragcoord-2 reads a fragment position with
FS_COORD_ORIGIN UPPER_LEFT, which the vulkan profile cannot express -- glsl450 can;
quad-sample-2 declares the 2011-2015 RES file), 31 damaged files (etnaviv dumps cut mid-token
or followed by machine code, C format strings like ``%s``, ``#ifdef`` sources:
E1002/E1003/E1006/E3001/E3003/E3004; four 2012-era compute kernels name RGLOBAL/RLOCAL/RINPUT
resources, E3004 naming the era and the modern spelling); and yuq+mesa-lima/u_tests-2's
FBFETCH, which translates to the vulkan profile since issue 20 (a subpass input) and is refused
by glsl450 (E7001: GL_EXT_shader_framebuffer_fetch).  Unsupported opcodes, by the number of
programs they block: STORE 20, LOAD 7 (SAMPLE translates
since issue 20; the two programs using it name RES[n] as its sampler view, refused with the
RES declaration, E7001).
"""
from __future__ import annotations

import collections

import pytest

from conftest import SHARED_CORPUS, corpus_mark

from xlate import api
from xlate.diagnostics import XlateError

CORPUS = SHARED_CORPUS / "collected" / "tgsi"
FILES = sorted(CORPUS.rglob("*.tgsi")) if CORPUS.is_dir() else []

pytestmark = corpus_mark("collected/tgsi")


def _translate_all():
    ok, first_codes, blocking = 0, collections.Counter(), collections.Counter()
    for f in FILES:
        text = f.read_bytes().decode("utf-8", "replace")
        try:
            t = api.translate(text, filename=str(f), target="spirv", profile="vulkan",
                              via="glsl")     # the GLSL translation, compiled by glslang
            assert t.spirv and t.glsl
            api.translate_program(t.program, target="glsl", profile="glsl450")
            ok += 1
        except XlateError as e:
            errors = [d for d in e.diagnostics if d.is_error]
            assert errors, f"{f}: XlateError without an error diagnostic"
            assert not any(d.code in ("E7002", "E7003", "E7005") for d in errors), \
                f"{f}: {errors[0].header()}"
            first_codes[errors[0].code] += 1
            for op in {d.message.split()[2] for d in errors if d.code == "E3008"}:
                blocking[op] += 1
    return ok, first_codes, blocking


def test_every_tgsi_program_translates_or_is_rejected():
    ok, first_codes, blocking = _translate_all()
    assert len(FILES) == 480
    assert ok == 427
    assert dict(first_codes) == {"E7001": 22, "E1002": 11, "E3001": 7, "E3003": 2, "E1003": 4,
                                 "E1006": 2, "E3004": 5}
    assert dict(blocking) == {"STORE": 20, "LOAD": 7}
