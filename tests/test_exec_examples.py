"""Executor end to end: the NV4 worked examples of design/nv_dialects.md §11.6-§11.8, parsed by
the frontend and run with the inputs and expected values stated there (the texture-free ones:
VP4-A, VP4-B, FP4-B, GP4-A, GP4-B)."""
from __future__ import annotations

import numpy as np

from xlate.exec import execute
from xlate.frontends import parse_program
from nv4_examples import VP4_A, VP4_B, FP4_B, GP4_A, GP4_B, PBO

F32 = np.float32


def out(prog, result, binding):
    """Output words by binding text (the frontend names implicit outputs after them)."""
    for reg in prog.registers.values():
        if reg.kind.value == "output" and reg.bindings and reg.bindings[0] is not None \
                and reg.bindings[0].text() in (binding, binding + "[0]"):
            return result.outputs[reg.name]
    raise KeyError(binding)


# ---- VP4-A (§11.6) ------------------------------------------------------------------------------

def test_vp4a_loop_brk_cal_relative_param():
    prog = parse_program(VP4_A, "vp4a.vp")
    table = np.array([[1, j, 0, 0.125] for j in range(8)], F32)
    # three lanes: the main case and the two variants of §11.6 (per-lane ctl)
    ctl = np.array([[2.5, 5, 0, 0], [100, 5, 0, 0], [2.5, 0.5, 0, 0]], F32)
    r = execute(prog, {"vertex.position": [0., 0, 0, 1], "vertex.id": 6},
                params={"program.local": np.concatenate([table, [[0, 0, 0, 0]]]),
                        "program.local[8]": ctl,
                        "state.matrix.mvp.row": np.eye(4, dtype=F32)})
    color = out(prog, r, "result.color").view(F32)
    tex = out(prog, r, "result.texcoord[0]").view(F32)
    assert color.tolist() == [[1, 1, 0, 0.375], [1, 1, 0, 0.625], [0, 0, 0, 0]]
    assert tex[:, 0].tolist() == [9, 11, 6]
    assert out(prog, r, "result.position").view(F32).tolist() == [[0, 0, 0, 1]] * 3
    # the same through element bindings (program.local[j]) and the register names
    params = {f"program.local[{j}]": table[j] for j in range(8)}
    params.update({"ctl": ctl[0], "mvp": np.eye(4, dtype=F32)})
    r2 = execute(prog, {"vertex.position": [0., 0, 0, 1], "vertex.id": 6}, params=params)
    assert out(prog, r2, "result.color").view(F32).tolist() == [[1, 1, 0, 0.375]]


# ---- VP4-B (§11.6) ------------------------------------------------------------------------------

def _vp4b(u):
    prog = parse_program(VP4_B, "vp4b.vp")
    s = np.array([0x7FFFFFFF, 1, 7, 2], np.int64)
    r = execute(prog, {"vertex.position": [0., 0, 0, 1]},
                params={"program.local[0]": np.array(u, np.uint32), "program.local[1]": s})
    return prog, r


def test_vp4b_integer_alu_flags_conversions():
    prog, r = _vp4b([0xFFFFFFFF, 1, 0x80000000, 3])
    assert out(prog, r, "result.attrib[0]").tolist() == [[1, 1, 0, 2]]
    assert out(prog, r, "result.attrib[1]").view(np.int32).tolist() == [[2, -1, 3, 1]]
    assert out(prog, r, "result.attrib[2]").tolist() == [[0xFFFFFFFE, 48, 0, 0]]
    assert out(prog, r, "result.texcoord[0]").view(F32).tolist() == [[1073741824.0, 0, 3, 1]]


def test_vp4b_variant_no_overflow():
    prog, r = _vp4b([0xFFFFFFFF, 1, 0x20000000, 3])
    assert out(prog, r, "result.attrib[0]").tolist() == [[1, 0, 0, 0]]
    assert out(prog, r, "result.texcoord[0]").view(F32).tolist() == [[-1, -1, 3, 1]]
    assert out(prog, r, "result.attrib[1]").view(np.int32).tolist() == [[2, -1, 3, 1]]
    assert out(prog, r, "result.attrib[2]").tolist() == [[0xFFFFFFFE, 48, 0, 0]]


# ---- FP4-B (§11.7) ------------------------------------------------------------------------------

def test_fp4b_rep_cont_nan_facing_depth():
    prog = parse_program(FP4_B, "fp4b.fp")
    tc = np.array([[0.1, 0.2, 0.3, 1.0], [0.1, 0.2, 0.3, 1.0], [0.1, 0.2, 0, 0],
                   [0.1, 0.2, 0, 0], [0.1, 0.2, 0.3, 1.0]], F32)
    face = np.array([[1, 0, 0, 0], [-1, 0, 0, 0], [1, 0, 0, 0], [-1, 0, 0, 0], [1, 0, 0, 0]], F32)
    n = np.array([[4, 0, 0, 0]] * 4 + [[1, 0, 0, 0]], F32)
    r = execute(prog, {"tc": tc, "fragment.facing": face}, params={"program.local[0]": n})
    color = out(prog, r, "result.color").view(F32)
    t = tc[0]
    assert color[0].tolist() == [t[0] * 2, t[1] * 2, t[2] * 2, 2.0]   # (0.2, 0.4, 0.6, 2.0)
    assert color[1].tolist() == [t[0], t[1], t[2], 2.0]               # (0.1, 0.2, 0.3, 2.0)
    assert color[2].tolist() == [1, 0, 1, 1]
    assert color[3].tolist() == [0.5, 0, 0.5, 1]
    assert color[4].tolist() == [0, 0, 0, 0]
    assert out(prog, r, "result.depth").view(F32)[:, 2].tolist() == [F32(0.1)] * 5
    assert not r.killed.any()


# ---- GP4-A, GP4-B (§11.8) ----------------------------------------------------------------------

def _verts(prog, strip, *names):
    regs = {reg.bindings[0].text(): n for n, reg in prog.registers.items()
            if reg.kind.value == "output" and reg.bindings}
    return [tuple(tuple(v[regs[nm]].view(F32).tolist()) for nm in names) for v in strip]


def test_gp4a_two_strips():
    P = np.array([[0, 0, 0, 1], [1, 0, 0, 1], [0, 1, 0, 1]], F32)
    C = np.array([[0.25, 0, 0, 1], [0, 0.5, 0, 1], [0, 0, 0.75, 1]], F32)
    prog = parse_program(GP4_A, "gp4a.gp")
    r = execute(prog, {"vertex.position": P, "vertex.color": C},
                params={"program.local[0]": [2., 0, 0, 0]})
    (strips,) = r.primitives
    assert len(strips) == 2
    assert _verts(prog, strips[0], "result.position", "result.color") == \
        [(tuple(P[k]), tuple(C[k])) for k in range(3)]
    red = (1, 0, 0, 1)
    assert _verts(prog, strips[1], "result.position", "result.color") == \
        [((2, 1, 0, 1), red), ((3, 0, 0, 1), red), ((2, 0, 0, 1), red)]
    # run-time variant: VERTICES_OUT 5 -> the sixth EMIT has no effect
    prog5 = parse_program(GP4_A.replace("VERTICES_OUT 6", "VERTICES_OUT 5"), "gp4a5.gp")
    r5 = execute(prog5, {"vertex.position": P, "vertex.color": C},
                 params={"program.local[0]": [2., 0, 0, 0]})
    assert [len(s) for s in r5.primitives[0]] == [3, 2]


def test_gp4b_point_to_quad_early_ret():
    prog = parse_program(GP4_B, "gp4b.gp")
    ids = np.array([[4, 0, 0, 0], [3, 0, 0, 0], [4, 0, 0, 0], [4, 0, 0, 0]], np.int64)
    size = np.array([[0.25, 0, 0, 0], [0.25, 0, 0, 0], [0, 0, 0, 0], [np.nan, 0, 0, 0]], F32)
    r = execute(prog, {"primitive.id": ids, "vertex[0].position": [0.5, 0.5, 0, 1],
                       "vertex[0].pointsize": size})
    # LE is SF ^ (ZF || OF) (GP4 Table X.16): false for NaN (SF = ZF = 1), so a NaN size is
    # not rejected ("NaN passes!") and the quad is emitted with NaN positions
    assert [len(lane) for lane in r.primitives] == [1, 0, 0, 1]
    corners = [(-1, -1, 0, 0), (1, -1, 0, 0), (-1, 1, 0, 0), (1, 1, 0, 0)]
    assert _verts(prog, r.primitives[0][0], "result.position", "result.texcoord[0]") == [
        ((0.25, 0.25, 0, 1), corners[0]), ((0.75, 0.25, 0, 1), corners[1]),
        ((0.25, 0.75, 0, 1), corners[2]), ((0.75, 0.75, 0, 1), corners[3])]
    # the per-vertex spelling of the same inputs (POINTS: one input vertex)
    r2 = execute(prog, {"primitive.id": 4, "vertex.position": [[0.5, 0.5, 0, 1]],
                        "vertex.pointsize": [[0.25, 0, 0, 0]]})
    assert _verts(prog, r2.primitives[0][0], "result.position")[3] == ((0.75, 0.75, 0, 1),)


def test_gp4b_label_ends_main():
    # §11.8 semantics check: without the final RET of main, the label `corner:` still ends the
    # main subroutine -- the program terminates instead of falling into `corner`
    text = GP4_B.replace("  ENDREP;\n  RET;\ncorner:", "  ENDREP;\ncorner:")
    assert text != GP4_B
    prog = parse_program(text, "gp4b2.gp")
    r = execute(prog, {"primitive.id": 4, "vertex[0].position": [0.5, 0.5, 0, 1],
                       "vertex[0].pointsize": [0.25, 0, 0, 0]})
    assert [len(s) for s in r.primitives[0]] == [4]


def test_pbo_bones_relative_buffer4():
    # §11.9: attrib[6].x = 1.0 selects rows 3..5 of buffer binding 0
    prog = parse_program(PBO, "pbo.vp")
    rows = np.arange(6 * 4, dtype=F32).reshape(6, 4)
    pos = np.array([1, 2, 3, 1], F32)
    r = execute(prog, {"vertex.attrib[6]": np.array([[1.0, 0, 0, 0], [0.4, 0, 0, 0]], F32),
                       "vertex.position": pos},
                params={"program.buffer[0]": rows, "state.matrix.mvp.row": np.eye(4, dtype=F32)})
    got = out(prog, r, "result.position").view(F32)
    assert got[0].tolist() == [rows[3] @ pos, rows[4] @ pos, rows[5] @ pos, 1]
    assert got[1].tolist() == [rows[0] @ pos, rows[1] @ pos, rows[2] @ pos, 1]
