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


def _read_index(st, ix: Index, idx) -> np.ndarray:
    """Offset plus the int32 value of ``ix.reg``.``ix.comp`` (GP4 §2.X.4.2 relative addressing),
    shape (k,) or (1,)."""
    R = st.regs[ix.reg]
    if R.shape[0] == 1 or idx is None:
        v = R[:, 0, ix.comp]
    else:
        v = R[idx, 0, ix.comp]
    return v.view(I32).astype(np.int64) + ix.offset


def _clamp(i: np.ndarray, n: int) -> np.ndarray:
    # GP4 §2.X.4.2: a relative index outside [0, n-1] is undefined; project choice: clamp.
    return np.clip(i, 0, n - 1)


def make_fetch(program: Program, src_reg: str, index: Index | None, vertex: Index | None,
               per_vertex: bool) -> Callable:
    """Element (and geometry vertex) selection -> function(st, idx) -> uint32 (k|1, 4)."""
    name = src_reg
    static_e = 0 if index is None else (None if index.relative else index.offset)
    static_v = None
    if per_vertex:
        static_v = 0 if vertex is None else (None if vertex.relative else vertex.offset)

    if not per_vertex and static_e is not None:
        e = static_e

        def fetch(st, idx):
            R = st.regs[name]
            if R.shape[0] == 1 or idx is None:
                return R[:, e, :]
            return R[idx, e, :]
        return fetch

    def fetch(st, idx):
        R = st.regs[name]
        n = R.shape[-2]
        uniform = R.shape[0] == 1
        parts = []
        arrays = False
        if per_vertex:
            if static_v is not None:
                parts.append(min(static_v, R.shape[1] - 1))
            else:
                parts.append(_clamp(_read_index(st, vertex, idx), R.shape[1]))
                arrays = True
        if static_e is not None:
            parts.append(min(static_e, n - 1))
        else:
            parts.append(_clamp(_read_index(st, index, idx), n))
            arrays = True
        if uniform:
            lead = 0
        elif arrays:
            lead = lane_ids(st, idx)
        else:
            lead = slice(None) if idx is None else idx
        out = R[(lead, *parts)]
        return out if out.ndim == 2 else out[None]
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

    def load(st, idx):
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
        flags = flags[idx]
    return ccmod.test(cond.rule, flags[:, list(cond.swizzle)])


def any_cond(st, cond, idx) -> np.ndarray:
    """A flow/KIL condition: passes iff any of the four swizzled tests passes (GP4 §2.X.5).
    ``cond`` None = always.  Returns (k,) bool."""
    k = st.lanes if idx is None else len(idx)
    if cond is None:
        return np.ones(k, bool)
    return cond_mask(st, cond, idx).any(axis=1)


def make_writer(program: Program, dst: Dest | None) -> Callable:
    """Destination update (GP4 §2.X.4.3; digest §4.3 steps 4-5): component c is written iff
    the write mask enables it and (if present) the CC mask test passes; the CC register named by
    the instruction is updated for exactly the written components.

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

    def write(st, idx, bits, flags, cc_reg, cmask):
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
        lanes = lane_ids(st, idx)
        k = len(lanes)
        bits = np.broadcast_to(bits, (k, 4))
        if flags is not None:
            flags = np.broadcast_to(flags, (k, 4))
            C = st.cc[cc_reg]
        if rel is not None and R is not None:
            e = np.broadcast_to(_clamp(_read_index(st, rel, idx), R.shape[1]), (k,))
        else:
            e = e_static
        for c in comps:
            if cmask is not None:
                m = cmask[:, c]
                ln = lanes[m]
                if R is not None:
                    R[ln, e if rel is None else e[m], c] = bits[m, c]
                if flags is not None:
                    C[ln, c] = flags[m, c]
            else:
                if R is not None:
                    R[lanes, e, c] = bits[:, c]
                if flags is not None:
                    C[lanes, c] = flags[:, c]
    return write
