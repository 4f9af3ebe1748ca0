"""Output names and the translation of one program into its output files.

Shared by ``xlate batch`` (outputs mirrored under OUTDIR) and ``xlate sync`` (outputs next to
the source).  An output is named after the source with its last extension replaced by the
stage's conventional extension (glslang's), then the target's suffix:

=========  ========================  =====================================
target     name                      content
=========  ========================  =====================================
glsl       ``water.frag``            GLSL 4.50 (``--profile``, default glsl450)
spirv      ``water.frag.spv``        validated SPIR-V (default profile vulkan)
reflect    ``water.frag.reflect.json``  reflection JSON of the GLSL output's profile
=========  ========================  =====================================

Stage extensions: vertex ``.vert``, fragment ``.frag``, geometry ``.geom`` (TGSI will add
``.comp``, ``.tesc``, ``.tese``).  The reflection name keeps the stage so that the common pair
``water.vp`` / ``water.fp`` gives two distinct files.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass

from ..diagnostics import Diagnostic, Span

STAGE_EXT = {"vertex": "vert", "fragment": "frag", "geometry": "geom", "compute": "comp",
             "tess_control": "tesc", "tess_evaluation": "tese"}
TARGET_SUFFIX = {"glsl": "", "spirv": ".spv", "reflect": ".reflect.json"}
DEFAULT_PROFILE = {"glsl": "glsl450", "reflect": "glsl450", "spirv": "vulkan"}


def output_name(source_name: str, stage: str, target: str, profile: str | None = None) -> str:
    """``water.fp`` (fragment) -> ``water.frag`` / ``water.frag.spv`` / ``water.frag.reflect.json``.

    ``source_name`` may carry folders; they are kept.  An output made in another profile than
    its target's default (``--profile``; DEFAULT_PROFILE) carries the profile before the stage
    -- ``water.es310.frag``, ``water.vulkan.frag.reflect.json``, ``water.glsl450.frag.spv``
    -- so that runs of two profiles into one folder keep both; the default names stay."""
    stem, _ext = os.path.splitext(source_name)
    tag = f".{profile}" if profile and profile != DEFAULT_PROFILE[target] else ""
    return f"{stem}{tag}.{STAGE_EXT[stage]}{TARGET_SUFFIX[target]}"


def profiles_for(targets, profile: str | None) -> dict[str, str]:
    """target -> GLSL profile it is produced from (``--profile`` overrides the defaults)."""
    return {t: profile or DEFAULT_PROFILE[t] for t in targets}


@dataclass
class FileOutputs:
    """What translating one program produced (payloads keyed by target)."""

    stage: str
    dialect: str
    payloads: dict[str, bytes]
    diagnostics: list[Diagnostic]
    glsl: str                              # GLSL shown in reports (the glsl target's profile)
    glsl_profile: str
    linemap: list[int] | None = None       # GLSL line i+1 came from source line linemap[i] (0: none)


def translate_outputs(text: str, filename: str, targets, profile: str | None = None,
                      validate: bool = True, want_linemap: bool = False, *,
                      line_directives: bool = False, comments: bool = False) -> FileOutputs:
    """Translate ``text`` to every target; raises :class:`xlate.XlateError` on errors.

    One parse, then one emission per distinct profile: with the defaults (GLSL in glsl450,
    SPIR-V in vulkan) that is two, with ``profile`` given it is one.  ``line_directives`` and
    ``comments`` shape the GLSL text (``xlate.translate``)."""
    from .. import api
    for target in targets:
        api.check_profile(target, profiles_for([target], profile)[target])
    text_of = api.statement_text(text) if comments and isinstance(text, str) else None
    by_profile: dict[str, list[str]] = {}
    for target, prof in profiles_for(targets, profile).items():
        by_profile.setdefault(prof, []).append(target)
    prog = api.parse(text, filename=filename)
    payloads: dict[str, bytes] = {}
    shown = None
    # the GLSL target's profile first: its translation is the one reports show
    for prof in sorted(by_profile, key=lambda p: (p != (profile or DEFAULT_PROFILE["glsl"]), p)):
        wanted = by_profile[prof]
        spirv = "spirv" in wanted
        result = None
        if spirv:
            # the SPIR-V `xlate convert --target spirv` writes: the direct path's, glslang's for
            # a program it does not cover (the note E7006 is convert's to print, not a batch
            # diagnostic: the output is the same either way)
            result = api.translate_program(prog, target="spirv", profile=prof, via="auto",
                                           filename=filename)
            result.diagnostics = [d for d in result.diagnostics if d.code != "E7006"]
            payloads["spirv"] = result.spirv
        if "glsl" in wanted or result is None or (result.glsl is None and shown is None):
            # the GLSL for the GLSL target, or for the reports (which show the GLSL of the first
            # profile; not compiled again when only SPIR-V was asked for)
            result = api.translate_program(prog, target="glsl", profile=prof,
                                           validate=validate and ("glsl" in wanted or not spirv),
                                           filename=filename,
                                           line_directives=line_directives, comments=comments,
                                           instruction_text=text_of)
        shown = shown or result
        if "glsl" in wanted:
            payloads["glsl"] = result.glsl.encode()
        if "reflect" in wanted:
            payloads["reflect"] = reflection_json(result.reflection)
    out = FileOutputs(stage=shown.stage, dialect=prog.dialect, payloads=payloads,
                      diagnostics=list(prog.diagnostics), glsl=shown.glsl,
                      glsl_profile=shown.profile)
    if want_linemap:
        out.linemap = shown.line_map      # the backend's own map (GlslOutput.line_map)
    return out


def reflection_json(reflection: dict) -> bytes:
    """The reflection file's bytes (``xlate convert --target reflect`` writes the same)."""
    return (json.dumps(reflection, indent=2) + "\n").encode()


# ---- diagnostics as JSON (cache records, reports) ------------------------------------------------
def diagnostic_to_json(d: Diagnostic) -> dict:
    out = {"code": d.code, "severity": d.severity, "message": d.message}
    if d.span is not None:
        out.update(file=d.span.file, line=d.span.line, col=d.span.col, length=d.span.length)
    if d.notes:
        out["notes"] = list(d.notes)
    return out


def diagnostic_from_json(x: dict) -> Diagnostic:
    span = Span(x["file"], x["line"], x["col"], x.get("length", 1)) if "line" in x else None
    return Diagnostic(x["code"], x["severity"], x["message"], span, tuple(x.get("notes", ())))
