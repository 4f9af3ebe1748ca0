"""Multisample textures for the GL harness (issue 20: TGSI 2D_MSAA / 2D_ARRAY_MSAA).

The GL has no upload for a multisample image: its samples are rendered.  The texels of an
:class:`xlate.exec.Texture` (``(samples, h, w, C)`` or ``(layers, samples, h, w, C)``) go into
a 2D array texture of ``layers * samples`` layers, and a full-screen draw into each layer of
the multisample texture writes, per sample (the fragment shader reads ``gl_SampleID``, which
makes it run once per sample, GL 4.5 §14.3.1.1), the texel of that sample:
``texelFetch(src, ivec3(gl_FragCoord.xy, layer * samples + gl_SampleID), 0)``.  Every sample
of every texel is covered and written once with its own value, so a later ``texelFetch`` of
the multisample texture reads exactly what the executor reads.  The GL state the draw changes
(framebuffer, vertex array, program, viewport, rasterizer discard) is restored."""
from __future__ import annotations

import ctypes as C

import numpy as np

from . import glapi as G

_FILL_VS = ("#version 450 core\nvoid main()\n{\n"
            "    vec2 p = vec2(float((gl_VertexID & 1) * 4 - 1), "
            "float((gl_VertexID >> 1) * 4 - 1));\n    gl_Position = vec4(p, 0.0, 1.0);\n}\n")


def _fill_fs(prefix: str, unit: int) -> str:
    return (f"#version 450 core\nlayout(binding = {unit}) uniform {prefix}sampler2DArray src;\n"
            f"layout(location = 0) uniform int first;\n"
            f"layout(location = 0) out {prefix}vec4 o;\nvoid main()\n{{\n"
            f"    o = texelFetch(src, ivec3(ivec2(gl_FragCoord.xy), first + gl_SampleID), 0);"
            f"\n}}\n")


def upload_multisample(runner, unit: int, name: int, target: str, level: np.ndarray,
                       kind: str, formats: tuple[int, int, int]) -> None:
    """Fill the multisample texture ``name`` (generated, not yet bound) of ``target`` (2DMS
    or ARRAY2DMS) bound to texture unit ``unit`` from ``level`` (4 components, as
    ``gl.texel_arrays`` makes them).  ``formats``: (internal format, format, type)."""
    gl = runner.gl
    ifmt, fmt, typ = formats
    if kind == "depth":
        raise G.GLError("a multisample texture cannot be a depth (SHADOW) texture here")
    if target == "2DMS":
        level = level[None]
    layers, samples, h, w = level.shape[:4]
    gt = G.GL_TEXTURE_2D_MULTISAMPLE if target == "2DMS" else G.GL_TEXTURE_2D_MULTISAMPLE_ARRAY
    saved = {}
    for key, what in (("fbo", G.GL_FRAMEBUFFER_BINDING), ("vao", G.GL_VERTEX_ARRAY_BINDING),
                      ("prog", G.GL_CURRENT_PROGRAM)):
        v = C.c_int()
        gl.GetIntegerv(what, C.byref(v))
        saved[key] = v.value
    vp = (C.c_int * 4)()
    gl.GetIntegerv(G.GL_VIEWPORT, vp)
    discard = bool(gl.IsEnabled(G.GL_RASTERIZER_DISCARD))

    # the source: one 2D array layer per (layer, sample)
    src = gl.gen(gl.GenTextures)
    runner._objects.append(("texture", src))
    gl.ActiveTexture(G.GL_TEXTURE0 + unit)
    gl.BindTexture(G.GL_TEXTURE_2D_ARRAY, src)
    data = np.ascontiguousarray(level.reshape(layers * samples, h, w, 4))
    gl.TexImage3D(G.GL_TEXTURE_2D_ARRAY, 0, ifmt, w, h, layers * samples, 0, fmt, typ,
                  data.ctypes.data_as(C.c_void_p))
    gl.TexParameteri(G.GL_TEXTURE_2D_ARRAY, G.GL_TEXTURE_MAX_LEVEL, 0)
    gl.TexParameteri(G.GL_TEXTURE_2D_ARRAY, G.GL_TEXTURE_MIN_FILTER, G.GL_NEAREST)
    gl.TexParameteri(G.GL_TEXTURE_2D_ARRAY, G.GL_TEXTURE_MAG_FILTER, G.GL_NEAREST)

    gl.BindTexture(gt, name)
    if target == "2DMS":
        gl.TexStorage2DMultisample(gt, samples, ifmt, w, h, 1)
    else:
        gl.TexStorage3DMultisample(gt, samples, ifmt, w, h, layers, 1)
    gl.check(f"texture unit {unit}: a {samples}-sample texture")

    prefix = {"f": "", "i": "i", "u": "u"}[kind]
    prog = runner.program([(G.GL_VERTEX_SHADER, _FILL_VS),
                           (G.GL_FRAGMENT_SHADER, _fill_fs(prefix, unit))])
    runner._objects.append(("program", prog))
    vao = gl.gen(gl.GenVertexArrays)
    runner._objects.append(("vao", vao))
    fbo = gl.gen(gl.GenFramebuffers)
    runner._objects.append(("fbo", fbo))
    gl.BindVertexArray(vao)
    gl.BindFramebuffer(G.GL_FRAMEBUFFER, fbo)
    gl.UseProgram(prog)
    gl.Disable(G.GL_RASTERIZER_DISCARD)
    gl.Viewport(0, 0, w, h)
    first = 0                                   # layout(location = 0)
    gl.DrawBuffers(1, (C.c_uint * 1)(G.GL_COLOR_ATTACHMENT0))
    for layer in range(layers):
        if target == "2DMS":
            gl.FramebufferTexture2D(G.GL_FRAMEBUFFER, G.GL_COLOR_ATTACHMENT0, gt, name, 0)
        else:
            gl.FramebufferTextureLayer(G.GL_FRAMEBUFFER, G.GL_COLOR_ATTACHMENT0, name, 0, layer)
        status = gl.CheckFramebufferStatus(G.GL_FRAMEBUFFER)
        if status != G.GL_FRAMEBUFFER_COMPLETE:
            raise G.GLError(f"texture unit {unit}: the {samples}-sample texture cannot be "
                            f"rendered to (framebuffer status 0x{status:x})")
        gl.ProgramUniform1i(prog, first, layer * samples)
        gl.DrawArrays(G.GL_TRIANGLES, 0, 3)
    gl.check(f"texture unit {unit}: filling the {samples}-sample texture")

    gl.BindFramebuffer(G.GL_FRAMEBUFFER, saved["fbo"])
    gl.BindVertexArray(saved["vao"])
    gl.UseProgram(saved["prog"])
    gl.Viewport(*vp)
    if discard:
        gl.Enable(G.GL_RASTERIZER_DISCARD)
    gl.BindTexture(G.GL_TEXTURE_2D_ARRAY, 0)
    gl.BindTexture(gt, name)
