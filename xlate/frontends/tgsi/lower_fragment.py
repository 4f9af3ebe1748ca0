"""TGSI lowering of the fragment-only interpolation opcodes (issue 20): INTERP_CENTROID,
INTERP_SAMPLE and INTERP_OFFSET onto the IR's INTERPCENTROID / INTERPSAMPLE / INTERPOFFSET;
CLOCK (IR CLOCK, any processor); and FBFETCH -- a MOV from an implicit input register bound to
``fragment.framebuffer[n]``, the colour the framebuffer held at the fragment's position before
this invocation (tgsi.rst FBFETCH: "only valid on COLOR semantic outputs ... May return the
same value from multiple calls"): an input like any other for the executor and the verifier's
generator (the harness loads it into the render target before the draw); the backends express
it as a subpass input (Vulkan) or refuse.

tgsi.rst: "src0 is the input register (IN[x]) to interpolate" (a varying); INTERP_SAMPLE's
src1.x is the sample index (an integer), INTERP_OFFSET's src1.xy the offset from the pixel
centre in pixels (floats).  The IR rows take operand a as a plain (swizzled) INPUT register:
a modifier on src0 (``-IN[0]``, ``|IN[0]|``) applies to the interpolated value, so it goes onto
a MOV from a scratch register after the interpolation -- |x| of an interpolated value is not
the interpolation of |x| (GLSL's interpolateAt* take the variable itself, no expression)."""
from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from . import model as M
from ...ir.model import Binding, DataType, Dest, Instruction, RegKind, Register, Source, Stage
from .lower_common import F, U

if TYPE_CHECKING:
    from .lower import Lowerer

#: fragment inputs that are not varyings: no value exists between pixel centres
_NOT_VARYINGS = ("fragment.position", "fragment.facing", "fragment.sampleid", "primitive.id",
                 "fragment.pointcoord")


def _interp(irop: str):
    def fn(lw: Lowerer, t: M.Instruction):
        if lw.stage != Stage.FRAGMENT:
            lw.reject("E3004", f"{t.opcode} is a fragment-shader opcode")
        s0 = t.srcs[0]
        if s0.reg.file != "IN":
            lw.reject("E3004", f"{t.opcode} interpolates an input: src0 must be IN[n], not "
                      f"{s0.reg.file}")
        if s0.reg.indirect is not None:
            lw.reject("E7001", f"{t.opcode} of an indirectly addressed input "
                      f"(IN[ADDR[..]]) is not supported: GLSL's interpolateAt* takes an input "
                      f"variable or an element of one")
        a = lw.src(s0)
        reg = lw.regs[a.reg]
        builtin = [b for b in reg.bindings if b is not None and b.path in _NOT_VARYINGS]
        if reg.kind != RegKind.INPUT or builtin:
            what = builtin[0].text() if builtin else "not a varying"
            lw.reject("E3004", f"{t.opcode} interpolates a varying: IN[{s0.reg.index}] is "
                      f"{what}")
        plain = dataclasses.replace(a, neg=False, abs=False, comp_neg=(False,) * 4)
        srcs = (plain,)
        if irop == "INTERPSAMPLE":
            srcs += (lw.src(t.srcs[1], integer=True),)
        elif irop == "INTERPOFFSET":
            srcs += (lw.src(t.srcs[1]),)
        dest = lw.dst(t.dsts[0])
        modified = a.neg or a.abs or any(a.comp_neg)
        if not modified:
            lw.emit(Instruction(irop, F, dest, srcs, lw.sat()))
            return
        k = lw.scratch("ip")
        lw.emit(Instruction(irop, F, Dest(k), srcs))
        lw.emit(Instruction("MOV", F, dest, (Source(k, neg=a.neg, abs=a.abs,
                                                   comp_neg=a.comp_neg),), lw.sat()))
    return fn


def _clock(lw: Lowerer, t: M.Instruction):
    # tgsi.rst CLOCK: dst.xy = clock(), a 64-bit value (low word first); any processor
    lw.emit(Instruction("CLOCK", U, lw.dst(t.dsts[0]), ()))


def _fbfetch(lw: Lowerer, t: M.Instruction):
    if lw.stage != Stage.FRAGMENT:
        lw.reject("E3004", f"{t.opcode} is a fragment-shader opcode")
    s0 = t.srcs[0]
    if s0.reg.file != "OUT" or s0.reg.indirect is not None:
        lw.reject("E3004", f"{t.opcode} reads the framebuffer of a COLOR output: src0 must be "
                  f"OUT[n], not {s0.reg.file}{'[ADDR..]' if s0.reg.indirect is not None else ''}")
    b = lw.binding("OUT", s0.reg.index)          # the output's declaration, not a register
    if b is None or b.path != "result.color":
        lw.reject("E3004", f"{t.opcode} is only valid on COLOR outputs (tgsi.rst): OUT["
                  f"{s0.reg.index}] is {b.text() if b is not None else 'not bound'}")
    n = b.index or 0
    fb = f"FB{n}"
    if fb not in lw.regs:
        lw.regs[fb] = Register(fb, RegKind.INPUT, DataType.NONE, None,
                               (Binding("fragment.framebuffer", n),), implicit=True)
    if s0.complement or s0.bias or s0.scale2x or s0.ext_divide != 5:
        lw.reject("E7001", f"{t.opcode} with the seed source modifiers complement/bias/"
                  "scale-by-2/divide is not supported")
    # the modifiers as Lowerer.src reads them (the seed negate vanishes under |x|)
    a = Source(fb, None, None, tuple(s0.swizzle), s0.abs_neg if s0.abs else s0.neg != s0.abs_neg,
               s0.abs, tuple(s0.comp_neg))
    lw.emit(Instruction("MOV", F, lw.dst(t.dsts[0]), (a,), lw.sat()))


def _lanes(irop: str, integer_value: bool):
    """The inter-lane opcodes (tgsi.rst "Inter-lane opcodes"): any processor; the votes and
    BALLOT read value.x as a boolean word, READ_FIRST/READ_INVOC copy words."""
    def fn(lw: Lowerer, t: M.Instruction):
        s0 = t.srcs[0]
        if not integer_value and (s0.neg or s0.abs or s0.abs_neg or any(s0.comp_neg)):
            # the words copied are the operand's after its (float) modifiers: made first
            k = lw.scratch("rl")
            lw.emit(Instruction("MOV", F, Dest(k), (lw.src(s0),)))
            first = Source(k)
        else:
            first = lw.src(s0, integer=True)
        srcs = (first,) + tuple(lw.src(s, integer=True) for s in t.srcs[1:])
        lw.emit(Instruction(irop, U, lw.dst(t.dsts[0]), srcs))
    return fn


FRAGMENT_OPS = {
    "VOTE_ANY": _lanes("VOTEANY", True), "VOTE_ALL": _lanes("VOTEALL", True),
    "VOTE_EQ": _lanes("VOTEEQ", True), "BALLOT": _lanes("BALLOT", True),
    "READ_FIRST": _lanes("READFIRST", False), "READ_INVOC": _lanes("READINVOC", False),
    "FBFETCH": _fbfetch,
    "CLOCK": _clock,
    "INTERP_CENTROID": _interp("INTERPCENTROID"),
    "INTERP_SAMPLE": _interp("INTERPSAMPLE"),
    "INTERP_OFFSET": _interp("INTERPOFFSET"),
}
