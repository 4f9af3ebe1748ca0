"""The glsl330, es310 and vulkan translations run on an implementation (issue 17 §5).

Every program of the project's golden corpus (``corpus/nv4``, ``dialects``, ``examples``) is verified
in both profiles on llvmpipe through :mod:`xlate.verify.profile_runs` (the interface made
explicit for the harness, the code untouched; glsl330 uniforms, samplers and blocks bound by
name as its reflection says), and in the vulkan profile on lavapipe.  The golden test checks
these translations byte for byte; this one checks what they compute.

The verdict rule, not a list of verdicts (what an implementation contracts varies by version):
  * ``pass`` (identical, or every difference shown permitted by the replay);
  * glsl330 ``mismatch`` only where the counterfactual shows the profile's documented reading:
    the same text with ``precise`` (which GLSL 3.30 lacks: README, Profiles) passes -- the
    difference came from contraction of ``a * b + c``;
  * ``unsupported`` only where the golden is the profile's E7001 refusal (``.rejected``) or
    the harness cannot feed the program (fragment.clip inputs, as in glsl450).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from conftest import gl_runner
from xlate.verify.core import verify_source

ROOT = Path(__file__).resolve().parents[1]
PROGRAMS = sorted(p for folder in ("nv4", "dialects", "examples")
                  for p in (ROOT / "corpus" / folder).iterdir()
                  if p.suffix in (".vp", ".fp", ".gp", ".tgsi"))
HARNESS_LIMITS = ("fragment.clip inputs (harness)",)

#: program -> why its glsl330 run is pinned open (strict: fails when it starts to pass)
KNOWN: dict[tuple[str, str], str] = {}


def _params():
    out = []
    for p in PROGRAMS:
        for profile in ("glsl330", "es310"):
            marks = []
            why = KNOWN.get((p.name, profile))
            if why:
                marks.append(pytest.mark.xfail(strict=True, reason=why))
            out.append(pytest.param(p, profile, marks=marks, id=f"{p.name}-{profile}"))
    return out


@pytest.mark.parametrize("path,profile", _params())
def test_profile_translation_runs(path, profile):
    runner = gl_runner("gl", profile=profile)
    rep = verify_source(path.read_text(), str(path.relative_to(ROOT)), runner=runner, lanes=256)
    rejected = path.with_name(f"{path.stem}.{profile}.rejected")
    if rep.status == "unsupported":
        assert rejected.exists() or rep.reason in HARNESS_LIMITS, rep.reason
        return
    assert not rejected.exists(), "the golden says this profile refuses the program"
    if profile == "glsl330" and rep.status == "mismatch":
        counterfactual = verify_source(path.read_text(), str(path), lanes=256,
                                       runner=gl_runner("gl", profile=profile, precise=True))
        assert counterfactual.status == "pass", (rep.reason, counterfactual.reason)
        return
    assert rep.status == "pass", rep.reason


def test_the_profile_runs_are_not_vacuous():
    """Most programs run and pass in each profile: a harness that refused everything would
    make the test above pass by its unsupported branch."""
    counts = {}
    for profile in ("glsl330", "es310"):
        runner = gl_runner("gl", profile=profile)
        counts[profile] = sum(verify_source(p.read_text(), p.name, runner=runner,
                                            lanes=64).status == "pass" for p in PROGRAMS[:12])
    assert counts["glsl330"] >= 6 and counts["es310"] >= 6, counts


def test_glsl330_interface_is_made_explicit_and_the_code_kept():
    from xlate.verify.profile_runs import harness_text
    src = ("#version 330 core\nin xl_varying6 { centroid vec4 v; } fragment_texcoord_1;\n"
           "flat in xl_varying9 { ivec4 v; } vertex_attrib_3[];\nuniform vec4 program_local[2];\n"
           "void main()\n{\n    a = fragment_texcoord_1.v.x + vertex_attrib_3[xl_v[1]].v.y;\n}\n")
    out = harness_text(src, "glsl330", {"uniforms": [], "textures": [], "buffers": []})
    assert out == (
        "#version 330 core\n#extension GL_ARB_enhanced_layouts : require\n"
        "#extension GL_ARB_separate_shader_objects : require\n"
        "#extension GL_ARB_shading_language_420pack : require\n"
        "layout(location = 6) centroid in vec4 fragment_texcoord_1;\n"
        "layout(location = 9) flat in ivec4 vertex_attrib_3[];\nuniform vec4 program_local[2];\n"
        "void main()\n{\n    a = fragment_texcoord_1.x + vertex_attrib_3[xl_v[1]].y;\n}\n")


def test_es310_extensions_map_to_desktop_or_are_refused():
    from xlate.backends.glsl import ES_PRECISE_HEADER
    from xlate.verify.glapi import GLError
    from xlate.verify.profile_runs import harness_text
    src = (f"#version 310 es\n#extension GL_OES_sample_variables : require\n{ES_PRECISE_HEADER}\n"
           "precision highp float;\nvoid main()\n{\n}\n")
    assert harness_text(src, "es310", {}) == (
        "#version 450 core\n#extension GL_ARB_sample_shading : require\n"
        "#define xl_precise precise\nprecision highp float;\nvoid main()\n{\n}\n")
    with pytest.raises(GLError, match="GL_EXT_made_up"):
        harness_text("#version 310 es\n#extension GL_EXT_made_up : require\n", "es310", {})


@pytest.mark.parametrize("path", PROGRAMS, ids=[p.name for p in PROGRAMS])
def test_vulkan_translation_runs_on_lavapipe(path):
    """The vulkan-profile golden (the same text, byte for byte: test_golden.py) run on
    Vulkan: pass, or a harness limit the GL runs share."""
    rep = verify_source(path.read_text(), str(path.relative_to(ROOT)), lanes=256,
                        runner=gl_runner("vulkan"))
    if rep.status == "unsupported":
        assert rep.reason in HARNESS_LIMITS, rep.reason
        return
    assert rep.status == "pass", rep.reason


def test_verify_command_takes_a_profile(capsys):
    from xlate.cli import main
    gl_runner("gl", profile="es310")
    path = str(ROOT / "corpus" / "examples" / "bright_pass.fp")
    assert main(["verify", "--profile", "glsl330", "--lanes", "64", path]) == 0
    assert capsys.readouterr().out.startswith("PASS ")
    assert main(["verify", "--profile", "es310", "--backend", "vulkan", path]) == 2
    assert capsys.readouterr().err == ("xlate verify: error: --profile es310 runs on the local gl "
                                       "backend only\n")
