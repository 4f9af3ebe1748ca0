"""The verifier's explanations are shown by replay, never assumed (xlate/verify/replay.py,
xlate/verify/permits.py).

Unit tests ask the permission rules about one instruction's result with a chosen
implementation value; the GL tests corrupt a translation that verifies cleanly in one small,
live way (a literal 1 ulp off, an approximate opcode's argument scaled, one NaN lane, a wrong
TXQ level) and require ``mismatch`` naming the instruction.
"""
from __future__ import annotations

import numpy as np
import pytest

import xlate
from xlate.exec import Texture, execute
from xlate.verify import permits
from xlate.verify.compare import same_words

from conftest import gl_runner


def f32(*v) -> np.ndarray:
    return np.array(v, np.float32).view(np.uint32)


class _Ask:
    """Executor hook: at instruction ``k``, the verdicts permits.permitted gives to the
    implementation value ``imp(exe)`` (exe: the executor's (n, 4) result words)."""

    def __init__(self, k, imp):
        self.instructions = [k]
        self.imp = imp
        self.verdicts = None
        self.exe = None

    def __call__(self, x, st, idx, ops, bits, cmask):
        n = st.lanes if idx is None else len(idx)
        exe = np.ascontiguousarray(np.broadcast_to(bits, (n, 4)))
        imp = np.asarray(self.imp(exe.copy()), np.uint32)
        differ = ~same_words(exe, imp) & np.array(x.inst.dst.mask, bool)
        rows = np.arange(n)
        site = permits.Site(x, ops, rows, exe, imp, "gl")
        self.exe = exe
        self.verdicts = permits.permitted(site, differ)
        return bits, cmask

    def before_flow(self, x, st, sel):
        pass


def ask(text: str, k: int, imp, inputs: dict, **kw):
    prog = xlate.parse(text)
    hook = _Ask(k, imp)
    # plain lists are floats here (execute reads integer arrays as raw words)
    inputs = {key: v if isinstance(v, np.ndarray) else np.array([v], np.float32)
              for key, v in inputs.items()}
    execute(prog, inputs=inputs, lanes=1, hooks=hook, **kw)
    return hook.verdicts[0].tolist(), hook.exe[0]


VP = "!!NVvp4.0\nTEMP t;\n{}\nMOV result.position, t;\nEND\n"


def bump(words, ulps, comps=(0, 1, 2, 3)):
    w = words.copy()
    for c in comps:
        w[:, c] = w[:, c] + ulps
    return w


def test_exact_opcode_one_ulp_off_is_not_permitted():
    v, _ = ask(VP.format("MUL t, vertex.attrib[0], vertex.attrib[1];"), 0,
               lambda e: bump(e, 1, (0,)), {"vertex.attrib[0]": [1.5, 2, 3, 4],
                                             "vertex.attrib[1]": [3, 5, 7, 9]})
    assert v == ["", "", "", ""]


def test_approximate_opcode_within_its_bound_only():
    inp = {"vertex.attrib[0]": [0.5, 0, 0, 0]}
    v, _ = ask(VP.format("EX2 t, vertex.attrib[0].x;"), 0, lambda e: bump(e, 3), inp)
    assert v == ["tolerance"] * 4
    v, _ = ask(VP.format("EX2 t, vertex.attrib[0].x;"), 0, lambda e: bump(e, 100), inp)
    assert v == [""] * 4                       # EX2's bound is 8 ulp (compare.INEXACT)


#: POW of a base near 1 and a large exponent (generated NV4 vertex seed 1113, inputs seed 1100):
#: the executor's 0.93655 is exp2(-0.0946)
POW_NEAR_ONE = {"vertex.attrib[0]": np.array([0x3F7FFFFF, 0x498641F7, 0, 0], np.uint32)}


@pytest.mark.parametrize("got, verdict", [
    (0.8926158547401428, "tolerance"),     # llvmpipe's: exp2(-0.164), log2(x) 6.3e-8 off
    (0.5, "tolerance"),                    # exp2(-1): log2(x) 8.2e-7 off
    (300.0, "tolerance"),                  # exp2(8.23): log2(x) 7.6e-6 off, just within 2^-17
    (320.0, ""),                           # exp2(8.32): beyond
    (0.001, ""),                           # exp2(-9.97): log2(x) 9e-6 off, beyond 2^-17
])
def test_power_inherits_the_logarithms_error_times_the_exponent(got, verdict):
    """pow is exp2(y * log2(x)) (GP4 POW, GLSL 4.50 §4.7.1 "inherited"): log2's bound (LG2's
    2^-17 absolute near 1) times |y| = 1.1e6 -- not POW's fixed 4096 ulp."""
    v, exe = ask(VP.format("POW t, vertex.attrib[0].x, vertex.attrib[0].y;"), 0,
                 lambda e: f32(got, got, got, got)[None, :], POW_NEAR_ONE)
    assert exe.view(np.float32)[0] == np.float32(0.936547040939331)
    assert v == [verdict] * 4


def test_a_small_exponent_keeps_the_fixed_bound():
    inp = {"vertex.attrib[0]": [3.0, 2.0, 0, 0]}
    v, _ = ask(VP.format("POW t, vertex.attrib[0].x, vertex.attrib[0].y;"), 0,
               lambda e: bump(e, 4096), inp)
    assert v == ["tolerance"] * 4
    v, _ = ask(VP.format("POW t, vertex.attrib[0].x, vertex.attrib[0].y;"), 0,
               lambda e: bump(e, 40000), inp)
    assert v == [""] * 4                   # 9 * (1 + 40000 ulp): log2(3) 3.8e-5 off


def test_signed_zero():
    v, exe = ask(VP.format("ADD t, vertex.attrib[0], -vertex.attrib[0];"), 0,
                 lambda e: e | np.uint32(0x80000000), {"vertex.attrib[0]": [1, 2, 3, 4]})
    assert exe.tolist() == [0, 0, 0, 0] and v == ["signedzero"] * 4


def test_denormal_operand_flushed_is_recomputed_not_assumed():
    den = float(np.array([5], np.uint32).view(np.float32)[0])
    inp = {"vertex.attrib[0]": [den, den, 1, 1], "vertex.attrib[1]": [3, 3, 3, 3]}
    text = VP.format("ADD t, vertex.attrib[0], vertex.attrib[1];")
    # 3 + denormal rounds to 3 either way: nothing to permit; a flushed x in MUL is 0
    v, _ = ask(VP.format("MUL t, vertex.attrib[0], vertex.attrib[1];"), 0,
               lambda e: np.where(np.arange(4) < 2, 0, e), inp)
    assert v == ["ftz", "ftz", "", ""]
    # a value the flushed recomputation does not give is not permitted
    v, _ = ask(VP.format("MUL t, vertex.attrib[0], vertex.attrib[1];"), 0,
               lambda e: np.where(np.arange(4) < 2, f32(1, 1, 1, 1), e), inp)
    assert v[:2] == ["", ""]
    v, _ = ask(text, 0, lambda e: e, inp)
    assert v == [""] * 4


def test_dot_product_with_a_denormal_intermediate():
    tiny = 1e-20                     # tiny * tiny: a denormal product, flushed by llvmpipe
    inp = {"vertex.attrib[0]": [tiny, 1, 0, 0], "vertex.attrib[1]": [tiny * 1e-1, 1, 0, 0]}
    v, exe = ask(VP.format("DP3 t, vertex.attrib[0], vertex.attrib[1];"), 0,
                 lambda e: f32(1, 1, 1, 1)[None], inp)
    assert exe.view(np.float32)[0] == np.float32(1.0)    # 1 + denormal rounds to 1 anyway
    v, exe = ask(VP.format("DP3 t, vertex.attrib[0], vertex.attrib[1];"), 0,
                 lambda e: f32(0, 0, 0, 0)[None],
                 {"vertex.attrib[0]": [tiny, 0, 0, 0], "vertex.attrib[1]": [tiny * 1e-1, 0, 0, 0]})
    assert v == ["ftz"] * 4


@pytest.mark.parametrize("got, verdict", [(0.0, "ftz"), (1.401298464324817e-45, "")])
def test_x2d_with_denormal_products(got, verdict):
    """X2D's two products of 5.9e-39 sum to FLT_MIN in the executor; flushed, they sum to 0
    (generated NV4 fragment seed 1318, inputs seed 1300).  0 is permitted ('ftz' on x and z,
    the components the flushed x feeds); a denormal no flushing gives is not."""
    inp = {"vertex.attrib[0]": [0, 0, 0, 0], "vertex.attrib[1]": np.array(
        [0x01000000, 0x01000000, 0, 0], np.uint32).view(np.float32),
        "vertex.attrib[2]": [0.25, 0.25, 0.25, 0.25]}
    v, exe = ask(VP.format("X2D t, vertex.attrib[0], vertex.attrib[1], vertex.attrib[2];"), 0,
                 lambda e: np.where(np.arange(4) % 2 == 0, f32(got, got, got, got), e), inp)
    assert exe.view(np.float32)[0] == np.float32(1.1754943508222875e-38)
    assert v[0] == v[2] == verdict


@pytest.mark.parametrize("ulps, verdict", [(0, "ftz"), (1, "")])
def test_xpd_with_a_denormal_product(ulps, verdict):
    """XPD's z = a.x*b.y - a.y*b.x where a.y*b.x = 2^-124 * -0.1376 is a denormal: llvmpipe
    flushed it (generated NV4 vertex seed 1507, inputs seed 1500), leaving 2^-124 * -816.27.
    That value is 'ftz' (recomputed with the product flushed); one ulp beside it is not."""
    a = np.array([0x01800000] * 3 + [0], np.uint32).view(np.float32)
    inp = {"vertex.attrib[0]": a, "vertex.attrib[1]": [-0.13761741, -816.266, 0, 0]}
    flushed = np.float32(np.float32(a[0]) * np.float32(-816.266))
    want = np.array([flushed], np.float32).view(np.uint32)[0] + np.uint32(ulps)
    v, exe = ask(VP.format("XPD t, vertex.attrib[0], vertex.attrib[1];"), 0,
                 lambda e: np.where(np.arange(4) == 2, want, e), inp)
    assert exe.view(np.float32)[2] != flushed        # the executor adds the denormal product
    assert v[2] == verdict


def test_nonfinite_operand_reaches_only_its_component():
    inp = {"vertex.attrib[0]": [np.nan, 1, 2, 3], "vertex.attrib[1]": [1, 1, 1, 1]}
    v, _ = ask(VP.format("ADD t, vertex.attrib[0], vertex.attrib[1];"), 0,
               lambda e: f32(7, 7, 7, 7)[None], inp)
    assert v == ["nonfinite", "", "", ""]
    # a dot product reads every component: the NaN reaches the whole (scalar) result
    v, _ = ask(VP.format("DP4 t, vertex.attrib[0], vertex.attrib[1];"), 0,
               lambda e: f32(7, 7, 7, 7)[None], inp)
    assert v == ["nonfinite"] * 4


def test_undefined_results():
    v, _ = ask("!!NVvp4.0\nINT TEMP i;\nDIV.S i, vertex.attrib[0], vertex.attrib[1].x;\n"
               "I2F result.position, i;\nEND\n", 0, lambda e: e + 1,
               {"vertex.attrib[0]": np.array([[7, 7, 7, 7]], np.int32),
                "vertex.attrib[1]": np.array([[0, 0, 0, 0]], np.int32)})
    assert v == ["undefined"] * 4
    v, _ = ask(VP.format("XPD t, vertex.attrib[0], vertex.attrib[1];"), 0,
               lambda e: f32(0, 0, 0, 5)[None] | e * 0, {"vertex.attrib[0]": [1, 0, 0, 0],
                                                         "vertex.attrib[1]": [0, 1, 0, 0]})
    assert v == ["", "", "", "undefined"]


def test_sine_range():
    text = VP.format("SIN t, vertex.attrib[0].x;")
    v, _ = ask(text, 0, lambda e: f32(1, 1, 1, 1)[None], {"vertex.attrib[0]": [1e9, 0, 0, 0]})
    assert v == ["range"] * 4
    v, _ = ask(text, 0, lambda e: f32(1, 1, 1, 1)[None], {"vertex.attrib[0]": [1.0, 0, 0, 0]})
    assert v == [""] * 4


def test_integer_results_are_no_floats():
    """The integer 8 is no denormal and INT_MIN no negative zero."""
    ints = {"vertex.attrib[0]": np.array([[8, 0, 0, 0]], np.int32),
            "vertex.attrib[1]": np.array([[0, 0, 0, 0]], np.int32)}
    text = "!!NVvp4.0\nINT TEMP i;\nADD.S i, vertex.attrib[0], vertex.attrib[1];\n" \
           "I2F result.position, i;\nEND\n"
    v, _ = ask(text, 0, lambda e: e * 0, ints)
    assert v == ["", "", "", ""]
    v, _ = ask(text, 0, lambda e: e | np.uint32(0x80000000), ints)
    assert v[1:] == ["", "", ""]


def test_strict_comparison():
    a = f32(1.0, 0.0, np.nan, 2.0)
    b = a.copy()
    b[2] = 0x7FC00001                       # another NaN payload
    assert same_words(a, b).all()
    b[1] = 0x80000000                       # -0 is not +0 at an output
    b[3] += 1                               # nor is 1 ulp
    assert same_words(a, b).tolist() == [True, False, True, False]


# ---- translations corrupted in one small, live way -------------------------------------------

class Editing:
    """A runner that edits every GLSL text it is given (the verifier's main run and every
    probe compilation alike)."""

    def __init__(self, inner, old: str, new: str):
        self.inner, self.old, self.new = inner, old, new

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def run(self, stage, glsl, reflection, lanes, **kw):
        return self.inner.run(stage, glsl.replace(self.old, self.new), reflection, lanes, **kw)


PROGRAM = ("!!NVvp4.0\nTEMP t;\nMUL t, vertex.attrib[0], 1.5;\nEX2 t.y, vertex.attrib[1].x;\n"
           "ADD result.texcoord[0], t, vertex.attrib[2];\nMOV result.position, "
           "vertex.attrib[0];\nEND\n")


def verify(text, runner, lanes=256):
    from xlate.verify.core import verify_source
    return verify_source(text, "t.vp", runner=runner, lanes=lanes)


def unexplained(rep) -> set[str]:
    return {x["instruction"]["op"] for x in rep.localization
            if x.get("verdict") in ("divergence", "cc", "flow") and "instruction" in x}


def test_clean_translation_passes_with_shown_explanations():
    rep = verify(PROGRAM, gl_runner())
    assert rep.status == "pass", rep.reason
    if rep.total_differences:           # EX2 approximated: adopted, then every output agrees
        assert rep.reason.startswith("differences explained: tolerance (shown"), rep.reason


@pytest.mark.parametrize("old,new,op", [
    ("vertex_attrib_0 * 1.5;", "vertex_attrib_0 * 1.50000012;", "MUL"),          # 1 ulp
    ("exp2(vertex_attrib_1.x)", "exp2(vertex_attrib_1.x * 1.01)", "EX2"),
])
def test_corrupted_translation_is_a_mismatch(old, new, op):
    from xlate.backends.glsl import emit_glsl
    assert old in emit_glsl(xlate.parse(PROGRAM)).source
    rep = verify(PROGRAM, Editing(gl_runner(), old, new))
    assert rep.status == "mismatch", rep.reason
    assert op in unexplained(rep), rep.localization[:3]


def test_one_nan_lane_is_a_mismatch():
    """Lane 5 (finite inputs: checked) gets a NaN in one output component."""
    from xlate.ir.model import Stage
    from xlate.verify.analysis import analyse
    from xlate.verify import compare as cmp
    from xlate.verify.draw_run import builtin_values_for
    from xlate.verify.inputs import generate
    prog = xlate.parse(PROGRAM)
    gen = generate(prog, analyse(prog, set(cmp.INEXACT)), 256, 1,
                   builtin_values=builtin_values_for(Stage.VERTEX, 256))
    lane = next(ln for ln in range(256) if all(
        np.isfinite(np.asarray(gen.inputs[f"vertex.attrib[{i}]"])[ln].view(np.float32)).all()
        for i in range(3)))
    stmt = "result_texcoord_0 = t + vertex_attrib_2;"
    edit = stmt + f" if (gl_VertexID == {lane}) result_texcoord_0.z = " \
                  "uintBitsToFloat(0x7fc00000u);"
    rep = verify(PROGRAM, Editing(gl_runner(), stmt, edit))
    assert rep.status == "mismatch", rep.reason
    assert {(d.lane, d.component) for d in rep.differences} == {(lane, 2)}


def test_wrong_texture_size_level_is_a_mismatch():
    text = ("!!NVfp4.0\nFLAT INT ATTRIB lod = fragment.attrib[1];\nINT TEMP s;\n"
            "TXQ s, lod.x, texture[0], 2D;\nI2F result.color, s;\nEND\n")
    from xlate.backends.glsl import emit_glsl
    old = "textureSize(texture0, fragment_attrib_1.x)"
    assert old in emit_glsl(xlate.parse(text)).source
    rep = verify(text, Editing(gl_runner(), old, "textureSize(texture0, 0)"))
    assert rep.status == "mismatch", rep.reason
    assert "TXQ" in unexplained(rep)


def test_moves_have_no_freedom():
    """A MOV only moves bits: a -0.0 or a NaN moved stays one (a mutant that dropped an output
    written by a MOV of -0.0 or NaN passed as 'signedzero'/'nonfinite')."""
    text = VP.format("MOV t, -vertex.attrib[0];")
    v, exe = ask(text, 0, lambda e: e & np.uint32(0x7FFFFFFF),
                 {"vertex.attrib[0]": [0.0, 0.0, 0.0, 0.0]})
    assert exe.tolist() == [0x80000000] * 4 and v == [""] * 4
    v, _ = ask(text, 0, lambda e: e * 0, {"vertex.attrib[0]": [np.nan, np.inf, 1, 1]})
    assert v[:2] == ["", ""]
    # an operation on the same values keeps its freedoms
    v, _ = ask(VP.format("ADD t, vertex.attrib[0], -vertex.attrib[0];"), 0,
               lambda e: e | np.uint32(0x80000000), {"vertex.attrib[0]": [1, 2, 3, 4]})
    assert v == ["signedzero"] * 4


def test_lit_power_of_a_nonpositive_base_frees_z_only():
    v, exe = ask(VP.format("LIT t, vertex.attrib[0];"), 0, lambda e: f32(9, 9, 9, 9)[None],
                 {"vertex.attrib[0]": [1.0, -1.0, 0, 2.0]})
    assert v == ["", "", "nonfinite", ""]


def test_shadow_lookup_w_has_no_filtering_tolerance():
    """A depth comparison returns (r, r, r, 1): its w is exact (a mutant writing 1.0000001
    there passed as 'tolerance')."""
    levels = [np.full((4, 4, 1), 0.5, np.float32)]
    text = ("!!NVfp4.0\nTEMP t;\nTEX t, fragment.texcoord[0], texture[0], SHADOW2D;\n"
            "MOV result.color, t;\nEND\n")
    prog = xlate.parse(text)
    hook = _Ask(0, lambda e: e + np.uint32(1))
    coords = np.tile(np.array([[0.3, 0.3, 0.25, 0]], np.float32), (4, 1))
    execute(prog, inputs={"fragment.texcoord[0]": coords}, lanes=4, hooks=hook,
            textures={0: Texture(levels=levels, filter="LINEAR")})
    assert hook.verdicts[0].tolist() == ["tolerance"] * 3 + [""]


# ---- a freedom to give any value is the instruction's own ----------------------------------------

class _Record:
    """Executor hook: every instruction's result words (straight-line programs: one pass)."""

    def __init__(self, n):
        self.instructions = list(range(n))
        self.words = {}

    def __call__(self, x, st, idx, ops, bits, cmask):
        n = st.lanes if idx is None else len(idx)
        self.words[x.index] = np.array(np.broadcast_to(bits, (n, 4)), np.uint32)
        return bits, cmask

    def before_flow(self, x, st, sel):
        pass

    def kill_decision(self, x, st, sel, kill, operand):
        return kill


def _replay_against(text, inputs, change):
    """The replay hook run against 'implementation values' that are the executor's own, edited
    by ``change`` (instruction -> function of its words; the final MOV of NAN_CHAIN moves what
    instruction 1 gives)."""
    if 1 in change:
        change = {**change, 2: change[1]}
    from xlate.verify.replay import ImplValues, ReplayHook
    prog = xlate.parse(text)
    inputs = {k: np.array([v], np.float32) for k, v in inputs.items()}
    rec = _Record(len(prog.instructions))
    execute(prog, inputs=inputs, lanes=1, hooks=rec)
    values = {k: ImplValues(change.get(k, lambda w: w)(w.copy())) for k, w in rec.words.items()}
    hook = ReplayHook(prog, values, 1, "gl")
    execute(prog, inputs=inputs, lanes=1, hooks=hook)
    return hook


NAN_CHAIN = ("!!NVvp4.0\nTEMP t, u;\nADD t, vertex.attrib[0], vertex.attrib[1];\n"
             "ADD u, t, vertex.attrib[2];\nMOV result.position, u;\nEND\n")
NAN_INPUTS = {"vertex.attrib[0]": [np.nan, 1, 2, 3], "vertex.attrib[1]": [1, 1, 1, 1],
              "vertex.attrib[2]": [2, 2, 2, 2]}


def test_value_computed_from_a_free_one_is_checked_exactly():
    """ADD of a NaN may give any value (GLSL 4.50 §4.7.1); the ADD that reads it may not: it
    must be the sum of the adopted value.  (The old replay adopted any departure on a lane
    holding a free value 'on trial' and excused it as 'downstream'.)"""
    seven = lambda w: np.where(np.arange(4) == 0, f32(7, 7, 7, 7), w)   # noqa: E731
    hook = _replay_against(NAN_CHAIN, NAN_INPUTS, {0: seven, 1: lambda w: f32(9, 4, 5, 6)[None]})
    assert hook.unexplained == [] and hook.adopted == {(0, "nonfinite"): 1}
    hook = _replay_against(NAN_CHAIN, NAN_INPUTS, {0: seven, 1: lambda w: f32(10, 4, 5, 6)[None]})
    assert [(d.index, d.components, d.verdict) for d in hook.unexplained] == [(1, (0,), "")]


def test_free_value_the_probe_agreed_on_is_not_free_later():
    """Where the implementation's ADD of a NaN agreed with the executor (NaN), the ADD of it is
    again an operation on a NaN (free, in x alone); the components it does not reach are exact."""
    hook = _replay_against(NAN_CHAIN, NAN_INPUTS, {1: lambda w: f32(9, 4, 5, 6)[None]})
    assert hook.adopted == {(1, "nonfinite"): 1} and hook.unexplained == []
    hook = _replay_against(NAN_CHAIN, NAN_INPUTS, {1: lambda w: f32(9, 5, 5, 6)[None]})
    assert [(d.index, d.components) for d in hook.unexplained] == [(1, (1,))]


FP_IF_TEX = ("!!NVfp4.0\nTEMP t, c;\nMOV.CC c, fragment.texcoord[1];\nIF GT.x;\n"
             "TEX t, fragment.texcoord[0], texture[0], 2D;\nENDIF;\nMOV result.color, t;\nEND\n")


def _lookup_in_flow(imp):
    """The TEX in the IF (derivatives undefined: the quad's fragments may diverge), judged
    against ``imp``; a 3-level texture whose levels are 0.25, 0.5 and 0.75."""
    levels = [np.full((4 >> i, 4 >> i, 4), 0.25 * (i + 1), np.float32) for i in range(3)]
    prog = xlate.parse(FP_IF_TEX)
    hook = _Ask(2, imp)
    coords = np.tile(np.array([[0.3, 0.3, 0, 1]], np.float32), (4, 1))
    flow = np.array([[1, 0, 0, 0], [1, 0, 0, 0], [1, 0, 0, 0], [-1, 0, 0, 0]], np.float32)
    execute(prog, inputs={"fragment.texcoord[0]": coords, "fragment.texcoord[1]": flow}, lanes=4,
            hooks=hook, textures={0: Texture(levels=levels, filter="LINEAR_MIPMAP_LINEAR")})
    return hook.verdicts


def test_lookup_with_undefined_derivatives_is_a_lookup_at_some_lod():
    """GLSL 4.50 §8.14.1 leaves the derivatives (so the LOD) undefined, not the lookup: a value
    no level of detail gives is not permitted (the old rule permitted any value there)."""
    v = _lookup_in_flow(lambda e: np.tile(f32(0.625, 0.625, 0.625, 0.625), (len(e), 1)))
    assert v.tolist() == [["lod"] * 4] * 3        # between levels 1 and 2: LOD 1.5
    v = _lookup_in_flow(lambda e: np.tile(f32(0.9, 0.9, 0.9, 0.9), (len(e), 1)))
    assert v.tolist() == [[""] * 4] * 3           # above the coarsest level's 0.75: no LOD


def test_derivative_in_flow_is_free_at_that_instruction():
    text = ("!!NVfp4.0\nTEMP t, c;\nMOV.CC c, fragment.texcoord[1];\nIF GT.x;\n"
            "DDX t, fragment.texcoord[0];\nENDIF;\nMOV result.color, t;\nEND\n")
    prog = xlate.parse(text)
    hook = _Ask(2, lambda e: e + np.uint32(12345))
    flow = np.array([[1, 0, 0, 0], [1, 0, 0, 0], [1, 0, 0, 0], [-1, 0, 0, 0]], np.float32)
    coords = np.arange(16, dtype=np.float32).reshape(4, 4)
    execute(prog, inputs={"fragment.texcoord[0]": coords, "fragment.texcoord[1]": flow},
            lanes=4, hooks=hook)
    assert hook.verdicts.tolist() == [["lod"] * 4] * 3


def test_unpack_reads_bits_not_a_nan():
    """UP4UB reads its operand's bits (GP4: "the 32 least significant bits of the encoding"):
    a NaN or denormal bit pattern there gives no freedom (a mutant that dropped the depth an
    UP4UB wrote passed as 'nonfinite')."""
    for bits in (0x7FC00000, 0x7F800000, 0x00000005):
        word = np.array([bits, 0, 0, 0], np.uint32).view(np.float32)
        v, exe = ask(VP.format("UP4UB t, vertex.attrib[0].x;"), 0, lambda e: e + np.uint32(1),
                     {"vertex.attrib[0]": word})
        assert v == [""] * 4, (hex(bits), v)
    # an arithmetic opcode on the same NaN keeps its freedom
    v, _ = ask(VP.format("ADD t, vertex.attrib[0].x, 1;"), 0, lambda e: f32(7, 7, 7, 7)[None],
               {"vertex.attrib[0]": np.array([0x7FC00000, 0, 0, 0], np.uint32).view(np.float32)})
    assert v == ["nonfinite"] * 4


def test_recompiled_lanes_need_a_freedom_no_departure_and_every_probe_run(monkeypatch):
    """replay.recompiled_lanes (native backend): a lane whose main outputs differ is explained only when the
    replay adopted a freedom there, found no unexplained departure, and reproduces the outputs
    of every probe compilation on it; programs with flow, KIL or probed tests never are."""
    from types import SimpleNamespace
    import xlate
    from xlate.verify import output_compare, replay as R
    prog = xlate.parse("!!ARBfp1.0\nTEMP a;\nMUL a, fragment.color, 2;\n"
                       "MOV result.color, a;\nEND\n")
    diff = lambda lane: SimpleNamespace(lane=lane)                       # noqa: E731
    per_run = {"run1": [diff(2)], "run2": [diff(3)]}
    monkeypatch.setattr(output_compare, "compare_all",
                        lambda p, f, refl, res, run, notes, strict: (per_run[run], 0))
    hook = SimpleNamespace(free_lanes=np.array([True, False, True, True, True]),
                           free_sites=np.zeros(5, bool),
                           bad=np.array([False, False, False, False, True]))
    values = {0: R.ImplValues(np.zeros((5, 4), np.uint32))}
    main = [diff(n) for n in range(5)]
    # lane 0: tied; 1: no freedom; 2, 3: a probe run differs; 4: an unexplained departure
    assert R.recompiled_lanes(prog, None, None, main, hook, None, ["run1", "run2"], values,
                              {}, 5) == [0]
    assert R.recompiled_lanes(prog, None, None, main, hook, None, [], values, {}, 5) == []
    assert R.recompiled_lanes(prog, None, None, main, hook, None, ["run1"], values,
                              {1: values[0]}, 5) == []
    counted = {0: R.ImplValues(np.zeros((5, 4), np.uint32), count=np.ones(5, np.int64))}
    assert R.recompiled_lanes(prog, None, None, main, hook, None, ["run1"], counted, {}, 5) == []
    kil = xlate.parse("!!ARBfp1.0\nKIL fragment.color;\nMOV result.color, 1;\nEND\n")
    assert R.recompiled_lanes(kil, None, None, main, hook, None, ["run1"], values, {}, 5) == []


# ---- the freedoms of one instruction are its contract's values, not any value (issue 17 §1) --

def _nan_words(*comps) -> np.ndarray:
    w = np.zeros(4, np.uint32)
    for c in comps:
        w[c] = 0x7FC00000
    return w.view(np.float32)


@pytest.mark.parametrize("op,operand,exe_inf", [("RSQ", 0.0, 0x7F800000),
                                                ("RCP", 0.0, 0x7F800000),
                                                ("RCP", -0.0, 0xFF800000)])
def test_reciprocal_of_zero_is_its_infinity(op, operand, exe_inf):
    """RSQ/RCP of an exact zero: the specs fix the infinity (NV_vertex_program 2.14.1.10.7,
    NV_fragment_program ApproxReciprocal) and GLSL's 1/+-0 generates it (§4.7.1): a value of
    the other sign or a finite one is no freedom (a mutant '1.0 / sqrt' -> '1.0 * sqrt' of a
    zero passed as 'nonfinite' under the old rule, which let a non-finite result be anything)."""
    inp = {"vertex.attrib[0]": np.array([operand, 0, 0, 0], np.float32)}
    for imp in (f32(0, 0, 0, 0), f32(3.5, 3.5, 3.5, 3.5), f32(-np.inf, np.inf, 0, 0) ^
                np.uint32(0)):
        v, exe = ask(VP.format(f"{op} t, vertex.attrib[0].x;"), 0,
                     lambda e, imp=imp: imp[None] if not (imp == e[0]).all() else e, inp)
        assert exe.tolist() == [exe_inf] * 4
        assert all(x == "" for x, i, e in zip(v, imp, exe) if i != e), (op, imp, v)


def test_nonfinite_result_elsewhere_keeps_its_freedom():
    """LG2(0) = -Inf by the specs, but GLSL 4.50 §8.2 leaves log2(0) undefined: any value."""
    v, exe = ask(VP.format("LG2 t, vertex.attrib[0].x;"), 0, lambda e: f32(7, 7, 7, 7)[None],
                 {"vertex.attrib[0]": [0.0, 0, 0, 0]})
    assert exe.tolist() == [0xFF800000] * 4 and v == ["nonfinite"] * 4


def test_compare_on_nan_gives_true_or_false_only():
    """SNE on a NaN: the comparison's outcome is open (ordered or unordered), the values it
    writes are not: 1.0 or 0.0 (a NaN operand let the old rule accept any value)."""
    prog = VP.format("SNE t, vertex.attrib[0], vertex.attrib[1];")
    inp = {"vertex.attrib[0]": _nan_words(0, 1), "vertex.attrib[1]": [0.0, 0, 0, 0]}
    v, exe = ask(prog, 0, lambda e: f32(0.0, 0.5, 0, 0)[None], inp)
    assert exe.tolist() == f32(1, 1, 0, 0).tolist()
    assert v == ["nonfinite", "", "", ""]
    # SFL reads no operand value: a NaN there gives nothing
    v, _ = ask(VP.format("SFL t, vertex.attrib[0], vertex.attrib[1];"), 0,
               lambda e: f32(1, 0, 0, 0)[None], inp)
    assert v == ["", "", "", ""]


def test_integer_compare_true_is_no_nonfinite_float():
    """TGSI FSEQ writes ~0 (0xFFFFFFFF) for true: an integer, though its bits read as a NaN.
    The old rule took it for a non-finite *result* and let the implementation write anything
    there; only a NaN or infinity among the float operands gives a compare freedom, and then
    to ~0 or 0."""
    from test_exec_helpers import build
    prog = build("FSEQ o, a, b", stage="vertex",
                 inputs={"a": "vertex.attrib[0]", "b": "vertex.attrib[1]"},
                 outputs={"o": "result.color"})
    hook = _Ask(0, lambda e: np.array([[5, 0xFFFFFFFF, 7, 0]], np.uint32))
    execute(prog, {"a": np.array([[1, np.nan, 2, 2]], np.float32),
                   "b": np.array([[1, 1, 3, 3]], np.float32)}, lanes=1, hooks=hook)
    assert hook.exe[0].tolist() == [0xFFFFFFFF, 0, 0, 0]
    # x: 1 == 1 is true, 5 is nothing; y: NaN == 1, ~0 is the other outcome; z: 2 == 3 false
    assert hook.verdicts[0].tolist() == ["", "nonfinite", "", ""]


@pytest.mark.parametrize("op", ["RCP", "RSQ"])
def test_reciprocal_of_infinity_is_a_zero(op):
    """RCP/RSQ of +Inf: NV_fragment_program ApproxReciprocal(+INF) = +0.0, NV_vertex_program
    "RSQ(+Inf) ... give 0.0", IEEE 1/Inf = 0: an infinity or a finite value there is no
    freedom (the operand's infinity let the old rule accept any value)."""
    inp = {"vertex.attrib[0]": np.array([np.inf, 0, 0, 0], np.float32)}
    for imp in (f32(np.inf, np.inf, np.inf, np.inf), f32(3, 3, 3, 3)):
        v, exe = ask(VP.format(f"{op} t, vertex.attrib[0].x;"), 0,
                     lambda e, imp=imp: imp[None], inp)
        assert exe.tolist() == [0] * 4
        assert v == [""] * 4, (op, imp, v)
    v, _ = ask(VP.format(f"{op} t, vertex.attrib[0].x;"), 0,
               lambda e: f32(-0.0, -0.0, -0.0, -0.0)[None], inp)
    assert v == ["signedzero"] * 4


def test_division_of_nonzero_by_zero_is_its_infinity():
    """DIV.F of a finite non-zero by +-0 is the IEEE infinity (GP4 DIV, GLSL §4.7.1), no
    freedom; 0/0 keeps its freedom (NaNs need not be generated).  The campaign's
    gen:nv4-fragment-17 passed '/' -> '*' as 'nonfinite' under the old rule."""
    inp = {"vertex.attrib[0]": [2.0, 0.0, -3.0, 0.0], "vertex.attrib[1]": [0.0, 0, 0, 0]}
    v, exe = ask(VP.format("DIV.F t, vertex.attrib[0], vertex.attrib[1].x;"), 0,
                 lambda e: f32(0, 0, 0, 0)[None], inp)
    assert exe.tolist()[0] == 0x7F800000 and exe.tolist()[2] == 0xFF800000
    assert v[0] == "" and v[2] == "" and v[1] == "nonfinite"


def test_saturation_may_move_a_denormal_unclamped():
    """DST.SAT of -|x| with a denormal x.w: an implementation that flushes compares -0 with the
    saturation's bounds and writes the value's own bits (llvmpipe: tgsi tess_control seed 19,
    ``xl_sat``'s ``lessThan`` flushed, ``mix`` moving the denormal) -- verdict ftz, shown by
    the instruction's unsaturated result being that denormal.  Another word, or an unclamped
    value that is no denormal, is not permitted."""
    den = np.array([0x1B], np.uint32).view(np.float32)[0]
    inp = {"vertex.attrib[0]": [1.0, 2.0, 0.5, den]}
    text = VP.format("DST.SAT t, vertex.attrib[0].w, -|vertex.attrib[0]|;")
    moved = lambda e: np.where(np.arange(4) == 3, np.uint32(0x8000001B), e)    # noqa: E731
    v, exe = ask(text, 0, moved, inp)
    assert exe[3] == 0 and v[3] == "ftz", (exe, v)
    other = lambda e: np.where(np.arange(4) == 3, np.uint32(0x8000001C), e)    # noqa: E731
    v, _ = ask(text, 0, other, inp)
    assert v[3] == ""
    # -0.5 saturated is 0: writing -0.5 is no flush of anything
    v, exe = ask(VP.format("MOV.SAT t, -vertex.attrib[0];"), 0,
                 lambda e: np.where(np.arange(4) == 2, f32(-0.5, -0.5, -0.5, -0.5), e), inp)
    assert exe[2] == 0 and v[2] == ""
    v, exe = ask(VP.format("MOV.SAT t, -vertex.attrib[0];"), 0,
                 lambda e: np.where(np.arange(4) == 3, np.uint32(0x8000001B), e), inp)
    assert v[3] == "ftz"


def test_mip_linear_lookup_between_two_grid_levels_of_detail():
    """rule_lod's grid steps LOD_STEP levels; between two grid points a *_MIPMAP_LINEAR lookup
    is the straight blend of its two levels (GL 4.5 §8.14.3), so a value there is a lookup at
    some LOD although no grid point gives it within the filter's tolerance (cg crt-ddt.fp: a
    blend at LOD 0.7451 of texels 2 apart).  A blend of texels no LOD blends is not."""
    from xlate.verify import permits as P
    lv0 = np.zeros((4, 4, 4), np.float32)
    lv0[..., :] = [-1.0, 2.0, 0.0, 1.0]
    lv1 = np.zeros((2, 2, 4), np.float32)
    lv1[..., :] = [1.0, -1.0, 2.0, 1.0]
    lv2 = np.full((1, 1, 4), 7.0, np.float32)
    tex = Texture(levels=[lv0, lv1, lv2], filter="NEAREST_MIPMAP_LINEAR", mag_filter="NEAREST")
    f = np.float32(0.7451172)            # not on the 1/64 grid

    def between(e):
        blend = (1 - f) * lv0[0, 0] + f * lv1[0, 0]
        return np.tile(blend.astype(np.float32).view(np.uint32), (len(e), 1))

    def mixed(e):                        # level 0 with level 2: no LOD blends those
        blend = (1 - f) * lv0[0, 0] + f * lv2[0, 0]
        return np.tile(blend.astype(np.float32).view(np.uint32), (len(e), 1))
    for imp, want in ((between, "lod"), (mixed, "")):
        prog = xlate.parse(FP_IF_TEX)
        hook = _Ask(2, imp)
        coords = np.tile(np.array([[0.3, 0.3, 0, 1]], np.float32), (4, 1))
        flow = np.array([[1, 0, 0, 0], [1, 0, 0, 0], [1, 0, 0, 0], [-1, 0, 0, 0]], np.float32)
        execute(prog, inputs={"fragment.texcoord[0]": coords, "fragment.texcoord[1]": flow},
                lanes=4, hooks=hook, textures={0: tex})
        # (w is 1.0 on levels 0 and 1: the blend equals the executor's there, nothing to judge)
        assert hook.verdicts.tolist() == [[want] * 3 + [""]] * 3, (want, hook.verdicts.tolist())
    # the grid alone misses the blend (the case the segments are for)
    grid_step_error = abs(float(f) - round(float(f) * 64) / 64) * 3.0
    assert grid_step_error > 2.0 ** -7 and P.LOD_STEP == 1 / 64


class _AskWritten(_Ask):
    """:class:`_Ask` with the site's written components set, as the replay sets them."""

    def __call__(self, x, st, idx, ops, bits, cmask):
        n = st.lanes if idx is None else len(idx)
        exe = np.ascontiguousarray(np.broadcast_to(bits, (n, 4)))
        imp = np.asarray(self.imp(exe.copy()), np.uint32)
        written = np.broadcast_to(np.array(x.inst.dst.mask, bool), (n, 4))
        site = permits.Site(x, ops, np.arange(n), exe, imp, "gl")
        site.written = written
        self.exe = exe
        self.verdicts = permits.permitted(site, ~same_words(exe, imp) & written)
        return bits, cmask


def ask_written(text: str, k: int, imp, words: np.ndarray):
    prog = xlate.parse(text, filename="t.tgsi")
    hook = _AskWritten(k, imp)
    execute(prog, inputs={"vertex.attrib[0]": words[None].astype(np.uint32)}, lanes=1,
            hooks=hook)
    return hook.verdicts[0].tolist(), hook.exe[0]


TGSI_VS = ("VERT\nDCL IN[0]\nDCL OUT[0], POSITION\nDCL TEMP[0..1]\nIMM[0] FLT32 {{0.0, 1.0, "
           "1.0, 2.0}}\n{}\nMOV OUT[0], TEMP[0]\nEND\n")


def test_minnum_moves_a_denormal_where_flushed_operands_tie_and_nowhere_else():
    """TGSI MIN (MINNUM) of 0 and a denormal compares flushed values, a tie, and may move
    the denormal's bits (generated TGSI fragment seed 96, inputs seed 31).  Per component:
    the denormal in x frees no choice in y (min(1, 2) given as 2 stays unexplained)."""
    denormal = 0x00000004
    words = np.array([denormal, 0x40000000, 0x40000000, 0x40000000], np.uint32)

    def imp(e):
        e[:, 0] = denormal
        e[:, 1] = 0x40000000                   # 2.0 where min(1, 2) = 1
        return e
    v, exe = ask_written(TGSI_VS.format("MIN TEMP[0], IMM[0].xyyy, IN[0]"), 0, imp, words)
    assert exe[:2].tolist() == [0, 0x3F800000]
    assert v[:2] == ["ftz", ""]


def test_a_double_written_through_its_high_word_is_judged_by_that_word():
    """DCEIL.U TEMP.y of the denormal double 4.9e-324: the executor's ceiling is 1.0 (high
    word 0x3ff00000), a flushing implementation's 0; .x keeps the register's old word, which
    is no part of the result (generated TGSI fragment seed 121, inputs seed 31)."""
    words = np.array([1, 0, 0, 0], np.uint32)

    def imp(e):
        e[:, 0] = 0x12345678                   # the unwritten low word: anything
        e[:, 1] = 0
        return e
    v, exe = ask_written(TGSI_VS.format("DCEIL TEMP[0].y, IN[0]"), 0, imp, words)
    assert int(exe[1]) == 0x3FF00000
    assert v[1] == "ftz"
    # a wrong high word is not a flush
    v, _ = ask_written(TGSI_VS.format("DCEIL TEMP[0].y, IN[0]"), 0,
                       lambda e: np.where(np.arange(4) == 1, np.uint32(0x40000000), e), words)
    assert v[1] == ""


TXL_VP = ("!!NVvp4.0\nTEMP t;\nTXL t, vertex.attrib[0], texture[0], 2D;\n"
          "MOV result.position, t;\nEND\n")
#: a 3-level texture whose levels are 0.25, 0.5 and 0.75; magnified NEAREST
LEVELS = [np.full((4 >> i, 4 >> i, 4), 0.25 * (i + 1), np.float32) for i in range(3)]


class _SiteHook(_AskWritten):
    """Judges the first instruction (the lookup) against ``imp`` on ``backend``."""

    def __init__(self, imp, backend):
        super().__init__(0, imp)
        self.backend = backend

    def __call__(self, x, st, idx, ops, bits, cmask):
        n = st.lanes if idx is None else len(idx)
        exe = np.ascontiguousarray(np.broadcast_to(bits, (n, 4)))
        imp_w = np.asarray(self.imp(exe.copy()), np.uint32)
        site = permits.Site(x, ops, np.arange(n), exe, imp_w, self.backend)
        site.written = np.ones((n, 4), bool)
        self.exe = exe
        self.verdicts = permits.permitted(site, ~same_words(exe, imp_w))
        return bits, cmask


def _judge_lookup(vp: str, attribs: list, imp, backend="gl", texture=None):
    """The verdicts at the one lookup of ``vp`` (vertex.attrib[i] = ``attribs[i]``, on
    ``texture``, default: the levels of LEVELS) against ``imp`` on ``backend``, and the
    executor's value."""
    hook = _SiteHook(imp, backend)
    execute(xlate.parse(vp), lanes=1, hooks=hook,
            inputs={f"vertex.attrib[{i}]": np.array([a], np.float32)
                    for i, a in enumerate(attribs)},
            textures={0: texture or Texture(levels=LEVELS, filter="LINEAR_MIPMAP_LINEAR")})
    return hook.verdicts[0].tolist(), hook.exe[0].view(np.float32).tolist()


def _txl(lod: float, imp, backend="gl", texture=None, at=(0.3, 0.3)):
    """The verdicts at a TXL of LOD ``lod`` at ``at`` on ``texture`` (default: levels of
    0.25, 0.5, 0.75) against ``imp`` on ``backend``, and the executor's value."""
    return _judge_lookup(TXL_VP, [(*at, 0, lod)], imp, backend, texture)


def test_an_lod_beyond_2_to_the_31_may_select_the_base_level_on_llvmpipe_only():
    """llvmpipe converts an explicit LOD to a 32-bit integer: at or beyond 2^31 it wraps to
    the base level (measured on Mesa 22.3.6: 2e9 gives the last level, 3e9 the base level).
    That is a defect of those backends (``implementation``), judged on them only, and only a
    lookup of the base level; the last level's value, any other value, and any LOD below
    2^31 are not excused."""
    base = lambda e: f32(0.25, 0.25, 0.25, 0.25)[None]          # noqa: E731
    v, exe = _txl(3e9, base)
    assert exe == [0.75] * 4 and v == ["implementation"] * 4
    assert _txl(2e9, base)[0] == [""] * 4
    assert _txl(3e9, base, backend="native")[0] == [""] * 4
    assert _txl(3e9, lambda e: f32(0.5, 0.5, 0.5, 0.5)[None])[0] == [""] * 4


TXD_VP = ("!!NVvp4.0\nTEMP t;\nTXD t, vertex.attrib[0], vertex.attrib[1], vertex.attrib[2], "
          "texture[0], 2D;\nMOV result.position, t;\nEND\n")


def _txd(ddx: float, imp, backend="gl"):
    """The verdicts at a TXD at (0.3, 0.3) with derivatives (ddx, 0) and (0, 0) on the 3-level
    texture of LEVELS against ``imp`` on ``backend``, and the executor's value."""
    return _judge_lookup(TXD_VP, [(0.3, 0.3, 0, 0), (ddx, 0, 0, 0), (0, 0, 0, 0)], imp, backend)


def test_derivatives_whose_squares_overflow_may_select_the_base_level_on_llvmpipe_only():
    """llvmpipe sums the squares of TXD's scaled derivatives in float: at |d * size| >= 2^64
    that is infinite, and so is the LOD, which wraps to the base level as TXL's does (generated
    TGSI fragment seed 522, inputs seed 500).  1e18 * 4 stays below 2^64: not excused, nor on
    the native backend, nor the last level's value."""
    base = lambda e: f32(0.25, 0.25, 0.25, 0.25)[None]          # noqa: E731
    v, exe = _txd(1e34, base)
    assert exe == [0.75] * 4 and v == ["implementation"] * 4
    assert _txd(1e18, base)[0] == [""] * 4
    assert _txd(1e34, base, backend="native")[0] == [""] * 4
    assert _txd(1e34, lambda e: f32(0.5, 0.5, 0.5, 0.5)[None])[0] == [""] * 4


TXL_CUBE_VP = ("!!NVvp4.0\nTEMP t;\nTXL t, vertex.attrib[0], texture[0], CUBE;\n"
               "MOV result.position, t;\nEND\n")


def test_a_cube_edge_is_as_near_as_the_major_axis_makes_it():
    """A cube direction's face coordinates are sc / |ma|: at (2, -1e7, -1e8) the -Z face's s
    is 1/2 - 1e-8, which float rounds to the face's middle, an edge of its 8 texels, so the
    executor takes column 4 and llvmpipe took column 3, the exact answer (generated TGSI
    fragment seed 531, inputs seed 500, at a tie of two faces).  Moving x by EDGE_REACH of
    its own magnitude (2) does not reach the edge; of the major axis's it does.  Column 2,
    no neighbour of the edge, is not excused."""
    faces = np.arange(6 * 8 * 8 * 4, dtype=np.float32).reshape(6, 8, 8, 4) / 64   # > 2^-7 apart
    tex = Texture(levels=[faces], target="CUBE", filter="NEAREST", mag_filter="NEAREST")

    def judged(column):
        return _judge_lookup(TXL_CUBE_VP, [(2, -1e7, -1e8, 0)],
                             lambda e: faces[5, 4, column].view(np.uint32)[None], texture=tex)

    v, exe = judged(3)
    assert v == ["boundary"] * 4
    assert exe == faces[5, 4, 4].tolist()
    assert judged(2)[0] == [""] * 4


def test_a_flushed_lod_is_a_lookup_within_the_filtering_tolerance():
    """A denormal explicit LOD flushed to 0 (TGSI fragment seed 128, inputs seed 31): with a
    NEAREST magnification filter, LOD 0 magnifies where the denormal LOD minified (LINEAR):
    the implementation's value is the lookup at LOD 0 within the filter's tolerance (one ulp
    off here: not bit for bit, as llvmpipe's texels are not the executor's); a value no
    lookup of the texture gives (3.0: its texels lie in [0, 1)) is not excused."""
    lv0 = np.arange(4 * 4 * 4, dtype=np.float32).reshape(4, 4, 4) / 64
    tex = Texture(levels=[lv0, lv0[::2, ::2]], filter="LINEAR_MIPMAP_NEAREST",
                  mag_filter="NEAREST")
    denormal = float(np.array([0x000000FF], np.uint32).view(np.float32)[0])
    _, magnified = _txl(0.0, lambda e: e, texture=tex)
    _, minified = _txl(denormal, lambda e: e, texture=tex)
    assert magnified != minified
    one_ulp_off = np.array(magnified, np.float32).view(np.uint32) + 1
    v, _ = _txl(denormal, lambda e: one_ulp_off[None], texture=tex)
    assert v == ["ftz"] * 4
    far = np.full(4, 3.0, np.float32).view(np.uint32)
    assert _txl(denormal, lambda e: far[None], texture=tex)[0] == [""] * 4




def test_an_edge_is_chosen_at_the_level_a_flushed_lod_selects():
    """Two freedoms in one lookup (generated TGSI fragment seed 81, inputs seed 31: a cube
    TXL at the +Z face's centre with a denormal LOD): the implementation flushes the LOD to 0
    and magnifies with NEAREST, and at s = t = 0.5 of a 4-texel level (u = 2.0, an edge) takes
    texel 1 where floor(u) takes texel 2.  Neither the flush alone (texel 2) nor the edge at
    the denormal LOD (a LINEAR minification) gives it; the edge at the flushed LOD does.  A
    texel that is no neighbour of the edge is not excused."""
    lv0 = np.arange(4 * 4 * 4, dtype=np.float32).reshape(4, 4, 4) / 64
    tex = Texture(levels=[lv0, lv0[::2, ::2]], filter="LINEAR_MIPMAP_NEAREST",
                  mag_filter="NEAREST")
    denormal = float(np.array([0x000000FF], np.uint32).view(np.float32)[0])
    texel = lambda i, j: lv0[j, i].view(np.uint32)[None]           # noqa: E731
    _, minified = _txl(denormal, lambda e: e, texture=tex, at=(0.5, 0.5))
    _, magnified = _txl(0.0, lambda e: e, texture=tex, at=(0.5, 0.5))
    assert magnified == lv0[2, 2].tolist() != minified
    v, _ = _txl(denormal, lambda e: texel(1, 1), texture=tex, at=(0.5, 0.5))
    assert v == ["boundary"] * 4
    assert _txl(denormal, lambda e: texel(0, 0), texture=tex, at=(0.5, 0.5))[0] == [""] * 4


def test_a_pass_probed_on_its_own_comes_before_the_last_value():
    """A repeated instruction's value at pass p: the probe of that pass alone (``nth``) before
    the last-value probe, whose compilation may have run the loop's top once more on a lane
    that had left it (llvmpipe; generated TGSI vertex seed 711).  A lane that reads a last
    value has its departures judged again in round two, once the passes are probed alone."""
    from xlate.verify.replay import ImplValues, ReplayHook
    prog = xlate.parse("VERT\nDCL IN[0]\nDCL OUT[0], POSITION\n  0: MOV OUT[0], IN[0]\n"
                     "  1: END\n")
    last = np.array([[1, 1, 1, 1], [3, 3, 3, 3]], np.uint32)
    alone = np.array([[2, 2, 2, 2], [4, 4, 4, 4]], np.uint32)
    count = np.array([1, 2])
    hook = ReplayHook(prog, {0: ImplValues(last, count, {1: alone})}, 2, "gl")
    known, imp = hook._impl(0, np.array([0, 1]), np.array([1, 2]))
    # lane 0, pass 1: probed alone; lane 1, pass 2 (its last): no probe of pass 2 alone
    assert known.tolist() == [True, True]
    assert imp.tolist() == [[2, 2, 2, 2], [3, 3, 3, 3]]
    assert hook.read_last.tolist() == [False, True]


#: generated TGSI vertex seed 711 (inputs seed 700), reduced: a counted loop left by its second
#: BRK; the lookups of the SWITCH's UP2US send the verifier to its probes, and the compilation
#: probing the UIF's every pass ran the loop's top once more on lanes that had left it
LOOP_LEFT_BY_SECOND_BRK = """VERT
DCL IN[0]
DCL IN[1]
DCL IN[2]
DCL OUT[0], POSITION
DCL CONST[0..3]
DCL TEMP[0..5]
DCL ADDR[0]
IMM[0] INT32 {0, 1, 3, -1}
IMM[1] INT32 {16, 1, 5, -1}
  0: MOV TEMP[1], IN[1].ywyx
  1: SWITCH CONST[3]
  2:   CASE IMM[1].wwww
  3:   BRK
  4:   CASE IMM[1].yyyy
  5:   UP2US TEMP[0], IN[2]
  6:   BRK
  7:   CASE IMM[1].xxxx
  8:   DEFAULT
  9:   BRK
 10: ENDSWITCH
 11: F2I TEMP[5].x, TEMP[1].wwww
 12: IMIN TEMP[5].x, TEMP[5].xxxx, IMM[0].zzzz
 13: BGNLOOP :0
 14:   ISGE TEMP[5].y, IMM[0].xxxx, TEMP[5].xxxx
 15:   UIF TEMP[5].yyyy :0
 16:     BRK
 17:   ENDIF
 18:   UADD TEMP[5].x, TEMP[5].xxxx, IMM[0].wwww
 19:   IF IN[2] :0
 20:     BRK
 21:   ENDIF
 22: ENDLOOP :0
 23: DP4_SAT OUT[0], TEMP[1].wwzw, IN[2].yywz
 24: UIF CONST[ADDR[0].z+1].yyyy :0
 25:   RET
 26: ENDIF
 27: END
"""


def test_a_loop_left_by_its_second_brk_verifies_with_its_passes_probed_alone():
    from xlate.verify.core import verify_source
    rep = verify_source(LOOP_LEFT_BY_SECOND_BRK, "loop.tgsi", lanes=256, seed=700,
                        backend="gl", runner=gl_runner("gl"))
    assert rep.status == "pass", (rep.reason, rep.localization[:2])


#: generated NV4 fragment seed 811 (inputs seed 800), reduced: the MIN of pass 4 of the outer
#: REP reads the SIN of pass 9 of the inner one, which llvmpipe computed 1 ulp off (within its
#: tolerance) -- a pass beyond the eight round two probes
NESTED_REPS = """!!NVfp4.0
TEMP R0, R3, R4;
MOV.F R3, fragment.texcoord[0].ywxw;
REP 4;
  MIN.F R0.x, -R3.yxzw, R4;
  REP 3;
    SIN.F.SAT R4, -fragment.texcoord[1].y;
  ENDREP;
ENDREP;
MOV.F result.color, R4;
END
"""


def test_a_departure_after_an_unprobed_pass_gets_its_passes_probed(monkeypatch):
    from xlate.verify import replay
    from xlate.verify.core import verify_source
    rep = verify_source(NESTED_REPS, "reps.fp", lanes=256, seed=800, backend="gl",
                        runner=gl_runner("gl"))
    assert rep.status == "pass", (rep.reason, rep.localization[:2])
    # without round three, the pass-9 SIN the executor kept is a departure at the MIN
    monkeypatch.setattr(replay, "PASS_LIMIT_WIDE", replay.PASS_LIMIT)
    rep = verify_source(NESTED_REPS, "reps.fp", lanes=256, seed=800, backend="gl",
                        runner=gl_runner("gl"))
    assert (rep.status, rep.reason) == (
        "mismatch", "localized: divergence at 'MIN.F R0.x, -R3.yxzw, R4' (line 5)")


def test_a_dot_products_denormal_partial_sum_may_be_flushed():
    """DP3 of products near 1.2e-38: the first two sum to a denormal, which an implementation
    that flushes denormals flushes before the third is added (GLSL 4.50 §4.7.1; generated
    FP1.0 fragment seed 913, inputs seed 900).  That value is permitted ('ftz'); one ulp off
    it is not."""
    from xlate.verify.replay import ImplValues, ReplayHook
    prog = xlate.parse("FRAG\nDCL OUT[0], COLOR\nDCL TEMP[0]\n"
                     "IMM[0] FLT32 {2.897012948989868, -2.5, -2.490098714828491, 0.0}\n"
                     "IMM[1] UINT32 {8421504, 8421504, 8421504, 8421504}\n"
                     "  0: DP3 TEMP[0], IMM[0], IMM[1]\n  1: MOV OUT[0], TEMP[0]\n"
                     "  2: END\n", filename="dp3.tgsi")
    rec = _Record(len(prog.instructions))
    execute(prog, {}, lanes=1, hooks=rec)
    r = np.float32(1.1801040622505304e-38)
    p = np.float32([2.897012948989868, -2.5, -2.490098714828491]) * r
    assert 0 < abs(p[0] + p[1]) < np.float32(1.1754944e-38)          # a denormal partial sum
    assert rec.words[0][0, 0] == ((p[0] + p[1]) + p[2]).view(np.uint32)
    flushed = int(p[2].view(np.uint32))
    for got, ok in ((flushed, True), (flushed + 1, False)):
        words = {k: np.array([[got] * 4], np.uint32) for k in rec.words}
        hook = ReplayHook(prog, {k: ImplValues(w) for k, w in words.items()}, 1, "gl")
        execute(prog, {}, lanes=1, hooks=hook)
        if ok:
            assert hook.unexplained == [] and hook.adopted == {(0, "ftz"): 4}
        else:
            assert [(d.index, d.verdict) for d in hook.unexplained] == [(0, "")]


def test_rsq_is_held_to_the_programs_approximation_bound():
    """NV_fragment_program 3.11.5.27: ApproxRSQRT is within 2^-22 for 1 <= x < 4, 4 ulp of a
    result in (0.5, 1].  lavapipe's inversesqrt is 3 ulp off at times (generated ARBvp+NV2
    seed 2005 on vulkan: 0x3f420765 for 0x3f420768), past GLSL's 2 ulp for inversesqrt: a
    tolerance of the program's own RSQ.  5 ulp is past it, and a mismatch."""
    inp = {"vertex.attrib[0]": [1.7407, 0, 0, 0]}
    text = VP.format("RSQ t, vertex.attrib[0].x;")
    for ulps, verdict in ((-3, "tolerance"), (4, "tolerance"), (-5, ""), (5, "")):
        v, _ = ask(text, 0, lambda e, u=ulps: (e.astype(np.int64) + u).astype(np.uint32), inp)
        assert v == [verdict] * 4, (ulps, v)
