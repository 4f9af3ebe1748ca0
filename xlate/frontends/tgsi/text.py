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

from . import opcodes as _ops
from ...diagnostics import DiagnosticSink, Span
from .model import Declaration, Dst, IMM_TYPES, Immediate, Instruction, Property, Shader, Src
from .text_declarations import _Declarations
from .text_lex import (MAX_TEX_OFFSETS, MEMORY_QUALIFIERS, PRIMITIVES, PROPERTIES, SAMPLE_OPCODES,
                       SEMANTICS, _ERA_2012_COMPUTE, _Fail, _HEADER_RE, _INT_RE, _LINE_SPLIT,
                       _NO_OPERAND_OK, _OLD_OPCODES, _OLD_RESOURCES, _PUNCT, _SAMPLE_OFFSETS,
                       _TARGETS, _TOKENS, _UINT_RE, _WCHARS, _describe, _isint, _isword,
                       _old_file_message, _operand_start_at, _parse_c_int, float32_bits,
                       implicit_dim, parse_float32, parse_float64)
from .text_operands import _Operands

__all__ = ["parse_text", "implicit_dim", "SAMPLE_OPCODES", "SEMANTICS", "PROPERTIES",
           "MEMORY_QUALIFIERS", "PRIMITIVES", "float32_bits", "parse_float32", "parse_float64"]


#: the message of a C preprocessor line in the text (the one error reported for such a source)
_CPP_LINE = "'#' starts a C preprocessor line"

class _Parser(_Declarations, _Operands):
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
                if err.message.startswith(_CPP_LINE):
                    # the rest is written in the source's macros: every line would be an error
                    # of its own, none of them the cause
                    return None
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
            if v == "#" and self.bol(i):
                raise _Fail("E1003", _CPP_LINE + " (#define, #ifdef ...): "
                            "the Mesa 2012-era compute tests (src/gallium/tests/trivial/"
                            "compute.c) ran their TGSI through cpp first; xlate reads the "
                            "preprocessed text (cpp -P)", i)
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
