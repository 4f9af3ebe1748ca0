"""Operands of NV4 instructions (part of :class:`~.nv4.NV4Builder`): literal constants in the bits
of the type that reads them (GP4 2.X.3.3), swizzles and write masks, condition-code tests,
sources and destinations, variable and binding references, relative indices.
"""
from __future__ import annotations

import re

from ...diagnostics import Span
from ...ir.model import Binding, CondTest, DataType, Dest, Index, Register, RegKind, Source, Stage
from ...ir.ops import CC_RULES
from . import bindings as B
from .syntax import CCTestNode, IndexConst, IndexRange, Member, Number, Operand, Ref, Subscript
from .nv4_tables import (FULL_MASK, IDENTITY, _A_KIND, _MASKS, _SWIZZLES, _SWZ, _Skip, _TYPE_WORD,
                         f32_bits)


class NV4Operands:
    """Part of :class:`~.nv4.NV4Builder` (mixed in): instruction operands."""

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
