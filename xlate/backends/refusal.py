"""A program a profile cannot express: the backends' refusal (E7001), raised where the feature
is met and turned into a diagnostic by the caller."""
from __future__ import annotations

from ..ir.model import Instruction


class Unsupported(Exception):
    """E7001; the message starts with the feature, then its details in parentheses."""

    def __init__(self, message: str, ins: Instruction | None, span=None):
        super().__init__(message)
        self.ins = ins
        self.span = span if span is not None else (ins.span if ins is not None else None)
