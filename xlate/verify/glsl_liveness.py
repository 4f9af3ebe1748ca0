"""Which statements of a translated program can reach an output: a backward liveness pass over
the GLSL the backend writes, per variable and component.

The mutation harness (:mod:`mutants`) uses it to mutate only statements whose result may be
read: a mutant of a statement whose result no later statement, condition or output reads is
*equivalent by construction* -- no input can tell it apart -- so it is skipped (and counted
apart), not run.  The pass over-approximates liveness (the safe direction: a statement it
calls dead is dead on every input):

* flow: ``if``/``else`` join both branches; a ``for`` loop is iterated to a fixed point; a
  ``break``/``continue`` sees what is live at the loop's head, ``return``/``discard`` what is
  live at the function's end; a statement of any other shape (a subroutine call,
  ``EmitVertex()``) reads every variable;
* values: a write of ``v.xz`` kills those components of ``v``; a write through an index
  (``a[i] = ...``) kills nothing; a read of ``v.yx`` reads those components, any other read
  (``v``, ``v[i]``, ``v`` passed to a function) all four;
* roots: what ``main()`` and the interface read -- every ``out_*`` and ``gl_*`` variable, every
  declared ``out`` variable (outputs written in place) and every variable ``main()`` names --
  at the end of ``xl_main``; a subroutine's end reads every variable.

Code the pass does not recognise (``switch``, ``do``, ``while``, ``else if`` on one line)
makes every statement live.
"""
from __future__ import annotations

import re

_IDENT = re.compile(r"[A-Za-z_]\w*")
_SWIZZLE = re.compile(r"[xyzw]{1,4}")
_FUNCTION = re.compile(r"^void (xl_main|sub_\w+)\(\)$")
_COMPOUND = frozenset({"+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", "++",
                       "--"})
_UNKNOWN = frozenset({"switch", "case", "default", "do", "while", "goto"})
_QUALIFIERS = ("precise", "highp", "mediump", "lowp", "const")
ALL4 = (0, 1, 2, 3)


class _Unrecognised(Exception):
    pass


def _tokens(line: str) -> list[str]:
    from .glsl_statements import tokenize
    return [t for t in tokenize(line) if not t.isspace() and t not in _QUALIFIERS]


def _reads(S: list[str]) -> set:
    """(variable, component) pairs the tokens read (function names are no reads)."""
    out = set()
    for k, t in enumerate(S):
        if not _IDENT.fullmatch(t) or t in ("true", "false"):
            continue
        if k > 0 and S[k - 1] == ".":
            continue                                  # a swizzle or field, not a variable
        nxt = S[k + 1] if k + 1 < len(S) else ""
        if nxt == "(":
            continue
        if nxt == "." and k + 2 < len(S) and _SWIZZLE.fullmatch(S[k + 2]):
            out |= {(t, "xyzw".index(c)) for c in S[k + 2]}
        else:
            out |= {(t, c) for c in ALL4}
    return out


def _assignment(S: list[str]) -> int | None:
    """Index of the top-level '=' (the mutation harness's reading of a statement)."""
    from .glsl_statements import top_level_assignment
    return top_level_assignment(S)


def _parse(lines: list[str], k: int) -> tuple[list, int]:
    """Items of the block whose '{' is lines[k]; returns (items, index after its '}')."""
    assert lines[k].strip() == "{"
    k += 1
    items: list = []
    while True:
        if k >= len(lines):
            raise _Unrecognised("unbalanced")
        s = lines[k].strip()
        if s == "}":
            return items, k + 1
        if s == "{":
            body, k = _parse(lines, k)
            items.append(("block", None, body))
            continue
        S = _tokens(lines[k])
        if not S:
            k += 1
            continue
        if S[0] in _UNKNOWN or S[0] == "else":
            raise _Unrecognised(s)
        if S[0] in ("if", "for") and S[-1] != ";":
            if k + 1 >= len(lines) or lines[k + 1].strip() != "{":
                raise _Unrecognised(s)
            body, j = _parse(lines, k + 1)
            if S[0] == "for":
                items.append(("for", k, S, body))
                k = j
                continue
            other = None
            if j < len(lines) and lines[j].strip() == "else":
                if j + 1 >= len(lines) or lines[j + 1].strip() != "{":
                    raise _Unrecognised(lines[j].strip())
                other, j = _parse(lines, j + 1)
            items.append(("if", k, S, body, other))
            k = j
            continue
        items.append(("stmt", k, S))
        k += 1
    return items, k


class _Walk:
    def __init__(self, universe: set):
        self.universe = universe
        self.live: set[int] = set()

    def block(self, items, L: set, loop: set, end: set) -> set:
        for item in reversed(items):
            L = self.item(item, L, loop, end)
        return L

    def item(self, item, L, loop, end) -> set:
        kind = item[0]
        if kind == "block":
            return self.block(item[2], L, loop, end)
        if kind == "if":
            _, k, S, then, other = item
            before = len(self.live)
            a = self.block(then, L, loop, end)
            b = self.block(other, L, loop, end) if other is not None else L
            if len(self.live) > before:
                self.live.add(k)
            return a | b | _reads(S)
        if kind == "for":
            _, k, S, body = item
            before = len(self.live)
            head = L | _reads(S)
            while True:
                inner = self.block(body, head, head, end)
                grown = head | inner
                if grown == head:
                    break
                head = grown
            if len(self.live) > before:
                self.live.add(k)
            return head
        _, k, S = item
        return self.statement(k, S, L, loop, end)

    def statement(self, k, S, L, loop, end) -> set:
        if S[0] in ("break", "continue"):
            self.live.add(k)
            return L | loop
        if S[0] in ("return", "discard"):
            self.live.add(k)
            return L | end
        if S[0] == "if":                              # if (c) break; / continue; / discard;
            self.live.add(k)
            return L | loop | end | _reads(S)
        eq = _assignment(S)
        if eq is None or any(t in _COMPOUND for t in S):
            if len(S) == 3 and S[2] == ";" and _IDENT.fullmatch(S[0]) and \
                    _IDENT.fullmatch(S[1]):
                return L                              # a declaration: reads nothing
            self.live.add(k)
            return L | self.universe | _reads(S)
        lhs, rhs = S[:eq], S[eq + 1:]
        if "[" in lhs:
            j = lhs.index("[") - 1
            comps, kills = ALL4, False
        elif "." in lhs:
            j = lhs.index(".") - 1
            swz = lhs[j + 2] if j + 2 < len(lhs) else ""
            comps = tuple("xyzw".index(c) for c in swz) if _SWIZZLE.fullmatch(swz) else ALL4
            kills = True
        else:
            j = len(lhs) - 1
            comps, kills = ALL4, True
        if j < 0 or not _IDENT.fullmatch(lhs[j]):
            self.live.add(k)
            return L | self.universe | _reads(S)
        var = lhs[j]
        written = {(var, c) for c in comps}
        if not written & L:
            return L                                  # nothing reads what it writes
        self.live.add(k)
        out = L - written if kills else set(L)
        index_reads = _reads(lhs[j + 1:]) if "[" in lhs else set()
        return out | _reads(rhs) | index_reads


def live_lines(glsl: str) -> set[int] | None:
    """Line numbers (0-based) of the statements of ``xl_main`` and the subroutines whose
    result may reach an output; None when the code has a shape the pass does not recognise
    (then every statement counts as live)."""
    lines = glsl.split("\n")
    functions = []
    universe: set = set()
    for k, line in enumerate(lines):
        m = _FUNCTION.match(line)
        if m and k + 1 < len(lines) and lines[k + 1] == "{":
            try:
                body, _ = _parse(lines, k + 1)
            except _Unrecognised:
                return None
            functions.append((m.group(1), body))
    for name, body in functions:
        for item in _flatten(body):
            universe |= _reads(item[2])
            if item[0] == "stmt":
                eq = _assignment(item[2])
                if eq is not None:
                    universe |= _reads(item[2][:eq])
    from .glsl_statements import output_names
    # outputs written in place (declared 'out', the backend's direct outputs) are roots too
    names = {v for (v, _) in _reads(_tokens(_main_body(lines)))} | output_names(glsl)
    roots = {(v, c) for (v, c) in universe if v.startswith(("out_", "gl_")) or v in names}
    walk = _Walk(universe)
    for name, body in functions:
        end = roots if name == "xl_main" else universe
        walk.block(body, set(end), set(), set(end))
    return walk.live


def _main_body(lines: list[str]) -> str:
    """The text of ``void main()``'s body: what it reads after ``xl_main()`` is a root."""
    try:
        k = lines.index("void main()")
    except ValueError:
        return ""
    out = []
    for line in lines[k + 2:]:
        if line == "}":
            break
        out.append(line)
    return "\n".join(out)


def _flatten(items):
    for item in items:
        if item[0] == "block":
            yield from _flatten(item[2])
        elif item[0] == "if":
            yield item
            yield from _flatten(item[3])
            if item[4] is not None:
                yield from _flatten(item[4])
        elif item[0] == "for":
            yield item
            yield from _flatten(item[3])
        else:
            yield item
