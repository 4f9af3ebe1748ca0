"""Run a translated shader on OpenGL (Mesa llvmpipe through EGL) and capture every output.

Backends: ``gl`` compiles the generated GLSL with the driver; ``gl-spirv`` compiles the *same*
GLSL text with glslang (``xlate.backends.spirv.compile_glsl(..., target="opengl")``) and loads
the module through ``GL_ARB_gl_spirv``.  A program object cannot mix GLSL and SPIR-V shaders,
so the harness's own helper shaders go the same way.  ``vulkan`` is :mod:`xlate.verify.vulkan`,
which makes the same edits (the functions below) to the vulkan-profile translation.

The harness's edits of the translation's GLSL text (the interface, so that every value can be
read back exactly) and the layouts of its draws are in :mod:`xlate.verify.capture`, shared with
:mod:`xlate.verify.vulkan`; this module is the GL runner.
"""
from __future__ import annotations

import ctypes as C

import numpy as np

from . import glapi as G
from .glapi import GLError, GLUnavailable
from .capture import (Capture, INPUT_VERTICES, TextureData, _Slot, add_capture,
                      completes_primitives, emits_vertices, fragment_capture, fragment_inputs,
                      fragment_outputs, group_primitives, make_precise, passthrough_vertex_shader,
                      plane_varyings, program_stage, quad_layout, split_capture, texel_arrays)
from .planes import vertex_shader as plane_vertex_shader

BACKENDS = ("gl", "gl-spirv", "vulkan", "native")


PRIM_IN = {"POINTS": G.GL_POINTS, "LINES": G.GL_LINES, "LINES_ADJACENCY": G.GL_LINES_ADJACENCY,
           "TRIANGLES": G.GL_TRIANGLES, "TRIANGLES_ADJACENCY": G.GL_TRIANGLES_ADJACENCY}
PRIM_OUT = {"POINTS": (G.GL_POINTS, 1), "LINE_STRIP": (G.GL_LINES, 2),
            "TRIANGLE_STRIP": (G.GL_TRIANGLES, 3)}
TEX_TARGETS = {"1D": G.GL_TEXTURE_1D, "2D": G.GL_TEXTURE_2D, "3D": G.GL_TEXTURE_3D,
               "CUBE": G.GL_TEXTURE_CUBE_MAP, "RECT": G.GL_TEXTURE_RECTANGLE,
               "ARRAY1D": G.GL_TEXTURE_1D_ARRAY, "ARRAY2D": G.GL_TEXTURE_2D_ARRAY,
               "BUFFER": G.GL_TEXTURE_BUFFER}


# ---- the runner --------------------------------------------------------------------------------

#: GL 4.0 shader kinds (gl_tess.py has them too; not in glapi's GL 3.3 table)
_GL_TESS_CONTROL_SHADER, _GL_TESS_EVALUATION_SHADER = 0x8E88, 0x8E87

class Runner:
    """One GL context, one backend (``gl`` or ``gl-spirv``).  ``vulkan`` is
    :class:`xlate.verify.vulkan.Runner`; :func:`xlate.verify.core.make_runner` picks either."""

    profile = "glsl450"         # the GLSL profile :meth:`run` expects the translation in
    _direct = None              # run(direct=...): the direct SPIR-V path's module maker

    def __init__(self, backend: str = "gl", *, precise: bool = False, profile: str = "glsl450"):
        """``precise``: run every shader through :func:`make_precise` first -- for property
        tests that check semantics apart from the known missing-``precise`` problem.
        ``profile``: the profile of the translations :meth:`run` gets (``glsl330`` and
        ``es310`` through :func:`xlate.verify.profile_runs.harness_text`)."""
        from .profile_runs import ADAPTED_PROFILES
        if profile != "glsl450" and profile not in ADAPTED_PROFILES:
            raise ValueError(f"the GL runner takes glsl450, {', '.join(ADAPTED_PROFILES)} "
                             f"translations, not {profile!r}")
        self.profile = profile
        self.precise = precise
        if backend == "vulkan":
            raise ValueError("backend 'vulkan' runs on xlate.verify.vulkan.Runner "
                             "(xlate.verify.core.make_runner picks the runner of a backend)")
        if backend not in ("gl", "gl-spirv"):
            raise ValueError(f"unknown backend {backend!r}")
        self.backend = backend
        self.gl = G.context("core")
        if backend == "gl-spirv" and "GL_ARB_gl_spirv" not in self.gl.extensions:
            raise GLUnavailable(f"{self.gl.describe()} has no GL_ARB_gl_spirv")
        self._objects: list[tuple] = []

    def describe(self) -> str:
        return f"{self.backend} on {self.gl.describe()}"

    # ---- programs --------------------------------------------------------------------------
    def shader(self, kind: int, src: str | bytes) -> int:
        gl = self.gl
        if isinstance(src, bytes):          # SPIR-V made elsewhere (the direct path)
            if self.backend != "gl-spirv":
                raise ValueError("SPIR-V modules run on the gl-spirv backend only")
            return gl.load_spirv(kind, src)
        if self.backend == "gl":
            return gl.compile_glsl(kind, src)
        from ..backends import spirv as sp
        stage = {G.GL_VERTEX_SHADER: "vert", G.GL_FRAGMENT_SHADER: "frag",
                 G.GL_GEOMETRY_SHADER: "geom", G.GL_COMPUTE_SHADER: "comp",
                 _GL_TESS_CONTROL_SHADER: "tesc", _GL_TESS_EVALUATION_SHADER: "tese"}[kind]
        try:
            words = sp.compile_glsl(src, stage, target="opengl")
        except sp.ToolchainUnavailable as e:
            raise GLUnavailable(str(e)) from None
        except sp.GlslCompileError as e:
            raise GLError(f"glslang rejected the shader: {e}") from None
        return gl.load_spirv(kind, words)

    def program(self, stages: list[tuple[int, str]]) -> int:
        shaders = []
        try:
            for kind, src in stages:
                shaders.append(self.shader(kind, src))
        except Exception:
            for sh in shaders:
                self.gl.DeleteShader(sh)
            raise
        return self.gl.link(shaders)

    # ---- resources ---------------------------------------------------------------------------
    def _buffer(self, target: int, data: bytes | None, size: int | None = None) -> int:
        gl = self.gl
        buf = gl.gen(gl.GenBuffers)
        self._objects.append(("buffer", buf))
        gl.BindBuffer(target, buf)
        n = len(data) if data is not None else size
        ptr = C.create_string_buffer(data, n) if data is not None else None
        gl.BufferData(target, max(n, 16), ptr, G.GL_STATIC_DRAW)
        return buf

    def _read_buffer(self, target: int, buf: int, size: int) -> bytes:
        gl = self.gl
        gl.BindBuffer(target, buf)
        out = C.create_string_buffer(size)
        gl.GetBufferSubData(target, 0, size, out)
        return out.raw

    def _cleanup(self) -> None:
        gl = self.gl
        for kind, obj in reversed(self._objects):
            if kind == "buffer":
                gl.delete(gl.DeleteBuffers, obj)
            elif kind == "texture":
                gl.delete(gl.DeleteTextures, obj)
            elif kind == "vao":
                gl.delete(gl.DeleteVertexArrays, obj)
            elif kind == "fbo":
                gl.delete(gl.DeleteFramebuffers, obj)
            elif kind == "program":
                gl.DeleteProgram(obj)
            elif kind == "query":
                gl.delete(gl.DeleteQueries, obj)
        self._objects.clear()
        gl.BindFramebuffer(G.GL_FRAMEBUFFER, 0)
        gl.BindVertexArray(0)
        gl.UseProgram(0)
        gl.Disable(G.GL_RASTERIZER_DISCARD)
        while gl.GetError() != G.GL_NO_ERROR:
            pass

    def _dummy_fbo(self) -> None:
        """Surfaceless contexts have no default framebuffer: bind a 1x1 FBO (toolchain §2.2)."""
        gl = self.gl
        if gl.fbo is None:
            tex = gl.gen(gl.GenTextures)
            gl.BindTexture(G.GL_TEXTURE_2D, tex)
            gl.TexImage2D(G.GL_TEXTURE_2D, 0, G.GL_RGBA32F, 1, 1, 0, G.GL_RGBA, G.GL_FLOAT, None)
            fbo = gl.gen(gl.GenFramebuffers)
            gl.BindFramebuffer(G.GL_FRAMEBUFFER, fbo)
            gl.FramebufferTexture2D(G.GL_FRAMEBUFFER, G.GL_COLOR_ATTACHMENT0, G.GL_TEXTURE_2D, tex, 0)
            gl.fbo = fbo
        gl.BindFramebuffer(G.GL_FRAMEBUFFER, gl.fbo)

    def _set_uniforms(self, prog: int, uniforms: list[tuple[int | str, np.ndarray]]) -> None:
        """Uniform values by location, or by name where the profile declares no locations
        (glsl330: the reflection's ``location`` is null)."""
        gl = self.gl
        gl.check("before setting uniforms")
        for loc, words in uniforms:
            if isinstance(loc, str):
                loc = gl.GetUniformLocation(prog, loc.encode())
            w = np.ascontiguousarray(words, np.uint32).reshape(-1, 4)
            gl.ProgramUniform4fv(prog, loc, w.shape[0], w.ctypes.data_as(C.c_void_p))
            # a uniform the driver found unused has no location: GL_INVALID_OPERATION, harmless
            while gl.GetError() != G.GL_NO_ERROR:
                pass

    def _bind_by_name(self, prog: int, reflection: dict) -> None:
        """glsl330 declares no ``binding``: the reflection's binding is the texture unit to
        give each sampler (glUniform1i) and the binding point of each uniform block
        (glUniformBlockBinding) -- done here as an engine must."""
        if self.profile != "glsl330":
            return
        gl = self.gl
        for t in reflection.get("textures", []):
            loc = gl.GetUniformLocation(prog, t["name"].encode())
            if loc >= 0:
                gl.ProgramUniform1i(prog, loc, t["binding"])
        for b in reflection.get("buffers", []):
            index = gl.GetUniformBlockIndex(prog, b["block"].encode())
            if index != 0xFFFFFFFF:             # GL_INVALID_INDEX: the block is unused
                gl.UniformBlockBinding(prog, index, b["binding"])
        gl.check("binding samplers and blocks by name")

    def _set_buffers(self, buffers: dict[int, np.ndarray]) -> None:
        for binding, words in buffers.items():
            w = np.ascontiguousarray(words, np.uint32)
            buf = self._buffer(G.GL_UNIFORM_BUFFER, w.tobytes())
            self.gl.BindBufferBase(G.GL_UNIFORM_BUFFER, binding, buf)

    def _texture(self, t: TextureData) -> None:
        gl = self.gl
        target = TEX_TARGETS[t.target.replace("SHADOW", "")]
        tex = gl.gen(gl.GenTextures)
        self._objects.append(("texture", tex))
        gl.ActiveTexture(G.GL_TEXTURE0 + t.unit)
        fmt, ext = {None: (G.GL_RGBA32F, G.GL_RGBA), "i": (G.GL_RGBA32I, G.GL_RGBA_INTEGER),
                    "u": (G.GL_RGBA32UI, G.GL_RGBA_INTEGER)}[t.integer]
        typ = {None: G.GL_FLOAT, "i": G.GL_INT, "u": G.GL_UNSIGNED_INT}[t.integer]
        if target == G.GL_TEXTURE_BUFFER:
            data = np.ascontiguousarray(t.levels[0], np.uint32)
            buf = self._buffer(G.GL_TEXTURE_BUFFER, data.tobytes())
            gl.BindTexture(target, tex)
            gl.TexBuffer(target, fmt, buf)
            return
        gl.BindTexture(target, tex)
        for lvl, data in enumerate(t.levels):
            d = np.ascontiguousarray(data).view(np.uint32)
            if target == G.GL_TEXTURE_1D:
                gl.TexImage1D(target, lvl, fmt, d.shape[0], 0, ext, typ, d.ctypes.data_as(C.c_void_p))
            elif target in (G.GL_TEXTURE_2D, G.GL_TEXTURE_RECTANGLE, G.GL_TEXTURE_1D_ARRAY):
                gl.TexImage2D(target, lvl, fmt, d.shape[1], d.shape[0], 0, ext, typ,
                              d.ctypes.data_as(C.c_void_p))
            elif target == G.GL_TEXTURE_CUBE_MAP:
                for face in range(6):
                    fd = np.ascontiguousarray(d[face])
                    gl.TexImage2D(G.GL_TEXTURE_CUBE_MAP_POSITIVE_X + face, lvl, fmt, fd.shape[1],
                                  fd.shape[0], 0, ext, typ, fd.ctypes.data_as(C.c_void_p))
            else:
                gl.TexImage3D(target, lvl, fmt, d.shape[2], d.shape[1], d.shape[0], 0, ext, typ,
                              d.ctypes.data_as(C.c_void_p))
        gl.TexParameteri(target, G.GL_TEXTURE_BASE_LEVEL, t.base_level)
        gl.TexParameteri(target, G.GL_TEXTURE_MAX_LEVEL, len(t.levels) - 1)
        gl.TexParameteri(target, G.GL_TEXTURE_MIN_FILTER, t.min_filter)
        gl.TexParameteri(target, G.GL_TEXTURE_MAG_FILTER, t.mag_filter)
        gl.TexParameteri(target, G.GL_TEXTURE_WRAP_S, t.wrap[0])
        gl.TexParameteri(target, G.GL_TEXTURE_WRAP_T, t.wrap[1])
        gl.TexParameteri(target, G.GL_TEXTURE_WRAP_R, t.wrap[2])
        gl.TexParameterfv(target, G.GL_TEXTURE_BORDER_COLOR, (C.c_float * 4)(*t.border))
        if t.lod_bias:
            gl.TexParameterf(target, G.GL_TEXTURE_LOD_BIAS, t.lod_bias)
        if t.compare is not None:
            gl.TexParameteri(target, G.GL_TEXTURE_COMPARE_MODE, G.GL_COMPARE_REF_TO_TEXTURE)
            gl.TexParameteri(target, G.GL_TEXTURE_COMPARE_FUNC, t.compare)

    def _exec_texture(self, unit: int, tex, shadow: bool) -> None:
        """Upload an :class:`xlate.exec.Texture` with the state of ``Texture.gl_state``."""
        gl = self.gl
        E = G.ENUMS
        st = tex.gl_state(shadow)
        target = str(tex.target).upper()
        gt = E[st["target"]]
        name = gl.gen(gl.GenTextures)
        self._objects.append(("texture", name))
        gl.ActiveTexture(G.GL_TEXTURE0 + unit)
        levels, kind = texel_arrays(tex.levels, shadow)
        ifmt, fmt, typ = {
            "depth": (G.GL_DEPTH_COMPONENT32F, G.GL_DEPTH_COMPONENT, G.GL_FLOAT),
            "f": (G.GL_RGBA32F, G.GL_RGBA, G.GL_FLOAT),
            "i": (G.GL_RGBA32I, G.GL_RGBA_INTEGER, G.GL_INT),
            "u": (G.GL_RGBA32UI, G.GL_RGBA_INTEGER, G.GL_UNSIGNED_INT)}[kind]

        keep = []
        if target in ("2DMS", "ARRAY2DMS"):     # rendered, not uploaded; no sampler state
            from .gl_multisample import upload_multisample
            upload_multisample(self, unit, name, target, levels[0], kind, (ifmt, fmt, typ))
            return
        if target == "BUFFER":
            data = levels[0]
            buf = self._buffer(G.GL_TEXTURE_BUFFER, data.tobytes())
            gl.BindTexture(gt, name)
            gl.TexBuffer(gt, ifmt, buf)
            return
        gl.BindTexture(gt, name)
        for lv, d in enumerate(levels):
            keep.append(d)
            ptr = d.ctypes.data_as(C.c_void_p)
            if target == "1D":
                gl.TexImage1D(gt, lv, ifmt, d.shape[0], 0, fmt, typ, ptr)
            elif target in ("2D", "RECT", "ARRAY1D"):
                gl.TexImage2D(gt, lv, ifmt, d.shape[1], d.shape[0], 0, fmt, typ, ptr)
            elif target in ("3D", "ARRAY2D", "ARRAYCUBE"):    # a cube array: 6 layer-faces a layer
                gl.TexImage3D(gt, lv, ifmt, d.shape[2], d.shape[1], d.shape[0], 0, fmt, typ, ptr)
            else:
                for face in range(6):
                    fd = np.ascontiguousarray(d[face])
                    keep.append(fd)
                    gl.TexImage2D(G.GL_TEXTURE_CUBE_MAP_POSITIVE_X + face, lv, ifmt, fd.shape[1],
                                  fd.shape[0], 0, fmt, typ, fd.ctypes.data_as(C.c_void_p))
        gl.TexParameteri(gt, G.GL_TEXTURE_MIN_FILTER, E[st["TEXTURE_MIN_FILTER"]])
        gl.TexParameteri(gt, G.GL_TEXTURE_MAG_FILTER, E[st["TEXTURE_MAG_FILTER"]])
        if target != "RECT":
            gl.TexParameteri(gt, G.GL_TEXTURE_WRAP_R, E[st["TEXTURE_WRAP_R"]])
        gl.TexParameteri(gt, G.GL_TEXTURE_WRAP_S, E[st["TEXTURE_WRAP_S"]])
        gl.TexParameteri(gt, G.GL_TEXTURE_WRAP_T, E[st["TEXTURE_WRAP_T"]])
        if kind in ("f", "depth"):
            gl.TexParameterfv(gt, G.GL_TEXTURE_BORDER_COLOR,
                              (C.c_float * 4)(*st["TEXTURE_BORDER_COLOR"]))
        elif kind == "i":
            gl.TexParameterIiv(gt, G.GL_TEXTURE_BORDER_COLOR,
                               (C.c_int * 4)(*[int(v) for v in st["TEXTURE_BORDER_COLOR"]]))
        else:
            gl.TexParameterIuiv(gt, G.GL_TEXTURE_BORDER_COLOR,
                                (C.c_uint * 4)(*[int(v) & 0xFFFFFFFF
                                                 for v in st["TEXTURE_BORDER_COLOR"]]))
        gl.TexParameteri(gt, G.GL_TEXTURE_COMPARE_MODE, E[st["TEXTURE_COMPARE_MODE"]])
        gl.TexParameteri(gt, G.GL_TEXTURE_COMPARE_FUNC, E[st["TEXTURE_COMPARE_FUNC"]])
        gl.check(f"texture unit {unit} image and filter state")
        if target != "RECT":
            # a rectangle texture has one level and no LOD (ARB_texture_rectangle): its LOD
            # state is left at the defaults, which NVIDIA's driver insists on (a LOD
            # parameter on it is GL_INVALID_OPERATION there; llvmpipe ignores it)
            gl.TexParameteri(gt, G.GL_TEXTURE_BASE_LEVEL, st["TEXTURE_BASE_LEVEL"])
            gl.TexParameteri(gt, G.GL_TEXTURE_MAX_LEVEL, st["TEXTURE_MAX_LEVEL"])
            gl.TexParameterf(gt, G.GL_TEXTURE_LOD_BIAS, st["TEXTURE_LOD_BIAS"])
            gl.TexParameterf(gt, G.GL_TEXTURE_MIN_LOD, st["TEXTURE_MIN_LOD"])
            gl.TexParameterf(gt, G.GL_TEXTURE_MAX_LOD, st["TEXTURE_MAX_LOD"])
        if target in ("CUBE", "ARRAYCUBE"):
            (gl.Enable if st["TEXTURE_CUBE_MAP_SEAMLESS"] else gl.Disable)(
                G.GL_TEXTURE_CUBE_MAP_SEAMLESS)
        gl.check(f"texture unit {unit} upload")

    def _textures(self, textures, shadow) -> None:
        for unit, tex in (textures or {}).items():
            self._exec_texture(unit, tex, unit in (shadow or ()))

    def _attrib(self, loc: int, words: np.ndarray, integer: bool) -> None:
        gl = self.gl
        w = np.ascontiguousarray(words, np.uint32).reshape(-1, 4)
        buf = self._buffer(G.GL_ARRAY_BUFFER, w.tobytes())
        gl.BindBuffer(G.GL_ARRAY_BUFFER, buf)
        gl.EnableVertexAttribArray(loc)
        if integer:
            gl.VertexAttribIPointer(loc, 4, G.GL_INT, 16, None)
        else:
            gl.VertexAttribPointer(loc, 4, G.GL_FLOAT, 0, 16, None)

    def _vao(self) -> None:
        gl = self.gl
        vao = gl.gen(gl.GenVertexArrays)
        self._objects.append(("vao", vao))
        gl.BindVertexArray(vao)

    # ---- stages ------------------------------------------------------------------------------
    def run(self, stage: str, glsl: str, reflection: dict, lanes: int, *,
            inputs: dict[str, np.ndarray], uniforms: list[tuple[int, np.ndarray]],
            buffers: dict[int, np.ndarray] | None = None, textures: dict | None = None,
            shadow: set[int] | None = None, direct=None, through_spirv: bool = False,
            planes: dict | None = None, compute=None, opaque_constants: bool = False
            ) -> Capture:
        """Run ``glsl`` (the translation) on ``lanes`` invocations.

        ``direct``: run the direct SPIR-V path's module of the program instead of glslang's
        compile of ``glsl`` (gl-spirv backend; :func:`program_stage`).  ``through_spirv``: on
        the ``gl`` backend, compile ``glsl`` with glslang and load the SPIR-V this once (the
        counterfactual of a defect of the driver's GLSL compiler; GLUnavailable without
        ``GL_ARB_gl_spirv``).  ``opaque_constants``: the GLSL with no float literal known at
        compile time (:func:`xlate.verify.opaque.opaque_literals`; the counterfactual of the
        compiler's folding of constants), applied to the text as given -- after a mutation
        harness's change -- and only to GLSL text in the glsl450 profile (GLError otherwise).

        ``inputs``: reflection input name -> words, (lanes, 4) ((lanes, V, 4) for geometry
        inputs); built-ins the harness provides need no entry.  ``uniforms``: (location,
        (n, 4) words).  ``buffers``: UBO binding -> words.  ``textures``: unit ->
        :class:`xlate.exec.Texture` the translated shader samples; ``shadow``: the units sampled
        through SHADOW targets (depth textures with comparison).  ``planes``: fragment input
        name -> (3, 4) coefficients of the inputs that are planes (:mod:`xlate.verify.planes`).
        ``stage`` "compute": a dispatch of ``compute`` (:class:`gl_compute.ComputeJob`;
        ``glsl`` may be SPIR-V bytes on gl-spirv), returning a
        :class:`gl_compute.ComputeCapture`; ``buffers`` are the parameters' blocks.
        """
        if opaque_constants:
            if direct is not None or not isinstance(glsl, str) or self.profile != "glsl450":
                raise GLError("no GLSL text of the glsl450 profile runs here: its constants "
                              "cannot be made opaque")
            from .opaque import opaque_literals
            glsl = opaque_literals(glsl)
        if through_spirv and self.backend == "gl":
            if "GL_ARB_gl_spirv" not in self.gl.extensions:
                raise GLUnavailable(f"{self.gl.describe()} has no GL_ARB_gl_spirv")
            self.backend = "gl-spirv"
            try:
                return self.run(stage, glsl, reflection, lanes, inputs=inputs,
                                uniforms=uniforms, buffers=buffers, textures=textures,
                                shadow=shadow, direct=direct, planes=planes, compute=compute)
            finally:
                self.backend = "gl"
        if stage == "compute":          # (not made precise: compute runs its translation as is)
            from .gl_compute import run_job
            return run_job(self, glsl, reflection, compute, uniforms, buffers or {}, textures,
                           shadow)
        self._tex = (textures or {}, shadow or set())
        self._planes = planes or {}
        if self.profile != "glsl450":
            from .profile_runs import harness_text
            glsl = harness_text(glsl, self.profile, reflection, precise=self.precise)
        self._direct = direct
        if self.precise:
            glsl = make_precise(glsl)
        self.gl.use()
        try:
            if stage == "vertex":
                return self._run_vertex(glsl, reflection, lanes, inputs, uniforms, buffers or {},
                                        None)
            if stage == "fragment":
                return self._run_fragment(glsl, reflection, lanes, inputs, uniforms,
                                          buffers or {}, None)
            if stage == "geometry":
                return self._run_geometry(glsl, reflection, lanes, inputs, uniforms,
                                          buffers or {}, None)
            if stage == "tess_evaluation":
                from .gl_tess import run_lanes      # lanes: the vertices of a first run
                return run_lanes(self, glsl, reflection, lanes, inputs, uniforms,
                                 buffers or {}, textures, shadow)
            if stage == "tess_control":
                from .gl_tcs import run_tcs_lanes   # lanes: the patches' invocations
                return run_tcs_lanes(self, glsl, reflection, lanes, inputs, uniforms,
                                     buffers or {}, textures, shadow)
            raise ValueError(stage)
        finally:
            self._cleanup()

    def _tf_read(self, bufs: list[int], strides: list[int], slots: list[_Slot],
                 count: int) -> dict[str, np.ndarray]:
        raw = [np.frombuffer(self._read_buffer(G.GL_TRANSFORM_FEEDBACK_BUFFER, b, count * st),
                             np.uint32).reshape(count, st // 4) for b, st in zip(bufs, strides)]
        return split_capture(raw, slots, count)

    def _run_vertex(self, glsl, reflection, lanes, inputs, uniforms, buffers, textures):
        gl = self.gl
        src, slots, strides = add_capture(glsl, reflection, "vertex")
        if not slots:                  # no outputs: nothing to capture (and no TF possible)
            return Capture(glsl=src)
        prog = self.program([(G.GL_VERTEX_SHADER, program_stage(self._direct, src, capture=slots,
                                                                strides=strides))])
        self._objects.append(("program", prog))
        self._dummy_fbo()
        self._vao()
        for inp in reflection["inputs"]:
            if inp["builtin"]:
                continue
            words = inputs[inp["name"]]
            self._attrib(inp["location"], words, inp["type"] != "vec4")
        self._set_uniforms(prog, uniforms)
        self._bind_by_name(prog, reflection)
        self._set_buffers(buffers)
        self._textures(*self._tex)
        bufs = []
        for b, st in enumerate(strides):
            buf = self._buffer(G.GL_TRANSFORM_FEEDBACK_BUFFER, None, lanes * st)
            gl.BindBufferBase(G.GL_TRANSFORM_FEEDBACK_BUFFER, b, buf)
            bufs.append(buf)
        gl.UseProgram(prog)
        gl.Enable(G.GL_RASTERIZER_DISCARD)
        gl.BeginTransformFeedback(G.GL_POINTS)
        gl.DrawArrays(G.GL_POINTS, 0, lanes)
        gl.EndTransformFeedback()
        gl.Disable(G.GL_RASTERIZER_DISCARD)
        gl.check("vertex draw")
        got = self._tf_read(bufs, strides, slots, lanes)
        return Capture(outputs=got, glsl=src)

    def _run_geometry(self, glsl, reflection, lanes, inputs, uniforms, buffers, textures):
        gl = self.gl
        geo = reflection["geometry"]
        nv = INPUT_VERTICES[geo["input_primitive"]]
        if not emits_vertices(glsl) or not completes_primitives(geo):
            # the program never emits a vertex (and a program without captured outputs cannot
            # begin transform feedback), or never completes a primitive: nothing to capture
            return Capture(primitives=[[] for _ in range(lanes)], glsl=glsl)
        src, slots, strides = add_capture(glsl, reflection, "geometry")
        vs, attribs = passthrough_vertex_shader(glsl, reflection)
        gs = program_stage(self._direct, src, capture=slots, strides=strides, geometry=geo)
        prog = self.program([(G.GL_VERTEX_SHADER, vs), (G.GL_GEOMETRY_SHADER, gs)])
        self._objects.append(("program", prog))
        self._dummy_fbo()
        self._vao()
        for loc, name, integer in attribs:
            words = np.asarray(inputs[name], np.uint32).reshape(lanes * nv, 4)
            self._attrib(loc, words, integer)
        self._set_uniforms(prog, uniforms)
        self._bind_by_name(prog, reflection)
        self._set_buffers(buffers)
        self._textures(*self._tex)
        mode, per = PRIM_OUT[geo["output_primitive"]]
        cap_vertices = lanes * max(geo["max_vertices"], 1) * per
        bufs = []
        for b, st in enumerate(strides):
            buf = self._buffer(G.GL_TRANSFORM_FEEDBACK_BUFFER, None, cap_vertices * st)
            gl.BindBufferBase(G.GL_TRANSFORM_FEEDBACK_BUFFER, b, buf)
            bufs.append(buf)
        q = gl.gen(gl.GenQueries)
        self._objects.append(("query", q))
        gl.UseProgram(prog)
        gl.check("geometry set-up")
        gl.Enable(G.GL_RASTERIZER_DISCARD)
        gl.BeginQuery(G.GL_TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN, q)
        gl.BeginTransformFeedback(mode)
        begun = gl.GetError()
        if begun == G.GL_INVALID_OPERATION:
            # Mesa's compiler removed every captured output write: a constant condition made
            # them unreachable (generated TGSI geometry seed 534: IF of a literal, then RET
            # before the EMIT), and glBeginTransformFeedback fails "no varyings to record"
            gl.EndQuery(G.GL_TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN)
            gl.Disable(G.GL_RASTERIZER_DISCARD)
            return self._geometry_without_outputs(geo, lanes, nv, src)
        if begun != G.GL_NO_ERROR:          # (read above: not left for the check below)
            raise GLError(f"geometry transform feedback: GL error 0x{begun:04x}")
        gl.DrawArrays(PRIM_IN[geo["input_primitive"]], 0, lanes * nv)
        gl.EndTransformFeedback()
        gl.EndQuery(G.GL_TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN)
        gl.Disable(G.GL_RASTERIZER_DISCARD)
        written = C.c_uint()
        gl.GetQueryObjectuiv(q, G.GL_QUERY_RESULT, C.byref(written))
        gl.check("geometry draw")
        count = written.value * per
        got = self._tf_read(bufs, strides, slots, count)
        return Capture(primitives=group_primitives(got, slots, written.value, per, lanes), glsl=src)

    def _geometry_without_outputs(self, geo, lanes, nv, src):
        """The draw of a geometry program with nothing to record: the primitives it emitted,
        counted (GL_PRIMITIVES_GENERATED), must be none -- then it emitted nothing on any
        lane; a primitive emitted without outputs is an error of the implementation."""
        gl = self.gl
        q = gl.gen(gl.GenQueries)           # (a query keeps the target it was first used for)
        self._objects.append(("query", q))
        gl.Enable(G.GL_RASTERIZER_DISCARD)
        gl.BeginQuery(G.GL_PRIMITIVES_GENERATED, q)
        gl.DrawArrays(PRIM_IN[geo["input_primitive"]], 0, lanes * nv)
        gl.EndQuery(G.GL_PRIMITIVES_GENERATED)
        gl.Disable(G.GL_RASTERIZER_DISCARD)
        generated = C.c_uint()
        gl.GetQueryObjectuiv(q, G.GL_QUERY_RESULT, C.byref(generated))
        gl.check("geometry draw")
        if generated.value:
            raise GLError(f"geometry draw: {generated.value} primitives emitted, but the linked "
                          "program has no outputs to record")
        return Capture(primitives=[[] for _ in range(lanes)], glsl=src)

    def _run_fragment(self, glsl, reflection, lanes, inputs, uniforms, buffers, textures):
        gl = self.gl
        src, feeds = fragment_inputs(glsl, keep=self._planes)
        src, outs, extra = fragment_outputs(src, reflection)
        x, y, W, H = quad_layout(lanes)
        vs = plane_vertex_shader("#version 450 core", "gl_VertexID",
                                 plane_varyings(src, self._planes), W, H)
        fs = program_stage(self._direct, src, feeds=feeds, extra=extra, glsl=glsl)
        prog = self.program([(G.GL_VERTEX_SHADER, vs), (G.GL_FRAGMENT_SHADER, fs)])
        self._objects.append(("program", prog))
        self._vao()
        # render targets
        fbo = gl.gen(gl.GenFramebuffers)
        self._objects.append(("fbo", fbo))
        gl.BindFramebuffer(G.GL_FRAMEBUFFER, fbo)
        targets = [(name, gtype, loc) for name, gtype, loc in outs] + [("xv_extra", "vec4", extra)]
        texs = {}
        for name, gtype, loc in targets:
            fmt, ext, typ = {"vec4": (G.GL_RGBA32F, G.GL_RGBA, G.GL_FLOAT),
                             "ivec4": (G.GL_RGBA32I, G.GL_RGBA_INTEGER, G.GL_INT),
                             "uvec4": (G.GL_RGBA32UI, G.GL_RGBA_INTEGER, G.GL_UNSIGNED_INT)}[gtype]
            tex = gl.gen(gl.GenTextures)
            self._objects.append(("texture", tex))
            gl.BindTexture(G.GL_TEXTURE_2D, tex)
            gl.TexImage2D(G.GL_TEXTURE_2D, 0, fmt, W, H, 0, ext, typ, None)
            gl.TexParameteri(G.GL_TEXTURE_2D, G.GL_TEXTURE_MIN_FILTER, G.GL_NEAREST)
            gl.TexParameteri(G.GL_TEXTURE_2D, G.GL_TEXTURE_MAG_FILTER, G.GL_NEAREST)
            gl.FramebufferTexture2D(G.GL_FRAMEBUFFER, G.GL_COLOR_ATTACHMENT0 + loc, G.GL_TEXTURE_2D,
                                    tex, 0)
            texs[name] = (tex, ext, typ)
        # input textures
        for name, gtype, unit in feeds:
            words = np.asarray(inputs[name], np.uint32).reshape(lanes, 4)
            img = np.zeros((H, W, 4), np.uint32)
            img[y, x] = words
            self._texture(TextureData(unit, "2D", [img], None if gtype == "vec4" else
                                      ("i" if gtype == "ivec4" else "u")))
        self._set_uniforms(prog, uniforms)
        self._bind_by_name(prog, reflection)
        self._set_buffers(buffers)
        self._textures(*self._tex)
        draw = [G.GL_NONE] * 8
        for _, _, loc in targets:
            draw[loc] = G.GL_COLOR_ATTACHMENT0 + loc
        n = max(loc for _, _, loc in targets) + 1
        gl.DrawBuffers(n, (C.c_uint * n)(*draw[:n]))
        status = gl.CheckFramebufferStatus(G.GL_FRAMEBUFFER)
        if status != G.GL_FRAMEBUFFER_COMPLETE:
            raise GLError(f"framebuffer incomplete (0x{status:x})")
        for name, gtype, loc in targets:
            if gtype == "vec4":
                gl.ClearBufferfv(G.GL_COLOR, loc, (C.c_float * 4)(0, 0, 0, 0))
            elif gtype == "ivec4":
                gl.ClearBufferiv(G.GL_COLOR, loc, (C.c_int * 4)(0, 0, 0, 0))
            else:
                gl.ClearBufferuiv(G.GL_COLOR, loc, (C.c_uint * 4)(0, 0, 0, 0))
        gl.Viewport(0, 0, W, H)
        gl.UseProgram(prog)
        gl.DrawArrays(G.GL_TRIANGLES, 0, 3)
        gl.check("fragment draw")
        gl.PixelStorei(G.GL_PACK_ALIGNMENT, 1)
        images = {}
        for name, (tex, ext, typ) in texs.items():
            img = np.zeros((H, W, 4), np.uint32)
            gl.BindTexture(G.GL_TEXTURE_2D, tex)
            gl.GetTexImage(G.GL_TEXTURE_2D, 0, ext, typ, img.ctypes.data_as(C.c_void_p))
            images[name] = img
        gl.check("fragment read back")
        return fragment_capture(images, x, y, reflection, src)
