"""Atomics of the direct SPIR-V path (TGSI ``ATOM*``; issue 20) on storage buffers, shared
memory and R32 images, with the rules of exec/atomics.py (defined there once) and the
readings of the GLSL backend (backends/glsl/memory.py ``atomic_function``):

* The word: a buffer's or shared array's word ``address >> 2`` (an ``OpAccessChain``), an
  image's texel (``OpImageTexelPointer``, sample 0; an R32 image holds one word a texel).
  A buffer or shared word outside the resource is not touched and returns 0, as the
  executor; an image texel outside the image is the implementation's, as in GLSL (OpenGL 4.6
  8.26: an invalid atomic returns 0 and changes nothing).
* One instruction each where SPIR-V has the rule: ADD ``OpAtomicIAdd``, AND/OR/XOR, UMIN/UMAX
  ``OpAtomicUMin``/``OpAtomicUMax``, IMIN/IMAX ``OpAtomicSMin``/``OpAtomicSMax`` (the signed
  comparison is the opcode's, whatever the word's type: GLSL needs a compare-and-swap loop on
  a ``uint`` buffer word, SPIR-V does not), XCHG ``OpAtomicExchange``, CAS
  ``OpAtomicCompareExchange`` (value: the second operand, comparator: the first).
* The others are a compare-and-swap loop over their rule, as the GLSL backend's: FADD (a
  float32 add, ``NoContraction``; SPIR-V 1.0 has no float atomic), INCWRAP and DECWRAP as
  tgsi.rst writes them (not OpAtomicIIncrement/IDecrement, whose wrap rules differ). The loop
  reads the word with ``OpAtomicLoad``, and is a loop whose header does the exchange and leaves
  when the word seen is the word the new one was computed from.
* Memory scope ``Device`` and semantics ``None`` (relaxed) on every atomic: what glslang
  writes for GLSL's ``atomic*`` and ``imageAtomic*`` built-ins.

The verifier's atomic log (``Instrumentation.atomic_log``; verify/gl_compute.py): the storage
buffer at binding 31 of ``GlslEmitter.atomic_log_lines``, each atomic appending (invocation,
its sequence number, the function's index in ``atomic_functions``, location, a, b, returned),
the location computed as ``atomic_log_location`` does.
"""
from __future__ import annotations

from ...ir.model import DataType, Instruction
from ..glsl.memory import ATOMIC_LOG_BINDING, atomic_functions

_DEVICE, _RELAXED = 1, 0
#: atomics SPIR-V has an instruction for
NATIVE_ATOMICS = {"ATOMADD": "AtomicIAdd", "ATOMAND": "AtomicAnd", "ATOMOR": "AtomicOr",
                  "ATOMXOR": "AtomicXor", "ATOMUMIN": "AtomicUMin", "ATOMUMAX": "AtomicUMax",
                  "ATOMIMIN": "AtomicSMin", "ATOMIMAX": "AtomicSMax",
                  "ATOMXCHG": "AtomicExchange"}
NOWHERE = 0xFFFFFFFF          # the logged location of an atomic outside its resource


def _fadd(e, o: int, a: int) -> int:
    f = e.t("f", 1)
    s = e.fval("FAdd", f, e.bitcast(o, "u", "f", 1), e.bitcast(a, "u", "f", 1))
    return e.bitcast(s, "f", "u", 1)


def _incwrap(e, o: int, a: int) -> int:
    inc = e.val("IAdd", e.t("u", 1), o, e.c("u", 1, 1))
    return e.sel(e.cmp("ULessThanEqual", inc, a, 1), inc, e.c("u", 0, 1), "u", 1)


def _decwrap(e, o: int, a: int) -> int:
    zero = e.c("u", 0, 1)
    inside = e.val("LogicalAnd", e.t("b", 1), e.cmp("UGreaterThan", o, zero, 1),
                   e.cmp("ULessThan", o, a, 1))
    dec = e.val("ISub", e.t("u", 1), o, e.c("u", 1, 1))
    return e.sel(inside, dec, zero, "u", 1)


#: the new word of the loop-form atomics from the old word ``o`` and the operand ``a`` (uint)
LOOP_RULES = {"ATOMFADD": _fadd, "ATOMINCWRAP": _incwrap, "ATOMDECWRAP": _decwrap}


class AtomicMixin:
    """Part of :class:`~xlate.backends.spirv_direct.emitter.DirectEmitter`."""

    def emit_atomic(self, ins: Instruction) -> None:
        name = ins.mem.resource
        r = self.prog.resources[name]
        u = self.t("u", 1)
        a = self.operand(ins.srcs[1], DataType.UINT, True)
        b = self.operand(ins.srcs[2], DataType.UINT, True) if ins.op == "ATOMCAS" else None
        if r.kind == "image":
            var, _, kind, n, _ = self.images[name]
            coord = self.image_coordinate(ins, n)
            ptr = self.val("ImageTexelPointer", self.m.pointer("Image", self.m.scalar(kind)),
                           var, coord, self.c("u", 0, 1))
            ret = self.atomic_op(ins.op, ptr, kind, a, b)
            loc = self.image_location(name, coord) if self.logging_atomics() else None
        else:
            addr = self.operand(ins.srcs[0], DataType.UINT, True)
            i = self.val("ShiftRightLogical", u, addr, self.c("u", 2, 1))
            inside = self.cmp("ULessThan", i, self._length(name), 1)
            result = self.fn_var(u)
            self.put("Store", result, self.c("u", 0, 1))
            self.conditional(inside, lambda: self.put(
                "Store", result, self.atomic_op(ins.op, self._word_pointer(name, i), "u", a, b)))
            ret = self.val("Load", u, result)
            loc = self.sel(inside, i, self.c("u", NOWHERE, 1), "u", 1) \
                if self.logging_atomics() else None
        if loc is not None:
            self.log_atomic(ins, loc, a, b, ret)
        self.write(ins, self.splat(ret, "u"), "u")

    def atomic_op(self, op: str, ptr: int, kind: str, a: int, b: int | None) -> int:
        """The atomic ``op`` on the word at ``ptr`` (of the kind letter ``kind``): the word
        the rule returns, as a uint."""
        st = self.t(kind, 1)
        dev, relaxed = self.c("u", _DEVICE, 1), self.c("u", _RELAXED, 1)
        ak = self.bitcast(a, "u", kind, 1)
        if op in NATIVE_ATOMICS:
            return self.bitcast(self.val(NATIVE_ATOMICS[op], st, ptr, dev, relaxed, ak), kind,
                                "u", 1)
        if op == "ATOMCAS":
            got = self.val("AtomicCompareExchange", st, ptr, dev, relaxed, relaxed,
                           self.bitcast(b, "u", kind, 1), ak)
            return self.bitcast(got, kind, "u", 1)
        rule = LOOP_RULES[op]
        u = self.t("u", 1)
        old = self.fn_var(u)
        first = self.val("AtomicLoad", st, ptr, dev, relaxed)
        self.put("Store", old, self.bitcast(first, kind, "u", 1))
        header, cont, merge = self.m.id(), self.m.id(), self.m.id()
        self.branch(header)
        self.label(header)
        o = self.val("Load", u, old)
        new = rule(self, o, a)
        seen = self.bitcast(self.val("AtomicCompareExchange", st, ptr, dev, relaxed, relaxed,
                                     self.bitcast(new, "u", kind, 1),
                                     self.bitcast(o, "u", kind, 1)), kind, "u", 1)
        self.put("Store", old, seen)
        done = self.cmp("IEqual", seen, o, 1)
        self.put("LoopMerge", merge, cont, 0)
        self.put("BranchConditional", done, merge, cont)
        self.open = False
        self.label(cont)
        self.branch(header)
        self.label(merge)
        o = self.val("Load", u, old)
        return self.val("IAdd", u, o, self.c("u", 1, 1)) if op == "ATOMINCWRAP" else o

    # ---- the verifier's log -------------------------------------------------------------------
    def logging_atomics(self) -> bool:
        return self.instr.atomic_log and bool(atomic_functions(self.prog))

    def declare_atomic_log(self) -> None:
        if not self.logging_atomics():
            return
        m = self.m
        u, u4 = self.t("u", 1), self.t("u", 4)
        rta = m.id()
        m.put("globals", "TypeRuntimeArray", rta, u4)
        m.decorate(rta, "ArrayStride", 16)
        st = m.id()
        m.put("globals", "TypeStruct", st, u, u, rta)
        m.put("annotations", "Decorate", st, 3)                       # BufferBlock
        for k, offset in enumerate((0, 4, 16)):
            m.put("annotations", "MemberDecorate", st, k, 35, offset)
        self.log_var = m.variable(m.pointer("Uniform", st), "Uniform")
        m.decorate(self.log_var, "DescriptorSet", 0)
        m.decorate(self.log_var, "Binding", ATOMIC_LOG_BINDING)
        self.log_seq = m.variable(m.pointer("Private", u), "Private", self.c("u", 0, 1))

    def invocation_index(self) -> int:
        """The invocation's index in the dispatch, as ``atomic_log_function`` computes it."""
        u = self.t("u", 1)
        wg, ngroups = self.compute_builtin("gl_WorkGroupID"), self.compute_builtin(
            "gl_NumWorkGroups")
        lii = self.compute_builtin("gl_LocalInvocationIndex")
        x = lambda v, k: self.val("CompositeExtract", u, v, k)         # noqa: E731
        add = lambda p, q: self.val("IAdd", u, p, q)                   # noqa: E731
        mul = lambda p, q: self.val("IMul", u, p, q)                   # noqa: E731
        lx, ly, lz = self.prog.local_size
        group = add(x(wg, 0), mul(x(ngroups, 0), add(x(wg, 1), mul(x(ngroups, 1), x(wg, 2)))))
        return add(mul(group, self.c("u", lx * ly * lz, 1)), lii)

    def image_location(self, name: str, coord: int) -> int:
        """``atomic_log_location``: the texel's index ``x + y * w (+ z * w * h)`` inside the
        image's size (a cube's third bound 1, as there), NOWHERE outside."""
        i = self.t("i", 1)
        n = self.images[name][3]
        nsize = self.images[name][4]
        size = self.image_size(name)
        if n == 1:
            inside = self.val("LogicalAnd", self.t("b", 1),
                              self.cmp("SGreaterThanEqual", coord, self.c("i", 0, 1), 1),
                              self.cmp("SLessThan", coord, size, 1))
            return self.sel(inside, self.bitcast(coord, "i", "u", 1), self.c("u", NOWHERE, 1),
                            "u", 1)
        if nsize < n:                                   # a cube: (w, h, 1)
            size = self.vec("i", [self.x(size, 0, "i"), self.x(size, 1, "i"),
                                  self.c("i", 1, 1)])
        inside = self.val("LogicalAnd", self.t("b", 1),
                          self.val("All", self.t("b", 1), self.cmp(
                              "SGreaterThanEqual", coord, self.c("i", 0, n), n)),
                          self.val("All", self.t("b", 1), self.cmp("SLessThan", coord, size, n)))
        c = [self.x(coord, k, "i") for k in range(n)]
        s = [self.x(size, k, "i") for k in range(n)]
        index = self.val("IAdd", i, c[0], self.val("IMul", i, c[1], s[0]))
        if n == 3:
            index = self.val("IAdd", i, index, self.val("IMul", i, c[2], self.val(
                "IMul", i, s[0], s[1])))
        return self.sel(inside, self.bitcast(index, "i", "u", 1), self.c("u", NOWHERE, 1), "u",
                        1)

    def log_atomic(self, ins: Instruction, loc: int, a: int, b: int | None, ret: int) -> None:
        u, u4 = self.t("u", 1), self.t("u", 4)
        fid = atomic_functions(self.prog).index((ins.op, ins.mem.resource))
        uptr = self.m.pointer("Uniform", u)
        count = self.val("AccessChain", uptr, self.log_var, self.c("i", 0, 1))
        k = self.val("AtomicIAdd", u, count, self.c("u", _DEVICE, 1), self.c("u", _RELAXED, 1),
                     self.c("u", 1, 1))
        cap = self.val("Load", u, self.val("AccessChain", uptr, self.log_var, self.c("i", 1, 1)))
        inv = self.invocation_index()
        seq = self.val("Load", u, self.log_seq)
        zero = self.c("u", 0, 1)

        def append():
            vptr = self.m.pointer("Uniform", u4)
            at = self.val("IMul", u, k, self.c("u", 2, 1))
            first = self.val("AccessChain", vptr, self.log_var, self.c("i", 2, 1), at)
            self.put("Store", first, self.vec("u", [inv, seq, self.c("u", fid, 1), loc]))
            at1 = self.val("IAdd", u, at, self.c("u", 1, 1))
            second = self.val("AccessChain", vptr, self.log_var, self.c("i", 2, 1), at1)
            self.put("Store", second, self.vec("u", [a, zero if b is None else b, ret, zero]))
        self.conditional(self.cmp("ULessThan", k, cap, 1), append)
        self.put("Store", self.log_seq, self.val("IAdd", u, seq, self.c("u", 1, 1)))
