"""Verifying tessellation evaluation programs on OpenGL (Mesa llvmpipe): transform feedback of
the translated TES behind a harness vertex and control shader.  The same harness runs on Vulkan
(:mod:`vulkan_tess`; :func:`run_tess_eval` hands the draw to a runner that has its own,
``draw_tess_eval``), and the matching
of vertices below is this module's for both.

The harness draws ``P`` patches of ``V`` vertices (V: the vertices the program addresses,
``Tessellation.patch_vertices``).  Its vertex shader does nothing; its tessellation control
shader copies each patch's generated inputs out of two storage buffers (per-vertex values at
``(patch * V + vertex) * NV + k``, per-patch values at ``patch * NP + k``) into the varyings
and built-ins the translated TES reads, and sets the tess levels to :data:`OUTER` /
:data:`INNER` (the same for every patch: the TES's TESSOUTER/TESSINNER inputs get them).  The
TES under test runs as translated, with two extra captured outputs: ``gl_PrimitiveID`` (the
patch) and ``gl_TessCoord``.

Where the tessellator puts its vertices, how many it makes and in which order transform
feedback records them are the implementation's (GL 4.5 11.2.2 leaves the subdivision to it
within rules xlate does not model).  So nothing is compared by order: each captured vertex is
matched to the executor by its own patch and tess coordinate -- the executor runs the original
program once per captured vertex, on that patch's inputs and that coordinate's bits -- and the
outputs are compared per captured vertex.  A run that captures no vertex, or leaves a patch
without any, is a mismatch (the domain, levels or harness went wrong).
"""
from __future__ import annotations

import ctypes as C
from dataclasses import dataclass

import numpy as np

from . import glapi as G

GL_TESS_EVALUATION_SHADER = 0x8E87
GL_TESS_CONTROL_SHADER = 0x8E88
GL_PATCHES = 0x000E
GL_PATCH_VERTICES = 0x8E72
GL_SHADER_STORAGE_BUFFER = 0x90D2
GL_LINES = 0x0001
GL_TRIANGLES = 0x0004
#: storage-buffer bindings of the harness (the translation's own resources use UBOs/textures)
VERTEX_SSBO, PATCH_SSBO = 6, 7
#: the harness's tess levels: integers, so that every spacing subdivides the same way in both
#: directions of a quad and the TES reads back exactly what the harness wrote
OUTER = (2.0, 3.0, 4.0, 2.0)
INNER = (3.0, 2.0)
#: patches drawn per run (each gives tens of vertices at these levels)
PATCHES = 64

_TESS_BUILTINS = ("gl_TessCoord", "gl_PrimitiveID", "gl_PatchVerticesIn", "gl_TessLevelOuter",
                  "gl_TessLevelInner")


def _cast(gtype: str, expr: str) -> str:
    return {"vec4": f"uintBitsToFloat({expr})", "ivec4": f"ivec4({expr})",
            "uvec4": expr}[gtype]


def control_shader(reflection: dict, V: int, bindings: tuple[int, int] = (VERTEX_SSBO, PATCH_SSBO)
                   ) -> tuple[str, list[str], list[str]]:
    """The harness TCS for a TES's inputs: (text, per-vertex input names, per-patch input
    names), the names in the order of their words in the storage buffers (at ``bindings``:
    per-vertex, per-patch; the Vulkan harness puts them above the translation's descriptors)."""
    per_vertex, per_patch = [], []
    decls, vertex_body, patch_body = [], [], []
    position = point_size = False
    for inp in reflection["inputs"]:
        name, t = inp["name"], inp["type"]
        if inp["builtin"]:
            if name == "gl_in[].gl_Position":
                position = True
            elif name == "gl_in[].gl_PointSize":
                point_size = True
            elif name not in _TESS_BUILTINS:
                raise G.GLError(f"the tessellation harness cannot feed {name}")
            continue
        if inp["location"] is None:
            raise G.GLError(f"the tessellation harness needs explicit locations ({name})")
        if inp.get("interpolation") == "patch":
            k = len(per_patch)
            per_patch.append(name)
            decls.append(f"layout(location = {inp['location']}) patch out {t} {name};")
            patch_body.append(f"        {name} = {_cast(t, f'xv_patch[p * NP + {k}]')};")
        else:
            k = len(per_vertex)
            per_vertex.append(name)
            decls.append(f"layout(location = {inp['location']}) out {t} {name}[];")
            vertex_body.append(f"    {name}[gl_InvocationID] = {_cast(t, f'xv_vert[v * NV + {k}]')};")
    if position:
        k = len(per_vertex)
        per_vertex.append("gl_in[].gl_Position")
        vertex_body.append(f"    gl_out[gl_InvocationID].gl_Position = "
                           f"uintBitsToFloat(xv_vert[v * NV + {k}]);")
    if point_size:
        k = len(per_vertex)
        per_vertex.append("gl_in[].gl_PointSize")
        vertex_body.append(f"    gl_out[gl_InvocationID].gl_PointSize = "
                           f"uintBitsToFloat(xv_vert[v * NV + {k}]).x;")
    levels = [f"        gl_TessLevelOuter[{i}] = {x!r};" for i, x in enumerate(OUTER)] + \
             [f"        gl_TessLevelInner[{i}] = {x!r};" for i, x in enumerate(INNER)]
    text = "\n".join([
        "#version 450 core",
        f"layout(vertices = {V}) out;",
        f"const int NV = {max(len(per_vertex), 1)};",
        f"const int NP = {max(len(per_patch), 1)};",
        f"layout(std430, binding = {bindings[0]}) readonly buffer XvVertices {{ uvec4 xv_vert[]; }};",
        f"layout(std430, binding = {bindings[1]}) readonly buffer XvPatches {{ uvec4 xv_patch[]; }};",
        *decls,
        "void main()",
        "{",
        "    int p = gl_PrimitiveID;",
        f"    int v = p * {V} + gl_InvocationID;",
        *vertex_body,
        "    if (gl_InvocationID == 0) {",
        *levels,
        *patch_body,
        "    }",
        "}", ""])
    return text, per_vertex, per_patch


VERTEX_SHADER = "#version 450 core\nvoid main()\n{\n    gl_Position = vec4(0.0);\n}\n"
#: captured primitives per patch a run makes room for: far above what OUTER/INNER make
ROOM_PER_PATCH = 256


def captured_primitive(tess: dict) -> str:
    """What transform feedback records of the TES's output: points, lines or triangles."""
    if tess["point_mode"]:
        return "points"
    return "lines" if tess["primitive"] == "isolines" else "triangles"


def harness_words(inputs: dict[str, np.ndarray], patches: int, V: int, per_vertex: list[str],
                  per_patch: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """The words of the harness's two storage buffers (:func:`control_shader`): per-vertex
    (patches, V, NV, 4) and per-patch (patches, NP, 4)."""
    vert = np.zeros((patches, V, max(len(per_vertex), 1), 4), np.uint32)
    for k, name in enumerate(per_vertex):
        vert[:, :, k] = np.asarray(inputs[name], np.uint32).reshape(patches, V, 4)
    patch = np.zeros((patches, max(len(per_patch), 1), 4), np.uint32)
    for k, name in enumerate(per_patch):
        patch[:, k] = np.asarray(inputs[name], np.uint32).reshape(patches, 4)
    return vert, patch


def run_tess_eval(runner, glsl: str, reflection: dict, patches: int, V: int,
                  inputs: dict[str, np.ndarray], uniforms, buffers, textures=None, shadow=None,
                  direct=None):
    """Run the translated TES ``glsl`` on ``patches`` patches behind the harness.  ``inputs``:
    reflection input name -> words ((patches, V, 4) per-vertex, (patches, 4) per-patch).
    ``direct``: the direct SPIR-V path's module maker (:func:`direct_check.direct_module`) whose
    module runs instead of ``glsl``, with the same capture (gl-spirv and vulkan).  Returns
    (captured outputs by reflection name, patch of each captured vertex, its tess coordinate
    words (N, 4))."""
    from .capture import add_capture, program_stage
    if hasattr(runner, "draw_tess_eval"):   # a runner with its own pipeline (vulkan_tess)
        return runner.draw_tess_eval(glsl, reflection, patches, V, inputs, uniforms, buffers,
                                     textures, shadow, direct)
    if getattr(runner, "backend", None) not in ("gl", "gl-spirv"):
        raise G.GLUnavailable("tessellation programs are verified on the gl, gl-spirv and "
                              "vulkan backends only")
    gl = runner.gl
    tess = reflection["tessellation"]
    tcs, per_vertex, per_patch = control_shader(reflection, V)
    src, slots, strides = add_capture(glsl, reflection, "tess_evaluation")
    runner._tex = (textures or {}, shadow or set())
    gl.use()
    try:
        prog = runner.program([(G.GL_VERTEX_SHADER, VERTEX_SHADER),
                               (GL_TESS_CONTROL_SHADER, tcs),
                               (GL_TESS_EVALUATION_SHADER,
                                program_stage(direct, src, capture=slots, strides=strides))])
        runner._objects.append(("program", prog))
        runner._dummy_fbo()
        runner._vao()
        vert, patch = harness_words(inputs, patches, V, per_vertex, per_patch)
        for binding, words in ((VERTEX_SSBO, vert), (PATCH_SSBO, patch)):
            buf = runner._buffer(GL_SHADER_STORAGE_BUFFER, np.ascontiguousarray(words).tobytes())
            gl.BindBufferBase(GL_SHADER_STORAGE_BUFFER, binding, buf)
        runner._set_uniforms(prog, uniforms)
        runner._bind_by_name(prog, reflection)
        runner._set_buffers(buffers)
        runner._textures(*runner._tex)
        mode, per = {"points": (G.GL_POINTS, 1), "lines": (GL_LINES, 2),
                     "triangles": (GL_TRIANGLES, 3)}[captured_primitive(tess)]
        room = patches * ROOM_PER_PATCH * per
        bufs = []
        for b, st in enumerate(strides):
            buf = runner._buffer(G.GL_TRANSFORM_FEEDBACK_BUFFER, None, room * st)
            gl.BindBufferBase(G.GL_TRANSFORM_FEEDBACK_BUFFER, b, buf)
            bufs.append(buf)
        q = gl.gen(gl.GenQueries)
        runner._objects.append(("query", q))
        gl.UseProgram(prog)
        gl.PatchParameteri(GL_PATCH_VERTICES, V)
        gl.Enable(G.GL_RASTERIZER_DISCARD)
        gl.BeginQuery(G.GL_TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN, q)
        gl.BeginTransformFeedback(mode)
        gl.DrawArrays(GL_PATCHES, 0, patches * V)
        gl.EndTransformFeedback()
        gl.EndQuery(G.GL_TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN)
        gl.Disable(G.GL_RASTERIZER_DISCARD)
        written = C.c_uint()
        gl.GetQueryObjectuiv(q, G.GL_QUERY_RESULT, C.byref(written))
        gl.check("tessellation draw")
        count = min(written.value * per, room)
        got = runner._tf_read(bufs, strides, slots, count)
    finally:
        runner._cleanup()
    prim = got.pop("xv_prim")[:, 0].astype(np.int64)
    coord = got.pop("xv_tc")
    return got, prim, coord


@dataclass
class TessLanes:
    """The lanes of a tessellation run: captured vertex j is ``coord[j]`` of patch ``prim[j]``
    (set on the runner by :func:`verify_tess_eval`; :func:`run_lanes` reads it)."""

    patches: int
    vertices: int
    prim: np.ndarray
    coord: np.ndarray


def run_lanes(runner, glsl: str, reflection: dict, lanes: int, inputs, uniforms, buffers,
              textures=None, shadow=None):
    """``Runner.run`` of a TES on the lanes of the first run (``runner.tess_context``): the
    patches are drawn again with each patch's inputs (those of its lanes), and each captured
    vertex is found again by its patch and tess coordinate -- the order of a re-run, and of a
    probed translation's run, is the implementation's as much as the first one's was.  A lane
    whose vertex the re-run does not make is an error (the tessellator is deterministic for the
    same levels, GL 4.5 11.2.2 "invariance")."""
    from .capture import Capture
    ctx: TessLanes = runner.tess_context
    if lanes != len(ctx.prim):
        raise G.GLError(f"tessellation re-run with {lanes} lanes, the first run had {len(ctx.prim)}")
    _, first = np.unique(ctx.prim, return_index=True)
    per_patch = {name: np.asarray(v)[first] for name, v in inputs.items()
                 if np.asarray(v).shape[:1] == (lanes,)}
    got, prim, coord = run_tess_eval(runner, glsl, reflection, ctx.patches, ctx.vertices,
                                     per_patch, uniforms, buffers, textures, shadow,
                                     runner._direct)
    where: dict[tuple, int] = {}
    for j in range(len(prim) - 1, -1, -1):
        where[(int(prim[j]), coord[j].tobytes())] = j
    try:
        idx = np.array([where[(int(p), c.tobytes())] for p, c in zip(ctx.prim, ctx.coord)],
                       np.int64)
    except KeyError:
        raise G.GLError("the re-run's tessellator made other vertices than the first run's")
    return Capture(outputs={k: v[idx] for k, v in got.items()}, glsl=glsl)
