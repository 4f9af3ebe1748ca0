"""Operand loads and destination updates (digest §4.1-4.3; GP4 §2.X.4.2, §2.X.4.3).

A *loader* turns an IR :class:`Source` into a typed NumPy array for the lanes being executed:
``(k, 4)`` for vector operands, ``(k, 1)`` for scalar operands, where k is the number of lanes
(or 1 when the operand is the same for every lane, e.g. a constant; NumPy broadcasting does the
rest).  A *writer* stores a result into the destination register and the condition codes.

``idx`` throughout is either ``None`` (every lane of the chunk, the fast path) or an int array
of the lanes sitting at the instruction.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from ..ir.model import DataType, Dest, Index, Program, RegKind, Register, Source
from . import cc as ccmod

U32, I32, F32 = np.uint32, np.int32, np.float32
NP_TYPE = {DataType.FLOAT: F32, DataType.INT: I32, DataType.UINT: U32, DataType.NONE: U32}

#: raw words of the swizzle constants 0 and 1 (selectors 4 and 5) in each operand type
_ONE_WORD = {DataType.FLOAT: 0x3F800000, DataType.INT: 1, DataType.UINT: 1, DataType.NONE: 1}

IDENTITY = (0, 1, 2, 3)


def typed(words: np.ndarray, t: DataType) -> np.ndarray:
    """View raw uint32 words as the operand type (zero-copy)."""
    return words.view(NP_TYPE[t])


def lane_ids(st, idx):
    return st.all_lanes if idx is None else idx


# Gathers and scatters of whole 16-byte register rows go through a flat ``void16`` view of the
# register (one row per lane/vertex/element): 1-D fancy indexing is ~10x faster than indexing
# the (lanes, n, 4) uint32 array with an index array.
ROW = np.dtype((np.void, 16))


def flat_rows(st, name: str) -> np.ndarray:
    """1-D void16 view (lanes * [V *] n rows) of a per-lane register (cached per state)."""
    v = st.flat.get(name)
    if v is None:
        v = st.regs[name].view(ROW).reshape(-1)
        st.flat[name] = v
    return v


def rows_to_words(rows: np.ndarray) -> np.ndarray:
    return rows.view(U32).reshape(-1, 4)


def words_to_rows(words: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(words, dtype=U32).view(ROW).reshape(-1)


def _read_index(st, ix: Index, idx) -> np.ndarray:
    """Offset plus the int32 value of ``ix.reg``.``ix.comp`` (GP4 §2.X.4.2 relative addressing),
    shape (k,) or (1,)."""
    R = st.regs[ix.reg]
    if R.shape[0] == 1 or idx is None:
        v = R[:, 0, ix.comp]
    else:
        v = R[:, 0, ix.comp][idx]
    return v.view(I32).astype(np.int64) + ix.offset


def _clamp(i: np.ndarray, n: int) -> np.ndarray:
    # GP4 §2.X.4.2: a relative index outside [0, n-1] is undefined; project choice: clamp.
    return np.clip(i, 0, n - 1)


# Bound settings: the operand fetchers, loaders and writers below receive their settings as
# keyword-only defaults rather than as closure variables.  A closure keeps one cell per
# variable, each an object the garbage collector tracks: compiling a program of 3,200
# instructions made ~89,000 of them, and the one collection after the compile (xlate/
# gcpause.py) then took 8 ms where 400 instructions took 0.5 -- executor set-up grew faster
# than the program.  Defaults are one object per function (and read as fast locals).


def make_fetch(program: Program, src_reg: str, index: Index | None, vertex: Index | None,
               per_vertex: bool) -> Callable:
    """Element (and geometry vertex) selection -> function(st, idx) -> uint32 (k|1, 4)."""
    name = src_reg
    static_e = 0 if index is None else (None if index.relative else index.offset)
    static_v = None
    if per_vertex:
        static_v = 0 if vertex is None else (None if vertex.relative else vertex.offset)

    if not per_vertex and static_e is not None:
        def fetch(st, idx, *, name=name, e=static_e):   # bound settings (see above)
            R = st.regs[name]
            if R.shape[0] == 1 or idx is None:
                return R[:, min(e, R.shape[1] - 1), :]
            n = R.shape[1]
            pos = idx * n + min(e, n - 1) if n > 1 else idx
            return rows_to_words(flat_rows(st, name)[pos])
        return fetch

    def fetch(st, idx, *, name=name, per_vertex=per_vertex, static_v=static_v, vertex=vertex,
              static_e=static_e, index=index):
        R = st.regs[name]
        n = R.shape[-2]
        V = R.shape[1] if per_vertex else 1
        if per_vertex:
            v = (min(static_v, V - 1) if static_v is not None
                 else _clamp(_read_index(st, vertex, idx), V))
        else:
            v = 0
        e = min(static_e, n - 1) if static_e is not None else _clamp(_read_index(st, index, idx), n)
        if R.shape[0] == 1:                       # shared by all lanes
            out = (R[0, v, e] if per_vertex else R[0, e])
            return out if out.ndim == 2 else out[None]
        lanes = lane_ids(st, idx)
        pos = (lanes * V + v) * n + e
        return rows_to_words(flat_rows(st, name)[pos])
    return fetch


def make_loader(program: Program, src: Source, t: DataType, scalar: bool) -> Callable:
    """Operand load pipeline (GP4 §2.X.4.2; digest §4.1): element select (absolute or
    relative, clamped), geometry vertex select, swizzle (selectors 4/5 = constants 0/1 in the
    operand type), |abs|, negate, per-component negate (SWZ).  Returns typed arrays."""
    reg: Register = program.registers[src.reg]
    fetch = make_fetch(program, src.reg, src.index, src.vertex, reg.per_vertex)
    swz = tuple(src.swizzle)
    if scalar:
        swz = swz[:1]
    plain = swz == IDENTITY
    consts = any(s >= 4 for s in swz)
    one = _ONE_WORD[t]
    np_t = NP_TYPE[t]
    do_abs = src.abs and t != DataType.UINT     # |x| of an unsigned value is a no-op (GP4 §2.X.4.2)
    do_neg = src.neg
    cneg = [c for c, f in enumerate(src.comp_neg[:len(swz)]) if f]
    swz_list = list(swz)

    def load(st, idx, *, fetch=fetch, consts=consts, one=one, swz_list=swz_list, plain=plain,
             np_t=np_t, do_abs=do_abs, do_neg=do_neg, cneg=cneg):      # bound settings
        w = fetch(st, idx)
        if consts:
            k = w.shape[0]
            ext = np.empty((k, 6), U32)
            ext[:, :4] = w
            ext[:, 4] = 0
            ext[:, 5] = one
            w = ext[:, swz_list]
        elif not plain:
            w = w[:, swz_list]
        v = w.view(np_t)
        if do_abs:
            # float: fabs; int: two's complement abs with |INT_MIN| = INT_MIN (GP4 issue 22)
            v = np.abs(v)
        if do_neg:
            # float: sign flip; int/uint: two's complement negate, wrapping (GP4 §2.X.4.2)
            v = np.negative(v)
        if cneg:
            v = v.copy()
            for c in cneg:
                v[:, c] = np.negative(v[:, c])
        return v
    return load


def saturate(r: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """Digest §4.3 step 2: ``if (r < lo) r = lo; else if (r > hi) r = hi;`` -- NaN passes."""
    lo32, hi32 = F32(lo), F32(hi)
    return np.where(r < lo32, lo32, np.where(r > hi32, hi32, r))


def cond_mask(st, cond, idx) -> np.ndarray:
    """Run-time CC mask (GP4 §2.X.4.3, Table X.16): per destination component c, the test of
    component ``cond.swizzle[c]`` of the CC register *before* the instruction.  (k, 4) bool."""
    flags = st.cc[cond.cc]
    if idx is not None:
        flags = st.cc32[cond.cc][idx].view(np.uint8).reshape(-1, 4)
    sw = cond.swizzle
    if tuple(sw) != IDENTITY:
        flags = flags[:, list(sw)]
    return ccmod.test(cond.rule, flags)


def any_cond(st, cond, idx) -> np.ndarray:
    """A flow/KIL condition: passes iff any of the four swizzled tests passes (GP4 §2.X.5).
    ``cond`` None = always.  Returns (k,) bool."""
    k = st.lanes if idx is None else len(idx)
    if cond is None:
        return np.ones(k, bool)
    return cond_mask(st, cond, idx).any(axis=1)


def make_writer(program: Program, dst: Dest | None, precision: str | None = None) -> Callable:
    """Destination update (GP4 §2.X.4.3; digest §4.3 steps 3-5): the result is converted to
    the instruction's ``precision`` (``Instruction.precision``: "FP16", "X"; others convert
    nothing), then component c is written iff the write mask enables it and (if present) the CC
    mask test passes; the CC register named by the instruction is updated for exactly the
    written components.

    writer(st, idx, bits (k|1, 4) uint32, flags (k|1, 4) uint8 or None, cc_reg, cmask)
    """
    if dst is None:
        name, e_static, rel, comps = None, 0, None, IDENTITY
    else:
        reg = program.registers[dst.reg]
        name = None if reg.kind == RegKind.CC else dst.reg   # "MOVC CC, R0" dummy destination
        rel = dst.index if (dst.index is not None and dst.index.relative) else None
        e_static = 0 if dst.index is None else dst.index.offset
        comps = tuple(c for c in range(4) if dst.mask[c])
    full = comps == IDENTITY
    static = np.array([c in comps for c in range(4)])
    convert = _PRECISION.get(precision)

    def write(st, idx, bits, flags, cc_reg, cmask, *, convert=convert, name=name, rel=rel,
              e_static=e_static, full=full, comps=comps, static=static):   # bound settings
        if convert is not None:
            # precision step (FP1 3.11.4.4, digest 4.3 step 3): convert the (saturated) result
            # to fp16 / fx12; the condition code is generated from the converted value (digest
            # 12 item 25), so the flags machine.run_alu computed are recomputed here
            conv = convert(bits.view(F32))
            bits = conv.view(U32)
            if flags is not None:
                flags = ccmod.flags_float(conv)
        R = st.regs[name] if name is not None else None
        if cmask is None and rel is None and idx is None:
            # fast path: every lane, static element, static mask
            if R is not None:
                if full:
                    R[:, e_static, :] = bits
                else:
                    for c in comps:
                        R[:, e_static, c] = bits[:, c]
            if flags is not None:
                C = st.cc[cc_reg]
                if full:
                    C[:, :] = flags
                else:
                    for c in comps:
                        C[:, c] = flags[:, c]
            return
        if idx is None and rel is None:
            # every lane, run-time CC mask
            m = cmask & static if not full else cmask
            if R is not None:
                np.copyto(R[:, e_static, :], bits, where=m)
            if flags is not None:
                np.copyto(st.cc[cc_reg], flags, where=m)
            return
        # a subset of the lanes and/or a relative element: gather rows, merge, scatter rows
        lanes = lane_ids(st, idx)
        k = len(lanes)
        m = None if (cmask is None and full) else (static if cmask is None else cmask & static)
        if R is not None:
            n = R.shape[1]
            if rel is not None:
                e = _clamp(_read_index(st, rel, idx), n)
            else:
                e = e_static
            pos = lanes * n + e if n > 1 else lanes
            rows = flat_rows(st, name)
            new = np.broadcast_to(bits, (k, 4))
            if m is not None:
                new = np.where(m, new, rows_to_words(rows[pos]))
            rows[pos] = words_to_rows(new)
        if flags is not None:
            c32 = st.cc32[cc_reg]
            new = np.broadcast_to(flags, (k, 4))
            if m is not None:
                new = np.where(m, new, c32[lanes].view(np.uint8).reshape(-1, 4))
            c32[lanes] = np.ascontiguousarray(new, dtype=np.uint8).view(np.uint32).reshape(-1)
    return write


# ---- result precision (IR ``Instruction.precision``; issue 5 fragment dialects) -------------
# "FP16": the result is rounded to fp16 (round to nearest even, overflow to +-INF, fp16
# denormals kept: numpy float16; FP1 3.11.4.1-2) and held as the fp32 value of that half.
# "X": converted to fx12: NaN -> 0, clamped to [-2048/1024, 2047/1024], rounded to a multiple of
# 1/1024 (ties to even; FP1 names no rounding).  "R" and NV4's "H" (a minimum-precision hint)
# convert nothing.  The GLSL backend does the same (helpers fp16 / fx12).

def _to_fp16(v: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return v.astype(np.float16).astype(F32)


_FX12_LO, _FX12_HI = F32(-2048.0 / 1024.0), F32(2047.0 / 1024.0)


def _to_fx12(v: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        c = np.where(np.isnan(v), F32(0), np.clip(v, _FX12_LO, _FX12_HI))
        return (np.rint(c * F32(1024)) / F32(1024)).astype(F32)


_PRECISION = {"FP16": _to_fp16, "X": _to_fx12}

