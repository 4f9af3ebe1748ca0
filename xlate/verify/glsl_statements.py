"""Reading the GLSL xlate writes, statement by statement: its tokens, a statement's identity
across shaders (numbered temporaries and re-run qualifiers ignored), where the program's code
is, and the assignments and outputs in it.  Shared by the mutation harness
(:mod:`mutants_glsl`) and the GLSL liveness analysis (:mod:`glsl_liveness`)."""
from __future__ import annotations

import re

# ---- GLSL tokens -------------------------------------------------------------------------------

_TOKEN = re.compile(r"""
    \s+
  | 0[xX][0-9a-fA-F]+[uU]?
  | (?:\d+\.\d*|\.\d+)(?:[eE][+-]?\d+)?[fF]? | \d+[eE][+-]?\d+[fF]?
  | \d+[uU]?
  | [A-Za-z_]\w*
  | <<=|>>=|<<|>>|<=|>=|==|!=|&&|\|\||\^\^|\+\+|--|[-+*/%&|^]=
  | .""", re.X)
_NUMBERED = re.compile(r"(xl_[a-z]+)\d+")          # the backend's fresh names: xl_t12, xl_m3
_QUALIFIERS = ("precise", "highp")                  # make_precise adds them on re-runs


def tokenize(line: str) -> list[str]:
    return _TOKEN.findall(line)


def significant(tokens: list[str]) -> list[int]:
    """Indices of the tokens that identify a statement: no blanks, no qualifiers."""
    return [i for i, t in enumerate(tokens) if not t.isspace() and t not in _QUALIFIERS]


def statement_key(tokens: list[str]) -> tuple[str, ...]:
    """The statement's identity across shaders: significant tokens, fresh names unnumbered."""
    return tuple(_NUMBERED.sub(r"\1#", tokens[i]) for i in significant(tokens))


# ---- where the program's code is ---------------------------------------------------------------

_FUNCTION = re.compile(r"^void (xl_main|sub_\w+)\(\)$")


def code_lines(glsl: str) -> list[int]:
    """Line numbers of the program's statements: the bodies of ``xl_main`` and of the
    subroutines (``sub_*``).  Not ``main`` (interface copies and the harness's capture edits),
    not the helper library, not declarations, not the iteration guards of ``for (;;)``."""
    lines = glsl.split("\n")
    out = []
    k = 0
    while k < len(lines):
        if _FUNCTION.match(lines[k]) and k + 1 < len(lines) and lines[k + 1] == "{":
            k += 2
            while k < len(lines) and lines[k] != "}":
                if "xl_iter" not in lines[k] and lines[k].strip() not in ("", "{", "}"):
                    out.append(k)
                k += 1
        k += 1
    return out


# ---- statements -------------------------------------------------------------------------------

def matching_paren(S: list[str], k: int) -> int:
    """Index of the ')' matching the '(' at ``k`` (len(S) when unbalanced)."""
    depth = 0
    for j in range(k, len(S)):
        depth += S[j] == "("
        depth -= S[j] == ")"
        if depth == 0:
            return j
    return len(S)


def call_arguments(S: list[str], open_: int) -> list[tuple[int, int]]:
    """Token ranges of the top-level arguments of the call whose '(' is at ``open_``."""
    end = matching_paren(S, open_)
    out, start, depth = [], open_ + 1, 0
    for j in range(open_ + 1, end):
        depth += S[j] in "([{" and len(S[j]) == 1
        depth -= S[j] in ")]}" and len(S[j]) == 1
        if S[j] == "," and depth == 0:
            out.append((start, j))
            start = j + 1
    out.append((start, end))
    return out


def top_level_assignment(S: list[str]) -> int | None:
    """Index of the top-level '=' of an assignment or initialised declaration."""
    depth = 0
    for j, t in enumerate(S):
        depth += t in ("(", "[")
        depth -= t in (")", "]")
        if t == "=" and depth == 0:
            return j
    return None


_BUILTIN_OUTPUTS = frozenset({"gl_Position", "gl_PointSize", "gl_ClipDistance", "gl_FragDepth",
                              "gl_Layer", "gl_PrimitiveID"})
_OUT_DECL = re.compile(r"^(?:layout\([^)]*\) )?(?:\w+ )*out \w+ (\w+)(?:\[\d*\])?;", re.M)


def output_names(glsl: str) -> frozenset[str]:
    """The variables through which the translation's results leave the shader: the staged
    outputs (``out_*``), the declared ``out`` variables an output is written to in place, and
    the built-in outputs."""
    return frozenset(_OUT_DECL.findall(glsl)) | _BUILTIN_OUTPUTS
