"""The TGSI generator's statement draw and its control flow (part of :class:`.tgsi.TGSIGen`):
:meth:`FlowOps.statement` picks each statement (inserting the fifth and seventh streams'
first), and the flow builders write ``IF``/``UIF``/``ELSE``/``ENDIF``, counted
``BGNLOOP``/``ENDLOOP`` with ``BRK``/``CONT``, ``SWITCH``/``CASE``/``DEFAULT``, ``CAL`` of a
later subroutine and a conditional ``RET``.

Why the loops terminate: each loop owns a reserved ``TEMP`` whose x is set before ``BGNLOOP``
and tested and decremented first thing in the body (so ``CONT`` cannot skip the decrement), and
no other instruction writes it.  Subroutines call later subroutines only (no recursion).
"""
from __future__ import annotations

from .common import XYZW


class FlowOps:
    """Statement choice and flow builders (methods of :class:`.tgsi.TGSIGen`)."""

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

    def memory_op(self) -> None:
        raise NotImplementedError("memory opcodes are written by compute programs "
                                  "(tgsi_compute.py)")
