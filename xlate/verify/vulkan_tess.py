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

The translation runs as glslang compiles its GLSL (the direct SPIR-V path does not write the
capture's transform feedback decorations for tessellation stages).
"""
from __future__ import annotations

import numpy as np

from .capture import add_capture
from .gl_tess import (ROOM_PER_PATCH, VERTEX_SHADER, captured_primitive, control_shader,
                      harness_words)
from .vulkan_device import _LOCK, VulkanError, _Run

#: descriptor bindings of the harness control shader's per-vertex and per-patch buffers (the
#: translation's own: 0 parameters, 1 + unit textures, 40 + b constant buffers, 64 + b storage
#: buffers, 96 + u images)
HARNESS_BINDINGS = (120, 121)


def run_tess_eval_vulkan(runner, glsl: str, reflection: dict, patches: int, V: int,
                         inputs: dict[str, np.ndarray], uniforms, buffers, textures=None,
                         shadow=None):
    """:func:`gl_tess.run_tess_eval` on a :class:`vulkan.Runner`: (captured outputs by
    reflection name, patch of each captured vertex, its tess coordinate words (N, 4))."""
    if uniforms:
        raise VulkanError("loose uniforms (the glsl450 profile's) cannot be set on Vulkan: "
                          "emit the translation in the vulkan profile")
    vk = runner.dev.vk
    with _LOCK:
        r = None
        try:
            r = _Run(runner.dev)
            got = _draw(runner, r, glsl, reflection, patches, V, inputs, buffers or {},
                        textures or {}, shadow or set())
        except (vk.VkError, vk.VkException) as e:
            raise VulkanError(f"Vulkan call failed: {type(e).__name__}") from None
        finally:
            if r is not None:
                r.close()
    prim = got.pop("xv_prim")[:, 0].astype(np.int64)
    coord = got.pop("xv_tc")
    return got, prim, coord


def _draw(runner, r: _Run, glsl, reflection, patches, V, inputs, buffers, textures, shadow):
    from .capture import split_capture
    vk = r.vk
    tcs, per_vertex, per_patch = control_shader(reflection, V, HARNESS_BINDINGS)
    src, slots, strides = add_capture(glsl, reflection, "tess_evaluation")
    runner._resources(r, reflection, buffers, textures, shadow)
    vert, patch = harness_words(inputs, patches, V, per_vertex, per_patch)
    r.storage_buffer(HARNESS_BINDINGS[0], vert)
    r.storage_buffer(HARNESS_BINDINGS[1], patch)
    layout, ds = r.descriptors()
    shaders = [("vert", r.shader(VERTEX_SHADER, "vert")), ("tesc", r.shader(tcs, "tesc")),
               ("tese", r.shader(src, "tese"))]
    per = {"points": 1, "lines": 2, "triangles": 3}[captured_primitive(reflection["tessellation"])]
    capacity = patches * ROOM_PER_PATCH * per
    raw, count = runner._capture(r, strides, shaders, [], [], vk.VK_PRIMITIVE_TOPOLOGY_PATCH_LIST,
                                 patches * V, capacity, layout, ds, patch_vertices=V)
    return split_capture(raw, slots, count)
