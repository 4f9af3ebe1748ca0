"""Golden translations of our own corpus (``corpus/nv4``, and ``corpus/dialects``: every other
dialect).

For every program: the GLSL of every profile and the reflection JSON equal the files beside it
byte for byte, every golden GLSL compiles with glslang (OpenGL rules for ``glsl450``, Vulkan
rules for ``vulkan``, plain GLSL 3.30 / GLSL ES 3.10 rules for ``glsl330`` / ``es310``) and the
SPIR-V of the first two passes the SPIRV-Tools validator.  Where ``glsl330`` or ``es310`` cannot
express a program, its golden is the E7001 diagnostics (``<name>.<profile>.rejected``).

The goldens are written by ``tools/update_goldens.py``; the expected bytes are computed by the
same function the tool uses, so the two can never disagree about formatting.

Programs that hit a known xlate bug are listed in ``KNOWN_BUGS`` (keyed by file name) and every
test case of such a program is a strict xfail: when the bug is fixed the case XPASSes, which
fails the run as a reminder to regenerate the goldens and remove the entry.
"""
from __future__ import annotations

import difflib
import importlib.util
import sys
from pathlib import Path

import pytest

import xlate
from xlate.backends.glsl import ES_PRECISE_HEADER, PROFILE_INFO
from xlate.backends.spirv import GlslCompileError, check_glsl, compile_glsl, validate_spirv

ROOT = Path(__file__).resolve().parents[1]


def _load_tool():
    spec = importlib.util.spec_from_file_location("update_goldens", ROOT / "tools" / "update_goldens.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("update_goldens", mod)
    spec.loader.exec_module(mod)
    return mod


goldens = _load_tool()

#: file name -> why every test of that program is expected to fail (an xlate bug), e.g.
#:   "vp4_swz_billboard.vp": "xlate bug: SWZ rejected with E3003 (operand count)",
KNOWN_BUGS: dict[str, str] = {}

SOURCES = goldens.sources()
UPDATE_HINT = ("review the diff, and if the new translation is right run "
               "`python tools/update_goldens.py` and commit the updated goldens")


def _params(*extra):
    out = []
    for src in SOURCES:
        marks = []
        if src.name in KNOWN_BUGS:
            marks.append(pytest.mark.xfail(reason=KNOWN_BUGS[src.name], strict=True))
        for e in extra or (None,):
            ident = src.name if e is None else f"{src.name}-{e}"
            values = (src,) if e is None else (src, e)
            out.append(pytest.param(*values, marks=marks, id=ident))
    return out


_rendered: dict[Path, dict[Path, bytes]] = {}


def _render(src: Path) -> dict[Path, bytes]:
    if src not in _rendered:
        try:
            _rendered[src] = goldens.render(src)
        except xlate.XlateError as e:
            diags = "\n".join(d.header() for d in e.diagnostics) or str(e)
            pytest.fail(f"xlate rejects {src.name}, so it has no translation to compare:\n{diags}\n"
                        "(a valid program hitting an xlate bug belongs in KNOWN_BUGS)")
    return _rendered[src]


def _short_diff(old: bytes, new: bytes, name: str, limit: int = 60) -> str:
    diff = list(difflib.unified_diff(old.decode("utf-8", "replace").splitlines(),
                                     new.decode("utf-8", "replace").splitlines(),
                                     f"{name} (golden)", f"{name} (xlate now)", lineterm=""))
    more = f"\n... {len(diff) - limit} more diff lines" if len(diff) > limit else ""
    return "\n".join(diff[:limit]) + more


def test_corpus_is_not_empty():
    stages = {s.suffix for s in SOURCES}
    assert stages == {".vp", ".fp", ".gp", ".tgsi"}, f"the corpus lacks programs of a type: {stages}"


def test_every_dialect_has_goldens():
    """One golden program or more per dialect xlate reads (issue 18: goldens for every dialect,
    not only NV4): the header, and the options an ARB program turns on."""
    import re
    seen = set()
    for src in SOURCES:
        text = src.read_text(encoding="utf-8")
        head = text.split(None, 1)[0]
        options = re.findall(r"^OPTION (NV_\w+);", text, re.M)
        seen.add(head + "".join(f"+{o}" for o in options if o.startswith("NV_")))
    assert seen >= {"!!VP1.0", "!!VP1.1", "!!VSP1.0", "!!VP2.0", "!!ARBvp1.0",
                    "!!ARBvp1.0+NV_vertex_program2", "!!ARBvp1.0+NV_vertex_program3",
                    "!!ARBfp1.0", "!!ARBfp1.0+NV_fragment_program",
                    "!!ARBfp1.0+NV_fragment_program2", "!!FP1.0", "!!NVvp4.0", "!!NVfp4.0",
                    "!!NVgp4.0", "VERT", "FRAG"}, sorted(seen)


def test_known_bug_entries_name_existing_programs():
    names = {s.name for s in SOURCES}
    assert set(KNOWN_BUGS) <= names, f"KNOWN_BUGS names missing programs: {set(KNOWN_BUGS) - names}"


def test_no_orphan_goldens():
    stray = goldens.orphans(goldens.CORPORA, SOURCES)
    assert not stray, (f"golden files without a program: {[p.name for p in stray]}; "
                       "run `python tools/update_goldens.py` to remove them")


def test_program_names_do_not_collide():
    assert not goldens.duplicate_stems(SOURCES)


def _golden_of(src: Path, kind: str) -> Path:
    """The golden file a translation of ``kind`` has now: the GLSL, or for glsl330/es310 the
    rejection where the profile cannot express the program."""
    path = goldens.golden_paths(src)[kind]
    if kind in goldens.REJECTABLE and path not in _render(src):
        path = goldens.rejection_path(src, kind)
    return path


@pytest.mark.parametrize("src, kind", _params("glsl450", "vulkan", "glsl330", "es310", "reflect"))
def test_translation_matches_golden(src: Path, kind: str):
    path = _golden_of(src, kind)
    expected = _render(src)[path]
    assert path.exists(), (f"{path.name} is missing: the translation of {src.name} has no golden "
                           f"yet; {UPDATE_HINT}")
    stale = [p.name for p in goldens.alternatives(src, _render(src)) if p.exists()]
    assert not stale, f"{stale}: golden of the other kind, no longer produced; {UPDATE_HINT}"
    actual = path.read_bytes()
    assert actual == expected, (f"{src.name}: the {kind} translation differs from "
                                f"{path.name}; {UPDATE_HINT}\n"
                                + _short_diff(actual, expected, path.name))


@pytest.mark.parametrize("src, profile", _params("glsl330", "es310"))
def test_golden_of_a_glsl_only_profile_compiles(src: Path, profile: str):
    """glsl330/es310 goldens compile under their own #version with no client API; es310 in
    both branches of its 'precise' preamble (glslang has GL_EXT_gpu_shader5 and so takes the
    first; the others are what implementations without it compile)."""
    path = goldens.golden_paths(src)[profile]
    if not path.exists():
        assert goldens.rejection_path(src, profile).exists(), f"{path.name} is missing; {UPDATE_HINT}"
        pytest.skip(f"{profile} cannot express {src.name} (its golden is the rejection)")
    stage = goldens.stage_of(src)
    text = path.read_text(encoding="utf-8")
    variants = [text]
    if profile == "es310":
        assert ES_PRECISE_HEADER in text
        variants += [text.replace("defined(GL_EXT_gpu_shader5)", "0"),
                     text.replace("defined(GL_EXT_gpu_shader5)", "0").replace(
                         "defined(GL_OES_gpu_shader5)", "0")]
    for variant in variants:
        try:
            check_glsl(variant, stage, version=PROFILE_INFO[profile].version)
        except GlslCompileError as e:
            pytest.fail(f"glslang rejects {path.name} ({stage}):\n{e.log.strip()}")


@pytest.mark.parametrize("src, profile", _params("glsl450", "vulkan"))
def test_golden_compiles_and_validates(src: Path, profile: str):
    path = goldens.golden_paths(src)[profile]
    assert path.exists(), f"{path.name} is missing; {UPDATE_HINT}"
    stage = goldens.stage_of(src)
    target = "vulkan" if profile == "vulkan" else "opengl"
    text = path.read_text(encoding="utf-8")
    try:
        words = compile_glsl(text, stage, target=target)
    except GlslCompileError as e:
        pytest.fail(f"glslang rejects {path.name} ({stage}, {target}):\n{e.log.strip()}")
    problem = validate_spirv(words, target=target)
    assert problem is None, f"SPIR-V of {path.name} ({target}) fails validation: {problem}"


def test_translation_is_deterministic():
    """Two translations of one program in one process give the same bytes."""
    src = next(s for s in SOURCES if s.name not in KNOWN_BUGS)
    text = src.read_text(encoding="utf-8")
    name = goldens.relative_name(src)
    first = xlate.translate(text, filename=name, target="glsl", profile="vulkan", validate=False)
    second = xlate.translate(text, filename=name, target="glsl", profile="vulkan", validate=False)
    assert first.glsl == second.glsl and first.reflection == second.reflection
