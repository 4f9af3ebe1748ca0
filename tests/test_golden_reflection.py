"""The reflection goldens (corpus/**/<name>.reflect.json) checked independently: test_golden.py
only says they did not change.  Here every input/output register binding the IR declares is
listed (with a location unique in its direction), every texture unit an instruction samples is
listed with the instruction's target, and every entry's name/type/location/binding is what the
glsl450 golden declares (a `layout(...)` line of the GLSL text)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import xlate
from xlate.ir.model import RegKind

ROOT = Path(__file__).resolve().parents[1]
GOLDENS = sorted((ROOT / "corpus").rglob("*.reflect.json"))


def _source(golden: Path) -> Path:
    stem = golden.name[:-len(".reflect.json")]
    return next(p for p in golden.parent.iterdir() if p.stem == stem
                and p.suffix in (".vp", ".fp", ".gp", ".tgsi"))


def _norm(binding: str) -> str:
    """"result.color" = "result.color[0]"; a geometry program's per-vertex "vertex[1].position"
    is the one reflected input "vertex.position"."""
    binding = re.sub(r"^vertex\[\d+\]\.", "vertex.", binding)
    return binding[:-3] if binding.endswith("[0]") else binding


def test_there_are_reflection_goldens():
    assert len(GOLDENS) >= 20


@pytest.mark.parametrize("golden", GOLDENS, ids=[g.name for g in GOLDENS])
def test_reflection_golden_matches_the_program_and_its_glsl(golden: Path):
    src = _source(golden)
    refl = json.loads(golden.read_text())
    glsl = golden.with_name(golden.name.replace(".reflect.json", ".glsl450.glsl")).read_text()
    prog = xlate.parse(src.read_text(), filename=str(src.relative_to(ROOT)))
    assert (refl["stage"], refl["profile"]) == (prog.stage.value, "glsl450")

    for direction, kind in (("inputs", RegKind.INPUT), ("outputs", RegKind.OUTPUT)):
        listed = {_norm(e["binding"]) for e in refl[direction]}
        declared = {_norm(b.text()) for r in prog.registers.values() if r.kind == kind
                    for b in r.bindings if b is not None}
        assert declared <= listed, (direction, sorted(declared - listed))
        locs = [e["location"] for e in refl[direction] if not e["builtin"]]
        assert len(locs) == len(set(locs)), (direction, locs)
        qual = "in" if direction == "inputs" else "out"
        for e in refl[direction]:
            if e["builtin"]:
                assert e["name"].startswith("gl_"), e
                continue
            # arrays of per-vertex geometry inputs are declared "name[]"
            pat = (rf"^layout\(location = {e['location']}\b[^)]*\) (?:\w+ )*{qual} "
                   rf"{re.escape(e['type'])} {re.escape(e['name'])}(?:\[\d*\])?;")
            assert re.search(pat, glsl, re.M), (direction, e)

    units = {(i.tex.unit, i.tex.target) for i in prog.instructions if i.tex is not None}
    listed = {(t["unit"], t["target"]) for t in refl["textures"]}
    assert {u for u, _ in units} <= {u for u, _ in listed}, (sorted(units), sorted(listed))
    for t in refl["textures"]:
        assert re.search(rf"^layout\(binding = {t['binding']}\) uniform (?:\w+ )*"
                         rf"{re.escape(t['type'])} {re.escape(t['name'])};", glsl, re.M), t

    for u in refl["uniforms"]:
        size = u["array_size"]                      # None: a single (non-array) uniform
        arr = "" if size is None else rf"\[{size}\]"
        assert re.search(rf"^layout\(location = {u['location']}\) uniform "
                         rf"{re.escape(u['type'])} {re.escape(u['name'])}{arr};", glsl, re.M), u
        assert all(0 <= int(k) < (size or 1) for k in u["elements"]), u
    for b in refl["buffers"]:
        assert re.search(rf"^layout\(std140, binding = {b['binding']}\) uniform "
                         rf"{re.escape(b['block'])}\b", glsl, re.M), b
