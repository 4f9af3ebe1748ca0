"""How program bindings become GLSL interface variables (the documented interface mapping).

Every binding a program uses is *staged* through a private global: inputs are copied from the
GLSL inputs/built-ins at the start of ``main``, outputs are copied to the GLSL outputs at the
end (and before each ``EmitVertex``).  Registers are views onto those globals, so a binding
reached through two registers (an array and a direct use, as cgc writes) has one storage, and
partial writes (``result.depth.z``, ``result.pointsize.x``) need no special cases.

Locations.  Vertex attributes follow NVIDIA's conventional/generic aliasing (VP4, ARB Table X.2
aliasing): position 0, normal 2, color 3, secondary color 4, fog coordinate 5, texcoord[n] 8+n,
attrib[n] n.  Varyings between stages use one table for every stage, so a translated vertex
program links with a translated geometry or fragment program: color 0, secondary color 1,
back color 2, back secondary color 3, fog coordinate 4, texcoord[n] 5+n, attrib[n] 13+n, and
the vertex id a vertex program writes to ``result.id`` (read by geometry programs as
``vertex[m].id``) a flat ``int`` at 29.
Fragment outputs: result.color[n] at location n.  Built-ins: position, point size, clip
distances, depth, vertex/instance/primitive id, facing, layer.

Types.  Whether an interface variable is integer is decided per element -- per binding path AND
index -- from the registers bound to it (``INT OUTPUT o = result.color[1]`` makes
``result_color1`` an ``ivec4`` and leaves ``result_color0`` a ``vec4``).  Integer varyings are
``flat out ivec4`` / ``flat in ivec4`` in every stage and carry the integer's bits.  The private
staging storage of a path is one array, integer when any element is; values move between it
and the interface variables by bitcasts, never conversions.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from ..ir.model import Binding, Stage

VERTEX_ATTRIB_LOCATIONS = {"vertex.position": 0, "vertex.normal": 2, "vertex.color": 3,
                           "vertex.color.secondary": 4, "vertex.fogcoord": 5}
VARYING_LOCATIONS = {"color": 0, "color.secondary": 1, "color.back": 2, "color.back.secondary": 3,
                     "fogcoord": 4}
TEXCOORD_BASE = 5
ATTRIB_BASE = 13
ID_LOCATION = 29      # result.id (VP4) -> vertex[m].id (GEO4): a flat int varying
TGSI_GENERIC_BASE = 5  # TGSI GENERIC[n] (only TGSI programs use the *.generic paths)


#: descriptor binding of the subpass input of colour attachment n (TGSI FBFETCH, Vulkan):
#: FRAMEBUFFER_BINDING + n, clear of the parameter block (0), textures and buffers (40 + b)
FRAMEBUFFER_BINDING = 56


class NotExpressible(Exception):
    """A binding the target profile cannot express (reported as E7001)."""


@dataclass
class InterfaceVar:
    """One GLSL-level interface item, for the declarations and the reflection JSON."""

    name: str                     # GLSL name (or built-in)
    binding: str                  # binding text it carries
    direction: str                # in | out
    glsl_type: str                # vec4 | ivec4 | uvec4 | float | int
    location: int | None = None
    builtin: bool = False
    interpolation: str | None = None
    array: int | None = None      # geometry inputs: per-vertex arrays ([])
    components: str = "xyzw"      # which storage components travel
    block: str | None = None      # glsl330: the one-member interface block carrying a varying

    def binding_index(self) -> int:
        """The bracketed number of the binding text (``fragment.framebuffer[1]`` -> 1)."""
        return int(self.binding.rsplit("[", 1)[1].rstrip("]")) if "[" in self.binding else 0


@dataclass
class Group:
    """Private storage for one binding path (``fragment.texcoord``, ``result.color`` ...)."""

    path: str
    storage: str
    indexed: bool
    per_vertex: bool
    integer: bool
    indices: set = field(default_factory=set)

    @property
    def size(self) -> int:
        return max(self.indices) + 1 if self.indices else 1


@lru_cache(maxsize=4096)      # binding paths recur in every program
def sanitize(text: str) -> str:
    out = []
    for ch in text:
        out.append(ch if ch.isalnum() else "_")
    s = "".join(out)
    while "__" in s:
        s = s.replace("__", "_")
    return s.strip("_")


def varying_location(suffix: str, index: int | None) -> int:
    """Location of a varying (``color``, ``texcoord`` ...) shared by every stage."""
    if suffix in VARYING_LOCATIONS:
        return VARYING_LOCATIONS[suffix]
    if suffix == "texcoord":
        return TEXCOORD_BASE + (index or 0)
    if suffix == "attrib":
        return ATTRIB_BASE + index
    # TGSI varyings (frontends/tgsi/lower_registers.py): GENERIC[n] at 5 + n (n <= 26) and TEXCOORD[n] at
    # 31 - n, so the GENERIC indices Mesa's drivers use (up to ~25) fit GL's 32 locations.
    if suffix == "generic":
        return TGSI_GENERIC_BASE + index
    if suffix == "tgsi_texcoord":
        return 31 - index
    raise KeyError(suffix)


def input_interface(stage: Stage, b: Binding, integer: bool, interp: str | None,
                    vulkan: bool, nverts: int, name: str | None = None) -> tuple[InterfaceVar, str]:
    """(interface variable, GLSL expression giving the vec4/ivec4 value; ``{v}`` = vertex).
    ``name``: the variable's name when the program named it (``backends/names.py``); built-ins
    keep theirs."""
    path, idx = b.path, b.index
    if stage == Stage.COMPUTE:
        # the compute system values (frontends/tgsi/lower_memory.py): unsigned (x, y, z, 0)
        builtin = COMPUTE_BUILTINS.get(path)
        if builtin is None:
            raise NotExpressible(f"compute binding '{b.text()}'")
        return (InterfaceVar(builtin, b.text(), "in", "uvec3", builtin=True),
                f"ivec4(uvec4({builtin}, 0u))")
    if stage == Stage.VERTEX:
        if path == "vertex.id":
            name = "gl_VertexIndex" if vulkan else "gl_VertexID"
            return InterfaceVar(name, b.text(), "in", "int", builtin=True), f"ivec4({name}, 0, 0, 0)"
        if path == "vertex.instance":
            name = "gl_InstanceIndex" if vulkan else "gl_InstanceID"
            return InterfaceVar(name, b.text(), "in", "int", builtin=True), f"ivec4({name}, 0, 0, 0)"
        if path in VERTEX_ATTRIB_LOCATIONS:
            loc = VERTEX_ATTRIB_LOCATIONS[path]
        elif path == "vertex.texcoord":
            loc = 8 + idx
        elif path == "vertex.attrib":
            loc = idx
        else:
            raise NotExpressible(f"vertex binding '{b.text()}'")
        name = name or sanitize(b.text())
        return InterfaceVar(name, b.text(), "in", "vec4", loc), name
    if stage == Stage.FRAGMENT:
        if path == "fragment.position":
            return InterfaceVar("gl_FragCoord", b.text(), "in", "vec4", builtin=True), "gl_FragCoord"
        if path == "fragment.facing":
            return (InterfaceVar("gl_FrontFacing", b.text(), "in", "bool", builtin=True),
                    "vec4(gl_FrontFacing ? 1.0 : -1.0, 0.0, 0.0, 0.0)")
        if path == "primitive.id":
            return (InterfaceVar("gl_PrimitiveID", b.text(), "in", "int", builtin=True),
                    "ivec4(gl_PrimitiveID, 0, 0, 0)")
        if path == "fragment.pointcoord":
            # TGSI PCOORD: (s, t, 0, 1) of the point sprite (tgsi.rst "TGSI_SEMANTIC_PCOORD")
            return (InterfaceVar("gl_PointCoord", b.text(), "in", "vec2", builtin=True),
                    "vec4(gl_PointCoord, 0.0, 1.0)")
        if path == "fragment.sampleid":
            return (InterfaceVar("gl_SampleID", b.text(), "in", "int", builtin=True),
                    "ivec4(gl_SampleID, 0, 0, 0)")
        if path == "fragment.framebuffer":
            # TGSI FBFETCH: the colour attachment's value before this invocation.  Vulkan: a
            # subpass input on the same attachment (input_attachment_index = the colour
            # location, descriptor binding FRAMEBUFFER_BINDING + n).  OpenGL has it through
            # GL_EXT_shader_framebuffer_fetch (llvmpipe has it), which glslang -- xlate's
            # validator and the gl-spirv path -- does not implement: refused there
            if not vulkan:
                raise NotExpressible(
                    f"framebuffer fetch ({b.text()}, TGSI FBFETCH: GL_EXT_shader_framebuffer_"
                    f"fetch, which glslang does not implement; the vulkan profile has it as a "
                    f"subpass input)")
            name = f"xl_framebuffer{idx or 0}"
            return (InterfaceVar(name, b.text(), "in", "subpassInput",
                                 FRAMEBUFFER_BINDING + (idx or 0)), f"subpassLoad({name})")
        if path == "fragment.clip":
            return (InterfaceVar(f"gl_ClipDistance[{idx}]", b.text(), "in", "float", builtin=True),
                    f"vec4(gl_ClipDistance[{idx}], 0.0, 0.0, 0.0)")
        suffix = path.split(".", 1)[1]
        loc = varying_location(suffix, idx)
        name = name or sanitize(b.text())
        gtype = "ivec4" if integer else "vec4"
        if integer:
            interp = "FLAT"
        return InterfaceVar(name, b.text(), "in", gtype, loc, interpolation=interp), name
    # geometry (and tessellation: tess_interface.py first): per-vertex arrays
    if path == "primitive.id":
        return (InterfaceVar("gl_PrimitiveIDIn", b.text(), "in", "int", builtin=True),
                "ivec4(gl_PrimitiveIDIn, 0, 0, 0)")
    if path == "vertex.position":
        return (InterfaceVar("gl_in[].gl_Position", b.text(), "in", "vec4", builtin=True),
                "gl_in[{v}].gl_Position")
    if path == "vertex.pointsize":
        return (InterfaceVar("gl_in[].gl_PointSize", b.text(), "in", "float", builtin=True),
                "vec4(gl_in[{v}].gl_PointSize, 0.0, 0.0, 0.0)")
    if path == "vertex.clip":
        return (InterfaceVar(f"gl_in[].gl_ClipDistance[{idx}]", b.text(), "in", "float", builtin=True),
                f"vec4(gl_in[{{v}}].gl_ClipDistance[{idx}], 0.0, 0.0, 0.0)")
    if path == "vertex.id":
        name = name or "vertex_id"
        return (InterfaceVar(name, b.text(), "in", "int", ID_LOCATION, array=nverts),
                f"ivec4({name}[{{v}}], 0, 0, 0)")
    suffix = path.split(".", 1)[1].replace("color.front", "color")
    loc = varying_location(suffix, idx)
    name = name or sanitize(Binding(path, idx).text())
    gtype = "ivec4" if integer else "vec4"     # matches the integer varying a vertex program writes
    return InterfaceVar(name, b.text(), "in", gtype, loc, array=nverts), name + "[{v}]"


def output_interface(stage: Stage, b: Binding, integer: bool,
                     name: str | None = None) -> tuple[InterfaceVar, str]:
    """(interface variable, assignment template; ``{x}`` = the staged value, already bitcast
    to the variable's base type).  ``integer``: this element (binding path and index) is
    written through an integer register; ``name``: as for :func:`input_interface`."""
    path, idx = b.path, b.index
    if stage == Stage.FRAGMENT:
        if path == "result.depth":
            return InterfaceVar("gl_FragDepth", b.text(), "out", "float", builtin=True,
                                components="z"), "gl_FragDepth = {x}.z;"
        name = name or f"result_color{idx}"
        gtype = "ivec4" if integer else "vec4"
        return InterfaceVar(name, b.text(), "out", gtype, idx), f"{name} = {{x}};"
    if path == "result.position":
        return InterfaceVar("gl_Position", b.text(), "out", "vec4", builtin=True), "gl_Position = {x};"
    if path == "result.pointsize":
        return (InterfaceVar("gl_PointSize", b.text(), "out", "float", builtin=True, components="x"),
                "gl_PointSize = {x}.x;")
    if path == "result.clip":
        return (InterfaceVar(f"gl_ClipDistance[{idx}]", b.text(), "out", "float", builtin=True,
                             components="x"), f"gl_ClipDistance[{idx}] = {{x}}.x;")
    if path == "result.primid":
        return (InterfaceVar("gl_PrimitiveID", b.text(), "out", "int", builtin=True, components="x"),
                "gl_PrimitiveID = {x}.x;")
    if path == "result.layer":
        return (InterfaceVar("gl_Layer", b.text(), "out", "int", builtin=True, components="x"),
                "gl_Layer = {x}.x;")
    if path == "result.id":
        name = name or "result_id"
        return (InterfaceVar(name, b.text(), "out", "int", ID_LOCATION, components="x"),
                f"{name} = {{x}}.x;")
    suffix = path.split(".", 1)[1]
    loc = varying_location(suffix, idx)
    name = name or sanitize(b.text())
    # an integer varying carries its bits (declared 'flat out ivec4'), so a fragment program
    # reading it as a FLAT INT ATTRIB gets the integer, not a converted value
    gtype = "ivec4" if integer else "vec4"
    return InterfaceVar(name, b.text(), "out", gtype, loc), f"{name} = {{x}};"


INTEGER_PATHS = {"vertex.id", "vertex.instance", "primitive.id", "result.primid", "result.layer",
                 "result.id", "fragment.sampleid", "primitive.verticesin", "primitive.invocation"}
COMPUTE_BUILTINS = {"invocation.localid": "gl_LocalInvocationID",
                    "invocation.groupid": "gl_WorkGroupID",
                    "invocation.numgroups": "gl_NumWorkGroups",
                    "invocation.groupsize": "gl_WorkGroupSize"}
INTEGER_PATHS |= set(COMPUTE_BUILTINS)


def uniform_for(b: Binding) -> tuple[str, int | None, int]:
    """(uniform array name, element, array length contribution) for a parameter binding.

    ``program.local[n]`` -> ``program_local[n]``; ``state.matrix.mvp.row[r]`` ->
    ``state_matrix_mvp[r]``; ``state.light[2].diffuse`` -> ``state_light2_diffuse``."""
    if b.path in ("program.local", "program.env"):
        return b.path.replace(".", "_"), b.index, b.index + 1
    if b.path.startswith("state.matrix."):
        base = b.path[: -len(".row")]
        parts = base.split(".")
        # insert the matrix index after the matrix name (modelview1, texture0, program2)
        if b.index is not None:
            parts[2] = f"{parts[2]}{b.index}"
        name = sanitize(".".join(parts))
        return name, b.index2, 4
    return sanitize(b.text()), None, 0
