"""Tessellation evaluation programs (TGSI TESS_EVAL) in the direct SPIR-V path.

The storage model is the GLSL backend's (``backends/tess_interface.py``): per-vertex inputs are
staged as a geometry program's (``geometry.py``: ``Input`` arrays of ``nverts`` elements, the
vertices the program addresses -- the outer dimension of an arrayed input is ignored when
stages are matched, Vulkan 15.1.3); the per-patch inputs and system values below become
vec4/ivec4 values; outputs leave at the end of ``main`` as a vertex program's.

* ``gl_TessCoord``: BuiltIn TessCoord, vec3 -> (x, y, z, 0);
* ``gl_TessLevelOuter`` / ``gl_TessLevelInner``: BuiltIn float[4] / float[2], both ``Patch``
  -> (o0, o1, o2, o3) / (i0, i1, 0, 0);
* ``gl_PatchVerticesIn``: BuiltIn PatchVertices, int -> (n, 0, 0, 0);
* ``patch in`` varyings: ``Patch``-decorated inputs at their locations;
* the entry point is TessellationEvaluation with the ``Tessellation`` capability and the modes
  of the program's domain, spacing, vertex order and point mode.
"""
from __future__ import annotations

from ...ir.model import Stage
from .module import BUILTIN

TESS_EVAL_MODEL = 2
#: ExecutionMode numbers (SPIR-V unified grammar)
_DOMAIN = {"TRIANGLES": 22, "QUADS": 24, "ISOLINES": 25}
_SPACING = {"EQUAL": 1, "FRACTIONAL_EVEN": 2, "FRACTIONAL_ODD": 3}
_VERTEX_ORDER_CW, _VERTEX_ORDER_CCW, _POINT_MODE = 4, 5, 10


class TessMixin:
    def tess_input_value(self, var, b) -> tuple[int, str] | None:
        """The vec4/ivec4 value of a tessellation input that is not per vertex; None for the
        inputs the general rules give."""
        name = var.name
        f1, i1 = self.t("f", 1), self.t("i", 1)
        zf, zi = self.c("f", 0.0, 1), self.c("i", 0, 1)
        if name == "gl_TessCoord":
            f3 = self.t("f", 3)
            v = self.val("Load", f3, self.tess_builtin("TessCoord", f3))
            return self.vec("f", [self.x(v, 0), self.x(v, 1), self.x(v, 2), zf]), "f"
        if name == "gl_PatchVerticesIn":
            v = self.val("Load", i1, self.tess_builtin("PatchVertices", i1))
            return self.vec("i", [v, zi, zi, zi]), "i"
        if name in ("gl_TessLevelOuter", "gl_TessLevelInner"):
            n = 4 if name == "gl_TessLevelOuter" else 2
            arr = self.tess_builtin(name[3:], self.m.array(f1, n), patch=True)
            ptr = self.m.pointer("Input", f1)
            comps = [self.val("Load", f1, self.val("AccessChain", ptr, arr, self.c("i", k, 1)))
                     for k in range(n)]
            return self.vec("f", comps + [zf] * (4 - n)), "f"
        if var.interpolation == "PATCH":
            kind = {"vec4": "f", "ivec4": "i"}[var.glsl_type]
            v = self.interface_var("Input", self.t(kind), var)
            self.m.decorate(v, "Patch")
            return self.val("Load", self.t(kind), v), kind
        return None

    def tess_builtin(self, builtin: str, t: int, patch: bool = False) -> int:
        v = self.builtin_inputs.get(builtin)
        if v is None:
            v = self.m.variable(self.m.pointer("Input", t), "Input")
            self.m.decorate(v, "BuiltIn", BUILTIN[builtin])
            if patch:
                self.m.decorate(v, "Patch")
            self.interface.append(v)
            self.builtin_inputs[builtin] = v
        return v

    def tess_modes(self, main: int) -> None:
        tess = self.prog.tessellation
        m = self.m
        m.capability("Tessellation")
        assert self.prog.stage == Stage.TESS_EVAL
        m.put("modes", "ExecutionMode", main, _DOMAIN[tess.primitive])
        m.put("modes", "ExecutionMode", main, _SPACING[tess.spacing])
        m.put("modes", "ExecutionMode", main,
              _VERTEX_ORDER_CW if tess.vertex_order_cw else _VERTEX_ORDER_CCW)
        if tess.point_mode:
            m.put("modes", "ExecutionMode", main, _POINT_MODE)
