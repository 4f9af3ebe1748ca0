"""A terse IR builder for executor tests (hand-built Programs, no frontend needed).

    p = build('''
        ADD.S.CC R0, a, {1, 2, 3, 4}
        MOV R1.xy (GT.x), -|a.y|
    ''', inputs={"a": "vertex.attrib[0]"}, outputs={"o": "result.color"})

* temps: any undeclared name that is written or read is a TEMP (``temps={"arr": 4}`` declares
  an array); inputs/params/outputs: name -> binding text (``"x.y[3]"``) or a Register.
* literals: numbers and ``{a, b, c, d}`` become CONST registers typed by the instruction
  (float bits for .F, integer words for .S/.U); a scalar literal replicates.
* modifiers in any order after the opcode: .F .S .U .SAT .SSAT .CC .CC0 .CC1 .HI .S24 .U24;
  ``kind=`` per line via a trailing ``#kind=SUB`` comment sets Instruction.cc_kind.
* flow: ``IF NE.x``, ``BRK (GT.x)``, ``CONT``, ``REP n.x``, ``REP``, ``CAL f (EQ)``, ``RET``,
  ``BRA f (GT.x)``, ``PUSHA.S a``, ``POPA.S a``,
  ``KIL a`` / ``KIL LT.x``, ``EMIT``, ``ENDPRIM``; labels ``name:``.
"""
from __future__ import annotations

import re
import struct

import numpy as np

from xlate.ir.ops import CC_RULES
from xlate.ir.model import (Binding, CCKind, CondTest, DataType, Dest, Geometry, Index,
                            Instruction, Program, Register, RegKind, Sat, Source, Stage, TexRef)

SWZ = {"x": 0, "y": 1, "z": 2, "w": 3, "r": 0, "g": 1, "b": 2, "a": 3}
_TYPES = {"F": DataType.FLOAT, "S": DataType.INT, "U": DataType.UINT}
_FLOW_COND = {"BRK", "CONT", "CAL", "RET", "BRA"}


def parse_binding(text: str) -> Binding:
    """``vertex[1].color`` / ``program.local[3]`` / ``state.matrix.mvp.row[0]`` -> Binding."""
    vertex = None
    m = re.match(r"^(\w+)\[(\d+)\]\.(.*)$", text)
    if m and m.group(1) == "vertex":
        vertex = int(m.group(2))
        text = m.group(1) + "." + m.group(3)
    idx = [int(i) for i in re.findall(r"\[(\d+)\]", text)]
    path = re.sub(r"\[\d+\]", "", text)
    return Binding(path, idx[0] if idx else None, idx[1] if len(idx) > 1 else None, vertex)


def f2w(v: float) -> int:
    return struct.unpack("<I", struct.pack("<f", v))[0]


def w2f(w: int) -> float:
    return struct.unpack("<f", struct.pack("<I", w & 0xFFFFFFFF))[0]


def _num(tok: str, t: DataType) -> int:
    tok = tok.strip()
    if t == DataType.FLOAT:
        if tok.lower() in ("nan", "+nan"):
            return 0x7FC00000
        if tok.lower() in ("-nan",):
            return 0xFFC00000
        if tok.lower() in ("inf", "+inf"):
            return 0x7F800000
        if tok.lower() == "-inf":
            return 0xFF800000
        if tok.lower().startswith("0x"):
            return int(tok, 16)
        return f2w(float(tok))
    v = int(tok, 0) if not re.match(r"^-?\d+\.\d*", tok) else int(float(tok))
    return v & 0xFFFFFFFF


class _Builder:
    def __init__(self, stage, inputs, params, outputs, temps, consts, geometry):
        self.regs: dict[str, Register] = {}
        self.stage = stage
        for kind, table in ((RegKind.INPUT, inputs), (RegKind.PARAM, params),
                            (RegKind.OUTPUT, outputs)):
            for name, b in (table or {}).items():
                if isinstance(b, Register):
                    self.regs[name] = b
                elif isinstance(b, (list, tuple)):
                    bs = tuple(parse_binding(x) if isinstance(x, str) else None for x in b)
                    self.regs[name] = Register(name, kind, size=len(bs), bindings=bs)
                else:
                    self.regs[name] = Register(
                        name, kind, bindings=(parse_binding(b),) if b else (),
                        per_vertex=(kind == RegKind.INPUT and stage == Stage.GEOMETRY
                                    and b is not None and b.startswith("vertex.")))
        for name, size in (temps or {}).items():
            self.regs[name] = Register(name, RegKind.TEMP, size=size)
        for name, words in (consts or {}).items():
            self.regs[name] = Register(name, RegKind.CONST, value=tuple(words))
        self.insts: list[Instruction] = []
        self.labels: dict[str, int] = {}
        self.nconst = 0
        self.geometry = geometry

    def reg(self, name: str) -> str:
        if name not in self.regs:
            self.regs[name] = Register(name, RegKind.TEMP)
        return name

    def const(self, text: str, t: DataType) -> str:
        text = text.strip()
        if text.startswith("{"):
            parts = [p for p in text.strip("{}").split(",")]
        else:
            parts = [text]
        words = [_num(p, t) for p in parts]
        while len(words) < 4:
            words.append(words[-1] if len(parts) == 1 else 0)
        name = f"$c{self.nconst}"
        self.nconst += 1
        self.regs[name] = Register(name, RegKind.CONST, value=(tuple(words),), implicit=True)
        return name

    def index(self, text: str) -> Index:
        text = text.replace(" ", "")
        m = re.match(r"^(\d+)$", text)
        if m:
            return Index(int(text))
        m = re.match(r"^(\w+)\.([xyzw])([+-]\d+)?$", text)
        assert m, text
        return Index(int(m.group(3) or 0), self.reg(m.group(1)), SWZ[m.group(2)])

    def source(self, text: str, t: DataType) -> Source:
        text = text.strip()
        neg = False
        if text.startswith("-"):
            neg, text = True, text[1:].strip()
        is_abs = text.startswith("|")
        if is_abs:
            text = text.strip("|")
        if text.startswith("{") or re.match(r"^[\d.]|^(nan|inf|0x)", text, re.I):
            m = re.match(r"^(\{[^}]*\}|[^.]*(?:\.\d+)?(?:e[-+]?\d+)?)(?:\.([xyzw]{1,4}))?$", text)
            name = self.const(m.group(1), t)
            swz = m.group(2)
            idx = None
            vertex = None
        else:
            m = re.match(r"^(\w+)((?:\[[^\]]+\])*)(?:\.([xyzwrgba]{1,4}))?$", text)
            assert m, text
            name = self.reg(m.group(1))
            subs = re.findall(r"\[([^\]]+)\]", m.group(2))
            swz = m.group(3)
            idx = vertex = None
            if self.regs[name].per_vertex:
                if subs:
                    vertex = self.index(subs[0])
                    subs = subs[1:]
            if subs:
                idx = self.index(subs[0])
        sw = (0, 1, 2, 3)
        if swz:
            sw = tuple(SWZ[c] for c in swz)
            if len(sw) == 1:
                sw = sw * 4
        return Source(name, idx, vertex, sw, neg, is_abs)

    def cond(self, text: str) -> CondTest:
        text = text.strip().strip("()")
        m = re.match(r"^([A-Z]+?)([01])?(?:\.([xyzw]{1,4}))?$", text)
        assert m, text
        sw = (0, 1, 2, 3)
        if m.group(3):
            sw = tuple(SWZ[c] for c in m.group(3))
            if len(sw) == 1:
                sw = sw * 4
        return CondTest(m.group(1), int(m.group(2) or 0), sw)

    def dest(self, text: str) -> Dest:
        text = text.strip()
        cond = None
        m = re.match(r"^(.*?)\s*\(([^)]*)\)$", text)
        if m:
            text, cond = m.group(1), self.cond(m.group(2))
        m = re.match(r"^(\w+)(?:\[([^\]]+)\])?(?:\.([xyzw]{1,4}))?$", text)
        assert m, text
        name = self.reg(m.group(1))
        idx = self.index(m.group(2)) if m.group(2) else None
        mask = (True,) * 4
        if m.group(3):
            mask = tuple(c in m.group(3) for c in "xyzw")
        return Dest(name, idx, mask, cond)

    def line(self, line: str):
        kind = None
        if "#" in line:
            line, comment = line.split("#", 1)
            km = re.search(r"kind=(\w+)", comment)
            if km:
                kind = CCKind[km.group(1)]
        line = line.strip().rstrip(";").strip()
        if not line:
            return
        m = re.match(r"^(\w+):$", line)
        if m:
            self.labels[m.group(1)] = len(self.insts)
            return
        head, _, rest = line.partition(" ")
        parts = head.split(".")
        op, mods = parts[0], parts[1:]
        t = None
        sat = Sat.NONE
        cc = None
        mul = None
        for md in mods:
            if md in _TYPES:
                t = _TYPES[md]
            elif md in ("SAT", "SSAT"):
                sat = Sat[md]
            elif md in ("CC", "CC0"):
                cc = 0
            elif md == "CC1":
                cc = 1
            elif md in ("HI", "S24", "U24"):
                mul = md
            else:
                raise AssertionError(f"modifier {md}")
        from xlate.ir.ops import OPCODES
        info = OPCODES[op]
        if t is None:
            t = {"S24": DataType.INT, "U24": DataType.UINT}.get(mul, info.default)
        rest = rest.strip()
        inst = Instruction(op, dtype=t, sat=sat, cc_update=cc, cc_kind=kind, mul_mode=mul,
                           text=line)
        if op == "IF":
            inst.cond = self.cond(rest)
        elif op in _FLOW_COND:
            m = re.match(r"^(\w+)?\s*(\(.*\)|[A-Z]+[01]?(?:\.[xyzw]+)?)?$", rest)
            if op in ("CAL", "BRA"):
                inst.label = m.group(1)
                if m.group(2):
                    inst.cond = self.cond(m.group(2))
            elif rest:
                inst.cond = self.cond(rest)
        elif op == "KIL":
            cm = re.match(r"^\(?([A-Z]+?)[01]?(\.[xyzw]+)?\)?$", rest)
            if cm and cm.group(1) in CC_RULES:
                inst.cond = self.cond(rest)
            else:
                inst.srcs = (self.source(rest, t),)
        elif op == "REP":
            if rest:
                inst.srcs = (self.source(rest, t),)
        elif op in ("PUSHA", "SWITCH", "CASE"):  # VP3 PUSHA; TGSI SWITCH selector, CASE constant
            inst.srcs = (self.source(rest, t),)
        elif op in ("ELSE", "ENDIF", "ENDREP", "EMIT", "ENDPRIM", "DEFAULT", "ENDSWITCH", "DEMOTE"):
            pass
        else:
            args = _split_args(rest)
            tex = None
            if info.category == "tex":
                tm = re.match(r"^texture\[(\d+)\]$", args[-2].strip())
                tex = TexRef(int(tm.group(1)), args[-1].strip())
                args = args[:-2]
            inst.tex = tex
            inst.dst = self.dest(args[0])
            if op == "SWZ":
                src = self.source(args[1], t)
                sels, negs = [], []
                for a in args[2:6]:
                    a = a.strip()
                    negs.append(a.startswith("-"))
                    a = a.lstrip("-+")
                    sels.append({"0": 4, "1": 5}.get(a, SWZ.get(a)))
                src = Source(src.reg, src.index, src.vertex, tuple(sels), False, False, tuple(negs))
                inst.srcs = (src,)
            else:
                inst.srcs = tuple(self.source(a, info.operand_type(i, t))
                                  for i, a in enumerate(args[1:]))
        self.insts.append(inst)


def _split_args(text: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch in "{([":
            depth += 1
        elif ch in "})]":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur)
    return out


def build(text: str, *, stage: str = "vertex", inputs=None, params=None, outputs=None,
          temps=None, consts=None, geometry: Geometry | None = None, entry: str | None = None,
          registers: list[Register] | None = None) -> Program:
    st = Stage(stage)
    b = _Builder(st, inputs, params, outputs, temps, consts, geometry)
    for r in registers or []:
        b.regs[r.name] = r
    for line in text.splitlines():
        b.line(line)
    dialect = {"vertex": "NVvp4.0", "fragment": "NVfp4.0", "geometry": "NVgp4.0"}[stage]
    return Program(st, dialect, b.regs, b.insts, b.labels,
                   entry=b.labels[entry] if entry else b.labels.get("main", 0),
                   geometry=geometry)


# -- numeric helpers -----------------------------------------------------------------------------

def fw(*vals) -> np.ndarray:
    """float values -> uint32 words"""
    return np.array(vals, np.float32).view(np.uint32)


def bits_equal(a, b) -> bool:
    """float arrays equal bit for bit except that any NaN equals any NaN."""
    a = np.asarray(a, np.float32)
    b = np.asarray(b, np.float32)
    both_nan = np.isnan(a) & np.isnan(b)
    return bool(np.all(both_nan | (a.view(np.uint32) == b.view(np.uint32))))


def test_builder_roundtrip():
    p = build("""
        main:
        ADD.S.CC1 R0.xz (NE1.y), -|a.w|, {1, 2, 3, 4}
        MOV o, arr[i.x + 1].zyxw
    """, inputs={"a": "vertex.attrib[3]"}, outputs={"o": "result.color"}, temps={"arr": 4})
    i0, i1 = p.instructions
    assert i0.dtype == DataType.INT and i0.cc_update == 1
    assert i0.dst.mask == (True, False, True, False) and i0.dst.cond == CondTest("NE", 1, (1,) * 4)
    assert i0.srcs[0].neg and i0.srcs[0].abs and i0.srcs[0].swizzle == (3, 3, 3, 3)
    assert p.registers[i0.srcs[1].reg].value == ((1, 2, 3, 4),)
    assert i1.srcs[0].index == Index(1, "i", 0) and i1.srcs[0].swizzle == (2, 1, 0, 3)
    assert p.registers["a"].bindings[0].text() == "vertex.attrib[3]"
