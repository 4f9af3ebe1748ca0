"""The names in cgc's ``#var`` header, resolved to what the program binds.

cgc writes one ``#var type name : semantic : resource : param# : referenced`` line per Cg
parameter.  The resource is cgc's own spelling of where the value went, the same in every
profile, not the assembly's: ``c[2]`` (the parameter register 2: an element of the ``PARAM c[]``
array in ARB/NV4 programs, ``c[2]`` itself in VP1/VP2), ``c[0], 4`` (a value over four
registers: a ``float4x4``), ``IN$texture_size`` (an FP1 ``DECLARE``), ``ATTR3`` / ``POSITION`` /
``TEXCOORD0`` (vertex attributes), ``TEX0`` / ``COL0`` / ``ATTR1`` (varyings), ``HPOS`` /
``COL`` / ``COL0[0]`` (results), ``HPOS[1][32]`` / ``TEX0[1][37]`` (a geometry input of vertex
1), ``texunit 0`` (a sampler).  What is resolved here becomes :class:`SourceName` entries of the
IR; the backends make identifiers of them (``backends/names.py``).

Readings chosen (the header documents nothing; these are what cgc 3.1 writes, checked over
``../shared/corpus/cg``):

* a resource the program does not use is dropped: the name of an input no instruction reads
  names nothing a backend declares (cgc lists every parameter, ``referenced`` 0 or 1);
* ``local[n]`` (NV4 local memory, a temporary array) and ``$kill`` name no interface thing;
* a varying resource is matched to the binding the program uses: ``TEXCOORD0`` is
  ``vertex.texcoord[0]`` in ARB programs and ``vertex.attrib[8]`` (the same attribute slot, by
  NVIDIA's conventional/generic aliasing) in VP1/VP2/NV4 ones;
* geometry inputs are per-vertex arrays: ``position.__data[1]`` is vertex 1 of ``position``,
  one name for the array.
"""
from __future__ import annotations

import re

from ...ir.model import Binding, Program, RegKind, SourceName, Stage, VarInfo

#: vertex attribute resources and the bindings that may carry them (the named one first, then
#: the generic attribute it aliases: VP4 / ARB_vertex_program Table X.2)
_VERTEX_ATTRIBUTES = {
    "POSITION": [("vertex.position", None), ("vertex.attrib", 0)],
    "BLENDWEIGHT": [("vertex.weight", None), ("vertex.attrib", 1)],
    "NORMAL": [("vertex.normal", None), ("vertex.attrib", 2)],
    "COLOR": [("vertex.color", None), ("vertex.attrib", 3)],
    "COLOR0": [("vertex.color", None), ("vertex.attrib", 3)],
    "DIFFUSE": [("vertex.color", None), ("vertex.attrib", 3)],
    "COLOR1": [("vertex.color.secondary", None), ("vertex.attrib", 4)],
    "SPECULAR": [("vertex.color.secondary", None), ("vertex.attrib", 4)],
    "FOGCOORD": [("vertex.fogcoord", None), ("vertex.attrib", 5)],
    "FOG": [("vertex.fogcoord", None), ("vertex.attrib", 5)],
}
_ALIASED_ATTRIBUTE = {0: "vertex.position", 2: "vertex.normal", 3: "vertex.color",
                      4: "vertex.color.secondary", 5: "vertex.fogcoord"}
#: varying resources (vertex/geometry outputs, fragment/geometry inputs) by their suffix path
_VARYINGS = {"COL0": "color", "COL": "color", "COL1": "color.secondary", "BCOL0": "color.back",
             "BCOL1": "color.back.secondary", "FOGC": "fogcoord", "FOG": "fogcoord"}


#: the resource and name patterns below, compiled once
_TEXUNIT = re.compile(r"texunit\s+(\d+)")
_PARAMETER = re.compile(r"c\[(\d+)\](?:\s*,\s*(\d+))?")
_DECLARED_NAME = re.compile(r"[A-Za-z_]\w*\$\w+|[A-Za-z_]\w*")
_VERTEX_ELEMENT = re.compile(r"\.__data\[\d+\]$")
_VERTEX_INDICES = re.compile(r"(\[\d+\])+$")
_ATTR = re.compile(r"ATTR(\d+)")
_TEXCOORD = re.compile(r"TEXCOORD(\d+)")
_COLOR = re.compile(r"COL(\d*)")
_TEX = re.compile(r"TEX(\d+)")
_CLIP = re.compile(r"CLP(\d+)")


def resolve_source_names(prog: Program) -> list[SourceName]:
    """The ``#var`` names of ``prog`` (parsed into ``prog.vars``) in the IR's terms, in header
    order; names whose resource the program does not use are left out."""
    used = {kind: set() for kind in (RegKind.INPUT, RegKind.OUTPUT)}
    for reg in prog.registers.values():
        if reg.kind in used:
            used[reg.kind].update((b.path, b.index) for b in reg.bindings if b is not None)
    units = {ins.tex.unit for ins in prog.instructions if ins.tex is not None}
    out: list[SourceName] = []
    seen: set[tuple] = set()
    for var in prog.vars:
        res = var.resource.strip()
        if not res:
            continue
        for entry in _resolve(prog, var, res, used, units):
            key = (entry.kind, entry.binding, entry.unit, entry.name)
            if key not in seen:
                seen.add(key)
                out.append(entry)
    return out


def _resolve(prog: Program, var, res: str, used: dict, units: set[int]) -> list[SourceName]:
    # (each regex only where the text can match it: a #var header has dozens of lines)
    m = _TEXUNIT.fullmatch(res) if res.startswith("texunit") else None
    if m:
        unit = int(m.group(1))
        return [SourceName("texture", var.name, unit=unit, referenced=var.referenced)] \
            if unit in units else []
    m = _PARAMETER.fullmatch(res) if res.startswith("c[") else None
    if m:
        return _params(prog, var, int(m.group(1)), int(m.group(2) or 1))
    if _DECLARED_NAME.fullmatch(res) and res in prog.registers \
            and prog.registers[res].kind == RegKind.PARAM:
        # FP1: the resource is the DECLAREd name (IN$texture_size, erroredtable$3)
        reg = prog.registers[res]
        b = reg.bindings[0] if reg.bindings else None
        return [SourceName("param", var.name, b, referenced=var.referenced)] if b else []
    semantic = var.semantic
    if semantic.startswith("$vout."):
        kind, pool = "output", used[RegKind.OUTPUT]
    elif semantic.startswith("$vin."):
        kind, pool = "input", used[RegKind.INPUT]
    else:
        return []
    name = var.name
    if "__data[" in name:                          # a geometry input's per-vertex element
        name = _VERTEX_ELEMENT.sub("", name)
    for path, index in _candidates(prog.stage, kind, res):
        if (path, index) in pool:
            return [SourceName(kind, name, Binding(path, index), referenced=var.referenced)]
    return []


def _params(prog: Program, var, first: int, rows: int) -> list[SourceName]:
    """``c[first]`` .. ``c[first + rows - 1]``: elements of the PARAM array ``c`` (ARB, NV4) or
    the registers ``c[n]`` (VP1, VP2); constant elements (no binding) name nothing."""
    array = prog.registers.get("c")
    out = []
    for row in range(rows):
        if array is not None and array.kind == RegKind.PARAM:
            b = array.bindings[first + row] if first + row < len(array.bindings) else None
        else:
            reg = prog.registers.get(f"c[{first + row}]")
            b = reg.bindings[0] if reg is not None and reg.kind == RegKind.PARAM and reg.bindings else None
        if b is not None:
            out.append(SourceName("param", var.name, b, row=row, rows=rows, referenced=var.referenced))
    return out


def _candidates(stage: Stage, kind: str, res: str) -> list[tuple[str, int | None]]:
    """The bindings cgc's resource ``res`` may be, by stage and direction."""
    if stage == Stage.GEOMETRY and kind == "input":     # HPOS[1][32] (vertex 1)
        res = _VERTEX_INDICES.sub("", res)
    elif res.endswith("[0]"):                           # COL0[0] (gp4fp)
        res = res[:-3]
    if stage == Stage.VERTEX and kind == "input":
        m = _ATTR.fullmatch(res)
        if m:
            n = int(m.group(1))
            out = [("vertex.attrib", n)]
            if n in _ALIASED_ATTRIBUTE:
                out.append((_ALIASED_ATTRIBUTE[n], None))
            if 8 <= n < 16:
                out.append(("vertex.texcoord", n - 8))
            return out
        m = _TEXCOORD.fullmatch(res)
        if m:
            return [("vertex.texcoord", int(m.group(1))), ("vertex.attrib", 8 + int(m.group(1)))]
        return _VERTEX_ATTRIBUTES.get(res, [])
    if stage == Stage.FRAGMENT and kind == "output":
        m = _COLOR.fullmatch(res)
        if m:
            n = int(m.group(1) or 0)
            return [("result.color", n)] + ([("result.color", None)] if n == 0 else [])
        return []
    # varyings: vertex/geometry outputs, fragment/geometry inputs
    head = "result" if kind == "output" else "vertex" if stage == Stage.GEOMETRY else "fragment"
    if res == "HPOS" or res == "WPOS":
        return [(f"{head}.position", None)]
    m = _TEX.fullmatch(res)
    if m:
        return [(f"{head}.texcoord", int(m.group(1)))]
    m = _ATTR.fullmatch(res)
    if m:
        return [(f"{head}.attrib", int(m.group(1)))]
    m = _CLIP.fullmatch(res)
    if m:
        return [(f"{head}.clip", int(m.group(1)))]
    if res in ("PSIZ", "PSIZE"):
        return [(f"{head}.pointsize", None)]
    suffix = _VARYINGS.get(res)
    if suffix is None:
        return []
    out = [(f"{head}.{suffix}", None)]
    if suffix == "color":
        out.append((f"{head}.color.primary", None))
        if stage == Stage.GEOMETRY and kind == "input":
            out.append(("vertex.color.front", None))
    return out


_VAR_LINE = re.compile(r"^#var\s+(\S+)\s+([^:\n]*?)\s*:([^:\n]*):([^:\n]*):([^:\n]*):([^:\n]*)$",
                       re.M)


def parse_var_lines(text: str) -> list[VarInfo]:
    """cgc's ``#var type name : semantic : resource : param# : referenced`` comment lines."""
    out = []
    # the pattern is tried only where a line starts with '#var' (finditer would try it at every
    # position of the text); the same matches as finditer's, as they cannot overlap
    end = 0
    pos = text.find("#var")
    while pos >= 0:
        if pos >= end and (pos == 0 or text[pos - 1] == "\n"):
            m = _VAR_LINE.match(text, pos)
            if m is not None:
                out.append(VarInfo(m.group(1), m.group(2).strip(), m.group(3).strip(),
                                   m.group(4).strip(), m.group(5).strip(),
                                   m.group(6).strip() == "1"))
                end = m.end()
        pos = text.find("#var", pos + 4)
    return out
