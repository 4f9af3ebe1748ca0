"""Naming the first instruction whose value diverges, by instrumenting both sides.

When an output differs, the IR is *instrumented*: after instruction ``k`` a probe
``MOV.F xv_probe, <destination element of k>`` copies the words just written into an extra
output register (``result.attrib[n]`` in vertex/geometry programs, a free ``result.color[n]``
in fragment programs).  A float move is a bit copy on both sides (the backend bitcasts
integer-typed registers; no arithmetic, so nothing is flushed), and it leaves the backend's
register typing unchanged for float registers.  The
same instrumented IR runs in the executor and, translated by the normal GLSL backend, on the
implementation; a probe holds the value of the *last* execution of its instruction (zero if it
never ran).  Probes go in batches over every writing instruction in program order; the first
probe that differs on the mismatching lane names the instruction.  A second run probes that
instruction's source registers just before it, so the report shows its operands on both sides.

Verdicts:

* ``divergence``: an instruction whose operands agree computes different results -- a bug in
  the executor or in the translation of that instruction;
* ``ftz``: the first divergence involves a denormal operand (or a result so small that an
  intermediate product was denormal): llvmpipe flushes denormals, the executor does not;
* ``nonfinite``: the first divergence computes with NaN or Inf: GLSL does not require IEEE
  NaN/Inf behaviour, and Mesa folds for instance ``x * 0.0`` to ``0.0`` even for
  ``precise`` values (the executor follows IEEE: NaN);
* ``undefined``: the first divergence is an instruction whose operands make its result
  undefined by NV_gpu_program4 (integer MOD of a negative value or by a divisor <= 0, integer
  DIV by zero, shifts by a negative count or 32 or more);
* ``range``: the first divergence is SIN/COS/SCS of an operand beyond 2^23 in magnitude,
  where llvmpipe's range reduction fails (GLSL sets no precision for sin/cos);
* ``tolerance``: the first difference is an approximate opcode (:data:`compare.INEXACT`)
  within its tolerance, and later instructions amplified it (cancellation, a comparison that
  flipped, a loop count ...);
* ``operands``: the operands already differ although no earlier probe did (a register read
  through an interface, a relative index, state outside the probed values);
* ``interface``: no probe differs, only the output: the difference arises where results are
  written out (aliasing, output staging) -- or the probes themselves changed how the
  implementation compiled the code (see ``precise``);
* ``precise`` (set by :mod:`core`): every difference disappears when the harness declares
  the GLSL variables ``precise``: the implementation reassociated or contracted IEEE operations
  the executor rounds one by one.
"""
from __future__ import annotations

import copy
import numpy as np

from ..ir.model import (Binding, DataType, Dest, Instruction, Program, Register, RegKind, Source,
                        Stage)
from ..ir.ops import OPCODES
from . import compare as cmp

BATCH = {Stage.VERTEX: 8, Stage.FRAGMENT: 6, Stage.GEOMETRY: 4}
F32_MIN_NORMAL = 1.1754943508222875e-38


def _free_slots(program: Program, n: int) -> list[Binding]:
    """Output bindings for ``n`` probes.  Vertex/geometry: a generic path no output of the
    program uses (an integer-typed OUTPUT makes its whole path integer storage, and the
    backend declares such non-fragment outputs vec4: the probe would be converted)."""
    used = set()
    paths_int = set()
    for reg in program.registers.values():
        if reg.kind == RegKind.OUTPUT:
            for b in reg.bindings:
                if b is not None:
                    used.add((b.path, b.index))
                    if reg.dtype in (DataType.INT, DataType.UINT):
                        paths_int.add(b.path)
    if program.stage == Stage.FRAGMENT:
        return [Binding("result.color", i) for i in range(7)
                if ("result.color", i) not in used
                and not (i == 0 and ("result.color", None) in used)][:n]
    for path, count in (("result.attrib", 16), ("result.texcoord", 8)):
        if path in paths_int:
            continue
        cand = [Binding(path, i) for i in range(count) if (path, i) not in used]
        if len(cand) >= n:
            return cand[:n]
    return []


def instrument(program: Program, probes: list[tuple[int, Source, str]]) -> tuple[Program, list[str]]:
    """A copy of ``program`` with ``MOV.U`` probes.

    ``probes``: (position, source operand to copy, "after" | "before") -- the probe goes just
    after (or before) instruction ``position``.  Returns the program and the probe register
    names (in the order given)."""
    prog = copy.copy(program)
    prog.registers = dict(program.registers)
    prog.instructions = list(program.instructions)
    prog.labels = dict(program.labels)
    slots = _free_slots(program, len(probes))
    if len(slots) < len(probes):
        raise RuntimeError("no free output slots for probes")
    names = []
    inserts = []
    for j, ((pos, src, where), b) in enumerate(zip(probes, slots)):
        name = f"xv_probe{j}"
        prog.registers[name] = Register(
            name=name, kind=RegKind.OUTPUT, dtype=DataType.NONE, bindings=(b,), implicit=True)
        ins = Instruction("MOV", DataType.FLOAT, Dest(name), (src,),
                          text=f"MOV.F {name}  # probe")
        inserts.append((pos + 1 if where == "after" else pos, j, ins))
        names.append(name)
    # insert from the back so positions stay valid; labels/entry at or after the insertion
    # point move with the instruction they name (a probe "before" k runs before k even when
    # k is a branch target; a probe "after" k must not run when something jumps to k + 1)
    for at, j, ins in sorted(inserts, key=lambda t: (-t[0], -t[1])):
        before = any(p[2] == "before" and p[0] == at for p in probes)
        prog.instructions.insert(at, ins)
        for lab, idx in list(prog.labels.items()):
            if idx > at or (idx == at and not before):
                prog.labels[lab] = idx + 1
        if prog.entry > at or (prog.entry == at and not before):
            prog.entry += 1
    return prog, names


def _dest_source(ins: Instruction) -> Source:
    d = ins.dst
    return Source(d.reg, index=d.index)


def _writers(program: Program) -> list[int]:
    out = []
    for i, ins in enumerate(program.instructions):
        if ins.dst is not None and OPCODES[ins.op].writes:
            reg = program.registers.get(ins.dst.reg)
            if reg is not None and reg.kind in (RegKind.TEMP, RegKind.OUTPUT):
                out.append(i)
    return out


def _run_both(program: Program, gen, runner, lanes: int, probes):
    from ..backends.glsl import emit_glsl
    from .core import run_executor, run_gl
    prog, names = instrument(program, probes)
    res = run_executor(prog, gen, lanes)
    out = emit_glsl(prog, "glsl450")
    cap = run_gl(runner, prog, out.source, out.reflection, gen, lanes)
    by_binding = {o["binding"]: o["name"] for o in out.reflection["outputs"]}
    exe, imp = {}, {}
    for name in names:
        b = prog.registers[name].bindings[0].text()
        exe[name] = res.outputs[name]
        if prog.stage == Stage.GEOMETRY:
            imp[name] = None
        else:
            imp[name] = cap.outputs.get(by_binding.get(b))
    if prog.stage == Stage.GEOMETRY:
        # geometry: take the last emitted vertex of each lane on both sides
        exe2, imp2 = {}, {}
        for name in names:
            b = prog.registers[name].bindings[0].text()
            gname = by_binding.get(b)
            e = np.zeros((lanes, 4), np.uint32)
            g = np.zeros((lanes, 4), np.uint32)
            for lane in range(lanes):
                strips = res.primitives[lane]
                if strips and strips[-1]:
                    e[lane] = strips[-1][-1][name]
                prims = cap.primitives[lane]
                if prims:
                    g[lane] = prims[-1][-1][gname]
            exe2[name], imp2[name] = e, g
        exe, imp = exe2, imp2
    return names, exe, imp


def _words_differ(ins: Instruction, e: np.ndarray, g: np.ndarray, comps, loose: bool) -> bool:
    from ..passes.types import result_type
    rt = result_type(ins) if ins.dst is not None else DataType.FLOAT
    for c in comps:
        if rt in (DataType.INT, DataType.UINT):
            if e[c] != g[c]:
                return True
        else:
            tol = cmp.INEXACT.get(ins.op, (0, 0.0)) if loose else (0, 0.0)
            if not cmp.float_equal(np.array([e[c]], np.uint32), np.array([g[c]], np.uint32), *tol)[0]:
                return True
    return False


def _fmt_vec(words: np.ndarray) -> list[str]:
    f = np.asarray(words, np.uint32).view(np.float32)
    return [f"{float(x)!r}/0x{int(w):08x}" for x, w in zip(f, np.asarray(words, np.uint32))]


def _is_tiny(words) -> bool:
    f = np.asarray(words, np.uint32).view(np.float32).astype(np.float64)
    with np.errstate(all="ignore"):
        return bool(np.any((f != 0) & (np.abs(f) < 2.0 ** -100)))


#: approximate opcodes whose implementation gives up beyond an operand magnitude
RANGE_LIMIT = {"SIN": 2.0 ** 23, "COS": 2.0 ** 23, "SCS": 2.0 ** 23}


def _max_abs(words) -> float:
    f = np.asarray(words, np.uint32).view(np.float32).astype(np.float64)
    f = f[np.isfinite(f)]
    return float(np.abs(f).max()) if f.size else 0.0


def _operand_ints(ins: Instruction, j: int, words) -> np.ndarray:
    """Operand ``j`` of ``ins`` as the instruction reads it (swizzle, |abs|, negation), int64,
    signed or unsigned per the instruction's type."""
    s = ins.srcs[j]
    w = np.asarray(words, np.uint32)
    vals = []
    for c in s.swizzle:
        v = 0 if c == 4 else 1 if c == 5 else int(w[c])
        vals.append(v)
    a = np.array(vals, np.int64)
    if ins.dtype == DataType.INT:
        a = np.where(a >= 1 << 31, a - (1 << 32), a)
        if s.abs:
            a = np.abs(a)
        if s.neg:
            a = -a
        a = np.where(a >= 1 << 31, a - (1 << 32), a)
    elif s.neg:
        a = (-a) & 0xFFFFFFFF
    return a


def _undefined_case(ins: Instruction, raw: list, comps) -> bool:
    """Operands for which NV_gpu_program4 leaves the result undefined: integer MOD with a
    negative dividend or a divisor <= 0, integer DIV by zero, shifts by a negative count or
    by 32 or more."""
    if ins.op not in ("MOD", "DIV", "SHL", "SHR") or len(raw) < 2:
        return False
    if ins.dtype not in (DataType.INT, DataType.UINT):
        return False
    a = _operand_ints(ins, 0, raw[0])
    b = int(_operand_ints(ins, 1, raw[1])[0])
    if ins.op == "MOD":
        return b <= 0 or bool(np.any(a[comps] < 0))
    if ins.op == "DIV":
        return b == 0
    return b < 0 or b >= 32


def _nonfinite(words) -> bool:
    w = np.asarray(words, np.uint32)
    return bool(np.any((w & 0x7F800000) == 0x7F800000))


def _float_result(ins: Instruction) -> bool:
    from ..passes.types import result_type
    return result_type(ins) == DataType.FLOAT


def _is_denormal(words) -> bool:
    w = np.asarray(words, np.uint32)
    return bool(np.any(((w & 0x7F800000) == 0) & ((w & 0x007FFFFF) != 0)))


def localize(program: Program, facts, gen, diffs, *, runner, lanes: int, reflection=None,
             max_cases: int = 3) -> list[dict]:
    """Localize the first differences (one per distinct output, at most ``max_cases``)."""
    cases = []
    seen = set()
    for d in diffs:
        key = d.output
        if key in seen:
            continue
        seen.add(key)
        cases.append(d)
        if len(cases) >= max_cases:
            break
    writers = _writers(program)
    batch = max(1, min(BATCH[program.stage], len(_free_slots(program, 16))))
    # probe every writer once (values for all lanes), then judge each case on its lane
    exe_all: dict[int, np.ndarray] = {}
    imp_all: dict[int, np.ndarray] = {}
    for start in range(0, len(writers), batch):
        group = writers[start:start + batch]
        probes = [(k, _dest_source(program.instructions[k]), "after") for k in group]
        names, exe, imp = _run_both(program, gen, runner, lanes, probes)
        for k, name in zip(group, names):
            exe_all[k] = exe[name]
            imp_all[k] = imp[name]
    out = []
    for d in cases:
        out.append(_judge(program, gen, runner, lanes, d, writers, exe_all, imp_all))
    return out


def _judge_kill(program, gen, runner, lanes, d) -> dict:
    """A lane one side kills and the other keeps: show every KIL's operands on both sides."""
    lane = d.lane
    report = {"output": "kill", "lane": lane, "detail": d.detail}
    kils = [k for k, ins in enumerate(program.instructions) if ins.op == "KIL" and ins.srcs]
    rows = []
    verdict = "divergence"
    for k in kils[:6]:
        ins = program.instructions[k]
        s = ins.srcs[0]
        try:
            names, exe, imp = _run_both(program, gen, runner, lanes,
                                        [(k, Source(s.reg, index=s.index), "before")])
        except Exception as exc:                 # pragma: no cover - best effort
            rows.append({"instruction": _ins_info(program, k), "error": str(exc)})
            continue
        e, g = exe[names[0]][lane], imp[names[0]][lane]
        if _is_denormal(e):
            verdict = "ftz"
        rows.append({"instruction": _ins_info(program, k), "executor": _fmt_vec(e),
                     "implementation": _fmt_vec(g)})
    if not kils:
        verdict = "divergence"
    report["kills"] = rows
    if rows and "instruction" in rows[0]:
        report["instruction"] = rows[0]["instruction"]
        report["executor"] = rows[0].get("executor", [])
        report["implementation"] = rows[0].get("implementation", [])
    report["verdict"] = verdict
    return report


def _judge(program, gen, runner, lanes, d, writers, exe_all, imp_all) -> dict:
    if d.kind == "kill":
        return _judge_kill(program, gen, runner, lanes, d)
    lane = d.lane if d.lane is not None else 0
    report = {"output": d.output, "lane": lane}
    if d.component is not None:
        report["component"] = "xyzw"[d.component]
    approx = None
    first = None
    for k in writers:
        e, g = exe_all[k][lane], imp_all[k]
        if g is None:
            continue
        g = g[lane]
        ins = program.instructions[k]
        comps = [c for c in range(4) if ins.dst.mask[c]]
        if not _words_differ(ins, e, g, comps, loose=False):
            continue
        if not _words_differ(ins, e, g, comps, loose=True):
            approx = approx if approx is not None else k
            continue
        first = k
        break
    if first is None:
        if approx is not None:
            report.update(verdict="tolerance", instruction=_ins_info(program, approx),
                          executor=_fmt_vec(exe_all[approx][lane]),
                          implementation=_fmt_vec(imp_all[approx][lane][:4]))
        else:
            report["verdict"] = "interface"
            report["detail"] = ("every instruction's result agrees on this lane; the difference "
                                "arises where the outputs are written out")
        return report
    ins = program.instructions[first]
    info = _ins_info(program, first)
    report["instruction"] = info
    report["executor"] = _fmt_vec(exe_all[first][lane])
    report["implementation"] = _fmt_vec(imp_all[first][lane])
    # operands just before the instruction
    ops = {}
    operands_agree = True
    denormal_operand = False
    nonfinite_operand = False
    operand_values = []
    raw_operands = []
    srcs = [(j, s) for j, s in enumerate(ins.srcs)]
    if srcs:
        probes = [(first, Source(s.reg, index=s.index, vertex=s.vertex), "before") for _, s in srcs]
        try:
            names, exe, imp = _run_both(program, gen, runner, lanes, probes)
            for (j, s), name in zip(srcs, names):
                e = exe[name][lane]
                g = imp[name][lane] if imp[name] is not None else None
                raw_operands.append(e)
                ops[f"src{j} {s.reg}"] = {"executor": _fmt_vec(e),
                                          "implementation": _fmt_vec(g) if g is not None else None}
                if g is not None and not np.array_equal(cmp.flush(e), cmp.flush(g)):
                    fe, fg = e.view(np.float32), g.view(np.float32)
                    if not np.all((fe == fg) | (np.isnan(fe) & np.isnan(fg))):
                        operands_agree = False
                from ..passes.types import operand_type
                if operand_type(ins, j) == DataType.FLOAT:
                    operand_values.append(e)
                    denormal_operand |= _is_denormal(e)
                    nonfinite_operand |= _nonfinite(e)
        except Exception as exc:            # pragma: no cover - best effort
            ops["error"] = f"{type(exc).__name__}: {exc}"
    report["operands"] = ops
    e_res, g_res = exe_all[first][lane], imp_all[first][lane]
    comps = [c for c in range(4) if ins.dst.mask[c]]
    fres = _float_result(ins)
    big = any(_max_abs(v) > RANGE_LIMIT.get(ins.op, np.inf) for v in operand_values)
    if _undefined_case(ins, raw_operands, comps):
        report["verdict"] = "undefined"
    elif big:
        report["verdict"] = "range"
    elif denormal_operand or (fres and (_is_tiny(e_res[comps]) or _is_tiny(g_res[comps]))):
        report["verdict"] = "ftz"
    elif nonfinite_operand or (fres and (_nonfinite(e_res[comps]) or _nonfinite(g_res[comps]))):
        report["verdict"] = "nonfinite"
    elif approx is not None:
        report["verdict"] = "tolerance"
        report["approximate_first"] = _ins_info(program, approx)
    elif not operands_agree:
        report["verdict"] = "operands"
    else:
        report["verdict"] = "divergence"
    return report


def _ins_info(program: Program, k: int) -> dict:
    ins = program.instructions[k]
    span = ins.span
    from ..ir.printer import instruction_text
    try:
        text = ins.text.strip() or instruction_text(ins, program)
    except Exception:               # pragma: no cover
        text = ins.text.strip()
    return {"index": k, "op": ins.op, "text": text,
            "line": getattr(span, "line", None) if span is not None else None}


def trace_lane(program: Program, gen, runner, lanes: int, lane: int) -> list[dict]:
    """Every writing instruction's value on one lane, both sides (for reports and debugging)."""
    writers = _writers(program)
    batch = max(1, min(BATCH[program.stage], len(_free_slots(program, 16))))
    rows = []
    for start in range(0, len(writers), batch):
        group = writers[start:start + batch]
        probes = [(k, _dest_source(program.instructions[k]), "after") for k in group]
        names, exe, imp = _run_both(program, gen, runner, lanes, probes)
        for k, name in zip(group, names):
            ins = program.instructions[k]
            e = exe[name][lane]
            g = imp[name][lane] if imp[name] is not None else None
            comps = [c for c in range(4) if ins.dst.mask[c]]
            differs = g is not None and _words_differ(ins, e, g, comps, loose=False)
            rows.append({"instruction": _ins_info(program, k), "executor": _fmt_vec(e),
                         "implementation": _fmt_vec(g) if g is not None else None,
                         "differs": differs,
                         "within_tolerance": differs and not _words_differ(ins, e, g, comps, True)})
    return rows
