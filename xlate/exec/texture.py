"""Texture objects and the texture opcodes (TEX TXB TXD TXF TXL TXP TXQ).

The rules are those of the OpenGL 4.5 core specification (§8.13 cube map face selection,
§8.14 LOD, §8.14.2 wrapping and texel selection, §8.14.3 mipmapping, §8.15 magnification,
§8.22 texture comparison) as the assembly side reaches them through NV_gpu_program4 (GP4)
§2.X.4.4 (TextureSample, TexelFetch, ComputePartials, Tables X.17/X.18) and §2.X.8.Z
TEX ... TXQ.  Wherever GLSL's mapping differs from the assembly text, the executor does what
the GLSL backend (``xlate/backends/glsl/textures.py`` ``emit_tex``/``tex_coord``/``fetch_expr``) makes a
GL implementation do, so that ``xlate verify`` can compare the two:

* RECT/SHADOWRECT: TXL's LOD and TXB's bias are ignored (GLSL has no ``textureLod`` for
  rectangle samplers; the backend calls ``texture()``); the LOD only decides minification vs
  magnification anyway, as a rectangle texture has one level.  TXF/TXQ ignore ``w``/``x``.
* vertex/geometry programs: TEX/TXB/TXP have zero partials (GP4 §2.X.4.4) -> lambda = -inf,
  i.e. the base level with the magnification filter (GLSL: ``textureGrad`` with zero
  gradients, which also ignores TXB's bias).
* shadow results are (r, r, r, 1) (GLSL ``vec4(r, r, r, 1.0)``).
* TXQ components beyond the target's dimension are 0 (GLSL ``ivec4(textureSize(..), 0..)``).

Project choices where the specs leave the result undefined or implementation-dependent
(each also commented at the code implementing it):

* implicit derivatives (fragment TEX/TXB/TXP, RECT TXL): lanes 4k..4k+3 are a 2x2 quad
  (x0y0, x1y0, x0y1, x1y1; the DDX/DDY layout); *coarse* differences, one pair per quad:
  d/dx = lane 4k+1 - lane 4k, d/dy = lane 4k+2 - lane 4k (as Mesa llvmpipe computes one LOD per
  quad); a partner past the last lane counts as the lane itself (derivative 0); neighbours
  contribute their current register values even when they did not execute the instruction.
  (llvmpipe differentiates a cube map's direction with *fine* differences instead, an LOD
  per pixel -- GLSL 4.50 §8.14.1 leaves coarse or fine to the implementation; ``xlate
  verify`` shows that case by recomputing with ``_texture(..., fine=True)``.)
* rho = max(|(du/dx, dv/dx, dw/dx)|, |(du/dy, dv/dy, dw/dy)|) with exact Euclidean lengths
  (GL eq. 8.7-8.8, no approximation), lambda_base = log2(rho), all in float32.
* cube maps: major axis ties go to Z, then Y, then X (as llvmpipe: Z when |z| >= max(|x|,
  |y|), else X only when |x| > |y|); cube partials (implicit
  or TXD) are projected onto the selected face by the chain rule,
  d(sc/|ma|) = (d sc * |ma| - sc * d|ma|) / ma^2 (GP4 TXD: "implementation-dependent").
* total LOD bias clamp: MAX_TEXTURE_LOD_BIAS = 16 (llvmpipe's value).
* linear filtering is evaluated as nested lerps a + alpha * (b - a) in float32 (x, then y,
  then z, then between mip levels), algebraically the GL weighted sum.
* NaN texture coordinates are treated as 0; NaN LODs select magnification; coordinates are
  clamped to +-2^40 texels before conversion to integers.
* array layer = clamp(floor(coord + 0.5), 0, layers - 1) (GL §8.14.2).
* shadow comparisons: the texel's first component is D_t, clamped to [0, 1] as a
  DEPTH_COMPONENT32F image stores it; D_ref is not clamped (a floating-point depth format,
  GL §8.22.1); with LINEAR filtering the 0/1 comparison results are filtered
  (percentage-closer filtering).
* cube maps filter seamlessly by default (``seamless=True``, as Vulkan always does and as
  moderngl enables TEXTURE_CUBE_MAP_SEAMLESS on its contexts; the GL's own default is off):
  footprint texels beyond a face edge come from the adjacent face, and the missing texel of a
  corner is the average of the other three (the GL §8.13.1 recommendation); a NEAREST texel
  coordinate is clamped to the face.  With ``seamless=False`` the face coordinates use the
  texture's wrap modes (GL §8.13).
* TXF: texel coordinates, layers or LODs out of range return (0, 0, 0, 0) (as robust buffer
  access and llvmpipe do); a non-base LOD is fetched whatever the minification filter.
  TXQ for a level out of range returns (0, 0, 0, 0).
* the magnification/minification switch-over c is 0.5 when the mag filter is LINEAR and the
  min filter is NEAREST_MIPMAP_NEAREST or NEAREST_MIPMAP_LINEAR, else 0 (GL §8.15).
* ``execute(..., sampling="llvmpipe")`` departs from the GL formulas where Mesa llvmpipe does
  (a piecewise-linear log2 for lambda, c always 0, TEXTURE_LOD_BIAS in steps of 1/256, RECT
  derivatives scaled by the size), so that results compare bit for bit with llvmpipe; the
  default "spec" follows the formulas (see :func:`prepare`).

Errors (:class:`ExecError`, raised before anything runs): a texture unit used but not given, a
unit given but not used, an instruction target that does not match ``Texture.target``, a
texel type that does not match the instruction's data type (.F float32, .S int32, .U uint32;
GP4: undefined), an incomplete texture (GL §8.17: mipmap chain sizes, integer textures with
LINEAR filters, rectangle textures with mipmap filters or REPEAT/MIRRORED wraps), and the
target/opcode combinations GP4 rejects at load time (TXF on CUBE/SHADOW*, TXB/TXL/TXP on
SHADOWCUBE/SHADOWARRAY2D, sampling a BUFFER, offsets on cube maps).

The opcode functions receive the same arguments as ALU functions (see ``alu.py``): ``x``
(``x.inst.tex`` is the :class:`~xlate.ir.model.TexRef`; ``x.st.textures`` the prepared
``{unit: _Prepared}``) and the loaded operands; they return (k|1, 4) arrays of the result type.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ..ir.model import DataType, Program, Stage
from .bind import ExecError

F32, I32, U32 = np.float32, np.int32, np.uint32

#: texture target of each instruction target (GP4 Table X.17: SHADOW* are pseudo-targets)
BASE_TARGET = {"1D": "1D", "2D": "2D", "3D": "3D", "CUBE": "CUBE", "RECT": "RECT",
               "ARRAY1D": "ARRAY1D", "ARRAY2D": "ARRAY2D", "BUFFER": "BUFFER",
               "SHADOW1D": "1D", "SHADOW2D": "2D", "SHADOWRECT": "RECT", "SHADOWCUBE": "CUBE",
               "SHADOWARRAY1D": "ARRAY1D", "SHADOWARRAY2D": "ARRAY2D"}
TARGETS = ("1D", "2D", "3D", "CUBE", "RECT", "ARRAY1D", "ARRAY2D", "BUFFER")

#: the level array layout per texture target (texel components last)
LEVEL_SHAPES = {"1D": "(w, C)", "BUFFER": "(w, C)", "2D": "(h, w, C)", "RECT": "(h, w, C)",
                "ARRAY1D": "(layers, w, C)", "3D": "(d, h, w, C)",
                "ARRAY2D": "(layers, h, w, C)", "CUBE": "(6, n, n, C) (faces +X -X +Y -Y +Z -Z)"}
_LEVEL_NDIM = {"1D": 1, "BUFFER": 1, "2D": 2, "RECT": 2, "ARRAY1D": 2, "3D": 3, "ARRAY2D": 3,
               "CUBE": 3}
#: coordinate components that are texture coordinates proper (derivatives/gradients)
_SPATIAL = {"1D": (0,), "ARRAY1D": (0,), "2D": (0, 1), "RECT": (0, 1), "ARRAY2D": (0, 1),
            "3D": (0, 1, 2), "CUBE": (0, 1, 2), "BUFFER": (0,)}

MIN_FILTERS = {"NEAREST": (False, None), "LINEAR": (True, None),
               "NEAREST_MIPMAP_NEAREST": (False, "N"), "LINEAR_MIPMAP_NEAREST": (True, "N"),
               "NEAREST_MIPMAP_LINEAR": (False, "L"), "LINEAR_MIPMAP_LINEAR": (True, "L")}
MAG_FILTERS = ("NEAREST", "LINEAR")
WRAPS = ("REPEAT", "CLAMP_TO_EDGE", "CLAMP_TO_BORDER", "MIRRORED_REPEAT", "MIRROR_CLAMP_TO_EDGE")
COMPARE_FUNCS = {"LEQUAL": np.less_equal, "GEQUAL": np.greater_equal, "LESS": np.less,
                 "GREATER": np.greater, "EQUAL": np.equal, "NOTEQUAL": np.not_equal,
                 "ALWAYS": None, "NEVER": None}
MAX_TEXTURE_LOD_BIAS = 16.0
_BIG = F32(2.0 ** 40)


def _enum(value, what: str, unit) -> str:
    if not isinstance(value, str):
        raise ExecError(f"texture[{unit}]: {what} must be a string, got {value!r}")
    v = value.strip().upper()
    return v[3:] if v.startswith("GL_") else v


@dataclass
class Texture:
    """One texture bound to a texture image unit, with its sampler state.

    ``levels``: mipmap levels, level 0 first (``base_level`` selects the base); each an array
    of texels with the components last (1-4 components; missing ones read as G=B=0, A=1 like
    the GL's R/RG/RGB formats):

    ========================  =====================================================
    1D, BUFFER                (w, C)
    2D, RECT                  (h, w, C)
    ARRAY1D                   (layers, w, C)
    3D                        (d, h, w, C)
    ARRAY2D                   (layers, h, w, C)
    CUBE                      (6, n, n, C), faces +X -X +Y -Y +Z -Z (GL face order)
    ========================  =====================================================

    Row 0 of each image is t = 0 (GL's first row, the bottom).  Float dtypes are float formats
    (stored as float32, e.g. RGBA32F); signed integer dtypes are RGBA32I (read by .S
    instructions), unsigned/bool RGBA32UI (.U).  A texture sampled with a SHADOW target is a
    DEPTH_COMPONENT32F texture (first component) with TEXTURE_COMPARE_MODE =
    COMPARE_REF_TO_TEXTURE and ``compare`` as TEXTURE_COMPARE_FUNC.

    ``target``: 1D 2D 3D CUBE RECT ARRAY1D ARRAY2D BUFFER -- the instruction's target must be
    this or its SHADOW variant.  ``filter``: the minification filter, NEAREST | LINEAR |
    {NEAREST,LINEAR}_MIPMAP_{NEAREST,LINEAR} (default NEAREST, not GL's NEAREST_MIPMAP_LINEAR);
    ``mag_filter``: NEAREST | LINEAR (default: the non-mipmap part of ``filter``).
    ``wrap``: one mode for every axis or a tuple (s, t, r) of REPEAT | CLAMP_TO_EDGE |
    CLAMP_TO_BORDER | MIRRORED_REPEAT | MIRROR_CLAMP_TO_EDGE (default: REPEAT, CLAMP_TO_EDGE for
    RECT, as the GL).  ``border``: TEXTURE_BORDER_COLOR (in the texel type).  ``compare``:
    LEQUAL (default) GEQUAL LESS GREATER EQUAL NOTEQUAL ALWAYS NEVER.  ``base_level``,
    ``lod_bias``, ``min_lod``, ``max_lod``: TEXTURE_BASE_LEVEL, TEXTURE_LOD_BIAS,
    TEXTURE_MIN_LOD, TEXTURE_MAX_LOD (TEXTURE_MAX_LEVEL is the last level given).
    ``seamless``: TEXTURE_CUBE_MAP_SEAMLESS (default on, unlike the GL; see the module
    docstring).  :meth:`gl_state` lists
    the GL state a harness must set to reproduce this texture.
    """

    levels: list
    target: str = "2D"
    filter: str = "NEAREST"
    mag_filter: str | None = None
    wrap: str | tuple | None = None
    border: tuple = (0.0, 0.0, 0.0, 0.0)
    compare: str | None = "LEQUAL"
    base_level: int = 0
    lod_bias: float = 0.0
    min_lod: float = -1000.0
    max_lod: float = 1000.0
    seamless: bool = True
    extra: dict = field(default_factory=dict)

    def wrap_modes(self) -> tuple[str, str, str]:
        w = self.wrap
        if w is None:
            w = "CLAMP_TO_EDGE" if str(self.target).upper() == "RECT" else "REPEAT"
        if isinstance(w, str):
            w = (w, w, w)
        w = tuple(w) + ("REPEAT",) * (3 - len(tuple(w)))
        return tuple(_enum(m, "wrap", "?") for m in w[:3])

    def gl_state(self, shadow: bool = False) -> dict:
        """The GL texture/sampler state that reproduces this texture (enum names without GL_).
        ``shadow``: sampled through a SHADOW target (depth format, comparison on)."""
        lv = np.asarray(self.levels[0])
        comps = lv.shape[-1] if lv.ndim else 4
        kind = lv.dtype.kind
        base = {1: "R", 2: "RG", 3: "RGB", 4: "RGBA"}.get(comps, "RGBA")
        fmt = base + ("32F" if kind == "f" else "32I" if kind == "i" else "32UI")
        if shadow:
            fmt = "DEPTH_COMPONENT32F"
        target = _enum(self.target, "target", "?")
        gl_target = {"1D": "TEXTURE_1D", "2D": "TEXTURE_2D", "3D": "TEXTURE_3D",
                     "CUBE": "TEXTURE_CUBE_MAP", "RECT": "TEXTURE_RECTANGLE",
                     "ARRAY1D": "TEXTURE_1D_ARRAY", "ARRAY2D": "TEXTURE_2D_ARRAY",
                     "BUFFER": "TEXTURE_BUFFER"}.get(target, target)
        min_f = _enum(self.filter, "filter", "?")
        mag_f = _enum(self.mag_filter, "mag_filter", "?") if self.mag_filter else \
            ("LINEAR" if min_f.startswith("LINEAR") else "NEAREST")
        ws, wt, wr = self.wrap_modes()
        return {"target": gl_target, "internal_format": fmt,
                "TEXTURE_MIN_FILTER": min_f, "TEXTURE_MAG_FILTER": mag_f,
                "TEXTURE_WRAP_S": ws, "TEXTURE_WRAP_T": wt, "TEXTURE_WRAP_R": wr,
                "TEXTURE_BORDER_COLOR": list(self.border),
                "TEXTURE_COMPARE_MODE": "COMPARE_REF_TO_TEXTURE" if shadow else "NONE",
                "TEXTURE_COMPARE_FUNC": _enum(self.compare or "LEQUAL", "compare", "?"),
                "TEXTURE_BASE_LEVEL": int(self.base_level),
                "TEXTURE_MAX_LEVEL": len(self.levels) - 1,
                "TEXTURE_LOD_BIAS": float(self.lod_bias),
                "TEXTURE_MIN_LOD": float(self.min_lod), "TEXTURE_MAX_LOD": float(self.max_lod),
                "TEXTURE_CUBE_MAP_SEAMLESS": bool(self.seamless)}


# ---- preparation and validation ------------------------------------------------------------

class _Prepared:
    """A validated texture in sampling form: every level's texels in one flat (N, 4) array,
    level l at rows off[l] .. as (Z, H, W) (Z = layers, depth, faces or 1)."""

    def __init__(self, unit: int, tex: Texture, shadow: bool, mip_check: bool):
        self.unit = unit
        self.fast_log2 = False
        self.llvmpipe = False
        what = f"texture[{unit}]"
        target = _enum(tex.target, "target", unit)
        if target not in TARGETS:
            raise ExecError(f"{what}: unknown target {tex.target!r} (expected one of "
                            f"{', '.join(TARGETS)})")
        self.target = target
        self.shadow = shadow
        levels = list(tex.levels) if isinstance(tex.levels, (list, tuple)) else None
        if not levels:
            raise ExecError(f"{what}: no levels (levels must be a non-empty list of arrays)")
        arrays = []
        kind = None
        for k, a in enumerate(levels):
            try:
                a = np.asarray(a)
            except Exception:
                raise ExecError(f"{what}: level {k} is not an array") from None
            nd = _LEVEL_NDIM[target]
            if a.ndim != nd + 1 or not 1 <= a.shape[-1] <= 4 or 0 in a.shape:
                raise ExecError(f"{what}: level {k} has shape {a.shape}; a {target} level is "
                                f"{LEVEL_SHAPES[target]} with C = 1..4 components")
            kd = a.dtype.kind
            if kd not in "fiub":
                raise ExecError(f"{what}: level {k} has unsupported dtype {a.dtype}")
            kd = {"b": "u"}.get(kd, kd)
            if kind is None:
                kind = kd
            elif kd != kind:
                raise ExecError(f"{what}: level {k} has dtype {a.dtype}, level 0 "
                                f"{np.asarray(levels[0]).dtype} (one format per texture)")
            arrays.append(a)
        self.kind = kind
        self.dtype = {"f": F32, "i": I32, "u": U32}[kind]
        shapes = []
        flat = []
        for k, a in enumerate(arrays):
            if kind == "f":
                with np.errstate(over="ignore", invalid="ignore"):
                    a = a.astype(F32)
            else:
                a64 = a.astype(np.int64)
                lo, hi = (-(1 << 31), (1 << 31) - 1) if kind == "i" else (0, (1 << 32) - 1)
                if a64.size and (a64.min() < lo or a64.max() > hi):
                    raise ExecError(f"{what}: level {k} has values out of the "
                                    f"{'int32' if kind == 'i' else 'uint32'} range")
                a = a64.astype(self.dtype)
            C = a.shape[-1]
            if C < 4:
                fill = np.array([0, 0, 0, 1], self.dtype)[C:]
                a = np.concatenate([a, np.broadcast_to(fill, a.shape[:-1] + (4 - C,))], axis=-1)
            if target in ("1D", "BUFFER"):
                a = a[None, None]
            elif target in ("2D", "RECT"):
                a = a[None]
            elif target == "ARRAY1D":
                a = a[:, None]
            elif target == "CUBE":
                if a.shape[0] != 6 or a.shape[1] != a.shape[2]:
                    raise ExecError(f"{what}: level {k} has shape {a.shape[:-1] + (C,)}; a CUBE "
                                    f"level is {LEVEL_SHAPES['CUBE']} with square faces")
            shapes.append(a.shape[:3])
            flat.append(np.ascontiguousarray(a).reshape(-1, 4))
        self.data = np.concatenate(flat) if len(flat) > 1 else flat[0]
        self.Z = np.array([s[0] for s in shapes], np.int64)
        self.H = np.array([s[1] for s in shapes], np.int64)
        self.W = np.array([s[2] for s in shapes], np.int64)
        self.off = np.concatenate([[0], np.cumsum(self.Z * self.H * self.W)[:-1]]).astype(np.int64)
        self.q = len(shapes) - 1                      # TEXTURE_MAX_LEVEL = the last level given
        base = tex.base_level
        if not isinstance(base, (int, np.integer)) or not 0 <= base <= self.q:
            raise ExecError(f"{what}: base_level {base!r} out of range 0..{self.q}")
        self.base = int(base)
        if target == "RECT" and self.base != 0:
            raise ExecError(f"{what}: a RECT texture has base level 0 (GL 4.5 §8.10)")

        # sampler state
        min_f = _enum(tex.filter, "filter", unit)
        if min_f not in MIN_FILTERS:
            raise ExecError(f"{what}: unknown minification filter {tex.filter!r} (expected one "
                            f"of {', '.join(MIN_FILTERS)})")
        self.min_lin, self.mip = MIN_FILTERS[min_f]
        if tex.mag_filter is None:
            mag_f = "LINEAR" if self.min_lin else "NEAREST"
        else:
            mag_f = _enum(tex.mag_filter, "mag_filter", unit)
            if mag_f not in MAG_FILTERS:
                raise ExecError(f"{what}: unknown magnification filter {tex.mag_filter!r} "
                                f"(NEAREST or LINEAR)")
        self.mag_lin = mag_f == "LINEAR"
        # GL §8.15: the minification/magnification switch-over point
        self.c = F32(0.5 if (self.mag_lin and min_f in ("NEAREST_MIPMAP_NEAREST",
                                                        "NEAREST_MIPMAP_LINEAR")) else 0.0)
        if kind != "f" and (self.mag_lin or min_f not in ("NEAREST", "NEAREST_MIPMAP_NEAREST")):
            raise ExecError(f"{what}: an integer texture must use NEAREST or "
                            f"NEAREST_MIPMAP_NEAREST filters (else incomplete, GL 4.5 §8.17)")
        if target in ("RECT", "BUFFER") and self.mip is not None:
            raise ExecError(f"{what}: a {target} texture cannot use the mipmap filter {min_f}")
        try:
            wraps = tex.wrap_modes()
        except ExecError:
            raise ExecError(f"{what}: wrap must be a mode name or a tuple of them") from None
        for m in wraps:
            if m not in WRAPS:
                raise ExecError(f"{what}: unknown wrap mode {m!r} (expected one of "
                                f"{', '.join(WRAPS)})")
        if target == "RECT" and any(m not in ("CLAMP_TO_EDGE", "CLAMP_TO_BORDER") for m in wraps[:2]):
            raise ExecError(f"{what}: a RECT texture only supports CLAMP_TO_EDGE and "
                            f"CLAMP_TO_BORDER wrap modes (GL 4.5 §8.10)")
        self.wrap = wraps
        try:
            border = np.asarray(tex.border, np.float64).reshape(4)
        except Exception:
            raise ExecError(f"{what}: border must be 4 numbers, got {tex.border!r}") from None
        self.border = border.astype(self.dtype) if kind == "f" else \
            (border.astype(np.int64) & 0xFFFFFFFF).astype(U32).view(self.dtype)
        cmp_name = _enum(tex.compare or "LEQUAL", "compare", unit)
        if cmp_name not in COMPARE_FUNCS:
            raise ExecError(f"{what}: unknown compare function {tex.compare!r} (expected one "
                            f"of {', '.join(COMPARE_FUNCS)})")
        self.compare = cmp_name
        if shadow and kind != "f":
            raise ExecError(f"{what}: sampled with a SHADOW target, so it must be a depth "
                            f"(float) texture, got {np.asarray(levels[0]).dtype}")
        if shadow:
            # DEPTH_COMPONENT32F stores depth clamped to [0, 1] (GL 4.5 §8.4.4.2 / §8.5:
            # depth components are clamped when a depth texture image is specified)
            self.data = self.data.copy()
            self.data[:, 0] = np.clip(self.data[:, 0], F32(0), F32(1))
        try:
            self.lod_bias = F32(tex.lod_bias)
            self.min_lod = F32(tex.min_lod)
            self.max_lod = F32(tex.max_lod)
        except (TypeError, ValueError):
            raise ExecError(f"{what}: lod_bias/min_lod/max_lod must be numbers") from None
        self.seamless = bool(tex.seamless) and target == "CUBE"
        self.size = (self.W[self.base], self.H[self.base],
                     self.Z[self.base] if target == "3D" else 1)
        if self.mip is not None and mip_check:
            # GL §8.17 mipmap completeness: each level halves (floor, at least 1) the previous;
            # array layers and cube faces stay
            for lv in range(self.base + 1, self.q + 1):
                want = [max(1, int(d) // 2) for d in (self.Z[lv - 1], self.H[lv - 1], self.W[lv - 1])]
                if target != "3D":
                    want[0] = int(self.Z[lv - 1])
                got = [int(self.Z[lv]), int(self.H[lv]), int(self.W[lv])]
                if target in ("1D", "ARRAY1D"):
                    want[1] = 1
                if got != want:
                    raise ExecError(f"{what}: level {lv} has size {_size_text(target, got)}, "
                                    f"expected {_size_text(target, want)} after level {lv - 1} "
                                    f"(mipmap chain incomplete, GL 4.5 §8.17)")


def _size_text(target: str, zhw) -> str:
    z, h, w = zhw
    return {"1D": f"{w}", "ARRAY1D": f"{w} x {z} layers", "2D": f"{w}x{h}", "RECT": f"{w}x{h}",
            "CUBE": f"{w}x{h}", "3D": f"{w}x{h}x{z}", "ARRAY2D": f"{w}x{h} x {z} layers"
            }.get(target, f"{w}")


_LOAD_ERRORS = {
    # GP4 §2.X.4.4 / §2.X.8.Z: programs that fail to load
    ("TXF", "CUBE"), ("TXF", "SHADOW1D"), ("TXF", "SHADOW2D"), ("TXF", "SHADOWRECT"),
    ("TXF", "SHADOWCUBE"), ("TXF", "SHADOWARRAY1D"), ("TXF", "SHADOWARRAY2D"),
    ("TXB", "SHADOWCUBE"), ("TXB", "SHADOWARRAY2D"), ("TXL", "SHADOWCUBE"),
    ("TXL", "SHADOWARRAY2D"), ("TXP", "SHADOWCUBE"), ("TXP", "SHADOWARRAY2D"),
}


SAMPLING_MODES = ("spec", "llvmpipe")


def prepare(program: Program, textures, sampling: str = "spec") -> dict[int, _Prepared]:
    """Validate the caller's ``{unit: Texture}`` against the program's texture instructions and
    convert them to sampling form.  Raises :class:`ExecError` naming the texture unit.

    ``sampling``: "spec" follows the GL 4.5 formulas; "llvmpipe" reproduces the two places
    where Mesa llvmpipe (gallivm) departs from them, so that mipmapped results compare bit for
    bit: lambda_base from a piecewise-linear log2 (:func:`_rho_log2`), the
    magnification/minification switch-over c always 0 (no c = 0.5 rule, GL §8.15),
    TEXTURE_LOD_BIAS rounded to a multiple of 1/256 (Mesa's state tracker), and RECT
    derivatives multiplied by the texture size although they are in texels already (which
    moves RECT's magnification/minification switch when the two filters differ)."""
    if sampling not in SAMPLING_MODES:
        raise ExecError(f"sampling: expected one of {', '.join(SAMPLING_MODES)}, got "
                        f"{sampling!r}")
    if textures is None:
        textures = {}
    if not isinstance(textures, dict):
        raise ExecError(f"textures: expected a dict {{unit: Texture}}, got {type(textures).__name__}")
    for unit, tex in textures.items():
        if not isinstance(unit, (int, np.integer)) or isinstance(unit, bool) or unit < 0:
            raise ExecError(f"texture key {unit!r}: must be a texture unit number (int >= 0)")
        if not isinstance(tex, Texture):
            raise ExecError(f"texture[{unit}]: expected xlate.exec.Texture, got "
                            f"{type(tex).__name__}")
    uses: dict[int, list[tuple[int, object]]] = {}
    for i, inst in enumerate(program.instructions):
        if inst.tex is not None:
            uses.setdefault(inst.tex.unit, []).append((i, inst))
    for unit in textures:
        if int(unit) not in uses:
            used = ", ".join(str(u) for u in sorted(uses)) or "none"
            raise ExecError(f"texture[{unit}]: the program uses no texture unit {unit} "
                            f"(units used: {used})")
    out: dict[int, _Prepared] = {}
    for unit, insts in sorted(uses.items()):
        i0, first = insts[0]
        if unit not in textures:
            raise ExecError(f"missing texture[{unit}] ({first.tex.target}) used by instruction "
                            f"{i0} ({first.op})")
        tex = textures[unit]
        shadow = any(inst.tex.target.startswith("SHADOW") for _, inst in insts)
        mip = any(inst.op not in ("TXF", "TXQ", "TXQLEVELS") for _, inst in insts)
        prep = _Prepared(unit, tex, shadow, mip)
        if sampling == "llvmpipe":
            prep.llvmpipe = True
            prep.fast_log2 = True
            prep.c = F32(0.0)
            # Mesa's state tracker keeps TEXTURE_LOD_BIAS in steps of 1/256 (st_atom_sampler)
            b = np.clip(prep.lod_bias, F32(-MAX_TEXTURE_LOD_BIAS), F32(MAX_TEXTURE_LOD_BIAS))
            prep.lod_bias = F32(np.round(b * F32(256)) / F32(256))
        for i, inst in insts:
            t = inst.tex.target
            where = f"instruction {i} ({inst.op} ... texture[{unit}], {t})"
            if t not in BASE_TARGET:
                raise ExecError(f"{where}: unknown texture target {t!r}")
            if BASE_TARGET[t] != prep.target:
                raise ExecError(f"texture[{unit}]: a {prep.target} texture, but {where} uses "
                                f"it as {t}")
            if (inst.op, t) in _LOAD_ERRORS or (t == "BUFFER" and inst.op not in ("TXF", "TXQ")):
                raise ExecError(f"{where}: {inst.op} does not support the {t} target "
                                f"(GP4 §2.X.8.Z {inst.op})")
            if inst.op == "TXG" and BASE_TARGET[t] not in ("2D", "ARRAY2D", "CUBE", "RECT"):
                raise ExecError(f"{where}: TXG gathers from 2D, 2D array, cube and rectangle "
                                f"textures only (ARB_texture_gather)")
            if any(inst.tex.offset) and BASE_TARGET[t] in ("CUBE", "BUFFER") and inst.op != "TXQ":
                raise ExecError(f"{where}: texel offsets are not supported for {t} "
                                f"(GP4 §2.X.4.4)")
            if inst.op in ("TXQ", "TXQLEVELS"):
                continue
            if t.startswith("SHADOW"):
                if inst.dtype not in (DataType.FLOAT, DataType.NONE):
                    raise ExecError(f"{where}: a SHADOW lookup returns floats; use the .F type")
                continue
            want = {DataType.INT: "i", DataType.UINT: "u"}.get(inst.dtype, "f")
            if want != prep.kind:
                names = {"f": "float", "i": "int32 (.S)", "u": "uint32 (.U)"}
                raise ExecError(f"texture[{unit}]: has {names[prep.kind]} texels, but {where} "
                                f"reads {names[want]} values (GP4 §2.X.4.4: undefined)")
        out[unit] = prep
    return out


# ---- wrapping and texel fetches -----------------------------------------------------------------

def _ifloor(u: np.ndarray) -> np.ndarray:
    """floor to int64; NaN -> 0, magnitudes clamped to 2^40 (project choice)."""
    u = np.where(np.isnan(u), F32(0), u)
    return np.floor(np.clip(u, -_BIG, _BIG)).astype(np.int64)


def _wrap(i: np.ndarray, n: np.ndarray, mode: str) -> np.ndarray:
    """GL 4.5 Table 8.20 on integer texel coordinates."""
    if mode == "REPEAT":
        return np.mod(i, n)
    if mode == "CLAMP_TO_EDGE":
        return np.clip(i, 0, n - 1)
    if mode == "CLAMP_TO_BORDER":
        return np.clip(i, -1, n)
    if mode == "MIRRORED_REPEAT":
        m = np.mod(i, 2 * n) - n
        return (n - 1) - np.where(m >= 0, m, -(1 + m))
    # MIRROR_CLAMP_TO_EDGE
    return np.clip(np.where(i >= 0, i, -(1 + i)), 0, n - 1)


def _fetch(P: _Prepared, lv, i, j, z, outside=None) -> np.ndarray:
    """Texels (k, 4) at integer coordinates of level ``lv``; coordinates outside the level read
    the border colour (or ``outside``)."""
    W, H, Z = P.W[lv], P.H[lv], P.Z[lv]
    inside = (i >= 0) & (i < W) & (j >= 0) & (j < H) & (z >= 0) & (z < Z)
    pos = P.off[lv] + (z * H + j) * W + i
    allin = bool(np.all(inside))
    if not allin:
        pos = np.where(inside, pos, 0)
    out = P.data[pos]
    if not allin:
        fill = P.border if outside is None else outside
        out = np.where(inside[:, None], out, fill)
    return out


def _compare(P: _Prepared, ref, texels) -> np.ndarray:
    """GL §8.22.1: 1.0 where ``ref OP D_t`` holds, else 0.0 (D_t = first component)."""
    fn = COMPARE_FUNCS[P.compare]
    if fn is None:
        v = 1.0 if P.compare == "ALWAYS" else 0.0
        return np.full(texels.shape[0], v, F32)
    return fn(ref, texels[:, 0]).astype(F32)


def _lerp(a, b, w):
    if a.ndim == 2:
        w = w[:, None]
    return a + w * (b - a)


# -- cube maps -------------------------------------------------------------------------------------

def _cube_select(x, y, z):
    """GL 4.5 Table 8.19: the face (0..5 = +X -X +Y -Y +Z -Z) of each direction, by the
    component of largest magnitude.  Ties (GL leaves them to the implementation): Z wins, then
    Y -- llvmpipe's lp_build_cube_lookup takes Z when |z| >= max(|x|, |y|), else X only when
    |x| > |y| (measured: (1, 1, 0.5) samples +Y); a zero component counts as positive."""
    ax, ay, az = np.abs(x), np.abs(y), np.abs(z)
    zmaj = (az >= ax) & (az >= ay)
    xmaj = ~zmaj & (ax > ay)
    ymaj = ~zmaj & ~xmaj
    face = np.where(xmaj, np.where(x >= 0, 0, 1),
                    np.where(ymaj, np.where(y >= 0, 2, 3), np.where(z >= 0, 4, 5)))
    return face


# (sc component, sc sign, tc component, tc sign, major component, major sign) per face
_CUBE_TABLE = np.array([
    (2, -1, 1, -1, 0, 1),     # +X: sc = -rz, tc = -ry, ma = rx
    (2, 1, 1, -1, 0, -1),     # -X: sc = +rz, tc = -ry
    (0, 1, 2, 1, 1, 1),       # +Y: sc = +rx, tc = +rz
    (0, 1, 2, -1, 1, -1),     # -Y: sc = +rx, tc = -rz
    (0, 1, 1, -1, 2, 1),      # +Z: sc = +rx, tc = -ry
    (0, -1, 1, -1, 2, -1),    # -Z: sc = -rx, tc = -ry
], np.int64)


def _cube_project(v, face):
    """(k,3) direction -> (sc, tc, |ma|) for the given faces."""
    T = _CUBE_TABLE[face]
    rows = np.arange(v.shape[0])
    sc = v[rows, T[:, 0]] * T[:, 1].astype(F32)
    tc = v[rows, T[:, 2]] * T[:, 3].astype(F32)
    ma = v[rows, T[:, 4]] * T[:, 5].astype(F32)
    return sc, tc, ma


def _cube_remap(face, i, j, N):
    """Seamless cube filtering (GL §8.13.1): texel (i, j) of ``face`` one texel beyond an edge
    -> the texel of the adjacent face.  Works on the doubled integer lattice of texel centres
    on the cube of half-size N; returns (face, i, j, corner)."""
    A = 2 * i + 1 - N
    B = 2 * j + 1 - N
    T = _CUBE_TABLE[face]
    k = face.shape[0]
    N = np.broadcast_to(N, (k,))
    v = np.zeros((k, 3), np.int64)
    rows = np.arange(k)
    v[rows, T[:, 0]] = A * T[:, 1]
    v[rows, T[:, 2]] = B * T[:, 3]
    v[rows, T[:, 4]] = N * T[:, 5]
    over = np.abs(v) > N[:, None]
    n_over = over.sum(axis=1)
    corner = n_over >= 2
    single = n_over == 1
    if single.any():
        r = np.flatnonzero(single)
        ax = np.argmax(over[r], axis=1)
        old = T[r, 4]
        v[r, ax] = np.sign(v[r, ax]) * N[r]
        v[r, old] = np.sign(v[r, old]) * (N[r] - 1)
        maj = np.argmax(np.abs(v[r]), axis=1)
        pos = v[r, maj] > 0
        nf = maj * 2 + np.where(pos, 0, 1)
        T2 = _CUBE_TABLE[nf]
        a2 = v[r, T2[:, 0]] * T2[:, 1]
        b2 = v[r, T2[:, 2]] * T2[:, 3]
        face = face.copy()
        i = np.array(i, copy=True)
        j = np.array(j, copy=True)
        face[r] = nf
        i[r] = (a2 + N[r] - 1) // 2
        j[r] = (b2 + N[r] - 1) // 2
    if corner.any():
        i = np.where(corner, np.clip(i, 0, N - 1), i)
        j = np.where(corner, np.clip(j, 0, N - 1), j)
    return face, i, j, corner


# -- filtering -------------------------------------------------------------------------------------

class _Lookup:
    """What one sampling instruction needs besides the level: coordinates (normalized, or texel
    units for RECT), layer/face, offsets, shadow reference."""

    __slots__ = ("P", "dims", "rect", "cube", "s", "t", "r", "z", "off", "ref")

    def subset(self, m):
        o = _Lookup()
        o.P, o.dims, o.rect, o.cube, o.off = self.P, self.dims, self.rect, self.cube, self.off
        for n in ("s", "t", "r", "z", "ref"):
            a = getattr(self, n)
            setattr(o, n, None if a is None else a[m])
        return o


def _texel_coord(L: _Lookup, lv, axis: int):
    """Unnormalized coordinate u/v/w (GL §8.14.2: u = s * w_t + delta_u; RECT: u = s + du)."""
    c = (L.s, L.t, L.r)[axis]
    size = (L.P.W, L.P.H, L.P.Z)[axis][lv]
    u = c if L.rect else c * size.astype(F32)
    if L.off[axis]:
        u = u + F32(L.off[axis])
    return u, size


def _nearest(L: _Lookup, lv) -> np.ndarray:
    P = L.P
    idx = []
    for axis in range(L.dims):
        u, n = _texel_coord(L, lv, axis)
        i = _ifloor(u)
        if L.cube and P.seamless:
            i = np.clip(i, 0, n - 1)
        else:
            i = _wrap(i, n, P.wrap[axis])
        idx.append(i)
    zero = np.zeros_like(idx[0])
    i = idx[0]
    j = idx[1] if L.dims > 1 else zero
    z = idx[2] if L.dims > 2 else L.z
    tx = _fetch(P, lv, i, j, z)
    if L.ref is not None:
        return _compare(P, L.ref, tx)
    return tx


def _linear(L: _Lookup, lv) -> np.ndarray:
    vals, wt = _footprint(L, lv)
    # nested lerps: along u (pairs differing in i), then v, then w
    for w in wt:
        vals = [_lerp(vals[m], vals[m + 1], w) for m in range(0, len(vals), 2)]
    return vals[0]


def _footprint(L: _Lookup, lv) -> tuple[list, list]:
    """The texels LINEAR filtering blends (compared, for a shadow lookup) and their weights:
    corners (i0, j0), (i1, j0), (i0, j1), (i1, j1) (then the same at k1 for 3D)."""
    P = L.P
    lo, hi, wt = [], [], []
    for axis in range(L.dims):
        u, n = _texel_coord(L, lv, axis)
        a = u - F32(0.5)
        a = np.where(np.isnan(a), F32(0), np.clip(a, -_BIG, _BIG))
        fl = np.floor(a)
        i0 = fl.astype(np.int64)
        if L.cube and P.seamless:
            lo.append(np.clip(i0, -1, n - 1))
            hi.append(np.clip(i0 + 1, 0, n))
        else:
            lo.append(_wrap(i0, n, P.wrap[axis]))
            hi.append(_wrap(i0 + 1, n, P.wrap[axis]))
        wt.append((a - fl).astype(F32))
    dims = L.dims
    corners = [(a, b, c) for c in ((0, 1) if dims > 2 else (0,))
               for b in ((0, 1) if dims > 1 else (0,)) for a in (0, 1)]
    vals = []
    cube_corner = []
    for a, b, c in corners:
        i = (lo, hi)[a][0]
        j = (lo, hi)[b][1] if dims > 1 else np.zeros_like(i)
        z = (lo, hi)[c][2] if dims > 2 else L.z
        if L.cube and P.seamless:
            z, i, j, corner = _cube_remap(L.z, i, j, P.W[lv])
            cube_corner.append(corner)
        tx = _fetch(P, lv, i, j, z)
        if L.ref is not None:
            tx = _compare(P, L.ref, tx)
        vals.append(tx)
    if cube_corner and any(c.any() for c in cube_corner):
        # GL §8.13.1: the missing corner texel = the average of the three available ones
        for n, corner in enumerate(cube_corner):
            if corner.any():
                others = [vals[m] for m in range(4) if m != n]
                # times 1/3 rather than divided by 3: llvmpipe's rounding (a gathered corner
                # differed by one ulp with "/ 3" on llvmpipe; tests/test_tgsi_gather.py)
                avg = (others[0] + others[1] + others[2]) * F32(1.0 / 3.0)
                m = corner[:, None] if vals[n].ndim == 2 else corner
                vals[n] = np.where(m, avg, vals[n])
    return vals, wt


def _filter(L: _Lookup, lv, lin) -> np.ndarray:
    """Sample level ``lv`` (per lane) with LINEAR where ``lin`` else NEAREST."""
    if lin.all():
        return _linear(L, lv)
    if not lin.any():
        return _nearest(L, lv)
    out = _nearest(L, lv)             # float textures only: integer ones are NEAREST (GL §8.17)
    m = np.flatnonzero(lin)
    out[m] = _linear(L.subset(m), lv[m])
    return out


def _sample(L: _Lookup, lam: np.ndarray) -> np.ndarray:
    """GL §8.14-8.15: choose magnification/minification by lambda vs c, then the mipmap
    level(s) (§8.14.3) and filter."""
    P = L.P
    k = lam.shape[0]
    mini = lam > P.c                                   # NaN -> magnification
    lin = np.where(mini, P.min_lin, P.mag_lin)
    lv = np.full(k, P.base, np.int64)
    if P.mip is None or not mini.any():
        return _filter(L, lv, lin)
    span = P.q - P.base
    lam_c = np.where(mini, np.clip(lam, F32(0), F32(span + 1)), F32(0))
    if P.mip == "N":
        # d = base if lambda <= 1/2, else base + ceil(lambda + 1/2) - 1, clamped to q
        d = np.where(lam_c <= F32(0.5), 0, np.ceil(lam_c + F32(0.5)).astype(np.int64) - 1)
        lv = np.where(mini, np.minimum(P.base + d, P.q), lv)
        return _filter(L, lv, lin)
    # *_MIPMAP_LINEAR: d1 = base + floor(lambda), d2 = d1 + 1, blend by frac(lambda);
    # lambda >= q - base: the last level alone
    top = mini & (lam_c >= F32(span))
    fl = np.floor(lam_c)
    d1 = np.where(top, P.q, P.base + fl.astype(np.int64))
    lv = np.where(mini, d1, lv)
    out = _filter(L, lv, lin)
    blend = mini & ~top
    if blend.any():
        m = np.flatnonzero(blend)
        sub = L.subset(m)
        second = _filter(sub, lv[m] + 1, lin[m])
        frac = (lam_c - fl)[m].astype(F32)
        out[m] = _lerp(out[m], second, frac)
    return out


# ---- the opcodes --------------------------------------------------------------------------------

def _coords(target: str, c: np.ndarray):
    """GP4 Table X.17: (s, t, r, layer, shadow reference) columns of the coordinate vector."""
    col = lambda n: c[:, n]  # noqa: E731
    return {
        "1D": (col(0), None, None, None, None),
        "2D": (col(0), col(1), None, None, None),
        "3D": (col(0), col(1), col(2), None, None),
        "CUBE": (col(0), col(1), col(2), None, None),
        "RECT": (col(0), col(1), None, None, None),
        "ARRAY1D": (col(0), None, None, col(1), None),
        "ARRAY2D": (col(0), col(1), None, col(2), None),
        "SHADOW1D": (col(0), None, None, None, col(2)),
        "SHADOW2D": (col(0), col(1), None, None, col(2)),
        "SHADOWRECT": (col(0), col(1), None, None, col(2)),
        "SHADOWCUBE": (col(0), col(1), col(2), None, col(3)),
        "SHADOWARRAY1D": (col(0), None, None, col(1), col(2)),
        "SHADOWARRAY2D": (col(0), col(1), None, col(2), col(3)),
    }[target]


def _project(c: np.ndarray) -> np.ndarray:
    """GP4 TXP: x, y, z divided by w (w kept)."""
    out = np.array(c, F32, copy=True)
    out[:, :3] = out[:, :3] / out[:, 3:4]
    return out


def _implicit_partials(x, comps, project: bool, fine: bool = False):
    """GP4 ComputePartialsX/Y: fragment programs -- coarse quad differences (module docstring);
    vertex/geometry programs -- zero.  Returns (dx, dy) of shape (k|1, len(comps)).

    ``fine``: each lane's own row and column pair of its quad instead (GLSL 4.50 §8.14.1
    dFdxFine/dFdyFine; which of the two an implicit derivative is, is the implementation's
    choice -- llvmpipe takes fine differences for cube maps, see
    ``xlate.verify.permits.rule_fine_derivatives``)."""
    zero = np.zeros((1, len(comps)), F32)
    if x.stage != Stage.FRAGMENT:
        return zero, zero
    full = x.loaders[0](x.st, None)           # the coordinate on every lane of the chunk
    if full.shape[0] == 1:
        return zero, zero
    if project:
        full = _project(full)
    cols = full[:, list(comps)]
    total = cols.shape[0]
    lanes = x.st.all_lanes if x.idx is None else x.idx
    q = lanes - (lanes & 3)
    x0, y0 = (lanes - (lanes & 1), lanes - (lanes & 2)) if fine else (q, q)
    px = x0 + 1
    py = y0 + 2
    px = np.where(px >= total, x0, px)
    py = np.where(py >= total, y0, py)
    return cols[px] - cols[x0], cols[py] - cols[y0]


def _rho_log2(dx: np.ndarray, dy: np.ndarray, fast: bool) -> np.ndarray:
    """lambda_base = log2(rho), rho = max(|dx|, |dy|) (GL eq. 8.7-8.8, exact lengths, float32).

    ``fast``: Mesa llvmpipe's evaluation (gallivm ``lp_build_fast_log2`` of rho^2, halved):
    log2(m * 2^e) ~ e + (m - 1) for m in [1, 2), piecewise linear between powers of two."""
    rx = np.sum(dx * dx, axis=1, dtype=F32)
    ry = np.sum(dy * dy, axis=1, dtype=F32)
    r2 = np.maximum(rx, ry)
    with np.errstate(divide="ignore", invalid="ignore"):
        if not fast:
            return np.log2(np.sqrt(r2)).astype(F32)
        m, e = np.frexp(r2)                       # r2 = m * 2^e, m in [0.5, 1)
        lg = (e - 1).astype(F32) + (F32(2) * m.astype(F32) - F32(1))
        lg = np.where(r2 == 0, F32(-np.inf), np.where(np.isfinite(r2), lg, r2))
        return (lg * F32(0.5)).astype(F32)


def _texture(x, op: str, c, gdx=None, gdy=None, fine: bool = False):
    """TEX TXB TXL TXP TXD (GP4 §2.X.8.Z): TextureSample(coord, lambda, ddx, ddy, offset).
    ``fine``: implicit partials from fine differences (:func:`_implicit_partials`)."""
    P: _Prepared = x.st.textures[x.inst.tex.unit]
    target = x.inst.tex.target
    base = BASE_TARGET[target]
    rect = base == "RECT"
    cube = base == "CUBE"
    comps = _SPATIAL[base]
    c = np.asarray(c, F32)
    if op == "TXP":
        c = _project(c)
    explicit = None
    bias = None
    if op == "TXD":
        dx = np.asarray(gdx, F32)[:, list(comps)]
        dy = np.asarray(gdy, F32)[:, list(comps)]
    elif op == "TXL" and not rect:
        dx = dy = None
        explicit = c[:, 3]
    else:
        # GLSL: rectangle samplers have no LOD/bias argument -> implicit derivatives
        dx, dy = _implicit_partials(x, comps, op == "TXP", fine)
        if op == "TXB" and not rect:
            bias = c[:, 3]
    k = max(a.shape[0] for a in (c, dx, dy) if a is not None)
    c = np.broadcast_to(c, (k, 4))
    s, t, r, layer, ref = _coords(target, c)

    L = _Lookup()
    L.P, L.rect, L.cube, L.ref = P, rect, cube, ref
    L.off = tuple(int(o) for o in x.inst.tex.offset) + (0, 0, 0)
    L.r = None
    if cube:
        v = c[:, :3]
        face = _cube_select(v[:, 0], v[:, 1], v[:, 2])
        sc, tc, ma = _cube_project(v, face)
        L.s = (sc / ma) * F32(0.5) + F32(0.5)
        L.t = (tc / ma) * F32(0.5) + F32(0.5)
        L.z = face.astype(np.int64)
        L.dims = 2
        if dx is not None:
            # partials of the direction, projected onto the face by the chain rule
            n = F32(P.size[0])
            dxs = []
            for d in (dx, dy):
                d = np.broadcast_to(d, (k, 3))
                dsc, dtc, dma = _cube_project(d, face)
                ds = F32(0.5) * (dsc * ma - sc * dma) / (ma * ma)
                dt = F32(0.5) * (dtc * ma - tc * dma) / (ma * ma)
                dxs.append(np.stack([ds * n, dt * n], axis=1))
            dx, dy = dxs
    else:
        L.s, L.t = s, t
        L.dims = len(comps)
        if base == "3D":
            L.r = r
        if layer is not None:
            nl = P.Z[P.base]
            # GL §8.14.2: layer = clamp(floor(coord + 0.5), 0, layers - 1)
            L.z = np.clip(_ifloor(layer + F32(0.5)), 0, nl - 1)
        else:
            L.z = np.zeros(k, np.int64)
        if dx is not None:
            # u = s * size (GL §8.14.1); RECT coordinates are texel units already (llvmpipe
            # scales them by the size once more: emulated in "llvmpipe" sampling)
            unit_scale = rect and not P.llvmpipe
            scale = np.array([1, 1, 1] if unit_scale else [int(v) for v in P.size], F32)[:len(comps)]
            dx = np.broadcast_to(dx, (k, len(comps))) * scale
            dy = np.broadcast_to(dy, (k, len(comps))) * scale
    if explicit is not None:
        lam = np.array(explicit, F32)
    else:
        lam = _rho_log2(dx, dy, P.fast_log2)
    # GL eq. 8.6: lambda' = lambda_base + clamp(bias_texobj + bias_shader); then clamp to
    # [TEXTURE_MIN_LOD, TEXTURE_MAX_LOD]
    b = P.lod_bias if bias is None else P.lod_bias + bias
    b = np.clip(b, F32(-MAX_TEXTURE_LOD_BIAS), F32(MAX_TEXTURE_LOD_BIAS))
    lam = np.clip(lam + b, P.min_lod, P.max_lod).astype(F32)
    lam = np.broadcast_to(lam, (k,))
    res = _sample(L, lam)
    if ref is not None:
        one = np.ones(k, F32)
        return np.stack([res, res, res, one], axis=1)
    return res


def op_tex(x, c):
    return _texture(x, "TEX", c)


def op_txb(x, c):
    return _texture(x, "TXB", c)


def op_txl(x, c):
    return _texture(x, "TXL", c)


def op_txp(x, c):
    return _texture(x, "TXP", c)


def op_txd(x, c, dx, dy):
    return _texture(x, "TXD", c, dx, dy)


def op_txf(x, c):
    """GP4 TXF / TexelFetch (Table X.18): integer texel coordinates, LOD = base + w; no wrap,
    no filtering.  Out-of-range coordinates/levels -> (0, 0, 0, 0) (project choice)."""
    P: _Prepared = x.st.textures[x.inst.tex.unit]
    target = x.inst.tex.target
    c = np.asarray(c).astype(np.int64)
    k = c.shape[0]
    off = tuple(int(o) for o in x.inst.tex.offset) + (0, 0, 0)
    zero = np.zeros(k, np.int64)
    i = c[:, 0] + off[0]
    j = zero
    z = zero
    if target in ("2D", "RECT", "ARRAY2D", "3D"):
        j = c[:, 1] + off[1]
    if target == "3D":
        z = c[:, 2] + off[2]
    elif target == "ARRAY1D":
        z = c[:, 1]
    elif target == "ARRAY2D":
        z = c[:, 2]
    if target in ("RECT", "BUFFER"):
        lod = zero                       # GLSL texelFetch(sampler2DRect/samplerBuffer): no LOD
    else:
        lod = c[:, 3]
    lv = P.base + lod
    ok = (lod >= 0) & (lv <= P.q)
    lv = np.clip(lv, 0, P.q)
    zeros = np.zeros(4, P.dtype)
    if not ok.all():
        i = np.where(ok, i, -1)
    return _fetch(P, lv, i, j, z, outside=zeros)


def op_txq(x, c):
    """GP4 TXQ: the size of level base + x; components as GLSL ``textureSize`` (rest 0).
    RECT/BUFFER ignore the level; a level out of range gives (0, 0, 0, 0) (project choice)."""
    P: _Prepared = x.st.textures[x.inst.tex.unit]
    target = x.inst.tex.target
    base = BASE_TARGET[target]
    c = np.asarray(c).astype(np.int64)
    k = c.shape[0]
    if base in ("RECT", "BUFFER"):
        lod = np.zeros(k, np.int64)
    else:
        lod = c[:, 0]
    lv = P.base + lod
    ok = (lod >= 0) & (lv <= P.q)
    lv = np.clip(lv, 0, P.q)
    W, H, Z = P.W[lv], P.H[lv], P.Z[lv]
    zero = np.zeros(k, np.int64)
    cols = {"1D": (W, zero, zero), "BUFFER": (W, zero, zero), "2D": (W, H, zero),
            "RECT": (W, H, zero), "CUBE": (W, H, zero), "3D": (W, H, Z),
            "ARRAY1D": (W, Z, zero), "ARRAY2D": (W, H, Z)}[base]
    out = np.stack(list(cols) + [zero], axis=1)
    out = np.where(ok[:, None], out, 0)
    return out.astype(I32)


def op_txg(x, c):
    """Texture gather (ARB_texture_gather; GLSL textureGather): the four texels of the LINEAR
    footprint of the base level, whatever the filters, component ``tex.component`` of each
    (a shadow lookup: each texel's comparison result), as (i0,j1), (i1,j1), (i1,j0), (i0,j0) in
    x, y, z, w."""
    P: _Prepared = x.st.textures[x.inst.tex.unit]
    target = x.inst.tex.target
    base = BASE_TARGET[target]
    c = np.asarray(c, F32)
    k = c.shape[0]
    s, t, _r, layer, ref = _coords(target, c)
    L = _Lookup()
    L.P, L.rect, L.cube, L.ref, L.r = P, base == "RECT", base == "CUBE", ref, None
    L.off = tuple(int(o) for o in x.inst.tex.offset) + (0, 0, 0)
    L.dims = 2
    if L.cube:
        v = c[:, :3]
        face = _cube_select(v[:, 0], v[:, 1], v[:, 2])
        sc, tc, ma = _cube_project(v, face)
        L.s = (sc / ma) * F32(0.5) + F32(0.5)
        L.t = (tc / ma) * F32(0.5) + F32(0.5)
        L.z = face.astype(np.int64)
    else:
        L.s, L.t = s, t
        L.z = np.zeros(k, np.int64) if layer is None else \
            np.clip(_ifloor(layer + F32(0.5)), 0, P.Z[P.base] - 1)
    vals, _w = _footprint(L, np.full(k, P.base, np.int64))
    if ref is None:
        comp = x.inst.tex.component
        vals = [v[:, comp] for v in vals]
    out = np.stack([vals[2], vals[3], vals[1], vals[0]], axis=1)
    return out.astype(P.data.dtype)


def op_txqlevels(x, c):
    """The number of mipmap levels the texture's view offers, base to max (GLSL
    ``textureQueryLevels``) in every component; the operand is not read."""
    P: _Prepared = x.st.textures[x.inst.tex.unit]
    k = np.asarray(c).shape[0]
    return np.full((k, 4), P.q - P.base + 1, I32)


TEX: dict[str, Callable] = {"TEX": op_tex, "TXB": op_txb, "TXD": op_txd, "TXF": op_txf,
                            "TXL": op_txl, "TXP": op_txp, "TXQ": op_txq, "TXG": op_txg,
                            "TXQLEVELS": op_txqlevels}
