"""Run a translated shader on OpenGL (Mesa llvmpipe through EGL) and capture every output.

Backends: ``gl`` compiles the generated GLSL with the driver; ``gl-spirv`` compiles the *same*
GLSL text with glslang (``xlate.backends.spirv.compile_glsl(..., target="opengl")``) and loads
the module through ``GL_ARB_gl_spirv``.  A program object cannot mix GLSL and SPIR-V shaders,
so the harness's own helper shaders go the same way.  ``vulkan`` is :mod:`xlate.verify.vulkan`,
which makes the same edits (the functions below) to the vulkan-profile translation.

The harness edits the generated GLSL text -- only its *interface*, never the code in between
-- so that every value can be read back exactly.  All edits are listed here:

Vertex programs (transform feedback, rasterizer discard, one point per lane, vertex id =
lane):
  * every user output declaration gets ``xfb_buffer``/``xfb_offset`` qualifiers (outputs are
    spread over up to 4 interleaved buffers of at most 64 components each);
  * built-in outputs (``gl_Position``, ``gl_PointSize``, ``gl_ClipDistance[n]``, ``gl_Layer``,
    ``gl_PrimitiveID``) are copied at the end of ``main`` into extra ``xv_b_*`` outputs on
    free locations, which are captured like user outputs (Mesa 22.3's GLSL compiler ignores
    ``xfb_offset`` on a redeclared ``gl_PerVertex`` member, and gl_Layer cannot be captured).
  Transform feedback through ``xfb_*`` qualifiers (not ``glTransformFeedbackVaryings``) works
  the same for GLSL and SPIR-V, so both backends run identical text.

Geometry programs (transform feedback of the emitted vertices):
  * outputs as for vertex programs (built-ins copied before every ``EmitVertex()``), plus an
    extra ``flat out int xv_prim`` set to ``gl_PrimitiveIDIn`` before every ``EmitVertex()`` -- each captured vertex is tagged with
    the input primitive (= executor lane) that emitted it;
  * a pass-through vertex shader written by the harness feeds each input location (same
    qualifiers and type) and ``gl_Position``/``gl_PointSize``/``gl_ClipDistance`` from
    attributes; one input primitive per lane, vertex ``v`` of lane ``l`` is vertex
    ``l*V + v`` of the draw.
  Transform feedback records strips as independent primitives; :func:`strip_primitives`
  models that for the executor's strips.

Fragment programs (one fullscreen triangle into RGBA32F/RGBA32I targets):
  * every ``in`` declaration becomes a plain global, filled at the start of ``main`` by
    ``texelFetch(xv_in<k>, ivec2(gl_FragCoord.xy), 0)`` from an RGBA32F (RGBA32I for integer
    inputs) texture holding each pixel's value.  Values arrive bit-exact whatever the
    interpolation qualifier, and a 2x2 quad of pixels runs together, so derivatives (DDX/DDY,
    implicit texture LOD) see the same neighbours as the executor: lane ``4k+j`` is pixel
    ``(2*qx + (j&1), 2*qy + (j>>1))`` of quad ``k = qy*(W/2) + qx``;
  * ``result.color[n]`` goes to colour attachment ``n`` (RGBA32F, or RGBA32I for ``ivec4``);
  * an extra output ``xv_extra`` on a free attachment receives ``vec4(gl_FragDepth (or 0),
    1.0, 0, 0)`` at the end of ``main``: the attachment is cleared to zero, so ``y == 0``
    marks a killed (discarded) fragment, and ``x`` is the depth the shader wrote;
  * ``gl_FragCoord`` is (x + 0.5, y + 0.5, 0.5, 1.0); ``gl_FrontFacing`` is true;
    ``gl_PrimitiveID`` is 0 (one triangle).

``Runner(precise=True)`` additionally passes every shader through :func:`make_precise`.
"""
from __future__ import annotations

import ctypes as C
import re
from dataclasses import dataclass, field

import numpy as np

from . import glapi as G
from .glapi import GLError, GLUnavailable

BACKENDS = ("gl", "gl-spirv", "vulkan", "native")
BUFFER_COMPONENTS = 64          # GL_MAX_TRANSFORM_FEEDBACK_INTERLEAVED_COMPONENTS on llvmpipe
MAX_XFB_BUFFERS = 4
FRAG_WIDTH = 64
INPUT_TEXTURE_BASE = 31         # harness input textures take units 31, 30, ... downwards

_OUT_DECL = re.compile(r"^layout\(location = (\d+)\) ((?:\w+ )*)out (\w+) (\w+);$", re.M)
_IN_DECL = re.compile(r"^layout\(location = (\d+)\) ((?:\w+ )*)in (\w+) (\w+)(\[\])?;$", re.M)


@dataclass
class Capture:
    """What the implementation produced.

    ``outputs``: GLSL output name (as in the reflection) -> (lanes, 4) uint32 words; scalar
    built-ins fill the component their binding uses (``gl_PointSize`` x, ``gl_FragDepth`` z).
    ``killed``: fragment programs, (lanes,) bool.  ``primitives``: geometry programs, per lane
    the list of captured primitives, each a list of vertices {output name: (4,) words}.
    """

    outputs: dict[str, np.ndarray] = field(default_factory=dict)
    killed: np.ndarray | None = None
    primitives: list | None = None
    glsl: str = ""                                 # the shader text actually run


@dataclass
class TextureData:
    """A texture to bind for the translated shader (unit -> data and sampler state)."""

    unit: int
    target: str
    levels: list[np.ndarray]
    integer: str | None = None        # None float, "i" signed, "u" unsigned
    min_filter: int = G.GL_NEAREST
    mag_filter: int = G.GL_NEAREST
    wrap: tuple[int, int, int] = (G.GL_REPEAT, G.GL_REPEAT, G.GL_REPEAT)
    border: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)
    compare: int | None = None
    base_level: int = 0
    lod_bias: float = 0.0


# ---- GLSL text edits ---------------------------------------------------------------------------

def _insert_after_version(src: str, text: str) -> str:
    lines = src.split("\n")
    at = 1
    while at < len(lines) and lines[at].startswith("#extension"):
        at += 1
    return "\n".join(lines[:at] + [text] + lines[at:])


def _main_bounds(src: str) -> tuple[int, int]:
    start = src.index("void main()\n{\n") + len("void main()\n{\n")
    end = src.rstrip().rindex("}")
    return start, end


def _at_main_start(src: str, lines: list[str]) -> str:
    if not lines:
        return src
    s, _ = _main_bounds(src)
    return src[:s] + "".join(f"    {x}\n" for x in lines) + src[s:]


def _at_main_end(src: str, lines: list[str]) -> str:
    if not lines:
        return src
    _, e = _main_bounds(src)
    return src[:e] + "".join(f"    {x}\n" for x in lines) + src[e:]


_DECL_LINE = re.compile(r"^(\s*)((?:vec4|ivec4|uvec4|float|int|uint)\s+(?!in_)\w+"
                        r"(?:\s*=|\s*;|\[\d+\]\s*=))", re.M)


_RETURN = re.compile(r"^((?:float|vec4|vec3|vec2) )(xl_\w+\(.*\) \{ )return (.*); \}$", re.M)
_RETURN_ML = re.compile(r"^(    )return ((?!xl_r\b).*);$", re.M)


def make_precise(src: str) -> str:
    """Qualify every variable declaration ``precise`` (GLSL 4.00), and route one-line float
    helper functions' results through a ``precise`` local: the compiler may then not
    reassociate, contract (a*b+c -> fma) or fold the operations computing them.  Used to tell
    such optimizations from real differences.  Arrays declared without an initializer (the
    ``in_*`` input staging and ``xl_p_*`` parameter copies) are left alone: they are only
    copied, and with ``precise`` on such a global array Mesa 22.3 crashes (SIGSEGV) linking
    the SPIR-V module glslang makes of it (``gl-spirv`` backend).  ``highp`` goes with
    ``precise``: glslang gives a global qualified ``precise`` alone temporary storage (invalid
    SPIR-V; see ``xlate.backends.glsl.PRECISE_GLOBAL``).  The backend itself now declares its
    registers and outputs ``precise``; this adds the qualifier to what remains."""
    src = _DECL_LINE.sub(r"\1precise highp \2", src)
    return _RETURN.sub(lambda m: f"{m.group(1)}{m.group(2)}precise {m.group(1).strip()} xl_r = "
                       f"{m.group(3)}; return xl_r; }}", src)


@dataclass
class _Slot:
    name: str          # GLSL output name (reflection) or harness variable
    gtype: str         # vec4 ivec4 uvec4 float int
    buffer: int = 0
    offset: int = 0
    size: int = 16
    count: int = 1     # array length (gl_ClipDistance)


_SIZES = {"vec4": 16, "ivec4": 16, "uvec4": 16, "float": 4, "int": 4, "uint": 4}


def _assign_slots(slots: list[_Slot]) -> list[int]:
    """Spread slots over xfb buffers; returns the stride of each buffer used."""
    used = [0] * MAX_XFB_BUFFERS
    for s in slots:
        s.size = _SIZES[s.gtype] * s.count
        for b in range(MAX_XFB_BUFFERS):
            if used[b] + s.size <= BUFFER_COMPONENTS * 4:
                s.buffer, s.offset = b, used[b]
                used[b] += s.size
                break
        else:
            raise GLError("too many outputs to capture with transform feedback")
    return [u for u in used if u]


def _builtin_var(name: str) -> str:
    return "xv_b_" + re.sub(r"\W", "_", name).strip("_")


BUILTIN_OUT_TYPES = {"gl_Position": "vec4", "gl_PointSize": "float", "gl_Layer": "int",
                     "gl_PrimitiveID": "int", "gl_ViewportIndex": "int"}


def add_capture(src: str, reflection: dict, stage: str) -> tuple[str, list[_Slot], list[int]]:
    """Edit a vertex/geometry shader so transform feedback captures every output.

    User outputs get ``xfb_buffer``/``xfb_offset`` qualifiers.  Built-in outputs are copied
    into extra ``xv_b_*`` outputs (Mesa 22.3's GLSL compiler ignores ``xfb_offset`` on
    redeclared ``gl_PerVertex`` members, and ``gl_Layer`` cannot be captured at all)."""
    outs = reflection["outputs"]
    slots: list[_Slot] = []
    decls = {m.group(4): m for m in _OUT_DECL.finditer(src)}
    for o in outs:
        if o["builtin"]:
            continue
        if o["name"] not in decls:
            raise GLError(f"output {o['name']} not declared in the generated GLSL")
        slots.append(_Slot(o["name"], decls[o["name"]].group(3)))
    used_locs = {int(m.group(1)) for m in decls.values()}
    free = (loc for loc in range(64) if loc not in used_locs)
    extra_decls, copies, aliases = [], [], {}
    for o in outs:
        if not o["builtin"]:
            continue
        n = o["name"]
        t = "float" if n.startswith("gl_ClipDistance[") else BUILTIN_OUT_TYPES.get(n)
        if t is None:
            continue
        var = _builtin_var(n)
        loc = next(free)
        flat = "flat " if t in ("int", "uint") else ""
        extra_decls.append(f"layout(location = {loc}) {flat}out {t} {var};")
        copies.append(f"{var} = {n};")
        slots.append(_Slot(var, t))
        aliases[var] = n
    if stage == "geometry":
        loc = next(free)
        extra_decls.append(f"layout(location = {loc}) flat out int xv_prim;")
        copies.append("xv_prim = gl_PrimitiveIDIn;")
        slots.append(_Slot("xv_prim", "int"))
    strides = _assign_slots(slots)
    by_name = {s.name: s for s in slots}

    def repl(m):
        name = m.group(4)
        s = by_name.get(name)
        if s is None:
            return m.group(0)
        return (f"layout(location = {m.group(1)}, xfb_buffer = {s.buffer}, xfb_offset = "
                f"{s.offset}) {m.group(2)}out {m.group(3)} {name};")

    src = _OUT_DECL.sub(repl, src)
    extra = [repl(_OUT_DECL.match(d)) for d in extra_decls]
    strides_decl = [f"layout(xfb_buffer = {b}, xfb_stride = {st}) out;"
                    for b, st in enumerate(strides)]
    src = _insert_after_version(src, "\n".join(strides_decl + extra))
    if stage == "geometry":
        src = src.replace("EmitVertex();", "".join(c + " " for c in copies) + "EmitVertex();")
        src = strip_room(src)
    else:
        src = _at_main_end(src, copies)
    for sl in slots:
        sl.name = aliases.get(sl.name, sl.name)
    return src, slots, strides


#: gl_FragCoord redeclared with its origin at the upper left (pixel_center_integer or not: the
#: row is H - 1 - int(y) either way)
_UPPER_LEFT = re.compile(r"layout\([^)]*origin_upper_left[^)]*\)\s+in\s+vec4\s+gl_FragCoord")


def fragment_inputs(src: str, *, base: int = INPUT_TEXTURE_BASE,
                    layout: str = "binding = {}") -> tuple[str, list[tuple[str, str, int]]]:
    """Replace every ``in`` declaration of a fragment shader by a texture-fed global.

    The k-th input is read from texture unit (GL) or descriptor binding (Vulkan) ``base - k``;
    ``layout`` is the layout qualifier text with ``{}`` for that number.  Returns the new text
    and [(input name, GLSL type, texture unit)]."""
    feeds = []
    decls = list(_IN_DECL.finditer(src))
    for k, m in enumerate(decls):
        feeds.append((m.group(4), m.group(3), base - k))
    out = src
    for (name, gtype, unit), m in zip(feeds, decls):
        sampler = {"vec4": "sampler2D", "ivec4": "isampler2D", "uvec4": "usampler2D"}.get(gtype)
        if sampler is None:
            raise GLError(f"fragment input {name} of type {gtype} cannot be fed")
        out = out.replace(m.group(0), f"layout({layout.format(unit)}) uniform {sampler} "
                          f"xv_in{unit};\n{gtype} {name};", 1)
    # a program that counts y from the top (layout(origin_upper_left), TGSI FS_COORD_ORIGIN)
    # sees gl_FragCoord.y = H - row - 0.5: the harness fetches by the framebuffer row all the
    # same, H being the height of the input textures (= the framebuffer's)
    if _UPPER_LEFT.search(src):
        coord = "ivec2(int(gl_FragCoord.x), textureSize(xv_in{0}, 0).y - 1 - int(gl_FragCoord.y))"
    else:
        coord = "ivec2(gl_FragCoord.xy)"
    out = _at_main_start(out, [f"{name} = texelFetch(xv_in{unit}, {coord.format(unit)}, 0);"
                               for name, _, unit in feeds])
    return out, feeds


def fragment_outputs(src: str, reflection: dict) -> tuple[str, list[tuple[str, str, int]], int]:
    """[(output name, type, location)] plus the location of the harness's extra output."""
    outs = []
    for m in _OUT_DECL.finditer(src):
        outs.append((m.group(4), m.group(3), int(m.group(1))))
    used = {loc for _, _, loc in outs}
    free = [loc for loc in range(8) if loc not in used]
    if not free:
        raise GLError("no free colour attachment for the harness's extra output")
    extra = free[0]
    depth = any(o["name"] == "gl_FragDepth" for o in reflection["outputs"])
    src = _insert_after_version(src, f"layout(location = {extra}) out vec4 xv_extra;")
    src = _at_main_end(src, [f"xv_extra = vec4({'gl_FragDepth' if depth else '0.0'}, 1.0, 0.0, 0.0);"])
    return src, outs, extra


def program_stage(direct, src: str, *, capture=(), strides=(), feeds=(), extra=None,
                  glsl: str = "") -> str | bytes:
    """The program's own shader of a harness run: the edited GLSL ``src``, or -- ``direct``
    given, a callable :class:`xlate.backends.spirv_direct.Instrumentation` -> SPIR-V bytes --
    the direct SPIR-V path's module with the same edits made in SPIR-V (the capture ``slots``
    and ``strides`` of :func:`add_capture`, the ``feeds`` and ``extra`` output location of
    :func:`fragment_inputs` / :func:`fragment_outputs`)."""
    if direct is None:
        return src
    from ..backends.spirv_direct import Instrumentation
    return direct(Instrumentation(capture={s.name: (s.buffer, s.offset) for s in capture},
                                  strides=list(strides),
                                  feeds={name: unit for name, _, unit in feeds},
                                  feed_upper_left=bool(_UPPER_LEFT.search(glsl)),
                                  extra_output=extra))


def quad_layout(lanes: int, width: int = FRAG_WIDTH) -> tuple[np.ndarray, np.ndarray, int, int]:
    """Pixel (x, y) of every lane: lanes 4k..4k+3 are the 2x2 quad k (x0y0, x1y0, x0y1, x1y1)."""
    lane = np.arange(lanes)
    k, j = lane // 4, lane % 4
    qw = width // 2
    qx, qy = k % qw, k // qw
    x = 2 * qx + (j & 1)
    y = 2 * qy + (j >> 1)
    height = int(2 * (-(-((lanes + 3) // 4) // qw)))
    return x, y, width, max(height, 2)


def strip_primitives(strip: list, kind: str) -> list[list]:
    """Independent primitives transform feedback records for one output strip.

    ``kind``: POINTS, LINE_STRIP, TRIANGLE_STRIP.  Triangle i of a strip is (i, i+1, i+2) for
    even i and (i+1, i, i+2) for odd i (the order llvmpipe records, preserving the first
    vertex's orientation; GL 4.5 §13.3 leaves only the set of vertices fixed)."""
    n = len(strip)
    if kind == "POINTS":
        return [[v] for v in strip]
    if kind == "LINE_STRIP":
        return [[strip[i], strip[i + 1]] for i in range(n - 1)]
    out = []
    for i in range(n - 2):
        if i % 2 == 0:
            out.append([strip[i], strip[i + 1], strip[i + 2]])
        else:
            out.append([strip[i + 1], strip[i], strip[i + 2]])
    return out


INPUT_VERTICES = {"POINTS": 1, "LINES": 2, "LINES_ADJACENCY": 4, "TRIANGLES": 3,
                  "TRIANGLES_ADJACENCY": 6}


# ---- shared by the GL and Vulkan runners (xlate.verify.vulkan) ---------------------------------

#: vertices of one primitive of each geometry output type
PRIMITIVE_VERTICES = {"POINTS": 1, "LINE_STRIP": 2, "TRIANGLE_STRIP": 3}
_GS_LAYOUT = re.compile(r"layout\((points|line_strip|triangle_strip), max_vertices = (\d+)\) out;")


def completes_primitives(geometry: dict) -> bool:
    """Whether a geometry program can complete one output primitive at all: not when it may
    emit fewer vertices than a primitive has (``VERTICES_OUT 1`` with ``TRIANGLE_STRIP``, a
    legal program that draws nothing -- GEO4 2.14.6.3, GL 4.5 11.3.4.1): the runners capture
    nothing without drawing it."""
    return geometry["max_vertices"] >= PRIMITIVE_VERTICES.get(geometry["output_primitive"], 1)


def strip_room(src: str) -> str:
    """Work around a heap overflow of Mesa's draw module (llvmpipe and lavapipe, Mesa 22.3):
    it keeps one length per output strip in an array sized for the *complete* primitives that
    ``max_vertices`` vertices make (``max_vertices - 2`` triangles of a strip), but every
    ``EndPrimitive`` -- after too few vertices for a primitive too -- takes an entry, so
    ``EmitVertex; EmitVertex; EndPrimitive; EmitVertex`` under ``max_vertices = 3`` writes past
    the array and corrupts the process's heap (tests/test_verify_cases.py::
    test_gs_more_strips_than_primitives).  Same semantics, room for a strip per vertex:
    ``max_vertices`` grows by a primitive's vertices minus one, a counter keeps the emitted
    vertices within the declared number (extra EMITs have no effect, as in the executor), and
    ``EndPrimitive`` with no vertex since the last one (which ends nothing) is skipped."""
    m = _GS_LAYOUT.search(src)
    if m is None:
        return src
    n = int(m.group(2))
    per = PRIMITIVE_VERTICES[m.group(1).upper()]
    src = src.replace(m.group(0), f"layout({m.group(1)}, max_vertices = {n + per - 1}) out;\n"
                      "int xv_emitted = 0;\nint xv_pending = 0;", 1)
    src = src.replace("EmitVertex();", f"if (xv_emitted < {n}) {{ xv_emitted++; xv_pending++; "
                      "EmitVertex(); }")
    return src.replace("EndPrimitive();", "if (xv_pending > 0) { xv_pending = 0; "
                       "EndPrimitive(); }")


def emits_vertices(glsl: str) -> bool:
    """Whether a translated geometry program can emit a vertex at all (a program without
    captured outputs cannot begin transform feedback: such a program has nothing to capture)."""
    return re.search(r"^\s+xl_emit\(\);", glsl, re.M) is not None


def passthrough_vertex_shader(glsl: str,
                              reflection: dict) -> tuple[str, list[tuple[int, str, bool]]]:
    """The harness's vertex shader in front of a geometry program: attribute ``k`` feeds each
    input location of the geometry shader (same qualifiers and type), or ``gl_Position`` /
    ``gl_PointSize`` / ``gl_ClipDistance[n]``.  Returns the text and [(attribute location,
    input name, integer)]."""
    vs = ["#version 450 core"]
    body = []
    attribs = []
    k = 0
    for m in _IN_DECL.finditer(glsl):
        loc, quals, gtype, name = int(m.group(1)), m.group(2), m.group(3), m.group(4)
        quals = " ".join(q for q in quals.split() if q in ("flat", "noperspective", "centroid"))
        vs.append(f"layout(location = {k}) in {gtype} xv_a{k};")
        vs.append(f"layout(location = {loc}) {quals + ' ' if quals else ''}out {gtype} xv_v{loc};")
        body.append(f"xv_v{loc} = xv_a{k};")
        attribs.append((k, name, gtype != "vec4"))
        k += 1
    for inp in reflection["inputs"]:
        if not inp["builtin"]:
            continue
        n = inp["name"]
        if n == "gl_in[].gl_Position":
            vs.append(f"layout(location = {k}) in vec4 xv_a{k};")
            body.append(f"gl_Position = xv_a{k};")
        elif n == "gl_in[].gl_PointSize":
            vs.append(f"layout(location = {k}) in vec4 xv_a{k};")
            body.append(f"gl_PointSize = xv_a{k}.x;")
        elif n.startswith("gl_in[].gl_ClipDistance["):
            vs.append(f"layout(location = {k}) in vec4 xv_a{k};")
            body.append(f"{n[8:]} = xv_a{k}.x;")
        else:
            continue
        attribs.append((k, n, False))
        k += 1
    if k > 16:
        raise GLError("geometry program has more inputs than vertex attributes (16)")
    vs.append("void main()\n{\n" + "".join(f"    {b}\n" for b in body) + "}\n")
    return "\n".join(vs), attribs


def split_capture(raw: list[np.ndarray], slots: list[_Slot], count: int) -> dict[str, np.ndarray]:
    """Captured words per output from the transform feedback buffers ``raw`` ((count,
    stride/4) words each): scalar outputs fill component x."""
    out = {}
    for s in slots:
        data = raw[s.buffer][:count, s.offset // 4: s.offset // 4 + s.size // 4]
        if s.size == 4:
            full = np.zeros((count, 4), np.uint32)
            full[:, 0] = data[:, 0]
            data = full
        out[s.name] = np.ascontiguousarray(data)
    return out


def group_primitives(got: dict[str, np.ndarray], slots: list[_Slot], written: int, per: int,
                     lanes: int) -> list[list]:
    """Captured geometry vertices -> per lane (``xv_prim``) the list of primitives, each a list
    of ``per`` vertices {output name: (4,) words}."""
    names = [s.name for s in slots if s.name != "xv_prim"]
    prims: list[list] = [[] for _ in range(lanes)]
    lane_of = got["xv_prim"][:, 0].view(np.int32)
    for p in range(written):
        verts = []
        for v in range(per):
            row = p * per + v
            verts.append({n: got[n][row] for n in names})
        lane = int(lane_of[p * per])
        if 0 <= lane < lanes:
            prims[lane].append(verts)
    return prims


def fragment_capture(images: dict[str, np.ndarray], x: np.ndarray, y: np.ndarray,
                     reflection: dict, src: str) -> Capture:
    """A fragment capture from the read-back render targets ((H, W, 4) words each, ``xv_extra``
    included): lane l is pixel (x[l], y[l])."""
    lanes = len(x)
    cap = Capture(glsl=src)
    for name, img in images.items():
        cap.outputs[name] = img[y, x]
    ex = cap.outputs.pop("xv_extra")
    cap.killed = ex[:, 1] == 0
    if any(o["name"] == "gl_FragDepth" for o in reflection["outputs"]):
        d = np.zeros((lanes, 4), np.uint32)
        d[:, 2] = ex[:, 0]
        cap.outputs["gl_FragDepth"] = d
    return cap


def texel_arrays(levels, shadow: bool) -> tuple[list[np.ndarray], str]:
    """An :class:`xlate.exec.Texture`'s levels as the harness uploads them: RGBA (missing
    components read as G=B=0, A=1, as the GL's R/RG/RGB formats) in float32/int32/uint32, or
    the first component alone (float32) for a depth texture.  Also the kind: "f", "i", "u"
    or "depth"."""
    levels = [np.asarray(a) for a in levels]
    kind = levels[0].dtype.kind
    dt = np.float32 if shadow or kind == "f" else np.int32 if kind == "i" else np.uint32
    out = []
    for a in levels:
        a = np.asarray(a).astype(dt)
        if shadow:
            out.append(np.ascontiguousarray(a[..., 0]))
            continue
        c = a.shape[-1]
        if c < 4:
            fill = np.array([0, 0, 0, 1], dt)[c:]
            a = np.concatenate([a, np.broadcast_to(fill, a.shape[:-1] + (4 - c,))], -1)
        out.append(np.ascontiguousarray(a))
    return out, ("depth" if shadow else "f" if kind == "f" else "i" if kind == "i" else "u")


PRIM_IN = {"POINTS": G.GL_POINTS, "LINES": G.GL_LINES, "LINES_ADJACENCY": G.GL_LINES_ADJACENCY,
           "TRIANGLES": G.GL_TRIANGLES, "TRIANGLES_ADJACENCY": G.GL_TRIANGLES_ADJACENCY}
PRIM_OUT = {"POINTS": (G.GL_POINTS, 1), "LINE_STRIP": (G.GL_LINES, 2),
            "TRIANGLE_STRIP": (G.GL_TRIANGLES, 3)}
TEX_TARGETS = {"1D": G.GL_TEXTURE_1D, "2D": G.GL_TEXTURE_2D, "3D": G.GL_TEXTURE_3D,
               "CUBE": G.GL_TEXTURE_CUBE_MAP, "RECT": G.GL_TEXTURE_RECTANGLE,
               "ARRAY1D": G.GL_TEXTURE_1D_ARRAY, "ARRAY2D": G.GL_TEXTURE_2D_ARRAY,
               "BUFFER": G.GL_TEXTURE_BUFFER}


# ---- the runner --------------------------------------------------------------------------------

class Runner:
    """One GL context, one backend (``gl`` or ``gl-spirv``).  ``vulkan`` is
    :class:`xlate.verify.vulkan.Runner`; :func:`xlate.verify.core.make_runner` picks either."""

    profile = "glsl450"         # the GLSL profile :meth:`run` expects the translation in
    _direct = None              # run(direct=...): the direct SPIR-V path's module maker

    def __init__(self, backend: str = "gl", *, precise: bool = False, profile: str = "glsl450"):
        """``precise``: run every shader through :func:`make_precise` first -- for property
        tests that check semantics apart from the known missing-``precise`` problem.
        ``profile``: the profile of the translations :meth:`run` gets (``glsl330`` and
        ``es310`` through :func:`xlate.verify.profile_runs.harness_text`)."""
        from .profile_runs import ADAPTED_PROFILES
        if profile != "glsl450" and profile not in ADAPTED_PROFILES:
            raise ValueError(f"the GL runner takes glsl450, {', '.join(ADAPTED_PROFILES)} "
                             f"translations, not {profile!r}")
        self.profile = profile
        self.precise = precise
        if backend == "vulkan":
            raise ValueError("backend 'vulkan' runs on xlate.verify.vulkan.Runner "
                             "(xlate.verify.core.make_runner picks the runner of a backend)")
        if backend not in ("gl", "gl-spirv"):
            raise ValueError(f"unknown backend {backend!r}")
        self.backend = backend
        self.gl = G.context("core")
        if backend == "gl-spirv" and "GL_ARB_gl_spirv" not in self.gl.extensions:
            raise GLUnavailable(f"{self.gl.describe()} has no GL_ARB_gl_spirv")
        self._objects: list[tuple] = []

    def describe(self) -> str:
        return f"{self.backend} on {self.gl.describe()}"

    # ---- programs --------------------------------------------------------------------------
    def shader(self, kind: int, src: str | bytes) -> int:
        gl = self.gl
        if isinstance(src, bytes):          # SPIR-V made elsewhere (the direct path)
            if self.backend != "gl-spirv":
                raise ValueError("SPIR-V modules run on the gl-spirv backend only")
            return gl.load_spirv(kind, src)
        if self.backend == "gl":
            return gl.compile_glsl(kind, src)
        from ..backends import spirv as sp
        stage = {G.GL_VERTEX_SHADER: "vert", G.GL_FRAGMENT_SHADER: "frag",
                 G.GL_GEOMETRY_SHADER: "geom"}[kind]
        try:
            words = sp.compile_glsl(src, stage, target="opengl")
        except sp.ToolchainUnavailable as e:
            raise GLUnavailable(str(e)) from None
        except sp.GlslCompileError as e:
            raise GLError(f"glslang rejected the shader: {e}") from None
        return gl.load_spirv(kind, words)

    def program(self, stages: list[tuple[int, str]]) -> int:
        shaders = []
        try:
            for kind, src in stages:
                shaders.append(self.shader(kind, src))
        except Exception:
            for sh in shaders:
                self.gl.DeleteShader(sh)
            raise
        return self.gl.link(shaders)

    # ---- resources ---------------------------------------------------------------------------
    def _buffer(self, target: int, data: bytes | None, size: int | None = None) -> int:
        gl = self.gl
        buf = gl.gen(gl.GenBuffers)
        self._objects.append(("buffer", buf))
        gl.BindBuffer(target, buf)
        n = len(data) if data is not None else size
        ptr = C.create_string_buffer(data, n) if data is not None else None
        gl.BufferData(target, max(n, 16), ptr, G.GL_STATIC_DRAW)
        return buf

    def _read_buffer(self, target: int, buf: int, size: int) -> bytes:
        gl = self.gl
        gl.BindBuffer(target, buf)
        out = C.create_string_buffer(size)
        gl.GetBufferSubData(target, 0, size, out)
        return out.raw

    def _cleanup(self) -> None:
        gl = self.gl
        for kind, obj in reversed(self._objects):
            if kind == "buffer":
                gl.delete(gl.DeleteBuffers, obj)
            elif kind == "texture":
                gl.delete(gl.DeleteTextures, obj)
            elif kind == "vao":
                gl.delete(gl.DeleteVertexArrays, obj)
            elif kind == "fbo":
                gl.delete(gl.DeleteFramebuffers, obj)
            elif kind == "program":
                gl.DeleteProgram(obj)
            elif kind == "query":
                gl.delete(gl.DeleteQueries, obj)
        self._objects.clear()
        gl.BindFramebuffer(G.GL_FRAMEBUFFER, 0)
        gl.BindVertexArray(0)
        gl.UseProgram(0)
        gl.Disable(G.GL_RASTERIZER_DISCARD)
        while gl.GetError() != G.GL_NO_ERROR:
            pass

    def _dummy_fbo(self) -> None:
        """Surfaceless contexts have no default framebuffer: bind a 1x1 FBO (toolchain §2.2)."""
        gl = self.gl
        if gl.fbo is None:
            tex = gl.gen(gl.GenTextures)
            gl.BindTexture(G.GL_TEXTURE_2D, tex)
            gl.TexImage2D(G.GL_TEXTURE_2D, 0, G.GL_RGBA32F, 1, 1, 0, G.GL_RGBA, G.GL_FLOAT, None)
            fbo = gl.gen(gl.GenFramebuffers)
            gl.BindFramebuffer(G.GL_FRAMEBUFFER, fbo)
            gl.FramebufferTexture2D(G.GL_FRAMEBUFFER, G.GL_COLOR_ATTACHMENT0, G.GL_TEXTURE_2D, tex, 0)
            gl.fbo = fbo
        gl.BindFramebuffer(G.GL_FRAMEBUFFER, gl.fbo)

    def _set_uniforms(self, prog: int, uniforms: list[tuple[int | str, np.ndarray]]) -> None:
        """Uniform values by location, or by name where the profile declares no locations
        (glsl330: the reflection's ``location`` is null)."""
        gl = self.gl
        gl.check("before setting uniforms")
        for loc, words in uniforms:
            if isinstance(loc, str):
                loc = gl.GetUniformLocation(prog, loc.encode())
            w = np.ascontiguousarray(words, np.uint32).reshape(-1, 4)
            gl.ProgramUniform4fv(prog, loc, w.shape[0], w.ctypes.data_as(C.c_void_p))
            # a uniform the driver found unused has no location: GL_INVALID_OPERATION, harmless
            while gl.GetError() != G.GL_NO_ERROR:
                pass

    def _bind_by_name(self, prog: int, reflection: dict) -> None:
        """glsl330 declares no ``binding``: the reflection's binding is the texture unit to
        give each sampler (glUniform1i) and the binding point of each uniform block
        (glUniformBlockBinding) -- done here as an engine must."""
        if self.profile != "glsl330":
            return
        gl = self.gl
        for t in reflection.get("textures", []):
            loc = gl.GetUniformLocation(prog, t["name"].encode())
            if loc >= 0:
                gl.ProgramUniform1i(prog, loc, t["binding"])
        for b in reflection.get("buffers", []):
            index = gl.GetUniformBlockIndex(prog, b["block"].encode())
            if index != 0xFFFFFFFF:             # GL_INVALID_INDEX: the block is unused
                gl.UniformBlockBinding(prog, index, b["binding"])
        gl.check("binding samplers and blocks by name")

    def _set_buffers(self, buffers: dict[int, np.ndarray]) -> None:
        for binding, words in buffers.items():
            w = np.ascontiguousarray(words, np.uint32)
            buf = self._buffer(G.GL_UNIFORM_BUFFER, w.tobytes())
            self.gl.BindBufferBase(G.GL_UNIFORM_BUFFER, binding, buf)

    def _texture(self, t: TextureData) -> None:
        gl = self.gl
        target = TEX_TARGETS[t.target.replace("SHADOW", "")]
        tex = gl.gen(gl.GenTextures)
        self._objects.append(("texture", tex))
        gl.ActiveTexture(G.GL_TEXTURE0 + t.unit)
        fmt, ext = {None: (G.GL_RGBA32F, G.GL_RGBA), "i": (G.GL_RGBA32I, G.GL_RGBA_INTEGER),
                    "u": (G.GL_RGBA32UI, G.GL_RGBA_INTEGER)}[t.integer]
        typ = {None: G.GL_FLOAT, "i": G.GL_INT, "u": G.GL_UNSIGNED_INT}[t.integer]
        if target == G.GL_TEXTURE_BUFFER:
            data = np.ascontiguousarray(t.levels[0], np.uint32)
            buf = self._buffer(G.GL_TEXTURE_BUFFER, data.tobytes())
            gl.BindTexture(target, tex)
            gl.TexBuffer(target, fmt, buf)
            return
        gl.BindTexture(target, tex)
        for lvl, data in enumerate(t.levels):
            d = np.ascontiguousarray(data).view(np.uint32)
            if target == G.GL_TEXTURE_1D:
                gl.TexImage1D(target, lvl, fmt, d.shape[0], 0, ext, typ, d.ctypes.data_as(C.c_void_p))
            elif target in (G.GL_TEXTURE_2D, G.GL_TEXTURE_RECTANGLE, G.GL_TEXTURE_1D_ARRAY):
                gl.TexImage2D(target, lvl, fmt, d.shape[1], d.shape[0], 0, ext, typ,
                              d.ctypes.data_as(C.c_void_p))
            elif target == G.GL_TEXTURE_CUBE_MAP:
                for face in range(6):
                    fd = np.ascontiguousarray(d[face])
                    gl.TexImage2D(G.GL_TEXTURE_CUBE_MAP_POSITIVE_X + face, lvl, fmt, fd.shape[1],
                                  fd.shape[0], 0, ext, typ, fd.ctypes.data_as(C.c_void_p))
            else:
                gl.TexImage3D(target, lvl, fmt, d.shape[2], d.shape[1], d.shape[0], 0, ext, typ,
                              d.ctypes.data_as(C.c_void_p))
        gl.TexParameteri(target, G.GL_TEXTURE_BASE_LEVEL, t.base_level)
        gl.TexParameteri(target, G.GL_TEXTURE_MAX_LEVEL, len(t.levels) - 1)
        gl.TexParameteri(target, G.GL_TEXTURE_MIN_FILTER, t.min_filter)
        gl.TexParameteri(target, G.GL_TEXTURE_MAG_FILTER, t.mag_filter)
        gl.TexParameteri(target, G.GL_TEXTURE_WRAP_S, t.wrap[0])
        gl.TexParameteri(target, G.GL_TEXTURE_WRAP_T, t.wrap[1])
        gl.TexParameteri(target, G.GL_TEXTURE_WRAP_R, t.wrap[2])
        gl.TexParameterfv(target, G.GL_TEXTURE_BORDER_COLOR, (C.c_float * 4)(*t.border))
        if t.lod_bias:
            gl.TexParameterf(target, G.GL_TEXTURE_LOD_BIAS, t.lod_bias)
        if t.compare is not None:
            gl.TexParameteri(target, G.GL_TEXTURE_COMPARE_MODE, G.GL_COMPARE_REF_TO_TEXTURE)
            gl.TexParameteri(target, G.GL_TEXTURE_COMPARE_FUNC, t.compare)

    def _exec_texture(self, unit: int, tex, shadow: bool) -> None:
        """Upload an :class:`xlate.exec.Texture` with the state of ``Texture.gl_state``."""
        gl = self.gl
        E = G.ENUMS
        st = tex.gl_state(shadow)
        target = str(tex.target).upper()
        gt = E[st["target"]]
        name = gl.gen(gl.GenTextures)
        self._objects.append(("texture", name))
        gl.ActiveTexture(G.GL_TEXTURE0 + unit)
        levels, kind = texel_arrays(tex.levels, shadow)
        ifmt, fmt, typ = {
            "depth": (G.GL_DEPTH_COMPONENT32F, G.GL_DEPTH_COMPONENT, G.GL_FLOAT),
            "f": (G.GL_RGBA32F, G.GL_RGBA, G.GL_FLOAT),
            "i": (G.GL_RGBA32I, G.GL_RGBA_INTEGER, G.GL_INT),
            "u": (G.GL_RGBA32UI, G.GL_RGBA_INTEGER, G.GL_UNSIGNED_INT)}[kind]

        keep = []
        if target in ("2DMS", "ARRAY2DMS"):     # rendered, not uploaded; no sampler state
            from .gl_multisample import upload_multisample
            upload_multisample(self, unit, name, target, levels[0], kind, (ifmt, fmt, typ))
            return
        if target == "BUFFER":
            data = levels[0]
            buf = self._buffer(G.GL_TEXTURE_BUFFER, data.tobytes())
            gl.BindTexture(gt, name)
            gl.TexBuffer(gt, ifmt, buf)
            return
        gl.BindTexture(gt, name)
        for lv, d in enumerate(levels):
            keep.append(d)
            ptr = d.ctypes.data_as(C.c_void_p)
            if target == "1D":
                gl.TexImage1D(gt, lv, ifmt, d.shape[0], 0, fmt, typ, ptr)
            elif target in ("2D", "RECT", "ARRAY1D"):
                gl.TexImage2D(gt, lv, ifmt, d.shape[1], d.shape[0], 0, fmt, typ, ptr)
            elif target in ("3D", "ARRAY2D", "ARRAYCUBE"):    # a cube array: 6 layer-faces a layer
                gl.TexImage3D(gt, lv, ifmt, d.shape[2], d.shape[1], d.shape[0], 0, fmt, typ, ptr)
            else:
                for face in range(6):
                    fd = np.ascontiguousarray(d[face])
                    keep.append(fd)
                    gl.TexImage2D(G.GL_TEXTURE_CUBE_MAP_POSITIVE_X + face, lv, ifmt, fd.shape[1],
                                  fd.shape[0], 0, fmt, typ, fd.ctypes.data_as(C.c_void_p))
        gl.TexParameteri(gt, G.GL_TEXTURE_MIN_FILTER, E[st["TEXTURE_MIN_FILTER"]])
        gl.TexParameteri(gt, G.GL_TEXTURE_MAG_FILTER, E[st["TEXTURE_MAG_FILTER"]])
        if target != "RECT":
            gl.TexParameteri(gt, G.GL_TEXTURE_WRAP_R, E[st["TEXTURE_WRAP_R"]])
        gl.TexParameteri(gt, G.GL_TEXTURE_WRAP_S, E[st["TEXTURE_WRAP_S"]])
        gl.TexParameteri(gt, G.GL_TEXTURE_WRAP_T, E[st["TEXTURE_WRAP_T"]])
        if kind in ("f", "depth"):
            gl.TexParameterfv(gt, G.GL_TEXTURE_BORDER_COLOR,
                              (C.c_float * 4)(*st["TEXTURE_BORDER_COLOR"]))
        elif kind == "i":
            gl.TexParameterIiv(gt, G.GL_TEXTURE_BORDER_COLOR,
                               (C.c_int * 4)(*[int(v) for v in st["TEXTURE_BORDER_COLOR"]]))
        else:
            gl.TexParameterIuiv(gt, G.GL_TEXTURE_BORDER_COLOR,
                                (C.c_uint * 4)(*[int(v) & 0xFFFFFFFF
                                                 for v in st["TEXTURE_BORDER_COLOR"]]))
        gl.TexParameteri(gt, G.GL_TEXTURE_COMPARE_MODE, E[st["TEXTURE_COMPARE_MODE"]])
        gl.TexParameteri(gt, G.GL_TEXTURE_COMPARE_FUNC, E[st["TEXTURE_COMPARE_FUNC"]])
        gl.TexParameteri(gt, G.GL_TEXTURE_BASE_LEVEL, st["TEXTURE_BASE_LEVEL"])
        gl.TexParameteri(gt, G.GL_TEXTURE_MAX_LEVEL, st["TEXTURE_MAX_LEVEL"])
        gl.TexParameterf(gt, G.GL_TEXTURE_LOD_BIAS, st["TEXTURE_LOD_BIAS"])
        gl.TexParameterf(gt, G.GL_TEXTURE_MIN_LOD, st["TEXTURE_MIN_LOD"])
        gl.TexParameterf(gt, G.GL_TEXTURE_MAX_LOD, st["TEXTURE_MAX_LOD"])
        if target in ("CUBE", "ARRAYCUBE"):
            (gl.Enable if st["TEXTURE_CUBE_MAP_SEAMLESS"] else gl.Disable)(
                G.GL_TEXTURE_CUBE_MAP_SEAMLESS)
        gl.check(f"texture unit {unit} upload")

    def _textures(self, textures, shadow) -> None:
        for unit, tex in (textures or {}).items():
            self._exec_texture(unit, tex, unit in (shadow or ()))

    def _attrib(self, loc: int, words: np.ndarray, integer: bool) -> None:
        gl = self.gl
        w = np.ascontiguousarray(words, np.uint32).reshape(-1, 4)
        buf = self._buffer(G.GL_ARRAY_BUFFER, w.tobytes())
        gl.BindBuffer(G.GL_ARRAY_BUFFER, buf)
        gl.EnableVertexAttribArray(loc)
        if integer:
            gl.VertexAttribIPointer(loc, 4, G.GL_INT, 16, None)
        else:
            gl.VertexAttribPointer(loc, 4, G.GL_FLOAT, 0, 16, None)

    def _vao(self) -> None:
        gl = self.gl
        vao = gl.gen(gl.GenVertexArrays)
        self._objects.append(("vao", vao))
        gl.BindVertexArray(vao)

    # ---- stages ------------------------------------------------------------------------------
    def run(self, stage: str, glsl: str, reflection: dict, lanes: int, *,
            inputs: dict[str, np.ndarray], uniforms: list[tuple[int, np.ndarray]],
            buffers: dict[int, np.ndarray] | None = None, textures: dict | None = None,
            shadow: set[int] | None = None, direct=None, through_spirv: bool = False) -> Capture:
        """Run ``glsl`` (the translation) on ``lanes`` invocations.

        ``direct``: run the direct SPIR-V path's module of the program instead of glslang's
        compile of ``glsl`` (gl-spirv backend; :func:`program_stage`).  ``through_spirv``: on
        the ``gl`` backend, compile ``glsl`` with glslang and load the SPIR-V this once (the
        counterfactual of a defect of the driver's GLSL compiler; GLUnavailable without
        ``GL_ARB_gl_spirv``).

        ``inputs``: reflection input name -> words, (lanes, 4) ((lanes, V, 4) for geometry
        inputs); built-ins the harness provides need no entry.  ``uniforms``: (location,
        (n, 4) words).  ``buffers``: UBO binding -> words.  ``textures``: unit ->
        :class:`xlate.exec.Texture` the translated shader samples; ``shadow``: the units sampled
        through SHADOW targets (depth textures with comparison).
        """
        if through_spirv and self.backend == "gl":
            if "GL_ARB_gl_spirv" not in self.gl.extensions:
                raise GLUnavailable(f"{self.gl.describe()} has no GL_ARB_gl_spirv")
            self.backend = "gl-spirv"
            try:
                return self.run(stage, glsl, reflection, lanes, inputs=inputs,
                                uniforms=uniforms, buffers=buffers, textures=textures,
                                shadow=shadow, direct=direct)
            finally:
                self.backend = "gl"
        self._tex = (textures or {}, shadow or set())
        if self.profile != "glsl450":
            from .profile_runs import harness_text
            glsl = harness_text(glsl, self.profile, reflection, precise=self.precise)
        self._direct = direct
        if self.precise:
            glsl = make_precise(glsl)
        self.gl.use()
        try:
            if stage == "vertex":
                return self._run_vertex(glsl, reflection, lanes, inputs, uniforms, buffers or {},
                                        None)
            if stage == "fragment":
                return self._run_fragment(glsl, reflection, lanes, inputs, uniforms,
                                          buffers or {}, None)
            if stage == "geometry":
                return self._run_geometry(glsl, reflection, lanes, inputs, uniforms,
                                          buffers or {}, None)
            raise ValueError(stage)
        finally:
            self._cleanup()

    def _tf_read(self, bufs: list[int], strides: list[int], slots: list[_Slot],
                 count: int) -> dict[str, np.ndarray]:
        raw = [np.frombuffer(self._read_buffer(G.GL_TRANSFORM_FEEDBACK_BUFFER, b, count * st),
                             np.uint32).reshape(count, st // 4) for b, st in zip(bufs, strides)]
        return split_capture(raw, slots, count)

    def _run_vertex(self, glsl, reflection, lanes, inputs, uniforms, buffers, textures):
        gl = self.gl
        src, slots, strides = add_capture(glsl, reflection, "vertex")
        if not slots:                  # no outputs: nothing to capture (and no TF possible)
            return Capture(glsl=src)
        prog = self.program([(G.GL_VERTEX_SHADER, program_stage(self._direct, src, capture=slots,
                                                                strides=strides))])
        self._objects.append(("program", prog))
        self._dummy_fbo()
        self._vao()
        for inp in reflection["inputs"]:
            if inp["builtin"]:
                continue
            words = inputs[inp["name"]]
            self._attrib(inp["location"], words, inp["type"] != "vec4")
        self._set_uniforms(prog, uniforms)
        self._bind_by_name(prog, reflection)
        self._set_buffers(buffers)
        self._textures(*self._tex)
        bufs = []
        for b, st in enumerate(strides):
            buf = self._buffer(G.GL_TRANSFORM_FEEDBACK_BUFFER, None, lanes * st)
            gl.BindBufferBase(G.GL_TRANSFORM_FEEDBACK_BUFFER, b, buf)
            bufs.append(buf)
        gl.UseProgram(prog)
        gl.Enable(G.GL_RASTERIZER_DISCARD)
        gl.BeginTransformFeedback(G.GL_POINTS)
        gl.DrawArrays(G.GL_POINTS, 0, lanes)
        gl.EndTransformFeedback()
        gl.Disable(G.GL_RASTERIZER_DISCARD)
        gl.check("vertex draw")
        got = self._tf_read(bufs, strides, slots, lanes)
        return Capture(outputs=got, glsl=src)

    def _run_geometry(self, glsl, reflection, lanes, inputs, uniforms, buffers, textures):
        gl = self.gl
        geo = reflection["geometry"]
        nv = INPUT_VERTICES[geo["input_primitive"]]
        if not emits_vertices(glsl) or not completes_primitives(geo):
            # the program never emits a vertex (and a program without captured outputs cannot
            # begin transform feedback), or never completes a primitive: nothing to capture
            return Capture(primitives=[[] for _ in range(lanes)], glsl=glsl)
        src, slots, strides = add_capture(glsl, reflection, "geometry")
        vs, attribs = passthrough_vertex_shader(glsl, reflection)
        prog = self.program([(G.GL_VERTEX_SHADER, vs), (G.GL_GEOMETRY_SHADER, src)])
        self._objects.append(("program", prog))
        self._dummy_fbo()
        self._vao()
        for loc, name, integer in attribs:
            words = np.asarray(inputs[name], np.uint32).reshape(lanes * nv, 4)
            self._attrib(loc, words, integer)
        self._set_uniforms(prog, uniforms)
        self._bind_by_name(prog, reflection)
        self._set_buffers(buffers)
        self._textures(*self._tex)
        mode, per = PRIM_OUT[geo["output_primitive"]]
        cap_vertices = lanes * max(geo["max_vertices"], 1) * per
        bufs = []
        for b, st in enumerate(strides):
            buf = self._buffer(G.GL_TRANSFORM_FEEDBACK_BUFFER, None, cap_vertices * st)
            gl.BindBufferBase(G.GL_TRANSFORM_FEEDBACK_BUFFER, b, buf)
            bufs.append(buf)
        q = gl.gen(gl.GenQueries)
        self._objects.append(("query", q))
        gl.UseProgram(prog)
        gl.Enable(G.GL_RASTERIZER_DISCARD)
        gl.BeginQuery(G.GL_TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN, q)
        gl.BeginTransformFeedback(mode)
        gl.DrawArrays(PRIM_IN[geo["input_primitive"]], 0, lanes * nv)
        gl.EndTransformFeedback()
        gl.EndQuery(G.GL_TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN)
        gl.Disable(G.GL_RASTERIZER_DISCARD)
        written = C.c_uint()
        gl.GetQueryObjectuiv(q, G.GL_QUERY_RESULT, C.byref(written))
        gl.check("geometry draw")
        count = written.value * per
        got = self._tf_read(bufs, strides, slots, count)
        return Capture(primitives=group_primitives(got, slots, written.value, per, lanes), glsl=src)

    def _run_fragment(self, glsl, reflection, lanes, inputs, uniforms, buffers, textures):
        gl = self.gl
        src, feeds = fragment_inputs(glsl)
        src, outs, extra = fragment_outputs(src, reflection)
        x, y, W, H = quad_layout(lanes)
        vs = ("#version 450 core\nvoid main()\n{\n    vec2 p = vec2(float((gl_VertexID & 1) * 4 - 1), "
              "float((gl_VertexID >> 1) * 4 - 1));\n    gl_Position = vec4(p, 0.0, 1.0);\n}\n")
        fs = program_stage(self._direct, src, feeds=feeds, extra=extra, glsl=glsl)
        prog = self.program([(G.GL_VERTEX_SHADER, vs), (G.GL_FRAGMENT_SHADER, fs)])
        self._objects.append(("program", prog))
        self._vao()
        # render targets
        fbo = gl.gen(gl.GenFramebuffers)
        self._objects.append(("fbo", fbo))
        gl.BindFramebuffer(G.GL_FRAMEBUFFER, fbo)
        targets = [(name, gtype, loc) for name, gtype, loc in outs] + [("xv_extra", "vec4", extra)]
        texs = {}
        for name, gtype, loc in targets:
            fmt, ext, typ = {"vec4": (G.GL_RGBA32F, G.GL_RGBA, G.GL_FLOAT),
                             "ivec4": (G.GL_RGBA32I, G.GL_RGBA_INTEGER, G.GL_INT),
                             "uvec4": (G.GL_RGBA32UI, G.GL_RGBA_INTEGER, G.GL_UNSIGNED_INT)}[gtype]
            tex = gl.gen(gl.GenTextures)
            self._objects.append(("texture", tex))
            gl.BindTexture(G.GL_TEXTURE_2D, tex)
            gl.TexImage2D(G.GL_TEXTURE_2D, 0, fmt, W, H, 0, ext, typ, None)
            gl.TexParameteri(G.GL_TEXTURE_2D, G.GL_TEXTURE_MIN_FILTER, G.GL_NEAREST)
            gl.TexParameteri(G.GL_TEXTURE_2D, G.GL_TEXTURE_MAG_FILTER, G.GL_NEAREST)
            gl.FramebufferTexture2D(G.GL_FRAMEBUFFER, G.GL_COLOR_ATTACHMENT0 + loc, G.GL_TEXTURE_2D,
                                    tex, 0)
            texs[name] = (tex, ext, typ)
        # input textures
        for name, gtype, unit in feeds:
            words = np.asarray(inputs[name], np.uint32).reshape(lanes, 4)
            img = np.zeros((H, W, 4), np.uint32)
            img[y, x] = words
            self._texture(TextureData(unit, "2D", [img], None if gtype == "vec4" else
                                      ("i" if gtype == "ivec4" else "u")))
        self._set_uniforms(prog, uniforms)
        self._bind_by_name(prog, reflection)
        self._set_buffers(buffers)
        self._textures(*self._tex)
        draw = [G.GL_NONE] * 8
        for _, _, loc in targets:
            draw[loc] = G.GL_COLOR_ATTACHMENT0 + loc
        n = max(loc for _, _, loc in targets) + 1
        gl.DrawBuffers(n, (C.c_uint * n)(*draw[:n]))
        status = gl.CheckFramebufferStatus(G.GL_FRAMEBUFFER)
        if status != G.GL_FRAMEBUFFER_COMPLETE:
            raise GLError(f"framebuffer incomplete (0x{status:x})")
        for name, gtype, loc in targets:
            if gtype == "vec4":
                gl.ClearBufferfv(G.GL_COLOR, loc, (C.c_float * 4)(0, 0, 0, 0))
            elif gtype == "ivec4":
                gl.ClearBufferiv(G.GL_COLOR, loc, (C.c_int * 4)(0, 0, 0, 0))
            else:
                gl.ClearBufferuiv(G.GL_COLOR, loc, (C.c_uint * 4)(0, 0, 0, 0))
        gl.Viewport(0, 0, W, H)
        gl.UseProgram(prog)
        gl.DrawArrays(G.GL_TRIANGLES, 0, 3)
        gl.check("fragment draw")
        gl.PixelStorei(G.GL_PACK_ALIGNMENT, 1)
        images = {}
        for name, (tex, ext, typ) in texs.items():
            img = np.zeros((H, W, 4), np.uint32)
            gl.BindTexture(G.GL_TEXTURE_2D, tex)
            gl.GetTexImage(G.GL_TEXTURE_2D, 0, ext, typ, img.ctypes.data_as(C.c_void_p))
            images[name] = img
        gl.check("fragment read back")
        return fragment_capture(images, x, y, reflection, src)
