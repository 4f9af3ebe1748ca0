"""Textures for a program: one :class:`xlate.exec.Texture` per unit it uses, from a seed.

The same objects go to the executor (``execute(..., textures=, sampling="llvmpipe")``) and,
through :meth:`Texture.gl_state`, to the GL implementation (``gl.Runner``), so both sides sample
identical texels with identical sampler state.

Per unit: the base target of the instructions using it (a SHADOW target makes it a depth
texture with a random comparison function); the texel type of its instructions (.F float,
.S int32, .U uint32); a small size (8 texels a side, 4 cube faces/array layers, 16 for
buffers, cube arrays of 2 cubes, multisample textures of 4 samples a texel and one level) with a full mipmap chain where the target has mipmaps and a non-fetch instruction
samples it (not for integer textures: llvmpipe picks a mip level by LOD even when the
minification filter is NEAREST, a Mesa 22.3 bug); a filter drawn from NEAREST/LINEAR and the mipmapped filters (integer textures:
NEAREST only; RECT: no mipmaps), wrap modes drawn per axis (RECT: CLAMP_TO_EDGE /
CLAMP_TO_BORDER); texels uniform in [-1, 2) for float textures ([0, 1) for the oracle), [0, 1] for depth textures,
random words for integer textures.
"""
from __future__ import annotations

import numpy as np

from ..ir.model import DataType, Program
from ..exec.texture import BASE_TARGET, Texture

SIZE = 8
LAYERS = 4
CUBE_LAYERS = 2
SAMPLES = 4           # multisample textures: llvmpipe's and lavapipe's 4x
MIPMAPPED = ("1D", "2D", "3D", "CUBE", "ARRAY1D", "ARRAY2D", "ARRAYCUBE")
FILTERS = ("NEAREST", "LINEAR", "NEAREST_MIPMAP_NEAREST", "LINEAR_MIPMAP_NEAREST",
           "NEAREST_MIPMAP_LINEAR", "LINEAR_MIPMAP_LINEAR")
WRAPS = ("REPEAT", "CLAMP_TO_EDGE", "MIRRORED_REPEAT", "CLAMP_TO_BORDER")
COMPARES = ("LEQUAL", "GEQUAL", "LESS", "GREATER", "EQUAL", "NOTEQUAL", "ALWAYS", "NEVER")


def _level_shape(target: str, n: int) -> tuple[int, ...]:
    if target in ("1D", "BUFFER"):
        return (n,)
    if target in ("2D", "RECT"):
        return (n, n)
    if target == "ARRAY1D":
        return (LAYERS, n)
    if target == "ARRAY2D":
        return (LAYERS, n, n)
    if target == "3D":
        return (n, n, n)
    if target == "CUBE":
        return (6, n, n)
    if target == "ARRAYCUBE":
        return (6 * CUBE_LAYERS, n, n)
    if target == "2DMS":
        return (SAMPLES, n, n)
    if target == "ARRAY2DMS":
        return (LAYERS, SAMPLES, n, n)
    raise ValueError(target)


def texture_units(program: Program) -> dict[int, dict]:
    """unit -> {target, kind ("f"/"i"/"u"), shadow, mip}."""
    units: dict[int, dict] = {}
    for ins in program.instructions:
        if ins.tex is None:
            continue
        u = units.setdefault(ins.tex.unit, {"target": BASE_TARGET.get(ins.tex.target, "2D"),
                                            "kind": None, "shadow": False, "mip": False})
        if ins.tex.target.startswith("SHADOW"):
            u["shadow"] = True
        if ins.op not in ("TXF", "TXQ", "TXQS"):
            u["mip"] = True
        if ins.op not in ("TXQ", "TXQLEVELS", "TXQS", "LODQ") and \
                not ins.tex.target.startswith("SHADOW"):
            u["kind"] = {DataType.INT: "i", DataType.UINT: "u"}.get(ins.dtype, "f")
    for u in units.values():
        u["kind"] = u["kind"] or "f"
    return units


#: float texels for verify: beyond [0, 1] on both sides, so that clamping, sign and range
#: handling of the translation are exercised
VERIFY_RANGE = (-1.0, 2.0)
#: float texels for the cgc-GLSL oracle: what the 8-bit colour textures these programs sample
#: hold.  Outside it the two translations may legitimately differ: a texel < 0 raised to a
#: power is NaN in NV assembly (POW = EX2(y * LG2(x)), NV_gpu_program4 2.X.8.19) and undefined
#: for GLSL's pow (GLSL 1.10 section 8.2), which llvmpipe evaluates differently.
UNORM_RANGE = (0.0, 1.0)


def generate_textures(program: Program, seed: int,
                      texel_range: tuple[float, float] = VERIFY_RANGE) -> dict[int, Texture]:
    lo, hi = texel_range
    rng = np.random.default_rng([seed, 0x7E47])
    out: dict[int, Texture] = {}
    for unit, u in sorted(texture_units(program).items()):
        target, kind, shadow = u["target"], u["kind"], u["shadow"]
        n = 16 if target == "BUFFER" else SIZE
        levels = []
        # integer textures get one level: llvmpipe (Mesa 22.3) samples an LOD-selected mip level
        # of an integer texture even with the NEAREST (non-mipmap) minification filter
        mip = u["mip"] and target in MIPMAPPED and (kind == "f" or shadow)
        size = n
        while True:
            shape = _level_shape(target, size) + (4,)
            if shadow:
                lv = rng.random(shape).astype(np.float32)
            elif kind == "f":
                lv = rng.uniform(lo, hi, shape).astype(np.float32)
            elif kind == "i":
                lv = rng.integers(-(1 << 31), 1 << 31, shape, dtype=np.int64).astype(np.int32)
            else:
                lv = rng.integers(0, 1 << 32, shape, dtype=np.int64).astype(np.uint32)
            levels.append(lv)
            if not mip or size == 1:
                break
            size //= 2
        if kind in ("i", "u") and not shadow:
            filt, mag = "NEAREST", "NEAREST"
        elif target in ("RECT", "BUFFER") or not mip:
            filt = str(rng.choice(FILTERS[:2]))
            mag = filt
        else:
            filt = str(rng.choice(FILTERS))
            mag = str(rng.choice(FILTERS[:2]))
        if target == "RECT":
            wrap = tuple(str(rng.choice(("CLAMP_TO_EDGE", "CLAMP_TO_BORDER"))) for _ in range(3))
        else:
            wrap = tuple(str(rng.choice(WRAPS)) for _ in range(3))
        if kind == "f" or shadow:
            border = tuple(float(x) for x in rng.uniform(lo, hi, 4).astype(np.float32))
        else:
            border = tuple(int(x) for x in rng.integers(-100, 100, 4))
            if kind == "u":
                border = tuple(abs(b) for b in border)
        out[unit] = Texture(levels=levels, target=target, filter=filt, mag_filter=mag,
                            wrap=wrap, border=border,
                            compare=str(rng.choice(COMPARES)) if shadow else "LEQUAL")
    return out


def shadow_units(program: Program) -> set[int]:
    return {unit for unit, u in texture_units(program).items() if u["shadow"]}
