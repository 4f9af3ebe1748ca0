"""Parse TGSI text (what Mesa's ``tgsi_dump`` prints, and what virgl sends) into the model.

Entry point: :func:`parse_text` ``(text, sink) -> Shader | None``.

Why hand-written and not lark
-----------------------------
TGSI text is not line-based: a statement ends where its grammar ends and the next one starts
at the next keyword (virgl sends a whole program on one line, statements separated by single
spaces).  A grammar for that needs the operand count of every opcode (the only thing that
ends an operand list) and context-dependent keywords (``COLOR`` is a semantic and an interpolation
mode, ``BUFFER`` a register file and a texture target, ``SAMPLE`` an opcode and a location).
And speed: on this machine lark's lexer alone takes ~0.7 s for the collected corpus (350 000
tokens, ~900 KB), a trivial lark LALR grammar over the same tokens ~1.6 s, while this parser
does everything in ~0.2-0.4 s.  So: each line is cut into token strings by one ``findall``
(words, integers, ``..``, one token for a whole ``{...}`` immediate body, single characters),
and a recursive-descent parser that follows ``tgsi_text.c`` statement by statement walks the
token list.  Token kinds are read from the first character; columns are recomputed only for
spans (statements and diagnostics).

Accepted beyond MODERN Mesa (tgsi.md 1.11/1.12, all lenient forms of the design card):
CR and CRLF line ends; 1-3 letter source swizzles (warning E1006: one letter broadcasts, two
or three repeat the last); whitespace around the sign of an indirect offset; ``BGNSUB :n``;
``VERT1.1`` style headers (``Shader.version``); legacy opcode spellings (``opcodes.ALIASES``);
``EMIT``/``ENDPRIM`` without an operand; ``IMM`` without an index; FLT32 immediates written as
raw bits ``0x3f800000`` (exactly eight hex digits, no ``.``/``p``: virgl's rule) as well as
decimal and C99 hex floats; FLT64 immediates as raw bits ``0x`` + sixteen hex digits (the
printer's escape for NaN payloads); the ``RES`` file of ~2011-2015 (``DCL RES[0], 2D, FLOAT``,
``DCL RES[0], BUFFER, RAW, WR``); ``(n)`` after a direct register index; semantics on vertex
shader inputs (old graw tests); STREAM, interpolation and location on any declaration; a
property value given as a number where the dumper prints a name; a missing ``END`` (warning
E1004, an END is appended).  There are no comments (Mesa has none): ``#`` is E1003.  A
required token is never taken from the next line (see :meth:`_Parser.expect`).

Normalisations (so that the text, the printer and the binary readers agree on one model):
usage mask ``.xyzw`` -> ``None``; location ``CENTER`` -> ``None``; memory type ``GLOBAL`` ->
``None``; ``STREAM(0, 0, 0, 0)`` -> ``None``; one SVIEW return type -> four equal ones; property
enum values upper-cased; memory-instruction extras in dumper order (qualifiers by bit, then
target, then format) in ``Instruction.memory``; SAMPLE..GATHER4 get ``texture="UNKNOWN"`` (what
Mesa's parser stores; the text has no target there); a texel offset ``IMM[n].xyz`` is a
:class:`Src` with swizzle ``(x, y, z, 3)``; the ``(n)`` array id of the main bracket goes to
``RegRef.array_id`` (also after a direct index), that of an indirect dimension bracket to
``dim_indirect.array_id`` (``Indirect.array_id`` of the main indirect stays 0);
``Declaration.implicit_dim`` follows Mesa's dumper rule (:func:`implicit_dim`: GEOM inputs,
non-patch TESS inputs and TESS_CTRL outputs) whether or not the text wrote ``IN[]``; the first
bracket of such a 2-bracket declaration is dropped, as Mesa does.

Checks after parsing (``tgsi_sanity``): DCL/IMM after the first instruction, registers used but
never declared (E2003; IMM beyond the immediates; an indirectly addressed file needs one
declared register; ``CONST[0][i]`` and ``CONST[i]`` are the same; a per-vertex ``IN[v][i]``
needs ``IN[i]``), registers declared twice (E2001), the NULL file, empty write masks.

Diagnostics: every error of the file is reported (after an error the rest of its line is
skipped; the next statement is searched at the next line start); ``None`` is returned when
there was any error.  Spans point at the offending token.
"""
from __future__ import annotations

import re
import struct
from fractions import Fraction

from ...diagnostics import DiagnosticSink, Span
from . import opcodes as _ops
from .model import (FILES, IMM_TYPES, INTERPOLATIONS, PROCESSORS, RETURN_TYPES,
                    TEXTURE_TARGETS, Declaration, Dst, Immediate, Indirect, Instruction,
                    Property, RegRef, Shader, Src)

__all__ = ["parse_text", "implicit_dim", "SAMPLE_OPCODES", "SEMANTICS", "PROPERTIES",
           "MEMORY_QUALIFIERS", "PRIMITIVES", "float32_bits", "parse_float32", "parse_float64"]

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


class _Parser:
    def __init__(self, text: str, sink: DiagnosticSink):
        self.text = text
        self.sink = sink
        self.file = sink.file
        self.processor: str | None = None
        self.version = None
        self.properties: list[Property] = []
        self.decls: list[Declaration] = []
        self.imms: list[Immediate] = []
        self.insts: list[Instruction] = []
        # (file, dim) -> [(first, last, decl line)] ; dim None = 1-D or implicit 2-D
        self.ranges: dict[tuple[str, int | None], list[tuple[int, int, int]]] = {}
        # the same as sets of indices for small ranges (fast lookups); big ranges stay in
        # self.big (a corrupt 'DCL TEMP[0..4000000000]' must not allocate)
        self.small: dict[tuple[str, int | None], set[int]] = {}
        self.big: dict[tuple[str, int | None], list[tuple[int, int]]] = {}
        self.files_declared: set[str] = set()
        self.seen_instruction = False

    # -- tokens and positions ------------------------------------------------------------------
    def _lex(self, text: str) -> None:
        lines = _LINE_SPLIT(text)
        vals: list[str] = []
        tline: list[int] = []
        first: list[int] = [0]          # first token index of line n (1-based: first[n])
        for n, line in enumerate(lines, 1):
            first.append(len(vals))
            if line:
                toks = _TOKENS(line)
                if toks:
                    vals += toks
                    tline += [n] * len(toks)
                    if len(vals) > MAX_TOKENS:
                        # bounded memory: the rest is not lexed (run() reports E1008)
                        self.too_large = n
                        lines = lines[:n]
                        break
        first.append(len(vals))
        vals.append("")                  # end of input
        vals.append("")
        tline.append(len(lines))
        tline.append(len(lines))
        self.lines = lines
        self.v = vals
        self.tl = tline
        self.first = first
        self.n = len(vals) - 2

    def bol(self, i: int) -> bool:
        return i >= self.n or i == 0 or self.tl[i - 1] != self.tl[i]

    def col(self, i: int) -> int:
        if i >= self.n:
            return len(self.lines[-1]) + 1
        line_no = self.tl[i]
        line = self.lines[line_no - 1]
        vals = self.v
        pos = 0
        for k in range(self.first[line_no], i):
            pos = line.index(vals[k], pos) + len(vals[k])
        return line.index(vals[i], pos) + 1

    def span(self, i: int, length: int | None = None, col_offset: int = 0) -> Span:
        if length is None:
            length = max(1, len(self.v[i]))
        return Span(self.file, self.tl[i], self.col(i) + col_offset, length)

    # A required token is never taken from the next line (Mesa would, but no real program
    # breaks a statement across lines, and the diagnostic is much clearer this way).
    def expect(self, tok: str, what: str) -> int:
        i = self.i
        if self.v[i] != tok or self.tl[i] != self.tl[i - 1]:
            raise _Fail("E1002", f"expected {what}, found {_describe(self.v[i])}", i)
        self.i = i + 1
        return i

    def expect_word(self, what: str) -> int:
        i = self.i
        if not _isword(self.v[i]) or self.tl[i] != self.tl[i - 1]:
            raise _Fail("E1002", f"expected {what}, found {_describe(self.v[i])}", i)
        self.i = i + 1
        return i

    def uint(self, what: str = "an unsigned integer") -> int:
        i = self.i
        v = self.v[i]
        if not _isint(v) or self.tl[i] != self.tl[i - 1]:
            raise _Fail("E1002", f"expected {what}, found {_describe(v)}", i)
        value = int(v)
        if value > 0xFFFFFFFF:
            raise _Fail("E1007", f"integer {v} does not fit in 32 bits", i)
        self.i = i + 1
        return value

    # -- driver --------------------------------------------------------------------------------
    def run(self) -> Shader | None:
        text = self.text
        m = _LONG_NUMBER.search(text)
        if m:              # Python's int() refuses more than 4300 digits; none is meaningful
            line = text.count("\n", 0, m.start()) + 1
            self.sink.error("E1007", f"a number of {len(m.group())} digits; xlate reads numbers "
                            f"of at most {MAX_DIGITS} digits",
                            Span(self.file, line, m.start() - (text.rfind("\n", 0, m.start()) + 1)
                                 + 1, 1))
            return None
        m = _HEADER_RE.match(text)
        if m:
            self.processor = m.group(1).upper()
            if m.group(2) is not None:
                self.version = (int(m.group(2)), int(m.group(3)))
            # blank the header out, keeping line ends, so that columns stay right
            text = re.sub(r"[^\r\n]", " ", text[:m.end()]) + text[m.end():]
        self.too_large = 0
        self._lex(text)
        if self.too_large:
            self.sink.error("E1008", f"more than {MAX_TOKENS} tokens (by line {self.too_large}); "
                            "xlate reads TGSI programs of at most that many",
                            Span(self.file, self.too_large, 1, 1))
            return None
        vals = self.v
        n = self.n
        self.i = 0
        if not m:
            if n == 0:
                self.sink.error("E1001", "empty program: expected a processor header "
                                "(VERT, FRAG, GEOM, TESS_CTRL, TESS_EVAL or COMP)",
                                Span(self.file, 1, 1, 1))
                return None
            self.sink.error("E1001", f"expected a processor header (VERT, FRAG, GEOM, "
                            f"TESS_CTRL, TESS_EVAL or COMP), found {_describe(vals[0])}",
                            self.span(0))
            j = 1                        # go on after the first line: report what else is wrong
            while not self.bol(j):
                j += 1
            self.i = j
        while self.i < n:
            start = self.i
            try:
                self.statement()
            except _Fail as err:
                j = min(err.index, n)
                bad = vals[j]
                if err.code == "E1002" and len(bad) == 1 and bad not in _PUNCT and \
                        bad not in _WCHARS and bad != "{":
                    err = _Fail("E1003", f"unexpected character {bad!r}", j)
                found = f"found {_describe(bad)}"
                if j > start and self.bol(j) and err.message.endswith(found):
                    # the statement ran out at the end of its line: say so, point there
                    prev = vals[j - 1]
                    where = Span(self.file, self.tl[j - 1], self.col(j - 1) + len(prev), 1)
                    message = err.message[:-len(found)] + "found end of line"
                    self.sink.error(err.code, message, where)
                else:
                    self.sink.error(err.code, err.message, self.span(j, err.length,
                                                                     err.col_offset))
                if j <= start:
                    j = start + 1
                while not self.bol(j):
                    j += 1
                self.i = j
        if not any(inst.opcode == "END" for inst in self.insts):
            self.sink.warning("E1004", "program has no END; one is assumed at the end",
                              Span(self.file, self.tl[n], self.col(n), 1))
            self.insts.append(Instruction("END"))
        if self.sink.has_errors:
            return None
        return Shader(self.processor or "VERT", self.properties, self.decls, self.imms,
                      self.insts, self.version, self.file)

    def statement(self) -> None:
        vals = self.v
        i = self.i
        v = vals[i]
        if _isint(v):
            if vals[i + 1] != ":":
                raise _Fail("E1002", f"expected ':' after the instruction number {v}, "
                            f"found {_describe(vals[i + 1])}", i + 1)
            self.i = i + 2
            if not _isword(vals[i + 2]):
                raise _Fail("E1002", f"expected an opcode, found {_describe(vals[i + 2])}",
                            i + 2)
            self.instruction()
            return
        if not _isword(v):
            if v[0] in _PUNCT:
                raise _Fail("E1002", "expected a declaration, immediate, property or "
                            f"instruction, found {_describe(v)}", i)
            if v[0] == "{" or v == "..":
                raise _Fail("E1002", "expected a declaration, immediate, property or "
                            f"instruction, found {_describe(v)}", i, len(v) if v == ".." else 1)
            raise _Fail("E1003", f"unexpected character {v!r}", i)
        word = v.upper()
        if word == "DCL":
            self.declaration()
        elif word == "IMM":
            self.immediate()
        elif word == "PROPERTY":
            self.property()
        else:
            self.instruction()

    # -- PROPERTY ------------------------------------------------------------------------------
    def property(self) -> None:
        self.i += 1
        ni = self.expect_word("a property name")
        vals = self.v
        name = vals[ni].upper()
        if name not in PROPERTIES:
            raise _Fail("E1002", f"unknown property '{vals[ni]}'", ni)
        allowed = PROPERTIES[name]
        vi = self.i
        v = vals[vi]
        if _isint(v):
            value = str(self.uint("a property value"))
        elif allowed is not None and v.upper() in allowed and self.tl[vi] == self.tl[ni]:
            value = v.upper()
            self.i += 1
        else:
            what = "an unsigned integer" if allowed is None else "one of " + ", ".join(allowed)
            raise _Fail("E1002", f"invalid value {_describe(v)} for property {name}: "
                        f"expected {what}", vi)
        self.properties.append(Property(name, value, self.span(ni)))

    # -- IMM -----------------------------------------------------------------------------------
    def immediate(self) -> None:
        vals = self.v
        ki = self.i
        self.i += 1
        if self.seen_instruction:
            self.sink.error("E1002", "immediate after the first instruction (declarations and "
                            "immediates come first)", self.span(ki))
        if vals[self.i] == "[":
            self.i += 1
            xi = self.i
            index = self.uint("the immediate index")
            self.expect("]", "']'")
            if index != len(self.imms):
                raise _Fail("E1002", f"immediates must be numbered in order: expected "
                            f"IMM[{len(self.imms)}], found IMM[{index}]", xi)
        ti = self.expect_word("an immediate type (FLT32, UINT32, INT32, FLT64, UINT64, INT64)")
        typ = vals[ti].upper()
        if typ not in IMM_TYPES:
            raise _Fail("E1002", f"unknown immediate type '{vals[ti]}' (expected FLT32, "
                        "UINT32, INT32, FLT64, UINT64 or INT64)", ti)
        bi = self.i
        raw = vals[bi]
        if raw[:1] != "{" or self.tl[bi] != self.tl[bi - 1]:
            raise _Fail("E1002", f"expected '{{', found {_describe(raw)}", bi)
        self.i = bi + 1
        if not raw.endswith("}") or len(raw) < 2:
            raise _Fail("E1002", "expected '}' to close the immediate values", bi, 1, len(raw))
        inner = raw[1:-1]
        want = 2 if typ.endswith("64") else 4
        parts = inner.split(",")
        if len(parts) != want:
            raise _Fail("E1002", f"{typ} immediates take exactly {want} values, found "
                        f"{len(parts) if inner.strip() else 0}", bi, len(raw))
        words: list[int] = []
        offset = 1
        for k, part in enumerate(parts):
            text = part.strip(" \t")
            vcol = offset + (len(part) - len(part.lstrip(" \t")))
            offset += len(part) + 1
            if not text:
                raise _Fail("E1002", "expected a value, found '}'" if k == want - 1
                            else "expected a value, found ','", bi, 1, vcol)
            if typ == "FLT32":
                bits = parse_float32(text)
                if bits is None:
                    raise _Fail("E1007", f"invalid FLT32 value '{text}'", bi, len(text), vcol)
                words.append(bits)
            elif typ == "UINT32":
                if not _UINT_RE.match(text) or int(text) > 0xFFFFFFFF:
                    raise _Fail("E1007", f"invalid UINT32 value '{text}' (unsigned decimal "
                                "below 2^32)", bi, len(text), vcol)
                words.append(int(text))
            elif typ == "INT32":
                if not _INT_RE.match(text) or not -0x80000000 <= int(text) <= 0x7FFFFFFF:
                    raise _Fail("E1007", f"invalid INT32 value '{text}' (decimal in "
                                "[-2^31, 2^31))", bi, len(text), vcol)
                words.append(int(text) & 0xFFFFFFFF)
            else:
                if typ == "FLT64":
                    bits64 = parse_float64(text)
                    ok = bits64 is not None
                else:
                    bits64 = _parse_c_int(text)
                    if typ == "UINT64":
                        ok = bits64 is not None and 0 <= bits64 <= 0xFFFFFFFFFFFFFFFF \
                            and text[0] not in "+-"
                    else:
                        ok = bits64 is not None and \
                            -0x8000000000000000 <= bits64 <= 0x7FFFFFFFFFFFFFFF
                if not ok:
                    raise _Fail("E1007", f"invalid {typ} value '{text}'", bi, len(text), vcol)
                bits64 &= 0xFFFFFFFFFFFFFFFF
                words.append(bits64 & 0xFFFFFFFF)
                words.append(bits64 >> 32)
        self.imms.append(Immediate(typ, tuple(words), self.span(ki)))

    # -- DCL -----------------------------------------------------------------------------------
    def _dcl_bracket(self, allow_empty: bool):
        """after '[': -> (first, last) or None for '[]'."""
        vals = self.v
        if vals[self.i] == "]":
            if not allow_empty:
                raise _Fail("E1002", "expected a register index, found ']'", self.i)
            self.i += 1
            return None
        fi = self.i
        first = self.uint("a register index")
        last = first
        if vals[self.i] == "..":
            self.i += 1
            last = self.uint("the last register index")
        self.expect("]", "']' or '..'")
        if last < first:
            raise _Fail("E1002", f"empty register range {first}..{last}", fi)
        return first, last

    def declaration(self) -> None:
        vals = self.v
        ki = self.i
        self.i += 1
        if self.seen_instruction:
            self.sink.error("E1002", "declaration after the first instruction (declarations "
                            "and immediates come first)", self.span(ki))
        fi = self.i
        v = vals[fi]
        if not _isword(v):
            raise _Fail("E1002", f"expected a register file, found {_describe(v)}", fi)
        file = v.upper()
        if file not in _FILES:
            raise _Fail("E3004", _old_file_message(v) or f"unknown register file '{v}'", fi)
        self.i += 1
        self.expect("[", "'['")
        proc = self.processor
        per_vertex = (file == "IN" and proc in ("GEOM", "TESS_CTRL", "TESS_EVAL")) or \
                     (file == "OUT" and proc == "TESS_CTRL")
        b1 = self._dcl_bracket(per_vertex)
        dim = None
        if vals[self.i] == "[":
            self.i += 1
            b2 = self._dcl_bracket(False)
            if not per_vertex:
                if b1[0] != b1[1]:
                    raise _Fail("E1002", "the first bracket of a 2-D declaration is one "
                                "index, not a range", fi + 2)
                dim = b1[0]
            b1 = b2
        elif b1 is None:
            raise _Fail("E1002", "'[]' needs a second bracket ('IN[][0]')", fi + 2)
        first, last = b1
        usage = None
        if vals[self.i] == ".":
            self.i += 1
            usage = self._mask("usage mask")
            if usage == (True, True, True, True):
                usage = None
        fields: dict = {}
        resource = file in ("IMAGE", "SVIEW", "RES")
        special = resource or file in ("BUFFER", "MEMORY")
        stage = 0
        # stages: 1 ARRAY, 2 LOCAL, 3 semantic / file part, 4 STREAM, 5 interpolation,
        # 6 location, 7 INVARIANT
        while vals[self.i] == ",":
            self.i += 1
            wi = self.i
            wv = vals[wi]
            if not _isword(wv):
                raise _Fail("E1002", f"expected a declaration attribute, found "
                            f"{_describe(wv)}", wi)
            word = wv.upper()
            self.i += 1
            if word == "ARRAY" and stage < 1:
                self.expect("(", "'('")
                fields["array_id"] = self.uint("an array id")
                self.expect(")", "')'")
                stage = 1
            elif resource and stage < 2 and "target" not in fields:
                if word not in _TARGETS:
                    raise _Fail("E5001", f"unknown texture target '{wv}'", wi)
                fields["target"] = word
                self._resource_tail(file, fields)
                stage = 3
            elif file == "BUFFER" and word == "ATOMIC" and stage < 2:
                fields["atomic"] = True
                stage = 3
            elif file == "MEMORY" and word in MEMORY_TYPES and stage < 2:
                if word != "GLOBAL":
                    fields["memory_type"] = word
                stage = 3
            elif word == "LOCAL" and stage < 2 and not special:
                fields["local"] = True
                stage = 2
            elif word in SEMANTICS and stage < 3 and not special:
                fields["semantic"] = word
                if vals[self.i] == "[":
                    self.i += 1
                    fields["semantic_index"] = self.uint("a semantic index")
                    self.expect("]", "']'")
                stage = 3
            elif word == "STREAM" and stage < 4:
                self.expect("(", "'('")
                streams = []
                for k in range(4):
                    if k:
                        self.expect(",", "','")
                    streams.append(self.uint("a vertex stream number"))
                self.expect(")", "')'")
                if any(streams):
                    fields["stream"] = tuple(streams)
                stage = 4
            elif word in _INTERP and stage < 5:
                fields["interpolate"] = word
                stage = 5
            elif word in LOCATIONS_PARSED and stage < 6:
                if word != "CENTER":
                    fields["location"] = word
                stage = 6
            elif word == "INVARIANT" and stage < 7:
                fields["invariant"] = True
                stage = 7
            elif word in SEMANTICS or word in _INTERP or word in LOCATIONS_PARSED or \
                    word in ("ARRAY", "LOCAL", "STREAM", "INVARIANT", "ATOMIC"):
                raise _Fail("E1002", f"'{wv}' is repeated or out of place in this "
                            "declaration (order: ARRAY, LOCAL, semantic, STREAM, "
                            "interpolation, location, INVARIANT)", wi)
            else:
                raise _Fail("E1002", f"unknown declaration attribute '{wv}'", wi)
        implicit = per_vertex and implicit_dim(proc, file, fields.get("semantic"))
        decl = Declaration(file, first, last, dim=dim, implicit_dim=implicit,
                           usage_mask=usage, span=self.span(fi), **fields)
        self._declare(decl, fi)
        self.decls.append(decl)

    def _resource_tail(self, file: str, fields: dict) -> None:
        """After the target of IMAGE / SVIEW / RES: RAW, WR, a format, return types."""
        vals = self.v
        types: list[str] = []
        image = file != "SVIEW"
        while vals[self.i] == "," and _isword(vals[self.i + 1]):
            word = vals[self.i + 1].upper()
            if image and word == "RAW" and not fields.get("raw"):
                fields["raw"] = True
            elif image and word == "WR" and not fields.get("writable"):
                fields["writable"] = True
            elif image and word.startswith("PIPE_FORMAT_") and "format" not in fields:
                fields["format"] = word
            elif file != "IMAGE" and word in _RTYPES and len(types) < 4:
                types.append(word)
            else:
                break
            self.i += 2
        if file == "SVIEW" and not types:
            j = self.i + 1 if vals[self.i] == "," else self.i
            raise _Fail("E1002", "expected a return type (UNORM, SNORM, SINT, UINT, FLOAT) "
                        f"after the SVIEW target, found {_describe(vals[j])}", j)
        if types:
            if len(types) == 1:
                types *= 4
            elif len(types) != 4:
                raise _Fail("E1002", "a sampler view takes one return type or four, found "
                            f"{len(types)}", self.i - 1)
            fields["return_types"] = tuple(types)

    def _declare(self, decl: Declaration, fi: int) -> None:
        lst = self.ranges.setdefault((decl.file, decl.dim), [])
        for first, last, line in lst:
            if first <= decl.last and decl.first <= last:
                lo = max(first, decl.first)
                dim = "" if decl.dim is None else f"[{decl.dim}]"
                self.sink.error("E2001", f"{decl.file}{dim}[{lo}] is declared twice",
                                self.span(fi), f"first declared on line {line}")
                break
        lst.append((decl.first, decl.last, self.tl[fi]))
        key = (decl.file, decl.dim)
        if decl.last - decl.first < 4096:
            self.small.setdefault(key, set()).update(range(decl.first, decl.last + 1))
        else:
            self.big.setdefault(key, []).append((decl.first, decl.last))
        self.files_declared.add(decl.file)

    # -- masks and swizzles --------------------------------------------------------------------
    def _mask(self, what: str = "write mask") -> tuple[bool, bool, bool, bool]:
        i = self.i
        v = self.v[i]
        if not _isword(v) or self.tl[i] != self.tl[i - 1]:
            raise _Fail("E1006", f"empty {what} after '.'", i - 1)
        mask = [False, False, False, False]
        last = -1
        for ch in v.upper():
            c = _SWZ.get(ch)
            if c is None or c <= last:
                raise _Fail("E1006", f"invalid {what} '.{v}': letters x, y, z, w in this "
                            "order, each at most once", i)
            mask[c] = True
            last = c
        self.i = i + 1
        return tuple(mask)

    def _swizzle(self) -> tuple[int, int, int, int]:
        i = self.i
        v = self.v[i]
        sw = _SWIZZLES.get(v)
        if sw is not None and self.tl[i] == self.tl[i - 1]:
            self.i = i + 1
            return sw
        if not _isword(v) or self.tl[i] != self.tl[i - 1]:
            raise _Fail("E1006", "empty swizzle after '.'", i - 1)
        try:
            lst = [_SWZ[ch] for ch in v.upper()]
        except KeyError:
            raise _Fail("E1006", f"invalid swizzle '.{v}': letters x, y, z, w only",
                        i) from None
        if len(lst) > 4:
            raise _Fail("E1006", f"invalid swizzle '.{v}': at most four letters", i)
        self.i = i + 1
        full = tuple(lst + [lst[-1]] * (4 - len(lst)))
        self.sink.warning("E1006", f"short swizzle '.{v}' read as "
                          f"'.{''.join('xyzw'[c] for c in full)}' (TGSI swizzles have four "
                          "letters)", self.span(i))
        return full

    # -- operands ------------------------------------------------------------------------------
    def _bracket(self):
        """after '[': -> (index, Indirect | None, array id or None)."""
        vals = self.v
        i = self.i
        v = vals[i]
        if v[:1] in _DIGITS and v.isdigit() and self.tl[i] == self.tl[i - 1]:
            index = int(v)
            if index > 0xFFFFFFFF:
                raise _Fail("E1007", f"integer {v} does not fit in 32 bits", i)
            self.i = i + 1
            ind = None
        elif vals[i + 1] == "[" and _isword(v):
            ifile = v.upper()
            if ifile not in _FILES:
                raise _Fail("E3004", f"unknown register file '{v}'", i)
            self.i = i + 2
            iindex = self.uint("a register index")
            self.expect("]", "']'")
            comp = 0
            if vals[self.i] == ".":
                self.i += 1
                ci = self.i
                c = vals[ci].upper()
                if c not in _SWZ:
                    raise _Fail("E1006", "expected one component (x, y, z or w) selecting "
                                f"the address, found {_describe(vals[ci])}", ci)
                comp = _SWZ[c]
                self.i += 1
            index = 0
            sign = vals[self.i]
            if sign == "+" or sign == "-":
                self.i += 1
                oi = self.i
                off = self.uint("an offset")
                if off > 0x7FFFFFFF + (sign == "-"):
                    raise _Fail("E1007", f"offset {off} is out of range", oi)
                index = -off if sign == "-" else off
            ind = Indirect(ifile, iindex, comp)
            if not self._declared(ifile, None, iindex):
                self.sink.error("E2003", f"undeclared register {ifile}[{iindex}] used as an "
                                "address", self.span(i))
        else:
            raise _Fail("E1002", f"expected a register index, found {_describe(v)}", i)
        self.expect("]", "']'")
        array_id = None
        if vals[self.i] == "(":
            self.i += 1
            array_id = self.uint("an array id")
            self.expect(")", "')'")
        return index, ind, array_id

    def _register(self) -> RegRef:
        """at FILE '[' (checked by the caller)."""
        vals = self.v
        fi = self.i
        file = vals[fi].upper()
        if file not in _FILES:
            raise _Fail("E3004", _old_file_message(vals[fi]) or
                        f"unknown register file '{vals[fi]}'", fi)
        self.i = fi + 2
        index, ind, aid = self._bracket()
        if vals[self.i] == "[":
            self.i += 1
            index2, ind2, aid2 = self._bracket()
            dim_ind = ind
            if aid is not None:
                if ind is None:
                    raise _Fail("E3004", "an array id '(n)' after the dimension bracket needs "
                                "an indirect dimension", fi)
                dim_ind = Indirect(ind.file, ind.index, ind.comp, aid)
            reg = RegRef(file, index2, ind2, index, dim_ind, aid2 or 0)
        else:
            reg = RegRef(file, index, ind, None, None, aid or 0)
        self._check_use(reg, fi)
        return reg

    def _src(self) -> Src:
        vals = self.v
        neg = absolute = False
        if vals[self.i] == "-":
            neg = True
            self.i += 1
        if vals[self.i] == "|":
            absolute = True
            self.i += 1
        fi = self.i
        if vals[fi + 1] != "[" or not _isword(vals[fi]):
            raise _Fail("E1002", f"expected a register, found {_describe(vals[fi])}", fi)
        reg = self._register()
        swizzle = _IDENTITY
        if vals[self.i] == ".":
            self.i += 1
            swizzle = self._swizzle()
        if absolute:
            self.expect("|", "'|' closing the absolute value")
            return Src(reg, swizzle, False, True, neg)
        return Src(reg, swizzle, neg)

    def _dst(self) -> Dst:
        vals = self.v
        i = self.i
        if vals[i] == "-" or vals[i] == "|":
            raise _Fail("E3004", "a destination operand takes no negation or absolute value",
                        i)
        reg = self._register()
        if vals[self.i] == ".":
            self.i += 1
            return Dst(reg, self._mask())
        return Dst(reg)

    def _offset(self) -> Src:
        vals = self.v
        fi = self.i
        if vals[fi + 1] != "[" or not _isword(vals[fi]):
            raise _Fail("E3004", f"expected a texel offset register, found "
                        f"{_describe(vals[fi])}", fi)
        reg = self._register()
        if reg.indirect is not None or reg.dim is not None or reg.array_id:
            raise _Fail("E3004", "a texel offset is a plain register (no indirect index, "
                        "dimension or array id)", fi)
        swizzle = _IDENTITY
        if vals[self.i] == ".":
            self.i += 1
            si = self.i
            letters = vals[si].upper()
            if len(letters) != 3 or any(ch not in _SWZ for ch in letters):
                raise _Fail("E1006", "a texel offset takes a 3-letter swizzle, found "
                            f"{_describe(vals[si])}", si)
            swizzle = (_SWZ[letters[0]], _SWZ[letters[1]], _SWZ[letters[2]], 3)
            self.i += 1
        return Src(reg, swizzle)

    # -- register checks -----------------------------------------------------------------------
    def _declared(self, file: str, dim: int | None, index: int) -> bool:
        key = (file, dim)
        small = self.small.get(key)
        if small is not None and index in small:
            return True
        for first, last in self.big.get(key, ()):
            if first <= index <= last:
                return True
        return False

    def _check_use(self, reg: RegRef, fi: int) -> None:
        file = reg.file
        index = reg.index
        if file == "IMM":
            n = len(self.imms)
            if reg.indirect is not None:
                if n == 0:
                    self.sink.error("E2003", "IMM is addressed indirectly but the program has "
                                    "no immediates", self.span(fi))
            elif not 0 <= index < n:
                self.sink.error("E2003", f"IMM[{index}] is not declared (the program has "
                                f"{n} immediate{'s' if n != 1 else ''})", self.span(fi))
            return
        if reg.indirect is None and reg.dim is None and self._declared(file, None, index):
            return                                            # the common case
        if file == "NULL":
            self.sink.error("E3004", "the NULL register file cannot be used", self.span(fi))
            return
        if reg.indirect is not None:
            if file not in self.files_declared:
                self.sink.error("E2003", f"{file} is addressed indirectly but no {file} "
                                "register is declared", self.span(fi))
            return
        if reg.dim_indirect is not None:
            if self._declared(file, None, index) or any(
                    f == file and d is not None and self._declared(f, d, index)
                    for f, d in self.ranges):
                return
            name = f"{file}[{reg.dim_indirect.file}[{reg.dim_indirect.index}]][{index}]"
        elif reg.dim is None:
            if self._declared(file, 0, index):
                return
            name = f"{file}[{index}]"
        else:
            if self._declared(file, reg.dim, index):
                return
            if (reg.dim == 0 or file in ("IN", "OUT")) and self._declared(file, None, index):
                return
            name = f"{file}[{reg.dim}][{index}]"
        self.sink.error("E2003", f"undeclared register {name}", self.span(fi))

    # -- instructions --------------------------------------------------------------------------
    def instruction(self) -> None:
        vals = self.v
        oi = self.i
        word = vals[oi].upper()
        sat = precise = False
        op = _LOOKUP.get(word)
        if op is None:
            base = word
            if base.endswith("_PRECISE"):
                base = base[:-8]
                precise = True
            if base.endswith("_SAT"):
                base = base[:-4]
                sat = True
            if base != word:
                op = _LOOKUP.get(base)
            if op is None and base in _OLD_OPCODES:
                raise _Fail("E3001", f"{vals[oi]} is an opcode of {_ERA_2012_COMPUTE}; modern "
                            f"TGSI writes {_OLD_OPCODES[base]}; xlate reads the modern spelling "
                            "only", oi)
            if op is None:
                raise _Fail("E3001", f"unknown opcode '{vals[oi]}'", oi)
        self.i = oi + 1
        self.seen_instruction = True
        name = op.name
        nops = op.ndst + op.nsrc
        dsts: list[Dst] = []
        srcs: list[Src] = []
        offsets: list[Src] = []
        texture = None
        memory = ()
        count = 0
        sample_offsets = name in _SAMPLE_OFFSETS
        self._refuse_old_resource(self.i)
        if nops and _operand_start_at(vals, self.i):
            while True:
                ai = self.i
                if texture is not None or (sample_offsets and count >= nops):
                    if len(offsets) >= MAX_TEX_OFFSETS:
                        raise _Fail("E3003", f"{name} takes at most {MAX_TEX_OFFSETS} texel "
                                    "offsets", ai)
                    offsets.append(self._offset())
                elif count < op.ndst:
                    dsts.append(self._dst())
                    count += 1
                else:
                    srcs.append(self._src())
                    count += 1
                if vals[self.i] != ",":
                    break
                self.i += 1
                self._refuse_old_resource(self.i)
                if _operand_start_at(vals, self.i):
                    continue
                # not an operand: a texture target, or memory qualifiers/target/format
                ki = self.i
                kv = vals[ki]
                if not _isword(kv) or count != nops or not (op.tex or op.memory) or \
                        texture is not None:
                    if count != nops and _isword(kv) and (op.tex or op.memory):
                        break                   # reported as an operand count below
                    raise _Fail("E1002", f"expected an operand, found {_describe(kv)}", ki)
                if op.tex:
                    kw = kv.upper()
                    if kw not in _TARGETS:
                        raise _Fail("E5001", f"unknown texture target '{kv}'", ki)
                    texture = kw
                    self.i += 1
                    if vals[self.i] == "," and _operand_start_at(vals, self.i + 1):
                        self.i += 1
                        continue
                    break
                memory = self._memory_extras()
                break
        elif not nops and _operand_start_at(vals, self.i) and not self.bol(self.i):
            raise _Fail("E3003", f"{name} takes no operands", self.i)
        if count != nops and not (count == 0 and name in _NO_OPERAND_OK):
            raise _Fail("E3003", f"{name} takes {_count_text(op)}, found {count}", oi)
        if op.tex and texture is None and count:
            raise _Fail("E1002", f"expected ', TARGET' (a texture target) after the operands "
                        f"of {name}, found {_describe(vals[self.i])}", self.i)
        label = None
        if op.branch and vals[self.i] == ":" and not self.bol(self.i):
            self.i += 1
            label = self.uint("a label (instruction index)")
        if sample_offsets:
            texture = "UNKNOWN"     # what Mesa's parser puts in the Texture token of SAMPLE_*
        self.insts.append(Instruction(name, tuple(dsts), tuple(srcs), "SAT" if sat else "",
                                      precise, label, texture, tuple(offsets), memory,
                                      span=self.span(oi)))

    def _refuse_old_resource(self, i: int) -> None:
        """An operand spelled as a 2012-era compute resource (``LOAD TEMP[0], RGLOBAL, ...``)."""
        v = self.v[i]
        if _isword(v) and v.upper() in _OLD_RESOURCES and not self.bol(i):
            raise _Fail("E3004", _old_file_message(v), i)

    def _memory_extras(self) -> tuple[str, ...]:
        vals = self.v
        quals = 0
        target = fmt = None
        while True:
            v = vals[self.i]
            kw = v.upper() if _isword(v) else ""
            if kw in MEMORY_QUALIFIERS:
                quals |= 1 << MEMORY_QUALIFIERS.index(kw)
            elif kw in _TARGETS and target is None:
                target = kw
            elif kw.startswith("PIPE_FORMAT_") and fmt is None:
                fmt = kw
            else:
                raise _Fail("E1002", "expected a memory qualifier, texture target or format, "
                            f"found {_describe(v)}", self.i)
            self.i += 1
            if vals[self.i] != ",":
                break
            self.i += 1
        out = tuple(q for b, q in enumerate(MEMORY_QUALIFIERS) if quals >> b & 1)
        if target is not None:
            out += (target,)
        if fmt is not None:
            out += (fmt,)
        return out


def _count_text(op) -> str:
    def n(k, what):
        return f"{k} {what}{'s' if k != 1 else ''}"
    if op.ndst and op.nsrc:
        return f"{n(op.ndst, 'destination')} and {n(op.nsrc, 'source')} " \
               f"({op.ndst + op.nsrc} operands)"
    if op.ndst:
        return n(op.ndst, "destination operand")
    return n(op.nsrc, "source operand")


_IDENTITY = (0, 1, 2, 3)
#: all 4-letter swizzles, lower and upper case (the common case costs one dict lookup)
_SWIZZLES = {}
for _a in range(4):
    for _b in range(4):
        for _c in range(4):
            for _d in range(4):
                _w = "xyzw"[_a] + "xyzw"[_b] + "xyzw"[_c] + "xyzw"[_d]
                _SWIZZLES[_w] = _SWIZZLES[_w.upper()] = (_a, _b, _c, _d)
#: mnemonic (and legacy spelling) -> opcode row
_LOOKUP = {**_ops.OPCODES, **{old: _ops.OPCODES[new] for old, new in _ops.ALIASES.items()}}


MAX_DIGITS = 1000
#: tokens of one program (a 65,536-instruction program has about 600,000): checked while
#: lexing, so that a 10 MB input is rejected with bounded memory
MAX_TOKENS = 1 << 20
_LONG_NUMBER = re.compile(r"[0-9]{%d,}" % (MAX_DIGITS + 1))


def parse_text(text: str, sink: DiagnosticSink) -> Shader | None:
    """Parse TGSI text.  Every problem goes to ``sink`` (spans in ``sink.file``); returns the
    :class:`Shader`, or ``None`` when there was any error (warnings alone do not stop it)."""
    return _Parser(text, sink).run()
