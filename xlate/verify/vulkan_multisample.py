"""Multisample textures for the Vulkan harness (issue 20: TGSI 2D_MSAA / 2D_ARRAY_MSAA), as
``gl_multisample.py`` makes them for the GL: Vulkan copies no buffer into a multisample image
either (vkCmdCopyBufferToImage needs one sample), so the samples are rendered.  The texels go
into a one-sample 2D array image of ``layers * samples`` layers; for each layer of the
multisample image a render pass draws a full-screen triangle whose fragment shader reads
``gl_SampleID`` (which runs it once per sample, Vulkan 1.3 "Sample Shading") and writes the
texel of that sample: ``texelFetch(src, ivec3(gl_FragCoord.xy, first + gl_SampleID), 0)``,
``first = layer * samples`` a push constant.  The commands are recorded before the program's
own, in the run's command buffer; the image ends in SHADER_READ_ONLY_OPTIMAL."""
from __future__ import annotations

import numpy as np

from .multisample_shaders import (PREFIX, fill_fragment_shader, fill_vertex_shader,
                                  multisample_type, readback_shader)

_VS = fill_vertex_shader("gl_VertexIndex")


def _fs(kind: str) -> str:
    return fill_fragment_shader(kind, f"layout(set = 0, binding = 0) uniform {PREFIX[kind]}"
                                "sampler2DArray src;\n"
                                "layout(push_constant) uniform Fill { int first; } fill;\n",
                                "fill.first")


def multisample_texture(r, binding: int, target: str, level: np.ndarray, kind: str, fmt: int,
                        error: type[Exception], storage: bool = False,
                        src_fmt: int | None = None):
    """Create, fill and bind at ``binding`` the multisample texture of ``level``
    (``(samples, h, w, 4)``, or ``(layers, samples, h, w, 4)`` for ARRAY2DMS) on the run
    ``r`` (:class:`xlate.verify.vulkan._Run`) in the Vulkan format ``fmt``; ``error``: the
    exception to raise (``vulkan.VulkanError``: passed in, as this module is imported by
    ``vulkan.py``).  ``storage``: a storage image instead (TGSI ``DCL IMAGE[n], 2D_MSAA``),
    left in the GENERAL layout; returns (image, view) for :func:`read_multisample`.
    ``src_fmt``: the format of the one-sample source holding ``level``'s four words a texel
    (default ``fmt``; a storage image's format may have fewer channels)."""
    VulkanError = error
    vk, d, cb = r.vk, r.d, r.cb
    if kind == "depth":
        raise VulkanError("a multisample texture cannot be a depth (SHADOW) texture here")
    if target == "2DMS":
        level = level[None]
    layers, samples, h, w = level.shape[:4]
    bits = {1: vk.VK_SAMPLE_COUNT_1_BIT, 2: vk.VK_SAMPLE_COUNT_2_BIT,
            4: vk.VK_SAMPLE_COUNT_4_BIT, 8: vk.VK_SAMPLE_COUNT_8_BIT}.get(samples)
    if bits is None:
        raise VulkanError(f"{samples} samples per texel: Vulkan takes 1, 2, 4 or 8 here")
    color = vk.VK_IMAGE_ASPECT_COLOR_BIT

    # the source: a one-sample 2D array, a layer per (layer, sample)
    n = layers * samples
    src_fmt = fmt if src_fmt is None else src_fmt
    src = r.image(src_fmt, vk.VK_IMAGE_TYPE_2D, (w, h, 1), n, 1,
                  vk.VK_IMAGE_USAGE_SAMPLED_BIT | vk.VK_IMAGE_USAGE_TRANSFER_DST_BIT)
    data = np.ascontiguousarray(level.reshape(n, h, w, 4)).tobytes()
    staging, _ = r.buffer(vk.VK_BUFFER_USAGE_TRANSFER_SRC_BIT, data)
    r.barrier(src, color, vk.VK_IMAGE_LAYOUT_UNDEFINED, vk.VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
              0, vk.VK_ACCESS_TRANSFER_WRITE_BIT, vk.VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT,
              vk.VK_PIPELINE_STAGE_TRANSFER_BIT, 1, n)
    vk.vkCmdCopyBufferToImage(cb, staging, src, vk.VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, [
        vk.VkBufferImageCopy(
            bufferOffset=0, bufferRowLength=0, bufferImageHeight=0,
            imageSubresource=vk.VkImageSubresourceLayers(
                aspectMask=color, mipLevel=0, baseArrayLayer=0, layerCount=n),
            imageOffset=vk.VkOffset3D(x=0, y=0, z=0),
            imageExtent=vk.VkExtent3D(width=w, height=h, depth=1))])
    r.barrier(src, color, vk.VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
              vk.VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, vk.VK_ACCESS_TRANSFER_WRITE_BIT,
              vk.VK_ACCESS_SHADER_READ_BIT, vk.VK_PIPELINE_STAGE_TRANSFER_BIT,
              vk.VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT, 1, n)
    src_view = r.view(src, vk.VK_IMAGE_VIEW_TYPE_2D_ARRAY, src_fmt, color, 0, 1, n)

    # the multisample image
    img = r.own(vk.vkDestroyImage, vk.vkCreateImage(d, vk.VkImageCreateInfo(
        sType=vk.VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, imageType=vk.VK_IMAGE_TYPE_2D, format=fmt,
        extent=vk.VkExtent3D(width=w, height=h, depth=1), mipLevels=1, arrayLayers=layers,
        samples=bits, tiling=vk.VK_IMAGE_TILING_OPTIMAL,
        usage=vk.VK_IMAGE_USAGE_SAMPLED_BIT | vk.VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT
        | (vk.VK_IMAGE_USAGE_STORAGE_BIT if storage else 0),
        sharingMode=vk.VK_SHARING_MODE_EXCLUSIVE,
        initialLayout=vk.VK_IMAGE_LAYOUT_UNDEFINED), None))
    mem = r._memory(vk.vkGetImageMemoryRequirements(d, img), False)
    vk.vkBindImageMemory(d, img, mem, 0)

    # the fill pipeline: one combined image sampler, a push constant, per-sample shading
    nearest = r.own(vk.vkDestroySampler, vk.vkCreateSampler(d, vk.VkSamplerCreateInfo(
        sType=vk.VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO, magFilter=vk.VK_FILTER_NEAREST,
        minFilter=vk.VK_FILTER_NEAREST, mipmapMode=vk.VK_SAMPLER_MIPMAP_MODE_NEAREST,
        addressModeU=vk.VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
        addressModeV=vk.VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
        addressModeW=vk.VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE, mipLodBias=0.0,
        anisotropyEnable=vk.VK_FALSE, compareEnable=vk.VK_FALSE,
        compareOp=vk.VK_COMPARE_OP_NEVER, minLod=0.0, maxLod=0.0,
        borderColor=vk.VK_BORDER_COLOR_FLOAT_TRANSPARENT_BLACK,
        unnormalizedCoordinates=vk.VK_FALSE), None))
    dsl = r.own(vk.vkDestroyDescriptorSetLayout, vk.vkCreateDescriptorSetLayout(
        d, vk.VkDescriptorSetLayoutCreateInfo(
            sType=vk.VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, bindingCount=1,
            pBindings=[vk.VkDescriptorSetLayoutBinding(
                binding=0, descriptorType=vk.VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
                descriptorCount=1, stageFlags=vk.VK_SHADER_STAGE_FRAGMENT_BIT)]), None))
    layout = r.own(vk.vkDestroyPipelineLayout, vk.vkCreatePipelineLayout(
        d, vk.VkPipelineLayoutCreateInfo(
            sType=vk.VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, setLayoutCount=1,
            pSetLayouts=[dsl], pushConstantRangeCount=1, pPushConstantRanges=[
                vk.VkPushConstantRange(stageFlags=vk.VK_SHADER_STAGE_FRAGMENT_BIT, offset=0,
                                       size=4)]), None))
    pool = r.own(vk.vkDestroyDescriptorPool, vk.vkCreateDescriptorPool(
        d, vk.VkDescriptorPoolCreateInfo(
            sType=vk.VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO, maxSets=1, poolSizeCount=1,
            pPoolSizes=[vk.VkDescriptorPoolSize(
                type=vk.VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, descriptorCount=1)]), None))
    ds = vk.vkAllocateDescriptorSets(d, vk.VkDescriptorSetAllocateInfo(
        sType=vk.VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO, descriptorPool=pool,
        descriptorSetCount=1, pSetLayouts=[dsl]))[0]
    vk.vkUpdateDescriptorSets(d, 1, [vk.VkWriteDescriptorSet(
        sType=vk.VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, dstSet=ds, dstBinding=0,
        dstArrayElement=0, descriptorCount=1,
        descriptorType=vk.VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
        pImageInfo=[vk.VkDescriptorImageInfo(
            sampler=nearest, imageView=src_view,
            imageLayout=vk.VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL)])], 0, None)
    att = vk.VkAttachmentDescription(
        format=fmt, samples=bits, loadOp=vk.VK_ATTACHMENT_LOAD_OP_DONT_CARE,
        storeOp=vk.VK_ATTACHMENT_STORE_OP_STORE,
        stencilLoadOp=vk.VK_ATTACHMENT_LOAD_OP_DONT_CARE,
        stencilStoreOp=vk.VK_ATTACHMENT_STORE_OP_DONT_CARE,
        initialLayout=vk.VK_IMAGE_LAYOUT_UNDEFINED,
        finalLayout=vk.VK_IMAGE_LAYOUT_GENERAL if storage
        else vk.VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL)
    sub = vk.VkSubpassDescription(
        pipelineBindPoint=vk.VK_PIPELINE_BIND_POINT_GRAPHICS, colorAttachmentCount=1,
        pColorAttachments=[vk.VkAttachmentReference(
            attachment=0, layout=vk.VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL)])
    dep = vk.VkSubpassDependency(
        srcSubpass=0, dstSubpass=vk.VK_SUBPASS_EXTERNAL,
        srcStageMask=vk.VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
        dstStageMask=r.reading_stage,
        srcAccessMask=vk.VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
        dstAccessMask=vk.VK_ACCESS_SHADER_READ_BIT | (vk.VK_ACCESS_SHADER_WRITE_BIT if storage
                                                        else 0))
    rp = r.own(vk.vkDestroyRenderPass, vk.vkCreateRenderPass(d, vk.VkRenderPassCreateInfo(
        sType=vk.VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO, attachmentCount=1,
        pAttachments=[att], subpassCount=1, pSubpasses=[sub], dependencyCount=1,
        pDependencies=[dep]), None))
    stages = [vk.VkPipelineShaderStageCreateInfo(
        sType=vk.VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, stage=flag,
        module=r.shader(text, name), pName="main")
        for flag, text, name in ((vk.VK_SHADER_STAGE_VERTEX_BIT, _VS, "vert"),
                                 (vk.VK_SHADER_STAGE_FRAGMENT_BIT, _fs(kind), "frag"))]
    info = vk.VkGraphicsPipelineCreateInfo(
        sType=vk.VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO, stageCount=2, pStages=stages,
        pVertexInputState=vk.VkPipelineVertexInputStateCreateInfo(
            sType=vk.VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO),
        pInputAssemblyState=vk.VkPipelineInputAssemblyStateCreateInfo(
            sType=vk.VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO,
            topology=vk.VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, primitiveRestartEnable=vk.VK_FALSE),
        pViewportState=vk.VkPipelineViewportStateCreateInfo(
            sType=vk.VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO, viewportCount=1,
            pViewports=[vk.VkViewport(x=0.0, y=0.0, width=float(w), height=float(h),
                                      minDepth=0.0, maxDepth=1.0)],
            scissorCount=1, pScissors=[vk.VkRect2D(offset=vk.VkOffset2D(x=0, y=0),
                                                   extent=vk.VkExtent2D(width=w, height=h))]),
        pRasterizationState=vk.VkPipelineRasterizationStateCreateInfo(
            sType=vk.VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO,
            depthClampEnable=vk.VK_FALSE, rasterizerDiscardEnable=vk.VK_FALSE,
            polygonMode=vk.VK_POLYGON_MODE_FILL, cullMode=vk.VK_CULL_MODE_NONE,
            frontFace=vk.VK_FRONT_FACE_CLOCKWISE, depthBiasEnable=vk.VK_FALSE, lineWidth=1.0),
        pMultisampleState=vk.VkPipelineMultisampleStateCreateInfo(
            sType=vk.VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO,
            rasterizationSamples=bits, sampleShadingEnable=vk.VK_TRUE, minSampleShading=1.0),
        pColorBlendState=vk.VkPipelineColorBlendStateCreateInfo(
            sType=vk.VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO,
            attachmentCount=1, pAttachments=[vk.VkPipelineColorBlendAttachmentState(
                blendEnable=vk.VK_FALSE, colorWriteMask=0xF)]),
        layout=layout, renderPass=rp, subpass=0)
    try:
        pipe = vk.vkCreateGraphicsPipelines(d, vk.VK_NULL_HANDLE, 1, [info], None)[0]
    except vk.VkError as e:
        raise VulkanError(f"the multisample fill pipeline: vkCreateGraphicsPipelines failed: "
                          f"{type(e).__name__}") from None
    r.own(vk.vkDestroyPipeline, pipe)
    for layer in range(layers):
        view = r.own(vk.vkDestroyImageView, vk.vkCreateImageView(d, vk.VkImageViewCreateInfo(
            sType=vk.VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO, image=img,
            viewType=vk.VK_IMAGE_VIEW_TYPE_2D, format=fmt, components=vk.VkComponentMapping(
                r=vk.VK_COMPONENT_SWIZZLE_IDENTITY, g=vk.VK_COMPONENT_SWIZZLE_IDENTITY,
                b=vk.VK_COMPONENT_SWIZZLE_IDENTITY, a=vk.VK_COMPONENT_SWIZZLE_IDENTITY),
            subresourceRange=vk.VkImageSubresourceRange(
                aspectMask=color, baseMipLevel=0, levelCount=1, baseArrayLayer=layer,
                layerCount=1)), None))
        fb = r.own(vk.vkDestroyFramebuffer, vk.vkCreateFramebuffer(d, vk.VkFramebufferCreateInfo(
            sType=vk.VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO, renderPass=rp, attachmentCount=1,
            pAttachments=[view], width=w, height=h, layers=1), None))
        r.begin_draw(rp, fb, (w, h), pipe, layout, ds)
        first = np.array([layer * samples], np.int32).tobytes()
        vk.vkCmdPushConstants(cb, layout, vk.VK_SHADER_STAGE_FRAGMENT_BIT, 0, 4,
                              r.vk.ffi.new("char[]", first))
        vk.vkCmdDraw(cb, 3, 1, 0, 0)
        vk.vkCmdEndRenderPass(cb)

    # what the program samples: the whole image, its own sampler (no state reaches a fetch)
    vtype = vk.VK_IMAGE_VIEW_TYPE_2D if target == "2DMS" else vk.VK_IMAGE_VIEW_TYPE_2D_ARRAY
    view = r.view(img, vtype, fmt, color, 0, 1, layers)
    if storage:
        r._binding(binding, vk.VK_DESCRIPTOR_TYPE_STORAGE_IMAGE)
        r.writes.append((binding, vk.VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, {"pImageInfo": [
            vk.VkDescriptorImageInfo(sampler=vk.VK_NULL_HANDLE, imageView=view,
                                     imageLayout=vk.VK_IMAGE_LAYOUT_GENERAL)]}))
        return img, view
    r._binding(binding, vk.VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER)
    r.writes.append((binding, vk.VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
                     {"pImageInfo": [vk.VkDescriptorImageInfo(
                         sampler=nearest, imageView=view,
                         imageLayout=vk.VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL)]}))


def read_multisample(r, view, array: bool, glsl_format: str, kind: str, shape,
                     error: type[Exception]):
    """Record, after the program's dispatch, a compute dispatch that copies every sample of
    the multisample storage image ``view`` (GENERAL layout) into a host-visible buffer:
    texel ``(layer * samples + sample, y, x)`` of ``shape`` (exec/images.py), the words an
    image load returns (``imageLoad`` in the format ``glsl_format``, a GLSL layout qualifier);
    returns the buffer's mapping, to read after the run's barrier to the host."""
    vk, d, cb = r.vk, r.d, r.cb
    n, h, w = shape[:3]
    src = readback_shader(kind, array, h, w, (
        f"layout(set = 0, binding = 0, {glsl_format}) readonly uniform "
        f"{multisample_type(kind, array, image=True)} src;\n"
        "layout(std430, set = 0, binding = 1) buffer XlateTexels { uvec4 texels[]; };\n"),
        "imageLoad")
    size = int(np.prod(shape)) * 4
    buf, mapped = r.buffer(vk.VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, size=size)
    kinds = (vk.VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, vk.VK_DESCRIPTOR_TYPE_STORAGE_BUFFER)
    dsl = r.own(vk.vkDestroyDescriptorSetLayout, vk.vkCreateDescriptorSetLayout(
        d, vk.VkDescriptorSetLayoutCreateInfo(
            sType=vk.VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, bindingCount=2,
            pBindings=[vk.VkDescriptorSetLayoutBinding(
                binding=b, descriptorType=t, descriptorCount=1,
                stageFlags=vk.VK_SHADER_STAGE_COMPUTE_BIT) for b, t in enumerate(kinds)]),
        None))
    layout = r.own(vk.vkDestroyPipelineLayout, vk.vkCreatePipelineLayout(
        d, vk.VkPipelineLayoutCreateInfo(
            sType=vk.VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, setLayoutCount=1,
            pSetLayouts=[dsl]), None))
    pool = r.own(vk.vkDestroyDescriptorPool, vk.vkCreateDescriptorPool(
        d, vk.VkDescriptorPoolCreateInfo(
            sType=vk.VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO, maxSets=1, poolSizeCount=2,
            pPoolSizes=[vk.VkDescriptorPoolSize(type=t, descriptorCount=1) for t in kinds]),
        None))
    ds = vk.vkAllocateDescriptorSets(d, vk.VkDescriptorSetAllocateInfo(
        sType=vk.VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO, descriptorPool=pool,
        descriptorSetCount=1, pSetLayouts=[dsl]))[0]
    vk.vkUpdateDescriptorSets(d, 2, [
        vk.VkWriteDescriptorSet(
            sType=vk.VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, dstSet=ds, dstBinding=0,
            dstArrayElement=0, descriptorCount=1, descriptorType=kinds[0],
            pImageInfo=[vk.VkDescriptorImageInfo(sampler=vk.VK_NULL_HANDLE, imageView=view,
                                                 imageLayout=vk.VK_IMAGE_LAYOUT_GENERAL)]),
        vk.VkWriteDescriptorSet(
            sType=vk.VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, dstSet=ds, dstBinding=1,
            dstArrayElement=0, descriptorCount=1, descriptorType=kinds[1],
            pBufferInfo=[vk.VkDescriptorBufferInfo(buffer=buf, offset=0, range=size)])],
        0, None)
    stage = vk.VkPipelineShaderStageCreateInfo(
        sType=vk.VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
        stage=vk.VK_SHADER_STAGE_COMPUTE_BIT, module=r.shader(src, "comp"), pName="main")
    try:
        pipe = vk.vkCreateComputePipelines(d, vk.VK_NULL_HANDLE, 1, [
            vk.VkComputePipelineCreateInfo(
                sType=vk.VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO, stage=stage,
                layout=layout)], None)[0]
    except vk.VkError as e:
        raise error(f"the multisample read-back pipeline: vkCreateComputePipelines failed: "
                    f"{type(e).__name__}") from None
    r.own(vk.vkDestroyPipeline, pipe)
    vk.vkCmdPipelineBarrier(
        cb, vk.VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, vk.VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0,
        1, [vk.VkMemoryBarrier(sType=vk.VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                               srcAccessMask=vk.VK_ACCESS_SHADER_WRITE_BIT,
                               dstAccessMask=vk.VK_ACCESS_SHADER_READ_BIT)], 0, None, 0, None)
    vk.vkCmdBindPipeline(cb, vk.VK_PIPELINE_BIND_POINT_COMPUTE, pipe)
    vk.vkCmdBindDescriptorSets(cb, vk.VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, [ds], 0,
                               None)
    vk.vkCmdDispatch(cb, w, h, n)
    return mapped, size
