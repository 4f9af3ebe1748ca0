"""``xlate run FILE --inputs F [--params F] [--textures F] [--lanes N] [-o OUT]``: run the
original program in the software executor (the arguments are defined in ``xlate/cli.py``).

Exit codes: 0 ran; 1 the program has errors (diagnostics printed as ``xlate convert`` prints
them); 2 unreadable/invalid input, parameter or texture files, inputs that do not fit the
program (unknown name, wrong shape, missing texture ...), or an unwritable output.

**Inputs and parameters** (``--inputs``, ``--params``), keyed like :func:`xlate.exec.execute`
(register name, binding ``vertex.attrib[3]`` / ``program.local[0]``, or a binding path such as
``program.local`` for a whole array):

* ``.json``: an object ``{key: value}``; a value is a number, a list of 4 (shared by every
  lane) or a list of per-lane lists (``[[x, y, z, w], ...]``), nested further for arrays.
  Numbers are read in the register's type: float registers get float32 values, integer
  registers (``INT``/``UINT`` declarations, ``vertex.id`` ...) integers.  Strings give values
  JSON cannot: ``"nan"``, ``"inf"``, ``"-inf"``, and ``"0x3f800000"`` (a raw 32-bit word).
* ``.npz``: one array per key; float arrays are float32 values, integer arrays raw words.

**Textures** (``--textures``), see :class:`xlate.exec.Texture` for the meaning of the fields:

* ``.json``: ``{"0": {"target": "2D", "levels": [level0, level1, ...], "dtype": "float32",
  "filter": "LINEAR_MIPMAP_LINEAR", "mag_filter": "LINEAR", "wrap": "REPEAT" or [s, t, r],
  "border": [r, g, b, a], "compare": "LEQUAL", "base_level": 0, "lod_bias": 0.0,
  "min_lod": -1000, "max_lod": 1000, "seamless": true}, ...}`` -- keys are texture unit
  numbers (``"texture[0]"`` also accepted); each level a nested list shaped as the target
  needs (2D: rows of texels of 1-4 components); ``dtype`` float32 | int32 | uint32.
* ``.npz``: arrays named ``t<unit>.level<k>`` (the levels, their dtype is the format) and
  optional ``t<unit>.<field>`` for the other fields (0-d or 1-d arrays: strings for names,
  numbers for numbers), e.g. ``t0.level0``, ``t0.target``, ``t0.filter``, ``t0.wrap``.

**Output**: without ``-o`` a table per output (the float view; integer outputs also as
integers), the first 32 lanes when there are more than 64; killed fragments and the lanes
stopped by the step limit are listed.  ``-o OUT.npz``: one array per output, keyed by its
binding (``result.color``) or register name -- float32 for float outputs, int32/uint32 for
integer ones -- plus ``killed`` (fragment programs), ``steps_exceeded`` and ``abnormal`` (lanes
whose program terminated abnormally, ``ExecResult.abnormal``); geometry programs add the
emitted vertices as ``vertices.<output>`` with ``vertices.lane``/``vertices.strip``.
``-o OUT.json``: ``{"lanes", "stage", "outputs": {name: {"register", "type", "values",
"words"}}, "killed", "steps_exceeded", "abnormal", "primitives"}`` with non-finite floats as
strings.  Abnormally terminated lanes are listed after the tables.
"""
from __future__ import annotations

import json
import os
import re
import sys

import numpy as np

EXIT_OK, EXIT_ERRORS, EXIT_USAGE = 0, 1, 2
MAX_PRINTED = 64            # print every lane up to this many, else the first PRINT_HEAD
PRINT_HEAD = 32


class InputFileError(Exception):
    """A bad --inputs/--params/--textures file (exit code 2)."""


# ---- reading value files ---------------------------------------------------------------------

def _load_file(path: str, what: str):
    ext = os.path.splitext(path)[1].lower()
    if ext not in (".json", ".npz"):
        raise InputFileError(f"{what} {path}: expected a .json or .npz file")
    try:
        if ext == ".json":
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
            if not isinstance(data, dict):
                raise InputFileError(f"{what} {path}: expected a JSON object "
                                     f"{{name: value}}, got {type(data).__name__}")
            return data
        with np.load(path, allow_pickle=False) as z:
            return {k: z[k] for k in z.files}
    except OSError as e:
        raise InputFileError(f"{what} {path}: cannot read: {e.strerror or e}") from None
    except json.JSONDecodeError as e:
        raise InputFileError(f"{what} {path}: invalid JSON: {e}") from None
    except InputFileError:
        raise
    except Exception as e:  # zipfile.BadZipFile, ValueError (pickled object arrays) ...
        raise InputFileError(f"{what} {path}: not a readable .npz file ({e})") from None


_SPECIAL = {"nan": 0x7FC00000, "+nan": 0x7FC00000, "-nan": 0xFFC00000, "inf": 0x7F800000,
            "+inf": 0x7F800000, "infinity": 0x7F800000, "-inf": 0xFF800000,
            "-infinity": 0xFF800000}


def _json_words(value, integer: bool, where: str) -> np.ndarray:
    """Nested JSON lists -> uint32 words (float32 bits, or two's complement integers)."""
    def word(v):
        if isinstance(v, bool):
            return int(v)
        if isinstance(v, str):
            s = v.strip().lower()
            if s in _SPECIAL:
                return _SPECIAL[s]
            try:
                w = int(s, 16) if s.startswith("0x") else None
            except ValueError:
                w = None
            if w is None or not 0 <= w <= 0xFFFFFFFF:
                raise InputFileError(f"{where}: {v!r} is not a number, nan/inf or a 0x word")
            return w
        if isinstance(v, (int, float)):
            if integer:
                if isinstance(v, float) and not v.is_integer():
                    raise InputFileError(f"{where}: {v!r} is not an integer (the register is "
                                         f"integer-typed)")
                iv = int(v)
                if not -(1 << 31) <= iv <= 0xFFFFFFFF:
                    raise InputFileError(f"{where}: {v!r} does not fit in 32 bits")
                return iv & 0xFFFFFFFF
            with np.errstate(over="ignore"):
                return int(np.array(v, np.float32).view(np.uint32))
        raise InputFileError(f"{where}: unexpected {type(v).__name__} value {v!r}")

    def walk(v):
        if isinstance(v, list):
            return [walk(x) for x in v]
        return word(v)

    try:
        arr = np.array(walk(value), dtype=np.int64)
    except ValueError:
        raise InputFileError(f"{where}: ragged nested lists (every row needs the same "
                             f"length)") from None
    return arr.astype(np.uint32)


def read_values(path: str, program, params: bool) -> dict:
    """--inputs / --params file -> {key: array} for :func:`execute`."""
    from ..ir.model import DataType
    from .bind import key_register, value_type
    what = "--params" if params else "--inputs"
    data = _load_file(path, what)
    out = {}
    for key, value in data.items():
        if isinstance(value, np.ndarray):
            if value.dtype.kind not in "fiub":
                raise InputFileError(f"{what} {path}: {key!r} has unsupported dtype "
                                     f"{value.dtype}")
            out[key] = value
            continue
        reg = key_register(program, key, params)
        integer = reg is not None and value_type(reg) != DataType.FLOAT
        out[key] = _json_words(value, integer, f"{what} {path}: {key!r}")
    return out


# ---- textures ----------------------------------------------------------------------------------

_TEX_FIELDS = ("target", "filter", "mag_filter", "wrap", "border", "compare", "base_level",
               "lod_bias", "min_lod", "max_lod", "seamless")


def _unit_of(key: str, where: str) -> int:
    k = key.strip()
    if k.startswith("texture[") and k.endswith("]"):
        k = k[8:-1]
    if not k.isdigit():
        raise InputFileError(f"{where}: texture key {key!r} is not a unit number")
    return int(k)


def _field(value, name: str, where: str):
    if isinstance(value, np.ndarray):
        if value.dtype.kind == "U":
            value = value.tolist()
        elif value.ndim == 0:
            value = value.item()
        else:
            value = value.tolist()
    if name in ("base_level",):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or int(value) != value:
            raise InputFileError(f"{where}: {name} must be an integer, got {value!r}")
        return int(value)
    if name in ("lod_bias", "min_lod", "max_lod"):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise InputFileError(f"{where}: {name} must be a number, got {value!r}")
        return float(value)
    if name == "seamless":
        return bool(value)
    if name == "wrap":
        if isinstance(value, list):
            return tuple(str(v) for v in value)
        return str(value)
    if name == "border":
        if not isinstance(value, list) or len(value) != 4:
            raise InputFileError(f"{where}: border must be 4 numbers, got {value!r}")
        return tuple(value)
    if value is None and name in ("mag_filter", "compare"):
        return None
    if not isinstance(value, str):
        raise InputFileError(f"{where}: {name} must be a string, got {value!r}")
    return value


def read_textures(path: str) -> dict:
    """--textures file -> {unit: Texture}."""
    from .texture import Texture
    where = f"--textures {path}"
    data = _load_file(path, "--textures")
    specs: dict[int, dict] = {}
    if path.lower().endswith(".npz"):
        for key, arr in data.items():
            head, _, name = key.partition(".")
            if not (head[:1] == "t" and head[1:].isdigit() and name):
                raise InputFileError(f"{where}: array {key!r} is not named t<unit>.level<k> or "
                                     f"t<unit>.<field>")
            spec = specs.setdefault(int(head[1:]), {"levels": {}})
            if name.startswith("level") and name[5:].isdigit():
                spec["levels"][int(name[5:])] = arr
            elif name in _TEX_FIELDS:
                spec[name] = arr
            else:
                raise InputFileError(f"{where}: unknown texture field {key!r} (fields: "
                                     f"level<k>, {', '.join(_TEX_FIELDS)})")
        for unit, spec in specs.items():
            lv = spec["levels"]
            if sorted(lv) != list(range(len(lv))) or not lv:
                raise InputFileError(f"{where}: texture {unit} needs arrays t{unit}.level0 .. "
                                     f"t{unit}.level{{n-1}} without gaps")
            spec["levels"] = [lv[k] for k in range(len(lv))]
    else:
        for key, spec in data.items():
            w = f"{where}: texture {key!r}"
            if not isinstance(spec, dict):
                raise InputFileError(f"{w}: expected an object with 'target' and 'levels'")
            unknown = set(spec) - set(_TEX_FIELDS) - {"levels", "dtype"}
            if unknown:
                raise InputFileError(f"{w}: unknown field(s) {', '.join(sorted(unknown))}")
            levels = spec.get("levels")
            if not isinstance(levels, list) or not levels:
                raise InputFileError(f"{w}: 'levels' must be a non-empty list of texel arrays")
            dtype = spec.get("dtype", "float32")
            if dtype not in ("float32", "int32", "uint32"):
                raise InputFileError(f"{w}: dtype must be float32, int32 or uint32")
            arrays = []
            for k, lv in enumerate(levels):
                try:
                    arrays.append(np.array(lv, dtype=np.float64 if dtype == "float32"
                                           else np.int64).astype(dtype))
                except (ValueError, TypeError):
                    raise InputFileError(f"{w}: level {k} is not a regular nested list of "
                                         f"numbers") from None
            s = dict(spec)
            s["levels"] = arrays
            s.pop("dtype", None)
            specs[_unit_of(key, where)] = s
    out = {}
    for unit, spec in specs.items():
        w = f"{where}: texture {unit}"
        kw = {name: _field(spec[name], name, w) for name in _TEX_FIELDS if name in spec}
        if "target" not in kw:
            raise InputFileError(f"{w}: no 'target'")
        out[unit] = Texture(levels=spec["levels"], **kw)
    return out


# ---- output -----------------------------------------------------------------------------------

def _fmt_float(v) -> str:
    return str(np.float32(v))


def _output_info(program):
    """[(label, register, view type)] in declaration order.  The view type is INT/UINT for
    outputs declared or bound as integers, or written by integer-typed instructions (an
    integer view is printed besides the float view), else FLOAT."""
    from ..ir.model import DataType, RegKind
    from ..ir.ops import OPCODES
    from .bind import value_type
    written: dict[str, set] = {}
    for ins in program.instructions:
        info = OPCODES.get(ins.op)
        if ins.dst is not None and info is not None and info.writes:
            t = ins.dtype if info.allows(ins.dtype) and ins.dtype != DataType.NONE \
                else info.default
            written.setdefault(ins.dst.reg, set()).add(info.result_type(t))
    out = []
    for reg in program.registers.values():
        if reg.kind != RegKind.OUTPUT:
            continue
        b = reg.bindings[0] if reg.bindings else None
        label = reg.name
        if b is not None and reg.size is None and b.text() != reg.name:
            label = f"{reg.name} ({b.text()})"
        t = value_type(reg)
        if t == DataType.FLOAT:
            w = written.get(reg.name, set())
            t = DataType.INT if DataType.INT in w else DataType.UINT if DataType.UINT in w \
                else DataType.FLOAT
        out.append((label, reg, t))
    return out


def _save_key(reg) -> str:
    b = reg.bindings[0] if reg.bindings else None
    if b is not None and reg.size is None:
        return b.text()
    return reg.name


def _typed(words: np.ndarray, t) -> np.ndarray:
    from ..ir.model import DataType
    return words.view({DataType.INT: np.int32, DataType.UINT: np.uint32}.get(t, np.float32))


def _table(title: str, rows: list[tuple[str, list[str]]], head: str = "lane") -> str:
    cols = ["x", "y", "z", "w"]
    width = max([12] + [len(v) for _, vals in rows for v in vals])
    lw = max([len(head)] + [len(lbl) for lbl, _ in rows])
    lines = [title, "  " + head.rjust(lw) + "".join(c.rjust(width + 2) for c in cols)]
    for lbl, vals in rows:
        lines.append("  " + lbl.rjust(lw) + "".join(v.rjust(width + 2) for v in vals))
    return "\n".join(lines)


def print_result(program, result, lanes: int, stream) -> None:
    from ..ir.model import DataType
    shown = lanes if lanes <= MAX_PRINTED else PRINT_HEAD
    more = lanes - shown
    for label, reg, t in _output_info(program):
        words = result.outputs[reg.name]
        views = [("float", words.view(np.float32), _fmt_float)]
        if t != DataType.FLOAT:
            views.append(("int32" if t == DataType.INT else "uint32", _typed(words, t), str))
        for vname, arr, fmt in views:
            rows = []
            for lane in range(shown):
                v = arr[lane]
                if reg.size is None:
                    rows.append((str(lane), [fmt(x) for x in v]))
                else:
                    for e in range(reg.size):
                        rows.append((f"{lane}[{e}]", [fmt(x) for x in v[e]]))
            print(_table(f"{label}  [{vname}]", rows), file=stream)
        if more:
            print(f"  ... {more} more lanes (use -o OUT.npz or OUT.json to save all)",
                  file=stream)
        print(file=stream)
    if result.primitives is not None:
        print_primitives(program, result, shown, stream)
    if result.killed is not None:
        k = np.flatnonzero(result.killed)
        listed = ", ".join(str(i) for i in k[:32]) + (" ..." if len(k) > 32 else "")
        print(f"killed: {len(k)} of {lanes} fragments" + (f" (lanes {listed})" if len(k) else ""),
              file=stream)
    ab = np.flatnonzero(_abnormal(result))
    if len(ab):
        listed = ", ".join(str(i) for i in ab[:32]) + (" ..." if len(ab) > 32 else "")
        print(f"terminated abnormally: {len(ab)} of {lanes} invocations (lanes {listed}); their "
              "outputs hold the values written before", file=stream)
    ex = np.flatnonzero(result.steps_exceeded)
    if len(ex):
        listed = ", ".join(str(i) for i in ex[:32]) + (" ..." if len(ex) > 32 else "")
        print(f"xlate: warning: {len(ex)} lanes stopped by the step limit (lanes {listed})",
              file=sys.stderr)


def _abnormal(result) -> np.ndarray:
    if result.abnormal is None:
        return np.zeros(len(result.steps_exceeded), bool)
    return result.abnormal


def print_primitives(program, result, shown: int, stream) -> None:
    info = _output_info(program)
    print("emitted primitives:", file=stream)
    for lane in range(shown):
        strips = result.primitives[lane]
        print(f"  lane {lane}: {len(strips)} strip(s)", file=stream)
        for s, strip in enumerate(strips):
            for label, reg, t in info:
                rows = []
                for v, vert in enumerate(strip):
                    w = np.asarray(vert[reg.name])
                    vals = w.view(np.float32)
                    if reg.size is None:
                        rows.append((f"{s}.{v}", [_fmt_float(x) for x in vals]))
                    else:
                        for e in range(reg.size):
                            rows.append((f"{s}.{v}[{e}]", [_fmt_float(x) for x in vals[e]]))
                print(_table(f"    {label}", rows, head="strip.vertex"), file=stream)
    print(file=stream)


def _json_float(v: float):
    v = float(v)
    if np.isnan(v):
        return "nan"
    if np.isinf(v):
        return "inf" if v > 0 else "-inf"
    return v


def save_result(path: str, program, result, lanes: int) -> bytes:
    from ..ir.model import DataType
    info = _output_info(program)
    ext = os.path.splitext(path)[1].lower()
    if ext == ".npz":
        import io
        arrays = {}
        for _, reg, t in info:
            arrays[_save_key(reg)] = _typed(result.outputs[reg.name], t)
        if result.killed is not None:
            arrays["killed"] = result.killed
        arrays["steps_exceeded"] = result.steps_exceeded
        arrays["abnormal"] = _abnormal(result)
        if result.primitives is not None:
            lane_ix, strip_ix, verts = [], [], {reg.name: [] for _, reg, _ in info}
            for lane, strips in enumerate(result.primitives):
                for s, strip in enumerate(strips):
                    for vert in strip:
                        lane_ix.append(lane)
                        strip_ix.append(s)
                        for name in verts:
                            verts[name].append(vert[name])
            arrays["vertices.lane"] = np.array(lane_ix, np.int64)
            arrays["vertices.strip"] = np.array(strip_ix, np.int64)
            for _, reg, t in info:
                shape = (0, 4) if reg.size is None else (0, reg.size, 4)
                w = np.array(verts[reg.name], np.uint32) if verts[reg.name] else \
                    np.zeros(shape, np.uint32)
                arrays[f"vertices.{_save_key(reg)}"] = _typed(w, t)
        buf = io.BytesIO()
        np.savez(buf, **arrays)
        return buf.getvalue()
    doc = {"lanes": lanes, "stage": program.stage.value, "outputs": {}}
    for _, reg, t in info:
        words = result.outputs[reg.name]
        vals = _typed(words, t)
        conv = (lambda a: np.vectorize(_json_float, otypes=[object])(a).tolist()) \
            if t == DataType.FLOAT else (lambda a: a.tolist())
        doc["outputs"][_save_key(reg)] = {
            "register": reg.name,
            "type": {DataType.INT: "int", DataType.UINT: "uint"}.get(t, "float"),
            "values": conv(vals), "words": words.tolist()}
    if result.killed is not None:
        doc["killed"] = result.killed.tolist()
    doc["steps_exceeded"] = result.steps_exceeded.tolist()
    doc["abnormal"] = _abnormal(result).tolist()
    if result.primitives is not None:
        prims = []
        for strips in result.primitives:
            lane_strips = []
            for strip in strips:
                lane_strips.append([{_save_key(reg): np.asarray(v[reg.name]).tolist()
                                     for _, reg, _ in info} for v in strip])
            prims.append(lane_strips)
        doc["primitives"] = prims
    text = json.dumps(doc, indent=1)
    # one line per innermost list (a texel, a lane's vector)
    text = re.sub(r"\[\s+([^\[\]{}]*?)\s+\]", lambda m: "[" + " ".join(m.group(1).split()) + "]",
                  text)
    return (text + "\n").encode()


# ---- the command -----------------------------------------------------------------------------

def _read_program(path: str) -> tuple[str | bytes, str]:
    """(source, name): text, or the bytes of a TGSI token stream (xlate.fsio.read_program)."""
    from ..fsio import read_program
    return read_program(path)


def _write_template(program, prefix: str, lanes: int, seed: int, name: str) -> int:
    """``--template PREFIX``: the JSON files of :mod:`xlate.verify.starter`, and the command
    that runs them."""
    from ..fsio import atomic_write
    from ..verify.starter import template_payloads
    files = template_payloads(program, prefix, lanes, seed)
    for path, payload in files.items():
        try:
            atomic_write(path, payload)
        except OSError as e:
            print(f"xlate: error[E8002]: cannot write {path}: {e.strerror}", file=sys.stderr)
            return EXIT_USAGE
    options = " ".join(f"--{path[len(prefix) + 1:-len('.json')]} {path}" for path in files)
    print(f"xlate: wrote {', '.join(files)} ({lanes} lanes, seed {seed}); edit them, then run: "
          f"xlate run {name} {options}", file=sys.stderr)
    return EXIT_OK


def _diagnostics(diags, source) -> None:
    from ..diagnostics import use_color
    color = use_color(sys.stderr)
    if not isinstance(source, str):
        source = None                # a binary token stream has no lines to show
    for d in diags:
        print(d.render(source, color), file=sys.stderr)


def main(args) -> int:
    """Run ``xlate run`` for an argparse namespace (file, inputs, params, textures, lanes,
    output)."""
    from ..diagnostics import XlateError
    from .api import execute
    from .bind import ExecError
    from ..fsio import SourceTooLarge
    try:
        text, name = _read_program(args.file)
    except OSError as e:
        print(f"xlate: error[E8001]: cannot read {args.file}: {e.strerror}", file=sys.stderr)
        return EXIT_USAGE
    except SourceTooLarge as e:
        _diagnostics([e.diagnostic], None)
        return EXIT_ERRORS
    from ..api import parse
    try:
        program = parse(text, filename=name)
    except XlateError as e:
        _diagnostics(e.diagnostics, text)
        return EXIT_ERRORS
    _diagnostics(program.diagnostics, text)
    from ..fsio import output_folder_problem
    from ..verify.starter import DEFAULT_LANES, RANDOM, draw
    out = getattr(args, "output", None)
    if out not in (None, "-") and os.path.splitext(out)[1].lower() not in (".npz", ".json"):
        print(f"xlate: error: -o {out}: the output must be a .npz or .json file",
              file=sys.stderr)
        return EXIT_USAGE
    lanes = args.lanes
    if lanes is not None and lanes < 1:
        print(f"xlate: error: --lanes must be at least 1, got {lanes}", file=sys.stderr)
        return EXIT_USAGE
    for path in (out if out != "-" else None, args.template and args.template + ".inputs.json"):
        why = output_folder_problem(path) if path else None
        if why:
            print(f"xlate: error[E8002]: cannot write {path}: {why}", file=sys.stderr)
            return EXIT_USAGE
    seed = getattr(args, "seed", 1)
    if args.template:
        return _write_template(program, args.template, lanes or DEFAULT_LANES, seed, args.file)
    # 'random' for the inputs draws the parameters and textures not given as well
    random_inputs = args.inputs == RANDOM
    random_params = args.params == RANDOM or (random_inputs and args.params is None)
    random_textures = args.textures == RANDOM or (random_inputs and args.textures is None)
    drawn = ({}, {}, {})
    if random_inputs or random_params or random_textures:
        drawn = draw(program, lanes or DEFAULT_LANES, seed)
        if random_inputs:
            lanes = lanes or DEFAULT_LANES
    try:
        inputs = drawn[0] if random_inputs else \
            read_values(args.inputs, program, False) if args.inputs else {}
        params = drawn[1] if random_params else \
            read_values(args.params, program, True) if args.params else {}
        textures = drawn[2] if random_textures else \
            read_textures(args.textures) if args.textures else {}
    except InputFileError as e:
        print(f"xlate: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    try:
        result = execute(program, inputs, lanes=lanes, params=params, textures=textures)
    except ExecError as e:
        hint = ""
        if str(e).startswith("missing"):
            hint = (f"; 'xlate run {args.file} --template PREFIX' writes every input, "
                    "parameter and texture the program needs, '--inputs random' draws them")
        print(f"xlate: error: {e}{hint}", file=sys.stderr)
        return EXIT_USAGE
    total = len(result.steps_exceeded)
    if out in (None, "-"):
        print_result(program, result, total, sys.stdout)
        return EXIT_OK
    from ..fsio import atomic_write
    payload = save_result(out, program, result, total)
    try:
        atomic_write(out, payload)
    except OSError as e:
        print(f"xlate: error[E8002]: cannot write {out}: {e.strerror}", file=sys.stderr)
        return EXIT_USAGE
    ex = int(result.steps_exceeded.sum())
    if ex:
        print(f"xlate: warning: {ex} lanes stopped by the step limit", file=sys.stderr)
    return EXIT_OK
