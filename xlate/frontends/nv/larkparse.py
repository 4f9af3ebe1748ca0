"""The lark half of the NVIDIA/ARB assembly parser: the grammar of record (``nv.lark``), LALR
with the contextual lexer, building syntax.py's AST nodes through an inline transformer (no
intermediate lark Tree, which roughly halves parse time), and syntax-error recovery and
reporting.

Imported only when fastparse.py refuses a statement (syntax.parse_statements): the grammar is
cached on disk so a process pays ~2 ms instead of ~25 ms to build the parser, but importing lark
itself costs ~20 ms of a one-file ``xlate check``.
"""
from __future__ import annotations

import hashlib
import os
import re
import tempfile

import lark
from lark import Token

from ...diagnostics import DiagnosticSink, Span
from .syntax import (GRAMMAR_PATH, CCTestNode, Decl, IndexConst, IndexRange, IndexRel, Instr,
                     Label, Member, Number, NumberList, Operand, Ref, Subscript, _shift_span)

_PARSERS: dict[str, lark.Lark] = {}


def _cache_file(grammar: str) -> str:
    digest = hashlib.sha256((grammar + lark.__version__).encode()).hexdigest()[:16]
    base = os.environ.get("XLATE_CACHE_DIR") or os.path.join(tempfile.gettempdir(), "xlate-cache")
    try:
        os.makedirs(base, exist_ok=True)
    except OSError:
        return ""
    return os.path.join(base, f"nv-{digest}.lark.cache")


class _Builder(lark.Transformer):
    """Inline transformer: turns parse events into AST nodes (file name bound per parse)."""

    def __init__(self):
        super().__init__(visit_tokens=False)
        self.file = "<input>"
        # where the parsed text starts in the file (a statement parsed alone, see
        # parse_statements): lines down, and columns right on its first line
        self.line_offset = 0
        self.col_offset = 0

    # helpers
    def at(self, line: int, col: int, length: int) -> Span:
        """The file span of a position in the parsed text."""
        if line == 1:
            col += self.col_offset
        return Span(self.file, line + self.line_offset, col, length)

    def sp(self, tok: Token, length: int | None = None) -> Span:
        return self.at(tok.line, tok.column, length if length is not None else len(tok))

    def _span_from(self, first: Token, last_end: int | None = None) -> Span:
        length = (last_end - first.start_pos) if last_end is not None else len(first)
        return self.at(first.line, first.column, max(1, length))

    # statements
    def start(self, items):
        return items

    def label(self, items):
        tok = items[0]
        return Label(str(tok), self.sp(tok))

    def _split(self, tok: Token) -> list[tuple[str, Span]]:
        """A dotted word: its parts with their own spans ("MOV.F" -> MOV, F)."""
        out, col = [], tok.column
        for part in str(tok).split("."):
            out.append((part, self.at(tok.line, col, max(1, len(part)))))
            col += len(part) + 1
        return out

    def instruction(self, items):
        op = items[0]
        (opcode, span), *mods = self._split(op)
        operands = [o if isinstance(o, Operand) else Operand("cc", o.span, cctest=o)
                    for o in items[1:] if isinstance(o, (Operand, CCTestNode))]
        return Instr(opcode, span, mods, operands)

    # declarations
    def varmod(self, items):
        return (str(items[0]), self.sp(items[0]))

    def temp_item(self, items):
        size = int(_int_value(items[1])) if len(items) > 1 else None
        return (str(items[0]), self.sp(items[0]), size)

    def array_size(self, items):
        return ("size", int(_int_value(items[0])) if items else None)

    def _decl(self, kind, items):
        mods = [i for i in items if isinstance(i, tuple) and len(i) == 2 and isinstance(i[1], Span)]
        toks = [i for i in items if isinstance(i, Token)]
        kw = toks[0]
        name = toks[1]
        size_item = [i for i in items if isinstance(i, tuple) and i and i[0] == "size"]
        init = [i for i in items if isinstance(i, tuple) and i and i[0] in ("list", "single")]
        d = Decl(str(kw) if kind == "BUFFER" else kind, self.sp(kw), mods,
                 [(str(name), self.sp(name), None)])
        if size_item:
            d.array = True
            d.size = size_item[0][1]
        if init:
            d.init_is_list = init[0][0] == "list"
            d.init = init[0][1]
        return d

    def param_decl(self, items):
        return self._decl("PARAM", items)

    def attrib_decl(self, items):
        return self._decl("ATTRIB", items)

    def output_decl(self, items):
        return self._decl("OUTPUT", items)

    def buffer_decl(self, items):
        return self._decl("BUFFER", items)

    def temp_decl(self, items):
        mods = [i for i in items if isinstance(i, tuple) and len(i) == 2]
        kw = [i for i in items if isinstance(i, Token)][0]
        names = [i for i in items if isinstance(i, tuple) and len(i) == 3]
        return Decl("TEMP", self.sp(kw), mods, names)

    def alias_decl(self, items):
        # target: the right-hand side's first name; init: [the whole reference] when it has
        # selectors ("result.texcoord[1]", "r0.x"), which only ARBvp accepts (E2016)
        kw, name, ref = items
        d = Decl("ALIAS", self.sp(kw), [], [(str(name), self.sp(name), None)],
                 target=(ref.name, Span(ref.span.file, ref.span.line, ref.span.col,
                                        len(ref.name))))
        if ref.selectors:
            d.init = [ref]
        return d

    def address_decl(self, items):
        kw = items[0]
        return Decl("ADDRESS", self.sp(kw), [], [(str(t), self.sp(t), None) for t in items[1:]])

    def option_decl(self, items):
        kw, name = items
        return Decl("OPTION", self.sp(kw), [], [], target=(str(name), self.sp(name)))

    def geom_decl(self, items):
        kw, name = items
        return Decl(str(kw), self.sp(kw), [], [], target=(str(name), self.sp(name)))

    def vertices_out_decl(self, items):
        kw, num = items
        return Decl("VERTICES_OUT", self.sp(kw), [], [], number=Number(str(num), False, self.sp(num)))

    # FP1 "DEFINE name = value" / "DECLARE name [= value]" (FP1 3.11.2): kind "DEFINE" /
    # "DECLARE", one name, ``init`` as for PARAM (None for a DECLARE without a value)
    def define_decl(self, items):
        return self._fp1_decl("DEFINE", items)

    def declare_decl(self, items):
        return self._fp1_decl("DECLARE", items)

    def _fp1_decl(self, kind, items):
        kw, name = items[0], items[1]
        d = Decl(kind, self.sp(kw), [], [(str(name), self.sp(name), None)])
        if len(items) > 2:
            d.init_is_list = items[2][0] == "list"
            d.init = items[2][1]
        return d

    def init_list(self, items):
        return ("list", items)

    def init_single(self, items):
        return ("single", items)

    def init_single_scalar(self, items):
        return ("single", self._signed_numbers(items))

    def init_ref(self, items):
        return items[0]

    def init_vec(self, items):
        return items[0]

    def init_scalar(self, items):
        return self._signed_numbers(items)[0]

    # operands
    def _signed_numbers(self, items) -> list[Number]:
        out, neg, sign = [], False, None
        for t in items:
            if t.type == "SIGN":
                neg, sign = str(t) == "-", t
            else:
                # the span of a signed constant starts at its sign ("-1" in "{-1, 0}"), so that a
                # diagnostic such as "negative constant -1" points at the '-'
                if sign is not None and sign.line == t.line:
                    span = self.at(sign.line, sign.column, t.end_pos - sign.start_pos)
                else:
                    span = self.sp(t)
                out.append(Number(str(t), neg, span))
                neg, sign = False, None
        return out

    def constvec(self, items):
        nums = NumberList(self._signed_numbers([t for t in items if t.type in ("SIGN", "NUMBER")]))
        first, last = items[0], items[-1]
        nums.span = (self.at(first.line, first.column, last.end_pos - first.start_pos)
                     if first.line == last.line else self.sp(first))
        return nums

    def swizzle(self, items):
        tok = items[0]                        # ".x" (a second member stays in: bad swizzle)
        return (str(tok)[1:], self.at(tok.line, tok.column + 1, max(1, len(tok) - 1)))

    def cctest(self, items):
        tok = items[0]
        rule, _, swz = str(tok).partition(".")
        return CCTestNode(rule, swz or None, self.sp(tok))

    def ccmask(self, items):
        return items[0]

    def member(self, items):
        tok = items[0]                        # ".texcoord" or ".color.back.xyz"
        return [Member(name, span) for name, span in self._split_members(tok)]

    def _split_members(self, tok: Token) -> list[tuple[str, Span]]:
        out, col = [], tok.column + 1
        for part in str(tok)[1:].split("."):
            out.append((part, self.at(tok.line, col, max(1, len(part)))))
            col += len(part) + 1
        return out

    def subscript(self, items):
        idx = items[0]
        return Subscript(idx, idx.span)

    def index_const(self, items):
        t = items[0]
        return IndexConst(_int_value(t), self.sp(t))

    def index_range(self, items):
        a, b = items
        return IndexRange(_int_value(a), _int_value(b), self._span_from(a, b.end_pos))

    def index_rel(self, items):
        reg = items[0]
        name, _, comp = str(reg).partition(".")
        offset, sign = 0, 1
        for t in items[1:]:
            if t.type == "SIGN":
                sign = -1 if str(t) == "-" else 1
            else:
                offset = sign * _int_value(t)
        return IndexRel(name, comp or None, offset, self._span_from(reg, items[-1].end_pos))

    def ref(self, items):
        word = items[0]
        (name, name_span), *parts = self._split(word)
        sels = [Member(p, sp) for p, sp in parts]
        for item in items[1:]:
            sels.extend(item if isinstance(item, list) else [item])
        if sels:
            last = sels[-1].span
            # span runs to the end of the last selector (same line in practice)
            length = (last.col + last.length) - name_span.col if last.line == name_span.line \
                else len(name)
            return Ref(name, sels, self.at(word.line, word.column, max(length, len(name))))
        return Ref(name, [], name_span)

    def ref_primary(self, items):
        op = Operand("ref", items[0].span, ref=items[0])
        if len(items) > 1:
            op.ccmask = items[1]
        return op

    def vec_primary(self, items):
        nums = items[0]
        op = Operand("vec", nums.span, numbers=nums)
        if len(items) > 1:
            op.swizzle = items[1]
        return op

    def num_primary(self, items):
        t = items[0]
        op = Operand("num", self.sp(t), numbers=[Number(str(t), False, self.sp(t))])
        if len(items) > 1:       # "2.0.x": ARB's grammar demands it; accepted everywhere
            op.swizzle = items[1]
        return op

    def plain_operand(self, items):
        if len(items) == 2:
            sign, op = items
            op.neg = str(sign) == "-"
            op.span = self.at(sign.line, sign.column, op.span.length + 1)
            return op
        return items[0]

    def outer_sign(self, items):
        return ("outer", str(items[0]) == "-")

    def abs_operand(self, items):
        op = items[-1]
        op.abs = True
        for item in items[:-1]:
            if isinstance(item, tuple):
                op.neg = item[1]
            else:
                op.inner_neg = str(item) == "-"
        return op

    def cc_operand(self, items):
        cc = items[0]
        return Operand("cc", cc.span, cctest=cc)

    def offset_operand(self, items):
        nums = self._signed_numbers(items)
        return Operand("offsets", nums[0].span, numbers=nums)

    def target_operand(self, items):
        t = items[0]
        return Operand("target", self.sp(t), target=str(t))


def _int_value(tok) -> int:
    s = str(tok)
    if s[:2] in ("0x", "0X"):
        return int(s, 16)
    try:
        return int(s)
    except ValueError:
        v = float(s)
        if v != v or v in (float("inf"), float("-inf")):
            return 1 << 64          # "1e999": beyond every range (the caller reports it)
        return int(v)


_BUILDER = _Builder()


def get_parser() -> lark.Lark:
    parser = _PARSERS.get("nv")
    if parser is None:
        grammar = GRAMMAR_PATH.read_text()
        cache = _cache_file(grammar)
        kwargs = dict(parser="lalr", lexer="contextual", transformer=_BUILDER, maybe_placeholders=False)
        try:
            parser = lark.Lark(grammar, cache=cache or False, **kwargs)
        except Exception:  # unreadable or stale cache file: build without it
            parser = lark.Lark(grammar, **kwargs)
        _PARSERS["nv"] = parser
    return parser


def parse_with_recovery(body: str, sink: DiagnosticSink) -> tuple[list, set[str]]:
    """The whole statement text through lark; on a syntax error, every error of it (see
    syntax.parse_statements)."""
    parser = get_parser()
    _BUILDER.file = sink.file
    try:
        return parser.parse(body), set()
    except lark.exceptions.UnexpectedInput as err:
        _report_syntax(err, body, sink)
    out: list = []
    lost: set[str] = set()
    reported = {(d.span.line, d.span.col) for d in sink.items if d.span is not None}
    # each statement is parsed alone and its positions shifted to the file's (linear time:
    # the line and the start of the line are tracked incrementally, never re-counted)
    line, line_start, prev = 1, 0, 0
    try:
        for start, stmt in _statements(body):
            nl = body.count("\n", prev, start)
            if nl:
                line += nl
                line_start = body.rfind("\n", prev, start) + 1
            prev = start
            shift = (line - 1, start - line_start)
            _BUILDER.line_offset, _BUILDER.col_offset = shift
            try:
                out.extend(parser.parse(stmt))
            except lark.exceptions.UnexpectedInput as err:
                _report_syntax(err, stmt, sink, dedupe=True, shift=shift, reported=reported)
                m = _DECL_NAMES.match(stmt)
                if m:
                    lost.update(re.findall(r"[A-Za-z_$][A-Za-z0-9_$]*", m.group(1).split("=")[0]))
    finally:
        _BUILDER.line_offset = _BUILDER.col_offset = 0
    return out, lost


def parse_run(text: str, lines: int, cols: int, file: str) -> list | None:
    """Statements ``text`` through lark, positions shifted to the file's (``lines`` down, and
    ``cols`` right on its first line); None on a syntax error (the caller starts over on the
    whole file, which reports every error)."""
    _BUILDER.file = file
    _BUILDER.line_offset, _BUILDER.col_offset = lines, cols
    try:
        return get_parser().parse(text)
    except lark.exceptions.UnexpectedInput:
        return None
    finally:
        _BUILDER.line_offset = _BUILDER.col_offset = 0


_DECL_NAMES = re.compile(r"\s*(?:(?:INT|UINT|FLOAT|SHORT|LONG|FLAT|CENTROID|NOPERSPECTIVE)\s+)*"
                         r"(?:TEMP|PARAM|ATTRIB|OUTPUT|ALIAS|BUFFER4?|DEFINE|DECLARE)\s+(.*)", re.S)


def _statements(body: str):
    start = 0
    for m in re.finditer(r"[;:]", body):
        yield start, body[start:m.end()]
        start = m.end()
    if body[start:].strip():
        yield start, body[start:]


def _report_syntax(err, text: str, sink: DiagnosticSink, dedupe: bool = False,
                   shift: tuple[int, int] = (0, 0), reported: set | None = None) -> None:
    """``text`` was parsed alone when ``shift`` (lines, columns) is given: positions are moved
    by it.  ``reported``: positions of the diagnostics so far (dedupe in constant time)."""
    line, col = getattr(err, "line", 1), getattr(err, "column", 1)
    if line is None or line < 0:
        line, col = text.count("\n") + 1, 1
    span = _shift_span(Span(sink.file, line, col), *shift)
    line, col = span.line, span.col
    if reported is None:
        reported = {(d.span.line, d.span.col) for d in sink.items if d.span is not None}
    # compare positions only: the first report may have widened the span to the token length
    if dedupe and (line, col) in reported:
        return
    if isinstance(err, lark.exceptions.UnexpectedCharacters):
        ch = text[err.pos_in_stream] if 0 <= err.pos_in_stream < len(text) else "?"
        reported.add((span.line, span.col))
        sink.error("E1003", f"unexpected character {ch!r}", span)
        return
    tok = getattr(err, "token", None)
    expected = sorted(getattr(err, "expected", ()) or ())
    if tok is not None and tok.type == "$END":
        msg = "unexpected end of program (missing ';'?)"
        # lark places $END at the last token's start; the ';' is missing right after its end
        end = len(text.rstrip())
        span = _shift_span(Span(sink.file, text.count("\n", 0, end) + 1,
                                end - (text.rfind("\n", 0, end) + 1) + 1), *shift)
        if dedupe and (span.line, span.col) in reported:
            return
    else:
        msg = f"unexpected {str(tok)!r}" if tok is not None else "syntax error"
    nice = [_TERMINAL_NAMES.get(e, e) for e in expected]
    nice = sorted(set(n for n in nice if n))
    if nice and len(nice) <= 8:
        msg += "; expected " + ", ".join(nice)
    if tok is not None and tok.type != "$END":
        span = _shift_span(Span(sink.file, tok.line, tok.column, max(1, len(str(tok)))), *shift)
    reported.add((span.line, span.col))
    sink.error("E1002", msg, span)


_TERMINAL_NAMES = {
    "SEMICOLON": "';'", "COMMA": "','", "COLON": "':'", "NAME": "a name", "NUMBER": "a number",
    "LSQB": "'['", "RSQB": "']'", "LBRACE": "'{'", "RBRACE": "'}'", "LPAR": "'('", "RPAR": "')'",
    "DOT": "'.'", "EQUAL": "'='", "VBAR": "'|'", "SIGN": "a sign", "TARGET_DIGIT": "a texture target",
}
