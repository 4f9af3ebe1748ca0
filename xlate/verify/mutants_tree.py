"""Mutation testing of the direct SPIR-V path (issue 19): mutants made in the lowered tree.

The direct backend (``xlate/backends/spirv_direct``) prints the middle end's tree
(:class:`xlate.passes.pipeline.Lowering`: ``structured``, a :class:`Structured` of ``Op`` /
``If`` / ``Loop`` / ``Jump`` / ... nodes holding IR instructions) as SPIR-V words; there is no
text to edit as :mod:`mutants` edits GLSL.  So a mutant here is an edit of that tree, made each
time the verifier has the direct module emitted -- for its main run and for every other run
it makes of the direct module, whatever the harness's instrumentation (capture slots, fragment
feeds): the emitter's hook ``Instrumentation.tree_edit`` (``spirv_direct/base.py``) hands the
freshly lowered tree to :meth:`TreeMutation.apply` before anything is printed.  The GLSL
translation, and glslang's SPIR-V of it, are left alone: they are the second, independent
translation the verifier checks the direct one against, and the mutant is a wrong *direct*
translation.

A site is named by content, as :mod:`mutants` names a GLSL statement: the node's class and the
IR printer's text of its instruction (``ADD.F R0.xy, R1, {0.5}``; literals print inline),
plus which occurrence of that text in the tree's walk order.  Instrumentation does not change
the tree, but a tree without the site (another program, another lowering) is left alone and
the run is counted as not carrying the mutation.  The IR is shared with the verifier's
executor: an edit never changes an instruction in place -- it puts a new ``Op`` in the tree
and, for a literal or a loop count, a new constant register in a copy of the program's
register table (``lowered.program`` is replaced; the emitter prints that copy).

Kinds, the GLSL harness's where the tree has them:

* ``arith``: ADD<->SUB, MUL<->DIV; MAD's addition made a subtraction (its third operand
  negated);
* ``literal`` / ``literal-ulp``: one component of a float literal times 1.01 / moved up by one
  ulp (not of approximate opcodes and lookups, as :mod:`mutants`);
* ``swizzle``: one component of an operand's swizzle moved to the next one (only the
  components the instruction reads: the written ones of a component-wise opcode, the first of a
  scalar operand);
* ``saturate``: ``.SAT`` / ``.SSAT`` dropped;
* ``cc``: a condition-code test inverted (EQ<->NE, LT<->GE, GT<->LE, TR<->FL, NAN<->LEG ...),
  in a conditional write mask, an ``IF``/``BRK``/``CONT``/``RET``/``CAL``/``KIL`` condition;
* ``compare``: a set-on or comparison flipped (SLT<->SGE, SGT<->SLE, SEQ<->SNE, SFL<->STR, the
  ``N``/``T`` variants, TGSI's FSLT<->FSGE, FSEQ<->FSNE), MIN<->MAX, CMP's two results swapped;
* ``loop``: a literal ``REP``/``LOOP`` count one more or one fewer;
* ``texcoord``: one component of a lookup's coordinate operand moved to the next one;
* ``output``: a write of an output register dropped, or its last written component.

Classification is :mod:`mutants`' (:func:`mutants.classify`): equivalence by bit-identical
outputs on the verifier's own inputs, the permitted classes; a mutated module spirv-val
refuses is ``rejected`` (the verifier's module maker validates every direct module), and so is
a tree the emitter cannot print.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass, fields, is_dataclass, replace

import numpy as np

from ..backends.spirv_direct import NotCovered
from ..diagnostics import XlateError
from ..ir.model import CondTest, DataType, Instruction, Register, RegKind, Sat, Source
from ..ir.ops import OPCODES
from ..ir.printer import instruction_text
from ..passes.structurize import If, Jump, Loop, Op
from .glapi import GLError
from .mutants_common import Delegate, same_arguments

KINDS = ("arith", "literal", "literal-ulp", "swizzle", "saturate", "cc", "compare", "loop",
         "texcoord", "output")

_ARITH = {"ADD": "SUB", "SUB": "ADD", "MUL": "DIV", "DIV": "MUL"}
_COMPARE = {"SLT": "SGE", "SGE": "SLT", "SGT": "SLE", "SLE": "SGT", "SEQ": "SNE", "SNE": "SEQ",
            "SFL": "STR", "STR": "SFL", "SLTN": "SGEN", "SGEN": "SLTN", "SGTN": "SLEN",
            "SLEN": "SGTN", "SEQN": "SNEN", "SNEN": "SEQN", "SLTT": "SGET", "SGET": "SLTT",
            "FSLT": "FSGE", "FSGE": "FSLT", "FSEQ": "FSNE", "FSNE": "FSEQ",
            "MIN": "MAX", "MAX": "MIN"}
#: a condition-code rule and the rule true exactly where it is false (NV_gpu_program4 2.X.4.3)
_INVERSE_RULE = {"EQ": "NE", "NE": "EQ", "LT": "GE", "GE": "LT", "GT": "LE", "LE": "GT",
                 "TR": "FL", "FL": "TR", "NAN": "LEG", "LEG": "NAN", "CF": "NCF", "NCF": "CF",
                 "OF": "NOF", "NOF": "OF", "AB": "BLE", "BLE": "AB", "SF": "NSF", "NSF": "SF"}
#: opcodes whose result is approximate (compare.INEXACT) or a filtered lookup: a literal one
#: ulp off there is within the opcode's bound (mutants_glsl._within_approximation)
_APPROXIMATE = frozenset({"EX2", "LG2", "POW", "LIT", "LITNC", "SIN", "COS", "SCS", "RSQ", "EXP",
                          "LOG", "EXPA", "LOGA", "NRM", "RFL", "SQRT", "DIV", "RCP"})
#: component-wise in name but reading other components than the written ones
_NOT_ELEMENTWISE = frozenset({"DST", "LIT", "LITNC", "NRM", "RFL", "X2D", "XPD"})
_MUTANT_REG = "xl_mutant"        # the name of a mutant's new constant register


# ---- the tree --------------------------------------------------------------------------------

def walk(structured):
    """(list, index, node) of every node of the tree, in a fixed order: the main function, then
    the subroutines by name; nested bodies depth first (any node kind: ``If``, ``Loop``,
    ``Switch`` cases, the general structurizer's blocks)."""
    def body(lst):
        for i, node in enumerate(lst):
            yield lst, i, node
            if is_dataclass(node) and not isinstance(node, (Op, Instruction)):
                for f in fields(node):
                    v = getattr(node, f.name)
                    if isinstance(v, list):
                        yield from body(v)
    yield from body(structured.main.body)
    for name in sorted(structured.functions):
        yield from body(structured.functions[name].body)


def site_key(node, prog) -> tuple[str, str] | None:
    """A node's identity by content: its class and the printed text of its instruction."""
    ins = getattr(node, "ins", None)
    if not isinstance(ins, Instruction) or not isinstance(node, (Op, If, Jump, Loop)):
        return None
    return type(node).__name__, instruction_text(ins, prog)


# ---- one mutation ------------------------------------------------------------------------------

@dataclass(frozen=True)
class TreeMutation:
    """One edit of one node.  ``node``: the node that replaces the site (None: the site is
    removed); ``register``: a new constant register the new node reads (a literal, a loop
    count), added to a copy of the program's registers."""

    kind: str
    key: tuple
    occurrence: int
    node: object
    register: Register | None
    before: str
    after: str

    def apply(self, lowered) -> bool:
        """Edit ``lowered`` (a fresh lowering: its tree is not shared); False when its tree
        lacks the site (left alone)."""
        prog = lowered.program
        seen = 0
        for lst, i, node in walk(lowered.structured):
            if site_key(node, prog) != self.key:
                continue
            if seen == self.occurrence:
                if self.node is None:
                    del lst[i]
                else:
                    lst[i] = self.node
                if self.register is not None:
                    lowered.program = replace(prog, registers={**prog.registers,
                                                               self.register.name: self.register})
                return True
            seen += 1
        return False

    def describe(self) -> dict:
        return {"kind": self.kind, "before": self.before, "after": self.after,
                "occurrence": self.occurrence}

    def mutating_runner(self, inner, known=None):
        return TreeMutatingRunner(inner, self, known)


def _float_bits(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", np.float32(x)))[0]


def _float(bits: int) -> np.float32:
    return np.frombuffer(struct.pack("<I", bits & 0xFFFFFFFF), np.float32)[0]


def _literal_register(prog, src: Source):
    """The constant words an operand reads when it names a literal (a CONST register or a
    PARAM element bound to no state), else None."""
    reg = prog.registers.get(src.reg)
    if reg is None or reg.value is None:
        return None
    if reg.kind == RegKind.CONST:
        return reg, reg.value[0]
    if reg.kind == RegKind.PARAM and (src.index is None or not src.index.relative):
        k = 0 if src.index is None else src.index.offset
        if k < len(reg.bindings) and reg.bindings[k] is None and k < len(reg.value):
            return reg, reg.value[k]
    return None


def _new_constant(dtype: DataType, words) -> Register:
    return Register(name=_MUTANT_REG, kind=RegKind.CONST, dtype=dtype,
                    value=(tuple(int(w) & 0xFFFFFFFF for w in words),), implicit=True)


def _read_positions(ins: Instruction, i: int) -> list[int]:
    """The swizzle positions of operand ``i`` the instruction's result depends on."""
    info = OPCODES.get(ins.op)
    if info is None or i >= len(info.inputs):
        return [0, 1, 2, 3]
    if info.inputs[i].startswith("s"):
        return [0]
    if ins.dst is not None and info.output == info.inputs[i] and \
            ins.op not in _NOT_ELEMENTWISE:
        return [p for p in range(4) if ins.dst.mask[p]]
    return [0, 1, 2, 3]


def _swizzled(src: Source, p: int) -> Source:
    sw = list(src.swizzle)
    sw[p] = (sw[p] + 1) & 3 if sw[p] <= 3 else sw[p]
    return replace(src, swizzle=tuple(sw))


def _ins_edits(ins: Instruction, prog, kind: str):
    """(new instruction or None = drop, new register or None) for one kind at one
    instruction."""
    from ..backends.spirv_direct.alu import ALU
    kletter = {DataType.FLOAT: "f", DataType.INT: "i", DataType.UINT: "u"}.get(ins.dtype)
    if kind == "arith":
        new = _ARITH.get(ins.op)
        # MUL.HI/S24/U24 are other operations than a product: DIV has no such modes
        if new is not None and (new, kletter) in ALU and ins.mul_mode is None:
            yield ins.replace(op=new), None
        if ins.op == "MAD" and len(ins.srcs) == 3:
            c = ins.srcs[2]
            yield ins.replace(srcs=ins.srcs[:2] + (replace(c, neg=not c.neg),)), None
    elif kind == "compare":
        new = _COMPARE.get(ins.op)
        if new is not None and (new, kletter) in ALU:
            yield ins.replace(op=new), None
        if ins.op == "CMP" and len(ins.srcs) == 3:
            a, b, c = ins.srcs
            yield ins.replace(srcs=(a, c, b)), None
    elif kind in ("literal", "literal-ulp"):
        if ins.dtype != DataType.FLOAT or ins.tex is not None or ins.op not in OPCODES:
            return
        if kind == "literal-ulp" and ins.op in _APPROXIMATE:
            return
        for i, src in enumerate(ins.srcs):
            lit = _literal_register(prog, src)
            if lit is None:
                continue
            reg, words = lit
            comps = sorted({s for s in (src.swizzle[p] for p in _read_positions(ins, i))
                            if s <= 3})
            replicated = len(set(words)) == 1       # a scalar literal: one value, all changed
            for c in comps[:1] if replicated else comps:
                v = _float(words[c])
                if v == 0 or not np.isfinite(v):
                    continue
                new = np.nextafter(v, np.float32(np.inf)) if kind == "literal-ulp" \
                    else np.float32(v * np.float32(1.01))
                w = [_float_bits(new)] * 4 if replicated else list(words)
                w[c] = _float_bits(new)
                nsrc = replace(src, reg=_MUTANT_REG, index=None)
                srcs = ins.srcs[:i] + (nsrc,) + ins.srcs[i + 1:]
                yield ins.replace(srcs=srcs), _new_constant(DataType.FLOAT, w)
    elif kind == "swizzle":
        if ins.tex is not None:
            return
        for i, src in enumerate(ins.srcs):
            if _literal_register(prog, src) is not None and \
                    len(set(_literal_register(prog, src)[1])) == 1:
                continue                  # every component of a replicated literal is equal
            for p in _read_positions(ins, i):
                if src.swizzle[p] <= 3:
                    srcs = ins.srcs[:i] + (_swizzled(src, p),) + ins.srcs[i + 1:]
                    yield ins.replace(srcs=srcs), None
    elif kind == "saturate":
        if ins.sat != Sat.NONE:
            yield ins.replace(sat=Sat.NONE), None
    elif kind == "cc":
        if ins.dst is not None and ins.dst.cond is not None:
            yield ins.replace(dst=replace(ins.dst, cond=_inverted(ins.dst.cond))), None
        if ins.cond is not None:
            yield ins.replace(cond=_inverted(ins.cond)), None
    elif kind == "texcoord":
        if ins.tex is not None and ins.srcs:
            for p in range(4):
                if ins.srcs[0].swizzle[p] <= 3:
                    yield ins.replace(srcs=(_swizzled(ins.srcs[0], p),) + ins.srcs[1:]), None
    elif kind == "output":
        reg = prog.registers.get(ins.dst.reg) if ins.dst is not None else None
        if reg is None or reg.kind != RegKind.OUTPUT:
            return
        yield None, None
        written = [p for p in range(4) if ins.dst.mask[p]]
        if len(written) >= 2:
            mask = tuple(m and p != written[-1] for p, m in enumerate(ins.dst.mask))
            yield ins.replace(dst=replace(ins.dst, mask=mask)), None


def _inverted(cond: CondTest) -> CondTest:
    return replace(cond, rule=_INVERSE_RULE.get(cond.rule, cond.rule))


def _node_edits(node, prog, kind: str):
    """(new node or None = removed, new register or None) for one kind at one node."""
    if isinstance(node, Op):
        for ins, reg in _ins_edits(node.ins, prog, kind):
            yield (None if ins is None else Op(ins)), reg
    elif isinstance(node, (If, Jump)) and kind == "cc" and node.cond is not None \
            and node.cond.rule in _INVERSE_RULE:
        # the node's test (a CondTest, or a ValueTest the condcodes pass forwarded to the
        # written register) and the instruction's own CondTest, each inverted
        ins = node.ins.replace(cond=_inverted(node.ins.cond)) if node.ins.cond is not None \
            else node.ins
        yield replace(node, cond=_inverted(node.cond), ins=ins), None
    elif isinstance(node, Loop) and kind == "loop" and node.count is not None:
        lit = _literal_register(prog, node.count)
        if lit is None:
            return
        reg, words = lit
        c = node.count.swizzle[0]
        if c > 3:
            return
        for step in (1, -1):
            if node.ins.dtype == DataType.FLOAT:
                new = _float_bits(_float(words[c]) + step)
            else:
                new = (words[c] + step) & 0xFFFFFFFF
            w = [new] * 4 if len(set(words)) == 1 else list(words)
            w[c] = new
            count = replace(node.count, reg=_MUTANT_REG, index=None)
            yield replace(node, count=count), _new_constant(node.ins.dtype, w)


def _describe(node, prog, register) -> str:
    if node is None:
        return "(removed)"
    if register is not None:
        prog = replace(prog, registers={**prog.registers, register.name: register})
    ins = node.ins
    if isinstance(node, Loop) and node.count is not None and len(ins.srcs) == 1:
        ins = ins.replace(srcs=(node.count,))      # the REP's operand is the count
    return instruction_text(ins, prog)


def _read_registers(structured) -> set[str]:
    """Every register some node reads: operands, relative indices, loop counts, selectors."""
    out: set[str] = set()

    def note(src):
        if isinstance(src, Source):
            out.add(src.reg)
            for idx in (src.index, src.vertex):
                if idx is not None and idx.reg:
                    out.add(idx.reg)
    for _, _, node in walk(structured):
        ins = getattr(node, "ins", None)
        if isinstance(ins, Instruction):
            for s in ins.srcs:
                note(s)
            if ins.dst is not None and ins.dst.index is not None and ins.dst.index.reg:
                out.add(ins.dst.index.reg)
        for name in ("count", "selector"):
            note(getattr(node, name, None))
    return out


def _dead(node, prog, read: set[str], lv) -> bool:
    """An instruction whose only effect is a temporary no later node reads (the middle end's
    liveness of single-vec4 temporaries, ``passes/liveness.py``, over-approximating what is
    read; other temporaries: read by no node at all): every mutant of it is equivalent by
    construction."""
    if not isinstance(node, Op) or node.ins.dst is None or node.ins.cc_update is not None:
        return False
    dst = node.ins.dst
    reg = prog.registers.get(dst.reg)
    if reg is None or reg.kind != RegKind.TEMP:
        return False
    if dst.reg not in read:
        return True
    if dst.reg in lv.tracked and dst.index is None:
        live = lv.live_after(node.ins)
        return not any(dst.mask[p] and live & lv.bit(dst.reg, p) for p in range(4))
    return False


def candidates(lowered, kinds=KINDS) -> tuple[dict[str, list[TreeMutation]], int]:
    """Every mutation of the lowered tree, per kind, and how many mutations instructions that
    only write a temporary no later node reads would have had (equivalent by construction,
    not run: :func:`_dead`)."""
    prog = lowered.program
    st = lowered.structured
    read = _read_registers(st)
    from ..passes.liveness import liveness
    lv = liveness(st)
    seen: dict[tuple, int] = {}
    out: dict[str, list[TreeMutation]] = {k: [] for k in kinds}
    dead = 0
    for _, _, node in walk(st):
        key = site_key(node, prog)
        if key is None:
            continue
        occ = seen.get(key, 0)
        seen[key] = occ + 1
        is_dead = _dead(node, prog, read, lv)
        for kind in kinds:
            for new, reg in _node_edits(node, prog, kind):
                if is_dead:
                    dead += 1
                    continue
                after = _describe(new, prog, reg)
                if after != key[1] or new is None:
                    out[kind].append(TreeMutation(kind, key, occ, new, reg, key[1], after))
    return out, dead


def program_candidates(program, profile: str, kinds=KINDS):
    from ..passes.pipeline import lower
    return candidates(lower(program, profile=profile), kinds)


# ---- the runner --------------------------------------------------------------------------------

class TreeMutatingRunner(Delegate):
    """The real runner; every direct SPIR-V module it is asked to run (``direct=`` maker:
    :func:`xlate.verify.direct_check.direct_module`) is emitted from the tree with
    ``mutation`` made.
    Runs of GLSL (glslang's SPIR-V, the probes' shaders) are the other translation: unchanged.

    ``known``: (stage, GLSL, lanes, keyword arguments, capture) of the harness's equivalence
    run of this mutant; a call of the direct module with exactly those arguments gets that
    capture (as :class:`mutants_glsl.MutatingRunner`)."""

    def __init__(self, inner, mutation: TreeMutation, known=None):
        super().__init__(inner)
        self.mutation = mutation
        self.applied = 0            # direct modules that contained the mutated node
        self.known = known
        self.reused = 0

    def _mutated_maker(self, maker):
        def make(instrumentation):
            hit = []

            def edit(lowered):
                hit.append(self.mutation.apply(lowered))
            try:
                words = maker(replace(instrumentation, tree_edit=edit))
            except (NotCovered, XlateError) as e:
                # a tree the emitter refuses to print is a rejected mutant, as a module
                # spirv-val refuses (the maker raises GLError for that one)
                raise GLError(f"the mutated tree is not printed: {e}") from None
            self.applied += any(hit)
            return words
        return make

    def run(self, stage, glsl, reflection, lanes, **kw):
        maker = kw.get("direct")
        if maker is None:
            return self.inner.run(stage, glsl, reflection, lanes, **kw)
        if self.known is not None:
            k_stage, k_glsl, k_lanes, k_kw, k_cap = self.known
            rest = {k: v for k, v in kw.items() if k != "direct"}
            k_rest = {k: v for k, v in k_kw.items() if k != "direct"}
            if (stage, glsl, lanes) == (k_stage, k_glsl, k_lanes) and "direct" in k_kw \
                    and same_arguments(rest, k_rest):
                self.reused += 1
                self.applied += 1     # the capture is the mutated module's: it differed
                return k_cap
        return self.inner.run(stage, glsl, reflection, lanes,
                              **dict(kw, direct=self._mutated_maker(maker)))
