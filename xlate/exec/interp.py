"""The interpolation opcodes (IR INTERPCENTROID / INTERPSAMPLE / INTERPOFFSET, TGSI INTERP_*):
a fragment input's value at a point other than the lane's pixel centre; and the shader clock
(IR CLOCK, TGSI CLOCK: :func:`op_clock`).

The executor's model (issue 20), from the specs:

* It renders single-sampled.  GL 4.5 §14.6.x and GLSL 4.50 §8.13.2: without multisample
  buffers the input "will be evaluated at the center of the pixel" -- the centroid and every
  sample (whatever its number) are the pixel centre, so INTERPCENTROID and INTERPSAMPLE are the
  lane's own input value.  Under MSAA the sample positions, and so INTERPSAMPLE's value, are
  the implementation's (GL 4.5 §14.3.1: ``SAMPLE_POSITION`` is queried, not fixed); the
  executor has no model of them and ``xlate verify`` renders single-sampled, where the result
  is fixed.
* An input is the plane the rasteriser interpolates across the primitive: affine in window
  coordinates for ``noperspective``, and for ``smooth`` too when every vertex has the same
  clip w (the verify harness draws with w = 1).  The executor knows a lane's input at the
  pixel centre; the plane's slopes are its fine derivatives in the lane's 2x2 quad (the lanes
  DDX/DDY use: ``alu._partner_lanes``), so INTERPOFFSET (b.x, b.y) is
  ``a + ddx(a) * b.x + ddy(a) * b.y``, computed exactly and rounded once to float32 (an offset
  component of 0 adds nothing, so a lane with an infinite neighbour keeps its own value).
  For inputs that are a plane this is the value at that point; for inputs given per lane
  (``xlate run`` with arbitrary values) it is the plane through the lane's quad, a defined
  extrapolation.  ``xlate verify`` feeds every input an INTERP_* reads as a real plane with
  dyadic coefficients (``verify/inputs.py``), where both sides' arithmetic is exact.
* GLSL 4.50 §8.13.2: the offset may be quantized to FRAGMENT_INTERPOLATION_OFFSET_BITS (at
  least 4: sixteenths of a pixel) and is undefined outside [MIN_, MAX_FRAGMENT_INTERPOLATION_
  OFFSET] (at least [-0.5, 0.4375]); the executor uses the offset as given, and the random
  program generator only writes offsets that are sixteenths within that range.
* A ``flat`` input is constant across the primitive (GLSL 4.50 §8.13.2: "the same value
  everywhere for a single primitive"): every INTERP_* of it is the lane's value.
"""
from __future__ import annotations

import numpy as np

from ..ir.model import Stage
from .alu import F32, _partner_lanes, alu


def _flat(x) -> bool:
    reg = x.st.program.registers[x.inst.srcs[0].reg]
    return reg.interpolation == "FLAT"


@alu("INTERPCENTROID")
def op_interp_centroid(x, a):
    return a


@alu("INTERPSAMPLE")
def op_interp_sample(x, a, b):
    return a


@alu("INTERPOFFSET")
def op_interp_offset(x, a, b):
    if x.stage != Stage.FRAGMENT or _flat(x):
        return a
    full = x.loaders[0](x.st, None)           # the input on every lane of the chunk
    if full.shape[0] == 1:
        return a
    lanes = x.st.all_lanes if x.idx is None else x.idx
    value = full[lanes].astype(np.float64)
    out = value.copy()
    for axis, k in (("x", 0), ("y", 1)):
        first, second = _partner_lanes(lanes, full.shape[0], axis)
        slope = full[second].astype(np.float64) - full[first].astype(np.float64)
        o = np.broadcast_to(b[:, k:k + 1], value.shape).astype(np.float64)
        with np.errstate(all="ignore"):
            out = np.where(o == 0, out, out + slope * o)
    with np.errstate(all="ignore"):
        return out.astype(F32)


@alu("CLOCK")
def op_clock(x):
    # tgsi.rst CLOCK: "monotonically increasing values", the implementation's.  The executor has
    # no clock: it counts the lane's CLOCK reads (1, 2, ... -- increasing within the lane) in
    # the low word, 0 in the others: a stand-in the verifier never compares (analysis.
    # RUN_VARYING; ir/ops.py UNDEFINED_COMPONENTS)
    st = x.st
    reads = getattr(st, "clock_reads", None)
    if reads is None:
        reads = st.clock_reads = np.zeros(st.lanes, np.uint32)
    lanes = st.all_lanes if x.idx is None else x.idx
    reads[lanes] += np.uint32(1)
    out = np.zeros((len(lanes), 4), np.uint32)
    out[:, 0] = reads[lanes]
    return out
