"""TGSI token streams, writing: the text model encoded in the seed or the modern layout
(the layouts: ``binary.py``'s docstring)."""
from __future__ import annotations

from typing import Mapping, Sequence

from .binary_tables import (OPCODE_TABLES, PROPERTIES, SEMANTICS, _CC_TABLES, _IDENTITY, _MEMQUALS,
                            _MEMTYPES, _MODERN_FILES, _MODERN_PROCESSORS, _MODULATES, _PRECISIONS,
                            _PROPERTY_ENUMS, _SATURATE, _SEED_FILES, _SEED_INTERP,
                            _SEED_PROCESSORS, _SEED_TEXTURES, _pack, _to_model_opcode, implicit_dim)
from .model import (CondCode, Declaration, Dst, IMM_TYPES, INTERPOLATIONS, Immediate, Indirect,
                    Instruction, LOCATIONS, Property, RETURN_TYPES, RegRef, Shader, Src,
                    TEXTURE_TARGETS)
from .opcodes import OPCODES

# ---------------------------------------------------------------------------------------------
# Writers
# ---------------------------------------------------------------------------------------------

def _check(cond: bool, msg: str) -> None:
    if not cond:
        raise ValueError(msg)


def _u(v: int, bits: int, what: str) -> int:
    _check(0 <= v < 1 << bits, f"{what} {v} does not fit in {bits} bits")
    return v


def _i16(v: int, what: str) -> int:
    _check(-0x8000 <= v <= 0x7FFF, f"{what} {v} does not fit in a signed 16-bit index")
    return v & 0xFFFF


def _reverse(table: Mapping[int, str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for num, name in sorted(table.items()):
        model = _to_model_opcode(name)
        if model in OPCODES:
            out.setdefault(model, num)
    return out


def _mask_bits(mask) -> int:
    return sum(1 << c for c in range(4) if mask[c])


class _SeedWriter:
    def __init__(self, opcodes: Mapping[int, str], cc_tests, declare_mask):
        self.ops = _reverse(opcodes)
        if any(n == "KIL(2007)" for n in opcodes.values()):
            self.ops.setdefault("KILL", 39)       # 2007-08: one KIL, decoded by operand count
            self.ops.setdefault("KILL_IF", 39)
        self.cc = {t: i for i, t in enumerate(cc_tests)}
        self.declare_mask = frozenset(declare_mask)

    def file(self, name: str) -> int:
        _check(name in _SEED_FILES, f"SEED has no register file {name}")
        return _SEED_FILES.index(name)

    def cc_test(self, test: str) -> int:
        _check(test in self.cc, f"condition-code test {test} is not in the chosen CC table")
        return self.cc[test]

    def decl(self, d: Declaration) -> list[int]:
        for attr, what in (("dim", "2-D declarations"), ("usage_mask", "usage masks"),
                           ("semantic", "semantics"), ("stream", "vertex streams"),
                           ("location", "interpolation locations"), ("target", "targets"),
                           ("return_types", "return types"), ("format", "formats"),
                           ("memory_type", "memory types")):
            val = getattr(d, attr)
            ok = val is None or (attr == "usage_mask" and all(val))
            _check(ok, f"SEED cannot express {what} (DCL {d.file}[{d.first}..{d.last}])")
        for attr in ("implicit_dim", "array_id", "local", "invariant", "writable", "raw",
                     "atomic"):
            _check(not getattr(d, attr), f"SEED cannot express {attr} on a declaration")
        _check(d.semantic_index == 0, "SEED cannot express semantics")
        _check(d.interpolate in (None,) + _SEED_INTERP,
               f"SEED cannot express interpolation {d.interpolate}")
        _check(0 <= d.first <= d.last <= 0xFFFF, f"bad declaration range {d.first}..{d.last}")
        use_mask = d.file in self.declare_mask and d.last < 32
        body = [sum(1 << i for i in range(d.first, d.last + 1)) if use_mask
                else d.first | d.last << 16]
        if d.interpolate is not None:
            body.append(_SEED_INTERP.index(d.interpolate))
        head = (0 | (1 + len(body)) << 4 | self.file(d.file) << 12 | int(use_mask) << 16
                | int(d.interpolate is not None) << 20)
        return [head] + body

    def imm(self, m: Immediate) -> list[int]:
        _check(m.type == "FLT32", f"SEED immediates are FLT32 only, not {m.type}")
        _check(1 <= len(m.words) <= 4, "a SEED immediate has 1..4 values")
        return [1 | (1 + len(m.words)) << 4] + [_u(v, 32, "immediate word") for v in m.words]

    @staticmethod
    def chain(tokens: list[int]) -> list[int]:
        """Set the Extended bit of every token but the last."""
        return [t | (1 << 31 if i + 1 < len(tokens) else 0) for i, t in enumerate(tokens)]

    def address(self, ind: Indirect) -> int:
        _check(ind.array_id == 0, "SEED cannot express array IDs")
        _u(ind.comp, 2, "address component")
        swz = (ind.comp, 1, 2, 3)
        return (self.file(ind.file) | sum(s << (4 + 2 * c) for c, s in enumerate(swz))
                | _i16(ind.index, "address offset") << 15)

    def reg_tail(self, reg: RegRef) -> tuple[int, Indirect | None, bool, list[int]]:
        """(index for the register token, its indirect, Dimension flag, trailing tokens)."""
        _check(reg.array_id == 0, "SEED cannot express array IDs")
        if reg.dim is None:
            _check(reg.dim_indirect is None, "indirect dimension without a dimension")
            tail = [self.address(reg.indirect)] if reg.indirect else []
            return reg.index, reg.indirect, False, tail
        # SEED 6.4.5: register token = first bracket (model dim), DIMENSION = second
        tail = [self.address(reg.dim_indirect)] if reg.dim_indirect else []
        tail.append(int(reg.indirect is not None) | _i16(reg.index, "register index") << 15)
        if reg.indirect:
            tail.append(self.address(reg.indirect))
        return reg.dim, reg.dim_indirect, True, tail

    def dst(self, d: Dst) -> list[int]:
        index, ind, dim, tail = self.reg_tail(d.reg)
        exts = []
        if d.cond is not None:
            c = d.cond
            exts.append(0 | self.cc_test(c.test) << 4
                        | sum(_u(s, 2, "CC swizzle") << (8 + 2 * i) for i, s in enumerate(c.swizzle))
                        | _u(c.index, 4, "CC register") << 16)
        if d.modulate != "1X":
            _check(d.modulate in _MODULATES, f"unknown modulate {d.modulate}")
            exts.append(1 | _MODULATES.index(d.modulate) << 4)
        head = (self.file(d.reg.file) | _mask_bits(d.mask) << 4 | int(ind is not None) << 8
                | int(dim) << 9 | _i16(index, "register index") << 10)
        return self.chain([head] + exts) + tail

    def src(self, s: Src) -> list[int]:
        index, ind, dim, tail = self.reg_tail(s.reg)
        for v in s.swizzle:
            _check(0 <= v <= 5, f"swizzle selector {v}")
        _check(0 <= s.ext_divide <= 5, f"ExtDivide selector {s.ext_divide}")
        exts = []
        plain = s.swizzle
        if max(s.swizzle) > 3 or any(s.comp_neg) or s.ext_divide != 5:
            plain = _IDENTITY
            exts.append(0 | sum(v << (4 + 4 * c) for c, v in enumerate(s.swizzle))
                        | sum(int(n) << (20 + c) for c, n in enumerate(s.comp_neg))
                        | s.ext_divide << 24)
        mods = (s.complement, s.bias, s.scale2x, s.abs, s.abs_neg)
        if any(mods):
            exts.append(1 | sum(int(m) << (4 + b) for b, m in enumerate(mods)))
        head = (self.file(s.reg.file) | sum(v << (4 + 2 * c) for c, v in enumerate(plain))
                | int(s.neg) << 12 | int(ind is not None) << 13 | int(dim) << 14
                | _i16(index, "register index") << 15)
        return self.chain([head] + exts) + tail

    def instr(self, i: Instruction) -> list[int]:
        _check(i.opcode in self.ops, f"opcode {i.opcode} has no number in the SEED opcode table")
        _check(not i.precise, "SEED cannot express precise")
        _check(not i.tex_offsets, "SEED cannot express texture offsets")
        _check(not i.memory, "SEED cannot express memory qualifiers")
        _check(i.saturate in _SATURATE, f"unknown saturate {i.saturate}")
        _check(len(i.dsts) <= 3 and len(i.srcs) <= 15, "too many operands")
        exts = []
        if i.precision is not None or i.cc_update is not None or i.cond is not None:
            _check(i.precision in _PRECISIONS, f"unknown precision {i.precision}")
            c = i.cond or CondCode()
            exts.append(0 | _PRECISIONS.index(i.precision) << 4
                        | _u(i.cc_update or 0, 4, "CC register") << 8
                        | _u(c.index, 4, "CC register") << 12 | self.cc_test(c.test) << 16
                        | sum(_u(v, 2, "CC swizzle") << (20 + 2 * k)
                              for k, v in enumerate(c.swizzle))
                        | int(i.cc_update is not None) << 28 | int(i.cond is not None) << 29)
        if i.label is not None:
            exts.append(1 | _u(i.label, 24, "label") << 4)
        if i.texture is not None:
            _check(i.texture in _SEED_TEXTURES, f"SEED has no texture target {i.texture}")
            exts.append(2 | _SEED_TEXTURES.index(i.texture) << 4)
        ops = [t for d in i.dsts for t in self.dst(d)] + [t for s in i.srcs for t in self.src(s)]
        size = 1 + len(exts) + len(ops)
        _check(size <= 0xFF, "instruction longer than 255 tokens")
        head = (2 | size << 4 | self.ops[i.opcode] << 12 | _SATURATE.index(i.saturate) << 20
                | len(i.dsts) << 22 | len(i.srcs) << 24)
        return self.chain([head] + exts) + ops


def encode_seed(shader: Shader, *, opcode_table: str | Mapping[int, str] = "2008-03",
                cc_table: str = "h2007", declare_mask=()) -> bytes:
    """Encode ``shader`` as a SEED (VERSION 1.1) token stream.

    Declarations, then immediates, then instructions.  ``declare_mask``: register files
    (e.g. ``{"TEMP"}``) whose declarations within registers 0..31 are written as
    DECLARE_MASK instead of DECLARE_RANGE.  Raises ``ValueError`` naming what SEED cannot
    express: properties, semantics, usage masks, 2-D declarations, array IDs, LOCAL /
    INVARIANT, files other than NULL..IMM, non-FLT32 immediates, precise, texture offsets,
    memory qualifiers, targets other than UNKNOWN..SHADOWRECT, processors other than
    VERT/FRAG/GEOM, opcodes without a number in the table, per-vertex implicit dimensions.
    """
    table = opcode_table if isinstance(opcode_table, Mapping) else OPCODE_TABLES[opcode_table]
    wr = _SeedWriter(table, _CC_TABLES[cc_table], declare_mask)
    _check(shader.processor in _SEED_PROCESSORS,
           f"SEED has no processor {shader.processor} (FRAG, VERT, GEOM only)")
    _check(not shader.properties, "SEED cannot express properties")
    body: list[int] = []
    for d in shader.declarations:
        body += wr.decl(d)
    for m in shader.immediates:
        body += wr.imm(m)
    for i in shader.instructions:
        body += wr.instr(i)
    _check(len(body) < 1 << 24, "body too long")
    head = [0x00000101, 2 | len(body) << 8, _SEED_PROCESSORS.index(shader.processor)]
    return _pack(head + body)


class _ModernWriter:
    def __init__(self, opcodes: Mapping[int, str], processors: Sequence[str], processor: str,
                 formats):
        self.ops = _reverse(opcodes)
        self.processors = processors
        self.processor = processor
        self.formats = {n: i for i, n in enumerate(formats or ()) if n}

    def file(self, name: str) -> int:
        _check(name in _MODERN_FILES, f"the modern layout has no register file {name}")
        return _MODERN_FILES.index(name)

    def format(self, name: str | None) -> int:
        if name is None:
            return 0
        if name in self.formats:
            return self.formats[name]
        tail = name[len("PIPE_FORMAT_"):] if name.startswith("PIPE_FORMAT_") else ""
        _check(tail.isdigit(), f"format {name} has no number (pass formats=)")
        return _u(int(tail), 10, "format")

    def target(self, name: str | None, what: str) -> int:
        _check(name in TEXTURE_TARGETS, f"{what} needs a texture target, got {name}")
        return TEXTURE_TARGETS.index(name)

    def decl(self, d: Declaration) -> list[int]:
        _check(d.implicit_dim == implicit_dim(self.processor, d.file, d.semantic),
               "implicit_dim is not stored in the binary: it must follow the processor/file/"
               f"semantic rule (DCL {d.file}[{d.first}..{d.last}])")
        _check(0 <= d.first <= d.last <= 0xFFFF, f"bad declaration range {d.first}..{d.last}")
        um = 0xF if d.usage_mask is None else _mask_bits(d.usage_mask)
        _check(d.memory_type in _MEMTYPES + ("GLOBAL",), f"unknown memory type {d.memory_type}")
        mt = _MEMTYPES.index(None if d.memory_type == "GLOBAL" else d.memory_type)
        body = [d.first | d.last << 16]
        if d.dim is not None:
            body.append(_u(d.dim, 16, "declaration dimension"))
        if d.interpolate is not None:
            _check(d.interpolate in INTERPOLATIONS, f"unknown interpolation {d.interpolate}")
            _check(d.location in (None,) + LOCATIONS, f"unknown location {d.location}")
            body.append(INTERPOLATIONS.index(d.interpolate)
                        | LOCATIONS.index(d.location or "CENTER") << 4)
        else:
            _check(d.location is None, "a location needs an interpolation mode")
        if d.semantic is not None:
            _check(d.semantic in SEMANTICS, f"unknown semantic {d.semantic}")
            st = d.stream or (0, 0, 0, 0)
            body.append(SEMANTICS.index(d.semantic) | _u(d.semantic_index, 16, "semantic index") << 8
                        | sum(_u(s, 2, "stream") << (24 + 2 * c) for c, s in enumerate(st)))
        else:
            _check(d.stream is None and d.semantic_index == 0, "stream/index without a semantic")
        if d.file == "IMAGE":
            body.append(self.target(d.target, "DCL IMAGE") | int(d.raw) << 8
                        | int(d.writable) << 9 | self.format(d.format) << 10)
        else:
            _check(not (d.raw or d.writable or d.format), "RAW/WR/format only on IMAGE")
        if d.file == "SVIEW":
            _check(d.return_types is not None and all(t in RETURN_TYPES for t in d.return_types),
                   "DCL SVIEW needs four return types")
            body.append(self.target(d.target, "DCL SVIEW")
                        | sum(RETURN_TYPES.index(t) << (8 + 6 * c)
                              for c, t in enumerate(d.return_types)))
        else:
            _check(d.return_types is None, "return types only on SVIEW")
            _check(d.file == "IMAGE" or d.target is None, "a target only on IMAGE/SVIEW")
        if d.array_id:
            body.append(_u(d.array_id, 10, "array ID"))
        head = (0 | (1 + len(body)) << 4 | self.file(d.file) << 12 | um << 16
                | int(d.dim is not None) << 20 | int(d.semantic is not None) << 21
                | int(d.interpolate is not None) << 22 | int(d.invariant) << 23
                | int(d.local) << 24 | int(bool(d.array_id)) << 25 | int(d.atomic) << 26
                | mt << 27)
        return [head] + body

    def imm(self, m: Immediate) -> list[int]:
        _check(m.type in IMM_TYPES, f"unknown immediate type {m.type}")
        n = len(m.words)
        _check(1 <= n <= 4 and (IMM_TYPES.index(m.type) < 3 or n % 2 == 0),
               f"{m.type} immediate with {n} words")
        return [1 | (1 + n) << 4 | IMM_TYPES.index(m.type) << 18] + [
            _u(v, 32, "immediate word") for v in m.words]

    def prop(self, p: Property) -> list[int]:
        _check(p.name in PROPERTIES, f"unknown property {p.name}")
        names = self.processors if p.name == "NEXT_SHADER" else _PROPERTY_ENUMS.get(p.name)
        if names is not None:
            _check(p.value in names, f"{p.name} value {p.value} is not defined")
            value = list(names).index(p.value)
        else:
            try:
                value = int(p.value, 0) if not p.value.isdigit() else int(p.value)
            except ValueError:
                raise ValueError(f"{p.name} value {p.value!r} is not a number") from None
        return [3 | 2 << 4 | PROPERTIES.index(p.name) << 12, _u(value, 32, "property value")]

    def ind(self, ind: Indirect, array_id: int = 0) -> int:
        if ind.array_id and array_id:
            _check(ind.array_id == array_id, "two different array IDs on one bracket")
        aid = ind.array_id or array_id
        return (self.file(ind.file) | _i16(ind.index, "indirect offset") << 4
                | _u(ind.comp, 2, "indirect component") << 20 | _u(aid, 10, "array ID") << 22)

    def reg_tail(self, reg: RegRef) -> list[int]:
        _check(reg.array_id == 0 or reg.indirect is not None,
               "an array ID needs an indirect index")
        tail = [self.ind(reg.indirect, reg.array_id)] if reg.indirect else []
        if reg.dim is not None:
            tail.append(int(reg.dim_indirect is not None) | _i16(reg.dim, "dimension") << 16)
            if reg.dim_indirect:
                tail.append(self.ind(reg.dim_indirect))
        else:
            _check(reg.dim_indirect is None, "indirect dimension without a dimension")
        return tail

    def dst(self, d: Dst) -> list[int]:
        _check(d.cond is None, "the modern layout has no NV condition codes (dst CC mask)")
        _check(d.modulate == "1X", f"the modern layout has no destination modulate {d.modulate}")
        r = d.reg
        return [self.file(r.file) | _mask_bits(d.mask) << 4 | int(r.indirect is not None) << 8
                | int(r.dim is not None) << 9 | _i16(r.index, "register index") << 10
                ] + self.reg_tail(r)

    def src(self, s: Src) -> list[int]:
        _check(max(s.swizzle) <= 3 and min(s.swizzle) >= 0,
               "the modern layout has no 0/1 swizzle selectors (SEED SWZ)")
        _check(not any(s.comp_neg), "the modern layout has no per-component negate")
        _check(s.ext_divide == 5, "the modern layout has no ExtDivide")
        _check(not (s.complement or s.bias or s.scale2x),
               "the modern layout has no complement/bias/scale2x source modifiers")
        _check(not (s.abs and s.neg), "the modern layout has no negate before |x|")
        _check(s.abs or not s.abs_neg,
               "the modern layout has no post-modifier negate without |x| (use neg)")
        r = s.reg
        return [self.file(r.file) | int(r.indirect is not None) << 4 | int(r.dim is not None) << 5
                | _i16(r.index, "register index") << 6
                | sum(v << (22 + 2 * c) for c, v in enumerate(s.swizzle))
                | int(s.abs) << 30 | int(s.neg or s.abs_neg) << 31] + self.reg_tail(r)

    def offset(self, s: Src) -> int:
        r = s.reg
        _check(r.indirect is None and r.dim is None and r.array_id == 0,
               "texture offsets are plain registers")
        _check(not (s.neg or s.abs or s.abs_neg or any(s.comp_neg) or s.complement or s.bias
                    or s.scale2x or s.ext_divide != 5), "texture offsets take no modifiers")
        _check(max(s.swizzle[:3]) <= 3, "texture offset swizzle")
        return (_i16(r.index, "offset index") | self.file(r.file) << 16
                | sum(v << (20 + 2 * c) for c, v in enumerate(s.swizzle[:3])))

    def memory(self, items: Sequence[str]) -> int:
        qual = tex = fmt = 0
        seen_tex = seen_fmt = False
        for it in items:
            if it in _MEMQUALS:
                qual |= 1 << _MEMQUALS.index(it)
            elif it in TEXTURE_TARGETS:
                _check(not seen_tex, "two memory targets")
                tex, seen_tex = TEXTURE_TARGETS.index(it), True
            else:
                _check(not seen_fmt, "two memory formats")
                fmt, seen_fmt = self.format(it), True
        return qual | tex << 4 | fmt << 12

    def instr(self, i: Instruction) -> list[int]:
        _check(i.opcode in self.ops, f"opcode {i.opcode} has no number in the modern table")
        _check(i.saturate in ("", "SAT"),
               f"the modern layout has no saturate mode {i.saturate} ([-1,1] is SEED only)")
        _check(i.precision is None, "the modern layout has no precision (EXT_NV)")
        _check(i.cc_update is None and i.cond is None,
               "the modern layout has no NV condition codes (EXT_NV)")
        _check(len(i.dsts) <= 3 and len(i.srcs) <= 15, "too many operands")
        _check(i.texture is not None or not i.tex_offsets, "texture offsets need a target")
        follow = []
        if i.label is not None:
            follow.append(_u(i.label, 24, "label"))
        if i.texture is not None:
            _check(len(i.tex_offsets) <= 15, "too many texture offsets")
            follow.append(self.target(i.texture, "instruction") | len(i.tex_offsets) << 8)
            follow += [self.offset(o) for o in i.tex_offsets]
        if i.memory:
            follow.append(self.memory(i.memory))
        ops = [t for d in i.dsts for t in self.dst(d)] + [t for s in i.srcs for t in self.src(s)]
        size = 1 + len(follow) + len(ops)
        _check(size <= 0xFF, "instruction longer than 255 tokens")
        head = (2 | size << 4 | self.ops[i.opcode] << 12 | int(i.saturate == "SAT") << 20
                | len(i.dsts) << 21 | len(i.srcs) << 23 | int(i.label is not None) << 27
                | int(i.texture is not None) << 28 | int(bool(i.memory)) << 29
                | int(i.precise) << 30)
        return [head] + follow + ops


def encode_modern(shader: Shader, *, opcode_table: str | Mapping[int, str] = "modern",
                  processor_enum: str = "mesa2023",
                  formats: Sequence[str | None] | None = None) -> bytes:
    """Encode ``shader`` in Mesa's ``p_shader_tokens.h`` layout.

    Properties, then declarations, immediates, instructions.  Raises ``ValueError`` naming
    what the modern layout cannot express: NV condition codes and precision (EXT_NV, dst
    CONDCODE), destination modulate, [-1,1] saturate, the SEED source modifiers (0/1 swizzle
    selectors, per-component negate, ExtDivide, complement, bias, scale2x, a negate before
    ``|x|``), opcodes without a modern number (the legacy ones), and declarations whose
    ``implicit_dim`` disagrees with the dumper's rule (it is not stored in the tokens).
    """
    table = opcode_table if isinstance(opcode_table, Mapping) else OPCODE_TABLES[opcode_table]
    procs = _MODERN_PROCESSORS[processor_enum]
    _check(shader.processor in procs, f"no processor {shader.processor} in {processor_enum}")
    wr = _ModernWriter(table, procs, shader.processor, formats)
    body: list[int] = []
    for p in shader.properties:
        body += wr.prop(p)
    for d in shader.declarations:
        body += wr.decl(d)
    for m in shader.immediates:
        body += wr.imm(m)
    for i in shader.instructions:
        body += wr.instr(i)
    _check(len(body) < 1 << 24, "body too long")
    return _pack([2 | len(body) << 8, list(procs).index(shader.processor)] + body)
