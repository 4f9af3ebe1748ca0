"""Compute programs and memory in GLSL (mixed into the emitter): the ``local_size`` layout,
storage buffers and shared memory as arrays of 32-bit words, and LOAD/STORE/BARRIER/MEMBAR.

* Storage buffer ``BUFFER[n]`` is ``layout(std430, binding = n) buffer XlateStorage<n> { uint
  words[]; } xl_storage<n>;`` (Vulkan: set 0, binding 64 + n, after the parameter blocks and
  the textures); shared memory ``MEMORY[n], SHARED`` is ``shared uint xl_shared<n>[size/4];``.
* Accesses go through one function per resource and direction, ``xl_load_<res>(i)`` /
  ``xl_store_<res>(i, v)`` on word ``i = address >> 2``: an index outside the resource reads 0
  and writes nothing, as the executor defines it (exec/memory.py), so the translation does not
  depend on the implementation's robustness behaviour.
* BARRIER is ``barrier()`` preceded by ``memoryBarrierShared()`` when the program has shared
  memory (GLSL 4.60 8.16: barrier() orders shared-memory accesses for compute shaders already;
  the explicit fence keeps that reading for implementations that differ), MEMBAR the fences its
  bits name (tgsi.rst: 1 buffers, 2 atomic counters, 4 images, 8 shared, 16 thread group ->
  memoryBarrierBuffer / memoryBarrierAtomicCounter / memoryBarrierImage / memoryBarrierShared
  / groupMemoryBarrier).
"""
from __future__ import annotations

from dataclasses import replace

from ...ir.image_formats import image_format
from ...ir.model import DataType, Instruction, Stage
from ..refusal import Unsupported

#: Vulkan bindings of storage buffers: after the parameter block (0), textures (1 + unit) and
#: parameter buffers (40 + b); images after them
VULKAN_STORAGE_BASE = 64
VULKAN_IMAGE_BASE = 96

#: image targets -> (GLSL type suffix, coordinate components, components imageSize returns)
IMAGE_TYPES = {"BUFFER": ("Buffer", 1, 1), "1D": ("1D", 1, 1), "2D": ("2D", 2, 2),
               "RECT": ("2DRect", 2, 2), "3D": ("3D", 3, 3), "CUBE": ("Cube", 3, 2),
               "ARRAY1D": ("1DArray", 2, 2), "ARRAY2D": ("2DArray", 3, 3),
               "ARRAYCUBE": ("CubeArray", 3, 3)}
#: image formats OpenGL ES 3.1 has (GLSL ES 3.10 4.4.7)
ES_IMAGE_FORMATS = frozenset({"R32G32B32A32_FLOAT", "R16G16B16A16_FLOAT", "R32_FLOAT",
                              "R8G8B8A8_UNORM", "R8G8B8A8_SNORM", "R32G32B32A32_SINT",
                              "R16G16B16A16_SINT", "R8G8B8A8_SINT", "R32_SINT",
                              "R32G32B32A32_UINT", "R16G16B16A16_UINT", "R8G8B8A8_UINT",
                              "R32_UINT"})


def layout_qualifier(fmt) -> str:
    """The GLSL image format qualifier of an :class:`~xlate.ir.image_formats.ImageFormat`."""
    chans = {1: "r", 2: "rg", 4: "rgba"}[fmt.channels]
    suffix = {"float": "f", "unorm": "", "snorm": "_snorm", "uint": "ui", "sint": "i"}[fmt.kind]
    return f"{chans}{fmt.bits}{suffix}"

_MEMBAR_FENCES = ((1, "memoryBarrierBuffer()"), (2, "memoryBarrierAtomicCounter()"),
                  (4, "memoryBarrierImage()"), (8, "memoryBarrierShared()"),
                  (16, "groupMemoryBarrier()"))


class Memory:
    """Part of :class:`~xlate.backends.glsl.emitter.GlslEmitter` (mixed in)."""

    def check_memory_profile(self) -> None:
        prog = self.prog
        if prog.stage != Stage.COMPUTE and not prog.resources:
            return
        if self.profile == "glsl330":
            what = "compute shaders" if prog.stage == Stage.COMPUTE else "storage buffers"
            raise Unsupported(f"{what} (GLSL 4.30 / ES 3.10; glsl330 has neither)", None)

    def compute_layout(self) -> list[str]:
        size = self.prog.local_size
        if self.prog.stage != Stage.COMPUTE or size is None:
            return []
        return [f"layout(local_size_x = {size[0]}, local_size_y = {size[1]}, "
                f"local_size_z = {size[2]}) in;"]

    def image_var(self, r) -> str:
        return f"xl_image{r.binding}"

    def image_usage(self) -> dict[str, set[str]]:
        used: dict[str, set[str]] = {}
        for ins in self.prog.instructions:
            if ins.op in ("IMGLOAD", "IMGSTORE"):
                used.setdefault(ins.mem.resource, set()).add(ins.op)
        return used

    def declare_images(self) -> list[str]:
        lines = []
        usage = self.image_usage()
        for r in self.prog.resources.values():
            if r.kind != "image":
                continue
            fmt = image_format(r.format)
            glsl_type, _, _ = IMAGE_TYPES[r.target]
            if self.info.es and (r.target in ("BUFFER", "1D", "ARRAY1D", "RECT", "ARRAYCUBE")
                                 or fmt is None or fmt.name not in ES_IMAGE_FORMATS):
                what = f"format {r.format}" if fmt is not None and r.target not in (
                    "BUFFER", "1D", "ARRAY1D", "RECT", "ARRAYCUBE") else (
                    "an image without a format" if fmt is None else f"a {r.target} image")
                raise Unsupported(f"{what} (IMAGE[{r.binding}])", r.span)
            prefix = {"uint": "u", "sint": "i"}.get(fmt.kind, "") if fmt is not None else ""
            parts = [f"set = 0, binding = {VULKAN_IMAGE_BASE + r.binding}" if self.vulkan
                     else f"binding = {r.binding}"]
            if fmt is not None:
                parts.append(layout_qualifier(fmt))
            ops = usage.get(r.name, set())
            access = "readonly " if ops == {"IMGLOAD"} else "writeonly " \
                if ops == {"IMGSTORE"} or fmt is None else ""
            precision = "highp " if self.info.es else ""
            lines.append(f"layout({', '.join(parts)}) uniform {access}{precision}{prefix}image"
                         f"{glsl_type} {self.image_var(r)};")
        return lines

    def emit_image(self, ins: Instruction) -> list[str]:
        r = self.prog.resources[ins.mem.resource]
        fmt = image_format(r.format)
        _, ncoord, _ = IMAGE_TYPES[r.target]
        c = self.operand(ins.srcs[0], DataType.INT, False, None, read=(ins, 0))
        coord = f"{c}.{'xyz'[:ncoord]}" if ncoord > 1 else f"{c}.x"
        var = self.image_var(r)
        kind = fmt.kind if fmt is not None else "float"
        if ins.op == "IMGLOAD":
            value = f"imageLoad({var}, {coord})"
            value = f"floatBitsToUint({value})" if kind not in ("uint", "sint") else \
                (f"uvec4({value})" if kind == "sint" else value)
            return self.write(ins, value, DataType.UINT, [c])
        v = self.operand(ins.srcs[1], DataType.UINT, False, None, read=(ins, 1))
        v = f"uintBitsToFloat({v})" if kind not in ("uint", "sint") else \
            (f"ivec4({v})" if kind == "sint" else v)
        return [f"imageStore({var}, {coord}, {v});"]

    def emit_resq(self, ins: Instruction) -> list[str]:
        r = self.prog.resources[ins.mem.resource]
        if r.kind == "buffer":
            value = f"uvec4(uint({self.resource_var(r.name)}.length()) * 4u, 0u, 0u, 0u)"
        else:
            _, _, n = IMAGE_TYPES[r.target]
            size = f"imageSize({self.image_var(r)})"
            value = f"uvec4({size}, {', '.join(['0u'] * (4 - n))})" if n == 1 else \
                f"uvec4(uvec{n}({size}), {', '.join(['0u'] * (4 - n))})"
            if n == 1:
                value = f"uvec4(uint({size}), 0u, 0u, 0u)"
        return self.write(ins, value, DataType.UINT, [])

    def resource_var(self, name: str) -> str:
        r = self.prog.resources[name]
        return f"xl_storage{r.binding}.words" if r.kind == "buffer" else f"xl_shared{r.binding}"

    def storage_binding(self, binding: int) -> int:
        return VULKAN_STORAGE_BASE + binding if self.vulkan else binding

    def declare_memory(self) -> list[str]:
        lines = self.declare_images()
        for r in self.prog.resources.values():
            if r.kind == "image":
                continue
            if r.kind == "buffer":
                where = f"set = 0, binding = {self.storage_binding(r.binding)}" if self.vulkan \
                    else f"binding = {r.binding}"
                lines.append(f"layout(std430, {where}) buffer XlateStorage{r.binding} "
                             f"{{ uint words[]; }} xl_storage{r.binding};")
            else:
                lines.append(f"shared uint xl_shared{r.binding}[{r.size // 4}];")
        return lines

    def memory_functions(self) -> list[str]:
        """The access functions of the resources the body uses (``used_memory``)."""
        out = []
        for kind, res in sorted(getattr(self, "used_memory", ())):
            var = self.resource_var(res)
            length = f"uint({var}.length())"
            if kind == "load":
                out.append(f"uint xl_load_{res}(uint i)\n{{\n    return i < {length} ? {var}[i] "
                           ": 0u;\n}")
            else:
                out.append(f"void xl_store_{res}(uint i, uint v)\n{{\n    if (i < {length})\n"
                           f"        {var}[i] = v;\n}}")
        return out

    def emit_mem(self, ins: Instruction) -> list[str]:
        if not hasattr(self, "used_memory"):
            self.used_memory = set()
        if ins.op == "BARRIER":
            shared = any(r.kind == "shared" for r in self.prog.resources.values())
            return (["memoryBarrierShared();"] if shared else []) + ["barrier();"]
        if ins.op == "MEMBAR":
            return [f"{fn};" for bit, fn in _MEMBAR_FENCES if ins.mem.flags & bit]
        if ins.op in ("IMGLOAD", "IMGSTORE"):
            return self.emit_image(ins)
        if ins.op == "RESQ":
            return self.emit_resq(ins)
        res = ins.mem.resource
        addr = self.operand(ins.srcs[0], DataType.UINT, True, None, read=(ins, 0))
        index = f"({addr} >> 2u)"
        comps = [c for c in range(4) if (ins.dst.mask if ins.op == "LOAD" else ins.mem.mask)[c]]
        if ins.op == "LOAD":
            self.used_memory.add(("load", res))
            words = [(f"xl_load_{res}({index} + {c}u)" if c else f"xl_load_{res}({index})")
                     if ins.dst.mask[c] else "0u" for c in range(4)]
            if len(comps) == 1 and ins.dst.cond is None and ins.cc_update is None:
                return self.write_scalar(ins, words[comps[0]], DataType.UINT)
            return self.write(ins, f"uvec4({', '.join(words)})", DataType.UINT, [addr])
        # STORE: the value's bits, component c to word index + c
        self.used_memory.add(("store", res))
        src = ins.srcs[1]
        if len(comps) == 1:
            c = comps[0]
            one = self.operand(replace(src, swizzle=(src.swizzle[c],) * 4), DataType.UINT, True,
                               None, read=(ins, 1))
            at = index if c == 0 else f"{index} + {c}u"
            return [f"xl_store_{res}({at}, {one});"]
        value = self.operand(src, DataType.UINT, False, None, read=(ins, 1))
        lines = ["{", f"    uint xl_i = {index};", f"    uvec4 xl_v = {value};"]
        for c in range(4):
            if ins.mem.mask[c]:
                at = "xl_i" if c == 0 else f"xl_i + {c}u"
                lines.append(f"    xl_store_{res}({at}, xl_v.{'xyzw'[c]});")
        return lines + ["}"]
