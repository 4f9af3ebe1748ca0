"""The TGSI shader as TGSI sees it: what the text parser and both binary readers produce.

This is the dialect-level form of a TGSI program, before lowering to the IR
(``lower.py``).  The text printer (``printer.py``) and the binary writer (``binary.py``) take it
back to text or tokens, so a round trip ``parse -> print -> parse`` can be checked on it and on
the IR lowered from it.  Everything here is plain data with value equality; positions (``span``)
do not take part in equality so that two parses of differently formatted text compare equal.

Register files, opcodes, semantics and targets are kept as the text spells them (upper case):
``TEMP``, ``CONST``, ``MAD``, ``GENERIC``, ``2D_ARRAY``.  Numbers of the binary formats are
mapped in ``binary.py`` (they differ between the seed document and Mesa versions).

Fields that only the seed token format can express (NV condition codes, source complement /
bias / scale, destination modulate, precision) are here too, so that a seed stream decodes
without loss; the text format has no syntax for them and the printer rejects them.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ...diagnostics import Span

PROCESSORS = ("VERT", "FRAG", "GEOM", "TESS_CTRL", "TESS_EVAL", "COMP")

#: register files as the text names them (tgsi.md 1.4)
FILES = ("NULL", "CONST", "IN", "OUT", "TEMP", "SAMP", "ADDR", "IMM", "PRED", "SV", "RES",
         "IMAGE", "SVIEW", "BUFFER", "MEMORY", "CONSTBUF", "HWATOMIC")

#: texture targets as the text names them, in enum order (tgsi.md 1.7)
TEXTURE_TARGETS = ("BUFFER", "1D", "2D", "3D", "CUBE", "RECT", "SHADOW1D", "SHADOW2D",
                   "SHADOWRECT", "1D_ARRAY", "2D_ARRAY", "SHADOW1D_ARRAY", "SHADOW2D_ARRAY",
                   "SHADOWCUBE", "2D_MSAA", "2D_ARRAY_MSAA", "CUBEARRAY", "SHADOWCUBEARRAY",
                   "UNKNOWN")

IMM_TYPES = ("FLT32", "UINT32", "INT32", "FLT64", "UINT64", "INT64")

INTERPOLATIONS = ("CONSTANT", "LINEAR", "PERSPECTIVE", "COLOR")
LOCATIONS = ("CENTER", "CENTROID", "SAMPLE")
RETURN_TYPES = ("UNORM", "SNORM", "SINT", "UINT", "FLOAT")

#: NV condition-code tests the seed format carries (INSTRUCTION_EXT_NV / DST_REGISTER_EXT_CONDCODE)
CC_TESTS = ("GT", "EQ", "LT", "UN", "GE", "LE", "NE", "TR", "FL")


def _span_field():
    return field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Indirect:
    """The address part of an indirect index: ``ADDR[0].x`` in ``TEMP[ADDR[0].x+3]``."""

    file: str = "ADDR"
    index: int = 0
    comp: int = 0                  # 0..3 = x..w
    array_id: int = 0


@dataclass(frozen=True)
class RegRef:
    """A register operand without modifiers: ``FILE[index]``, optionally indirect and 2-D.

    For 2-D operands (``CONST[1][5]``, ``IN[2][0]`` in a geometry shader) ``dim`` is the first
    bracket (constant buffer, vertex) and ``index`` the second.  ``dim_indirect`` makes the
    first bracket indirect (``CONST[ADDR[0].y][0]``), ``indirect`` the second
    (``TEMP[ADDR[0].x+3]``).  ``array_id`` is the ``(n)`` suffix of an indirect operand.
    """

    file: str
    index: int
    indirect: Indirect | None = None
    dim: int | None = None
    dim_indirect: Indirect | None = None
    array_id: int = 0


@dataclass(frozen=True)
class Src:
    """A source operand.

    ``swizzle`` entries 0..3 select x..w; 4 and 5 are the seed SWZ extension's constant 0.0 and
    1.0.  Modifiers apply in the seed order (tgsi.md 4.2): swizzle, ``comp_neg`` (per component),
    ``neg``, ``complement`` (1-x), ``bias`` (x-0.5), ``scale2x`` (2x), ``abs``, ``abs_neg``.  The
    text form ``-|X|`` is ``abs`` + ``abs_neg``; ``-X`` is ``neg``.  ``ext_divide`` is the seed
    ExtDivide selector (5 = ONE = no divide).
    """

    reg: RegRef
    swizzle: tuple[int, int, int, int] = (0, 1, 2, 3)
    neg: bool = False
    abs: bool = False
    abs_neg: bool = False
    comp_neg: tuple[bool, bool, bool, bool] = (False, False, False, False)
    complement: bool = False
    bias: bool = False
    scale2x: bool = False
    ext_divide: int = 5


@dataclass(frozen=True)
class CondCode:
    """An NV condition-code test (seed format only): ``test`` of CC register ``index``, with the
    CC component used for each destination channel (or, for flow, each tested channel)."""

    test: str = "TR"
    swizzle: tuple[int, int, int, int] = (0, 1, 2, 3)
    index: int = 0


@dataclass(frozen=True)
class Dst:
    reg: RegRef
    mask: tuple[bool, bool, bool, bool] = (True, True, True, True)
    cond: CondCode | None = None       # seed DST_REGISTER_EXT_CONDCODE
    modulate: str = "1X"               # seed DST_REGISTER_EXT_MODULATE: 1X 2X 4X 8X HALF QUARTER EIGHTH


@dataclass(frozen=True)
class Declaration:
    """``DCL FILE[first..last]`` with everything that may follow it.

    ``dim`` is the first bracket of a 2-D declaration (``DCL CONST[1][0..3]`` has dim 1);
    ``implicit_dim`` marks ``DCL IN[][0]`` (per-vertex geometry/tessellation inputs).
    ``usage_mask`` is the ``.xy`` after the brackets (None = all four).
    """

    file: str
    first: int
    last: int
    dim: int | None = None
    implicit_dim: bool = False
    usage_mask: tuple[bool, bool, bool, bool] | None = None
    array_id: int = 0
    local: bool = False
    semantic: str | None = None
    semantic_index: int = 0
    stream: tuple[int, int, int, int] | None = None
    interpolate: str | None = None     # CONSTANT LINEAR PERSPECTIVE COLOR
    location: str | None = None        # CENTROID SAMPLE (CENTER = None)
    invariant: bool = False
    # SVIEW: target and return type per channel; IMAGE: target, format, WR, RAW
    target: str | None = None
    return_types: tuple[str, str, str, str] | None = None
    format: str | None = None
    writable: bool = False
    raw: bool = False
    atomic: bool = False               # BUFFER ..., ATOMIC
    memory_type: str | None = None     # MEMORY: GLOBAL SHARED PRIVATE INPUT
    span: Span | None = _span_field()


@dataclass(frozen=True)
class Immediate:
    """``IMM[n] TYPE {...}``: ``words`` are the raw 32-bit words (four for 32-bit types; for
    64-bit types two values = four words, low word first)."""

    type: str
    words: tuple[int, ...]
    span: Span | None = _span_field()


@dataclass(frozen=True)
class Property:
    name: str
    value: str                         # as printed: a number or an enum name
    span: Span | None = _span_field()


@dataclass(frozen=True)
class Instruction:
    """One instruction.  ``label`` is the ``:N`` branch label (an instruction index) where the
    program has one; ``texture`` the target of TEX-style opcodes; ``tex_offsets`` the offset
    operands after it; ``memory`` the qualifiers/target/format of memory opcodes."""

    opcode: str
    dsts: tuple[Dst, ...] = ()
    srcs: tuple[Src, ...] = ()
    saturate: str = ""                 # "" | "SAT" | "SSAT" (seed MINUS_PLUS_ONE)
    precise: bool = False
    label: int | None = None
    texture: str | None = None
    tex_offsets: tuple[Src, ...] = ()
    memory: tuple[str, ...] = ()
    # seed INSTRUCTION_EXT_NV
    precision: str | None = None       # FLOAT32 FLOAT16 FIXED12
    cc_update: int | None = None       # CondDstUpdate: the CC register written
    cond: CondCode | None = None       # CondFlowEnable: execute only where the test passes
    span: Span | None = _span_field()


@dataclass
class Shader:
    """A whole TGSI program in stream order."""

    processor: str
    properties: list[Property] = field(default_factory=list)
    declarations: list[Declaration] = field(default_factory=list)
    immediates: list[Immediate] = field(default_factory=list)
    instructions: list[Instruction] = field(default_factory=list)
    version: tuple[int, int] | None = None     # seed VERSION token / "VERT1.1" header
    source_name: str = "<input>"

    def __eq__(self, other) -> bool:
        if not isinstance(other, Shader):
            return NotImplemented
        return (self.processor, self.properties, self.declarations, self.immediates,
                self.instructions) == (other.processor, other.properties, other.declarations,
                                       other.immediates, other.instructions)
