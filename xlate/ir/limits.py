"""Geometry output limits shared by every frontend that makes geometry programs.

NV_geometry_program4 2.14.6.4: a program fails to load when its vertex limit (VERTICES_OUT,
TGSI's GS_MAX_OUTPUT_VERTICES) exceeds MAX_PROGRAM_OUTPUT_VERTICES_NV, or when the vertex limit
times the result components it writes exceeds MAX_PROGRAM_TOTAL_OUTPUT_COMPONENTS_NV.  xlate
uses the spec's minimum values, which are also the minimums GLSL guarantees
(gl_MaxGeometryOutputVertices 256, gl_MaxGeometryTotalOutputComponents 1024) and the values of
glslang's default resource table that validates every translation: a program that loads here
runs on every implementation, and a larger limit would be a promise the GLSL cannot keep
(glslang rejects ``max_vertices`` above 256).
"""
from __future__ import annotations

from .model import Program, RegKind

#: MAX_PROGRAM_OUTPUT_VERTICES_NV, gl_MaxGeometryOutputVertices
MAX_OUTPUT_VERTICES = 256
#: MAX_PROGRAM_TOTAL_OUTPUT_COMPONENTS_NV, gl_MaxGeometryTotalOutputComponents
MAX_TOTAL_OUTPUT_COMPONENTS = 1024


def result_components(prog: Program) -> int:
    """PROGRAM_RESULT_COMPONENTS_NV of ``prog``, counted as NV_gpu_program4 2.X.3.5 allows at
    the least: a component of a result binding counts when some instruction writes it (its
    write mask enables it) to that binding, directly or through a variable; a write through a
    relative index counts for every binding of the array.  Two variables bound to the same
    result share its components."""
    used: dict[str, list[bool]] = {}
    for ins in prog.instructions:
        d = ins.dst
        if d is None:
            continue
        reg = prog.registers.get(d.reg)
        if reg is None or reg.kind != RegKind.OUTPUT:
            continue
        if d.index is None:
            elems = [0]
        elif d.index.relative:
            elems = range(reg.length)
        else:
            elems = [d.index.offset]
        for e in elems:
            if not 0 <= e < len(reg.bindings) or reg.bindings[e] is None:
                continue
            mask = used.setdefault(reg.bindings[e].text(), [False] * 4)
            for c in range(4):
                mask[c] = mask[c] or d.mask[c]
    return sum(sum(m) for m in used.values())
