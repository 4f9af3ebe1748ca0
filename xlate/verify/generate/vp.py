"""NV_vertex_program family in its own register syntax: ``!!VP1.0``, ``!!VP1.1``, ``!!VSP1.0``
and ``!!VP2.0`` (VP1 2.14.1, VP11, VP2 2.14.1-2.14.3; nv_dialects.md 3.1, 3.2, 7.1, 8.1).

What the programs exercise:

* all dialects: ``c[n]``/``v[n]``/``v[NRML]``-style attribute mnemonics/``o[NAME]`` registers,
  swizzles (``.c`` and ``.cccc``), negation, write masks, ``ARL A0.x`` and relative reads
  ``c[A0.x + k]`` / ``c[A0.x - k]`` (VP1: an index outside 0..95 reads (0,0,0,0) -- defined,
  so out-of-range indices are generated on purpose), DST/LIT/EXP/LOG; 1.1 adds ABS/DPH/RCC/SUB,
  ``+`` signs and sometimes ``OPTION NV_position_invariant`` (then no HPOS write and no relative
  addressing, VP11 2.14.B);
* ``!!VSP1.0``: the vertex-state form -- reads ``v[0]`` only and writes ``c[n]`` (absolute);
* ``!!VP2.0``: ``R0``-``R15``, 256 parameters, ``A0``/``A1`` with masked vector ARL/ARR, ARA,
  relative reads through any address component (offsets -256..255), the condition code (``C``
  suffix on every value-producing opcode, ``CC`` as a destination, conditional write masks
  ``(GT.x)``), ``|abs|`` operands, the set-on/SSG/FLR/FRC/EX2/LG2/SIN/COS opcodes, labels,
  conditional ``BRA``/``CAL``/``RET``, subroutines placed before a ``main:`` label now and then.

The rules every program keeps (VP1 2.14.1.7-2.14.1.11, VP2 2.14.1.8): at most one distinct
``c[]`` and one distinct ``v[]`` register per instruction; scalar operands carry a one-component
selector; ``o[HPOS]`` is written (unless position-invariant); the instruction limit (128, 124
position-invariant; VP2 256, 252) with a wide margin.

Termination in VP2 (the executed-instruction limit of 65536 is never approached): ``R15`` is
never written and so stays (0,0,0,0); ``R14`` = (1,1,1,1) is made from it (``SGE R14, R15,
R15``); each loop owns one component of ``R12``/``R13`` as its counter (set to 1..3, or 1..2
depending on the inputs, just before its head label), decremented by ``ADDC`` before the only
backward branch (``BRA head (GT.c)``).  Other branches go forward, within their routine;
subroutines only call later subroutines (call depth <= 3 < 4).  A forward branch may land
inside a later loop's body (an irreducible graph for the structurizer): that loop's counter
then holds 0 or what an earlier pass left, at most its initial count, so it still ends.
"""
from __future__ import annotations

import random

from ...ir.ops import shapes
from .common import Gen, XYZW, mask, swz

VP10_OPS = ("MOV", "MUL", "ADD", "MAD", "RCP", "RSQ", "DP3", "DP4", "DST", "MIN", "MAX", "SLT",
            "SGE", "EXP", "LOG", "LIT", "ARL")
VP11_OPS = VP10_OPS + ("ABS", "DPH", "RCC", "SUB")
VP20_OPS = VP11_OPS + ("ARA", "ARR", "COS", "EX2", "FLR", "FRC", "LG2", "SEQ", "SFL", "SGT",
                       "SIN", "SLE", "SNE", "SSG", "STR")
#: operand shapes (xlate.frontends.nv.legacy_vertex.SIGNATURES, restated so that the generator does not
#: follow a frontend change silently)
SHAPES = shapes("""
    ABS FLR FRC LIT MOV SSG COS EX2 EXP LG2 LOG RCC RCP RSQ SIN ADD DP3 DP4 DPH DST MAX MIN
    MUL SEQ SFL SGE SGT SLE SLT SNE STR SUB MAD
""".split())
TRANSCENDENTAL = {"EX2", "LG2", "SIN", "COS", "EXP", "LOG", "LIT"}
CC_RULES = ("EQ", "GE", "GT", "LE", "LT", "NE", "TR", "FL")
ATTRIB_NAMES = ["OPOS", "WGHT", "NRML", "COL0", "COL1", "FOGC"] + [f"TEX{i}" for i in range(8)]
RESULTS = ["COL0", "COL1", "BFC0", "BFC1", "FOGC", "PSIZ"] + [f"TEX{i}" for i in range(8)]
VP2_RESULTS = [f"CLP{i}" for i in range(6)]

DIALECTS = {"vp1.0": "!!VP1.0", "vp1.1": "!!VP1.1", "vsp1.0": "!!VSP1.0", "vp2.0": "!!VP2.0"}


class VPGen(Gen):
    def __init__(self, rng: random.Random, size: int, avoid, dialect: str):
        super().__init__(rng, size, avoid)
        self.dialect = dialect
        self.vp2 = dialect == "vp2.0"
        self.vsp = dialect == "vsp1.0"
        self.ops = {"vp1.0": VP10_OPS, "vp1.1": VP11_OPS, "vsp1.0": VP10_OPS,
                    "vp2.0": VP20_OPS}[dialect]
        if not self.has("transcendental"):
            self.ops = tuple(o for o in self.ops if o not in TRANSCENDENTAL)
        self.nparams = 256 if self.vp2 else 96
        self.temps = [f"R{i}" for i in range(12)]          # VP2: R12-R15 are reserved
        self.addr = ["A0", "A1"] if self.vp2 else ["A0"]
        self.posinv = dialect in ("vp1.1", "vp2.0") and self.chance(0.15)
        # relative addressing: not with VP1.1's position-invariant option (VP11 2.14.B)
        self.relative = self.has("relative") and not (self.posinv and dialect == "vp1.1")
        if not self.relative:
            self.ops = tuple(o for o in self.ops if o not in ("ARL", "ARR", "ARA"))
        self.limit = (124 if self.posinv else 128) if not self.vp2 else (252 if self.posinv else 256)
        self.results = RESULTS + (VP2_RESULTS if self.vp2 else [])
        # control flow (VP2)
        self.counters = [f"R{r}.{c}" for r in (12, 13) for c in XYZW]
        self.nlabels = 0
        self.routine = 0             # index of the routine being written (0 = main)
        self.nsubs = 0
        self.pending: list[str] = []  # forward labels of the current routine not yet placed
        self.loop_depth = 0
        self.cc = False              # some instruction updated the condition code
        # per instruction: the one c[] and the one v[] register it may read
        self.cur_c: str | None = None
        self.cur_v: str | None = None

    # ---- operands ---------------------------------------------------------------------------
    def param_ref(self) -> str:
        rng = self.rng
        if self.relative and self.chance(0.35):
            a = rng.choice(self.addr)
            comp = rng.choice(XYZW) if self.vp2 else "x"
            lo, hi = (-256, 255) if self.vp2 else (-64, 63)
            # mostly offsets that keep small address values in range; sometimes the extremes
            # (VP1 reads outside 0..95 as zero, VP2 leaves them undefined)
            off = rng.randint(0, 20) if self.chance(0.8) else rng.randint(lo, hi)
            if off == 0 and self.chance(0.5):
                return f"c[{a}.{comp}]"
            return f"c[{a}.{comp} {'-' if off < 0 else '+'} {abs(off)}]"
        return f"c[{rng.randrange(self.nparams if self.chance(0.2) else 24)}]"

    def attrib_ref(self) -> str:
        if self.vsp:
            return "v[0]"
        rng = self.rng
        if self.chance(0.4):
            return f"v[{rng.choice(ATTRIB_NAMES)}]"
        return f"v[{rng.randrange(16)}]"

    def src(self, scalar: bool = False) -> str:
        rng = self.rng
        r = rng.random()
        if r < 0.5:
            base = rng.choice(self.temps)
        elif r < 0.75:
            if self.cur_v is None:
                self.cur_v = self.attrib_ref()
            base = self.cur_v
        else:
            if self.cur_c is None:
                self.cur_c = self.param_ref()
            base = self.cur_c
        text = base + ("." + rng.choice(XYZW) if scalar else swz(rng))
        if self.vp2 and self.chance(0.12):
            text = f"|{text}|"
        if self.chance(0.25):
            text = "-" + text
        elif self.dialect != "vp1.0" and self.dialect != "vsp1.0" and self.chance(0.05):
            text = "+" + text
        return text

    def cond(self) -> str:
        return self.rng.choice(CC_RULES) + swz(self.rng)

    def dest(self) -> str:
        rng = self.rng
        r = rng.random()
        if self.vsp and r < 0.25:
            base = f"c[{rng.randrange(24)}]"
        elif not self.vsp and r < 0.2:
            names = self.results + ([] if self.posinv else ["HPOS"])
            base = f"o[{rng.choice(names)}]"
        else:
            base = rng.choice(self.temps)
        d = base + mask(rng)
        if self.vp2 and self.cc and self.has("cc") and self.chance(0.15):
            d += f" ({self.cond()})"
        return d

    def suffix(self) -> str:
        if self.vp2 and self.has("cc") and self.chance(0.2):
            self.cc = True
            return "C"
        return ""

    # ---- statements ------------------------------------------------------------------------
    def instruction(self) -> None:
        rng = self.rng
        op = rng.choice(self.ops)
        self.cur_c = self.cur_v = None
        if op in ("ARL", "ARR"):
            if self.vp2:
                self.emit(f"{op}{self.suffix()} {rng.choice(self.addr)}{mask(rng)}"
                          f"{self.cc_mask()}, {self.src()};")
            else:
                self.emit(f"ARL A0.x, {self.src(scalar=True)};")
            return
        if op == "ARA":
            a = rng.choice(self.addr)
            self.emit(f"ARA{self.suffix()} {a}{mask(rng)}{self.cc_mask()}, {rng.choice(self.addr)};")
            return
        shape = SHAPES[op]
        srcs = [self.src(scalar=k == "s") for k in shape]
        if self.vp2 and self.has("cc") and self.chance(0.05):
            self.cc = True
            self.emit(f"{op}C CC{mask(rng)}, {', '.join(srcs)};")
            return
        self.emit(f"{op}{self.suffix()} {self.dest()}, {', '.join(srcs)};")

    def cc_mask(self) -> str:
        if self.cc and self.has("cc") and self.chance(0.15):
            return f" ({self.cond()})"
        return ""

    def new_label(self, prefix: str = "L") -> str:
        self.nlabels += 1
        return f"{prefix}{self.nlabels}"

    def loop(self) -> None:
        """A counted loop: counter set just before the head label, ADDC + BRA back at the end."""
        rng = self.rng
        ctr = self.counters.pop(0)
        reg, comp = ctr.split(".")
        kind = rng.random()
        if kind < 0.3:
            self.emit(f"MOV {ctr}, R14.{comp};")
        elif kind < 0.5:
            self.emit(f"ADD {ctr}, R14.x, R14.{comp};")
        elif kind < 0.65:
            self.emit(f"DP3 {ctr}, R14, R14;")
        else:
            # 1 or 2 depending on the inputs (NaN in VP2 when an operand is NaN: the loop then
            # runs once, GT being false for NaN)
            self.cur_c = self.cur_v = None
            self.emit(f"SLT {ctr}, {self.src(True)}, {self.src(True)};")
            self.emit(f"ADD {ctr}, {ctr}, R14.{comp};")
        head = self.new_label()
        self.label(head)
        self.depth += 1
        self.loop_depth += 1
        self.body(rng.randint(1, 4))
        self.loop_depth -= 1
        self.emit(f"ADDC {reg}.{comp}, {ctr}, -R14.{comp};")
        self.emit(f"BRA {head} (GT.{comp});")
        self.depth -= 1
        self.cc = True

    def statement(self) -> None:
        rng = self.rng
        r = rng.random()
        flow = self.vp2 and self.has("flow")
        if flow and r < 0.09 and self.loop_depth < 2 and self.counters and self.count < 150:
            self.loop()
        elif flow and r < 0.15:
            # a forward branch within this routine; its label is placed later
            lab = self.new_label()
            self.pending.append(lab)
            c = f" ({self.cond()})" if self.chance(0.85) else ""
            self.emit(f"BRA {lab}{c};")
        elif flow and r < 0.22 and self.pending:
            self.label(self.pending.pop(rng.randrange(len(self.pending))))
        elif flow and r < 0.26 and self.routine + 1 <= self.nsubs:
            target = rng.randint(self.routine + 1, self.nsubs)
            c = f" ({self.cond()})" if self.chance(0.6) else ""
            self.emit(f"CAL S{target}{c};")
        elif flow and r < 0.28:
            self.emit(f"RET ({self.cond()});")
        else:
            self.instruction()

    def body(self, n: int) -> None:
        for _ in range(n):
            if self.count >= self.limit - 40:
                return
            self.statement()

    def close_routine(self) -> None:
        for lab in self.pending:
            self.label(lab)
        self.pending = []

    def hpos(self) -> None:
        if self.posinv or self.vsp:
            return
        if self.chance(0.5):
            self.cur_c = self.cur_v = None
            self.emit(f"MOV o[HPOS], {self.src()};")
        else:
            for c in XYZW:
                self.cur_c = self.cur_v = None
                self.emit(f"DP4 o[HPOS].{c}, {self.src()}, {self.src()};")

    def program(self) -> str:
        rng = self.rng
        head = [DIALECTS[self.dialect]]
        if self.posinv:
            head.append("OPTION NV_position_invariant;")
        if self.vp2 and self.has("flow"):
            self.nsubs = rng.choice([0, 0, 1, 2, 3])
        subs_first = self.nsubs and self.chance(0.3)
        # main routine
        self.routine = 0
        if self.vp2:
            self.emit("SGE R14, R15, R15;")        # (1,1,1,1): R15 is never written
        self.body(self.size)
        self.hpos()
        if self.vsp:
            self.cur_c = self.cur_v = None
            self.emit(f"MOV c[{rng.randrange(24)}], {self.src()};")
        self.close_routine()
        if self.nsubs:
            self.emit("RET;")
        main, self.lines = self.lines, []
        subs: list[str] = []
        for k in range(1, self.nsubs + 1):
            self.routine = k
            self.label(f"S{k}")
            self.body(max(2, self.size // 3))
            self.close_routine()
            self.emit(f"RET{' (' + self.cond() + ')' if self.chance(0.2) else ''};")
            if self.lines[-1].strip().startswith("RET ("):
                self.emit("RET;")
            subs += self.lines
            self.lines = []
        if subs_first:
            body = subs + ["main:"] + main
        else:
            body = main + subs
        return "\n".join(head + body + ["END", ""])


def generate(rng: random.Random, dialect: str, size: int = 12, avoid=frozenset()) -> str:
    return VPGen(rng, size, avoid, dialect).program()
