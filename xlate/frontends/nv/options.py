"""Program options whose meaning is fixed-function work, made explicit as IR instructions.

The IR has no notion of fixed-function state, so an option that asks the GL to do something
after (or instead of) part of the program is lowered here into ordinary instructions; the
executor and every backend then agree without knowing the option exists.

* ``ARB_position_invariant`` (ARBVP 2.14.4.5.1, VP4 2.X.6.Y): the position is computed as the
  fixed-function pipeline would: ``result.position = state.matrix.mvp * vertex.position``
  (four DP4 with the matrix rows, ARBVP issue on invariance), prepended to the program, which
  may not write ``result.position`` itself.
* ``ARB_fog_linear`` / ``ARB_fog_exp`` / ``ARB_fog_exp2`` (ARBFP 3.11.4.5.1, FP4 2.X.6.Y): the
  fog factor f of the fixed-function fog equations (OpenGL 2.1 §3.10, with
  ``state.fog.params`` = (density, start, end, 1/(end-start))) from ``fragment.fogcoord.x``,
  clamped to [0, 1], blends ``result.color.rgb = f * color.rgb + (1 - f) * fog.color.rgb``
  after the program has run, ``color`` being the program's colour clamped to [0, 1] (ARBFP
  3.11.4.5.1: fog applies to "the program's final clamped color"; Mesa's native ARB
  implementation clamps too, ``xlate verify --backend native``); alpha is the clamped alpha.  The program body becomes a subroutine so
  that every way of ending it (the end, or a RET in main) reaches the blend.
"""
from __future__ import annotations

import struct

from ...ir.model import (Binding, DataType, Dest, Index, Instruction, Program, Register, RegKind,
                         Sat, Source)

LOG2_E = 1.4426950408889634
BODY_LABEL = "%program_body"
COLOR_TEMP = "%fog_color"


def _f32(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


def _binding_reg(prog: Program, kind: RegKind, b: Binding) -> str:
    name = b.text()
    if name not in prog.registers:
        prog.registers[name] = Register(name, kind, DataType.NONE, None, (b,), implicit=True)
    return name


def _const(prog: Program, value: float) -> str:
    name = f"%opt_k{len([r for r in prog.registers if r.startswith('%opt_k')])}"
    words = (_f32(value),) * 4
    prog.registers[name] = Register(name, RegKind.CONST, DataType.FLOAT, None, (), (words,),
                                    implicit=True)
    return name


X = (0, 0, 0, 0)
Y, Z, W = (1, 1, 1, 1), (2, 2, 2, 2), (3, 3, 3, 3)
MASK_X = (True, False, False, False)


def writes_binding(prog: Program, path: str) -> Register | None:
    for ins in prog.instructions:
        if ins.dst is not None:
            reg = prog.registers[ins.dst.reg]
            if reg.kind == RegKind.OUTPUT and any(b is not None and b.path == path for b in reg.bindings):
                return reg
    return None


def _position_source(prog: Program) -> Source:
    """vertex.position as the program already reads it: through its generic alias
    vertex.attrib[0] when the program binds that (ARBVP Table X.2.1: the same attribute; a
    second binding would give the shader two inputs at location 0), else vertex.position."""
    for name, reg in prog.registers.items():
        if reg.kind != RegKind.INPUT:
            continue
        for k, b in enumerate(reg.bindings):
            if b is not None and b.path == "vertex.attrib" and b.index == 0:
                return Source(name, Index(k) if reg.size is not None else None)
    return Source(_binding_reg(prog, RegKind.INPUT, Binding("vertex.position")))


def position_invariant(prog: Program) -> None:
    """Prepend result.position = mvp * vertex.position (the caller rejected programs that
    write result.position)."""
    pos = _position_source(prog)
    out = _binding_reg(prog, RegKind.OUTPUT, Binding("result.position"))
    new = []
    for row in range(4):
        m = _binding_reg(prog, RegKind.PARAM, Binding("state.matrix.mvp.row", None, row))
        mask = tuple(i == row for i in range(4))
        new.append(Instruction("DP4", DataType.FLOAT, Dest(out, None, mask), (Source(m), pos),
                               text="(ARB_position_invariant)"))
    at = prog.entry
    prog.instructions[at:at] = new
    prog.labels = {k: (v + len(new) if v > at else v) for k, v in prog.labels.items()}


def fog(prog: Program, mode: str) -> None:
    """Wrap the program and blend result.color with the fog color afterwards (see above)."""
    # every register bound to result.color[0] becomes one temporary (they share storage)
    color_regs = {name for name, r in prog.registers.items() if r.kind == RegKind.OUTPUT and
                  any(b is not None and b.path == "result.color" and (b.index or 0) == 0 for b in r.bindings)}
    prog.registers[COLOR_TEMP] = Register(COLOR_TEMP, RegKind.TEMP, DataType.NONE, implicit=True)
    for ins in prog.instructions:
        if ins.dst is not None and ins.dst.reg in color_regs:
            ins.dst = Dest(COLOR_TEMP, None, ins.dst.mask, ins.dst.cond)
    for name in color_regs:
        reg = prog.registers[name]
        if reg.size is None:
            del prog.registers[name]
    color_out = _binding_reg(prog, RegKind.OUTPUT, Binding("result.color", 0))
    fogc = _binding_reg(prog, RegKind.INPUT, Binding("fragment.fogcoord"))
    params = _binding_reg(prog, RegKind.PARAM, Binding("state.fog.params"))
    fog_color = _binding_reg(prog, RegKind.PARAM, Binding("state.fog.color"))
    f = "%fog_factor"
    prog.registers[f] = Register(f, RegKind.TEMP, DataType.NONE, implicit=True)
    fx = Dest(f, None, MASK_X)
    seq: list[Instruction] = []

    def add(op, dst, *srcs, sat=Sat.NONE):
        seq.append(Instruction(op, DataType.FLOAT, dst, tuple(srcs), sat=sat, text=f"(OPTION ARB_fog_{mode})"))

    if mode == "linear":          # f = (end - c) / (end - start)
        add("SUB", fx, Source(params, swizzle=Z), Source(fogc, swizzle=X))
        add("MUL", fx, Source(f, swizzle=X), Source(params, swizzle=W), sat=Sat.SAT)
    else:                         # f = exp(-(d c)) or exp(-(d c)^2), as 2^(-x log2 e)
        add("MUL", fx, Source(params, swizzle=X), Source(fogc, swizzle=X))
        if mode == "exp2":
            add("MUL", fx, Source(f, swizzle=X), Source(f, swizzle=X))
        add("MUL", fx, Source(f, swizzle=X), Source(_const(prog, -LOG2_E), swizzle=X))
        add("EX2", fx, Source(f, swizzle=X), sat=Sat.SAT)
    # ARBFP 3.11.4.5.1: "apply fog to the program's final clamped color"
    add("MOV", Dest(COLOR_TEMP, None, (True, True, True, True)), Source(COLOR_TEMP), sat=Sat.SAT)
    add("LRP", Dest(color_out, None, (True, True, True, False)), Source(f, swizzle=X),
        Source(COLOR_TEMP), Source(fog_color))
    add("MOV", Dest(color_out, None, (False, False, False, True)), Source(COLOR_TEMP))
    wrap(prog, seq)


def wrap(prog: Program, epilogue: list[Instruction]) -> None:
    """main := CAL body; epilogue; RET   (the old program is the subroutine 'body')."""
    ins = prog.instructions
    if not ins or not (ins[-1].op == "RET" and ins[-1].cond is None):
        ins.append(Instruction("RET", text="(end of program body)"))
    head = [Instruction("CAL", label=BODY_LABEL, text="(program options)")] + epilogue + [
        Instruction("RET", text="(program options)")]
    shift = len(head)
    prog.labels = {k: v + shift for k, v in prog.labels.items()}
    prog.labels[BODY_LABEL] = prog.entry + shift
    prog.instructions = head + ins
    prog.entry = 0
