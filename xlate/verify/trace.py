"""Probes: instrumenting a program so that both sides show what an instruction computed.

After instruction ``k`` a probe ``MOV.F xv_probe, <destination element of k>`` copies the words
just written into an extra output register (``result.attrib[n]`` in vertex/geometry programs,
a free ``result.color[n]`` in fragment programs).  A float move is a bit copy on both sides
(the backend bitcasts integer-typed registers; no arithmetic, so nothing is flushed), and it
leaves the backend's register typing unchanged for float registers.  The same instrumented IR
runs in the executor and, translated by the normal GLSL backend, on the implementation; a probe
holds the value of the *last* execution of its instruction (zero if it never ran), or -- with a
pass counter (:func:`_nth_execution`) -- of the n-th execution, or the number of executions.
A probe of a :class:`CondTest` placed before an instruction shows which components of the test
pass.  :func:`_probe_events` probes a list of events in batches (one compilation per batch).

The replay (:mod:`replay`) uses these probes to learn the implementation's values; the rules
that judge a difference are in :mod:`permits`, some built on the predicates kept here
(:func:`known_defect`, :func:`_undefined_derivatives`, :func:`_denormal_intermediate`).
"""
from __future__ import annotations

import copy
from dataclasses import replace
import numpy as np

from ..ir.model import (Binding, CondTest, DataType, Dest, Instruction, Program, Register,
                        RegKind, Source, Stage)
from ..ir.ops import OPCODES
from ..exec.texture import BASE_TARGET
from .permits_site import CUBE_DIRECTION_OPS

BATCH = {Stage.VERTEX: 16, Stage.FRAGMENT: 6, Stage.GEOMETRY: 4, Stage.TESS_EVAL: 8,
         Stage.TESS_CTRL: 8}
#: vec4 outputs a vertex shader may have (GL_MAX_VERTEX_OUTPUT_COMPONENTS 128 on llvmpipe), less
#: room for the harness's copies of built-in outputs
VERTEX_OUTPUT_ROOM = 28


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
        inserts.append((pos + 1 if where == "after" else pos, j,
                        probe_value(prog, j, what, nth), where))
        names.append(name)
    insert_probes(prog, inserts)
    if prog.stage == Stage.GEOMETRY and prog.geometry is not None:
        _emit_at_exit(prog)
    return prog, names


def probe_value(prog: Program, j: int, what, nth: int | None) -> list[Instruction]:
    """The instructions that put probe ``j``'s value (a :class:`Source`'s bits, or 1.0 in each
    component whose :class:`CondTest` passes) into ``xv_probe{j}``.  With ``nth`` a scratch
    register takes it and _nth_execution keeps it only on the nth pass."""
    target = f"xv_probe{j}" if nth is None else f"xv_val{j}"
    zero = Instruction("MOV", DataType.FLOAT, Dest(target), (Source("xv_zero"),),
                       text=f"MOV.F {target}, 0  # probe")
    if isinstance(what, CondTest) and len(set(what.swizzle)) == 1:
        # one component tested (TGSI's IF and UIF, NV's IF NE.x): an IF, whose test the middle
        # end compares as the updated value (passes/condcodes.forward_value_tests) as it does
        # the program's own -- a conditional write reads the flag words, and llvmpipe
        # miscompiles a loop left through them (tests/test_cc_forwarding.py)
        seq = [zero, Instruction("IF", cond=what, text="IF (test)  # probe"),
               Instruction("MOV", DataType.FLOAT, Dest(target), (Source("xv_one"),),
                           text=f"MOV.F {target}, 1  # probe"),
               Instruction("ENDIF", text="ENDIF  # probe")]
    elif isinstance(what, CondTest):
        seq = [zero, Instruction("MOV", DataType.FLOAT, Dest(target, cond=what),
                                 (Source("xv_one"),), text=f"MOV.F {target} (test), 1  # probe")]
    else:
        seq = [Instruction("MOV", DataType.FLOAT, Dest(target), (what,),
                           text=f"MOV.F {target}  # probe")]
    if nth is not None:
        seq += _nth_execution(prog, j, nth)
    return seq


def insert_probes(prog: Program, inserts: list[tuple]) -> None:
    """Insert each (position, probe number, instructions, "after" | "before") into ``prog``,
    from the back so positions stay valid: labels and the entry at the insertion point stay
    (a probe "before" k runs before k even when k is a branch target) or move on (a probe
    "after" k must not run when something jumps to k + 1)."""
    for at, j, seq, where in sorted(inserts, key=lambda t: (-t[0], -t[1])):
        insert_at(prog, at, seq, where == "before")


def insert_at(prog: Program, at: int, seq: list, before: bool) -> None:
    """Insert ``seq`` at ``at``; labels and the entry at ``at`` stay on it when ``before``."""
    n = len(seq)
    prog.instructions[at:at] = seq
    for lab, idx in list(prog.labels.items()):
        if idx > at or (idx == at and not before):
            prog.labels[lab] = idx + n
    if prog.entry > at or (prog.entry == at and not before):
        prog.entry += n


def _emit_at_exit(prog: Program) -> None:
    """Geometry probes are read from the last emitted vertex: an EMIT before every RET of the
    main routine, and at its end, makes that vertex the state at the end of the program on both
    sides (instructions after the last real EMIT included), as for
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
    if total > 256 or total * 4 * outputs > 1024:
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


def _run_both(program: Program, gen, runner, lanes: int, probes):
    from ..backends.glsl import emit_glsl
    from .draw_run import run_executor, run_gl, runner_profile
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
    return names, exe, imp, cap


#: approximate opcodes whose implementation gives up beyond an operand magnitude
RANGE_LIMIT = {"SIN": 2.0 ** 23, "COS": 2.0 ** 23, "SCS": 2.0 ** 23}


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


#: the instructions that open and close a block of IR flow
_OPENS, _CLOSES = ("IF", "REP", "SWITCH"), ("ENDIF", "ENDREP", "ENDSWITCH")
#: the instructions taking implicit derivatives
_DERIVATIVE_LOOKUPS = ("TEX", "TXB", "TXP", "TEX2", "TXB2", "LODQ")


def _takes_derivatives(ins: Instruction) -> bool:
    return ins.op in ("DDX", "DDY") or (ins.tex is not None and ins.op in _DERIVATIVE_LOOKUPS)


def _subroutine(program: Program, label: str | None) -> range:
    """The instructions of the subroutine at ``label``: from it to its first ``RET`` outside
    any block (every dialect's frontend ends a subroutine so), else to the end."""
    start = program.labels.get(label) if label is not None else None
    if start is None:
        return range(0)
    depth = 0
    for k in range(start, len(program.instructions)):
        op = program.instructions[k].op
        if op in _OPENS:
            depth += 1
        elif op in _CLOSES:
            depth = max(0, depth - 1)
        elif op == "RET" and depth == 0:
            return range(start, k + 1)
    return range(start, len(program.instructions))


def _called(program: Program, label: str | None, seen: set) -> set[int]:
    """The instructions a call of ``label`` may run: its subroutine's and those of every
    subroutine it calls, transitively."""
    out: set[int] = set()
    if label in seen:
        return out
    seen.add(label)
    for k in _subroutine(program, label):
        out.add(k)
        ins = program.instructions[k]
        if ins.op == "CAL":
            out |= _called(program, ins.label, seen)
    return out


def _undefined_derivatives(program: Program) -> set[int]:
    """Instructions taking derivatives GLSL leaves undefined (DDX/DDY or an implicit-LOD
    lookup): inside IF/REP/SWITCH blocks, where the fragments of a quad may diverge, or after a
    KIL -- GLSL 4.50 §6.4: after a non-uniform ``discard`` "subsequent implicit or explicit
    derivatives are undefined", while the assembly models (NV kill mask, tgsi_exec) keep killed
    fragments running for their neighbours' derivatives.  A call counts as what it runs: a
    subroutine called inside a block, or after a kill, takes its derivatives there too, and a
    call that may run a KIL is a kill (generated TGSI fragment seed 1904, inputs seed 1900: a
    DDY after an IF whose subroutine has a KILL_IF in a loop -- its quads were torn apart)."""
    out: set[int] = set()
    if program.stage != Stage.FRAGMENT:
        return out
    depth = 0
    killed = False
    for k, ins in enumerate(program.instructions):
        if ins.op in _OPENS:
            depth += 1
        elif ins.op in _CLOSES:
            depth = max(0, depth - 1)
        elif ins.op == "KIL":
            killed = True
        elif ins.op == "CAL":
            runs = _called(program, ins.label, set())
            if depth or killed:
                out |= {j for j in runs if _takes_derivatives(program.instructions[j])}
            if any(program.instructions[j].op == "KIL" for j in runs):
                killed = True
        elif (depth or killed) and _takes_derivatives(ins):
            out.add(k)
    return out


def _texel_boundary(ins: Instruction, raw: list, gen) -> bool:
    """A NEAREST-filtered lookup whose coordinate lies exactly on a texel edge of some level:
    which texel is selected depends on the implementation's coordinate arithmetic (llvmpipe
    picks the lower texel in some paths, the upper one in others)."""
    if ins.op not in ("TEX", "TXB", "TXP", "TXL", "TXD", "TEX2", "TXB2", "TXL2") or not raw \
            or ins.tex is None:
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
    if ins.op in CUBE_DIRECTION_OPS and \
            ins.tex is not None and ins.tex.target.replace("SHADOW", "") in ("CUBE", "ARRAYCUBE"):
        # a zero direction: the face coordinates sc/|ma| are 0/0 (GL 4.5 §8.13), NaN; a
        # direction of zeros and denormals flushes to it (GLSL 4.50 §4.7.1)
        v = _loaded(ins, 0, raw[0])[:3]
        if np.all(np.abs(v) < np.finfo(np.float32).tiny):
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


def probe_batch(program: Program) -> int:
    """Probes per compilation: the stage's BATCH, or fewer when fewer output slots are free
    (a VSP1.0 program writing many c[] outputs leaves part of result.attrib)."""
    top = BATCH[program.stage]
    if program.stage == Stage.VERTEX:
        used = sum(r.length for r in program.registers.values() if r.kind == RegKind.OUTPUT)
        top = max(1, min(top, VERTEX_OUTPUT_ROOM - used))
    for n in range(top, 1, -1):
        if len(_free_slots(program, n)) >= n:
            return n
    return 1


def _probe_events(program, gen, runner, lanes, events, which=None,
                  into: tuple[dict, dict] | None = None,
                  nth: int | None = None, runs: list | None = None,
                  origins: dict | None = None, batch: int | None = None) -> tuple[dict, dict]:
    """Probe the events with indices ``which`` (all by default) in batches (each event's
    ``nth`` execution when given, else its last).  ``runs``: a list that receives the capture
    of every probe compilation (its outputs: the program's own and the probes').
    ``origins``: a dict that receives, per event index, the capture of the compilation that
    probed it (``replay.consistent_values``); ``batch``: probes per compilation (default
    :func:`probe_batch`)."""
    batch = batch or probe_batch(program)
    exe_all, imp_all = into if into is not None else ({}, {})
    todo = [(i, events[i]) for i in (range(len(events)) if which is None else sorted(which))
            if i not in exe_all]
    for start in range(0, len(todo), batch):
        group = todo[start:start + batch]
        probes = [(k, what, "before" if kind == "cond" else "after", nth)
                  for _, (kind, k, what) in group]
        names, exe, imp, cap = _run_both(program, gen, runner, lanes, probes)
        if runs is not None:
            runs.append(cap)
        for (e_idx, _), name in zip(group, names):
            exe_all[e_idx] = exe[name]
            imp_all[e_idx] = imp[name]
            if origins is not None:
                origins[e_idx] = cap
    return exe_all, imp_all


#: the instructions that drop a fragment's outputs: KIL, and TGSI's DEMOTE (the lane runs on
#: as a helper, and its outputs -- the probes among them -- are discarded at the end)
DISCARDS = ("KIL", "DEMOTE")


def has_discards(program: Program) -> bool:
    return any(ins.op in DISCARDS for ins in program.instructions)


def without_kills(program: Program) -> Program:
    """A copy of ``program`` whose KIL and DEMOTE instructions are harmless moves into a
    scratch TEMP (same instruction positions, so probes can still be placed before them).
    Without DEMOTE, READ_HELPER is 0 on both sides of a probe run where the main run had ~0:
    a demoted lane's outputs are not compared, but a neighbour's derivative of such a value
    is then not localized (the probe run departs from the main run there).

    A program with inter-lane opcodes keeps its KILs, as flags (``Program.kills_as_flags``):
    a lane that takes one runs on and writes its probes, but it stops counting as an active
    invocation -- without that, every BALLOT or vote after a KIL saw the killed lanes in the
    probe runs, which the main run never does (generated TGSI fragment seed 718, and a KILL_IF
    after a TXP: the probes' BALLOT read 0xff where the program's read 0x99)."""
    from .subgroups import uses_lane_ops
    prog = copy.copy(program)
    prog.registers = dict(program.registers)
    prog.registers["xv_nokill"] = Register("xv_nokill", RegKind.TEMP, DataType.NONE,
                                           implicit=True)
    prog.registers["xv_zero"] = Register("xv_zero", RegKind.CONST, DataType.FLOAT,
                                         value=((0, 0, 0, 0),), implicit=True)
    flags = uses_lane_ops(program)
    prog.kills_as_flags = flags
    prog.instructions = [Instruction("MOV", DataType.FLOAT, Dest("xv_nokill"),
                                     (Source("xv_zero"),), span=ins.span, text=ins.text)
                         if ins.op in DISCARDS and not (flags and ins.op == "KIL") else ins
                         for ins in program.instructions]
    return prog


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


def _constant_source(program: Program, src: Source) -> bool:
    """A source the GLSL backend writes as a literal (an immediate, a constant, an element of
    a PARAM table bound to no state; not relatively addressed): the compiler sees it at
    compile time.  (A PARAM bound to ``program.local`` carries placeholder words in ``value``:
    a uniform, not a literal.)"""
    from ..ir.literals import literal_vector
    return literal_vector(program, src) is not None


_OPEN = frozenset({"IF", "REP", "SWITCH"})
_CLOSE = frozenset({"ENDIF", "ENDREP", "ENDSWITCH"})


def _compile_time_sources(program: Program, k: int) -> list[bool]:
    """Per source of instruction ``k``: whether the compiler knows its value -- a literal, or
    a temporary that the main code before ``k`` set from literals only, outside blocks
    (temporaries start as zero in the GLSL; a write inside an IF or loop makes the value
    unknown).  Mesa propagates such copies and folds what reads them (tgsi vertex seeds 97 and
    192: UMUL_HI of a TEMP set from an immediate).  ``k`` inside a block (a loop body: tgsi
    fragment seed 69, UMUL_HI in nested loops): the same, for register components that
    nothing from the start of the outermost block around ``k`` to the end of the program
    writes -- no pass of the loop, and no subroutine it calls, changes them.  Programs with
    branches, labels or calls before that point: literals only."""
    ins_k = program.instructions[k]
    known: dict[tuple[str, int], bool] = {}
    depth = 0
    outer = k                       # where the outermost block around k opens
    simple = program.entry <= k
    for i in range(program.entry, k if simple else program.entry):
        ins = program.instructions[i]
        if ins.op in ("BRA", "CAL") or program.labels_at(i):
            simple = False
            break
        if depth == 0 and ins.op in _OPEN:
            outer = i
        depth += ins.op in _OPEN
        depth -= ins.op in _CLOSE
        if depth == 0:
            outer = k
        if ins.dst is None or not OPCODES[ins.op].writes:
            continue
        ok = depth == 0 and ins.dst.cond is None and ins.dst.index is None and all(
            _source_known(program, s, known) for s in ins.srcs)
        for c in range(4):
            if ins.dst.mask[c]:
                known[(ins.dst.reg, c)] = ok and known.get((ins.dst.reg, c), True) \
                    if depth else ok
    if not simple:
        return [_constant_source(program, s) for s in ins_k.srcs]
    if depth:
        for ins in program.instructions[outer:]:
            if ins.dst is not None and OPCODES[ins.op].writes:
                for c in range(4):
                    if ins.dst.mask[c]:
                        known[(ins.dst.reg, c)] = False
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
    if backend == "gl" and ins.op == "RSQ" and ins.sat is not None and \
            ins.sat.name in ("SAT", "SSAT"):
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


