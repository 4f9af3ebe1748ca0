"""NV_vertex_program family frontend: ``!!VP1.0``, ``!!VP1.1``, ``!!VSP1.0``, ``!!VP2.0``.

Also the shared machinery of the "older" vertex dialects (:class:`LegacyVertexBuilder`), which
``arbvp.py`` (``!!ARBvp1.0`` with ``OPTION NV_vertex_program2/3``) builds on: opcode + glued
suffix decomposition per dialect (nv_dialects.md 2.5, 4.4), old-style condition codes on the IR
flag model (6.5), address-register instructions, labels and BRA/CAL/RET, and the per-dialect
numerics (5, 9, 12).

Register model (VP1 2.14.1.7, VP2 2.14.1.8; nv_dialects.md 8.1) and how it maps to the IR:

* ``v[n]`` / ``v[OPOS]`` ... -> INPUT register ``v[n]`` bound to ``vertex.attrib[n]`` (the NV
  attribute registers are the generic attributes; mnemonics per VP1 Table X.3).
* ``c[n]`` -> PARAM register ``c[n]`` bound to ``program.env[n]`` (ARB_vertex_program's
  environment parameters are the NV program parameters).  A relative read ``c[A0.x + k]``
  reads the PARAM array ``c`` (all parameters).  VP1 2.14.1.9: "relative addressing reads
  outside of the 0 to 95 inclusive range always read the value (0,0,0,0)": in VP1/VP1.1 the
  array ``c`` has a constant zero guard element at each end (98 elements, parameter n at
  element n + 1); the executor and the GLSL backend both clamp relative indices into the
  array, so every out-of-range index reads a guard.  VP2 (256 parameters) has no guards: an
  out-of-range relative read is undefined there (nv_dialects.md 7.4), clamped like any index.
* ``R0``..``R11`` (``R15`` in VP2) -> TEMP registers; ``A0`` (``A1`` in VP2) -> INT TEMP
  registers (address registers hold integers); ``CC`` (VP2) -> a write-only dummy TEMP.
* ``o[HPOS]`` ... -> OUTPUT registers bound to ``result.position``, ``result.color``,
  ``result.color.secondary``, ``result.color.back(.secondary)``, ``result.fogcoord``,
  ``result.pointsize``, ``result.texcoord[n]``, ``result.clip[n]`` (VP2 ``CLPn``).
* Initial values are explicit IR: VP1/VP2 results start as (0,0,0,1) (VP1 2.14.1.5, VP2
  2.14.1.5) -- a prologue ``MOV o[X], {0,0,0,1}`` for every result the program names; temps,
  address registers (0) and the condition code (EQ) already start so in every backend.
* ``!!VSP1.0`` (VP1 2.14.4): the program parameters are read *and written*.  ``c`` becomes a
  TEMP array (98 elements, guarded as above) copied from ``program.env`` in a prologue; every
  parameter the program writes is copied at the end to an OUTPUT register ``c[n]`` bound to
  ``result.attrib[k]``, k counting the written parameters in increasing order (the translated
  shader returns the new parameter values as varyings, to be captured by transform feedback;
  the executor reports them as outputs ``c[n]``).  ``v[0]``
  (the ExecuteProgramNV parameters) is ``vertex.attrib[0]``.
* ``OPTION NV_position_invariant`` (VP1.1, VP2; VP11 2.14.B): ``o[HPOS]`` may not be written;
  the position is computed as fixed-function transformation: four DP4 of
  ``state.matrix.mvp.row[i]`` with ``v[OPOS]`` (the same register the program reads).

Numerics made explicit (nv_dialects.md 5, 9, 12; one IR opcode = one meaning):

* RSQ: VP1/VP1.1/VSP take ``1/sqrt(|x|)`` (VP1 2.14.1.10.7) -> RSQ with the abs modifier
  (and no negation: |-x| = |x|); VP2 has no abs (VP2 2.14.3.28, digest 12 item 16).
* MIN/MAX: VP1 ``t < u ? t : u`` -> IR ``MIN(u, t)`` (the GP4 select ``a > b ? b : a`` with the
  operands swapped is exactly that); VP1 ``t >= u ? t : u`` -> IR ``MAX(t, u)`` (identical
  except that MAX(-0, +0) gives +0 where VP1 gives -0: documented divergence).  VP2: NaN if
  either operand is NaN (2.14.3.21-22) -> MINN/MAXN.
* SGE/SLT: VP1 compares in a total order (-0 < +0, -NaN < -INF, +NaN > +INF; 2.14.1.11) ->
  SGET/SLTT.  VP2 set-on instructions return NaN for NaN operands (2.14.3.29-36) ->
  SEQN/SGEN/SGTN/SLEN/SLTN/SNEN; SSG(NaN) = NaN (2.14.3.37) -> SSGN.
* EXP/LOG: the 4-component forms; VP1/VP1.1/VSP with VP1's special cases (2.14.1.10.15-16: y = 0
  when 2^floor(t) underflows or overflows, LOG(0) = LOG(INF) = (.., 1, .., 1)) -> IR EXP/LOG;
  VP2 and ARBvp follow their pseudo-code with no exception (VP2 2.14.3.14/19, ARBVP
  2.14.5.9/14: y = t - floor(t), NaN for an infinite t; y = |t| / 2^floor(log2 |t|), NaN for 0
  and INF) -> IR EXPA/LOGA.  LIT: the IR LIT (w clamped to +-(128 - 1/256),
  0^0 = 1; VP1 2.14.1.10.17, VP2 2.14.3.18, digest 5.6).
* Address registers: ARL -> ``FLR.S`` (VP1: scalar into ``.x``; VP2: vector, masked), ARR ->
  ``ROUND.S``, ARA -> ``ADD.S A, A.xyxy, A.zwzw``; CC updates of these use CCKind.INT (VP2O:
  "the same logic applies to the integer results").  VP2 clamps every address result to
  [-512, 511] (2.14.3.3-5): the frontend computes into a scratch INT register, clamps with
  MIN.S/MAX.S, and the last instruction writes the destination (masks, CC mask, CC update).
* Not emulated (documented divergences): VP1's round-toward-zero arithmetic, ``0 * x = 0`` for
  INF/NaN x, and denormal flushing (2.14.1.11); results use IEEE float32.

Control flow (VP2 2.14.2.3): labels are fall-through markers (no implicit RET); execution
starts after ``main:`` if present; ``Program.call_overflow = "terminate"`` (a CAL with four
returns pending ends the program) and ``Program.max_exec_instructions = 65536``.
"""
from __future__ import annotations

import re
import struct
from dataclasses import dataclass, field, replace

from ...diagnostics import DiagnosticSink, Span
from ...ir.model import (Binding, CCKind, CondTest, DataType, Dest, Index, Instruction, Program,
                         Register, RegKind, Sat, Source, Stage)
from .syntax import IndexConst, IndexRel, Instr, Label, Member, Operand, Ref, Subscript

F, S = DataType.FLOAT, DataType.INT
IDENTITY = (0, 1, 2, 3)
FULL_MASK = (True, True, True, True)
XYZW = {c: i for i, c in enumerate("xyzw")}
#: old-style condition-code rules (VP2 2.14.2.2); they map onto the GP4 flag tests of the same
#: name exactly (nv_dialects.md 6.5: LT = SF, EQ = ZF, GT = none, UN = SF|ZF)
OLD_CC_RULES = ("EQ", "GE", "GT", "LE", "LT", "NE", "TR", "FL")
ADDR_MIN, ADDR_MAX = -512, 511
MAX_EXEC_INSTRUCTIONS = 65536
_LABEL = re.compile(r"[A-Za-z_][A-Za-z0-9_]*$")

# Operand signatures (the grammar rule families of VP1 2.14.1.7 / VP2 2.14.1.8 / ARBVP 2.14.2):
#   V vector op, S scalar op, VV / VVV binary / ternary vector, SS binary scalar (POW),
#   ARL / ARA address ops, BRA / CAL label + condition, RET condition, SWZ, TEX, PUSHA, POPA
SIGNATURES = {
    "ABS": "V", "FLR": "V", "FRC": "V", "LIT": "V", "MOV": "V", "SSG": "V",
    "COS": "S", "EX2": "S", "EXP": "S", "LG2": "S", "LOG": "S", "RCC": "S", "RCP": "S",
    "RSQ": "S", "SIN": "S",
    "ADD": "VV", "DP3": "VV", "DP4": "VV", "DPH": "VV", "DST": "VV", "MAX": "VV", "MIN": "VV",
    "MUL": "VV", "SEQ": "VV", "SFL": "VV", "SGE": "VV", "SGT": "VV", "SLE": "VV", "SLT": "VV",
    "SNE": "VV", "STR": "VV", "SUB": "VV", "XPD": "VV",
    "MAD": "VVV", "POW": "SS",
    "ARL": "ARL", "ARR": "ARL", "ARA": "ARA",
    "BRA": "BRA", "CAL": "BRA", "RET": "RET",
    "SWZ": "SWZ", "TEX": "TEX", "TXB": "TEX", "TXL": "TEX", "TXP": "TEX",
    "PUSHA": "PUSHA", "POPA": "POPA",
}
NO_SUFFIX_OPS = frozenset({"BRA", "CAL", "RET", "PUSHA", "POPA"})
NO_SAT_OPS = frozenset({"ARL", "ARR", "ARA"}) | NO_SUFFIX_OPS
ADDRESS_OPS = frozenset({"ARL", "ARR", "ARA"})

# Exact opcode sets (nv_dialects.md 5.0)
VP10_OPS = frozenset("ARL MOV MUL ADD MAD RCP RSQ DP3 DP4 DST MIN MAX SLT SGE EXP LOG LIT".split())
VP11_OPS = VP10_OPS | {"ABS", "DPH", "RCC", "SUB"}
VP20_OPS = VP11_OPS | frozenset("ARA ARR BRA CAL COS EX2 FLR FRC LG2 RET SEQ SFL SGT SIN SLE SNE "
                                "SSG STR".split())

# VP1 Table X.3: attribute register mnemonics
ATTRIB_MNEMONICS = {"OPOS": 0, "WGHT": 1, "NRML": 2, "COL0": 3, "COL1": 4, "FOGC": 5,
                    **{f"TEX{i}": 8 + i for i in range(8)}}
# VP1 Table X.1 / VP2 2.14.1.5: result registers -> ARB-style result bindings
RESULTS = {"HPOS": Binding("result.position"), "COL0": Binding("result.color"),
           "COL1": Binding("result.color.secondary"), "BFC0": Binding("result.color.back"),
           "BFC1": Binding("result.color.back.secondary"), "FOGC": Binding("result.fogcoord"),
           "PSIZ": Binding("result.pointsize"),
           **{f"TEX{i}": Binding("result.texcoord", i) for i in range(8)}}
VP2_RESULTS = {f"CLP{i}": Binding("result.clip", i) for i in range(6)}


class _Skip(Exception):
    """Abandon the current statement after a diagnostic was reported."""


def f32_bits(value: float) -> int:
    try:
        return struct.unpack("<I", struct.pack("<f", value))[0]
    except OverflowError:
        return 0xFF800000 if value < 0 else 0x7F800000


ONE = f32_bits(1.0)


@dataclass
class Features:
    """What one dialect (header + options) allows; read by the shared builder."""

    ops: frozenset
    numerics: str                        # "vp1" | "vp2" | "arb"
    cc_regs: int = 0                     # condition-code registers (0, 1 or 2)
    sat: bool = False                    # _SAT suffix (ARBvp + NV_vertex_program3)
    abs: bool = False                    # |x| operands
    plus_sign: bool = True               # "+" as an operand sign
    vector_arl: bool = False             # ARL takes a vector and any address write mask
    clamp_addr: bool = False             # VP2: address results clamped to [-512, 511]
    labels: bool = False                 # labels, BRA/CAL/RET
    addr_regs: tuple[str, ...] = ()      # built-in address registers (NV syntax)
    option_hint: str = ""                # how to enable the missing features (diagnostics)
    missing_hint: dict = field(default_factory=dict)   # opcode -> how to get it


class LegacyVertexBuilder:
    """Statement AST -> IR for the pre-NV4 vertex dialects (subclasses resolve registers)."""

    dialect_name = "vertex program"

    def __init__(self, header: str, sink: DiagnosticSink, feat: Features):
        self.sink = sink
        self.feat = feat
        self.prog = Program(Stage.VERTEX, header[2:], source_name=sink.file)
        self.label_spans: dict[str, Span] = {}
        self.branches: list[tuple[str, Span]] = []
        self.consts: dict[tuple, str] = {}
        self.lines = (sink.source or "").replace("\r\n", "\n").replace("\r", "\n").split("\n")
        self.end_span = self._end_span()
        self.ninstr = 0              # instructions as the source counts them (limits)
        self.scratch = 0

    # ---- driver ------------------------------------------------------------------------------
    def build(self, statements: list) -> Program:
        for st in statements:
            try:
                if isinstance(st, Instr):
                    self.instruction(st)
                elif isinstance(st, Label):
                    self.label(st)
                else:
                    self.declaration(st)
            except _Skip:
                pass
        self.finish()
        return self.prog

    def _end_span(self) -> Span:
        """Where the END statement is: the position of errors found only after the whole
        program was read (missing HPOS write, instruction count...)."""
        from .syntax import _END, blank_comments
        text = "\n".join(self.lines)
        m = _END.search(blank_comments(text), 1)
        pos = m.start() if m else len(text)
        line = text.count("\n", 0, pos) + 1
        return Span(self.sink.file, line, pos - (text.rfind("\n", 0, pos) + 1) + 1, 3 if m else 1)

    def err(self, code: str, msg: str, span: Span | None, *notes: str):
        self.sink.error(code, msg, span, *notes)
        raise _Skip

    def declaration(self, d) -> None:            # overridden by the ARB frontend
        self.err("E1002", f"{d.kind} declarations do not exist in {self.dialect_name}s "
                 "(registers are predefined)", d.span)

    def finish(self) -> None:
        for name, span in self.branches:
            if name not in self.prog.labels:
                self.sink.error("E4001", f"undefined label '{name}'", span)
        if self.feat.labels:
            self.prog.call_overflow = "terminate"
            self.prog.max_exec_instructions = MAX_EXEC_INSTRUCTIONS
        self.prog.entry = self.prog.labels.get("main", 0)

    # ---- labels --------------------------------------------------------------------------------
    def label(self, lab: Label) -> None:
        if not self.feat.labels:
            self.err("E1002", f"labels are not allowed in {self.dialect_name}s"
                     f"{self.feat.option_hint}", lab.span)
        if not _LABEL.match(lab.name):
            self.err("E1002", f"invalid label name '{lab.name}' (letters, digits and '_', "
                     "starting with a letter or '_')", lab.span)
        if lab.name in self.label_spans:
            self.err("E4002", f"label '{lab.name}' is defined twice", lab.span,
                     f"first defined at {self.label_spans[lab.name]}")
        self.label_spans[lab.name] = lab.span
        self.prog.labels[lab.name] = len(self.prog.instructions)

    # ---- opcodes -------------------------------------------------------------------------------
    def split_opcode(self, ins: Instr) -> tuple[str, int | None, bool]:
        """Longest legal mnemonic, then the suffixes ``C``/``C0``/``C1`` and ``_SAT`` (2.5)."""
        text = ins.opcode
        if ins.mods:
            self.err("E1002", f"'.{ins.mods[0][0]}': instruction modifiers are written as glued "
                     "suffixes in this dialect", ins.mods[0][1])
        known = set(SIGNATURES)
        for cut in range(len(text), 0, -1):
            base, rest = text[:cut], text[cut:]
            if base not in known:
                continue
            m = re.fullmatch(r"(C0|C1|C)?(_SAT)?", rest)
            if not m:
                continue
            if base not in self.feat.ops:
                self.unknown_opcode(ins, base)
            cc, sat = m.group(1), m.group(2)
            if cc or sat:
                if base in NO_SUFFIX_OPS:
                    self.err("E3002", f"{base} takes no suffix", ins.span)
                if cc and not self.feat.cc_regs:
                    self.err("E3002", f"'{text}': condition-code updates (suffix C) are not "
                             f"available in {self.dialect_name}s{self.feat.option_hint}", ins.span)
                if cc in ("C0", "C1") and self.feat.cc_regs < 2:
                    self.err("E3002", f"'{text}': suffix {cc} needs OPTION NV_vertex_program3 "
                             "(two condition-code registers)", ins.span)
                if sat and not self.feat.sat:
                    self.err("E3002", f"'{text}': _SAT is not available in {self.dialect_name}s"
                             + (" (it needs OPTION NV_vertex_program3)"
                                if self.feat.numerics == "arb" else ""), ins.span)
                if sat and base in NO_SAT_OPS:
                    self.err("E3002", f"{base} cannot saturate (its result is an integer)",
                             ins.span)
            ccreg = None if not cc else (1 if cc == "C1" else 0)
            return base, ccreg, bool(sat)
        self.unknown_opcode(ins, None)

    def unknown_opcode(self, ins: Instr, base: str | None):
        text = ins.opcode
        name = base or text
        hint = self.feat.missing_hint.get(name, "")
        if base is None and text.upper() in SIGNATURES and text != text.upper():
            hint = " (opcodes are upper case)"
        self.err("E3001", f"{'unknown opcode' if base is None else 'opcode'} '{name}'"
                 f"{'' if base is None else ' is not available in ' + self.dialect_name + 's'}"
                 f"{hint}", ins.span)

    def instruction(self, ins: Instr) -> None:
        base, ccreg, sat = self.split_opcode(ins)
        self.ninstr += 1
        self.params_seen: dict = {}
        self.attribs_seen: dict = {}
        sig = SIGNATURES[base]
        handler = {"BRA": self.branch, "RET": self.ret, "ARL": self.address_load,
                   "ARA": self.address_add, "SWZ": self.swz, "TEX": self.tex,
                   "PUSHA": self.pusha, "POPA": self.popa}.get(sig, self.alu)
        handler(ins, base, sig, ccreg, sat)

    def all_of(self, thunks) -> list:
        """Run every operand check (so that each bad operand is reported), then give up on the
        statement if any failed."""
        out, failed = [], False
        for thunk in thunks:
            try:
                out.append(thunk())
            except _Skip:
                failed = True
        if failed:
            raise _Skip
        return out

    def emit(self, op: str, dst: Dest | None, srcs=(), *, dtype: DataType = F, span=None,
             cc: int | None = None, cc_kind: CCKind | None = None, sat: bool = False,
             text: str = "", **kw) -> Instruction:
        ins = Instruction(op, dtype, dst, tuple(srcs), Sat.SAT if sat else Sat.NONE, cc,
                          cc_kind if cc is not None else None, span=span, text=text, **kw)
        self.prog.instructions.append(ins)
        return ins

    def expect(self, ins: Instr, n: int, what: str) -> None:
        if len(ins.operands) != n:
            k = len(ins.operands)
            self.err("E3003", f"{ins.opcode} takes {what}; found {k} operand{'s' if k != 1 else ''}",
                     ins.span)

    # ---- ALU -------------------------------------------------------------------------------------
    def alu(self, ins: Instr, base: str, sig: str, ccreg, sat) -> None:
        n_src = {"V": 1, "S": 1, "VV": 2, "VVV": 3, "SS": 2}[sig]
        self.expect(ins, 1 + n_src, f"a destination and {n_src} source operand"
                    f"{'s' if n_src > 1 else ''}")
        dst, *srcs = self.all_of([lambda: self.dest(ins.operands[0])] + [
            (lambda o=o: self.source(o, scalar=sig in ("S", "SS"))) for o in ins.operands[1:]])
        op, srcs = self.numerics(base, srcs)
        self.emit(op, dst, srcs, span=ins.span, cc=ccreg, cc_kind=CCKind.FLOAT, sat=sat)

    def numerics(self, base: str, srcs: list[Source]) -> tuple[str, list[Source]]:
        """The IR opcode that has this dialect's semantics (module docstring)."""
        n = self.feat.numerics
        if base == "RSQ" and n in ("vp1", "arb"):
            # VP1 2.14.1.10.7, ARBVP 2.14.5.22: 1/sqrt(fabs(x)); |-x| = |x|
            return "RSQ", [replace(srcs[0], abs=True, neg=False)]
        if n == "vp1":
            if base == "MIN":          # (t < u) ? t : u  ==  GP4 MIN(u, t)
                return "MIN", [srcs[1], srcs[0]]
            if base in ("SGE", "SLT"):   # total order (VP1 2.14.1.11)
                return {"SGE": "SGET", "SLT": "SLTT"}[base], srcs
        if base in ("EXP", "LOG") and n in ("vp2", "arb"):
            # VP2 2.14.3.14/19 and ARBVP 2.14.5.9/14 give the pseudo-code without VP1's special
            # cases (module docstring)
            return base + "A", srcs
        if n == "vp2":
            if base in ("MIN", "MAX", "SEQ", "SGE", "SGT", "SLE", "SLT", "SNE"):
                return base + "N", srcs
            if base == "SSG":
                return "SSGN", srcs
        return base, srcs

    # ---- address registers ----------------------------------------------------------------------
    def address_load(self, ins: Instr, base: str, sig, ccreg, sat) -> None:
        self.expect(ins, 2, "an address register destination and a source operand")
        dst, src = self.all_of([lambda: self.address_dest(ins.operands[0]),
                                lambda: self.source(ins.operands[1],
                                                    scalar=not self.feat.vector_arl)])
        op = "FLR" if base == "ARL" else "ROUND"        # ARL: floor; ARR: round half to even
        self.address_result(op, dst, [src], ins, ccreg)

    def address_add(self, ins: Instr, base, sig, ccreg, sat) -> None:
        self.expect(ins, 2, "an address register destination and an address register operand")
        dst = self.address_dest(ins.operands[0])
        reg = self.address_operand(ins.operands[1], "ARA")
        # VP2 2.14.3.3: (x + z, y + w, x + z, y + w); "component swizzling is not supported"
        srcs = [Source(reg, swizzle=(0, 1, 0, 1)), Source(reg, swizzle=(2, 3, 2, 3))]
        self.address_result("ADD", dst, srcs, ins, ccreg)

    def address_result(self, op: str, dst: Dest, srcs: list[Source], ins: Instr, ccreg) -> None:
        kind = CCKind.INT if ccreg is not None else None
        if not self.feat.clamp_addr:
            self.emit(op, dst, srcs, dtype=S, span=ins.span, cc=ccreg, cc_kind=kind)
            return
        # VP2 2.14.3.3-5: each component clamped to [-512, +511]; masks and the CC update apply
        # to the clamped value, so only the last instruction writes the destination.
        tmp = self.scratch_register()
        self.emit(op, Dest(tmp), srcs, dtype=S, span=ins.span, text="(address result)")
        self.emit("MIN", Dest(tmp), [Source(tmp), Source(self.int_const(ADDR_MAX))], dtype=S,
                  span=ins.span, text="(address register clamp, VP2)")
        self.emit("MAX", dst, [Source(tmp), Source(self.int_const(ADDR_MIN))], dtype=S,
                  span=ins.span, cc=ccreg, cc_kind=kind)

    def scratch_register(self) -> str:
        name = "%addr"
        if name not in self.prog.registers:
            self.prog.registers[name] = Register(name, RegKind.TEMP, S, implicit=True)
        return name

    def int_const(self, value: int) -> str:
        words = (value & 0xFFFFFFFF,) * 4
        return self.const_register(words, S)

    def const_register(self, words: tuple, dtype: DataType) -> str:
        key = (dtype, words)
        name = self.consts.get(key)
        if name is None:
            name = f"%k{len(self.consts)}"
            self.consts[key] = name
            self.prog.registers[name] = Register(name, RegKind.CONST, dtype, None, (), (words,),
                                                 implicit=True)
        return name

    def address_dest(self, opnd: Operand) -> Dest:
        """``A0.x`` (VP1/ARB: exactly .x), ``A1.xy``, ``A0`` (VP2/options: any mask)."""
        if opnd.kind != "ref" or opnd.neg or opnd.abs:
            self.err("E3005", "expected an address register destination", opnd.span)
        reg, rest = self.address_register(opnd.ref)
        mask = FULL_MASK
        if rest:
            if len(rest) > 1 or not isinstance(rest[0], Member):
                self.err("E3005", "unexpected selector on the address register", rest[-1].span)
            mask = self.mask(rest[0].name, rest[0].span)
        if not self.feat.vector_arl and mask != (True, False, False, False):
            where = rest[0].span if rest else opnd.span
            self.err("E3005", f"the address register write mask must be '.x' in "
                     f"{self.dialect_name}s", where)
        cond = self.ccmask(opnd.ccmask) if opnd.ccmask is not None else None
        return Dest(reg, None, mask, cond)

    def address_operand(self, opnd: Operand, what: str) -> str:
        """An address register used whole (ARA, PUSHA): no sign, no swizzle."""
        if opnd.kind != "ref" or opnd.neg or opnd.abs or opnd.ccmask is not None:
            self.err("E3004", f"{what} takes an address register operand (no sign, no absolute "
                     "value, no condition)", opnd.span)
        reg, rest = self.address_register(opnd.ref)
        if rest:
            self.err("E3004", f"the {what} operand takes no swizzle", rest[0].span)
        return reg

    def address_register(self, ref: Ref) -> tuple[str, list]:
        raise NotImplementedError

    # ---- flow ------------------------------------------------------------------------------------
    def branch(self, ins: Instr, base: str, sig, ccreg, sat) -> None:
        ops = ins.operands
        if not ops or ops[0].kind != "ref" or ops[0].ref.selectors or ops[0].neg or ops[0].abs:
            self.err("E3004", f"{base} needs a label name", ops[0].span if ops else ins.span)
        if len(ops) > 1:
            self.err("E1002", "the branch condition is written in parentheses right after the "
                     "label: 'BRA label (GT.x);'", ops[1].span)
        target = ops[0].ref
        if not _LABEL.match(target.name):
            self.err("E1002", f"invalid label name '{target.name}'", target.span)
        cond = self.ccmask(ops[0].ccmask) if ops[0].ccmask is not None else None
        self.branches.append((target.name, target.span))
        self.emit(base, None, span=ins.span, label=target.name, cond=cond)

    def ret(self, ins: Instr, base: str, sig, ccreg, sat) -> None:
        ops = ins.operands
        if len(ops) > 1 or (ops and ops[0].kind != "cc"):
            self.err("E1002", "RET takes an optional condition in parentheses: 'RET (LE.x);'",
                     ops[0].span)
        cond = self.ccmask(ops[0].cctest) if ops else None
        self.emit("RET", None, span=ins.span, cond=cond)

    def pusha(self, ins: Instr, base, sig, ccreg, sat) -> None:
        self.expect(ins, 1, "one address register operand")
        reg = self.address_operand(ins.operands[0], "PUSHA")
        self.emit("PUSHA", None, [Source(reg)], dtype=S, span=ins.span)

    def popa(self, ins: Instr, base, sig, ccreg, sat) -> None:
        self.expect(ins, 1, "one address register destination")
        opnd = ins.operands[0]
        dst = self.address_dest(opnd)
        # VP3 2.14.5.43: "a program will fail to load if it includes a component write mask
        # other than .xyzw or a condition code write mask test other than TR" (digest 12.39)
        if dst.mask != FULL_MASK:
            self.err("E3005", "POPA writes the whole address register: no write mask",
                     opnd.ref.selectors[-1].span)
        cond = None
        if dst.cond is not None and dst.cond.rule != "TR":
            # The same sentence forbids a CC mask, but revision 7 adds "some driver versions
            # erroneously allowed conditional write masks on POPA" -- NVIDIA's, the only VP3
            # implementation, and piglit's astack-08/09 (expected to load) rely on it.
            # Accepted with warning E3009 and read like any conditional write: the entry is
            # popped in any case, and only the components whose CC test passes are written.
            self.sink.warning("E3009", "POPA with a condition-code write mask: VP3 2.14.5.43 "
                              "says the program fails to load; accepted as NVIDIA's drivers did "
                              "(the pop always happens, the write is conditional)",
                              opnd.ccmask.span)
            cond = dst.cond
        self.emit("POPA", Dest(dst.reg, None, FULL_MASK, cond), dtype=S, span=ins.span)

    def swz(self, ins, base, sig, ccreg, sat) -> None:
        self.err("E3001", f"opcode 'SWZ' is not available in {self.dialect_name}s", ins.span)

    def tex(self, ins, base, sig, ccreg, sat) -> None:
        self.err("E3001", f"opcode '{base}' is not available in {self.dialect_name}s", ins.span)

    # ---- condition codes ---------------------------------------------------------------------
    def ccmask(self, node) -> CondTest:
        """``(RULE[n].swizzle)`` -> CondTest on the IR flag model (digest 6.5)."""
        if not self.feat.cc_regs:
            self.err("E3007", f"condition-code masks are not available in {self.dialect_name}s"
                     f"{self.feat.option_hint}", node.span)
        rule, cc = node.rule, 0
        if rule[-1:] in ("0", "1") and rule[:-1] in OLD_CC_RULES:
            if self.feat.cc_regs < 2:
                self.err("E3007", f"'{rule}': numbered condition codes need OPTION "
                         "NV_vertex_program3", node.span)
            rule, cc = rule[:-1], int(rule[-1])
        if rule not in OLD_CC_RULES:
            self.err("E3007", f"unknown condition-code rule '{node.rule}' (expected one of "
                     f"{', '.join(OLD_CC_RULES)})", node.span)
        swz = IDENTITY
        if node.swizzle is not None:
            swz = self.swizzle(node.swizzle, node.span, vector=True)
        return CondTest(rule, cc, swz)

    # ---- operands --------------------------------------------------------------------------------
    def swizzle(self, text: str, span: Span, vector: bool) -> tuple[int, int, int, int]:
        if any(c not in XYZW for c in text):
            self.err("E1006", f"invalid swizzle '.{text}' (components are x, y, z, w)", span)
        if len(text) == 1:
            return (XYZW[text],) * 4
        if len(text) != 4 or not vector:
            self.err("E1006", f"swizzle '.{text}' must have "
                     f"{'1 or 4 components' if vector else 'exactly 1 component (scalar operand)'}",
                     span)
        return tuple(XYZW[c] for c in text)

    def mask(self, text: str, span: Span) -> tuple[bool, bool, bool, bool]:
        idx = [XYZW.get(c, -1) for c in text]
        if -1 in idx or idx != sorted(set(idx)) or not text:
            self.err("E1006", f"invalid write mask '.{text}' (components x, y, z, w in order, no "
                     "repeats)", span)
        return tuple(i in idx for i in range(4))

    def operand_sign(self, opnd: Operand) -> None:
        """'+' is a sign only from VP1.1 on (VP11 2.14.A); |x| needs VP2 or an NV option."""
        if opnd.abs and not self.feat.abs:
            self.err("E3004", f"absolute value operands |x| are not available in "
                     f"{self.dialect_name}s{self.feat.option_hint}", opnd.span)
        if not self.feat.plus_sign and not opnd.neg and opnd.kind == "ref" and \
                opnd.ref is not None and opnd.span.col != opnd.ref.span.col:
            self.err("E1002", "'+' is not an operand sign in VP1.0 (only '-')", opnd.span)

    def source(self, opnd: Operand, scalar: bool) -> Source:
        raise NotImplementedError

    def dest(self, opnd: Operand) -> Dest:
        raise NotImplementedError

    def swizzle_of(self, rest: list, opnd: Operand, scalar: bool) -> tuple[int, int, int, int]:
        if rest and isinstance(rest[0], Subscript):
            self.err("E2007", "this operand cannot be indexed (only program parameter arrays "
                     "are addressed with [...])", rest[0].span)
        if rest:
            if len(rest) > 1 or not isinstance(rest[0], Member):
                self.err("E3004", "unexpected selector", rest[-1].span)
            return self.swizzle(rest[0].name, rest[0].span, vector=not scalar)
        if scalar:
            self.err("E3004", "a scalar operand needs a component selector (for example '.x')",
                     opnd.span)
        return IDENTITY

    def dest_mask(self, rest: list, what: str) -> tuple[bool, bool, bool, bool]:
        if not rest:
            return FULL_MASK
        if isinstance(rest[0], Subscript):
            self.err("E2007", f"{what} cannot be indexed here", rest[0].span)
        if len(rest) > 1 or not isinstance(rest[0], Member):
            self.err("E3005", f"unexpected selector on {what}", rest[-1].span)
        return self.mask(rest[0].name, rest[0].span)

    # ---- program-level helpers ------------------------------------------------------------------
    def insert_prologue(self, seq: list[Instruction]) -> None:
        """Put ``seq`` at the start of execution.  It goes at index 0 (nothing can fall into
        it there); labels move with their instructions; when execution starts at ``main:``
        further down, the prologue ends with ``BRA main``."""
        if not seq:
            return
        entry = self.prog.labels.get("main")
        if entry:
            seq = seq + [Instruction("BRA", label="main", text="(prologue: continue at main)")]
        n = len(seq)
        self.prog.instructions[0:0] = seq
        self.prog.labels = {k: v + n for k, v in self.prog.labels.items()}
        self.prog.entry = 0


# =================================================================================================
# NV_vertex_program / NV_vertex_program1_1 / NV_vertex_program2
# =================================================================================================

DIALECTS = {
    "!!VP1.0": Features(VP10_OPS, "vp1", plus_sign=False, addr_regs=("A0",),
                        option_hint=" (they need !!VP2.0)",
                        missing_hint={op: " (it needs !!VP1.1)" for op in ("ABS", "DPH", "RCC",
                                                                         "SUB")}),
    "!!VSP1.0": Features(VP10_OPS, "vp1", plus_sign=False, addr_regs=("A0",),
                         option_hint=" (they need !!VP2.0)"),
    "!!VP1.1": Features(VP11_OPS, "vp1", addr_regs=("A0",), option_hint=" (they need !!VP2.0)"),
    "!!VP2.0": Features(VP20_OPS, "vp2", cc_regs=1, abs=True, vector_arl=True, clamp_addr=True,
                        labels=True, addr_regs=("A0", "A1")),
}
for _op in VP20_OPS - VP11_OPS:
    for _h in ("!!VP1.0", "!!VSP1.0", "!!VP1.1"):
        DIALECTS[_h].missing_hint[_op] = " (it needs !!VP2.0)"
for _op in ("POW", "SWZ", "XPD", "TEX", "TXB", "TXL", "TXP", "PUSHA", "POPA"):
    for _h in DIALECTS:
        DIALECTS[_h].missing_hint.setdefault(_op, " (it exists only in !!ARBvp1.0 programs)")


class VPBuilder(LegacyVertexBuilder):
    dialect_name = "NV vertex program"

    def __init__(self, header: str, sink: DiagnosticSink):
        super().__init__(header, sink, DIALECTS[header])
        self.header = header
        self.vp2 = header == "!!VP2.0"
        self.vsp = header == "!!VSP1.0"
        self.dialect_name = {"!!VP1.0": "VP1.0 program", "!!VP1.1": "VP1.1 program",
                             "!!VSP1.0": "VSP1.0 vertex state program",
                             "!!VP2.0": "VP2.0 program"}[header]
        self.ntemps = 16 if self.vp2 else 12
        self.nparams = 256 if self.vp2 else 96
        self.options: list[str] = []
        self.seen_instruction = False
        self.hpos_written: Span | None = None
        self.param_written = False
        self.vsp_reads: set[int] = set()
        self.vsp_writes: set[int] = set()
        self.vsp_relative = False
        self.relative_span: Span | None = None
        self.results_named: list[str] = []

    # ---- options ---------------------------------------------------------------------------
    def declaration(self, d) -> None:
        if d.kind != "OPTION":
            return super().declaration(d)
        name, span = d.target
        if self.header not in ("!!VP1.1", "!!VP2.0"):
            self.err("E2011", f"{self.dialect_name}s take no options", d.span)
        if self.seen_instruction:
            self.err("E2011", "OPTION statements must come before every instruction", d.span)
        if name != "NV_position_invariant":
            self.err("E2011", f"unknown option '{name}' (the only option is "
                     "NV_position_invariant)", span)
        self.options.append(name)

    @property
    def position_invariant(self) -> bool:
        return "NV_position_invariant" in self.options

    def label(self, lab: Label) -> None:
        self.seen_instruction = True
        super().label(lab)

    def instruction(self, ins: Instr) -> None:
        self.seen_instruction = True
        super().instruction(ins)

    # ---- registers ---------------------------------------------------------------------------
    def reg(self, name: str, kind: RegKind, dtype: DataType = DataType.NONE, binding=None,
            size=None, bindings=None, value=None) -> str:
        if name not in self.prog.registers:
            binds = tuple(bindings) if bindings is not None else ((binding,) if binding else ())
            self.prog.registers[name] = Register(name, kind, dtype, size, binds, value,
                                                 implicit=kind != RegKind.TEMP or size is not None)
        return name

    def temp(self, name: str, span: Span) -> str | None:
        m = re.fullmatch(r"R([0-9]+)", name)
        if not m or str(int(m.group(1))) != m.group(1):
            return None
        n = int(m.group(1))
        if n >= self.ntemps:
            self.err("E2006", f"temporary register R{n} does not exist (R0-R{self.ntemps - 1})",
                     span)
        return self.reg(name, RegKind.TEMP)

    def address_register(self, ref: Ref) -> tuple[str, list]:
        if ref.name not in self.feat.addr_regs:
            avail = " and ".join(self.feat.addr_regs)
            self.err("E3005", f"'{ref.name}' is not an address register (available: {avail})",
                     ref.span)
        return self.reg(ref.name, RegKind.TEMP, S), list(ref.selectors)

    def index_of(self, sub: Subscript, table: dict, what: str, limit: int) -> int:
        idx = sub.index
        if isinstance(idx, IndexConst):
            if not 0 <= idx.value < limit:
                self.err("E2006", f"{what} register {idx.value} does not exist (0-{limit - 1})",
                         sub.span)
            return idx.value
        if isinstance(idx, IndexRel) and idx.comp is None and idx.offset == 0 and idx.reg in table:
            return table[idx.reg]
        if isinstance(idx, IndexRel) and idx.comp is not None:
            # VP1 <relProgParamReg> / VP2 <vp2-relProgParamReg>: only c[] is relatively addressed
            self.err("E2010", f"relative addressing exists only for program parameters c[...]; "
                     f"{what} registers take a number or a mnemonic", sub.span)
        names = ", ".join(table)
        self.err("E2006", f"invalid {what} register (expected a number or one of {names})",
                 sub.span)

    def attribute(self, ref: Ref) -> tuple[str, list]:
        sels = list(ref.selectors)
        if not sels or not isinstance(sels[0], Subscript):
            self.err("E3004", "attribute registers are written v[n]", ref.span)
        n = self.index_of(sels[0], ATTRIB_MNEMONICS, "attribute", 16)
        if self.vsp and n != 0:
            # VP1 2.14.4: "<vertexAttribReg> ::= "v" "[" "0" "]"" in vertex state programs
            self.err("E2004", "a vertex state program can only read v[0] (the ExecuteProgramNV "
                     "parameters)", sels[0].span)
        key = n
        prev = next(iter(self.attribs_seen), None)
        if prev is not None and prev != key:
            self.err("E2014", "an instruction can read only one vertex attribute register "
                     f"(v[{prev}] and v[{n}])", ref.span)
        self.attribs_seen[key] = ref.span
        return self.reg(f"v[{n}]", RegKind.INPUT, binding=Binding("vertex.attrib", n)), sels[1:]

    def parameter(self, ref: Ref) -> tuple[str, Index | None, list]:
        sels = list(ref.selectors)
        if not sels or not isinstance(sels[0], Subscript):
            self.err("E3004", "program parameters are written c[n] or c[A0.x + n]", ref.span)
        sub = sels[0]
        idx = sub.index
        guard = 0 if self.vp2 else 1          # VP1: zero guard element before c[0]
        if isinstance(idx, IndexConst):
            if not 0 <= idx.value < self.nparams:
                self.err("E2006", f"program parameter c[{idx.value}] does not exist "
                         f"(c[0]-c[{self.nparams - 1}])", sub.span)
            key = ("abs", idx.value)
            self.note_param(key, ref.span, f"c[{idx.value}]")
            if self.vsp:
                self.vsp_reads.add(idx.value)
                return self.vsp_array(), Index(idx.value + 1), sels[1:]
            name = self.reg(f"c[{idx.value}]", RegKind.PARAM,
                            binding=Binding("program.env", idx.value))
            return name, None, sels[1:]
        if not isinstance(idx, IndexRel) or idx.comp is None:
            self.err("E2010", "a relative parameter index is an address register component plus "
                     "an optional offset: c[A0.x + 4]", sub.span)
        if self.position_invariant and not self.vp2:
            # VP11 2.14.B: "position-invariant version 1.1 vertex programs ... do not provide
            # support for relative program parameter addressing" (digest 12 item 12)
            self.err("E2010", "relative addressing is not available in position-invariant "
                     "VP1.1 programs", sub.span)
        if idx.reg not in self.feat.addr_regs:
            self.err("E2010", f"'{idx.reg}' is not an address register (available: "
                     f"{' and '.join(self.feat.addr_regs)})", sub.span)
        if idx.comp not in XYZW or (not self.vp2 and idx.comp != "x"):
            self.err("E2010", f"invalid address component '.{idx.comp}'"
                     f"{'' if self.vp2 else ' (VP1 relative addressing uses A0.x)'}", sub.span)
        lo, hi = (-256, 255) if self.vp2 else (-64, 63)
        if not lo <= idx.offset <= hi:
            self.err("E2006", f"relative offset {idx.offset:+d} out of range [{lo}, {hi}]",
                     sub.span)
        key = ("rel", idx.reg, idx.comp, idx.offset)
        self.note_param(key, ref.span, f"c[{idx.reg}.{idx.comp}{idx.offset:+d}]")
        addr = self.reg(idx.reg, RegKind.TEMP, S)
        index = Index(idx.offset + guard, addr, XYZW[idx.comp])
        if self.vsp:
            self.vsp_relative = True
            return self.vsp_array(), index, sels[1:]
        return self.param_array(), index, sels[1:]

    def note_param(self, key, span: Span, text: str) -> None:
        # VP1 2.14.1.7 / VP2 2.14.1.8: "fails to load if any instruction sources more than one
        # unique program parameter register" (identical references count once)
        prev = next(iter(self.params_seen.items()), None)
        if prev is not None and prev[0] != key:
            self.err("E2014", "an instruction can read only one program parameter register "
                     f"({prev[1]} and {text})", span)
        self.params_seen.setdefault(key, text)

    def param_array(self) -> str:
        """The PARAM array ``c`` that relative reads address (module docstring)."""
        name = "c"
        if name not in self.prog.registers:
            binds = [Binding("program.env", i) for i in range(self.nparams)]
            if self.vp2:
                self.reg(name, RegKind.PARAM, bindings=binds, size=self.nparams,
                         value=((0, 0, 0, 0),) * self.nparams)
            else:
                binds = [None] + binds + [None]      # zero guards: c[-1] and c[96] read 0
                self.reg(name, RegKind.PARAM, bindings=binds, size=len(binds),
                         value=((0, 0, 0, 0),) * len(binds))
        return name

    def vsp_array(self) -> str:
        name = "c"
        if name not in self.prog.registers:
            self.prog.registers[name] = Register(name, RegKind.TEMP, DataType.NONE, 98,
                                                 implicit=True)
        return name

    def result(self, ref: Ref) -> tuple[str, list]:
        sels = list(ref.selectors)
        if self.vsp:
            self.err("E3005", "a vertex state program cannot write result registers (it writes "
                     "program parameters c[n])", ref.span)
        table = dict(RESULTS, **(VP2_RESULTS if self.vp2 else {}))
        if not sels or not isinstance(sels[0], Subscript):
            self.err("E3005", "result registers are written o[NAME]", ref.span)
        idx = sels[0].index
        if isinstance(idx, IndexRel) and idx.comp is not None:
            self.err("E2010", "relative addressing exists only for program parameters c[...]; "
                     "result registers are written o[NAME]", sels[0].span)
        if not isinstance(idx, IndexRel) or idx.comp is not None or idx.offset or \
                idx.reg not in table:
            extra = " (CLP0-CLP5 need !!VP2.0)" if isinstance(idx, IndexRel) and \
                idx.reg in VP2_RESULTS else ""
            self.err("E3005", f"unknown result register (expected one of {', '.join(table)})"
                     f"{extra}", sels[0].span)
        name = idx.reg
        if name == "HPOS":
            if self.position_invariant:
                self.err("E2015", "a position-invariant program cannot write o[HPOS] "
                         "(NV_position_invariant)", ref.span)
            self.hpos_written = self.hpos_written or ref.span
        reg = f"o[{name}]"
        if reg not in self.prog.registers:
            self.results_named.append(reg)
        return self.reg(reg, RegKind.OUTPUT, binding=table[name]), sels[1:]

    # ---- operands ------------------------------------------------------------------------------
    def source(self, opnd: Operand, scalar: bool) -> Source:
        if opnd.kind != "ref":
            what = "constants" if opnd.kind in ("num", "vec") else "this operand"
            self.err("E3004", f"{what} cannot be used in {self.dialect_name}s: constants live "
                     "in program parameters c[n]", opnd.span)
        self.operand_sign(opnd)
        if opnd.ccmask is not None:
            self.err("E3004", "a condition-code mask is only allowed on the destination",
                     opnd.ccmask.span)
        ref = opnd.ref
        index = None
        if ref.name == "v":
            reg, rest = self.attribute(ref)
        elif ref.name == "c":
            reg, index, rest = self.parameter(ref)
        elif ref.name == "o":
            self.err("E3004", "result registers o[...] are write-only", ref.span)
        elif ref.name in self.feat.addr_regs:
            self.err("E3004", f"address register {ref.name} can only be used as an index "
                     "(c[A0.x + n])", ref.span)
        elif ref.name == "CC" and self.vp2:
            self.err("E3004", "CC is a write-only destination", ref.span)
        else:
            reg = self.temp(ref.name, ref.span)
            if reg is None:
                self.err("E2003", f"unknown register '{ref.name}'", ref.span)
            rest = list(ref.selectors)
            if rest and isinstance(rest[0], Subscript):
                self.err("E3004", f"temporary register {ref.name} cannot be indexed", rest[0].span)
        swz = self.swizzle_of(rest, opnd, scalar)
        # VP2 2.14.2.1: negate(base) -> abs -> negate(abs): the outer sign of |...| is the IR
        # negate (a sign inside the bars has no effect once the absolute value is taken)
        return Source(reg, index, None, swz, opnd.neg, opnd.abs)

    def dest(self, opnd: Operand) -> Dest:
        if opnd.kind != "ref" or opnd.neg or opnd.abs:
            self.err("E3005", "the destination must be a register without sign or absolute value",
                     opnd.span)
        ref = opnd.ref
        index = None
        if ref.name == "o":
            reg, rest = self.result(ref)
        elif ref.name == "c" and self.vsp:
            sels = list(ref.selectors)
            if not sels or not isinstance(sels[0], Subscript) or \
                    not isinstance(sels[0].index, IndexConst):
                # VP1 2.14.4: <dstReg> ::= <absProgParamReg> | <temporaryReg>
                self.err("E3005", "a vertex state program writes program parameters with an "
                         "absolute index: c[n]", ref.span)
            n = sels[0].index.value
            if not 0 <= n < self.nparams:
                self.err("E2006", f"program parameter c[{n}] does not exist (c[0]-c[95])",
                         sels[0].span)
            self.vsp_writes.add(n)
            reg, index, rest = self.vsp_array(), Index(n + 1), sels[1:]
        elif ref.name == "c":
            self.err("E3005", "program parameters c[n] are read-only in vertex programs (only "
                     "vertex state programs !!VSP1.0 write them)", ref.span)
        elif ref.name == "v":
            self.err("E3005", "attribute registers v[n] are read-only", ref.span)
        elif ref.name in self.feat.addr_regs:
            self.err("E3005", f"address register {ref.name} is written only by ARL"
                     f"{', ARR and ARA' if self.vp2 else ''}", ref.span)
        elif ref.name == "CC" and self.vp2:
            # VP2 <vp2-nullRegister>: only the condition code is updated
            reg = self.reg("CC", RegKind.TEMP)
            rest = list(ref.selectors)
        else:
            reg = self.temp(ref.name, ref.span)
            if reg is None:
                self.err("E2003", f"unknown register '{ref.name}'", ref.span)
            rest = list(ref.selectors)
        mask = self.dest_mask(rest, "the destination")
        cond = self.ccmask(opnd.ccmask) if opnd.ccmask is not None else None
        return Dest(reg, index, mask, cond)

    # ---- end of program ----------------------------------------------------------------------------
    def finish(self) -> None:
        super().finish()
        sink, prog = self.sink, self.prog
        end = self.end_span
        limit = (256 if self.vp2 else 128) - (4 if self.position_invariant else 0)
        # No "at least one instruction" rule: NV_vertex_program's grammar wants one
        # (<instructionSequence> ::= ... | <instructionLine>), but NV_vertex_program2 2.14.1.8
        # replaces the grammar of !!VP1.0, !!VP1.1 and !!VSP1.0 as well as its own with
        # <programText> ::= <programTextItem> <programText> | "", and xlate models an
        # NV_vertex_program2 implementation (GeForce 6-8 class).  An empty program still fails
        # to load by the rules below (no o[HPOS] written, no c[n] written), except a
        # position-invariant one, which is complete without instructions.
        if self.ninstr > limit:
            sink.error("E1008", f"{self.ninstr} instructions; a {self.dialect_name}"
                       f"{' (position-invariant)' if self.position_invariant else ''} may have at "
                       f"most {limit}", end)
        if self.vsp:
            if not self.vsp_writes and not sink.has_errors:
                # VP1 2.14.4: "fails to load if it does not write at least one program
                # parameter register"
                sink.error("E2015", "a vertex state program must write at least one program "
                           "parameter c[n]", end)
        elif not self.position_invariant and self.hpos_written is None and not sink.has_errors:
            # VP1 2.14.1.7 / VP2 2.14.1.8: "fails to load if it does not write at least one
            # component of the HPOS register"
            sink.error("E2015", "a vertex program must write o[HPOS] (at least one component)",
                       end)
        if sink.has_errors:
            return
        prog.options = tuple(self.options)
        prologue = []
        position = self.position_prologue() if self.position_invariant else []
        if self.vsp:
            self.vsp_epilogue()
            prologue += self.vsp_prologue()
        # VP1 2.14.1.5 / VP2 2.14.1.5: result registers are (0,0,0,1) at the start
        one = self.const_register((0, 0, 0, ONE), F) if self.results_named else None
        for name in self.results_named:
            prologue.append(Instruction("MOV", F, Dest(name), (Source(one),),
                                        text="(results start as (0,0,0,1))"))
        self.insert_prologue(prologue + position)

    def position_prologue(self) -> list[Instruction]:
        """NV_position_invariant: o[HPOS] = MVP * v[OPOS] (VP11 2.14.B; computed as the
        fixed-function transformation, with the tracked state.matrix.mvp)."""
        pos = self.reg("v[0]", RegKind.INPUT, binding=Binding("vertex.attrib", 0))
        out = self.reg("o[HPOS]", RegKind.OUTPUT, binding=RESULTS["HPOS"])
        if out not in self.results_named:
            self.results_named.append(out)
        seq = []
        for row in range(4):
            b = Binding("state.matrix.mvp.row", None, row)
            m = self.reg(b.text(), RegKind.PARAM, binding=b)
            seq.append(Instruction("DP4", F, Dest(out, None, tuple(i == row for i in range(4))),
                                   (Source(m), Source(pos)), text="(NV_position_invariant)"))
        return seq

    def vsp_prologue(self) -> list[Instruction]:
        wanted = range(96) if self.vsp_relative else sorted(self.vsp_reads | self.vsp_writes)
        seq = []
        for n in wanted:
            b = Binding("program.env", n)
            src = self.reg(b.text(), RegKind.PARAM, binding=b)
            seq.append(Instruction("MOV", F, Dest("c", Index(n + 1)), (Source(src),),
                                   text="(VSP: load the program parameters)"))
        return seq

    def vsp_epilogue(self) -> None:
        # the k-th written parameter (in parameter order) leaves as result.attrib[k]: varying
        # locations are few (GL guarantees 16 vec4 outputs), parameter numbers go up to 95
        for k, n in enumerate(sorted(self.vsp_writes)):
            out = self.reg(f"c[{n}]", RegKind.OUTPUT, binding=Binding("result.attrib", k))
            self.prog.instructions.append(Instruction(
                "MOV", F, Dest(out), (Source("c", Index(n + 1)),),
                text="(VSP: the written program parameters are the results)"))


def parse_vp(text: str, header: str, sink: DiagnosticSink) -> Program:
    """Entry point for the NV vertex-program headers (called by frontend.py)."""
    from . import syntax
    start = (1 if text.startswith("\ufeff") else 0) + len(header)
    padded = " " * start + text[start:]
    body, _ = syntax.split_at_end(padded, start, sink)
    statements, _ = syntax.parse_statements(body, sink)
    return VPBuilder(header, sink).build(statements)
