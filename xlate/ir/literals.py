"""Which operands are literals: the constant vectors a program states in its text, whose
words every layer may read at translation time (the passes fold with them, the verifier knows
the compiler sees them)."""
from __future__ import annotations

from .model import Program, RegKind, Source


def literal_vector(program: Program, src: Source) -> tuple[int, ...] | None:
    """The four words of the literal vector ``src`` reads -- an immediate or a CONST, or an
    element of a PARAM table bound to no state (``PARAM c = {...}``), not relatively
    addressed: what the backends print as a literal -- else None (a PARAM bound to
    ``program.local`` holds placeholder words, not its value)."""
    reg = program.registers.get(src.reg)
    if reg is None or reg.value is None or (src.index is not None and src.index.relative):
        return None
    row = src.index.offset if src.index is not None else 0
    if not 0 <= row < len(reg.value):
        return None
    if reg.kind == RegKind.PARAM:
        if row >= len(reg.bindings) or reg.bindings[row] is not None:
            return None
    elif reg.kind != RegKind.CONST:
        return None
    return tuple(reg.value[row])
