"""Static facts about a program that input generation and comparison need.

Everything here is a *flow-insensitive, per-component* data-flow over the linear IR: every
instruction is assumed to run (any number of times, in any order), and a register component
collects the union of what ever flowed into it.  That over-approximates -- the safe direction
for every use below:

* :attr:`Facts.read_types`: with which data types each (input/parameter register, component)
  is read directly (float, signed, unsigned), so integer operands get integer bit patterns;
* :attr:`Facts.element_read_types`: the same per (register, element, component) for the
  elements read at a constant index (a register read at a relative index is in
  :attr:`Facts.relative_reads`: any of its elements may be read with any of its types);
* :attr:`Facts.deps`: per (register, component) the set of tokens it may depend on:
  ``("in", reg, comp)`` for program inputs/parameters, ``("op", OPCODE)`` for opcodes that are
  not exactly reproducible (see :data:`compare.INEXACT`), ``("undef",)`` for the components the
  specs leave undefined (XPD/NRM/RFL .w, SCS .zw, TXQ beyond the texture's dimensions);
* :attr:`Facts.loop_inputs`: input components a ``REP`` count may depend on (the generator keeps
  those small so loops terminate quickly on both sides);
* :attr:`Facts.coord_inputs`: input components texture coordinates, LODs or gradients may
  depend on (kept within a few texture repeats: far-away coordinates and NaN coordinates
  are sampled with implementation-defined precision);
* :attr:`Facts.writer_types`: per (output register, component) the result data types of the
  instructions that write it (an output written only by integer instructions is compared as
  raw bits, otherwise as float);
* :attr:`Facts.constants`: the float values of literal constants, used as comparison edges.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass, field

from ..ir.model import DataType, Instruction, Program, RegKind
from ..ir.ops import COMPONENTS_READ, COMPONENTWISE, OPCODES
from ..ir.ops import UNDEFINED_COMPONENTS as OPS_UNDEFINED
from ..passes.types import operand_type, result_type

#: dot products: components of each operand read
DOT_READS = COMPONENTS_READ          # the opcode table's (xlate/ir/ops.py)
#: result components the specs leave undefined
UNDEFINED_COMPONENTS = OPS_UNDEFINED
#: opcodes whose results are the implementation's and change from run to run (TGSI CLOCK, the
#: shader time): the verifier's replay cannot adopt them from a probe run, so nothing that
#: depends on them -- through data, or through a branch, loop or kill condition -- is compared
#: (token ``("varies", op)``; :meth:`Facts.varies`)
RUN_VARYING = frozenset({"CLOCK"})
#: texture opcodes (their results depend on the texture contents too)
TEX_OPS = frozenset(name for name, info in OPCODES.items() if info.category == "tex")

READ_KINDS = (RegKind.INPUT, RegKind.PARAM, RegKind.BUFFER)


def f32(bits: int) -> float:
    return struct.unpack("<f", struct.pack("<I", bits & 0xFFFFFFFF))[0]


@dataclass
class Facts:
    read_types: dict[tuple[str, int], set[DataType]] = field(default_factory=dict)
    element_read_types: dict[tuple[str, int, int], set[DataType]] = field(default_factory=dict)
    relative_reads: set[str] = field(default_factory=set)
    deps: dict[tuple[str, int], set] = field(default_factory=dict)
    loop_inputs: set[tuple[str, int]] = field(default_factory=set)
    index_inputs: set[tuple[str, int]] = field(default_factory=set)
    coord_inputs: set[tuple[str, int]] = field(default_factory=set)
    writer_types: dict[tuple[str, int], set[DataType]] = field(default_factory=dict)
    constants: list[float] = field(default_factory=list)
    int_constants: list[int] = field(default_factory=list)
    uses_textures: bool = False
    uses_derivatives: bool = False
    ops: set[str] = field(default_factory=set)
    #: RUN_VARYING opcodes a flow or kill condition depends on: every output depends on them
    control_varies: set[str] = field(default_factory=set)

    def varies(self, reg: str, comp: int) -> set[str]:
        """The RUN_VARYING opcodes the component depends on (through data or control)."""
        return {t[1] for t in self.output_deps(reg, comp) if t[0] == "varies"} \
            | self.control_varies

    def output_deps(self, reg: str, comp: int) -> set:
        return self.deps.get((reg, comp), set())

    def inexact_ops(self, reg: str, comp: int) -> set[str]:
        return {t[1] for t in self.output_deps(reg, comp) if t[0] == "op"}

    def undefined(self, reg: str, comp: int) -> bool:
        return ("undef",) in self.output_deps(reg, comp)


def source_reads(ins: Instruction, i: int) -> list[set[int]]:
    """For operand ``i``: per result component, the *register* components it reads."""
    src = ins.srcs[i]
    info = OPCODES[ins.op]
    kinds = info.inputs
    kind = kinds[i] if i < len(kinds) else "v"
    sw = src.swizzle

    def comps(positions):
        return {sw[p] for p in positions if sw[p] < 4}

    if ins.op in DOT_READS:
        n = DOT_READS[ins.op][i] if i < len(DOT_READS[ins.op]) else 4
        return [comps(range(n))] * 4
    if kind == "s":
        return [comps([0])] * 4
    if ins.op in COMPONENTWISE:
        return [comps([c]) for c in range(4)]
    return [comps(range(4))] * 4


def analyse(program: Program, inexact: frozenset[str] | set[str] = frozenset()) -> Facts:
    """Compute :class:`Facts` for ``program``; ``inexact`` names the opcodes tracked as tokens."""
    facts = Facts()
    regs = program.registers
    deps = facts.deps

    def get(reg: str, c: int) -> set:
        r = regs.get(reg)
        if r is not None and r.kind in READ_KINDS:
            return {("in", reg, c)}
        return deps.get((reg, c), set())

    def note_read(reg: str, c: int, t: DataType, index=None):
        r = regs.get(reg)
        if r is not None and r.kind in READ_KINDS:
            facts.read_types.setdefault((reg, c), set()).add(t)
            if index is not None and index.relative:
                facts.relative_reads.add(reg)
            else:
                element = 0 if index is None else index.offset
                facts.element_read_types.setdefault((reg, element, c), set()).add(t)

    cc_reads: dict[int, set] = {}
    for ins in program.instructions:
        facts.ops.add(ins.op)
        if ins.op in TEX_OPS:
            facts.uses_textures = True
        if ins.op in ("DDX", "DDY") or (ins.op in ("TEX", "TXB", "TXP", "TEX2", "TXB2", "LODQ")
                                        and ins.tex is not None):
            facts.uses_derivatives = True
        for i, s in enumerate(ins.srcs):
            t = operand_type(ins, i)
            for c in range(4):
                if s.swizzle[c] < 4:
                    note_read(s.reg, s.swizzle[c], t, s.index)
            for idx in (s.index, s.vertex):
                if idx is not None and idx.relative:
                    note_read(idx.reg, idx.comp, DataType.INT)
        if ins.dst is not None and ins.dst.index is not None and ins.dst.index.relative:
            note_read(ins.dst.index.reg, ins.dst.index.comp, DataType.INT)
    for r in regs.values():
        if r.kind == RegKind.CONST and r.value:
            for words in r.value:
                for w in words:
                    if r.dtype in (DataType.INT, DataType.UINT):
                        facts.int_constants.append(w - (1 << 32) if w & 0x80000000 else w)
                    else:
                        facts.constants.append(f32(w))
        elif r.kind == RegKind.PARAM and r.value:
            for words in r.value:
                if words is not None:
                    facts.constants.extend(f32(w) for w in words)

    # fixpoint over the instructions (flow-insensitive)
    changed = True
    rounds = 0
    while changed and rounds < 64:
        changed = False
        rounds += 1
        for ins in program.instructions:
            # tokens from relative indices and condition codes (control/address dependencies)
            extra: set = set()
            for s in ins.srcs:
                for idx in (s.index, s.vertex):
                    if idx is not None and idx.relative:
                        extra |= get(idx.reg, idx.comp)
            if ins.dst is not None and ins.dst.index is not None and ins.dst.index.relative:
                extra |= get(ins.dst.index.reg, ins.dst.index.comp)
            if ins.op == "REP" and ins.srcs:
                s = ins.srcs[0]
                c = s.swizzle[0]
                if c < 4:
                    for tok in get(s.reg, c) | extra:
                        if tok[0] == "in":
                            if (tok[1], tok[2]) not in facts.loop_inputs:
                                facts.loop_inputs.add((tok[1], tok[2]))
                                changed = True
            if ins.dst is None or not OPCODES[ins.op].writes:
                continue
            result: list[set] = [set(extra) for _ in range(4)]
            for i in range(len(ins.srcs)):
                reads = source_reads(ins, i)
                s = ins.srcs[i]
                for c in range(4):
                    for rc in reads[c]:
                        result[c] |= get(s.reg, rc)
            if ins.op in inexact:
                for c in range(4):
                    result[c].add(("op", ins.op))
            for c in UNDEFINED_COMPONENTS.get(ins.op, ()):
                result[c].add(("undef",))
            if ins.op in RUN_VARYING:
                for c in range(4):
                    result[c].add(("varies", ins.op))
            if ins.dst.cond is not None:
                cond = ins.dst.cond
                for c in range(4):
                    result[c] |= cc_reads.get((cond.cc, cond.swizzle[c]), set())
            rtype = result_type(ins)
            for c in range(4):
                if not ins.dst.mask[c]:
                    continue
                key = (ins.dst.reg, c)
                old = deps.setdefault(key, set())
                if not result[c] <= old:
                    old |= result[c]
                    changed = True
                if regs[ins.dst.reg].kind == RegKind.OUTPUT:
                    facts.writer_types.setdefault(key, set()).add(rtype)
                if ins.cc_update is not None:
                    ck = (ins.cc_update, c)
                    cur = cc_reads.setdefault(ck, set())
                    if not result[c] <= cur:
                        cur |= result[c]
                        changed = True
    # run-varying values that reach a condition (control dependence, flow-insensitive)
    for ins in program.instructions:
        info = OPCODES[ins.op]
        if info.category not in ("flow", "kill") and ins.op != "REP":
            continue
        toks: set = set()
        for s in ins.srcs:
            for c in range(4):
                if s.swizzle[c] < 4:
                    toks |= get(s.reg, s.swizzle[c])
        if ins.cond is not None:
            for c in range(4):
                toks |= cc_reads.get((ins.cond.cc, ins.cond.swizzle[c]), set())
        facts.control_varies |= {t[1] for t in toks if t[0] == "varies"}
    # texture coordinates, LODs, gradients: inputs they depend on
    for ins in program.instructions:
        if ins.op in TEX_OPS:
            for s in ins.srcs:
                for c in range(4):
                    if s.swizzle[c] < 4:
                        for tok in get(s.reg, s.swizzle[c]):
                            if tok[0] == "in":
                                facts.coord_inputs.add((tok[1], tok[2]))
    # relative-index inputs: values that end up as array indices
    for ins in program.instructions:
        for s in ins.srcs:
            for idx in (s.index, s.vertex):
                if idx is not None and idx.relative:
                    for tok in get(idx.reg, idx.comp):
                        if tok[0] == "in":
                            facts.index_inputs.add((tok[1], tok[2]))
    return facts
