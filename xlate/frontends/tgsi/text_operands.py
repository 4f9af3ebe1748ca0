"""TGSI text: instruction operands (registers, brackets and indirection, swizzles and write
masks, texel offsets) and the declared-before-use check -- part of the parser in ``text.py``."""
from __future__ import annotations

from .model import Dst, Indirect, RegRef, Src
from .text_lex import (_DIGITS, _FILES, _Fail, _IDENTITY, _SWIZZLES, _SWZ, _describe, _isword,
                       _old_file_message)


class _Operands:
    """Part of :class:`~xlate.frontends.tgsi.text._Parser` (mixed in)."""

    # -- masks and swizzles --------------------------------------------------------------------
    def _mask(self, what: str = "write mask") -> tuple[bool, bool, bool, bool]:
        i = self.i
        v = self.v[i]
        if not _isword(v) or self.tl[i] != self.tl[i - 1]:
            raise _Fail("E1006", f"empty {what} after '.'", i - 1)
        mask = [False, False, False, False]
        last = -1
        for ch in v.upper():
            c = _SWZ.get(ch)
            if c is None or c <= last:
                raise _Fail("E1006", f"invalid {what} '.{v}': letters x, y, z, w in this "
                            "order, each at most once", i)
            mask[c] = True
            last = c
        self.i = i + 1
        return tuple(mask)

    def _swizzle(self) -> tuple[int, int, int, int]:
        i = self.i
        v = self.v[i]
        sw = _SWIZZLES.get(v)
        if sw is not None and self.tl[i] == self.tl[i - 1]:
            self.i = i + 1
            return sw
        if not _isword(v) or self.tl[i] != self.tl[i - 1]:
            raise _Fail("E1006", "empty swizzle after '.'", i - 1)
        try:
            lst = [_SWZ[ch] for ch in v.upper()]
        except KeyError:
            raise _Fail("E1006", f"invalid swizzle '.{v}': letters x, y, z, w only",
                        i) from None
        if len(lst) > 4:
            raise _Fail("E1006", f"invalid swizzle '.{v}': at most four letters", i)
        self.i = i + 1
        full = tuple(lst + [lst[-1]] * (4 - len(lst)))
        self.sink.warning("E1006", f"short swizzle '.{v}' read as "
                          f"'.{''.join('xyzw'[c] for c in full)}' (TGSI swizzles have four "
                          "letters)", self.span(i))
        return full

    # -- operands ------------------------------------------------------------------------------
    def _bracket(self):
        """after '[': -> (index, Indirect | None, array id or None)."""
        vals = self.v
        i = self.i
        v = vals[i]
        if v[:1] in _DIGITS and v.isdigit() and self.tl[i] == self.tl[i - 1]:
            index = int(v)
            if index > 0xFFFFFFFF:
                raise _Fail("E1007", f"integer {v} does not fit in 32 bits", i)
            self.i = i + 1
            ind = None
        elif vals[i + 1] == "[" and _isword(v):
            ifile = v.upper()
            if ifile not in _FILES:
                raise _Fail("E3004", f"unknown register file '{v}'", i)
            self.i = i + 2
            iindex = self.uint("a register index")
            self.expect("]", "']'")
            comp = 0
            if vals[self.i] == ".":
                self.i += 1
                ci = self.i
                c = vals[ci].upper()
                if c not in _SWZ:
                    raise _Fail("E1006", "expected one component (x, y, z or w) selecting "
                                f"the address, found {_describe(vals[ci])}", ci)
                comp = _SWZ[c]
                self.i += 1
            index = 0
            sign = vals[self.i]
            if sign == "+" or sign == "-":
                self.i += 1
                oi = self.i
                off = self.uint("an offset")
                if off > 0x7FFFFFFF + (sign == "-"):
                    raise _Fail("E1007", f"offset {off} is out of range", oi)
                index = -off if sign == "-" else off
            ind = Indirect(ifile, iindex, comp)
            if not self._declared(ifile, None, iindex):
                self.sink.error("E2003", f"undeclared register {ifile}[{iindex}] used as an "
                                "address", self.span(i))
        else:
            raise _Fail("E1002", f"expected a register index, found {_describe(v)}", i)
        self.expect("]", "']'")
        array_id = None
        if vals[self.i] == "(":
            self.i += 1
            array_id = self.uint("an array id")
            self.expect(")", "')'")
        return index, ind, array_id

    def _register(self) -> RegRef:
        """at FILE '[' (checked by the caller)."""
        vals = self.v
        fi = self.i
        file = vals[fi].upper()
        if file not in _FILES:
            raise _Fail("E3004", _old_file_message(vals[fi]) or
                        f"unknown register file '{vals[fi]}'", fi)
        self.i = fi + 2
        index, ind, aid = self._bracket()
        if vals[self.i] == "[":
            self.i += 1
            index2, ind2, aid2 = self._bracket()
            dim_ind = ind
            if aid is not None:
                if ind is None:
                    raise _Fail("E3004", "an array id '(n)' after the dimension bracket needs "
                                "an indirect dimension", fi)
                dim_ind = Indirect(ind.file, ind.index, ind.comp, aid)
            reg = RegRef(file, index2, ind2, index, dim_ind, aid2 or 0)
        else:
            reg = RegRef(file, index, ind, None, None, aid or 0)
        self._check_use(reg, fi)
        return reg

    def _src(self) -> Src:
        vals = self.v
        neg = absolute = False
        if vals[self.i] == "-":
            neg = True
            self.i += 1
        if vals[self.i] == "|":
            absolute = True
            self.i += 1
        fi = self.i
        if vals[fi + 1] != "[" or not _isword(vals[fi]):
            raise _Fail("E1002", f"expected a register, found {_describe(vals[fi])}", fi)
        reg = self._register()
        swizzle = _IDENTITY
        if vals[self.i] == ".":
            self.i += 1
            swizzle = self._swizzle()
        if absolute:
            self.expect("|", "'|' closing the absolute value")
            return Src(reg, swizzle, False, True, neg)
        return Src(reg, swizzle, neg)

    def _dst(self) -> Dst:
        vals = self.v
        i = self.i
        if vals[i] == "-" or vals[i] == "|":
            raise _Fail("E3004", "a destination operand takes no negation or absolute value",
                        i)
        reg = self._register()
        if vals[self.i] == ".":
            self.i += 1
            return Dst(reg, self._mask())
        return Dst(reg)

    def _offset(self) -> Src:
        vals = self.v
        fi = self.i
        if vals[fi + 1] != "[" or not _isword(vals[fi]):
            raise _Fail("E3004", f"expected a texel offset register, found "
                        f"{_describe(vals[fi])}", fi)
        reg = self._register()
        if reg.indirect is not None or reg.dim is not None or reg.array_id:
            raise _Fail("E3004", "a texel offset is a plain register (no indirect index, "
                        "dimension or array id)", fi)
        swizzle = _IDENTITY
        if vals[self.i] == ".":
            self.i += 1
            si = self.i
            letters = vals[si].upper()
            if len(letters) != 3 or any(ch not in _SWZ for ch in letters):
                raise _Fail("E1006", "a texel offset takes a 3-letter swizzle, found "
                            f"{_describe(vals[si])}", si)
            swizzle = (_SWZ[letters[0]], _SWZ[letters[1]], _SWZ[letters[2]], 3)
            self.i += 1
        return Src(reg, swizzle)

    # -- register checks -----------------------------------------------------------------------
    def _declared(self, file: str, dim: int | None, index: int) -> bool:
        key = (file, dim)
        small = self.small.get(key)
        if small is not None and index in small:
            return True
        for first, last in self.big.get(key, ()):
            if first <= index <= last:
                return True
        return False

    def _check_use(self, reg: RegRef, fi: int) -> None:
        file = reg.file
        index = reg.index
        if file == "IMM":
            n = len(self.imms)
            if reg.indirect is not None:
                if n == 0:
                    self.sink.error("E2003", "IMM is addressed indirectly but the program has "
                                    "no immediates", self.span(fi))
            elif not 0 <= index < n:
                self.sink.error("E2003", f"IMM[{index}] is not declared (the program has "
                                f"{n} immediate{'s' if n != 1 else ''})", self.span(fi))
            return
        if reg.indirect is None and reg.dim is None and self._declared(file, None, index):
            return                                            # the common case
        if file == "NULL":
            self.sink.error("E3004", "the NULL register file cannot be used", self.span(fi))
            return
        if reg.indirect is not None:
            if file not in self.files_declared:
                self.sink.error("E2003", f"{file} is addressed indirectly but no {file} "
                                "register is declared", self.span(fi))
            return
        if reg.dim_indirect is not None:
            if self._declared(file, None, index) or any(
                    f == file and d is not None and self._declared(f, d, index)
                    for f, d in self.ranges):
                return
            name = f"{file}[{reg.dim_indirect.file}[{reg.dim_indirect.index}]][{index}]"
        elif reg.dim is None:
            if self._declared(file, 0, index):
                return
            name = f"{file}[{index}]"
        else:
            if self._declared(file, reg.dim, index):
                return
            if (reg.dim == 0 or file in ("IN", "OUT")) and self._declared(file, None, index):
                return
            name = f"{file}[{reg.dim}][{index}]"
        self.sink.error("E2003", f"undeclared register {name}", self.span(fi))
