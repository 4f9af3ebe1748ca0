"""Verifying one program on the driver's assembly interface (``xlate verify --backend
native``): run the original text (:mod:`native`) and the executor on the same inputs, compare
the outputs bit for bit, and explain every difference by the replay (:mod:`replay`) with the
implementation's values probed from the instrumented original text (:mod:`native_probe`).

A difference passes only as the translation path's do: the executor, adopting the driver's
value at exactly the instructions where a rule of :mod:`permits` shows the departure
permitted, reproduces every output.  There is no output tolerance: the ARB specifications'
"about 1 part in 10^5" (GL 2.1 §2.1.1) is a rule at the instruction, with a bound from its
operands (``permits.rule_gl_precision``), and llvmpipe's own order of summing a dot product
is shown by recomputing it (``permits.rule_reassociated``).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from .capture import Capture, quad_layout
from .glapi import GLError
from .native import (HarnessLimit, Refused, Runner, TARGETS, HARNESS_HEADERS, WIDTH,
                     _blank_comments, conform_inputs, header, quad_constant)
from .native_probe import ProbeRefused, TextProbe, zero_sign_unobservable
from .native_state import read_state, set_state
from .output_compare import compare_all
from .draw_run import MAX_STEPS, builtin_values_for, replace_lanes, run_executor

#: output binding -> the name compare_all knows its components by (scalar outputs)
SCALAR_NAMES = {"result.depth": "gl_FragDepth", "result.pointsize": "gl_PointSize",
                "result.fogcoord": "xv_fogcoord"}


def output_keys(program) -> list[str]:
    """Canonical text of every output binding of the program (one per bound element)."""
    from ..ir.model import RegKind
    keys = []
    for reg in program.registers.values():
        if reg.kind != RegKind.OUTPUT:
            continue
        for b in reg.bindings:
            if b is not None:
                k = b.text()
                k = "result.color" if k == "result.color[0]" else k
                k = "result.texcoord[0]" if k == "result.texcoord" else k
                if k not in keys:
                    keys.append(k)
    return keys


def reflection_for(keys: list[str]) -> dict:
    """A reflection-like description of the outputs for :func:`compare_all`."""
    outs = []
    for k in keys:
        name = SCALAR_NAMES.get(k, k)
        outs.append({"name": name, "binding": k, "builtin": k in SCALAR_NAMES, "type": "vec4"})
    return {"outputs": outs, "inputs": [], "uniforms": []}


def _fragment_builtins(text: str, lanes: int):
    """builtin_values_for, with the ARB_fragment_coord_* conventions of the program."""
    from ..ir.model import Stage
    from .draw_run import builtin_values_for
    x, y, W, H = quad_layout(lanes, WIDTH)
    blank = _blank_comments(text)
    xf, yf = x.astype(np.float32), y.astype(np.float32)
    if re.search(r"\bARB_fragment_coord_origin_upper_left\b", blank):
        yf = np.float32(H - 1) - yf
    values = builtin_values_for(Stage.FRAGMENT, lanes, (xf, yf))
    if not re.search(r"\bARB_fragment_coord_pixel_center_integer\b", blank):
        return values

    def integer_centres(key, n):
        v = values(key, n)
        if v is not None and key.split("[")[0] == "fragment.position":
            f = v.view(np.float32).copy()
            f[:, :2] -= np.float32(0.5)
            return f.view(np.uint32)
        return v
    return integer_centres


def _unwritten(program, keys) -> set[tuple[str, int]]:
    """(output binding, component) no instruction writes: undefined on the driver (ARBvp
    issue 16; ARBfp issue 7: "If a fragment program does not write a color value ... the final
    fragment color is undefined" -- also when a fog option blends it: the blend the frontend
    adds, instructions without a statement, writes ``result.color`` from the program's colour
    register, which then counts only where a statement wrote it)."""
    from .output_compare import output_elements
    from ..frontends.nv.options import COLOR_TEMP
    elems = output_elements(program)
    out = set()
    for k in keys:
        regs = {r for r, _ in elems.get(k, [])}
        fogged = k == "result.color" and COLOR_TEMP in program.registers
        if fogged:
            regs = {COLOR_TEMP}
        for c in range(4):
            if not any(ins.dst is not None and ins.dst.reg in regs and ins.dst.mask[c]
                       and (ins.span is not None or not fogged)
                       for ins in program.instructions):
                out.add((k, c))
    return out


@dataclass
class _NativeRun:
    gen: object
    res: object
    cap: Capture
    diffs: list
    compared: int


def _run_once(text, program, facts, lanes, seed, runner, rep, keys):
    """Generate inputs, run the executor and the driver, compare bit for bit.  None when
    skipped."""
    from ..ir.model import Stage
    from .inputs import generate
    stage = program.stage
    builtins = _fragment_builtins(text, lanes) if stage == Stage.FRAGMENT else \
        builtin_values_for(stage, lanes)
    gen = generate(program, facts, lanes, seed, builtin_values=builtins)
    if facts.uses_textures:
        from .textures import generate_textures, shadow_units
        gen.textures = generate_textures(program, seed)
        gen.shadow = shadow_units(program)
    conform_inputs(gen.inputs)
    if stage == Stage.FRAGMENT:
        quad_constant(gen.inputs, gen.builtin)
        gen.inputs.update(runner.delivered_fragment_inputs(
            {k: v for k, v in gen.inputs.items() if k not in gen.builtin}, lanes))
    state = [k for k in gen.params if k.startswith("state.")]
    if state:
        set_state(runner, gen.params)
        gen.params.update(read_state(runner, stage.value, state))
    res = run_executor(program, gen, lanes)
    if res.steps_exceeded.any():
        if res.steps_exceeded.all():
            rep.status, rep.reason = "skipped", f"every lane exceeded {MAX_STEPS} steps"
            return None
        replace_lanes(gen, res.steps_exceeded, 4 if stage == Stage.FRAGMENT else 1)
        res = run_executor(program, gen, lanes)
        if res.steps_exceeded.any():
            rep.status, rep.reason = "skipped", f"lanes exceed {MAX_STEPS} steps"
            return None
    inputs = {k: v for k, v in gen.inputs.items() if k not in gen.builtin}
    if stage == Stage.VERTEX:
        got = _run_vertex_outputs(text, runner, lanes, inputs, gen.params, keys,
                                  gen.textures, gen.shadow)
        cap = Capture(outputs={SCALAR_NAMES.get(k, k): v for k, v in got.items()})
        _zero_signs(program, facts, keys, res, cap)
    else:
        cap = runner.run_fragment(text, lanes, inputs, gen.params, keys, gen.textures,
                                  gen.shadow)
        if "result.depth" in cap.outputs:
            cap.outputs["gl_FragDepth"] = cap.outputs.pop("result.depth")
    _undefined_as_executor(program, facts, keys, res, cap)
    notes: list[str] = []
    diffs, compared = compare_all(program, facts, reflection_for(keys), res, cap, notes,
                                       strict=True)
    for n in notes:
        if n not in rep.notes:
            rep.notes.append(n)
    return _NativeRun(gen, res, cap, diffs, compared)


def _run_vertex_outputs(text, runner, lanes, inputs, params, keys, textures=None,
                        shadow=None):
    """The program's outputs.  A program writing all eight texture coordinates leaves none for
    the position the harness moves: then two runs -- one with ``result.texcoord[7]`` sunk into
    a harness temporary (the position takes its place), one with ``result.texcoord[0]`` sunk
    and ``result.texcoord[7]`` written to coordinate 0 instead (:mod:`native_probe`)."""
    from .native_text import NV1_HEADERS, rename_nv1_results, rename_results
    from .native_probe import declare_sink, free_nv1_temporary, sink_nv1_outputs, sink_outputs
    tcs = {k for k in keys if k.startswith("result.texcoord[")}
    if len(tcs) < 8:
        return runner.run_vertex(text, lanes, inputs, params, keys, textures=textures,
                                 shadow=shadow)
    last, first = "result.texcoord[7]", "result.texcoord[0]"
    if header(text) in NV1_HEADERS:
        # NV_vertex_program: the sink is a temporary the text never names (no declarations)
        sink = free_nv1_temporary(text, header(text))

        def sunk(t: str, which: str) -> str:
            n = which[len("result.texcoord["):-1]
            return sink_nv1_outputs(t, _blank_comments(t), sink, {f"TEX{n}"})
        got = runner.run_vertex(sunk(text, last), lanes, inputs, params,
                                [k for k in keys if k != last], textures=textures,
                                shadow=shadow)
        moved = rename_nv1_results(sunk(text, first), {last: first})
        got[last] = runner.run_vertex(moved, lanes, inputs, params, [first],
                                      textures=textures, shadow=shadow)[first]
        return got
    blank = _blank_comments(text)
    got = runner.run_vertex(declare_sink(sink_outputs(text, blank, {last})), lanes, inputs,
                            params, [k for k in keys if k != last], textures=textures,
                            shadow=shadow)
    moved = sink_outputs(text, blank, {first})
    moved = declare_sink(rename_results(moved, {last: first}))
    got[last] = runner.run_vertex(moved, lanes, inputs, params, [first], textures=textures,
                                  shadow=shadow)[first]
    return got


def _zero_signs(program, facts, keys, res, cap) -> None:
    """Vertex outputs reach the harness through the rasterizer, which loses a zero's sign
    (:func:`native_probe.zero_sign_unobservable`): the executor's -0.0 is taken there."""
    from .output_compare import binding_elements, executor_output, output_elements
    elems_of = output_elements(program)
    for key in keys:
        name = SCALAR_NAMES.get(key, key)
        elems = binding_elements(elems_of, key)
        if elems is None or name not in cap.outputs:
            continue
        exp, _ = executor_output(program, facts, res.outputs, key, elems)
        cap.outputs[name] = zero_sign_unobservable(cap.outputs[name], exp)


def _undefined_as_executor(program, facts, keys, res, cap) -> None:
    """Output components no instruction writes are undefined on the driver (ARBvp 2.14.3.4,
    ARBfp 3.11.3.4: result registers start undefined): the capture takes the executor's words
    there, so that neither the first comparison nor the replay's compares them."""
    from .output_compare import binding_elements, executor_output, output_elements
    elems_of = output_elements(program)
    for key, c in sorted(_unwritten(program, keys)):
        name = SCALAR_NAMES.get(key, key)
        elems = binding_elements(elems_of, key)
        if elems is None or name not in cap.outputs:
            continue
        exp, _ = executor_output(program, facts, res.outputs, key, elems)
        cap.outputs[name] = np.array(cap.outputs[name], np.uint32)
        cap.outputs[name][:, c] = exp[:, c]


def verify_program(text: str, program, rep, *, lanes: int, seed: int, runner=None,
                   max_reported: int = 50) -> None:
    """The native pipeline for one parsed program; fills ``rep`` (status, reason, differences,
    the replay's localization) like :func:`core._verify_program` does for translations."""
    from ..ir.model import Stage
    from . import compare as cmp
    from .analysis import analyse
    from .core import _explain, _note_inputs
    from .draw_run import textures_supported
    hdr = header(text)
    if hdr not in TARGETS:
        rep.status, rep.reason = "unsupported", (f"native: no driver interface loads "
                                                 f"{hdr or 'a program without a !! header'}")
        return
    if runner is None:
        runner = Runner()
    try:
        runner.gl.use()
        runner.load(text)
    except Refused as e:
        rep.status, rep.reason = "unsupported", f"driver refuses the program: {e}"
        return
    finally:
        runner._cleanup()
    stage = program.stage
    if hdr not in HARNESS_HEADERS or stage not in (Stage.VERTEX, Stage.FRAGMENT):
        rep.status, rep.reason = "unsupported", (f"native harness: {hdr} programs are loaded "
                                                 "(the driver accepts this one) but not run")
        return
    facts = analyse(program, set(cmp.INEXACT))
    if facts.uses_textures and not textures_supported():
        rep.status, rep.reason = "unsupported", "textures (the executor cannot sample yet)"
        return
    if stage == Stage.FRAGMENT:
        lanes = (lanes + 3) // 4 * 4
    rep.lanes = lanes
    keys = output_keys(program)
    try:
        run = _run_once(text, program, facts, lanes, seed, runner, rep, keys)
    except HarnessLimit as e:
        rep.status, rep.reason = "unsupported", f"native harness: {e}"
        return
    except Refused as e:
        rep.status, rep.reason = "unsupported", (f"driver refuses the harness's interface edit "
                                                 f"of the program: {e}")
        return
    except GLError as e:
        rep.status, rep.reason = "mismatch", f"implementation error: {e}"
        return
    if run is None:
        return
    undefined = _unwritten(program, keys)
    if len(undefined) == 4 * len(keys):
        rep.status, rep.reason = "skipped", ("nothing to compare: the program writes none of "
                                             "its outputs (undefined: ARBvp issue 16, ARBfp "
                                             "issue 7)")
        return
    rep.compared = run.compared
    rep.total_differences = len(run.diffs)
    rep.differences = run.diffs[:max_reported]
    if not run.diffs:
        rep.status = "pass"
        return
    rep.status = "mismatch"
    _note_inputs(rep, run.gen, run.diffs)
    try:
        probe = TextProbe(text, program, keys)
        probe.cap = run.cap
        _explain(program, facts, None, reflection_for(keys), lanes, runner, rep, run,
                 max_reported, probe=probe)
    except (ProbeRefused, HarnessLimit) as e:
        rep.reason = f"outputs differ; not localized: {e}"
    except Refused as e:
        rep.reason = f"outputs differ; not localized: the driver refuses a probed text: {e}"
