"""Texel formats of images (TGSI ``DCL IMAGE[n], <target>, PIPE_FORMAT_<name>``): the formats
GLSL can name in an image layout qualifier, by their Gallium names without the prefix.

Each is ``channels`` (1, 2 or 4: R, RG, RGBA), ``kind`` (float, unorm, snorm, uint, sint) and
``bits`` per channel.  The executor (exec/images.py) converts stored values with these, the GLSL
backend names the layout qualifier from them; a format outside this table is refused by the
frontend naming it.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ImageFormat:
    name: str
    channels: int
    kind: str                  # float | unorm | snorm | uint | sint
    bits: int

    @property
    def integer(self) -> str | None:
        """"uint" / "sint" for integer formats, else None (read as floats)."""
        return self.kind if self.kind in ("uint", "sint") else None


_KINDS = {"FLOAT": "float", "UNORM": "unorm", "SNORM": "snorm", "UINT": "uint", "SINT": "sint"}
_CHANNELS = {1: "R{b}", 2: "R{b}G{b}", 4: "R{b}G{b}B{b}A{b}"}


def _table() -> dict[str, ImageFormat]:
    out = {}
    for channels, pattern in _CHANNELS.items():
        for bits in (8, 16, 32):
            for suffix, kind in _KINDS.items():
                if (kind == "float" and bits == 8) or (kind in ("unorm", "snorm") and bits == 32):
                    continue
                name = f"{pattern.format(b=bits)}_{suffix}"
                out[name] = ImageFormat(name, channels, kind, bits)
    return out


IMAGE_FORMATS: dict[str, ImageFormat] = _table()


def image_format(name: str | None) -> ImageFormat | None:
    """The format of a ``PIPE_FORMAT_...`` (or bare) name; None when not in the table."""
    if name is None:
        return None
    n = name.upper()
    if n.startswith("PIPE_FORMAT_"):
        n = n[len("PIPE_FORMAT_"):]
    return IMAGE_FORMATS.get(n)
