"""Identifiers from the names a program's author gave (cgc's ``#var`` header), for every backend.

The frontend resolves each ``#var`` line to what the program binds (:class:`SourceName` in
``Program.source_names``); here they become the identifiers the backends declare and the
reflection JSON reports: ``IN.texture_size`` in ``c[2]`` is the uniform ``IN_texture_size``, a
``float4x4 modelViewProj`` over ``c[0..3]`` the uniform ``vec4 modelViewProj[4]`` (one element
per register, as the engine's Cg code set them), ``VOUT.texCoord`` on ``TEX0`` the input
``VOUT_texCoord``, ``decal`` on texture unit 0 the sampler ``decal``.  A thing with no name
keeps the name it had before (``program_local[2]``, ``fragment_texcoord_0``, ``texture0``).
One object per program: the GLSL and the SPIR-V backends ask the same one, so their interfaces
and reflection agree.

Choices (where cgc's header leaves it open):

* spelling: every character that is not a letter, digit or ``_`` becomes ``_`` (``IN.pos`` ->
  ``IN_pos``, ``lights[0].color`` -> ``lights_0_color``), runs of ``_`` become one (GLSL
  reserves ``__``), leading/trailing ``_`` go; a name starting with a digit gets ``v``;
* arrays: ``w[0]`` .. ``w[3]`` of one binding path are one uniform array ``w[4]`` (element k
  of ``w`` is element k of the array; an array of matrices ``m[k]`` over r registers is
  ``m[k * r + row]``);
* several names on one register (cgc lists an unreferenced alias: ``s0`` and
  ``PASSPREV.texture`` both on texture unit 0): the one cgc marks referenced wins, the first in
  the header among equals; the reflection's ``cg_vars`` still lists every line;
* a parameter array the program indexes with a register (``c[A0.x + 5]``) keeps its array
  name (``program_local``): one GLSL array is what the index selects from, and its elements
  are whatever mix of Cg parameters and constants cgc packed there;
* built-ins (``gl_Position``, ``gl_FragCoord`` ...) keep their names;
* a name that is a GLSL keyword, reserved word or built-in function (``main``, ``input``,
  ``texture``), or that could be a name the backend makes itself (``gl_``, ``xl_``, ``in_``,
  ``out_`` prefixes; ``texture0``; ``program_local`` ...) gets a ``_`` appended: ``main_``;
  one starting with ``gl_``, which GLSL reserves whatever follows, gets ``cg_`` in front;
* two names that spell the same identifier: the first (header order) keeps it, the next get
  ``_2``, ``_3`` ... (``IN.pos`` and ``IN_pos`` -> ``IN_pos``, ``IN_pos_2``).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..ir.model import Binding, Program, RegKind

#: GLSL 4.60 / ES 3.20 keywords and reserved words (§3.6), the types, and the built-in functions
#: (§8) an identifier must not hide; ``main``.
GLSL_WORDS = frozenset("""
attribute const uniform varying buffer shared coherent volatile restrict readonly writeonly
atomic_uint layout centroid flat smooth noperspective patch sample break continue do for while
switch case default if else subroutine in out inout float double int void bool true false
invariant precise discard return uint lowp mediump highp precision struct common partition active
asm class union enum typedef template this resource goto inline noinline public static extern
external interface long short half fixed unsigned superp input output filter sizeof cast namespace
using sampler image demote
main radians degrees sin cos tan asin acos atan sinh cosh tanh asinh acosh atanh pow exp log exp2
log2 sqrt inversesqrt abs sign floor trunc round roundEven ceil fract mod modf min max clamp mix
step smoothstep isnan isinf floatBitsToInt floatBitsToUint intBitsToFloat uintBitsToFloat fma
frexp ldexp packUnorm2x16 packSnorm2x16 packUnorm4x8 packSnorm4x8 unpackUnorm2x16 unpackSnorm2x16
unpackUnorm4x8 unpackSnorm4x8 packHalf2x16 unpackHalf2x16 packDouble2x32 unpackDouble2x32 length
distance dot cross normalize ftransform faceforward reflect refract matrixCompMult outerProduct
transpose determinant inverse lessThan lessThanEqual greaterThan greaterThanEqual equal notEqual
any all not uaddCarry usubBorrow umulExtended imulExtended bitfieldExtract bitfieldInsert
bitfieldReverse bitCount findLSB findMSB textureSize textureQueryLod textureQueryLevels
textureSamples texture textureProj textureLod textureOffset texelFetch texelFetchOffset
textureProjOffset textureLodOffset textureProjLod textureProjLodOffset textureGrad
textureGradOffset textureProjGrad textureProjGradOffset textureGather textureGatherOffset
textureGatherOffsets texture1D texture2D texture3D textureCube shadow1D shadow2D texture1DProj
texture2DProj texture3DProj texture2DLod texture1DLod texture3DLod textureCubeLod shadow2DProj
dFdx dFdy dFdxFine dFdyFine dFdxCoarse dFdyCoarse fwidth fwidthFine fwidthCoarse
interpolateAtCentroid interpolateAtSample interpolateAtOffset noise1 noise2 noise3 noise4
EmitStreamVertex EndStreamPrimitive EmitVertex EndPrimitive barrier memoryBarrier
groupMemoryBarrier subpassLoad atomicAdd atomicMin atomicMax atomicAnd atomicOr atomicXor
atomicExchange atomicCompSwap imageLoad imageStore imageSize
""".split())
_TYPE_WORD = re.compile(r"[bdiu]?vec[234]|d?mat[234](x[234])?|[hf]vec[234]"
                        r"|[iu]?(sampler|image|texture)[0-9A-Z]\w*|subpassInput\w*")
#: names the backends make themselves (interface defaults, staging, helpers, temporaries)
_BACKEND_NAME = re.compile(r"(gl_|xl_|in_|out_|u_|sub_).*|(texture|buffer)\d+|XlateBuffer\d+"
                           r"|XlateParameters|(program|state|result|vertex|fragment|primitive)_.*")


_NOT_IDENTIFIER = re.compile(r"[^A-Za-z0-9_]")
_UNDERSCORES = re.compile(r"__+")


def identifier(name: str) -> str:
    """A GLSL identifier spelling ``name`` (empty when nothing of it is usable)."""
    s = _UNDERSCORES.sub("_", _NOT_IDENTIFIER.sub("_", name)).strip("_")
    if s and s[0].isdigit():
        s = "v" + s
    return s


def usable(ident: str) -> bool:
    """False for a word GLSL reserves or a name a backend may make itself."""
    return not (ident in GLSL_WORDS or _TYPE_WORD.fullmatch(ident) or _BACKEND_NAME.fullmatch(ident))


@dataclass
class InterfaceNames:
    """The identifiers of one program's named inputs, outputs, uniforms and samplers.

    Keys: interface elements ``(path, index)``; parameter elements by their :class:`Binding`;
    texture units.  Each value carries the name as cgc wrote it (``source``) for the
    reflection."""

    inputs: dict[tuple[str, int | None], str] = field(default_factory=dict)
    outputs: dict[tuple[str, int | None], str] = field(default_factory=dict)
    #: parameter element -> (uniform name, element or None, array length or 0)
    uniforms: dict[Binding, tuple[str, int | None, int]] = field(default_factory=dict)
    textures: dict[int, str] = field(default_factory=dict)
    #: identifier -> the Cg name it spells (``IN_texture_size`` -> ``IN.texture_size``)
    source: dict[str, str] = field(default_factory=dict)

    @property
    def taken(self) -> set[str]:
        return set(self.source)

    def input(self, b: Binding) -> str | None:
        return self.inputs.get((b.path, b.index))

    def output(self, b: Binding) -> str | None:
        return self.outputs.get((b.path, b.index))

    def uniform(self, b: Binding) -> tuple[str, int | None, int] | None:
        return self.uniforms.get(b)

    def texture(self, unit: int) -> str | None:
        return self.textures.get(unit)


def interface_names(prog: Program) -> InterfaceNames:
    """The identifiers of ``prog``'s source names (empty for a program without any)."""
    out = InterfaceNames()
    if not prog.source_names:
        return out
    relative = _relatively_indexed(prog)
    # one winner per thing: referenced first, then header order
    winners: dict[tuple, object] = {}
    for entry in sorted(prog.source_names, key=lambda e: not e.referenced):
        key = (entry.kind, entry.unit if entry.kind == "texture" else
               (entry.binding.path, entry.binding.index) if entry.kind in ("input", "output")
               else entry.binding)
        if entry.kind == "param" and entry.binding in relative:
            continue
        winners.setdefault(key, entry)
    won = {id(w) for w in winners.values()}
    chosen = [e for e in prog.source_names if id(e) in won]
    # a uniform is one Cg name (a value over ``rows`` registers) or one Cg array of them
    groups: dict[str, list] = {}
    for e in chosen:
        base, element, thing = e.name, None, None
        m = _ELEMENT.fullmatch(e.name) if e.kind == "param" else None
        if m:
            base, element = m.group(1), int(m.group(2))
        if e.kind != "param":     # one interface variable or sampler per name and thing
            thing = e.unit if e.kind == "texture" else (e.binding.path, e.binding.index)
        groups.setdefault((e.kind, base, thing), []).append((element, e))
    used: set[str] = set()
    for (kind, base, _), members in groups.items():
        ident = _unique(identifier(base), used)
        if not ident:
            continue
        out.source[ident] = base
        if kind == "texture":
            for _, e in members:
                out.textures[e.unit] = ident
        elif kind in ("input", "output"):
            table = out.inputs if kind == "input" else out.outputs
            for _, e in members:
                table[(e.binding.path, e.binding.index)] = ident
        else:
            arrays = any(element is not None for element, _ in members)
            rows = max(e.rows for _, e in members)
            length = (max(element or 0 for element, _ in members) + 1) * rows if arrays else \
                (rows if rows > 1 else 0)
            for element, e in members:
                at = (element or 0) * rows + e.row if length else None
                out.uniforms[e.binding] = (ident, at, length)
    return out


_ELEMENT = re.compile(r"(.+)\[(\d+)\]")


def _unique(ident: str, used: set[str]) -> str:
    if not ident:
        return ""
    if ident.startswith("gl_"):
        ident = "cg_" + ident          # GLSL reserves the prefix (a suffix does not help)
    elif not usable(ident):
        ident += "_"
    name, n = ident, 2
    while name in used:
        name = f"{ident}{'' if ident.endswith('_') else '_'}{n}"
        n += 1
    used.add(name)
    return name


def _relatively_indexed(prog: Program) -> set[Binding]:
    """Parameter elements of registers the program indexes with an address register."""
    regs = prog.registers
    out: set[Binding] = set()
    for ins in prog.instructions:
        for src in ins.srcs:
            reg = regs.get(src.reg)
            if reg is not None and reg.kind == RegKind.PARAM and src.index is not None \
                    and src.index.relative:
                out.update(b for b in reg.bindings if b is not None)
    return out
