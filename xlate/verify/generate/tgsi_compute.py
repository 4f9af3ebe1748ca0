"""TGSI compute programs (``COMP``): the statements of :mod:`.tgsi` plus the memory opcodes
(issue 20) -- ``LOAD``/``STORE`` on storage buffers and shared memory, all thirteen ``ATOM*``
opcodes on a buffer, ``BARRIER`` and ``MEMBAR`` -- with ``THREAD_ID``, ``BLOCK_ID`` and
``GRID_SIZE``.

The resources, and why a program stays verifiable (``xlate verify`` compares every buffer word
after the dispatch, xlate/verify/compute_verify.py, whose grid is 2 x 2 x 1 workgroups):

* ``BUFFER[0]``: input words, never written: loads from any 16-byte-aligned offset in the
  buffer (``AND`` with 1008 keeps a four-word load inside its 1024 bytes).
* ``BUFFER[1]``: results.  Each invocation owns 32 bytes at ``32 x`` its global index (the
  block holds at most 8 invocations, so the 32 of the grid fill the buffer exactly) and stores
  and loads only there: no two invocations touch one word, so no plain store races (the
  verifier does not compare a program with a data race: exec/races.py).  Main ends by
  storing a float and an integer temporary there, so every program writes.
* ``BUFFER[2]``: four words the invocations update with atomics and never load or store
  plainly: the implementation's order is its own, and the verifier accepts what some order of
  each word's atomics gives (``exec.atomics.find_order``); the returned value goes on into the
  program (the executor replays the implementation's values).  Most atomics take the word
  the invocation's global index picks (index mod 4), the rest a fixed one: all 32 invocations'
  atomics on one word can be more orders than the search tries (64 exchanges and adds on one
  word made it give up).
* ``IMAGE[0]``: an RGBA32F 2D image of input texels (16 x 16, the executor's and the
  verifier's size), never written: loads from any texel (coordinates masked to 0..15).
* ``IMAGE[1]``: an R32UI 2D image.  Invocation n owns texel (n mod 16, n / 16) in rows 0-1,
  which it stores (a whole texel) and loads; row 2's texels take atomics (all 13, the texel
  mostly by invocation index) and nothing else, as ``BUFFER[2]``'s words.
* ``MEMORY[0], SHARED``: 16 bytes per invocation of a workgroup.  An *exchange*, only where
  every invocation of the workgroup runs it (main's top level: the generator's uniform flow),
  stores a whole vector to the invocation's own slot, ``BARRIER``, loads the next
  invocation's slot, ``BARRIER`` -- the second barrier orders that load before the next
  exchange's store, so no access races and no slot is read before it is written.  Main never
  returns early (:meth:`.tgsi.TGSIGen.statement`), so every invocation reaches every barrier.
* Temporaries the random statements do not write: ``TEMP[S]`` (x: the invocation's result
  offset, y: x + 16, z: its shared slot, w: the next invocation's), ``TEMP[A]`` (z: address
  scratch, written just before the instruction that reads it; w: the invocation's atomic
  word offset; x, y after the prologue: its texel of ``IMAGE[1]``) and two float temporaries
  loaded from the invocation's input words (what the other processors read from ``IN``).
"""
from __future__ import annotations

import random

from .common import XYZW
from .tgsi import TGSIGen

#: (width, height) of a workgroup: at most 8 invocations (see the module docstring)
BLOCKS = ((1, 1), (2, 1), (4, 1), (2, 2), (8, 1), (4, 2), (2, 4))
#: the thirteen atomics of tgsi.rst, with the operands after the address
ATOMICS = {"ATOMUADD": 1, "ATOMXCHG": 1, "ATOMCAS": 2, "ATOMAND": 1, "ATOMOR": 1,
           "ATOMXOR": 1, "ATOMUMIN": 1, "ATOMUMAX": 1, "ATOMIMIN": 1, "ATOMIMAX": 1,
           "ATOMFADD": 1, "ATOMINC_WRAP": 1, "ATOMDEC_WRAP": 1}
#: bytes of BUFFER[1] each invocation owns; the mask keeping a BUFFER[0] load inside it
SLOT_BYTES = 32
LOAD_MASK = 1008
INPUT_IMAGE = "PIPE_FORMAT_R32G32B32A32_FLOAT"
OWN_IMAGE = "PIPE_FORMAT_R32_UINT"


class TGSIComputeGen(TGSIGen):
    def __init__(self, rng: random.Random, size: int, avoid):
        super().__init__(rng, "compute", size, avoid)
        self.comp = True
        self.nin = 0
        # the reserved temporaries follow the random ones, the loop counters follow them
        self.slots, self.scratch = self.ntemp, self.ntemp + 1
        self.inputs = [self.ntemp + 2, self.ntemp + 3]
        self.ntemp += 4
        self.counters = list(range(self.ntemp, self.ntemp + self.max_loops))
        self.block = rng.choice(BLOCKS)

    # ---- declarations -------------------------------------------------------------------------
    def stage_declarations(self) -> list[str]:
        w, h = self.block
        self.sv = "THREAD_ID"
        return ["COMP", f"PROPERTY CS_FIXED_BLOCK_WIDTH {w}",
                f"PROPERTY CS_FIXED_BLOCK_HEIGHT {h}", "PROPERTY CS_FIXED_BLOCK_DEPTH 1",
                "DCL SV[0], THREAD_ID", "DCL SV[1], BLOCK_ID", "DCL SV[2], GRID_SIZE",
                "DCL BUFFER[0]", "DCL BUFFER[1]", "DCL BUFFER[2]", "DCL MEMORY[0], SHARED",
                f"DCL IMAGE[0], 2D, {INPUT_IMAGE}", f"DCL IMAGE[1], 2D, {OWN_IMAGE}, WR"]

    def stage_immediates(self) -> None:
        w, h = self.block
        # width, invocations of a block, a result slot's bytes, a shared slot's bytes
        self.geometry_imm = self.imm("UINT32", [w, w * h, SLOT_BYTES, 16])
        # the load mask, 1, MEMBAR's flags (tgsi.rst: 1 shader buffers, 2 atomic buffers,
        # 4 images, 8 shared memory), the atomic words' mask
        self.memory_imm = self.imm("UINT32", [LOAD_MASK, 1, 2, 12])
        self.atomic_imm = self.imm("UINT32", [0, 4, 8, 12])       # BUFFER[2]'s word offsets
        # texel coordinates: the mask of 0..15, the row shift, row 2 of IMAGE[1]
        self.texel_imm = self.imm("UINT32", [15, 4, 2, 3])

    # ---- operands -----------------------------------------------------------------------------
    def in_ref(self) -> str:
        return f"TEMP[{self.rng.choice(self.inputs)}]"

    def int_dst_component(self) -> str:
        return f"TEMP[{self.rng.choice(self.itemps)}].{self.rng.choice(XYZW)}"

    # ---- statements ---------------------------------------------------------------------------
    def prologue(self) -> None:
        s, a, g, m = self.slots, self.scratch, self.geometry_imm, self.memory_imm
        for text in (
                f"UMAD TEMP[{s}].x, SV[0].yyyy, IMM[{g}].xxxx, SV[0].xxxx",     # index in block
                f"UMAD TEMP[{a}].x, SV[1].yyyy, SV[2].xxxx, SV[1].xxxx",       # block index
                f"UMAD TEMP[{a}].x, TEMP[{a}].xxxx, IMM[{g}].yyyy, TEMP[{s}].xxxx",  # global
                f"UMUL TEMP[{s}].z, TEMP[{s}].xxxx, IMM[{g}].wwww",
                f"UADD TEMP[{a}].y, TEMP[{s}].xxxx, IMM[{m}].yyyy",
                f"UMOD TEMP[{a}].y, TEMP[{a}].yyyy, IMM[{g}].yyyy",            # the next one
                f"UMUL TEMP[{s}].w, TEMP[{a}].yyyy, IMM[{g}].wwww",
                f"UMUL TEMP[{s}].x, TEMP[{a}].xxxx, IMM[{g}].zzzz",
                f"UADD TEMP[{s}].y, TEMP[{s}].xxxx, IMM[{g}].wwww",
                f"SHL TEMP[{a}].w, TEMP[{a}].xxxx, IMM[{m}].zzzz",             # index * 4
                f"AND TEMP[{a}].w, TEMP[{a}].wwww, IMM[{m}].wwww",             # mod 16 bytes
                f"LOAD TEMP[{self.inputs[0]}], BUFFER[0], TEMP[{s}].xxxx",
                f"LOAD TEMP[{self.inputs[1]}], BUFFER[0], TEMP[{s}].yyyy",
                f"USHR TEMP[{a}].y, TEMP[{a}].xxxx, IMM[{self.texel_imm}].yyyy",
                f"AND TEMP[{a}].x, TEMP[{a}].xxxx, IMM[{self.texel_imm}].xxxx"):
            self.ins(text)
        super().prologue()

    def epilogue(self) -> None:
        s = self.slots
        self.ins(f"STORE BUFFER[1], TEMP[{s}].xxxx, TEMP[{self.ftemps[0]}]")
        last = self.itemps[0] if self.itemps else self.ftemps[-1]
        self.ins(f"STORE BUFFER[1], TEMP[{s}].yyyy, TEMP[{last}]")

    def own_slot(self) -> str:
        return f"TEMP[{self.slots}].{self.rng.choice('xy') * 4}"

    def any_src(self) -> str:
        return self.isrc() if self.itemps and self.chance(0.5) else self.fsrc()

    def any_dst(self) -> str:
        return self.idst() if self.itemps and self.chance(0.6) else self.fdst()

    def memory_op(self) -> None:
        if self.chance(0.3):
            return self.image_op()
        rng = self.rng
        r = rng.random()
        if r < 0.25 and self.itemps:
            a = self.scratch
            self.ins(f"AND TEMP[{a}].z, {self.isrc()}, IMM[{self.memory_imm}].xxxx")
            self.ins(f"LOAD {self.any_dst()}, BUFFER[0], TEMP[{a}].zzzz")
        elif r < 0.45:
            self.ins(f"STORE BUFFER[1]{self.wmask()}, {self.own_slot()}, {self.any_src()}")
        elif r < 0.55:
            self.ins(f"LOAD {self.any_dst()}, BUFFER[1], {self.own_slot()}")
        elif r < 0.85 and self.itemps:
            self.atomic()
        elif r < 0.95 and self.uniform_flow():
            s = self.slots
            self.ins(f"STORE MEMORY[0], TEMP[{s}].zzzz, {self.any_src()}")
            self.ins("BARRIER")
            self.ins(f"LOAD {self.any_dst()}, MEMORY[0], TEMP[{s}].wwww")
            self.ins("BARRIER")
        else:
            self.ins(f"MEMBAR IMM[{self.memory_imm}].{rng.choice('yz') * 4}")

    def atomic(self) -> None:
        op = self.rng.choice(sorted(ATOMICS))
        word = (f"TEMP[{self.scratch}].wwww" if self.chance(0.75)
                else f"IMM[{self.atomic_imm}].{self.rng.choice(XYZW) * 4}")
        value = self.fsrc if op == "ATOMFADD" else self.isrc
        operands = ", ".join(value() for _ in range(ATOMICS[op]))
        self.ins(f"{op} {self.int_dst_component()}, BUFFER[2], {word}, {operands}")


    def image_op(self) -> None:
        rng, a, t = self.rng, self.scratch, self.texel_imm
        r = rng.random()
        own = f"TEMP[{a}].xyxy"
        if r < 0.3 and self.itemps:
            c = rng.choice(self.itemps)
            self.ins(f"AND TEMP[{c}].xy, {self.isrc()}, IMM[{t}].xxxx")
            self.ins(f"LOAD {self.any_dst()}, IMAGE[0], TEMP[{c}], 2D, {INPUT_IMAGE}")
        elif r < 0.5:
            self.ins(f"STORE IMAGE[1], {own}, {self.any_src()}, 2D, {OWN_IMAGE}")
        elif r < 0.65:
            self.ins(f"LOAD {self.any_dst()}, IMAGE[1], {own}, 2D, {OWN_IMAGE}")
        elif self.itemps:
            op = rng.choice(sorted(ATOMICS))
            if self.chance(0.75):           # the invocation's column of row 2
                c = rng.choice(self.itemps)
                self.ins(f"MOV TEMP[{c}].x, TEMP[{a}].xxxx")
                self.ins(f"MOV TEMP[{c}].y, IMM[{t}].zzzz")
                texel = f"TEMP[{c}]"
            else:                           # (3, 2): every invocation's
                texel = f"IMM[{t}].wzzz"
            value = self.fsrc if op == "ATOMFADD" else self.isrc
            operands = ", ".join(value() for _ in range(ATOMICS[op]))
            self.ins(f"{op} {self.int_dst_component()}, IMAGE[1], {texel}, {operands}, 2D, "
                     f"{OWN_IMAGE}")


def generate(rng: random.Random, size: int = 12, avoid=frozenset()) -> str:
    return TGSIComputeGen(rng, size, avoid).program()
