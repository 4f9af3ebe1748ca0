"""Texture objects and the texture opcodes (TEX TXB TXD TXF TXL TXP TXQ).

Sampling is not implemented yet: every texture opcode is present in :data:`TEX` (so the
opcode-coverage test passes and the dispatch is in place) but raises ``NotImplementedError``
when executed.  The functions receive the same arguments as ALU functions (see ``alu.py``):
``x`` (``x.inst.tex`` is the :class:`~xlate.ir.model.TexRef` with unit, target and texel
offset; ``x.st.textures`` the caller's ``{unit: Texture}``; ``x.stage`` the program stage for
implicit derivatives) and the loaded operands as typed arrays.  They must return (k|1, 4)
arrays of the result type (GP4 §2.X.4.4, §2.X.8.Z TEX ... TXQ; digest §5.10, §8.8).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np


@dataclass
class Texture:
    """One bound texture.

    ``levels``: mipmap levels, level 0 first; each an array of texels with 4 components as the
    last axis: (w, 4) for 1D/BUFFER, (h, w, 4) for 2D/RECT/CUBE faces/ARRAY1D (layers = h),
    (d, h, w, 4) for 3D/ARRAY2D (layers = d), (6, h, w, 4) for CUBE (faces +X -X +Y -Y +Z -Z).
    Float dtypes are float-format textures; int/uint dtypes integer formats (.S/.U results).
    ``target``: 1D 2D 3D CUBE RECT ARRAY1D ARRAY2D BUFFER (the SHADOW* targets of an
    instruction sample a depth texture of the matching base target).
    ``filter``: "NEAREST" | "LINEAR" | "NEAREST_MIPMAP_NEAREST" | "LINEAR_MIPMAP_LINEAR" ...
    (minification filter; ``mag_filter`` separately, defaulting to the non-mipmap part).
    ``wrap``: per coordinate "REPEAT" | "CLAMP_TO_EDGE" | "MIRRORED_REPEAT" | "CLAMP_TO_BORDER".
    ``compare``: depth comparison function for SHADOW targets (e.g. "LEQUAL"), None = off.
    """

    levels: list[np.ndarray]
    target: str = "2D"
    filter: str = "NEAREST"
    mag_filter: str | None = None
    wrap: tuple[str, str, str] = ("REPEAT", "REPEAT", "REPEAT")
    border: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)
    compare: str | None = None
    base_level: int = 0
    lod_bias: float = 0.0
    extra: dict = field(default_factory=dict)


TEX: dict[str, Callable] = {}


def _placeholder(op: str) -> Callable:
    def fn(x, *operands):
        target = x.inst.tex.target if x.inst.tex is not None else "?"
        raise NotImplementedError(f"texture sampling: {op} {target} not implemented yet")
    fn.__name__ = f"op_{op.lower()}"
    fn.placeholder = True
    return fn


for _op in ("TEX", "TXB", "TXD", "TXF", "TXL", "TXP", "TXQ"):
    TEX[_op] = _placeholder(_op)
