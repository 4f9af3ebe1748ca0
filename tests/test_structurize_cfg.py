"""The general structurizer (xlate/passes/structurize.py: unstructured BRA/CAL/RET, PUSHA/POPA).

Property tests: random programs with random forward and backward branches, calls, returns and
address-stack operations are structured, the structured form is turned back into linear IR
(``structurize.linearize``) and the executor runs both: every output of every lane must be equal
bit for bit.  The same programs translate to GLSL and valid SPIR-V, and -- where an OpenGL
implementation is available -- the translated shader agrees with the executor
(``xlate.verify``).  Handcrafted cases cover irreducible graphs (the dispatch fallback), call
depth overflow, the expansion limit, and structured IF/REP mixed with unstructured labels."""
from __future__ import annotations

import random

import numpy as np
import pytest

import xlate
from test_exec_helpers import build
from xlate.ir.model import Program
from xlate.ir.validate import validate
from xlate.passes import structurize as S


def random_program(seed: int, n_blocks: int = 7) -> str:
    """ARBvp1.0 + NV_vertex_program3: labelled blocks that record the path taken in ``t``
    (t = 3t + block), set CC0/CC1 from per-lane inputs, and branch, call and return at random.
    Backward branches decrement a counter first, so every program terminates; the address
    register stays in [-2, 3] (relative reads out of range are undefined)."""
    rng = random.Random(seed)
    out = ["!!ARBvp1.0", "OPTION NV_vertex_program3;", "ADDRESS A0;", "TEMP t, k0, k1, k2, s;",
           "PARAM tab[8] = { 10, 20, 30, 40, 50, 60, 70, 80 };",
           "MOV result.position, vertex.position;", "MOV t, 0;", "MOV k0, 2;", "MOV k1, 3;",
           "MOV k2, 1;", "MAX s, vertex.attrib[1], -2;", "MIN s, s, 3;", "ARL A0, s;"]
    conds = ["", " (GT.x)", " (LE.y)", " (NE.z)", " (EQ.w)", " (LT1.x)", " (GE.xyzw)", " (FL)",
             " (TR)"]
    for b in range(n_blocks):
        out.append(f"L{b}:")
        out.append(f"MAD t, t, 3, {b + 1};")
        r = rng.random()
        if r < 0.35:
            out.append(f"MOVC s, vertex.attrib[{rng.randint(1, 3)}];")
        elif r < 0.5:
            out.append(f"MOVC1 s, vertex.attrib[{rng.randint(1, 3)}].{rng.choice('xyzw')};")
        if rng.random() < 0.08:
            out.append("PUSHA A0;")
        if rng.random() < 0.08:
            out.append("POPA A0;")
            out.append("ADD t, t, tab[A0.x + 2];")
        if rng.random() < 0.25:
            out.append("MOV result.color, t;")
        kind = rng.choice(["none", "bra", "bra", "bra", "cal", "ret", "retc"])
        target = rng.randrange(n_blocks)
        cond = rng.choice(conds)
        if kind == "bra":
            if target <= b:
                k = rng.randrange(3)
                out += [f"ADDC k{k}.x, k{k}.x, -1;", f"BRA L{target} (GT.x);"]
            else:
                out.append(f"BRA L{target}{cond};")
        elif kind == "cal":
            out.append(f"CAL L{target}{cond};")
        elif kind == "ret":
            out.append("RET;")
        elif kind == "retc":
            out.append(f"RET{cond};")
    out += ["MOV result.texcoord[0], t;", "END"]
    return "\n".join(out) + "\n"


def lane_inputs(seed: int, lanes: int = 48) -> dict:
    rng = np.random.default_rng(seed)
    choice = np.array([-2, -1, 0, 0, 1, 2, 3, np.nan], np.float32)
    ins = {f"vertex.attrib[{i}]": rng.choice(choice, size=(lanes, 4)).astype(np.float32)
           for i in (1, 2, 3)}
    ins["vertex.position"] = rng.standard_normal((lanes, 4)).astype(np.float32)
    return ins


def same_outputs(a, b) -> None:
    assert set(a.outputs) == set(b.outputs)
    for name in a.outputs:
        assert np.array_equal(a.words(name), b.words(name)), name


def used_inputs(prog: Program, inputs: dict) -> dict:
    names = {r.name for r in prog.registers.values()} | {
        b.text() for r in prog.registers.values() for b in r.bindings if b is not None}
    return {k: v for k, v in inputs.items() if k in names}


def run_both(prog: Program, inputs: dict, **kw):
    inputs = used_inputs(prog, inputs)
    st = S.structurize(prog)
    lin = S.linearize(st) if st.mode != "functions" else prog
    validate(lin)
    return st, xlate.execute(prog, inputs, **kw), xlate.execute(lin, inputs, **kw)


#: seeds 0-59 plus seeds whose graphs are irreducible (the dispatch fallback): 4% of random graphs
SEEDS = list(range(60)) + [64, 81, 82, 101, 103, 118, 124, 134]


@pytest.mark.parametrize("seed", SEEDS)
def test_random_programs_structure_preserves_semantics(seed):
    src = random_program(seed, n_blocks=5 + seed % 6)
    prog = xlate.parse(src)
    st, want, got = run_both(prog, lane_inputs(seed))
    assert st.mode in ("structured", "dispatch")
    assert not want.steps_exceeded.any()
    same_outputs(want, got)


def test_random_programs_cover_both_general_modes():
    modes = {S.structurize(xlate.parse(random_program(s, 5 + s % 6))).mode for s in SEEDS}
    assert modes == {"structured", "dispatch"}


@pytest.mark.parametrize("seed", SEEDS[::3])
def test_random_programs_translate_to_valid_spirv(seed):
    out = xlate.translate(random_program(seed, 5 + seed % 6), target="spirv")
    assert out.spirv[:4] == b"\x03\x02\x23\x07"
    xlate.translate(random_program(seed, 5 + seed % 6), target="glsl")   # glsl450, compiled


def _gl_runner():
    try:
        from xlate.verify import gl as glmod
        from xlate.verify.glapi import GLUnavailable
    except Exception as e:                      # pragma: no cover - verify not importable
        pytest.skip(f"xlate.verify unavailable: {e}")
    try:
        return glmod.Runner("gl")
    except GLUnavailable as e:
        pytest.skip(f"no OpenGL implementation: {e}")
    except Exception as e:                      # pragma: no cover - broken driver
        pytest.skip(f"no OpenGL implementation: {type(e).__name__}: {e}")


@pytest.mark.parametrize("seed", SEEDS[::4])
def test_random_programs_glsl_agrees_with_the_executor(seed):
    """The translated shader on a real implementation (Mesa llvmpipe where no GPU is present)
    computes what the executor computes (the verify subsystem's comparison rules)."""
    runner = _gl_runner()
    from xlate.verify.core import verify_source
    rep = verify_source(random_program(seed, 5 + seed % 6), f"random{seed}.vp", lanes=64,
                        runner=runner)
    assert rep.status == "pass", (rep.reason, rep.differences[:3])


# ---- handcrafted graphs ------------------------------------------------------------------------

IRREDUCIBLE = """!!VP2.0
# a loop with two entries (a and b): not reducible, so the dispatch fallback
MOV o[HPOS], v[0];
MOV R1, v[3];
MOVC CC, v[1];
BRA b (GT.x);
a:
ADD R0, R0, v[2];
ADDC R1.x, R1.x, -v[2].y;
BRA done (LE.x);
b:
MAD R0, R0, v[2].z, v[2].w;
ADDC R1.y, R1.y, -v[2].y;
BRA a (GT.y);
done:
MOV o[COL0], R0;
MOV o[COL1], R1;
END
"""


def irreducible_inputs():
    lanes = 8
    v1 = np.zeros((lanes, 4), np.float32)
    v1[::2, 0] = 1                       # half the lanes enter at b
    return {"v[0]": np.zeros((lanes, 4), np.float32), "v[1]": v1,
            "v[2]": np.tile(np.array([[1, 1, 2, 1]], np.float32), (lanes, 1)),
            "v[3]": np.tile(np.array([[3, 4, 0, 0]], np.float32), (lanes, 1))}


def test_irreducible_graph_uses_the_dispatch_loop():
    prog = xlate.parse(IRREDUCIBLE)
    st, want, got = run_both(prog, irreducible_inputs())
    assert st.mode == "dispatch"
    same_outputs(want, got)
    r = want.float("o[COL0]")
    assert r[0].tolist() != r[1].tolist()          # both entries were exercised
    glsl = xlate.translate(IRREDUCIBLE, target="spirv").glsl
    assert "switch (xl_pc)" in glsl and "if (++xl_iter > 65536) return;" in glsl


def test_irreducible_graph_on_gl():
    runner = _gl_runner()
    from xlate.verify.core import verify_source
    rep = verify_source(IRREDUCIBLE, "irreducible.vp", lanes=64, runner=runner)
    assert rep.status == "pass", (rep.reason, rep.differences[:3])


def test_reducible_loop_becomes_a_guarded_for_loop():
    src = ("!!VP2.0\nMOV o[HPOS], v[0];\nMOV R1, v[1];\ntop:\nADD R0, R0, v[2];\n"
           "ADDC R1.x, R1.x, -v[2].y;\nBRA top (GT.x);\nMOV o[COL0], R0;\nEND\n")
    st = S.structurize(xlate.parse(src))
    assert st.mode == "structured"
    loops = [n for n in st.main.body if isinstance(n, S.Labeled) and n.kind == "loop"]
    assert len(loops) == 1 and loops[0].guard
    glsl = xlate.translate(src).glsl
    assert "for (;;)" in glsl and "xl_iter" in glsl and "switch" not in glsl


def test_calls_are_inlined_per_call_site():
    src = ("!!VP2.0\nmain:\nMOV o[HPOS], v[0];\nCAL f;\nCAL f (GT.x);\nRET;\n"
           "f:\nADD R0, R0, v[1];\nMOV o[COL0], R0;\nRET;\nEND\n")
    prog = xlate.parse(src)
    st = S.structurize(prog)
    assert st.mode == "structured" and not st.functions
    ops = []

    def walk(nodes):
        for n in nodes:
            if isinstance(n, S.Op):
                ops.append(n.ins.op)
            elif isinstance(n, S.If):
                walk(n.then)
                walk(n.orelse)
            elif isinstance(n, S.Labeled):
                walk(n.body)
    walk(st.main.body)
    assert ops.count("ADD") == 2                  # one copy per call site
    glsl = xlate.translate(src).glsl
    assert "sub_" not in glsl


def test_call_depth_overflow_terminates_in_the_structured_form():
    src = ("!!VP2.0\nMOV o[HPOS], v[0];\nCAL r;\nMOV o[COL1], v[1];\nRET;\n"
           "r:\nADD R0, R0, v[1];\nMOV o[COL0], R0;\nCAL r;\nRET;\nEND\n")
    prog = xlate.parse(src)
    st, want, got = run_both(prog, {"v[0]": np.zeros(4, np.float32),
                                    "v[1]": np.ones(4, np.float32)})
    same_outputs(want, got)
    assert want.float("o[COL0]").tolist() == [[4, 4, 4, 4]]


def test_expansion_limit_falls_back_to_dispatch(monkeypatch):
    src = ("!!VP2.0\nmain:\nMOV o[HPOS], v[0];\nCAL a;\nCAL a;\nRET;\na:\nCAL b;\nCAL b;\nRET;\n"
           "b:\nCAL c;\nCAL c;\nRET;\nc:\nADD R0, R0, v[1];\nMOV o[COL0], R0;\nRET;\nEND\n")
    prog = xlate.parse(src)
    assert S.structurize(prog).mode == "structured"
    monkeypatch.setattr(S, "MAX_EXPANDED", 30)
    st, want, got = run_both(prog, {"v[0]": np.zeros(4, np.float32),
                                    "v[1]": np.ones(4, np.float32)})
    assert st.mode == "dispatch"
    same_outputs(want, got)
    assert want.float("o[COL0]").tolist() == [[8, 8, 8, 8]]
    assert "xl_rs[xl_sp]" in xlate.translate(src, target="spirv").glsl


def test_pusha_popa_in_the_dispatch_loop(monkeypatch):
    src = ("!!ARBvp1.0\nOPTION NV_vertex_program3;\nADDRESS A0;\nTEMP t;\n"
           "PARAM tab[10] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 };\n"
           "ARL A0, vertex.attrib[1];\nPUSHA A0;\nCAL f;\nPOPA A0;\nMOV result.color, tab[A0.y];\n"
           "RET;\nf:\nARL A0, vertex.attrib[2];\nMOV result.texcoord[0], tab[A0.x];\nRET;\nEND\n")
    prog = xlate.parse(src)
    ins = {"vertex.attrib[1]": np.array([[5, 6, 7, 8]], np.float32),
           "vertex.attrib[2]": np.array([[1, 2, 3, 4]], np.float32)}
    for limit in (S.MAX_EXPANDED, 3):
        monkeypatch.setattr(S, "MAX_EXPANDED", limit)
        st, want, got = run_both(prog, ins)
        same_outputs(want, got)
        assert want.float("result.color").tolist() == [[6, 6, 6, 6]]
        assert want.float("result.texcoord[0]").tolist() == [[1, 1, 1, 1]]
        xlate.translate(src, target="spirv")
    assert st.mode == "dispatch"


def test_structured_if_and_rep_in_the_general_path():
    # IR with IF/REP (structured) plus a label that execution falls into and a CAL in a
    # dialect whose call overflow terminates: the general path lowers the blocks too
    prog = build("""
        MOV t, 0
        MOV.CC R0, a    #kind=FLOAT
        CAL f
        IF GT.x
        REP a.y
        ADD t, t, 1
        MOV.CC R1, a    #kind=FLOAT
        BRK (GT.z)
        ENDREP
        ELSE
        ADD t, t, 100
        ENDIF
        f:
        ADD t, t, 1000
        MOV o, t
        RET
    """, inputs={"a": "vertex.attrib[0]"}, outputs={"o": "result.color"})
    prog.call_overflow = "terminate"
    assert S.needs_general(prog)
    a = np.array([[1, 3, 0, 0], [-1, 3, 0, 0], [1, 0, 0, 0], [1, 5.5, 0, 0]], np.float32)
    a[:, 2] = [-1, -1, -1, 1]
    st, want, got = run_both(prog, {"a": a})
    assert st.mode == "structured"
    same_outputs(want, got)
    from xlate.backends.glsl import emit_glsl
    from xlate.api import compile_checked
    out = emit_glsl(prog)
    compile_checked(out.source, prog, "glsl450", "rep.vp", spirv=False)


def test_nv4_programs_keep_the_per_function_tree():
    src = ("!!NVvp4.0\nTEMP t;\nmain:\nMOV t, vertex.position;\nCAL f;\nMOV result.position, t;\n"
           "RET;\nf:\nADD t, t, 1;\nRET;\nEND\n")
    st = S.structurize(xlate.parse(src))
    assert st.mode == "functions" and set(st.functions) == {"f"}


def test_linearize_roundtrip_of_the_worked_example():
    from test_vp_frontend import VP2_A, params
    prog = xlate.parse(VP2_A)
    for count in (0, 1, 3):
        p = params(256, c0=[count, 16, -1, 2], c1=[0, 0, 0, 1], c4=[1, 0, 0, 0], c5=[0, 1, 0, 0],
                   c6=[0, 0, 1, 0], c7=[0, 0, 0, 1], c16=[0, 0, 1, 0], c17=[1, 0, 0, 0],
                   c18=[0, 0, -1, 0], c19=[0, 1, 0, 0], c20=[0, 0.6, 0.8, 0], c21=[0, 0, 1, 0])
        st, want, got = run_both(prog, {"v[0]": np.array([0.5, 0.5, 0, 1], np.float32),
                                        "v[2]": np.array([0, 0, 1, 1], np.float32)}, params=p)
        same_outputs(want, got)
