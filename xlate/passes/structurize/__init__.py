"""Structured control flow from the linear IR.

NV4 (and later FP2/TGSI) programs are already structured: IF/ELSE/ENDIF and REP/ENDREP nest,
BRK/CONT leave the innermost REP, CAL/RET call label-delimited subroutines.  This pass builds
the tree those opcodes describe and splits the program into functions:

* the main function runs from ``Program.entry`` to the next label position;
* every label position starts a subroutine that runs to the next label position (the frontend
  put an explicit RET there); several labels at one position name the same subroutine;
* code that no label or entry reaches is dropped;
* recursion is reported (GLSL has none); the GLSL backend then asks again with
  ``allow_recursion`` and emits one copy of each subroutine per call depth.

Programs whose labels do not only start subroutines (VP2 and the ARB vertex options: BRA,
labels execution falls into, PUSHA/POPA, a call-depth limit that ends the program) take the
general path at the end of this module (``structurize_general``): calls inlined, reducible
graphs structured with blocks/loops/gotos (Ramsey), irreducible ones as a dispatch loop.
``Structured.mode`` says which path ran ("functions", "structured", "dispatch").

Modules: ``tree`` (the per-function tree), ``cfg`` (the general path's graph and nodes),
``general`` (Ramsey's structurer and the choice of path), ``dispatch`` (the fallback loop),
``linear`` (back to linear IR).
"""
from __future__ import annotations

from ...ir.model import Program
from .cfg import (EXIT, ITERATION_LIMIT, MAX_EXPANDED, CountTest, DBlock, Dispatch, DStmt, Goto,
                  Labeled)
from .dispatch import dispatch
from .general import (_Ramsey, call_depth, needs_general, nesting_depth, simplify,
                      structurize_general)
from .linear import linearize
from .tree import (MAX_STRUCTURE_DEPTH, MAX_SUBROUTINES, Case, Function, If, Jump, Loop, Op,
                   RecursionError_, StructureError, Structured, Switch, call_order, calls_in,
                   structurize_functions)

__all__ = ["EXIT", "ITERATION_LIMIT", "MAX_EXPANDED", "MAX_STRUCTURE_DEPTH", "MAX_SUBROUTINES",
           "Case", "CountTest", "DBlock", "DStmt", "Dispatch", "Function", "Goto", "If", "Jump",
           "Labeled", "Loop", "Op", "RecursionError_", "StructureError", "Structured", "Switch",
           "_Ramsey", "call_depth", "call_order", "calls_in", "dispatch", "linearize",
           "needs_general", "nesting_depth", "simplify", "structurize", "structurize_functions",
           "structurize_general"]


def structurize(prog: Program, allow_recursion: bool = False) -> Structured:
    """Structured form of ``prog``: the per-function tree when labels only start subroutines
    (NV4 and structured inputs), else the general path (``general``)."""
    if not needs_general(prog):
        st = structurize_functions(prog, allow_recursion)
        st.mode = "functions"
        return st
    return structurize_general(prog)
