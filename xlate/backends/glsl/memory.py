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
from ...ir.model import MULTISAMPLE_TARGETS, DataType, Instruction, Stage
from ..refusal import Unsupported
from .text import components

#: Vulkan bindings of storage buffers: after the parameter block (0), textures (1 + unit) and
#: parameter buffers (40 + b); images after them
VULKAN_STORAGE_BASE = 64
VULKAN_IMAGE_BASE = 96

#: image targets -> (GLSL type suffix, coordinate components, components imageSize returns)
IMAGE_TYPES = {"BUFFER": ("Buffer", 1, 1), "1D": ("1D", 1, 1), "2D": ("2D", 2, 2),
               "RECT": ("2DRect", 2, 2), "3D": ("3D", 3, 3), "CUBE": ("Cube", 3, 2),
               "ARRAY1D": ("1DArray", 2, 2), "ARRAY2D": ("2DArray", 3, 3),
               "ARRAYCUBE": ("CubeArray", 3, 3), "2DMS": ("2DMS", 2, 2),
               "ARRAY2DMS": ("2DMSArray", 3, 3)}
#: multisample images: every access also passes the sample index, the coordinates' w
#: (frontends/tgsi/lower_memory.py IMAGE_TARGETS); RESQ's w is imageSamples()
MULTISAMPLE = MULTISAMPLE_TARGETS
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


#: atomics GLSL has a built-in for (the others are compare-and-swap loops over their rule,
#: exec/atomics.py)
_NATIVE_ATOMICS = {"ATOMADD": "Add", "ATOMAND": "And", "ATOMOR": "Or", "ATOMXOR": "Xor",
                   "ATOMUMIN": "Min", "ATOMUMAX": "Max", "ATOMXCHG": "Exchange",
                   "ATOMCAS": "CompSwap"}
#: the new word of the loop-form atomics, from ``o`` (the old word) and ``a`` (uint)
_LOOP_RULES = {
    "ATOMFADD": "floatBitsToUint(uintBitsToFloat(o) + uintBitsToFloat(a))",
    "ATOMIMIN": "uint(min(int(o), int(a)))",
    "ATOMIMAX": "uint(max(int(o), int(a)))",
    # tgsi.rst: the incremented word is returned (exec/atomics.py)
    "ATOMINCWRAP": "(o + 1u <= a) ? o + 1u : 0u",
    "ATOMDECWRAP": "(o > 0u && o < a) ? o - 1u : 0u",
    # on an R32_SINT image only (GLSL's imageAtomicMin/Max on an iimage compare signed;
    # tgsi.rst's ATOMUMIN/ATOMUMAX compare unsigned whatever the format)
    "ATOMUMIN": "min(o, a)",
    "ATOMUMAX": "max(o, a)",
}
#: native atomics whose GLSL built-in on a signed image compares otherwise than the opcode
_UNSIGNED_COMPARES = frozenset({"ATOMUMIN", "ATOMUMAX"})
#: the log entry size of the verifier's atomic log (uvec4s per atomic)
ATOMIC_LOG_BINDING = 31


def atomic_functions(prog) -> list[tuple[str, str]]:
    """(opcode, resource) of every atomic function a program uses, in the order whose index
    the verifier's log records (``atomic_log``)."""
    return sorted({(ins.op, ins.mem.resource) for ins in prog.instructions
                   if ins.op in _NATIVE_ATOMICS or ins.op in _LOOP_RULES})


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

    def image_binding(self, unit: int) -> int:
        return VULKAN_IMAGE_BASE + unit if self.vulkan else unit

    def image_usage(self) -> dict[str, set[str]]:
        used: dict[str, set[str]] = {}
        for ins in self.prog.instructions:
            if ins.op in ("IMGLOAD", "IMGSTORE"):
                used.setdefault(ins.mem.resource, set()).add(ins.op)
            elif ins.op in _NATIVE_ATOMICS or ins.op in _LOOP_RULES:   # reads and writes
                used.setdefault(ins.mem.resource, set()).update(("IMGLOAD", "IMGSTORE"))
        return used

    def declare_images(self) -> list[str]:
        lines = []
        usage = self.image_usage()
        for r in self.prog.resources.values():
            if r.kind != "image":
                continue
            fmt = image_format(r.format)
            glsl_type, _, _ = IMAGE_TYPES[r.target]
            if self.vulkan and r.target == "RECT":
                # Vulkan has no rectangle images (glslang's module for image2DRect needs the
                # ImageRect capability, which Vulkan 1.0 does not take: E7003): a 2D image,
                # addressed by the same integer texel coordinates, as the direct path does
                glsl_type = "2D"
            not_es = ("BUFFER", "1D", "ARRAY1D", "RECT", "ARRAYCUBE") + MULTISAMPLE
            if self.info.es and (r.target in not_es
                                 or fmt is None or fmt.name not in ES_IMAGE_FORMATS):
                what = f"format {r.format}" if fmt is not None and r.target not in not_es else (
                    "an image without a format" if fmt is None else f"a {r.target} image")
                raise Unsupported(f"{what} (IMAGE[{r.binding}])", None, r.span)
            prefix = {"uint": "u", "sint": "i"}.get(fmt.kind, "") if fmt is not None else ""
            parts = [f"set = 0, binding = {self.image_binding(r.binding)}" if self.vulkan
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

    def image_where(self, r, c: str) -> str:
        """The coordinate arguments of an image access from the ivec4 ``c``: the target's
        components, and a multisample image's sample index (``c.w``)."""
        _, n, _ = IMAGE_TYPES[r.target]
        coord = components(c, "." + "xyz"[:n], self.vector_names)
        if r.target in MULTISAMPLE:
            return f"{coord}, {components(c, '.w', self.vector_names)}"
        return coord

    def emit_image(self, ins: Instruction) -> list[str]:
        r = self.prog.resources[ins.mem.resource]
        fmt = image_format(r.format)
        c = self.operand(ins.srcs[0], DataType.INT, False, None, read=(ins, 0))
        coord = self.image_where(r, c)
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

    def emit_atomic(self, ins: Instruction) -> list[str]:
        if not hasattr(self, "used_atomics"):
            self.used_atomics = set()
        res = ins.mem.resource
        r = self.prog.resources[res]
        self.used_atomics.add((ins.op, res))
        if r.kind == "image" and self.info.es:
            self.require("GL_OES_shader_image_atomic")     # ES 3.1: image atomics
        if r.kind == "image":
            c = self.operand(ins.srcs[0], DataType.INT, False, None, read=(ins, 0))
            where = self.image_where(r, c)
        else:
            a = self.operand(ins.srcs[0], DataType.UINT, True, None, read=(ins, 0))
            where = f"({a} >> 2u)"
        args = [self.operand(s, DataType.UINT, True, None, read=(ins, k + 1))
                for k, s in enumerate(ins.srcs[1:])]
        call = f"xl_{ins.op.lower()}_{res}({', '.join([where] + args)})"
        if ins.dst.cond is None and ins.cc_update is None:
            return self.write_scalar(ins, call, DataType.UINT)
        return self.write(ins, f"uvec4({call})", DataType.UINT, [])

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
            if r.target in MULTISAMPLE:
                # tgsi.rst RESQ: ".w will contain the number of samples for multi-sampled
                # images" (GLSL 4.50 imageSamples)
                value = f"uvec4(uvec{n}({size}), {'0u, ' * (3 - n)}" \
                    f"uint(imageSamples({self.image_var(r)})))"
        return self.write(ins, value, DataType.UINT, [])

    def resource_var(self, name: str) -> str:
        r = self.prog.resources[name]
        return f"xl_storage{r.binding}.words" if r.kind == "buffer" else f"xl_shared{r.binding}"

    def storage_binding(self, binding: int) -> int:
        return VULKAN_STORAGE_BASE + binding if self.vulkan else binding

    def declare_memory(self) -> list[str]:
        lines = self.declare_images() + self.atomic_log_lines()
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

    def atomic_function(self, op: str, res: str) -> str:
        """The function of one atomic on one resource (returns the rule's returned word)."""
        r = self.prog.resources[res]
        name = f"xl_{op.lower()}_{res}"
        cas = op == "ATOMCAS"
        params = ", uint a, uint b" if cas else ", uint a"
        if r.kind == "image":
            _, n, _ = IMAGE_TYPES[r.target]
            ctype = "int" if n == 1 else f"ivec{n}"
            sint = r.format == "R32_SINT"
            var = self.image_var(r)
            ms = r.target in MULTISAMPLE
            head = f"uint {name}({ctype} c{', int s' if ms else ''}{params})\n{{\n"
            cs = "c, s" if ms else "c"
            conv = (lambda e: f"int({e})") if sint else (lambda e: e)
            back = (lambda e: f"uint({e})") if sint else (lambda e: e)
            if op in _NATIVE_ATOMICS and not (sint and op in _UNSIGNED_COMPARES):
                args = f"{conv('a')}, {conv('b')}" if cas else conv("a")
                native = f"imageAtomic{_NATIVE_ATOMICS[op]}({var}, {cs}, {args})"
                body = f"    uint r = {back(native)};\n"
            else:
                first = back(f"imageLoad({var}, {cs}).x")
                new_word = conv("(" + _LOOP_RULES[op] + ")")
                swap = back(f"imageAtomicCompSwap({var}, {cs}, {conv('o')}, {new_word})")
                ret = "o + 1u" if op == "ATOMINCWRAP" else "o"
                body = (f"    uint o = {first};\n"
                        "    for (;;)\n    {\n"
                        f"        uint seen = {swap};\n"
                        "        if (seen == o)\n            break;\n        o = seen;\n    }\n"
                        f"    uint r = {ret};\n")
            loc = self.atomic_log_location(r) if getattr(self, "atomic_log", False) else None
        else:
            var = self.resource_var(res)
            head = (f"uint {name}(uint i{params})\n{{\n"
                    f"    if (i >= uint({var}.length()))\n        return "
                    f"{self.logged('0u', op, res, '0xFFFFFFFFu')};\n")
            if op in _NATIVE_ATOMICS:
                args = "a, b" if cas else "a"
                body = f"    uint r = atomic{_NATIVE_ATOMICS[op]}({var}[i], {args});\n"
            else:
                body = (f"    uint o = {var}[i];\n    for (;;)\n    {{\n"
                        f"        uint seen = atomicCompSwap({var}[i], o, {_LOOP_RULES[op]});\n"
                        "        if (seen == o)\n            break;\n        o = seen;\n    }\n"
                        f"    uint r = {'o + 1u' if op == 'ATOMINCWRAP' else 'o'};\n")
            loc = "i"
        return head + body + f"    return {self.logged('r', op, res, loc)};\n}}"

    def logged(self, value: str, op: str, res: str, loc: str | None) -> str:
        """``value``, through the verifier's atomic log when the emitter keeps one."""
        if not getattr(self, "atomic_log", False):
            return value
        fid = atomic_functions(self.prog).index((op, res))
        b = "b" if op == "ATOMCAS" else "0u"
        return f"xl_log_atomic({fid}u, {loc}, a, {b}, {value})"

    def atomic_log_location(self, r) -> str:
        _, n, _ = IMAGE_TYPES[r.target]
        size = f"imageSize({self.image_var(r)})"
        if r.target in MULTISAMPLE:
            # the executor's texel index: layer (layer * samples + sample) major, then y, x
            # (exec/images.py texel_index)
            var = self.image_var(r)
            layer = "s" if n == 2 else f"c.z * imageSamples({var}) + s"
            inside = (f"all(greaterThanEqual(c, ivec{n}(0))) && all(lessThan(c, {size})) && "
                      f"s >= 0 && s < imageSamples({var})")
            return (f"({inside}) ? uint(c.x + {size}.x * (c.y + {size}.y * ({layer}))) : "
                    "0xFFFFFFFFu")
        if n == 1:
            return f"(c >= 0 && c < {size}) ? uint(c) : 0xFFFFFFFFu"
        s = f"ivec{n}({size}{', 1' if n == 3 and r.target == 'CUBE' else ''})"
        return (f"(all(greaterThanEqual(c, ivec{n}(0))) && all(lessThan(c, {s}))) ? "
                + ("uint(c.x + c.y * " + s + ".x" + (" + c.z * " + s + ".x * " + s + ".y" if n == 3 else "") + ")")
                + " : 0xFFFFFFFFu")

    def atomic_log_lines(self) -> list[str]:
        """The verifier's log (``atomic_log``): a storage buffer at binding 31 that each atomic
        appends (invocation, its sequence number, function, location, a, b, returned) to."""
        if not getattr(self, "atomic_log", False) or not atomic_functions(self.prog):
            return []
        return [f"layout(std430, binding = {ATOMIC_LOG_BINDING}) buffer XlateAtomicLog "
                "{ uint count; uint capacity; uvec4 entries[]; } xl_atomic_log;",
                "uint xl_atomic_seq = 0u;"]

    def atomic_log_function(self) -> list[str]:
        if not getattr(self, "atomic_log", False) or not atomic_functions(self.prog):
            return []
        inv = ("(gl_WorkGroupID.x + gl_NumWorkGroups.x * (gl_WorkGroupID.y + gl_NumWorkGroups.y"
               " * gl_WorkGroupID.z)) * (gl_WorkGroupSize.x * gl_WorkGroupSize.y * "
               "gl_WorkGroupSize.z) + gl_LocalInvocationIndex")
        return ["uint xl_log_atomic(uint f, uint loc, uint a, uint b, uint r)\n{\n"
                "    uint k = atomicAdd(xl_atomic_log.count, 1u);\n"
                "    if (k < xl_atomic_log.capacity)\n    {\n"
                f"        xl_atomic_log.entries[2u * k] = uvec4({inv}, xl_atomic_seq, f, loc);\n"
                "        xl_atomic_log.entries[2u * k + 1u] = uvec4(a, b, r, 0u);\n    }\n"
                "    xl_atomic_seq += 1u;\n    return r;\n}"]

    def memory_functions(self) -> list[str]:
        """The access functions of the resources the body uses (``used_memory``)."""
        out = self.atomic_log_function()
        for op, res in sorted(getattr(self, "used_atomics", ())):
            out.append(self.atomic_function(op, res))
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
            fences = [fn for bit, fn in _MEMBAR_FENCES if ins.mem.flags & bit]
            if self.vulkan:
                # GL_KHR_vulkan_glsl removes atomic counters and memoryBarrierAtomicCounter()
                # with them (glslang rejects it: found by verify --backend vulkan of random
                # TGSI compute seed 15); the translation's atomics are storage-buffer and image
                # atomics, which memoryBarrierBuffer() / memoryBarrierImage() order -- the
                # direct SPIR-V path's fence for the bit is the buffer one too
                fences = list(dict.fromkeys("memoryBarrierBuffer()" if f ==
                                            "memoryBarrierAtomicCounter()" else f
                                            for f in fences))
            return [f"{fn};" for fn in fences]
        if ins.op in ("IMGLOAD", "IMGSTORE"):
            return self.emit_image(ins)
        if ins.op == "RESQ":
            return self.emit_resq(ins)
        if ins.op in _NATIVE_ATOMICS or ins.op in _LOOP_RULES:
            return self.emit_atomic(ins)
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
