"""Entry point of the NV/ARB assembly frontends: header -> dialect module."""
from __future__ import annotations

from ...diagnostics import DiagnosticSink
from ...ir.model import Program
from . import syntax
from .cgnames import parse_var_lines, resolve_source_names
from .nv4 import NV4Builder


def parse_nv4(text: str, header: str, sink: DiagnosticSink) -> Program:
    offset = 1 if text.startswith("\ufeff") else 0
    start = offset + len(header)
    # blank the header so line/column numbers of the statements stay those of the file
    padded = " " * start + text[start:]
    body, _ = syntax.split_at_end(padded, start, sink)
    statements, lost_names = syntax.parse_statements(body, sink)
    statements = _drop_fp1_declarations(statements, sink)
    builder = NV4Builder(header, sink)
    builder.poisoned.update(lost_names)
    prog = builder.build(statements)
    named(prog, text)
    return prog


def named(prog: Program, text: str) -> None:
    """The cgc ``#var`` header of ``text``: kept as written (reflection) and resolved to the
    bindings the program uses (the names the backends declare)."""
    prog.vars = parse_var_lines(text)
    prog.source_names = resolve_source_names(prog)


def _drop_fp1_declarations(statements: list, sink: DiagnosticSink) -> list:
    # The shared grammar parses FP1's DEFINE/DECLARE (nv.lark); they do not exist in NV4.
    out = []
    for st in statements:
        if isinstance(st, syntax.Decl) and st.kind in ("DEFINE", "DECLARE"):
            sink.error("E1002", f"{st.kind} exists only in !!FP1.0 programs", st.span)
        else:
            out.append(st)
    return out


def _parse_body(text: str, header: str, sink: DiagnosticSink):
    """Statements of an ARB/FP1 program (the header blanked so positions stay the file's)."""
    offset = 1 if text.startswith("\ufeff") else 0
    start = offset + len(header)
    padded = " " * start + text[start:]
    body, _ = syntax.split_at_end(padded, start, sink)
    return syntax.parse_statements(body, sink)


def parse_arbfp(text: str, header: str, sink: DiagnosticSink) -> Program:
    """``!!ARBfp1.0`` (+ NV_fragment_program / NV_fragment_program2 options): arbfp.py."""
    from .arbfp import ARBfpBuilder
    statements, lost_names = _parse_body(text, header, sink)
    builder = ARBfpBuilder(header, sink)
    builder.poisoned.update(lost_names)
    prog = builder.build(statements)
    named(prog, text)
    return prog


def parse_fp1(text: str, header: str, sink: DiagnosticSink) -> Program:
    """``!!FP1.0`` (NV_fragment_program): fp1.py."""
    from .fp1 import FP1Builder
    statements, lost_names = _parse_body(text, header, sink)
    builder = FP1Builder(header, sink)
    builder.poisoned.update(lost_names)
    prog = builder.build(statements)
    named(prog, text)
    return prog


def parse_vertex_program(text: str, header: str, sink: DiagnosticSink) -> Program:
    """``!!VP1.0`` ``!!VP1.1`` ``!!VSP1.0`` ``!!VP2.0`` (vp.py) and ``!!ARBvp1.0`` (arbvp.py)."""
    if header == "!!ARBvp1.0":
        from .arbvp import parse_arbvp
        prog = parse_arbvp(text, header, sink)
    else:
        from .vp import parse_vp
        prog = parse_vp(text, header, sink)
    named(prog, text)
    return prog
