"""Compute shaders and memory on the direct SPIR-V path (issue 20): the GLCompute execution
model with its LocalSize, the compute built-ins, storage buffers and shared memory as arrays of
32-bit words, LOAD/STORE/RESQ on them, BARRIER and MEMBAR -- the same interface and the same
readings as the GLSL backend's (backends/glsl/memory.py, README "Compute programs and
memory"):

* ``BUFFER[n]``: ``struct { uint words[]; }`` decorated ``BufferBlock`` (SPIR-V 1.0's storage
  buffer, Vulkan 1.0 and GL_ARB_gl_spirv), Uniform storage, set 0, binding 64 + n (Vulkan) or n;
  ``MEMORY[n], SHARED``: a Workgroup array of size/4 words.
* An access outside a resource reads 0 and writes nothing: a load reads word ``i < length ?
  i : 0`` and selects 0 outside (a bound buffer holds at least one word), a store is under a
  selection construct.
* ``BARRIER``: OpControlBarrier(Workgroup, Workgroup, AcquireRelease | WorkgroupMemory), what
  glslang writes for ``barrier()``, after OpMemoryBarrier(Workgroup, AcquireRelease |
  WorkgroupMemory) when there is shared memory (``memoryBarrierShared()``); ``MEMBAR`` the
  barriers glslang writes for the GLSL fences its bits name.

Images (TGSI ``IMAGE``) are written in images.py, atomics (``ATOM*``) in atomics.py.
"""
from __future__ import annotations

from ...ir.model import DataType, Instruction
from .base import NotCovered

#: SPIR-V enumerants used here
_GLCOMPUTE, _LOCAL_SIZE = 5, 17
_BUILTINS = {"gl_LocalInvocationID": 27, "gl_WorkGroupID": 26, "gl_NumWorkGroups": 24,
             "gl_LocalInvocationIndex": 29}
_WORKGROUP, _DEVICE = 2, 1                      # scopes
_ACQ_REL, _UNIFORM_MEM, _WORKGROUP_MEM, _IMAGE_MEM = 0x8, 0x40, 0x100, 0x800
#: MEMBAR bits -> (scope, semantics), as glslang translates memoryBarrierBuffer(),
#: memoryBarrierAtomicCounter(), memoryBarrierImage(), memoryBarrierShared(),
#: groupMemoryBarrier()
_FENCES = ((1, _DEVICE, _ACQ_REL | _UNIFORM_MEM), (2, _DEVICE, _ACQ_REL | _UNIFORM_MEM),
           (4, _DEVICE, _ACQ_REL | _IMAGE_MEM), (8, _WORKGROUP, _ACQ_REL | _WORKGROUP_MEM),
           (16, _WORKGROUP, _ACQ_REL | _UNIFORM_MEM | _WORKGROUP_MEM | _IMAGE_MEM))
_VULKAN_STORAGE_BASE = 64


class MemoryMixin:
    """Part of :class:`~xlate.backends.spirv_direct.emitter.DirectEmitter`."""

    def declare_memory(self) -> None:
        m = self.m
        self.declare_images()
        self.declare_atomic_log()
        self.memory_vars: dict[str, tuple[int, str, int | None]] = {}
        u = self.t("u", 1)
        for r in self.prog.resources.values():
            if r.kind == "image":
                continue
            if r.kind == "buffer":
                key = ("runtime-array", u)
                rta = m.cache.get(key)
                if rta is None:
                    rta = m.id()
                    m.put("globals", "TypeRuntimeArray", rta, u)
                    m.cache[key] = rta
                    m.decorate(rta, "ArrayStride", 4)
                    st = m.id()
                    m.put("globals", "TypeStruct", st, rta)
                    m.put("annotations", "Decorate", st, 3)                 # BufferBlock
                    m.put("annotations", "MemberDecorate", st, 0, 35, 0)   # Offset 0
                    m.cache[("storage-struct", u)] = st
                st = m.cache[("storage-struct", u)]
                var = m.variable(m.pointer("Uniform", st), "Uniform")
                m.decorate(var, "DescriptorSet", 0)
                m.decorate(var, "Binding", (_VULKAN_STORAGE_BASE + r.binding) if self.vulkan
                           else r.binding)
                self.memory_vars[r.name] = (var, "Uniform", None)
            else:
                n = r.size // 4
                arr = m.array(u, n)
                var = m.variable(m.pointer("Workgroup", arr), "Workgroup")
                self.memory_vars[r.name] = (var, "Workgroup", n)

    def compute_input(self, var) -> tuple[int, str]:
        """A compute built-in as the staged ivec4 (x, y, z, 0)."""
        u3 = self.t("u", 3)
        if var.name == "gl_WorkGroupSize":
            size = self.prog.local_size
            v = self.m.composite(u3, tuple(self.c("u", n, 1) for n in size))
        else:
            v = self.compute_builtin(var.name)
        parts = [self.val("CompositeExtract", self.t("u", 1), v, k) for k in range(3)]
        return self.bitcast(self.vec("u", parts + [self.c("u", 0, 1)]), "u", "i"), "i"

    def compute_builtin(self, name: str) -> int:
        """The value of a compute built-in input (a uvec3; gl_LocalInvocationIndex a uint),
        its variable declared once."""
        t = self.t("u", 1 if name == "gl_LocalInvocationIndex" else 3)
        key = "compute:" + name
        ptr = self.builtin_inputs.get(key)
        if ptr is None:
            ptr = self.builtin_inputs[key] = self.m.variable(self.m.pointer("Input", t), "Input")
            self.m.decorate(ptr, "BuiltIn", _BUILTINS[name])
            self.interface.append(ptr)
        return self.val("Load", t, ptr)

    def compute_modes(self, main: int) -> None:
        self.m.put("modes", "ExecutionMode", main, _LOCAL_SIZE, *self.prog.local_size)

    # ---- instructions -----------------------------------------------------------------------
    def _word_pointer(self, name: str, index: int) -> int:
        var, storage, _ = self.memory_vars[name]
        u = self.t("u", 1)
        if storage == "Uniform":
            return self.val("AccessChain", self.m.pointer("Uniform", u), var,
                            self.c("i", 0, 1), index)
        return self.val("AccessChain", self.m.pointer("Workgroup", u), var, index)

    def _length(self, name: str) -> int:
        var, storage, n = self.memory_vars[name]
        if n is not None:
            return self.c("u", n, 1)
        return self.val("ArrayLength", self.t("u", 1), var, 0)

    def emit_memory(self, ins: Instruction) -> None:
        u = self.t("u", 1)
        if ins.op == "BARRIER":
            if any(r.kind == "shared" for r in self.prog.resources.values()):
                self.put("MemoryBarrier", self.c("u", _WORKGROUP, 1),
                         self.c("u", _ACQ_REL | _WORKGROUP_MEM, 1))
            self.put("ControlBarrier", self.c("u", _WORKGROUP, 1), self.c("u", _WORKGROUP, 1),
                     self.c("u", _ACQ_REL | _WORKGROUP_MEM, 1))
            return
        if ins.op == "MEMBAR":
            for bit, scope, sem in _FENCES:
                if ins.mem.flags & bit:
                    self.put("MemoryBarrier", self.c("u", scope, 1), self.c("u", sem, 1))
            return
        if ins.op.startswith("ATOM"):
            return self.emit_atomic(ins)
        if ins.op in ("IMGLOAD", "IMGSTORE"):
            return self.emit_image(ins)
        name = ins.mem.resource
        if ins.op == "RESQ" and self.prog.resources[name].kind == "image":
            return self.emit_image_resq(ins)
        if ins.op == "RESQ":
            size = self.val("IMul", u, self._length(name), self.c("u", 4, 1))
            zero = self.c("u", 0, 1)
            return self.write(ins, self.vec("u", [size, zero, zero, zero]), "u")
        addr = self.operand(ins.srcs[0], DataType.UINT, True)
        base = self.val("ShiftRightLogical", u, addr, self.c("u", 2, 1))
        length = self._length(name)
        zero = self.c("u", 0, 1)
        if ins.op == "LOAD":
            parts = []
            for c in range(4):
                if not ins.dst.mask[c]:
                    parts.append(zero)
                    continue
                i = base if c == 0 else self.val("IAdd", u, base, self.c("u", c, 1))
                inside = self.cmp("ULessThan", i, length, 1)
                safe = self.sel(inside, i, zero, "u", 1)
                word = self.val("Load", u, self._word_pointer(name, safe))
                parts.append(self.sel(inside, word, zero, "u", 1))
            return self.write(ins, self.vec("u", parts), "u")
        if ins.op == "STORE":
            value = self.operand(ins.srcs[1], DataType.UINT, False)
            for c in range(4):
                if not ins.mem.mask[c]:
                    continue
                i = base if c == 0 else self.val("IAdd", u, base, self.c("u", c, 1))
                word = self.val("CompositeExtract", u, value, c)
                inside = self.cmp("ULessThan", i, length, 1)
                self.conditional(inside, lambda i=i, word=word: self.put(
                    "Store", self._word_pointer(name, i), word))
            return
        raise NotCovered(f"the instruction {ins.op}", ins)

