"""The interface of tessellation programs (TESS_CTRL, TESS_EVAL): bindings -> GLSL built-ins
and varyings, the stage layout qualifiers.  Part of the interface mapping of ``interface.py``
(which asks :func:`tess_input_interface` first for a tessellation stage).

* Per-vertex inputs (``vertex.*``) are what a geometry program's are: ``gl_in[v].gl_Position``,
  user varyings as unsized arrays (``in vec4 x[];``: a tessellation stage's input arrays are
  gl_MaxPatchVertices long, GLSL 4.50 4.3.4).
* ``primitive.patch[n]`` is a ``patch`` varying at location n: per-patch varyings have a
  location space of their own (Mesa and SPIR-V number them apart from per-vertex ones, from
  VARYING_SLOT_PATCH0), so PATCH[n] needs no offset past the per-vertex table.
* The tess levels are read as one vec4: gl_TessLevelOuter[0..3], gl_TessLevelInner[0..1] then
  zeros (tgsi.rst leaves TESSINNER's z and w undefined); gl_TessCoord is x, y, z and w = 0.
"""
from __future__ import annotations

from ..ir.model import Binding, Stage
from .interface import InterfaceVar, sanitize

#: TES_PRIM_MODE (Tessellation.primitive) -> GLSL's primitive layout qualifier
PRIMITIVE_LAYOUT = {"TRIANGLES": "triangles", "QUADS": "quads", "ISOLINES": "isolines"}
SPACING_LAYOUT = {"EQUAL": "equal_spacing", "FRACTIONAL_ODD": "fractional_odd_spacing",
                  "FRACTIONAL_EVEN": "fractional_even_spacing"}
#: binding paths of tessellation inputs whose values are integers
TESS_INTEGER_PATHS = frozenset({"primitive.verticesin", "primitive.invocation"})

_OUTER = "vec4(gl_TessLevelOuter[0], gl_TessLevelOuter[1], gl_TessLevelOuter[2], " \
         "gl_TessLevelOuter[3])"
_INNER = "vec4(gl_TessLevelInner[0], gl_TessLevelInner[1], 0.0, 0.0)"


def tess_layout(prog) -> list[str]:
    """The stage's layout declarations (``layout(triangles, equal_spacing, ccw) in;``)."""
    tess = prog.tessellation
    if tess is None:
        return []
    if prog.stage == Stage.TESS_CTRL:
        return [f"layout(vertices = {tess.vertices_out}) out;"]
    quals = [PRIMITIVE_LAYOUT[tess.primitive], SPACING_LAYOUT[tess.spacing],
             "cw" if tess.vertex_order_cw else "ccw"]
    if tess.point_mode:
        quals.append("point_mode")
    return [f"layout({', '.join(quals)}) in;"]


#: a tessellation stage's built-in inputs: binding path -> (GLSL name, type, vec4/ivec4 form)
_BUILTIN_INPUTS = {
    "primitive.id": ("gl_PrimitiveID", "int", "ivec4(gl_PrimitiveID, 0, 0, 0)"),
    "primitive.verticesin": ("gl_PatchVerticesIn", "int", "ivec4(gl_PatchVerticesIn, 0, 0, 0)"),
    "primitive.invocation": ("gl_InvocationID", "int", "ivec4(gl_InvocationID, 0, 0, 0)"),
    "tess.coord": ("gl_TessCoord", "vec3", "vec4(gl_TessCoord, 0.0)"),
    "primitive.tessouter": ("gl_TessLevelOuter", "float", _OUTER),
    "primitive.tessinner": ("gl_TessLevelInner", "float", _INNER),
}


def tess_input_interface(stage: Stage, b: Binding, integer: bool, name: str | None
                         ) -> tuple[InterfaceVar, str] | None:
    """(interface variable, vec4/ivec4 expression) of a tessellation stage's per-patch input or
    system value; None for a per-vertex input (the geometry rules apply)."""
    path, idx = b.path, b.index
    text = b.text()
    builtin = _BUILTIN_INPUTS.get(path)
    if builtin is not None:
        gname, gtype, expr = builtin
        return InterfaceVar(gname, text, "in", gtype, builtin=True), expr
    if path == "primitive.patch":
        name = name or sanitize(text)
        gtype = "ivec4" if integer else "vec4"
        return (InterfaceVar(name, text, "in", gtype, idx, interpolation="PATCH"), name)
    return None


#: per-patch outputs of a control shader: binding path -> (built-in or None, components)
_PATCH_OUTPUTS = {"result.tessouter": ("gl_TessLevelOuter", 4),
                  "result.tessinner": ("gl_TessLevelInner", 2)}


def tcs_output_interface(b: Binding, integer: bool, vertices: int, name: str | None
                         ) -> tuple[InterfaceVar, str]:
    """(interface variable, assignment template) of a TESS_CTRL output.  Per-vertex outputs
    are stored into the invocation's own vertex (``[gl_InvocationID]``); per-patch outputs
    component by component, each only where this invocation wrote it (``{w}``: its
    written-components register, frontends/tgsi/lower_tess.py) -- so an invocation that did
    not write a level leaves the value another one wrote."""
    path, idx = b.path, b.index
    text = b.text()
    if path in _PATCH_OUTPUTS:
        builtin, n = _PATCH_OUTPUTS[path]
        assign = " ".join(f"if ({{w}}.{c} != 0) {builtin}[{k}] = {{x}}.{c};"
                          for k, c in enumerate("xyzw"[:n]))
        return InterfaceVar(builtin, text, "out", "float", builtin=True,
                            components="xyzw"[:n]), assign
    if path == "result.patch":
        name = name or sanitize(text)
        gtype = "ivec4" if integer else "vec4"
        assign = " ".join(f"if ({{w}}.{c} != 0) {name}.{c} = {{x}}.{c};" for c in "xyzw")
        return InterfaceVar(name, text, "out", gtype, idx, interpolation="PATCH"), assign
    if path == "result.position":
        return (InterfaceVar("gl_out[].gl_Position", text, "out", "vec4", builtin=True),
                "gl_out[gl_InvocationID].gl_Position = {x};")
    if path == "result.pointsize":
        return (InterfaceVar("gl_out[].gl_PointSize", text, "out", "float", builtin=True,
                             components="x"), "gl_out[gl_InvocationID].gl_PointSize = {x}.x;")
    from .interface import NotExpressible, varying_location
    suffix = path.split(".", 1)[1]
    try:
        loc = varying_location(suffix, idx)
    except KeyError:
        raise NotExpressible(f"tessellation control output '{text}'") from None
    name = name or sanitize(text)
    gtype = "ivec4" if integer else "vec4"
    return (InterfaceVar(name, text, "out", gtype, loc, array=vertices),
            f"{name}[gl_InvocationID] = {{x}};")
