"""``!!ARBfp1.0`` programs, plain and with ``OPTION NV_fragment_program`` /
``NV_fragment_program2`` (ARBFP 3.11.2-3.11.6, FPO, FP2; nv_dialects.md 3.5, 3.6, 7.2, 8.3).

What the programs exercise:

* all three: ``TEMP``/``PARAM``/``ATTRIB``/``OUTPUT`` declarations, ``fragment.color``
  (``.secondary``), ``fragment.texcoord[n]``, ``fragment.fogcoord``, ``fragment.position``,
  ``program.local``/``program.env``/``state.*`` parameters and inline constants, ``xyzw`` and
  ``rgba`` swizzles and masks, ``SWZ`` with 0/1 selectors, ``_SAT``, ``KIL``, texture lookups
  ``TEX``/``TXP``/``TXB`` (one target per unit; sometimes ``ARB_fragment_program_shadow``
  targets), ``result.color`` and ``result.depth``;
* ``NV_fragment_program``: precision suffixes ``R``/``H``/``X`` (fp16 and fx12 results),
  ``SHORT``/``LONG TEMP``, the condition code (``C`` suffix, conditional write masks, ``KIL``
  with a condition), ``|abs|``, ``DDX``/``DDY``, ``PK*``/``UP*``, ``RFL``, ``X2D``, the set-on
  opcodes, ``TXD``;
* ``NV_fragment_program2``: ``IF``/``ELSE``/``ENDIF``, ``REP`` and ``LOOP`` (constant or
  parameter operands) with ``BRK (cc)``, the ``A0.x`` loop index and
  ``fragment.texcoord[A0.x + n]``, ``CAL``/``RET`` subroutines, ``_SSAT``, ``NRM``/``DIV``/
  ``DP2``/``DP2A``/``TXL``, ``fragment.facing``.

Rules kept: temporaries and ``result.color`` are undefined until written (ARBFP 3.11.3.3): each
is written whole first; XPD/NRM/RFL never write w, SCS only x and y (undefined or, for RFL, a
load error -- FPO 3.11.5.36); PK* never write, UP* never read a SHORT variable (FPO
3.11.5.32-35, 43-46); the minimum limits of ARBFP 3.11.3.6 (72 instructions, 48 ALU, 24 TEX,
4 texture indirections -- counted conservatively --, 16 temporaries, 24 parameters); FP2's
``A0.x`` only inside LOOP blocks of the routine, labels only at the top level, LOOP/REP
operands program parameters, loop nesting (with the calls) below 4, call depth below 4.
Derivatives are taken only at the top level of the main routine: GLSL leaves them undefined in
non-uniform control flow (they would be explained, not compared).
"""
from __future__ import annotations

import random

from ...ir.ops import UNDEFINED_COMPONENTS, shapes
from .common import Gen, XYZW, fconst, mask, swz

LEVELS = {"arbfp": 0, "arbfp-nv": 1, "arbfp-nv2": 2}
DIALECTS = LEVELS
OPTION = {1: "NV_fragment_program", 2: "NV_fragment_program2"}

#: opcode -> operand shapes (v vector, s scalar); result components that stay defined
SHAPES = shapes("""
    ABS FLR FRC LIT MOV DDX DDY NRM PK2H PK2US PK4B PK4UB COS EX2 LG2 RCP RSQ SIN SCS UP2H
    UP2US UP4B UP4UB ADD DP3 DP4 DPH DP2 DST MAX MIN MUL SEQ SFL SGE SGT SLE SLT SNE STR SUB
    XPD RFL DIV MAD LRP CMP X2D DP2A POW
""".split())
DEFINED = {op: "".join(c for i, c in enumerate(XYZW) if i not in undefined)
           for op, undefined in UNDEFINED_COMPONENTS.items() if op in SHAPES}
TRANSCENDENTAL = {"EX2", "LG2", "SIN", "COS", "SCS", "LIT", "POW"}
DERIVATIVES = {"DDX", "DDY"}
PACK = {"PK2H", "PK2US", "PK4B", "PK4UB", "UP2H", "UP2US", "UP4B", "UP4UB"}
TEX = {"TEX", "TXP", "TXB", "TXD", "TXL"}
CC_RULES = ("EQ", "GE", "GT", "LE", "LT", "NE", "TR", "FL")
TARGETS = ("1D", "2D", "3D", "CUBE", "RECT")
SHADOW_TARGETS = ("SHADOW1D", "SHADOW2D", "SHADOWRECT")
STATE = ["state.fog.color", "state.fog.params", "state.texenv[1].color", "state.depth.range",
         "state.matrix.texture[0].row[1]", "state.light[0].diffuse", "state.material.specular",
         "state.lightprod[0].ambient", "state.matrix.mvp.row[3]"]
#: parameter slots the program may use (ARBFP 3.11.3.6 minimum: 24) and its instruction limits
MAX_PARAMS = 22
MAX_INSTRUCTIONS = 64           # of 72; ALU <= 48 and TEX <= 24 follow from the budget below
MAX_TEX = 20
MAX_INDIRECTIONS = 4


class ARBfpGen(Gen):
    def __init__(self, rng: random.Random, size: int, avoid, dialect: str):
        super().__init__(rng, size, avoid)
        self.level = LEVELS[dialect]
        self.nv = self.level >= 1
        self.nv2 = self.level == 2
        from ...frontends.nv import fp_tables as T
        table = T.ARB_LEVELS[self.level]
        self.flags = {op: f for op, f in table.items() if op not in T.FLOW_OPS and op != "KIL"}
        ops = [op for op in self.flags if op in SHAPES or op in TEX or op == "SWZ"]
        drop = set()
        if not self.has("transcendental"):
            drop |= TRANSCENDENTAL
        if not self.has("tex"):
            drop |= TEX
        if not self.has("derivative"):
            drop |= DERIVATIVES
        if not self.has("pack"):
            drop |= PACK
        self.ops = sorted(o for o in ops if o not in drop)
        self.shadow = self.has("tex") and self.chance(0.2)
        self.temps = [f"r{i}" for i in range(rng.randint(3, 6))]
        self.short: set[str] = set()
        self.nparams = rng.choice([4, 8])
        self.params_used: set[str] = set()
        self.named: list[str] = []
        self.attribs: list[str] = []
        self.color_outputs = ["result.color"]
        self.depth_out = self.chance(0.15)
        self.draw_buffers = self.chance(0.1)
        self.tex_units: dict[int, str] = {}
        self.ntex = 0
        self.indirections = 1
        self.written_since_tex = False
        self.cc = False
        self.routine = 0
        self.nsubs = 0
        self.loops: list[str] = []      # kinds of the enclosing loops in this routine
        self.in_if = 0
        self.rgba = False
        self.texcoord_room = 0          # largest n of fragment.texcoord[A0.x + n] in range

    # ---- operands ---------------------------------------------------------------------------
    def letters(self) -> str:
        return "rgba" if self.rgba else XYZW

    def sel(self, scalar: bool = False, full: bool = False) -> str:
        s = ("." + self.rng.choice(XYZW)) if scalar else swz(self.rng, full)
        return s.translate(str.maketrans("xyzw", "rgba")) if self.rgba else s

    def param(self) -> str | None:
        """A parameter operand within the parameter budget (None: budget spent)."""
        rng = self.rng
        r = rng.random()
        if r < 0.45:
            name = f"c[{rng.randrange(self.nparams)}]"
            return name
        if r < 0.6 and self.named:
            return rng.choice(self.named)
        if r < 0.8:
            name = rng.choice(STATE)
        else:
            name = f"{rng.choice(['program.local', 'program.env'])}[{rng.randint(10, 23)}]"
        if name not in self.params_used and len(self.params_used) >= MAX_PARAMS - self.nparams - 3:
            return None
        self.params_used.add(name)
        return name

    def attrib(self) -> str:
        rng = self.rng
        if self.nv2 and "LOOP" in self.loops and self.has("relative") and self.chance(0.3):
            return f"fragment.texcoord[A0.x + {rng.randint(0, self.texcoord_room)}]"
        return rng.choice(self.attribs)

    def constant(self, scalar: bool) -> str | None:
        if len(self.params_used) >= MAX_PARAMS - self.nparams - 3:
            return None
        rng = self.rng
        self.params_used.add(f"const{len(self.params_used)}")
        if scalar:
            return "{" + fconst(rng) + "}.x" if not self.nv or self.chance(0.5) else fconst(rng)
        if self.nv and self.chance(0.3):
            return fconst(rng)
        return "{" + ", ".join(fconst(rng) for _ in range(rng.randint(1, 4))) + "}"

    def src(self, scalar: bool = False, no_short: bool = False) -> str:
        rng = self.rng
        r = rng.random()
        base = None
        if r < 0.5:
            pool = [t for t in self.temps if not (no_short and t in self.short)]
            base = rng.choice(pool)
        elif r < 0.7:
            base = self.attrib()
        elif r < 0.88:
            base = self.param()
        else:
            c = self.constant(scalar)
            if c is not None:
                return ("-" + c) if self.chance(0.2) and not c.startswith("-") else c
        if base is None:
            base = rng.choice([t for t in self.temps if not (no_short and t in self.short)])
        text = base + self.sel(scalar)
        if self.nv and self.chance(0.12):
            text = f"|{text}|"
        if self.chance(0.25):
            text = "-" + text
        return text

    def cond(self) -> str:
        return self.rng.choice(CC_RULES) + self.sel()

    def dest(self, comps: str = XYZW, no_short: bool = False) -> str:
        rng = self.rng
        r = rng.random()
        if r < 0.12:
            base = rng.choice(self.color_outputs)
        elif r < 0.15 and self.depth_out and "z" in comps:
            base, comps = "result.depth", "z"
        else:
            base = rng.choice([t for t in self.temps if not (no_short and t in self.short)])
        m = mask(rng)
        if comps != XYZW:
            m = "." + ("".join(c for c in m[1:] if c in comps) or comps)
        if self.rgba and m:
            m = m.translate(str.maketrans("xyzw", "rgba"))
        d = base + m
        if self.nv and self.cc and self.has("cc") and self.chance(0.15):
            d += f" ({self.cond()})"
        return d

    def suffix(self, op: str) -> str:
        rng = self.rng
        flags = self.flags.get(op, "")
        s = ""
        if "R" in flags and self.has("precision") and self.chance(0.4):
            s += rng.choice("RHX" if "X" in flags else "RH")
        if "C" in flags and self.has("cc") and self.chance(0.2):
            s += "C"
            self.cc = True
        if "S" in flags and self.chance(0.15):
            s += "_SSAT" if self.nv2 and self.chance(0.3) else "_SAT"
        return s

    # ---- statements ------------------------------------------------------------------------
    def instruction(self) -> None:
        rng = self.rng
        self.rgba = self.chance(0.15)
        ops = self.ops
        if self.depth_level() or self.routine:
            ops = [o for o in ops if o not in DERIVATIVES]
        if self.ntex >= MAX_TEX:
            ops = [o for o in ops if o not in TEX]
        op = rng.choice(ops)
        s = self.suffix(op)
        if op in TEX:
            self.texture(op, s)
            return
        if op == "SWZ":
            sel = ",".join(rng.choice(["", "", "-"]) + rng.choice("xyzw01") for _ in range(4))
            if self.rgba:
                sel = sel.translate(str.maketrans("xyzw", "rgba"))
            self.emit(f"SWZ{s} {self.dest()}, {rng.choice(self.temps + self.attribs)}, {sel};")
            self.written_since_tex = True
            return
        shape = SHAPES[op]
        unpack = op.startswith("UP")
        srcs = [self.src(scalar=k == "s", no_short=unpack) for k in shape]
        dst = self.dest(DEFINED.get(op, XYZW), no_short=op.startswith("PK"))
        self.emit(f"{op}{s} {dst}, {', '.join(srcs)};")
        self.written_since_tex = True

    def depth_level(self) -> int:
        return len(self.loops) + self.in_if

    def texture(self, op: str, s: str) -> None:
        rng = self.rng
        if self.tex_units and (len(self.tex_units) >= 4 or self.chance(0.6)):
            unit = rng.choice(sorted(self.tex_units))
        else:
            unit = rng.choice([u for u in range(8) if u not in self.tex_units])
            targets = TARGETS + (SHADOW_TARGETS if self.shadow else ())
            self.tex_units[unit] = rng.choice(targets)
        target = self.tex_units[unit]
        if op == "TXD" and target.startswith("SHADOW") and target != "SHADOW2D":
            op = "TEX"
        # texture indirections (ARBFP 3.11.6), counted conservatively: a lookup whose coordinate
        # is a temporary written since the last indirection starts a new one
        if self.indirections >= MAX_INDIRECTIONS:
            coord = rng.choice(self.attribs) + self.sel()
        else:
            coord = self.src()
            if any(coord.lstrip("-|").startswith(t) for t in self.temps) and self.written_since_tex:
                self.indirections += 1
                self.written_since_tex = False
        extra = f", {self.src()}, {self.src()}" if op == "TXD" else ""
        self.emit(f"{op}{s} {self.dest()}, {coord}{extra}, texture[{unit}], {target};")
        self.ntex += 1

    def kil(self) -> None:
        if self.nv and self.cc and self.has("cc") and self.chance(0.5):
            self.emit(f"KIL {self.cond()};")
        else:
            self.emit(f"KIL {self.src()};")

    def statement(self) -> None:
        rng = self.rng
        r = rng.random()
        flow = self.nv2 and self.has("flow")
        if flow and r < 0.07 and self.depth_level() < 4:
            if not self.cc or self.chance(0.4):
                self.emit(f"MOVC {rng.choice(self.temps)}, {self.src()};")
                self.cc = True
            self.emit(f"IF {self.cond()};")
            self.in_if += 1
            self.block(rng.randint(1, 3))
            if self.chance(0.5):
                self.emit("ELSE;")
                self.block(rng.randint(1, 3))
            self.in_if -= 1
            self.emit("ENDIF;")
        elif flow and r < 0.12 and len(self.loops) < (2 if self.routine == 0 else 1):
            self.loop()
        elif flow and r < 0.15 and self.loops and self.cc:
            self.emit(f"BRK ({self.cond()});")
        elif flow and r < 0.18 and self.routine < self.nsubs:
            target = rng.randint(self.routine + 1, self.nsubs)
            c = f" ({self.cond()})" if self.cc and self.chance(0.6) else ""
            self.emit(f"CAL S{target}{c};")
        elif flow and r < 0.19 and self.cc:
            self.emit(f"RET ({self.cond()});")
        elif r < 0.23 and self.has("kill"):
            self.kil()
        else:
            self.instruction()

    def emit(self, text: str, instruction: bool = True, indent: int = 0) -> None:
        self.depth += indent
        super().emit(text, instruction)
        self.depth -= indent

    def block(self, n: int) -> None:
        self.depth += 1
        self.body(n)
        self.depth -= 1

    def loop(self) -> None:
        rng = self.rng
        saved = self.texcoord_room
        if self.chance(0.5):
            kind = "LOOP"
            if self.chance(0.7):
                count, start, incr = rng.randint(0, 3), rng.randint(0, 2), rng.randint(0, 2)
                self.texcoord_room = max(0, 7 - (start + max(count - 1, 0) * incr))
                self.emit(f"LOOP {{{count}, {start}, {incr}}};")
            else:
                # a parameter: the count comes from the inputs (kept small by the harness); the
                # index may leave the texcoord range (undefined: explained, not compared)
                self.texcoord_room = 3
                self.emit(f"LOOP c[{rng.randrange(self.nparams)}];")
        else:
            kind = "REP"
            if self.chance(0.6):
                self.emit(f"REP {rng.randint(0, 3)};")
            else:
                self.emit(f"REP c[{rng.randrange(self.nparams)}].{rng.choice(XYZW)};")
        self.loops.append(kind)
        self.block(rng.randint(1, 3))
        if self.cc and self.chance(0.5):
            self.emit(f"BRK ({self.cond()});", indent=1)
        self.loops.pop()
        self.texcoord_room = saved
        self.emit("ENDLOOP;" if kind == "LOOP" else "ENDREP;")

    def body(self, n: int) -> None:
        for _ in range(n):
            if self.count >= MAX_INSTRUCTIONS - 12:
                return
            self.statement()

    # ---- program ---------------------------------------------------------------------------
    def program(self) -> str:
        rng = self.rng
        d = ["!!ARBfp1.0"]
        if self.level:
            d.append(f"OPTION {OPTION[self.level]};")
        if self.shadow:
            d.append("OPTION ARB_fragment_program_shadow;")
        if self.draw_buffers:
            d.append("OPTION ARB_draw_buffers;")
            self.color_outputs.append("result.color[1]")
        if self.chance(0.1):
            d.append(f"OPTION {rng.choice(['ARB_precision_hint_fastest', 'ARB_precision_hint_nicest'])};")
        d.append("TEMP " + ", ".join(self.temps) + ";")
        if self.nv and self.has("precision") and self.chance(0.4):
            d.append("SHORT TEMP h0, h1;")
            self.temps += ["h0", "h1"]
            self.short |= {"h0", "h1"}
        if self.nv and self.chance(0.2):
            d.append("LONG TEMP l0;")
            self.temps.append("l0")
        d.append(f"PARAM c[{self.nparams}] = {{ program.local[0..{self.nparams - 1}] }};")
        if self.chance(0.4):
            d.append(f"PARAM k = {{ {', '.join(fconst(rng) for _ in range(4))} }};")
            self.named.append("k")
            self.params_used.add("k")
        pool = [f"fragment.texcoord[{i}]" for i in range(4)] + [
            "fragment.color", "fragment.color.secondary", "fragment.fogcoord", "fragment.position"]
        if self.nv2:
            pool.append("fragment.facing")
        for i, b in enumerate(rng.sample(pool, rng.randint(2, 4))):
            if self.chance(0.3):
                d.append(f"ATTRIB a{i} = {b};")
                self.attribs.append(f"a{i}")
            else:
                self.attribs.append(b)
        if self.chance(0.3):
            d.append("OUTPUT oc = result.color;")
            self.color_outputs = ["oc" if o == "result.color" else o for o in self.color_outputs]
        if self.nv2 and self.has("flow"):
            self.nsubs = rng.choice([0, 0, 1, 2])
        # prologue: define every temporary and result
        for t in self.temps:
            self.emit(f"MOV {t}, {rng.choice(self.attribs)}{swz(rng, True)};")
        for o in self.color_outputs:
            self.emit(f"MOV {o}, {rng.choice(self.temps)}{swz(rng)};")
        if self.depth_out:
            self.emit(f"MOV result.depth.z, {rng.choice(self.attribs)}.{rng.choice(XYZW)};")
        self.body(self.size)
        if self.nsubs:
            self.emit("RET;")
        for k in range(1, self.nsubs + 1):
            self.routine = k
            self.label(f"S{k}")
            self.body(max(2, self.size // 3))
            self.emit("RET;")
        return "\n".join(d + self.lines + ["END", ""])


def generate(rng: random.Random, dialect: str, size: int = 12, avoid=frozenset()) -> str:
    return ARBfpGen(rng, size, avoid, dialect).program()
