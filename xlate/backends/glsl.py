"""Structured IR -> GLSL source (profiles ``glsl450``, ``vulkan``, ``glsl330`` and ``es310``).

Per-opcode expressions come from one table (``templates/glsl/ops.txt``), helper functions from
``templates/glsl/helpers.glsl`` (emitted only when used), the file layout from
``templates/glsl/program.j2`` (Jinja, StrictUndefined).  The ``#version`` header is rendered last,
from requirements collected while the body was emitted.  Interface mapping: ``interface.py``.

Where the value model matters:
* registers hold raw 32-bit words in the IR; a GLSL register gets the type the ``types`` pass
  chose and every access whose type differs is a bitcast (never a conversion);
* a write with a condition-code mask or a CC update goes through a temporary and ``mix`` with a
  boolean vector (an exact select, never an arithmetic blend);
* relative indices are clamped into the array (the executor does the same; the specs leave
  out-of-range reads undefined);
* every variable that receives computed values is declared ``precise`` (GLSL 4.50 §4.7.1;
  glslang decorates the operations ``NoContraction``): registers, staged outputs, the write
  temporaries, and the results and locals of the helper functions (:func:`precise_helper`).
  NV_gpu_program4 issue 18 has every instruction round its result, so the implementation may
  not contract ``MAD``+``ADD`` into one fused multiply-add or reassociate.  The input staging
  arrays and parameter copies are only copied into, and stay unqualified.

Profiles (:data:`PROFILE_INFO`; README "Profiles").  GLSL 3.30 has no ``precise`` (GLSL 4.00;
glslang refuses it through GL_ARB_gpu_shader5 in a 3.30 shader): the glsl330 output is the same
program without the qualifier, and says so in its header comment.  That is a documented
reading, not an equivalence: an implementation that contracts ``a * b + c`` into a fused
multiply-add rounds once where the assembly rounds twice, and llvmpipe does contract (measured:
corpus/nv4/vp4_wave_float_ops.vp differs from the executor without ``precise``).  es310 keeps it
as ``xl_precise`` where GL_EXT/OES_gpu_shader5 exist (:data:`ES_PRECISE_HEADER`).  Features a
profile lacks are either written in plain GLSL of that
version where that is exact (helpers.glsl sections ``name@glsl330``: carries, high products,
fp16/unorm packing, integer selects) or rejected with E7001 naming the feature, the profile and
the instruction or declaration that needs it -- never replaced by something with other results.
Line map: every emitted line is tagged with the source line of the IR node it came from
(:data:`_TAG`), which gives :attr:`GlslOutput.line_map`, the optional ``#line`` directives and the
optional instruction comments; the tags are removed before the text is returned.
"""
from __future__ import annotations

import math
import re
import struct
from dataclasses import dataclass, field, replace
from functools import lru_cache
from importlib import resources
from pathlib import Path

from .. import __version__
from ..diagnostics import Diagnostic, XlateError
from ..ir.model import (MAX_CALL_DEPTH, Binding, CCKind, CondTest, DataType, Index, Instruction,
                        Program, RegKind, Sat, Source, Stage)
from ..ir.ops import COMPONENTWISE, OPCODES
from ..passes.pipeline import lower
from ..passes.structurize import CountTest, Dispatch, Goto, Labeled
from ..passes.structurize import If, Jump, Loop, Op, Structured, Switch, calls_in
from ..passes.types import RAW_OPERAND_OPS, operand_type, result_type
from . import interface as I

PROFILES = ("glsl450", "vulkan", "glsl330", "es310")


@dataclass(frozen=True)
class ProfileInfo:
    """What the GLSL version of a profile offers, for the features this backend uses."""

    version: str                   # argument of the #version line
    language: str                  # for messages and the header comment
    es: bool = False               # OpenGL ES: precision statements, no 1D/RECT/BUFFER textures ...
    precise: str | None = "precise"  # the word of 'precise' (GLSL 4.00, ES 3.20), or None
    layouts: bool = True           # layout(location) on uniforms (4.30, ES 3.10), layout(binding) (4.20)
    varying_locations: bool = True  # layout(location) on varyings (4.10, ES 3.10)
    arrays_of_arrays: bool = True  # vec4 a[3][8] (4.30, ES 3.10)
    integer_mix: bool = True       # mix(ivec, ivec, bvec) (4.50, ES 3.10)
    fine_derivatives: bool = True  # dFdxFine / dFdyFine (4.50)
    array_shadow_offset: bool = True  # textureOffset(sampler2DArrayShadow, ...) (4.30; not in ES)


# es310: 'precise' where the implementation has GL_EXT_gpu_shader5 or GL_OES_gpu_shader5 (the
# mobile GPUs that fuse multiply-adds have them), else nothing: the header defines xl_precise
# (an xl_ name: no register can have it) as one or the other.  Removing a qualifier leaves a
# valid declaration, so the branch glslang does not take (it has GL_EXT_gpu_shader5) compiles
# too (tests/test_glsl_profiles.py compiles both).
ES_PRECISE = "xl_precise"
ES_PRECISE_HEADER = ("#if defined(GL_EXT_gpu_shader5)\n#extension GL_EXT_gpu_shader5 : enable\n"
                     "#define xl_precise precise\n#elif defined(GL_OES_gpu_shader5)\n"
                     "#extension GL_OES_gpu_shader5 : enable\n#define xl_precise precise\n"
                     "#else\n#define xl_precise\n#endif")

PROFILE_INFO = {
    "glsl450": ProfileInfo("450 core", "GLSL 4.50"),
    "vulkan": ProfileInfo("450", "GLSL 4.50 (Vulkan)"),
    "glsl330": ProfileInfo("330 core", "GLSL 3.30", precise=None, layouts=False,
                           varying_locations=False, arrays_of_arrays=False, integer_mix=False,
                           fine_derivatives=False, array_shadow_offset=False),
    "es310": ProfileInfo("310 es", "GLSL ES 3.10", es=True, precise=ES_PRECISE, fine_derivatives=False,
                         array_shadow_offset=False),
}
#: es310: texture targets OpenGL ES 3.1 has no sampler for, by the feature named in E7001
ES_MISSING_TARGETS = {"1D": "1D textures", "SHADOW1D": "1D textures", "ARRAY1D": "1D textures",
                      "SHADOWARRAY1D": "1D textures", "RECT": "rectangle textures",
                      "SHADOWRECT": "rectangle textures", "BUFFER": "buffer textures"}
MAX_UNIFORM_LOCATIONS = 1024   # GL_MAX_UNIFORM_LOCATIONS minimum (GL 4.5 Table 23.53)
VEC = {DataType.FLOAT: "vec4", DataType.INT: "ivec4", DataType.UINT: "uvec4"}
SCALAR = {DataType.FLOAT: "float", DataType.INT: "int", DataType.UINT: "uint"}
TYPE_CHAR = {DataType.FLOAT: "F", DataType.INT: "S", DataType.UINT: "U"}
COMP = "xyzw"
GLSL_RESERVED = frozenset("""
attribute const uniform varying buffer shared coherent volatile restrict readonly writeonly atomic_uint
layout centroid flat smooth noperspective patch sample break continue do for while switch case default
if else subroutine in out inout float double int void bool true false invariant precise discard return
mat2 mat3 mat4 dmat2 dmat3 dmat4 vec2 vec3 vec4 ivec2 ivec3 ivec4 bvec2 bvec3 bvec4 uint uvec2 uvec3
uvec4 dvec2 dvec3 dvec4 lowp mediump highp precision struct common partition active asm class union
enum typedef template this resource goto inline noinline public static extern external interface long
short half fixed unsigned superp input output hvec2 hvec3 hvec4 fvec2 fvec3 fvec4 filter sizeof cast
namespace using main texture textureLod textureGrad texelFetch textureSize sampler image abs sign floor
ceil trunc round fract mod min max clamp mix step smoothstep sqrt inversesqrt exp exp2 log log2 pow sin
cos tan dot cross normalize length distance reflect refract any all not equal lessThan greaterThan
isnan isinf dFdx dFdy fwidth EmitVertex EndPrimitive
""".split())

_TEMPLATES = Path(__file__).resolve().parent.parent / "templates" / "glsl"
# Line tags: emit_body appends "\x00<source line>\x00" ("\x00<line>c\x00" for an instruction
# comment) to every line an IR node produced; finish_lines turns them into the line map and
# removes them.  NUL never occurs in GLSL (glslang refuses it), so a tag cannot be mistaken.
_TAG = re.compile("\x00(\\d+)(c?)\x00")
# lines no compiler message can be about: with #line directives their numbers do not matter
_FILLER = frozenset(["", "{", "}", "else", "do", "} while (false);"])
# Qualifier of global variables that receive computed values.  ``highp`` (no effect in desktop
# GLSL, 4.50 §4.7) is not decoration: glslang 13.1 gives a global declared with only ``precise``
# temporary storage -- a Function variable of ``main`` that the other functions then use, which
# spirv-val rejects ("does not dominate its use") and Mesa's GL_ARB_gl_spirv crashes on.
PRECISE_GLOBAL = "precise highp"


def _template_dir() -> Path:
    """templates/ of a checkout, or xlate/templates/ inside an installed wheel."""
    installed = Path(str(resources.files("xlate"))) / "templates" / "glsl"
    if installed.is_dir():
        return installed
    checkout = Path(__file__).resolve().parents[2] / "templates" / "glsl"
    return checkout


@lru_cache(maxsize=1)
def snippet_table() -> dict[tuple[str, str], tuple[str, tuple[str, ...]]]:
    """(opcode, type char) -> (expression, helpers) from ops.txt."""
    table = {}
    for line in (_template_dir() / "ops.txt").read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        parts = re.split(r"\s{2,}", line.strip())
        op, types, expr = parts[0], parts[1], parts[2]
        helpers = tuple(parts[3].split()) if len(parts) > 3 else ()
        for t in types:
            table[(op, t)] = (expr, helpers)
    return table


@lru_cache(maxsize=1)
def helper_library() -> dict[str, tuple[str, tuple[str, ...]]]:
    """helper name -> (GLSL text, helpers it needs) from helpers.glsl."""
    out = {}
    text = (_template_dir() / "helpers.glsl").read_text()
    for chunk in re.split(r"^//@ ", text, flags=re.M)[1:]:
        head, _, body = chunk.partition("\n")
        name, _, needs = head.partition("needs:")
        out[name.strip()] = (body.strip() + "\n", tuple(needs.split()))
    return out


@lru_cache(maxsize=1)
@lru_cache(maxsize=1)
def cc_value_tests() -> dict[str, tuple[str, str]]:
    """rule -> (scalar form, vector form) of a test of a register holding a float value
    (``cctests_value.txt``)."""
    out = {}
    for line in (_template_dir() / "cctests_value.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            rule, rest = line.split(None, 1)
            scalar, vector = rest.split(" | ", 1)
            out[rule] = (scalar.strip(), vector.strip())
    return out


def cc_tests() -> dict[str, str]:
    out = {}
    for line in (_template_dir() / "cctests.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            rule, expr = line.split(None, 1)
            out[rule] = expr.strip()
    return out


@lru_cache(maxsize=1)
def _jinja_env():
    import jinja2
    return jinja2.Environment(loader=jinja2.FileSystemLoader(str(_template_dir())),
                              undefined=jinja2.StrictUndefined, keep_trailing_newline=True,
                              trim_blocks=False, lstrip_blocks=False, autoescape=False)


@lru_cache(maxsize=8192)
def float_literal(bits: int) -> str:
    """Shortest GLSL literal that reads back as exactly these float32 bits."""
    value = struct.unpack("<f", struct.pack("<I", bits))[0]
    if not math.isfinite(value):
        # GLSL has no NaN or infinity literal; the bit pattern is the only exact spelling (and,
        # not being a constant expression for glslang, it cannot initialize a const: see
        # literal_table_exact)
        return f"uintBitsToFloat(0x{bits:08x}u)"
    if bits == 0x80000000:
        # a constant expression (glslang and Mesa fold the negation of 0.0 to the -0.0 bits),
        # so -0.0 may stay in a const array initializer
        return "-0.0"
    for digits in range(6, 10):
        text = f"{value:.{digits}g}"
        if struct.unpack("<f", struct.pack("<f", float(text)))[0] == value:
            break
    if "e" in text:
        mant, exp = text.split("e")
        if "." not in mant:
            mant += ".0"
        return f"{mant}e{int(exp)}"
    return text if "." in text else text + ".0"


def int_literal(bits: int, dtype: DataType) -> str:
    if dtype == DataType.UINT:
        return f"{bits}u" if bits < 1 << 16 else f"0x{bits:08x}u"
    value = bits - (1 << 32) if bits & 0x80000000 else bits
    if value == -(1 << 31):
        return "(-2147483647 - 1)"
    return str(value)


def literal(bits: int, dtype: DataType) -> str:
    return float_literal(bits) if dtype == DataType.FLOAT else int_literal(bits, dtype)


def vec_type(dtype: DataType, n: int) -> str:
    """``vec3``, ``ivec2``, ``uint``...: the GLSL type of ``n`` components of ``dtype``."""
    return SCALAR[dtype] if n == 1 else f"{VEC[dtype][:-1]}{n}"


def vector_literal(words, dtype: DataType) -> str:
    """A literal of as many components as ``words`` (one word: a scalar literal)."""
    parts = [literal(w, dtype) for w in words]
    if len(parts) == 1:
        return parts[0]
    ctor = vec_type(dtype, len(parts))
    if len(set(parts)) == 1:
        return f"{ctor}({parts[0]})"
    return f"{ctor}({', '.join(parts)})"


def bitcast(expr: str, src: DataType, dst: DataType, scalar: bool = False) -> str:
    if src == dst:
        return expr
    if src == DataType.FLOAT:
        if expr.startswith("uintBitsToFloat(") and wrapped(expr[len("uintBitsToFloat"):]):
            # bits read back as integers (a table of bits, param_relative) never pass through
            # a float: GLSL leaves the value of uintBitsToFloat(NaN bits) unspecified
            inner = expr[len("uintBitsToFloat("):-1]
            ctor = SCALAR[dst] if scalar else VEC[dst]
            return inner if dst == DataType.UINT else f"{ctor}({inner})"
        return f"{'floatBitsToInt' if dst == DataType.INT else 'floatBitsToUint'}({expr})"
    if dst == DataType.FLOAT:
        return f"{'intBitsToFloat' if src == DataType.INT else 'uintBitsToFloat'}({expr})"
    ctor = SCALAR[dst] if scalar else VEC[dst]
    return f"{ctor}({expr})"


#: an ops.txt expression that works on one size of vector only: a constructor, a helper
#: function (declared for vec4), or a swizzle of its own
_NOT_SIZE_GENERIC = re.compile(r"\b[iu]?vec\d|\bxl_|\.[xyzw]|\bpack|\bunpack")
_ARITH = re.compile(r" [-+*/] ")      # a binary float operator of an ops.txt expression
#: an expression that needs no parentheses under a unary minus or a swizzle: a name, an
#: element, a member
_PLAIN = re.compile(r"[\w.\[\]]+")
_SWIZZLED = re.compile(r"(-?[A-Za-z_][\w]*(?:\[[^\[\]]*\])*)\.([xyzw]{4})")


def _memo(fn):
    """A dict-backed cache for a pure function of one hashable argument (lru_cache's wrapper
    costs more than these small functions; their arguments take few values)."""
    table: dict = {}

    def cached(arg):
        try:
            return table[arg]
        except KeyError:
            value = table[arg] = fn(arg)
            return value
    return cached


@_memo
def swizzle_text(sel: tuple[int, ...]) -> str:
    """``(1, 2, 0, 3)`` -> ``"yzxw"`` (plain selectors 0..3 only)."""
    return "".join(COMP[c] for c in sel)


@_memo
def mask_text(mask: tuple[bool, bool, bool, bool]) -> str:
    """The components a write mask enables: ``(True, False, True, False)`` -> ``"xz"``."""
    return "".join(c for c, on in zip(COMP, mask) if on)


_DOUBLE_SWIZZLE = re.compile(r"((?<![\w.])[A-Za-z_]\w*(?:\[[^\[\]]*\])*)\.([xyzw]{1,4})\.([xyzw]{1,4})\b")


def compose_swizzles(text: str) -> str:
    """``R1.zwzw.xy`` -> ``R1.zw``: a swizzle of a swizzled name or element, as one swizzle."""
    def one(m: re.Match) -> str:
        inner = m.group(2)
        if any(COMP.index(c) >= len(inner) for c in m.group(3)):
            return m.group(0)
        return f"{m.group(1)}.{''.join(inner[COMP.index(c)] for c in m.group(3))}"
    return _DOUBLE_SWIZZLE.sub(one, text)


_PLUS_NEGATED = re.compile(r" \+ -(?=[\w(])")
#: a vector literal with one value for every component: ``vec2(0.5)``, ``ivec4(-3)``
_LITERAL_SPLAT = re.compile(r"[iu]?vec[234]\((-?(?:\d+\.?\d*(?:e-?\d+)?|0x[0-9a-f]+)u?)\)")


def right_side(expr: str) -> str:
    """The right-hand side of an assignment as a person writes it: no parentheses around the
    whole, ``a - b`` for ``a + -b`` (the same operation: IEEE 754 defines x - y as x + (-y), and
    two's complement wraps alike; only a NaN's sign may differ, and NaN payloads are open)."""
    if wrapped(expr):
        expr = expr[1:-1]
    return _PLUS_NEGATED.sub(" - ", expr)


def splat_literals(srcs: list[str], template: str, vectors: list[bool]) -> list[str]:
    """``R1.xy * vec2(0.5)`` -> ``R1.xy * 0.5``: in an expression of operators only (GLSL
    applies a scalar to every component), a literal with one value for every component is
    written as that scalar -- when another operand, not such a literal, is a vector
    (``vectors[i]``), so that the result keeps its size."""
    if re.search(r"\w\(", template):
        return srcs
    splat = [_LITERAL_SPLAT.fullmatch(x) for x in srcs]
    if not any(v and m is None for v, m in zip(vectors, splat)):
        return srcs
    return [m.group(1) if m else x for m, x in zip(splat, srcs)]


def called(expr: str) -> bool:
    """True when the whole expression is one function call: ``texture(s, c)``."""
    m = re.match(r"[A-Za-z_]\w*", expr)
    return m is not None and wrapped(expr[m.end():])


def wrapped(expr: str) -> bool:
    """True when the whole expression is one parenthesized group: ``(a + b)``."""
    if not expr.startswith("("):
        return False
    depth = 0
    for i, ch in enumerate(expr):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0:
            return i == len(expr) - 1
    return False


def negate_bits(bits: int, dtype: DataType) -> int:
    return bits ^ 0x80000000 if dtype == DataType.FLOAT else (-bits) & 0xFFFFFFFF


def abs_bits(bits: int, dtype: DataType) -> int:
    if dtype == DataType.FLOAT:
        return bits & 0x7FFFFFFF
    if dtype == DataType.INT and bits & 0x80000000:
        return (-bits) & 0xFFFFFFFF
    return bits


@dataclass
class GlslOutput:
    source: str
    reflection: dict
    stage: Stage
    #: source line each GLSL line came from: ``line_map[i]`` for line ``i + 1`` of ``source``
    #: (0: no instruction -- declarations, helpers, ``#line`` directives)
    line_map: list[int] = field(default_factory=list)


@dataclass
class _Tex:
    unit: int
    target: str
    dtype: DataType
    name: str = ""


def called_copies(st: Structured) -> set[tuple[str, int]]:
    """(subroutine, call depth) pairs some call reaches when every subroutine has one copy per
    depth: main calls the depth-1 copies, the copy at depth d calls those at d + 1, and a CAL in
    a copy at MAX_CALL_DEPTH has no effect (GP4 issue 38).  Only these copies are emitted."""
    seen: set[tuple[str, int]] = set()
    todo = [(call.target, 1) for call in calls_in(st.main.body)]
    while todo:
        key = todo.pop()
        if key in seen:
            continue
        seen.add(key)
        name, depth = key
        if depth < MAX_CALL_DEPTH:
            todo += [(call.target, depth + 1) for call in calls_in(st.functions[name].body)]
    return seen


class GlslEmitter:
    def __init__(self, prog: Program, profile: str = "glsl450", *, line_directives: bool = False,
                 comments: bool = False, instruction_text=None):
        if profile not in PROFILES:
            raise ValueError(f"unknown GLSL profile {profile!r} (expected one of {', '.join(PROFILES)})")
        self.prog = prog
        self.profile = profile
        self.info = PROFILE_INFO[profile]
        self.vulkan = profile == "vulkan"
        self.line_directives = line_directives
        self.comments = comments
        # Instruction -> its text for the comments (the API passes the source's own text); the
        # IR printer's form when the caller has none (a TGSI token stream has no text)
        self.instruction_text = instruction_text
        self.extensions: list[str] = []         # #extension ... : require, in order of need
        self.notes: list[str] = []              # header comment lines (profile readings)
        self.stage = prog.stage
        self.types: dict = {}               # from the middle end (emit)
        self.cc_used: set[int] = set()
        self.cc_values: set[int] = set()    # CC registers holding a float value (condcodes.py)
        self.helpers: list[str] = []
        self.names: dict[str, str] = {}
        self.taken: set[str] = set()
        self.inputs: dict[str, I.Group] = {}
        self.outputs: dict[str, I.Group] = {}
        self.input_vars: list[tuple[I.InterfaceVar, str, Binding]] = []
        self.output_vars: list[tuple[I.InterfaceVar, str, Binding]] = []
        self.uniforms: dict[str, int] = {}          # uniform array name -> length (0 = single)
        self.uniform_bindings: dict[str, dict[int | None, str]] = {}
        self.param_arrays: dict[str, str] = {}      # PARAM register -> materialized global
        self.textures: dict[int, _Tex] = {}
        self.buffers: dict[int, int] = {}           # program.buffer index -> vec4 count
        self.diags: list[Diagnostic] = []
        self.tmp = 0
        self.depth: int | None = None           # call depth being emitted (recursive programs)
        self.fn_names: dict[str, str] = {}
        self.params_in_block = False
        self.nverts = prog.geometry.input_vertices if prog.geometry else 0
        self.cfg_stack: list = []               # enclosing Labeled constructs (general path)
        self.cfg_vars: set[str] = set()         # xl_br / xl_iter globals used
        self.used_temps: set[str] = set()       # TEMP registers the body reads or writes
        self.direct_inputs: dict[tuple[str, int | None], str] = {}   # plan_direct_inputs
        self.direct_paths: set[str] = set()
        self.direct_outputs: dict[tuple[str, int | None], str] = {}  # plan_direct_outputs
        self.zeroed_outputs: list[tuple[str, int | None]] = []
        self.cfg_limit = 65536

    # ---- naming --------------------------------------------------------------------------------
    def name_of(self, reg: str) -> str:
        name = self.names.get(reg)
        if name is None:
            base = reg.replace("$", "_S")
            ok = (re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", base) and "__" not in base
                  and base not in GLSL_RESERVED and not base.startswith(("gl_", "xl_", "in_", "out_",
                                                                         "program_", "state_", "sub_",
                                                                         "texture", "buffer", "result_", "vertex_", "fragment_", "primitive_")))
            name = base if ok else "u_" + re.sub(r"[^A-Za-z0-9_]", "_", base)
            while name in self.taken:
                name += "_"
            self.taken.add(name)
            self.names[reg] = name
        return name

    def need(self, helper: str) -> None:
        # a section "name@<profile>" of helpers.glsl replaces "name" in that profile
        variant = f"{helper}@{self.profile}"
        if variant in helper_library():
            helper = variant
        if helper in self.helpers:
            return
        text, needs = helper_library()[helper]
        for n in needs:
            self.need(n)
        self.helpers.append(helper)

    def snippet(self, key: str, tchar: str):
        """ops.txt row of an opcode: the ``OP@<profile>`` row where the profile has one."""
        table = snippet_table()
        entry = table.get((f"{key}@{self.profile}", tchar)) or table.get((key, tchar))
        return None if entry is not None and entry[0] == "-" else entry   # "-": no form here

    def select(self, a: str, b: str, mask: str, dtype: DataType) -> str:
        """Per-component ``mask ? b : a`` -- ``mix`` with a boolean vector, an exact select.
        GLSL 3.30 has ``mix`` with booleans for float types only (integer types: GLSL 4.50,
        ES 3.10), so there integers go through the bit select ``xl_sel`` (helpers.glsl)."""
        if dtype != DataType.FLOAT and not self.info.integer_mix:
            self.need("sel")
            return f"xl_sel({a}, {b}, {mask})"
        return f"mix({a}, {b}, {mask})"

    def require(self, extension: str) -> None:
        if extension not in self.extensions:
            self.extensions.append(extension)

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    @property
    def global_qualifier(self) -> str:
        """Qualifier of globals that receive computed values (see :data:`PRECISE_GLOBAL`)."""
        word = self.info.precise
        return PRECISE_GLOBAL.replace("precise", word) + " " if word else ""

    @property
    def precise(self) -> str:
        """The qualifier of values that must not be contracted ('' where the profile lacks it)."""
        return self.info.precise + " " if self.info.precise else ""

    def fresh(self, prefix: str = "t") -> str:
        self.tmp += 1
        return f"xl_{prefix}{self.tmp}"

    # ---- interface planning --------------------------------------------------------------------------
    def plan(self) -> None:
        regs = self.prog.registers
        for reg in regs.values():
            if reg.kind in (RegKind.INPUT, RegKind.OUTPUT):
                groups = self.inputs if reg.kind == RegKind.INPUT else self.outputs
                for b in reg.bindings:
                    key = b.path
                    g = groups.get(key)
                    if g is None:
                        prefix = "in_" if reg.kind == RegKind.INPUT else "out_"
                        per_vertex = self.stage == Stage.GEOMETRY and reg.kind == RegKind.INPUT and key.startswith("vertex.")
                        g = I.Group(key, prefix + I.sanitize(key), b.index is not None, per_vertex,
                                    key in I.INTEGER_PATHS or reg.dtype in (DataType.INT, DataType.UINT))
                        groups[key] = g
                    if reg.dtype in (DataType.INT, DataType.UINT):
                        g.integer = True
                    if b.index is not None:
                        g.indices.add(b.index)
            elif reg.kind == RegKind.PARAM:
                for b in reg.bindings:
                    if b is not None:
                        name, elem, length = I.uniform_for(b)
                        self.uniforms[name] = max(self.uniforms.get(name, 0), length)
                        self.uniform_bindings.setdefault(name, {})[elem] = b.text()
            elif reg.kind == RegKind.BUFFER:
                b = reg.bindings[0]
                words = b.index2 + reg.length * (4 if reg.buffer_vec4 else 1)
                self.buffers[b.index] = max(self.buffers.get(b.index, 0), (words + 3) // 4)
        for ins in self.prog.instructions:
            if ins.tex is not None:
                t = self.textures.get(ins.tex.unit)
                dtype = ins.dtype if ins.op != "TXQ" else None
                if t is None:
                    missing = ES_MISSING_TARGETS.get(ins.tex.target) if self.info.es else None
                    if missing:
                        raise _Unsupported(f"{missing} (texture[{ins.tex.unit}], target "
                                           f"{ins.tex.target})", ins)
                    self.textures[ins.tex.unit] = _Tex(ins.tex.unit, ins.tex.target, dtype)
                elif dtype is not None and t.dtype is not None and t.dtype != dtype:
                    raise _Unsupported(f"texture unit {ins.tex.unit} is read both as "
                                       f"{t.dtype.name.lower()} and {dtype.name.lower()}", ins)
                elif t.dtype is None:
                    t.dtype = dtype
        for t in self.textures.values():
            t.dtype = t.dtype or DataType.FLOAT
            t.name = f"texture{t.unit}"
        # interface variables: integer or not per element (binding path and index), so an
        # 'INT OUTPUT o = result.color[1]' leaves result.color[0] a float output
        int_elems = {(reg.kind, b.path, b.index) for reg in regs.values()
                     if reg.kind in (RegKind.INPUT, RegKind.OUTPUT)
                     and reg.dtype in (DataType.INT, DataType.UINT)
                     for b in reg.bindings if b is not None}

        def integer(kind: RegKind, b: Binding) -> bool:
            return b.path in I.INTEGER_PATHS or (kind, b.path, b.index) in int_elems

        vulkan = self.vulkan
        for g in self.inputs.values():
            for idx in sorted(g.indices) if g.indexed else [None]:
                b = Binding(g.path, idx)
                interp = self.interp_of(b)
                try:
                    var, expr = I.input_interface(self.stage, b, integer(RegKind.INPUT, b), interp,
                                                  vulkan, self.nverts)
                except I.NotExpressible as e:
                    raise _Unsupported(str(e), None)
                self.check_interface(var, b, RegKind.INPUT)
                if var.name == "gl_FragCoord":
                    expr = self.fragcoord_expression(b)
                if self.varying_block(var):
                    expr = _member_access(expr, var.name)
                self.input_vars.append((var, expr, b))
        self.direct_inputs = self.plan_direct_inputs()
        self.direct_paths = {path for path, _ in self.direct_inputs}   # input paths read in place
        for g in self.outputs.values():
            for idx in sorted(g.indices) if g.indexed else [None]:
                b = Binding(g.path, idx)
                try:
                    var, assign = I.output_interface(self.stage, b, integer(RegKind.OUTPUT, b))
                except I.NotExpressible as e:
                    raise _Unsupported(str(e), None)
                self.check_interface(var, b, RegKind.OUTPUT)
                if self.varying_block(var):
                    assign = _member_access(assign, var.name)
                self.output_vars.append((var, assign, b))
        if self.info.es and (self.stage == Stage.GEOMETRY or (
                self.stage == Stage.FRAGMENT and "primitive.id" in self.inputs)):
            # geometry shaders, and gl_PrimitiveID in fragment shaders, are
            # GL_EXT_geometry_shader in OpenGL ES 3.1 (core only in ES 3.2)
            self.require("GL_EXT_geometry_shader")
        if "fragment.sampleid" in self.inputs and self.profile in ("glsl330", "es310"):
            # gl_SampleID is core from GLSL 4.00 and ES 3.20; before, these extensions have it
            self.require("GL_OES_sample_variables" if self.info.es else "GL_ARB_sample_shading")

    def plan_direct_inputs(self) -> dict[tuple[str, int | None], str]:
        """Inputs read in place, with no staging copy: ``(path, index) -> expression``.

        An input group is staged (copied into an ``in_*`` array at the start of ``main``) when
        the program indexes it with a register (the array is what the index selects from), in
        geometry programs (vertex-major arrays), or when an element's value is not the plain
        interface variable of the staging type (a conversion, a built-in of another type).
        Every other input is read where it is used: ``vertex_position``, not a copy of it."""
        if self.stage == Stage.GEOMETRY:
            return {}
        regs = self.prog.registers
        relative = {b.path for ins in self.prog.instructions for src in ins.srcs
                    if regs[src.reg].kind == RegKind.INPUT and src.index is not None
                    and src.index.relative for b in regs[src.reg].bindings}
        direct: dict[tuple[str, int | None], str] = {}
        staged: set[str] = set(relative)
        for var, expr, b in self.input_vars:
            g = self.inputs[b.path]
            if (b.path in relative or not _PLAIN.fullmatch(expr)
                    or var.glsl_type != ("ivec4" if g.integer else "vec4")):
                staged.add(b.path)
            direct[(b.path, b.index)] = expr
        return {key: expr for key, expr in direct.items() if key[0] not in staged}

    def plan_direct_outputs(self, st: Structured) -> None:
        """Outputs written in place, with no staging copy: :attr:`direct_outputs` maps
        ``(path, index)`` to the interface variable, and :attr:`zeroed_outputs` lists those that
        ``main`` first sets to zero.

        An output group is staged (an ``out_*`` global, copied out at the end of ``main``) in
        geometry programs (EMIT copies it), when the program reads it or indexes it with a
        register, or when its variable is not the plain variable of the staging type (a
        conversion: ``gl_FragDepth = x.z``, integer bits).  A direct output starts at zero,
        as staged ones do, unless the first thing ``main`` does to it, before any flow, is an
        unconditional write of all four components."""
        self.direct_outputs, self.zeroed_outputs = {}, []
        if self.stage == Stage.GEOMETRY:
            return
        regs = self.prog.registers
        staged = {b.path for ins in self.prog.instructions for src in ins.srcs
                  if regs[src.reg].kind == RegKind.OUTPUT for b in regs[src.reg].bindings}
        staged |= {b.path for ins in self.prog.instructions if ins.dst is not None
                   and regs[ins.dst.reg].kind == RegKind.OUTPUT and ins.dst.index is not None
                   and ins.dst.index.relative for b in regs[ins.dst.reg].bindings}
        direct = {}
        for var, assign, b in self.output_vars:
            g = self.outputs[b.path]
            m = re.fullmatch(r"([\w.\[\]]+) = \{x\};", assign)
            # a built-in is redeclared 'precise gl_Position;' (GLSL 4.50 4.7.1), which the ES
            # macro spelling (xl_precise, empty without gpu_shader5) cannot express
            if (m is None or var.block or var.glsl_type != ("ivec4" if g.integer else "vec4")
                    or (var.builtin and self.info.precise not in (None, "precise"))):
                staged.add(b.path)
            else:
                direct[(b.path, b.index)] = m.group(1)
        self.direct_outputs = {k: v for k, v in direct.items() if k[0] not in staged}
        written = set()
        for node in st.main.body:
            ins = node.ins if isinstance(node, Op) else None
            if ins is None or OPCODES[ins.op].category != "alu":
                break
            if (ins.dst is not None and ins.dst.cond is None and all(ins.dst.mask)
                    and regs[ins.dst.reg].kind == RegKind.OUTPUT):
                reg = regs[ins.dst.reg]
                b = reg.bindings[ins.dst.index.offset if ins.dst.index is not None else 0]
                written.add((b.path, b.index))
        self.zeroed_outputs = [key for key in self.direct_outputs if key not in written]

    def fragcoord_layout(self) -> str | None:
        """The layout qualifiers of gl_FragCoord for GL_ARB_fragment_coord_conventions
        (``OPTION ARB_fragment_coord_*``), where the profile has them (GLSL 1.50+ desktop:
        glsl450, glsl330); None when the default conventions hold or a fix-up replaces them."""
        prog = self.prog
        if self.vulkan or self.info.es:
            return None
        quals = [q for q, on in (("origin_upper_left", prog.fragcoord_origin_upper_left),
                                 ("pixel_center_integer", prog.fragcoord_pixel_center_integer))
                 if on]
        return ", ".join(quals) or None

    def fragcoord_expression(self, b: Binding) -> str:
        """gl_FragCoord in the program's conventions.  Vulkan has the upper-left origin only,
        with half-integer centres (VUID-StandaloneSpirv-PixelCenterInteger-04654 forbids the
        integer mode): integer centres are the coordinate minus 0.5; the lower-left origin of
        the other programs is whatever the Vulkan viewport makes of y, as before.  GLSL ES
        has neither qualifier: integer centres by the same fix-up; an upper-left origin needs
        the framebuffer height, which a shader does not know -- E7001."""
        prog = self.prog
        if not (self.vulkan or self.info.es):
            return "gl_FragCoord"
        if self.info.es and prog.fragcoord_origin_upper_left:
            asked = ("PROPERTY FS_COORD_ORIGIN UPPER_LEFT" if prog.dialect == "TGSI"
                     else "OPTION ARB_fragment_coord_origin_upper_left")
            raise _Unsupported(f"a fragment position with its origin at the upper left ({asked}; "
                               "GLSL ES has no origin_upper_left layout for gl_FragCoord)", None,
                               self.binding_span(RegKind.INPUT, b))
        if prog.fragcoord_pixel_center_integer:
            return "(gl_FragCoord - vec4(0.5, 0.5, 0.0, 0.0))"
        return "gl_FragCoord"

    def check_interface(self, var: I.InterfaceVar, b: Binding, kind: RegKind) -> None:
        """E7001 for interface features the profile lacks; extensions the rest needs."""
        if not self.info.es:
            return
        if var.interpolation and "NOPERSPECTIVE" in var.interpolation:
            raise _Unsupported(f"noperspective interpolation ({b.text()})", None,
                               self.binding_span(kind, b, interpolation=True))
        if "gl_ClipDistance" in var.name:
            raise _Unsupported(f"clip distances ({b.text()})", None, self.binding_span(kind, b))
        if self.stage == Stage.GEOMETRY and "gl_PointSize" in var.name:
            self.require("GL_EXT_geometry_shader")
            self.require("GL_EXT_geometry_point_size")

    def varying_block(self, var: I.InterfaceVar) -> bool:
        """GLSL 3.30 has ``layout(location)`` on vertex inputs and fragment outputs only, so
        there a varying is matched by name: a one-member interface block named after its
        location (``out xl_varying5 { vec4 v; } result_texcoord_0;``), the same in every stage.
        Blocks, not plain variables, because a geometry shader's input and output of one
        varying need different names while the block name is shared (GLSL 3.30 4.3.7)."""
        if self.info.varying_locations or var.builtin or var.location is None:
            return False
        if (self.stage == Stage.VERTEX and var.direction == "in") or (
                self.stage == Stage.FRAGMENT and var.direction == "out"):
            return False
        var.block = f"xl_varying{var.location}"
        var.location = None
        return True

    def binding_span(self, kind: RegKind, b: Binding, interpolation: bool = False):
        """Where a binding is declared: the register's declaration, else the first instruction
        that uses it (bindings named directly in instructions have no declaration)."""
        for reg in self.prog.registers.values():
            if reg.kind != kind or (interpolation and not reg.interpolation):
                continue
            if not any(x is not None and x.path == b.path and x.index == b.index
                       for x in reg.bindings):
                continue
            if reg.span is not None:
                return reg.span
            for ins in self.prog.instructions:
                if (ins.dst is not None and ins.dst.reg == reg.name) or any(
                        src.reg == reg.name for src in ins.srcs):
                    return ins.span
        return None

    def interp_of(self, b: Binding) -> str | None:
        for reg in self.prog.registers.values():
            if reg.kind == RegKind.INPUT and reg.interpolation and b in [
                    Binding(x.path, x.index) for x in reg.bindings]:
                return reg.interpolation
        return None

    # ---- storage expressions -----------------------------------------------------------------------
    def storage_type(self, regname: str) -> DataType:
        reg = self.prog.registers[regname]
        if reg.kind == RegKind.TEMP:
            return self.types.get(regname, DataType.FLOAT)
        if reg.kind in (RegKind.INPUT, RegKind.OUTPUT):
            groups = self.inputs if reg.kind == RegKind.INPUT else self.outputs
            g = groups[reg.bindings[0].path]
            return DataType.INT if g.integer else DataType.FLOAT
        if reg.kind == RegKind.BUFFER:
            return DataType.UINT
        if reg.kind == RegKind.CONST:
            return reg.dtype
        return DataType.FLOAT    # PARAM: uniforms are vec4; constant elements are float words

    def index_expr(self, idx: Index, size: int) -> str:
        if not idx.relative:
            return str(idx.offset)
        reg = self.prog.registers[idx.reg]
        base = self.element(idx.reg, None, None) + "." + COMP[idx.comp]
        st = self.storage_type(idx.reg) if reg.kind != RegKind.PARAM else DataType.FLOAT
        value = bitcast(base, st, DataType.INT, scalar=True)
        if idx.offset:
            # the executor adds in 64 bits before clamping (exec/operands.py); clamping the
            # register first keeps the 32-bit sum from wrapping (ARL of a huge float + offset)
            off = idx.offset
            value = f"clamp({value}, {-off - 1}, {size - off}) + {off}"
        return f"clamp({value}, 0, {size - 1})"

    def element(self, regname: str, index: Index | None, vertex: Index | None) -> str:
        """GLSL lvalue/rvalue of one element of a register, in its storage type."""
        reg = self.prog.registers[regname]
        kind = reg.kind
        if kind == RegKind.TEMP:
            self.used_temps.add(regname)
            name = self.name_of(regname)
            return name if index is None else f"{name}[{self.index_expr(index, reg.size)}]"
        if kind in (RegKind.INPUT, RegKind.OUTPUT):
            groups = self.inputs if kind == RegKind.INPUT else self.outputs
            b0 = reg.bindings[0]
            g = groups[b0.path]
            if kind == RegKind.INPUT and b0.path in self.direct_paths:
                b = b0 if index is None else reg.bindings[index.offset]
                return self.direct_inputs[(b.path, b.index)]
            if kind == RegKind.OUTPUT and self.direct_outputs:
                b = b0 if index is None else reg.bindings[index.offset]
                lvalue = self.direct_outputs.get((b.path, b.index))
                if lvalue is not None:
                    return lvalue
            vexpr = None
            if g.per_vertex:
                v = vertex if vertex is not None else Index(b0.vertex or 0)
                vexpr = self.index_expr(v, self.nverts)
            if not g.indexed:
                return g.storage + (f"[{vexpr}]" if vexpr is not None else "")
            if index is None:
                return self.staged_element(g, vexpr, str(b0.index))
            if not index.relative:
                return self.staged_element(g, vexpr, str(reg.bindings[index.offset].index))
            idxs = [b.index for b in reg.bindings]
            if idxs != list(range(idxs[0], idxs[0] + len(idxs))):
                raise _Unsupported(f"relative addressing of '{regname}', whose bindings are not "
                                   "consecutive", None)
            inner = self.index_expr(index, reg.size)
            return self.staged_element(g, vexpr, f"{idxs[0]} + {inner}" if idxs[0] else inner)
        if kind == RegKind.PARAM:
            if index is not None and index.relative:
                return self.param_relative(reg, index)
            i = 0 if index is None else index.offset
            return self.param_element(reg, i)
        if kind == RegKind.BUFFER:
            b = reg.bindings[0]
            self.buffers.setdefault(b.index, 1)
            blk = f"buffer{b.index}.words"
            if index is None:
                pos = "0"
            elif index.relative:
                pos = self.index_expr(index, reg.size)
            else:
                pos = str(index.offset)
            if reg.buffer_vec4:
                return f"{blk}[{b.index2} + {pos}]" if b.index2 else f"{blk}[{pos}]"
            word = f"{b.index2} + {pos}" if b.index2 else pos
            if word.isdigit():
                n = int(word)
                return f"uvec4({blk}[{n >> 2}].{COMP[n & 3]})"
            return f"uvec4({blk}[({word}) >> 2][({word}) & 3])"
        raise AssertionError(kind)

    def staged_element(self, g: I.Group, vexpr: str | None, iexpr: str) -> str:
        """Element ``iexpr`` of an indexed staging array (of vertex ``vexpr`` in geometry
        programs).  Without arrays of arrays (GLSL 3.30) the per-vertex arrays are one array,
        vertex-major: ``[v * size + i]``, the indices clamped as before."""
        if vexpr is None:
            return f"{g.storage}[{iexpr}]"
        if self.info.arrays_of_arrays:
            return f"{g.storage}[{vexpr}][{iexpr}]"
        if vexpr.isdigit() and iexpr.isdigit():
            return f"{g.storage}[{int(vexpr) * g.size + int(iexpr)}]"
        return f"{g.storage}[{vexpr} * {g.size} + {iexpr}]"

    def param_element(self, reg, i: int) -> str:
        b = reg.bindings[i]
        if b is None:
            return vector_literal(reg.value[i], DataType.FLOAT if reg.dtype == DataType.NONE else reg.dtype) \
                if reg.dtype in (DataType.NONE, DataType.FLOAT) else \
                bitcast(vector_literal(reg.value[i], reg.dtype), reg.dtype, DataType.FLOAT)
        name, elem, _ = I.uniform_for(b)
        return name if elem is None and self.uniforms.get(name, 0) == 0 else f"{name}[{elem}]"

    @staticmethod
    def literal_table_exact(reg) -> bool:
        """True when the literal table ``reg`` (a PARAM whose elements are all constant
        vectors) can be a ``const vec4[]`` of float literals: float words, none NaN or
        infinite.  Other tables (integer words, NaN, infinities) need uintBitsToFloat, which
        glslang does not accept in a const initializer: they are stored as their bits."""
        return reg.dtype in (DataType.NONE, DataType.FLOAT) and all(
            math.isfinite(struct.unpack("<f", struct.pack("<I", w))[0])
            for vec in reg.value for w in vec)

    def param_relative(self, reg, index: Index) -> str:
        binds = reg.bindings
        if all(b is not None and b.path in ("program.local", "program.env") and b.path == binds[0].path
               for b in binds):
            idxs = [b.index for b in binds]
            if idxs == list(range(idxs[0], idxs[0] + len(idxs))):
                name = binds[0].path.replace(".", "_")
                inner = self.index_expr(index, reg.size)
                return f"{name}[{idxs[0]} + {inner}]" if idxs[0] else f"{name}[{inner}]"
        arr = self.param_arrays.get(reg.name)
        if arr is None:
            arr = "xl_p_" + self.name_of(reg.name)
            self.param_arrays[reg.name] = arr
        elem = f"{arr}[{self.index_expr(index, reg.size)}]"
        if all(b is None for b in binds) and not self.literal_table_exact(reg):
            return f"uintBitsToFloat({elem})"      # a table of bits (declare_globals)
        return elem

    # ---- operands ----------------------------------------------------------------------------------
    def operand(self, src: Source, optype: DataType, scalar: bool,
                comps: tuple[int, ...] | None = None) -> str:
        """The operand as a GLSL expression: a vector of ``optype``, its scalar component
        (``scalar``), or only the components ``comps`` of its swizzle (an instruction narrowed
        to its write mask: ``R0.zw = a.zw * b.xy`` for ``MUL R0.zw, a, b.xyxy``)."""
        if comps is not None and len(comps) < 4:
            src = replace(src, swizzle=tuple(src.swizzle[c] for c in comps),
                          comp_neg=tuple(src.comp_neg[c] for c in comps))
            if len(comps) == 1:
                scalar = True
        reg = self.prog.registers[src.reg]
        if reg.kind == RegKind.CONST or (reg.kind == RegKind.PARAM and src.index is not None
                                         and not src.index.relative and reg.bindings[src.index.offset] is None) \
                or (reg.kind == RegKind.PARAM and src.index is None and reg.bindings[0] is None):
            return self.const_operand(src, reg, optype, scalar)
        expr = self.element(src.reg, src.index, src.vertex)
        expr = bitcast(expr, self.storage_type(src.reg), optype)
        sel = src.swizzle
        if max(sel) > 3 or True in src.comp_neg:
            return self.ext_swizzle(expr, src, optype)
        if scalar:
            expr = f"{expr}.{COMP[sel[0]]}"
        elif sel != (0, 1, 2, 3):
            expr = f"{expr}.{swizzle_text(sel)}"
        if src.abs and optype != DataType.UINT:
            expr = f"abs({expr})"
        if src.neg:
            expr = f"-{expr}" if _PLAIN.fullmatch(expr) else f"-({expr})"
        return expr

    def const_operand(self, src: Source, reg, optype: DataType, scalar: bool) -> str:
        """Literal operands are folded: swizzle, |abs| and negation applied to the bits here."""
        if reg.kind == RegKind.CONST:
            words = reg.value[0]
            wtype = reg.dtype
        else:
            i = 0 if src.index is None else src.index.offset
            words = reg.value[i]
            wtype = reg.dtype if reg.dtype != DataType.NONE else DataType.FLOAT
        if wtype != optype:        # typeless PARAM constants read with another type: raw bits
            wtype = optype
        out = []
        for c, neg in zip(src.swizzle, src.comp_neg):
            if c == 4:
                bits = 0
            elif c == 5:
                bits = 0x3F800000 if optype == DataType.FLOAT else 1
            else:
                bits = words[c]
            if src.abs and optype != DataType.UINT:
                bits = abs_bits(bits, optype)
            if src.neg:
                bits = negate_bits(bits, optype)
            if neg:
                bits = negate_bits(bits, optype)
            out.append(bits)
        if scalar:
            return literal(out[0], optype)
        return vector_literal(out, optype)

    def ext_swizzle(self, expr: str, src: Source, optype: DataType) -> str:
        zero, one = literal(0, optype), literal(0x3F800000 if optype == DataType.FLOAT else 1, optype)
        base = f"abs({expr})" if src.abs and optype != DataType.UINT else expr
        parts = []
        for c, neg in zip(src.swizzle, src.comp_neg):
            p = zero if c == 4 else one if c == 5 else f"{base}.{COMP[c]}"
            if neg != src.neg:
                p = f"-{p}"
            parts.append(p)
        if len(parts) == 1:
            return parts[0]
        return f"{vec_type(optype, len(parts))}({', '.join(parts)})"

    # ---- condition codes -----------------------------------------------------------------------------
    def cc_test(self, cond: CondTest) -> str:
        """A bvec4: the test of each swizzled component (evaluated now)."""
        if cond.rule == "TR":
            return "bvec4(true)"
        if cond.rule == "FL":
            return "bvec4(false)"
        swz = "".join(COMP[c] for c in cond.swizzle)
        if cond.cc in self.cc_values:
            reg = f"xl_cc{cond.cc}{'' if swz == 'xyzw' else '.' + swz}"
            return cc_value_tests()[cond.rule][1].format(v=reg)
        helper = f"cc{cond.rule}"
        if helper not in helper_library():
            expr = cc_tests()[cond.rule]
            helper_library()[helper] = (
                f"bvec4 xl_cc{cond.rule}(uvec4 f)\n{{\n    uvec4 s = f & 1u, z = (f >> 1) & 1u, "
                f"o = (f >> 2) & 1u, c = (f >> 3) & 1u;\n    return notEqual({expr}, uvec4(0u));\n}}\n", ())
        self.need(helper)
        return f"xl_cc{cond.rule}(xl_cc{cond.cc}{'' if swz == 'xyzw' else '.' + swz})"

    def branch_cond(self, cond: CondTest | None) -> str | None:
        """A bool: any of the four swizzled tests passes (None = unconditional)."""
        if isinstance(cond, CountTest):          # REP counter of the general structurizer
            return f"{self.element(cond.reg, None, None)}.x > {'0u' if cond.unsigned else '0'}"
        if cond is None or cond.rule == "TR":
            return None
        if cond.rule == "FL":
            return "false"
        if cond.cc in self.cc_values and len(set(cond.swizzle)) == 1:
            # one component tested: the comparison itself, 'if (xl_cc0.x > 0.0)'
            reg = f"xl_cc{cond.cc}.{COMP[cond.swizzle[0]]}"
            return cc_value_tests()[cond.rule][0].format(v=reg)
        return f"any({self.cc_test(cond)})"

    def cc_flags(self, ins: Instruction, t: str, rtype: DataType, srcs: list[str]) -> str:
        if ins.cc_update in self.cc_values:
            return t                # the register keeps the value itself (cctests_value.txt)
        kind = ins.cc_kind
        if kind == CCKind.FLOAT:
            self.need("ccf")
            return f"xl_ccf({t})"
        self.need("cci")
        as_u = (lambda e: bitcast(e, rtype, DataType.UINT)) if rtype != DataType.UINT else (lambda e: e)
        if kind in (CCKind.INT, CCKind.UNDEF_OFCF):
            return f"xl_cci({as_u(t)})"
        dtype = ins.dtype
        u = (lambda e: f"uvec4({e})") if dtype == DataType.INT else (lambda e: e)
        if ins.op == "MAD":
            self.need("ccadd")
            return f"xl_ccadd({u(f'{srcs[0]} * {srcs[1]}')}, {u(srcs[2])})"
        if ins.op == "SAD":
            self.need("ccadd")
            self.need("sad")
            zero = "uvec4(0u)"
            return f"xl_ccadd({u(f'xl_sad({srcs[0]}, {srcs[1]}, {zero})')}, {srcs[2]})"
        a, b = srcs[0], srcs[1]
        if kind == CCKind.ADD and ins.op == "ADD":
            self.need("ccadd")
            return f"xl_ccadd({u(a)}, {u(b)})"
        if kind == CCKind.SUB and ins.op == "SUB":
            self.need("ccsub")
            return f"xl_ccsub({u(a)}, {u(b)})"
        # an ADD with one negated operand is a subtraction of the un-negated value, and a SUB of a
        # negated operand an addition (GP4 issue 23)
        plain = [self.operand(replace(s, neg=False), dtype, False)
                 for s in ins.srcs[:2]]
        if ins.op == "ADD":
            self.need("ccsub")
            minuend, sub = (a, plain[1]) if ins.srcs[1].neg else (b, plain[0])
            return f"xl_ccsub({u(minuend)}, {u(sub)})"
        self.need("ccadd")
        return f"xl_ccadd({u(a)}, {u(plain[1])})"

    # ---- instructions ------------------------------------------------------------------------------
    def emit_ins(self, ins: Instruction) -> list[str]:
        info = OPCODES[ins.op]
        if info.category == "tex":
            return self.emit_tex(ins)
        if ins.op == "KIL":
            return self.emit_kil(ins)
        if ins.op == "DEMOTE":
            self.need("demoted")
            return ["xl_demoted = true;"]
        if ins.op == "EMIT":
            return ["xl_emit();"]
        if ins.op == "ENDPRIM":
            return ["EndPrimitive();"]
        comps = self.narrowed_components(ins)
        srcs = [self.operand(s, operand_type(ins, i), info.inputs[i] == "s" if i < len(info.inputs) else False,
                             None if i < len(info.inputs) and info.inputs[i] == "s" else comps)
                for i, s in enumerate(ins.srcs)]
        if comps is not None:
            template, helpers = self.snippet(ins.op, TYPE_CHAR[ins.dtype])
            for h in helpers:
                self.need(h)
            srcs = splat_literals(srcs, template, [len(comps) > 1 and kind != "s" for kind in info.inputs])
            expr = template.format(a=srcs[0] if srcs else "", b=srcs[1] if len(srcs) > 1 else "",
                                   c=srcs[2] if len(srcs) > 2 else "",
                                   d=srcs[3] if len(srcs) > 3 else "")
            m = "" if len(comps) == 4 else "." + mask_text(ins.dst.mask)
            target = self.element(ins.dst.reg, ins.dst.index, None)
            statement = f"{target}{m} = {right_side(expr)};"
            cond = ins.dst.cond
            if ins.cc_update is not None and ins.cc_update in self.cc_used:
                # a value-holding CC register (cc_values) takes the value just written
                return [statement, f"xl_cc{ins.cc_update}{m} = {target}{m};"]
            if cond is None:
                return [statement]
            comp = cond.swizzle[comps[0]]          # the one component every write tests
            return [f"if ({self.branch_cond(replace(cond, swizzle=(comp,) * 4))}) {statement}"]
        if ins.op in RAW_OPERAND_OPS:
            # UP*: the bits of the operand *after* its modifiers, which act in the operand type
            # of the instruction (UP4B.F: -x flips the float sign bit, |x| clears it; .S: two's
            # complement), as the executor loads it -- not an integer negation of the bits
            for i, s in enumerate(ins.srcs):
                t = info.operand_type(i, ins.dtype)
                if t != DataType.UINT and (s.neg or s.abs or any(s.comp_neg)):
                    scalar = i < len(info.inputs) and info.inputs[i] == "s"
                    srcs[i] = bitcast(self.operand(s, t, scalar), t, DataType.UINT, scalar)
        rtype = result_type(ins)
        key = ins.op if ins.mul_mode != "HI" else "MUL.HI"
        tchar = TYPE_CHAR[ins.dtype]
        entry = self.snippet(key, tchar)
        if entry is None:
            raise _Unsupported(f"the instruction {ins.op}.{ins.dtype.value}", ins)
        template, helpers = entry
        for h in helpers:
            self.need(h)
        if ins.op in ("DDX", "DDY") and self.stage != Stage.FRAGMENT:
            expr = "vec4(0.0)"
        else:
            if ins.op in ("DDX", "DDY") and not self.info.fine_derivatives:
                # dFdx/dFdy: fine or coarse as the implementation chooses; both are what the NV
                # specs allow ("approximate partial derivatives", FP4 2.X.8.Z), the executor
                # and the 4.50 profiles compute fine ones
                self.note(f"DDX/DDY use dFdx/dFdy: fine or coarse derivatives as the implementation "
                          f"chooses ({self.info.language} has no dFdxFine).")
            shown = splat_literals(srcs, template, [kind != "s" for kind in info.inputs])
            expr = template.format(a=shown[0] if shown else "", b=shown[1] if len(shown) > 1 else "",
                                   c=shown[2] if len(shown) > 2 else "",
                                   d=shown[3] if len(shown) > 3 else "")
        scalar = info.output == "s" or ins.op in ("PK2H", "PK2US", "PK4B", "PK4UB")
        if scalar and ins.sat == Sat.NONE and ins.dst.cond is None and (
                ins.cc_update is None or ins.cc_update not in self.cc_used):
            return self.write_scalar(ins, expr, rtype)
        if scalar:
            expr = f"{VEC[rtype]}({expr})"
        return self.write(ins, expr, rtype, srcs)

    def narrowed_components(self, ins: Instruction) -> tuple[int, ...] | None:
        """The write-mask components when ``ins`` is computed on them alone, else None.

        A componentwise instruction (``ir.ops.COMPONENTWISE``) with a partial plain write mask
        and an ops.txt expression made of operators and size-generic built-ins (no ``vec4``
        constructor, no helper, no swizzle of its own) is written narrowed: ``R0.zw = a.zw *
        b.xy + c.xy;``.  That is the computation of those components and no other, and the
        destination is a ``precise`` variable, so glslang decorates its operations
        NoContraction -- which it does not through a swizzle of an rvalue (``(a * b + c).zw``,
        measured with glslang 13.1), the reason the unnarrowed form needs a temporary.  A
        condition mask that tests one component of a value-holding CC register (:meth:`cc_test`)
        makes it ``if (xl_cc0.x != 0.0) R0.y = ...;`` (all four components may be written so); an
        update of such a register copies the written value (``xl_cc0.x = R0.x;``).  Other
        condition masks, flag-word CC updates, saturation, a precision conversion or a bitcast into
        the register keep the general path (:meth:`write`)."""
        dst = ins.dst
        if dst is None or ins.op not in COMPONENTWISE:
            return None
        conditional = dst.cond is not None and dst.cond.rule not in ("TR", "FL")
        if conditional and not (dst.cond.cc in self.cc_values and len(
                {dst.cond.swizzle[c] for c in range(4) if dst.mask[c]}) == 1):
            return None
        updates = ins.cc_update is not None and ins.cc_update in self.cc_used
        if updates and (conditional or ins.cc_update not in self.cc_values):
            return None                # flag words, or an update under a condition mask
        if ((all(dst.mask) and not conditional and not updates)
                or (dst.cond is not None and not conditional)
                or ins.sat != Sat.NONE or ins.precision in ("FP16", "X")
                or ins.op in RAW_OPERAND_OPS or OPCODES[ins.op].output != "v"
                or ins.mul_mode == "HI"):
            return None
        if ins.op in ("DDX", "DDY") and (self.stage != Stage.FRAGMENT or not self.info.fine_derivatives):
            return None            # the general path writes vec4(0.0), or notes coarse derivatives
        entry = self.snippet(ins.op, TYPE_CHAR[ins.dtype])
        if entry is None or _NOT_SIZE_GENERIC.search(entry[0]):
            return None
        if result_type(ins) != self.storage_type(dst.reg):
            return None
        return tuple(i for i, on in enumerate(dst.mask) if on)

    def write_scalar(self, ins: Instruction, expr: str, rtype: DataType) -> list[str]:
        """A replicated scalar into a plain write mask: ``r.xz = vec2(e);`` (no temporaries)."""
        dst = ins.dst
        target = self.element(dst.reg, dst.index, None)
        st = self.storage_type(dst.reg)
        comps = mask_text(dst.mask)
        expr = self.precision_step(ins, expr, rtype)
        value = bitcast(expr, rtype, st, scalar=True)
        if len(comps) == 1:
            return [f"{target}.{comps} = {right_side(value)};"]
        ctor = (VEC[st][:-1] + str(len(comps))) if len(comps) < 4 else VEC[st]
        return [f"{target}{'' if len(comps) == 4 else '.' + comps} = {ctor}({value});"]

    def write(self, ins: Instruction, expr: str, rtype: DataType, srcs: list[str]) -> list[str]:
        dst = ins.dst
        if ins.sat != Sat.NONE and rtype == DataType.FLOAT:
            self.need("sat")
            expr = f"xl_{'sat' if ins.sat == Sat.SAT else 'ssat'}({expr})"
        expr = self.precision_step(ins, expr, rtype)
        target = self.element(dst.reg, dst.index, None)
        st = self.storage_type(dst.reg)
        full = all(dst.mask)
        m = "" if full else "." + mask_text(dst.mask)
        cc = ins.cc_update if ins.cc_update in self.cc_used else None
        if dst.cond is None and cc is None:
            value = bitcast(expr, rtype, st)
            swz = _SWIZZLED.fullmatch(value)
            if m and swz:          # compose swizzle and mask: R1.yzxw then .xy -> R1.yz
                return [f"{target}{m} = {swz.group(1)}.{''.join(swz.group(2)[COMP.index(c)] for c in m[1:])};"]
            if m and rtype == DataType.FLOAT and _ARITH.search(expr) and self.info.precise:
                # glslang does not carry NoContraction through a swizzle of an rvalue
                # ('r.x = (a * b + c).x;' gets no decoration; measured with glslang 13.1), so
                # a masked float computation goes through a precise temporary
                t = self.fresh()
                return ["{", f"    {self.precise}{VEC[rtype]} {t} = {expr};",
                        f"    {target}{m} = {bitcast(t, rtype, st)}{m};", "}"]
            if not m:
                return [f"{target} = {right_side(value)};"]
            if not _PLAIN.fullmatch(value) and not wrapped(value) and not called(value):
                value = f"({value})"
            return [f"{target}{m} = {value}{m};"]
        t = self.fresh()
        q = self.precise if rtype == DataType.FLOAT else ""      # integer arithmetic is exact
        lines = [f"{q}{VEC[rtype]} {t} = {expr};"]
        mask = None
        if dst.cond is not None:
            mask = self.fresh("m")
            lines.append(f"bvec4 {mask} = {self.cc_test(dst.cond)};")
        flags = None
        if cc is not None:
            flags = self.cc_flags(ins, t, rtype, srcs)
            if ins.cc_kind in (CCKind.ADD, CCKind.SUB):
                # carry/overflow flags read the operands again: take them before the
                # destination (maybe one of the operands) is written (GP4 2.X.4.3)
                name = self.fresh("f")
                lines.append(f"uvec4 {name} = {flags};")
                flags = name
            elif m and flags != t:
                flags = f"({flags})" if not wrapped(flags) and not flags.endswith(")") else flags
        value = bitcast(t, rtype, st)
        if mask is None:
            lines.append(f"{target}{m} = {value}{m};")
        else:
            lines.append(f"{target}{m} = {self.select(target + m, value + m, mask + m, st)};")
        if flags is not None:
            reg = f"xl_cc{cc}"
            ftype = DataType.FLOAT if cc in self.cc_values else DataType.UINT
            if mask is None:
                lines.append(f"{reg}{m} = {flags}{m};")
            else:
                lines.append(f"{reg}{m} = {self.select(reg + m, flags + m, mask + m, ftype)};")
        return ["{"] + ["    " + line for line in lines] + ["}"]

    def precision_step(self, ins: Instruction, expr: str, rtype: DataType) -> str:
        """Result conversion after saturation (digest 4.3 step 3; FP1 3.11.4.4): precision
        "FP16" rounds to fp16, "X" converts to fx12 (helpers fp16/fx12, as the executor's
        operands.py).  The CC flags are computed from the converted value (digest 12 item 25):
        callers build them from the expression returned here.  "R"/"H" convert nothing."""
        helper = {"FP16": "fp16", "X": "fx12"}.get(ins.precision)
        if helper is None or rtype != DataType.FLOAT:
            return expr
        self.need(helper)
        return f"xl_{helper}({expr})"

    def emit_kil(self, ins: Instruction) -> list[str]:
        if ins.cond is not None:
            cond = self.branch_cond(ins.cond)
            return ["discard;"] if cond is None else [f"if ({cond}) discard;"]
        if ins.dtype == DataType.UINT:
            return ["// KIL.U never kills (unsigned values are never negative)"]
        optype = ins.dtype
        a = self.operand(ins.srcs[0], optype, False)
        zero = "vec4(0.0)" if optype == DataType.FLOAT else "ivec4(0)"
        return [f"if (any(lessThan({a}, {zero}))) discard;"]

    # ---- textures ------------------------------------------------------------------------------------
    def emit_tex(self, ins: Instruction) -> list[str]:
        tex = ins.tex
        t = self.textures[tex.unit]
        s = t.name
        target = tex.target
        op = ins.op
        shadow = target.startswith("SHADOW")
        rect = target in ("RECT", "SHADOWRECT")
        vk_rect = rect and self.vulkan
        lines: list[str] = []
        if op in ("TXF", "TXQ"):
            # the operand is pure: read in place, its swizzles composed (compose_swizzles)
            cv = self.operand(ins.srcs[0], DataType.INT, False)
            expr = compose_swizzles(self.fetch_expr(op, target, s, cv, tex.offset, vk_rect))
            return self.write(ins, expr, result_type(ins), [])
        cv = self.operand(ins.srcs[0], DataType.FLOAT, False)
        if op == "TXP":
            c, cv = cv, self.fresh("c")
            lines.append(f"{self.precise}vec4 {cv} = {c};")
            lines.append(f"{cv} = vec4({cv}.xyz / {cv}.w, {cv}.w);")
        coord = self.tex_coord(target, cv, s, vk_rect)
        off = self.offset_literal(target, tex.offset) if any(tex.offset) else None
        fragment = self.stage == Stage.FRAGMENT
        grads = None
        if op == "TXD":
            dx = self.operand(ins.srcs[1], DataType.FLOAT, False)
            dy = self.operand(ins.srcs[2], DataType.FLOAT, False)
            sel = self.grad_swizzle(target)
            scale = f" / vec2(textureSize({s}, 0))" if vk_rect else ""
            grads = (f"({dx}){sel}{scale}", f"({dy}){sel}{scale}")
        elif not fragment and (op in ("TEX", "TXB", "TXP") or (op == "TXL" and rect and not vk_rect)):
            # no implicit derivatives outside fragment shaders (GP4 2.X.4.4: partials are 0),
            # and rectangle textures have no LOD parameter: sample the base level by gradient
            zero = {".x": "0.0", ".xy": "vec2(0.0)", ".xyz": "vec3(0.0)"}[self.grad_swizzle(target)]
            grads = (zero, zero)
        if grads is not None:
            call = f"textureGrad{'Offset' if off else ''}({s}, {coord}, {grads[0]}, {grads[1]}{', ' + off if off else ''})"
        elif op == "TXL" and not rect:
            call = f"textureLod{'Offset' if off else ''}({s}, {coord}, {cv}.w{', ' + off if off else ''})"
        elif off and target == "SHADOWARRAY2D" and not self.info.array_shadow_offset:
            # implicit derivatives with an offset: no such function before GLSL 4.30 (none in
            # ES); textureGradOffset with dFdx/dFdy could select another level of detail
            raise _Unsupported(f"texel offsets on 2D array shadow textures with implicit level of "
                               f"detail (texture[{tex.unit}], {op})", ins)
        elif op == "TXB" and not (rect and not vk_rect):   # rectangle textures have one level
            call = f"texture{'Offset' if off else ''}({s}, {coord}{', ' + off if off else ''}, {cv}.w)"
        else:
            call = f"texture{'Offset' if off else ''}({s}, {coord}{', ' + off if off else ''})"
        rtype = result_type(ins)
        if shadow:
            r = self.fresh("r")
            lines.append(f"float {r} = {call};")
            call = f"vec4({r}, {r}, {r}, 1.0)"
            if rtype != DataType.FLOAT:
                # .S/.U on a depth comparison: GP4 2.X.4.4 "interpreted as ... integer according
                # to the data type modifier" (undefined for a depth texture): its bits
                call = f"floatBits{'ToInt' if rtype == DataType.INT else 'ToUint'}({call})"
        lines = [compose_swizzles(x) for x in lines]
        written = self.write(ins, compose_swizzles(call), rtype, [])
        if not lines:
            return written
        return ["{"] + ["    " + x for x in lines + written] + ["}"]

    def tex_coord(self, target: str, c: str, s: str, vk_rect: bool) -> str:
        if vk_rect:
            if target == "RECT":
                return f"{c}.xy / vec2(textureSize({s}, 0))"
            return f"vec3({c}.xy / vec2(textureSize({s}, 0)), {c}.z)"
        return {"1D": f"{c}.x", "2D": f"{c}.xy", "3D": f"{c}.xyz", "CUBE": f"{c}.xyz",
                "RECT": f"{c}.xy", "SHADOW1D": f"vec3({c}.x, 0.0, {c}.z)", "SHADOW2D": f"{c}.xyz",
                "SHADOWRECT": f"{c}.xyz", "ARRAY1D": f"{c}.xy", "ARRAY2D": f"{c}.xyz",
                "SHADOWCUBE": c, "SHADOWARRAY1D": f"{c}.xyz", "SHADOWARRAY2D": c}[target]

    @staticmethod
    def grad_swizzle(target: str) -> str:
        if target in ("1D", "ARRAY1D", "SHADOW1D", "SHADOWARRAY1D"):
            return ".x"
        if target in ("3D", "CUBE", "SHADOWCUBE"):
            return ".xyz"
        return ".xy"

    def offset_literal(self, target: str, offset) -> str:
        dims = {"1D": 1, "ARRAY1D": 1, "SHADOW1D": 1, "SHADOWARRAY1D": 1, "3D": 3}.get(target, 2)
        if dims == 1:
            return str(offset[0])
        return f"ivec{dims}({', '.join(str(o) for o in offset[:dims])})"

    def fetch_expr(self, op: str, target: str, s: str, c: str, offset, vk_rect: bool) -> str:
        rect = target in ("RECT", "SHADOWRECT")
        if op == "TXQ":
            if target == "BUFFER":
                return f"ivec4(textureSize({s}), 0, 0, 0)"
            # a rectangle texture has one level and TXQ on it ignores the LOD operand: the
            # normalized 2D texture that stands for it in Vulkan is queried at level 0
            lod = "" if rect and not vk_rect else ", 0" if rect else f", {c}.x"
            size = f"textureSize({s}{lod})"
            dims = {"1D": 1, "SHADOW1D": 1, "3D": 3, "ARRAY2D": 3, "SHADOWARRAY2D": 3}.get(target, 2)
            return f"ivec4({size}, {', '.join(['0'] * (4 - dims))})"
        coord = {"1D": f"{c}.x", "2D": f"{c}.xy", "3D": f"{c}.xyz", "RECT": f"{c}.xy",
                 "ARRAY1D": f"{c}.xy", "ARRAY2D": f"{c}.xyz", "BUFFER": f"{c}.x"}[target]
        if target == "BUFFER":
            return f"texelFetch({s}, {coord})"
        # TXF on a rectangle texture has no LOD (GL's texelFetch(sampler2DRect, ...)): level 0
        lod = "" if rect and not vk_rect else ", 0" if rect else f", {c}.w"
        if any(offset):
            return f"texelFetchOffset({s}, {coord}{lod or ', 0'}, {self.offset_literal(target, offset)})" \
                if not rect or vk_rect else f"texelFetchOffset({s}, {coord}, {self.offset_literal(target, offset)})"
        return f"texelFetch({s}, {coord}{lod})"

    def sampler_type(self, t: _Tex) -> str:
        base = {"1D": "sampler1D", "2D": "sampler2D", "3D": "sampler3D", "CUBE": "samplerCube",
                "RECT": "sampler2DRect", "SHADOW1D": "sampler1DShadow", "SHADOW2D": "sampler2DShadow",
                "SHADOWRECT": "sampler2DRectShadow", "ARRAY1D": "sampler1DArray",
                "ARRAY2D": "sampler2DArray", "SHADOWCUBE": "samplerCubeShadow",
                "SHADOWARRAY1D": "sampler1DArrayShadow", "SHADOWARRAY2D": "sampler2DArrayShadow",
                "BUFFER": "samplerBuffer"}[t.target]
        if self.vulkan:
            base = base.replace("2DRect", "2D")   # Vulkan has no rectangle textures: normalized
        if not t.target.startswith("SHADOW"):
            base = {DataType.FLOAT: "", DataType.INT: "i", DataType.UINT: "u"}[t.dtype] + base
        return base

    # ---- control flow --------------------------------------------------------------------------------
    def emit_body(self, nodes: list, depth: int, in_main: bool) -> list[str]:
        out: list[str] = []
        pad = "    " * depth
        previous = None
        for node in nodes:
            lines, previous = self.tag_lines(node, self.emit_node(node, depth, in_main), pad, previous)
            out += lines
        return out

    def tag_lines(self, node, lines: list[str], pad: str, previous: str | None = None):
        """Tag the lines a node produced with its source line (lines tagged by an inner node
        keep theirs), and with ``comments`` put the instruction's text before them -- unless
        the node before it had the same comment (one statement lowered to several
        instructions).  Returns the lines and the comment."""
        ins = getattr(node, "ins", None)
        if ins is None:
            return lines, previous
        line = ins.span.line if ins.span is not None else 0
        out = lines
        if line:
            tag = f"\x00{line}\x00"
            if self.line_directives and isinstance(node, Op) and len(lines) > 1 and not any(
                    "//" in x for x in lines[:-1]):
                # one physical line per instruction: one #line makes all of it its source line
                lines = [lines[0][:len(lines[0]) - len(lines[0].lstrip())]
                         + " ".join(x.strip() for x in lines)]
            out = []
            for text in lines:
                # the usual line is one statement: split only the few that hold several
                parts = text.split("\n") if "\n" in text else (text,)
                out += [part if "\x00" in part or not part.strip() else part + tag
                        for part in parts]
        comment = None
        if self.comments and lines:
            text = self.comment_text(ins)
            comment = f"{line}:{text}"
            if comment != previous:     # a comment line is tagged "c": any number may do for it
                out.insert(0, f"{pad}// {text}" + (f"\x00{line}c\x00" if line else ""))
        return out, comment

    def comment_text(self, ins: Instruction) -> str:
        """The instruction as the source wrote it (the caller's ``instruction_text``), else as
        the IR printer writes it; printable ASCII only (GLSL 3.30's character set), and no
        trailing backslash, which would continue the comment onto the code line."""
        text = self.instruction_text(ins) if self.instruction_text is not None else None
        if not text:
            from ..ir.printer import instruction_text
            text = instruction_text(ins, self.prog)
        text = "".join(ch if " " <= ch <= "~" else "?" for ch in text)
        return text.strip().rstrip("\\").rstrip()

    def emit_node(self, node, depth: int, in_main: bool) -> list[str]:
        """The GLSL lines of one structured node."""
        out: list[str] = []
        pad = "    " * depth
        if isinstance(node, Op):
            out += [pad + line for line in self.emit_ins(node.ins)]
        elif isinstance(node, If):
            cond = self.branch_cond(node.cond) or "true"
            out.append(f"{pad}if ({cond})")
            out.append(pad + "{")
            out += self.emit_body(node.then, depth + 1, in_main)
            out.append(pad + "}")
            if node.orelse:
                out.append(pad + "else")
                out.append(pad + "{")
                out += self.emit_body(node.orelse, depth + 1, in_main)
                out.append(pad + "}")
        elif isinstance(node, Loop):
            out += self.emit_loop(node, depth, in_main)
        elif isinstance(node, Switch):
            out += self.emit_switch(node, depth, in_main)
        elif isinstance(node, (Labeled, Goto, Dispatch)):     # general structurizer
            out += self.emit_cfg_node(node, depth, in_main)
        elif isinstance(node, Jump):
            stmt = {"break": "break;", "continue": "continue;", "return": "return;"}.get(node.kind)
            if node.kind == "call":
                if self.depth is not None and self.depth >= MAX_CALL_DEPTH:
                    out.append(f"{pad}// CAL {node.target}: call stack full, ignored (GP4 issue 38)")
                    return out
                stmt = f"{self.call_name(node.target, None if self.depth is None else self.depth + 1)}();"
            cond = self.branch_cond(node.cond)
            out.append(f"{pad}{stmt}" if cond is None else f"{pad}if ({cond}) {stmt}")
        return out

    # ---- unstructured control flow (structurize.structurize_general) -------------------------
    def emit_cfg_node(self, node, depth: int, in_main: bool) -> list[str]:
        """Labeled blocks/loops, Goto exits and the dispatch fallback.  A block is
        ``do { } while (false)``, a loop ``for (;;)`` with the iteration guard; a Goto to the
        innermost construct is ``break``/``continue``, one to an outer construct sets
        ``xl_br`` to its id and breaks, and every construct it passes re-dispatches after
        itself (break on, or finish when it is the target)."""
        pad = "    " * depth
        if isinstance(node, Goto):
            k = next(j for j, c in enumerate(reversed(self.cfg_stack)) if c.id == node.target)
            target = self.cfg_stack[-1 - k]
            if k == 0:
                return [pad + ("break;" if target.kind == "block" else "continue;")]
            self.cfg_vars.add("br")
            return [f"{pad}xl_br = {target.id};", pad + "break;"]
        if isinstance(node, Dispatch):
            return self.emit_dispatch(node, depth)
        self.cfg_stack.append(node)
        body = self.emit_body(node.body, depth + 1, in_main)
        self.cfg_stack.pop()
        if node.kind == "loop":
            out = [pad + "for (;;)", pad + "{"]
            if node.guard:
                self.cfg_vars.add("iter")
                out.append(f"{pad}    if (++xl_iter > {self.cfg_limit}) return;   // "
                           "iteration guard (MAX_PROGRAM_EXEC_INSTRUCTIONS)")
            out += body
            if not body or body[-1].strip() not in ("break;", "continue;", "return;"):
                out.append(pad + "    break;")
            out.append(pad + "}")
        else:
            out = [pad + "do", pad + "{"] + body + [pad + "} while (false);"]
        escaping = _escaping(node)
        if escaping:
            parent = self.cfg_stack[-1]
            if parent.id in escaping:
                leave = "break;" if parent.kind == "block" else "continue;"
                out += [f"{pad}if (xl_br != 0)", pad + "{",
                        f"{pad}    if (xl_br == {parent.id}) {{ xl_br = 0; {leave} }}"]
                if escaping - {parent.id}:
                    out.append(pad + "    break;")
                out.append(pad + "}")
            else:
                out.append(f"{pad}if (xl_br != 0) break;")
        return out

    def emit_dispatch(self, node: Dispatch, depth: int) -> list[str]:
        """``while (true) switch (pc)`` over the basic blocks, with the return stack
        ``xl_rs`` (return block, -1 for a PUSHA entry) and the pushed address vectors
        ``xl_as`` (VP2 2.14.2.3, VP3 2.14.5.43-44)."""
        pad = "    " * depth
        self.cfg_vars.add("iter")
        out = [f"{pad}int xl_pc = {node.entry};", f"{pad}int xl_sp = 0;",
               f"{pad}int xl_rs[{MAX_CALL_DEPTH}];", f"{pad}ivec4 xl_as[{MAX_CALL_DEPTH}];",
               pad + "for (;;)", pad + "{",
               f"{pad}    if (++xl_iter > {node.limit}) return;   // iteration guard",
               f"{pad}    switch (xl_pc)", pad + "    {"]
        inner = pad + "        "

        def goto(b: int) -> list[str]:
            return [inner + "return;"] if b < 0 else [f"{inner}xl_pc = {b};", inner + "break;"]

        for blk in node.blocks:
            out.append(f"{pad}    case {blk.id}:")
            out.append(pad + "    {")
            previous = None
            for s in blk.body:
                lines, previous = self.tag_lines(s, self.emit_dstmt(s, node, inner, goto), inner,
                                                 previous)
                out += lines
            out.append(pad + "    }")
        out += [f"{pad}    default:", f"{pad}        return;", pad + "    }", pad + "}"]
        return out

    def emit_dstmt(self, s, node: Dispatch, inner: str, goto) -> list[str]:
        """One statement of a dispatch block (:meth:`emit_dispatch`)."""
        out: list[str] = []
        if isinstance(s, Op):
            return [inner + line for line in self.emit_ins(s.ins)]
        k = s.kind
        if k == "goto":
            out += goto(s.target)
        elif k == "exit":
            out.append(inner + "return;")
        elif k == "branch":
            cond = self.branch_cond(s.cond)
            out.append(f"{inner}if ({cond})")
            out.append(inner + "{")
            out += ["    " + x for x in goto(s.target)]
            out.append(inner + "}")
            out += goto(s.other)
        elif k == "call":
            cond = self.branch_cond(s.cond)
            full = "return;" if node.call_overflow == "terminate" else (
                f"{{ xl_pc = {s.other}; break; }}" if s.other >= 0 else "return;")
            lines = [f"if (xl_sp >= {MAX_CALL_DEPTH}) {full}",
                     f"xl_rs[xl_sp] = {s.other};", "xl_sp++;"] + (
                [f"xl_pc = {s.target};", "break;"] if s.target >= 0 else ["return;"])
            if cond is None:
                out += [inner + x for x in lines]
            else:
                out += [f"{inner}if ({cond})", inner + "{"] + \
                    [inner + "    " + x for x in lines] + [inner + "}"] + goto(s.other)
        elif k == "ret":
            cond = self.branch_cond(s.cond)
            lines = ["if (xl_sp == 0) return;", "xl_sp--;",
                     "if (xl_rs[xl_sp] < 0) return;   // a PUSHA entry: abnormal end",
                     "xl_pc = xl_rs[xl_sp];", "break;"]
            if cond is None:
                out += [inner + x for x in lines]
            else:
                out += [f"{inner}if ({cond})", inner + "{"] + \
                    [inner + "    " + x for x in lines] + [inner + "}"] + goto(s.other)
        elif k == "pusha":
            src = self.operand(s.ins.srcs[0], DataType.INT, False)
            out += [f"{inner}if (xl_sp >= {MAX_CALL_DEPTH}) return;",
                    f"{inner}xl_as[xl_sp] = {src};", f"{inner}xl_rs[xl_sp] = -1;",
                    inner + "xl_sp++;"]
        elif k == "popa":
            dst = s.ins.dst
            target = self.element(dst.reg, dst.index, None)
            st = self.storage_type(dst.reg)
            value = bitcast("xl_as[xl_sp]", DataType.INT, st)
            if dst.cond is not None:
                # a CC write mask (E3009): the pop always happens, the write is conditional
                value = self.select(target, value, self.cc_test(dst.cond), st)
            out += [f"{inner}if (xl_sp == 0 || xl_rs[xl_sp - 1] >= 0) return;",
                    inner + "xl_sp--;", f"{inner}{target} = {value};"]
        return out

    def emit_switch(self, node: Switch, depth: int, in_main: bool) -> list[str]:
        """TGSI SWITCH: a GLSL switch on the unsigned selector; CASE runs fall through like
        GLSL's, BRK is GLSL's break.  GLSL needs a statement after the last label."""
        pad = "    " * depth
        sel = self.operand(node.selector, DataType.UINT, True)
        out = [f"{pad}switch ({sel})", pad + "{"]
        for n, case in enumerate(node.cases):
            out += [f"{pad}case {v}u:" for v in case.values]
            if case.default:
                out.append(f"{pad}default:")
            body = self.emit_body(case.body, depth + 1, in_main)
            if not body and n == len(node.cases) - 1:
                body = [pad + "    break;"]
            out += body
        out.append(pad + "}")
        return out

    def emit_loop(self, node: Loop, depth: int, in_main: bool) -> list[str]:
        pad = "    " * depth
        out = []
        if node.count is None:
            out.append(f"{pad}for (;;)")
        else:
            i, n = self.fresh("i"), self.fresh("n")
            dtype = node.ins.dtype
            count = self.operand(node.count, dtype, False) + ".x"
            if count.startswith("vec4(") or count.startswith("ivec4(") or count.startswith("uvec4("):
                count = self.operand(node.count, dtype, True)
            const = self.constant_count(node.count, dtype)
            if const is not None:
                count = str(const) if dtype != DataType.UINT else f"{const}u"
            elif dtype == DataType.FLOAT:
                self.need("f2i")
                count = f"xl_f2i(vec4(floor({count}))).x"
            if dtype == DataType.FLOAT:
                out.append(f"{pad}for (int {i} = 0, {n} = {count}; {i} < {n}; ++{i})")
            elif dtype == DataType.INT:
                out.append(f"{pad}for (int {i} = 0, {n} = {count}; {i} < {n}; ++{i})")
            else:
                out.append(f"{pad}for (uint {i} = 0u, {n} = {count}; {i} < {n}; ++{i})")
        out.append(pad + "{")
        out += self.emit_body(node.body, depth + 1, in_main)
        out.append(pad + "}")
        return out

    def constant_count(self, src: Source, dtype: DataType) -> int | None:
        """REP count known at translation time (a literal): floor and clamp like xl_f2i."""
        reg = self.prog.registers[src.reg]
        if reg.kind != RegKind.CONST or src.abs or any(src.comp_neg):
            return None
        c = src.swizzle[0]
        bits = 0 if c == 4 else (0x3F800000 if dtype == DataType.FLOAT else 1) if c == 5 else reg.value[0][c]
        if src.neg:
            bits = negate_bits(bits, dtype)
        if dtype == DataType.FLOAT:
            value = struct.unpack("<f", struct.pack("<I", bits))[0]
            if value != value:
                return 0
            return int(max(-2**31, min(2**31 - 1, math.floor(value)))) if math.isfinite(value) else (
                2**31 - 1 if value > 0 else -2**31)
        if dtype == DataType.INT:
            return bits - (1 << 32) if bits & 0x80000000 else bits
        return bits

    def call_name(self, label: str, depth: int | None) -> str:
        """GLSL name of a subroutine (per call depth when the program recurses)."""
        name = self.fn_names.get(label)
        if name is None:
            base = re.sub(r"_+", "_", re.sub(r"[^A-Za-z0-9]", "_", label.replace("$", "S"))).strip("_")
            name = "sub_" + (base or "label")
            # the names taken so far, as a set (a program may have 10^5 subroutines)
            used = self.__dict__.get("_fn_names_used")
            if used is None:
                used = self._fn_names_used = set(self.fn_names.values())
            while name in used:
                name += "x"
            self.fn_names[label] = name
            used.add(name)
        return name if depth is None else f"{name}_d{depth}"

    # ---- program -------------------------------------------------------------------------------------
    def emit(self) -> GlslOutput:
        """Lower the program (``passes/pipeline.py``: the middle end, validated after each pass
        under tests and XLATE_VALIDATE_PASSES) and print the result."""
        lowered = lower(self.prog, profile=self.profile)
        self.depth = lowered.depth
        self.types = lowered.types
        self.cc_used = lowered.cc_used
        self.cc_values = lowered.cc_values
        if lowered.loop_limit is not None:
            self.cfg_limit = lowered.loop_limit
        try:
            self.plan()
            return self.render(lowered.structured)
        except _Unsupported as e:
            raise XlateError([Diagnostic("E7001", "error", f"{e} cannot be expressed in the "
                                         f"{self.profile} profile", e.span)])

    def render(self, st: Structured) -> GlslOutput:
        prog = self.prog
        self.plan_direct_outputs(st)
        functions, prototypes = [], []
        depths = [None] if self.depth is None else range(MAX_CALL_DEPTH, 0, -1)
        called = None if self.depth is None else called_copies(st)
        for depth in depths:
            for fname in st.order:
                if called is not None and (fname, depth) not in called:
                    continue                # no call reaches this copy
                fn = st.functions[fname]
                self.depth = depth
                body = self.emit_body(fn.body, 1, False)
                name = self.call_name(fname, depth)
                prototypes.append(f"void {name}();")
                functions.append(f"void {name}()\n{{\n" + "\n".join(body) + ("\n" if body else "") + "}")
        self.depth = None if self.depth is None else 0
        main_body = self.emit_body(st.main.body, 1, True)
        functions.append("void xl_main()\n{\n" + "\n".join(main_body) + ("\n" if main_body else "") + "}")
        globals_, prologue, epilogue = self.declare_globals()
        interface = self.declare_interface()
        uniforms = self.declare_uniforms()
        layout_lines = self.geometry_layout()
        if self.stage == Stage.GEOMETRY:
            store = [self.output_store(var, assign, b) for var, assign, b in self.output_vars]
            functions.insert(0, "void xl_emit()\n{\n" + "".join(f"    {s}\n" for s in store)
                             + "    EmitVertex();\n}")
            prototypes.append("void xl_emit();")
        else:
            if "demoted" in self.helpers:
                epilogue.append("if (xl_demoted) discard;")   # DEMOTE: outputs dropped
            epilogue += [self.output_store(var, assign, b) for var, assign, b in self.output_vars
                         if (b.path, b.index) not in self.direct_outputs]
        helpers = [helper_library()[h][0] for h in self.helpers]
        if self.info.precise:
            helpers = [precise_helper(h, self.info.precise) for h in helpers]
        header = "\n".join([f"#version {self.info.version}"]
                           + [f"#extension {e} : require" for e in self.extensions])
        preamble = []
        if self.info.precise == ES_PRECISE:
            header += "\n" + ES_PRECISE_HEADER
            self.notes.insert(0, "xl_precise is 'precise' with GL_EXT_gpu_shader5 or "
                                 "GL_OES_gpu_shader5; without either, the implementation may "
                                 "contract a * b + c into a fused multiply-add (README, Profiles).")
        elif not self.info.precise:
            self.notes.insert(0, f"No 'precise' in {self.info.language}: the implementation may "
                                 "contract a * b + c into a fused multiply-add (README, Profiles).")
        preamble += [f"// {n}" for n in self.notes]
        if self.info.es:
            # highp everywhere: the assembly computes in 32-bit floats and integers
            preamble += ["precision highp float;", "precision highp int;"]
        source_name = prog.source_name.replace("\n", " ").replace("\x00", " ")
        text = _jinja_env().get_template("program.j2").render(
            header=header, version=__version__, source_name=source_name, preamble=preamble,
            dialect=prog.dialect, stage=prog.stage.value, layout_lines=layout_lines,
            interface=interface, uniforms=uniforms, globals=globals_, helpers=helpers,
            prototypes=prototypes, functions=functions, prologue=prologue, epilogue=epilogue)
        text = re.sub(r"\n{3,}", "\n\n", text)
        text, line_map = self.finish_lines(text)
        from .reflect import reflection
        return GlslOutput(text, reflection(self), prog.stage, line_map)

    def finish_lines(self, text: str) -> tuple[str, list[int]]:
        """Remove the line tags (:data:`_TAG`) and give the line map; with ``line_directives``,
        add ``#line`` so that every statement that came from an instruction is numbered as that
        instruction's source line in source string 1, and every other statement as its own
        line of the GLSL text in source string 0 (what compilers print with no directives).
        Comments, blank lines and lone braces (:data:`_FILLER`) take whatever number comes: no
        compiler message can be about them."""
        lines, tags = [], []
        for raw in text.split("\n"):
            if "\x00" in raw:          # most lines carry no tag: skip the regexes for them
                start = raw.find("\x00")
                number = raw[start + 1:-1].rstrip("c")
                if raw.endswith("\x00") and number.isdigit():
                    lines.append(raw[:start])        # the usual case: one tag, at the end
                    tags.append(int(number))
                    continue
                m = _TAG.search(raw)
                lines.append(_TAG.sub("", raw))
                tags.append(int(m.group(1)) if m else 0)
            else:
                lines.append(raw)
                tags.append(0)
        if not self.line_directives:
            return "\n".join(lines), tags
        filler = [line.strip() in _FILLER or line.lstrip().startswith("//") for line in lines]
        out: list[str] = []
        out_map: list[int] = []
        state: tuple[int, int] | None = None       # (string, line) the next line gets as is
        for i, line in enumerate(lines):
            if state is not None and not filler[i]:
                want = (1, tags[i]) if tags[i] else (0, len(out) + 1)
                if want != state:
                    if want[0] == 0:
                        want = (0, want[1] + 1)    # the directive itself takes a line
                    out.append(f"#line {want[1]} {want[0]}")
                    out_map.append(0)
                    state = want
            out.append(line)
            out_map.append(tags[i])
            state = (0, 2) if state is None else (state[0], state[1] + 1)
        return "\n".join(out), out_map

    def output_storage(self, b: Binding) -> str:
        g = self.outputs[b.path]
        return f"{g.storage}[{b.index}]" if g.indexed else g.storage

    def output_store(self, var: I.InterfaceVar, assign: str, b: Binding) -> str:
        """The epilogue statement copying a staged output to its interface variable: the
        staging storage holds raw words (integer when any element of the path is), so the
        value is bitcast to the variable's base type, never converted."""
        x = self.output_storage(b)
        st = DataType.INT if self.outputs[b.path].integer else DataType.FLOAT
        vt = DataType.INT if var.glsl_type in ("ivec4", "int") else \
            DataType.UINT if var.glsl_type in ("uvec4", "uint") else DataType.FLOAT
        return assign.format(x=bitcast(x, st, vt))

    def geometry_layout(self) -> list[str]:
        geo = self.prog.geometry
        if geo is None:
            return []
        prim_in = {"POINTS": "points", "LINES": "lines", "LINES_ADJACENCY": "lines_adjacency",
                   "TRIANGLES": "triangles", "TRIANGLES_ADJACENCY": "triangles_adjacency"}[geo.input_primitive]
        prim_out = {"POINTS": "points", "LINE_STRIP": "line_strip",
                    "TRIANGLE_STRIP": "triangle_strip"}[geo.output_primitive]
        return [f"layout({prim_in}) in;", f"layout({prim_out}, max_vertices = {geo.vertices_out}) out;"]

    def declare_interface(self) -> list[str]:
        lines = []
        for var, _, _ in self.input_vars:
            if var.name == "gl_FragCoord" and self.fragcoord_layout():
                lines.append(f"layout({self.fragcoord_layout()}) in vec4 gl_FragCoord;")
            if var.builtin:
                continue
            interp = ""
            if var.interpolation:
                interp = {"FLAT": "flat ", "CENTROID": "centroid ", "NOPERSPECTIVE": "noperspective ",
                          "NOPERSPECTIVE CENTROID": "noperspective centroid ",
                          "CENTROID NOPERSPECTIVE": "noperspective centroid "}.get(var.interpolation, "")
            elif self.profile in ("glsl330", "es310") and var.glsl_type != "vec4":
                # integer geometry inputs: 'flat' as the vertex shader declares the output; GLSL
                # 3.30 (4.3.4) and ES 3.10 want the interpolation of a varying to match in both
                interp = "flat "
            arr = "[]" if var.array else ""
            if var.block:
                lines.append(f"in {var.block} {{ {interp}{var.glsl_type} v; }} {var.name}{arr};")
            else:
                lines.append(f"layout(location = {var.location}) {interp}in {var.glsl_type} {var.name}{arr};")
        for var, _, b in self.output_vars:
            # an output written in place holds computed values: precise, like the registers
            precise = self.precise if (b.path, b.index) in self.direct_outputs else ""
            if var.builtin:
                if precise:
                    lines.append(f"{precise}{var.name};")
                continue
            flat = "flat " if var.glsl_type != "vec4" and self.stage != Stage.FRAGMENT else ""
            if var.block:
                lines.append(f"out {var.block} {{ {flat}{var.glsl_type} v; }} {var.name};")
            else:
                lines.append(f"layout(location = {var.location}) {flat}{precise}out {var.glsl_type} {var.name};")
        return lines

    def declare_uniforms(self) -> list[str]:
        lines = []
        members = [f"vec4 {name}[{n}];" if n else f"vec4 {name};" for name, n in self.uniforms.items()]
        total = sum(max(n, 1) for n in self.uniforms.values())
        # GL guarantees 1024 uniform locations; larger parameter sets go into a block
        self.params_in_block = bool(members) and (self.vulkan or total > MAX_UNIFORM_LOCATIONS)
        if members:
            if self.params_in_block:
                # glsl450: program.buffer[b] blocks use bindings 0-15, so parameters take 16
                binding = "set = 0, binding = 0, std140" if self.vulkan else "std140, binding = 16"
                if not self.info.layouts:
                    binding = "std140"      # GLSL 3.30: glUniformBlockBinding(..., 16)
                lines.append(f"layout({binding}) uniform XlateParameters\n{{")
                lines += [f"    {m}" for m in members]
                lines.append("};")
            else:
                # explicit locations: an array of n vec4 takes n locations (GLSL 4.50 4.4.3)
                loc = 0
                for (name, n), m in zip(self.uniforms.items(), members):
                    # GLSL 3.30 has no explicit uniform locations: the engine looks names up
                    lines.append(f"layout(location = {loc}) uniform {m}" if self.info.layouts
                                 else f"uniform {m}")
                    loc += max(n, 1)
        # OpenGL ES: samplers have no default precision (GLSL ES 3.10 4.5.4); highp keeps
        # fetched integers and floats exact
        precision = "highp " if self.info.es else ""
        for t in sorted(self.textures.values(), key=lambda t: t.unit):
            binding = f"set = 0, binding = {1 + t.unit}" if self.vulkan else f"binding = {t.unit}"
            if not self.info.layouts:      # GLSL 3.30: glUniform1i(texture<u>, u)
                lines.append(f"uniform {precision}{self.sampler_type(t)} {t.name};")
                continue
            lines.append(f"layout({binding}) uniform {precision}{self.sampler_type(t)} {t.name};")
        for b, n in sorted(self.buffers.items()):
            binding = f"set = 0, binding = {40 + b}, std140" if self.vulkan else f"std140, binding = {b}"
            if not self.info.layouts:
                binding = "std140"          # GLSL 3.30: glUniformBlockBinding(..., b)
            lines.append(f"layout({binding}) uniform XlateBuffer{b}\n{{\n    uvec4 words[{n}];\n}} buffer{b};")
        return lines

    def declare_globals(self):
        globals_, prologue, epilogue = [], [], []
        for g in self.inputs.values():
            if g.path in self.direct_paths:
                continue
            t = "ivec4" if g.integer else "vec4"
            dims = (f"[{self.nverts}]" if g.per_vertex else "") + (f"[{g.size}]" if g.indexed else "")
            if g.per_vertex and g.indexed and not self.info.arrays_of_arrays:
                dims = f"[{self.nverts * g.size}]"          # see staged_element
            globals_.append(f"{t} {g.storage}{dims};")
        for var, expr, b in self.input_vars:
            g = self.inputs[b.path]
            if g.path in self.direct_paths:
                continue
            tgt_type = "ivec4" if g.integer else "vec4"
            verts = range(self.nverts) if g.per_vertex else [None]
            for v in verts:
                value = expr.replace("{v}", str(v)) if v is not None else expr
                if var.glsl_type in ("int",) and tgt_type == "vec4":
                    value = f"intBitsToFloat({value})"
                if var.glsl_type in ("vec4", "bool", "float") and tgt_type == "ivec4":
                    value = f"floatBitsToInt({value})"
                if g.indexed:
                    elem = self.staged_element(g, None if v is None else str(v), str(b.index))
                else:
                    elem = g.storage + (f"[{v}]" if v is not None else "")
                prologue.append(f"{elem} = {value};")
        direct_paths = {path for path, _ in self.direct_outputs}
        for key in self.zeroed_outputs:
            t = "ivec4" if self.outputs[key[0]].integer else "vec4"
            prologue.append(f"{self.direct_outputs[key]} = {t}(0);")
        for g in self.outputs.values():
            if g.path in direct_paths:
                continue
            t = "ivec4" if g.integer else "vec4"
            dims = f"[{g.size}]" if g.indexed else ""
            init = f" = {t}[{g.size}]({', '.join([t + '(0)'] * g.size)})" if g.indexed else f" = {t}(0)"
            globals_.append(f"{self.global_qualifier}{t} {g.storage}{dims}{init};")
        for name, reg in self.prog.registers.items():
            # a TEMP no statement uses is not declared (cgc declares its dummy CC destinations
            # RC and HC in every program)
            if reg.kind == RegKind.TEMP and name in self.used_temps:
                st = self.types.get(name, DataType.FLOAT)
                t = VEC[st]
                gname = self.name_of(name)
                if reg.size is None:
                    globals_.append(f"{self.global_qualifier}{t} {gname} = {t}(0);")
                else:
                    globals_.append(f"{self.global_qualifier}{t} {gname}[{reg.size}] = {t}[{reg.size}]({', '.join([t + '(0)'] * reg.size)});")
        if "br" in self.cfg_vars:
            globals_.append("int xl_br = 0;      // target of a multi-level exit (0: none)")
        if "iter" in self.cfg_vars:
            globals_.append("int xl_iter = 0;    // loop iterations (guard)")
        for cc in sorted(self.cc_used):
            if cc in self.cc_values:
                globals_.append(f"vec4 xl_cc{cc} = vec4(0.0);   // condition code {cc}: the value "
                                "of its last update (flags from its sign), start EQ")
            else:
                globals_.append(f"uvec4 xl_cc{cc} = uvec4(2u);   // condition codes (SF=1 ZF=2 OF=4 CF=8), start EQ")
        for regname, arr in self.param_arrays.items():
            reg = self.prog.registers[regname]
            elems = [self.param_element(reg, i) for i in range(reg.size)]
            if all(b is None for b in reg.bindings):      # literal table: a const array
                if self.literal_table_exact(reg):
                    globals_.append(f"const vec4 {arr}[{reg.size}] = vec4[{reg.size}]"
                                    f"({', '.join(elems)});")
                else:
                    # read as uintBitsToFloat(arr[i]) (param_relative): exact for every bit
                    # pattern, and uint literals are constant expressions
                    words = [vector_literal(v, DataType.UINT) for v in reg.value]
                    globals_.append(f"const uvec4 {arr}[{reg.size}] = uvec4[{reg.size}]"
                                    f"({', '.join(words)});")
                continue
            globals_.append(f"vec4 {arr}[{reg.size}];")
            prologue += [f"{arr}[{i}] = {e};" for i, e in enumerate(elems)]
        return globals_, prologue, epilogue


def _escaping(node: Labeled) -> set[int]:
    """Ids of the constructs outside ``node`` that Gotos inside it leave to."""
    inner: set[int] = set()
    targets: set[int] = set()

    def walk(nodes):
        for n in nodes:
            if isinstance(n, Labeled):
                inner.add(n.id)
                walk(n.body)
            elif isinstance(n, Goto):
                targets.add(n.target)
            elif isinstance(n, If):
                walk(n.then)
                walk(n.orelse)
            elif isinstance(n, Loop):
                walk(n.body)
            elif isinstance(n, Switch):
                for case in n.cases:
                    walk(case.body)
    inner.add(node.id)
    walk(node.body)
    return targets - inner


class _Unsupported(Exception):
    """E7001; the message starts with the feature, then its details in parentheses."""

    def __init__(self, message: str, ins: Instruction | None, span=None):
        super().__init__(message)
        self.ins = ins
        self.span = span if span is not None else (ins.span if ins is not None else None)


def _member_access(text: str, name: str) -> str:
    """``fragment_texcoord_0`` -> ``fragment_texcoord_0.v`` (``vertex_id[{v}]`` ->
    ``vertex_id[{v}].v``) in an interface expression or assignment: the variable became the
    instance name of a one-member block (:meth:`GlslEmitter.varying_block`)."""
    return re.sub(rf"\b{re.escape(name)}(\[\{{v\}}\])?(?![\w\[])", rf"{name}\1.v", text)


_HELPER_HEAD = re.compile(r"^(\w+) xl_\w+\(")
_HELPER_LOCAL = re.compile(r"(^\s+|\{ )((?:float|vec[234]|ivec[234]|uvec[234]|int|uint) \w+ = )", re.M)
_HELPER_BODY_RETURN = re.compile(r"^(.*\) \{ (?:[^{}]*; )?)return (?!xl_r;)([^;]+); \}$")  # f() { return e; }
_HELPER_LINE_RETURN = re.compile(r"^(\s+)return (?!xl_r;)([^;]+);$")          #     return e;
_HELPER_RETURN = re.compile(r"\breturn (?!xl_r;)([^;]+);")                     # if (c) return e;
_PRECISE_TYPES = frozenset("float vec2 vec3 vec4 int ivec2 ivec3 ivec4 uint uvec2 uvec3 uvec4".split())


def precise_helper(text: str, word: str = "precise") -> str:
    """A helper function (helpers.glsl) with its locals and its returned value ``precise``.

    ``precise`` on a variable governs only the operations of its own function (glslang marks
    ``NoContraction`` function by function), so the value of each ``return`` goes through a
    ``precise`` local: ``{ return a * b + c; }`` -> ``{ precise T xl_r = a * b + c; return
    xl_r; }``, and initialized locals (``float s = ...``) get the qualifier too."""
    out = []
    rtype = None
    for line in text.split("\n"):
        m = _HELPER_HEAD.match(line)
        if m:
            rtype = m.group(1)
        if line.lstrip().startswith("//") or rtype not in _PRECISE_TYPES:
            out.append(line)
            continue
        line = _HELPER_LOCAL.sub(rf"\1{word} \2", line)
        decl = f"{word} {rtype} xl_r = "
        if (m := _HELPER_BODY_RETURN.match(line)):
            line = f"{m.group(1)}{decl}{m.group(2)}; return xl_r; }}"
        elif (m := _HELPER_LINE_RETURN.match(line)):
            line = f"{m.group(1)}{decl}{m.group(2)};\n{m.group(1)}return xl_r;"
        else:
            line = _HELPER_RETURN.sub(lambda r: f"{{ {decl}{r.group(1)}; return xl_r; }}", line)
        out.append(line)
    return "\n".join(out)


def emit_glsl(prog: Program, profile: str = "glsl450", *, line_directives: bool = False,
              comments: bool = False, instruction_text=None) -> GlslOutput:
    """GLSL of a program in ``profile``.  ``line_directives``: ``#line`` so that compiler
    messages name the assembly source line (:meth:`GlslEmitter.finish_lines`); ``comments``: each
    instruction's text (``instruction_text(ins)``, else the IR form) in a comment before its GLSL.
    With both off the text is the same as without them, byte for byte.

    The cyclic garbage collector is paused meanwhile (xlate/gcpause.py), for every caller:
    with it on, the structurizer's and emitter's many small objects made emission of a
    program 8x longer take ~10x the time (tools/bench_scaling.py, nv4-calls)."""
    from ..gcpause import paused
    with paused():
        return GlslEmitter(prog, profile, line_directives=line_directives, comments=comments,
                           instruction_text=instruction_text).emit()
