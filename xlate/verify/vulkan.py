"""Run a translated shader on Vulkan (Mesa lavapipe) and capture every output: ``--backend vulkan``.

The translation is emitted in the ``vulkan`` profile (``set``/``binding`` layouts, parameters in
the ``XlateParameters`` uniform block; :attr:`Runner.profile` tells :mod:`core` and :mod:`trace`
which profile to emit), the harness edits its interface exactly as for the GL backends
(:mod:`gl`: ``add_capture``, ``fragment_inputs``, ``fragment_outputs``, the geometry pass-through
vertex shader), glslang compiles the result for Vulkan 1.0
(``xlate.backends.spirv.compile_glsl(..., target="vulkan")``) and the module runs on lavapipe
through the ``vulkan`` PyPI package (cffi).  The :class:`~gl.Capture` is the same as the GL
runners', so comparison, localization and the per-pass search work unchanged.

How each stage runs (Vulkan 1.0 render passes, one command buffer per run):

* vertex: one point per lane (``gl_VertexIndex`` = lane), rasterizer discard, the outputs'
  ``xfb_buffer``/``xfb_offset`` qualifiers captured with ``VK_EXT_transform_feedback``;
* geometry: the pass-through vertex shader feeds one input primitive per lane
  (``gl_PrimitiveIDIn`` = lane), the emitted vertices are captured the same way; the number
  of vertices written comes from the transform feedback counter buffer.  Triangle strips are
  recorded with the provoking-vertex mode LAST (``VK_EXT_provoking_vertex``): Vulkan's default
  (first) mode orders odd triangles of a strip (i, i+2, i+1), the last mode (i+1, i, i+2), which
  is the order :func:`gl.strip_primitives` models (the Vulkan specification's "Triangle
  Strips" topology and ``VK_EXT_provoking_vertex``; measured on lavapipe by
  tests/test_verify_vulkan.py);
* fragment: one fullscreen triangle at depth 0.5 into RGBA32F/RGBA32I/RGBA32UI colour
  attachments, inputs fed by ``texelFetch`` from per-pixel images at descriptor bindings 127,
  126, ... (the program's own use 0, 1 + texture unit and 40 + buffer), the same 2x2 quad
  layout as GL.  Vulkan's framebuffer y axis points down where GL's points up, but both the
  input images and the read-back use framebuffer row ``y`` = ``gl_FragCoord.y - 0.5`` and
  derivatives are taken along the same rows, so every lane sees the same values and
  neighbours as on GL.  The triangle is front-facing (``gl_FrontFacing`` true).

Textures: each :class:`xlate.exec.Texture` becomes an optimally tiled image (a uniform texel
buffer for BUFFER) with a sampler reproducing ``Texture.gl_state``: non-mipmapped minification
filters sample the base level through ``maxLod = 0.25`` (the Vulkan spec's recipe for GL's
NEAREST/LINEAR), ``CLAMP_TO_BORDER`` uses ``VK_EXT_custom_border_color``, SHADOW units are
D32_SFLOAT images with comparison.  Rectangle textures are ordinary 2D images: the vulkan
profile normalizes their coordinates.  Cube maps always filter seamlessly in Vulkan.

Errors: :class:`VulkanUnavailable` (a :class:`glapi.GLUnavailable`: the CLI prints it and exits
3) when the ``vulkan`` package, the loader (``libvulkan.so.1``), a driver (ICD) or a device with
transform feedback and geometry shaders is missing; :class:`VulkanError` (a
:class:`glapi.GLError`) when glslang rejects the instrumented shader or a Vulkan call fails.

Device choice: a CPU device (lavapipe) first, else the first device with what the harness
needs.  ``MESA_SHADER_CACHE_DIR`` applies to lavapipe too.
"""
from __future__ import annotations

import threading

import numpy as np

from .gl import (INPUT_VERTICES, program_stage, Capture, _IN_DECL, add_capture, completes_primitives,
                 emits_vertices, fragment_capture, fragment_inputs, fragment_outputs,
                 group_primitives,
                 make_precise, passthrough_vertex_shader, quad_layout, split_capture,
                 texel_arrays)
from .glapi import GLError, GLUnavailable

INPUT_BINDING_BASE = 127        # harness input images take bindings 127, 126, ... downwards
FRAGMENT_DEPTH = 0.5            # gl_FragCoord.z, as GL's default depth range gives for z = 0

REQUIRED_EXTENSIONS = ("VK_EXT_transform_feedback",)
OPTIONAL_EXTENSIONS = ("VK_EXT_custom_border_color", "VK_EXT_provoking_vertex",
                       "VK_KHR_sampler_mirror_clamp_to_edge")


class VulkanUnavailable(GLUnavailable):
    """No usable Vulkan implementation (package, loader, driver or device features missing).
    A :class:`GLUnavailable`, so every caller of the GL runners handles it the same way."""


class VulkanError(GLError):
    """A Vulkan call failed, or glslang rejected the instrumented shader."""


def _import_vulkan():
    """The ``vulkan`` module, imported on first use (it loads ``libvulkan.so.1`` at import)."""
    try:
        import vulkan
    except ImportError as e:
        raise VulkanUnavailable(f"the Python package 'vulkan' is not installed ({e}); install "
                                "it with: python3 -m pip install 'xlate[vulkan]'") \
            from None
    except OSError:
        raise VulkanUnavailable("the Vulkan loader libvulkan.so.1 is not installed (Debian/"
                                "Ubuntu: apt-get install libvulkan1 mesa-vulkan-drivers)") \
            from None
    return vulkan


# ---- the device (one per process) -------------------------------------------------------------

class _Device:
    """Instance, physical device, logical device, queue, command pool and the extension entry
    points.  Created once per process (:func:`device`)."""

    def __init__(self):
        vk = self.vk = _import_vulkan()
        app = vk.VkApplicationInfo(sType=vk.VK_STRUCTURE_TYPE_APPLICATION_INFO,
                                   pApplicationName="xlate verify", applicationVersion=1,
                                   pEngineName="xlate", engineVersion=1,
                                   apiVersion=vk.VK_MAKE_VERSION(1, 1, 0))
        try:
            self.instance = vk.vkCreateInstance(vk.VkInstanceCreateInfo(
                sType=vk.VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, pApplicationInfo=app), None)
        except vk.VkError as e:
            raise VulkanUnavailable(
                f"vkCreateInstance failed ({type(e).__name__}): no Vulkan driver (ICD) found; "
                "install mesa-vulkan-drivers for lavapipe") from None
        try:
            devices = list(vk.vkEnumeratePhysicalDevices(self.instance))
        except vk.VkError as e:
            devices = []
            why = f" ({type(e).__name__})"
        else:
            why = ""
        if not devices:
            raise VulkanUnavailable(f"no Vulkan device{why}: install mesa-vulkan-drivers "
                                    "for lavapipe")
        reasons = []
        candidates = sorted(devices, key=lambda d: vk.vkGetPhysicalDeviceProperties(d).deviceType
                            != vk.VK_PHYSICAL_DEVICE_TYPE_CPU)
        for pd in candidates:
            why = self._unsuitable(pd)
            if why is None:
                break
            reasons.append(why)
        else:
            raise VulkanUnavailable("no usable Vulkan device: " + "; ".join(reasons))
        self.pd = pd
        props = vk.vkGetPhysicalDeviceProperties(pd)
        self.name = props.deviceName
        v = props.apiVersion
        self.api = f"{v >> 22}.{(v >> 12) & 0x3FF}.{v & 0xFFF}"
        self.limits = props.limits
        self.mem = vk.vkGetPhysicalDeviceMemoryProperties(pd)
        self._create_device()

    def _unsuitable(self, pd) -> str | None:
        vk = self.vk
        name = vk.vkGetPhysicalDeviceProperties(pd).deviceName
        exts = {e.extensionName for e in vk.vkEnumerateDeviceExtensionProperties(pd, None)}
        missing = [e for e in REQUIRED_EXTENSIONS if e not in exts]
        if missing:
            return f"{name} lacks {', '.join(missing)}"
        if not vk.vkGetPhysicalDeviceFeatures(pd).geometryShader:
            return f"{name} has no geometry shaders"
        if not any(q.queueFlags & vk.VK_QUEUE_GRAPHICS_BIT
                   for q in vk.vkGetPhysicalDeviceQueueFamilyProperties(pd)):
            return f"{name} has no graphics queue"
        self.extensions = [e for e in REQUIRED_EXTENSIONS + OPTIONAL_EXTENSIONS if e in exts]
        return None

    def _create_device(self):
        vk = self.vk
        pd = self.pd
        # every feature the device has (the shaders may use clip distances, sample ids,
        # geometry point sizes, ...), plus those of the extensions
        chain = None
        xfb = vk.VkPhysicalDeviceTransformFeedbackFeaturesEXT(
            sType=vk.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TRANSFORM_FEEDBACK_FEATURES_EXT)
        chain = xfb
        border = provoking = None
        if "VK_EXT_custom_border_color" in self.extensions:
            border = vk.VkPhysicalDeviceCustomBorderColorFeaturesEXT(
                sType=vk.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_CUSTOM_BORDER_COLOR_FEATURES_EXT,
                pNext=chain)
            chain = border
        if "VK_EXT_provoking_vertex" in self.extensions:
            provoking = vk.VkPhysicalDeviceProvokingVertexFeaturesEXT(
                sType=vk.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROVOKING_VERTEX_FEATURES_EXT,
                pNext=chain)
            chain = provoking
        feats = vk.VkPhysicalDeviceFeatures2(sType=vk.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
                                             pNext=chain)
        vk.vkGetPhysicalDeviceFeatures2(pd, feats)
        if not xfb.transformFeedback:
            raise VulkanUnavailable(f"{self.name}: transform feedback is not supported")
        self.custom_border = bool(border is not None and border.customBorderColors)
        # the transform feedback order of strips: see the module docstring
        self.provoking_last = bool(provoking is not None and provoking.provokingVertexLast
                                   and provoking.transformFeedbackPreservesProvokingVertex)
        families = vk.vkGetPhysicalDeviceQueueFamilyProperties(pd)
        self.family = next(i for i, q in enumerate(families)
                           if q.queueFlags & vk.VK_QUEUE_GRAPHICS_BIT)
        qci = vk.VkDeviceQueueCreateInfo(sType=vk.VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                         queueFamilyIndex=self.family, queueCount=1,
                                         pQueuePriorities=[1.0])
        try:
            self.device = vk.vkCreateDevice(pd, vk.VkDeviceCreateInfo(
                sType=vk.VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, pNext=feats,
                queueCreateInfoCount=1, pQueueCreateInfos=[qci],
                enabledExtensionCount=len(self.extensions),
                ppEnabledExtensionNames=self.extensions), None)
        except vk.VkError as e:
            raise VulkanUnavailable(f"vkCreateDevice failed on {self.name}: "
                                    f"{type(e).__name__}") from None
        self._features = (feats, xfb, border, provoking)      # keep the chain alive
        d = self.device
        self.queue = vk.vkGetDeviceQueue(d, self.family, 0)
        self.pool = vk.vkCreateCommandPool(d, vk.VkCommandPoolCreateInfo(
            sType=vk.VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, queueFamilyIndex=self.family,
            flags=vk.VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT), None)
        self.cmd = vk.vkAllocateCommandBuffers(d, vk.VkCommandBufferAllocateInfo(
            sType=vk.VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, commandPool=self.pool,
            level=vk.VK_COMMAND_BUFFER_LEVEL_PRIMARY, commandBufferCount=1))[0]
        self.fence = vk.vkCreateFence(d, vk.VkFenceCreateInfo(
            sType=vk.VK_STRUCTURE_TYPE_FENCE_CREATE_INFO), None)
        self.bind_xfb = vk.vkGetDeviceProcAddr(d, "vkCmdBindTransformFeedbackBuffersEXT")
        self.begin_xfb = vk.vkGetDeviceProcAddr(d, "vkCmdBeginTransformFeedbackEXT")
        self.end_xfb = vk.vkGetDeviceProcAddr(d, "vkCmdEndTransformFeedbackEXT")

    def describe(self) -> str:
        return f"{self.name} (Vulkan {self.api})"

    def memory_type(self, bits: int, host: bool) -> int:
        vk = self.vk
        want = (vk.VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | vk.VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
                if host else vk.VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)
        for i in range(self.mem.memoryTypeCount):
            if bits & (1 << i) and self.mem.memoryTypes[i].propertyFlags & want == want:
                return i
        for i in range(self.mem.memoryTypeCount):
            if bits & (1 << i) and not host:
                return i
        raise VulkanError("no suitable memory type")


_DEVICE: _Device | VulkanUnavailable | None = None
_LOCK = threading.Lock()


def device() -> _Device:
    """The process-wide device; raises :class:`VulkanUnavailable` (remembered: retrying would
    fail the same way) when there is none."""
    global _DEVICE
    with _LOCK:
        if _DEVICE is None:
            try:
                _DEVICE = _Device()
            except VulkanUnavailable as e:
                _DEVICE = e
            except Exception as e:      # noqa: BLE001 - a driver failing in any other way
                # (a Vulkan error code, a missing entry point) leaves no usable implementation
                _DEVICE = VulkanUnavailable(f"Vulkan initialization failed: "
                                            f"{type(e).__name__}: {e}")
        if isinstance(_DEVICE, VulkanUnavailable):
            raise VulkanUnavailable(str(_DEVICE))
        return _DEVICE


# ---- formats, samplers ----------------------------------------------------------------------

def _formats(vk):
    return {"f": vk.VK_FORMAT_R32G32B32A32_SFLOAT, "i": vk.VK_FORMAT_R32G32B32A32_SINT,
            "u": vk.VK_FORMAT_R32G32B32A32_UINT, "depth": vk.VK_FORMAT_D32_SFLOAT}


_GTYPE_KIND = {"vec4": "f", "ivec4": "i", "uvec4": "u", "int": "i", "uint": "u", "float": "f"}


def _sampler_info(vk, st: dict, kind: str, custom_border: bool):
    """VkSamplerCreateInfo (and its border colour extension) for ``Texture.gl_state``."""
    filt = {"NEAREST": vk.VK_FILTER_NEAREST, "LINEAR": vk.VK_FILTER_LINEAR}
    min_f = st["TEXTURE_MIN_FILTER"]
    base, _, mip = min_f.partition("_MIPMAP_")
    wraps = {"REPEAT": vk.VK_SAMPLER_ADDRESS_MODE_REPEAT,
             "CLAMP_TO_EDGE": vk.VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
             "CLAMP_TO_BORDER": vk.VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER,
             "MIRRORED_REPEAT": vk.VK_SAMPLER_ADDRESS_MODE_MIRRORED_REPEAT,
             "MIRROR_CLAMP_TO_EDGE": vk.VK_SAMPLER_ADDRESS_MODE_MIRROR_CLAMP_TO_EDGE}
    try:
        modes = [wraps[st[f"TEXTURE_WRAP_{a}"]] for a in "STR"]
    except KeyError as e:
        raise VulkanError(f"wrap mode {e.args[0]} has no Vulkan equivalent") from None
    lo, hi = float(st["TEXTURE_MIN_LOD"]), float(st["TEXTURE_MAX_LOD"])
    if mip:
        min_lod, max_lod = lo, max(lo, hi)
    else:
        # GL's NEAREST/LINEAR minification samples the base level only: clamp the level of
        # detail to [0, 0.25], the emulation the note under VkSamplerCreateInfo (Vulkan 1.3,
        # "Samplers") gives for GL_NEAREST/GL_LINEAR; the sign of lambda, which picks
        # magnification or minification, is kept
        min_lod = min(max(lo, 0.0), 0.25)
        max_lod = max(min(max(hi, 0.0), 0.25), min_lod)
    border = [float(v) for v in st["TEXTURE_BORDER_COLOR"]]
    pnext = None
    border_color = vk.VK_BORDER_COLOR_FLOAT_TRANSPARENT_BLACK
    if vk.VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER in modes:
        if kind in ("f", "depth"):
            predefined = {(0.0, 0.0, 0.0, 0.0): vk.VK_BORDER_COLOR_FLOAT_TRANSPARENT_BLACK,
                          (0.0, 0.0, 0.0, 1.0): vk.VK_BORDER_COLOR_FLOAT_OPAQUE_BLACK,
                          (1.0, 1.0, 1.0, 1.0): vk.VK_BORDER_COLOR_FLOAT_OPAQUE_WHITE}
        else:
            predefined = {(0.0, 0.0, 0.0, 0.0): vk.VK_BORDER_COLOR_INT_TRANSPARENT_BLACK,
                          (0.0, 0.0, 0.0, 1.0): vk.VK_BORDER_COLOR_INT_OPAQUE_BLACK,
                          (1.0, 1.0, 1.0, 1.0): vk.VK_BORDER_COLOR_INT_OPAQUE_WHITE}
        if tuple(border) in predefined:
            border_color = predefined[tuple(border)]
        elif not custom_border:
            raise VulkanError("CLAMP_TO_BORDER with a border colour Vulkan predefines none of "
                              "needs VK_EXT_custom_border_color")
        else:
            if kind in ("f", "depth"):
                value = vk.VkClearColorValue(float32=border)
                border_color = vk.VK_BORDER_COLOR_FLOAT_CUSTOM_EXT
            elif kind == "i":
                value = vk.VkClearColorValue(int32=[int(v) for v in border])
                border_color = vk.VK_BORDER_COLOR_INT_CUSTOM_EXT
            else:
                value = vk.VkClearColorValue(uint32=[int(v) & 0xFFFFFFFF for v in border])
                border_color = vk.VK_BORDER_COLOR_INT_CUSTOM_EXT
            pnext = vk.VkSamplerCustomBorderColorCreateInfoEXT(
                sType=vk.VK_STRUCTURE_TYPE_SAMPLER_CUSTOM_BORDER_COLOR_CREATE_INFO_EXT,
                customBorderColor=value, format=_formats(vk)[kind])
    compare = st["TEXTURE_COMPARE_MODE"] == "COMPARE_REF_TO_TEXTURE"
    ops = {"NEVER": vk.VK_COMPARE_OP_NEVER, "LESS": vk.VK_COMPARE_OP_LESS,
           "EQUAL": vk.VK_COMPARE_OP_EQUAL, "LEQUAL": vk.VK_COMPARE_OP_LESS_OR_EQUAL,
           "GREATER": vk.VK_COMPARE_OP_GREATER, "NOTEQUAL": vk.VK_COMPARE_OP_NOT_EQUAL,
           "GEQUAL": vk.VK_COMPARE_OP_GREATER_OR_EQUAL, "ALWAYS": vk.VK_COMPARE_OP_ALWAYS}
    return vk.VkSamplerCreateInfo(
        sType=vk.VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO, pNext=pnext,
        magFilter=filt[st["TEXTURE_MAG_FILTER"]], minFilter=filt[base],
        mipmapMode=vk.VK_SAMPLER_MIPMAP_MODE_LINEAR if mip == "LINEAR"
        else vk.VK_SAMPLER_MIPMAP_MODE_NEAREST,
        addressModeU=modes[0], addressModeV=modes[1], addressModeW=modes[2],
        mipLodBias=float(st["TEXTURE_LOD_BIAS"]), anisotropyEnable=vk.VK_FALSE,
        compareEnable=vk.VK_TRUE if compare else vk.VK_FALSE,
        compareOp=ops[st["TEXTURE_COMPARE_FUNC"]] if compare else vk.VK_COMPARE_OP_NEVER,
        minLod=min_lod, maxLod=max_lod, borderColor=border_color,
        unnormalizedCoordinates=vk.VK_FALSE)


# ---- one run ------------------------------------------------------------------------------------

class _Run:
    """The Vulkan objects of one run, destroyed together (:meth:`close`), and the commands
    recording into the device's command buffer."""

    def __init__(self, dev: _Device):
        self.dev = dev
        self.vk = dev.vk
        self.d = dev.device
        self.cb = dev.cmd
        self.objects: list[tuple] = []        # (destroy function, handle)
        self.writes: list = []                # VkWriteDescriptorSet
        self.bindings: list = []              # VkDescriptorSetLayoutBinding
        self.keep: list = []                  # cffi objects the writes point to
        vk = self.vk
        vk.vkResetCommandBuffer(self.cb, 0)
        vk.vkBeginCommandBuffer(self.cb, vk.VkCommandBufferBeginInfo(
            sType=vk.VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
            flags=vk.VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT))

    def own(self, destroy, handle):
        self.objects.append((destroy, handle))
        return handle

    def close(self) -> None:
        for destroy, h in reversed(self.objects):
            destroy(self.d, h, None)
        self.objects.clear()

    # ---- memory ----------------------------------------------------------------------------
    def _memory(self, req, host: bool):
        vk = self.vk
        mem = vk.vkAllocateMemory(self.d, vk.VkMemoryAllocateInfo(
            sType=vk.VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, allocationSize=req.size,
            memoryTypeIndex=self.dev.memory_type(req.memoryTypeBits, host)), None)
        return self.own(vk.vkFreeMemory, mem)

    def buffer(self, usage: int, data: bytes | None = None, size: int | None = None):
        """A host-visible buffer (lavapipe's memory is host memory anyway); returns the buffer
        and its mapping."""
        vk = self.vk
        n = max(len(data) if data is not None else size, 16)
        buf = self.own(vk.vkDestroyBuffer, vk.vkCreateBuffer(self.d, vk.VkBufferCreateInfo(
            sType=vk.VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, size=n, usage=usage,
            sharingMode=vk.VK_SHARING_MODE_EXCLUSIVE), None))
        mem = self._memory(vk.vkGetBufferMemoryRequirements(self.d, buf), True)
        vk.vkBindBufferMemory(self.d, buf, mem, 0)
        mapped = vk.vkMapMemory(self.d, mem, 0, n, 0)
        if data is not None:
            mapped[0:len(data)] = data
        else:
            mapped[0:n] = bytes(n)
        return buf, mapped

    def image(self, fmt: int, itype: int, extent: tuple[int, int, int], layers: int, levels: int,
              usage: int, flags: int = 0):
        vk = self.vk
        img = self.own(vk.vkDestroyImage, vk.vkCreateImage(self.d, vk.VkImageCreateInfo(
            sType=vk.VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, flags=flags, imageType=itype,
            format=fmt, extent=vk.VkExtent3D(width=extent[0], height=extent[1], depth=extent[2]),
            mipLevels=levels, arrayLayers=layers, samples=vk.VK_SAMPLE_COUNT_1_BIT,
            tiling=vk.VK_IMAGE_TILING_OPTIMAL, usage=usage,
            sharingMode=vk.VK_SHARING_MODE_EXCLUSIVE,
            initialLayout=vk.VK_IMAGE_LAYOUT_UNDEFINED), None))
        mem = self._memory(vk.vkGetImageMemoryRequirements(self.d, img), False)
        vk.vkBindImageMemory(self.d, img, mem, 0)
        return img

    def view(self, img, vtype: int, fmt: int, aspect: int, base_level: int, levels: int,
             layers: int):
        vk = self.vk
        info = vk.VkImageViewCreateInfo(
            sType=vk.VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO, image=img, viewType=vtype,
            format=fmt, components=vk.VkComponentMapping(
                r=vk.VK_COMPONENT_SWIZZLE_IDENTITY, g=vk.VK_COMPONENT_SWIZZLE_IDENTITY,
                b=vk.VK_COMPONENT_SWIZZLE_IDENTITY, a=vk.VK_COMPONENT_SWIZZLE_IDENTITY),
            subresourceRange=vk.VkImageSubresourceRange(
                aspectMask=aspect, baseMipLevel=base_level, levelCount=levels,
                baseArrayLayer=0, layerCount=layers))
        return self.own(vk.vkDestroyImageView, vk.vkCreateImageView(self.d, info, None))

    def barrier(self, img, aspect: int, old: int, new: int, src_access: int, dst_access: int,
                src_stage: int, dst_stage: int, levels: int, layers: int) -> None:
        vk = self.vk
        vk.vkCmdPipelineBarrier(self.cb, src_stage, dst_stage, 0, 0, None, 0, None, 1, [
            vk.VkImageMemoryBarrier(
                sType=vk.VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER, srcAccessMask=src_access,
                dstAccessMask=dst_access, oldLayout=old, newLayout=new,
                srcQueueFamilyIndex=vk.VK_QUEUE_FAMILY_IGNORED,
                dstQueueFamilyIndex=vk.VK_QUEUE_FAMILY_IGNORED, image=img,
                subresourceRange=vk.VkImageSubresourceRange(
                    aspectMask=aspect, baseMipLevel=0, levelCount=levels, baseArrayLayer=0,
                    layerCount=layers))])

    # ---- descriptors -----------------------------------------------------------------------
    def _binding(self, binding: int, dtype: int) -> None:
        vk = self.vk
        self.bindings.append(vk.VkDescriptorSetLayoutBinding(
            binding=binding, descriptorType=dtype, descriptorCount=1,
            stageFlags=vk.VK_SHADER_STAGE_ALL_GRAPHICS))

    def uniform_buffer(self, binding: int, words: np.ndarray) -> None:
        vk = self.vk
        data = np.ascontiguousarray(words, np.uint32).tobytes()
        buf, _ = self.buffer(vk.VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, data)
        self._binding(binding, vk.VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER)
        info = vk.VkDescriptorBufferInfo(buffer=buf, offset=0, range=max(len(data), 16))
        self.writes.append((binding, vk.VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, {"pBufferInfo": [info]}))

    def texture(self, binding: int, target: str, levels: list[np.ndarray], kind: str,
                st: dict | None) -> None:
        """Upload ``levels`` (texel arrays as :func:`gl.texel_arrays` makes them) as a
        ``target`` texture at ``binding``; ``st``: its ``Texture.gl_state`` (None: the
        harness's own input images, NEAREST, base level only)."""
        vk = self.vk
        fmt = _formats(vk)[kind]
        if target == "BUFFER":
            data = levels[0].tobytes()
            buf, _ = self.buffer(vk.VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT, data)
            view = self.own(vk.vkDestroyBufferView, vk.vkCreateBufferView(
                self.d, vk.VkBufferViewCreateInfo(
                    sType=vk.VK_STRUCTURE_TYPE_BUFFER_VIEW_CREATE_INFO, buffer=buf, format=fmt,
                    offset=0, range=len(data)), None))
            self._binding(binding, vk.VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER)
            self.writes.append((binding, vk.VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER,
                                {"pTexelBufferView": [view]}))
            return
        if target in ("2DMS", "ARRAY2DMS"):     # rendered, not copied
            from .vulkan_multisample import multisample_texture
            multisample_texture(self, binding, target, levels[0], kind, fmt, VulkanError)
            return
        shape = levels[0].shape if kind == "depth" else levels[0].shape[:-1]
        flags = 0
        if target == "1D":
            itype, vtype, layers = vk.VK_IMAGE_TYPE_1D, vk.VK_IMAGE_VIEW_TYPE_1D, 1
        elif target in ("2D", "RECT"):
            itype, vtype, layers = vk.VK_IMAGE_TYPE_2D, vk.VK_IMAGE_VIEW_TYPE_2D, 1
        elif target == "3D":
            itype, vtype, layers = vk.VK_IMAGE_TYPE_3D, vk.VK_IMAGE_VIEW_TYPE_3D, 1
        elif target == "ARRAY1D":
            itype, vtype, layers = vk.VK_IMAGE_TYPE_1D, vk.VK_IMAGE_VIEW_TYPE_1D_ARRAY, shape[0]
        elif target == "ARRAY2D":
            itype, vtype, layers = vk.VK_IMAGE_TYPE_2D, vk.VK_IMAGE_VIEW_TYPE_2D_ARRAY, shape[0]
        elif target == "CUBE":
            itype, vtype, layers = vk.VK_IMAGE_TYPE_2D, vk.VK_IMAGE_VIEW_TYPE_CUBE, 6
            flags = vk.VK_IMAGE_CREATE_CUBE_COMPATIBLE_BIT
        elif target == "ARRAYCUBE":             # 6 layer-faces a cube, as the GL's
            itype, vtype, layers = vk.VK_IMAGE_TYPE_2D, vk.VK_IMAGE_VIEW_TYPE_CUBE_ARRAY, shape[0]
            flags = vk.VK_IMAGE_CREATE_CUBE_COMPATIBLE_BIT
        else:
            raise VulkanError(f"texture target {target} has no Vulkan image type")

        def extent(a):
            s = a.shape if kind == "depth" else a.shape[:-1]
            if target in ("1D", "ARRAY1D"):
                return (s[-1], 1, 1)
            if target == "3D":
                return (s[2], s[1], s[0])
            return (s[-1], s[-2], 1)

        aspect = vk.VK_IMAGE_ASPECT_DEPTH_BIT if kind == "depth" else vk.VK_IMAGE_ASPECT_COLOR_BIT
        n = len(levels)
        img = self.image(fmt, itype, extent(levels[0]), layers, n,
                         vk.VK_IMAGE_USAGE_SAMPLED_BIT | vk.VK_IMAGE_USAGE_TRANSFER_DST_BIT, flags)
        data = b"".join(a.tobytes() for a in levels)
        staging, _ = self.buffer(vk.VK_BUFFER_USAGE_TRANSFER_SRC_BIT, data)
        regions, off = [], 0
        for lv, a in enumerate(levels):
            w, h, dd = extent(a)
            regions.append(vk.VkBufferImageCopy(
                bufferOffset=off, bufferRowLength=0, bufferImageHeight=0,
                imageSubresource=vk.VkImageSubresourceLayers(
                    aspectMask=aspect, mipLevel=lv, baseArrayLayer=0, layerCount=layers),
                imageOffset=vk.VkOffset3D(x=0, y=0, z=0),
                imageExtent=vk.VkExtent3D(width=w, height=h, depth=dd)))
            off += a.nbytes
        self.barrier(img, aspect, vk.VK_IMAGE_LAYOUT_UNDEFINED,
                     vk.VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 0, vk.VK_ACCESS_TRANSFER_WRITE_BIT,
                     vk.VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, vk.VK_PIPELINE_STAGE_TRANSFER_BIT,
                     n, layers)
        vk.vkCmdCopyBufferToImage(self.cb, staging, img, vk.VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                                  len(regions), regions)
        self.barrier(img, aspect, vk.VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                     vk.VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, vk.VK_ACCESS_TRANSFER_WRITE_BIT,
                     vk.VK_ACCESS_SHADER_READ_BIT, vk.VK_PIPELINE_STAGE_TRANSFER_BIT,
                     vk.VK_PIPELINE_STAGE_ALL_GRAPHICS_BIT, n, layers)
        base = int(st["TEXTURE_BASE_LEVEL"]) if st else 0
        if not 0 <= base < n:
            raise VulkanError(f"base level {base} outside the {n} levels given")
        view = self.view(img, vtype, fmt, aspect, base, n - base, layers)
        if st is None:
            st = {"TEXTURE_MIN_FILTER": "NEAREST", "TEXTURE_MAG_FILTER": "NEAREST",
                  "TEXTURE_WRAP_S": "CLAMP_TO_EDGE", "TEXTURE_WRAP_T": "CLAMP_TO_EDGE",
                  "TEXTURE_WRAP_R": "CLAMP_TO_EDGE", "TEXTURE_BORDER_COLOR": [0, 0, 0, 0],
                  "TEXTURE_MIN_LOD": 0.0, "TEXTURE_MAX_LOD": 0.0, "TEXTURE_LOD_BIAS": 0.0,
                  "TEXTURE_COMPARE_MODE": "NONE", "TEXTURE_COMPARE_FUNC": "LEQUAL"}
        elif target in ("CUBE", "ARRAYCUBE") and not st.get("TEXTURE_CUBE_MAP_SEAMLESS", True):
            raise VulkanError("cube maps without seamless filtering do not exist in Vulkan")
        info = _sampler_info(vk, st, kind, self.dev.custom_border)
        sampler = self.own(vk.vkDestroySampler, vk.vkCreateSampler(self.d, info, None))
        self._binding(binding, vk.VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER)
        self.writes.append((binding, vk.VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
                            {"pImageInfo": [vk.VkDescriptorImageInfo(
                                sampler=sampler, imageView=view,
                                imageLayout=vk.VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL)]}))

    def descriptors(self):
        """The descriptor set layout, pipeline layout and the written set (None without
        bindings)."""
        vk = self.vk
        d = self.d
        seen = set()
        for b in self.bindings:
            if b.binding in seen:
                raise VulkanError(f"descriptor binding {b.binding} used twice")
            seen.add(b.binding)
        dsl = self.own(vk.vkDestroyDescriptorSetLayout, vk.vkCreateDescriptorSetLayout(
            d, vk.VkDescriptorSetLayoutCreateInfo(
                sType=vk.VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                bindingCount=len(self.bindings), pBindings=self.bindings or None), None))
        layout = self.own(vk.vkDestroyPipelineLayout, vk.vkCreatePipelineLayout(
            d, vk.VkPipelineLayoutCreateInfo(
                sType=vk.VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, setLayoutCount=1,
                pSetLayouts=[dsl]), None))
        if not self.bindings:
            return layout, None
        counts: dict[int, int] = {}
        for _, t, _ in self.writes:
            counts[t] = counts.get(t, 0) + 1
        pool = self.own(vk.vkDestroyDescriptorPool, vk.vkCreateDescriptorPool(
            d, vk.VkDescriptorPoolCreateInfo(
                sType=vk.VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO, maxSets=1,
                poolSizeCount=len(counts), pPoolSizes=[
                    vk.VkDescriptorPoolSize(type=t, descriptorCount=n)
                    for t, n in counts.items()]), None))
        ds = vk.vkAllocateDescriptorSets(d, vk.VkDescriptorSetAllocateInfo(
            sType=vk.VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO, descriptorPool=pool,
            descriptorSetCount=1, pSetLayouts=[dsl]))[0]
        writes = [vk.VkWriteDescriptorSet(
            sType=vk.VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, dstSet=ds, dstBinding=b,
            dstArrayElement=0, descriptorCount=1, descriptorType=t, **kw)
            for b, t, kw in self.writes]
        vk.vkUpdateDescriptorSets(d, len(writes), writes, 0, None)
        return layout, ds

    # ---- pipeline --------------------------------------------------------------------------
    def shader(self, src: str | bytes, stage: str):
        """A shader module of GLSL text (compiled by glslang) or of SPIR-V bytes as given."""
        vk = self.vk
        from ..backends import spirv as sp
        try:
            words = src if isinstance(src, bytes) else sp.compile_glsl(src, stage, target="vulkan")
        except sp.ToolchainUnavailable as e:
            raise VulkanUnavailable(str(e)) from None
        except sp.GlslCompileError as e:
            raise VulkanError(f"glslang rejected the shader: {e}") from None
        return self.own(vk.vkDestroyShaderModule, vk.vkCreateShaderModule(
            self.d, vk.VkShaderModuleCreateInfo(
                sType=vk.VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, codeSize=len(words),
                pCode=words), None))

    def render_pass(self, formats: list[int | None], size: tuple[int, int], images=()):
        """A render pass with colour attachments at locations ``formats`` (None: unused) and
        its framebuffer; attachments are cleared to zero and left for a transfer read."""
        vk = self.vk
        atts, refs = [], []
        for loc, fmt in enumerate(formats):
            if fmt is None:
                refs.append(vk.VkAttachmentReference(attachment=vk.VK_ATTACHMENT_UNUSED,
                                                     layout=vk.VK_IMAGE_LAYOUT_UNDEFINED))
                continue
            refs.append(vk.VkAttachmentReference(
                attachment=len(atts), layout=vk.VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL))
            atts.append(vk.VkAttachmentDescription(
                format=fmt, samples=vk.VK_SAMPLE_COUNT_1_BIT,
                loadOp=vk.VK_ATTACHMENT_LOAD_OP_CLEAR, storeOp=vk.VK_ATTACHMENT_STORE_OP_STORE,
                stencilLoadOp=vk.VK_ATTACHMENT_LOAD_OP_DONT_CARE,
                stencilStoreOp=vk.VK_ATTACHMENT_STORE_OP_DONT_CARE,
                initialLayout=vk.VK_IMAGE_LAYOUT_UNDEFINED,
                finalLayout=vk.VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL))
        sub = vk.VkSubpassDescription(
            pipelineBindPoint=vk.VK_PIPELINE_BIND_POINT_GRAPHICS,
            colorAttachmentCount=len(refs), pColorAttachments=refs or None)
        dep = vk.VkSubpassDependency(
            srcSubpass=0, dstSubpass=vk.VK_SUBPASS_EXTERNAL,
            srcStageMask=vk.VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
            dstStageMask=vk.VK_PIPELINE_STAGE_TRANSFER_BIT,
            srcAccessMask=vk.VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
            dstAccessMask=vk.VK_ACCESS_TRANSFER_READ_BIT)
        info = vk.VkRenderPassCreateInfo(
            sType=vk.VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO, attachmentCount=len(atts),
            pAttachments=atts or None, subpassCount=1, pSubpasses=[sub], dependencyCount=1,
            pDependencies=[dep])
        rp = self.own(vk.vkDestroyRenderPass, vk.vkCreateRenderPass(self.d, info, None))
        fb = self.own(vk.vkDestroyFramebuffer, vk.vkCreateFramebuffer(
            self.d, vk.VkFramebufferCreateInfo(
                sType=vk.VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO, renderPass=rp,
                attachmentCount=len(images), pAttachments=list(images) or None,
                width=size[0], height=size[1], layers=1), None))
        return rp, fb, len(refs)

    def pipeline(self, stages: list[tuple[str, object]], layout, rp, n_colour: int,
                 topology: int, attribs: list[tuple[int, int]], size: tuple[int, int],
                 discard: bool, provoking_last: bool = False):
        """A graphics pipeline; ``attribs``: (location, format) of vertex attributes, each
        from its own vertex buffer binding of 16-byte stride; ``provoking_last``: the
        provoking-vertex mode LAST (``VK_EXT_provoking_vertex``)."""
        vk = self.vk
        flag = {"vert": vk.VK_SHADER_STAGE_VERTEX_BIT, "geom": vk.VK_SHADER_STAGE_GEOMETRY_BIT,
                "frag": vk.VK_SHADER_STAGE_FRAGMENT_BIT}
        st = [vk.VkPipelineShaderStageCreateInfo(
            sType=vk.VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, stage=flag[s],
            module=m, pName="main") for s, m in stages]
        vin = vk.VkPipelineVertexInputStateCreateInfo(
            sType=vk.VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO,
            vertexBindingDescriptionCount=len(attribs),
            pVertexBindingDescriptions=[vk.VkVertexInputBindingDescription(
                binding=k, stride=16, inputRate=vk.VK_VERTEX_INPUT_RATE_VERTEX)
                for k in range(len(attribs))] or None,
            vertexAttributeDescriptionCount=len(attribs),
            pVertexAttributeDescriptions=[vk.VkVertexInputAttributeDescription(
                location=loc, binding=k, format=fmt, offset=0)
                for k, (loc, fmt) in enumerate(attribs)] or None)
        ia = vk.VkPipelineInputAssemblyStateCreateInfo(
            sType=vk.VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO,
            topology=topology, primitiveRestartEnable=vk.VK_FALSE)
        vp = vk.VkPipelineViewportStateCreateInfo(
            sType=vk.VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO, viewportCount=1,
            pViewports=[vk.VkViewport(x=0.0, y=0.0, width=float(size[0]), height=float(size[1]),
                                      minDepth=0.0, maxDepth=1.0)],
            scissorCount=1, pScissors=[vk.VkRect2D(
                offset=vk.VkOffset2D(x=0, y=0),
                extent=vk.VkExtent2D(width=size[0], height=size[1]))])
        provoking = None
        if provoking_last:
            provoking = vk.VkPipelineRasterizationProvokingVertexStateCreateInfoEXT(
                sType=vk.
                VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_PROVOKING_VERTEX_STATE_CREATE_INFO_EXT,
                provokingVertexMode=vk.VK_PROVOKING_VERTEX_MODE_LAST_VERTEX_EXT)
        rs = vk.VkPipelineRasterizationStateCreateInfo(
            sType=vk.VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO, pNext=provoking,
            depthClampEnable=vk.VK_FALSE,
            rasterizerDiscardEnable=vk.VK_TRUE if discard else vk.VK_FALSE,
            polygonMode=vk.VK_POLYGON_MODE_FILL, cullMode=vk.VK_CULL_MODE_NONE,
            # the fullscreen triangle (-1,-1) (3,-1) (-1,3) runs clockwise in Vulkan's
            # y-down framebuffer: make it front-facing, as on GL
            frontFace=vk.VK_FRONT_FACE_CLOCKWISE, depthBiasEnable=vk.VK_FALSE, lineWidth=1.0)
        ms = vk.VkPipelineMultisampleStateCreateInfo(
            sType=vk.VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO,
            rasterizationSamples=vk.VK_SAMPLE_COUNT_1_BIT)
        cbs = vk.VkPipelineColorBlendStateCreateInfo(
            sType=vk.VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO,
            attachmentCount=n_colour, pAttachments=[vk.VkPipelineColorBlendAttachmentState(
                blendEnable=vk.VK_FALSE, colorWriteMask=0xF) for _ in range(n_colour)] or None)
        info = vk.VkGraphicsPipelineCreateInfo(
            sType=vk.VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO, stageCount=len(st),
            pStages=st, pVertexInputState=vin, pInputAssemblyState=ia, pViewportState=vp,
            pRasterizationState=rs, pMultisampleState=ms, pColorBlendState=cbs, layout=layout,
            renderPass=rp, subpass=0)
        try:
            pipe = vk.vkCreateGraphicsPipelines(self.d, vk.VK_NULL_HANDLE, 1, [info], None)[0]
        except vk.VkError as e:
            raise VulkanError(f"vkCreateGraphicsPipelines failed: {type(e).__name__}") from None
        return self.own(vk.vkDestroyPipeline, pipe)

    def submit(self) -> None:
        vk = self.vk
        vk.vkEndCommandBuffer(self.cb)
        d = self.dev
        try:
            vk.vkQueueSubmit(d.queue, 1, [vk.VkSubmitInfo(
                sType=vk.VK_STRUCTURE_TYPE_SUBMIT_INFO, commandBufferCount=1,
                pCommandBuffers=[self.cb])], d.fence)
            vk.vkWaitForFences(self.d, 1, [d.fence], vk.VK_TRUE, 0xFFFFFFFFFFFFFFFF)
        except (vk.VkError, vk.VkException) as e:
            raise VulkanError(f"queue submission failed: {type(e).__name__}") from None
        finally:
            vk.vkResetFences(self.d, 1, [d.fence])


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
            shadow: set[int] | None = None, direct=None) -> Capture:
        """As :meth:`gl.Runner.run`, for a translation in the ``vulkan`` profile: ``buffers``
        are the uniform blocks by descriptor binding (the parameter block at 0, program
        buffers at 40 + b); ``uniforms`` (loose uniforms, which Vulkan GLSL has not) must be
        empty; ``textures`` go to the bindings the reflection gives their units."""
        if uniforms:
            raise VulkanError("loose uniforms (the glsl450 profile's) cannot be set on Vulkan: "
                              "emit the translation in the vulkan profile")
        if self.precise:
            glsl = make_precise(glsl)
        self._direct = direct
        if stage not in ("vertex", "fragment", "geometry"):
            raise ValueError(stage)
        vk = self.dev.vk
        with _LOCK:
            r = None
            try:
                r = _Run(self.dev)
                return getattr(self, "_" + stage)(r, glsl, reflection, lanes, inputs,
                                                  buffers or {}, textures or {}, shadow or set())
            except (vk.VkError, vk.VkException) as e:
                raise VulkanError(f"Vulkan call failed: {type(e).__name__}") from None
            finally:
                if r is not None:
                    r.close()

    _direct = None

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
                 topology: int, draw: int, capacity: int, layout, ds, provoking_last=False):
        """Draw ``draw`` vertices with transform feedback into ``len(strides)`` buffers of
        ``capacity`` vertices; ``attribs``: (location, format) of the vertex attributes, whose
        words are ``vertex_words``.  Returns the raw words per buffer, (capacity, stride / 4)
        each, and the number of vertices written."""
        vk = r.vk
        dev = self.dev
        rp, fb, _ = r.render_pass([], (1, 1))
        pipe = r.pipeline(shaders, layout, rp, 0, topology, attribs, (1, 1), discard=True,
                          provoking_last=provoking_last)
        vbufs = [self._attrib_buffer(r, w) for w in vertex_words]
        outs = [r.buffer(vk.VK_BUFFER_USAGE_TRANSFORM_FEEDBACK_BUFFER_BIT_EXT,
                         size=capacity * st) for st in strides]
        counter_usage = vk.VK_BUFFER_USAGE_TRANSFORM_FEEDBACK_COUNTER_BUFFER_BIT_EXT
        counter, counter_map = r.buffer(counter_usage, size=16)
        cb = r.cb
        vk.vkCmdBeginRenderPass(cb, vk.VkRenderPassBeginInfo(
            sType=vk.VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO, renderPass=rp, framebuffer=fb,
            renderArea=vk.VkRect2D(offset=vk.VkOffset2D(x=0, y=0),
                                   extent=vk.VkExtent2D(width=1, height=1))),
            vk.VK_SUBPASS_CONTENTS_INLINE)
        vk.vkCmdBindPipeline(cb, vk.VK_PIPELINE_BIND_POINT_GRAPHICS, pipe)
        if ds is not None:
            vk.vkCmdBindDescriptorSets(cb, vk.VK_PIPELINE_BIND_POINT_GRAPHICS, layout, 0, 1,
                                       [ds], 0, None)
        if vbufs:
            vk.vkCmdBindVertexBuffers(cb, 0, len(vbufs), vbufs, [0] * len(vbufs))
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
            # nothing to capture (gl.completes_primitives)
            return Capture(primitives=[[] for _ in range(lanes)], glsl=glsl)
        src, slots, strides = add_capture(glsl, reflection, "geometry")
        vs_text, attribs = passthrough_vertex_shader(glsl, reflection)
        types = {m.group(4): m.group(3) for m in _IN_DECL.finditer(glsl)}
        self._resources(r, reflection, buffers, textures, shadow)
        layout, ds = r.descriptors()
        vs = r.shader(vs_text, "vert")
        gs = r.shader(src, "geom")
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
        src, feeds = fragment_inputs(glsl, base=INPUT_BINDING_BASE, layout="set = 0, binding = {}")
        src, outs, extra = fragment_outputs(src, reflection)
        x, y, W, H = quad_layout(lanes)
        vs_text = ("#version 450\nvoid main()\n{\n    vec2 p = vec2(float((gl_VertexIndex & 1) * 4"
                   " - 1), float((gl_VertexIndex >> 1) * 4 - 1));\n    gl_Position = vec4(p, "
                   f"{FRAGMENT_DEPTH!r}, 1.0);\n}}\n")
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
        layout, ds = r.descriptors()
        vs = r.shader(vs_text, "vert")
        fs = r.shader(program_stage(self._direct, src, feeds=feeds, extra=extra, glsl=glsl), "frag")
        targets = list(outs) + [("xv_extra", "vec4", extra)]
        formats: list[int | None] = [None] * (max(loc for _, _, loc in targets) + 1)
        images, views = {}, []
        color = vk.VK_IMAGE_ASPECT_COLOR_BIT
        for name, gtype, loc in targets:
            fmt = self.formats[_GTYPE_KIND[gtype]]
            formats[loc] = fmt
            img = r.image(fmt, vk.VK_IMAGE_TYPE_2D, (W, H, 1), 1, 1,
                          vk.VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT |
                          vk.VK_IMAGE_USAGE_TRANSFER_SRC_BIT)
            images[name] = (img, loc)
        # framebuffer attachments in location order (the render pass numbers them so)
        for loc, fmt in enumerate(formats):
            if fmt is None:
                continue
            img = next(i for i, lc in images.values() if lc == loc)
            views.append(r.view(img, vk.VK_IMAGE_VIEW_TYPE_2D, fmt, color, 0, 1, 1))
        rp, fb, n_colour = r.render_pass(formats, (W, H), views)
        pipe = r.pipeline([("vert", vs), ("frag", fs)], layout, rp, n_colour,
                          vk.VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, [], (W, H), discard=False)
        cb = r.cb
        clears = [vk.VkClearValue(color=vk.VkClearColorValue(uint32=[0, 0, 0, 0]))
                  for _ in views]
        vk.vkCmdBeginRenderPass(cb, vk.VkRenderPassBeginInfo(
            sType=vk.VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO, renderPass=rp, framebuffer=fb,
            renderArea=vk.VkRect2D(offset=vk.VkOffset2D(x=0, y=0),
                                   extent=vk.VkExtent2D(width=W, height=H)),
            clearValueCount=len(clears), pClearValues=clears), vk.VK_SUBPASS_CONTENTS_INLINE)
        vk.vkCmdBindPipeline(cb, vk.VK_PIPELINE_BIND_POINT_GRAPHICS, pipe)
        if ds is not None:
            vk.vkCmdBindDescriptorSets(cb, vk.VK_PIPELINE_BIND_POINT_GRAPHICS, layout, 0, 1,
                                       [ds], 0, None)
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
