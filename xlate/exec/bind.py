"""Binding the caller's inputs and parameters to the program's registers.

Every register value is stored as raw uint32 words.  Storage shapes (``lead`` is 1 for a value
shared by every lane, else the number of lanes):

* ordinary registers        (lead, n, 4)        n = array length (1 for a single vec4)
* geometry per-vertex input (lead, V, n, 4)     V = input vertices of the primitive type

Keys the caller may use (see :func:`execute`):

* the register name: the whole register, shape ``(4,)``/``(lanes, 4)``, arrays ``(n, 4)``/
  ``(lanes, n, 4)``, per-vertex inputs ``(V, 4)``/``(lanes, V, 4)`` (or ``(V, n, 4)``/...);
  scalar BUFFERs ``(n,)``/``(lanes, n)`` words (a single-word BUFFER: ``()``/``(lanes,)``);
* for BUFFER/BUFFER4 (the frontend gives them one binding ``program.buffer[a][start]`` for
  elements start..start+n-1): ``program.buffer[a]`` = the whole buffer contents ``(N,)``/
  ``(N, 4)`` (elements past its end read as 0), or ``program.buffer[a][j]`` per element;
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

from ..ir.model import Binding, DataType, Program, RegKind, Source, input_vertices

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
    mode: str                 # "whole" | "elem" | "path" | "vertex" | "buffer"
    sub: int = 0              # path: row index; vertex: vertex number; buffer: first element


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


def _scalar_buffer(reg) -> bool:
    return reg.kind == RegKind.BUFFER and not reg.buffer_vec4


def _trailing(reg, target: _Target, V: int) -> tuple[int, ...]:
    """Per-lane shape the caller's value must have for ``target`` (-1: any length)."""
    n = reg.length
    array = reg.size is not None
    if target.mode == "whole":
        if reg.per_vertex:
            return (V, n, 4) if array else (V, 4)
        if _scalar_buffer(reg):
            return (n,) if array else ()
        return (n, 4) if array else (4,)
    if target.mode == "elem":
        if reg.per_vertex:
            return (V, 4)
        return () if _scalar_buffer(reg) else (4,)
    if target.mode == "path":
        return (-1, 4)
    if target.mode == "vertex":
        return (V, 4)
    if target.mode == "buffer":
        return (-1,) if _scalar_buffer(reg) else (-1, 4)
    raise AssertionError(target.mode)


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


def _register_keys(reg, table: dict[str, list[_Target]]) -> None:
    def add(key, target):
        table.setdefault(key, []).append(target)

    add(reg.name, _Target(reg.name, None, "whole"))
    bs = reg.bindings
    if reg.kind == RegKind.BUFFER:
        # frontend convention: one binding program.buffer[a][start] for elements
        # start .. start+size-1 of binding point a (GP4 §2.X.3.6, Table X.12)
        b = bs[0] if bs else None
        if b is None:
            return
        buf, start = b.index, b.index2 or 0
        if reg.size is None:
            for k in binding_keys(b):
                add(k, _Target(reg.name, None, "whole"))
        else:
            for j in range(reg.size):
                add(f"program.buffer[{buf}][{start + j}]", _Target(reg.name, j, "elem"))
        add(f"program.buffer[{buf}]", _Target(reg.name, None, "buffer", start))
        return
    if reg.size is None and bs and bs[0] is not None:
        for k in binding_keys(bs[0]):
            add(k, _Target(reg.name, None, "whole"))
    for e, b in enumerate(bs):
        if b is None:
            continue
        if reg.size is not None:
            for k in binding_keys(b):
                add(k, _Target(reg.name, e, "elem"))
        if reg.kind == RegKind.PARAM:
            for pk, row in _path_keys(b):
                add(pk, _Target(reg.name, e, "path", row))
        if reg.kind == RegKind.INPUT and b.vertex is not None and not reg.per_vertex:
            for k in binding_keys(Binding(b.path, b.index, b.index2, None)):
                add(k, _Target(reg.name, e, "vertex", b.vertex))


def bind(program: Program, inputs: dict | None, params: dict | None,
         lanes: int | None) -> tuple[int, dict[str, np.ndarray]]:
    """Resolve every register's storage (read-only registers only: INPUT, PARAM, BUFFER,
    CONST).  Returns (lanes, {register name: uint32 array with leading dim 1 or lanes})."""
    inputs = dict(inputs or {})
    params = dict(params or {})
    V = input_vertices(program) or 1
    used = used_registers(program)

    # key -> targets, separately for inputs and params
    in_keys: dict[str, list[_Target]] = {}
    par_keys: dict[str, list[_Target]] = {}
    for reg in program.registers.values():
        if reg.kind == RegKind.INPUT:
            _register_keys(reg, in_keys)
        elif reg.kind in (RegKind.PARAM, RegKind.BUFFER):
            _register_keys(reg, par_keys)

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
        ld = _lead(key, w, _trailing(reg, targets[0], V))
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


def _raw_const(reg) -> np.ndarray:
    n = reg.length
    if reg.value is None:
        raise ExecError(f"constant {reg.name!r} has no value")
    vals = np.array(reg.value, dtype=np.int64).reshape(-1, 4) & 0xFFFFFFFF
    if vals.shape[0] == 1 and n > 1:
        vals = np.broadcast_to(vals, (n, 4))
    return vals.astype(U32)[None]


def _whole(reg, t: _Target, key: str, w: np.ndarray, lanes: int, V: int) -> np.ndarray:
    """The whole register from one value -> (lead, n, 4) ((lead, V, n, 4) per-vertex)."""
    n = reg.length
    tr = _trailing(reg, t, V)
    ld = _lead(key, w, tr)
    arr = _shape(key, w, tr, lanes if ld != 1 else 1)
    if t.mode == "buffer":
        # elements start .. start+n-1 of the buffer; a buffer too small to hold them gives
        # undefined values (GP4 §2.X.3.6) -- project choice: zeros
        rows = arr[:, t.sub:t.sub + n]
        if rows.shape[1] < n:
            pad = np.zeros((rows.shape[0], n - rows.shape[1]) + rows.shape[2:], U32)
            rows = np.concatenate([rows, pad], axis=1)
        arr = rows
    elif reg.size is None:
        arr = arr[:, None] if not reg.per_vertex else arr[:, :, None]
    if _scalar_buffer(reg):
        arr = np.broadcast_to(arr[..., None], arr.shape + (4,))   # a word fills all 4 (Table X.12)
    return np.ascontiguousarray(arr)


def _assemble(reg, given: dict, keys: dict, words: dict, lanes: int, V: int,
              used: bool) -> np.ndarray:
    kind_word = "input" if reg.kind == RegKind.INPUT else "parameter"
    if reg.kind == RegKind.CONST:
        return _raw_const(reg)

    # 1. the whole register by a whole-register key
    for key, targets in keys.items():
        if key not in given:
            continue
        for t in targets:
            if t.reg == reg.name and t.mode in ("whole", "buffer"):
                return _whole(reg, t, key, words[key], lanes, V)

    # 2. element by element
    n = reg.length
    elems: list[np.ndarray | None] = []
    for e in range(n):
        got = None
        for key, targets in keys.items():
            if key not in given:
                continue
            for t in targets:
                if t.reg == reg.name and t.elem == e and t.mode in ("elem", "path", "vertex"):
                    got = _element(reg, t, key, words[key], lanes, V)
                    break
            if got is not None:
                break
        b = reg.bindings[e] if e < len(reg.bindings) else None
        if got is None:
            if b is None and reg.value is not None and reg.kind == RegKind.PARAM:
                vals = np.array(reg.value, dtype=np.int64).reshape(-1, 4) & 0xFFFFFFFF
                got = vals[min(e, len(vals) - 1)].astype(U32)[None]
            elif not used:
                got = np.zeros((1, V, 4) if reg.per_vertex else (1, 4), U32)
            elif reg.kind == RegKind.BUFFER:
                b0 = reg.bindings[0]
                where = (f"program.buffer[{b0.index}]" if reg.size is None or reg.size > 1
                         else b0.text()) if b0 is not None else "?"
                raise ExecError(f"missing parameter {reg.name!r} (BUFFER bound to {where}); "
                                f"pass it as {reg.name!r} or {where!r}")
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
    tr = _trailing(reg, t, V)
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


#: bindings whose values are integers whatever the register's declared type
INTEGER_PATHS = frozenset({"vertex.id", "vertex.instance", "primitive.id", "result.primid",
                           "result.layer", "result.id", "fragment.sampleid",
                           "primitive.verticesin", "primitive.invocation"}) | frozenset({
    # compute system values (exec/compute.py)
    "invocation.localid", "invocation.groupid", "invocation.numgroups", "invocation.groupsize"})


def value_type(reg) -> DataType:
    """The data type a register's values are naturally shown/read in: its declared type, INT
    for integer bindings (``vertex.id``, ``primitive.id``, ``result.layer`` ...), else FLOAT."""
    if reg.dtype in (DataType.INT, DataType.UINT):
        return reg.dtype
    if any(b is not None and b.path in INTEGER_PATHS for b in reg.bindings):
        return DataType.INT
    return DataType.FLOAT


def key_register(program: Program, key: str, params: bool):
    """The register an ``inputs`` (``params=False``) or ``params`` key names, or None."""
    table: dict[str, list[_Target]] = {}
    for reg in program.registers.values():
        if params and reg.kind in (RegKind.PARAM, RegKind.BUFFER):
            _register_keys(reg, table)
        elif not params and reg.kind == RegKind.INPUT:
            _register_keys(reg, table)
    targets = table.get(key)
    return program.registers[targets[0].reg] if targets else None
