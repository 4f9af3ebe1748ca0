"""TGSI text: the tables, the older spellings refused by name, the lexer's helpers and
the number syntax (the parser: ``text.py``)."""
from __future__ import annotations

import re
import struct
from fractions import Fraction

from .model import FILES, INTERPOLATIONS, PROCESSORS, RETURN_TYPES, TEXTURE_TARGETS


# ---- tables ----------------------------------------------------------------------------------
#: semantic names of every tree (tgsi.md 1.5; the last two are RST-only)
SEMANTICS = frozenset((
    "POSITION COLOR BCOLOR FOG PSIZE GENERIC NORMAL FACE EDGEFLAG PRIM_ID INSTANCEID VERTEXID "
    "STENCIL CLIPDIST CLIPVERTEX GRID_SIZE BLOCK_ID BLOCK_SIZE THREAD_ID TEXCOORD PCOORD "
    "VIEWPORT_INDEX LAYER CULLDIST SAMPLEID SAMPLEPOS SAMPLEMASK INVOCATIONID VERTEXID_NOBASE "
    "BASEVERTEX PATCH TESSCOORD TESSOUTER TESSINNER VERTICESIN HELPER_INVOCATION BASEINSTANCE "
    "DRAWID WORK_DIM SUBGROUP_SIZE SUBGROUP_INVOCATION SUBGROUP_EQ_MASK SUBGROUP_GE_MASK "
    "SUBGROUP_GT_MASK SUBGROUP_LE_MASK SUBGROUP_LT_MASK CS_USER_DATA_AMD VIEWPORT_MASK "
    "VIEW_INDEX TESS_DEFAULT_OUTER_LEVEL TESS_DEFAULT_INNER_LEVEL").split())

PRIMITIVES = ("POINTS", "LINES", "LINE_LOOP", "LINE_STRIP", "TRIANGLES", "TRIANGLE_STRIP",
              "TRIANGLE_FAN", "QUADS", "QUAD_STRIP", "POLYGON", "LINES_ADJACENCY",
              "LINE_STRIP_ADJACENCY", "TRIANGLES_ADJACENCY", "TRIANGLE_STRIP_ADJACENCY",
              "PATCHES")

#: property name -> the enum names its value may take (None: an unsigned number only)
PROPERTIES: dict[str, tuple[str, ...] | None] = {
    "GS_INPUT_PRIMITIVE": PRIMITIVES, "GS_OUTPUT_PRIMITIVE": PRIMITIVES,
    "FS_COORD_ORIGIN": ("UPPER_LEFT", "LOWER_LEFT"),
    "FS_COORD_PIXEL_CENTER": ("HALF_INTEGER", "INTEGER"),
    "NEXT_SHADER": PROCESSORS,
    **{name: None for name in (
        "GS_MAX_OUTPUT_VERTICES FS_COLOR0_WRITES_ALL_CBUFS FS_DEPTH_LAYOUT VS_PROHIBIT_UCPS "
        "GS_INVOCATIONS VS_WINDOW_SPACE_POSITION VS_POSITION_WINDOW_SPACE TCS_VERTICES_OUT "
        "TES_PRIM_MODE TES_SPACING TES_VERTEX_ORDER_CW TES_POINT_MODE NUM_CLIPDIST_ENABLED "
        "NUM_CULLDIST_ENABLED FS_EARLY_DEPTH_STENCIL FS_POST_DEPTH_COVERAGE "
        "CS_FIXED_BLOCK_WIDTH CS_FIXED_BLOCK_HEIGHT CS_FIXED_BLOCK_DEPTH LEGACY_MATH_RULES "
        "MUL_ZERO_WINS VS_BLIT_SGPRS_AMD CS_USER_DATA_COMPONENTS_AMD LAYER_VIEWPORT_RELATIVE "
        "FS_BLEND_EQUATION_ADVANCED SEPARABLE_PROGRAM NUM_VIEWS").split()},
}

#: memory qualifiers in bit order (1, 2, 4, 8)
MEMORY_QUALIFIERS = ("COHERENT", "RESTRICT", "VOLATILE", "STREAM_CACHE_POLICY")
MEMORY_TYPES = ("GLOBAL", "SHARED", "PRIVATE", "INPUT")
LOCATIONS_PARSED = ("CENTER", "CENTROID", "SAMPLE")

_TARGETS = frozenset(TEXTURE_TARGETS)
_FILES = frozenset(FILES)

# Spellings of older Mesa text that modern TGSI writes otherwise (tgsi.md 1.11): refused naming
# their era and the modern spelling, not as unknown words.
_ERA_2012_COMPUTE = "the Mesa 2012-era compute syntax (clover, before the 2015 MEMORY/BUFFER files)"
_OLD_RESOURCES = {
    "RGLOBAL": "DCL MEMORY[n], GLOBAL", "RLOCAL": "DCL MEMORY[n], SHARED",
    "RPRIVATE": "DCL MEMORY[n], PRIVATE", "RINPUT": "DCL MEMORY[n], INPUT"}
_OLD_FILES = {
    "TEMPX": "the Mesa 2011-2013 indexable temporaries (DCL TEMPX[a][first..last]); modern TGSI "
             "declares DCL TEMP[first..last], ARRAY(a) and addresses TEMP[ADDR[0].x+first](a)",
    "IMMX": "the Mesa 2011-2013 immediate arrays (IMMX[a][n]); modern TGSI declares IMM[n] "
            "and addresses IMM[ADDR[0].x+n]",
}
_OLD_OPCODES = {"MFENCE": "MEMBAR", "LFENCE": "MEMBAR", "SFENCE": "MEMBAR"}


def _old_file_message(word: str) -> str | None:
    w = word.upper()
    if w in _OLD_FILES:
        return f"{word} is the register file of {_OLD_FILES[w]}; xlate reads the modern spelling only"
    if w in _OLD_RESOURCES:
        return (f"{word} is a resource of {_ERA_2012_COMPUTE}; modern TGSI declares "
                f"{_OLD_RESOURCES[w]} and addresses MEMORY[n]; xlate reads the modern "
                "spelling only")
    return None
_INTERP = frozenset(INTERPOLATIONS)
_RTYPES = frozenset(RETURN_TYPES)
_SWZ = {"X": 0, "Y": 1, "Z": 2, "W": 3}
#: SAMPLE..GATHER4: no target in text (Mesa stores UNKNOWN), texel offsets after the operands
SAMPLE_OPCODES = _SAMPLE_OFFSETS = frozenset((
    "SAMPLE", "SAMPLE_I", "SAMPLE_I_MS", "SAMPLE_B", "SAMPLE_C", "SAMPLE_C_LZ", "SAMPLE_D",
    "SAMPLE_L", "GATHER4"))
_NO_OPERAND_OK = frozenset(("EMIT", "ENDPRIM"))
#: semantics that make a tessellation declaration per-patch (no vertex dimension)
_PATCH_SEMANTICS = frozenset(("PATCH", "TESSINNER", "TESSOUTER", "PRIM_ID"))


def implicit_dim(processor: str | None, file: str, semantic: str | None) -> bool:
    """Whether a declaration is per-vertex 2-D (``DCL IN[][0]``): Mesa's dumper rule, which
    the binary readers use too (the binary does not store it).  The parser applies it whether
    or not the text wrote the ``[]``, so text and binary give the same model."""
    if file == "IN":
        return processor == "GEOM" or (processor in ("TESS_CTRL", "TESS_EVAL")
                                       and semantic not in _PATCH_SEMANTICS)
    return file == "OUT" and processor == "TESS_CTRL" and semantic not in _PATCH_SEMANTICS
MAX_TEX_OFFSETS = 4

# ---- lexer -----------------------------------------------------------------------------------
# The text is split into lines (LF, CRLF, CR), each line into token strings by one findall:
# words (also digit-led: 2D, 1D_ARRAY, 0x3f800000), integers, "..", a whole one-line immediate
# body "{...}", and single characters (punctuation, or anything else = E1003).  A token's kind
# is read from its first character when needed; columns are recomputed only for spans.
_LINE_SPLIT = re.compile(r"\r\n|\r|\n").split
_TOKENS = re.compile(r"[ \t]*([A-Za-z0-9_]+|\.\.|\{[^}]*\}?|[^ \t])").findall
_WCHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_DIGITS = frozenset("0123456789")
_PUNCT = frozenset("[]().,:|+-")

_HEADER_RE = re.compile(r"[ \t\r\n]*(VERT|FRAG|GEOM|TESS_CTRL|TESS_EVAL|COMP)"
                        r"(?:([0-9]+)\.([0-9]+))?(?![A-Za-z0-9_.])", re.I)


def _isword(v: str) -> bool:
    return v[:1] in _WCHARS and not v.isdigit()


def _isint(v: str) -> bool:
    return v[:1] in _DIGITS and v.isdigit()


def _operand_start_at(vals: list[str], i: int) -> bool:
    v = vals[i]
    return v == "-" or v == "|" or (vals[i + 1] == "[" and _isword(v))


# ---- numbers ---------------------------------------------------------------------------------
_RAW32_RE = re.compile(r"0[xX][0-9a-fA-F]{8}\Z")
_RAW64_RE = re.compile(r"0[xX][0-9a-fA-F]{16}\Z")
_DEC_RE = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\Z")
_HEXF_RE = re.compile(r"[+-]?0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)"
                      r"(?:[pP][+-]?[0-9]+)?\Z")
_SPECIAL_RE = re.compile(r"[+-]?(?:inf|infinity|nan)\Z", re.I)
_UINT_RE = re.compile(r"[0-9]+\Z")
_INT_RE = re.compile(r"[+-]?[0-9]+\Z")
_C_INT_RE = re.compile(r"([+-]?)(?:0[xX]([0-9a-fA-F]+)|(0[0-7]*)|([1-9][0-9]*))\Z")

_PACK_F = struct.Struct("<f").pack
_UNPACK_F = struct.Struct("<f").unpack
_PACK_I = struct.Struct("<I").pack
_UNPACK_I = struct.Struct("<I").unpack
_PACK_D = struct.Struct("<d").pack
_UNPACK_Q = struct.Struct("<Q").unpack
_PACK_Q = struct.Struct("<Q").pack
_UNPACK_D = struct.Struct("<d").unpack


def float32_bits(value: float, exact: str | None = None) -> int:
    """The float32 nearest ``value`` (ties to even; beyond the range: infinity).  ``exact`` is
    the decimal text ``value`` was read from: where the double sits exactly half-way between
    two float32 values, the text decides (no double-rounding error)."""
    try:
        bits = _UNPACK_I(_PACK_F(value))[0]
    except OverflowError:
        return 0xFF800000 if value < 0 else 0x7F800000
    if exact is not None and (bits & 0x7F800000) != 0x7F800000:
        near = _UNPACK_F(_PACK_I(bits))[0]
        if near != value:
            # neighbour on the other side of value
            away = abs(value) > abs(near)
            other_bits = bits + 1 if away else bits - 1
            if (bits & 0x7FFFFFFF) == 0 and not away:
                return bits
            other = _UNPACK_F(_PACK_I(other_bits & 0xFFFFFFFF))[0]
            mid = (near + other) / 2
            if mid == value:
                true = Fraction(exact)
                if true != Fraction(mid):
                    closer_other = abs(true) > abs(Fraction(mid)) if away else \
                        abs(true) < abs(Fraction(mid))
                    if closer_other:
                        return other_bits & 0xFFFFFFFF
    return bits


def parse_float32(text: str) -> int | None:
    """A FLT32 literal -> its bits, or None when it is not one (tgsi.md 1.6 rule)."""
    if _RAW32_RE.match(text):
        return int(text[2:], 16)
    if _DEC_RE.match(text):
        return float32_bits(float(text), text)
    if _SPECIAL_RE.match(text):
        return float32_bits(float(text))
    if _HEXF_RE.match(text):
        try:
            return float32_bits(float.fromhex(text))
        except OverflowError:
            return 0xFF800000 if text.startswith("-") else 0x7F800000
    return None


def parse_float64(text: str) -> int | None:
    """A FLT64 literal -> its 64 bits, or None.  ``0x`` + 16 hex digits are raw bits."""
    if _RAW64_RE.match(text):
        return int(text[2:], 16)
    try:
        if _DEC_RE.match(text) or _SPECIAL_RE.match(text):
            value = float(text)
        elif _HEXF_RE.match(text):
            value = float.fromhex(text)
        else:
            return None
    except OverflowError:
        value = float("-inf") if text.startswith("-") else float("inf")
    return _UNPACK_Q(_PACK_D(value))[0]


def _parse_c_int(text: str) -> int | None:
    """strtoll/strtoull with base 0: decimal, 0x hex, leading-0 octal, optional sign."""
    m = _C_INT_RE.match(text)
    if not m:
        return None
    sign, hx, octal, dec = m.groups()
    value = int(hx, 16) if hx else int(octal, 8) if octal else int(dec)
    return -value if sign == "-" else value


# ---- parser ----------------------------------------------------------------------------------
class _Fail(Exception):
    """A syntax error inside one statement: report it, skip the rest of the line."""

    def __init__(self, code: str, message: str, index: int, length: int | None = None,
                 col_offset: int = 0):
        super().__init__(message)
        self.code = code
        self.message = message
        self.index = index
        self.length = length
        self.col_offset = col_offset


def _describe(v: str) -> str:
    if v == "":
        return "end of input"
    if v[0] == "{":
        return "'{'"
    return f"'{v}'"


_IDENTITY = (0, 1, 2, 3)
#: all 4-letter swizzles, lower and upper case (the common case costs one dict lookup)
_SWIZZLES = {}
for _a in range(4):
    for _b in range(4):
        for _c in range(4):
            for _d in range(4):
                _w = "xyzw"[_a] + "xyzw"[_b] + "xyzw"[_c] + "xyzw"[_d]
                _SWIZZLES[_w] = _SWIZZLES[_w.upper()] = (_a, _b, _c, _d)
