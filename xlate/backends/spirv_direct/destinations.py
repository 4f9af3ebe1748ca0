"""How an instruction's result reaches its destination on the direct SPIR-V path: saturation,
the FP16 / fixed-point precision step, the condition-code mask (an ``OpSelect``) and the write
mask (an ``OpVectorShuffle`` with the old value), the deferred store of a whole register
(``DirectEmitter.pending``) and the condition-code register's update."""
from __future__ import annotations

from ...ir.model import DataType, Instruction, Sat


class DestinationMixin:
    """Part of :class:`~xlate.backends.spirv_direct.emitter.DirectEmitter`."""

    def write(self, ins: Instruction, value: int, rkind: str, scalar: bool = False) -> None:
        """``value``: the result, a vector of ``rkind`` -- or, ``scalar``, one component
        that every written component takes."""
        dst = ins.dst
        if scalar:
            if dst.cond is None and sum(dst.mask) == 1 and (
                    rkind != "f" or (ins.sat == Sat.NONE and ins.precision not in ("FP16", "X"))) \
                    and (ins.cc_update is None or ins.cc_update not in self.lowered.cc_used):
                return self.write_component(dst, value, rkind)
            value = self.splat(value, rkind)
        if ins.sat != Sat.NONE and rkind == "f":
            lo = -1.0 if ins.sat == Sat.SSAT else 0.0
            one = self.c("f", 1.0)
            value = self.sel(self.cmp("FOrdGreaterThan", value, one), one, value, "f")
            low = self.c("f", lo)
            value = self.sel(self.cmp("FOrdLessThan", value, low), low, value, "f")
        if rkind == "f" and ins.precision in ("FP16", "X"):
            value = self.precision_step(value, ins.precision)
        mask = self.cc_test(dst.cond) if dst.cond is not None else None
        flags = None
        cc = ins.cc_update
        if cc is not None and cc in self.lowered.cc_used and cc not in self.lowered.cc_values:
            flags = self.flag_words(ins, value, rkind)     # before the destination is written
        ptr, skind = self.element_ptr(dst.reg, dst.index)
        new = self.bitcast(value, rkind, skind)
        full = all(dst.mask)
        whole = ptr in self.whole_vars
        if mask is not None or not full:
            old = (self.load_var(ptr, self.t(skind)) if whole
                   else self.val("Load", self.t(skind), ptr))
            if mask is not None:
                new = self.sel(mask, new, old, skind)
            if not full:
                new = self.shuffle(old, new, merge_selectors(dst.mask), skind)
        if whole:
            self.known[ptr] = self.pending[ptr] = new
        else:
            self.put("Store", ptr, new)
        cc = ins.cc_update
        if cc is not None and cc in self.lowered.cc_used:
            if cc in self.lowered.cc_values:    # the register keeps the value (its words)
                ck = "f" if self.lowered.cc_values[cc] == DataType.FLOAT else "i"
                upd = self.bitcast(value, rkind, ck)
            else:
                ck, upd = "u", flags
            if mask is not None or not full:
                old = self.load_var(self.cc[cc], self.t(ck))
                if mask is not None:
                    upd = self.sel(mask, upd, old, ck)
                if not full:
                    upd = self.shuffle(old, upd, merge_selectors(dst.mask), ck)
            self.known[self.cc[cc]] = self.pending[self.cc[cc]] = upd

    def write_component(self, dst, value: int, rkind: str) -> None:
        """A scalar ``value`` into the one component ``dst`` writes, unconditionally, with
        nothing else to update: an ``OpCompositeInsert`` into the old value (the splat and
        merging shuffle of :meth:`write`, in one instruction)."""
        ptr, skind = self.element_ptr(dst.reg, dst.index)
        t = self.t(skind)
        whole = ptr in self.whole_vars
        old = self.load_var(ptr, t) if whole else self.val("Load", t, ptr)
        new = self.val("CompositeInsert", t, self.bitcast(value, rkind, skind, 1), old,
                       dst.mask.index(True))
        if whole:
            self.known[ptr] = self.pending[ptr] = new
        else:
            self.put("Store", ptr, new)

    def precision_step(self, v: int, precision: str) -> int:
        f4, f2, u1 = self.t("f"), self.t("f", 2), self.t("u", 1)
        if precision == "FP16":
            # each component through the low half of a pack/unpack pair: with Mesa 22.3's
            # lavapipe the high half of unpackHalf2x16(packHalf2x16(v)) came back 0 on
            # generated programs whose v was constant (random arbfp-nv seed 101, arbfp-nv2
            # seed 116: the GLSL path's xl_fp16, which packs pairs, fails the first)
            zero = self.c("f", 0.0, 1)
            parts = []
            for i in range(4):
                pair = self.vec("f", [self.x(v, i), zero])
                packed = self.ext("PackHalf2x16", u1, pair)
                parts.append(self.x(self.ext("UnpackHalf2x16", f2, packed), 0))
            return self.vec("f", parts)
        scale = self.c("f", 1024.0)
        clamped = self.ext("FClamp", f4, v, self.c("f", -2.0), self.c("f", 2047.0 / 1024.0))
        r = self.fval("FDiv", f4, self.ext("RoundEven", f4, self.fval("FMul", f4, clamped, scale)),
                      scale)
        return self.sel(self.isnan(v), self.c("f", 0.0), r, "f")


_MERGES: dict[tuple, tuple[int, ...]] = {}


def merge_selectors(mask) -> tuple[int, ...]:
    """OpVectorShuffle's selectors keeping the old value (0..3) where ``mask`` is off and
    taking the new one (4..7) where it is on; remembered per mask."""
    got = _MERGES.get(mask) if type(mask) is tuple else None
    if got is None:
        got = tuple(4 + i if on else i for i, on in enumerate(mask))
        if type(mask) is tuple and len(_MERGES) < 64:
            _MERGES[mask] = got
    return got
