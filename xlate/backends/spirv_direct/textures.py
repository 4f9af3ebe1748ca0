"""Textures of the direct SPIR-V path: the image types and variables, and the texture
instructions as GlslEmitter.emit_tex spells them (coordinates, levels of detail, gradients,
offsets), in the image instructions glslang makes of texture/textureLod/textureGrad/
texelFetch/textureSize/textureGather/textureQueryLevels."""
from __future__ import annotations

from ...ir.model import DataType, Instruction, Stage
from ...passes.types import result_type
from .base import K, NotCovered


class TextureMixin:
    def declare_textures(self) -> None:
        m = self.m
        for t in sorted(self.plan.textures.values(), key=lambda t: t.unit):
            target = t.target
            if target not in _DIM:
                raise NotCovered(f"texture target {target} (texture[{t.unit}])")
            dim, arrayed, depth = _DIM[target]
            ms = int(target in ("2DMS", "ARRAY2DMS"))
            if target in ("ARRAYCUBE", "SHADOWARRAYCUBE"):
                m.capability("SampledCubeArray")
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
            img = m._type(("img", dim, depth, arrayed, kind, ms), "TypeImage", m.scalar(kind),
                          dim, depth, arrayed, ms, 1, 0)
            simg = m._type(("simg", img), "TypeSampledImage", img)
            var = m.variable(m.pointer("UniformConstant", simg), "UniformConstant")
            m.decorate(var, "DescriptorSet", 0)
            m.decorate(var, "Binding", (1 + t.unit) if self.vulkan else t.unit)
            self.textures[t.unit] = (var, simg, img, kind)

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
        if op == "TXQS":
            if target in ("2DMS", "ARRAY2DMS"):
                self.m.capability("ImageQuery")
                n = self.val("ImageQuerySamples", self.t("i", 1), self.val("Image", img, sampler))
                self.write(ins, self.splat(n, "i"), rkind)
            else:
                self.write(ins, self.c("i", 1), rkind)          # tgsi.rst TXQS: 1
            return
        if op == "TXQLEVELS":
            # textureQueryLevels (GlslEmitter: 'ivec4(textureQueryLevels(s))')
            self.m.capability("ImageQuery")
            n = self.val("ImageQueryLevels", self.t("i", 1), self.val("Image", img, sampler))
            self.write(ins, self.splat(n, "i"), rkind)
            return
        cv = self.operand(ins.srcs[0], DataType.FLOAT, False)
        if op == "TXG":
            self.write(ins, self.gather(ins, sampler, img, cv, skind, rkind, vk_rect), rkind)
            return
        fragment = self.prog.stage == Stage.FRAGMENT
        if op == "LODQ":
            if not fragment:
                raise NotCovered("the level-of-detail query outside a fragment program", ins)
            self.m.capability("ImageQuery")
            gsel = _GRAD[target]
            coord = self.x(cv, 0) if len(gsel) == 1 else self.shuffle(cv, cv, gsel, "f")
            lod = self.val("ImageQueryLod", self.t("f", 2), sampler, coord)
            zero = self.c("f", 0.0, 1)
            self.write(ins, self.vec("f", [self.x(lod, 0), self.x(lod, 1), zero, zero]), rkind)
            return
        if op in ("TEX2", "TXB2", "TXL2"):
            self.write(ins, self.second_operand(ins, sampler, cv, skind, rkind, fragment), rkind)
            return
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
            size, coord = self.rect_normalized(img, sampler, cv)
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

    def second_operand(self, ins, sampler, cv, skind, rkind, fragment) -> int:
        """TEX2 / TXB2 / TXL2 as GlslEmitter.emit_second_operand spells them."""
        op, target = ins.op, ins.tex.target
        extra = self.operand(ins.srcs[1], DataType.FLOAT, False)
        x = self.x(extra, 0)
        zero = self.c("f", 0.0, 3)
        if op == "TXL2":
            mask, operands, explicit = 0x2, [x], True
        elif op == "TEX2":
            mask, operands, explicit = (0, [], False) if fragment else \
                (0x2, [self.c("f", 0.0, 1)], True)
        elif fragment:
            mask, operands, explicit = 0x1, [x], False
        else:
            mask, operands, explicit = 0x4, [zero, zero], True
        if target == "SHADOWCUBE":              # TXB2: the reference in the coordinate's w
            coord, dref = self.shuffle(cv, cv, (0, 1, 2), "f"), self.x(cv, 3)
        else:
            coord, dref = cv, x
        if target.startswith("SHADOW"):
            opname = "ImageSampleDrefExplicitLod" if explicit else "ImageSampleDrefImplicitLod"
            r = self.val(opname, self.t("f", 1), sampler, coord, dref,
                         *([mask] + operands if mask else []))
            return self.bitcast(self.vec("f", [r, r, r, self.c("f", 1.0, 1)]), "f", rkind)
        opname = "ImageSampleExplicitLod" if explicit else "ImageSampleImplicitLod"
        value = self.val(opname, self.t(skind), sampler, coord,
                         *([mask] + operands if mask else []))
        return self.bitcast(value, skind, rkind)

    def rect_normalized(self, img, sampler, cv) -> tuple[int, int]:
        """(the base level's size as a float vec2, ``cv.xy`` divided by it): a rectangle
        texture's texel coordinates on Vulkan, which has normalized 2D images only."""
        size = self.val("ConvertSToF", self.t("f", 2), self.val(
            "ImageQuerySizeLod", self.t("i", 2), self.val("Image", img, sampler),
            self.c("i", 0, 1)))
        return size, self.fval("FDiv", self.t("f", 2), self.shuffle(cv, cv, (0, 1), "f"), size)

    def gather(self, ins, sampler, img, cv, skind, rkind, vk_rect) -> int:
        """TXG as GlslEmitter.emit_gather spells it: textureGather[Offset] of a component
        (OpImageGather), or of a shadow sampler with the depth reference (OpImageDrefGather:
        each texel's comparison)."""
        tex = ins.tex
        target = tex.target
        shadow = target.startswith("SHADOW")
        if shadow:
            n, ref = {"SHADOW2D": (2, 2), "SHADOWRECT": (2, 2), "SHADOWARRAY2D": (3, 3),
                      "SHADOWCUBE": (3, 3)}[target]
        else:
            n, ref = {"2D": 2, "RECT": 2, "ARRAY2D": 3, "CUBE": 3, "ARRAYCUBE": 4}[target], None
        coord = self.shuffle(cv, cv, tuple(range(n)), "f")
        if vk_rect:
            _, xy = self.rect_normalized(img, sampler, cv)
            coord = xy if n == 2 else self.vec("f", [self.x(xy, 0, "f"), self.x(xy, 1, "f"),
                                                    self.x(cv, 2)])
        operands = [0x8, self.offset_const(target, tex.offset)] if any(tex.offset) else []
        if shadow:
            value = self.val("ImageDrefGather", self.t("f"), sampler, coord, self.x(cv, ref),
                             *operands)
            return self.bitcast(value, "f", rkind)
        value = self.val("ImageGather", self.t(skind), sampler, coord,
                         self.c("i", tex.component, 1), *operands)
        return self.bitcast(value, skind, rkind)

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
            dims = {"1D": 1, "SHADOW1D": 1, "3D": 3, "ARRAY2D": 3, "SHADOWARRAY2D": 3,
                    "ARRAYCUBE": 3, "SHADOWARRAYCUBE": 3, "ARRAY2DMS": 3}.get(target, 2)
            if (rect and not vk_rect) or target in ("2DMS", "ARRAY2DMS"):
                size = self.val("ImageQuerySize", self.t("i", dims), image)
            else:
                lod = self.c("i", 0, 1) if rect else self.x(c, 0, "i")
                size = self.val("ImageQuerySizeLod", self.t("i", dims), image, lod)
            parts = [size] if dims == 1 else [self.x(size, i, "i") for i in range(dims)]
            return self.vec("i", parts + [self.c("i", 0, 1)] * (4 - dims))
        n = {"1D": 1, "2D": 2, "3D": 3, "RECT": 2, "ARRAY1D": 2, "ARRAY2D": 3, "BUFFER": 1,
             "2DMS": 2, "ARRAY2DMS": 3}.get(target)
        if n is None:
            raise NotCovered(f"TXF on {target} textures", ins)
        coord = self.x(c, 0, "i") if n == 1 else self.shuffle(c, c, tuple(range(n)), "i")
        operands: list[int] = []
        mask = 0
        if target in ("2DMS", "ARRAY2DMS"):
            mask, operands = 0x40, [self.x(c, 3, "i")]          # Sample: the index in w
        elif target != "BUFFER":
            if not rect or vk_rect:
                mask, operands = 0x2, [self.c("i", 0, 1) if rect else self.x(c, 3, "i")]
            if any(ins.tex.offset):
                mask |= 0x8
                operands.append(self.offset_const(target, ins.tex.offset))
        value = self.val("ImageFetch", self.t(skind), image, coord,
                         *([mask] + operands if mask else []))
        return self.bitcast(value, skind, rkind)


# texture target -> (Dim, arrayed, depth)
_DIM = {"1D": (0, 0, 0), "2D": (1, 0, 0), "3D": (2, 0, 0), "CUBE": (3, 0, 0), "RECT": (4, 0, 0),
        "SHADOW1D": (0, 0, 1), "SHADOW2D": (1, 0, 1), "SHADOWRECT": (4, 0, 1),
        "ARRAY1D": (0, 1, 0), "ARRAY2D": (1, 1, 0), "SHADOWCUBE": (3, 0, 1),
        "SHADOWARRAY1D": (0, 1, 1), "SHADOWARRAY2D": (1, 1, 1), "BUFFER": (5, 0, 0),
        "ARRAYCUBE": (3, 1, 0), "SHADOWARRAYCUBE": (3, 1, 1), "2DMS": (1, 0, 0),
        "ARRAY2DMS": (1, 1, 0)}
# target -> (coordinate components taken from the operand, component of the depth reference)
_COORD = {"1D": (1, None), "2D": (2, None), "3D": (3, None), "CUBE": (3, None), "RECT": (2, None),
          "SHADOW1D": (1, 2), "SHADOW2D": (2, 2), "SHADOWRECT": (2, 2), "ARRAY1D": (2, None),
          "ARRAY2D": (3, None), "SHADOWCUBE": (3, 3), "SHADOWARRAY1D": (2, 2),
          "SHADOWARRAY2D": (3, 3), "BUFFER": (1, None), "ARRAYCUBE": (4, None),
          "SHADOWARRAYCUBE": (4, None), "2DMS": (2, None), "ARRAY2DMS": (3, None)}
# target -> gradient components (GlslEmitter.grad_swizzle)
_GRAD = {t: (0,) if t in ("1D", "ARRAY1D", "SHADOW1D", "SHADOWARRAY1D") else
         (0, 1, 2) if t in ("3D", "CUBE", "SHADOWCUBE", "ARRAYCUBE", "SHADOWARRAYCUBE")
         else (0, 1) for t in _COORD}
