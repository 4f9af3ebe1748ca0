"""Geometry programs in the direct SPIR-V path (NV_gpu_program4 NVgp4.0, TGSI GEOM).

The same storage model as the GLSL backend's geometry shader (``backends/glsl``: the
``in_*[nverts]`` staging arrays and ``xl_emit``):

* every per-vertex input group is a ``Private`` staging array indexed by vertex first
  (``vec4[nverts]``, or ``vec4[size][nverts]`` for an indexed group), filled at the start of
  ``main`` from the interface arrays (``Input`` arrays of ``nverts`` elements: user varyings at
  their locations, ``gl_in[].gl_Position`` / ``gl_PointSize`` / ``gl_ClipDistance[]`` as
  arrayed built-ins); an operand's vertex (``vertex[A0.x].color``) selects the element,
  clamped like any other index;
* outputs stay staged; ``EMIT`` calls ``xl_emit``, which copies every staged output to its
  interface variable and executes ``OpEmitVertex`` -- so a vertex carries the outputs as the
  program last wrote them, and ``main`` copies nothing at its end; ``ENDPRIM`` is
  ``OpEndPrimitive``;
* the execution modes: the input primitive, the output primitive, ``OutputVertices`` (the
  program's ``VERTICES_OUT`` / ``GS_MAX_OUTPUT_VERTICES``) and ``Invocations 1`` (what
  glslang writes; the frontends refuse instanced geometry programs, E7001), with the
  ``Geometry`` capability.

A test harness's additions (:class:`~.base.Instrumentation`) are those of
``verify/capture.py``'s ``add_capture`` and ``strip_room`` for geometry shaders: the
``xv_prim`` output (``gl_PrimitiveIDIn``) captured with every vertex, and the bounded
``EmitVertex`` / skipped empty ``EndPrimitive`` that keep Mesa's draw module within its
arrays.
"""
from __future__ import annotations

from ...ir.model import Index, Stage, TESS_STAGES
from .base import NotCovered, _Reg
from .module import BUILTIN

#: SPIR-V execution modes (unified grammar ``ExecutionMode``)
_INPUT_MODE = {"POINTS": 19, "LINES": 20, "LINES_ADJACENCY": 21, "TRIANGLES": 22,
               "TRIANGLES_ADJACENCY": 23}
_OUTPUT_MODE = {"POINTS": 27, "LINE_STRIP": 28, "TRIANGLE_STRIP": 29}
_INVOCATIONS, _OUTPUT_VERTICES = 0, 26
#: the ``Geometry`` execution model
GEOMETRY_MODEL = 3


class GeometryMixin:
    # ---- storage -------------------------------------------------------------------------------
    def private_vertices(self, kind: str, size: int | None) -> _Reg:
        """A per-vertex staging array: ``vec4[nverts]`` or ``vec4[size][nverts]``."""
        t = self.t(kind)
        if size is not None:
            t = self.m.array(t, size)
        t = self.m.array(t, self.plan.nverts)
        var = self.m.variable(self.m.pointer("Private", t), "Private", self.m.null(t))
        return _Reg(var, kind, size, self.m.pointer("Private", self.t(kind)))

    def vertex_chain(self, reg, vertex: Index | None) -> int:
        """The clamped vertex number of an operand (the binding's own vertex, else 0, when the
        operand names none: GlslEmitter.storage_expr)."""
        v = vertex if vertex is not None else Index(reg.bindings[0].vertex or 0)
        return self.index_value(v, self.plan.nverts)

    # ---- inputs --------------------------------------------------------------------------------
    def stage_vertex_inputs(self, var, b, g) -> None:
        """Prologue: element ``b`` of a per-vertex group, for every vertex."""
        skind = "i" if g.integer else "f"
        st = self.staging[("in", g.path)]
        for v in range(self.plan.nverts):
            value, vkind = self.vertex_input_value(var, b, v)
            value = self.bitcast(value, vkind, skind)
            chain = [self.c("i", v, 1)] + ([self.c("i", b.index, 1)] if g.indexed else [])
            self.put("Store", self.val("AccessChain", st.ptr_elem, st.var, *chain), value)

    def vertex_input_value(self, var, b, v: int) -> tuple[int, str]:
        """The vec4/ivec4 value of interface input ``var`` for vertex ``v``."""
        name = var.name
        vi = self.c("i", v, 1)
        z = self.c("f", 0.0, 1)
        if name == "gl_in[].gl_Position":
            arr = self.vertex_interface(var, self.t("f"), "Position")
            return self.val("Load", self.t("f"), self.val(
                "AccessChain", self.m.pointer("Input", self.t("f")), arr, vi)), "f"
        if name == "gl_in[].gl_PointSize":
            arr = self.vertex_interface(var, self.t("f", 1), "PointSize")
            s = self.val("Load", self.t("f", 1), self.val(
                "AccessChain", self.m.pointer("Input", self.t("f", 1)), arr, vi))
            return self.vec("f", [s, z, z, z]), "f"
        if name.startswith("gl_in[].gl_ClipDistance["):
            n = 1 + max(x.index for v_, _, x in self.plan.input_vars
                        if v_.name.startswith("gl_in[].gl_ClipDistance["))
            self.m.capability("ClipDistance")
            arr = self.vertex_interface(var, self.m.array(self.t("f", 1), n), "ClipDistance")
            s = self.val("Load", self.t("f", 1), self.val(
                "AccessChain", self.m.pointer("Input", self.t("f", 1)), arr, vi,
                self.c("i", b.index, 1)))
            return self.vec("f", [s, z, z, z]), "f"
        if var.builtin:
            raise NotCovered(f"the geometry input built-in {name} ({b.text()})")
        if var.glsl_type == "int":                     # vertex.id of the vertex program
            it = self.t("i", 1)
            arr = self.vertex_interface(var, it)
            s = self.val("Load", it, self.val("AccessChain", self.m.pointer("Input", it), arr, vi))
            zi = self.c("i", 0, 1)
            return self.vec("i", [s, zi, zi, zi]), "i"
        kind = {"vec4": "f", "ivec4": "i"}.get(var.glsl_type)
        if kind is None:
            raise NotCovered(f"a geometry input of type {var.glsl_type} ({b.text()})")
        arr = self.vertex_interface(var, self.t(kind))
        return self.val("Load", self.t(kind), self.val(
            "AccessChain", self.m.pointer("Input", self.t(kind)), arr, vi)), kind

    def vertex_interface(self, var, elem: int, builtin: str | None = None) -> int:
        """The ``Input`` array of ``nverts`` elements of ``var`` (one variable per built-in or
        location, however many elements of it the program reads)."""
        key = ("vertex", builtin or var.name)
        v = self.builtin_inputs.get(key)
        if v is None:
            t = self.m.array(elem, self.plan.nverts)
            v = self.m.variable(self.m.pointer("Input", t), "Input")
            if builtin:
                self.m.decorate(v, "BuiltIn", BUILTIN[builtin])
            else:
                self.m.decorate(v, "Location", var.location)
                interp = var.interpolation or ""
                if "FLAT" in interp:
                    self.m.decorate(v, "Flat")
                if "NOPERSPECTIVE" in interp:
                    self.m.decorate(v, "NoPerspective")
                if "CENTROID" in interp:
                    self.m.decorate(v, "Centroid")
            self.interface.append(v)
            self.builtin_inputs[key] = v
        return v

    def primitive_id_in(self) -> int:
        """``gl_PrimitiveIDIn`` (geometry) / ``gl_PrimitiveID`` (fragment): one ``Input``
        int, shared by the program's read and the harness's ``xv_prim``."""
        v = self.builtin_inputs.get("PrimitiveId")
        if v is None:
            it = self.t("i", 1)
            v = self.m.variable(self.m.pointer("Input", it), "Input")
            self.m.decorate(v, "BuiltIn", BUILTIN["PrimitiveId"])
            # PrimitiveId's capability, in a fragment shader too (Tessellation's in those stages)
            self.m.capability("Tessellation" if self.prog.stage in TESS_STAGES else "Geometry")
            if self.prog.stage == Stage.FRAGMENT:
                self.m.decorate(v, "Flat")       # an integer fragment input (Vulkan 14.1.4)
            self.interface.append(v)
            self.builtin_inputs["PrimitiveId"] = v
        return v

    # ---- EMIT / ENDPRIM ------------------------------------------------------------------------
    def emit_geometry_op(self, ins) -> None:
        if ins.op == "EMIT":
            self.call(self.emit_fn)
            return
        if self.instr.emit_limit is None:
            self.put("EndPrimitive")
            return
        # the harness's strip_room: an EndPrimitive with no vertex since the last ends nothing
        it = self.t("i", 1)
        pending = self.geometry_counter("pending")

        def end():
            self.put("Store", pending, self.c("i", 0, 1))
            self.put("EndPrimitive")
        self.conditional(self.cmp("SGreaterThan", self.val("Load", it, pending),
                                  self.c("i", 0, 1), 1), end)

    def geometry_counter(self, name: str) -> int:
        key = ("counter", name)
        v = self.builtin_inputs.get(key)
        if v is None:
            it = self.t("i", 1)
            v = self.builtin_inputs[key] = self.m.variable(
                self.m.pointer("Private", it), "Private", self.c("i", 0, 1))
        return v

    def emit_vertex_body(self) -> None:
        """``xl_emit``: the staged outputs to the interface, then ``OpEmitVertex`` (within the
        harness's limit on emitted vertices when it sets one)."""
        def emit():
            self.epilogue()
            if "xv_prim" in self.instr.capture:
                self.capture_primitive_id()
            self.put("EmitVertex")
        limit = self.instr.emit_limit
        if limit is None:
            emit()
            return
        it = self.t("i", 1)
        emitted, pending = self.geometry_counter("emitted"), self.geometry_counter("pending")

        def bounded():
            one = self.c("i", 1, 1)
            self.put("Store", emitted, self.val("IAdd", it, self.val("Load", it, emitted), one))
            self.put("Store", pending, self.val("IAdd", it, self.val("Load", it, pending), one))
            emit()
        self.conditional(self.cmp("SLessThan", self.val("Load", it, emitted),
                                  self.c("i", limit, 1), 1), bounded)

    def capture_primitive_id(self) -> None:
        """The harness's ``xv_prim = gl_PrimitiveIDIn`` (add_capture): a flat int output at
        the first location no output uses, captured like the others."""
        used = {v.location for v, _, _ in self.plan.output_vars if not v.builtin}
        used |= self.extra_locations
        loc = next(i for i in range(64) if i not in used)
        self.extra_locations.add(loc)
        it = self.t("i", 1)
        out = self.m.variable(self.m.pointer("Output", it), "Output")
        self.m.decorate(out, "Location", loc)
        self.m.decorate(out, "Flat")
        self.interface.append(out)
        self.capture(out, "xv_prim")
        self.put("Store", out, self.val("Load", it, self.primitive_id_in()))

    def geometry_modes(self, main: int) -> None:
        geo = self.prog.geometry
        m = self.m
        m.put("modes", "ExecutionMode", main, _INPUT_MODE[geo.input_primitive])
        m.put("modes", "ExecutionMode", main, _INVOCATIONS, 1)
        m.put("modes", "ExecutionMode", main, _OUTPUT_MODE[geo.output_primitive])
        n = geo.vertices_out if self.instr.max_vertices is None else self.instr.max_vertices
        m.put("modes", "ExecutionMode", main, _OUTPUT_VERTICES, n)
