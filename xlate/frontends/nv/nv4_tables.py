"""The NV4 frontend's tables (``nv4.py`` and its parts): each stage's opcodes and options, reserved
words, instruction-modifier categories, texture targets and limits, the decoded spellings
cached across programs, and the exception that abandons a statement after its diagnostic.
"""
from __future__ import annotations

import re
import struct

from ...ir.model import DataType, RegKind, Stage
from ...ir.ops import LEGACY_OPCODES, OPCODES, TGSI_OPCODES
from ...ir.limits import MAX_OUTPUT_VERTICES

STAGE_OF_HEADER = {"!!NVvp4.0": Stage.VERTEX, "!!NVfp4.0": Stage.FRAGMENT, "!!NVgp4.0": Stage.GEOMETRY}
# opcodes only the older dialects have (xlate.ir.ops.LEGACY_OPCODES) are not NV4 mnemonics
_COMMON_OPS = (frozenset(OPCODES) - {"DDX", "DDY", "KIL", "EMIT", "ENDPRIM"} - LEGACY_OPCODES
               - TGSI_OPCODES)
STAGE_OPS = {
    Stage.VERTEX: _COMMON_OPS,
    Stage.FRAGMENT: _COMMON_OPS | {"DDX", "DDY", "KIL"},
    Stage.GEOMETRY: _COMMON_OPS | {"EMIT", "ENDPRIM"},
}
# GP4 Table X.13 has no "S" (clamping) mark for these; xlate.ir.ops lists S for them, which is
# harmless for the integer results but would let I2F.SAT (a float result) through.
NO_CLAMP_OPS = frozenset({"AND", "I2F", "MOD", "NOT", "OR", "SAD", "SHL", "SHR", "XOR"})
# opcodes of older dialects that NV4 removed (GP4 issue 2) - named in the diagnostic
REMOVED_OPS = {"ARL", "ARR", "ARA", "BRA", "EXP", "LOG", "LOOP", "ENDLOOP", "PUSHA", "POPA"}
OPTIONS = {
    Stage.VERTEX: {"ARB_position_invariant"},
    Stage.FRAGMENT: {"ARB_fog_exp", "ARB_fog_exp2", "ARB_fog_linear", "ARB_precision_hint_fastest",
                     "ARB_precision_hint_nicest", "ARB_draw_buffers", "ATI_draw_buffers",
                     "ARB_fragment_program_shadow"},
    Stage.GEOMETRY: set(),
}
RESERVED = {"ATTRIB", "PARAM", "TEMP", "OUTPUT", "ALIAS", "BUFFER", "BUFFER4", "END", "OPTION",
            "fragment", "vertex", "primitive", "program", "result", "state", "texture", "INT",
            "UINT", "FLOAT", "SHORT", "LONG", "FLAT", "CENTROID", "NOPERSPECTIVE", "PRIMITIVE_IN",
            "PRIMITIVE_OUT", "VERTICES_OUT"} | (set(OPCODES) - LEGACY_OPCODES - TGSI_OPCODES)
# GP4 2.X.2: "fragment" is reserved for fragment programs only, "vertex" for vertex and
# geometry programs, "primitive" for fragment and geometry programs; elsewhere they are names.
STAGE_FREE_WORDS = {Stage.VERTEX: {"fragment", "primitive"}, Stage.FRAGMENT: {"vertex"},
                    Stage.GEOMETRY: {"fragment"}}
_MOD_CATEGORY = {"F": "type", "U": "type", "S": "type", "CC": "cc", "CC0": "cc", "CC1": "cc",
                 "SAT": "sat", "SSAT": "sat", "NTC": "ntc", "S24": "mul", "U24": "mul", "HI": "mul"}
_GLUED = re.compile(r"^(R|H)?(C0|C1|C)?(_SAT|_SSAT)?$")
_TYPE_OF_MOD = {"F": DataType.FLOAT, "S": DataType.INT, "U": DataType.UINT}
_SWZ = {c: i for i, c in enumerate("xyzw")} | {c: i for i, c in enumerate("rgba")}
# Valid opcode spellings, swizzles and write masks already decoded (invalid ones are never
# stored: they report their error every time).  Bounded by the valid spellings; shared by all
# programs and threads (a dict item assignment is atomic; a race only decodes twice).
_SPLIT_OPCODES: dict[tuple[Stage, str], tuple] = {}
_SWIZZLES: dict[tuple[str, bool], tuple[int, int, int, int]] = {}
_MASKS: dict[str, tuple[bool, bool, bool, bool]] = {}
IDENTITY = (0, 1, 2, 3)
FULL_MASK = (True, True, True, True)
MAX_IF_DEPTH = 48
MAX_LOOP_DEPTH = 4
TEXEL_OFFSET_RANGE = (-8, 7)
TARGET_DIMS = {"1D": 1, "2D": 2, "3D": 3, "CUBE": 3, "RECT": 2, "SHADOW1D": 1, "SHADOW2D": 2,
               "SHADOWRECT": 2, "ARRAY1D": 1, "ARRAY2D": 2, "SHADOWCUBE": 3, "SHADOWARRAY1D": 1,
               "SHADOWARRAY2D": 2, "BUFFER": 1}
PRIMITIVES_IN = ("POINTS", "LINES", "LINES_ADJACENCY", "TRIANGLES", "TRIANGLES_ADJACENCY")
PRIMITIVES_OUT = ("POINTS", "LINE_STRIP", "TRIANGLE_STRIP")
MAX_VERTICES_OUT = MAX_OUTPUT_VERTICES      # MAX_PROGRAM_OUTPUT_VERTICES_NV (ir/limits.py)
PBO_WORDS = 4096          # words per parameter buffer when a BUFFER binds a whole buffer


class _Skip(Exception):
    """Abandon the current statement after a diagnostic was reported."""


def f32_bits(value: float) -> int:
    return struct.unpack("<I", struct.pack("<f", value))[0]


def _glued_modifier(suffix: str) -> str:
    """A glued condition-code or saturation suffix as its dotted modifier: "C0" -> "CC0",
    "_SAT" -> "SAT"."""
    return suffix.lstrip("_").replace("C0", "CC0").replace("C1", "CC1")


_CATEGORY_WORD = {"type": "data type", "cc": "condition-code update", "sat": "clamping",
                  "ntc": "NTC", "mul": "MUL (S24/U24/HI)", "precision": "data type"}
_A_KIND = {RegKind.INPUT: "an attribute", RegKind.PARAM: "a parameter",
           RegKind.BUFFER: "a buffer", RegKind.CONST: "a constant"}
_TYPE_WORD = {DataType.FLOAT: "FLOAT", DataType.INT: "INT", DataType.UINT: "UINT",
              DataType.NONE: "typeless"}


def base_has_no_mods(info) -> bool:
    return info.name == "TXQ" or info.category in ("geom",) or info.name in (
        "ELSE", "ENDIF", "ENDREP", "BRK", "CONT", "CAL", "RET", "IF")
