"""The GL harness of tessellation control programs (Mesa llvmpipe): lanes are invocations.

The translated TCS runs behind the geometry harness's pass-through vertex shader
(``capture.passthrough_vertex_shader``: patch ``p``'s vertex ``v`` is draw vertex ``p * V + v``)
and in front of an empty evaluation shader, with its own text extended at the end of ``main``
(after its epilogue) to store into a storage buffer, per invocation (lane ``p * N + i``):

* each per-vertex output as the invocation stored it (``x[gl_InvocationID]``,
  ``gl_out[gl_InvocationID].gl_Position``; ``gl_PointSize`` in x, the staged register's y..w);
* each per-patch output as this invocation's own register holds it (the staged ``out_*``
  value, what the executor's lane holds), and its written-components register
  (``out_tcs_written[j]``, pseudo-output ``xv_written<j>``, binding ``tcs.written[j]``);

and then, after ``barrier()``, invocation 0 stores each per-patch output as the patch's
invocations left it (``gl_TessLevelOuter[k]``, the ``patch out`` variable): the combination
:func:`xlate.verify.tess_verify.verify_tess_ctrl` checks against the invocations' own values.
So every lane's values are what the executor's lane computes, and the verifier's replay
(probes are per-vertex outputs, read the same way) explains differences as for any stage.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import glapi as G
from .gl_tess import (GL_PATCH_VERTICES, GL_PATCHES, GL_SHADER_STORAGE_BUFFER,
                      GL_TESS_CONTROL_SHADER, GL_TESS_EVALUATION_SHADER)

CONTROL_PATCHES = 16
RESULT_SSBO = 5
EMPTY_TES = ("#version 450 core\nlayout(isolines, point_mode) in;\nvoid main()\n{\n"
             "    gl_Position = vec4(0.0);\n}\n")
_PATCH_BUILTINS = {"result.tessouter": ("gl_TessLevelOuter", 4),
                   "result.tessinner": ("gl_TessLevelInner", 2)}


@dataclass
class TcsLanes:
    """The lanes of a control-program run (set on the runner by the verifier)."""

    patches: int
    vertices: int              # input patch size
    invocations: int           # TCS_VERTICES_OUT


def _storage(binding: str) -> str:
    from ..backends.interface import sanitize
    path, _, rest = binding.partition("[")
    return "out_" + sanitize(path) + (f"[{rest[:-1]}]" if rest else "")


def _bits(gtype: str, expr: str) -> str:
    return {"vec4": f"floatBitsToUint({expr})", "ivec4": f"uvec4({expr})", "uvec4": expr}[gtype]


def lane_outputs(reflection: dict, written: dict[str, int]) -> list[dict]:
    """The outputs compared per lane: the reflection's, per-patch ones as registers, and the
    written-components pseudo-outputs (reflection-like entries)."""
    out = []
    for o in reflection["outputs"]:
        o = dict(o)
        if o["name"] in ("gl_out[].gl_Position", "gl_out[].gl_PointSize", "gl_TessLevelOuter",
                         "gl_TessLevelInner"):
            o.update(builtin=False, type="vec4")     # all four words are compared
        out.append(o)
    for text, j in sorted(written.items(), key=lambda kv: kv[1]):
        out.append({"name": f"xv_written{j}", "binding": f"tcs.written[{j}]", "type": "ivec4",
                    "location": None, "builtin": False, "interpolation": None})
    return out


def instrument(glsl: str, outputs: list[dict], reflection: dict, invocations: int,
               lanes: int | None = None, *, binding: int = RESULT_SSBO) -> tuple[str, int, list]:
    """The TCS text with the harness's stores (module docstring): (text, words per lane,
    [(binding, expression)] of the per-patch combination).  ``lanes`` given: the lane count
    is a constant of the text instead of the ``xv_lanes`` uniform (OpenGL SPIR-V, where a
    loose uniform needs a location and the program's own take theirs; Vulkan GLSL, which has
    no loose uniforms).  The result buffer is at ``binding``."""
    lane, patch = [], []
    for o in outputs:
        name, b, t = o["name"], o["binding"], o["type"]
        if name == "gl_out[].gl_Position":
            e = "floatBitsToUint(gl_out[gl_InvocationID].gl_Position)"
        elif name == "gl_out[].gl_PointSize":
            e = (f"floatBitsToUint(vec4(gl_out[gl_InvocationID].gl_PointSize, "
                 f"{_storage(b)}.yzw))")
        elif b.startswith("tcs.written"):
            e = f"uvec4(out_tcs_written[{b[12:-1]}])"
        elif b in _PATCH_BUILTINS or b.startswith("result.patch"):
            e = _bits(t, _storage(b))
        else:
            e = _bits(t, f"{name}[gl_InvocationID]")
        lane.append(e)
    for o in reflection["outputs"]:
        b = o["binding"]
        if b in _PATCH_BUILTINS:
            builtin, n = _PATCH_BUILTINS[b]
            comps = ", ".join(f"{builtin}[{k}]" for k in range(n)) + ", 0.0" * (4 - n)
            patch.append((b, f"floatBitsToUint(vec4({comps}))"))
        elif b.startswith("result.patch"):
            patch.append((b, _bits(o["type"], o["name"])))
    k1, k2 = len(lane), max(len(patch), 1)
    stores = [f"    xv_out[xv_lane * {k1} + {k}] = {e};" for k, e in enumerate(lane)]
    stores += ["    barrier();", "    if (gl_InvocationID == 0) {"]
    stores += [f"        xv_out[xv_patch + {k}] = {e};" for k, (_, e) in enumerate(patch)]
    stores += ["    }"]
    head = (f"layout(std430, binding = {binding}) buffer XvOut {{ uvec4 xv_out[]; }};\n"
            + ("uniform int xv_lanes;" if lanes is None else f"const int xv_lanes = {lanes};"))
    lines = glsl.split("\n")
    at = 1
    while at < len(lines) and lines[at].startswith("#extension"):
        at += 1
    lines.insert(at, head)
    end = len(lines) - 1
    while lines[end].strip() != "}":
        end -= 1
    setup = [f"    int xv_lane = gl_PrimitiveID * {invocations} + gl_InvocationID;",
             f"    int xv_patch = xv_lanes * {k1} + gl_PrimitiveID * {k2};"]
    lines[end:end] = setup + stores
    return "\n".join(lines), k1, patch


def direct_stage(direct, reflection: dict, outputs: list[dict], patch: list, lanes: int,
                 binding: int = RESULT_SSBO) -> bytes:
    """The direct SPIR-V path's module (``direct``: :func:`direct_check.direct_module`'s
    maker) with :func:`instrument`'s stores made in SPIR-V (spirv_direct/tess.py
    ``tcs_harness``; the lane count a constant there), its result buffer at ``binding``."""
    from ..backends.spirv_direct import Instrumentation
    by_binding = {o["binding"]: o for o in reflection["outputs"]}
    return direct(Instrumentation(tcs_lanes=lanes, tcs_lane_outputs=outputs,
                                  tcs_patch_outputs=[by_binding[b] for b, _ in patch],
                                  tcs_result_binding=binding))


def run_tcs_lanes(runner, glsl: str, reflection: dict, lanes: int, inputs, uniforms, buffers,
                  textures=None, shadow=None):
    """``Runner.run`` of a TCS: a Capture of the per-lane outputs (:func:`lane_outputs`, by
    name), with ``patch``: binding -> (patches, 4) words of the per-patch combination."""
    from .capture import passthrough_vertex_shader
    ctx: TcsLanes = runner.tess_context
    P, V, N = ctx.patches, ctx.vertices, ctx.invocations
    if lanes != P * N:
        raise G.GLError(f"tessellation control run with {lanes} lanes, expected {P * N}")
    outputs = lane_outputs(reflection, runner.tess_written)
    src, k1, patch = instrument(glsl, outputs, reflection, N,
                                lanes if runner.backend == "gl-spirv" else None)
    if runner._direct is not None:
        src = direct_stage(runner._direct, reflection, outputs, patch, lanes)
    vs, attribs = passthrough_vertex_shader(glsl, reflection)
    gl = runner.gl
    runner._tex = (textures or {}, shadow or set())
    gl.use()
    try:
        prog = runner.program([(G.GL_VERTEX_SHADER, vs), (GL_TESS_CONTROL_SHADER, src),
                               (GL_TESS_EVALUATION_SHADER, EMPTY_TES)])
        runner._objects.append(("program", prog))
        runner._dummy_fbo()
        runner._vao()
        first = np.arange(P) * N                  # the first lane of each patch
        for loc, name, integer in attribs:
            words = np.asarray(inputs[name], np.uint32)[first]
            runner._attrib(loc, words.reshape(P * V, 4), integer)
        k2 = max(len(patch), 1)
        size = (lanes * k1 + P * k2) * 16
        out = runner._buffer(GL_SHADER_STORAGE_BUFFER, bytes(size))
        gl.BindBufferBase(GL_SHADER_STORAGE_BUFFER, RESULT_SSBO, out)
        runner._set_uniforms(prog, uniforms)
        loc = gl.GetUniformLocation(prog, b"xv_lanes")
        gl.ProgramUniform1i(prog, loc, lanes)
        runner._bind_by_name(prog, reflection)
        runner._set_buffers(buffers)
        runner._textures(*runner._tex)
        gl.UseProgram(prog)
        gl.PatchParameteri(GL_PATCH_VERTICES, V)
        gl.Enable(G.GL_RASTERIZER_DISCARD)
        gl.DrawArrays(GL_PATCHES, 0, P * V)
        gl.Disable(G.GL_RASTERIZER_DISCARD)
        gl.check("tessellation control draw")
        raw = np.frombuffer(runner._read_buffer(GL_SHADER_STORAGE_BUFFER, out, size), np.uint32)
    finally:
        runner._cleanup()
    return lanes_capture(raw, outputs, patch, src if isinstance(src, str) else glsl, lanes, P)


def lanes_capture(raw: np.ndarray, outputs: list[dict], patch: list, src: str, lanes: int,
                  patches: int):
    """The Capture of the result buffer's words ``raw`` (:func:`instrument`'s layout): per-lane
    outputs by name, ``patch``: binding -> (patches, 4) words of the per-patch combination;
    ``src``: the GLSL text that ran (the translation, where a SPIR-V module ran)."""
    from .capture import Capture
    k1, k2 = len(outputs), max(len(patch), 1)
    per_lane = raw[:lanes * k1 * 4].reshape(lanes, k1, 4)
    per_patch = raw[lanes * k1 * 4:lanes * k1 * 4 + patches * k2 * 4].reshape(patches, k2, 4)
    cap = Capture(outputs={o["name"]: per_lane[:, k].copy() for k, o in enumerate(outputs)},
                  glsl=src)
    cap.patch = {b: per_patch[:, k].copy() for k, (b, _) in enumerate(patch)}
    return cap
