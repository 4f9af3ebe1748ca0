"""Every !!NV*4.0 program of the shared corpus translates to GLSL that glslang accepts and to
SPIR-V that SPIRV-Tools validates, in both profiles (issue: foundation, "what it must show").

One program there is rejected on purpose: the NV_parameter_buffer_object spec example contains
`MOV t, program.buffer[3][6];` under the comment "Illegal -- program.buffer[...] cannot appear as
an instruction operand" (PBO spec, "Parameter Buffer Object Bindings").  The MANIFEST marks the
file `ok` because it has no piglit failure marker; the spec wins, so we assert the diagnostic.
"""
from __future__ import annotations

import pytest

from conftest import SHARED_CORPUS, corpus_mark

import xlate
from xlate.diagnostics import XlateError

SPEC_ILLEGAL = "collected/nvfp4/KhronosGroup+OpenGL-Registry/NV_parameter_buffer_object.fp"


def nv4_files():
    if not SHARED_CORPUS.is_dir():
        return []
    out = []
    for sub in ("cg/gp4vp", "cg/gp4fp", "cg/gp4gp", "collected/nvfp4", "collected/nvgp4"):
        out += sorted((SHARED_CORPUS / sub).rglob("*.*p"))
    return out


FILES = nv4_files()


@corpus_mark()
def test_corpus_has_nv4_programs():
    heads = {f.read_text(errors="replace")[:9] for f in FILES}
    assert {"!!NVvp4.0", "!!NVfp4.0", "!!NVgp4.0"} <= heads
    assert len(FILES) > 1000


@corpus_mark()
@pytest.mark.parametrize("chunk", range(8))
def test_nv4_corpus_translates_and_validates(chunk):
    failures = []
    for path in FILES[chunk::8]:
        rel = path.relative_to(SHARED_CORPUS).as_posix()
        text = path.read_text(errors="replace")
        if rel == SPEC_ILLEGAL:
            continue
        for target, profile in (("glsl", "glsl450"), ("spirv", "vulkan")):
            try:
                result = xlate.translate(text, filename=rel, target=target, profile=profile)
            except XlateError as e:
                failures.append(f"{rel} [{profile}]: {e.diagnostics[0].header()}")
                continue
            if target == "spirv":
                assert result.spirv[:4] == b"\x03\x02\x23\x07"
    assert not failures, "\n".join(failures[:20])


@corpus_mark(SPEC_ILLEGAL)
def test_pbo_spec_example_is_rejected_where_the_spec_says():
    text = (SHARED_CORPUS / SPEC_ILLEGAL).read_text()
    with pytest.raises(XlateError) as err:
        xlate.parse(text, filename="pbo.fp")
    heads = [d.header() for d in err.value.diagnostics]
    assert heads == ["pbo.fp:8:8: error[E2004]: 'program.buffer' can only be used in a BUFFER "
                     "declaration, not in an instruction"]
