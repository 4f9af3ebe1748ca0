"""NV_gpu_program4 family frontend: ``!!NVvp4.0``, ``!!NVfp4.0``, ``!!NVgp4.0`` (+ PBO).

Turns the statement AST into the IR, checking every load-time rule the specs define (GP4
2.X.2-2.X.8, VP4, FP4, GEO4, PBO).  All errors of a file are reported.

Dialect quirks removed here (so later stages need not know them):
* glued suffixes (``MOVR``, ``ADDC_SAT``) and dot modifiers become instruction fields;
* a label starts a new subroutine (GP4 2.X.8.Z CAL: reaching a label ends a called subroutine;
  nv_dialects.md section 12 item 29 for main): an explicit ``RET`` is inserted before each label
  that can be reached by falling through;
* literal constants get the bits of the type that reads them (GP4 2.X.3.3);
* condition-code updates get their flag rule (CCKind), including the rule that an ``ADD`` with a
  negated operand is a subtraction for carry purposes (GP4 issue 23);
* ``BRK NE.x`` and ``BRK (NE.x)`` (both seen: spec text vs BNF) become the same condition.
"""
from __future__ import annotations

import re
import struct

from ...diagnostics import DiagnosticSink, Span
from ...ir.model import (Binding, CCKind, CondTest, DataType, Dest, Geometry, Index, Instruction,
                         Program, Register, RegKind, Sat, Source, Stage, TexRef, VarInfo)
from ...ir.carry import instruction_carry
from ...ir.ops import CARRY_OPS, CC_RULES, LEGACY_OPCODES, OPCODES, TEX_TARGETS, TGSI_OPCODES
from ...ir.limits import MAX_OUTPUT_VERTICES, MAX_TOTAL_OUTPUT_COMPONENTS, result_components
from . import bindings as B
from .syntax import (CCTestNode, Decl, IndexConst, IndexRange, IndexRel, Instr, Label, Member,
                     Number, Operand, Ref, Subscript)

STAGE_OF_HEADER = {"!!NVvp4.0": Stage.VERTEX, "!!NVfp4.0": Stage.FRAGMENT, "!!NVgp4.0": Stage.GEOMETRY}

# opcodes only the older dialects have (xlate.ir.ops.LEGACY_OPCODES) are not NV4 mnemonics
_COMMON_OPS = (frozenset(OPCODES) - {"DDX", "DDY", "KIL", "EMIT", "ENDPRIM"} - LEGACY_OPCODES
               - TGSI_OPCODES)
STAGE_OPS = {
    Stage.VERTEX: _COMMON_OPS,
    Stage.FRAGMENT: _COMMON_OPS | {"DDX", "DDY", "KIL"},
    Stage.GEOMETRY: _COMMON_OPS | {"EMIT", "ENDPRIM"},
}
# GP4 Table X.13 has no "S" (clamping) mark for these; xlate.ir.ops lists S for them, which is
# harmless for the integer results but would let I2F.SAT (a float result) through.
NO_CLAMP_OPS = frozenset({"AND", "I2F", "MOD", "NOT", "OR", "SAD", "SHL", "SHR", "XOR"})
# opcodes of older dialects that NV4 removed (GP4 issue 2) - named in the diagnostic
REMOVED_OPS = {"ARL", "ARR", "ARA", "BRA", "EXP", "LOG", "LOOP", "ENDLOOP", "PUSHA", "POPA"}

OPTIONS = {
    Stage.VERTEX: {"ARB_position_invariant"},
    Stage.FRAGMENT: {"ARB_fog_exp", "ARB_fog_exp2", "ARB_fog_linear", "ARB_precision_hint_fastest",
                     "ARB_precision_hint_nicest", "ARB_draw_buffers", "ATI_draw_buffers",
                     "ARB_fragment_program_shadow"},
    Stage.GEOMETRY: set(),
}

RESERVED = {"ATTRIB", "PARAM", "TEMP", "OUTPUT", "ALIAS", "BUFFER", "BUFFER4", "END", "OPTION",
            "fragment", "vertex", "primitive", "program", "result", "state", "texture", "INT",
            "UINT", "FLOAT", "SHORT", "LONG", "FLAT", "CENTROID", "NOPERSPECTIVE", "PRIMITIVE_IN",
            "PRIMITIVE_OUT", "VERTICES_OUT"} | (set(OPCODES) - LEGACY_OPCODES - TGSI_OPCODES)

# GP4 2.X.2: "fragment" is reserved for fragment programs only, "vertex" for vertex and
# geometry programs, "primitive" for fragment and geometry programs; elsewhere they are names.
STAGE_FREE_WORDS = {Stage.VERTEX: {"fragment", "primitive"}, Stage.FRAGMENT: {"vertex"},
                    Stage.GEOMETRY: {"fragment"}}

_MOD_CATEGORY = {"F": "type", "U": "type", "S": "type", "CC": "cc", "CC0": "cc", "CC1": "cc",
                 "SAT": "sat", "SSAT": "sat", "NTC": "ntc", "S24": "mul", "U24": "mul", "HI": "mul"}
_GLUED = re.compile(r"^(R|H)?(C0|C1|C)?(_SAT|_SSAT)?$")
_TYPE_OF_MOD = {"F": DataType.FLOAT, "S": DataType.INT, "U": DataType.UINT}
_SWZ = {c: i for i, c in enumerate("xyzw")} | {c: i for i, c in enumerate("rgba")}
# Valid opcode spellings, swizzles and write masks already decoded (invalid ones are never
# stored: they report their error every time).  Bounded by the valid spellings; shared by all
# programs and threads (a dict item assignment is atomic; a race only decodes twice).
_SPLIT_OPCODES: dict[tuple[Stage, str], tuple] = {}
_SWIZZLES: dict[tuple[str, bool], tuple[int, int, int, int]] = {}
_MASKS: dict[str, tuple[bool, bool, bool, bool]] = {}
IDENTITY = (0, 1, 2, 3)
FULL_MASK = (True, True, True, True)
MAX_IF_DEPTH = 48
MAX_LOOP_DEPTH = 4
TEXEL_OFFSET_RANGE = (-8, 7)
TARGET_DIMS = {"1D": 1, "2D": 2, "3D": 3, "CUBE": 3, "RECT": 2, "SHADOW1D": 1, "SHADOW2D": 2,
               "SHADOWRECT": 2, "ARRAY1D": 1, "ARRAY2D": 2, "SHADOWCUBE": 3, "SHADOWARRAY1D": 1,
               "SHADOWARRAY2D": 2, "BUFFER": 1}
PRIMITIVES_IN = ("POINTS", "LINES", "LINES_ADJACENCY", "TRIANGLES", "TRIANGLES_ADJACENCY")
PRIMITIVES_OUT = ("POINTS", "LINE_STRIP", "TRIANGLE_STRIP")
MAX_VERTICES_OUT = MAX_OUTPUT_VERTICES      # MAX_PROGRAM_OUTPUT_VERTICES_NV (ir/limits.py)
PBO_WORDS = 4096          # words per parameter buffer when a BUFFER binds a whole buffer


class _Skip(Exception):
    """Abandon the current statement after a diagnostic was reported."""


def f32_bits(value: float) -> int:
    return struct.unpack("<I", struct.pack("<f", value))[0]


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


def _glued_modifier(suffix: str) -> str:
    """A glued condition-code or saturation suffix as its dotted modifier: "C0" -> "CC0",
    "_SAT" -> "SAT"."""
    return suffix.lstrip("_").replace("C0", "CC0").replace("C1", "CC1")


class NV4Builder:
    def __init__(self, header: str, sink: DiagnosticSink):
        self.stage = STAGE_OF_HEADER[header]
        self.sink = sink
        self.prog = Program(self.stage, header[2:], source_name=sink.file)
        self.names: dict[str, Register] = {}
        self.aliases: dict[str, str] = {}
        # result binding -> the register (and element) holding it: an OUTPUT variable and a
        # direct "result.*" write of the same binding are one storage, as in the GLSL interface
        # (two registers would leave the executor with two copies of one result)
        self.output_at: dict[Binding, tuple[Register, int | None]] = {}
        self.consts: dict[tuple, str] = {}
        self.tex_targets: dict[int, tuple[str, Span]] = {}
        self.label_spans: dict[str, Span] = {}
        self.blocks: list[tuple[str, object, Span]] = []   # open IF / REP blocks: (kind, state, span)
        # how many blocks of each kind are open (push_block/pop_block keep it): the depth checks
        # and BRK/CONT stay O(1) however deep the nesting (10,000 IFs were quadratic)
        self.open_blocks: dict[str, int] = {}
        self.too_deep: set[str] = set()    # nesting limits already reported (E4005 once each)
        self.calls: list[tuple[str, Span]] = []
        self.seen_statement = False
        self.seen_body = False          # an instruction, label or variable declaration was seen
        self.geom_attempted: dict[str, Span] = {}
        self.options: list[str] = []
        self.geom: dict[str, tuple[object, Span]] = {}
        self.poisoned: set[str] = set()
        self.attrib_slots: dict[int, tuple[bool, Binding, Span]] = {}   # VP4 aliasing pairs
        self.interp_of: dict[tuple, tuple[str | None, str, Binding]] = {}  # FP4 per attribute
        self.relative_arrays: set[str] = set()
        self.relative_owner: dict[Binding, str] = {}

    # ---- entry -------------------------------------------------------------------------------
    def build(self, statements: list) -> Program:
        for st in statements:
            try:
                if isinstance(st, Instr):
                    self.instruction(st)
                elif isinstance(st, Decl):
                    try:
                        self.declaration(st)
                    except _Skip:
                        # remember the names so their uses do not cascade into "undeclared"
                        self.poisoned.update(n for n, _, _ in st.names if n not in self.names)
                        raise
                elif isinstance(st, Label):
                    self.label(st)
            except _Skip:
                pass
        self.finish()
        return self.prog

    def err(self, code: str, msg: str, span: Span | None, *notes: str):
        self.sink.error(code, msg, span, *notes)
        raise _Skip

    # ---- declarations --------------------------------------------------------------------------
    def declaration(self, d: Decl) -> None:
        if d.kind == "OPTION":
            return self.option(d)
        self.seen_statement = True
        if d.kind in ("PRIMITIVE_IN", "PRIMITIVE_OUT", "VERTICES_OUT"):
            return self.geometry_decl(d)
        self.seen_body = True
        if d.kind == "ADDRESS":
            self.err("E1002", "ADDRESS declarations do not exist in NV_gpu_program4; index arrays "
                     "with a component of an INT TEMP instead", d.span)
        if d.kind == "ALIAS":
            name, span, _ = d.names[0]
            target = d.target[0]
            if d.init:
                # GP4 <ALIAS_statement> ::= "ALIAS" <establishName> "=" <establishedName>: a
                # name, never a binding (ARBvp's compatibility reading E2016 is not extended to
                # the NV4 family, whose drivers never documented it)
                self.err("E1002", "the right-hand side of ALIAS must be a declared name, not a "
                         "binding or a component (GP4 2.X.3.8)", d.init[0].selectors[0].span)
            self.check_new_name(name, span)
            if self.lookup(target) is None:
                self.err("E2003", f"ALIAS of undeclared name '{target}'", d.target[1])
            self.aliases[name] = self.aliases.get(target, target)
            return
        dtype, precision, interp = self.var_mods(d)
        if d.kind == "TEMP":
            if interp:
                self.err("E2008", f"{interp} only applies to fragment ATTRIB declarations", d.span)
            for name, span, size in d.names:
                self.check_new_name(name, span)
                if size is not None and size <= 0:
                    self.sink.error("E2006", "array size must be positive", span)
                    continue
                self.add_var(Register(name, RegKind.TEMP, dtype, size, precision=precision, span=span))
            return
        if precision == "LONG" or (precision == "SHORT" and d.kind != "OUTPUT"):
            self.err("E2008", f"{precision} is not allowed on {d.kind} declarations (GP4 2.X.3.1)",
                     next(sp for m, sp in d.mods if m == precision))
        name, span, _ = d.names[0]
        self.check_new_name(name, span)
        if d.array and not d.init_is_list:
            # GP4 2.X.2 <paramMultipleInit>, <bufferMultInit>: an array is initialized with a
            # braced list ("PARAM p[] = { program.local[0..3] };")
            self.err("E1002", f"the array '{name}' needs a braced initializer list: "
                     f"'{name}[] = {{ ... }}'", span)
        if d.kind == "PARAM":
            reg = self.param_decl(d, name, span, dtype)
        elif d.kind in ("ATTRIB", "OUTPUT"):
            reg = self.interface_decl(d, name, span, dtype, interp)
        else:
            reg = self.buffer_decl(d, name, span, dtype)
        reg.precision = precision
        self.add_var(reg)

    def option(self, d: Decl) -> None:
        name, span = d.target
        if self.seen_statement:
            self.err("E2011", "OPTION statements must come before every other statement", d.span)
        if name not in OPTIONS[self.stage]:
            allowed = ", ".join(sorted(OPTIONS[self.stage])) or "none"
            self.err("E2011", f"unknown option '{name}' for this program type (allowed: {allowed})",
                     span)
        fog = [o for o in self.options if o.startswith("ARB_fog")]
        if name.startswith("ARB_fog") and fog:
            self.err("E2011", f"option '{name}' conflicts with '{fog[0]}'", span)
        hints = {"ARB_precision_hint_fastest", "ARB_precision_hint_nicest"}
        if name in hints and (hints - {name}) & set(self.options):
            self.err("E2011", "both precision hints given", span)
        self.options.append(name)

    def geometry_decl(self, d: Decl) -> None:
        if self.stage != Stage.GEOMETRY:
            self.err("E2004", f"{d.kind} is only allowed in geometry programs", d.span)
        if d.kind in self.geom_attempted:
            self.err("E6002", f"{d.kind} declared twice", d.span,
                     f"first declared at {self.geom_attempted[d.kind]}")
        # an invalid value is reported below; remember the attempt so that finish() does not
        # also report the declaration as missing
        self.geom_attempted[d.kind] = d.span
        if self.seen_body:
            # GEO4 2.X.2: <program> ::= <optionSequence> <declSequence> <statementSequence>
            self.err("E1002", f"{d.kind} must come before every instruction, label and variable "
                     "declaration (GEO4 2.X.2)", d.span)
        if d.kind == "VERTICES_OUT":
            text = d.number.text
            if not re.fullmatch(r"[0-9]+", text) or not 0 < int(text) <= MAX_VERTICES_OUT:
                self.err("E6001", f"VERTICES_OUT must be an integer in [1, {MAX_VERTICES_OUT}] "
                         "(MAX_PROGRAM_OUTPUT_VERTICES_NV, GEO4 2.14.6.4)", d.number.span)
            self.geom[d.kind] = (int(text), d.number.span)
            return
        value, vspan = d.target
        allowed = PRIMITIVES_IN if d.kind == "PRIMITIVE_IN" else PRIMITIVES_OUT
        if value not in allowed:
            self.err("E6001", f"invalid {d.kind} '{value}' (expected one of: {', '.join(allowed)})",
                     vspan)
        self.geom[d.kind] = (value, d.span)

    def var_mods(self, d: Decl):
        dtype, precision, interp = DataType.NONE, None, None
        seen: dict[str, Span] = {}
        interps: list[str] = []
        for mod, span in d.mods:
            cat = {"INT": "type", "UINT": "type", "FLOAT": "type", "SHORT": "size", "LONG": "size",
                   "FLAT": "interp", "CENTROID": "interp", "NOPERSPECTIVE": "interp"}[mod]
            if cat == "interp":
                # FP4 2.X.3.1: one modifier may not be repeated, and FLAT may not be combined
                # with CENTROID or NOPERSPECTIVE; CENTROID NOPERSPECTIVE (either order) is legal
                # (FP4 issue 1 declares "CENTROID NOPERSPECTIVE ATTRIB attribs[3] = ...").
                if mod in interps:
                    self.err("E2008", f"interpolation modifier {mod} given twice", span)
                if interps and "FLAT" in interps + [mod]:
                    self.err("E2008", "FLAT cannot be combined with CENTROID or NOPERSPECTIVE", span)
                interps.append(mod)
                # canonical spelling (the backends read "CENTROID NOPERSPECTIVE")
                interp = " ".join(m for m in ("FLAT", "CENTROID", "NOPERSPECTIVE") if m in interps)
                continue
            if cat in seen:
                self.err("E2008", f"more than one {'data type' if cat == 'type' else cat} modifier",
                         span)
            seen[cat] = span
            if cat == "type":
                dtype = {"INT": DataType.INT, "UINT": DataType.UINT, "FLOAT": DataType.FLOAT}[mod]
            else:
                precision = mod
        if interp and (d.kind != "ATTRIB" or self.stage != Stage.FRAGMENT):
            self.err("E2008", "interpolation modifiers only apply to fragment program ATTRIB "
                     "declarations (FP4 2.X.3.1)",
                     next(sp for m, sp in d.mods if m in ("FLAT", "CENTROID", "NOPERSPECTIVE")))
        return dtype, precision, interp

    def check_new_name(self, name: str, span: Span) -> None:
        if name in RESERVED and name not in STAGE_FREE_WORDS[self.stage]:
            self.err("E2002", f"'{name}' is a reserved word", span)
        if name in self.names or name in self.aliases:
            prev = self.names.get(name)
            notes = (f"previous declaration at {prev.span}",) if prev is not None and prev.span else ()
            self.err("E2001", f"'{name}' is already declared", span, *notes)

    def add_var(self, reg: Register) -> None:
        if reg.kind == RegKind.OUTPUT:
            held = self.output_at.get(reg.bindings[0]) if reg.size is None else None
            if held is not None and held[1] is None and held[0].dtype == reg.dtype:
                # a second name for a result already declared or written: the same register
                self.names[reg.name] = held[0]
                return
            for k, b in enumerate(reg.bindings):
                self.output_at.setdefault(b, (reg, k if reg.size is not None else None))
        self.names[reg.name] = reg
        self.prog.registers[reg.name] = reg

    def lookup(self, name: str) -> Register | None:
        return self.names.get(self.aliases.get(name, name))

    def param_decl(self, d: Decl, name: str, span: Span, dtype: DataType) -> Register:
        items = d.init
        elems_bind: list[Binding | None] = []
        elems_val: list[tuple[int, int, int, int] | None] = []
        ptype = dtype if dtype != DataType.NONE else DataType.FLOAT
        if not d.array:
            if d.init_is_list:        # PARAM c = {1, 2, 3, 4};
                if not all(isinstance(i, Number) for i in items):
                    self.err("E2007", "a single PARAM takes one binding or one constant vector; "
                             "declare an array with [] for a list", span)
                elems_bind.append(None)
                elems_val.append(self.const_words(items, ptype))
            else:
                item = items[0]
                bind, vals = self.param_item(item, ptype)
                if len(bind) != 1:
                    self.err("E2005", f"PARAM '{name}' is not an array but its binding has "
                             f"{len(bind)} elements; declare it as '{name}[]'", span)
                elems_bind, elems_val = bind, vals
            return Register(name, RegKind.PARAM, dtype, None, tuple(elems_bind),
                            tuple(v or (0, 0, 0, 0) for v in elems_val), span=span)
        if not d.init_is_list and len(items) == 1 and isinstance(items[0], list):
            # "PARAM a[] = {1, 2, 3};" parses as one constant vector, but in an array
            # declaration each scalar is an element (GP4 <paramMultipleInit>)
            items = items[0]
        for item in items:
            bind, vals = self.param_item(item, ptype)
            elems_bind += bind
            elems_val += vals
        return self.sized_array(d, name, span, RegKind.PARAM, dtype, elems_bind,
                                tuple(v or (0, 0, 0, 0) for v in elems_val))

    def sized_array(self, d: Decl, name: str, span: Span, kind: RegKind, dtype: DataType,
                    binds: list, values=None, **kw) -> Register:
        if d.size is not None and d.size != len(binds):
            self.err("E2005", f"'{name}' is declared with {d.size} elements but bound to "
                     f"{len(binds)}", span)
        if not binds:
            self.err("E2005", f"array '{name}' has no elements", span)
        return Register(name, kind, dtype, len(binds), tuple(binds), values, span=span, **kw)

    def param_item(self, item, ptype: DataType):
        if isinstance(item, Ref):
            if item.name not in ("program", "state"):
                self.err("E2004", f"'{item.name}' is not a program parameter binding "
                         "(expected program.local, program.env, state.* or a constant)", item.span)
            root = B.PROGRAM if item.name == "program" else B.STATE
            res = self.resolve(item, root, decl=True)
            if res.bindings[0].path == "program.buffer":    # GP4 2.X.3.6 (before the selectors:
                # "program.buffer[0][1]" has one selector left that is not the problem)
                self.err("E2004", "program.buffer can only be bound by BUFFER/BUFFER4", item.span)
            if res.rest:
                self.err("E2004", "unexpected selector after a parameter binding", res.rest[0].span)
            return list(res.bindings), [None] * len(res.bindings)
        if isinstance(item, list):      # constant vector
            return [None], [self.const_words(item, ptype)]
        return [None], [self.const_words([item] * 4, ptype)]   # scalar: replicated

    def interface_decl(self, d: Decl, name: str, span: Span, dtype: DataType, interp):
        kind = RegKind.INPUT if d.kind == "ATTRIB" else RegKind.OUTPUT
        items = d.init
        if d.init_is_list and not d.array:
            self.err("E2007", f"a list initializer needs an array declaration ('{name}[]')", span)
        binds: list[Binding] = []
        per_vertex = None
        for item in items:
            if not isinstance(item, Ref):
                self.err("E2004", f"{d.kind} must be bound to a {'vertex/fragment' if kind == RegKind.INPUT else 'result'} binding",
                         getattr(item, "span", span))
            res = self.resolve_interface(item, kind, decl=True)
            if res.rest:
                self.err("E2004", "unexpected selector after the binding", res.rest[0].span)
            pv = self.stage == Stage.GEOMETRY and item.name == "vertex" and res.vertex_index is None
            if per_vertex is not None and pv != per_vertex:
                self.err("E2004", "cannot mix per-vertex and single-vertex bindings in one array", item.span)
            per_vertex = pv
            if res.vertex_index is not None:
                v = self.vertex_number(res.vertex_index)
                binds += [Binding(b.path, b.index, b.index2, v) for b in res.bindings]
            else:
                binds += res.bindings
            if res.integer and dtype == DataType.NONE:
                pass  # integer bindings stay typeless; readers choose .S/.U
        if kind == RegKind.OUTPUT and self.stage == Stage.FRAGMENT and (d.array or len(binds) > 1):
            self.err("E2007", "fragment program results cannot be arrays (FP4 2.X.3.5)", span)
        if interp and self.stage == Stage.FRAGMENT:
            for b in binds:
                if b.path in ("fragment.position", "fragment.facing", "fragment.fogcoord", "fragment.clip"):
                    self.err("E2008", f"interpolation modifiers are not allowed on '{b.path}'", span)
        if self.stage == Stage.FRAGMENT and kind == RegKind.INPUT and dtype in (DataType.INT, DataType.UINT):
            if interp != "FLAT":
                self.err("E2008", "integer fragment attributes must be declared FLAT (FP4 2.X.3.1)", span)
        if interp is not None or (self.stage == Stage.FRAGMENT and kind == RegKind.INPUT):
            self.check_interpolation(binds, interp, name, span)
        if d.array:
            for prev, b in zip(binds, binds[1:]):
                if b.path != binds[0].path:
                    self.err("E2004", "array bindings must all be of the same kind", span)
                # GP4 2.X.3.2 / 2.X.3.5: attribute and result array bindings "must increase
                # consecutively" ("vertex.attrib[1], vertex.attrib[3]  # invalid")
                if b.vertex != prev.vertex or prev.index is None or b.index != prev.index + 1:
                    self.err("E2004", f"array bindings must increase consecutively: "
                             f"'{b.text()}' cannot follow '{prev.text()}'", span)
            return self.sized_array(d, name, span, kind, dtype, binds, interpolation=interp,
                                    per_vertex=bool(per_vertex))
        if len(binds) != 1:
            self.err("E2005", f"'{name}' is not an array but its binding has {len(binds)} elements",
                     span)
        return Register(name, kind, dtype, None, tuple(binds), interpolation=interp,
                        per_vertex=bool(per_vertex), span=span)

    def buffer_decl(self, d: Decl, name: str, span: Span, dtype: DataType) -> Register:
        vec4 = d.kind == "BUFFER4"
        whole_size = PBO_WORDS // (4 if vec4 else 1)
        # GP4 2.X.2 <bufferMultInitList> takes a list of bindings; GP4 2.X.3.6: "all bindings
        # assigned to the array must use the same binding point and must increase
        # consecutively".  Each item: (binding point, first element, count or None = whole).
        parts = [self.buffer_item(d, item) for item in d.init]
        buf, start, count = parts[0][0], parts[0][1], parts[0][2]
        whole = count is None
        if len(parts) > 1:
            for (b, first, n, ispan) in parts[1:]:
                if whole or n is None:
                    self.err("E2004", "a whole-buffer binding 'program.buffer[a]' cannot be "
                             "combined with other bindings in one array", ispan)
                if b != buf or first != start + count:
                    self.err("E2004", f"buffer array bindings must use one binding point and "
                             f"increase consecutively (expected program.buffer[{buf}]"
                             f"[{start + count}])", ispan)
                count += n
        for other in self.names.values():
            if other.kind == RegKind.BUFFER and other.bindings[0].index == buf and other.buffer_vec4 != vec4:
                self.err("E2012", f"program.buffer[{buf}] is bound both as BUFFER and BUFFER4",
                         span, f"other binding: '{other.name}' at {other.span}")
        if not whole and d.size is not None and d.size != count:
            self.err("E2005", f"'{name}' is declared with {d.size} elements but bound to {count}", span)
        if whole:
            count = d.size if d.size is not None else whole_size
        if not d.array and count != 1:
            what = "a whole buffer" if whole else f"{count} elements"
            self.err("E2007", f"'{name}' binds {what}; declare it as an array '{name}[]'", span)
        return Register(name, RegKind.BUFFER, dtype, count if d.array else None,
                        (Binding("program.buffer", buf, start),), buffer_vec4=vec4, span=span)

    def buffer_item(self, d: Decl, ref) -> tuple[int, int, int | None, Span]:
        """One ``program.buffer[a]``, ``[a][b]`` or ``[a][b..c]`` initializer item."""
        if not isinstance(ref, Ref) or ref.name != "program":
            self.err("E2004", f"{d.kind} must be bound to program.buffer[n]",
                     getattr(ref, "span", d.names[0][1]))
        res = self.resolve(ref, B.PROGRAM, decl=True)
        b = res.bindings
        if b[0].path != "program.buffer":
            self.err("E2004", f"{d.kind} must be bound to program.buffer[n]", ref.span)
        buf = b[0].index
        count: int | None
        if res.rest and isinstance(res.rest[0], Subscript):
            idx = res.rest[0].index
            if isinstance(idx, IndexConst):
                start, count = idx.value, 1
            elif isinstance(idx, IndexRange):
                if idx.first > idx.last:
                    self.err("E2006", f"empty range [{idx.first}..{idx.last}]", idx.span)
                start, count = idx.first, idx.last - idx.first + 1
            else:
                self.err("E2010", "buffer bindings cannot be indexed relatively", idx.span)
            rest = res.rest[1:]
        else:
            start, count = 0, None
            rest = res.rest
        if rest:
            self.err("E2004", "unexpected selector after the buffer binding", rest[0].span)
        return buf, start, count, ref.span

    def vertex_number(self, sub: Subscript) -> int:
        idx = sub.index
        if not isinstance(idx, IndexConst):
            self.err("E6003", "the vertex number of a binding must be a constant; declare a "
                     "per-vertex ATTRIB variable to index it", sub.span)
        nverts = self.input_vertices()
        if nverts is not None and idx.value >= nverts:
            self.err("E6003", f"vertex {idx.value} does not exist: the input primitive has "
                     f"{nverts} vertices", sub.span)
        return idx.value

    def input_vertices(self) -> int | None:
        prim = self.geom.get("PRIMITIVE_IN")
        if prim is None:
            return None
        return Geometry(prim[0], "POINTS", 1).input_vertices

    # ---- binding resolution ----------------------------------------------------------------------
    def resolve(self, ref: Ref, root: B.Node, decl: bool, geometry_vertex=False) -> B.Resolved:
        try:
            return B.resolve(ref.name, root, ref.selectors, ref.span, decl=decl,
                             geometry_vertex=geometry_vertex)
        except B.BindingError as e:
            self.err(e.code, str(e), e.span)

    def resolve_interface(self, ref: Ref, kind: RegKind, decl: bool) -> B.Resolved:
        if kind == RegKind.INPUT:
            roots = B.input_roots(self.stage)
            if ref.name not in roots:
                self.err("E2004", f"'{ref.name}' is not an attribute binding of a {self.stage.value} "
                         f"program (expected {' or '.join(sorted(r + '.*' for r in roots))})", ref.span)
            res = self.resolve(ref, roots[ref.name], decl,
                               geometry_vertex=self.stage == Stage.GEOMETRY and ref.name == "vertex")
            if self.stage == Stage.VERTEX:
                self.check_attribute_aliasing(res.bindings, ref.span)
            return res
        if ref.name != "result":
            self.err("E2004", f"'{ref.name}' is not a result binding (expected result.*)", ref.span)
        res = self.resolve(ref, B.result_root(self.stage), decl)
        path = res.bindings[0].path
        if self.stage == Stage.FRAGMENT and path == "result.color":
            # FP4 2.X.6.Y: without ARB_draw_buffers/ATI_draw_buffers "a fragment program that
            # attempts to bind result.color[n] will fail to load"
            sub = next((s for s in ref.selectors if isinstance(s, Subscript)), None)
            if sub is not None and not {"ARB_draw_buffers", "ATI_draw_buffers"} & set(self.options):
                self.err("E2004", "result.color[n] needs 'OPTION ARB_draw_buffers;' (FP4 2.X.6.Y)",
                         sub.span)
        if (self.stage == Stage.VERTEX and path == "result.position"
                and "ARB_position_invariant" in self.options):
            # VP4 2.X.6.Y: position-invariant programs "can no longer declare (explicitly or
            # implicitly) a result variable bound to result.position"
            self.err("E2004", "result.position cannot be used with OPTION ARB_position_invariant",
                     ref.span)
        return res

    # VP4 Table X.X "Invalid Vertex Attribute Binding Pairs": conventional -> generic slot
    _GENERIC_SLOT = {"vertex.position": 0, "vertex.normal": 2, "vertex.color": 3,
                     "vertex.color.secondary": 4, "vertex.fogcoord": 5}

    def check_attribute_aliasing(self, binds: list[Binding], span: Span) -> None:
        """VP4 2.X.3.2: a vertex program may not bind both a conventional attribute and the
        generic attribute it aliases (vertex.position / vertex.attrib[0], ...)."""
        for b in binds:
            if b.path == "vertex.attrib":
                slot, generic = b.index, True
            elif b.path == "vertex.texcoord":
                slot, generic = 8 + b.index, False
            elif b.path in self._GENERIC_SLOT:
                slot, generic = self._GENERIC_SLOT[b.path], False
            else:
                continue
            prev = self.attrib_slots.setdefault(slot, (generic, b, span))
            if prev[0] != generic:
                self.err("E2013", f"'{b.text()}' and '{prev[1].text()}' are the same vertex "
                         "attribute; a program may bind only one of them (VP4 2.X.3.2)", span,
                         f"'{prev[1].text()}' used at {prev[2]}")

    def check_interpolation(self, binds: list[Binding], interp: str | None, name: str,
                            span: Span) -> None:
        """FP4 2.X.3.1: a program fails to load "if multiple attribute variables with different
        interpolation modifiers are bound to the same fragment attribute", or to the primary
        and the secondary color."""
        for b in binds:
            key = ("fragment.color",) if b.path.startswith("fragment.color") else (b.path, b.index)
            prev = self.interp_of.setdefault(key, (interp, name, b))
            if prev[0] != interp:
                self.err("E2008", f"'{name}' binds '{b.text()}' with interpolation "
                         f"{interp or 'default'}, but '{prev[1]}' binds '{prev[2].text()}' with "
                         f"{prev[0] or 'default'} (FP4 2.X.3.1)", span)

    # ---- constants -------------------------------------------------------------------------------
    def number_words(self, num: Number, dtype: DataType) -> int:
        text = num.text
        is_hex = text[:2] in ("0x", "0X")
        is_int = is_hex or re.fullmatch(r"[0-9]+", text) is not None
        if dtype == DataType.FLOAT:
            value = float(int(text, 16)) if is_hex else float(text)
            if num.negative:
                value = -value
            try:
                return f32_bits(value)
            except OverflowError:
                return f32_bits(float("-inf") if value < 0 else float("inf"))
        if not is_int:
            self.err("E2009", f"'{text}' is not an integer, but the operand is {dtype.name.lower()}",
                     num.span)
        value = int(text, 16) if is_hex else int(text)
        if dtype == DataType.UINT:
            if num.negative:
                self.err("E2009", f"negative constant -{text} for an unsigned operand", num.span)
            if value > 0xFFFFFFFF:
                self.err("E2009", f"constant {text} does not fit in 32 bits", num.span)
            return value
        if num.negative:
            value = -value
        if is_hex and value > 0x7FFFFFFF and not num.negative and value <= 0xFFFFFFFF:
            return value                      # hex spells raw bits
        if not -(1 << 31) <= value <= 0x7FFFFFFF:
            self.err("E2009", f"constant {'-' if num.negative else ''}{text} does not fit in a signed "
                     "32-bit integer", num.span)
        return value & 0xFFFFFFFF

    def const_words(self, nums: list[Number], dtype: DataType) -> tuple[int, int, int, int]:
        if len(nums) > 4:
            self.err("E1007", "a constant vector has at most 4 components", nums[4].span)
        words = [self.number_words(n, dtype) for n in nums]
        # missing components: y and z are 0, w is 1 (GP4 2.X.3.3 "Constant Bindings")
        one = f32_bits(1.0) if dtype == DataType.FLOAT else 1
        while len(words) < 4:
            words.append(one if len(words) == 3 else 0)
        return tuple(words)

    def const_register(self, words: tuple[int, int, int, int], dtype: DataType) -> str:
        key = (dtype, words)
        name = self.consts.get(key)
        if name is None:
            name = f"%k{len(self.consts)}"
            self.consts[key] = name
            self.prog.registers[name] = Register(name, RegKind.CONST, dtype, None, (), (words,),
                                                 implicit=True)
        return name

    # ---- instructions ------------------------------------------------------------------------------
    def label(self, lab: Label) -> None:
        self.seen_statement = self.seen_body = True
        if lab.name in self.label_spans:
            self.err("E4002", f"label '{lab.name}' is defined twice", lab.span,
                     f"first defined at {self.label_spans[lab.name]}")
        if self.blocks:
            # GP4 2.X.5: a block that "contains an instruction label" fails to load.  Block
            # entries are (kind, state, span).  The label is still recorded so that CALs to it
            # do not cascade into "undefined label" errors.
            kind, _, span = self.blocks[-1]
            self.sink.error("E4003", f"label '{lab.name}' inside an open {kind} block (opened at "
                            f"{span})", lab.span)
        self.label_spans[lab.name] = lab.span
        self.prog.labels[lab.name] = len(self.prog.instructions)

    def split_opcode(self, ins: Instr):
        text = ins.opcode
        known = _SPLIT_OPCODES.get((self.stage, text))
        if known is not None:
            return known
        ops = STAGE_OPS[self.stage]
        for cut in range(len(text), 0, -1):
            base = text[:cut]
            if base in ops:
                m = _GLUED.match(text[cut:])
                if m:
                    known = _SPLIT_OPCODES[self.stage, text] = (base, m.group(1), m.group(2),
                                                                m.group(3))
                    return known
        for cut in range(len(text), 0, -1):
            base, rest = text[:cut], text[cut:]
            if base in ops and re.fullmatch(r"(R|H|X|C0|C1|C|_SAT|_SSAT)+", rest):
                if "X" in re.sub(r"_S?SAT", "", rest):
                    # GP4 Table X.15 lists R, H, C, C0, C1, _SAT, _SSAT: no fixed-point X
                    self.err("E3001", f"'{text}': the X (fixed-point) precision suffix does not "
                             "exist in NV_gpu_program4 (GP4 Table X.15)", ins.span)
                # GP4 2.X.4.1: "they must appear in order, with data type suffixes first,
                # followed by condition code update suffixes, followed by clamping suffixes"
                self.err("E3001", f"'{text}': the suffixes of {base} must appear in the order "
                         "R/H, then C/C0/C1, then _SAT/_SSAT, each at most once (GP4 2.X.4.1)",
                         ins.span)
        base = re.match(r"[A-Z]+[0-9]?[A-Z]*", text)
        if text in REMOVED_OPS or (base and base.group() in REMOVED_OPS):
            self.err("E3001", f"'{text}' does not exist in NV_gpu_program4 (removed from the older "
                     "NV/ARB dialects)", ins.span)
        for st, st_ops in STAGE_OPS.items():
            if text in st_ops and st != self.stage:
                self.err("E3001", f"'{text}' is only available in {st.value} programs", ins.span)
        self.err("E3001", f"unknown opcode '{text}'", ins.span)

    def instruction(self, ins: Instr) -> None:
        self.seen_statement = self.seen_body = True
        base, glued_prec, glued_cc, glued_sat = self.split_opcode(ins)
        info = OPCODES[base]
        if info.category == "flow":
            self.block_structure(base, ins)
        mods: dict[str, tuple[str, Span]] = {}
        glued: dict[str, str] = {}        # category -> suffix as written (for messages)
        if glued_prec:
            mods["precision"] = (glued_prec, ins.span)
            glued["precision"] = glued_prec
        if glued_cc:
            mods["cc"] = ("CC" if glued_cc == "C" else _glued_modifier(glued_cc), ins.span)
            glued["cc"] = glued_cc
        if glued_sat:
            mods["sat"] = (_glued_modifier(glued_sat), ins.span)
            glued["sat"] = glued_sat
        for mod, span in ins.mods:
            cat = _MOD_CATEGORY.get(mod)
            if cat is None:
                self.err("E3002", f"unknown instruction modifier '.{mod}'", span)
            # GP4 2.X.4.1: "more than one modifier of any given type" fails to load; the R and H
            # suffixes are data type modifiers (Table X.15: both mean F), so MOVR.F is two
            first = "precision" if cat == "type" and "precision" in mods else cat
            if first in mods:
                spelled = (f"suffix '{glued[first]}'" if first in glued
                           else f"'.{mods[first][0]}'")
                self.err("E3002", f"more than one {_CATEGORY_WORD[cat]} modifier "
                         f"({spelled} and '.{mod}')", span)
            mods[cat] = (mod, span)
            glued.pop(cat, None)          # the category is now spelled '.{mod}'
        dtype = info.default
        if "type" in mods:
            dtype = _TYPE_OF_MOD[mods["type"][0]]
        if "mul" in mods:
            mul = mods["mul"][0]
            if base != "MUL":
                self.err("E3002", f"'.{mul}' is only allowed on MUL", mods["mul"][1])
            if mul in ("S24", "U24"):
                if "type" in mods:
                    self.err("E3002", f"'.{mul}' already selects the data type; remove "
                             f"'.{mods['type'][0]}'", mods["type"][1])
                dtype = DataType.INT if mul == "S24" else DataType.UINT
            elif dtype == DataType.FLOAT:
                self.err("E3002", "MUL.HI needs an integer data type (.S or .U)", mods["mul"][1])
        if "precision" in mods:
            if "H" not in info.mods:
                self.err("E3002", f"{base} does not take a precision suffix", ins.span)
            if dtype != DataType.FLOAT:     # MUL.S24 with a glued R/H
                self.err("E3002", "a precision suffix (R/H) requires a float data type", ins.span)
        self.check_type_allowed(info, dtype, mods, ins)
        if "cc" in mods and "C" not in info.mods:
            self.err("E3002", f"{base} cannot update condition codes", mods["cc"][1])
        if "sat" in mods:
            # GP4 2.X.4.1: clamping needs a floating-point result and an "S" mark in Table X.13
            if info.result_type(dtype) != DataType.FLOAT:
                self.err("E3002", f"saturation is only allowed on float results ({base}"
                         f"{'.' + mods['type'][0] if 'type' in mods else ''})", mods["sat"][1])
            if "S" not in info.mods or base in NO_CLAMP_OPS:
                self.err("E3002", f"{base} does not support clamping modifiers (GP4 Table X.13)",
                         mods["sat"][1])
        ntc = "ntc" in mods
        out = Instruction(base, dtype, span=ins.span)
        if "sat" in mods:
            out.sat = Sat(mods["sat"][0])
        if "cc" in mods:
            out.cc_update = 1 if mods["cc"][0] == "CC1" else 0
        if "precision" in mods:
            out.precision = mods["precision"][0]
        if "mul" in mods:
            out.mul_mode = mods["mul"][0]
        category = info.category
        if category == "flow":
            self.flow(ins, info, out, ntc)
        elif category == "tex":
            self.tex(ins, info, out, ntc)
        elif category == "kill":
            self.kill(ins, info, out, ntc)
        elif category == "geom":
            self.geom_op(ins, info, out, ntc)
        else:
            self.alu(ins, info, out, ntc)
        if out.cc_update is not None:
            out.cc_kind = self.cc_kind(out, info)
        self.prog.instructions.append(out)

    def check_type_allowed(self, info, dtype, mods, ins):
        if base_has_no_mods(info) and ins.mods:
            self.err("E3002", f"{info.name} takes no modifiers", ins.mods[0][1])
        if "type" not in mods:
            return
        mod, span = mods["type"]
        if dtype == DataType.FLOAT and "F" not in info.mods:
            self.err("E3002", f"{info.name} has no floating-point form ('.F')", span)
        if dtype != DataType.FLOAT and "I" not in info.mods:
            self.err("E3002", f"{info.name} has no integer form ('.{mod}')", span)

    def cc_kind(self, out: Instruction, info) -> CCKind:
        rtype = info.result_type(out.dtype)
        if rtype == DataType.FLOAT:
            return CCKind.FLOAT
        if out.op in CARRY_OPS:
            # negations turn adds into subtracts and back (GP4 2.X.4.3): ir/carry.py
            return instruction_carry(out).kind
        return CCKind.INT

    def expect_operands(self, ins: Instr, count: int, what: str, at_least: int | None = None):
        n = len(ins.operands)
        lo = count if at_least is None else at_least
        if not lo <= n <= count:
            self.err("E3003", f"{ins.opcode} takes {what}; found {n} operand{'s' if n != 1 else ''}",
                     ins.span)

    def alu(self, ins: Instr, info, out: Instruction, ntc: bool) -> None:
        n_in = len(info.inputs)
        if info.name == "SWZ":
            # GP4 2.X.2 <SWZop_instruction>: result, source, then four extended swizzle
            # selectors (six operands; checked by swz() - not the two of Table X.13)
            if len(ins.operands) != 6:
                self.err("E3003", "SWZ takes a destination, a source and four extended swizzle "
                         f"selectors; found {len(ins.operands)} operands", ins.span)
            out.dst = self.dest(ins.operands[0], info.result_type(out.dtype), ntc)
            return self.swz(ins, info, out, ntc)
        self.expect_operands(ins, 1 + n_in, f"a destination and {n_in} source operand{'s' if n_in != 1 else ''}")
        out.dst = self.dest(ins.operands[0], info.result_type(out.dtype), ntc)
        srcs = []
        for i, opnd in enumerate(ins.operands[1:]):
            kind = info.inputs[i]
            srcs.append(self.source(opnd, info.operand_type(i, out.dtype), scalar=kind == "s", ntc=ntc))
        out.srcs = tuple(srcs)

    def swz(self, ins: Instr, info, out, ntc) -> None:
        # SWZ R0, R1, -x, 0, 1, w;  (GP4 2.X.2: <instOperandVNS> "," <extendedSwizzle>)
        src_op = ins.operands[1]
        base = self.source(src_op, out.dtype, scalar=False, ntc=ntc)
        # <instOperandVNS>: no sign, no absolute value, no swizzle suffix (also not on bindings:
        # "fragment.color.x" used to slip through a check that only looked at variables)
        swizzled = src_op.swizzle is not None or (
            src_op.kind == "ref" and bool(self.reference(src_op.ref, write=False)[3]))
        if base.neg or base.abs or swizzled:
            self.err("E3004", "the SWZ source takes no sign, absolute value or swizzle", src_op.span)
        sel, negs = [], []
        for opnd in ins.operands[2:]:
            neg = opnd.neg
            if opnd.kind == "num" and opnd.numbers[0].text in ("0", "1"):
                sel.append(4 if opnd.numbers[0].text == "0" else 5)
            elif opnd.kind == "ref" and not opnd.ref.selectors and opnd.ref.name in _SWZ:
                sel.append(_SWZ[opnd.ref.name])
            else:
                self.err("E3004", "extended swizzle selectors are 0, 1, x, y, z, w (or r, g, b, a)",
                         opnd.span)
            negs.append(neg)
        out.srcs = (Source(base.reg, base.index, base.vertex, tuple(sel), comp_neg=tuple(negs)),)

    def kill(self, ins: Instr, info, out, ntc) -> None:
        self.expect_operands(ins, 1, "one operand (a vector or a condition-code test)")
        opnd = ins.operands[0]
        cc = self.as_cctest(opnd)
        if cc is not None:
            if ins.mods:
                self.err("E3002", "KIL with a condition-code test takes no modifiers", ins.mods[0][1])
            out.cond = cc
            return
        out.srcs = (self.source(opnd, out.dtype, scalar=False, ntc=ntc),)

    def geom_op(self, ins: Instr, info, out, ntc) -> None:
        self.expect_operands(ins, 0, "no operands")

    def block_structure(self, name: str, ins: Instr) -> None:
        """Track IF/ELSE/ENDIF and REP/ENDREP nesting (GP4 2.X.5).

        Done before the instruction's modifiers and operands are checked, and a nesting-depth
        error does not drop the block, so that one bad IF or REP does not make its terminator
        report a second, spurious "without a matching" error."""
        if name in ("ELSE", "ENDIF", "ENDREP"):
            opener = "IF" if name != "ENDREP" else "REP"
            if not self.blocks or self.blocks[-1][0] != opener:
                open_kind = self.blocks[-1][0] if self.blocks else None
                extra = f" (the innermost open block is {open_kind})" if open_kind else ""
                self.err("E4003", f"{name} without a matching {opener}{extra}", ins.span)
            if name == "ELSE":
                if self.blocks[-1][1] == "else":
                    self.err("E4003", "second ELSE for one IF", ins.span)
                self.blocks[-1] = ("IF", "else", self.blocks[-1][2])
            else:
                self.pop_block()
        elif name == "IF":
            if self.open_blocks.get("IF", 0) >= MAX_IF_DEPTH:
                self.nesting_error("IF", f"IF nested deeper than {MAX_IF_DEPTH}", ins.span)
            self.push_block(("IF", "then", ins.span))
        elif name == "REP":
            if self.open_blocks.get("REP", 0) >= MAX_LOOP_DEPTH:
                self.nesting_error("REP", f"REP nested deeper than {MAX_LOOP_DEPTH}", ins.span)
            self.push_block(("REP", len(self.prog.instructions), ins.span))

    def push_block(self, entry: tuple) -> None:
        self.blocks.append(entry)
        self.open_blocks[entry[0]] = self.open_blocks.get(entry[0], 0) + 1

    def pop_block(self) -> tuple:
        entry = self.blocks.pop()
        self.open_blocks[entry[0]] -= 1
        return entry

    def nesting_error(self, limit: str, message: str, span: Span) -> None:
        """E4005 at the first block beyond a nesting limit, once per limit: every block nested
        deeper still exceeds it too (10,000 nested IFs made 9,952 errors)."""
        if limit not in self.too_deep:
            self.too_deep.add(limit)
            self.sink.error("E4005", message, span, "blocks nested deeper still are not "
                            "reported again")

    def flow(self, ins: Instr, info, out: Instruction, ntc: bool) -> None:
        name = info.name
        # block nesting was tracked by block_structure() before the modifiers were checked
        if name in ("ELSE", "ENDIF", "ENDREP"):
            self.expect_operands(ins, 0, "no operands")
            return
        if name == "IF":
            self.expect_operands(ins, 1, "one condition-code test")
            out.cond = self.require_cctest(ins.operands[0])
            return
        if name == "REP":
            self.expect_operands(ins, 1, "an optional loop count", at_least=0)
            if ins.operands:
                out.srcs = (self.source(ins.operands[0], out.dtype, scalar=False, ntc=ntc),)
            return
        if name in ("BRK", "CONT"):
            if not self.open_blocks.get("REP"):
                self.err("E4004", f"{name} outside a REP block", ins.span)
            self.expect_operands(ins, 1, "an optional condition-code test", at_least=0)
            if ins.operands:
                out.cond = self.require_cctest(ins.operands[0])
            return
        if name == "RET":
            self.expect_operands(ins, 1, "an optional condition-code test", at_least=0)
            if ins.operands:
                out.cond = self.require_cctest(ins.operands[0])
            return
        if name == "CAL":
            self.expect_operands(ins, 2, "a label and an optional condition-code test", at_least=1)
            target = ins.operands[0]
            if target.kind != "ref" or target.ref.selectors or target.neg or target.abs:
                self.err("E3004", "CAL needs a label name", target.span)
            out.label = target.ref.name
            self.calls.append((out.label, target.span))
            if target.ccmask is not None:
                out.cond = self.cctest(target.ccmask)
            elif len(ins.operands) == 2:
                out.cond = self.require_cctest(ins.operands[1])
            return
        raise AssertionError(name)

    def tex(self, ins: Instr, info, out: Instruction, ntc: bool) -> None:
        n_in = len(info.inputs)
        ops = ins.operands
        if not 3 + n_in <= len(ops) <= 4 + n_in:
            self.err("E3003", f"{info.name} takes a destination, {n_in} coordinate operand"
                     f"{'s' if n_in > 1 else ''}, a texture unit, a target and optional offsets",
                     ins.span)
        out.dst = self.dest(ops[0], info.result_type(out.dtype), ntc)
        out.srcs = tuple(self.source(o, info.operand_type(i, out.dtype), scalar=False, ntc=ntc)
                         for i, o in enumerate(ops[1:1 + n_in]))
        unit_op, target_op = ops[1 + n_in], ops[2 + n_in]
        unit = self.texture_unit(unit_op)
        target = self.texture_target(target_op)
        offset = (0, 0, 0)
        if len(ops) == 4 + n_in:
            offset = self.texel_offset(ops[3 + n_in], target, info.name)
        self.check_target(info.name, target, target_op.span)
        prev = self.tex_targets.get(unit)
        if prev is not None and prev[0] != target:
            self.err("E5002", f"texture unit {unit} is used with target {target} and {prev[0]}",
                     target_op.span, f"{prev[0]} used at {prev[1]}")
        self.tex_targets.setdefault(unit, (target, target_op.span))
        out.tex = TexRef(unit, target, offset)

    def texture_unit(self, opnd: Operand) -> int:
        if opnd.kind != "ref" or opnd.ref.name != "texture" or opnd.neg or opnd.abs:
            self.err("E3004", "expected a texture unit ('texture[n]')", opnd.span)
        sels = opnd.ref.selectors
        if not sels:
            return 0
        if len(sels) != 1 or not isinstance(sels[0], Subscript) or not isinstance(sels[0].index, IndexConst):
            self.err("E3004", "a texture unit is 'texture' or 'texture[n]' with a constant n", opnd.span)
        unit = sels[0].index.value
        if not 0 <= unit <= 31:
            self.err("E5004", f"texture unit {unit} out of range [0, 31]", sels[0].span)
        return unit

    def texture_target(self, opnd: Operand) -> str:
        if opnd.kind == "target":
            return opnd.target
        if opnd.kind == "ref" and not opnd.ref.selectors and opnd.ref.name in TEX_TARGETS:
            return opnd.ref.name
        self.err("E5001", "expected a texture target (1D, 2D, 3D, CUBE, RECT, SHADOW1D, SHADOW2D, "
                 "SHADOWRECT, ARRAY1D, ARRAY2D, SHADOWCUBE, SHADOWARRAY1D, SHADOWARRAY2D, BUFFER)",
                 opnd.span)

    def check_target(self, op: str, target: str, span: Span) -> None:
        # GP4 2.X.4.4 / 2.X.8.Z: targets each texture instruction may use
        if target == "BUFFER" and op not in ("TXF", "TXQ"):
            self.err("E5001", f"the BUFFER target is only valid with TXF and TXQ, not {op}", span)
        if op == "TXF" and (target.startswith("SHADOW") or target == "CUBE"):
            self.err("E5001", f"TXF cannot fetch from {target} textures", span)
        if op in ("TXB", "TXL", "TXP") and target in ("SHADOWCUBE", "SHADOWARRAY2D"):
            self.err("E5001", f"{op} cannot be used with {target} (no coordinate left for the "
                     "reference value)", span)

    def texel_offset(self, opnd: Operand, target: str, op: str) -> tuple[int, int, int]:
        if opnd.kind != "offsets":
            self.err("E5003", "expected texel offsets '(du, dv, dw)'", opnd.span)
        vals = []
        for n in opnd.numbers:
            if not re.fullmatch(r"[0-9]+", n.text):
                self.err("E5003", "texel offsets must be integers", n.span)
            v = -int(n.text) if n.negative else int(n.text)
            lo, hi = TEXEL_OFFSET_RANGE
            if not lo <= v <= hi:
                self.err("E5003", f"texel offset {v} out of range [{lo}, {hi}]", n.span)
            vals.append(v)
        if len(vals) > 3:
            self.err("E5003", "at most three texel offsets", opnd.span)
        vals += [0] * (3 - len(vals))
        dims = TARGET_DIMS[target]
        if target in ("CUBE", "SHADOWCUBE") and any(vals):
            self.err("E5003", "texel offsets are not allowed with cube map targets", opnd.span)
        if target == "BUFFER" and any(vals):
            self.err("E5003", "texel offsets are not allowed with the BUFFER target", opnd.span)
        if any(vals[dims:]):
            bad = next(n for n, v in zip(opnd.numbers[dims:], vals[dims:]) if v)
            self.err("E5003", f"{target} has {dims} dimension{'s' if dims > 1 else ''}; offsets "
                     "beyond it must be zero", bad.span)
        return tuple(vals)

    # ---- condition codes ---------------------------------------------------------------------------
    def cctest(self, node) -> CondTest:
        rule, cc = node.rule, 0
        if rule[-1] in "01" and rule[:-1] in CC_RULES:
            rule, cc = rule[:-1], int(rule[-1])
        if rule not in CC_RULES:
            self.err("E3007", f"unknown condition-code rule '{node.rule}'", node.span)
        swz = IDENTITY
        if node.swizzle is not None:
            swz = self.swizzle(node.swizzle, node.span, vector=True)
        return CondTest(rule, cc, swz)

    def as_cctest(self, opnd: Operand, only_cc: bool = False) -> CondTest | None:
        """A bare ``NE.x`` (or ``(NE.x)``) operand read as a condition-code test.

        Rule names are not reserved words (nv_dialects.md 2.2), so a variable may be called
        ``LT``.  Where only a test is legal (``only_cc``: IF, BRK, CONT, CAL, RET; GP4 2.X.2)
        the variable does not matter; where an operand is legal too (KIL) the digest's reading
        applies: "where a ccTest is legal, prefer the ccTest reading and warn"."""
        if opnd.kind == "cc":
            return self.cctest(opnd.cctest)
        if opnd.kind == "ref" and not opnd.neg and not opnd.abs and opnd.ccmask is None:
            ref = opnd.ref
            rule = ref.name
            base_rule = rule[:-1] if rule[-1:] in "01" else rule
            if base_rule in CC_RULES and (
                    not ref.selectors or (len(ref.selectors) == 1 and isinstance(ref.selectors[0], Member))):
                if self.lookup(rule) is not None and not only_cc:
                    self.sink.warning("E3007", f"'{rule}' is both a variable and a condition-code "
                                      "rule; it is read as a condition-code test here", ref.span)
                swz = ref.selectors[0].name if ref.selectors else None
                return self.cctest(CCTestNode(rule, swz, ref.span))
        return None

    def require_cctest(self, opnd: Operand) -> CondTest:
        cc = self.as_cctest(opnd, only_cc=True)
        if cc is None:
            self.err("E3007", "expected a condition-code test such as 'NE.x' or '(GT.x)'", opnd.span)
        return cc

    # ---- operands ------------------------------------------------------------------------------------
    def swizzle(self, text: str, span: Span, vector: bool) -> tuple[int, int, int, int]:
        known = _SWIZZLES.get((text, vector))
        if known is not None:
            return known
        if any(c not in _SWZ for c in text) or (set(text) & set("xyzw") and set(text) & set("rgba")):
            self.err("E1006", f"invalid swizzle '.{text}'", span)
        if len(text) == 1:
            known = _SWIZZLES[text, vector] = (_SWZ[text],) * 4
            return known
        if len(text) != 4 or not vector:
            self.err("E1006", f"swizzle '.{text}' must have 1 or 4 components", span)
        known = _SWIZZLES[text, vector] = tuple(_SWZ[c] for c in text)
        return known

    def mask(self, text: str, span: Span) -> tuple[bool, bool, bool, bool]:
        known = _MASKS.get(text)
        if known is not None:
            return known
        letters = "xyzw" if set(text) <= set("xyzw") else "rgba"
        idx = [letters.find(c) for c in text]
        if -1 in idx or idx != sorted(set(idx)):
            self.err("E1006", f"invalid write mask '.{text}' (components in order, no repeats, no "
                     "mixing xyzw with rgba)", span)
        known = _MASKS[text] = tuple(i in idx for i in range(4))
        return known

    def source(self, opnd: Operand, optype: DataType, scalar: bool, ntc: bool) -> Source:
        if opnd.kind in ("cc", "offsets", "target"):
            self.err("E3004", "expected a register, binding or constant operand", opnd.span)
        if opnd.abs and optype == DataType.UINT:
            # |x| of an unsigned operand is the operand itself (GP4 2.X.4.2), so a sign inside
            # the bars still negates: |-a| = -a and -|-a| = a (two's complement)
            opnd.neg, opnd.abs = opnd.neg != opnd.inner_neg, False
        if opnd.kind == "num":
            words = self.const_words([opnd.numbers[0]] * 4, optype)
            swz = IDENTITY
            if opnd.swizzle is not None:
                swz = self.swizzle(opnd.swizzle[0], opnd.swizzle[1], vector=not scalar)
            return Source(self.const_register(words, optype), swizzle=swz, neg=opnd.neg, abs=opnd.abs)
        if opnd.kind == "vec":
            words = self.const_words(opnd.numbers, optype)
            reg = self.const_register(words, optype)
            swz = IDENTITY
            if opnd.swizzle is not None:
                swz = self.swizzle(opnd.swizzle[0], opnd.swizzle[1], vector=not scalar)
            elif scalar:
                self.err("E3004", "a constant vector used as a scalar operand needs a component "
                         "selector (for example '{1, 2}.x')", opnd.span)
            return Source(reg, swizzle=swz, neg=opnd.neg, abs=opnd.abs)
        if opnd.ccmask is not None:
            self.err("E3004", "a condition-code mask is only allowed on the destination", opnd.ccmask.span)
        reg, index, vertex, rest = self.reference(opnd.ref, write=False)
        self.check_operand_type(reg, optype, ntc, opnd.span)
        swz = IDENTITY
        if rest:
            if len(rest) > 1 or not isinstance(rest[0], Member):
                self.err("E3004", "unexpected selector", rest[-1].span)
            swz = self.swizzle(rest[0].name, rest[0].span, vector=not scalar)
        elif scalar:
            self.err("E3004", f"scalar operand '{opnd.ref.name}' needs a component selector "
                     "(for example '.x')", opnd.span)
        return Source(reg.name, index, vertex, swz, opnd.neg, opnd.abs)

    def dest(self, opnd: Operand, rtype: DataType, ntc: bool) -> Dest:
        if opnd.kind != "ref" or opnd.neg or opnd.abs:
            self.err("E3005", "the destination must be a TEMP, an OUTPUT or a result binding "
                     "without sign or absolute value", opnd.span)
        ref = opnd.ref
        if ref.name == "CC" and self.lookup("CC") is None:
            # a condition-code-only destination (VP2 grammar; used by the GP4 examples as well)
            reg = self.names.get("%CC") or self.prog.registers.setdefault(
                "CC", Register("CC", RegKind.TEMP, DataType.NONE, implicit=True))
            index, rest = None, ref.selectors
        else:
            reg, index, vertex, rest = self.reference(ref, write=True)
            self.check_operand_type(reg, rtype, ntc, opnd.span)
        mask = FULL_MASK
        if rest:
            if len(rest) > 1 or not isinstance(rest[0], Member):
                self.err("E3005", "unexpected selector on the destination", rest[-1].span)
            mask = self.mask(rest[0].name, rest[0].span)
        cond = self.cctest(opnd.ccmask) if opnd.ccmask is not None else None
        return Dest(reg.name, index, mask, cond)

    def check_operand_type(self, reg: Register, optype: DataType, ntc: bool, span: Span) -> None:
        if ntc or reg.dtype == DataType.NONE or reg.dtype == optype:
            return
        self.err("E3006", f"'{reg.name}' is declared {_TYPE_WORD[reg.dtype]} but the instruction "
                 f"uses it as {_TYPE_WORD[optype]} (use .NTC to reinterpret the bits)", span)

    def reference(self, ref: Ref, write: bool):
        """Resolve a variable or a binding used in an instruction.

        Returns (register, element index, vertex index, remaining selectors)."""
        reg = self.lookup(ref.name)
        if reg is not None:
            return self.variable_use(reg, ref, write)
        if ref.name in ("program", "state"):
            if write:
                self.err("E3005", "program parameters are read-only", ref.span)
            res = self.resolve(ref, B.PROGRAM if ref.name == "program" else B.STATE, decl=False)
            return self.implicit(res.bindings[0], RegKind.PARAM), None, None, res.rest
        roots = B.input_roots(self.stage)
        if ref.name in roots or ref.name == "result":
            if ref.name == "result" and not write:
                self.err("E3004", "result bindings are write-only", ref.span)
            if ref.name != "result" and write:
                self.err("E3005", f"'{ref.name}.*' attributes are read-only", ref.span)
            kind = RegKind.OUTPUT if ref.name == "result" else RegKind.INPUT
            res = self.resolve_interface(ref, kind, decl=False)
            b = res.bindings[0]
            if self.stage == Stage.GEOMETRY and ref.name == "vertex":
                if res.vertex_index is None:
                    self.err("E6003", "per-vertex attributes need a vertex number: vertex[n]."
                             f"{b.path.split('.', 1)[1]}", ref.span)
                v = self.vertex_number(res.vertex_index)
                reg = self.implicit(b, kind, per_vertex=True)
                return reg, None, Index(v), res.rest
            if kind == RegKind.OUTPUT:
                held = self.output_at.get(b)
                if held is None:
                    held = self.output_at[b] = (self.implicit(b, kind), None)
                reg, k = held
                return reg, (Index(k) if k is not None else None), None, res.rest
            return self.implicit(b, kind), None, None, res.rest
        if ref.name in self.poisoned:
            raise _Skip
        if ref.name == "texture":
            self.err("E3004", "a texture unit is not a value operand", ref.span)
        self.err("E2003", f"undeclared name '{ref.name}'", Span(ref.span.file, ref.span.line,
                                                                 ref.span.col, len(ref.name)))

    def implicit(self, b: Binding, kind: RegKind, per_vertex: bool = False) -> Register:
        name = b.text()
        reg = self.prog.registers.get(name)
        if reg is None:
            reg = Register(name, kind, DataType.NONE, None, (b,), per_vertex=per_vertex, implicit=True)
            self.prog.registers[name] = reg
        return reg

    def variable_use(self, reg: Register, ref: Ref, write: bool):
        sels = list(ref.selectors)
        if write and reg.kind not in (RegKind.TEMP, RegKind.OUTPUT):
            self.err("E3005", f"'{ref.name}' is {_A_KIND.get(reg.kind, 'a ' + reg.kind.value)} "
                     "variable and cannot be written",
                     ref.span)
        if not write and reg.kind == RegKind.OUTPUT:
            self.err("E3004", f"'{ref.name}' is an OUTPUT variable and cannot be read", ref.span)
        vertex = None
        if reg.per_vertex:
            if not sels or not isinstance(sels[0], Subscript):
                self.err("E6003", f"'{ref.name}' is a per-vertex attribute: index it with the "
                         f"vertex number first ('{ref.name}[n]')", ref.span)
            vertex = self.index(sels.pop(0), self.input_vertices() or 6, ref.name)
        index = None
        if reg.size is not None:
            if not sels or not isinstance(sels[0], Subscript):
                self.err("E2007", f"array '{ref.name}' must be indexed", ref.span)
            index = self.index(sels.pop(0), reg.size, ref.name)
            if index.relative:
                self.note_relative_array(reg, ref.span)
        elif sels and isinstance(sels[0], Subscript):
            self.err("E2007", f"'{ref.name}' is not an array and cannot be indexed", sels[0].span)
        return reg, index, vertex, sels

    def note_relative_array(self, reg: Register, span: Span) -> None:
        """GP4 2.X.3.2/2.X.3.3/2.X.3.5: a binding may be used in at most one relatively addressed
        array (and, for parameters, only once in it).  Checked at the first relative use of each
        array.  Literal constants are not state bindings and may repeat (our reading: the rule
        exists so that bound state has one location)."""
        if reg.name in self.relative_arrays or reg.kind not in (RegKind.INPUT, RegKind.OUTPUT,
                                                                RegKind.PARAM):
            return
        self.relative_arrays.add(reg.name)
        for b in reg.bindings:
            if b is None:
                continue
            owner = self.relative_owner.setdefault(b, reg.name)
            if owner != reg.name:
                self.sink.error("E2012", f"binding '{b.text()}' is used in two relatively "
                                f"addressed arrays ('{owner}' and '{reg.name}')", span)
                return
            if reg.kind == RegKind.PARAM and sum(1 for o in reg.bindings if o == b) > 1:
                self.sink.error("E2012", f"binding '{b.text()}' appears twice in the relatively "
                                f"addressed array '{reg.name}'", span)
                return

    def index(self, sub: Subscript, size: int, name: str) -> Index:
        idx = sub.index
        if isinstance(idx, IndexConst):
            if not 0 <= idx.value < size:
                self.err("E2006", f"index {idx.value} out of range for '{name}' ({size} elements)",
                         sub.span)
            return Index(idx.value)
        if isinstance(idx, IndexRange):
            self.err("E2006", "index ranges are only allowed in declarations", sub.span)
        reg = self.lookup(idx.reg)
        if reg is None:
            self.err("E2003", f"undeclared name '{idx.reg}'", idx.span)
        if reg.size is not None or reg.kind not in (RegKind.TEMP, RegKind.PARAM, RegKind.INPUT):
            self.err("E2010", f"'{idx.reg}' cannot be used as an index (need a non-array integer "
                     "or typeless variable)", idx.span)
        if reg.dtype == DataType.FLOAT:
            self.err("E2010", f"'{idx.reg}' is declared FLOAT and cannot index an array "
                     "(use an INT or typeless variable)", idx.span)
        if idx.comp is None:
            self.sink.warning("E2010", f"index '{idx.reg}' has no component selector; using "
                              f"'{idx.reg}.x'", idx.span)
            comp = 0
        else:
            if idx.comp not in _SWZ:
                self.err("E2010", f"invalid index component '.{idx.comp}'", idx.span)
            comp = _SWZ[idx.comp]
        if not 0 <= idx.offset < size:
            self.err("E2006", f"relative offset {idx.offset:+d} out of range [0, {size - 1}] for "
                     f"'{name}' (GP4 2.X.4.2)", idx.span)
        return Index(idx.offset, reg.name, comp)

    # ---- end of program ----------------------------------------------------------------------------
    def finish(self) -> None:
        sink = self.sink
        for kind, _, span in self.blocks:
            sink.error("E4003", f"{kind} block is never closed (missing END{kind})", span)
        for name, span in self.calls:
            if name not in self.prog.labels:
                sink.error("E4001", f"CAL to undefined label '{name}'", span)
        if self.stage == Stage.GEOMETRY:
            missing = [k for k in ("PRIMITIVE_IN", "PRIMITIVE_OUT", "VERTICES_OUT")
                       if k not in self.geom_attempted]
            if missing:
                sink.error("E6001", f"geometry program without {', '.join(missing)}",
                           Span(sink.file, 1, 1, 9))
            elif all(k in self.geom for k in ("PRIMITIVE_IN", "PRIMITIVE_OUT", "VERTICES_OUT")):
                self.prog.geometry = Geometry(self.geom["PRIMITIVE_IN"][0],
                                              self.geom["PRIMITIVE_OUT"][0],
                                              self.geom["VERTICES_OUT"][0])
                nverts, nspan = self.geom["VERTICES_OUT"]
                comps = result_components(self.prog)
                if nverts * comps > MAX_TOTAL_OUTPUT_COMPONENTS:
                    sink.error("E6001", f"VERTICES_OUT {nverts} times the {comps} result "
                               f"components written is {nverts * comps}, more than "
                               "MAX_PROGRAM_TOTAL_OUTPUT_COMPONENTS_NV "
                               f"({MAX_TOTAL_OUTPUT_COMPONENTS}, GEO4 2.14.6.4)", nspan)
        self.check_endless_loops()
        self.prog.options = tuple(self.options)
        self.insert_subroutine_returns()
        self.prog.entry = self.prog.labels.get("main", 0)
        self.apply_options()

    def apply_options(self) -> None:
        """Options that stand for fixed-function work become explicit IR (options.py)."""
        from . import options
        if "ARB_position_invariant" in self.options:
            reg = options.writes_binding(self.prog, "result.position")
            if reg is not None:
                self.sink.error("E2004", "a position-invariant program cannot write "
                                "result.position (ARB_position_invariant)", reg.span)
            else:
                options.position_invariant(self.prog)
        for mode in ("linear", "exp", "exp2"):
            if f"ARB_fog_{mode}" in self.options:
                options.fog(self.prog, mode)

    def check_endless_loops(self) -> None:
        """A REP without a count needs a BRK at its own level or a RET inside (GP4 2.X.8.Z REP)."""
        ins = self.prog.instructions
        stack: list[list] = []
        for i in ins:
            if i.op == "REP":
                stack.append([i, not i.srcs, False])
            elif i.op == "ENDREP" and stack:
                rep, endless, exits = stack.pop()
                if endless and not exits:
                    self.sink.error("E4006", "REP without a count never ends: it contains no BRK "
                                    "at its level and no RET", rep.span)
                if stack and exits == "ret":
                    stack[-1][2] = "ret"
            elif i.op == "BRK" and stack:
                stack[-1][2] = stack[-1][2] or True
            elif i.op == "RET":
                for entry in stack:
                    entry[2] = "ret"

    def insert_subroutine_returns(self) -> None:
        """Make NV4's 'a label ends the subroutine before it' explicit (see module docstring)."""
        ins = self.prog.instructions
        if not self.prog.labels:
            return
        at_positions = set(self.prog.labels.values())
        new: list[Instruction] = []
        shift = {}
        added = 0
        for pos in range(len(ins) + 1):
            if pos in at_positions and pos > 0:
                prev = ins[pos - 1]
                if not (prev.op == "RET" and prev.cond is None):
                    new.append(Instruction("RET", span=prev.span, text="(implicit RET before label)"))
                    added += 1
            shift[pos] = pos + added
            if pos < len(ins):
                new.append(ins[pos])
        self.prog.instructions = new
        self.prog.labels = {k: shift[v] for k, v in self.prog.labels.items()}


_CATEGORY_WORD = {"type": "data type", "cc": "condition-code update", "sat": "clamping",
                  "ntc": "NTC", "mul": "MUL (S24/U24/HI)", "precision": "data type"}

_A_KIND = {RegKind.INPUT: "an attribute", RegKind.PARAM: "a parameter",
           RegKind.BUFFER: "a buffer", RegKind.CONST: "a constant"}

_TYPE_WORD = {DataType.FLOAT: "FLOAT", DataType.INT: "INT", DataType.UINT: "UINT",
              DataType.NONE: "typeless"}


def base_has_no_mods(info) -> bool:
    return info.name == "TXQ" or info.category in ("geom",) or info.name in (
        "ELSE", "ENDIF", "ENDREP", "BRK", "CONT", "CAL", "RET", "IF")
