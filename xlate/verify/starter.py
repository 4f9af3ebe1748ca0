"""Values a user can start from: ``xlate run FILE --inputs random`` and ``--template PREFIX``.

A program's inputs, parameters and textures are drawn by the generator ``xlate verify`` uses
(:func:`xlate.verify.inputs.generate`, :func:`xlate.verify.textures.generate_textures`), from
``--seed``, with finite values only (``finite=True``: no NaN/Inf, magnitudes within 1e6 --
``xlate verify`` also draws edge values; a starting point should read like ordinary data).
Built-in inputs get the values the verify harness gives them: ``fragment.position`` is the
pixel of each lane in 2x2 quads (in the program's ``ARB_fragment_coord_*`` conventions),
``vertex.id`` counts lanes.

``--template PREFIX`` writes what was drawn as the JSON files ``xlate run`` reads --
``PREFIX.inputs.json``, ``PREFIX.params.json`` and ``PREFIX.textures.json``, the last two only
when the program has parameters / samples textures -- so that every key the program needs is
there to edit, instead of one "missing input" error per run.
"""
from __future__ import annotations

import json
import math
import re

import numpy as np

from ..ir.model import DataType, Program, Stage

RANDOM = "random"          # --inputs/--params/--textures random
DEFAULT_LANES = 4          # one 2x2 quad: fragment derivatives have their neighbours


def draw(program: Program, lanes: int, seed: int):
    """(inputs, params, textures) for :func:`xlate.exec.execute`, drawn from ``seed``:
    inputs and parameters as raw uint32 words keyed by binding, textures by unit."""
    from .analysis import analyse
    from .draw_run import builtin_values_for, fragment_xy, pixel_centre
    from .inputs import generate
    from .textures import generate_textures
    frag_xy = fragment_xy(program, lanes) if program.stage == Stage.FRAGMENT else None
    facts = analyse(program)
    gen = generate(program, facts, lanes, seed, finite=True,
                   builtin_values=builtin_values_for(program.stage, lanes, frag_xy,
                                                     pixel_centre(program)))
    textures = generate_textures(program, seed) if facts.uses_textures else {}
    return dict(gen.inputs), gen.exec_params(program), textures


# ---- the template files -------------------------------------------------------------------------
def _number(word: int, integer: bool):
    """One uint32 word as the JSON ``xlate run`` reads back to the same word."""
    if integer:
        return int(np.array(word, np.uint32).view(np.int32))
    f = float(np.array(word, np.uint32).view(np.float32))
    if math.isnan(f) or math.isinf(f):
        return str(f)                    # "nan", "inf", "-inf": read_values takes these
    # the shortest decimal that reads back as this float32
    return float(np.format_float_positional(np.float32(f), unique=True, trim="0"))


def _values(words: np.ndarray, integer: bool):
    return [_values(w, integer) for w in words] if words.ndim > 1 else \
        [_number(int(w), integer) for w in words]


def _integer_key(program: Program, key: str, params: bool) -> bool:
    from ..exec.bind import key_register, value_type
    reg = key_register(program, key, params)
    return reg is not None and value_type(reg) != DataType.FLOAT


def template_documents(program: Program, lanes: int, seed: int) -> dict[str, dict]:
    """{"inputs": {...}, "params": {...}, "textures": {...}}: JSON objects in the formats of
    ``--inputs``/``--params``/``--textures`` (xlate/exec/cli.py), filled with :func:`draw`'s
    values; empty objects for what the program does not have."""
    inputs, params, textures = draw(program, lanes, seed)
    docs: dict[str, dict] = {"inputs": {}, "params": {}, "textures": {}}
    for key in sorted(inputs):
        docs["inputs"][key] = _values(np.asarray(inputs[key]), _integer_key(program, key, False))
    for key in sorted(params):
        docs["params"][key] = _values(np.asarray(params[key]), _integer_key(program, key, True))
    for unit in sorted(textures):
        t = textures[unit]
        lv0 = np.asarray(t.levels[0])
        dtype = {"f": "float32", "i": "int32", "u": "uint32"}[lv0.dtype.kind]
        levels = [np.asarray(lv).tolist() for lv in t.levels]
        if dtype == "float32":          # float32 texels, shortest form
            levels = [_values(np.asarray(lv, np.float32).view(np.uint32), False)
                      for lv in t.levels]
        doc = {"target": t.target, "dtype": dtype, "levels": levels, "filter": t.filter,
               "mag_filter": t.mag_filter, "wrap": list(t.wrap_modes()),
               "border": [_number(int(np.array(b, np.float32).view(np.uint32)), False)
                          if dtype == "float32" else int(b) for b in t.border]}
        if t.compare and t.compare != "LEQUAL":
            doc["compare"] = t.compare
        docs["textures"][str(unit)] = doc
    return docs


def template_payloads(program: Program, prefix: str, lanes: int, seed: int) -> dict[str, bytes]:
    """file name -> bytes of the template files (inputs always; params and textures when the
    program has any)."""
    docs = template_documents(program, lanes, seed)
    out = {}
    for what in ("inputs", "params", "textures"):
        if what == "inputs" or docs[what]:
            out[f"{prefix}.{what}.json"] = (_json_text(docs[what]) + "\n").encode()
    return out


def _json_text(doc) -> str:
    """Indented JSON with every list of plain values on one line (a vec4 per line)."""
    text = json.dumps(doc, indent=1)
    return re.sub(r"\[\s*([^\[\]{}]*?)\s*\]",
                  lambda m: "[" + re.sub(r",\s+", ", ", m.group(1)) + "]", text)
