"""``call-depth``, a cause of the cgc oracle (:mod:`oracle_explain`): cgc's assembly nests its
subroutine calls deeper than the call stack the executor models.

NV_gpu_program4 (2.X.5, "Subroutines may call other subroutines ... up to an
implementation-dependent maximum depth of MAX_PROGRAM_CALL_DEPTH_NV calls ... The results of
issuing a CAL instruction while MAX_PROGRAM_CALL_DEPTH subroutines have not completed has
undefined results"; issue 38: "In the initial implementation of this extension, such
instructions will have no effect") lets that depth be as small as 4 (its table of
implementation-dependent values: "MAX_PROGRAM_CALL_DEPTH_NV ... 4"), and xlate models exactly
that smallest stack everywhere (``ir.model.MAX_CALL_DEPTH``: a program correct on every
implementation stays within it).  cgc wrote its ``__noopt`` assemblies (``-inline
none``) for NVIDIA's implementation, and emits call chains deeper than 4: ``crt-lottes`` noopt calls main ->
Tri -> Horz3 -> Fetch -> ToLinear -> ToLinear1, five pending calls, and the fifth CAL has no
effect on the smallest stack (its colour stays whatever ToLinear1's result register held).
cgc's GLSL has functions and no such limit.

The counterfactual: the same assembly run by the executor with a stack of
:data:`DEEP_CALL_DEPTH` calls (``Program.call_depth``).  The lanes whose outputs that run
changes are the cause's lanes; the rest of the search runs on top of it, and such a lane's
verdict names ``call-depth`` (alone when the deeper run reproduces cgc on it by itself).  The
translation is not judged on those lanes against the deeper executor: it models the smallest
stack, as the executor does by default."""
from __future__ import annotations

import dataclasses

#: the stack of the counterfactual run: deeper than any call chain of the corpus's cgc
#: programs that is not recursive (crt-lottes noopt: 5)
DEEP_CALL_DEPTH = 32


def deeper_stack(program):
    """A copy of ``program`` run with a call stack of DEEP_CALL_DEPTH, or None when the program
    makes no call (its stack depth cannot matter) or already has that stack."""
    if program.call_depth >= DEEP_CALL_DEPTH or \
            not any(ins.op == "CAL" for ins in program.instructions):
        return None
    return dataclasses.replace(program, call_depth=DEEP_CALL_DEPTH)
