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

from conftest import gl_runner

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
    """(structured form, executor on the original, executor on the linearized structured form).
    Only the general path ("structured"/"dispatch") has a linear form; a program that takes the
    per-function path is an error here -- comparing the original with itself would pass
    whatever the structurizer did (test_functions_mode_tree_on_gl_agrees_with_the_executor
    checks that path through its GLSL)."""
    inputs = used_inputs(prog, inputs)
    st = S.structurize(prog)
    assert st.mode != "functions", "per-function path: no linear form to compare"
    lin = S.linearize(st)
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
    return gl_runner("gl")


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
    glsl = xlate.translate(IRREDUCIBLE, target="spirv", via="glsl").glsl
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
    monkeypatch.setattr(S.cfg, "MAX_EXPANDED", 30)     # read by the graph builder
    st, want, got = run_both(prog, {"v[0]": np.zeros(4, np.float32),
                                    "v[1]": np.ones(4, np.float32)})
    assert st.mode == "dispatch"
    same_outputs(want, got)
    assert want.float("o[COL0]").tolist() == [[8, 8, 8, 8]]
    assert "xl_rs[xl_sp]" in xlate.translate(src, target="spirv", via="glsl").glsl


def test_pusha_popa_in_the_dispatch_loop(monkeypatch):
    src = ("!!ARBvp1.0\nOPTION NV_vertex_program3;\nADDRESS A0;\nTEMP t;\n"
           "PARAM tab[10] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 };\n"
           "ARL A0, vertex.attrib[1];\nPUSHA A0;\nCAL f;\nPOPA A0;\nMOV result.color, tab[A0.y];\n"
           "RET;\nf:\nARL A0, vertex.attrib[2];\nMOV result.texcoord[0], tab[A0.x];\nRET;\nEND\n")
    prog = xlate.parse(src)
    ins = {"vertex.attrib[1]": np.array([[5, 6, 7, 8]], np.float32),
           "vertex.attrib[2]": np.array([[1, 2, 3, 4]], np.float32)}
    for limit in (S.MAX_EXPANDED, 3):
        monkeypatch.setattr(S.cfg, "MAX_EXPANDED", limit)   # read by the graph builder
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


def test_functions_mode_tree_on_gl_agrees_with_the_executor():
    """The per-function path (subroutines become GLSL functions) has no linear form: its tree is
    checked through the GLSL built from it, run on the implementation, against the executor's
    result of the original program on the same inputs -- and against the values the program
    computes (position + 1 + 2, through two nested calls and a conditional return)."""
    from test_verify_cases import impl_words, run_both as run_on_gl
    src = ("!!NVvp4.0\nTEMP t;\nmain:\nMOV t, vertex.position;\nCAL f;\n"
           "MOV result.position, t;\nRET;\nf:\nADD t, t, 1;\nCAL g;\nRET;\n"
           "g:\nMOV.CC t.x, t.x;\nRET (LT.x);\nADD t, t, 2;\nRET;\nEND\n")
    assert S.structurize(xlate.parse(src)).mode == "functions"
    pos = np.array([[0, 1, 2, 1], [-5, 0, 0, 1], [3, -1, 0, 0], [-1, 2, 2, 2]], np.float32)
    want = pos + 1
    want[want[:, 0] >= 0] += 2                      # g returns early where t.x < 0
    diffs, res, cap = run_on_gl(src, {"vertex.position": pos})
    assert res.float("result.position").tolist() == want.tolist()
    assert impl_words(src, cap, "result.position").view(np.float32).tolist() == want.tolist()
    assert diffs == [], [d.describe() for d in diffs]


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


# ---- depth: no recursion, bounded nesting, linear work -----------------------------------------
# The general path builds its tree with an explicit stack (S._Ramsey.tree), simplifies it without
# recursion, and gives the flat dispatch loop to graphs whose constructs would nest deeper than
# S.MAX_STRUCTURE_DEPTH (which bounds the GLSL backend's recursion); the per-function path checks
# the same bound.  Shapes, in ARBvp1.0 + NV_vertex_program3 (4,096 instructions) and VP2.0 (256):

WEB_HEAD = ("!!ARBvp1.0\nOPTION NV_vertex_program3;\nPARAM c[4] = { program.env[0..3] };\n"
            "TEMP R0, R1;\nMOV R0, vertex.position;\nMOVC R1.x, vertex.attrib[1].x;\n")
WEB_TAIL = "MOV result.position, R0;\nEND\n"


def chain(n: int) -> str:
    """n conditional skips one after the other: the dominator tree is a chain n deep, the
    structured form one level deep."""
    return WEB_HEAD + "".join(f"L{i}: ADD R0, R0, c[{i % 4}];\nBRA L{i + 1} (GT.x);\n"
                              "MUL R0, R0, c[1];\n" for i in range(n)) + f"L{n}: " + WEB_TAIL


def nested_skips(n: int) -> str:
    """BRA L0 .. BRA Ln-1 first, the labels after in reverse: n nested blocks."""
    return WEB_HEAD + "".join(f"BRA L{i} (GT.x);\nADD R0, R0, c[{i % 4}];\n"
                              for i in range(n)) + "".join(f"L{n - 1 - i}: MUL R0, R0, c[{i % 4}];\n" for i in range(n)) + WEB_TAIL


def nested_loops(n: int) -> str:
    """n loop headers, then the back branches innermost first: n nested loops (each branch
    counts a register down, so every loop ends)."""
    return (WEB_HEAD + "".join(f"L{i}: ADD R0, R0, c[{i % 4}];\n" for i in range(n)) +
            "".join(f"ADDC R1.x, R1.x, -c[0].w;\nBRA L{n - 1 - i} (GT.x);\n" for i in range(n)) +
            WEB_TAIL)


nesting = S.nesting_depth


def low_recursion_limit(slack: int = 60):
    """A context in which Python code may nest at most ``slack`` frames deeper than here."""
    import contextlib
    import inspect
    import sys

    @contextlib.contextmanager
    def ctx():
        old = sys.getrecursionlimit()
        sys.setrecursionlimit(len(inspect.stack(0)) + slack)
        try:
            yield
        finally:
            sys.setrecursionlimit(old)
    return ctx()


@pytest.mark.parametrize("src,mode,depth", [
    (chain(1300), "structured", 1),
    (nested_skips(80), "structured", 80),
    (nested_skips(S.MAX_STRUCTURE_DEPTH), "structured", S.MAX_STRUCTURE_DEPTH),
    (nested_skips(S.MAX_STRUCTURE_DEPTH + 1), "dispatch", None),
    (nested_skips(1300), "dispatch", None),
    (nested_loops(40), "structured", 80),
    (nested_loops(S.MAX_STRUCTURE_DEPTH // 2), "structured", S.MAX_STRUCTURE_DEPTH),
    (nested_loops(S.MAX_STRUCTURE_DEPTH // 2 + 1), "dispatch", None),
    (nested_loops(1300), "dispatch", None),
], ids=["chain-1300", "skips-80", "skips-160", "skips-161", "skips-1300", "loops-40",
        "loops-80", "loops-81", "loops-1300"])
def test_structuring_needs_no_recursion(src, mode, depth):
    # Python may go only 60 frames deeper than the test: the recursive structuring needed
    # about 3 per level (a RecursionError here; before that, these graphs took the dispatch
    # loop from a dominator tree 160 deep: chain-1300, skips-160)
    prog = xlate.parse(src)
    with low_recursion_limit():
        st = S.structurize(prog)
    assert st.mode == mode
    if depth is not None:
        assert nesting(st.main.body) == depth <= S.MAX_STRUCTURE_DEPTH
    assert outcome_ok(src)


def outcome_ok(src: str) -> bool:
    out = xlate.translate(src, target="spirv")
    return out.spirv[:4] == b"\x03\x02\x23\x07" and not out.diagnostics


@pytest.mark.parametrize("src", [chain(40), nested_skips(30), nested_loops(12)],
                         ids=["chain", "skips", "loops"])
def test_deep_shapes_keep_their_semantics(src):
    prog = xlate.parse(src)
    rng = np.random.default_rng(3)
    ins = {"vertex.position": rng.standard_normal((32, 4)).astype(np.float32),
           "vertex.attrib[1]": rng.choice(np.array([-1, 0, 1, 2, 5], np.float32), (32, 4))}
    p = {"program.env": rng.standard_normal((4, 4)).astype(np.float32)}
    p["program.env"][0, 3] = 1.0                     # the loops' count-down step
    st, want, got = run_both(prog, ins, params=p)
    assert st.mode == "structured"
    assert not want.steps_exceeded.any()
    same_outputs(want, got)


def vp2_web(seed: int, backward: bool = True) -> str:
    """A VP2.0 program of at most 256 instructions: 60 labels and 60 conditional branches to
    random labels (forward, and with ``backward`` backward ones counting a register down:
    mostly irreducible, the dispatch loop; forward only: structured)."""
    rng = random.Random(seed)
    out = ["!!VP2.0", "MOV o[HPOS], v[0];", "MOV R0, v[0];", "MOV R1, v[1];", "MOVC CC, v[2];"]
    for i in range(60):
        out += [f"L{i}:", f"ADD R0, R0, c[{i % 8}];"]
        t = rng.randrange(61) if backward else rng.randrange(i + 1, 61)
        if t <= i:
            out += ["ADDC R1.x, R1.x, -c[9].x;", f"BRA L{t} (GT.x);"]
        else:
            rule = rng.choice(["GT", "LE", "NE", "EQ"])
            out += ["MOVC CC, R0;", f"BRA L{t} ({rule}.{'xyzw'[i % 4]});"]
    out += ["L60:", "MOV o[COL0], R0;", "END"]
    return "\n".join(out) + "\n"


@pytest.mark.parametrize("seed,backward", [(s, s % 2 == 0) for s in range(8)])
def test_vp2_branch_webs(seed, backward):
    src = vp2_web(seed, backward)
    prog = xlate.parse(src)
    assert len(prog.instructions) <= 256
    assert S.structurize(prog).mode == ("dispatch" if backward else "structured")
    from test_vp_frontend import params
    rng = np.random.default_rng(seed)
    p = params(32, **{f"c{k}": rng.standard_normal(4).tolist() for k in range(8)},
               c9=[1, 0, 0, 0])
    ins = {f"v[{k}]": rng.standard_normal((32, 4)).astype(np.float32) for k in range(3)}
    ins["v[1]"][:, 0] = rng.integers(0, 4, 32)
    with low_recursion_limit():
        S.structurize(xlate.parse(src))
    st, want, got = run_both(prog, ins, params=p)
    same_outputs(want, got)
    assert outcome_ok(src)


def test_function_path_nesting_is_bounded():
    # the frontends keep blocks at most 52 (NV4, FP2) or 64 (TGSI) deep; IR nested deeper than
    # the bound any other way is refused before a recursive walk could meet it
    prog = xlate.parse("!!NVfp4.0\nTEMP R0;\nMOV.F.CC R0, fragment.color;\nIF GT.x;\n"
                       "MOV.F R0, 1;\nENDIF;\nMOV.F result.color, R0;\nEND\n")
    head, if_, body, endif, *tail = prog.instructions
    n = S.MAX_STRUCTURE_DEPTH + 1
    prog.instructions = [head] + [if_] * n + [body] + [endif] * n + tail
    with pytest.raises(S.StructureError, match=r"IF nested inside 160 blocks \(at most 160\)"):
        S.structurize(prog)
    from xlate.backends.glsl import emit_glsl
    with pytest.raises(xlate.XlateError) as e:
        emit_glsl(prog)
    assert [(d.code, d.message) for d in e.value.diagnostics] == [
        ("E7001", "IF nested inside 160 blocks (at most 160) cannot be expressed in the glsl450 "
         "profile")]
    prog.instructions = [head] + [if_] * (n - 1) + [body] + [endif] * (n - 1) + tail
    assert S.structurize(prog).mode == "functions"


def python_calls(fn) -> int:
    """Python and builtin function calls (generator resumptions included) while ``fn`` runs: a
    measure of work that does not depend on the machine."""
    import sys
    n = 0

    def prof(frame, event, arg):
        nonlocal n
        if event in ("call", "c_call"):
            n += 1
    sys.setprofile(prof)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return n


@pytest.mark.parametrize("make,n", [(chain, 60), (nested_skips, 100), (nested_loops, 100)],
                         ids=["chain", "skips", "loops"])
def test_structuring_work_is_linear(make, n):
    # 8x the program, at most 9x the work (the goal of tools/bench_scaling.py), in calls
    small, big = xlate.parse(make(n)), xlate.parse(make(8 * n))
    S.structurize(xlate.parse(make(n)))                  # warm caches
    a = python_calls(lambda: S.structurize(small))
    b = python_calls(lambda: S.structurize(big))
    assert b <= 9 * a, b / a
