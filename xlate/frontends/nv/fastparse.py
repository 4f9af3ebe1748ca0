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

from ...diagnostics import Span
from .syntax import (CCTestNode, Decl, IndexConst, IndexRange, IndexRel, Instr, Label, Member, Number,
                     NumberList, Operand, Ref, Subscript)

# The body is tokenized one line at a time (no token but whitespace holds a '\n'), each match
# a token with the whitespace before it.  Whitespace is lark's %ignore set exactly (not
# Python's \s).  "target" before "number", as lark's terminal priorities order them (the other
# alternatives start with characters no other one starts with: "word" first, the most common,
# then the single characters, saves a fifth of the matching); a number followed by anything
# that could continue it in lark's NUMBER ("1.", "1.x", "0x1", "1e") is not a number token here
# (its statement is refused rather than misread) -- but "0..3" is 0, "..", 3 in lark too.  No
# token but "end" holds a ';' or ':', so every one of them ends a statement; "bad" is any other
# character but whitespace (which a backtracking "bad" would otherwise take from a blank
# line's end), and refuses its statement.
_TOKEN = re.compile(r"""([ \t\r\f\v]*)(?:(
    [A-Za-z_$][A-Za-z0-9_$]*(?:\.[A-Za-z_$][A-Za-z0-9_$]*)*              # word
  | [,|\[\](){}+\-=;:]|\.\.                                              # punct, end
  | (?:\.[A-Za-z_$][A-Za-z0-9_$]*)+                                      # members
  | [123]D(?![A-Za-z0-9_$])                                              # target
  | [0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?(?![0-9A-Za-z_$])(?!\.(?!\.))  # number
  )|([^ \t\r\f\v]))                                                      # bad
""", re.X)
# A token's kind from its first character (findall gives no group names; see _kind); "bad"
# has a group of its own.
_FIRST = dict.fromkeys("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_$", "word") \
    | dict.fromkeys(",|[](){}+-=", "punct") | dict.fromkeys(";:", "end") \
    | dict.fromkeys("0123456789.", "")


def _kind(tok: str) -> str:
    """The kind of a token starting with a digit or a '.' (the bad ones are told apart)."""
    if tok[0] == ".":
        return "punct" if tok == ".." else "members"
    return "target" if tok[-1] == "D" else "number"     # a number never ends in a letter


# Words that are keywords where a statement starts (nv.lark's string terminals): a statement
# beginning with one is a declaration, which lark parses.
KEYWORDS = frozenset({
    "TEMP", "PARAM", "ATTRIB", "OUTPUT", "BUFFER4", "BUFFER", "ALIAS", "ADDRESS", "OPTION",
    "PRIMITIVE_IN", "PRIMITIVE_OUT", "VERTICES_OUT", "DEFINE", "DECLARE", "INT", "UINT",
    "FLOAT", "SHORT", "LONG", "FLAT", "CENTROID", "NOPERSPECTIVE"})
VARMODS = ("INT", "UINT", "FLOAT", "SHORT", "LONG", "FLAT", "CENTROID", "NOPERSPECTIVE")


class _Refuse(Exception):
    """This statement is not one of the fast shapes: lark parses it."""


def _tokenize(body: str) -> tuple[list[tuple], list[int], set[int]]:
    """All tokens of ``body`` but whitespace, as (kind, text, position, line, column) -- lark's
    line (1-based, counting '\n' only) and column (1-based) -- with the indices of the "end"
    tokens, and the ordinals of the statements that hold a "bad" one."""
    toks: list[tuple] = []
    ends: list[int] = []
    bad: set[int] = set()
    append = toks.append
    findall = _TOKEN.findall
    offset = 0
    for line, text in enumerate(body.split("\n"), 1):
        n = len(text) + 1
        # without its trailing blanks a line has no place where a match fails (every match
        # ends at a token, "bad" takes any other character): findall never rescans blanks
        col = 1
        for blanks, tok, stray in findall(text.rstrip(" \t\r\f\v")):
            col += len(blanks)
            if stray:
                kind, tok = "bad", stray
            else:
                kind = _FIRST[tok[0]] or _kind(tok)
            if kind == "end":
                ends.append(len(toks))
            elif kind == "bad":
                bad.add(len(ends))
            append((kind, tok, offset + col - 1, line, col))
            col += len(tok)
        offset += n
    return toks, ends, bad


class _Tokens:
    """A cursor over the tokens of one statement: ``toks[first:n]``."""

    __slots__ = ("toks", "i", "n", "first", "file")

    def __init__(self, toks: list[tuple], file: str):
        self.toks, self.file = toks, file
        self.i = self.n = self.first = 0

    def peek(self) -> tuple | None:
        return self.toks[self.i] if self.i < self.n else None

    def take(self) -> tuple:
        i = self.i
        if i >= self.n:
            raise _Refuse
        self.i = i + 1
        return self.toks[i]

    def expect(self, text: str) -> tuple:
        tok = self.take()
        if tok[1] != text or tok[0] != "punct":
            raise _Refuse
        return tok

    def at_punct(self, text: str) -> bool:
        i = self.i
        if i >= self.n:
            return False
        tok = self.toks[i]
        return tok[1] == text and tok[0] == "punct"

    def span(self, tok: tuple, length: int) -> Span:
        """A span from ``tok``'s position, ``length`` characters."""
        return Span(self.file, tok[3], tok[4], length)


def _split(t: _Tokens, tok: tuple) -> list[tuple[str, Span]]:
    """A dotted word's parts with their spans, as larkparse._Builder._split."""
    text, line, col, file = tok[1], tok[3], tok[4], t.file
    if "." not in text:
        return [(text, Span(file, line, col, len(text)))]
    out = []
    for part in text.split("."):
        out.append((part, Span(file, line, col, max(1, len(part)))))
        col += len(part) + 1
    return out


def _member_list(parts: list[str], file: str, line: int, col: int) -> list[Member]:
    """Member selectors for dot-separated ``parts``, the first at column ``col``."""
    out = []
    for part in parts:
        out.append(Member(part, Span(file, line, col, max(1, len(part)))))
        col += len(part) + 1
    return out


def _members(t: _Tokens, tok: tuple) -> list[Member]:
    return _member_list(tok[1][1:].split("."), t.file, tok[3], tok[4] + 1)


def _index(t: _Tokens):
    first = t.take()
    kind, text = first[0], first[1]
    if kind == "number":
        if not text.isdigit():        # "1.5", "1e3": lark reads them through float(); rare
            raise _Refuse
        if t.at_punct(".."):
            t.take()
            last = t.take()
            if last[0] != "number" or not last[1].isdigit():
                raise _Refuse
            return IndexRange(int(text), int(last[1]),
                              t.span(first, max(1, last[2] + len(last[1]) - first[2])))
        return IndexConst(int(text), t.span(first, len(text)))
    if kind != "word":
        raise _Refuse
    name, _, comp = text.partition(".")
    offset, end = 0, first[2] + len(text)
    nxt = t.peek()
    if nxt is not None and nxt[0] == "punct" and nxt[1] in "+-":
        t.take()
        num = t.take()
        if num[0] != "number" or not num[1].isdigit():
            raise _Refuse
        offset = -int(num[1]) if nxt[1] == "-" else int(num[1])
        end = num[2] + len(num[1])
    return IndexRel(name, comp or None, offset, t.span(first, max(1, end - first[2])))


def _ref(t: _Tokens, tok: tuple) -> Ref:
    text, line, col, file = tok[1], tok[3], tok[4], t.file
    dot = text.find(".")
    if dot < 0:
        name, sels = text, []
    else:                         # "R0.xyzw": the parts after the name are member selectors
        name, rest = text[:dot], text[dot + 1:]
        if "." in rest:
            sels: list = _member_list(rest.split("."), file, line, col + dot + 1)
        else:                     # one member, the common case (_member_list inlined)
            sels = [Member(rest, Span(file, line, col + dot + 1, max(1, len(rest))))]
    toks, n = t.toks, t.n
    while t.i < n:
        nxt = toks[t.i]
        if nxt[0] == "members":
            t.i += 1
            sels.extend(_members(t, nxt))
        elif nxt[1] == "[" and nxt[0] == "punct":
            t.i += 1
            idx = _index(t)
            t.expect("]")
            sels.append(Subscript(idx, idx.span))
        else:
            break
    if not sels:
        return Ref(name, [], Span(file, line, col, len(name)))
    last = sels[-1].span
    length = (last.col + last.length) - col if last.line == line else len(name)
    return Ref(name, sels, Span(file, line, col, max(length, len(name))))


def _signed_number(t: _Tokens) -> Number:
    """``SIGN? NUMBER``; the span starts at the sign when it is on the number's line."""
    tok = t.take()
    sign = None
    if tok[0] == "punct" and tok[1] in "+-":
        sign, tok = tok, t.take()
    if tok[0] != "number":
        raise _Refuse
    text = tok[1]
    if sign is not None and sign[3] == tok[3]:
        return Number(text, sign[1] == "-", t.span(sign, tok[2] + len(text) - sign[2]))
    return Number(text, sign is not None and sign[1] == "-", t.span(tok, len(text)))


def _constvec(t: _Tokens, open_tok: tuple) -> NumberList:
    """``{ SIGN? NUMBER ("," SIGN? NUMBER)* }`` after its "{" (``open_tok``)."""
    nums = NumberList()
    while True:
        nums.append(_signed_number(t))
        if t.at_punct(","):
            t.take()
            continue
        close = t.expect("}")
        break
    nums.span = (t.span(open_tok, close[2] + 1 - open_tok[2]) if close[3] == open_tok[3]
                 else t.span(open_tok, 1))
    return nums


def _ref_operand(t: _Tokens, tok: tuple) -> Operand:
    """A reference operand from its word ``tok`` (taken), with its condition mask if any."""
    ref = _ref(t, tok)
    op = Operand("ref", ref.span, False, False, False, ref)
    i = t.i
    if i < t.n and t.toks[i][1] == "(" and t.toks[i][0] == "punct":
        t.i = i + 1
        ctok = t.take()
        if ctok[0] != "word":
            raise _Refuse
        t.expect(")")
        rule, _, swz = ctok[1].partition(".")
        op.ccmask = CCTestNode(rule, swz or None, t.span(ctok, len(ctok[1])))
    return op


def _primary(t: _Tokens) -> Operand:
    tok = t.take()
    kind = tok[0]
    if kind == "word":
        return _ref_operand(t, tok)
    if kind == "number":
        text = tok[1]
        return Operand("num", t.span(tok, len(text)),
                       numbers=[Number(text, False, t.span(tok, len(text)))])
    if kind == "punct" and tok[1] == "{":
        nums = _constvec(t, tok)
        op = Operand("vec", nums.span, numbers=nums)
        nxt = t.peek()
        if nxt is not None and nxt[0] == "members":
            t.take()
            op.swizzle = (nxt[1][1:], Span(t.file, nxt[3], nxt[4] + 1, max(1, len(nxt[1]) - 1)))
        return op
    raise _Refuse


def _operand(t: _Tokens) -> Operand:
    i = t.i
    if i < t.n:
        tok = t.toks[i]
        if tok[0] == "word":            # the common case: a plain reference
            t.i = i + 1
            return _ref_operand(t, tok)
    tok = t.peek() or ("", "", 0, 0, 0)
    kind, text = tok[0], tok[1]
    if kind == "target":
        t.take()
        return Operand("target", t.span(tok, len(text)), target=text)
    if kind == "punct" and text == "(":          # "RET (TR)": a condition as the operand
        t.take()
        ctok = t.take()
        if ctok[0] != "word":                    # "(1, 2)": offsets, lark parses them
            raise _Refuse
        t.expect(")")
        rule, _, swz = ctok[1].partition(".")
        cc = CCTestNode(rule, swz or None, t.span(ctok, len(ctok[1])))
        return Operand("cc", cc.span, cctest=cc)
    sign = None
    if kind == "punct" and text in "+-":
        sign = t.take()
        tok = t.peek() or ("", "", 0, 0, 0)
        kind, text = tok[0], tok[1]
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
        op.span = t.span(sign, op.span.length + 1)
    return op


def _instruction(t: _Tokens, tok: tuple) -> Instr:
    if "." in tok[1]:
        (opcode, span), *mods = _split(t, tok)
    else:
        opcode, span, mods = tok[1], Span(t.file, tok[3], tok[4], len(tok[1])), []
    operands = []
    if t.i < t.n:
        while True:
            operands.append(_operand(t))
            if t.i >= t.n:
                break
            t.expect(",")
    return Instr(opcode, span, mods, operands)


def _declaration(t: _Tokens, first: tuple) -> Decl:
    mods = []
    tok = first
    while tok[1] in VARMODS:
        mods.append((tok[1], t.span(tok, len(tok[1]))))
        tok = t.take()
    kind, text = tok[0], tok[1]
    if kind != "word":
        raise _Refuse
    if text in ("PARAM", "ATTRIB", "OUTPUT"):
        return _binding_decl(t, text, t.span(tok, len(text)), mods)
    if text != "TEMP":
        raise _Refuse
    kw_span = t.span(tok, len(text))
    names = []
    while True:
        ntok = t.take()
        name = ntok[1]
        if ntok[0] != "word" or "." in name:
            raise _Refuse
        size = None
        if t.at_punct("["):
            t.take()
            stok = t.take()
            if stok[0] != "number" or not stok[1].isdigit():
                raise _Refuse
            size = int(stok[1])
            t.expect("]")
        names.append((name, t.span(ntok, len(name)), size))
        if t.i >= t.n:
            return Decl("TEMP", kw_span, mods, names)
        t.expect(",")


def _binding_decl(t: _Tokens, kind: str, kw_span: Span, mods: list) -> Decl:
    """``varmod* (PARAM|ATTRIB|OUTPUT) NAME array_size? "=" init`` as larkparse._Builder._decl."""
    ntok = t.take()
    name = ntok[1]
    if ntok[0] != "word" or "." in name:
        raise _Refuse
    d = Decl(kind, kw_span, mods, [(name, t.span(ntok, len(name)), None)])
    if t.at_punct("["):
        t.take()
        d.array = True
        if not t.at_punct("]"):
            stok = t.take()
            if stok[0] != "number" or not stok[1].isdigit():
                raise _Refuse
            d.size = int(stok[1])
        t.expect("]")
    t.expect("=")
    tok = t.peek() or ("", "", 0, 0, 0)
    if tok[0] == "word":
        t.take()
        d.init = [_ref(t, tok)]
    elif tok[0] == "punct" and tok[1] == "{":
        t.take()
        d.init_is_list = True
        d.init = items = []
        while True:
            item = t.peek() or ("", "", 0, 0, 0)
            if item[0] == "word":
                t.take()
                items.append(_ref(t, item))
            elif item[0] == "punct" and item[1] == "{":
                t.take()
                items.append(_constvec(t, item))
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
    kind, text = first[0], first[1]
    if kind != "word":
        raise _Refuse
    if terminator == ":":
        if t.n - t.first != 1 or "." in text or text in KEYWORDS:
            raise _Refuse
        return Label(text, t.span(first, len(text)))
    if text in KEYWORDS:
        if text in ("TEMP", "PARAM", "ATTRIB", "OUTPUT") or text in VARMODS:
            return _declaration(t, first)
        raise _Refuse
    return _instruction(t, first)


def parse_fast(body: str, file: str, parse_slow) -> list | None:
    """The statements of ``body``: fast shapes built here, every run of other statements
    through ``parse_slow(text, lines, cols)`` (lark; the run starts ``lines`` lines down and,
    on its first line, ``cols`` columns right).
    ``None`` when ``parse_slow`` fails or the body ends in an unterminated statement: the
    caller's whole-file path reports the errors."""
    toks, ends, bad = _tokenize(body)
    t = _Tokens(toks, file)
    out: list = []
    slow_from = None            # (position, line, column) where the current refused run starts
    start = (0, 1, 0)           # where the statement starts: after the last terminator
    first = 0                   # its first token
    for ordinal, end in enumerate(ends):
        term = toks[end]
        try:
            if first == end or ordinal in bad:
                raise _Refuse       # ";" alone is lark's error; a stray character too
            t.first = t.i = first
            t.n = end
            node = _statement(t, term[1])
            if t.i != end:
                raise _Refuse
        except _Refuse:
            if slow_from is None:
                slow_from = start
        else:
            if slow_from is not None:
                slow = _slow(parse_slow, body, slow_from, start[0])
                if slow is None:
                    return None
                out.extend(slow)
                slow_from = None
            out.append(node)
        start = (term[2] + 1, term[3], term[4])
        first = end + 1
    if first < len(toks):
        return None                 # text after the last ';': lark's error
    if slow_from is not None:
        slow = _slow(parse_slow, body, slow_from, start[0])
        if slow is None:
            return None
        out.extend(slow)
    return out


def _slow(parse_slow, body: str, start: tuple[int, int, int], end: int) -> list | None:
    """lark over ``body[start[0]:end]``; ``start`` is (position, line, 0-based column)."""
    pos, line, col = start
    return parse_slow(body[pos:end], line - 1, col)
