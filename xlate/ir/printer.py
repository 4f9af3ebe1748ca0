"""A readable text form of the IR (``xlate convert --target ir``).

Instructions print close to NV4 assembly, so a reader can compare with the source; registers
print with their kind, type, size and bindings; literal constants print inline.
"""
from __future__ import annotations

import math
import struct

from .model import (COMPONENTS, CondTest, DataType, Dest, Index, Instruction, Program, Register,
                    RegKind, Sat, Source)

_SEL = "xyzw01"


def words_text(words, dtype: DataType) -> str:
    if len(set(words)) == 1 and len(words) == 4:      # a replicated scalar prints as one value
        return words_text(words[:1], dtype)[1:-1]
    if dtype == DataType.FLOAT:
        vals = []
        for w in words:
            f = struct.unpack("<f", struct.pack("<I", w))[0]
            vals.append(repr(f) if math.isfinite(f) and f == f else f"0x{w:08x}")
        return "{" + ", ".join(vals) + "}"
    if dtype == DataType.INT:
        return "{" + ", ".join(str(w - (1 << 32) if w & 0x80000000 else w) for w in words) + "}"
    return "{" + ", ".join(f"0x{w:x}" if w > 0xFFFF else str(w) for w in words) + "}"


def index_text(idx: Index | None) -> str:
    if idx is None:
        return ""
    if not idx.relative:
        return f"[{idx.offset}]"
    off = f" + {idx.offset}" if idx.offset else ""
    return f"[{idx.reg}.{COMPONENTS[idx.comp]}{off}]"


def swizzle_text(swz) -> str:
    if tuple(swz) == (0, 1, 2, 3):
        return ""
    if len(set(swz)) == 1:
        return "." + _SEL[swz[0]]
    return "." + "".join(_SEL[c] for c in swz)


def cond_text(c: CondTest) -> str:
    reg = f"{c.cc}" if c.cc else ""
    return f"{c.rule}{reg}{swizzle_text(c.swizzle)}"


def source_text(src: Source, prog: Program) -> str:
    reg = prog.registers.get(src.reg)
    if reg is not None and reg.kind == RegKind.CONST:
        body = words_text(reg.value[0], reg.dtype)
    else:
        body = src.reg
    if src.vertex is not None:
        body += index_text(src.vertex)
    body += index_text(src.index)
    if any(src.comp_neg) or any(s > 3 for s in src.swizzle):
        body += ", " + ", ".join(("-" if n else "") + _SEL[s] for s, n in zip(src.swizzle, src.comp_neg))
    else:
        body += swizzle_text(src.swizzle)
    if src.abs:
        body = f"|{body}|"
    return ("-" if src.neg else "") + body


def dest_text(dst: Dest) -> str:
    out = dst.reg + index_text(dst.index)
    if not all(dst.mask):
        out += "." + "".join(c for c, m in zip(COMPONENTS, dst.mask) if m)
    if dst.cond is not None:
        out += f" ({cond_text(dst.cond)})"
    return out


def instruction_text(ins: Instruction, prog: Program) -> str:
    mods = []
    if ins.op not in ("IF", "ELSE", "ENDIF", "ENDREP", "BRK", "CONT", "CAL", "RET", "EMIT", "ENDPRIM"):
        mods.append(ins.dtype.value)
    if ins.mul_mode:
        mods.append(ins.mul_mode)
    if ins.precision:
        mods.append(ins.precision)
    if ins.cc_update is not None:
        mods.append(f"CC{ins.cc_update}")
    if ins.sat != Sat.NONE:
        mods.append(ins.sat.value)
    head = ins.op + "".join("." + m for m in mods)
    ops = []
    if ins.label:
        ops.append(ins.label)
    if ins.dst is not None:
        ops.append(dest_text(ins.dst))
    if ins.mem is not None and ins.mem.resource:
        m = ins.mem
        ops.append(m.resource + ("" if all(m.mask) else "." + "".join(
            c for c, on in zip("xyzw", m.mask) if on)))
    ops.extend(source_text(s, prog) for s in ins.srcs)
    if ins.mem is not None and ins.op == "MEMBAR":
        ops.append(f"{ins.mem.flags:#x}")
    if ins.tex is not None:
        ops.append(f"texture[{ins.tex.unit}]")
        ops.append(ins.tex.target)
        if any(ins.tex.offset):
            ops.append("(" + ", ".join(str(o) for o in ins.tex.offset) + ")")
        if ins.op == "TXG" and not ins.tex.target.startswith("SHADOW"):
            ops.append("xyzw"[ins.tex.component])
    text = head + (" " + ", ".join(ops) if ops else "")
    if ins.cond is not None:
        text += f" ({cond_text(ins.cond)})"
    if ins.cc_kind is not None and ins.cc_kind.value not in ("float", "int"):
        text += f"   ; flags: {ins.cc_kind.value}"
    return text


def register_text(reg: Register) -> str:
    size = f"[{reg.size}]" if reg.size is not None else ""
    parts = [f"{reg.kind.value:6} {reg.name}{size}"]
    if reg.dtype != DataType.NONE:
        parts.append(reg.dtype.name.lower())
    for attr in ("precision", "interpolation"):
        if getattr(reg, attr):
            parts.append(getattr(reg, attr).lower())
    if reg.per_vertex:
        parts.append("per-vertex")
    if reg.kind == RegKind.BUFFER:
        parts.append("vec4 elements" if reg.buffer_vec4 else "word elements")
    if reg.bindings:
        texts = [b.text() if b is not None else words_text(reg.value[i], reg.dtype if reg.dtype != DataType.NONE else DataType.FLOAT)
                 for i, b in enumerate(reg.bindings)]
        parts.append("= " + (texts[0] if len(texts) == 1 else "{ " + ", ".join(texts) + " }"))
    elif reg.value is not None and reg.kind != RegKind.CONST:
        parts.append("= " + words_text(reg.value[0], DataType.FLOAT))
    return " ".join(parts)


def print_program(prog: Program) -> str:
    lines = [f"; xlate IR: {prog.dialect} ({prog.stage.value} program), source {prog.source_name}"]
    if prog.options:
        lines.append("; options: " + ", ".join(prog.options))
    if prog.geometry:
        g = prog.geometry
        lines.append(f"; geometry: {g.input_primitive} -> {g.output_primitive}, at most {g.vertices_out} vertices")
    if prog.local_size:
        lines.append("; workgroup: " + " x ".join(str(n) for n in prog.local_size))
    for r in prog.resources.values():
        lines.append(f"; {r.kind} {r.name}: binding {r.binding}"
                     + (f", {r.size} bytes" if r.size is not None else "")
                     + (f", {r.target}, {r.format or 'no format'}" if r.kind == "image" else ""))
    lines.append(f"; entry: {prog.entry}")
    for reg in prog.registers.values():
        if reg.kind != RegKind.CONST:
            lines.append(register_text(reg))
    lines.append("")
    labels_at: dict[int, list[str]] = {}
    for name, at in prog.labels.items():
        labels_at.setdefault(at, []).append(name)
    depth = 0
    for i, ins in enumerate(prog.instructions):
        for name in labels_at.get(i, []):
            lines.append(f"{name}:")
        if ins.op in ("ELSE", "ENDIF", "ENDREP"):
            depth = max(0, depth - 1)
        lines.append(f"{i:4}  " + "  " * depth + instruction_text(ins, prog))
        if ins.op in ("IF", "ELSE", "REP"):
            depth += 1
    for name in labels_at.get(len(prog.instructions), []):
        lines.append(f"{name}:")
    return "\n".join(lines) + "\n"
