"""Our NV4 corpus (``corpus/nv4``) covers the whole NV_gpu_program4 family.

Coverage is computed from the parsed IR (``xlate.parse``), so a construct only counts when the
frontend understood it: every opcode available to each program type
(``xlate.frontends.nv.nv4.STAGE_OPS``), every instruction modifier, every texture target, every
condition-code rule of GP4 Table X.16 on both CC0 and CC1, and the declarations, bindings and
control-flow forms the corpus is meant to exercise.  Only what the IR does not keep is read from
the source text, at the instruction's own span: the spelling of a modifier (glued ``ADDRC1_SAT``
versus dot ``.CC1``, ``.CC`` versus ``.CC0``, ``.NTC``) and the two spellings of a BRK/CONT
condition (``BRK (GT.x)`` versus ``BRK GT.x``).

Programs the frontend rejects (see ``KNOWN_BUGS`` in tests/test_golden.py) contribute nothing.
What they would have covered and nothing else covers is listed in ``KNOWN_GAPS``: such items are
left out of the main checks and tested by a strict xfail, which XPASSes (and fails the run) once
the bug is fixed, so the entry gets removed.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import xlate
from xlate.frontends.nv.nv4_tables import STAGE_OPS
from xlate.ir.model import DataType, Program, RegKind, Sat, Stage
from xlate.ir.ops import CC_RULES, OPCODES, TEX_TARGETS

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "corpus" / "nv4"

#: the modifiers of GP4 Table X.14 (dot form) and Table X.15 (suffixes glued to the opcode)
DOT_MODIFIERS = (".F", ".S", ".U", ".CC", ".CC0", ".CC1", ".SAT", ".SSAT", ".NTC", ".S24", ".U24",
                 ".HI")
GLUED_MODIFIERS = ("R", "H", "C", "C0", "C1", "_SAT", "_SSAT")
_GLUED = re.compile(r"(R|H)?(C0|C1|C)?(_SAT|_SSAT)?")
_OPCODE_TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9]+)*")

#: (category, item) -> why the corpus cannot cover it yet (a program that would is rejected), e.g.
#:   ("opcode", "vertex SWZ"): "SWZ rejected by the frontend, see KNOWN_BUGS in test_golden.py",
#: categories: opcode ("<stage> <OP>"), modifier, target, cc ("<RULE><n>"), feature.
KNOWN_GAPS: dict[tuple[str, str], str] = {}


@dataclass
class Coverage:
    opcodes: dict[Stage, set[str]] = field(default_factory=lambda: {s: set() for s in Stage})
    modifiers: set[str] = field(default_factory=set)
    targets: set[str] = field(default_factory=set)
    cc_tests: set[tuple[str, int]] = field(default_factory=set)
    features: set[str] = field(default_factory=set)
    parsed: list[str] = field(default_factory=list)
    rejected: dict[str, str] = field(default_factory=dict)


def _opcode_token(lines: list[str], ins) -> str:
    """The opcode with its glued suffixes and dot modifiers, read at the instruction's span."""
    line = lines[ins.span.line - 1]
    m = _OPCODE_TOKEN.match(line, ins.span.col - 1)
    assert m, f"no opcode at {ins.span}"
    return m.group()


def _condition_is_parenthesised(lines: list[str], ins, token: str) -> bool:
    line = lines[ins.span.line - 1]
    rest = line[ins.span.col - 1 + len(token):].lstrip()
    return rest.startswith("(")


def _needs_ntc(prog: Program, ins) -> bool:
    """A typed variable is used with another data type (what .NTC makes legal, GP4 2.X.4)."""
    info = OPCODES[ins.op]
    for i, src in enumerate(ins.srcs):
        reg = prog.registers[src.reg]
        want = info.operand_type(min(i, len(info.inputs) - 1), ins.dtype) if info.inputs else ins.dtype
        if reg.kind != RegKind.CONST and reg.dtype not in (DataType.NONE, want):
            return True
    if ins.dst is not None and ins.dst.reg in prog.registers:
        reg = prog.registers[ins.dst.reg]
        if reg.dtype not in (DataType.NONE, info.result_type(ins.dtype)):
            return True
    return False


def _modifiers(prog: Program, ins, token: str) -> set[str]:
    """Modifiers spelled on this instruction whose effect the IR shows."""
    head, *dots = token.split(".")
    found = set()
    m = _GLUED.fullmatch(head[len(ins.op):])
    if m:
        prec, cc, sat = m.groups()
        if prec and ins.precision == prec and ins.dtype == DataType.FLOAT:
            found.add(prec)
        if cc and ins.cc_update == (1 if cc == "C1" else 0):
            found.add(cc)
        if sat and ins.sat == Sat(sat[1:]):
            found.add(sat)
    effect = {
        "F": ins.dtype == DataType.FLOAT,
        "S": ins.dtype == DataType.INT,
        "U": ins.dtype == DataType.UINT,
        "CC": ins.cc_update == 0,
        "CC0": ins.cc_update == 0,
        "CC1": ins.cc_update == 1,
        "SAT": ins.sat == Sat.SAT,
        "SSAT": ins.sat == Sat.SSAT,
        "NTC": _needs_ntc(prog, ins),
        "S24": ins.mul_mode == "S24" and ins.dtype == DataType.INT,
        "U24": ins.mul_mode == "U24" and ins.dtype == DataType.UINT,
        "HI": ins.mul_mode == "HI" and ins.dtype != DataType.FLOAT,
    }
    found.update("." + d for d in dots if effect.get(d, False))
    return found


_TYPE_KEYWORD = {DataType.INT: "INT", DataType.UINT: "UINT", DataType.FLOAT: "FLOAT"}


def _binding_features(prog: Program) -> set[str]:
    out = set()
    for reg in prog.registers.values():
        for b in reg.bindings:
            if b is None:
                continue
            path = b.path
            if path.startswith("state.matrix."):
                out.add("state.matrix")
                for mod in ("inverse", "transpose", "invtrans"):
                    if f".{mod}." in path:
                        out.add(f"state.matrix.*.{mod}")
                if reg.size and reg.size > 1:
                    out.add("state.matrix rows bound as an array")
            for prefix in ("state.light.", "state.lightprod.", "state.lightmodel.", "state.material.",
                           "state.fog.", "state.texgen.", "state.clip.", "state.point.",
                           "state.texenv.", "state.depth.range", "program.local", "program.env",
                           "primitive.id", "result.layer", "result.primid", "result.depth",
                           "fragment.facing", "fragment.position"):
                if path.startswith(prefix):
                    out.add(prefix.rstrip("."))
            if path.startswith("vertex.") and (b.vertex is not None or reg.per_vertex):
                if prog.stage == Stage.GEOMETRY:
                    out.add("vertex[n].* binding")
            if path == "result.color" and (b.index or 0) > 0 and "ARB_draw_buffers" in prog.options:
                out.add("result.color[n] with OPTION ARB_draw_buffers")
        if reg.implicit or reg.kind in (RegKind.CONST, RegKind.CC):
            continue
        if reg.dtype != DataType.NONE:
            out.add(f"{_TYPE_KEYWORD[reg.dtype]} declaration")
        if reg.precision:
            out.add(f"{reg.precision} declaration")
        for mod in (reg.interpolation or "").split():
            out.add(f"{mod} attribute")
        if reg.kind == RegKind.BUFFER:
            out.add("BUFFER4" if reg.buffer_vec4 else "BUFFER")
        if reg.per_vertex and reg.size is not None:
            out.add("per-vertex ATTRIB array")
        if reg.per_vertex and reg.size is None:
            out.add("per-vertex ATTRIB variable")
    if prog.geometry:
        out.add(f"PRIMITIVE_IN {prog.geometry.input_primitive}")
        out.add(f"PRIMITIVE_OUT {prog.geometry.output_primitive}")
    if "main" in prog.labels:
        out.add("main: label")
    return out


def _instruction_features(prog: Program, ins, lines: list[str], token: str) -> set[str]:
    out = set()
    kinds = {RegKind.PARAM: "PARAM", RegKind.INPUT: "ATTRIB", RegKind.OUTPUT: "OUTPUT",
             RegKind.TEMP: "TEMP", RegKind.BUFFER: "BUFFER"}
    for src in ins.srcs:
        if src.index is not None and src.index.relative:
            out.add(f"relative addressing of a {kinds[prog.registers[src.reg].kind]} array")
            if src.index.offset:
                out.add("relative addressing with a constant offset")
        if src.vertex is not None and src.vertex.relative:
            out.add("vertex number taken from a register")
    if ins.dst is not None:
        if ins.dst.index is not None and ins.dst.index.relative:
            out.add(f"relative addressing of a {kinds[prog.registers[ins.dst.reg].kind]} array")
        if ins.dst.cond is not None:
            out.add("conditional write mask")
    if ins.op == "REP":
        out.add("REP with a count" if ins.srcs else "REP without a count")
    if ins.op in ("BRK", "CONT") and ins.cond is not None:
        form = "(cc)" if _condition_is_parenthesised(lines, ins, token) else "cc"
        out.add(f"{ins.op} {form}")
    if ins.op == "CAL" and ins.label in prog.labels:
        out.add("CAL to a label" + (" with a condition" if ins.cond is not None else ""))
    if ins.op == "RET" and ins.cond is not None:
        out.add("RET with a condition")
    if ins.op == "KIL":
        out.add("KIL with a condition-code test" if ins.cond is not None else "KIL with a vector")
    if ins.tex is not None and any(ins.tex.offset):
        dims = max(i for i, v in enumerate(ins.tex.offset) if v) + 1
        out.add(f"texel offset with {dims} component{'s' if dims > 1 else ''}")
        if min(ins.tex.offset) < 0:
            out.add("negative texel offset")
    return out


def _collect() -> Coverage:
    cov = Coverage()
    for src in sorted(p for p in CORPUS.iterdir() if p.suffix in (".vp", ".fp", ".gp")):
        text = src.read_text(encoding="utf-8")
        try:
            prog = xlate.parse(text, filename=src.relative_to(ROOT).as_posix())
        except xlate.XlateError as e:
            cov.rejected[src.name] = e.diagnostics[0].header() if e.diagnostics else str(e)
            continue
        cov.parsed.append(src.name)
        lines = text.splitlines()
        cov.features |= _binding_features(prog)
        for ins in prog.instructions:
            if ins.span is None or ins.text:      # RETs the frontend inserted before labels
                continue
            token = _opcode_token(lines, ins)
            cov.opcodes[prog.stage].add(ins.op)
            cov.modifiers |= _modifiers(prog, ins, token)
            if ins.tex is not None:
                cov.targets.add(ins.tex.target)
            for cond in (ins.cond, ins.dst.cond if ins.dst is not None else None):
                if cond is not None:
                    cov.cc_tests.add((cond.rule, cond.cc))
            cov.features |= _instruction_features(prog, ins, lines, token)
    return cov


COVERAGE = _collect()

#: features the corpus must show (derived from the IR, see the module docstring)
FEATURES = (
    "conditional write mask", "REP with a count", "REP without a count", "BRK (cc)", "BRK cc",
    "CONT (cc)", "CONT cc", "CAL to a label", "CAL to a label with a condition",
    "RET with a condition", "main: label", "KIL with a vector", "KIL with a condition-code test",
    "relative addressing of a PARAM array", "relative addressing of a ATTRIB array",
    "relative addressing of a OUTPUT array", "relative addressing of a TEMP array",
    "relative addressing of a BUFFER array", "relative addressing with a constant offset",
    "vertex number taken from a register",
    "INT declaration", "UINT declaration", "FLOAT declaration", "SHORT declaration",
    "LONG declaration", "FLAT attribute", "CENTROID attribute", "NOPERSPECTIVE attribute",
    "BUFFER", "BUFFER4",
    "state.matrix", "state.matrix.*.inverse", "state.matrix.*.transpose",
    "state.matrix.*.invtrans", "state.matrix rows bound as an array", "state.light",
    "state.lightprod", "state.lightmodel", "state.material", "state.fog", "state.texgen",
    "state.clip", "state.point", "state.texenv", "state.depth.range", "program.local",
    "program.env",
    "PRIMITIVE_IN POINTS", "PRIMITIVE_IN LINES", "PRIMITIVE_IN LINES_ADJACENCY",
    "PRIMITIVE_IN TRIANGLES", "PRIMITIVE_IN TRIANGLES_ADJACENCY", "PRIMITIVE_OUT POINTS",
    "PRIMITIVE_OUT LINE_STRIP", "PRIMITIVE_OUT TRIANGLE_STRIP", "vertex[n].* binding",
    "per-vertex ATTRIB variable", "per-vertex ATTRIB array", "primitive.id", "result.layer",
    "result.primid", "result.depth", "fragment.facing", "fragment.position",
    "result.color[n] with OPTION ARB_draw_buffers",
    "texel offset with 1 component", "texel offset with 2 components",
    "texel offset with 3 components", "negative texel offset",
)


def _gaps(category: str, items) -> set[str]:
    return {i for i in items if (category, i) not in KNOWN_GAPS}


def _report(what: str, missing: set) -> str:
    rejected = "".join(f"\n  not counted (rejected by xlate): {n}: {d}"
                       for n, d in sorted(COVERAGE.rejected.items()))
    return f"corpus/nv4 never uses {what}: {', '.join(sorted(map(str, missing)))}{rejected}"


def test_corpus_parses_something_of_each_type():
    stages = {s: [n for n in COVERAGE.parsed if n.endswith(ext)]
              for s, ext in ((Stage.VERTEX, ".vp"), (Stage.FRAGMENT, ".fp"), (Stage.GEOMETRY, ".gp"))}
    assert all(stages.values()), f"no parsed program for some program type: {stages}"


@pytest.mark.parametrize("stage", [s for s in Stage if s in STAGE_OPS], ids=lambda s: s.value)
def test_every_opcode_of_the_program_type(stage: Stage):
    # the NV4 family's program types (TGSI's tessellation stages have no NV4 programs)
    required = {f"{stage.value} {op}" for op in STAGE_OPS[stage]}
    seen = {f"{stage.value} {op}" for op in COVERAGE.opcodes[stage]}
    missing = _gaps("opcode", required - seen)
    assert not missing, _report(f"these {stage.value}-program opcodes", missing)


def test_every_instruction_modifier():
    required = set(DOT_MODIFIERS) | set(GLUED_MODIFIERS)
    missing = _gaps("modifier", required - COVERAGE.modifiers)
    assert not missing, _report("these instruction modifiers (dot form .X, glued suffix X)", missing)


def test_every_texture_target():
    missing = _gaps("target", set(TEX_TARGETS) - COVERAGE.targets)
    assert not missing, _report("these texture targets", missing)


@pytest.mark.parametrize("cc", [0, 1], ids=["CC0", "CC1"])
def test_every_condition_code_rule(cc: int):
    required = {f"{rule}{cc}" for rule in CC_RULES}
    seen = {f"{rule}{n}" for rule, n in COVERAGE.cc_tests}
    missing = _gaps("cc", required - seen)
    assert not missing, _report(f"these condition-code tests on CC{cc} (GP4 Table X.16)", missing)


def test_every_listed_feature():
    missing = _gaps("feature", set(FEATURES) - COVERAGE.features)
    assert not missing, _report("these constructs", missing)


@pytest.mark.parametrize(
    "category, item",
    [pytest.param(c, i, marks=pytest.mark.xfail(reason=why, strict=True), id=f"{c}-{i}")
     for (c, i), why in KNOWN_GAPS.items()] or [pytest.param(None, None, marks=pytest.mark.skip(
         reason="no known gaps"))])
def test_known_gap_is_still_uncovered(category: str, item: str):
    """Strict xfail: passes (and so fails the run) once the corpus covers the item again."""
    if category == "opcode":
        stage_name, op = item.split()
        covered = op in COVERAGE.opcodes[Stage(stage_name)]
    elif category == "modifier":
        covered = item in COVERAGE.modifiers
    elif category == "target":
        covered = item in COVERAGE.targets
    elif category == "cc":
        covered = (item[:-1], int(item[-1])) in COVERAGE.cc_tests
    else:
        covered = item in COVERAGE.features
    assert covered, f"{category} {item} is still not covered by a program xlate accepts"
