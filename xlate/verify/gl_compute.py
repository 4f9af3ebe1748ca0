"""The dispatch half of compute verification (:mod:`compute_verify` gives the verdict): the
inputs it generates (storage-buffer words, images' texels, small parameters), the GL dispatch
(:func:`run_gl_compute`; :func:`xlate.verify.vulkan_compute.run_vulkan_compute` on ``vulkan``)
behind the runners' ``run("compute", ...)`` (:func:`run_job`, :class:`ComputeJob`,
:class:`ComputeCapture`), and the order rule of atomics checked on what the implementation did
(:func:`check_atomics`).  :mod:`compute_verify`'s docstring says what is compared and how.
"""
from __future__ import annotations

import ctypes as C
from dataclasses import dataclass

import numpy as np

from ..ir.model import DataType, Program, storage_binding_of, storage_label
from . import glapi as G
from ..backends.glsl.memory import ATOMIC_LOG_BINDING
from .compare import Difference
from .gl_multisample import multisample_image
from ..exec.images import MULTISAMPLE_IMAGES

BUFFER_BYTES = 1024
GROUPS = (2, 2, 1)
#: input sets tried until one makes the program write (verify_compute)
SEEDS = 32
#: atomics the verifier's log holds (two uvec4 each)
ATOMIC_CAPACITY = 1 << 16


def small_parameters(gen, seed: int) -> None:
    """Replace the generated parameter words by small values -- offsets, bounds and counts a
    compute program takes from its constants then fall inside its resources and its grid
    (every other input set tried keeps the general generator's values).  A component the
    program reads only as an integer (``gen.param_types``) gets an integer 0..15, one it reads
    only as a float a float k/4 (1 <= k <= 32), one read both ways (or not known) either, at
    random.  (Each word either kind at random left every one of 16 input sets of Mesa's
    vl_compositor_cs-1..9 with no invocation inside its bounds, ``gid >= CONST[4].xy &&
    gid < CONST[4].zw``: a float's word read as a lower bound is about 10^9, and the programs
    were skipped as writing nothing.)"""
    rng = np.random.default_rng(seed * 31337 + 20)
    for key, v in list(gen.params.items()):
        a = np.asarray(v)
        ints = rng.integers(0, 16, a.shape).astype(np.uint32)
        floats = (rng.integers(1, 33, a.shape).astype(np.float32) / np.float32(4)).view(np.uint32)
        pick_int = rng.random(a.shape) < 0.5
        types = gen.param_types.get(key)
        if types is not None and len(types) == a.shape[-1]:
            for c, read_as in enumerate(types):
                if read_as and DataType.FLOAT not in read_as:
                    pick_int[..., c] = True
                elif read_as == {DataType.FLOAT}:
                    pick_int[..., c] = False
        gen.params[key] = np.where(pick_int, ints, floats).astype(np.uint32)


def generated_buffers(program: Program, seed: int) -> dict[int, np.ndarray]:
    """Initial words of every storage buffer (see the module docstring)."""
    rng = np.random.default_rng(seed * 7919 + 20)
    out = {}
    for r in sorted(program.resources.values(), key=lambda r: r.binding):
        if r.kind != "buffer":
            continue
        n = BUFFER_BYTES // 4
        ints = rng.integers(0, 64, n).astype(np.uint32)
        floats = (rng.integers(-32, 33, n).astype(np.float32) / np.float32(4)).view(np.uint32)
        out[r.binding] = np.where(rng.random(n) < 0.5, ints, floats).astype(np.uint32)
    return out


#: GL internal formats of the image formats (ir/image_formats.py names)
_GL_FORMATS = {
    "R8_UNORM": 0x8229, "R8G8_UNORM": 0x822B, "R8G8B8A8_UNORM": 0x8058, "R16_UNORM": 0x822A,
    "R16G16_UNORM": 0x822C, "R16G16B16A16_UNORM": 0x805B, "R8_SNORM": 0x8F94,
    "R8G8_SNORM": 0x8F95, "R8G8B8A8_SNORM": 0x8F97, "R16_SNORM": 0x8F98,
    "R16G16_SNORM": 0x8F99, "R16G16B16A16_SNORM": 0x8F9B, "R16_FLOAT": 0x822D,
    "R16G16_FLOAT": 0x822F, "R16G16B16A16_FLOAT": 0x881A, "R32_FLOAT": 0x822E,
    "R32G32_FLOAT": 0x8230, "R32G32B32A32_FLOAT": 0x8814, "R8_SINT": 0x8231,
    "R8_UINT": 0x8232, "R16_SINT": 0x8233, "R16_UINT": 0x8234, "R32_SINT": 0x8235,
    "R32_UINT": 0x8236, "R8G8_SINT": 0x8237, "R8G8_UINT": 0x8238, "R16G16_SINT": 0x8239,
    "R16G16_UINT": 0x823A, "R32G32_SINT": 0x823B, "R32G32_UINT": 0x823C,
    "R8G8B8A8_SINT": 0x8D8E, "R8G8B8A8_UINT": 0x8D7C, "R16G16B16A16_SINT": 0x8D88,
    "R16G16B16A16_UINT": 0x8D76, "R32G32B32A32_SINT": 0x8D82, "R32G32B32A32_UINT": 0x8D70}
_GL_TARGETS = {"1D": G.GL_TEXTURE_1D, "2D": G.GL_TEXTURE_2D, "RECT": G.GL_TEXTURE_RECTANGLE,
               "3D": G.GL_TEXTURE_3D, "CUBE": G.GL_TEXTURE_CUBE_MAP,
               "ARRAY1D": G.GL_TEXTURE_1D_ARRAY, "ARRAY2D": G.GL_TEXTURE_2D_ARRAY,
               "ARRAYCUBE": G.GL_TEXTURE_CUBE_MAP_ARRAY}


#: the texture unit images are created on (translated programs sample units 0..31 at most;
#: GL_MAX_COMBINED_TEXTURE_IMAGE_UNITS is at least 80)
_SPARE_UNIT = 79


def generated_images(program: Program, seed: int) -> dict[int, np.ndarray]:
    """Initial texels of every image: values its format holds exactly (module docstring)."""
    from ..exec.images import image_shape, new_image
    from ..ir.image_formats import image_format
    rng = np.random.default_rng(seed * 104729 + 20)
    out = {}
    for r in sorted(program.resources.values(), key=lambda r: r.binding):
        if r.kind != "image":
            continue
        shape = image_shape(r) + (4,)
        fmt = image_format(r.format)
        if fmt is not None and fmt.integer:
            words = rng.integers(0, 64, shape).astype(np.uint32)
        elif fmt is not None and fmt.kind in ("unorm", "snorm"):
            lo = 0 if fmt.kind == "unorm" else -255
            words = (rng.integers(lo, 256, shape).astype(np.float32) / np.float32(255)).view(
                np.uint32)
        else:
            words = (rng.integers(-32, 33, shape).astype(np.float32) / np.float32(4)).view(
                np.uint32)
        out[r.binding] = new_image(r, words)      # as the format holds them
    return out


def _gl_image(runner, r, texels: np.ndarray, unit: int):
    """Create, fill and bind image ``r`` at image unit ``unit``; returns the function that
    reads its texels back after the dispatch."""
    from ..ir.image_formats import image_format
    gl = runner.gl
    fmt = image_format(r.format)
    internal = _GL_FORMATS[fmt.name] if fmt is not None else G.GL_RGBA32F
    if r.target == "BUFFER":
        return _gl_buffer_image(runner, r, fmt, internal, texels, unit)
    if r.target in MULTISAMPLE_IMAGES:
        return multisample_image(runner, r, texels, _SPARE_UNIT, unit, internal)
    kind = fmt.integer if fmt is not None else None
    pformat = G.GL_RGBA_INTEGER if kind else G.GL_RGBA
    ptype = {"uint": G.GL_UNSIGNED_INT, "sint": G.GL_INT}.get(kind, G.GL_FLOAT)
    target = _GL_TARGETS[r.target]
    tex = gl.gen(gl.GenTextures)
    runner._objects.append(("texture", tex))
    # a texture unit no sampler uses: binding the image there leaves the samplers' textures
    # bound (an image of the same target on unit 0 would replace texture0)
    gl.ActiveTexture(G.GL_TEXTURE0 + _SPARE_UNIT)
    gl.BindTexture(target, tex)
    gl.TexParameteri(target, G.GL_TEXTURE_MAX_LEVEL, 0)
    layers, h, w = texels.shape[:3]
    data = np.ascontiguousarray(texels)
    ptr = data.ctypes.data_as(C.c_void_p)
    if r.target == "1D":
        gl.TexImage1D(target, 0, internal, w, 0, pformat, ptype, ptr)
    elif r.target in ("2D", "RECT"):
        gl.TexImage2D(target, 0, internal, w, h, 0, pformat, ptype, ptr)
    elif r.target == "ARRAY1D":
        gl.TexImage2D(target, 0, internal, w, layers, 0, pformat, ptype, ptr)
    elif r.target == "CUBE":
        for face in range(6):
            gl.TexImage2D(G.GL_TEXTURE_CUBE_MAP_POSITIVE_X + face, 0, internal, w, h, 0,
                          pformat, ptype, data[face].ctypes.data_as(C.c_void_p))
    else:
        gl.TexImage3D(target, 0, internal, w, h, layers, 0, pformat, ptype, ptr)
    gl.check(f"creating image {r.binding}")
    layered = 1 if r.target in ("3D", "CUBE", "ARRAY1D", "ARRAY2D", "ARRAYCUBE") else 0
    gl.BindImageTexture(unit, tex, 0, layered, 0, G.GL_READ_WRITE, internal)
    gl.check(f"binding image {r.binding}")
    return lambda: _read_image(runner, r, tex, target, pformat, ptype, texels.shape)


def _gl_buffer_image(runner, r, fmt, internal: int, texels: np.ndarray, unit: int):
    """A buffer image: a buffer texture (glTexBuffer) over a buffer object holding the texels
    in the format's bytes (image_bytes.pack_texels), exactly as many texels as the executor's
    image holds (imageSize counts them); read back from the buffer object."""
    from .image_bytes import pack_texels, unpack_texels
    gl = runner.gl
    data = pack_texels(fmt, texels)
    buf = runner._buffer(G.GL_TEXTURE_BUFFER, data)
    tex = gl.gen(gl.GenTextures)
    runner._objects.append(("texture", tex))
    gl.ActiveTexture(G.GL_TEXTURE0 + _SPARE_UNIT)
    gl.BindTexture(G.GL_TEXTURE_BUFFER, tex)
    # GL has no SNORM buffer textures (GL 4.6 table 8.16): the buffer is given the UNORM
    # format of the same size, and the image unit the program's format -- the unit's format
    # is how loads and stores read the bytes, and the two are compatible by size (8.26)
    texture_format = _GL_FORMATS[fmt.name.replace("_SNORM", "_UNORM")] if fmt is not None \
        else internal
    gl.TexBuffer(G.GL_TEXTURE_BUFFER, texture_format, buf)
    gl.check(f"creating buffer image {r.binding}")
    gl.BindImageTexture(unit, tex, 0, 0, 0, G.GL_READ_WRITE, internal)
    gl.check(f"binding buffer image {r.binding}")

    def read() -> np.ndarray:
        raw = runner._read_buffer(G.GL_TEXTURE_BUFFER, buf, len(data))
        return unpack_texels(fmt, raw, texels.shape)
    return read


def _read_image(runner, r, tex: int, target: int, pformat: int, ptype: int, shape) -> np.ndarray:
    gl = runner.gl
    gl.ActiveTexture(G.GL_TEXTURE0 + _SPARE_UNIT)
    gl.BindTexture(target, tex)
    out = np.zeros(shape, np.uint32)
    if r.target == "CUBE":
        for face in range(6):
            gl.GetTexImage(G.GL_TEXTURE_CUBE_MAP_POSITIVE_X + face, 0, pformat, ptype,
                           out[face].ctypes.data_as(C.c_void_p))
    else:
        gl.GetTexImage(target, 0, pformat, ptype, out.ctypes.data_as(C.c_void_p))
    gl.check(f"reading image {r.binding}")
    return out


def run_gl_compute(runner, glsl: str | bytes, reflection: dict, groups,
                   buffers: dict[int, np.ndarray],
                   uniforms, param_buffers, program: Program | None = None,
                   images: dict[int, np.ndarray] | None = None, textures=None,
                   atomic_capacity: int = 0):
    """Dispatch ``glsl`` (or a SPIR-V module, on a gl-spirv runner) on the GL runner's
    context: (storage buffers' words, images' texels) after it."""
    gl = runner.gl
    gl.use()
    try:
        prog = runner.program([(G.GL_COMPUTE_SHADER, glsl)])
        runner._objects.append(("program", prog))
        gl.UseProgram(prog)
        runner._set_uniforms(prog, uniforms)
        runner._set_buffers(param_buffers)
        if textures is not None:
            runner._textures(*textures)
        bound = {}
        for sb in reflection.get("storage_buffers", []):
            binding = storage_binding_of(sb["resource"])
            words = np.ascontiguousarray(buffers[binding], np.uint32)
            buf = runner._buffer(G.GL_SHADER_STORAGE_BUFFER, words.tobytes())
            gl.BindBufferBase(G.GL_SHADER_STORAGE_BUFFER, sb["binding"], buf)
            bound[binding] = (buf, words.nbytes)
        gl.check("binding the storage buffers")
        log = None
        if atomic_capacity:
            head = np.array([0, atomic_capacity, 0, 0], np.uint32)
            data = np.concatenate([head, np.zeros(8 * atomic_capacity, np.uint32)])
            log = runner._buffer(G.GL_SHADER_STORAGE_BUFFER, data.tobytes())
            gl.BindBufferBase(G.GL_SHADER_STORAGE_BUFFER, ATOMIC_LOG_BINDING, log)
            bound["log"] = (log, data.nbytes)
        readers = {}
        for r in (program.resources.values() if program is not None else ()):
            if r.kind == "image":
                readers[r.binding] = _gl_image(runner, r, images[r.binding], r.binding)
        gl.DispatchCompute(*groups)
        gl.MemoryBarrier(G.GL_ALL_BARRIER_BITS)
        gl.Finish()
        gl.check("dispatching the compute shader")
        words = {b: np.frombuffer(runner._read_buffer(G.GL_SHADER_STORAGE_BUFFER, buf, n),
                                  np.uint32).copy() for b, (buf, n) in bound.items()}
        if log is not None:
            raw = words.pop("log")
            count = int(raw[0])
            entries = raw[4:].reshape(-1, 8)[:min(count, atomic_capacity)]
            words["log"] = (count, entries)
        texels = {b: read() for b, read in readers.items()}
        return words, texels
    finally:
        runner._cleanup()


def _same(a: int, b: int) -> bool:
    if a == b:
        return True
    fa, fb = np.uint32(a).view(np.float32), np.uint32(b).view(np.float32)
    return bool(np.isnan(fa) and np.isnan(fb))


def check_atomics(program: Program, performed: list, entries: np.ndarray, local_count: int):
    """The rule of atomics whose order the spec leaves open (tgsi.rst: each is "performed
    strictly before or after" any other access to its word), checked on what the
    implementation did:

    1. the same atomics ran: invocation n's k-th atomic is the same operation on the same word
       with the same operands on both sides (the executor replays the run with each atomic
       returning the implementation's value, so later addresses and operands follow the same
       values);
    2. per word, SOME order of its atomics returns to every invocation exactly what the
       implementation returned (``exec.atomics.find_order``, starting from the word as the
       first atomic found it); if none does, it is a mismatch;
    3. the word that order leaves is what the final memory is compared with (buffers and
       images; shared memory ends with its workgroup).

    A float add may leave another NaN or a flushed denormal (:func:`float_add_words`): the
    order found then takes those words, and the count of such words is returned.

    A float add's NaN operand may be another NaN than the executor's (:func:`_other_nan_operand`):
    the implementation's is taken, and counted.

    Returns (differences, {(resource, location): final word}, (number of words checked, how
    many of them took a float add's freedom, how many float adds took the implementation's
    NaN operand))."""
    from ..backends.glsl.memory import atomic_functions
    from ..exec.atomics import find_order
    from ..exec.memory import NOWHERE
    functions = atomic_functions(program)
    impl = {(int(e[0]), int(e[1])): e for e in entries}
    nan_operands = 0
    diffs = []
    by_word: dict[tuple, list] = {}
    initial: dict[tuple, int] = {}
    for inv, seq, name, loc, op, a, b, ret, old in performed:
        e = impl.pop((inv, seq), None)
        mine = (op, name, loc, a, b)
        theirs = None if e is None else (functions[int(e[2])] + (int(e[3]), int(e[4]),
                                                                 int(e[5])))
        if theirs is not None and functions.index((op, name)) == int(e[2]):
            theirs = (op, name, int(e[3]), int(e[4]), int(e[5]) if op == "ATOMCAS" else 0)
            mine = (op, name, loc, a, b if op == "ATOMCAS" else 0)
            if theirs != mine and _other_nan_operand(op, a, theirs[3]):
                a = theirs[3]
                nan_operands += 1
                mine = (op, name, loc, a, b if op == "ATOMCAS" else 0)
        if theirs != mine:
            diffs.append(Difference(f"atomic {seq} of invocation {inv}", inv, None, None, None,
                                    kind="atomic", detail=f"executor {_atomic_text(mine)}, "
                                    f"implementation {_atomic_text(theirs)}"))
            continue
        if loc == NOWHERE:
            continue
        r = program.resources[name]
        key = (name, loc, inv // local_count if r.kind == "shared" else None)
        by_word.setdefault(key, []).append((op, a, b if op == "ATOMCAS" else 0, ret))
        initial.setdefault(key, old)
    for (inv, seq), e in sorted(impl.items()):
        diffs.append(Difference(f"atomic {seq} of invocation {inv}", inv, None, None, None,
                                kind="atomic", detail="the implementation ran it, the executor "
                                f"did not ({_atomic_text(functions[int(e[2])] + (int(e[3]),))})"))
    finals = {}
    freed_words = 0
    for key, ops in sorted(by_word.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[0][2] or 0)):
        name, loc, group = key
        try:
            found = find_order(initial[key], ops, stored=float_add_words)
        except RuntimeError as err:
            diffs.append(Difference(f"{name} word {loc}", loc, None, None, None, kind="atomic",
                                    detail=f"{len(ops)} atomics: {err}"))
            continue
        if found is None:
            where = f"{name} location {loc}" + (f" of workgroup {group}" if group is not None
                                                 else "")
            diffs.append(Difference(where, loc, None, None, None, kind="atomic",
                                    detail=f"no order of its {len(ops)} atomics returns what "
                                    "the implementation returned to each invocation"))
            continue
        freed_words += found[2] > 0
        if group is None:
            finals[(name, loc)] = found[1]
    return diffs, finals, (len(by_word), freed_words, nan_operands)


def _other_nan_operand(op: str, mine: int, theirs: int) -> bool:
    """Whether a float add's operand is the executor's NaN ``mine`` where the implementation
    added the NaN ``theirs`` -- the operation that made it chose among its NaN operands
    (quieted) and the default NaN, either sign (:mod:`.nan_choices`): ``LG2`` of a negative
    number is 0xFFC00000 to the executor (x86's default NaN), 0x7FC00000 to llvmpipe
    (generated TGSI compute seed 2505, inputs seed 2500: an ATOMFADD of it, then integer
    atomics on the same word, whose result follows the NaN's sign).  The implementation's
    operand then stands for the executor's: which order of the word's atomics returns what
    the implementation returned, and the word it leaves, follow from it."""
    from .nan_choices import DEFAULT_NAN, SIGN, _float_nan
    if op != "ATOMFADD" or not (_float_nan(mine) and _float_nan(theirs)):
        return False
    return theirs in {w ^ int(s) for w in (mine | 0x00400000, DEFAULT_NAN) for s in (0, SIGN)}


def float_add_words(name: str, old: int, a: int, b: int, ieee: int) -> tuple[int, ...]:
    """The words a float atomic add (ATOMFADD) may leave where the executor's IEEE sum leaves
    ``ieee`` (first); any other atomic leaves its rule's word alone.

    * A NaN sum: either NaN operand, quieted, or the default NaN, each with either sign --
      IEEE 754-2008 6.2.3 ("should" carry the payload of an input NaN) and 6.3 (a NaN's sign
      is not interpreted), GLSL 4.50 §4.7.1 (operations on NaN need not follow IEEE), the
      reading :mod:`.nan_choices` takes for ALU results.  Measured: llvmpipe's image
      ``ATOMFADD`` of a NaN to a NaN keeps the word's NaN, where the executor's numpy sum
      takes the operand's (generated TGSI compute seed 1402, inputs seed 1400).
    * A denormal operand or sum may be flushed to the zero of its sign (GLSL 4.50 §4.7.1;
      NV_gpu_program4 issue 18), as :func:`permits.rule_ftz` allows an ALU add."""
    if name != "ATOMFADD":
        return (ieee,)
    from ..exec.atomics import _fadd
    from .compare import flush
    from .nan_choices import DEFAULT_NAN, SIGN, _float_nan
    if _float_nan(ieee):
        nans = [w | 0x00400000 for w in (old, a) if _float_nan(w)] + [DEFAULT_NAN]
        return tuple(dict.fromkeys([ieee] + [w ^ int(s) for w in nans for s in (0, SIGN)]))
    words = [ieee]
    for o in dict.fromkeys((old, int(flush(old)))):
        for x in dict.fromkeys((a, int(flush(a)))):
            total = _fadd(o, x)
            words += [total, int(flush(total))]
    return tuple(dict.fromkeys(words))


def _atomic_text(t) -> str:
    if t is None:
        return "none"
    op, name, loc = t[:3]
    rest = f", operands {', '.join(str(v) for v in t[3:])}" if len(t) > 3 else ""
    return f"{op} on {name} location {loc}{rest}"


def _ulps(a: int, b: int) -> int:
    """Distance in units in the last place of two finite floats of the same sign."""
    if (a ^ b) & 0x80000000:
        return 1 << 31
    return abs(a - b)


@dataclass
class ComputeCapture:
    """What a dispatch left: ``buffers`` binding -> words, ``images`` unit -> texels, ``log``:
    (count, entries) of the atomic log or None.  Read like a draw's capture where a caller
    only compares captures (the mutation harness): ``outputs`` are the buffers and images by
    resource name, nothing is killed, no primitive is emitted."""

    buffers: dict
    images: dict
    log: tuple | None = None
    killed = None
    primitives = None

    @property
    def outputs(self) -> dict:
        out = {storage_label(b): w for b, w in self.buffers.items()}
        out.update({f"IMAGE[{u}]": t for u, t in self.images.items()})
        return out


@dataclass
class ComputeJob:
    """What a runner's ``run("compute", ...)`` dispatches besides the shader: the grid, the
    storage buffers' words by binding, the images' texels by unit, the program (its
    resources) and the atomic log's capacity (0: none)."""

    groups: tuple
    buffers: dict
    images: dict
    program: Program
    capacity: int = 0


def run_job(runner, shader, reflection: dict, job: ComputeJob, uniforms, param_buffers,
            textures, shadow) -> ComputeCapture:
    """The dispatch behind ``Runner.run("compute", ...)`` of the gl and vulkan runners: the
    storage buffers and images of ``job``, the parameters, the textures."""
    tex = (textures or {}, shadow or set())
    if getattr(runner, "backend", "gl") == "vulkan":
        from .vulkan_compute import run_vulkan_compute
        got, texels = run_vulkan_compute(runner, shader, reflection, job.groups, job.buffers,
                                         param_buffers, job.program, job.images, tex,
                                         job.capacity)
    else:
        got, texels = run_gl_compute(runner, shader, reflection, job.groups, job.buffers,
                                     uniforms, param_buffers, job.program, job.images, tex,
                                     job.capacity)
    log = got.pop("log", None)
    return ComputeCapture(got, texels, log)


__all__ = ["ComputeCapture", "ComputeJob", "check_atomics", "generated_buffers",
           "generated_images", "run_gl_compute", "run_job"]
