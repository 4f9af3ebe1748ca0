"""The lowered tree -> SPIR-V words, with no GLSL in between.

The interface (which bindings become which variables, locations, uniform layout, texture
bindings) is the GLSL backend's own plan (:meth:`GlslEmitter.plan`, not copied): the reflection
JSON is computed by the same function from the same object, so it is identical for both paths.

Storage model, the same as the GLSL backend's: every register is a ``Private`` variable of the
type the ``types`` pass chose; inputs are copied into ``Private`` staging variables at the start
of ``main`` and outputs copied out at its end (``xl_main`` holds the program, so a RET is an
``OpReturn`` and the copies still happen).  A masked write loads the register, shuffles the new
components in and stores; a condition-code mask is an ``OpSelect`` with a boolean vector.

Semantics spelled with exact instructions (where the GLSL path calls helpers):
* every float ``OpFAdd``/``OpFSub``/``OpFMul``/``OpFDiv``/``OpFNegate`` is decorated
  ``NoContraction`` (NV_gpu_program4 issue 18: every instruction rounds its result);
* MIN/MAX are ``a > b ? ...`` selects (``OpFOrdGreaterThan``), MINN/MAXN and the VP2 set-ons
  select a NaN on ``OpIsNan``, TGSI's MINNUM/MAXNUM select the non-NaN operand;
* SNE and the CC test NE use ``OpFUnordNotEqual`` (true for NaN), SF ``OpFUnordLessThan``, the
  other comparisons the ordered ones (false for NaN), as ``templates/glsl/cctests_value.txt``;
* dot products are summed left to right (no ``OpDot``: its order is unspecified).

What is not covered raises :class:`NotCovered` naming the construct (E7006); the caller
decides whether to fall back to the glslang path.
"""
from __future__ import annotations

from dataclasses import replace

from ...ir.model import (MAX_CALL_DEPTH, CondTest, DataType, Index, Instruction, Program,
                         RegKind, Sat, Source, Stage)
from ...ir.ops import OPCODES
from ...passes.condcodes import ValueTest
from ...passes.structurize import CountTest, Structured
from ...passes.types import RAW_OPERAND_OPS, operand_type, result_type
from ..literals import literal_operand_bits
from .alu import ALU, MULHI, sad
from .base import K, Instrumentation, NotCovered, _Reg
from .dispatch import DispatchMixin
from .flow import FlowMixin
from .fragment_ops import INTERP_OPS, LANE_OPS, interpolate, lane_op, read_clock
from .geometry import GEOMETRY_MODEL, GeometryMixin
from .tess import TESS_CTRL_MODEL, TESS_EVAL_MODEL, TessMixin
from .module import DECORATION, GLSL, OP as _OP, Module, string_words
from .memory import MemoryMixin
from .images import ImageMixin
from .atomics import AtomicMixin
from .staging import StagingMixin
from .textures import TextureMixin

__all__ = ["DirectEmitter", "Instrumentation", "NotCovered", "COVERED_OPCODES"]

#: the instructions that end a block (a merge instruction comes just before its branch):
#: put() writes the pending stores before them
_BLOCK_ENDS = frozenset({"SelectionMerge", "LoopMerge", "Branch", "BranchConditional", "Switch",
                         "Return", "ReturnValue", "Kill", "Unreachable", "TerminateInvocation",
                         "Label"})
_STORE3 = (3 << 16) | _OP["Store"]
#: fval's ``OpDecorate <id> NoContraction``: the first word and the decoration
_DECORATE3 = (3 << 16) | _OP["Decorate"]
_NO_CONTRACTION = DECORATION["NoContraction"]

#: IR opcodes (with their data types) the direct path emits: for docs and the coverage test
COVERED_OPCODES = sorted({f"{op}.{k.upper()}" for op, k in ALU})


#: the texture instructions emit_tex spells (any other is refused with E7006, never printed
#: as another lookup)
TEX_COVERED = frozenset({"TEX", "TXB", "TXD", "TXF", "TXL", "TXP", "TXQ", "TEX2", "TXB2", "TXL2",
                         "TXQS", "LODQ", "TXG", "TXQLEVELS"})


class DirectEmitter(StagingMixin, TextureMixin, FlowMixin, DispatchMixin, GeometryMixin,
                    MemoryMixin, ImageMixin, AtomicMixin, TessMixin):
    """One program, one environment (``vulkan`` or ``glsl450`` = OpenGL SPIR-V)."""

    def __init__(self, prog: Program, plan, lowered, *, source_text: str | None = None,
                 instrumentation: Instrumentation | None = None):
        self.prog = prog
        self.plan = plan                  # the GLSL backend's planned interface (GlslEmitter)
        self.lowered = lowered
        self.vulkan = plan.vulkan
        self.m = Module()
        self.body: list[int] = []         # the current function's words
        self.fn_vars: list[int] = []      # its OpVariables (first block)
        self.open = False                 # the current block has no terminator yet
        #: enclosing loops and switches: (merge, continue target; None for a switch)
        self.loops: list[tuple[int, int | None]] = []
        self.regs: dict[str, _Reg] = {}
        self.staging: dict[tuple[str, str], _Reg] = {}
        self.param_vars: dict[str, tuple[int, int | None, int]] = {}  # name -> (var, member, n)
        self.param_arrays: dict[str, _Reg] = {}
        self.textures: dict[int, tuple[int, int, int, str]] = {}   # unit -> (var, type, img, kind)
        self.cc: dict[int, int] = {}
        self.fn_ids: dict[str, int] = {}
        self.interface: list[int] = []
        self.source_text = source_text
        self.file_id = 0
        self.instr = instrumentation or Instrumentation()
        self.builtin_inputs: dict[str, int] = {}
        self.interp_inputs: dict[str, int] = {}      # binding text -> its Input variable
        self.cfg_stack: list = []                 # enclosing Labeled: (node, merge, continue)
        self.cfg_vars: dict[str, int] = {}        # xl_br / xl_iter
        self._types: dict[tuple, int] = {}     # (kind, n) -> type id
        self._consts: dict[tuple, int] = {}    # (kind, value, n) -> constant id
        self.depth_value: int | None = None
        self.emit_fn = 0                          # geometry: xl_emit
        #: the call depth of the function being emitted when subroutines have one copy per
        #: depth (recursion, or calls deeper than MAX_CALL_DEPTH: lowered.depth); else None
        self.call_depth: int | None = None
        self.extra_locations: set[int] = set()    # locations of the harness's extra outputs
        self.demoted: int | None = None           # TGSI DEMOTE's flag (demoted_flag)
        #: the value each whole-register Private variable (a TEMP that is not an array, a
        #: condition-code register) holds, as far as the current block knows: what the block
        #: last stored or loaded there.  A read takes it instead of an OpLoad -- a third of
        #: the loads of a typical module, which spirv-val and the driver would otherwise
        #: parse and fold.  Forgotten at every label (a value is used only in the block that
        #: made it, so it always dominates its uses) and after every call (the callee may
        #: write any of them).
        self.known: dict[int, int] = {}
        self.whole_vars: set[int] = set()        # the variables ``known`` may hold
        #: stores to those variables not yet written: a block stores each variable once, at
        #: its end (put() writes them before the block's merge or terminator instruction,
        #: call() before a call), however many instructions of the block wrote it -- the
        #: write masks of assembly programs write a register a component at a time
        self.pending: dict[int, int] = {}

    # ---- small instruction helpers ----------------------------------------------------------------
    # put/val/fval write most of a module's words: one list extend each, the id taken from
    # the module's counter in place (Module.id), the decoration appended to its section
    # directly (Module.decorate) -- a third of the emission time was these calls
    def put(self, op: str, *operands: int) -> None:
        if self.pending and op in _BLOCK_ENDS:
            self.store_pending()
        self.body.extend((((len(operands) + 1) << 16) | _OP[op], *operands))

    def store_pending(self) -> None:
        """Write the block's deferred stores (``pending``)."""
        body = self.body
        for var, value in self.pending.items():
            body.extend((_STORE3, var, value))
        self.pending.clear()

    def val(self, op: str, rtype: int, *operands: int) -> int:
        m = self.m
        r = m.bound
        m.bound = r + 1
        self.body.extend((((len(operands) + 3) << 16) | _OP[op], rtype, r, *operands))
        return r

    def fval(self, op: str, rtype: int, *operands: int) -> int:
        """A float operation that must round on its own: decorated NoContraction."""
        m = self.m
        r = m.bound
        m.bound = r + 1
        self.body.extend((((len(operands) + 3) << 16) | _OP[op], rtype, r, *operands))
        m.sec["annotations"].extend((_DECORATE3, r, _NO_CONTRACTION))
        return r

    def ext(self, name: str, rtype: int, *operands: int) -> int:
        if not self.m.glsl_ext:
            self.m.glsl_ext = self.m.id()
            self.m.put("imports", "ExtInstImport", self.m.glsl_ext, *string_words("GLSL.std.450"))
        return self.val("ExtInst", rtype, self.m.glsl_ext, GLSL[name], *operands)

    def t(self, kind: str, n: int = 4) -> int:
        key = (kind, n)
        t = self._types.get(key)
        if t is None:
            t = self._types[key] = self.m.vec(kind, n)
        return t

    def c(self, kind: str, value, n: int = 4) -> int:
        key = (kind, value, n)
        c = self._consts.get(key)
        if c is None:
            c = self._consts[key] = self.m.splat_const(kind, value, n)
        return c

    def cbits(self, kind: str, bits: int, n: int = 4) -> int:
        c = self.m.const_bits(kind, bits & 0xFFFFFFFF)
        return c if n == 1 else self.m.composite(self.t(kind, n), (c,) * n)

    def x(self, v: int, i: int, kind: str = "f") -> int:
        return self.val("CompositeExtract", self.t(kind, 1), v, i)

    def vec(self, kind: str, parts) -> int:
        return self.val("CompositeConstruct", self.t(kind, len(parts)), *parts)

    def splat(self, s: int, kind: str, n: int = 4) -> int:
        return s if n == 1 else self.vec(kind, [s] * n)

    def shuffle(self, a: int, b: int, sel, kind: str) -> int:
        return self.val("VectorShuffle", self.t(kind, len(sel)), a, b, *sel)

    def sel(self, cond: int, a: int, b: int, kind: str, n: int = 4) -> int:
        """cond ? a : b (componentwise for vectors)."""
        return self.val("Select", self.t(kind, n), cond, a, b)

    def cmp(self, op: str, a: int, b: int, n: int = 4) -> int:
        """A comparison; float ones are decorated NoContraction too: Mesa's NIR takes an
        operation without it as one whose NaN behaviour may be ignored (``~`` rules fold
        ``a != a`` to false), and the NaN semantics are what these comparisons are for --
        glslang decorates the comparisons inside a ``precise`` expression the same way."""
        if op.startswith("F"):
            return self.fval(op, self.t("b", n), a, b)
        return self.val(op, self.t("b", n), a, b)

    def bor(self, a: int, b: int, n: int = 4) -> int:
        return self.val("LogicalOr", self.t("b", n), a, b)

    def isnan(self, a: int, n: int = 4) -> int:
        return self.fval("IsNan", self.t("b", n), a)     # NoContraction: see cmp

    def derivative(self, op: str, v: int) -> int:
        self.m.capability("DerivativeControl")
        return self.val(op, self.t("f"), v)

    def bitcast(self, v: int, src: str, dst: str, n: int = 4) -> int:
        return v if src == dst else self.val("Bitcast", self.t(dst, n), v)

    def label(self, lab: int) -> None:
        # (a block ends in a terminator, which wrote its pending stores: any left here would
        # follow the terminator, and spirv-val rejects the module rather than lose them)
        self.put("Label", lab)
        self.open = True
        self.known.clear()

    def call(self, fid: int) -> None:
        """OpFunctionCall of a void function of no parameters: the callee reads and writes
        the registers, so the pending stores go first and what the block knew is forgotten."""
        if self.pending:
            self.store_pending()
        self.val("FunctionCall", self.m.void(), fid)
        self.known.clear()

    def load_var(self, var: int, rtype: int) -> int:
        """The value of a whole-register variable (see ``known``)."""
        v = self.known.get(var)
        if v is None:
            v = self.known[var] = self.val("Load", rtype, var)
        return v

    def branch(self, lab: int) -> None:
        self.put("Branch", lab)
        self.open = False

    # ---- declarations -----------------------------------------------------------------------------
    def declare(self) -> None:
        m, prog, plan = self.m, self.prog, self.plan
        m.capability("Shader")
        m.put("memory", "MemoryModel", 0, 1)        # Logical, GLSL450
        if self.source_text is not None:
            self.file_id = m.id()
            m.put("debug_strings", "String", self.file_id, *string_words(prog.source_name))
            # OpSource Unknown(0) version 0, the file and the assembly text; a text longer than
            # one instruction holds goes on in OpSourceContinued (SPIR-V 2.4)
            text = self.source_text
            chunk = 65535 * 4 - 64
            first, rest = text[:chunk], text[chunk:]
            m.put("debug_strings", "Source", 0, 0, self.file_id, *string_words(first))
            while rest:
                part, rest = rest[:chunk], rest[chunk:]
                w = string_words(part)
                m.sec["debug_strings"].append(((len(w) + 1) << 16) | 2)    # OpSourceContinued
                m.sec["debug_strings"].extend(w)
        for name, reg in prog.registers.items():
            if reg.kind == RegKind.TEMP:
                kind = K[self.lowered.types.get(name, DataType.FLOAT)]
                self.regs[name] = self.private(kind, reg.size)
        for cc in sorted(self.lowered.cc_used):
            if cc in self.lowered.cc_values:      # the value (float or integer); 0 tests EQ
                kind = "f" if self.lowered.cc_values[cc] == DataType.FLOAT else "i"
                self.cc[cc] = self.private(kind, None).var
            else:
                # flag words SF=1 ZF=2 OF=4 CF=8 per component, starting EQ (ZF)
                u4 = self.t("u")
                self.cc[cc] = self.m.variable(self.m.pointer("Private", u4), "Private",
                                              self.cbits("u", 2))
        for g in plan.inputs.values():
            make = self.private_vertices if g.per_vertex else self.private
            self.staging[("in", g.path)] = make("i" if g.integer else "f",
                                                g.size if g.indexed else None)
        for g in plan.outputs.values():
            self.staging[("out", g.path)] = self.private("i" if g.integer else "f",
                                                         g.size if g.indexed else None)
        self.whole_vars = {r.var for r in self.regs.values() if r.size is None}
        self.whole_vars.update(self.cc.values())
        self.declare_uniforms()
        self.declare_textures()
        self.declare_buffers()

    def private(self, kind: str, size: int | None) -> _Reg:
        t = self.t(kind)
        if size is not None:
            t = self.m.array(t, size)
        var = self.m.variable(self.m.pointer("Private", t), "Private", self.m.null(t))
        return _Reg(var, kind, size, self.m.pointer("Private", self.t(kind)))

    # ---- register elements ------------------------------------------------------------------------
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

    # ---- operands ------------------------------------------------------------------------------------
    def operand(self, src: Source, optype: DataType, scalar: bool) -> int:
        reg = self.prog.registers[src.reg]
        kind = K[optype]
        rk = reg.kind
        if rk == RegKind.CONST or (rk == RegKind.PARAM and (
                src.index is None or not src.index.relative)
                and reg.bindings[0 if src.index is None else src.index.offset] is None):
            return self.const_operand(src, reg, optype, scalar)
        v, skind = self.load_typed(reg, src.index, src.vertex)
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

    # ---- condition codes ---------------------------------------------------------------------------
    def cc_test(self, cond: CondTest, n: int = 4) -> int:
        """Per component (n = 4, swizzled) or of one component (n = 1): the test's bool."""
        if cond.rule in ("TR", "FL"):
            return self.c("b", cond.rule == "TR", n)
        if cond.cc not in self.cc:
            raise NotCovered(f"condition code {cond.cc} test before any update")
        if cond.cc not in self.lowered.cc_values:
            return self.flag_test(cond, n)
        if cond.rule in ("CF", "OF", "AB", "NCF", "NOF", "BLE"):
            # a register holding a value: OF = CF = 0 (cctests_value.txt)
            return self.c("b", cond.rule in ("NCF", "NOF", "BLE"), n)
        kind = "f" if self.lowered.cc_values[cond.cc] == DataType.FLOAT else "i"
        v = self.load_var(self.cc[cond.cc], self.t(kind))
        if n == 1:
            v = self.x(v, cond.swizzle[0], kind)
        elif cond.swizzle != (0, 1, 2, 3):
            v = self.shuffle(v, v, cond.swizzle, kind)
        return self.value_compare(v, kind, cond.rule, n)

    def value_compare(self, v: int, kind: str, rule: str, n: int) -> int:
        """The cctests_value.txt test ``rule`` of a value (``f`` float, ``i`` integer words)."""
        if rule in ("CF", "OF", "AB", "NCF", "NOF", "BLE"):
            return self.c("b", rule in ("NCF", "NOF", "BLE"), n)       # OF = CF = 0
        if kind == "i":
            # an integer value: SF = bit 31, ZF = r == 0, never both (cctests_value.txt ".i")
            if rule in ("NAN", "LEG"):
                return self.c("b", rule == "LEG", n)
            return self.cmp(_CC_ICMP[rule], v, self.c("i", 0, n), n)
        zero = self.c("f", 0.0, n)
        if rule in _CC_CMP:
            return self.cmp(_CC_CMP[rule], v, zero, n)
        if rule == "NAN":
            return self.isnan(v, n)
        if rule == "LEG":
            return self.val("LogicalNot", self.t("b", n), self.isnan(v, n))
        raise NotCovered(f"condition-code rule {rule}")

    def flag_test(self, cond: CondTest, n: int) -> int:
        """A test of GP4 Table X.16 on flag words (templates/glsl/cctests.txt, with booleans:
        ``1u - x`` is NOT, ``^`` is OpLogicalNotEqual)."""
        u = self.load_var(self.cc[cond.cc], self.t("u"))
        u = self.x(u, cond.swizzle[0], "u") if n == 1 else (
            u if cond.swizzle == (0, 1, 2, 3) else self.shuffle(u, u, cond.swizzle, "u"))
        bt = self.t("b", n)

        def flag(bit):
            return self.val("INotEqual", bt, self.val("BitwiseAnd", self.t("u", n), u,
                                                      self.c("u", bit, n)), self.c("u", 0, n))

        def no(b):
            return self.val("LogicalNot", bt, b)

        def a(x, y):
            return self.val("LogicalAnd", bt, x, y)

        def o_(x, y):
            return self.val("LogicalOr", bt, x, y)

        def xor(x, y):
            return self.val("LogicalNotEqual", bt, x, y)
        rule = cond.rule
        s = flag(1) if rule in ("EQ", "NE", "GE", "GT", "LE", "LT", "NAN", "LEG", "SF", "NSF") else None
        z = flag(2) if rule in ("EQ", "NE", "GT", "LE", "LT", "NAN", "LEG", "AB", "BLE") else None
        o = flag(4) if rule in ("GE", "GT", "LE", "LT", "OF", "NOF") else None
        c = flag(8) if rule in ("CF", "NCF", "AB", "BLE") else None
        table = {"EQ": lambda: a(no(s), z), "NE": lambda: o_(s, no(z)),
                 "GE": lambda: no(xor(s, o)), "GT": lambda: a(xor(no(s), o), no(z)),
                 "LE": lambda: xor(s, o_(z, o)), "LT": lambda: xor(a(s, no(z)), o),
                 "NAN": lambda: a(s, z), "LEG": lambda: o_(no(s), no(z)), "CF": lambda: c,
                 "NCF": lambda: no(c), "OF": lambda: o, "NOF": lambda: no(o),
                 "AB": lambda: a(c, no(z)), "BLE": lambda: o_(no(c), z), "SF": lambda: s,
                 "NSF": lambda: no(s)}
        if rule not in table:
            raise NotCovered(f"condition-code rule {rule}")
        return table[rule]()

    def flag_words(self, ins: Instruction, value: int, rkind: str) -> int:
        """The flags of an update (GP4 2.X.4.3; helpers ccf/cci): a uvec4."""
        from ...ir.model import CCKind
        u4 = self.t("u")
        kind = ins.cc_kind
        if kind == CCKind.FLOAT:
            nan = self.isnan(value)
            sf = self.bor(self.cmp("FOrdLessThan", value, self.c("f", 0.0)), nan)
            zf = self.bor(self.cmp("FOrdEqual", value, self.c("f", 0.0)), nan)
        elif kind in (CCKind.INT, CCKind.UNDEF_OFCF):
            bits = self.bitcast(value, rkind, "u")
            sf = self.cmp("INotEqual", self.val("ShiftRightLogical", u4, bits, self.c("u", 31)),
                          self.c("u", 0))
            zf = self.cmp("IEqual", bits, self.c("u", 0))
        else:
            return self.carry_flags(ins)
        zero = self.c("u", 0)
        return self.val("BitwiseOr", u4, self.sel(sf, self.c("u", 1), zero, "u"),
                        self.sel(zf, self.c("u", 2), zero, "u"))

    def cci(self, r: int) -> int:
        u4 = self.t("u")
        zf = self.sel(self.cmp("IEqual", r, self.c("u", 0)), self.c("u", 2), self.c("u", 0), "u")
        return self.val("BitwiseOr", u4, self.val("ShiftRightLogical", u4, r, self.c("u", 31)), zf)

    def ccadd(self, a: int, b: int) -> int:
        """Integer addition flags: OF signed overflow, CF carry out (helpers ccadd)."""
        u4 = self.t("u")
        st = self.m._type(("struct2", u4), "TypeStruct", u4, u4)
        rc = self.val("IAddCarry", st, a, b)
        r, carry = self.val("CompositeExtract", u4, rc, 0), self.val("CompositeExtract", u4, rc, 1)
        x = self.val("BitwiseAnd", u4, self.val("BitwiseXor", u4, a, r), self.val("BitwiseXor", u4, b, r))
        of = self.val("ShiftLeftLogical", u4, self.val("ShiftRightLogical", u4, x, self.c("u", 31)),
                      self.c("u", 2))
        cf = self.val("ShiftLeftLogical", u4, carry, self.c("u", 3))
        return self.val("BitwiseOr", u4, self.val("BitwiseOr", u4, self.cci(r), of), cf)

    def ccsub(self, a: int, b: int) -> int:
        """Integer subtraction flags: OF signed overflow, CF = no borrow (helpers ccsub)."""
        u4 = self.t("u")
        st = self.m._type(("struct2", u4), "TypeStruct", u4, u4)
        rb = self.val("ISubBorrow", st, a, b)
        r, borrow = self.val("CompositeExtract", u4, rb, 0), self.val("CompositeExtract", u4, rb, 1)
        x = self.val("BitwiseAnd", u4, self.val("BitwiseXor", u4, a, b), self.val("BitwiseXor", u4, a, r))
        of = self.val("ShiftLeftLogical", u4, self.val("ShiftRightLogical", u4, x, self.c("u", 31)),
                      self.c("u", 2))
        cf = self.val("ShiftLeftLogical", u4, self.val("ISub", u4, self.c("u", 1), borrow),
                      self.c("u", 3))
        return self.val("BitwiseOr", u4, self.val("BitwiseOr", u4, self.cci(r), of), cf)

    def carry_flags(self, ins: Instruction) -> int:
        """CCKind ADD/SUB (GlslEmitter.cc_flags): the operands read again, as unsigned words."""
        from ...ir.model import CCKind
        k = K[ins.dtype]
        if k == "f":
            raise NotCovered(f"carry flags of a float {ins.op}", ins)
        srcs = self._srcs
        u = (lambda v: self.bitcast(v, k, "u"))
        kind = ins.cc_kind
        if ins.op == "MAD":
            return self.ccadd(u(self.val("IMul", self.t(k), srcs[0], srcs[1])), u(srcs[2]))
        if ins.op == "SAD":
            return self.ccadd(u(sad(k)(self, srcs[0], srcs[1], self.c("u", 0))), srcs[2])
        a, b = srcs[0], srcs[1]
        if kind == CCKind.ADD and ins.op == "ADD":
            return self.ccadd(u(a), u(b))
        if kind == CCKind.SUB and ins.op == "SUB":
            return self.ccsub(u(a), u(b))
        plain = [self.operand(replace(s, neg=False), ins.dtype, False) for s in ins.srcs[:2]]
        if ins.op == "ADD":
            minuend, sub = (a, plain[1]) if ins.srcs[1].neg else (b, plain[0])
            return self.ccsub(u(minuend), u(sub))
        return self.ccadd(u(a), u(plain[1]))

    def branch_cond(self, cond) -> int | None:
        """A bool id: any of the swizzled tests passes; None = unconditional."""
        if cond is None or (isinstance(cond, CondTest) and cond.rule == "TR"):
            return None
        if isinstance(cond, CountTest):           # REP counter of the general structurizer
            kind = self.storage_kind(cond.reg)
            x = self.x(self.load_element(cond.reg, None), 0, kind)
            if kind == "f":
                raise NotCovered("a float loop counter")
            return self.cmp("UGreaterThan" if kind == "u" else "SGreaterThan", x,
                            self.c(kind, 0, 1), 1)
        if isinstance(cond, ValueTest):           # a CC test read from the written register
            kind = self.storage_kind(cond.reg)
            want = "f" if cond.dtype == DataType.FLOAT else "i"
            x = self.bitcast(self.x(self.load_element(cond.reg, None), cond.comp, kind),
                             kind, want, 1)
            return self.value_compare(x, want, cond.rule, 1)
        if not isinstance(cond, CondTest):
            raise NotCovered(f"the condition {type(cond).__name__}")
        if len(set(cond.swizzle)) == 1:
            return self.cc_test(cond, 1)
        return self.val("Any", self.t("b", 1), self.cc_test(cond))

    # ---- instructions -------------------------------------------------------------------------------
    def emit_ins(self, ins: Instruction) -> None:
        if self.file_id and ins.span is not None:
            self.put("Line", self.file_id, ins.span.line, ins.span.col)
        info = OPCODES[ins.op]
        if ins.op == "KIL":
            return self.emit_kil(ins)
        if ins.op == "DEMOTE":
            self.put("Store", self.demoted_flag(), self.m.const("b", True))
            return
        if info.category == "tex":
            if ins.op not in TEX_COVERED:
                raise NotCovered(f"the instruction {ins.op}", ins)
            return self.emit_tex(ins)
        if info.category == "geom" and self.prog.stage == Stage.GEOMETRY:
            return self.emit_geometry_op(ins)
        if info.category == "mem":
            return self.emit_memory(ins)
        if info.category != "alu":
            raise NotCovered(f"the instruction {ins.op}", ins)
        if ins.mul_mode is not None and not (ins.mul_mode == "HI" and K[ins.dtype] in MULHI):
            raise NotCovered(f"the instruction {ins.op}.{ins.mul_mode}", ins)
        if ins.op in INTERP_OPS:
            return self.write(ins, interpolate(self, ins), "f")
        if ins.op == "CLOCK":
            return self.write(ins, read_clock(self), "u")
        if ins.op in LANE_OPS:
            return self.write(ins, lane_op(self, ins), "u")
        fn = MULHI[K[ins.dtype]] if ins.mul_mode == "HI" else ALU.get((ins.op, K[ins.dtype]))
        if fn is None:
            raise NotCovered(f"the instruction {ins.op}.{ins.dtype.value}", ins)
        srcs = []
        raw = ins.op in RAW_OPERAND_OPS
        inputs = info.inputs
        for i, s in enumerate(ins.srcs):
            scalar = inputs[i] == "s"
            if raw and (t := info.operand_type(i, ins.dtype)) != DataType.UINT and (
                    s.neg or s.abs or any(s.comp_neg)):
                # UP*: the bits of the operand after its modifiers, which act in the
                # instruction's type (UP4B.F: -x flips the sign bit), as the executor loads it
                v = self.operand(s, t, scalar)
                srcs.append(self.bitcast(v, K[t], "u", 1 if scalar else 4))
            else:
                srcs.append(self.operand(s, operand_type(ins, i), scalar))
        rkind = K[result_type(ins)]
        self._srcs = srcs
        if ins.op in ("DDX", "DDY") and self.prog.stage != Stage.FRAGMENT:
            value = self.c("f", 0.0)
        else:
            value = fn(self, *srcs)
        if info.output == "s":
            value = self.splat(value, rkind)
        self.write(ins, value, rkind)

    def write(self, ins: Instruction, value: int, rkind: str) -> None:
        dst = ins.dst
        if ins.sat != Sat.NONE and rkind == "f":
            lo = -1.0 if ins.sat == Sat.SSAT else 0.0
            one = self.c("f", 1.0)
            value = self.sel(self.cmp("FOrdGreaterThan", value, one), one, value, "f")
            low = self.c("f", lo)
            value = self.sel(self.cmp("FOrdLessThan", value, low), low, value, "f")
        if rkind == "f" and ins.precision in ("FP16", "X"):
            value = self.precision_step(value, ins.precision)
        mask = self.cc_test(dst.cond) if dst.cond is not None else None
        flags = None
        cc = ins.cc_update
        if cc is not None and cc in self.lowered.cc_used and cc not in self.lowered.cc_values:
            flags = self.flag_words(ins, value, rkind)     # before the destination is written
        ptr, skind = self.element_ptr(dst.reg, dst.index)
        new = self.bitcast(value, rkind, skind)
        full = all(dst.mask)
        whole = ptr in self.whole_vars
        if mask is not None or not full:
            old = self.load_var(ptr, self.t(skind)) if whole else self.val("Load", self.t(skind), ptr)
            if mask is not None:
                new = self.sel(mask, new, old, skind)
            if not full:
                new = self.shuffle(old, new, merge_selectors(dst.mask), skind)
        if whole:
            self.known[ptr] = self.pending[ptr] = new
        else:
            self.put("Store", ptr, new)
        cc = ins.cc_update
        if cc is not None and cc in self.lowered.cc_used:
            if cc in self.lowered.cc_values:    # the register keeps the value (its words)
                ck = "f" if self.lowered.cc_values[cc] == DataType.FLOAT else "i"
                upd = self.bitcast(value, rkind, ck)
            else:
                ck, upd = "u", flags
            if mask is not None or not full:
                old = self.load_var(self.cc[cc], self.t(ck))
                if mask is not None:
                    upd = self.sel(mask, upd, old, ck)
                if not full:
                    upd = self.shuffle(old, upd, merge_selectors(dst.mask), ck)
            self.known[self.cc[cc]] = self.pending[self.cc[cc]] = upd

    def precision_step(self, v: int, precision: str) -> int:
        f4, f2, u1 = self.t("f"), self.t("f", 2), self.t("u", 1)
        if precision == "FP16":
            # each component through the low half of a pack/unpack pair: with Mesa 22.3's
            # lavapipe the high half of unpackHalf2x16(packHalf2x16(v)) came back 0 on
            # generated programs whose v was constant (random arbfp-nv seed 101, arbfp-nv2
            # seed 116: the GLSL path's xl_fp16, which packs pairs, fails the first)
            zero = self.c("f", 0.0, 1)
            parts = []
            for i in range(4):
                pair = self.vec("f", [self.x(v, i), zero])
                parts.append(self.x(self.ext("UnpackHalf2x16", f2, self.ext("PackHalf2x16", u1, pair)), 0))
            return self.vec("f", parts)
        scale = self.c("f", 1024.0)
        clamped = self.ext("FClamp", f4, v, self.c("f", -2.0), self.c("f", 2047.0 / 1024.0))
        r = self.fval("FDiv", f4, self.ext("RoundEven", f4, self.fval("FMul", f4, clamped, scale)),
                      scale)
        return self.sel(self.isnan(v), self.c("f", 0.0), r, "f")

    def demoted_flag(self) -> int:
        """The Private bool TGSI DEMOTE sets, as the GLSL path's ``xl_demoted`` (helpers.glsl
        "demoted"): main ends with a kill where it is set -- the outputs are dropped, while
        execution went on, so the derivatives of the quad's other invocations stay defined.
        (OpDemoteToHelperInvocation needs SPIR-V 1.6 or an extension; this needs neither.)"""
        if self.demoted is None:
            bt = self.t("b", 1)
            self.demoted = self.m.variable(self.m.pointer("Private", bt), "Private",
                                           self.m.const("b", False))
        return self.demoted

    def helper_invocation(self) -> int:
        """The HelperInvocation built-in (a bool input), declared once."""
        v = self.builtin_inputs.get("HelperInvocation")
        if v is None:
            v = self.builtin_inputs["HelperInvocation"] = self.interface_var(
                "Input", self.t("b", 1), None, "HelperInvocation")
        return v

    def emit_kil(self, ins: Instruction) -> None:
        if ins.cond is not None:
            self.conditional(self.branch_cond(ins.cond), lambda: self.terminate("Kill"))
            return
        if ins.dtype == DataType.UINT:
            return                               # never negative: never kills
        kind = K[ins.dtype]
        a = self.operand(ins.srcs[0], ins.dtype, False)
        test = self.cmp("FOrdLessThan" if kind == "f" else "SLessThan", a, self.c(kind, 0))
        self.conditional(self.val("Any", self.t("b", 1), test), lambda: self.terminate("Kill"))

    # ---- functions and the module ------------------------------------------------------------------
    def function(self, fid: int, emit_body) -> None:
        m = self.m
        self.body, self.fn_vars = [], []
        entry = m.id()
        self.label(entry)
        emit_body()
        if self.open:
            self.terminate("Return")
        void = m.void()
        head = [((5 << 16) | _OP["Function"]), void, fid, 0, m.function_type(void)]
        words = m.sec["functions"]
        words += head
        words += self.body[:2]            # the entry OpLabel
        words += self.fn_vars
        words += self.body[2:]
        words.append((1 << 16) | _OP["FunctionEnd"])

    def emit(self) -> bytes:
        st: Structured = self.lowered.structured
        m = self.m
        self.declare()
        if self.prog.resources:
            self.declare_memory()
        if self.lowered.depth is None:
            copies = [(name, name, None) for name in st.order]
        else:
            # one copy of each subroutine per call depth that some call reaches, as the GLSL
            # backend writes them (``sub_d1`` .. ``sub_d4``): main calls depth 1, depth d
            # calls d + 1, a call at MAX_CALL_DEPTH does nothing
            from ..glsl.records import called_copies
            called = called_copies(st)
            copies = [((name, d), name, d) for d in range(MAX_CALL_DEPTH, 0, -1)
                      for name in st.order if (name, d) in called]
        for key, _, _ in copies:
            self.fn_ids[key] = m.id()
        geometry = self.prog.stage == Stage.GEOMETRY
        if geometry:
            self.emit_fn = m.id()
        for key, name, depth in copies:
            fn = st.functions[name]
            self.call_depth = depth
            self.function(self.fn_ids[key], lambda fn=fn: self.emit_body(fn.body))
        xl_main = m.id()
        self.call_depth = None if self.lowered.depth is None else 0
        self.function(xl_main, lambda: self.emit_body(st.main.body))
        if geometry:
            self.function(self.emit_fn, self.emit_vertex_body)
        main = m.id()

        def main_body():
            self.prologue()
            self.fill_param_arrays()
            self.call(xl_main)
            if self.prog.stage == Stage.TESS_CTRL:
                self.tcs_epilogue()           # tess.py: per-vertex and per-patch outputs
            elif not geometry:                # a geometry program's outputs leave at EMIT
                self.epilogue()
            if self.demoted is not None:      # DEMOTE: the outputs are dropped
                self.conditional(self.val("Load", self.t("b", 1), self.demoted),
                                 lambda: self.terminate("Kill"))
        self.function(main, main_body)
        modes = m.sec["modes"]
        if modes[:3] == [(3 << 16) | 16, 0, 11]:
            modes[1] = main                                          # Xfb of main
        model = {Stage.VERTEX: 0, Stage.FRAGMENT: 4, Stage.GEOMETRY: GEOMETRY_MODEL,
                 Stage.TESS_EVAL: TESS_EVAL_MODEL, Stage.TESS_CTRL: TESS_CTRL_MODEL,
                 Stage.COMPUTE: 5}.get(self.prog.stage)
        if model is None:
            raise NotCovered(f"{self.prog.stage.value} programs")
        m.put("entry", "EntryPoint", model, main, *string_words("main"), *self.interface)
        if self.prog.stage == Stage.COMPUTE:
            self.compute_modes(main)
        if geometry:
            m.capability("Geometry")
            self.geometry_modes(main)
        if self.prog.stage in (Stage.TESS_EVAL, Stage.TESS_CTRL):
            self.tess_modes(main)
        if self.prog.stage == Stage.FRAGMENT:
            upper = self.vulkan or self.prog.fragcoord_origin_upper_left
            m.put("modes", "ExecutionMode", main, 7 if upper else 8)   # OriginUpper/LowerLeft
            if self.prog.fragcoord_pixel_center_integer and not self.vulkan:
                m.put("modes", "ExecutionMode", main, 6)               # PixelCenterInteger
            if any(v.name == "gl_FragDepth" for v, _, _ in self.plan.output_vars):
                m.put("modes", "ExecutionMode", main, 12)              # DepthReplacing
        return m.binary()


_IDENTITY = (0, 1, 2, 3)
_NO_NEG = (False, False, False, False)
_MERGES: dict[tuple, tuple[int, ...]] = {}


def merge_selectors(mask) -> tuple[int, ...]:
    """OpVectorShuffle's selectors keeping the old value (0..3) where ``mask`` is off and
    taking the new one (4..7) where it is on; remembered per mask."""
    got = _MERGES.get(mask) if type(mask) is tuple else None
    if got is None:
        got = tuple(4 + i if on else i for i, on in enumerate(mask))
        if type(mask) is tuple and len(_MERGES) < 64:
            _MERGES[mask] = got
    return got

_CC_ICMP = {"EQ": "IEqual", "NE": "INotEqual", "LT": "SLessThan", "LE": "SLessThanEqual",
            "GT": "SGreaterThan", "GE": "SGreaterThanEqual", "SF": "SLessThan",
            "NSF": "SGreaterThanEqual"}
_CC_CMP = {"EQ": "FOrdEqual", "NE": "FUnordNotEqual", "LT": "FOrdLessThan",
           "LE": "FOrdLessThanEqual", "GT": "FOrdGreaterThan", "GE": "FOrdGreaterThanEqual",
           "SF": "FUnordLessThan", "NSF": "FOrdGreaterThanEqual"}
