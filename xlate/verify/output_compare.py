"""What the verifier compares of a draw: the program's outputs as the executor holds them
(registers, aliases of one binding) against the implementation's capture, bit for bit
(:func:`compare_all`; geometry primitives by :func:`compare_geometry`), and whether two runs
of the implementation produced the same bits (:func:`same_capture`)."""
from __future__ import annotations

import numpy as np

from ..ir.model import DataType, Program, RegKind, Stage
from . import compare as cmp
from .analysis import Facts


BUILTIN_COMPONENTS = {"gl_Position": (0, 1, 2, 3), "gl_PointSize": (0,), "gl_FragDepth": (2,),
                      "gl_Layer": (0,), "gl_PrimitiveID": (0,), "gl_ViewportIndex": (0,)}


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


def diff_key(d) -> tuple:
    return (d.output, d.lane, d.component, d.kind)


def diff_words(diffs) -> dict:
    return {diff_key(d): d.got for d in diffs}


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


def same_primitives(a, b, canon=None, same=None) -> bool:
    """Geometry captures (per lane, the primitives, each a list of vertices {output name:
    words}) with the same bits; ``==`` on them would compare NumPy arrays elementwise.
    ``canon(name, words)``: what is compared of an output's words (default: the words);
    ``same(name, words_a, words_b)``: whether two vertices' words of an output count as the
    same (default: equal after ``canon``)."""
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
                    if same is not None:
                        if not same(k, va[k], vb[k]):
                            return False
                        continue
                    wa, wb = (va[k], vb[k]) if canon is None else (canon(k, va[k]),
                                                                   canon(k, vb[k]))
                    if not np.array_equal(wa, wb):
                        return False
    return True


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
        elems = binding_elements(elems_of, o["binding"])
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


def binding_elements(elems_of: dict, binding: str):
    for k in (binding, binding + "[0]", binding[:-3] if binding.endswith("[0]") else None):
        if k is not None and k in elems_of:
            return elems_of[k]
    return None


def compare_geometry(program, facts, reflection, res, cap, elems_of, strict: bool = False):
    from .capture import strip_primitives
    kind = program.geometry.output_primitive
    diffs: list[cmp.Difference] = []
    compared = 0
    outs = [o for o in reflection["outputs"] if o["name"] in captured_names(cap)]
    specs = {}
    for o in outs:
        elems = binding_elements(elems_of, o["binding"])
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


def captured_names(cap) -> set[str]:
    for prims in cap.primitives or []:
        for p in prims:
            return set(p[0].keys())
    return set()
