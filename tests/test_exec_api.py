"""Executor API: opcode coverage, input/parameter binding and validation, chunking, textures."""
from __future__ import annotations

import numpy as np
import pytest

from test_exec_helpers import bits_equal, build
from xlate.diagnostics import XlateError
from xlate.exec import EXECUTORS, ExecError, ExecResult, Texture, execute
from xlate.exec.texture import TEX
from xlate.ir.model import Binding, Geometry, Register, RegKind
from xlate.ir.ops import OPCODES


def f(*v):
    return np.array(v, np.float32)


# ---- the opcode table --------------------------------------------------------------------------

def test_every_opcode_has_an_executor():
    missing = sorted(set(OPCODES) - set(EXECUTORS))
    assert not missing, f"opcodes without an executor function: {missing}"
    extra = sorted(set(EXECUTORS) - set(OPCODES))
    assert not extra, f"executor functions for unknown opcodes: {extra}"
    for name, info in OPCODES.items():
        if info.category == "tex":
            assert EXECUTORS[name] is TEX[name]


@pytest.mark.parametrize("op", ["TEX", "TXB", "TXL", "TXP", "TXF", "TXD", "TXQ"])
def test_texture_ops_run_and_check_their_texture(op):
    t = ".S" if op == "TXF" else ""
    text = f"{op} o, a, R1, R2, texture[2], 2D" if op == "TXD" else f"{op}{t} o, a, texture[2], 2D"
    p = build(text, stage="fragment", inputs={"a": "fragment.texcoord[0]"},
              outputs={"o": "result.color"})
    kind = np.int32 if op == "TXF" else np.float32
    tex = Texture(levels=[np.full((2, 2, 4), 3, kind)], target="2D")
    r = execute(p, {"a": f(0, 0, 0, 0)}, textures={2: tex})
    want = [2, 2, 0, 0] if op == "TXQ" else [3, 3, 3, 3]
    view = r.int("o") if op in ("TXQ", "TXF") else r.float("o")
    assert view.tolist() == [want]
    with pytest.raises(ExecError, match=r"texture\[2\]"):
        execute(p, {"a": f(0, 0, 0, 1)})
    with pytest.raises(ExecError, match=r"texture\[2\]"):
        execute(p, {"a": f(0, 0, 0, 1)}, textures={2: "not a texture"})
    with pytest.raises(ExecError, match=r"texture\[7\]: the program uses no texture unit 7"):
        execute(p, {"a": f(0, 0, 0, 1)}, textures={2: tex, 7: tex})
    with pytest.raises(ExecError, match=r"texture\[2\]: a 3D texture, but instruction 0"):
        execute(p, {"a": f(0, 0, 0, 1)},
                textures={2: Texture([np.zeros((1, 2, 2, 4), kind)], "3D")})


# ---- binding inputs ------------------------------------------------------------------------

def _prog():
    return build("""
        ADD o, a, p
        MOV.U q, n
    """, inputs={"a": "vertex.attrib[3]", "n": "vertex.id"},
        params={"p": "program.local[2]"},
        outputs={"o": "result.color", "q": "result.texcoord[0]"})


def test_inputs_by_name_or_binding_and_broadcast():
    p = _prog()
    r1 = execute(p, {"a": [[1., 2, 3, 4], [5, 6, 7, 8]], "n": 7}, params={"p": 0.5})
    r2 = execute(p, {"vertex.attrib[3]": np.array([[1, 2, 3, 4], [5, 6, 7, 8]], np.float64),
                     "vertex.id": np.int32(7)}, params={"program.local[2]": [0.5] * 4})
    for r in (r1, r2):
        assert r.float("o").tolist() == [[1.5, 2.5, 3.5, 4.5], [5.5, 6.5, 7.5, 8.5]]
        assert r.outputs["q"].dtype == np.uint32 and r.outputs["q"].tolist() == [[7] * 4] * 2
        assert r.float("result.color").shape == (2, 4)       # by binding text too
        assert r.killed is None and r.primitives is None
        assert r.steps_exceeded.tolist() == [False, False]
    # per-lane values with a trailing component axis of 1 broadcast along components
    r3 = execute(p, {"a": np.array([[1], [2], [3]], np.float32), "n": [[1], [2], [3]]},
                 params={"p": 0})
    assert r3.float("o")[:, 3].tolist() == [1, 2, 3] and r3.outputs["q"][:, 2].tolist() == [1, 2, 3]


def test_lanes_argument_broadcasts_uniform_inputs():
    r = execute(_prog(), {"a": 1.0, "n": 3}, params={"p": 1.0}, lanes=5)
    assert r.float("o").shape == (5, 4) and (r.float("o") == 2).all()


def test_integer_values_are_raw_words():
    r = execute(_prog(), {"a": 0, "n": [-1, 0x80000000, 0, 5]}, params={"p": 0})
    assert r.outputs["q"][0].tolist() == [0xFFFFFFFF, 0x80000000, 0, 5]
    with pytest.raises(ExecError, match="'n'"):
        execute(_prog(), {"a": 0, "n": 1 << 33}, params={"p": 0})


@pytest.mark.parametrize("inputs,params,lanes,match", [
    ({"n": 1}, {"p": 0}, None, r"missing input 'a'.*vertex\.attrib\[3\]"),
    ({"a": 1, "n": 1}, {}, None, r"missing parameter 'p'.*program\.local\[2\]"),
    ({"a": 1, "n": 1, "vertex.attrib[9]": 0}, {"p": 0}, None, r"unknown input 'vertex\.attrib\[9\]'"),
    ({"a": 1, "n": 1}, {"p": 0, "bogus": 1}, None, r"unknown parameter 'bogus'"),
    ({"a": 1, "n": 1, "p": 0}, {}, None, r"input 'p' names a parameter"),
    ({"a": [1, 2, 3], "n": 1}, {"p": 0}, None, r"'a'.*shape"),
    ({"a": np.zeros((3, 4)), "n": np.zeros((2, 4), int)}, {"p": 0}, None, r"lanes"),
    ({"a": np.zeros((3, 4)), "n": 1}, {"p": 0}, 4, r"'a'.*3 lanes"),
    ({"a": np.zeros((2, 3, 4)), "n": 1}, {"p": 0}, None, r"'a'.*dimensions"),
    ({"a": "text", "n": 1}, {"p": 0}, None, r"'a'.*dtype"),
    ({"a": 1, "n": 1}, {"p": 0}, 0, r"lanes"),
])
def test_validation_errors(inputs, params, lanes, match):
    with pytest.raises(ExecError, match=match):
        execute(_prog(), inputs, params=params, lanes=lanes)


def test_bad_arguments():
    with pytest.raises(ExecError, match="chunk"):
        execute(_prog(), {"a": 1, "n": 1}, params={"p": 0}, chunk=0)
    with pytest.raises(ExecError, match="max_steps"):
        execute(_prog(), {"a": 1, "n": 1}, params={"p": 0}, max_steps=0)
    with pytest.raises(ExecError, match="program"):
        execute(["MOV o, a;"], {})
    # source text is parsed; its errors come back as diagnostics
    with pytest.raises(XlateError, match="E1001"):
        execute("MOV o, a;", {})


def test_unused_inputs_not_required():
    p = build("MOV o, a", inputs={"a": "vertex.attrib[0]", "b": "vertex.attrib[1]"},
              outputs={"o": "result.color"})
    assert execute(p, {"a": 1.0}).float("o").tolist() == [[1, 1, 1, 1]]


def test_param_arrays_bindings_constants_and_paths():
    # PARAM elements bound to program.local/state, others constant vectors (Register.value)
    reg = Register("tab", RegKind.PARAM, size=3,
                   bindings=(Binding("program.local", 4), None, Binding("state.matrix.mvp.row", None, 1)),
                   value=((0, 0, 0, 0), tuple(np.array([7, 8, 9, 10], np.float32).view(np.uint32)
                                              .tolist()), (0, 0, 0, 0)))
    p = build("""
        MOV.S i, s
        MOV o, tab[i.x]
        MOV q, tab[i.y]
        MOV w, tab[i.z]
    """, inputs={"s": "vertex.attrib[0]"},
        outputs={"o": "result.color", "q": "result.texcoord[0]", "w": "result.texcoord[1]"},
        registers=[reg])
    ins = {"s": np.array([0, 1, 2, 0], np.int64)}
    r = execute(p, ins, params={"program.local[4]": [1., 2, 3, 4],
                                "state.matrix.mvp.row[1]": [5., 6, 7, 8]})
    assert r.float("o").tolist() == [[1, 2, 3, 4]]
    assert r.float("q").tolist() == [[7, 8, 9, 10]]
    assert r.float("w").tolist() == [[5, 6, 7, 8]]
    # by binding path: the whole program.local / state.matrix.mvp.row arrays
    r2 = execute(p, ins, params={"program.local": np.arange(40, dtype=np.float32).reshape(10, 4),
                                 "state.matrix.mvp.row": np.eye(4, dtype=np.float32)})
    assert r2.float("o").tolist() == [[16, 17, 18, 19]] and r2.float("w").tolist() == [[0, 1, 0, 0]]
    # the whole register by name, per lane
    whole = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4)
    r3 = execute(p, ins, params={"tab": whole}, lanes=2)
    assert r3.float("q").tolist() == whole[:, 1].tolist()
    with pytest.raises(ExecError, match=r"state\.matrix\.mvp\.row\[1\]"):
        execute(p, ins, params={"program.local[4]": 0})
    with pytest.raises(ExecError, match="program.local"):
        execute(p, ins, params={"program.local": np.zeros((3, 4)), "state.matrix.mvp.row": 0})


def test_buffers():
    # frontend convention: one binding program.buffer[a][start] covering start..start+n-1
    regs = [Register("buf", RegKind.BUFFER, size=3, bindings=(Binding("program.buffer", 0, 2),)),
            Register("b4", RegKind.BUFFER, size=2, buffer_vec4=True,
                     bindings=(Binding("program.buffer", 1, 0),)),
            Register("one", RegKind.BUFFER, bindings=(Binding("program.buffer", 2, 3),))]
    p = build("""
        MOV.U o, buf[2]
        MOV q, b4[1]
        MOV.U w, one
    """, outputs={"o": "result.color", "q": "result.texcoord[0]", "w": "result.texcoord[1]"},
        registers=regs)
    r = execute(p, {}, params={"buf": np.array([1, 2, 0xFFFFFFFF], np.uint32),
                               "b4": np.array([[0, 0, 0, 0], [1, 2, 3, 4]], np.float32),
                               "one": np.uint32(9)})
    assert r.outputs["o"].tolist() == [[0xFFFFFFFF] * 4]          # a word broadcast to 4
    assert r.float("q").tolist() == [[1, 2, 3, 4]]
    assert r.outputs["w"].tolist() == [[9] * 4]
    # whole buffers by binding point; elements past the end read as 0 (project choice)
    r = execute(p, {}, params={"program.buffer[0]": np.arange(10, 15, dtype=np.uint32),
                               "program.buffer[1]": np.ones((1, 4), np.float32),
                               "program.buffer[2]": np.arange(5, dtype=np.uint32)})
    assert r.outputs["o"].tolist() == [[14] * 4]
    assert r.float("q").tolist() == [[0, 0, 0, 0]]
    assert r.outputs["w"].tolist() == [[3] * 4]
    # per element, per lane
    r = execute(p, {}, params={"program.buffer[0][4]": [5, 6], "program.buffer[0][2]": 0,
                               "program.buffer[0][3]": 0, "program.buffer[1][0]": [0.] * 4,
                               "program.buffer[1][1]": [1., 1, 1, 1], "program.buffer[2][3]": 1})
    assert r.outputs["o"].tolist() == [[5] * 4, [6] * 4]
    with pytest.raises(ExecError, match=r"'buf'.*program\.buffer\[0\]"):
        execute(p, {}, params={"b4": np.zeros((2, 4)), "one": 0})


def test_const_registers_and_output_arrays():
    outs = Register("oc", RegKind.OUTPUT, size=2,
                    bindings=(Binding("result.clip", 0), Binding("result.clip", 1)))
    p = build("""
        MOV oc[1], {1, 2, 3, 4}
        MOV.S oc[0], -3
    """, registers=[outs])
    r = execute(p, {}, lanes=3)
    assert r.outputs["oc"].shape == (3, 2, 4)
    assert r.float("oc")[:, 1].tolist() == [[1, 2, 3, 4]] * 3
    assert r.outputs["oc"][0, 0].view(np.int32).tolist() == [-3] * 4


def test_geometry_inputs_per_vertex_and_vertex_bindings():
    g = Geometry("TRIANGLES", "POINTS", 3)
    p = build("""
        MOV o, vpos[2]
        MOV q, c1
    """, stage="geometry", geometry=g,
        inputs={"vpos": "vertex.position", "c1": "vertex[1].color"},
        outputs={"o": "result.position", "q": "result.color"})
    vp = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4)
    vc = -np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4)
    # per-vertex arrays for both: vertex[1].color is taken out of vertex.color
    r = execute(p, {"vertex.position": vp, "vertex.color": vc})
    assert r.float("o").tolist() == vp[:, 2].tolist() and r.float("q").tolist() == vc[:, 1].tolist()
    r = execute(p, {"vpos": vp[0], "vertex[1].color": vc[0, 1]})
    assert r.float("o").tolist() == [vp[0, 2].tolist()]
    with pytest.raises(ExecError, match="vertex.position"):
        execute(p, {"vertex.position": np.zeros((2, 4)), "vertex.color": vc})


# ---- chunking ------------------------------------------------------------------------------------

_CHUNK_TEXT = """
main:
  MOV.CC R0, a
  MOV o, 0
  REP b.x
    ADD o, o, a
    CAL f (GT.y)
    SGT.CC R1.x, o.x, 20
    BRK (NE.x)
  ENDREP
  KIL R0.w
  DDX q, a
  DDY q.y, a
  RET
f:
  MUL o.w, o.w, 1.5
  RET
"""


def test_chunking_equivalence():
    rng = np.random.default_rng(7)
    n = 37
    a = rng.normal(size=(n, 4)).astype(np.float32) * 4
    b = rng.integers(-1, 9, size=(n, 4)).astype(np.float32)
    for stage in ("vertex", "fragment"):
        pre = "fragment." if stage == "fragment" else "vertex."
        p = build(_CHUNK_TEXT.replace("KIL R0.w", "KIL R0.w" if stage == "fragment" else ""),
                  stage=stage, inputs={"a": pre + "attrib[0]", "b": pre + "attrib[1]"},
                  outputs={"o": "result.color", "q": "result.texcoord[0]"}, entry="main")
        big = execute(p, {"a": a, "b": b})
        for chunk in (1, 3, 5, 64):
            small = execute(p, {"a": a, "b": b}, chunk=chunk)
            for name in ("o", "q"):
                assert np.array_equal(big.outputs[name], small.outputs[name]), (stage, chunk, name)
            assert np.array_equal(big.steps_exceeded, small.steps_exceeded)
            if stage == "fragment":
                assert np.array_equal(big.killed, small.killed)
        if stage == "fragment":
            assert big.killed.any() and not big.killed.all()


def test_chunking_geometry_primitives():
    g = Geometry("POINTS", "LINE_STRIP", 5)
    p = build("""
        REP.S n.x
          MOV o, n
          EMIT
          ADD.S n.x, n.x, -1
        ENDREP
    """, stage="geometry", geometry=g, inputs={"m": "primitive.id"},
        outputs={"o": "result.position"})
    p.instructions.insert(0, build("MOV.S n, m", stage="geometry", geometry=g,
                                   inputs={"m": "primitive.id"}).instructions[0])
    ids = np.arange(11, dtype=np.int64)[:, None] % 7
    big = execute(p, {"m": ids})
    small = execute(p, {"m": ids}, chunk=2)
    assert len(big.primitives) == 11

    def norm(pr):
        return [[[v["o"].tolist() for v in s] for s in lane] for lane in pr]
    assert norm(big.primitives) == norm(small.primitives)
    assert [sum(len(s) for s in lane) for lane in big.primitives] == [min(k, 5) for k in ids[:, 0]]


def test_result_float_view():
    r = ExecResult({"o": np.array([[0x3F800000] * 4], np.uint32)}, None, None, np.zeros(1, bool))
    assert r.float("o").tolist() == [[1, 1, 1, 1]]
    assert bits_equal(r.float("o"), [[1, 1, 1, 1]])
    with pytest.raises(KeyError):
        r.float("nope")
