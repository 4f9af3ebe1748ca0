"""Operands: register elements (staged, direct, relatively indexed), parameters and literal
tables, swizzles, negation and absolute value, and the type of each access."""
from __future__ import annotations


import math
import struct

from ...ir.model import (DataType, Index, RegKind, Source)
from .. import interface as I

from ..refusal import Unsupported
from .expressions import UNARY, folded_spelling, literal_source, place
from ..literals import literal_operand_bits
from .text import COMP, _PLAIN, bitcast, called, literal, swizzle_text, vec_type, vector_literal


class Operands:
    """Part of :class:`~xlate.backends.glsl.emitter.GlslEmitter` (mixed in)."""

    def index_expr(self, idx: Index, size: int) -> str:
        if not idx.relative:
            return str(idx.offset)
        reg = self.prog.registers[idx.reg]
        base = self.element(idx.reg, None, None) + "." + COMP[idx.comp]
        st = self.storage_type(idx.reg) if reg.kind != RegKind.PARAM else DataType.FLOAT
        value = bitcast(base, st, DataType.INT, scalar=True)
        if idx.offset:
            # the executor adds in 64 bits before clamping (exec/operands.py); clamping the
            # register first keeps the 32-bit sum from wrapping (ARL of a huge float + offset)
            off = idx.offset
            value = f"clamp({value}, {-off - 1}, {size - off}) + {off}"
        return f"clamp({value}, 0, {size - 1})"

    def element(self, regname: str, index: Index | None, vertex: Index | None) -> str:
        """GLSL lvalue/rvalue of one element of a register, in its storage type."""
        reg = self.prog.registers[regname]
        kind = reg.kind
        if kind == RegKind.TEMP:
            self.used_temps.add(regname)
            name = self.name_of(regname)
            self.vector_names.add(name)
            return name if index is None else f"{name}[{self.index_expr(index, reg.size)}]"
        if kind in (RegKind.INPUT, RegKind.OUTPUT):
            groups = self.inputs if kind == RegKind.INPUT else self.outputs
            b0 = reg.bindings[0]
            g = groups[b0.path]
            if kind == RegKind.INPUT and b0.path in self.direct_paths:
                b = b0 if index is None else reg.bindings[index.offset]
                return self.direct_inputs[(b.path, b.index)]
            if kind == RegKind.OUTPUT and self.direct_outputs:
                b = b0 if index is None else reg.bindings[index.offset]
                lvalue = self.direct_outputs.get((b.path, b.index))
                if lvalue is not None:
                    return lvalue
            vexpr = None
            if g.per_vertex:
                v = vertex if vertex is not None else Index(b0.vertex or 0)
                vexpr = self.index_expr(v, self.nverts)
            if not g.indexed:
                return g.storage + (f"[{vexpr}]" if vexpr is not None else "")
            if index is None:
                return self.staged_element(g, vexpr, str(b0.index))
            if not index.relative:
                return self.staged_element(g, vexpr, str(reg.bindings[index.offset].index))
            idxs = [b.index for b in reg.bindings]
            if idxs != list(range(idxs[0], idxs[0] + len(idxs))):
                raise Unsupported(f"relative addressing of '{regname}', whose bindings are not "
                                   "consecutive", None)
            inner = self.index_expr(index, reg.size)
            return self.staged_element(g, vexpr, f"{idxs[0]} + {inner}" if idxs[0] else inner)
        if kind == RegKind.PARAM:
            if index is not None and index.relative:
                return self.param_relative(reg, index)
            i = 0 if index is None else index.offset
            return self.param_element(reg, i)
        if kind == RegKind.BUFFER:
            b = reg.bindings[0]
            self.buffers.setdefault(b.index, 1)
            blk = f"buffer{b.index}.words"
            if index is None:
                pos = "0"
            elif index.relative:
                pos = self.index_expr(index, reg.size)
            else:
                pos = str(index.offset)
            if reg.buffer_vec4:
                return f"{blk}[{b.index2} + {pos}]" if b.index2 else f"{blk}[{pos}]"
            word = f"{b.index2} + {pos}" if b.index2 else pos
            if word.isdigit():
                n = int(word)
                return f"uvec4({blk}[{n >> 2}].{COMP[n & 3]})"
            return f"uvec4({blk}[({word}) >> 2][({word}) & 3])"
        raise AssertionError(kind)

    def staged_element(self, g: I.Group, vexpr: str | None, iexpr: str) -> str:
        """Element ``iexpr`` of an indexed staging array (of vertex ``vexpr`` in geometry
        programs).  Without arrays of arrays (GLSL 3.30) the per-vertex arrays are one array,
        vertex-major: ``[v * size + i]``, the indices clamped as before."""
        if vexpr is None:
            return f"{g.storage}[{iexpr}]"
        if self.info.arrays_of_arrays:
            return f"{g.storage}[{vexpr}][{iexpr}]"
        if vexpr.isdigit() and iexpr.isdigit():
            return f"{g.storage}[{int(vexpr) * g.size + int(iexpr)}]"
        return f"{g.storage}[{vexpr} * {g.size} + {iexpr}]"

    def param_element(self, reg, i: int) -> str:
        b = reg.bindings[i]
        if b is None:
            return vector_literal(reg.value[i], DataType.FLOAT if reg.dtype == DataType.NONE else reg.dtype) \
                if reg.dtype in (DataType.NONE, DataType.FLOAT) else \
                bitcast(vector_literal(reg.value[i], reg.dtype), reg.dtype, DataType.FLOAT)
        name, elem, _ = self.uniform_of(b)
        return name if elem is None and self.uniforms.get(name, 0) == 0 else f"{name}[{elem}]"

    @staticmethod
    def literal_table_exact(reg) -> bool:
        """True when the literal table ``reg`` (a PARAM whose elements are all constant
        vectors) can be a ``const vec4[]`` of float literals: float words, none NaN or
        infinite.  Other tables (integer words, NaN, infinities) need uintBitsToFloat, which
        glslang does not accept in a const initializer: they are stored as their bits."""
        return reg.dtype in (DataType.NONE, DataType.FLOAT) and all(
            math.isfinite(struct.unpack("<f", struct.pack("<I", w))[0])
            for vec in reg.value for w in vec)

    def param_relative(self, reg, index: Index) -> str:
        binds = reg.bindings
        if all(b is not None and b.path in ("program.local", "program.env") and b.path == binds[0].path
               for b in binds):
            idxs = [b.index for b in binds]
            if idxs == list(range(idxs[0], idxs[0] + len(idxs))):
                name = binds[0].path.replace(".", "_")
                inner = self.index_expr(index, reg.size)
                return f"{name}[{idxs[0]} + {inner}]" if idxs[0] else f"{name}[{inner}]"
        arr = self.param_arrays.get(reg.name)
        if arr is None:
            arr = "xl_p_" + self.name_of(reg.name)
            self.param_arrays[reg.name] = arr
        elem = f"{arr}[{self.index_expr(index, reg.size)}]"
        if all(b is None for b in binds) and not self.literal_table_exact(reg):
            return f"uintBitsToFloat({elem})"      # a table of bits (declare_globals)
        return elem

    # ---- operands ----------------------------------------------------------------------------------
    def operand(self, src: Source, optype: DataType, scalar: bool,
                comps: tuple[int, ...] | None = None, read=None) -> str:
        """The operand as a GLSL expression: a vector of ``optype``, its scalar component
        (``scalar``), or only the components ``comps`` of its swizzle (an instruction narrowed
        to its write mask: ``R0.zw = a.zw * b.xy`` for ``MUL R0.zw, a, b.xyxy``).  ``read``:
        (instruction, operand index), for an operand that may take an inlined value
        (``expressions.py``)."""
        sel, comp_neg = src.swizzle, src.comp_neg
        narrowed = comps is not None and len(comps) < 4
        if narrowed:
            sel = tuple(sel[c] for c in comps)
            comp_neg = tuple(comp_neg[c] for c in comps)
            if len(comps) == 1:
                scalar = True
        if read is not None and self.values:
            value = self.inlined_operand(read, sel[:1] if scalar else sel, scalar)
            if value is not None:
                # a narrowed value has the write mask's components (ivec2(a.yw), not ivec4)
                expr = bitcast(value, self.storage_type(src.reg), optype, scalar, len(sel))
                if src.abs and optype != DataType.UINT:
                    expr = f"abs({expr})"
                if src.neg:
                    expr = "-" + place(expr, UNARY, True)
                return expr
        reg = self.prog.registers[src.reg]
        if literal_source(self.prog, src):
            if narrowed:         # the operand of the narrowed components (a new Source only here)
                src = Source(src.reg, src.index, src.vertex, sel, src.neg, src.abs, comp_neg)
            spelling = None
            if read is not None and optype == DataType.FLOAT:
                spelling = folded_spelling(self.prog, read[0], read[1],
                                           self.temporaries.taken if self.values else None,
                                           self.temporaries.inlined)
            return self.const_operand(src, reg, optype, scalar, spelling)
        kind = reg.kind
        expr = self.element(src.reg, src.index, src.vertex)
        storage = self.storage_type(src.reg)
        if max(sel) > 3 or True in comp_neg:
            if narrowed:
                src = Source(src.reg, src.index, src.vertex, sel, src.neg, src.abs, comp_neg)
            return self.ext_swizzle(bitcast(expr, storage, optype), src, optype)
        # the components are selected before a conversion of the register's storage type:
        # 'uintBitsToFloat(R1.xy)', 'int(R8.x)' (the same values: the conversions act per
        # component)
        if scalar:
            expr = bitcast(f"{expr}.{COMP[sel[0]]}", storage, optype, scalar=True)
        elif sel != (0, 1, 2, 3):
            expr = bitcast(f"{expr}.{swizzle_text(sel)}", storage, optype, size=len(sel))
        else:
            expr = bitcast(expr, storage, optype)
        if src.abs and optype != DataType.UINT:
            expr = f"abs({expr})"
        if src.neg:
            expr = f"-{expr}" if _PLAIN.fullmatch(expr) or called(expr) else f"-({expr})"
        return expr

    def const_operand(self, src: Source, reg, optype: DataType, scalar: bool,
                      spelling=None) -> str:
        """Literal operands are folded: swizzle, |abs| and negation applied to the bits here.
        ``spelling``: how float words are written where the compiler folds them with other
        constants (``expressions.folded_spelling``); None: the short literal."""
        if reg.kind == RegKind.CONST:
            words = reg.value[0]
            wtype = reg.dtype
        else:
            i = 0 if src.index is None else src.index.offset
            words = reg.value[i]
            wtype = reg.dtype if reg.dtype != DataType.NONE else DataType.FLOAT
        if wtype != optype:        # typeless PARAM constants read with another type: raw bits
            wtype = optype
        out = literal_operand_bits(words, src, optype)
        if spelling is not None:
            return vector_literal(out[:1] if scalar else out, optype, spelling)
        if scalar:
            return literal(out[0], optype)
        return vector_literal(out, optype)

    def ext_swizzle(self, expr: str, src: Source, optype: DataType) -> str:
        zero, one = literal(0, optype), literal(0x3F800000 if optype == DataType.FLOAT else 1, optype)
        base = f"abs({expr})" if src.abs and optype != DataType.UINT else expr
        parts = []
        for c, neg in zip(src.swizzle, src.comp_neg):
            p = zero if c == 4 else one if c == 5 else f"{base}.{COMP[c]}"
            if neg != src.neg:
                p = f"-{p}"
            parts.append(p)
        if len(parts) == 1:
            return parts[0]
        return f"{vec_type(optype, len(parts))}({', '.join(parts)})"
