"""One instruction -> GLSL statements: the expression from ``ops.txt``, the write (mask, saturate,
precision, condition-code mask) and the condition-code update; CC tests of branches; KIL."""
from __future__ import annotations

import re
from dataclasses import replace

from ...ir.carry import instruction_carry
from ...ir.model import (CCKind, CondTest, DataType, Instruction, Sat, Stage)
from ...ir.ops import COMPONENTWISE, OPCODES
from ...passes.condcodes import ValueTest
from ...passes.structurize import CountTest
from ...passes.types import RAW_OPERAND_OPS, operand_type, result_type

from ..refusal import Unsupported
from .tables import cc_value_tests
from .expressions import fill, written_as_scalar
from .fragment_ops import CLOCK_EXTENSION, INTERP_OPS, LANE_EXTENSIONS, interpolant
from .text import (COMP, SCALAR, TYPE_CHAR, VEC, _ARITH, _NOT_SIZE_GENERIC, _SWIZZLED, _arguments,
                   bitcast, components, mask_text, right_side, splat_literals, wrapped)


class Instructions:
    """Part of :class:`~xlate.backends.glsl.emitter.GlslEmitter` (mixed in)."""

    # ---- condition codes -----------------------------------------------------------------------------
    def cc_test(self, cond: CondTest) -> str:
        """A bvec4: the test of each swizzled component (evaluated now)."""
        if cond.rule == "TR":
            return "bvec4(true)"
        if cond.rule == "FL":
            return "bvec4(false)"
        return self.sized_cc_test(cond, (0, 1, 2, 3))

    def sized_cc_test(self, cond: CondTest, comps: tuple[int, ...]) -> str:
        """The tests of the components ``comps`` of a condition mask, sized to them: a bool
        for one (``xl_cc1.z == 0.0``, ``xl_ccEQ(xl_cc1.z)``), a bvecN for N
        (``greaterThan(xl_cc0.zw, vec2(0.0))``) -- what a write of those components selects
        by, without testing the others and swizzling the result (``xl_ccEQ(xl_cc1.zzzz).w``)."""
        n = len(comps)
        if cond.rule in ("TR", "FL"):
            word = "true" if cond.rule == "TR" else "false"
            return word if n == 1 else f"bvec{n}({word})"
        swz = "".join(COMP[cond.swizzle[c]] for c in comps)
        reg = f"xl_cc{cond.cc}{'' if swz == 'xyzw' else '.' + swz}"
        if cond.cc in self.cc_values:
            scalar, vector = cc_value_tests()[self.value_rule(cond)]
            if n == 1:
                return scalar.format(v=reg)
            # (the vector column's constructors are vec4/ivec4/uvec4/bvec4: resized)
            return vector.format(v=reg).replace("vec4(", f"vec{n}(")
        self.need(_flag_test_helper(cond.rule, n))
        return f"xl_cc{cond.rule}({reg})"

    def branch_cond(self, cond: CondTest | None) -> str | None:
        """A bool: any of the four swizzled tests passes (None = unconditional)."""
        if isinstance(cond, CountTest):          # REP counter of the general structurizer
            return f"{self.element(cond.reg, None, None)}.x > {'0u' if cond.unsigned else '0'}"
        if isinstance(cond, ValueTest):          # a CC test read from the written register
            return self.value_test(cond)
        if cond is None or cond.rule == "TR":
            return None
        if cond.rule == "FL":
            return "false"
        if len(set(cond.swizzle)) == 1:
            # one component tested: the comparison itself, 'if (xl_cc0.x > 0.0)', or the
            # flag test of one word, 'if (xl_ccOF(xl_cc0.y))'
            return self.sized_cc_test(cond, (0,))
        return f"any({self.cc_test(cond)})"

    def value_test(self, cond: ValueTest) -> str:
        """``if (RC.x != 0u)``: the cctests_value.txt comparison of the register component, read
        as the value's type (an unsigned register tested for zero stays unsigned)."""
        st = self.storage_type(cond.reg)
        elem = f"{self.element(cond.reg, None, None)}.{COMP[cond.comp]}"
        if cond.dtype == DataType.INT and st == DataType.UINT and cond.rule in ("EQ", "NE"):
            return f"{elem} {'==' if cond.rule == 'EQ' else '!='} 0u"
        v = bitcast(elem, st, cond.dtype, scalar=True)
        rule = cond.rule if cond.dtype == DataType.FLOAT else cond.rule + ".i"
        return cc_value_tests()[rule][0].format(v=v)

    def value_rule(self, cond: CondTest) -> str:
        """The cctests_value.txt row of a test of a value-holding register: ``GT`` for a float
        value, ``GT.i`` for an integer one."""
        return cond.rule if self.cc_values[cond.cc] == DataType.FLOAT else cond.rule + ".i"

    def cc_flags(self, ins: Instruction, t: str, rtype: DataType, srcs: list[str]) -> str:
        if ins.cc_update in self.cc_values:
            # the register keeps the value itself (cctests_value.txt): a float, or an integer
            # result's words as an ivec4
            return t if self.cc_values[ins.cc_update] == DataType.FLOAT else \
                bitcast(t, rtype, DataType.INT)
        kind = ins.cc_kind
        if kind == CCKind.FLOAT:
            self.need("ccf")
            return f"xl_ccf({t})"
        self.need("cci")
        as_u = (lambda e: bitcast(e, rtype, DataType.UINT)) if rtype != DataType.UINT else (lambda e: e)
        if kind in (CCKind.INT, CCKind.UNDEF_OFCF):
            return f"xl_cci({as_u(t)})"
        # the carry/overflow rule of ir/carry.py: the flags of an add or a subtract of two
        # terms, each over the sources read without their '-' (GP4 2.X.4.3, issue 23)
        form = instruction_carry(ins)

        def plain(i: int) -> str:
            optype = operand_type(ins, i)
            text = srcs[i] if not ins.srcs[i].neg else \
                self.operand(replace(ins.srcs[i], neg=False), optype, False)
            return f"uvec4({text})" if optype == DataType.INT else text

        def term(t) -> str:
            if t.what == "src":
                return plain(t.srcs[0])
            if t.what == "mul":
                return f"{plain(t.srcs[0])} * {plain(t.srcs[1])}"
            self.need("sad")                 # |a - b| of the operands as loaded
            a, b = srcs[t.srcs[0]], srcs[t.srcs[1]]
            sad = f"xl_sad({a}, {b}, uvec4(0u))"
            return f"uvec4({sad})" if ins.dtype == DataType.INT else sad
        helper = "ccadd" if form.kind == CCKind.ADD else "ccsub"
        self.need(helper)
        return f"xl_{helper}({term(form.first)}, {term(form.second)})"

    # ---- instructions ------------------------------------------------------------------------------
    def emit_ins(self, ins: Instruction) -> list[str]:
        info = OPCODES[ins.op]
        if info.category == "tex":
            return self.emit_tex(ins)
        if info.category == "mem":
            return self.emit_mem(ins)
        if ins.op == "KIL":
            return self.emit_kil(ins)
        if ins.op == "DEMOTE":
            self.need("demoted")
            return ["xl_demoted = true;"]
        if ins.op == "EMIT":
            return ["xl_emit();"]
        if ins.op == "ENDPRIM":
            return ["EndPrimitive();"]
        comps = self.narrowed_components(ins)
        scalar_in = _SCALAR_INPUTS.get(ins.op)
        if scalar_in is None:
            scalar_in = _SCALAR_INPUTS[ins.op] = tuple(kind == "s" for kind in info.inputs)
        n_in = len(scalar_in)
        srcs = [self.operand(s, operand_type(ins, i), i < n_in and scalar_in[i],
                             None if i < n_in and scalar_in[i] else comps, read=(ins, i))
                for i, s in enumerate(ins.srcs)]
        suffix = ""
        if ins.op in INTERP_OPS:
            srcs[0], suffix = interpolant(self, ins)
        elif ins.op == "CLOCK" and self.snippet("CLOCK", "U") is not None:
            self.require(CLOCK_EXTENSION)
        elif ins.op in LANE_EXTENSIONS and self.snippet(ins.op, "U") is not None:
            for ext in LANE_EXTENSIONS[ins.op]:
                self.require(ext)
        if comps is not None:
            template, helpers = self.snippet(ins.op, TYPE_CHAR[ins.dtype])
            for h in helpers:
                self.need(h)
            call = self.sized_call(ins, len(comps))
            if call:
                self.need_sized(*call, len(comps))
            srcs = splat_literals(srcs, template, [len(comps) > 1 and kind != "s" for kind in info.inputs],
                                  self.splats)
            expr = self.result_steps(ins, fill(template, dict(zip("abcd", srcs))), result_type(ins),
                                     len(comps))
            m = "" if len(comps) == 4 else "." + mask_text(ins.dst.mask)
            rhs = right_side(expr)
            st = self.storage_type(ins.dst.reg)
            rtype = result_type(ins)
            if rtype != st:
                rhs = bitcast(rhs, rtype, st, scalar=len(comps) == 1, size=len(comps))
            self.keep_value(ins, rhs)
            target = self.element(ins.dst.reg, ins.dst.index, None)
            statement = f"{target}{m} = {rhs};"
            cond = ins.dst.cond
            lines = [statement]
            if ins.cc_update is not None and ins.cc_update in self.cc_used:
                lines.append(self.value_cc_copy(ins.cc_update, target, st, m))
            # (narrowing allows only a condition whose written components test one component)
            return lines if cond is None else self.guarded(self.uniform_test(ins.dst), lines)
        if ins.op in RAW_OPERAND_OPS:
            # UP*: the bits of the operand *after* its modifiers, which act in the operand type
            # of the instruction (UP4B.F: -x flips the float sign bit, |x| clears it; .S: two's
            # complement), as the executor loads it -- not an integer negation of the bits
            for i, s in enumerate(ins.srcs):
                t = info.operand_type(i, ins.dtype)
                if t != DataType.UINT and (s.neg or s.abs or any(s.comp_neg)):
                    scalar = i < len(info.inputs) and info.inputs[i] == "s"
                    srcs[i] = bitcast(self.operand(s, t, scalar), t, DataType.UINT, scalar)
        rtype = result_type(ins)
        key = ins.op if ins.mul_mode != "HI" else "MUL.HI"
        tchar = TYPE_CHAR[ins.dtype]
        entry = self.snippet(key, tchar)
        if entry is None:
            raise Unsupported(f"the instruction {ins.op}.{ins.dtype.value}", ins)
        template, helpers = entry
        for h in helpers:
            self.need(h)
        if ins.op in ("DDX", "DDY") and self.stage != Stage.FRAGMENT:
            expr = "vec4(0.0)"
        else:
            if ins.op in ("DDX", "DDY") and not self.info.fine_derivatives:
                # dFdx/dFdy: fine or coarse as the implementation chooses; both are what the NV
                # specs allow ("approximate partial derivatives", FP4 2.X.8.Z), the executor
                # and the 4.50 profiles compute fine ones
                self.note(f"DDX/DDY use dFdx/dFdy: fine or coarse derivatives as the implementation "
                          f"chooses ({self.info.language} has no dFdxFine).")
            shown = splat_literals(srcs, template, [kind != "s" for kind in info.inputs], self.splats)
            expr = fill(template, dict(zip("abcd", shown)))
            expr += suffix
        if written_as_scalar(ins, rtype) and ins.dst.cond is None and (
                ins.cc_update is None or ins.cc_update not in self.cc_used):
            return self.write_scalar(ins, expr, rtype)
        if info.scalar_result:
            expr = f"{VEC[rtype]}({expr})"
        return self.write(ins, expr, rtype, srcs)

    def narrowed_components(self, ins: Instruction) -> tuple[int, ...] | None:
        """:meth:`narrowing` of ``ins``, computed once (the policy asks too)."""
        try:
            return self.narrowed[id(ins)]
        except KeyError:
            comps = self.narrowed[id(ins)] = self.narrowing(ins)
            return comps

    def narrowing(self, ins: Instruction) -> tuple[int, ...] | None:
        """The write-mask components when ``ins`` is computed on them alone, else None.

        A componentwise instruction (``ir.ops.COMPONENTWISE``) with a partial plain write mask
        and an ops.txt expression that has a form of that size (:meth:`sized_call`: operators
        and size-generic built-ins, or one helper call around them) is written narrowed:
        ``R0.zw = a.zw * b.xy + c.xy;``, ``R1.xyz = xl_max(R2.xyz, R3.xyz);``, a float result
        saturated and converted at that size too (:meth:`result_steps`).  That is the
        computation of those components and no other, and the destination is a ``precise``
        variable, so glslang decorates its operations
        NoContraction -- which it does not through a swizzle of an rvalue (``(a * b + c).zw``,
        measured with glslang 13.1), the reason the unnarrowed form needs a temporary; it does
        through a function's arguments (``R0.xy = xl_max(a.xy * b.xy + c.xy, d.xy);``:
        measured, glslang 13.1).  A condition mask that tests one component of a value-holding CC register (:meth:`cc_test`)
        makes it ``if (xl_cc0.x != 0.0) R0.y = ...;`` (all four components may be written so); an
        update of such a register copies the written value (``xl_cc0.x = R0.x;``), under the
        same test when there is one (``if (...) { R1 = ...; xl_cc0 = R1; }``).  A register
        stored as another type takes the narrowed value bitcast (``floatBitsToUint(...)``).
        Other condition masks, flag-word CC updates, an integer saturation, a saturation or
        precision conversion under a condition (as an ``if``, Mesa folded
        FP1's LIT of a NaN operand differently in the write before it: test_fp1_exec
        numerics), and a bitcast into the register under a condition or with a CC update keep
        the general path (:meth:`write`)."""
        dst = ins.dst
        if dst is None or ins.op not in COMPONENTWISE:
            return None
        conditional = dst.cond is not None and dst.cond.rule not in ("TR", "FL")
        if conditional and not (dst.cond.cc in self.cc_values and len(
                {dst.cond.swizzle[c] for c in range(4) if dst.mask[c]}) == 1):
            return None
        updates = ins.cc_update is not None and ins.cc_update in self.cc_used
        if updates and ins.cc_update not in self.cc_values:
            return None                # flag words
        if ((all(dst.mask) and not conditional and not updates)
                or (dst.cond is not None and not conditional)
                or (ins.sat != Sat.NONE and result_type(ins) != DataType.FLOAT)
                or ((ins.sat != Sat.NONE or ins.precision in ("FP16", "X")) and conditional)
                or ins.op in RAW_OPERAND_OPS or OPCODES[ins.op].output != "v"
                or ins.mul_mode == "HI"):
            return None
        if ins.op in ("DDX", "DDY") and (self.stage != Stage.FRAGMENT or not self.info.fine_derivatives):
            return None            # the general path writes vec4(0.0), or notes coarse derivatives
        comps = tuple(i for i, on in enumerate(dst.mask) if on)
        if self.sized_call(ins, len(comps)) is None:
            return None
        if result_type(ins) != self.storage_type(dst.reg) and (updates or conditional):
            return None
        # (into a register of another storage type, the narrowed value is bitcast --
        # 'R0.z = floatBitsToUint(-R2.x + 1.0);' -- and glslang keeps NoContraction through
        # the conversion: measured, glslang 13.1)
        return comps

    def sized_call(self, ins: Instruction, n: int) -> tuple | None:
        """Whether the ops.txt expression of ``ins`` can be written on ``n`` components: ``()``
        when it is made of operators and size-generic built-ins (no ``vec4`` constructor, no
        swizzle of its own, no comparison function for one component: those take vectors);
        ``(section, function, argument types)`` when it is one call of a helper around such
        expressions, ``xl_max({a}, {b})``, then written with the helper's overload of that size
        (:func:`~.tables.sized_overload`); None otherwise.  Computed once per (opcode, type,
        size): it reads nothing else of ``ins``."""
        key = (ins.op, ins.dtype, n)
        try:
            return self.sized_calls[key]
        except KeyError:
            call = self.sized_calls[key] = self._sized_call(ins, n)
            return call

    def _sized_call(self, ins: Instruction, n: int) -> tuple | None:
        entry = self.snippet(ins.op, TYPE_CHAR[ins.dtype])
        if entry is None:
            return None
        template, helpers = entry
        m = _HELPER_CALL.match(template)
        rest = template
        call: tuple = ()
        if m and _closing(template, m.end()) == len(template) - 1 and len(helpers) == 1:
            rest = template[m.end():-1]
            call = (helpers[0], m.group(1), tuple(self.argument_type(ins, a.strip())
                                                  for a in _arguments(rest)))
        if _NOT_SIZE_GENERIC.search(rest) or (n == 1 and _VECTOR_ONLY.search(template)):
            return None
        if call and self.sized_overload(*call, n) is None:
            return None
        return call

    @staticmethod
    def argument_type(ins: Instruction, argument: str) -> str | None:
        """The GLSL type of a helper argument that is one operand of ``ins`` (``{b}``: a vector
        of the operand type, or one component for a scalar operand); None for an expression."""
        k = "abcd".find(argument[1:-1]) if len(argument) == 3 and argument[0] == "{" else -1
        if k < 0:
            return None
        t = operand_type(ins, k)
        inputs = OPCODES[ins.op].inputs
        return SCALAR[t] if k < len(inputs) and inputs[k] == "s" else VEC[t]

    def write_scalar(self, ins: Instruction, expr: str, rtype: DataType) -> list[str]:
        """A replicated scalar into a plain write mask: ``r.xz = vec2(e);`` (no temporaries)."""
        dst = ins.dst
        target = self.element(dst.reg, dst.index, None)
        st = self.storage_type(dst.reg)
        comps = mask_text(dst.mask)
        expr = self.result_steps(ins, expr, rtype, 1)
        value = bitcast(expr, rtype, st, scalar=True)
        rhs = right_side(value)
        self.keep_value(ins, rhs)
        if len(comps) == 1:
            return [f"{target}.{comps} = {rhs};"]
        ctor = (VEC[st][:-1] + str(len(comps))) if len(comps) < 4 else VEC[st]
        return [f"{target}{'' if len(comps) == 4 else '.' + comps} = {ctor}({value});"]

    def write(self, ins: Instruction, expr: str, rtype: DataType, srcs: list[str]) -> list[str]:
        dst = ins.dst
        expr = self.result_steps(ins, expr, rtype, 4)
        target = self.element(dst.reg, dst.index, None)
        st = self.storage_type(dst.reg)
        full = all(dst.mask)
        m = "" if full else "." + mask_text(dst.mask)
        cc = ins.cc_update if ins.cc_update in self.cc_used else None
        # an 'if' for a write that updates a CC register (before: a block of temporaries and
        # two selects); a conditional write alone stays one select -- as an 'if', Mesa folded
        # FP1's LIT of a NaN operand differently in the unconditional write before it (NaN ->
        # 0.0; test_fp1_exec numerics), which the verifier cannot explain
        test = self.uniform_test(dst) if cc is not None else None
        if dst.cond is None or test is not None:
            lines = self.plain_write(ins, expr, rtype, target, st, m)
            if cc is not None and cc in self.cc_values:
                lines.append(self.value_cc_copy(cc, target, st, m))
            elif cc is not None:
                # a flag word (GP4 2.X.4.3): carry and overflow read the operands again, so
                # they are taken before the destination (maybe one of the operands) is
                # written; the other flags are those of the value written, read back from the
                # register ('xl_cc0.xy = xl_ccf(R0).xy;' after 'R0.xy = ...;')
                flags = self.cc_flags(ins, bitcast(target, st, rtype), rtype, srcs)
                update = (f"xl_cc{cc}{m} = "
                          f"{components(flags, m, self.vector_names) if m else flags};")
                lines = [update, *lines] if ins.cc_kind in (CCKind.ADD, CCKind.SUB) \
                    else [*lines, update]
            return lines if test is None else self.guarded(test, lines)
        if cc is None and not (rtype == DataType.FLOAT and _ARITH.search(expr)):
            # a conditional write of a value no contraction can touch (a move, a swizzle, a
            # built-in of operands, integer arithmetic): one select, no temporaries --
            # 'R0.xy = mix(R0.xy, R1.yx, greaterThan(xl_cc0.xy, vec2(0.0)));'
            value = bitcast(expr, rtype, st)
            test = self.sized_cc_test(dst.cond, tuple(i for i, on in enumerate(dst.mask) if on))
            if m:
                value = components(value, m, self.vector_names)
            return [f"{target}{m} = {self.select(target + m, value, test, st)};"]
        t = self.fresh()
        q = self.precise if rtype == DataType.FLOAT else ""      # integer arithmetic is exact
        lines = [f"{q}{VEC[rtype]} {t} = {expr};"]
        mask = None
        if dst.cond is not None:
            mask = self.fresh("m")
            lines.append(f"bvec4 {mask} = {self.cc_test(dst.cond)};")
        flags = None
        if cc is not None:
            flags = self.cc_flags(ins, t, rtype, srcs)
            if ins.cc_kind in (CCKind.ADD, CCKind.SUB):
                # carry/overflow flags read the operands again: take them before the
                # destination (maybe one of the operands) is written (GP4 2.X.4.3)
                name = self.fresh("f")
                lines.append(f"uvec4 {name} = {flags};")
                flags = name
            elif m and flags != t:
                flags = f"({flags})" if not wrapped(flags) and not flags.endswith(")") else flags
        value = bitcast(t, rtype, st)
        if m:
            value = components(value, m, self.vector_names)
        if mask is None:
            lines.append(f"{target}{m} = {value};")
        else:
            lines.append(f"{target}{m} = {self.select(target + m, value, mask + m, st)};")
        if flags is not None:
            reg = f"xl_cc{cc}"
            ftype = self.cc_values.get(cc, DataType.UINT)
            if m:
                flags = components(flags, m, self.vector_names)
            if mask is None:
                lines.append(f"{reg}{m} = {flags};")
            else:
                lines.append(f"{reg}{m} = {self.select(reg + m, flags, mask + m, ftype)};")
        return ["{"] + ["    " + line for line in lines] + ["}"]

    def value_cc_copy(self, cc: int, target: str, st: DataType, m: str) -> str:
        """A value-holding CC register takes the value just written, read back from the
        register as the register's words in the CC's type ('xl_cc0.x = int(HC.x);')."""
        value = bitcast(target, st, self.cc_values[cc])
        return f"xl_cc{cc}{m} = {components(value, m, self.vector_names) if m else value};"

    @staticmethod
    def guarded(test: str, lines: list[str]) -> list[str]:
        """``lines`` under one test of every written component: the write (and the update)
        only where it passes, as the select would -- the test reads the CC register before the
        update below it."""
        if not lines:
            return lines
        if lines[0] == "{" and lines[-1] == "}":
            lines = [line[4:] for line in lines[1:-1]]      # the block is the if's own
        if len(lines) == 1:
            return [f"if ({test}) {lines[0]}"]
        return [f"if ({test}) {{", *(f"    {line}" for line in lines), "}"]

    def uniform_test(self, dst) -> str | None:
        """The one test of a condition mask whose written components all test the same CC
        component (``R1 (GT.x)``, ``R0.y (LT.y)``), as a bool ('xl_cc0.x > 0.0'); None when
        there is no condition, it is TR or FL, or components test different ones."""
        cond = dst.cond
        if cond is None or cond.rule in ("TR", "FL"):
            return None
        tested = {cond.swizzle[c] for c in range(4) if dst.mask[c]}
        if len(tested) != 1:
            return None
        return self.branch_cond(replace(cond, swizzle=(tested.pop(),) * 4))

    def plain_write(self, ins: Instruction, expr: str, rtype: DataType, target: str, st: DataType,
                    m: str) -> list[str]:
        """An unconditional write of ``expr`` (of ``rtype``) into ``target`` (stored as ``st``),
        the components ``m`` (``""``: all)."""
        value = bitcast(expr, rtype, st)
        if value == target and not m:
            return []          # MOV R0, R0 (a write under TR of the register itself)
        swz = _SWIZZLED.fullmatch(value)
        if m and swz:          # compose swizzle and mask: R1.yzxw then .xy -> R1.yz
            value = components(value, m, self.vector_names)
            if value == f"{target}{m}":
                return []
            self.keep_value(ins, value)
            return [f"{target}{m} = {value};"]
        if m and rtype == DataType.FLOAT and _ARITH.search(expr) and self.info.precise \
                and not self.inlined_arithmetic():
            # glslang does not carry NoContraction through a swizzle of an rvalue
            # ('r.x = (a * b + c).x;' gets no decoration; measured with glslang 13.1), so
            # a masked float computation goes through a precise temporary
            t = self.fresh()
            return ["{", f"    {self.precise}{VEC[rtype]} {t} = {expr};",
                    f"    {target}{m} = {components(bitcast(t, rtype, st), m, self.vector_names)};",
                    "}"]
        if not m:
            rhs = right_side(value)
            self.keep_value(ins, rhs)
            return [f"{target} = {rhs};"]
        value = components(value, m, self.vector_names)
        self.keep_value(ins, value)
        return [f"{target}{m} = {value};"]

    def result_steps(self, ins: Instruction, expr: str, rtype: DataType, n: int) -> str:
        """The shared tail of every float result of ``n`` components (1 to 4): saturation
        (``_SAT``/``_SSAT``, digest 4.3 step 2), then the result conversion (step 3; FP1
        3.11.4.4): precision "FP16" rounds to fp16, "X" converts to fx12 (helpers sat, fp16 and
        fx12, at that size: ``R0.xy = xl_sat(a.xy * b.xy);``).  The CC flags are computed from
        the converted value (digest 12 item 25): callers build them from the expression returned
        here.  "R"/"H" convert nothing; an integer result is neither saturated nor converted,
        nor is a set-on comparison's 0.0 or 1.0 (``ir.ops.BOOLEAN_RESULTS``)."""
        if rtype != DataType.FLOAT or OPCODES[ins.op].boolean_result:
            return expr            # (0.0 and 1.0 are what every step gives them back)
        steps = [("sat", "xl_sat" if ins.sat == Sat.SAT else "xl_ssat")] if ins.sat != Sat.NONE else []
        helper = {"FP16": "fp16", "X": "fx12"}.get(ins.precision)
        if helper is not None:
            steps.append((helper, f"xl_{helper}"))
        for section, function in steps:
            self.need_sized(section, function, ("vec4",), n)
            inner = expr[1:-1] if wrapped(expr) else expr     # xl_sat(a * b), not xl_sat((a * b))
            expr = f"{function}({inner})"
        return expr

    def emit_kil(self, ins: Instruction) -> list[str]:
        """KIL: ``discard;`` under its condition -- or, in a verifier probe program, the
        invocation flagged and run on (ops.txt "@flagged")."""
        if self.prog.kills_as_flags:
            self.need("killed")
            kill = "xl_killed = true;"
        else:
            kill = "discard;"
        if ins.cond is not None:
            cond = self.branch_cond(ins.cond)
            return [kill] if cond is None else [f"if ({cond}) {kill}"]
        if ins.dtype == DataType.UINT:
            return ["// KIL.U never kills (unsigned values are never negative)"]
        optype = ins.dtype
        a = self.operand(ins.srcs[0], optype, False, read=(ins, 0))
        zero = "vec4(0.0)" if optype == DataType.FLOAT else "ivec4(0)"
        return [f"if (any(lessThan({a}, {zero}))) {kill}"]


#: opcode -> for each input, whether it is a scalar operand (OpInfo.inputs "s"), computed once
_SCALAR_INPUTS: dict[str, tuple[bool, ...]] = {}

#: an ops.txt expression that starts with a helper call: ``xl_max(``
_HELPER_CALL = re.compile(r"(xl_\w+)\(")
#: GLSL's comparison functions, which take vectors only (a scalar compares with an operator)
_VECTOR_ONLY = re.compile(r"\b(?:lessThan|lessThanEqual|greaterThan|greaterThanEqual|equal|"
                          r"notEqual|any|all|not)\(")


def _closing(text: str, start: int) -> int:
    """The index of the parenthesis that closes the one before ``start``."""
    depth = 1
    for i in range(start, len(text)):
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        if depth == 0:
            return i
    return -1


def _flag_test_helper(rule: str, n: int) -> str:
    """The helper library's name of the test ``rule`` (cctests.txt) of ``n`` flag words:
    ``bool xl_ccEQ(uint f)`` for one, ``bvec2 xl_ccEQ(uvec2 f)`` ... (overloads of one GLSL
    function, one helper entry per size; tables.helper_library makes them)."""
    return f"cc{rule}" if n == 4 else f"cc{rule}{n}"
