"""The Vulkan device the ``vulkan`` backend runs on (Mesa lavapipe, through the ``vulkan`` PyPI
package), its errors, and the objects of one draw (:class:`_Run`: buffers, images, samplers,
descriptors, render pass, pipeline, submission).  The runner that drives a draw per stage is
:mod:`xlate.verify.vulkan`; its docstring says how each stage runs.
"""
from __future__ import annotations

import threading
from contextlib import contextmanager

import numpy as np

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



@contextmanager
def one_run(dev: "_Device", *, compute: bool = False):
    """A :class:`_Run` on ``dev`` under the device lock (one command buffer: one run at a
    time), its objects destroyed after; a Vulkan call failing inside becomes a
    :class:`VulkanError`.  ``compute``: the run's descriptors are a compute dispatch's
    (:meth:`_Run.for_compute`).  Every run of the vulkan backend takes this path: the draws
    (:meth:`vulkan.Runner.run`), the tessellation harnesses (:mod:`vulkan_tess`) and compute
    dispatches (:mod:`vulkan_compute`)."""
    vk = dev.vk
    with _LOCK:
        r = None
        try:
            r = _Run(dev)
            if compute:
                r.for_compute()
            yield r
        except (vk.VkError, vk.VkException) as e:
            raise VulkanError(f"Vulkan call failed: {type(e).__name__}") from None
        finally:
            if r is not None:
                r.close()

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
        #: the shader stages that see the descriptors, and the pipeline stage that first reads
        #: an uploaded texture: the graphics stages, or compute (:meth:`for_compute`)
        self.shader_stages = vk.VK_SHADER_STAGE_ALL_GRAPHICS
        self.reading_stage = vk.VK_PIPELINE_STAGE_ALL_GRAPHICS_BIT
        vk.vkResetCommandBuffer(self.cb, 0)
        vk.vkBeginCommandBuffer(self.cb, vk.VkCommandBufferBeginInfo(
            sType=vk.VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
            flags=vk.VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT))

    def for_compute(self) -> "_Run":
        """Make the descriptors (and texture uploads) of this run those of a compute dispatch."""
        self.shader_stages = self.vk.VK_SHADER_STAGE_COMPUTE_BIT
        self.reading_stage = self.vk.VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT
        return self

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
            stageFlags=self.shader_stages))

    def uniform_buffer(self, binding: int, words: np.ndarray) -> None:
        vk = self.vk
        data = np.ascontiguousarray(words, np.uint32).tobytes()
        buf, _ = self.buffer(vk.VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, data)
        self._binding(binding, vk.VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER)
        info = vk.VkDescriptorBufferInfo(buffer=buf, offset=0, range=max(len(data), 16))
        self.writes.append((binding, vk.VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, {"pBufferInfo": [info]}))

    def storage_buffer(self, binding: int, words: np.ndarray):
        """A storage buffer at ``binding`` holding ``words``; returns its mapping (read it
        after a barrier to the host)."""
        vk = self.vk
        data = np.ascontiguousarray(words, np.uint32).tobytes()
        buf, mapped = self.buffer(vk.VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, data)
        self._binding(binding, vk.VK_DESCRIPTOR_TYPE_STORAGE_BUFFER)
        info = vk.VkDescriptorBufferInfo(buffer=buf, offset=0, range=max(len(data), 16))
        self.writes.append((binding, vk.VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, {"pBufferInfo": [info]}))
        return mapped

    def texture(self, binding: int, target: str, levels: list[np.ndarray], kind: str,
                st: dict | None) -> None:
        """Upload ``levels`` (texel arrays as :func:`capture.texel_arrays` makes them) as a
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
                     self.reading_stage, n, layers)
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

    def begin_draw(self, rp, fb, size: tuple[int, int], pipe, layout, ds, vbufs=(),
                   clears=None):
        """Record the start of a draw: the render pass over ``size`` (cleared with ``clears``
        where given), the graphics pipeline, its descriptor set (if any) and vertex buffers."""
        vk, cb = self.vk, self.cb
        vk.vkCmdBeginRenderPass(cb, vk.VkRenderPassBeginInfo(
            sType=vk.VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO, renderPass=rp, framebuffer=fb,
            renderArea=vk.VkRect2D(offset=vk.VkOffset2D(x=0, y=0),
                                   extent=vk.VkExtent2D(width=size[0], height=size[1])),
            clearValueCount=len(clears or ()), pClearValues=clears or None),
            vk.VK_SUBPASS_CONTENTS_INLINE)
        vk.vkCmdBindPipeline(cb, vk.VK_PIPELINE_BIND_POINT_GRAPHICS, pipe)
        if ds is not None:
            vk.vkCmdBindDescriptorSets(cb, vk.VK_PIPELINE_BIND_POINT_GRAPHICS, layout, 0, 1,
                                       [ds], 0, None)
        if vbufs:
            vk.vkCmdBindVertexBuffers(cb, 0, len(vbufs), list(vbufs), [0] * len(vbufs))
        return cb

    def render_pass(self, formats: list[int | None], size: tuple[int, int], images=(),
                    loaded=frozenset()):
        """A render pass with colour attachments at locations ``formats`` (None: unused) and
        its framebuffer; attachments are cleared to zero and left for a transfer read.  The
        locations in ``loaded`` keep their contents (in the GENERAL layout) and are also the
        subpass's input attachments of the same index (TGSI FBFETCH: ``vulkan_fetch``)."""
        vk = self.vk
        atts, refs = [], []
        inputs = [vk.VkAttachmentReference(attachment=vk.VK_ATTACHMENT_UNUSED,
                                           layout=vk.VK_IMAGE_LAYOUT_UNDEFINED)
                  for _ in range(max(loaded, default=-1) + 1)]
        for loc, fmt in enumerate(formats):
            if fmt is None:
                refs.append(vk.VkAttachmentReference(attachment=vk.VK_ATTACHMENT_UNUSED,
                                                     layout=vk.VK_IMAGE_LAYOUT_UNDEFINED))
                continue
            load = loc in loaded
            general = vk.VK_IMAGE_LAYOUT_GENERAL
            refs.append(vk.VkAttachmentReference(
                attachment=len(atts),
                layout=general if load else vk.VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL))
            if load:
                inputs[loc] = vk.VkAttachmentReference(attachment=len(atts), layout=general)
            atts.append(vk.VkAttachmentDescription(
                format=fmt, samples=vk.VK_SAMPLE_COUNT_1_BIT,
                loadOp=vk.VK_ATTACHMENT_LOAD_OP_LOAD if load else vk.VK_ATTACHMENT_LOAD_OP_CLEAR,
                storeOp=vk.VK_ATTACHMENT_STORE_OP_STORE,
                stencilLoadOp=vk.VK_ATTACHMENT_LOAD_OP_DONT_CARE,
                stencilStoreOp=vk.VK_ATTACHMENT_STORE_OP_DONT_CARE,
                initialLayout=general if load else vk.VK_IMAGE_LAYOUT_UNDEFINED,
                finalLayout=vk.VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL))
        sub = vk.VkSubpassDescription(
            pipelineBindPoint=vk.VK_PIPELINE_BIND_POINT_GRAPHICS,
            inputAttachmentCount=len(inputs), pInputAttachments=inputs or None,
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
                 discard: bool, provoking_last: bool = False, patch_vertices: int = 0):
        """A graphics pipeline; ``attribs``: (location, format) of vertex attributes, each
        from its own vertex buffer binding of 16-byte stride; ``provoking_last``: the
        provoking-vertex mode LAST (``VK_EXT_provoking_vertex``); ``patch_vertices``: the
        control points of a patch (a pipeline with tessellation stages)."""
        vk = self.vk
        flag = {"vert": vk.VK_SHADER_STAGE_VERTEX_BIT, "geom": vk.VK_SHADER_STAGE_GEOMETRY_BIT,
                "frag": vk.VK_SHADER_STAGE_FRAGMENT_BIT,
                "tesc": vk.VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT,
                "tese": vk.VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT}
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
        tess = None
        if patch_vertices:
            tess = vk.VkPipelineTessellationStateCreateInfo(
                sType=vk.VK_STRUCTURE_TYPE_PIPELINE_TESSELLATION_STATE_CREATE_INFO,
                patchControlPoints=patch_vertices)
        info = vk.VkGraphicsPipelineCreateInfo(
            sType=vk.VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO, stageCount=len(st),
            pStages=st, pVertexInputState=vin, pInputAssemblyState=ia,
            pTessellationState=tess, pViewportState=vp,
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
