"""xlate: translate legacy GPU assembly shaders (NVIDIA/ARB, TGSI) to GLSL and SPIR-V.

Library entry points (all raise :class:`XlateError` carrying diagnostics on bad input)::

    import xlate
    prog = xlate.parse(text, filename="water.fp")           # -> IR Program
    result = xlate.translate(text, target="glsl")            # -> Translation
    outputs = xlate.execute(prog, inputs, lanes=1024)         # run the original (NumPy)
"""
from __future__ import annotations

__version__ = "0.1.0"

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # for type checkers; at run time __getattr__ below loads them on first use
    from .api import Translation, parse, translate
    from .diagnostics import Diagnostic, Span, XlateError
    from .exec import execute
    from .verify import verify

__all__ = ["__version__", "Diagnostic", "Span", "XlateError", "Translation", "parse", "translate",
           "execute", "verify"]

# Everything is loaded on first use: `import xlate.cli` (the console script) must not pay for the
# IR and the diagnostics machinery before it knows the command -- `xlate check` starts glslang's
# start-up work in a thread first (xlate/check.py), and every millisecond before that counts.
_LAZY = {"Diagnostic": "diagnostics", "Span": "diagnostics", "XlateError": "diagnostics",
         "Translation": "api", "parse": "api", "translate": "api", "execute": "exec",
         "verify": "verify"}


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'xlate' has no attribute {name!r}")
    import importlib
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value          # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
