"""TGSI tessellation processors (TESS_CTRL, TESS_EVAL): properties and interface bindings --
part of the lowerer in ``lower.py``.

Readings chosen (tgsi.rst "Properties", "Semantics"; each has a test in tests/test_tgsi_tess.py):

* A property the program does not set is 0, as the drivers see it (tgsi_scan's zeroed property
  table): ``TES_SPACING`` 0 is PIPE_TESS_SPACING_FRACTIONAL_ODD (p_defines.h: FRACTIONAL_ODD 0,
  FRACTIONAL_EVEN 1, EQUAL 2), ``TES_VERTEX_ORDER_CW`` 0 counter-clockwise, ``TES_POINT_MODE``
  0 off.  ``TES_PRIM_MODE`` 0 (POINTS) is no tessellation domain: a TESS_EVAL without
  ``TES_PRIM_MODE`` 4 (TRIANGLES), 7 (QUADS) or 1 (LINES, which tgsi.rst says means isolines)
  is refused (E6001), as is a TESS_CTRL without ``TCS_VERTICES_OUT`` in [1, 32].
* Per-vertex inputs (``IN[v][a]``; every semantic but PATCH, TESSOUTER, TESSINNER, PRIMID, as
  Mesa's dumper decides) bind ``vertex.<semantic>`` arrays over the patch's vertices, as a
  geometry program's do.  A TESS_EVAL does not know its input patch size: the arrays hold the
  vertices the program names (the largest constant vertex index + 1), or gl_MaxPatchVertices
  (32) when it indexes a vertex with a register.
* Per-patch inputs: ``PATCH[n]`` is ``primitive.patch[n]`` (a ``patch in`` varying at location
  n), ``TESSOUTER``/``TESSINNER`` are ``primitive.tessouter``/``primitive.tessinner``
  (gl_TessLevelOuter[0..3] / gl_TessLevelInner[0..1] in x..w; TESSINNER's z and w, which
  tgsi.rst leaves undefined, read 0), ``PRIMID`` is ``primitive.id`` (gl_PrimitiveID).
  System values: ``TESSCOORD`` (x, y, z = gl_TessCoord; w, undefined in tgsi.rst, reads 0),
  ``VERTICESIN`` (gl_PatchVerticesIn), ``PRIMID``, ``INVOCATIONID`` (TESS_CTRL), and the tess
  levels again (Mesa declares them either way).
"""
from __future__ import annotations

from . import model as M
from ...ir.model import TCS_WRITTEN_PATH, Binding, Stage, Tessellation

#: gl_MaxPatchVertices' minimum (GL 4.5 Table 23.64): the patch size bound
MAX_PATCH_VERTICES = 32
#: gl_MaxTessPatchComponents' minimum is 120: 30 vec4 per-patch varyings
MAX_PATCH_VARYINGS = 30
#: TES_PRIM_MODE: PIPE_PRIM_* numbers (tgsi_dump prints the number, tgsi.md 1.3)
_PRIM_MODES = {4: "TRIANGLES", 7: "QUADS", 1: "ISOLINES"}
#: TES_SPACING: PIPE_TESS_SPACING_* numbers
_SPACINGS = {0: "FRACTIONAL_ODD", 1: "FRACTIONAL_EVEN", 2: "EQUAL"}
#: semantics whose TESS inputs (and TESS_CTRL outputs) are per patch, not per vertex
PATCH_SEMANTICS = frozenset({"PATCH", "TESSOUTER", "TESSINNER", "PRIMID", "PRIM_ID"})

#: system values of the tessellation stages -> binding path (lower_registers.system_value)
TESS_SYSTEM_VALUES = {
    (Stage.TESS_EVAL, "TESSCOORD"): "tess.coord",
    (Stage.TESS_EVAL, "VERTICESIN"): "primitive.verticesin",
    (Stage.TESS_CTRL, "VERTICESIN"): "primitive.verticesin",
    (Stage.TESS_EVAL, "PRIMID"): "primitive.id",
    (Stage.TESS_CTRL, "PRIMID"): "primitive.id",
    (Stage.TESS_CTRL, "INVOCATIONID"): "primitive.invocation",
    (Stage.TESS_EVAL, "TESSOUTER"): "primitive.tessouter",
    (Stage.TESS_EVAL, "TESSINNER"): "primitive.tessinner",
}


def _number(lw, p: M.Property) -> int | None:
    try:
        return int(p.value)
    except ValueError:
        lw.err("E6001", f"PROPERTY {p.name} {p.value} is not a number", p)
        return None


def tess_properties(lw, props: dict[str, M.Property]) -> Tessellation | None:
    """The Tessellation of a TESS_CTRL / TESS_EVAL program; errors E6001 (None)."""
    stage = lw.stage
    tess = Tessellation(patch_vertices=_addressed_vertices(lw.sh))
    for name in props:
        if name.startswith("TES_") and stage != Stage.TESS_EVAL or \
                name == "TCS_VERTICES_OUT" and stage != Stage.TESS_CTRL:
            lw.sink.warning("E6001", f"PROPERTY {name} has no effect in a {lw.sh.processor} "
                            "shader; ignored", lw.span(props[name]))
    if stage == Stage.TESS_CTRL:
        p = props.get("TCS_VERTICES_OUT")
        if p is None:
            lw.err("E6001", "a tessellation control shader needs PROPERTY TCS_VERTICES_OUT "
                   "(the output patch size)", None)
            return None
        n = _number(lw, p)
        if n is None:
            return None
        if not 1 <= n <= MAX_PATCH_VERTICES:
            lw.err("E6001", f"TCS_VERTICES_OUT {p.value} is outside [1, {MAX_PATCH_VERTICES}] "
                   "(gl_MaxPatchVertices)", p)
            return None
        tess.vertices_out = n
        return tess
    p = props.get("TES_PRIM_MODE")
    if p is None:
        lw.err("E6001", "a tessellation evaluation shader needs PROPERTY TES_PRIM_MODE (4 "
               "triangles, 7 quads or 1 isolines)", None)
        return None
    mode = _number(lw, p)
    if mode is None:
        return None
    if mode not in _PRIM_MODES:
        lw.err("E6001", f"TES_PRIM_MODE {p.value} is not a tessellation domain (4 triangles, "
               "7 quads or 1 isolines)", p)
        return None
    tess.primitive = _PRIM_MODES[mode]
    p = props.get("TES_SPACING")
    spacing = 0 if p is None else _number(lw, p)
    if spacing is None:
        return None
    if spacing not in _SPACINGS:
        lw.err("E6001", f"TES_SPACING {p.value} is not a spacing (0 fractional_odd, "
               "1 fractional_even, 2 equal)", p)
        return None
    tess.spacing = _SPACINGS[spacing]
    for name, attr in (("TES_VERTEX_ORDER_CW", "vertex_order_cw"), ("TES_POINT_MODE", "point_mode")):
        p = props.get(name)
        value = 0 if p is None else _number(lw, p)
        if value is None:
            return None
        if value not in (0, 1):
            lw.err("E6001", f"{name} {p.value} is not 0 or 1", p)
            return None
        setattr(tess, attr, bool(value))
    return tess


def _addressed_vertices(sh: M.Shader) -> int:
    """The vertices of the per-vertex inputs a program can address (module docstring)."""
    top = 0
    for ins in sh.instructions:
        for ref in [d.reg for d in ins.dsts] + [s.reg for s in ins.srcs]:
            if ref.file != "IN":
                continue
            if ref.dim_indirect is not None:
                return MAX_PATCH_VERTICES
            if ref.dim is not None:
                top = max(top, ref.dim + 1)
    return min(max(top, 1), MAX_PATCH_VERTICES)


def is_per_vertex(lw, file: str, index: int) -> bool:
    """Whether ``file[index]`` of a tessellation program is declared per vertex."""
    d = lw.decl_of.get((file, None, index))
    return d is not None and d.implicit_dim


def tess_binding(lw, file: str, d: M.Declaration, sem: str | None, i: int) -> Binding | None:
    """The binding of a TESS_CTRL / TESS_EVAL input or output the general tables do not
    give (None: the vertex-stage tables apply)."""
    if sem == "PRIM_ID":
        sem = "PRIMID"
    if file == "IN":
        if sem == "PATCH":
            if not 0 <= i < MAX_PATCH_VARYINGS:
                lw.reject("E7001", f"PATCH[{i}] is beyond the per-patch varyings (PATCH[0.."
                          f"{MAX_PATCH_VARYINGS - 1}], gl_MaxTessPatchComponents)")
            return Binding("primitive.patch", i)
        if sem == "TESSOUTER":
            return Binding("primitive.tessouter")
        if sem == "TESSINNER":
            return Binding("primitive.tessinner")
        if sem == "PSIZE":
            return Binding("vertex.pointsize")
        return None
    return None


# ---- TESS_CTRL outputs ---------------------------------------------------------------------------
#
# Readings chosen (tgsi.rst says nothing of them; GLSL 4.50 4.3.6 and Mesa's translation do):
#
# * A control-shader invocation writes only its own vertex of a per-vertex output: GLSL allows
#   gl_out / per-vertex outputs to be indexed only by gl_InvocationID, and Mesa's TGSI writes
#   them as OUT[ADDR[k].x][a] with ADDR[k].x loaded from the INVOCATIONID system value.  So a
#   per-vertex output operand is accepted written 1-D (OUT[a]: the own vertex) or 2-D through an
#   address register whose every write is UARL/MOV of INVOCATIONID.x (the same vertex); any
#   other vertex index is refused (E7001), as it cannot be expressed.
# * Reading what another invocation wrote (another vertex's output, or any per-patch output)
#   is defined only after a BARRIER (GLSL 4.50 4.3.6, 8.16): refused (E7001); xlate translates
#   control shaders whose invocations read only their own per-vertex outputs.
# * Per-patch outputs (TESSOUTER, TESSINNER, PATCH[n]) are shared by the patch's invocations: a
#   component takes the value of the invocation(s) that wrote it; never written it is undefined,
#   and so is one written by several invocations with different values (GLSL 4.50 4.3.6).  The
#   lowering keeps, per per-patch output, a written-components register (an OUTPUT bound to
#   ``tcs.written[j]``, all ones where the program wrote the component, under the write's own
#   condition): the GLSL epilogue stores only those components, and the executor's patch result
#   (xlate.exec.tess) combines the invocations by them.
# * TESSINNER has two levels (gl_TessLevelInner[0..1]): a write of its z or w is refused (E3005).

WRITTEN_PATH = TCS_WRITTEN_PATH
PER_PATCH_OUTPUT_PATHS = ("result.tessouter", "result.tessinner", "result.patch")


def tcs_output_binding(lw, sem: str | None, i: int) -> Binding | None:
    if sem == "TESSOUTER":
        return Binding("result.tessouter")
    if sem == "TESSINNER":
        return Binding("result.tessinner")
    if sem == "PATCH":
        if not 0 <= i < MAX_PATCH_VARYINGS:
            lw.reject("E7001", f"PATCH[{i}] is beyond the per-patch varyings (PATCH[0.."
                      f"{MAX_PATCH_VARYINGS - 1}], gl_MaxTessPatchComponents)")
        return Binding("result.patch", i)
    return None


def _invocation_registers(lw) -> set[tuple[str, int, int]]:
    """(file, index, component) of the address/temporary components that only ever hold the
    invocation id (every write is UARL/MOV of INVOCATIONID.x, unconditional)."""
    cache = lw.__dict__.get("_invocation_regs")
    if cache is not None:
        return cache
    inv = {d.first for d in lw.sh.declarations if d.file == "SV"
           and (d.semantic or "").upper() == "INVOCATIONID"}
    good: set[tuple[str, int, int]] = set()
    bad: set[tuple[str, int, int]] = set()
    for ins in lw.sh.instructions:
        for d in ins.dsts:
            if d.reg.file not in ("ADDR", "TEMP") or d.reg.indirect is not None:
                continue
            for c, on in enumerate(d.mask):
                if not on:
                    continue
                key = (d.reg.file, d.reg.index, c)
                s = ins.srcs[0] if ins.srcs else None
                copies = (ins.opcode in ("UARL", "MOV") and len(ins.srcs) == 1 and s is not None
                          and s.reg.file == "SV" and s.reg.index in inv
                          and s.reg.indirect is None and s.swizzle[c] == 0 and not s.neg
                          and not s.abs and ins.saturate == "" and d.cond is None
                          and ins.cond is None)
                (good if copies else bad).add(key)
    lw._invocation_regs = good - bad
    return lw._invocation_regs


def _own_vertex(lw, ref: M.RegRef) -> bool:
    if ref.dim is None and ref.dim_indirect is None:
        return True
    ind = ref.dim_indirect
    return ind is not None and (ref.dim or 0) == 0 and \
        (ind.file, ind.index, ind.comp) in _invocation_registers(lw)


def tcs_output_ref(lw, ref: M.RegRef, write: bool) -> tuple[str, None, None]:
    """The IR register of a TESS_CTRL output operand (the readings above)."""
    if ref.indirect is not None:
        lw.reject("E7001", "relative addressing of TESS_CTRL outputs (OUT[ADDR..]) is not "
                  "supported")
    a = ref.index
    if not is_per_vertex(lw, "OUT", a):
        if ref.dim is not None or ref.dim_indirect is not None:
            lw.reject("E3004", f"OUT[{a}] is a per-patch output of a TESS_CTRL shader: it has "
                      "no vertex index")
        if not write:
            lw.reject("E7001", f"reading the per-patch output OUT[{a}]: another invocation may "
                      "write it, which only a BARRIER orders (not translated in TESS_CTRL shaders)")
        return lw.output_reg(a), None, None
    if not _own_vertex(lw, ref):
        lw.reject("E7001", f"OUT[..][{a}] names a vertex that is not provably the invocation's "
                  "own: a TESS_CTRL invocation writes only gl_out[gl_InvocationID], and reads "
                  "of other vertices need a BARRIER (not translated); index it by an ADDR "
                  "loaded from the INVOCATIONID system value")
    if lw.out_read:
        return lw.temp_like(f"OUT{a}_v"), None, None
    return lw.output_reg(a), None, None


def tcs_mark_written(lw, reg: str, d: M.Dst, cond) -> None:
    """Before a write of a per-patch output: the written-components register of it."""
    from ...ir.model import DataType, Dest, Instruction, RegKind, Register, Source
    out = lw.regs.get(reg)
    if out is None or out.kind != RegKind.OUTPUT or not out.bindings \
            or out.bindings[0].path not in PER_PATCH_OUTPUT_PATHS:
        return
    if out.bindings[0].path == "result.tessinner" and (d.mask[2] or d.mask[3]):
        lw.reject("E3005", f"OUT[{d.reg.index}] is TESSINNER: it has two levels "
                  "(gl_TessLevelInner[0..1]), so z and w cannot be written")
    flags = lw.tessellation.written if lw.tessellation is not None else {}
    name = reg + "_w"
    if name not in lw.regs:
        j = flags.setdefault(out.bindings[0].text(), len(flags))
        lw.regs[name] = Register(name, RegKind.OUTPUT, DataType.UINT, None,
                                 (Binding(WRITTEN_PATH, j),))
    ones = lw.const((0xFFFFFFFF,) * 4)
    ins = Instruction("MOV", DataType.UINT, Dest(name, None, tuple(d.mask), cond),
                      (Source(ones),))
    ins.span = lw.span()
    lw.out.append(ins)
