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

import struct
from dataclasses import dataclass, field, replace

from ...ir.model import Binding, CondTest, DataType, Index, Instruction, Program, RegKind, Sat, Source, Stage
from ...ir.ops import OPCODES
from ...passes.structurize import CountTest, Goto, If, Jump, Labeled, Loop, Op, Structured, Switch
from ...passes.types import RAW_OPERAND_OPS, operand_type, result_type
from .module import BUILTIN, GLSL, Module, string_words

K = {DataType.FLOAT: "f", DataType.INT: "i", DataType.UINT: "u"}
QNAN = 0x7FC00000
INF = 0x7F800000


class NotCovered(Exception):
    """A construct the direct SPIR-V path does not emit (yet): E7006."""

    def __init__(self, message: str, ins: Instruction | None = None, span=None):
        super().__init__(message)
        self.span = span if span is not None else (ins.span if ins is not None else None)


@dataclass
class Instrumentation:
    """What a test harness (xlate.verify) adds to the program's own shader, as the GLSL
    harness edits the GLSL text (verify/gl.py ``add_capture``, ``fragment_inputs``,
    ``fragment_outputs``): the same variables, locations and bindings, so the harness around
    it is unchanged.

    ``capture``: vertex outputs captured by transform feedback, reflection output name (or
    built-in name, copied into an extra output at a free location) -> (xfb buffer, offset),
    with ``strides`` per buffer.  ``feeds``: fragment input name -> the binding (Vulkan) or
    texture unit (OpenGL) of a 2D texture read with texelFetch at the fragment's pixel instead
    of the interpolated input (rows counted from the top when ``feed_upper_left``).
    ``extra_output``: location of ``vec4(gl_FragDepth or 0.0, 1.0, 0.0, 0.0)``."""

    capture: dict[str, tuple[int, int]] = field(default_factory=dict)
    strides: list[int] = field(default_factory=list)
    feeds: dict[str, int] = field(default_factory=dict)
    feed_upper_left: bool = False
    extra_output: int | None = None


class _Reg:
    __slots__ = ("var", "kind", "size", "ptr_elem")

    def __init__(self, var, kind, size, ptr_elem):
        self.var, self.kind, self.size, self.ptr_elem = var, kind, size, ptr_elem


class DirectEmitter:
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
        self.cfg_stack: list = []                 # enclosing Labeled: (node, merge, continue)
        self.cfg_vars: dict[str, int] = {}        # xl_br / xl_iter
        self._types: dict[tuple, int] = {}     # (kind, n) -> type id
        self._consts: dict[tuple, int] = {}    # (kind, value, n) -> constant id
        self.depth_value: int | None = None

    # ---- small instruction helpers ----------------------------------------------------------------
    def put(self, op: str, *operands: int) -> None:
        self.body.append(((len(operands) + 1) << 16) | _OP[op])
        self.body.extend(operands)

    def val(self, op: str, rtype: int, *operands: int) -> int:
        r = self.m.id()
        self.body.append(((len(operands) + 3) << 16) | _OP[op])
        self.body.append(rtype)
        self.body.append(r)
        self.body.extend(operands)
        return r

    def fval(self, op: str, rtype: int, *operands: int) -> int:
        """A float operation that must round on its own: decorated NoContraction."""
        r = self.val(op, rtype, *operands)
        self.m.decorate(r, "NoContraction")
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
        self.put("Label", lab)
        self.open = True

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
            if cc in self.lowered.cc_values:
                self.cc[cc] = self.private("f", None).var     # the value; 0.0 tests EQ
            else:
                # flag words SF=1 ZF=2 OF=4 CF=8 per component, starting EQ (ZF)
                u4 = self.t("u")
                self.cc[cc] = self.m.variable(self.m.pointer("Private", u4), "Private",
                                              self.cbits("u", 2))
        for g in plan.inputs.values():
            if g.per_vertex:
                raise NotCovered("geometry program inputs")
            self.staging[("in", g.path)] = self.private("i" if g.integer else "f",
                                                        g.size if g.indexed else None)
        for g in plan.outputs.values():
            self.staging[("out", g.path)] = self.private("i" if g.integer else "f",
                                                         g.size if g.indexed else None)
        self.declare_uniforms()
        self.declare_textures()
        self.declare_buffers()

    def private(self, kind: str, size: int | None) -> _Reg:
        t = self.t(kind)
        if size is not None:
            t = self.m.array(t, size)
        var = self.m.variable(self.m.pointer("Private", t), "Private", self.m.null(t))
        return _Reg(var, kind, size, self.m.pointer("Private", self.t(kind)))

    def declare_uniforms(self) -> None:
        m, plan = self.m, self.plan
        if not plan.uniforms:
            return
        v4 = self.t("f")
        if plan.params_in_block:
            members = []
            for name, n in plan.uniforms.items():
                members.append(m.array(v4, n, 16) if n else v4)
            st = m.id()
            m.put("globals", "TypeStruct", st, *members)
            m.decorate(st, "Block")
            offset = 0
            for i, (name, n) in enumerate(plan.uniforms.items()):
                m.put("annotations", "MemberDecorate", st, i, 35, 16 * offset)   # Offset
                offset += max(n, 1)
            var = m.variable(m.pointer("Uniform", st), "Uniform")
            m.decorate(var, "DescriptorSet", 0)
            m.decorate(var, "Binding", 0 if self.vulkan else 16)
            for i, (name, n) in enumerate(plan.uniforms.items()):
                self.param_vars[name] = (var, i, n)
            self.uniform_storage = "Uniform"
            return
        loc = 0
        for name, n in plan.uniforms.items():
            t = m.array(v4, n) if n else v4
            var = m.variable(m.pointer("UniformConstant", t), "UniformConstant")
            m.decorate(var, "Location", loc)
            loc += max(n, 1)
            self.param_vars[name] = (var, None, n)
        self.uniform_storage = "UniformConstant"

    def declare_buffers(self) -> None:
        """NV_parameter_buffer_object buffers: ``uniform XlateBuffer<b> { uvec4 words[n]; }``
        (std140) at the GLSL path's bindings: 40 + b in Vulkan, b in OpenGL."""
        m = self.m
        self.buffer_vars: dict[int, int] = {}
        for b, n in sorted(self.plan.buffers.items()):
            arr = m.array(self.t("u"), n, 16)
            st = m._type(("buffer", arr), "TypeStruct", arr)
            if ("buffer-decorated", st) not in m.cache:
                m.cache[("buffer-decorated", st)] = st
                m.decorate(st, "Block")
                m.put("annotations", "MemberDecorate", st, 0, 35, 0)     # Offset 0
            var = m.variable(m.pointer("Uniform", st), "Uniform")
            m.decorate(var, "DescriptorSet", 0)
            m.decorate(var, "Binding", (40 + b) if self.vulkan else b)
            self.buffer_vars[b] = var

    def buffer_element(self, reg, index: Index | None) -> int:
        """A BUFFER4 element (a uvec4), or a BUFFER word splatted to a uvec4."""
        b = reg.bindings[0]
        var = self.buffer_vars[b.index]
        it = self.t("i", 1)
        pos = self.c("i", 0, 1) if index is None else (
            self.index_value(index, reg.size) if index.relative else self.c("i", index.offset, 1))
        elem = self.val("IAdd", it, pos, self.c("i", b.index2, 1)) if b.index2 else pos
        zero = self.c("i", 0, 1)
        if reg.buffer_vec4:
            ptr = self.val("AccessChain", self.m.pointer("Uniform", self.t("u")), var, zero, elem)
            return self.val("Load", self.t("u"), ptr)
        vec = self.val("ShiftRightArithmetic", it, elem, self.c("i", 2, 1))
        comp = self.val("BitwiseAnd", it, elem, self.c("i", 3, 1))
        ptr = self.val("AccessChain", self.m.pointer("Uniform", self.t("u", 1)), var, zero, vec, comp)
        return self.splat(self.val("Load", self.t("u", 1), ptr), "u")

    def declare_textures(self) -> None:
        m = self.m
        for t in sorted(self.plan.textures.values(), key=lambda t: t.unit):
            target = t.target
            if target not in _DIM:
                raise NotCovered(f"texture target {target} (texture[{t.unit}])")
            dim, arrayed, depth = _DIM[target]
            if dim == 4:
                if self.vulkan:
                    dim = 1                                  # normalized 2D in Vulkan
                    m.capability("ImageQuery")
                else:
                    m.capability("SampledRect")
            if dim == 0:
                m.capability("Sampled1D")
            if dim == 5:
                m.capability("SampledBuffer")
            kind = "f" if t.target.startswith("SHADOW") else K[t.dtype]
            img = m._type(("img", dim, depth, arrayed, kind), "TypeImage", m.scalar(kind), dim,
                          depth, arrayed, 0, 1, 0)
            simg = m._type(("simg", img), "TypeSampledImage", img)
            var = m.variable(m.pointer("UniformConstant", simg), "UniformConstant")
            m.decorate(var, "DescriptorSet", 0)
            m.decorate(var, "Binding", (1 + t.unit) if self.vulkan else t.unit)
            self.textures[t.unit] = (var, simg, img, kind)

    # ---- interface: inputs staged in, outputs copied out ------------------------------------------
    def prologue(self) -> None:
        m, plan = self.m, self.plan
        for var, expr, b in plan.input_vars:
            g = plan.inputs[b.path]
            skind = "i" if g.integer else "f"
            value, vkind = self.input_value(var, b)
            value = self.bitcast(value, vkind, skind)
            st = self.staging[("in", g.path)]
            ptr = st.var if not g.indexed else self.val(
                "AccessChain", st.ptr_elem, st.var, self.c("i", b.index, 1))
            self.put("Store", ptr, value)

    def interface_var(self, storage: str, t: int, var, builtin: str | None = None) -> int:
        v = self.m.variable(self.m.pointer(storage, t), storage)
        if builtin:
            self.m.decorate(v, "BuiltIn", BUILTIN[builtin])
        else:
            self.m.decorate(v, "Location", var.location)
        self.interface.append(v)
        return v

    def input_value(self, var, b: Binding) -> tuple[int, str]:
        name, f4 = var.name, self.t("f")
        if name in self.instr.feeds:
            return self.fed_input(var)
        if name == "gl_FragCoord":
            v = self.val("Load", f4, self.frag_coord())
            if self.vulkan and self.prog.fragcoord_pixel_center_integer:
                half = self.m.composite(f4, (self.c("f", 0.5, 1),) * 2 + (self.c("f", 0.0, 1),) * 2)
                v = self.fval("FSub", f4, v, half)
            return v, "f"
        if name == "gl_FrontFacing":
            bt = self.t("b", 1)
            ff = self.val("Load", bt, self.interface_var("Input", bt, var, "FrontFacing"))
            s = self.sel(ff, self.c("f", 1.0, 1), self.c("f", -1.0, 1), "f", 1)
            z = self.c("f", 0.0, 1)
            return self.vec("f", [s, z, z, z]), "f"
        ints = {"gl_VertexIndex": "VertexIndex", "gl_InstanceIndex": "InstanceIndex",
                "gl_VertexID": "VertexId", "gl_InstanceID": "InstanceId"}
        if name in ints:
            it = self.t("i", 1)
            s = self.val("Load", it, self.interface_var("Input", it, var, ints[name]))
            z = self.c("i", 0, 1)
            return self.vec("i", [s, z, z, z]), "i"
        if name == "gl_PointCoord":
            f2 = self.t("f", 2)
            pc = self.val("Load", f2, self.interface_var("Input", f2, var, "PointCoord"))
            return self.vec("f", [self.x(pc, 0), self.x(pc, 1), self.c("f", 0.0, 1),
                                  self.c("f", 1.0, 1)]), "f"
        if var.builtin:
            raise NotCovered(f"the input built-in {name} ({b.text()})")
        kind = {"vec4": "f", "ivec4": "i"}.get(var.glsl_type)
        if kind is None:
            raise NotCovered(f"an input of type {var.glsl_type} ({b.text()})")
        v = self.interface_var("Input", self.t(kind), var)
        interp = var.interpolation or ""
        if "FLAT" in interp or (kind != "f" and self.prog.stage == Stage.FRAGMENT):
            self.m.decorate(v, "Flat")
        if "NOPERSPECTIVE" in interp:
            self.m.decorate(v, "NoPerspective")
        if "CENTROID" in interp:
            self.m.decorate(v, "Centroid")
        return self.val("Load", self.t(kind), v), kind

    def frag_coord(self) -> int:
        v = self.builtin_inputs.get("FragCoord")
        if v is None:
            v = self.m.variable(self.m.pointer("Input", self.t("f")), "Input")
            self.m.decorate(v, "BuiltIn", BUILTIN["FragCoord"])
            self.interface.append(v)
            self.builtin_inputs["FragCoord"] = v
        return v

    def fed_input(self, var) -> tuple[int, str]:
        """The harness's texel fetch replacing an input (:class:`Instrumentation`)."""
        m = self.m
        kind = {"vec4": "f", "ivec4": "i", "uvec4": "u"}.get(var.glsl_type)
        if kind is None:
            raise NotCovered(f"a fed fragment input of type {var.glsl_type}")
        img = m._type(("img", 1, 0, 0, kind), "TypeImage", m.scalar(kind), 1, 0, 0, 0, 1, 0)
        simg = m._type(("simg", img), "TypeSampledImage", img)
        tex = m.variable(m.pointer("UniformConstant", simg), "UniformConstant")
        m.decorate(tex, "DescriptorSet", 0)
        m.decorate(tex, "Binding", self.instr.feeds[var.name])
        image = self.val("Image", img, self.val("Load", simg, tex))
        fc = self.val("Load", self.t("f"), self.frag_coord())
        i2 = self.t("i", 2)
        xy = self.val("ConvertFToS", i2, self.shuffle(fc, fc, (0, 1), "f"))
        if self.instr.feed_upper_left:
            m.capability("ImageQuery")
            h = self.x(self.val("ImageQuerySizeLod", i2, image, self.c("i", 0, 1)), 1, "i")
            y = self.val("ISub", self.t("i", 1), self.val("ISub", self.t("i", 1), h, self.c("i", 1, 1)),
                         self.x(xy, 1, "i"))
            xy = self.vec("i", [self.x(xy, 0, "i"), y])
        return self.val("ImageFetch", self.t(kind), image, xy, 0x2, self.c("i", 0, 1)), kind

    def capture(self, var: int, name: str) -> None:
        """Transform feedback decorations of a captured output (:class:`Instrumentation`)."""
        buf, offset = self.instr.capture[name]
        self.m.capability("TransformFeedback")
        self.m.decorate(var, "XfbBuffer", buf)
        self.m.decorate(var, "XfbStride", self.instr.strides[buf])
        self.m.decorate(var, "Offset", offset)

    def epilogue(self) -> None:
        plan = self.plan
        used_locations = {v.location for v, _, _ in plan.output_vars if not v.builtin}
        if self.prog.stage == Stage.VERTEX and self.instr.capture:
            self.m.put("modes", "ExecutionMode", 0, 11)    # Xfb; the id is patched in emit()
        for var, assign, b in plan.output_vars:
            g = plan.outputs[b.path]
            skind = "i" if g.integer else "f"
            st = self.staging[("out", g.path)]
            ptr = st.var if not g.indexed else self.val(
                "AccessChain", st.ptr_elem, st.var, self.c("i", b.index, 1))
            value = self.val("Load", self.t(skind), ptr)
            name = var.name
            scalars = {"gl_PointSize": ("PointSize", 0), "gl_FragDepth": ("FragDepth", 2)}
            if name == "gl_Position":
                out = self.interface_var("Output", self.t("f"), var, "Position")
                stored = self.bitcast(value, skind, "f")
                self.put("Store", out, stored)
                self.capture_builtin(name, stored, 4, used_locations)
            elif name in scalars:
                builtin, comp = scalars[name]
                out = self.interface_var("Output", self.t("f", 1), var, builtin)
                stored = self.x(self.bitcast(value, skind, "f"), comp)
                self.put("Store", out, stored)
                if name == "gl_FragDepth":
                    self.depth_value = stored
                self.capture_builtin(name, stored, 1, used_locations)
            elif name.startswith("gl_ClipDistance["):
                stored = self.x(self.bitcast(value, skind, "f"), 0)
                ptr = self.val("AccessChain", self.m.pointer("Output", self.t("f", 1)),
                               self.clip_distances(), self.c("i", b.index, 1))
                self.put("Store", ptr, stored)
                self.capture_builtin(name, stored, 1, used_locations)
            elif var.builtin:
                raise NotCovered(f"the output built-in {name} ({b.text()})")
            else:
                kind = {"vec4": "f", "ivec4": "i"}.get(var.glsl_type)
                if kind is None:
                    raise NotCovered(f"an output of type {var.glsl_type} ({b.text()})")
                out = self.interface_var("Output", self.t(kind), var)
                if kind != "f" and self.prog.stage != Stage.FRAGMENT:
                    self.m.decorate(out, "Flat")
                if name in self.instr.capture:
                    self.capture(out, name)
                self.put("Store", out, self.bitcast(value, skind, kind))
        if self.instr.extra_output is not None:
            f1 = self.t("f", 1)
            depth = self.depth_value if self.depth_value is not None else self.c("f", 0.0, 1)
            extra = self.m.variable(self.m.pointer("Output", self.t("f")), "Output")
            self.m.decorate(extra, "Location", self.instr.extra_output)
            self.interface.append(extra)
            z = self.c("f", 0.0, 1)
            self.put("Store", extra, self.vec("f", [depth, self.c("f", 1.0, 1), z, z]))
            del f1

    def clip_distances(self) -> int:
        """gl_ClipDistance[n]: one Output array, sized by the largest element written."""
        v = self.builtin_inputs.get("ClipDistance")
        if v is None:
            n = 1 + max(b.index for var, _, b in self.plan.output_vars
                        if var.name.startswith("gl_ClipDistance["))
            self.m.capability("ClipDistance")
            arr = self.m.array(self.t("f", 1), n)
            v = self.m.variable(self.m.pointer("Output", arr), "Output")
            self.m.decorate(v, "BuiltIn", BUILTIN["ClipDistance"])
            self.interface.append(v)
            self.builtin_inputs["ClipDistance"] = v
        return v

    def capture_builtin(self, name: str, value: int, n: int, used: set) -> None:
        """A captured built-in is copied into an extra output at a free location, as the
        GLSL harness does (Mesa ignores xfb_offset on gl_PerVertex members)."""
        if name not in self.instr.capture:
            return
        loc = next(i for i in range(64) if i not in used)
        used.add(loc)
        out = self.m.variable(self.m.pointer("Output", self.t("f", n)), "Output")
        self.m.decorate(out, "Location", loc)
        self.interface.append(out)
        self.capture(out, name)
        self.put("Store", out, value)

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

    def element_ptr(self, regname: str, index: Index | None) -> tuple[int, str]:
        reg = self.prog.registers[regname]
        if reg.kind == RegKind.TEMP:
            r = self.regs[regname]
        elif reg.kind in (RegKind.INPUT, RegKind.OUTPUT):
            side = "in" if reg.kind == RegKind.INPUT else "out"
            g = (self.plan.inputs if side == "in" else self.plan.outputs)[reg.bindings[0].path]
            r = self.staging[(side, g.path)]
            if not g.indexed:
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
            return self.val("AccessChain", r.ptr_elem, r.var, i), r.kind
        else:
            raise NotCovered(f"writing '{regname}' ({reg.kind.value})")
        if r.size is None:
            return r.var, r.kind
        i = self.index_value(index or Index(0), r.size)
        return self.val("AccessChain", r.ptr_elem, r.var, i), r.kind

    def load_element(self, regname: str, index: Index | None) -> int:
        reg = self.prog.registers[regname]
        if reg.kind == RegKind.PARAM:
            return self.param_element(reg, index)
        if reg.kind == RegKind.BUFFER:
            return self.buffer_element(reg, index)
        ptr, kind = self.element_ptr(regname, index)
        return self.val("Load", self.t(kind), ptr)

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
        from ..interface import uniform_for
        name, elem, _ = uniform_for(b)
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
        if reg.kind == RegKind.CONST or (reg.kind == RegKind.PARAM and (
                src.index is None or not src.index.relative)
                and reg.bindings[0 if src.index is None else src.index.offset] is None):
            return self.const_operand(src, reg, optype, scalar)
        v = self.load_element(src.reg, src.index)
        v = self.bitcast(v, self.storage_kind(src.reg), kind)
        if src.abs and kind != "u":
            v = self.ext("FAbs" if kind == "f" else "SAbs", self.t(kind), v)
        sel = src.swizzle
        if max(sel) > 3:
            one = 0x3F800000 if kind == "f" else 1
            ext = self.m.vconst_bits(kind, (0, one, 0, 0))
            v = self.shuffle(v, ext, sel, kind)
        elif sel != (0, 1, 2, 3):
            v = self.shuffle(v, v, sel, kind)
        negs = tuple(n != src.neg for n in src.comp_neg)
        if any(negs):
            neg = self.negate(v, kind)
            v = neg if all(negs) else self.shuffle(v, neg, [4 + i if n else i
                                                            for i, n in enumerate(negs)], kind)
        if scalar:
            v = self.x(v, 0, kind)
        return v

    def negate(self, v: int, kind: str, n: int = 4) -> int:
        if kind == "f":
            return self.fval("FNegate", self.t("f", n), v)
        return self.val("SNegate", self.t(kind, n), v)

    def const_operand(self, src: Source, reg, optype: DataType, scalar: bool) -> int:
        from ..glsl import abs_bits, negate_bits
        if reg.kind == RegKind.CONST:
            words = reg.value[0]
        else:
            words = reg.value[0 if src.index is None else src.index.offset]
        out = []
        for c, neg in zip(src.swizzle, src.comp_neg):
            bits = 0 if c == 4 else (0x3F800000 if optype == DataType.FLOAT else 1) if c == 5 \
                else words[c]
            if src.abs and optype != DataType.UINT:
                bits = abs_bits(bits, optype)
            if src.neg:
                bits = negate_bits(bits, optype)
            if neg:
                bits = negate_bits(bits, optype)
            out.append(bits)
        kind = K[optype]
        return self.m.const_bits(kind, out[0]) if scalar else self.m.vconst_bits(kind, out)

    # ---- condition codes ---------------------------------------------------------------------------
    def cc_test(self, cond: CondTest, n: int = 4) -> int:
        """Per component (n = 4, swizzled) or of one component (n = 1): the test's bool."""
        if cond.rule in ("TR", "FL", "CF", "OF", "AB", "NCF", "NOF", "BLE"):
            return self.c("b", cond.rule in ("TR", "NCF", "NOF", "BLE"), n)
        if cond.cc not in self.cc:
            raise NotCovered(f"condition code {cond.cc} test before any update")
        if cond.cc not in self.lowered.cc_values:
            return self.flag_test(cond, n)
        f4 = self.t("f")
        v = self.val("Load", f4, self.cc[cond.cc])
        if n == 1:
            v = self.x(v, cond.swizzle[0])
        elif cond.swizzle != (0, 1, 2, 3):
            v = self.shuffle(v, v, cond.swizzle, "f")
        zero = self.c("f", 0.0, n)
        rule = cond.rule
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
        u = self.val("Load", self.t("u"), self.cc[cond.cc])
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
            return self.ccadd(u(_sad(k)(self, srcs[0], srcs[1], self.c("u", 0))), srcs[2])
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
        if info.category == "tex":
            return self.emit_tex(ins)
        if info.category != "alu":
            raise NotCovered(f"the instruction {ins.op}", ins)
        if ins.mul_mode is not None and not (ins.mul_mode == "HI" and K[ins.dtype] in _MULHI):
            raise NotCovered(f"the instruction {ins.op}.{ins.mul_mode}", ins)
        fn = _MULHI[K[ins.dtype]] if ins.mul_mode == "HI" else _ALU.get((ins.op, K[ins.dtype]))
        if fn is None:
            raise NotCovered(f"the instruction {ins.op}.{ins.dtype.value}", ins)
        srcs = []
        for i, s in enumerate(ins.srcs):
            scalar = info.inputs[i] == "s"
            t = info.operand_type(i, ins.dtype)
            if ins.op in RAW_OPERAND_OPS and t != DataType.UINT and (
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
        f4 = self.t("f")
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
        if mask is not None or not full:
            old = self.val("Load", self.t(skind), ptr)
            if mask is not None:
                new = self.sel(mask, new, old, skind)
            if not full:
                new = self.shuffle(old, new, [4 + i if on else i for i, on in enumerate(dst.mask)],
                                   skind)
        self.put("Store", ptr, new)
        cc = ins.cc_update
        if cc is not None and cc in self.lowered.cc_used:
            if cc in self.lowered.cc_values:
                ck, upd = "f", value            # the register keeps the value (float updates)
            else:
                ck, upd = "u", flags
            old = self.val("Load", self.t(ck), self.cc[cc])
            if mask is not None:
                upd = self.sel(mask, upd, old, ck)
            if not full:
                upd = self.shuffle(old, upd, [4 + i if on else i for i, on in enumerate(dst.mask)], ck)
            self.put("Store", self.cc[cc], upd)

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

    def terminate(self, op: str) -> None:
        self.put(op)
        self.open = False

    def conditional(self, cond: int | None, then) -> None:
        """``if (cond) then()`` as a selection construct; unconditional when cond is None."""
        if cond is None:
            then()
            return
        body, merge = self.m.id(), self.m.id()
        self.put("SelectionMerge", merge, 0)
        self.put("BranchConditional", cond, body, merge)
        self.label(body)
        then()
        if self.open:
            self.branch(merge)
        self.label(merge)

    # ---- textures -----------------------------------------------------------------------------------
    def emit_tex(self, ins: Instruction) -> None:
        """Texture instructions as GlslEmitter.emit_tex spells them: the same coordinates,
        levels of detail, gradients and offsets, in the image instructions glslang makes of
        texture/textureLod/textureGrad/texelFetch/textureSize."""
        tex, op = ins.tex, ins.op
        target = tex.target
        var, simg, img, skind = self.textures[tex.unit]
        rkind = K[result_type(ins)]
        rect = target in ("RECT", "SHADOWRECT")
        vk_rect = rect and self.vulkan
        sampler = self.val("Load", simg, var)
        if op in ("TXF", "TXQ"):
            self.write(ins, self.fetch(ins, sampler, img, skind, rkind, rect, vk_rect), rkind)
            return
        cv = self.operand(ins.srcs[0], DataType.FLOAT, False)
        if op == "TXP":
            w = self.x(cv, 3)
            q = self.fval("FDiv", self.t("f", 3), self.shuffle(cv, cv, (0, 1, 2), "f"),
                          self.splat(w, "f", 3))
            cv = self.vec("f", [self.x(q, 0, "f"), self.x(q, 1, "f"), self.x(q, 2, "f"), w])
        shadow = target.startswith("SHADOW")
        # (coordinate components, depth reference component or None)
        n, ref = _COORD[target]
        coord = self.x(cv, 0) if n == 1 else self.shuffle(cv, cv, tuple(range(n)), "f")
        size = None
        if vk_rect:
            size = self.val("ConvertSToF", self.t("f", 2), self.val(
                "ImageQuerySizeLod", self.t("i", 2), self.val("Image", img, sampler),
                self.c("i", 0, 1)))
            xy = self.fval("FDiv", self.t("f", 2), self.shuffle(cv, cv, (0, 1), "f"), size)
            coord = xy
        dref = self.x(cv, ref) if shadow else None
        fragment = self.prog.stage == Stage.FRAGMENT
        gsel = _GRAD[target]
        operands: list[int] = []
        mask = 0
        explicit = False
        if op == "TXD":
            grads = []
            for src in ins.srcs[1:3]:
                g = self.operand(src, DataType.FLOAT, False)
                g = self.x(g, 0) if len(gsel) == 1 else self.shuffle(g, g, gsel, "f")
                if vk_rect:
                    g = self.fval("FDiv", self.t("f", 2), g, size)
                grads.append(g)
            mask, operands, explicit = 0x4, grads, True
        elif not fragment and (op in ("TEX", "TXB", "TXP") or (op == "TXL" and rect and not vk_rect)):
            zero = self.c("f", 0.0, len(gsel))
            mask, operands, explicit = 0x4, [zero, zero], True
        elif op == "TXL" and not rect:
            mask, operands, explicit = 0x2, [self.x(cv, 3)], True
        elif op == "TXB" and not (rect and not vk_rect):
            mask, operands = 0x1, [self.x(cv, 3)]
        if not fragment and not explicit:
            # no implicit level of detail outside fragment shaders: the base level, as glslang
            # makes of GLSL's texture() there
            mask, operands, explicit = 0x2, [self.c("f", 0.0, 1)], True
        if any(tex.offset):
            mask |= 0x8
            operands.append(self.offset_const(target, tex.offset))
        if shadow:
            opname = "ImageSampleDrefExplicitLod" if explicit else "ImageSampleDrefImplicitLod"
            r = self.val(opname, self.t("f", 1), sampler, coord, dref,
                         *([mask] + operands if mask else []))
            one = self.c("f", 1.0, 1)
            value = self.bitcast(self.vec("f", [r, r, r, one]), "f", rkind)
        else:
            opname = "ImageSampleExplicitLod" if explicit else "ImageSampleImplicitLod"
            value = self.val(opname, self.t(skind), sampler, coord,
                             *([mask] + operands if mask else []))
            value = self.bitcast(value, skind, rkind)
        self.write(ins, value, rkind)

    def offset_const(self, target: str, offset) -> int:
        dims = {"1D": 1, "ARRAY1D": 1, "SHADOW1D": 1, "SHADOWARRAY1D": 1, "3D": 3}.get(target, 2)
        if dims == 1:
            return self.m.const_bits("i", offset[0] & 0xFFFFFFFF)
        return self.m.composite(self.t("i", dims),
                                tuple(self.m.const_bits("i", o & 0xFFFFFFFF) for o in offset[:dims]))

    def fetch(self, ins, sampler, img, skind, rkind, rect, vk_rect) -> int:
        """TXF (texelFetch) and TXQ (textureSize), GlslEmitter.fetch_expr."""
        target = ins.tex.target
        self.m.capability("ImageQuery") if ins.op == "TXQ" else None
        c = self.operand(ins.srcs[0], DataType.INT, False)
        image = self.val("Image", img, sampler)
        i1 = self.t("i", 1)
        if ins.op == "TXQ":
            if target == "BUFFER":
                size = self.val("ImageQuerySize", i1, image)
                z = self.c("i", 0, 1)
                return self.vec("i", [size, z, z, z])
            dims = {"1D": 1, "SHADOW1D": 1, "3D": 3, "ARRAY2D": 3, "SHADOWARRAY2D": 3}.get(target, 2)
            if rect and not vk_rect:
                size = self.val("ImageQuerySize", self.t("i", dims), image)
            else:
                lod = self.c("i", 0, 1) if rect else self.x(c, 0, "i")
                size = self.val("ImageQuerySizeLod", self.t("i", dims), image, lod)
            parts = [size] if dims == 1 else [self.x(size, i, "i") for i in range(dims)]
            return self.vec("i", parts + [self.c("i", 0, 1)] * (4 - dims))
        n = {"1D": 1, "2D": 2, "3D": 3, "RECT": 2, "ARRAY1D": 2, "ARRAY2D": 3, "BUFFER": 1}.get(target)
        if n is None:
            raise NotCovered(f"TXF on {target} textures", ins)
        coord = self.x(c, 0, "i") if n == 1 else self.shuffle(c, c, tuple(range(n)), "i")
        operands: list[int] = []
        mask = 0
        if target != "BUFFER":
            if not rect or vk_rect:
                mask, operands = 0x2, [self.c("i", 0, 1) if rect else self.x(c, 3, "i")]
            if any(ins.tex.offset):
                mask |= 0x8
                operands.append(self.offset_const(target, ins.tex.offset))
        value = self.val("ImageFetch", self.t(skind), image, coord,
                         *([mask] + operands if mask else []))
        return self.bitcast(value, skind, rkind)

    # ---- control flow -------------------------------------------------------------------------------
    def emit_body(self, nodes: list) -> None:
        for node in nodes:
            if not self.open:
                return                    # after a break/return/kill: nothing runs
            self.emit_node(node)

    def emit_node(self, node) -> None:
        if isinstance(node, Op):
            self.emit_ins(node.ins)
        elif isinstance(node, If):
            cond = self.branch_cond(node.cond)
            if cond is None:
                cond = self.c("b", True, 1)
            then, merge = self.m.id(), self.m.id()
            other = self.m.id() if node.orelse else merge
            self.put("SelectionMerge", merge, 0)
            self.put("BranchConditional", cond, then, other)
            self.label(then)
            self.emit_body(node.then)
            if self.open:
                self.branch(merge)
            if node.orelse:
                self.label(other)
                self.emit_body(node.orelse)
                if self.open:
                    self.branch(merge)
            self.label(merge)
        elif isinstance(node, Loop):
            self.emit_loop(node)
        elif isinstance(node, Jump):
            self.emit_jump(node)
        elif isinstance(node, Switch):
            self.emit_switch(node)
        elif isinstance(node, Labeled):
            self.emit_labeled(node)
        elif isinstance(node, Goto):
            self.emit_goto(node)
        else:
            raise NotCovered(f"the control-flow construct {type(node).__name__}",
                             getattr(node, "ins", None))

    def emit_loop(self, node: Loop) -> None:
        counter = n = None
        if node.count is not None:
            dtype = node.ins.dtype
            kind = "u" if dtype == DataType.UINT else "i"
            v = self.operand(node.count, dtype, True)
            if dtype == DataType.FLOAT:
                v = self.x(_f2i(self, self.splat(self.ext("Floor", self.t("f", 1), v), "f")), 0, "i")
            n = v
            ct = self.t(kind, 1)
            counter = self.m.id()
            self.fn_vars += [((4 << 16) | _OP["Variable"]), self.m.pointer("Function", ct),
                             counter, 7]
            self.put("Store", counter, self.c(kind, 0, 1))
        header, body, cont, merge = (self.m.id() for _ in range(4))
        self.branch(header)
        self.label(header)
        if counter is not None:
            # the test before OpLoopMerge: the merge instruction must be second to last
            i = self.val("Load", ct, counter)
            test = self.cmp("SLessThan" if kind == "i" else "ULessThan", i, n, 1)
            self.put("LoopMerge", merge, cont, 0)
            self.put("BranchConditional", test, body, merge)
        else:
            self.put("LoopMerge", merge, cont, 0)
            self.put("Branch", body)
        self.label(body)
        self.loops.append((merge, cont))
        self.emit_body(node.body)
        self.loops.pop()
        if self.open:
            self.branch(cont)
        self.label(cont)
        if counter is not None:
            i = self.val("Load", ct, counter)
            self.put("Store", counter, self.val("IAdd", ct, i, self.c(kind, 1, 1)))
        self.branch(header)
        self.label(merge)

    # ---- the general structurizer's constructs (GlslEmitter.emit_cfg_node) ------------------------
    def cfg_var(self, name: str) -> int:
        v = self.cfg_vars.get(name)
        if v is None:
            it = self.t("i", 1)
            v = self.cfg_vars[name] = self.m.variable(self.m.pointer("Private", it), "Private",
                                                      self.c("i", 0, 1))
        return v

    def emit_labeled(self, node: Labeled) -> None:
        """A block or loop that Gotos leave: a SPIR-V loop construct either way.  Falling off
        its end leaves it; a Goto to a block branches to its merge, to a loop to its continue
        target; a Goto further out sets ``xl_br`` and leaves, and each construct it passes
        re-dispatches after itself (break on, or finish when it is the target)."""
        if self.loops:
            raise NotCovered("a labeled construct inside a REP loop or SWITCH")
        header, body, cont, merge = (self.m.id() for _ in range(4))
        self.branch(header)
        self.label(header)
        self.put("LoopMerge", merge, cont, 0)
        self.branch(body)
        self.label(body)
        if node.kind == "loop" and node.guard:
            it = self.t("i", 1)
            var = self.cfg_var("iter")
            n = self.val("IAdd", it, self.val("Load", it, var), self.c("i", 1, 1))
            self.put("Store", var, n)
            limit = self.c("i", self.lowered.loop_limit or 65536, 1)
            self.conditional(self.cmp("SGreaterThan", n, limit, 1), lambda: self.terminate("Return"))
        self.cfg_stack.append((node, merge, cont))
        self.emit_body(node.body)
        self.cfg_stack.pop()
        if self.open:
            self.branch(merge)
        self.label(cont)
        self.branch(header)
        self.label(merge)
        from ..glsl import _escaping
        escaping = _escaping(node)
        if not escaping:
            return
        if not self.cfg_stack:
            raise NotCovered("a Goto out of the outermost labeled construct")
        parent, pmerge, pcont = self.cfg_stack[-1]
        it = self.t("i", 1)
        br = self.val("Load", it, self.cfg_var("br"))
        pending = self.cmp("INotEqual", br, self.c("i", 0, 1), 1)

        def redispatch():
            if parent.id in escaping:
                def arrive():
                    self.put("Store", self.cfg_var("br"), self.c("i", 0, 1))
                    self.branch(pmerge if parent.kind == "block" else pcont)
                self.conditional(self.cmp("IEqual", br, self.c("i", parent.id, 1), 1), arrive)
                if escaping - {parent.id}:
                    self.branch(pmerge)
            else:
                self.branch(pmerge)
        self.conditional(pending, redispatch)

    def emit_goto(self, node: Goto) -> None:
        k = next(j for j, (c, _, _) in enumerate(reversed(self.cfg_stack)) if c.id == node.target)
        target, merge, cont = self.cfg_stack[-1 - k]
        if k == 0:
            self.branch(merge if target.kind == "block" else cont)
            return
        self.put("Store", self.cfg_var("br"), self.c("i", node.target, 1))
        self.branch(self.cfg_stack[-1][1])

    def emit_switch(self, node: Switch) -> None:
        """TGSI SWITCH: OpSwitch on the unsigned selector; a case that does not end in a
        break falls through to the next, as GLSL's (and TGSI's) cases do."""
        sel = self.operand(node.selector, DataType.UINT, True)
        merge = self.m.id()
        labels = [self.m.id() for _ in node.cases]
        default = next((lab for lab, case in zip(labels, node.cases) if case.default), merge)
        targets = []
        seen = set()
        for lab, case in zip(labels, node.cases):
            for v in case.values:
                if v not in seen:              # a repeated value: its first case takes it
                    seen.add(v)
                    targets += [v & 0xFFFFFFFF, lab]
        self.put("SelectionMerge", merge, 0)
        self.put("Switch", sel, default, *targets)
        self.open = False
        self.loops.append((merge, None))
        for i, (lab, case) in enumerate(zip(labels, node.cases)):
            self.label(lab)
            self.emit_body(case.body)
            if self.open:
                self.branch(labels[i + 1] if i + 1 < len(labels) else merge)
        self.loops.pop()
        self.label(merge)

    def emit_jump(self, node: Jump) -> None:
        kind = node.kind
        if kind == "call":
            fid = self.fn_ids.get(node.target)
            if fid is None:
                raise NotCovered(f"the call of '{node.target}'", node.ins)

            def act():
                self.val("FunctionCall", self.m.void(), fid)
        elif kind == "return":
            def act():
                self.terminate("Return")
        elif kind in ("break", "continue"):
            if kind == "break":
                target = self.loops[-1][0] if self.loops else None
            else:
                target = next((c for _, c in reversed(self.loops) if c is not None), None)
            if target is None:
                raise NotCovered(f"{kind} outside a loop", node.ins)

            def act():
                self.branch(target)
        else:
            raise NotCovered(f"the jump {kind}", node.ins)
        self.conditional(self.branch_cond(node.cond), act)

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
        for name in st.order:
            self.fn_ids[name] = m.id()
        for name in st.order:
            fn = st.functions[name]
            self.function(self.fn_ids[name], lambda fn=fn: self.emit_body(fn.body))
        xl_main = m.id()
        self.function(xl_main, lambda: self.emit_body(st.main.body))
        main = m.id()

        def main_body():
            self.prologue()
            self.fill_param_arrays()
            self.val("FunctionCall", m.void(), xl_main)
            self.epilogue()
        self.function(main, main_body)
        modes = m.sec["modes"]
        if modes[:3] == [(3 << 16) | 16, 0, 11]:
            modes[1] = main                                          # Xfb of main
        model = {Stage.VERTEX: 0, Stage.FRAGMENT: 4}[self.prog.stage]
        m.put("entry", "EntryPoint", model, main, *string_words("main"), *self.interface)
        if self.prog.stage == Stage.FRAGMENT:
            upper = self.vulkan or self.prog.fragcoord_origin_upper_left
            m.put("modes", "ExecutionMode", main, 7 if upper else 8)   # OriginUpper/LowerLeft
            if self.prog.fragcoord_pixel_center_integer and not self.vulkan:
                m.put("modes", "ExecutionMode", main, 6)               # PixelCenterInteger
            if any(v.name == "gl_FragDepth" for v, _, _ in self.plan.output_vars):
                m.put("modes", "ExecutionMode", main, 12)              # DepthReplacing
        return m.binary()


from .module import OP as _OP  # noqa: E402


# ---- per-opcode templates: (opcode, data type) -> instruction sequence -------------------------------
def _f2i(e: DirectEmitter, x: int) -> int:
    """xl_f2i: clamp into the int range, 2^31 and above -> INT_MAX, NaN -> 0 (GP4 issue 41)."""
    f4, i4 = e.t("f"), e.t("i")
    r = e.val("ConvertFToS", i4, e.ext("FClamp", f4, x, e.c("f", -2147483648.0), e.c("f", 2147483520.0)))
    r = e.sel(e.cmp("FOrdGreaterThanEqual", x, e.c("f", 2147483648.0)), e.c("i", 0x7FFFFFFF), r, "i")
    return e.sel(e.isnan(x), e.c("i", 0), r, "i")


def _f2u(e: DirectEmitter, x: int) -> int:
    f4, u4 = e.t("f"), e.t("u")
    r = e.val("ConvertFToU", u4, e.ext("FClamp", f4, x, e.c("f", 0.0), e.c("f", 4294967040.0)))
    r = e.sel(e.cmp("FOrdGreaterThanEqual", x, e.c("f", 4294967296.0)), e.cbits("u", 0xFFFFFFFF), r, "u")
    return e.sel(e.isnan(x), e.c("u", 0), r, "u")


def _fb(op):
    return lambda e, a, b: e.fval(op, e.t("f"), a, b)


def _ext4(name, kind="f"):
    return lambda e, a: e.ext(name, e.t(kind), a)


def _ext1(name):
    return lambda e, a: e.ext(name, e.t("f", 1), a)


def _dot(n, extra=None):
    def f(e, a, b, c=None):
        f1 = e.t("f", 1)
        s = None
        for i in range(n):
            p = e.fval("FMul", f1, e.x(a, i), e.x(b, i))
            s = p if s is None else e.fval("FAdd", f1, s, p)
        if extra == "w":
            s = e.fval("FAdd", f1, s, e.x(b, 3))
        elif extra == "c":
            s = e.fval("FAdd", f1, s, e.x(c, 0))
        return s
    return f


def _setf(op):
    def f(e, a, b):
        return e.sel(e.cmp(op, a, b), e.c("f", 1.0), e.c("f", 0.0), "f")
    return f


def _seti(op, kind):
    def f(e, a, b):
        return e.sel(e.cmp(op, a, b), e.cbits(kind, 0xFFFFFFFF), e.c(kind, 0), kind)
    return f


def _either_nan(e, a, b):
    return e.bor(e.isnan(a), e.isnan(b))


def _setn(op):
    def f(e, a, b):
        r = e.sel(e.cmp(op, a, b), e.c("f", 1.0), e.c("f", 0.0), "f")
        return e.sel(_either_nan(e, a, b), e.cbits("f", QNAN), r, "f")
    return f


def _min(kind, gt):
    return lambda e, a, b: e.sel(e.cmp(gt, a, b), b, a, kind)


def _max(kind, gt):
    return lambda e, a, b: e.sel(e.cmp(gt, a, b), a, b, kind)


def _ssg(e, a):
    r = e.sel(e.cmp("FOrdLessThan", a, e.c("f", 0.0)), e.c("f", -1.0), e.c("f", 0.0), "f")
    return e.sel(e.cmp("FOrdGreaterThan", a, e.c("f", 0.0)), e.c("f", 1.0), r, "f")


def _tkey(e, a):
    i4 = e.t("i")
    i = e.bitcast(a, "f", "i")
    mag = e.val("BitwiseAnd", i4, i, e.c("i", 0x7FFFFFFF))
    neg = e.val("ISub", i4, e.val("SNegate", i4, mag), e.c("i", 1))
    return e.sel(e.cmp("SLessThan", i, e.c("i", 0)), neg, i, "i")


def _tset(op):
    def f(e, a, b):
        return e.sel(e.cmp(op, _tkey(e, a), _tkey(e, b)), e.c("f", 1.0), e.c("f", 0.0), "f")
    return f


def _lrp(e, a, b, c):
    f4 = e.t("f")
    ab = e.fval("FMul", f4, a, b)
    rest = e.fval("FMul", f4, e.fval("FSub", f4, e.c("f", 1.0), a), c)
    return e.fval("FAdd", f4, ab, rest)


def _mad(e, a, b, c):
    f4 = e.t("f")
    return e.fval("FAdd", f4, e.fval("FMul", f4, a, b), c)


def _dst(e, a, b):
    y = e.fval("FMul", e.t("f", 1), e.x(a, 1), e.x(b, 1))
    return e.vec("f", [e.c("f", 1.0, 1), y, e.x(a, 2), e.x(b, 3)])


def _frc(e, a):
    f4 = e.t("f")
    return e.fval("FSub", f4, a, e.ext("Floor", f4, a))


def _lit(e, a, clamp_w=True):
    f1 = e.t("f", 1)
    z, one = e.c("f", 0.0, 1), e.c("f", 1.0, 1)
    ax, ay, aw = e.x(a, 0), e.x(a, 1), e.x(a, 3)
    x = e.sel(e.cmp("FOrdLessThan", ax, z, 1), z, ax, "f", 1)
    y = e.sel(e.cmp("FOrdLessThan", ay, z, 1), z, ay, "f", 1)
    if clamp_w:
        lim = 127.99609375
        w = e.sel(e.cmp("FOrdGreaterThan", aw, e.c("f", lim, 1), 1), e.c("f", lim, 1), aw, "f", 1)
        w = e.sel(e.cmp("FOrdLessThan", aw, e.c("f", -lim, 1), 1), e.c("f", -lim, 1), w, "f", 1)
        zero_pow = e.sel(e.cmp("FOrdEqual", w, z, 1), one,
                         e.sel(e.cmp("FOrdGreaterThan", w, z, 1), z, e.cbits("f", INF, 1), "f", 1),
                         "f", 1)
    else:
        w = aw
        w_zero = e.bor(e.cmp("FOrdEqual", w, z, 1), e.isnan(w, 1), 1)
        zero_pow = e.sel(w_zero, e.cbits("f", QNAN, 1),
                         e.sel(e.cmp("FOrdGreaterThan", w, z, 1), z, e.cbits("f", INF, 1), "f", 1),
                         "f", 1)
    pw = e.ext("Exp2", f1, e.fval("FMul", f1, w, e.ext("Log2", f1, y)))
    p = e.sel(e.cmp("FOrdEqual", y, z, 1), zero_pow, pw, "f", 1)
    zc = e.sel(e.cmp("FOrdGreaterThan", x, z, 1), p, z, "f", 1)
    return e.vec("f", [one, x, zc, one])


def _nrm(e, a):
    f1, f4 = e.t("f", 1), e.t("f")
    d = _dot(3)(e, a, a)
    s = e.fval("FDiv", f1, e.c("f", 1.0, 1), e.ext("Sqrt", f1, d))
    v = e.fval("FMul", f4, a, e.splat(s, "f"))
    return e.val("CompositeInsert", f4, e.c("f", 0.0, 1), v, 3)


def _rfl(e, a, b):
    f1, f4 = e.t("f", 1), e.t("f")
    s = e.fval("FDiv", f1, e.fval("FMul", f1, e.c("f", 2.0, 1), _dot(3)(e, a, b)), _dot(3)(e, a, a))
    v = e.fval("FSub", f4, e.fval("FMul", f4, e.splat(s, "f"), a), b)
    return e.val("CompositeInsert", f4, e.c("f", 0.0, 1), v, 3)


def _xpd(e, a, b):
    f1 = e.t("f", 1)

    def term(i, j):
        return e.fval("FSub", f1, e.fval("FMul", f1, e.x(a, i), e.x(b, j)),
                      e.fval("FMul", f1, e.x(b, i), e.x(a, j)))
    return e.vec("f", [term(1, 2), term(2, 0), term(0, 1), e.c("f", 0.0, 1)])


def _scs(e, a):
    f1 = e.t("f", 1)
    z = e.c("f", 0.0, 1)
    return e.vec("f", [e.ext("Cos", f1, a), e.ext("Sin", f1, a), z, z])


def _x2d(e, a, b, c):
    f1 = e.t("f", 1)

    def row(ai, c0, c1):
        s = e.fval("FAdd", f1, e.x(a, ai), e.fval("FMul", f1, e.x(b, 0), e.x(c, c0)))
        return e.fval("FAdd", f1, s, e.fval("FMul", f1, e.x(b, 1), e.x(c, c1)))
    x, y = row(0, 0, 1), row(1, 2, 3)
    return e.vec("f", [x, y, x, y])


def _rcc(e, a):
    f1 = e.t("f", 1)
    u = e.fval("FDiv", f1, e.c("f", 1.0, 1), a)
    lo, hi = e.cbits("f", 0x1F800000, 1), e.cbits("f", 0x5F800000, 1)
    nlo, nhi = e.cbits("f", 0x9F800000, 1), e.cbits("f", 0xDF800000, 1)
    pos = e.sel(e.cmp("FOrdLessThan", u, lo, 1), lo,
                e.sel(e.cmp("FOrdGreaterThan", u, hi, 1), hi, u, "f", 1), "f", 1)
    neg = e.sel(e.cmp("FOrdGreaterThan", u, nlo, 1), nlo,
                e.sel(e.cmp("FOrdLessThan", u, nhi, 1), nhi, u, "f", 1), "f", 1)
    bits = e.bitcast(u, "f", "u", 1)
    r = e.sel(e.cmp("ULessThan", bits, e.cbits("u", 0x80000000, 1), 1), pos, neg, "f", 1)
    return e.sel(e.isnan(u, 1), u, r, "f", 1)


def _exp(e, t):
    f1 = e.t("f", 1)
    f = e.ext("Floor", f1, t)
    inf, q, one, z = e.cbits("f", INF, 1), e.cbits("f", QNAN, 1), e.c("f", 1.0, 1), e.c("f", 0.0, 1)
    i1 = e.t("i", 1)
    bits = e.val("ShiftLeftLogical", i1, e.val("IAdd", i1, e.val("ConvertFToS", i1, f), e.c("i", 127, 1)),
                 e.c("i", 23, 1))
    x = e.sel(e.cmp("FOrdGreaterThan", f, e.c("f", 127.0, 1), 1), inf,
              e.sel(e.cmp("FOrdLessThan", f, e.c("f", -126.0, 1), 1), z, e.bitcast(bits, "i", "f", 1),
                    "f", 1), "f", 1)
    special = e.bor(e.cmp("FOrdEqual", x, z, 1), e.val("IsInf", e.t("b", 1), x), 1)
    y = e.sel(special, z, e.fval("FSub", f1, t, f), "f", 1)
    w = e.fval("FMul", f1, x, e.ext("Exp2", f1, y))
    nan = e.isnan(t, 1)
    return e.vec("f", [e.sel(nan, q, x, "f", 1), e.sel(nan, q, y, "f", 1), e.sel(nan, q, w, "f", 1), one])


def _log(e, t):
    f1, u1 = e.t("f", 1), e.t("u", 1)
    b = e.val("BitwiseAnd", u1, e.bitcast(t, "f", "u", 1), e.cbits("u", 0x7FFFFFFF, 1))
    ex = e.val("ShiftRightLogical", u1, b, e.c("u", 23, 1))
    inf, ninf = e.cbits("f", INF, 1), e.cbits("f", 0xFF800000, 1)
    q, one = e.cbits("f", QNAN, 1), e.c("f", 1.0, 1)
    nan = e.cmp("UGreaterThan", b, e.cbits("u", INF, 1), 1)
    e0 = e.cmp("IEqual", ex, e.c("u", 0, 1), 1)
    e255 = e.cmp("IEqual", ex, e.c("u", 255, 1), 1)
    i1 = e.t("i", 1)
    x = e.val("ConvertSToF", f1, e.val("ISub", i1, e.bitcast(ex, "u", "i", 1), e.c("i", 127, 1)))
    mbits = e.val("BitwiseOr", u1, e.val("BitwiseAnd", u1, b, e.cbits("u", 0x7FFFFF, 1)),
                  e.cbits("u", 0x3F800000, 1))
    m = e.bitcast(mbits, "u", "f", 1)
    z = e.fval("FAdd", f1, x, e.ext("Log2", f1, m))

    def pick(normal, zero_case, inf_case):
        r = e.sel(e255, inf_case, normal, "f", 1)
        r = e.sel(e0, zero_case, r, "f", 1)
        return e.sel(nan, q, r, "f", 1)
    return e.vec("f", [pick(x, ninf, inf), pick(m, one, one), pick(z, ninf, inf), one])


def _minmaxnum(gt):
    def f(e, a, b):
        return e.sel(e.bor(e.isnan(b), e.cmp(gt, a, b)), a, b, "f")
    return f


def _nanpick(inner):
    def f(e, a, b):
        return e.sel(_either_nan(e, a, b), e.cbits("f", QNAN), inner(e, a, b), "f")
    return f


def _ib(op, kind):
    return lambda e, a, b: e.val(op, e.t(kind), a, b)


def _shift(op, kind):
    return lambda e, a, b: e.val(op, e.t(kind), a, e.splat(e.val("BitwiseAnd", e.t(kind, 1), b,
                                                                  e.c(kind, 31, 1)), kind))


def _cvt(rounding, to):
    def f(e, a):
        r = a if rounding is None else e.ext(rounding, e.t("f"), a)
        return _f2i(e, r) if to == "i" else _f2u(e, r)
    return f


_ALU = {
    ("ABS", "f"): _ext4("FAbs"), ("ABS", "i"): _ext4("SAbs", "i"), ("ABS", "u"): lambda e, a: a,
    ("ADD", "f"): _fb("FAdd"), ("SUB", "f"): _fb("FSub"), ("MUL", "f"): _fb("FMul"),
    ("MAD", "f"): _mad, ("DIV", "f"): lambda e, a, b: e.fval("FDiv", e.t("f"), a, e.splat(b, "f")),
    ("CMP", "f"): lambda e, a, b, c: e.sel(e.cmp("FOrdLessThan", a, e.c("f", 0.0)), b, c, "f"),
    ("CMP", "i"): lambda e, a, b, c: e.sel(e.cmp("SLessThan", a, e.c("i", 0)), b, c, "i"),
    ("CMP", "u"): lambda e, a, b, c: c,
    ("COS", "f"): _ext1("Cos"), ("SIN", "f"): _ext1("Sin"), ("EX2", "f"): _ext1("Exp2"),
    ("LG2", "f"): _ext1("Log2"), ("SQRT", "f"): _ext1("Sqrt"),
    ("DDX", "f"): lambda e, a: e.derivative("DPdxFine", a),
    ("DDY", "f"): lambda e, a: e.derivative("DPdyFine", a),
    ("DP2", "f"): _dot(2), ("DP3", "f"): _dot(3), ("DP4", "f"): _dot(4), ("DPH", "f"): _dot(3, "w"),
    ("DP2A", "f"): _dot(2, "c"), ("DST", "f"): _dst,
    ("FLR", "f"): _ext4("Floor"), ("CEIL", "f"): _ext4("Ceil"), ("TRUNC", "f"): _ext4("Trunc"),
    ("ROUND", "f"): _ext4("RoundEven"), ("FRC", "f"): _frc,
    ("FLR", "i"): _cvt("Floor", "i"), ("CEIL", "i"): _cvt("Ceil", "i"),
    ("TRUNC", "i"): _cvt("Trunc", "i"), ("ROUND", "i"): _cvt("RoundEven", "i"),
    ("FLR", "u"): _cvt("Floor", "u"), ("CEIL", "u"): _cvt("Ceil", "u"),
    ("TRUNC", "u"): _cvt("Trunc", "u"), ("ROUND", "u"): _cvt("RoundEven", "u"),
    ("I2F", "i"): lambda e, a: e.val("ConvertSToF", e.t("f"), a),
    ("I2F", "u"): lambda e, a: e.val("ConvertUToF", e.t("f"), a),
    ("LIT", "f"): _lit, ("LITNC", "f"): lambda e, a: _lit(e, a, clamp_w=False),
    ("LRP", "f"): _lrp,
    ("MAX", "f"): _max("f", "FOrdGreaterThan"), ("MIN", "f"): _min("f", "FOrdGreaterThan"),
    ("MAX", "i"): _max("i", "SGreaterThan"), ("MIN", "i"): _min("i", "SGreaterThan"),
    ("MAX", "u"): _max("u", "UGreaterThan"), ("MIN", "u"): _min("u", "UGreaterThan"),
    ("MOV", "f"): lambda e, a: a, ("MOV", "i"): lambda e, a: a, ("MOV", "u"): lambda e, a: a,
    ("SWZ", "f"): lambda e, a: a,
    ("NRM", "f"): _nrm, ("RFL", "f"): _rfl, ("XPD", "f"): _xpd, ("SCS", "f"): _scs, ("X2D", "f"): _x2d,
    ("POW", "f"): lambda e, a, b: e.ext("Exp2", e.t("f", 1), e.fval("FMul", e.t("f", 1), b,
                                                                    e.ext("Log2", e.t("f", 1), a))),
    ("RCP", "f"): lambda e, a: e.fval("FDiv", e.t("f", 1), e.c("f", 1.0, 1), a),
    ("RSQ", "f"): lambda e, a: e.fval("FDiv", e.t("f", 1), e.c("f", 1.0, 1),
                                      e.ext("Sqrt", e.t("f", 1), a)),
    ("RCC", "f"): _rcc, ("EXP", "f"): _exp, ("LOG", "f"): _log,
    ("SEQ", "f"): _setf("FOrdEqual"), ("SNE", "f"): _setf("FUnordNotEqual"),
    ("SGE", "f"): _setf("FOrdGreaterThanEqual"), ("SGT", "f"): _setf("FOrdGreaterThan"),
    ("SLE", "f"): _setf("FOrdLessThanEqual"), ("SLT", "f"): _setf("FOrdLessThan"),
    ("SFL", "f"): lambda e, a, b: e.c("f", 0.0), ("STR", "f"): lambda e, a, b: e.c("f", 1.0),
    ("SSG", "f"): _ssg,
    ("SSGN", "f"): lambda e, a: e.sel(e.isnan(a), e.cbits("f", QNAN), _ssg(e, a), "f"),
    ("MINN", "f"): _nanpick(_min("f", "FOrdGreaterThan")),
    ("MAXN", "f"): _nanpick(_max("f", "FOrdGreaterThan")),
    ("SEQN", "f"): _setn("FOrdEqual"), ("SNEN", "f"): _setn("FUnordNotEqual"),
    ("SGEN", "f"): _setn("FOrdGreaterThanEqual"), ("SGTN", "f"): _setn("FOrdGreaterThan"),
    ("SLEN", "f"): _setn("FOrdLessThanEqual"), ("SLTN", "f"): _setn("FOrdLessThan"),
    ("SGET", "f"): _tset("SGreaterThanEqual"), ("SLTT", "f"): _tset("SLessThan"),
    ("MINNUM", "f"): _minmaxnum("FOrdLessThan"), ("MAXNUM", "f"): _minmaxnum("FOrdGreaterThan"),
}
def _pk(name, n):
    def f(e, a):
        v = e.shuffle(a, a, (0, 1), "f") if n == 2 else a
        return e.ext(name, e.t("u", 1), v)
    return f


def _up(name, n):
    def f(e, a):
        v = e.ext(name, e.t("f", n), a)
        return e.shuffle(v, v, (0, 1, 0, 1), "f") if n == 2 else v
    return f


def _pk4b(e, a):
    """PK4B: excess-128 bytes, roundEven(127 * clamp(v, -128/127, 1) + 128), x low."""
    f4, u4, u1 = e.t("f"), e.t("u"), e.t("u", 1)
    cl = e.ext("FClamp", f4, a, e.c("f", -128.0 / 127.0), e.c("f", 1.0))
    v = e.fval("FAdd", f4, e.fval("FMul", f4, cl, e.c("f", 127.0)), e.c("f", 128.0))
    b = e.val("ConvertFToU", u4, e.ext("RoundEven", f4, v))
    r = e.x(b, 0, "u")
    for i in (1, 2, 3):
        r = e.val("BitwiseOr", u1, r, e.val("ShiftLeftLogical", u1, e.x(b, i, "u"), e.c("u", 8 * i, 1)))
    return r


def _up4b(e, u):
    f4, u4 = e.t("f"), e.t("u")
    shifts = e.m.vconst_bits("u", (0, 8, 16, 24))
    bytes_ = e.val("BitwiseAnd", u4, e.val("ShiftRightLogical", u4, e.splat(u, "u"), shifts),
                   e.c("u", 0xFF))
    f = e.fval("FSub", f4, e.val("ConvertUToF", f4, bytes_), e.c("f", 128.0))
    return e.fval("FDiv", f4, f, e.c("f", 127.0))


for _k in ("f", "i", "u"):
    _ALU.update({("PK2H", _k): _pk("PackHalf2x16", 2), ("PK2US", _k): _pk("PackUnorm2x16", 2),
                 ("PK4UB", _k): _pk("PackUnorm4x8", 4), ("PK4B", _k): _pk4b,
                 ("UP2H", _k): _up("UnpackHalf2x16", 2), ("UP2US", _k): _up("UnpackUnorm2x16", 2),
                 ("UP4UB", _k): _up("UnpackUnorm4x8", 4), ("UP4B", _k): _up4b})

def _fset(op):
    return lambda e, a, b: e.sel(e.cmp(op, a, b), e.cbits("u", 0xFFFFFFFF), e.c("u", 0), "u")


def _idiv(mod):
    """xl_div / xl_mod (helpers.glsl "idiv"): magnitudes divided as unsigned values, the
    quotient truncated toward zero, the remainder with the dividend's sign; by zero: all bits
    set (the project's reading of what GP4 leaves undefined)."""
    def signed(e, a, b):
        u4, u1, i4 = e.t("u"), e.t("u", 1), e.t("i")
        zero_u = e.c("u", 0)
        sa = e.val("ISub", u4, zero_u, e.sel(e.cmp("SLessThan", a, e.c("i", 0)), e.c("u", 1),
                                              zero_u, "u"))
        au = e.val("ISub", u4, e.val("BitwiseXor", u4, e.bitcast(a, "i", "u"), sa), sa)
        bneg = e.cmp("SLessThan", b, e.c("i", 0, 1), 1)
        bu = e.bitcast(b, "i", "u", 1)
        bm = e.sel(bneg, e.val("ISub", u1, e.c("u", 0, 1), bu), bu, "u", 1)
        d = e.splat(e.ext("UMax", u1, bm, e.c("u", 1, 1)), "u")
        if mod:
            r = e.val("UMod", u4, au, d)
            res = e.val("ISub", u4, e.val("BitwiseXor", u4, r, sa), sa)
        else:
            q = e.val("UDiv", u4, au, d)
            sq = e.val("BitwiseXor", u4, sa, e.splat(e.sel(bneg, e.cbits("u", 0xFFFFFFFF, 1),
                                                           e.c("u", 0, 1), "u", 1), "u"))
            res = e.val("ISub", u4, e.val("BitwiseXor", u4, q, sq), sq)
        bz = e.splat(e.cmp("IEqual", b, e.c("i", 0, 1), 1), "b")
        return e.sel(bz, e.c("i", -1), e.bitcast(res, "u", "i"), "i")

    def unsigned(e, a, b):
        u4, u1 = e.t("u"), e.t("u", 1)
        d = e.splat(e.ext("UMax", u1, b, e.c("u", 1, 1)), "u")
        r = e.val("UMod" if mod else "UDiv", u4, a, d)
        bz = e.splat(e.cmp("IEqual", b, e.c("u", 0, 1), 1), "b")
        return e.sel(bz, e.cbits("u", 0xFFFFFFFF), r, "u")
    return signed, unsigned


def _mulhi(kind):
    def f(e, a, b):
        t4 = e.t(kind)
        st = e.m._type(("struct2", t4), "TypeStruct", t4, t4)
        r = e.val("SMulExtended" if kind == "i" else "UMulExtended", st, a, b)
        return e.val("CompositeExtract", t4, r, 1)
    return f


def _sad(kind):
    """|a - b| + c, the difference taken as unsigned words (helpers sad)."""
    def f(e, a, b, c):
        t4, u4 = e.t(kind), e.t("u")
        gt = e.cmp("SGreaterThan" if kind == "i" else "UGreaterThan", a, b)
        d = e.sel(gt, e.val("ISub", t4, a, b), e.val("ISub", t4, b, a), kind)
        return e.val("IAdd", u4, e.bitcast(d, kind, "u"), c)
    return f


_ALU.update({
    ("SAD", "i"): _sad("i"), ("SAD", "u"): _sad("u"),
    ("FSEQ", "f"): _fset("FOrdEqual"), ("FSNE", "f"): _fset("FUnordNotEqual"),
    ("FSLT", "f"): _fset("FOrdLessThan"), ("FSGE", "f"): _fset("FOrdGreaterThanEqual"),
    ("ISSG", "i"): lambda e, a: e.ext("SSign", e.t("i"), a),
    ("ISSG", "u"): lambda e, a: e.sel(e.cmp("INotEqual", a, e.c("u", 0)), e.c("u", 1), e.c("u", 0), "u"),
    ("DIV", "i"): _idiv(False)[0], ("DIV", "u"): _idiv(False)[1],
    ("MOD", "i"): _idiv(True)[0], ("MOD", "u"): _idiv(True)[1],
})
for _k in ("f", "i", "u"):
    _ALU[("UCMP", _k)] = lambda e, a, b, c, _k=_k: e.sel(e.cmp("INotEqual", a, e.c("u", 0)), b, c, _k)
_MULHI = {"i": _mulhi("i"), "u": _mulhi("u")}

for _k in ("i", "u"):
    _ALU.update({
        ("ADD", _k): _ib("IAdd", _k), ("SUB", _k): _ib("ISub", _k), ("MUL", _k): _ib("IMul", _k),
        ("MAD", _k): lambda e, a, b, c, _k=_k: e.val("IAdd", e.t(_k), e.val("IMul", e.t(_k), a, b), c),
        ("AND", _k): _ib("BitwiseAnd", _k), ("OR", _k): _ib("BitwiseOr", _k),
        ("XOR", _k): _ib("BitwiseXor", _k), ("NOT", _k): lambda e, a, _k=_k: e.val("Not", e.t(_k), a),
        ("SHL", _k): _shift("ShiftLeftLogical", _k),
        ("SHR", _k): _shift("ShiftRightArithmetic" if _k == "i" else "ShiftRightLogical", _k),
        ("SEQ", _k): _seti("IEqual", _k), ("SNE", _k): _seti("INotEqual", _k),
        ("SGE", _k): _seti("SGreaterThanEqual" if _k == "i" else "UGreaterThanEqual", _k),
        ("SGT", _k): _seti("SGreaterThan" if _k == "i" else "UGreaterThan", _k),
        ("SLE", _k): _seti("SLessThanEqual" if _k == "i" else "ULessThanEqual", _k),
        ("SLT", _k): _seti("SLessThan" if _k == "i" else "ULessThan", _k),
        ("SFL", _k): lambda e, a, b, _k=_k: e.c(_k, 0),
        ("STR", _k): lambda e, a, b, _k=_k: e.cbits(_k, 0xFFFFFFFF),
    })

#: IR opcodes (with their data types) the direct path emits: for docs and the coverage test
COVERED_OPCODES = sorted({f"{op}.{k.upper()}" for op, k in _ALU})

# texture target -> (Dim, arrayed, depth)
_DIM = {"1D": (0, 0, 0), "2D": (1, 0, 0), "3D": (2, 0, 0), "CUBE": (3, 0, 0), "RECT": (4, 0, 0),
        "SHADOW1D": (0, 0, 1), "SHADOW2D": (1, 0, 1), "SHADOWRECT": (4, 0, 1),
        "ARRAY1D": (0, 1, 0), "ARRAY2D": (1, 1, 0), "SHADOWCUBE": (3, 0, 1),
        "SHADOWARRAY1D": (0, 1, 1), "SHADOWARRAY2D": (1, 1, 1), "BUFFER": (5, 0, 0)}
# target -> (coordinate components taken from the operand, component of the depth reference)
_COORD = {"1D": (1, None), "2D": (2, None), "3D": (3, None), "CUBE": (3, None), "RECT": (2, None),
          "SHADOW1D": (1, 2), "SHADOW2D": (2, 2), "SHADOWRECT": (2, 2), "ARRAY1D": (2, None),
          "ARRAY2D": (3, None), "SHADOWCUBE": (3, 3), "SHADOWARRAY1D": (2, 2),
          "SHADOWARRAY2D": (3, 3), "BUFFER": (1, None)}
# target -> gradient components (GlslEmitter.grad_swizzle)
_GRAD = {t: (0,) if t in ("1D", "ARRAY1D", "SHADOW1D", "SHADOWARRAY1D") else
         (0, 1, 2) if t in ("3D", "CUBE", "SHADOWCUBE") else (0, 1) for t in _COORD}

_CC_CMP = {"EQ": "FOrdEqual", "NE": "FUnordNotEqual", "LT": "FOrdLessThan",
           "LE": "FOrdLessThanEqual", "GT": "FOrdGreaterThan", "GE": "FOrdGreaterThanEqual",
           "SF": "FUnordLessThan", "NSF": "FOrdGreaterThanEqual"}
