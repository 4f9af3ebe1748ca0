"""Operands resolved once per spelling (xlate/frontends/nv/operand_memo.py): the IR and the
diagnostics are those of resolving every operand, and repeated spellings are not resolved
again (until a declaration)."""
from __future__ import annotations

import pytest

from xlate.diagnostics import XlateError
from xlate.frontends import parse_program
from xlate.frontends.nv import syntax
from xlate.frontends.nv.arbvp import ARBVPBuilder
from xlate.frontends.nv.nv4_operands import NV4Operands
from xlate.ir.printer import print_program

# each program spells operands more than once, some of them with a diagnostic at every use
PROGRAMS = {
    # E2017 (a warning) at both uses of c[A0.x + 70]
    "warned.vp": """!!ARBvp1.0
PARAM c[100] = { program.env[0..99] };
ADDRESS A0;
TEMP R0;
ARL A0.x, vertex.position.x;
MOV R0, c[A0.x + 70];
ADD R0, R0, c[A0.x + 70];
MAD R0.xy, -R0, c[3].x, vertex.position;
MAD result.position, -R0, c[3].x, R0;
MOV result.color, c[A0.x + 70];
MOV result.texcoord[0].xy, vertex.position;
END
""",
    # E3004 at both reads of the OUTPUT o, beside clean repeats
    "errors.vp": """!!ARBvp1.0
TEMP R0;
OUTPUT o = result.color;
MOV R0, o;
MOV o, vertex.color;
ADD R0, R0, o;
MOV result.position, R0;
END
""",
    "nv4.vp": """!!NVvp4.0
PARAM c[4] = { program.local[0..3] };
TEMP R0, R1;
INT TEMP I;
DP4.F R0.x, vertex.attrib[0], c[0];
DP4.F R0.y, vertex.attrib[0], c[1];
MUL.F R1, R0.xyxy, c[2];
MOV.S I, R1;
ADD.S I.x, I, I;
MOV.F result.position, R0;
MOV.F result.texcoord[0], R1;
MOV.F result.color, R1;
END
""",
    # E3006 at both reads of a FLOAT register by integer instructions
    "nv4-typed.vp": """!!NVvp4.0
FLOAT TEMP F;
INT TEMP I;
MOV.F F, vertex.position;
ADD.S I, F, I;
ADD.S I.x, F, I;
MOV.F result.position, F;
END
""",
}


def where(d) -> str:
    return f"{d.code} {d.span.line}:{d.span.col} {d.message}"


def translate_both_ways(name: str, text: str):
    """(IR text or diagnostics) through fastparse (operands remembered) and through lark's
    whole-file path (no operand text: every operand resolved)."""
    out = []
    for fast in (True, False):
        saved, syntax.FAST_PATH = syntax.FAST_PATH, fast
        try:
            prog = parse_program(text, name)
            out.append((print_program(prog), [where(d) for d in prog.diagnostics]))
        except XlateError as e:
            out.append(("failed", [where(d) for d in e.diagnostics]))
        finally:
            syntax.FAST_PATH = saved
    return out


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_remembered_operands_give_the_ir_and_diagnostics_of_resolving_each(name):
    fast, slow = translate_both_ways(name, PROGRAMS[name])
    assert fast == slow


def test_a_diagnostic_is_reported_at_every_use():
    (_, warnings), _ = translate_both_ways("warned.vp", PROGRAMS["warned.vp"])
    assert [w.split()[1] for w in warnings if w.startswith("E2017")] == ["6:11", "7:15", "10:21"]
    (_, errors), _ = translate_both_ways("errors.vp", PROGRAMS["errors.vp"])
    assert [e.split()[1] for e in errors if e.startswith("E3004")] == ["4:9", "6:13"]
    (_, errors), _ = translate_both_ways("nv4-typed.vp", PROGRAMS["nv4-typed.vp"])
    assert [e.split()[1] for e in errors if e.startswith("E3006")] == ["5:10", "6:12"]


def resolved(monkeypatch, cls, text: str, name: str) -> list[str]:
    """The names ``cls.reference`` resolved while ``text`` was parsed, in order."""
    seen = []
    real = cls.reference

    def reference(self, ref, write):
        seen.append(ref.name)
        return real(self, ref, write)
    monkeypatch.setattr(cls, "reference", reference)
    parse_program(text, name)
    return seen


def test_a_repeated_spelling_is_resolved_once(monkeypatch):
    text = "!!ARBvp1.0\nTEMP R0;\nMOV R0, vertex.position;\nADD R0, R0, vertex.position;\n" \
           "MUL R0, R0, R0.x;\nMOV result.position, R0;\nEND\n"
    # R0 as destination, vertex.position, R0 as a source, R0.x, result.position: the second
    # "R0" destination and the second "vertex.position" are remembered
    assert resolved(monkeypatch, ARBVPBuilder, text, "r.vp") == [
        "R0", "vertex", "R0", "R0", "result"]


def test_a_declaration_forgets_the_remembered_operands(monkeypatch):
    text = "!!NVvp4.0\nTEMP R0;\nMOV.F R0, vertex.position;\nTEMP R1;\n" \
           "MOV.F R0, vertex.position;\nMOV.F result.position, R0;\nEND\n"
    # the second MOV resolves its destination and its source again
    assert resolved(monkeypatch, NV4Operands, text, "d.vp") == [
        "R0", "vertex", "R0", "vertex", "result", "R0"]
