"""Texture objects and their validation against a program (the rules: ``texture.py``'s
docstring): :class:`Texture`, the prepared sampling form and :func:`prepare`."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..ir.model import MULTISAMPLE_TARGETS, DataType, Program
from .bind import ExecError

F32, I32, U32 = np.float32, np.int32, np.uint32

#: texture target of each instruction target (GP4 Table X.17: SHADOW* are pseudo-targets)
BASE_TARGET = {"1D": "1D", "2D": "2D", "3D": "3D", "CUBE": "CUBE", "RECT": "RECT",
               "ARRAY1D": "ARRAY1D", "ARRAY2D": "ARRAY2D", "BUFFER": "BUFFER",
               "SHADOW1D": "1D", "SHADOW2D": "2D", "SHADOWRECT": "RECT", "SHADOWCUBE": "CUBE",
               "SHADOWARRAY1D": "ARRAY1D", "SHADOWARRAY2D": "ARRAY2D",
               "ARRAYCUBE": "ARRAYCUBE", "SHADOWARRAYCUBE": "ARRAYCUBE", "2DMS": "2DMS",
               "ARRAY2DMS": "ARRAY2DMS"}
TARGETS = ("1D", "2D", "3D", "CUBE", "RECT", "ARRAY1D", "ARRAY2D", "BUFFER", "ARRAYCUBE", "2DMS",
           "ARRAY2DMS")
CUBES = ("CUBE", "ARRAYCUBE")
MULTISAMPLE = MULTISAMPLE_TARGETS

#: the level array layout per texture target (texel components last)
LEVEL_SHAPES = {"1D": "(w, C)", "BUFFER": "(w, C)", "2D": "(h, w, C)", "RECT": "(h, w, C)",
                "ARRAY1D": "(layers, w, C)", "3D": "(d, h, w, C)",
                "ARRAY2D": "(layers, h, w, C)", "CUBE": "(6, n, n, C) (faces +X -X +Y -Y +Z -Z)",
                "ARRAYCUBE": "(6 * layers, n, n, C) (layer-face 6 l + f, GL's order)",
                "2DMS": "(samples, h, w, C)", "ARRAY2DMS": "(layers, samples, h, w, C)"}
_LEVEL_NDIM = {"1D": 1, "BUFFER": 1, "2D": 2, "RECT": 2, "ARRAY1D": 2, "3D": 3, "ARRAY2D": 3,
               "CUBE": 3, "ARRAYCUBE": 3, "2DMS": 3, "ARRAY2DMS": 4}
#: coordinate components that are texture coordinates proper (derivatives/gradients)
_SPATIAL = {"1D": (0,), "ARRAY1D": (0,), "2D": (0, 1), "RECT": (0, 1), "ARRAY2D": (0, 1),
            "3D": (0, 1, 2), "CUBE": (0, 1, 2), "BUFFER": (0,), "ARRAYCUBE": (0, 1, 2),
            "2DMS": (0, 1), "ARRAY2DMS": (0, 1)}

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
    ARRAYCUBE                 (6 * layers, n, n, C), face f of layer l at 6 l + f (GL's
                              layer-faces)
    2DMS                      (samples, h, w, C): one level, sample s of texel (i, j) at
                              [s, j, i]
    ARRAY2DMS                 (layers, samples, h, w, C): one level
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
                     "BUFFER": "TEXTURE_BUFFER", "ARRAYCUBE": "TEXTURE_CUBE_MAP_ARRAY",
                     "2DMS": "TEXTURE_2D_MULTISAMPLE",
                     "ARRAY2DMS": "TEXTURE_2D_MULTISAMPLE_ARRAY"}.get(target, target)
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
        self.samples = 1                 # multisample textures: samples per texel
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
            elif target in CUBES:
                six = a.shape[0] == 6 if target == "CUBE" else a.shape[0] % 6 == 0
                if not six or a.shape[1] != a.shape[2]:
                    raise ExecError(f"{what}: level {k} has shape {a.shape[:-1] + (C,)}; a "
                                    f"{target} level is {LEVEL_SHAPES[target]} with square faces")
            elif target == "ARRAY2DMS":
                # sample s of layer l at l * samples + s: the executor's (Z, H, W) form
                self.samples = a.shape[1]
                a = a.reshape((a.shape[0] * a.shape[1],) + a.shape[2:])
            if target == "2DMS":
                self.samples = a.shape[0]
            shapes.append(a.shape[:3])
            flat.append(np.ascontiguousarray(a).reshape(-1, 4))
        if target in MULTISAMPLE and len(arrays) != 1:
            raise ExecError(f"{what}: a multisample texture has one level, got {len(arrays)}")
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
        self.seamless = bool(tex.seamless) and target in CUBES
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
            "CUBE": f"{w}x{h}", "3D": f"{w}x{h}x{z}", "ARRAY2D": f"{w}x{h} x {z} layers",
            "ARRAYCUBE": f"{w}x{h} x {z} layer-faces"}.get(target, f"{w}")


_LOAD_ERRORS = {
    # GP4 §2.X.4.4 / §2.X.8.Z: programs that fail to load
    ("TXF", "CUBE"), ("TXF", "SHADOW1D"), ("TXF", "SHADOW2D"), ("TXF", "SHADOWRECT"),
    ("TXF", "SHADOWCUBE"), ("TXF", "SHADOWARRAY1D"), ("TXF", "SHADOWARRAY2D"),
    ("TXB", "SHADOWCUBE"), ("TXB", "SHADOWARRAY2D"), ("TXL", "SHADOWCUBE"),
    ("TXL", "SHADOWARRAY2D"), ("TXP", "SHADOWCUBE"), ("TXP", "SHADOWARRAY2D"),
    # tgsi.rst: a cube-array coordinate fills four components (TXB2/TXL2/TEX2 carry the rest)
    *((op, t) for op in ("TXF", "TXB", "TXL", "TXP") for t in ("ARRAYCUBE", "SHADOWARRAYCUBE")),
    ("TEX", "SHADOWARRAYCUBE"), ("TXD", "SHADOWARRAYCUBE"), ("TXB2", "SHADOWARRAYCUBE"),
    ("TXL2", "SHADOWARRAYCUBE"),
}
#: the opcodes with a second operand and the targets each takes (tgsi.rst TEX2/TXB2/TXL2)
_SECOND_OPERAND = {"TEX2": ("SHADOWARRAYCUBE",), "TXB2": ("ARRAYCUBE", "SHADOWCUBE"),
                   "TXL2": ("ARRAYCUBE",)}
#: what reads a multisample texture
_MULTISAMPLE_OPS = ("TXF", "TXQ", "TXQS")
_QUERIES = ("TXQ", "TXQLEVELS", "TXQS", "LODQ")


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
        mip = any(inst.op not in ("TXF", "TXQ", "TXQLEVELS", "TXQS") for _, inst in insts)
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
            if BASE_TARGET[t] in MULTISAMPLE and inst.op not in _MULTISAMPLE_OPS:
                raise ExecError(f"{where}: a multisample texture is read by texel fetches and "
                                f"queries only (TXF, TXQ, TXQS)")
            if inst.op in _SECOND_OPERAND and t not in _SECOND_OPERAND[inst.op]:
                raise ExecError(f"{where}: {inst.op} takes {' or '.join(_SECOND_OPERAND[inst.op])} "
                                f"targets only (tgsi.rst {inst.op})")
            if inst.op == "TXG" and BASE_TARGET[t] not in ("2D", "ARRAY2D", "CUBE", "ARRAYCUBE",
                                                          "RECT"):
                raise ExecError(f"{where}: TXG gathers from 2D, 2D array, cube, cube array and "
                                f"rectangle textures only (ARB_texture_gather, GLSL 4.00)")
            if any(inst.tex.offset) and BASE_TARGET[t] in ("CUBE", "BUFFER", "ARRAYCUBE", "2DMS",
                                                          "ARRAY2DMS") and inst.op != "TXQ":
                raise ExecError(f"{where}: texel offsets are not supported for {t} "
                                f"(GP4 §2.X.4.4)")
            if inst.op in _QUERIES:
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


