"""Binding the caller's inputs and parameters to the program's registers.

Every register value is stored as raw uint32 words.  Storage shapes (``lead`` is 1 for a value
shared by every lane, else the number of lanes):

* ordinary registers        (lead, n, 4)        n = array length (1 for a single vec4)
* geometry per-vertex input (lead, V, n, 4)     V = input vertices of the primitive type

Keys the caller may use (see :func:`execute`):

* the register name: the whole register, shape ``(4,)``/``(lanes, 4)``, arrays ``(n, 4)``/
  ``(lanes, n, 4)``, per-vertex inputs ``(V, 4)``/``(lanes, V, 4)`` (or ``(V, n, 4)``/...);
  scalar BUFFERs ``(n,)``/``(lanes, n)`` words;
* the binding text of an element, e.g. ``vertex.attrib[3]``, ``program.local[3]``,
  ``state.matrix.mvp.row[0]`` (for a single-vec4 register that is the register itself);
* for parameters, the binding path without its index, e.g. ``program.local`` with an array
  ``(N, 4)``/``(lanes, N, 4)`` that element ``program.local[j]`` reads row j of;
* for geometry inputs bound to one vertex (``vertex[1].color``), the per-vertex path
  ``vertex.color`` with ``(V, 4)``/``(lanes, V, 4)``, of which vertex 1 is taken.

Float dtypes are stored as float32 bits; integer/bool dtypes as raw two's-complement words.
A value with one more leading axis than the per-lane shape is per lane; otherwise it is
broadcast (numpy rules) to the per-lane shape and shared by all lanes.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..ir.model import Binding, Program, RegKind, Source, Stage

U32 = np.uint32


class ExecError(ValueError):
    """Bad inputs to :func:`xlate.exec.execute`; the message names the offending item."""


def to_words(value, what: str) -> np.ndarray:
    """float -> float32 bits, int/uint/bool -> raw uint32 words."""
    try:
        arr = np.asarray(value)
    except Exception as exc:  # pragma: no cover - exotic objects
        raise ExecError(f"{what}: cannot convert value to an array ({exc})") from None
    kind = arr.dtype.kind
    if kind == "f":
        with np.errstate(over="ignore", invalid="ignore"):
            return np.ascontiguousarray(arr.astype(np.float32, copy=False)).view(U32)
    if kind in "iub":
        a64 = arr.astype(np.int64)
        if a64.size and (a64.min() < -(1 << 31) or a64.max() > (1 << 32) - 1):
            raise ExecError(f"{what}: integer value out of the 32-bit range")
        return (a64 & 0xFFFFFFFF).astype(U32)
    raise ExecError(f"{what}: unsupported dtype {arr.dtype} (use float or integer values)")


def binding_keys(b: Binding) -> list[str]:
    """Spellings accepted for a binding: ``Binding.text()`` plus a canonical rendering that puts
    each index right after the element that takes it (``program.buffer[0][3]``,
    ``state.matrix.texture[1].row[2]``)."""
    keys = [b.text()]
    canon = _canonical_text(b)
    if canon not in keys:
        keys.append(canon)
    return keys


_TAKES_INDEX = {"texcoord", "attrib", "clip", "local", "env", "light", "lightprod", "texgen",
                "texenv", "modelview", "row", "palette", "weight", "matrixindex", "texture",
                "program", "color_n"}


def _canonical_text(b: Binding) -> str:
    parts = b.path.split(".")
    idx = [i for i in (b.index, b.index2) if i is not None]
    out = parts[0]
    if b.vertex is not None:
        out += f"[{b.vertex}]"
    if parts[:2] == ["program", "buffer"]:
        return out + ".buffer" + "".join(f"[{i}]" for i in idx) + "".join(
            "." + p for p in parts[2:])
    for p in parts[1:]:
        out += "." + p
        if p in _TAKES_INDEX and idx:
            out += f"[{idx.pop(0)}]"
    return out + "".join(f"[{i}]" for i in idx)


def _path_keys(b: Binding) -> list[tuple[str, int]]:
    """Keys naming the whole array a binding's last index runs over, with this binding's row:
    ``program.local`` for ``program.local[3]`` (row 3), ``state.matrix.mvp.row`` for
    ``state.matrix.mvp.row[0]``, ``state.matrix.texture[1].row`` for ``...texture[1].row[2]``."""
    if b.vertex is not None or b.path == "program.buffer":   # buffer: the index is a binding point
        return []
    if b.index is not None and b.index2 is not None:
        return [(k, b.index2) for k in binding_keys(Binding(b.path, b.index))]
    row = b.index if b.index is not None else b.index2
    return [] if row is None else [(b.path, row)]


@dataclass
class _Target:
    reg: str
    elem: int | None          # None: the whole register
    mode: str                 # "whole" | "elem" | "path" | "vertex"
    sub: int = 0              # path: row index; vertex: vertex number


def used_registers(program: Program) -> set[str]:
    used: set[str] = set()

    def src(s: Source):
        used.add(s.reg)
        for ix in (s.index, s.vertex):
            if ix is not None and ix.reg is not None:
                used.add(ix.reg)

    for inst in program.instructions:
        for s in inst.srcs:
            src(s)
        if inst.dst is not None and inst.dst.index is not None and inst.dst.index.reg:
            used.add(inst.dst.index.reg)
    return used


def _trailing(reg, target: _Target, n: int, V: int) -> tuple[int, ...]:
    scalar_buf = reg.kind == RegKind.BUFFER and not reg.buffer_vec4
    if target.mode == "whole":
        if reg.per_vertex:
            return (V, 4) if reg.size is None else (V, n, 4)
        if scalar_buf:
            return (n,)
        return (n, 4) if _is_array(reg) else (4,)
    if target.mode == "elem":
        if reg.per_vertex:
            return (V, 4)
        return () if scalar_buf else (4,)
    if target.mode == "path":
        return (-1, 4)
    if target.mode == "vertex":
        return (V, 4)
    raise AssertionError(target.mode)


def _is_array(reg) -> bool:
    return reg.size is not None or reg.kind == RegKind.BUFFER


def _lead(key: str, w: np.ndarray, trailing: tuple[int, ...]) -> int:
    extra = w.ndim - len(trailing)
    if extra == 1:
        return w.shape[0]
    if extra <= 0:
        return 1
    raise ExecError(f"{key!r}: too many dimensions {w.shape} (expected {_fmt(trailing)} "
                    f"or (lanes, {_fmt(trailing)[1:]})")


def _fmt(t):
    return "(" + ", ".join("N" if x < 0 else str(x) for x in t) + ("," if len(t) == 1 else "") + ")"


def _shape(key: str, w: np.ndarray, trailing: tuple[int, ...], lead: int) -> np.ndarray:
    """Broadcast ``w`` to (lead, *trailing); -1 in trailing keeps the value's size."""
    extra = w.ndim - len(trailing)
    t = tuple(w.shape[i + max(extra, 0)] if x < 0 and i + max(extra, 0) < w.ndim else x
              for i, x in enumerate(trailing))
    if any(x < 0 for x in t):
        raise ExecError(f"{key!r}: expected shape {_fmt(trailing)} or (lanes, ...), got {w.shape}")
    try:
        if extra == 1:
            out = np.broadcast_to(w, (w.shape[0],) + t)
            if w.shape[0] not in (1, lead):
                raise ValueError
        else:
            out = np.broadcast_to(w, t)[None]
    except ValueError:
        want = _fmt(t)
        raise ExecError(f"{key!r}: wrong shape {w.shape}; expected {want} or "
                        f"(lanes, {want[1:]}") from None
    return out


def bind(program: Program, inputs: dict | None, params: dict | None,
         lanes: int | None) -> tuple[int, dict[str, np.ndarray]]:
    """Resolve every register's storage (read-only registers only: INPUT, PARAM, BUFFER,
    CONST).  Returns (lanes, {register name: uint32 array with leading dim 1 or lanes})."""
    inputs = dict(inputs or {})
    params = dict(params or {})
    V = program.geometry.input_vertices if (program.geometry and program.stage == Stage.GEOMETRY) \
        else 1
    used = used_registers(program)

    # key -> targets, separately for inputs and params
    in_keys: dict[str, list[_Target]] = {}
    par_keys: dict[str, list[_Target]] = {}
    for reg in program.registers.values():
        if reg.kind == RegKind.INPUT:
            table = in_keys
        elif reg.kind in (RegKind.PARAM, RegKind.BUFFER):
            table = par_keys
        else:
            continue
        table.setdefault(reg.name, []).append(_Target(reg.name, None, "whole"))
        bs = reg.bindings
        if bs and bs[0] is not None and (not _is_array(reg) or reg.size is None):
            for k in binding_keys(bs[0]):
                table.setdefault(k, []).append(_Target(reg.name, None, "whole"))
        for e, b in enumerate(bs):
            if b is None:
                continue
            if _is_array(reg):
                for k in binding_keys(b):
                    table.setdefault(k, []).append(_Target(reg.name, e, "elem"))
            if table is par_keys:
                for pk, row in _path_keys(b):
                    table.setdefault(pk, []).append(_Target(reg.name, e, "path", row))
            if reg.kind == RegKind.INPUT and b.vertex is not None and not reg.per_vertex:
                vb = Binding(b.path, b.index, b.index2, None)
                for k in binding_keys(vb):
                    table.setdefault(k, []).append(_Target(reg.name, e, "vertex", b.vertex))

    for key in inputs:
        if key not in in_keys:
            if key in par_keys:
                raise ExecError(f"input {key!r} names a parameter; pass it in params=")
            raise ExecError(f"unknown input {key!r}: no INPUT register or binding of that name")
    for key in params:
        if key not in par_keys:
            if key in in_keys:
                raise ExecError(f"parameter {key!r} names an input; pass it in inputs=")
            raise ExecError(f"unknown parameter {key!r}: no PARAM/BUFFER register or binding "
                            f"of that name")

    words: dict[str, np.ndarray] = {}
    for src, what in ((inputs, "input"), (params, "parameter")):
        for key, value in src.items():
            words[key] = to_words(value, f"{what} {key!r}")

    # lane count
    leads: dict[str, int] = {}
    for key, w in words.items():
        targets = (in_keys if key in inputs else par_keys)[key]
        reg = program.registers[targets[0].reg]
        t = _trailing(reg, targets[0], _whole_len(reg, targets[0], w), V)
        ld = _lead(key, w, t)
        if ld != 1:
            leads[key] = ld
    if lanes is None:
        distinct = sorted(set(leads.values()))
        if len(distinct) > 1:
            bad = [k for k, v in leads.items() if v != distinct[0]][0]
            raise ExecError(f"{bad!r}: {leads[bad]} lanes, but other values have {distinct[0]}")
        lanes = distinct[0] if distinct else 1
    else:
        if not isinstance(lanes, (int, np.integer)) or lanes < 1:
            raise ExecError(f"lanes: must be a positive integer, got {lanes!r}")
        lanes = int(lanes)
        for k, v in leads.items():
            if v != lanes:
                raise ExecError(f"{k!r}: has {v} lanes, but lanes={lanes}")

    storage: dict[str, np.ndarray] = {}
    for reg in program.registers.values():
        if reg.kind not in (RegKind.INPUT, RegKind.PARAM, RegKind.BUFFER, RegKind.CONST):
            continue
        storage[reg.name] = _assemble(reg, inputs if reg.kind == RegKind.INPUT else params,
                                      in_keys if reg.kind == RegKind.INPUT else par_keys,
                                      words, lanes, V, reg.name in used)
    return lanes, storage


def _whole_len(reg, target: _Target, w: np.ndarray) -> int:
    if reg.size is not None:
        return reg.size
    if reg.kind == RegKind.BUFFER and target.mode == "whole":
        # unsized BUFFER bound to a whole buffer: the value decides its length
        return w.shape[-1] if not reg.buffer_vec4 else (w.shape[-2] if w.ndim >= 2 else 1)
    return 1


def _raw_const(reg) -> np.ndarray:
    n = reg.length
    if reg.value is None:
        raise ExecError(f"constant {reg.name!r} has no value")
    vals = np.array(reg.value, dtype=np.int64).reshape(-1, 4) & 0xFFFFFFFF
    if vals.shape[0] == 1 and n > 1:
        vals = np.broadcast_to(vals, (n, 4))
    return vals.astype(U32)[None]


def _assemble(reg, given: dict, keys: dict, words: dict, lanes: int, V: int,
              used: bool) -> np.ndarray:
    kind_word = "input" if reg.kind == RegKind.INPUT else "parameter"
    if reg.kind == RegKind.CONST:
        return _raw_const(reg)
    scalar_buf = reg.kind == RegKind.BUFFER and not reg.buffer_vec4

    # 1. the whole register by a whole-register key
    for key, targets in keys.items():
        if key not in given:
            continue
        for t in targets:
            if t.reg == reg.name and t.mode == "whole":
                w = words[key]
                n = _whole_len(reg, t, w)
                tr = _trailing(reg, t, n, V)
                ld = _lead(key, w, tr)
                arr = _shape(key, w, tr, lanes if ld != 1 else 1)
                if scalar_buf:
                    arr = np.broadcast_to(arr[..., None], arr.shape + (4,))
                if reg.per_vertex and reg.size is None:
                    arr = arr[:, :, None, :]
                elif not reg.per_vertex and not _is_array(reg):
                    arr = arr[:, None, :]
                return np.ascontiguousarray(arr)

    # 2. element by element
    n = reg.length
    elems: list[np.ndarray | None] = []
    for e in range(n):
        b = reg.bindings[e] if e < len(reg.bindings) else None
        got = None
        if b is not None:
            for key, targets in keys.items():
                if key not in given:
                    continue
                for t in targets:
                    if t.reg != reg.name or t.elem != e or t.mode == "whole":
                        continue
                    got = _element(reg, t, key, words[key], lanes, V)
                    break
                if got is not None:
                    break
        if got is None:
            if b is None and reg.value is not None and reg.kind != RegKind.INPUT:
                vals = np.array(reg.value, dtype=np.int64).reshape(-1, 4) & 0xFFFFFFFF
                got = vals[min(e, len(vals) - 1)].astype(U32)[None]
                if reg.per_vertex:
                    got = np.broadcast_to(got[:, None], (1, V, 4))
            elif not used:
                got = np.zeros((1, V, 4) if reg.per_vertex else (1, 4), U32)
            else:
                what = b.text() if b is not None else f"{reg.name}[{e}]"
                if reg.size is None:
                    raise ExecError(f"missing {kind_word} {reg.name!r}"
                                    + (f" ({what})" if b is not None else ""))
                raise ExecError(f"missing {kind_word} {what!r} (element {e} of {reg.name!r}); "
                                f"pass it or the whole array as {reg.name!r}")
        elems.append(got)
    lead = max(x.shape[0] for x in elems)
    if reg.per_vertex:
        out = np.empty((lead, V, n, 4), U32)
        for e, x in enumerate(elems):
            out[:, :, e, :] = x
    else:
        out = np.empty((lead, n, 4), U32)
        for e, x in enumerate(elems):
            out[:, e, :] = x
    return out


def _element(reg, t: _Target, key: str, w: np.ndarray, lanes: int, V: int) -> np.ndarray:
    """One element, shaped (lead, 4) (per-vertex registers: (lead, V, 4))."""
    tr = _trailing(reg, t, 1, V)
    ld = _lead(key, w, tr)
    arr = _shape(key, w, tr, lanes if ld != 1 else 1)
    if t.mode == "elem":
        if reg.kind == RegKind.BUFFER and not reg.buffer_vec4:
            arr = np.broadcast_to(arr[..., None], arr.shape + (4,))
        return arr
    if t.mode == "path":
        rows = arr.shape[1]
        if t.sub >= rows:
            raise ExecError(f"{key!r}: has {rows} rows, but {reg.name!r} needs row {t.sub}")
        return arr[:, t.sub, :]
    if t.mode == "vertex":
        if t.sub >= V:
            raise ExecError(f"{key!r}: vertex {t.sub} out of range ({V} input vertices)")
        return arr[:, t.sub, :]
    raise AssertionError(t.mode)
