"""``!!FP1.0`` frontend (NV_fragment_program, FP1 3.11).

FP1 has no declarations besides ``DEFINE`` (named constants) and ``DECLARE`` (named local
parameters); registers are predefined: ``R0``-``R31`` (fp32), ``H0``-``H63`` (fp16), the
write-only condition-code dummies ``RC`` (fp32) and ``HC`` (fp16), attributes ``f[WPOS]``
``f[COL0]`` ``f[COL1]`` ``f[FOGC]`` ``f[TEX0..7]``, outputs ``o[COLR]`` ``o[COLH]`` (fp16)
``o[DEPR]``, numbered local parameters ``p[0..63]``; texture units are ``TEX0``-``TEX15``.

The instruction machinery is the ARB fragment frontend's (``arbfp.py``) with FP1's table
(FP1 Table X.4) and FP1's numerics made explicit in the IR (nv_dialects.md 5.6, 9):

* RSQ has no implicit ``|x|`` (FP1 3.11.5.27: RSQ of a negative number is NaN);
* MIN/MAX return NaN if either operand is NaN -> IR ``MINN``/``MAXN``;
* LIT has no clamp of the exponent and 0^0 = NaN (POW rules) -> IR ``LITNC``;
* the set-on opcodes are IEEE (NaN compares false, SNE true) -> the ordinary IR opcodes;
* TXP does not divide by q for CUBE targets -> IR ``TEX`` (FP1 3.11.5.40);
* precision: an ``X`` suffix converts the result to fx12, ``H`` (or an fp16 destination:
  ``H`` registers, ``HC``, ``o[COLH]``) rounds it to fp16 (IR precision "X" / "FP16"), except
  that instructions reading ``f[FOGC]`` or ``f[TEXn]`` run at fp32 whatever their suffix
  (FP1 3.11.4.2); the destination's format still applies.  The operands themselves are not
  converted to the instruction precision (a documented simplification);
* ``f[FOGC]`` reads as (f, 0, 0, 0) (FP1 Table X.1 prints "(z,0,0,0)": the fog value is in x).

Load-time rules (FP1 3.11.2, 3.11.3, 3.11.5): at most one distinct attribute register and one
distinct program parameter per instruction, except several named/embedded constants holding at
most four distinct scalar values together (no swizzle, negation or |abs| applied before
counting; the sign of an embedded scalar constant is part of it); at least one output written;
not both o[COLR] and o[COLH]; at most 64 register units (fp32 registers count 2, fp16 1); one
target per texture unit; PK* write 32-bit registers only, UP* read 32-bit operands only; RFL does
not write w; DEFINE/DECLARE names are not keywords or register names and are unique.
"""
from __future__ import annotations

import re

from ...diagnostics import DiagnosticSink, Span
from ...ir.model import Binding, DataType, Instruction, Register, RegKind, Source, TexRef
from . import fp_tables as T
from .arbfp import ARBfpBuilder
from .fp_tables import IDENTITY, f32
from .nv4_tables import _Skip
from .syntax import Decl, IndexConst, IndexRel, Instr, Label, Member, Number, Operand, Ref, Subscript

F = DataType.FLOAT
_REG = re.compile(r"^(R|H)([0-9]+)$")


class FP1Builder(ARBfpBuilder):
    SPEC = "FP1"
    HALF_WHAT = ("a 16-bit register (H0-H63, HC, o[COLH])", "FP1 3.11.5.20-23",
                 "FP1 3.11.5.41-44")

    def __init__(self, header: str, sink: DiagnosticSink):
        super().__init__(header, sink)
        self.level = 1                  # condition codes, |abs| (never the FP2 features)
        self.defines: dict[str, tuple[str, tuple[int, int, int, int], Span]] = {}
        self.operand_log: list[tuple[str, object, tuple[float, ...]]] = []
        self.color_writes: dict[str, Span] = {}
        self.units: dict[str, int] = {}

    # ---- dialect hooks ---------------------------------------------------------------------
    def op_table(self) -> dict[str, str]:
        return T.FP1_OPS

    def canonical(self, base: str) -> str:
        return T.FP1_CANONICAL.get(base, base)

    def has_cc(self) -> bool:
        return True

    def has_abs(self) -> bool:
        return True

    def has_ssat(self) -> bool:
        return False

    def scalar_constant_needs_selector(self) -> bool:
        return False

    def rsq_abs(self) -> bool:
        return False

    def table_name(self) -> str:
        return "FP1 Table X.4"

    def suffix_error(self, base: str, what: str, letter: str, span: Span):
        self.err("E3002", f"{base} does not take the {what} (FP1 Table X.4)", span)

    def unknown_opcode(self, text: str, span: Span):
        for cut in range(len(text), 0, -1):
            if text[:cut] in T.FP1_OPS and re.fullmatch(r"(R|H|X|C|_SAT|_SSAT)+", text[cut:]):
                self.err("E3001", f"'{text}': the suffixes of {text[:cut]} must appear in the "
                         "order R/H/X, then C, then _SAT, each at most once", span)
        if self.decompose(text, T.ARBFP_NV2_OPS) is not None:
            self.err("E3001", f"'{text}' is not an FP1.0 opcode (FP1 Table X.4 has 45: no ABS, "
                     "CMP, DPH, SWZ, XPD, SCS, TXB ...; use |x| operands instead of ABS)", span)
        if text.upper() != text and self.decompose(text.upper(), T.FP1_OPS):
            self.err("E3001", f"unknown opcode '{text}' (opcodes are upper case)", span)
        self.err("E3001", f"unknown opcode '{text}'", span)

    # ---- statements --------------------------------------------------------------------------
    def label(self, lab: Label) -> None:
        self.err("E1002", f"labels ('{lab.name}:') do not exist in FP1.0 programs", lab.span)

    def option(self, d: Decl) -> None:
        self.err("E2011", "FP1.0 programs have no options", d.span)

    def declaration(self, d: Decl) -> None:
        if d.kind == "OPTION":
            return self.option(d)
        self.seen_statement = True
        if d.kind not in ("DEFINE", "DECLARE"):
            self.err("E1002", f"{d.kind} declarations do not exist in FP1.0 (use DEFINE or "
                     "DECLARE; registers R0-R31, H0-H63 are predefined)", d.span)
        name, span, _ = d.names[0]
        self.check_new_name(name, span)
        if d.kind == "DEFINE":
            if d.init is None:
                self.err("E1002", "DEFINE needs a value", span)
            kind, words = self.constant_value(d)
            self.defines[name] = (kind, words, span)
            return
        words = (0, 0, 0, 0)                   # FP1 3.11.2: "(0,0,0,0)" when not initialized
        if d.init is not None:
            _, words = self.constant_value(d)
        b = Binding(f"program.named.{name}")
        self.add_var(Register(name, RegKind.PARAM, DataType.NONE, None, (b,), (words,), span=span))

    def constant_value(self, d: Decl) -> tuple[str, tuple[int, int, int, int]]:
        """FP1 <vectorConstant> | <scalarConstant>: numbers, or names of DEFINEd constants
        (a scalar one inside braces, a vector one on its own)."""
        items = d.init
        if d.init_is_list:
            if len(items) > 4:
                self.err("E1007", "a constant vector has at most 4 components",
                         getattr(items[4], "span", d.span))
            vals = [self.scalar_item(item) for item in items]
            one = f32(1.0)
            while len(vals) < 4:
                vals.append(one if len(vals) == 3 else 0)
            return "vector", tuple(vals)
        item = items[0]
        if isinstance(item, Ref):
            got = self.defines.get(item.name)
            if got is None or item.selectors:
                where = ("a DECLAREd local parameter, not a constant" if self.lookup(item.name)
                         else "not a DEFINEd constant")
                self.err("E2003", f"'{item.name}' is {where} (FP1 3.11.3 <scalarConstant>, "
                         "<namedVectorConstant>)", item.span)
            return got[0], got[1]
        w = self.const_words([item] * 4, F)
        return "scalar", w

    def scalar_item(self, item) -> int:
        if isinstance(item, Number):
            return self.const_words([item], F)[0]
        if isinstance(item, Ref):
            got = self.defines.get(item.name)
            if got is not None and got[0] == "scalar" and not item.selectors:
                return got[1][0]
            self.err("E2003", f"'{item.name}' is not a DEFINEd scalar constant", item.span)
        self.err("E1002", "a constant vector lists numbers or named scalar constants",
                 getattr(item, "span", None))

    def check_new_name(self, name: str, span: Span) -> None:
        # FP1 3.11.2: not a keyword (opcodes with their suffixes), register or texture unit name
        if name in T.FP1_RESERVED or self.decompose(name, T.FP1_OPS) is not None:
            self.err("E2002", f"'{name}' is a reserved word or register name and cannot be "
                     "DEFINEd or DECLAREd (FP1 3.11.2)", span)
        prev = self.defines.get(name)
        prev_span = prev[2] if prev else (self.names[name].span if name in self.names else None)
        if prev is not None or name in self.names:
            notes = (f"previous definition at {prev_span}",) if prev_span else ()
            self.err("E2001", f"'{name}' is already defined (FP1 3.11.2)", span, *notes)

    # ---- instructions ------------------------------------------------------------------------
    def instruction(self, ins: Instr) -> None:
        self.operand_log = []
        super().instruction(ins)
        self.check_operand_rules(ins)

    def check_operand_rules(self, ins: Instr) -> None:
        """FP1 3.11.3: one distinct attribute register and one distinct program parameter per
        instruction (constant merging exception, FP1 3.11.2)."""
        attrs, params, consts, const_spans = {}, {}, set(), []
        for kind, key, values, span in self.operand_log:
            if kind == "attr":
                attrs.setdefault(key, span)
            elif kind == "param":
                params.setdefault(key, span)
            else:
                consts.update(values)
                const_spans.append(span)
        if len(attrs) > 1:
            spans = list(attrs.values())
            self.sink.error("E2014", f"the instruction reads {len(attrs)} different attribute "
                            f"registers ({', '.join(attrs)}); FP1 allows one (FP1 3.11.3)",
                            spans[1])
        if params and (const_spans or len(params) > 1):
            spans = list(params.values()) + const_spans
            self.sink.error("E2014", "the instruction reads more than one program parameter "
                            f"({', '.join(list(params) + ['constant'] * len(const_spans))}); FP1 "
                            "allows one, or only constants with at most four distinct values "
                            "(FP1 3.11.2)", spans[1])
        elif len(consts) > 4:
            self.sink.error("E2014", f"the constants of this instruction hold {len(consts)} "
                            "distinct values; at most 4 can be merged into one parameter (FP1 "
                            "3.11.2; swizzles, negation and |abs| are not applied first)",
                            const_spans[-1])

    def log(self, kind: str, key, values=(), span=None) -> None:
        self.operand_log.append((kind, key, tuple(values), span))

    def kill(self, ins: Instr, info, out, ntc) -> None:
        self.expect_operands(ins, 1, "one condition-code test")
        cc = self.as_cctest(ins.operands[0], only_cc=True)
        if cc is None:
            self.err("E3004", "FP1 KIL takes a condition-code test such as 'KIL LT.x;' (FP1 "
                     "3.11.5.11)", ins.operands[0].span)
        out.cond = cc

    def tex_ref(self, out: Instruction, unit: int, target: str) -> TexRef:
        if out.op == "TXP" and target == "CUBE":
            out.op = "TEX"          # FP1 3.11.5.40: no division by q for cube maps
        return TexRef(unit, target)

    def texture_unit(self, opnd: Operand) -> int:
        m = (re.fullmatch(r"TEX([0-9]+)", opnd.ref.name)
             if opnd.kind == "ref" and not opnd.ref.selectors and not opnd.neg and not opnd.abs
             else None)
        if m is None or int(m.group(1)) > 15:
            self.err("E3004", "expected a texture unit TEX0 ... TEX15", opnd.span)
        return int(m.group(1))

    def texture_target(self, opnd: Operand) -> str:
        name = opnd.target if opnd.kind == "target" else (
            opnd.ref.name if opnd.kind == "ref" and not opnd.ref.selectors else None)
        if name in T.TARGETS:
            return name
        self.err("E5001", "expected a texture target (1D, 2D, 3D, CUBE, RECT)", opnd.span)

    def full_precision_operands(self, out: Instruction) -> bool:
        # FP1 3.11.4.2: instructions using f[FOGC] or f[TEX0..7] run at full fp32 precision
        for s in out.srcs:
            reg = self.prog.registers.get(s.reg)
            if reg is None:
                continue
            if reg.kind == RegKind.INPUT and reg.bindings[0].path in ("fragment.fogcoord",
                                                                      "fragment.texcoord"):
                return True
            if s.reg in self.fixed_inputs.values():
                return True
        return False

    def destination_is_half(self, ref: Ref, reg: Register) -> bool:
        # FP1 3.11.1: H0-H63, HC and o[COLH] hold fp16 values
        return reg.precision == "SHORT"

    def swizzle(self, text: str, span: Span, vector: bool):
        if set(text) - set("xyzw"):
            self.err("E1006", f"invalid swizzle '.{text}' (FP1 uses x, y, z, w)", span)
        return super().swizzle(text, span, vector)

    def mask(self, text: str, span: Span):
        if set(text) - set("xyzw"):
            self.err("E1006", f"invalid write mask '.{text}' (FP1 uses x, y, z, w)", span)
        return super().mask(text, span)

    # ---- operands ----------------------------------------------------------------------------
    def source(self, opnd: Operand, optype: DataType, scalar: bool, ntc: bool) -> Source:
        if opnd.kind == "num":
            num = opnd.numbers[0]
            # the value as the operand will hold it (float32; hex spells raw bits, e.g. 0x0)
            v = self.float_of(self.const_words([num], F)[0])
            if opnd.inner_neg if opnd.abs else opnd.neg:
                v = -v
            self.log("const", None, [v], opnd.span)
        elif opnd.kind == "vec":
            self.log("const", None, [self.float_of(self.const_words([n], F)[0])
                                     for n in self.expand(opnd.numbers)], opnd.span)
        elif opnd.kind == "ref" and opnd.ref.name in self.defines:
            return self.named_constant(opnd, scalar)
        return super().source(opnd, optype, scalar, ntc)

    @staticmethod
    def expand(nums: list[Number]) -> list[Number]:
        """{2} is {2, 0, 0, 1}: the implied components take part in the value count."""
        out = list(nums)
        while len(out) < 4:
            out.append(Number("1" if len(out) == 3 else "0", False, nums[0].span))
        return out

    @staticmethod
    def float_of(bits: int) -> float:
        import struct
        return struct.unpack("<f", struct.pack("<I", bits))[0]

    def named_constant(self, opnd: Operand, scalar: bool) -> Source:
        ref = opnd.ref
        kind, words, _ = self.defines[ref.name]
        self.log("const", None, [self.float_of(w) for w in (words[:1] if kind == "scalar" else words)],
                 opnd.span)
        reg = self.const_register(words, F)
        swz = IDENTITY
        if kind == "scalar":
            if ref.selectors:
                self.err("E3004", f"'{ref.name}' is a scalar constant and takes no component "
                         "selector (FP1 3.11.3 <namedScalarConstant>)", ref.selectors[0].span)
        else:
            if len(ref.selectors) > 1 or (ref.selectors and not isinstance(ref.selectors[0], Member)):
                self.err("E3004", "unexpected selector", ref.selectors[-1].span)
            if ref.selectors:
                swz = self.swizzle(ref.selectors[0].name, ref.selectors[0].span, vector=not scalar)
            elif scalar:
                self.err("E3004", f"vector constant '{ref.name}' used as a scalar operand needs a "
                         "component selector", opnd.span)
        return Source(reg, swizzle=swz, neg=opnd.neg, abs=opnd.abs)

    def reference(self, ref: Ref, write: bool):
        name = ref.name
        sels = list(ref.selectors)
        m = _REG.match(name)
        if m:
            kind, n = m.group(1), int(m.group(2))
            if n > (31 if kind == "R" else 63):
                self.err("E2003", f"'{name}' is not a register (R0-R31, H0-H63)", ref.span)
            return self.register(name, kind == "H"), None, None, sels
        if name in ("RC", "HC"):
            if not write:
                self.err("E3004", f"{name} is write-only: it only updates the condition code "
                         "(FP1 3.11.1.2)", ref.span)
            return self.register(name, name == "HC", count=False), None, None, sels
        if name in ("f", "o", "p"):
            if not sels or not isinstance(sels[0], Subscript):
                self.err("E1002", f"'{name}' needs a register name or number: {name}[...]", ref.span)
            sub = sels.pop(0)
            idx = sub.index
            if name == "p":
                if not isinstance(idx, IndexConst):
                    self.err("E2010", "p[] takes a constant index (no relative addressing in FP1)",
                             sub.span)
                if not 0 <= idx.value < T.FP1_MAX_LOCALS:
                    self.err("E2006", f"p[{idx.value}] out of range [0, {T.FP1_MAX_LOCALS - 1}]",
                             sub.span)
                if write:
                    self.err("E3005", "program parameters are read-only", ref.span)
                reg = self.fixed(f"p[{idx.value}]", RegKind.PARAM, Binding("program.local", idx.value))
                self.log("param", reg.name, span=ref.span)
                return reg, None, None, sels
            key = idx.reg if isinstance(idx, IndexRel) and idx.comp is None and not idx.offset else None
            if name == "f":
                if key not in T.FP1_ATTRIBS:
                    self.err("E2004", "expected an attribute register f[WPOS], f[COL0], f[COL1], "
                             "f[FOGC] or f[TEX0] ... f[TEX7]", sub.span)
                if write:
                    self.err("E3005", "attribute registers are read-only", ref.span)
                path, index = T.FP1_ATTRIBS[key]
                reg = self.fixed(f"f[{key}]", RegKind.INPUT, Binding(path, index))
                self.log("attr", reg.name, span=ref.span)
                return reg, None, None, sels
            if key not in T.FP1_OUTPUTS:
                self.err("E2004", "expected an output register o[COLR], o[COLH] or o[DEPR]", sub.span)
            if not write:
                self.err("E3004", "output registers are write-only (FP1 3.11.1.3)", ref.span)
            path, index, half = T.FP1_OUTPUTS[key]
            reg = self.fixed(f"o[{key}]", RegKind.OUTPUT, Binding(path, index))
            reg.precision = "SHORT" if half else None
            if key in ("COLR", "COLH"):
                self.color_writes.setdefault(key, ref.span)
            return reg, None, None, sels
        reg = self.lookup(name)
        if reg is not None:                     # a DECLAREd named local parameter
            if write:
                self.err("E3005", f"'{name}' is a program parameter and cannot be written",
                         ref.span)
            self.log("param", name, span=ref.span)
            return reg, None, None, sels
        if name in self.poisoned:
            raise _Skip
        if name == "texture":
            self.err("E3004", "FP1 texture units are TEX0 ... TEX15", ref.span)
        self.err("E2003", f"'{name}' is not a register and was not DEFINEd or DECLAREd",
                 Span(ref.span.file, ref.span.line, ref.span.col, len(name)))

    def register(self, name: str, half: bool, count: bool = True) -> Register:
        reg = self.prog.registers.get(name)
        if reg is None:
            reg = Register(name, RegKind.TEMP, DataType.NONE, precision="SHORT" if half else None,
                           implicit=True)
            self.prog.registers[name] = reg
            if count:
                self.units[name] = 1 if half else 2
        return reg

    def fixed(self, name: str, kind: RegKind, b: Binding) -> Register:
        reg = self.prog.registers.get(name)
        if reg is None:
            reg = Register(name, kind, DataType.NONE, None, (b,), implicit=True)
            self.prog.registers[name] = reg
        return reg

    def const_components(self, b: Binding):
        # FP1 Table X.1: f[FOGC] is (fog, 0, 0, 0)
        return (0.0, 0.0, 0.0) if b.path == "fragment.fogcoord" else None

    def cc_dummy_allowed(self) -> bool:
        return False            # FP1's dummies are RC and HC

    def note_result_size(self, reg: Register, name: str, span: Span) -> None:
        pass

    # ---- end of program ----------------------------------------------------------------------
    def finish(self) -> None:
        sink = self.sink
        span = Span(sink.file, 1, 1, 7)
        outputs = [i for i in self.prog.instructions if i.dst is not None
                   and self.prog.registers[i.dst.reg].kind == RegKind.OUTPUT]
        if not outputs and not sink.has_errors:
            sink.error("E2015", "the program writes no output register; an FP1.0 program must "
                       "write o[COLR], o[COLH] or o[DEPR] (FP1 3.11.1.3)", span)
        if len(self.color_writes) == 2:
            sink.error("E3005", "the program writes both o[COLR] and o[COLH] (FP1 3.11.1.3)",
                       max(self.color_writes.values(), key=lambda s: (s.line, s.col)),
                       f"the other color register is written at "
                       f"{min(self.color_writes.values(), key=lambda s: (s.line, s.col))}")
        units = sum(self.units.values()) + sum(
            1 if r.precision == "SHORT" else 2 for n, r in self.prog.registers.items()
            if r.kind == RegKind.OUTPUT)
        if units > T.FP1_REGISTER_UNITS:
            sink.error("E1008", f"the program uses {units} register units (fp32 registers and "
                       f"outputs count 2, fp16 ones 1); the limit is {T.FP1_REGISTER_UNITS} "
                       "(FP1 3.11.3)", span)
        if self.n_instructions > T.MAX_INSTRUCTIONS:
            sink.error("E1008", f"{self.n_instructions} instructions; the limit is "
                       f"{T.MAX_INSTRUCTIONS} (MAX_PROGRAM_INSTRUCTIONS_ARB)", span)
        self.prog.entry = 0
        self.input_prologue()
