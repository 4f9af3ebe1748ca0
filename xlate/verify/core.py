"""Verify one program: run the executor and the translation on the same inputs, compare.

:func:`verify_source` is the whole pipeline for one file; :class:`ProgramReport` its result
(also what ``xlate verify --json`` writes, one per file).

Status values: ``pass`` (outputs bit for bit equal, or every difference shown permitted by the
replay, :mod:`replay`); ``mismatch`` (a difference the replay does not explain);
``unsupported`` (the translator or the harness cannot express the program,
or it uses something the executor cannot run yet -- the reason says which); ``error`` (the
input does not parse: diagnostics as for ``xlate convert``); ``skipped`` (every input made
the program run longer than the executor's step limit).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from ..diagnostics import XlateError
from ..ir.model import DataType, Program, RegKind, Stage, storage_label
from . import compare as cmp
from .analysis import Facts, analyse
from .mutants_common import Delegate
from .subgroups import PartitionUnknown, probe_partition, uses_lane_ops, whole_rows
from .inputs import GeneratedInputs, generate

MAX_STEPS = 1 << 16
BUILTIN_COMPONENTS = {"gl_Position": (0, 1, 2, 3), "gl_PointSize": (0,), "gl_FragDepth": (2,),
                      "gl_Layer": (0,), "gl_PrimitiveID": (0,), "gl_ViewportIndex": (0,)}


@dataclass
class ProgramReport:
    file: str
    stage: str = ""
    dialect: str = ""
    status: str = "pass"
    reason: str = ""
    backend: str = ""
    lanes: int = 0
    seed: int = 0
    compared: int = 0
    differences: list = field(default_factory=list)      # compare.Difference
    total_differences: int = 0
    localization: list = field(default_factory=list)     # dicts from trace.localize
    notes: list = field(default_factory=list)
    diagnostics: list = field(default_factory=list)
    seconds: float = 0.0
    inputs_of: dict = field(default_factory=dict)        # lane -> {binding: values}
    #: what ``xlate verify --report`` draws (evidence.Evidence), kept on request only
    evidence: object = field(default=None, repr=False, compare=False)

    def to_json(self) -> dict:
        return {
            "file": self.file, "stage": self.stage, "dialect": self.dialect,
            "status": self.status, "reason": self.reason, "backend": self.backend,
            "lanes": self.lanes, "seed": self.seed, "components_compared": self.compared,
            "differences": self.total_differences,
            "first_differences": [d.to_json() for d in self.differences[:20]],
            "localization": self.localization, "notes": self.notes,
            "inputs": {str(k): v for k, v in self.inputs_of.items()},
            "seconds": round(self.seconds, 3),
        }


# ---- small helpers -----------------------------------------------------------------------------

def textures_supported() -> bool:
    """True once ``xlate.exec`` can sample (its TEX is no longer a placeholder)."""
    from ..exec.texture import TEX
    return not getattr(TEX.get("TEX"), "placeholder", False)


def describe_inputs(gen: GeneratedInputs, lane: int) -> dict[str, list]:
    """Readable inputs of one lane: binding -> [floats] with the raw words."""
    out = {}
    for key, v in gen.inputs.items():
        w = np.asarray(v)[lane].reshape(-1)
        f = w.view(np.float32)
        out[key] = [f"{float(x)!r}/0x{int(y):08x}" for x, y in zip(f, w)]
    return out


def fragment_xy(program: Program, lanes: int, *, origin_follows_program: bool = True):
    """Window (x, y) of each lane's pixel (``capture.quad_layout``), as float32, in the program's
    fragment coordinate conventions: ``OPTION ARB_fragment_coord_origin_upper_left`` counts y
    from the top row (GL_ARB_fragment_coord_conventions: y' = height - y).  Vulkan's origin is
    the upper left for every program, so its harness reads y as given
    (``origin_follows_program=False``)."""
    from .capture import quad_layout
    x, y, _, height = quad_layout(lanes)
    xf, yf = x.astype(np.float32), y.astype(np.float32)
    if origin_follows_program and program.fragcoord_origin_upper_left:
        yf = np.float32(height - 1) - yf
    return xf, yf


def pixel_centre(program: Program) -> float:
    """Where a pixel's centre is: 0.5 (GL's default), 0.0 with ``OPTION
    ARB_fragment_coord_pixel_center_integer``."""
    return 0.0 if program.fragcoord_pixel_center_integer else 0.5


def builtin_values_for(stage: Stage, lanes: int, frag_xy=None, centre: float = 0.5):
    """The harness's values for built-in inputs (see :mod:`gl`); fragment.position is
    ``frag_xy`` (:func:`fragment_xy`) plus ``centre`` (:func:`pixel_centre`)."""

    def values(key: str, n: int):
        path = key.split("[")[0]
        out = np.zeros((n, 4), np.uint32)
        if stage == Stage.VERTEX and path == "vertex.id":
            out[:, 0] = np.arange(n, dtype=np.uint32)
            return out
        if stage == Stage.VERTEX and path == "vertex.instance":
            return out
        if stage == Stage.FRAGMENT:
            if path == "fragment.position":
                x, y = frag_xy
                f = np.zeros((n, 4), np.float32)
                f[:, 0] = x + np.float32(centre)
                f[:, 1] = y + np.float32(centre)
                f[:, 2] = 0.5
                f[:, 3] = 1.0
                return f.view(np.uint32)
            if path == "fragment.facing":
                out[:, 0] = np.float32(1.0).view(np.uint32)
                return out
            if path in ("primitive.id", "fragment.sampleid"):
                return out              # one primitive; single-sample target: sample 0
        if stage == Stage.GEOMETRY and path == "primitive.id":
            out[:, 0] = np.arange(n, dtype=np.uint32)
            return out
        return None

    return values


def output_elements(program: Program) -> dict[str, list[tuple[str, int | None]]]:
    """Output binding text -> [(register, element or None)] (aliases of one binding)."""
    out: dict[str, list] = {}
    for reg in program.registers.values():
        if reg.kind != RegKind.OUTPUT:
            continue
        for e, b in enumerate(reg.bindings):
            if b is None:
                continue
            keys = {b.text()}
            if b.index == 0 and b.index2 is None:
                keys.add(b.path)                    # result.color = result.color[0]
            for k in keys:
                out.setdefault(k, []).append((reg.name, e if reg.size is not None else None))
    return out


def _last_writer(program: Program, reg: str, c: int) -> int:
    last = -1
    for i, ins in enumerate(program.instructions):
        if ins.dst is not None and ins.dst.reg == reg and ins.dst.mask[c]:
            last = i
    return last


def _pick_alias(program: Program, facts: Facts, elems, c: int):
    written = [(r, e) for r, e in elems if (r, c) in facts.writer_types]
    if not written:
        return elems[0], False
    if len(written) == 1:
        return written[0], False
    best = max(written, key=lambda re_: _last_writer(program, re_[0], c))
    return best, True


def executor_output(program: Program, facts: Facts, outputs: dict, binding: str,
                    elems) -> tuple[np.ndarray, bool]:
    """The executor's words for one output binding, (lanes, 4); True when aliases disagree
    on which register holds the value."""
    cols = []
    ambiguous = False
    for c in range(4):
        (reg, e), amb = _pick_alias(program, facts, elems, c)
        ambiguous |= amb
        v = outputs[reg]
        v = v[:, e] if e is not None else v
        cols.append(v[..., c])
    return np.stack(cols, axis=-1), ambiguous


def output_spec(program: Program, facts: Facts, out: dict, elems) -> cmp.OutputSpec:
    name = out["name"]
    if out["builtin"]:
        base = name.split("[")[0]
        comps = BUILTIN_COMPONENTS.get(base, (0,))
        gint = base in ("gl_Layer", "gl_PrimitiveID", "gl_ViewportIndex")
    else:
        comps = (0, 1, 2, 3)
        gint = out["type"] in ("ivec4", "uvec4", "int", "uint")
    integer, tol, undef, varies = [], [], [], []
    for c in range(4):
        wt: set = set()
        ops: set = set()
        u = False
        v: set = set()
        for reg, _ in elems:
            wt |= facts.writer_types.get((reg, c), set())
            ops |= facts.inexact_ops(reg, c)
            u = u or facts.undefined(reg, c)
            v |= facts.varies(reg, c)
        # the words' type is the writers' (an ivec4 output written by float instructions
        # carries float bits, which llvmpipe may have flushed)
        integer.append(wt <= {DataType.INT, DataType.UINT} if wt else gint)
        tol.append(cmp.tolerance_for(ops))
        undef.append(u)
        varies.append(bool(v))
    return cmp.OutputSpec(out["binding"], comps, tuple(integer), tol, tuple(undef),
                          tuple(varies))


# ---- the pipeline ------------------------------------------------------------------------------

def gl_interface(reflection: dict, gen: GeneratedInputs, lanes: int):
    """Inputs/uniforms/buffers for :meth:`gl.Runner.run` from generated values."""
    inputs = {}
    for inp in reflection["inputs"]:
        key = inp["binding"]
        v = gen.inputs.get(key)
        if v is None and key.endswith("[0]"):
            v = gen.inputs.get(key[:-3])
        if v is None:
            v = gen.inputs.get(key + "[0]")
        if v is None:
            continue
        inputs[inp["name"]] = v
    uniforms = []
    buffers = {}
    for u in reflection["uniforms"]:
        n = u["array_size"] or 1
        words = np.zeros((n, 4), np.uint32)
        for idx, binding in u["elements"].items():
            v = gen.params.get(binding)
            if v is not None:
                words[int(idx)] = v
        if "location" in u:
            # glsl330 declares no locations (null): the runner looks the name up, as the
            # reflection tells an engine to
            uniforms.append((u["name"] if u["location"] is None else u["location"], words))
        else:                       # parameters in a uniform block (std140: vec4 = 16 bytes)
            blk = buffers.get(u["binding"], np.zeros(0, np.uint32))
            end = u["offset"] // 4 + n * 4
            if len(blk) < end:
                blk = np.concatenate([blk, np.zeros(end - len(blk), np.uint32)])
            blk[u["offset"] // 4:end] = words.reshape(-1)
            buffers[u["binding"]] = blk
    for b in reflection.get("buffers", []):
        words = np.zeros(b["vec4_count"] * 4, np.uint32)
        src = gen.buffers.get(b["binding_point"])
        if src is not None:
            m = min(len(src), len(words))
            words[:m] = src[:m]
        buffers[b["binding"]] = words
    return inputs, uniforms, buffers


def _replace_lanes(gen: GeneratedInputs, bad: np.ndarray, group: int) -> None:
    """Give lanes that ran into the step limit the inputs of lanes that did not."""
    lanes = gen.lanes
    g_bad = bad.reshape(-1, group).any(axis=1)
    good = np.nonzero(~g_bad)[0]
    for g in np.nonzero(g_bad)[0]:
        src = good[g % len(good)]
        for key, v in gen.inputs.items():
            if key in gen.builtin or key in gen.planes:     # functions of the position
                continue
            v[g * group:(g + 1) * group] = v[src * group:(src + 1) * group]
    assert lanes == gen.lanes


def run_executor(program: Program, gen: GeneratedInputs, lanes: int, hooks=None):
    from ..exec import execute
    kw = {"sampling": "llvmpipe"} if gen.textures else {}
    if gen.subgroups is not None:
        kw["subgroups"] = gen.subgroups
    return execute(program, inputs=dict(gen.inputs), params=gen.exec_params(program),
                   lanes=lanes, textures=gen.textures or None, max_steps=MAX_STEPS,
                   hooks=hooks, **kw)


def run_gl(runner, program: Program, glsl: str, reflection: dict, gen: GeneratedInputs,
           lanes: int, direct=None, through_spirv: bool = False):
    """``direct``: the direct SPIR-V path's module maker (:func:`direct_module`), which the
    runner runs instead of glslang's compile of ``glsl``.  ``through_spirv``: a ``gl`` runner
    runs glslang's SPIR-V of ``glsl`` this once (a counterfactual of a compiler defect)."""
    inputs, uniforms, buffers = gl_interface(reflection, gen, lanes)
    kw = {"direct": direct} if direct is not None else {}
    if gen.planes:
        from .planes import plane_inputs
        kw["planes"] = plane_inputs(reflection, gen.planes)
    if through_spirv:
        kw["through_spirv"] = True
    return runner.run(program.stage.value, glsl, reflection, lanes, inputs=inputs,
                      uniforms=uniforms, buffers=buffers, textures=gen.textures,
                      shadow=gen.shadow, **kw)


def chosen_direct_module(program: Program, profile: str, via: str, rep):
    """The direct module maker (:func:`direct_module`) the run uses, with the note saying so;
    None where the path does not cover the program and glslang's module runs instead (noted);
    False where ``via`` is "direct" and it does not cover it (``rep`` is then unsupported)."""
    direct = direct_module(program, profile)
    if not isinstance(direct, str):
        rep.notes.append("ran the direct SPIR-V path's module (xlate's own SPIR-V)")
        return direct
    if via == "direct":
        rep.status, rep.reason = "unsupported", f"direct SPIR-V does not cover {direct}"
        return False
    rep.notes.append(f"direct SPIR-V does not cover {direct}: glslang's SPIR-V ran")
    return None


def direct_module(program: Program, profile: str):
    """A maker of the direct SPIR-V path's module of ``program`` with a harness's
    instrumentation (``Instrumentation -> bytes``, each module validated by spirv-val), or the
    reason the direct path does not cover the program (a str)."""
    from ..backends import spirv as sp
    from ..backends.spirv_direct import NotCovered, emit_spirv
    from . import gl as glmod
    try:
        emit_spirv(program, profile)
    except NotCovered as e:
        return str(e)
    except XlateError as e:
        return "; ".join(d.message for d in e.diagnostics)
    env = "vulkan" if profile == "vulkan" else "opengl"

    def make(instrumentation) -> bytes:
        words = emit_spirv(program, profile, instrumentation=instrumentation).spirv
        problem = sp.validate_spirv(words, target=env)
        if problem:
            raise glmod.GLError(f"the direct SPIR-V with the harness's additions is invalid: "
                                f"{problem}")
        return words
    return make


def _diff_key(d) -> tuple:
    return (d.output, d.lane, d.component, d.kind)


def _diff_words(diffs) -> dict:
    return {_diff_key(d): d.got for d in diffs}


def same_capture(a, b) -> bool:
    """Whether two runs produced the same bits (outputs, kills, geometry primitives)."""
    if a.outputs.keys() != b.outputs.keys():
        return False
    if any(not np.array_equal(a.outputs[k], b.outputs[k]) for k in a.outputs):
        return False
    if (a.killed is None) != (b.killed is None) or (
            a.killed is not None and not np.array_equal(a.killed, b.killed)):
        return False
    return same_primitives(a.primitives, b.primitives)


def same_primitives(a, b, canon=None) -> bool:
    """Geometry captures (per lane, the primitives, each a list of vertices {output name:
    words}) with the same bits; ``==`` on them would compare NumPy arrays elementwise.
    ``canon(name, words)``: what is compared of an output's words (default: the words)."""
    if a is None or b is None:
        return a is b
    if len(a) != len(b):
        return False
    for lane_a, lane_b in zip(a, b):
        if len(lane_a) != len(lane_b):
            return False
        for prim_a, prim_b in zip(lane_a, lane_b):
            if len(prim_a) != len(prim_b):
                return False
            for va, vb in zip(prim_a, prim_b):
                if va.keys() != vb.keys():
                    return False
                for k in va:
                    wa, wb = (va[k], vb[k]) if canon is None else (canon(k, va[k]),
                                                                   canon(k, vb[k]))
                    if not np.array_equal(wa, wb):
                        return False
    return True


def make_runner(backend: str = "gl", *, precise: bool = False, profile: str | None = None):
    """The runner of a backend: :class:`gl.Runner` for ``gl``/``gl-spirv``,
    :class:`vulkan.Runner` for ``vulkan``, :class:`native.Runner` for ``native`` (the original
    assembly program on the driver's own interface).  Raises :class:`glapi.GLUnavailable` (for Vulkan its
    subclass ``VulkanUnavailable``) when the implementation is missing.  ``profile``: the GLSL
    profile the translation is made in -- ``glsl450`` (default), ``glsl330`` or ``es310`` on
    the GL backends (:mod:`profile_runs`); ``vulkan`` and ``native`` have their own."""
    if profile not in (None, "glsl450") and backend not in ("gl", "gl-spirv"):
        raise ValueError(f"profile {profile!r} runs on the gl and gl-spirv backends only")
    if backend == "native":
        from .native import Runner as NativeRunner
        return NativeRunner(backend)
    if backend == "vulkan":
        from .vulkan import Runner as VulkanRunner
        return VulkanRunner(backend, precise=precise)
    from .gl import Runner
    return Runner(backend, precise=precise, profile=profile or "glsl450")


def runner_profile(runner) -> str:
    """The GLSL profile a runner expects translations in (``glsl450`` for GL, ``vulkan``)."""
    return getattr(runner, "profile", "glsl450")


def verify_source(text: str, filename: str, *, lanes: int = 4096, seed: int = 1,
                  backend: str = "gl", runner=None, localize: bool = True,
                  max_reported: int = 50, keep_evidence: bool = False,
                  via: str = "auto") -> ProgramReport:
    """Verify one program text.  ``runner``: a runner to reuse (:func:`make_runner`; else one
    is made for ``backend``; :class:`glapi.GLUnavailable` propagates when no implementation
    exists).  ``keep_evidence``: attach the outputs and differences an HTML report draws
    (``rep.evidence``, :mod:`evidence`; not for the ``native`` backend).  ``via`` (backends
    ``vulkan`` and ``gl-spirv``): which SPIR-V runs -- ``auto`` the direct path's where it
    covers the program, else glslang's; ``direct`` the direct path's only (a program it does
    not cover is ``unsupported``); ``glsl`` glslang's compile of the GLSL translation."""
    from ..frontends import parse_program
    t0 = time.perf_counter()
    rep = ProgramReport(file=filename, backend=backend, seed=seed)
    try:
        program = parse_program(text, filename)
    except XlateError as e:
        rep.status, rep.reason = "error", "the program does not parse"
        rep.diagnostics = list(e.diagnostics)
        rep.seconds = time.perf_counter() - t0
        return rep
    rep.stage, rep.dialect = program.stage.value, program.dialect
    if backend == "native":         # the original text runs on the driver: no translation
        from .native_verify import verify_program
        try:
            verify_program(text, program, rep, lanes=lanes, seed=seed, runner=runner,
                           max_reported=max_reported)
        finally:
            rep.seconds = time.perf_counter() - t0
        return rep
    if program.stage == Stage.COMPUTE:
        # a dispatch compared through storage buffers and images (compute_verify.py)
        try:
            from .compute_verify import verify_compute
            verify_compute(program, rep, seed=seed, runner=runner or make_runner(backend),
                           gl_interface=gl_interface, max_reported=max_reported, via=via,
                           localize=localize)
        finally:
            rep.seconds = time.perf_counter() - t0
        return rep
    if program.resources:
        # buffers and images (buffer images included) outside compute shaders: the draw
        # harnesses of every backend bind none
        rep.status, rep.reason = "unsupported", \
            f"{resource_names(program)} in a {program.stage.value} program: the draw " \
            "harnesses bind no storage buffers or images (compute programs verify them)"
        rep.seconds = time.perf_counter() - t0
        return rep
    try:
        _verify_program(program, rep, lanes=lanes, seed=seed, backend=backend, runner=runner,
                        localize=localize, max_reported=max_reported,
                        keep_evidence=keep_evidence, via=via)
    finally:
        rep.seconds = time.perf_counter() - t0
    return rep


def resource_names(program) -> str:
    """The program's storage buffers and images as TGSI names them, a buffer image as such:
    ``BUFFER[1], IMAGE[0] (a buffer image)`` (by kind, then binding)."""
    names = []
    for r in sorted(program.resources.values(), key=lambda r: (r.kind, r.binding)):
        if r.kind == "shared":
            continue
        name = storage_label(r.binding) if r.kind == "buffer" else \
            f"{r.kind.upper()}[{r.binding}]"
        names.append(name + (" (a buffer image)" if r.target == "BUFFER" else ""))
    return ", ".join(names)


@dataclass
class _Run:
    gen: GeneratedInputs
    res: object
    cap: object
    diffs: list
    compared: int


class DrawHarness:
    """How the verifier's verdict tail (:func:`_explain`, :func:`replay.replay`) runs one
    program on both sides: the executor (:meth:`execute`, with the replay's result hook), the
    comparison of an executor result with a capture (:meth:`compare`), a run of the
    implementation with another text of the translation (:meth:`run_impl`: the folding
    counterfactual, the ``precise`` hint), the implementation's probes (``probe``: None, the IR
    probes of :mod:`trace`) and what a lane's inputs were (:meth:`describe`).  This one is
    every draw's (vertex, fragment, geometry, tessellation lanes); a compute dispatch has
    :class:`compute_replay.ComputeHarness`, with the same methods."""

    probe = None

    def __init__(self, program: Program, facts, reflection: dict, runner):
        self.program, self.facts, self.reflection, self.runner = (program, facts, reflection,
                                                                  runner)

    def execute(self, program: Program, gen: GeneratedInputs, lanes: int, hooks=None):
        return run_executor(program, gen, lanes, hooks=hooks)

    def compare(self, res, cap) -> list:
        return compare_all(self.program, self.facts, self.reflection, res, cap, [],
                           strict=True)[0]

    def run_impl(self, glsl: str, gen: GeneratedInputs, lanes: int,
                 through_spirv: bool = False):
        return run_gl(self.runner, self.program, glsl, self.reflection, gen, lanes,
                      through_spirv=through_spirv)

    def describe(self, gen: GeneratedInputs, lane: int) -> dict | None:
        return describe_inputs(gen, lane) if lane < gen.lanes else None


def main_run_inputs(program, facts, lanes: int, seed: int, rep):
    """The inputs of the main run (``rep.backend`` decides the fragment origin) and the
    executor's result on them; lanes that ran into the step limit get other lanes' inputs.
    None when the program is skipped (``rep.status`` says why)."""
    stage = program.stage
    frag_xy = plane_xy = None
    if stage == Stage.FRAGMENT:
        from .capture import quad_layout
        frag_xy = fragment_xy(program, lanes, origin_follows_program=rep.backend != "vulkan")
        plane_xy = quad_layout(lanes)[:2]
    gen = generate(program, facts, lanes, seed,
                   builtin_values=builtin_values_for(stage, lanes, frag_xy,
                                                     pixel_centre(program)),
                   plane_xy=plane_xy)
    if facts.uses_textures:
        from .textures import generate_textures, shadow_units
        gen.textures = generate_textures(program, seed)
        gen.shadow = shadow_units(program)
    res = run_executor(program, gen, lanes)
    if res.steps_exceeded.any():
        bad = res.steps_exceeded
        if bad.all():
            rep.status, rep.reason = "skipped", f"every lane exceeded {MAX_STEPS} steps"
            return None
        _replace_lanes(gen, bad, 4 if stage == Stage.FRAGMENT else 1)
        rep.notes.append(f"{int(bad.sum())} lanes exceeded the executor's step limit; their "
                         "inputs were replaced by those of other lanes")
        res = run_executor(program, gen, lanes)
        if res.steps_exceeded.any():
            rep.status, rep.reason = "skipped", f"lanes exceed {MAX_STEPS} steps"
            return None
    return gen, res


def _one_run(program, facts, glsl, reflection, lanes, seed, runner, rep, direct=None):
    """Generate inputs, run both sides, compare.  None when the program was skipped."""
    made = main_run_inputs(program, facts, lanes, seed, rep)
    if made is None:
        return None
    gen, res = made
    if uses_lane_ops(program):
        # the inter-lane opcodes reduce over the implementation's subgroups: learn them from a
        # probe run of the same draw, and re-run the executor on them (verify/subgroups.py)
        try:
            gen.subgroups = probe_partition(runner, runner_profile(runner), lanes)
        except PartitionUnknown as e:
            rep.status, rep.reason = "unsupported", f"subgroup partition: {e}"
            return None
        groups = len(np.unique(gen.subgroups[:, 0]))
        rep.notes.append(f"subgroups probed: {groups} subgroups of up to "
                         f"{int(gen.subgroups[:, 1].max()) + 1} invocations; the executor ran "
                         "on that partition")
        res = run_executor(program, gen, lanes)
    cap = run_gl(runner, program, glsl, reflection, gen, lanes, direct)
    diffs, compared = compare_all(program, facts, reflection, res, cap, rep.notes, strict=True)
    return _Run(gen, res, cap, diffs, compared)


#: verdicts of adopted departures that explain a difference (see :mod:`permits`)
EXPLAINED = ("signedzero", "ftz", "nonfinite", "tolerance", "reassociated", "range", "undefined",
             "boundary", "lod", "implementation", "propagated", "recompiled", "nanchoice")
#: verdicts of differences nothing explains
SUSPECT = ("divergence", "cc", "flow", "interface")


def _verify_program(program: Program, rep: ProgramReport, *, lanes: int, seed: int, backend: str,
                    runner, localize: bool, max_reported: int, keep_evidence: bool = False,
                    via: str = "auto") -> None:
    from ..backends.glsl import emit_glsl
    from . import gl as glmod
    stage = program.stage
    facts = analyse(program, set(cmp.INEXACT))
    if facts.uses_textures and not textures_supported():
        rep.status, rep.reason = "unsupported", "textures (the executor cannot sample yet)"
        return
    for reg in program.registers.values():
        paths = {b.path for b in reg.bindings if b is not None} if reg.kind == RegKind.INPUT \
            else set()
        if "fragment.clip" in paths:
            rep.status, rep.reason = "unsupported", "fragment.clip inputs (harness)"
            return
        if "fragment.pointcoord" in paths:
            # GL 4.5 §14.8.3 / GLSL gl_PointCoord: defined only when rasterizing points, and the
            # harness draws one triangle per fragment block
            rep.status, rep.reason = "unsupported", ("fragment.pointcoord inputs (the harness "
                                                     "draws triangles; gl_PointCoord is defined "
                                                     "for points only)")
            return
    if uses_lane_ops(program) and stage != Stage.FRAGMENT:
        rep.status, rep.reason = "unsupported", (
            "inter-lane opcodes in a vertex or geometry program: the harness probes the "
            "subgroups of its fragment draw only (verify/subgroups.py)")
        return
    if uses_lane_ops(program) and (backend == "gl-spirv"
                                   or getattr(runner, "backend", None) == "gl-spirv"):
        # measured: Mesa 22.3.6's GL_ARB_gl_spirv (llvmpipe) dies with SIGSEGV loading a module
        # with SPV_KHR_shader_ballot -- glslang's and the direct path's alike, the harness's
        # probe too -- so these run on the gl (GLSL) and vulkan backends only
        rep.status, rep.reason = "unsupported", (
            "inter-lane opcodes on gl-spirv: Mesa's GL_ARB_gl_spirv crashes on "
            "SPV_KHR_shader_ballot modules; the gl and vulkan backends verify them")
        return
    if runner is None:
        runner = make_runner(backend)
    try:
        out = emit_glsl(program, runner_profile(runner))
    except XlateError as e:
        rep.status = "unsupported"
        rep.reason = "translation: " + "; ".join(d.message for d in e.diagnostics)
        rep.diagnostics = list(e.diagnostics)
        return
    glsl, reflection = out.source, out.reflection
    if stage in (Stage.TESS_EVAL, Stage.TESS_CTRL):     # gl_tess: lanes of their own
        from .tess_verify import verify_tess_ctrl, verify_tess_eval
        verify = verify_tess_eval if stage == Stage.TESS_EVAL else verify_tess_ctrl
        try:
            # on gl-spirv and vulkan the direct module runs where it covers the program, with
            # the harness's edits made in SPIR-V (tess_verify.chosen_module)
            verify(program, rep, facts, glsl, reflection, runner, seed=seed,
                   max_reported=max_reported, via=via)
        except glmod.GLUnavailable as e:
            rep.status, rep.reason = "unsupported", str(e)
        except glmod.GLError as e:
            rep.status, rep.reason = "mismatch", f"implementation error: {e}"
        return
    if stage == Stage.FRAGMENT:
        lanes = (lanes + 3) // 4 * 4
        from .capture import FRAG_WIDTH
        lanes = whole_rows(program, lanes, FRAG_WIDTH)
    rep.lanes = lanes
    direct = None
    if backend in ("vulkan", "gl-spirv") and via != "glsl":
        direct = chosen_direct_module(program, runner_profile(runner), via, rep)
        if direct is False:
            return
    try:
        run = _one_run(program, facts, glsl, reflection, lanes, seed, runner, rep, direct)
        if run is not None and run.diffs and direct is not None:
            # the two translations check each other.  The replay reads its probes from the
            # GLSL translation, so it explains glslang's module's outputs; the direct module's
            # are explained by it where they have the same bits, and elsewhere must equal the
            # executor's, or differ within the documented tolerances (compare's rules) --
            # never by a freedom only glslang's compilation was shown to take
            other = _one_run(program, facts, glsl, reflection, lanes, seed, runner, rep)
            if other is not None and not same_capture(run.cap, other.cap):
                # where the direct module departs from the executor otherwise than glslang's
                # does, nothing replays the direct module, so no freedom can be *shown* there:
                # the component is a mismatch, unless the two words are the same value by
                # GLSL 4.50 4.7.1 itself -- two zeros (the sign of a zero result is the
                # implementation's) or two NaNs (any payload).  (Compare's loose tolerances
                # were accepted here before: the tree-level mutation harness passed 45 wrong
                # direct modules through them -- a 1 % literal after a TEX, a write to a
                # component the analysis calls undefined; docs/verify_mutants_baseline.md.)
                if judge_direct_departures(rep, run.diffs, other.diffs, max_reported):
                    return
                words = sum(int(np.count_nonzero(run.cap.outputs[k] != other.cap.outputs[k]))
                            for k in run.cap.outputs if k in other.cap.outputs)
                rep.notes.append(f"the direct SPIR-V's outputs differ from glslang's SPIR-V's in "
                                 f"{words} words (zeros of the other sign, NaNs of another "
                                 "payload, or where both depart from the executor: explained "
                                 "through the GLSL translation)")
            else:
                rep.notes.append("the direct SPIR-V's outputs are bit-identical to glslang's "
                                 "SPIR-V's on these inputs: differences explained through the "
                                 "GLSL translation")
            run = other if other is not None else run
    except glmod.GLError as e:
        rep.status, rep.reason = "mismatch", f"implementation error: {e}"
        return
    if run is None:
        return
    if keep_evidence:
        from .evidence import collect
        rep.evidence = collect(program, facts, reflection, run, glsl, lanes)
    diffs = run.diffs
    rep.compared = run.compared
    rep.total_differences = len(diffs)
    rep.differences = diffs[:max_reported]
    if facts.control_varies:
        # no output is comparable (compare_all's note): the dependence shows it, nothing passes
        rep.status = "skipped"
        rep.reason = (f"every output depends on {', '.join(sorted(facts.control_varies))} "
                      "through a condition: the implementation's value, different in every run")
        return
    if not diffs:
        rep.status = "pass"
        return
    rep.status = "mismatch"
    _note_inputs(rep, run.gen, diffs)
    if not localize:
        rep.reason = "outputs differ (localization off: nothing was explained)"
        return
    _explain(program, facts, glsl, reflection, lanes, runner, rep, run, max_reported)


def judge_direct_departures(rep, direct_diffs, glslang_diffs, max_reported: int,
                            unit: str = "components") -> bool:
    """Where the direct module's run departs from the executor and glslang's run does not
    (:func:`direct_departures`): ``rep`` becomes a mismatch showing those differences, and
    True.  ``unit``: what a difference is (output components, buffer words)."""
    apart = direct_departures(direct_diffs, glslang_diffs)
    if not apart:
        return False
    rep.status = "mismatch"
    rep.reason = ("the direct SPIR-V departs from the executor where glslang's SPIR-V does "
                  f"not ({len(apart)} {unit}; nothing replays the direct module)")
    rep.total_differences = len(direct_diffs)
    rep.differences = apart[:max_reported]
    return True


def direct_departures(direct_diffs, glslang_diffs) -> list:
    """The differences of the direct SPIR-V module's run that glslang's module's run (same
    inputs) does not have with the same word -- unless the two words are the same value by
    GLSL 4.50 4.7.1 (:func:`_same_value_by_glsl`).  Nothing replays the direct module, so no
    freedom can be shown for these: each is a mismatch."""
    own = _diff_words(glslang_diffs)
    return [d for d in direct_diffs if own.get(_diff_key(d), object()) != d.got
            and not _same_value_by_glsl(d)]


def _same_value_by_glsl(d) -> bool:
    """A difference between two words GLSL 4.50 section 4.7.1 does not tell apart: two zeros
    of either sign, or two NaNs of any payload (float words only)."""
    if d.kind not in ("value", "memory", "texel") or d.integer or d.expected is None \
            or d.got is None:
        return False
    a, b = int(d.expected), int(d.got)
    zero = (a & 0x7FFFFFFF) == 0 and (b & 0x7FFFFFFF) == 0
    nan = all((w & 0x7F800000) == 0x7F800000 and (w & 0x007FFFFF) != 0 for w in (a, b))
    return zero or nan


def _folding_defect_shown(program, facts, glsl, reflection, lanes, runner, rep, run,
                          hook, harness=None) -> bool:
    """Mesa's folding of ``umulExtended`` of constants (:func:`trace.known_defect`) lets
    ``permits.rule_implementation_any`` adopt any value at that instruction on ``gl``: assumed,
    not shown, it would pass any wrong translation of it (a mutant reading ``.y`` for ``.x``
    there passed).  The cause is removed by compiling the *same* GLSL through glslang's SPIR-V
    (``GL_ARB_gl_spirv``), which Mesa does not fold: that run must reproduce exactly the
    executor replayed with every *other* adoption of the replay (its shown freedoms: a
    filtered lookup's tolerance, a flushed denormal ...) and the executor's own value at the
    defect's instructions -- the departures there are the only ones the SPIR-V run removes
    (tgsi fragment seed 69: a TXL within its filtering tolerance beside the folded UMUL_HI).
    True when no such adoption was made or the run shows it; else the report becomes a
    mismatch naming the run."""
    from . import gl as glmod
    from .replay import ReplayHook
    defect = {k for (k, v) in hook.adopted if v == "implementation"
              and program.instructions[k].op == "MUL"}
    if not defect or glsl is None or getattr(runner, "backend", None) != "gl":
        return True
    harness = harness or DrawHarness(program, facts, reflection, runner)
    try:
        cap = harness.run_impl(glsl, run.gen, lanes, through_spirv=True)
    except (glmod.GLUnavailable, glmod.GLError) as e:
        rep.status, rep.reason = "mismatch", (
            "outputs differ; the folding defect at MUL.HI is not shown: the run of the same "
            f"GLSL through SPIR-V failed ({e})")
        return False
    values = {k: v for k, v in hook.values.items() if k not in defect}
    again = ReplayHook(program, values, lanes, getattr(runner, "backend", None), hook.conds,
                       final=True, impl_killed=getattr(run.cap, "killed", None))
    res = harness.execute(program, run.gen, lanes, hooks=again)
    diffs = harness.compare(res, cap)
    if not diffs:
        rep.notes.append("implementation: the same GLSL through SPIR-V (which Mesa does not "
                         "fold) reproduces every output of the executor replayed with the "
                         "executor's own values at the folded instructions")
        return True
    shown = _replayed_through_spirv(program, facts, reflection, lanes, runner, run, cap,
                                    harness)
    if shown is not None:
        rep.notes.append("implementation: the same GLSL through SPIR-V (which Mesa does not "
                         "fold) took other permitted freedoms than the GLSL compilation; its "
                         "own replay, with no freedom at the folded instructions, reproduces "
                         f"every output (adopted: {', '.join(shown) or 'none'})")
        return True
    rep.status, rep.reason = "mismatch", (
        f"outputs differ; the folding defect at MUL.HI is not shown: the same GLSL "
        f"through SPIR-V (no folding) still differs from the executor replayed without "
        f"that defect ({len(diffs)} components, first: {diffs[0].describe()})")
    rep.total_differences = len(diffs)
    rep.differences = diffs[:50]
    return False


class _ThroughSpirv(Delegate):
    """A ``gl`` runner whose every run (the probe runs too) compiles the GLSL through
    glslang's SPIR-V (``through_spirv``)."""

    backend = "gl-spirv"

    def run(self, stage, glsl, reflection, lanes, **kw):
        return self.inner.run(stage, glsl, reflection, lanes, **{**kw, "through_spirv": True})


def _replayed_through_spirv(program, facts, reflection, lanes, runner, run, cap,
                            harness) -> list[str] | None:
    """The replay of the run through glslang's SPIR-V (``cap``) against that compilation's own
    probes, judged as on ``gl-spirv``: there the folding defect is no freedom (trace.
    known_defect is ``gl``'s), so the MUL.HI must give the executor's value.  A second
    compilation may take other permitted freedoms than the first (llvmpipe's ldexp of an
    exponent below -126 gives +0 through SPIR-V where the GLSL compilation kept -0: random
    TGSI geometry seed 17), which a replay with the first one's adoptions cannot show.  The
    verdicts it adopted, or None when it does not reproduce every output."""
    from . import gl as glmod
    from .replay import replay
    try:
        out = replay(program, facts, reflection, run.gen, cap, _ThroughSpirv(runner), lanes,
                     "gl-spirv", harness=harness)
    except (glmod.GLUnavailable, glmod.GLError):
        return None
    if out.diffs or (out.hook.unexplained and program.stage != Stage.GEOMETRY):
        return None
    return sorted({v for (_, v) in out.hook.adopted})


def _explain(program, facts, glsl, reflection, lanes, runner, rep, run, max_reported,
             probe=None, harness=None):
    """Replay the executor against the implementation's probed values (:mod:`replay`): pass
    when the executor, adopting the implementation's value only where a rule of
    :mod:`permits` shows the difference permitted, reproduces every output bit for bit;
    otherwise mismatch, with the unexplained departures (instruction, lane, operands).
    ``glsl`` None and ``probe`` given: the native backend (the original text is probed; there
    is no GLSL to make precise).  ``harness``: how both sides run and what is compared
    (:class:`DrawHarness` by default; a compute dispatch passes its own)."""
    from . import gl as glmod
    from .replay import replay
    harness = harness or DrawHarness(program, facts, reflection, runner)
    try:
        out = replay(program, facts, reflection, run.gen, run.cap, runner, lanes,
                     getattr(runner, "backend", None), probe=probe, harness=harness)
    except glmod.GLUnavailable:
        raise
    except glmod.GLError as e:
        rep.reason = f"outputs differ; the probed translation failed: {e}"
        return
    hook = out.hook
    if rep.evidence is not None:
        rep.evidence.unexplained = list(out.diffs)
    adopted = sorted({v for (_, v) in hook.adopted} | ({"recompiled"} if out.recompiled else set()))
    rep.localization = [d.to_json(program) for d in hook.unexplained[:max_reported]]
    rep.localization += [d.to_json(program) for d in hook.examples[:max_reported]]
    n_adopted = sum(hook.adopted.values())
    rep.notes.append(f"replay: {len(run.diffs)} differing components; the executor adopted "
                     f"{n_adopted} permitted results ({', '.join(adopted) or 'none'}) at "
                     f"{len({k for (k, _) in hook.adopted})} instructions; "
                     f"{len(out.diffs)} differences left")
    if out.recompiled:
        rep.notes.append(f"recompiled: on {len(out.recompiled)} lanes (first {out.recompiled[0]}) "
                         "the main compilation chose otherwise at a freedom the replay adopted; "
                         "the replay reproduces the probe compilation's complete run there")
    # geometry probes are read at the last EMIT, where GLSL leaves outputs written before an
    # EmitVertex() undefined: a departure seen there proves nothing, the outputs decide
    unreliable = program.stage == Stage.GEOMETRY
    if not out.diffs and (not hook.unexplained or unreliable) and \
            not _folding_defect_shown(program, facts, glsl, reflection, lanes, runner, rep, run,
                                      hook, harness):
        return
    if not out.diffs and (not hook.unexplained or unreliable):
        if hook.unexplained:
            rep.notes.append(f"{len(hook.unexplained)} departures seen through geometry probes "
                             "(read at the last EMIT) are not counted: every output agrees")
            rep.localization = [d for d in rep.localization
                                if d.get("verdict") not in SUSPECT]
        rep.status = "pass"
        rep.reason = ("differences explained: " + ", ".join(adopted) +
                      " (shown: the executor, adopting those results, reproduces every output)")
        return
    rep.total_differences = len(out.diffs)
    rep.differences = out.diffs[:max_reported]
    rep.inputs_of = {}
    _note_inputs(rep, run.gen, out.diffs, harness.describe)
    bad_lanes = {d.lane for d in hook.unexplained}
    silent = sorted(cmp.diff_lanes(out.diffs, lanes) - bad_lanes)
    if silent:
        rep.localization.append({"verdict": "interface", "lanes": silent[:20], "detail": (
            "every probed value agreed on these lanes, the outputs do not: the difference "
            "arises where results are written out, or in an execution the probes did not "
            "capture")})
    verdicts = sorted({x.get("verdict") for x in rep.localization
                       if x.get("verdict") in SUSPECT})
    first = hook.unexplained[0].to_json(program)["instruction"] if hook.unexplained else None
    where = f" at {first['text']!r} (line {first['line']})" if first else ""
    rep.reason = "localized: " + ", ".join(verdicts) + where
    if glsl is not None and _vanishes_with_precise(program, facts, glsl, reflection, lanes,
                                                   runner, run, harness):
        rep.reason += ("; the differences vanish with 'precise' GLSL: the implementation "
                       "reassociates or contracts float operations")


def _vanishes_with_precise(program, facts, glsl, reflection, lanes, runner, run,
                           harness=None) -> bool:
    """Whether the same inputs give no difference when every GLSL variable is ``precise``
    (a hint for the report; it explains nothing)."""
    from . import gl as glmod
    harness = harness or DrawHarness(program, facts, reflection, runner)
    try:
        cap = harness.run_impl(glmod.make_precise(glsl), run.gen, lanes)
    except glmod.GLError:
        return False
    return not harness.compare(run.res, cap)


def _note_inputs(rep: ProgramReport, gen: GeneratedInputs, diffs, describe=None) -> None:
    """The inputs of the first three lanes with a difference (``describe(gen, lane)``: what a
    lane's inputs were, :meth:`DrawHarness.describe` by default)."""
    lanes_seen: list[int] = []
    for d in diffs:
        # the difference's lane (a dispatch's word or texel: the invocation that stored it)
        for lane in cmp.diff_lanes([d], 1 << 62):
            if lane not in lanes_seen:
                lanes_seen.append(lane)
        if len(lanes_seen) >= 3:
            break
    for lane in lanes_seen[:3]:
        info = describe(gen, lane) if describe is not None else (
            describe_inputs(gen, lane) if lane < gen.lanes else None)
        if info is not None:
            rep.inputs_of[lane] = info


def compare_all(program, facts, reflection, res, cap, notes: list, strict: bool = False):
    """All differences between an executor result and a capture; also the count compared.
    ``strict``: bit for bit (the verifier), else with compare's tolerance rules."""
    stage = program.stage
    elems_of = output_elements(program)
    if stage == Stage.GEOMETRY:
        return compare_geometry(program, facts, reflection, res, cap, elems_of, strict)
    diffs: list[cmp.Difference] = []
    lanes = next(iter(res.outputs.values())).shape[0] if res.outputs else 0
    active = np.ones(lanes, bool)
    if facts.control_varies:
        notes.append(f"every output depends on {', '.join(sorted(facts.control_varies))} through "
                     "a branch, loop or kill condition: the implementation's value, different "
                     "in every run (tgsi.rst), so nothing is compared")
    if stage == Stage.FRAGMENT:
        ek, gk = res.killed, cap.killed
        if facts.control_varies:
            ek = gk = np.zeros_like(ek)      # who is killed depends on it too
        for lane in np.nonzero(ek != gk)[0]:
            diffs.append(cmp.Difference("kill", int(lane), None, None, None, kind="kill",
                                        detail=f"executor {'kills' if ek[lane] else 'keeps'}"
                                        f", implementation {'kills' if gk[lane] else 'keeps'}"))
        active = ~(ek | gk)
    compared = 0
    for o in reflection["outputs"]:
        elems = _elements(elems_of, o["binding"])
        if elems is None or o["name"] not in cap.outputs:
            notes.append(f"output {o['binding']} not compared (no executor register or "
                         "not captured)")
            continue
        spec = output_spec(program, facts, o, elems)
        skipped = [c for c in spec.components if spec.varies[c]]
        if skipped and not facts.control_varies:
            ops = sorted(set().union(*(facts.varies(reg, c) for reg, _ in elems for c in skipped)))
            notes.append(f"{o['binding']}.{''.join('xyzw'[c] for c in skipped)} depends on "
                         f"{', '.join(ops)}: the implementation's value, different in every run "
                         "(tgsi.rst), not compared")
        exp, amb = executor_output(program, facts, res.outputs, o["binding"], elems)
        if amb:
            notes.append(f"{o['binding']}: written through several aliasing registers; "
                         "the executor keeps them apart, the latest writer is compared")
        d, n = cmp.compare_output(spec, exp, cap.outputs[o["name"]], active, strict)
        diffs += d
        compared += n
    return diffs, compared


def _elements(elems_of: dict, binding: str):
    for k in (binding, binding + "[0]", binding[:-3] if binding.endswith("[0]") else None):
        if k is not None and k in elems_of:
            return elems_of[k]
    return None


def compare_geometry(program, facts, reflection, res, cap, elems_of, strict: bool = False):
    from .capture import strip_primitives
    kind = program.geometry.output_primitive
    diffs: list[cmp.Difference] = []
    compared = 0
    outs = [o for o in reflection["outputs"] if o["name"] in _captured_names(cap)]
    specs = {}
    for o in outs:
        elems = _elements(elems_of, o["binding"])
        if elems is not None:
            specs[o["name"]] = (o, elems, output_spec(program, facts, o, elems))
    for lane, strips in enumerate(res.primitives):
        expected = []
        for strip in strips:
            expected += strip_primitives(strip, kind)
        got = cap.primitives[lane]
        if len(expected) != len(got):
            diffs.append(cmp.Difference("primitives", lane, None, None, None, kind="primitives",
                                        detail=f"executor emits {len(expected)} primitives, "
                                        f"implementation {len(got)}"))
            continue
        for pe, pg in zip(expected, got):
            for ve, vg in zip(pe, pg):
                for name, (o, elems, spec) in specs.items():
                    # executor vertex: {register: words}; pick the alias like for vertex outputs
                    outs_1 = {r: (np.asarray(ve[r])[None]) for r, _ in elems if r in ve}
                    if not outs_1:
                        continue
                    el = [(r, e) for r, e in elems if r in ve]
                    e_words, _ = executor_output(program, facts, outs_1, o["binding"], el)
                    d, n = cmp.compare_output(spec, e_words, np.asarray(vg[name])[None],
                                              np.ones(1, bool), strict)
                    for x in d:
                        x.lane = lane
                    diffs += d
                    compared += n
    return diffs, compared


def _captured_names(cap) -> set[str]:
    for prims in cap.primitives or []:
        for p in prims:
            return set(p[0].keys())
    return set()
