"""Dispatch of a translated compute shader on Vulkan (Mesa lavapipe): ``xlate verify --backend
vulkan`` of COMP programs.  :func:`xlate.verify.compute_verify.verify_compute` chooses the inputs,
the grid and the verdict for every backend; this module is the Vulkan half of its dispatch,
the counterpart of :func:`gl_compute.run_gl_compute`, and returns the same things: the
storage buffers' words and the images' texels after the dispatch.

How the resources are fed (descriptor bindings as the ``vulkan`` profile's reflection gives
them; the reflection and docs/cli.md say how an engine binds them):

* storage buffers (``BUFFER[b]`` at binding 64 + b) and the verifier's atomic log (binding 31,
  ``backends/glsl/memory.py``): host-visible buffers holding the generated words, read back
  after a compute-to-host barrier;
* the parameter block (binding 0) and constant buffers (40 + b): uniform buffers, as the draw
  harnesses bind them;
* textures (1 + unit): the images and samplers :mod:`vulkan_device` makes for every stage;
* images (``IMAGE[u]`` at 96 + u): optimally tiled storage images in the GENERAL layout of the
  program's format (an image declared without one is R32G32B32A32_SFLOAT, as on GL), created
  with the texels :func:`gl_compute.generated_images` makes, packed into the format's bytes and
  unpacked after the dispatch by :mod:`image_bytes` (as GL's ``glGetTexImage`` gives them back);
* buffer images (``DCL IMAGE[u], BUFFER``, ``imageBuffer`` at the same bindings): storage texel
  buffers, a host-visible buffer of the texels' bytes seen through a buffer view of the
  program's format, exactly as many texels as the executor's buffer image holds (``imageSize``
  and RESQ count them), read back through the mapping after the compute-to-host barrier.
"""
from __future__ import annotations

import numpy as np

from ..backends.glsl.memory import ATOMIC_LOG_BINDING
from .image_bytes import pack_texels, unpack_texels
from .vulkan_device import VulkanError, _Run, one_run

#: (image type, view type, array layers from the texel array's first axis) per image target
_IMAGE_TYPES = {"1D": ("1D", "1D"), "2D": ("2D", "2D"), "RECT": ("2D", "2D"),
                "3D": ("3D", "3D"), "CUBE": ("2D", "CUBE"), "ARRAY1D": ("1D", "1D_ARRAY"),
                "ARRAY2D": ("2D", "2D_ARRAY"), "ARRAYCUBE": ("2D", "CUBE_ARRAY")}


def vk_format_name(fmt) -> str:
    """The VkFormat of an image format (``ir.image_formats``; None: RGBA32F)."""
    if fmt is None:
        return "VK_FORMAT_R32G32B32A32_SFLOAT"
    return "VK_FORMAT_" + fmt.name.replace("_FLOAT", "_SFLOAT")


def _storage_image(r: _Run, res, texels: np.ndarray, binding: int):
    """Create image ``res`` filled with ``texels`` and bind it as a storage image; returns
    what :func:`_read_image` needs."""
    from ..ir.image_formats import image_format
    vk = r.vk
    fmt = image_format(res.format)
    vk_fmt = getattr(vk, vk_format_name(fmt))
    itype, vtype = _IMAGE_TYPES[res.target]
    layers, h, w = texels.shape[:3]
    if itype == "3D":
        extent, n_layers = (w, h, layers), 1
    elif itype == "1D":
        extent, n_layers = (w, 1, 1), layers
    else:
        extent, n_layers = (w, h, 1), layers
    flags = vk.VK_IMAGE_CREATE_CUBE_COMPATIBLE_BIT if "CUBE" in vtype else 0
    color = vk.VK_IMAGE_ASPECT_COLOR_BIT
    img = r.image(vk_fmt, getattr(vk, f"VK_IMAGE_TYPE_{itype}"), extent, n_layers, 1,
                  vk.VK_IMAGE_USAGE_STORAGE_BIT | vk.VK_IMAGE_USAGE_TRANSFER_DST_BIT
                  | vk.VK_IMAGE_USAGE_TRANSFER_SRC_BIT, flags)
    data = pack_texels(fmt, texels)
    staging, _ = r.buffer(vk.VK_BUFFER_USAGE_TRANSFER_SRC_BIT, data)
    region = vk.VkBufferImageCopy(
        bufferOffset=0, bufferRowLength=0, bufferImageHeight=0,
        imageSubresource=vk.VkImageSubresourceLayers(aspectMask=color, mipLevel=0,
                                                     baseArrayLayer=0, layerCount=n_layers),
        imageOffset=vk.VkOffset3D(x=0, y=0, z=0),
        imageExtent=vk.VkExtent3D(width=extent[0], height=extent[1], depth=extent[2]))
    r.barrier(img, color, vk.VK_IMAGE_LAYOUT_UNDEFINED, vk.VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
              0, vk.VK_ACCESS_TRANSFER_WRITE_BIT, vk.VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT,
              vk.VK_PIPELINE_STAGE_TRANSFER_BIT, 1, n_layers)
    vk.vkCmdCopyBufferToImage(r.cb, staging, img, vk.VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1,
                              [region])
    r.barrier(img, color, vk.VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, vk.VK_IMAGE_LAYOUT_GENERAL,
              vk.VK_ACCESS_TRANSFER_WRITE_BIT,
              vk.VK_ACCESS_SHADER_READ_BIT | vk.VK_ACCESS_SHADER_WRITE_BIT,
              vk.VK_PIPELINE_STAGE_TRANSFER_BIT, vk.VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
              1, n_layers)
    view = r.view(img, getattr(vk, f"VK_IMAGE_VIEW_TYPE_{vtype}"), vk_fmt, color, 0, 1,
                  n_layers)
    r._binding(binding, vk.VK_DESCRIPTOR_TYPE_STORAGE_IMAGE)
    r.writes.append((binding, vk.VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, {"pImageInfo": [
        vk.VkDescriptorImageInfo(sampler=vk.VK_NULL_HANDLE, imageView=view,
                                 imageLayout=vk.VK_IMAGE_LAYOUT_GENERAL)]}))
    return fmt, img, region, len(data), texels.shape


def _storage_texel_buffer(r: _Run, res, texels: np.ndarray, binding: int):
    """Create buffer image ``res`` holding ``texels`` and bind it as a storage texel buffer;
    returns (format, mapping, bytes, shape): what the read-back after the dispatch needs."""
    from ..ir.image_formats import image_format
    vk = r.vk
    fmt = image_format(res.format)
    data = pack_texels(fmt, texels)
    buf, mapped = r.buffer(vk.VK_BUFFER_USAGE_STORAGE_TEXEL_BUFFER_BIT, data)
    # the view's range is the texels' bytes exactly: imageSize is range / texel size
    view = r.own(vk.vkDestroyBufferView, vk.vkCreateBufferView(r.d, vk.VkBufferViewCreateInfo(
        sType=vk.VK_STRUCTURE_TYPE_BUFFER_VIEW_CREATE_INFO, buffer=buf,
        format=getattr(vk, vk_format_name(fmt)), offset=0, range=len(data)), None))
    r._binding(binding, vk.VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER)
    r.writes.append((binding, vk.VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER,
                     {"pTexelBufferView": [view]}))
    return fmt, mapped, len(data), texels.shape


def run_vulkan_compute(runner, shader: str | bytes, reflection: dict, groups,
                       buffers: dict[int, np.ndarray], param_buffers: dict[int, np.ndarray],
                       program, images: dict[int, np.ndarray] | None = None, textures=None,
                       atomic_capacity: int = 0):
    """Dispatch ``shader`` (vulkan-profile GLSL, compiled by glslang, or SPIR-V bytes) over
    ``groups`` workgroups on the runner's device: (storage buffers' words by ``BUFFER``
    index, with ``"log"``: (count, entries) of the atomic log when ``atomic_capacity``;
    images' texels by unit), as :func:`gl_compute.run_gl_compute` returns them."""
    with one_run(runner.dev, compute=True) as r:
        return _dispatch(runner, r, shader, reflection, groups, buffers, param_buffers, program,
                         images or {}, textures, atomic_capacity)


def _dispatch(runner, r: _Run, shader, reflection, groups, buffers, param_buffers, program,
              images, textures, atomic_capacity):
    vk = r.vk
    tex, shadow = textures if textures is not None else ({}, set())
    runner._resources(r, reflection, param_buffers, tex or {}, shadow or set())
    bound = {}

    def storage(binding: int, words: np.ndarray, key):
        bound[key] = (r.storage_buffer(binding, words), np.asarray(words).size * 4)

    for sb in reflection.get("storage_buffers", []):
        index = int(sb["resource"][len("BUFFER["):-1])
        storage(sb["binding"], buffers[index], index)
    if atomic_capacity:
        head = np.array([0, atomic_capacity, 0, 0], np.uint32)
        storage(ATOMIC_LOG_BINDING, np.concatenate(
            [head, np.zeros(8 * atomic_capacity, np.uint32)]), "log")
    by_unit = {int(i["resource"][len("IMAGE["):-1]): i for i in reflection.get("images", [])}
    made = {}
    texel_buffers = {}
    for res in (program.resources.values() if program is not None else ()):
        if res.kind == "image":
            binding = by_unit[res.binding]["binding"] if res.binding in by_unit \
                else 96 + res.binding
            if res.target == "BUFFER":
                texel_buffers[res.binding] = _storage_texel_buffer(r, res, images[res.binding],
                                                                   binding)
            else:
                made[res.binding] = _storage_image(r, res, images[res.binding], binding)
    layout, ds = r.descriptors()
    module = r.shader(shader, "comp")
    pipe = _compute_pipeline(r, module, layout)
    cb = r.cb
    vk.vkCmdBindPipeline(cb, vk.VK_PIPELINE_BIND_POINT_COMPUTE, pipe)
    if ds is not None:
        vk.vkCmdBindDescriptorSets(cb, vk.VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, [ds], 0,
                                   None)
    vk.vkCmdDispatch(cb, *groups)
    reads = {}
    if made:
        vk.vkCmdPipelineBarrier(
            cb, vk.VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, vk.VK_PIPELINE_STAGE_TRANSFER_BIT, 0,
            1, [vk.VkMemoryBarrier(sType=vk.VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                                   srcAccessMask=vk.VK_ACCESS_SHADER_WRITE_BIT,
                                   dstAccessMask=vk.VK_ACCESS_TRANSFER_READ_BIT)],
            0, None, 0, None)
        for unit, (fmt, img, region, nbytes, shape) in made.items():
            buf, mapped = r.buffer(vk.VK_BUFFER_USAGE_TRANSFER_DST_BIT, size=nbytes)
            vk.vkCmdCopyImageToBuffer(cb, img, vk.VK_IMAGE_LAYOUT_GENERAL, buf, 1, [region])
            reads[unit] = (fmt, mapped, nbytes, shape)
    vk.vkCmdPipelineBarrier(
        cb, vk.VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | vk.VK_PIPELINE_STAGE_TRANSFER_BIT,
        vk.VK_PIPELINE_STAGE_HOST_BIT, 0, 1, [vk.VkMemoryBarrier(
            sType=vk.VK_STRUCTURE_TYPE_MEMORY_BARRIER,
            srcAccessMask=vk.VK_ACCESS_SHADER_WRITE_BIT | vk.VK_ACCESS_TRANSFER_WRITE_BIT,
            dstAccessMask=vk.VK_ACCESS_HOST_READ_BIT)], 0, None, 0, None)
    r.submit()
    words = {k: np.frombuffer(m, np.uint32, n // 4).copy() for k, (m, n) in bound.items()}
    if "log" in words:
        raw = words.pop("log")
        count = int(raw[0])
        words["log"] = (count, raw[4:].reshape(-1, 8)[:min(count, atomic_capacity)])
    reads.update(texel_buffers)
    texels = {u: unpack_texels(fmt, bytes(m[0:n]), shape)
              for u, (fmt, m, n, shape) in sorted(reads.items())}
    return words, texels


def _compute_pipeline(r: _Run, module, layout):
    vk = r.vk
    # the stage is copied into the create info by value, and its entry point name is owned
    # by the stage's cffi object: that object must outlive the call (a temporary one freed the
    # name, and lavapipe found no entry point: VK_ERROR_UNKNOWN)
    stage = vk.VkPipelineShaderStageCreateInfo(
        sType=vk.VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
        stage=vk.VK_SHADER_STAGE_COMPUTE_BIT, module=module, pName="main")
    info = vk.VkComputePipelineCreateInfo(
        sType=vk.VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO, stage=stage, layout=layout)
    try:
        pipe = vk.vkCreateComputePipelines(r.d, vk.VK_NULL_HANDLE, 1, [info], None)[0]
    except vk.VkError as e:
        raise VulkanError(f"vkCreateComputePipelines failed: {type(e).__name__}") from None
    return r.own(vk.vkDestroyPipeline, pipe)


__all__ = ["run_vulkan_compute", "vk_format_name"]
