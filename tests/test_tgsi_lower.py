"""TGSI -> IR lowering (xlate/frontends/tgsi/lower*.py): the readings it documents, checked by
running the lowered IR in the executor, plus the interface mapping, diagnostics and the GLSL each
program translates to (compiled by glslang and validated as SPIR-V by ``api.translate``)."""
from __future__ import annotations

import numpy as np
import pytest

from conftest import SHARED_CORPUS, shared_corpus_or_skip

from xlate import api, execute
from xlate.diagnostics import XlateError

NAN = float("nan")


def program(body: str, decls: str = "", proc: str = "VERT", imms: str = "") -> str:
    head = {"VERT": "VERT\nDCL IN[0]\nDCL IN[1]\nDCL OUT[0], POSITION\nDCL OUT[1], GENERIC[0]\n",
            "FRAG": "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL IN[1], GENERIC[1], PERSPECTIVE\n"
                    "DCL OUT[0], COLOR\n"}[proc]
    lines = [f"{i:3d}: {line}" for i, line in enumerate(body.strip().splitlines())]
    return head + decls + imms + "\n".join(lines) + "\n"


def run(src: str, a, b=None, out: str | None = None, view=np.float32):
    prog = api.parse(src)
    api.translate(src)                     # the GLSL compiles, the SPIR-V validates
    frag = prog.stage.value == "fragment"
    names = ("fragment.generic[0]", "fragment.generic[1]") if frag else \
        ("vertex.attrib[0]", "vertex.attrib[1]")
    inputs = {names[0]: np.asarray(a, np.float32)}
    if b is not None:
        inputs[names[1]] = np.asarray(b, np.float32)
    r = execute(prog, inputs)
    key = out or ("result.color[0]" if frag else "result.generic[0]")
    return r.words(key).view(view)


def test_if_tests_the_float_value():
    # tgsi.rst IF: src.x != 0.0 as a float: -0.0 is false, NaN is true
    src = program("MOV TEMP[0], IMM[0].yyyy\nIF IN[0].xxxx :0\nMOV TEMP[0], IMM[0].xxxx\nENDIF\n"
                  "MOV OUT[1], TEMP[0]\nMOV OUT[0], IN[0]\nEND",
                  "DCL TEMP[0]\n", imms="IMM[0] FLT32 {    1.0000,     2.0000,     0.0000,     0.0000}\n")
    got = run(src, [[0, 0, 0, 1], [-0.0, 0, 0, 1], [NAN, 0, 0, 1], [3, 0, 0, 1]])
    assert got[:, 0].tolist() == [2, 2, 1, 1]


def test_uif_tests_the_bits():
    # tgsi.rst UIF: src.x != 0 as an integer, so -0.0 (0x80000000) is true
    src = program("MOV TEMP[0], IMM[0].yyyy\nUIF IN[0].xxxx :0\nMOV TEMP[0], IMM[0].xxxx\nENDIF\n"
                  "MOV OUT[1], TEMP[0]\nMOV OUT[0], IN[0]\nEND",
                  "DCL TEMP[0]\n", imms="IMM[0] FLT32 {    1.0000,     2.0000,     0.0000,     0.0000}\n")
    got = run(src, [[0, 0, 0, 1], [-0.0, 0, 0, 1]])
    assert got[:, 0].tolist() == [2, 1]


def test_min_max_return_the_non_nan_operand():
    src = program("MIN TEMP[0], IN[0], IN[1]\nMAX TEMP[1], IN[0], IN[1]\n"
                  "ADD OUT[1], TEMP[0], TEMP[1]\nMOV OUT[0], IN[0]\nEND", "DCL TEMP[0..1]\n")
    got = run(src, [[NAN, 1, 2, NAN]], [[5, NAN, 3, NAN]])
    assert np.isnan(got[0, 3]) and got[0, :3].tolist() == [10, 2, 5]


def test_componentwise_integer_divide_with_aliasing():
    # UDIV is componentwise; the destination is also the first source, so every channel must
    # read the original value (all sources are read first); /0 gives all ones (tgsi.rst UDIV)
    src = program("F2U TEMP[0], IN[0]\nF2U TEMP[1], IN[1]\nUDIV TEMP[0], TEMP[0].yxwz, TEMP[1]\n"
                  "U2F OUT[1], TEMP[0]\nMOV OUT[0], IN[0]\nEND", "DCL TEMP[0..1]\n")
    got = run(src, [[7, 20, 9, 100]], [[2, 5, 0, 10]])
    assert got[0].tolist() == [10, 1, float(np.float32(4294967295.0)), 0]


def test_idiv_by_zero_is_minus_one():
    # tgsi.rst leaves IDIV by zero "TBD" (tgsi_exec returns 0); xlate keeps the IR's rule, -1
    src = program("F2I TEMP[0], IN[0]\nF2I TEMP[1], IN[1]\nIDIV TEMP[2], TEMP[0], TEMP[1]\n"
                  "I2F OUT[1], TEMP[2]\nMOV OUT[0], IN[0]\nEND", "DCL TEMP[0..2]\n")
    got = run(src, [[7, -7, 5, 0]], [[2, 2, 0, 0]])
    assert got[0].tolist() == [3, -3, -1, -1]


def test_switch_fall_through_and_default():
    body = """F2U TEMP[0].x, IN[0].xxxx
MOV TEMP[1], IMM[1].xxxx
SWITCH TEMP[0].xxxx
CASE IMM[0].yyyy
ADD TEMP[1], TEMP[1], IMM[1].yyyy
DEFAULT
ADD TEMP[1], TEMP[1], IMM[1].zzzz
BRK
CASE IMM[0].zzzz
ADD TEMP[1], TEMP[1], IMM[1].wwww
ENDSWITCH
MOV OUT[1], TEMP[1]
MOV OUT[0], IN[0]
END"""
    src = program(body, "DCL TEMP[0..1]\n",
                  imms="IMM[0] UINT32 {0, 1, 2, 0}\n"
                       "IMM[1] FLT32 {    0.0000,     1.0000,    10.0000,   100.0000}\n")
    got = run(src, [[1, 0, 0, 1], [2, 0, 0, 1], [7, 0, 0, 1]])
    assert got[:, 0].tolist() == [11, 100, 10]
    assert "switch (" in api.translate(src).glsl


def test_subroutine_call():
    body = """MOV TEMP[0], IN[0]
CAL :6
MOV OUT[1], TEMP[0]
MOV OUT[0], IN[0]
END
NOP
BGNSUB
ADD TEMP[0], TEMP[0], TEMP[0]
RET
ENDSUB"""
    src = program(body.replace("NOP\n", ""), "DCL TEMP[0]\n").replace("CAL :6", "CAL :5")
    got = run(src, [[1, 2, 3, 4]])
    assert got[0].tolist() == [2, 4, 6, 8]


def test_xpd_and_scs_write_tgsi_exec_constants():
    src = program("XPD TEMP[0], IN[0], IN[1]\nSCS TEMP[1], IN[0].xxxx\n"
                  "ADD OUT[1], TEMP[0], TEMP[1]\nMOV OUT[0], IN[0]\nEND", "DCL TEMP[0..1]\n")
    got = run(src, [[0, 0, 0, 0]], [[0, 1, 0, 0]])
    # XPD (0,0,0)x(0,1,0) = (0,0,0, w=1); SCS(0) = (1, 0, 0, 1)
    assert got[0].tolist() == [1, 0, 0, 2]


def test_outputs_can_be_read():
    src = program("MOV OUT[1], IN[0]\nADD OUT[1], OUT[1], OUT[1]\nMOV OUT[0], IN[0]\nEND")
    got = run(src, [[1, 2, 3, 4]])
    assert got[0].tolist() == [2, 4, 6, 8]


def test_kill_if_and_pixel_center_property():
    src = ("FRAG\nPROPERTY FS_COORD_PIXEL_CENTER INTEGER\nDCL IN[0], POSITION, LINEAR\n"
           "DCL IN[1], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\n"
           "  0: KILL_IF IN[1].xyzw\n  1: MOV OUT[0], IN[0]\n  2: END\n")
    prog = api.parse(src)
    api.translate(src)
    pos = np.array([[0.5, 1.5, 0.25, 1]] * 4, np.float32)
    gen = np.array([[0, 0, 0, 0], [0, -1, 0, 0], [NAN, 0, 0, 0], [-0.0, 0, 0, 0]], np.float32)
    r = execute(prog, {"fragment.position": pos, "fragment.generic[0]": gen})
    assert r.killed.tolist() == [False, True, False, False]
    assert r.words("result.color[0]").view(np.float32)[0].tolist() == [0, 1, 0.25, 1]


def test_interface_mapping_in_reflection():
    src = ("VERT\nDCL IN[0]\nDCL IN[3]\nDCL OUT[0], POSITION\nDCL OUT[1], GENERIC[20]\n"
           "DCL OUT[2], COLOR[1]\nDCL OUT[3], TEXCOORD[2]\nDCL CONST[0..1]\nDCL CONST[2][0..3]\n"
           "  0: MOV OUT[0], IN[0]\n  1: ADD OUT[1], IN[3], CONST[1]\n  2: MOV OUT[2], CONST[2][3]\n"
           "  3: MOV OUT[3], IN[0]\n  4: END\n")
    refl = api.translate(src, target="reflect").reflection
    ins = {i["binding"]: i["location"] for i in refl["inputs"]}
    outs = {o["binding"]: o.get("location") for o in refl["outputs"]}
    assert ins == {"vertex.attrib[0]": 0, "vertex.attrib[3]": 3}
    assert outs == {"result.position": None, "result.generic[20]": 25,
                    "result.color.secondary": 1, "result.tgsi_texcoord[2]": 29}


def test_point_coord_and_sample_id_are_built_ins():
    src = ("FRAG\nDCL IN[0], PCOORD, LINEAR\nDCL SV[0], SAMPLEID\nDCL OUT[0], COLOR\n"
           "DCL TEMP[0]\n  0: I2F TEMP[0], SV[0].xxxx\n  1: ADD OUT[0], IN[0], TEMP[0]\n  2: END\n")
    t = api.translate(src, target="glsl")
    assert "in_fragment_pointcoord = vec4(gl_PointCoord, 0.0, 1.0);" in t.glsl
    assert "ivec4(gl_SampleID, 0, 0, 0)" in t.glsl
    ins = {i["binding"]: (i["name"], i["type"], i["builtin"]) for i in t.reflection["inputs"]}
    assert ins == {"fragment.pointcoord": ("gl_PointCoord", "vec2", True),
                   "fragment.sampleid": ("gl_SampleID", "int", True)}
    res = execute(src, inputs={"fragment.pointcoord": [[0.25, 0.75, 0, 1]],
                                     "fragment.sampleid": [[3, 0, 0, 0]]}, lanes=1)
    assert res.float("result.color[0]")[0].tolist() == [3.25, 3.75, 3.0, 4.0]


def _errors(src: str) -> list[str]:
    with pytest.raises(XlateError) as e:
        api.parse(src, filename="t.tgsi")
    return [d.header() for d in e.value.diagnostics if d.is_error]


def test_unsupported_opcode_is_named():
    # (an opcode refused for good: the "not yet supported" ones are leaving, issue 20)
    src = ("FRAG\nDCL OUT[0], COLOR\nDCL SAMP[0]\nDCL TEMP[0]\n  0: SAMP2HND TEMP[0], SAMP[0]\n"
           "  1: END\n")
    assert _errors(src) == ["t.tgsi:5:6: error[E3008]: unsupported opcode SAMP2HND (a bindless "
                            "handle (tgsi.rst: PIPE_CAP_BINDLESS_TEXTURE) is the driver's 64-bit "
                            "value, made and used only through GL_ARB_bindless_texture, which "
                            "llvmpipe does not have and Vulkan SPIR-V has no form of (descriptors "
                            "are bound, not handles))"]


def test_compute_program_without_a_block_size_is_refused():
    # tgsi.rst CS_FIXED_BLOCK_*: unknown (0 or unset) means the size comes at dispatch: GLSL
    # has no local_size for it (tests/test_tgsi_compute.py has the rest)
    src = "COMP\nDCL TEMP[0]\nBARRIER\nMOV TEMP[0], TEMP[0]\nEND\n"
    assert _errors(src) == [
        "t.tgsi:1:1: error[E7001]: a compute shader whose block size is not fixed (PROPERTY "
        "CS_FIXED_BLOCK_WIDTH/HEIGHT/DEPTH missing or 0: the size is given at dispatch, "
        "ARB_compute_variable_group_size) has no GLSL local_size to declare; add the three "
        "properties"]


def test_generic_and_texcoord_location_clash():
    src = ("VERT\nDCL IN[0]\nDCL OUT[0], POSITION\nDCL OUT[1], GENERIC[26]\nDCL OUT[2], TEXCOORD[0]\n"
           "  0: MOV OUT[0], IN[0]\n  1: MOV OUT[1], IN[0]\n  2: MOV OUT[2], IN[0]\n  3: END\n")
    errs = _errors(src)
    assert errs and all("both map to varying location 31" in e for e in errs)


def test_unbalanced_blocks():
    src = "VERT\nDCL IN[0]\nDCL OUT[0], POSITION\n  0: IF IN[0].xxxx\n  1: MOV OUT[0], IN[0]\n  2: END\n"
    assert _errors(src) == ["t.tgsi:4:6: error[E4003]: IF is never closed"]


def test_mutated_programs_and_streams_never_raise_a_traceback():
    # mutations of corpus programs (text: swapped/deleted tokens, duplicated lines; modern token
    # streams: flipped bits) give a Program or XlateError -- lowering checks what a token stream
    # does not (operand counts, undeclared immediates, outputs without declarations)
    import random
    from xlate.diagnostics import DiagnosticSink
    from xlate.frontends.tgsi import binary
    from xlate.frontends.tgsi.text import parse_text
    corpus = SHARED_CORPUS / "collected" / "tgsi"
    files = sorted(corpus.rglob("*.tgsi"))[::8] if corpus.is_dir() else []
    if not files:
        shared_corpus_or_skip("collected/tgsi")
        assert files, f"no TGSI programs under {corpus}"
    texts = [f.read_bytes().decode("utf-8", "replace") for f in files]
    words = ["IMM[99]", "IN[7]", "OUT[9]", "CONST[3][2]", "SAMP[9]", "TEMP[ADDR[0].x+2]", "SV[0]",
             "CASE", "SWITCH", "ENDSWITCH", "BGNSUB", "ENDSUB", "CAL :3", "EMIT", "2D_MSAA", "END",
             "ELSE", "ENDLOOP", "BRK", "CONT", "KILL", "UIF", "DDX", "TXF"]
    rng = random.Random(5)
    outcomes = {"program": 0, "diagnostics": 0}
    for _ in range(300):
        lines = rng.choice(texts).splitlines()
        i = rng.randrange(len(lines))
        toks = lines[i].split(" ")
        j = rng.randrange(len(toks))
        r = rng.random()
        if r < 0.5:
            toks[j] = rng.choice(words)
        elif r < 0.8:
            del toks[j]
        else:
            lines.insert(i, rng.choice(lines))
        lines[i] = " ".join(toks)
        try:
            api.parse("\n".join(lines))
            outcomes["program"] += 1
        except XlateError as e:
            assert any(d.is_error for d in e.diagnostics)
            outcomes["diagnostics"] += 1
    for _ in range(300):
        sh = parse_text(rng.choice(texts), DiagnosticSink("x"))
        if sh is None:
            continue
        try:
            data = bytearray(binary.encode_modern(sh))
        except ValueError:
            continue
        for _ in range(rng.randrange(1, 4)):
            k = rng.randrange(8, len(data))
            data[k] ^= 1 << rng.randrange(8)
        try:
            api.parse(bytes(data))
            outcomes["program"] += 1
        except XlateError as e:
            assert any(d.is_error for d in e.diagnostics)
            outcomes["diagnostics"] += 1
    assert outcomes["program"] and outcomes["diagnostics"]


def test_res_file_names_its_era_and_the_modern_spelling():
    # the 2011-2015 RES file (clover compute buffers/images, early SAMPLE* resources): refused
    # at the declaration and where it is used, naming the era and the modern files
    msg = ("error[E7001]: RES[n] is the resource file of Mesa 2011-2015 (clover compute, early "
           "SAMPLE*); modern TGSI declares DCL BUFFER[n], DCL IMAGE[n], <target>, <format> or "
           "DCL SVIEW[n], <target>, <type>; xlate reads the modern spelling only")
    src = ("FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL RES[0], 2D, FLOAT\n"
           "DCL TEMP[0]\n  0: MOV TEMP[0], RES[0]\n  1: MOV OUT[0], IN[0]\n  2: END\n")
    assert _errors(src) == [f"t.tgsi:4:5: {msg}", f"t.tgsi:6:6: {msg}"]
    comp = "COMP\nDCL RES[0], BUFFER, RAW, WR\n  0: END\n"
    assert f"t.tgsi:2:5: {msg}" in _errors(comp)
