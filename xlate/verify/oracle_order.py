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
  Likewise a ``MUL`` by a literal that is the float32 reciprocal of a literal cgc's GLSL
  divides by (cgc folds ``x / 3.14`` into ``MUL x, {0.31847131}`` in its assembly and keeps
  ``x / 3.14`` in its GLSL; ``ntsc-vcr/loose-connection``'s ``/ 9847.0``, ``/ 5583.0``,
  ``/ 3.14`` ahead of a ``fract(sin(x) * 43758.5)`` hash; ``color-grid``'s ``/ 0.2``, a
  ``MUL`` by 5): recomputed as the quotient by that literal.  The divisors are read from
  cgc's GLSL text (:func:`glsl_divisors`), so a product the source wrote is not taken for a
  division unless the GLSL divides by the reciprocal literal somewhere.
* **dot orders** -- ``dot()`` is a built-in whose order of summation GLSL does not fix (GLSL
  1.10 §8.4 defines the value, §4.1.4 leaves float precision to the implementation); the
  executor's ``DP2``..``DPH`` sum left to right (NV_gpu_program4's pseudocode).  Each other
  order of the products, at every dot product at once (one compiler lowers them alike), and the
  pairwise order of four (``(a + b) + (c + d)``); and ``dot(vec2(s, s), c)`` folded into
  ``s * (c.x + c.y)`` (:func:`factored_variant`).
* **folded constants** -- a dot product with a literal operand whose other operand's
  components are products by literals (``dot(vec2(t * 0.03, y * 0.42), vec2(12.9898,
  78.233))``) with each such term computed as the product's variable times the float32
  product of the two literals, as llvmpipe (NIR's reassociation of constant factors) does:
  :class:`ConstantProducts`.

Each is the executor's own float32 arithmetic on the executor's own operands, only the
grouping changed; kept on a lane only when a run with it lowers that lane's differing
components, and the lane is explained only when the confirming run reproduces it entirely."""
from __future__ import annotations

import itertools
import re

import numpy as np

from ..ir.model import DataType, RegKind, Sat
from ..exec.operands import saturate
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


def factored_operand(program, inst) -> int | None:
    """The operand of the dot product ``inst`` that is one scalar for every term (its swizzle
    selects one component) while the other is a literal: ``dot(vec2(s, s), c)``, which an
    implementation folds into ``s * (c.x + c.y)`` (llvmpipe on ``pal-singlepass``'s noise
    hash).  None when there is none (DPH: its w term is not a product)."""
    n = DOTS.get(inst.op)
    if n is None or inst.op == "DPH" or len(inst.srcs) < 2:
        return None
    for i in (0, 1):
        one, lit = inst.srcs[i], inst.srcs[1 - i]
        reg = program.registers.get(lit.reg)
        if len(set(one.swizzle[:n])) == 1 and one.swizzle[0] <= 3 and not any(one.comp_neg) \
                and reg is not None and reg.kind == RegKind.CONST and lit.index is None and \
                not any(lit.comp_neg):
            return i
    return None


def factored_variant(program):
    """A change recomputing a float DP2/DP3/DP4 whose one operand is a scalar and the other a
    literal (:func:`factored_operand`) as the scalar times the literal's components summed
    left to right in float32 (the constant the implementation folds)."""
    def change(x, ops, bits, rows, ids):
        i = factored_operand(program, x.inst)
        if i is None or x.rt != DataType.FLOAT or x.sat is not None or \
                any(np.asarray(o).dtype != F32 for o in ops[:2]):
            return None
        k, n = np.shape(bits)[0], DOTS[x.inst.op]
        s = np.broadcast_to(np.asarray(ops[i], F32).reshape(-1, 4), (k, 4))[:, 0]
        c = np.broadcast_to(np.asarray(ops[1 - i], F32).reshape(-1, 4), (k, 4))
        with np.errstate(all="ignore"):
            total = _sum([c[:, j].copy() for j in range(n)], tuple(range(n)))
            r = (s * total).astype(F32)
        out = np.ascontiguousarray(np.broadcast_to(r[:, None], (k, 4)), F32).view(U32)
        return out[rows]
    return change


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


#: a division by a literal in cgc's GLSL: ``/ 3.14000010E+00``, ``/ vec2(2.00000003E-01, ...)``
_DIVISION = re.compile(r"/\s*(?:vec[234]\s*\(([^()]*)\)|(%s))" % r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def glsl_divisors(text: str) -> frozenset:
    """The float32 literals cgc's GLSL divides by (the divisors a folded MUL may stand for)."""
    out = set()
    for vec, one in _DIVISION.findall(text):
        for lit in (vec.split(",") if vec else [one]):
            try:
                v = np.float32(float(lit))
            except ValueError:
                continue
            if np.isfinite(v) and v != 0:
                out.add(float(v))
    return frozenset(out)


def literal_divisor(program, src, c: int, divisors: frozenset) -> float | None:
    """The literal of ``divisors`` whose float32 reciprocal component c of the literal operand
    ``src`` is (cgc's ``x / d`` folded into ``MUL x, {1/d}``), signed as the operand; None
    where there is none, or the literal is a power of two (``x * 2^-n`` is ``x / 2^n``)."""
    reg = program.registers.get(src.reg)
    if not divisors or reg is None or reg.kind != RegKind.CONST or reg.value is None or \
            src.index is not None or src.abs or src.swizzle[c] > 3:
        return None
    w = np.array(reg.value[0], U32).view(F32)[src.swizzle[c]]
    if not np.isfinite(w) or w == 0 or np.frexp(w)[0] in (0.5, -0.5):
        return None
    for d in sorted(divisors):
        if np.float32(1.0 / np.float64(d)) == w:
            return -d if src.neg else d
    return None


def _writer(program, k: int, reg: str, comp: int):
    """The instruction before ``k`` in its straight-line block that last wrote component
    ``comp`` of ``reg`` (None at a block boundary: a flow instruction comes first)."""
    for j in range(k - 1, -1, -1):
        w = program.instructions[j]
        info = OPCODES.get(w.op)
        if info is None or info.category not in ("alu", "tex"):
            return None
        if w.dst is not None and w.dst.reg == reg and w.dst.mask[comp]:
            return j
    return None


def _plain_float(w) -> bool:
    return w.dtype == DataType.FLOAT and w.dst.cond is None and w.dst.index is None and \
        w.sat == Sat.NONE and w.precision is None


def quotient_sites(program, divisors: frozenset = frozenset(), writers=("RCP",)) -> dict:
    """``MUL`` site -> [(operand i, component c, source, comp)]: component c of operand i of
    the float MUL is component ``comp`` of the result of the plain float instruction at site
    ``source`` (an int; its op one of ``writers``: RCP, DIV), written earlier in the same
    straight-line block (no flow instruction, no other write of that component between them),
    or (``writers`` with RCP) a literal that is the float32 reciprocal of the literal
    ``source`` (a float) cgc's GLSL divides by (:func:`literal_divisor`)."""
    ins_ = program.instructions
    out: dict[int, list] = {}
    for k, ins in enumerate(ins_):
        if ins.op != "MUL" or ins.dst is None or ins.dtype != DataType.FLOAT or \
                ins.precision is not None or len(ins.srcs) != 2:
            continue
        for i, src in enumerate(ins.srcs):
            if src.index is not None or src.abs or any(src.comp_neg):
                continue
            for c in range(4):
                comp = src.swizzle[c]
                if not ins.dst.mask[c] or comp > 3 or any(e[1] == c for e in out.get(k, ())):
                    continue
                d = literal_divisor(program, src, c, divisors) if "RCP" in writers else None
                if d is not None:
                    out.setdefault(k, []).append((i, c, d, comp))
                    continue
                j = _writer(program, k, src.reg, comp)
                if j is not None and ins_[j].op in writers and _plain_float(ins_[j]):
                    out.setdefault(k, []).append((i, c, j, comp))
    return out


class Quotients:
    """The ``quotients`` replacement (``writers`` RCP: a MUL of an RCP result, or by the
    literal reciprocal of one of ``divisors``, recomputed as the quotient) or the ``products
    of quotients`` one (``writers`` DIV: ``MUL (a / b), k`` recomputed as ``(a * k) / b``, cgc's
    GLSL's ``1000.0 * (...) / y`` in ``color-grid`` where its assembly divides first).
    ``changes(mask)`` gives, per site, the changes that record each writer's operands on the
    lanes of ``mask`` and recompute each MUL.  ``lanes``: the lanes of the runs."""

    def __init__(self, program, lanes: int, divisors: frozenset = frozenset(),
                 writers=("RCP",)):
        self.sites = quotient_sites(program, divisors, writers)
        self.lanes = lanes
        self.operands: dict[int, list[np.ndarray]] = {}
        self.writers = sorted({e[2] for v in self.sites.values() for e in v
                               if not isinstance(e[2], float)})

    def __bool__(self) -> bool:
        return bool(self.sites)

    def _record(self, x, ops, bits, rows, ids):
        n = np.shape(bits)[0]
        rec = self.operands.setdefault(
            x.index, [np.full((self.lanes, 4), np.nan, F32) for _ in ops])
        for r, o in zip(rec, ops):
            o = np.asarray(o, F32)
            o = o.reshape(o.shape[0], -1) if o.ndim else o.reshape(1, 1)
            r[ids] = np.broadcast_to(o, (n, o.shape[1]) if o.shape[1] == 4 else (n, 1))[rows]
        return None

    def _quotient(self, x, ops, bits, rows, ids):
        k = np.shape(bits)[0]
        out = np.array(np.asarray(bits, U32)[rows], U32)
        f = out.view(F32)
        for i, c, j, comp in self.sites.get(x.index, ()):
            other = np.broadcast_to(np.asarray(ops[1 - i], F32).reshape(-1, 4), (k, 4))[rows, c]
            other = other.astype(np.float64)
            sign = -1.0 if x.inst.srcs[i].neg else 1.0
            if isinstance(j, float):             # a literal reciprocal: its divisor
                num, div = other, np.full(len(rows), sign * j)
            elif j in self.operands and x.inst.op == "MUL":
                rec = self.operands[j]
                if len(rec) == 1:                # RCP b: other / b
                    num, div = other, sign * rec[0][ids, 0].astype(np.float64)
                else:                            # DIV a, b: (a * other) / b, a product first
                    num = (rec[0][ids, comp].astype(np.float64) * other).astype(F32)
                    div = sign * rec[1][ids, 0].astype(np.float64)
            else:
                continue
            with np.errstate(all="ignore"):
                # float64 then float32: the correctly rounded float32 quotient (53 >= 2*24 + 2)
                q = (np.asarray(num, np.float64) / div).astype(F32)
                f[:, c] = saturate(q, *x.sat) if x.sat is not None else q
        return out

    def changes(self, mask: np.ndarray) -> dict[int, list]:
        out = {j: [(mask.copy(), self._record)] for j in self.writers}
        for k in self.sites:
            out.setdefault(k, []).append((mask.copy(), self._quotient))
        return out


def constant_product_sites(program) -> dict:
    """Dot product site -> [(component c, MUL site j, factor operand f, comp, folded)]: the float
    DP2/DP3/DP4 at the site has a literal operand and another whose component c is, in the same
    straight-line block, the result component ``comp`` of a plain float ``MUL`` of operand f by
    a literal component; ``folded`` is the float32 product of that literal and the dot's
    literal component c -- the constant an implementation folds ``(x * k1) * k2`` into
    (``loose-connection``'s ``dot(vec2(t * 0.03, y * 0.42), vec2(12.9898, 78.233))``, which
    llvmpipe computes as ``y * (0.42 * 78.233)`` + ...).  Negated or indexed operands are left
    out."""
    ins_ = program.instructions
    out: dict[int, list] = {}

    def literal(src, comp):
        reg = program.registers.get(src.reg)
        if reg is None or reg.kind != RegKind.CONST or reg.value is None or \
                src.index is not None or src.abs or src.neg or any(src.comp_neg) or \
                src.swizzle[comp] > 3:
            return None
        return np.array(reg.value[0], U32).view(F32)[src.swizzle[comp]]

    for k, ins in enumerate(ins_):
        n = DOTS.get(ins.op)
        if n is None or ins.op == "DPH" or ins.dst is None or len(ins.srcs) < 2 or \
                not _plain_float(ins):
            continue
        for i in (0, 1):
            var, lit = ins.srcs[i], ins.srcs[1 - i]
            if literal(lit, 0) is None or var.index is not None or var.abs or var.neg or \
                    any(var.comp_neg):
                continue
            found = []
            for c in range(n):
                comp = var.swizzle[c]
                j = _writer(program, k, var.reg, comp) if comp <= 3 else None
                w = ins_[j] if j is not None else None
                if w is None or w.op != "MUL" or not _plain_float(w) or len(w.srcs) != 2:
                    continue
                for m in (0, 1):
                    k1, k2 = literal(w.srcs[m], comp), literal(lit, c)
                    other = w.srcs[1 - m]
                    if k1 is not None and k2 is not None and other.index is None and \
                            not other.abs and not other.neg and not any(other.comp_neg):
                        found.append((c, j, 1 - m, comp, float(F32(k1 * k2))))
                        break
            if found:
                out[k] = found
                break
    return out


class ConstantProducts:
    """The ``folded constants`` replacement: each dot product of :func:`constant_product_sites`
    recomputed with the terms whose operand is a product by a literal taken as that MUL's other
    operand times the folded constant (float32), the other terms as the executor's, summed
    left to right.  ``changes(mask)`` as :class:`Quotients`'."""

    def __init__(self, program, lanes: int):
        self.sites = constant_product_sites(program)
        self.lanes = lanes
        self.operands: dict[int, list[np.ndarray]] = {}
        self.writers = sorted({e[1] for v in self.sites.values() for e in v})

    def __bool__(self) -> bool:
        return bool(self.sites)

    _record = Quotients._record

    def _dot(self, x, ops, bits, rows, ids):
        if x.rt != DataType.FLOAT or any(np.asarray(o).dtype != F32 for o in ops[:2]):
            return None
        k, n = np.shape(bits)[0], DOTS[x.inst.op]
        a, b = (np.broadcast_to(np.asarray(o, F32).reshape(-1, 4), (k, 4))[rows]
                for o in ops[:2])
        with np.errstate(all="ignore"):
            terms = [(a[:, c] * b[:, c]).astype(F32) for c in range(n)]
            for c, j, f, comp, folded in self.sites.get(x.index, ()):
                if j not in self.operands:
                    return None
                terms[c] = (self.operands[j][f][ids, comp] * F32(folded)).astype(F32)
            s = _sum(terms, tuple(range(n)))
        out = np.array(np.asarray(bits, U32)[rows], U32)
        out[:] = np.broadcast_to(s[:, None], (len(rows), 4)).astype(F32).view(U32)
        return out

    def changes(self, mask: np.ndarray) -> dict[int, list]:
        out = {j: [(mask.copy(), self._record)] for j in self.writers}
        for k in self.sites:
            out.setdefault(k, []).append((mask.copy(), self._dot))
        return out
