"""A fast path for the common statements of NVIDIA/ARB assembly, beside the lark grammar.

lark's LALR parser runs in pure Python at ~9 us a token, two thirds of a whole translation
(issue 8: end-to-end SPIR-V must stay within 3x glslang).  Most statements of real programs
have a few plain shapes -- ``MAD R0.xyz, -|R1|, c[A0.x + 2].wzyx, {1, 2, 3, 4};``, a label,
``TEMP R0, R1;`` -- and this module recognises exactly those with one tokenizer regex and a few
lines of recursive descent, and builds the same AST nodes (:mod:`.syntax`) with the same spans
as lark's transformer would.

The grammar of record stays ``nv.lark``.  The contract here: every statement this module
*accepts* parses in lark to an identical node (spans included); anything else -- any token or
shape it does not know, a keyword at the start of a statement, hexadecimal numbers, offsets,
bare condition tests, declarations other than TEMP -- is *refused* and goes to lark unchanged, in
runs of consecutive refused statements.  A syntax error anywhere makes :func:`parse_fast` give
up (``None``): the caller then runs lark's whole-file path, so diagnostics never come from here.
tests/test_fastparse.py checks the contract on the shared corpus and on generated statements.
"""
from __future__ import annotations

import re
from bisect import bisect_right

from ...diagnostics import Span
from .syntax import (CCTestNode, Decl, IndexConst, IndexRange, IndexRel, Instr, Label, Member, Number,
                     NumberList, Operand, Ref, Subscript)

# One token at a time, anchored.  Whitespace is lark's %ignore set exactly (not Python's \s).
# "target" before "number" and "word" before "members", as lark's terminal priorities order
# them; a number followed by anything that could continue it in lark's NUMBER ("1.", "1.x",
# "0x1", "1e") is not a token here, so such a statement is refused rather than misread -- but
# "0..3" is 0, "..", 3 in lark too.
_TOKEN = re.compile(r"""
    (?P<ws>[ \t\r\n\f\v]+)
  | (?P<target>[123]D(?![A-Za-z0-9_$]))
  | (?P<word>[A-Za-z_$][A-Za-z0-9_$]*(?:\.[A-Za-z_$][A-Za-z0-9_$]*)*)
  | (?P<members>(?:\.[A-Za-z_$][A-Za-z0-9_$]*)+)
  | (?P<number>[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?(?![0-9A-Za-z_$])(?!\.(?!\.)))
  | (?P<punct>\.\.|[,|\[\](){}+\-=])
""", re.X)

# Words that are keywords where a statement starts (nv.lark's string terminals): a statement
# beginning with one is a declaration, which lark parses.
KEYWORDS = frozenset({
    "TEMP", "PARAM", "ATTRIB", "OUTPUT", "BUFFER4", "BUFFER", "ALIAS", "ADDRESS", "OPTION",
    "PRIMITIVE_IN", "PRIMITIVE_OUT", "VERTICES_OUT", "DEFINE", "DECLARE", "INT", "UINT",
    "FLOAT", "SHORT", "LONG", "FLAT", "CENTROID", "NOPERSPECTIVE"})
VARMODS = ("INT", "UINT", "FLOAT", "SHORT", "LONG", "FLAT", "CENTROID", "NOPERSPECTIVE")


class _Refuse(Exception):
    """This statement is not one of the fast shapes: lark parses it."""


class _Tokens:
    """The tokens of one statement: (kind, text, position in the body)."""

    __slots__ = ("toks", "i", "pos", "file", "starts")

    def __init__(self, body: str, start: int, end: int, file: str, starts: list[int]):
        toks = []
        pos = start
        match = _TOKEN.match
        while pos < end:
            m = match(body, pos, end)
            if m is None:
                raise _Refuse
            kind = m.lastgroup
            if kind != "ws":
                toks.append((kind, m.group(), pos))
            pos = m.end()
        self.toks, self.i, self.file, self.starts = toks, 0, file, starts

    def peek(self) -> tuple[str, str, int] | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self) -> tuple[str, str, int]:
        if self.i >= len(self.toks):
            raise _Refuse
        tok = self.toks[self.i]
        self.i += 1
        return tok

    def expect(self, text: str) -> tuple[str, str, int]:
        tok = self.take()
        if tok[1] != text or tok[0] != "punct":
            raise _Refuse
        return tok

    def at_punct(self, text: str) -> bool:
        tok = self.peek()
        return tok is not None and tok[0] == "punct" and tok[1] == text

    # positions: lark's line (1-based, '\n' only) and column (1-based)
    def line_col(self, pos: int) -> tuple[int, int]:
        line = bisect_right(self.starts, pos)
        return line, pos - self.starts[line - 1] + 1

    def span(self, pos: int, length: int) -> Span:
        line, col = self.line_col(pos)
        return Span(self.file, line, col, length)


def _split(t: _Tokens, text: str, pos: int) -> list[tuple[str, Span]]:
    """A dotted word's parts with their spans, as larkparse._Builder._split."""
    line, col = t.line_col(pos)
    out = []
    for part in text.split("."):
        out.append((part, Span(t.file, line, col, max(1, len(part)))))
        col += len(part) + 1
    return out


def _members(t: _Tokens, text: str, pos: int) -> list[Member]:
    line, col = t.line_col(pos)
    col += 1
    out = []
    for part in text[1:].split("."):
        out.append(Member(part, Span(t.file, line, col, max(1, len(part)))))
        col += len(part) + 1
    return out


def _index(t: _Tokens):
    kind, text, pos = t.take()
    if kind == "number":
        if not text.isdigit():        # "1.5", "1e3": lark reads them through float(); rare
            raise _Refuse
        if t.at_punct(".."):
            t.take()
            kind2, last, lpos = t.take()
            if kind2 != "number" or not last.isdigit():
                raise _Refuse
            line, col = t.line_col(pos)
            return IndexRange(int(text), int(last),
                              Span(t.file, line, col, max(1, lpos + len(last) - pos)))
        return IndexConst(int(text), t.span(pos, len(text)))
    if kind != "word":
        raise _Refuse
    name, _, comp = text.partition(".")
    offset, end = 0, pos + len(text)
    nxt = t.peek()
    if nxt is not None and nxt[0] == "punct" and nxt[1] in "+-":
        t.take()
        kind2, num, npos = t.take()
        if kind2 != "number" or not num.isdigit():
            raise _Refuse
        offset = -int(num) if nxt[1] == "-" else int(num)
        end = npos + len(num)
    line, col = t.line_col(pos)
    return IndexRel(name, comp or None, offset, Span(t.file, line, col, max(1, end - pos)))


def _ref(t: _Tokens, text: str, pos: int) -> Ref:
    (name, name_span), *parts = _split(t, text, pos)
    sels: list = [Member(p, s) for p, s in parts]
    while True:
        nxt = t.peek()
        if nxt is None:
            break
        if nxt[0] == "members":
            t.take()
            sels.extend(_members(t, nxt[1], nxt[2]))
        elif nxt[0] == "punct" and nxt[1] == "[":
            t.take()
            idx = _index(t)
            t.expect("]")
            sels.append(Subscript(idx, idx.span))
        else:
            break
    if not sels:
        return Ref(name, [], name_span)
    last = sels[-1].span
    length = (last.col + last.length) - name_span.col if last.line == name_span.line \
        else len(name)
    return Ref(name, sels, Span(t.file, name_span.line, name_span.col, max(length, len(name))))


def _signed_number(t: _Tokens) -> Number:
    """``SIGN? NUMBER``; the span starts at the sign when it is on the number's line."""
    kind, text, pos = t.take()
    neg, sign_pos = False, None
    if kind == "punct" and text in "+-":
        neg, sign_pos = text == "-", pos
        kind, text, pos = t.take()
    if kind != "number":
        raise _Refuse
    if sign_pos is not None and t.line_col(sign_pos)[0] == t.line_col(pos)[0]:
        return Number(text, neg, t.span(sign_pos, pos + len(text) - sign_pos))
    return Number(text, neg, t.span(pos, len(text)))


def _constvec(t: _Tokens, open_pos: int) -> NumberList:
    """``{ SIGN? NUMBER ("," SIGN? NUMBER)* }`` after its "{" (at ``open_pos``)."""
    nums = NumberList()
    while True:
        nums.append(_signed_number(t))
        if t.at_punct(","):
            t.take()
            continue
        close = t.expect("}")
        break
    first_line, col = t.line_col(open_pos)
    nums.span = (Span(t.file, first_line, col, close[2] + 1 - open_pos)
                 if t.line_col(close[2])[0] == first_line else t.span(open_pos, 1))
    return nums


def _primary(t: _Tokens) -> Operand:
    kind, text, pos = t.take()
    if kind == "word":
        ref = _ref(t, text, pos)
        op = Operand("ref", ref.span, ref=ref)
        if t.at_punct("("):
            t.take()
            ckind, ctext, cpos = t.take()
            if ckind != "word":
                raise _Refuse
            t.expect(")")
            rule, _, swz = ctext.partition(".")
            op.ccmask = CCTestNode(rule, swz or None, t.span(cpos, len(ctext)))
        return op
    if kind == "number":
        op = Operand("num", t.span(pos, len(text)), numbers=[Number(text, False, t.span(pos, len(text)))])
        nxt = t.peek()
        if nxt is not None and nxt[0] == "members":     # unreachable: the number token refuses "."
            raise _Refuse
        return op
    if kind == "punct" and text == "{":
        nums = _constvec(t, pos)
        op = Operand("vec", nums.span, numbers=nums)
        nxt = t.peek()
        if nxt is not None and nxt[0] == "members":
            t.take()
            mline, mcol = t.line_col(nxt[2])
            op.swizzle = (nxt[1][1:], Span(t.file, mline, mcol + 1, max(1, len(nxt[1]) - 1)))
        return op
    raise _Refuse


def _operand(t: _Tokens) -> Operand:
    kind, text, pos = t.peek() or ("", "", 0)
    if kind == "target":
        t.take()
        return Operand("target", t.span(pos, len(text)), target=text)
    if kind == "punct" and text == "(":          # "RET (TR)": a condition as the operand
        t.take()
        ckind, ctext, cpos = t.take()
        if ckind != "word":                      # "(1, 2)": offsets, lark parses them
            raise _Refuse
        t.expect(")")
        rule, _, swz = ctext.partition(".")
        cc = CCTestNode(rule, swz or None, t.span(cpos, len(ctext)))
        return Operand("cc", cc.span, cctest=cc)
    sign = None
    if kind == "punct" and text in "+-":
        sign = t.take()
        kind, text, pos = t.peek() or ("", "", 0)
    if kind == "punct" and text == "|":
        t.take()
        inner = None
        if t.at_punct("+") or t.at_punct("-"):
            inner = t.take()
        op = _primary(t)
        t.expect("|")
        op.abs = True
        if sign is not None:
            op.neg = sign[1] == "-"
        if inner is not None:
            op.inner_neg = inner[1] == "-"
        return op
    op = _primary(t)
    if sign is not None:
        op.neg = sign[1] == "-"
        op.span = t.span(sign[2], op.span.length + 1)
    return op


def _instruction(t: _Tokens, text: str, pos: int) -> Instr:
    (opcode, span), *mods = _split(t, text, pos)
    operands = []
    if t.peek() is not None:
        while True:
            operands.append(_operand(t))
            if t.peek() is None:
                break
            t.expect(",")
    return Instr(opcode, span, mods, operands)


def _declaration(t: _Tokens, first: tuple[str, str, int]) -> Decl:
    mods = []
    kind, text, pos = first
    while text in VARMODS:
        mods.append((text, t.span(pos, len(text))))
        kind, text, pos = t.take()
    if kind != "word":
        raise _Refuse
    if text in ("PARAM", "ATTRIB", "OUTPUT"):
        return _binding_decl(t, text, t.span(pos, len(text)), mods)
    if text != "TEMP":
        raise _Refuse
    kw_span = t.span(pos, len(text))
    names = []
    while True:
        nkind, name, npos = t.take()
        if nkind != "word" or "." in name:
            raise _Refuse
        size = None
        if t.at_punct("["):
            t.take()
            skind, stext, _ = t.take()
            if skind != "number" or not stext.isdigit():
                raise _Refuse
            size = int(stext)
            t.expect("]")
        names.append((name, t.span(npos, len(name)), size))
        if t.peek() is None:
            return Decl("TEMP", kw_span, mods, names)
        t.expect(",")


def _binding_decl(t: _Tokens, kind: str, kw_span: Span, mods: list) -> Decl:
    """``varmod* (PARAM|ATTRIB|OUTPUT) NAME array_size? "=" init`` as larkparse._Builder._decl."""
    nkind, name, npos = t.take()
    if nkind != "word" or "." in name:
        raise _Refuse
    d = Decl(kind, kw_span, mods, [(name, t.span(npos, len(name)), None)])
    if t.at_punct("["):
        t.take()
        d.array = True
        if not t.at_punct("]"):
            skind, stext, _ = t.take()
            if skind != "number" or not stext.isdigit():
                raise _Refuse
            d.size = int(stext)
        t.expect("]")
    t.expect("=")
    kind0, text0, pos0 = t.peek() or ("", "", 0)
    if kind0 == "word":
        t.take()
        d.init = [_ref(t, text0, pos0)]
    elif kind0 == "punct" and text0 == "{":
        t.take()
        d.init_is_list = True
        d.init = items = []
        while True:
            kind1, text1, pos1 = t.peek() or ("", "", 0)
            if kind1 == "word":
                t.take()
                items.append(_ref(t, text1, pos1))
            elif kind1 == "punct" and text1 == "{":
                t.take()
                items.append(_constvec(t, pos1))
            else:
                items.append(_signed_number(t))
            if t.at_punct(","):
                t.take()
                continue
            t.expect("}")
            break
    else:
        d.init = [_signed_number(t)]
    return d


def _statement(t: _Tokens, terminator: str):
    first = t.take()
    kind, text, pos = first
    if kind != "word":
        raise _Refuse
    if terminator == ":":
        if len(t.toks) != 1 or "." in text or text in KEYWORDS:
            raise _Refuse
        return Label(text, t.span(pos, len(text)))
    if text in KEYWORDS:
        if text in ("TEMP", "PARAM", "ATTRIB", "OUTPUT") or text in VARMODS:
            return _declaration(t, first)
        raise _Refuse
    return _instruction(t, text, pos)


def parse_fast(body: str, file: str, parse_slow) -> list | None:
    """The statements of ``body``: fast shapes built here, every run of other statements
    through ``parse_slow(text, lines, cols)`` (lark; the run starts ``lines`` lines down and,
    on its first line, ``cols`` columns right).
    ``None`` when ``parse_slow`` fails or the body ends in an unterminated statement: the
    caller's whole-file path reports the errors."""
    starts = [0]
    find = body.find
    k = find("\n")
    while k >= 0:
        starts.append(k + 1)
        k = find("\n", k + 1)
    out: list = []
    slow_from = None            # start of the current run of refused statements
    start = 0
    for m in _TERMINATOR.finditer(body):
        end = m.start()
        try:
            t = _Tokens(body, start, end, file, starts)
            if not t.toks:
                raise _Refuse       # ";" alone: a syntax error, lark reports it
            node = _statement(t, m.group())
            if t.peek() is not None:
                raise _Refuse
        except _Refuse:
            if slow_from is None:
                slow_from = start
        else:
            if slow_from is not None:
                slow = _slow(parse_slow, body, slow_from, start, starts)
                if slow is None:
                    return None
                out.extend(slow)
                slow_from = None
            out.append(node)
        start = m.end()
    if body[start:].strip(" \t\r\n\f\v"):
        return None                 # text after the last ';': lark's error
    if slow_from is not None:
        slow = _slow(parse_slow, body, slow_from, start, starts)
        if slow is None:
            return None
        out.extend(slow)
    return out


def _slow(parse_slow, body: str, start: int, end: int, starts: list[int]) -> list | None:
    line = bisect_right(starts, start)
    return parse_slow(body[start:end], line - 1, start - starts[line - 1])


_TERMINATOR = re.compile(r"[;:]")
