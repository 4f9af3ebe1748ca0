"""GL's precision rule for float arithmetic, in numbers: what "about 1 part in 10^5" is taken
of, per opcode.  Used by the native backend's ``tolerance`` rule (:mod:`permits_native`) and by
the spread the replay carries (:mod:`spread`)."""
from __future__ import annotations

import numpy as np

F32 = np.float32


#: GL 2.1 §2.1.1, quoted by ARB_fragment_program issue 3 and ARB_vertex_program issue 22: "the
#: individual results of floating-point operations must be accurate to about 1 part in 10^5"
GL_RELATIVE = 1e-5

#: opcode -> result component -> the terms summed: ("p", i, ci, j, cj) the product of operand i
#: component ci and operand j component cj, ("v", i, ci) operand i component ci (negation and
#: swizzle are already in the operands as read)
TERMS = {
    "MAD": [[("p", 0, c, 1, c), ("v", 2, c)] for c in range(4)],
    "DP2": [[("p", 0, i, 1, i) for i in range(2)]] * 4,
    "DP3": [[("p", 0, i, 1, i) for i in range(3)]] * 4,
    "DP4": [[("p", 0, i, 1, i) for i in range(4)]] * 4,
    "DPH": [[("p", 0, i, 1, i) for i in range(3)] + [("v", 1, 3)]] * 4,
    "DP2A": [[("p", 0, 0, 1, 0), ("p", 0, 1, 1, 1), ("v", 2, 0)]] * 4,
    "X2D": [[("v", 0, 0), ("p", 1, 0, 2, 0), ("p", 1, 1, 2, 1)],
            [("v", 0, 1), ("p", 1, 0, 2, 2), ("p", 1, 1, 2, 3)]] * 2,
}


#: opcodes the GL precision rule covers: float arithmetic whose exact result the IEEE
#: operations only round (selects, compares, moves and conversions have nothing to round;
#: the approximate opcodes have their own bounds in compare.INEXACT)
ARITHMETIC = frozenset("ADD SUB MUL MAD DP2 DP2A DP3 DP4 DPH LRP XPD X2D DST RCP DIV".split())
#: approximate opcodes: GL's 1 part in 10^5 of the result itself where that is looser than
#: their compare.INEXACT bound (ARBvp's EX2/LG2/POW "Approx..." name no accuracy of their own)
APPROXIMATE = frozenset("EX2 LG2 POW RSQ SIN COS".split())


def magnitude(op: str, exe: np.ndarray, ops) -> np.ndarray | None:
    """(n, 4) float64: the sum of the magnitudes of what the opcode adds (its exact result
    for one operation) -- the scale GL's "1 part in 10^5" is taken of."""
    a = ops[0] if ops else None
    if op in APPROXIMATE:
        return np.abs(np.ascontiguousarray(exe).view(F32).astype(np.float64))
    if op in ("ADD", "SUB"):
        # the operands are themselves results known to 1 part in 10^5: |a| + |b|
        return np.abs(a) + np.abs(ops[1])
    if op == "MUL":
        return np.abs(a * ops[1])
    if op == "RCP":
        return np.abs(1.0 / a[:, :1]) * np.ones((1, 4))
    if op == "DIV":
        # NV_gpu_program4 2.X.8.Z: "not guaranteed to produce results identical to a RCP/MUL
        # instruction sequence" -- nor to a correctly rounded quotient: |a / b|
        return np.abs(a / ops[1])
    if op == "DST":
        return np.abs(a * ops[1])                # y = a.y*b.y; x/z/w are exact moves
    if op == "LRP":
        return np.abs(a * ops[1]) + np.abs((1 - a) * ops[2])
    if op == "XPD":
        m = np.zeros_like(a)
        for c, (i, j) in enumerate(((1, 2), (2, 0), (0, 1))):
            m[:, c] = np.abs(a[:, i] * ops[1][:, j]) + np.abs(a[:, j] * ops[1][:, i])
        return m
    terms = TERMS.get(op)
    if terms is None:
        return None
    m = np.zeros_like(a)
    for c in range(4):
        for t in terms[c]:
            m[:, c] += np.abs(ops[t[1]][:, t[2]] * (ops[t[3]][:, t[4]] if t[0] == "p" else 1))
    return m
