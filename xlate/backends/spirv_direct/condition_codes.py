"""Condition codes on the direct SPIR-V path: a register's tests (per component or of one,
on a kept value as ``templates/glsl/cctests_value.txt`` or on flag words as GP4 Table X.16,
``templates/glsl/cctests.txt``), the flag words an update computes (sign, zero, overflow,
carry: helpers ``ccf``/``cci``/``ccadd``/``ccsub``), and the boolean a branch tests (a CC
test, a REP counter, a value test read from the written register)."""
from __future__ import annotations

from dataclasses import replace

from ...ir.model import CondTest, DataType, Instruction
from ...passes.condcodes import ValueTest
from ...passes.structurize import CountTest
from .alu import sad
from .base import K, NotCovered


class ConditionCodeMixin:
    """Part of :class:`~xlate.backends.spirv_direct.emitter.DirectEmitter`."""

    def cc_test(self, cond: CondTest, n: int = 4) -> int:
        """Per component (n = 4, swizzled) or of one component (n = 1): the test's bool."""
        if cond.rule in ("TR", "FL"):
            return self.c("b", cond.rule == "TR", n)
        if cond.cc not in self.cc:
            raise NotCovered(f"condition code {cond.cc} test before any update")
        if cond.cc not in self.lowered.cc_values:
            return self.flag_test(cond, n)
        if cond.rule in ("CF", "OF", "AB", "NCF", "NOF", "BLE"):
            # a register holding a value: OF = CF = 0 (cctests_value.txt)
            return self.c("b", cond.rule in ("NCF", "NOF", "BLE"), n)
        kind = "f" if self.lowered.cc_values[cond.cc] == DataType.FLOAT else "i"
        v = self.load_var(self.cc[cond.cc], self.t(kind))
        if n == 1:
            v = self.x(v, cond.swizzle[0], kind)
        elif cond.swizzle != (0, 1, 2, 3):
            v = self.shuffle(v, v, cond.swizzle, kind)
        return self.value_compare(v, kind, cond.rule, n)

    def value_compare(self, v: int, kind: str, rule: str, n: int) -> int:
        """The cctests_value.txt test ``rule`` of a value (``f`` float, ``i`` integer words)."""
        if rule in ("CF", "OF", "AB", "NCF", "NOF", "BLE"):
            return self.c("b", rule in ("NCF", "NOF", "BLE"), n)       # OF = CF = 0
        if kind == "i":
            # an integer value: SF = bit 31, ZF = r == 0, never both (cctests_value.txt ".i")
            if rule in ("NAN", "LEG"):
                return self.c("b", rule == "LEG", n)
            return self.cmp(_CC_ICMP[rule], v, self.c("i", 0, n), n)
        zero = self.c("f", 0.0, n)
        if rule in _CC_CMP:
            return self.cmp(_CC_CMP[rule], v, zero, n)
        if rule == "NAN":
            return self.isnan(v, n)
        if rule == "LEG":
            return self.val("LogicalNot", self.t("b", n), self.isnan(v, n))
        raise NotCovered(f"condition-code rule {rule}")

    def flag_test(self, cond: CondTest, n: int) -> int:
        """A test of GP4 Table X.16 on flag words (templates/glsl/cctests.txt, with booleans:
        ``1u - x`` is NOT, ``^`` is OpLogicalNotEqual)."""
        u = self.load_var(self.cc[cond.cc], self.t("u"))
        u = self.x(u, cond.swizzle[0], "u") if n == 1 else (
            u if cond.swizzle == (0, 1, 2, 3) else self.shuffle(u, u, cond.swizzle, "u"))
        bt = self.t("b", n)

        def flag(bit):
            return self.val("INotEqual", bt, self.val("BitwiseAnd", self.t("u", n), u,
                                                      self.c("u", bit, n)), self.c("u", 0, n))

        def no(b):
            return self.val("LogicalNot", bt, b)

        def a(x, y):
            return self.val("LogicalAnd", bt, x, y)

        def o_(x, y):
            return self.val("LogicalOr", bt, x, y)

        def xor(x, y):
            return self.val("LogicalNotEqual", bt, x, y)
        rule = cond.rule
        s = flag(1) if rule in ("EQ", "NE", "GE", "GT", "LE", "LT", "NAN", "LEG", "SF",
                                "NSF") else None
        z = flag(2) if rule in ("EQ", "NE", "GT", "LE", "LT", "NAN", "LEG", "AB", "BLE") else None
        o = flag(4) if rule in ("GE", "GT", "LE", "LT", "OF", "NOF") else None
        c = flag(8) if rule in ("CF", "NCF", "AB", "BLE") else None
        table = {"EQ": lambda: a(no(s), z), "NE": lambda: o_(s, no(z)),
                 "GE": lambda: no(xor(s, o)), "GT": lambda: a(xor(no(s), o), no(z)),
                 "LE": lambda: xor(s, o_(z, o)), "LT": lambda: xor(a(s, no(z)), o),
                 "NAN": lambda: a(s, z), "LEG": lambda: o_(no(s), no(z)), "CF": lambda: c,
                 "NCF": lambda: no(c), "OF": lambda: o, "NOF": lambda: no(o),
                 "AB": lambda: a(c, no(z)), "BLE": lambda: o_(no(c), z), "SF": lambda: s,
                 "NSF": lambda: no(s)}
        if rule not in table:
            raise NotCovered(f"condition-code rule {rule}")
        return table[rule]()

    def flag_words(self, ins: Instruction, value: int, rkind: str) -> int:
        """The flags of an update (GP4 2.X.4.3; helpers ccf/cci): a uvec4."""
        from ...ir.model import CCKind
        u4 = self.t("u")
        kind = ins.cc_kind
        if kind == CCKind.FLOAT:
            nan = self.isnan(value)
            sf = self.bor(self.cmp("FOrdLessThan", value, self.c("f", 0.0)), nan)
            zf = self.bor(self.cmp("FOrdEqual", value, self.c("f", 0.0)), nan)
        elif kind in (CCKind.INT, CCKind.UNDEF_OFCF):
            bits = self.bitcast(value, rkind, "u")
            sf = self.cmp("INotEqual", self.val("ShiftRightLogical", u4, bits, self.c("u", 31)),
                          self.c("u", 0))
            zf = self.cmp("IEqual", bits, self.c("u", 0))
        else:
            return self.carry_flags(ins)
        zero = self.c("u", 0)
        return self.val("BitwiseOr", u4, self.sel(sf, self.c("u", 1), zero, "u"),
                        self.sel(zf, self.c("u", 2), zero, "u"))

    def cci(self, r: int) -> int:
        u4 = self.t("u")
        zf = self.sel(self.cmp("IEqual", r, self.c("u", 0)), self.c("u", 2), self.c("u", 0), "u")
        return self.val("BitwiseOr", u4, self.val("ShiftRightLogical", u4, r, self.c("u", 31)), zf)

    def ccadd(self, a: int, b: int) -> int:
        """Integer addition flags: OF signed overflow, CF carry out (helpers ccadd)."""
        u4 = self.t("u")
        st = self.m._type(("struct2", u4), "TypeStruct", u4, u4)
        rc = self.val("IAddCarry", st, a, b)
        r, carry = self.val("CompositeExtract", u4, rc, 0), self.val("CompositeExtract", u4, rc, 1)
        x = self.val("BitwiseAnd", u4, self.val("BitwiseXor", u4, a, r),
                     self.val("BitwiseXor", u4, b, r))
        of = self.val("ShiftLeftLogical", u4, self.val("ShiftRightLogical", u4, x, self.c("u", 31)),
                      self.c("u", 2))
        cf = self.val("ShiftLeftLogical", u4, carry, self.c("u", 3))
        return self.val("BitwiseOr", u4, self.val("BitwiseOr", u4, self.cci(r), of), cf)

    def ccsub(self, a: int, b: int) -> int:
        """Integer subtraction flags: OF signed overflow, CF = no borrow (helpers ccsub)."""
        u4 = self.t("u")
        st = self.m._type(("struct2", u4), "TypeStruct", u4, u4)
        rb = self.val("ISubBorrow", st, a, b)
        r, borrow = self.val("CompositeExtract", u4, rb, 0), self.val("CompositeExtract", u4, rb, 1)
        x = self.val("BitwiseAnd", u4, self.val("BitwiseXor", u4, a, b),
                     self.val("BitwiseXor", u4, a, r))
        of = self.val("ShiftLeftLogical", u4, self.val("ShiftRightLogical", u4, x, self.c("u", 31)),
                      self.c("u", 2))
        cf = self.val("ShiftLeftLogical", u4, self.val("ISub", u4, self.c("u", 1), borrow),
                      self.c("u", 3))
        return self.val("BitwiseOr", u4, self.val("BitwiseOr", u4, self.cci(r), of), cf)

    def carry_flags(self, ins: Instruction) -> int:
        """CCKind ADD/SUB (GlslEmitter.cc_flags): the operands read again, as unsigned words."""
        from ...ir.model import CCKind
        k = K[ins.dtype]
        if k == "f":
            raise NotCovered(f"carry flags of a float {ins.op}", ins)
        srcs = self._srcs
        u = (lambda v: self.bitcast(v, k, "u"))
        kind = ins.cc_kind
        if ins.op == "MAD":
            return self.ccadd(u(self.val("IMul", self.t(k), srcs[0], srcs[1])), u(srcs[2]))
        if ins.op == "SAD":
            return self.ccadd(u(sad(k)(self, srcs[0], srcs[1], self.c("u", 0))), srcs[2])
        a, b = srcs[0], srcs[1]
        if kind == CCKind.ADD and ins.op == "ADD":
            return self.ccadd(u(a), u(b))
        if kind == CCKind.SUB and ins.op == "SUB":
            return self.ccsub(u(a), u(b))
        plain = [self.operand(replace(s, neg=False), ins.dtype, False) for s in ins.srcs[:2]]
        if ins.op == "ADD":
            minuend, sub = (a, plain[1]) if ins.srcs[1].neg else (b, plain[0])
            return self.ccsub(u(minuend), u(sub))
        return self.ccadd(u(a), u(plain[1]))

    def branch_cond(self, cond) -> int | None:
        """A bool id: any of the swizzled tests passes; None = unconditional."""
        if cond is None or (isinstance(cond, CondTest) and cond.rule == "TR"):
            return None
        if isinstance(cond, CountTest):           # REP counter of the general structurizer
            kind = self.storage_kind(cond.reg)
            x = self.x(self.load_element(cond.reg, None), 0, kind)
            if kind == "f":
                raise NotCovered("a float loop counter")
            return self.cmp("UGreaterThan" if kind == "u" else "SGreaterThan", x,
                            self.c(kind, 0, 1), 1)
        if isinstance(cond, ValueTest):           # a CC test read from the written register
            kind = self.storage_kind(cond.reg)
            want = "f" if cond.dtype == DataType.FLOAT else "i"
            x = self.bitcast(self.x(self.load_element(cond.reg, None), cond.comp, kind),
                             kind, want, 1)
            return self.value_compare(x, want, cond.rule, 1)
        if not isinstance(cond, CondTest):
            raise NotCovered(f"the condition {type(cond).__name__}")
        if len(set(cond.swizzle)) == 1:
            return self.cc_test(cond, 1)
        return self.val("Any", self.t("b", 1), self.cc_test(cond))


_CC_ICMP = {"EQ": "IEqual", "NE": "INotEqual", "LT": "SLessThan", "LE": "SLessThanEqual",
            "GT": "SGreaterThan", "GE": "SGreaterThanEqual", "SF": "SLessThan",
            "NSF": "SGreaterThanEqual"}
_CC_CMP = {"EQ": "FOrdEqual", "NE": "FUnordNotEqual", "LT": "FOrdLessThan",
           "LE": "FOrdLessThanEqual", "GT": "FOrdGreaterThan", "GE": "FOrdGreaterThanEqual",
           "SF": "FUnordLessThan", "NSF": "FOrdGreaterThanEqual"}
