"""The bytes of an image's texels in its format, both ways: what the verifier uploads into a
Vulkan image, a Vulkan storage texel buffer or a GL buffer texture, and how it reads them back.
A texel is the executor's four 32-bit words (exec/images.py: float bits for float and normalized
channels, integers for integer ones); packing is exact because the generated values are ones
the format holds (:func:`gl_compute.generated_images`), and unpacking gives them back as GL's
``glGetTexImage`` of an RGBA read does (normalized channels c / (2^b - 1) in float, missing
channels 0, 0 and 1) -- the words an image load returns.
"""
from __future__ import annotations

import numpy as np

_INT_TYPES = {("uint", 8): np.uint8, ("uint", 16): np.uint16, ("uint", 32): np.uint32,
              ("sint", 8): np.int8, ("sint", 16): np.int16, ("sint", 32): np.int32}


def pack_texels(fmt, texels: np.ndarray) -> bytes:
    """The bytes of ``texels`` ((..., 4) 32-bit words: float bits for float and normalized
    formats, integers for integer ones) in format ``fmt`` (None: RGBA32F)."""
    words = np.ascontiguousarray(texels, np.uint32)
    if fmt is None:
        return words.tobytes()
    data = words[..., :fmt.channels]
    if fmt.integer:
        return data.view(np.int32 if fmt.integer == "sint" else np.uint32) \
            .astype(_INT_TYPES[(fmt.integer, fmt.bits)]).tobytes()
    f = data.view(np.float32)
    if fmt.kind == "float":
        return f.astype(np.float16 if fmt.bits == 16 else np.float32).tobytes()
    top = (1 << (fmt.bits - (fmt.kind == "snorm"))) - 1
    q = np.rint(f.astype(np.float64) * top)
    if fmt.kind == "unorm":
        return q.astype(np.uint8 if fmt.bits == 8 else np.uint16).tobytes()
    return q.astype(np.int8 if fmt.bits == 8 else np.int16).tobytes()


def unpack_texels(fmt, data: bytes, shape) -> np.ndarray:
    """The (..., 4) words of texels stored in format ``fmt`` as GL reads them back (RGBA,
    missing channels 0, 0 and 1; normalized channels c / (2^b - 1), at least -1)."""
    if fmt is None:
        return np.frombuffer(data, np.uint32).reshape(shape).copy()
    n = int(np.prod(shape[:-1]))
    if fmt.integer:
        raw = np.frombuffer(data, _INT_TYPES[(fmt.integer, fmt.bits)],
                            n * fmt.channels).reshape(n, fmt.channels)
        out = np.zeros((n, 4), np.int64)
        out[:, 3] = 1
        out[:, :fmt.channels] = raw
        return out.astype(np.uint32 if fmt.integer == "uint" else np.int32).view(np.uint32) \
            .reshape(shape)
    if fmt.kind == "float":
        raw = np.frombuffer(data, np.float16 if fmt.bits == 16 else np.float32,
                            n * fmt.channels).astype(np.float32)
    else:
        signed = fmt.kind == "snorm"
        dt = {(8, False): np.uint8, (16, False): np.uint16, (8, True): np.int8,
              (16, True): np.int16}[(fmt.bits, signed)]
        top = np.float32((1 << (fmt.bits - signed)) - 1)
        raw = np.frombuffer(data, dt, n * fmt.channels).astype(np.float32) / top
        if signed:
            raw = np.maximum(raw, np.float32(-1))
    out = np.zeros((n, 4), np.float32)
    out[:, 3] = 1
    out[:, :fmt.channels] = raw.reshape(n, fmt.channels)
    return out.view(np.uint32).reshape(shape)


__all__ = ["pack_texels", "unpack_texels"]
