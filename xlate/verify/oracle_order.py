"""``order``, a cause of the cgc oracle (:mod:`oracle_explain`): cgc's GLSL computes the same
arithmetic as its assembly in another order of rounding steps, and the counterfactual run
recomputes exactly those steps the way cgc's GLSL writes them.

* **quotients** -- where the Cg source divides, cgc's assembly often has ``RCP`` then ``MUL``
  (``x * (1/y)``, two roundings) and its GLSL keeps ``x / y`` (one rounding: GLSL 1.10 §5.9,
  and GL 4.5/GLSL 4.50 §4.7.1 give ``/`` its own precision).  Every ``MUL`` whose operand
  component is, in the same straight-line block, the result of an ``RCP`` is recomputed as the
  quotient of its other operand by that ``RCP``'s operand (recorded when the ``RCP`` ran in
  the same pass): ``borders/snow``'s hash ``(31415.9 + m) / fract(r)``, whose quotient near
  2^17 moves ``fract()`` by 1/64 per ulp.
* **dot orders** -- ``dot()`` is a built-in whose order of summation GLSL does not fix (GLSL
  1.10 §8.4 defines the value, §4.1.4 leaves float precision to the implementation); the
  executor's ``DP2``..``DPH`` sum left to right (NV_gpu_program4's pseudocode).  Each other
  order of the products, at every dot product at once (one compiler lowers them alike), and the
  pairwise order of four (``(a + b) + (c + d)``).

Each is the executor's own float32 arithmetic on the executor's own operands, only the
grouping changed; kept on a lane only when a run with it lowers that lane's differing
components, and the lane is explained only when the confirming run reproduces it entirely."""
from __future__ import annotations

import itertools

import numpy as np

from ..ir.model import DataType, Sat
from ..ir.ops import OPCODES

F32, U32 = np.float32, np.uint32

#: dot products and the number of summed terms (DPH: three products and b.w)
DOTS = {"DP2": 2, "DP3": 3, "DP4": 4, "DPH": 4}
#: the orders of summation tried: every left-to-right order of four terms (the first two
#: commute), then "pairwise" ((t0 + t1) + (t2 + t3)); an order's terms beyond a dot product's
#: count are left out
DOT_ORDERS = tuple(p for p in itertools.permutations(range(4)) if p[0] < p[1]) + ("pairwise",)


def _sum(terms: list[np.ndarray], order) -> np.ndarray:
    if order == "pairwise":
        if len(terms) < 4:
            return _sum(terms, tuple(range(len(terms))))
        return ((terms[0] + terms[1]).astype(F32) + (terms[2] + terms[3]).astype(F32)).astype(F32)
    idx = [i for i in order if i < len(terms)]
    s = terms[idx[0]]
    for i in idx[1:]:
        s = (s + terms[i]).astype(F32)
    return s


def dot_order_variant(order):
    """A change recomputing a float DP2/DP3/DP4/DPH with its products summed in ``order``."""
    def change(x, ops, bits, rows, ids):
        n = DOTS.get(x.inst.op)
        if n is None or x.rt != DataType.FLOAT or x.sat is not None or \
                any(np.asarray(o).dtype != F32 for o in ops[:2]):
            return None
        k = np.shape(bits)[0]
        a, b = (np.broadcast_to(np.asarray(o, F32).reshape(-1, 4), (k, 4)) for o in ops[:2])
        with np.errstate(all="ignore"):
            terms = [(a[:, i] * b[:, i]).astype(F32) for i in range(min(n, 3))]
            if x.inst.op == "DPH":
                terms.append(b[:, 3].copy())
            elif n == 4:
                terms.append((a[:, 3] * b[:, 3]).astype(F32))
            s = _sum(terms, order)
        out = np.ascontiguousarray(np.broadcast_to(s[:, None], (k, 4)), F32).view(U32)
        return out[rows]
    return change


def quotient_sites(program) -> dict[int, list[tuple[int, int, int]]]:
    """``MUL`` site -> [(operand i, component c, ``RCP`` site j)]: component c of operand i of
    the float MUL is the result of the float RCP j, written earlier in the same straight-line
    block (no flow instruction, no other write of that component between them)."""
    ins_ = program.instructions
    out: dict[int, list[tuple[int, int, int]]] = {}
    for k, ins in enumerate(ins_):
        if ins.op != "MUL" or ins.dst is None or ins.dtype != DataType.FLOAT or \
                ins.sat != Sat.NONE or ins.precision is not None or len(ins.srcs) != 2:
            continue
        for i, src in enumerate(ins.srcs):
            if src.index is not None or src.abs or any(src.comp_neg):
                continue
            for c in range(4):
                comp = src.swizzle[c]
                if not ins.dst.mask[c] or comp > 3 or any(cc == c for _, cc, _ in
                                                          out.get(k, ())):
                    continue
                for j in range(k - 1, -1, -1):
                    w = ins_[j]
                    info = OPCODES.get(w.op)
                    if info is None or info.category not in ("alu", "tex"):
                        break               # a block boundary: the writer is not known
                    if w.dst is None or w.dst.reg != src.reg or not w.dst.mask[comp]:
                        continue
                    if w.op == "RCP" and w.dtype == DataType.FLOAT and w.dst.cond is None \
                            and w.dst.index is None and w.sat == Sat.NONE and \
                            w.precision is None:
                        out.setdefault(k, []).append((i, c, j))
                    break
    return out


class Quotients:
    """The ``quotients`` replacement: ``changes(mask)`` gives, per site, the change that
    records each RCP's operand on the lanes of ``mask`` and the one that recomputes each MUL of
    an RCP result as the quotient.  ``lanes``: the lanes of the runs."""

    def __init__(self, program, lanes: int):
        self.sites = quotient_sites(program)
        self.lanes = lanes
        self.divisors: dict[int, np.ndarray] = {}
        self.rcps = sorted({j for v in self.sites.values() for _, _, j in v})

    def __bool__(self) -> bool:
        return bool(self.sites)

    def _record(self, x, ops, bits, rows, ids):
        o = np.asarray(ops[0], F32).reshape(-1)
        o = np.broadcast_to(o, (np.shape(bits)[0],)) if o.shape[0] == 1 else o
        rec = self.divisors.setdefault(x.index, np.full(self.lanes, np.nan, F32))
        rec[ids] = o[rows]
        return None

    def _quotient(self, x, ops, bits, rows, ids):
        k = np.shape(bits)[0]
        out = np.array(np.asarray(bits, U32)[rows], U32)
        f = out.view(F32)
        for i, c, j in self.sites.get(x.index, ()):
            rec = self.divisors.get(j)
            if rec is None:
                continue
            other = np.broadcast_to(np.asarray(ops[1 - i], F32).reshape(-1, 4), (k, 4))[rows, c]
            div = rec[ids]
            if x.inst.srcs[i].neg:
                div = -div
            with np.errstate(all="ignore"):
                # float64 then float32: the correctly rounded float32 quotient (53 >= 2*24 + 2)
                f[:, c] = (other.astype(np.float64) / div.astype(np.float64)).astype(F32)
        return out

    def changes(self, mask: np.ndarray) -> dict[int, list]:
        out = {j: [(mask.copy(), self._record)] for j in self.rcps}
        for k in self.sites:
            out.setdefault(k, []).append((mask.copy(), self._quotient))
        return out
