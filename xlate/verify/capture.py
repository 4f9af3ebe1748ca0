"""The harness's edits of a translation's GLSL interface, and the layouts of its draws: what
the GL runner (:mod:`xlate.verify.gl`) and the Vulkan runner (:mod:`xlate.verify.vulkan`) run.

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

``gl.Runner(precise=True)`` additionally passes every shader through :func:`make_precise`.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from . import glapi as G
from .glapi import GLError

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
    if stage == "tess_evaluation":
        # the patch and the tessellator's coordinate of each captured vertex (gl_tess.py)
        for var, t, value in (("xv_prim", "int", "gl_PrimitiveID"),
                              ("xv_tc", "vec4", "vec4(gl_TessCoord, 0.0)")):
            flat = "flat " if t == "int" else ""
            extra_decls.append(f"layout(location = {next(free)}) {flat}out {t} {var};")
            copies.append(f"{var} = {value};")
            slots.append(_Slot(var, t))
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
                    layout: str = "binding = {}",
                    keep=()) -> tuple[str, list[tuple[str, str, int]]]:
    """Replace every ``in`` declaration of a fragment shader by a texture-fed global.

    The k-th input is read from texture unit (GL) or descriptor binding (Vulkan) ``base - k``;
    ``layout`` is the layout qualifier text with ``{}`` for that number.  Returns the new text
    and [(input name, GLSL type, texture unit)].  The inputs named in ``keep`` stay varyings
    (planes the vertex shader makes: :func:`plane_varyings`)."""
    feeds = []
    decls = [m for m in _IN_DECL.finditer(src) if m.group(4) not in keep]
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


def plane_varyings(src: str, planes: dict) -> list[tuple[int, np.ndarray]]:
    """[(location, coefficients)] of the fragment inputs of ``src`` that ``planes`` (input
    name -> (3, 4) coefficients, :mod:`xlate.verify.planes`) makes planes."""
    out = []
    for m in _IN_DECL.finditer(src):
        if m.group(4) in planes:
            if m.group(3) != "vec4" or m.group(5):
                raise GLError(f"fragment input {m.group(4)} of type {m.group(3)}"
                              f"{m.group(5) or ''} cannot be a plane")
            out.append((int(m.group(1)), planes[m.group(4)]))
    return out


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
                  glsl: str = "", geometry: dict | None = None) -> str | bytes:
    """The program's own shader of a harness run: the edited GLSL ``src``, or -- ``direct``
    given, a callable :class:`xlate.backends.spirv_direct.Instrumentation` -> SPIR-V bytes --
    the direct SPIR-V path's module with the same edits made in SPIR-V (the capture ``slots``
    and ``strides`` of :func:`add_capture`, the ``feeds`` and ``extra`` output location of
    :func:`fragment_inputs` / :func:`fragment_outputs`; for a geometry program, the
    reflection's ``geometry``, the bounded emission of :func:`strip_room`)."""
    if direct is None:
        return src
    from ..backends.spirv_direct import Instrumentation
    limit = room = None
    if geometry is not None:
        limit = geometry["max_vertices"]
        room = limit + PRIMITIVE_VERTICES[geometry["output_primitive"]] - 1
    return direct(Instrumentation(capture={s.name: (s.buffer, s.offset) for s in capture},
                                  strides=list(strides),
                                  feeds={name: unit for name, _, unit in feeds},
                                  feed_upper_left=bool(_UPPER_LEFT.search(glsl)),
                                  extra_output=extra, emit_limit=limit, max_vertices=room))


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
