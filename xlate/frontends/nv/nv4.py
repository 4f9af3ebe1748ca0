"""NV_gpu_program4 family frontend: ``!!NVvp4.0``, ``!!NVfp4.0``, ``!!NVgp4.0`` (+ PBO).

Turns the statement AST into the IR, checking every load-time rule the specs define (GP4
2.X.2-2.X.8, VP4, FP4, GEO4, PBO).  All errors of a file are reported.

Dialect quirks removed here (so later stages need not know them):
* glued suffixes (``MOVR``, ``ADDC_SAT``) and dot modifiers become instruction fields;
* a label starts a new subroutine (GP4 2.X.8.Z CAL: reaching a label ends a called subroutine;
  nv_dialects.md section 12 item 29 for main): an explicit ``RET`` is inserted before each label
  that can be reached by falling through;
* literal constants get the bits of the type that reads them (GP4 2.X.3.3);
* condition-code updates get their flag rule (CCKind), including the rule that an ``ADD`` with a
  negated operand is a subtraction for carry purposes (GP4 issue 23);
* ``BRK NE.x`` and ``BRK (NE.x)`` (both seen: spec text vs BNF) become the same condition.
"""
from __future__ import annotations

import re

from ...diagnostics import DiagnosticSink, Span
from ...ir.model import (Binding, CCKind, DataType, Geometry, Instruction, Program, Register, Sat,
                         Source, Stage, TexRef)
from ...ir.carry import instruction_carry
from ...ir.ops import CARRY_OPS, OPCODES, TEX_TARGETS
from ...ir.limits import MAX_TOTAL_OUTPUT_COMPONENTS, result_components
from .syntax import Decl, IndexConst, Instr, Label, Operand, Subscript
from .nv4_tables import (MAX_IF_DEPTH, MAX_LOOP_DEPTH, NO_CLAMP_OPS, REMOVED_OPS, STAGE_OF_HEADER,
                         STAGE_OPS, TARGET_DIMS, TEXEL_OFFSET_RANGE, _CATEGORY_WORD, _GLUED,
                         _MOD_CATEGORY, _SPLIT_OPCODES, _SWZ, _Skip, _TYPE_OF_MOD, _glued_modifier,
                         base_has_no_mods)
from .nv4_declarations import NV4Declarations
from .nv4_operands import NV4Operands


class NV4Builder(NV4Declarations, NV4Operands):
    """Statement AST -> IR of one NV4 program: instructions, labels and blocks, texture operands
    and the checks at the end here; the declarations (:mod:`.nv4_declarations`) and the operands
    (:mod:`.nv4_operands`) are parts mixed in, the tables are :mod:`.nv4_tables`."""

    def __init__(self, header: str, sink: DiagnosticSink):
        self.stage = STAGE_OF_HEADER[header]
        self.sink = sink
        self.prog = Program(self.stage, header[2:], source_name=sink.file)
        self.names: dict[str, Register] = {}
        self.aliases: dict[str, str] = {}
        # result binding -> the register (and element) holding it: an OUTPUT variable and a
        # direct "result.*" write of the same binding are one storage, as in the GLSL interface
        # (two registers would leave the executor with two copies of one result)
        self.output_at: dict[Binding, tuple[Register, int | None]] = {}
        self.consts: dict[tuple, str] = {}
        self.tex_targets: dict[int, tuple[str, Span]] = {}
        self.label_spans: dict[str, Span] = {}
        self.blocks: list[tuple[str, object, Span]] = []   # open IF / REP blocks: (kind, state, span)
        # how many blocks of each kind are open (push_block/pop_block keep it): the depth checks
        # and BRK/CONT stay O(1) however deep the nesting (10,000 IFs were quadratic)
        self.open_blocks: dict[str, int] = {}
        self.too_deep: set[str] = set()    # nesting limits already reported (E4005 once each)
        self.calls: list[tuple[str, Span]] = []
        self.seen_statement = False
        self.seen_body = False          # an instruction, label or variable declaration was seen
        self.geom_attempted: dict[str, Span] = {}
        self.options: list[str] = []
        self.geom: dict[str, tuple[object, Span]] = {}
        self.poisoned: set[str] = set()
        self.attrib_slots: dict[int, tuple[bool, Binding, Span]] = {}   # VP4 aliasing pairs
        self.interp_of: dict[tuple, tuple[str | None, str, Binding]] = {}  # FP4 per attribute
        self.relative_arrays: set[str] = set()
        self.relative_owner: dict[Binding, str] = {}

    # ---- entry -------------------------------------------------------------------------------
    def build(self, statements: list) -> Program:
        for st in statements:
            try:
                if isinstance(st, Instr):
                    self.instruction(st)
                elif isinstance(st, Decl):
                    try:
                        self.declaration(st)
                    except _Skip:
                        # remember the names so their uses do not cascade into "undeclared"
                        self.poisoned.update(n for n, _, _ in st.names if n not in self.names)
                        raise
                elif isinstance(st, Label):
                    self.label(st)
            except _Skip:
                pass
        self.finish()
        return self.prog

    def err(self, code: str, msg: str, span: Span | None, *notes: str):
        self.sink.error(code, msg, span, *notes)
        raise _Skip


















    # VP4 Table X.X "Invalid Vertex Attribute Binding Pairs": conventional -> generic slot
    _GENERIC_SLOT = {"vertex.position": 0, "vertex.normal": 2, "vertex.color": 3,
                     "vertex.color.secondary": 4, "vertex.fogcoord": 5}






    # ---- instructions ------------------------------------------------------------------------------
    def label(self, lab: Label) -> None:
        self.seen_statement = self.seen_body = True
        if lab.name in self.label_spans:
            self.err("E4002", f"label '{lab.name}' is defined twice", lab.span,
                     f"first defined at {self.label_spans[lab.name]}")
        if self.blocks:
            # GP4 2.X.5: a block that "contains an instruction label" fails to load.  Block
            # entries are (kind, state, span).  The label is still recorded so that CALs to it
            # do not cascade into "undefined label" errors.
            kind, _, span = self.blocks[-1]
            self.sink.error("E4003", f"label '{lab.name}' inside an open {kind} block (opened at "
                            f"{span})", lab.span)
        self.label_spans[lab.name] = lab.span
        self.prog.labels[lab.name] = len(self.prog.instructions)

    def split_opcode(self, ins: Instr):
        text = ins.opcode
        known = _SPLIT_OPCODES.get((self.stage, text))
        if known is not None:
            return known
        ops = STAGE_OPS[self.stage]
        for cut in range(len(text), 0, -1):
            base = text[:cut]
            if base in ops:
                m = _GLUED.match(text[cut:])
                if m:
                    known = _SPLIT_OPCODES[self.stage, text] = (base, m.group(1), m.group(2),
                                                                m.group(3))
                    return known
        for cut in range(len(text), 0, -1):
            base, rest = text[:cut], text[cut:]
            if base in ops and re.fullmatch(r"(R|H|X|C0|C1|C|_SAT|_SSAT)+", rest):
                if "X" in re.sub(r"_S?SAT", "", rest):
                    # GP4 Table X.15 lists R, H, C, C0, C1, _SAT, _SSAT: no fixed-point X
                    self.err("E3001", f"'{text}': the X (fixed-point) precision suffix does not "
                             "exist in NV_gpu_program4 (GP4 Table X.15)", ins.span)
                # GP4 2.X.4.1: "they must appear in order, with data type suffixes first,
                # followed by condition code update suffixes, followed by clamping suffixes"
                self.err("E3001", f"'{text}': the suffixes of {base} must appear in the order "
                         "R/H, then C/C0/C1, then _SAT/_SSAT, each at most once (GP4 2.X.4.1)",
                         ins.span)
        base = re.match(r"[A-Z]+[0-9]?[A-Z]*", text)
        if text in REMOVED_OPS or (base and base.group() in REMOVED_OPS):
            self.err("E3001", f"'{text}' does not exist in NV_gpu_program4 (removed from the older "
                     "NV/ARB dialects)", ins.span)
        for st, st_ops in STAGE_OPS.items():
            if text in st_ops and st != self.stage:
                self.err("E3001", f"'{text}' is only available in {st.value} programs", ins.span)
        self.err("E3001", f"unknown opcode '{text}'", ins.span)

    def instruction(self, ins: Instr) -> None:
        self.seen_statement = self.seen_body = True
        base, glued_prec, glued_cc, glued_sat = self.split_opcode(ins)
        info = OPCODES[base]
        if info.category == "flow":
            self.block_structure(base, ins)
        mods: dict[str, tuple[str, Span]] = {}
        glued: dict[str, str] = {}        # category -> suffix as written (for messages)
        if glued_prec:
            mods["precision"] = (glued_prec, ins.span)
            glued["precision"] = glued_prec
        if glued_cc:
            mods["cc"] = ("CC" if glued_cc == "C" else _glued_modifier(glued_cc), ins.span)
            glued["cc"] = glued_cc
        if glued_sat:
            mods["sat"] = (_glued_modifier(glued_sat), ins.span)
            glued["sat"] = glued_sat
        for mod, span in ins.mods:
            cat = _MOD_CATEGORY.get(mod)
            if cat is None:
                self.err("E3002", f"unknown instruction modifier '.{mod}'", span)
            # GP4 2.X.4.1: "more than one modifier of any given type" fails to load; the R and H
            # suffixes are data type modifiers (Table X.15: both mean F), so MOVR.F is two
            first = "precision" if cat == "type" and "precision" in mods else cat
            if first in mods:
                spelled = (f"suffix '{glued[first]}'" if first in glued
                           else f"'.{mods[first][0]}'")
                self.err("E3002", f"more than one {_CATEGORY_WORD[cat]} modifier "
                         f"({spelled} and '.{mod}')", span)
            mods[cat] = (mod, span)
            glued.pop(cat, None)          # the category is now spelled '.{mod}'
        dtype = info.default
        if "type" in mods:
            dtype = _TYPE_OF_MOD[mods["type"][0]]
        if "mul" in mods:
            mul = mods["mul"][0]
            if base != "MUL":
                self.err("E3002", f"'.{mul}' is only allowed on MUL", mods["mul"][1])
            if mul in ("S24", "U24"):
                if "type" in mods:
                    self.err("E3002", f"'.{mul}' already selects the data type; remove "
                             f"'.{mods['type'][0]}'", mods["type"][1])
                dtype = DataType.INT if mul == "S24" else DataType.UINT
            elif dtype == DataType.FLOAT:
                self.err("E3002", "MUL.HI needs an integer data type (.S or .U)", mods["mul"][1])
        if "precision" in mods:
            if "H" not in info.mods:
                self.err("E3002", f"{base} does not take a precision suffix", ins.span)
            if dtype != DataType.FLOAT:     # MUL.S24 with a glued R/H
                self.err("E3002", "a precision suffix (R/H) requires a float data type", ins.span)
        self.check_type_allowed(info, dtype, mods, ins)
        if "cc" in mods and "C" not in info.mods:
            self.err("E3002", f"{base} cannot update condition codes", mods["cc"][1])
        if "sat" in mods:
            # GP4 2.X.4.1: clamping needs a floating-point result and an "S" mark in Table X.13
            if info.result_type(dtype) != DataType.FLOAT:
                self.err("E3002", f"saturation is only allowed on float results ({base}"
                         f"{'.' + mods['type'][0] if 'type' in mods else ''})", mods["sat"][1])
            if "S" not in info.mods or base in NO_CLAMP_OPS:
                self.err("E3002", f"{base} does not support clamping modifiers (GP4 Table X.13)",
                         mods["sat"][1])
        ntc = "ntc" in mods
        out = Instruction(base, dtype, span=ins.span)
        if "sat" in mods:
            out.sat = Sat(mods["sat"][0])
        if "cc" in mods:
            out.cc_update = 1 if mods["cc"][0] == "CC1" else 0
        if "precision" in mods:
            out.precision = mods["precision"][0]
        if "mul" in mods:
            out.mul_mode = mods["mul"][0]
        category = info.category
        if category == "flow":
            self.flow(ins, info, out, ntc)
        elif category == "tex":
            self.tex(ins, info, out, ntc)
        elif category == "kill":
            self.kill(ins, info, out, ntc)
        elif category == "geom":
            self.geom_op(ins, info, out, ntc)
        else:
            self.alu(ins, info, out, ntc)
        if out.cc_update is not None:
            out.cc_kind = self.cc_kind(out, info)
        self.prog.instructions.append(out)

    def check_type_allowed(self, info, dtype, mods, ins):
        if base_has_no_mods(info) and ins.mods:
            self.err("E3002", f"{info.name} takes no modifiers", ins.mods[0][1])
        if "type" not in mods:
            return
        mod, span = mods["type"]
        if dtype == DataType.FLOAT and "F" not in info.mods:
            self.err("E3002", f"{info.name} has no floating-point form ('.F')", span)
        if dtype != DataType.FLOAT and "I" not in info.mods:
            self.err("E3002", f"{info.name} has no integer form ('.{mod}')", span)

    def cc_kind(self, out: Instruction, info) -> CCKind:
        rtype = info.result_type(out.dtype)
        if rtype == DataType.FLOAT:
            return CCKind.FLOAT
        if out.op in CARRY_OPS:
            # negations turn adds into subtracts and back (GP4 2.X.4.3): ir/carry.py
            return instruction_carry(out).kind
        return CCKind.INT

    def expect_operands(self, ins: Instr, count: int, what: str, at_least: int | None = None):
        n = len(ins.operands)
        lo = count if at_least is None else at_least
        if not lo <= n <= count:
            self.err("E3003", f"{ins.opcode} takes {what}; found {n} operand{'s' if n != 1 else ''}",
                     ins.span)

    def alu(self, ins: Instr, info, out: Instruction, ntc: bool) -> None:
        n_in = len(info.inputs)
        if info.name == "SWZ":
            # GP4 2.X.2 <SWZop_instruction>: result, source, then four extended swizzle
            # selectors (six operands; checked by swz() - not the two of Table X.13)
            if len(ins.operands) != 6:
                self.err("E3003", "SWZ takes a destination, a source and four extended swizzle "
                         f"selectors; found {len(ins.operands)} operands", ins.span)
            out.dst = self.dest(ins.operands[0], info.result_type(out.dtype), ntc)
            return self.swz(ins, info, out, ntc)
        if len(ins.operands) != 1 + n_in:       # (the message is formatted only when needed)
            self.expect_operands(ins, 1 + n_in,
                                 f"a destination and {n_in} source operand{'s' if n_in != 1 else ''}")
        out.dst = self.dest(ins.operands[0], info.result_type(out.dtype), ntc)
        srcs = []
        for i, opnd in enumerate(ins.operands[1:]):
            kind = info.inputs[i]
            srcs.append(self.source(opnd, info.operand_type(i, out.dtype), scalar=kind == "s", ntc=ntc))
        out.srcs = tuple(srcs)

    def swz(self, ins: Instr, info, out, ntc) -> None:
        # SWZ R0, R1, -x, 0, 1, w;  (GP4 2.X.2: <instOperandVNS> "," <extendedSwizzle>)
        src_op = ins.operands[1]
        base = self.source(src_op, out.dtype, scalar=False, ntc=ntc)
        # <instOperandVNS>: no sign, no absolute value, no swizzle suffix (also not on bindings:
        # "fragment.color.x" used to slip through a check that only looked at variables)
        swizzled = src_op.swizzle is not None or (
            src_op.kind == "ref" and bool(self.reference(src_op.ref, write=False)[3]))
        if base.neg or base.abs or swizzled:
            self.err("E3004", "the SWZ source takes no sign, absolute value or swizzle", src_op.span)
        sel, negs = [], []
        for opnd in ins.operands[2:]:
            neg = opnd.neg
            if opnd.kind == "num" and opnd.numbers[0].text in ("0", "1"):
                sel.append(4 if opnd.numbers[0].text == "0" else 5)
            elif opnd.kind == "ref" and not opnd.ref.selectors and opnd.ref.name in _SWZ:
                sel.append(_SWZ[opnd.ref.name])
            else:
                self.err("E3004", "extended swizzle selectors are 0, 1, x, y, z, w (or r, g, b, a)",
                         opnd.span)
            negs.append(neg)
        out.srcs = (Source(base.reg, base.index, base.vertex, tuple(sel), comp_neg=tuple(negs)),)

    def kill(self, ins: Instr, info, out, ntc) -> None:
        self.expect_operands(ins, 1, "one operand (a vector or a condition-code test)")
        opnd = ins.operands[0]
        cc = self.as_cctest(opnd)
        if cc is not None:
            if ins.mods:
                self.err("E3002", "KIL with a condition-code test takes no modifiers", ins.mods[0][1])
            out.cond = cc
            return
        out.srcs = (self.source(opnd, out.dtype, scalar=False, ntc=ntc),)

    def geom_op(self, ins: Instr, info, out, ntc) -> None:
        self.expect_operands(ins, 0, "no operands")

    def block_structure(self, name: str, ins: Instr) -> None:
        """Track IF/ELSE/ENDIF and REP/ENDREP nesting (GP4 2.X.5).

        Done before the instruction's modifiers and operands are checked, and a nesting-depth
        error does not drop the block, so that one bad IF or REP does not make its terminator
        report a second, spurious "without a matching" error."""
        if name in ("ELSE", "ENDIF", "ENDREP"):
            self.close_block(name, "IF" if name != "ENDREP" else "REP", ins)
        elif name == "IF":
            if self.open_blocks.get("IF", 0) >= MAX_IF_DEPTH:
                self.nesting_error("IF", f"IF nested deeper than {MAX_IF_DEPTH}", ins.span)
            self.push_block(("IF", "then", ins.span))
        elif name == "REP":
            if self.open_blocks.get("REP", 0) >= MAX_LOOP_DEPTH:
                self.nesting_error("REP", f"REP nested deeper than {MAX_LOOP_DEPTH}", ins.span)
            self.push_block(("REP", len(self.prog.instructions), ins.span))

    def close_block(self, name: str, opener: str, ins: Instr) -> tuple | None:
        """ELSE or a block's end (``name``), whose block ``opener`` must be the innermost open
        one: ELSE turns it into its else part, an end closes it (the closed block returned)."""
        if not self.blocks or self.blocks[-1][0] != opener:
            open_kind = self.blocks[-1][0] if self.blocks else None
            extra = f" (the innermost open block is {open_kind})" if open_kind else ""
            self.err("E4003", f"{name} without a matching {opener}{extra}", ins.span)
        if name == "ELSE":
            if self.blocks[-1][1] == "else":
                self.err("E4003", "second ELSE for one IF", ins.span)
            self.blocks[-1] = ("IF", "else", self.blocks[-1][2])
            return None
        return self.pop_block()

    def push_block(self, entry: tuple) -> None:
        self.blocks.append(entry)
        self.open_blocks[entry[0]] = self.open_blocks.get(entry[0], 0) + 1

    def pop_block(self) -> tuple:
        entry = self.blocks.pop()
        self.open_blocks[entry[0]] -= 1
        return entry

    def nesting_error(self, limit: str, message: str, span: Span) -> None:
        """E4005 at the first block beyond a nesting limit, once per limit: every block nested
        deeper still exceeds it too (10,000 nested IFs made 9,952 errors)."""
        if limit not in self.too_deep:
            self.too_deep.add(limit)
            self.sink.error("E4005", message, span, "blocks nested deeper still are not "
                            "reported again")

    def flow(self, ins: Instr, info, out: Instruction, ntc: bool) -> None:
        name = info.name
        # block nesting was tracked by block_structure() before the modifiers were checked
        if name in ("ELSE", "ENDIF", "ENDREP"):
            self.expect_operands(ins, 0, "no operands")
            return
        if name == "IF":
            self.expect_operands(ins, 1, "one condition-code test")
            out.cond = self.require_cctest(ins.operands[0])
            return
        if name == "REP":
            self.expect_operands(ins, 1, "an optional loop count", at_least=0)
            if ins.operands:
                out.srcs = (self.source(ins.operands[0], out.dtype, scalar=False, ntc=ntc),)
            return
        if name in ("BRK", "CONT"):
            if not self.open_blocks.get("REP"):
                self.err("E4004", f"{name} outside a REP block", ins.span)
            return self.optional_condition(ins, out)
        if name == "RET":
            return self.optional_condition(ins, out)
        if name == "CAL":
            return self.call(ins, out)
        raise AssertionError(name)

    def optional_condition(self, ins: Instr, out: Instruction) -> None:
        """BRK, CONT, RET: no operand, or one condition-code test."""
        self.expect_operands(ins, 1, "an optional condition-code test", at_least=0)
        if ins.operands:
            out.cond = self.require_cctest(ins.operands[0])

    def call(self, ins: Instr, out: Instruction) -> None:
        """CAL: a label, then a condition-code test either glued to it or as an operand."""
        self.expect_operands(ins, 2, "a label and an optional condition-code test", at_least=1)
        target = ins.operands[0]
        if target.kind != "ref" or target.ref.selectors or target.neg or target.abs:
            self.err("E3004", "CAL needs a label name", target.span)
        out.label = target.ref.name
        self.calls.append((out.label, target.span))
        if target.ccmask is not None:
            out.cond = self.cctest(target.ccmask)
        elif len(ins.operands) == 2:
            out.cond = self.require_cctest(ins.operands[1])

    def tex(self, ins: Instr, info, out: Instruction, ntc: bool) -> None:
        n_in = len(info.inputs)
        ops = ins.operands
        if not 3 + n_in <= len(ops) <= 4 + n_in:
            self.err("E3003", f"{info.name} takes a destination, {n_in} coordinate operand"
                     f"{'s' if n_in > 1 else ''}, a texture unit, a target and optional offsets",
                     ins.span)
        out.dst = self.dest(ops[0], info.result_type(out.dtype), ntc)
        out.srcs = tuple(self.source(o, info.operand_type(i, out.dtype), scalar=False, ntc=ntc)
                         for i, o in enumerate(ops[1:1 + n_in]))
        unit_op, target_op = ops[1 + n_in], ops[2 + n_in]
        unit = self.texture_unit(unit_op)
        target = self.texture_target(target_op)
        offset = (0, 0, 0)
        if len(ops) == 4 + n_in:
            offset = self.texel_offset(ops[3 + n_in], target, info.name)
        self.check_target(info.name, target, target_op.span)
        prev = self.tex_targets.get(unit)
        if prev is not None and prev[0] != target:
            self.err("E5002", f"texture unit {unit} is used with target {target} and {prev[0]}",
                     target_op.span, f"{prev[0]} used at {prev[1]}")
        self.tex_targets.setdefault(unit, (target, target_op.span))
        out.tex = TexRef(unit, target, offset)

    def texture_unit(self, opnd: Operand) -> int:
        if opnd.kind != "ref" or opnd.ref.name != "texture" or opnd.neg or opnd.abs:
            self.err("E3004", "expected a texture unit ('texture[n]')", opnd.span)
        sels = opnd.ref.selectors
        if not sels:
            return 0
        if len(sels) != 1 or not isinstance(sels[0], Subscript) or not isinstance(sels[0].index, IndexConst):
            self.err("E3004", "a texture unit is 'texture' or 'texture[n]' with a constant n", opnd.span)
        unit = sels[0].index.value
        if not 0 <= unit <= 31:
            self.err("E5004", f"texture unit {unit} out of range [0, 31]", sels[0].span)
        return unit

    def texture_target(self, opnd: Operand) -> str:
        if opnd.kind == "target":
            return opnd.target
        if opnd.kind == "ref" and not opnd.ref.selectors and opnd.ref.name in TEX_TARGETS:
            return opnd.ref.name
        self.err("E5001", "expected a texture target (1D, 2D, 3D, CUBE, RECT, SHADOW1D, SHADOW2D, "
                 "SHADOWRECT, ARRAY1D, ARRAY2D, SHADOWCUBE, SHADOWARRAY1D, SHADOWARRAY2D, BUFFER)",
                 opnd.span)

    def check_target(self, op: str, target: str, span: Span) -> None:
        # GP4 2.X.4.4 / 2.X.8.Z: targets each texture instruction may use
        if target == "BUFFER" and op not in ("TXF", "TXQ"):
            self.err("E5001", f"the BUFFER target is only valid with TXF and TXQ, not {op}", span)
        if op == "TXF" and (target.startswith("SHADOW") or target == "CUBE"):
            self.err("E5001", f"TXF cannot fetch from {target} textures", span)
        if op in ("TXB", "TXL", "TXP") and target in ("SHADOWCUBE", "SHADOWARRAY2D"):
            self.err("E5001", f"{op} cannot be used with {target} (no coordinate left for the "
                     "reference value)", span)

    def texel_offset(self, opnd: Operand, target: str, op: str) -> tuple[int, int, int]:
        if opnd.kind != "offsets":
            self.err("E5003", "expected texel offsets '(du, dv, dw)'", opnd.span)
        vals = []
        for n in opnd.numbers:
            if not re.fullmatch(r"[0-9]+", n.text):
                self.err("E5003", "texel offsets must be integers", n.span)
            v = -int(n.text) if n.negative else int(n.text)
            lo, hi = TEXEL_OFFSET_RANGE
            if not lo <= v <= hi:
                self.err("E5003", f"texel offset {v} out of range [{lo}, {hi}]", n.span)
            vals.append(v)
        if len(vals) > 3:
            self.err("E5003", "at most three texel offsets", opnd.span)
        vals += [0] * (3 - len(vals))
        dims = TARGET_DIMS[target]
        if target in ("CUBE", "SHADOWCUBE") and any(vals):
            self.err("E5003", "texel offsets are not allowed with cube map targets", opnd.span)
        if target == "BUFFER" and any(vals):
            self.err("E5003", "texel offsets are not allowed with the BUFFER target", opnd.span)
        if any(vals[dims:]):
            bad = next(n for n, v in zip(opnd.numbers[dims:], vals[dims:]) if v)
            self.err("E5003", f"{target} has {dims} dimension{'s' if dims > 1 else ''}; offsets "
                     "beyond it must be zero", bad.span)
        return tuple(vals)














    # ---- end of program ----------------------------------------------------------------------------
    def finish(self) -> None:
        sink = self.sink
        for kind, _, span in self.blocks:
            sink.error("E4003", f"{kind} block is never closed (missing END{kind})", span)
        for name, span in self.calls:
            if name not in self.prog.labels:
                sink.error("E4001", f"CAL to undefined label '{name}'", span)
        if self.stage == Stage.GEOMETRY:
            missing = [k for k in ("PRIMITIVE_IN", "PRIMITIVE_OUT", "VERTICES_OUT")
                       if k not in self.geom_attempted]
            if missing:
                sink.error("E6001", f"geometry program without {', '.join(missing)}",
                           Span(sink.file, 1, 1, 9))
            elif all(k in self.geom for k in ("PRIMITIVE_IN", "PRIMITIVE_OUT", "VERTICES_OUT")):
                self.prog.geometry = Geometry(self.geom["PRIMITIVE_IN"][0],
                                              self.geom["PRIMITIVE_OUT"][0],
                                              self.geom["VERTICES_OUT"][0])
                nverts, nspan = self.geom["VERTICES_OUT"]
                comps = result_components(self.prog)
                if nverts * comps > MAX_TOTAL_OUTPUT_COMPONENTS:
                    sink.error("E6001", f"VERTICES_OUT {nverts} times the {comps} result "
                               f"components written is {nverts * comps}, more than "
                               "MAX_PROGRAM_TOTAL_OUTPUT_COMPONENTS_NV "
                               f"({MAX_TOTAL_OUTPUT_COMPONENTS}, GEO4 2.14.6.4)", nspan)
        self.check_endless_loops()
        self.prog.options = tuple(self.options)
        self.insert_subroutine_returns()
        self.prog.entry = self.prog.labels.get("main", 0)
        self.apply_options()

    def apply_options(self) -> None:
        """Options that stand for fixed-function work become explicit IR (options.py)."""
        from . import options
        if "ARB_position_invariant" in self.options:
            reg = options.writes_binding(self.prog, "result.position")
            if reg is not None:
                self.sink.error("E2004", "a position-invariant program cannot write "
                                "result.position (ARB_position_invariant)", reg.span)
            else:
                options.position_invariant(self.prog)
        for mode in ("linear", "exp", "exp2"):
            if f"ARB_fog_{mode}" in self.options:
                options.fog(self.prog, mode)

    def check_endless_loops(self) -> None:
        """A REP without a count needs a BRK at its own level or a RET inside (GP4 2.X.8.Z REP)."""
        ins = self.prog.instructions
        stack: list[list] = []
        for i in ins:
            if i.op == "REP":
                stack.append([i, not i.srcs, False])
            elif i.op == "ENDREP" and stack:
                rep, endless, exits = stack.pop()
                if endless and not exits:
                    self.sink.error("E4006", "REP without a count never ends: it contains no BRK "
                                    "at its level and no RET", rep.span)
                if stack and exits == "ret":
                    stack[-1][2] = "ret"
            elif i.op == "BRK" and stack:
                stack[-1][2] = stack[-1][2] or True
            elif i.op == "RET":
                for entry in stack:
                    entry[2] = "ret"

    def insert_subroutine_returns(self) -> None:
        """Make NV4's 'a label ends the subroutine before it' explicit (see module docstring)."""
        ins = self.prog.instructions
        if not self.prog.labels:
            return
        at_positions = set(self.prog.labels.values())
        new: list[Instruction] = []
        shift = {}
        added = 0
        for pos in range(len(ins) + 1):
            if pos in at_positions and pos > 0:
                prev = ins[pos - 1]
                if not (prev.op == "RET" and prev.cond is None):
                    new.append(Instruction("RET", span=prev.span, text="(implicit RET before label)"))
                    added += 1
            shift[pos] = pos + added
            if pos < len(ins):
                new.append(ins[pos])
        self.prog.instructions = new
        self.prog.labels = {k: shift[v] for k, v in self.prog.labels.items()}


