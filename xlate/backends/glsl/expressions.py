"""Expressions instead of one statement per instruction: the temporaries policy and the
precedence-aware placement of one expression inside another.

**The policy** (:func:`plan_temporaries`, the one place that decides; naga's
``Expression::bake_ref_count`` is the model).  The value an instruction computes is *inlined* --
printed as an expression inside the one instruction that reads it, and never stored -- when all
of these hold; otherwise it is *baked*: stored in its register, as every value was before.

* it is held in a plain temporary (one vec4 TEMP: no output, nothing observable, no array that
  relative addressing could reach), written without a condition mask and without a condition-
  code update anything tests, in the register's own type, by an instruction the printer writes
  as one assignment of one expression (:meth:`Expressions.value_form`);
* exactly one operand of one later instruction of the same straight-line run reads it (no
  control flow in between; a value read twice, or read across a branch, a loop or a call, is
  baked), reads only components the value has, and is printed from the register as it is (no
  extended swizzle selectors);
* after that reader the written components are dead (``passes/liveness.py``) or overwritten by
  the reader itself;
* nothing between the two writes a component the expression reads (the inlined values it holds
  included), there is no EMIT/ENDPRIM in between, and no KIL/DEMOTE for a texture lookup or a
  derivative (moved past a discard it would run in non-uniform control flow);
* the reader is at most :data:`REACH` instructions later (a person does not inline further, and
  it keeps the policy linear).

**Exactness.**  Every register is ``precise``, and glslang marks NoContraction on every operation
whose result flows into a precise variable -- through operators, constructors and function
arguments, but *not* through a swizzle of an rvalue (``(a * b + c).x``: measured with glslang
13.1, and the reason the narrowed writes exist).  So a value with arithmetic is inlined only
into an operand printed where no swizzle of an rvalue is above it
(:meth:`Expressions.takes_arithmetic`), and the printer checks each statement that took one
(:func:`arithmetic_under_swizzle`, and a masked write that would need a precise temporary): where
one landed under such a swizzle anyway, those values are baked after all -- their own statements
printed before the reader, the same program (the reader is the first to read them, nothing in
between writes what they read) -- and the reader itself is then printed where it stands, since
the policy moved it on the understanding that it read their expressions.  A literal the GLSL
compiler folds with other constants (:func:`folded_operand`) is printed with its exact value,
a moved literal inlined there too (:func:`folded_spelling`): glslang folds ``1.0 / 2.2`` in double
precision from the decimal text, one ulp from the program's RCP of the float 2.2 (the direct
SPIR-V path, which divides the float, departed from it).  NaN-pinning helpers
and the condition-code lowering are untouched: an inlined expression is the very text its
statement would have assigned.  tests/test_glsl_expressions.py checks the SPIR-V of our corpus.

**Precedence** (:func:`place`): an inlined expression is parenthesized only where the operator
around it binds tighter (GLSL 4.50 §5.1), or as tightly on the right of a non-associative
operator (``a - (b + c)``; float addition does not associate).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from ...ir.model import DataType, Instruction, RegKind, Sat, Stage
from ...ir.ops import BIT_MOVES, LANE_OPS, OPCODES
from ...passes.liveness import liveness, tree_bodies
from ...passes.structurize import Op, Structured
from ...passes.types import RAW_OPERAND_OPS, result_type

from .text import COMP, TYPE_CHAR, exact_float_literal, log2_literal

def written_as_scalar(ins: Instruction, rtype: DataType) -> bool:
    """Whether an unconditional write of ``ins`` without a tested CC update is printed as one
    scalar, replicated into the write mask (``write_scalar``: ``r.xz = vec2(e);``): a scalar
    result (DP3, RCP, the packs), saturated or converted at one component where it is a float
    (``xl_sat(xl_dp3(a, b))``)."""
    scalar = OPCODES[ins.op].scalar_result
    return scalar and (ins.sat == Sat.NONE or rtype == DataType.FLOAT)


# ---- precedence ------------------------------------------------------------------------------------

PRIMARY = 17           # names, literals, calls, constructors, subscripts, swizzles
UNARY = 15             # -x, ~x, !x
#: binary operators of GLSL 4.50 §5.1 (higher binds tighter)
BINARY = {"*": 14, "/": 14, "%": 14, "+": 13, "-": 13, "<<": 12, ">>": 12,
          "<": 11, ">": 11, "<=": 11, ">=": 11, "==": 10, "!=": 10, "&": 9, "^": 8, "|": 7,
          "&&": 6, "^^": 5, "||": 4, "?": 3, ":": 3}
_TOKEN = re.compile(r"[()\[\]]|(?<= )(?:<<|>>|<=|>=|==|!=|&&|\^\^|\|\||[-+*/%<>&^|?:])(?= )")


def precedence(text: str) -> int:
    """Precedence of the operator that binds ``text`` last (PRIMARY for a name, call, literal...).
    Binary operators are recognised by the spaces the printer puts around them."""
    depth = 0
    low = PRIMARY
    for m in _TOKEN.finditer(text):
        tok = m.group(0)
        if tok in "([":
            depth += 1
        elif tok in ")]":
            depth -= 1
        elif depth == 0:
            low = min(low, BINARY[tok])
    if low == PRIMARY and text[:1] in "-~!" and not _NUMBER.fullmatch(text):
        return UNARY
    return low


_NUMBER = re.compile(r"-?\d[\w.]*")


def _neighbour(template: str, start: int, end: int) -> tuple[str, str]:
    """The operator text just left of ``template[start:end]`` and just right of it."""
    left = template[:start].rstrip()
    right = template[end:].lstrip()
    lm = re.search(r"(<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%<>&^|?:~!(\[,])$", left)
    rm = re.match(r"(<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%<>&^|?:)\],.])", right)
    return (lm.group(1) if lm else ""), (rm.group(1) if rm else "")


def slot_needs(template: str, start: int, end: int) -> tuple[int, bool]:
    """(precedence an expression needs at ``template[start:end]`` to go without parentheses,
    whether it may not start with '-')."""
    left, right = _neighbour(template, start, end)
    need = 0
    if right == ".":
        return PRIMARY, False                      # a swizzle of it
    if right in BINARY:
        need = BINARY[right]                       # its left operand (left-associative)
    unary_left = left in ("~", "!") or (left == "-" and _unary_minus(template, start))
    if unary_left:
        return max(need, UNARY), True
    if left in BINARY:
        need = max(need, BINARY[left] + 1)         # its right operand: tighter, a - (b + c)
    return need, False


def _unary_minus(template: str, start: int) -> bool:
    before = template[:start].rstrip()[:-1].rstrip()
    return before == "" or before[-1] in "(,=" or before.endswith(("*", "/", "+", "-"))


def place(text: str, need: int, no_minus: bool = False) -> str:
    """``text`` where an expression of precedence ``need`` is wanted: parenthesized if its own
    operator binds more loosely (or it starts with '-' after a unary minus: never '--')."""
    if no_minus and text.startswith("-"):
        return f"({text})"
    if need <= UNARY and " " not in text:
        return text                # a name, literal, swizzle or unary: binds tightly enough
    if need and precedence(text) < need:
        return f"({text})"
    return text


_SLOTS: dict[str, tuple] = {}


def _slots(template: str) -> tuple:
    """The template cut at its ``{a}``..``{d}`` slots: (text before, slot letter, need,
    no_minus) per slot, and the text after the last (cached: ops.txt has ~100 templates)."""
    parts = []
    pos = 0
    for m in re.finditer(r"\{(\w)\}", template):
        parts.append((template[pos:m.start()], m.group(1)) + slot_needs(template, m.start(), m.end()))
        pos = m.end()
    return tuple(parts), template[pos:]


def fill(template: str, values: dict[str, str]) -> str:
    """``template.format(**values)`` with each value parenthesized only where its slot needs it."""
    cut = _SLOTS.get(template)
    if cut is None:
        cut = _SLOTS[template] = _slots(template)
    out = []
    for before, letter, need, no_minus in cut[0]:
        out.append(before)
        out.append(place(values.get(letter, ""), need, no_minus))
    out.append(cut[1])
    return "".join(out)


_SWIZZLE_AFTER = re.compile(r"\)\.[xyzw]{1,4}\b")
_ARITHMETIC = re.compile(r" [-+*/] ")


def arithmetic_under_swizzle(statement: str, inlined: list[str]) -> bool:
    """True when one of the ``inlined`` expressions that holds arithmetic sits inside a
    parenthesized group or call that is then swizzled (``texture(s, a * b).xy``,
    ``(a * b + c).x``): glslang would not mark those operations NoContraction."""
    texts = [t for t in inlined if _ARITHMETIC.search(t)]
    if not texts:
        return False
    for m in _SWIZZLE_AFTER.finditer(statement):
        depth = 0
        i = m.start()
        while i >= 0:
            depth += {")": 1, "(": -1}.get(statement[i], 0)
            if depth == 0:
                break
            i -= 1
        group = statement[i:m.start() + 1]
        if any(t in group for t in texts):
            return True
    return False


# ---- the policy --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class ValueForm:
    """How the printer writes an instruction's value: the components of its register it sets,
    and whether it is one scalar replicated into all of them."""
    reg: str
    comps: tuple[int, ...]
    scalar: bool


@dataclass
class Plan:
    """The policy's decisions: ``inlined[id(D)]`` is the (reader, operand index) that prints
    the value of instruction D; ``readers[id(U)]`` the instructions whose values U takes."""
    inlined: dict[int, tuple[Instruction, int]] = field(default_factory=dict)
    readers: dict[int, list[Instruction]] = field(default_factory=dict)
    taken: dict[tuple[int, int], Instruction] = field(default_factory=dict)   # (id(U), k) -> D
    forms: dict[int, ValueForm] = field(default_factory=dict)                  # id(D) -> form
    repeated: set[int] = field(default_factory=set)   # instructions the tree holds twice or more


def plan_temporaries(emitter, st: Structured) -> Plan:
    """Decide, for every instruction of the tree, whether its value is inlined or baked (the
    rules are in the module docstring)."""
    plan = Plan()
    live = getattr(emitter, "liveness", None) or liveness(st)     # the deadcode pass's
    storage = _Storage(emitter.prog)
    # an instruction object the tree holds in more than one place (the general structurizer's
    # expansion of calls and branches repeats them) is printed more than once: the decisions,
    # keyed by the object, would mix its places -- such values keep their statements
    seen: set[int] = set()
    for body in tree_bodies(st):
        for node in body:
            if isinstance(node, Op):
                key = id(node.ins)
                (plan.repeated if key in seen else seen).add(key)
    for body in tree_bodies(st):
        run: list[Instruction] = []
        for node in body + [None]:
            if isinstance(node, Op):
                run.append(node.ins)
                continue
            if len(run) > 1:
                _plan_run(emitter, run, live, storage, plan)
            run = []
    return plan


class _Storage:
    """Bits for (storage, component) of every register, for the "nothing in between writes what
    it reads" rule: output registers bound to one result (an OUTPUT variable and the result it
    names) share their bits; an indexed write sets every bit of its register."""

    def __init__(self, prog):
        self.base: dict[str, int] = {}
        shared: dict = {}
        for name, reg in prog.registers.items():
            key = name
            if reg.kind == RegKind.OUTPUT and reg.bindings and reg.bindings[0] is not None:
                key = ("output", reg.bindings[0].path)
            if key not in shared:
                shared[key] = 4 * len(shared)
            self.base[name] = shared[key]
        self._writes: dict[int, int] = {}

    def source(self, src) -> int:
        base = self.base[src.reg]
        out = 0
        for c in src.swizzle:
            if c < 4:
                out |= 1 << (base + c)
        for idx in (src.index, src.vertex):
            if idx is not None and idx.reg is not None:
                out |= 1 << (self.base[idx.reg] + idx.comp)
        return out

    def writes(self, ins: Instruction) -> int:
        out = self._writes.get(id(ins))
        if out is None:
            d = ins.dst
            if d is None:
                out = 0
            else:
                m = (15 if d.index is not None
                     else d.mask[0] | d.mask[1] << 1 | d.mask[2] << 2 | d.mask[3] << 3)
                out = m << self.base[d.reg]
            self._writes[id(ins)] = out
        return out


def _plan_run(emitter, run: list[Instruction], live, storage: _Storage, plan: Plan) -> None:
    arith: dict[int, bool] = {}         # id(D) -> its inlined expression holds arithmetic
    reads_of: dict[int, int] = {}       # id(D) -> storage bits its expression reads
    depth_of: dict[int, int] = {}       # id(D) -> how many values its expression nests
    # per instruction of the run: tracked components read, storage written, a boundary for
    # values of lookups and derivatives (-1: one for every value)
    # the analysis's own tables where it met the instruction (every instruction of a run
    # it follows), its functions otherwise
    read_bits, killed, after_of, everything = live.read_bits, live.killed, live.after, live.everything
    reads = [read_bits[id(u)] if id(u) in read_bits else live.reads(u) for u in run]
    writes = [storage.writes(u) for u in run]
    kills = [killed[id(u)] if id(u) in killed else live.kills(u) for u in run]
    after = [after_of.get(id(u), everything) for u in run]
    fence = [_FENCE.get(u.op, 0) for u in run]
    repeated, taken_of = plan.repeated, plan.taken
    n = len(run)
    for i, d in enumerate(run):
        kill = kills[i]
        if not kill & after[i] or id(d) in repeated:
            continue       # untracked, never read (dead), written conditionally, or repeated
        expr_reads = 0
        nesting = 1
        for k, s in enumerate(d.srcs):
            taken = taken_of.get((id(d), k)) if taken_of else None
            if taken is not None:
                expr_reads |= reads_of[id(taken)]
                nesting = max(nesting, depth_of.get(id(taken), 1) + 1)
            else:
                expr_reads |= storage.source(s)
        reads_of[id(d)] = expr_reads
        depth_of[id(d)] = nesting
        if nesting >= MAX_NESTING:
            continue       # a chain of values each read once: a person names one now and then
        # the first later instruction that reads one of the written components
        derivative = OPCODES[d.op].category == "tex" or d.op in ("DDX", "DDY")
        own = writes[i]
        j = i + 1
        end = min(n, i + 1 + REACH)
        while j < end and not reads[j] & kill:
            if fence[j] and (fence[j] < 0 or derivative):
                break
            if writes[j] & (expr_reads | own):
                break          # what it reads changes first, or it is overwritten unread
            j += 1
        if j == end or not reads[j] & kill:
            continue
        u = run[j]
        if id(u) in repeated:
            continue
        # the cheap tests first (each one alone keeps the value in its register)
        if kill & after[j] & ~kills[j]:
            continue                              # read again later: baked
        form = emitter.value_form(d)
        if form is None:
            continue
        k = _one_operand(emitter, u, d.dst.reg, d.dst.mask)
        if k is None:
            continue
        arithmetic = emitter.value_arithmetic(d) or any(
            arith.get(id(t), False) for t in plan.readers.get(id(d), ()))
        arith[id(d)] = arithmetic
        if arithmetic and not emitter.takes_arithmetic(u, k):
            continue                              # it would sit under a swizzle: see Exactness
        plan.inlined[id(d)] = (u, k)
        plan.readers.setdefault(id(u), []).append(d)
        plan.taken[(id(u), k)] = d
        plan.forms[id(d)] = form


_FENCE = {"EMIT": -1, "ENDPRIM": -1, "KIL": 1, "DEMOTE": 1}


def literal_source(prog, src) -> bool:
    """Whether the printer writes the operand as a literal (``operands.const_operand``): a
    literal constant, or a PARAM element bound to no state."""
    reg = prog.registers[src.reg]
    return reg.kind == RegKind.CONST or (reg.kind == RegKind.PARAM and (
        reg.bindings[0] is None if src.index is None
        else not src.index.relative and reg.bindings[src.index.offset] is None))


def folded_operand(prog, ins: Instruction, k: int, taken=None) -> bool:
    """Whether the GLSL compiler folds operand ``k`` of ``ins`` with constants when it is a
    literal: every other operand is a literal too (``taken``: the plan's inlined operands,
    which are not), or it is POW's base (``exp2(b * log2(a))``: the log2 of a literal folds
    alone).  glslang folds in double precision from the literals' decimal text, so such a
    literal is printed with its exact value (``text.exact_float_literal``; see Exactness).  A
    bit move (MOV) folds nothing itself."""
    info = OPCODES[ins.op]
    if ins.op in BIT_MOVES or info.category in ("tex", "mem", "flow"):
        return False
    if ins.op == "POW" and k == 0:
        return True
    return _others_literal(prog, ins, k, taken)


def _others_literal(prog, ins: Instruction, k: int, taken) -> bool:
    return all(literal_source(prog, s) and (taken is None or (id(ins), j) not in taken)
               for j, s in enumerate(ins.srcs) if j != k)


def folded_spelling(prog, ins: Instruction, k: int, taken=None, inlined=None):
    """How the printer spells float literals of operand ``k`` (:func:`folded_operand`): None
    where nothing folds them; ``text.log2_literal`` for POW's base beside a run-time
    exponent (only its log2 folds: the short spelling stays where its log2 rounds to the same
    float, as cgc's e = 2.718282 does); ``text.exact_float_literal`` otherwise.  A move of
    literals whose value the plan inlines (``inlined``: Plan.inlined) is spelled as its
    reader's operand would be: 'MOV R1.x, {2.2}; RCP R0.x, R1.x;' prints '1.0 /
    2.200000047683716'."""
    if ins.op in BIT_MOVES and inlined is not None and id(ins) in inlined and \
            _others_literal(prog, ins, -1, taken):
        reader, j = inlined[id(ins)]
        return folded_spelling(prog, reader, j, taken, inlined)
    if not folded_operand(prog, ins, k, taken):
        return None
    if ins.op == "POW" and k == 0 and not _others_literal(prog, ins, k, taken):
        return log2_literal
    return exact_float_literal

#: how far (in instructions) a value may travel to its reader: a person does not inline across
#: more either, and it keeps the policy linear in the length of a run
REACH = 48
#: how many inlined values an expression may nest: a chain of instructions each reading the
#: last one's value (ADD R0, R0, 1 repeated) would otherwise become one expression as deep as
#: the program -- unreadable, and quadratic to print (tests/test_limits.py)
MAX_NESTING = 6


def _one_operand(emitter, u: Instruction, reg: str, mask) -> int | None:
    """The operand of ``u`` that takes the value written into the components ``mask`` of
    ``reg``, if it is the only reader of them in ``u`` and reads them whole-heartedly (only
    components the value has, in a form the printer can take); else None."""
    hit = None
    for k, s in enumerate(u.srcs):
        if s.reg == reg and any(c < 4 and mask[c] for c in s.swizzle):
            if hit is not None:
                return None                # read twice
            hit = k
        if (s.index is not None and s.index.reg == reg) or \
                (s.vertex is not None and s.vertex.reg == reg):
            return None                    # read as an index
    if hit is None:
        return None
    if u.dst is not None and u.dst.index is not None and u.dst.index.reg == reg:
        return None
    comps = emitter.printed_components(u, hit)
    if comps is None or not all(c < 4 and mask[c] for c in comps):
        return None
    return hit


class Expressions:
    """Part of :class:`~xlate.backends.glsl.emitter.GlslEmitter` (mixed in): the print forms the
    policy asks about."""

    def value_form(self, ins: Instruction) -> ValueForm | None:
        """The value ``ins`` stores, when the printer writes it as one expression assigned to a
        plain register (see :class:`ValueForm`); None for every other form."""
        dst = ins.dst
        if dst is None or dst.index is not None or (dst.cond is not None and dst.cond.rule != "TR"):
            return None
        reg = self.prog.registers[dst.reg]
        if reg.kind != RegKind.TEMP or reg.size is not None:
            return None
        if ins.cc_update is not None and ins.cc_update in self.cc_used:
            return None
        if ins.op in RAW_OPERAND_OPS or ins.mul_mode == "HI":
            return None
        rtype = result_type(ins)
        if rtype != self.storage_type(dst.reg):
            return None
        info = OPCODES[ins.op]
        comps = tuple(c for c in range(4) if dst.mask[c])
        if info.category == "tex":
            if ins.op not in ("TEX", "TXL", "TXB", "TXD", "TXF") or ins.tex.target.startswith("SHADOW"):
                return None
            return ValueForm(dst.reg, comps, False)
        if ins.op in ("KIL", "DEMOTE", "EMIT", "ENDPRIM") or info.category == "flow":
            return None
        if ins.op == "CLOCK" or ins.op in LANE_OPS:
            # read where it stands: inlined, clock reads could reorder, and an inter-lane
            # operation could move under a condition (other active invocations)
            return None
        if ins.op in ("DDX", "DDY") and self.stage != Stage.FRAGMENT:
            return None
        if self.snippet(ins.op, TYPE_CHAR[ins.dtype]) is None:
            return None
        # write_scalar's form, else an expression of the written components (write(): one
        # assignment of 'value.mask'; where write() needs a temporary instead, it keeps no
        # value and the instruction is printed where it stands)
        return ValueForm(dst.reg, comps, written_as_scalar(ins, rtype))

    def value_arithmetic(self, ins: Instruction) -> bool:
        """Whether the expression of ``ins`` itself (its inlined operands aside) has binary
        arithmetic, the operations NoContraction is about."""
        if OPCODES[ins.op].category == "tex":
            return False
        key = ins.op if ins.mul_mode != "HI" else "MUL.HI"
        entry = self.snippet(key, TYPE_CHAR[ins.dtype])
        return entry is None or bool(_ARITHMETIC.search(entry[0])) or ins.sat != Sat.NONE \
            or ins.precision in ("FP16", "X")

    def takes_arithmetic(self, ins: Instruction, k: int) -> bool:
        """Whether operand ``k`` of ``ins`` is printed where arithmetic keeps NoContraction:
        not under a swizzle of an rvalue (the result's write-mask swizzle, or the template's own
        ``{c}.x``), and not into a masked write that needs a precise temporary."""
        dst = ins.dst
        if ins.op == "KIL":
            return True
        full = dst is not None and all(dst.mask)
        if OPCODES[ins.op].category == "tex":
            return full and k == 0
        key = ins.op if ins.mul_mode != "HI" else "MUL.HI"
        entry = self.snippet(key, TYPE_CHAR[ins.dtype])
        if entry is None or ("{" + "abcd"[k] + "}.") in entry[0]:
            return False
        if entry[1]:
            # an argument of a helper function: glslang carries 'precise' into the argument
            # (NoContraction, measured), Mesa's GLSL compiler does not -- it inlines the
            # helper into a parameter temporary that is not precise, and folds the argument:
            # 'xl_cmp(R4.www, R5.www * (-R1.xyz + R0.xyz) + R1.xyz, R1.xyz)' came out 1 ulp
            # off on llvmpipe where the same expression as a statement, or inside 'mix', was
            # exact (cg arbfp1 xbr-lv3-pass1, inputs seed 21; test_glsl_precise_arguments)
            return False
        info = OPCODES[ins.op]
        scalar = info.scalar_result
        if scalar:
            return ins.sat == Sat.NONE and (dst is None or dst.cond is None)
        return full or self.narrowed_components(ins) is not None

    def printed_components(self, ins: Instruction, k: int) -> tuple[int, ...] | None:
        """The register components operand ``k`` of ``ins`` is printed as reading, in order
        (None: a form that cannot take an inlined value)."""
        s = ins.srcs[k]
        if any(c > 3 for c in s.swizzle) or True in s.comp_neg:
            return None
        if ins.cc_update is not None and ins.cc_update in self.cc_used \
                and ins.cc_update not in self.cc_values:
            return None            # flag words read the operands a second time (cc_flags)
        info = OPCODES[ins.op]
        if info.category == "tex":
            if k != 0:                 # TXD's derivatives, read once each
                return tuple(s.swizzle) if ins.op == "TXD" else None
            comps = self.coord_components(ins)  # other coordinates are read more than once
            return None if comps is None else tuple(s.swizzle[c] for c in comps)
        if ins.op in ("KIL",):
            return tuple(s.swizzle)
        if ins.op in RAW_OPERAND_OPS:
            return None                # the operand is loaded a second time (its bits)
        key = ins.op if ins.mul_mode != "HI" else "MUL.HI"
        entry = self.snippet(key, TYPE_CHAR[ins.dtype])
        if entry is None or entry[0].count("{" + "abcd"[k] + "}") != 1:
            return None                # printed twice (DPH's {b}): the value is baked
        scalar_in = k < len(info.inputs) and info.inputs[k] == "s"
        if scalar_in:
            return (s.swizzle[0],)
        comps = self.narrowed_components(ins)
        if comps is not None:
            return tuple(s.swizzle[c] for c in comps)
        return tuple(s.swizzle)

    def coord_components(self, ins: Instruction) -> tuple[int, ...] | None:
        """The coordinate components a lookup reads, when it reads a prefix of them and nothing
        else of that operand (TEX/TXD of the plain targets): the coordinate is then printed
        narrowed, ``texture(s, R0.xy)``, and can be an inlined expression."""
        if ins.op not in ("TEX", "TXD"):
            return None
        if self.vulkan and ins.tex.target == "RECT":
            return None
        n = {"1D": 1, "2D": 2, "3D": 3, "CUBE": 3, "RECT": 2, "ARRAY1D": 2, "ARRAY2D": 3}.get(
            ins.tex.target)
        return None if n is None else tuple(range(n))

    def inlined_arithmetic(self) -> bool:
        """True when an inlined value with arithmetic is part of the instruction being printed
        (then a masked write bakes it rather than go through a precise temporary)."""
        if any(_ARITHMETIC.search(self.values[id(d)][0]) for d in self.consumed if id(d) in self.values):
            self.needs_temporary = True
            return True
        return False

    def keep_value(self, ins: Instruction, text: str) -> None:
        """The printer's note of the expression ``ins`` assigns, when the policy inlines it."""
        form = self.temporaries.forms.get(id(ins))
        if form is not None:
            self.values[id(ins)] = (text, form)

    def print_op(self, ins: Instruction, pad: str) -> tuple[list[str], list[str]]:
        """The statements of one instruction: (statements of values baked here after all, already
        tagged with their own lines; the instruction's own lines).  An instruction whose value
        is inlined prints nothing here: its text waits in ``values`` for its reader, and its
        statements in ``waiting`` in case the reader cannot take it (:func:`arithmetic_under_swizzle`)."""
        self.consumed = []
        self.needs_temporary = False
        lines = self.emit_ins(ins)
        readers = self.temporaries.readers.get(id(ins))
        if readers is None and id(ins) not in self.values:
            return [], lines            # the usual case: it takes no value and keeps its own
        if self.consumed:
            texts = [self.values[id(d)][0] for d in self.consumed]
            if self.needs_temporary or arithmetic_under_swizzle("\n".join(lines), texts):
                for d in self.consumed:
                    if _ARITHMETIC.search(self.values[id(d)][0]):
                        del self.values[id(d)]
                self.consumed = []
                lines = self.emit_ins(ins)
        before: list[str] = []          # values baked here after all (their own statements)
        notes: list[str] = []           # with comments: the instructions inlined here
        taken = {id(d) for d in self.consumed}
        for d in readers or ():
            waiting = self.waiting.pop(id(d), None)
            self.values.pop(id(d), None)
            if id(d) not in taken and waiting is not None:
                before += waiting
            elif id(d) in taken:
                notes += self.waiting_comments.pop(id(d), [])
        if readers is not None and len(taken) < len(readers):
            # a value it was to take is in its register after all: then this instruction is
            # printed where it stands, as the policy moved it on the understanding that it
            # read what those values read, not their registers
            self.values.pop(id(ins), None)
        if id(ins) in self.values:
            from ...passes.structurize import Op
            self.waiting[id(ins)] = self.tag_lines(Op(ins), [pad + x for x in lines], pad)[0]
            if self.comments:
                self.waiting_comments[id(ins)] = notes + [
                    x for x in self.waiting[id(ins)] if x.lstrip().startswith("//")]
            return before, []
        return before + notes, lines

    def inlined_operand(self, read, sel: tuple[int, ...], scalar: bool) -> str | None:
        """The text of an operand that takes an inlined value (``read`` = (instruction, operand
        index)), selecting the register components ``sel``; None when it is read from the
        register."""
        d = self.temporaries.taken.get((id(read[0]), read[1]))
        if d is None:
            return None
        value = self.values.get(id(d))
        if value is None:
            return None
        text, form = value
        self.consumed.append(d)
        if form.scalar or len(form.comps) == 1:      # one value, replicated as read
            n = 1 if scalar else len(sel)
            if n == 1:
                return text
            vector = f"{_vec(form, self.storage_type(form.reg), n)}({text})"
            self.splats[vector] = text           # as a scalar in operator expressions
            return vector
        pos = [form.comps.index(c) for c in sel]
        if scalar:
            pos = pos[:1]
        if pos == list(range(len(form.comps))):
            return text
        inner = _TRAILING_SWIZZLE.fullmatch(text)
        if inner and precedence(inner.group(1)) == PRIMARY:   # texture(s, c).xyz then .x: one swizzle, texture(s, c).x
            return f"{inner.group(1)}.{''.join(inner.group(2)[p] for p in pos)}"
        return f"{place(text, PRIMARY)}.{''.join(COMP[p] for p in pos)}"


_TRAILING_SWIZZLE = re.compile(r"(.*\))\.([xyzw]{1,4})")


def _vec(form: ValueForm, dtype: DataType, n: int) -> str:
    return {DataType.FLOAT: "vec", DataType.INT: "ivec", DataType.UINT: "uvec"}[dtype] + str(n)
