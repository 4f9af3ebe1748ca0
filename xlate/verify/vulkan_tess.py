"""The tessellation harnesses on Vulkan (Mesa lavapipe): ``xlate verify --backend vulkan`` of
TESS_EVAL programs.  The harness is :mod:`gl_tess`'s, in a Vulkan pipeline: a vertex shader that
does nothing, the harness control shader (its two storage buffers at descriptor bindings
:data:`HARNESS_BINDINGS`, above every binding of the vulkan profile's translation), the
translated TES with its outputs and ``gl_PrimitiveID`` / ``gl_TessCoord`` captured by
``VK_EXT_transform_feedback`` (lavapipe exposes it, and it records the last pre-rasterization
stage, here the TES), ``patchControlPoints`` = V, rasterizer discard.  The number of vertices
written comes from the transform feedback counter buffer.  The captured vertices are matched
to the executor by patch and tess coordinate, never by order, by the callers in
:mod:`gl_tess` / :mod:`tess_verify` -- the same code for both APIs.

The program's own shader is glslang's compile of the edited GLSL or, where the verifier runs
the direct SPIR-V path's module (``direct``: :func:`direct_check.chosen_direct_module`), that
module with the same edits made in SPIR-V: the evaluation capture (``Instrumentation.capture``,
with ``xv_prim`` / ``xv_tc``) and the control harness's stores (``Instrumentation.tcs_lanes``,
at :data:`RESULT_BINDING`).
"""
from __future__ import annotations

import numpy as np

from .capture import add_capture
from .gl_tess import (ROOM_PER_PATCH, VERTEX_SHADER, captured_primitive, control_shader,
                      harness_words)
from .vulkan_device import VulkanError, _Run, one_run

#: descriptor bindings of the harness control shader's per-vertex and per-patch buffers (the
#: translation's own: 0 parameters, 1 + unit textures, 40 + b constant buffers, 64 + b storage
#: buffers, 96 + u images)
HARNESS_BINDINGS = (120, 121)


def run_tess_eval_vulkan(runner, glsl: str, reflection: dict, patches: int, V: int,
                         inputs: dict[str, np.ndarray], uniforms, buffers, textures=None,
                         shadow=None, direct=None):
    """:func:`gl_tess.run_tess_eval` on a :class:`vulkan.Runner`: (captured outputs by
    reflection name, patch of each captured vertex, its tess coordinate words (N, 4));
    ``direct``: the direct module maker whose module runs instead of glslang's."""
    if uniforms:
        raise VulkanError("loose uniforms (the glsl450 profile's) cannot be set on Vulkan: "
                          "emit the translation in the vulkan profile")
    with one_run(runner.dev) as r:
        got = _draw(runner, r, glsl, reflection, patches, V, inputs, buffers or {},
                    textures or {}, shadow or set(), direct)
    prim = got.pop("xv_prim")[:, 0].astype(np.int64)
    coord = got.pop("xv_tc")
    return got, prim, coord


def _draw(runner, r: _Run, glsl, reflection, patches, V, inputs, buffers, textures, shadow,
          direct):
    from .capture import program_stage, split_capture
    vk = r.vk
    tcs, per_vertex, per_patch = control_shader(reflection, V, HARNESS_BINDINGS)
    src, slots, strides = add_capture(glsl, reflection, "tess_evaluation")
    runner._resources(r, reflection, buffers, textures, shadow)
    vert, patch = harness_words(inputs, patches, V, per_vertex, per_patch)
    r.storage_buffer(HARNESS_BINDINGS[0], vert)
    r.storage_buffer(HARNESS_BINDINGS[1], patch)
    layout, ds = r.descriptors()
    shaders = [("vert", r.shader(VERTEX_SHADER, "vert")), ("tesc", r.shader(tcs, "tesc")),
               ("tese", r.shader(program_stage(direct, src, capture=slots, strides=strides),
                                 "tese"))]
    per = {"points": 1, "lines": 2, "triangles": 3}[captured_primitive(reflection["tessellation"])]
    capacity = patches * ROOM_PER_PATCH * per
    raw, count = runner._capture(r, strides, shaders, [], [], vk.VK_PRIMITIVE_TOPOLOGY_PATCH_LIST,
                                 patches * V, capacity, layout, ds, patch_vertices=V)
    return split_capture(raw, slots, count)


# ---- tessellation control programs ------------------------------------------------------------

#: descriptor binding of the control harness's result buffer (gl_tcs.instrument)
RESULT_BINDING = 122


def run_tcs_lanes_vulkan(runner, glsl: str, reflection: dict, lanes: int, inputs, buffers,
                         textures=None, shadow=None):
    """:func:`gl_tcs.run_tcs_lanes` on a :class:`vulkan.Runner`: the translated TCS behind
    the pass-through vertex shader and in front of an empty evaluation shader, its per-lane
    and per-patch stores (:func:`gl_tcs.instrument`) read back from a storage buffer."""
    from .gl_tcs import TcsLanes, lane_outputs
    ctx: TcsLanes = runner.tess_context
    P, V, N = ctx.patches, ctx.vertices, ctx.invocations
    if lanes != P * N:
        raise VulkanError(f"tessellation control run with {lanes} lanes, expected {P * N}")
    outputs = lane_outputs(reflection, runner.tess_written)
    with one_run(runner.dev) as r:
        return _control_draw(runner, r, glsl, reflection, outputs, lanes, P, V, N, inputs,
                             buffers or {}, textures or {}, shadow or set())


def _control_draw(runner, r: _Run, glsl, reflection, outputs, lanes, P, V, N, inputs, buffers,
                  textures, shadow):
    from .capture import _IN_DECL, passthrough_vertex_shader
    from .gl_tcs import EMPTY_TES, direct_stage, instrument, lanes_capture
    vk = r.vk
    src, k1, patch = instrument(glsl, outputs, reflection, N, binding=RESULT_BINDING,
                                lanes=lanes)
    shader = src if runner._direct is None else \
        direct_stage(runner._direct, reflection, outputs, patch, lanes, RESULT_BINDING)
    vs_text, attribs = passthrough_vertex_shader(glsl, reflection)
    types = {m.group(4): m.group(3) for m in _IN_DECL.finditer(glsl)}
    runner._resources(r, reflection, buffers, textures, shadow)
    size_words = (lanes * k1 + P * max(len(patch), 1)) * 4
    result = r.storage_buffer(RESULT_BINDING, np.zeros(size_words, np.uint32))
    layout, ds = r.descriptors()
    shaders = [("vert", r.shader(vs_text, "vert")), ("tesc", r.shader(shader, "tesc")),
               ("tese", r.shader(EMPTY_TES, "tese"))]
    first = np.arange(P) * N                  # the first lane of each patch
    fmts, vbufs = [], []
    for loc, name, integer in attribs:
        fmts.append((loc, runner._attrib_format(integer, types.get(name, "vec4"))))
        words = np.asarray(inputs[name], np.uint32)[first].reshape(P * V, 4)
        vbufs.append(runner._attrib_buffer(r, words))
    rp, fb, _ = r.render_pass([], (1, 1))
    pipe = r.pipeline(shaders, layout, rp, 0, vk.VK_PRIMITIVE_TOPOLOGY_PATCH_LIST, fmts, (1, 1),
                      discard=True, patch_vertices=V)
    cb = r.begin_draw(rp, fb, (1, 1), pipe, layout, ds, vbufs)
    vk.vkCmdDraw(cb, P * V, 1, 0, 0)
    vk.vkCmdEndRenderPass(cb)
    vk.vkCmdPipelineBarrier(
        cb, vk.VK_PIPELINE_STAGE_TESSELLATION_CONTROL_SHADER_BIT, vk.VK_PIPELINE_STAGE_HOST_BIT,
        0, 1, [vk.VkMemoryBarrier(sType=vk.VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                                  srcAccessMask=vk.VK_ACCESS_SHADER_WRITE_BIT,
                                  dstAccessMask=vk.VK_ACCESS_HOST_READ_BIT)], 0, None, 0, None)
    r.submit()
    raw = np.frombuffer(result, np.uint32, size_words).copy()
    return lanes_capture(raw, outputs, patch, src, lanes, P)
