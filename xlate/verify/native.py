"""``xlate verify --backend native``: the ORIGINAL assembly program on the driver's own
assembly interface, compared with the executor.

Why: the ``gl``/``vulkan`` backends check the *translation*; both sides of that comparison
read the specs through this project's eyes (the executor and the translator).  Here the
driver's own implementation of ARB_vertex_program / ARB_fragment_program (Mesa: the
compatibility profile; NVIDIA: every NV dialect) runs the program text, so a difference
points at the executor's reading of a spec or at the driver.  Outputs are compared bit for bit
and every difference goes through the replay (:mod:`replay`, :mod:`permits`) as a
translation's does, with the implementation's values probed from the instrumented original
text (:mod:`native_probe`); the pipeline is :mod:`native_verify`.  This module is the driver
interface: loading, the interface edits below, feeding and capturing.

Loading (:func:`load_target`): the header picks the target -- ``!!ARBvp1.0``/``!!NVvp4.0``
GL_VERTEX_PROGRAM_ARB, ``!!ARBfp1.0``/``!!NVfp4.0`` GL_FRAGMENT_PROGRAM_ARB, ``!!NVgp4.0``
GL_GEOMETRY_PROGRAM_NV through ``glProgramStringARB``; ``!!VP1.x``/``!!VP2.0`` (and the state
programs ``!!VSP1.0``) through ``glLoadProgramNV``, ``!!FP1.x`` GL_FRAGMENT_PROGRAM_NV.  The
*original* text is loaded first: what the driver refuses is ``unsupported: <its
GL_PROGRAM_ERROR_STRING_ARB>``, never a pass.  Programs the driver accepts but this harness
cannot feed or capture (geometry and state programs, an ``!!FP1.0`` depth output, NVfp4
``fragment.attrib[n]`` inputs) are ``unsupported`` naming the harness.

Interface edits (text rewrites, only the interface, never the computation; all listed here,
made by :mod:`native_text`):

Vertex programs (GL_POINTS, one 1x1 point per lane at pixel (lane % 64, lane // 64) of
RGBA32F render targets):
  * ``result.position`` is renamed to a ``result.texcoord[k]`` the program does not write,
    and ``MOV result.position, vertex.attrib[a];`` (a generic attribute the program does not
    read, holding the lane's pixel centre) is inserted after the header and OPTION lines --
    at the start, so an early ``RET`` cannot skip it and the program's own writes land in
    the renamed output; ``OPTION ARB_position_invariant`` is removed (the position is then
    the fixed-function transform, which is not the program's computation: not compared);
  * a second pass, only for programs writing back-face colours or the point size, swaps
    ``result.color[.back][.secondary]`` front <-> back and ``result.pointsize`` <->
    ``result.fogcoord`` (points are front-facing and their size is not a varying);
  * a pass-through fragment program of the harness (``OPTION ARB_draw_buffers``) copies
    each captured varying (``fragment.texcoord[n]``, ``fragment.color.primary/secondary``,
    ``fragment.fogcoord``) to its own RGBA32F attachment, 8 per draw.
  A point's attributes are not interpolated (constant over the point, w = 1), and vertex,
  fragment and read colour clamping are off (``glClampColor``), so the values arrive exact --
  on llvmpipe; NVIDIA's interpolation turns +-Inf into NaN even over a point, so there the
  pass-through program is an ``!!NVfp4.0`` one reading ``FLAT`` attributes (``Runner.flat``).
  ``!!VP1.x``/``!!VP2.0`` texts get the same edits in their own syntax
  (:func:`rename_nv1_results`: ``o[HPOS]`` -> ``o[TEXk]``, ``MOV o[HPOS], v[a];``,
  ``OPTION NV_position_invariant`` removed); their ``v[n]`` are generic attribute n and their
  ``c[n]`` program environment parameter n (NV_vertex_program and ARB_vertex_program share
  both; measured on NVIDIA's driver).

Fragment programs (GL_POINTS of size 2, one per 2x2 quad of lanes, lanes 4k..4k+3 as
``capture.quad_layout``):
  * the inputs of the four lanes of a quad are made equal *in the generated inputs* (the
    executor gets the same values): a point's attributes are constant, so they arrive
    bit-exact (NaN and Inf too, which interpolation across a triangle would not keep), and
    derivatives (DDX/DDY, implicit texture LOD) are zero on both sides -- per-pixel values
    would need the program rewritten to fetch its inputs from textures (as ``gl`` does with
    GLSL), which changes its texture indirections and units;
  * -0.0 inputs become +0.0 (in the generated inputs): llvmpipe's point set-up computes
    ``a0 + 0*x + 0*y``, which loses the sign of a zero;
  * a pass-through vertex program of the harness feeds ``fragment.texcoord[n]``,
    ``fragment.color``, ``fragment.fogcoord`` from generic attributes;
  * ``result.depth`` is renamed to a free ``result.color[n]`` (``OPTION ARB_draw_buffers``
    added if missing): the depth buffer would clamp it to [0, 1];
  * a DEPTH_COMPONENT32F attachment (cleared to 1.0, depth test ALWAYS) tells killed
    fragments (depth left at 1.0) from the others (the point's depth, 0.5);
  * ``fragment.position`` is (x + 0.5, y + 0.5, 0.5, 1) (``draw_run.builtin_values_for``;
    integer centres / an upper-left origin with the ARB_fragment_coord_* options);
  * the inputs are then read back as the driver delivers them (``delivered_fragment_inputs``)
    and the executor gets those words;
  * ``!!FP1.0`` texts run on GL_FRAGMENT_PROGRAM_NV, their ``p[n]`` as local parameters, their
    ``DECLARE``d names through glProgramNamedParameter4fvNV; one writing ``o[DEPR]`` is
    ``unsupported`` (no second colour output to move the depth to).

Inputs the GL cannot pass whole get their constant components in the generated inputs too
(ARBvp table X.2, ARBfp table X.1): ``vertex.normal`` (x,y,z,1), ``vertex.fogcoord`` and
``fragment.fogcoord`` (f,0,0,1), ``vertex.color.secondary`` alpha 1 (glSecondaryColorPointer
takes 3 components).

Parameters: ``program.env``/``program.local`` are set with the generated words.  ``state.*``
bindings are set from the generated values where the GL has a plain setter (matrices,
light/material colours, fog), then *read back through the driver* with probe programs
(``MOV result.texcoord[j], state...``) and those words replace the generated ones for the
executor -- derived state (mvp, inverses, light products, fog.params.w) is the driver's own
arithmetic, not the program's.  A binding the probe cannot load is ``unsupported``, named
(:mod:`native_state`).
"""
from __future__ import annotations

import ctypes as C
import re
from dataclasses import dataclass

import numpy as np

from . import glapi as G
from .gl import Runner as GLRunner
from .capture import Capture, quad_layout
from .glapi import GLError, GLUnavailable
from .native_text import (  # noqa: F401  (also re-exported: the harness's text edits)
    NV1_HEADERS, HarnessLimit, _blank_comments, add_option, drop_option, header,
    insert_prologue, rename_nv1_results, rename_results)

BACKEND = "native"
WIDTH = 64
MAX_TARGETS = 8

GL_VERTEX_PROGRAM_ARB, GL_FRAGMENT_PROGRAM_ARB = 0x8620, 0x8804
GL_FRAGMENT_PROGRAM_NV, GL_GEOMETRY_PROGRAM_NV = 0x8870, 0x8C26
GL_VERTEX_STATE_PROGRAM_NV = 0x8621
GL_PROGRAM_FORMAT_ASCII_ARB = 0x8875
GL_PROGRAM_ERROR_STRING_ARB, GL_PROGRAM_ERROR_POSITION_ARB = 0x8874, 0x864B
GL_DEPTH_TEST, GL_ALWAYS, GL_DEPTH_ATTACHMENT = 0x0B71, 0x0207, 0x8D00
GL_DEPTH = 0x1801

PROTOS = {
    "glGenProgramsARB": (None, [G.i, G.PU]),
    "glDeleteProgramsARB": (None, [G.i, G.PU]),
    "glBindProgramARB": (None, [G.u, G.u]),
    "glProgramStringARB": (None, [G.u, G.u, G.i, C.c_char_p]),
    "glLoadProgramNV": (None, [G.u, G.u, G.i, C.c_char_p]),
    "glProgramNamedParameter4fvNV": (None, [G.u, G.i, C.c_char_p, G.PF]),
    "glProgramEnvParameter4fvARB": (None, [G.u, G.u, G.PF]),
    "glProgramLocalParameter4fvARB": (None, [G.u, G.u, G.PF]),
    "glVertexAttribPointerARB": (None, [G.u, G.i, G.u, C.c_ubyte, G.i, G.p]),
    "glEnableVertexAttribArrayARB": (None, [G.u]),
    "glDisableVertexAttribArrayARB": (None, [G.u]),
    "glPointSize": (None, [G.f]),
    "glDepthFunc": (None, [G.u]),
    "glClearBufferfv": (None, [G.u, G.i, G.PF]),
    "glFogf": (None, [G.u, G.f]),
    "glFogfv": (None, [G.u, G.PF]),
    "glLightfv": (None, [G.u, G.u, G.PF]),
    "glMaterialfv": (None, [G.u, G.u, G.PF]),
    "glLightModelfv": (None, [G.u, G.PF]),
}
G.PROTOS.update({k: v for k, v in PROTOS.items() if k not in G.PROTOS})


class Refused(Exception):
    """The driver refused a program text: ``message`` is its error string and position."""


# ---- the program text: xlate/verify/native_text.py (re-exported here) ------------------------------

#: header -> (target enum, loader): "arb" glProgramStringARB, "nv" glLoadProgramNV
TARGETS = {
    "!!ARBvp1.0": (GL_VERTEX_PROGRAM_ARB, "arb"), "!!ARBfp1.0": (GL_FRAGMENT_PROGRAM_ARB, "arb"),
    "!!NVvp4.0": (GL_VERTEX_PROGRAM_ARB, "arb"), "!!NVfp4.0": (GL_FRAGMENT_PROGRAM_ARB, "arb"),
    "!!NVgp4.0": (GL_GEOMETRY_PROGRAM_NV, "arb"),
    "!!VP1.0": (GL_VERTEX_PROGRAM_ARB, "nv"), "!!VP1.1": (GL_VERTEX_PROGRAM_ARB, "nv"),
    "!!VP2.0": (GL_VERTEX_PROGRAM_ARB, "nv"), "!!VSP1.0": (GL_VERTEX_STATE_PROGRAM_NV, "nv"),
    "!!FP1.0": (GL_FRAGMENT_PROGRAM_NV, "nv"), "!!FP1.1": (GL_FRAGMENT_PROGRAM_NV, "nv"),
}

#: headers whose programs this harness can feed and capture
HARNESS_HEADERS = ("!!ARBvp1.0", "!!ARBfp1.0", "!!NVvp4.0", "!!NVfp4.0") + NV1_HEADERS


# ---- which GL inputs carry a binding --------------------------------------------------------------

#: conventional vertex attribute path -> (kind, components the GL passes)
CONVENTIONAL = {"vertex.position": ("position", 4), "vertex.normal": ("normal", 3),
                "vertex.color": ("color", 4), "vertex.color.primary": ("color", 4),
                "vertex.color.secondary": ("secondary", 3), "vertex.fogcoord": ("fogcoord", 1),
                "vertex.texcoord": ("texcoord", 4)}
#: conventional attribute -> generic index it may alias (ARBvp table X.2.1)
ALIAS = {"position": 0, "normal": 2, "color": 3, "secondary": 4, "fogcoord": 5}

#: fragment attribute path -> what the pass-through vertex program writes
FRAGMENT_FEEDS = {"fragment.color": "result.color", "fragment.color.primary": "result.color",
                  "fragment.color.secondary": "result.color.secondary",
                  "fragment.fogcoord": "result.fogcoord", "fragment.texcoord": "result.texcoord"}

#: vertex output -> (fragment input that reads it back, pass): pass 1 swaps the back colours
#: and the point size into readable outputs
CAPTURE = {"result.color": ("fragment.color.primary", 0),
           "result.color.secondary": ("fragment.color.secondary", 0),
           "result.fogcoord": ("fragment.fogcoord", 0),
           "result.color.back": ("fragment.color.primary", 1),
           "result.color.back.secondary": ("fragment.color.secondary", 1),
           "result.pointsize": ("fragment.fogcoord", 1)}
SWAP = {"result.color": "result.color.back", "result.color.back": "result.color",
        "result.color.secondary": "result.color.back.secondary",
        "result.color.back.secondary": "result.color.secondary",
        "result.pointsize": "result.fogcoord", "result.fogcoord": "result.pointsize"}


def _index_of(key: str) -> int:
    m = re.search(r"\[(\d+)\]$", key)
    return int(m.group(1)) if m else 0


def _path_of(key: str) -> str:
    return re.sub(r"\[\d+\]$", "", key)


def conform_inputs(inputs: dict[str, np.ndarray]) -> None:
    """Give the generated inputs the constant components the GL supplies (module docstring):
    the executor then sees what the driver sees."""
    one = np.float32(1.0).view(np.uint32)
    for key, w in inputs.items():
        path = _path_of(key)
        if path == "vertex.normal":
            w[..., 3] = one
        elif path in ("vertex.fogcoord", "fragment.fogcoord"):
            w[..., 1:3] = 0
            w[..., 3] = one
        elif path == "vertex.color.secondary":
            w[..., 3] = one


NEGATIVE_ZERO = np.uint32(0x80000000)


def quad_constant(inputs: dict[str, np.ndarray], builtin: set[str]) -> None:
    """Make every non-builtin fragment input equal across each 2x2 quad (lane 4k's values),
    and -0.0 into +0.0: llvmpipe sets up a point's attribute as ``a0 + 0*x + 0*y``, which
    turns -0.0 into +0.0 (measured: ``MUL`` of a -0.0 input by -2 gives -0.0)."""
    for key, w in inputs.items():
        if key in builtin:
            continue
        q = w.reshape(-1, 4, *w.shape[1:])
        q[:] = q[:, :1]
        w[w == NEGATIVE_ZERO] = 0


# ---- the runner -----------------------------------------------------------------------------------

@dataclass
class _Target:
    tex: int
    loc: int


class Runner(GLRunner):
    """The driver's assembly-program interface on a compatibility context (backend
    ``native``).  Reuses :class:`gl.Runner`'s resource bookkeeping and texture upload."""

    profile = "native"

    def __init__(self, backend: str = BACKEND, *, precise: bool = False):
        if backend != BACKEND:
            raise ValueError(f"native.Runner runs backend {BACKEND!r}, not {backend!r}")
        self.backend = BACKEND
        self.precise = False
        self.gl = G.context("compat")
        ext = self.gl.extensions
        if not ({"GL_ARB_vertex_program", "GL_ARB_fragment_program", "GL_NV_vertex_program"}
                & ext):
            raise GLUnavailable(f"{self.gl.describe()} has no assembly program interface "
                                "(GL_ARB_vertex_program / GL_ARB_fragment_program)")
        self._objects: list[tuple] = []
        self._programs: list[tuple[int, int]] = []
        self._tex = ({}, set())
        # the harness's capture programs declare their inputs FLAT where the driver has
        # NV_fragment_program4: a varying's interpolation, even over a point, turns +-Inf into
        # NaN on NVIDIA's driver (measured: a MOV of an Inf attribute reads back NaN), while a
        # flat-shaded attribute is the provoking vertex's value, bit for bit
        self.flat = "GL_NV_gpu_program4" in ext
        self.nv_fragment = "GL_NV_fragment_program" in ext

    def describe(self) -> str:
        return f"native on {self.gl.describe()}"

    # ---- programs ---------------------------------------------------------------------------
    def load(self, text: str, target: int | None = None, loader: str | None = None) -> int:
        """Load a program text; returns its name, bound.  :class:`Refused` with the driver's
        message when it does not accept the text."""
        gl = self.gl
        if target is None:
            target, loader = TARGETS[header(text)]
        while gl.GetError() != G.GL_NO_ERROR:
            pass
        name = gl.gen(gl.GenProgramsARB)
        self._programs.append((target, name))
        data = text.encode("latin-1", errors="replace")
        if loader == "nv":
            gl.LoadProgramNV(target, name, len(data), data)
        else:
            gl.BindProgramARB(target, name)
            gl.ProgramStringARB(target, GL_PROGRAM_FORMAT_ASCII_ARB, len(data), data)
        err = gl.GetError()
        if err != G.GL_NO_ERROR:
            pos = C.c_int()
            gl.GetIntegerv(GL_PROGRAM_ERROR_POSITION_ARB, C.byref(pos))
            msg = (gl.GetString(GL_PROGRAM_ERROR_STRING_ARB) or b"").decode(errors="replace")
            line = text[:max(pos.value, 0)].count("\n") + 1 if pos.value >= 0 else None
            where = f" (line {line})" if line else ""
            raise Refused(f"{msg.strip() or 'no message'}{where} [GL error 0x{err:04x}]")
        if loader == "nv":
            gl.BindProgramARB(target, name)
        return name

    def _cleanup(self) -> None:
        gl = self.gl
        for target, name in self._programs:
            gl.delete(gl.DeleteProgramsARB, name)
        self._programs.clear()
        for cap in (GL_VERTEX_PROGRAM_ARB, GL_FRAGMENT_PROGRAM_ARB, GL_DEPTH_TEST) + \
                ((GL_FRAGMENT_PROGRAM_NV,) if self.nv_fragment else ()):
            gl.Disable(cap)
        for k in range(16):
            gl.DisableVertexAttribArrayARB(k)
        for arr in (G.GL_VERTEX_ARRAY, G.GL_NORMAL_ARRAY, G.GL_COLOR_ARRAY,
                    G.GL_SECONDARY_COLOR_ARRAY, G.GL_FOG_COORD_ARRAY):
            gl.DisableClientState(arr)
        for k in range(8):
            gl.ClientActiveTexture(G.GL_TEXTURE0 + k)
            gl.DisableClientState(G.GL_TEXTURE_COORD_ARRAY)
        gl.ClientActiveTexture(G.GL_TEXTURE0)
        super()._cleanup()

    def _params(self, target: int, params: dict[str, np.ndarray],
                program: int | None = None) -> None:
        """program.env / program.local words for the bound program of ``target``, and an
        ``!!FP1.0`` program's ``DECLARE``d names (``program.named.N``:
        glProgramNamedParameter4fvNV of ``program``)."""
        gl = self.gl
        for key, words in params.items():
            if key.startswith("program.named.") and program is not None:
                name = key[len("program.named."):].encode()
                w = np.ascontiguousarray(np.asarray(words, np.uint32).reshape(-1)[:4]
                                         ).view(np.float32)
                gl.ProgramNamedParameter4fvNV(program, len(name), name, w.ctypes.data_as(G.PF))
                continue
            path = _path_of(key)
            if path not in ("program.env", "program.local"):
                continue
            w = np.ascontiguousarray(words, np.uint32).view(np.float32)
            fn = gl.ProgramEnvParameter4fvARB if path == "program.env" \
                else gl.ProgramLocalParameter4fvARB
            fn(target, _index_of(key), w.ctypes.data_as(G.PF))
        gl.check("program parameters")

    def _setup(self, W: int, H: int, colors: int, depth: bool) -> list[_Target]:
        """Framebuffer with ``colors`` RGBA32F attachments (+ depth), no clamping."""
        gl = self.gl
        for cap in (G.GL_CLAMP_VERTEX_COLOR, G.GL_CLAMP_FRAGMENT_COLOR, G.GL_CLAMP_READ_COLOR):
            gl.ClampColor(cap, 0)
        fbo = gl.gen(gl.GenFramebuffers)
        self._objects.append(("fbo", fbo))
        gl.BindFramebuffer(G.GL_FRAMEBUFFER, fbo)
        out = []
        for loc in range(colors):
            tex = self._image(W, H, G.GL_RGBA32F, G.GL_RGBA)
            gl.FramebufferTexture2D(G.GL_FRAMEBUFFER, G.GL_COLOR_ATTACHMENT0 + loc,
                                    G.GL_TEXTURE_2D, tex, 0)
            out.append(_Target(tex, loc))
        if depth:
            tex = self._image(W, H, G.GL_DEPTH_COMPONENT32F, G.GL_DEPTH_COMPONENT)
            gl.FramebufferTexture2D(G.GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, G.GL_TEXTURE_2D,
                                    tex, 0)
            out.append(_Target(tex, -1))
        gl.DrawBuffers(colors, (C.c_uint * colors)(*[G.GL_COLOR_ATTACHMENT0 + k
                                                       for k in range(colors)]))
        status = gl.CheckFramebufferStatus(G.GL_FRAMEBUFFER)
        if status != G.GL_FRAMEBUFFER_COMPLETE:
            raise GLError(f"framebuffer incomplete (0x{status:x})")
        gl.Viewport(0, 0, W, H)
        return out

    def _image(self, W: int, H: int, fmt: int, ext: int) -> int:
        gl = self.gl
        tex = gl.gen(gl.GenTextures)
        self._objects.append(("texture", tex))
        gl.ActiveTexture(G.GL_TEXTURE0)
        gl.BindTexture(G.GL_TEXTURE_2D, tex)
        gl.TexImage2D(G.GL_TEXTURE_2D, 0, fmt, W, H, 0, ext, G.GL_FLOAT, None)
        gl.TexParameteri(G.GL_TEXTURE_2D, G.GL_TEXTURE_MIN_FILTER, G.GL_NEAREST)
        gl.TexParameteri(G.GL_TEXTURE_2D, G.GL_TEXTURE_MAG_FILTER, G.GL_NEAREST)
        return tex

    def _clear(self, targets: list[_Target]) -> None:
        gl = self.gl
        for t in targets:
            if t.loc < 0:
                gl.ClearBufferfv(GL_DEPTH, 0, (C.c_float * 1)(1.0))
            else:
                gl.ClearBufferfv(G.GL_COLOR, t.loc, (C.c_float * 4)(0, 0, 0, 0))

    def _read(self, t: _Target, W: int, H: int) -> np.ndarray:
        gl = self.gl
        gl.PixelStorei(G.GL_PACK_ALIGNMENT, 1)
        gl.ActiveTexture(G.GL_TEXTURE0)
        gl.BindTexture(G.GL_TEXTURE_2D, t.tex)
        if t.loc < 0:
            img = np.zeros((H, W), np.float32)
            gl.GetTexImage(G.GL_TEXTURE_2D, 0, G.GL_DEPTH_COMPONENT, G.GL_FLOAT,
                           img.ctypes.data_as(C.c_void_p))
        else:
            img = np.zeros((H, W, 4), np.uint32)
            gl.GetTexImage(G.GL_TEXTURE_2D, 0, G.GL_RGBA, G.GL_FLOAT,
                           img.ctypes.data_as(C.c_void_p))
        gl.check("read back")
        return img

    def _generic(self, index: int, words: np.ndarray) -> None:
        gl = self.gl
        w = np.ascontiguousarray(words, np.uint32).reshape(-1, 4)
        buf = self._buffer(G.GL_ARRAY_BUFFER, w.tobytes())
        gl.BindBuffer(G.GL_ARRAY_BUFFER, buf)
        gl.VertexAttribPointerARB(index, 4, G.GL_FLOAT, 0, 16, None)
        gl.EnableVertexAttribArrayARB(index)

    def _conventional(self, kind: int | str, unit: int, words: np.ndarray) -> None:
        gl = self.gl
        w = np.ascontiguousarray(words, np.uint32).reshape(-1, 4)
        buf = self._buffer(G.GL_ARRAY_BUFFER, w.tobytes())
        gl.BindBuffer(G.GL_ARRAY_BUFFER, buf)
        if kind == "position":
            gl.VertexPointer(4, G.GL_FLOAT, 16, None)
            gl.EnableClientState(G.GL_VERTEX_ARRAY)
        elif kind == "normal":
            gl.NormalPointer(G.GL_FLOAT, 16, None)
            gl.EnableClientState(G.GL_NORMAL_ARRAY)
        elif kind == "color":
            gl.ColorPointer(4, G.GL_FLOAT, 16, None)
            gl.EnableClientState(G.GL_COLOR_ARRAY)
        elif kind == "secondary":
            gl.SecondaryColorPointer(3, G.GL_FLOAT, 16, None)
            gl.EnableClientState(G.GL_SECONDARY_COLOR_ARRAY)
        elif kind == "fogcoord":
            gl.FogCoordPointer(G.GL_FLOAT, 16, None)
            gl.EnableClientState(G.GL_FOG_COORD_ARRAY)
        else:
            gl.ClientActiveTexture(G.GL_TEXTURE0 + unit)
            gl.TexCoordPointer(4, G.GL_FLOAT, 16, None)
            gl.EnableClientState(G.GL_TEXTURE_COORD_ARRAY)
            gl.ClientActiveTexture(G.GL_TEXTURE0)

    def _vertex_inputs(self, inputs: dict[str, np.ndarray]) -> set[int]:
        """Feed a vertex program's attributes; returns the generic indices taken (read, or
        aliased by a conventional attribute read)."""
        taken = set()
        for key, words in inputs.items():
            path = _path_of(key)
            if path == "vertex.attrib":
                self._generic(_index_of(key), words)
                taken.add(_index_of(key))
                continue
            conv = CONVENTIONAL.get(path)
            if conv is None:
                raise HarnessLimit(f"vertex input {key} (no GL array feeds it)")
            kind = conv[0]
            self._conventional(kind, _index_of(key), words)
            taken.add(8 + _index_of(key) if kind == "texcoord" else ALIAS[kind])
        return taken

    # ---- vertex programs --------------------------------------------------------------------
    def run_vertex(self, text: str, lanes: int, inputs: dict[str, np.ndarray],
                   params: dict[str, np.ndarray], outputs: list[str],
                   busy_tc=frozenset(), textures=None, shadow=None) -> dict[str, np.ndarray]:
        """Run a vertex program text on ``lanes`` points; returns output binding -> (lanes, 4)
        words for each of ``outputs`` the harness can capture.  ``busy_tc``: texture
        coordinates the text writes besides ``outputs`` (not free for the position).
        ``textures``/``shadow``: as :meth:`run_fragment` (vertex texture fetches,
        NV_vertex_program3 and NV_gpu_program4)."""
        self.gl.use()
        self._tex = (textures or {}, shadow or set())
        try:
            return self._run_vertex(text, lanes, inputs, params, outputs, busy_tc)
        finally:
            self._cleanup()

    def _run_vertex(self, text, lanes, inputs, params, outputs, busy_tc=frozenset()):
        gl = self.gl
        W, H = WIDTH, max(1, -(-lanes // WIDTH))
        taken = self._vertex_inputs(inputs)
        spare_attr = next((a for a in range(15, 0, -1) if a not in taken), None)
        written_tc = {_index_of(o) for o in outputs if _path_of(o) == "result.texcoord"}
        written_tc |= set(busy_tc)
        spare_tc = next((k for k in range(7, -1, -1) if k not in written_tc), None)
        if spare_attr is None or spare_tc is None:
            raise HarnessLimit("no free generic attribute / texture coordinate for the "
                               "position")
        lane = np.arange(lanes)
        pos = np.zeros((lanes, 4), np.float32)
        pos[:, 0] = (2 * (lane % W) + 1) / W - 1
        pos[:, 1] = (2 * (lane // W) + 1) / H - 1
        pos[:, 3] = 1
        self._generic(spare_attr, pos.view(np.uint32))
        self._textures(*self._tex)
        nv1 = header(text) in NV1_HEADERS
        option = "NV_position_invariant" if nv1 else "ARB_position_invariant"
        invariant = re.search(rf"\bOPTION\s+{option}\b", _blank_comments(text))
        base = drop_option(text, option) if invariant else text
        rename = rename_nv1_results if nv1 else rename_results
        position = (f"MOV o[HPOS], v[{spare_attr}];" if nv1 else
                    f"MOV result.position, vertex.attrib[{spare_attr}];")
        plan = self._vertex_plan(outputs, spare_tc, bool(invariant))
        targets = self._setup(W, H, MAX_TARGETS, False)
        gl.Enable(GL_VERTEX_PROGRAM_ARB)
        gl.Enable(GL_FRAGMENT_PROGRAM_ARB)
        gl.PointSize(1.0)
        got: dict[str, np.ndarray] = {}
        for pas, reads in plan.items():
            mapping = {"result.position": f"result.texcoord[{spare_tc}]"}
            if pas == 1:
                mapping.update(SWAP)
            src = insert_prologue(rename(base, mapping), [position])
            self.load(src, GL_VERTEX_PROGRAM_ARB, "arb")
            self._params(GL_VERTEX_PROGRAM_ARB, params)
            for k in range(0, len(reads), MAX_TARGETS):
                group = reads[k:k + MAX_TARGETS]
                fp = passthrough_fragment([frag for _, frag in group], self.flat)
                self.load(fp, GL_FRAGMENT_PROGRAM_ARB, "arb")
                self._clear(targets)
                gl.DrawArrays(G.GL_POINTS, 0, lanes)
                gl.check("vertex draw")
                for j, (out, _) in enumerate(group):
                    got[out] = self._read(targets[j], W, H).reshape(-1, 4)[:lanes]
        return got

    @staticmethod
    def _vertex_plan(outputs: list[str], spare_tc: int, invariant: bool) -> dict[int, list]:
        """pass -> [(output binding, fragment input reading it)]."""
        plan: dict[int, list] = {0: []}
        for out in outputs:
            path = _path_of(out)
            if out == "result.position":
                if not invariant:
                    plan[0].append((out, f"fragment.texcoord[{spare_tc}]"))
            elif path == "result.texcoord":
                plan[0].append((out, f"fragment.texcoord[{_index_of(out)}]"))
            elif out in CAPTURE:
                frag, pas = CAPTURE[out]
                plan.setdefault(pas, []).append((out, frag))
        return plan

    # ---- fragment programs ------------------------------------------------------------------
    def run_fragment(self, text: str, lanes: int, inputs: dict[str, np.ndarray],
                     params: dict[str, np.ndarray], outputs: list[str],
                     textures=None, shadow=None) -> Capture:
        """Run a fragment program text on ``lanes`` pixels (2x2 points, one per quad)."""
        self.gl.use()
        self._tex = (textures or {}, shadow or set())
        try:
            return self._run_fragment(text, lanes, inputs, params, outputs)
        finally:
            self._cleanup()

    def _run_fragment(self, text, lanes, inputs, params, outputs):
        gl = self.gl
        x, y, W, H = quad_layout(lanes, WIDTH)
        colors = sorted({_index_of(o) for o in outputs if _path_of(o) == "result.color"})
        src = text
        depth_loc = None
        nv1 = header(text) in NV1_HEADERS
        target = GL_FRAGMENT_PROGRAM_NV if nv1 else GL_FRAGMENT_PROGRAM_ARB
        if nv1 and "result.depth" in outputs:
            raise HarnessLimit("o[DEPR] of an !!FP1.0 program (one colour output: nowhere to "
                               "move the depth to, and the depth buffer would clamp it)")
        if "result.depth" in outputs:
            depth_loc = next(k for k in range(MAX_TARGETS) if k not in colors)
            src = add_option(rename_results(src, {"result.depth": f"result.color[{depth_loc}]"}),
                             "ARB_draw_buffers")
        n_colors = max(colors + [depth_loc if depth_loc is not None else -1]) + 1
        targets = self._setup(W, H, max(n_colors, 1), True)
        quads = self._feed_quads(inputs, lanes, x, y, W, H)
        self._textures(*self._tex)
        program = self.load(src, target, "arb")
        self._params(target, params, program)
        gl.Enable(GL_VERTEX_PROGRAM_ARB)
        gl.Enable(target)
        gl.Enable(GL_DEPTH_TEST)
        gl.DepthFunc(GL_ALWAYS)
        gl.PointSize(2.0)
        self._clear(targets)
        gl.DrawArrays(G.GL_POINTS, 0, quads)
        gl.check("fragment draw")
        cap = Capture(glsl=src)
        for t in targets:
            img = self._read(t, W, H)
            if t.loc < 0:
                cap.killed = img[y, x] == 1.0
            elif t.loc == depth_loc:
                d = np.zeros((lanes, 4), np.uint32)
                d[:, 2] = img[y, x][:, 2]
                cap.outputs["result.depth"] = d
            elif t.loc in colors:
                key = "result.color" if t.loc == 0 else f"result.color[{t.loc}]"
                cap.outputs[key] = img[y, x]
        return cap


    def _feed_quads(self, inputs, lanes, x, y, W, H) -> int:
        """One point of size 2 per quad of lanes, its attributes from the quad's first lane,
        through the harness's pass-through vertex program (loaded); returns the point count."""
        vp, feeds = passthrough_vertex(inputs)
        quads = lanes // 4
        pos = np.zeros((quads, 4), np.float32)
        qx, qy = x[::4], y[::4]
        pos[:, 0] = (qx + 1) * 2 / W - 1
        pos[:, 1] = (qy + 1) * 2 / H - 1
        pos[:, 3] = 1
        self._generic(0, pos.view(np.uint32))
        for index, key in feeds:
            self._generic(index, np.asarray(inputs[key], np.uint32)[::4])
        self.load(vp, GL_VERTEX_PROGRAM_ARB, "arb")
        return quads

    def delivered_fragment_inputs(self, inputs: dict[str, np.ndarray],
                                  lanes: int) -> dict[str, np.ndarray]:
        """The words a fragment program receives for each of ``inputs`` (non-builtin, quad
        constant), read back by a harness program that copies them to its attachments.

        Why: the way from a vertex to a fragment -- rasterization and interpolation, even over
        a point -- is the driver's, not the program's, and it does not carry every value:
        NVIDIA's turns +-Inf into NaN (measured), llvmpipe's -0.0 into +0.0.  The executor is
        given what the program under test is given, as the ``state.*`` read-back gives it the
        driver's derived state (module docstring); a value the way does not carry is then not
        tested on this driver, never compared against one the program never saw."""
        keys = [k for k in sorted(inputs) if _path_of(k) in FRAGMENT_FEEDS]
        if not keys:
            return {}
        self.gl.use()
        gl = self.gl
        x, y, W, H = quad_layout(lanes, WIDTH)
        out: dict[str, np.ndarray] = {}
        try:
            targets = self._setup(W, H, min(len(keys), MAX_TARGETS), False)
            quads = self._feed_quads(inputs, lanes, x, y, W, H)
            gl.Enable(GL_VERTEX_PROGRAM_ARB)
            gl.Enable(GL_FRAGMENT_PROGRAM_ARB)
            gl.PointSize(2.0)
            for k in range(0, len(keys), MAX_TARGETS):
                group = keys[k:k + MAX_TARGETS]
                self.load(passthrough_fragment(group), GL_FRAGMENT_PROGRAM_ARB, "arb")
                self._clear(targets)
                gl.DrawArrays(G.GL_POINTS, 0, quads)
                gl.check("fragment input read-back")
                for j, key in enumerate(group):
                    got = self._read(targets[j], W, H)[y, x]
                    shape = np.shape(inputs[key])
                    got = got[:, 0] if len(shape) == 1 else got[:, :shape[1]]
                    out[key] = np.ascontiguousarray(got, np.uint32)
        finally:
            self._cleanup()
        return out


def passthrough_fragment(reads: list[str], flat: bool = False) -> str:
    """The harness's fragment program: each fragment input to its own colour attachment --
    with ``flat``, an ``!!NVfp4.0`` program reading ``FLAT`` attributes (not interpolated:
    exact for every value, Inf included; :class:`Runner`)."""
    if not flat:
        lines = ["!!ARBfp1.0", "OPTION ARB_draw_buffers;"]
        lines += [f"MOV result.color[{j}], {r};" for j, r in enumerate(reads)]
        return "\n".join(lines + ["END", ""])
    lines = ["!!NVfp4.0", "OPTION ARB_draw_buffers;"]
    # (not the fog coordinate: a FLAT fragment.fogcoord reads 0.0 on NVIDIA's driver --
    # measured: every captured fog coordinate and point size came back 0.0)
    lines += [f"{'' if r == 'fragment.fogcoord' else 'FLAT '}ATTRIB xl_in{j} = {r};"
              for j, r in enumerate(reads)]
    lines += [f"MOV result.color[{j}], xl_in{j};" for j in range(len(reads))]
    return "\n".join(lines + ["END", ""])


def passthrough_vertex(inputs: dict[str, np.ndarray]) -> tuple[str, list[tuple[int, str]]]:
    """The harness's vertex program in front of a fragment program: position from generic
    attribute 0, each fragment input from its own generic attribute.  Returns the text and
    [(attribute index, input key)]."""
    lines = ["!!ARBvp1.0", "MOV result.position, vertex.attrib[0];"]
    feeds = []
    for key in sorted(inputs):
        path = _path_of(key)
        if path in ("fragment.position", "fragment.facing"):
            continue
        out = FRAGMENT_FEEDS.get(path)
        if out is None:
            raise HarnessLimit(f"fragment input {key} (no vertex output feeds it)")
        if out == "result.texcoord":
            out = f"result.texcoord[{_index_of(key)}]"
        index = len(feeds) + 1
        lines.append(f"MOV {out}, vertex.attrib[{index}];")
        feeds.append((index, key))
    return "\n".join(lines + ["END", ""]), feeds
