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
from .multisample_shaders import (PREFIX, fill_fragment_shader, fill_vertex_shader,
                                  multisample_type, readback_shader)

_FILL_VS = fill_vertex_shader("gl_VertexID")


def _fill_fs(kind: str, unit: int) -> str:
    return fill_fragment_shader(kind, f"layout(binding = {unit}) uniform {PREFIX[kind]}"
                                "sampler2DArray src;\nlayout(location = 0) uniform int first;\n",
                                "first")


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

    prog = runner.program([(G.GL_VERTEX_SHADER, _FILL_VS),
                           (G.GL_FRAGMENT_SHADER, _fill_fs(kind, unit))])
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


#: GL_MAX_IMAGE_SAMPLES (GL 4.6 table 23.64: may be 0 -- multisample images are optional)
GL_MAX_IMAGE_SAMPLES = 0x906D
#: the storage-buffer binding the read-back dispatch writes (after the program's dispatch)
_READ_BINDING = 0


class ImageLimit(RuntimeError):
    """The implementation lacks what an image needs (the verdict is ``unsupported``)."""


def multisample_image(runner, r, texels: np.ndarray, unit: int, image_unit: int,
                      internal: int):
    """A multisample storage image (TGSI 2D_MSAA / 2D_ARRAY_MSAA; exec/images.py): a
    multisample texture of ``internal`` format filled by :func:`upload_multisample` from the
    executor's texels ``(layers * samples, h, w, 4)`` (the format's load words), bound at image
    unit ``image_unit``; returns the function reading it back after the dispatch.  GL has no
    read-back of a multisample texture either: a compute dispatch ``texelFetch``es each sample
    (the format's value, as an image load returns it) into a storage buffer.  ImageLimit where
    GL_MAX_IMAGE_SAMPLES is below the executor's sample count."""
    from ..exec.images import IMAGE_SAMPLES
    from ..ir.image_formats import image_format
    gl = runner.gl
    most = C.c_int()
    gl.GetIntegerv(GL_MAX_IMAGE_SAMPLES, C.byref(most))
    if most.value < IMAGE_SAMPLES:
        raise ImageLimit(f"IMAGE[{r.binding}] is a {IMAGE_SAMPLES}-sample image: this GL's "
                         f"GL_MAX_IMAGE_SAMPLES is {most.value}")
    fmt = image_format(r.format)
    kind = {"uint": "u", "sint": "i"}.get(fmt.integer if fmt is not None else None, "f")
    pformat = G.GL_RGBA_INTEGER if kind != "f" else G.GL_RGBA
    ptype = {"u": G.GL_UNSIGNED_INT, "i": G.GL_INT, "f": G.GL_FLOAT}[kind]
    n, h, w = texels.shape[:3]
    level = np.ascontiguousarray(texels).view({"u": np.uint32, "i": np.int32,
                                              "f": np.float32}[kind])
    level = level.reshape(n // IMAGE_SAMPLES, IMAGE_SAMPLES, h, w, 4)
    target = "ARRAY2DMS" if r.target == "ARRAY2DMS" else "2DMS"
    name = gl.gen(gl.GenTextures)
    runner._objects.append(("texture", name))
    upload_multisample(runner, unit, name, target, level if target == "ARRAY2DMS" else level[0],
                       kind, (internal, pformat, ptype))
    gl.BindImageTexture(image_unit, name, 0, int(target == "ARRAY2DMS"), 0, G.GL_READ_WRITE,
                        internal)
    gl.check(f"binding image {r.binding}")
    return lambda: _read_multisample(runner, r, name, unit, kind, texels.shape)


def _read_multisample(runner, r, name: int, unit: int, kind: str, shape) -> np.ndarray:
    gl = runner.gl
    n, h, w = shape[:3]
    array = r.target == "ARRAY2DMS"
    src = readback_shader(kind, array, h, w, (
        f"layout(binding = {unit}) uniform {multisample_type(kind, array, image=False)} src;\n"
        f"layout(std430, binding = {_READ_BINDING}) buffer XlateTexels "
        "{ uvec4 texels[]; };\n"), "texelFetch")
    prog = runner.program([(G.GL_COMPUTE_SHADER, src)])
    runner._objects.append(("program", prog))
    size = int(np.prod(shape)) * 4
    buf = runner._buffer(G.GL_SHADER_STORAGE_BUFFER, None, size)
    gl.BindBufferBase(G.GL_SHADER_STORAGE_BUFFER, _READ_BINDING, buf)
    gl.ActiveTexture(G.GL_TEXTURE0 + unit)
    gl.BindTexture(G.GL_TEXTURE_2D_MULTISAMPLE_ARRAY if array else G.GL_TEXTURE_2D_MULTISAMPLE,
                   name)
    gl.UseProgram(prog)
    gl.MemoryBarrier(G.GL_ALL_BARRIER_BITS)
    gl.DispatchCompute(w, h, n)
    gl.MemoryBarrier(G.GL_ALL_BARRIER_BITS)
    gl.Finish()
    gl.check(f"reading multisample image {r.binding}")
    raw = runner._read_buffer(G.GL_SHADER_STORAGE_BUFFER, buf, size)
    return np.frombuffer(raw, np.uint32).reshape(shape).copy()
