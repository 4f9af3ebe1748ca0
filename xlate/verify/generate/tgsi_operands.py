"""The TGSI generator's operands and its instruction list (part of :class:`.tgsi.TGSIGen`).

What every statement builder draws its operands from: the immediates (``IMM`` declarations,
``FLT32`` sometimes in the raw-bits hex form), swizzles and write masks in the syntax Mesa prints
(exactly four swizzle letters, ordered masks), references to ``CONST`` (both buffers, relative
through ``ADDR[0]``), ``IN`` (per vertex in geometry and tessellation processors, the patch's
levels and ``TESSCOORD`` in evaluation ones), ``TEMP`` (relative reads only), and the float /
integer sources and destinations built from them; and :meth:`OperandOps.ins`, which appends an
instruction with its nesting.

Why relative ``TEMP`` access only reads: a write could land on a loop counter and break the
termination guarantee (:mod:`.tgsi_flow`).
"""
from __future__ import annotations

import struct

from .common import XYZW


def _f32_hex(v: float) -> str:
    return "0x%08x" % struct.unpack("<I", struct.pack("<f", v))[0]


class OperandOps:
    """Operands, immediates and emission (methods of :class:`.tgsi.TGSIGen`)."""

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

    def swz4_letters(self) -> str:
        return "".join(self.rng.choice(XYZW) for _ in range(4))

