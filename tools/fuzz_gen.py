"""Grammar-aware random programs for the fuzzer (tools/fuzz.py): every NV/ARB family and TGSI.

``generate(dialect, rng, size)`` writes one program of ``dialect`` (one of :data:`DIALECTS`)
from a ``random.Random``: declarations, then ``size`` statements drawn from the dialect's opcode
table with operand shapes, modifiers/suffixes, swizzles, write masks, condition codes, relative
addressing, texture targets and the dialect's control flow (IF/REP/LOOP blocks, labels with
BRA/CAL/RET, subroutines, TGSI SWITCH/BGNSUB), plus geometry statements.  The programs are
*mostly* valid: a small share of the choices is deliberately off (an opcode of a neighbouring
dialect, a boundary index, a mismatched modifier), so both the translation path and the
diagnostics path are exercised.  Output is a pure function of the rng state (deterministic).

The opcode tables come from the frontends themselves (``xlate.frontends.nv.*``,
``xlate.frontends.tgsi.opcodes``, ``xlate.ir.ops``), so a new opcode is fuzzed without
touching this file.
"""
from __future__ import annotations

import random

from xlate.frontends.nv import arbvp_tables as _arbvp_tables
from xlate.frontends.nv import fp_tables as _fpt
from xlate.frontends.nv import legacy_vertex as _legacy
from xlate.frontends.nv import vp as _vp
from xlate.frontends.tgsi import opcodes as _tgsi_ops
from xlate.ir import ops as _irops

#: dialect name -> which fuzz frontend it belongs to
DIALECTS = {
    "nv4vp": "nv", "nv4fp": "nv", "nv4gp": "nv",
    "vp10": "nv", "vp11": "nv", "vsp10": "nv", "vp20": "nv",
    "arbvp": "nv", "arbvp_nv2": "nv", "arbvp_nv3": "nv",
    "arbfp": "nv", "arbfp_nv": "nv", "arbfp_nv2": "nv", "fp10": "nv",
    "tgsi": "tgsi-text",
}

# boundary values a program may carry anywhere a number goes
BOUNDARY_INTS = [0, 1, 2, 3, 7, 8, 15, 16, 31, 32, 63, 64, 95, 96, 255, 256, 511, 512, 1023, 1024,
                 4095, 4096, 65535, 65536, 2147483647, 2147483648, 4294967295, 4294967296,
                 99999999, 18446744073709551616]
BOUNDARY_FLOATS = ["0", "-0", "0.0", "-0.0", "1", "-1", "0.5", "1e38", "-1e38", "3.4028235e38",
                   "3.5e38", "1e-45", "1e-40", "1e39", "inf", "nan", "1.#INF", "65504", "65505",
                   "1e-8", "2147483648", "4294967295", "0x3f800000", "1e", ".5", "5.", "-.0e-0"]
XYZW = "xyzw"


def _wild(rng: random.Random) -> bool:
    """Programs are drawn "strict" (every choice legal as far as the generator knows) or "wild"
    (boundary numbers and malformed pieces now and then); ``generate`` decides per program."""
    return getattr(rng, "wild", True)


def _swz(rng: random.Random, letters: str = XYZW, allow_one: bool = True) -> str:
    r = rng.random()
    if r < 0.45:
        return ""
    if r < 0.7 and allow_one:
        return "." + rng.choice(letters)
    if r < 0.73 and _wild(rng):
        return "." + "".join(rng.choice(letters) for _ in range(rng.choice([2, 3, 5])))
    return "." + "".join(rng.choice(letters) for _ in range(4))


def _mask(rng: random.Random, letters: str = XYZW) -> str:
    r = rng.random()
    if r < 0.45:
        return ""
    if r < 0.47 and _wild(rng):
        return "." + "".join(rng.choice(letters) for _ in range(rng.randint(1, 4)))  # maybe bad
    comps = [c for c in letters if rng.random() < 0.5] or [rng.choice(letters)]
    return "." + "".join(comps)


def _rel(prefix: str, offset: int) -> str:
    """``c[A0.x + 3]`` / ``c[A0.x - 3]``: a relative reference with a signed offset."""
    return f"{prefix} {'-' if offset < 0 else '+'} {abs(offset)}"


def _int(rng: random.Random, lo: int, hi: int) -> int:
    if rng.random() < 0.04 and _wild(rng):
        return rng.choice(BOUNDARY_INTS) * rng.choice([1, 1, 1, -1])
    return rng.randint(lo, hi)


def _float(rng: random.Random) -> str:
    if rng.random() < 0.06 and _wild(rng):
        return rng.choice(BOUNDARY_FLOATS)
    v = rng.choice([0.0, 1.0, -1.0, 0.5, 2.0, -2.5, 3.0, 0.25, 10.0, 1e-3, 100.0,
                    round(rng.uniform(-4, 4), 3)])
    return repr(float(v))


class _Base:
    """Shared statement machinery: block structure, sizes, output."""

    def __init__(self, rng: random.Random, size: int):
        self.rng = rng
        self.size = size
        self.lines: list[str] = []
        self.depth = 0
        self.budget = size

    def emit(self, text: str) -> None:
        self.lines.append("  " * self.depth + text)

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def wild(self, p: float) -> bool:
        """A deliberately doubtful choice, only in wild programs."""
        return self.rng.random() < p and _wild(self.rng)

    def body(self, n: int) -> None:
        for _ in range(n):
            if self.budget <= 0:
                return
            self.budget -= 1
            self.statement()

    def statement(self) -> None:           # pragma: no cover - overridden
        raise NotImplementedError


# ---------------------------------------------------------------------------------------------
# NV_gpu_program4 (!!NVvp4.0, !!NVfp4.0, !!NVgp4.0)
# ---------------------------------------------------------------------------------------------
_NV4_FTESTS = ["EQ", "NE", "LT", "LE", "GT", "GE", "TR", "FL", "NAN", "LEG"]
_NV4_ITESTS = _NV4_FTESTS[:6] + ["SF", "NSF", "CF", "NCF", "OF", "NOF", "AB", "BLE"]
_NV4_TARGETS = list(_irops.TEX_TARGETS)
_NV4_PRIM_IN = {"POINTS": 1, "LINES": 2, "LINES_ADJACENCY": 4, "TRIANGLES": 3,
                "TRIANGLES_ADJACENCY": 6}
_NV4_PRIM_OUT = ["POINTS", "LINE_STRIP", "TRIANGLE_STRIP"]


class NV4Gen(_Base):
    def __init__(self, rng: random.Random, size: int, stage: str):
        super().__init__(rng, size)
        self.stage = stage
        from xlate.frontends.nv.nv4_tables import STAGE_OPS
        from xlate.ir.model import Stage
        st = {"vp": Stage.VERTEX, "fp": Stage.FRAGMENT, "gp": Stage.GEOMETRY}[stage]
        self.ops = sorted(STAGE_OPS[st])
        self.ftemps = [f"R{i}" for i in range(rng.randint(1, 6))]
        self.itemps = [f"I{i}" for i in range(rng.randint(1, 3))]
        self.utemps = [f"U{i}" for i in range(rng.randint(0, 2))]
        self.nparams = rng.choice([1, 4, 8, 16])
        self.loop_depth = 0
        self.subs: list[str] = []
        self.nverts = 3
        self.inputs: list[str] = []
        self.outputs: list[str] = []
        self.decls: list[str] = []
        self.buffers: list[str] = []

    # ---- operands ---------------------------------------------------------------------------
    def _input(self) -> str:
        rng = self.rng
        if self.stage == "vp" and not self.wild(0.3):
            return rng.choice([f"vertex.attrib[{_int(rng, 0, 15)}]", "vertex.id",
                               "vertex.instance"] + self.inputs)
        if self.stage == "vp":
            return rng.choice([f"vertex.attrib[{_int(rng, 0, 15)}]", "vertex.position",
                               "vertex.normal", "vertex.color", f"vertex.texcoord[{_int(rng, 0, 7)}]",
                               "vertex.id", "vertex.instance", "vertex.fogcoord",
                               "vertex.color.secondary"] + self.inputs)
        if self.stage == "fp":
            return rng.choice([f"fragment.texcoord[{_int(rng, 0, 7)}]", "fragment.color",
                               "fragment.position", "fragment.facing", "fragment.fogcoord",
                               f"fragment.attrib[{_int(rng, 0, 15)}]", "primitive.id",
                               "fragment.color.secondary", f"fragment.clip[{_int(rng, 0, 5)}]"]
                              + self.inputs)
        v = _int(self.rng, 0, self.nverts - 1)
        return rng.choice([f"vertex[{v}].position", f"vertex[{v}].texcoord[{_int(rng, 0, 7)}]",
                           f"vertex[{v}].color", f"vertex[{v}].attrib[{_int(rng, 0, 15)}]",
                           "primitive.id", f"vertex[{v}].id"] + self.inputs)

    def src(self, kind: str = "v", dtype: str = "F") -> str:
        rng = self.rng
        integer = dtype in ("S", "U") or kind in ("vs", "vu")
        r = rng.random()
        if r < 0.5:
            base = rng.choice(self.temps_for({"vf": "F", "vs": "S", "vu": "U"}.get(kind, dtype)))
        elif r < 0.62:
            base = self._input()
        elif r < 0.78:
            if self.chance(0.3) and self.itemps:
                off = _int(rng, -2, self.nparams) if self.wild(0.5) else rng.randrange(self.nparams)
                sign = "-" if off < 0 else "+"
                base = f"c[{rng.choice(self.itemps)}.{rng.choice(XYZW)} {sign} {abs(off)}]"
            else:
                base = f"c[{_int(rng, 0, self.nparams - 1)}]"
        elif r < 0.82 and self.buffers:
            base = f"{rng.choice(self.buffers)}[{_int(rng, 0, 7)}]"
        elif r < 0.86:
            base = rng.choice(["program.local", "program.env"]) + f"[{_int(rng, 0, 16)}]"
        else:
            if integer:
                vals = [str(_int(rng, -8, 255)) for _ in range(4)]
            else:
                vals = [_float(rng) for _ in range(4)]
            if kind == "s" or self.chance(0.4):
                return vals[0]
            return "{" + ", ".join(vals[:rng.randint(1, 4)]) + "}"
        swz = ("." + rng.choice(XYZW)) if kind == "s" else _swz(rng)
        text = base + swz
        if self.chance(0.12) and dtype != "U":
            text = f"|{text}|"
        if self.chance(0.2):
            text = "-" + text
        return text

    def temps_for(self, dtype: str) -> list[str]:
        """Registers an instruction of ``dtype`` may use without E3006: the typeless TEMPs
        (R*) and the ones declared with that type."""
        if self.wild(0.05):
            return self.ftemps + self.itemps + self.utemps
        typed = {"S": self.itemps, "U": self.utemps}.get(dtype, [])
        return typed + self.ftemps

    def cond(self, integer: bool = False) -> str:
        test = self.rng.choice(_NV4_ITESTS if integer else _NV4_FTESTS)
        return test + self.rng.choice(["", "", "0", "1"]) + _swz(self.rng)

    def dest(self, dtype: str) -> str:
        rng = self.rng
        if self.chance(0.12) and self.outputs:
            base = rng.choice(self.outputs)
        else:
            base = rng.choice(self.temps_for(dtype))
        d = base + _mask(rng)
        if self.chance(0.1):
            d += f" ({self.cond()})"
        return d

    def mods(self, info) -> tuple[str, str]:
        rng = self.rng
        dtype = "F"
        allowed = info.mods
        if "I" in allowed and ("F" not in allowed or self.chance(0.3)):
            dtype = rng.choice("SU")
        elif "F" not in allowed and info.default.name != "FLOAT":
            dtype = "S"
        m = [] if (info.mods == "" and self.chance(0.9)) else [dtype]
        if "C" in allowed and self.chance(0.2):
            m.append(rng.choice(["CC", "CC0", "CC1"]))
        if "S" in allowed and dtype == "F" and self.chance(0.15):
            m.append(rng.choice(["SAT", "SSAT"]))
        if self.wild(0.03):
            m.append(rng.choice(["NTC", "S24", "U24", "HI", "F", "S", "U", "SAT", "H", "CC2"]))
        if self.wild(0.05):
            rng.shuffle(m)
        return "".join("." + x for x in m), dtype

    # ---- statements ------------------------------------------------------------------------
    def instruction(self) -> None:
        rng = self.rng
        from xlate.ir.ops import OPCODES
        op = rng.choice([o for o in self.ops if OPCODES[o].category in ("alu", "tex")])
        info = OPCODES[op]
        mods, dtype = self.mods(info)
        if op == "SWZ":
            comps = ",".join(rng.choice(["x", "y", "z", "w", "0", "1", "-x", "-1", "+y"])
                             for _ in range(4))
            self.emit(f"SWZ{mods} {self.dest(dtype)}, {rng.choice(self.ftemps)}, {comps};")
            return
        srcs = [self.src(k, dtype) for k in info.inputs]
        if info.category == "tex":
            if op == "TXQ":
                srcs = [self.src("s", "S")]
            tgt = rng.choice(_NV4_TARGETS)
            srcs.append(f"texture[{_int(rng, 0, 31)}]")
            srcs.append(tgt)
            if self.chance(0.15):
                srcs.append("(" + ", ".join(str(_int(rng, -8, 7)) for _ in range(rng.randint(1, 3))) + ")")
        rtype = {"vf": "F", "vs": "S", "vu": "U"}.get(info.output, dtype)
        self.emit(f"{op}{mods} {self.dest(rtype)}, {', '.join(srcs)};")

    def statement(self) -> None:
        rng = self.rng
        r = rng.random()
        nest = self.depth < 4
        if r < 0.07 and nest:
            if self.chance(0.7):
                self.emit(f"MOV.F.CC {rng.choice(self.ftemps)}, {self.src()};")
            self.emit(f"IF {self.cond()};")
            self.depth += 1
            self.body(rng.randint(1, 3))
            self.depth -= 1
            if self.chance(0.5):
                self.emit("ELSE;")
                self.depth += 1
                self.body(rng.randint(1, 3))
                self.depth -= 1
            self.emit("ENDIF;")
        elif r < 0.12 and nest and self.loop_depth < 3:
            c = rng.random()
            if c < 0.3:
                self.emit(f"REP c[{_int(rng, 0, self.nparams - 1)}].{rng.choice(XYZW)};")
            elif c < 0.4 and self.itemps:
                self.emit(f"REP.S {rng.choice(self.itemps)}.{rng.choice(XYZW)};")
            elif c < 0.5:
                self.emit("REP;")
            else:
                self.emit(f"REP {_int(rng, 0, 6)};")
            self.depth += 1
            self.loop_depth += 1
            self.body(rng.randint(1, 3))
            self.emit(f"{rng.choice(['BRK', 'CONT', 'BRK'])} ({self.cond()});")
            self.body(rng.randint(0, 2))
            self.loop_depth -= 1
            self.depth -= 1
            self.emit("ENDREP;")
        elif r < 0.14 and self.subs:
            suffix = f" ({self.cond()})" if self.chance(0.3) else ""
            self.emit(f"CAL {rng.choice(self.subs)}{suffix};")
        elif r < 0.15:
            self.emit(f"RET ({self.cond()});" if self.chance(0.7) else "RET;")
        elif r < 0.17 and self.loop_depth and self.chance(0.5):
            self.emit(rng.choice(["BRK;", "CONT;"]))
        elif r < 0.20 and self.stage == "fp":
            if self.chance(0.5):
                self.emit(f"KIL {self.cond()};")
            else:
                self.emit(f"KIL {self.src()};")
        elif r < 0.26 and self.stage == "gp":
            self.emit(rng.choice(["EMIT;", "EMIT;", "ENDPRIM;"]))
        else:
            self.instruction()

    def declarations(self) -> list[str]:
        rng = self.rng
        d: list[str] = []
        head = {"vp": "!!NVvp4.0", "fp": "!!NVfp4.0", "gp": "!!NVgp4.0"}[self.stage]
        d.append(head)
        self.draw_buffers = False
        if self.stage == "fp":
            for opt in ("ARB_draw_buffers", "ARB_fog_linear", "ARB_precision_hint_fastest",
                        "ARB_fragment_program_shadow"):
                if self.chance(0.1):
                    d.append(f"OPTION {opt};")
                    self.draw_buffers |= opt == "ARB_draw_buffers"
        elif self.stage == "vp" and self.chance(0.05):
            d.append("OPTION ARB_position_invariant;")
        if self.stage == "gp":
            prim = rng.choice(list(_NV4_PRIM_IN))
            self.nverts = _NV4_PRIM_IN[prim]
            if not self.wild(0.03):
                d.append(f"PRIMITIVE_IN {prim};")
            if not self.wild(0.03):
                d.append(f"PRIMITIVE_OUT {rng.choice(_NV4_PRIM_OUT)};")
            if not self.wild(0.03):
                d.append(f"VERTICES_OUT {_int(rng, 1, 16)};")
        d.append(f"PARAM c[{self.nparams}] = {{ program.local[0..{self.nparams - 1}] }};")
        if self.chance(0.2):
            d.append("PARAM mvp[4] = { state.matrix.mvp };")
        if self.chance(0.2):
            d.append(f"PARAM k = {{ {', '.join(_float(rng) for _ in range(4))} }};")
            self.inputs.append("k")
        d.append("TEMP " + ", ".join(self.ftemps) + ";")
        if self.itemps:
            d.append("INT TEMP " + ", ".join(self.itemps) + ";")
        if self.utemps:
            d.append("UINT TEMP " + ", ".join(self.utemps) + ";")
        if self.chance(0.15):
            n = rng.choice(["", "4", "16"])
            kind = rng.choice(["BUFFER", "BUFFER4", "INT BUFFER", "UINT BUFFER4"])
            d.append(f"{kind} buf[{n}] = {{ program.buffer[{_int(rng, 0, 11)}] }};")
            self.buffers.append("buf")
        if self.chance(0.25):
            interp = rng.choice(["", "FLAT ", "CENTROID ", "NOPERSPECTIVE ", "INT FLAT "]) \
                if self.stage == "fp" else ""
            d.append(f"{interp}ATTRIB a0 = {self._input()};")
            self.inputs.append("a0")
        if self.stage == "fp":
            if self.chance(0.2) and (self.draw_buffers or self.wild(0.5)):
                d.append("OUTPUT o1 = result.color[1];")
                self.outputs.append("o1")
            self.outputs += ["result.color", "result.depth"] if self.chance(0.3) else ["result.color"]
        else:
            self.outputs += ["result.position", f"result.texcoord[{_int(rng, 0, 7)}]",
                             "result.color", "result.pointsize", f"result.clip[{_int(rng, 0, 5)}]",
                             f"result.attrib[{_int(rng, 0, 15)}]"]
            if self.stage == "gp":
                self.outputs += ["result.layer", "result.primid"]
        if self.chance(0.1):
            d.append(f"ALIAS al = {rng.choice(self.ftemps)};")
        return d

    def program(self) -> str:
        rng = self.rng
        decl = self.declarations()
        nsubs = rng.choice([0, 0, 0, 1, 2])
        self.subs = [f"fn{i}" for i in range(nsubs)]
        for t in self.ftemps:
            self.emit(f"MOV.F {t}, {self._input()};")
        self.body(self.size)
        main_out = "result.color" if self.stage == "fp" else "result.position"
        self.emit(f"MOV.F {main_out}, {rng.choice(self.ftemps)};")
        if self.stage == "gp":
            self.emit("EMIT;")
        if self.subs:
            self.emit("RET;")
            for name in self.subs:
                self.lines.append(f"{name}:")
                self.budget = max(2, self.size // 4)
                self.body(self.budget)
                self.emit("RET;")
        return "\n".join(decl + self.lines + ["END", ""])


# ---------------------------------------------------------------------------------------------
# NV_vertex_program family (!!VP1.0 !!VP1.1 !!VSP1.0 !!VP2.0) and !!ARBvp1.0 (+NV2/NV3)
# ---------------------------------------------------------------------------------------------
_VP_RESULTS = ["HPOS", "COL0", "COL1", "BFC0", "BFC1", "FOGC", "PSIZ"] + [f"TEX{i}" for i in range(8)]
_VP2_RESULTS = [f"CLP{i}" for i in range(6)]
_OLD_CC = list(_legacy.OLD_CC_RULES)


class VPGen(_Base):
    """VP1.0/VP1.1/VSP1.0/VP2.0 (NV syntax) and ARBvp1.0 (+ NV_vertex_program2/3 options)."""

    def __init__(self, rng: random.Random, size: int, dialect: str):
        super().__init__(rng, size)
        self.dialect = dialect
        self.arb = dialect.startswith("arbvp")
        if dialect == "vp10":
            self.header, self.ops = "!!VP1.0", _vp.VP10_OPS
        elif dialect == "vp11":
            self.header, self.ops = "!!VP1.1", _vp.VP11_OPS
        elif dialect == "vsp10":
            self.header, self.ops = "!!VSP1.0", _vp.VP10_OPS
        elif dialect == "vp20":
            self.header, self.ops = "!!VP2.0", _vp.VP20_OPS
        else:
            self.header = "!!ARBvp1.0"
            self.ops = {"arbvp": _arbvp_tables.ARBVP_OPS, "arbvp_nv2": _arbvp_tables.NV2_OPS,
                        "arbvp_nv3": _arbvp_tables.NV3_OPS}[dialect]
        self.ops = sorted(self.ops)
        self.vp2 = dialect in ("vp20", "arbvp_nv2", "arbvp_nv3")
        self.nv3 = dialect == "arbvp_nv3"
        self.ntemps = 16 if self.vp2 else 12
        self.labels: list[str] = []
        self.addr = ["A0"] + (["A1"] if self.vp2 else [])
        self.arb_temps: list[str] = []
        self.arb_params: list[str] = []
        self.arb_outputs: list[str] = []
        self.arb_attribs: list[str] = []
        self.cur_c: str | None = None
        self.nc = 1
        self.shadow = False
        self.cur_v: str | None = None

    # ---- operands ---------------------------------------------------------------------------
    def temp(self) -> str:
        if self.arb:
            return self.rng.choice(self.arb_temps)
        return f"R{_int(self.rng, 0, self.ntemps - 1)}"

    def src(self, scalar: bool = False) -> str:
        rng = self.rng
        r = rng.random()
        if self.arb:
            if r < 0.45:
                base = self.temp()
            elif r < 0.6:
                base = rng.choice(self.arb_attribs + [f"vertex.attrib[{_int(rng, 0, 15)}]",
                                                      "vertex.position", "vertex.normal",
                                                      f"vertex.texcoord[{_int(rng, 0, 7)}]",
                                                      "vertex.color", "vertex.fogcoord",
                                                      "vertex.weight", "vertex.color.secondary"])
            elif r < 0.75:
                if self.chance(0.3):
                    base = _rel(f"c[{rng.choice(self.addr)}.{rng.choice('x' if not self.vp2 else XYZW)}",
                                _int(rng, -64, 63)) + "]"
                else:
                    base = f"c[{_int(rng, 0, self.nc - 1)}]"
            elif r < 0.87:
                base = rng.choice([f"program.env[{_int(rng, 0, 95)}]", f"program.local[{_int(rng, 0, 95)}]",
                                   f"state.matrix.mvp.row[{_int(rng, 0, 3)}]",
                                   f"state.matrix.modelview[{_int(rng, 0, 1)}].invtrans.row[{_int(rng, 0, 3)}]",
                                   "state.light[0].diffuse", "state.material.ambient",
                                   "state.fog.color", f"state.clip[{_int(rng, 0, 5)}].plane"]
                                  + self.arb_params)
            else:
                if self.chance(0.5) or scalar:
                    return _float(rng)
                return "{" + ", ".join(_float(rng) for _ in range(rng.randint(1, 4))) + "}"
        else:
            if r < 0.45:
                base = self.temp()
            elif r < 0.65:
                if self.dialect == "vsp10" and not self.wild(0.3):
                    base = "v[0]"
                else:
                    attr = rng.choice([str(_int(rng, 0, 15))] + list(_vp.ATTRIB_MNEMONICS))
                    base = f"v[{attr}]"
                if self.cur_v is None or self.wild(0.3):
                    self.cur_v = base
                base = self.cur_v
            else:
                if r < 0.85:
                    base = f"c[{_int(rng, 0, 95 if not self.vp2 else 255)}]"
                else:
                    a = rng.choice(self.addr)
                    base = _rel(f"c[{a}.{rng.choice('x' if not self.vp2 else XYZW)}", _int(rng, -64, 63)) + "]"
                    if self.chance(0.2):
                        base = f"c[{a}.x]"
                if self.cur_c is None or self.wild(0.3):
                    self.cur_c = base
                base = self.cur_c
        text = base + ("." + rng.choice(XYZW) if scalar else _swz(rng))
        if self.vp2 and self.chance(0.1):
            text = f"|{text}|"
        if self.chance(0.2):
            text = "-" + text
        elif self.chance(0.03) and (self.arb or self.vp2 or self.wild(1)):
            text = "+" + text
        return text

    def cond(self) -> str:
        reg = ""
        if self.nv3 and self.chance(0.3):
            reg = self.rng.choice(["0", "1"])
        return f"{self.rng.choice(_OLD_CC)}{reg}{_swz(self.rng)}"

    def dest(self) -> str:
        rng = self.rng
        r = rng.random()
        if self.arb:
            if r < 0.2:
                base = rng.choice(self.arb_outputs + ["result.position", "result.color",
                                                      f"result.texcoord[{_int(rng, 0, 7)}]",
                                                      "result.fogcoord", "result.pointsize",
                                                      "result.color.back", "result.color.secondary"]
                                  + ([f"result.clip[{_int(rng, 0, 5)}]"] if self.vp2 else []))
            else:
                base = self.temp()
        elif self.dialect == "vsp10" and r < 0.2:
            base = f"c[{_int(rng, 0, 95)}]"
        elif r < 0.2 and (self.dialect != "vsp10" or self.wild(0.5)):
            base = f"o[{rng.choice(_VP_RESULTS + (_VP2_RESULTS if self.vp2 else []))}]"
        else:
            base = self.temp()
        d = base + _mask(rng)
        if self.vp2 and self.chance(0.1):
            d += f" ({self.cond()})"
        return d

    def suffix(self, op: str) -> str:
        s = ""
        if op in _legacy.NO_SUFFIX_OPS:
            return s
        if self.vp2 and self.chance(0.2):
            s += "C" + (self.rng.choice(["0", "1"]) if self.nv3 and self.chance(0.3) else "")
        if self.nv3 and op not in _legacy.NO_SAT_OPS and self.chance(0.1):
            s += "_SAT"
        if self.wild(0.02):
            s += self.rng.choice(["C", "_SAT", "C1", "X", "R"])
        return s

    # ---- statements ------------------------------------------------------------------------
    def instruction(self) -> None:
        rng = self.rng
        ops = [o for o in self.ops if _legacy.SIGNATURES.get(o) not in ("BRA", "RET")]
        if self.wild(0.02):
            ops = list(_legacy.SIGNATURES)             # an opcode of another dialect, now and then
        op = rng.choice(ops)
        sig = _legacy.SIGNATURES[op]
        s = self.suffix(op)
        self.cur_c = self.cur_v = None
        a = rng.choice(self.addr)
        if sig == "V":
            self.emit(f"{op}{s} {self.dest()}, {self.src()};")
        elif sig == "S":
            self.emit(f"{op}{s} {self.dest()}, {self.src(True)};")
        elif sig == "VV":
            self.emit(f"{op}{s} {self.dest()}, {self.src()}, {self.src()};")
        elif sig == "VVV":
            self.emit(f"{op}{s} {self.dest()}, {self.src()}, {self.src()}, {self.src()};")
        elif sig == "SS":
            self.emit(f"{op}{s} {self.dest()}, {self.src(True)}, {self.src(True)};")
        elif sig == "ARL":
            m = ".x" if not self.vp2 else _mask(rng)
            self.emit(f"{op}{s} {a}{m}, {self.src(not self.vp2)};")
        elif sig == "ARA":
            self.emit(f"ARA{s} {a}{_mask(rng)}, {a}{_swz(rng) if self.wild(0.5) else ''};")
        elif sig == "SWZ":
            comps = ",".join(rng.choice(["x", "y", "z", "w", "0", "1", "-x", "-1", "+y"])
                             for _ in range(4))
            self.emit(f"SWZ{s} {self.dest()}, {self.temp()}, {comps};")
        elif sig == "TEX":
            tgt = rng.choice(list(_arbvp_tables.TARGETS) + (list(_arbvp_tables.SHADOW_TARGETS) if self.shadow else [])
                             + (["ARRAY2D", "SHADOW2D"] if self.wild(0.2) else []))
            self.emit(f"{op}{s} {self.dest()}, {self.src()}, texture[{_int(rng, 0, 15)}], {tgt};")
        elif sig == "PUSHA":
            self.emit(f"PUSHA {a};")
        elif sig == "POPA":
            self.emit(f"POPA {a};")
        else:
            self.emit(f"{op}{s} {self.dest()}, {self.src()};")

    def statement(self) -> None:
        rng = self.rng
        r = rng.random()
        if self.vp2 and r < 0.06:
            name = f"L{len(self.labels)}"
            self.labels.append(name)
            self.lines.append(f"{name}:")
        elif self.vp2 and r < 0.1 and self.labels:
            c = f" ({self.cond()})" if self.chance(0.7) else ""
            self.emit(f"{rng.choice(['BRA', 'BRA', 'CAL'])} "
                      f"{rng.choice(self.labels + (['Lx'] if self.wild(0.1) else []))}{c};")
        elif self.vp2 and r < 0.12:
            self.emit(f"RET ({self.cond()});" if self.chance(0.7) else "RET;")
        else:
            self.instruction()

    def program(self) -> str:
        rng = self.rng
        oneline = self.chance(0.3)
        decl = [self.header + (" # fuzz" if self.chance(0.05) and not oneline else "")]
        if self.arb:
            if self.dialect == "arbvp_nv2":
                decl.append("OPTION NV_vertex_program2;")
            elif self.dialect == "arbvp_nv3":
                decl.append("OPTION NV_vertex_program3;")
                if self.chance(0.3):
                    decl.append("OPTION ARB_fragment_program_shadow;")
                    self.shadow = True
            if self.wild(0.05):
                decl.append("OPTION ARB_position_invariant;")
            if self.wild(0.03):
                decl.append(f"OPTION {rng.choice(_arbvp_tables.OPTIONS + ('NV_fragment_program',))};")
            self.arb_temps = [f"t{i}" for i in range(rng.randint(1, 6))]
            decl.append("TEMP " + ", ".join(self.arb_temps) + ";")
            decl.append("ADDRESS " + ", ".join(self.addr) + ";")
            n = self.nc = rng.choice([1, 4, 16])
            decl.append(f"PARAM c[{n}] = {{ program.env[0..{n - 1}] }};")
            if self.chance(0.3):
                decl.append("PARAM mvp[4] = { state.matrix.mvp };")
                self.arb_params.append(f"mvp[{_int(rng, 0, 3)}]")
            if self.chance(0.3):
                decl.append(f"PARAM k = {{ {', '.join(_float(rng) for _ in range(4))} }};")
                self.arb_params.append("k")
            if self.chance(0.4):
                decl.append(f"ATTRIB pos = vertex.position;")
                self.arb_attribs.append("pos")
            if self.chance(0.4):
                decl.append(f"OUTPUT oc = result.color;")
                self.arb_outputs.append("oc")
            if self.chance(0.1):
                decl.append(f"ALIAS al = {self.arb_temps[0]};")
                self.arb_temps.append("al")
        elif self.vp2 and self.wild(0.05):
            decl.append("OPTION NV_position_invariant;")
        if self.vp2 and self.chance(0.3):
            self.lines.append("main:")
        self.body(self.size)
        if self.arb:
            self.emit(f"MOV result.position, {self.src()};")
        elif self.dialect != "vsp10":
            self.emit(f"MOV o[HPOS], {self.src()};")
        else:
            self.emit(f"MOV c[{_int(rng, 0, 95)}], {self.src()};")
        if self.vp2 and self.labels and self.chance(0.5):
            self.emit("RET;")
            for _ in range(rng.randint(1, 2)):
                name = f"S{len(self.labels)}"
                self.labels.append(name)
                self.lines.append(f"{name}:")
                self.budget = 3
                self.body(3)
                self.emit("RET;")
        if not oneline:
            return ("\n".join(decl + self.lines) + "\nEND\n")
        return " ".join(decl + [ln.strip() for ln in self.lines]) + " END"


# ---------------------------------------------------------------------------------------------
# !!ARBfp1.0 (+ NV_fragment_program / NV_fragment_program2) and !!FP1.0
# ---------------------------------------------------------------------------------------------
_FP_TARGETS = list(_fpt.TARGETS + _fpt.SHADOW_TARGETS)


class FPGen(_Base):
    def __init__(self, rng: random.Random, size: int, dialect: str):
        super().__init__(rng, size)
        self.dialect = dialect
        self.fp1 = dialect == "fp10"
        self.level = {"arbfp": 0, "arbfp_nv": 1, "arbfp_nv2": 2, "fp10": 1}[dialect]
        self.ops = _fpt.FP1_OPS if self.fp1 else _fpt.ARB_LEVELS[self.level]
        self.alu = sorted(o for o in self.ops if o not in _fpt.FLOW_OPS)
        self.temps: list[str] = []
        self.params: list[str] = []
        self.outputs: list[str] = []
        self.labels: list[str] = []
        self.loop_depth = 0
        self.draw_buffers = False
        self.shadow = False
        self.fp1_out = rng.choice(["COLR", "COLH"])
        self.cur_p: str | None = None
        self.cur_f: str | None = None
        self.no_half = False          # PK*/UP*: 32-bit registers (FP1 3.11.5.27)

    def src(self, scalar: bool = False) -> str:
        rng = self.rng
        r = rng.random()
        if self.fp1:
            if r < 0.5:
                base = self.reg()
            elif r < 0.7:
                base = f"f[{rng.choice(['TEX0', 'TEX1', 'TEX3', 'TEX7', 'COL0', 'COL1', 'WPOS', 'FOGC'] + (['TEX8', 'BAD'] if self.wild(0.2) else []))}]"
                if self.cur_f is None or self.wild(0.3):      # FP1 3.11.2: one attribute
                    self.cur_f = base
                base = self.cur_f
            elif r < 0.85:
                base = rng.choice(self.params + [f"p[{_int(rng, 0, 63)}]"])
                if self.cur_p is None or self.wild(0.3):      # FP1 3.11.2: one parameter
                    self.cur_p = base
                base = self.cur_p
            else:
                if self.cur_p is not None and not self.wild(0.3):
                    base = self.cur_p       # a parameter, or the constant, already read
                    return base if base.startswith("{") else base + _swz(rng)
                if scalar and not self.wild(0.3):
                    text = "{" + _float(rng) + "}.x"
                elif self.chance(0.5) and not scalar:
                    text = _float(rng)
                else:
                    text = "{" + ", ".join(_float(rng) for _ in range(rng.randint(1, 4))) + "}"
                self.cur_p = text
                return text
        else:
            if r < 0.45:
                base = rng.choice(self.temps)
            elif r < 0.65:
                base = rng.choice([f"fragment.texcoord[{_int(rng, 0, 7)}]", "fragment.texcoord",
                                   "fragment.color", "fragment.color.secondary", "fragment.position",
                                   "fragment.fogcoord"] + (["fragment.facing"] if self.level == 2 or self.wild(0.2) else []))
            elif r < 0.85:
                base = rng.choice(self.params + [f"program.local[{_int(rng, 0, 31)}]",
                                                 f"program.env[{_int(rng, 0, 31)}]",
                                                 "state.fog.color", f"state.texenv[{_int(rng, 0, 7)}].color",
                                                 f"state.matrix.texture[{_int(rng, 0, 7)}].row[{_int(rng, 0, 3)}]",
                                                 "state.depth.range"])
            else:
                if scalar and not self.wild(0.3):
                    return "{" + _float(rng) + "}.x"
                if self.chance(0.5) and not scalar:
                    return _float(rng)
                return "{" + ", ".join(_float(rng) for _ in range(rng.randint(1, 4))) + "}"
        letters = "xyzw" if self.chance(0.8) or (self.fp1 and not self.wild(0.3)) else "rgba"
        text = base + ("." + rng.choice(letters) if scalar else _swz(rng, letters))
        if self.level and self.chance(0.12):
            text = f"|{text}|"
        if self.chance(0.2):
            text = "-" + text
        return text

    def reg(self) -> str:
        rng = self.rng
        if self.chance(0.7) or (self.no_half and not self.wild(0.3)):
            return f"R{_int(rng, 0, 31)}"
        return f"H{_int(rng, 0, 63)}"

    def cond(self) -> str:
        reg = rng_reg = ""
        if self.wild(0.1):
            rng_reg = self.rng.choice(["0", "1"])
        reg = rng_reg
        return f"{self.rng.choice(_OLD_CC)}{reg}{_swz(self.rng)}"

    def dest(self, now: bool = False) -> str:
        rng = self.rng
        if self.fp1:
            half_ok = not self.no_half or self.wild(0.3)
            outs = [o for o in (self.fp1_out, "DEPR") if half_ok or o != "COLH"] or ["DEPR"]
            base = (f"o[{rng.choice(outs + (['TEX0', 'COLR', 'COLH'] if self.wild(0.3) else []))}]"
                    if self.chance(0.15)
                    else rng.choice([self.reg(), self.reg(), "RC"] + (["HC"] if half_ok else [])))
        else:
            base = (rng.choice(self.outputs + ["result.color", "result.depth"] +
                               ([f"result.color[{_int(rng, 0, 7)}]"] if self.draw_buffers or self.wild(0.2) else []))
                    if self.chance(0.15) else rng.choice(self.temps))
        mask = _mask(rng)
        if now and not self.wild(0.3):          # RFL, ...: no w component in the result
            mask = "." + "".join(c for c in (mask[1:] or "xyz") if c in "xyz") if "w" in (mask or ".w") else mask
            mask = mask if mask != "." else ".x"
        d = base + mask
        if self.level and self.chance(0.12):
            d += f" ({self.cond()})"
        return d

    def suffix(self, op: str) -> str:
        rng = self.rng
        flags = self.ops.get(op, "")
        s = ""
        if "R" in flags and self.chance(0.5):
            s += rng.choice("RHX" if "X" in flags else "RH")
        if "C" in flags and self.chance(0.2):
            s += "C"
        if "S" in flags and self.chance(0.15):
            s += "_SAT" if (self.level < 2 or self.chance(0.7)) else "_SSAT"
        if self.wild(0.02):
            s += rng.choice(["C", "_SAT", "R", "X", "C0"])
        return s

    def instruction(self) -> None:
        rng = self.rng
        ops = self.alu if not self.wild(0.02) else sorted(_fpt.ARBFP_NV2_OPS)
        op = rng.choice(ops)
        s = self.suffix(op)
        self.cur_p = self.cur_f = None
        self.no_half = op[:2] in ("PK", "UP")
        if op == "KIL":
            if self.level and (self.chance(0.5) or (self.fp1 and not self.wild(0.3))):
                self.emit(f"KIL {self.cond()};")
            else:
                self.emit(f"KIL {self.src()};")
            return
        if op in _fpt.FLOW_OPS:
            self.emit(f"{op};")
            return
        if op in ("TEX", "TXP", "TXB", "TXL", "TXD"):
            unit = f"TEX{_int(rng, 0, 15)}" if self.fp1 else f"texture[{_int(rng, 0, 15)}]"
            extra = f", {self.src()}, {self.src()}" if op == "TXD" else ""
            targets = list(_fpt.TARGETS) + (list(_fpt.SHADOW_TARGETS) if self.shadow or self.wild(0.2) else [])
            self.emit(f"{op}{s} {self.dest()}, {self.src()}{extra}, {unit}, {rng.choice(targets)};")
            return
        if op == "SWZ":
            comps = ",".join(rng.choice(["x", "y", "z", "w", "0", "1", "-x", "-1", "+y"]
                                        + (["r", "b"] if self.wild(0.2) else []))
                             for _ in range(4))
            self.emit(f"SWZ{s} {self.dest()}, {rng.choice(self.temps or ['R0'])}, {comps};")
            return
        info = _irops.OPCODES.get(op)
        kinds = list(info.inputs) if info else ["v"]
        if op in ("SCS",):
            kinds = ["s"]
        if op in ("PK2H", "PK2US", "PK4B", "PK4UB"):
            kinds = ["v"]
        srcs = ", ".join(self.src(k == "s") for k in kinds)
        self.emit(f"{op}{s} {self.dest(op in ('RFL', 'DST', 'XPD', 'NRM', 'SCS'))}, {srcs};")

    def statement(self) -> None:
        rng = self.rng
        r = rng.random()
        flow = self.level == 2 and not self.fp1
        if flow and r < 0.07 and self.depth < 4:
            self.emit(f"MOVC {rng.choice(self.temps)}, {self.src()};" if self.chance(0.5) else "")
            self.emit(f"IF {self.cond()};")
            self.depth += 1
            self.body(rng.randint(1, 3))
            self.depth -= 1
            if self.chance(0.5):
                self.emit("ELSE;")
                self.depth += 1
                self.body(rng.randint(1, 3))
                self.depth -= 1
            self.emit("ENDIF;")
        elif flow and r < 0.12 and self.depth < 4 and self.loop_depth < 4:
            if self.chance(0.5):
                self.emit(f"REP {rng.choice([str(_int(rng, 0, 300)), 'program.local[0].x'] + ([''] if self.wild(0.3) else []))};")
                close = "ENDREP;"
            else:
                self.emit(f"LOOP {rng.choice(['{3, 0, 1}', 'program.local[1]', '{0, 0, 0}'])};")
                close = "ENDLOOP;"
            self.depth += 1
            self.loop_depth += 1
            self.body(rng.randint(1, 3))
            self.emit(f"BRK ({self.cond()});" if self.chance(0.7) else "BRK;")
            self.loop_depth -= 1
            self.depth -= 1
            self.emit(close)
        elif flow and r < 0.14 and self.labels:
            c = f" ({self.cond()})" if self.chance(0.5) else ""
            self.emit(f"CAL {rng.choice(self.labels)}{c};")
        elif flow and r < 0.15:
            self.emit(f"RET ({self.cond()});" if self.chance(0.6) else "RET;")
        else:
            self.instruction()

    def program(self) -> str:
        rng = self.rng
        decl = []
        if self.fp1:
            decl.append("!!FP1.0")
            for i in range(rng.randint(0, 3)):
                kw = rng.choice(["DECLARE", "DEFINE"])
                name = f"k{i}" if not self.chance(0.05) else "IN$var"
                init = f" = {{{', '.join(_float(rng) for _ in range(rng.randint(1, 4)))}}}" \
                    if (kw == "DEFINE" or self.chance(0.5)) else ""
                decl.append(f"{kw} {name}{init};")
                self.params.append(name)
        else:
            decl.append("!!ARBfp1.0")
            if self.level:
                decl.append(f"OPTION {_fpt.LEVEL_OPTION[self.level]};")
            for opt in ("ARB_fog_exp", "ARB_fog_linear", "ARB_precision_hint_nicest",
                        "ARB_draw_buffers", "ARB_fragment_program_shadow"):
                if self.chance(0.05 if opt not in ("ARB_draw_buffers", "ARB_fragment_program_shadow") else 0.25):
                    decl.append(f"OPTION {opt};")
                    self.draw_buffers |= opt == "ARB_draw_buffers"
                    self.shadow |= opt == "ARB_fragment_program_shadow"
            self.temps = [f"t{i}" for i in range(rng.randint(1, 6))]
            decl.append("TEMP " + ", ".join(self.temps) + ";")
            if self.level and self.chance(0.3):
                decl.append(f"{rng.choice(['SHORT', 'LONG'])} TEMP h0;")
                self.temps.append("h0")
            if self.level and self.chance(0.2):
                decl.append("TEMP RC, HC;")
            n = rng.choice([1, 4, 8])
            decl.append(f"PARAM c[{n}] = {{ program.local[0..{n - 1}] }};")
            self.params.append(f"c[{_int(rng, 0, n - 1)}]")
            if self.chance(0.3):
                decl.append(f"PARAM k = {{ {', '.join(_float(rng) for _ in range(4))} }};")
                self.params.append("k")
            if self.chance(0.3):
                decl.append("ATTRIB tc = fragment.texcoord[0];")
                self.params.append("tc")
            if self.chance(0.3):
                decl.append("OUTPUT oc = result.color;")
                self.outputs.append("oc")
        if self.level == 2 and not self.fp1 and self.chance(0.3):
            self.labels = ["sub0"]
        self.body(self.size)
        out = f"o[{self.fp1_out}]" if self.fp1 else "result.color"
        self.emit(f"MOV{'R' if self.fp1 else ''} {out}, {self.src()};")
        if self.labels:
            self.emit("RET;")
            self.lines.append("sub0:")
            self.budget = 3
            self.body(3)
            self.emit("RET;")
        text = "\n".join(ln for ln in decl + self.lines if ln.strip()) + "\nEND\n"
        return text


# ---------------------------------------------------------------------------------------------
# TGSI text
# ---------------------------------------------------------------------------------------------
_TGSI_TARGETS = ["1D", "2D", "3D", "CUBE", "RECT", "SHADOW1D", "SHADOW2D", "SHADOWRECT",
                 "1D_ARRAY", "2D_ARRAY", "SHADOW1D_ARRAY", "SHADOW2D_ARRAY", "SHADOWCUBE"]
_TGSI_TARGETS_WILD = ["2D_MSAA", "2D_ARRAY_MSAA", "CUBEARRAY", "SHADOWCUBEARRAY", "BUFFER",
                      "UNKNOWN", "CUBE_ARRAY"]
_TGSI_INT_OPS = frozenset(
    "I2F U2F F2I F2U UADD UMUL UMAD IDIV UDIV UMOD MOD IMAX IMIN UMAX UMIN INEG IABS ISSG NOT AND "
    "OR XOR SHL ISHR USHR ISLT ISGE USLT USGE USEQ USNE UCMP UARL IMUL_HI UMUL_HI IBFE UBFE BFI "
    "BREV POPC LSB IMSB UMSB".split())
_TGSI_SEM_OUT = ["POSITION", "GENERIC", "COLOR", "BCOLOR", "FOG", "PSIZE", "TEXCOORD", "CLIPDIST",
                 "EDGEFLAG", "LAYER", "PRIM_ID"]
_TGSI_SEM_IN_FS = ["GENERIC", "COLOR", "POSITION", "FACE", "FOG", "TEXCOORD", "PRIM_ID", "PCOORD"]
_TGSI_INTERP = ["", ", PERSPECTIVE", ", LINEAR", ", CONSTANT", ", COLOR", ", PERSPECTIVE, CENTROID",
                ", LINEAR, SAMPLE"]
_TGSI_SV = ["VERTEXID", "INSTANCEID", "POSITION", "FACE", "PRIM_ID", "SAMPLEID", "THREAD_ID",
            "VERTEXID_NOBASE", "INVOCATIONID"]


class TGSIGen(_Base):
    def __init__(self, rng: random.Random, size: int):
        super().__init__(rng, size)
        self.proc = rng.choice(["VERT", "FRAG", "FRAG", "GEOM"] + (["COMP"] if self.wild(0.05) else []))
        tiers = ("C", "L") if not self.wild(0.5) else ("C", "T2", "L", "R", "X")
        self.ops = sorted(o.name for o in _tgsi_ops.OPCODES.values() if o.tier in tiers
                          and not o.branch and o.name not in
                          ("ENDIF", "BRK", "CONT", "RET", "ENDSUB", "SWITCH", "CASE", "DEFAULT",
                           "ENDSWITCH", "END"))
        self.ntemp = rng.randint(1, 8)
        self.nin = rng.randint(1, 4)
        self.nout = rng.randint(1, 4)
        self.nconst = rng.randint(1, 8)
        self.nimm = 0
        self.naddr = 0
        self.nsamp = rng.randint(0, 3)
        self.loop_depth = 0
        self.subs = 0
        self.int_imms: list[int] = []
        self.const2d: int | None = None
        if self.nsamp == 0 and not self.wild(0.5):
            self.nsamp = 1

    def reg(self, file: str, n: int) -> str:
        if n <= 0 or self.wild(0.02):
            n = max(n, 1)
            return f"{file}[{_int(self.rng, 0, n + 2)}]"
        return f"{file}[{self.rng.randrange(n)}]"

    def src(self, swizzle: bool = True, absolute: bool = True) -> str:
        rng = self.rng
        r = rng.random()
        if r < 0.45:
            base = self.reg("TEMP", self.ntemp)
        elif r < 0.6:
            if self.proc == "GEOM":
                base = f"IN[{_int(rng, 0, 2)}][{rng.randrange(self.nin)}]"
            else:
                base = self.reg("IN", self.nin)
        elif r < 0.75:
            if self.naddr and self.chance(0.3):
                base = f"CONST[ADDR[0].{rng.choice(XYZW)}+{_int(rng, 0, self.nconst)}]"
            elif self.const2d is not None or self.wild(0.1):
                base = f"CONST[{self.const2d or 1}][{rng.randrange(self.nconst)}]"
            else:
                base = self.reg("CONST", self.nconst)
        elif r < 0.9 and self.nimm:
            base = self.reg("IMM", self.nimm)
        elif self.naddr and self.chance(0.5):
            base = f"TEMP[ADDR[0].x+{_int(rng, 0, self.ntemp)}]"
        else:
            base = self.reg("TEMP", self.ntemp)
        swz = rng.choice(["", "", "." + "".join(rng.choice(XYZW) for _ in range(4)),
                          "." + rng.choice(XYZW), "." + "".join(rng.choice(XYZW) for _ in range(2))])
        text = base + (swz if swizzle else "")
        if self.chance(0.1) and swizzle and absolute:
            text = f"|{text}|"
        if self.chance(0.15):
            text = "-" + text
        return text

    def dst(self) -> str:
        rng = self.rng
        if self.chance(0.2):
            base = self.reg("OUT", self.nout)
        elif self.naddr and self.chance(0.05):
            base = "ADDR[0]"
        elif self.naddr and self.chance(0.05):
            base = f"TEMP[ADDR[0].x+{_int(rng, 0, self.ntemp)}]"
        else:
            base = self.reg("TEMP", self.ntemp)
        return base + _mask(rng)

    def instruction(self) -> None:
        rng = self.rng
        op = rng.choice(self.ops)
        info = _tgsi_ops.OPCODES[op]
        name = op + ("_SAT" if self.chance(0.1) and op not in _TGSI_INT_OPS else "")
        aliases = [a for a, t in _tgsi_ops.ALIASES.items() if t == op]
        if aliases and self.chance(0.2):
            name = rng.choice(aliases)
        integer = op in _TGSI_INT_OPS and not self.wild(0.3)
        operands = [self.dst() for _ in range(info.ndst)] + [self.src(absolute=not integer)
                                                              for _ in range(info.nsrc)]
        if info.tex or op.startswith("SAMPLE") or op in ("SVIEWINFO",):
            if operands:
                operands[-1] = f"SAMP[{_int(rng, 0, max(self.nsamp, 1) - 1)}]"
            if info.tex:
                operands.append(rng.choice(_TGSI_TARGETS + (_TGSI_TARGETS_WILD if self.wild(0.3) else [])))
                if self.chance(0.1) and self.nimm:
                    operands.append(f"IMM[{rng.randrange(self.nimm)}].xyz")
        if info.memory or op in ("EMIT", "ENDPRIM") and self.nimm:
            if op in ("EMIT", "ENDPRIM"):
                operands = [f"IMM[{rng.randrange(self.nimm)}].xxxx"]
        self.emit(f"{name} {', '.join(operands)}".rstrip())

    def statement(self) -> None:
        rng = self.rng
        r = rng.random()
        nest = self.depth < 4
        if r < 0.07 and nest:
            self.emit(f"{rng.choice(['IF', 'UIF'])} {self.src(swizzle=False)}.{rng.choice(XYZW) * 4} :0")
            self.depth += 1
            self.body(rng.randint(1, 3))
            self.depth -= 1
            if self.chance(0.5):
                self.emit("ELSE :0")
                self.depth += 1
                self.body(rng.randint(1, 3))
                self.depth -= 1
            self.emit("ENDIF")
        elif r < 0.11 and nest and self.loop_depth < 3:
            self.emit("BGNLOOP :0")
            self.depth += 1
            self.loop_depth += 1
            self.body(rng.randint(1, 3))
            self.emit(f"IF {self.src()} :0")
            self.emit("   BRK")
            self.emit("ENDIF")
            if self.chance(0.3):
                self.emit("CONT")
            self.loop_depth -= 1
            self.depth -= 1
            self.emit("ENDLOOP :0")
        elif r < 0.13 and nest and self.int_imms:
            self.emit(f"SWITCH {self.src()}")
            self.depth += 1
            for _ in range(rng.randint(1, 3)):
                self.emit(f"CASE IMM[{rng.choice(self.int_imms)}].{rng.choice(XYZW)}")
                self.body(rng.randint(0, 2))
                if self.chance(0.7):
                    self.emit("BRK")
            if self.chance(0.5):
                self.emit("DEFAULT")
                self.body(1)
                self.emit("BRK")
            self.depth -= 1
            self.emit("ENDSWITCH")
        elif r < 0.15 and self.loop_depth:
            self.emit(rng.choice(["BRK", "CONT"]))
        elif r < 0.17 and self.proc == "FRAG":
            self.emit(rng.choice(["KILL", f"KILL_IF {self.src()}"]))
        elif r < 0.2 and self.proc == "GEOM" and self.nimm:
            self.emit(f"{rng.choice(['EMIT', 'EMIT', 'ENDPRIM'])} IMM[0].xxxx")
        elif r < 0.21 and self.subs:
            self.emit(f"CAL :{rng.randrange(self.subs) + 1000}")
        elif r < 0.215:
            self.emit("RET")
        else:
            self.instruction()

    def program(self) -> str:
        rng = self.rng
        head = [self.proc]
        if self.proc == "GEOM":
            head += [f"PROPERTY GS_INPUT_PRIMITIVE {rng.choice(['TRIANGLES', 'POINTS', 'LINES', 'TRIANGLES_ADJACENCY'])}",
                     f"PROPERTY GS_OUTPUT_PRIMITIVE {rng.choice(['TRIANGLE_STRIP', 'POINTS', 'LINE_STRIP'])}",
                     f"PROPERTY GS_MAX_OUTPUT_VERTICES {_int(rng, 1, 16)}"]
        if self.proc == "FRAG" and self.chance(0.3):
            head.append(rng.choice(["PROPERTY FS_COLOR0_WRITES_ALL_CBUFS 1",
                                    "PROPERTY FS_COORD_PIXEL_CENTER INTEGER",
                                    "PROPERTY FS_COORD_ORIGIN UPPER_LEFT"]))
        for i in range(self.nin):
            if self.proc == "VERT":
                head.append(f"DCL IN[{i}]")
            elif self.proc == "FRAG":
                sem = rng.choice(_TGSI_SEM_IN_FS)
                top = {"GENERIC": 9, "TEXCOORD": 7, "COLOR": 1}.get(sem)
                idx = f"[{_int(rng, 0, top)}]" if top else ""
                head.append(f"DCL IN[{i}], {sem}{idx}{rng.choice(_TGSI_INTERP)}")
            else:
                sem = rng.choice(["POSITION", "GENERIC[0]", "GENERIC[1]", "COLOR", "PRIM_ID"])
                head.append(f"DCL IN[][{i}], {sem}")
        for i in range(self.nout):
            if self.proc == "FRAG":
                sem = rng.choice(["COLOR", "COLOR", "POSITION", "STENCIL"])
                idx = f"[{i}]" if sem == "COLOR" and self.chance(0.5) else ""
                head.append(f"DCL OUT[{i}], {sem}{idx}")
            else:
                sem = "POSITION" if i == 0 else rng.choice(_TGSI_SEM_OUT)
                idx = f"[{_int(rng, 0, 9)}]" if sem in ("GENERIC", "TEXCOORD", "COLOR", "CLIPDIST") else ""
                head.append(f"DCL OUT[{i}], {sem}{idx}")
        if self.chance(0.15):
            head.append(f"DCL SV[0], {rng.choice(_TGSI_SV)}")
        if self.nconst:
            if self.chance(0.8):
                head.append(f"DCL CONST[0..{self.nconst - 1}]")
            else:
                self.const2d = _int(rng, 0, 2)
                head.append(f"DCL CONST[{self.const2d}][0..{self.nconst - 1}]")
        head.append(f"DCL TEMP[0..{self.ntemp - 1}]" + rng.choice(["", ", LOCAL"]))
        if self.chance(0.2):
            self.naddr = 1
            head.append("DCL ADDR[0]")
        for i in range(self.nsamp):
            head.append(f"DCL SAMP[{i}]")
            if self.chance(0.5):
                head.append(f"DCL SVIEW[{i}], {rng.choice(['2D', 'CUBE', '3D', 'RECT'])}, "
                            f"{rng.choice(['FLOAT', 'FLOAT', 'SINT', 'UINT'])}")
        for i in range(rng.randint(0, 3)):
            kind = rng.choice(["FLT32", "FLT32", "UINT32", "INT32"])
            if kind == "FLT32":
                vals = [_float(rng) for _ in range(4)]
            else:
                vals = [str(_int(rng, 0, 16)) for _ in range(4)]
                self.int_imms.append(i)
            head.append(f"IMM[{i}] {kind} {{{', '.join(vals)}}}")
            self.nimm += 1
        self.subs = rng.choice([0, 0, 0, 1])
        self.body(self.size)
        self.emit(f"MOV OUT[0], {self.src()}")
        self.emit("END")
        if self.subs:
            self.emit("BGNSUB :1000")
            self.budget = 2
            self.body(2)
            self.emit("RET")
            self.emit("ENDSUB")
        numbered = [f"{i:3d}: {ln}" if self.chance(0.9) else ln for i, ln in enumerate(self.lines)]
        return "\n".join(head + numbered) + "\n"


# ---------------------------------------------------------------------------------------------
def generate(dialect: str, rng: random.Random, size: int = 12, wild: bool | None = None) -> str:
    """One random program of ``dialect`` (a key of :data:`DIALECTS`).  ``wild``: allow
    deliberately doubtful pieces (default: drawn, 40 % of programs)."""
    rng.wild = rng.random() < 0.4 if wild is None else wild
    if dialect.startswith("nv4"):
        return NV4Gen(rng, size, dialect[3:]).program()
    if dialect in ("vp10", "vp11", "vsp10", "vp20", "arbvp", "arbvp_nv2", "arbvp_nv3"):
        return VPGen(rng, size, dialect).program()
    if dialect in ("arbfp", "arbfp_nv", "arbfp_nv2", "fp10"):
        return FPGen(rng, size, dialect).program()
    if dialect == "tgsi":
        return TGSIGen(rng, size).program()
    raise ValueError(f"unknown dialect {dialect!r}")
