"""Executor: control flow (GP4 §2.X.5, §2.X.8.Z IF/ELSE/ENDIF/REP/ENDREP/BRK/CONT/CAL/RET;
digest §7.3), KIL (FP4 §2.X.8.Z KIL; digest §5.11), EMIT/ENDPRIM (GEO4; digest §7.3), the step
watchdog, and divergent lanes."""
from __future__ import annotations

import numpy as np

from test_exec_helpers import bits_equal, build
from xlate.exec import execute
from xlate.ir.model import Geometry

INS = {k: f"vertex.attrib[{i}]" for i, k in enumerate("abcd")}
OUTS = {"o": "result.color", "q": "result.texcoord[0]"}


def run(text, stage="vertex", entry=None, **kw):
    ins = {k: v for k, v in kw.items() if k in "abcd"}
    rest = {k: v for k, v in kw.items() if k not in "abcd"}
    inputs = {k: (v if stage != "fragment" else v.replace("vertex.", "fragment."))
              for k, v in INS.items()}
    p = build(text, stage=stage, inputs=inputs, outputs=OUTS, entry=entry)
    return execute(p, ins, **rest)


def f(*v):
    return np.array(v, np.float32)


def col(r, name="o", c=0):
    return r.float(name)[:, c].tolist()


# ---- IF / ELSE / ENDIF ---------------------------------------------------------------------

def test_if_else_divergent_lanes():
    # GP4 IF: passes if any of the 4 swizzled tests passes; else -> after ELSE
    r = run("""
        MOV.CC R0, a
        IF GT.x
          MOV o, 1
        ELSE
          MOV o, 2
        ENDIF
        ADD o.y, o.x, 10
    """, a=np.array([[1, 0, 0, 0], [-1, 0, 0, 0], [0, 5, 0, 0], [3, 0, 0, 0]], np.float32))
    assert col(r) == [1, 2, 2, 1]
    assert col(r, c=1) == [11, 12, 12, 11]


def test_if_any_component_and_no_else():
    r = run("""
        MOV.CC R0, a
        MOV o, 7
        IF GT
          MOV o, 1
        ENDIF
    """, a=np.array([[0, 0, 0, 1], [0, 0, 0, 0], [-1, -1, -1, -1]], np.float32))
    assert col(r) == [1, 7, 7]


def test_nested_if():
    r = run("""
        MOV.CC R0, a
        IF GT.x
          IF GT.y
            MOV o, 1
          ELSE
            MOV o, 2
          ENDIF
        ELSE
          IF GT.y
            MOV o, 3
          ELSE
            MOV o, 4
          ENDIF
        ENDIF
    """, a=np.array([[1, 1, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 0, 0]], np.float32))
    assert col(r) == [1, 2, 3, 4]


# ---- REP / ENDREP / BRK / CONT ---------------------------------------------------------------

def test_rep_float_count_floor_and_skip():
    # GP4 REP: count = floor(x), read once; count <= 0 skips the block; NaN -> 0 (project choice)
    r = run("""
        MOV o, 0
        MOV R1, a
        REP R1.x
          ADD o, o, 1
          MOV R1.x, 100
        ENDREP
    """, a=np.array([[2.9, 0, 0, 0], [0.5, 0, 0, 0], [-3, 0, 0, 0], [np.nan, 0, 0, 0],
                     [5, 0, 0, 0]], np.float32))
    assert col(r) == [2, 0, 0, 0, 5]


def test_rep_integer_count():
    r = run("""
        MOV.S i, a
        MOV.S k, 0
        REP.S i.x
          ADD.S k, k, 3
        ENDREP
        I2F o, k
    """, a=np.array([[4, 0, 0, 0], [-1, 0, 0, 0], [0, 0, 0, 0]], np.int64))
    assert col(r) == [12, 0, 0]
    r = run("""
        MOV.U k, 0
        REP.U a.x
          ADD.U k, k, 1
        ENDREP
        I2F.U o, k
    """, a=np.array([[0xFFFFFFFF, 0, 0, 0]], np.int64), max_steps=50)
    assert bool(r.steps_exceeded[0])            # .U count 0xFFFFFFFF is positive (not -1)


def test_brk_and_cont():
    # GP4 BRK: leave the innermost loop; CONT: next iteration (through ENDREP)
    r = run("""
        MOV o, 0
        MOV q, 0
        MOV R1, 0
        REP 10
          ADD R1.x, R1.x, 1
          SGE.CC R2.x, R1.x, a.x
          BRK (NE.x)
          FRC.CC R2.y, {0.5}.x
          SLT.CC R2.z, R1.x, 3
          CONT (NE.z)
          ADD o, o, 1
        ENDREP
        MOV q, R1
    """, a=np.array([[5, 0, 0, 0], [2, 0, 0, 0], [100, 0, 0, 0]], np.float32))
    # iterations 1,2 continue; iteration k >= 3 adds; BRK when R1.x >= a.x (before adding)
    assert col(r) == [2, 0, 8]
    assert col(r, "q") == [5, 2, 10]


def test_brk_unconditional_and_countless_rep():
    # REP without count loops until BRK
    r = run("""
        MOV o, 0
        REP
          ADD o, o, 1
          SGE.CC R0.x, o.x, a.x
          IF NE.x
            BRK
          ENDIF
        ENDREP
    """, a=np.array([[3, 0, 0, 0], [1, 0, 0, 0], [7, 0, 0, 0]], np.float32))
    assert col(r) == [3, 1, 7]


def test_nested_loops_with_brk_inner_only():
    # GP4 issue 16: BRK/CONT apply to the innermost REP only
    r = run("""
        MOV o, 0
        REP 3
          MOV R1, 0
          REP 5
            ADD R1.x, R1.x, 1
            SGE.CC R2.x, R1.x, a.x
            BRK (NE.x)
            ADD o.y, o.y, 1
          ENDREP
          ADD o.x, o.x, 1
        ENDREP
    """, a=np.array([[2, 0, 0, 0], [10, 0, 0, 0]], np.float32))
    assert col(r) == [3, 3]
    assert col(r, c=1) == [3, 15]


def test_loop_count_read_once():
    # GP4 issue 17: writing the count register inside the loop has no effect
    r = run("""
        MOV R0, 3
        MOV o, 0
        REP R0.x
          ADD R0.x, R0.x, 1
          ADD o, o, 1
        ENDREP
    """)
    assert col(r) == [3]


# ---- CAL / RET -------------------------------------------------------------------------------

def test_cal_ret_and_entry():
    # GP4 CAL/RET; execution starts after `main:`; RET in main ends the program
    r = run("""
        sub:
          ADD o, o, 10
          RET
        main:
          MOV o, 1
          CAL sub
          CAL sub
          RET
          MOV o, -1
    """, entry="main")
    assert col(r) == [21]


def test_conditional_cal_and_ret():
    r = run("""
        main:
          MOV.CC R0, a
          MOV o, 0
          CAL f (GT.x)
          RET (LT.y)
          ADD o, o, 100
          RET
        f:
          ADD o, o, 1
          RET (GT.z)
          ADD o, o, 10
          RET
    """, entry="main", a=np.array([[1, 0, 1, 0], [1, 0, 0, 0], [0, -1, 0, 0], [1, -1, 0, 0]],
                                  np.float32))
    assert col(r) == [101, 111, 0, 11]


def test_ret_leaves_loops():
    # GP4 §2.X.5: RET breaks out of enclosing IF/REP blocks -- the caller's loop continues
    r = run("""
        main:
          MOV o, 0
          REP 3
            CAL f
            ADD o.x, o.x, 1
          ENDREP
          RET
        f:
          REP 100
            ADD o.y, o.y, 1
            SGE.CC R0.x, o.y, 2
            IF NE.x
              RET
            ENDIF
          ENDREP
          RET
    """, entry="main")
    assert col(r) == [3] and col(r, c=1) == [4]


def test_call_depth_limit_ignores_fifth_call():
    # GP4 issue 38 / digest §12 item 30: a CAL with MAX_PROGRAM_CALL_DEPTH (4) calls pending
    # has no effect.  main's CAL is the first; rec runs 4 times, the CAL made at depth 4 is
    # skipped (execution continues after it).
    r = run("""
        main:
          MOV o, 0
          CAL rec
          RET
        rec:
          ADD o.x, o.x, 1
          CAL rec
          ADD o.y, o.y, 1
          RET
    """, entry="main")
    assert col(r) == [4] and col(r, c=1) == [4]


def test_recursion_with_divergent_depth():
    r = run("""
        main:
          MOV o, 0
          MOV R0, a
          CAL rec
          RET
        rec:
          ADD o.x, o.x, 1
          SUB.CC R0.x, R0.x, 1
          CAL rec (GT.x)
          RET
    """, entry="main", a=np.array([[1, 0, 0, 0], [2, 0, 0, 0], [3, 0, 0, 0], [9, 0, 0, 0]],
                                  np.float32))
    assert col(r) == [1, 2, 3, 4]


def test_program_end_without_ret():
    # running past the last instruction ends the program
    r = run("MOV o, 3")
    assert col(r) == [3]


# ---- watchdog ----------------------------------------------------------------------------------

def test_watchdog_stops_runaway_lanes_only():
    r = run("""
        MOV o, 0
        MOV.CC R0, a
        IF GT.x
          REP
            ADD o.x, o.x, 1
            BRK (LT.x)
          ENDREP
        ENDIF
        MOV o.y, 9
    """, a=np.array([[1, 0, 0, 0], [-1, 0, 0, 0]], np.float32), max_steps=100)
    assert r.steps_exceeded.tolist() == [True, False]
    assert col(r, c=1) == [0, 9]
    assert col(r)[0] == (100 - 4) // 3         # 4 steps before the loop, 3 per iteration


def test_watchdog_exact_budget():
    # a lane that needs exactly max_steps instructions completes
    text = "\n".join(["MOV o, 1"] * 5)
    assert not run(text, max_steps=5).steps_exceeded[0]
    r = run(text + "\nMOV o, 2", max_steps=5)
    assert r.steps_exceeded[0] and col(r) == [1]


# ---- KIL -----------------------------------------------------------------------------------------

def test_kil_vector_and_stop():
    # FP4 KIL: any component < 0 kills (-0.0 and NaN do not); a killed lane stops
    r = run("""
        MOV o, 1
        KIL a
        MOV o, 2
    """, stage="fragment", a=np.array([[0, 0, 0, -1], [-0.0, 0, np.nan, 5], [1, 2, 3, 4],
                                       [-1e-30, 0, 0, 0]], np.float32))
    assert r.killed.tolist() == [True, False, False, True]
    assert col(r) == [1, 2, 2, 1]


def test_kil_integer_types():
    a = np.array([[0, 0, 0, -1], [1, 1, 1, 1]], np.int64)
    assert run("KIL.S a", stage="fragment", a=a).killed.tolist() == [True, False]
    assert run("KIL.U a", stage="fragment", a=a).killed.tolist() == [False, False]


def test_kil_cc_test():
    r = run("""
        MOV.CC R0, a
        KIL LT.xyxy
        MOV o, 2
    """, stage="fragment", a=np.array([[0, -1, 0, 0], [1, 1, -1, -1], [-1, 0, 0, 0]], np.float32))
    assert r.killed.tolist() == [True, False, True]    # lane 0: y < 0; lane 1: z, w not tested
    assert col(r) == [0, 2, 0]


def test_kil_inside_loop_and_vertex_stage_has_no_killed():
    r = run("""
        MOV o, 0
        REP 4
          ADD o, o, 1
          SUB R0, a, o
          KIL R0
        ENDREP
    """, stage="fragment", a=np.array([[2, 0, 0, 0], [9, 9, 9, 9]], np.float32))
    assert r.killed.tolist() == [True, False] and col(r) == [1, 4]
    assert run("MOV o, 1").killed is None


# ---- EMIT / ENDPRIM ----------------------------------------------------------------------------

def _geo(text, n_out=6, prim="TRIANGLES", **kw):
    g = Geometry(prim, "TRIANGLE_STRIP", n_out)
    p = build(text, stage="geometry", geometry=g,
              inputs={"vpos": "vertex.position", "pid": "primitive.id"},
              outputs={"opos": "result.position", "ocol": "result.color"})
    return execute(p, kw.pop("ins", {}), **kw)


def test_emit_strips_and_snapshots():
    r = _geo("""
        MOV.S i.x, 0
        REP 3
          MOV opos, vpos[i.x]
          MOV ocol, i.x
          EMIT
          ADD.S i.x, i.x, 1
        ENDREP
        ENDPRIM
        ENDPRIM
        MOV opos, 9
        EMIT
    """, ins={"vpos": np.array([[0, 0, 0, 1], [1, 0, 0, 1], [0, 1, 0, 1]], np.float32)})
    assert r.primitives is not None and len(r.primitives) == 1
    strips = r.primitives[0]
    assert [len(s) for s in strips] == [3, 1]          # the empty strip is dropped
    pos = [s["opos"].view(np.float32).tolist() for s in strips[0]]
    assert pos == [[0, 0, 0, 1], [1, 0, 0, 1], [0, 1, 0, 1]]
    assert strips[1][0]["opos"].view(np.float32).tolist() == [9, 9, 9, 9]
    assert strips[0][2]["ocol"].tolist() == [2, 2, 2, 2]      # snapshot, not the final value


def test_emit_vertices_out_limit_and_per_lane():
    r = _geo("""
        REP.S pid.x
          MOV ocol, pid
          EMIT
        ENDREP
    """, n_out=4, ins={"pid": np.array([[0] * 4, [2] * 4, [9] * 4], np.int64)})
    assert [sum(len(s) for s in lane) for lane in r.primitives] == [0, 2, 4]
    assert r.primitives[0] == []


def test_geometry_relative_vertex_clamped():
    r = _geo("""
        MOV.S i.x, -4
        MOV opos, vpos[i.x]
        MOV.S i.x, 10
        MOV ocol, vpos[i.x]
    """, ins={"vpos": np.array([[0, 0, 0, 1], [1, 0, 0, 1], [0, 1, 0, 1]], np.float32)})
    assert r.float("opos").tolist() == [[0, 0, 0, 1]]
    assert r.float("ocol").tolist() == [[0, 1, 0, 1]]


# ---- divergence stress: every lane a different path ---------------------------------------------

def test_divergent_lanes_match_single_lane_runs():
    text = """
        main:
          MOV o, 0
          MOV.S n, a
          REP.S n.x
            ADD o.x, o.x, 1
            AND.S.CC t.x, n.x, 1
            IF NE.x
              CAL odd
            ELSE
              ADD o.z, o.z, 1
            ENDIF
            SUB.S.CC n.x, n.x, 1
            BRK (LE.x)
          ENDREP
          RET
        odd:
          ADD o.y, o.y, 1
          RET
    """
    a = np.array([[k, 0, 0, 0] for k in range(-2, 12)], np.int64)
    full = run(text, entry="main", a=a)
    for lane in range(len(a)):
        one = run(text, entry="main", a=a[lane])
        assert bits_equal(one.float("o")[0], full.float("o")[lane])


def test_divergent_masked_writes_relative_dst_and_cc1_match_single_lane_runs():
    # gather/scatter path: CC-masked writes, partial write masks, relative destinations and
    # CC1 updates on a subset of lanes give the same as running each lane alone
    text = """
        MOV.S i, a
        MOV.CC1 R5, b
        MOV o, 0
        MOV q, 0
        IF GT1.x
          MOV.S.CC1 R6.xz, i
          MOV o.xy (GT1.z), b
          MOV arr[i.y + 1], b.wzyx
          ADD.S.CC R7.yw (NE1.x), i, -1
          MOV q (LT), 7
        ELSE
          MOV arr[i.z], -3
          MOV q.z (NE1.y), 9
        ENDIF
        MOV r, arr[i.w]
        ADD o.zw, r, q.x
    """
    p = build(text, inputs={"a": "vertex.attrib[0]", "b": "vertex.attrib[1]"},
              outputs={"o": "result.color", "q": "result.texcoord[0]"}, temps={"arr": 3})
    rng = np.random.default_rng(3)
    a = rng.integers(-2, 4, size=(40, 4)).astype(np.int64)
    b = rng.normal(size=(40, 4)).astype(np.float32)
    full = execute(p, {"a": a, "b": b})
    for lane in range(40):
        one = execute(p, {"a": a[lane], "b": b[lane]})
        for name in ("o", "q"):
            assert np.array_equal(one.outputs[name][0], full.outputs[name][lane]), (lane, name)
