"""The NaN an operation returns is the implementation's choice, per compilation (:mod:`replay`).

IEEE 754-2008 6.2.3 says a NaN result "should" carry the payload of one of the input NaNs and
6.3 does not interpret a NaN's sign; GLSL 4.50 §4.7.1 lets operations on NaN depart from IEEE
754 altogether.  Which NaN an implementation returns follows the code generated around the
operation: x86 returns the first NaN operand of a two-NaN multiply, and which operand LLVM puts
first differs between llvmpipe's compilations of one program (measured: a DMUL of two double
NaNs gave low word 0x20000000 in one probe compilation, 0x80000000 in the one probing the XOR
that negates it -- tests/test_verify_nan_choices.py).

The replay takes each instruction's value from a probe compilation, so a reader of a NaN's
*bits* (the XOR that negates a double, I2F of a double's high word, a float operation on a
double's low word) may have read, in its own compilation, another NaN than the one the replay
holds from the producer's compilation.  The reader is then recomputed with each NaN the
producer may have chosen in place of the one held; where one of them gives the
implementation's value exactly (every word the reader wrote), that value is adopted, verdict
``nanchoice``.  The choices of a producer are finite: each NaN operand that reaches the result
element (quieted, converted as the operation converts) and the default quiet NaN, each with
either sign (a 16-bit NaN that PK2H packs: also all payload bits set, :func:`_half_choices`)
-- so a wrong reader still departs on every lane where no such NaN explains it, and on every
lane without a NaN.

Only a NaN *written by a float or double operation* is a choice: a NaN moved, or built or
changed by integer operations, is exact bits, and a reader of it gets no alternative.  The
alternatives are tied to the words the producer wrote: a reader whose operand no longer holds
those words (overwritten by an instruction the replay does not see) gets none.  A register
array is followed element by element: a reader through the address register looks at the
element the address selects on its lane, and a write through it forgets the array."""
from __future__ import annotations

import numpy as np

from ..ir.model import DataType
from ..ir.ops import BIT_MOVES, COMPONENTWISE, HALF_FLOAT_PACKS, RAW_OPERAND_OPS
from .permits_site import DOUBLE_OPS, _half_nan

U32 = np.uint32
SIGN = U32(0x80000000)
#: the default quiet NaN an operation may return instead of one of its NaN operands
DEFAULT_NAN = 0x7FC00000

#: opcodes whose result is a pair of doubles (words xy and zw; xlate/exec/doubles.py)
DOUBLE_RESULTS = frozenset({"DADD", "DMUL", "DDIV", "DMIN", "DMAX", "DLDEXP", "DMAD", "DFMA",
                            "DFRAC", "DTRUNC", "DCEIL", "DFLR", "DROUND", "DSSG", "DRCP",
                            "DSQRT", "DRSQ", "DFREXPM", "F2D"})
#: opcodes whose operands are pairs of doubles (the exponent operand of DLDEXP excepted)
DOUBLE_OPERANDS = (DOUBLE_RESULTS - {"F2D"}) | {"D2F"}
#: float-result opcodes that make no NaN: they move bits (permits' MOVES and BIT_READS)
NO_CHOICE = BIT_MOVES | RAW_OPERAND_OPS
#: alternatives kept per register word: the value written, the default NaN, up to three NaN
#: operands and the two fp16 round-trip forms (:data:`FP16_NANS`), each with either sign
CHOICES = 14
#: a float NaN that went through a conversion to fp16 and back (IR precision "FP16": an H
#: suffix, a SHORT or H register) keeps at most its top payload bits (IEEE: 0x7FFFE000 from the
#: half 0x7FFF), or comes back with all of them set: llvmpipe turned the default NaN written to
#: a SHORT temporary into 0x7FFFFFFF (generated ARBfp+NV2 fragment seed 908, inputs seed 900:
#: UP2US of a DP3 of it read those bits)
FP16_NANS = (0x7FFFFFFF, 0x7FFFE000)


def _float_nan(w) -> np.ndarray:
    return ((w & 0x7F800000) == 0x7F800000) & ((w & 0x007FFFFF) != 0)


def _double_nan(lo, hi) -> np.ndarray:
    return ((hi & 0x7FF00000) == 0x7FF00000) & (((hi & 0x000FFFFF) | lo) != 0)


def _words(a, n: int) -> np.ndarray:
    """An operand as (n, 4) uint32 words (scalars widened)."""
    w = np.ascontiguousarray(np.asarray(a))
    w = w.view(U32) if w.dtype.itemsize == 4 else w.astype(U32)
    if w.ndim == 1:
        w = w[:, None]
    return np.broadcast_to(w, (n, 4))


def _elements(x, ops, n: int) -> tuple[str, list[np.ndarray]] | None:
    """The kind of x's result elements ('double': the pairs xy, zw; 'float': the components)
    and, per operand that may pass a NaN on, its elements as the result's kind: (n, 2)
    float64 or (n, 4) float32.  None: x makes no NaN of its own."""
    op = x.inst.op
    if op in DOUBLE_RESULTS:
        kind = "double"
    elif op in HALF_FLOAT_PACKS:
        kind = "half"
    elif op == "UP2H":
        # half to float: the conversion makes the float NaN, no operand passes one on
        # (its operand is a packed word, not a float)
        return "float", []
    elif op == "D2F" or (x.rt == DataType.FLOAT and
                         (op not in NO_CHOICE or x.inst.precision == "FP16")):
        kind = "float"          # (a move converted to fp16 makes its NaN: FP16_NANS)
    else:
        return None
    out = []
    for i, o in enumerate(ops):
        if op == "DLDEXP" and i == 1:
            continue                            # the exponents are integers
        w = np.ascontiguousarray(_words(o, n))
        if op in DOUBLE_OPERANDS:
            d = w.view(np.float64)              # (n, 2)
            out.append(d if kind == "double" else
                       np.concatenate([d.astype(np.float32), np.zeros((n, 2), np.float32)], 1))
        elif kind == "half":
            out.append(w)                       # the float words converted: x low, y high
        elif x.info.operand_type(i, x.t) == DataType.FLOAT:
            f = w.view(np.float32)
            out.append(f[:, :2].astype(np.float64) if kind == "double" else f)
    return kind, out


def choices(x, ops, out, fp16=None) -> tuple[np.ndarray, np.ndarray] | None:
    """The NaNs instruction ``x`` (operands ``ops`` as it read them) may have written instead
    of ``out`` ((n, 4) words): (CHOICES, n, 4) words -- ``out`` itself where its element holds
    no NaN -- and the (n, 4) mask of the words that are a choice.  None: no element of ``out``
    is a NaN of x's making.  ``fp16``: (n,) lanes where a NaN operand came through an fp16
    conversion, whose round-trip forms (:data:`FP16_NANS`) x may pass on (x's own conversion
    to fp16 counts on every lane)."""
    n = len(out)
    got = _elements(x, ops, n)
    if got is None:
        return None
    kind, sources = got
    out = np.ascontiguousarray(out, U32)
    if kind == "half":
        return _half_choices(out, sources[0])
    with np.errstate(all="ignore"):
        if kind == "double":
            nan = _double_nan(out[:, 0::2], out[:, 1::2])                     # (n, 2)
            if not nan.any():
                return None
            default = np.tile(np.array([0, 0x7FF80000], U32), (n, 2))
            picks = [out, default]
            for d in sources:
                w = np.ascontiguousarray(d, np.float64).view(U32).reshape(n, 4).copy()
                w[:, 1::2] |= U32(0x00080000)                                  # quieted
                keep = ~_double_nan(w[:, 0::2], w[:, 1::2])
                picks.append(np.where(np.repeat(keep, 2, axis=1), out, w))
            mask = np.repeat(nan, 2, axis=1)
            sign = np.tile(np.array([0, SIGN], U32), (n, 2))
        else:
            nan = _float_nan(out)
            if not nan.any():
                return None
            picks = [out, np.full((n, 4), DEFAULT_NAN, U32)]
            for f in sources:
                w = np.ascontiguousarray(f, np.float32).view(U32) | U32(0x00400000)
                picks.append(np.where(_float_nan(w), w, out))
            if x.inst.op == "UP2H":
                # a half NaN converted: its payload kept and quieted (IEEE 754 6.2.3 "should"),
                # or the fp16 round trip's forms (llvmpipe's unpackHalf2x16 of a half NaN gave
                # 0x7FFFFFFF: generated ARBfp+NV2 fragment 3101, UP4UB of the UP2H read it)
                picks.append(np.where(nan, out | U32(0x00400000), out))
            picks = picks[:CHOICES // 2 - len(FP16_NANS)]
            via = np.zeros(n, bool) if fp16 is None else np.asarray(fp16, bool)
            if x.inst.precision == "FP16" or x.inst.op == "UP2H":
                via = np.ones(n, bool)
            if via.any():
                picks += [np.where(via[:, None], U32(word), out) for word in FP16_NANS]
            mask = nan
            sign = np.full((n, 4), SIGN, U32)
    picks = picks[:CHOICES // 2]
    picks += [p ^ sign for p in picks]
    picks += [out] * (CHOICES - len(picks))
    return np.where(mask[None], np.stack(picks), out[None]), mask


def _half_choices(out, source) -> tuple[np.ndarray, np.ndarray] | None:
    """The words PK2H may have written instead of ``out`` ((n, 4) words, each the packed pair):
    each 16-bit NaN in it converted another way -- its float's payload kept (quieted,
    truncated: the executor, numpy), the default half NaN 0x7E00, or all payload bits set
    0x7FFF (llvmpipe's compiled conversion, generated TGSI tess_control seed 706) -- each with
    the NaN's sign or the other one.  One conversion makes both halves, so a choice applies to
    both NaN halves of the word at once.  ``source``: the (n, 4) float words converted (x to
    the low half, y to the high)."""
    halves = np.stack([out & U32(0xFFFF), out >> U32(16)])                  # (2, n, 4)
    nan = _half_nan(halves)
    if not nan.any():
        return None
    n = len(out)
    src = np.stack([np.broadcast_to(source[:, i:i + 1], (n, 4)) for i in (0, 1)])
    sign = halves & U32(0x8000)
    payload = np.where(_float_nan(src), ((src >> U32(16)) & U32(0x8000)) | U32(0x7E00) |
                       ((src >> U32(13)) & U32(0x3FF)), halves)
    picks = []
    for policy in (halves, sign | U32(0x7E00), sign | U32(0x7FFF), payload):
        for flip in (U32(0), U32(0x8000)):
            h = np.where(nan, policy ^ flip, halves)
            picks.append(h[0] | (h[1] << U32(16)))
    picks += [out] * (CHOICES - len(picks))
    return np.stack(picks), nan.any(axis=0)


#: readers recomputed on a selection of their own (one lane per combination of choices): the
#: componentwise opcodes, the doubles and the unpacks of a word's bits, whose result reads no
#: other lane (not the derivatives)
READERS = (COMPONENTWISE - {"DDX", "DDY"}) | DOUBLE_OPS | DOUBLE_RESULTS | RAW_OPERAND_OPS
#: combinations of choices tried per lane, at most
MAX_COMBINATIONS = 4096


class NanChoices:
    """Per register of the replayed executor: the words last written by an operation whose
    result holds a NaN, the NaNs it may have chosen instead (:func:`choices`), and which
    element (a double: words xy or zw; a float: its component) each word belongs to -- each
    element's NaN is its own choice.  A second table of the replay (``ReplayHook.flushes``)
    holds, the same way, the denormals an adopted flush replaced (:meth:`wrote_flushed`)."""

    def __init__(self, lanes: int):
        self.lanes = lanes
        self.value: dict[str, np.ndarray] = {}      # reg -> (lanes, 4) words written
        self.held: dict[str, np.ndarray] = {}       # reg -> (lanes, 4) words that are a choice
        self.elem: dict[str, np.ndarray] = {}       # reg -> (lanes, 4) element of each word
        self.alts: dict[str, np.ndarray] = {}       # reg -> (CHOICES, lanes, 4)
        self.fp16: dict[str, np.ndarray] = {}       # reg -> (lanes,) its NaN came through fp16

    def wrote(self, x, ops, lanes, out, written) -> None:
        """Instruction ``x`` wrote ``out`` ((n, 4) words) on ``lanes``, components ``written``."""
        reg = self._written_key(x)
        if reg is None:
            return
        out = np.ascontiguousarray(np.broadcast_to(out, (len(lanes), 4)), U32)
        via = np.zeros(len(lanes), bool)
        for src in x.inst.srcs:
            if src.index is None and src.reg in self.fp16:
                via |= self.fp16[src.reg][lanes]
        got = choices(x, ops, out, via)
        self.hold(x, lanes, reg, out, got, written, via)

    def _written_key(self, x) -> str | None:
        """The table key of the register (element) ``x`` writes; None where it writes none,
        or an element chosen per lane (an indirect write), whose array is then no longer
        followed."""
        dst = x.inst.dst
        if dst is None:
            return None
        if dst.index is not None and dst.index.reg is not None:
            for table in (self.value, self.held, self.elem, self.alts, self.fp16):
                for key in [k for k in table if _base(k) == dst.reg]:
                    del table[key]
            return None
        return _key(dst.reg, dst.index)

    def hold(self, x, lanes, reg: str, out, got, written, via=None) -> None:
        """Keep the alternatives ``got`` ((CHOICES, n, 4) words and the (n, 4) mask of the
        words they concern, or None: none) of the words ``out`` that ``x`` wrote into
        ``reg`` (components ``written``)."""
        if via is None:
            via = np.zeros(len(lanes), bool)
        if got is None and reg not in self.held:
            return
        if reg not in self.held:
            self.value[reg] = np.zeros((self.lanes, 4), U32)
            self.held[reg] = np.zeros((self.lanes, 4), bool)
            self.elem[reg] = np.zeros((self.lanes, 4), np.int8)
            self.alts[reg] = np.zeros((CHOICES, self.lanes, 4), U32)
        alts, mask = got if got is not None else (np.broadcast_to(out, (CHOICES,) + out.shape),
                                                  np.zeros(out.shape, bool))
        # an element is one choice: a double's two words; PK2H's word in every component
        elem = np.array([0, 0, 1, 1] if x.inst.op in DOUBLE_RESULTS else
                        [0, 0, 0, 0] if x.inst.op in HALF_FLOAT_PACKS else [0, 1, 2, 3], np.int8)
        w = np.broadcast_to(written, out.shape)
        self.value[reg][lanes] = np.where(w, out, self.value[reg][lanes])
        self.held[reg][lanes] = np.where(w, mask, self.held[reg][lanes])
        self.elem[reg][lanes] = np.where(w, elem[None], self.elem[reg][lanes])
        self.alts[reg][:, lanes] = np.where(w[None], alts, self.alts[reg][:, lanes])
        if x.inst.precision == "FP16":
            via[:] = True
        if via.any() or reg in self.fp16:
            marks = self.fp16.setdefault(reg, np.zeros(self.lanes, bool))
            marks[lanes] = np.where(w.any(axis=1), via & mask.any(axis=1), marks[lanes])

    def wrote_flushed(self, x, lanes, out, unflushed, flushed, written) -> None:
        """Instruction ``x`` wrote ``out`` on ``lanes``, where the components ``flushed`` are
        the implementation's flush of the executor's denormal ``unflushed`` (verdict ``ftz``,
        adopted from one probe compilation): another compilation may have kept the denormal,
        so a reader probed there is recomputed with it too (``ReplayHook.flushes``)."""
        reg = self._written_key(x)
        if reg is None:
            return
        if reg not in self.held and not np.any(flushed):
            return                      # (most writes: nothing held, nothing flushed)
        out = np.ascontiguousarray(np.broadcast_to(out, (len(lanes), 4)), U32)
        mask = np.broadcast_to(flushed, out.shape) & np.broadcast_to(written, out.shape)
        got = None
        if mask.any():
            alts = np.repeat(out[None], CHOICES, axis=0)
            alts[1] = np.where(mask, np.broadcast_to(unflushed, out.shape), out)
            got = (alts, mask)
        self.hold(x, lanes, reg, out, got, written)

    def _operand(self, src, lane: int, words: np.ndarray, element: int | None = None):
        """The choices a plain register source holds on ``lane`` as read (swizzled; ``words``:
        its 4 words as the executor read them; ``element``: the array element an indirect
        source read on that lane): a list of (component mask, (m, 4) distinct alternatives of
        those components) per element, empty where it holds none."""
        if src.vertex is not None or src.neg or src.abs or any(src.comp_neg) or \
                any(c > 3 for c in src.swizzle):
            return []
        reg = _key(src.reg, src.index, element)
        if reg not in self.held:
            return []
        swz = list(src.swizzle) + [src.swizzle[-1]] * (4 - len(src.swizzle))
        held = self.held[reg][lane][swz] & (self.value[reg][lane][swz] == words)
        elem = self.elem[reg][lane][swz]
        alts = self.alts[reg][:, lane][:, swz]                          # (CHOICES, 4)
        out = []
        for e in np.unique(elem[held]):
            comps = held & (elem == e)
            out.append((comps, np.unique(alts[:, comps], axis=0)))
        return out

    def explain(self, x, ops, lanes, rows, imp, written, same, site_of) -> np.ndarray:
        """(len(rows),) bool: the rows (positions in ``lanes``) where the instruction,
        recomputed with NaNs its operands' producers may have chosen instead (each element its
        own choice), gives ``imp`` ((len(rows), 4) words) on every written component
        (``written``; ``same``: the word comparison of the result's type).  ``site_of(ops,
        n)``: a permits.Site judging n lanes of other operands."""
        found = np.zeros(len(rows), bool)
        n = len(lanes)
        arrays = [np.asarray(o) for o in ops]
        if x.inst.op not in READERS or \
                any(a.ndim != 2 or a.dtype.itemsize != 4 for a in arrays):
            return found
        read = {src.reg for src in x.inst.srcs}
        regs = [k for k in self.held if _base(k) in read]
        if not regs:
            return found
        holding = np.zeros(len(rows), bool)
        for reg in regs:
            holding |= self.held[reg][lanes[rows]].any(axis=1)
        elements = [_elements_read(x, src, lanes) for src in x.inst.srcs[:len(ops)]]
        for r_i, r in enumerate(rows):
            if not holding[r_i]:
                continue
            row_ops = [a[r if a.shape[0] > 1 else 0] for a in arrays]
            slots = []                         # (operand, component mask, alternatives)
            for j, src in enumerate(x.inst.srcs[:len(ops)]):
                if arrays[j].shape[0] != n:
                    continue                    # a constant: no producer
                words = _words(row_ops[j][None], 1)[0]
                element = None if elements[j] is None else int(elements[j][r])
                slots += [(j, comps, alts) for comps, alts in self._operand(src, int(lanes[r]),
                                                                            words, element)]
            if not slots:
                continue
            sizes = [len(alts) for _, _, alts in slots]
            total = int(np.prod(sizes))
            if total > MAX_COMBINATIONS:
                continue
            pick = np.indices(sizes).reshape(len(sizes), -1)            # (slots, total)
            trial = []
            for j, a in enumerate(row_ops):
                t = np.repeat(np.ascontiguousarray(a)[None], total, axis=0)
                width = t.shape[1]
                w = t.view(U32).reshape(total, width)
                for (jj, comps, alts), k in zip(slots, pick):
                    if jj != j:
                        continue
                    cols = np.flatnonzero(comps)        # the columns of alts
                    inside = cols < width               # a scalar operand reads x alone
                    w[:, cols[inside]] = alts[k][:, inside]
                trial.append(t)
            got = site_of(trial, total).recompute(trial)
            ok = (same(got, imp[r_i][None]) | ~written[r_i][None]).all(axis=1)
            found[r_i] = bool(ok.any())
        return found


def _key(reg: str, index, element: int | None = None) -> str:
    """The table key of a register, or of one element of a register array (``TEMP[2]``: a TGSI
    TEMP file declared as one range is an array, written and read by element -- generated TGSI
    geometry seed 505, inputs seed 500: a DP3's NaN read back through ``TEMP[ADDR[0].x+2]``)."""
    if index is None:
        return reg
    return f"{reg}[{index.offset if element is None else element}]"


def _base(key: str) -> str:
    return key.split("[", 1)[0]


def _elements_read(x, src, lanes) -> np.ndarray | None:
    """(n,) the array element an indirect source reads on each of ``lanes``, as the executor
    reads it (the address register's value before this instruction writes anything, plus the
    offset, clamped to the array: xlate/exec/operands.py); None for any other source.
    ``lanes`` count from the run's first lane, the registers from their chunk's (a compute
    run holds one workgroup at a time: generated TGSI compute seed 1019, inputs seed 1000)."""
    if src.index is None or src.index.reg is None or x.st is None:
        return None
    from ..exec.operands import _clamp, _read_index
    e = _read_index(x.st, src.index, np.asarray(lanes) - x.st.base)
    return _clamp(np.broadcast_to(e, (len(lanes),)), x.st.regs[src.reg].shape[1])
