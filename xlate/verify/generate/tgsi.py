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
unit (``TXL2``, ``TXF``/``SAMPLE_I_MS`` with a sample index, ``TXQS``, ``TXQ``), double-precision and 64-bit integer opcodes on the integer
temporaries (fragment programs only, so that the vertex and geometry programs of the pinned seeds
stay as they were), and geometry ``EMIT``/``ENDPRIM``.

Issue 20's remaining groups (:meth:`TGSIGen.modern_op`, from a fifth random stream, feature
name ``modern``), in every processor: the bitfield opcodes ``IBFE``/``UBFE``/``BFI``/``BREV``/
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
"""
from __future__ import annotations

import random
import struct

from .common import Gen, XYZW, fconst
from .tgsi_coverage import GATHER_TARGETS, LODQ_TARGETS, CoverageOps

FLOAT_OPS = {  # opcode -> operand count
    "MOV": 1, "ADD": 2, "MUL": 2, "MAD": 3, "LRP": 3, "DP2": 2, "DP3": 2, "DP4": 2, "DST": 2,
    "MIN": 2, "MAX": 2, "SLT": 2, "SGE": 2, "SEQ": 2, "SGT": 2, "SLE": 2, "SNE": 2, "CMP": 3,
    "SSG": 1, "FRC": 1, "FLR": 1, "CEIL": 1, "TRUNC": 1, "ROUND": 1, "RCP": 1, "RSQ": 1,
    "SQRT": 1, "EX2": 1, "LG2": 1, "POW": 2, "SIN": 1, "COS": 1, "EXP": 1, "LOG": 1, "LIT": 1,
    "DIV": 2,
}
SCALAR_FLOAT = {"RCP", "RSQ", "SQRT", "EX2", "LG2", "POW", "SIN", "COS", "EXP", "LOG"}
TRANSCENDENTAL = {"EX2", "LG2", "POW", "SIN", "COS", "EXP", "LOG", "LIT"}
INT_OPS = {
    "UADD": 2, "UMUL": 2, "UMAD": 3, "IDIV": 2, "UDIV": 2, "UMOD": 2, "MOD": 2, "IMAX": 2,
    "IMIN": 2, "UMAX": 2, "UMIN": 2, "INEG": 1, "IABS": 1, "ISSG": 1, "NOT": 1, "AND": 2,
    "OR": 2, "XOR": 2, "SHL": 2, "ISHR": 2, "USHR": 2, "ISLT": 2, "ISGE": 2, "USLT": 2,
    "USGE": 2, "USEQ": 2, "USNE": 2, "UCMP": 3, "IMUL_HI": 2, "UMUL_HI": 2,
}
INT_DIV = {"IDIV", "UDIV", "UMOD", "MOD"}
SHIFTS = {"SHL", "ISHR", "USHR"}
FLOAT_TO_INT = {"F2I": 1, "F2U": 1, "FSLT": 2, "FSGE": 2, "FSEQ": 2, "FSNE": 2}
INT_TO_FLOAT = {"I2F": 1, "U2F": 1}
TEX_TARGETS = ("1D", "2D", "3D", "CUBE", "RECT")
#: targets of issue 20, on a third sampler unit; drawn from a second random stream, so that the
#: programs of the pinned seeds keep the instructions they had (new ones are added in between)
EXTRA_TARGETS = ("CUBEARRAY", "2D_MSAA", "2D_ARRAY_MSAA")
EXTRA_UNIT = 2
#: double opcodes (operand count) of fragment programs (DFMA, DDIV, DRCP, DSQRT, DRSQ and more
#: 64-bit integer opcodes are drawn from the seventh stream: tgsi_coverage.COVER_DOUBLE_OPS)
DOUBLE_OPS = {"DADD": 2, "DMUL": 2, "DMAD": 3, "DMIN": 2, "DMAX": 2, "DSEQ": 2, "DSNE": 2,
              "DSLT": 2, "DSGE": 2, "DFRAC": 1, "DTRUNC": 1, "DCEIL": 1, "DFLR": 1, "DROUND": 1,
              "DSSG": 1, "DABS": 1, "DLDEXP": 2, "DFRACEXP": 1, "F2D": 1, "I2D": 1, "U2D": 1,
              "D2F": 1, "D2I": 1, "D2U": 1,
              # 64-bit integers (no source modifiers: isrc's "-" is refused on them)
              "U64ADD": 2, "U64MUL": 2, "U64MIN": 2, "I64MAX": 2, "U64SLT": 2, "I64SGE": 2,
              "U64SEQ": 2, "U64SHL": 2, "I64SHR": 2, "U64DIV": 2, "I64MOD": 2, "I64ABS": 1,
              "I64NEG": 1, "I64SSG": 1, "F2I64": 1, "I2I64": 1, "U2I64": 1, "I642F": 1,
              "U642D": 1, "D2I64": 1}
#: the 64-bit integer opcodes among them
INT64_OPS = {o for o in DOUBLE_OPS if "64" in o}
#: issue 20's remaining groups, drawn from a fifth random stream (``modern_rng``): bitfield
#: opcodes on the integer temporaries (operand count), float FMA / LDEXP, and the packs (float
#: sources into an integer temporary) with their unpacks (an integer word into a float one)
BITFIELD_OPS = {"IBFE": 3, "UBFE": 3, "BFI": 4, "BREV": 1, "POPC": 1, "LSB": 1, "IMSB": 1,
                "UMSB": 1}
PACK_OPS = ("PK2H", "PK2US", "PK4B", "PK4UB")
UNPACK_OPS = ("UP2H", "UP2US", "UP4B", "UP4UB")
#: the fourth unit's sampler-view targets: the depth-comparing SAMPLE_C / SAMPLE_C_LZ read the
#: plain ones as their shadow targets (SAMPLE_C on CUBEARRAY is TEX2 on SHADOWCUBEARRAY); TEX2
#: samples SHADOWCUBEARRAY and TXB2 SHADOWCUBE (tgsi.rst: the only targets TEX2 and, with
#: CUBEARRAY, TXB2 take)
COMPARE_UNIT = 3
COMPARE_TARGETS = ("1D", "2D", "RECT", "CUBE", "1D_ARRAY", "2D_ARRAY", "CUBEARRAY")
SHADOW_CUBE_TARGETS = ("SHADOWCUBE", "SHADOWCUBEARRAY")
#: the views SAMPLE_C_LZ compares on: the reference and the zero level both fit the coordinate
#: (xlate refuses it on CUBE, 2D_ARRAY and CUBEARRAY: tests/test_tgsi_sample.py)
COMPARE_LZ_TARGETS = ("1D", "2D", "RECT", "1D_ARRAY")
GS_IN = {"POINTS": 1, "LINES": 2, "TRIANGLES": 3, "LINES_ADJACENCY": 4, "TRIANGLES_ADJACENCY": 6}
GS_OUT = ("POINTS", "LINE_STRIP", "TRIANGLE_STRIP")
PROC = {"vertex": "VERT", "fragment": "FRAG", "geometry": "GEOM",
        "tess_evaluation": "TESS_EVAL", "tess_control": "TESS_CTRL"}


def _f32_hex(v: float) -> str:
    return "0x%08x" % struct.unpack("<I", struct.pack("<f", v))[0]


class TGSIGen(CoverageOps, Gen):
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

    # ---- immediates --------------------------------------------------------------------------
    def imm(self, kind: str, values: list) -> int:
        self.imms.append((kind, values))
        return len(self.imms) - 1

    def imm_text(self, k: int) -> str:
        kind, values = self.imms[k]
        if kind == "FLT32":
            if self.hex_floats:
                vals = [_f32_hex(v) for v in values]
            else:
                vals = [repr(float(v)) for v in values]
        else:
            vals = [str(v) for v in values]
        return f"IMM[{k}] {kind} {{{', '.join(vals)}}}"

    # ---- operands ---------------------------------------------------------------------------
    def swz4(self) -> str:
        limit, self.swz_limit = self.swz_limit, None
        if limit is not None:
            # TESSCOORD's w and TESSINNER's z, w are undefined (tgsi.rst): never read
            return "." + "".join(self.rng.choice(XYZW[:limit]) for _ in range(4))
        r = self.rng.random()
        if r < 0.45:
            return ""
        if r < 0.7:
            return "." + self.rng.choice(XYZW) * 4
        return "." + "".join(self.rng.choice(XYZW) for _ in range(4))

    def wmask(self) -> str:
        if self.chance(0.45):
            return ""
        comps = [c for c in XYZW if self.chance(0.5)] or [self.rng.choice(XYZW)]
        return "." + "".join(comps)

    def const_ref(self) -> str:
        rng = self.rng
        if self.cbuf1 and self.chance(0.2):
            return f"CONST[1][{rng.randrange(4)}]"
        if self.addr and self.chance(0.3):
            off = rng.randrange(self.nconst)
            return f"CONST[ADDR[0].{rng.choice(XYZW)}{'+' + str(off) if off else ''}]"
        if self.chance(0.3):
            return f"CONST[0][{rng.randrange(self.nconst)}]"
        return f"CONST[{rng.randrange(self.nconst)}]"

    def in_ref(self) -> str:
        i = self.rng.randrange(self.nin)
        if self.tes:
            # per-vertex inputs of the patch, a per-patch input, the tess levels, gl_TessCoord
            r = self.rng.random()
            if r < 0.3:
                self.swz_limit = 3
                return "SV[0]"
            if r < 0.45:
                k = self.rng.randrange(3)
                self.swz_limit = 2 if k == 2 else None
                return f"IN[{self.nin + k}]"
        if self.tcs and self.chance(0.25):
            return f"IN[ADDR[1].x][{i}]"                 # the invocation's own input vertex
        if self.geom or self.tes or self.tcs:
            return f"IN[{self.rng.randrange(self.nverts)}][{i}]"
        return f"IN[{i}]"

    def temp_ref(self, pool: list[int], write: bool = False) -> str:
        # relative TEMP access reads only: a write could land on a loop counter (an index out
        # of range is clamped into the file) and break the termination guarantee
        if self.temp_indirect and self.rel_ok and not write and self.chance(0.15):
            off = self.rng.randrange(self.ntemp)
            return f"TEMP[ADDR[0].x{'+' + str(off) if off else ''}]"
        return f"TEMP[{self.rng.choice(pool)}]"

    def fsrc(self) -> str:
        rng = self.rng
        r = rng.random()
        if r < 0.5:
            base = self.temp_ref(self.ftemps)
        elif r < 0.68:
            base = self.in_ref()
        elif r < 0.85:
            base = self.const_ref()
        elif self.imm_indirect and self.rel_ok and self.chance(0.3):
            base = f"IMM[ADDR[0].x+{rng.randrange(len(self.float_imms))}]"
        else:
            base = f"IMM[{rng.choice(self.float_imms)}]"
        text = base + self.swz4()
        if self.chance(0.1):
            text = f"|{text}|"
        if self.chance(0.2):
            text = "-" + text
        return text

    def isrc(self) -> str:
        rng = self.rng
        r = rng.random()
        if r < 0.55 and self.itemps:
            base = self.temp_ref(self.itemps)
        elif r < 0.8:
            base = f"IMM[{rng.choice(self.int_imms)}]"
        elif r < 0.88 and self.sv is not None:
            base = "SV[0]"
        elif r < 0.95:
            base = self.const_ref()
        else:
            base = self.in_ref()
        text = base + self.swz4()
        if self.chance(0.1):
            text = "-" + text            # two's complement negation (tgsi.md 6.4 item 22)
        return text

    def fdst(self) -> str:
        if self.chance(0.15) and self.outputs:
            return self.rng.choice(self.outputs) + self.wmask()
        return self.temp_ref(self.ftemps, write=True) + self.wmask()

    def idst(self) -> str:
        return self.temp_ref(self.itemps, write=True) + self.wmask()

    # ---- emission ----------------------------------------------------------------------------
    def ins(self, text: str, nest_after: int = 0, nest_before: int = 0) -> int:
        """Append one instruction; returns its index (CAL labels name instruction indices)."""
        self.depth += nest_before
        self.insts.append((self.depth, text))
        self.depth += nest_after
        self.count += 1
        return len(self.insts) - 1

    # ---- statements --------------------------------------------------------------------------
    def float_op(self) -> None:
        rng = self.rng
        ops = [o for o in FLOAT_OPS if self.has("transcendental") or o not in TRANSCENDENTAL]
        op = rng.choice(ops)
        srcs = [self.fsrc() for _ in range(FLOAT_OPS[op])]
        sat = "_SAT" if self.chance(0.12) else ""
        self.ins(f"{op}{sat} {self.fdst()}, {', '.join(srcs)}")

    def int_op(self) -> None:
        rng = self.rng
        ops = [o for o in INT_OPS if (self.has("intdiv") or o not in INT_DIV)
               and (self.has("shift") or o not in SHIFTS)]
        op = rng.choice(ops)
        srcs = [self.isrc() for _ in range(INT_OPS[op])]
        if op.endswith("MUL_HI") and all(s.lstrip("-").startswith("IMM[") for s in srcs):
            # not both operands immediates: Mesa 22.3's GLSL compiler folds the high product
            # of constants wrongly -- pinned by tests/test_verify_cases.py::
            # test_mulhi_of_constants; the localization names it only when its probe lands
            srcs[0] = self.temp_ref(self.itemps) + self.swz4()
        self.ins(f"{op} {self.idst()}, {', '.join(srcs)}")

    def convert(self) -> None:
        rng = self.rng
        if self.chance(0.5):
            op = rng.choice(list(FLOAT_TO_INT))
            srcs = [self.fsrc() for _ in range(FLOAT_TO_INT[op])]
            self.ins(f"{op} {self.idst()}, {', '.join(srcs)}")
        else:
            op = rng.choice(list(INT_TO_FLOAT))
            self.ins(f"{op} {self.fdst()}, {self.isrc()}")

    def address(self) -> None:
        if self.chance(0.5) or not self.itemps:
            self.ins(f"ARL ADDR[0]{self.wmask()}, {self.fsrc()}")
        else:
            self.ins(f"UARL ADDR[0]{self.wmask()}, {self.isrc()}")

    def interp_op(self) -> None:
        """INTERP_CENTROID / INTERP_SAMPLE / INTERP_OFFSET of a varying, drawn from the third
        stream (the harness feeds the varyings they read as planes: xlate/verify/planes.py)."""
        main, self.rng = self.rng, self.interp_rng
        try:
            rng = self.rng
            neg = "-" if self.chance(0.2) else ""
            src = f"{neg}IN[{rng.randrange(self.varyings)}]{self.swz4()}"
            op = rng.choice(["INTERP_CENTROID", "INTERP_SAMPLE", "INTERP_OFFSET",
                             "INTERP_OFFSET"])
            if op == "INTERP_CENTROID":
                self.ins(f"{op} {self.fdst()}, {src}")
            elif op == "INTERP_SAMPLE":
                c = rng.choice(XYZW)
                self.ins(f"{op} {self.fdst()}, {src}, IMM[{self.sample_imm}].{c * 4}")
            else:
                self.ins(f"{op} {self.fdst()}, {src}, IMM[{self.offset_imm}].{self.swz4_letters()}")
        finally:
            self.rng = main

    def swz4_letters(self) -> str:
        return "".join(self.rng.choice(XYZW) for _ in range(4))

    def lane_op(self) -> None:
        """VOTE_ANY/VOTE_ALL/VOTE_EQ and BALLOT of an integer word into the integer
        temporaries, READ_FIRST and READ_INVOC (an immediate invocation number, so uniform) of
        a float operand; drawn from the fourth stream (verify learns the subgroups from a
        probe: xlate/verify/subgroups.py)."""
        main, self.rng = self.rng, self.lane_rng
        try:
            rng = self.rng
            op = rng.choice(["VOTE_ANY", "VOTE_ALL", "VOTE_EQ", "BALLOT", "READ_FIRST",
                             "READ_INVOC"])
            if op.startswith("VOTE") or op == "BALLOT":
                if not self.itemps:
                    return
                self.ins(f"{op} {self.idst()}, {self.isrc()}")
            elif op == "READ_FIRST":
                self.ins(f"{op} {self.fdst()}, {self.fsrc()}")
            else:
                c = rng.choice(XYZW)
                self.ins(f"{op} {self.fdst()}, {self.fsrc()}, IMM[{self.sample_imm}].{c * 4}")
        finally:
            self.rng = main

    def fragment_op(self) -> None:
        if self.has("interp") and self.varyings and self.interp_rng.random() < 0.15:
            self.interp_op()
        if self.has("lanes") and self.lane_rng.random() < 0.1:
            self.lane_op()
        rng = self.rng
        r = rng.random()
        if r < 0.2 and self.has("kill"):
            if self.chance(0.2):
                self.ins("KILL")
            else:
                self.ins(f"KILL_IF {self.fsrc()}")
        elif r < 0.35 and self.has("derivative") and self.uniform_flow():
            self.ins(f"{rng.choice(['DDX', 'DDY'])} {self.fdst()}, {self.fsrc()}")
        elif r < 0.6 and self.has("double") and self.itemps:
            self.double_op()
        elif self.has("tex"):
            unit = rng.choice(sorted(self.samplers))
            target = self.samplers[unit]
            ops = ["TEX", "TEX", "TXP", "TXB", "TXL"]
            if unit in self.sviews:
                ops += ["SAMPLE", "SAMPLE", "SAMPLE_L", "SAMPLE_B"]
            if target in GATHER_TARGETS:
                ops.append("TG4")
            op = rng.choice(ops)
            if not self.uniform_flow() and op not in ("TXL", "SAMPLE_L", "TG4"):
                op = "TXL"           # implicit derivatives are undefined in non-uniform flow
            if op.startswith("SAMPLE"):
                extra = f", {self.fsrc()}" if op != "SAMPLE" else ""
                self.ins(f"{op} {self.fdst()}, {self.fsrc()}, SVIEW[{unit}], SAMP[{unit}]{extra}")
            elif op == "TG4":
                comp = f"IMM[{self.comp_imm}].{XYZW[rng.randrange(4)] * 4}"
                self.ins(f"TG4 {self.fdst()}, {self.fsrc()}, {comp}, SAMP[{unit}], {target}")
            else:
                self.ins(f"{op} {self.fdst()}, {self.fsrc()}, SAMP[{unit}], {target}")
            if self.tex_rng.random() < 0.5:
                main, self.rng = self.rng, self.tex_rng
                try:
                    self.extra_tex_op()
                finally:
                    self.rng = main
        else:
            self.float_op()

    def extra_tex_op(self) -> None:
        """Issue 20's texture forms, drawn from the second stream: on the extra unit's cube
        array TXL2 / TXQ, on its multisample texture TXF / SAMPLE_I_MS (the coordinate masked
        into the 8x8 texels, 4 layers and 4 samples the harness creates) / TXQS / TXQ, and
        LODQ on the first units' 1D/2D/3D textures."""
        rng = self.rng
        lodq = [u for u, t in self.samplers.items() if t in LODQ_TARGETS]
        if lodq and self.uniform_flow() and (self.extra_target is None or self.chance(0.3)):
            u = rng.choice(lodq)
            self.ins(f"LODQ {self.fdst()}, {self.fsrc()}, SAMP[{u}], {self.samplers[u]}")
            return
        target, u = self.extra_target, EXTRA_UNIT
        if target is None:
            return
        if target == "CUBEARRAY":
            if self.chance(0.8):
                self.ins(f"TXL2 {self.fdst()}, {self.fsrc()}, {self.fsrc()}, SAMP[{u}], {target}")
            else:
                self.ins(f"TXQ {self.fdst()}, IMM[{self.comp_imm}].xxxx, SAMP[{u}], {target}")
            return
        r = rng.random()
        if r < 0.5 and self.itemps:
            t = rng.choice(self.itemps)
            self.ins(f"AND TEMP[{t}], {self.isrc()}, IMM[{self.ms_imm}]")
            if self.chance(0.5):
                self.ins(f"TXF {self.fdst()}, TEMP[{t}], SAMP[{u}], {target}")
            else:
                self.ins(f"SAMPLE_I_MS {self.fdst()}, TEMP[{t}], SVIEW[{u}], "
                         f"TEMP[{t}].{rng.choice(XYZW) * 4}")
        elif r < 0.8:
            self.ins(f"TXQS {self.idst() if self.itemps else self.fdst()}, SAMP[{u}], {target}")
        else:
            self.ins(f"TXQ {self.fdst()}, IMM[{self.comp_imm}].xxxx, SAMP[{u}], {target}")

    def double_op(self) -> None:
        """A double-precision opcode on the integer temporaries (words: a double in xy and one
        in zw), or a conversion between doubles and floats / integers."""
        rng = self.rng
        op = rng.choice(sorted(DOUBLE_OPS))
        if op in ("F2D", "F2I64"):
            self.ins(f"{op} {self.idst()}, {self.fsrc()}")
        elif op == "I642F":
            self.ins(f"I642F {self.fdst()}, {self.isrc().lstrip('-')}")
        elif op == "D2F":
            self.ins(f"D2F {self.fdst()}, {self.isrc()}")
        elif op == "DFRACEXP":
            a, b = rng.sample(self.itemps, 2) if len(self.itemps) > 1 else (self.itemps[0],) * 2
            if a == b:
                self.ins(f"DFRACEXP TEMP[{a}].xy, TEMP[{a}].zw, {self.isrc()}")
            else:
                self.ins(f"DFRACEXP TEMP[{a}], TEMP[{b}], {self.isrc()}")
        else:
            srcs = [self.isrc() for _ in range(DOUBLE_OPS[op])]
            if op in INT64_OPS:
                srcs = [x.lstrip("-") for x in srcs]
            self.ins(f"{op} {self.idst()}, {', '.join(srcs)}")

    def modern_op(self) -> None:
        """One opcode of issue 20's remaining groups, drawn from the fifth stream: bitfield,
        FMA/LDEXP and pack/unpack in every processor; in fragment programs also DEMOTE (under
        a condition), READ_HELPER, DDX_FINE/DDY_FINE and the texture forms of
        :meth:`modern_tex_op`."""
        main, self.rng = self.rng, self.modern_rng
        try:
            groups = ["float"] + (["bitfield", "bitfield", "pack"] if self.itemps else [])
            if self.frag:
                groups += ["fragment"] * 3
            group = self.rng.choice(groups)
            if group == "float":
                if self.chance(0.5):
                    self.ins(f"FMA {self.fdst()}, {self.fsrc()}, {self.fsrc()}, {self.fsrc()}")
                else:
                    self.ins(f"LDEXP {self.fdst()}, {self.fsrc()}, {self.isrc()}")
            elif group == "bitfield":
                op = self.rng.choice(sorted(BITFIELD_OPS))
                srcs = [self.isrc() for _ in range(BITFIELD_OPS[op])]
                self.ins(f"{op} {self.idst()}, {', '.join(srcs)}")
            elif group == "pack":
                if self.chance(0.5):
                    self.ins(f"{self.rng.choice(PACK_OPS)} {self.idst()}, {self.fsrc()}")
                else:
                    self.ins(f"{self.rng.choice(UNPACK_OPS)} {self.fdst()}, {self.isrc()}")
            else:
                self.modern_fragment_op()
        finally:
            self.rng = main

    def modern_fragment_op(self) -> None:
        rng = self.rng
        r = rng.random()
        if r < 0.1 and self.has("kill"):
            # a condition, so that some lanes stay: a demoted lane's outputs are discarded (the
            # verifier compares who was discarded, as for KILL) but it goes on running, so the
            # derivatives its quad takes after it stay defined
            op, src = self.cond_src()
            self.ins(f"{op} {src} :0", nest_after=1)
            self.ins("DEMOTE")
            self.ins("ENDIF", nest_before=-1)
        elif r < 0.2 and self.itemps:
            self.ins(f"READ_HELPER {self.idst()}")
        elif r < 0.35 and self.has("derivative") and self.uniform_flow():
            self.ins(f"{rng.choice(['DDX_FINE', 'DDY_FINE'])} {self.fdst()}, {self.fsrc()}")
        elif self.has("tex") and self.samplers:
            self.modern_tex_op()

    def modern_tex_op(self) -> None:
        """SAMPLE_D on the first units' sampler views (explicit derivatives: any flow), on the
        fourth unit SAMPLE_C / SAMPLE_C_LZ (a depth texture the harness makes for a shadow
        target: xlate/verify/textures.py), TEX2 (SHADOWCUBEARRAY) and TXB2 (SHADOWCUBE), and
        TXB2 on the third unit's cube array.  The implicit-derivative forms only in uniform
        flow (undefined elsewhere)."""
        rng = self.rng
        uniform = self.uniform_flow()
        choices = []
        if self.sviews:
            choices.append("SAMPLE_D")
        t = self.compare_target
        if t in SHADOW_CUBE_TARGETS:
            if uniform:
                choices += ["COMPARE"] * 3
        elif t is not None and (uniform or t in COMPARE_LZ_TARGETS):
            choices += ["COMPARE"] * 3
        if self.extra_target == "CUBEARRAY" and uniform:
            choices.append("TXB2")
        if not choices:
            return
        kind = rng.choice(choices)
        u = COMPARE_UNIT
        if kind == "SAMPLE_D":
            v = rng.choice(sorted(self.sviews))
            self.ins(f"SAMPLE_D {self.fdst()}, {self.fsrc()}, SVIEW[{v}], SAMP[{v}], "
                     f"{self.fsrc()}, {self.fsrc()}")
        elif kind == "TXB2":
            self.ins(f"TXB2 {self.fdst()}, {self.fsrc()}, {self.fsrc()}, SAMP[{EXTRA_UNIT}], "
                     f"{self.extra_target}")
        elif t == "SHADOWCUBEARRAY":
            self.ins(f"TEX2 {self.fdst()}, {self.fsrc()}, {self.fsrc()}, SAMP[{u}], {t}")
        elif t == "SHADOWCUBE":
            self.ins(f"TXB2 {self.fdst()}, {self.fsrc()}, {self.fsrc()}, SAMP[{u}], {t}")
        else:
            op = "SAMPLE_C_LZ" if t in COMPARE_LZ_TARGETS and (
                not uniform or self.chance(0.4)) else "SAMPLE_C"
            self.ins(f"{op} {self.fdst()}, {self.fsrc()}, SVIEW[{u}], SAMP[{u}], {self.fsrc()}")

    def uniform_flow(self) -> bool:
        return self.depth == 0 and self.routine == 0

    def cond_src(self) -> tuple[str, str]:
        if self.itemps and self.chance(0.4):
            return "UIF", self.isrc()
        return "IF", self.fsrc()

    def if_block(self) -> None:
        rng = self.rng
        op, src = self.cond_src()
        self.ins(f"{op} {src} :0", nest_after=1)
        self.body(rng.randint(1, 3))
        if self.chance(0.5):
            self.ins("ELSE :0", nest_before=-1, nest_after=1)
            self.body(rng.randint(1, 3))
        self.ins("ENDIF", nest_before=-1)

    def loop(self) -> None:
        rng = self.rng
        c = self.counters.pop(0)
        ci = self.loop_imm
        if self.chance(0.6):
            self.ins(f"MOV TEMP[{c}].x, IMM[{ci}].{rng.choice('yz') * 4}")
        else:
            # 3 at most, fewer (or none) depending on the inputs
            self.ins(f"F2I TEMP[{c}].x, {self.fsrc()}")
            self.ins(f"IMIN TEMP[{c}].x, TEMP[{c}].xxxx, IMM[{ci}].zzzz")
        self.ins("BGNLOOP :0", nest_after=1)
        self.ins(f"ISGE TEMP[{c}].y, IMM[{ci}].xxxx, TEMP[{c}].xxxx")
        self.ins(f"UIF TEMP[{c}].yyyy :0", nest_after=1)
        self.ins("BRK")
        self.ins("ENDIF", nest_before=-1)
        self.ins(f"UADD TEMP[{c}].x, TEMP[{c}].xxxx, IMM[{ci}].wwww")
        self.loop_depth += 1
        saved = self.switch_depth
        self.switch_depth = 0
        self.body(rng.randint(1, 4))
        self.switch_depth = saved
        self.loop_depth -= 1
        self.ins("ENDLOOP :0", nest_before=-1)

    def switch(self) -> None:
        rng = self.rng
        k = rng.choice(self.case_imms)
        values = self.imms[k][1]
        self.ins(f"SWITCH {self.isrc()}", nest_after=1)
        self.switch_depth += 1
        comps = rng.sample(range(4), rng.randint(1, 3))
        seen = set()
        for comp in comps:
            if values[comp] in seen:
                continue
            seen.add(values[comp])
            self.ins(f"CASE IMM[{k}].{XYZW[comp] * 4}")
            self.body(rng.randint(0, 2))
            if self.chance(0.8):
                self.ins("BRK")
        if self.chance(0.5):
            self.ins("DEFAULT")
            self.body(1)
            self.ins("BRK")
        self.switch_depth -= 1
        self.ins("ENDSWITCH", nest_before=-1)

    def statement(self) -> None:
        if self.has("modern") and self.modern_rng.random() < 0.12:
            self.modern_op()
        if self.has("coverage") and self.cover_rng.random() < 0.08:
            self.coverage_op()
        rng = self.rng
        r = rng.random()
        flow = self.has("flow")
        nest = self.depth < 5
        if flow and r < 0.07 and nest:
            self.if_block()
        elif flow and r < 0.11 and nest and self.counters and self.loop_depth < 2:
            self.loop()
        elif flow and r < 0.13 and nest and self.itemps:
            self.switch()
        elif flow and r < 0.18 and (self.loop_depth or self.switch_depth):
            op, src = self.cond_src()
            jump = "BRK" if self.switch_depth or not self.loop_depth or self.chance(0.5) else "CONT"
            self.ins(f"{op} {src} :0", nest_after=1)
            self.ins(jump)
            self.ins("ENDIF", nest_before=-1)
        elif flow and r < 0.19 and self.routine < self.nsubs:
            target = rng.randint(self.routine + 1, self.nsubs)
            k = self.ins("CAL :?")
            self.cal_fixups.append((k, target))
        elif flow and r < 0.2 and not (self.comp and self.routine == 0):
            # (a compute program's main does not return early: every invocation of a
            # workgroup must reach its BARRIERs)
            op, src = self.cond_src()
            self.ins(f"{op} {src} :0", nest_after=1)
            self.ins("RET")
            self.ins("ENDIF", nest_before=-1)
        elif self.addr and r < 0.26:
            self.address()
        elif self.frag and r < 0.42:
            self.fragment_op()
        elif self.comp and r < 0.42:
            self.memory_op()
        elif self.itemps and r < 0.40:
            self.convert()
        elif self.itemps and r < 0.55:
            self.int_op()
        else:
            self.float_op()

    def body(self, n: int) -> None:
        for _ in range(n):
            if self.count > 400:
                return
            self.statement()

    # ---- program ---------------------------------------------------------------------------
    def memory_op(self) -> None:
        raise NotImplementedError("memory opcodes are written by compute programs "
                                  "(tgsi_compute.py)")

    def declarations(self) -> list[str]:
        d = self.stage_declarations()
        self.common_declarations(d)
        return d

    def stage_declarations(self) -> list[str]:
        """The processor, its properties, inputs, outputs and system values."""
        rng = self.rng
        d = [PROC[self.stage]]
        if self.geom:
            prim = rng.choice(list(GS_IN))
            self.nverts = GS_IN[prim]
            self.out_prim = rng.choice(GS_OUT)
            self.max_vertices = rng.randint(1, 6)
            d += [f"PROPERTY GS_INPUT_PRIMITIVE {prim}",
                  f"PROPERTY GS_OUTPUT_PRIMITIVE {self.out_prim}",
                  f"PROPERTY GS_MAX_OUTPUT_VERTICES {self.max_vertices}"]
        if self.tes:
            self.nverts = rng.randint(1, 4)
            d += [f"PROPERTY TES_PRIM_MODE {rng.choice([4, 7, 1])}",
                  f"PROPERTY TES_SPACING {rng.randrange(3)}",
                  f"PROPERTY TES_VERTEX_ORDER_CW {rng.randrange(2)}",
                  f"PROPERTY TES_POINT_MODE {int(self.chance(0.2))}"]
        if self.tcs:
            self.nverts = rng.randint(1, 4)
            self.vertices_out = rng.randint(1, 4)
            d.append(f"PROPERTY TCS_VERTICES_OUT {self.vertices_out}")
        for i in range(self.nin):
            if self.stage == "vertex":
                d.append(f"DCL IN[{i}]")
            elif self.geom or self.tes or self.tcs:
                sem = "POSITION" if i == 0 else f"GENERIC[{i}]"
                d.append(f"DCL IN[][{i}], {sem}")
            else:
                sems = [f"GENERIC[{i}]", f"TEXCOORD[{i}]"] + ([f"COLOR[{i - 1}]"] if i <= 2 else [])
                sem = rng.choice(sems) if i else "GENERIC[0]"
                interp = rng.choice([", PERSPECTIVE", ", PERSPECTIVE", ", LINEAR", ", CONSTANT"])
                d.append(f"DCL IN[{i}], {sem}{interp}")
        if self.tes:
            d += [f"DCL IN[{self.nin}], PATCH[0]", f"DCL IN[{self.nin + 1}], TESSOUTER",
                  f"DCL IN[{self.nin + 2}], TESSINNER", "DCL SV[0], TESSCOORD"]
        self.varyings = self.nin
        if self.frag and self.chance(0.3):
            d.append(f"DCL IN[{self.nin}], POSITION, LINEAR")
            self.nin += 1
        # outputs
        if self.tcs:
            # per-vertex outputs written to the invocation's own vertex (ADDR[1].x holds
            # INVOCATIONID), the outer levels and a per-patch varying (lower_tess.py)
            n = rng.randint(1, 3)
            for i in range(n):
                sem = "POSITION" if i == 0 else f"GENERIC[{i}]"
                d.append(f"DCL OUT[][{i}], {sem}")
            d += [f"DCL OUT[{n}], TESSOUTER", f"DCL OUT[{n + 1}], PATCH[0]",
                  "DCL SV[0], INVOCATIONID", "DCL ADDR[1]"]
            self.outputs = [f"OUT[ADDR[1].x][{i}]" for i in range(n)] + [f"OUT[{n}]",
                                                                         f"OUT[{n + 1}]"]
            self.sv = "INVOCATIONID"
        elif self.frag:
            self.outputs = ["OUT[0]"]
            d.append("DCL OUT[0], COLOR")
            if self.chance(0.15):
                d.append("DCL OUT[1], POSITION")
                self.outputs.append("OUT[1]")      # depth: only z is meaningful
        else:
            d.append("DCL OUT[0], POSITION")
            self.outputs = ["OUT[0]"]
            for i in range(1, rng.randint(2, 4)):
                sem = rng.choice([f"GENERIC[{i}]", "COLOR" if i == 1 else f"GENERIC[{i}]",
                                  f"TEXCOORD[{i}]"])
                d.append(f"DCL OUT[{i}], {sem}")
                self.outputs.append(f"OUT[{i}]")
        if self.stage == "vertex" and self.has("int") and self.chance(0.3):
            d.append("DCL SV[0], VERTEXID")
            self.sv = "VERTEXID"
        return d

    def common_declarations(self, d: list[str]) -> None:
        """Samplers, constants, temporaries, the address register and the immediates."""
        rng = self.rng
        if self.frag and self.has("tex"):
            for u in range(rng.randint(1, 2)):
                d.append(f"DCL SAMP[{u}]")
                self.samplers[u] = rng.choice(TEX_TARGETS)
                if self.chance(0.5):
                    d.append(f"DCL SVIEW[{u}], {self.samplers[u]}, FLOAT")
                    self.sviews.add(u)
            self.comp_imm = self.imm("UINT32", [0, 1, 2, 3])      # TG4's component
            if self.tex_rng.random() < 0.5:
                self.extra_target = self.tex_rng.choice(EXTRA_TARGETS)
                d.append(f"DCL SAMP[{EXTRA_UNIT}]")
                d.append(f"DCL SVIEW[{EXTRA_UNIT}], {self.extra_target}, FLOAT")
            if self.has("modern") and self.modern_rng.random() < 0.6:
                self.compare_target = self.modern_rng.choice(
                    SHADOW_CUBE_TARGETS if self.modern_rng.random() < 0.4 else COMPARE_TARGETS)
                d.append(f"DCL SAMP[{COMPARE_UNIT}]")
                d.append(f"DCL SVIEW[{COMPARE_UNIT}], {self.compare_target}, FLOAT")
        d.append(f"DCL CONST[0..{self.nconst - 1}]" if self.chance(0.6)
                 else f"DCL CONST[0][0..{self.nconst - 1}]")
        if self.cbuf1:
            d.append("DCL CONST[1][0..3]")
        nloops = self.max_loops if self.has("flow") else 0
        # reserved temporaries a processor adds after the loop counters (compute: the texel
        # coordinates of tgsi_compute.py's resource stream)
        self.first_extra_temp = self.ntemp + nloops
        last = self.first_extra_temp + self.extra_temps - 1
        d.append(f"DCL TEMP[0..{last}]" + (", LOCAL" if self.chance(0.3) else ""))
        if self.addr:
            d.append("DCL ADDR[0]")
        # immediates
        self.hex_floats = self.chance(0.25)
        self.float_imms = [self.imm("FLT32", [float(fconst(rng)) for _ in range(4)])
                           for _ in range(rng.randint(1, 3))]
        self.loop_imm = self.imm("INT32", [0, 1, rng.choice([2, 3]), -1])
        self.int_imms = [self.loop_imm]
        self.case_imms = []
        if self.has("int"):
            k = self.imm("INT32", [rng.choice([0, 1, 2, 3, -1, 5, 7, 16, 31, 255, -8])
                                   for _ in range(4)])
            self.int_imms.append(k)
            self.case_imms.append(k)
            u = self.imm("UINT32", [rng.choice([0, 1, 3, 8, 32, 0xFF, 0xFFFF, 0x80000000,
                                                0xFFFFFFFF]) for _ in range(4)])
            self.int_imms.append(u)
            self.case_imms.append(u)
        if self.geom:
            self.stream_imm = self.loop_imm          # x = 0: vertex stream 0
        if self.extra_target in ("2D_MSAA", "2D_ARRAY_MSAA"):
            # TXF / SAMPLE_I_MS coordinate masks (x, y < 8; layer, sample < 4)
            self.ms_imm = self.imm("UINT32", [7, 7, 3, 3])
        if self.frag and self.has("interp"):
            # INTERP_OFFSET offsets: sixteenths of a pixel within [-0.5, 0.4375] (GLSL 4.50
            # 8.13.2: coarser steps are implementation-defined, farther ones undefined);
            # INTERP_SAMPLE sample numbers (single-sampled: any is the centre)
            irng = self.interp_rng
            self.offset_imm = self.imm("FLT32", [irng.randint(-8, 7) / 16 for _ in range(4)])
            self.sample_imm = self.imm("INT32", [0, 1, 3, irng.randint(0, 15)])
        elif self.frag:
            self.sample_imm = self.imm("INT32", [0, 1, 3, 2])
        self.stage_immediates()
        if self.frag and self.has("tex") and self.has("coverage"):
            # SAMPLE_I's coordinate mask: texels 0..7 of level 0 (verify's textures are 8 a side)
            self.fetch_imm = self.imm("UINT32", [7, 7, 7, 0])
        d += [self.imm_text(k) for k in range(len(self.imms))]

    def stage_immediates(self) -> None:
        """Immediates a processor's own statements use (compute: tgsi_compute.py)."""

    def prologue(self) -> None:
        rng = self.rng
        # define every temporary (TGSI does not), the address register and the outputs
        for t in self.ftemps:
            self.ins(f"MOV TEMP[{t}], {self.in_ref()}{self.swz4()}")
        for t in self.itemps:
            op = rng.choice(["F2I", "F2U", "MOV"])
            src = self.in_ref() + self.swz4() if op != "MOV" else f"IMM[{rng.choice(self.int_imms)}]"
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
