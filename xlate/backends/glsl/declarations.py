"""Interface planning and declarations: which inputs are read and outputs written in place and
which are staged, the ``in``/``out``/uniform/global declarations, the output epilogue."""
from __future__ import annotations


import re

from ...ir.model import (Binding, DataType, PER_VERTEX_STAGES, RegKind, Stage, TESS_STAGES)
from ...ir.ops import OPCODES
from ...passes.structurize import Op, Structured
from .. import interface as I
from ..tess_interface import tcs_output_interface, tess_input_interface, tess_layout
from ...ir.model import TCS_WRITTEN_PATH as WRITTEN_PATH

from ..refusal import Unsupported
from .profiles import ES_MISSING_TARGETS, MAX_UNIFORM_LOCATIONS, TARGET_EXTENSIONS
from .records import _Tex
from .text import VEC, _PLAIN, _member_access, bitcast, vector_literal


class Declarations:
    """Part of :class:`~xlate.backends.glsl.emitter.GlslEmitter` (mixed in)."""

    # ---- interface planning --------------------------------------------------------------------------
    def plan(self) -> None:
        regs = self.prog.registers
        for reg in regs.values():
            if reg.kind in (RegKind.INPUT, RegKind.OUTPUT):
                groups = self.inputs if reg.kind == RegKind.INPUT else self.outputs
                for b in reg.bindings:
                    key = b.path
                    g = groups.get(key)
                    if g is None:
                        prefix = "in_" if reg.kind == RegKind.INPUT else "out_"
                        per_vertex = self.stage in PER_VERTEX_STAGES and reg.kind == RegKind.INPUT and key.startswith("vertex.")
                        g = I.Group(key, prefix + I.sanitize(key), b.index is not None, per_vertex,
                                    key in I.INTEGER_PATHS or reg.dtype in (DataType.INT, DataType.UINT))
                        groups[key] = g
                    if reg.dtype in (DataType.INT, DataType.UINT):
                        g.integer = True
                    if b.index is not None:
                        g.indices.add(b.index)
            elif reg.kind == RegKind.PARAM:
                for b in reg.bindings:
                    if b is not None:
                        name, elem, length = self.uniform_of(b)
                        self.uniforms[name] = max(self.uniforms.get(name, 0), length)
                        self.uniform_bindings.setdefault(name, {})[elem] = b.text()
            elif reg.kind == RegKind.BUFFER:
                b = reg.bindings[0]
                words = b.index2 + reg.length * (4 if reg.buffer_vec4 else 1)
                self.buffers[b.index] = max(self.buffers.get(b.index, 0), (words + 3) // 4)
        for ins in self.prog.instructions:
            if ins.tex is not None:
                t = self.textures.get(ins.tex.unit)
                dtype = ins.dtype if ins.op not in ("TXQ", "TXQLEVELS", "TXQS", "LODQ") else None
                if t is None:
                    missing = ES_MISSING_TARGETS.get(ins.tex.target) if self.info.es else None
                    if missing:
                        raise Unsupported(f"{missing} (texture[{ins.tex.unit}], target "
                                           f"{ins.tex.target})", ins)
                    self.textures[ins.tex.unit] = _Tex(ins.tex.unit, ins.tex.target, dtype)
                    ext = TARGET_EXTENSIONS.get((self.profile, ins.tex.target))
                    if ext:
                        self.require(ext)
                elif dtype is not None and t.dtype is not None and t.dtype != dtype:
                    raise Unsupported(f"texture unit {ins.tex.unit} is read both as "
                                       f"{t.dtype.name.lower()} and {dtype.name.lower()}", ins)
                elif t.dtype is None:
                    t.dtype = dtype
        for t in self.textures.values():
            t.dtype = t.dtype or DataType.FLOAT
            t.name = self.interface_names.texture(t.unit) or f"texture{t.unit}"
        # interface variables: integer or not per element (binding path and index), so an
        # 'INT OUTPUT o = result.color[1]' leaves result.color[0] a float output
        int_elems = {(reg.kind, b.path, b.index) for reg in regs.values()
                     if reg.kind in (RegKind.INPUT, RegKind.OUTPUT)
                     and reg.dtype in (DataType.INT, DataType.UINT)
                     for b in reg.bindings if b is not None}

        def integer(kind: RegKind, b: Binding) -> bool:
            return b.path in I.INTEGER_PATHS or (kind, b.path, b.index) in int_elems

        vulkan = self.vulkan
        for g in self.inputs.values():
            for idx in sorted(g.indices) if g.indexed else [None]:
                b = Binding(g.path, idx)
                interp = self.interp_of(b)
                try:
                    got = tess_input_interface(self.stage, b, integer(RegKind.INPUT, b),
                                               self.interface_names.input(b)) \
                        if self.stage in TESS_STAGES else None
                    var, expr = got or I.input_interface(
                        self.stage, b, integer(RegKind.INPUT, b), interp, vulkan, self.nverts,
                        self.interface_names.input(b))
                except I.NotExpressible as e:
                    raise Unsupported(str(e), _first_reader(self.prog, b))
                self.check_interface(var, b, RegKind.INPUT)
                if var.name == "gl_FragCoord":
                    expr = self.fragcoord_expression(b)
                if self.varying_block(var):
                    expr = _member_access(expr, var.name)
                self.input_vars.append((var, expr, b))
        self.direct_inputs = self.plan_direct_inputs()
        self.direct_paths = {path for path, _ in self.direct_inputs}   # input paths read in place
        for g in self.outputs.values():
            if g.path == WRITTEN_PATH:          # TESS_CTRL bookkeeping: staged, never output
                continue
            for idx in sorted(g.indices) if g.indexed else [None]:
                b = Binding(g.path, idx)
                try:
                    if self.stage == Stage.TESS_CTRL:
                        var, assign = tcs_output_interface(
                            b, integer(RegKind.OUTPUT, b), self.prog.tessellation.vertices_out,
                            self.interface_names.output(b))
                    else:
                        var, assign = I.output_interface(self.stage, b,
                                                         integer(RegKind.OUTPUT, b),
                                                         self.interface_names.output(b))
                except I.NotExpressible as e:
                    raise Unsupported(str(e), None)
                self.check_interface(var, b, RegKind.OUTPUT)
                if self.varying_block(var):
                    assign = _member_access(assign, var.name).replace(
                        f"{var.name}[gl_InvocationID] =", f"{var.name}[gl_InvocationID].v =")
                self.output_vars.append((var, assign, b))
        if self.info.es and (self.stage == Stage.GEOMETRY or (
                self.stage == Stage.FRAGMENT and "primitive.id" in self.inputs)):
            # geometry shaders, and gl_PrimitiveID in fragment shaders, are
            # GL_EXT_geometry_shader in OpenGL ES 3.1 (core only in ES 3.2)
            self.require("GL_EXT_geometry_shader")
        if self.stage in TESS_STAGES and self.profile in ("glsl330", "es310"):
            # tessellation is core from GLSL 4.00 and ES 3.20
            self.require("GL_EXT_tessellation_shader" if self.info.es else
                         "GL_ARB_tessellation_shader")
        if "fragment.sampleid" in self.inputs and self.profile in ("glsl330", "es310"):
            # gl_SampleID is core from GLSL 4.00 and ES 3.20; before, these extensions have it
            self.require("GL_OES_sample_variables" if self.info.es else "GL_ARB_sample_shading")

    def uniform_of(self, b: Binding) -> tuple[str, int | None, int]:
        """(uniform name, element, array length) of a parameter binding: its source name
        (``backends/names.py``) where it has one, else the binding's own (``interface.py``)."""
        return self.interface_names.uniform(b) or I.uniform_for(b)

    def plan_direct_inputs(self) -> dict[tuple[str, int | None], str]:
        """Inputs read in place, with no staging copy: ``(path, index) -> expression``.

        An input group is staged (copied into an ``in_*`` array at the start of ``main``) when
        the program indexes it with a register (the array is what the index selects from), in
        geometry programs (vertex-major arrays), or when an element's value is not the plain
        interface variable of the staging type (a conversion, a built-in of another type).
        Every other input is read where it is used: ``vertex_position``, not a copy of it."""
        if self.stage in PER_VERTEX_STAGES:
            return {}
        regs = self.prog.registers
        relative = {b.path for ins in self.prog.instructions for src in ins.srcs
                    if src.index is not None and src.index.relative
                    and regs[src.reg].kind == RegKind.INPUT for b in regs[src.reg].bindings}
        direct: dict[tuple[str, int | None], str] = {}
        staged: set[str] = set(relative)
        for var, expr, b in self.input_vars:
            g = self.inputs[b.path]
            if (b.path in relative or not _PLAIN.fullmatch(expr)
                    or var.glsl_type != ("ivec4" if g.integer else "vec4")):
                staged.add(b.path)
            direct[(b.path, b.index)] = expr
        return {key: expr for key, expr in direct.items() if key[0] not in staged}

    def plan_direct_outputs(self, st: Structured) -> None:
        """Outputs written in place, with no staging copy: :attr:`direct_outputs` maps
        ``(path, index)`` to the interface variable, and :attr:`zeroed_outputs` lists those that
        ``main`` first sets to zero.

        An output group is staged (an ``out_*`` global, copied out at the end of ``main``) in
        geometry programs (EMIT copies it), when the program reads it or indexes it with a
        register, or when its variable is not the plain variable of the staging type (a
        conversion: ``gl_FragDepth = x.z``, integer bits).  A direct output starts at zero,
        as staged ones do, unless the first thing ``main`` does to it, before any flow, is an
        unconditional write of all four components."""
        self.direct_outputs, self.zeroed_outputs = {}, []
        if self.stage in (Stage.GEOMETRY, Stage.TESS_CTRL):
            return
        regs = self.prog.registers
        staged = {b.path for ins in self.prog.instructions for src in ins.srcs
                  if regs[src.reg].kind == RegKind.OUTPUT for b in regs[src.reg].bindings}
        staged |= {b.path for ins in self.prog.instructions if ins.dst is not None
                   and regs[ins.dst.reg].kind == RegKind.OUTPUT and ins.dst.index is not None
                   and ins.dst.index.relative for b in regs[ins.dst.reg].bindings}
        direct = {}
        for var, assign, b in self.output_vars:
            g = self.outputs[b.path]
            m = re.fullmatch(r"([\w.\[\]]+) = \{x\};", assign)
            # a built-in is redeclared 'precise gl_Position;' (GLSL 4.50 4.7.1), which the ES
            # macro spelling (xl_precise, empty without gpu_shader5) cannot express
            if (m is None or var.block or var.glsl_type != ("ivec4" if g.integer else "vec4")
                    or (var.builtin and self.info.precise not in (None, "precise"))):
                staged.add(b.path)
            else:
                direct[(b.path, b.index)] = m.group(1)
        self.direct_outputs = {k: v for k, v in direct.items() if k[0] not in staged}
        written = set()
        for node in st.main.body:
            ins = node.ins if isinstance(node, Op) else None
            if ins is None or OPCODES[ins.op].category != "alu":
                break
            if (ins.dst is not None and ins.dst.cond is None and all(ins.dst.mask)
                    and regs[ins.dst.reg].kind == RegKind.OUTPUT):
                reg = regs[ins.dst.reg]
                b = reg.bindings[ins.dst.index.offset if ins.dst.index is not None else 0]
                written.add((b.path, b.index))
        self.zeroed_outputs = [key for key in self.direct_outputs if key not in written]

    def fragcoord_layout(self) -> str | None:
        """The layout qualifiers of gl_FragCoord for GL_ARB_fragment_coord_conventions
        (``OPTION ARB_fragment_coord_*``), where the profile has them (GLSL 1.50+ desktop:
        glsl450, glsl330); None when the default conventions hold or a fix-up replaces them."""
        prog = self.prog
        if self.vulkan or self.info.es:
            return None
        quals = [q for q, on in (("origin_upper_left", prog.fragcoord_origin_upper_left),
                                 ("pixel_center_integer", prog.fragcoord_pixel_center_integer))
                 if on]
        return ", ".join(quals) or None

    def fragcoord_expression(self, b: Binding) -> str:
        """gl_FragCoord in the program's conventions.  Vulkan has the upper-left origin only,
        with half-integer centres (VUID-StandaloneSpirv-PixelCenterInteger-04654 forbids the
        integer mode): integer centres are the coordinate minus 0.5; the lower-left origin of
        the other programs is whatever the Vulkan viewport makes of y, as before.  GLSL ES
        has neither qualifier: integer centres by the same fix-up; an upper-left origin needs
        the framebuffer height, which a shader does not know -- E7001."""
        prog = self.prog
        if not (self.vulkan or self.info.es):
            return "gl_FragCoord"
        if self.info.es and prog.fragcoord_origin_upper_left:
            asked = ("PROPERTY FS_COORD_ORIGIN UPPER_LEFT" if prog.dialect == "TGSI"
                     else "OPTION ARB_fragment_coord_origin_upper_left")
            raise Unsupported(f"a fragment position with its origin at the upper left ({asked}; "
                               "GLSL ES has no origin_upper_left layout for gl_FragCoord)", None,
                               self.binding_span(RegKind.INPUT, b))
        if prog.fragcoord_pixel_center_integer:
            return "(gl_FragCoord - vec4(0.5, 0.5, 0.0, 0.0))"
        return "gl_FragCoord"

    def check_interface(self, var: I.InterfaceVar, b: Binding, kind: RegKind) -> None:
        """E7001 for interface features the profile lacks; extensions the rest needs."""
        if not self.info.es:
            return
        if var.interpolation and "NOPERSPECTIVE" in var.interpolation:
            raise Unsupported(f"noperspective interpolation ({b.text()})", None,
                               self.binding_span(kind, b, interpolation=True))
        if "gl_ClipDistance" in var.name:
            raise Unsupported(f"clip distances ({b.text()})", None, self.binding_span(kind, b))
        if self.stage == Stage.GEOMETRY and "gl_PointSize" in var.name:
            self.require("GL_EXT_geometry_shader")
            self.require("GL_EXT_geometry_point_size")
        if self.stage in TESS_STAGES and "gl_PointSize" in var.name:
            self.require("GL_EXT_tessellation_shader")
            self.require("GL_EXT_tessellation_point_size")

    def varying_block(self, var: I.InterfaceVar) -> bool:
        """GLSL 3.30 has ``layout(location)`` on vertex inputs and fragment outputs only, so
        there a varying is matched by name: a one-member interface block named after its
        location (``out xl_varying5 { vec4 v; } result_texcoord_0;``), the same in every stage.
        Blocks, not plain variables, because a geometry shader's input and output of one
        varying need different names while the block name is shared (GLSL 3.30 4.3.7)."""
        if self.info.varying_locations or var.builtin or var.location is None:
            return False
        if (self.stage == Stage.VERTEX and var.direction == "in") or (
                self.stage == Stage.FRAGMENT and var.direction == "out"):
            return False
        # per-patch varyings have locations of their own (tess_interface.py): blocks of their own
        var.block = f"xl_{'patch' if var.interpolation == 'PATCH' else 'varying'}{var.location}"
        var.location = None
        return True

    def binding_span(self, kind: RegKind, b: Binding, interpolation: bool = False):
        """Where a binding is declared: the register's declaration, else the first instruction
        that uses it (bindings named directly in instructions have no declaration)."""
        for reg in self.prog.registers.values():
            if reg.kind != kind or (interpolation and not reg.interpolation):
                continue
            if not any(x is not None and x.path == b.path and x.index == b.index
                       for x in reg.bindings):
                continue
            if reg.span is not None:
                return reg.span
            for ins in self.prog.instructions:
                if (ins.dst is not None and ins.dst.reg == reg.name) or any(
                        src.reg == reg.name for src in ins.srcs):
                    return ins.span
        return None

    def interp_of(self, b: Binding) -> str | None:
        """The interpolation of the first input register bound to ``b`` that declares one."""
        table = self.interpolations
        if table is None:       # once per program (each input asked: was inputs x registers)
            table = self.interpolations = {}
            for reg in self.prog.registers.values():
                if reg.kind == RegKind.INPUT and reg.interpolation:
                    for x in reg.bindings:
                        table.setdefault(Binding(x.path, x.index), reg.interpolation)
        return table.get(b)

    # ---- storage expressions -----------------------------------------------------------------------
    def storage_type(self, regname: str) -> DataType:
        reg = self.prog.registers[regname]
        if reg.kind == RegKind.TEMP:
            return self.types.get(regname, DataType.FLOAT)
        if reg.kind in (RegKind.INPUT, RegKind.OUTPUT):
            groups = self.inputs if reg.kind == RegKind.INPUT else self.outputs
            g = groups[reg.bindings[0].path]
            return DataType.INT if g.integer else DataType.FLOAT
        if reg.kind == RegKind.BUFFER:
            return DataType.UINT
        if reg.kind == RegKind.CONST:
            return reg.dtype
        return DataType.FLOAT    # PARAM: uniforms are vec4; constant elements are float words

    def output_storage(self, b: Binding) -> str:
        g = self.outputs[b.path]
        return f"{g.storage}[{b.index}]" if g.indexed else g.storage

    def output_store(self, var: I.InterfaceVar, assign: str, b: Binding) -> str:
        """The epilogue statement copying a staged output to its interface variable: the
        staging storage holds raw words (integer when any element of the path is), so the
        value is bitcast to the variable's base type, never converted."""
        x = self.output_storage(b)
        st = DataType.INT if self.outputs[b.path].integer else DataType.FLOAT
        vt = DataType.INT if var.glsl_type in ("ivec4", "int") else \
            DataType.UINT if var.glsl_type in ("uvec4", "uint") else DataType.FLOAT
        if "{w}" in assign:                   # TESS_CTRL per-patch: the written components
            j = self.prog.tessellation.written[b.text()]
            return assign.format(x=bitcast(x, st, vt), w=f"{self.outputs[WRITTEN_PATH].storage}[{j}]")
        return assign.format(x=bitcast(x, st, vt))

    def geometry_layout(self) -> list[str]:
        geo = self.prog.geometry
        if self.stage in TESS_STAGES:
            return tess_layout(self.prog)
        if geo is None:
            return []
        prim_in = {"POINTS": "points", "LINES": "lines", "LINES_ADJACENCY": "lines_adjacency",
                   "TRIANGLES": "triangles", "TRIANGLES_ADJACENCY": "triangles_adjacency"}[geo.input_primitive]
        prim_out = {"POINTS": "points", "LINE_STRIP": "line_strip",
                    "TRIANGLE_STRIP": "triangle_strip"}[geo.output_primitive]
        return [f"layout({prim_in}) in;", f"layout({prim_out}, max_vertices = {geo.vertices_out}) out;"]

    def declare_interface(self) -> list[str]:
        lines = []
        for var, _, _ in self.input_vars:
            if var.name == "gl_FragCoord" and self.fragcoord_layout():
                lines.append(f"layout({self.fragcoord_layout()}) in vec4 gl_FragCoord;")
            if var.builtin:
                continue
            if var.glsl_type == "subpassInput":       # TGSI FBFETCH (interface.py)
                lines.append(f"layout(input_attachment_index = {var.binding_index()}, set = 0, "
                             f"binding = {var.location}) uniform subpassInput {var.name};")
                continue
            interp = ""
            if var.interpolation:
                interp = {"FLAT": "flat ", "PATCH": "patch ", "CENTROID": "centroid ",
                          "NOPERSPECTIVE": "noperspective ",
                          "NOPERSPECTIVE CENTROID": "noperspective centroid ",
                          "CENTROID NOPERSPECTIVE": "noperspective centroid "}.get(var.interpolation, "")
            elif self.profile in ("glsl330", "es310") and var.glsl_type != "vec4":
                # integer geometry inputs: 'flat' as the vertex shader declares the output; GLSL
                # 3.30 (4.3.4) and ES 3.10 want the interpolation of a varying to match in both
                interp = "flat "
            arr = "[]" if var.array else ""
            if var.block and interp == "patch ":
                # 'patch' qualifies the block, not its member (GLSL 4.00 4.3.9)
                lines.append(f"patch in {var.block} {{ {var.glsl_type} v; }} {var.name};")
            elif var.block:
                lines.append(f"in {var.block} {{ {interp}{var.glsl_type} v; }} {var.name}{arr};")
            else:
                lines.append(f"layout(location = {var.location}) {interp}in {var.glsl_type} {var.name}{arr};")
        for var, _, b in self.output_vars:
            # an output written in place holds computed values: precise, like the registers
            precise = self.precise if (b.path, b.index) in self.direct_outputs else ""
            if var.builtin:
                if precise:
                    lines.append(f"{precise}{var.name};")
                continue
            flat = "flat " if var.glsl_type != "vec4" and self.stage not in (
                Stage.FRAGMENT, Stage.TESS_CTRL) else ""
            patch = "patch " if var.interpolation == "PATCH" else ""     # TESS_CTRL outputs
            arr = "[]" if var.array else ""
            if var.block:
                lines.append(f"{patch}out {var.block} {{ {flat}{var.glsl_type} v; }} {var.name}{arr};")
            else:
                lines.append(f"layout(location = {var.location}) {flat}{precise}{patch}out {var.glsl_type} {var.name}{arr};")
        return lines

    def declare_uniforms(self) -> list[str]:
        lines = []
        members = [f"vec4 {name}[{n}];" if n else f"vec4 {name};" for name, n in self.uniforms.items()]
        total = sum(max(n, 1) for n in self.uniforms.values())
        # GL guarantees 1024 uniform locations; larger parameter sets go into a block
        self.params_in_block = bool(members) and (self.vulkan or total > MAX_UNIFORM_LOCATIONS)
        if members:
            if self.params_in_block:
                # glsl450: program.buffer[b] blocks use bindings 0-15, so parameters take 16
                binding = "set = 0, binding = 0, std140" if self.vulkan else "std140, binding = 16"
                if not self.info.layouts:
                    binding = "std140"      # GLSL 3.30: glUniformBlockBinding(..., 16)
                lines.append(f"layout({binding}) uniform XlateParameters\n{{")
                lines += [f"    {m}" for m in members]
                lines.append("};")
            else:
                # explicit locations: an array of n vec4 takes n locations (GLSL 4.50 4.4.3)
                loc = 0
                for (name, n), m in zip(self.uniforms.items(), members):
                    # GLSL 3.30 has no explicit uniform locations: the engine looks names up
                    lines.append(f"layout(location = {loc}) uniform {m}" if self.info.layouts
                                 else f"uniform {m}")
                    loc += max(n, 1)
        # OpenGL ES: samplers have no default precision (GLSL ES 3.10 4.5.4); highp keeps
        # fetched integers and floats exact
        precision = "highp " if self.info.es else ""
        for t in sorted(self.textures.values(), key=lambda t: t.unit):
            binding = f"set = 0, binding = {1 + t.unit}" if self.vulkan else f"binding = {t.unit}"
            if not self.info.layouts:      # GLSL 3.30: glUniform1i(texture<u>, u)
                lines.append(f"uniform {precision}{self.sampler_type(t)} {t.name};")
                continue
            lines.append(f"layout({binding}) uniform {precision}{self.sampler_type(t)} {t.name};")
        for b, n in sorted(self.buffers.items()):
            binding = f"set = 0, binding = {40 + b}, std140" if self.vulkan else f"std140, binding = {b}"
            if not self.info.layouts:
                binding = "std140"          # GLSL 3.30: glUniformBlockBinding(..., b)
            lines.append(f"layout({binding}) uniform XlateBuffer{b}\n{{\n    uvec4 words[{n}];\n}} buffer{b};")
        return lines

    def declare_globals(self):
        globals_, prologue, epilogue = [], [], []
        for g in self.inputs.values():
            if g.path in self.direct_paths:
                continue
            t = "ivec4" if g.integer else "vec4"
            dims = (f"[{self.nverts}]" if g.per_vertex else "") + (f"[{g.size}]" if g.indexed else "")
            if g.per_vertex and g.indexed and not self.info.arrays_of_arrays:
                dims = f"[{self.nverts * g.size}]"          # see staged_element
            globals_.append(f"{t} {g.storage}{dims};")
        for var, expr, b in self.input_vars:
            g = self.inputs[b.path]
            if g.path in self.direct_paths:
                continue
            tgt_type = "ivec4" if g.integer else "vec4"
            verts = range(self.nverts) if g.per_vertex else [None]
            for v in verts:
                value = expr.replace("{v}", str(v)) if v is not None else expr
                if var.glsl_type in ("int",) and tgt_type == "vec4":
                    value = f"intBitsToFloat({value})"
                if var.glsl_type in ("vec4", "bool", "float") and tgt_type == "ivec4":
                    value = f"floatBitsToInt({value})"
                if g.indexed:
                    elem = self.staged_element(g, None if v is None else str(v), str(b.index))
                else:
                    elem = g.storage + (f"[{v}]" if v is not None else "")
                prologue.append(f"{elem} = {value};")
        direct_paths = {path for path, _ in self.direct_outputs}
        for key in self.zeroed_outputs:
            t = "ivec4" if self.outputs[key[0]].integer else "vec4"
            prologue.append(f"{self.direct_outputs[key]} = {t}(0);")
        for g in self.outputs.values():
            if g.path in direct_paths:
                continue
            t = "ivec4" if g.integer else "vec4"
            dims = f"[{g.size}]" if g.indexed else ""
            init = f" = {t}[{g.size}]({', '.join([t + '(0)'] * g.size)})" if g.indexed else f" = {t}(0)"
            globals_.append(f"{self.global_qualifier}{t} {g.storage}{dims}{init};")
        for name, reg in self.prog.registers.items():
            # a TEMP no statement uses is not declared (cgc declares its dummy CC destinations
            # RC and HC in every program)
            if reg.kind == RegKind.TEMP and name in self.used_temps:
                st = self.types.get(name, DataType.FLOAT)
                t = VEC[st]
                gname = self.name_of(name)
                if reg.size is None:
                    globals_.append(f"{self.global_qualifier}{t} {gname} = {t}(0);")
                else:
                    globals_.append(f"{self.global_qualifier}{t} {gname}[{reg.size}] = {t}[{reg.size}]({', '.join([t + '(0)'] * reg.size)});")
        if "br" in self.cfg_vars:
            globals_.append("int xl_br = 0;      // target of a multi-level exit (0: none)")
        if "iter" in self.cfg_vars:
            globals_.append("int xl_iter = 0;    // loop iterations (guard)")
        for cc in sorted(self.cc_used):
            if self.cc_values.get(cc) == DataType.FLOAT:
                globals_.append(f"vec4 xl_cc{cc} = vec4(0.0);   // condition code {cc}: the value "
                                "of its last update (flags from its sign), start EQ")
            elif cc in self.cc_values:
                globals_.append(f"ivec4 xl_cc{cc} = ivec4(0);   // condition code {cc}: the "
                                "integer value of its last update (flags from it), start EQ")
            else:
                globals_.append(f"uvec4 xl_cc{cc} = uvec4(2u);   // condition codes (SF=1 ZF=2 OF=4 CF=8), start EQ")
        for regname, arr in self.param_arrays.items():
            reg = self.prog.registers[regname]
            elems = [self.param_element(reg, i) for i in range(reg.size)]
            if all(b is None for b in reg.bindings):      # literal table: a const array
                if self.literal_table_exact(reg):
                    globals_.append(f"const vec4 {arr}[{reg.size}] = vec4[{reg.size}]"
                                    f"({', '.join(elems)});")
                else:
                    # read as uintBitsToFloat(arr[i]) (param_relative): exact for every bit
                    # pattern, and uint literals are constant expressions
                    words = [vector_literal(v, DataType.UINT) for v in reg.value]
                    globals_.append(f"const uvec4 {arr}[{reg.size}] = uvec4[{reg.size}]"
                                    f"({', '.join(words)});")
                continue
            globals_.append(f"vec4 {arr}[{reg.size}];")
            prologue += [f"{arr}[{i}] = {e};" for i, e in enumerate(elems)]
        return globals_, prologue, epilogue


def _first_reader(prog, b: Binding):
    """The first instruction reading an input bound to ``b`` (where a refusal of the binding
    points), or None."""
    regs = prog.registers
    for ins in prog.instructions:
        for src in ins.srcs:
            r = regs.get(src.reg)
            if r is not None and r.kind == RegKind.INPUT and b in r.bindings:
                return ins
    return None
