"""Images of the direct SPIR-V path (TGSI ``IMAGE``; issue 20): storage images and
LOAD/STORE/RESQ on them, as the GLSL backend writes them (backends/glsl/memory.py
``declare_images``, ``emit_image``, ``emit_resq``) and glslang compiles that GLSL:

* ``IMAGE[n]``: an ``OpTypeImage`` with Sampled 2 (a storage image) of the target's
  dimensionality and arrayedness, its texel format as the SPIR-V image format
  (``R8G8B8A8_UNORM`` -> ``Rgba8``; none -> ``Unknown``, write-only as in GLSL), the sampled type
  of the format's kind (float for float/unorm/snorm, int, uint); set 0, binding 96 + n
  (Vulkan) or n (the same ``image_binding`` as the GLSL plan); ``NonWritable`` when only loaded,
  ``NonReadable`` when only stored (or without a format), as glslang decorates ``readonly`` /
  ``writeonly``.
* Capabilities the image needs: ``Image1D`` (1D, 1D array), ``ImageBuffer``, ``ImageRect``
  (OpenGL), ``ImageCubeArray``, ``StorageImageExtendedFormats`` for a format outside the
  thirteen of the Shader capability, ``StorageImageWriteWithoutFormat`` /
  ``StorageImageReadWithoutFormat`` for an image without a format, ``ImageQuery`` for RESQ.
* LOAD is ``OpImageRead`` at the first 1..3 components of the coordinate operand (ints), its
  texel's words (``floatBitsToUint`` / ``uvec4`` in GLSL: an ``OpBitcast``); STORE is
  ``OpImageWrite`` of the value's words read as the sampled type; RESQ is ``OpImageQuerySize``
  in the first components, 0 in the others (the executor's reading, exec/memory.py).
* A multisample image (``2DMS``, ``ARRAY2DMS``) is a 2D image with MS 1 (capability
  ``StorageImageMultisample``); its accesses pass the coordinates' w as the ``Sample`` image
  operand (the atomics as ``OpImageTexelPointer``'s sample), RESQ's w is
  ``OpImageQuerySamples`` (GLSL's ``imageSamples``).
* A ``RECT`` image in Vulkan (which has no rectangle images: ``ImageRect`` is not a Vulkan 1.0
  capability, so glslang's module of ``image2DRect`` fails spirv-val there) is a 2D image:
  integer texel coordinates address a rectangle and a 2D image alike.

An access outside the image is left to the implementation as in GLSL (OpenGL 4.6 8.26:
an invalid load returns 0, an invalid store does nothing -- the executor's reading).
"""
from __future__ import annotations

from ...ir.image_formats import image_format
from ...ir.model import DataType, Instruction
from ..glsl.memory import IMAGE_TYPES, MULTISAMPLE

#: image target -> (SPIR-V Dim: 0 1D, 1 2D, 2 3D, 3 Cube, 4 Rect, 5 Buffer; arrayed)
_DIMS = {"BUFFER": (5, 0), "1D": (0, 0), "2D": (1, 0), "RECT": (4, 0), "3D": (2, 0),
         "CUBE": (3, 0), "ARRAY1D": (0, 1), "ARRAY2D": (1, 1), "ARRAYCUBE": (3, 1),
         "2DMS": (1, 0), "ARRAY2DMS": (1, 1)}
_SAMPLE = 0x40                  # the Sample image operand
#: SPIR-V ImageFormat enumerants, in their order (spirv.core.grammar.json "ImageFormat")
_SPIRV_FORMATS = (
    "Unknown Rgba32f Rgba16f R32f Rgba8 Rgba8Snorm Rg32f Rg16f R11fG11fB10f R16f Rgba16 "
    "Rgb10A2 Rg16 Rg8 R16 R8 Rgba16Snorm Rg16Snorm Rg8Snorm R16Snorm R8Snorm Rgba32i Rgba16i "
    "Rgba8i R32i Rg32i Rg16i Rg8i R16i R8i Rgba32ui Rgba16ui Rgba8ui R32ui Rgb10a2ui Rg32ui "
    "Rg16ui Rg8ui R16ui R8ui").split()
#: the formats the Shader capability has (SPIR-V 3.11 "Image Format"); the others need
#: StorageImageExtendedFormats
_BASE_FORMATS = frozenset({"Rgba32f", "Rgba16f", "R32f", "Rgba8", "Rgba8Snorm", "Rgba32i",
                           "Rgba16i", "Rgba8i", "R32i", "Rgba32ui", "Rgba16ui", "Rgba8ui",
                           "R32ui"})


def spirv_format_name(fmt) -> str:
    """The SPIR-V image format of an :class:`~xlate.ir.image_formats.ImageFormat` (None:
    ``Unknown``)."""
    if fmt is None:
        return "Unknown"
    chans = {1: "R", 2: "Rg", 4: "Rgba"}[fmt.channels]
    suffix = {"float": "f", "unorm": "", "snorm": "Snorm", "uint": "ui", "sint": "i"}[fmt.kind]
    return f"{chans}{fmt.bits}{suffix}"


class ImageMixin:
    """Part of :class:`~xlate.backends.spirv_direct.emitter.DirectEmitter`."""

    def declare_images(self) -> None:
        m = self.m
        #: resource name -> (variable, image type, sampled kind letter, coordinate components,
        #: components of the size)
        self.images: dict[str, tuple[int, int, str, int, int]] = {}
        usage = self.plan.image_usage()
        for r in self.prog.resources.values():
            if r.kind != "image":
                continue
            fmt = image_format(r.format)
            kind = {"uint": "u", "sint": "i"}.get(fmt.kind, "f") if fmt is not None else "f"
            dim, arrayed = _DIMS[r.target]
            if dim == 4:
                if self.vulkan:
                    dim = 1                       # a rectangle is a 2D image in Vulkan
                else:
                    m.capability("ImageRect")
            elif dim == 0:
                m.capability("Image1D")
            elif dim == 5:
                m.capability("ImageBuffer")
            elif dim == 3 and arrayed:
                m.capability("ImageCubeArray")
            name = spirv_format_name(fmt)
            ops = usage.get(r.name, set())
            if name == "Unknown":
                if "IMGSTORE" in ops:
                    m.capability("StorageImageWriteWithoutFormat")
                if "IMGLOAD" in ops:
                    m.capability("StorageImageReadWithoutFormat")
            elif name not in _BASE_FORMATS:
                m.capability("StorageImageExtendedFormats")
            code = _SPIRV_FORMATS.index(name)
            ms = int(r.target in MULTISAMPLE)
            if ms:
                m.capability("StorageImageMultisample")
                if arrayed:
                    m.capability("ImageMSArray")
            img = m._type(("storage-image", dim, arrayed, ms, kind, code), "TypeImage",
                          m.scalar(kind), dim, 0, arrayed, ms, 2, code)
            var = m.variable(m.pointer("UniformConstant", img), "UniformConstant")
            m.decorate(var, "DescriptorSet", 0)
            m.decorate(var, "Binding", self.plan.image_binding(r.binding))
            if ops == {"IMGLOAD"}:
                m.decorate(var, "NonWritable")                 # GLSL readonly
            elif ops == {"IMGSTORE"} or fmt is None:
                m.decorate(var, "NonReadable")                 # GLSL writeonly
            _, ncoord, nsize = IMAGE_TYPES[r.target]
            self.images[r.name] = (var, img, kind, ncoord, nsize)

    def image_coordinate(self, ins: Instruction, n: int) -> int:
        """The texel coordinate: the first ``n`` components of the first operand, as ints."""
        c = self.operand(ins.srcs[0], DataType.INT, False)
        return self.x(c, 0, "i") if n == 1 else self.shuffle(c, c, tuple(range(n)), "i")

    def image_sample(self, ins: Instruction) -> int | None:
        """A multisample image's sample index (the first operand's w, an int), else None."""
        if self.prog.resources[ins.mem.resource].target not in MULTISAMPLE:
            return None
        return self.x(self.operand(ins.srcs[0], DataType.INT, False), 3, "i")

    def emit_image(self, ins: Instruction) -> None:
        var, img, kind, n, _ = self.images[ins.mem.resource]
        coord = self.image_coordinate(ins, n)
        sample = self.image_sample(ins)
        extra = () if sample is None else (_SAMPLE, sample)
        image = self.val("Load", img, var)
        if ins.op == "IMGLOAD":
            texel = self.val("ImageRead", self.t(kind), image, coord, *extra)
            return self.write(ins, self.bitcast(texel, kind, "u"), "u")
        value = self.operand(ins.srcs[1], DataType.UINT, False)
        self.put("ImageWrite", image, coord, self.bitcast(value, "u", kind), *extra)

    def image_size(self, name: str) -> int:
        """OpImageQuerySize of the image: an int or an int vector of its size components."""
        var, img, _, _, nsize = self.images[name]
        self.m.capability("ImageQuery")
        return self.val("ImageQuerySize", self.t("i", nsize), self.val("Load", img, var))

    def image_samples(self, name: str) -> int:
        """OpImageQuerySamples of a multisample image (an int)."""
        var, img, _, _, _ = self.images[name]
        self.m.capability("ImageQuery")
        return self.val("ImageQuerySamples", self.t("i", 1), self.val("Load", img, var))

    def emit_image_resq(self, ins: Instruction) -> None:
        nsize = self.images[ins.mem.resource][4]
        size = self.image_size(ins.mem.resource)
        parts = [size] if nsize == 1 else [self.x(size, k, "i") for k in range(nsize)]
        parts += [self.c("i", 0, 1)] * (4 - nsize)
        if self.prog.resources[ins.mem.resource].target in MULTISAMPLE:
            parts[3] = self.image_samples(ins.mem.resource)
        self.write(ins, self.bitcast(self.vec("i", parts), "i", "u"), "u")
