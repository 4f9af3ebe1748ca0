"""TGSI lowering of compute programs and memory: the COMP processor's properties and system
values, the BUFFER and MEMORY (SHARED) declarations, LOAD/STORE on them, BARRIER and MEMBAR.

Readings chosen (tgsi.rst, "Resource Access Opcodes", "Inter-thread synchronization opcodes",
CS_FIXED_BLOCK_*; each has a test in tests/test_tgsi_compute.py):

* Addresses are byte offsets (``address.x``; y, z, w are ignored for buffers): component c of a
  LOAD's destination (of a STORE's source) is the 32-bit word at ``address.x + 4c``, as
  tgsi_exec and every Mesa driver read them.  Only the written components (LOAD: the
  destination's write mask; STORE: the resource's write mask ``BUFFER[0].xy``) are accessed.
  A resource swizzle (``LOAD TEMP[0], BUFFER[0].yxzw, ...``) selects among those words.
* ``PROPERTY CS_FIXED_BLOCK_WIDTH/HEIGHT/DEPTH`` give the workgroup size.  tgsi.rst: "If it is
  unknown they should all be set to 0 or not set" -- a program whose block size is only known
  at dispatch (ARB_compute_variable_group_size) has no GLSL ``local_size`` to declare and is
  refused (E7001) rather than given a guessed size; all three must then be at least 1 (and
  within GL's guaranteed 1024 x 1024 x 64, 1024 invocations).
* ``SV THREAD_ID``, ``BLOCK_ID``, ``GRID_SIZE``, ``BLOCK_SIZE`` are unsigned (x, y, z) with
  w = 0 (GLSL's uvec3 built-ins; tgsi.rst leaves w unsaid).  The bindings are
  ``invocation.localid``, ``invocation.groupid``, ``invocation.numgroups``,
  ``invocation.groupsize``.
* ``DCL MEMORY[n], SHARED`` has no size in TGSI (Mesa passes it beside the shader, in
  ``pipe_compute_state.static_shared_mem``): xlate gives the program's shared memories
  together 32768 bytes, GL_MAX_COMPUTE_SHARED_MEMORY_SIZE's guaranteed minimum, split evenly
  (16-byte multiples).  GLOBAL, PRIVATE and INPUT memory (OpenCL's) are refused (E7001).
* ``DCL HWATOMIC[b][i]`` / ``[b][i..j], ARRAY(n)`` ("Hardware Atomic Register File": counter i
  of atomic buffer b, 4 bytes each) become the storage buffer ``HWATOMIC<b>`` (binding
  ``COUNTER_BINDING_BASE + b``; Vulkan has no atomic counters, and a storage buffer's atomics
  express every ATOM* on a counter, so every profile uses it; the reflection names it as the
  program's atomic counter buffer b).  ``ATOM* dst, HWATOMIC[b][i], offset, src`` and ``LOAD
  dst, HWATOMIC[b][i], offset`` act on word i (``HWATOMIC[b][ADDR[0].x+i]``: word ADDR + i).
  The offset operand is not read: tgsi.rst calls it "an immediate index to the base hw atomic
  counter", which Mesa's nir_to_tgsi (ntt_emit_mem, ``nir_var_uniform``) fills with the
  counter's byte offset that the register index already holds (``offset / 4``, or the
  indirect ``USHR offset, 2``), and r600 (find_hw_atomic_counter) reads the register only.
  STORE to a counter and RESQ of one are refused (tgsi.rst gives atomics and nir_to_tgsi
  LOAD only).
* ``BARRIER`` is a compute opcode (tgsi.rst: "For now they're only valid in compute
  programs"; E3004 elsewhere).  ``MEMBAR`` takes an immediate bitfield; any stage.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from . import model as M
from ...ir.image_formats import image_format
from ...ir.model import COUNTER_BINDING_BASE, Dest, MemRef, Resource, Source, Stage
from ...ir.model import Instruction as IRInstruction
from .lower_common import _OLD_RES, U, _Reject

if TYPE_CHECKING:
    from .lower import Lowerer

#: GL_MAX_COMPUTE_SHARED_MEMORY_SIZE's guaranteed minimum (GL 4.6 table 23.75)
SHARED_MEMORY_BYTES = 32768
#: GL_MAX_COMPUTE_WORK_GROUP_SIZE / _INVOCATIONS guaranteed minimums (GL 4.6 table 23.75)
MAX_LOCAL_SIZE = (1024, 1024, 64)
MAX_LOCAL_INVOCATIONS = 1024

#: compute system values (tgsi.rst TGSI_SEMANTIC_*) -> binding paths
COMPUTE_SYSTEM_VALUES = {"THREAD_ID": "invocation.localid", "BLOCK_ID": "invocation.groupid",
                         "GRID_SIZE": "invocation.numgroups", "BLOCK_SIZE": "invocation.groupsize"}
_BLOCK_PROPS = ("CS_FIXED_BLOCK_WIDTH", "CS_FIXED_BLOCK_HEIGHT", "CS_FIXED_BLOCK_DEPTH")


def block_size(lw: Lowerer, props: dict) -> tuple[int, int, int] | None:
    """The workgroup size of a COMP program from its CS_FIXED_BLOCK_* properties (E7001 when
    unknown or out of GL's range)."""
    sh = lw.sh
    if any(d.file == "RES" for d in sh.declarations) or (
            sh.instructions and sh.instructions[0].opcode == "BGNSUB"):
        # the 2012-era compute syntax (RES files, subroutine kernels) had its block size given
        # at launch; its own diagnostics name the era (lower.py, lower_registers.py)
        return None
    found = [props.get(n) for n in _BLOCK_PROPS]
    values = []
    for name, p in zip(_BLOCK_PROPS, found):
        if p is None:
            values.append(0)
            continue
        try:
            values.append(int(p.value, 0))
        except ValueError:
            lw.err("E7001", f"PROPERTY {name} {p.value} is not a number", p)
            return None
    where = next((p for p in found if p is not None), None)
    if not any(values):
        lw.err("E7001", "a compute shader whose block size is not fixed (PROPERTY "
               "CS_FIXED_BLOCK_WIDTH/HEIGHT/DEPTH missing or 0: the size is given at dispatch, "
               "ARB_compute_variable_group_size) has no GLSL local_size to declare; add the "
               "three properties", where)
        return None
    if not all(values):
        missing = [n for n, v in zip(_BLOCK_PROPS, values) if not v]
        lw.err("E7001", f"{', '.join(missing)} missing or 0 while the block size is fixed: "
               "tgsi.rst wants all three at least 1", where)
        return None
    if any(v > m for v, m in zip(values, MAX_LOCAL_SIZE)) or \
            values[0] * values[1] * values[2] > MAX_LOCAL_INVOCATIONS:
        lw.err("E7001", f"block size {values[0]} x {values[1]} x {values[2]} is beyond what GL "
               f"guarantees ({MAX_LOCAL_SIZE[0]} x {MAX_LOCAL_SIZE[1]} x {MAX_LOCAL_SIZE[2]}, "
               f"{MAX_LOCAL_INVOCATIONS} invocations)", where)
        return None
    return values[0], values[1], values[2]


def declare_memory(lw: Lowerer) -> dict[str, Resource]:
    """Program.resources from the BUFFER and MEMORY declarations."""
    out: dict[str, Resource] = {}
    shared = []
    for d in lw.sh.declarations:
        if d.file == "BUFFER":
            for i in range(d.first, d.last + 1):
                out[f"BUFFER{i}"] = Resource(f"BUFFER{i}", "buffer", i, span=d.span)
        elif d.file == "IMAGE":
            res = _declare_image(lw, d)
            if res is not None:
                for i in range(d.first, d.last + 1):
                    out[f"IMAGE{i}"] = Resource(f"IMAGE{i}", "image", i, span=d.span,
                                                target=res[0], format=res[1])
        elif d.file == "HWATOMIC":
            b = d.dim or 0
            at = COUNTER_BINDING_BASE + b
            if any(x.file == "BUFFER" and x.first <= at <= x.last for x in lw.sh.declarations):
                lw.err("E7001", f"DCL HWATOMIC[{b}][...] is the storage buffer at binding {at}, "
                       f"which BUFFER[{at}] takes too", d)
                continue
            out[f"HWATOMIC{b}"] = Resource(f"HWATOMIC{b}", "buffer", COUNTER_BINDING_BASE + b,
                                           span=d.span)
        elif d.file == "MEMORY":
            kind = (d.memory_type or "GLOBAL").upper()
            if kind != "SHARED":
                lw.err("E7001", f"DCL MEMORY[{d.first}], {kind}: {kind.lower()} memory is "
                       "OpenCL's (clover); GLSL has shared memory only (MEMORY ..., SHARED)", d)
                continue
            if lw.stage != Stage.COMPUTE:
                lw.err("E3004", f"DCL MEMORY[{d.first}], SHARED: shared memory belongs to "
                       "compute shaders", d)
                continue
            shared += [(i, d) for i in range(d.first, d.last + 1)]
    if shared:
        each = SHARED_MEMORY_BYTES // len(shared) // 16 * 16
        for i, d in shared:
            out[f"MEMORY{i}"] = Resource(f"MEMORY{i}", "shared", i, each, span=d.span)
    return out


#: image targets (TGSI spelling -> IR), and the coordinates each takes (tgsi.rst LOAD: "For 1D
#: or 2D texture arrays, the array index is provided ... in address.y or address.z"; a cube's
#: face, a cube array's layer * 6 + face, in z).  A multisample image's sample index is in
#: address.w: tgsi.rst says only "address.w is always ignored", which predates multisample
#: images; Mesa's tgsi_to_nir (ttn_mem: "Set the sample argument ..." -- for
#: GLSL_SAMPLER_DIM_MS images the sample is ``ttn_channel(b, src[addr_src_index], W)``) and
#: glsl_to_tgsi, which wrote these programs, put it there; xlate reads it there (the
#: coordinates counted here do not include it)
IMAGE_TARGETS = {"BUFFER": ("BUFFER", 1), "1D": ("1D", 1), "2D": ("2D", 2), "3D": ("3D", 3),
                 "CUBE": ("CUBE", 3), "1D_ARRAY": ("ARRAY1D", 2), "2D_ARRAY": ("ARRAY2D", 3),
                 "CUBEARRAY": ("ARRAYCUBE", 3), "RECT": ("RECT", 2),
                 "2D_MSAA": ("2DMS", 2), "2D_ARRAY_MSAA": ("ARRAY2DMS", 3)}


def _declare_image(lw: Lowerer, d: M.Declaration) -> tuple[str, str | None] | None:
    t = IMAGE_TARGETS.get((d.target or "").upper())
    if t is None:
        lw.err("E7001", f"DCL IMAGE[{d.first}], {d.target}: not an image target (BUFFER, 1D, "
               "2D, 3D, CUBE, RECT, 1D_ARRAY, 2D_ARRAY, CUBEARRAY, 2D_MSAA, 2D_ARRAY_MSAA)", d)
        return None
    fmt = None
    if d.format is not None:
        f = image_format(d.format)
        if f is None:
            lw.err("E7001", f"DCL IMAGE[{d.first}], {d.format}: no GLSL image layout "
                   "qualifier names this format (R, RG or RGBA of 8/16/32-bit FLOAT, UNORM, "
                   "SNORM, UINT, SINT are translated)", d)
            return None
        fmt = f.name
    return t[0], fmt


def coord_count(target: str) -> int:
    return next(n for t, n in IMAGE_TARGETS.values() if t == target)


def _resource(lw: Lowerer, ref: M.RegRef, op: str) -> str:
    if ref.file == "RES":
        if any(d.file == "RES" for d in lw.sh.declarations):
            raise _Reject           # the 2012-era resource: reported at its declaration
        lw.reject("E7001", _OLD_RES)
    if ref.file == "HWATOMIC":
        lw.reject("E3004", f"{op} on an atomic counter (HWATOMIC): tgsi.rst gives counters "
                  "the atomic opcodes, and Mesa LOAD (a counter read), only")
    if ref.file == "CONSTBUF":
        lw.reject("E3008", f"unsupported opcode {op} (not yet supported: on CONSTBUF, a "
                  "constant buffer read by byte address -- nir_to_tgsi's LOAD for "
                  "PIPE_CAP_LOAD_CONSTBUF -- not CONST[n][i]'s vec4 slots)")
    if ref.file not in ("BUFFER", "MEMORY", "IMAGE"):
        lw.reject("E3008", f"unsupported opcode {op} (not yet supported: on {ref.file})")
    if ref.indirect is not None or ref.dim is not None:
        lw.reject("E7001", f"{op} on {ref.file}[...] with an indirect index is not supported")
    name = f"{ref.file}{ref.index}"
    if name not in lw.resources:
        if (ref.file, None, ref.index) in lw.decl_of:
            raise _Reject           # declared, and its declaration refused (reported there)
        lw.reject("E2003", f"{ref.file}[{ref.index}] is not declared")
    return name


def _counter(lw: Lowerer, ref: M.RegRef, op: str) -> tuple[str, Source]:
    """The storage buffer and the byte address of atomic counter ``HWATOMIC[b][i]`` (the
    module docstring)."""
    b = ref.dim or 0
    if ref.dim_indirect is not None:
        lw.reject("E7001", f"{op} on HWATOMIC[ADDR...][...]: the atomic buffer is chosen by "
                  "an immediate (tgsi.rst)")
    name = f"HWATOMIC{b}"
    if ref.indirect is None:
        return name, Source(lw.const((4 * ref.index,) * 4))
    ind = ref.indirect
    index = lw.src(M.Src(M.RegRef(ind.file, ind.index), (ind.comp,) * 4), integer=True)
    tmp = lw.scratch("ctr")
    lw.emit(IRInstruction("MAD", U, _dest(tmp, (True,) * 4),
                          (index, Source(lw.const((4,) * 4)),
                           Source(lw.const((4 * ref.index,) * 4)))))
    return name, Source(tmp)


def _address(lw: Lowerer, s: M.Src) -> Source:
    return lw.src(s, integer=True)


def _image_check(lw: Lowerer, t: M.Instruction, name: str) -> None:
    """The target and format an image instruction names agree with the declaration (Mesa's
    text repeats them on each instruction); a read needs the format."""
    r = lw.resources[name]
    words = [w.upper() for w in t.memory]
    targets = [w for w in words if w in IMAGE_TARGETS]
    if targets and IMAGE_TARGETS.get(targets[0], (None,))[0] != r.target:
        lw.reject("E5002", f"{t.opcode} names target {targets[0]}, IMAGE[{r.binding}] is "
                  f"declared {_tgsi_target(r.target)}")
    formats = [w for w in words if w.startswith("PIPE_FORMAT_")]
    if formats and r.format is not None and formats[0][len("PIPE_FORMAT_"):] != r.format:
        lw.reject("E3004", f"{t.opcode} names format {formats[0]}, IMAGE[{r.binding}] is "
                  f"declared PIPE_FORMAT_{r.format}")
    if t.opcode == "LOAD" and r.format is None:
        lw.reject("E7001", f"LOAD from IMAGE[{r.binding}], declared without a format: a read "
                  "needs the texel format (GLSL's layout qualifier; formatted loads of an "
                  "unknown format are GL_EXT_shader_image_load_formatted)")


def _tgsi_target(target: str) -> str:
    return next(k for k, (t, _) in IMAGE_TARGETS.items() if t == target)


def _load(lw: Lowerer, t: M.Instruction):
    res = t.srcs[0]
    if res.reg.file == "HWATOMIC":
        # a counter read: its word in every written component (a counter is one word; the
        # resource swizzle selects among copies of it)
        name, addr = _counter(lw, res.reg, "LOAD")
        dest = lw.dst(t.dsts[0])
        tmp = lw.scratch("ld")
        lw.emit(IRInstruction("LOAD", U, _dest(tmp, (True, False, False, False)), (addr,),
                              mem=MemRef(name)))
        lw.emit(IRInstruction("MOV", U, dest, (Source(tmp, swizzle=(0, 0, 0, 0)),)))
        return
    name = _resource(lw, res.reg, "LOAD")
    if res.reg.file == "IMAGE":
        _image_check(lw, t, name)
    if res.neg or res.abs or res.abs_neg or any(res.comp_neg):
        lw.reject("E3004", "LOAD: the resource operand takes no modifiers")
    addr = _address(lw, t.srcs[1])
    dest = lw.dst(t.dsts[0])
    swz = tuple(res.swizzle)
    op = "IMGLOAD" if res.reg.file == "IMAGE" else "LOAD"
    if swz == (0, 1, 2, 3):
        lw.emit(IRInstruction(op, U, dest, (addr,), mem=MemRef(name)))
        return
    # a resource swizzle: the words the written components select, then a swizzled copy
    words = tuple(any(dest.mask[c] and swz[c] == w for c in range(4)) for w in range(4))
    tmp = lw.scratch("ld")
    lw.emit(IRInstruction(op, U, _dest(tmp, words), (addr,), mem=MemRef(name)))
    lw.emit(IRInstruction("MOV", U, dest, (Source(tmp, swizzle=swz),)))


def _dest(reg: str, mask) -> Dest:
    return Dest(reg, None, tuple(mask))


def _store(lw: Lowerer, t: M.Instruction):
    d = t.dsts[0]
    name = _resource(lw, d.reg, "STORE")
    if d.cond is not None or t.saturate:
        lw.reject("E3004", "STORE takes no condition or saturation")
    addr = _address(lw, t.srcs[0])
    value = lw.src(t.srcs[1])
    if d.reg.file == "IMAGE":
        # a texel is written whole: imageStore has no write mask (tgsi_exec too stores all
        # four channels); a partial mask is refused rather than dropped
        _image_check(lw, t, name)
        fmt = image_format(lw.resources[name].format)
        channels = fmt.channels if fmt is not None else 4
        if not all(d.mask[:channels]):
            lw.reject("E7001", f"STORE to IMAGE[{d.reg.index}] with the write mask "
                      f".{''.join(c for c, on in zip('xyzw', d.mask) if on)}: an image texel is "
                      "written whole (imageStore has no mask): the mask must cover the "
                      "format's channels")
        lw.emit(IRInstruction("IMGSTORE", U, None, (addr, value), mem=MemRef(name)))
        return
    lw.emit(IRInstruction("STORE", U, None, (addr, value), mem=MemRef(name, tuple(d.mask))))


def _resq(lw: Lowerer, t: M.Instruction):
    res = t.srcs[0]
    name = _resource(lw, res.reg, "RESQ")
    if lw.resources[name].kind == "shared":
        lw.reject("E3004", "RESQ of shared memory: tgsi.rst defines it for buffers and images")
    dest = lw.dst(t.dsts[0])
    lw.emit(IRInstruction("RESQ", U, dest, (), mem=MemRef(name)))


def _barrier(lw: Lowerer, t: M.Instruction):
    if lw.stage != Stage.COMPUTE:
        lw.reject("E3004", "BARRIER synchronises the invocations of a compute workgroup: "
                  f"tgsi.rst allows it in compute programs only, not in {lw.sh.processor}")
    lw.emit(IRInstruction("BARRIER"))


def _membar(lw: Lowerer, t: M.Instruction):
    s = t.srcs[0]
    if s.reg.file != "IMM" or s.reg.indirect is not None:
        lw.reject("E3004", "MEMBAR takes an immediate bitfield (tgsi.rst)")
    words = lw.imm_words(s.reg.index)
    flags = words[s.swizzle[0]] if s.swizzle[0] < 4 else 0
    if flags & ~0x1F:
        lw.reject("E3004", f"MEMBAR {flags:#x}: tgsi.rst defines bits 0-4 only")
    lw.emit(IRInstruction("MEMBAR", mem=MemRef("", flags=flags)))


#: TGSI atomics -> IR opcodes (their rules: exec/atomics.py)
ATOMICS = {"ATOMUADD": "ATOMADD", "ATOMFADD": "ATOMFADD", "ATOMXCHG": "ATOMXCHG",
           "ATOMCAS": "ATOMCAS", "ATOMAND": "ATOMAND", "ATOMOR": "ATOMOR", "ATOMXOR": "ATOMXOR",
           "ATOMUMIN": "ATOMUMIN", "ATOMUMAX": "ATOMUMAX", "ATOMIMIN": "ATOMIMIN",
           "ATOMIMAX": "ATOMIMAX", "ATOMINC_WRAP": "ATOMINCWRAP", "ATOMDEC_WRAP": "ATOMDECWRAP"}


def _atomic(irop: str):
    def fn(lw: Lowerer, t: M.Instruction):
        res = t.srcs[0]
        if res.reg.file == "HWATOMIC":
            name, addr = _counter(lw, res.reg, t.opcode)
            operands = tuple(lw.src(s, integer=irop != "ATOMFADD") for s in t.srcs[2:])
            lw.emit(IRInstruction(irop, U, lw.dst(t.dsts[0]), (addr,) + operands,
                                  mem=MemRef(name)))
            return
        name = _resource(lw, res.reg, t.opcode)
        r = lw.resources[name]
        if r.kind == "image":
            _image_check(lw, t, name)
            if r.format not in ("R32_UINT", "R32_SINT"):
                lw.reject("E3004", f"{t.opcode} on IMAGE[{r.binding}] of format "
                          f"{r.format or '(none)'}: tgsi.rst allows atomics on 32-bit integer "
                          "image formats only (R32_UINT, R32_SINT)")
        addr = _address(lw, t.srcs[1])
        operands = tuple(lw.src(s, integer=irop != "ATOMFADD") for s in t.srcs[2:])
        lw.emit(IRInstruction(irop, U, lw.dst(t.dsts[0]), (addr,) + operands,
                              mem=MemRef(name)))
    return fn


MEMORY_OPS = {"LOAD": _load, "STORE": _store, "RESQ": _resq, "BARRIER": _barrier,
              "MEMBAR": _membar,
              **{tgsi: _atomic(ir) for tgsi, ir in ATOMICS.items()}}
