"""ARB_vertex_program (``!!ARBvp1.0``), plain and with ``OPTION NV_vertex_program2`` /
``NV_vertex_program3``: the IR per construct, the worked examples of nv_dialects.md 11.3 through
``xlate.execute`` with the stated values, and the option-dependent numerics."""
from __future__ import annotations

import numpy as np
import pytest

import xlate
from xlate.exec import Texture
from xlate.ir.model import CCKind, CondTest, DataType, Index, RegKind
from xlate.ir.printer import instruction_text
from xlate.ir.validate import validate

NAN = float("nan")


def f(*v):
    return np.array(v, np.float32)


def ir(src: str) -> list[str]:
    prog = xlate.parse(src)
    validate(prog)
    return [instruction_text(i, prog) for i in prog.instructions]


EYE = np.eye(4, dtype=np.float32)

AVP2_A = """!!ARBvp1.0
OPTION NV_vertex_program2;
# program.local[0]      = (lightCount, 1, -1, 2)
# program.local[1+2i]   = light i direction, program.local[2+2i] = light i color
PARAM mvp[4]   = { state.matrix.mvp };
PARAM lights[] = { program.local[0..8] };
ADDRESS A0;
TEMP acc, ndotl;
DP4   result.position.x, mvp[0], vertex.position;
DP4   result.position.y, mvp[1], vertex.position;
DP4   result.position.z, mvp[2], vertex.position;
DP4   result.position.w, mvp[3], vertex.position;
MOV   acc, {0, 0, 0, 1};
ARLC  A0, lights[0];              # vector ARL (option): A0 = (count, 1, -1, 2)
BRA   done (LE.x);
loop:
  CAL   shade;
  ARAC  A0.xy, A0;
  BRA   loop (GT.x);
done:
  MOV   result.color, acc;
  RET;
shade:
  DP3C  ndotl.x, vertex.normal, lights[A0.y];
  RET   (LE.x);
  MAD   acc.xyz, ndotl.x, lights[A0.y + 1], acc;
  RET;
END
"""


def avp2a(count: float):
    loc = np.zeros((9, 4), np.float32)
    loc[0] = [count, 1, -1, 2]
    loc[1], loc[2], loc[3], loc[4] = [0, 0, 1, 0], [0.25, 0.5, 0, 0], [0, 0.6, 0.8, 0], [1, 1, 1, 0]
    return xlate.execute(xlate.parse(AVP2_A), {"vertex.normal": f(0, 0, 1, 1),
                                               "vertex.position": f(1, 2, 3, 1)},
                         params={"program.local": loc, "state.matrix.mvp.row": EYE})


def test_avp2_a():
    r = avp2a(2)
    assert r.float("result.position").tolist() == [[1, 2, 3, 1]]
    np.testing.assert_allclose(r.float("result.color")[0], [1.05, 1.3, 0.8, 1], rtol=1e-6)
    np.testing.assert_allclose(avp2a(0).float("result.color")[0], [0, 0, 0, 1])


def test_avp2_a_ir():
    prog = xlate.parse(AVP2_A)
    assert prog.call_overflow == "terminate" and prog.max_exec_instructions == 65536
    code = ir(AVP2_A)
    # VP2O 2.14.5.3: vector ARL (floor), no [-512, 511] clamp in the ARB options (digest 12.33)
    assert "FLR.S.CC0 A0, lights[0]" in code and "ADD.S.CC0 A0.xy, A0.xyxy, A0.zwzw" in code
    assert "BRA.F done (LE.x)" in code and "DP3.F.CC0 ndotl.x, vertex.normal, lights[A0.y]" in code
    assert "MAD.F acc.xyz, ndotl.x, lights[A0.y + 1], acc" in code
    arl = next(i for i in prog.instructions if i.op == "FLR")
    assert arl.cc_kind == CCKind.INT and arl.dtype == DataType.INT


AVP3_A = """!!ARBvp1.0
OPTION NV_vertex_program3;
PARAM mvp[4] = { state.matrix.mvp };
PARAM k      = program.local[0];    # x = displacement scale, y = red threshold
PARAM ctl    = program.local[1];    # (count, first index, -1, +1)
ADDRESS A0;
TEMP h, p, acc;
MOV   h, vertex.attrib[8];          # texture coordinate
MOV   h.w, 0;                       # explicit LOD 0
TXL   h, h, texture[0], 2D;
MUL   h.x, h.x, k.x;
MAD   p.xyz, vertex.attrib[2], h.x, vertex.attrib[0];   # displace along the normal
MOV   p.w, vertex.attrib[0].w;
DP4   result.position.x, mvp[0], p;
DP4   result.position.y, mvp[1], p;
DP4   result.position.z, mvp[2], p;
DP4   result.position.w, mvp[3], p;
MOV   acc, 0;
ARLC  A0, ctl;                      # A0 = (count, first, -1, 1); CC0 = signs
PUSHA A0;                           # save loop setup on the (shared) call stack
BRA   sumdone (LE.x);
sum:
  ADD   acc, acc, vertex.attrib[A0.y + 4];
  ARAC  A0.xy, A0;
  BRA   sum (GT.x);
sumdone:
POPA  A0;                           # restore (count, first, -1, 1)
SUBC1 p.x, acc.x, k.y;              # CC1.x = sign(acc.x - threshold)
MOV   result.color, acc;
MOV   result.color (GT1.x), {1, 0, 0, 1};
MOV   result.texcoord[A0.y], acc;   # writes result.texcoord[first]
END
"""


def avp3a(src=AVP3_A, attrib5x=0.25, ctl=(2, 1, -1, 1)):
    a = np.zeros((16, 4), np.float32)
    a[0], a[2], a[8], a[5], a[6] = [1, 2, 3, 1], [0, 0, 1, 0], [0.5, 0.5, 0, 1], [attrib5x, 0, 0, 0], \
        [0.5, 0, 0, 1]
    ins = {"vertex.attrib": a, **{f"vertex.attrib[{i}]": a[i] for i in (0, 2, 8)}}
    tex = Texture([np.array([[[0.5, 0, 0, 1]]], np.float32)], "2D")
    prm = {"program.local[0]": f(0.2, 1.0, 0, 0), "program.local[1]": f(*ctl),
           "state.matrix.mvp.row": EYE}
    return xlate.execute(xlate.parse(src), ins, params=prm, textures={0: tex})


def test_avp3_a_vertex_texture_relative_attribs_pusha_popa_cc1():
    r = avp3a()
    np.testing.assert_allclose(r.float("result.position")[0], [1, 2, 3.1, 1], rtol=1e-6)
    assert r.float("result.color").tolist() == [[0.75, 0, 0, 1]]
    assert r.float("result.texcoord")[0, 1].tolist() == [0.75, 0, 0, 1]


def test_avp3_a_variants():
    r = avp3a(attrib5x=0.75)          # acc.x = 1.25 > threshold: CC1.x GT
    assert r.float("result.color").tolist() == [[1, 0, 0, 1]]
    assert r.float("result.texcoord")[0, 1].tolist() == [1.25, 0, 0, 1]
    r = avp3a(ctl=(0, 1, -1, 1))      # loop skipped
    assert r.float("result.color").tolist() == [[0, 0, 0, 0]]


def test_avp3_a_ret_on_an_address_entry_terminates_abnormally():
    # VP3 2.14.5.34: RET finds the PUSHA entry on top of the call stack: abnormal termination
    src = AVP3_A.replace("PUSHA A0;                           # save",
                         "PUSHA A0;\nRET;                                # save")
    r = avp3a(src)
    np.testing.assert_allclose(r.float("result.position")[0], [1, 2, 3.1, 1], rtol=1e-6)
    assert r.float("result.color").tolist() == [[0, 0, 0, 0]]          # never written


def test_avp3_a_ir():
    prog = xlate.parse(AVP3_A)
    code = ir(AVP3_A)
    assert "TXL.F h, h, texture[0], 2D" in code
    assert "PUSHA.S A0" in code and "POPA.S A0" in code
    assert "ADD.F acc, acc, vertex.attrib[A0.y + 4]" in code
    assert "SUB.F.CC1 p.x, acc.x, k.y" in code
    assert "MOV.F result.color (GT1.x), {1.0, 0.0, 0.0, 1.0}" in code
    assert "MOV.F result.texcoord[A0.y], acc" in code
    attr = prog.registers["vertex.attrib"]
    assert attr.kind == RegKind.INPUT and attr.size == 16
    assert prog.registers["result.texcoord"].size == 8


def test_txb_is_txl_in_vertex_programs():
    src = ("!!ARBvp1.0\nOPTION NV_vertex_program3;\nTXB result.color, vertex.texcoord[0], "
           "texture[1], CUBE;\nTEX result.texcoord[0], vertex.position, texture[2], 3D;\nEND")
    # VP3 2.14.5.46: "the TXB instruction is completely equivalent to the TXL instruction"
    assert ir(src) == ["TXL.F result.color, vertex.texcoord[0], texture[1], CUBE",
                       "TEX.F result.texcoord[0], vertex.position, texture[2], 3D"]


def test_absolute_and_relative_result_texcoord_share_storage():
    src = ("!!ARBvp1.0\nOPTION NV_vertex_program3;\nADDRESS a;\nOUTPUT t2 = result.texcoord[2];\n"
           "ARL a, vertex.attrib[1];\nMOV result.texcoord[1], vertex.attrib[0];\n"
           "MOV t2, vertex.attrib[0].w;\nMOV result.texcoord[a.x].xy, {7, 8};\nEND")
    prog = xlate.parse(src)
    assert [i.dst.index for i in prog.instructions[1:]] == [Index(1), Index(2), Index(0, "a", 0)]
    r = xlate.execute(prog, {"vertex.attrib[0]": f(1, 2, 3, 4), "vertex.attrib[1]": f(2, 0, 0, 0)})
    assert r.float("result.texcoord")[0, 1:3].tolist() == [[1, 2, 3, 4], [7, 8, 4, 4]]


# ---- numerics and constructs --------------------------------------------------------------------

@pytest.mark.parametrize("option", ["", "OPTION NV_vertex_program2;\n", "OPTION NV_vertex_program3;\n"])
def test_rsq_takes_abs_in_every_option_set(option):
    # ARBVP 2.14.5.22 RSQ: 1/sqrt(|x|); the NV options do not change it (digest 12 item 16)
    src = f"!!ARBvp1.0\n{option}RSQ result.color, -vertex.position.y;\nEND"
    assert ir(src) == ["RSQ.F result.color, |vertex.position.y|"]
    r = xlate.execute(xlate.parse(src), {"vertex.position": f(0, -4, 0, 0)})
    assert r.float("result.color").tolist() == [[0.5] * 4]


def test_option_set_ons_min_max_ssg_are_the_c_pseudocode():
    src = ("!!ARBvp1.0\nOPTION NV_vertex_program2;\nTEMP t;\nSEQ t, vertex.attrib[1], "
           "vertex.attrib[2];\nMIN t, t, vertex.attrib[1];\nSSG result.color, t;\nEND")
    assert [i.split()[0] for i in ir(src)] == ["SEQ.F", "MIN.F", "SSG.F"]


def test_arl_base_is_scalar_and_options_vector():
    base = ir("!!ARBvp1.0\nADDRESS a;\nPARAM p[2] = { program.env[0..1] };\nARL a.x, "
              "vertex.position.y;\nMOV result.color, p[a.x + 1];\nEND")
    assert base == ["FLR.S a.x, vertex.position.y", "MOV.F result.color, p[a.x + 1]"]
    opt = ir("!!ARBvp1.0\nOPTION NV_vertex_program2;\nADDRESS a;\nARR a.yz, vertex.position;\n"
             "ARAC a, a;\nEND")
    assert opt == ["ROUND.S a.yz, vertex.position", "ADD.S.CC0 a, a.xyxy, a.zwzw"]


def test_sat_and_second_condition_code():
    code = ir("!!ARBvp1.0\nOPTION NV_vertex_program3;\nTEMP t;\nADDC1_SAT t, vertex.position, 1;\n"
              "MOVC0 t.x (LE1.y), t;\nMOVC CC, t;\nEND")
    assert code == ["ADD.F.CC1.SAT t, vertex.position, 1.0", "MOV.F.CC0 t.x (LE1.y), t",
                    "MOV.F.CC0 CC, t"]


def test_swz_extended_swizzle():
    code = ir("!!ARBvp1.0\nSWZ result.color, vertex.color, -x, 0, 1, w;\nEND")
    assert code == ["SWZ.F result.color, vertex.color, -x, 0, 1, w"]


def test_position_invariant_option():
    src = "!!ARBvp1.0\nOPTION ARB_position_invariant;\nMOV result.color, vertex.color;\nEND"
    code = ir(src)
    assert code[:4] == [f"DP4.F result.position.{'xyzw'[i]}, state.matrix.mvp.row[{i}], "
                        "vertex.position" for i in range(4)]


def test_vertex_weight_is_generic_attribute_1():
    prog = xlate.parse("!!ARBvp1.0\nATTRIB w = vertex.weight;\nMOV result.color, w;\nEND")
    assert prog.registers["w"].bindings[0].text() == "vertex.attrib[1]"


def test_scalar_constant_without_selector_is_accepted_with_a_warning():
    prog = xlate.parse("!!ARBvp1.0\nRCP result.color, 2.0;\nEND", filename="w.vp")
    assert [d.header() for d in prog.diagnostics] == [
        "w.vp:2:19: warning[E3004]: a scalar constant used as a scalar operand needs a component "
        "selector in ARBvp1.0 ('2.0.x'); accepted"]
    assert ir("!!ARBvp1.0\nOPTION NV_vertex_program2;\nRCP result.color, 2.0;\nEND") == [
        "RCP.F result.color, 2.0"]


def test_param_declarations():
    prog = xlate.parse("!!ARBvp1.0\nPARAM a[] = { {1, 2}, 3, program.local[4..5], "
                       "state.matrix.modelview[1].row[2] };\nPARAM s = -2;\n"
                       "PARAM v = {1, 2, 3, 4};\nMOV result.color, a[0];\nEND")
    a = prog.registers["a"]
    assert a.size == 5 and [b.text() if b else None for b in a.bindings] == [
        None, None, "program.local[4]", "program.local[5]", "state.matrix.modelview[1].row[2]"]
    assert a.value[0][:2] == (0x3F800000, 0x40000000) and a.value[0][3] == 0x3F800000
    assert prog.registers["s"].value[0] == (0xC0000000,) * 4


def test_labels_and_branches_need_the_option():
    with pytest.raises(xlate.XlateError):
        xlate.parse("!!ARBvp1.0\nl:\nEND")


def test_translates_to_glsl_and_spirv():
    for src in (AVP2_A, AVP3_A):
        out = xlate.translate(src, target="spirv")
        assert out.spirv[:4] == b"\x03\x02\x23\x07"


def test_cond_test_on_cc1():
    prog = xlate.parse(AVP3_A)
    mov = [i for i in prog.instructions if i.dst is not None and i.dst.cond is not None]
    assert mov[0].dst.cond == CondTest("GT", 1, (0, 0, 0, 0))


# ---- compatibility readings (warnings E2016, E2017, E3009) ------------------------------------

HALO_LIKE = """!!ARBvp1.0
TEMP r0;
PARAM c[4] = { program.env[0..3] };
PARAM c95 = {0.0, 0.0, 0.0, 1.0};
{decls}
MOV oT0, c95;
DP4 oPos.x, v0, c[0];
DP4 oPos.y, v0, c[1];
DP4 oPos.z, v0, c[2];
DP4 oPos.w, v0, c[3];
MUL r0, v0, k;
DP4 oT0.x, r0, c[0];
MOV oD0, r0;
MOV result.color.primary.w, k.x;     # the binding itself: the same storage as oD0
END
"""
ALIASES = ("ALIAS oPos = result.position;\nALIAS oD0 = result.color.primary;\n"
           "ALIAS oT0 = result.texcoord[0];\nALIAS v0 = vertex.attrib[0];\n"
           "ALIAS k = program.local[7];")
DECLS = ("OUTPUT oPos = result.position;\nOUTPUT oD0 = result.color.primary;\n"
         "OUTPUT oT0 = result.texcoord[0];\nATTRIB v0 = vertex.attrib[0];\n"
         "PARAM k = program.local[7];")


def test_alias_of_a_binding_reads_as_the_declaration():
    """ARBVP 2.14.3.6 wants an established name after ALIAS; foonull/HaloMD programs alias
    bindings (NVIDIA's drivers took it).  Reading: the OUTPUT/ATTRIB/PARAM declaration with that
    binding -- the same IR, the same GLSL, the same executed values, one warning E2016."""
    aliased, declared = (HALO_LIKE.replace("{decls}", d) for d in (ALIASES, DECLS))
    pa, pd = xlate.parse(aliased, filename="t.vp"), xlate.parse(declared, filename="t.vp")
    validate(pa)
    assert [d.code for d in pa.diagnostics] == ["E2016"] and not pd.diagnostics
    warning = pa.diagnostics[0]
    assert warning.span.line == 5 and "4 more ALIAS statements of a binding on lines 6, 7, 8, " \
        "9" in warning.notes[1]
    assert ir(aliased) == ir(declared)
    assert {n: (r.kind, r.bindings) for n, r in pa.registers.items()} == \
        {n: (r.kind, r.bindings) for n, r in pd.registers.items()}
    assert xlate.translate(aliased).glsl == xlate.translate(declared).glsl
    ins = {"vertex.attrib[0]": f(1, 2, 3, 1)}
    prm = {"program.env": np.arange(16, dtype=np.float32).reshape(4, 4),
           "program.local[7]": f(0.5, 2, 3, 4)}
    ra, rd = (xlate.execute(p, ins, params=prm) for p in (pa, pd))
    for out in ("result.position", "result.color", "result.texcoord[0]"):
        assert ra.words(out).tolist() == rd.words(out).tolist(), out
    assert ra.float("result.color").tolist() == [[0.5, 4, 9, 0.5]]


def test_binding_alias_only_in_vertex_programs():
    """ARBfp (3.11.3.5) and NV4 (GP4 2.X.3.8) keep the specified rule: no fragment or NV4
    program of the corpus aliases a binding, so the compatibility reading is not extended."""
    for src, where in (("!!ARBfp1.0\nALIAS c = result.color;\nMOV c, fragment.color;\nEND\n",
                        "ARBFP 3.11.3.5"),
                       ("!!NVfp4.0\nALIAS c = result.color;\nMOV c, fragment.color;\nEND\n",
                        "GP4 2.X.3.8")):
        with pytest.raises(xlate.XlateError) as err:
            xlate.parse(src, filename="t.fp")
        d = err.value.diagnostics[0]
        assert (d.code, d.span.line, d.span.col) == ("E1002", 2, 18) and where in d.message


def test_relative_offset_beyond_arb_range_reads_the_element():
    # E2017: p[a.x + 70] with a.x = -68 reads p[2] (piglit vp-arl-constant-array-huge-...)
    src = ("!!ARBvp1.0\nADDRESS a;\nPARAM p[] = { program.local[0..3] };\n"
           "ARL a.x, vertex.attrib[1].x;\nMOV result.color, p[a.x + 70];\nEND")
    prog = xlate.parse(src)
    assert [d.code for d in prog.diagnostics] == ["E2017"]
    r = xlate.execute(prog, {"vertex.attrib[1]": f(-68, 0, 0, 0)},
                      params={"program.local": np.arange(16, dtype=np.float32).reshape(4, 4)})
    assert r.float("result.color").tolist() == [[8, 9, 10, 11]]


POPA_CC = """!!ARBvp1.0
OPTION NV_vertex_program3;
ADDRESS a0;
TEMP r0;
PARAM p[4] = { program.local[0..3] };
ARL a0, vertex.attrib[1];
MOVC r0, vertex.attrib[2];
PUSHA a0;
ARL a0, vertex.attrib[3];
POPA a0 (EQ.wzyx);
MOV result.color, p[a0.x];
MOV result.texcoord[0], p[a0.y];
MOV result.texcoord[1], p[a0.z];
MOV result.texcoord[2], p[a0.w];
END
"""


def test_popa_with_a_condition_code_mask_writes_conditionally():
    """E3009 (VP3 revision 7: "some driver versions erroneously allowed conditional write masks
    on POPA"): the pop always happens; only components whose CC test passes are written."""
    prog = xlate.parse(POPA_CC)
    assert [d.code for d in prog.diagnostics] == ["E3009"]
    assert "POPA.S a0 (EQ.wzyx)" in ir(POPA_CC)
    table = np.arange(16, dtype=np.float32).reshape(4, 4)
    # pushed (0, 1, 2, 3), then a0 = (3, 3, 3, 3); CC from attrib[2] = (1, 0, 0, 5) read .wzyx:
    # (GT, EQ, EQ, GT) -> y and z are popped, x and w keep 3
    r = xlate.execute(prog, {"vertex.attrib[1]": f(0, 1, 2, 3), "vertex.attrib[2]": f(1, 0, 0, 5),
                             "vertex.attrib[3]": f(3, 3, 3, 3)}, params={"program.local": table})
    assert r.float("result.color").tolist() == [table[3].tolist()]
    assert [r.float(f"result.texcoord[{i}]")[0].tolist() for i in range(3)] == \
        [table[1].tolist(), table[2].tolist(), table[3].tolist()]
    assert not r.steps_exceeded[0]


def test_output_variable_and_direct_result_writes_share_one_register():
    """OUTPUT o = result.color and a direct result.color write are one result: one IR register
    (the executor used to keep two and report one of them, while the GLSL merged them)."""
    src = ("!!ARBvp1.0\nOUTPUT o = result.color;\nOUTPUT o2 = result.color.primary;\n"
           "MOV o, vertex.attrib[0];\nMOV result.color.w, vertex.attrib[1].x;\n"
           "MOV o2.z, vertex.attrib[1].y;\nEND")
    prog = xlate.parse(src)
    assert [n for n, r in prog.registers.items() if r.kind == RegKind.OUTPUT] == ["o"]
    r = xlate.execute(prog, {"vertex.attrib[0]": f(1, 2, 3, 4), "vertex.attrib[1]": f(9, 8, 0, 0)})
    assert r.float("result.color").tolist() == [[1, 2, 8, 9]]
