"""The direct SPIR-V path (xlate/backends/spirv_direct, issue 19): every module it emits is
accepted by spirv-val in the Vulkan 1.0 and OpenGL 4.5 environments, its reflection JSON is the
GLSL path's, the semantics-carrying instructions are the exact ones (NoContraction, ordered and
unordered compares), and what it does not cover is E7006 -- an error with ``via="direct"``, a
note and glslang's SPIR-V with ``via="auto"``."""
from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import xlate
from xlate.api import parse
from xlate.backends.spirv import disassemble_spirv, validate_spirv
from xlate.backends.spirv_direct import NotCovered, emit_spirv
from xlate.diagnostics import CODES, XlateError

from conftest import corpus_mark, shared_corpus_or_skip

ROOT = Path(__file__).resolve().parents[1]

ARBVP = """!!ARBvp1.0
PARAM mats[8] = { program.local[0..7] };
PARAM mvp[4] = { state.matrix.mvp };
ADDRESS A0;
TEMP t, u;
ARL A0.x, vertex.attrib[1].x;
DP4 t.x, mats[A0.x+1], vertex.position;
DP4 result.position.x, mvp[0], vertex.position;
DP4 result.position.y, mvp[1], vertex.position;
DP4 result.position.z, mvp[2], vertex.position;
DP4 result.position.w, mvp[3], vertex.position;
EXP u, t.x;
LOG u.xy, vertex.attrib[1].y;
LIT u, vertex.normal;
MAD result.color, t.xxxx, u, -vertex.color;
MOV result.texcoord[1], u;
END
"""
ARBFP = """!!ARBfp1.0
PARAM c = program.env[3];
TEMP r, s;
TEX r, fragment.texcoord[0], texture[0], 2D;
TXP s, fragment.texcoord[1], texture[1], CUBE;
KIL -r;
LRP r, c.x, r, s;
CMP r.xy, -r, s, c;
MIN r.z, r.x, s.y;
SWZ s, s, 0, 1, -x, y;
XPD s.xyz, r, s;
MAD_SAT result.color, r, s, c;
END
"""
NVFP4 = """!!NVfp4.0
TEMP R0, R1;
MOV.F R0, fragment.texcoord[0];
SNE.F.CC R1, R0, 0.5;
IF NE.x;
  REP 3;
    ADD.F R0, R0, 1.0;
    BRK (GT.y);
  ENDREP;
ELSE;
  MUL.F R0, R0, -2.0;
ENDIF;
MOV.F R0 (LT.xyzw), R1;
MOV.F result.color, R0;
END
"""
FP1 = """!!FP1.0
DECLARE k = {1, 2, 3, 4};
MULH H0, f[TEX0], k;
MOVX H1, f[COL0];
ADDR R0, H0, H1;
MOVR o[COLR], R0;
END
"""
VP1 = """!!VP1.0
SGE R0, v[OPOS], c[0];
SLT R1, v[OPOS], c[1];
EXP R2, v[3].x;
LOG R3, v[3].y;
ADD o[HPOS], R0, R1;
ADD o[COL0], R2, R3;
END
"""
GEOMETRY = """!!NVgp4.0
PRIMITIVE_IN TRIANGLES;
PRIMITIVE_OUT TRIANGLE_STRIP;
VERTICES_OUT 1;
MOV.F result.position, vertex[0].position;
EMIT;
END
"""
#: a program whose one instruction, a TGSI double, is made a construct the direct path refuses
#: by name (E7006, at the instruction) by the ``uncovered_dadd`` fixture: every IR opcode has a
#: direct template now, so the refusal and the fallback to glslang are exercised by removing one
DOUBLE = """FRAG
DCL IN[0], GENERIC[0], CONSTANT
DCL OUT[0], COLOR
  0: DADD OUT[0], IN[0], IN[0]
  1: END
"""

PROGRAMS = {"arbvp": ARBVP, "arbfp": ARBFP, "nvfp4": NVFP4, "fp1": FP1, "vp1": VP1}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
@pytest.mark.parametrize("profile,env", [("vulkan", "vulkan"), ("glsl450", "opengl")])
def test_modules_validate_in_both_environments(name, profile, env):
    out = emit_spirv(parse(PROGRAMS[name], filename=f"{name}.txt"), profile)
    assert validate_spirv(out.spirv, target=env) is None


@pytest.mark.parametrize("name", sorted(PROGRAMS))
@pytest.mark.parametrize("profile", ["vulkan", "glsl450"])
def test_reflection_is_the_glsl_paths(name, profile):
    direct = xlate.translate(PROGRAMS[name], filename="p", target="spirv", profile=profile,
                             via="direct")
    glslang = xlate.translate(PROGRAMS[name], filename="p", target="spirv", profile=profile,
                              via="glsl")
    assert direct.spirv_via == "direct" and glslang.spirv_via == "glsl"
    assert direct.glsl is None
    assert direct.reflection == glslang.reflection


def test_deterministic_bytes():
    prog = parse(ARBFP, filename="a.fp")
    assert emit_spirv(prog, "vulkan").spirv == emit_spirv(parse(ARBFP, filename="a.fp"), "vulkan").spirv


def _dis(src: str, profile: str = "vulkan", **kw) -> str:
    return disassemble_spirv(emit_spirv(parse(src, filename="t.fp"), profile, **kw).spirv)


def test_exact_module_of_a_small_fragment_program():
    text = _dis("!!ARBfp1.0\nMOV result.color, fragment.color;\nEND\n")
    body = text.split("\n", 5)[5]                # after the header comment lines
    # result.color is the one-element staging array of the indexed path result.color[n]
    assert body == textwrap.dedent("""\
        OpCapability Shader
        OpMemoryModel Logical GLSL450
        OpEntryPoint Fragment %20 "main" %23 %29
        OpExecutionMode %20 OriginUpperLeft
        OpDecorate %23 Location 0
        OpDecorate %29 Location 0
        %1 = OpTypeFloat 32
        %2 = OpTypeVector %1 4
        %3 = OpTypePointer Private %2
        %4 = OpConstantNull %2
        %5 = OpVariable %3 Private %4
        %6 = OpTypeInt 32 0
        %7 = OpConstant %6 1
        %8 = OpTypeArray %2 %7
        %9 = OpTypePointer Private %8
        %10 = OpConstantNull %8
        %11 = OpVariable %9 Private %10
        %15 = OpTypeInt 32 1
        %16 = OpConstant %15 0
        %18 = OpTypeVoid
        %19 = OpTypeFunction %18
        %22 = OpTypePointer Input %2
        %23 = OpVariable %22 Input
        %28 = OpTypePointer Output %2
        %29 = OpVariable %28 Output
        %12 = OpFunction %18 None %19
        %13 = OpLabel
        %14 = OpLoad %2 %5
        %17 = OpAccessChain %3 %11 %16
        OpStore %17 %14
        OpReturn
        OpFunctionEnd
        %20 = OpFunction %18 None %19
        %21 = OpLabel
        %24 = OpLoad %2 %23
        OpStore %5 %24
        %25 = OpFunctionCall %18 %12
        %26 = OpAccessChain %3 %11 %16
        %27 = OpLoad %2 %26
        OpStore %29 %27
        OpReturn
        OpFunctionEnd
        """)


REGISTER_TRAFFIC = """!!NVfp4.0
TEMP R0, R1;
MOV.F R0.x, fragment.texcoord[0].x;
MOV.F R0.y, fragment.texcoord[0].y;
ADD.F R0.z, R0.x, R0.y;
MUL.F R1, R0, R0;
IF GT.x;
  MOV.F R0.w, R1.x;
ENDIF;
CAL sub;
ADD.F result.color, R0, R1;
RET;
sub:
MUL.F R1.xy, R1, R0;
RET;
END
"""


def _function_bodies(text: str) -> list[list[str]]:
    out, cur = [], None
    for line in text.splitlines():
        if "OpFunction " in line:
            cur = []
        elif "OpFunctionEnd" in line:
            out.append(cur)
            cur = None
        elif cur is not None:
            cur.append(line.strip())
    return out


def _blocks(body: list[str]) -> list[list[str]]:
    blocks: list[list[str]] = []
    for line in body:
        if line.endswith("OpLabel"):
            blocks.append([])
        blocks[-1].append(line)
    return blocks


def test_a_block_loads_and_stores_each_register_once():
    """A register's value is loaded at most once per block (later reads take what the block
    last stored or loaded) and stored once, at the block's end, however many instructions
    wrote it; a block that calls stores first and loads again after the call (the callee
    reads and writes registers).  The module still verifies: gl-spirv/vulkan run it in
    test_register_traffic_verifies_on_the_direct_module."""
    text = _dis(REGISTER_TRAFFIC)
    assert validate_spirv(emit_spirv(parse(REGISTER_TRAFFIC, filename="t.fp"), "vulkan").spirv,
                          target="vulkan") is None
    private = set(re.findall(r"(%\d+) = OpVariable %\d+ Private", text))
    r0, r1 = sorted(private, key=lambda v: int(v[1:]))[:2]       # R0, R1 (declared first)
    main_body = max(_function_bodies(text), key=len)             # xl_main: the program's main
    for block in _blocks(main_body):
        for reg in (r0, r1):
            loads = [x for x in block if re.search(rf"= OpLoad %\d+ {reg}$", x)]
            stores = [x for x in block if x.startswith(f"OpStore {reg} ")]
            calls = sum("OpFunctionCall" in x for x in block)
            assert len(loads) <= 1 + calls, (reg, block)
            assert len(stores) <= 1 + calls, (reg, block)
            for st in stores:        # before the block's merge instruction or terminator
                tail = block[block.index(st) + 1:]
                assert all(x.startswith(("OpStore", "OpSelectionMerge", "OpLoopMerge",
                                         "OpBranch", "OpReturn", "OpKill", "OpFunctionCall"))
                           or "OpFunctionCall" in x for x in tail), block
    # the first block: R0 written three times (x, y, z), one store; R0.x and R0.y read back
    # by the ADD and R0 by the MUL without a load
    first = _blocks(main_body)[0]
    assert sum(x.startswith(f"OpStore {r0} ") for x in first) == 1
    assert sum(bool(re.search(rf"= OpLoad %\d+ {r0}$", x)) for x in first) == 1   # the x write's old value


@pytest.mark.parametrize("backend", ["gl-spirv", "vulkan"])
def test_register_traffic_verifies_on_the_direct_module(backend):
    from conftest import gl_runner
    from xlate.verify.core import verify_source
    rep = verify_source(REGISTER_TRAFFIC, "traffic.fp", lanes=256, seed=1,
                        runner=gl_runner(backend), backend=backend, via="direct")
    assert any("direct SPIR-V path's module" in n for n in rep.notes), rep.notes
    assert rep.status == "pass", (rep.reason, [d.describe() for d in rep.differences[:5]])


def test_mad_rounds_twice_no_contraction():
    text = _dis("!!ARBfp1.0\nMAD result.color, fragment.color, fragment.texcoord[0], "
                "fragment.texcoord[1];\nEND\n")
    mul = next(line for line in text.splitlines() if "OpFMul" in line).split(" = ")[0]
    add = next(line for line in text.splitlines() if "OpFAdd" in line).split(" = ")[0]
    assert f"OpDecorate {mul} NoContraction" in text
    assert f"OpDecorate {add} NoContraction" in text
    assert "OpExtInst" not in text or "Fma" not in text


def test_nan_semantics_use_exact_compares():
    text = _dis("!!ARBfp1.0\nOPTION NV_fragment_program;\nTEMP a, b;\nSNE a, fragment.color, fragment.texcoord[0];\n"
                "MIN b, fragment.color, fragment.texcoord[0];\nADD result.color, a, b;\nEND\n")
    assert "OpFUnordNotEqual" in text          # SNE: NaN != x is true
    assert "OpFOrdGreaterThan" in text         # MIN: a > b ? b : a, NaN a gives a
    assert "FMin" not in text and "NMin" not in text
    text = _dis(VP1.replace("SGE R0", "MIN R0"))
    assert "OpIsNan" in text                   # VP1 MIN: NaN if either operand is


def test_value_condition_codes_are_comparisons():
    text = _dis(NVFP4)
    assert "OpFUnordNotEqual" in text          # NE.x of the CC value
    assert "OpLoopMerge" in text and "OpSelectionMerge" in text


def test_carry_flags_are_tested_not_constant():
    """CF/OF/AB/BLE read the flag words of an integer register (a value-holding float register
    has them constant): MOV.U flags (CF), 1 after ADD.U.CC selects on the carry bit."""
    src = ("!!NVvp4.0\nUINT PARAM u = program.local[0];\nUINT TEMP sum, flags;\n"
           "MOV result.position, vertex.position;\nADD.U.CC sum, u.xzzw, u.yzyw;\n"
           "MOV.U flags, 0;\nMOV.U flags (CF), 1;\nMOV.U result.attrib[0], flags;\nEND\n")
    text = _dis(src)
    assert "OpIAddCarry" in text
    assert "OpConstantFalse" not in text and "OpConstantTrue" not in text
    uint = re.search(r"(%\d+) = OpTypeInt 32 0", text).group(1)
    assert re.search(rf"= OpConstant {uint} 8$", text, re.M)         # CF, bit 3 of the flags
    assert "OpBitwiseAnd" in text and "OpINotEqual" in text


def test_source_and_lines_when_asked():
    src = "!!ARBfp1.0\nTEMP r;\nMUL r, fragment.color, 2.0;\nMOV result.color, r;\nEND\n"
    plain = _dis(src)
    assert "OpSource" not in plain and "OpLine" not in plain
    with_source = _dis(src, source_text=src)
    assert "OpSource Unknown 0" in with_source and "MUL r, fragment.color, 2.0;" in with_source
    lines = [line.split()[2] for line in with_source.splitlines() if line.startswith("OpLine")]
    assert lines == ["3", "4"]
    out = xlate.translate(src, filename="t.fp", target="spirv", via="direct", spirv_source=True)
    assert "OpLine" in disassemble_spirv(out.spirv)


@pytest.fixture
def uncovered_dadd(monkeypatch):
    from xlate.backends.spirv_direct import alu
    monkeypatch.delitem(alu.ALU, ("DADD", "u"))


def test_not_covered_is_E7006(uncovered_dadd):
    assert "E7006" in CODES
    with pytest.raises(NotCovered, match="the instruction DADD.U"):
        emit_spirv(parse(DOUBLE, filename="f.tgsi"), "vulkan")
    with pytest.raises(XlateError) as e:
        xlate.translate(DOUBLE, filename="f.tgsi", target="spirv", via="direct")
    [d] = e.value.diagnostics
    assert (d.code, d.severity, d.span.line, d.span.col) == ("E7006", "error", 4, 6)
    assert d.message == "direct SPIR-V does not cover the instruction DADD.U yet"
    for via in ("auto", None):                  # None: the library's default is auto
        kw = {} if via is None else {"via": via}
        auto = xlate.translate(DOUBLE, filename="f.tgsi", target="spirv", **kw)
        assert auto.spirv_via == "glsl" and auto.spirv and auto.glsl
        [note] = [d for d in auto.diagnostics if d.code == "E7006"]
        assert (note.severity, note.message) == (
            "note", "direct SPIR-V does not cover the instruction DADD.U yet; this SPIR-V is "
            "glslang's compile of the GLSL translation")
        # the reason, for a caller that does not read diagnostics
        assert auto.spirv_fallback_reason == "direct SPIR-V does not cover the instruction DADD.U yet"


def test_library_default_is_the_direct_path():
    """``translate(target="spirv")`` (and ``spirv-asm``) writes the SPIR-V itself where it
    covers the program: no GLSL, no note, the same reflection as the glslang path's."""
    for target in ("spirv", "spirv-asm"):
        out = xlate.translate(ARBFP, filename="a.fp", target=target)
        assert (out.spirv_via, out.glsl, out.spirv_fallback_reason) == ("direct", None, None)
        assert not [d for d in out.diagnostics if d.code == "E7006"]
        glslang = xlate.translate(ARBFP, filename="a.fp", target=target, via="glsl")
        assert glslang.spirv_via == "glsl" and glslang.glsl
        assert out.reflection == glslang.reflection
        assert validate_spirv(out.spirv, target="vulkan") is None
    # the GLSL target is untouched by via
    assert xlate.translate(ARBFP, target="glsl").spirv_via is None


def test_unknown_via_is_refused():
    with pytest.raises(ValueError, match="unknown via"):
        xlate.translate(ARBFP, target="spirv", via="fast")


def _cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "xlate", *args], capture_output=True,
                          text=True, cwd=cwd or ROOT)


def test_cli_convert_via(tmp_path):
    src = tmp_path / "a.fp"
    src.write_text(ARBFP)
    direct = _cli("convert", "--target", "spirv-asm", str(src))
    assert direct.returncode == 0 and "Generator: Khronos; 0" in direct.stdout
    glslang = _cli("convert", "--target", "spirv-asm", "--via", "glsl", str(src))
    assert glslang.returncode == 0 and "Glslang" in glslang.stdout


def test_cli_convert_refuses_or_falls_back(tmp_path, capsys, uncovered_dadd):
    """In-process (the fixture's template removal lives in this process)."""
    from xlate.cli import main
    double = tmp_path / "f.tgsi"
    double.write_text(DOUBLE)
    out = str(tmp_path / "f.spv")
    assert main(["convert", "--target", "spirv", "--via", "direct", "-o", out, str(double)]) == 1
    assert "f.tgsi:4:6: error[E7006]" in capsys.readouterr().err
    assert main(["convert", "--target", "spirv", "-o", out, str(double)]) == 0
    assert "note[E7006]" in capsys.readouterr().err


def test_check_targets_spirv_loads_no_glslang(tmp_path):
    src = tmp_path / "a.fp"
    src.write_text(ARBFP)
    code = ("import sys; from xlate.cli import main; rc = main(['check', '--targets', 'spirv', "
            f"{str(src)!r}]); from xlate.backends import spirv; "
            "print(rc, 'glslang' in spirv._loaded, 'spirv-tools' in spirv._loaded)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert r.stdout.split() == ["0", "False", "True"], r.stderr
    assert r.stderr == ""


@corpus_mark()
def test_shared_corpus_sample_validates():
    """A few programs of every dialect folder: each one the direct path covers validates in
    both environments (tools/spirv_direct_corpus.py counts the whole corpus)."""
    corpus = shared_corpus_or_skip()
    checked = 0
    for folder in ("collected/arbfp", "collected/arbvp", "collected/nvvp1.0", "collected/nvfp1.0",
                   "cg/arbfp1", "cg/arbvp1", "cg/fp30", "cg/fp40", "cg/vp20", "cg/gp4fp",
                   "cg/gp4vp", "collected/tgsi"):
        for f in sorted((corpus / folder).rglob("*.*"))[:6]:
            try:
                prog = parse(f.read_text(errors="replace"), filename=f.name)
            except XlateError:
                continue
            for profile, env in (("vulkan", "vulkan"), ("glsl450", "opengl")):
                try:
                    out = emit_spirv(prog, profile)
                except (NotCovered, XlateError):
                    continue
                assert validate_spirv(out.spirv, target=env) is None, f"{f} ({env})"
                checked += 1
    assert checked > 50


# ---- generated programs of every dialect -----------------------------------------------------

def _generated(seeds: int):
    from xlate.verify.generate import DIALECTS
    for d in DIALECTS.values():
        for stage in d.stages:
            for seed in range(seeds):
                yield pytest.param(d.name, stage, seed, id=f"{d.name}-{stage}-{seed}")


@pytest.mark.parametrize("dialect,stage,seed", list(_generated(4)))
def test_generated_programs_validate(dialect, stage, seed):
    """Condition-code flag words with carries, SWITCH, BRA (the general structurizer), parameter
    buffers, clip distances, every texture target: what the generators write, in both
    environments, with the reflection of the GLSL path."""
    from xlate.verify.generate import generate
    text = generate(dialect, seed, stage)
    prog = parse(text, filename="g")
    for profile, env in (("vulkan", "vulkan"), ("glsl450", "opengl")):
        out = emit_spirv(prog, profile)         # every generated construct is covered
        assert validate_spirv(out.spirv, target=env) is None, text
        glslang = xlate.translate(text, filename="g", target="spirv", profile=profile, via="glsl")
        assert out.reflection == glslang.reflection


@pytest.mark.parametrize("backend,seeds", [("vulkan", 2), ("gl-spirv", 1)])
def test_generated_programs_verify_on_the_direct_module(backend, seeds):
    """The direct module itself runs (lavapipe; llvmpipe through GL_ARB_gl_spirv) and agrees
    with the executor: 0 unexplained over the covered dialects' generated programs."""
    from conftest import gl_runner
    from xlate.verify.core import verify_source
    from xlate.verify.generate import generate
    runner = gl_runner(backend)
    failures = []
    for param in _generated(seeds):
        dialect, stage, seed = param.values
        if stage == "tess_evaluation" or (stage == "tess_control" and backend == "vulkan"):
            # the direct module of a tessellation program runs on gl-spirv for control programs
            # only (gl_tcs); vulkan runs glslang's module of the instrumented GLSL
            # (vulkan_tess), and the evaluation harness is GLSL (gl_tess)
            continue
        if stage == "compute":
            # compared word for word without localized verdicts yet: a correct 1-ulp EX2 is a
            # mismatch (the strict xfails of test_verify_random_dialects.py); the direct
            # module's compute programs are verified in test_spirv_direct_memory.py
            continue
        text = generate(dialect, seed, stage)
        rep = verify_source(text, f"g-{dialect}-{stage}-{seed}", lanes=256, seed=seed,
                            runner=runner, backend=backend, via="direct")
        assert any("direct SPIR-V path's module" in n for n in rep.notes), (param, rep.reason)
        if rep.status != "pass":
            failures.append(f"{dialect} {stage} {seed}: {rep.status}: {rep.reason}")
    assert not failures, "\n".join(failures)


# ---- geometry programs, the dispatch loop, per-depth subroutine copies ------------------------

#: a TGSI geometry program with the integer built-ins: gl_PrimitiveIDIn in, gl_Layer and
#: gl_PrimitiveID out, and a user varying of a relatively chosen vertex
TGSI_GEOMETRY = """GEOM
PROPERTY GS_INPUT_PRIMITIVE TRIANGLES
PROPERTY GS_OUTPUT_PRIMITIVE LINE_STRIP
PROPERTY GS_MAX_OUTPUT_VERTICES 4
DCL IN[][0], POSITION
DCL IN[][1], GENERIC[3]
DCL SV[0], PRIM_ID
DCL OUT[0], POSITION
DCL OUT[1], LAYER
DCL OUT[2], PRIM_ID
DCL OUT[3], GENERIC[0]
DCL ADDR[0]
IMM[0] INT32 {0, 1, 2, 0}
  0: MOV OUT[1], SV[0].xxxx
  1: MOV OUT[2], SV[0].xxxx
  2: UARL ADDR[0].x, SV[0].xxxx
  3: MOV OUT[3], IN[ADDR[0].x][1]
  4: MOV OUT[0], IN[1][0]
  5: EMIT IMM[0].xxxx
  6: MOV OUT[0], IN[2][0]
  7: EMIT IMM[0].xxxx
  8: ENDPRIM IMM[0].xxxx
  9: END
"""
#: a subroutine calling itself: one copy per call depth, the CAL at depth 4 does nothing
RECURSIVE = """!!NVfp4.0
TEMP R0;
MOV.F R0, fragment.color;
CAL f;
MOV.F result.color, R0;
RET;
f:
ADD.F R0, R0, 1;
MOV.F.CC R0.w, R0.w;
CAL f (GT.w);
RET;
END
"""


def _structurize_programs():
    from test_structurize_cfg import IRREDUCIBLE, nested_skips
    return {"irreducible": IRREDUCIBLE, "skips161": nested_skips(161), "recursive": RECURSIVE}


def test_geometry_modules():
    """NVgp4.0 and TGSI GEOM: the Geometry model and capability, the primitive and vertex
    count modes, per-vertex input arrays, OpEmitVertex in xl_emit, OpEndPrimitive; valid in
    both environments with the GLSL path's reflection."""
    for name, src, modes in (
            ("g.gp", GEOMETRY, ("Triangles", "OutputTriangleStrip", "OutputVertices 1")),
            ("g.tgsi", TGSI_GEOMETRY, ("Triangles", "OutputLineStrip", "OutputVertices 4"))):
        for profile, env in (("vulkan", "vulkan"), ("glsl450", "opengl")):
            out = xlate.translate(src, filename=name, target="spirv", profile=profile)
            assert (out.spirv_via, out.spirv_fallback_reason) == ("direct", None)
            assert validate_spirv(out.spirv, target=env) is None
            glslang = xlate.translate(src, filename=name, target="spirv", profile=profile,
                                      via="glsl")
            assert out.reflection == glslang.reflection
            text = disassemble_spirv(out.spirv)
            assert "OpCapability Geometry" in text and "OpEntryPoint Geometry %" in text
            for mode in modes + ("Invocations 1",):
                assert re.search(rf"OpExecutionMode %\w+ {mode}\n", text), mode
            assert "OpEmitVertex" in text
            assert ("OpEndPrimitive" in text) == (name == "g.tgsi")
    text = disassemble_spirv(emit_spirv(parse(TGSI_GEOMETRY, filename="g.tgsi"), "vulkan").spirv)
    assert "BuiltIn PrimitiveId" in text and "BuiltIn Layer" in text
    # the vertex arrays: gl_in[].gl_Position and the GENERIC[3] varying, 3 vertices each
    consts = dict(re.findall(r"(%\d+) = OpConstant %\d+ (\d+)\n", text))
    arrays = {a: consts.get(n) for a, n in re.findall(r"(%\d+) = OpTypeArray %\d+ (%\d+)\n", text)}
    pointers = dict(re.findall(r"(%\d+) = OpTypePointer Input (%\d+)\n", text))
    inputs = re.findall(r"= OpVariable (%\d+) Input\n", text)
    assert sorted(str(arrays.get(pointers[p])) for p in inputs) == ["3", "3", "None"]


def test_geometry_instrumentation():
    """The harness's additions (verify/capture.py add_capture, strip_room) made in SPIR-V:
    xfb-captured outputs, ``xv_prim`` (gl_PrimitiveIDIn) with every vertex, the vertex limit
    and the larger OutputVertices."""
    from xlate.backends.spirv_direct import Instrumentation
    prog = parse(TGSI_GEOMETRY, filename="g.tgsi")
    inst = Instrumentation(capture={"gl_Position": (0, 0), "result_generic_0": (0, 16),
                                    "xv_prim": (0, 32)}, strides=[36], emit_limit=4,
                           max_vertices=5)
    for profile, env in (("vulkan", "vulkan"), ("glsl450", "opengl")):
        words = emit_spirv(prog, profile, instrumentation=inst).spirv
        assert validate_spirv(words, target=env) is None
        text = disassemble_spirv(words)
        assert re.search(r"OpExecutionMode %\w+ OutputVertices 5\n", text)
        assert re.search(r"OpExecutionMode %\w+ Xfb\n", text)
        assert text.count("XfbBuffer 0") == 3 and "Offset 32" in text


@pytest.mark.parametrize("name", ["irreducible", "skips161", "recursive"])
@pytest.mark.parametrize("profile,env", [("vulkan", "vulkan"), ("glsl450", "opengl")])
def test_dispatch_loop_and_call_copies_validate(name, profile, env):
    """Irreducible flow (the dispatch loop: a loop around OpSwitch on xl_pc) and recursion
    (one function per call depth, as the GLSL path's sub_d1..d4) on the direct path."""
    src = _structurize_programs()[name]
    out = xlate.translate(src, filename=name, target="spirv", profile=profile)
    assert (out.spirv_via, out.diagnostics) == ("direct", [])
    assert validate_spirv(out.spirv, target=env) is None
    assert out.reflection == xlate.translate(src, filename=name, target="spirv", profile=profile,
                                             via="glsl").reflection
    text = disassemble_spirv(out.spirv)
    if name == "recursive":
        # f at depths 1..4, xl_main, main; the depth-4 copy calls nothing
        assert text.count("OpFunction ") == 6 and text.count("OpFunctionCall") == 5
    else:
        assert "OpSwitch" in text


def test_pusha_popa_and_calls_in_the_dispatch_loop(monkeypatch):
    """CAL/RET and PUSHA/POPA of the dispatch loop (a small expansion limit forces it, as
    tests/test_structurize_cfg.py does): valid, and the executor's results on a driver."""
    from xlate.passes import structurize as S
    src = ("!!ARBvp1.0\nOPTION NV_vertex_program3;\nADDRESS A0;\nTEMP t;\n"
           "PARAM tab[10] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 };\n"
           "ARL A0, vertex.attrib[1];\nPUSHA A0;\nCAL f;\nPOPA A0;\nMOV result.color, tab[A0.y];\n"
           "RET;\nf:\nARL A0, vertex.attrib[2];\nMOV result.texcoord[0], tab[A0.x];\nRET;\nEND\n")
    monkeypatch.setattr(S.cfg, "MAX_EXPANDED", 3)
    prog = parse(src, filename="p.vp")
    assert S.structurize(prog).mode == "dispatch"
    for profile, env in (("vulkan", "vulkan"), ("glsl450", "opengl")):
        words = emit_spirv(prog, profile).spirv
        assert validate_spirv(words, target=env) is None
    from conftest import gl_runner
    from xlate.verify.core import verify_source
    runner = gl_runner("vulkan")
    rep = verify_source(src, "p.vp", lanes=64, seed=3, runner=runner, backend="vulkan",
                        via="direct")
    assert rep.status == "pass", rep.reason
    assert any("direct SPIR-V path's module" in n for n in rep.notes)


@pytest.mark.parametrize("backend", ["vulkan", "gl-spirv"])
def test_newly_covered_programs_verify_on_the_direct_module(backend):
    """Geometry programs (NVgp4.0, TGSI), the dispatch loop and the per-depth copies run on
    lavapipe / llvmpipe through GL_ARB_gl_spirv and agree with the executor."""
    from conftest import gl_runner
    from xlate.verify.core import verify_source
    runner = gl_runner(backend)
    # strips: EmitVertex x2, EndPrimitive, EmitVertex under max_vertices 3 -- the program
    # whose strips overflowed Mesa's draw module before the harness's strip_room (made in
    # SPIR-V here: Instrumentation.emit_limit / max_vertices)
    from test_verify_cases import _STRIPS_GS
    programs = dict(_structurize_programs(), nvgp4=GEOMETRY, tgsi_gs=TGSI_GEOMETRY,
                    strips=_STRIPS_GS.format(n=3))
    failures = []
    for name, src in sorted(programs.items()):
        rep = verify_source(src, name, lanes=128, seed=1, runner=runner, backend=backend,
                            via="direct")
        if rep.status != "pass" or not any("direct SPIR-V path's module" in n for n in rep.notes):
            failures.append(f"{name}: {rep.status}: {rep.reason} {rep.notes}")
    assert not failures, "\n".join(failures)


# ---- TGSI bitfield, FMA, LDEXP, snorm8 (off the E7006 list) ---------------------------------------

def test_tgsi_integer_and_rounding_ops_validate():
    """The bitfield opcodes, FMA (doubles inside: the Float64 capability), LDEXP and the snorm8
    packing have direct templates; their modules validate in both environments (they are
    verified on lavapipe/llvmpipe in test_tgsi_bitfield/fma_ldexp/pack, backends gl-spirv and
    vulkan)."""
    from test_tgsi_bitfield import EDGES
    from test_tgsi_fma_ldexp import ROUNDS
    from test_tgsi_pack import PROGRAM as PACK
    for name, text in (("edges", EDGES), ("rounds", ROUNDS), ("pack", PACK)):
        prog = parse(text, filename=f"{name}.tgsi")
        for profile, env in (("vulkan", "vulkan"), ("glsl450", "opengl")):
            out = emit_spirv(prog, profile)
            assert validate_spirv(out.spirv, target=env) is None, name
    words = disassemble_spirv(emit_spirv(parse(ROUNDS, filename="r.tgsi"), "vulkan").spirv)
    assert "OpCapability Float64" in words and "OpFConvert" in words


def test_unclipped_bitfield_window_is_a_mismatch(monkeypatch):
    """A direct template that extracts without clipping the window (an offset of 32 reads from
    bit 0, as OpBitFieldUExtract's undefined case might) must not verify: the direct module
    is held exactly to the executor."""
    from conftest import gl_runner
    from test_tgsi_bitfield import EDGES
    from xlate.backends.spirv_direct import alu
    from xlate.verify.core import verify_source

    def unclipped(e, v, o, b):
        u4 = e.t("u")
        w = e.ext("UMin", u4, b, e.c("u", 32))
        ones = e.val("ShiftRightLogical", u4, e.cbits("u", 0xFFFFFFFF),
                     e.val("BitwiseAnd", u4, e.val("ISub", u4, e.c("u", 32), w), e.c("u", 31)))
        ones = e.val("BitwiseAnd", u4, ones, alu._ones_where_nonzero(e, w))
        down = e.val("ShiftRightLogical", u4, v, e.val("BitwiseAnd", u4, o, e.c("u", 31)))
        return e.val("BitwiseAnd", u4, down, ones)
    runner = gl_runner("vulkan")
    monkeypatch.setitem(alu.ALU, ("BFEXT", "u"), unclipped)
    rep = verify_source(EDGES, "bitfield.tgsi", lanes=256, seed=9, backend="vulkan",
                        runner=runner, via="direct")
    assert rep.status == "mismatch", rep.reason


def test_a_function_of_a_literal_is_folded_as_glslang_folds_it():
    """POW of a literal base: the GLSL path's log2(2.7182819843292236) is a constant glslang
    folds (double precision, rounded once); the direct module folds it the same way instead
    of leaving it to the driver's log2 (llvmpipe's is a few ulps off).  An argument outside
    the function's domain is left to the run time."""
    import math
    import struct
    from xlate.backends.spirv_direct.module import fold
    text = _dis("!!NVfp4.0\nTEMP R0;\nPOW.F R0, {2.718282}.x, fragment.texcoord[0].x;\n"
                "MOV.F result.color, R0;\nEND\n")
    assert " Log2 " not in text and " Exp2 " in text
    word = struct.unpack("<I", struct.pack("<f", math.log2(struct.unpack(
        "<f", struct.pack("<f", 2.718282))[0])))[0]
    assert fold("Log2", struct.unpack("<I", struct.pack("<f", 2.718282))[0]) == word
    assert fold("Log2", 0xBF800000) is None          # log2(-1)
    assert fold("Log2", 0) is None                   # log2(0) = -Inf
    assert fold("Exp2", 0x43480000) is None          # 2^200 overflows
    assert fold("Exp2", 0xC3160000) is None          # 2^-150: not a normal float
    assert fold("Sqrt", 0x40800000) == 0x40000000    # sqrt(4) = 2
