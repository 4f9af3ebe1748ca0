"""The permission rules of the implementation's known defects (:mod:`permits` lists them in
:data:`permits.RULES`): departures reduced to strict-xfail tests (:func:`trace.known_defect`),
each shown by recomputation where it can be."""
from __future__ import annotations

import numpy as np

from .compare import same_words
from .permits_site import U32, Site


def rule_implementation_any(s: Site) -> np.ndarray:
    """Mesa's folding of ``umulExtended``/``imulExtended`` of constants on ``gl``
    (:func:`trace.known_defect`, pinned by a strict-xfail test): any value."""
    from .trace import known_defect
    hit = s.ins.op == "MUL" and known_defect(s.op.st.program, s.ins, s.backend, True,
                                            s.op.index) is not None
    return np.full(s.exe.shape, hit)


def rule_implementation(s: Site) -> np.ndarray:
    """A departure of the implementation reduced to a strict-xfail test
    (:func:`trace.known_defect`).  llvmpipe's TXQ (``textureSize`` with a per-fragment LOD)
    takes one LOD for a block of 8 fragments and returns 0 when a fragment of the block asks
    for a level that does not exist: shown by recomputation, the implementation's value is
    the size at the LOD of some fragment of the same aligned 8-lane block, or zero.  Mesa's
    folding of ``umulExtended`` of constants: any value of that instruction on ``gl``."""
    from .trace import known_defect
    program = s.op.st.program
    if known_defect(program, s.ins, s.backend, True, s.op.index) is None:
        return np.zeros(s.exe.shape, bool)
    if s.ins.op == "RSQ":
        # the saturation dropped: the unsaturated result, where it is below zero
        with np.errstate(all="ignore"):
            raw = np.asarray(s.op.fn(s.op, *s.operands), np.float32).reshape(len(s.exe), -1)
        raw = np.ascontiguousarray(np.broadcast_to(raw[:, :1], s.exe.shape))
        return same_words(raw.view(U32), s.imp) & (raw < 0)
    if s.ins.op != "TXQ":
        return np.zeros(s.exe.shape, bool)
    if s.op.idx is not None:            # block-mates outside the lane selection: not shown
        return np.zeros(s.exe.shape, bool)
    ok = np.all(s.imp == 0, axis=1, keepdims=True) & np.ones((1, 4), bool)
    lod = np.asarray(s.all_operands[0])
    if lod.shape[0] == 1:               # one LOD for every lane: nothing to share
        return ok
    block = (np.asarray(s.rows) // 8) * 8
    for j in range(8):
        mates = np.minimum(block + j, len(lod) - 1)
        moved = lod.copy()
        moved[s.rows] = lod[mates]
        ok |= same_words(s.recompute([moved] + list(s.all_operands[1:])), s.imp)
    return ok
