"""ARB_vertex_program frontend: ``!!ARBvp1.0``, plain and with ``OPTION NV_vertex_program2`` /
``OPTION NV_vertex_program3`` (+ ``ARB_position_invariant``, ``ARB_fragment_program_shadow``).

Built on :class:`xlate.frontends.nv.legacy_vertex.LegacyVertexBuilder` (opcodes, suffixes, condition
codes, address registers, flow, numerics); this module adds the ARB declarations (ATTRIB,
PARAM, TEMP, ADDRESS, OUTPUT, ALIAS; ARBVP 2.14.3), the ARB binding tables below, literal
constants and the option-dependent grammar (nv_dialects.md 3.3, 3.4).

Choices (documented here, tested in tests/test_arbvp_*.py):

* Numerics: ARBvp semantics in every option set (VP2O: the added *functionality* is that of
  NV_vertex_program2; its pseudocode for SEQ/SGT/..., MIN/MAX, SSG is the C pseudocode without
  VP2's NaN rules): RSQ takes |x| (ARBVP 2.14.5.22, digest 12 item 16), MIN/MAX/set-on are the
  plain IR opcodes, address results are not clamped (digest 12 item 33).
* ``TXB`` in a vertex program is ``TXL`` (VP3 2.14.5.46: "the TXB instruction is completely
  equivalent to the TXL instruction" because the base LOD is 0).
* Resource limits are implementation dependent; xlate accepts up to 4096 instructions (4092
  position-invariant), 16 generic attributes, 4096 env/local parameters (piglit's big-param
  binds program.local[0..1020]), 8 texture coordinate sets, 6 clip distances, texture units
  0-15 of which at most 4 per program (MAX_VERTEX_TEXTURE_IMAGE_UNITS_ARB of the GeForce 6,
  VP3 issues), MAX_VERTEX_UNITS_ARB = 4 (so ``vertex.weight``/``vertex.matrixindex`` take only
  [0]).  Temporaries, parameter bindings and address registers are not counted.  Relative
  offsets: [-64, 63] in plain ARBvp1.0 (ARBVP grammar), accepted up to [-4096, 4095] with
  warning E2017 (Mesa's MaxAddressOffset; digest 12 item 34); with the NV options, whose
  grammar has no bound, [-4096, 4095] without a warning.
* Compatibility readings (warnings, each with its own code): ``ALIAS name = <binding>``
  (E2016, NVIDIA's drivers; ``binding_alias``), POPA with a condition-code write mask (E3009,
  "some driver versions erroneously allowed" it, VP3 revision 7; ``vp.py``).
* Conventional vertex attributes alias generic ones (ARBVP Table X.2.1): binding both of a pair
  is a load error (E2013); ``vertex.weight`` is carried as ``vertex.attrib[1]`` (the GLSL
  interface has no weight attribute; NVIDIA aliases them).  When a program reads
  ``vertex.attrib[A0.x + n]`` (VP3) every conventional attribute it also uses is carried as its
  generic alias, so each attribute has one storage.
* ``result.texcoord[A0.x + n]`` (VP3): every write to ``result.texcoord`` then goes through the
  one OUTPUT array ``result.texcoord`` (so relative and absolute writes see the same storage).
* The base grammar's "scalar constants need a selector" rule (``RCP r, 2.0.x``; VP2O issues)
  is relaxed with a warning (digest 12 item 10).
"""
from __future__ import annotations

from dataclasses import replace

from ...diagnostics import DiagnosticSink, Span
from ...ir.model import Binding, DataType, Dest, Index, Register, RegKind, Source, TexRef
from . import bindings as B
from .arbvp_tables import (ARBVP_OPS, MAX_INSTRUCTIONS, MAX_TEXTURE_UNIT, MAX_VERTEX_TEXTURE_UNITS,
                           NV2_OPS, NV3_OPS, OPTIONS, PROGRAM, RANGE_MEMBERS, REL_OFFSET,
                           REL_OFFSET_MAX, RESERVED_BASE, SHADOW_TARGETS, STATE, TARGETS,
                           VERTEX_INPUTS, VERTEX_RESULTS, VERTEX_RESULTS_NV2, generic_slot)
from .syntax import (Decl, IndexConst, IndexRange, IndexRel, Instr, Member, Number, Operand, Ref,
                     Subscript)
from .legacy_vertex import F, IDENTITY, S, XYZW, Features, LegacyVertexBuilder, _Skip, f32_bits


class ARBVPBuilder(LegacyVertexBuilder):
    dialect_name = "ARB vertex program"

    def __init__(self, header: str, sink: DiagnosticSink):
        super().__init__(header, sink, self.features(()))
        self.options: list[str] = []
        self.seen_statement = False
        self.names: dict[str, str] = {}          # declared name -> register name
        self.name_kind: dict[str, str] = {}      # declared name -> TEMP PARAM ATTRIB OUTPUT ADDRESS
        self.aliases: dict[str, str] = {}
        self.poisoned: set[str] = set()
        self.attrib_slots: dict[int, tuple[bool, Binding, Span]] = {}
        self.relative_arrays: set[str] = set()
        self.relative_owner: dict[Binding, str] = {}
        self.tex_targets: dict[int, tuple[str, Span]] = {}
        self.rel_attrib = False                  # vertex.attrib[A0.x + n] used (VP3)
        self.rel_result = False                  # result.texcoord[A0.x + n] written (VP3)
        self.scalar_const_warned = False
        self.binding_aliases: list[tuple[str, Span, str]] = []   # (name, binding span, kind)
        self.output_regs: dict[Binding, str] = {}   # result binding -> its one register

    # ---- options -------------------------------------------------------------------------------
    @staticmethod
    def features(options) -> Features:
        opts = set(options)
        nv3 = "NV_vertex_program3" in opts
        nv2 = nv3 or "NV_vertex_program2" in opts
        hint = "" if nv2 else " (they need OPTION NV_vertex_program2)"
        missing = {}
        for op in NV2_OPS - ARBVP_OPS:
            missing[op] = " (it needs OPTION NV_vertex_program2 or NV_vertex_program3)"
        for op in NV3_OPS - NV2_OPS:
            missing[op] = " (it needs OPTION NV_vertex_program3)"
        ops = NV3_OPS if nv3 else NV2_OPS if nv2 else ARBVP_OPS
        return Features(ops, "arb", cc_regs=2 if nv3 else 1 if nv2 else 0, sat=nv3, abs=nv2,
                        vector_arl=nv2, labels=nv2, option_hint=hint, missing_hint=missing)

    def reserved(self) -> frozenset:
        words = RESERVED_BASE
        if self.feat.labels:
            words |= NV2_OPS
        if self.feat.sat:
            words |= NV3_OPS
        return words

    def option(self, d: Decl) -> None:
        name, span = d.target
        if self.seen_statement:
            # ARBVP 2.14.4.5: "all program options used by the program must be declared at the
            # beginning of the program string"
            self.err("E2011", "OPTION statements must come before every other statement", d.span)
        if name not in OPTIONS:
            self.err("E2011", f"unknown option '{name}' (vertex programs know "
                     f"{', '.join(OPTIONS)})", span)
        if name in self.options:
            self.sink.warning("E2011", f"option '{name}' given twice", span)
        self.options.append(name)
        self.feat = self.features(self.options)

    # ---- declarations ----------------------------------------------------------------------------
    def declaration(self, d: Decl) -> None:
        if d.kind == "OPTION":
            return self.option(d)
        self.seen_statement = True
        try:
            self._declaration(d)
        except _Skip:
            self.poisoned.update(n for n, _, _ in d.names if n not in self.names)
            raise

    def _declaration(self, d: Decl) -> None:
        if d.kind not in ("TEMP", "PARAM", "ATTRIB", "OUTPUT", "ADDRESS", "ALIAS"):
            self.err("E1002", f"{d.kind} declarations do not exist in ARB vertex programs", d.span)
        if d.mods:
            self.err("E1002", f"'{d.mods[0][0]}' is not a declaration modifier of ARB vertex "
                     "programs", d.mods[0][1])
        if d.kind == "ALIAS":
            name, span, _ = d.names[0]
            target, tspan = d.target
            if d.init:
                return self.binding_alias(d, name, span)
            if target not in self.names and target not in self.aliases:
                if target in self.poisoned:
                    raise _Skip
                self.err("E2003", f"ALIAS of undeclared name '{target}'", tspan)
            self.check_new_name(name, span)
            self.aliases[name] = self.aliases.get(target, target)
            return
        if d.kind in ("TEMP", "ADDRESS"):
            for name, span, size in d.names:
                if size is not None:
                    self.sink.error("E2007", f"{d.kind} variables cannot be arrays", span)
                    continue
                try:
                    self.check_new_name(name, span)
                except _Skip:
                    continue
                dtype = S if d.kind == "ADDRESS" else DataType.NONE
                self.declare(name, d.kind, Register(name, RegKind.TEMP, dtype, span=span))
            return
        name, span, _ = d.names[0]
        self.check_new_name(name, span)
        if d.kind == "PARAM":
            reg = self.param_decl(d, name, span)
        else:
            if d.array or d.init_is_list:
                self.err("E2007", f"{d.kind} variables cannot be arrays", span)
            item = d.init[0]
            if not isinstance(item, Ref):
                self.err("E2004", f"{d.kind} needs a {'vertex' if d.kind == 'ATTRIB' else 'result'}"
                         " binding", span)
            if d.kind == "ATTRIB":
                if item.name != "vertex":
                    self.err("E2004", "ATTRIB must be bound to a vertex attribute (vertex.*)",
                             item.span)
                b = self.attribute_binding(item, decl=True)
                reg = Register(name, RegKind.INPUT, DataType.NONE, None, (b,), span=span)
            else:
                if item.name != "result":
                    self.err("E2004", "OUTPUT must be bound to a result (result.*)", item.span)
                b = self.result_binding(item)
                if self._rest:
                    # "OUTPUT o = result.position.xy;": <resultBinding> has no write mask
                    self.err("E2004", "unexpected selector after the result binding",
                             self._rest[0].span)
                reg = Register(name, RegKind.OUTPUT, DataType.NONE, None, (b,), span=span)
        self.declare(name, d.kind, reg)

    def binding_alias(self, d: Decl, name: str, span: Span) -> None:
        """``ALIAS oPos = result.position;``: an ALIAS whose right-hand side is a binding.

        ARBVP 2.14.3.6 says "the right hand side must be an established variable name" (and
        the grammar's <establishedName> is an <identifier>), so the specification rejects it.
        NVIDIA's drivers accepted it, and a whole family of shipped programs relies on that
        (foonull/HaloMD: every one of its 79 vertex programs opens with
        ``ALIAS oPos = result.position; ALIAS oT0 = result.texcoord[0]; ...``).

        Reading (documented, warning E2016): the statement declares ``name`` exactly as the
        corresponding declaration would -- ``OUTPUT name = result.*``, ``ATTRIB name =
        vertex.*``, ``PARAM name = program.*|state.*`` -- with every check of that declaration
        (unknown binding, position-invariant result.position, attribute aliasing, a single
        PARAM binding one vector, no write mask or swizzle after the binding).  An alias of a
        component of a declared variable (``ALIAS a = r0.x``) is still an error: it has no
        declaration to stand for."""
        ref = d.init[0]
        kinds = {"result": "OUTPUT", "vertex": "ATTRIB", "program": "PARAM", "state": "PARAM"}
        kind = kinds.get(ref.name)
        if kind is None or ref.name in self.names or ref.name in self.aliases:
            if kind is None and ref.name not in self.names and ref.name not in self.aliases:
                if ref.name in self.poisoned:
                    raise _Skip
                self.err("E2003", f"ALIAS of undeclared name '{ref.name}'", d.target[1])
            self.err("E1002", "the right-hand side of ALIAS must be a declared name or a "
                     "binding (vertex.*, result.*, program.*, state.*), not a component or an "
                     "element of a variable (ARBVP 2.14.3.6)", ref.selectors[0].span)
        self.check_new_name(name, span)
        if kind == "OUTPUT":
            b = self.result_binding(ref)
            if self._rest:
                self.err("E2004", "unexpected selector after the result binding",
                         self._rest[0].span)
            reg = Register(name, RegKind.OUTPUT, DataType.NONE, None, (b,), span=span)
        elif kind == "ATTRIB":
            b = self.attribute_binding(ref, decl=True)
            reg = Register(name, RegKind.INPUT, DataType.NONE, None, (b,), span=span)
        else:
            binds, vals = self.param_item(ref, decl_single=True)
            reg = Register(name, RegKind.PARAM, DataType.NONE, None, tuple(binds),
                           (vals[0] or (0, 0, 0, 0),), span=span)
        self.binding_aliases.append((name, ref.span, kind))
        self.declare(name, kind, reg)

    def warn_binding_aliases(self) -> None:
        """One E2016 warning per program, at the first ALIAS of a binding, listing the rest."""
        if not self.binding_aliases:
            return
        name, span, kind = self.binding_aliases[0]
        more = self.binding_aliases[1:]
        notes = ["accepted for compatibility with NVIDIA's drivers: each such ALIAS declares its "
                 "name as the matching OUTPUT, ATTRIB or PARAM would"]
        if more:
            notes.append(f"{len(more)} more ALIAS statement{'s' if len(more) > 1 else ''} of a "
                         "binding on line" + ("s " if len(more) > 1 else " ")
                         + ", ".join(str(s.line) for _, s, _ in more))
        self.sink.warning("E2016", f"ALIAS '{name}' names a binding, not a declared variable "
                          f"(ARBVP 2.14.3.6 requires an established name); read as "
                          f"'{kind} {name} = ...'", span, *notes)

    def check_new_name(self, name: str, span: Span) -> None:
        if name in self.reserved():
            self.err("E2002", f"'{name}' is a reserved word", span)
        if name in self.names or name in self.aliases:
            self.err("E2001", f"'{name}' is already declared", span)

    def declare(self, name: str, kind: str, reg: Register) -> None:
        self.names[name] = reg.name
        self.name_kind[name] = kind
        if kind == "OUTPUT":
            # one register per result binding, however many names reach it: OUTPUT variables
            # (and ALIASes of bindings) and direct result.* writes share storage, as the GLSL
            # interface does -- otherwise the executor would keep two copies of one result
            b = reg.bindings[0]
            if b in self.output_regs:
                self.names[name] = self.output_regs[b]
                return
            self.output_regs[b] = reg.name
        self.prog.registers[reg.name] = reg

    def lookup(self, name: str) -> tuple[str, str] | None:
        name = self.aliases.get(name, name)
        if name in self.names:
            return self.names[name], self.name_kind[name]
        return None

    def param_decl(self, d: Decl, name: str, span: Span) -> Register:
        items = d.init
        if not d.array:
            if d.init_is_list:           # PARAM c = {1, 2, 3, 4};
                if not all(isinstance(i, Number) for i in items):
                    self.err("E2007", f"PARAM '{name}' is not an array; declare '{name}[]' for a "
                             "list of bindings", span)
                return Register(name, RegKind.PARAM, DataType.NONE, None, (None,),
                                (self.const_words(items),), span=span)
            binds, vals = self.param_item(items[0], decl_single=True)
            if len(binds) != 1:
                self.err("E2005", f"PARAM '{name}' is not an array but its binding has "
                         f"{len(binds)} elements; declare it as '{name}[]'", span)
            return Register(name, RegKind.PARAM, DataType.NONE, None, tuple(binds),
                            (vals[0] or (0, 0, 0, 0),), span=span)
        if d.size is not None and d.size <= 0:
            self.err("E2006", "a PARAM array needs at least one element", span)
        if not d.init_is_list:
            self.err("E1002", f"the array '{name}' needs a braced initializer list: "
                     f"'{name}[] = {{ ... }}'", span)
        binds, vals = [], []
        for item in items:
            b, v = self.param_item(item, decl_single=False)
            binds += b
            vals += v
        if d.size is not None and d.size != len(binds):
            # ARBVP 2.14.3.2: an array size that "does not match the number of parameter
            # bindings in the initialization list" fails to load
            self.err("E2005", f"'{name}' is declared with {d.size} elements but bound to "
                     f"{len(binds)}", span)
        return Register(name, RegKind.PARAM, DataType.NONE, len(binds), tuple(binds),
                        tuple(v or (0, 0, 0, 0) for v in vals), span=span)

    def param_item(self, item, decl_single: bool):
        if isinstance(item, Ref):
            if item.name not in ("program", "state"):
                self.err("E2004", f"'{item.name}' is not a program parameter binding (expected "
                         "program.env, program.local, state.* or a constant)", item.span)
            self.check_ranges(item)
            res = self.resolve(item, PROGRAM if item.name == "program" else STATE, decl=True)
            if res.rest:
                self.err("E2004", "unexpected selector after a parameter binding",
                         res.rest[0].span)
            if decl_single and len(res.bindings) > 1:
                self.err("E2005", "a single PARAM binds one vector; declare an array with [] for "
                         "a range or a whole matrix", item.span)
            return list(res.bindings), [None] * len(res.bindings)
        if isinstance(item, list):
            return [None], [self.const_words(item)]
        return [None], [self.const_words([item] * 4)]

    def check_ranges(self, ref: Ref) -> None:
        """ARBVP grammar: ``[a..b]`` only on program.env/local and matrix ``.row``."""
        prev = ref.name
        for sel in ref.selectors:
            if isinstance(sel, Subscript) and isinstance(sel.index, IndexRange):
                if prev not in RANGE_MEMBERS:
                    self.err("E2004", f"an index range is not allowed on '{prev}' (only on "
                             "program.env, program.local and state.matrix....row)", sel.span)
                if sel.index.first > sel.index.last:
                    self.err("E2006", f"empty range [{sel.index.first}..{sel.index.last}]",
                             sel.span)
            if isinstance(sel, Member):
                prev = sel.name

    def const_words(self, nums: list[Number]) -> tuple[int, int, int, int]:
        if len(nums) > 4:
            self.err("E1007", "a constant vector has at most 4 components", nums[4].span)
        words = []
        for n in nums:
            if n.text[:2] in ("0x", "0X"):
                self.err("E1007", f"'{n.text}': hexadecimal constants do not exist in ARB "
                         "programs", n.span)
            value = float(n.text)
            words.append(f32_bits(-value if n.negative else value))
        while len(words) < 4:          # {x} = (x, 0, 0, 1) (ARBVP 2.14.3.2 constant bindings)
            words.append(f32_bits(1.0) if len(words) == 3 else 0)
        return tuple(words)

    def resolve(self, ref: Ref, root, decl: bool) -> B.Resolved:
        try:
            return B.resolve(ref.name, root, ref.selectors, ref.span, decl=decl)
        except B.BindingError as e:
            self.err(e.code, str(e), e.span)

    def attribute_binding(self, ref: Ref, decl: bool) -> Binding:
        res = self.resolve(ref, VERTEX_INPUTS, decl)
        if len(res.bindings) != 1:
            self.err("E2004", "one attribute binding expected", ref.span)
        b = res.bindings[0]
        if b.path in ("vertex.weight", "vertex.matrixindex") and b.index % 4:
            # ARBVP 2.14.3.1: the weight / matrix index number must be divisible by four
            self.err("E2006", f"{b.path}[{b.index}]: the index must be a multiple of four "
                     "(and below MAX_VERTEX_UNITS_ARB = 4)", ref.span)
        if decl and res.rest:
            self.err("E2004", "unexpected selector after the attribute binding", res.rest[0].span)
        self.check_aliasing(b, ref.span)
        self._rest = res.rest
        return b

    def result_binding(self, ref: Ref) -> Binding:
        root = VERTEX_RESULTS_NV2 if self.feat.labels else VERTEX_RESULTS
        sels = ref.selectors
        if not self.feat.labels and sels and isinstance(sels[0], Member) and sels[0].name == "clip":
            self.err("E2004", "result.clip[n] needs OPTION NV_vertex_program2", ref.span)
        res = self.resolve(ref, root, decl=False)
        b = res.bindings[0]
        if b.path == "result.position" and "ARB_position_invariant" in self.options:
            # ARBVP 2.14.4.5.1: a position-invariant program cannot bind result.position
            self.err("E2004", "result.position cannot be used with OPTION ARB_position_invariant",
                     ref.span)
        self._rest = res.rest
        return b

    def check_aliasing(self, b: Binding, span: Span) -> None:
        """ARBVP Table X.2.1: a program may not bind both a conventional attribute and the
        generic attribute it aliases."""
        slot = generic_slot(b)
        if slot is None:
            return
        n, generic = slot
        prev = self.attrib_slots.setdefault(n, (generic, b, span))
        if prev[0] != generic:
            self.err("E2013", f"'{b.text()}' and '{prev[1].text()}' are the same vertex attribute; "
                     "a program may bind only one of them (ARBVP Table X.2.1)", span,
                     f"'{prev[1].text()}' used at {prev[2]}")

    # ---- statements -----------------------------------------------------------------------------
    def label(self, lab) -> None:
        self.seen_statement = True
        super().label(lab)

    def instruction(self, ins: Instr) -> None:
        self.seen_statement = True
        super().instruction(ins)

    # ---- registers in instructions ----------------------------------------------------------------
    def implicit(self, b: Binding, kind: RegKind) -> str:
        if kind == RegKind.OUTPUT and b in self.output_regs:
            return self.output_regs[b]
        name = b.text()
        if kind == RegKind.OUTPUT:
            self.output_regs[b] = name
        if name not in self.prog.registers:
            self.prog.registers[name] = Register(name, kind, DataType.NONE, None, (b,),
                                                 implicit=True)
        return name

    def address_register(self, ref: Ref) -> tuple[str, list]:
        found = self.lookup(ref.name)
        if found is None or found[1] != "ADDRESS":
            if ref.name in self.poisoned:
                raise _Skip
            what = "undeclared" if found is None else f"a {found[1]} variable, not"
            self.err("E3005" if found else "E2003", f"'{ref.name}' is {what} an address register"
                     + (" (declare it with ADDRESS)" if found is None else ""), ref.span)
        return found[0], list(ref.selectors)

    def index(self, sub: Subscript, size: int | None, what: str) -> Index:
        idx = sub.index
        if isinstance(idx, IndexConst):
            if size is not None and not 0 <= idx.value < size:
                self.err("E2006", f"index {idx.value} out of range for '{what}' ({size} elements)",
                         sub.span)
            return Index(idx.value)
        if isinstance(idx, IndexRange):
            self.err("E2006", "index ranges are only allowed in PARAM declarations", sub.span)
        found = self.lookup(idx.reg)
        if found is None or found[1] != "ADDRESS":
            if idx.reg in self.poisoned:
                raise _Skip
            self.err("E2010", f"'{idx.reg}' is not an address register; relative indices use an "
                     "ADDRESS variable component: a[A0.x + 1]", idx.span)
        if idx.comp is None or idx.comp not in XYZW:
            self.err("E2010", f"invalid address register component "
                     f"'{'.' + idx.comp if idx.comp else '(none)'}' (write {idx.reg}.x)", idx.span)
        if not self.feat.vector_arl and idx.comp != "x":
            self.err("E2010", f"'{idx.reg}.{idx.comp}': only the x component of an address register "
                     "exists without OPTION NV_vertex_program2", idx.span)
        lo, hi = REL_OFFSET_MAX
        if not lo <= idx.offset <= hi:
            self.err("E2006", f"relative offset {idx.offset:+d} out of range [{lo}, {hi}]",
                     idx.span)
        lo, hi = REL_OFFSET
        if not lo <= idx.offset <= hi and not self.feat.labels:
            # ARBVP <addrRegPosOffset> "from 0 to 63" / <addrRegNegOffset> "from 0 to 64"; the
            # NV_vertex_program2 option grammar drops the bound (<arrayMemRelOffset> ::= "+"
            # <integer>), and Mesa accepts up to MaxAddressOffset (= MAX_PROGRAM_LOCAL_PARAMS,
            # 4096) in every ARB program -- piglit's vp-arl-constant-array-huge-relative-offset
            # relies on it.  Accepted with a warning (digest 12 item 34).
            self.sink.warning("E2017", f"relative offset {idx.offset:+d} is outside ARB_vertex_"
                              f"program's range [{lo}, {hi}]; accepted (as by Mesa and the "
                              "NV_vertex_program2 option grammar)", idx.span)
        return Index(idx.offset, found[0], XYZW[idx.comp])

    def reference(self, ref: Ref, write: bool) -> tuple[str, Index | None, list]:
        """(register, element index, selectors left for the swizzle / write mask)."""
        found = self.lookup(ref.name)
        sels = list(ref.selectors)
        if found is not None:
            reg, kind = found
            r = self.prog.registers[reg]
            if kind == "ADDRESS":
                self.err("E3004" if not write else "E3005", f"address register '{ref.name}' can "
                         "only be used as an index (or by ARL/ARR/ARA/PUSHA/POPA)", ref.span)
            if write and kind not in ("TEMP", "OUTPUT"):
                self.err("E3005", f"'{ref.name}' is a{'n' if kind[0] in 'AO' else ''} {kind} "
                         "variable and cannot be written", ref.span)
            if not write and kind == "OUTPUT":
                self.err("E3004", f"'{ref.name}' is an OUTPUT variable and cannot be read",
                         ref.span)
            index = None
            if r.size is not None:
                if not sels or not isinstance(sels[0], Subscript):
                    self.err("E2007", f"array '{ref.name}' must be indexed", ref.span)
                index = self.index(sels.pop(0), r.size, ref.name)
                if index.relative:
                    self.note_relative_array(r, ref.span)
            elif sels and isinstance(sels[0], Subscript):
                self.err("E2007", f"'{ref.name}' is not an array and cannot be indexed",
                         sels[0].span)
            return reg, index, sels
        if ref.name in self.poisoned:
            raise _Skip
        if ref.name == "vertex":
            if write:
                self.err("E3005", "vertex attributes are read-only", ref.span)
            rel = self.relative_binding(ref, "vertex", ("attrib", "texcoord"))
            if rel is not None:
                return rel
            b = self.attribute_binding(ref, decl=False)
            return self.implicit(b, RegKind.INPUT), None, self._rest
        if ref.name == "result":
            if not write:
                self.err("E3004", "result bindings are write-only", ref.span)
            rel = self.relative_binding(ref, "result", ("texcoord",))
            if rel is not None:
                return rel
            b = self.result_binding(ref)
            return self.implicit(b, RegKind.OUTPUT), None, self._rest
        if ref.name in ("program", "state"):
            if write:
                self.err("E3005", "program parameters are read-only", ref.span)
            self.check_ranges(ref)
            res = self.resolve(ref, PROGRAM if ref.name == "program" else STATE, decl=False)
            return self.implicit(res.bindings[0], RegKind.PARAM), None, res.rest
        if ref.name == "texture":
            self.err("E3004", "a texture unit is not a value operand", ref.span)
        if ref.name == "CC" and write and self.feat.cc_regs:
            # VP2O/VP3 examples write "MOVC CC, R0": a condition-code-only destination (digest
            # 12 item 4), accepted when no variable is called CC
            if "CC" not in self.prog.registers:
                self.prog.registers["CC"] = Register("CC", RegKind.TEMP, DataType.NONE,
                                                     implicit=True)
            return "CC", None, sels
        self.err("E2003", f"undeclared name '{ref.name}'",
                 Span(ref.span.file, ref.span.line, ref.span.col, len(ref.name)))

    def relative_binding(self, ref: Ref, root: str, members: tuple[str, ...]):
        """VP3 2.14.3.1 / 2.14.3.4: ``vertex.attrib[A0.x + n]``, ``vertex.texcoord[A0.x + n]``,
        ``result.texcoord[A0.x + n]`` -> an element of an array register over the binding."""
        sels = ref.selectors
        if len(sels) < 2 or not isinstance(sels[0], Member) or sels[0].name not in members or \
                not isinstance(sels[1], Subscript) or not isinstance(sels[1].index, IndexRel):
            return None
        if not self.feat.sat:           # NV_vertex_program3
            self.err("E2010", f"relative addressing of '{root}.{sels[0].name}' needs OPTION "
                     "NV_vertex_program3", sels[1].span)
        member = sels[0].name
        count = 16 if member == "attrib" else 8
        index = self.index(sels[1], None, f"{root}.{member}")
        path = f"{root}.{member}"
        kind = RegKind.INPUT if root == "vertex" else RegKind.OUTPUT
        if path not in self.prog.registers:
            self.prog.registers[path] = Register(
                path, kind, DataType.NONE, count, tuple(Binding(path, i) for i in range(count)),
                implicit=True)
        if path == "vertex.attrib":
            self.rel_attrib = True
        if path == "result.texcoord":
            self.rel_result = True
        return path, index, list(sels[2:])

    def note_relative_array(self, reg: Register, span: Span) -> None:
        """ARBVP 2.14.3.2: "a vertex program will fail to load if any GL state vector is bound
        multiple times in a single array accessed using relative addressing or bound once in
        two or more arrays accessed using relative addressing"."""
        if reg.name in self.relative_arrays or reg.kind != RegKind.PARAM:
            return
        self.relative_arrays.add(reg.name)
        for b in reg.bindings:
            if b is None:
                continue
            owner = self.relative_owner.setdefault(b, reg.name)
            if owner != reg.name:
                self.err("E2012", f"binding '{b.text()}' is used in two relatively addressed "
                         f"arrays ('{owner}' and '{reg.name}')", span)
            if sum(1 for o in reg.bindings if o == b) > 1:
                self.err("E2012", f"binding '{b.text()}' appears twice in the relatively "
                         f"addressed array '{reg.name}'", span)

    # ---- operands ----------------------------------------------------------------------------------
    def source(self, opnd: Operand, scalar: bool) -> Source:
        if opnd.kind in ("cc", "offsets", "target"):
            self.err("E3004", "expected a variable, binding or constant operand", opnd.span)
        self.operand_sign(opnd)
        if opnd.kind in ("num", "vec"):
            words = self.const_words(opnd.numbers if opnd.kind == "vec" else opnd.numbers * 4)
            reg = self.const_register(words, F)
            swz = IDENTITY
            if opnd.swizzle is not None:
                swz = self.swizzle(opnd.swizzle[0], opnd.swizzle[1], vector=not scalar)
            elif scalar and opnd.kind == "vec":
                self.err("E3004", "a constant vector used as a scalar operand needs a component "
                         "selector (for example '{1, 2}.x')", opnd.span)
            elif scalar and not self.feat.labels and not self.scalar_const_warned:
                # ARBVP <paramConstScalarUse> needs a <scalarSuffix>; VP2O issues call it a
                # grammar bug and fix it -- accepted here with a warning (digest 12 item 10)
                self.scalar_const_warned = True
                self.sink.warning("E3004", "a scalar constant used as a scalar operand needs a "
                                  "component selector in ARBvp1.0 ('2.0.x'); accepted",
                                  opnd.span)
            return Source(reg, swizzle=swz, neg=opnd.neg, abs=opnd.abs)
        if opnd.ccmask is not None:
            self.err("E3004", "a condition-code mask is only allowed on the destination",
                     opnd.ccmask.span)
        reg, index, rest = self.reference(opnd.ref, write=False)
        swz = self.swizzle_of(rest, opnd, scalar)
        self.count_attribute(reg)
        return Source(reg, index, None, swz, opnd.neg, opnd.abs)

    def count_attribute(self, reg: str) -> None:
        pass

    def dest(self, opnd: Operand) -> Dest:
        if opnd.kind != "ref" or opnd.neg or opnd.abs:
            self.err("E3005", "the destination must be a TEMP, an OUTPUT or a result binding "
                     "without sign or absolute value", opnd.span)
        reg, index, rest = self.reference(opnd.ref, write=True)
        mask = self.dest_mask(rest, "the destination")
        cond = self.ccmask(opnd.ccmask) if opnd.ccmask is not None else None
        return Dest(reg, index, mask, cond)

    # ---- SWZ and textures ---------------------------------------------------------------------------
    def swz(self, ins: Instr, base, sig, ccreg, sat) -> None:
        if len(ins.operands) != 6:
            self.err("E3003", "SWZ takes a destination, a source and four extended swizzle "
                     f"selectors; found {len(ins.operands)} operands", ins.span)
        dst = self.dest(ins.operands[0])
        src_op = ins.operands[1]
        if src_op.neg or src_op.abs or src_op.span.col != getattr(src_op.ref, "span", src_op.span).col:
            self.err("E3004", "the SWZ source takes no sign or absolute value (put signs on the "
                     "selectors)", src_op.span)
        src = self.source(src_op, scalar=False)
        if src.swizzle != IDENTITY or (src_op.kind == "ref" and self._has_swizzle(src_op)):
            self.err("E3004", "the SWZ source takes no swizzle", src_op.span)
        sel, negs = [], []
        for opnd in ins.operands[2:]:
            if opnd.kind == "num" and opnd.numbers[0].text in ("0", "1") and opnd.swizzle is None \
                    and not opnd.abs:
                sel.append(4 if opnd.numbers[0].text == "0" else 5)
            elif opnd.kind == "ref" and not opnd.ref.selectors and opnd.ref.name in XYZW \
                    and not opnd.abs and opnd.ccmask is None:
                sel.append(XYZW[opnd.ref.name])
            else:
                self.err("E3004", "extended swizzle selectors are 0, 1, x, y, z or w, each with an "
                         "optional sign", opnd.span)
            negs.append(opnd.neg)
        srcs = [Source(src.reg, src.index, None, tuple(sel), comp_neg=tuple(negs))]
        self.emit("SWZ", dst, srcs, span=ins.span, cc=ccreg, cc_kind=_float_kind(ccreg), sat=sat)

    @staticmethod
    def _has_swizzle(opnd: Operand) -> bool:
        return any(isinstance(s, Member) and len(s.name) <= 4 and set(s.name) <= set("xyzw")
                   for s in opnd.ref.selectors[-1:])

    def tex(self, ins: Instr, base: str, sig, ccreg, sat) -> None:
        self.expect(ins, 4, "a destination, a coordinate, a texture unit and a target")
        dst, src, unit, target = self.all_of([
            lambda: self.dest(ins.operands[0]), lambda: self.source(ins.operands[1], scalar=False),
            lambda: self.texture_unit(ins.operands[2]),
            lambda: self.texture_target(ins.operands[3])])
        prev = self.tex_targets.get(unit)
        if prev is not None and prev[0] != target:
            self.err("E5002", f"texture unit {unit} is used with target {target} and {prev[0]}",
                     ins.operands[3].span, f"{prev[0]} used at {prev[1]}")
        self.tex_targets.setdefault(unit, (target, ins.operands[3].span))
        if len(self.tex_targets) > MAX_VERTEX_TEXTURE_UNITS:
            self.err("E5004", f"a vertex program can use at most {MAX_VERTEX_TEXTURE_UNITS} "
                     "texture units (MAX_VERTEX_TEXTURE_IMAGE_UNITS_ARB, VP3 2.14.3.7)",
                     ins.operands[2].span)
        # VP3 2.14.5.46: TXB is completely equivalent to TXL in a vertex program
        op = "TXL" if base == "TXB" else base
        self.emit(op, dst, [src], span=ins.span, cc=ccreg, cc_kind=_float_kind(ccreg), sat=sat,
                  tex=TexRef(unit, target))

    def texture_unit(self, opnd: Operand) -> int:
        if opnd.kind != "ref" or opnd.ref.name != "texture" or opnd.neg or opnd.abs:
            self.err("E3004", "expected a texture unit ('texture[n]')", opnd.span)
        sels = opnd.ref.selectors
        if not sels:
            return 0
        if len(sels) != 1 or not isinstance(sels[0], Subscript) or \
                not isinstance(sels[0].index, IndexConst):
            self.err("E3004", "a texture unit is 'texture' or 'texture[n]' with a constant n",
                     opnd.span)
        unit = sels[0].index.value
        if not 0 <= unit <= MAX_TEXTURE_UNIT:
            self.err("E5004", f"texture unit {unit} out of range [0, {MAX_TEXTURE_UNIT}]",
                     sels[0].span)
        return unit

    def texture_target(self, opnd: Operand) -> str:
        name = opnd.target if opnd.kind == "target" else (
            opnd.ref.name if opnd.kind == "ref" and not opnd.ref.selectors else None)
        if name in TARGETS:
            return name
        if name in SHADOW_TARGETS:
            if "ARB_fragment_program_shadow" not in self.options:
                self.err("E5001", f"the {name} target needs OPTION ARB_fragment_program_shadow",
                         opnd.span)
            return name
        self.err("E5001", "expected a texture target (1D, 2D, 3D, CUBE, RECT; SHADOW1D, SHADOW2D, "
                 "SHADOWRECT with OPTION ARB_fragment_program_shadow)", opnd.span)

    # ---- end of program ---------------------------------------------------------------------------
    def finish(self) -> None:
        super().finish()
        self.warn_binding_aliases()
        sink, prog = self.sink, self.prog
        pi = "ARB_position_invariant" in self.options
        limit = MAX_INSTRUCTIONS - (4 if pi else 0)
        if self.ninstr > limit:
            end = self.end_span
            sink.error("E1008", f"{self.ninstr} instructions; xlate accepts at most {limit} "
                       "(MAX_PROGRAM_INSTRUCTIONS_ARB)", end)
        if sink.has_errors:
            return
        prog.options = tuple(self.options)
        self.canonical_attributes()
        if self.rel_result:
            self.unify_texcoord_results()
        if pi:
            from . import options
            options.position_invariant(prog)

    def canonical_attributes(self) -> None:
        """vertex.weight is carried as vertex.attrib[1]; with relative generic attribute reads,
        every conventional attribute as its generic alias (module docstring)."""
        for reg in list(self.prog.registers.values()):
            if reg.kind != RegKind.INPUT:
                continue
            new = []
            for b in reg.bindings:
                slot = generic_slot(b)
                if slot is not None and not slot[1] and (b.path == "vertex.weight" or self.rel_attrib):
                    b = Binding("vertex.attrib", slot[0])
                new.append(b)
            reg.bindings = tuple(new)

    def unify_texcoord_results(self) -> None:
        arr = "result.texcoord"
        singles = {name: r.bindings[0].index for name, r in self.prog.registers.items()
                   if r.kind == RegKind.OUTPUT and r.size is None and r.bindings
                   and r.bindings[0].path == arr}
        for ins in self.prog.instructions:
            if ins.dst is not None and ins.dst.reg in singles:
                ins.dst = replace(ins.dst, reg=arr, index=Index(singles[ins.dst.reg] or 0))
        for name in singles:
            del self.prog.registers[name]


def _float_kind(ccreg):
    from ...ir.model import CCKind
    return CCKind.FLOAT if ccreg is not None else None


def parse_arbvp(text: str, header: str, sink: DiagnosticSink):
    """Entry point for ``!!ARBvp1.0`` (called by frontend.py)."""
    from . import syntax
    start = (1 if text.startswith("\ufeff") else 0) + len(header)
    padded = " " * start + text[start:]
    body, _ = syntax.split_at_end(padded, start, sink)
    statements, lost = syntax.parse_statements(body, sink)
    builder = ARBVPBuilder(header, sink)
    builder.poisoned.update(lost)
    return builder.build(statements)
