"""The independent oracle: cgc's own GLSL for the same Cg entry point, run beside xlate's
translation of cgc's NV4 assembly, on the same inputs, both on llvmpipe.

``../shared/corpus/cg`` holds, per Cg source and entry point, the ``gp4vp``/``gp4fp``
assembly (what xlate translates) and the ``glslv``/``glslf`` GLSL 1.10 cgc wrote directly
(compatibility profile built-ins).  :func:`pairs` matches them through ``MANIFEST.tsv``
(source_path + entry; every assembly variant -- default and ``__noopt`` -- pairs with the one
GLSL file).  :func:`compare_pair` runs both and compares every output the assembly's ``#var``
header names.

How one set of inputs reaches both programs:

* parameters: the ``#var`` lines of both headers name the same Cg parameter; the assembly's
  resource (``c[4]``, ``c[0], 4``) gives the PARAM element(s) and so the binding
  (``program.local[4]``) whose generated value is used; the GLSL resource
  (``_IN1._video_size1``, ``_modelViewProj[0], 4``) the uniform to set (its type from the
  Cg type: float, float2..4, float4x4 as 4 rows);
* samplers: the assembly's ``texunit n``; the GLSL sampler uniform is set to n and the same
  :class:`xlate.exec.Texture` is bound there (cgc numbers the GLSL units differently at
  times; they are the application's choice in GLSL anyway);
* vertex inputs: NVIDIA's conventional/generic aliasing, which is how cgc numbered the
  ``ATTRn`` of the assembly: gl_Vertex = attrib[0], gl_Normal = attrib[2], gl_Color =
  attrib[3], gl_SecondaryColor = attrib[4], gl_FogCoord = attrib[5], gl_MultiTexCoord<n> =
  attrib[8+n] (client arrays of a compatibility context);
* fragment inputs: ``gl_TexCoord[n]``, ``gl_Color``, ``gl_SecondaryColor`` reads are renamed
  to globals filled per pixel from NEAREST RGBA32F textures (as for xlate's translation,
  :mod:`gl`), on the same 2x2 quad layout;
* cgc names structs ``input``/``output`` (reserved words Mesa rejects): renamed ``xr_input``;
* colour clamping (``GL_CLAMP_VERTEX_COLOR`` etc., on by default in compatibility contexts)
  is turned off;
* outputs: gl_Position / gl_FrontColor / gl_FrontSecondaryColor / gl_TexCoord[n] /
  gl_PointSize / gl_FogFragCoord (transform feedback of built-in varyings) and gl_FragColor /
  gl_FragData[n] / gl_FragDepth; a killed fragment keeps a NaN sentinel.

Comparison: only the components the Cg type of each output has (a float2 TEXCOORD0 compares
x and y).  cgc's GLSL is a different translation (``dot()``, ``inversesqrt``, its own
constant folding), so values are compared with a relative tolerance (:data:`REL`) besides
exact equality; the report counts exact and tolerant matches separately.  Inputs are the
finite set (no NaN/Inf: cgc's GLSL and NV4 assembly legitimately differ there), and float
texels lie in [0, 1) as in the colour textures these programs sample (textures.UNORM_RANGE:
outside it, pow() of a texel is undefined in GLSL and NaN in the assembly).
"""
from __future__ import annotations

import csv
import ctypes as C
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from . import glapi as G
from .gl import Runner
from .capture import TextureData, quad_layout
from .glapi import GLError
from .oracle_match import ABS, REL  # the oracle's match, shared with oracle_explain
from .oracle_order import glsl_divisors
from .oracle_uninit import initialised

CG_TYPE_COMPS = {"int": 1, "bool": 1}
# Cg's float/half/fixed scalars, vectors and RxC matrices (R rows of C components: a
# half4x4 parameter is four vec4 in both profiles)
for _base in ("float", "half", "fixed"):
    CG_TYPE_COMPS[_base] = 1
    for _n in range(1, 5):
        CG_TYPE_COMPS[f"{_base}{_n}"] = _n
        for _m in range(1, 5):
            CG_TYPE_COMPS[f"{_base}{_n}x{_m}"] = _m
VERTEX_ALIASES = {"gl_Vertex": 0, "gl_Normal": 2, "gl_Color": 3, "gl_SecondaryColor": 4,
                  "gl_FogCoord": 5}
OUTPUT_BUILTINS = {"result.position": "gl_Position", "result.color": "gl_FrontColor",
                   "result.color.secondary": "gl_FrontSecondaryColor",
                   "result.pointsize": "gl_PointSize", "result.fogcoord": "gl_FogFragCoord"}
SENTINEL = 0x7FC0DEAD


@dataclass
class Var:
    type: str
    name: str
    semantic: str
    resource: str
    referenced: bool


def parse_vars(text: str, prefix: str) -> list[Var]:
    out = []
    for line in text.splitlines():
        if not line.startswith(prefix + "var "):
            continue
        parts = [p.strip() for p in line[len(prefix) + 4:].split(":")]
        if len(parts) < 5:
            continue
        tn = parts[0].split(None, 1)
        if len(tn) != 2:
            continue
        out.append(Var(tn[0], tn[1], parts[1], parts[2], parts[-1] == "1"))
    return out


def pairs(corpus: Path) -> list[tuple[Path, Path, str]]:
    """(assembly file, cgc GLSL file, stage) for every NV4 vertex/fragment program with a
    GLSL twin."""
    cg = Path(corpus) / "cg"
    rows = list(csv.DictReader(open(cg / "MANIFEST.tsv"), delimiter="\t"))
    glsl = {}
    for r in rows:
        if r["profile"] in ("glslv", "glslf"):
            glsl[(r["profile"], r["source_path"], r["entry"])] = cg / r["file"]
    out = []
    for r in rows:
        twin = {"gp4vp": "glslv", "gp4fp": "glslf"}.get(r["profile"])
        if twin is None:
            continue
        g = glsl.get((twin, r["source_path"], r["entry"]))
        if g is not None and g.is_file():
            out.append((cg / r["file"], g, "vertex" if twin == "glslv" else "fragment"))
    return sorted(out)


@dataclass
class PairResult:
    asm: str
    glsl: str
    stage: str
    status: str = "match"            # match | differ | unsupported | error
    reason: str = ""
    compared: int = 0
    exact: int = 0
    tolerant: int = 0
    differing: int = 0
    max_rel: float = 0.0             # largest relative difference among the differing values
    examples: list = field(default_factory=list)
    # differing components by symptom (see cause()): one side non-finite, the other finite;
    # a relative difference up to SMALL; larger
    nonfinite: int = 0
    small: int = 0
    large: int = 0
    kill: int = 0                    # lanes killed on one side only
    textures: bool = False           # the program samples textures
    cause: str = ""                  # differ only: cause()
    #: differ only, with ``explain``: the shown explanation (oracle_explain.Explanation.to_json)
    explanation: dict | None = None
    #: fragment: struct varyings cgc's GLSL declares as plain globals, written by the harness
    #: ("_VOUT1._maskFade1 <- fragment.attrib[0]")
    fed: list = field(default_factory=list)
    #: what the comparison ran (PairRun), kept for the explanation; not reported
    run: object = field(default=None, repr=False, compare=False)

    def to_json(self) -> dict:
        d = dict(self.__dict__)
        d.pop("run", None)
        if d["explanation"] is None:
            d.pop("explanation")
        return d


@dataclass
class PairRun:
    """What one comparison ran, for :mod:`oracle_explain`: the parsed assembly, its analysis,
    the generated inputs, xlate's capture ``cap`` and cgc's outputs ``theirs`` (binding ->
    (lanes, 4) words), cgc's kill mask (fragment; None for vertex), and the compared outputs:
    (binding, xlate's output name, components); ``divisors``: the literals cgc's GLSL divides
    by (:func:`oracle_order.glsl_divisors`); ``translation``: what was found about xlate's
    translation against the executor (:func:`oracle_translation.judge_translation`'s replay),
    which depends on neither cgc's outputs nor the lanes judged -- shared by the copies of
    the run (the initialised twin's, a test's with cgc's outputs changed), found once."""
    program: object
    facts: object
    out: object
    gen: object
    lanes: int
    cap: object
    theirs: dict
    killed: object
    compared: list
    divisors: frozenset = frozenset()
    translation: dict = field(default_factory=dict)




#: a relative difference up to this is the arithmetic of two independent compilations (cgc's
#: GLSL folds and orders operations its own way: dot() vs DP3, inversesqrt, x/y vs x*(1/y))
SMALL = 2.0 ** -6


def cause(r: PairResult) -> str:
    """Why a pair differs, from the symptoms of its differing components (a classification of
    the evidence, not a proof; diffcheck prints it with the counts):

    * ``kill``: a fragment is discarded by one program only (a decision taken on values the two
      compilations round differently);
    * ``nonfinite``: values NaN/Inf on one side and finite on the other (any other difference
      within SMALL): an
      operation the NV assembly defines for these inputs (POW/LG2/RSQ/RCP of a negative or
      zero, NV_gpu_program4 2.X.8) and GLSL leaves undefined (GLSL 1.10 section 8);
    * ``precision``: every other difference is within SMALL relative -- rounding and operation
      order of two compilations, amplified by a few operations past REL;
    * ``decision``: some value differs by more: a comparison, a branch, a floor() or a texel
      selection came out the other way on near-equal values (with ``textures``: the texture
      coordinate or LOD straddled a texel or mip boundary).
    """
    if r.kill:
        return "kill"
    if r.nonfinite and not r.large:
        return "nonfinite"
    if not r.large:
        return "precision"
    return "decision (textures)" if r.textures else "decision"


class CompatRunner(Runner):
    """Runs cgc's GLSL 1.10 on a compatibility-profile context (same helpers as Runner)."""

    def __init__(self):
        self.precise = False
        self.backend = "gl-compat"
        self.gl = G.context("compat")
        self._objects = []
        self._tex = ({}, set())
        # compatibility contexts clamp gl_FrontColor & co. to [0, 1] by default
        for what in (G.GL_CLAMP_VERTEX_COLOR, G.GL_CLAMP_FRAGMENT_COLOR, G.GL_CLAMP_READ_COLOR):
            self.gl.ClampColor(what, G.GL_NONE)

    def use(self):
        self.gl.use()

    def _uniforms(self, prog: int, values: list[tuple[str, str, np.ndarray]]) -> None:
        gl = self.gl
        gl.UseProgram(prog)
        for name, kind, data in values:
            loc = gl.GetUniformLocation(prog, name.encode())
            if loc < 0:
                continue
            d = np.ascontiguousarray(data)
            if kind == "sampler":
                gl.Uniform1i(loc, int(np.asarray(data).ravel()[0]))
            elif kind.startswith("int"):
                # an int parameter: the assembly reads its words as a signed integer (I2F.S
                # c[8].x), the GLSL an int uniform set from the same words
                n = int(kind[3:] or 1)
                fn = {1: gl.Uniform1iv, 2: gl.Uniform2iv, 3: gl.Uniform3iv, 4: gl.Uniform4iv}[n]
                f = np.ascontiguousarray(d.reshape(-1, 4)[:, :n], np.uint32)
                fn(loc, f.shape[0], f.ctypes.data_as(C.c_void_p))
            else:
                n = {"float": 1, "vec2": 2, "vec3": 3, "vec4": 4}[kind]
                fn = {1: gl.Uniform1fv, 2: gl.Uniform2fv, 3: gl.Uniform3fv, 4: gl.Uniform4fv}[n]
                f = np.ascontiguousarray(d.reshape(-1, 4)[:, :n], np.uint32)
                fn(loc, f.shape[0], f.ctypes.data_as(C.c_void_p))
        gl.UseProgram(0)

    def run_vertex(self, src: str, lanes: int, attribs: dict[int, np.ndarray],
                   texcoords: dict[int, np.ndarray], captures: list[str], uniforms, textures):
        gl = self.gl
        self.use()
        try:
            sh = gl.compile_glsl(G.GL_VERTEX_SHADER, src)
            prog = gl.link([sh], varyings=captures, attribs={})
            self._objects.append(("program", prog))
            self._dummy_fbo()
            gl.BindVertexArray(0)
            gl.check("compat setup")
            enabled = []

            def buf(words):
                w = np.ascontiguousarray(words, np.uint32).reshape(-1, 4)
                b = self._buffer(G.GL_ARRAY_BUFFER, w.tobytes())
                gl.BindBuffer(G.GL_ARRAY_BUFFER, b)

            for idx, words in attribs.items():
                buf(words)
                if idx == 0:
                    gl.VertexPointer(4, G.GL_FLOAT, 16, None)
                    gl.EnableClientState(G.GL_VERTEX_ARRAY)
                    enabled.append(G.GL_VERTEX_ARRAY)
                elif idx == 2:
                    gl.NormalPointer(G.GL_FLOAT, 16, None)
                    gl.EnableClientState(G.GL_NORMAL_ARRAY)
                    enabled.append(G.GL_NORMAL_ARRAY)
                elif idx == 3:
                    gl.ColorPointer(4, G.GL_FLOAT, 16, None)
                    gl.EnableClientState(G.GL_COLOR_ARRAY)
                    enabled.append(G.GL_COLOR_ARRAY)
                elif idx == 4:
                    gl.SecondaryColorPointer(3, G.GL_FLOAT, 16, None)
                    gl.EnableClientState(G.GL_SECONDARY_COLOR_ARRAY)
                    enabled.append(G.GL_SECONDARY_COLOR_ARRAY)
                elif idx == 5:
                    gl.FogCoordPointer(G.GL_FLOAT, 16, None)
                    gl.EnableClientState(G.GL_FOG_COORD_ARRAY)
                    enabled.append(G.GL_FOG_COORD_ARRAY)
            for unit, words in texcoords.items():
                buf(words)
                gl.ClientActiveTexture(G.GL_TEXTURE0 + unit)
                gl.TexCoordPointer(4, G.GL_FLOAT, 16, None)
                gl.EnableClientState(G.GL_TEXTURE_COORD_ARRAY)
            gl.ClientActiveTexture(G.GL_TEXTURE0)
            self._uniforms(prog, uniforms)
            for unit, (tex, shadow) in textures.items():
                self._exec_texture(unit, tex, shadow)
            sizes = [1 if c in ("gl_PointSize", "gl_FogFragCoord") else 4 for c in captures]
            stride = 4 * sum(sizes)
            out = self._buffer(G.GL_TRANSFORM_FEEDBACK_BUFFER, None, lanes * stride)
            gl.BindBufferBase(G.GL_TRANSFORM_FEEDBACK_BUFFER, 0, out)
            gl.UseProgram(prog)
            gl.Enable(G.GL_RASTERIZER_DISCARD)
            gl.BeginTransformFeedback(G.GL_POINTS)
            gl.DrawArrays(G.GL_POINTS, 0, lanes)
            gl.EndTransformFeedback()
            gl.Disable(G.GL_RASTERIZER_DISCARD)
            gl.check("compat vertex draw")
            raw = np.frombuffer(self._read_buffer(G.GL_TRANSFORM_FEEDBACK_BUFFER, out,
                                                  lanes * stride), np.uint32).reshape(lanes, -1)
            res, at = {}, 0
            for name, n in zip(captures, sizes):
                v = np.zeros((lanes, 4), np.uint32)
                v[:, :n] = raw[:, at:at + n]
                res[name] = v
                at += n
            for cap in enabled:
                gl.DisableClientState(cap)
            for unit in texcoords:
                gl.ClientActiveTexture(G.GL_TEXTURE0 + unit)
                gl.DisableClientState(G.GL_TEXTURE_COORD_ARRAY)
            gl.ClientActiveTexture(G.GL_TEXTURE0)
            return res
        finally:
            self._cleanup()

    def run_fragment(self, src: str, lanes: int, feeds: dict[str, np.ndarray],
                     outputs: list[int], uniforms, textures, prologue: tuple = ()):
        """``feeds``: replacement global name -> (lanes, 4) words; ``outputs``: colour
        attachment indices to read; ``prologue``: statements run at the start of main(), after
        the feeds are read.  Returns ({attachment: words}, killed)."""
        gl = self.gl
        self.use()
        x, y, W, H = quad_layout(lanes)
        try:
            names = sorted(feeds)
            decl = []
            fetch = []
            for k, name in enumerate(names):
                unit = 31 - k
                decl.append(f"uniform sampler2D xv_in{unit};\nvec4 {name};")
                fetch.append(f"{name} = texture2D(xv_in{unit}, (floor(gl_FragCoord.xy) + 0.5) / "
                             f"vec2({W}.0, {H}.0));")
            m = re.search(r"void main\(\)\s*\{", src)
            if m is None:
                raise GLError("cgc GLSL without main()")
            body = src[:m.end()] + "\n" + "\n".join(fetch + list(prologue)) + "\n" + \
                src[m.end():]
            lines = body.split("\n")
            at = next(i for i, ln in enumerate(lines) if ln.startswith("#version")) + 1
            if "texture2DLod" in body or "texture2DProjLod" in body:
                # cgc uses the lod lookups in fragment shaders (NVIDIA allows them in 1.10)
                lines.insert(at, "#extension GL_ARB_shader_texture_lod : enable")
            # after the shader's own #extension lines (blank lines may come between)
            while at < len(lines) and (lines[at].startswith("#extension") or
                                       not lines[at].strip()):
                at += 1
            text = "\n".join(lines[:at] + decl + lines[at:])
            vs = "#version 110\nvoid main()\n{\n    gl_Position = gl_Vertex;\n}\n"
            prog = gl.link([gl.compile_glsl(G.GL_VERTEX_SHADER, vs),
                            gl.compile_glsl(G.GL_FRAGMENT_SHADER, text)])
            self._objects.append(("program", prog))
            fbo = gl.gen(gl.GenFramebuffers)
            self._objects.append(("fbo", fbo))
            gl.BindFramebuffer(G.GL_FRAMEBUFFER, fbo)
            gl.ActiveTexture(G.GL_TEXTURE0)
            texs = {}
            for att in outputs:
                tex = gl.gen(gl.GenTextures)
                self._objects.append(("texture", tex))
                gl.BindTexture(G.GL_TEXTURE_2D, tex)
                gl.TexImage2D(G.GL_TEXTURE_2D, 0, G.GL_RGBA32F, W, H, 0, G.GL_RGBA, G.GL_FLOAT, None)
                gl.TexParameteri(G.GL_TEXTURE_2D, G.GL_TEXTURE_MIN_FILTER, G.GL_NEAREST)
                gl.TexParameteri(G.GL_TEXTURE_2D, G.GL_TEXTURE_MAG_FILTER, G.GL_NEAREST)
                gl.FramebufferTexture2D(G.GL_FRAMEBUFFER, G.GL_COLOR_ATTACHMENT0 + att,
                                        G.GL_TEXTURE_2D, tex, 0)
                texs[att] = tex
            n = max(outputs) + 1
            draw = [G.GL_COLOR_ATTACHMENT0 + i if i in texs else G.GL_NONE for i in range(n)]
            gl.DrawBuffers(n, (C.c_uint * n)(*draw))
            if gl.CheckFramebufferStatus(G.GL_FRAMEBUFFER) != G.GL_FRAMEBUFFER_COMPLETE:
                raise GLError("compat framebuffer incomplete")
            sentinel = np.array([SENTINEL] * 4, np.uint32).view(np.float32)
            for att in outputs:
                gl.ClearBufferfv(G.GL_COLOR, att, sentinel.ctypes.data_as(G.PF))
            for k, name in enumerate(names):
                img = np.zeros((H, W, 4), np.uint32)
                img[y, x] = np.asarray(feeds[name], np.uint32).reshape(lanes, 4)
                self._texture(TextureData(31 - k, "2D", [img]))
            self._uniforms(prog, uniforms + [(f"xv_in{31 - k}", "sampler", np.array(31 - k))
                                             for k in range(len(names))])
            for unit, (tex, shadow) in textures.items():
                self._exec_texture(unit, tex, shadow)
            tri = np.array([[-1, -1, 0, 1], [3, -1, 0, 1], [-1, 3, 0, 1]], np.float32)
            b = self._buffer(G.GL_ARRAY_BUFFER, tri.tobytes())
            gl.BindVertexArray(0)
            gl.BindBuffer(G.GL_ARRAY_BUFFER, b)
            gl.VertexPointer(4, G.GL_FLOAT, 16, None)
            gl.EnableClientState(G.GL_VERTEX_ARRAY)
            gl.Viewport(0, 0, W, H)
            gl.UseProgram(prog)
            gl.DrawArrays(G.GL_TRIANGLES, 0, 3)
            gl.DisableClientState(G.GL_VERTEX_ARRAY)
            gl.check("compat fragment draw")
            res = {}
            for att, tex in texs.items():
                img = np.zeros((H, W, 4), np.uint32)
                gl.BindTexture(G.GL_TEXTURE_2D, tex)
                gl.GetTexImage(G.GL_TEXTURE_2D, 0, G.GL_RGBA, G.GL_FLOAT,
                               img.ctypes.data_as(C.c_void_p))
                res[att] = img[y, x]
            killed = np.all(res[outputs[0]] == SENTINEL, axis=1)
            return res, killed
        finally:
            self._cleanup()


def _param_sources(program, gen, var: Var) -> np.ndarray | None:
    """The generated words of an assembly #var resource ``c[4]`` / ``c[0], 4``."""
    m = re.fullmatch(r"(\w+)\[(\d+)\](?:,\s*(\d+))?", var.resource.strip())
    if m is None:
        return None
    reg = program.registers.get(m.group(1))
    if reg is None:
        return None
    start, count = int(m.group(2)), int(m.group(3) or 1)
    rows = []
    for e in range(start, start + count):
        if e >= len(reg.bindings):
            return None
        b = reg.bindings[e]
        if b is None:
            if reg.value is None:
                return None
            rows.append(np.array(reg.value[min(e, len(reg.value) - 1)], np.uint32))
        else:
            v = gen.params.get(b.text())
            if v is None:
                return None
            rows.append(np.asarray(v, np.uint32))
    return np.stack(rows)


def compare_pair(asm_path, glsl_path, stage: str, *, lanes: int = 256, seed: int = 1,
                 runner: Runner | None = None, compat: CompatRunner | None = None,
                 transpose: bool | None = None, explain: bool = False) -> PairResult:
    """Compare one pair.  Matrix parameters: cgc stores a float4x4 as 4 vec4 in both profiles,
    but for some programs (``mul(v, M)``) one profile's vectors are the other's transposed;
    with ``transpose=None`` a pair that differs is retried with the GLSL matrices transposed
    and reported as matching if that makes them agree (``reason`` says so).

    ``explain``: a differing pair gets :func:`oracle_explain.explain` (per-instruction
    localization on the assembly side and shown verdicts) in ``explanation``."""
    runner = runner or Runner("gl")
    compat = compat or CompatRunner()
    res = _compare_pair(asm_path, glsl_path, stage, lanes=lanes, seed=seed, runner=runner,
                        compat=compat, transpose=bool(transpose))
    if transpose is None and res.status == "differ" and res.reason == "has-matrix":
        res2 = _compare_pair(asm_path, glsl_path, stage, lanes=lanes, seed=seed, runner=runner,
                             compat=compat, transpose=True)
        if res2.status == "match":
            res2.reason = "matrix parameters transposed between the two profiles"
            return res2
    if res.reason == "has-matrix":
        res.reason = ""
    if explain and res.status == "differ" and res.run is not None:
        from .oracle_explain import explain as explain_pair
        twin = None
        if initialised(Path(glsl_path).read_text(encoding="latin-1"))[1]:
            # cgc's GLSL declares variables without initialisers: its initialised twin
            # (oracle_uninit) shows which lanes read an undefined value
            twin = _compare_pair(asm_path, glsl_path, stage, lanes=lanes, seed=seed,
                                 runner=runner, compat=compat,
                                 transpose=bool(transpose),
                                 rewrite=lambda text: initialised(text)[0])
            if twin.run is None:
                twin = None
        res.explanation = explain_pair(res.run, runner, compat,
                                       twin=twin.run if twin else None).to_json()
    return res


def _compare_pair(asm_path, glsl_path, stage: str, *, lanes: int, seed: int, runner, compat,
                  transpose: bool, rewrite=None) -> PairResult:
    from ..backends.glsl import emit_glsl
    from ..diagnostics import XlateError
    from ..frontends import parse_program
    from . import compare as cmp
    from .analysis import analyse
    from .draw_run import builtin_values_for, run_gl, textures_supported
    from .inputs import generate
    res = PairResult(str(asm_path), str(glsl_path), stage)
    asm = Path(asm_path).read_text(encoding="latin-1")
    glsl = Path(glsl_path).read_text(encoding="latin-1")
    if rewrite is not None:                  # the initialised twin (oracle_uninit)
        glsl = rewrite(glsl)
    # cgc names structs after GLSL reserved words (NVIDIA's compiler accepts them; Mesa
    # rejects 'input'/'output'): rename those identifiers
    code_start = glsl.find("#version")
    glsl = glsl[:code_start] + re.sub(r"\b(input|output|filter|sample|active|common)\b",
                                      r"xr_\1", glsl[code_start:])
    try:
        program = parse_program(asm, str(asm_path))
        out = emit_glsl(program, "glsl450")
    except XlateError as e:
        res.status, res.reason = "unsupported", "xlate: " + e.diagnostics[0].message
        return res
    facts = analyse(program, set(cmp.INEXACT))
    if facts.uses_textures and not textures_supported():
        res.status, res.reason = "unsupported", "textures (executor)"
        return res
    runner = runner or Runner("gl")
    compat = compat or CompatRunner()
    if stage == "fragment":
        lanes = (lanes + 3) // 4 * 4
    xy = None
    if stage == "fragment":
        x, y, _, _ = quad_layout(lanes)
        xy = (x.astype(np.float32), y.astype(np.float32))
    gen = generate(program, facts, lanes, seed, finite=True,
                   builtin_values=builtin_values_for(program.stage, lanes, xy))
    if facts.uses_textures:
        from .textures import UNORM_RANGE, generate_textures, shadow_units
        gen.textures = generate_textures(program, seed, UNORM_RANGE)
        gen.shadow = shadow_units(program)
    # parameters and samplers through the two #var headers
    # a name may appear twice (a CgFX program parameter and the global it binds): keep the
    # referenced entry
    avars, gvars = {}, {}
    for table, text, prefix in ((avars, asm, "#"), (gvars, glsl, "//")):
        for v in parse_vars(text, prefix):
            if v.name not in table or (v.referenced and not table[v.name].referenced):
                table[v.name] = v
    uniforms = []
    has_matrix = False
    for name, gv in gvars.items():
        av = avars.get(name)
        if not gv.referenced or not gv.resource or av is None or not av.resource or \
                not av.referenced:
            continue
        if gv.type.startswith("sampler"):
            # the GLSL sampler is set to the assembly's texture unit (cgc's unit numbers for
            # the two profiles need not agree; GLSL sampler units are the application's)
            gm = re.fullmatch(r"([\w.\[\]]+)(?:\s+(\d+))?", gv.resource)
            am = re.fullmatch(r"texunit\s+(\d+)", av.resource)
            if gm is None or am is None:
                res.status, res.reason = "unsupported", f"sampler {name} ({gv.resource})"
                return res
            uniforms.append((gm.group(1), "sampler", np.array(int(am.group(1)))))
            continue
        attr = re.fullmatch(r"ATTR(\d+)", av.resource.strip())
        if attr and stage == "vertex" and re.fullmatch(r"[\w.]+(?:\[\d+\])?", gv.resource) \
                and not gv.resource.startswith(("gl_", "ATTR")):
            # a varying input of a struct: the assembly reads vertex attribute n, cgc's GLSL 1.10
            # (which has no struct attributes) a uniform of the same name.  Both see the same
            # values when the attribute holds one value for every vertex: lane 0's, which the
            # uniform gets too.
            key = f"vertex.attrib[{attr.group(1)}]"
            if key not in gen.inputs:
                continue
            gen.inputs[key][:] = gen.inputs[key][0]
            n = CG_TYPE_COMPS.get(gv.type)
            if n is None or "x" in gv.type:
                res.status, res.reason = "unsupported", f"attribute-uniform {name} ({gv.type})"
                return res
            kind = {1: "float", 2: "vec2", 3: "vec3", 4: "vec4"}[n]
            uniforms.append((gv.resource, kind, np.array(gen.inputs[key][0:1], np.uint32)))
            continue
        if gv.resource.startswith("$") or gv.semantic.startswith("$"):
            continue
        words = _param_sources(program, gen, av)
        if words is None:
            res.status, res.reason = "unsupported", f"parameter {name} ({av.resource})"
            return res
        gm = re.fullmatch(r"([\w.]+)(?:\[(\d+)\])?(?:,\s*(\d+))?", gv.resource)
        if gm is None:
            res.status, res.reason = "unsupported", f"uniform {gv.resource}"
            return res
        n = CG_TYPE_COMPS.get(gv.type)
        if n is None:
            res.status, res.reason = "unsupported", f"Cg type {gv.type}"
            return res
        # a floatRxC is R rows of vecC in both profiles (``uniform vec3 _RGB_to_YIQ[3]``)
        kind = {1: "float", 2: "vec2", 3: "vec3", 4: "vec4"}[n]
        if re.fullmatch(r"int[1-4]?", gv.type):
            kind = f"int{n}"
        uname = gm.group(1) + (f"[{gm.group(2)}]" if gm.group(2) is not None else "")
        if "x" in gv.type:
            has_matrix = True
            if transpose and words.shape[0] == 4:
                words = np.ascontiguousarray(words.T)
        uniforms.append((uname, kind, words))
    textures = {u: (t, u in gen.shadow) for u, t in gen.textures.items()}
    # xlate's translation
    try:
        cap = run_gl(runner, program, out.source, out.reflection, gen, lanes)
    except GLError as e:
        res.status, res.reason = "error", f"xlate translation on GL: {e}"
        return res
    # cgc's GLSL
    try:
        if stage == "vertex":
            attribs = {}
            texcoords = {}
            for key, v in gen.inputs.items():
                m = re.fullmatch(r"vertex\.attrib\[(\d+)\]", key)
                if m is None:
                    continue
                i = int(m.group(1))
                if i in (0, 2, 3, 4, 5):
                    attribs[i] = v
                elif 8 <= i < 16:
                    texcoords[i - 8] = v
            captures, bind_of = [], {}
            for o in out.reflection["outputs"]:
                b = o["binding"]
                name = OUTPUT_BUILTINS.get(b)
                mt = re.fullmatch(r"result\.texcoord\[(\d+)\]", b)
                if mt:
                    name = f"gl_TexCoord[{mt.group(1)}]"
                if name is None or (name.split("[")[0] not in glsl):
                    continue
                captures.append(name)
                bind_of[name] = b
            got = compat.run_vertex(glsl, lanes, attribs, texcoords, captures, uniforms, textures)
            theirs = {bind_of[k]: v for k, v in got.items()}
            killed = None
        else:
            feeds = {}
            text = glsl
            for key, v in gen.inputs.items():
                mt = re.fullmatch(r"fragment\.texcoord\[(\d+)\]", key)
                if mt:
                    feeds[f"xv_TexCoord{mt.group(1)}"] = v
                elif key == "fragment.color":
                    feeds["xv_Color"] = v
                elif key == "fragment.color.secondary":
                    feeds["xv_SecondaryColor"] = v
            prologue = []
            for name, gv in gvars.items():
                av = avars.get(name)
                attr = re.fullmatch(r"ATTR(\d+)", av.resource.strip()) if av else None
                if attr is None or not gv.referenced or not av.referenced or \
                        not gv.semantic.startswith("$vin._") or \
                        not re.fullmatch(r"[A-Za-z_]\w*(?:\.\w+)*", gv.resource):
                    continue
                if "." not in gv.resource:
                    # a user varying (cgc declares ``varying float _colorPhase1;``, which
                    # nothing upstream writes here): a plain global the prologue sets
                    text, n_decl = re.subn(rf"^varying\s+(\w+\s+{gv.resource}\s*;)", r"\1",
                                           text, flags=re.M)
                    if not n_decl:
                        continue
                # a varying member of a struct: GLSL 1.10 has no struct varyings, and cgc
                # declares the struct a plain global nothing writes (its $vin semantic says it
                # is the fragment input ATTRn): the harness writes the global at the start of
                # main() from the values fragment.attrib[n] has in the assembly -- the
                # application's varying, as gl_TexCoord[n] is fed
                v = gen.inputs.get(f"fragment.attrib[{attr.group(1)}]")
                n = CG_TYPE_COMPS.get(gv.type)
                if v is None or n is None or "x" in gv.type:
                    res.status, res.reason = "unsupported", f"varying {name} ({gv.type})"
                    return res
                feeds[f"xv_Attr{attr.group(1)}"] = v
                prologue.append(f"{gv.resource} = xv_Attr{attr.group(1)}.{'xyzw'[:n]};")
                res.fed.append(f"{gv.resource} <- fragment.attrib[{attr.group(1)}]")
            text = re.sub(r"gl_TexCoord\[(\d+)\]", r"xv_TexCoord\1", text)
            text = text.replace("gl_SecondaryColor", "xv_SecondaryColor").replace("gl_Color",
                                                                                    "xv_Color")
            for name in re.findall(r"\bxv_(?:TexCoord\d+|Color|SecondaryColor)\b", text):
                if name not in feeds:
                    feeds[name] = np.zeros((lanes, 4), np.uint32)
            atts = sorted({int(a) for a in re.findall(r"gl_FragData\[(\d+)\]", text)}) or [0]
            got, killed = compat.run_fragment(text, lanes, feeds, atts, uniforms, textures,
                                              tuple(prologue))
            theirs = {("result.color" if a == 0 else f"result.color[{a}]"): v
                      for a, v in got.items()}
    except (GLError, StopIteration) as e:
        res.status, res.reason = "error", f"cgc GLSL on GL: {e}"
        m = re.search(r"error: `(\w+)' undeclared", str(e))
        if m and re.search(rf"\b{m.group(1)}\b", glsl) and \
                not re.search(rf"^\s*(?:uniform\s+)?\w+\s+{m.group(1)}\s*[;\[]", glsl, re.M):
            # cgc's own defect, shown by the compiler: its GLSL reads a struct (samplers of a
            # pass-input struct such as ``_ORIG._texture``) that it never declares
            res.status = "cgc-defect"
            res.reason = f"cgc's GLSL uses {m.group(1)} without declaring it (the GLSL " \
                         f"compiler: `{m.group(1)}' undeclared)"
        elif "sampler variables may only be declared as function parameters or uniform" \
                in str(e) and re.search(r"^sampler\w*\s+\w+\s*;", glsl, re.M):
            # cgc declares sampler temporaries as plain globals (``sampler2D _TMP70;``),
            # which GLSL 1.10 §4.1.7 forbids ("samplers ... can only be declared as function
            # parameters or uniforms")
            res.status = "cgc-defect"
            res.reason = "cgc's GLSL declares a sampler as a plain global (GLSL 1.10 " \
                         "§4.1.7: samplers are uniforms or function parameters only)"
        return res
    # compare the outputs the assembly header declares
    out_types = {}
    for v in avars.values():
        sem = v.semantic
        if not sem.startswith("$vout."):
            continue
        out_types[re.sub(r"\[0\]$", "", v.resource.strip())] = CG_TYPE_COMPS.get(v.type, 4)
    resource_binding = {"HPOS": "result.position", "COL0": "result.color", "COL": "result.color",
                        "COL1": "result.color.secondary", "PSIZ": "result.pointsize",
                        "FOGC": "result.fogcoord"}
    for i in range(8):
        resource_binding[f"TEX{i}"] = f"result.texcoord[{i}]"
    for i in range(1, 8):
        resource_binding[f"COL{i}"] = f"result.color[{i}]"
    by_binding = {o["binding"]: o["name"] for o in out.reflection["outputs"]}
    compared = []
    res.run = PairRun(program, facts, out, gen, lanes, cap, theirs, killed, compared,
                      glsl_divisors(glsl))
    active = np.ones(lanes, bool) if killed is None else ~(killed | cap.killed)
    if killed is not None and np.any(killed != cap.killed):
        res.kill = int(np.sum(killed != cap.killed))
        res.differing += int(np.sum(killed != cap.killed))
        res.examples.append(f"kill differs on {int(np.sum(killed != cap.killed))} lanes")
    for resource, ncomp in out_types.items():
        b = resource_binding.get(resource)
        if b is None:
            continue
        mine = cap.outputs.get(by_binding.get(b) or by_binding.get(b + "[0]")
                               or by_binding.get(b.replace("[0]", "")) or "")
        other = theirs.get(b) if b in theirs else theirs.get(b + "[0]") if b == "result.color" \
            else theirs.get(b)
        if mine is None or other is None:
            continue
        comps = range(1 if b in ("result.pointsize", "result.fogcoord") else ncomp)
        compared.append((b, by_binding.get(b) or by_binding.get(b + "[0]")
                         or by_binding.get(b.replace("[0]", "")), tuple(comps)))
        for c in comps:
            e, g = mine[active, c], other[active, c]
            exact = cmp.float_equal(e, g)
            ef, gf = cmp.flush(e).view(np.float32), cmp.flush(g).view(np.float32)
            with np.errstate(all="ignore"):
                near = exact | (np.abs(ef.astype(np.float64) - gf) <=
                                np.maximum(ABS, REL * np.maximum(np.abs(ef), np.abs(gf))))
            res.compared += int(exact.size)
            res.exact += int(exact.sum())
            res.tolerant += int((near & ~exact).sum())
            bad = np.nonzero(~near)[0]
            res.differing += int(bad.size)
            if bad.size:
                with np.errstate(all="ignore"):
                    rel = np.abs(ef[bad].astype(np.float64) - gf[bad]) / np.maximum(
                        np.abs(ef[bad]), np.abs(gf[bad])).astype(np.float64)
                one_nonfinite = np.isfinite(ef[bad]) != np.isfinite(gf[bad])
                res.nonfinite += int(one_nonfinite.sum())
                finite = np.isfinite(rel) & ~one_nonfinite
                res.small += int((finite & (rel <= SMALL)).sum())
                res.large += int(bad.size - one_nonfinite.sum() - (finite & (rel <= SMALL)).sum())
                rel = rel[np.isfinite(rel)]
                if rel.size:
                    res.max_rel = max(res.max_rel, float(rel.max()))
                else:
                    res.max_rel = float("inf")
            if bad.size and len(res.examples) < 4:
                i = bad[0]
                res.examples.append(f"{b}.{'xyzw'[c]}: xlate {float(ef[i])!r}, cgc {float(gf[i])!r}")
    if not res.compared:
        res.status, res.reason = "unsupported", "no output to compare"
        if killed is not None and killed.all() and cap.killed.all():
            # both programs discard every fragment on these inputs: they agree, but on
            # nothing that tests their arithmetic -- not counted as a match
            res.reason = "every fragment discarded by both programs (no output to compare)"
    elif res.differing:
        res.status = "differ"
        res.textures = bool(gen.textures)
        res.cause = cause(res)
        if has_matrix and not transpose:
            res.reason = "has-matrix"
    return res
