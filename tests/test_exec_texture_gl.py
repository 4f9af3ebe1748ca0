"""Executor textures vs the translated GLSL on a real GL implementation (Mesa llvmpipe through
EGL/moderngl): the same program, inputs and texture state on both sides must give the same
results.  Skipped where moderngl or a surfaceless EGL context is unavailable.

The GL side uploads :class:`xlate.exec.Texture` through raw GL calls (ctypes on
``eglGetProcAddress``; moderngl has no 1D/rectangle/buffer textures), following
``Texture.gl_state``.  Vertex programs run through transform feedback; fragment programs draw
into an RGBA32F target, with per-pixel coordinates fetched (TXF) from a coordinate texture
laid out so that executor lane 4k..4k+3 is the 2x2 pixel quad k (x0y0, x1y0, x0y1, x1y1).
"""
from __future__ import annotations

import ctypes
import os

import numpy as np
import pytest

from conftest import gl_context, no_gl

from xlate.exec import Texture, execute

os.environ.setdefault("EGL_PLATFORM", "surfaceless")

GL = {
    "1D": 0x0DE0, "2D": 0x0DE1, "3D": 0x806F, "CUBE": 0x8513, "RECT": 0x84F5,
    "ARRAY1D": 0x8C18, "ARRAY2D": 0x8C1A, "BUFFER": 0x8C2A,
    "NEAREST": 0x2600, "LINEAR": 0x2601, "NEAREST_MIPMAP_NEAREST": 0x2700,
    "LINEAR_MIPMAP_NEAREST": 0x2701, "NEAREST_MIPMAP_LINEAR": 0x2702,
    "LINEAR_MIPMAP_LINEAR": 0x2703, "REPEAT": 0x2901, "CLAMP_TO_EDGE": 0x812F,
    "CLAMP_TO_BORDER": 0x812D, "MIRRORED_REPEAT": 0x8370, "MIRROR_CLAMP_TO_EDGE": 0x8743,
    "NEVER": 0x0200, "LESS": 0x0201, "EQUAL": 0x0202, "LEQUAL": 0x0203, "GREATER": 0x0204,
    "NOTEQUAL": 0x0205, "GEQUAL": 0x0206, "ALWAYS": 0x0207,
    "COMPARE_REF_TO_TEXTURE": 0x884E, "NONE": 0,
}
P_MIN, P_MAG, P_WS, P_WT, P_WR = 0x2801, 0x2800, 0x2802, 0x2803, 0x8072
P_BORDER, P_CMODE, P_CFUNC, P_BASE, P_MAX = 0x1004, 0x884C, 0x884D, 0x813C, 0x813D
P_BIAS, P_MINLOD, P_MAXLOD = 0x8501, 0x813A, 0x813B
SEAMLESS = 0x884F


class RawGL:
    """The few GL entry points moderngl does not wrap, resolved through eglGetProcAddress."""

    SIGS = {
        "glGenTextures": (None, ctypes.c_int, ctypes.POINTER(ctypes.c_uint)),
        "glDeleteTextures": (None, ctypes.c_int, ctypes.POINTER(ctypes.c_uint)),
        "glBindTexture": (None, ctypes.c_uint, ctypes.c_uint),
        "glActiveTexture": (None, ctypes.c_uint),
        "glTexImage1D": (None, ctypes.c_uint, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                         ctypes.c_int, ctypes.c_uint, ctypes.c_uint, ctypes.c_void_p),
        "glTexImage2D": (None, ctypes.c_uint, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                         ctypes.c_int, ctypes.c_int, ctypes.c_uint, ctypes.c_uint, ctypes.c_void_p),
        "glTexImage3D": (None, ctypes.c_uint, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                         ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_uint, ctypes.c_uint,
                         ctypes.c_void_p),
        "glTexParameteri": (None, ctypes.c_uint, ctypes.c_uint, ctypes.c_int),
        "glTexParameterf": (None, ctypes.c_uint, ctypes.c_uint, ctypes.c_float),
        "glTexParameterfv": (None, ctypes.c_uint, ctypes.c_uint, ctypes.POINTER(ctypes.c_float)),
        "glTexParameterIiv": (None, ctypes.c_uint, ctypes.c_uint, ctypes.POINTER(ctypes.c_int)),
        "glTexBuffer": (None, ctypes.c_uint, ctypes.c_uint, ctypes.c_uint),
        "glEnable": (None, ctypes.c_uint),
        "glDisable": (None, ctypes.c_uint),
        "glIsEnabled": (ctypes.c_ubyte, ctypes.c_uint),
        "glGetError": (ctypes.c_uint,),
        "glPixelStorei": (None, ctypes.c_uint, ctypes.c_int),
    }

    def __init__(self):
        egl = ctypes.CDLL("libEGL.so.1")
        egl.eglGetProcAddress.restype = ctypes.c_void_p
        egl.eglGetProcAddress.argtypes = [ctypes.c_char_p]
        for name, sig in self.SIGS.items():
            addr = egl.eglGetProcAddress(name.encode())
            if not addr:
                raise RuntimeError(f"no GL entry point {name}")
            setattr(self, name[2:], ctypes.CFUNCTYPE(*sig)(addr))


class GLRunner:
    def __init__(self):
        import moderngl
        self.mgl = moderngl
        self.ctx = moderngl.create_context(standalone=True, backend="egl", require=450)
        # a surfaceless context has no default framebuffer (toolchain.md §2.2)
        self.ctx.framebuffer(color_attachments=[self.ctx.renderbuffer((1, 1))]).use()
        self.gl = RawGL()
        self.gl.PixelStorei(0x0CF5, 1)          # GL_UNPACK_ALIGNMENT
        self.names: list[int] = []
        self.keep: list = []

    # -- textures ----------------------------------------------------------------------------
    def upload(self, unit: int, tex: Texture, shadow: bool) -> None:
        gl = self.gl
        st = tex.gl_state(shadow)
        target = tex.target
        gt = GL[target]
        name = ctypes.c_uint()
        gl.GenTextures(1, ctypes.byref(name))
        self.names.append(name.value)
        gl.ActiveTexture(0x84C0 + unit)
        levels = [np.asarray(a) for a in tex.levels]
        kind = levels[0].dtype.kind
        if shadow:
            ifmt, fmt, typ, dt = 0x8CAC, 0x1902, 0x1406, np.float32   # DEPTH_COMPONENT32F
        elif kind == "f":
            ifmt, fmt, typ, dt = 0x8814, 0x1908, 0x1406, np.float32   # RGBA32F
        elif kind == "i":
            ifmt, fmt, typ, dt = 0x8D82, 0x8D99, 0x1404, np.int32     # RGBA32I
        else:
            ifmt, fmt, typ, dt = 0x8D70, 0x8D99, 0x1405, np.uint32    # RGBA32UI

        def pad(a):
            a = np.asarray(a).astype(dt)
            if shadow:
                return np.ascontiguousarray(a[..., 0])
            c = a.shape[-1]
            if c < 4:
                fill = np.array([0, 0, 0, 1], dt)[c:]
                a = np.concatenate([a, np.broadcast_to(fill, a.shape[:-1] + (4 - c,))], -1)
            return np.ascontiguousarray(a)

        if target == "BUFFER":
            data = pad(levels[0])
            buf = self.ctx.buffer(data.tobytes())
            self.keep.append(buf)
            gl.BindTexture(gt, name.value)
            gl.TexBuffer(gt, ifmt, buf.glo)
            return
        gl.BindTexture(gt, name.value)
        for lv, a in enumerate(levels):
            d = pad(a)
            self.keep.append(d)
            ptr = d.ctypes.data_as(ctypes.c_void_p)
            if target == "1D":
                gl.TexImage1D(gt, lv, ifmt, d.shape[0], 0, fmt, typ, ptr)
            elif target in ("2D", "RECT", "ARRAY1D"):
                gl.TexImage2D(gt, lv, ifmt, d.shape[1], d.shape[0], 0, fmt, typ, ptr)
            elif target in ("3D", "ARRAY2D"):
                gl.TexImage3D(gt, lv, ifmt, d.shape[2], d.shape[1], d.shape[0], 0, fmt, typ, ptr)
            else:
                for f in range(6):
                    fd = np.ascontiguousarray(d[f])
                    self.keep.append(fd)
                    gl.TexImage2D(0x8515 + f, lv, ifmt, fd.shape[1], fd.shape[0], 0, fmt, typ,
                                  fd.ctypes.data_as(ctypes.c_void_p))
        gl.TexParameteri(gt, P_MIN, GL[st["TEXTURE_MIN_FILTER"]])
        gl.TexParameteri(gt, P_MAG, GL[st["TEXTURE_MAG_FILTER"]])
        if target != "RECT":
            gl.TexParameteri(gt, P_WR, GL[st["TEXTURE_WRAP_R"]])
        gl.TexParameteri(gt, P_WS, GL[st["TEXTURE_WRAP_S"]])
        gl.TexParameteri(gt, P_WT, GL[st["TEXTURE_WRAP_T"]])
        if kind == "f" or shadow:
            border = (ctypes.c_float * 4)(*st["TEXTURE_BORDER_COLOR"])
            gl.TexParameterfv(gt, P_BORDER, border)
        else:
            border = (ctypes.c_int * 4)(*[int(v) for v in st["TEXTURE_BORDER_COLOR"]])
            gl.TexParameterIiv(gt, P_BORDER, border)
        gl.TexParameteri(gt, P_CMODE, GL[st["TEXTURE_COMPARE_MODE"]])
        gl.TexParameteri(gt, P_CFUNC, GL[st["TEXTURE_COMPARE_FUNC"]])
        gl.TexParameteri(gt, P_BASE, st["TEXTURE_BASE_LEVEL"])
        gl.TexParameteri(gt, P_MAX, st["TEXTURE_MAX_LEVEL"])
        gl.TexParameterf(gt, P_BIAS, st["TEXTURE_LOD_BIAS"])
        gl.TexParameterf(gt, P_MINLOD, st["TEXTURE_MIN_LOD"])
        gl.TexParameterf(gt, P_MAXLOD, st["TEXTURE_MAX_LOD"])
        if target == "CUBE":
            (gl.Enable if st["TEXTURE_CUBE_MAP_SEAMLESS"] else gl.Disable)(SEAMLESS)

    def release(self):
        if self.names:
            arr = (ctypes.c_uint * len(self.names))(*self.names)
            self.gl.DeleteTextures(len(self.names), arr)
        self.names.clear()
        self.keep.clear()

    # -- programs ------------------------------------------------------------------------------
    def _uniforms(self, prog, refl, params):
        for u in refl["uniforms"]:
            if u["name"] not in prog:
                continue
            n = u["array_size"] or 1
            vals = np.zeros((n, 4), np.float32)
            for e, b in u["elements"].items():
                if b in params:
                    vals[int(e) if e != "None" else 0] = params[b]
            prog[u["name"]].write(vals.tobytes())

    def run_vertex(self, src: str, attribs: dict, params: dict, textures: dict, shadow=()):
        import xlate
        t = xlate.translate(src, validate=False)
        refl = t.reflection
        outs = [o for o in refl["outputs"]]
        prog = self.ctx.program(vertex_shader=t.glsl, varyings=[o["name"] for o in outs])
        self._uniforms(prog, refl, params)
        for unit, tex in textures.items():
            self.upload(unit, tex, unit in shadow)
        n = len(next(iter(attribs.values())))
        content = []
        for i in refl["inputs"]:
            if i["name"] in prog and i["binding"] in attribs:
                a = np.ascontiguousarray(attribs[i["binding"]], np.float32)
                buf = self.ctx.buffer(a.tobytes())
                self.keep.append(buf)
                content.append((buf, "4f", i["name"]))
        vao = self.ctx.vertex_array(prog, content)
        out = self.ctx.buffer(reserve=n * 16 * len(outs))
        vao.transform(out, mode=self.mgl.POINTS, vertices=n)
        err = self.ctx.error
        assert err == "GL_NO_ERROR", err
        data = np.frombuffer(out.read(), np.float32).reshape(n, len(outs), 4)
        self.release()
        return {o["binding"]: data[:, k] for k, o in enumerate(outs)}

    def run_fragment(self, src: str, coords: np.ndarray, params: dict, textures: dict,
                     shadow=(), coord_unit=7):
        """``coords`` (lanes, 4), lanes a multiple of 4 (quads); the program reads them with
        ``TXF`` from texture[coord_unit] at the truncated fragment position."""
        import xlate
        lanes = coords.shape[0]
        nq = lanes // 4
        QW = min(nq, 16)
        QH = (nq + QW - 1) // QW
        W, H = 2 * QW, 2 * QH
        img = np.zeros((H, W, 4), np.float32)
        q = np.arange(lanes) // 4
        r = np.arange(lanes) % 4
        px = (q % QW) * 2 + (r & 1)
        py = (q // QW) * 2 + (r >> 1)
        img[py, px] = coords
        t = xlate.translate(src, validate=False)
        refl = t.reflection
        vs = ("#version 450\nvoid main() { vec2 p = vec2((gl_VertexID & 1) * 4.0 - 1.0, "
              "(gl_VertexID >> 1) * 4.0 - 1.0); gl_Position = vec4(p, 0.0, 1.0); }")
        prog = self.ctx.program(vertex_shader=vs, fragment_shader=t.glsl)
        self._uniforms(prog, refl, params)
        for unit, tex in textures.items():
            self.upload(unit, tex, unit in shadow)
        self.upload(coord_unit, Texture([img], "2D"), False)
        target = self.ctx.texture((W, H), 4, dtype="f4")
        fbo = self.ctx.framebuffer(color_attachments=[target])
        fbo.use()
        fbo.clear(0, 0, 0, 0)
        vao = self.ctx.vertex_array(prog, [])
        vao.render(self.mgl.TRIANGLES, vertices=3)
        err = self.ctx.error
        assert err == "GL_NO_ERROR", err
        out = np.frombuffer(target.read(), np.float32).reshape(H, W, 4)
        self.release()
        return out[py, px]


@pytest.fixture(scope="module")
def gl():
    try:
        import moderngl  # noqa: F401
    except ImportError as e:
        no_gl(f"moderngl is not installed ({e})")
    gl_context("core")      # skips (fails under XLATE_REQUIRE_GL) without EGL / llvmpipe
    return GLRunner()       # anything failing here, with an implementation present, fails


# ---- helpers ---------------------------------------------------------------------------------

FP_HEAD = """!!NVfp4.0
TEMP C, R0;
TRUNC.S C, fragment.position;
MOV.S C.w, 0;
TXF C, C, texture[7], 2D;
"""


def frag(body: str) -> str:
    return FP_HEAD + body + "\nMOV result.color, R0;\nEND\n"


def vert(body: str) -> str:
    return ("!!NVvp4.0\nTEMP R0;\nATTRIB C = vertex.attrib[1];\n" + body
            + "\nMOV result.texcoord[0], R0;\nMOV result.position, C;\nEND\n")


def check(gl_out, ex_out, atol=1e-5, rtol=1e-5, what=""):
    gl_out = np.asarray(gl_out, np.float32)
    ex_out = np.asarray(ex_out, np.float32)
    ok = np.isclose(gl_out, ex_out, atol=atol, rtol=rtol, equal_nan=True)
    if not ok.all():
        bad = np.argwhere(~ok.all(axis=1))[:8, 0]
        msg = "\n".join(f"lane {i}: GL {gl_out[i].tolist()} executor {ex_out[i].tolist()}"
                        for i in bad)
        raise AssertionError(f"{what}: {(~ok.all(axis=1)).sum()} lanes differ:\n{msg}")


def run_both_fragment(gl, body, coords, textures, params=None, shadow=()):
    src = frag(body)
    g = gl.run_fragment(src, coords, params or {}, textures, shadow)
    # the executor: fragment.position per lane = the pixel centre the GL side uses
    lanes = coords.shape[0]
    nq = lanes // 4
    QW = min(nq, 16)
    q = np.arange(lanes) // 4
    r = np.arange(lanes) % 4
    px = (q % QW) * 2 + (r & 1)
    py = (q // QW) * 2 + (r >> 1)
    H = 2 * ((nq + QW - 1) // QW)
    img = np.zeros((H, 2 * QW, 4), np.float32)
    img[py, px] = coords
    pos = np.stack([px + 0.5, py + 0.5, np.full(lanes, 0.5), np.ones(lanes)], 1).astype(np.float32)
    tex = dict(textures)
    tex[7] = Texture([img], "2D")
    e = execute(src, {"fragment.position": pos}, params=params or {}, textures=tex, sampling="llvmpipe")
    return g, e.float("result.color")


def run_both_vertex(gl, body, coords, textures, params=None, shadow=(), attr2=None):
    src = vert(body)
    attribs = {"vertex.attrib[1]": coords}
    if attr2 is not None:
        attribs["vertex.attrib[2]"] = attr2
    g = gl.run_vertex(src, attribs, params or {}, textures, shadow)
    e = execute(src, attribs, params=params or {}, textures=textures, sampling="llvmpipe")
    return g["result.texcoord[0]"], e.float("result.texcoord[0]")


def mip_chain(rng, w, h=None, d=None, comps=4, faces=None, layers=None):
    out = []
    while True:
        shape = tuple(x for x in (faces, layers, d, h, w) if x is not None) + (comps,)
        out.append(rng.random(shape).astype(np.float32) * 8)
        if max(x for x in (w, h or 1, d or 1)) == 1:
            return out
        w = max(1, w // 2)
        h = None if h is None else max(1, h // 2)
        d = None if d is None else max(1, d // 2)


# ---- tests -----------------------------------------------------------------------------------

def test_gl_2d_filters_wraps_vertex(gl):
    rng = np.random.default_rng(1)
    lanes = 256
    coords = np.concatenate([rng.uniform(-2.3, 2.3, (lanes, 2)), np.zeros((lanes, 1)),
                             rng.uniform(-1, 4, (lanes, 1))], 1).astype(np.float32)
    levels = mip_chain(rng, 8, 4)
    for filt, mag in (("NEAREST", "NEAREST"), ("LINEAR", "LINEAR"),
                      ("LINEAR_MIPMAP_LINEAR", "LINEAR"), ("NEAREST_MIPMAP_NEAREST", "NEAREST"),
                      ("LINEAR_MIPMAP_NEAREST", "LINEAR"), ("NEAREST_MIPMAP_LINEAR", "NEAREST")):
        for wrap in ("REPEAT", "CLAMP_TO_EDGE", "MIRRORED_REPEAT", "CLAMP_TO_BORDER",
                     "MIRROR_CLAMP_TO_EDGE"):
            tex = Texture(levels, "2D", filter=filt, mag_filter=mag, wrap=wrap,
                          border=(0.25, 0.5, 0.75, 1.0))
            for op in ("TEX", "TXL"):
                g, e = run_both_vertex(gl, f"{op} R0, C, texture[0], 2D;", coords, {0: tex})
                check(g, e, atol=1e-4, what=_ctx(locals()))


def quad_coords(rng, nquads, centre_lo, centre_hi, scale_lo, scale_hi, ncomp=4, extra=None):
    """Per quad: a random centre and a random per-axis step between neighbouring pixels, so
    that implicit derivatives (and thus LODs) vary from quad to quad."""
    centre = rng.uniform(centre_lo, centre_hi, (nquads, ncomp))
    sx = rng.uniform(scale_lo, scale_hi, (nquads, ncomp)) * rng.choice([-1, 1], (nquads, ncomp))
    sy = rng.uniform(scale_lo, scale_hi, (nquads, ncomp)) * rng.choice([-1, 1], (nquads, ncomp))
    out = np.empty((nquads, 4, ncomp))
    out[:, 0] = centre
    out[:, 1] = centre + sx
    out[:, 2] = centre + sy
    out[:, 3] = centre + sx + sy
    out = out.reshape(-1, ncomp)
    if extra is not None:
        out[:, -1] = extra(out.shape[0])
    return out.astype(np.float32)


def test_gl_2d_implicit_lod_fragment(gl):
    rng = np.random.default_rng(2)
    coords = quad_coords(rng, 64, -1.5, 1.5, 0.01, 0.6)
    levels = mip_chain(rng, 16, 8)
    for filt, mag in (("LINEAR_MIPMAP_LINEAR", "LINEAR"), ("NEAREST_MIPMAP_NEAREST", "NEAREST"),
                      ("LINEAR_MIPMAP_NEAREST", "NEAREST"), ("NEAREST", "LINEAR"),
                      ("NEAREST_MIPMAP_LINEAR", "LINEAR")):
        tex = Texture(levels, "2D", filter=filt, mag_filter=mag, wrap="REPEAT")
        for op in ("TEX", "TXB", "TXP"):
            g, e = run_both_fragment(gl, f"{op} R0, C, texture[0], 2D;", coords, {0: tex})
            check(g, e, atol=2e-3, what=_ctx(locals()))


def test_gl_3d_and_arrays(gl):
    rng = np.random.default_rng(3)
    coords = quad_coords(rng, 64, -1.2, 1.2, 0.01, 0.4)
    layer = lambda n: rng.uniform(-1.2, 4.3, n)  # noqa: E731
    c3 = quad_coords(rng, 64, -1.2, 1.2, 0.01, 0.4)
    cases = [
        ("3D", Texture(mip_chain(rng, 8, 4, 4), "3D", filter="LINEAR_MIPMAP_LINEAR",
                       mag_filter="LINEAR", wrap=("REPEAT", "MIRRORED_REPEAT", "CLAMP_TO_EDGE")), c3),
        ("ARRAY2D", Texture(mip_chain(rng, 8, 8, layers=3), "ARRAY2D", filter="LINEAR_MIPMAP_LINEAR",
                            mag_filter="LINEAR"), np.concatenate([coords[:, :2], layer(len(coords))[:, None], coords[:, 3:]], 1)),
        ("ARRAY1D", Texture(mip_chain(rng, 8, layers=5), "ARRAY1D", filter="LINEAR_MIPMAP_NEAREST",
                            mag_filter="LINEAR"), np.concatenate([coords[:, :1], layer(len(coords))[:, None], coords[:, 2:]], 1)),
        ("1D", Texture(mip_chain(rng, 16), "1D", filter="LINEAR_MIPMAP_LINEAR", mag_filter="NEAREST",
                       wrap="MIRRORED_REPEAT"), coords),
    ]
    for target, tex, c in cases:
        c = np.asarray(c, np.float32)
        for op in ("TEX", "TXB"):
            g, e = run_both_fragment(gl, f"{op} R0, C, texture[0], {target};", c, {0: tex})
            check(g, e, atol=2e-3, what=_ctx(locals()))
        g, e = run_both_vertex(gl, f"TXL R0, C, texture[0], {target};", c, {0: tex})
        check(g, e, atol=1e-4, what=_ctx(locals()))


def test_gl_cube(gl):
    rng = np.random.default_rng(4)
    dirs = quad_coords(rng, 64, -1, 1, 0.001, 0.2)
    levels = mip_chain(rng, 8, 8, faces=6)
    for seamless in (True, False):
        for filt, mag in (("LINEAR_MIPMAP_LINEAR", "LINEAR"), ("NEAREST_MIPMAP_NEAREST", "NEAREST")):
            tex = Texture(levels, "CUBE", filter=filt, mag_filter=mag, wrap="CLAMP_TO_EDGE",
                          seamless=seamless)
            g, e = run_both_vertex(gl, "TXL R0, C, texture[0], CUBE;", dirs, {0: tex})
            check(g, e, atol=1e-4, what=_ctx(locals()))
            g, e = run_both_fragment(gl, "TEX R0, C, texture[0], CUBE;", dirs, {0: tex})
            check(g, e, atol=2e-3, what=_ctx(locals()))


def _ctx(loc: dict) -> str:
    keys = ("op", "target", "filt", "mag", "wrap", "seamless", "case")
    return ", ".join(f"{k}={loc[k]!r}" for k in keys if k in loc)


def test_gl_cube_edges_and_corners(gl):
    rng = np.random.default_rng(5)
    n = 256
    d = rng.uniform(-1, 1, (n, 3))
    # push two (edges) or three (corners) components to the same magnitude, give or take
    big = rng.integers(0, 3, n)
    d[np.arange(n), big] = np.sign(d[np.arange(n), big]) + 1e-7
    other = (big + rng.integers(1, 3, n)) % 3
    d[np.arange(n), other] = np.sign(d[np.arange(n), other]) * rng.uniform(0.9, 1.0, n)
    corner = rng.random(n) < 0.3
    d[corner] = np.sign(d[corner]) * rng.uniform(0.93, 1.0, (corner.sum(), 3))
    coords = np.concatenate([d, rng.uniform(-0.5, 2, (n, 1))], 1).astype(np.float32)
    levels = mip_chain(rng, 4, 4, faces=6)
    for seamless in (True, False):
        tex = Texture(levels, "CUBE", filter="LINEAR_MIPMAP_LINEAR", mag_filter="LINEAR",
                      wrap="CLAMP_TO_EDGE", seamless=seamless)
        g, e = run_both_vertex(gl, "TXL R0, C, texture[0], CUBE;", coords, {0: tex})
        check(g, e, atol=1e-4, what=f"seamless={seamless}")


def test_gl_shadow_targets(gl):
    rng = np.random.default_rng(6)
    coords = quad_coords(rng, 64, -0.2, 1.2, 0.001, 0.3)
    dirs = quad_coords(rng, 64, -1, 1, 0.001, 0.2)
    dirs[:, 3] = rng.uniform(0, 1, len(dirs))
    lay = rng.uniform(-0.5, 3.5, len(coords)).astype(np.float32)
    ref = rng.uniform(-0.1, 1.1, len(coords)).astype(np.float32)
    cases = {
        "SHADOW1D": (Texture(mip_chain(rng, 16, comps=1), "1D", filter="LINEAR_MIPMAP_LINEAR",
                             mag_filter="LINEAR"), np.stack([coords[:, 0], coords[:, 1], ref, coords[:, 3]], 1)),
        "SHADOW2D": (Texture(mip_chain(rng, 8, 8, comps=1), "2D", filter="LINEAR",
                             compare="GEQUAL", wrap="CLAMP_TO_BORDER", border=(0.5, 0, 0, 0)),
                     np.stack([coords[:, 0], coords[:, 1], ref, coords[:, 3]], 1)),
        "SHADOWRECT": (Texture([rng.random((5, 7, 1)).astype(np.float32)], "RECT", filter="LINEAR",
                               compare="LESS"), np.stack([coords[:, 0] * 7, coords[:, 1] * 5, ref, coords[:, 3]], 1)),
        "SHADOWARRAY1D": (Texture(mip_chain(rng, 8, layers=4, comps=1), "ARRAY1D",
                                  filter="NEAREST_MIPMAP_NEAREST", compare="GREATER"),
                          np.stack([coords[:, 0], lay, ref, coords[:, 3]], 1)),
        "SHADOWARRAY2D": (Texture(mip_chain(rng, 8, 8, layers=4, comps=1), "ARRAY2D",
                                  filter="LINEAR_MIPMAP_NEAREST", compare="NOTEQUAL"),
                          np.stack([coords[:, 0], coords[:, 1], lay, ref], 1)),
        "SHADOWCUBE": (Texture(mip_chain(rng, 4, 4, faces=6, comps=1), "CUBE",
                               filter="LINEAR_MIPMAP_LINEAR", mag_filter="LINEAR"), dirs),
    }
    for target, (tex, c) in cases.items():
        c = np.asarray(c, np.float32)
        g, e = run_both_fragment(gl, f"TEX R0, C, texture[0], {target};", c, {0: tex}, shadow={0})
        check(g, e, atol=2e-3, what=f"TEX {target}")
        if target not in ("SHADOWCUBE", "SHADOWARRAY2D"):
            for op in ("TXB", "TXP"):
                cc = c.copy()
                if op == "TXP":
                    cc[:, 3] = rng.uniform(0.5, 2, len(cc))
                    cc[:, :3] *= cc[:, 3:]
                g, e = run_both_fragment(gl, f"{op} R0, C, texture[0], {target};", cc, {0: tex},
                                         shadow={0})
                check(g, e, atol=2e-3, what=f"{op} {target}")
            g, e = run_both_vertex(gl, f"TXL R0, C, texture[0], {target};", c, {0: tex}, shadow={0})
            check(g, e, atol=1e-4, what=f"TXL {target}")


def test_gl_rect_offsets_and_sampler_lod_state(gl):
    rng = np.random.default_rng(7)
    coords = quad_coords(rng, 64, -1.5, 1.5, 0.01, 0.8)
    levels = mip_chain(rng, 16, 16)
    tex = Texture(levels, "2D", filter="LINEAR_MIPMAP_LINEAR", mag_filter="LINEAR",
                  wrap=("MIRRORED_REPEAT", "REPEAT"), base_level=1, lod_bias=0.7, min_lod=0.25,
                  max_lod=2.5)
    for op in ("TEX", "TXB", "TXP"):
        c = coords.copy()
        if op == "TXP":
            c[:, 3] = rng.uniform(0.5, 2, len(c))
        g, e = run_both_fragment(gl, f"{op} R0, C, texture[0], 2D, (-3, 2);", c, {0: tex})
        check(g, e, atol=2e-3, what=op)
    for op in ("TEX", "TXB", "TXP", "TXL"):
        g, e = run_both_vertex(gl, f"{op} R0, C, texture[0], 2D, (1, -4);", coords, {0: tex})
        check(g, e, atol=1e-4, what=f"vertex {op}")
    rect = Texture([rng.random((5, 9, 4)).astype(np.float32)], "RECT", filter="NEAREST",
                   mag_filter="LINEAR", wrap=("CLAMP_TO_BORDER", "CLAMP_TO_EDGE"),
                   border=(1, 2, 3, 4))
    rc = quad_coords(rng, 64, -2, 11, 0.2, 2)
    for op in ("TEX", "TXB", "TXL", "TXP"):
        g, e = run_both_fragment(gl, f"{op} R0, C, texture[0], RECT, (2, -1);", rc, {0: rect})
        check(g, e, atol=2e-3, what=f"RECT {op}")
        g, e = run_both_vertex(gl, f"{op} R0, C, texture[0], RECT;", rc, {0: rect})
        check(g, e, atol=1e-4, what=f"vertex RECT {op}")


def test_gl_txd(gl):
    rng = np.random.default_rng(8)
    n = 256
    coords = rng.uniform(-1.5, 1.5, (n, 4)).astype(np.float32)
    grads = (rng.uniform(-0.5, 0.5, (n, 4)) * rng.choice([1e-3, 0.05, 0.3], (n, 1))).astype(np.float32)
    cases = [("2D", Texture(mip_chain(rng, 16, 8), "2D", filter="LINEAR_MIPMAP_LINEAR", mag_filter="LINEAR")),
             ("3D", Texture(mip_chain(rng, 8, 8, 4), "3D", filter="LINEAR_MIPMAP_NEAREST")),
             ("ARRAY1D", Texture(mip_chain(rng, 16, layers=3), "ARRAY1D", filter="NEAREST_MIPMAP_LINEAR")),
             ("CUBE", Texture(mip_chain(rng, 8, 8, faces=6), "CUBE", filter="LINEAR_MIPMAP_LINEAR"))]
    for target, tex in cases:
        src_body = f"TXD R0, C, D, D.yzxw, texture[0], {target};"
        body = "ATTRIB D = vertex.attrib[2];\n" + src_body
        g, e = run_both_vertex(gl, body, coords, {0: tex}, attr2=grads)
        check(g, e, atol=1e-4, what=target)


def test_gl_txf_txq_integer_and_buffer(gl):
    rng = np.random.default_rng(9)
    n = 256
    # llvmpipe's textureSize takes the LOD of the first of each 8 vertex-shader lanes: keep the
    # TXQ level (z, read as I.zwxy) uniform per 8 lanes
    ints = np.stack([rng.integers(-2, 18, n), rng.integers(-2, 10, n),
                     np.repeat(rng.integers(-1, 5, n // 8), 8), rng.integers(-1, 5, n)], 1).astype(np.int32)
    fl = ints.view(np.float32)           # the attribute carries the integer bits
    i2d = [rng.integers(-1000, 1000, (8, 16, 4)).astype(np.int32),
           rng.integers(-1000, 1000, (4, 8, 4)).astype(np.int32),
           rng.integers(-1000, 1000, (2, 4, 4)).astype(np.int32)]
    u3d = [rng.integers(0, 2 ** 32, (4, 8, 16, 4), dtype=np.uint64).astype(np.uint32)]
    cases = [("2D", ".S", Texture(i2d, "2D", filter="NEAREST_MIPMAP_NEAREST"), "(1, -2)"),
             ("2D", ".S", Texture(i2d, "2D", filter="NEAREST_MIPMAP_NEAREST", base_level=1), ""),
             ("3D", ".U", Texture(u3d, "3D"), "(0, 1, -1)"),
             ("ARRAY2D", "", Texture(mip_chain(rng, 16, 8, layers=4), "ARRAY2D",
                                     filter="LINEAR_MIPMAP_LINEAR"), "(3, 0)"),
             ("ARRAY1D", "", Texture(mip_chain(rng, 16, layers=4), "ARRAY1D",
                                     filter="LINEAR_MIPMAP_LINEAR"), ""),
             ("1D", ".U", Texture([rng.integers(0, 99, (16, 2)).astype(np.uint32)], "1D"), "(-1)"),
             ("RECT", "", Texture([rng.random((8, 16, 3)).astype(np.float32)], "RECT"), "(2, 2)"),
             ("BUFFER", ".S", Texture([rng.integers(-9, 9, (13, 4)).astype(np.int32)], "BUFFER"), "")]
    for target, t, tex, off in cases:
        offs = f", {off}" if off else ""
        # TXQ alone would make the GLSL backend declare a float sampler (the program does not
        # say the format), so both instructions share the program
        src = f"""!!NVvp4.0
INT TEMP I;
TEMP R0, R1;
MOV.S I, vertex.attrib[1];
TXF{t} R0, I, texture[0], {target}{offs};
TXQ R1, I.zwxy, texture[0], {target};
MOV result.texcoord[0], R0;
MOV result.texcoord[1], R1;
MOV result.position, vertex.attrib[1];
END
"""
        attribs = {"vertex.attrib[1]": fl}
        gout = gl.run_vertex(src, attribs, {}, {0: tex})
        eout = execute(src, attribs, textures={0: tex})
        for which in ("result.texcoord[0]", "result.texcoord[1]"):
            a = gout[which].view(np.uint32)
            b = eout.words(which)
            assert np.array_equal(a, b), \
                (target, t, off, which, np.argwhere(a != b)[:4], a[np.argwhere(a != b)[:4, 0]], b[np.argwhere(a != b)[:4, 0]])
