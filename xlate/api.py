"""The library API: parse and translate, with the same diagnostics the CLI prints."""
from __future__ import annotations

import threading
from dataclasses import dataclass, field

from .diagnostics import Diagnostic, Span, XlateError
from .ir.model import Program, Stage

TARGETS = ("glsl", "spirv", "spirv-asm", "reflect", "ir")
SPIRV_STAGE = {Stage.VERTEX: "vert", Stage.FRAGMENT: "frag", Stage.GEOMETRY: "geom"}
_lock = threading.Lock()


@dataclass
class Translation:
    """Everything one translation produced."""

    program: Program
    profile: str
    glsl: str | None = None
    spirv: bytes | None = None
    reflection: dict | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def stage(self) -> str:
        return self.program.stage.value


def parse(source: str, *, filename: str = "<input>") -> Program:
    """Parse a program into the IR.  Raises XlateError with every diagnostic of the file."""
    from .frontends import parse_program
    with _lock:   # the lark parser instance is shared; parsing itself is quick
        return parse_program(source, filename)


def translate(source: str, *, filename: str = "<input>", target: str = "glsl",
              profile: str | None = None, validate: bool = True) -> Translation:
    """Translate one program.

    ``target``: ``glsl`` (GLSL text), ``spirv`` (SPIR-V, validated), ``spirv-asm``, ``reflect``
    or ``ir``; every target also fills ``reflection``.  ``profile``: ``glsl450`` (default for
    GLSL) or ``vulkan`` (default for SPIR-V).  With ``validate`` the GLSL is compiled by glslang
    (and SPIR-V validated) so a translation never silently yields an invalid shader.
    """
    if target not in TARGETS:
        raise ValueError(f"unknown target {target!r} (expected one of {', '.join(TARGETS)})")
    return translate_program(parse(source, filename=filename), target=target, profile=profile,
                             validate=validate, filename=filename)


def translate_program(prog: Program, *, target: str = "glsl", profile: str | None = None,
                      validate: bool = True, filename: str | None = None) -> Translation:
    """:func:`translate` for a program already parsed; one parse can serve several profiles
    (``xlate batch`` emits glsl450 GLSL and vulkan SPIR-V from one parse)."""
    if target not in TARGETS:
        raise ValueError(f"unknown target {target!r} (expected one of {', '.join(TARGETS)})")
    filename = prog.source_name if filename is None else filename
    if profile is None:
        profile = "vulkan" if target in ("spirv", "spirv-asm") else "glsl450"
    from .backends.glsl import emit_glsl
    out = emit_glsl(prog, profile)
    result = Translation(prog, profile, glsl=out.source, reflection=out.reflection,
                         diagnostics=list(prog.diagnostics))
    if target in ("spirv", "spirv-asm") or validate:
        result.spirv = compile_checked(out.source, prog, profile, filename,
                                       spirv=target in ("spirv", "spirv-asm") or profile == "vulkan")
    return result


def compile_checked(glsl: str, prog: Program, profile: str, filename: str, spirv: bool) -> bytes | None:
    """glslang (and SPIRV-Tools for SPIR-V) over generated GLSL; failures are xlate bugs (E7002/3)."""
    from .backends import spirv as sp
    stage = SPIRV_STAGE[prog.stage]
    target = "vulkan" if profile == "vulkan" else "opengl"
    span = Span(filename, 1, 1)
    try:
        words = sp.compile_glsl(glsl, stage, target=target)
    except sp.GlslCompileError as e:
        first = e.errors[0] if e.errors else (None, e.log.strip())
        raise XlateError([Diagnostic("E7002", "error", f"generated GLSL rejected by glslang: "
                                     f"line {first[0]}: {first[1]}", span)], glsl) from None
    except sp.ToolchainUnavailable as e:
        raise XlateError([Diagnostic("E7004", "error", str(e), span)]) from None
    problem = sp.validate_spirv(words, target=target)
    if problem:
        raise XlateError([Diagnostic("E7003", "error", f"SPIR-V validation failed: {problem}", span)])
    return words if spirv else None
