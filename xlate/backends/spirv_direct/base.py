"""What every part of the direct SPIR-V emitter shares: the E7006 exception, the harness's
instrumentation, a register's variable, the data type letters."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from ...ir.model import DataType, Instruction

#: IR data type -> the emitter's kind letter (f float, i signed, u unsigned; b bool)
K = {DataType.FLOAT: "f", DataType.INT: "i", DataType.UINT: "u"}
QNAN = 0x7FC00000          # the executor's canonical NaN
INF = 0x7F800000


class NotCovered(Exception):
    """A construct the direct SPIR-V path does not emit (yet): E7006."""

    def __init__(self, message: str, ins: Instruction | None = None, span=None):
        super().__init__(message)
        self.span = span if span is not None else (ins.span if ins is not None else None)


@dataclass
class Instrumentation:
    """What a test harness (xlate.verify) adds to the program's own shader, as the GLSL
    harness edits the GLSL text (verify/capture.py ``add_capture``, ``fragment_inputs``,
    ``fragment_outputs``): the same variables, locations and bindings, so the harness around
    it is unchanged.

    ``capture``: vertex outputs captured by transform feedback, reflection output name (or
    built-in name, copied into an extra output at a free location) -> (xfb buffer, offset),
    with ``strides`` per buffer.  ``feeds``: fragment input name -> the binding (Vulkan) or
    texture unit (OpenGL) of a 2D texture read with texelFetch at the fragment's pixel instead
    of the interpolated input (rows counted from the top when ``feed_upper_left``).
    ``extra_output``: location of ``vec4(gl_FragDepth or 0.0, 1.0, 0.0, 0.0)``.
    Geometry programs (``add_capture`` and ``strip_room``): ``capture`` may name ``xv_prim``,
    an extra flat int output receiving ``gl_PrimitiveIDIn`` with every vertex;
    ``emit_limit``: at most that many ``EmitVertex`` (later EMITs do nothing) and an
    ``EndPrimitive`` with no vertex since the last one skipped; ``max_vertices``: the
    ``OutputVertices`` declared instead of the program's.
    ``tree_edit``: called with the middle end's :class:`~xlate.passes.pipeline.Lowering`
    before anything is printed, to edit the tree (and, by replacing ``lowered.program`` with
    an edited copy, the registers it reads): the mutation harness's hook
    (``xlate/verify/mutants_tree.py``), which makes the module a deliberately wrong one.
    ``atomic_log``: compute programs with atomics append what each atomic returned to the
    verifier's log (verify/gl_compute.py; the GLSL emitter's ``atomic_log``).
    ``tcs_lanes``: control programs store every lane's outputs and each patch's per-patch
    outputs into the verifier's buffer (verify/gl_tcs.py ``instrument``): that many lanes,
    ``tcs_lane_outputs`` the outputs stored per lane (``gl_tcs.lane_outputs``: reflection-like
    entries with ``name``, ``binding``, ``type``), ``tcs_patch_outputs`` the per-patch ones
    (reflection entries), ``tcs_result_binding`` the buffer's binding (gl_tcs.RESULT_SSBO on
    OpenGL, vulkan_tess.RESULT_BINDING on Vulkan).
    Tessellation evaluation programs: ``capture`` may name ``xv_prim`` and ``xv_tc``, extra
    outputs receiving ``gl_PrimitiveID`` and ``vec4(gl_TessCoord, 0.0)`` (add_capture's)."""

    capture: dict[str, tuple[int, int]] = field(default_factory=dict)
    strides: list[int] = field(default_factory=list)
    feeds: dict[str, int] = field(default_factory=dict)
    feed_upper_left: bool = False
    extra_output: int | None = None
    emit_limit: int | None = None
    max_vertices: int | None = None
    tree_edit: Callable[[object], None] | None = None
    atomic_log: bool = False
    tcs_lanes: int | None = None
    tcs_lane_outputs: list = field(default_factory=list)
    tcs_patch_outputs: list = field(default_factory=list)
    tcs_result_binding: int = 5


class _Reg:
    __slots__ = ("var", "kind", "size", "ptr_elem")

    def __init__(self, var, kind, size, ptr_elem):
        self.var, self.kind, self.size, self.ptr_elem = var, kind, size, ptr_elem
