"""Names from cgc's ``#var`` header (frontends/nv/cgnames.py, backends/names.py): the exact
declarations and reflection entries of named programs, collisions, keywords, arrays, aliases,
relative addressing; translation on a real GL implementation of our own named programs
(corpus/cg_named) and of a sample of cgc's programs of every profile (../shared/corpus/cg)."""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from conftest import ROOT, corpus_mark, gl_runner, shared_corpus_or_skip
from xlate.api import parse, translate
from xlate.backends.names import identifier, interface_names, usable

NAMED = ROOT / "corpus" / "cg_named"


def _glsl(name: str, profile: str = "glsl450") -> list[str]:
    t = translate((NAMED / name).read_text(), filename=name, profile=profile)
    return t.glsl.splitlines()


def _reflect(name: str, profile: str = "glsl450") -> dict:
    return translate((NAMED / name).read_text(), filename=name, profile=profile).reflection


def test_arbfp_declarations_and_uses():
    lines = _glsl("arbfp_named.fp")
    for line in ["layout(location = 5) in vec4 VOUT_texCoord;",
                 "layout(location = 0) precise out vec4 main_fragment;",
                 "layout(location = 0) uniform vec4 IN_texture_size;",
                 "layout(location = 1) uniform vec4 weights[3];",     # w[0..2]: one array
                 "layout(location = 4) uniform vec4 main_;",          # 'main' is taken
                 "layout(binding = 0) uniform sampler2D decal;",      # the referenced alias
                 # (values read once are written where they are read: backends/glsl/expressions.py)
                 "    R1 = texture(decal, VOUT_texCoord.xy * IN_texture_size.xy);",
                 "    main_fragment = (R1 * weights[2] + (R1 * weights[1] + R1 * weights[0]))"
                 " * main_.xxxx * 0.5;"]:
        assert line in lines, line
    text = "\n".join(lines)
    for old in ("program_local", "texture0", "fragment_texcoord_0", "result_color0", "s0"):
        assert old not in text, old


def test_arbfp_reflection():
    r = _reflect("arbfp_named.fp")
    assert r["inputs"] == [{"name": "VOUT_texCoord", "binding": "fragment.texcoord[0]", "type": "vec4",
                            "location": 5, "builtin": False, "interpolation": "smooth",
                            "cg_name": "VOUT.texCoord"}]
    assert r["outputs"] == [{"name": "main_fragment", "binding": "result.color[0]", "type": "vec4",
                             "location": 0, "builtin": False, "interpolation": None,
                             "cg_name": "main_fragment"}]
    assert r["uniforms"] == [
        {"name": "IN_texture_size", "type": "vec4", "array_size": None,
         "elements": {"0": "program.local[0]"}, "cg_name": "IN.texture_size", "location": 0},
        {"name": "weights", "type": "vec4", "array_size": 3,
         "elements": {"0": "program.local[1]", "1": "program.local[2]", "2": "program.local[3]"},
         "cg_name": "weights", "location": 1},
        {"name": "main_", "type": "vec4", "array_size": None,
         "elements": {"0": "program.local[4]"}, "cg_name": "main", "location": 4}]
    assert r["textures"] == [{"unit": 0, "name": "decal", "target": "2D", "type": "sampler2D",
                              "binding": 0, "cg_name": "decal"}]
    # every #var line is still there as written, the unreferenced alias s0 included
    assert [v["name"] for v in r["cg_vars"]][:3] == ["VOUT.texCoord", "VOUT.color", "s0"]


def test_vulkan_block_members_are_named():
    lines = _glsl("arbfp_named.fp", "vulkan")
    assert "    vec4 IN_texture_size;" in lines
    assert "    vec4 weights[3];" in lines
    assert "layout(set = 0, binding = 1) uniform sampler2D decal;" in lines
    u = _reflect("arbfp_named.fp", "vulkan")["uniforms"]
    assert [(x["name"], x["offset"]) for x in u] == [("IN_texture_size", 0), ("weights", 16),
                                                    ("main_", 64)]


def test_vp11_matrix_over_four_registers_and_keyword_member():
    lines = _glsl("vp11_named.vp")
    for line in ["layout(location = 0) in vec4 position;",
                 "layout(location = 8) in vec4 texCoord;",
                 "layout(location = 5) precise out vec4 main_vertex_texCoord;",
                 "layout(location = 0) precise out vec4 main_vertex_color;",
                 "layout(location = 0) uniform vec4 IN_input;",       # IN.input: not a keyword
                 "layout(location = 1) uniform vec4 program_env[6];",  # c[5]: cgc's #const
                 "layout(location = 7) uniform vec4 modelViewProj[4];",
                 "    gl_Position.w = xl_dp4(position, modelViewProj[3]);",
                 "    main_vertex_texCoord.xy = texCoord.xy * IN_input.xy;"]:
        assert line in lines, line
    r = _reflect("vp11_named.vp")
    mvp = [u for u in r["uniforms"] if u["name"] == "modelViewProj"][0]
    assert mvp["elements"] == {str(i): f"program.env[{i}]" for i in range(4)}
    assert mvp["array_size"] == 4 and mvp["cg_name"] == "modelViewProj"
    # a built-in keeps its name and carries the Cg one
    pos = [o for o in r["outputs"] if o["binding"] == "result.position"][0]
    assert (pos["name"], pos["cg_name"]) == ("gl_Position", "main_vertex.position")


def test_fp1_declared_names_and_builtin_function_name():
    lines = _glsl("fp10_named.fp")
    for line in ["layout(location = 0) uniform vec4 IN_texture_size;",
                 "layout(location = 1) uniform vec4 IN_video_size;",   # declared, unreferenced
                 "layout(binding = 0) uniform sampler2D texture_;",    # 'texture' is a function
                 "    main_fragment = texture(texture_, VOUT_texCoord.xy * IN_texture_size.xy);"]:
        assert line in lines, line


def test_collisions_temporaries_and_gl_prefix():
    lines = _glsl("fp4_named.fp")
    for line in ["layout(location = 14) in vec4 VOUT_tint;",
                 "layout(location = 0) uniform vec4 IN_pos;",      # IN.pos, first in the header
                 "layout(location = 1) uniform vec4 IN_pos_2;",    # IN_pos spells the same
                 "layout(location = 2) uniform vec4 R0;",          # the Cg name keeps its spelling
                 "layout(location = 3) uniform vec4 cg_gl_Color;",  # gl_ is reserved
                 # the temporary R0 (moved aside as R0_) is read once: written where it is read
                 "    main_fragment = (VOUT_tint * IN_pos_2 + VOUT_texCoord * IN_pos) * R0"
                 " + cg_gl_Color;"]:
        assert line in lines, line
    assert not any(line.endswith(" R0 = vec4(0);") for line in lines)
    names = [u["cg_name"] for u in _reflect("fp4_named.fp")["uniforms"]]
    assert names == ["IN.pos", "IN_pos", "R0", "gl_Color"]


def test_geometry_per_vertex_names():
    lines = _glsl("gp4_named.gp")
    assert "layout(location = 5) in vec4 texCoord[];" in lines
    assert "    in_vertex_texcoord[1][0] = texCoord[1];" in lines
    assert "layout(location = 0) uniform vec4 offset;" in lines
    r = _reflect("gp4_named.gp")
    assert [(i["name"], i.get("cg_name")) for i in r["inputs"]] == [
        ("texCoord", "texCoord"), ("gl_in[].gl_Position", "position")]


def test_glsl330_varying_block_instance_named():
    lines = _glsl("arbfp_named.fp", "glsl330")
    assert "in xl_varying5 { vec4 v; } VOUT_texCoord;" in lines
    assert "uniform sampler2D decal;" in lines


RELATIVE = """!!ARBvp1.0
#var float4 w[0] :  : c[0] : 0 : 1
#var float4 w[1] :  : c[1] : 0 : 1
#var float4 scale :  : c[2] : 1 : 1
#var float4 position : $vin.POSITION : POSITION : 2 : 1
PARAM c[3] = { program.local[0..2] };
ADDRESS A0;
ARL A0.x, vertex.position.x;
MUL result.position, c[A0.x + 1], c[2];
END
"""


def test_relatively_indexed_parameters_keep_the_array():
    """The program indexes c[] with A0: one GLSL array is what the index selects from, so its
    elements keep the array's name although w[0], w[1] and scale name them."""
    lines = translate(RELATIVE, filename="rel.vp").glsl.splitlines()
    assert "layout(location = 0) uniform vec4 program_local[3];" in lines
    assert "layout(location = 0) in vec4 position;" in lines
    assert not any("scale" in line for line in lines)


def test_unnamed_program_keeps_todays_names():
    src = "!!ARBfp1.0\nPARAM p = program.local[2];\nTEX result.color, fragment.texcoord[0], texture[1], 2D;\n" \
          "MUL result.color.x, p, fragment.texcoord[0];\nEND\n"
    lines = translate(src, filename="plain.fp").glsl.splitlines()
    assert "layout(location = 0) uniform vec4 program_local[3];" in lines
    assert "layout(binding = 1) uniform sampler2D texture1;" in lines
    assert "layout(location = 5) in vec4 fragment_texcoord_0;" in lines
    assert "cg_name" not in json.dumps(translate(src, filename="plain.fp").reflection)


@pytest.mark.parametrize("name, ident", [
    ("IN.texture_size", "IN_texture_size"), ("lights[0].color", "lights_0_color"),
    ("a__b", "a_b"), ("_x_", "x"), ("2d", "v2d"), ("$kill", "kill"), ("...", "")])
def test_identifier(name, ident):
    assert identifier(name) == ident


@pytest.mark.parametrize("ident, ok", [
    ("IN_input", True), ("input", False), ("main", False), ("texture", False), ("sampler2D", False),
    ("vec3", False), ("xl_cc0", False), ("in_color", False), ("texture0", False),
    ("program_local", False), ("texCoord", True), ("decal", True), ("samplerCube", False),
    ("texture2D", False), ("texture_size", True), ("imageBuffer", False), ("mat3x4", False)])
def test_usable(ident, ok):
    assert usable(ident) is ok


def test_alias_referenced_wins_then_header_order():
    src = ("!!ARBfp1.0\n#var sampler2D a : TEXUNIT0 : texunit 0 : 1 : 0\n"
           "#var sampler2D b : TEXUNIT0 : texunit 0 : 1 : 1\n"
           "#var sampler2D c : TEXUNIT0 : texunit 0 : 1 : 1\n"
           "TEX result.color, fragment.texcoord[0], texture[0], 2D;\nEND\n")
    assert interface_names(parse(src)).textures == {0: "b"}


@pytest.mark.parametrize("name", sorted(p.name for p in NAMED.glob("*.?p")))
def test_named_programs_verify_on_gl(name):
    from xlate.verify import verify
    rep = verify(str(NAMED / name), lanes=256, runner=gl_runner("gl"))
    assert rep.status == "pass", (rep.reason, rep.localization[:1])


CG_FOLDERS = ("vp20", "vp30", "fp30", "arbvp1", "arbfp1", "vp40", "fp40", "gp4vp", "gp4fp", "gp4gp")


@corpus_mark("cg")
def test_cgc_programs_of_every_profile_named_and_verified():
    """Two programs per cgc profile (a fixed random sample): each named thing the program uses
    is declared under its Cg name, and the translation passes `xlate verify`."""
    from xlate.verify import verify
    corpus = shared_corpus_or_skip("cg")
    runner = gl_runner("gl")
    rng = random.Random(18)
    for folder in CG_FOLDERS:
        files = sorted(p for p in (corpus / folder).iterdir() if "__noopt" not in p.name)
        for path in rng.sample(files, 2):
            t = translate(path.read_text(), filename=str(path))
            r = t.reflection
            named = [x for kind in ("inputs", "outputs", "uniforms", "textures") for x in r[kind]
                     if "cg_name" in x]
            assert named, path
            for x in named:
                if not x.get("builtin"):
                    assert x["name"].split("[")[0] in t.glsl, (path, x)
            rep = verify(str(path), lanes=256, runner=runner)
            assert rep.status == "pass", (path, rep.reason, rep.localization[:1])
