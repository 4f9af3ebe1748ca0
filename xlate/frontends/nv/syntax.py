"""Parse NVIDIA/ARB assembly text into a light statement AST (no meaning attached yet).

The grammar of record is ``nv.lark`` (lark LALR, larkparse.py); the common statement shapes are
parsed by fastparse.py into the same nodes, and lark is loaded only for the statements it
refuses.

Dialect meaning (bindings, opcodes, modifiers) is resolved by the dialect modules; this module
only knows shapes.  Every node carries a Span for diagnostics.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ...diagnostics import DiagnosticSink, Span

GRAMMAR_PATH = Path(__file__).with_name("nv.lark")


# ---- AST -----------------------------------------------------------------------------------
@dataclass
class Member:
    name: str
    span: Span


@dataclass
class IndexConst:
    value: int
    span: Span


@dataclass
class IndexRange:
    first: int
    last: int
    span: Span


@dataclass
class IndexRel:
    reg: str
    comp: str | None
    offset: int
    span: Span


@dataclass
class Subscript:
    index: IndexConst | IndexRange | IndexRel
    span: Span


@dataclass
class Ref:
    name: str
    selectors: list  # Member | Subscript
    span: Span       # the whole reference


@dataclass
class CCTestNode:
    rule: str
    swizzle: str | None
    span: Span


@dataclass
class Number:
    text: str
    negative: bool
    span: Span


class NumberList(list):
    """The numbers of a constant vector ``{1, -2}``; ``span`` covers the braces."""

    span: Span


@dataclass
class Operand:
    kind: str                   # ref | vec | num | cc | offsets | target
    span: Span
    neg: bool = False           # sign outside |...| (or the only sign)
    abs: bool = False
    inner_neg: bool = False     # sign inside |...| (no effect after abs, kept for diagnostics)
    ref: Ref | None = None
    ccmask: CCTestNode | None = None
    numbers: list[Number] = field(default_factory=list)   # vec / num / offsets
    swizzle: tuple[str, Span] | None = None                # for constant vectors: {..}.x
    target: str | None = None
    cctest: CCTestNode | None = None


@dataclass
class Instr:
    opcode: str
    span: Span                  # the mnemonic
    mods: list[tuple[str, Span]]
    operands: list[Operand]
    text_span: Span | None = None


@dataclass
class Decl:
    kind: str                   # TEMP PARAM ATTRIB OUTPUT BUFFER BUFFER4 ALIAS ADDRESS OPTION PRIMITIVE_IN ...
    span: Span                  # the keyword
    mods: list[tuple[str, Span]]
    names: list[tuple[str, Span, int | None]]   # (name, span, array size) ; TEMP/ADDRESS lists
    array: bool = False         # declared with [] / [n]
    size: int | None = None
    init: list | None = None    # list of init items (Ref | list[Number] (vector) | Number)
    init_is_list: bool = False
    target: tuple[str, Span] | None = None      # ALIAS target, OPTION name, PRIMITIVE_* value
    number: Number | None = None                # VERTICES_OUT


@dataclass
class Label:
    name: str
    span: Span


# ---- program text handling ---------------------------------------------------------------
_COMMENT = re.compile(r"#[^\r\n]*")
#: the END statement: the word END, not part of a longer name or of a dotted one
_END = re.compile(r"(?<![A-Za-z0-9_$.])END(?![A-Za-z0-9_$])")
_BEFORE_END = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_$.")
_AFTER_END = _BEFORE_END - {"."}


def find_end(text: str, start: int = 0) -> int:
    """Where ``_END.search(text, start)`` matches (-1: nowhere), by ``str.find``: the regex,
    its look-behind tried at every position, cost ~90 us of a 2,400-character program."""
    p = text.find("END", start)
    while p >= 0:
        if (p == 0 or text[p - 1] not in _BEFORE_END) and text[p + 3:p + 4] not in _AFTER_END:
            return p
        p = text.find("END", p + 1)
    return -1


def blank_comments(text: str) -> str:
    """Replace comments by spaces of the same length (positions stay valid)."""
    return _COMMENT.sub(lambda m: " " * len(m.group()), text)


def split_at_end(text: str, body_start: int, sink: DiagnosticSink) -> tuple[str, bool]:
    """Return the text up to END (exclusive, header blanked), and whether END was found.

    Everything after END must be whitespace or comments (warning E1005 otherwise)."""
    stripped = blank_comments(text)
    end = find_end(stripped, body_start)
    if end < 0:
        line = text.count("\n") + 1
        col = len(text) - (text.rfind("\n") + 1) + 1
        sink.error("E1004", "program has no END statement", Span(sink.file, line, col))
        return stripped, False
    trailing = stripped[end + 3:]
    junk = re.search(r"\S", trailing)
    if junk:
        pos = end + 3 + junk.start()
        line = text.count("\n", 0, pos) + 1
        col = pos - (text.rfind("\n", 0, pos) + 1) + 1
        sink.warning("E1005", "text after END is ignored", Span(sink.file, line, col))
    return stripped[:end], True


def parse_statements(body: str, sink: DiagnosticSink) -> tuple[list, set[str]]:
    """Parse statement text (header blanked, cut at END) into AST nodes.

    On a syntax error, reports it and re-parses statement by statement (each ends at ';' or
    ':') so that every syntax error of the file is reported.  Returns the statements that
    parsed and the names that failed declarations would have declared (so that their uses do
    not cascade into "undeclared name" errors).

    The fast path comes first; lark (larkparse.py) is imported only when it refuses a statement
    -- about half the programs never need it, and a one-file ``xlate check`` then does not pay
    lark's import and parser load (~25 ms of start-up)."""
    _check_size(body, sink)
    if FAST_PATH:
        from .fastparse import parse_fast
        file = sink.file
        statements = parse_fast(body, file, lambda text, lines, cols:
                                _parse_run(text, lines, cols, file))
        if statements is not None:
            return statements, set()
    from .larkparse import parse_with_recovery
    return parse_with_recovery(body, sink)


#: statements of the common shapes are parsed by fastparse.py (same nodes, ~4x faster); off
#: only in the tests that compare the two paths
FAST_PATH = True


def _parse_run(text: str, lines: int, cols: int, file: str = "<input>") -> list | None:
    """Statements ``text`` of ``file`` through lark, positions shifted to the file's
    (``lines`` down, and ``cols`` right on its first line); None on a syntax error (the caller
    starts over on the whole file, which reports every error)."""
    from .larkparse import parse_run
    return parse_run(text, lines, cols, file)


def _shift_span(span: Span, dline: int, dcol: int) -> Span:
    """A span of a statement parsed alone, moved to where the statement starts in the file:
    ``dline`` lines down; on the statement's first line also ``dcol`` columns right."""
    return Span(span.file, span.line + dline, span.col + dcol if span.line == 1 else span.col,
                span.length)


#: statements (';'-terminated) of one program: twice the 65,536 instructions of the largest
#: NVIDIA limit (MAX_PROGRAM_INSTRUCTIONS of NV_gpu_program4 hardware) leaves room for the
#: declarations.  Checked before parsing, so a 10 MB program is rejected in linear time and
#: without building a syntax tree for it.
MAX_STATEMENTS = 131072
#: tokens of one program (a statement of MAX_STATEMENTS has about 8): one statement may be a
#: declaration with a very long list
MAX_TOKENS = 1 << 20
_TOKEN = re.compile(r"[A-Za-z0-9_$.]+|[^\sA-Za-z0-9_$.]")
#: characters of one name: names reach the generated GLSL, where glslang stops at 1024
MAX_NAME = 256
_LONG_NAME = re.compile(r"(?<![A-Za-z0-9_$])[A-Za-z_$][A-Za-z0-9_$]{%d,}" % MAX_NAME)
#: decimal digits of one number (Python's int() refuses more than 4300; none is meaningful)
MAX_DIGITS = 1000
_LONG_NUMBER = re.compile(r"[0-9]{%d,}" % (MAX_DIGITS + 1))
#: str.translate table: name characters ([A-Za-z0-9_$]) -> "a", other ASCII -> " " (the
#: others stay, and are not "a"); a name over the limit is a run of MAX_NAME + 1 of them, a
#: number over the limit one of MAX_DIGITS + 1
_NAME_CHARS = str.maketrans({chr(c): "a" if chr(c).isalnum() or chr(c) in "_$" else " "
                             for c in range(128)})
_NAME_RUN = "a" * (MAX_NAME + 1)
_DIGIT_RUN = "a" * (MAX_DIGITS + 1)


def _check_size(body: str, sink: DiagnosticSink) -> None:
    """E1008 (E1007 for a number), raised at once, for a program over the name, number,
    statement or token limits: checked on the text before parsing, in linear time."""
    def where(pos: int, length: int) -> Span:
        line = body.count("\n", 0, pos) + 1
        return Span(sink.file, line, pos - (body.rfind("\n", 0, pos) + 1) + 1, length)
    # the regexes try every position (~120 us for 2,400 characters); a name or number over
    # the limit needs a run of that many name characters, which str.translate and a
    # substring search rule out in ~10 us
    names = body.translate(_NAME_CHARS)
    m = _LONG_NAME.search(body) if _NAME_RUN in names else None
    if m:
        sink.error("E1008", f"a name of {len(m.group())} characters; the limit is "
                   f"{MAX_NAME}", where(m.start(), 1))
        sink.raise_if_errors()
    m = _LONG_NUMBER.search(body) if _DIGIT_RUN in names else None
    if m:
        sink.error("E1007", f"a number of {len(m.group())} digits; xlate reads numbers of at "
                   f"most {MAX_DIGITS} digits", where(m.start(), 1))
        sink.raise_if_errors()
    if body.count(";") > MAX_STATEMENTS:
        for k, m in enumerate(re.finditer(";", body)):
            if k == MAX_STATEMENTS:
                start = body.rfind(";", 0, m.start()) + 1
                start += len(body[start:m.start()]) - len(body[start:m.start()].lstrip())
                sink.error("E1008", f"more than {MAX_STATEMENTS} statements; xlate translates "
                           f"programs of at most {MAX_STATEMENTS}", where(start, 1))
                sink.raise_if_errors()
    if len(body) > MAX_TOKENS:         # only a long text can hold that many tokens
        for k, m in enumerate(_TOKEN.finditer(body)):
            if k == MAX_TOKENS:
                sink.error("E1008", f"more than {MAX_TOKENS} tokens; xlate translates programs "
                           f"of at most {MAX_TOKENS}", where(m.start(), 1))
                sink.raise_if_errors()
