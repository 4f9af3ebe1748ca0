"""Spec test vectors: at least one input -> output vector per opcode of ``xlate.ir.ops.OPCODES``,
each citing the section of the specification that defines the result.

``test_every_opcode_has_a_spec_vector`` fails when an opcode (a new row in the opcode table
included) has no vector here, or a vector cites no section.  Sections: GP4 =
NV_gpu_program4 §2.X.8.Z <opcode> (every NV4 opcode has one), GL = OpenGL 4.5 core (texture
sampling rules the GP4 texture section delegates to).  Integer words are written as Python
ints, float results as floats; NaN matches NaN, otherwise results match bit for bit.
"""
from __future__ import annotations

import math
import re
import struct
from dataclasses import dataclass, field

import numpy as np
import pytest

from test_exec_helpers import bits_equal, build
from xlate.exec import Texture, execute
from xlate.ir.model import Geometry
from xlate.ir.ops import OPCODES


@dataclass
class V:
    op: str
    cite: str
    code: str
    inputs: dict
    expect: dict                    # output -> values; "killed" / "strips" special
    t: str = "f"                    # view of the expected values: f (float32) s (int32) u (uint32)
    stage: str = "vertex"
    textures: dict = field(default_factory=dict)
    entry: str | None = None


def w(v: float) -> int:
    return struct.unpack("<I", struct.pack("<f", v))[0]


def fl(*v):
    return np.array(v, np.float32)


def ints(*v):
    return np.array(v, np.int64)


INF, NAN = float("inf"), float("nan")
GP4 = "GP4 §2.X.8.Z "

# textures shared by the texture vectors
T2 = Texture([np.array([[[1, 1, 1, 1], [2, 2, 2, 2]], [[3, 3, 3, 3], [4, 4, 4, 4]]], np.float32)],
             "2D")                                          # texel (i, j) = 1 + i + 2 j
MIP = Texture([np.full((4, 4, 4), 0, np.float32), np.full((2, 2, 4), 10, np.float32),
               np.full((1, 1, 4), 20, np.float32)], "2D", filter="NEAREST_MIPMAP_NEAREST")
# cube array of two layers: layer-face 6 l + f holds 10 (6 l + f) on level 0, 1000 + 6 l + f on 1
CUBE_ARRAY = Texture([np.repeat(np.arange(12, dtype=np.float32) * 10, 16).reshape(12, 2, 2, 4),
                      np.repeat(np.arange(12, dtype=np.float32) + 1000, 4).reshape(12, 1, 1, 4)],
                     "ARRAYCUBE", filter="NEAREST_MIPMAP_NEAREST")
CUBE_ARRAY_DEPTH = Texture([np.full((12, 1, 1, 1), 0.5, np.float32)], "ARRAYCUBE")
# 2x2 texels of 4 samples: sample s of texel (i, j) = 100 s + i + 2 j
MS = Texture([(100 * np.arange(4)[:, None, None] + np.arange(2)[None, None, :]
               + 2 * np.arange(2)[None, :, None]).astype(np.float32)[..., None]
              * np.ones(4, np.float32)], "2DMS")
QUAD = np.array([[0.1, 0.1, 0, 1], [0.35, 0.1, 0, 1], [0.1, 0.35, 0, 1], [0.35, 0.35, 0, 1]],
                np.float32)                                 # d/dx = d/dy = 1 texel of 4x4

VECTORS: list[V] = [
    # ---- arithmetic
    V("ABS", GP4 + "ABS", "ABS o, a", {"a": fl(-1.5, 2, -0.0, -INF)}, {"o": [1.5, 2, 0, INF]}),
    V("ABS", GP4 + "ABS (|INT_MIN| = INT_MIN, issue 22)", "ABS.S o, a",
      {"a": ints(-5, 5, -2 ** 31, 0)}, {"o": [5, 5, -2 ** 31, 0]}, t="s"),
    V("ADD", GP4 + "ADD", "ADD o, a, b", {"a": fl(1, 2, INF, 4), "b": fl(0.5, -2, 1, -INF)},
      {"o": [1.5, 0, INF, -INF]}),
    V("ADD", GP4 + "ADD (integers wrap)", "ADD.S o, a, b",
      {"a": ints(2 ** 31 - 1, -1, 5, 0), "b": ints(1, -1, -7, 0)},
      {"o": [-2 ** 31, -2, -2, 0]}, t="s"),
    V("SUB", GP4 + "SUB", "SUB o, a, b", {"a": fl(5, 5, 5, 5), "b": fl(1, 2, 3, 4)},
      {"o": [4, 3, 2, 1]}),
    V("MUL", GP4 + "MUL", "MUL o, a, b", {"a": fl(2, -3, 0.5, 0), "b": fl(4, 2, 8, INF)},
      {"o": [8, -6, 4, NAN]}),
    V("MAD", GP4 + "MAD", "MAD o, a, b, c",
      {"a": fl(1, 2, 3, 4), "b": fl(2, 2, 2, 2), "c": fl(1, 1, 1, 1)}, {"o": [3, 5, 7, 9]}),
    V("DIV", GP4 + "DIV", "DIV o, a, b.x", {"a": fl(1, 2, -3, 0), "b": fl(2, 9, 9, 9)},
      {"o": [0.5, 1, -1.5, 0]}),
    # "a / b" is IEEE's: by +-0 the signed infinity, 0/0 NaN (passes/zerodivisors.py prints
    # a literal zero divisor as a product by that infinity)
    V("DIV", GP4 + "DIV (by zero: IEEE)", "DIV o, a, b.x", {"a": fl(2, -3, 0, INF),
                                                             "b": fl(0, 9, 9, 9)},
      {"o": [INF, -INF, NAN, INF]}),
    V("DIV", GP4 + "DIV (by -0: IEEE)", "DIV o, a, b.x", {"a": fl(2, -3, 0, -INF),
                                                           "b": fl(-0.0, 9, 9, 9)},
      {"o": [-INF, INF, NAN, INF]}),
    V("MOD", GP4 + "MOD", "MOD.S o, a, b.x", {"a": ints(7, -7, 9, 5), "b": ints(3, 0, 0, 0)},
      {"o": [1, -1, 0, 2]}, t="s"),
    V("SAD", GP4 + "SAD", "SAD.S o, a, b, c",
      {"a": ints(5, -3, 0, 10), "b": ints(2, 4, 0, 12), "c": ints(1, 1, 1, 1)},
      {"o": [4, 8, 1, 3]}, t="u"),
    V("MIN", GP4 + "MIN", "MIN o, a, b", {"a": fl(1, 5, -3, 0), "b": fl(2, 4, -4, 7)},
      {"o": [1, 4, -4, 0]}),
    V("MAX", GP4 + "MAX", "MAX o, a, b", {"a": fl(1, 5, -3, 0), "b": fl(2, 4, -4, 7)},
      {"o": [2, 5, -3, 7]}),
    V("CMP", GP4 + "CMP", "CMP o, a, b, c",
      {"a": fl(-1, 0, 1, -2), "b": fl(1, 2, 3, 4), "c": fl(5, 6, 7, 8)}, {"o": [1, 6, 7, 4]}),
    V("LRP", GP4 + "LRP", "LRP o, a, b, c",
      {"a": fl(0.25, 1, 0, 0.5), "b": fl(4, 4, 4, 4), "c": fl(8, 8, 8, 8)}, {"o": [7, 4, 8, 6]}),
    V("MOV", GP4 + "MOV", "MOV o, a.wzyx", {"a": fl(1, 2, 3, 4)}, {"o": [4, 3, 2, 1]}),
    V("SWZ", GP4 + "SWZ", "SWZ o, a, w, -x, 0, 1", {"a": fl(1, 2, 3, 4)}, {"o": [4, -1, 0, 1]}),
    V("SSG", GP4 + "SSG", "SSG o, a", {"a": fl(-2, 0, 3, 5)}, {"o": [-1, 0, 1, 1]}),
    # ---- rounding and conversion
    V("CEIL", GP4 + "CEIL", "CEIL o, a", {"a": fl(1.2, -1.2, -0.5, 3)}, {"o": [2, -1, -0.0, 3]}),
    V("FLR", GP4 + "FLR", "FLR o, a", {"a": fl(1.5, -1.5, 2, -0.0)}, {"o": [1, -2, 2, -0.0]}),
    V("FLR", GP4 + "FLR (.S result)", "FLR.S o, a", {"a": fl(1.5, -1.5, 2, -0.0)},
      {"o": [1, -2, 2, 0]}, t="s"),
    V("FRC", GP4 + "FRC", "FRC o, a", {"a": fl(1.25, -1.25, 3, 0)}, {"o": [0.25, 0.75, 0, 0]}),
    V("ROUND", GP4 + "ROUND", "ROUND o, a", {"a": fl(1.5, 2.5, -1.5, 0.4)}, {"o": [2, 2, -2, 0]}),
    V("TRUNC", GP4 + "TRUNC", "TRUNC o, a", {"a": fl(1.7, -1.7, 0.2, -0.2)},
      {"o": [1, -1, 0, -0.0]}),
    V("I2F", GP4 + "I2F", "I2F o, a", {"a": ints(-3, 7, 0, 2 ** 24 + 1)},
      {"o": [-3, 7, 0, 2 ** 24]}),
    # ---- dot products and vector operations
    V("DP2", GP4 + "DP2", "DP2 o, a, b", {"a": fl(1, 2, 3, 4), "b": fl(5, 6, 7, 8)}, {"o": [17] * 4}),
    V("DP2A", GP4 + "DP2A", "DP2A o, a, b, c",
      {"a": fl(1, 2, 3, 4), "b": fl(5, 6, 7, 8), "c": fl(100, 0, 0, 0)}, {"o": [117] * 4}),
    V("DP3", GP4 + "DP3", "DP3 o, a, b", {"a": fl(1, 2, 3, 4), "b": fl(5, 6, 7, 8)}, {"o": [38] * 4}),
    V("DP4", GP4 + "DP4", "DP4 o, a, b", {"a": fl(1, 2, 3, 4), "b": fl(5, 6, 7, 8)}, {"o": [70] * 4}),
    V("DPH", GP4 + "DPH", "DPH o, a, b", {"a": fl(1, 2, 3, 4), "b": fl(5, 6, 7, 8)}, {"o": [46] * 4}),
    V("DST", GP4 + "DST", "DST o, a, b", {"a": fl(0, 2, 3, 0), "b": fl(0, 5, 0, 7)},
      {"o": [1, 10, 3, 7]}),
    V("XPD", GP4 + "XPD", "XPD o.xyz, a, b", {"a": fl(1, 0, 0, 9), "b": fl(0, 1, 0, 9)},
      {"o": [0, 0, 1, 0]}),
    V("NRM", GP4 + "NRM", "NRM o.xyz, a", {"a": fl(0, 0, 2, 9)}, {"o": [0, 0, 1, 0]}),
    V("RFL", GP4 + "RFL", "RFL o.xyz, a, b", {"a": fl(0, 0, 1, 0), "b": fl(1, 0, 1, 0)},
      {"o": [-1, 0, 1, 0]}),
    V("X2D", GP4 + "X2D", "X2D o, a, b, c",
      {"a": fl(1, 2, 0, 0), "b": fl(3, 4, 0, 0), "c": fl(1, 2, 3, 4)}, {"o": [12, 27, 12, 27]}),
    V("LIT", GP4 + "LIT", "LIT o, a", {"a": fl(0.5, 0.5, 0, 2)}, {"o": [1, 0.5, 0.25, 1]}),
    # ---- scalar functions (result replicated)
    V("RCP", GP4 + "RCP", "RCP o, a.x", {"a": fl(4, 0, 0, 0)}, {"o": [0.25] * 4}),
    V("RCC", GP4 + "RCC", "RCC o, a.x", {"a": fl(0, 0, 0, 0)}, {"o": [2.0 ** 64] * 4}),
    # VP2 2.14.3.25 / GP4 RCC: a reciprocal > 0 is clamped to [2^-64, 2^64], one <= 0 to
    # [-2^64, -2^-64]; the special cases 1-9 listed there (rule 7's bound read as -2^64).
    # Exact reciprocals only here (the approximation bound: test_rcc_sin_cos_scs_within_...)
    V("RCC", "VP2 §2.14.3.25 RCC (clamped ranges, special cases 1-9)", "RCC o, a.x",
      {"a": np.array([[v, 0, 0, 0] for v in (
          2, -4, 2.0 ** 70, -2.0 ** 70, 2.0 ** -70, -2.0 ** -70, INF, -INF, -0.0, NAN,
          2.0 ** 64, 2.0 ** -64)], np.float32)},
      {"o": [[r] * 4 for r in (
          0.5, -0.25, 2.0 ** -64, -2.0 ** -64, 2.0 ** 64, -2.0 ** 64, 2.0 ** -64, -2.0 ** -64,
          -2.0 ** 64, NAN, 2.0 ** -64, 2.0 ** 64)]}),
    V("RSQ", GP4 + "RSQ", "RSQ o, a.x", {"a": fl(4, 0, 0, 0)}, {"o": [0.5] * 4}),
    V("EX2", GP4 + "EX2", "EX2 o, a.x", {"a": fl(3, 0, 0, 0)}, {"o": [8] * 4}),
    V("LG2", GP4 + "LG2", "LG2 o, a.x", {"a": fl(8, 0, 0, 0)}, {"o": [3] * 4}),
    V("POW", GP4 + "POW", "POW o, a.x, b.x", {"a": fl(2, 0, 0, 0), "b": fl(3, 0, 0, 0)},
      {"o": [8] * 4}),
    V("SIN", GP4 + "SIN", "SIN o, a.x", {"a": fl(0, 0, 0, 0)}, {"o": [0] * 4}),
    V("SIN", "VP2 §2.14.3.33 SIN (special cases: NaN, +/-INF -> NaN; +/-0 -> +/-0)",
      "SIN o, a.x", {"a": np.array([[v, 0, 0, 0] for v in (NAN, INF, -INF, -0.0)], np.float32)},
      {"o": [[r] * 4 for r in (NAN, NAN, NAN, -0.0)]}),
    V("COS", GP4 + "COS", "COS o, a.x", {"a": fl(0, 0, 0, 0)}, {"o": [1] * 4}),
    V("COS", "VP2 §2.14.3.8 COS (special cases: NaN, +/-INF -> NaN; +/-0 -> 1)",
      "COS o, a.x", {"a": np.array([[v, 0, 0, 0] for v in (NAN, INF, -INF, -0.0)], np.float32)},
      {"o": [[r] * 4 for r in (NAN, NAN, NAN, 1)]}),
    V("SCS", GP4 + "SCS", "SCS o.xy, a.x", {"a": fl(0, 0, 0, 0)}, {"o": [1, 0, 0, 0]}),
    # ---- set-on
    V("SEQ", GP4 + "SEQ", "SEQ o, a, b", {"a": fl(1, 2, 3, 4), "b": fl(1, 0, 3, 0)}, {"o": [1, 0, 1, 0]}),
    V("SNE", GP4 + "SNE", "SNE o, a, b", {"a": fl(1, 2, 3, 4), "b": fl(2, 2, 2, 2)}, {"o": [1, 0, 1, 1]}),
    V("SLT", GP4 + "SLT", "SLT o, a, b", {"a": fl(1, 2, 3, 4), "b": fl(2, 2, 2, 2)}, {"o": [1, 0, 0, 0]}),
    V("SLE", GP4 + "SLE", "SLE o, a, b", {"a": fl(1, 2, 3, 4), "b": fl(2, 2, 2, 2)}, {"o": [1, 1, 0, 0]}),
    V("SGT", GP4 + "SGT", "SGT o, a, b", {"a": fl(1, 2, 3, 4), "b": fl(2, 2, 2, 2)}, {"o": [0, 0, 1, 1]}),
    V("SGE", GP4 + "SGE", "SGE o, a, b", {"a": fl(1, 2, 3, 4), "b": fl(2, 2, 2, 2)}, {"o": [0, 1, 1, 1]}),
    V("SGE", GP4 + "SGE (.S TRUE = -1)", "SGE.S o, a, b",
      {"a": ints(1, 2, 3, 4), "b": ints(2, 2, 2, 2)}, {"o": [0, -1, -1, -1]}, t="s"),
    V("SFL", GP4 + "SFL", "SFL o, a, b", {"a": fl(1, 2, 3, 4), "b": fl(2, 2, 2, 2)}, {"o": [0, 0, 0, 0]}),
    V("STR", GP4 + "STR", "STR o, a, b", {"a": fl(1, 2, 3, 4), "b": fl(2, 2, 2, 2)}, {"o": [1, 1, 1, 1]}),
    # ---- bitwise
    V("AND", GP4 + "AND", "AND.S o, a, b", {"a": ints(0xF0F0, -1, 0, 5), "b": ints(0x0FF0, 7, -1, 3)},
      {"o": [0xF0, 7, 0, 1]}, t="s"),
    V("OR", GP4 + "OR", "OR.S o, a, b", {"a": ints(0xF0, 1, 0, -1), "b": ints(0x0F, 2, 0, 0)},
      {"o": [0xFF, 3, 0, -1]}, t="s"),
    V("XOR", GP4 + "XOR", "XOR.S o, a, b", {"a": ints(0xFF, 1, -1, 0), "b": ints(0x0F, 1, 0, 5)},
      {"o": [0xF0, 0, -1, 5]}, t="s"),
    V("NOT", GP4 + "NOT", "NOT.S o, a", {"a": ints(0, -1, 5, 0x7FFFFFFF)},
      {"o": [-1, 0, -6, -2 ** 31]}, t="s"),
    V("SHL", GP4 + "SHL", "SHL.S o, a, b.x", {"a": ints(1, -1, 3, 5), "b": ints(4, 0, 0, 0)},
      {"o": [16, -16, 48, 80]}, t="s"),
    V("SHR", GP4 + "SHR (.S arithmetic)", "SHR.S o, a, b.x",
      {"a": ints(-16, 16, 7, -1), "b": ints(2, 0, 0, 0)}, {"o": [-4, 4, 1, -1]}, t="s"),
    V("SHR", GP4 + "SHR (.U logical)", "SHR.U o, a, b.x",
      {"a": ints(0xFFFFFFF0, 16, 7, 1), "b": ints(4, 0, 0, 0)},
      {"o": [0x0FFFFFFF, 1, 0, 0]}, t="u"),
    # ---- pack / unpack (the packed word replicated)
    V("PK2H", GP4 + "PK2H", "PK2H o, a", {"a": fl(1, -2, 0, 0)}, {"o": [0xC0003C00] * 4}, t="u"),
    V("PK2US", GP4 + "PK2US", "PK2US o, a", {"a": fl(1, 0, 0, 0)}, {"o": [0x0000FFFF] * 4}, t="u"),
    V("PK4B", GP4 + "PK4B", "PK4B o, a", {"a": fl(1, -1, 0, 0)}, {"o": [0x808001FF] * 4}, t="u"),
    V("PK4UB", GP4 + "PK4UB", "PK4UB o, a", {"a": fl(1, 0, 1, 0)}, {"o": [0x00FF00FF] * 4}, t="u"),
    V("UP2H", GP4 + "UP2H", "UP2H o, a.x", {"a": ints(0xC0003C00, 0, 0, 0)}, {"o": [1, -2, 1, -2]}),
    V("UP2US", GP4 + "UP2US", "UP2US o, a.x", {"a": ints(0x0000FFFF, 0, 0, 0)}, {"o": [1, 0, 1, 0]}),
    V("UP4B", GP4 + "UP4B", "UP4B o, a.x", {"a": ints(0x808001FF, 0, 0, 0)}, {"o": [1, -1, 0, 0]}),
    V("UP4UB", GP4 + "UP4UB", "UP4UB o, a.x", {"a": ints(0x00FF00FF, 0, 0, 0)}, {"o": [1, 0, 1, 0]}),
    # ---- derivatives (fragment quads: lanes x0y0, x1y0, x0y1, x1y1)
    V("DDX", GP4 + "DDX", "DDX o, a",
      {"a": np.array([[0, 0, 0, 0], [1, 2, 3, 4], [10, 20, 30, 40], [11, 22, 33, 44]], np.float32)},
      {"o": [[1, 2, 3, 4]] * 4}, stage="fragment"),
    V("DDY", GP4 + "DDY", "DDY o, a",
      {"a": np.array([[0, 0, 0, 0], [1, 2, 3, 4], [10, 20, 30, 40], [11, 22, 33, 44]], np.float32)},
      {"o": [[10, 20, 30, 40]] * 4}, stage="fragment"),
    # ---- textures (GP4 §2.X.4.4 TextureSample / TexelFetch; GL 4.5 §8.14 sampling)
    V("TEX", GP4 + "TEX; GL §8.14.2 nearest texel", "TEX o, a, texture[0], 2D",
      {"a": fl(0.75, 0.25, 0, 0)}, {"o": [2, 2, 2, 2]}, textures={0: T2}),
    V("TXP", GP4 + "TXP (x, y, z / w)", "TXP o, a, texture[0], 2D",
      {"a": fl(1.5, 1.5, 0, 2)}, {"o": [4, 4, 4, 4]}, textures={0: T2}),
    V("TXL", GP4 + "TXL; GL §8.14.3 mipmap level", "TXL o, a, texture[0], 2D",
      {"a": fl(0.5, 0.5, 0, 1.6)}, {"o": [20] * 4}, textures={0: MIP}),
    V("TXB", GP4 + "TXB; GL §8.14.1 implicit lambda + bias", "TXB o, a, texture[0], 2D",
      {"a": QUAD}, {"o": [[10] * 4] * 4}, stage="fragment", textures={0: MIP}),
    V("TEX", GP4 + "TEX; GL §8.14.1 implicit lambda from quads", "TEX o, a, texture[0], 2D",
      {"a": QUAD * np.float32([2, 2, 1, 1])}, {"o": [[10] * 4] * 4}, stage="fragment",
      textures={0: MIP}),
    V("TXD", GP4 + "TXD; GL §8.14.1 lambda from partials", "TXD o, a, b, c, texture[0], 2D",
      {"a": fl(0.5, 0.5, 0, 0), "b": fl(1.0, 0, 0, 0), "c": fl(0, 0.25, 0, 0)},
      {"o": [20] * 4}, textures={0: MIP}),
    V("TXF", GP4 + "TXF (TexelFetch, Table X.18)", "TXF o, a, texture[0], 2D",
      {"a": ints(1, 1, 0, 0)}, {"o": [4, 4, 4, 4]}, textures={0: T2}),
    V("TXQ", GP4 + "TXQ", "TXQ o, a, texture[0], 2D", {"a": ints(1, 0, 0, 0)},
      {"o": [2, 2, 0, 0]}, t="s", textures={0: MIP}),
    # ---- kill, geometry
    V("KIL", GP4 + "KIL", "KIL a",
      {"a": np.array([[1, 1, -1, 1], [1, 1, 1, 1], [0, -0.0, 0, 0], [NAN, 0, 0, 0]], np.float32)},
      {"killed": [True, False, False, False]}, stage="fragment"),
    V("EMIT", GP4 + "EMIT", "MOV o, 1\nEMIT\nMOV o, 2\nEMIT\nEMIT", {}, {"strips": [[3]]},
      stage="geometry"),
    V("ENDPRIM", GP4 + "ENDPRIM", "MOV o, 1\nEMIT\nENDPRIM\nENDPRIM\nEMIT\nEMIT", {},
      {"strips": [[1, 2]]}, stage="geometry"),
    # ---- control flow
    V("IF", GP4 + "IF", "MOV o, 0\nMOV.CC R0, a\nIF GT.x\nMOV o, 1\nENDIF",
      {"a": np.array([[1, 0, 0, 0], [-1, 0, 0, 0]], np.float32)}, {"o": [[1] * 4, [0] * 4]}),
    V("ELSE", GP4 + "ELSE", "MOV.CC R0, a\nIF GT.x\nMOV o, 1\nELSE\nMOV o, 2\nENDIF",
      {"a": np.array([[1, 0, 0, 0], [-1, 0, 0, 0]], np.float32)}, {"o": [[1] * 4, [2] * 4]}),
    V("ENDIF", GP4 + "ENDIF", "MOV.CC R0, a\nIF LT.x\nMOV o, 1\nENDIF\nADD o, o, 10",
      {"a": np.array([[1, 0, 0, 0], [-1, 0, 0, 0]], np.float32)}, {"o": [[10] * 4, [11] * 4]}),
    V("REP", GP4 + "REP (count = floor(x))", "MOV o, 0\nREP a.x\nADD o, o, 1\nENDREP",
      {"a": np.array([[2.9, 0, 0, 0], [-1, 0, 0, 0]], np.float32)}, {"o": [[2] * 4, [0] * 4]}),
    V("ENDREP", GP4 + "ENDREP", "MOV o, 0\nREP 3\nADD o.x, o.x, 1\nENDREP\nADD o.y, o.x, 1",
      {}, {"o": [3, 4, 0, 0]}),
    V("BRK", GP4 + "BRK", "MOV o, 0\nREP 10\nADD.CC o, o, -2\nBRK (LT.x)\nENDREP",
      {}, {"o": [-2, -2, -2, -2]}),
    # R1.x counts 1, 0, -1, -2: CONT is taken on the first two passes (GE), skipping the ADD,
    # so o = 2.  Without the CONT (or with CONT never taken) o would be 4 -- checked: deleting
    # "CONT (GE.x)" from the code makes this vector fail.
    V("CONT", GP4 + "CONT",
      "MOV o, 0\nMOV R1, 2\nREP 4\nADD.CC R1, R1, -1\nCONT (GE.x)\nADD o, o, 1\nENDREP",
      {}, {"o": [2, 2, 2, 2]}),
    V("CAL", GP4 + "CAL", "main:\nMOV o, 1\nCAL f\nADD o, o, 10\nRET\nf:\nADD o, o, 100\nRET",
      {}, {"o": [111] * 4}, entry="main"),
    # ---- opcodes of the older vertex dialects (xlate.ir.ops.LEGACY_OPCODES)
    V("MINN", "VP2 §2.14.3.22 MIN (min(NaN, x) == NaN)", "MINN o, a, b",
      {"a": fl(1, NAN, -1, 2), "b": fl(2, 0, NAN, -3)}, {"o": [1, NAN, NAN, -3]}),
    V("MAXN", "VP2 §2.14.3.21 MAX (max(NaN, x) == NaN)", "MAXN o, a, b",
      {"a": fl(1, NAN, -1, 2), "b": fl(2, 0, NAN, -3)}, {"o": [2, NAN, NAN, 2]}),
    V("SEQN", "VP2 §2.14.3.29 SEQ (NaN operand: NaN; -0 == +0)", "SEQN o, a, b",
      {"a": fl(1, NAN, -0.0, 2), "b": fl(1, 1, 0, 3)}, {"o": [1, NAN, 1, 0]}),
    V("SGEN", "VP2 §2.14.3.31 SGE", "SGEN o, a, b",
      {"a": fl(1, NAN, -0.0, 2), "b": fl(1, 1, 0, 3)}, {"o": [1, NAN, 1, 0]}),
    V("SGTN", "VP2 §2.14.3.32 SGT", "SGTN o, a, b",
      {"a": fl(1, NAN, -0.0, 4), "b": fl(1, 1, 0, 3)}, {"o": [0, NAN, 0, 1]}),
    V("SLEN", "VP2 §2.14.3.34 SLE", "SLEN o, a, b",
      {"a": fl(1, 1, -0.0, 4), "b": fl(1, NAN, 0, 3)}, {"o": [1, NAN, 1, 0]}),
    V("SLTN", "VP2 §2.14.3.35 SLT", "SLTN o, a, b",
      {"a": fl(1, 1, -0.0, 2), "b": fl(1, NAN, 0, 3)}, {"o": [0, NAN, 0, 1]}),
    V("SNEN", "VP2 §2.14.3.36 SNE (SNE(-0, +0) = 0: IEEE, digest 12 item 18)", "SNEN o, a, b",
      {"a": fl(1, NAN, -0.0, 2), "b": fl(1, 1, 0, 3)}, {"o": [0, NAN, 0, 1]}),
    V("SGET", "VP1 §2.14.1.11 SGE (-0 < +0, -NaN < -INF, +NaN > +INF)", "SGET o, a, b",
      {"a": fl(-0.0, -NAN, NAN, 1), "b": fl(0.0, -INF, INF, 1)}, {"o": [0, 0, 1, 1]}),
    V("SLTT", "VP1 §2.14.1.11 SLT (the same total order)", "SLTT o, a, b",
      {"a": fl(-0.0, -NAN, NAN, 1), "b": fl(0.0, -INF, INF, 1)}, {"o": [1, 1, 0, 0]}),
    V("SSGN", "VP2 §2.14.3.37 SSG (SetSign(NaN) = NaN)", "SSGN o, a",
      {"a": fl(NAN, -0.0, -3, 5)}, {"o": [NAN, 0, -1, 1]}),
    V("EXPA", "VP2 §2.14.3.14 EXP", "EXPA o, a.x", {"a": fl(3, 0, 0, 0)}, {"o": [8, 0, 8, 1]}),
    # ARBvp/VP2/TGSI: the pseudo-code without VP1's exceptions (IR EXPA/LOGA): y = t - floor(t)
    # is NaN for an infinite t, the fraction otherwise, also when 2^floor(t) underflows
    V("EXPA", "ARBVP §2.14.5.9 EXP (y = t - floor(t) even on underflow; NaN for INF)",
      "EXPA o, a.x\nEXPA o.xy, a.y", {"a": fl(-INF, -200.5, 0, 0)}, {"o": [0, 0.5, 0, 1]}),
    V("LOGA", "ARBVP §2.14.5.14 LOG (y = |t| / 2^floor(log2 |t|): NaN for 0 and INF)",
      "LOGA o, a.x\nLOGA o.xz, a.y\nLOGA o.w, a.z", {"a": fl(-0.0, -8, INF, 0)},
      {"o": [3, NAN, 3, 1]}),
    V("LOGA", "VP2 §2.14.3.19 LOG (of |x|: exponent, mantissa, log2, 1)", "LOGA o, a.x",
      {"a": fl(INF, 0, 0, 0)}, {"o": [INF, NAN, INF, 1]}),
    V("EXP", "VP1 §2.14.1.10.15 EXP (EXP(-Inf) = (0,0,0,1), overflow = (+Inf,0,+Inf,1))",
      "EXP o, a.x\nEXP o.xy, a.y", {"a": fl(-INF, 200, 0, 0)}, {"o": [INF, 0, 0, 1]}),
    V("LOG", "VP1 §2.14.1.10.16 LOG (of |x|: exponent, mantissa, log2, 1)", "LOG o, a.x",
      {"a": fl(-8, 0, 0, 0)}, {"o": [3, 1, 3, 1]}),
    V("LOG", "VP1 §2.14.1.10.16 LOG (LOG(0) = (-Inf, 1, -Inf, 1))", "LOG o, a.y",
      {"a": fl(1, -0.0, 0, 0)}, {"o": [-INF, 1, -INF, 1]}),
    V("BRA", "VP2 §2.14.3.6 BRA (taken if any swizzled test passes)",
      "MOV.CC R0, a\nMOV o, 1\nBRA skip (GT.x)\nMOV o, 2\nskip:\nADD o, o, 10",
      {"a": np.array([[1, 0, 0, 0], [-1, 0, 0, 0]], np.float32)}, {"o": [[11] * 4, [12] * 4]}),
    V("PUSHA", "VP3 §2.14.5.44 PUSHA (and POPA restores the pushed vector)",
      "MOV.S A, {3, 1, -2, 7}\nPUSHA.S A\nMOV.S A, 0\nPOPA.S A\nMOV.S o, A",
      {}, {"o": [3, 1, -2, 7]}, t="s"),
    V("POPA", "VP3 §2.14.5.43 POPA (empty call stack: the program terminates)",
      "MOV o, 1\nPOPA.S A\nMOV o, 2", {}, {"o": [1, 1, 1, 1]}),
    V("RET", GP4 + "RET (in main: ends the program)",
      "main:\nMOV.CC R0, a\nMOV o, 1\nRET (GT.x)\nMOV o, 2\nRET",
      {"a": np.array([[1, 0, 0, 0], [-1, 0, 0, 0]], np.float32)}, {"o": [[1] * 4, [2] * 4]},
      entry="main"),
]

CITATION = re.compile(r"^(GP4 §2\.X\.8\.Z [A-Z0-9]+|GL 4\.5 §[0-9.]+|"
                      r"(VP1|VP2|VP3|ARBVP) §2\.14\.[0-9.]+ [A-Z0-9]+)")


def test_every_opcode_has_a_spec_vector():
    covered = {v.op for v in VECTORS}
    missing = sorted(set(OPCODES) - covered)
    assert not missing, f"opcodes without a spec test vector: {missing}"
    unknown = sorted(covered - set(OPCODES))
    assert not unknown, f"vectors for opcodes not in the table: {unknown}"
    for v in VECTORS:
        assert CITATION.match(v.cite), f"{v.op}: the vector does not cite a section ({v.cite!r})"
        assert v.op in v.code.split() or v.op in re.split(r"[\s.]", v.code), \
            f"{v.op}: the vector's code does not use the opcode"


_IN = {"a": 0, "b": 1, "c": 2, "d": 3}


def _run(v: V):
    prefix = {"vertex": "vertex", "fragment": "fragment", "geometry": "vertex"}[v.stage]
    kind = "texcoord" if v.stage == "fragment" else "attrib"
    inputs = {k: f"{prefix}.{kind}[{_IN[k]}]" for k in v.inputs}
    geometry = Geometry("POINTS", "TRIANGLE_STRIP", 8) if v.stage == "geometry" else None
    p = build(v.code, stage=v.stage, inputs=inputs, geometry=geometry, entry=v.entry,
              outputs={"o": "result.color"})
    return execute(p, v.inputs, textures=v.textures)


@pytest.mark.parametrize("v", VECTORS, ids=[f"{v.op}-{i}" for i, v in enumerate(VECTORS)])
def test_spec_vector(v: V):
    r = _run(v)
    for name, want in v.expect.items():
        if name == "killed":
            assert r.killed.tolist() == want, v.cite
            continue
        if name == "strips":
            assert [[len(s) for s in lane] for lane in r.primitives] == want, v.cite
            continue
        got = r.words(name)
        want = np.asarray(want)
        if want.ndim == 1:
            want = np.broadcast_to(want, got.shape)
        if v.t == "f":
            assert bits_equal(got.view(np.float32), want.astype(np.float32)), \
                f"{v.cite}: got {got.view(np.float32).tolist()}, want {want.tolist()}"
        else:
            wt = (np.asarray(want, np.int64) & 0xFFFFFFFF).astype(np.uint32)
            assert np.array_equal(got, wt), f"{v.cite}: got {got.tolist()}, want {wt.tolist()}"


# ---- the approximation bounds (VP2 §2.14.3.8/.25/.33, FP1 §3.11.5.2/.32: "accurate to at
# least 22 bits"): |result - f(x)| < 2^-22, f computed here with math (double precision), for
# COS/SIN on [0, 2*PI), RCC on [1, 2); SCS (GP4 §2.X.8.Z SCS, no reduction) on [-PI, PI], x the
# cosine, y the sine, z/w undefined and not compared.
BOUND = 2.0 ** -22
ANGLES = [0.001, 0.5, 1.0, 1.5707964, 2.0, 3.1415927, 4.0, 4.712389, 5.5, 6.2831]
SCS_ANGLES = [-3.1415925, -2.5, -1.0, -0.001, 0.25, 1.0, 2.0, 3.1415925]
RCC_ARGS = [1.0, 1.1, 1.25, 1.3333334, 1.5, 1.7, 1.9999999]


def _scalar(op: str, values: list[float], mask: str = "") -> np.ndarray:
    p = build(f"{op} o{mask}, a.x", inputs={"a": "vertex.attrib[0]"},
              outputs={"o": "result.color"})
    a = np.zeros((len(values), 4), np.float32)
    a[:, 0] = values
    return execute(p, {"a": a}).words("o").view(np.float32).astype(np.float64), a[:, 0]


@pytest.mark.parametrize("op, f, args", [("SIN", math.sin, ANGLES), ("COS", math.cos, ANGLES),
                                         ("RCC", lambda x: 1.0 / x, RCC_ARGS)])
def test_scalar_approximation_within_the_spec_bound(op, f, args):
    got, x = _scalar(op, args)
    want = np.array([f(float(v)) for v in x])      # of the float32 operand actually loaded
    err = np.abs(got - want[:, None])
    assert (err < BOUND).all(), f"{op}: {[(float(v), g.tolist()) for v, g in zip(x, got)]}"


def test_scs_within_the_spec_bound():
    got, x = _scalar("SCS", SCS_ANGLES, ".xy")
    want = np.array([[math.cos(float(v)), math.sin(float(v))] for v in x])
    assert (np.abs(got[:, :2] - want) < BOUND).all(), (x.tolist(), got[:, :2].tolist())


# ---- FP1.0 (issue 5 part A, fragment dialects: xlate/frontends/nv/fp1.py) ------------------------
FP1_VECTORS = [
    V("LITNC", "FP1 §3.11.5.13 LIT (no exponent clamp; ApproxPower with the POW rules: 0^0 = NaN)",
      "LITNC o, a", {"a": np.array([[1, 0, 0, 0], [0.5, 2, 0, 3], [1, 2, 0, 200], [-1, 2, 0, 1]],
                                   np.float32)},
      {"o": [[1, 1, NAN, 1], [1, 0.5, 8, 1], [1, 1, INF, 1], [1, 0, 0, 1]]}),
]
VECTORS = VECTORS + FP1_VECTORS     # a new list: test_spec_vector keeps its own parameters
CITATION = re.compile(CITATION.pattern + r"|^FP1 §3\.11\.5\.[0-9]+ [A-Z0-9]+")


@pytest.mark.parametrize("v", FP1_VECTORS, ids=[f"{v.op}-fp1-{i}" for i, v in enumerate(FP1_VECTORS)])
def test_fp1_spec_vector(v: V):
    test_spec_vector(v)


# ---- TGSI (issue 6: xlate.ir.ops._TGSI_ROWS; semantics from Mesa's tgsi.rst, tgsi.md section 2) --
TGSI_VECTORS = [
    V("SQRT", "TGSI tgsi.rst SQRT (replicated; sqrt(-0) = -0, sqrt(<0) = NaN)", "SQRT o, a.y",
      {"a": np.array([[0, 16, 0, 0], [0, -0.0, 0, 0], [0, -1, 0, 0]], np.float32)},
      {"o": [[4] * 4, [-0.0] * 4, [NAN] * 4]}),
    V("MINNUM", "TGSI tgsi.rst MIN (fminf: the non-NaN operand)", "MINNUM o, a, b",
      {"a": fl(1, NAN, -1, NAN), "b": fl(2, 0, NAN, NAN)}, {"o": [1, 0, -1, NAN]}),
    V("MAXNUM", "TGSI tgsi.rst MAX (fmaxf: the non-NaN operand)", "MAXNUM o, a, b",
      {"a": fl(1, NAN, -1, NAN), "b": fl(2, 0, NAN, NAN)}, {"o": [2, 0, -1, NAN]}),
    V("FSEQ", "TGSI tgsi.rst FSEQ (~0 / 0; NaN -> 0; -0 == +0)", "FSEQ o, a, b",
      {"a": fl(1, NAN, -0.0, 2), "b": fl(1, NAN, 0, 3)}, {"o": [-1, 0, -1, 0]}, t="u"),
    V("FSNE", "TGSI tgsi.rst FSNE (unordered: NaN -> ~0)", "FSNE o, a, b",
      {"a": fl(1, NAN, -0.0, 2), "b": fl(1, NAN, 0, 3)}, {"o": [0, -1, 0, -1]}, t="u"),
    V("FSLT", "TGSI tgsi.rst FSLT", "FSLT o, a, b",
      {"a": fl(1, NAN, -1, 2), "b": fl(2, 0, -1, 3)}, {"o": [-1, 0, 0, -1]}, t="u"),
    V("FSGE", "TGSI tgsi.rst FSGE", "FSGE o, a, b",
      {"a": fl(1, NAN, -1, 2), "b": fl(2, 0, -1, 3)}, {"o": [0, 0, -1, 0]}, t="u"),
    V("ISSG", "TGSI tgsi.rst ISSG", "ISSG.S o, a", {"a": ints(-7, 0, 5, -2147483648)},
      {"o": [-1, 0, 1, -1]}, t="s"),
    V("UCMP", "TGSI tgsi.rst UCMP (src0 tested as bits: -0.0 selects src1)", "UCMP o, a, b, c",
      {"a": fl(0, -0.0, 1, NAN), "b": fl(1, 2, 3, 4), "c": fl(5, 6, 7, 8)}, {"o": [5, 2, 3, 4]}),
    V("SWITCH", "TGSI tgsi.rst SWITCH (first matching CASE, fall through to BRK; DEFAULT anywhere)",
      "TRUNC.U R0, a\nMOV o, 0\nSWITCH.U R0.x\nCASE.U 1\nADD o, o, 1\nDEFAULT\nADD o, o, 10\nBRK\n"
      "CASE.U 2\nADD o, o, 100\nENDSWITCH",
      {"a": np.array([[1, 0, 0, 0], [2, 0, 0, 0], [7, 0, 0, 0]], np.float32)},
      {"o": [[11] * 4, [100] * 4, [10] * 4]}),
    V("CASE", "TGSI tgsi.rst CASE (several labels on one body; no match and no DEFAULT: skipped)",
      "TRUNC.U R0, a\nMOV o, 0\nSWITCH.U R0.x\nCASE.U 3\nCASE.U 4\nADD o, o, 1\nBRK\nENDSWITCH",
      {"a": np.array([[3, 0, 0, 0], [4, 0, 0, 0], [5, 0, 0, 0]], np.float32)},
      {"o": [[1] * 4, [1] * 4, [0] * 4]}),
    V("DEFAULT", "TGSI tgsi.rst DEFAULT (BRK in a switch inside a loop leaves only the switch)",
      "MOV o, 0\nREP 3\nSWITCH.U R0.x\nDEFAULT\nADD o, o, 1\nBRK\nENDSWITCH\nADD o, o, 10\nENDREP",
      {}, {"o": [33] * 4}),
    V("ENDSWITCH", "TGSI tgsi.rst ENDSWITCH (CONT inside a switch continues the loop)",
      "MOV o, 0\nREP 2\nSWITCH.U R0.x\nCASE.U 0\nADD o, o, 1\nCONT\nENDSWITCH\nADD o, o, 10\nENDREP",
      {}, {"o": [2] * 4}),
]
# ---- TGSI opcode groups of issue 20 (IR rows FMA .. UP4SNORM) ------------------------------------
A12 = 1 + 2.0 ** -12          # A12 * A12 = 1 + 2^-11 + 2^-24, halfway between two floats
TGSI_VECTORS += [
    V("FMA", "TGSI tgsi.rst FMA (rounded once: halfway product + tiny addend rounds up; the "
      "cancellation keeps 2^-24)", "FMA o, a, b, c",
      {"a": fl(A12, A12, A12, 2), "b": fl(A12, A12, A12, 3),
       "c": fl(2.0 ** -80, -(2.0 ** -80), -(1 + 2.0 ** -11), 0.5)},
      {"o": [1 + 2.0 ** -11 + 2.0 ** -23, 1 + 2.0 ** -11, 2.0 ** -24, 6.5]}),
    V("LDEXP", "TGSI tgsi.rst LDEXP (exact scaling; underflow rounds, overflow is INF)",
      "LDEXP o, a, b",
      {"a": fl(1.5, 1.0, 1.0, 0.99999994), "b": ints(3, -149, 128, -126)},
      {"o": [12.0, 2.0 ** -149, INF, 2.0 ** -126]}),
    V("DEMOTE", "TGSI tgsi.rst DEMOTE (outputs discarded, execution goes on)",
      "MOV o, 1\nDEMOTE\nMOV o, 2", {}, {"killed": [True], "o": [2, 2, 2, 2]},
      stage="fragment"),
    V("READHELPER", "TGSI tgsi.rst READ_HELPER (~0 once demoted)",
      "READHELPER.U R0\nDEMOTE\nREADHELPER.U R1\nXOR.U o, R0, R1",
      {}, {"o": [-1, -1, -1, -1]}, t="u", stage="fragment"),
    V("BFEXT", "TGSI tgsi.rst IBFE (sign-extends; width 0 gives 0; a window past bit 31 is "
      "clipped)", "BFEXT.S o, a, b, c",
      {"a": ints(0xF0F08421, 0xF0F08421, 0xF0F08421, 0xF0F08421), "b": ints(4, 0, 28, 31),
       "c": ints(8, 0, 8, 1)}, {"o": [0x42, 0, -1, -1]}, t="s"),
    V("BFINS", "TGSI tgsi.rst BFI (bits 32 at offset 0 insert everything; width 0 nothing)",
      "BFINS.U o, a, b, c, d",
      {"a": ints(0x12345678, 0x12345678, 0x12345678, 0x12345678),
       "b": ints(0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF), "c": ints(4, 0, 0, 28),
       "d": ints(8, 0, 32, 8)}, {"o": [0x12345FF8, 0x12345678, 0xFFFFFFFF, 0xF2345678]}, t="u"),
    V("BREV", "TGSI tgsi.rst BREV", "BREV.U o, a", {"a": ints(0, 1, 0x80000000, 0xF00)},
      {"o": [0, 0x80000000, 1, 0x00F00000]}, t="u"),
    V("POPC", "TGSI tgsi.rst POPC", "POPC.U o, a", {"a": ints(0, 0xFFFFFFFF, 1, 0xF00)},
      {"o": [0, 32, 1, 4]}, t="u"),
    V("LSB", "TGSI tgsi.rst LSB (-1 for 0)", "LSB.U o, a", {"a": ints(0, 0xFFFFFFFF, 0x80000000, 0xF00)},
      {"o": [-1, 0, 31, 8]}, t="s"),
    V("MSB", "TGSI tgsi.rst IMSB (-1 for 0 and -1; the highest bit unlike the sign)", "MSB.S o, a",
      {"a": ints(0, -1, 1, -2147483648)}, {"o": [-1, -1, 0, 30]}, t="s"),
    V("PK4SNORM", "TGSI tgsi.rst PK4B (two's-complement snorm8, ties to even, NaN 0)",
      "PK4SNORM.U o, a", {"a": fl(-1, 1, 0.5 / 127, 1.5 / 127)}, {"o": [0x02007F81] * 4}, t="u"),
    V("UP4SNORM", "TGSI tgsi.rst UP4B (the inverse of PK4B; -128 gives -1)", "UP4SNORM.U o, a.x",
      {"a": ints(0x80817F00, 0, 0, 0)}, {"o": [0.0, 1.0, -1.0, -1.0]}),
]
# ---- fragment, clock and inter-lane opcodes of issue 20 (xlate/exec/interp.py, subgroup.py) ----
# a plane over one quad: x rises 0.5 a pixel to the right, y 1 a pixel up
PLANE = np.array([[1, 2, 0, 0], [1.5, 2, 0, 0], [1, 3, 0, 0], [1.5, 3, 0, 0]], np.float32)
LANES4 = np.array([[0, 7, 1, 10], [0, 7, 0, 11], [5, 7, 1, 12], [0, 7, 1, 13]], np.uint32)
TGSI_VECTORS += [
    V("INTERPOFFSET", "TGSI tgsi.rst INTERP_OFFSET (the plane through the quad, at the centre + "
      "(0.25, -0.5))", "INTERPOFFSET o, a, b", {"a": PLANE, "b": fl(0.25, -0.5, 0, 0)},
      {"o": [[1.125, 1.5, 0, 0], [1.625, 1.5, 0, 0], [1.125, 2.5, 0, 0], [1.625, 2.5, 0, 0]]},
      stage="fragment"),
    V("INTERPCENTROID", "TGSI tgsi.rst INTERP_CENTROID (single-sampled: the pixel centre)",
      "INTERPCENTROID o, a", {"a": PLANE}, {"o": PLANE.tolist()}, stage="fragment"),
    V("INTERPSAMPLE", "TGSI tgsi.rst INTERP_SAMPLE (single-sampled: any sample is the centre)",
      "INTERPSAMPLE o, a, b.x", {"a": PLANE, "b": ints(3, 0, 0, 0)}, {"o": PLANE.tolist()},
      stage="fragment"),
    V("CLOCK", "TGSI tgsi.rst CLOCK (the executor's stand-in: the lane's count of reads)",
      "CLOCK.U R0\nCLOCK.U o", {}, {"o": [2, 0, 0, 0]}, t="u"),
    V("VOTEANY", "TGSI tgsi.rst VOTE_ANY (one subgroup of the 4 lanes)", "VOTEANY.U o, a.x",
      {"a": LANES4}, {"o": [[0xFFFFFFFF] * 4] * 4}, t="u"),
    V("VOTEALL", "TGSI tgsi.rst VOTE_ALL", "VOTEALL.U o, a.x", {"a": LANES4}, {"o": [[0] * 4] * 4},
      t="u"),
    V("VOTEEQ", "TGSI tgsi.rst VOTE_EQ", "VOTEEQ.U o, a.y", {"a": LANES4},
      {"o": [[0xFFFFFFFF] * 4] * 4}, t="u"),
    V("BALLOT", "TGSI tgsi.rst BALLOT (bit i: invocation i; z, w 0)", "BALLOT.U o, a.z",
      {"a": LANES4}, {"o": [[0b1101, 0, 0, 0]] * 4}, t="u"),
    V("READFIRST", "TGSI tgsi.rst READ_FIRST", "READFIRST.U o, a", {"a": LANES4},
      {"o": [LANES4[0].tolist()] * 4}, t="u"),
    V("READINVOC", "TGSI tgsi.rst READ_INVOC (invocation 2 of the subgroup)", "READINVOC.U o, a, b.x",
      {"a": LANES4, "b": ints(2, 0, 0, 0)}, {"o": [LANES4[2].tolist()] * 4}, t="u"),
]
VECTORS = VECTORS + TGSI_VECTORS
CITATION = re.compile(CITATION.pattern + r"|^TGSI tgsi\.rst [A-Z0-9_]+")


@pytest.mark.parametrize("v", TGSI_VECTORS, ids=[f"{v.op}-tgsi-{i}" for i, v in enumerate(TGSI_VECTORS)])
def test_tgsi_spec_vector(v: V):
    test_spec_vector(v)


# ---- TGSI doubles, 64-bit integers, gather and the level count (issue 20) ------------------------
# Words: a double / 64-bit integer in xy and one in zw, low word first (tgsi.rst "Double ISA",
# "64-bit Integer ISA"); expected words computed with Python floats (IEEE doubles) and ints.
def dw(*vals) -> list[int]:
    return [x for v in vals for x in struct.unpack("<II", struct.pack("<d", v))]


def qw(*vals) -> list[int]:
    return [x for v in vals for x in ((v & 0xFFFFFFFF), (v >> 32) & 0xFFFFFFFF)]


def _dvec(op, cite, n, args, expect, code=None):
    names = "abc"[:n]
    code = code or f"{op}.U o, {', '.join(names)}"
    return V(op, "TGSI tgsi.rst " + op + " " + cite, code,
             {k: ints(*a) for k, a in zip(names, args)}, {"o": expect}, t="u")


_T, _F = 0xFFFFFFFF, 0
_M = (1 << 64) - 1
_SPEC64 = [
    _dvec("DADD", "(IEEE double)", 2, [dw(0.1, 1.0), dw(0.2, -1.0)], dw(0.1 + 0.2, 0.0)),
    _dvec("DMUL", "", 2, [dw(0.1, 3.0), dw(3.0, -0.5)], dw(0.1 * 3.0, -1.5)),
    _dvec("DDIV", "", 2, [dw(1.0, 1.0), dw(3.0, 0.0)], dw(1 / 3.0, INF)),
    _dvec("DMAD", "(two roundings)", 3, [dw(1 + 2.0 ** -30, 2.0), dw(1 - 2.0 ** -30, 3.0),
                                         dw(-1.0, 1.0)], dw(0.0, 7.0)),
    _dvec("DFMA", "(one rounding)", 3, [dw(1 + 2.0 ** -30, 2.0), dw(1 - 2.0 ** -30, 3.0),
                                        dw(-1.0, 1.0)], dw(-(2.0 ** -60), 7.0)),
    _dvec("DMIN", "(the non-NaN operand)", 2, [dw(NAN, 1.0), dw(2.0, -1.0)], dw(2.0, -1.0)),
    _dvec("DMAX", "(the non-NaN operand)", 2, [dw(NAN, 1.0), dw(2.0, -1.0)], dw(2.0, 1.0)),
    _dvec("DSEQ", "(~0/0 in x and z)", 2, [dw(1.0, NAN), dw(1.0, NAN)], [_T, 0, _F, 0]),
    _dvec("DSNE", "", 2, [dw(1.0, NAN), dw(1.0, NAN)], [_F, 0, _T, 0]),
    _dvec("DSLT", "", 2, [dw(1.0, 2.0), dw(2.0, 2.0)], [_T, 0, _F, 0]),
    _dvec("DSGE", "", 2, [dw(1.0, 2.0), dw(2.0, 2.0)], [_F, 0, _T, 0]),
    _dvec("DLDEXP", "(exponents src1.x, src1.z)", 2, [dw(1.5, 1.0), [3, 0, -1075 & _T, 0]],
          dw(12.0, 0.0)),
    _dvec("DFRAC", "", 1, [dw(2.25, -0.25)], dw(0.25, 0.75)),
    _dvec("DTRUNC", "", 1, [dw(2.5, -2.5)], dw(2.0, -2.0)),
    _dvec("DCEIL", "", 1, [dw(2.5, -2.5)], dw(3.0, -2.0)),
    _dvec("DFLR", "", 1, [dw(2.5, -2.5)], dw(2.0, -3.0)),
    _dvec("DROUND", "(half to even)", 1, [dw(2.5, -3.5)], dw(2.0, -4.0)),
    _dvec("DSSG", "(NaN 0)", 1, [dw(-3.0, NAN)], dw(-1.0, 0.0)),
    _dvec("DRCP", "", 1, [dw(4.0, -0.0)], dw(0.25, -INF)),
    _dvec("DSQRT", "", 1, [dw(2.0, -0.0)], dw(math.sqrt(2.0), -0.0)),
    _dvec("DRSQ", "(1 / sqrt, two roundings)", 1, [dw(3.0, 4.0)], dw(1 / math.sqrt(3.0), 0.5)),
    _dvec("DFREXPM", "DFRACEXP (mantissa in [0.5, 1); INF itself)", 1, [dw(12.0, INF)],
          dw(0.75, INF)),
    _dvec("DFREXPE", "DFRACEXP (exponent per double, in x y and z w)", 1, [dw(12.0, 0.0)],
          [4, 4, 0, 0]),
    _dvec("I2D", "", 1, [[-5 & _T, 7, 0, 0]], dw(-5.0, 7.0)),
    _dvec("U2D", "", 1, [[-5 & _T, 7, 0, 0]], dw(4294967291.0, 7.0)),
    _dvec("D2F", "(round to nearest even; z, w 0)", 1, [dw(0.1, 1e300)], [w(0.1), w(INF), 0, 0]),
    _dvec("D2I", "(truncated, clamped, NaN 0)", 1, [dw(-2.7, 1e10)], [-2 & _T, 0x7FFFFFFF, 0, 0]),
    _dvec("D2U", "(truncated, clamped, NaN 0)", 1, [dw(-2.7, NAN)], [0, 0, 0, 0]),
    V("F2D", "TGSI tgsi.rst F2D (src.x, src.y)", "F2D.U o, a", {"a": fl(1.5, -0.25, 9, 9)},
      {"o": dw(1.5, -0.25)}, t="u"),
    _dvec("U64ADD", "(modulo 2^64)", 2, [qw(_M, 5), qw(2, 7)], qw(1, 12)),
    _dvec("U64MUL", "(low 64 bits)", 2, [qw(1 << 40, 3), qw(1 << 30, _M)], qw(0, (-3) & _M)),
    _dvec("U64MIN", "", 2, [qw(_M, 1), qw(2, 7)], qw(2, 1)),
    _dvec("U64MAX", "", 2, [qw(_M, 1), qw(2, 7)], qw(_M, 7)),
    _dvec("I64MIN", "", 2, [qw(_M, 1), qw(2, 7)], qw(_M, 1)),
    _dvec("I64MAX", "", 2, [qw(_M, 1), qw(2, 7)], qw(2, 7)),
    _dvec("U64SEQ", "", 2, [qw(_M, 1), qw(_M, 7)], [_T, 0, _F, 0]),
    _dvec("U64SNE", "", 2, [qw(_M, 1), qw(_M, 7)], [_F, 0, _T, 0]),
    _dvec("U64SLT", "", 2, [qw(_M, 1), qw(2, 7)], [_F, 0, _T, 0]),
    _dvec("U64SGE", "", 2, [qw(_M, 1), qw(2, 7)], [_T, 0, _F, 0]),
    _dvec("I64SLT", "", 2, [qw(_M, 1), qw(2, 7)], [_T, 0, _T, 0]),
    _dvec("I64SGE", "", 2, [qw(_M, 1), qw(2, 7)], [_F, 0, _F, 0]),
    _dvec("U64SHL", "(count & 63; zw by src1.y)", 2, [qw(1, 1), [68, 1, 99, 99]], qw(16, 2)),
    _dvec("U64SHR", "(count & 63; zw by src1.y)", 2, [qw(_M, _M), [60, 63, 0, 0]], qw(15, 1)),
    _dvec("I64SHR", "(count & 63; zw by src1.y)", 2, [qw(_M, 1 << 62), [60, 61, 0, 0]],
          qw(_M, 2)),
    _dvec("U64DIV", "(by zero: all bits)", 2, [qw(7, 7), qw(2, 0)], qw(3, _M)),
    _dvec("U64MOD", "(by zero: all bits)", 2, [qw(7, 7), qw(2, 0)], qw(1, _M)),
    _dvec("I64DIV", "(toward zero; by zero -1)", 2, [qw((-7) & _M, 7), qw(2, 0)],
          qw((-3) & _M, _M)),
    _dvec("I64MOD", "(the dividend's sign; by zero -1)", 2, [qw((-7) & _M, 7), qw(2, 0)],
          qw((-1) & _M, _M)),
    _dvec("I64ABS", "", 1, [qw((-7) & _M, 1 << 63)], qw(7, 1 << 63)),
    _dvec("I64NEG", "", 1, [qw(7, 0)], qw((-7) & _M, 0)),
    _dvec("I64SSG", "", 1, [qw((-7) & _M, 0)], qw(_M, 0)),
    V("F2U64", "TGSI tgsi.rst F2U64 (truncated, clamped, NaN 0)", "F2U64.U o, a",
      {"a": fl(2.75, -1, 0, 0)}, {"o": qw(2, 0)}, t="u"),
    V("F2I64", "TGSI tgsi.rst F2I64 (truncated, clamped, NaN 0)", "F2I64.U o, a",
      {"a": fl(-2.75, 1e19, 0, 0)}, {"o": qw((-2) & _M, (1 << 63) - 1)}, t="u"),
    _dvec("D2U64", "(truncated, clamped, NaN 0)", 1, [dw(2.0 ** 62 + 2048, NAN)],
          qw(2 ** 62 + 2048, 0)),
    _dvec("D2I64", "(truncated, clamped, NaN 0)", 1, [dw(-2.5, -1e30)], qw((-2) & _M, 1 << 63)),
    _dvec("U2I64", "(zero extension)", 1, [[-5 & _T, 7, 0, 0]], qw(0xFFFFFFFB, 7)),
    _dvec("I2I64", "(sign extension)", 1, [[-5 & _T, 7, 0, 0]], qw((-5) & _M, 7)),
    _dvec("U642F", "(one rounding; z, w 0)", 1, [qw((1 << 62) + (1 << 38) + 1, 3)],
          [w(2.0 ** 62 + 2.0 ** 39), w(3.0), 0, 0]),
    _dvec("I642F", "(z, w 0)", 1, [qw((-3) & _M, 3)], [w(-3.0), w(3.0), 0, 0]),
    _dvec("U642D", "", 1, [qw(_M, 3)], dw(2.0 ** 64, 3.0)),
    _dvec("I642D", "", 1, [qw((-3) & _M, 1 << 60)], dw(-3.0, 2.0 ** 60)),
    # gather (ARB_texture_gather order (i0,j1), (i1,j1), (i1,j0), (i0,j0); component 0 here)
    V("TXG", "TGSI tgsi.rst TG4 (the bilinear footprint's texels, component 0)",
      "TXG o, a, texture[0], 2D", {"a": fl(0.5, 0.5, 0, 0)}, {"o": [3, 4, 2, 1]},
      textures={0: T2}),
    V("TXQLEVELS", "TGSI tgsi.rst SVIEWINFO (the number of mipmap levels, in w)",
      "TXQLEVELS o, a, texture[0], 2D", {"a": ints(0, 0, 0, 0)}, {"o": [3, 3, 3, 3]}, t="s",
      textures={0: MIP}),
    # cube arrays, multisample textures, the level-of-detail query (issue 20)
    V("TXL2", "TGSI tgsi.rst TXL2 (the level in b.x; layer-face 6 l + f; -Z of layer 1)",
      "TXL2 o, a, b, texture[0], ARRAYCUBE", {"a": fl(0, 0, -1, 1), "b": fl(1, 0, 0, 0)},
      {"o": [1011] * 4}, textures={0: CUBE_ARRAY}),
    V("TXL2", "TGSI tgsi.rst TXL2 (the layer clamped to the last: +Y of layer 1)",
      "TXL2 o, a, b, texture[0], ARRAYCUBE", {"a": fl(0, 1, 0, 7), "b": fl(0, 0, 0, 0)},
      {"o": [80] * 4}, textures={0: CUBE_ARRAY}),
    V("TXB2", "TGSI tgsi.rst TXB2 (no implicit derivatives in a vertex program: the base level "
      "whatever the bias; -X of layer 0)", "TXB2 o, a, b, texture[0], ARRAYCUBE",
      {"a": fl(-1, 0, 0, 0.4), "b": fl(5, 0, 0, 0)}, {"o": [10] * 4}, textures={0: CUBE_ARRAY}),
    V("TEX2", "TGSI tgsi.rst TEX2 (the reference in b.x: 0.25 <= 0.5 passes)",
      "TEX2 o, a, b, texture[0], SHADOWARRAYCUBE", {"a": fl(1, 0, 0, 1), "b": fl(0.25, 0, 0, 0)},
      {"o": [1, 1, 1, 1]}, textures={0: CUBE_ARRAY_DEPTH}),
    V("TEX2", "TGSI tgsi.rst TEX2 (the reference in b.x: 0.75 <= 0.5 fails)",
      "TEX2 o, a, b, texture[0], SHADOWARRAYCUBE", {"a": fl(1, 0, 0, 1), "b": fl(0.75, 0, 0, 0)},
      {"o": [0, 0, 0, 1]}, textures={0: CUBE_ARRAY_DEPTH}),
    V("TXQS", "TGSI tgsi.rst TXQS (the samples of a multisample texture)",
      "TXQS o, a, texture[0], 2DMS", {"a": ints(0, 0, 0, 0)}, {"o": [4, 4, 4, 4]}, t="s",
      textures={0: MS}),
    V("TXQS", "TGSI tgsi.rst TXQS (1 for a texture that is not multisampled)",
      "TXQS o, a, texture[0], 2D", {"a": ints(0, 0, 0, 0)}, {"o": [1, 1, 1, 1]}, t="s",
      textures={0: MIP}),
    V("TXF", "TGSI tgsi.rst TXF (multisampled: w is the sample; sample 2 of texel (1, 0))",
      "TXF o, a, texture[0], 2DMS", {"a": ints(1, 0, 0, 2)}, {"o": [201] * 4}, textures={0: MS}),
    V("TXF", "TGSI tgsi.rst TXF (a sample out of range reads 0)",
      "TXF o, a, texture[0], 2DMS", {"a": ints(1, 0, 0, 4)}, {"o": [0] * 4}, textures={0: MS}),
    V("LODQ", "TGSI tgsi.rst LODQ (GL 4.5 eq. 8.6: derivatives of 2 texels, lambda' = 1, "
      "level 1)", "LODQ o, a, texture[0], 2D", {"a": QUAD * np.float32([2, 2, 1, 1])},
      {"o": [[1, 1, 0, 0]] * 4}, stage="fragment", textures={0: MIP}),
    V("LODQ", "TGSI tgsi.rst LODQ (no derivatives in a vertex program: lambda' = -inf, level 0)",
      "LODQ o, a, texture[0], 2D", {"a": fl(0.5, 0.5, 0, 0)}, {"o": [0, -INF, 0, 0]},
      textures={0: MIP}),
]
VECTORS = VECTORS + _SPEC64


@pytest.mark.parametrize("v", _SPEC64, ids=[f"{v.op}-64-{i}" for i, v in enumerate(_SPEC64)])
def test_tgsi_64bit_spec_vector(v: V):
    test_spec_vector(v)


# ---- memory, synchronisation and atomics (issue 20: TGSI COMP; xlate/exec/memory.py) ---------
# A vector's code is the IR opcode on its first line, then the TGSI body of a compute program of
# one invocation (these opcodes reach memory, which the IR assembler of test_exec_helpers does
# not declare): BUFFER[0] holds MEM_WORDS (word 0 is 1.0 for ATOMFADD), the instruction runs,
# and TEMP[0].x is stored at byte 8; "buffer" is the buffer's words after the dispatch.
MEM_WORDS = [7, 5, 0, 0]
MEM_HEAD = ("COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 1\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\n"
            "PROPERTY CS_FIXED_BLOCK_DEPTH 1\nDCL BUFFER[0]\nDCL MEMORY[0], SHARED\n"
            "DCL IMAGE[0], 2D, PIPE_FORMAT_R32_UINT, WR\nDCL TEMP[0..1]\n"
            "IMM[0] UINT32 {0, 4, 8, 12}\nIMM[1] UINT32 {9, 7, 1, 0}\nIMM[2] FLT32 {0.5, 0, 0, 0}\n")
MEM_TAIL = "STORE BUFFER[0].x, IMM[0].zzzz, TEMP[0].xxxx\nEND\n"
TGSI_RST = "TGSI tgsi.rst "


def _atom(ir: str, tgsi: str, after: int, returned: int, operands: str = "IMM[1].xxxx") -> V:
    return V(ir, TGSI_RST + f"{tgsi} (old 7, operand 9: stores {after}, returns {returned})",
             f"{ir}\n{tgsi} TEMP[0].x, BUFFER[0], IMM[0].xxxx, {operands}\n",
             {}, {"buffer": [after, 5, returned, 0]}, t="u")


MEMORY_VECTORS = [
    V("LOAD", TGSI_RST + "LOAD (byte offset 4: word 1)", "LOAD\nLOAD TEMP[0].x, BUFFER[0], "
      "IMM[0].yyyy\n", {}, {"buffer": [7, 5, 5, 0]}, t="u"),
    V("STORE", TGSI_RST + "STORE (byte offset 12: word 3)", "STORE\nSTORE BUFFER[0].x, "
      "IMM[0].wwww, IMM[1].xxxx\n", {}, {"buffer": [7, 5, 0, 9]}, t="u"),
    V("RESQ", TGSI_RST + "RESQ (a buffer's size in bytes, in x)", "RESQ\nRESQ TEMP[0], BUFFER[0]\n",
      {}, {"buffer": [7, 5, 16, 0]}, t="u"),
    V("IMGSTORE", TGSI_RST + "STORE to an image (texel (1, 0), then loaded back)",
      "IMGSTORE\nSTORE IMAGE[0], IMM[1].zwww, IMM[1].xxxx, 2D, PIPE_FORMAT_R32_UINT\n"
      "LOAD TEMP[0], IMAGE[0], IMM[1].zwww, 2D, PIPE_FORMAT_R32_UINT\n", {},
      {"buffer": [7, 5, 9, 0]}, t="u"),
    V("IMGLOAD", TGSI_RST + "LOAD from an image (texel (1, 0), stored before)",
      "IMGLOAD\nSTORE IMAGE[0], IMM[1].zwww, IMM[1].yyyy, 2D, PIPE_FORMAT_R32_UINT\n"
      "LOAD TEMP[0], IMAGE[0], IMM[1].zwww, 2D, PIPE_FORMAT_R32_UINT\n", {},
      {"buffer": [7, 5, 7, 0]}, t="u"),
    V("BARRIER", TGSI_RST + "BARRIER (the shared word stored before it is read after it)",
      "BARRIER\nSTORE MEMORY[0].x, IMM[0].xxxx, IMM[1].xxxx\nBARRIER\n"
      "LOAD TEMP[0].x, MEMORY[0], IMM[0].xxxx\n", {}, {"buffer": [7, 5, 9, 0]}, t="u"),
    V("MEMBAR", TGSI_RST + "MEMBAR (orders memory; changes no value)",
      "MEMBAR\nMEMBAR IMM[1].xxxx\nLOAD TEMP[0].x, BUFFER[0], IMM[0].xxxx\n", {},
      {"buffer": [7, 5, 7, 0]}, t="u"),
    _atom("ATOMADD", "ATOMUADD", 16, 7), _atom("ATOMXCHG", "ATOMXCHG", 9, 7),
    _atom("ATOMCAS", "ATOMCAS", 9, 7, "IMM[1].yyyy, IMM[1].xxxx"),
    _atom("ATOMAND", "ATOMAND", 1, 7), _atom("ATOMOR", "ATOMOR", 15, 7),
    _atom("ATOMXOR", "ATOMXOR", 14, 7), _atom("ATOMUMIN", "ATOMUMIN", 7, 7),
    _atom("ATOMUMAX", "ATOMUMAX", 9, 7), _atom("ATOMIMIN", "ATOMIMIN", 7, 7),
    _atom("ATOMIMAX", "ATOMIMAX", 9, 7),
    # tgsi.rst's text: INC_WRAP returns old + 1 and stores it while <= src; DEC_WRAP stores
    # old - 1 while 0 < old < src
    _atom("ATOMINCWRAP", "ATOMINC_WRAP", 8, 8), _atom("ATOMDECWRAP", "ATOMDEC_WRAP", 6, 7),
    V("ATOMFADD", TGSI_RST + "ATOMFADD (1.0 + 0.5: stores 1.5, returns 1.0)",
      "ATOMFADD\nATOMFADD TEMP[0].x, BUFFER[0], IMM[0].xxxx, IMM[2].xxxx\n", {},
      {"buffer": [w(1.5), 5, w(1.0), 0]}, t="u"),
]
VECTORS = VECTORS + MEMORY_VECTORS
CITATION = re.compile(CITATION.pattern + r"|^TGSI tgsi\.rst ")


@pytest.mark.parametrize("v", MEMORY_VECTORS,
                         ids=[f"{v.op}-mem-{i}" for i, v in enumerate(MEMORY_VECTORS)])
def test_memory_spec_vector(v: V):
    from xlate import api
    from xlate.exec.compute import execute_compute
    body = v.code.split("\n", 1)[1]
    prog = api.parse(MEM_HEAD + body + MEM_TAIL, filename=f"{v.op}.tgsi")
    words = np.array(MEM_WORDS, np.uint32)
    if v.op == "ATOMFADD":
        words[0] = w(1.0)
    res = execute_compute(prog, buffers={0: words})
    assert res.buffers[0].tolist() == v.expect["buffer"]
