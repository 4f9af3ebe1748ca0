"""What a permission rule judges (:class:`Site`: one instruction's execution on some lanes,
the executor's and the implementation's results) and the helpers the rules of
:mod:`permits`, :mod:`permits_texture` and :mod:`permits_native` share."""
from __future__ import annotations

import numpy as np

from ..ir.model import DataType
from ..ir.ops import COMPONENTWISE, OPCODES
from ..ir.ops import UNDEFINED_COMPONENTS as OPS_UNDEFINED
from . import compare as cmp
from .compare import same_words

#: the filtered lookups (TEX2/TXB2/TXL2: the cube-array forms of tgsi.rst)
SAMPLING_OPS = ("TEX", "TXB", "TXL", "TXP", "TXD", "TEX2", "TXB2", "TXL2")
#: the opcodes that select a cube face from a direction: the lookups, a gather (TXG: generated
#: TGSI fragment seed 531, inputs seed 500) and the LOD query -- with a zero direction, all
#: through 0/0 (GL 4.5 §8.13)
CUBE_DIRECTION_OPS = SAMPLING_OPS + ("TXG", "LODQ")

F32, U32 = np.float32, np.uint32

#: the word-typed double opcodes (xlate/exec/doubles.py): a double in xy and one in zw
DOUBLE_OPS = frozenset({"DADD", "DMUL", "DDIV", "DMIN", "DMAX", "DSEQ", "DSNE", "DSLT", "DSGE",
                        "DLDEXP", "DMAD", "DFMA", "DFRAC", "DTRUNC", "DCEIL", "DFLR", "DROUND", "DSSG",
                        "DRCP", "DSQRT", "DRSQ", "DFREXPM", "DFREXPE", "D2F", "D2I", "D2U"})
SIGN = U32(0x80000000)


#: components the specifications leave undefined (the executor and the GLSL write 0.0):
#: XPD/NRM/RFL w (NV_gpu_program4 2.X.8.Z: "the w component of the result is undefined"),
#: SCS z/w (NV_fragment_program 3.11.5.22) -- the opcode table's (xlate/ir/ops.py)
UNDEFINED_COMPONENTS = OPS_UNDEFINED

#: the magnitude beyond which SIN/COS/SCS carry no precision at all (llvmpipe's range reduction
#: fails past 2^23; the specs' ApproxSine/ApproxCosine require nothing)
RANGE_LIMIT = 2.0 ** 23

_DOTS = {"DP2": 2, "DP2A": 2, "DP3": 3, "DP4": 4, "DPH": 3}


def _nonfinite(w) -> np.ndarray:
    return (np.asarray(w, U32) & 0x7F800000) == 0x7F800000


def _denormal(w) -> np.ndarray:
    w = np.asarray(w, U32)
    return ((w & 0x7F800000) == 0) & ((w & 0x007FFFFF) != 0)


def _half_nan(h) -> np.ndarray:
    """A 16-bit float's bits (in the low 16 bits of ``h``) are a NaN."""
    h = np.asarray(h, U32)
    return ((h & 0x7C00) == 0x7C00) & ((h & 0x03FF) != 0)


class Site:
    """One instruction's result on the lanes where it differs: what every rule reads.

    ``op``: the executor's compiled instruction (:class:`xlate.exec.machine.Op`, whose ``fn``
    recomputes the result); ``all_operands``: the operands as the instruction read them
    (swizzled, negated; the executor's typed arrays) for its whole lane selection, ``rows``
    the positions of the lanes judged here in it (``operands``: those rows);
    ``exe``/``imp``: (n, 4) result words of the judged lanes."""

    def __init__(self, op, all_operands, rows, exe, imp, backend: str | None):
        self.op = op
        self.ins = op.inst
        self.all_operands = all_operands
        n = len(rows)
        self.operands = [np.asarray(o)[rows] if np.shape(o)[0] > 1 else
                         np.broadcast_to(o, (n,) + np.shape(o)[1:]) for o in all_operands]
        self.exe = exe
        self.imp = imp
        self.rows = rows
        self.backend = backend
        #: native backend: (n, 4) how far a correct compilation's value may lie from the
        #: executor's (:mod:`spread`); None elsewhere
        self.spread = None
        #: native backend: (n, 4) spread of each operand as the instruction reads it
        self.operand_spreads: list | None = None
        #: (n, 4) the components the instruction wrote (its write mask and condition), set by
        #: the replay; None: the write mask alone
        self.written: np.ndarray | None = None
        #: (n,) lanes whose operands the replay holds from a probe compilation that disagrees
        #: with the main one (probes.consistent_values), set by the replay; None: none
        self.inconsistent: np.ndarray | None = None

    def operands_unknown(self) -> np.ndarray:
        """(n, 4): the lanes where the main compilation's operands are not known
        (:attr:`inconsistent`) -- a bound on a freedom that rests on the operands' values
        gives way there (corpus TGSI etnaviv fragProg1-26: Mesa folded ``0 * log2(0)`` to 0 in the
        main compilation, its probes kept the NaN, and a CMP of it gave 1.0)."""
        if self.inconsistent is None:
            return np.zeros(self.exe.shape, bool)
        return np.broadcast_to(np.asarray(self.inconsistent, bool)[:, None], self.exe.shape)

    def bounded(self, allowed: np.ndarray) -> np.ndarray:
        """(n, 4): a bound on a freedom that rests on the operands' values -- ``allowed``,
        or anything on the lanes where those operands are not known (:meth:`operands_unknown`).
        Every such bound of ``rule_nonfinite`` (reach, select, overflow, lookup) goes through
        here."""
        return allowed | self.operands_unknown()

    def written_components(self) -> np.ndarray:
        """(n, 4) bool: the components this instruction wrote on the judged lanes."""
        if self.written is not None:
            return np.asarray(self.written, bool)
        return np.broadcast_to(np.array(self.ins.dst.mask, bool), self.exe.shape)

    def float_operands(self) -> list[np.ndarray]:
        """The float operands as (n, 4) uint32 words (scalars widened)."""
        out = []
        for i, o in enumerate(self.operands):
            if self.op.info.operand_type(i, self.op.t) != DataType.FLOAT:
                continue
            w = np.asarray(o)
            if w.dtype != np.float32:
                continue
            w = w.view(U32)
            if w.ndim == 1:
                w = w[:, None]
            out.append(np.broadcast_to(w, (w.shape[0], 4)) if w.shape[1] == 1 else w)
        return out

    def feeding(self, per_lane: np.ndarray, per_comp: np.ndarray | None = None) -> np.ndarray:
        """(n, 4) mask: a property of the operands reaches result component c -- per component
        for componentwise opcodes, else any component of any operand."""
        if per_comp is not None and self.ins.op in COMPONENTWISE:
            return per_comp
        return np.broadcast_to(per_lane[:, None], (len(per_lane), 4))

    def recompute(self, all_operands, fn=None, precision: bool = True,
                  saturate: bool = True) -> np.ndarray:
        """The instruction's result words on the judged lanes for other operands (given for
        the whole lane selection: implicit derivatives read the quad neighbours), saturation
        and precision applied as the executor applies them.  ``fn``: another computation of
        the result in place of the opcode's (called like it, ``fn(op, *operands)``).
        ``precision=False``: without the instruction's FP16/X conversion; ``saturate=False``:
        without its saturation."""
        from ..exec.operands import _PRECISION
        from ..exec.operands import saturate as clamp
        x = self.op
        with np.errstate(all="ignore"):
            res = (x.fn if fn is None else fn)(x, *all_operands)
            if res.ndim == 1:
                res = res[:, None]
            if res.shape[0] > 1:
                res = res[self.rows]
            if x.sat is not None and saturate:
                res = clamp(res, *x.sat)
            res = np.broadcast_to(res, (res.shape[0], 4))
            words = np.ascontiguousarray(res).view(U32)
            conv = _PRECISION.get(self.ins.precision) if precision else None
            if conv is not None:        # FP16/X: a conversion of the float values
                words = np.ascontiguousarray(conv(words.view(F32)), F32).view(U32)
            return words


def _same_or_zeros(a, b) -> np.ndarray:
    """Equal words, or two zeros of either sign (a flushed denormal keeps its sign in GP4's
    words, not always in an implementation's)."""
    return same_words(a, b) | (((a & 0x7FFFFFFF) == 0) & ((b & 0x7FFFFFFF) == 0))


def _holds_denormal(o) -> bool:
    a = np.asarray(o)
    return a.dtype == np.float32 and bool(_denormal(np.ascontiguousarray(a).view(U32)).any())


def _flush_operand(o):
    a = np.asarray(o)
    if a.dtype != np.float32:
        return o
    return cmp.flush(a.view(U32)).view(F32).reshape(a.shape)


def _saturated(s: Site, r: np.ndarray) -> np.ndarray:
    """Words of a recomputed float result after the instruction's saturation."""
    if s.op.sat is not None:
        from ..exec.operands import saturate
        r = saturate(np.asarray(r, F32), *s.op.sat)
    return np.ascontiguousarray(np.broadcast_to(r, (len(r), 4)), F32).view(U32)




def selected_values(s: Site) -> np.ndarray:
    """(n, 4): for a select (``OpInfo.selected_operands``: MIN/MAX, MINNUM/MAXNUM, MINN/MAXN,
    CMP), the implementation's word is what the instruction gives when it selects one of its
    operands -- recomputed with that operand in
    every place (``MIN(a, a)``; CMP with a condition of -1 and of +1), saturated and converted
    as the instruction is -- or a NaN, or such a word flushed or with its zero's sign changed.
    A NaN operand leaves which operand is selected to the implementation (GLSL 4.50 §4.7.1;
    the translation's ``mix`` with a boolean vector selects, and an implementation may compute
    the comparison on a NaN either way, or generate the NaN) -- not what is selected: a
    mutant that read another component of the other operand passed as ``nonfinite`` (corpus
    TGSI vl_compositor_cs-7, mutation campaign seed 17)."""
    ops = list(s.all_operands)
    selected = OPCODES[s.ins.op].selected_operands
    conditions = [i for i in range(len(ops)) if i not in selected]
    if conditions:
        # a condition chooses (CMP: < 0 the first selected operand, else the second): made
        # -1 and +1 in turn, the operands kept
        tries = [[np.full_like(np.asarray(op), sign) if i in conditions else op
                  for i, op in enumerate(ops)] for sign in (-1, 1)]
    else:
        # a comparison chooses (MIN, MAX): each operand in every place
        tries = [[ops[i]] * len(ops) for i in selected]
    imp = np.asarray(s.imp, U32)
    ok = (imp & 0x7F800000) == 0x7F800000
    ok &= (imp & 0x007FFFFF) != 0                 # a NaN
    for operands in tries:
        words = s.recompute(operands)
        ok |= same_words(words, imp) | _same_or_zeros(words, imp) | \
            _same_or_zeros(cmp.flush(words), imp)
    return ok


#: finite words put in place of an operand's NaN or infinity to see whether it reaches a result
#: component (both signs: a compare or a clamp may not move for one sign)
_REACH_WORDS = (0.0, 1.5, -1.5)


def nonfinite_reach(s: Site) -> np.ndarray:
    """(n, 4): the result components that an operand's NaN or infinity reaches -- recomputed
    with every non-finite float operand word replaced by each of :data:`_REACH_WORDS`, the
    component's word changes.  A component no replacement moves does not read that value: a
    NaN in the w of a DP3's operand (which DP3 does not read) frees nothing (a mutant of such a
    DP3 passed as ``nonfinite`` before).  For the opcodes whose result components read every
    operand component (not :data:`COMPONENTWISE` ones, which the operand components decide)."""
    base = s.recompute(s.all_operands)
    reach = np.zeros(s.exe.shape, bool)
    for word in _REACH_WORDS:
        replaced = []
        for i, o in enumerate(s.all_operands):
            a = np.asarray(o)
            if a.dtype == np.float32 and s.op.info.operand_type(i, s.op.t) == DataType.FLOAT:
                a = np.where(np.isfinite(a), a, F32(word))
            replaced.append(a)
        reach |= ~same_words(s.recompute(replaced), base)
    return reach
