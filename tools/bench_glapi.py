#!/usr/bin/env python3
"""PyOpenGL on EGL against xlate's own ctypes binding (``xlate/verify/glapi.py``).

    pip install PyOpenGL      # not a dependency of xlate: only this measurement uses it
    EGL_PLATFORM=surfaceless nice -n 10 python tools/bench_glapi.py [--repeat 5]

Each binding runs in fresh processes (start-up includes its imports), in one run:

* start-up: from the first line of a new process to a current OpenGL 4.5 core context on a
  surfaceless EGL display and its GL_VERSION string (median of ``--repeat`` processes);
* per call: ``glGetError`` 20000 times -- the cost of the binding itself;
* per draw: what the harness does per draw (use a program, set a vec4 uniform, bind the vertex
  array, draw a point into a 1x1 framebuffer object), 2000 times, then ``glFinish``; the
  pixel read back checks the draws happened;
* coverage: a SPIR-V module loaded through GL_ARB_gl_spirv (``glShaderBinary`` +
  ``glSpecializeShaderARB``) and drawn; an ARB fragment program loaded through
  ``glProgramStringARB`` in a 4.5 compatibility context (error position -1), a broken one
  refused with the driver's message; and how many of the entry points the verifier resolves
  (``glapi.PROTOS`` with ``native.PROTOS``) the other binding wraps.

PyOpenGL runs twice: as installed (``OpenGL.ERROR_CHECKING`` on: a ``glGetError`` after every
call, and a GL error raises) and with ``OpenGL.ERROR_CHECKING = False`` set before the import,
as its documentation says (what a harness would set).  Times are
printed with their ratio to glapi measured in the same run; on a shared machine the absolute
times vary, the ratios less.
"""
from __future__ import annotations

import time

T0 = time.perf_counter()          # before any import of the measured binding

import argparse   # noqa: E402
import json       # noqa: E402
import os         # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys        # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CALLS, DRAWS = 20000, 2000
VS = b"#version 450\nvoid main() { gl_Position = vec4(0.0, 0.0, 0.0, 1.0); gl_PointSize = 1.0; }\n"
FS = (b"#version 450\nlayout(location = 0) uniform vec4 color;\n"
      b"layout(location = 0) out vec4 o;\nvoid main() { o = color; }\n")
ARBFP = b"!!ARBfp1.0\nMOV result.color, program.local[0];\nEND\n"
ARBFP_BAD = b"!!ARBfp1.0\nMOV result.color, nonsense;\nEND\n"

GL_VERTEX_SHADER, GL_FRAGMENT_SHADER = 0x8B31, 0x8B30
GL_FRAGMENT_PROGRAM_ARB, GL_PROGRAM_FORMAT_ASCII_ARB = 0x8804, 0x8875
GL_PROGRAM_ERROR_POSITION_ARB, GL_PROGRAM_ERROR_STRING_ARB = 0x864B, 0x8874


# ---- the two bindings behind one small interface (run in the child) --------------------------
class Glapi:
    name = "glapi"

    def __init__(self, profile="core"):
        from xlate.verify import glapi
        self.G = glapi
        self.gl = glapi.context(profile)

    def version(self) -> str:
        return self.gl.GetString(0x1F02).decode()

    def get_error(self):
        return self.gl.GetError()

    def wraps(self, name: str) -> bool:
        return name in self.G.PROTOS

    def resolvable(self, name: str) -> bool:
        return bool(self.gl.egl.lib.eglGetProcAddress(name.encode()))


class PyOpenGL:
    name = "pyopengl"

    def __init__(self, profile="core", checking=True):
        os.environ["PYOPENGL_PLATFORM"] = "egl"
        import OpenGL
        OpenGL.ERROR_CHECKING = checking         # as documented: before importing OpenGL.GL
        from OpenGL import EGL, GL
        self.EGL, self.GL = EGL, GL
        dpy = EGL.eglGetDisplay(EGL.EGL_DEFAULT_DISPLAY)     # EGL_PLATFORM=surfaceless
        major, minor = EGL.EGLint(), EGL.EGLint()
        if not EGL.eglInitialize(dpy, major, minor):
            raise RuntimeError("eglInitialize failed")
        EGL.eglBindAPI(EGL.EGL_OPENGL_API)
        bit = EGL.EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT if profile == "core" else \
            EGL.EGL_CONTEXT_OPENGL_COMPATIBILITY_PROFILE_BIT
        attrs = (EGL.EGLint * 7)(EGL.EGL_CONTEXT_MAJOR_VERSION, 4, EGL.EGL_CONTEXT_MINOR_VERSION,
                                 5, EGL.EGL_CONTEXT_OPENGL_PROFILE_MASK, bit, EGL.EGL_NONE)
        ctx = EGL.eglCreateContext(dpy, EGL.EGLConfig(), EGL.EGL_NO_CONTEXT, attrs)
        if not ctx:
            raise RuntimeError(f"eglCreateContext failed: 0x{EGL.eglGetError():x}")
        if not EGL.eglMakeCurrent(dpy, EGL.EGL_NO_SURFACE, EGL.EGL_NO_SURFACE, ctx):
            raise RuntimeError("eglMakeCurrent failed")

    def version(self) -> str:
        return self.GL.glGetString(0x1F02).decode()

    def get_error(self):
        return self.GL.glGetError()

    def wraps(self, name: str) -> bool:
        return self._wrapper(name) is not None

    def resolvable(self, name: str) -> bool:
        """PyOpenGL's own test: the entry point resolved in the current context (an
        extension's functions only where the context has the extension)."""
        fn = self._wrapper(name)
        return bool(fn) if fn is not None else False

    def raises_on_error(self) -> bool:
        try:
            self.GL.glUseProgram(0xFFFFFF)        # GL_INVALID_VALUE
        except Exception:
            return True
        self.GL.glGetError()
        return False

    def _wrapper(self, name: str):
        import importlib
        fn = getattr(self.GL, name, None)
        if fn is None:       # extension entry points live in OpenGL.GL.<VENDOR>.<extension>
            vendor = "NV" if name.endswith("NV") else "ARB" if name.endswith("ARB") else None
            if vendor:
                import pkgutil
                pkg = importlib.import_module(f"OpenGL.GL.{vendor}")
                for mod in pkgutil.iter_modules(pkg.__path__):
                    try:
                        m = importlib.import_module(f"OpenGL.GL.{vendor}.{mod.name}")
                    except Exception:     # some modules do not import after OpenGL.GL
                        continue
                    fn = getattr(m, name, None)
                    if fn is not None:
                        break
        return fn


# ---- what a child measures -----------------------------------------------------------------
def _draw_setup_glapi(b):
    import ctypes as C
    gl, G = b.gl, b.G
    prog = gl.link([gl.compile_glsl(GL_VERTEX_SHADER, VS.decode()),
                    gl.compile_glsl(GL_FRAGMENT_SHADER, FS.decode())])
    fbo, tex, vao = _fbo_glapi(b), None, gl.gen(gl.GenVertexArrays)
    color = (C.c_float * 4)(0.25, 0.5, 0.75, 1.0)

    def draw():
        gl.UseProgram(prog)
        gl.ProgramUniform4fv(prog, 0, 1, color)
        gl.BindVertexArray(vao)
        gl.DrawArrays(G.GL_POINTS, 0, 1)

    def pixel():
        px = (C.c_float * 4)()
        gl.ReadPixels(0, 0, 1, 1, G.GL_RGBA, G.GL_FLOAT, px)
        return list(px)
    return draw, pixel, (fbo, tex)


def _fbo_glapi(b):
    gl, G = b.gl, b.G
    tex = gl.gen(gl.GenTextures)
    gl.BindTexture(G.GL_TEXTURE_2D, tex)
    gl.TexImage2D(G.GL_TEXTURE_2D, 0, G.GL_RGBA32F, 1, 1, 0, G.GL_RGBA, G.GL_FLOAT, None)
    fbo = gl.gen(gl.GenFramebuffers)
    gl.BindFramebuffer(G.GL_FRAMEBUFFER, fbo)
    gl.FramebufferTexture2D(G.GL_FRAMEBUFFER, G.GL_COLOR_ATTACHMENT0, G.GL_TEXTURE_2D, tex, 0)
    gl.Viewport(0, 0, 1, 1)
    return fbo


def _draw_setup_pyopengl(b):
    import numpy as np
    GL = b.GL
    vs, fs = GL.glCreateShader(GL_VERTEX_SHADER), GL.glCreateShader(GL_FRAGMENT_SHADER)
    for sh, src in ((vs, VS), (fs, FS)):
        GL.glShaderSource(sh, src)
        GL.glCompileShader(sh)
    prog = GL.glCreateProgram()
    GL.glAttachShader(prog, vs)
    GL.glAttachShader(prog, fs)
    GL.glLinkProgram(prog)
    _fbo_pyopengl(b)
    vao = _gen_vertex_array(GL)
    color = np.array([0.25, 0.5, 0.75, 1.0], np.float32)

    def draw():
        GL.glUseProgram(prog)
        GL.glProgramUniform4fv(prog, 0, 1, color)
        GL.glBindVertexArray(vao)
        GL.glDrawArrays(GL.GL_POINTS, 0, 1)

    def pixel():
        return [float(x) for x in GL.glReadPixels(0, 0, 1, 1, GL.GL_RGBA, GL.GL_FLOAT)
                .reshape(-1)]
    return draw, pixel, None


def _gen_vertex_array(GL) -> int:
    """PyOpenGL 3.1.10's ``glGenVertexArrays(1)`` raises "Double wrapping of output parameter"
    (its output-array wrapper is applied twice); passing the output array works."""
    import numpy as np
    out = np.zeros(1, np.uint32)
    GL.glGenVertexArrays(1, out)
    return int(out[0])


def _fbo_pyopengl(b):
    GL = b.GL
    tex = GL.glGenTextures(1)
    GL.glBindTexture(GL.GL_TEXTURE_2D, tex)
    GL.glTexImage2D(GL.GL_TEXTURE_2D, 0, GL.GL_RGBA32F, 1, 1, 0, GL.GL_RGBA, GL.GL_FLOAT, None)
    fbo = GL.glGenFramebuffers(1)
    GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, fbo)
    GL.glFramebufferTexture2D(GL.GL_FRAMEBUFFER, GL.GL_COLOR_ATTACHMENT0, GL.GL_TEXTURE_2D,
                              tex, 0)
    GL.glViewport(0, 0, 1, 1)


def _spirv_words(stage: str, src: bytes) -> bytes:
    from xlate.backends import spirv as sp
    return sp.compile_glsl(src.decode(), stage, target="opengl")


def _spirv_glapi(b) -> str:
    import ctypes as C
    gl, G = b.gl, b.G
    vs = gl.load_spirv(GL_VERTEX_SHADER, _spirv_words("vert", VS))
    fs = gl.load_spirv(GL_FRAGMENT_SHADER, _spirv_words("frag", FS))
    prog = gl.link([vs, fs])
    _fbo_glapi(b)
    vao = gl.gen(gl.GenVertexArrays)
    gl.UseProgram(prog)
    gl.ProgramUniform4fv(prog, 0, 1, (C.c_float * 4)(0.25, 0.5, 0.75, 1.0))
    gl.BindVertexArray(vao)
    gl.DrawArrays(G.GL_POINTS, 0, 1)
    px = (C.c_float * 4)()
    gl.ReadPixels(0, 0, 1, 1, G.GL_RGBA, G.GL_FLOAT, px)
    return "ok" if list(px) == [0.25, 0.5, 0.75, 1.0] else f"wrong pixel {list(px)}"


def _spirv_pyopengl(b) -> str:
    import numpy as np
    GL = b.GL
    from OpenGL.GL.ARB.gl_spirv import glSpecializeShaderARB
    shaders = []
    for kind, stage, src in ((GL_VERTEX_SHADER, "vert", VS), (GL_FRAGMENT_SHADER, "frag", FS)):
        sh = GL.glCreateShader(kind)
        words = _spirv_words(stage, src)
        GL.glShaderBinary(1, np.array([sh], np.uint32), 0x9551, words, len(words))
        glSpecializeShaderARB(sh, b"main", 0, None, None)
        if not GL.glGetShaderiv(sh, GL.GL_COMPILE_STATUS):
            return "refused: " + GL.glGetShaderInfoLog(sh).decode()
        shaders.append(sh)
    prog = GL.glCreateProgram()
    for sh in shaders:
        GL.glAttachShader(prog, sh)
    GL.glLinkProgram(prog)
    _fbo_pyopengl(b)
    GL.glBindVertexArray(_gen_vertex_array(GL))
    GL.glUseProgram(prog)
    GL.glProgramUniform4fv(prog, 0, 1, np.array([0.25, 0.5, 0.75, 1.0], np.float32))
    GL.glDrawArrays(GL.GL_POINTS, 0, 1)
    px = [float(x) for x in GL.glReadPixels(0, 0, 1, 1, GL.GL_RGBA, GL.GL_FLOAT).reshape(-1)]
    return "ok" if px == [0.25, 0.5, 0.75, 1.0] else f"wrong pixel {px}"


def _arb_glapi() -> str:
    import ctypes as C
    from xlate.verify import native  # noqa: F401  (adds the ARB/NV prototypes to glapi.PROTOS)
    from xlate.verify import glapi
    gl = glapi.context("compat")
    out = []
    for text in (ARBFP, ARBFP_BAD):
        pid = gl.gen(gl.GenProgramsARB)
        gl.BindProgramARB(GL_FRAGMENT_PROGRAM_ARB, pid)
        gl.ProgramStringARB(GL_FRAGMENT_PROGRAM_ARB, GL_PROGRAM_FORMAT_ASCII_ARB, len(text), text)
        pos = C.c_int()
        gl.GetIntegerv(GL_PROGRAM_ERROR_POSITION_ARB, C.byref(pos))
        gl.GetError()
        msg = (gl.GetString(GL_PROGRAM_ERROR_STRING_ARB) or b"").decode().strip()
        out.append(f"position {pos.value}" + (f" '{msg}'" if pos.value >= 0 else ""))
    return "; ".join(out)


def _arb_pyopengl(b) -> str:
    GL = b.GL
    from OpenGL.GL.ARB.fragment_program import (glBindProgramARB, glGenProgramsARB,
                                                 glProgramStringARB)
    out = []
    for text in (ARBFP, ARBFP_BAD):
        pid = glGenProgramsARB(1)
        glBindProgramARB(GL_FRAGMENT_PROGRAM_ARB, pid)
        try:
            glProgramStringARB(GL_FRAGMENT_PROGRAM_ARB, GL_PROGRAM_FORMAT_ASCII_ARB, len(text),
                               text)
            raised = ""
        except Exception as e:            # ERROR_CHECKING turns GL_INVALID_OPERATION into this
            raised = f" (raised {type(e).__name__})"
        pos = GL.glGetIntegerv(GL_PROGRAM_ERROR_POSITION_ARB)
        GL.glGetError()
        msg = (GL.glGetString(GL_PROGRAM_ERROR_STRING_ARB) or b"").decode().strip()
        out.append(f"position {int(pos)}" + (f" '{msg}'" if int(pos) >= 0 else "") + raised)
    return "; ".join(out)


def _verifier_entry_points() -> list[str]:
    from xlate.verify import glapi, native  # noqa: F401
    return sorted(glapi.PROTOS)


def child(kind: str, part: str) -> dict:
    checking = kind != "pyopengl-nocheck"
    if part == "arb":       # a compatibility context
        if kind == "glapi":
            b = Glapi("compat")
            arb = _arb_glapi()
        else:
            b = PyOpenGL("compat", checking)
            arb = _arb_pyopengl(b)
        names = _verifier_entry_points()
        return {"arb": arb, "live_compat": sum(b.resolvable(n) for n in names),
                "dead_compat": [n for n in names if not b.resolvable(n)],
                "raises": kind != "glapi" and b.raises_on_error()}
    b = Glapi() if kind == "glapi" else PyOpenGL("core", checking)
    version = b.version()
    startup = time.perf_counter() - T0
    if part == "startup":
        return {"startup": startup, "version": version}
    t = time.perf_counter()
    for _ in range(CALLS):
        b.get_error()
    per_call = (time.perf_counter() - t) / CALLS
    draw, pixel, _ = (_draw_setup_glapi if kind == "glapi" else _draw_setup_pyopengl)(b)
    for _ in range(50):
        draw()
    pixel()
    t = time.perf_counter()
    for _ in range(DRAWS):
        draw()
    px = pixel()                       # waits for every draw
    per_draw = (time.perf_counter() - t) / DRAWS
    names = _verifier_entry_points()
    wrapped = [n for n in names if b.wraps(n)]
    try:
        spirv = _spirv_glapi(b) if kind == "glapi" else _spirv_pyopengl(b)
    except Exception as e:
        spirv = f"failed: {type(e).__name__}: {e}"
    return {"per_call": per_call, "per_draw": per_draw, "pixel": px, "spirv": spirv,
            "entry_points": len(names), "wrapped": len(wrapped),
            "missing": [n for n in names if n not in wrapped]}


def run_child(kind: str, part: str) -> dict:
    env = dict(os.environ, EGL_PLATFORM="surfaceless",
               PYTHONPATH=os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH"))
                                          if p))
    out = subprocess.run([sys.executable, __file__, "--child", kind, part], env=env,
                         capture_output=True, text=True, timeout=600)
    if out.returncode:
        return {"error": out.stderr.strip().splitlines()[-1] if out.stderr.strip() else
                f"exit {out.returncode}"}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeat", type=int, default=5, help="start-up: processes per binding")
    p.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        print(json.dumps(child(*args.child)))
        return 0
    kinds = ("glapi", "pyopengl", "pyopengl-nocheck")
    res = {}
    for k in kinds:
        starts = []
        for _ in range(args.repeat):       # interleaved would be fairer; the median evens it
            r = run_child(k, "startup")
            if "error" in r:
                starts = None
                res[k] = r
                break
            starts.append(r["startup"])
        if starts is None:
            continue
        res[k] = dict(run_child(k, "draw"), startup=statistics.median(starts),
                      **run_child(k, "arb"))
    base = res["glapi"]
    if "error" in base:
        print(f"bench_glapi: no OpenGL implementation: {base['error']}", file=sys.stderr)
        return 3
    print(f"{CALLS} calls, {DRAWS} draws, start-up median of {args.repeat} processes; "
          "ratio = binding / glapi, same run")
    print(f"{'':18s}{'start-up s':>11s}{'ratio':>7s}{'per call us':>13s}{'ratio':>7s}"
          f"{'per draw us':>13s}{'ratio':>7s}")
    for k in kinds:
        r = res.get(k, {})
        if "error" in r:
            print(f"{k:18s}unavailable: {r['error']}")
            continue
        print(f"{k:18s}{r['startup']:11.3f}{r['startup'] / base['startup']:7.2f}"
              f"{r['per_call'] * 1e6:13.2f}{r['per_call'] / base['per_call']:7.1f}"
              f"{r['per_draw'] * 1e6:13.1f}{r['per_draw'] / base['per_draw']:7.2f}")
    print("\ncoverage")
    for k in kinds:
        r = res.get(k, {})
        if "error" in r:
            continue
        print(f"  {k}:")
        print(f"    draws read back        {r['pixel']}")
        print(f"    GL_ARB_gl_spirv         {r['spirv']}")
        print(f"    glProgramStringARB      {r['arb']}")
        miss = f" (missing: {', '.join(r['missing'])})" if r["missing"] else ""
        print(f"    verifier entry points   {r['wrapped']}/{r['entry_points']} wrapped{miss}, "
              f"{r['live_compat']} resolved in a compatibility context"
              + (f" (not: {', '.join(r['dead_compat'])})" if r["dead_compat"] else ""))
        if k != "glapi":
            print(f"    a GL error raises       {r['raises']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
