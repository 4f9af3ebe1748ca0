"""``xlate verify --backend native``: the ``state.*`` parameters of the program under test,
set in the GL and read back through the driver.

Why read back (:mod:`native`'s docstring, "Parameters"): derived state (mvp, inverses, light
products, fog.params.w) is the driver's own arithmetic, not the program's, so the executor is
given the words the driver's probe programs read, not the generated ones.  A binding the probe
cannot load is ``unsupported`` (:class:`HarnessLimit`), named.
"""
from __future__ import annotations

import ctypes as C
import re

import numpy as np

from . import glapi as G
from .native import MAX_TARGETS, Refused, Runner
from .native_text import HarnessLimit

GL_MATRIX0_ARB = 0x88C0
GL_FOG_DENSITY, GL_FOG_START, GL_FOG_END, GL_FOG_COLOR = 0x0B62, 0x0B63, 0x0B64, 0x0B66
GL_LIGHT0 = 0x4000
GL_AMBIENT, GL_DIFFUSE, GL_SPECULAR, GL_POSITION = 0x1200, 0x1201, 0x1202, 0x1203
GL_EMISSION, GL_SHININESS = 0x1600, 0x1601
GL_FRONT, GL_BACK = 0x0404, 0x0405
GL_LIGHT_MODEL_AMBIENT = 0x0B53

_MATRIX = re.compile(r"^state\.matrix\.(\w+)(?:\[(\d+)\])?(?:\.(inverse|transpose|invtrans))?"
                     r"\.row\[(\d+)\]$")
_MATRIX_MODE = {"modelview": G.GL_MODELVIEW, "projection": G.GL_PROJECTION,
                "texture": G.GL_TEXTURE, "program": GL_MATRIX0_ARB}


def _base_matrices(params: dict[str, np.ndarray]) -> dict[tuple[str, int], np.ndarray]:
    """(matrix, index) -> 4x4 rows to load, from the generated rows of its plain or transposed
    bindings (inverse forms are left to the driver: the probe reads what it computes).  A
    program reading mvp but neither modelview[0] nor projection gets mvp as modelview."""
    out: dict[tuple[str, int], np.ndarray] = {}
    names = set()
    for key, words in params.items():
        m = _MATRIX.match(key)
        if m is None:
            continue
        name, idx, mod, row = m.group(1), int(m.group(2) or 0), m.group(3), int(m.group(4))
        names.add(name)
        if mod in ("inverse", "invtrans"):
            continue
        mat = out.setdefault((name, idx), np.eye(4, dtype=np.float32))
        v = np.asarray(words, np.uint32).view(np.float32)
        if mod == "transpose":
            mat[:, row] = v
        else:
            mat[row] = v
    mvp = out.pop(("mvp", 0), None)
    if mvp is not None and not names & {"modelview", "projection"}:
        out[("modelview", 0)] = mvp
    return out


def _colour_state(gl, params: dict[str, np.ndarray]) -> None:
    """Light, material, light-model and fog colours from the generated words (the GL refuses
    some values -- negative fog density, shininess beyond 128: those keep their defaults)."""
    for key, words in params.items():
        v = (C.c_float * 4)(*np.asarray(words, np.uint32).view(np.float32).tolist())
        m = re.match(r"^state\.light\[(\d+)\]\.(ambient|diffuse|specular)$", key)
        if m:
            gl.Lightfv(GL_LIGHT0 + int(m.group(1)), {"ambient": GL_AMBIENT, "diffuse": GL_DIFFUSE,
                                                     "specular": GL_SPECULAR}[m.group(2)], v)
            continue
        m = re.match(r"^state\.material(?:\.(front|back))?\.(ambient|diffuse|specular|emission)$",
                     key)
        if m:
            gl.Materialfv(GL_BACK if m.group(1) == "back" else GL_FRONT,
                          {"ambient": GL_AMBIENT, "diffuse": GL_DIFFUSE, "specular": GL_SPECULAR,
                           "emission": GL_EMISSION}[m.group(2)], v)
        elif key == "state.lightmodel.ambient":
            gl.LightModelfv(GL_LIGHT_MODEL_AMBIENT, v)
        elif key == "state.fog.color":
            gl.Fogfv(GL_FOG_COLOR, v)
        elif key == "state.fog.params":
            gl.Fogf(GL_FOG_DENSITY, v[0])
            gl.Fogf(GL_FOG_START, v[1])
            gl.Fogf(GL_FOG_END, v[2])
    while gl.GetError() != G.GL_NO_ERROR:
        pass


def set_state(runner: Runner, params: dict[str, np.ndarray]) -> None:
    """Put the generated state.* values into the GL where it has a plain setter."""
    gl = runner.gl
    gl.use()
    for mode in (G.GL_MODELVIEW, G.GL_PROJECTION):
        gl.MatrixMode(mode)
        gl.LoadIdentity()
    _colour_state(gl, params)            # light positions would be transformed: identity now
    for (name, idx), rows in _base_matrices(params).items():
        mode = _MATRIX_MODE.get(name)
        if mode is None:
            continue
        if name == "texture":
            gl.ActiveTexture(G.GL_TEXTURE0 + idx)
        gl.MatrixMode(mode + idx if name == "program" else mode)
        col_major = np.ascontiguousarray(rows.T, np.float32)
        gl.LoadMatrixf(col_major.ctypes.data_as(C.c_void_p))
    gl.ActiveTexture(G.GL_TEXTURE0)
    gl.MatrixMode(G.GL_MODELVIEW)
    while gl.GetError() != G.GL_NO_ERROR:
        pass


def read_state(runner: Runner, stage: str, keys: list[str]) -> dict[str, np.ndarray]:
    """The driver's words for state bindings, read by probe programs of ``stage`` (7 or 8
    bindings a probe).  :class:`HarnessLimit` naming a binding the driver refuses."""
    out: dict[str, np.ndarray] = {}
    per = MAX_TARGETS - 1 if stage == "vertex" else MAX_TARGETS   # a texcoord for the position
    for k in range(0, len(keys), per):
        group = keys[k:k + per]
        try:
            out.update(_probe(runner, stage, group))
        except Refused:
            for key in group:                    # find the binding it refuses
                try:
                    out.update(_probe(runner, stage, [key]))
                except Refused as e:
                    raise HarnessLimit(f"state binding {key}: the driver refuses a probe "
                                       f"reading it ({e})") from None
    return out


def _probe(runner: Runner, stage: str, keys: list[str]) -> dict[str, np.ndarray]:
    if stage == "vertex":
        outs = [f"result.texcoord[{j}]" for j in range(len(keys))]
        text = "\n".join(["!!ARBvp1.0"] + [f"MOV {o}, {key};" for o, key in zip(outs, keys)]
                         + ["END", ""])
        got = runner.run_vertex(text, 1, {}, {}, outs)
        return {key: got[o][0].copy() for o, key in zip(outs, keys)}
    outs = ["result.color" if j == 0 else f"result.color[{j}]" for j in range(len(keys))]
    text = "\n".join(["!!ARBfp1.0", "OPTION ARB_draw_buffers;"]
                     + [f"MOV result.color[{j}], {key};" for j, key in enumerate(keys)]
                     + ["END", ""])
    cap = runner.run_fragment(text, 4, {}, {}, outs)
    return {key: cap.outputs[o][0].copy() for o, key in zip(outs, keys)}
