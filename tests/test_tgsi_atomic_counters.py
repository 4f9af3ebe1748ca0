"""TGSI's hardware atomic counters (``DCL HWATOMIC[b][i]``, ``DCL HWATOMIC[b][i..j], ARRAY(n)``;
tgsi.rst "Hardware Atomic Register File"; issue 20): counter buffer b is a storage buffer on every
profile (Vulkan has no atomic counters) at binding 16 + b, named in the reflection; ATOM* and LOAD
on ``HWATOMIC[b][i]`` act on its word i, ``HWATOMIC[b][ADDR[0].x]`` on word ADDR (the offset
operand unread: frontends/tgsi/lower_memory.py says why).  The GLSL and both SPIR-V modules
validate, the executor's values are computed by hand, ``pass`` on gl, gl-spirv and vulkan, and
wrong translations (an atomic's operand in the GLSL, a word of the direct module) are mismatches.
Tests that run shaders skip when no implementation exists."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from conftest import gl_runner

from xlate import api
from xlate.backends import spirv as sp
from xlate.backends.spirv_direct import emit_spirv
from xlate.diagnostics import XlateError
from xlate.exec.compute import execute_compute
from xlate.verify import core

from test_tgsi_compute import comp
from resource_verify_cases import (DIRECT_BACKENDS, EVERY_MODULE, assert_passes,
                                   assert_mutated_direct_module_caught)

#: invocation n = 4 (block.x + 2 block.y) + thread (0..15) of verify's 2 x 2 grid:
#: x: ATOMUADD 1 on counter 0 of buffer 0 (an increment), y: ATOMUMAX n on counter 1,
#: z: ATOMUADD 1 on counter n & 3 of buffer 1 (an array, indirect), w: LOAD of counter 2;
#: TEMP[2] stored at BUFFER[0] word 4n
COUNTERS = comp(
    "UMAD TEMP[0].x, SV[1].yyyy, IMM[0].zzzz, SV[1].xxxx\n"
    "UMAD TEMP[0].x, TEMP[0].xxxx, IMM[0].wwww, SV[0].xxxx\n"
    "ATOMUADD TEMP[2].x, HWATOMIC[0][0], IMM[0].xxxx, IMM[0].yyyy\n"
    "ATOMUMAX TEMP[2].y, HWATOMIC[0][1], IMM[1].xxxx, TEMP[0].xxxx\n"
    "AND TEMP[1].x, TEMP[0].xxxx, IMM[1].yyyy\n"
    "UARL ADDR[0].x, TEMP[1].xxxx\n"
    "ATOMUADD TEMP[2].z, HWATOMIC[1][ADDR[0].x], TEMP[1].xxxx, IMM[0].yyyy\n"
    "LOAD TEMP[2].w, HWATOMIC[0][2], IMM[1].zzzz\n"
    "UMUL TEMP[1].y, TEMP[0].xxxx, IMM[1].wwww\n"
    "STORE BUFFER[0].xyzw, TEMP[1].yyyy, TEMP[2]\n",
    "DCL BUFFER[0]\nDCL HWATOMIC[0][0]\nDCL HWATOMIC[0][1]\nDCL HWATOMIC[0][2]\n"
    "DCL HWATOMIC[1][0..3], ARRAY(1)\nDCL ADDR[0]\n").replace(
    "IMM[0] UINT32 {0, 1, 2, 4}\n",
    "IMM[0] UINT32 {0, 1, 2, 4}\nIMM[1] UINT32 {4, 3, 8, 16}\n")


def test_counter_buffers_are_storage_buffers_named_in_the_reflection():
    t = api.translate(COUNTERS, filename="c.tgsi")
    assert [(b["resource"], b["binding"], b.get("atomic_counter_buffer"))
            for b in t.reflection["storage_buffers"]] == \
        [("BUFFER[0]", 0, None), ("HWATOMIC[0]", 16, 0), ("HWATOMIC[1]", 17, 1)]
    assert "TEMP2.x = xl_atomadd_HWATOMIC0((0u >> 2u), 1u);" in t.glsl
    # counter 1 of buffer 1's array, indirect: word ADDR
    assert "u__ctr = ADDR0.xxxx * 4u + 0u;" in t.glsl
    v = api.translate(COUNTERS, filename="c.tgsi", profile="vulkan")
    assert [(b["resource"], b["binding"]) for b in v.reflection["storage_buffers"]] == \
        [("BUFFER[0]", 64), ("HWATOMIC[0]", 80), ("HWATOMIC[1]", 81)]


@pytest.mark.parametrize("profile", ["vulkan", "glsl450"])
def test_both_spirv_modules_validate(profile):
    words = emit_spirv(api.parse(COUNTERS), profile).spirv
    assert sp.validate_spirv(words, target="vulkan" if profile == "vulkan" else "opengl") is None
    assert api.translate(COUNTERS, filename="c.tgsi", target="spirv", profile=profile,
                         via="glsl").spirv


def test_the_executor_runs_counter_atomics_and_reads():
    c0 = np.array([5, 9, 77] + [0] * 253, np.uint32)
    c1 = np.array([100, 200, 300, 400] + [0] * 252, np.uint32)
    res = execute_compute(api.parse(COUNTERS), (2, 2, 1), buffers={
        0: np.zeros(256, np.uint32), 16: c0.copy(), 17: c1.copy()})
    out = res.buffers[0][:64].reshape(16, 4)
    # invocations run in order n (the executor's lane order, workgroups in turn)
    assert out.tolist() == [[5 + n, max([9] + list(range(n))), c1[n & 3] + (n >> 2), 77]
                            for n in range(16)]
    assert res.buffers[16][:3].tolist() == [5 + 16, 15, 77]
    assert res.buffers[17][:4].tolist() == [104, 204, 304, 404]


@pytest.mark.parametrize("body, decls, want", [
    ("ATOMUADD TEMP[2].x, HWATOMIC[0][3], IMM[0].xxxx, IMM[0].yyyy\n", "DCL HWATOMIC[0][0..2]\n",
     "error[E2003]: undeclared register HWATOMIC[0][3]"),
    ("STORE HWATOMIC[0][0].x, IMM[0].xxxx, IMM[0].yyyy\n", "DCL HWATOMIC[0][0]\n",
     "error[E3004]: STORE on an atomic counter (HWATOMIC): tgsi.rst gives counters the atomic "
     "opcodes, and Mesa LOAD (a counter read), only"),
    ("ATOMUADD TEMP[2].x, HWATOMIC[0][0], IMM[0].xxxx, IMM[0].yyyy\n",
     "DCL BUFFER[16]\nDCL HWATOMIC[0][0]\n",
     "error[E7001]: DCL HWATOMIC[0][...] is the storage buffer at binding 16, which BUFFER[16] "
     "takes too"),
    ("LOAD TEMP[2], CONSTBUF[0], IMM[0].xxxx\n", "DCL CONSTBUF[0]\n",
     "error[E3008]: unsupported opcode LOAD (not yet supported: on CONSTBUF, a constant buffer "
     "read by byte address -- nir_to_tgsi's LOAD for PIPE_CAP_LOAD_CONSTBUF -- not "
     "CONST[n][i]'s vec4 slots)"),
])
def test_counter_and_constbuf_diagnostics(body, decls, want):
    with pytest.raises(XlateError) as e:
        api.parse(comp(body, decls), filename="c.tgsi")
    assert [d.header().split(": ", 1)[1] for d in e.value.diagnostics] == [want]


def _verify(backend: str, **kw):
    return core.verify_source(COUNTERS, "c.tgsi", backend=backend, runner=gl_runner(backend),
                              **kw)


@EVERY_MODULE
def test_atomic_counters_pass(backend, via, ran):
    # BUFFER[0], HWATOMIC[0], HWATOMIC[1]: 256 words each
    assert_passes(_verify(backend, via=via), 3 * 256, 6, ran)


@pytest.mark.parametrize("backend", ["gl", "gl-spirv", "vulkan"])
def test_a_wrong_counter_increment_is_a_mismatch(backend, monkeypatch):
    from xlate.verify import compute_replay
    real = compute_replay.translate

    def wrong(prog, profile):
        out = real(prog, profile)
        bad = out.source.replace("atomicAdd(xl_storage17.words[i], a)",
                                 "atomicAdd(xl_storage17.words[i], a + 1u)")
        assert bad != out.source
        return dataclasses.replace(out, source=bad)
    monkeypatch.setattr(compute_replay, "translate", wrong)
    rep = _verify(backend, via="glsl")
    assert rep.status == "mismatch"
    assert {d.output.split(" ")[0] for d in rep.differences} >= {"HWATOMIC[1]"}, \
        [d.describe() for d in rep.differences[:3]]


@DIRECT_BACKENDS
def test_a_mutated_direct_module_with_counters_is_a_mismatch(backend, monkeypatch):
    assert_mutated_direct_module_caught(monkeypatch, _verify, backend)
