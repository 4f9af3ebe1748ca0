"""TGSI binary token streams: reader and writer for the SEED and the MODERN layout (tgsi.md §4).

Two layouts exist (tgsi.md 4.9):

``seed``
    The layout of the design document "TG Shader Infrastructure" (specs/tgsi_token_format.md,
    the token stream with a VERSION 1.1 token) as Mesa used it in memory 2007-11 .. 2009-11:
    VERSION, HEADER, PROCESSOR, then sized tokens with ``Extended`` bits and typed extension
    tokens (EXT_NV, EXT_LABEL, EXT_TEXTURE, SWZ, MOD, CONDCODE, MODULATE).
``modern``
    Mesa's ``p_shader_tokens.h`` layout (no VERSION; HEADER, PROCESSOR, then sized tokens whose
    optional follow-up tokens are announced by flag bits).

Public API::

    detect_layout(data) -> "seed" | "modern" | None
    decode(data, sink, ...) -> Shader | None       # never raises; problems go to ``sink``
    encode_seed(shader, ...) -> bytes              # ValueError for what SEED cannot express
    encode_modern(shader, ...) -> bytes            # ValueError for what MODERN cannot express

Words are little-endian 32-bit.  Every problem with a stream is reported as E1009 ("malformed
binary token stream", message starting ``word N:``), an opcode number without a name in the
chosen table as E3001.  ``decode`` reports everything it can (a bad sized token is skipped by
its Size and decoding goes on) and returns ``None`` whenever it reported an error.

Numbering tables (the tokens do not say which producer wrote them, tgsi.md 4.9):

* SEED opcodes: the **2008-03** table of tgsi.md 4.7 by default.  SEED itself prints no opcode
  table; 2008-03 .. 2009-11 is the period in which Mesa actually produced VERSION 1.1 streams
  (the 2007-08 table predates any producer that is still findable, and is reordered at 54),
  and its numbers agree with every surviving modern number.  ``opcode_table="2007-08"``
  selects H2007's numbering; a ``dict`` {number: name} can be passed for anything else.
* SEED CondMask: H2007 values (GT 0 EQ 1 LT 2 UN 3 GE 4 LE 5 NE 6 TR 7 FL 8), switchable with
  ``cc_table="mesa2008"`` (UN removed: GT 0 EQ 1 LT 2 GE 3 LE 4 NE 5 TR 6 FL 7).
* MODERN opcodes: the modern numbers of tgsi.md §2 (= ``p_shader_tokens.h``, bminor 6da87527).
* MODERN processors: ``processor_enum`` "mesa2023" (default: VERTEX 0, TESS_CTRL 1, TESS_EVAL 2,
  GEOMETRY 3, FRAGMENT 4, COMPUTE 5 -- current Mesa, matching the other modern enums used
  here), "pipe2016" (VERTEX 0, FRAGMENT 1, GEOMETRY 2, ...) or "tgsi2008" (FRAGMENT 0,
  VERTEX 1, GEOMETRY 2, ...).
* MODERN image formats (``DCL IMAGE``, memory instructions): the PIPE_FORMAT enum changes with
  every Mesa release, so no table is built in: a format number N decodes as the name
  ``PIPE_FORMAT_<N>`` unless a ``formats`` sequence (index = enum value) is given; the writer
  accepts those names and ``PIPE_FORMAT_<digits>``.

Spec readings (each has a test in tests/test_tgsi_binary.py):

* SEED 6.4.5: in a 2-D operand the SRC/DST_REGISTER token carries the **first** bracket
  (``CONSTANT_ARRAY[A0.x+2]...``) and the DIMENSION token the second (``...[TEMPORARY[5].w+9]``)
  -- the opposite of MODERN, where the register token carries the second bracket and
  DIMENSION the first.  Both map onto the model by bracket position (``RegRef.dim`` = first).
* SEED 3.1: several DECLARATION_RANGE tokens are merged by union; a DECLARE_RANGE declaration
  without any RANGE token declares the default range 0..0.  A union that is not contiguous
  decodes as one model Declaration per contiguous run (the model holds one range).
* SEED 5.2: EXT_LABEL is read the Mesa way (Label = instruction index, Target = 0).  Label 0
  with Target 1 is the document's "disabled" default and decodes as no label; Target 1 with
  a non-zero Label (a symbolic label *declaration*) cannot be represented and is reported.
* SEED 1.1 says an unrecognised token "can be safely skipped"; it is skipped (decoding goes
  on) but still reported, because dropping e.g. a predicate extension changes the meaning.
* SEED "Must be 0" padding bits that are set are reported.
* SEED SWZ composes with the plain swizzle as Mesa's 2008 ``tgsi_util`` did: component c is
  ``Swizzle[ExtSwizzle[c]]`` for ExtSwizzle 0..3, else the constant 0.0 / 1.0 (model values
  4 / 5).  ExtDivide selects through the plain swizzle the same way.  The writer emits SWZ with
  an identity plain swizzle, which is the form of the document's example 6.4.2.
* SEED address tokens (indirect operands) are SRC_REGISTER tokens of which only File, Index and
  SwizzleX are used; the writer fills SwizzleY..W with their defaults (Y, Z, W) as in 6.4.4.
  Nested indirection (SEED 6.4.6) and modified address tokens cannot be represented.
"""
from __future__ import annotations

import struct
from typing import Mapping, Sequence

from ...diagnostics import DiagnosticSink, Span
from .model import (CC_TESTS, FILES, IMM_TYPES, INTERPOLATIONS, LOCATIONS, PROCESSORS,
                    RETURN_TYPES, TEXTURE_TARGETS, CondCode, Declaration, Dst, Immediate,
                    Indirect, Instruction, Property, RegRef, Shader, Src)
from .opcodes import ALIASES, OPCODES

__all__ = ["detect_layout", "decode", "encode_seed", "encode_modern",
           "SEED_OPCODES_2008", "SEED_OPCODES_2007", "MODERN_OPCODES", "OPCODE_TABLES",
           "implicit_dim"]

# ---------------------------------------------------------------------------------------------
# Tables
# ---------------------------------------------------------------------------------------------

_T2007 = (
    "ARL MOV LIT RCP RSQ EXP LOG MUL ADD DP3 DP4 DST MIN MAX SLT SGE MAD SUB LERP CND CND0 "
    "DOT2ADD INDEX NEGATE FRAC CLAMP FLOOR ROUND EXPBASE2 LOGBASE2 POWER CROSSPRODUCT "
    "MULTIPLYMATRIX ABS RCC DPH COS DDX DDY KIL PK2H PK2US PK4B PK4UB RFL SEQ SFL SGT SIN SLE "
    "SNE STR TEX TXD UP2H UP2US UP4B UP4UB X2D ARA ARR BRA CAL RET SSG CMP SCS TXB NRM DIV DP2 "
    "TXL BRK IF LOOP REP ELSE ENDIF ENDLOOP ENDREP PUSHA POPA CEIL I2F NOT TRUNC SHL SHR AND OR "
    "MOD XOR SAD TXF TXQ CONT EMIT ENDPRIM BGNLOOP2 BGNSUB ENDLOOP2 ENDSUB NOISE1 NOISE2 NOISE3 "
    "NOISE4 NOP TEXBEM TEXBEML TEXREG2AR TEXM3X2PAD TEXM3X2TEX TEXM3X3PAD TEXM3X3TEX "
    "TEXM3X3SPEC TEXM3X3VSPEC TEXREG2GB TEXREG2RGB TEXDP3TEX TEXDP3 TEXM3X3 TEXM3X2DEPTH "
    "TEXDEPTH BEM M4X3 M3X4 M3X3 M3X2 NRM4 CALLNZ IFC BREAKC TXP")
_T2008 = (
    "ARL MOV LIT RCP RSQ EXP LOG MUL ADD DP3 DP4 DST MIN MAX SLT SGE MAD SUB LERP CND CND0 "
    "DOT2ADD INDEX NEGATE FRAC CLAMP FLOOR ROUND EXPBASE2 LOGBASE2 POWER CROSSPRODUCT "
    "MULTIPLYMATRIX ABS RCC DPH COS DDX DDY KILP PK2H PK2US PK4B PK4UB RFL SEQ SFL SGT SIN SLE "
    "SNE STR TEX TXD TXP UP2H UP2US UP4B UP4UB X2D ARA ARR BRA CAL RET SSG CMP SCS TXB NRM DIV "
    "DP2 TXL BRK IF LOOP REP ELSE ENDIF ENDLOOP ENDREP PUSHA POPA CEIL I2F NOT TRUNC SHL SHR AND "
    "OR MOD XOR SAD TXF TXQ CONT EMIT ENDPRIM BGNLOOP2 BGNSUB ENDLOOP2 ENDSUB NOISE1 NOISE2 "
    "NOISE3 NOISE4 NOP M4X3 M3X4 M3X3 M3X2 NRM4 CALLNZ IFC BREAKC KIL END")
_TMODERN = (
    "ARL MOV LIT RCP RSQ EXP LOG MUL ADD DP3 DP4 DST MIN MAX SLT SGE MAD TEX_LZ LRP FMA SQRT "
    "LDEXP F2U64 F2I64 FRC TXF_LZ FLR ROUND EX2 LG2 POW DEMOTE U2I64 CLOCK I2I64 READ_HELPER COS "
    "DDX DDY KILL PK2H PK2US PK4B PK4UB D2U64 SEQ D2I64 SGT SIN SLE SNE U642D TEX TXD TXP UP2H "
    "UP2US UP4B UP4UB U642F I642F ARR I642D CAL RET SSG CMP - TXB FBFETCH DIV DP2 TXL BRK IF UIF "
    "READ_INVOC ELSE ENDIF DDX_FINE DDY_FINE - - CEIL I2F NOT TRUNC SHL BALLOT AND OR MOD XOR - "
    "TXF TXQ CONT EMIT ENDPRIM BGNLOOP BGNSUB ENDLOOP ENDSUB ATOMFADD TXQS RESQ READ_FIRST NOP "
    "FSEQ FSGE FSLT FSNE MEMBAR - - - KILL_IF END DFMA F2I IDIV IMAX IMIN INEG ISGE ISHR ISLT "
    "F2U U2F UADD UDIV UMAD UMAX UMIN UMOD UMUL USEQ USGE USHR USLT USNE SWITCH CASE DEFAULT "
    "ENDSWITCH SAMPLE SAMPLE_I SAMPLE_I_MS SAMPLE_B SAMPLE_C SAMPLE_C_LZ SAMPLE_D SAMPLE_L "
    "GATHER4 SVIEWINFO SAMPLE_POS SAMPLE_INFO UARL UCMP IABS ISSG LOAD STORE IMG2HND SAMP2HND - "
    "BARRIER ATOMUADD ATOMXCHG ATOMCAS ATOMAND ATOMOR ATOMXOR ATOMUMIN ATOMUMAX ATOMIMIN "
    "ATOMIMAX TEX2 TXB2 TXL2 IMUL_HI UMUL_HI TG4 LODQ IBFE UBFE BFI BREV POPC LSB IMSB UMSB "
    "INTERP_CENTROID INTERP_SAMPLE INTERP_OFFSET F2D D2F DABS DNEG DADD DMUL DMAX DMIN DSLT "
    "DSGE DSEQ DSNE DRCP DSQRT DMAD DFRAC DLDEXP - D2I I2D D2U U2D DRSQ DTRUNC DCEIL DFLR DROUND "
    "DSSG VOTE_ANY VOTE_ALL VOTE_EQ U64SEQ U64SNE I64SLT U64SLT I64SGE U64SGE I64MIN U64MIN "
    "I64MAX U64MAX I64ABS I64SSG I64NEG U64ADD U64MUL U64SHL I64SHR U64SHR I64DIV U64DIV I64MOD "
    "U64MOD DDIV LOD ATOMINC_WRAP ATOMDEC_WRAP")


def _table(spec: str, rename: Mapping[int, str] = {}) -> dict[int, str]:
    out = {}
    for n, name in enumerate(spec.split()):
        if name != "-":
            out[n] = rename.get(n, name)
    return out


# NV counted loops (LOOP/ENDLOOP, REP/ENDREP) have no model opcode; their ENDLOOP is not the
# GLSL-style ENDLOOP (= ENDLOOP2 in these tables), so they get names that match nothing.
_NV_LOOPS = {75: "LOOP(NV)", 76: "REP", 79: "ENDLOOP(NV)", 80: "ENDREP"}
#: SEED numbering 2008-03 .. 2009-11 (tgsi.md 4.7), names as the table spells them
SEED_OPCODES_2008: dict[int, str] = _table(_T2008, _NV_LOOPS)
#: SEED numbering of H2007 (2007-08); 39 ``KIL`` is decoded by operand count (KILL / KILL_IF)
SEED_OPCODES_2007: dict[int, str] = _table(
    _T2007, {74: "LOOP(NV)", 75: "REP", 78: "ENDLOOP(NV)", 79: "ENDREP", 39: "KIL(2007)"})
#: MODERN numbering (tgsi.md §2, p_shader_tokens.h)
MODERN_OPCODES: dict[int, str] = _table(_TMODERN)
assert len(_TMODERN.split()) == 252 and MODERN_OPCODES[251] == "ATOMDEC_WRAP"
assert SEED_OPCODES_2008[117] == "END" and SEED_OPCODES_2008[54] == "TXP"

#: any table may be used with either layout (Mesa 2009-11 .. 2010 wrote the modern layout
#: with the 2008-03 numbers); the defaults are "2008-03" for SEED and "modern" for MODERN
OPCODE_TABLES = {"2008-03": SEED_OPCODES_2008, "2007-08": SEED_OPCODES_2007,
                 "modern": MODERN_OPCODES}

_CC_TABLES = {"h2007": CC_TESTS, "mesa2008": ("GT", "EQ", "LT", "GE", "LE", "NE", "TR", "FL")}

_SEED_PROCESSORS = ("FRAG", "VERT", "GEOM")
_MODERN_PROCESSORS = {
    "mesa2023": ("VERT", "TESS_CTRL", "TESS_EVAL", "GEOM", "FRAG", "COMP", "TASK", "MESH"),
    "pipe2016": ("VERT", "FRAG", "GEOM", "TESS_CTRL", "TESS_EVAL", "COMP"),
    "tgsi2008": ("FRAG", "VERT", "GEOM", "TESS_CTRL", "TESS_EVAL", "COMP"),
}

_SEED_FILES = FILES[:8]               # NULL CONST IN OUT TEMP SAMP ADDR IMM
_MODERN_FILES = ("NULL", "CONST", "IN", "OUT", "TEMP", "SAMP", "ADDR", "IMM", "SV", "IMAGE",
                 "SVIEW", "BUFFER", "MEMORY", "CONSTBUF", "HWATOMIC")
_SEED_TEXTURES = ("UNKNOWN", "1D", "2D", "3D", "CUBE", "RECT", "SHADOW1D", "SHADOW2D",
                  "SHADOWRECT")
_SEED_INTERP = ("CONSTANT", "LINEAR", "PERSPECTIVE")
_PRECISIONS = (None, "FLOAT32", "FLOAT16", "FIXED12")
_MODULATES = ("1X", "2X", "4X", "8X", "HALF", "QUARTER", "EIGHTH")
_SATURATE = ("", "SAT", "SSAT")
_MEMTYPES = (None, "SHARED", "PRIVATE", "INPUT")            # 0 = GLOBAL, the default
_MEMQUALS = ("COHERENT", "RESTRICT", "VOLATILE", "STREAM_CACHE_POLICY")

SEMANTICS = (
    "POSITION", "COLOR", "BCOLOR", "FOG", "PSIZE", "GENERIC", "NORMAL", "FACE", "EDGEFLAG",
    "PRIM_ID", "INSTANCEID", "VERTEXID", "STENCIL", "CLIPDIST", "CLIPVERTEX", "GRID_SIZE",
    "BLOCK_ID", "BLOCK_SIZE", "THREAD_ID", "TEXCOORD", "PCOORD", "VIEWPORT_INDEX", "LAYER",
    "SAMPLEID", "SAMPLEPOS", "SAMPLEMASK", "INVOCATIONID", "VERTEXID_NOBASE", "BASEVERTEX",
    "PATCH", "TESSCOORD", "TESSOUTER", "TESSINNER", "VERTICESIN", "HELPER_INVOCATION",
    "BASEINSTANCE", "DRAWID", "WORK_DIM", "SUBGROUP_SIZE", "SUBGROUP_INVOCATION",
    "SUBGROUP_EQ_MASK", "SUBGROUP_GE_MASK", "SUBGROUP_GT_MASK", "SUBGROUP_LE_MASK",
    "SUBGROUP_LT_MASK", "CS_USER_DATA_AMD", "VIEWPORT_MASK", "VIEW_INDEX")

PROPERTIES = (
    "GS_INPUT_PRIMITIVE", "GS_OUTPUT_PRIMITIVE", "GS_MAX_OUTPUT_VERTICES", "FS_COORD_ORIGIN",
    "FS_COORD_PIXEL_CENTER", "FS_COLOR0_WRITES_ALL_CBUFS", "FS_DEPTH_LAYOUT",
    "VS_PROHIBIT_UCPS", "GS_INVOCATIONS", "VS_WINDOW_SPACE_POSITION", "TCS_VERTICES_OUT",
    "TES_PRIM_MODE", "TES_SPACING", "TES_VERTEX_ORDER_CW", "TES_POINT_MODE",
    "NUM_CLIPDIST_ENABLED", "NUM_CULLDIST_ENABLED", "FS_EARLY_DEPTH_STENCIL",
    "FS_POST_DEPTH_COVERAGE", "NEXT_SHADER", "CS_FIXED_BLOCK_WIDTH", "CS_FIXED_BLOCK_HEIGHT",
    "CS_FIXED_BLOCK_DEPTH", "LEGACY_MATH_RULES", "VS_BLIT_SGPRS_AMD",
    "CS_USER_DATA_COMPONENTS_AMD", "LAYER_VIEWPORT_RELATIVE", "FS_BLEND_EQUATION_ADVANCED",
    "SEPARABLE_PROGRAM", "NUM_VIEWS")
PRIMITIVES = ("POINTS", "LINES", "LINE_LOOP", "LINE_STRIP", "TRIANGLES", "TRIANGLE_STRIP",
              "TRIANGLE_FAN", "QUADS", "QUAD_STRIP", "POLYGON", "LINES_ADJACENCY",
              "LINE_STRIP_ADJACENCY", "TRIANGLES_ADJACENCY", "TRIANGLE_STRIP_ADJACENCY",
              "PATCHES")
# properties whose value the dumper prints as a name (tgsi.md 1.3); NEXT_SHADER: processors
_PROPERTY_ENUMS = {"GS_INPUT_PRIMITIVE": PRIMITIVES, "GS_OUTPUT_PRIMITIVE": PRIMITIVES,
                   "FS_COORD_ORIGIN": ("UPPER_LEFT", "LOWER_LEFT"),
                   "FS_COORD_PIXEL_CENTER": ("HALF_INTEGER", "INTEGER")}

#: semantics that make a tessellation declaration per-patch (no implicit vertex dimension)
_PATCH_SEMANTICS = frozenset({"PATCH", "TESSINNER", "TESSOUTER", "PRIM_ID"})

_IDENTITY = (0, 1, 2, 3)


def implicit_dim(processor: str, file: str, semantic: str | None) -> bool:
    """Whether a declaration is per-vertex 2-D (``DCL IN[][0]``) without a Dimension token:
    the rule of Mesa's dumper (tgsi.md 1.5).  The binary does not store it."""
    if file == "IN":
        if processor == "GEOM":
            return True
        return processor in ("TESS_CTRL", "TESS_EVAL") and semantic not in _PATCH_SEMANTICS
    if file == "OUT":
        return processor == "TESS_CTRL" and semantic not in _PATCH_SEMANTICS
    return False


def _s16(v: int) -> int:
    v &= 0xFFFF
    return v - 0x10000 if v & 0x8000 else v


def _words(data: bytes) -> list[int] | None:
    if len(data) % 4:
        return None
    return list(struct.unpack(f"<{len(data) // 4}I", data))


def _pack(words: Sequence[int]) -> bytes:
    return struct.pack(f"<{len(words)}I", *words)


def _to_model_opcode(name: str) -> str:
    return ALIASES.get(name, name)


# ---------------------------------------------------------------------------------------------
# Detection
# ---------------------------------------------------------------------------------------------

def _seed_header_ok(w: list[int], strict: bool = True) -> bool:
    """VERSION 1.1, HeaderSize >= 2, sizes consistent; ``strict``: also a valid PROCESSOR."""
    ok = (len(w) >= 3 and w[0] == 0x00000101 and (w[1] & 0xFF) >= 2
          and 1 + (w[1] & 0xFF) + (w[1] >> 8) == len(w))
    return ok and (not strict or ((w[2] >> 4) == 0 and (w[2] & 0xF) < len(_SEED_PROCESSORS)))


def _modern_header_ok(w: list[int], strict: bool = True) -> bool:
    """HeaderSize 2, BodySize = words - 2; ``strict``: also a plausible PROCESSOR word."""
    ok = len(w) >= 2 and (w[0] & 0xFF) == 2 and (w[0] >> 8) == len(w) - 2
    return ok and (not strict or ((w[1] >> 4) == 0 and (w[1] & 0xF) < 8))


def _walk_ok(w: list[int], start: int, modern: bool) -> bool:
    pos = start
    while pos < len(w):
        t = w[pos] & 0xF
        if t > (3 if modern else 2):
            return False
        size = (w[pos] >> 4) & (0x3FFF if modern and t == 1 else 0xFF)
        if size == 0:
            return False
        pos += size
    return pos == len(w)


def detect_layout(data: bytes) -> str | None:
    """Which binary layout ``data`` is: ``"seed"``, ``"modern"`` or ``None``.

    The rule (every check must hold; the two layouts cannot both match because SEED's word 0
    is 0x00000101, i.e. a modern HeaderSize of 1):

    * the length is a non-zero multiple of 4 (little-endian 32-bit words);
    * ``seed``: word 0 is VERSION 1.1 (``0x00000101``, padding 0); word 1 (HEADER) has
      HeaderSize >= 2 (so a PROCESSOR token follows) and ``1 + HeaderSize + BodySize`` equals the
      word count; word 2 (PROCESSOR) has zero padding and a processor 0..2;
    * ``modern``: word 0 (HEADER) has HeaderSize 2 and BodySize = word count - 2; word 1
      (PROCESSOR) has zero padding (a processor 0..7 in any of the numberings);
    * in both, the body is a chain of sized tokens of known types (SEED 0..2, MODERN 0..3)
      with non-zero sizes that ends exactly at the end of the stream.

    Anything else -- text, garbage, a stream of another VERSION -- is ``None``.  ``decode``
    uses only the header checks, so that it can say *what* is wrong with a damaged body.
    """
    w = _words(data)
    if not w:
        return None
    if _seed_header_ok(w) and _walk_ok(w, 1 + (w[1] & 0xFF), False):
        return "seed"
    if _modern_header_ok(w) and _walk_ok(w, 2, True):
        return "modern"
    return None


# ---------------------------------------------------------------------------------------------
# Reader
# ---------------------------------------------------------------------------------------------

#: tokens (declarations, immediates, instructions) of one stream, as for TGSI text
MAX_TOKENS = 1 << 18


class _Bad(Exception):
    """A token cannot be decoded; carries the word offset and the message."""

    def __init__(self, pos: int, msg: str, code: str = "E1009"):
        super().__init__(msg)
        self.pos, self.msg, self.code = pos, msg, code


class _Cursor:
    """Reads the words of one sized token (``end`` = one past its last word)."""

    def __init__(self, words: list[int], pos: int, end: int, what: str):
        self.w, self.pos, self.end, self.what = words, pos, end, what

    def next(self, name: str) -> tuple[int, int]:
        if self.pos >= self.end:
            raise _Bad(self.pos, f"{self.what} ends (Size) before its {name} token")
        p = self.pos
        self.pos += 1
        return p, self.w[p]


class _Reader:
    def __init__(self, words: list[int], sink: DiagnosticSink, *, opcodes, table_name: str,
                 processors: Sequence[str], cc_tests=CC_TESTS, formats=None):
        self.w = words
        self.sink = sink
        self.opcodes = opcodes
        self.table_name = table_name
        self.processors = processors
        self.cc_tests = cc_tests
        self.formats = formats
        self.errors = 0
        self.processor = "FRAG"

    def err(self, pos: int, msg: str, code: str = "E1009") -> None:
        self.errors += 1
        self.sink.error(code, f"word {pos}: {msg}", Span(self.sink.file, 1, 1))

    def pad(self, pos: int, word: int, mask: int, what: str) -> None:
        if word & mask:
            self.err(pos, f"{what}: padding bits 0x{word & mask:08x} must be 0")

    def opcode(self, pos: int, num: int, nsrc: int) -> str:
        name = self.opcodes.get(num)
        if name is None:
            raise _Bad(pos, f"opcode {num} has no name in the {self.table_name} opcode table",
                       "E3001")
        if name == "KIL(2007)":
            return "KILL_IF" if nsrc else "KILL"
        model = _to_model_opcode(name)
        if model not in OPCODES:
            raise _Bad(pos, f"opcode {num} ({name} in the {self.table_name} table) is not an "
                            "opcode xlate knows", "E3001")
        return model

    def format_name(self, num: int) -> str | None:
        if num == 0:
            return None
        if self.formats is not None and num < len(self.formats) and self.formats[num]:
            return self.formats[num]
        return f"PIPE_FORMAT_{num}"

    def processor_at(self, pos: int, word: int) -> str | None:
        self.pad(pos, word, 0xFFFFFFF0, "PROCESSOR")
        p = word & 0xF
        if p >= len(self.processors) or self.processors[p] not in PROCESSORS:
            name = self.processors[p] if p < len(self.processors) else "undefined"
            self.err(pos, f"processor {p} ({name}) is not supported")
            return None
        return self.processors[p]

    # -- body walk shared by both layouts -------------------------------------------------
    def body(self, start: int, end: int, modern: bool, shader: Shader) -> None:
        # count the tokens first (sizes only): a stream over the limit is rejected before
        # any of it is decoded (bounded work and memory)
        pos, count = start, 0
        while pos < end and count <= MAX_TOKENS:
            word = self.w[pos]
            size = (word >> 4) & (0x3FFF if modern and word & 0xF == 1 else 0xFF)
            if size == 0:
                break
            pos += size
            count += 1
        if count > MAX_TOKENS:
            self.err(pos, f"more than {MAX_TOKENS} tokens; xlate reads token streams of at "
                          "most that many", "E1008")
            return
        pos = start
        while pos < end:
            word = self.w[pos]
            ttype = word & 0xF
            size = (word >> 4) & (0x3FFF if modern and ttype == 1 else 0xFF)
            if size == 0:
                self.err(pos, f"token type {ttype} has Size 0; cannot continue")
                return
            if pos + size > end:
                self.err(pos, f"token type {ttype} has Size {size} but only {end - pos} "
                              "words of the body remain (truncated stream)")
                return
            try:
                if modern:
                    self.modern_token(pos, pos + size, ttype, shader)
                else:
                    self.seed_token(pos, pos + size, ttype, shader)
            except _Bad as bad:
                self.err(bad.pos, bad.msg, bad.code)
            pos += size

    # -- SEED -----------------------------------------------------------------------------
    def seed_token(self, pos: int, end: int, ttype: int, shader: Shader) -> None:
        word = self.w[pos]
        if ttype == 0:
            shader.declarations.extend(self.seed_decl(pos, end, word))
        elif ttype == 1:
            shader.immediates.append(self.seed_imm(pos, end, word))
        elif ttype == 2:
            shader.instructions.append(self.seed_instr(pos, end, word))
        else:
            raise _Bad(pos, f"unknown token type {ttype} (SEED defines 0 DECLARATION, "
                            "1 IMMEDIATE, 2 INSTRUCTION); skipped by its Size")

    def seed_ext_chain(self, cur: _Cursor, word: int, what: str, kinds: Mapping[int, str]):
        """Extension tokens following a token with Extended set: {type: (pos, word)}."""
        exts: dict[int, tuple[int, int]] = {}
        while word >> 31:
            pos, word = cur.next(f"{what} extension")
            t = word & 0xF
            if t not in kinds:
                known = ", ".join(f"{k} {v}" for k, v in kinds.items()) or "none"
                self.err(pos, f"unknown {what} extension type {t} (SEED defines: {known}); "
                              "skipped")
            elif t in exts:
                self.err(pos, f"second {what} {kinds[t]} extension (SEED 6.3: at most one of "
                              "each type; which one applies is undefined)")
            else:
                exts[t] = (pos, word)
        return exts

    def seed_decl(self, pos: int, end: int, word: int) -> list[Declaration]:
        cur = _Cursor(self.w, pos + 1, end, "DECLARATION")
        fnum = (word >> 12) & 0xF
        if fnum >= len(_SEED_FILES):
            raise _Bad(pos, f"register file {fnum} is not a SEED file (0..7)")
        file = _SEED_FILES[fnum]
        declare = (word >> 16) & 0xF
        if declare > 1:
            raise _Bad(pos, f"Declare {declare} is neither DECLARE_RANGE (0) nor DECLARE_MASK (1)")
        has_interp = (word >> 20) & 1
        self.pad(pos, word, 0x7FE00000, "DECLARATION")
        self.seed_ext_chain(cur, word, "DECLARATION", {})
        # the RANGE/MASK tokens fill the declaration up to the optional INTERPOLATION token
        n = end - cur.pos - has_interp
        if n < 0:
            raise _Bad(pos, "DECLARATION ends (Size) before its INTERPOLATION token")
        regs: set[int] = set()
        if declare == 0 and n == 0:
            regs.add(0)                              # SEED 3.1: the default range is 0..0
        for _ in range(n):
            p, t = cur.next("RANGE")
            if declare == 0:
                first, last = t & 0xFFFF, t >> 16
                if first > last:
                    raise _Bad(p, f"DECLARATION_RANGE First {first} > Last {last}")
                regs.update(range(first, last + 1))
            else:
                regs.update(i for i in range(32) if t >> i & 1)
        interp = None
        if has_interp:
            p, t = cur.next("INTERPOLATION")
            if (t & 0xF) >= len(_SEED_INTERP):
                raise _Bad(p, f"interpolation mode {t & 0xF} is not a SEED mode (0..2)")
            self.pad(p, t, 0xFFFFFFF0, "DECLARATION_INTERPOLATION")
            interp = _SEED_INTERP[t & 0xF]
        if not regs:
            raise _Bad(pos, "DECLARATION_MASK declares no register")
        out, run = [], None
        for r in sorted(regs):
            if run and r == run[1] + 1:
                run[1] = r
            else:
                run = [r, r]
                out.append(run)
        return [Declaration(file, a, b, interpolate=interp) for a, b in out]

    def seed_imm(self, pos: int, end: int, word: int) -> Immediate:
        dtype = (word >> 12) & 0xF
        if dtype != 0:
            raise _Bad(pos, f"immediate DataType {dtype}: SEED has only IMM_FLOAT32 (0)")
        self.pad(pos, word, 0x7FFF0000, "IMMEDIATE")
        if word >> 31:
            raise _Bad(pos, "IMMEDIATE has Extended set; SEED defines no immediate extension")
        n = end - pos - 1
        if not 1 <= n <= 4:
            raise _Bad(pos, f"immediate with {n} values; a SEED immediate is one register "
                            "of 1..4 float32 values")
        return Immediate("FLT32", tuple(self.w[pos + 1:end]))

    def seed_instr(self, pos: int, end: int, word: int) -> Instruction:
        cur = _Cursor(self.w, pos + 1, end, "INSTRUCTION")
        sat = (word >> 20) & 3
        if sat == 3:
            raise _Bad(pos, "Saturate 3 is not a SEED saturate mode (0..2)")
        ndst, nsrc = (word >> 22) & 3, (word >> 24) & 0xF
        self.pad(pos, word, 0x70000000, "INSTRUCTION")
        opcode = self.opcode(pos, (word >> 12) & 0xFF, nsrc)
        exts = self.seed_ext_chain(cur, word, "INSTRUCTION",
                                   {0: "EXT_NV", 1: "EXT_LABEL", 2: "EXT_TEXTURE"})
        precision = cc_update = cond = label = texture = None
        if 0 in exts:
            p, t = exts[0]
            self.pad(p, t, 0x40000000, "INSTRUCTION_EXT_NV")
            prec = (t >> 4) & 0xF
            if prec >= len(_PRECISIONS):
                raise _Bad(p, f"precision {prec} is not a SEED precision (0..3)")
            precision = _PRECISIONS[prec]
            if t >> 28 & 1:
                cc_update = (t >> 8) & 0xF
            if t >> 29 & 1:
                cond = CondCode(self.cc_test(p, (t >> 16) & 0xF),
                                tuple((t >> (20 + 2 * c)) & 3 for c in range(4)),
                                (t >> 12) & 0xF)
        if 1 in exts:
            p, t = exts[1]
            self.pad(p, t, 0x60000000, "INSTRUCTION_EXT_LABEL")
            lab, target = (t >> 4) & 0xFFFFFF, (t >> 28) & 1
            if target and lab:
                raise _Bad(p, f"EXT_LABEL declares symbolic label {lab} (Target = 1); labels "
                              "are read as instruction indices (Mesa), Target must be 0")
            if not target:
                label = lab
        if 2 in exts:
            p, t = exts[2]
            self.pad(p, t, 0x7FFFF000, "INSTRUCTION_EXT_TEXTURE")
            tex = (t >> 4) & 0xFF
            if tex >= len(_SEED_TEXTURES):
                raise _Bad(p, f"texture target {tex} is not a SEED target (0..8)")
            texture = _SEED_TEXTURES[tex]
        dsts = tuple(self.seed_dst(cur) for _ in range(ndst))
        srcs = tuple(self.seed_src(cur) for _ in range(nsrc))
        if cur.pos != end:
            raise _Bad(pos, f"INSTRUCTION Size {end - pos} but its tokens end after "
                            f"{cur.pos - pos} words")
        return Instruction(opcode, dsts, srcs, saturate=_SATURATE[sat], label=label,
                           texture=texture, precision=precision, cc_update=cc_update, cond=cond)

    def cc_test(self, pos: int, v: int) -> str:
        if v >= len(self.cc_tests):
            raise _Bad(pos, f"condition-code mask {v} is not defined (0..{len(self.cc_tests) - 1})")
        return self.cc_tests[v]

    def seed_file(self, pos: int, word: int) -> str:
        f = word & 0xF
        if f >= len(_SEED_FILES):
            raise _Bad(pos, f"register file {f} is not a SEED file (0..7)")
        return _SEED_FILES[f]

    def seed_address(self, cur: _Cursor) -> Indirect:
        p, t = cur.next("address SRC_REGISTER")
        file = self.seed_file(p, t)
        if t & 0x80007000:
            raise _Bad(p, "address SRC_REGISTER with Negate/Indirect/Dimension/Extended: "
                          "nested or modified indirect addressing is not supported")
        return Indirect(file, _s16(t >> 15), (t >> 4) & 3)

    def seed_dimension(self, cur: _Cursor) -> tuple[int, Indirect | None]:
        p, t = cur.next("DIMENSION")
        self.pad(p, t, 0x7FFC, "DIMENSION")
        if t >> 31:
            raise _Bad(p, "DIMENSION has Extended set; SEED defines no DIMENSION extension")
        if t >> 1 & 1:
            raise _Bad(p, "chained DIMENSION tokens (3-D operands) are not supported")
        ind = self.seed_address(cur) if t & 1 else None
        return _s16(t >> 15), ind

    def seed_reg(self, cur: _Cursor, file: str, index: int, indirect: bool,
                 dimension: bool) -> RegRef:
        ind = self.seed_address(cur) if indirect else None
        if not dimension:
            return RegRef(file, index, ind)
        # SEED 6.4.5: the register token holds the first bracket, DIMENSION the second
        second, ind2 = self.seed_dimension(cur)
        return RegRef(file, second, ind2, dim=index, dim_indirect=ind)

    def seed_dst(self, cur: _Cursor) -> Dst:
        p, t = cur.next("DST_REGISTER")
        file = self.seed_file(p, t)
        self.pad(p, t, 0x7C000000, "DST_REGISTER")
        exts = self.seed_ext_chain(cur, t, "DST_REGISTER", {0: "CONDCODE", 1: "MODULATE"})
        cond, modulate = None, "1X"
        if 0 in exts:
            q, e = exts[0]
            self.pad(q, e, 0x7FF00000, "DST_REGISTER_EXT_CONDCODE")
            cond = CondCode(self.cc_test(q, (e >> 4) & 0xF),
                            tuple((e >> (8 + 2 * c)) & 3 for c in range(4)), (e >> 16) & 0xF)
        if 1 in exts:
            q, e = exts[1]
            self.pad(q, e, 0x7FFFFF00, "DST_REGISTER_EXT_MODULATE")
            m = (e >> 4) & 0xF
            if m >= len(_MODULATES):
                raise _Bad(q, f"modulate mode {m} is not defined (0..6)")
            modulate = _MODULATES[m]
        reg = self.seed_reg(cur, file, _s16(t >> 10), bool(t >> 8 & 1), bool(t >> 9 & 1))
        mask = tuple(bool(t >> (4 + c) & 1) for c in range(4))
        return Dst(reg, mask, cond=cond, modulate=modulate)

    def seed_src(self, cur: _Cursor) -> Src:
        p, t = cur.next("SRC_REGISTER")
        file = self.seed_file(p, t)
        plain = tuple((t >> (4 + 2 * c)) & 3 for c in range(4))
        exts = self.seed_ext_chain(cur, t, "SRC_REGISTER", {0: "SWZ", 1: "MOD"})
        swizzle, comp_neg, divide = plain, (False,) * 4, 5
        mods = dict(complement=False, bias=False, scale2x=False, abs=False, abs_neg=False)
        if 0 in exts:
            q, e = exts[0]
            self.pad(q, e, 0x70000000, "SRC_REGISTER_EXT_SWZ")
            sel = [(e >> (4 + 4 * c)) & 0xF for c in range(4)] + [(e >> 24) & 0xF]
            for v in sel:
                if v > 5:
                    raise _Bad(q, f"extended swizzle selector {v} is not defined (0..5)")
            sel = [plain[v] if v <= 3 else v for v in sel]
            swizzle, divide = tuple(sel[:4]), sel[4]
            comp_neg = tuple(bool(e >> (20 + c) & 1) for c in range(4))
        if 1 in exts:
            q, e = exts[1]
            self.pad(q, e, 0x7FFFFE00, "SRC_REGISTER_EXT_MOD")
            for bit, name in enumerate(("complement", "bias", "scale2x", "abs", "abs_neg")):
                mods[name] = bool(e >> (4 + bit) & 1)
        reg = self.seed_reg(cur, file, _s16(t >> 15), bool(t >> 13 & 1), bool(t >> 14 & 1))
        return Src(reg, swizzle, neg=bool(t >> 12 & 1), comp_neg=comp_neg, ext_divide=divide,
                   **mods)

    # -- MODERN ---------------------------------------------------------------------------
    def modern_token(self, pos: int, end: int, ttype: int, shader: Shader) -> None:
        word = self.w[pos]
        if ttype == 0:
            shader.declarations.append(self.modern_decl(pos, end, word))
        elif ttype == 1:
            shader.immediates.append(self.modern_imm(pos, end, word))
        elif ttype == 2:
            shader.instructions.append(self.modern_instr(pos, end, word))
        elif ttype == 3:
            shader.properties.append(self.modern_prop(pos, end, word))
        else:
            raise _Bad(pos, f"unknown token type {ttype} (0 DECLARATION, 1 IMMEDIATE, "
                            "2 INSTRUCTION, 3 PROPERTY); skipped by its NrTokens")

    def modern_file(self, pos: int, f: int) -> str:
        if f >= len(_MODERN_FILES):
            raise _Bad(pos, f"register file {f} is not defined (0..{len(_MODERN_FILES) - 1})")
        return _MODERN_FILES[f]

    def target(self, pos: int, v: int) -> str:
        if v >= len(TEXTURE_TARGETS):
            raise _Bad(pos, f"texture target {v} is not defined (0..{len(TEXTURE_TARGETS) - 1})")
        return TEXTURE_TARGETS[v]

    def modern_decl(self, pos: int, end: int, word: int) -> Declaration:
        cur = _Cursor(self.w, pos + 1, end, "DECLARATION")
        file = self.modern_file(pos, (word >> 12) & 0xF)
        self.pad(pos, word, 0xE0000000, "DECLARATION")
        um = (word >> 16) & 0xF
        kw: dict = dict(usage_mask=None if um == 0xF else tuple(bool(um >> c & 1)
                                                                for c in range(4)),
                        invariant=bool(word >> 23 & 1), local=bool(word >> 24 & 1),
                        atomic=bool(word >> 26 & 1), memory_type=_MEMTYPES[(word >> 27) & 3])
        p, t = cur.next("RANGE")
        first, last = t & 0xFFFF, t >> 16
        if first > last:
            raise _Bad(p, f"DECLARATION_RANGE First {first} > Last {last}")
        if word >> 20 & 1:
            p, t = cur.next("DIMENSION")
            self.pad(p, t, 0xFFFF0000, "DECLARATION_DIMENSION")
            kw["dim"] = t & 0xFFFF
        if word >> 22 & 1:
            p, t = cur.next("INTERP")
            self.pad(p, t, 0xFFFFFFC0, "DECLARATION_INTERP (CylindricalWrap is not supported)")
            mode, loc = t & 0xF, (t >> 4) & 3
            if mode >= len(INTERPOLATIONS) or loc >= len(LOCATIONS):
                raise _Bad(p, f"interpolation {mode} / location {loc} is not defined")
            kw["interpolate"] = INTERPOLATIONS[mode]
            kw["location"] = None if loc == 0 else LOCATIONS[loc]
        semantic = None
        if word >> 21 & 1:
            p, t = cur.next("SEMANTIC")
            if (t & 0xFF) >= len(SEMANTICS):
                raise _Bad(p, f"semantic name {t & 0xFF} is not defined (0..{len(SEMANTICS) - 1})")
            semantic = SEMANTICS[t & 0xFF]
            stream = tuple((t >> (24 + 2 * c)) & 3 for c in range(4))
            kw.update(semantic=semantic, semantic_index=(t >> 8) & 0xFFFF,
                      stream=None if stream == (0, 0, 0, 0) else stream)
        if file == "IMAGE":
            p, t = cur.next("IMAGE")
            self.pad(p, t, 0xFFF00000, "DECLARATION_IMAGE")
            kw.update(target=self.target(p, t & 0xFF), raw=bool(t >> 8 & 1),
                      writable=bool(t >> 9 & 1), format=self.format_name((t >> 10) & 0x3FF))
        if file == "SVIEW":
            p, t = cur.next("SAMPLER_VIEW")
            rts = [(t >> (8 + 6 * c)) & 0x3F for c in range(4)]
            if max(rts) >= len(RETURN_TYPES):
                raise _Bad(p, f"sampler-view return type {max(rts)} is not defined (0..4)")
            kw.update(target=self.target(p, t & 0xFF),
                      return_types=tuple(RETURN_TYPES[r] for r in rts))
        if word >> 25 & 1:
            p, t = cur.next("ARRAY")
            self.pad(p, t, 0xFFFFFC00, "DECLARATION_ARRAY")
            kw["array_id"] = t & 0x3FF
        if cur.pos != end:
            raise _Bad(pos, f"DECLARATION NrTokens {end - pos} but its flags announce "
                            f"{cur.pos - pos} words")
        return Declaration(file, first, last,
                           implicit_dim=implicit_dim(self.processor, file, semantic), **kw)

    def modern_imm(self, pos: int, end: int, word: int) -> Immediate:
        dtype = (word >> 18) & 0xF
        self.pad(pos, word, 0xFFC00000, "IMMEDIATE")
        if dtype >= len(IMM_TYPES):
            raise _Bad(pos, f"immediate DataType {dtype} is not defined (0..5)")
        n = end - pos - 1
        if not 1 <= n <= 4 or (dtype >= 3 and n % 2):
            raise _Bad(pos, f"{IMM_TYPES[dtype]} immediate with {n} data words (1..4 words, "
                            "an even number for 64-bit types)")
        return Immediate(IMM_TYPES[dtype], tuple(self.w[pos + 1:end]))

    def modern_prop(self, pos: int, end: int, word: int) -> Property:
        num = (word >> 12) & 0xFF
        self.pad(pos, word, 0xFFF00000, "PROPERTY")
        if num >= len(PROPERTIES):
            raise _Bad(pos, f"property {num} is not defined (0..{len(PROPERTIES) - 1})")
        if end - pos != 2:
            raise _Bad(pos, f"PROPERTY with {end - pos - 1} data words (expected 1)")
        name, value = PROPERTIES[num], self.w[pos + 1]
        names = (self.processors if name == "NEXT_SHADER" else _PROPERTY_ENUMS.get(name))
        if names is not None:
            if value >= len(names):
                raise _Bad(pos + 1, f"{name} value {value} is not defined")
            return Property(name, names[value])
        return Property(name, str(value))

    def modern_instr(self, pos: int, end: int, word: int) -> Instruction:
        cur = _Cursor(self.w, pos + 1, end, "INSTRUCTION")
        ndst, nsrc = (word >> 21) & 3, (word >> 23) & 0xF
        self.pad(pos, word, 0x80000000, "INSTRUCTION")
        opcode = self.opcode(pos, (word >> 12) & 0xFF, nsrc)
        kw: dict = dict(saturate="SAT" if word >> 20 & 1 else "", precise=bool(word >> 30 & 1))
        if word >> 27 & 1:
            p, t = cur.next("LABEL")
            self.pad(p, t, 0xFF000000, "INSTRUCTION_LABEL")
            kw["label"] = t & 0xFFFFFF
        if word >> 28 & 1:
            p, t = cur.next("TEXTURE")
            self.pad(p, t, 0xFFFFF000, "INSTRUCTION_TEXTURE")
            kw["texture"] = self.target(p, t & 0xFF)
            offs = []
            for _ in range((t >> 8) & 0xF):
                q, o = cur.next("TEXTURE_OFFSET")
                self.pad(q, o, 0xFC000000, "TEXTURE_OFFSET")
                reg = RegRef(self.modern_file(q, (o >> 16) & 0xF), _s16(o))
                offs.append(Src(reg, tuple((o >> (20 + 2 * c)) & 3 for c in range(3)) + (3,)))
            kw["tex_offsets"] = tuple(offs)
        if word >> 29 & 1:
            p, t = cur.next("MEMORY")
            self.pad(p, t, 0xFFC00000, "INSTRUCTION_MEMORY")
            mem = [q for b, q in enumerate(_MEMQUALS) if t >> b & 1]
            if (t >> 4) & 0xFF:
                mem.append(self.target(p, (t >> 4) & 0xFF))
            fmt = self.format_name((t >> 12) & 0x3FF)
            if fmt:
                mem.append(fmt)
            kw["memory"] = tuple(mem)
        kw["dsts"] = tuple(self.modern_dst(cur) for _ in range(ndst))
        kw["srcs"] = tuple(self.modern_src(cur) for _ in range(nsrc))
        if cur.pos != end:
            raise _Bad(pos, f"INSTRUCTION NrTokens {end - pos} but its tokens end after "
                            f"{cur.pos - pos} words")
        return Instruction(opcode, **kw)

    def modern_ind(self, cur: _Cursor) -> Indirect:
        p, t = cur.next("IND")
        return Indirect(self.modern_file(p, t & 0xF), _s16(t >> 4), (t >> 20) & 3,
                        (t >> 22) & 0x3FF)

    def modern_reg(self, cur: _Cursor, file: str, index: int, indirect: bool,
                   dimension: bool) -> RegRef:
        ind = self.modern_ind(cur) if indirect else None
        # the register-index (n) suffix lives in RegRef.array_id (model.py docstring)
        array_id = 0
        if ind is not None and ind.array_id:
            array_id, ind = ind.array_id, Indirect(ind.file, ind.index, ind.comp)
        if not dimension:
            return RegRef(file, index, ind, array_id=array_id)
        p, t = cur.next("DIMENSION")
        self.pad(p, t, 0xFFFC, "DIMENSION")
        if t >> 1 & 1:
            raise _Bad(p, "nested DIMENSION tokens (3-D operands) are not supported")
        dind = self.modern_ind(cur) if t & 1 else None
        return RegRef(file, index, ind, dim=_s16(t >> 16), dim_indirect=dind, array_id=array_id)

    def modern_dst(self, cur: _Cursor) -> Dst:
        p, t = cur.next("DST_REGISTER")
        self.pad(p, t, 0xFC000000, "DST_REGISTER")
        file = self.modern_file(p, t & 0xF)
        reg = self.modern_reg(cur, file, _s16(t >> 10), bool(t >> 8 & 1), bool(t >> 9 & 1))
        return Dst(reg, tuple(bool(t >> (4 + c) & 1) for c in range(4)))

    def modern_src(self, cur: _Cursor) -> Src:
        p, t = cur.next("SRC_REGISTER")
        file = self.modern_file(p, t & 0xF)
        reg = self.modern_reg(cur, file, _s16(t >> 6), bool(t >> 4 & 1), bool(t >> 5 & 1))
        swz = tuple((t >> (22 + 2 * c)) & 3 for c in range(4))
        absolute, negate = bool(t >> 30 & 1), bool(t >> 31 & 1)
        # MODERN applies Absolute before Negate: -|x| is abs + abs_neg, -x is neg
        return Src(reg, swz, neg=negate and not absolute, abs=absolute,
                   abs_neg=negate and absolute)


def _diagnose_header(w: list[int] | None, nbytes: int, r: _Reader) -> None:
    if w is None:
        r.err(0, f"length {nbytes} bytes is not a multiple of 4: not a TGSI token stream")
        return
    if len(w) < 2:
        r.err(0, f"{len(w)} words is too short for a TGSI token stream header")
        return
    w0 = w[0]
    if (w0 & 0xFF) == 1 and w0 >> 16 == 0:
        if w0 != 0x101:
            r.err(0, f"VERSION {w0 & 0xFF}.{(w0 >> 8) & 0xFF}: only SEED version 1.1 is "
                     "supported (a higher minor version may not be executed)")
        elif len(w) < 3:
            r.err(1, "SEED stream ends before its PROCESSOR token")
        elif (w[1] & 0xFF) < 2:
            r.err(1, f"HeaderSize {w[1] & 0xFF}: a SEED header needs HeaderSize >= 2 "
                     "(HEADER + PROCESSOR)")
        else:
            r.err(1, f"HEADER: 1 + HeaderSize {w[1] & 0xFF} + BodySize {w[1] >> 8} = "
                     f"{1 + (w[1] & 0xFF) + (w[1] >> 8)} words, but the stream has {len(w)}")
        return
    if (w0 & 0xFF) == 2:
        r.err(0, f"HEADER: HeaderSize 2 + BodySize {w0 >> 8} = {2 + (w0 >> 8)} words, "
                 f"but the stream has {len(w)}")
        return
    r.err(0, f"0x{w0:08x} is neither a SEED VERSION 1.1 token nor a modern HEADER "
             "(HeaderSize 2): not a TGSI token stream")


def decode(data: bytes, sink: DiagnosticSink, *, opcode_table: str | Mapping[int, str] | None = None,
           cc_table: str = "h2007", processor_enum: str = "mesa2023",
           formats: Sequence[str | None] | None = None) -> Shader | None:
    """Decode a SEED or MODERN token stream into a :class:`Shader`.

    ``opcode_table``: for SEED "2008-03" (default) or "2007-08", for MODERN "modern"
    (default); or a dict {number: opcode name}.  ``cc_table``: SEED CondMask enum, "h2007"
    (default) or "mesa2008".  ``processor_enum``: MODERN processor numbering, "mesa2023"
    (default), "pipe2016" or "tgsi2008".  ``formats``: PIPE_FORMAT names by enum value.

    Never raises: every problem is a diagnostic in ``sink``; the result is ``None`` when any
    error was reported (including a stream that is neither layout).
    """
    if not (opcode_table is None or isinstance(opcode_table, Mapping)
            or opcode_table in OPCODE_TABLES):
        raise ValueError(f"unknown opcode table {opcode_table!r}")
    if cc_table not in _CC_TABLES or processor_enum not in _MODERN_PROCESSORS:
        raise ValueError(f"unknown cc_table {cc_table!r} or processor_enum {processor_enum!r}")
    try:
        return _decode(bytes(data), sink, opcode_table, cc_table, processor_enum, formats)
    except Exception as exc:  # pragma: no cover - a bug; reported, never raised
        sink.error("E7005", f"internal error decoding a TGSI token stream: {exc!r}",
                   Span(sink.file, 1, 1))
        return None


def _decode(data, sink, opcode_table, cc_table, processor_enum, formats):
    w = _words(data)
    # header checks only (no PROCESSOR check, no body walk): damage beyond the header is
    # reported token by token instead of as "not a stream"
    seed = w is not None and _seed_header_ok(w, strict=False)
    modern = not seed and w is not None and _modern_header_ok(w, strict=False)
    if isinstance(opcode_table, Mapping):
        opcodes, tname = dict(opcode_table), "given"
    else:
        tname = opcode_table or ("modern" if modern else "2008-03")
        opcodes = OPCODE_TABLES[tname]
    r = _Reader(w or [], sink, opcodes=opcodes, table_name=tname,
                processors=_SEED_PROCESSORS if seed else _MODERN_PROCESSORS[processor_enum],
                cc_tests=_CC_TABLES[cc_table], formats=formats)
    if not seed and not modern:
        # lax classification, to say what is wrong with a damaged header
        _diagnose_header(w, len(data), r)
        return None
    if seed:
        hsize = w[1] & 0xFF
        proc = r.processor_at(2, w[2])
        start, version = 1 + hsize, (1, 1)
    else:
        proc = r.processor_at(1, w[1])
        start, version = 2, None
    r.processor = proc or "FRAG"
    shader = Shader(processor=r.processor, version=version, source_name=sink.file)
    r.body(start, len(w), modern, shader)
    return None if r.errors else shader


# ---------------------------------------------------------------------------------------------
# Writers
# ---------------------------------------------------------------------------------------------

def _check(cond: bool, msg: str) -> None:
    if not cond:
        raise ValueError(msg)


def _u(v: int, bits: int, what: str) -> int:
    _check(0 <= v < 1 << bits, f"{what} {v} does not fit in {bits} bits")
    return v


def _i16(v: int, what: str) -> int:
    _check(-0x8000 <= v <= 0x7FFF, f"{what} {v} does not fit in a signed 16-bit index")
    return v & 0xFFFF


def _reverse(table: Mapping[int, str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for num, name in sorted(table.items()):
        model = _to_model_opcode(name)
        if model in OPCODES:
            out.setdefault(model, num)
    return out


def _mask_bits(mask) -> int:
    return sum(1 << c for c in range(4) if mask[c])


class _SeedWriter:
    def __init__(self, opcodes: Mapping[int, str], cc_tests, declare_mask):
        self.ops = _reverse(opcodes)
        if any(n == "KIL(2007)" for n in opcodes.values()):
            self.ops.setdefault("KILL", 39)       # 2007-08: one KIL, decoded by operand count
            self.ops.setdefault("KILL_IF", 39)
        self.cc = {t: i for i, t in enumerate(cc_tests)}
        self.declare_mask = frozenset(declare_mask)

    def file(self, name: str) -> int:
        _check(name in _SEED_FILES, f"SEED has no register file {name}")
        return _SEED_FILES.index(name)

    def cc_test(self, test: str) -> int:
        _check(test in self.cc, f"condition-code test {test} is not in the chosen CC table")
        return self.cc[test]

    def decl(self, d: Declaration) -> list[int]:
        for attr, what in (("dim", "2-D declarations"), ("usage_mask", "usage masks"),
                           ("semantic", "semantics"), ("stream", "vertex streams"),
                           ("location", "interpolation locations"), ("target", "targets"),
                           ("return_types", "return types"), ("format", "formats"),
                           ("memory_type", "memory types")):
            val = getattr(d, attr)
            ok = val is None or (attr == "usage_mask" and all(val))
            _check(ok, f"SEED cannot express {what} (DCL {d.file}[{d.first}..{d.last}])")
        for attr in ("implicit_dim", "array_id", "local", "invariant", "writable", "raw",
                     "atomic"):
            _check(not getattr(d, attr), f"SEED cannot express {attr} on a declaration")
        _check(d.semantic_index == 0, "SEED cannot express semantics")
        _check(d.interpolate in (None,) + _SEED_INTERP,
               f"SEED cannot express interpolation {d.interpolate}")
        _check(0 <= d.first <= d.last <= 0xFFFF, f"bad declaration range {d.first}..{d.last}")
        use_mask = d.file in self.declare_mask and d.last < 32
        body = [sum(1 << i for i in range(d.first, d.last + 1)) if use_mask
                else d.first | d.last << 16]
        if d.interpolate is not None:
            body.append(_SEED_INTERP.index(d.interpolate))
        head = (0 | (1 + len(body)) << 4 | self.file(d.file) << 12 | int(use_mask) << 16
                | int(d.interpolate is not None) << 20)
        return [head] + body

    def imm(self, m: Immediate) -> list[int]:
        _check(m.type == "FLT32", f"SEED immediates are FLT32 only, not {m.type}")
        _check(1 <= len(m.words) <= 4, "a SEED immediate has 1..4 values")
        return [1 | (1 + len(m.words)) << 4] + [_u(v, 32, "immediate word") for v in m.words]

    @staticmethod
    def chain(tokens: list[int]) -> list[int]:
        """Set the Extended bit of every token but the last."""
        return [t | (1 << 31 if i + 1 < len(tokens) else 0) for i, t in enumerate(tokens)]

    def address(self, ind: Indirect) -> int:
        _check(ind.array_id == 0, "SEED cannot express array IDs")
        _u(ind.comp, 2, "address component")
        swz = (ind.comp, 1, 2, 3)
        return (self.file(ind.file) | sum(s << (4 + 2 * c) for c, s in enumerate(swz))
                | _i16(ind.index, "address offset") << 15)

    def reg_tail(self, reg: RegRef) -> tuple[int, Indirect | None, bool, list[int]]:
        """(index for the register token, its indirect, Dimension flag, trailing tokens)."""
        _check(reg.array_id == 0, "SEED cannot express array IDs")
        if reg.dim is None:
            _check(reg.dim_indirect is None, "indirect dimension without a dimension")
            tail = [self.address(reg.indirect)] if reg.indirect else []
            return reg.index, reg.indirect, False, tail
        # SEED 6.4.5: register token = first bracket (model dim), DIMENSION = second
        tail = [self.address(reg.dim_indirect)] if reg.dim_indirect else []
        tail.append(int(reg.indirect is not None) | _i16(reg.index, "register index") << 15)
        if reg.indirect:
            tail.append(self.address(reg.indirect))
        return reg.dim, reg.dim_indirect, True, tail

    def dst(self, d: Dst) -> list[int]:
        index, ind, dim, tail = self.reg_tail(d.reg)
        exts = []
        if d.cond is not None:
            c = d.cond
            exts.append(0 | self.cc_test(c.test) << 4
                        | sum(_u(s, 2, "CC swizzle") << (8 + 2 * i) for i, s in enumerate(c.swizzle))
                        | _u(c.index, 4, "CC register") << 16)
        if d.modulate != "1X":
            _check(d.modulate in _MODULATES, f"unknown modulate {d.modulate}")
            exts.append(1 | _MODULATES.index(d.modulate) << 4)
        head = (self.file(d.reg.file) | _mask_bits(d.mask) << 4 | int(ind is not None) << 8
                | int(dim) << 9 | _i16(index, "register index") << 10)
        return self.chain([head] + exts) + tail

    def src(self, s: Src) -> list[int]:
        index, ind, dim, tail = self.reg_tail(s.reg)
        for v in s.swizzle:
            _check(0 <= v <= 5, f"swizzle selector {v}")
        _check(0 <= s.ext_divide <= 5, f"ExtDivide selector {s.ext_divide}")
        exts = []
        plain = s.swizzle
        if max(s.swizzle) > 3 or any(s.comp_neg) or s.ext_divide != 5:
            plain = _IDENTITY
            exts.append(0 | sum(v << (4 + 4 * c) for c, v in enumerate(s.swizzle))
                        | sum(int(n) << (20 + c) for c, n in enumerate(s.comp_neg))
                        | s.ext_divide << 24)
        mods = (s.complement, s.bias, s.scale2x, s.abs, s.abs_neg)
        if any(mods):
            exts.append(1 | sum(int(m) << (4 + b) for b, m in enumerate(mods)))
        head = (self.file(s.reg.file) | sum(v << (4 + 2 * c) for c, v in enumerate(plain))
                | int(s.neg) << 12 | int(ind is not None) << 13 | int(dim) << 14
                | _i16(index, "register index") << 15)
        return self.chain([head] + exts) + tail

    def instr(self, i: Instruction) -> list[int]:
        _check(i.opcode in self.ops, f"opcode {i.opcode} has no number in the SEED opcode table")
        _check(not i.precise, "SEED cannot express precise")
        _check(not i.tex_offsets, "SEED cannot express texture offsets")
        _check(not i.memory, "SEED cannot express memory qualifiers")
        _check(i.saturate in _SATURATE, f"unknown saturate {i.saturate}")
        _check(len(i.dsts) <= 3 and len(i.srcs) <= 15, "too many operands")
        exts = []
        if i.precision is not None or i.cc_update is not None or i.cond is not None:
            _check(i.precision in _PRECISIONS, f"unknown precision {i.precision}")
            c = i.cond or CondCode()
            exts.append(0 | _PRECISIONS.index(i.precision) << 4
                        | _u(i.cc_update or 0, 4, "CC register") << 8
                        | _u(c.index, 4, "CC register") << 12 | self.cc_test(c.test) << 16
                        | sum(_u(v, 2, "CC swizzle") << (20 + 2 * k)
                              for k, v in enumerate(c.swizzle))
                        | int(i.cc_update is not None) << 28 | int(i.cond is not None) << 29)
        if i.label is not None:
            exts.append(1 | _u(i.label, 24, "label") << 4)
        if i.texture is not None:
            _check(i.texture in _SEED_TEXTURES, f"SEED has no texture target {i.texture}")
            exts.append(2 | _SEED_TEXTURES.index(i.texture) << 4)
        ops = [t for d in i.dsts for t in self.dst(d)] + [t for s in i.srcs for t in self.src(s)]
        size = 1 + len(exts) + len(ops)
        _check(size <= 0xFF, "instruction longer than 255 tokens")
        head = (2 | size << 4 | self.ops[i.opcode] << 12 | _SATURATE.index(i.saturate) << 20
                | len(i.dsts) << 22 | len(i.srcs) << 24)
        return self.chain([head] + exts) + ops


def encode_seed(shader: Shader, *, opcode_table: str | Mapping[int, str] = "2008-03",
                cc_table: str = "h2007", declare_mask=()) -> bytes:
    """Encode ``shader`` as a SEED (VERSION 1.1) token stream.

    Declarations, then immediates, then instructions.  ``declare_mask``: register files
    (e.g. ``{"TEMP"}``) whose declarations within registers 0..31 are written as
    DECLARE_MASK instead of DECLARE_RANGE.  Raises ``ValueError`` naming what SEED cannot
    express: properties, semantics, usage masks, 2-D declarations, array IDs, LOCAL /
    INVARIANT, files other than NULL..IMM, non-FLT32 immediates, precise, texture offsets,
    memory qualifiers, targets other than UNKNOWN..SHADOWRECT, processors other than
    VERT/FRAG/GEOM, opcodes without a number in the table, per-vertex implicit dimensions.
    """
    table = opcode_table if isinstance(opcode_table, Mapping) else OPCODE_TABLES[opcode_table]
    wr = _SeedWriter(table, _CC_TABLES[cc_table], declare_mask)
    _check(shader.processor in _SEED_PROCESSORS,
           f"SEED has no processor {shader.processor} (FRAG, VERT, GEOM only)")
    _check(not shader.properties, "SEED cannot express properties")
    body: list[int] = []
    for d in shader.declarations:
        body += wr.decl(d)
    for m in shader.immediates:
        body += wr.imm(m)
    for i in shader.instructions:
        body += wr.instr(i)
    _check(len(body) < 1 << 24, "body too long")
    head = [0x00000101, 2 | len(body) << 8, _SEED_PROCESSORS.index(shader.processor)]
    return _pack(head + body)


class _ModernWriter:
    def __init__(self, opcodes: Mapping[int, str], processors: Sequence[str], processor: str,
                 formats):
        self.ops = _reverse(opcodes)
        self.processors = processors
        self.processor = processor
        self.formats = {n: i for i, n in enumerate(formats or ()) if n}

    def file(self, name: str) -> int:
        _check(name in _MODERN_FILES, f"the modern layout has no register file {name}")
        return _MODERN_FILES.index(name)

    def format(self, name: str | None) -> int:
        if name is None:
            return 0
        if name in self.formats:
            return self.formats[name]
        tail = name[len("PIPE_FORMAT_"):] if name.startswith("PIPE_FORMAT_") else ""
        _check(tail.isdigit(), f"format {name} has no number (pass formats=)")
        return _u(int(tail), 10, "format")

    def target(self, name: str | None, what: str) -> int:
        _check(name in TEXTURE_TARGETS, f"{what} needs a texture target, got {name}")
        return TEXTURE_TARGETS.index(name)

    def decl(self, d: Declaration) -> list[int]:
        _check(d.implicit_dim == implicit_dim(self.processor, d.file, d.semantic),
               "implicit_dim is not stored in the binary: it must follow the processor/file/"
               f"semantic rule (DCL {d.file}[{d.first}..{d.last}])")
        _check(0 <= d.first <= d.last <= 0xFFFF, f"bad declaration range {d.first}..{d.last}")
        um = 0xF if d.usage_mask is None else _mask_bits(d.usage_mask)
        _check(d.memory_type in _MEMTYPES + ("GLOBAL",), f"unknown memory type {d.memory_type}")
        mt = _MEMTYPES.index(None if d.memory_type == "GLOBAL" else d.memory_type)
        body = [d.first | d.last << 16]
        if d.dim is not None:
            body.append(_u(d.dim, 16, "declaration dimension"))
        if d.interpolate is not None:
            _check(d.interpolate in INTERPOLATIONS, f"unknown interpolation {d.interpolate}")
            _check(d.location in (None,) + LOCATIONS, f"unknown location {d.location}")
            body.append(INTERPOLATIONS.index(d.interpolate)
                        | LOCATIONS.index(d.location or "CENTER") << 4)
        else:
            _check(d.location is None, "a location needs an interpolation mode")
        if d.semantic is not None:
            _check(d.semantic in SEMANTICS, f"unknown semantic {d.semantic}")
            st = d.stream or (0, 0, 0, 0)
            body.append(SEMANTICS.index(d.semantic) | _u(d.semantic_index, 16, "semantic index") << 8
                        | sum(_u(s, 2, "stream") << (24 + 2 * c) for c, s in enumerate(st)))
        else:
            _check(d.stream is None and d.semantic_index == 0, "stream/index without a semantic")
        if d.file == "IMAGE":
            body.append(self.target(d.target, "DCL IMAGE") | int(d.raw) << 8
                        | int(d.writable) << 9 | self.format(d.format) << 10)
        else:
            _check(not (d.raw or d.writable or d.format), "RAW/WR/format only on IMAGE")
        if d.file == "SVIEW":
            _check(d.return_types is not None and all(t in RETURN_TYPES for t in d.return_types),
                   "DCL SVIEW needs four return types")
            body.append(self.target(d.target, "DCL SVIEW")
                        | sum(RETURN_TYPES.index(t) << (8 + 6 * c)
                              for c, t in enumerate(d.return_types)))
        else:
            _check(d.return_types is None, "return types only on SVIEW")
            _check(d.file == "IMAGE" or d.target is None, "a target only on IMAGE/SVIEW")
        if d.array_id:
            body.append(_u(d.array_id, 10, "array ID"))
        head = (0 | (1 + len(body)) << 4 | self.file(d.file) << 12 | um << 16
                | int(d.dim is not None) << 20 | int(d.semantic is not None) << 21
                | int(d.interpolate is not None) << 22 | int(d.invariant) << 23
                | int(d.local) << 24 | int(bool(d.array_id)) << 25 | int(d.atomic) << 26
                | mt << 27)
        return [head] + body

    def imm(self, m: Immediate) -> list[int]:
        _check(m.type in IMM_TYPES, f"unknown immediate type {m.type}")
        n = len(m.words)
        _check(1 <= n <= 4 and (IMM_TYPES.index(m.type) < 3 or n % 2 == 0),
               f"{m.type} immediate with {n} words")
        return [1 | (1 + n) << 4 | IMM_TYPES.index(m.type) << 18] + [
            _u(v, 32, "immediate word") for v in m.words]

    def prop(self, p: Property) -> list[int]:
        _check(p.name in PROPERTIES, f"unknown property {p.name}")
        names = self.processors if p.name == "NEXT_SHADER" else _PROPERTY_ENUMS.get(p.name)
        if names is not None:
            _check(p.value in names, f"{p.name} value {p.value} is not defined")
            value = list(names).index(p.value)
        else:
            try:
                value = int(p.value, 0) if not p.value.isdigit() else int(p.value)
            except ValueError:
                raise ValueError(f"{p.name} value {p.value!r} is not a number") from None
        return [3 | 2 << 4 | PROPERTIES.index(p.name) << 12, _u(value, 32, "property value")]

    def ind(self, ind: Indirect, array_id: int = 0) -> int:
        if ind.array_id and array_id:
            _check(ind.array_id == array_id, "two different array IDs on one bracket")
        aid = ind.array_id or array_id
        return (self.file(ind.file) | _i16(ind.index, "indirect offset") << 4
                | _u(ind.comp, 2, "indirect component") << 20 | _u(aid, 10, "array ID") << 22)

    def reg_tail(self, reg: RegRef) -> list[int]:
        _check(reg.array_id == 0 or reg.indirect is not None,
               "an array ID needs an indirect index")
        tail = [self.ind(reg.indirect, reg.array_id)] if reg.indirect else []
        if reg.dim is not None:
            tail.append(int(reg.dim_indirect is not None) | _i16(reg.dim, "dimension") << 16)
            if reg.dim_indirect:
                tail.append(self.ind(reg.dim_indirect))
        else:
            _check(reg.dim_indirect is None, "indirect dimension without a dimension")
        return tail

    def dst(self, d: Dst) -> list[int]:
        _check(d.cond is None, "the modern layout has no NV condition codes (dst CC mask)")
        _check(d.modulate == "1X", f"the modern layout has no destination modulate {d.modulate}")
        r = d.reg
        return [self.file(r.file) | _mask_bits(d.mask) << 4 | int(r.indirect is not None) << 8
                | int(r.dim is not None) << 9 | _i16(r.index, "register index") << 10
                ] + self.reg_tail(r)

    def src(self, s: Src) -> list[int]:
        _check(max(s.swizzle) <= 3 and min(s.swizzle) >= 0,
               "the modern layout has no 0/1 swizzle selectors (SEED SWZ)")
        _check(not any(s.comp_neg), "the modern layout has no per-component negate")
        _check(s.ext_divide == 5, "the modern layout has no ExtDivide")
        _check(not (s.complement or s.bias or s.scale2x),
               "the modern layout has no complement/bias/scale2x source modifiers")
        _check(not (s.abs and s.neg), "the modern layout has no negate before |x|")
        _check(s.abs or not s.abs_neg,
               "the modern layout has no post-modifier negate without |x| (use neg)")
        r = s.reg
        return [self.file(r.file) | int(r.indirect is not None) << 4 | int(r.dim is not None) << 5
                | _i16(r.index, "register index") << 6
                | sum(v << (22 + 2 * c) for c, v in enumerate(s.swizzle))
                | int(s.abs) << 30 | int(s.neg or s.abs_neg) << 31] + self.reg_tail(r)

    def offset(self, s: Src) -> int:
        r = s.reg
        _check(r.indirect is None and r.dim is None and r.array_id == 0,
               "texture offsets are plain registers")
        _check(not (s.neg or s.abs or s.abs_neg or any(s.comp_neg) or s.complement or s.bias
                    or s.scale2x or s.ext_divide != 5), "texture offsets take no modifiers")
        _check(max(s.swizzle[:3]) <= 3, "texture offset swizzle")
        return (_i16(r.index, "offset index") | self.file(r.file) << 16
                | sum(v << (20 + 2 * c) for c, v in enumerate(s.swizzle[:3])))

    def memory(self, items: Sequence[str]) -> int:
        qual = tex = fmt = 0
        seen_tex = seen_fmt = False
        for it in items:
            if it in _MEMQUALS:
                qual |= 1 << _MEMQUALS.index(it)
            elif it in TEXTURE_TARGETS:
                _check(not seen_tex, "two memory targets")
                tex, seen_tex = TEXTURE_TARGETS.index(it), True
            else:
                _check(not seen_fmt, "two memory formats")
                fmt, seen_fmt = self.format(it), True
        return qual | tex << 4 | fmt << 12

    def instr(self, i: Instruction) -> list[int]:
        _check(i.opcode in self.ops, f"opcode {i.opcode} has no number in the modern table")
        _check(i.saturate in ("", "SAT"),
               f"the modern layout has no saturate mode {i.saturate} ([-1,1] is SEED only)")
        _check(i.precision is None, "the modern layout has no precision (EXT_NV)")
        _check(i.cc_update is None and i.cond is None,
               "the modern layout has no NV condition codes (EXT_NV)")
        _check(len(i.dsts) <= 3 and len(i.srcs) <= 15, "too many operands")
        _check(i.texture is not None or not i.tex_offsets, "texture offsets need a target")
        follow = []
        if i.label is not None:
            follow.append(_u(i.label, 24, "label"))
        if i.texture is not None:
            _check(len(i.tex_offsets) <= 15, "too many texture offsets")
            follow.append(self.target(i.texture, "instruction") | len(i.tex_offsets) << 8)
            follow += [self.offset(o) for o in i.tex_offsets]
        if i.memory:
            follow.append(self.memory(i.memory))
        ops = [t for d in i.dsts for t in self.dst(d)] + [t for s in i.srcs for t in self.src(s)]
        size = 1 + len(follow) + len(ops)
        _check(size <= 0xFF, "instruction longer than 255 tokens")
        head = (2 | size << 4 | self.ops[i.opcode] << 12 | int(i.saturate == "SAT") << 20
                | len(i.dsts) << 21 | len(i.srcs) << 23 | int(i.label is not None) << 27
                | int(i.texture is not None) << 28 | int(bool(i.memory)) << 29
                | int(i.precise) << 30)
        return [head] + follow + ops


def encode_modern(shader: Shader, *, opcode_table: str | Mapping[int, str] = "modern",
                  processor_enum: str = "mesa2023",
                  formats: Sequence[str | None] | None = None) -> bytes:
    """Encode ``shader`` in Mesa's ``p_shader_tokens.h`` layout.

    Properties, then declarations, immediates, instructions.  Raises ``ValueError`` naming
    what the modern layout cannot express: NV condition codes and precision (EXT_NV, dst
    CONDCODE), destination modulate, [-1,1] saturate, the SEED source modifiers (0/1 swizzle
    selectors, per-component negate, ExtDivide, complement, bias, scale2x, a negate before
    ``|x|``), opcodes without a modern number (the legacy ones), and declarations whose
    ``implicit_dim`` disagrees with the dumper's rule (it is not stored in the tokens).
    """
    table = opcode_table if isinstance(opcode_table, Mapping) else OPCODE_TABLES[opcode_table]
    procs = _MODERN_PROCESSORS[processor_enum]
    _check(shader.processor in procs, f"no processor {shader.processor} in {processor_enum}")
    wr = _ModernWriter(table, procs, shader.processor, formats)
    body: list[int] = []
    for p in shader.properties:
        body += wr.prop(p)
    for d in shader.declarations:
        body += wr.decl(d)
    for m in shader.immediates:
        body += wr.imm(m)
    for i in shader.instructions:
        body += wr.instr(i)
    _check(len(body) < 1 << 24, "body too long")
    return _pack([2 | len(body) << 8, list(procs).index(shader.processor)] + body)
