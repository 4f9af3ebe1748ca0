"""TGSI text programs: ``VERT``, ``FRAG`` and ``GEOM`` (tgsi.rst; tgsi.md 1, 2, 3, 6).

What the programs exercise: declarations (``DCL IN``/``OUT`` with semantics and, in fragment
shaders, interpolation modes; 1-D and 2-D ``CONST`` ranges and a second constant buffer;
``TEMP`` ranges; ``ADDR``; ``SV`` system values; ``SAMP``/``SVIEW``), ``IMM`` immediates of
the three 32-bit types (``FLT32`` sometimes in the raw-bits hex form), untyped registers read
as float and as integers, float ALU and integer ALU (``UADD`` ... ``UMUL_HI``, divisions, shifts,
set-on-compare, ``UCMP``, conversions), ``_SAT``, 4-letter swizzles, write masks, ``-``/``|x|``
modifiers, relative addressing through ``ADDR[0]`` (written by ``ARL`` from a float or ``UARL``
from an integer) into ``CONST``, ``IMM`` and the ``TEMP`` file, ``IF``/``UIF``/``ELSE``/
``ENDIF``, ``BGNLOOP``/``ENDLOOP`` with ``BRK``/``CONT``, ``SWITCH``/``CASE``/``DEFAULT``,
subroutines (``BGNSUB``/``ENDSUB`` after ``END``, ``CAL``, ``RET``), fragment ``KILL``/
``KILL_IF``/``DDX``/``DDY``/``INTERP_CENTROID``/``INTERP_SAMPLE``/``INTERP_OFFSET``/``VOTE_*``/
``BALLOT``/``READ_FIRST``/``READ_INVOC``/``TEX``/``TXP``/``TXB``/``TXL``, the sampler-view forms
``SAMPLE``/``SAMPLE_L``/``SAMPLE_B`` and ``TG4``, ``LODQ``, a cube-array or multisample third
unit (``TXL2``, ``TXF``/``SAMPLE_I_MS`` with a sample index, ``TXQS``, ``TXQ``),
double-precision and 64-bit integer opcodes on the integer temporaries (fragment programs
only, so that the vertex and geometry programs of the pinned seeds stay as they were), and
geometry ``EMIT``/``ENDPRIM``.

Issue 20's remaining groups (:mod:`.tgsi_modern`, from a fifth random stream, feature name
``modern``), in every processor: the bitfield opcodes ``IBFE``/``UBFE``/``BFI``/``BREV``/
``POPC``/``LSB``/``IMSB``/``UMSB`` on the integer temporaries, ``FMA``, ``LDEXP``, the packs
``PK2H``/``PK2US``/``PK4B``/``PK4UB`` and unpacks ``UP2H``/``UP2US``/``UP4B``/``UP4UB``; in
fragment programs also ``DEMOTE`` (under a condition), ``READ_HELPER``, ``DDX_FINE``/
``DDY_FINE``, ``SAMPLE_D`` on the first units' sampler views, and a fourth unit for depth
comparisons: ``SAMPLE_C``/``SAMPLE_C_LZ`` on a plain view (a depth texture in the harness),
``TEX2`` on ``SHADOWCUBEARRAY`` and ``TXB2`` on ``SHADOWCUBE`` -- and ``TXB2`` on the third
unit's ``CUBEARRAY``.  The new instructions are inserted between those the other streams draw,
so a seed's earlier program is still there, in order.

The opcodes no other stream writes come from a seventh stream (:mod:`.tgsi_coverage`, feature
name ``coverage``), inserted the same way, and compute programs add buffer images, multisample
images and atomic counters from a sixth (:mod:`.tgsi_compute`).  What no program writes is
:data:`.tgsi_coverage.NOT_GENERATED`, each with its reason.

Rules kept: the syntax MODERN Mesa prints (tgsi.md 1.7-1.8: numbered instructions, exactly four
swizzle letters, ordered write masks, ``ADDR[0].x+N`` without spaces, ``CAL :N`` naming the
``BGNSUB`` instruction index); temporaries, ``ADDR`` and outputs are written whole before use
(undefined otherwise); loops are counted: each loop owns a reserved ``TEMP`` whose x is set
before ``BGNLOOP`` and tested and decremented first thing in the body (so ``CONT`` cannot skip
the decrement), and no other instruction writes it; subroutines call later subroutines only;
geometry shaders emit at most ``GS_MAX_OUTPUT_VERTICES`` vertices, each after writing every
output (results are undefined after ``EMIT``).

The generator is one class, :class:`TGSIGen` (its state, the prologue and the program's
frame), assembled from parts, one module each: :mod:`.tgsi_operands` (operands, immediates,
emission), :mod:`.tgsi_declarations`, :mod:`.tgsi_flow` (the statement draw and control flow),
:mod:`.tgsi_alu`, :mod:`.tgsi_fragment`, :mod:`.tgsi_modern` (the fifth stream) and
:mod:`.tgsi_coverage` (the seventh).
"""
from __future__ import annotations

import random

from .common import Gen
from .tgsi_alu import AluOps
from .tgsi_coverage import CoverageOps
from .tgsi_declarations import DeclarationOps
from .tgsi_flow import FlowOps
from .tgsi_fragment import FragmentOps
from .tgsi_modern import ModernOps
from .tgsi_operands import OperandOps


class TGSIGen(FlowOps, AluOps, FragmentOps, ModernOps, CoverageOps, DeclarationOps, OperandOps,
              Gen):
    def __init__(self, rng: random.Random, stage: str, size: int, avoid):
        super().__init__(rng, size, avoid)
        self.stage = stage
        self.frag = stage == "fragment"
        self.geom = stage == "geometry"
        self.tes = stage == "tess_evaluation"
        self.tcs = stage == "tess_control"
        self.comp = False            # compute programs: tgsi_compute.TGSIComputeGen
        self.swz_limit = None         # TES: the components the next swizzle may select
        self.nftemp = rng.randint(2, 4)
        self.nitemp = rng.randint(1, 3) if self.has("int") else 0
        self.ftemps = list(range(self.nftemp))
        self.itemps = list(range(self.nftemp, self.nftemp + self.nitemp))
        self.ntemp = self.nftemp + self.nitemp        # loop counters follow
        self.max_loops = 4
        self.counters = list(range(self.ntemp, self.ntemp + self.max_loops))
        self.nin = rng.randint(1, 3)
        self.nconst = rng.choice([4, 8])
        self.cbuf1 = self.chance(0.2)
        self.addr = self.has("relative") and self.chance(0.6)
        self.temp_indirect = self.addr and self.chance(0.3)
        self.imm_indirect = self.addr and self.chance(0.2)
        self.sv = None
        self.imms: list[tuple[str, list]] = []
        self.insts: list[tuple[int, str]] = []       # (nesting, text) in instruction order
        self.loop_depth = 0
        self.switch_depth = 0
        self.routine = 0
        self.nsubs = 0
        self.sub_index: dict[int, int] = {}
        self.cal_fixups: list[tuple[int, int]] = []   # (instruction index, sub number)
        self.samplers: dict[int, str] = {}
        self.sviews: set[int] = set()
        # the second stream (getstate does not draw from the first)
        self.tex_rng = random.Random(str(rng.getstate()[1][:8]))
        self.extra_target: str | None = None
        # a third stream for the interpolation opcodes (issue 20), for the same reason
        self.interp_rng = random.Random(str(rng.getstate()[1][8:16]))
        # and a fourth for the inter-lane opcodes (issue 20)
        self.lane_rng = random.Random(str(rng.getstate()[1][16:24]))
        # and a fifth for the bitfield, FMA/LDEXP, pack, DEMOTE/READ_HELPER, fine-derivative
        # and TEX2/TXB2/SAMPLE_C/SAMPLE_D opcodes (issue 20)
        self.modern_rng = random.Random(str(rng.getstate()[1][24:32]))
        # and a seventh for the opcodes no other stream writes (NOP, ARR, COVER_DOUBLE_OPS,
        # TEX_LZ, TXD, SAMPLE_I, GATHER4, SVIEWINFO, LOD)
        self.cover_rng = random.Random(str(rng.getstate()[1][40:48]))
        self.compare_target: str | None = None
        self.varyings = 0            # fragment IN[0 .. varyings-1] are varyings (not POSITION)
        self.emitted = 0
        self.max_vertices = 0
        self.outputs: list[str] = []
        self.rel_ok = False          # ADDR[0] written yet
        self.extra_temps = 0         # reserved temporaries after the loop counters

    def prologue(self) -> None:
        rng = self.rng
        # define every temporary (TGSI does not), the address register and the outputs
        for t in self.ftemps:
            self.ins(f"MOV TEMP[{t}], {self.in_ref()}{self.swz4()}")
        for t in self.itemps:
            op = rng.choice(["F2I", "F2U", "MOV"])
            src = (self.in_ref() + self.swz4() if op != "MOV"
                   else f"IMM[{rng.choice(self.int_imms)}]")
            self.ins(f"{op} TEMP[{t}], {src}")
        if self.tcs:
            self.ins("UARL ADDR[1].x, SV[0].xxxx")
        if self.has("flow"):
            for c in self.counters:
                self.ins(f"MOV TEMP[{c}], IMM[{self.loop_imm}].xxxx")
        if self.addr:
            self.ins(f"ARL ADDR[0], {self.fsrc()}")
            self.rel_ok = True
        for o in self.outputs:
            self.ins(f"MOV {o}, TEMP[{rng.choice(self.ftemps)}]{self.swz4()}")

    def epilogue(self) -> None:
        """Instructions main ends with (compute programs store their results)."""

    def emit_vertex(self) -> None:
        for o in self.outputs:
            self.ins(f"MOV {o}, {self.fsrc()}")
        self.ins(f"EMIT IMM[{self.stream_imm}].xxxx")
        self.emitted += 1

    def program(self) -> str:
        rng = self.rng
        decl = self.declarations()
        if self.has("flow"):
            self.nsubs = rng.choice([0, 0, 1, 2])
        self.prologue()
        if self.geom:
            per = max(1, self.size // self.max_vertices)
            for v in range(self.max_vertices):
                self.body(per)
                self.emit_vertex()
                if self.out_prim != "POINTS" and self.chance(0.15) and v < self.max_vertices - 1:
                    self.ins(f"ENDPRIM IMM[{self.stream_imm}].xxxx")
        else:
            self.body(self.size)
        self.epilogue()
        self.ins("END")
        for k in range(1, self.nsubs + 1):
            self.routine = k
            self.depth = 0
            self.sub_index[k] = self.ins("BGNSUB", nest_after=1)
            self.body(max(2, self.size // 3))
            self.ins("RET")
            self.ins("ENDSUB", nest_before=-1)
        for k, target in self.cal_fixups:
            depth, text = self.insts[k]
            self.insts[k] = (depth, text.replace(":?", f":{self.sub_index[target]}"))
        lines = [f"{k:3d}: {'  ' * depth}{text}" for k, (depth, text) in enumerate(self.insts)]
        return "\n".join(decl + lines) + "\n"


def generate(rng: random.Random, stage: str = "vertex", size: int = 12, avoid=frozenset()) -> str:
    return TGSIGen(rng, stage, size, avoid).program()
