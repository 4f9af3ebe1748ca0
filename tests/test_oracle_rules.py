"""The cgc oracle's verdict rules on synthetic pairs (no corpus needed): each rule reproduces a
difference it names, and does NOT explain the same pair with one lane's one component made
wrong (docs/cgc-oracle.md, xlate/verify/oracle_explain.py)."""
import numpy as np

from conftest import gl_context

LANES, SEED = 64, 1

ASM_HEAD = "!!NVfp4.0\n#var float4 main_fragment : $vout.COLOR : COL0[0] : -1 : 1\n"
GLSL_HEAD = "//var float4 main_fragment : $vout.COLOR : COL : -1 : 1\n\n#version 110\n"
#: added to cgc's GLSL output: the y component of the fragment at pixel (0, 0) moved by 0.01
WRONG_ONE = " + (gl_FragCoord.x < 1.0 && gl_FragCoord.y < 1.0 ? vec4(0.0, 0.01, 0.0, 0.0) " \
            ": vec4(0.0))"


def _pair(tmp_path, asm_body: str, glsl_main: str):
    from xlate.verify.oracle import compare_pair
    gl_context("core", "compat")
    asm = tmp_path / "p.fp"
    asm.write_text(ASM_HEAD + "OUTPUT result_color0 = result.color;\n" + asm_body + "END\n")
    glsl = tmp_path / "p.frag"
    glsl.write_text(GLSL_HEAD + glsl_main)
    return compare_pair(asm, glsl, "fragment", lanes=LANES, seed=SEED, explain=True)


def _lane_at_origin() -> int:
    from xlate.verify.gl import quad_layout
    x, y, _, _ = quad_layout(LANES)
    return int(np.flatnonzero((x == 0) & (y == 0))[0])


def _wrong(text: str) -> str:
    return text.replace(";\n}", WRONG_ONE + ";\n}", 1)


# ---- unsigned remainder (undefined-domain) ---------------------------------------------------

MOD_ASM = ("TEMP R0;\nTRUNC.S R0.x, fragment.texcoord[0].x;\nMOD.S R0.x, R0.x, {12}.x;\n"
           "I2F.S R0.x, R0.x;\nMOV.F result_color0, R0.x;\n")
MOD_GLSL = ("#extension GL_EXT_gpu_shader4 : enable\nvoid main()\n{\n"
            "    gl_FragColor = vec4(float(int(gl_TexCoord[0].x) % 12));\n}\n")


def test_int_mod_unsigned_remainder_unit():
    """(-128) % 12: floored 4, truncated -8, unsigned (of the word 4294967168) 8; a lane whose
    operands are not negative keeps the executor's value."""
    from xlate import parse
    from xlate.exec.machine import compile_program
    from xlate.verify.oracle_causes import INT_MOD_KINDS, _int_mod_variant
    prog = parse("!!NVfp4.0\nTEMP R0;\nMOD.S R0.x, fragment.texcoord[0].x, {12}.x;\n"
                 "MOV.F result.color, R0;\nEND\n", filename="t.fp")
    x = compile_program(prog)[0][0]
    a = np.array([-128, 30], np.int32)
    b = np.array([12, 12], np.int32)
    bits = np.array([[0xFFFFFFF8] * 4, [6] * 4], np.uint32)        # executor: truncated
    got = {k: _int_mod_variant(k)(x, [a, b], bits, np.arange(2), np.arange(2))
           for k in INT_MOD_KINDS}
    assert {k: int(np.asarray(v)[0, 0]) for k, v in got.items()} == \
        {"floored": 4, "truncated": 0xFFFFFFF8, "unsigned": 8}
    for v in got.values():
        assert np.array_equal(np.asarray(v)[1], bits[1])


def test_int_mod_of_a_negative_is_shown_and_a_wrong_lane_is_not(tmp_path):
    r = _pair(tmp_path, MOD_ASM, MOD_GLSL)
    assert r.status == "differ"           # the generated inputs have negative x
    e = r.explanation
    assert e["status"] == "explained" and set(e["verdicts"]) == {"undefined-domain"}, e
    bad = _pair(tmp_path, MOD_ASM, _wrong(MOD_GLSL)).explanation
    assert bad["status"] == "unexplained"
    assert [u["lane"] for u in bad["unexplained"]] == [_lane_at_origin()]


# ---- int() of NaN / out of range (undefined-domain) ------------------------------------------

def test_conversion_of_nan_or_out_of_range_only():
    """TRUNC.S of NaN / 3e9 may be 0x80000000, 0, INT_MAX or 0xFFFFFFFF; TRUNC.S of 2.5 keeps
    the executor's 2 in every variant."""
    from xlate import parse
    from xlate.exec.machine import compile_program
    from xlate.verify.oracle_causes import CONVERSION_VALUES, _conversion_variants
    prog = parse("!!NVfp4.0\nTEMP R0;\nTRUNC.S R0, fragment.texcoord[0];\n"
                 "I2F.S result.color, R0;\nEND\n", filename="t.fp")
    x = compile_program(prog)[0][0]
    ops = [np.array([[np.nan, 3e9, 2.5, -2.5]], np.float32)]
    bits = np.array([[0, 0x7FFFFFFF, 2, 0xFFFFFFFE]], np.uint32)
    got = [np.asarray(ch(x, ops, bits, np.arange(1), np.arange(1)))[0].tolist()
           for ch in _conversion_variants()]
    assert got == [[v, v, 2, 0xFFFFFFFE] for v in CONVERSION_VALUES]


# ---- MIN/MAX of one NaN (nan-operand) --------------------------------------------------------

def test_nan_select_takes_the_other_operand_only_where_one_is_nan():
    from xlate import parse
    from xlate.exec.machine import compile_program
    from xlate.verify.oracle_causes import _nan_select_variant
    prog = parse("!!NVfp4.0\nTEMP R0;\nMIN.F R0, fragment.texcoord[0], fragment.texcoord[1];\n"
                 "MOV.F result.color, R0;\nEND\n", filename="t.fp")
    x = compile_program(prog)[0][0]
    a = np.array([[np.nan, 1.0, np.nan, 3.0]], np.float32)
    b = np.array([[2.0, np.nan, np.nan, 1.0]], np.float32)
    bits = np.array([[0x7FC00000, 0x7FC00000, 0x7FC00000, 0x3F800000]], np.uint32)
    got = np.asarray(_nan_select_variant()(x, [a, b], bits, np.arange(1), np.arange(1)))
    assert got.view(np.float32)[0, :2].tolist() == [2.0, 1.0]
    assert got[0, 2:].tolist() == [0x7FC00000, 0x3F800000]      # both NaN; no NaN: kept


# ---- the implementation's built-ins, and rounding --------------------------------------------

#: noise-mudlord's hash: the assembly scales the coordinate, cgc's GLSL the constant (folded)
HASH_ASM = ("TEMP R0;\nMUL.F R0.xy, fragment.texcoord[0], {0.7}.x;\n"
            "DP2.F R0.x, R0, {12.9898, 78.233};\nSIN.F R0.x, R0.x;\n"
            "MUL.F R0.x, R0.x, {43758.547}.x;\nFRC.F result_color0, R0.x;\n")
HASH_GLSL = ("void main()\n{\n    gl_FragColor = vec4(fract(sin(dot(gl_TexCoord[0].xy, "
             "vec2(9.09286, 54.7631))) * 4.37585469E+04));\n}\n")


def test_builtin_evaluator_returns_the_implementations_sin():
    """The measured sin() agrees with float64 sin to a few ulps for small arguments (it is the
    implementation's, not a copy of the executor's) and is deterministic."""
    from xlate.verify.oracle import CompatRunner
    from xlate.verify.oracle_builtin import BuiltinEvaluator
    gl_context("compat")
    ev = BuiltinEvaluator(CompatRunner())
    x = np.linspace(-3, 3, 37).astype(np.float32)
    got = ev("SIN", [x])
    assert got.shape == (37,) and np.all(np.abs(got - np.sin(x.astype(np.float64))) < 1e-5)
    ev.cache.clear()
    assert np.array_equal(ev("SIN", [x]).view(np.uint32), got.view(np.uint32))


def test_hash_is_reproduced_and_a_wrong_component_is_not(tmp_path):
    """fract(sin(x) * 43758.5) of an argument the two programs round differently: moves of a
    few ulps (with the implementation's measured sin()) reproduce cgc; a 0.01 change of one
    component of one lane is not reproduced by any of them (the four components are one
    scalar in both programs)."""
    r = _pair(tmp_path, HASH_ASM, HASH_GLSL)
    assert r.status == "differ"           # the two roundings of the argument differ
    e = r.explanation
    assert e["status"] == "explained", e
    assert set(e["verdicts"]) <= {"implementation", "rounding", "precision", "tie"}, e
    assert "ill-conditioned" not in e["verdicts"]
    bad = _pair(tmp_path, HASH_ASM, _wrong(HASH_GLSL)).explanation
    assert bad["status"] == "unexplained"
    assert _lane_at_origin() in [u["lane"] for u in bad["unexplained"]]


def test_ulps_move_by_units_in_the_last_place():
    from xlate import parse
    from xlate.exec.machine import compile_program
    from xlate.verify.oracle_causes import _ulps
    prog = parse("!!NVfp4.0\nTEMP R0;\nADD.F R0, fragment.texcoord[0], fragment.texcoord[1];\n"
                 "MOV.F result.color, R0;\nEND\n", filename="t.fp")
    x = compile_program(prog)[0][0]
    bits = np.array([[0x3F800000, 0xBF800000, 0, 0x7F800000]], np.uint32)   # 1, -1, 0, Inf
    got = np.asarray(_ulps(2)(x, [], bits, np.arange(1), np.arange(1)))
    assert got[0].tolist() == [0x3F800002, 0xBF7FFFFE, 2, 0x7F800000]


# ---- uninitialised reads of cgc's GLSL -------------------------------------------------------

UNINIT_ASM = ("TEMP R0;\nSGT.F R0.x, fragment.texcoord[0].x, {0.5}.x;\n"
              "MOV.F result_color0, R0.x;\n")
UNINIT_GLSL = ("void main()\n{\n    float _flag;\n    if (gl_TexCoord[0].x > 0.5) {\n"
               "        _flag = 1.0;\n    }\n    gl_FragColor = vec4(_flag);\n}\n")


def test_initialised_rewrites_plain_declarations_only():
    from xlate.verify.oracle_uninit import initialised
    text = ("struct S {\n    vec2 _m;\n};\nuniform float _u;\nvarying vec4 _v;\nvec4 _g;\n"
            "float _arr[4];\nvoid main()\n{\n    bvec2 _px0;\n    float _f = 1.0;\n}\n")
    out, names = initialised(text)
    assert names == ["_g", "_px0"]
    assert "vec4 _g = vec4(0.0);" in out and "bvec2 _px0 = bvec2(false);" in out
    assert "    vec2 _m;" in out and "float _arr[4];" in out


def test_uninitialised_read_is_shown_by_the_initialised_twin(tmp_path):
    """cgc's GLSL reads ``_flag`` unwritten where x <= 0.5 (undefined, GLSL 1.10 §4.3); the
    assembly computes 0 there.  Lanes the initialised twin reproduces are ``uninitialised``;
    the same pair with one wrong component is not explained on that lane."""
    r = _pair(tmp_path, UNINIT_ASM, UNINIT_GLSL)
    assert r.status == "differ"           # llvmpipe's undefined value is not 0 here
    e = r.explanation
    assert e["status"] == "explained" and set(e["verdicts"]) == {"uninitialised"}, e
    bad = _pair(tmp_path, UNINIT_ASM, _wrong(UNINIT_GLSL)).explanation
    assert bad["status"] == "unexplained"
    assert [u["lane"] for u in bad["unexplained"]] == [_lane_at_origin()]


# ---- tools/diffcheck.py --oracle on a corpus of two pairs ------------------------------------

def _diffcheck():
    import importlib.util
    from pathlib import Path
    root = Path(__file__).resolve().parents[1]
    spec = importlib.util.spec_from_file_location("diffcheck", root / "tools" / "diffcheck.py")
    dc = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(dc)
    return dc


def _corpus(tmp_path, pairs: dict) -> str:
    """A corpus folder with cg/MANIFEST.tsv naming ``pairs`` (entry -> (asm, glsl))."""
    cg = tmp_path / "corpus" / "cg"
    (cg / "gp4fp").mkdir(parents=True)
    (cg / "glslf").mkdir()
    rows = ["file\tprofile\tsource_path\tentry"]
    for entry, (asm, glsl) in pairs.items():
        (cg / "gp4fp" / f"{entry}.fp").write_text(ASM_HEAD + "OUTPUT result_color0 = "
                                                  "result.color;\n" + asm + "END\n")
        (cg / "glslf" / f"{entry}.frag").write_text(GLSL_HEAD + glsl)
        rows += [f"gp4fp/{entry}.fp\tgp4fp\t{entry}.cg\tmain",
                 f"glslf/{entry}.frag\tglslf\t{entry}.cg\tmain"]
    (cg / "MANIFEST.tsv").write_text("\n".join(rows) + "\n")
    return str(tmp_path / "corpus")


def test_diffcheck_oracle_reports_the_shown_verdicts(tmp_path, capsys):
    """``tools/diffcheck.py --oracle``: the table counts explained pairs, the verdicts are
    printed with their rule, and the exit status is 1 while anything is unexplained."""
    gl_context("core", "compat")
    dc = _diffcheck()
    corpus = _corpus(tmp_path, {"mod": (MOD_ASM, MOD_GLSL), "uninit": (UNINIT_ASM, UNINIT_GLSL)})
    rc = dc.main(["--oracle", "--corpus", corpus, "--lanes", str(LANES), "--quiet"])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "fragment  pairs     2  match     0  differ    2 (explained    2, unexplained    0)" \
        in out
    assert "  uninitialised: cgc defect: its GLSL reads a variable no path wrote" in out
    assert "  undefined-domain: GLSL 1.10" in out
    corpus = _corpus(tmp_path / "2", {"wrong": (UNINIT_ASM, _wrong(UNINIT_GLSL))})
    rc = dc.main(["--oracle", "--corpus", corpus, "--lanes", str(LANES), "--quiet"])
    out = capsys.readouterr().out
    assert rc == 1 and "unexplained    1" in out, out
    assert f"unexplained lane {_lane_at_origin()} " in out, out


# ---- translation side: every pass of a repeated instruction probed ------------------------

#: a subroutine whose POW runs ten times; its ninth result is kept by a MOV, which cannot
#: round (crt-interlaced-halation-pass2 noopt: lane 189's "departure at MOV.F R14.xyz, R15")
PASSES_ASM = ("TEMP R0, R1, R2;\nMOV.F R0, fragment.texcoord[0];\n" + "CAL SUB;\n" * 9 +
              "MOV.F R2.x, R1.x;\nCAL SUB;\nMOV.F result_color0, R2.x;\nRET;\nSUB:\n"
              "POW.F R1.x, |R0.x|, R0.y;\nRET;\n")
ZERO_GLSL = "void main()\n{\n    gl_FragColor = vec4(0.0);\n}\n"


def _translation_verdicts(tmp_path, corrupt_lane=None):
    from xlate.verify import draw_run
    from xlate.verify import output_compare
    from xlate.verify.gl import Runner
    from xlate.verify.oracle import compare_pair
    from xlate.verify.oracle_translation import judge_translation
    gl_context("core", "compat")
    asm, glsl = tmp_path / "p.fp", tmp_path / "p.frag"
    asm.write_text(ASM_HEAD + "OUTPUT result_color0 = result.color;\n" + PASSES_ASM + "END\n")
    glsl.write_text(GLSL_HEAD + ZERO_GLSL)
    run = compare_pair(asm, glsl, "fragment", lanes=LANES, seed=SEED).run
    b, name, _ = run.compared[0]
    if corrupt_lane is not None:
        words = run.cap.outputs[name]
        words[corrupt_lane, 0] = np.float32(words[corrupt_lane, 0].view(np.float32) * 1.01) \
            .view(np.uint32)
    el = output_compare.output_elements(run.program)
    exe = output_compare.executor_output(run.program, run.facts,
                               draw_run.run_executor(run.program, run.gen, run.lanes).outputs, b,
                               el.get(b) or el.get(b + "[0]"))[0]
    lanes = [int(ln) for ln in np.flatnonzero(exe[:, 0] != run.cap.outputs[name][:, 0])]
    return exe, lanes, judge_translation(run, Runner("gl"), lanes)


def test_translation_replay_probes_every_pass(tmp_path):
    """llvmpipe's pow() differs from the executor's by an ulp on some lanes; verify's replay
    probes 8 passes, so the ninth POW's departure surfaced at the MOV after it, which cannot
    round, and was 'unexplained'.  With every pass probed it is the POW's tolerance."""
    _, lanes, verdicts = _translation_verdicts(tmp_path)
    assert lanes                     # the translation does differ from the executor
    assert {v.verdict for v in verdicts.values()} == {"translation:tolerance"}


def test_translation_replay_every_pass_does_not_explain_a_wrong_output(tmp_path):
    """The same pair with one lane's output moved by 1 % in xlate's capture: that lane stays
    unexplained (the other lanes keep their verdicts)."""
    exe, lanes, _ = _translation_verdicts(tmp_path)
    value = exe[:, 0].view(np.float32)
    wrong = next(ln for ln in range(LANES) if ln not in lanes and np.isfinite(value[ln])
                 and abs(value[ln]) > 1e-3)
    _, lanes, verdicts = _translation_verdicts(tmp_path, corrupt_lane=wrong)
    assert verdicts[wrong].verdict == "unexplained"
    assert {v.verdict for ln, v in verdicts.items() if ln != wrong} == {"translation:tolerance"}


# ---- rounding where a sum cancels ------------------------------------------------------------

#: a and b the same sum in the assembly (a - b = 0 exactly); cgc's GLSL associates them
#: differently, so on some lanes a - b is an ulp below 0 and the flag is set
CANCEL_ASM = ("TEMP R0, R1;\nADD.F R0.x, fragment.texcoord[0].x, fragment.texcoord[0].y;\n"
              "ADD.F R0.x, R0.x, fragment.texcoord[0].z;\n"
              "ADD.F R0.y, fragment.texcoord[0].x, fragment.texcoord[0].y;\n"
              "ADD.F R0.y, R0.y, fragment.texcoord[0].z;\n"
              "ADD.F R0.z, R0.x, -R0.y;\nSLT.F R1, R0.z, {0}.x;\nMOV.F result_color0, R1;\n")
CANCEL_GLSL = ("void main()\n{\n    vec4 t = gl_TexCoord[0];\n"
               "    float d = ((t.x + t.y) + t.z) - (t.x + (t.y + t.z));\n"
               "    gl_FragColor = vec4(d < 0.0 ? 1.0 : 0.0);\n}\n")


def test_cancels_only_where_the_sum_cancels():
    from types import SimpleNamespace
    from xlate.ir.model import DataType
    from xlate.verify.oracle_causes import _cancels, _operand_ulps
    x = SimpleNamespace(inst=SimpleNamespace(op="ADD", dst=SimpleNamespace(
        mask=(True, False, False, False))), rt=DataType.FLOAT,
        fn=lambda x, a, b: a + b, sat=None)
    a = np.array([[1.0, 0, 0, 0], [1.0, 0, 0, 0], [3.0, 0, 0, 0]], np.float32)
    b = np.array([[-1.0, 0, 0, 0], [-0.5, 0, 0, 0], [-3.0, 0, 0, 0]], np.float32)
    bits = (a + b).view(np.uint32)
    assert _cancels(x, [a, b], bits).tolist() == [True, False, True]
    new = _operand_ulps(0, 1)(x, [a, b], bits, np.arange(3), np.arange(3)).view(np.float32)
    # lanes 0 and 2: a moved by one ulp, the difference is that ulp; lane 1 untouched
    assert new[:, 0].tolist() == [float(np.spacing(np.float32(1))), 0.5,
                                  float(np.spacing(np.float32(3)))]


def test_cancelled_sum_is_reproduced_and_a_wrong_component_is_not(tmp_path):
    """The lane where cgc's a - b is below 0 is reproduced by a's one-ulp move at the ADD that
    cancelled (``rounding``); no tie can do it (the SLT's operand is exactly 0).  The same
    pair with one component of one lane made wrong: that lane stays unexplained."""
    r = _pair(tmp_path, CANCEL_ASM, CANCEL_GLSL)
    assert r.status == "differ"
    e = r.explanation
    assert e["status"] == "explained" and e["verdicts"] == {"rounding": e["lanes"]}, e
    assert e["examples"][0]["instructions"][0]["text"] == "ADD.F R0.z, R0.x, -R0.y"
    bad = _pair(tmp_path, CANCEL_ASM, _wrong(CANCEL_GLSL)).explanation
    assert bad["status"] == "unexplained"
    assert [u["lane"] for u in bad["unexplained"]] == [_lane_at_origin()]


# ---- lod: lookups whose implicit derivatives are not finite --------------------------------

#: a coordinate that is NaN where z < 0 (LG2 of a negative), varying by 2 texels per pixel
LOD_ASM = ("TEMP R0, R1;\nADD.F R0.y, -|fragment.texcoord[0].z|, {-1}.x;\n"
           "LG2.F R0.y, R0.y;\nCMP.F R0.x, fragment.texcoord[0].z, R0.y, {0}.x;\n"
           "MUL.F R0.zw, fragment.position.xyxy, {0.25}.x;\nADD.F R0.xy, R0.zwzw, R0.x;\n"
           "TEX.F R1, R0, texture[0], 2D;\n"
           "CMP.F result_color0, fragment.texcoord[0].z, {0}.x, R1;\n")
LOD_GLSL = ("uniform sampler2D _tex;\nvoid main()\n{\n"
            "    vec4 t = texture2D(_tex, gl_FragCoord.xy * 0.25);\n"
            "    gl_FragColor = gl_TexCoord[0].z < 0.0 ? vec4(0.0) : t;\n}\n")


def test_lod_replaces_only_lookups_with_non_finite_derivatives(tmp_path):
    """``lod`` re-runs a lookup at an explicit level only on the lanes whose quad holds a
    non-finite coordinate (the executor's coarse derivatives: the quad's first three lanes);
    every other lane keeps the executor's lookup."""
    from dataclasses import replace
    from xlate.verify.draw_run import run_executor
    from xlate.verify.oracle import compare_pair
    from xlate.verify.oracle_causes import _lod_levels, _undefined_lod_variant
    from xlate.verify.oracle_counterfactual import Counterfactual
    gl_context("core", "compat")
    asm, glsl = tmp_path / "p.fp", tmp_path / "p.frag"
    asm.write_text(ASM_HEAD + "#var sampler2D tex :  : texunit 0 : -1 : 1\n"
                   "OUTPUT result_color0 = result.color;\n" + LOD_ASM + "END\n")
    glsl.write_text(GLSL_HEAD.replace("\n\n#version", "\n//var sampler2D tex :  : _tex : -1 : 1"
                                      "\n\n#version") + LOD_GLSL)
    run = compare_pair(asm, glsl, "fragment", lanes=LANES, seed=SEED).run
    p, gen = run.program, run.gen
    # a mipmapped filter (the generated one may read the base level only)
    gen.textures = {u: replace(t, filter="NEAREST_MIPMAP_NEAREST")
                    for u, t in gen.textures.items()}
    k = next(i for i, ins in enumerate(p.instructions) if ins.op == "TEX")
    levels = _lod_levels(p, k, gen.textures)
    assert levels[0] == -1.0 and len(levels) > 2
    z = gen.inputs["fragment.texcoord[0]"][:, 2].view(np.float32)
    quad = np.arange(LANES) // 4 * 4
    nan_quad = (z[quad] < 0) | (z[quad + 1] < 0) | (z[quad + 2] < 0)
    assert nan_quad.any() and not nan_quad.all()

    def texel(hooks=None):
        got = {}

        class Grab(Counterfactual):
            def __call__(self, x, st, idx, ops, bits, cmask):
                out, cmask = super().__call__(x, st, idx, ops, bits, cmask)
                if x.index == k:
                    sel = st.all_lanes if idx is None else np.asarray(idx)
                    got.setdefault("v", np.zeros((LANES, 4), np.uint32))[st.base + sel] = \
                        np.broadcast_to(out, (len(sel), 4))
                return out, cmask
        h = Grab(hooks or {})
        h.instructions = sorted(set(h.instructions) | {k})
        run_executor(p, gen, LANES, hooks=h)
        return got["v"]

    base = texel()
    moved = texel({k: [(np.ones(LANES, bool), _undefined_lod_variant(1.0))]})
    changed = (moved != base).any(axis=1)
    assert changed.any()
    assert not (changed & ~nan_quad).any()
