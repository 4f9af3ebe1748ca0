"""xlate: translate legacy GPU assembly shaders (NVIDIA/ARB, TGSI) to GLSL and SPIR-V.

Library entry points (all raise :class:`XlateError` carrying diagnostics on bad input)::

    import xlate
    prog = xlate.parse(text, filename="water.fp")           # -> IR Program
    result = xlate.translate(text, target="glsl")            # -> Translation
    outputs = xlate.execute(prog, inputs, lanes=1024)         # run the original (NumPy)
"""
from __future__ import annotations

__version__ = "0.1.0"

from .diagnostics import Diagnostic, Span, XlateError  # noqa: E402
from .api import Translation, parse, translate  # noqa: E402

__all__ = ["__version__", "Diagnostic", "Span", "XlateError", "Translation", "parse", "translate",
           "execute"]


def __getattr__(name: str):
    # heavy subsystems load on first use, so `import xlate` (and the CLI) stays free of numpy
    if name == "execute":
        from .exec import execute
        return execute
    if name == "verify":
        from .verify import verify
        return verify
    raise AttributeError(f"module 'xlate' has no attribute {name!r}")
