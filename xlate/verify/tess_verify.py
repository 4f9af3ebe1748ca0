"""``xlate verify`` of tessellation programs: the verifier's run for TESS_EVAL and TESS_CTRL
programs over the harnesses of :mod:`gl_tess` (where its docstrings say what is compared and
why).  Part of the verifier's run (:mod:`core`), whose helpers it calls."""
from __future__ import annotations

import numpy as np

from ..ir.model import Program, Stage
from . import glapi as G
from .gl_tess import (CONTROL_PATCHES, INNER, OUTER, PATCHES, TessLanes, run_tess_control_gl,
                      run_tess_eval)


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
        if path == "tess.coord":
            return out
        return None

    return values


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


def verify_tess_eval(program: Program, rep, facts, glsl: str, reflection: dict, runner, *,
                     seed: int, max_reported: int) -> None:
    """``xlate verify`` of a TESS_EVAL program: fills ``rep`` (status, differences).  A first
    run finds the tessellator's vertices; they are the lanes of the rest, which is the
    verifier's usual run (:func:`xlate.verify.core._explain` included: its probes run through
    :func:`run_lanes`)."""
    from dataclasses import replace
    from . import core
    from .inputs import generate
    assert program.stage == Stage.TESS_EVAL
    if getattr(runner, "backend", None) != "gl":
        raise G.GLUnavailable("tessellation programs are verified on the gl backend only")
    if core.runner_profile(runner) != "glsl450":
        raise G.GLUnavailable("tessellation programs are verified in the glsl450 profile only "
                              "(the harness control shader is GLSL 4.50 with explicit locations)")
    V = program.tessellation.patch_vertices
    P = PATCHES
    gen = generate(program, facts, P, seed, builtin_values=builtin_values(program, V))
    if facts.uses_textures:
        from .textures import generate_textures, shadow_units
        gen.textures = generate_textures(program, seed)
        gen.shadow = shadow_units(program)
    inputs, uniforms, buffers = core.gl_interface(reflection, gen, P)
    _, prim, coord = run_tess_eval(runner, glsl, reflection, P, V, inputs, uniforms, buffers,
                                   gen.textures, gen.shadow)
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
        res = core.run_executor(program, lanes_gen, n)
        if res.steps_exceeded.any():
            rep.status, rep.reason = "skipped", f"lanes exceed {core.MAX_STEPS} steps"
            return
        rep.notes.append(f"{P} patches of {V} vertices, levels outer {OUTER} inner {INNER}: "
                         f"{n} captured vertices compared one by one, matched by patch and "
                         "gl_TessCoord")
        cap = core.run_gl(runner, program, glsl, reflection, lanes_gen, n)
        diffs, compared = core.compare_all(program, facts, reflection, res, cap, rep.notes,
                                           strict=True)
        rep.compared = compared
        rep.total_differences = len(diffs)
        rep.differences = diffs[:max_reported]
        if not diffs:
            rep.status = "pass"
            return
        rep.status = "mismatch"
        core._note_inputs(rep, lanes_gen, diffs)
        core._explain(program, facts, glsl, reflection, n, runner, rep,
                      core._Run(lanes_gen, res, cap, diffs, compared), max_reported)
    finally:
        runner.tess_context = None


def _same_words(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Equal words, or two zeros of either sign, or two NaNs (float words)."""
    a, b = np.asarray(a, np.uint32), np.asarray(b, np.uint32)
    zero = ((a & 0x7FFFFFFF) == 0) & ((b & 0x7FFFFFFF) == 0)
    nan = ((a & 0x7F800000) == 0x7F800000) & ((a & 0x7FFFFF) != 0) & \
        ((b & 0x7F800000) == 0x7F800000) & ((b & 0x7FFFFF) != 0)
    return (a == b) | zero | nan


def verify_tess_ctrl(program: Program, rep, facts, glsl: str, reflection: dict, runner, *,
                     seed: int, max_reported: int) -> None:
    """``xlate verify`` of a TESS_CTRL program: fills ``rep``."""
    from . import compare as cmp
    from . import core
    from .inputs import generate
    from ..exec.tess import run_tess_control
    assert program.stage == Stage.TESS_CTRL
    if getattr(runner, "backend", None) != "gl":
        raise G.GLUnavailable("tessellation programs are verified on the gl backend only")
    if core.runner_profile(runner) != "glsl450":
        raise G.GLUnavailable("tessellation programs are verified in the glsl450 profile only")
    tess = program.tessellation
    V, n, P = tess.patch_vertices, tess.vertices_out, CONTROL_PATCHES
    gen = generate(program, facts, P, seed, builtin_values=builtin_values(program, V))
    inputs, uniforms, buffers = core.gl_interface(reflection, gen, P)
    seen, got = run_tess_control_gl(runner, glsl, reflection, P, V, n, inputs, uniforms,
                                    buffers)
    own = {k: v for k, v in gen.inputs.items()
           if k.split("[")[0] not in ("primitive.invocation", "primitive.id",
                                      "primitive.verticesin")}
    res = run_tess_control(program, own, P, params=gen.exec_params(program), vertices_in=V,
                           max_steps=core.MAX_STEPS)
    if res.steps_exceeded.any():
        rep.status, rep.reason = "skipped", f"invocations exceed {core.MAX_STEPS} steps"
        return
    rep.lanes = P * n
    diffs = []
    outer = res.patch.get("result.tessouter")
    outer_ok = res.defined.get("result.tessouter")
    compared = 0
    for p in range(P):
        if outer is None or not outer_ok[p, :2].all():
            continue                            # the tessellator's decision is undefined
        lv = outer[p, :2].view(np.float32)
        expect_seen = bool(np.all(lv > 0))      # NaN compares false: discarded too
        if seen[p] != expect_seen:
            diffs.append(cmp.Difference("patch", p, None, None, None, kind="primitives",
                                        detail=f"outer levels {lv.tolist()}: the executor "
                                        f"expects the patch {'kept' if expect_seen else 'discarded'}"
                                        f", the implementation {'kept' if seen[p] else 'discarded'} it"))
            continue
        if not seen[p]:
            continue
        for (what, binding, v), words in got.items():
            if what == "vertex":
                exp = res.vertices[binding][p, v]
                ok = np.ones(4, bool)
                if binding == "result.pointsize":
                    ok = np.array([True, False, False, False])
            else:
                exp = res.patch[binding][p]
                ok = res.defined[binding][p].copy()
                if binding == "result.tessinner":
                    ok[2:] = False
            same = _same_words(exp, words[p])
            compared += int(ok.sum())
            for c in np.nonzero(ok & ~same)[0]:
                name = binding if v is None else f"{binding} of vertex {v}"
                diffs.append(cmp.Difference(name, p, int(c), int(exp[c]), int(words[p][c])))
    rep.notes.append(f"{P} patches of {V} input vertices, {n} invocations each: "
                     f"{int(seen.sum())} patches reached the harness evaluation shader")
    if outer is None:
        rep.status = "unsupported"
        rep.reason = ("the program writes no TESSOUTER: the tessellator's levels are undefined, "
                      "so nothing reaches the harness")
        return
    rep.compared = compared
    rep.total_differences = len(diffs)
    rep.differences = diffs[:max_reported]
    if diffs:
        rep.status = "mismatch"
        rep.reason = "outputs differ (tessellation control: lanes are patches; no localization)"
    elif compared == 0:
        rep.status = "unsupported"
        rep.reason = "no patch had defined outer levels: nothing compared"
    else:
        rep.status = "pass"
