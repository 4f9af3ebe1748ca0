"""``xlate verify`` of tessellation programs: the verifier's run for TESS_EVAL and TESS_CTRL
programs over the harnesses of :mod:`gl_tess` (where its docstrings say what is compared and
why).  Part of the verifier's run (:mod:`core`), whose helpers it calls."""
from __future__ import annotations

import numpy as np

from ..ir.model import Program, Stage
from . import glapi as G
from .gl_tess import INNER, OUTER, PATCHES, TessLanes, run_tess_eval
from .output_compare import compare_all, diff_key, diff_words, same_capture
from .draw_run import DrawRun, MAX_STEPS, gl_interface, run_executor, run_gl, runner_profile
from .direct_check import chosen_direct_module, judge_direct_departures, same_value_by_glsl


def builtin_values(program: Program, V: int):
    """Generated-input hook (:func:`xlate.verify.inputs.generate`): the values the harness
    dictates per patch -- the tess levels, the patch number, the patch size; tess.coord is
    replaced per captured vertex."""

    def values(key: str, n: int):
        path = key.split("[")[0]
        out = np.zeros((n, 4), np.uint32)
        if path == "primitive.tessouter":
            out[:] = np.array(OUTER, np.float32).view(np.uint32)
            return out
        if path == "primitive.tessinner":
            out[:, :2] = np.array(INNER, np.float32).view(np.uint32)
            return out
        if path == "primitive.id":
            out[:, 0] = np.arange(n, dtype=np.uint32)
            return out
        if path == "primitive.verticesin":
            out[:, 0] = V
            return out
        if path in ("tess.coord", "primitive.invocation"):
            return out
        return None

    return values


def scalar_point_sizes(gen) -> None:
    """gl_PointSize carries one float: a generated ``vertex.pointsize`` input keeps its x
    (its y..w are what the translation reads them as, 0: backends/interface.py)."""
    for key, v in gen.inputs.items():
        if key.split("[")[0] == "vertex.pointsize":
            v = np.array(v, np.uint32)
            v[..., 1:] = 0
            gen.inputs[key] = v


def expand_inputs(gen_inputs: dict[str, np.ndarray], prim: np.ndarray, coord: np.ndarray,
                  patches: int) -> dict[str, np.ndarray]:
    """The executor's inputs, one lane per captured vertex: its patch's values and its own
    tess coordinate."""
    out = {}
    for key, v in gen_inputs.items():
        v = np.asarray(v)
        if key.split("[")[0] == "tess.coord":
            out[key] = coord
        elif v.shape[0] == patches:
            out[key] = v[prim]
        else:
            out[key] = v
    return out


def chosen_module(program: Program, runner, via: str, rep):
    """Which module of the program a tessellation run uses: the direct SPIR-V path's maker on
    gl-spirv and vulkan unless ``via`` is "glsl" (None: glslang's compile of the GLSL
    translation; False: ``rep`` is unsupported -- ``via`` "direct" and the path does not
    cover the program), as :func:`chosen_direct_module` decides for draws."""
    if getattr(runner, "backend", None) not in ("gl-spirv", "vulkan") or via == "glsl":
        return None
    return chosen_direct_module(program, runner_profile(runner), via, rep)


def verify_tess_eval(program: Program, rep, facts, glsl: str, reflection: dict, runner, *,
                     seed: int, max_reported: int, via: str = "auto") -> None:
    """``xlate verify`` of a TESS_EVAL program: fills ``rep`` (status, differences).  A first
    run finds the tessellator's vertices; they are the lanes of the rest, which is the
    verifier's usual run (:func:`xlate.verify.core._explain` included: its probes run through
    :func:`run_lanes`).  On gl-spirv and vulkan the direct SPIR-V path's module runs
    (:func:`chosen_module`; ``via`` as core's), cross-checked with glslang's where it differs
    from the executor."""
    from dataclasses import replace
    from .inputs import generate
    assert program.stage == Stage.TESS_EVAL
    backend = getattr(runner, "backend", None)
    if backend not in ("gl", "gl-spirv", "vulkan"):
        raise G.GLUnavailable("tessellation evaluation programs are verified on the gl, "
                              "gl-spirv and vulkan backends only")
    if runner_profile(runner) != ("vulkan" if backend == "vulkan" else "glsl450"):
        raise G.GLUnavailable("tessellation programs are verified in the glsl450 profile only "
                              "(the harness control shader is GLSL 4.50 with explicit locations)")
    direct = chosen_module(program, runner, via, rep)
    if direct is False:
        return
    V = program.tessellation.patch_vertices
    P = PATCHES
    gen = generate(program, facts, P, seed, builtin_values=builtin_values(program, V))
    scalar_point_sizes(gen)
    if facts.uses_textures:
        from .textures import generate_textures, shadow_units
        gen.textures = generate_textures(program, seed)
        gen.shadow = shadow_units(program)
    inputs, uniforms, buffers = gl_interface(reflection, gen, P)
    _, prim, coord = run_tess_eval(runner, glsl, reflection, P, V, inputs, uniforms, buffers,
                                   gen.textures, gen.shadow, direct)
    n = len(prim)
    rep.lanes = n
    if n == 0:
        rep.status, rep.reason = "mismatch", "the tessellator made no vertex (nothing captured)"
        return
    bad = (prim < 0) | (prim >= P)
    missing = sorted(set(range(P)) - set(prim[~bad].tolist()))
    if bad.any() or missing:
        rep.status = "mismatch"
        rep.reason = (f"captured vertices name no drawn patch ({int(bad.sum())})" if bad.any()
                      else f"patches without any vertex: {missing[:8]}")
        return
    lanes_gen = replace(gen, lanes=n, inputs=expand_inputs(gen.inputs, prim, coord, P))
    runner.tess_context = TessLanes(P, V, prim, coord)
    try:
        res = run_executor(program, lanes_gen, n)
        if res.steps_exceeded.any():
            rep.status, rep.reason = "skipped", f"lanes exceed {MAX_STEPS} steps"
            return
        rep.notes.append(f"{P} patches of {V} vertices, levels outer {OUTER} inner {INNER}: "
                         f"{n} captured vertices compared one by one, matched by patch and "
                         "gl_TessCoord")
        cap = run_gl(runner, program, glsl, reflection, lanes_gen, n, direct)
        diffs, compared = compare_all(program, facts, reflection, res, cap, rep.notes,
                                           strict=True)
        if diffs and direct is not None:
            # the two translations check each other, as core._verify_program does: the replay
            # explains glslang's module (its probes are the GLSL translation's); the direct
            # module's differences must be glslang's too, or the same value by GLSL 4.7.1
            cap2 = run_gl(runner, program, glsl, reflection, lanes_gen, n)
            diffs2, _ = compare_all(program, facts, reflection, res, cap2, [], strict=True)
            if judge_direct_departures(rep, diffs, diffs2, max_reported):
                rep.compared = compared
                return
            rep.notes.append("the direct SPIR-V's outputs differ from the executor's only "
                             "where glslang's SPIR-V's do (or by the sign of a zero / a NaN's "
                             "payload): explained through the GLSL translation")
            cap, diffs = cap2, diffs2
        rep.compared = compared
        rep.total_differences = len(diffs)
        rep.differences = diffs[:max_reported]
        _settle(rep, program, facts, glsl, reflection, n, runner,
                DrawRun(lanes_gen, res, cap, diffs, compared), max_reported)
    finally:
        runner.tess_context = None


def _same_words(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Equal words, or two zeros of either sign, or two NaNs (float words)."""
    a, b = np.asarray(a, np.uint32), np.asarray(b, np.uint32)
    zero = ((a & 0x7FFFFFFF) == 0) & ((b & 0x7FFFFFFF) == 0)
    nan = ((a & 0x7F800000) == 0x7F800000) & ((a & 0x7FFFFF) != 0) & \
        ((b & 0x7F800000) == 0x7F800000) & ((b & 0x7FFFFF) != 0)
    return (a == b) | zero | nan


def combination_differences(program: Program, cap, outputs: list[dict], patches: int,
                            n: int) -> list:
    """The per-patch outputs as the implementation combined its invocations' writes, against
    the combination of its own invocations' values (exec/tess.py's rule: a component written
    by no invocation, or by several with different values, is undefined and not compared).
    A difference is the translation's store of per-patch outputs going wrong."""
    from . import compare as cmp
    written = program.tessellation.written
    by_binding = {o["binding"]: o["name"] for o in outputs}
    integer = {o["binding"] for o in outputs
               if str(o.get("type", "")).startswith(("int", "uint", "ivec", "uvec"))}
    diffs = []
    for binding, got in cap.patch.items():
        j = written.get(binding)
        if j is None:
            continue
        # an integer's words exactly: small negative integers have a float NaN's bits
        same = np.equal if binding in integer else _same_words
        vals = cap.outputs[by_binding[binding]].reshape(patches, n, 4)
        wrote = cap.outputs[f"xv_written{j}"].reshape(patches, n, 4) != 0
        first = np.argmax(wrote, axis=1)
        value = np.take_along_axis(vals, first[:, None, :], axis=1)[:, 0]
        agree = np.all(~wrote | same(vals, value[:, None, :]), axis=1)
        defined = wrote.any(axis=1) & agree
        if binding == "result.tessinner":
            defined[:, 2:] = False
        bad = defined & ~same(np.asarray(value, np.uint32), np.asarray(got, np.uint32))
        for p, c in zip(*np.nonzero(bad)):
            diffs.append(cmp.Difference(f"{binding} (patch)", int(p), int(c), int(value[p, c]),
                                        int(got[p, c]), detail="the invocations' writes, "
                                        "combined, against what the patch holds"))
    return diffs


def verify_tess_ctrl(program: Program, rep, facts, glsl: str, reflection: dict, runner, *,
                     seed: int, max_reported: int, via: str = "auto") -> None:
    """``xlate verify`` of a TESS_CTRL program: the verifier's run over lanes that are the
    patches' invocations (:mod:`gl_tcs`), replay included, plus the check of the per-patch
    combination (:func:`combination_differences`).  On the ``gl-spirv`` and ``vulkan``
    backends the direct SPIR-V path's module runs (:func:`chosen_module`; ``via`` as core's:
    ``auto`` falls back to glslang's module of ``glsl`` where the direct path does not cover
    the program, ``glsl`` always runs that)."""
    from dataclasses import replace
    from .gl_tcs import CONTROL_PATCHES, TcsLanes, lane_outputs
    from .inputs import generate
    assert program.stage == Stage.TESS_CTRL
    backend = getattr(runner, "backend", None)
    if backend not in ("gl", "gl-spirv", "vulkan"):
        raise G.GLUnavailable("tessellation control programs are verified on the gl, gl-spirv "
                              "and vulkan backends only")
    if runner_profile(runner) != ("vulkan" if backend == "vulkan" else "glsl450"):
        raise G.GLUnavailable("tessellation programs are verified in the glsl450 profile only "
                              "(the harness edits GLSL 4.50 with explicit locations)")
    direct = chosen_module(program, runner, via, rep)
    if direct is False:
        return
    tess = program.tessellation
    V, n, P = tess.patch_vertices, tess.vertices_out, CONTROL_PATCHES
    lanes = P * n
    gen = generate(program, facts, P, seed, builtin_values=builtin_values(program, V))
    scalar_point_sizes(gen)
    if facts.uses_textures:
        from .textures import generate_textures, shadow_units
        gen.textures = generate_textures(program, seed)
        gen.shadow = shadow_units(program)
    patch_of = np.repeat(np.arange(P), n)
    inputs = {k: np.asarray(v)[patch_of] if np.asarray(v).shape[:1] == (P,) else v
              for k, v in gen.inputs.items()}
    specials = {"primitive.invocation": np.tile(np.arange(n), P), "primitive.id": patch_of,
                "primitive.verticesin": np.full(lanes, V)}
    builtin = set(gen.builtin)
    for key in list(inputs):
        path = key.split("[")[0]
        if path in specials:
            words = np.zeros((lanes, 4), np.uint32)
            words[:, 0] = specials[path]
            inputs[key] = words
            builtin.add(key)
    lanes_gen = replace(gen, lanes=lanes, inputs=inputs, builtin=builtin)
    outputs = lane_outputs(reflection, tess.written)
    lane_reflection = dict(reflection, outputs=outputs)
    runner.tess_context = TcsLanes(P, V, n)
    runner.tess_written = tess.written
    try:
        res = run_executor(program, lanes_gen, lanes)
        if res.steps_exceeded.any():
            rep.status, rep.reason = "skipped", f"invocations exceed {MAX_STEPS} steps"
            return
        rep.lanes = lanes
        rep.notes.append(f"{P} patches of {V} input vertices, {n} invocations each: each "
                         "invocation's outputs compared, then each patch's per-patch outputs "
                         "against its invocations' writes")
        cap = run_gl(runner, program, glsl, reflection, lanes_gen, lanes, direct)
        diffs, compared = compare_all(program, facts, lane_reflection, res, cap,
                                           rep.notes, strict=True)
        combined = combination_differences(program, cap, outputs, P, n)
        if (diffs or combined) and direct is not None:
            # the two translations check each other, as core._verify_program does: the replay
            # explains glslang's module (its probes are the GLSL translation's); the direct
            # module's differences must be glslang's too, or the same value by GLSL 4.7.1
            cap2 = run_gl(runner, program, glsl, reflection, lanes_gen, lanes)
            diffs2, _ = compare_all(program, facts, lane_reflection, res, cap2, [],
                                         strict=True)
            combined2 = combination_differences(program, cap2, outputs, P, n)
            own = diff_words(diffs2)
            apart = [d for d in diffs if own.get(diff_key(d), object()) != d.got
                     and not same_value_by_glsl(d)]
            patch_apart = any(not np.array_equal(cap.patch[b], cap2.patch[b]) for b in cap.patch)
            if apart or (combined and patch_apart):
                rep.status = "mismatch"
                rep.reason = ("the direct SPIR-V departs from the executor where glslang's "
                              f"SPIR-V does not ({len(apart) + len(combined)} components; "
                              "nothing replays the direct module)")
                rep.total_differences = len(diffs) + len(combined)
                rep.differences = (combined + apart)[:max_reported]
                return
            same = same_capture(cap, cap2) and not patch_apart
            rep.notes.append("the direct SPIR-V's outputs are bit-identical to glslang's "
                             "SPIR-V's on these inputs: differences explained through the GLSL "
                             "translation" if same else "the direct SPIR-V's outputs differ "
                             "from glslang's SPIR-V's only where both depart from the executor "
                             "or by the sign of a zero / a NaN's payload: explained through "
                             "the GLSL translation")
            cap, diffs, combined = cap2, diffs2, combined2
        rep.compared = compared
        rep.total_differences = len(diffs) + len(combined)
        rep.differences = (combined + diffs)[:max_reported]
        if combined:
            rep.status = "mismatch"
            rep.reason = (f"{len(combined)} per-patch output components differ from the "
                          "combination of the invocations' writes (the translation's store)")
            return
        _settle(rep, program, facts, glsl, lane_reflection, lanes, runner,
                DrawRun(lanes_gen, res, cap, diffs, compared), max_reported)
    finally:
        runner.tess_context = None
        runner.tess_written = None


def _settle(rep, program, facts, glsl, reflection, lanes, runner, run, max_reported) -> None:
    """The verdict of a compared run: pass without differences, else a mismatch whose
    differences the replay explains where a run shows the cause (``core._explain``)."""
    from . import core              # (imported late: core imports this module)
    if not run.diffs:
        rep.status = "pass"
        return
    rep.status = "mismatch"
    core._note_inputs(rep, run.gen, run.diffs)
    core._explain(program, facts, glsl, reflection, lanes, runner, rep, run, max_reported)

