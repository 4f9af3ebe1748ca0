"""The permission rules of an array lookup's layer (:mod:`permits` lists them in
:data:`permits.RULES`): which layer a layer coordinate selects, each shown by recomputing the
lookup at the layer the implementation took."""
from __future__ import annotations

import numpy as np

from ..ir.model import DataType
from . import compare as cmp
from .permits_site import F32, SAMPLING_OPS, Site
from .permits_texture import _near


#: the layer coordinate whose magnitude llvmpipe's float -> int32 conversion overflows
LLVMPIPE_LAYER_WRAP = 2.0 ** 31
#: the coordinate component holding an array lookup's layer (shadow variants alike)
_LAYER_COMPONENT = {"ARRAY1D": 1, "ARRAY2D": 2, "ARRAYCUBE": 3}


def rule_layer_tie(s: Site) -> np.ndarray:
    """An array lookup whose layer coordinate r lies exactly halfway between two layers
    (r = k + 0.5): either layer.  NV_gpu_program4 2.X.8.Z derives the layer "by rounding the
    extracted floating-point component to the nearest integer", which names no direction for
    a tie; tgsi.rst leaves the layer's rounding to the driver; Vulkan asks round-to-nearest
    and prefers even (tint 1316); GLSL 4.50 §8.9's ``floor(layer + 0.5)`` is the executor's
    choice (exec/texture.py).  gallivm rounds to nearest even (lp_build_layer_coord:
    lp_build_iround), so r = 0.5 reads layer 0 where the executor reads layer 1 (generated
    TGSI fragment seed 2201, inputs seed 2200: ``TXL2 ... CUBEARRAY`` of a literal layer
    0.5).  Shown by recomputation: the same lookup with r moved to k, within the filtering
    tolerance (as :func:`rule_boundary`); below 2^23, where k + 0.5 is a float."""
    layer = _layer_component(s)
    if layer is None:
        return np.zeros((len(s.exe), 4), bool)
    r = np.asarray(s.operands[0], F32).reshape(len(s.exe), -1)[:, layer].astype(np.float64)
    with np.errstate(invalid="ignore"):
        tie = np.isfinite(r) & (r > 0) & (r < 2.0 ** 23) & (r - np.floor(r) == 0.5)
    return _at_layer(s, layer, tie, lambda r: np.where(r - np.floor(r) == 0.5, np.floor(r), r))


def rule_wrapped_layer(s: Site) -> np.ndarray:
    """A llvmpipe/lavapipe defect, not a freedom: an array lookup's layer coordinate r at or
    beyond :data:`LLVMPIPE_LAYER_WRAP` selects layer 0 instead of the last (GL 4.5 §8.14.2
    and §8.13 clamp the layer to d - 1); gallivm rounds r to a 32-bit integer first
    (lp_build_layer_coord: lp_build_iround, then an integer clamp), and an out-of-range
    conversion gives INT_MIN, which the clamp takes to 0 (generated TGSI fragment seed 1904,
    inputs seed 1900: ``TXL2 ... CUBEARRAY`` at r = 8.4e27, llvmpipe's texel that of layer
    0).  Shown by recomputation: the same lookup with the layer coordinate 0 gives the
    implementation's value (within the filtering tolerance, as :func:`rule_boundary`).  Only
    on the backends that sample with llvmpipe's code; a negative r is clamped to 0 by GL
    itself, so nothing differs there."""
    layer = _layer_component(s)
    if layer is None or s.backend not in ("gl", "gl-spirv", "vulkan"):
        return np.zeros((len(s.exe), 4), bool)
    r = np.asarray(s.operands[0], F32).reshape(len(s.exe), -1)[:, layer]
    with np.errstate(invalid="ignore"):
        wrapped = np.isfinite(r) & (r >= LLVMPIPE_LAYER_WRAP)
    return _at_layer(s, layer, wrapped, np.zeros_like)


def _layer_component(s: Site) -> int | None:
    """The coordinate component holding the layer of the array lookup ``s`` judges, or None
    (no array lookup)."""
    if s.ins.op not in SAMPLING_OPS or s.ins.tex is None:
        return None
    from ..exec import texture as tx
    layer = _LAYER_COMPONENT.get(tx.BASE_TARGET.get(s.ins.tex.target))
    if layer is None or np.asarray(s.operands[0]).reshape(len(s.exe), -1).shape[1] <= layer:
        return None
    return layer


def _at_layer(s: Site, layer: int, lanes: np.ndarray, move) -> np.ndarray:
    """On ``lanes``, the written components where the lookup recomputed with its layer
    coordinate r replaced by ``move(r)`` gives the implementation's value (within the
    filtering tolerance; a shadow lookup's w exactly)."""
    if not lanes.any():
        return np.zeros((len(s.exe), 4), bool)
    coords = np.array(np.atleast_2d(np.asarray(s.all_operands[0], F32)))
    coords[:, layer] = move(coords[:, layer].astype(np.float64)).astype(F32)
    tol = cmp.INEXACT.get(s.ins.op, cmp.INEXACT["TEX"])
    near = _near(s, s.recompute([coords] + list(s.all_operands[1:])), tol,
                 s.op.rt == DataType.FLOAT, "SHADOW" in s.ins.tex.target)
    return near & lanes[:, None] & s.written_components()
