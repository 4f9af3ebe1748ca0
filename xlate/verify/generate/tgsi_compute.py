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
  program (the executor replays the implementation's values).  Word g is workgroup g's (the
  grid's four workgroups, four words): never a word several workgroups update (why: the last
  paragraph), and at most 8 invocations' atomics on a word (all 32 invocations' on one word
  can be more orders than the search tries: 64 exchanges and adds on one word made it give up).
* ``IMAGE[0]``: an RGBA32F 2D image of input texels (16 x 16, the executor's and the
  verifier's size), never written: loads from any texel (coordinates masked to 0..15).
* ``IMAGE[1]``: an R32UI 2D image.  Invocation n owns texel (n mod 16, n / 16) in rows 0-1,
  which it stores (a whole texel) and loads; row 2's texels take atomics (all 13; texel
  (4 g, 2) workgroup g's) and nothing else, as ``BUFFER[2]``'s words.
* ``MEMORY[0], SHARED``: 16 bytes per invocation of a workgroup.  An *exchange*, only where
  every invocation of the workgroup runs it (main's top level: the generator's uniform flow),
  stores a whole vector to the invocation's own slot, ``BARRIER``, loads the next
  invocation's slot, ``BARRIER`` -- the second barrier orders that load before the next
  exchange's store, so no access races and no slot is read before it is written.  Main never
  returns early (:meth:`.tgsi_flow.FlowOps.statement`), so every invocation reaches every barrier.
* Temporaries the random statements do not write: ``TEMP[S]`` (x: the invocation's result
  offset, y: x + 16, z: its shared slot, w: the next invocation's), ``TEMP[A]`` (z: address
  scratch, written just before the instruction that reads it; w: the invocation's atomic
  word offset, 4 g; x, y after the prologue: its texel of ``IMAGE[1]``) and two float temporaries
  loaded from the invocation's input words (what the other processors read from ``IN``).

Issue 20's remaining compute groups come from a sixth random stream (feature name
``resources``), which declares each group or not and inserts its instructions between those the
other streams draw (a seed's earlier program is still there, in order; its reserved
temporaries follow the loop counters).  n is the invocation's global index, g its workgroup's:

* buffer images (``DCL IMAGE[k], BUFFER, <format>``; 64 texels): an input image of a random
  exact format, only loaded (texel masked to 0..63) and queried (``RESQ``); and an R32_UINT
  or R32_SINT image whose texel n (< 32) invocation n stores and loads, and whose texel
  32 + g takes the atomics;
* multisample images (``DCL IMAGE[k], 2D_MSAA|2D_ARRAY_MSAA, <format>``; 8 x 8 texels, 4
  samples, 2 layers; the sample index in the address's w): an input image loaded at a masked
  (x, y, layer, sample); and an R32_UINT / R32_SINT image whose texel (n mod 8, n / 8) of layer
  0 invocation n stores and loads at any sample, and whose texel (g, 4) takes the atomics at
  any sample; ``RESQ`` of either;
* atomic counters: ``DCL HWATOMIC[0][0..3], ARRAY(1)``, counter g taking every atomic
  (``HWATOMIC[0][ADDR[1].x]``), and ``DCL HWATOMIC[1][0]``, ``[1][1]`` only read by ``LOAD``
  (a plain read of a counter others update races their atomics, exec/races.py).

Every atomic updates a word of one workgroup, never a word several workgroups update: the
verifier explains a difference from its probe dispatches only where their atomics returned
what the main dispatch's did (compute_replay.py), and workgroups run concurrently, so such a
word's order can differ from one dispatch to the next -- measured: compute seed 21, when the
new counters' word was the invocation index mod 4 and one counter every invocation's, was a
mismatch localized at ``interface`` ("15 probe dispatches whose atomics returned otherwise")
on a loaded machine and a pass when rerun; and so was compute 519 (inputs seed 500) 1 run in 3
while ``BUFFER[2]``'s words were still the invocation index mod 4 and ``IMAGE[1]``'s atomic texels
its column.
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
#: the resource groups of the sixth stream (the module docstring)
RESOURCE_GROUPS = ("buffer_image", "ms_image", "counter")
#: formats of the input images the sixth stream declares (exact on upload and read-back: no
#: normalized format, whose conversion GL rounds within 1 ulp only), and of the images its
#: invocations store to and update atomically (tgsi.rst: atomics on R32_UINT / R32_SINT)
RESOURCE_INPUT_FORMATS = ("PIPE_FORMAT_R32G32B32A32_FLOAT", "PIPE_FORMAT_R32G32B32A32_UINT",
                          "PIPE_FORMAT_R32G32_FLOAT", "PIPE_FORMAT_R16G16_SINT",
                          "PIPE_FORMAT_R32_SINT")
RESOURCE_OWN_FORMATS = ("PIPE_FORMAT_R32_UINT", "PIPE_FORMAT_R32_SINT")
MS_TARGETS = ("2D_MSAA", "2D_ARRAY_MSAA")


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
        # a sixth stream for the buffer images, multisample images and atomic counters
        # (issue 20), so that a seed's earlier program keeps its instructions, in order
        self.res_rng = random.Random(str(rng.getstate()[1][32:40]))
        self.block = rng.choice(BLOCKS)
        self.groups: tuple[str, ...] = ()
        if self.has("resources"):
            self.groups = tuple(g for g in RESOURCE_GROUPS if self.res_rng.random() < 0.6)
        self.images: dict[str, tuple[int, str, str]] = {}    # role -> (index, target, format)
        self.extra_temps = ("buffer_image" in self.groups) + ("ms_image" in self.groups)

    # ---- declarations -------------------------------------------------------------------------
    def stage_declarations(self) -> list[str]:
        w, h = self.block
        self.sv = "THREAD_ID"
        return ["COMP", f"PROPERTY CS_FIXED_BLOCK_WIDTH {w}",
                f"PROPERTY CS_FIXED_BLOCK_HEIGHT {h}", "PROPERTY CS_FIXED_BLOCK_DEPTH 1",
                "DCL SV[0], THREAD_ID", "DCL SV[1], BLOCK_ID", "DCL SV[2], GRID_SIZE",
                "DCL BUFFER[0]", "DCL BUFFER[1]", "DCL BUFFER[2]", "DCL MEMORY[0], SHARED",
                f"DCL IMAGE[0], 2D, {INPUT_IMAGE}", f"DCL IMAGE[1], 2D, {OWN_IMAGE}, WR"
                ] + self.resource_declarations()

    def resource_declarations(self) -> list[str]:
        """The sixth stream's images (numbered from 2) and atomic counters."""
        rng, d = self.res_rng, []
        roles = []
        if "buffer_image" in self.groups:
            roles += [("buffer_in", "BUFFER"), ("buffer_own", "BUFFER")]
        if "ms_image" in self.groups:
            roles += [("ms_in", rng.choice(MS_TARGETS)), ("ms_own", rng.choice(MS_TARGETS))]
        for k, (role, target) in enumerate(roles, start=2):
            own = role.endswith("own")
            fmt = rng.choice(RESOURCE_OWN_FORMATS if own else RESOURCE_INPUT_FORMATS)
            self.images[role] = (k, target, fmt)
            d.append(f"DCL IMAGE[{k}], {target}, {fmt}" + (", WR" if own else ""))
        if "counter" in self.groups:
            d += ["DCL HWATOMIC[0][0..3], ARRAY(1)", "DCL HWATOMIC[1][0]", "DCL HWATOMIC[1][1]",
                  "DCL ADDR[1]"]
        return d

    def stage_immediates(self) -> None:
        w, h = self.block
        # width, invocations of a block, a result slot's bytes, a shared slot's bytes
        self.geometry_imm = self.imm("UINT32", [w, w * h, SLOT_BYTES, 16])
        # the load mask, 1, MEMBAR's flags (tgsi.rst: 1 shader buffers, 2 atomic buffers,
        # 4 images, 8 shared memory); w unused
        self.memory_imm = self.imm("UINT32", [LOAD_MASK, 1, 2, 0])
        self.atomic_imm = self.imm("UINT32", [0, 4, 8, 12])       # word offsets (counters')
        # texel coordinates: the mask of 0..15, the row shift, row 2 of IMAGE[1]; w unused
        self.texel_imm = self.imm("UINT32", [15, 4, 2, 0])
        if self.groups:
            # the sixth stream's: the shift of a result offset to the invocation index, the
            # first atomic texel of a buffer image, the column mask and row shift of a
            # multisample image's texel; a buffer image's texel mask, a multisample image's
            # row of atomic texels and its coordinate masks (x, y < 8, layer < 2, sample < 4)
            self.res_imm = self.imm("UINT32", [5, 32, 7, 8])
            self.res_mask_imm = self.imm("UINT32", [63, 4, 0, 0])
            self.ms_mask_imm = self.imm("UINT32", [7, 7, 1, 3])

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
                f"UMAD TEMP[{a}].w, SV[1].yyyy, SV[2].xxxx, SV[1].xxxx",       # block index
                f"SHL TEMP[{a}].w, TEMP[{a}].wwww, IMM[{m}].zzzz",             # its word, * 4
                f"LOAD TEMP[{self.inputs[0]}], BUFFER[0], TEMP[{s}].xxxx",
                f"LOAD TEMP[{self.inputs[1]}], BUFFER[0], TEMP[{s}].yyyy",
                f"USHR TEMP[{a}].y, TEMP[{a}].xxxx, IMM[{self.texel_imm}].yyyy",
                f"AND TEMP[{a}].x, TEMP[{a}].xxxx, IMM[{self.texel_imm}].xxxx"):
            self.ins(text)
        super().prologue()
        self.resource_prologue()

    def resource_prologue(self) -> None:
        """The reserved coordinates of the sixth stream's resources: TEMP[B] (x: the
        invocation's texel n of the buffer image it stores to, y: its workgroup's atomic
        texel 32 + g), TEMP[M] (the invocation's texel (n mod 8, n / 8) of the multisample
        image it stores to, layer 0; w: the sample, written just before the instruction that
        reads it), ADDR[1].x (its workgroup's atomic counter, g)."""
        if not self.groups:
            return
        s, a, r = self.slots, self.scratch, self.res_imm
        temps = iter(range(self.first_extra_temp, self.first_extra_temp + self.extra_temps))
        if "buffer_image" in self.groups:
            self.buffer_texels = b = next(temps)
            self.ins(f"USHR TEMP[{b}].x, TEMP[{s}].xxxx, IMM[{r}].xxxx")
            self.block_index(f"TEMP[{b}].y")
            self.ins(f"UADD TEMP[{b}].y, TEMP[{b}].yyyy, IMM[{r}].yyyy")
        if "ms_image" in self.groups:
            self.ms_texel = t = next(temps)
            self.ins(f"USHR TEMP[{t}].x, TEMP[{s}].xxxx, IMM[{r}].xxxx")
            self.ins(f"AND TEMP[{t}].x, TEMP[{t}].xxxx, IMM[{r}].zzzz")
            self.ins(f"USHR TEMP[{t}].y, TEMP[{s}].xxxx, IMM[{r}].wwww")
            self.ins(f"MOV TEMP[{t}].zw, IMM[{self.atomic_imm}].xxxx")
        if "counter" in self.groups:
            self.block_index(f"TEMP[{a}].z")
            self.ins(f"UARL ADDR[1].x, TEMP[{a}].zzzz")

    def block_index(self, dst: str) -> None:
        """``dst`` = the workgroup's index, block.y * grid.x + block.x: which word the sixth
        stream's atomics update (the module docstring says why one word a workgroup)."""
        self.ins(f"UMAD {dst}, SV[1].yyyy, SV[2].xxxx, SV[1].xxxx")

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

    def statement(self) -> None:
        if self.groups and self.res_rng.random() < 0.2:
            self.resource_op()
        super().statement()

    def resource_op(self) -> None:
        """One access of the sixth stream's resources (the module docstring), drawn from it."""
        main, self.rng = self.rng, self.res_rng
        try:
            group = self.rng.choice(self.groups)
            if group == "buffer_image":
                self.buffer_image_op()
            elif group == "ms_image":
                self.ms_image_op()
            else:
                self.counter_op()
        finally:
            self.rng = main

    def image_atomic(self, role: str, texel: str) -> None:
        k, target, fmt = self.images[role]
        op = self.rng.choice(sorted(ATOMICS))
        value = self.fsrc if op == "ATOMFADD" else self.isrc
        operands = ", ".join(value() for _ in range(ATOMICS[op]))
        self.ins(f"{op} {self.int_dst_component()}, IMAGE[{k}], {texel}, {operands}, "
                 f"{target}, {fmt}")

    def resq(self, role: str) -> None:
        k = self.images[role][0]
        self.ins(f"RESQ {self.idst() if self.itemps else self.fdst()}, IMAGE[{k}]")

    def buffer_image_op(self) -> None:
        rng, a, b = self.rng, self.scratch, self.buffer_texels
        (ki, _, fi), (ko, _, fo) = self.images["buffer_in"], self.images["buffer_own"]
        r = rng.random()
        if r < 0.25:
            self.ins(f"AND TEMP[{a}].z, {self.isrc() if self.itemps else self.own_slot()}, "
                     f"IMM[{self.res_mask_imm}].xxxx")
            self.ins(f"LOAD {self.any_dst()}, IMAGE[{ki}], TEMP[{a}].zzzz, BUFFER, {fi}")
        elif r < 0.45:
            self.ins(f"STORE IMAGE[{ko}], TEMP[{b}].xxxx, {self.any_src()}, BUFFER, {fo}")
        elif r < 0.6:
            self.ins(f"LOAD {self.any_dst()}, IMAGE[{ko}], TEMP[{b}].xxxx, BUFFER, {fo}")
        elif r < 0.85 and self.itemps:
            self.image_atomic("buffer_own", f"TEMP[{b}].yyyy")
        else:
            self.resq(rng.choice(["buffer_in", "buffer_own"]))

    def ms_image_op(self) -> None:
        rng, t, mm = self.rng, self.ms_texel, self.ms_mask_imm
        (ki, ti, fi), (ko, to, fo) = self.images["ms_in"], self.images["ms_own"]
        r = rng.random()
        src = self.isrc if self.itemps else self.own_slot
        if r < 0.25 and self.itemps:
            c = rng.choice(self.itemps)
            self.ins(f"AND TEMP[{c}], {self.isrc()}, IMM[{mm}]")
            self.ins(f"LOAD {self.any_dst()}, IMAGE[{ki}], TEMP[{c}], {ti}, {fi}")
        elif r < 0.45:
            self.ins(f"AND TEMP[{t}].w, {src()}, IMM[{mm}].wwww")
            self.ins(f"STORE IMAGE[{ko}], TEMP[{t}], {self.any_src()}, {to}, {fo}")
        elif r < 0.6:
            self.ins(f"AND TEMP[{t}].w, {src()}, IMM[{mm}].wwww")
            self.ins(f"LOAD {self.any_dst()}, IMAGE[{ko}], TEMP[{t}], {to}, {fo}")
        elif r < 0.85 and self.itemps:
            # texel (the workgroup's index, 4), layer 0, a sample the operand picks
            c = rng.choice(self.itemps)
            self.ins(f"MOV TEMP[{c}], IMM[{self.res_mask_imm}].zyzz")
            self.block_index(f"TEMP[{c}].x")
            self.ins(f"AND TEMP[{c}].w, {self.isrc()}, IMM[{mm}].wwww")
            self.image_atomic("ms_own", f"TEMP[{c}]")
        else:
            self.resq(rng.choice(["ms_in", "ms_own"]))

    def counter_op(self) -> None:
        rng = self.rng
        if self.itemps and rng.random() < 0.7:
            # the workgroup's counter; the offset operand is tgsi.rst's "immediate index to
            # the base hw atomic counter" (0: the array's first; xlate does not read it)
            op = rng.choice(sorted(ATOMICS))
            value = self.fsrc if op == "ATOMFADD" else self.isrc
            operands = ", ".join(value() for _ in range(ATOMICS[op]))
            self.ins(f"{op} {self.int_dst_component()}, HWATOMIC[0][ADDR[1].x], "
                     f"IMM[{self.atomic_imm}].xxxx, {operands}")
        else:
            # the second counter buffer is only read: a plain read of a counter others update
            # races their atomics (exec/races.py)
            i = rng.randrange(2)
            self.ins(f"LOAD {self.any_dst()}, HWATOMIC[1][{i}], "
                     f"IMM[{self.atomic_imm}].{XYZW[i] * 4}")

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
        value = self.fsrc if op == "ATOMFADD" else self.isrc
        operands = ", ".join(value() for _ in range(ATOMICS[op]))
        self.ins(f"{op} {self.int_dst_component()}, BUFFER[2], TEMP[{self.scratch}].wwww, "
                 f"{operands}")


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
            c = rng.choice(self.itemps)     # the workgroup's texel of row 2: (4 g, 2)
            self.ins(f"MOV TEMP[{c}].x, TEMP[{a}].wwww")
            self.ins(f"MOV TEMP[{c}].y, IMM[{t}].zzzz")
            texel = f"TEMP[{c}]"
            value = self.fsrc if op == "ATOMFADD" else self.isrc
            operands = ", ".join(value() for _ in range(ATOMICS[op]))
            self.ins(f"{op} {self.int_dst_component()}, IMAGE[1], {texel}, {operands}, 2D, "
                     f"{OWN_IMAGE}")


def generate(rng: random.Random, size: int = 12, avoid=frozenset()) -> str:
    return TGSIComputeGen(rng, size, avoid).program()
