"""The Vulkan harness's framebuffer for TGSI FBFETCH (issue 20): the translation reads colour
attachment n through a subpass input (``layout(input_attachment_index = n) uniform
subpassInput``, descriptor binding ``interface.FRAMEBUFFER_BINDING + n``); the executor reads
the input ``fragment.framebuffer[n]``, which the generator fills like any input.  So the
harness loads those values into attachment n before the draw (each lane's pixel), keeps them
(load op LOAD, layout GENERAL: the attachment is colour and input attachment of the one
subpass, read at the fragment's own pixel only), and binds the attachment's view as the input
attachment descriptor.  Each pixel is drawn once, so every fragment reads the value from
before its invocation, which tgsi.rst's FBFETCH returns."""
from __future__ import annotations

import numpy as np


def framebuffer_inputs(reflection: dict, inputs: dict, lanes: int) -> dict[int, tuple[int, np.ndarray]]:
    """colour location n -> (descriptor binding, (lanes, 4) words) of the subpass inputs."""
    out = {}
    for inp in reflection["inputs"]:
        if inp["type"] != "subpassInput":
            continue
        n = int(inp["binding"].rsplit("[", 1)[1].rstrip("]"))
        words = inputs.get(inp["name"])
        if words is None:
            words = np.zeros((lanes, 4), np.uint32)
        out[n] = (inp["location"], np.asarray(words, np.uint32).reshape(lanes, 4))
    return out


def load_attachment(r, img, texels: np.ndarray, binding: int, view) -> None:
    """Record the copy of ``texels`` ((H, W, 4) words) into the colour attachment ``img``, its
    move to the GENERAL layout, and the input attachment descriptor of ``view``."""
    vk = r.vk
    h, w = texels.shape[:2]
    buf, _ = r.buffer(vk.VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                      np.ascontiguousarray(texels, np.uint32).tobytes())
    colour = vk.VK_IMAGE_ASPECT_COLOR_BIT
    r.barrier(img, colour, vk.VK_IMAGE_LAYOUT_UNDEFINED, vk.VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
              0, vk.VK_ACCESS_TRANSFER_WRITE_BIT, vk.VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT,
              vk.VK_PIPELINE_STAGE_TRANSFER_BIT, 1, 1)
    vk.vkCmdCopyBufferToImage(r.cb, buf, img, vk.VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, [
        vk.VkBufferImageCopy(
            bufferOffset=0, bufferRowLength=0, bufferImageHeight=0,
            imageSubresource=vk.VkImageSubresourceLayers(
                aspectMask=colour, mipLevel=0, baseArrayLayer=0, layerCount=1),
            imageOffset=vk.VkOffset3D(x=0, y=0, z=0),
            imageExtent=vk.VkExtent3D(width=w, height=h, depth=1))])
    r.barrier(img, colour, vk.VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, vk.VK_IMAGE_LAYOUT_GENERAL,
              vk.VK_ACCESS_TRANSFER_WRITE_BIT,
              vk.VK_ACCESS_INPUT_ATTACHMENT_READ_BIT | vk.VK_ACCESS_COLOR_ATTACHMENT_READ_BIT
              | vk.VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT, vk.VK_PIPELINE_STAGE_TRANSFER_BIT,
              vk.VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT
              | vk.VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, 1, 1)
    r.bindings.append(vk.VkDescriptorSetLayoutBinding(
        binding=binding, descriptorType=vk.VK_DESCRIPTOR_TYPE_INPUT_ATTACHMENT, descriptorCount=1,
        stageFlags=vk.VK_SHADER_STAGE_FRAGMENT_BIT))
    r.writes.append((binding, vk.VK_DESCRIPTOR_TYPE_INPUT_ATTACHMENT, {"pImageInfo": [
        vk.VkDescriptorImageInfo(sampler=None, imageView=view,
                                 imageLayout=vk.VK_IMAGE_LAYOUT_GENERAL)]}))
