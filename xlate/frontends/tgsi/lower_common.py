"""TGSI lowering: the limits, tables and small helpers the lowerer (``lower.py``) and its
parts share."""
from __future__ import annotations

import struct

from ...ir.limits import MAX_OUTPUT_VERTICES
from ...ir.model import DataType, Stage
from .doubles import INT_RESULT as _DOUBLE_INT_RESULT, INT_SOURCE as _DOUBLE_INT_SOURCE


F, S, U = DataType.FLOAT, DataType.INT, DataType.UINT
ONE = 0x3F800000
_STAGES = {"VERT": Stage.VERTEX, "FRAG": Stage.FRAGMENT, "GEOM": Stage.GEOMETRY,
           "TESS_EVAL": Stage.TESS_EVAL, "TESS_CTRL": Stage.TESS_CTRL,
           "COMP": Stage.COMPUTE}
MAX_NESTING = 64              # IF/UIF, BGNLOOP, SWITCH blocks open at once (Mesa's tgsi_exec: 32)
MAX_INSTRUCTIONS = 65536      # as the NV frontends (NV_gpu_program4 hardware limit)
MAX_CONST_BUFFER = 15         # program.buffer[b] (as the NV frontends)
MAX_INDEX = 0xFFFF             # register indices and declaration ranges (16-bit token fields)
MAX_VERTEX_ATTRIB = 15         # vertex.attrib[n] (16 generic attributes, as in the NV frontends)
MAX_DRAW_BUFFER = 7            # result.color[n] (MAX_DRAW_BUFFERS 8, as in the NV frontends)
MAX_VERTICES_OUT = MAX_OUTPUT_VERTICES   # GS_MAX_OUTPUT_VERTICES (as VERTICES_OUT, ir/limits.py)
_CC_RULES = {"GT": "GT", "EQ": "EQ", "LT": "LT", "UN": "NAN", "GE": "GE", "LE": "LE", "NE": "NE",
             "TR": "TR", "FL": "FL"}
_GS_IN = {"POINTS", "LINES", "LINES_ADJACENCY", "TRIANGLES", "TRIANGLES_ADJACENCY"}
_GS_OUT = {"POINTS": "POINTS", "LINE_STRIP": "LINE_STRIP", "TRIANGLE_STRIP": "TRIANGLE_STRIP"}
_INT_RESULT = {"ARL", "ARR", "UARL", "F2I", "F2U", "UADD", "UMUL", "UMAD", "IMUL_HI", "UMUL_HI",
               "IDIV", "UDIV", "UMOD", "MOD", "IMAX", "IMIN", "UMAX", "UMIN", "INEG", "IABS", "ISSG",
               "NOT", "AND", "OR", "XOR", "SHL", "ISHR", "USHR", "ISLT", "ISGE", "USLT", "USGE",
               "USEQ", "USNE", "FSLT", "FSGE", "FSEQ", "FSNE", "TXQ", "PK2H", "PK2US", "PK4UB",
               "PK4B", "READ_HELPER", "CLOCK", "VOTE_ANY", "VOTE_ALL", "VOTE_EQ", "BALLOT",
               "IBFE", "UBFE", "BFI", "BREV", "POPC", "LSB", "IMSB", "UMSB"}
_INT_SOURCE = _INT_RESULT - {"ARL", "ARR", "F2I", "F2U", "FSLT", "FSGE", "FSEQ", "FSNE", "PK2H",
                             "PK2US", "PK4UB", "PK4B"} \
    | {"I2F", "U2F", "UIF", "SWITCH", "UP2H", "UP2US", "UP4UB", "UP4B", "TXF", "LDEXP"} \
    | _DOUBLE_INT_SOURCE
_INT_RESULT |= _DOUBLE_INT_RESULT
# memory words (lower_memory.py): a LOAD's result and a STORE's address are integers
_INT_RESULT |= {"LOAD", "ATOMUADD", "ATOMXCHG", "ATOMCAS", "ATOMAND", "ATOMOR", "ATOMXOR",
                "ATOMUMIN", "ATOMUMAX", "ATOMIMIN", "ATOMIMAX", "ATOMINC_WRAP", "ATOMDEC_WRAP"}
_INT_SOURCE |= {"STORE", "ATOMUADD", "ATOMXCHG", "ATOMCAS", "ATOMAND", "ATOMOR", "ATOMXOR",
                "ATOMUMIN", "ATOMUMAX", "ATOMIMIN", "ATOMIMAX", "ATOMINC_WRAP", "ATOMDEC_WRAP"}


#: the RES file (tgsi.md 1.11): resources of Mesa's 2011-2015 text, the clover compute buffers
#: and images and the resource operand of SAMPLE*; refused naming its era and modern spelling
_OLD_RES = ("RES[n] is the resource file of Mesa 2011-2015 (clover compute, early SAMPLE*); "
            "modern TGSI declares DCL BUFFER[n], DCL IMAGE[n], <target>, <format> or DCL "
            "SVIEW[n], <target>, <type>; xlate reads the modern spelling only")


def _canonical_semantic(name: str | None) -> str | None:
    """Mesa's text spells semantic 9 ``PRIM_ID`` (tgsi_strings.c), its enum ``PRIMID``."""
    return "PRIMID" if name == "PRIM_ID" else name


class _Reject(Exception):
    """Abandon one instruction (its diagnostic is already reported)."""


def f32_bits(v: float) -> int:
    return struct.unpack("<I", struct.pack("<f", v))[0]
