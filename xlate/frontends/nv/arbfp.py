"""``!!ARBfp1.0`` frontend, plain and with ``OPTION NV_fragment_program`` (FPO) /
``OPTION NV_fragment_program2`` (FP2), ``ARB_fragment_program_shadow`` (ARBFPS), the fog options
(lowered by ``options.py``), the precision hints and the draw-buffers options.

Built on the NV4 builder (``nv4.py``): the statement AST, declarations, constants, swizzles and
condition-code tests are handled the same way; this module supplies the dialect's opcode and
suffix tables (``fp_tables.py``), its binding trees, and every load-time rule of ARBFP 3.11.2-3.11.6,
FPO and FP2.  All errors of a file are reported.

Dialect semantics made explicit in the IR (nv_dialects.md sections 9, 12):

* ``RSQ`` takes ``|x|`` in ARB_fragment_program and under both NV options (ARBFP 3.11.5.22; the
  options do not change it): the source gets the ``abs`` modifier (and loses a negation, which
  |x| makes irrelevant).
* Condition codes: one CC register (CC0 of the IR), LT/EQ/GT/UN mapped onto the flag model
  (digest 6.5): every update is ``CCKind.FLOAT`` and the LT..TR/FL tests coincide with GP4's.
* Precision: ``X`` suffix -> ``Instruction.precision = "X"`` (result converted to fx12);
  ``H`` suffix or a ``SHORT`` destination -> ``"FP16"`` (result rounded to fp16); ``R`` stays
  ``"R"`` (no conversion).  ``"H"`` keeps its NV4 meaning (a minimum-precision hint without
  effect) and is therefore never emitted here.  The condition code is computed from the converted
  value (digest 12 item 25; executor ``operands.py``, GLSL backend ``write``).
* ``LOOP``/``ENDLOOP`` (FP2) become REP/ENDREP plus integer arithmetic on a per-nesting-level
  ``A0`` register (``%A0_<k>``: x = loop index, y = increment): ``A0.x = max(floor(v.y), 0)``,
  ``incr = floor(v.z)``, count ``min(v.x, 255)`` floored by REP; ENDLOOP adds the increment and
  clamps at 0 (FP2 3.11.X.5/8, digest 12 item 31).  REP counts are clamped to 255 the same way.
* Labels are fall-through markers in FP2 (no implicit RET as in NV4).  Where a label can be
  reached by falling through, ``CAL label; RET;`` is inserted before it, which keeps the
  fall-through meaning while every label-delimited region ends in a RET (what the structurizer
  expects).  Cost: the fall-through uses one call-stack entry.
* ``fragment.facing`` and ``fragment.fogcoord`` read as (f, 0, 0, 1) (FP2 3.11.3.1, ARBFP Table
  X.1): a prologue copies x into a temporary whose y, z, w are the constants, and the
  instructions read the temporary (the GLSL interface fills other values there).
* FP2 programs get ``Program.call_overflow = "terminate"``, ``max_exec_instructions = 65536``
  and ``nesting_limits = (48, 4)``: the static nesting limits are load errors (E4005), the
  run-time ones (a subroutine called inside nested blocks) end the program (FP2 3.11.X.7-9).
"""
from __future__ import annotations

import re

from ...diagnostics import DiagnosticSink, Span
from ...ir.model import (Binding, CCKind, DataType, Dest, Instruction, Register, RegKind, Sat,
                         Source, TexRef)
from ...ir.ops import OPCODES
from . import bindings as B
from . import fp_tables as T
from .nv4 import NV4Builder
from .nv4_tables import _Skip
from .syntax import Decl, IndexConst, Instr, Member, Operand, Ref, Subscript
from .fp_tables import F, MASK_X, OLD_CC_RULES, PACK_OPS, TEX_OPS, UNPACK_OPS, _SUFFIXES, _SWZ, f32
from .arbfp_flow import ARBfpFlow
from .arbfp_operands import ARBfpOperands


#: decompose's memo: id(table) -> (table, {text: result})
_DECOMPOSED: dict[int, tuple[dict, dict]] = {}
_DECOMPOSED_MAX = 4096

class ARBfpBuilder(ARBfpOperands, ARBfpFlow, NV4Builder):
    """Statement AST of an ``!!ARBfp1.0`` program -> IR (see the module docstring)."""

    #: spec short name for messages
    SPEC = "ARBFP"
    #: what a 16-bit destination/operand is called, and the PK*/UP* sections saying so
    HALF_WHAT = ("a 16-bit (SHORT) variable", "FPO 3.11.5.32-35", "FPO 3.11.5.43-46")

    def __init__(self, header: str, sink: DiagnosticSink):
        super().__init__("!!NVfp4.0", sink)
        self.prog.dialect = header[2:]
        self.level = 0                       # 0 ARB, 1 + NV_fragment_program, 2 + ..._program2
        self.n_instructions = 0              # as written (before any lowering)
        self.n_temps = 0
        self.fixed_inputs: dict[str, str] = {}   # input register -> temp with constant y, z, w
        self.result_sizes: dict[Binding, dict[str, Span]] = {}
        self.closing = None                   # the block an ENDLOOP/ENDREP just closed
        self.var_size: dict[str, str | None] = {}   # OUTPUT variable name -> SHORT/LONG/None
        self.output_regs: dict[Binding, Register] = {}
        self.dest_half = False                # the destination being built is 16-bit
        self.rfl_w_warned = False             # E3010 given (once per program)

    # ---- dialect hooks ---------------------------------------------------------------------
    def op_table(self) -> dict[str, str]:
        return T.ARB_LEVELS[self.level]

    def canonical(self, base: str) -> str:
        return base

    def has_cc(self) -> bool:
        return self.level >= 1

    # ---- options and declarations ----------------------------------------------------------
    def option(self, d: Decl) -> None:
        name, span = d.target
        if self.seen_statement:
            self.err("E2011", "OPTION statements must come before every other statement "
                     "(ARBFP 3.11.4.5)", d.span)
        if name not in T.ARBFP_OPTIONS:
            allowed = ", ".join(sorted(T.ARBFP_OPTIONS))
            self.err("E2011", f"unknown option '{name}' for ARB fragment programs (allowed: "
                     f"{allowed})", span)
        fog = [o for o in self.options if o.startswith("ARB_fog")]
        if name.startswith("ARB_fog") and fog and fog[0] != name:
            self.err("E2011", f"option '{name}' conflicts with '{fog[0]}': only one fog option "
                     "may be given (ARBFP 3.11.4.5.1)", span)
        hints = {"ARB_precision_hint_fastest", "ARB_precision_hint_nicest"}
        if name in hints and (hints - {name}) & set(self.options):
            self.err("E2011", "both precision hints given (ARBFP 3.11.4.5.2)", span)
        if name == "NV_fragment_program2":
            self.level = 2
        elif name == "NV_fragment_program":
            self.level = max(self.level, 1)
        if name not in self.options:
            self.options.append(name)

    def declaration(self, d: Decl) -> None:
        if d.kind == "OPTION":
            return self.option(d)
        self.seen_statement = self.seen_body = True
        if d.kind in ("DEFINE", "DECLARE"):
            self.err("E1002", f"{d.kind} exists only in !!FP1.0 programs; declare a PARAM", d.span)
        if d.kind not in ("TEMP", "PARAM", "ATTRIB", "OUTPUT", "ALIAS"):
            what = {"ADDRESS": "address registers cannot be declared in fragment programs (FP2 "
                               "predefines A0 as the LOOP index)"}.get(
                d.kind, f"{d.kind} declarations do not exist in ARB fragment programs")
            self.err("E1002", what, d.span)
        if d.kind == "ALIAS":
            name, span, _ = d.names[0]
            target = d.target[0]
            if d.init:
                # ARBFP 3.11.3.5: "the right hand side must be an established variable name".
                # Only ARBvp takes a binding there (E2016, for NVIDIA's HaloMD programs); no
                # fragment program of the corpus does, so ARBfp keeps the specified rule.
                self.err("E1002", "the right-hand side of ALIAS must be a declared name, not a "
                         "binding or a component (ARBFP 3.11.3.5); declare it with ATTRIB, "
                         "PARAM or OUTPUT", d.init[0].selectors[0].span)
            self.check_new_name(name, span)
            if self.lookup(target) is None:
                if target in self.poisoned:
                    raise _Skip
                self.err("E2003", f"ALIAS of undeclared name '{target}'", d.target[1])
            self.aliases[name] = self.aliases.get(target, target)
            return
        size = self.size_modifier(d)
        if d.kind == "TEMP":
            for name, span, arr in d.names:
                self.check_new_name(name, span)
                if arr is not None:
                    self.sink.error("E2007", "TEMP arrays do not exist in ARB fragment programs",
                                    span)
                    continue
                self.n_temps += 1
                self.add_var(Register(name, RegKind.TEMP, DataType.NONE, precision=size, span=span))
            return
        name, span, _ = d.names[0]
        self.check_new_name(name, span)
        if d.kind != "PARAM" and (d.array or d.init_is_list):
            self.err("E2007", f"{d.kind} arrays do not exist in ARB fragment programs", span)
        if d.array and not d.init_is_list:
            self.err("E1002", f"the array '{name}' needs a braced initializer list: "
                     f"'{name}[] = {{ ... }}'", span)
        if d.kind == "PARAM":
            reg = self.param_decl(d, name, span, DataType.NONE)
        else:
            reg = self.interface_decl(d, name, span, DataType.NONE, None)
        reg.precision = size
        if d.kind == "OUTPUT":
            # one register per result binding, however many names reach it (OUTPUT variables
            # and direct result.* uses share storage: the GLSL interface does the same)
            self.var_size[name] = size
            b = reg.bindings[0]
            if b in self.output_regs:
                self.names[name] = self.output_regs[b]
                return
            self.output_regs[b] = reg
        self.add_var(reg)

    def implicit(self, b: Binding, kind: RegKind, per_vertex: bool = False) -> Register:
        if kind == RegKind.OUTPUT and b in self.output_regs:
            return self.output_regs[b]
        reg = super().implicit(b, kind, per_vertex)
        if kind == RegKind.OUTPUT:
            self.output_regs[b] = reg
        return reg

    def size_modifier(self, d: Decl) -> str | None:
        """FPO 3.11.3.3/3.11.3.4: "SHORT" / "LONG" on TEMP and OUTPUT (with an NV option)."""
        size = None
        for mod, span in d.mods:
            if mod not in ("SHORT", "LONG"):
                self.err("E2008", f"'{mod}' is not a declaration modifier of ARB fragment "
                         "programs", span)
            if self.level == 0:
                self.err("E2008", f"the size modifier '{mod}' requires OPTION "
                         "NV_fragment_program (FPO 3.11.3.3)", span)
            if d.kind not in ("TEMP", "OUTPUT"):
                self.err("E2008", f"'{mod}' only applies to TEMP and OUTPUT declarations", span)
            if size is not None:
                self.err("E2008", "more than one size modifier", span)
            size = mod
        return size

    def check_new_name(self, name: str, span: Span) -> None:
        if self.is_reserved(name):
            self.err("E2002", f"'{name}' is a reserved word", span)
        if self.level >= 2 and name == "A0":
            self.err("E2002", "'A0' is the predefined loop index register of "
                     "NV_fragment_program2 and cannot be declared", span)
        if name in self.names or name in self.aliases:
            prev = self.names.get(name)
            notes = (f"previous declaration at {prev.span}",) if prev is not None and prev.span else ()
            self.err("E2001", f"'{name}' is already declared", span, *notes)

    def is_reserved(self, name: str) -> bool:
        if self.level == 0:
            return name in T.ARBFP_RESERVED
        # FPO 3.11.2: the keywords and every instruction name "and variants" of Table X.5
        return name in T.ARBFP_NV_KEYWORDS or self.decompose(name, self.op_table()) is not None

    @staticmethod
    def decompose(text: str, table: dict[str, str]):
        """Longest mnemonic of ``table`` that ``text`` starts with whose remainder is a suffix
        sequence ``[R|H|X][C][_SAT|_SSAT]`` (digest 2.5); (base, prec, cc, sat) or None.
        Remembered per table (one of the module-level opcode tables) and text: every
        instruction and every declared name is decomposed, and they recur."""
        entry = _DECOMPOSED.get(id(table))
        if entry is None or entry[0] is not table:
            entry = _DECOMPOSED[id(table)] = (table, {})
        memo = entry[1]
        got = memo.get(text, memo)
        if got is not memo:
            return got
        got = None
        for cut in range(len(text), 0, -1):
            base = text[:cut]
            if base in table:
                m = _SUFFIXES.match(text[cut:])
                if m:
                    got = base, m.group(1), m.group(2), m.group(3)
                    break
        if len(memo) >= _DECOMPOSED_MAX:        # names come from the input: bounded
            memo.clear()
        memo[text] = got
        return got

    def param_item(self, item, ptype: DataType):
        if isinstance(item, Ref):
            if item.name not in ("program", "state"):
                self.err("E2004", f"'{item.name}' is not a program parameter binding "
                         "(expected program.local, program.env, state.* or a constant)", item.span)
            root = T.ARBFP_PROGRAM if item.name == "program" else T.ARBFP_STATE
            res = self.resolve(item, root, decl=True)
            if res.rest:
                self.err("E2004", "unexpected selector after a parameter binding", res.rest[0].span)
            return list(res.bindings), [None] * len(res.bindings)
        return super().param_item(item, ptype)

    def resolve_interface(self, ref: Ref, kind: RegKind, decl: bool) -> B.Resolved:
        if kind == RegKind.INPUT:
            if ref.name != "fragment":
                self.err("E2004", f"'{ref.name}' is not a fragment attribute binding (expected "
                         "fragment.*)", ref.span)
            first = ref.selectors[0] if ref.selectors else None
            if isinstance(first, Member) and first.name == "facing" and self.level < 2:
                self.err("E2004", "fragment.facing requires OPTION NV_fragment_program2 "
                         "(FP2 3.11.3.1)", first.span)
            root = T.ARBFP_NV2_INPUTS if self.level >= 2 else T.ARBFP_INPUTS
            res = self.resolve(ref, root, decl)
        else:
            if ref.name != "result":
                self.err("E2004", f"'{ref.name}' is not a result binding (expected result.color "
                         "or result.depth)", ref.span)
            res = self.resolve(ref, T.ARBFP_RESULTS, decl)
            if res.bindings[0].path == "result.color":
                sub = next((s for s in ref.selectors if isinstance(s, Subscript)), None)
                if sub is not None and not {"ARB_draw_buffers", "ATI_draw_buffers"} & set(self.options):
                    self.err("E2004", "result.color[n] needs 'OPTION ARB_draw_buffers;' (or "
                             "ATI_draw_buffers)", sub.span)
        self.check_rest(res, ref)
        return res

    def check_rest(self, res: B.Resolved, ref: Ref) -> None:
        """A member left after a binding must be a swizzle or mask (``result.color.primary`` is
        not a binding of fragment programs)."""
        if res.rest and isinstance(res.rest[0], Member) and not set(res.rest[0].name) <= set("xyzwrgba"):
            self.err("E2004", f"unknown binding member '{res.rest[0].name}' after "
                     f"'{res.bindings[0].text()}'", res.rest[0].span)

    # ---- instructions ------------------------------------------------------------------------
    def split_opcode(self, ins: Instr):
        text = ins.opcode
        table = self.op_table()
        got = self.decompose(text, table)
        if got is not None:
            return got
        self.unknown_opcode(text, ins.span)

    def unknown_opcode(self, text: str, span: Span):
        for level, table in enumerate(T.ARB_LEVELS):
            if level > self.level and self.decompose(text, table) is not None:
                self.err("E3001", f"'{text}' requires OPTION {T.LEVEL_OPTION[level]}", span)
        base = re.match(r"[A-Z]+[0-9]?[A-Z]*", text)
        if base and base.group() in T.VERTEX_ONLY_OPS or text in T.VERTEX_ONLY_OPS:
            self.err("E3001", f"'{text}' is a vertex program opcode", span)
        for table in T.ARB_LEVELS[:self.level + 1]:
            for cut in range(len(text), 0, -1):
                if text[:cut] in table and re.fullmatch(r"(R|H|X|C|_SAT|_SSAT)+", text[cut:]):
                    self.err("E3001", f"'{text}': the suffixes of {text[:cut]} must appear in the "
                             "order R/H/X, then C, then _SAT/_SSAT, each at most once", span)
        if text.upper() != text and self.decompose(text.upper(), self.op_table()):
            self.err("E3001", f"unknown opcode '{text}' (opcodes are upper case)", span)
        self.err("E3001", f"unknown opcode '{text}'", span)

    def suffix_error(self, base: str, what: str, letter: str, span: Span):
        for level in range(self.level + 1, len(T.ARB_LEVELS)):
            flags = T.ARB_LEVELS[level].get(base)
            if flags is not None and letter in flags and (letter != "_SSAT" or level >= 2):
                self.err("E3002", f"the {what} on {base} requires OPTION {T.LEVEL_OPTION[level]}",
                         span)
        self.err("E3002", f"{base} does not take the {what} ({self.table_name()})", span)

    def table_name(self) -> str:
        return {0: "ARBFP Table X.5", 1: "FPO Table X.5", 2: "FP2 Table X.5"}[self.level]

    def instruction(self, ins: Instr) -> None:
        self.seen_statement = self.seen_body = True
        base, prec, cc, sat = self.split_opcode(ins)
        self.n_instructions += 1
        flags = self.op_table()[base]
        if ins.mods:
            self.err("E3002", f"'.{ins.mods[0][0]}': dot modifiers are NV_gpu_program4 syntax; "
                     "this dialect uses glued suffixes", ins.mods[0][1])
        if base in T.FLOW_OPS:
            self.block_structure(base, ins)
        if prec and prec not in flags:
            self.suffix_error(base, f"precision suffix '{prec}'", prec, ins.span)
        if cc and "C" not in flags:
            self.suffix_error(base, "condition-code update suffix 'C'", "C", ins.span)
        if sat:
            if "S" not in flags:
                self.suffix_error(base, f"saturation suffix '{sat}'", "S", ins.span)
            if sat == "_SSAT" and not self.has_ssat():
                self.err("E3002", "'_SSAT' requires OPTION NV_fragment_program2"
                         if self.SPEC == "ARBFP" else "'_SSAT' does not exist in FP1.0 (only _SAT)",
                         ins.span)
        irop = self.canonical(base)
        out = Instruction(irop, F, span=ins.span)
        if sat:
            out.sat = Sat.SAT if sat == "_SAT" else Sat.SSAT
        if cc:
            out.cc_update = 0
        if base in T.FLOW_OPS:
            self.flow(ins, base, out)
            self.prog.instructions.append(out)
            return
        info = OPCODES[irop]
        if base in TEX_OPS:
            self.tex(ins, info, out, False)
        elif base == "KIL":
            self.kill(ins, info, out, False)
        else:
            self.alu(ins, info, out, False)
            self.alu_checks(base, ins, out)
        if out.cc_update is not None:
            out.cc_kind = CCKind.FLOAT       # one CC, float results only (digest 6.5)
        if out.dst is not None:
            out.precision = self.result_precision(out, prec)
        self.prog.instructions.append(out)

    def has_ssat(self) -> bool:
        return self.level >= 2

    def result_precision(self, out: Instruction, prec: str | None) -> str | None:
        """IR precision of a written result (module docstring; FPO 3.11.4.X, FP1 3.11.4.2)."""
        p = {"X": "X", "H": "FP16", "R": "R"}.get(prec) if prec else None
        if p in ("X", "FP16") and self.full_precision_operands(out):
            p = None
        if self.half_destination(out.dst) and p != "X":
            p = "FP16"
        return p

    def full_precision_operands(self, out: Instruction) -> bool:
        return False

    def half_destination(self, dst: Dest) -> bool:
        return self.dest_half

    def destination_is_half(self, ref: Ref, reg: Register) -> bool:
        """FPO 3.11.3.3/4: a SHORT TEMP, or an OUTPUT written through a SHORT variable."""
        if reg.kind == RegKind.OUTPUT:
            return self.var_size.get(ref.name) == "SHORT"
        return reg.precision == "SHORT"

    def alu_checks(self, base: str, ins: Instr, out: Instruction) -> None:
        if base == "RSQ" and self.rsq_abs():
            # ARBFP 3.11.5.22: RSQ computes 1/sqrt(|x|); a negation is irrelevant under |x|
            s = out.srcs[0]
            out.srcs = (Source(s.reg, s.index, s.vertex, s.swizzle, False, True, s.comp_neg),)
        if base == "RFL" and out.dst.mask[3] and not self.rfl_w_warned:
            # FPO 3.11.5.36 / FP1 3.11.5.26: "fail to load if the w component of the result is
            # enabled".  NVIDIA's drivers loaded such programs: piglit's asmparsertest
            # size_specifier-68 (REQUIRE GL_NV_fragment_program_option: NVIDIA's parser) and
            # its fp-rfl rendering test write RFL to a full mask and expect success, and Mesa's
            # parsers never checked it.  Accepted with warning E3010; w gets the project's value
            # for RFL's undefined w, 0.0 (executor and GLSL helper agree).
            self.rfl_w_warned = True
            self.sink.warning("E3010", "RFL writes the w component, which its result does not "
                              "define (FPO 3.11.5.36 / FP1 3.11.5.26: fails to load); accepted as "
                              "NVIDIA's drivers did, w = 0.0", ins.operands[0].span)
        if base in PACK_OPS and self.half_destination(out.dst):
            self.err("E3005", f"{base} cannot write {self.HALF_WHAT[0]}: the packed 32-bit word "
                     f"does not fit ({self.HALF_WHAT[1]})", ins.operands[0].span)
        if base in UNPACK_OPS and self.half_source(out.srcs[0]):
            self.err("E3004", f"{base} cannot read {self.HALF_WHAT[0]}: it unpacks a 32-bit "
                     f"word ({self.HALF_WHAT[2]})", ins.operands[1].span)

    def rsq_abs(self) -> bool:
        return True

    def half_source(self, src: Source) -> bool:
        reg = self.prog.registers.get(src.reg)
        return reg is not None and reg.precision == "SHORT"

    def swz(self, ins: Instr, info, out, ntc) -> None:
        src_op = ins.operands[1]
        base = self.source(src_op, F, scalar=False, ntc=ntc)
        swizzled = src_op.swizzle is not None or (
            src_op.kind == "ref" and bool(self.reference(src_op.ref, write=False)[3]))
        if base.neg or base.abs or swizzled:
            self.err("E3004", "the SWZ source takes no sign, absolute value or swizzle", src_op.span)
        sel, negs, sets = [], [], set()
        for opnd in ins.operands[2:]:
            if opnd.kind == "num" and opnd.numbers[0].text in ("0", "1") and opnd.swizzle is None:
                sel.append(4 if opnd.numbers[0].text == "0" else 5)
            elif (opnd.kind == "ref" and not opnd.ref.selectors and opnd.ref.name in _SWZ
                  and not opnd.abs and opnd.ccmask is None):
                sel.append(_SWZ[opnd.ref.name])
                sets.add("xyzw" if opnd.ref.name in "xyzw" else "rgba")
            else:
                self.err("E3004", "extended swizzle selectors are 0, 1, x, y, z, w (or r, g, b, a)",
                         opnd.span)
            negs.append(opnd.neg)
        if len(sets) > 1:
            # ARBFP 3.11.2 <extendedSwizzle>: all xyzw or all rgba selectors
            self.err("E3004", "an extended swizzle cannot mix xyzw and rgba selectors",
                     ins.operands[2].span)
        out.srcs = (Source(base.reg, base.index, base.vertex, tuple(sel), comp_neg=tuple(negs)),)

    def kill(self, ins: Instr, info, out, ntc) -> None:
        self.expect_operands(ins, 1, "one operand (a vector or a condition-code test)")
        opnd = ins.operands[0]
        if self.has_cc():
            cc = self.as_cctest(opnd)
            if cc is not None:
                out.cond = cc
                return
        elif opnd.kind == "cc" or (opnd.kind == "ref" and opnd.ref.name in OLD_CC_RULES
                                    and self.lookup(opnd.ref.name) is None):
            self.err("E3004", "KIL with a condition-code test requires OPTION NV_fragment_program",
                     opnd.span)
        out.srcs = (self.source(opnd, F, scalar=False, ntc=ntc),)

    # ---- textures --------------------------------------------------------------------------------
    def tex(self, ins: Instr, info, out: Instruction, ntc: bool) -> None:
        n_in = len(info.inputs)
        ops = ins.operands
        if len(ops) != 3 + n_in:
            self.err("E3003", f"{info.name} takes a destination, {n_in} coordinate operand"
                     f"{'s' if n_in > 1 else ''}, a texture unit and a target", ins.span)
        out.dst = self.dest(ops[0], F, ntc)
        out.srcs = tuple(self.source(o, F, scalar=False, ntc=ntc) for o in ops[1:1 + n_in])
        unit_op, target_op = ops[1 + n_in], ops[2 + n_in]
        unit = self.texture_unit(unit_op)
        target = self.texture_target(target_op)
        prev = self.tex_targets.get(unit)
        if prev is not None and prev[0] != target:
            self.err("E5002", f"texture unit {unit} is used with target {target} and {prev[0]}; "
                     "one target per unit", target_op.span, f"{prev[0]} used at {prev[1]}")
        self.tex_targets.setdefault(unit, (target, target_op.span))
        out.tex = self.tex_ref(out, unit, target)

    def tex_ref(self, out: Instruction, unit: int, target: str) -> TexRef:
        return TexRef(unit, target)

    def texture_unit(self, opnd: Operand) -> int:
        if opnd.kind != "ref" or opnd.ref.name != "texture" or opnd.neg or opnd.abs:
            self.err("E3004", "expected a texture unit ('texture' or 'texture[n]')", opnd.span)
        sels = opnd.ref.selectors
        if not sels:
            return 0
        if len(sels) != 1 or not isinstance(sels[0], Subscript) or not isinstance(sels[0].index, IndexConst):
            self.err("E3004", "a texture unit is 'texture' or 'texture[n]' with a constant n", opnd.span)
        unit = sels[0].index.value
        if not 0 <= unit < T.MAX_TEXTURE_UNITS:
            self.err("E5004", f"texture unit {unit} out of range [0, {T.MAX_TEXTURE_UNITS - 1}]",
                     sels[0].span)
        return unit

    def texture_target(self, opnd: Operand) -> str:
        name = opnd.target if opnd.kind == "target" else (
            opnd.ref.name if opnd.kind == "ref" and not opnd.ref.selectors else None)
        if name in T.SHADOW_TARGETS:
            if "ARB_fragment_program_shadow" not in self.options:
                self.err("E5001", f"the {name} target requires OPTION ARB_fragment_program_shadow "
                         "(ARBFPS)", opnd.span)
            return name
        if name in T.TARGETS:
            return name
        if name in T.ARRAY_TARGETS:
            if "MESA_texture_array" not in self.options:
                self.err("E5001", f"the {name} target requires OPTION MESA_texture_array",
                         opnd.span)
            if name.startswith("ARRAYSHADOW") and "ARB_fragment_program_shadow" not in self.options:
                self.err("E5001", f"the {name} target requires OPTION ARB_fragment_program_shadow "
                         "(ARBFPS) besides MESA_texture_array", opnd.span)
            return T.ARRAY_TARGETS[name]
        if name in ("SHADOWARRAY1D", "SHADOWARRAY2D") and "MESA_texture_array" in self.options:
            self.err("E5001", f"'{name}' is NV_gpu_program4's spelling; OPTION MESA_texture_array "
                     f"names it ARRAYSHADOW{name[-2:]}", opnd.span)
        arrays = "MESA_texture_array" in self.options
        shadow = "ARB_fragment_program_shadow" in self.options
        self.err("E5001", "expected a texture target (1D, 2D, 3D, CUBE, RECT"
                 + (", SHADOW1D, SHADOW2D, SHADOWRECT" if shadow else "")
                 + (", ARRAY1D, ARRAY2D" if arrays else "")
                 + (", ARRAYSHADOW1D, ARRAYSHADOW2D" if arrays and shadow else "") + ")",
                 opnd.span)























    # ---- end of program ------------------------------------------------------------------------
    def finish(self) -> None:
        sink = self.sink
        for kind, _, span in self.blocks:
            sink.error("E4003", f"{kind} block is never closed (missing END{kind})", span)
        for name, span in self.calls:
            if name not in self.prog.labels:
                sink.error("E4001", f"CAL to undefined label '{name}'", span)
        self.check_limits()
        self.prog.options = tuple(self.options)
        self.prog.fragcoord_origin_upper_left = \
            "ARB_fragment_coord_origin_upper_left" in self.options
        self.prog.fragcoord_pixel_center_integer = \
            "ARB_fragment_coord_pixel_center_integer" in self.options
        if self.level >= 2:
            self.prog.call_overflow = "terminate"                       # FP2 3.11.X.2
            self.prog.max_exec_instructions = T.MAX_EXEC_INSTRUCTIONS    # FP2 3.11.4.X
            # FP2 3.11.X.7-9: run-time IF/loop nesting, callers' blocks included (executor;
            # the GLSL backend refuses the rare program a call chain can take there, E7001)
            self.prog.nesting_limits = (T.MAX_IF_DEPTH, T.MAX_LOOP_DEPTH)
            self.make_fall_through_explicit()
        self.prog.entry = self.prog.labels.get("main", 0)
        self.input_prologue()
        self.apply_options()

    def check_limits(self) -> None:
        """ARBFP 3.11.3.6 resource limits (values: fp_tables; fog options lower them)."""
        if self.sink.has_errors:
            return
        fog = next((o for o in self.options if o.startswith("ARB_fog")), None)
        span = Span(self.sink.file, 1, 1, 10)
        limit = T.MAX_INSTRUCTIONS - (T.FOG_INSTRUCTIONS[fog] if fog else 0)
        if self.n_instructions > limit:
            self.sink.error("E1008", f"{self.n_instructions} instructions; the limit is {limit} "
                            "(MAX_PROGRAM_INSTRUCTIONS_ARB)", span)
        limit = T.MAX_TEMPORARIES - (1 if fog else 0)
        if self.n_temps > limit:
            self.sink.error("E1008", f"{self.n_temps} temporaries; the limit is {limit} "
                            "(MAX_PROGRAM_TEMPORARIES_ARB)", span)
        attribs = {b for r in self.prog.registers.values() if r.kind == RegKind.INPUT
                   for b in r.bindings}
        limit = T.MAX_ATTRIBS - (1 if fog else 0)
        if len(attribs) > limit:
            self.sink.error("E1008", f"{len(attribs)} attribute bindings; the limit is {limit} "
                            "(MAX_PROGRAM_ATTRIBS_ARB)", span)
        params: set = set()
        for r in self.prog.registers.values():
            if r.kind == RegKind.PARAM:
                for i, b in enumerate(r.bindings):
                    params.add(b if b is not None else ("const", r.value[i]))
            elif r.kind == RegKind.CONST and r.dtype == F:
                params.add(("const", r.value[0]))
        limit = T.MAX_PARAMETERS - (2 if fog else 0)
        if len(params) > limit:
            self.sink.error("E1008", f"{len(params)} parameter bindings; the limit is {limit} "
                            "(MAX_PROGRAM_PARAMETERS_ARB)", span)

    def make_fall_through_explicit(self) -> None:
        """``CAL label; RET;`` before every label that execution can fall into (module
        docstring): FP2 labels are markers, execution continues across them."""
        ins = self.prog.instructions
        positions = sorted(set(self.prog.labels.values()))
        if not positions:
            return
        first_label = {}
        for name, at in sorted(self.prog.labels.items(), key=lambda kv: (kv[1], kv[0])):
            first_label.setdefault(at, name)
        new: list[Instruction] = []
        shift, added = {}, 0
        for pos in range(len(ins) + 1):
            if pos in first_label and pos > 0:
                prev = ins[pos - 1]
                if not (prev.op == "RET" and (prev.cond is None or prev.cond.rule == "TR")):
                    new.append(Instruction("CAL", label=first_label[pos], span=prev.span,
                                           text="(fall-through into a label)"))
                    new.append(Instruction("RET", span=prev.span, text="(fall-through into a label)"))
                    added += 2
            shift[pos] = pos + added
            if pos < len(ins):
                new.append(ins[pos])
        self.prog.instructions = new
        self.prog.labels = {k: shift[v] for k, v in self.prog.labels.items()}

    def input_prologue(self) -> None:
        """Fill the temporaries of attributes with constant components (module docstring)."""
        if not self.fixed_inputs:
            return
        seq = []
        for reg_name, tmp in self.fixed_inputs.items():
            b = self.prog.registers[reg_name].bindings[0]
            y, z, w = self.const_components(b)
            k = self.const_register((0, f32(y), f32(z), f32(w)), F)
            seq.append(Instruction("MOV", F, Dest(tmp, None, (False, True, True, True)),
                                   (Source(k),), text=f"({b.text()}: constant y, z, w)"))
            seq.append(Instruction("MOV", F, Dest(tmp, None, MASK_X),
                                   (Source(reg_name, swizzle=(0, 0, 0, 0)),),
                                   text=f"({b.text()}.x)"))
        at = self.prog.entry
        self.prog.instructions[at:at] = seq
        self.prog.labels = {k: (v + len(seq) if v > at else v) for k, v in self.prog.labels.items()}


