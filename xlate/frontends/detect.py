"""Dialect sniffing from the first bytes of a program (content, never the file extension)."""
from __future__ import annotations

import re

from ..fsio import looks_binary  # noqa: F401  (defined with the file reading; used from here)

# Longest first: "!!VP1.0" must not shadow "!!VP1.1"; "!!ARBvp1.0" before nothing shorter.
HEADERS = ("!!NVvp4.0", "!!NVfp4.0", "!!NVgp4.0", "!!ARBvp1.0", "!!ARBfp1.0", "!!VSP1.0", "!!VP1.0",
           "!!VP1.1", "!!VP2.0", "!!FP1.0")
NV4_HEADERS = ("!!NVvp4.0", "!!NVfp4.0", "!!NVgp4.0")


def detect_header(text: str) -> str | None:
    """The program header the text starts with, or None.

    Headers must be the very first characters (ARBVP 2.14.2, GP4 2.X.2).  A UTF-8 byte-order
    mark is tolerated because editors add it."""
    body = text[1:] if text.startswith("\ufeff") else text
    for h in HEADERS:
        if body.startswith(h):
            return h
    return None


def describe_unknown(text: str) -> str:
    head = text.lstrip()[:24].splitlines()[0] if text.strip() else ""
    # Checked before the generic "unknown header": a known header preceded by whitespace is
    # not a header at all (GP4 2.X.2, ARBVP 2.14.2: the header is the first characters).
    if text[:1].isspace() and detect_header(text.lstrip()) is not None:
        return "the program header must be the first characters of the file (no leading whitespace)"
    if head.startswith("!!"):
        return f"unknown program header '{head.split()[0]}'"
    return "not a program: it does not start with a header such as '!!NVfp4.0'"


_TGSI_HEADER = re.compile(r"\s*(VERT|FRAG|GEOM|COMP|TESS_CTRL|TESS_EVAL)(1\.1)?(?![A-Za-z0-9_])",
                          re.IGNORECASE)


def is_tgsi_text(text: str) -> bool:
    """TGSI text starts (after optional whitespace) with its processor name (tgsi.md 1.2)."""
    body = text[1:] if text.startswith("\ufeff") else text
    return _TGSI_HEADER.match(body) is not None


