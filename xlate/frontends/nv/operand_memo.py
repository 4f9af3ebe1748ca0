"""Operands resolved once per spelling: a builder's ``source``/``dest`` remembers the IR
operand it made for each operand text and gives it back for the next one spelled the same.

Why: resolving an operand (name lookup, binding tables, array index, swizzle or write mask,
the dialect's checks) was a third of parsing an ARBvp or NV4 program, and programs spell the
same few operands again and again (``R0``, ``c[4]``, ``vertex.position``, ``R1.xyzx``: over
the cg corpora about four uses in five repeat an earlier spelling of their program).

What is remembered, and when (the contract that keeps the IR and the diagnostics identical):

* the key is the operand's text as written (:attr:`.syntax.Operand.text`: fastparse.py sets
  it; lark's operands have none and are always resolved) with the method and its other
  arguments; equal text is equal tokens, so an equal syntax tree but for the spans;
* a result is remembered only when resolving it reported nothing (no error, no warning):
  spans are read only by diagnostics, so every remembered result is span-free, and an operand
  that reports something reports it again at every use, as before;
* the decorated methods have no effect a repeated call would not repeat identically (they
  create implicit registers once, note relative arrays once ...) and read no per-instruction
  state; a builder whose operands do (ARBfp's ``dest`` sets ``dest_half``, FP1 counts its
  constants per use) does not decorate them;
* what else they read changes only with declarations (names, aliases, options, the
  primitive type), so the builders forget everything at each declaration statement
  (:meth:`OperandMemo.forget_operands`).
"""
from __future__ import annotations

from functools import wraps


class OperandMemo:
    """Mixed into a statement builder: the table of resolved operands."""

    operand_memo: dict

    def forget_operands(self) -> None:
        """A declaration may change what any operand text means."""
        self.operand_memo = {}


def remembered(resolve):
    """Decorate a builder's ``source``/``dest(self, opnd, ...)`` (module docstring)."""
    name = resolve.__name__

    @wraps(resolve)
    def method(self, opnd, *args, **kw):
        text = opnd.text
        if text is None:
            return resolve(self, opnd, *args, **kw)
        key = (name, text, args, tuple(kw.items()))
        memo = self.operand_memo
        found = memo.get(key)
        if found is not None:
            return found
        reported = len(self.sink.items)
        result = resolve(self, opnd, *args, **kw)
        if len(self.sink.items) == reported:
            memo[key] = result
        return result
    return method
