"""Declarations of NV4 programs (part of :class:`~.nv4.NV4Builder`): ``TEMP``, ``PARAM``, ``ATTRIB``,
``OUTPUT``, ``BUFFER``/``BUFFER4``, ``ALIAS``, ``OPTION`` and the geometry-program declarations,
each checked against GP4 2.X.3 and resolved through the binding tree (``bindings.py``):
registers, their bindings, interpolation and attribute aliasing.
"""
from __future__ import annotations

import re

from ...diagnostics import Span
from ...ir.model import Binding, DataType, Geometry, Register, RegKind, Stage
from . import bindings as B
from .syntax import Decl, IndexConst, IndexRange, Number, Ref, Subscript
from .nv4_tables import (MAX_VERTICES_OUT, OPTIONS, PBO_WORDS, PRIMITIVES_IN, PRIMITIVES_OUT,
                         RESERVED, STAGE_FREE_WORDS)


class NV4Declarations:
    """Part of :class:`~.nv4.NV4Builder` (mixed in): the declaration statements."""

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
