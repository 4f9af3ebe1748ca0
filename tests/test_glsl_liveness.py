"""Which statements of a translation can reach an output (xlate/verify/glsl_liveness.py): the
mutation harness mutates only those; a mutant of any other statement is equivalent by
construction (its result is never read).  The pass must over-approximate: a statement it calls
dead must be dead on every input."""
from __future__ import annotations

from xlate import api
from xlate.backends.glsl import emit_glsl
from xlate.verify import mutants as M
from xlate.verify.glsl_liveness import live_lines


def _body(code: str) -> str:
    return ("vec4 R0;\nvec4 R1;\nvec4 R2;\nvec4 out_result_color;\nvoid xl_main()\n{\n" + code +
            "\n}\n\nvoid main()\n{\n    xl_main();\n    color = out_result_color;\n}\n")


def _live(code: str) -> list[str]:
    glsl = _body(code)
    lines = glsl.split("\n")
    live = live_lines(glsl)
    assert live is not None
    return [lines[k].strip() for k in sorted(live)]


def test_overwritten_before_read_is_dead():
    assert _live("    R0 = in_a;\n    R0 = in_b;\n    out_result_color = R0;") == \
        ["R0 = in_b;", "out_result_color = R0;"]


def test_components_are_tracked_apart():
    code = "    R0.xy = in_a.xy;\n    R0.zw = in_b.zw;\n    out_result_color.x = R0.z;"
    assert _live(code) == ["R0.zw = in_b.zw;", "out_result_color.x = R0.z;"]


def test_both_branches_and_the_condition_join():
    code = ("    R1 = in_c;\n    R0 = in_a;\n    if (any(lessThan(R1, vec4(0.0))))\n    {\n"
            "        R0 = in_b;\n    }\n    out_result_color = R0;")
    assert _live(code) == ["R1 = in_c;", "R0 = in_a;", "if (any(lessThan(R1, vec4(0.0))))",
                           "R0 = in_b;", "out_result_color = R0;"]


def test_a_branch_of_dead_code_and_its_condition_are_dead():
    code = ("    if (in_c.x > 0.0)\n    {\n        R2 = in_b;\n    }\n"
            "    out_result_color = in_a;")
    assert _live(code) == ["out_result_color = in_a;"]


def test_loop_carried_value_is_live():
    """R0 read in the loop's next pass: live although no statement after the loop reads it."""
    code = ("    R0 = in_a;\n    for (int xl_i1 = 0, xl_n2 = 3; xl_i1 < xl_n2; ++xl_i1)\n    {\n"
            "        R1 = R1 + R0;\n        R0 = R0 * in_b;\n    }\n    out_result_color = R1;")
    assert _live(code) == ["R0 = in_a;", "for (int xl_i1 = 0, xl_n2 = 3; xl_i1 < xl_n2; ++xl_i1)",
                           "R1 = R1 + R0;", "R0 = R0 * in_b;", "out_result_color = R1;"]


def test_break_sees_what_follows_the_loop():
    code = ("    R1 = in_a;\n    for (;;)\n    {\n        if (in_b.x > 0.0) break;\n"
            "        R1 = in_c;\n    }\n    out_result_color = R1;")
    assert "R1 = in_a;" in _live(code)


def test_unknown_statement_reads_everything():
    code = "    R2 = in_a;\n    sub_1();\n    out_result_color = in_b;"
    assert "R2 = in_a;" in _live(code)


def test_what_main_reads_is_a_root():
    glsl = _body("    R2 = in_a;\n    out_result_color = in_b;").replace(
        "color = out_result_color;", "color = out_result_color + R2;")
    lines = glsl.split("\n")
    assert "R2 = in_a;" in [lines[k].strip() for k in live_lines(glsl)]


def test_unrecognised_shape_makes_everything_live():
    assert live_lines(_body("    switch (i)\n    {\n    }\n    out_result_color = in_a;")) is None


def test_generated_program_dead_sites_are_equivalent_by_construction():
    """On a real translation: every statement the pass calls dead writes only components
    that are overwritten before any read, so no mutation of it can change an output."""
    from xlate.verify.generate import generate
    glsl = emit_glsl(api.parse(generate("nv4", 3, "vertex", 12, frozenset()), filename="t"),
                     "glsl450").source
    lines = glsl.split("\n")
    live = live_lines(glsl)
    dead = [lines[k].strip() for k in M.code_lines(glsl) if k not in live]
    # R0 = vertex_attrib_0.yzxw was written again before any read: the middle end's deadcode
    # pass removed it; what is left dead here are the condition-code components no test reads
    assert "R0 = vertex_attrib_0.yzxw;" not in glsl
    assert dead == ["xl_cc0.xyw = R2.xyw;", "else"]
    assert "gl_Position = R5;" not in dead
    # outputs written in place (declared 'out') are roots: what writes them is live
    assert "result_texcoord_0 = R2;" not in dead and "result_texcoord_0 = R2;" in glsl
    cands, n_dead = M.live_candidates(glsl)
    assert n_dead > 0 and all(m.before not in dead for ms in cands.values() for m in ms)


def test_literal_ulp_leaves_approximations_alone():
    """A 1-ulp move of RSQ's 1.0 or of an approximate function's argument stays within the
    opcode's documented bound (a value a correct translation may give): not a mutant."""
    S = M.tokenize("R0.w = (1.0 / sqrt(abs(R0.w)));")
    S = [S[i] for i in M.significant(S)]
    assert list(M.MUTATORS["literal-ulp"](S)) == []
    S = [t for t in M.tokenize("R1 = xl_log(-0.5) + vec4(2.0);") if not t.isspace()]
    after = [e[0][2] for e in M.MUTATORS["literal-ulp"](S)]
    assert after == ["2.0000002"]
    # the coarse literal mutant (x 1.01, beyond every bound) still moves them
    assert [e[0][2] for e in M.MUTATORS["literal"](S)] == ["0.505", "2.02"]
