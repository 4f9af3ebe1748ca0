"""Frontends: source text -> IR.  ``parse_program`` picks one from the header."""
from __future__ import annotations

import threading

from ..diagnostics import DiagnosticSink, Span, XlateError
from ..fsio import MAX_SOURCE_BYTES  # one limit for reading and parsing (fsio's)
from ..gcpause import paused
from ..ir.model import Program
from .detect import NV4_HEADERS, describe_unknown, detect_header, is_tgsi_text, looks_binary

VERTEX_PROGRAM_HEADERS = ("!!VP1.0", "!!VP1.1", "!!VSP1.0", "!!VP2.0", "!!ARBvp1.0")
#: the lark parser instances are shared between threads; parsing itself is quick
_lock = threading.Lock()


def parse_program(text: str | bytes, filename: str = "<input>") -> Program:
    """Parse one program; raise XlateError carrying every diagnostic on failure.

    ``text`` may be bytes: a TGSI binary token stream (seed or Mesa layout) is decoded as such,
    anything else as text (UTF-8, else Latin-1).  Warnings of a successful parse are kept in
    ``program.diagnostics``."""
    with _lock, paused():        # linear time for large programs (xlate/gcpause.py)
        try:
            return _parse_program(text, filename)
        except XlateError as e:
            # the traceback of an error raised deep in a frontend keeps the half-built program
            # alive (its frames' locals), and the collection the pause deferred would walk all
            # of it (300k objects for an 8,000-deep nest of loops rejected at depth 64).
            # Without the traceback, reference counting frees the program before the collector
            # is back on; the diagnostics are what the caller gets.
            error = e.with_traceback(None)
    raise error


def _parse_program(text: str | bytes, filename: str) -> Program:
    if isinstance(text, (bytes, bytearray)):
        from .tgsi.binary import detect_layout
        data = bytes(text)
        if detect_layout(data) is not None or looks_binary(data):
            # a token stream, or binary data that is none: decode() says which (E1009)
            return _parse_tgsi_binary(data, filename)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text = data.decode("latin-1")
    sink = DiagnosticSink(filename, text)
    if len(text) > MAX_SOURCE_BYTES:
        sink.error("E1008", f"input is {len(text)} bytes; the limit is {MAX_SOURCE_BYTES}",
                   Span(filename, 1, 1))
        sink.raise_if_errors()
    if "\x00" in text and _nul_ends_fragment_program(text):
        # ARBfp/FP1 programs cut out of C sources carry the string's NUL after END: the program
        # ends there (text after END is ignored anyway, E1005).  NV4 keeps the strict rule.
        pos = text.index("\x00")
        line = text.count("\n", 0, pos) + 1
        sink.warning("E1005", "text after END is ignored (from a NUL character on)",
                     Span(filename, line, pos - (text.rfind("\n", 0, pos) + 1) + 1))
        text = text[:pos]
    if "\x00" in text:
        pos = text.index("\x00")
        line = text.count("\n", 0, pos) + 1
        col = pos - (text.rfind("\n", 0, pos) + 1) + 1
        sink.error("E1003", "NUL character in program text", Span(filename, line, col))
        sink.raise_if_errors()
    header = detect_header(text)
    if header is None and is_tgsi_text(text):
        return _parse_tgsi_text(text, sink)
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
    elif header in ("!!ARBfp1.0", "!!FP1.0"):
        # fragment-program dialects (frontends/nv/arbfp.py, fp1.py); line ends as for NV4
        from .nv.frontend import parse_arbfp, parse_fp1
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        prog = (parse_arbfp if header == "!!ARBfp1.0" else parse_fp1)(text, header, sink)
    elif header in VERTEX_PROGRAM_HEADERS:
        # NV_vertex_program family and ARB_vertex_program (+ NV options): nv/vp.py, nv/arbvp.py
        from .nv.frontend import parse_vertex_program
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        prog = parse_vertex_program(text, header, sink)
    else:
        sink.error("E1001", f"the {header[2:]} dialect is not supported yet", Span(filename, 1, 1, len(header)))
        sink.raise_if_errors()
    sink.raise_if_errors()
    prog.diagnostics = [d for d in sink.items if not d.is_error]
    return prog


def parse_tgsi_shader(source: str | bytes, filename: str = "<input>"):
    """The TGSI model (frontends/tgsi/model.py) of TGSI text or a token stream, for the
    printer; anything else is E1001."""
    from .tgsi.binary import decode
    from .tgsi.text import parse_text
    if isinstance(source, (bytes, bytearray)):
        sink = DiagnosticSink(filename, None)
        shader = decode(bytes(source), sink)
    else:
        sink = DiagnosticSink(filename, source)
        if not is_tgsi_text(source):
            sink.error("E1001", "TGSI output needs a TGSI program (text or token stream)",
                       Span(filename, 1, 1))
            sink.raise_if_errors()
        shader = parse_text(source, sink)
    sink.raise_if_errors()
    return shader


def _parse_tgsi_text(text: str, sink: DiagnosticSink) -> Program:
    """Gallium TGSI text (frontends/tgsi): parse to the TGSI model, lower to the IR."""
    from .tgsi.lower import lower
    from .tgsi.text import parse_text
    shader = parse_text(text, sink)
    prog = lower(shader, sink) if shader is not None else None
    sink.raise_if_errors()
    assert prog is not None
    prog.diagnostics = [d for d in sink.items if not d.is_error]
    return prog


def _parse_tgsi_binary(data: bytes, filename: str) -> Program:
    """A TGSI binary token stream (frontends/tgsi/binary.py): decode, lower to the IR.
    Diagnostics carry no source text (there are no lines to show)."""
    from .tgsi.binary import decode
    from .tgsi.lower import lower
    sink = DiagnosticSink(filename, None)
    shader = decode(data, sink)
    prog = lower(shader, sink) if shader is not None else None
    sink.raise_if_errors()
    assert prog is not None
    prog.diagnostics = [d for d in sink.items if not d.is_error]
    return prog


def _nul_ends_fragment_program(text: str) -> bool:
    """An ARBfp/FP1 program whose first NUL comes after its END statement."""
    header = detect_header(text)
    if header not in ("!!ARBfp1.0", "!!FP1.0"):
        return False
    from .nv.syntax import blank_comments, find_end
    return find_end(blank_comments(text[:text.index("\x00")]), len(header)) >= 0


__all__ = ["parse_program", "XlateError"]
