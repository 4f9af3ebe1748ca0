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

This module holds the emitter's state, its word-writing helpers, the register declarations, the
per-instruction dispatch (``emit_ins``) and the module's layout (functions, entry point,
execution modes).  The rest is mixed in from its parts: ``operands`` (reading registers and
operands), ``destinations`` (writing results: saturation, masks, deferred stores),
``condition_codes`` (CC tests, flag words, branch conditions), ``staging``, ``textures``,
``flow``, ``dispatch``, ``geometry``, ``tess``, ``memory``, ``images``, ``atomics``; the
instruction templates are ``alu`` and ``wide``, the word encoding ``module``.
"""
from __future__ import annotations

from ...ir.model import MAX_CALL_DEPTH, DataType, Instruction, Program, RegKind, Stage
from ...ir.ops import LANE_OPS, OPCODES
from ...passes.structurize import Structured
from ...passes.types import RAW_OPERAND_OPS, operand_type, result_type
from .alu import ALU, MULHI
from .base import K, Instrumentation, NotCovered, _Reg
from .condition_codes import ConditionCodeMixin
from .destinations import DestinationMixin
from .dispatch import DispatchMixin
from .flow import FlowMixin
from .fragment_ops import INTERP_OPS, interpolate, lane_op, read_clock
from .geometry import GEOMETRY_MODEL, GeometryMixin
from .tess import TESS_CTRL_MODEL, TESS_EVAL_MODEL, TessMixin
from .module import DECORATION, FOLDED, GLSL, OP as _OP, Module, fold, string_words
from .memory import MemoryMixin
from .images import ImageMixin
from .atomics import AtomicMixin
from .operands import OperandMixin
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


class DirectEmitter(OperandMixin, DestinationMixin, ConditionCodeMixin, StagingMixin,
                    TextureMixin, FlowMixin, DispatchMixin, GeometryMixin, MemoryMixin, ImageMixin,
                    AtomicMixin, TessMixin):
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
        #: Also, keyed ("input", register, index) and ("uniform", array, index id): an input
        #: element or a parameter loaded in this block (neither changes after the prologue).
        self.known: dict = {}
        #: the input elements instructions read: (path, index), (path, None) for a whole
        #: group (staging.unread_input)
        self.input_reads: set[tuple] = set()
        self.whole_vars: set[int] = set()        # the variables ``known`` may hold
        #: stores to those variables not yet written: a block stores each variable once, at
        #: its end (put() writes them before the block's merge or terminator instruction,
        #: call() before a call), however many instructions of the block wrote it -- the
        #: write masks of assembly programs write a register a component at a time
        self.pending: dict[int, int] = {}

    # ---- small instruction helpers --------------------------------------------------------------
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
        if name in FOLDED and operands[0] in self.m.float_constants:
            word = fold(name, self.m.float_constants[operands[0]])
            if word is not None:
                return self.m.const_bits("f", word)
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

    # ---- declarations ---------------------------------------------------------------------------
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
        if prog.stage in (Stage.VERTEX, Stage.FRAGMENT):
            # an output that is not an array: written only by instructions, read only by the
            # epilogue, after the call that stored every pending value
            self.whole_vars.update(self.staging[("out", g.path)].var
                                   for g in plan.outputs.values() if not g.indexed)
        self.declare_uniforms()
        self.declare_textures()
        self.declare_buffers()

    def private(self, kind: str, size: int | None) -> _Reg:
        t = self.t(kind)
        if size is not None:
            t = self.m.array(t, size)
        var = self.m.variable(self.m.pointer("Private", t), "Private", self.m.null(t))
        return _Reg(var, kind, size, self.m.pointer("Private", self.t(kind)))

    # ---- instructions ---------------------------------------------------------------------------
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
        self.write(ins, value, rkind, scalar=info.output == "s")

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

    # ---- functions and the module ---------------------------------------------------------------
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
