"""One draw on both sides: the generated inputs of the main run (:func:`main_run_inputs`),
the executor's run (:func:`run_executor`), the implementation's (:func:`run_gl`, any runner),
and :class:`DrawHarness`, how the verdict tail re-runs either side of a draw."""
from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass

import numpy as np

from ..ir.model import Program, Stage
from .output_compare import compare_all
from .subgroups import PartitionUnknown, probe_partition, uses_lane_ops
from .inputs import GeneratedInputs, generate


MAX_STEPS = 1 << 16


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


def replace_lanes(gen: GeneratedInputs, bad: np.ndarray, group: int) -> None:
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


#: while a list (:func:`xlate.verify.mutants.mutate_program` sets one), every executor run
#: appends its (program, inputs, lanes): the mutation harness takes the run that preceded the
#: verifier's first draw -- the main run's inputs, whatever the stage arranged as its lanes
#: (tessellation patches' invocations, the tessellator's vertices) -- to find which lanes'
#: outputs depend on an Inf or NaN (mutants.undetermined_lanes)
EXECUTOR_RUNS: ContextVar[list | None] = ContextVar("executor_runs", default=None)


def run_executor(program: Program, gen: GeneratedInputs, lanes: int, hooks=None):
    from ..exec import execute
    runs = EXECUTOR_RUNS.get()
    if runs is not None and hooks is None:
        runs.append((program, gen, lanes))
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


def runner_profile(runner) -> str:
    """The GLSL profile a runner expects translations in (``glsl450`` for GL, ``vulkan``)."""
    return getattr(runner, "profile", "glsl450")


@dataclass
class DrawRun:
    """One run of a draw on both sides: its inputs, the executor's result, the
    implementation's capture, their differences and how many components were compared."""

    gen: GeneratedInputs
    res: object
    cap: object
    diffs: list
    compared: int


class DrawHarness:
    """How the verifier's verdict tail (:func:`core._explain`, :func:`replay.replay`) runs one
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
        replace_lanes(gen, bad, 4 if stage == Stage.FRAGMENT else 1)
        rep.notes.append(f"{int(bad.sum())} lanes exceeded the executor's step limit; their "
                         "inputs were replaced by those of other lanes")
        res = run_executor(program, gen, lanes)
        if res.steps_exceeded.any():
            rep.status, rep.reason = "skipped", f"lanes exceed {MAX_STEPS} steps"
            return None
    return gen, res


def one_run(program, facts, glsl, reflection, lanes, seed, runner, rep, direct=None):
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
    return DrawRun(gen, res, cap, diffs, compared)
