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
  intermediate product was denormal, or a denormal intermediate of a dot product, RFL or
  NRM): llvmpipe flushes denormals, the executor does not;
* ``nonfinite``: the first divergence computes with NaN or Inf: GLSL does not require IEEE
  NaN/Inf behaviour, and Mesa folds for instance ``x * 0.0`` to ``0.0`` even for
  ``precise`` values (the executor follows IEEE: NaN);
* ``undefined``: the first divergence is an instruction whose operands make its result
  undefined by NV_gpu_program4 (integer MOD of a negative value or by a divisor <= 0, integer
  DIV by zero, shifts by a negative count or 32 or more, a relative array index out of
  range);
* ``lod``: the first divergence is a fragment texture lookup with derivative-based level of
  detail on a texture where the level matters: GL lets implementations approximate rho and
  lambda (GL 4.5 §8.14.1), and the executor's "llvmpipe" sampling mode does not reproduce
  llvmpipe's per-block LOD selection in every case;
* ``boundary``: the first divergence is a NEAREST-filtered texture lookup whose coordinate
  lies exactly on a texel edge (llvmpipe's texel selection there depends on its code path);
* ``signedzero``: the operands differ only in the sign of a zero, and the instruction tells
  the zeros apart (VP1's total-order SGE/SLT, RCC/RCP/DIV of a zero): GLSL implementations
  fold 0 + x -> x and x * 0 -> +0 (VP1 2.14.1.11 even defines 0*x = +0), the executor is IEEE;
* ``range``: the first divergence is SIN/COS/SCS of an operand beyond 2^23 in magnitude,
  where llvmpipe's range reduction fails (GLSL sets no precision for sin/cos);
* ``tolerance``: the first difference is an approximate opcode (:data:`compare.INEXACT`)
  within its tolerance, and later instructions amplified it (cancellation, a comparison that
  flipped, a loop count ...);
* ``cc``: a condition-code test (IF/BRK/CONT/KIL/conditional write) passes on one side and
  fails on the other although every value computed before agrees: the flags of the last CC
  update (``cc_set_by``) differ -- a bug in the executor's or the translation's flag rules
  (``nonfinite``/``ftz`` instead when that update computed a NaN or a denormal);
* ``implementation``: a departure of the implementation reduced to a strict-xfail test
  (:func:`known_defect`: Mesa's GLSL compiler folding mul-hi of constants wrongly);
* ``operands``: the operands already differ although no earlier probe did.  When the
  instruction may run more than once (a loop body, a backward branch, a subroutine),
  :func:`_refine` probes per pass -- a counter per probe keeps only the value of the n-th
  execution -- and judges the first pass on which some repeated instruction differs.  When
  the differing operands are computed from approximate opcodes the verdict is ``tolerance``
  (each placement of probes is a new compilation, whose approximations may differ), from
  derivatives GLSL leaves undefined ``lod``, and bit patterns that differ only by a flushed
  denormal (an integer moved with MOV.F) ``ftz``.  What remains is a lead to follow;
* ``interface``: no probe differs, only the output: the difference arises where results are
  written out (aliasing, output staging) -- or the probes themselves changed how the
  implementation compiled the code (see ``precise``);
* ``precise`` (set by :mod:`core`): every difference disappears when the harness declares
  the GLSL variables ``precise``: the implementation reassociated or contracted IEEE operations
  the executor rounds one by one.
"""
from __future__ import annotations

import copy
from dataclasses import replace
import numpy as np

from ..ir.model import (Binding, CondTest, DataType, Dest, Instruction, Program, Register,
                        RegKind, Source, Stage)
from ..ir.ops import OPCODES
from ..exec.texture import BASE_TARGET
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
    from ..backends.interface import varying_location
    taken = set()
    for path, index in used:                 # locations in use (TGSI generic varyings included)
        try:
            taken.add(varying_location(path.split(".", 1)[1], index))
        except (KeyError, TypeError, IndexError):
            pass
    for path, count in (("result.attrib", 16), ("result.texcoord", 8)):
        if path in paths_int:
            continue
        cand = [Binding(path, i) for i in range(count) if (path, i) not in used
                and varying_location(path.split(".", 1)[1], i) not in taken]
        if len(cand) >= n:
            return cand[:n]
    return []


def instrument(program: Program, probes: list[tuple]) -> tuple[Program, list[str]]:
    """A copy of ``program`` with probes.

    ``probes``: (position, what, "after" | "before") -- the probe goes just after (or before)
    instruction ``position``.  ``what`` is a :class:`Source` (``MOV.F probe, source``: a bit
    copy of the register element) or a :class:`CondTest` (``MOV.F probe, {0,0,0,0}`` then
    ``MOV.F probe (test), {1,1,1,1}``: 1.0 in each component whose condition-code test
    passes).  Returns the program and the probe register names (in the order given)."""
    prog = copy.copy(program)
    prog.registers = dict(program.registers)
    prog.instructions = list(program.instructions)
    prog.labels = dict(program.labels)
    if prog.geometry is not None and prog.stage == Stage.GEOMETRY:
        # probes are read from the last emitted vertex: capture points, so that every emitted
        # vertex is seen on both sides (a strip that is not completed -- one vertex of a line
        # strip, or a lane that stops early -- is dropped by transform feedback, and the
        # implementation's probes would read as zeros where the executor's strip has them)
        prog.geometry = replace(prog.geometry, output_primitive="POINTS")
    slots = _free_slots(program, len(probes))
    if len(slots) < len(probes):
        raise RuntimeError("no free output slots for probes")
    one = 0x3F800000
    prog.registers["xv_zero"] = Register("xv_zero", RegKind.CONST, DataType.FLOAT,
                                         value=((0, 0, 0, 0),), implicit=True)
    prog.registers["xv_one"] = Register("xv_one", RegKind.CONST, DataType.FLOAT,
                                        value=((one, one, one, one),), implicit=True)
    names = []
    inserts = []
    for j, (probe, b) in enumerate(zip(probes, slots)):
        pos, what, where = probe[:3]
        nth = probe[3] if len(probe) > 3 else None
        name = f"xv_probe{j}"
        prog.registers[name] = Register(
            name=name, kind=RegKind.OUTPUT, dtype=DataType.NONE, bindings=(b,), implicit=True)
        # without ``nth`` the probe register itself takes the value; with it, a scratch
        # register does and _nth_execution keeps it only on the nth pass
        target = name if nth is None else f"xv_val{j}"
        if isinstance(what, CondTest):
            seq = [Instruction("MOV", DataType.FLOAT, Dest(target), (Source("xv_zero"),),
                               text=f"MOV.F {target}, 0  # probe"),
                   Instruction("MOV", DataType.FLOAT, Dest(target, cond=what),
                               (Source("xv_one"),), text=f"MOV.F {target} (test), 1  # probe")]
        else:
            seq = [Instruction("MOV", DataType.FLOAT, Dest(target), (what,),
                               text=f"MOV.F {target}  # probe")]
        if nth is not None:
            seq += _nth_execution(prog, j, nth)
        inserts.append((pos + 1 if where == "after" else pos, j, seq, where))
        names.append(name)
    # insert from the back so positions stay valid; labels/entry at the insertion point stay
    # (a probe "before" k runs before k even when k is a branch target) or move on (a probe
    # "after" k must not run when something jumps to k + 1)
    for at, j, seq, where in sorted(inserts, key=lambda t: (-t[0], -t[1])):
        n = len(seq)
        prog.instructions[at:at] = seq
        before = where == "before"
        for lab, idx in list(prog.labels.items()):
            if idx > at or (idx == at and not before):
                prog.labels[lab] = idx + n
        if prog.entry > at or (prog.entry == at and not before):
            prog.entry += n
    if prog.stage == Stage.GEOMETRY and prog.geometry is not None:
        _emit_at_exit(prog)
    return prog, names


def _emit_at_exit(prog: Program) -> None:
    """Geometry probes are read from the last emitted vertex: an EMIT before every RET of the
    main routine makes that vertex the state at the end of the program on both sides, as for
    the other stages (a lane that returns early would otherwise show, as "last execution",
    the probes of its last real EMIT while the other side went on: tgsi geometry seed 204).
    Output points (see :func:`instrument`) and room for the extra vertices keep every real
    vertex; skipped when the room would exceed GL's output limits (256 vertices, 1024
    components)."""
    subs = sorted({prog.labels[i.label] for i in prog.instructions
                   if i.op == "CAL" and i.label in prog.labels})
    end = next((k for k in subs if k > prog.entry), len(prog.instructions))
    rets = [k for k in range(prog.entry, end) if prog.instructions[k].op == "RET"]
    outputs = sum(r.length for r in prog.registers.values() if r.kind == RegKind.OUTPUT)
    total = prog.geometry.vertices_out + len(rets) + 1
    if not rets or total > 256 or total * 4 * outputs > 1024:
        return
    prog.geometry = replace(prog.geometry, vertices_out=total)
    for at in reversed(rets + ([end] if end == len(prog.instructions) else [])):
        prog.instructions[at:at] = [Instruction("EMIT", text="EMIT  # probe")]
        for lab, idx in list(prog.labels.items()):
            if idx > at:
                prog.labels[lab] = idx + 1
        if prog.entry > at:
            prog.entry += 1


def _nth_execution(prog: Program, j: int, nth: int) -> list[Instruction]:
    """Keep probe ``j``'s value (in ``xv_val{j}``) only on the ``nth`` pass of this lane (``nth``
    0: the probe counts the passes instead):
    a per-lane pass counter and a bitwise select, no condition codes (the program's own CC
    registers stay untouched).  Every scratch register starts at zero on both sides."""
    for name, dtype in ((f"xv_val{j}", DataType.NONE), (f"xv_cnt{j}", DataType.UINT),
                        (f"xv_sel{j}", DataType.UINT), (f"xv_keep{j}", DataType.UINT),
                        (f"xv_acc{j}", DataType.UINT)):
        prog.registers[name] = Register(name, RegKind.TEMP, dtype, implicit=True)
    prog.registers[f"xv_n{j}"] = Register(f"xv_n{j}", RegKind.CONST, DataType.UINT,
                                          value=((nth, nth, nth, nth),), implicit=True)
    prog.registers["xv_uone"] = Register("xv_uone", RegKind.CONST, DataType.UINT,
                                         value=((1, 1, 1, 1),), implicit=True)
    U = DataType.UINT
    val, cnt, sel, keep, acc = (f"xv_val{j}", f"xv_cnt{j}", f"xv_sel{j}", f"xv_keep{j}",
                                f"xv_acc{j}")
    xxxx = (0, 0, 0, 0)

    def ins(op, dst, *srcs):
        return Instruction(op, U, Dest(dst), tuple(srcs), text=f"{op}.U {dst}  # nth probe")
    if nth == 0:                # the number of passes so far, as an unsigned integer
        return [ins("ADD", cnt, Source(cnt), Source("xv_uone")),
                Instruction("MOV", DataType.FLOAT, Dest(f"xv_probe{j}"), (Source(cnt),),
                            text=f"MOV.F xv_probe{j}  # pass count")]
    return [
        ins("ADD", cnt, Source(cnt), Source("xv_uone")),                   # passes so far
        ins("SEQ", sel, Source(cnt, swizzle=xxxx), Source(f"xv_n{j}")),    # ~0 on the nth
        ins("AND", keep, Source(val), Source(sel)),
        ins("NOT", sel, Source(sel)),
        ins("AND", acc, Source(acc), Source(sel)),
        ins("OR", acc, Source(acc), Source(keep)),
        Instruction("MOV", DataType.FLOAT, Dest(f"xv_probe{j}"), (Source(acc),),
                    text=f"MOV.F xv_probe{j}  # nth probe"),
    ]


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
    from .core import run_executor, run_gl, runner_profile
    prog, names = instrument(program, probes)
    res = run_executor(prog, gen, lanes)
    out = emit_glsl(prog, runner_profile(runner))
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


def _undefined_derivatives(program: Program) -> set[int]:
    """Instructions taking derivatives GLSL leaves undefined (DDX/DDY or an implicit-LOD
    lookup): inside IF/REP/SWITCH blocks, where the fragments of a quad may diverge, or after a
    KIL -- GLSL 4.50 §6.4: after a non-uniform ``discard`` "subsequent implicit or explicit
    derivatives are undefined", while the assembly models (NV kill mask, tgsi_exec) keep killed
    fragments running for their neighbours' derivatives."""
    out: set[int] = set()
    if program.stage != Stage.FRAGMENT:
        return out
    depth = 0
    killed = False
    for k, ins in enumerate(program.instructions):
        if ins.op in ("IF", "REP", "SWITCH"):
            depth += 1
        elif ins.op in ("ENDIF", "ENDREP", "ENDSWITCH"):
            depth = max(0, depth - 1)
        elif ins.op == "KIL":
            killed = True
        elif (depth or killed) and (ins.op in ("DDX", "DDY") or
                                    (ins.tex is not None and ins.op in ("TEX", "TXB", "TXP"))):
            out.add(k)
    return out


def _derivatives_in_flow(program: Program) -> bool:
    """Whether the program takes derivatives GLSL leaves undefined (see above)."""
    return bool(_undefined_derivatives(program))


def _depends_on(program: Program, operands, ops) -> bool:
    """Whether a differing operand (register, components) may depend on one of ``ops``
    (the flow-insensitive data-flow of :mod:`analysis`)."""
    from .analysis import analyse
    deps = analyse(program, set(ops)).deps
    return any(("op", op) in deps.get((reg, int(c)), ())
               for reg, comps in operands for c in comps for op in ops)


def _from_derivatives(program: Program, operands) -> bool:
    """A differing operand computed from a derivative: DDX/DDY or an implicit-LOD lookup."""
    return _depends_on(program, operands, ("DDX", "DDY", "TEX", "TXB", "TXP"))


def _implicit_lod(program: Program, ins: Instruction, gen) -> bool:
    """A fragment lookup whose level of detail comes from derivatives, on a texture where
    the LOD matters (mipmaps, or different minification and magnification filters)."""
    if ins.tex is None or ins.op not in ("TEX", "TXB", "TXP", "TXD"):
        return False
    if ins.op != "TXD" and program.stage != Stage.FRAGMENT:
        return False
    tex = getattr(gen, "textures", {}).get(ins.tex.unit)
    if tex is None:
        return False
    minf = str(tex.filter).upper()
    magf = str(tex.mag_filter or ("LINEAR" if minf.startswith("LINEAR") else "NEAREST")).upper()
    return "MIPMAP" in minf or not minf.startswith(magf)


def _texel_boundary(ins: Instruction, raw: list, gen) -> bool:
    """A NEAREST-filtered lookup whose coordinate lies exactly on a texel edge of some level:
    which texel is selected depends on the implementation's coordinate arithmetic (llvmpipe
    picks the lower texel in some paths, the upper one in others)."""
    if ins.op not in ("TEX", "TXB", "TXP", "TXL", "TXD") or not raw or ins.tex is None:
        return False
    tex = getattr(gen, "textures", {}).get(ins.tex.unit)
    if tex is None:
        return False
    filters = (str(tex.filter).upper(), str(tex.mag_filter or tex.filter).upper())
    if not any(f.startswith("NEAREST") for f in filters):
        return False
    c = raw[0].view(np.float32)
    sw = ins.srcs[0].swizzle
    coord = np.array([c[sw[i]] if sw[i] < 4 else float(sw[i] == 5) for i in range(4)], np.float64)
    if ins.srcs[0].neg:
        coord = -coord
    if ins.op == "TXP" and coord[3] != 0:
        coord = coord / coord[3]
    target = ins.tex.target.replace("SHADOW", "")
    if target == "CUBE":
        # a direction on a face edge (two largest magnitudes equal: the face is the
        # implementation's choice, GL 4.5 §8.13) or a face coordinate on a texel edge: with
        # seamless filtering llvmpipe's NEAREST may take the texel across the face edge
        from ..exec.texture import _cube_project, _cube_select
        v = coord[:3].astype(np.float32)
        if not np.all(np.isfinite(v)):
            return False
        mags = np.sort(np.abs(v))
        if mags[2] == mags[1]:
            return True
        face = _cube_select(v[None, 0], v[None, 1], v[None, 2])
        sc, tc, ma = _cube_project(v[None, :], face)
        st = (np.array([sc[0], tc[0]], np.float64) / float(ma[0]) + 1.0) / 2.0
        for lv in tex.levels:
            n = np.asarray(lv).shape[-2]
            u = st * n
            if np.any(np.isfinite(u) & (u == np.floor(u))):
                return True
        return False
    dims = {"1D": 1, "ARRAY1D": 1, "2D": 2, "RECT": 2, "ARRAY2D": 2, "3D": 3}.get(target, 0)
    for lv in tex.levels:
        shape = np.asarray(lv).shape[:-1]
        sizes = list(reversed(shape))[:dims] if target != "RECT" else [1] * dims
        for i, n in enumerate(sizes):
            u = coord[i] * n
            if np.isfinite(u) and u == np.floor(u):
                return True
    return False


def _relative_uses(program: Program, ins: Instruction):
    """(operand, Index, array length) of every relatively addressed operand/destination."""
    out = []
    for s in ins.srcs:
        for idx, size in ((s.index, program.registers[s.reg].length),
                          (s.vertex, program.geometry.input_vertices if program.geometry else 1)):
            if idx is not None and idx.relative:
                out.append((s, idx, size))
    if ins.dst is not None and ins.dst.index is not None and ins.dst.index.relative:
        out.append((None, ins.dst.index, program.registers[ins.dst.reg].length))
    return out


def _pow_of_nonpositive(ins: Instruction, raw: list) -> bool:
    """POW (and LIT's power) of a base <= 0: exp2(b * log2(a)) goes through -Inf/NaN, which
    GLSL leaves undefined (log2(x <= 0)); also lookups whose coordinates become non-finite
    (TXP with q = 0, a cube map lookup with a zero direction)."""
    if not raw:
        return False
    if ins.op == "POW":
        v = raw[0].view(np.float32)[ins.srcs[0].swizzle[0] % 4]
        if ins.srcs[0].neg:
            v = -v
        return bool(v <= 0 or np.isnan(v))
    if ins.op in ("LIT", "LITNC"):
        v = raw[0].view(np.float32)[ins.srcs[0].swizzle[1] % 4]
        return bool(v <= 0 or np.isnan(v))
    if ins.op in ("TEX", "TXB", "TXL", "TXP", "TXD") and ins.tex is not None and \
            ins.tex.target.replace("SHADOW", "") == "CUBE":
        # a zero direction: the face coordinates sc/|ma| are 0/0 (GL 4.5 §8.13), NaN
        v = _loaded(ins, 0, raw[0])[:3]
        if np.all(v == 0):
            return True
    if ins.op == "TXP":
        # the projected coordinates s/q, t/q, r/q: infinite or NaN for q = 0 (a finite
        # operand, a non-finite lookup: GL 4.5 §8.14.2 wraps coordinates with fract/clamp,
        # which are not IEEE-defined for Inf in GLSL §4.7.1)
        src = ins.srcs[0]
        v = raw[0].view(np.float32)[[c % 4 for c in src.swizzle]].astype(np.float64)
        if src.abs:
            v = np.abs(v)
        if src.neg:
            v = -v
        with np.errstate(divide="ignore", invalid="ignore"):
            return bool(not np.all(np.isfinite((v[:3] / v[3]).astype(np.float32))))
    return False


def _loaded(ins: Instruction, j: int, raw) -> np.ndarray:
    """Operand ``j`` as the instruction reads it (swizzle with the 0/1 selectors, |x|, -x), as
    float32, from the probed register words."""
    src = ins.srcs[j]
    w = np.asarray(raw, np.uint32).view(np.float32)
    v = np.array([w[c] if c < 4 else np.float32(c == 5) for c in src.swizzle], np.float32)
    if src.abs:
        v = np.abs(v)
    if src.neg:
        v = -v
    return np.where(np.array(src.comp_neg, bool), -v, v) if any(src.comp_neg) else v


def _denormal_intermediate(ins: Instruction, raw: list) -> bool:
    """An intermediate of a multi-step opcode that is denormal although operands and result are
    not (llvmpipe flushes it: GP4 issue 18 allows that): a product of a dot product, RFL's
    2*dot(a,b)/dot(a,a) or NRM's scale (tgsi vertex / NV4 vertex seed 1012: a huge axis makes
    RFL's ratio 6.8e-41)."""
    dots = {"DP2": 2, "DP2A": 2, "DP3": 3, "DP4": 4, "DPH": 3, "RFL": 3, "NRM": 3}
    if ins.op not in dots or len(raw) < len(ins.srcs) or not raw:
        return False
    n = dots[ins.op]
    with np.errstate(all="ignore"):
        a = _loaded(ins, 0, raw[0])
        b = _loaded(ins, 1, raw[1]) if ins.op != "NRM" and len(raw) > 1 else a
        inter = [a[:n] * b[:n]]
        if ins.op == "RFL":
            nn = np.float32(np.sum(a[:3] * a[:3], dtype=np.float32))
            t = np.float32(2) * np.float32(np.sum(a[:3] * b[:3], dtype=np.float32)) / nn
            inter += [a[:3] * a[:3], np.array([t], np.float32)]
        elif ins.op == "NRM":
            nn = np.float32(np.sum(a[:3] * a[:3], dtype=np.float32))
            inter.append(np.array([np.float32(1) / np.sqrt(nn)], np.float32))
    return any(_is_denormal(np.asarray(v, np.float32).view(np.uint32)) for v in inter)


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


def execution_order(program: Program) -> list[int]:
    """Instruction indices in (static) execution order: main from its entry, following the
    control flow -- fall-through first, then the targets of conditional branches, an
    unconditional branch continues at its target (labels are markers: VP2, ARB options and FP2
    code falls through them, and a ``main:`` entry may come after the subroutines) -- and each
    subroutine's body spliced in at its *last* CAL (probes hold the value of an instruction's
    last execution); a called body ends at its unconditional RET.  Instructions never reached
    come last, in program order."""
    n = len(program.instructions)
    labels = program.labels

    def walk(start: int, depth: int, visit, seen: set[int]) -> None:
        pending = [start]
        while pending:
            k = pending.pop()
            while 0 <= k < n and k not in seen:
                seen.add(k)
                ins = program.instructions[k]
                visit(k, ins, depth)
                if ins.op == "BRA" and ins.label in labels:
                    if ins.cond is None or ins.cond.rule == "TR":
                        k = labels[ins.label]
                        continue
                    pending.append(labels[ins.label])
                if ins.op == "RET" and (ins.cond is None or ins.cond.rule == "TR"):
                    break
                k += 1

    # pass 1: every CAL site, in walk order (subroutines expanded at every call)
    sites: dict[str, list[int]] = {}

    def note(k, ins, depth):
        if ins.op == "CAL" and ins.label in labels and depth < 8:
            sites.setdefault(ins.label, []).append(k)
            walk(labels[ins.label], depth + 1, note, set())

    walk(program.entry, 0, note, set())
    last = {label: ks[-1] for label, ks in sites.items()}
    order: list[int] = []
    seen: set[int] = set()

    def add(k, ins, depth):
        order.append(k)
        if ins.op == "CAL" and last.get(ins.label) == k and depth < 8:
            walk(labels[ins.label], depth + 1, add, seen)

    walk(program.entry, 0, add, seen)
    order += [k for k in range(n) if k not in seen]
    return order


def _events(program: Program) -> list[tuple]:
    """Probe plan in execution order (:func:`execution_order`): ("cond", k, CondTest) before
    each instruction with a condition-code test, ("value", k, Source) after each writing
    instruction."""
    out = []
    for k in execution_order(program):
        ins = program.instructions[k]
        cond = ins.cond if ins.cond is not None else (ins.dst.cond if ins.dst is not None else None)
        if cond is not None and cond.rule not in ("TR", "FL"):
            out.append(("cond", k, cond))
        if ins.dst is not None and OPCODES[ins.op].writes:
            reg = program.registers.get(ins.dst.reg)
            if reg is not None and reg.kind in (RegKind.TEMP, RegKind.OUTPUT):
                out.append(("value", k, _dest_source(ins)))
    return out


def _probe_events(program, gen, runner, lanes, events, which=None,
                  into: tuple[dict, dict] | None = None,
                  nth: int | None = None) -> tuple[dict, dict]:
    """Probe the events with indices ``which`` (all by default) in batches (each event's
    ``nth`` execution when given, else its last)."""
    batch = max(1, min(BATCH[program.stage], len(_free_slots(program, 16))))
    exe_all, imp_all = into if into is not None else ({}, {})
    todo = [(i, events[i]) for i in (range(len(events)) if which is None else sorted(which))
            if i not in exe_all]
    for start in range(0, len(todo), batch):
        group = todo[start:start + batch]
        probes = [(k, what, "before" if kind == "cond" else "after", nth)
                  for _, (kind, k, what) in group]
        names, exe, imp = _run_both(program, gen, runner, lanes, probes)
        for (e_idx, _), name in zip(group, names):
            exe_all[e_idx] = exe[name]
            imp_all[e_idx] = imp[name]
    return exe_all, imp_all


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
    value_cases = [d for d in cases if d.kind != "kill"]
    kill_cases = [d for d in cases if d.kind == "kill"]
    out = {}
    if value_cases:
        events, exe_all, imp_all = _scan(program, gen, runner, lanes, value_cases)
        for d in value_cases:
            out[id(d)] = _judge(program, gen, runner, lanes, d, events, exe_all, imp_all)
    if kill_cases:
        # a lane one side kills: scan a copy without kills (a discarded fragment writes no
        # probe), the first differing value or condition is the cause; else the KILs' inputs
        nokill = without_kills(program)
        events, exe_all, imp_all = _scan(nokill, gen, runner, lanes, kill_cases)
        for d in kill_cases:
            as_value = replace(d, kind="value")
            rep = _judge(nokill, gen, runner, lanes, as_value, events, exe_all, imp_all)
            if "instruction" not in rep:         # no value differs: look at the KILs
                rep = _judge_kill(program, gen, runner, lanes, d, events, exe_all, imp_all)
            else:
                rep["output"] = "kill"
                rep["detail"] = d.detail + "; " + rep.get("detail", "")
            out[id(d)] = rep
    return [out[id(d)] for d in cases]


def _scan(program: Program, gen, runner, lanes: int, cases) -> tuple[list, dict, dict]:
    """Probe the events of ``program`` (every event, or for long programs every stride-th
    one and then every event before the first that differs on each case's lane; when no
    coarse probe differs on a case's lane -- a divergence that appeared and vanished again
    between two coarse probes -- every event)."""
    events = _events(program)
    n = len(events)
    batch = max(1, min(BATCH[program.stage], len(_free_slots(program, 16))))
    if n <= batch * COARSE_BATCHES:
        exe_all, imp_all = _probe_events(program, gen, runner, lanes, events)
        return events, exe_all, imp_all
    stride = -(-n // (batch * COARSE_BATCHES))
    coarse = sorted(set(range(stride - 1, n, stride)) | {n - 1})
    exe_all, imp_all = _probe_events(program, gen, runner, lanes, events, coarse)
    fine: set[int] = set()
    for d in cases:
        lane = d.lane if d.lane is not None else 0
        for c in coarse:
            if _event_differs(program, events[c], exe_all[c][lane],
                              imp_all[c][lane] if imp_all[c] is not None else None):
                # every event before it: values may differ between two coarse probes and agree
                # again at the next one (a denormal flushed by a compare, a loop left early on
                # one side) -- the stretch just before the first differing probe is not enough
                fine |= set(range(c))
                break
        else:
            # no coarse probe differs: the divergence appeared and vanished between two of
            # them (a register overwritten later, its value only carried on elsewhere) --
            # probe every event rather than report "interface"
            fine |= set(range(n))
    _probe_events(program, gen, runner, lanes, events, fine, (exe_all, imp_all))
    return events, exe_all, imp_all


COARSE_BATCHES = 4


def _event_differs(program, event, e, g) -> bool:
    if g is None:
        return False
    kind, k, _ = event
    ins = program.instructions[k]
    if kind == "cond":
        return bool(np.any(e != g))
    comps = [c for c in range(4) if ins.dst.mask[c]]
    return _words_differ(ins, e, g, comps, loose=False)


def _enclosing_loop_end(program: Program, k: int) -> int:
    """Index of the ENDREP closing the outermost loop around instruction k (k if none)."""
    depth = 0
    starts = []
    for i, ins in enumerate(program.instructions[:k]):
        if ins.op == "REP":
            starts.append(i)
        elif ins.op == "ENDREP" and starts:
            starts.pop()
    if not starts:
        return k
    depth = len(starts)
    for i in range(k, len(program.instructions)):
        op = program.instructions[i].op
        if op == "REP":
            depth += 1
        elif op == "ENDREP":
            depth -= 1
            if depth == 0:
                return i
    return len(program.instructions)


def _cond_verdict(program: Program, k: int, lane: int, events, exe_all,
                  imp_all=None) -> tuple[str, dict | None]:
    """Verdict for a condition-code test that differs although every value before agreed.
    Condition codes are flags of earlier results: when any earlier update of the tested CC
    register produced (on the executor) a denormal -- flushed, so ZF/SF differ -- or a NaN,
    the verdict is ``ftz``/``nonfinite``; otherwise ``cc`` with the last such update."""
    ins_k = program.instructions[k]
    cond = ins_k.cond if ins_k.cond is not None else ins_k.dst.cond
    last = None
    found = None
    loop_end = _enclosing_loop_end(program, k)
    pos_k = next((i for i, ev in enumerate(events) if ev[1] == k), len(events))
    # subroutines called before the test: the execution order splices a subroutine's body at
    # its *last* call, which may come after the test (vp2.0 seed 270: CAL S1; CAL S2 (LT) with
    # S1's RCPC setting the flags, S1 placed after the second CAL S1)
    called: set[int] = set()
    for i, ev in enumerate(events[:pos_k]):
        ins_i = program.instructions[ev[1]]
        if ins_i.op == "CAL" and ins_i.label in program.labels:
            called |= _routine_body(program, program.labels[ins_i.label])
    for e_idx, (kind, j, _) in enumerate(events):
        if e_idx not in exe_all:
            continue
        # earlier updates, and inside a loop also the later ones of the body (they feed the
        # next iteration; probes hold the last iteration's values)
        if kind != "value" or (e_idx >= pos_k and not k <= j < loop_end and j not in called):
            continue
        ins = program.instructions[j]
        if ins.cc_update is None or ins.cc_update != cond.cc:
            continue
        last = j
        if not _float_result(ins):
            continue
        e = exe_all[e_idx][lane]
        g = imp_all[e_idx][lane] if imp_all is not None and imp_all.get(e_idx) is not None else e
        comps = [c for c in range(4) if ins.dst.mask[c] and c in cond.swizzle]
        if not comps:
            continue
        if _is_denormal(e[comps]) or _is_tiny(e[comps]):
            found = found or ("ftz", j)
        elif _nonfinite(e[comps]) or _nonfinite(g[comps]):
            found = found or ("nonfinite", j)
        elif ins.op in cmp.INEXACT and _near_zero(ins.op, e[comps]):
            # an approximate result within its tolerance of zero: its sign (LT/GT/EQ) may differ
            # between compilations (arbvp-nv2 seed 46: COSC of about pi/2, then BRA (LT))
            found = found or ("tolerance", j)
    if found is not None:
        return found[0], _ins_info(program, found[1])
    return "cc", (_ins_info(program, last) if last is not None else None)


def _near_zero(op: str, words) -> bool:
    """Some component within the absolute tolerance (compare.INEXACT) of ``op`` of zero."""
    tol = max(cmp.INEXACT[op][1], F32_MIN_NORMAL)
    f = np.asarray(words, np.uint32).view(np.float32).astype(np.float64)
    return bool(np.any(np.abs(f) <= tol))


def _routine_body(program: Program, start: int, depth: int = 0) -> set[int]:
    """The instructions a call to ``start`` may run: from there to its unconditional RET
    (branches ignored), with the subroutines it calls (a few levels deep)."""
    out: set[int] = set()
    for j in range(start, len(program.instructions)):
        ins = program.instructions[j]
        out.add(j)
        if ins.op == "CAL" and ins.label in program.labels and depth < 4:
            out |= _routine_body(program, program.labels[ins.label], depth + 1)
        if ins.op == "RET" and (ins.cond is None or ins.cond.rule == "TR"):
            break
    return out


def without_kills(program: Program) -> Program:
    """A copy of ``program`` whose KIL instructions are harmless moves into a scratch TEMP
    (same instruction positions, so probes can still be placed before them)."""
    prog = copy.copy(program)
    prog.registers = dict(program.registers)
    prog.registers["xv_nokill"] = Register("xv_nokill", RegKind.TEMP, DataType.NONE,
                                           implicit=True)
    prog.registers["xv_zero"] = Register("xv_zero", RegKind.CONST, DataType.FLOAT,
                                         value=((0, 0, 0, 0),), implicit=True)
    prog.instructions = [Instruction("MOV", DataType.FLOAT, Dest("xv_nokill"),
                                     (Source("xv_zero"),), span=ins.span, text=ins.text)
                         if ins.op == "KIL" else ins for ins in program.instructions]
    return prog


def _judge_kill(program, gen, runner, lanes, d, events, exe_all, imp_all=None) -> dict:
    """A lane one side kills and the other keeps: every KIL's operand (or condition-code
    test) on both sides."""
    lane = d.lane
    report = {"output": "kill", "lane": lane, "detail": d.detail}
    kils = [k for k, ins in enumerate(program.instructions) if ins.op == "KIL"]
    # probe a copy in which no KIL kills: a fragment the implementation discards writes no
    # probe at all, so the original program cannot show what its KILs saw
    original, program = program, without_kills(program)
    rows = []
    verdict = "divergence"
    first = None
    for k in kils[:6]:
        ins = original.instructions[k]
        what = ins.cond if ins.cond is not None else (
            Source(ins.srcs[0].reg, index=ins.srcs[0].index) if ins.srcs else None)
        if what is None:
            continue
        try:
            names, exe, imp = _run_both(program, gen, runner, lanes, [(k, what, "before")])
        except Exception as exc:                 # pragma: no cover - best effort
            rows.append({"instruction": _ins_info(original, k), "error": str(exc)})
            continue
        e, g = exe[names[0]][lane], imp[names[0]][lane]
        if isinstance(what, CondTest):
            row = {"instruction": _ins_info(original, k), "condition": _cond_text(what),
                   "executor": ["pass" if x else "fail" for x in e],
                   "implementation": ["pass" if x else "fail" for x in g]}
            if first is None and not np.array_equal(e, g):
                first = row
                need = {i for i, ev in enumerate(events) if ev[0] == "value"
                        and program.instructions[ev[1]].cc_update is not None}
                if need - set(exe_all):
                    _probe_events(program, gen, runner, lanes, events, need, (exe_all, imp_all))
                verdict, setter = _cond_verdict(original, k, lane, events, exe_all, imp_all)
                if setter is not None:
                    report["cc_set_by"] = setter
        else:
            row = {"instruction": _ins_info(original, k), "executor": _fmt_vec(e),
                   "implementation": _fmt_vec(g)}
            if first is None and not np.all(cmp.float_equal(e, g)):
                first = row
                verdict = "operands"
            if ins.dtype in (DataType.FLOAT, DataType.NONE) and _is_denormal(e) and \
                    (first is row or first is None):
                verdict = "ftz"
                first = first or row
        rows.append(row)
    report["kills"] = rows
    shown = first or (rows[0] if rows else None)
    if shown is not None and "instruction" in shown:
        report["instruction"] = shown["instruction"]
        report["executor"] = shown.get("executor", [])
        report["implementation"] = shown.get("implementation", [])
    report["verdict"] = verdict
    return report


def k_repeated(program: Program, k: int) -> bool:
    return k in _repeated(program)


def _repeated(program: Program) -> set[int]:
    """Instructions that may run more than once in an invocation: REP bodies, the stretch
    a backward BRA jumps over, and subroutine bodies (from a CAL target to the next label)."""
    out: set[int] = set()
    stack = []
    for i, ins in enumerate(program.instructions):
        if ins.op == "REP":
            stack.append(i)
        elif ins.op == "ENDREP" and stack:
            out.update(range(stack.pop(), i + 1))
        elif ins.op == "BRA" and program.labels.get(ins.label, i + 1) <= i:
            out.update(range(program.labels[ins.label], i + 1))
    starts = sorted(set(program.labels.values()) | {program.entry})
    n = len(program.instructions)
    for ins in program.instructions:
        if ins.op == "CAL" and ins.label in program.labels:
            start = program.labels[ins.label]
            later = [t for t in starts if t > start]
            out.update(range(start, later[0] if later else n))
    return out


#: executions searched at most by :func:`_refine`, and the shader runs it may spend (beyond
#: them the data-flow verdicts of :func:`_judge` apply: localization must stay affordable)
MAX_PASSES = 4096
REFINE_RUNS = 120


def _refine(program, gen, runner, lanes, d, events, k_first: int) -> dict | None:
    """``operands`` at an instruction that runs more than once: the last-execution probes
    saw its operands differ but no earlier value.  Find the first pass ``n`` on which some
    repeated instruction's value differs (gallop, then bisect over per-pass probes) and judge
    that pass; None when no pass differs (the probes changed the compilation)."""
    lane = d.lane if d.lane is not None else 0
    repeated = _repeated(program)              # the caller checked k_first is in it
    rep = [i for i, (_, k, _) in enumerate(events) if k in repeated]
    names, exe, _ = _run_both(program, gen, runner, lanes, [(k_first, Source("xv_zero"),
                                                             "before", 0)])
    passes = int(exe[names[0]][lane][0])
    if passes < 1:
        return None
    passes = min(passes, MAX_PASSES)
    memo: dict[int, tuple[dict, dict] | None] = {}
    batch = max(1, min(BATCH[program.stage], len(_free_slots(program, 16))))
    runs_per_pass = -(-len(rep) // batch)
    if runs_per_pass * (2 * max(1, passes.bit_length()) + 1) > REFINE_RUNS:
        return None

    def differs(n: int):
        if n not in memo:
            ex, im = _probe_events(program, gen, runner, lanes, events, rep, nth=n)
            hit = any(_event_differs(program, events[i], ex[i][lane],
                                     im[i][lane] if im[i] is not None else None) for i in rep)
            memo[n] = (ex, im) if hit else None
        return memo[n]

    lo, hi = 0, 1                   # differs(lo) is False (pass 0 never happens)
    while hi < passes and not differs(hi):
        lo, hi = hi, min(2 * hi, passes)
    if not differs(hi):
        return None
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if differs(mid):
            hi = mid
        else:
            lo = mid
    ex, im = memo[hi]
    report = _judge(program, gen, runner, lanes, d, events, ex, im, nth=hi)
    report["execution"] = hi
    report["detail"] = (f"first differs on pass {hi} of the instruction (per-pass probes); "
                        + report.get("detail", "")).rstrip("; ")
    return report


def _judge(program, gen, runner, lanes, d, events, exe_all, imp_all, nth=None) -> dict:
    if d.kind == "kill":
        return _judge_kill(program, gen, runner, lanes, d, events, exe_all, imp_all)
    lane = d.lane if d.lane is not None else 0
    report = {"output": d.output, "lane": lane}
    if d.component is not None:
        report["component"] = "xyzw"[d.component]
    approx = None
    first = None
    for e_idx, (kind, k, what) in enumerate(events):
        if e_idx not in exe_all:
            continue
        e, g = exe_all[e_idx][lane], imp_all[e_idx]
        if g is None:
            continue
        g = g[lane]
        ins = program.instructions[k]
        if kind == "cond":
            comps = [c for c in range(4) if ins.dst is None or ins.dst.cond is None
                     or ins.dst.mask[c]]
            if any(e[c] != g[c] for c in comps):
                skipped = [i for i in range(e_idx) if i not in exe_all]
                if skipped and nth is None:
                    # a value the coarse scan skipped may have differed first (arbvp-nv2 seed
                    # 46: a COS of a huge parameter, then a branch on its flags)
                    _probe_events(program, gen, runner, lanes, events, set(skipped),
                                  (exe_all, imp_all))
                    return _judge(program, gen, runner, lanes, d, events, exe_all, imp_all)
                # the condition-code updates feeding this test must have been probed
                need = {i for i, ev in enumerate(events) if ev[0] == "value"
                        and program.instructions[ev[1]].cc_update is not None}
                if need - set(exe_all):
                    _probe_events(program, gen, runner, lanes, events, need, (exe_all, imp_all),
                                  nth=nth)
                verdict, setter = _cond_verdict(program, k, lane, events, exe_all, imp_all)
                if approx is not None and verdict == "cc":
                    verdict = "tolerance"
                report.update(verdict=verdict, instruction=_ins_info(program, k),
                              condition=_cond_text(what),
                              executor=["pass" if e[c] else "fail" for c in range(4)],
                              implementation=["pass" if g[c] else "fail" for c in range(4)])
                if setter is not None:
                    report["cc_set_by"] = setter
                report["detail"] = ("the condition-code test evaluates differently although "
                                    "every value computed before agrees (condition-code flags)")
                return report
            continue
        comps = [c for c in range(4) if ins.dst.mask[c]]
        if not _words_differ(ins, e, g, comps, loose=False):
            continue
        if not _words_differ(ins, e, g, comps, loose=True):
            approx = approx if approx is not None else e_idx
            continue
        first = e_idx
        break
    if first is None:
        if approx is not None:
            k = events[approx][1]
            report.update(verdict="tolerance", instruction=_ins_info(program, k),
                          executor=_fmt_vec(exe_all[approx][lane]),
                          implementation=_fmt_vec(imp_all[approx][lane][:4]))
        else:
            report["verdict"] = "interface"
            report["detail"] = ("every instruction's result agrees on this lane; the difference "
                                "arises where the outputs are written out (or the probes "
                                "changed how the implementation compiled the code)")
            words = [w for w in (d.expected, d.got) if w is not None]
            if _derivatives_in_flow(program):
                report["verdict"] = "lod"
                report["detail"] += ("; the program takes derivatives (DDX/DDY or implicit "
                                     "texture LOD) inside IF/REP blocks, where GLSL leaves "
                                     "them undefined when the fragments of a quad diverge")
            elif words and not d.integer:
                w = np.array(words, np.uint32)
                if _nonfinite(w):
                    report["verdict"] = "nonfinite"
                elif _is_denormal(w) or _is_tiny(w):
                    report["verdict"] = "ftz"
        return report
    e_first = first
    first = events[e_first][1]
    ins = program.instructions[first]
    info = _ins_info(program, first)
    report["instruction"] = info
    report["executor"] = _fmt_vec(exe_all[e_first][lane])
    report["implementation"] = _fmt_vec(imp_all[e_first][lane])
    # operands just before the instruction
    ops = {}
    operands_agree = True
    denormal_operand = False
    nonfinite_operand = False
    operand_values = []
    raw_operands = []
    nonfinite_mismatch = False
    differing: list[tuple[str, np.ndarray]] = []      # float operands: register, components
    flushed_bits = False
    zero_sign_only = False          # float operands equal but for the sign of a zero
    srcs = [(j, s) for j, s in enumerate(ins.srcs)]
    if srcs:
        probes = [(first, Source(s.reg, index=s.index, vertex=s.vertex), "before", nth)
                  for _, s in srcs]
        try:
            names, exe, imp = _run_both(program, gen, runner, lanes, probes)
            for (j, s), name in zip(srcs, names):
                e = exe[name][lane]
                g = imp[name][lane] if imp[name] is not None else None
                raw_operands.append(e)
                ops[f"src{j} {s.reg}"] = {"executor": _fmt_vec(e),
                                          "implementation": _fmt_vec(g) if g is not None else None}
                from ..passes.types import operand_type
                if g is not None:
                    if operand_type(ins, j) in (DataType.INT, DataType.UINT):
                        if not np.array_equal(e, g):
                            operands_agree = False
                            # integer bits that went through a float move: a denormal
                            # pattern (a small integer) flushed to zero on one side
                            if np.array_equal(cmp.flush(e), cmp.flush(g)):
                                flushed_bits = True
                    elif np.all(cmp.float_equal(e, g)) and not np.array_equal(e, g):
                        d_bits = np.asarray(e, np.uint32) ^ np.asarray(g, np.uint32)
                        zeros = (np.asarray(e, np.uint32) & 0x7FFFFFFF) == 0
                        zero_sign_only |= bool(np.any((d_bits == 0x80000000) & zeros))
                    elif not np.all(cmp.float_equal(e, g)):
                        operands_agree = False
                        differing.append((s.reg, np.flatnonzero(~cmp.float_equal(e, g))))
                        bad = ~cmp.float_equal(e, g)
                        if _nonfinite(e[bad]) or _nonfinite(g[bad]):
                            nonfinite_mismatch = True
                if operand_type(ins, j) == DataType.FLOAT:
                    operand_values.append(e)
                    denormal_operand |= _is_denormal(e)
                    nonfinite_operand |= _nonfinite(e)
        except Exception as exc:            # pragma: no cover - best effort
            ops["error"] = f"{type(exc).__name__}: {exc}"
    cond = ins.dst.cond if ins.dst is not None else None
    if cond is not None and cond.rule != "TR" and ins.dst.index is None:
        # a conditional write keeps the old value of the components whose test fails: that
        # value is an operand too (NV4 vertex seed 92: SSG (LE) kept an R4.x that an earlier,
        # coarsely skipped SIN of a huge argument had made differ)
        try:
            names, exe, imp = _run_both(program, gen, runner, lanes,
                                        [(first, Source(ins.dst.reg), "before", nth)])
            e = exe[names[0]][lane]
            g = imp[names[0]][lane] if imp[names[0]] is not None else None
            ops[f"dst {ins.dst.reg} (kept where the test fails)"] = {
                "executor": _fmt_vec(e), "implementation": _fmt_vec(g) if g is not None else None}
            comps = [c for c in range(4) if ins.dst.mask[c]]
            if g is not None and not np.all(cmp.float_equal(e[comps], g[comps])):
                operands_agree = False
                differing.append((ins.dst.reg, np.array(comps)[~cmp.float_equal(e[comps],
                                                                                g[comps])]))
        except Exception as exc:            # pragma: no cover - best effort
            ops["dst error"] = f"{type(exc).__name__}: {exc}"
    # relative indices: an index out of the array is undefined (GP4 2.X.4.2); both sides clamp
    # (a project choice), but the index arithmetic may wrap differently
    out_of_range = False
    rel = [(s, idx, size) for s, idx, size in _relative_uses(program, ins)]
    if rel:
        try:
            probes = [(first, Source(idx.reg), "before", nth) for _, idx, _ in rel]
            names, exe, imp = _run_both(program, gen, runner, lanes, probes)
            for (s, idx, size), name in zip(rel, names):
                v = int(exe[name][lane].view(np.int32)[idx.comp]) + idx.offset
                ops[f"index {idx.reg}.{'xyzw'[idx.comp]} + {idx.offset}"] = {
                    "executor": [str(v)],
                    "implementation": [str(int(imp[name][lane].view(np.int32)[idx.comp])
                                           + idx.offset)] if imp[name] is not None else None}
                if not 0 <= v < size:
                    out_of_range = True
        except Exception as exc:            # pragma: no cover - best effort
            ops["index error"] = f"{type(exc).__name__}: {exc}"
    report["operands"] = ops
    skipped = [i for i in range(e_first) if i not in exe_all]
    if not operands_agree and skipped and nth is None:
        # the operands differ, yet no earlier *probed* event did: the coarse scan of a long
        # program (_scan) skipped the events where the values first diverged (they agreed
        # again at the coarse probes in between) -- probe every earlier event and judge again
        _probe_events(program, gen, runner, lanes, events, set(skipped), (exe_all, imp_all))
        return _judge(program, gen, runner, lanes, d, events, exe_all, imp_all)
    e_res, g_res = exe_all[e_first][lane], imp_all[e_first][lane]
    comps = [c for c in range(4) if ins.dst.mask[c]]
    fres = _float_result(ins)
    big = any(_max_abs(v) > RANGE_LIMIT.get(ins.op, np.inf) for v in operand_values)
    defect = known_defect(program, ins, getattr(runner, "backend", None), operands_agree, first)
    if defect is not None:
        report["verdict"] = "implementation"
        report["detail"] = defect
    elif _undefined_case(ins, raw_operands, comps) or out_of_range:
        report["verdict"] = "undefined"
    elif _texel_boundary(ins, raw_operands, gen):
        report["verdict"] = "boundary"
    elif _implicit_lod(program, ins, gen) and operands_agree:
        report["verdict"] = "lod"
    elif big:
        report["verdict"] = "range"
    elif denormal_operand or flushed_bits or _denormal_intermediate(ins, raw_operands) or \
            (fres and (_is_tiny(e_res[comps]) or _is_tiny(g_res[comps]))):
        report["verdict"] = "ftz"
    elif nonfinite_operand or (fres and (_nonfinite(e_res[comps]) or _nonfinite(g_res[comps]))) \
            or _pow_of_nonpositive(ins, raw_operands):
        report["verdict"] = "nonfinite"
    elif approx is not None:
        report["verdict"] = "tolerance"
        report["approximate_first"] = _ins_info(program, approx)
    elif operands_agree and zero_sign_only:
        # the operands differ only in the sign of a zero, which an earlier instruction lost on
        # one side (Mesa folds 0 + x -> x and x * 0 -> +0; VP1 2.14.1.11 makes 0*x = +0, which
        # the executor does not emulate), and this instruction tells the zeros apart (VP1's
        # total-order SGE/SLT, RCC/RCP/DIV of a zero)
        report["verdict"] = "signedzero"
    elif ins.op in ("DDX", "DDY") and first in _undefined_derivatives(program):
        # the derivative itself, taken in non-uniform flow or after a KIL: its operand agrees
        # on this fragment, its neighbour's (discarded, or on another path) need not
        report["verdict"] = "lod"
        report["detail"] = ("a derivative taken after a KIL or inside a block: GLSL 4.50 §6.4 "
                            "leaves it undefined when the fragments of the quad diverge; the "
                            "executor keeps discarded fragments running for their neighbours")
    elif not operands_agree and _derivatives_in_flow(program) and \
            _from_derivatives(program, differing):
        # an operand computed from derivatives GLSL leaves undefined (the lookup itself may
        # agree when probed: a probe changes where the compiler places it)
        report["verdict"] = "lod"
    elif not operands_agree and nth is None and k_repeated(program, first) and \
            (refined := _refine(program, gen, runner, lanes, d, events, first)) is not None:
        return refined
    elif not operands_agree and _depends_on(program, differing, tuple(cmp.INEXACT)):
        # no probe saw a value differ before, but this instruction's operands do, and they are
        # computed from approximate opcodes: the implementation's approximation differs
        # between the probed compilations (each placement of probes is a new shader), and
        # exact opcodes amplified it -- what "tolerance" accepts
        report["verdict"] = "tolerance"
        report["detail"] = ("the operands differ although no earlier probe did; they are "
                            "computed from approximate opcodes (data-flow), whose results "
                            "differ between the probed compilations")
    elif not operands_agree:
        # an operand that is NaN/Inf on one side only: a NaN/Inf freedom upstream that the
        # probes (last execution in loops and subroutines) could not pin down
        report["verdict"] = "nonfinite" if nonfinite_mismatch else "operands"
    elif _derivatives_in_flow(program) and _from_derivatives(
            program, [(s.reg, np.arange(4)) for s in ins.srcs]):
        # operands that agree when probed, a result that does not: the operands come from
        # derivatives GLSL leaves undefined (non-uniform flow or after a discard), so each
        # compilation (probed or not) may compute them differently
        report["verdict"] = "lod"
        report["detail"] = ("the operands are computed from derivatives in non-uniform "
                            "control flow (undefined in GLSL); they agree in the probed "
                            "compilation, not in the one that produced this result")
    elif nth is None and k_repeated(program, first) and \
            (refined := _refine(program, gen, runner, lanes, d, events, first)) is not None:
        # operands agree on the *last* pass, the result does not: an earlier pass may have
        # differed first and changed the flow (tgsi vertex seed 131: a loop left by a BRK on a
        # denormal on one side, by its counter on the other)
        return refined
    else:
        report["verdict"] = "divergence"
    return report


def _constant_source(program: Program, src: Source) -> bool:
    """A source the GLSL backend writes as a literal (an immediate or a constant with a value,
    not relatively addressed): the compiler sees it at compile time."""
    reg = program.registers.get(src.reg)
    return reg is not None and reg.value is not None and not (src.index and src.index.relative)


_OPEN = frozenset({"IF", "REP", "SWITCH"})
_CLOSE = frozenset({"ENDIF", "ENDREP", "ENDSWITCH"})


def _compile_time_sources(program: Program, k: int) -> list[bool]:
    """Per source of instruction ``k``: whether the compiler knows its value -- a literal, or
    a temporary that the main code before ``k`` set from literals only, outside blocks
    (temporaries start as zero in the GLSL; a write inside an IF or loop makes the value
    unknown).  Mesa propagates such copies and folds what reads them (tgsi vertex seeds 97 and
    192: UMUL_HI of a TEMP set from an immediate).  Programs with branches, labels or calls
    before ``k``, or ``k`` inside a block: literals only."""
    ins_k = program.instructions[k]
    known: dict[tuple[str, int], bool] = {}
    depth = 0
    simple = program.entry <= k
    for i in range(program.entry, k if simple else program.entry):
        ins = program.instructions[i]
        if ins.op in ("BRA", "CAL") or program.labels_at(i):
            simple = False
            break
        depth += ins.op in _OPEN
        depth -= ins.op in _CLOSE
        if ins.dst is None or not OPCODES[ins.op].writes:
            continue
        ok = depth == 0 and ins.dst.cond is None and ins.dst.index is None and all(
            _source_known(program, s, known) for s in ins.srcs)
        for c in range(4):
            if ins.dst.mask[c]:
                known[(ins.dst.reg, c)] = ok and known.get((ins.dst.reg, c), True) \
                    if depth else ok
    if not simple or depth:
        return [_constant_source(program, s) for s in ins_k.srcs]
    return [_source_known(program, s, known) for s in ins_k.srcs]


def _source_known(program: Program, src: Source, known: dict) -> bool:
    if _constant_source(program, src):
        return True
    reg = program.registers.get(src.reg)
    if reg is None or reg.kind != RegKind.TEMP or src.index is not None:
        return False
    return all(known.get((src.reg, c), True) for c in src.swizzle if c < 4)


def known_defect(program: Program, ins: Instruction, backend: str | None,
                 operands_agree: bool = False, k: int | None = None) -> str | None:
    """A departure of the implementation that a reduced test pins (tests/test_verify_cases.py,
    strict xfail until Mesa is fixed): the text naming it, else None.  ``operands_agree``: both
    sides gave the instruction the same operands on the lane judged."""
    if (ins.op == "TXQ" and operands_agree and program.stage == Stage.FRAGMENT
            and ins.tex is not None and BASE_TARGET.get(ins.tex.target) not in ("RECT", "BUFFER")
            and ins.srcs and not _constant_source(program, ins.srcs[0])):
        # llvmpipe and lavapipe share gallivm's texture code: same defect on every backend
        return ("llvmpipe's textureSize(sampler, lod) uses one LOD for a whole block of 8 "
                "fragments when the LOD varies between them (GP4 TXQ is per fragment): "
                "tests/test_verify_cases.py::test_texture_size_with_nonuniform_lod")
    if backend == "gl" and ins.op == "RSQ" and ins.sat is not None and ins.sat.name == "SAT":
        return ("Mesa's GLSL compiler drops the lower clamp of a saturated 1.0 / sqrt(x), "
                "returning -INF for x = -0.0: "
                "tests/test_verify_cases.py::test_saturated_rsq_of_negative_zero")
    if (backend == "gl" and ins.op == "MUL" and ins.mul_mode == "HI" and ins.srcs
            and all(_compile_time_sources(program, program.instructions.index(ins)
                                          if k is None else k))):
        return ("Mesa's GLSL compiler folds umulExtended/imulExtended of constant operands "
                "wrongly (the same GLSL through SPIR-V, or with one operand not constant, is "
                "right): tests/test_verify_cases.py::test_mulhi_of_constants")
    return None


def _cond_text(c: CondTest) -> str:
    swz = "".join("xyzw"[i] for i in c.swizzle)
    return f"{c.rule}{c.cc if c.cc else ''}.{swz}"


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
    """Every condition test and written value on one lane, both sides (reports, debugging)."""
    events = _events(program)
    exe_all, imp_all = _probe_events(program, gen, runner, lanes, events)
    rows = []
    for e_idx, (kind, k, what) in enumerate(events):
        ins = program.instructions[k]
        e = exe_all[e_idx][lane]
        g = imp_all[e_idx][lane] if imp_all[e_idx] is not None else None
        if kind == "cond":
            differs = g is not None and bool(np.any(e != g))
            rows.append({"instruction": _ins_info(program, k), "condition": _cond_text(what),
                         "executor": ["pass" if x else "fail" for x in e],
                         "implementation": ["pass" if x else "fail" for x in g]
                         if g is not None else None,
                         "differs": differs, "within_tolerance": False})
            continue
        comps = [c for c in range(4) if ins.dst.mask[c]]
        differs = g is not None and _words_differ(ins, e, g, comps, loose=False)
        rows.append({"instruction": _ins_info(program, k), "executor": _fmt_vec(e),
                     "implementation": _fmt_vec(g) if g is not None else None,
                     "differs": differs,
                     "within_tolerance": differs and not _words_differ(ins, e, g, comps, True)})
    return rows
