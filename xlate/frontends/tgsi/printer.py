"""Print a :class:`~.model.Shader` as TGSI text in ``tgsi_dump`` style (tgsi.md 1.8).

``print_shader(shader, hex_floats=False) -> str``.  The output is what Mesa's dumper prints:
the processor line, ``PROPERTY`` lines, ``DCL`` lines, ``IMM[n] TYPE {...}`` lines, then the
instructions numbered ``%3u: `` and indented two spaces per open IF/UIF/ELSE/BGNLOOP/BGNSUB/
SWITCH level, swizzles and write masks only where they are not the identity, ``:N`` labels
where the instruction has one.  (The model keeps properties, declarations and immediates in
separate lists, so they come out in that order, like every dump in the corpus.)

Exact round trip: ``parse_text(print_shader(s)) == s`` for every text-expressible shader.
What makes that hold for numbers: a FLT32 immediate is printed ``%10.4f`` (the dumper's
format) only when that text parses back to exactly the same 32 bits, otherwise as
``0x%08x``, which the parser reads as raw bits (virgl's rule, tgsi.md 1.6); so ``0.5`` prints
``    0.5000`` and ``-0.0`` ``   -0.0000``, while ``1/3``, denormals and NaNs other than the
default one print as ``0x3eaaaaab`` etc.  Without that check the default dump is lossy.  FLT64 likewise:
``%10.8f`` when exact, else a C99 hex float (``0x1.5555555555555p-2``, what ``strtod``
reads), NaNs as ``0x`` + sixteen hex digits of raw bits.  ``hex_floats=True`` prints every
float as raw bits (``0x%08x`` / ``0x%016x``), as virgl's guest driver does.

Normalised like the parser: ``STREAM(0, 0, 0, 0)`` is not printed; SAMPLE..GATHER4 print no
target (``texture`` must be ``None`` or ``"UNKNOWN"``); ``Declaration.implicit_dim`` must match
:func:`.text.implicit_dim` for the shader's processor (else ``ValueError``).

Fields the text format cannot express raise ``ValueError`` naming the field: ``Src.complement``,
``Src.bias``, ``Src.scale2x``, ``Src.comp_neg``, ``Src.ext_divide`` other than 5, swizzle
selectors 4/5 (constant 0/1), ``Src.neg`` together with ``Src.abs`` (the text ``-|X|`` is
``abs_neg``), ``Src.abs_neg`` without ``Src.abs``, ``Dst.cond``, ``Dst.modulate`` other than
``"1X"``, ``Instruction.precision``/``cc_update``/``cond``, saturate ``"SSAT"``, texel offsets
with modifiers, indirection, a dimension or a 4th swizzle selector other than w.
"""
from __future__ import annotations

import struct

from . import opcodes as _ops
from .model import Declaration, Dst, Immediate, Instruction, RegRef, Shader, Src
from .text import SAMPLE_OPCODES, implicit_dim, parse_float32, parse_float64

__all__ = ["print_shader", "format_float32", "format_float64", "TextInexpressible"]

_XYZW = "xyzw"
_IDENTITY = (0, 1, 2, 3)
_FULL = (True, True, True, True)
_PER_INDEX_SEMANTICS = ("GENERIC", "TEXCOORD")   # index printed even when 0


def format_float32(bits: int, hex_floats: bool = False) -> str:
    """``%10.4f`` when it reads back to the same bits, else ``0x%08x``."""
    if not hex_floats:
        value = struct.unpack("<f", struct.pack("<I", bits))[0]
        text = "%10.4f" % value
        if parse_float32(text.strip()) == bits:
            return text
    return "0x%08x" % bits


def format_float64(bits: int, hex_floats: bool = False) -> str:
    if not hex_floats:
        value = struct.unpack("<d", struct.pack("<Q", bits))[0]
        if value == value:
            text = "%10.8f" % value
            if parse_float64(text.strip()) == bits:
                return text
            text = value.hex() if value not in (float("inf"), float("-inf")) else \
                ("inf" if value > 0 else "-inf")
            if parse_float64(text) == bits:
                return text
    return "0x%016x" % bits


class TextInexpressible(ValueError):
    """A field of the model that tgsi_dump text has no spelling for.  The message names the
    field and, for an instruction, its number and opcode (never a dump of the model)."""


def _reject(what: str, obj) -> None:
    raise TextInexpressible(f"TGSI text cannot express {what}")


def _indirect(ind, offset: int) -> str:
    text = f"{ind.file}[{ind.index}].{_XYZW[ind.comp]}"
    if offset > 0:
        text += f"+{offset}"
    elif offset < 0:
        text += str(offset)
    return text


def _reg(reg: RegRef) -> str:
    out = [reg.file]
    if reg.dim_indirect is not None:
        out.append(f"[{_indirect(reg.dim_indirect, reg.dim or 0)}]")
        if reg.dim_indirect.array_id:
            out.append(f"({reg.dim_indirect.array_id})")
    elif reg.dim is not None:
        out.append(f"[{reg.dim}]")
    if reg.indirect is not None:
        if reg.indirect.array_id:
            _reject("Indirect.array_id of the main index (the text's '(n)' is "
                    "RegRef.array_id)", reg)
        out.append(f"[{_indirect(reg.indirect, reg.index)}]")
    else:
        if reg.index < 0:
            _reject("a negative direct RegRef.index", reg)
        out.append(f"[{reg.index}]")
    if reg.array_id:
        out.append(f"({reg.array_id})")
    return "".join(out)


def _mask(mask) -> str:
    if tuple(mask) == _FULL:
        return ""
    if not any(mask):
        raise ValueError("TGSI text cannot express an empty write mask")
    return "." + "".join(c for c, on in zip(_XYZW, mask) if on)


def _dst(dst: Dst) -> str:
    if dst.cond is not None:
        _reject("Dst.cond (NV condition code)", dst)
    if dst.modulate != "1X":
        _reject(f"Dst.modulate {dst.modulate!r}", dst)
    return _reg(dst.reg) + _mask(dst.mask)


def _src(src: Src) -> str:
    if src.complement:
        _reject("Src.complement", src)
    if src.bias:
        _reject("Src.bias", src)
    if src.scale2x:
        _reject("Src.scale2x", src)
    if any(src.comp_neg):
        _reject("Src.comp_neg", src)
    if src.ext_divide != 5:
        _reject(f"Src.ext_divide {src.ext_divide}", src)
    if any(not 0 <= c <= 3 for c in src.swizzle):
        _reject("swizzle selectors 4/5 (constant 0.0/1.0) in Src.swizzle", src)
    if src.neg and src.abs:
        _reject("Src.neg together with Src.abs (the text '-|X|' is Src.abs_neg)", src)
    if src.abs_neg and not src.abs:
        _reject("Src.abs_neg without Src.abs", src)
    text = _reg(src.reg)
    if tuple(src.swizzle) != _IDENTITY:
        text += "." + "".join(_XYZW[c] for c in src.swizzle)
    if src.abs:
        text = f"|{text}|"
        if src.abs_neg:
            text = "-" + text
    elif src.neg:
        text = "-" + text
    return text


def _offset(src: Src) -> str:
    reg = src.reg
    if (src.neg or src.abs or src.abs_neg or src.complement or src.bias or src.scale2x
            or any(src.comp_neg) or src.ext_divide != 5):
        _reject("modifiers on a texel offset (Instruction.tex_offsets)", src)
    if reg.indirect is not None or reg.dim is not None or reg.dim_indirect is not None \
            or reg.array_id:
        _reject("an indirect, 2-D or array texel offset (Instruction.tex_offsets)", src)
    if any(not 0 <= c <= 3 for c in src.swizzle[:3]) or src.swizzle[3] != 3:
        _reject("texel offset swizzle other than three of xyzw and w "
                "(Instruction.tex_offsets)", src)
    return f"{reg.file}[{reg.index}]." + "".join(_XYZW[c] for c in src.swizzle[:3])


def _declaration(d: Declaration, processor: str) -> str:
    out = ["DCL ", d.file]
    if d.implicit_dim != implicit_dim(processor, d.file, d.semantic):
        _reject(f"Declaration.implicit_dim={d.implicit_dim} in a {processor} program (it "
                "follows from the processor, file and semantic: tgsi.md 1.5)", d)
    if d.implicit_dim:
        if d.dim is not None:
            _reject("Declaration.implicit_dim together with Declaration.dim", d)
        out.append("[]")
    elif d.dim is not None:
        out.append(f"[{d.dim}]")
    out.append(f"[{d.first}]" if d.first == d.last else f"[{d.first}..{d.last}]")
    if d.usage_mask is not None:
        out.append(_mask(d.usage_mask))
    if d.array_id:
        out.append(f", ARRAY({d.array_id})")
    if d.local:
        out.append(", LOCAL")
    if d.semantic is not None:
        out.append(", " + d.semantic)
        if d.semantic_index or d.semantic in _PER_INDEX_SEMANTICS:
            out.append(f"[{d.semantic_index}]")
    elif d.semantic_index:
        _reject("Declaration.semantic_index without a semantic", d)
    if d.stream is not None and any(d.stream):
        out.append(", STREAM({}, {}, {}, {})".format(*d.stream))
    if d.target is not None:
        out.append(", " + d.target)
        if d.format is not None:
            out.append(", " + d.format)
        if d.writable:
            out.append(", WR")
        if d.raw:
            out.append(", RAW")
        if d.return_types is not None:
            types = tuple(d.return_types)
            out.append(", " + (types[0] if len(set(types)) == 1 else ", ".join(types)))
    elif d.format is not None or d.writable or d.raw or d.return_types is not None:
        _reject("an image/sampler-view attribute without Declaration.target", d)
    if d.atomic:
        out.append(", ATOMIC")
    if d.memory_type is not None and d.memory_type != "GLOBAL":
        out.append(", " + d.memory_type)
    if d.interpolate is not None:
        out.append(", " + d.interpolate)
    if d.location is not None and d.location != "CENTER":
        out.append(", " + d.location)
    if d.invariant:
        out.append(", INVARIANT")
    return "".join(out)


def _immediate(n: int, imm: Immediate, hex_floats: bool) -> str:
    w = imm.words
    typ = imm.type
    if len(w) != 4:
        _reject(f"an immediate with {len(w)} words (Immediate.words must hold 4)", imm)
    if typ == "FLT32":
        vals = [format_float32(x, hex_floats) for x in w]
    elif typ == "UINT32":
        vals = [str(x) for x in w]
    elif typ == "INT32":
        vals = [str(x - (1 << 32) if x >> 31 else x) for x in w]
    else:
        pairs = [w[0] | w[1] << 32, w[2] | w[3] << 32]
        if typ == "FLT64":
            vals = [format_float64(x, hex_floats) for x in pairs]
        elif typ == "UINT64":
            vals = [str(x) for x in pairs]
        elif typ == "INT64":
            vals = [str(x - (1 << 64) if x >> 63 else x) for x in pairs]
        else:
            raise ValueError(f"unknown immediate type {typ!r}")
    return f"IMM[{n}] {typ} {{{', '.join(vals)}}}"


def _instruction(inst: Instruction) -> str:
    if inst.precision is not None:
        _reject(f"Instruction.precision ({inst.precision})", inst)
    if inst.cc_update is not None:
        _reject("Instruction.cc_update (an NV condition-code update)", inst)
    if inst.cond is not None:
        _reject("Instruction.cond (an NV condition-code test)", inst)
    if inst.saturate not in ("", "SAT"):
        _reject(f"Instruction.saturate {inst.saturate!r}", inst)
    text = inst.opcode
    if inst.saturate:
        text += "_SAT"
    if inst.precise:
        text += "_PRECISE"
    ops = [_dst(d) for d in inst.dsts] + [_src(s) for s in inst.srcs]
    if inst.opcode in SAMPLE_OPCODES:
        if inst.texture not in (None, "UNKNOWN"):
            _reject(f"Instruction.texture {inst.texture!r} on {inst.opcode} (SAMPLE_* carry "
                    "no target in text; the parser gives UNKNOWN)", inst)
    elif inst.texture is not None:
        ops.append(inst.texture)
    ops += [_offset(o) for o in inst.tex_offsets]
    ops += list(inst.memory)
    if ops:
        text += " " + ", ".join(ops)
    if inst.label is not None:
        text += f" :{inst.label}"
    return text


def print_shader(shader: Shader, *, hex_floats: bool = False) -> str:
    """The program as ``tgsi_dump`` prints it (one statement per line, trailing newline)."""
    lines = [shader.processor]
    for prop in shader.properties:
        lines.append(f"PROPERTY {prop.name} {prop.value}")
    for k, decl in enumerate(shader.declarations):
        try:
            lines.append(_declaration(decl, shader.processor))
        except TextInexpressible as e:
            raise TextInexpressible(f"{e} of declaration {k} (DCL {decl.file})") from None
    for n, imm in enumerate(shader.immediates):
        lines.append(_immediate(n, imm, hex_floats))
    level = 0
    for n, inst in enumerate(shader.instructions):
        if inst.opcode in _ops.INDENT_CLOSE and level:
            level -= 1
        try:
            text = _instruction(inst)
        except TextInexpressible as e:
            raise TextInexpressible(f"{e} of instruction {n} ({inst.opcode})") from None
        lines.append("%3u: %s%s" % (n, "  " * level, text))
        if inst.opcode in _ops.INDENT_OPEN:
            level += 1
    return "\n".join(lines) + "\n"
