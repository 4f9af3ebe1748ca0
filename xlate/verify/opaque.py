"""The same GLSL with no float literal known at compile time: a counterfactual of the verifier.

Mesa's GL compiler evaluates constant expressions otherwise than the same operations run:
it folds ``x * 0.0`` to +0.0 (an IEEE product is -0.0 for a negative ``x``, NaN for an
infinite one) and a division by a constant +0.0 to 0.0 (passes/zerodivisors.py).  Generated
NV4 fragment seed 1216: ``RFL R4, -c[7], R1.ywxx`` after ``SFL R1`` (R1 = 0), then ``RCP R4.z,
-R4.z`` -- written ``R4 = xl_rfl(-program_local[7], vec4(0.0).ywxx); R4.z = 1.0 / -R4.z;``,
llvmpipe's R4.z was 0.0 where IEEE gives +Inf; lavapipe (Vulkan) gives +Inf.

:func:`opaque_literals` reads every float literal of the shader's functions through
``xl_opaque``, which ORs its bits with a uniform integer that GL initializes to 0 when the
program links (GL 4.5 §7.6) and the compiler cannot see: the run-time value of every
expression is unchanged, bit for bit, and nothing is left to fold.  When that run agrees with
the executor where the plain one did not, the difference was the compiler's evaluation of
constants, not the translation (core._folding_shown).  Integer literals stay as written: some
places need constant expressions (array sizes, texel offsets, ``case`` labels).
"""
from __future__ import annotations

import re

from .mutants_common import Delegate

#: the uniform holding the opaque zero and the function reading a literal through it
ZERO = "xl_opaque_zero"
READ = "xl_opaque"

#: a float literal: digits with a '.' or an exponent, not part of a name, a swizzle or a
#: longer number (a double's 'lf' suffix leaves it alone)
_FLOAT = re.compile(r"(?<![\w.])(?:\d+\.\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|"
                    r"\d+[eE][+-]?\d+)(?![\w.])")
_LOCATION = re.compile(r"layout\s*\([^)]*\blocation\s*=\s*(\d+)[^)]*\)\s*uniform\b[^;\[]*"
                       r"(?:\[(\d+)\])?")
_CONST = re.compile(r"\bconst\b")
_BRACES = re.compile(r"([{}])")


def opaque_literals(glsl: str) -> str:
    """``glsl`` with each float literal inside a function body written ``xl_opaque(literal)``
    and the uniform and function declared after the ``#version`` and ``#extension`` lines.
    Lines declaring a ``const`` keep their literals (their initializers must be constant
    expressions), and so does everything outside function bodies."""
    out: list[str] = []
    depth = 0               # brace depth
    body = 0                # the depth at which the current function's body opened; 0: none
    tail = ""               # the code since the last '{', '}' or ';' (a header ends in ')')
    for line in glsl.split("\n"):
        code = line.split("//", 1)[0]
        keep = bool(_CONST.search(code))
        pieces: list[str] = []
        for piece in _BRACES.split(code):     # a literal never spans a brace
            if piece == "{":
                depth += 1
                if not body and tail.rstrip().endswith(")"):
                    body = depth
                tail = ""
            elif piece == "}":
                if body == depth:
                    body = 0
                depth -= 1
                tail = ""
            else:
                if body and not keep:
                    piece = _FLOAT.sub(lambda m: f"{READ}({m.group(0)})", piece)
                tail = (tail + piece).rsplit(";", 1)[-1]
            pieces.append(piece)
        out.append("".join(pieces) + line[len(code):])
    at = max((i for i, line in enumerate(out) if line.startswith(("#version", "#extension"))),
             default=-1) + 1
    declared = [f"layout(location = {_free_location(glsl)}) uniform int {ZERO};",
                f"float {READ}(float x) {{ return intBitsToFloat(floatBitsToInt(x) | {ZERO}); }}"]
    return "\n".join(out[:at] + declared + out[at:])


def _free_location(glsl: str) -> int:
    """A uniform location past every one the shader declares (an array takes one per
    element)."""
    end = 0
    for m in _LOCATION.finditer(glsl):
        end = max(end, int(m.group(1)) + int(m.group(2) or 1))
    return end


class OpaqueRunner(Delegate):
    """A ``gl`` or ``gl-spirv`` runner whose every run -- the replay's probes too -- compiles
    the GLSL it is given with its float literals opaque (``opaque_constants``).  A mutation
    harness's runner inside it changes the text first."""

    def run(self, stage, glsl, reflection, lanes, **kw):
        return self.inner.run(stage, glsl, reflection, lanes, **{**kw, "opaque_constants": True})
