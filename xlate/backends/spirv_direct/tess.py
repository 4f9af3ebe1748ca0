"""Tessellation programs (TGSI TESS_EVAL and TESS_CTRL) in the direct SPIR-V path.

The storage model is the GLSL backend's (``backends/tess_interface.py``): per-vertex inputs are
staged as a geometry program's (``geometry.py``: ``Input`` arrays of ``nverts`` elements, the
vertices the program addresses -- the outer dimension of an arrayed input is ignored when
stages are matched, Vulkan 15.1.3); the per-patch inputs and system values below become
vec4/ivec4 values; outputs leave at the end of ``main`` as a vertex program's.

* ``gl_TessCoord``: BuiltIn TessCoord, vec3 -> (x, y, z, 0);
* ``gl_TessLevelOuter`` / ``gl_TessLevelInner``: BuiltIn float[4] / float[2], both ``Patch``
  -> (o0, o1, o2, o3) / (i0, i1, 0, 0);
* ``gl_PatchVerticesIn``: BuiltIn PatchVertices, int -> (n, 0, 0, 0);
* ``patch in`` varyings: ``Patch``-decorated inputs at their locations;
* the entry point is TessellationEvaluation with the ``Tessellation`` capability and the modes
  of the program's domain, spacing, vertex order and point mode;
* the verifier's capture (``Instrumentation.capture``, verify/capture.py ``add_capture``): the
  outputs' transform feedback decorations as a vertex program's, and the harness's extra
  outputs ``xv_prim`` (``gl_PrimitiveID``) and ``xv_tc`` (``vec4(gl_TessCoord, 0.0)``).

Control programs (TESS_CTRL) read their inputs the same way, ``gl_InvocationID`` (BuiltIn
InvocationId) as (id, 0, 0, 0), and write what the GLSL backend's epilogue writes
(``tess_interface.tcs_output_interface``), at the end of ``main``:

* per-vertex outputs into the invocation's own vertex: ``Output`` arrays of
  ``TCS_VERTICES_OUT`` elements (user varyings at their locations, ``gl_out[].gl_Position`` /
  ``gl_PointSize`` as arrayed built-ins) indexed by ``InvocationId``;
* per-patch outputs (``TessLevelOuter`` float[4], ``TessLevelInner`` float[2], ``Patch`` user
  varyings) component by component, each only where this invocation's written-components
  register (``tcs.written[j]``, frontends/tgsi/lower_tess.py) is non-zero -- an invocation
  that did not write a level leaves what another one wrote;
* the entry point is TessellationControl with ``OutputVertices``.

The verifier's harness (``Instrumentation.tcs_lanes``; verify/gl_tcs.py ``instrument``) is
written here too: after the epilogue each invocation stores its lane's outputs into the
storage buffer at ``Instrumentation.tcs_result_binding``, then (after ``OpControlBarrier``)
invocation 0 stores the patch's per-patch outputs as its invocations left them.
"""
from __future__ import annotations

from ...ir.model import TCS_WRITTEN_PATH, Stage
from .base import NotCovered
from .module import BUILTIN

TESS_EVAL_MODEL = 2
TESS_CTRL_MODEL = 1
_OUTPUT_VERTICES = 26
#: BuiltIn InvocationId
_INVOCATION_ID = 8
#: per-patch built-in outputs: name -> (BuiltIn, levels)
_PATCH_BUILTINS = {"gl_TessLevelOuter": ("TessLevelOuter", 4),
                   "gl_TessLevelInner": ("TessLevelInner", 2)}
#: ExecutionMode numbers (SPIR-V unified grammar)
_DOMAIN = {"TRIANGLES": 22, "QUADS": 24, "ISOLINES": 25}
_SPACING = {"EQUAL": 1, "FRACTIONAL_EVEN": 2, "FRACTIONAL_ODD": 3}
_VERTEX_ORDER_CW, _VERTEX_ORDER_CCW, _POINT_MODE = 4, 5, 10


class TessMixin:
    def tess_input_value(self, var, b) -> tuple[int, str] | None:
        """The vec4/ivec4 value of a tessellation input that is not per vertex; None for the
        inputs the general rules give."""
        name = var.name
        f1, i1 = self.t("f", 1), self.t("i", 1)
        zf, zi = self.c("f", 0.0, 1), self.c("i", 0, 1)
        if name == "gl_TessCoord":
            f3 = self.t("f", 3)
            v = self.val("Load", f3, self.tess_builtin("TessCoord", f3))
            return self.vec("f", [self.x(v, 0), self.x(v, 1), self.x(v, 2), zf]), "f"
        if name == "gl_InvocationID":
            return self.vec("i", [self.invocation_id(), zi, zi, zi]), "i"
        if name == "gl_PatchVerticesIn":
            v = self.val("Load", i1, self.tess_builtin("PatchVertices", i1))
            return self.vec("i", [v, zi, zi, zi]), "i"
        if name in ("gl_TessLevelOuter", "gl_TessLevelInner"):
            n = 4 if name == "gl_TessLevelOuter" else 2
            arr = self.tess_builtin(name[3:], self.m.array(f1, n), patch=True)
            ptr = self.m.pointer("Input", f1)
            comps = [self.val("Load", f1, self.val("AccessChain", ptr, arr, self.c("i", k, 1)))
                     for k in range(n)]
            return self.vec("f", comps + [zf] * (4 - n)), "f"
        if var.interpolation == "PATCH":
            kind = {"vec4": "f", "ivec4": "i"}[var.glsl_type]
            v = self.interface_var("Input", self.t(kind), var)
            self.m.decorate(v, "Patch")
            return self.val("Load", self.t(kind), v), kind
        return None

    def tess_builtin(self, builtin: str, t: int, patch: bool = False) -> int:
        v = self.builtin_inputs.get(builtin)
        if v is None:
            v = self.m.variable(self.m.pointer("Input", t), "Input")
            self.m.decorate(v, "BuiltIn", BUILTIN[builtin])
            if patch:
                self.m.decorate(v, "Patch")
            self.interface.append(v)
            self.builtin_inputs[builtin] = v
        return v

    def capture_tess_vertex(self, used: set) -> None:
        """The evaluation harness's extra captured outputs (verify/capture.py ``add_capture``):
        ``xv_prim`` = ``gl_PrimitiveID`` (the patch) and ``xv_tc`` = ``vec4(gl_TessCoord,
        0.0)``, each at a free location, where the instrumentation captures them."""
        if "xv_prim" in self.instr.capture:
            prim = self.val("Load", self.t("i", 1), self.primitive_id_in())
            self.capture_builtin("xv_prim", prim, 1, used, "i")
        if "xv_tc" in self.instr.capture:
            f3 = self.t("f", 3)
            tc = self.val("Load", f3, self.tess_builtin("TessCoord", f3))
            self.capture_builtin("xv_tc", self.vec("f", [self.x(tc, 0), self.x(tc, 1),
                                                         self.x(tc, 2), self.c("f", 0.0, 1)]),
                                 4, used)

    def invocation_id(self) -> int:
        it = self.t("i", 1)
        v = self.builtin_inputs.get("InvocationId")
        if v is None:
            v = self.m.variable(self.m.pointer("Input", it), "Input")
            self.m.decorate(v, "BuiltIn", _INVOCATION_ID)
            self.interface.append(v)
            self.builtin_inputs["InvocationId"] = v
        return self.val("Load", it, v)

    def tcs_output(self, key: str, elem: int, n: int | None, *, builtin: str | None = None,
                   location: int | None = None, patch: bool = False) -> int:
        """An ``Output`` variable of a control program: ``elem`` or ``elem[n]``."""
        v = self.builtin_inputs.get(("tcs-out", key))
        if v is None:
            t = elem if n is None else self.m.array(elem, n)
            v = self.m.variable(self.m.pointer("Output", t), "Output")
            if builtin is not None:
                self.m.decorate(v, "BuiltIn", BUILTIN[builtin])
            else:
                self.m.decorate(v, "Location", location)
            if patch:
                self.m.decorate(v, "Patch")
            self.interface.append(v)
            self.builtin_inputs[("tcs-out", key)] = v
        return v

    def tcs_epilogue(self) -> None:
        """The control program's outputs (module docstring), as GlslEmitter.output_store."""
        plan = self.plan
        vo = self.prog.tessellation.vertices_out
        f1 = self.t("f", 1)
        written = self.staging.get(("out", TCS_WRITTEN_PATH))
        self.tcs_values = {}                     # binding text -> the staged value (harness)
        for var, assign, b in plan.output_vars:
            value, skind = self.staged_output(b)
            self.tcs_values[b.text()] = (value, skind)
            name = var.name
            if "{w}" in assign:
                j = self.prog.tessellation.written[b.text()]
                w = self.val("Load", self.t("i"), self.val(
                    "AccessChain", written.ptr_elem, written.var, self.c("i", j, 1)))
                if name in _PATCH_BUILTINS:
                    builtin, n = _PATCH_BUILTINS[name]
                    out = self.tcs_output(name, f1, n, builtin=builtin, patch=True)
                    kind, elem = "f", f1
                else:
                    kind = {"vec4": "f", "ivec4": "i"}[var.glsl_type]
                    n, elem = 4, self.t(kind, 1)
                    out = self.tcs_output(name, self.t(kind), None, location=var.location,
                                          patch=True)
                v = self.bitcast(value, skind, kind)
                for c in range(n):
                    self.conditional(self.written_flag(w, c), lambda c=c, out=out, v=v,
                                     kind=kind, elem=elem: self.put(
                        "Store", self.patch_component(out, elem, c), self.x(v, c, kind)))
                continue
            inv = self.invocation_id()
            if name == "gl_out[].gl_Position":
                out = self.tcs_output(name, self.t("f"), vo, builtin="Position")
                stored, elem = self.bitcast(value, skind, "f"), self.t("f")
            elif name == "gl_out[].gl_PointSize":
                out = self.tcs_output(name, f1, vo, builtin="PointSize")
                stored, elem = self.x(self.bitcast(value, skind, "f"), 0), f1
            elif var.builtin:
                raise NotCovered(f"the tessellation control output built-in {name} "
                                 f"({b.text()})")
            else:
                kind = {"vec4": "f", "ivec4": "i"}.get(var.glsl_type)
                if kind is None:
                    raise NotCovered(f"an output of type {var.glsl_type} ({b.text()})")
                out = self.tcs_output(name, self.t(kind), vo, location=var.location)
                stored, elem = self.bitcast(value, skind, kind), self.t(kind)
            self.put("Store", self.val("AccessChain", self.m.pointer("Output", elem), out, inv),
                     stored)
        if self.instr.tcs_lanes is not None:
            self.tcs_harness()

    def written_flag(self, w: int, c: int) -> int:
        """Whether this invocation wrote component ``c`` of a per-patch output (``w``: its
        written-components register, an ivec4; GLSL ``{w}.c != 0``)."""
        return self.cmp("INotEqual", self.x(w, c, "i"), self.c("i", 0, 1), 1)

    def patch_component(self, out: int, elem: int, c: int) -> int:
        """A pointer to level / component ``c`` of the per-patch output variable ``out``."""
        return self.val("AccessChain", self.m.pointer("Output", elem), out, self.c("i", c, 1))

    def tcs_harness(self) -> None:
        """verify/gl_tcs.py ``instrument`` in SPIR-V: ``xv_out[lane * k1 + k]`` = each lane
        output's words (``lane_outputs`` order: the invocation's per-vertex outputs as stored,
        per-patch ones as its own register, then its written-components registers), then a
        barrier and, in invocation 0, ``xv_out[lanes * k1 + patch * k2 + k]`` = each per-patch
        output as the patch's invocations left it (its interface variable)."""
        m = self.m
        u4, it, f1 = self.t("u"), self.t("i", 1), self.t("f", 1)
        rta = m.id()
        m.put("globals", "TypeRuntimeArray", rta, u4)
        m.decorate(rta, "ArrayStride", 16)
        st = m.id()
        m.put("globals", "TypeStruct", st, rta)
        m.put("annotations", "Decorate", st, 3)                       # BufferBlock
        m.put("annotations", "MemberDecorate", st, 0, 35, 0)
        buf = m.variable(m.pointer("Uniform", st), "Uniform")
        m.decorate(buf, "DescriptorSet", 0)
        m.decorate(buf, "Binding", self.instr.tcs_result_binding)
        outputs = self.instr.tcs_lane_outputs
        vo = self.prog.tessellation.vertices_out
        inv = self.invocation_id()
        prim = self.val("Load", it, self.primitive_id_in())
        k1 = len(outputs)
        lane = self.val("IAdd", it, self.val("IMul", it, prim, self.c("i", vo, 1)), inv)
        written = self.staging.get(("out", TCS_WRITTEN_PATH))

        def store(index: int, value: int) -> None:
            self.put("Store", self.val("AccessChain", m.pointer("Uniform", u4), buf,
                                       self.c("i", 0, 1), index), value)

        def words(v: int, kind: str) -> int:
            return self.bitcast(v, kind, "u")

        for k, o in enumerate(outputs):
            b = o["binding"]
            at = self.val("IAdd", it, self.val("IMul", it, lane, self.c("i", k1, 1)),
                          self.c("i", k, 1))
            if b.startswith(TCS_WRITTEN_PATH + "["):
                j = int(b[len(TCS_WRITTEN_PATH) + 1:-1])
                w = self.val("Load", self.t("i"), self.val(
                    "AccessChain", written.ptr_elem, written.var, self.c("i", j, 1)))
                store(at, words(w, "i"))
                continue
            value, skind = self.tcs_values[b]
            name = o["name"]
            if name == "gl_out[].gl_Position":
                out = self.builtin_inputs[("tcs-out", name)]
                v = self.val("Load", self.t("f"), self.val(
                    "AccessChain", m.pointer("Output", self.t("f")), out, inv))
                store(at, words(v, "f"))
            elif name == "gl_out[].gl_PointSize":
                out = self.builtin_inputs[("tcs-out", name)]
                s = self.val("Load", f1, self.val("AccessChain", m.pointer("Output", f1), out,
                                                  inv))
                fv = self.bitcast(value, skind, "f")
                v = self.vec("f", [s, self.x(fv, 1), self.x(fv, 2), self.x(fv, 3)])
                store(at, words(v, "f"))
            elif name in _PATCH_BUILTINS or b.startswith("result.patch"):
                store(at, words(value, skind))          # the invocation's own register
            else:
                kind = {"vec4": "f", "ivec4": "i"}[o["type"]]
                out = self.builtin_inputs[("tcs-out", name)]
                v = self.val("Load", self.t(kind), self.val(
                    "AccessChain", m.pointer("Output", self.t(kind)), out, inv))
                store(at, words(v, kind))
        patch = self.instr.tcs_patch_outputs
        k2 = max(len(patch), 1)
        # barrier(): glslang's OpControlBarrier Workgroup Invocation None in a control shader
        self.put("ControlBarrier", self.c("u", 2, 1), self.c("u", 4, 1), self.c("u", 0, 1))
        first = self.cmp("IEqual", inv, self.c("i", 0, 1), 1)

        def patch_stores():
            base = self.val("IAdd", it, self.c("i", self.instr.tcs_lanes * k1, 1),
                            self.val("IMul", it, prim, self.c("i", k2, 1)))
            for k, o in enumerate(patch):
                out = self.builtin_inputs[("tcs-out", o["name"])]
                if o["name"] in _PATCH_BUILTINS:
                    n = _PATCH_BUILTINS[o["name"]][1]
                    levels = [self.val("Load", f1, self.val(
                        "AccessChain", m.pointer("Output", f1), out, self.c("i", c, 1)))
                        for c in range(n)]
                    v = words(self.vec("f", levels + [self.c("f", 0.0, 1)] * (4 - n)), "f")
                else:
                    kind = {"vec4": "f", "ivec4": "i"}[o["type"]]
                    v = words(self.val("Load", self.t(kind), out), kind)
                store(self.val("IAdd", it, base, self.c("i", k, 1)), v)
        self.conditional(first, patch_stores)

    def tess_modes(self, main: int) -> None:
        tess = self.prog.tessellation
        m = self.m
        m.capability("Tessellation")
        if self.prog.stage == Stage.TESS_CTRL:
            m.put("modes", "ExecutionMode", main, _OUTPUT_VERTICES, tess.vertices_out)
            return
        assert self.prog.stage == Stage.TESS_EVAL
        m.put("modes", "ExecutionMode", main, _DOMAIN[tess.primitive])
        m.put("modes", "ExecutionMode", main, _SPACING[tess.spacing])
        m.put("modes", "ExecutionMode", main,
              _VERTEX_ORDER_CW if tess.vertex_order_cw else _VERTEX_ORDER_CCW)
        if tess.point_mode:
            m.put("modes", "ExecutionMode", main, _POINT_MODE)
