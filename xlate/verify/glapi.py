"""A minimal OpenGL binding over ctypes, on a surfaceless EGL context (Mesa llvmpipe).

Why not moderngl: the ``gl-spirv`` backend loads SPIR-V modules (``GL_ARB_gl_spirv``) that
moderngl cannot wrap, and the cgc-GLSL oracle needs a *compatibility* profile context.  Both
are simplest with the few dozen entry points below, resolved through ``eglGetProcAddress``
(Mesa returns core entry points too: ``EGL_KHR_get_all_proc_addresses``).

Contexts: :func:`context` returns a process-wide :class:`GL` for ``"core"`` (4.5 core, used for
every translated shader) or ``"compat"`` (4.5 compatibility, for GLSL 1.10 with the legacy
built-ins).  Both are made current on demand (``GL.use()``); no surface is bound, so every
draw needs a framebuffer object (toolchain.md §2.2: on a surfaceless context without an FBO a
draw silently writes nothing).  Failing to load EGL or create a context raises
:class:`GLUnavailable` with the reason.

Why not PyOpenGL (issue 21: "keep what serves better"): ``tools/bench_glapi.py`` runs both on
the same surfaceless EGL display of Mesa 22.3.6 llvmpipe, each in fresh processes, and prints
ratios measured in the same run (PyOpenGL 3.1.10, 2-core machine shared with other jobs, load
average 17-18)::

                     start-up s  ratio  per call us  ratio  per draw us  ratio
  glapi                   0.376   1.00         2.34    1.0         24.0   1.00
  pyopengl                1.124   2.99         5.22    2.2         76.0   3.17

  coverage                 glapi                      PyOpenGL
  GL_ARB_gl_spirv          loads and draws            loads and draws
  glProgramStringARB       loads; a bad program:      the same, but the call raises GLError
                           position + driver message  (error checking cannot be turned off)
  verifier entry points    114/114                    114/114 wrapped; glLoadProgramNV "not
                                                      available" (Mesa has no NV_vertex_program)

Start-up is what every verification process pays (each worker of ``tools/diffcheck.py``, the
child of each cluster worker); per draw, PyOpenGL's checking and argument conversion cost three
times this binding's.  Both cover what the harness needs.  PyOpenGL on EGL also failed twice
in the measurement: ``OpenGL.ERROR_CHECKING = False`` (its documented switch, set before the
import) makes ``from OpenGL import EGL`` raise AttributeError, so every call pays a
``glGetError``; and ``glGenVertexArrays(1)`` raises "Double wrapping of output parameter" once
``OpenGL.GL.ARB.vertex_array_object`` is imported.  So this binding stays.  What PyOpenGL has
that this binding lacks: the whole compatibility API already wrapped (here each new entry point
is one line in :data:`PROTOS`; ``native.py`` adds its own) and an availability test per
extension (``eglGetProcAddress`` returns a stub for any name, so callers check
``GL.extensions``, as ``native.py`` does).

Environment: ``EGL_PLATFORM=surfaceless`` is set if unset; ``MESA_SHADER_CACHE_DIR`` is left to
the caller (the CLI and the tests point it at ``.cache/mesa``).
"""
from __future__ import annotations

import ctypes as C
import os
import threading

__all__ = ["GL", "GLUnavailable", "GLError", "context"]


class GLUnavailable(RuntimeError):
    """No OpenGL implementation could be loaded (no libEGL, no driver, no 4.5 context)."""


class GLError(RuntimeError):
    """A GL call failed (compile/link error, incomplete framebuffer, GL error code)."""


u, i, p, f = C.c_uint, C.c_int, C.c_void_p, C.c_float
sz = C.c_ssize_t
PU, PI, PF = C.POINTER(C.c_uint), C.POINTER(C.c_int), C.POINTER(C.c_float)

# name -> (restype, argtypes)
PROTOS = {
    "glGetError": (u, []),
    "glGetString": (C.c_char_p, [u]),
    "glGetStringi": (C.c_char_p, [u, u]),
    "glGetIntegerv": (None, [u, PI]),
    "glFinish": (None, []),
    "glEnable": (None, [u]),
    "glDisable": (None, [u]),
    "glViewport": (None, [i, i, i, i]),
    "glPixelStorei": (None, [u, i]),
    # shaders / programs
    "glCreateShader": (u, [u]),
    "glShaderSource": (None, [u, i, C.POINTER(C.c_char_p), PI]),
    "glCompileShader": (None, [u]),
    "glGetShaderiv": (None, [u, u, PI]),
    "glGetShaderInfoLog": (None, [u, i, PI, C.c_char_p]),
    "glShaderBinary": (None, [i, PU, u, p, i]),
    "glSpecializeShaderARB": (None, [u, C.c_char_p, u, PU, PU]),
    "glDeleteShader": (None, [u]),
    "glCreateProgram": (u, []),
    "glAttachShader": (None, [u, u]),
    "glLinkProgram": (None, [u]),
    "glGetProgramiv": (None, [u, u, PI]),
    "glGetProgramInfoLog": (None, [u, i, PI, C.c_char_p]),
    "glUseProgram": (None, [u]),
    "glDeleteProgram": (None, [u]),
    "glBindAttribLocation": (None, [u, u, C.c_char_p]),
    "glTransformFeedbackVaryings": (None, [u, i, C.POINTER(C.c_char_p), u]),
    "glGetUniformLocation": (i, [u, C.c_char_p]),
    "glGetUniformBlockIndex": (u, [u, C.c_char_p]),
    "glUniformBlockBinding": (None, [u, u, u]),
    "glGetAttribLocation": (i, [u, C.c_char_p]),
    "glProgramUniform4fv": (None, [u, i, i, p]),
    "glProgramUniform4iv": (None, [u, i, i, p]),
    "glProgramUniform1i": (None, [u, i, i]),
    "glUniform1i": (None, [i, i]),
    "glUniform1fv": (None, [i, i, p]),
    "glUniform1iv": (None, [i, i, p]),
    "glUniform2iv": (None, [i, i, p]),
    "glUniform3iv": (None, [i, i, p]),
    "glUniform4iv": (None, [i, i, p]),
    "glUniform2fv": (None, [i, i, p]),
    "glUniform3fv": (None, [i, i, p]),
    "glUniform4fv": (None, [i, i, p]),
    "glProgramUniformMatrix4fv": (None, [u, i, i, u, p]),
    "glGetActiveUniform": (None, [u, u, i, PI, PI, PU, C.c_char_p]),
    # buffers / vertex arrays
    "glGenBuffers": (None, [i, PU]),
    "glDeleteBuffers": (None, [i, PU]),
    "glBindBuffer": (None, [u, u]),
    "glBufferData": (None, [u, sz, p, u]),
    "glGetBufferSubData": (None, [u, sz, sz, p]),
    "glBindBufferBase": (None, [u, u, u]),
    "glGenVertexArrays": (None, [i, PU]),
    "glDeleteVertexArrays": (None, [i, PU]),
    "glBindVertexArray": (None, [u]),
    "glEnableVertexAttribArray": (None, [u]),
    "glVertexAttribPointer": (None, [u, i, u, C.c_ubyte, i, p]),
    "glVertexAttribIPointer": (None, [u, i, u, i, p]),
    "glDrawArrays": (None, [u, i, i]),
    "glDispatchCompute": (None, [u, u, u]),
    "glBindImageTexture": (None, [u, u, i, C.c_ubyte, i, u, u]),
    "glMemoryBarrier": (None, [u]),
    "glPatchParameteri": (None, [u, i]),
    "glBeginTransformFeedback": (None, [u]),
    "glEndTransformFeedback": (None, []),
    "glGenQueries": (None, [i, PU]),
    "glDeleteQueries": (None, [i, PU]),
    "glBeginQuery": (None, [u, u]),
    "glEndQuery": (None, [u]),
    "glGetQueryObjectuiv": (None, [u, u, PU]),
    # textures / framebuffers
    "glGenTextures": (None, [i, PU]),
    "glDeleteTextures": (None, [i, PU]),
    "glBindTexture": (None, [u, u]),
    "glActiveTexture": (None, [u]),
    "glTexImage1D": (None, [u, i, i, i, i, u, u, p]),
    "glTexImage2D": (None, [u, i, i, i, i, i, u, u, p]),
    "glTexImage3D": (None, [u, i, i, i, i, i, i, u, u, p]),
    "glTexParameteri": (None, [u, u, i]),
    "glTexParameterf": (None, [u, u, f]),
    "glTexParameterfv": (None, [u, u, PF]),
    "glTexParameterIiv": (None, [u, u, PI]),
    "glTexParameterIuiv": (None, [u, u, PU]),
    "glTexBuffer": (None, [u, u, u]),
    "glGetTexImage": (None, [u, i, u, u, p]),
    "glGenFramebuffers": (None, [i, PU]),
    "glDeleteFramebuffers": (None, [i, PU]),
    "glBindFramebuffer": (None, [u, u]),
    "glFramebufferTexture2D": (None, [u, u, u, u, i]),
    "glFramebufferTextureLayer": (None, [u, u, u, i, i]),
    "glTexStorage2DMultisample": (None, [u, i, u, i, i, C.c_ubyte]),
    "glTexStorage3DMultisample": (None, [u, i, u, i, i, i, C.c_ubyte]),
    "glIsEnabled": (C.c_ubyte, [u]),
    "glCheckFramebufferStatus": (u, [u]),
    "glDrawBuffers": (None, [i, PU]),
    "glReadBuffer": (None, [u]),
    "glReadPixels": (None, [i, i, i, i, u, u, p]),
    "glClearBufferfv": (None, [u, i, PF]),
    "glClearBufferiv": (None, [u, i, PI]),
    "glClearBufferuiv": (None, [u, i, PU]),
    # compatibility-profile client arrays (cgc GLSL oracle)
    "glEnableClientState": (None, [u]),
    "glDisableClientState": (None, [u]),
    "glVertexPointer": (None, [i, u, i, p]),
    "glNormalPointer": (None, [u, i, p]),
    "glColorPointer": (None, [i, u, i, p]),
    "glSecondaryColorPointer": (None, [i, u, i, p]),
    "glFogCoordPointer": (None, [u, i, p]),
    "glTexCoordPointer": (None, [i, u, i, p]),
    "glClientActiveTexture": (None, [u]),
    "glMatrixMode": (None, [u]),
    "glLoadMatrixf": (None, [p]),
    "glLoadIdentity": (None, []),
    "glActiveTextureARB": (None, [u]),
    "glClampColor": (None, [u, u]),
}

# enums used by the verifier
GL_NO_ERROR = 0
GL_FLOAT, GL_INT, GL_UNSIGNED_INT = 0x1406, 0x1404, 0x1405
GL_VERTEX_SHADER, GL_FRAGMENT_SHADER, GL_GEOMETRY_SHADER = 0x8B31, 0x8B30, 0x8DD9
GL_COMPILE_STATUS, GL_LINK_STATUS, GL_INFO_LOG_LENGTH = 0x8B81, 0x8B82, 0x8B84
GL_SHADER_BINARY_FORMAT_SPIR_V_ARB = 0x9551
GL_ARRAY_BUFFER, GL_UNIFORM_BUFFER = 0x8892, 0x8A11
GL_COMPUTE_SHADER, GL_SHADER_STORAGE_BUFFER = 0x91B9, 0x90D2
GL_ALL_BARRIER_BITS = 0xFFFFFFFF
GL_READ_WRITE = 0x88BA
GL_TRANSFORM_FEEDBACK_BUFFER = 0x8C8E
GL_TEXTURE_BUFFER = 0x8C2A
GL_STATIC_DRAW, GL_STREAM_READ, GL_DYNAMIC_COPY = 0x88E4, 0x88E1, 0x88EA
GL_INTERLEAVED_ATTRIBS = 0x8C8C
GL_RASTERIZER_DISCARD = 0x8C89
GL_TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN, GL_PRIMITIVES_GENERATED = 0x8C88, 0x8C87
GL_QUERY_RESULT = 0x8866
GL_INVALID_OPERATION = 0x0502
GL_POINTS, GL_LINES, GL_LINE_STRIP, GL_TRIANGLES, GL_TRIANGLE_STRIP = 0, 1, 3, 4, 5
GL_LINES_ADJACENCY, GL_TRIANGLES_ADJACENCY = 0xA, 0xC
GL_TEXTURE0 = 0x84C0
GL_TEXTURE_1D, GL_TEXTURE_2D, GL_TEXTURE_3D = 0x0DE0, 0x0DE1, 0x806F
GL_TEXTURE_RECTANGLE, GL_TEXTURE_CUBE_MAP = 0x84F5, 0x8513
GL_TEXTURE_CUBE_MAP_POSITIVE_X = 0x8515
GL_TEXTURE_1D_ARRAY, GL_TEXTURE_2D_ARRAY = 0x8C18, 0x8C1A
GL_TEXTURE_CUBE_MAP_ARRAY = 0x9009
GL_FRAMEBUFFER_BINDING, GL_VERTEX_ARRAY_BINDING, GL_CURRENT_PROGRAM = 0x8CA6, 0x85B5, 0x8B8D
GL_VIEWPORT = 0x0BA2
GL_TEXTURE_2D_MULTISAMPLE, GL_TEXTURE_2D_MULTISAMPLE_ARRAY = 0x9100, 0x9102
GL_TEXTURE_MIN_FILTER, GL_TEXTURE_MAG_FILTER = 0x2801, 0x2800
GL_TEXTURE_WRAP_S, GL_TEXTURE_WRAP_T, GL_TEXTURE_WRAP_R = 0x2802, 0x2803, 0x8072
GL_TEXTURE_BORDER_COLOR = 0x1004
GL_TEXTURE_BASE_LEVEL, GL_TEXTURE_MAX_LEVEL = 0x813C, 0x813D
GL_TEXTURE_LOD_BIAS = 0x8501
GL_TEXTURE_COMPARE_MODE, GL_TEXTURE_COMPARE_FUNC = 0x884C, 0x884D
GL_COMPARE_REF_TO_TEXTURE = 0x884E
GL_NEAREST, GL_LINEAR = 0x2600, 0x2601
GL_NEAREST_MIPMAP_NEAREST, GL_LINEAR_MIPMAP_NEAREST = 0x2700, 0x2701
GL_NEAREST_MIPMAP_LINEAR, GL_LINEAR_MIPMAP_LINEAR = 0x2702, 0x2703
GL_REPEAT, GL_CLAMP_TO_EDGE, GL_MIRRORED_REPEAT, GL_CLAMP_TO_BORDER = 0x2901, 0x812F, 0x8370, 0x812D
GL_RGBA, GL_RGBA_INTEGER, GL_DEPTH_COMPONENT = 0x1908, 0x8D99, 0x1902
GL_RGBA32F, GL_RGBA32I, GL_RGBA32UI = 0x8814, 0x8D82, 0x8D70
GL_DEPTH_COMPONENT32F = 0x8CAC
GL_FRAMEBUFFER, GL_FRAMEBUFFER_COMPLETE = 0x8D40, 0x8CD5
GL_COLOR_ATTACHMENT0 = 0x8CE0
GL_COLOR = 0x1800
GL_NONE = 0
GL_PACK_ALIGNMENT, GL_UNPACK_ALIGNMENT = 0x0D05, 0x0CF5
GL_NUM_EXTENSIONS = 0x821D
GL_MAX_DRAW_BUFFERS = 0x8824
GL_MAX_COMBINED_TEXTURE_IMAGE_UNITS = 0x8B4D
GL_PROGRAM_POINT_SIZE = 0x8642
GL_VERTEX_ARRAY, GL_NORMAL_ARRAY, GL_COLOR_ARRAY = 0x8074, 0x8075, 0x8076
GL_TEXTURE_COORD_ARRAY, GL_SECONDARY_COLOR_ARRAY, GL_FOG_COORD_ARRAY = 0x8078, 0x845E, 0x8457
GL_MODELVIEW, GL_PROJECTION, GL_TEXTURE = 0x1700, 0x1701, 0x1702
GL_CLAMP_VERTEX_COLOR, GL_CLAMP_FRAGMENT_COLOR, GL_CLAMP_READ_COLOR = 0x891A, 0x891B, 0x891C

GL_TEXTURE_CUBE_MAP_SEAMLESS = 0x884F
GL_TEXTURE_MIN_LOD, GL_TEXTURE_MAX_LOD = 0x813A, 0x813B
GL_R32F, GL_RG32F, GL_RGB32F = 0x822E, 0x8230, 0x8815

#: enum names used by ``xlate.exec.Texture.gl_state`` -> values
ENUMS = {
    "TEXTURE_1D": GL_TEXTURE_1D, "TEXTURE_2D": GL_TEXTURE_2D, "TEXTURE_3D": GL_TEXTURE_3D,
    "TEXTURE_CUBE_MAP": GL_TEXTURE_CUBE_MAP, "TEXTURE_RECTANGLE": GL_TEXTURE_RECTANGLE,
    "TEXTURE_1D_ARRAY": GL_TEXTURE_1D_ARRAY, "TEXTURE_2D_ARRAY": GL_TEXTURE_2D_ARRAY,
    "TEXTURE_BUFFER": GL_TEXTURE_BUFFER, "TEXTURE_CUBE_MAP_ARRAY": GL_TEXTURE_CUBE_MAP_ARRAY,
    "TEXTURE_2D_MULTISAMPLE": GL_TEXTURE_2D_MULTISAMPLE,
    "TEXTURE_2D_MULTISAMPLE_ARRAY": GL_TEXTURE_2D_MULTISAMPLE_ARRAY,
    "NEAREST": GL_NEAREST, "LINEAR": GL_LINEAR,
    "NEAREST_MIPMAP_NEAREST": GL_NEAREST_MIPMAP_NEAREST,
    "LINEAR_MIPMAP_NEAREST": GL_LINEAR_MIPMAP_NEAREST,
    "NEAREST_MIPMAP_LINEAR": GL_NEAREST_MIPMAP_LINEAR,
    "LINEAR_MIPMAP_LINEAR": GL_LINEAR_MIPMAP_LINEAR,
    "REPEAT": GL_REPEAT, "CLAMP_TO_EDGE": GL_CLAMP_TO_EDGE, "CLAMP_TO_BORDER": GL_CLAMP_TO_BORDER,
    "MIRRORED_REPEAT": GL_MIRRORED_REPEAT, "MIRROR_CLAMP_TO_EDGE": 0x8743,
    "NEVER": 0x0200, "LESS": 0x0201, "EQUAL": 0x0202, "LEQUAL": 0x0203, "GREATER": 0x0204,
    "NOTEQUAL": 0x0205, "GEQUAL": 0x0206, "ALWAYS": 0x0207,
    "COMPARE_REF_TO_TEXTURE": GL_COMPARE_REF_TO_TEXTURE, "NONE": 0,
}

EGL_PLATFORM_SURFACELESS_MESA = 0x31DD
EGL_PLATFORM_DEVICE_EXT = 0x313F
EGL_OPENGL_API = 0x30A2
EGL_CONTEXT_MAJOR_VERSION, EGL_CONTEXT_MINOR_VERSION = 0x3098, 0x30FB
EGL_CONTEXT_OPENGL_PROFILE_MASK = 0x30FD
EGL_CORE_BIT, EGL_COMPAT_BIT = 1, 2
EGL_NONE = 0x3038


class _Egl:
    """libEGL: one surfaceless display shared by every context."""

    def __init__(self):
        os.environ.setdefault("EGL_PLATFORM", "surfaceless")
        try:
            lib = C.CDLL("libEGL.so.1")
        except OSError as e:
            raise GLUnavailable(f"cannot load libEGL.so.1 ({e}); install libegl1 libegl-mesa0 "
                                "libgl1-mesa-dri (Mesa llvmpipe)") from None
        lib.eglGetProcAddress.restype = p
        lib.eglGetProcAddress.argtypes = [C.c_char_p]
        lib.eglInitialize.argtypes = [p, PI, PI]
        lib.eglBindAPI.argtypes = [u]
        lib.eglCreateContext.restype = p
        lib.eglGetCurrentContext.restype = p
        lib.eglCreateContext.argtypes = [p, p, p, PI]
        lib.eglMakeCurrent.argtypes = [p, p, p, p]
        lib.eglGetError.restype = i
        lib.eglGetDisplay.restype = p
        lib.eglGetDisplay.argtypes = [p]
        self.lib = lib
        dpy, tried = None, []
        for name, candidate in self._displays(lib):
            ma, mi = i(), i()
            if candidate and lib.eglInitialize(candidate, C.byref(ma), C.byref(mi)):
                dpy = candidate
                break
            tried.append(f"{name}: " + ("no display" if not candidate else
                                        f"eglInitialize failed (EGL error 0x{lib.eglGetError():x})"))
        if dpy is None:
            raise GLUnavailable("no EGL display could be initialized (" + "; ".join(tried)
                                + "); is Mesa's EGL driver (libegl-mesa0) installed?")
        if not lib.eglBindAPI(EGL_OPENGL_API):
            raise GLUnavailable("eglBindAPI(EGL_OPENGL_API) failed")
        self.dpy = dpy

    @staticmethod
    def _displays(lib):
        """Candidate displays in the order tried: Mesa's surfaceless platform, then each EGL
        device (EGL_EXT_platform_device: NVIDIA's headless driver, where the surfaceless
        platform may be missing), then the default display.  ``EGL_PLATFORM=device`` puts
        the devices first."""
        gpd = lib.eglGetProcAddress(b"eglGetPlatformDisplayEXT")
        get = C.CFUNCTYPE(p, u, p, p)(gpd) if gpd else None

        def surfaceless():
            if get:
                yield "surfaceless", get(EGL_PLATFORM_SURFACELESS_MESA, None, None)

        def devices():
            qd = lib.eglGetProcAddress(b"eglQueryDevicesEXT")
            if not (get and qd):
                return
            query = C.CFUNCTYPE(u, i, C.POINTER(p), PI)(qd)
            found = (p * 16)()
            n = i()
            if query(16, found, C.byref(n)):
                for k in range(n.value):
                    yield f"device {k}", get(EGL_PLATFORM_DEVICE_EXT, found[k], None)

        order = [devices, surfaceless] if os.environ.get("EGL_PLATFORM") == "device" \
            else [surfaceless, devices]
        for source in order:
            yield from source()
        yield "default", lib.eglGetDisplay(None)

    def create(self, profile: str):
        bit = EGL_CORE_BIT if profile == "core" else EGL_COMPAT_BIT
        attrs = (i * 7)(EGL_CONTEXT_MAJOR_VERSION, 4, EGL_CONTEXT_MINOR_VERSION, 5,
                        EGL_CONTEXT_OPENGL_PROFILE_MASK, bit, EGL_NONE)
        ctx = self.lib.eglCreateContext(self.dpy, None, None, attrs)
        if not ctx:
            raise GLUnavailable(f"cannot create an OpenGL 4.5 {profile} context "
                                f"(EGL error 0x{self.lib.eglGetError():x})")
        return ctx

    def make_current(self, ctx) -> None:
        if not self.lib.eglMakeCurrent(self.dpy, None, None, ctx):
            raise GLUnavailable(f"eglMakeCurrent failed (EGL error 0x{self.lib.eglGetError():x})")


class GL:
    """GL entry points as attributes without the ``gl`` prefix (``gl.DrawArrays(...)``)."""

    def __init__(self, egl: _Egl, profile: str):
        self.egl = egl
        self.profile = profile
        self.ctx = egl.create(profile)
        self.use()
        self._fns: dict[str, object] = {}
        ver = self.GetString(0x1F02)
        ren = self.GetString(0x1F01)
        self.version = (ver or b"?").decode(errors="replace")
        self.renderer = (ren or b"?").decode(errors="replace")
        n = i()
        self.GetIntegerv(GL_NUM_EXTENSIONS, C.byref(n))
        self.extensions = {self.GetStringi(0x1F03, k).decode() for k in range(n.value)}
        self.fbo = None

    def use(self) -> None:
        # ask EGL, not a cached flag: other code in the process (moderngl, another harness)
        # may have made its own context current since our last call
        if self.egl.lib.eglGetCurrentContext() != self.ctx:
            self.egl.make_current(self.ctx)
            _current.ctx = self.ctx

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        full = "gl" + name
        fns = self.__dict__.setdefault("_fns", {})
        fn = fns.get(full)
        if fn is None:
            proto = PROTOS.get(full)
            if proto is None:
                raise AttributeError(f"{full}: no prototype in glapi.PROTOS")
            addr = self.egl.lib.eglGetProcAddress(full.encode())
            if not addr:
                raise GLError(f"{full} is not available in this OpenGL implementation")
            fn = C.CFUNCTYPE(proto[0], *proto[1])(addr)
            fns[full] = fn
        # later lookups find it in the instance and skip this method: a glGetError through
        # here cost 4.8-5.2 us, from the instance 2.2-3.1 us (same process, loaded machine)
        self.__dict__[name] = fn
        return fn

    def describe(self) -> str:
        return f"{self.renderer} | {self.version}"

    def check(self, what: str) -> None:
        err = self.GetError()
        if err != GL_NO_ERROR:
            codes = []
            while err != GL_NO_ERROR and len(codes) < 8:
                codes.append(f"0x{err:04x}")
                err = self.GetError()
            raise GLError(f"{what}: GL error {', '.join(codes)}")

    # ---- small helpers -----------------------------------------------------------------------
    def gen(self, fn, n: int = 1):
        ids = (u * n)()
        fn(n, ids)
        return list(ids) if n > 1 else ids[0]

    def delete(self, fn, *ids) -> None:
        ids = [x for x in ids if x]
        if ids:
            fn(len(ids), (u * len(ids))(*ids))

    def shader_log(self, sh: int) -> str:
        n = i()
        self.GetShaderiv(sh, GL_INFO_LOG_LENGTH, C.byref(n))
        buf = C.create_string_buffer(max(n.value, 1) + 1)
        self.GetShaderInfoLog(sh, len(buf), None, buf)
        return buf.value.decode(errors="replace")

    def program_log(self, prog: int) -> str:
        n = i()
        self.GetProgramiv(prog, GL_INFO_LOG_LENGTH, C.byref(n))
        buf = C.create_string_buffer(max(n.value, 1) + 1)
        self.GetProgramInfoLog(prog, len(buf), None, buf)
        return buf.value.decode(errors="replace")

    def compile_glsl(self, kind: int, source: str) -> int:
        sh = self.CreateShader(kind)
        src = C.c_char_p(source.encode())
        self.ShaderSource(sh, 1, C.byref(src), None)
        self.CompileShader(sh)
        ok = i()
        self.GetShaderiv(sh, GL_COMPILE_STATUS, C.byref(ok))
        if not ok.value:
            log = self.shader_log(sh)
            self.DeleteShader(sh)
            raise GLError(f"the GL implementation rejected the shader: {log.strip()}")
        return sh

    def load_spirv(self, kind: int, words: bytes) -> int:
        if "GL_ARB_gl_spirv" not in self.extensions:
            raise GLUnavailable("GL_ARB_gl_spirv is not supported by " + self.describe())
        sh = self.CreateShader(kind)
        ids = (u * 1)(sh)
        buf = C.create_string_buffer(bytes(words), len(words))
        self.ShaderBinary(1, ids, GL_SHADER_BINARY_FORMAT_SPIR_V_ARB, buf, len(words))
        self.SpecializeShaderARB(sh, b"main", 0, None, None)
        ok = i()
        self.GetShaderiv(sh, GL_COMPILE_STATUS, C.byref(ok))
        if not ok.value:
            log = self.shader_log(sh)
            self.DeleteShader(sh)
            raise GLError(f"the GL implementation rejected the SPIR-V module: {log.strip()}")
        return sh

    def link(self, shaders: list[int], varyings: list[str] | None = None,
             attribs: dict[str, int] | None = None) -> int:
        prog = self.CreateProgram()
        for sh in shaders:
            self.AttachShader(prog, sh)
        for name, loc in (attribs or {}).items():
            self.BindAttribLocation(prog, loc, name.encode())
        if varyings:
            arr = (C.c_char_p * len(varyings))(*[v.encode() for v in varyings])
            self.TransformFeedbackVaryings(prog, len(varyings), arr, GL_INTERLEAVED_ATTRIBS)
        self.LinkProgram(prog)
        for sh in shaders:
            self.DeleteShader(sh)
        ok = i()
        self.GetProgramiv(prog, GL_LINK_STATUS, C.byref(ok))
        if not ok.value:
            log = self.program_log(prog)
            self.DeleteProgram(prog)
            raise GLError(f"the GL implementation failed to link the program: {log.strip()}")
        return prog


_current = threading.local()
_lock = threading.Lock()
_egl: _Egl | None = None
_contexts: dict[str, GL] = {}
_failed: dict[str, str] = {}


def context(profile: str = "core") -> GL:
    """The process-wide GL context of ``profile`` ("core" or "compat"), made current."""
    global _egl
    with _lock:
        if profile in _failed:
            raise GLUnavailable(_failed[profile])
        gl = _contexts.get(profile)
        if gl is None:
            try:
                if _egl is None:
                    _egl = _Egl()
                gl = GL(_egl, profile)
            except GLUnavailable as e:
                _failed[profile] = str(e)
                raise
            _contexts[profile] = gl
        gl.use()
        return gl
