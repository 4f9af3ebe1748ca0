"""``!!FP1.0`` programs (NV_fragment_program: FP1 3.11.1-3.11.5; nv_dialects.md 3.7, 8.2).

What the programs exercise: ``f[WPOS]``/``f[COL0]``/``f[COL1]``/``f[FOGC]``/``f[TEXn]``
attributes, ``o[COLR]`` or ``o[COLH]`` and ``o[DEPR]`` results, fp32 ``R`` and fp16 ``H``
registers, precision suffixes ``R``/``H``/``X`` (fx12), ``_SAT``, ``DEFINE``'d constants and
``DECLARE``'d named parameters (with and without an initial value), numbered parameters
``p[n]``, inline scalar and vector constants, ``|abs|`` operands, the condition code (``C``
suffix, conditional write masks, the ``RC``/``HC`` dummy destinations, ``KIL`` with a
condition), ``DDX``/``DDY``, ``PK*``/``UP*``, ``RFL``, ``X2D``, the set-on opcodes, and
``TEX``/``TXP``/``TXD`` on units ``TEX0``-``TEX15``.

Rules kept (FP1 3.11.2-3.11.3): at most one distinct attribute and one distinct parameter or
constant per instruction; not both ``o[COLR]`` and ``o[COLH]``; outputs are undefined until
written, so the colour output is written whole first; RFL never enables ``w``; PK* never write
and UP* never read an fp16 register (FP1 3.11.5.27: they work on 32-bit registers); one target
per texture unit; the register budget (64 units, fp32 = 2) and the instruction limit with a
wide margin.  FP1 has no flow control: the programs are straight-line code.
"""
from __future__ import annotations

import random

from ...ir.ops import shapes
from .common import Gen, XYZW, fconst, mask, swz

SHAPES = shapes("""
    FLR FRC LIT MOV DDX DDY PK2H PK2US PK4B PK4UB COS EX2 LG2 RCP RSQ SIN UP2H UP2US UP4B
    UP4UB ADD DP3 DP4 DST MAX MIN MUL SEQ SFL SGE SGT SLE SLT SNE STR SUB RFL POW MAD LRP
    X2D
""".split())
TRANSCENDENTAL = {"EX2", "LG2", "SIN", "COS", "LIT", "POW"}
PACK = {"PK2H", "PK2US", "PK4B", "PK4UB", "UP2H", "UP2US", "UP4B", "UP4UB"}
TEX = {"TEX", "TXP", "TXD"}
CC_RULES = ("EQ", "GE", "GT", "LE", "LT", "NE", "TR", "FL")
TARGETS = ("1D", "2D", "3D", "CUBE", "RECT")
ATTRIBS = ["WPOS", "COL0", "COL1", "FOGC"] + [f"TEX{i}" for i in range(4)]


class FP1Gen(Gen):
    def __init__(self, rng: random.Random, size: int, avoid):
        super().__init__(rng, size, avoid)
        from ...frontends.nv import fp_tables as T
        self.flags = dict(T.FP1_OPS)
        drop = {"KIL"}
        if not self.has("transcendental"):
            drop |= TRANSCENDENTAL
        if not self.has("tex"):
            drop |= TEX
        if not self.has("derivative"):
            drop |= {"DDX", "DDY"}
        if not self.has("pack"):
            drop |= PACK
        self.ops = sorted(o for o in self.flags if o not in drop)
        self.rtemps = [f"R{i}" for i in rng.sample(range(32), rng.randint(3, 6))]
        self.htemps = [f"H{i}" for i in rng.sample(range(64), rng.randint(0, 4))] \
            if self.has("precision") else []
        self.color = "o[COLH]" if self.has("precision") and self.chance(0.3) else "o[COLR]"
        self.depth_out = self.chance(0.15)
        self.named: list[str] = []
        self.tex_units: dict[int, str] = {}
        self.cc = False
        # per instruction: the one attribute and the one parameter/constant it may read
        self.cur_f: str | None = None
        self.cur_p: str | None = None

    # ---- operands ---------------------------------------------------------------------------
    def temps(self, half_ok: bool = True) -> list[str]:
        return self.rtemps + (self.htemps if half_ok else [])

    def param(self, scalar: bool) -> tuple[str, bool]:
        """(base, is a literal) of this instruction's one parameter."""
        rng = self.rng
        if self.cur_p is None:
            r = rng.random()
            if r < 0.35:
                self.cur_p = f"p[{rng.randrange(16)}]"
            elif r < 0.6 and self.named:
                self.cur_p = rng.choice(self.named)
            elif scalar or self.chance(0.4):
                self.cur_p = fconst(rng)
            else:
                self.cur_p = "{" + ", ".join(fconst(rng) for _ in range(rng.randint(1, 4))) + "}"
        literal = self.cur_p[0] in "{-0123456789."
        return self.cur_p, literal

    def src(self, scalar: bool = False, half_ok: bool = True) -> str:
        rng = self.rng
        r = rng.random()
        if r < 0.5:
            base = rng.choice(self.temps(half_ok))
        elif r < 0.75:
            if self.cur_f is None:
                self.cur_f = f"f[{rng.choice(ATTRIBS)}]"
            base = self.cur_f
        else:
            base, literal = self.param(scalar)
            if literal and not base.startswith("{"):
                return "-" + base if self.chance(0.2) and base[0] != "-" else base
        text = base + ("." + rng.choice(XYZW) if scalar else swz(rng))
        if self.chance(0.12):
            text = f"|{text}|"
        if self.chance(0.25):
            text = "-" + text
        return text

    def cond(self) -> str:
        return self.rng.choice(CC_RULES) + swz(self.rng)

    def dest(self, comps: str = XYZW, half_ok: bool = True) -> str:
        rng = self.rng
        r = rng.random()
        if r < 0.12 and (half_ok or self.color == "o[COLR]"):
            base = self.color
        elif r < 0.15 and self.depth_out and "z" in comps:
            base, comps = "o[DEPR]", "z"
        else:
            base = rng.choice(self.temps(half_ok))
        m = mask(rng)
        if comps != XYZW:
            m = "." + ("".join(c for c in m[1:] if c in comps) or comps)
        d = base + m
        if self.cc and self.has("cc") and self.chance(0.15):
            d += f" ({self.cond()})"
        return d

    def suffix(self, op: str) -> str:
        rng = self.rng
        flags = self.flags.get(op, "")
        s = ""
        if "R" in flags and self.chance(0.45):
            s += rng.choice("RHX" if "X" in flags else "RH") if self.has("precision") else "R"
        if "C" in flags and self.has("cc") and self.chance(0.2):
            s += "C"
            self.cc = True
        if "S" in flags and self.chance(0.15):
            s += "_SAT"
        return s

    # ---- statements ------------------------------------------------------------------------
    def instruction(self) -> None:
        rng = self.rng
        self.cur_f = self.cur_p = None
        op = rng.choice(self.ops)
        s = self.suffix(op)
        if op in TEX:
            if self.tex_units and (len(self.tex_units) >= 4 or self.chance(0.6)):
                unit = rng.choice(sorted(self.tex_units))
            else:
                unit = rng.choice([u for u in range(16) if u not in self.tex_units])
                self.tex_units[unit] = rng.choice(TARGETS)
            extra = f", {self.src()}, {self.src()}" if op == "TXD" else ""
            self.emit(f"{op}{s} {self.dest()}, {self.src()}{extra}, TEX{unit}, "
                      f"{self.tex_units[unit]};")
            return
        shape = SHAPES[op]
        srcs = [self.src(scalar=k == "s", half_ok=not op.startswith("UP")) for k in shape]
        if "C" in s and self.chance(0.15):
            dst = rng.choice(["RC", "HC"] if self.has("precision") else ["RC"]) + mask(rng)
        else:
            dst = self.dest("xyz" if op == "RFL" else XYZW, half_ok=not op.startswith("PK"))
        self.emit(f"{op}{s} {dst}, {', '.join(srcs)};")

    def statement(self) -> None:
        if self.chance(0.05) and self.has("kill") and self.cc:
            self.emit(f"KIL {self.cond()};")
        else:
            self.instruction()

    def program(self) -> str:
        rng = self.rng
        d = ["!!FP1.0"]
        for i in range(rng.randint(0, 3)):
            vals = ", ".join(fconst(rng) for _ in range(rng.randint(1, 4)))
            if self.chance(0.5):
                d.append(f"DEFINE k{i} = {{{vals}}};")
            elif self.chance(0.5):
                d.append(f"DECLARE k{i} = {{{vals}}};")
            else:
                d.append(f"DECLARE k{i};")
            self.named.append(f"k{i}")
        self.lines = []
        self.cur_f = self.cur_p = None
        self.emit(f"MOV{'H' if self.color == 'o[COLH]' else 'R'} {self.color}, "
                  f"{self.src(half_ok=True)};")
        if self.depth_out:
            self.cur_f = self.cur_p = None
            self.emit(f"MOVR o[DEPR].z, {self.src(scalar=True)};")
        for _ in range(self.size):
            self.statement()
        return "\n".join(d + self.lines + ["END", ""])


def generate(rng: random.Random, size: int = 12, avoid=frozenset()) -> str:
    return FP1Gen(rng, size, avoid).program()
