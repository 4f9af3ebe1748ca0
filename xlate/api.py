"""The library API: parse and translate, with the same diagnostics the CLI prints."""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from .diagnostics import Diagnostic, Span, XlateError
from .gcpause import paused
from .ir.model import Program, Stage

TARGETS = ("glsl", "spirv", "spirv-asm", "reflect", "ir")
#: how a SPIR-V target is made: "glsl" (glslang compiles the GLSL translation), "direct" (xlate
#: writes the SPIR-V itself, backends/spirv_direct; E7006 for a construct it does not cover),
#: "auto" (direct, and glslang's for a program direct does not cover, with note E7006)
VIA = ("glsl", "direct", "auto")
#: profiles whose GLSL can become SPIR-V: vulkan (Vulkan), glsl450 (OpenGL, GL_ARB_gl_spirv)
SPIRV_PROFILES = ("vulkan", "glsl450")
SPIRV_STAGE = {Stage.VERTEX: "vert", Stage.FRAGMENT: "frag", Stage.GEOMETRY: "geom",
               Stage.TESS_CTRL: "tesc", Stage.TESS_EVAL: "tese"}
SPIRV_STAGE[Stage.COMPUTE] = "comp"


@dataclass
class Translation:
    """Everything one translation produced."""

    program: Program
    profile: str
    glsl: str | None = None
    spirv: bytes | None = None
    reflection: dict | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    #: source line of each line of ``glsl`` (``line_map[i]`` for line ``i + 1``; 0: none)
    line_map: list[int] = field(default_factory=list)
    #: how ``spirv`` was made: "direct" (xlate's own SPIR-V backend), "glsl" (glslang's compile
    #: of ``glsl``), None (no SPIR-V)
    spirv_via: str | None = None
    #: why the direct path did not make ``spirv`` when ``via="auto"`` fell back to glslang (the
    #: E7006 message, also a note in ``diagnostics``); None when it did, or was not asked
    spirv_fallback_reason: str | None = None

    @property
    def stage(self) -> str:
        return self.program.stage.value


def parse(source: str, *, filename: str = "<input>") -> Program:
    """Parse a program into the IR.  Raises XlateError with every diagnostic of the file."""
    from .frontends import parse_program
    return parse_program(source, filename)


def translate(source: str, *, filename: str = "<input>", target: str = "glsl",
              profile: str | None = None, validate: bool = True, line_directives: bool = False,
              comments: bool = False, via: str = "auto", spirv_source: bool = False) -> Translation:
    """Translate one program.

    ``target``: ``glsl`` (GLSL text), ``spirv`` (SPIR-V, validated), ``spirv-asm``, ``reflect``
    or ``ir``; every target also fills ``reflection``.  ``profile``: ``glsl450`` (default for
    GLSL), ``vulkan`` (default for SPIR-V), ``glsl330`` or ``es310`` (GLSL only: ValueError with
    a SPIR-V target).  With ``validate`` the GLSL is compiled by glslang (and SPIR-V validated)
    so a translation never silently yields an invalid shader.  ``line_directives``: ``#line``
    directives naming the source line of each instruction's GLSL (source string 1 = the
    program; 0 = the GLSL text itself); ``comments``: each instruction's source text in a
    comment before its GLSL.  Both off: the same bytes as without them.
    ``via`` (SPIR-V targets): :data:`VIA`, default ``auto`` (issue 19: the direct path is the
    default); the direct path fills ``spirv`` and ``reflection`` (the same JSON as the GLSL
    path's) and leaves ``glsl`` None; ``auto``'s fallback to glslang records the reason
    (``spirv_fallback_reason``, and note E7006 in ``diagnostics``).  ``spirv_source``: the direct
    path embeds the assembly text (``OpSource``) and an ``OpLine`` per instruction.
    """
    if target not in TARGETS:
        raise ValueError(f"unknown target {target!r} (expected one of {', '.join(TARGETS)})")
    check_profile(target, profile)
    text_of = statement_text(source) if comments and isinstance(source, str) else None
    with paused():    # over the whole translation: see translate_program
        return translate_program(parse(source, filename=filename), target=target,
                                 profile=profile, validate=validate, filename=filename,
                                 line_directives=line_directives, comments=comments,
                                 instruction_text=text_of, via=via,
                                 source_text=source if spirv_source and isinstance(source, str)
                                 else None)


def check_profile(target: str, profile: str | None) -> None:
    """ValueError for a profile that does not exist or cannot give ``target``."""
    from .backends.glsl import PROFILES
    if profile is not None and profile not in PROFILES:
        raise ValueError(f"unknown GLSL profile {profile!r} (expected one of {', '.join(PROFILES)})")
    if target in ("spirv", "spirv-asm") and profile is not None and profile not in SPIRV_PROFILES:
        raise ValueError(spirv_refusal(profile))


def spirv_refusal(profile: str) -> str:
    """Why ``profile`` gives no SPIR-V (the CLI prints the same words)."""
    why = {"es310": "no SPIR-V environment takes OpenGL ES GLSL",
           "glsl330": "OpenGL SPIR-V (GL_ARB_gl_spirv) needs explicit uniform locations and "
                      "bindings, which GLSL 3.30 lacks"}.get(profile, "")
    return (f"profile '{profile}' cannot produce SPIR-V ({why}); use profile 'vulkan' (Vulkan) "
            f"or 'glsl450' (OpenGL 4.6 / GL_ARB_gl_spirv)")


def statement_text(source: str):
    """``instruction -> its source text`` for the comments: from the instruction's position to
    the end of its statement (the ``;`` that ends NV statements, else the end of the line, as
    TGSI has one instruction per line).  Lowered instructions that carry a description of their
    own (``(implicit RET before label)``) get it after the statement."""
    lines = source.splitlines()

    def text_of(ins) -> str:
        span = ins.span
        text = ""
        if span is not None and 1 <= span.line <= len(lines):
            rest = lines[span.line - 1][max(span.col - 1, 0):]
            end = rest.find(";")
            text = (rest[:end + 1] if end >= 0 else rest).strip()
        if ins.text:
            text = f"{text} {ins.text}".strip()
        return text
    return text_of


def translate_program(prog: Program, *, target: str = "glsl", profile: str | None = None,
                      validate: bool = True, filename: str | None = None,
                      line_directives: bool = False, comments: bool = False,
                      instruction_text=None, via: str = "auto",
                      source_text: str | None = None) -> Translation:
    """:func:`translate` for a program already parsed; one parse can serve several profiles
    (``xlate batch`` emits glsl450 GLSL and vulkan SPIR-V from one parse).
    ``instruction_text(ins)``: the comment text of an instruction (default: its IR form)."""
    # The collector stays paused over the whole translation (xlate/gcpause.py): the syntax
    # tree, the lowered tree and the emitters' state are freed by reference counting before it
    # is back on, so no collection walks them.  (Measured under load, back to back: 7-16 % of
    # a direct-path translation's throughput; tools/bench_translate.py, which keeps the best
    # of 3 runs per program and so the runs no collection fell into, shows no change.)
    with paused():
        return _translate_program(prog, target=target, profile=profile, validate=validate,
                                  filename=filename, line_directives=line_directives,
                                  comments=comments, instruction_text=instruction_text,
                                  via=via, source_text=source_text)


def _translate_program(prog: Program, *, target: str, profile: str | None, validate: bool,
                       filename: str | None, line_directives: bool, comments: bool,
                       instruction_text, via: str, source_text: str | None) -> Translation:
    if target not in TARGETS:
        raise ValueError(f"unknown target {target!r} (expected one of {', '.join(TARGETS)})")
    check_profile(target, profile)
    filename = prog.source_name if filename is None else filename
    if via not in VIA:
        raise ValueError(f"unknown via {via!r} (expected one of {', '.join(VIA)})")
    if profile is None:
        profile = "vulkan" if target in ("spirv", "spirv-asm") else "glsl450"
    fallback = None
    if target in ("spirv", "spirv-asm") and via != "glsl":
        direct = translate_direct(prog, profile, filename, source_text)
        if not isinstance(direct, Diagnostic):
            return direct
        if via == "direct":
            raise XlateError([direct])
        fallback_reason = direct.message
        fallback = replace(direct, severity="note",
                           message=direct.message + "; this SPIR-V is glslang's compile of the "
                           "GLSL translation")
    from .backends.glsl import emit_glsl      # pauses the garbage collector itself
    out = emit_glsl(prog, profile, line_directives=line_directives, comments=comments,
                    instruction_text=instruction_text)
    result = Translation(prog, profile, glsl=out.source, reflection=out.reflection,
                         diagnostics=list(prog.diagnostics), line_map=list(out.line_map))
    if target in ("spirv", "spirv-asm") or validate:
        result.spirv = compile_checked(out.source, prog, profile, filename,
                                       spirv=target in ("spirv", "spirv-asm") or profile == "vulkan")
        result.spirv_via = "glsl" if result.spirv is not None else None
    if fallback is not None:
        result.diagnostics.append(fallback)
        result.spirv_fallback_reason = fallback_reason
    return result


def translate_direct(prog: Program, profile: str, filename: str,
                     source_text: str | None = None) -> Translation | Diagnostic:
    """SPIR-V by the direct path (backends/spirv_direct), validated by spirv-val alone; the
    E7006 diagnostic (an error; the caller decides) when the program uses a construct that
    path does not cover.  An invalid module is an xlate bug (E7003), never returned."""
    from .backends import spirv as sp
    from .backends.spirv_direct import NotCovered, emit_spirv
    try:
        out = emit_spirv(prog, profile, source_text=source_text)
    except NotCovered as e:
        # a program-wide construct (geometry programs, ...) points at the program's start
        return Diagnostic("E7006", "error", f"direct SPIR-V does not cover {e} yet",
                          e.span or Span(filename, 1, 1))
    target = "vulkan" if profile == "vulkan" else "opengl"
    span = Span(filename, 1, 1)
    try:
        problem = sp.validate_spirv(out.spirv, target=target)
    except sp.ToolchainUnavailable as e:
        raise XlateError([Diagnostic("E7004", "error", str(e), span)]) from None
    if problem:
        raise XlateError([Diagnostic("E7003", "error", f"SPIR-V validation failed (direct "
                                     f"path): {problem}", span)])
    return Translation(prog, profile, spirv=out.spirv, reflection=out.reflection,
                       diagnostics=list(prog.diagnostics), spirv_via="direct")


def compile_checked(glsl: str, prog: Program, profile: str, filename: str, spirv: bool) -> bytes | None:
    """glslang (and SPIRV-Tools for SPIR-V) over generated GLSL; failures are xlate bugs (E7002/3).

    glsl450 compiles as OpenGL SPIR-V, vulkan as Vulkan SPIR-V; glsl330 and es310 cannot become
    SPIR-V, so glslang checks them with no client API under their own #version ("330 core",
    "310 es": ES rules, and the extensions the text enables) and nothing is returned."""
    from .backends import spirv as sp
    from .backends.glsl import PROFILE_INFO
    stage = SPIRV_STAGE[prog.stage]
    target = "vulkan" if profile == "vulkan" else "opengl"
    span = Span(filename, 1, 1)
    try:
        if profile not in SPIRV_PROFILES:
            sp.check_glsl(glsl, stage, version=PROFILE_INFO[profile].version)
            return None
        sp.load_validator()                  # meanwhile, if a warm-up thread holds glslang
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
