"""The middle end as a list: the passes between the frontend's IR and a backend's printer.

:func:`lower` runs :data:`PASSES` in order over one :class:`Lowering` (the program, the
structured tree once there is one, and what later passes and the printers read: register
types, tested condition-code registers, the call-depth reading).  After every pass the state is
validated (:func:`check`) when asked -- ``lower(..., validate=True)``, which the tests use, or
``XLATE_VALIDATE_PASSES=1`` in the environment -- so a pass that breaks an invariant is named
at once instead of surfacing as wrong GLSL.  vkd3d-shader's ``vsir_program_transform`` is the
model.  A backend receives the result and prints it; it does not run passes itself.

A program a target cannot express is refused by the pass that finds out, with E7001 naming the
construct and the profile (``XlateError``), never a partial result.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field, fields, is_dataclass, replace
from typing import Callable

from ..diagnostics import Diagnostic, XlateError
from ..ir.model import MAX_CALL_DEPTH, DataType, Instruction, Program
from ..ir.validate import IRValidationError
from ..ir.validate import validate as validate_ir
from .condcodes import (fold_constant_write_tests, forward_value_tests, tested_cc_registers,
                        value_condition_codes)
from .deadstores import drop_dead_output_stores, drop_unread_temporaries
from .inline import inline_single_calls
from .nesting import runtime_nesting_overflow
from .structurize import (Op, RecursionError_, StructureError, Structured, call_depth,
                          structurize)
from .types import register_types
from .zerodivisors import rewrite_zero_divisors


@dataclass
class Lowering:
    """What the passes build, for the printers."""

    program: Program
    profile: str                                   # for the wording of refusals
    structured: Structured | None = None
    #: per-depth copies of the subroutines (recursion or calls deeper than MAX_CALL_DEPTH: a
    #: CAL past the limit has no effect, GP4 issue 38); None = one function per subroutine
    depth: int | None = None
    types: dict[str, DataType] = field(default_factory=dict)
    cc_used: set[int] = field(default_factory=set)
    #: tested CC registers that hold the value of their last update, with its type: FLOAT
    #: (every update a float one) or INT (every update an integer one without carry);
    #: condcodes.py
    cc_values: dict[int, DataType] = field(default_factory=dict)
    #: the liveness of the final tree (passes/liveness.py), for the temporaries policy
    liveness: object | None = None
    #: iteration guard of the loops the general structurizer emits (None: structured program)
    loop_limit: int | None = None
    done: list[str] = field(default_factory=list)  # names of the passes run so far


def _refuse(message: str, profile: str, span) -> XlateError:
    return XlateError([Diagnostic("E7001", "error",
                                  f"{message} cannot be expressed in the {profile} profile", span)])


# ---- the passes ----------------------------------------------------------------------------------

def check_nesting(s: Lowering) -> None:
    """FP2 3.11.X.7-9: a program whose IF/LOOP nesting, counted through subroutine calls,
    passes the limit terminates there at run time (the executor does); a structured shader has
    no nesting counters, so such a program is refused rather than translated differently."""
    over = runtime_nesting_overflow(s.program)
    if over is not None:
        ins, kind, active = over
        limit = "MAX_PROGRAM_IF_DEPTH_NV" if kind == "IF" else "MAX_PROGRAM_LOOP_DEPTH_NV"
        raise _refuse(f"run-time nesting limit ({ins.op} reached through subroutine calls with "
                      f"{active} {'IF' if kind == 'IF' else 'LOOP/REP'} blocks active, {limit}: "
                      f"NV_fragment_program2 3.11.X.7-9 terminates the program there)",
                      s.profile, ins.span)


def structure(s: Lowering) -> None:
    """Labels, branches and calls become if/loop/break/return and functions
    (``structurize/``); recursion -- which GLSL lacks, and GP4 allows up to the call-depth
    limit -- becomes one copy of each subroutine per depth."""
    try:
        s.structured = structurize(s.program)
    except StructureError as e:
        raise _refuse(str(e), s.profile, e.ins.span if e.ins else None)
    except RecursionError_:
        s.structured = structurize(s.program, allow_recursion=True)
        s.depth = 0
        return
    if s.structured.mode == "functions" and call_depth(s.structured) > MAX_CALL_DEPTH:
        # a chain of calls deeper than the limit: the CALs past it have no effect (the same
        # reading as for recursion; the executor's, xlate/exec/flow.py), so plain functions,
        # which would make every call, take the per-depth copies too
        s.depth = 0
    if s.structured.mode != "functions":
        s.loop_limit = s.structured.limit


def inline(s: Lowering) -> None:
    """Subroutines called from one place are spliced in there: glslang's time grows with the
    square of the number of functions (``inline.py``)."""
    if s.structured.mode == "functions" and s.depth is None:
        inline_single_calls(s.structured)


def constant_write_tests(s: Lowering) -> None:
    """Conditional writes under TR become plain writes, those under FL leave the tree -- and
    LEG/NAN of a CC register only integer updates write are TR/FL
    (``condcodes.fold_constant_write_tests``): ``R0 = R1;``, not ``mix(R0, R1, bvec4(true))``."""
    if s.structured is not None:
        fold_constant_write_tests(s.structured)


def zero_divisors(s: Lowering) -> None:
    """A float DIV by a literal +-0 -- or by a temporary that holds one (a MOV of a literal,
    SCS's z and w) -- becomes a MUL by the infinity of that sign (the same IEEE value for
    every dividend; GLSL leaves division by zero unspecified and Mesa folds a constant one to
    undef: ``zerodivisors.py``)."""
    if s.structured is not None:
        rewrite_zero_divisors(s.structured, s.program)


def decide_types(s: Lowering) -> None:
    """Each register gets the GLSL type its uses call for (``types.py``); the general
    structurizer's own registers (%astackN, %rcN) are typed too."""
    s.types = register_types(s.program)


def find_tested_condition_codes(s: Lowering) -> None:
    """Condition-code registers some instruction tests: updates of the others are dead.  Those
    whose flags are a function of the updated value (every update a float one, or every one an
    integer one without carry) are kept as the value, and tested by comparing it."""
    s.cc_used = tested_cc_registers(s.program)
    if s.cc_used:                   # (the tree's instructions are a walk: only when needed)
        s.cc_values = value_condition_codes(s.program, s.cc_used,
                                            list(_tree_instructions(s.structured)))


def forward_condition_codes(s: Lowering) -> None:
    """A test of a value-holding register right after its update reads the register the update
    wrote (``condcodes.forward_value_tests``: cgc's ``MOV.U.CC RC.x, R0; IF NE.x;`` becomes
    ``if (RC.x != 0u)``); a CC register no test reads any more is dropped with its updates."""
    if not s.cc_used or s.structured is None:
        return
    still = forward_value_tests(s.structured, s.program, s.cc_values)
    s.cc_used = {cc for cc in s.cc_used if cc in still}
    s.cc_values = {cc: t for cc, t in s.cc_values.items() if cc in still}


def drop_dead_stores(s: Lowering) -> None:
    """Output writes that a later write replaces before anything reads them or the program can
    end -- VP1/VP2's (0,0,0,1) initialisations of results the program writes whole
    (``deadstores.py``)."""
    if s.structured is not None:
        drop_dead_output_stores(s.structured, s.cc_used)


def drop_dead_code(s: Lowering) -> None:
    """Instructions whose only effect is a temporary nothing reads afterwards
    (``deadstores.drop_unread_temporaries``); the liveness of the result is kept for the
    printers' temporaries policy."""
    if s.structured is not None:
        s.liveness = drop_unread_temporaries(s.structured, s.cc_used)


#: the middle end, in order: (name, pass)
PASSES: list[tuple[str, Callable[[Lowering], None]]] = [
    ("nesting", check_nesting),
    ("structurize", structure),
    ("inline", inline),
    ("constanttests", constant_write_tests),
    ("zerodivisors", zero_divisors),
    ("types", decide_types),
    ("condcodes", find_tested_condition_codes),
    ("ccforward", forward_condition_codes),
    ("deadstores", drop_dead_stores),
    ("deadcode", drop_dead_code),
]


# ---- validation -----------------------------------------------------------------------------------

def check(s: Lowering) -> None:
    """The invariants after a pass: the program's IR validates, and so does the structured
    tree's straight-line code -- the instructions of its ``Op`` nodes, the structurizer's own
    (address-stack moves, loop counters) included, checked as one linear program over the same
    registers.  Raises ``IRValidationError`` naming the pass."""
    try:
        validate_ir(s.program)
        if s.structured is not None:
            ops = list(_tree_instructions(s.structured))
            validate_ir(replace(s.program, instructions=ops, labels={}, entry=0))
    except IRValidationError as e:
        raise IRValidationError(f"after pass {s.done[-1]!r}: {e}") from None


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}     # node class -> its field names (walk)


def _tree_instructions(st: Structured):
    """The instruction of every ``Op`` node of the tree (any depth, any node kind)."""
    def walk(value):
        if isinstance(value, Op):
            yield value.ins
        elif isinstance(value, list):
            for v in value:
                if isinstance(v, Op):         # the usual element: no generator for it
                    yield v.ins
                else:
                    yield from walk(v)
        elif is_dataclass(value) and not isinstance(value, Instruction):
            names = _FIELD_NAMES.get(type(value))
            if names is None:
                names = _FIELD_NAMES[type(value)] = tuple(f.name for f in fields(value))
            for name in names:
                v = getattr(value, name)
                if isinstance(v, (list, Op)) or is_dataclass(v):
                    yield from walk(v)
    yield from walk(st.main.body)
    for fn in st.functions.values():
        yield from walk(fn.body)


def validating() -> bool:
    return os.environ.get("XLATE_VALIDATE_PASSES", "") not in ("", "0")


def lower(prog: Program, *, profile: str = "glsl450", validate: bool | None = None) -> Lowering:
    """Run the middle end over ``prog`` (the IR is not changed by these passes today; the
    tree and the facts are new objects)."""
    s = Lowering(prog, profile)
    validate = validating() if validate is None else validate
    for name, run in PASSES:
        run(s)
        s.done.append(name)
        if validate:
            check(s)
    return s
