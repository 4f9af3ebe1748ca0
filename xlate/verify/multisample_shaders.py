"""The GLSL of the harness's multisample images, one text for both APIs: the draw that fills
each sample of a multisample image from a layered texture (sample s of texel (x, y) is layer
``first + s``: :func:`fill_vertex_shader`, :func:`fill_fragment_shader`) and the dispatch that
reads every sample back into a buffer of uvec4 words (:func:`readback_shader`).  Only how a
resource is declared, and which built-in numbers the vertex, differs between GL
(:mod:`gl_multisample`) and Vulkan (:mod:`vulkan_multisample`)."""
from __future__ import annotations

from ..exec.images import IMAGE_SAMPLES

#: GLSL type prefix of a texel kind ("f" float, "i" signed, "u" unsigned integer)
PREFIX = {"f": "", "i": "i", "u": "u"}
#: the texel as the words an image load returns
_WORDS = {"f": "floatBitsToUint(t)", "i": "uvec4(t)", "u": "t"}


def fill_vertex_shader(vertex_index: str) -> str:
    """One triangle covering the viewport; ``vertex_index``: ``gl_VertexID`` (GL) or
    ``gl_VertexIndex`` (Vulkan)."""
    return ("#version 450\nvoid main()\n{\n"
            f"    vec2 p = vec2(float(({vertex_index} & 1) * 4 - 1), "
            f"float(({vertex_index} >> 1) * 4 - 1));\n"
            "    gl_Position = vec4(p, 0.0, 1.0);\n}\n")


def fill_fragment_shader(kind: str, declarations: str, first: str) -> str:
    """Write sample ``gl_SampleID`` of the pixel from layer ``first + gl_SampleID`` of the
    layered texture ``src``.  ``declarations``: ``src`` (a ``<prefix>sampler2DArray``) and
    whatever ``first`` reads."""
    prefix = PREFIX[kind]
    return (f"#version 450\n{declarations}"
            f"layout(location = 0) out {prefix}vec4 o;\nvoid main()\n{{\n"
            f"    o = texelFetch(src, ivec3(ivec2(gl_FragCoord.xy), {first} + gl_SampleID), 0);"
            "\n}\n")


def readback_shader(kind: str, array: bool, height: int, width: int, declarations: str,
                    load: str) -> str:
    """One invocation per word of the executor's layout, texel ``(layer * samples + sample,
    y, x)`` (exec/images.py), stored to ``texels[]``.  ``declarations``: the multisample
    source and the ``XlateTexels { uvec4 texels[]; }`` buffer; ``load``: ``texelFetch``
    (a sampler) or ``imageLoad`` (a storage image) of the source named ``src``."""
    prefix = PREFIX[kind]
    where = "ivec3(g.xy, g.z / S)" if array else "g.xy"
    return (f"#version 450\nlayout(local_size_x = 1) in;\nconst int S = {IMAGE_SAMPLES};\n"
            f"{declarations}void main()\n{{\n    ivec3 g = ivec3(gl_GlobalInvocationID);\n"
            f"    {prefix}vec4 t = {load}(src, {where}, g.z % S);\n"
            f"    texels[(g.z * {height} + g.y) * {width} + g.x] = {_WORDS[kind]};\n}}\n")


def multisample_type(kind: str, array: bool, image: bool) -> str:
    """``[iu]sampler2DMS[Array]`` or ``[iu]image2DMS[Array]``."""
    return f"{PREFIX[kind]}{'image' if image else 'sampler'}2DMS{'Array' if array else ''}"
