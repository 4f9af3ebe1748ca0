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

from ...ir.model import DataType, Instruction, Stage
from ..refusal import Unsupported

#: Vulkan bindings of storage buffers: after the parameter block (0), textures (1 + unit) and
#: parameter buffers (40 + b)
VULKAN_STORAGE_BASE = 64

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

    def resource_var(self, name: str) -> str:
        r = self.prog.resources[name]
        return f"xl_storage{r.binding}.words" if r.kind == "buffer" else f"xl_shared{r.binding}"

    def storage_binding(self, binding: int) -> int:
        return VULKAN_STORAGE_BASE + binding if self.vulkan else binding

    def declare_memory(self) -> list[str]:
        lines = []
        for r in self.prog.resources.values():
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
