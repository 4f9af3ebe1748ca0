"""Entry point of the NV/ARB assembly frontends: header -> dialect module."""
from __future__ import annotations

from ...diagnostics import DiagnosticSink
from ...ir.model import Program
from . import syntax
from .nv4 import NV4Builder, parse_var_lines


def parse_nv4(text: str, header: str, sink: DiagnosticSink) -> Program:
    offset = 1 if text.startswith("\ufeff") else 0
    start = offset + len(header)
    # blank the header so line/column numbers of the statements stay those of the file
    padded = " " * start + text[start:]
    body, _ = syntax.split_at_end(padded, start, sink)
    statements, lost_names = syntax.parse_statements(body, sink)
    builder = NV4Builder(header, sink)
    builder.poisoned.update(lost_names)
    prog = builder.build(statements)
    prog.vars = parse_var_lines(text)
    return prog
