"""Operands of ARBfp/FP1 instructions (part of :class:`~.arbfp.ARBfpBuilder`, over the NV4
builder's): condition-code tests in the NV_fragment_program spellings, sources with the
dialects' sign and absolute-value rules, the fixed-value inputs (``fragment.facing``,
``fragment.fogcoord``), destinations and result sizes, references and relative texture
coordinates (FP2).
"""
from __future__ import annotations

from ...diagnostics import Span
from ...ir.model import Binding, CondTest, DataType, Dest, Index, Register, RegKind, Source
from . import fp_tables as T
from .nv4_tables import _Skip
from .syntax import CCTestNode, IndexRel, Member, Operand, Ref, Subscript
from .fp_tables import CONST_COMPONENTS, F, FULL_MASK, IDENTITY, OLD_CC_RULES, _A_KIND, ref_text


class ARBfpOperands:
    """Part of :class:`~.arbfp.ARBfpBuilder` (mixed in, before the NV4 builder): instruction operands."""

    # ---- condition codes -----------------------------------------------------------------------
    def cctest(self, node) -> CondTest:
        if not self.has_cc():
            self.err("E3007", "condition codes require OPTION NV_fragment_program", node.span)
        if node.rule not in OLD_CC_RULES:
            self.err("E3007", f"unknown condition-code rule '{node.rule}' (expected one of "
                     f"{', '.join(OLD_CC_RULES)})", node.span)
        swz = IDENTITY
        if node.swizzle is not None:
            swz = self.swizzle(node.swizzle, node.span, vector=True)
        return CondTest(node.rule, 0, swz)

    def as_cctest(self, opnd: Operand, only_cc: bool = False) -> CondTest | None:
        """``NE.x`` or ``(NE.x)`` read as a condition-code test (rule names are not reserved:
        where a variable of that name exists and an operand is legal too, the test wins and a
        warning says so - digest 2.2)."""
        if opnd.kind == "cc":
            return self.cctest(opnd.cctest)
        if opnd.kind == "ref" and not opnd.neg and not opnd.abs and opnd.ccmask is None:
            ref = opnd.ref
            if ref.name in OLD_CC_RULES and (
                    not ref.selectors or (len(ref.selectors) == 1 and isinstance(ref.selectors[0], Member))):
                if self.lookup(ref.name) is not None and not only_cc:
                    self.sink.warning("E3007", f"'{ref.name}' is both a variable and a "
                                      "condition-code rule; it is read as a condition-code test "
                                      "here", ref.span)
                swz = ref.selectors[0].name if ref.selectors else None
                return self.cctest(CCTestNode(ref.name, swz, ref.span))
        return None

    # ---- operands --------------------------------------------------------------------------------
    def scalar_constant_needs_selector(self) -> bool:
        # ARBFP 3.11.2 <scalarSrcReg> ::= <optionalSign> <srcReg> <scalarSuffix>: base ARB
        # requires "2.0.x"; FPO/FP2 <paramUseS> ::= <constantScalar> lift it (digest 12 item 10)
        return self.level == 0

    def source(self, opnd: Operand, optype: DataType, scalar: bool, ntc: bool) -> Source:
        if opnd.kind in ("cc", "offsets", "target"):
            self.err("E3004", "expected a register, binding or constant operand", opnd.span)
        if opnd.abs and not self.has_abs():
            self.err("E3004", "absolute value operands '|x|' require OPTION NV_fragment_program",
                     opnd.span)
        if opnd.kind == "num":
            num = opnd.numbers[0]
            swz = IDENTITY
            if opnd.swizzle is not None:
                swz = self.swizzle(opnd.swizzle[0], opnd.swizzle[1], vector=not scalar)
            elif scalar and self.scalar_constant_needs_selector():
                self.err("E3004", f"the scalar constant '{num.text}' used as a scalar operand needs "
                         f"a component selector in ARB_fragment_program ('{num.text}.x'; ARBFP "
                         "3.11.2 <scalarSrcReg>, lifted by OPTION NV_fragment_program)", opnd.span)
            words = self.const_words([num] * 4, F)
            return Source(self.const_register(words, F), swizzle=swz, neg=opnd.neg, abs=opnd.abs)
        if opnd.kind == "vec":
            words = self.const_words(opnd.numbers, F)
            swz = IDENTITY
            if opnd.swizzle is not None:
                swz = self.swizzle(opnd.swizzle[0], opnd.swizzle[1], vector=not scalar)
            elif scalar:
                self.err("E3004", "a constant vector used as a scalar operand needs a component "
                         "selector (for example '{1, 2}.x')", opnd.span)
            return Source(self.const_register(words, F), swizzle=swz, neg=opnd.neg, abs=opnd.abs)
        if opnd.ccmask is not None:
            self.err("E3004", "a condition-code mask is only allowed on the destination",
                     opnd.ccmask.span)
        reg, index, vertex, rest = self.reference(opnd.ref, write=False)
        swz = IDENTITY
        if rest:
            if len(rest) > 1 or not isinstance(rest[0], Member):
                self.err("E3004", "unexpected selector", rest[-1].span)
            swz = self.swizzle(rest[0].name, rest[0].span, vector=not scalar)
        elif scalar:
            self.err("E3004", f"scalar operand '{ref_text(opnd.ref)}' needs a component selector "
                     "(for example '.x')", opnd.span)
        name = self.fixed_input(reg)
        return Source(name, index, vertex, swz, opnd.neg, opnd.abs)

    def has_abs(self) -> bool:
        return self.level >= 1

    def fixed_input(self, reg: Register) -> str:
        """Attributes with constant y, z, w are read through a temporary (module docstring)."""
        if reg.kind != RegKind.INPUT or reg.size is not None:
            return reg.name
        b = reg.bindings[0]
        consts = self.const_components(b)
        if consts is None:
            return reg.name
        tmp = self.fixed_inputs.get(reg.name)
        if tmp is None:
            tmp = self.temp(f"%{b.path.split('.')[-1]}")
            self.fixed_inputs[reg.name] = tmp
        return tmp

    def const_components(self, b: Binding):
        return CONST_COMPONENTS.get(b.path)

    def dest(self, opnd: Operand, rtype: DataType, ntc: bool) -> Dest:
        if opnd.kind != "ref" or opnd.neg or opnd.abs:
            self.err("E3005", "the destination must be a TEMP, an OUTPUT or a result binding "
                     "without sign or absolute value", opnd.span)
        ref = opnd.ref
        self.dest_half = False
        if ref.name == "CC" and self.cc_dummy_allowed() and self.lookup("CC") is None:
            # "MOVC CC, R0;" (FP2 3.11.4.X example): a condition-code-only destination
            reg = self.prog.registers.setdefault("CC", Register("CC", RegKind.TEMP, DataType.NONE,
                                                                implicit=True))
            index, rest = None, ref.selectors
        else:
            reg, index, _, rest = self.reference(ref, write=True)
        self.dest_half = self.destination_is_half(ref, reg)
        mask = FULL_MASK
        if rest:
            if len(rest) > 1 or not isinstance(rest[0], Member):
                self.err("E3005", "unexpected selector on the destination", rest[-1].span)
            mask = self.mask(rest[0].name, rest[0].span)
        cond = None
        if opnd.ccmask is not None:
            if not self.has_cc():
                self.err("E3005", "condition-code write masks require OPTION NV_fragment_program",
                         opnd.ccmask.span)
            cond = self.cctest(opnd.ccmask)
        if reg.kind == RegKind.OUTPUT:
            self.note_result_size(reg, ref.name, opnd.span)
        return Dest(reg.name, index, mask, cond)

    def cc_dummy_allowed(self) -> bool:
        return self.has_cc()

    def note_result_size(self, reg: Register, name: str, span: Span) -> None:
        """FPO 3.11.3.4: writing one result through variables declared with different sizes
        fails to load (a direct result.* use declares no size and is not compared)."""
        size = self.var_size.get(name)
        if size is None:
            return
        b = reg.bindings[0]
        sizes = self.result_sizes.setdefault(b, {})
        sizes.setdefault(size, span)
        if len(sizes) > 1:
            other = next(s for s in sizes if s != size)
            self.sink.error("E2008", f"'{b.text()}' is written through variables declared "
                            f"{other} and {size} (FPO 3.11.3.4)", span,
                            f"{other} write at {sizes[other]}")

    def reference(self, ref: Ref, write: bool):
        reg = self.lookup(ref.name)
        if reg is not None:
            if write and reg.kind not in (RegKind.TEMP, RegKind.OUTPUT):
                self.err("E3005", f"'{ref.name}' is {_A_KIND.get(reg.kind, 'a ' + reg.kind.value)} "
                         "variable and cannot be written", ref.span)
            if not write and reg.kind == RegKind.OUTPUT:
                self.err("E3004", f"'{ref.name}' is an OUTPUT variable and cannot be read", ref.span)
            return self.variable_use(reg, ref, write)
        if ref.name in ("program", "state"):
            if write:
                self.err("E3005", "program parameters are read-only", ref.span)
            root = T.ARBFP_PROGRAM if ref.name == "program" else T.ARBFP_STATE
            res = self.resolve(ref, root, decl=False)
            return self.implicit(res.bindings[0], RegKind.PARAM), None, None, res.rest
        if ref.name in ("fragment", "result"):
            if ref.name == "result" and not write:
                self.err("E3004", "result bindings are write-only", ref.span)
            if ref.name == "fragment" and write:
                self.err("E3005", "fragment attributes are read-only", ref.span)
            if ref.name == "fragment":
                rel = self.relative_texcoord(ref)
                if rel is not None:
                    return rel
            kind = RegKind.OUTPUT if ref.name == "result" else RegKind.INPUT
            res = self.resolve_interface(ref, kind, decl=False)
            return self.implicit(res.bindings[0], kind), None, None, res.rest
        if ref.name in self.poisoned:
            raise _Skip
        if ref.name == "texture":
            self.err("E3004", "a texture unit is not a value operand", ref.span)
        if ref.name == "A0" and self.level >= 2:
            self.err("E2010", "A0 can only be used as an index: fragment.texcoord[A0.x + n]",
                     ref.span)
        self.err("E2003", f"undeclared name '{ref.name}'",
                 Span(ref.span.file, ref.span.line, ref.span.col, len(ref.name)))

    def relative_texcoord(self, ref: Ref):
        """FP2 3.11.3.1 ``fragment.texcoord[A0.x + n]`` -> an element of the texcoord array
        register, indexed by the innermost LOOP's A0 register."""
        sels = ref.selectors
        if not (len(sels) >= 2 and isinstance(sels[0], Member) and sels[0].name == "texcoord"
                and isinstance(sels[1], Subscript) and isinstance(sels[1].index, IndexRel)):
            return None
        idx = sels[1].index
        if idx.reg != "A0" or self.level < 2:
            self.err("E2010", "fragment attributes can only be indexed relatively by the loop "
                     "index A0.x (fragment.texcoord[A0.x + n], OPTION NV_fragment_program2)",
                     idx.span)
        if idx.comp != "x":
            self.err("E2010", "only A0.x exists (the loop index)", idx.span)
        if not 0 <= idx.offset <= T.MAX_A0_OFFSET:
            self.err("E2006", f"offset {idx.offset:+d} out of range: fragment.texcoord[A0.x + n] "
                     f"takes n in [0, {T.MAX_A0_OFFSET}] (FP2 3.11.2)", idx.span)
        a0 = self.current_a0()
        if a0 is None:
            self.err("E2010", "A0.x is only available inside a LOOP/ENDLOOP block (FP2 3.11.3.Y)",
                     idx.span)
        name = "fragment.texcoord[]"
        reg = self.prog.registers.get(name)
        if reg is None:
            n = T.MAX_TEXTURE_COORDS
            reg = Register(name, RegKind.INPUT, DataType.NONE, n,
                           tuple(Binding("fragment.texcoord", i) for i in range(n)), implicit=True)
            self.prog.registers[name] = reg
        return reg, Index(idx.offset, a0, 0), None, sels[2:]

    def index(self, sub: Subscript, size: int, name: str) -> Index:
        idx = sub.index
        if isinstance(idx, IndexRel):
            self.err("E2010", f"'{name}' can only be indexed with a constant (ARBFP 3.11.3.2: "
                     "program parameter arrays use absolute addressing)", sub.span)
        return super().index(sub, size, name)
