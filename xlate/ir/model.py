"""The IR: one representation for every input dialect.

A frontend removes its dialect's quirks, so that every field here has one meaning:

* Registers are declared once (:class:`Register`) with their kind, declared data type, array
  size and the original bindings they came from (``vertex.attrib[3]``, ``program.local[0..7]``,
  ``state.matrix.mvp.row[0]``).  Bindings used directly in an instruction become implicit
  registers, so operands only ever name registers.
* Literal constants are registers of kind ``CONST`` holding raw 32-bit words, typed by the
  instruction that uses them (``{2, -1}`` is 2.0/-1.0 for ``.F`` and 2/-1 for ``.S``).
* Every value in a register is four raw 32-bit words; an instruction's data type says how its
  operands are read and how its result is written.  This is exactly the NV_gpu_program4 model
  (typeless registers) and covers every older dialect (float only).
* Labels are pure markers.  A dialect where a label ends a subroutine (NV4: "an instruction label
  signifies the beginning of a new subroutine") gets an explicit ``RET`` from its frontend.
* Condition-code updates carry an explicit flag rule (:class:`CCKind`) chosen by the frontend,
  so the executor and the backends need no knowledge of which opcode produced the value.
"""
from __future__ import annotations

import enum
from dataclasses import MISSING, dataclass, field, fields, replace

from ..diagnostics import Span


def _direct_init(cls):
    """Give a frozen, slotted dataclass an ``__init__`` that stores each field through its slot.

    The generated one goes through ``object.__setattr__`` per field (a frozen class refuses
    plain assignment): 1.7x as slow, and the frontends make several of these values per
    instruction.  Slots rather than an instance dict: half the objects for the garbage
    collector, whose one pass after a parse (xlate/gcpause.py) walked a dict beside every
    Source and Dest.  Same signature and defaults (only plain defaults, no
    ``__post_init__``: checked here); instances stay frozen -- assigning a field still raises
    FrozenInstanceError -- and equality, hashing, ``replace`` and pickling are the dataclass's."""
    fs = fields(cls)
    if any(f.default_factory is not MISSING or not f.init for f in fs) \
            or hasattr(cls, "__post_init__") or "__slots__" not in cls.__dict__:
        raise TypeError(f"_direct_init: {cls.__name__} needs the generated __init__")
    scope = {f"_default_{f.name}": f.default for f in fs if f.default is not MISSING}
    scope.update({f"_set_{f.name}": cls.__dict__[f.name].__set__ for f in fs})
    params = ", ".join(f.name if f.default is MISSING else f"{f.name}=_default_{f.name}"
                       for f in fs)
    body = "".join(f"    _set_{f.name}(self, {f.name})\n" for f in fs)
    namespace: dict = {}
    exec(f"def __init__(self, {params}):\n{body}", scope, namespace)
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__doc__ = cls.__init__.__doc__
    cls.__init__ = init
    return cls


class _Enum(enum.Enum):
    """An enum hashed by identity, as it compares (Enum's own ``__hash__`` is a Python-level
    ``hash(self._name_)``, about 2 % of a translation: the IR keys dicts and sets by these).
    Neither hash is stable across processes (str hashes are seeded), and no output depends on
    set order (tests/test_determinism.py runs under several PYTHONHASHSEEDs)."""

    __hash__ = object.__hash__


class Stage(_Enum):
    VERTEX = "vertex"
    FRAGMENT = "fragment"
    GEOMETRY = "geometry"
    TESS_CTRL = "tess_control"
    TESS_EVAL = "tess_evaluation"
    COMPUTE = "compute"


class RegKind(_Enum):
    TEMP = "temp"
    INPUT = "input"        # attributes: vertex.*, fragment.*, primitive.*
    OUTPUT = "output"      # result.*
    PARAM = "param"        # program.local/env, state.*, constant vectors bound by PARAM
    CONST = "const"        # literal constants used directly in instructions
    BUFFER = "buffer"      # NV_parameter_buffer_object BUFFER (scalar words) / BUFFER4 (vectors)
    CC = "cc"              # condition-code registers (cc0, cc1)


class DataType(_Enum):
    FLOAT = "F"
    INT = "S"
    UINT = "U"
    NONE = "-"             # typeless: raw bits, read as the instruction's type


class Sat(_Enum):
    NONE = ""
    SAT = "SAT"            # clamp to [0, 1]
    SSAT = "SSAT"          # clamp to [-1, 1]


class CCKind(_Enum):
    """How a condition-code update derives its flags (GP4 2.X.4.3)."""

    FLOAT = "float"        # SF = r<0 || NaN, ZF = r==0 || NaN, OF = CF = 0
    INT = "int"            # SF = bit 31, ZF = r==0, OF = CF = 0
    ADD = "add"            # integer a+b(+c): OF signed overflow, CF carry out
    SUB = "sub"            # integer a-b: OF signed overflow, CF = no borrow (a >= b unsigned)
    UNDEF_OFCF = "undef"   # integer add of two negated operands: OF/CF undefined (we clear them)


COMPONENTS = "xyzw"


@_direct_init
@dataclass(frozen=True, slots=True)
class Binding:
    """Where a register element comes from, as the source program spelled it.

    ``path`` is the dotted binding name without indices (``vertex.attrib``,
    ``state.matrix.mvp.inverse.row``, ``result.color.back.secondary``); ``index`` the first
    bracketed number where the binding has one; ``index2`` the second (``state.matrix.texture[1]
    .row[2]`` has index 1 and index2 2; ``program.buffer[a][b]`` has index a, index2 b).
    ``vertex`` is set for geometry-program inputs bound to one vertex (``vertex[1].color``).
    """

    path: str
    index: int | None = None
    index2: int | None = None
    vertex: int | None = None

    def text(self) -> str:
        """The binding as assembly spells it (canonical spelling)."""
        parts = self.path.split(".")
        if self.vertex is not None:
            parts[0] += f"[{self.vertex}]"
        if self.path == "program.buffer":
            out = f"program.buffer[{self.index}]"
            return out + (f"[{self.index2}]" if self.index2 is not None else "")
        if self.path.startswith("state.matrix."):
            if self.index is not None:            # modelview[n], texture[n], program[n]
                parts[2] += f"[{self.index}]"
            if parts[-1] == "row" and self.index2 is not None:
                parts[-1] += f"[{self.index2}]"
            return ".".join(parts)
        if self.path.startswith("state.") and self.index is not None:
            parts[1] += f"[{self.index}]"         # light[n], lightprod[n], texgen[n], ...
            return ".".join(parts)
        if self.index is not None:
            parts[-1] += f"[{self.index}]"        # texcoord[n], attrib[n], local[n], color[n]
        return ".".join(parts)


@dataclass
class Register:
    """A declared (or implicit) variable.

    ``size`` is None for a single vec4, else the array length.  ``bindings`` has one entry per
    element for bound classes (inputs, outputs, params, buffers); temps have none.
    ``value`` holds the raw words of CONST registers (and of PARAM elements bound to constant
    vectors, per element).  ``per_vertex`` marks geometry inputs indexed by vertex first.
    BUFFER registers have a single binding ``program.buffer[a][start]``: element i is word (or,
    for BUFFER4, vec4) ``start + i`` of parameter buffer ``a``.
    """

    name: str
    kind: RegKind
    dtype: DataType = DataType.NONE
    size: int | None = None
    bindings: tuple[Binding | None, ...] = ()
    value: tuple[tuple[int, int, int, int], ...] | None = None
    precision: str | None = None           # "SHORT" | "LONG"
    interpolation: str | None = None       # "FLAT" | "CENTROID" | "NOPERSPECTIVE"
    per_vertex: bool = False
    buffer_vec4: bool = False              # BUFFER4 (vec4 elements) vs BUFFER (scalar words)
    span: Span | None = None
    implicit: bool = False                 # created for a binding or literal used in an instruction

    @property
    def length(self) -> int:
        return 1 if self.size is None else self.size


@_direct_init
@dataclass(frozen=True, slots=True)
class Index:
    """An array index: ``offset`` plus, when relative, one component of an integer register."""

    offset: int
    reg: str | None = None
    comp: int = 0

    @property
    def relative(self) -> bool:
        return self.reg is not None


@_direct_init
@dataclass(frozen=True, slots=True)
class CondTest:
    """A condition-code test ``RULE[n].swizzle``: per component, flags of ``cc`` tested by ``rule``."""

    rule: str                      # EQ NE LT LE GT GE TR FL NAN LEG CF NCF OF NOF AB BLE SF NSF
    cc: int = 0                    # which CC register (0 or 1)
    swizzle: tuple[int, int, int, int] = (0, 1, 2, 3)


@_direct_init
@dataclass(frozen=True, slots=True)
class Source:
    """An operand: element of a register, swizzled, then |abs|, then negated.

    ``swizzle`` entries are 0..3 for x..w, 4 for the constant 0 and 5 for the constant 1 (SWZ's
    extended selectors).  ``comp_neg`` negates single components (SWZ); ``neg``/``abs`` apply to
    all (GP4 2.X.4.2: negate inside |...| has no effect once the absolute value is taken).
    """

    reg: str
    index: Index | None = None
    vertex: Index | None = None    # geometry inputs: vertex number
    swizzle: tuple[int, int, int, int] = (0, 1, 2, 3)
    neg: bool = False
    abs: bool = False
    comp_neg: tuple[bool, bool, bool, bool] = (False, False, False, False)

    @property
    def is_scalar_select(self) -> bool:
        return len(set(self.swizzle)) == 1


@_direct_init
@dataclass(frozen=True, slots=True)
class Dest:
    reg: str
    index: Index | None = None
    mask: tuple[bool, bool, bool, bool] = (True, True, True, True)
    cond: CondTest | None = None   # conditional write mask (evaluated on the CC *before* the op)


@_direct_init
@dataclass(frozen=True, slots=True)
class TexRef:
    unit: int
    target: str                    # 1D 2D 3D CUBE RECT SHADOW1D ... ARRAY2D BUFFER ARRAYCUBE ... 2DMS
    offset: tuple[int, int, int] = (0, 0, 0)
    component: int = 0             # TXG: the component gathered (0..3; a shadow gather compares)


@_direct_init
@dataclass(frozen=True, slots=True)
class MemRef:
    """The memory an instruction of category ``mem`` (``LOAD``/``STORE``/...) reaches: the
    resource (``Program.resources[resource]``) and, for STORE, the 32-bit words written (its
    write mask: word c of the address is written from component c).  Memory is not a register:
    no pass sees it as one, so nothing moves a value across a store (backends bake every LOAD
    where it stands)."""

    resource: str                  # key of Program.resources ("BUFFER0", "MEMORY0")
    mask: tuple[bool, bool, bool, bool] = (True, True, True, True)
    flags: int = 0                 # MEMBAR: the tgsi.rst bitfield (1 buffers, 2 atomic, 4 images,
                                   # 8 shared, 16 thread group)


@dataclass(frozen=True)
class Resource:
    """Memory a program reaches by address: ``kind`` "buffer" (a shader storage buffer bound at
    ``binding``) or "shared" (workgroup-shared memory of ``size`` bytes, one copy per
    workgroup), addressed by byte offsets (word c of an access at offset + 4c); or "image" (an
    image unit ``binding`` of ``target`` -- 1D 2D 3D CUBE ARRAY1D ARRAY2D ARRAYCUBE BUFFER --
    and texel ``format``, a PIPE_FORMAT name without the prefix or None when the program
    only writes it and leaves the format to the bound image), addressed by texel coordinates."""

    name: str
    kind: str                      # "buffer" | "shared" | "image"
    binding: int
    size: int | None = None        # bytes (shared); None: the bound buffer's size
    span: Span | None = field(default=None, compare=False)
    target: str | None = None      # images: the IR texture target
    format: str | None = None      # images: R8G8B8A8_UNORM ... (None: unformatted, write-only)


#: the multisample targets (textures and images): a sample index beside the coordinates
MULTISAMPLE_TARGETS = ("2DMS", "ARRAY2DMS")

#: TGSI's atomic counter buffer b (``DCL HWATOMIC[b][i]``) is the storage buffer at binding
#: COUNTER_BINDING_BASE + b (BUFFER[n] take the bindings below it)
COUNTER_BINDING_BASE = 16


def storage_label(binding: int) -> str:
    """The source's name of the storage buffer at IR ``binding``: ``BUFFER[n]`` or, for an
    atomic counter buffer, ``HWATOMIC[b]``."""
    if binding >= COUNTER_BINDING_BASE:
        return f"HWATOMIC[{binding - COUNTER_BINDING_BASE}]"
    return f"BUFFER[{binding}]"


def storage_binding_of(label: str) -> int:
    """The IR binding of a storage buffer named by :func:`storage_label`."""
    file, rest = label.split("[", 1)
    n = int(rest[:-1])
    return n + COUNTER_BINDING_BASE if file == "HWATOMIC" else n


@dataclass(slots=True)
class Instruction:
    op: str
    dtype: DataType = DataType.FLOAT
    dst: Dest | None = None
    srcs: tuple[Source, ...] = ()
    sat: Sat = Sat.NONE
    cc_update: int | None = None            # CC register updated (0/1), None = no update
    cc_kind: CCKind | None = None           # flag rule for the update (set by the frontend)
    precision: str | None = None            # "R" / "H" (/ "X" in older dialects)
    mul_mode: str | None = None             # MUL: "HI" | "S24" | "U24"
    tex: TexRef | None = None
    label: str | None = None                # CAL target
    cond: CondTest | None = None            # IF/BRK/CONT/CAL/RET/KIL condition
    span: Span | None = None
    text: str = ""                          # the source statement, for comments and reports
    mem: MemRef | None = None               # category "mem": the memory reached

    def replace(self, **kw) -> Instruction:
        return replace(self, **kw)


@dataclass
class Geometry:
    input_primitive: str          # POINTS LINES LINES_ADJACENCY TRIANGLES TRIANGLES_ADJACENCY
    output_primitive: str         # POINTS LINE_STRIP TRIANGLE_STRIP
    vertices_out: int

    @property
    def input_vertices(self) -> int:
        return {"POINTS": 1, "LINES": 2, "LINES_ADJACENCY": 4, "TRIANGLES": 3,
                "TRIANGLES_ADJACENCY": 6}[self.input_primitive]


@dataclass
class Tessellation:
    """What a tessellation program declares (TGSI's TCS_*/TES_* properties, tgsi.rst).

    ``primitive`` (TES): the tessellator's domain, ``TRIANGLES``, ``QUADS`` or ``ISOLINES``
    (TGSI's PIPE_PRIM_LINES means isolines); ``spacing``: ``EQUAL``, ``FRACTIONAL_ODD`` or
    ``FRACTIONAL_EVEN``; ``vertex_order_cw`` and ``point_mode`` as GLSL's layout qualifiers.
    ``vertices_out`` (TCS): the output patch size (``layout(vertices = N) out``).
    ``patch_vertices``: how many vertices of the per-vertex inputs (and, in a TCS, outputs)
    the program can address: the elements the executor binds and the backends stage."""

    primitive: str | None = None
    spacing: str = "EQUAL"
    vertex_order_cw: bool = False
    point_mode: bool = False
    vertices_out: int | None = None
    patch_vertices: int = 32
    #: TCS: per-patch output binding text -> element of its written-components register
    #: (``tcs.written[j]``; frontends/tgsi/lower_tess.py)
    written: dict[str, int] = field(default_factory=dict)


#: the binding path of a TESS_CTRL per-patch output's written-components register
#: (Tessellation.written; frontends/tgsi/lower_tess.py)
TCS_WRITTEN_PATH = "tcs.written"
#: stages whose inputs are arrays over the vertices of a primitive or patch
PER_VERTEX_STAGES = frozenset({Stage.GEOMETRY, Stage.TESS_CTRL, Stage.TESS_EVAL})
TESS_STAGES = frozenset({Stage.TESS_CTRL, Stage.TESS_EVAL})


def input_vertices(prog) -> int:
    """The vertex count of a program's per-vertex inputs (0: it has none)."""
    if prog.stage == Stage.GEOMETRY and prog.geometry is not None:
        return prog.geometry.input_vertices
    if prog.stage in TESS_STAGES and prog.tessellation is not None:
        return prog.tessellation.patch_vertices
    return 0


@dataclass
class VarInfo:
    """One ``#var`` line of a cgc header: how a high-level parameter was bound (reflection)."""

    type: str
    name: str
    semantic: str
    resource: str
    param_index: str
    referenced: bool


@dataclass(frozen=True)
class SourceName:
    """A name the program's author gave one thing the program binds, as its compiler recorded
    it (cgc's ``#var`` header): the frontend resolves the compiler's resource (``c[2]``,
    ``TEX0``, ``texunit 0``) to the IR's terms, the backends make identifiers of it.

    ``kind``: ``input`` / ``output`` (``binding`` is the interface element, ``path`` and
    ``index`` only), ``param`` (``binding`` is the parameter element holding row ``row`` of a
    value over ``rows`` registers: a ``float4x4`` is 4 rows) or ``texture`` (``unit``).
    ``name`` is spelled as written (``IN.texture_size``, ``tx[0]``); ``referenced``: the
    compiler said the program uses it (the one that wins when several names share a register)."""

    kind: str
    name: str
    binding: Binding | None = None
    unit: int | None = None
    row: int = 0
    rows: int = 1
    referenced: bool = True


#: MAX_PROGRAM_CALL_DEPTH_NV, one value for every dialect and every part of xlate (frontends,
#: executor, structurizer, GLSL backend): at most this many calls pending; a CAL made with this
#: many pending overflows the call stack, and ``Program.call_overflow`` says what happens.  4 is
#: the smallest limit the specs allow an implementation, so a program correct on every
#: implementation stays within it.
MAX_CALL_DEPTH = 4


@dataclass
class Program:
    """A whole program in linear form: instructions in source order, labels as markers."""

    stage: Stage
    dialect: str                                   # header without "!!", e.g. "NVfp4.0"
    registers: dict[str, Register] = field(default_factory=dict)
    instructions: list[Instruction] = field(default_factory=list)
    labels: dict[str, int] = field(default_factory=dict)   # label -> index of next instruction
    entry: int = 0                                 # where execution starts (after `main:`)
    options: tuple[str, ...] = ()
    geometry: Geometry | None = None
    tessellation: Tessellation | None = None
    vars: list[VarInfo] = field(default_factory=list)
    source_names: list[SourceName] = field(default_factory=list)   # resolved from ``vars``
    source_name: str = "<input>"
    diagnostics: list = field(default_factory=list)        # warnings of a successful parse
    # Dialect limits made explicit (executor and backends read these, never the dialect name):
    call_overflow: str = "ignore"     # a CAL with 4 returns pending: "ignore" (NV4, GP4 issue 38)
                                      # or "terminate" the program (VP2, ARB options, FP2)
    # MAX_PROGRAM_CALL_DEPTH_NV of the implementation the executor models: MAX_CALL_DEPTH, the
    # specs' smallest, everywhere in xlate; only the cgc oracle's ``call-depth`` counterfactual
    # (verify/oracle_depth.py) runs a copy with a deeper stack, as NVIDIA's implementation has
    call_depth: int = MAX_CALL_DEPTH
    max_exec_instructions: int | None = None   # VP2/ARB+NV2/FP2: 65536 executed -> terminate
    # FP2 3.11.X.7-9: (IF, loop) run-time nesting limits -- an IF executed with that many IF
    # blocks active, or a LOOP/REP with that many LOOP/REP blocks active (blocks of the calling
    # code included), terminates the program abnormally.  None: no run-time limit (NV4: per
    # subroutine, checked at load time only).
    nesting_limits: tuple[int, int] | None = None
    # GL_ARB_fragment_coord_conventions (ARBfp OPTIONs): the window coordinates the input
    # fragment.position holds -- origin at the upper left (y grows downwards) and/or pixel
    # centres on integers (x.0 instead of x.5).  The executor reads fragment.position as given
    # (its caller supplies values in these conventions, as verify's harness does); the GLSL
    # backend declares gl_FragCoord with the same layout.
    fragcoord_origin_upper_left: bool = False
    fragcoord_pixel_center_integer: bool = False
    # compute programs: the workgroup size (x, y, z) and the memory they address by byte
    # offsets (storage buffers, shared memory), by name (MemRef.resource)
    local_size: tuple[int, int, int] | None = None
    resources: dict[str, Resource] = field(default_factory=dict)
    # the verifier's probe programs (verify/trace.without_kills): a KIL that would end the
    # invocation flags it instead -- it runs on and writes its outputs (the probes among them),
    # but it is no longer an active invocation for the inter-lane opcodes, as after a real KIL.
    # The executor and the GLSL backend both read it; no frontend sets it.
    kills_as_flags: bool = False

    def reg(self, name: str) -> Register:
        return self.registers[name]

    def labels_at(self, index: int) -> list[str]:
        return [name for name, at in self.labels.items() if at == index]

    def case_value(self, ins: Instruction) -> int:
        """The unsigned constant of a CASE instruction (a component of a CONST register)."""
        src = ins.srcs[0]
        reg = self.registers[src.reg]
        element = src.index.offset if src.index is not None else 0
        return int(reg.value[element][src.swizzle[0]])
