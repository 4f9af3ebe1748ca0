"""``!!ARBvp1.0`` programs, plain and with ``OPTION NV_vertex_program2`` / ``NV_vertex_program3``
(ARBVP 2.14.2-2.14.5, VP2O, VP3; nv_dialects.md 3.3, 3.4, 7.1, 8.3, 8.5, 8.7).

What the programs exercise:

* all three: ``TEMP``/``ADDRESS``/``PARAM`` (arrays bound to ``program.env``/``program.local``
  ranges, ``state.matrix.*`` rows, single ``state.*`` bindings, constant vectors)/``ATTRIB``/
  ``OUTPUT``/``ALIAS`` declarations, bindings used directly in instructions (``vertex.*``,
  ``program.env[n]``, ``state.*``), inline scalar and vector constants, ``SWZ`` with 0/1 and
  negated selectors, ``ARL a0.x`` and relative reads ``c[a0.x + k]`` of a PARAM array;
* ``NV_vertex_program2``: the condition code (``C`` suffix, conditional write masks), ``|abs|``,
  vector ``ARL``/``ARR``/``ARA`` on two 4-component address registers and relative reads
  through any component, ``BRA``/``CAL``/``RET`` with condition tests, labels, subroutines,
  counted loops, the extra opcodes (SEQ SFL SGT SLE SNE STR SSG RCC SIN COS) and
  ``result.clip[n]``;
* ``NV_vertex_program3``: two condition codes (``C0``/``C1`` suffixes, ``GT1.x`` tests),
  ``_SAT``, ``PUSHA``/``POPA``, vertex texture fetches (TEX/TXB/TXL/TXP, one target per unit),
  relative ``vertex.attrib[a0.x + n]`` reads and ``result.texcoord[a0.x + n]`` writes.

Rules kept: temporaries, address registers and results are undefined at program start in ARB
(ARBVP 2.14.3.3-5): every one is written whole before anything reads it or writes it in part;
no conventional attribute is bound together with its generic alias (ARBVP Table X.2.1; a
relative attribute read then uses generic attributes only); the minimum resource limits
(128 instructions, 12 temporaries, 96 parameters, 1 address register without the options) are
kept.  Loops and calls as in :mod:`.vp` (counters in a reserved TEMP, only back edges go
backwards, subroutines call later ones only; with PUSHA the call-stack depth stays <= 4).
"""
from __future__ import annotations

import random

from ...ir.ops import shapes
from .common import Gen, XYZW, fconst, mask, swz

BASE_OPS = ("ABS", "ADD", "ARL", "DP3", "DP4", "DPH", "DST", "EX2", "EXP", "FLR", "FRC", "LG2",
            "LIT", "LOG", "MAD", "MAX", "MIN", "MOV", "MUL", "POW", "RCP", "RSQ", "SGE", "SLT",
            "SUB", "SWZ", "XPD")
NV2_OPS = BASE_OPS + ("ARA", "ARR", "COS", "RCC", "SEQ", "SFL", "SGT", "SIN", "SLE", "SNE",
                      "SSG", "STR")
NV3_OPS = NV2_OPS + ("TEX", "TXB", "TXL", "TXP")
SHAPES = shapes("""
    ABS FLR FRC LIT MOV SSG COS EX2 EXP LG2 LOG RCC RCP RSQ SIN ADD DP3 DP4 DPH DST MAX MIN
    MUL SEQ SFL SGE SGT SLE SLT SNE STR SUB XPD MAD POW
""".split())
TRANSCENDENTAL = {"EX2", "LG2", "SIN", "COS", "EXP", "LOG", "LIT", "POW"}
CC_RULES = ("EQ", "GE", "GT", "LE", "LT", "NE", "TR", "FL")
TARGETS = ("1D", "2D", "3D", "CUBE", "RECT")
#: conventional attributes and the generic attributes that do not alias them (ARBVP Table X.2.1)
CONVENTIONAL = ["vertex.position", "vertex.normal", "vertex.color", "vertex.color.secondary",
                "vertex.fogcoord", "vertex.texcoord[0]", "vertex.texcoord[1]", "vertex.texcoord[3]"]
GENERIC_FREE = [6, 7, 12, 13, 14, 15]
STATE_SINGLE = ["state.light[0].diffuse", "state.light[1].position", "state.material.ambient",
                "state.material.shininess", "state.lightmodel.ambient", "state.fog.params",
                "state.point.size", "state.clip[0].plane", "state.texgen[0].eye.s",
                "state.lightprod[0].diffuse", "state.matrix.mvp.row[2]",
                "state.matrix.modelview.invtrans.row[0]", "state.matrix.projection.row[3]",
                "state.matrix.texture[1].transpose.row[1]"]
MATRICES = ["state.matrix.mvp", "state.matrix.modelview", "state.matrix.projection.inverse",
            "state.matrix.texture[0].transpose", "state.matrix.modelview[0].invtrans"]

DIALECTS = {"arbvp": 0, "arbvp-nv2": 2, "arbvp-nv3": 3}


class ARBvpGen(Gen):
    def __init__(self, rng: random.Random, size: int, avoid, dialect: str):
        super().__init__(rng, size, avoid)
        self.level = DIALECTS[dialect]
        self.nv = self.level >= 2
        self.nv3 = self.level == 3
        ops = {0: BASE_OPS, 2: NV2_OPS, 3: NV3_OPS}[self.level]
        if not self.has("transcendental"):
            ops = tuple(o for o in ops if o not in TRANSCENDENTAL)
        if not self.has("tex"):
            ops = tuple(o for o in ops if not o.startswith("T"))
        if not self.has("relative"):
            ops = tuple(o for o in ops if o not in ("ARL", "ARR", "ARA"))
        self.ops = ops
        self.temps = [f"t{i}" for i in range(rng.randint(3, 7))]
        self.addr = ["a0", "a1"] if self.nv else ["a0"]
        self.nparams = rng.choice([8, 16, 32])
        self.param_file = rng.choice(["program.env", "program.local"])
        self.named_params: list[str] = []
        self.attribs: list[str] = []
        self.outputs: list[str] = []
        self.posinv = self.chance(0.1)
        self.rel_attrib = self.nv3 and self.has("relative") and self.chance(0.3)
        self.rel_texcoord_out = self.nv3 and self.has("relative") and self.chance(0.25)
        self.tex_units: dict[int, str] = {}
        self.nlabels = 0
        self.routine = 0
        self.nsubs = 0
        self.pending: list[str] = []
        self.loop_depth = 0
        self.counters = [f"lc.{c}" for c in XYZW]
        self.cc = False
        self.limit = 124 if self.posinv else 128
        self.rel_ok = False           # address registers defined yet (ARBVP 2.14.3.5)

    # ---- operands ---------------------------------------------------------------------------
    def attrib(self) -> str:
        rng = self.rng
        if self.rel_attrib and self.rel_ok and self.chance(0.25):
            a = rng.choice(self.addr)
            c = rng.choice(XYZW)
            return f"vertex.attrib[{a}.{c} + {rng.randint(0, 12)}]"
        return rng.choice(self.attribs)

    def param(self) -> str:
        rng = self.rng
        r = rng.random()
        if r < 0.45:
            if self.has("relative") and self.rel_ok and self.chance(0.4):
                a = rng.choice(self.addr)
                c = rng.choice(XYZW) if self.nv else "x"
                off = rng.randint(0, self.nparams - 1) if self.chance(0.85) else rng.randint(-64, 63)
                if off == 0:
                    return f"c[{a}.{c}]"
                return f"c[{a}.{c} {'-' if off < 0 else '+'} {abs(off)}]"
            return f"c[{rng.randrange(self.nparams)}]"
        if r < 0.65 and self.named_params:
            return rng.choice(self.named_params)
        if r < 0.8:
            return rng.choice(STATE_SINGLE)
        return f"{rng.choice(['program.env', 'program.local'])}[{rng.randint(40, 95)}]"

    def src(self, scalar: bool = False) -> str:
        rng = self.rng
        r = rng.random()
        if r < 0.5:
            base = rng.choice(self.temps)
        elif r < 0.68:
            base = self.attrib()
        elif r < 0.88:
            base = self.param()
        else:
            if scalar:
                return ("-" if self.chance(0.2) else "") + "{" + fconst(rng) + "}.x"
            if self.chance(0.4) and self.nv:
                return fconst(rng)
            n = rng.randint(1, 4)
            return "{" + ", ".join(fconst(rng) for _ in range(n)) + "}"
        text = base + ("." + rng.choice(XYZW) if scalar else swz(rng))
        if self.nv and self.chance(0.12):
            text = f"|{text}|"
        if self.chance(0.25):
            text = "-" + text
        elif self.chance(0.04):
            text = "+" + text
        return text

    def cond(self) -> str:
        cc = self.rng.choice(["", "0", "1"]) if self.nv3 else ""
        return self.rng.choice(CC_RULES) + cc + swz(self.rng)

    def cc_mask(self) -> str:
        if self.nv and self.cc and self.has("cc") and self.chance(0.15):
            return f" ({self.cond()})"
        return ""

    def dest(self, comps: str = XYZW) -> str:
        """A destination; ``comps``: the components it may write (XPD: not w, which ARBVP
        2.14.5.28 leaves undefined -- a branch on it could go either way)."""
        rng = self.rng
        if self.chance(0.2):
            if self.rel_texcoord_out and self.rel_ok and self.chance(0.3):
                base = f"result.texcoord[{rng.choice(self.addr)}.{rng.choice(XYZW)} + " \
                       f"{rng.randint(0, 3)}]"
            else:
                base = rng.choice(self.outputs)
        else:
            base = rng.choice(self.temps)
        m = mask(rng) if comps == XYZW else "." + ("".join(c for c in mask(rng)[1:] if c in comps) or comps)
        return base + m + self.cc_mask()

    def suffix(self, sat: bool = True) -> str:
        s = ""
        if self.nv and self.has("cc") and self.chance(0.2):
            s += "C" + (self.rng.choice(["", "0", "1"]) if self.nv3 else "")
            self.cc = True
        if self.nv3 and sat and self.chance(0.12):
            s += "_SAT"
        return s

    # ---- statements ------------------------------------------------------------------------
    def instruction(self) -> None:
        rng = self.rng
        op = rng.choice(self.ops)
        if op == "ARL" and not self.nv:
            self.emit(f"ARL a0.x, {self.src(scalar=True)};")
            return
        if op in ("ARL", "ARR"):
            self.emit(f"{op}{self.suffix(False)} {rng.choice(self.addr)}{mask(rng)}{self.cc_mask()}, "
                      f"{self.src()};")
            return
        if op == "ARA":
            self.emit(f"ARA{self.suffix(False)} {rng.choice(self.addr)}{mask(rng)}{self.cc_mask()}, "
                      f"{rng.choice(self.addr)};")
            return
        if op == "SWZ":
            sel = ",".join(rng.choice(["", "", "-"]) + rng.choice("xyzw01") for _ in range(4))
            reg = rng.choice(self.temps + self.attribs)
            self.emit(f"SWZ{self.suffix()} {self.dest()}, {reg}, {sel};")
            return
        if op in ("TEX", "TXB", "TXL", "TXP"):
            unit, target = self.tex_unit()
            self.emit(f"{op}{self.suffix()} {self.dest()}, {self.src()}, texture[{unit}], {target};")
            return
        shape = SHAPES[op]
        srcs = [self.src(scalar=k == "s") for k in shape]
        dst = self.dest("xyz" if op == "XPD" else XYZW)
        self.emit(f"{op}{self.suffix()} {dst}, {', '.join(srcs)};")

    def tex_unit(self) -> tuple[int, str]:
        rng = self.rng
        if self.tex_units and (len(self.tex_units) >= 3 or self.chance(0.6)):
            unit = rng.choice(sorted(self.tex_units))
        else:
            unit = rng.choice([u for u in range(8) if u not in self.tex_units])
            self.tex_units[unit] = rng.choice(TARGETS)
        return unit, self.tex_units[unit]

    def new_label(self) -> str:
        self.nlabels += 1
        return f"L{self.nlabels}"

    def loop(self) -> None:
        rng = self.rng
        ctr = self.counters.pop(0)
        comp = ctr[-1]
        if self.chance(0.6):
            self.emit(f"MOV {ctr}, {rng.randint(1, 3)};")
        else:
            self.emit(f"SLT {ctr}, {self.src(True)}, {self.src(True)};")
            self.emit(f"ADD {ctr}, {ctr}, 1;")
        head = self.new_label()
        self.label(head)
        self.depth += 1
        self.loop_depth += 1
        self.body(rng.randint(1, 4))
        self.loop_depth -= 1
        cc = rng.choice(["0", "1"]) if self.nv3 else ""
        self.emit(f"ADDC{cc} {ctr}, {ctr}, -1;")
        self.emit(f"BRA {head} (GT{cc}.{comp});")
        self.depth -= 1
        self.cc = True

    def pusha(self) -> None:
        """PUSHA a; a few instructions that may change a; POPA a (VP3 2.14.5.34/43): balanced
        within straight-line code, so no branch can skip the POPA."""
        a = self.rng.choice(self.addr)
        self.emit(f"PUSHA {a};")
        for _ in range(self.rng.randint(1, 3)):
            if self.chance(0.5):
                self.emit(f"ARL {a}{mask(self.rng)}, {self.src()};")
            else:
                self.instruction()
        self.emit(f"POPA {a};")

    def statement(self) -> None:
        rng = self.rng
        r = rng.random()
        flow = self.nv and self.has("flow")
        if flow and r < 0.09 and self.loop_depth < 2 and self.counters and self.count < 90:
            self.loop()
        elif flow and r < 0.14:
            lab = self.new_label()
            self.pending.append(lab)
            c = f" ({self.cond()})" if self.chance(0.85) else ""
            self.emit(f"BRA {lab}{c};")
        elif flow and r < 0.20 and self.pending:
            self.label(self.pending.pop(rng.randrange(len(self.pending))))
        elif flow and r < 0.24 and self.routine + 1 <= self.nsubs:
            target = rng.randint(self.routine + 1, self.nsubs)
            c = f" ({self.cond()})" if self.chance(0.6) else ""
            self.emit(f"CAL S{target}{c};")
        elif flow and r < 0.255:
            self.emit(f"RET ({self.cond()});")
        elif self.nv3 and r < 0.28 and self.has("relative"):
            self.pusha()
        else:
            self.instruction()

    def body(self, n: int) -> None:
        for _ in range(n):
            if self.count >= self.limit - 40:
                return
            self.statement()

    # ---- program ---------------------------------------------------------------------------
    def declarations(self) -> list[str]:
        rng = self.rng
        d = ["!!ARBvp1.0"]
        if self.level == 2:
            d.append("OPTION NV_vertex_program2;")
        elif self.level == 3:
            d.append("OPTION NV_vertex_program3;")
        if self.posinv:
            d.append("OPTION ARB_position_invariant;")
        d.append("TEMP " + ", ".join(self.temps) + ";")
        if self.nv:
            d.append("TEMP lc;")
        if self.has("relative"):
            d.append("ADDRESS " + ", ".join(self.addr) + ";")
        d.append(f"PARAM c[{self.nparams}] = {{ {self.param_file}[0..{self.nparams - 1}] }};")
        if self.chance(0.4):
            d.append(f"PARAM m[4] = {{ {rng.choice(MATRICES)} }};")
            self.named_params += [f"m[{i}]" for i in range(4)]
        if self.chance(0.5):
            d.append(f"PARAM k = {{ {', '.join(fconst(rng) for _ in range(4))} }};")
            self.named_params.append("k")
        if self.chance(0.3):
            d.append(f"PARAM sp = {rng.choice(STATE_SINGLE)};")
            self.named_params.append("sp")
        # attributes: conventional ones or their non-aliased generics, never both for one slot
        if self.rel_attrib:
            pool = [f"vertex.attrib[{i}]" for i in range(16)]
        else:
            pool = CONVENTIONAL + [f"vertex.attrib[{i}]" for i in GENERIC_FREE]
        chosen = rng.sample(pool, rng.randint(2, 5))
        for i, b in enumerate(chosen):
            if self.chance(0.4):
                d.append(f"ATTRIB in{i} = {b};")
                self.attribs.append(f"in{i}")
            else:
                self.attribs.append(b)
        outs = ["result.color", "result.texcoord[0]"]
        outs += rng.sample(["result.color.secondary", "result.texcoord[1]", "result.texcoord[2]",
                            "result.fogcoord", "result.pointsize", "result.color.back"]
                           + ([f"result.clip[{rng.randrange(6)}]"] if self.nv else []),
                           rng.randint(0, 3))
        if not self.posinv:
            outs.insert(0, "result.position")
        if self.rel_texcoord_out:
            outs = [o for o in outs if not o.startswith("result.texcoord")] + \
                [f"result.texcoord[{i}]" for i in range(8)]
        for i, b in enumerate(outs):
            if self.chance(0.3) and "texcoord" not in b:
                d.append(f"OUTPUT out{i} = {b};")
                self.outputs.append(f"out{i}")
            else:
                self.outputs.append(b)
        if self.chance(0.15):
            d.append(f"ALIAS al = {self.temps[0]};")
            self.temps.append("al")
        return d

    def prologue(self) -> None:
        """Define what ARB leaves undefined: temporaries, counters, address registers, results."""
        rng = self.rng
        for t in self.temps:
            if t == "al":
                continue
            self.emit(f"MOV {t}, {rng.choice(self.attribs)}{swz(rng, True)};")
        if self.nv:
            self.emit("MOV lc, 0;")
        if self.has("relative"):
            for a in self.addr:
                if self.nv:
                    self.emit(f"ARL {a}, {self.src()};")
                else:
                    self.emit(f"ARL {a}.x, {self.src(scalar=True)};")
        self.rel_ok = True
        for o in self.outputs:
            self.emit(f"MOV {o}, {rng.choice(self.temps)}{swz(rng)};")

    def program(self) -> str:
        rng = self.rng
        decl = self.declarations()
        if self.nv and self.has("flow"):
            self.nsubs = rng.choice([0, 0, 1, 2, 3])
        subs_first = self.nsubs and self.chance(0.3)
        self.prologue()
        self.body(self.size)
        for lab in self.pending:
            self.label(lab)
        self.pending = []
        if self.nsubs:
            self.emit("RET;")
        main, self.lines = self.lines, []
        subs: list[str] = []
        for k in range(1, self.nsubs + 1):
            self.routine = k
            self.label(f"S{k}")
            self.body(max(2, self.size // 3))
            for lab in self.pending:
                self.label(lab)
            self.pending = []
            self.emit("RET;")
            subs += self.lines
            self.lines = []
        body = subs + ["main:"] + main if subs_first else main + subs
        return "\n".join(decl + body + ["END", ""])


def generate(rng: random.Random, dialect: str, size: int = 12, avoid=frozenset()) -> str:
    return ARBvpGen(rng, size, avoid, dialect).program()
