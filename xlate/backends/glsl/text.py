"""GLSL text of values: literals (exact, bit for bit), vector types, bitcasts, swizzles and masks,
and the small rewrites that keep expressions readable (composed swizzles, ``a - b``, scalar
literals in operator expressions)."""
from __future__ import annotations


import math
import re
import struct
from collections.abc import Container
from functools import lru_cache

from ...ir.model import DataType




VEC = {DataType.FLOAT: "vec4", DataType.INT: "ivec4", DataType.UINT: "uvec4"}


SCALAR = {DataType.FLOAT: "float", DataType.INT: "int", DataType.UINT: "uint"}


TYPE_CHAR = {DataType.FLOAT: "F", DataType.INT: "S", DataType.UINT: "U"}


COMP = "xyzw"


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
    return _glsl_float(text)


def _glsl_float(text: str) -> str:
    """Python's spelling of a float as a GLSL float literal ('2e-05' -> '2.0e-5', '3' ->
    '3.0')."""
    if "e" in text:
        mant, exp = text.split("e")
        if "." not in mant:
            mant += ".0"
        return f"{mant}e{int(exp)}"
    return text if "." in text else text + ".0"


@lru_cache(maxsize=1024)
def exact_float_literal(bits: int) -> str:
    """A GLSL literal whose decimal value is exactly these float32 bits, for a literal the GLSL
    compiler folds with other constants: glslang folds constant expressions in double
    precision from the literal's decimal text (Constant.cpp), so ``1.0 / 2.2`` is 1/2.2 rounded
    once -- 0x3ee8ba2f -- where the program's RCP of the float 2.2 is 0x3ee8ba2e.  Read as the
    exact value (``2.200000047683716``), the double operation rounded to float is the float
    operation's own correctly rounded result (+, -, *, /, sqrt: doubles hold the exact
    product of two floats and round the others only once more, harmlessly)."""
    short = float_literal(bits)
    value = struct.unpack("<f", struct.pack("<I", bits))[0]
    if not math.isfinite(value) or bits == 0x80000000 or float(short) == value:
        return short
    return _glsl_float(repr(value))


@lru_cache(maxsize=256)
def log2_literal(bits: int) -> str:
    """A literal whose log2 the GLSL compiler folds (POW's base): the short spelling where the
    log2 of its decimal value rounds to the same float as the log2 of these float32 bits,
    else the exact one (:func:`exact_float_literal`)."""
    short = float_literal(bits)
    value = struct.unpack("<f", struct.pack("<I", bits))[0]
    if not math.isfinite(value) or value <= 0.0:
        return short                 # folds to no finite log2 either way
    if _to_float(math.log2(float(short))) == _to_float(math.log2(value)):
        return short
    return exact_float_literal(bits)


def _to_float(x: float) -> float:
    return struct.unpack("<f", struct.pack("<f", x))[0]


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


def vector_literal(words, dtype: DataType, float_text=float_literal) -> str:
    """A literal of as many components as ``words`` (one word: a scalar literal); float words
    spelled by ``float_text`` (:func:`exact_float_literal` where the compiler folds them)."""
    parts = [float_text(w) if dtype == DataType.FLOAT else int_literal(w, dtype)
             for w in words]
    if len(parts) == 1:
        return parts[0]
    ctor = vec_type(dtype, len(parts))
    if len(set(parts)) == 1:
        return f"{ctor}({parts[0]})"
    return f"{ctor}({', '.join(parts)})"


def bitcast(expr: str, src: DataType, dst: DataType, scalar: bool = False, size: int = 4) -> str:
    """``expr`` (a ``size``-component vector, or a scalar) of type ``src`` with its bits read as
    ``dst``."""
    if src == dst:
        return expr
    if scalar and src == DataType.INT and dst == DataType.UINT and expr.isdigit():
        return f"{expr}u"                                  # uint(0) is 0u
    if src == DataType.FLOAT:
        if expr.startswith("uintBitsToFloat(") and wrapped(expr[len("uintBitsToFloat"):]):
            # bits read back as integers (a table of bits, param_relative) never pass through
            # a float: GLSL leaves the value of uintBitsToFloat(NaN bits) unspecified
            inner = expr[len("uintBitsToFloat("):-1]
            ctor = SCALAR[dst] if scalar else VEC[dst][:-1] + str(size)
            return inner if dst == DataType.UINT else f"{ctor}({inner})"
        return f"{'floatBitsToInt' if dst == DataType.INT else 'floatBitsToUint'}({expr})"
    if dst == DataType.FLOAT:
        return f"{'intBitsToFloat' if src == DataType.INT else 'uintBitsToFloat'}({expr})"
    ctor = SCALAR[dst] if scalar else VEC[dst][:-1] + str(size)
    return f"{ctor}({expr})"


#: an ops.txt expression that works on one size of vector only: a constructor, a helper
#: function (declared for vec4), or a swizzle of its own
_NOT_SIZE_GENERIC = re.compile(r"\b[iu]?vec\d|\bxl_|\.[xyzw]|\bpack|\bunpack")


_ARITH = re.compile(r" [-+*/] ")      # a binary float operator of an ops.txt expression


#: an expression that needs no parentheses under a unary minus or a swizzle: a name, an
#: element, a member
_PLAIN = re.compile(r"[\w.\[\]]+")


_SWIZZLED = re.compile(r"(-?[A-Za-z_][\w]*(?:\[[^\[\]]*\])*)\.([xyzw]{4})")
_FOUR_SELECTORS = re.compile(r"[xyzw]{4}")


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


def components(value: str, m: str, vectors: Container[str] = ()) -> str:
    """The components ``m`` (``.xy``) of the vector expression ``value``, as a person writes
    them: a swizzle composed (``R1.yzxw`` -> ``R1.yz``), a literal splat narrowed (``vec4(0.0)``
    -> ``vec2(0.0)``, ``0.0`` for one component), a one-argument componentwise call narrowed
    in its argument (``ivec4(R1).x`` -> ``int(R1.x)``; :func:`_narrowed_call`), a name or call
    suffixed (``-b.xy``: the minus applies last), anything else parenthesized.  ``vectors``:
    names (of registers, of register arrays' elements) known to hold four components."""
    swz = _SWIZZLED.fullmatch(value)
    if swz:
        return f"{swz.group(1)}.{''.join(swz.group(2)['xyzw'.index(c)] for c in m[1:])}"
    if wrapped(value) and value[-6:-5] == "." and called(value[1:-6]) and \
            _FOUR_SELECTORS.fullmatch(value[-5:-1]):
        # a swizzled call, '(unpackHalf2x16(w).xyxy)': the swizzles composed
        sel = value[-5:-1]
        return f"{value[1:-6]}.{''.join(sel['xyzw'.index(c)] for c in m[1:])}"
    splat = _LITERAL_SPLAT.fullmatch(value)
    if splat:
        n = len(m) - 1
        return splat.group(1) if n == 1 else f"{value[:value.index('vec') + 3]}{n}({splat.group(1)})"
    narrowed = _narrowed(value, m, vectors)
    if narrowed is not None:
        return narrowed
    if _PLAIN.fullmatch(value.removeprefix("-")) or wrapped(value) or called(value) or \
            _ELEMENT.fullmatch(value.removeprefix("-")):
        return f"{value}{m}"
    return f"({value}){m}"


#: componentwise functions of one argument whose result has the argument's size (GLSL 4.50
#: §8.3 the bit casts): ``f(X).m`` is ``f(X.m)``
_BIT_CASTS = frozenset({"floatBitsToUint", "floatBitsToInt", "uintBitsToFloat", "intBitsToFloat"})
#: componentwise helpers of one argument (templates/glsl/helpers.glsl) with a float overload
#: beside the vec4 one, in every profile: ``h(X).x`` is ``h(X.x)``
_SCALAR_OVERLOADED = frozenset({"xl_fp16", "xl_fx12"})
#: the four-component constructors, and the type of one of their components
_VEC4_SCALAR = {VEC[t]: SCALAR[t] for t in VEC} | {"bvec4": "bool"}
#: a literal of each component type, as the printer writes them (text.literal)
_SCALAR_LITERAL = {"float": re.compile(r"-?\d+\.\d*(?:e[-+]?\d+)?"),
                   "int": re.compile(r"-?\d+|-?0x[0-9a-f]+"),
                   "uint": re.compile(r"\d+u|0x[0-9a-fA-F]+u"),
                   "bool": re.compile(r"true|false")}
#: componentwise comparisons: a bvecN of their operands' size N
_COMPARISONS = {"lessThan": "<", "lessThanEqual": "<=", "greaterThan": ">",
                "greaterThanEqual": ">=", "equal": "==", "notEqual": "!="}


def _narrowed(value: str, m: str, vectors: Container[str]) -> str | None:
    """:func:`_narrowed_call` of ``value``, or of the call under its minus or parentheses
    (``(-ivec4(R8)).x`` -> ``-int(R8.x)``); None where nothing narrows."""
    if value.startswith("-"):
        inner = _narrowed(value[1:], m, vectors)
        return None if inner is None else f"-{inner}"
    if wrapped(value):
        inner = _narrowed(value[1:-1], m, vectors)
        if inner is None or called(inner.removeprefix("-")):
            return inner
        return f"({inner})"
    return _narrowed_call(value, m, vectors)


def _narrowed_call(value: str, m: str, vectors: Container[str]) -> str | None:
    """``uintBitsToFloat(R1).xy`` -> ``uintBitsToFloat(R1.xy)``, ``ivec4(R2.wwww).x`` ->
    ``int(R2.w)``: the components ``m`` of a one-argument componentwise call, taken from its
    argument first -- the same values (each component of the result depends on that
    component of the argument alone).  A constructor is narrowed only where its argument is
    seen to be a four-component vector (``ivec4(s)`` of a scalar ``s`` replicates it); None
    where neither applies."""
    if not called(value):
        return None
    name = value[:value.index("(")]
    inner = value[len(name) + 1:-1]
    args = [a.strip() for a in _arguments(inner)]
    if name in _BIT_CASTS:
        return f"{name}({components(inner, m, vectors)})" if len(args) == 1 else None
    if name in _SCALAR_OVERLOADED and len(m) == 2 and len(args) == 1 and \
            _four_components(inner, vectors):
        # 'xl_fx12(R21.zzzz).x' -> 'xl_fx12(R21.z)': the helper's float overload
        return f"{name}({components(inner, m, vectors)})"
    if name in _COMPARISONS and len(args) == 2 and all(_four_components(a, vectors)
                                                        for a in args):
        # 'lessThan(R3.wwww, R0.yyyy).x' -> '(R3.w < R0.y)': the same comparison of those
        # components (a scalar operator for one: GLSL's comparison functions take vectors)
        left, right = (components(a, m, vectors) for a in args)
        if len(m) == 2:
            return f"({left} {_COMPARISONS[name]} {right})"
        return f"{name}({left}, {right})"
    scalar = _VEC4_SCALAR.get(name)
    if scalar is None:
        return None
    n = len(m) - 1
    ctor = scalar if n == 1 else f"{name[:-1]}{n}"
    if len(args) == 1:
        if not _four_components(inner, vectors):
            return None
        arg = components(inner, m, vectors)
        return f"{ctor}({arg[1:-1] if wrapped(arg) else arg})"
    if len(args) != 4:
        return None
    # four arguments make four components, one each: 'uvec4(uint(k), 0u, 0u, 0u).x' is 'uint(k)'
    picked = [args["xyzw".index(c)] for c in m[1:]]
    if n > 1:
        return f"{ctor}({', '.join(picked)})"
    one = picked[0]
    if _SCALAR_LITERAL[scalar].fullmatch(one) or (called(one) and one.startswith(scalar + "(")):
        return one
    return f"{scalar}({one})"


def _four_components(expr: str, vectors: Container[str]) -> bool:
    """``expr`` is seen to be a four-component vector: one of ``vectors`` or an element of
    one, one of the printer's own temporaries (``xl_t1``, ``xl_cc0``), a four-component
    swizzle, a four-component constructor, or a size-keeping call (bit cast, comparison) or
    negation of one."""
    if _SWIZZLED.fullmatch(expr) or _TEMPORARY.fullmatch(expr):
        return True
    name = _ELEMENT.fullmatch(expr)
    if name is not None:
        return name.group(1) in vectors
    if expr.startswith("-"):
        return _four_components(expr[1:], vectors)
    if wrapped(expr):
        return _four_components(expr[1:-1], vectors)
    if not called(expr):
        return False
    name = expr[:expr.index("(")]
    if name in _VEC4_SCALAR:
        return True
    inner = expr[len(name) + 1:-1]
    if name in _BIT_CASTS:
        return _four_components(inner, vectors)
    if name in _COMPARISONS:
        return any(_four_components(a.strip(), vectors) for a in _arguments(inner))
    return False


#: the printer's own four-component temporaries (instructions.write's ``vec4 xl_t1``) and the
#: value-holding condition-code registers (``vec4 xl_cc0``)
_TEMPORARY = re.compile(r"xl_(?:t|cc)\d+")
#: a name, or an element of an array: ``R1``, ``TEMP[2]``, ``lmem[clamp(...)]``
_ELEMENT = re.compile(r"([A-Za-z_]\w*)(?:\[[^\[\]]*(?:\[[^\[\]]*\][^\[\]]*)*\])?")


def _arguments(args: str) -> list[str]:
    """The comma-separated arguments of a call, split outside parentheses and brackets."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(args):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append(args[start:i])
            start = i + 1
    out.append(args[start:])
    return out


def right_side(expr: str) -> str:
    """The right-hand side of an assignment as a person writes it: no parentheses around the
    whole, ``a - b`` for ``a + -b`` (the same operation: IEEE 754 defines x - y as x + (-y), and
    two's complement wraps alike; only a NaN's sign may differ, and NaN payloads are open)."""
    if wrapped(expr):
        expr = expr[1:-1]
    return _PLUS_NEGATED.sub(" - ", expr)


_CALLS = re.compile(r"\w\(")
_NAME = re.compile(r"[A-Za-z_]\w*")


def splat_literals(srcs: list[str], template: str, vectors: list[bool],
                   splats: dict[str, str] | None = None) -> list[str]:
    """``R1.xy * vec2(0.5)`` -> ``R1.xy * 0.5``: in an expression of operators only (GLSL
    applies a scalar to every component), a literal with one value for every component is
    written as that scalar -- when another operand, not such a literal, is a vector
    (``vectors[i]``), so that the result keeps its size.  ``splats``: other replicated values
    and their scalar (an inlined scalar, ``vec2(1.0 / x)`` -> ``1.0 / x``)."""
    if _CALLS.search(template):
        return srcs
    scalars = []
    for x in srcs:
        m = _LITERAL_SPLAT.fullmatch(x)
        scalars.append(m.group(1) if m else splats.get(x) if splats else None)
    if not any(v and sc is None for v, sc in zip(vectors, scalars)):
        return srcs
    return [x if sc is None else sc for sc, x in zip(scalars, srcs)]


def called(expr: str) -> bool:
    """True when the whole expression is one function call: ``texture(s, c)``."""
    m = _NAME.match(expr)
    return m is not None and wrapped(expr[m.end():])


def wrapped(expr: str) -> bool:
    """True when the whole expression is one parenthesized group: ``(a + b)``."""
    if not expr.startswith("(") or not expr.endswith(")"):
        return False
    depth = 0
    for m in _PARENTHESIS.finditer(expr):       # the parentheses only, not every character
        if m.group() == "(":
            depth += 1
        else:
            depth -= 1
            if depth == 0:
                return m.start() == len(expr) - 1
    return False


_PARENTHESIS = re.compile(r"[()]")


def _member_access(text: str, name: str) -> str:
    """``fragment_texcoord_0`` -> ``fragment_texcoord_0.v`` (``vertex_id[{v}]`` ->
    ``vertex_id[{v}].v``) in an interface expression or assignment: the variable became the
    instance name of a one-member block (:meth:`GlslEmitter.varying_block`)."""
    return re.sub(rf"\b{re.escape(name)}(\[\{{v\}}\])?(?![\w\[])", rf"{name}\1.v", text)


