"""NV_vertex_program family frontend: ``!!VP1.0``, ``!!VP1.1``, ``!!VSP1.0``, ``!!VP2.0``.

The shared machinery of the "older" vertex dialects (:class:`~.legacy_vertex.LegacyVertexBuilder`:
opcode + glued suffix decomposition per dialect, old-style condition codes, address-register
instructions, labels and BRA/CAL/RET, the per-dialect numerics below), which ``arbvp.py`` builds
on too, is ``legacy_vertex.py``; this module is the NV dialects' registers and headers.

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

from ...diagnostics import DiagnosticSink, Span
from ...ir.model import (Binding, DataType, Dest, Index, Instruction, Program, Register, RegKind,
                         Source)
from .syntax import IndexConst, IndexRel, Instr, Label, Operand, Ref, Subscript
from .legacy_vertex import F, Features, LegacyVertexBuilder, S, XYZW, f32_bits


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
ONE = f32_bits(1.0)


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


_TEMP_NAME = re.compile(r"R([0-9]+)")

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
        m = _TEMP_NAME.fullmatch(name)
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
