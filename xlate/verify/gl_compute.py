"""Verification of compute programs on OpenGL (Mesa llvmpipe) and Vulkan (lavapipe): the
translated compute shader is dispatched over a small grid with its storage buffers filled from
generated words, the buffers are read back and compared word by word with the executor's
dispatch of the original program (``xlate.exec.compute``) on the same words, parameters and grid.
:func:`verify_compute` chooses the inputs and gives the verdict for every backend; the dispatch
is :func:`run_gl_compute` on the GL backends and :func:`xlate.verify.vulkan_compute.
run_vulkan_compute` on ``vulkan`` (the vulkan profile's translation).

What is compared and how:

* Every word of every storage buffer after the dispatch, bit for bit (two NaNs of any payload
  are the same value).  Shared memory is private to a workgroup and is seen only through what
  the program stores.  A difference is then judged like any other stage's: the verifier's
  verdict tail (``core._explain``, through :class:`compute_replay.ComputeHarness`) probes the
  implementation's value of every instruction per invocation (stored into a harness buffer)
  and replays the executor, adopting the implementation's value only where a rule of
  :mod:`permits` shows the difference permitted (an approximate EX2/LG2/POW within its bound,
  a zero of the other sign, an operation on a NaN ...); the program passes only when the
  replayed executor reproduces every word and texel, else it is a mismatch localized at the
  first unexplained instruction (invocation, operands, both results).
* Inputs: each buffer holds ``BUFFER_BYTES`` bytes of generated words, each either a small
  integer (0..63: valid byte offsets and counts) or a float k/4 with |k| <= 32; parameters
  (CONST) are what ``xlate verify`` generates for any stage.
* The grid is ``GROUPS`` workgroups (2 x 2 x 1 by default): enough for two groups to share a
  buffer and each to have its own shared memory.
* The executor's order (exec/memory.py) is one order the implementation may take.  Plain
  stores of several invocations to one word without a BARRIER between them (or from two
  workgroups), and a load of a word another invocation stores unsynchronised, race: the
  program leaves the result open.  The executor finds the first race (exec/races.py,
  ``ComputeResult.race``) and such a program is reported ``unsupported`` with it, not
  compared.  Atomics do not race each other: their order is checked apart
  (:func:`check_atomics`).
* A BARRIER that only part of a workgroup reaches is undefined (exec/memory.py): the program is
  reported ``unsupported`` with the executor's reason.
* Images: every texel of every image after the dispatch, exactly, read back as the shader
  reads them (the executor's texel words, exec/images.py).  Each image has the executor's
  default size (images.py ``DEFAULT_SHAPE``) and starts with generated texels (small integers
  for integer formats, k/4 floats for float ones, k/255-style values for normalized ones: the
  words the format holds, so the upload is exact).  An image declared without a format is an
  RGBA32F image.  Buffer images are not run here yet (``unsupported``).  Channels of UNORM and
  SNORM images are compared to 1 ulp (GL does not bound the rounding of c / (2^b - 1));
  a value LOADed from such an image and carried into other results is compared exactly
  (such a program can show a 1-ulp mismatch that is llvmpipe's conversion).
* Textures: those ``xlate verify`` generates for any stage, sampled by the executor as llvmpipe
  samples (``sampling="llvmpipe"``); a filtered lookup llvmpipe rounds otherwise is judged by
  the replay's texture rules, as in the other stages.
"""
from __future__ import annotations

import ctypes as C

import numpy as np

from ..exec.bind import ExecError
from ..ir.model import Program
from . import glapi as G
from ..backends.glsl.memory import ATOMIC_LOG_BINDING, atomic_functions
from .compare import Difference

BUFFER_BYTES = 1024
GROUPS = (2, 2, 1)
#: input sets tried until one makes the program write (verify_compute)
SEEDS = 16
#: atomics the verifier's log holds (two uvec4 each)
ATOMIC_CAPACITY = 1 << 16


def small_parameters(gen, seed: int) -> None:
    """Replace the generated parameter words by small values: each an integer 0..15 or a
    float k/4 (1 <= k <= 32), at random -- offsets, bounds and counts a compute program takes
    from its constants then fall inside its resources (every other input set tried keeps the
    general generator's values)."""
    rng = np.random.default_rng(seed * 31337 + 20)
    for key, v in list(gen.params.items()):
        a = np.asarray(v)
        ints = rng.integers(0, 16, a.shape).astype(np.uint32)
        floats = (rng.integers(1, 33, a.shape).astype(np.float32) / np.float32(4)).view(np.uint32)
        gen.params[key] = np.where(rng.random(a.shape) < 0.5, ints, floats).astype(np.uint32)


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


def _gl_image(runner, r, texels: np.ndarray, unit: int) -> tuple[int, int, int, int]:
    """Create, fill and bind image ``r``; (texture, GL target, upload format, upload type)."""
    from ..ir.image_formats import image_format
    gl = runner.gl
    fmt = image_format(r.format)
    internal = _GL_FORMATS[fmt.name] if fmt is not None else G.GL_RGBA32F
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
    return tex, target, pformat, ptype


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
            binding = int(sb["resource"][len("BUFFER["):-1])
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
        textures = {}
        for r in (program.resources.values() if program is not None else ()):
            if r.kind == "image":
                textures[r.binding] = (r,) + _gl_image(runner, r, images[r.binding], r.binding)
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
        texels = {b: _read_image(runner, r, tex, target, pf, pt, images[b].shape)
                  for b, (r, tex, target, pf, pt) in textures.items()}
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

    Returns (differences, {(resource, location): final word}, number of words checked)."""
    from ..backends.glsl.memory import atomic_functions
    from ..exec.atomics import find_order
    from ..exec.memory import NOWHERE
    functions = atomic_functions(program)
    impl = {(int(e[0]), int(e[1])): e for e in entries}
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
    for key, ops in sorted(by_word.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[0][2] or 0)):
        name, loc, group = key
        try:
            found = find_order(initial[key], ops)
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
        if group is None:
            finals[(name, loc)] = found[1]
    return diffs, finals, len(by_word)


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


def verify_compute(program: Program, rep, *, seed: int, runner, gl_interface,
                   max_reported: int = 50, groups=GROUPS, via: str = "auto",
                   localize: bool = True) -> None:
    """Fill ``rep`` (:class:`core.ProgramReport`) with the verdict for a compute program.
    ``gl_interface``: :func:`core.gl_interface` (passed in: core calls this module).  ``via``
    (backends ``gl-spirv`` and ``vulkan``): as :func:`core.verify_source`'s -- which SPIR-V
    runs: ``auto`` the direct path's where it covers the program, ``direct`` only it,
    ``glsl`` glslang's.  Differences go to the verifier's verdict tail (``core._explain``
    through :class:`compute_replay.ComputeHarness`): localized, and explained only where a
    rule of :mod:`permits` shows them permitted."""
    from ..diagnostics import XlateError
    from ..exec.compute import execute_compute
    from .analysis import analyse
    from .compute_replay import ComputeDispatch, ComputeHarness, compare_dispatch, translate
    from .inputs import generate
    from . import compare as cmp
    from . import core
    rep.lanes = lanes = int(np.prod(program.local_size)) * int(np.prod(groups))
    facts = analyse(program, set(cmp.INEXACT))
    backend = getattr(runner, "backend", "gl")
    # the GL backends run the glsl450 translation (whatever profile a GL runner's draws
    # adapt: compute needs GLSL 4.30), vulkan the vulkan profile's
    profile = "vulkan" if backend == "vulkan" else "glsl450"
    try:
        # the translation plus, with atomics, the verifier's log of what each atomic returned
        tr = translate(program, profile)
    except XlateError as e:
        rep.status, rep.reason = "error", "the program does not translate"
        rep.diagnostics = list(e.diagnostics)
        return
    if any(r.kind == "image" and r.target == "BUFFER" for r in program.resources.values()):
        rep.status, rep.reason = "unsupported", "buffer images are not verified yet"
        return
    # inputs under which the program writes something: generated parameters often put every
    # access out of bounds (a random CONST offset), which would compare nothing but the
    # inputs; up to SEEDS input sets are tried (every other one with small parameters,
    # small_parameters), the first that changes memory is compared
    chosen = None
    for k in range(SEEDS):
        s = seed + 1000 * k
        gen = generate(program, facts, 1, s)
        if k % 2:
            small_parameters(gen, s)
        if facts.uses_textures:
            # the textures xlate verify makes for every stage; the executor samples as
            # llvmpipe does (texture.prepare "llvmpipe"), as the main verifier runs it
            from .textures import generate_textures, shadow_units
            gen.textures = generate_textures(program, s)
            gen.shadow = shadow_units(program)
        buffers = generated_buffers(program, s)
        images = generated_images(program, s)
        exec_kw = dict(params=gen.exec_params(program), textures=gen.textures or None,
                       **({"sampling": "llvmpipe"} if gen.textures else {}))
        try:
            res = execute_compute(program, groups, buffers=buffers, images=images, **exec_kw)
        except ExecError as e:
            rep.status, rep.reason = "unsupported", \
                f"the executor finds the program undefined: {e}"
            return
        if res.steps_exceeded.any():
            continue
        if any((res.buffers[b] != buffers[b]).any() for b in buffers) or \
                any((res.images[u] != images[u]).any() for u in images):
            chosen = s
            break
    if chosen is not None and res.race is not None:
        # tgsi.rst orders the memory accesses of different invocations only through BARRIER
        # (exec/races.py): the executor's order is one of several the program allows
        rep.status, rep.reason = "unsupported", f"data race: {res.race} -- the result " \
            "depends on an order of the invocations the program leaves open (exec/races.py); " \
            "not compared"
        return
    if chosen is not None and res.uninitialized_shared:
        rep.status, rep.reason = "unsupported", "the program reads shared memory its " \
            "workgroup has not written: GLSL leaves its contents undefined (the executor " \
            "reads 0)"
        return
    if chosen is None:
        rep.status, rep.reason = "skipped", f"the program changed no buffer word and no " \
            f"texel under {SEEDS} generated input sets (or ran past the executor's step " \
            "limit): nothing to compare"
        return
    if chosen != seed:
        rep.notes.append(f"inputs of seed {chosen}: the first of seeds {seed}, {seed + 1000}, "
                         "... under which the program writes")
    _, uniforms, param_buffers = gl_interface(tr.reflection, gen, 1)
    capacity = ATOMIC_CAPACITY if atomic_functions(program) else 0
    dispatch = ComputeDispatch(runner, groups, buffers, images, gen, uniforms, param_buffers,
                               capacity)
    shader = tr.source
    direct = False
    if backend in ("gl-spirv", "vulkan"):
        # the direct SPIR-V path's module where it covers the program, else glslang's (the
        # module xlate convert --target spirv writes); with atomics, the direct module keeps
        # the same log as the GLSL translation above
        if via == "glsl":
            rep.notes.append("glslang's SPIR-V ran (--via glsl)")
        else:
            from ..backends.spirv_direct import Instrumentation, NotCovered, emit_spirv
            try:
                shader = emit_spirv(program, profile, instrumentation=Instrumentation(
                    atomic_log=bool(capacity))).spirv
                direct = True
                rep.notes.append("the direct SPIR-V path's module ran")
            except NotCovered as e:
                if via == "direct":
                    rep.status, rep.reason = "unsupported", \
                        f"direct SPIR-V does not cover {e}"
                    return
                rep.notes.append(f"glslang's SPIR-V ran (the direct path does not cover {e})")
    try:
        cap = dispatch.run(shader, tr.reflection, program)
        if cap.log is not None and cap.log[0] > capacity:
            rep.status, rep.reason = "unsupported", f"{cap.log[0]} atomics ran, more than " \
                f"the verifier logs ({capacity})"
            return
        harness = ComputeHarness(program, dispatch, tr.reflection, cap.log, exec_kw)
        # with atomics: the executor again, each atomic returning what the implementation's
        # returned (check_atomics judges that order)
        res = harness.execute(program, gen, lanes)
        diffs, compared, orders = compare_dispatch(program, res, cap,
                                                   int(np.prod(program.local_size)))
        if diffs and direct:
            # the two translations check each other (as core._verify_program): the replay
            # probes the GLSL translation, so it explains glslang's module's results; the
            # direct module's must be the same words there, or the same value by GLSL 4.7.1
            other = dispatch.run(tr.source, tr.reflection, program)
            if other.log is not None:
                harness = ComputeHarness(program, dispatch, tr.reflection, other.log, exec_kw)
                res = harness.execute(program, gen, lanes)
            diffs2, compared, orders = compare_dispatch(program, res, other,
                                                        int(np.prod(program.local_size)))
            apart = core.direct_departures(diffs, diffs2)
            if apart:
                rep.status = "mismatch"
                rep.reason = ("the direct SPIR-V departs from the executor where glslang's "
                              f"SPIR-V does not ({len(apart)} words; nothing replays the "
                              "direct module)")
                rep.total_differences = len(diffs)
                rep.differences = apart[:max_reported]
                return
            rep.notes.append("the direct SPIR-V's results differ from the executor's only where "
                             "glslang's SPIR-V's do (or by a zero's sign / a NaN's payload): "
                             "explained through the GLSL translation")
            cap, diffs = other, diffs2
    except G.GLError as e:        # the driver refused the translation: as core.py reports it
        rep.status, rep.reason = "mismatch", f"implementation error: {e}"
        return
    if orders:
        rep.notes.append(f"atomics: {orders} contended words, each with an order of its "
                         "atomics that returns what the implementation returned")
    if res.out_of_range:
        rep.notes.append("some access fell outside its buffer: the executor reads 0 and drops "
                         "the write, as the translation's bounds checks do")
    rep.notes.append(f"grid {groups[0]} x {groups[1]} x {groups[2]} workgroups of "
                     + " x ".join(map(str, program.local_size)) + "; storage buffers compared "
                     "word by word")
    rep.compared = compared
    rep.total_differences = len(diffs)
    rep.differences = diffs[:max_reported]
    if not diffs:
        rep.status = "pass"
        return
    rep.status = "mismatch"
    if not localize:
        rep.reason = "outputs differ (localization off: nothing was explained)"
        return
    core._note_inputs(rep, gen, diffs, harness.describe)
    run = core._Run(gen, res, cap, diffs, compared)
    try:
        core._explain(program, facts, tr.source, tr.reflection, lanes, runner, rep, run,
                      max_reported, harness=harness)
    except G.GLError as e:
        rep.reason = f"outputs differ; the probed translation failed: {e}"
    if harness.probe.rejected:
        rep.notes.append(f"{harness.probe.rejected} probe dispatches whose atomics returned "
                         "otherwise than the main run's: their values were not used")


__all__ = ["verify_compute", "run_gl_compute", "generated_buffers"]
