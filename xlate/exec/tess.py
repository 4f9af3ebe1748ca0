"""Running tessellation control programs: a patch's invocations, and the patch they make.

A TESS_CTRL program runs once per output vertex of each patch (``Tessellation.vertices_out``
invocations; lane ``p * N + i`` is invocation ``i`` of patch ``p``), every invocation seeing the
patch's inputs, its own ``gl_InvocationID`` (``primitive.invocation``), the patch number
(``primitive.id``) and the input patch size (``primitive.verticesin``).  Each invocation writes
its own vertex of the per-vertex outputs; the per-patch outputs are shared:
:func:`run_tess_control` combines them component by component from the invocations that wrote
them (their written-components registers, ``tcs.written``; frontends/tgsi/lower_tess.py):

* written by no invocation: undefined (GLSL 4.50 4.3.6: never assigned);
* written by one, or by several with the same bits: that value;
* written by several with different values: undefined (GLSL 4.50 4.3.6: "the value ... is
  undefined" when invocations write the same per-patch output differently) -- not guessed,
  marked.

Programs whose invocations read another invocation's output are refused by the frontend (E7001:
that needs a BARRIER), so the invocations are independent and run as ordinary lanes.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..ir.model import TCS_WRITTEN_PATH, Program, RegKind, Stage
from .bind import ExecError

#: per-patch outputs of a control program (the rest are per vertex)
PER_PATCH_PATHS = ("result.tessouter", "result.tessinner", "result.patch")


@dataclass
class TessControlResult:
    """``vertices``: per-vertex output binding text -> (patches, N, 4) words.  ``patch``:
    per-patch output binding text -> (patches, 4) words; ``defined``: the same keys ->
    (patches, 4) bool, False where the value is undefined (see the module docstring; the word
    there is 0).  ``steps_exceeded``: (patches, N) bool."""

    vertices: dict[str, np.ndarray]
    patch: dict[str, np.ndarray]
    defined: dict[str, np.ndarray]
    steps_exceeded: np.ndarray


def _has_input(program: Program, path: str) -> bool:
    return any(r.kind == RegKind.INPUT and any(b is not None and b.path == path
                                               for b in r.bindings)
               for r in program.registers.values())


def run_tess_control(program: Program, inputs: dict | None, patches: int, *,
                     params: dict | None = None, textures=None, vertices_in: int | None = None,
                     **kw) -> TessControlResult:
    """Run every invocation of ``patches`` patches.  ``inputs``: as for
    :func:`xlate.exec.execute`, per patch -- per-vertex inputs (patches, V, 4), the others
    (patches, 4) -- or shared by all; the invocation id, the patch number and the patch size
    (``vertices_in``, default the vertices the program addresses) are supplied here."""
    from .api import execute
    if program.stage != Stage.TESS_CTRL or program.tessellation is None:
        raise ExecError("run_tess_control: not a tessellation control program")
    n = program.tessellation.vertices_out
    lanes = patches * n
    patch_of = np.repeat(np.arange(patches), n)
    V = program.tessellation.patch_vertices
    given = {}
    for key, value in (inputs or {}).items():
        v = np.asarray(value)
        if v.ndim == 3 and v.shape[0] == patches and v.shape[1] < V:
            # a patch smaller than the vertices the program can address (an indirect vertex
            # index addresses gl_MaxPatchVertices): the vertices past it read zeros
            # (undefined in GL; the executor's choice)
            v = np.concatenate([v, np.zeros((patches, V - v.shape[1], 4), v.dtype)], axis=1)
        given[key] = v[patch_of] if v.ndim >= 2 and v.shape[0] == patches else v
    specials = {"primitive.invocation": np.tile(np.arange(n), patches),
                "primitive.id": patch_of,
                "primitive.verticesin": np.full(lanes, vertices_in or
                                                program.tessellation.patch_vertices)}
    for path, value in specials.items():
        if _has_input(program, path) and path not in given:
            words = np.zeros((lanes, 4), np.uint32)
            words[:, 0] = value.astype(np.uint32)
            given[path] = words
    res = execute(program, given, lanes=lanes, params=params, textures=textures, **kw)
    flags: dict[int, np.ndarray] = {}
    vertices, patch, defined = {}, {}, {}
    for reg in program.registers.values():
        if reg.kind == RegKind.OUTPUT and reg.bindings and reg.bindings[0].path == TCS_WRITTEN_PATH:
            flags[reg.bindings[0].index] = res.outputs[reg.name].reshape(patches, n, 4) != 0
    for reg in program.registers.values():
        if reg.kind != RegKind.OUTPUT or not reg.bindings or reg.size is not None:
            continue
        b = reg.bindings[0]
        if b.path == TCS_WRITTEN_PATH:
            continue
        words = res.outputs[reg.name].reshape(patches, n, 4)
        key = b.text()
        if b.path not in PER_PATCH_PATHS:
            vertices[key] = words
            continue
        j = program.tessellation.written.get(key)
        if j is None:                           # declared, never written: undefined
            patch[key] = np.zeros((patches, 4), np.uint32)
            defined[key] = np.zeros((patches, 4), bool)
            continue
        wrote = flags[j]                                           # (patches, n, 4)
        count = wrote.sum(axis=1)
        first = np.argmax(wrote, axis=1)                           # the first writer
        value = np.take_along_axis(words, first[:, None, :], axis=1)[:, 0]
        agree = np.all(~wrote | (words == value[:, None, :]), axis=1)
        ok = (count > 0) & agree
        patch[key] = np.where(ok, value, 0).astype(np.uint32)
        defined[key] = ok
    for reg in program.registers.values():
        if reg.kind == RegKind.OUTPUT and reg.size is not None:
            raise ExecError(f"run_tess_control: output array {reg.name!r} is not supported")
    return TessControlResult(vertices, patch, defined,
                             res.steps_exceeded.reshape(patches, n))
