"""How the direct SPIR-V path reads registers: where an element lives (a TEMP's ``Private``
variable, the staged copy of an input or output, a program parameter's uniform or constant,
an array of parameters filled at the start of ``main``), its index clamped as the GLSL path
clamps it (``GlslEmitter.index_expr``), and an instruction's operand loaded in the type the
instruction reads it, with its absolute value, swizzle and negations applied."""
from __future__ import annotations

from ...ir.model import DataType, Index, RegKind, Source
from ..literals import literal_operand_bits
from .base import K, NotCovered


class OperandMixin:
    """Part of :class:`~xlate.backends.spirv_direct.emitter.DirectEmitter`."""

    def storage_kind(self, regname: str) -> str:
        reg = self.prog.registers[regname]
        if reg.kind == RegKind.TEMP:
            return self.regs[regname].kind
        if reg.kind in (RegKind.INPUT, RegKind.OUTPUT):
            side = "in" if reg.kind == RegKind.INPUT else "out"
            return self.staging[(side, reg.bindings[0].path)].kind
        if reg.kind == RegKind.CONST:
            return K.get(reg.dtype, "u")
        if reg.kind == RegKind.BUFFER:
            return "u"
        return "f"

    def index_value(self, idx: Index, size: int) -> int:
        """The clamped element index (an int id), as GlslEmitter.index_expr."""
        if not idx.relative:
            return self.c("i", idx.offset, 1)
        v = self.load_element(idx.reg, None)
        kind = self.storage_kind(idx.reg)
        s = self.bitcast(self.x(v, idx.comp, kind), kind, "i", 1)
        it = self.t("i", 1)
        off = idx.offset
        if off:
            s = self.ext("SClamp", it, s, self.c("i", -off - 1, 1), self.c("i", size - off, 1))
            s = self.val("IAdd", it, s, self.c("i", off, 1))
        return self.ext("SClamp", it, s, self.c("i", 0, 1), self.c("i", size - 1, 1))

    def element_ptr(self, regname: str, index: Index | None,
                    vertex: Index | None = None) -> tuple[int, str]:
        """A pointer to the element and its storage kind; ``vertex``: a geometry input's
        vertex number (the operand's ``vertex[...]``)."""
        reg = self.prog.registers[regname]
        if reg.kind == RegKind.TEMP:
            r = self.regs[regname]
        elif reg.kind in (RegKind.INPUT, RegKind.OUTPUT):
            side = "in" if reg.kind == RegKind.INPUT else "out"
            g = (self.plan.inputs if side == "in" else self.plan.outputs)[reg.bindings[0].path]
            r = self.staging[(side, g.path)]
            if side == "in":            # what the prologue stages (staging.unread_input)
                self.input_reads.add((g.path, None) if not g.indexed or (
                    index is not None and index.relative) else
                    (g.path, reg.bindings[0 if index is None else index.offset].index))
            chain = [self.vertex_chain(reg, vertex)] if g.per_vertex else []
            if not g.indexed:
                if chain:
                    return self.val("AccessChain", r.ptr_elem, r.var, *chain), r.kind
                return r.var, r.kind
            if index is None or not index.relative:
                b = reg.bindings[0 if index is None else index.offset]
                i = self.c("i", b.index, 1)
            else:
                idxs = [b.index for b in reg.bindings]
                if idxs != list(range(idxs[0], idxs[0] + len(idxs))):
                    raise NotCovered(f"relative addressing of '{regname}', whose bindings are "
                                     "not consecutive")
                i = self.index_value(index, reg.size)
                if idxs[0]:
                    i = self.val("IAdd", self.t("i", 1), i, self.c("i", idxs[0], 1))
            return self.val("AccessChain", r.ptr_elem, r.var, *chain, i), r.kind
        else:
            raise NotCovered(f"writing '{regname}' ({reg.kind.value})")
        if r.size is None:
            return r.var, r.kind
        i = self.index_value(index or Index(0), r.size)
        return self.val("AccessChain", r.ptr_elem, r.var, i), r.kind

    def load_element(self, regname: str, index: Index | None, vertex: Index | None = None) -> int:
        return self.load_typed(self.prog.registers[regname], index, vertex)[0]

    def load_typed(self, reg, index: Index | None, vertex: Index | None = None) -> tuple[int, str]:
        """The element's value and its storage kind (:meth:`storage_kind`), in one lookup."""
        rk = reg.kind
        if rk == RegKind.PARAM:
            return self.param_element(reg, index), "f"
        if rk == RegKind.BUFFER:
            return self.buffer_element(reg, index), "u"
        if rk == RegKind.TEMP:
            r = self.regs[reg.name]
            if r.size is None:
                return self.load_var(r.var, self.t(r.kind)), r.kind
        elif rk == RegKind.INPUT and vertex is None and (index is None or not index.relative):
            # an input element at a constant index: read-only after the prologue, so one
            # load serves the block (``known``, forgotten at each label and call)
            key = ("input", reg.name, None if index is None else index.offset)
            got = self.known.get(key)
            if got is None:
                ptr, kind = self.element_ptr(reg.name, index, vertex)
                got = self.known[key] = (self.val("Load", self.t(kind), ptr), kind)
            return got
        ptr, kind = self.element_ptr(reg.name, index, vertex)
        return self.val("Load", self.t(kind), ptr), kind

    def param_element(self, reg, index: Index | None) -> int:
        f4 = self.t("f")
        if index is not None and index.relative:
            binds = reg.bindings
            if all(b is not None and b.path in ("program.local", "program.env")
                   and b.path == binds[0].path for b in binds):
                idxs = [b.index for b in binds]
                if idxs == list(range(idxs[0], idxs[0] + len(idxs))):
                    i = self.index_value(index, reg.size)
                    if idxs[0]:
                        i = self.val("IAdd", self.t("i", 1), i, self.c("i", idxs[0], 1))
                    return self.uniform_load(binds[0].path.replace(".", "_"), i)
            arr = self.param_arrays.get(reg.name)
            if arr is None:
                arr = self.param_arrays[reg.name] = self.private("f", reg.size)
            ptr = self.val("AccessChain", arr.ptr_elem, arr.var, self.index_value(index, reg.size))
            return self.val("Load", f4, ptr)
        return self.param_constant_or_load(reg, 0 if index is None else index.offset)

    def param_constant_or_load(self, reg, i: int) -> int:
        b = reg.bindings[i]
        if b is None:
            return self.m.vconst_bits("f", reg.value[i])
        # the GLSL plan's name (a Cg source name where the program has one), so that the
        # uniform matches the reflection both paths share
        name, elem, _ = self.plan.uniform_of(b)
        n = self.plan.uniforms.get(name, 0)
        return self.uniform_load(name, None if elem is None and n == 0 else self.c("i", elem, 1))

    def uniform_load(self, name: str, index: int | None) -> int:
        """The parameter array ``name``'s element ``index`` (an id; None: a single one),
        loaded once per block (``known``: a uniform does not change)."""
        key = ("uniform", name, index)
        got = self.known.get(key)
        if got is None:
            got = self.known[key] = self._uniform_load(name, index)
        return got

    def _uniform_load(self, name: str, index: int | None) -> int:
        var, member, n = self.param_vars[name]
        f4 = self.t("f")
        ptr_t = self.m.pointer(self.uniform_storage, f4)
        chain = ([self.c("i", member, 1)] if member is not None else []) + (
            [index] if index is not None else [])
        ptr = self.val("AccessChain", ptr_t, var, *chain) if chain else var
        return self.val("Load", f4, ptr)

    def fill_param_arrays(self) -> None:
        for name, arr in self.param_arrays.items():
            reg = self.prog.registers[name]
            for i in range(reg.size):
                v = self.param_constant_or_load(reg, i)
                ptr = self.val("AccessChain", arr.ptr_elem, arr.var, self.c("i", i, 1))
                self.put("Store", ptr, v)

    def operand(self, src: Source, optype: DataType, scalar: bool) -> int:
        reg = self.prog.registers[src.reg]
        kind = K[optype]
        rk = reg.kind
        if rk == RegKind.CONST or (rk == RegKind.PARAM and (
                src.index is None or not src.index.relative)
                and reg.bindings[0 if src.index is None else src.index.offset] is None):
            return self.const_operand(src, reg, optype, scalar)
        v, skind = self.load_typed(reg, src.index, src.vertex)
        if scalar and src.swizzle[0] <= 3:
            # one component: taken out first, its modifiers applied to it alone
            return self.scalar_operand(v, skind, kind, src)
        if skind != kind:
            v = self.val("Bitcast", self.t(kind), v)
        if src.abs and kind != "u":
            v = self.ext("FAbs" if kind == "f" else "SAbs", self.t(kind), v)
        sel = src.swizzle
        if sel != _IDENTITY:
            if max(sel) > 3:
                one = 0x3F800000 if kind == "f" else 1
                ext = self.m.vconst_bits(kind, (0, one, 0, 0))
                v = self.shuffle(v, ext, sel, kind)
            else:
                v = self.shuffle(v, v, sel, kind)
        neg = src.neg
        comp_neg = src.comp_neg
        if neg or comp_neg != _NO_NEG:
            negs = tuple(n != neg for n in comp_neg)
            if any(negs):
                negated = self.negate(v, kind)
                v = negated if all(negs) else self.shuffle(
                    v, negated, [4 + i if n else i for i, n in enumerate(negs)], kind)
        if scalar:
            v = self.val("CompositeExtract", self.t(kind, 1), v, 0)
        return v

    def scalar_operand(self, v: int, skind: str, kind: str, src: Source) -> int:
        """The one component a scalar operand reads (its swizzle's first) of the loaded
        vector ``v`` of kind ``skind``, as ``kind``, with |abs| and the negations applied:
        what :meth:`operand` gives for the whole vector, component 0."""
        s = self.val("CompositeExtract", self.t(skind, 1), v, src.swizzle[0])
        if skind != kind:
            s = self.val("Bitcast", self.t(kind, 1), s)
        if src.abs and kind != "u":
            s = self.ext("FAbs" if kind == "f" else "SAbs", self.t(kind, 1), s)
        if src.comp_neg[0] != src.neg:
            s = self.negate(s, kind, 1)
        return s

    def negate(self, v: int, kind: str, n: int = 4) -> int:
        if kind == "f":
            return self.fval("FNegate", self.t("f", n), v)
        return self.val("SNegate", self.t(kind, n), v)

    def const_operand(self, src: Source, reg, optype: DataType, scalar: bool) -> int:
        if reg.kind == RegKind.CONST:
            words = reg.value[0]
        else:
            words = reg.value[0 if src.index is None else src.index.offset]
        out = literal_operand_bits(words, src, optype)
        kind = K[optype]
        return self.m.const_bits(kind, out[0]) if scalar else self.m.vconst_bits(kind, out)


_IDENTITY = (0, 1, 2, 3)
_NO_NEG = (False, False, False, False)
