"""Texture instructions: the lookup function, coordinates, offsets and gradients per target, and
the sampler types."""
from __future__ import annotations



from ...ir.model import (DataType, Instruction, Stage)
from ...passes.types import result_type

from ..refusal import Unsupported
from .profiles import MULTISAMPLE
from .records import _Tex
from .expressions import PRIMARY, place
from .text import compose_swizzles


class Textures:
    """Part of :class:`~xlate.backends.glsl.emitter.GlslEmitter` (mixed in)."""

    # ---- textures ------------------------------------------------------------------------------------
    def emit_tex(self, ins: Instruction) -> list[str]:
        tex = ins.tex
        t = self.textures[tex.unit]
        s = t.name
        target = tex.target
        op = ins.op
        shadow = target.startswith("SHADOW")
        rect = target in ("RECT", "SHADOWRECT")
        vk_rect = rect and self.vulkan
        lines: list[str] = []
        if op in ("TXF", "TXQ"):
            # the operand is pure: read in place, its swizzles composed (compose_swizzles)
            cv = self.operand(ins.srcs[0], DataType.INT, False)
            expr = compose_swizzles(self.fetch_expr(op, target, s, cv, tex.offset, vk_rect))
            return self.write(ins, expr, result_type(ins), [])
        if op == "TXQLEVELS":
            if not self.info.query_levels:
                raise Unsupported(f"the number of mipmap levels (texture[{tex.unit}]; "
                                   f"textureQueryLevels: GLSL 4.30)", ins)
            return self.write(ins, f"ivec4(textureQueryLevels({s}))", result_type(ins), [])
        if op == "TXG":
            cv = self.operand(ins.srcs[0], DataType.FLOAT, False)
            return self.emit_gather(ins, cv, s, vk_rect)
        if op == "TXQS":
            return self.write(ins, self.samples_expr(ins, s), result_type(ins), [])
        if op == "LODQ":
            return self.emit_lodq(ins, s)
        if op in ("TEX2", "TXB2", "TXL2"):
            return self.emit_second_operand(ins, s)
        narrowed = self.coord_components(ins)
        if narrowed is not None:
            # the coordinate components alone, read once: 'texture(s, R0.xy)', or the
            # expression inlined there ('texture(s, a.xy * b.xy)')
            cv = self.operand(ins.srcs[0], DataType.FLOAT, False, narrowed, read=(ins, 0))
        else:
            cv = self.operand(ins.srcs[0], DataType.FLOAT, False)
        if op == "TXP":
            c, cv = cv, self.fresh("c")
            lines.append(f"{self.precise}vec4 {cv} = {c};")
            lines.append(f"{cv} = vec4({cv}.xyz / {cv}.w, {cv}.w);")
        coord = cv if narrowed is not None else self.tex_coord(target, cv, s, vk_rect)
        off = self.offset_literal(target, tex.offset) if any(tex.offset) else None
        fragment = self.stage == Stage.FRAGMENT
        grads = None
        if op == "TXD":
            dx = self.operand(ins.srcs[1], DataType.FLOAT, False, read=(ins, 1))
            dy = self.operand(ins.srcs[2], DataType.FLOAT, False, read=(ins, 2))
            sel = self.grad_swizzle(target)
            scale = f" / vec2(textureSize({s}, 0))" if vk_rect else ""
            grads = (f"{place(dx, PRIMARY)}{sel}{scale}", f"{place(dy, PRIMARY)}{sel}{scale}")
        elif not fragment and (op in ("TEX", "TXB", "TXP") or (op == "TXL" and rect and not vk_rect)):
            # no implicit derivatives outside fragment shaders (GP4 2.X.4.4: partials are 0),
            # and rectangle textures have no LOD parameter: sample the base level by gradient
            zero = {".x": "0.0", ".xy": "vec2(0.0)", ".xyz": "vec3(0.0)"}[self.grad_swizzle(target)]
            grads = (zero, zero)
        if grads is not None:
            call = f"textureGrad{'Offset' if off else ''}({s}, {coord}, {grads[0]}, {grads[1]}{', ' + off if off else ''})"
        elif op == "TXL" and not rect:
            call = f"textureLod{'Offset' if off else ''}({s}, {coord}, {cv}.w{', ' + off if off else ''})"
        elif off and target == "SHADOWARRAY2D" and not self.info.array_shadow_offset:
            # implicit derivatives with an offset: no such function before GLSL 4.30 (none in
            # ES); textureGradOffset with dFdx/dFdy could select another level of detail
            raise Unsupported(f"texel offsets on 2D array shadow textures with implicit level of "
                               f"detail (texture[{tex.unit}], {op})", ins)
        elif op == "TXB" and not (rect and not vk_rect):   # rectangle textures have one level
            call = f"texture{'Offset' if off else ''}({s}, {coord}{', ' + off if off else ''}, {cv}.w)"
        else:
            call = f"texture{'Offset' if off else ''}({s}, {coord}{', ' + off if off else ''})"
        rtype = result_type(ins)
        if shadow:
            r = self.fresh("r")
            lines.append(f"float {r} = {call};")
            call = f"vec4({r}, {r}, {r}, 1.0)"
            if rtype != DataType.FLOAT:
                # .S/.U on a depth comparison: GP4 2.X.4.4 "interpreted as ... integer according
                # to the data type modifier" (undefined for a depth texture): its bits
                call = f"floatBits{'ToInt' if rtype == DataType.INT else 'ToUint'}({call})"
        lines = [compose_swizzles(x) for x in lines]
        written = self.write(ins, compose_swizzles(call), rtype, [])
        if not lines:
            return written
        return ["{"] + ["    " + x for x in lines + written] + ["}"]

    def samples_expr(self, ins: Instruction, s: str) -> str:
        """TXQS: textureSamples (GLSL 4.50) of a multisample sampler; 1 for any other
        (tgsi.rst TXQS), which GLSL has no query for.  glsl330 / es310: E7001 (glslang 13
        knows no GL_ARB_shader_texture_image_samples; GLSL ES has no such query)."""
        if ins.tex.target not in MULTISAMPLE:
            return "ivec4(1)"
        if not self.info.query_levels:         # GLSL 3.30, GLSL ES 3.10
            raise Unsupported(f"the sample count of a multisample texture (texture"
                               f"[{ins.tex.unit}]; textureSamples: GLSL 4.50)", ins)
        return f"ivec4(textureSamples({s}))"

    def emit_lodq(self, ins: Instruction, s: str) -> list[str]:
        """LODQ: textureQueryLod (GLSL 4.00, fragment shaders only) in xy, 0 in zw."""
        tex = ins.tex
        if not self.info.query_lod:
            raise Unsupported(f"the level-of-detail query (texture[{tex.unit}]; "
                               f"textureQueryLod: GLSL 4.00)", ins)
        if self.stage != Stage.FRAGMENT:
            raise Unsupported(f"the level-of-detail query outside a fragment program "
                               f"(texture[{tex.unit}]; GLSL has textureQueryLod in fragment "
                               f"shaders only)", ins)
        cv = self.operand(ins.srcs[0], DataType.FLOAT, False)
        coord = f"{place(cv, PRIMARY)}{self.grad_swizzle(tex.target)}"
        return self.write(ins, compose_swizzles(f"vec4(textureQueryLod({s}, {coord}), 0.0, 0.0)"),
                          result_type(ins), [])

    def emit_second_operand(self, ins: Instruction, s: str) -> list[str]:
        """TEX2 (the depth reference of a shadow cube array), TXB2 (a bias) and TXL2 (a level)
        in the second operand's x; the coordinate is the whole first operand."""
        op, target = ins.op, ins.tex.target
        cv = self.operand(ins.srcs[0], DataType.FLOAT, False)
        extra = self.operand(ins.srcs[1], DataType.FLOAT, False, read=(ins, 1))
        x = f"{place(extra, PRIMARY)}.x"
        fragment = self.stage == Stage.FRAGMENT
        if op == "TXL2":
            call = f"textureLod({s}, {cv}, {x})"
        elif op == "TEX2":
            # outside fragment shaders texture() samples the base level (GLSL 4.50 8.9: the
            # implicit level of detail is 0 there) -- samplerCubeArrayShadow has no textureGrad
            call = f"texture({s}, {cv}, {x})"
        elif fragment:
            call = f"texture({s}, {cv}, {x})"
        else:
            # no implicit derivatives and no bias outside fragment shaders (as TXB there)
            call = f"textureGrad({s}, {cv}, vec3(0.0), vec3(0.0))"
        rtype = result_type(ins)
        if target.startswith("SHADOW"):
            r = self.fresh("r")
            lines = [f"float {r} = {compose_swizzles(call)};"]
            value = f"vec4({r}, {r}, {r}, 1.0)"
            if rtype != DataType.FLOAT:
                value = f"floatBits{'ToInt' if rtype == DataType.INT else 'ToUint'}({value})"
            written = self.write(ins, value, rtype, [])
            return ["{"] + ["    " + x for x in lines + written] + ["}"]
        return self.write(ins, compose_swizzles(call), rtype, [])

    def emit_gather(self, ins: Instruction, cv: str, s: str, vk_rect: bool) -> list[str]:
        """textureGather[Offset]: the component as a constant, or the depth reference of a
        shadow sampler (which takes the coordinate without it)."""
        tex = ins.tex
        if not self.info.gather:
            raise Unsupported(f"texture gather (texture[{tex.unit}]; textureGather with a "
                               f"component: GLSL 4.00)", ins)
        target = tex.target
        if target.startswith("SHADOW"):
            coord, ref_at = {"SHADOW2D": (f"{cv}.xy", "z"), "SHADOWRECT": (f"{cv}.xy", "z"),
                             "SHADOWARRAY2D": (f"{cv}.xyz", "w"),
                             "SHADOWCUBE": (f"{cv}.xyz", "w")}[target]
            if vk_rect:
                coord = f"{coord} / vec2(textureSize({s}, 0))"
            last = f"{cv}.{ref_at}"
        else:
            coord = self.tex_coord(target, cv, s, vk_rect)
            last = str(tex.component)
        off = self.offset_literal(target, tex.offset) if any(tex.offset) else None
        call = (f"textureGatherOffset({s}, {coord}, {off}, {last})" if off
                else f"textureGather({s}, {coord}, {last})")
        return self.write(ins, compose_swizzles(call), result_type(ins), [])

    def tex_coord(self, target: str, c: str, s: str, vk_rect: bool) -> str:
        if vk_rect:
            if target == "RECT":
                return f"{c}.xy / vec2(textureSize({s}, 0))"
            return f"vec3({c}.xy / vec2(textureSize({s}, 0)), {c}.z)"
        return {"1D": f"{c}.x", "2D": f"{c}.xy", "3D": f"{c}.xyz", "CUBE": f"{c}.xyz",
                "RECT": f"{c}.xy", "SHADOW1D": f"vec3({c}.x, 0.0, {c}.z)", "SHADOW2D": f"{c}.xyz",
                "SHADOWRECT": f"{c}.xyz", "ARRAY1D": f"{c}.xy", "ARRAY2D": f"{c}.xyz",
                "SHADOWCUBE": c, "SHADOWARRAY1D": f"{c}.xyz", "SHADOWARRAY2D": c,
                "ARRAYCUBE": c}[target]

    @staticmethod
    def grad_swizzle(target: str) -> str:
        if target in ("1D", "ARRAY1D", "SHADOW1D", "SHADOWARRAY1D"):
            return ".x"
        if target in ("3D", "CUBE", "SHADOWCUBE", "ARRAYCUBE", "SHADOWARRAYCUBE"):
            return ".xyz"
        return ".xy"

    def offset_literal(self, target: str, offset) -> str:
        dims = {"1D": 1, "ARRAY1D": 1, "SHADOW1D": 1, "SHADOWARRAY1D": 1, "3D": 3}.get(target, 2)
        if dims == 1:
            return str(offset[0])
        return f"ivec{dims}({', '.join(str(o) for o in offset[:dims])})"

    def fetch_expr(self, op: str, target: str, s: str, c: str, offset, vk_rect: bool) -> str:
        rect = target in ("RECT", "SHADOWRECT")
        if op == "TXQ":
            if target == "BUFFER":
                return f"ivec4(textureSize({s}), 0, 0, 0)"
            # a rectangle texture has one level and TXQ on it ignores the LOD operand: the
            # normalized 2D texture that stands for it in Vulkan is queried at level 0
            lod = "" if rect and not vk_rect else ", 0" if rect else f", {c}.x"
            size = f"textureSize({s}{lod})"
            if target in MULTISAMPLE:
                size = f"textureSize({s})"            # one level: no LOD operand
            dims = {"1D": 1, "SHADOW1D": 1, "3D": 3, "ARRAY2D": 3, "SHADOWARRAY2D": 3,
                    "ARRAYCUBE": 3, "SHADOWARRAYCUBE": 3, "ARRAY2DMS": 3}.get(target, 2)
            return f"ivec4({size}, {', '.join(['0'] * (4 - dims))})"
        coord = {"1D": f"{c}.x", "2D": f"{c}.xy", "3D": f"{c}.xyz", "RECT": f"{c}.xy",
                 "ARRAY1D": f"{c}.xy", "ARRAY2D": f"{c}.xyz", "BUFFER": f"{c}.x",
                 "2DMS": f"{c}.xy", "ARRAY2DMS": f"{c}.xyz"}[target]
        if target == "BUFFER":
            return f"texelFetch({s}, {coord})"
        if target in MULTISAMPLE:
            return f"texelFetch({s}, {coord}, {c}.w)"      # the sample index in w
        # TXF on a rectangle texture has no LOD (GL's texelFetch(sampler2DRect, ...)): level 0
        lod = "" if rect and not vk_rect else ", 0" if rect else f", {c}.w"
        if any(offset):
            return f"texelFetchOffset({s}, {coord}{lod or ', 0'}, {self.offset_literal(target, offset)})" \
                if not rect or vk_rect else f"texelFetchOffset({s}, {coord}, {self.offset_literal(target, offset)})"
        return f"texelFetch({s}, {coord}{lod})"

    def sampler_type(self, t: _Tex) -> str:
        base = {"1D": "sampler1D", "2D": "sampler2D", "3D": "sampler3D", "CUBE": "samplerCube",
                "RECT": "sampler2DRect", "SHADOW1D": "sampler1DShadow", "SHADOW2D": "sampler2DShadow",
                "SHADOWRECT": "sampler2DRectShadow", "ARRAY1D": "sampler1DArray",
                "ARRAY2D": "sampler2DArray", "SHADOWCUBE": "samplerCubeShadow",
                "SHADOWARRAY1D": "sampler1DArrayShadow", "SHADOWARRAY2D": "sampler2DArrayShadow",
                "BUFFER": "samplerBuffer", "ARRAYCUBE": "samplerCubeArray",
                "SHADOWARRAYCUBE": "samplerCubeArrayShadow", "2DMS": "sampler2DMS",
                "ARRAY2DMS": "sampler2DMSArray"}[t.target]
        if self.vulkan:
            base = base.replace("2DRect", "2D")   # Vulkan has no rectangle textures: normalized
        if not t.target.startswith("SHADOW"):
            base = {DataType.FLOAT: "", DataType.INT: "i", DataType.UINT: "u"}[t.dtype] + base
        return base
