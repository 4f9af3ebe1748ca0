"""SPIR-V written by xlate itself, from the lowered tree (issue 19): the direct path.

``emit_spirv(prog, profile)`` gives the module's bytes and the reflection JSON -- the same
JSON as the GLSL path's, computed by the same code from the same interface plan.  Profiles:
``vulkan`` (Vulkan 1.0 SPIR-V) and ``glsl450`` (OpenGL 4.5 SPIR-V, GL_ARB_gl_spirv), as for the
glslang path.  A program using a construct this backend does not emit raises
:class:`NotCovered`; ``xlate.api`` turns it into E7006 or falls back to glslang
(docs/spirv_direct.md says what is covered).
"""
from __future__ import annotations

from dataclasses import dataclass

from ...ir.model import Program
from .emitter import COVERED_OPCODES, DirectEmitter, Instrumentation, NotCovered

__all__ = ["DirectOutput", "Instrumentation", "NotCovered", "emit_spirv", "COVERED_OPCODES"]


@dataclass
class DirectOutput:
    spirv: bytes
    reflection: dict


def emit_spirv(prog: Program, profile: str = "vulkan", *, source_text: str | None = None,
               instrumentation: Instrumentation | None = None,
               timings: dict | None = None) -> DirectOutput:
    """SPIR-V of ``prog`` for ``profile`` (``vulkan`` or ``glsl450``).  ``source_text``: the
    assembly text to embed (``OpSource``) with an ``OpLine`` per instruction; None: neither.
    Raises NotCovered (not emitted by this path) or XlateError (E7001: no profile expresses it,
    the same refusal the GLSL path gives).  ``instrumentation``: a test harness's additions
    (xlate.verify; :class:`Instrumentation`).  ``timings``: filled with the seconds of
    ``passes`` (the middle end) and ``emission`` (interface plan and words), for benchmarks."""
    import time
    from ...diagnostics import Diagnostic, XlateError
    from ...gcpause import paused
    from ...passes.pipeline import lower
    from ..glsl import GlslEmitter
    from ..refusal import Unsupported
    from ..reflect import reflection
    if profile not in ("vulkan", "glsl450"):
        raise ValueError(f"no SPIR-V for profile {profile!r}")
    if prog.kills_as_flags:
        # the verifier's probe programs run through the GLSL translation only
        raise NotCovered("a verifier probe program (KIL as a flag, Program.kills_as_flags)")
    with paused():
        t0 = time.perf_counter()
        lowered = lower(prog, profile=profile)
        if instrumentation is not None and instrumentation.tree_edit is not None:
            instrumentation.tree_edit(lowered)     # the mutation harness: a wrong tree on purpose
            prog = lowered.program
        t1 = time.perf_counter()
        plan = GlslEmitter(prog, profile)
        plan.types, plan.cc_used, plan.cc_values = lowered.types, lowered.cc_used, lowered.cc_values
        try:
            plan.plan()
        except Unsupported as e:
            raise XlateError([Diagnostic("E7001", "error", f"{e} cannot be expressed in the "
                                         f"{profile} profile", e.span)]) from None
        plan.declare_uniforms()            # decides whether parameters live in a block
        words = DirectEmitter(prog, plan, lowered, source_text=source_text,
                              instrumentation=instrumentation).emit()
        out = DirectOutput(words, reflection(plan))
        if timings is not None:
            timings["passes"] = t1 - t0
            timings["emission"] = time.perf_counter() - t1
        return out
