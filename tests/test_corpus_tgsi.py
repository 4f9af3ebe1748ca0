"""Every TGSI program of ../shared/corpus translates to GLSL + valid SPIR-V or is rejected with
diagnostics (issue 6): the counts are pinned, so a regression in either direction shows.

Rejections (40 of 480), by first error: 8 E7001 (six 2012-era compute kernels declaring the
2011-2015 RES file, named with its era and modern spelling; the TXF from a 2D_MSAA texture of
yuq+mesa-lima/u_tests-3 translates since issue 20's multisample targets; fs-fragcoord-2 reads a
fragment position with FS_COORD_ORIGIN UPPER_LEFT, which the vulkan profile cannot express --
glsl450 can; quad-sample-2 declares the RES file), 31 damaged files (etnaviv dumps cut
mid-token or followed by machine code, C format strings like ``%s``, ``#ifdef`` sources:
E1002/E1003/E1006/E3001/E3003/E3004; four 2012-era compute kernels name RGLOBAL/RLOCAL/RINPUT
resources, E3004 naming the era and the modern spelling); and yuq+mesa-lima/u_tests-2's
FBFETCH, which translates to the vulkan profile since issue 20 (a subpass input) and is refused
by glsl450 (E7001: GL_EXT_shader_framebuffer_fetch).  No opcode blocks a program any more
(SAMPLE translates since issue 20; the two programs using it name RES[n] as its sampler view,
refused with the RES declaration, E7001).  The 13 modern compute shaders translate since
issue 20 (BUFFER and IMAGE LOAD/STORE, TEX_LZ in compute); the 13 of the 2012 era are refused
naming it.
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
    assert ok == 440
    assert dict(first_codes) == {"E7001": 9, "E1002": 11, "E3001": 7, "E3003": 2, "E1003": 4,
                                 "E1006": 2, "E3004": 5}
    assert dict(blocking) == {}


COMPUTE = [f for f in FILES if f.read_bytes().startswith(b"COMP")]
#: the Mesa 2012-era compute programs (clover's trivial compute tests and u_compute's first
#: form): each is refused naming its era, never with a generic error
ERA_2012 = [f for f in COMPUTE if f.parent.name == "yuq+mesa-lima"]


def test_the_older_compute_programs_are_refused_naming_their_era():
    assert len(COMPUTE) == 26 and len(ERA_2012) == 13
    for f in ERA_2012:
        with pytest.raises(XlateError) as e:
            api.parse(f.read_bytes().decode("utf-8", "replace"), filename=f.name)
        errors = [d for d in e.value.diagnostics if d.is_error]
        assert errors and all(("2012-era" in d.message or "Mesa 2011-2015" in d.message)
                              for d in errors), (f.name, [d.header() for d in errors])


def test_the_modern_compute_programs_translate():
    translated = []
    for f in COMPUTE:
        if f in ERA_2012:
            continue
        text = f.read_bytes().decode("utf-8", "replace")
        t = api.translate(text, filename=f.name, target="spirv", profile="vulkan")
        # validated SPIR-V of the direct path, images and atomics included
        assert t.spirv and t.spirv_via == "direct", (f.name, t.spirv_fallback_reason)
        translated.append(f.name)
    assert len(translated) == 13 and "si_shaderlib_tgsi.tgsi" in translated
