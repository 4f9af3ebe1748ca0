"""Run a translated shader on Vulkan (Mesa lavapipe) and capture every output: ``--backend vulkan``.

The translation is emitted in the ``vulkan`` profile (``set``/``binding`` layouts, parameters in
the ``XlateParameters`` uniform block; :attr:`Runner.profile` tells :mod:`core` and :mod:`trace`
which profile to emit), the harness edits its interface exactly as for the GL backends
(:mod:`gl`: ``add_capture``, ``fragment_inputs``, ``fragment_outputs``, the geometry pass-through
vertex shader), glslang compiles the result for Vulkan 1.0
(``xlate.backends.spirv.compile_glsl(..., target="vulkan")``) and the module runs on lavapipe
through the ``vulkan`` PyPI package (cffi).  The :class:`~capture.Capture` is the same as the GL
runners', so comparison, localization and the per-pass search work unchanged.

How each stage runs (Vulkan 1.0 render passes, one command buffer per run):

* vertex: one point per lane (``gl_VertexIndex`` = lane), rasterizer discard, the outputs'
  ``xfb_buffer``/``xfb_offset`` qualifiers captured with ``VK_EXT_transform_feedback``;
* geometry: the pass-through vertex shader feeds one input primitive per lane
  (``gl_PrimitiveIDIn`` = lane), the emitted vertices are captured the same way; the number
  of vertices written comes from the transform feedback counter buffer.  Triangle strips are
  recorded with the provoking-vertex mode LAST (``VK_EXT_provoking_vertex``): Vulkan's default
  (first) mode orders odd triangles of a strip (i, i+2, i+1), the last mode (i+1, i, i+2), which
  is the order :func:`capture.strip_primitives` models (the Vulkan specification's "Triangle
  Strips" topology and ``VK_EXT_provoking_vertex``; measured on lavapipe by
  tests/test_verify_vulkan.py);
* fragment: one fullscreen triangle at depth 0.5 into RGBA32F/RGBA32I/RGBA32UI colour
  attachments, inputs fed by ``texelFetch`` from per-pixel images at descriptor bindings 127,
  126, ... (the program's own use 0, 1 + texture unit and 40 + buffer), the same 2x2 quad
  layout as GL.  Vulkan's framebuffer y axis points down where GL's points up, but both the
  input images and the read-back use framebuffer row ``y`` = ``gl_FragCoord.y - 0.5`` and
  derivatives are taken along the same rows, so every lane sees the same values and
  neighbours as on GL.  The triangle is front-facing (``gl_FrontFacing`` true).

* tessellation evaluation / control: :mod:`vulkan_tess` (the harnesses of :mod:`gl_tess` and
  :mod:`gl_tcs` in a pipeline with tessellation stages);
* compute: :mod:`vulkan_compute`, through :meth:`Runner.run` with stage ``compute``
  (:func:`gl_compute.run_job`: a dispatch of a :class:`gl_compute.ComputeJob`, whose capture
  is the memory after it -- :func:`compute_verify.verify_compute` gives the verdict).

Textures: each :class:`xlate.exec.Texture` becomes an optimally tiled image (a uniform texel
buffer for BUFFER) with a sampler reproducing ``Texture.gl_state``: non-mipmapped minification
filters sample the base level through ``maxLod = 0.25`` (the Vulkan spec's recipe for GL's
NEAREST/LINEAR), ``CLAMP_TO_BORDER`` uses ``VK_EXT_custom_border_color``, SHADOW units are
D32_SFLOAT images with comparison.  Rectangle textures are ordinary 2D images: the vulkan
profile normalizes their coordinates.  Cube maps always filter seamlessly in Vulkan.

Errors (:mod:`xlate.verify.vulkan_device`): :class:`VulkanUnavailable` (a
:class:`glapi.GLUnavailable`: the CLI prints it and exits 3) when the ``vulkan`` package, the
loader (``libvulkan.so.1``), a driver (ICD) or a device with transform feedback and geometry
shaders is missing; :class:`VulkanError` (a
:class:`glapi.GLError`) when glslang rejects the instrumented shader or a Vulkan call fails.

Device choice: a CPU device (lavapipe) first, else the first device with what the harness
needs.  ``MESA_SHADER_CACHE_DIR`` applies to lavapipe too.
"""
from __future__ import annotations

import numpy as np

from .capture import (INPUT_VERTICES, program_stage, Capture, _IN_DECL, add_capture,
                      completes_primitives, emits_vertices, fragment_capture, fragment_inputs,
                      fragment_outputs, group_primitives, make_precise, passthrough_vertex_shader,
                      plane_varyings, quad_layout, split_capture, texel_arrays)
from .planes import vertex_shader as plane_vertex_shader
from .vulkan_fetch import framebuffer_inputs, load_attachment
from .vulkan_device import (FRAGMENT_DEPTH, INPUT_BINDING_BASE, VulkanError, _GTYPE_KIND, _Run,
                            _formats, device, one_run)


# ---- the runner --------------------------------------------------------------------------------

class Runner:
    """One Vulkan device, backend ``vulkan``: the interface :mod:`core` and :mod:`trace` use
    (``run``, ``describe``, ``backend``, ``precise``, ``profile``), as :class:`gl.Runner`."""

    profile = "vulkan"
    #: the order in which captured triangle strips are expected: "gl" (odd triangle i is
    #: (i+1, i, i+2), provoking-vertex mode LAST) or "first" (Vulkan's default mode: (i, i+2,
    #: i+1); tests only -- the executor's strips are compared in the GL order)
    strip_order = "gl"

    def __init__(self, backend: str = "vulkan", *, precise: bool = False):
        if backend != "vulkan":
            raise ValueError(f"backend {backend!r} is not Vulkan")
        self.backend = backend
        self.precise = precise
        self.dev = device()
        vk = self.dev.vk
        self.formats = _formats(vk)

    def describe(self) -> str:
        return f"vulkan on {self.dev.describe()}"

    def run(self, stage: str, glsl: str, reflection: dict, lanes: int, *,
            inputs: dict[str, np.ndarray], uniforms: list[tuple[int, np.ndarray]],
            buffers: dict[int, np.ndarray] | None = None, textures: dict | None = None,
            shadow: set[int] | None = None, direct=None, planes: dict | None = None,
            compute=None) -> Capture:
        """As :meth:`gl.Runner.run`, for a translation in the ``vulkan`` profile: ``buffers``
        are the uniform blocks by descriptor binding (the parameter block at 0, program
        buffers at 40 + b); ``uniforms`` (loose uniforms, which Vulkan GLSL has not) must be
        empty; ``textures`` go to the bindings the reflection gives their units."""
        if stage == "compute":          # a dispatch (gl_compute.ComputeJob), as on GL
            from .gl_compute import run_job
            return run_job(self, glsl, reflection, compute, uniforms, buffers or {}, textures,
                           shadow)
        if uniforms:
            raise VulkanError("loose uniforms (the glsl450 profile's) cannot be set on Vulkan: "
                              "emit the translation in the vulkan profile")
        if self.precise:
            glsl = make_precise(glsl)
        self._direct = direct
        self._planes = planes or {}
        if stage == "tess_evaluation":
            # lanes: the vertices of a first run (gl_tess.run_lanes draws and matches them;
            # each draw is vulkan_tess's and takes the device lock itself)
            from .gl_tess import run_lanes
            return run_lanes(self, glsl, reflection, lanes, inputs, uniforms, buffers or {},
                             textures, shadow)
        if stage == "tess_control":
            # lanes: the patches' invocations (vulkan_tess: gl_tcs's harness on Vulkan)
            from .vulkan_tess import run_tcs_lanes_vulkan
            return run_tcs_lanes_vulkan(self, glsl, reflection, lanes, inputs, buffers or {},
                                        textures, shadow)
        if stage not in ("vertex", "fragment", "geometry"):
            raise ValueError(stage)
        with one_run(self.dev) as r:
            return getattr(self, "_" + stage)(r, glsl, reflection, lanes, inputs, buffers or {},
                                              textures or {}, shadow or set())

    _direct = None
    _planes: dict = {}

    def draw_tess_eval(self, glsl: str, reflection: dict, patches: int, V: int, inputs,
                       uniforms, buffers, textures=None, shadow=None, direct=None):
        """One draw of the tessellation evaluation harness (:func:`gl_tess.run_tess_eval`
        calls it: the matching of its vertices is gl_tess's for both APIs)."""
        from .vulkan_tess import run_tess_eval_vulkan
        return run_tess_eval_vulkan(self, glsl, reflection, patches, V, inputs, uniforms,
                                    buffers, textures, shadow, direct)

    # ---- shared -----------------------------------------------------------------------------
    def _resources(self, r: _Run, reflection: dict, buffers, textures, shadow) -> None:
        for binding, words in sorted(buffers.items()):
            r.uniform_buffer(binding, words)
        binding_of = {t["unit"]: t["binding"] for t in reflection.get("textures", [])}
        for t in reflection.get("textures", []):
            if t["unit"] not in textures:
                raise VulkanError(f"no texture data for texture unit {t['unit']}")
        for unit, tex in sorted(textures.items()):
            if unit not in binding_of:
                continue                    # not sampled by this shader
            sh = unit in shadow
            levels, kind = texel_arrays(tex.levels, sh)
            r.texture(binding_of[unit], str(tex.target).upper(), levels, kind, tex.gl_state(sh))

    def _attrib_buffer(self, r: _Run, words: np.ndarray):
        vk = r.vk
        data = np.ascontiguousarray(words, np.uint32).reshape(-1, 4).tobytes()
        buf, _ = r.buffer(vk.VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, data)
        return buf

    def _capture(self, r: _Run, strides: list[int], shaders, attribs, vertex_words,
                 topology: int, draw: int, capacity: int, layout, ds, provoking_last=False,
                 patch_vertices: int = 0):
        """Draw ``draw`` vertices with transform feedback into ``len(strides)`` buffers of
        ``capacity`` vertices; ``attribs``: (location, format) of the vertex attributes, whose
        words are ``vertex_words``.  Returns the raw words per buffer, (capacity, stride / 4)
        each, and the number of vertices written."""
        vk = r.vk
        dev = self.dev
        rp, fb, _ = r.render_pass([], (1, 1))
        pipe = r.pipeline(shaders, layout, rp, 0, topology, attribs, (1, 1), discard=True,
                          provoking_last=provoking_last, patch_vertices=patch_vertices)
        vbufs = [self._attrib_buffer(r, w) for w in vertex_words]
        outs = [r.buffer(vk.VK_BUFFER_USAGE_TRANSFORM_FEEDBACK_BUFFER_BIT_EXT,
                         size=capacity * st) for st in strides]
        counter_usage = vk.VK_BUFFER_USAGE_TRANSFORM_FEEDBACK_COUNTER_BUFFER_BIT_EXT
        counter, counter_map = r.buffer(counter_usage, size=16)
        cb = r.begin_draw(rp, fb, (1, 1), pipe, layout, ds, vbufs)
        n = len(outs)
        dev.bind_xfb(cb, 0, n, [b for b, _ in outs], [0] * n,
                     [capacity * st for st in strides])
        dev.begin_xfb(cb, 0, 0, None, None)
        vk.vkCmdDraw(cb, draw, 1, 0, 0)
        # the counter of buffer 0 receives the bytes written to it
        dev.end_xfb(cb, 0, 1, [counter], [0])
        vk.vkCmdEndRenderPass(cb)
        vk.vkCmdPipelineBarrier(
            cb, vk.VK_PIPELINE_STAGE_TRANSFORM_FEEDBACK_BIT_EXT, vk.VK_PIPELINE_STAGE_HOST_BIT,
            0, 1, [vk.VkMemoryBarrier(
                sType=vk.VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                srcAccessMask=vk.VK_ACCESS_TRANSFORM_FEEDBACK_WRITE_BIT_EXT
                | vk.VK_ACCESS_TRANSFORM_FEEDBACK_COUNTER_WRITE_BIT_EXT,
                dstAccessMask=vk.VK_ACCESS_HOST_READ_BIT)], 0, None, 0, None)
        r.submit()
        written = int(np.frombuffer(counter_map, np.uint32, 1)[0]) // strides[0]
        written = min(written, capacity)
        raw = [np.frombuffer(m, np.uint32).reshape(-1)[:capacity * st // 4]
               .reshape(capacity, st // 4).copy() for (_, m), st in zip(outs, strides)]
        return raw, written

    def _attrib_format(self, integer: bool, gtype: str = "ivec4") -> int:
        return self.formats["u" if gtype == "uvec4" else "i"] if integer else self.formats["f"]

    # ---- stages ------------------------------------------------------------------------------
    def _vertex(self, r: _Run, glsl, reflection, lanes, inputs, buffers, textures, shadow):
        vk = r.vk
        src, slots, strides = add_capture(glsl, reflection, "vertex")
        if not slots:                  # no outputs: nothing to capture (and no TF possible)
            return Capture(glsl=src)
        self._resources(r, reflection, buffers, textures, shadow)
        layout, ds = r.descriptors()
        vs = r.shader(program_stage(self._direct, src, capture=slots, strides=strides), "vert")
        attribs, words = [], []
        for inp in reflection["inputs"]:
            if inp["builtin"]:
                continue
            attribs.append((inp["location"], self._attrib_format(inp["type"] != "vec4",
                                                                 inp["type"])))
            words.append(inputs[inp["name"]])
        raw, _ = self._capture(r, strides, [("vert", vs)], attribs, words,
                               vk.VK_PRIMITIVE_TOPOLOGY_POINT_LIST, lanes, lanes, layout, ds)
        return Capture(outputs=split_capture(raw, slots, lanes), glsl=src)

    def _geometry(self, r: _Run, glsl, reflection, lanes, inputs, buffers, textures, shadow):
        from .gl import PRIM_OUT
        vk = r.vk
        geo = reflection["geometry"]
        nv = INPUT_VERTICES[geo["input_primitive"]]
        if not emits_vertices(glsl) or not completes_primitives(geo):
            # nothing to capture (capture.completes_primitives)
            return Capture(primitives=[[] for _ in range(lanes)], glsl=glsl)
        src, slots, strides = add_capture(glsl, reflection, "geometry")
        vs_text, attribs = passthrough_vertex_shader(glsl, reflection)
        types = {m.group(4): m.group(3) for m in _IN_DECL.finditer(glsl)}
        self._resources(r, reflection, buffers, textures, shadow)
        layout, ds = r.descriptors()
        vs = r.shader(vs_text, "vert")
        gs = r.shader(program_stage(self._direct, src, capture=slots, strides=strides,
                                    geometry=geo), "geom")
        fmts, words = [], []
        for loc, name, integer in attribs:
            fmts.append((loc, self._attrib_format(integer, types.get(name, "vec4"))))
            words.append(np.asarray(inputs[name], np.uint32).reshape(lanes * nv, 4))
        topology = {"POINTS": vk.VK_PRIMITIVE_TOPOLOGY_POINT_LIST,
                    "LINES": vk.VK_PRIMITIVE_TOPOLOGY_LINE_LIST,
                    "LINES_ADJACENCY": vk.VK_PRIMITIVE_TOPOLOGY_LINE_LIST_WITH_ADJACENCY,
                    "TRIANGLES": vk.VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
                    "TRIANGLES_ADJACENCY": vk.VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST_WITH_ADJACENCY,
                    }[geo["input_primitive"]]
        _, per = PRIM_OUT[geo["output_primitive"]]
        capacity = lanes * max(geo["max_vertices"], 1) * per
        last = self.strip_order == "gl"
        if last and geo["output_primitive"] == "TRIANGLE_STRIP" and not self.dev.provoking_last:
            raise VulkanError(f"{self.dev.name} lacks VK_EXT_provoking_vertex with "
                              "transformFeedbackPreservesProvokingVertex: its transform feedback "
                              "orders odd triangles of a strip (i, i+2, i+1), not as GL does")
        raw, count = self._capture(r, strides, [("vert", vs), ("geom", gs)], fmts, words,
                                   topology, lanes * nv, capacity, layout, ds,
                                   provoking_last=last and self.dev.provoking_last)
        written = count // per
        got = split_capture(raw, slots, written * per)
        return Capture(primitives=group_primitives(got, slots, written, per, lanes), glsl=src)

    def _fragment(self, r: _Run, glsl, reflection, lanes, inputs, buffers, textures, shadow):
        vk = r.vk
        src, feeds = fragment_inputs(glsl, base=INPUT_BINDING_BASE, layout="set = 0, binding = {}",
                                     keep=self._planes)
        src, outs, extra = fragment_outputs(src, reflection)
        x, y, W, H = quad_layout(lanes)
        vs_text = plane_vertex_shader("#version 450", "gl_VertexIndex",
                                      plane_varyings(src, self._planes), W, H,
                                      repr(FRAGMENT_DEPTH))
        used = {b for b in buffers} | {t["binding"] for t in reflection.get("textures", [])}
        if feeds and min(unit for _, _, unit in feeds) <= max(used, default=-1):
            raise VulkanError("too many fragment inputs for the harness's descriptor bindings")
        self._resources(r, reflection, buffers, textures, shadow)
        for name, gtype, binding in feeds:
            words = np.asarray(inputs[name], np.uint32).reshape(lanes, 4)
            img = np.zeros((H, W, 4), np.uint32)
            img[y, x] = words
            kind = _GTYPE_KIND[gtype]
            img = img.view({"f": np.float32, "i": np.int32, "u": np.uint32}[kind])
            r.texture(binding, "2D", [img], kind, None)
        targets = list(outs) + [("xv_extra", "vec4", extra)]
        formats: list[int | None] = [None] * (max(loc for _, _, loc in targets) + 1)
        images, views = {}, []
        color = vk.VK_IMAGE_ASPECT_COLOR_BIT
        # TGSI FBFETCH: the subpass inputs' attachments start with the generated values
        fetched = framebuffer_inputs(reflection, inputs, lanes)
        for name, gtype, loc in targets:
            fmt = self.formats[_GTYPE_KIND[gtype]]
            formats[loc] = fmt
            usage = vk.VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | vk.VK_IMAGE_USAGE_TRANSFER_SRC_BIT
            if loc in fetched:
                usage |= vk.VK_IMAGE_USAGE_TRANSFER_DST_BIT | vk.VK_IMAGE_USAGE_INPUT_ATTACHMENT_BIT
            img = r.image(fmt, vk.VK_IMAGE_TYPE_2D, (W, H, 1), 1, 1, usage)
            images[name] = (img, loc)
        if set(fetched) - {loc for _, _, loc in targets}:
            raise VulkanError("FBFETCH of a colour output the program does not write")
        # framebuffer attachments in location order (the render pass numbers them so)
        view_of = {}
        for loc, fmt in enumerate(formats):
            if fmt is None:
                continue
            img = next(i for i, lc in images.values() if lc == loc)
            view_of[loc] = r.view(img, vk.VK_IMAGE_VIEW_TYPE_2D, fmt, color, 0, 1, 1)
            views.append(view_of[loc])
        for loc, (binding, words) in sorted(fetched.items()):
            img = next(i for i, lc in images.values() if lc == loc)
            texels = np.zeros((H, W, 4), np.uint32)
            texels[y, x] = words
            load_attachment(r, img, texels, binding, view_of[loc])
        layout, ds = r.descriptors()
        vs = r.shader(vs_text, "vert")
        fs = r.shader(program_stage(self._direct, src, feeds=feeds, extra=extra, glsl=glsl), "frag")
        rp, fb, n_colour = r.render_pass(formats, (W, H), views, loaded=set(fetched))
        pipe = r.pipeline([("vert", vs), ("frag", fs)], layout, rp, n_colour,
                          vk.VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, [], (W, H), discard=False)
        clears = [vk.VkClearValue(color=vk.VkClearColorValue(uint32=[0, 0, 0, 0]))
                  for _ in views]
        cb = r.begin_draw(rp, fb, (W, H), pipe, layout, ds, clears=clears)
        vk.vkCmdDraw(cb, 3, 1, 0, 0)
        vk.vkCmdEndRenderPass(cb)
        reads = {}
        for name, (img, _) in images.items():
            buf, mapped = r.buffer(vk.VK_BUFFER_USAGE_TRANSFER_DST_BIT, size=W * H * 16)
            vk.vkCmdCopyImageToBuffer(cb, img, vk.VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, buf, 1, [
                vk.VkBufferImageCopy(
                    bufferOffset=0, bufferRowLength=0, bufferImageHeight=0,
                    imageSubresource=vk.VkImageSubresourceLayers(
                        aspectMask=color, mipLevel=0, baseArrayLayer=0, layerCount=1),
                    imageOffset=vk.VkOffset3D(x=0, y=0, z=0),
                    imageExtent=vk.VkExtent3D(width=W, height=H, depth=1))])
            reads[name] = mapped
        vk.vkCmdPipelineBarrier(cb, vk.VK_PIPELINE_STAGE_TRANSFER_BIT,
                                vk.VK_PIPELINE_STAGE_HOST_BIT, 0, 1, [vk.VkMemoryBarrier(
                                    sType=vk.VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                                    srcAccessMask=vk.VK_ACCESS_TRANSFER_WRITE_BIT,
                                    dstAccessMask=vk.VK_ACCESS_HOST_READ_BIT)], 0, None, 0, None)
        r.submit()
        got = {name: np.frombuffer(m, np.uint32)[:W * H * 4].reshape(H, W, 4).copy()
               for name, m in reads.items()}
        return fragment_capture(got, x, y, reflection, src)
