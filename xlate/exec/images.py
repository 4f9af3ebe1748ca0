"""Images in the executor (IMGLOAD, IMGSTORE, RESQ of an image): texel storage and the format
conversions a store makes.

An image is an array of texels ``(layers, height, width, 4)`` of uint32 words holding what a
load returns: the float bits of a FLOAT/UNORM/SNORM channel, the integer of a UINT/SINT one,
and for channels the format lacks 0, 0, 0 and 1 (1.0 for non-integer formats) -- GL 4.6 8.26
(image loads return the texel as a texture lookup would, "converted ... as in table 15.1").
Layers: a 3D image's depth, an array's layers, a cube's six faces (a cube array's layer * 6 +
face); 1D and buffer images have height 1.  A multisample image (2DMS, ARRAY2DMS) has
``IMAGE_SAMPLES`` samples a texel: sample s of layer l is layer ``l * IMAGE_SAMPLES + s``, its
sample index read from the coordinates' w (lower_memory.IMAGE_TARGETS says why w).

A store converts each channel to the format (GL 4.6 8.26 and 8.4.4.2): float formats round to
the nearest representable value (16-bit: half-float, round to nearest even); UNORM clamps to
[0, 1] and SNORM to [-1, 1] and rounds ``value * (2^b - 1)`` (resp. ``2^(b-1) - 1``) to the
nearest integer (ties to even); integer formats clamp to their range (GL leaves an
out-of-range integer undefined; llvmpipe clamps, measured: 300 into R8_UINT reads back 255 --
tests/test_tgsi_compute.py -- and the verifier's generated values stay in range).  An image declared without a format (a write-only
``DCL IMAGE[n], 2D, WR``) stores the four words as they are (the verifier binds RGBA32F).

Coordinates outside the image (or a layer past the last): a load returns 0 in every channel and
a store does nothing (GL 4.6 8.26, "Image Loads and Stores ... invalid texel").
"""
from __future__ import annotations

import numpy as np

from ..ir.image_formats import ImageFormat, image_format
from ..ir.model import MULTISAMPLE_TARGETS, Resource
from .bind import ExecError

#: the size the executor (and the verifier) gives an image nobody supplied:
#: (layers, height, width) per target
DEFAULT_SHAPE = {"BUFFER": (1, 1, 64), "1D": (1, 1, 64), "2D": (1, 16, 16), "RECT": (1, 16, 16),
                 "3D": (4, 16, 16), "CUBE": (6, 8, 8), "ARRAY1D": (4, 1, 64),
                 "ARRAY2D": (4, 16, 16), "ARRAYCUBE": (12, 8, 8),
                 "2DMS": (4, 8, 8), "ARRAY2DMS": (8, 8, 8)}
#: the samples of a multisample image: 4, a count implementations with multisample storage
#: images have (the verifier checks GL_MAX_IMAGE_SAMPLES, Vulkan's storageImageSampleCounts)
IMAGE_SAMPLES = 4
MULTISAMPLE_IMAGES = MULTISAMPLE_TARGETS


def image_shape(r: Resource) -> tuple[int, int, int]:
    return DEFAULT_SHAPE[r.target]


def new_image(r: Resource, data=None) -> np.ndarray:
    shape = image_shape(r) + (4,)
    if data is None:
        out = np.zeros(shape, np.uint32)
        return out if r.format is None else store_words(image_format(r.format), out)
    a = np.ascontiguousarray(np.asarray(data))
    if a.dtype.itemsize != 4 or a.shape != shape:
        raise ExecError(f"image {r.binding}: expected 32-bit words of shape {shape} (layers, "
                        f"height, width, 4), got {a.dtype} {a.shape}")
    a = a.view(np.uint32).copy()
    return a if r.format is None else store_words(image_format(r.format), a)


def store_words(fmt: ImageFormat, words: np.ndarray) -> np.ndarray:
    """The words a load returns after ``words`` (..., 4) are stored in format ``fmt``."""
    w = np.ascontiguousarray(words, np.uint32)
    out = np.zeros(w.shape, np.uint32)
    n = fmt.channels
    v = w[..., :n]
    if fmt.kind == "float":
        f = v.view(np.float32)
        if fmt.bits == 16:
            with np.errstate(over="ignore"):
                f = f.astype(np.float16).astype(np.float32)
        out[..., :n] = f.view(np.uint32)
    elif fmt.kind in ("unorm", "snorm"):
        f = v.view(np.float32).astype(np.float64)
        scale = float((1 << fmt.bits) - 1) if fmt.kind == "unorm" else float((1 << (fmt.bits - 1)) - 1)
        lo = 0.0 if fmt.kind == "unorm" else -1.0
        f = np.where(np.isnan(f), 0.0, np.clip(f, lo, 1.0))
        # + 0.0: an integer channel has no negative zero -- a value rounding to 0 reads back
        # +0.0 (np.rint(-0.4) is -0.0; found by an R8G8B8A8_SNORM image copy on llvmpipe)
        k = np.rint(f * scale) + 0.0
        back = (k / scale).astype(np.float32)
        if fmt.kind == "snorm":
            back = np.maximum(back, np.float32(-1.0))
        out[..., :n] = back.view(np.uint32)
    elif fmt.kind == "uint":
        out[..., :n] = np.minimum(v, np.uint32((1 << fmt.bits) - 1)) if fmt.bits < 32 else v
    else:                                          # sint: clamp as signed
        i = v.view(np.int32)
        if fmt.bits < 32:
            i = np.clip(i, -(1 << (fmt.bits - 1)), (1 << (fmt.bits - 1)) - 1)
        out[..., :n] = i.astype(np.int32).view(np.uint32)
    if n < 4:
        out[..., 3] = np.float32(1.0).view(np.uint32) if fmt.integer is None else 1
    return out


def texel_index(r: Resource, shape, coords: np.ndarray):
    """(layer, y, x, inside) of integer coordinates (n, 4) for an image of ``shape``."""
    c = coords.view(np.int32).astype(np.int64)
    n = c.shape[0]
    zero = np.zeros(n, np.int64)
    t = r.target
    x = c[:, 0]
    y = c[:, 1] if t in ("2D", "RECT", "3D", "CUBE", "ARRAY2D", "ARRAYCUBE", "2DMS",
                         "ARRAY2DMS") else zero
    if t in ("3D", "CUBE", "ARRAY2D", "ARRAYCUBE", "ARRAY2DMS"):
        layer = c[:, 2]
    elif t == "ARRAY1D":
        layer = c[:, 1]
    else:
        layer = zero
    layers, h, w = shape
    if t in MULTISAMPLE_IMAGES:
        sample = c[:, 3]
        inside = (sample >= 0) & (sample < IMAGE_SAMPLES) & (layer >= 0) & \
            (layer < layers // IMAGE_SAMPLES)
        layer = layer * IMAGE_SAMPLES + sample
    else:
        inside = (layer >= 0) & (layer < layers)
    inside &= (x >= 0) & (x < w) & (y >= 0) & (y < h)
    return np.where(inside, layer, 0), np.where(inside, y, 0), np.where(inside, x, 0), inside
