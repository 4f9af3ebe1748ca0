"""The implementation's subgroups, learned from a probe run (issue 20: TGSI VOTE_*, BALLOT,
READ_FIRST, READ_INVOC).

Which invocations form a subgroup, and their numbers in it, are the implementation's (tgsi.rst:
"the shader invocations running in the current SIMD group").  Rather than assume a partition,
the verifier asks the implementation: a probe fragment shader -- the harness's own, drawn
exactly as the program's draw (same runner, same framebuffer, same full-screen triangle) --
writes at each pixel ``gl_SubGroupInvocationARB``, ``gl_SubGroupSizeARB`` and the pixel of the
subgroup's first active invocation (``readFirstInvocationARB`` of a pixel key made from
``gl_FragCoord``).  That is the partition: a lane's subgroup is named by that first pixel, its
invocation number is its own.  The executor re-runs with it (``execute(..., subgroups=)``), so
both sides reduce over the same invocations and must then agree bit for bit; a partition the
model cannot take (an invocation number of 64 or more, two lanes with one number) makes the
program ``unsupported`` with the reason, never a guess.

The probe cannot see what a different shader would do with the same draw; that the partition
is the rasteriser's and the dispatcher's, not the shader's, is the assumption -- and any
departure from it shows as a mismatch, never as a pass."""
from __future__ import annotations

import numpy as np

from ..ir.model import Program, Stage
from ..ir.ops import LANE_OPS

_PROBE_TGSI = ("FRAG\nDCL OUT[0], COLOR\nIMM[0] FLT32 {0.0, 0.0, 0.0, 0.0}\n"
               "  0: MOV OUT[0], IMM[0]\n  1: END\n")
_PROBE_BODY = ("uint xv_key = uint(gl_FragCoord.y) * 65536u + uint(gl_FragCoord.x);\n"
               "    result_color0 = uintBitsToFloat(uvec4(gl_SubGroupInvocationARB, "
               "gl_SubGroupSizeARB, readFirstInvocationARB(xv_key), 0u));")


class PartitionUnknown(Exception):
    """The probe ran but gave no partition the executor's model takes (the reason)."""


def uses_lane_ops(program: Program) -> bool:
    return any(ins.op in LANE_OPS for ins in program.instructions)


def probe_text(profile: str) -> tuple[str, dict]:
    """(GLSL, reflection) of the probe shader in ``profile``."""
    from ..backends.glsl import emit_glsl
    from ..frontends import parse_program
    out = emit_glsl(parse_program(_PROBE_TGSI, "<subgroup probe>"), profile)
    src = out.source.replace("result_color0 = vec4(0.0);", _PROBE_BODY, 1)
    first, rest = src.split("\n", 1)
    src = f"{first}\n#extension GL_ARB_shader_ballot : require\n{rest}"
    return src, out.reflection


def probe_partition(runner, profile: str, lanes: int) -> np.ndarray:
    """(lanes, 2) subgroup and invocation numbers of the lanes of a fragment draw of ``lanes``
    (``capture.quad_layout``) on ``runner``."""
    from .capture import quad_layout
    src, reflection = probe_text(profile)
    cap = runner.run("fragment", src, reflection, lanes, inputs={}, uniforms=[])
    words = np.asarray(cap.outputs["result_color0"], np.uint32).reshape(lanes, 4)
    x, y, _, _ = quad_layout(lanes)
    inv, size, first = words[:, 0].astype(np.int64), words[:, 1], words[:, 2].astype(np.int64)
    if (inv >= 64).any() or (size > 64).any():
        raise PartitionUnknown(f"subgroups of {int(size.max())} invocations (the executor's "
                               "model has at most 64)")
    key = y.astype(np.int64) * 65536 + x.astype(np.int64)
    lane_of = dict(zip(key.tolist(), range(lanes)))
    group = np.array([lane_of.get(int(k), -1) for k in first], np.int64)
    if (group < 0).any():
        raise PartitionUnknown("a subgroup whose first active invocation is not one of the "
                               "harness's pixels")
    part = np.stack([group, inv], axis=1)
    if len(np.unique(part[:, 0] * 64 + part[:, 1])) != lanes:
        raise PartitionUnknown("two pixels of one subgroup with the same invocation number")
    return part


def whole_rows(program: Program, lanes: int, width: int) -> int:
    """Lanes rounded up so the harness's framebuffer rows are full: every pixel the
    implementation shades is a lane the executor runs (an extra pixel would be an active
    invocation the executor does not have)."""
    if program.stage != Stage.FRAGMENT or not uses_lane_ops(program):
        return lanes
    rows = 2 * width
    return (lanes + rows - 1) // rows * rows
