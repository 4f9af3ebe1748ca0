"""The statement fast path (xlate/frontends/nv/fastparse.py) against lark's grammar.

Its contract: every statement it accepts gives the node lark's transformer gives, spans
included; everything else goes to lark.  So parse_statements must return exactly the same
nodes and diagnostics with the fast path on and off -- on the shared corpus, and on generated
statements built from the grammar's tokens, valid and not.
"""
from __future__ import annotations

import dataclasses
import os

import pytest

from conftest import SHARED_CORPUS, shared_corpus_or_skip
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from xlate.diagnostics import DiagnosticSink, XlateError
from xlate.frontends.nv import fastparse, syntax

CORPUS = SHARED_CORPUS


def canon(x):
    """A comparable form of an AST: dataclass fields in order, and the span a NumberList
    carries beside its items (list equality alone would ignore it)."""
    if isinstance(x, syntax.NumberList):
        return ("NumberList", [canon(i) for i in x], canon(getattr(x, "span", None)))
    if dataclasses.is_dataclass(x):
        return (type(x).__name__,) + tuple(canon(getattr(x, f.name)) for f in dataclasses.fields(x))
    if isinstance(x, (list, tuple)):
        return type(x).__name__, [canon(i) for i in x]
    return x


def parse(body: str, fast: bool):
    sink = DiagnosticSink("t.vp")
    saved = syntax.FAST_PATH
    syntax.FAST_PATH = fast
    try:
        statements, lost = syntax.parse_statements(body, sink)
        raised = False
    except XlateError:
        statements, lost, raised = [], set(), True
    finally:
        syntax.FAST_PATH = saved
    return canon(statements), sorted(lost), raised, [str(d) for d in sink.items]


def assert_same(body: str):
    assert parse(body, True) == parse(body, False), body


# ---- hand-written cases: one per shape, and the traps of lark's lexer ----------------------
SHAPES = [
    "MOV R0, R1;",
    "MAD.F.SAT R0.xyz, -|R1|, c[A0.x + 2].wzyx, {1, -2, 3.5, 4e2};",
    "MUL R0, -  R1.x, | -R2 |;",
    "ADD R0 (GT.x), R1, c[ 5 ].x;",
    "BRA label (TR);\nRET (TR);\nRET;",
    "TEX R0, fragment.texcoord[0], texture[0], 2D;",
    "SLT R0, {1, 2}.x, 0.5;",
    "loop:\n  SUB R0, R0, {\n 1,\n - 2 };",
    "TEMP R0, R1[4], INT;\nINT TEMP a;\nFLAT UINT TEMP b, c;",
    "PARAM c[4] = { program.local[0..3] };\nPARAM d = program.env[2];\nPARAM e = -1.5;",
    "PARAM f[] = { {1, 2, 3, 4}, program.local[1], -3, + 4 };",
    "ATTRIB a[] = { vertex.attrib[0..7] };\nOUTPUT o = result.color;\nINT OUTPUT i = result.color[1];",
    "MOV R0, c[A0.x - 0x10];",          # hexadecimal: refused, lark reads it
    "MOV R0, 2.x;\nMOV R1, 1.;\nMOV R2, .5;",   # numbers lark splits or reads differently
    "TEMP.x R0, R1;",                   # a dotted word is an opcode even when it starts TEMP
    "TEMP:",                            # a keyword is no label: lark's error
    "MOV R0, R1",                       # unterminated
    "MOV R0,, R1;\nADD R0, R1;",        # an error, then a good statement
    "CAL label NE.x;\nTXD R0, R1, R2, R3, texture[0], 2D, (1, -2);",
    "MOV R0, c[1.5];\nMOV R0, c[A0.x + 1.5];",
    "PRIMITIVE_IN TRIANGLES;\nVERTICES_OUT 3;\nBUFFER b[] = { program.buffer[0] };",
    "MOV R0, R1;;",
    "MOV R0, R1 : MOV R0, R1;",
]


@pytest.mark.parametrize("body", SHAPES)
def test_shapes_parse_as_lark_parses_them(body):
    assert_same(body)


def test_the_common_shapes_take_the_fast_path():
    # every statement of these parses without lark (a refused one would call parse_slow)
    calls = []
    body = "\n".join(SHAPES[:12])
    out = fastparse.parse_fast(body, "t.vp", lambda *a: calls.append(a) or [])
    assert out is not None and calls == []
    assert len(out) == 21


def test_blank_lines_and_trailing_whitespace_stay_on_the_fast_path():
    # a line of blanks (a blanked header or comment) once made the per-line tokenizer's "bad"
    # alternative take a space after backtracking, which sent the statement to lark
    calls = []
    body = "         \n \t \f\v\r\nMOV R0, R1;   \n    \nADD R0, R0, R1;\t\n  "
    out = fastparse.parse_fast(body, "t.vp", lambda *a: calls.append(a) or [])
    assert calls == [] and [n.opcode for n in out] == ["MOV", "ADD"]
    assert [(n.span.line, n.span.col) for n in out] == [(3, 1), (5, 1)]
    assert_same(body)


def test_a_refused_run_goes_to_lark_with_its_position():
    calls = []
    body = "MOV R0, R1;\nMOV R0, c[A0.x + 0x1]; MOV R1, 2.x;\n  ADD R0, R0, R1;"
    out = fastparse.parse_fast(body, "t.vp", lambda text, dl, dc: calls.append((text, dl, dc)) or ["slow"])
    assert calls == [("\nMOV R0, c[A0.x + 0x1]; MOV R1, 2.x;", 0, 11)]
    assert [type(x).__name__ if x != "slow" else x for x in out] == ["Instr", "slow", "Instr"]


def test_a_refused_statement_never_leaks_memory():
    # an exception instance raised again grows its traceback chain (and keeps every frame's
    # locals): each refusal must raise a fresh one
    import gc
    body = "MOV R0, c[A0.x + 0x1];\n" * 200
    fastparse.parse_fast(body, "t.vp", lambda *a: [])
    gc.collect()
    before = sum(1 for o in gc.get_objects() if type(o).__name__ == "traceback")
    fastparse.parse_fast(body, "t.vp", lambda *a: [])
    gc.collect()
    assert sum(1 for o in gc.get_objects() if type(o).__name__ == "traceback") == before


# ---- generated statements -------------------------------------------------------------------
WORDS = ["MOV", "MAD.F.SAT", "R0", "R1.xyzw", "c", "A0.x", "result.color", "program.local",
         "TEMP", "PARAM", "ATTRIB", "OUTPUT", "INT", "FLAT", "GT.x", "TR", "label", "texture",
         "vertex.attrib", "ALIAS", "e", "x"]
NUMBERS = ["0", "1", "12", "1.5", "2e3", "1.5e-2", "0x1F", "1.", ".5", "3D", "2D", "4D"]
PUNCT = [",", "|", "[", "]", "(", ")", "{", "}", "+", "-", "=", "..", ".x", ".xyzw", ";", ":"]
SPACE = [" ", "", "  ", "\n", "\t", "\n  "]

token = st.one_of(st.sampled_from(WORDS), st.sampled_from(NUMBERS), st.sampled_from(PUNCT))


@st.composite
def operand(draw):
    sign = draw(st.sampled_from(["", "-", "+", "- "]))
    core = draw(st.one_of(
        st.sampled_from(["R0", "R1.xyzw", "c[A0.x + 2]", "c[3].x", "program.local[0..3]",
                         "R0 (GT.x)", "{1, -2, 3, 4}", "{1,2}.xy", "1.5", "2D", "(TR)",
                         "texture[1]", "c[A0.x-1].w"]),
        st.lists(token, min_size=1, max_size=4).map(" ".join)))
    if draw(st.booleans()) and draw(st.booleans()):
        core = f"|{draw(st.sampled_from(['', '-']))}{core}|"
    return sign + core


@st.composite
def statement(draw):
    kind = draw(st.integers(0, 9))
    if kind == 0:
        return draw(st.sampled_from(WORDS)) + ":"
    if kind == 1:
        mods = draw(st.sampled_from(["", "INT ", "FLAT UINT "]))
        kw = draw(st.sampled_from(["TEMP", "PARAM", "ATTRIB", "OUTPUT"]))
        rhs = draw(st.sampled_from(["R0, R1[2]", "a = program.local[1]", "b[] = { vertex.attrib[0..3] }",
                                    "c[2] = { {1, 2}, -3, program.env[0] }", "d = -1", "e = 1.5"]))
        return f"{mods}{kw} {rhs};"
    if kind == 2:
        return " ".join(draw(st.lists(token, max_size=8))) + draw(st.sampled_from([";", ":", ""]))
    opcode = draw(st.sampled_from(["MOV", "MAD.F.SAT", "RET", "BRA", "TEX", "TEMP.x", "ADD.CC"]))
    ops = draw(st.lists(operand(), max_size=4))
    sep = draw(st.sampled_from([", ", ",", " ,\n "]))
    return f"{opcode} {sep.join(ops)};"


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow],
          derandomize=True)
@given(st.lists(st.tuples(statement(), st.sampled_from(SPACE)), min_size=1, max_size=6))
def test_generated_statements_parse_as_lark_parses_them(parts):
    assert_same("".join(s + space for s, space in parts))


# ---- the shared corpus ----------------------------------------------------------------------
def corpus_bodies():
    """The statement text of each NV-syntax corpus program, as the frontends hand it to
    parse_statements (every 7th file; XLATE_FULL_CORPUS=1 for all of them)."""
    if not CORPUS.is_dir():
        return []
    stride = 1 if os.environ.get("XLATE_FULL_CORPUS") else 7
    files = sorted(p for p in CORPUS.rglob("*") if p.suffix in (".vp", ".fp", ".gp", ".txt", ".asm")
                   or p.suffix in (".vsh", ".psh"))
    return files[::stride]


def test_corpus_statements_parse_as_lark_parses_them(monkeypatch):
    shared_corpus_or_skip()
    from xlate.frontends import parse_program
    bodies = []
    real = syntax.parse_statements

    def capture(body, sink):
        bodies.append(body)
        return real(body, sink)
    monkeypatch.setattr(syntax, "parse_statements", capture)
    files = corpus_bodies()
    for path in files:
        try:
            parse_program(path.read_text(errors="replace"), path.name)
        except Exception:            # noqa: BLE001 - any result: only the bodies matter here
            pass
    monkeypatch.setattr(syntax, "parse_statements", real)
    assert len(bodies) > len(files) // 3
    for body in bodies:
        assert_same(body)
