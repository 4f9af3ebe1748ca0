"""xlate verify on Vulkan (``--backend vulkan``: the vulkan-profile SPIR-V on Mesa lavapipe
through the ``vulkan`` package): exact captured values of every stage (transform feedback of
vertex and geometry programs, strip order, fragment kill/depth/integer targets, built-ins,
textures), verify over programs of corpus/, a wrong translation reported as a mismatch, the
per-pass search, the CLI and its exit code 3 when Vulkan is missing.  Tests that run shaders
skip with the reason when no Vulkan implementation is available."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import xlate
from xlate import cli
from xlate.verify import core
from xlate.verify import draw_run
from xlate.verify import vulkan as vkmod
from xlate.verify import vulkan_device
from xlate.verify.glapi import GLUnavailable

from conftest import ROOT, gl_runner, no_vulkan, shared_corpus_or_skip
from test_verify_cases import run_both
from test_verify_gl import FP, GP, TEXFP, VP


def runner_or_skip():
    return gl_runner("vulkan")


def _run(text: str, lanes: int, inputs: dict, params: dict | None = None, textures=None,
         shadow=None):
    """Run ``text``'s vulkan-profile translation on ``inputs`` (binding -> (lanes, 4) or
    (lanes, V, 4) values); ``params``: binding -> (4,) values.  Returns (capture, reflection)."""
    runner = runner_or_skip()
    t = xlate.translate(text, profile="vulkan")
    names = {i["binding"]: i["name"] for i in t.reflection["inputs"]}
    words = {names[k]: np.ascontiguousarray(v).view(np.uint32) for k, v in inputs.items()}
    blocks = {}
    for u in t.reflection["uniforms"]:
        n = u["array_size"] or 1
        w = np.zeros((n, 4), np.uint32)
        for idx, b in u["elements"].items():
            if b in (params or {}):
                w[int(idx)] = np.asarray(params[b]).view(np.uint32)
        blk = blocks.setdefault(u["binding"], np.zeros(0, np.uint32))
        end = u["offset"] // 4 + 4 * n
        if len(blk) < end:
            blk = np.concatenate([blk, np.zeros(end - len(blk), np.uint32)])
        blk[u["offset"] // 4:end] = w.reshape(-1)
        blocks[u["binding"]] = blk
    cap = runner.run(t.reflection["stage"], t.glsl, t.reflection, lanes, inputs=words,
                     uniforms=[], buffers=blocks, textures=textures, shadow=shadow)
    return cap, t.reflection


def f32(*v):
    return np.array(v, np.float32)


# ---- vertex -----------------------------------------------------------------------------------

def test_vertex_capture_exact():
    text = ("!!NVvp4.0\nPARAM k = program.local[0];\nTEMP t;\nINT TEMP i;\n"
            "ADD t, vertex.attrib[1], k;\nMOV result.texcoord[0], t;\n"
            "TRUNC.S i, vertex.attrib[2];\nI2F result.texcoord[1], i;\n"
            "I2F result.texcoord[2], vertex.id;\nMOV result.position, vertex.position;\n"
            "MOV result.pointsize.x, k.z;\nEND\n")
    lanes = 37
    rng = np.random.default_rng(1)
    a1 = rng.uniform(-8, 8, (lanes, 4)).astype(np.float32)
    a2 = rng.uniform(-100, 100, (lanes, 4)).astype(np.float32)
    pos = rng.uniform(-1, 1, (lanes, 4)).astype(np.float32)
    k = f32(0.5, -2, 3.25, 1e30)
    cap, _ = _run(text, lanes, {"vertex.attrib[1]": a1, "vertex.attrib[2]": a2,
                                "vertex.position": pos}, {"program.local[0]": k})
    o = {n: v.view(np.float32) for n, v in cap.outputs.items()}
    assert np.array_equal(o["result_texcoord_0"], a1 + k)
    assert np.array_equal(o["result_texcoord_1"], np.trunc(a2))
    assert np.array_equal(o["result_texcoord_2"][:, 0], np.arange(lanes, dtype=np.float32))
    assert np.array_equal(o["gl_Position"], pos)
    assert np.array_equal(o["gl_PointSize"][:, 0], np.full(lanes, 3.25, np.float32))
    assert "xfb_offset" in cap.glsl and "set = 0, binding = 0" in cap.glsl


def test_vertex_integer_attributes_and_outputs_bit_exact():
    text = ("!!NVvp4.0\nINT ATTRIB a = vertex.attrib[3];\nINT OUTPUT o = result.texcoord[0];\n"
            "INT TEMP t;\nADD.S t, a, {1, -1, 7, 0};\nMOV.S o, t;\n"
            "MOV result.position, vertex.position;\nEND\n")
    lanes = 16
    a = np.array([[0x7FFFFFFF, -0x80000000, 5, -9]] * lanes, np.int32)
    a[:, 3] = np.arange(lanes)
    diffs, res, cap = run_both(text, {"vertex.attrib[3]": a,
                                      "vertex.position": np.zeros((lanes, 4), np.float32)},
                               backend="vulkan")
    assert not diffs, [d.describe() for d in diffs]
    want = (a.astype(np.int64) + [1, -1, 7, 0]).astype(np.int64) & 0xFFFFFFFF
    assert np.array_equal(cap.outputs["result_texcoord_0"], want.astype(np.uint32))


# ---- fragment ---------------------------------------------------------------------------------

def test_fragment_capture_kill_depth_integer():
    lanes = 64
    rng = np.random.default_rng(0)
    tc0 = rng.uniform(-4, 4, (lanes, 4)).astype(np.float32)
    tc1 = rng.uniform(-1, 1, (lanes, 4)).astype(np.float32)
    k = f32(2, 3, 4, 5)
    cap, _ = _run(FP, lanes, {"fragment.texcoord[0]": tc0, "fragment.texcoord[1]": tc1},
                  {"program.local[0]": k})
    keep = ~cap.killed
    assert np.array_equal(cap.killed, tc1[:, 0] > 0)
    a = tc0 * k
    assert np.array_equal(cap.outputs["gl_FragDepth"][keep, 2].view(np.float32), a[keep, 1])
    assert np.array_equal(cap.outputs["result_color1"][keep].view(np.int32),
                          np.trunc(a[keep]).astype(np.int32))
    # derivatives within the 2x2 quads of the GL layout: lane 4q+1 is the right neighbour of
    # lane 4q, lane 4q+2 the one above
    d = cap.outputs["result_color0"].view(np.float32)
    for q in range(lanes // 4):
        b = 4 * q
        if not cap.killed[b:b + 4].any():
            assert np.array_equal(d[b, :2], tc0[b + 1, :2] - tc0[b, :2])       # DDX .xy
            assert np.array_equal(d[b, 2:], tc0[b + 2, 2:] - tc0[b, 2:])       # DDY .zw


def test_fragment_builtins():
    """gl_FragCoord (x + 0.5, y + 0.5, 0.5, 1) in the GL quad layout although Vulkan's y axis
    points down, gl_FrontFacing true, gl_PrimitiveID 0 -- the values draw_run.builtin_values_for
    gives the executor."""
    text = ("!!NVfp4.0\nOPTION ARB_draw_buffers;\nINT OUTPUT o2 = result.color[2];\n"
            "MOV result.color[0], fragment.position;\nMOV result.color[1], fragment.facing;\n"
            "MOV.S o2, primitive.id;\nEND\n")
    lanes = 200
    cap, _ = _run(text, lanes, {})
    x, y, _, _ = vkmod.quad_layout(lanes)
    pos = cap.outputs["result_color0"].view(np.float32)
    assert np.array_equal(pos[:, 0], x + 0.5) and np.array_equal(pos[:, 1], y + 0.5)
    assert np.all(pos[:, 2] == 0.5) and np.all(pos[:, 3] == 1.0)
    assert np.all(cap.outputs["result_color1"].view(np.float32)[:, 0] == 1.0)
    assert np.all(cap.outputs["result_color2"][:, 0] == 0)
    assert not cap.killed.any()


def test_fragment_textures_exact():
    """Texture units at their vulkan-profile bindings with the executor's sampler state:
    NEAREST at texel centres, TXF of every level, an integer texture, a shadow comparison and
    a RECT texture (normalized coordinates in the vulkan profile; TXF/TXQ ignore the LOD)."""
    from xlate.exec.texture import Texture
    text = ("!!NVfp4.0\nOPTION ARB_draw_buffers;\nINT TEMP c, s;\nTEMP a, b;\n"
            "INT OUTPUT o2 = result.color[2];\nINT OUTPUT o4 = result.color[4];\n"
            "TEX a, fragment.texcoord[0], texture[0], 2D;\n"
            "TRUNC.S c, fragment.texcoord[1];\nTXF b, c, texture[0], 2D;\n"
            "MOV result.color[0], a;\nMOV result.color[1], b;\n"
            "MOV.S c.w, 0;\nTXF.S c, c, texture[1], 2D;\nMOV.S o2, c;\n"
            "TEX b, fragment.texcoord[2], texture[2], SHADOW2D;\nMOV result.color[3], b;\n"
            "TRUNC.S c, fragment.texcoord[3];\nTXF a, c, texture[3], RECT;\n"
            "TXQ s, c.w, texture[3], RECT;\nMOV result.color[5], a;\nMOV.S o4, s;\nEND\n")
    rng = np.random.default_rng(7)
    lv = [rng.uniform(-1, 2, (8 >> m, 8 >> m, 4)).astype(np.float32) for m in range(4)]
    ints = rng.integers(-(1 << 31), 1 << 31, (8, 8, 4), dtype=np.int64).astype(np.int32)
    depth = rng.random((8, 8, 4)).astype(np.float32)
    rect = rng.uniform(-1, 2, (8, 8, 4)).astype(np.float32)
    # unit 0: a mipmapped texture with the non-mipmap filter NEAREST: TEX samples the base
    # level whatever the (large, random) derivatives, TXF every level
    textures = {0: Texture(levels=lv, target="2D", filter="NEAREST"),
                1: Texture(levels=[ints], target="2D"),
                2: Texture(levels=[depth], target="2D", filter="NEAREST", compare="LESS"),
                3: Texture(levels=[rect], target="RECT", wrap="CLAMP_TO_EDGE")}
    lanes = 64
    tc0 = np.zeros((lanes, 4), np.float32)
    tc0[:, :2] = (rng.integers(0, 8, (lanes, 2)) + 0.5) / 8
    tc1 = np.zeros((lanes, 4), np.float32)
    tc1[:, 3] = rng.integers(0, 4, lanes)                    # level
    tc1[:, :2] = rng.integers(0, 8, (lanes, 2)) // (1 << tc1[:, 3:4].astype(int))
    tc2 = np.zeros((lanes, 4), np.float32)
    tc2[:, :2] = (rng.integers(0, 8, (lanes, 2)) + 0.5) / 8
    tc2[:, 2] = rng.random(lanes)
    tc3 = np.zeros((lanes, 4), np.float32)
    tc3[:, :2] = rng.integers(0, 8, (lanes, 2))
    tc3[:, 3] = rng.integers(1, 5, lanes)                    # a LOD a RECT fetch must ignore
    inputs = {"fragment.texcoord[0]": tc0, "fragment.texcoord[1]": tc1,
              "fragment.texcoord[2]": tc2, "fragment.texcoord[3]": tc3}
    cap, _ = _run(text, lanes, inputs, textures=textures, shadow={2})
    o = cap.outputs
    ix = (tc0[:, :2] * 8).astype(int)
    assert np.array_equal(o["result_color0"].view(np.float32), lv[0][ix[:, 1], ix[:, 0]])
    lev = tc1[:, 3].astype(int)
    fetched = np.array([lv[m][int(tc1[i, 1]), int(tc1[i, 0])] for i, m in enumerate(lev)])
    assert np.array_equal(o["result_color1"].view(np.float32), fetched)
    assert np.array_equal(o["result_color2"].view(np.int32),
                          ints[tc1[:, 1].astype(int), tc1[:, 0].astype(int)])
    ix2 = (tc2[:, :2] * 8).astype(int)
    passed = (tc2[:, 2] < depth[ix2[:, 1], ix2[:, 0], 0]).astype(np.float32)
    assert np.array_equal(o["result_color3"].view(np.float32)[:, 0], passed)
    assert np.array_equal(o["result_color5"].view(np.float32),
                          rect[tc3[:, 1].astype(int), tc3[:, 0].astype(int)])
    assert np.all(o["result_color4"].view(np.int32)[:, :2] == 8)


def test_rect_fetch_and_size_ignore_the_lod_in_the_vulkan_profile():
    """Found by this backend: the vulkan profile (rectangle textures become normalized 2D
    textures) passed TXF's .w and TXQ's operand as the level of detail of a one-level
    texture; GL's texelFetch/textureSize of a sampler2DRect take none (NV_gpu_program4
    2.X.8.Z: rectangle textures have no mipmaps)."""
    text = ("!!NVfp4.0\nINT TEMP c, s;\nTEMP a, f;\nTRUNC.S c, fragment.texcoord[0];\n"
            "TXF a, c, texture[0], RECT;\nTXQ s, c.w, texture[0], RECT;\nI2F f, s;\n"
            "ADD result.color, a, f;\nEND\n")
    src = xlate.translate(text, profile="vulkan").glsl
    assert "textureSize(texture0, 0)" in src and ".w)" not in src.split("texelFetch")[1][:60]


# ---- geometry ---------------------------------------------------------------------------------

STRIP_GP = """!!NVgp4.0
PRIMITIVE_IN POINTS;
PRIMITIVE_OUT TRIANGLE_STRIP;
VERTICES_OUT 7;
TEMP t;
MOV t, vertex[0].position;
MOV result.texcoord[0], t;
EMIT;
ADD t.x, t.x, 1;
MOV result.texcoord[0], t;
EMIT;
ADD t.x, t.x, 1;
MOV result.texcoord[0], t;
EMIT;
ADD t.x, t.x, 1;
MOV result.texcoord[0], t;
EMIT;
ENDPRIM;
ADD t.y, t.y, 100;
MOV result.texcoord[0], t;
EMIT;
EMIT;
EMIT;
END
"""


def _strip_capture(order: str, monkeypatch):
    runner = runner_or_skip()
    monkeypatch.setattr(runner, "strip_order", order)
    lanes = 5
    pos = np.zeros((lanes, 1, 4), np.float32)
    pos[:, 0, 0] = np.arange(lanes) * 10
    cap, _ = _run(STRIP_GP, lanes, {"vertex.position": pos})
    return pos, [[[float(v["result_texcoord_0"].view(np.float32)[0]) for v in p] for p in prims]
                 for prims in cap.primitives], cap


def test_geometry_capture_exact(monkeypatch):
    """Each lane's emitted strips as independent triangles, odd triangle i of a strip as
    (i+1, i, i+2) -- the order llvmpipe's GL records and capture.strip_primitives models."""
    pos, xs, cap = _strip_capture("gl", monkeypatch)
    for lane, prims in enumerate(xs):
        b = 10.0 * lane
        assert prims == [[b, b + 1, b + 2], [b + 2, b + 1, b + 3], [b + 3, b + 3, b + 3]]
    ys = cap.primitives[0][2][0]["result_texcoord_0"].view(np.float32)[1]
    assert ys == 100.0


def test_geometry_default_provoking_vertex_order_differs(monkeypatch):
    """Evidence for the provoking-vertex LAST mode the runner sets: with Vulkan's default mode
    (first vertex) lavapipe records odd strip triangles as (i, i+2, i+1) (the Vulkan
    specification's "Triangle Strips" vertex order), which would read as a mismatch against
    the executor's GL order."""
    _, xs, _ = _strip_capture("first", monkeypatch)
    b = 0.0
    assert xs[0][1] == [b + 1, b + 3, b + 2]


def test_geometry_lines_adjacency_and_integer_outputs():
    text = ("!!NVgp4.0\nPRIMITIVE_IN LINES_ADJACENCY;\nPRIMITIVE_OUT LINE_STRIP;\n"
            "VERTICES_OUT 4;\nATTRIB p = vertex.position;\nINT OUTPUT o = result.texcoord[1];\n"
            "INT TEMP i;\nMOV.S i, {0, 0, 0, 0};\nREP 4;\n  MOV result.position, p[i.x];\n"
            "  MOV.S o, i;\n  MOV.S o.y, primitive.id.x;\n  EMIT;\n  ADD.S i.x, i.x, 1;\nENDREP;\n"
            "END\n")
    lanes = 9
    pos = np.random.default_rng(3).uniform(-5, 5, (lanes, 4, 4)).astype(np.float32)
    pid = np.zeros((lanes, 4), np.int32)
    pid[:, 0] = np.arange(lanes)                       # gl_PrimitiveIDIn, as the harness draws
    diffs, res, cap = run_both(text, {"vertex.position": pos, "primitive.id": pid},
                               backend="vulkan")
    assert not diffs, [d.describe() for d in diffs]
    for lane in range(lanes):
        prims = cap.primitives[lane]
        assert len(prims) == 3                                   # a strip of 4 vertices
        for j, p in enumerate(prims):
            for v, vert in enumerate(p):
                assert np.array_equal(vert["gl_Position"].view(np.float32), pos[lane, j + v])
                assert list(vert["result_texcoord_1"][:2].view(np.int32)) == [j + v, lane]


# ---- verify -----------------------------------------------------------------------------------

@pytest.mark.parametrize("name,text", [("vp", VP), ("fp", FP), ("gp", GP), ("texfp", TEXFP)])
def test_stage_passes(name, text):
    runner = runner_or_skip()
    rep = verify_source(text, f"{name}.txt", lanes=512, seed=3, runner=runner)
    assert rep.status == "pass", (rep.reason, [d.describe() for d in rep.differences[:5]],
                                  rep.localization)
    assert rep.backend == "vulkan" or rep.compared > 0


def verify_source(text, name, **kw):
    kw.setdefault("backend", "vulkan")
    return core.verify_source(text, name, **kw)


CORPUS_PROGRAMS = ["nv4/vp4_skinning_pbo.vp", "nv4/vp4_int_flags.vp", "nv4/vp4_morph_cc.vp",
                   "nv4/fp4_texture_targets.fp", "nv4/fp4_shadow_targets.fp",
                   "nv4/fp4_bitpacked_material.fp", "nv4/fp4_rep_cont_facing.fp",
                   "nv4/gp4_tri_copy.gp", "nv4/gp4_line_particles.gp",
                   "examples/bright_pass.fp"]


@pytest.mark.parametrize("name", CORPUS_PROGRAMS)
def test_corpus_programs_pass(name):
    runner = runner_or_skip()
    path = ROOT / "corpus" / name
    rep = verify_source(path.read_text(), str(path), lanes=256, seed=1, runner=runner)
    assert rep.status == "pass", (rep.reason, [d.describe() for d in rep.differences[:5]],
                                  rep.localization)
    assert rep.compared > 0 and rep.backend == "vulkan"


@pytest.mark.parametrize("backend", ["vulkan", "gl-spirv"])
def test_a_folded_gamma_leaves_the_two_spirv_paths_together(backend):
    """cg/gp4fp blur7x7-last-pass noopt (inputs seed 5): cgc's gamma, MOV R1.x, {2.2} then
    RCP R1.xyz, R1.x and three POWs.  The GLSL path printed '1.0 / 2.2', which glslang folds
    in double precision one ulp from the program's RCP of the float 2.2, and the direct
    module, dividing the float, departed from glslang's on 152 components (a mismatch:
    nothing replays the direct module).  Now a literal the compiler folds is spelled with its
    exact value (expressions.folded_spelling), and both paths pass."""
    path = shared_corpus_or_skip("cg/gp4fp/blurs__blur7x7-last-pass.cg__main_fragment__noopt.fp")
    runner = runner_or_skip() if backend == "vulkan" else gl_runner("gl-spirv")
    rep = core.verify_source(path.read_text(), str(path), lanes=256, seed=5, runner=runner,
                             backend=backend)
    assert rep.status == "pass", (rep.reason, [d.describe() for d in rep.differences[:5]])
    assert any("direct SPIR-V path's module" in n for n in rep.notes), rep.notes


def test_wrong_translation_is_a_localized_mismatch(monkeypatch):
    runner = runner_or_skip()
    real = vkmod.Runner.run

    def corrupt(self, stage, glsl, *a, **k):      # the implementation adds 1 to an output
        assert "    xl_main();\n" in glsl          # the corruption must not miss
        glsl = glsl.replace("    xl_main();\n",
                            "    xl_main();\n    result_texcoord_1 += vec4(1.0);\n")
        return real(self, stage, glsl, *a, **k)

    monkeypatch.setattr(vkmod.Runner, "run", corrupt)
    # the corruption is made in the GLSL: glslang's module runs (not the direct SPIR-V)
    rep = verify_source(VP, "vp.txt", lanes=64, seed=1, runner=runner, via="glsl")
    assert rep.status == "mismatch"
    assert any(d.output == "result.texcoord[1]" for d in rep.differences)
    assert rep.localization and rep.localization[0]["verdict"] == "interface"
    assert rep.inputs_of


LOOP_VP = """!!NVvp4.0
TEMP t;
MOV t, {0, 0, 0, 0};
REP {5};
  ADD t, t, {1.5, 2, 3, 4};
ENDREP;
MOV result.texcoord[0], t;
MOV result.position, vertex.attrib[0];
END
"""


def test_per_pass_search_names_the_pass(monkeypatch):
    """The replay's per-pass probes through the Vulkan runner: a translation whose loop body goes
    wrong on its second pass only is localized to that instruction and pass."""
    runner = runner_or_skip()
    real = vkmod.Runner.run
    body = "t = t + vec4(1.5, 2.0, 3.0, 4.0);"

    def corrupt(self, stage, glsl, *a, **k):
        assert body in glsl
        glsl = glsl.replace(body, body + " if (t.y == 4.0) t.y = 5.0;")
        return real(self, stage, glsl, *a, **k)

    monkeypatch.setattr(vkmod.Runner, "run", corrupt)
    rep = verify_source(LOOP_VP, "loop.vp", lanes=8, seed=1, runner=runner, via="glsl")
    assert rep.status == "mismatch"
    loc = rep.localization[0]
    assert (loc["verdict"], loc.get("pass"), loc["instruction"]["op"]) == \
        ("divergence", 2, "ADD"), loc


# ---- CLI ---------------------------------------------------------------------------------------

def _write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def test_cli_vulkan_pass_json_and_mismatch(tmp_path, capsys, monkeypatch):
    runner_or_skip()
    f = _write(tmp_path, "a.vp", VP)
    g = _write(tmp_path, "b.fp", FP)
    report = tmp_path / "r.json"
    rc = cli.main(["verify", f, g, "--backend", "vulkan", "--lanes", "128", "--json",
                   str(report)])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert out.startswith("PASS") and "summary: 2 pass" in out
    doc = json.loads(report.read_text())
    assert doc["backend"] == "vulkan" and doc["summary"] == {"pass": 2}
    assert doc["implementation"].startswith("vulkan on ")
    assert {p["backend"] for p in doc["programs"]} == {"vulkan"}

    real = vkmod.Runner.run

    def corrupt(self, stage, glsl, *a, **k):
        assert "    xl_main();\n" in glsl
        return real(self, stage, glsl.replace("    xl_main();\n",
                                              "    xl_main();\n    gl_Position = -gl_Position;\n"),
                    *a, **k)

    monkeypatch.setattr(vkmod.Runner, "run", corrupt)
    rc = cli.main(["verify", f, "--backend", "vulkan", "--lanes", "64", "--via", "glsl",
                   "--in-process"])
    out = capsys.readouterr().out
    assert rc == 1 and "MISMATCH" in out and "result.position" in out


class _NoVulkanLoader:
    """A meta path finder making ``import vulkan`` fail as the package does without
    libvulkan.so.1 (it raises OSError at import)."""

    def find_spec(self, name, path=None, target=None):
        if name == "vulkan" or name.startswith("vulkan."):
            raise OSError("Cannot find Vulkan SDK version")
        return None


@pytest.mark.parametrize("missing", ["package", "loader"])
def test_cli_exit_3_without_vulkan(tmp_path, capsys, monkeypatch, missing):
    """No ``vulkan`` package / no loader: a clear message, exit code 3, no traceback."""
    for mod in [m for m in sys.modules if m == "vulkan" or m.startswith("vulkan.")]:
        monkeypatch.delitem(sys.modules, mod)
    monkeypatch.setattr(vulkan_device, "_DEVICE", None)
    if missing == "package":
        monkeypatch.setitem(sys.modules, "vulkan", None)         # import raises ImportError
    else:
        monkeypatch.setattr(sys, "meta_path", [_NoVulkanLoader()] + sys.meta_path)
    f = _write(tmp_path, "a.vp", VP)
    assert cli.main(["verify", f, "--backend", "vulkan", "--in-process"]) == 3
    err = capsys.readouterr().err
    assert "no implementation available for backend 'vulkan'" in err
    assert ("pip install 'xlate[vulkan]'" if missing == "package" else "libvulkan1") in err
    with pytest.raises(GLUnavailable):
        core.make_runner("vulkan")


def test_cli_exit_3_without_a_driver(tmp_path):
    """A loader but no ICD (VK_ICD_FILENAMES naming nothing): exit 3 with the reason."""
    try:
        import vulkan  # noqa: F401  (only whether it imports)
    except (ImportError, OSError) as e:
        no_vulkan(f"no vulkan package / loader: {e}")
    f = _write(tmp_path, "a.vp", VP)
    env = dict(os.environ, VK_ICD_FILENAMES=str(tmp_path / "none.json"),
               VK_DRIVER_FILES=str(tmp_path / "none.json"))
    code = "import sys; from xlate.cli import main; sys.exit(main(sys.argv[1:]))"
    p = subprocess.run([sys.executable, "-c", code, "verify", "--backend", "vulkan", f],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert p.returncode == 3, (p.stdout, p.stderr)
    assert "no implementation available for backend 'vulkan'" in p.stderr
    assert "Traceback" not in p.stderr


def test_make_runner_and_profiles():
    """core.make_runner picks the runner of a backend; each runner names the profile core and
    trace emit the translation in; gl.Runner refuses 'vulkan' outright."""
    from xlate.verify import gl as glmod
    assert glmod.Runner.profile == "glsl450" and vkmod.Runner.profile == "vulkan"
    with pytest.raises(ValueError):
        glmod.Runner("vulkan")
    with pytest.raises(ValueError):
        vkmod.Runner("gl")
    runner = runner_or_skip()
    assert draw_run.runner_profile(runner) == "vulkan"
    assert "llvmpipe" in runner.describe() or runner.describe().startswith("vulkan on ")


def test_diffcheck_backend_vulkan(tmp_path, capsys):
    """tools/diffcheck.py --backend vulkan: the batch workers open the Vulkan runner."""
    runner_or_skip()
    from test_verify_corpus import _diffcheck
    dc = _diffcheck()
    for folder, name in (("cg/gp4vp", "nv4/vp4_int_flags.vp"),
                         ("cg/gp4fp", "examples/bright_pass.fp"),
                         ("cg/gp4gp", "nv4/gp4_tri_copy.gp")):
        d = tmp_path / folder
        d.mkdir(parents=True)
        (d / Path(name).name).write_text((ROOT / "corpus" / name).read_text())
    rc = dc.main(["--corpus", str(tmp_path), "--backend", "vulkan", "--jobs", "1", "--lanes",
                  "64", "--quiet"])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "backend vulkan" in out
    total = next(line for line in out.splitlines() if line.startswith("total")).split()
    assert total[1:3] == ["3", "3"], out                       # 3 programs, 3 passed


@pytest.mark.parametrize("dialect,seed", [("arbfp-nv", 101), ("arbfp-nv2", 105)])
def test_fp16_rounding_of_a_vector_on_lavapipe(dialect, seed):
    """xl_fp16 rounds one component per pack: the pair form lost the high half of the packed
    pair on lavapipe (found by the direct SPIR-V campaign; these two random programs failed
    through glslang's SPIR-V)."""
    from xlate.verify.generate import generate
    rep = verify_source(generate(dialect, seed, "fragment"), f"{dialect}-{seed}", lanes=1024,
                        runner=runner_or_skip())
    assert rep.status == "pass", rep.reason
