"""xlate verify on a real implementation (Mesa llvmpipe through EGL): every stage, both GL
backends, kill/depth/integer outputs, derivatives, textures, geometry strips, and the CLI
(exit codes, JSON report).  Skipped with the reason where no implementation is available."""
from __future__ import annotations

import json

import numpy as np
import pytest

from conftest import gl_runner

from xlate import cli
from xlate.verify import gl as glmod
from xlate.verify.core import verify_source
from xlate.verify.glapi import GLUnavailable


def runner_or_skip(backend: str = "gl"):
    return gl_runner(backend)


VP = """!!NVvp4.0
PARAM mvp[4] = { state.matrix.mvp };
PARAM k = program.local[0];
TEMP p, t;
INT TEMP i;
DP4 p.x, mvp[0], vertex.position;
DP4 p.y, mvp[1], vertex.position;
DP4 p.z, mvp[2], vertex.position;
DP4 p.w, mvp[3], vertex.position;
MOV result.position, p;
SGT.CC t, vertex.attrib[1], k;
MOV t.x (GT.y), -t.x;
TRUNC.S i, vertex.attrib[2];
I2F result.texcoord[0], i;
MUL result.texcoord[1], t, vertex.attrib[1];
MOV result.pointsize.x, k.z;
END
"""

FP = """!!NVfp4.0
OPTION ARB_draw_buffers;
PARAM k = program.local[0];
INT OUTPUT o1 = result.color[1];
TEMP a, d;
INT TEMP i;
MUL a, fragment.texcoord[0], k;
DDX d, fragment.texcoord[0];
DDY d.zw, fragment.texcoord[0];
KIL -fragment.texcoord[1].x;
TRUNC.S i, a;
MOV result.color, d;
MOV.S o1, i;
MOV result.depth.z, a.y;
END
"""

GP = """!!NVgp4.0
PRIMITIVE_IN TRIANGLES;
PRIMITIVE_OUT TRIANGLE_STRIP;
VERTICES_OUT 5;
ATTRIB pos = vertex.position;
ATTRIB tc = vertex.texcoord[0];
ATTRIB col = vertex.color;
TEMP t;
INT TEMP i;
MOV.S i.x, 0;
REP 3;
  ADD t, pos[i.x], tc[i.x];
  MOV result.position, t;
  MOV result.texcoord[0], col[i.x];
  EMIT;
  ADD.S i.x, i.x, 1;
ENDREP;
MOV result.position, vertex[0].position;
EMIT;
ENDPRIM;
MOV result.position, vertex[1].position;
EMIT;
END
"""

TEXFP = """!!NVfp4.0
TEMP c, d;
TEX c, fragment.texcoord[0], texture[0], 2D;
TXL d, fragment.texcoord[1], texture[1], 2D;
ADD result.color, c, d;
END
"""


@pytest.mark.parametrize("backend", ["gl", "gl-spirv"])
@pytest.mark.parametrize("name,text", [("vp", VP), ("fp", FP), ("gp", GP), ("texfp", TEXFP)])
def test_stage_passes(backend, name, text):
    runner = runner_or_skip(backend)
    rep = verify_source(text, f"{name}.txt", lanes=512, seed=3, backend=backend, runner=runner)
    assert rep.status == "pass", (rep.reason, [d.describe() for d in rep.differences[:5]],
                                  rep.localization)
    assert rep.compared > 0 or name == "gp"


def test_fragment_capture_kill_depth_integer():
    runner = runner_or_skip()
    import xlate
    t = xlate.translate(FP)
    lanes = 64
    rng = np.random.default_rng(0)
    tc0 = rng.uniform(-4, 4, (lanes, 4)).astype(np.float32)
    tc1 = rng.uniform(-1, 1, (lanes, 4)).astype(np.float32)
    k = np.array([[2, 3, 4, 5]], np.float32)
    cap = runner.run("fragment", t.glsl, t.reflection, lanes,
                     inputs={"fragment_texcoord_0": tc0.view(np.uint32),
                             "fragment_texcoord_1": tc1.view(np.uint32)},
                     uniforms=[(0, k.view(np.uint32))])
    keep = ~cap.killed
    assert np.array_equal(cap.killed, tc1[:, 0] > 0)
    a = tc0 * k
    assert np.array_equal(cap.outputs["gl_FragDepth"][keep, 2].view(np.float32), a[keep, 1])
    assert np.array_equal(cap.outputs["result_color1"][keep].view(np.int32),
                          np.trunc(a[keep]).astype(np.int32))
    # quad layout: lane 4q+1 is the right neighbour of lane 4q (coarse = fine for DDX row 0)
    x, _, _, _ = glmod.quad_layout(lanes)
    assert np.all(x[1::4] == x[0::4] + 1)


def test_no_emit_geometry_program():
    runner = runner_or_skip()
    text = "!!NVgp4.0\nPRIMITIVE_IN TRIANGLES;\nPRIMITIVE_OUT TRIANGLE_STRIP;\nVERTICES_OUT 1;\nEND\n"
    rep = verify_source(text, "empty.gp", lanes=16, runner=runner)
    assert rep.status == "pass"


#: a geometry program whose EMIT a literal IF makes unreachable (``RET`` first): Mesa removes
#: every captured output, and glBeginTransformFeedback fails "no varyings to record"
#: (generated TGSI geometry seed 534, inputs seed 500); ``{}`` is the literal
RETURNS_BEFORE_EMIT = """GEOM
PROPERTY GS_INPUT_PRIMITIVE TRIANGLES
PROPERTY GS_OUTPUT_PRIMITIVE POINTS
PROPERTY GS_MAX_OUTPUT_VERTICES 1
DCL IN[][0], POSITION
DCL OUT[0], POSITION
IMM[0] FLT32 {{{}, 0.0, 0.0, 0.0}}
IMM[1] INT32 {{0, 0, 0, 0}}
  0: IF IMM[0].xxxx :0
  1:   RET
  2: ENDIF
  3: MOV OUT[0], IN[0][0]
  4: EMIT IMM[1].xxxx
  5: END
"""


def test_a_geometry_program_with_no_output_left_to_record_emits_nothing(monkeypatch):
    """The harness counts the primitives of a program left with no outputs to record
    (GL_PRIMITIVES_GENERATED): none here, as the executor's.  The same program that emits
    (literal 0.0) passes; made to return before its EmitVertex in the implementation only,
    it is a mismatch -- the count does not hide a missing primitive."""
    runner = runner_or_skip()
    rep = verify_source(RETURNS_BEFORE_EMIT.format("1.0"), "r.tgsi", lanes=16, runner=runner)
    assert (rep.status, rep.compared) == ("pass", 0), rep.reason
    emits = RETURNS_BEFORE_EMIT.format("0.0")
    rep = verify_source(emits, "e.tgsi", lanes=16, runner=runner)
    assert (rep.status, rep.compared) == ("pass", 64), rep.reason
    real = glmod.Runner.run

    def returns(self, stage, glsl, *a, **k):
        assert "    xl_main();\n" in glsl
        return real(self, stage, glsl.replace("    xl_main();\n", "    return;\n"), *a, **k)
    monkeypatch.setattr(glmod.Runner, "run", returns)
    rep = verify_source(emits, "e.tgsi", lanes=16, runner=runner)
    assert rep.status == "mismatch"


def test_mismatch_is_reported_and_localized(monkeypatch):
    runner = runner_or_skip()
    real = glmod.Runner.run

    def corrupt(self, stage, glsl, *a, **k):      # the implementation adds 1 to an output
        assert "    xl_main();\n" in glsl          # the corruption must not miss
        glsl = glsl.replace("    xl_main();\n",
                            "    xl_main();\n    result_texcoord_1 += vec4(1.0);\n")
        return real(self, stage, glsl, *a, **k)

    monkeypatch.setattr(glmod.Runner, "run", corrupt)
    rep = verify_source(VP, "vp.txt", lanes=64, seed=1, runner=runner)
    assert rep.status == "mismatch"
    assert any(d.output == "result.texcoord[1]" for d in rep.differences)
    assert rep.localization and rep.localization[0]["verdict"] == "interface"
    assert rep.inputs_of


# ---- CLI ---------------------------------------------------------------------------------------

def _write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def test_cli_pass_and_json(tmp_path, capsys):
    runner_or_skip()
    f = _write(tmp_path, "a.vp", VP)
    report = tmp_path / "r.json"
    rc = cli.main(["verify", f, "--lanes", "128", "--seed", "2", "--json", str(report)])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert out.startswith("PASS")
    doc = json.loads(report.read_text())
    assert doc["summary"] == {"pass": 1} and doc["programs"][0]["stage"] == "vertex"
    assert doc["implementation"]


def test_cli_mismatch_exit_1(tmp_path, capsys, monkeypatch):
    runner_or_skip()
    real = glmod.Runner.run

    def corrupt(self, stage, glsl, *a, **k):
        assert "    xl_main();\n" in glsl
        return real(self, stage, glsl.replace("    xl_main();\n",
                                              "    xl_main();\n    gl_Position = -gl_Position;\n"),
                    *a, **k)

    monkeypatch.setattr(glmod.Runner, "run", corrupt)
    f = _write(tmp_path, "a.vp", VP)
    rc = cli.main(["verify", f, "--lanes", "64", "--in-process"])
    out = capsys.readouterr().out
    assert rc == 1
    assert "MISMATCH" in out and "result.position" in out and "inputs of lane" in out


def test_cli_bad_input_and_usage(tmp_path, capsys):
    runner_or_skip()
    bad = _write(tmp_path, "bad.vp", "!!NVvp4.0\nFOO r;\nEND\n")
    assert cli.main(["verify", bad]) == 1
    err = capsys.readouterr().err
    assert "error[" in err
    assert cli.main(["verify", str(tmp_path / "missing.vp")]) == 2
    assert cli.main(["verify", bad, "--lanes", "0"]) == 2


def test_cli_no_implementation_exit_3(tmp_path, capsys, monkeypatch):
    # (the vulkan backend's unavailable cases: tests/test_verify_vulkan.py)
    f = _write(tmp_path, "a.vp", VP)

    def unavailable(*a, **k):
        raise GLUnavailable("no EGL here")

    monkeypatch.setattr(glmod.Runner, "__init__", unavailable)
    assert cli.main(["verify", f, "--in-process"]) == 3
    assert "no EGL here" in capsys.readouterr().err
