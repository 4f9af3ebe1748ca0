"""The implementation's own GLSL built-ins, measured (the oracle's ``implementation`` verdict).

GLSL 1.10 §8.1-§8.2 define ``sin``, ``cos``, ``exp2``, ``log2``, ``pow`` and ``inversesqrt``
without any precision requirement (GLSL 4.50 §4.7.1 gives none for sin/cos/pow either, and
leaves pow(x<0), log2(x<=0), inversesqrt(x<=0) undefined), and cgc's GLSL calls them where
the NV assembly has SIN/COS/EX2/LG2/POW/RSQ, which the executor computes in float64 and
rounds once.  When the two compilations differ only there, cgc's output is what the
implementation's own built-in returns for the operands the assembly has.  That value is not
guessed: :class:`BuiltinEvaluator` runs the built-in on the same implementation (a fragment
shader on llvmpipe's compatibility context, one texel per four operands, exact RGBA32F in and
out) and returns its result, which :mod:`oracle_explain` substitutes for the executor's at that
instruction -- a single, measured value per lane, so a lane whose difference has another cause
is not reproduced by it.
"""
from __future__ import annotations

import numpy as np

F32, U32 = np.float32, np.uint32

#: NV opcode -> the GLSL 1.10 expression cgc writes for it (operands xv_A, xv_B: vec4 feeds
#: holding four lanes' scalars each)
BUILTINS = {
    "SIN": "sin(xv_A)",
    "COS": "cos(xv_A)",
    "EX2": "exp2(xv_A)",
    "LG2": "log2(xv_A)",
    "POW": "pow(xv_A, xv_B)",
    "RSQ": "inversesqrt(xv_A)",
}


class BuiltinEvaluator:
    """Evaluates :data:`BUILTINS` on a :class:`oracle.CompatRunner` (cached by operands)."""

    def __init__(self, compat):
        self.compat = compat
        self.cache: dict = {}
        self.draws = 0

    def __call__(self, op: str, operands: list[np.ndarray]) -> np.ndarray:
        """float32 results of ``op`` for the flat float32 operands (all of one length n)."""
        ops = [np.ascontiguousarray(np.asarray(o, F32).reshape(-1)) for o in operands]
        n = ops[0].size
        key = (op,) + tuple(o.tobytes() for o in ops)
        hit = self.cache.get(key)
        if hit is not None:
            return hit
        texels = max(4, -(-(-(-n // 4)) // 4) * 4)      # n/4 texels, whole quads
        feeds = {}
        for name, o in zip(("xv_A", "xv_B"), ops):
            w = np.zeros(texels * 4, U32)
            w[:n] = o.view(U32)
            feeds[name] = w.reshape(texels, 4)
        src = "#version 110\nvoid main()\n{\n    gl_FragColor = " + BUILTINS[op] + ";\n}\n"
        got, _ = self.compat.run_fragment(src, texels, feeds, [0], [], {})
        self.draws += 1
        out = np.ascontiguousarray(got[0]).reshape(-1)[:n].view(F32).copy()
        self.cache[key] = out
        return out


def implementation_variant(evaluate: BuiltinEvaluator):
    """An :class:`oracle_counterfactual.Counterfactual` change: the instruction's result is
    what the implementation's built-in returns for the operands the executor has there (then
    the instruction's saturation and replication, as the executor applies them)."""
    from ..exec.operands import saturate

    def change(x, ops, bits, rows, ids):
        op = x.inst.op
        if op not in BUILTINS or any(np.asarray(o).dtype != F32 for o in ops):
            return None
        sel = [np.asarray(o)[rows] if np.ndim(o) and np.shape(o)[0] > 1 else
               np.broadcast_to(np.asarray(o).reshape(1, *np.shape(o)[1:]) if np.ndim(o) else
                               np.asarray(o).reshape(1), (len(rows),) + np.shape(o)[1:])
               for o in ops]
        sel = [s[:, 0] if s.ndim == 2 else s for s in sel]       # scalar operands (x of .xxxx)
        res = evaluate(op, sel)[:, None]
        if x.sat is not None:
            res = saturate(res, *x.sat)
        res = np.ascontiguousarray(np.broadcast_to(res, (len(rows), 4)), F32).view(U32)
        return res
    return change
