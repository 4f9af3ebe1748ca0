"""GLSL forms of the fragment interpolation opcodes (IR INTERPCENTROID / INTERPSAMPLE /
INTERPOFFSET, TGSI INTERP_*; issue 20).

GLSL 4.50 §8.13.2: the interpolant of ``interpolateAt*`` must be an input variable or an
element of an input array; 4.50 allows a component selection on it, ES 3.20 (and ES 3.10's
GL_OES_shader_multisample_interpolation, as glslang reads it) does not.  So the call takes the
variable itself and the operand's swizzle is applied to its result -- the same value, one form
for every profile.  GLSL 3.30 has no interpolateAt* (GLSL 4.00; GL_ARB_gpu_shader5, which
glslang does not implement for them): ops.txt's ``@glsl330`` rows refuse with E7001."""
from __future__ import annotations

import re

from ...ir.model import Instruction, RegKind
from ..refusal import Unsupported
from .text import COMP

INTERP_OPS = frozenset({"INTERPCENTROID", "INTERPSAMPLE", "INTERPOFFSET"})

#: the ES extension that has interpolateAt* before ES 3.20
ES_INTERPOLATION_EXTENSION = "GL_OES_shader_multisample_interpolation"

_VARIABLE = re.compile(r"[A-Za-z_]\w*(\[\d+\])?")


def interpolant(emitter, ins: Instruction) -> tuple[str, str]:
    """(the input variable or array element operand a names, the swizzle suffix to apply to
    the call's result: "" or ".yxzw")."""
    if emitter.snippet(ins.op, "F") is None:
        raise Unsupported(f"the instruction {ins.op} (interpolateAt*, GLSL 4.00; glslang has "
                          f"no GL_ARB_gpu_shader5 form of it)", ins)
    s = ins.srcs[0]
    reg = emitter.prog.registers[s.reg]
    if reg.kind != RegKind.INPUT or s.neg or s.abs or any(s.comp_neg) or \
            any(c > 3 for c in s.swizzle):
        raise Unsupported(f"the instruction {ins.op} of an operand other than a swizzled input "
                          f"register", ins)
    var = emitter.element(s.reg, s.index, s.vertex)
    if not _VARIABLE.fullmatch(var):
        raise Unsupported(f"the instruction {ins.op} of the input {var} (not a variable or an "
                          f"element of an input array)", ins)
    if emitter.profile == "es310":
        emitter.require(ES_INTERPOLATION_EXTENSION)
    swz = "".join(COMP[c] for c in s.swizzle)
    return var, "" if swz == "xyzw" else "." + swz


#: the extension of clock2x32ARB (TGSI CLOCK)
CLOCK_EXTENSION = "GL_ARB_shader_clock"

#: the extensions of the inter-lane opcodes' GLSL (ops.txt)
LANE_EXTENSIONS = {
    "VOTEANY": ("GL_ARB_shader_group_vote",), "VOTEALL": ("GL_ARB_shader_group_vote",),
    "VOTEEQ": ("GL_ARB_shader_group_vote", "GL_ARB_shader_ballot"),
    "BALLOT": ("GL_ARB_shader_ballot", "GL_ARB_gpu_shader_int64"),
    "READFIRST": ("GL_ARB_shader_ballot",), "READINVOC": ("GL_ARB_shader_ballot",),
}
