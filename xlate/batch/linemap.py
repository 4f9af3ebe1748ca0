"""Which GLSL line came from which source line, for the HTML report.

The GLSL backend does not record line information yet.  This module recovers it without
changing the backend: it emits the program once more through a subclass of the backend's
emitter that appends an invisible marker (the source line of the IR instruction) to every line
a structured node (instruction, IF, REP, BRK/CONT/RET/CAL) produced, then strips the markers
and checks that the text is exactly the GLSL the real translation produced.  If anything
differs (the backend changed in a way this does not follow), there is no map and the report
shows the source beside the GLSL without links.  A ``// line N`` facility in the backend would
make this exact by construction (see docs/batch.md).
"""
from __future__ import annotations

import re

_MARK = "\ue000"
_TAGGED = re.compile(_MARK + r"(\d+)" + _MARK)


def glsl_line_map(program, profile: str, glsl: str) -> list[int] | None:
    """``[source line of GLSL line 1, of line 2, ...]`` (0 where no instruction produced the
    line), or None when the map cannot be recovered for this backend version."""
    try:
        from ..backends.glsl import GlslEmitter

        class _Tagging(GlslEmitter):
            def emit_body(self, nodes, depth, in_main):
                out = []
                for node in nodes:
                    lines = super().emit_body([node], depth, in_main)
                    ins = getattr(node, "ins", None)
                    line = ins.span.line if ins is not None and ins.span is not None else 0
                    out += [_tag(text, line) for text in lines]
                return out

        tagged = _Tagging(program, profile).emit().source
    except Exception:          # the backend changed shape: no map, never a failed report
        return None
    lines = tagged.split("\n")
    result = []
    for i, text in enumerate(lines):
        m = _TAGGED.search(text)
        result.append(int(m.group(1)) if m else 0)
        lines[i] = _TAGGED.sub("", text)
    return result if "\n".join(lines) == glsl else None


def _tag(text: str, line: int) -> str:
    """Mark every physical line of ``text`` not yet marked (inner nodes mark theirs first)."""
    if not line:
        return text
    return "\n".join(part if _MARK in part or not part.strip() else f"{part}{_MARK}{line}{_MARK}"
                     for part in text.split("\n"))
