"""Frontends: source text -> IR.  ``parse_program`` picks one from the header."""
from __future__ import annotations

from ..diagnostics import DiagnosticSink, Span, XlateError
from ..ir.model import Program
from .detect import NV4_HEADERS, describe_unknown, detect_header

MAX_SOURCE_BYTES = 16 * 1024 * 1024


def parse_program(text: str, filename: str = "<input>") -> Program:
    """Parse one program; raise XlateError carrying every diagnostic on failure.

    Warnings of a successful parse are kept in ``program.diagnostics``."""
    sink = DiagnosticSink(filename, text)
    if len(text) > MAX_SOURCE_BYTES:
        sink.error("E1008", f"input is {len(text)} bytes; the limit is {MAX_SOURCE_BYTES}",
                   Span(filename, 1, 1))
        sink.raise_if_errors()
    if "\x00" in text:
        pos = text.index("\x00")
        line = text.count("\n", 0, pos) + 1
        col = pos - (text.rfind("\n", 0, pos) + 1) + 1
        sink.error("E1003", "NUL character in program text", Span(filename, line, col))
        sink.raise_if_errors()
    header = detect_header(text)
    if header is None:
        sink.error("E1001", describe_unknown(text), Span(filename, 1, 1, 2))
        sink.raise_if_errors()
    if header in NV4_HEADERS:
        from .nv.frontend import parse_nv4
        # GP4 2.X.2: comments end at "a newline, a carriage return, or the end of the program";
        # the parser counts lines at '\n' only, so a file with bare CR line ends would report
        # every position on line 1.  CRLF -> LF keeps all columns; bare CR -> LF fixes lines.
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        prog = parse_nv4(text, header, sink)
    else:
        sink.error("E1001", f"the {header[2:]} dialect is not supported yet", Span(filename, 1, 1, len(header)))
        sink.raise_if_errors()
    sink.raise_if_errors()
    prog.diagnostics = [d for d in sink.items if not d.is_error]
    return prog


__all__ = ["parse_program", "XlateError"]
