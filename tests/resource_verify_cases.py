"""What every verify test of a compute program with storage resources (buffer images,
multisample images, atomic counters) asserts the same way: on which backends and modules it
runs, what a pass of it says, and that a mutated direct SPIR-V module is caught."""
from __future__ import annotations

import pytest

from spirv_mutants import mutate_direct_module

DIRECT_RAN = "the direct SPIR-V path's module ran"
GLSLANG_RAN = "glslang's SPIR-V ran (--via glsl)"

#: (backend, via, the first note: which module ran; None on gl, which compiles the GLSL)
EVERY_MODULE = pytest.mark.parametrize("backend, via, ran", [
    ("gl", "auto", None),
    ("gl-spirv", "auto", DIRECT_RAN),
    ("gl-spirv", "glsl", GLSLANG_RAN),
    ("vulkan", "auto", DIRECT_RAN),
    ("vulkan", "glsl", GLSLANG_RAN)])

#: the backends that run the direct SPIR-V path's module
DIRECT_BACKENDS = pytest.mark.parametrize("backend", ["gl-spirv", "vulkan"])


def assert_passes(rep, compared: int, contended: int, ran: str | None) -> None:
    """A pass with no difference over ``compared`` words, the module ``ran`` (the first
    note), and the order of the atomics found for each of the ``contended`` words."""
    assert (rep.status, rep.compared, rep.total_differences) == ("pass", compared, 0), \
        (rep.reason, [d.describe() for d in rep.differences[:3]])
    assert rep.notes[0] == ran if ran else not rep.notes[0].endswith(" ran")
    assert f"atomics: {contended} contended words, each with an order of its atomics that " \
        "returns what the implementation returned" in rep.notes


def assert_mutated_direct_module_caught(monkeypatch, verify, backend: str) -> None:
    """``verify(backend)`` with every direct module's first integer add made a subtract:
    the direct module ran, and the verdict is a mismatch."""
    mutate_direct_module(monkeypatch)
    rep = verify(backend)
    assert rep.notes[0] == DIRECT_RAN
    assert rep.status == "mismatch" and rep.total_differences > 0
