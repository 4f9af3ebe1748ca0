"""NV_gpu_program4 programs (``!!NVvp4.0`` / ``!!NVfp4.0``).

Float and integer arithmetic with random swizzles, negation, absolute value, write masks,
saturation, condition-code updates (CC0/CC1) and conditional write masks, nested
``IF``/``ELSE``/``ENDIF`` and ``REP``/``ENDREP`` blocks with conditional ``BRK``/``CONT``,
relative addressing of a parameter array (``c[I0.x + 2]``), integer/float conversions, and in
fragment programs ``KIL``, ``DDX``/``DDY`` and an integer colour output.

``avoid`` features: ``shift`` (SHL/SHR), ``intdiv`` (DIV/MOD on integers), ``transcendental``
(EX2 LG2 POW SIN COS SCS), ``derivative`` (DDX/DDY), ``kill``, ``relative``, ``loop``, ``if``,
``cc``, ``int``, ``intout`` (integer colour output), ``tex``.

The text a seed gives is fixed: tests/test_verify_random.py names open cases by seed, so a
change here that alters the draws must re-check those seeds.
"""
from __future__ import annotations

import random

from ...ir.ops import shapes
from .common import fconst, mask, swz

STAGES = ("vertex", "fragment")

FLOAT_TEMPS = ["R0", "R1", "R2", "R3", "R4", "R5"]
INT_TEMPS = ["I0", "I1", "I2", "I3"]
NPARAMS = 8
FLOAT_TESTS = ["EQ", "NE", "LT", "LE", "GT", "GE", "TR", "FL", "NAN", "LEG"]
INT_TESTS = FLOAT_TESTS[:6] + ["SF", "NSF", "CF", "NCF", "OF", "NOF", "AB", "BLE"]

# opcode -> operand shapes (v vector, s scalar), from the opcode table
FLOAT_OPS = shapes("""
    ADD SUB MUL MAD MIN MAX SLT SGE SEQ SNE SGT SLE ABS FLR FRC CEIL TRUNC ROUND CMP DP3 DP4
    DP2 DPH DP2A LRP RCP RSQ MOV SSG XPD DST DIV RCC X2D NRM RFL LIT EX2 LG2 POW SIN COS SCS
    SFL STR
""".split())
TRANSCENDENTAL = {"EX2", "LG2", "POW", "SIN", "COS", "SCS", "LIT"}
INT_OPS = shapes("""
    ADD SUB MUL MAD MIN MAX AND OR XOR NOT ABS MOV SLT SGE SEQ SNE SHL SHR DIV MOD SAD
""".split())
CONVERT_TO_INT = ["FLR", "CEIL", "TRUNC", "ROUND"]


class _Gen:
    def __init__(self, rng: random.Random, stage: str, size: int, avoid: set[str]):
        self.rng = rng
        self.stage = stage
        self.size = size
        self.avoid = avoid
        self.lines: list[str] = []
        self.depth = 0
        self.loop_depth = 0
        self.cc_written = False
        self.inputs = ([f"vertex.attrib[{i}]" for i in range(4)] if stage == "vertex"
                       else [f"fragment.texcoord[{i}]" for i in range(3)])

    def has(self, feature: str) -> bool:
        return feature not in self.avoid

    def emit(self, text: str) -> None:
        self.lines.append("  " * self.depth + text)

    # ---- operands ---------------------------------------------------------------------------
    def fsrc(self, scalar: bool = False) -> str:
        rng = self.rng
        r = rng.random()
        if r < 0.55:
            base = rng.choice(FLOAT_TEMPS)
        elif r < 0.7:
            base = rng.choice(self.inputs)
        elif r < 0.85:
            if self.has("relative") and self.has("int") and rng.random() < 0.4:
                base = f"c[{rng.choice(INT_TEMPS)}.{rng.choice('xyzw')} + {rng.randrange(NPARAMS)}]"
            else:
                base = f"c[{rng.randrange(NPARAMS)}]"
        else:
            if scalar or rng.random() < 0.5:
                return fconst(rng)
            return "{" + ", ".join(fconst(rng) for _ in range(4)) + "}"
        sel = "." + rng.choice("xyzw") if scalar else swz(rng)
        text = base + sel
        if rng.random() < 0.15:
            text = f"|{text}|"
        if rng.random() < 0.25:
            text = "-" + text
        return text

    def isrc(self, scalar: bool = False) -> str:
        rng = self.rng
        r = rng.random()
        if r < 0.7:
            base = rng.choice(INT_TEMPS)
        elif r < 0.8:
            base = rng.choice(self.inputs)
        else:
            v = rng.choice([0, 1, -1, 2, 3, 5, 7, 16, 31, 255, -8, 0x7FFFFFFF, 0x10000])
            return str(v)
        sel = "." + rng.choice("xyzw") if scalar else swz(rng)
        text = base + sel
        if rng.random() < 0.15:
            text = "-" + text
        return text

    def cond(self, integer: bool = False) -> str:
        rng = self.rng
        test = rng.choice(INT_TESTS if integer else FLOAT_TESTS)
        n = rng.choice(["", "", "1"]) if self.has("cc") else ""
        return f"{test}{n}{swz(rng)}"

    def ccmod(self) -> str:
        if not self.has("cc") or self.rng.random() > 0.3:
            return ""
        self.cc_written = True
        return self.rng.choice([".CC", ".CC0", ".CC1"])

    def dest(self, temps) -> str:
        d = self.rng.choice(temps) + mask(self.rng)
        if self.has("cc") and self.cc_written and self.rng.random() < 0.15:
            d += f" ({self.cond()})"
        return d

    # ---- statements ------------------------------------------------------------------------
    def float_op(self) -> None:
        rng = self.rng
        ops = [o for o in FLOAT_OPS if self.has("transcendental") or o not in TRANSCENDENTAL]
        op = rng.choice(ops)
        kinds = FLOAT_OPS[op]
        srcs = [self.fsrc(scalar=k == "s") for k in kinds]
        sat = rng.choice(["", "", "", ".SAT", ".SSAT"])
        self.emit(f"{op}.F{self.ccmod()}{sat} {self.dest(FLOAT_TEMPS)}, {', '.join(srcs)};")

    def int_op(self) -> None:
        rng = self.rng
        ops = [o for o in INT_OPS if (self.has("shift") or o not in ("SHL", "SHR"))
               and (self.has("intdiv") or o not in ("DIV", "MOD"))]
        op = rng.choice(ops)
        t = rng.choice([".S", ".U"])
        if op == "SAD":
            t = ".U"
        kinds = INT_OPS[op]
        srcs = [self.isrc(scalar=k == "s") for k in kinds]
        self.emit(f"{op}{t}{self.ccmod()} {self.dest(INT_TEMPS)}, {', '.join(srcs)};")

    def convert(self) -> None:
        rng = self.rng
        if rng.random() < 0.5:
            op = rng.choice(CONVERT_TO_INT)
            t = rng.choice([".S", ".U"])
            self.emit(f"{op}{t}{self.ccmod()} {self.dest(INT_TEMPS)}, {self.fsrc()};")
        else:
            t = rng.choice([".S", ".U"])
            self.emit(f"I2F{t} {self.dest(FLOAT_TEMPS)}, {self.isrc()};")

    def block(self, n: int) -> None:
        for _ in range(n):
            self.statement()

    def statement(self) -> None:
        rng = self.rng
        r = rng.random()
        nested = self.depth < 3
        if r < 0.08 and nested and self.has("if") and self.has("cc"):
            if not self.cc_written:
                self.emit(f"MOV.F.CC {rng.choice(FLOAT_TEMPS)}.{rng.choice('xyzw')}, {self.fsrc(True)};")
                self.cc_written = True
            self.emit(f"IF {self.cond()};")
            self.depth += 1
            self.block(rng.randint(1, 3))
            self.depth -= 1
            if rng.random() < 0.5:
                self.emit("ELSE;")
                self.depth += 1
                self.block(rng.randint(1, 3))
                self.depth -= 1
            self.emit("ENDIF;")
        elif r < 0.14 and nested and self.has("loop") and self.loop_depth < 2:
            if rng.random() < 0.3:
                self.emit(f"REP c[{rng.randrange(NPARAMS)}].{rng.choice('xyzw')};")
            else:
                self.emit(f"REP {rng.randint(0, 4)};")
            self.depth += 1
            self.loop_depth += 1
            self.block(rng.randint(1, 3))
            if self.has("cc") and self.cc_written and rng.random() < 0.5:
                self.emit(f"{rng.choice(['BRK', 'CONT'])} ({self.cond()});")
            self.block(rng.randint(0, 2))
            self.loop_depth -= 1
            self.depth -= 1
            self.emit("ENDREP;")
        elif r < 0.20 and self.has("int"):
            self.convert()
        elif r < 0.38 and self.has("int"):
            self.int_op()
        elif r < 0.43 and self.stage == "fragment" and self.has("derivative"):
            self.emit(f"{rng.choice(['DDX', 'DDY'])}.F {self.dest(FLOAT_TEMPS)}, {self.fsrc()};")
        elif r < 0.45 and self.stage == "fragment" and self.has("kill"):
            if self.has("cc") and self.cc_written and rng.random() < 0.5:
                self.emit(f"KIL {self.cond()};")
            else:
                self.emit(f"KIL {self.fsrc()};")
        elif r < 0.47 and self.stage == "fragment" and self.has("tex"):
            self.emit(f"TEX.F {self.dest(FLOAT_TEMPS)}, fragment.texcoord[{rng.randrange(3)}], "
                      f"texture[0], 2D;")
        else:
            self.float_op()

    def program(self) -> str:
        rng = self.rng
        head = "!!NVvp4.0" if self.stage == "vertex" else "!!NVfp4.0"
        decl = [head, f"# random program (xlate.verify.generate), stage {self.stage}",
                f"PARAM c[{NPARAMS}] = {{ program.local[0..{NPARAMS - 1}] }};",
                "TEMP " + ", ".join(FLOAT_TEMPS + INT_TEMPS) + ";"]
        if self.stage == "fragment" and self.has("intout") and self.has("int"):
            decl.insert(1, "OPTION ARB_draw_buffers;")
            decl.append("INT OUTPUT icolor = result.color[1];")
        for i, t in enumerate(FLOAT_TEMPS):
            self.emit(f"MOV.F {t}, {self.inputs[i % len(self.inputs)]}{swz(rng, True)};")
        if self.has("int"):
            for i, t in enumerate(INT_TEMPS):
                op = rng.choice(["TRUNC.S", "FLR.S", "MOV.S", "ROUND.U"])
                src = f"c[{rng.randrange(NPARAMS)}]" if op != "MOV.S" else self.inputs[i % len(self.inputs)]
                self.emit(f"{op} {t}, {src};")
        self.block(self.size)
        if self.stage == "vertex":
            self.emit(f"MOV.F result.position, {rng.choice(FLOAT_TEMPS)};")
            for i in range(3):
                self.emit(f"MOV.F result.texcoord[{i}], {rng.choice(FLOAT_TEMPS)};")
            if self.has("int"):
                self.emit(f"I2F.S result.texcoord[3], {rng.choice(INT_TEMPS)};")
        else:
            self.emit(f"MOV.F result.color, {rng.choice(FLOAT_TEMPS)};")
            if self.has("intout") and self.has("int"):
                self.emit(f"MOV.S icolor, {rng.choice(INT_TEMPS)};")
        return "\n".join(decl + self.lines + ["END", ""])


def generate(rng: random.Random, stage: str = "vertex", size: int = 12,
             avoid=frozenset()) -> str:
    """One program text (not yet checked by the parser)."""
    return _Gen(rng, stage, size, set(avoid)).program()
