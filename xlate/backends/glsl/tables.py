"""The template tables the backend prints from: ``ops.txt`` (one expression per opcode and type),
``helpers.glsl`` (helper functions, emitted only when used), the condition-code tests, the Jinja
file layout; and :func:`precise_helper`, which makes a helper's values ``precise``."""
from __future__ import annotations


import re
from functools import lru_cache
from importlib import resources
from pathlib import Path





def _template_dir() -> Path:
    """templates/ of a checkout, or xlate/templates/ inside an installed wheel."""
    installed = Path(str(resources.files("xlate"))) / "templates" / "glsl"
    if installed.is_dir():
        return installed
    checkout = Path(__file__).resolve().parents[3] / "templates" / "glsl"
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
    for rule, expr in cc_tests().items():
        for n in (1, 2, 3, 4):
            out.setdefault(f"cc{rule}" if n == 4 else f"cc{rule}{n}", _flag_test(rule, expr, n))
    return out


#: the flag bits of a condition-code word (SF = 1, ZF = 2, OF = 4, CF = 8), as cctests.txt
#: names them
_FLAG_BITS = (("s", "f & 1u"), ("z", "(f >> 1) & 1u"), ("o", "(f >> 2) & 1u"),
              ("c", "(f >> 3) & 1u"))


def _flag_test(rule: str, expr: str, n: int) -> tuple[str, tuple[str, ...]]:
    """The helper testing ``rule`` (cctests.txt: ``expr`` of the flags) on ``n`` flag words
    -- ``bool xl_ccEQ(uint f)`` for one, ``bvec2 xl_ccEQ(uvec2 f)`` ...: overloads of one
    GLSL function, declaring only the flags the test reads."""
    word, test = ("uint", "bool") if n == 1 else (f"uvec{n}", f"bvec{n}")
    result = f"{expr} != 0u" if n == 1 else f"notEqual({expr}, {word}(0u))"
    flags = ", ".join(f"{flag} = {bit}" for flag, bit in _FLAG_BITS
                      if re.search(rf"\b{flag}\b", expr))
    return (f"{test} xl_cc{rule}({word} f)\n{{\n    {word} {flags};\n"
            f"    return {result};\n}}\n", ())


@lru_cache(maxsize=1)
def cc_value_tests() -> dict[str, tuple[str, str]]:
    """rule -> (scalar form, vector form) of a test of a register holding a float value, and
    ``rule.i`` -> those of one holding an integer value (``cctests_value.txt``)."""
    out = {}
    for line in (_template_dir() / "cctests_value.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            rule, rest = line.split(None, 1)
            scalar, vector = rest.split(" | ", 1)
            out[rule] = (scalar.strip(), vector.strip())
    return out


@lru_cache(maxsize=1)
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


_HELPER_HEAD = re.compile(r"^(\w+) xl_\w+\(")


_HELPER_LOCAL = re.compile(r"(^\s+|\{ )((?:float|vec[234]|ivec[234]|uvec[234]|int|uint) \w+ = )", re.M)


_HELPER_BODY_RETURN = re.compile(r"^(.*\) \{ (?:[^{}]*; )?)return (?!xl_r;)([^;]+); \}$")  # f() { return e; }


_HELPER_LINE_RETURN = re.compile(r"^(\s+)return (?!xl_r;)([^;]+);$")          #     return e;


_HELPER_RETURN = re.compile(r"\breturn (?!xl_r;)([^;]+);")                     # if (c) return e;


_PRECISE_TYPES = frozenset("float vec2 vec3 vec4 int ivec2 ivec3 ivec4 uint uvec2 uvec3 uvec4".split())


@lru_cache(maxsize=1024)      # a few dozen helpers x profiles; the same text every program
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


#: a helper function's head: return type, name, parameters (one line of helpers.glsl)
_SIGNATURE = re.compile(r"^(\w+) (xl_\w+)\(([^)]*)\)", re.M)
#: the four-component types, and their scalar and vector-of-n spellings
_WIDE = {"vec4": ("float", "vec"), "ivec4": ("int", "ivec"), "uvec4": ("uint", "uvec"),
         "bvec4": ("bool", "bvec")}
#: a value of n components widened to four for the helper, and the result narrowed back
_WIDEN = {2: ".xyxy", 3: ".xyzz"}
_NARROW = {1: ".x", 2: ".xy", 3: ".xyz"}


def _sized(type4: str, n: int) -> str:
    scalar, vector = _WIDE[type4]
    return scalar if n == 1 else f"{vector}{n}"


@lru_cache(maxsize=None)
def sized_overload(section: str, function: str, arguments: tuple[str | None, ...],
                   n: int) -> str | None:
    """The overload of a componentwise helper ``function`` (defined for four components in the
    helpers.glsl text ``section``) at ``n`` components, for a write of ``n`` components computed
    on those alone (``R6.xyz = xl_max(R2.xyz, R3.xyz);``, not ``xl_max(R2, R3).xyz``)::

        vec3 xl_max(vec3 a, vec3 b) { return xl_max(a.xyzz, b.xyzz).xyz; }

    ``arguments``: the four-component type of each argument of the call, None where the caller
    does not know it (an expression); the one four-component overload whose parameters match
    them is sized.  It calls that overload, so the values are those of the one definition: the
    opcode is componentwise (``ir.ops.COMPONENTWISE``), each result component depends on that
    component of the vector operands alone, and the components the widening repeats are
    computed and dropped.  Parameters that are not four-component vectors (``xl_div``'s ``int
    b``) pass as they are.  "" where the section already defines that size (``float
    xl_fp16(float x)``) or ``n`` is 4; None where no single four-component overload matches
    (then the caller does not narrow)."""
    found = [(rt, [p.split() for p in params.split(",")])
             for rt, name, params in _SIGNATURE.findall(section) if name == function]
    wide = [(rt, params) for rt, params in found
            if rt in _WIDE and all(len(p) == 2 for p in params) and len(params) == len(arguments)
            and all(a is None or a == p[0] for a, p in zip(arguments, params))]
    if len(wide) != 1:
        return None
    if n == 4:
        return ""
    returns, params = wide[0]
    sized_params = [(_sized(t, n) if t in _WIDE else t, name) for t, name in params]
    returns_n = _sized(returns, n)
    if any(rt == returns_n and [p[0] for p in ps] == [t for t, _ in sized_params]
           for rt, ps in found):
        return ""                  # written by hand in helpers.glsl
    args = [(f"{t}({name})" if n == 1 else name + _WIDEN[n]) if t in _WIDE else name
            for t, name in params]
    head = ", ".join(f"{t} {name}" for t, name in sized_params)
    return f"{returns_n} {function}({head}) {{ return {function}({', '.join(args)}){_NARROW[n]}; }}"
