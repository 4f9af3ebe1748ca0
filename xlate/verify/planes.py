"""Inputs that are planes: the fragment inputs an interpolation opcode (IR INTERPCENTROID /
INTERPSAMPLE / INTERPOFFSET, TGSI INTERP_*) reads (issue 20).

Every other fragment input of a verify run is fed per pixel from a texture (``capture.
fragment_inputs``): any value in any lane, but no value *between* pixel centres, and GLSL's
``interpolateAt*`` needs a real ``in`` variable.  So an input an INTERP_* reads stays a varying,
and the harness's vertex shader makes it a plane over the framebuffer:
``value(X, Y) = a + b X + c Y`` per component, X and Y in the API's framebuffer coordinates
(GL: window coordinates, y up; Vulkan: y down -- ``capture.quad_layout``'s (x, y) index the
framebuffer in both, so a lane at (x, y) has its centre at (x + 0.5, y + 0.5) either way).

The coefficients are dyadic and small (a: quarters in [-8, 8] plus 2^-11, b and c: sixteenths
in [-1, 1]),
so every value the rasteriser and the executor compute -- at the three vertices of the harness's
full-screen triangle ((0, 0), (2W, 0), (0, 2H)), at pixel centres, at centres plus offsets in
sixteenths -- is exact in float32 whatever order the arithmetic takes; with w = 1 at every
vertex, ``smooth`` (perspective-correct) interpolation is the same plane.  The executor sees the
lane's value at its pixel centre and takes the plane's slopes from its 2x2 quad
(``xlate.exec.interp``): both sides then compute the same point of the same plane, exactly.
"""
from __future__ import annotations

import numpy as np

from ..ir.model import Program, RegKind, Stage

INTERP_OPS = ("INTERPCENTROID", "INTERPSAMPLE", "INTERPOFFSET")


def interpolated_bindings(program: Program) -> set[str]:
    """Binding texts of the fragment inputs some INTERP_* reads."""
    if program.stage != Stage.FRAGMENT:
        return set()
    out = set()
    for ins in program.instructions:
        if ins.op not in INTERP_OPS:
            continue
        s = ins.srcs[0]
        reg = program.registers[s.reg]
        if reg.kind != RegKind.INPUT:
            continue
        if s.index is None or s.index.relative:
            elems = [b for b in reg.bindings if b is not None] if s.index is not None \
                else reg.bindings[:1]
        else:
            elems = [reg.bindings[s.index.offset]]
        out |= {b.text() for b in elems if b is not None}
    return out


def draw_plane(rng: np.random.Generator, constant: bool = False) -> np.ndarray:
    """(3, 4) float32: a, b, c of value = a + b X + c Y, per component (``constant``: b = c = 0,
    for a flat input, which is the provoking vertex's value all over the primitive)."""
    # + 2^-11: no value of the plane at a centre, or a centre plus an offset in sixteenths, is
    # a multiple of 2^-8, so none is a texel boundary or centre of the harness's textures
    # (inputs.py keeps texture coordinates off those: llvmpipe rounds there its own way)
    a = rng.integers(-32, 33, 4) / 4.0 + 2.0 ** -11
    bc = rng.integers(-16, 17, (2, 4)) / 16.0
    if constant:
        bc[:] = 0.0
    return np.vstack([a[None], bc]).astype(np.float32)


def plane_at(coeffs: np.ndarray, X, Y) -> np.ndarray:
    """The plane's value at points (X, Y) (arrays of n): (n, 4) float32 (exact: see above)."""
    c = coeffs.astype(np.float64)
    X = np.asarray(X, np.float64)[:, None]
    Y = np.asarray(Y, np.float64)[:, None]
    return (c[0][None] + c[1][None] * X + c[2][None] * Y).astype(np.float32)


def lane_values(coeffs: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """(lanes, 4) uint32 words: the plane at each lane's pixel centre."""
    return plane_at(coeffs, x + 0.5, y + 0.5).view(np.uint32)


def vertex_values(coeffs: np.ndarray, width: int, height: int) -> np.ndarray:
    """(3, 4) float32: the plane at the harness triangle's vertices (NDC (-1, -1), (3, -1),
    (-1, 3): framebuffer (0, 0), (2W, 0), (0, 2H))."""
    return plane_at(coeffs, [0.0, 2.0 * width, 0.0], [0.0, 0.0, 2.0 * height])


def vertex_shader(header: str, vertex_id: str, varyings, width: int, height: int,
                  depth: str = "0.0") -> str:
    """The harness's full-screen-triangle vertex shader with plane varyings: ``varyings`` is
    [(location, (3, 4) coefficients)]; each output is its plane's value at the vertex, written
    as exact bit patterns."""
    decls, body = [], []
    for loc, coeffs in varyings:
        words = vertex_values(coeffs, width, height).view(np.uint32)
        rows = ", ".join("uvec4(" + ", ".join(f"0x{int(w):08x}u" for w in row) + ")"
                         for row in words)
        decls.append(f"layout(location = {loc}) out vec4 xv_plane{loc};")
        body.append(f"    xv_plane{loc} = uintBitsToFloat(uvec4[3]({rows})[{vertex_id}]);")
    return (f"{header}\n" + "".join(d + "\n" for d in decls) + "void main()\n{\n"
            f"    vec2 p = vec2(float(({vertex_id} & 1) * 4 - 1), "
            f"float(({vertex_id} >> 1) * 4 - 1));\n    gl_Position = vec4(p, {depth}, 1.0);\n"
            + "".join(b + "\n" for b in body) + "}\n")


def plane_inputs(reflection: dict, planes: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Reflection input name -> coefficients, for the inputs the generator drew planes for."""
    out = {}
    for inp in reflection["inputs"]:
        key = inp["binding"]
        c = planes.get(key)
        if c is None and key.endswith("[0]"):
            c = planes.get(key[:-3])
        if c is not None:
            out[inp["name"]] = c
    return out
