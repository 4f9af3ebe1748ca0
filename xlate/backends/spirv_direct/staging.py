"""The interface of the direct SPIR-V path: uniforms and parameter buffers, inputs staged in at
the start of ``main``, outputs copied out at its end, and the test harness's instrumentation
(transform feedback capture, fed fragment inputs, the extra output)."""
from __future__ import annotations

from ...ir.model import Binding, Index, Stage, TESS_STAGES
from .base import NotCovered
from .module import BUILTIN


class StagingMixin:
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

    def prologue(self) -> None:
        plan = self.plan
        for var, expr, b in plan.input_vars:
            g = plan.inputs[b.path]
            if g.per_vertex:
                self.stage_vertex_inputs(var, b, g)
                continue
            skind = "i" if g.integer else "f"
            if self.unread_input(var, b, g):
                self.plain_input_var(var, b)    # declared (the interface), never loaded
                continue
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
        if self.prog.stage == Stage.COMPUTE:
            return self.compute_input(var)          # memory.py
        if self.prog.stage in TESS_STAGES:
            got = self.tess_input_value(var, b)
            if got is not None:
                return got
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
        if name in ("gl_PrimitiveIDIn", "gl_PrimitiveID"):
            s = self.val("Load", self.t("i", 1), self.primitive_id_in())
            z = self.c("i", 0, 1)
            return self.vec("i", [s, z, z, z]), "i"
        if name == "gl_SampleID":
            # an integer fragment input: Flat (Vulkan 14.1.4); per-sample shading
            self.m.capability("SampleRateShading")
            it = self.t("i", 1)
            v = self.interface_var("Input", it, var, "SampleId")
            self.m.decorate(v, "Flat")
            z = self.c("i", 0, 1)
            return self.vec("i", [self.val("Load", it, v), z, z, z]), "i"
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
        if var.glsl_type == "subpassInput":
            from .fragment_ops import subpass_input
            return subpass_input(self, var)
        if var.builtin:
            raise NotCovered(f"the input built-in {name} ({b.text()})")
        v, kind = self.plain_input_var(var, b)
        return self.val("Load", self.t(kind), v), kind

    def plain_input_var(self, var, b: Binding) -> tuple[int, str]:
        """The Input variable of an attribute or varying (no built-in), decorated, and its
        kind."""
        kind = {"vec4": "f", "ivec4": "i"}.get(var.glsl_type)
        if kind is None:
            raise NotCovered(f"an input of type {var.glsl_type} ({b.text()})")
        # made already where an INTERP_* reads it (fragment_ops.interpolant_var)
        v = self.interp_inputs.get(b.text()) or self.interface_var("Input", self.t(kind), var)
        interp = var.interpolation or ""
        if "FLAT" in interp or (kind != "f" and self.prog.stage == Stage.FRAGMENT):
            self.m.decorate(v, "Flat")
        if "NOPERSPECTIVE" in interp:
            self.m.decorate(v, "NoPerspective")
        if "CENTROID" in interp:
            self.m.decorate(v, "Centroid")
        return v, kind

    def unread_input(self, var, b: Binding, g) -> bool:
        """An attribute or varying element no instruction reads (``input_reads``, recorded as
        the functions were emitted, before ``main``'s prologue): it keeps its Input variable
        -- the interface both paths reflect -- and is not staged.  Vertex and fragment
        programs; not a group some instruction indexes at run time."""
        if self.prog.stage not in (Stage.VERTEX, Stage.FRAGMENT) or var.builtin or \
                var.name in self.instr.feeds or var.glsl_type not in ("vec4", "ivec4"):
            return False
        reads = self.input_reads
        return (g.path, None) not in reads and (g.path, b.index) not in reads

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
        img = m._type(("img", 1, 0, 0, kind, 0), "TypeImage", m.scalar(kind), 1, 0, 0, 0, 1, 0)
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

    def staged_output(self, b) -> tuple[int, str]:
        """The value staged for output binding ``b`` at the end of the program, and its kind
        ("i" for an integer output group, else "f")."""
        g = self.plan.outputs[b.path]
        skind = "i" if g.integer else "f"
        st = self.staging[("out", g.path)]
        ptr = st.var if not g.indexed else self.val(
            "AccessChain", st.ptr_elem, st.var, self.c("i", b.index, 1))
        return self.val("Load", self.t(skind), ptr), skind

    def epilogue(self) -> None:
        plan = self.plan
        used_locations = {v.location for v, _, _ in plan.output_vars if not v.builtin}
        self.extra_locations = used_locations       # the harness's extra outputs add theirs
        if self.prog.stage in (Stage.VERTEX, Stage.GEOMETRY, Stage.TESS_EVAL) \
                and self.instr.capture:
            self.m.put("modes", "ExecutionMode", 0, 11)    # Xfb; the id is patched in emit()
        for var, assign, b in plan.output_vars:
            value, skind = self.staged_output(b)
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
            elif name in ("gl_PrimitiveID", "gl_Layer"):
                builtin = "PrimitiveId" if name == "gl_PrimitiveID" else "Layer"
                self.m.capability("Geometry")
                out = self.interface_var("Output", self.t("i", 1), var, builtin)
                stored = self.x(self.bitcast(value, skind, "i"), 0, "i")
                self.put("Store", out, stored)
                self.capture_builtin(name, stored, 1, used_locations, "i")
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
        if self.prog.stage == Stage.TESS_EVAL:
            self.capture_tess_vertex(used_locations)
        if self.instr.extra_output is not None:
            depth = self.depth_value if self.depth_value is not None else self.c("f", 0.0, 1)
            extra = self.m.variable(self.m.pointer("Output", self.t("f")), "Output")
            self.m.decorate(extra, "Location", self.instr.extra_output)
            self.interface.append(extra)
            z = self.c("f", 0.0, 1)
            self.put("Store", extra, self.vec("f", [depth, self.c("f", 1.0, 1), z, z]))

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

    def capture_builtin(self, name: str, value: int, n: int, used: set, kind: str = "f") -> None:
        """A captured built-in is copied into an extra output at a free location, as the
        GLSL harness does (Mesa ignores xfb_offset on gl_PerVertex members); an integer one
        (``gl_Layer``, ``gl_PrimitiveID``) is a flat int."""
        if name not in self.instr.capture:
            return
        loc = next(i for i in range(64) if i not in used)
        used.add(loc)
        out = self.m.variable(self.m.pointer("Output", self.t(kind, n)), "Output")
        self.m.decorate(out, "Location", loc)
        if kind != "f":
            self.m.decorate(out, "Flat")
        self.interface.append(out)
        self.capture(out, name)
        self.put("Store", out, value)
