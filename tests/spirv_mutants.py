"""Mutants of the direct SPIR-V path's modules, for the tests that show a verify backend
catches a wrong direct module: one instruction's opcode swapped for another of the same
operands and type (the module stays valid), in every module the path emits while patched."""
from __future__ import annotations

import dataclasses

import numpy as np

OP_IADD, OP_ISUB, OP_FADD, OP_FSUB = 128, 130, 129, 131


def first_op_replaced(words: np.ndarray, op: int, by: int) -> np.ndarray:
    """The module with its first instruction of opcode ``op`` given opcode ``by`` (one of the
    same operands and type: still a valid module)."""
    out = words.copy()
    at = 5
    while at < len(out):
        count, code = int(out[at]) >> 16, int(out[at]) & 0xFFFF
        if code == op:
            out[at] = (count << 16) | by
            return out
        at += count
    raise AssertionError(f"no instruction of opcode {op} in the module")


def mutate_direct_module(monkeypatch, op: int = OP_IADD, by: int = OP_ISUB,
                         validate: bool = False) -> list[str]:
    """Patch ``spirv_direct.emit_spirv`` to emit each module with its first ``op`` made ``by``
    (spirv-val checks the mutant when ``validate``); returns the list of profiles emitted
    since, filled as the path runs."""
    from xlate.backends import spirv_direct
    from xlate.backends.spirv import validate_spirv
    real = spirv_direct.emit_spirv
    made: list[str] = []

    def mutated(prog, profile="vulkan", **kw):
        out = real(prog, profile, **kw)
        words = first_op_replaced(np.frombuffer(out.spirv, np.uint32), op, by)
        if validate:
            assert validate_spirv(words.tobytes(), target=profile) is None
        made.append(profile)
        return dataclasses.replace(out, spirv=words.tobytes())
    monkeypatch.setattr(spirv_direct, "emit_spirv", mutated)
    return made
