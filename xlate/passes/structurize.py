"""Structured control flow from the linear IR.

NV4 (and later FP2/TGSI) programs are already structured: IF/ELSE/ENDIF and REP/ENDREP nest,
BRK/CONT leave the innermost REP, CAL/RET call label-delimited subroutines.  This pass builds
the tree those opcodes describe and splits the program into functions:

* the main function runs from ``Program.entry`` to the next label position;
* every label position starts a subroutine that runs to the next label position (the frontend
  put an explicit RET there); several labels at one position name the same subroutine;
* code that no label or entry reaches is dropped;
* recursion is reported (GLSL has none); the GLSL backend then asks again with
  ``allow_recursion`` and emits one copy of each subroutine per call depth.

Programs whose labels do not only start subroutines (VP2 and the ARB vertex options: BRA,
labels execution falls into, PUSHA/POPA, a call-depth limit that ends the program) take the
general path at the end of this module (``structurize_general``): calls inlined, reducible
graphs structured with blocks/loops/gotos (Ramsey), irreducible ones as a dispatch loop.
``Structured.mode`` says which path ran ("functions", "structured", "dispatch").
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass, field

from dataclasses import replace

from ..ir.model import (MAX_CALL_DEPTH, CCKind, CondTest, DataType, Dest, Instruction, Program,
                        Register, RegKind, Source)
from ..ir.ops import OPCODES


@dataclass
class Op:
    ins: Instruction


@dataclass
class If:
    cond: CondTest
    then: list
    orelse: list
    ins: Instruction


@dataclass
class Loop:
    count: Source | None          # None: loop until BRK/RET
    ins: Instruction              # the REP (data type of the count)
    body: list


@dataclass
class Case:
    """One run of CASE/DEFAULT labels and the statements after them (TGSI SWITCH)."""

    values: list[int]             # CASE constants (unsigned)
    default: bool
    body: list


@dataclass
class Switch:
    selector: Source              # unsigned, component swizzle[0]
    ins: Instruction
    cases: list[Case]


@dataclass
class Jump:
    kind: str                     # break | continue | return | call
    cond: CondTest | None
    ins: Instruction
    target: str | None = None     # call: function name


@dataclass
class Function:
    name: str
    labels: list[str]
    body: list
    start: int


@dataclass
class Structured:
    program: Program
    main: Function
    functions: dict[str, Function] = field(default_factory=dict)   # subroutines by function name
    order: list[str] = field(default_factory=list)                  # emission order (callees first)
    mode: str = "functions"      # functions | structured | dispatch (the general path's result)
    limit: int | None = None     # general path: iteration guard of emitted loops
    call_sites: dict[str, int] = field(default_factory=dict)  # CALs of each subroutine (reachable)


class RecursionError_(Exception):
    def __init__(self, cycle: list[str], ins: Instruction):
        super().__init__(" -> ".join(cycle))
        self.cycle = cycle
        self.ins = ins


def structurize(prog: Program, allow_recursion: bool = False) -> Structured:
    ins = prog.instructions
    boundaries = sorted(set(prog.labels.values()) | {prog.entry, len(ins)})
    label_fn: dict[str, str] = {}
    starts: dict[int, list[str]] = {}
    for name, at in sorted(prog.labels.items(), key=lambda kv: (kv[1], kv[0])):
        starts.setdefault(at, []).append(name)
    for at, names in starts.items():
        for n in names:
            label_fn[n] = names[0]

    def region(start: int) -> tuple[int, int]:
        end = boundaries[bisect.bisect_right(boundaries, start)] if start < len(ins) else start
        return start, end

    functions: dict[str, Function] = {}

    def build(start: int, end: int) -> list:
        pos = start
        body, stack = [], []
        cur = body
        while pos < end:
            i = ins[pos]
            if len(stack) >= MAX_STRUCTURE_DEPTH and i.op in ("IF", "SWITCH", "REP"):
                # the frontends' nesting limits (E4005) keep real programs far below; this
                # bounds whoever walks the tree (GLSL backend) for any IR
                raise StructureError(f"{i.op} nested inside {len(stack)} blocks (at most "
                                     f"{MAX_STRUCTURE_DEPTH})", i)
            if i.op == "IF":
                node = If(i.cond, [], [], i)
                cur.append(node)
                stack.append((node, cur))
                cur = node.then
            elif i.op == "ELSE":
                node = stack[-1][0]
                cur = node.orelse
            elif i.op in ("ENDIF", "ENDREP", "ENDSWITCH"):
                _, cur = stack.pop()
            elif i.op == "SWITCH":
                node = Switch(i.srcs[0], i, [])
                cur.append(node)
                stack.append((node, cur))
                cur = []              # statements before the first CASE are unreachable
            elif i.op in ("CASE", "DEFAULT"):
                node = stack[-1][0]
                if not node.cases or node.cases[-1].body:
                    node.cases.append(Case([], False, []))
                case = node.cases[-1]
                if i.op == "DEFAULT":
                    case.default = True
                else:
                    case.values.append(prog.case_value(i))
                cur = case.body
            elif i.op == "REP":
                node = Loop(i.srcs[0] if i.srcs else None, i, [])
                cur.append(node)
                stack.append((node, cur))
                cur = node.body
            elif i.op == "BRK":
                cur.append(Jump("break", i.cond, i))
            elif i.op == "CONT":
                cur.append(Jump("continue", i.cond, i))
            elif i.op == "RET":
                cur.append(Jump("return", i.cond, i))
            elif i.op == "CAL":
                cur.append(Jump("call", i.cond, i, label_fn[i.label]))
            else:
                cur.append(Op(i))
            pos += 1
        return body

    main_start, main_end = region(prog.entry)
    main = Function("main", starts.get(prog.entry, []), build(main_start, main_end), main_start)
    for at, names in sorted(starts.items()):
        if at == prog.entry:
            continue
        s, e = region(at)
        functions[names[0]] = Function(names[0], names, build(s, e), s)
    # a CAL to the label at the entry point calls the main body as a subroutine
    called = {i.label for i in ins if i.op == "CAL"}
    for name, fn_name in list(label_fn.items()):
        if name in called and prog.labels[name] == prog.entry and fn_name not in functions:
            functions[fn_name] = Function(fn_name, starts[prog.entry], main.body, main.start)
    st = Structured(prog, main, functions)
    st.order = call_order(st, allow_recursion)
    if len(st.order) > MAX_SUBROUTINES:
        # each becomes a GLSL function; glslang and spirv-val take time quadratic in their
        # number (8,000: 8 s, 16,000: 34 s)
        raise StructureError(f"{len(st.order)} called subroutines (at most {MAX_SUBROUTINES} "
                             "GLSL functions)", None)
    return st


def calls_in(body: list):
    """The call Jumps in ``body``, in program order; an explicit stack of list iterators, not
    one generator frame per nesting level."""
    stack = [iter(body)]
    while stack:
        node = next(stack[-1], None)
        if node is None:
            stack.pop()
        elif isinstance(node, Jump) and node.kind == "call":
            yield node
        elif isinstance(node, If):
            stack.append(iter(node.then + node.orelse))
        elif isinstance(node, Loop):
            stack.append(iter(node.body))
        elif isinstance(node, Switch):
            stack.append(iter([n for case in node.cases for n in case.body]))


def call_order(st: Structured, allow_recursion: bool = False) -> list[str]:
    """Reachable subroutines, callees before callers; raise on recursion unless allowed.
    A depth-first walk with an explicit stack: call chains may be as long as the program.
    Counts the call sites of each subroutine in main and the reachable subroutines on the way
    (``st.call_sites``)."""
    sites = st.call_sites = {}
    order: list[str] = []
    state: dict[str, int] = {}     # 1 visiting, 2 done
    path: list[str] = ["main"]     # the chain of calls being walked
    stack: list = []               # (name, iterator over its calls)

    def enter(name: str, via: Instruction | None) -> None:
        if state.get(name) == 2:
            return
        if state.get(name) == 1:
            if allow_recursion:
                return
            raise RecursionError_(path[path.index(name):] + [name], via)
        state[name] = 1
        path.append(name)
        stack.append((name, calls_in(st.functions[name].body)))

    for call in calls_in(st.main.body):
        sites[call.target] = sites.get(call.target, 0) + 1
        if call.target not in st.functions:
            continue
        enter(call.target, call.ins)
        while stack:
            name, calls = stack[-1]
            nxt = next(calls, None)
            if nxt is None:
                stack.pop()
                path.pop()
                state[name] = 2
                order.append(name)
            else:
                sites[nxt.target] = sites.get(nxt.target, 0) + 1
                enter(nxt.target, nxt.ins)
    return order


# =================================================================================================
# Unstructured control flow (VP2 and ARBvp + NV_vertex_program2/3: BRA, CAL/RET with labels that
# execution falls through, PUSHA/POPA).  vkd3d-shader's approach (anchors.md section 8.3):
#
# 1. Calls are inlined by expanding the program over (pc, call stack) states: the call stack is
#    at most MAX_CALL_DEPTH deep and its entries are static (return addresses; PUSHA entries
#    whose address vectors live in the registers %astack0-3), so the expanded graph is finite,
#    and CAL overflow (terminate or ignore, Program.call_overflow), RET on an empty stack (end),
#    RET/POPA on the wrong kind of entry (abnormal end) become ordinary edges.  Structured
#    IF/ELSE/ENDIF and REP/ENDREP/BRK/CONT become edges too (REP counters are registers %rcN).
# 2. A reducible graph is turned into blocks, loops and ifs by Ramsey's dominator-tree
#    algorithm ("Beyond Relooper", ICFP 2022): a labelled block ends before each merge node,
#    a labelled loop starts at each loop header, and branches become exits of an enclosing
#    labelled construct (Goto).  The GLSL backend emits blocks as do { } while (false) and
#    loops as for (;;), multi-level exits with a jump-target variable.  Every loop carries an
#    iteration guard (the input cannot bound them): one counter of loop iterations for the
#    whole invocation, which ends the shader (keeping its results) past
#    Program.max_exec_instructions.  Documented divergence: the spec counts executed
#    *instructions* (the executor does exactly that), the shader counts *iterations*, so it
#    only stops programs the spec also stops, but later (their results then differ).
# 3. Irreducible graphs (or expansions over MAX_EXPANDED instructions) fall back to a
#    program-counter dispatch loop over the original basic blocks with an explicit return stack
#    (Dispatch; while (true) switch (pc)).
#
# Structured inputs whose labels only start subroutines (NV4; VP2 without branches whose every
# label follows a RET) keep the per-function tree above (structurize's first path), so NV4
# output is unchanged.
# =================================================================================================

MAX_EXPANDED = 20000           # instructions after inlining; beyond that: dispatch
ITERATION_LIMIT = 65536        # default guard (VP2 MAX_PROGRAM_EXEC_INSTRUCTIONS_NV)
EXIT = "exit"                  # the end of the program as a branch target


@dataclass(frozen=True)
class CountTest:
    """A REP counter test of the general path: passes while ``reg.x > 0``."""

    reg: str
    unsigned: bool = False


@dataclass
class Labeled:
    """A construct that Goto nodes can leave: ``block`` (a Goto continues after it) or
    ``loop`` (a Goto starts its next iteration).  Falling off the end of either leaves it."""

    kind: str
    id: int
    body: list
    guard: bool = False           # loops: count iterations against the program's limit


@dataclass
class Goto:
    target: int                   # id of an enclosing Labeled
    ins: Instruction | None = None


@dataclass
class DStmt:
    """A statement of the dispatch fallback.  kind: goto (target), branch (cond, target,
    other), call (cond, target, other = return block), ret (cond, other = next block),
    pusha (src), popa (dst), exit."""

    kind: str
    cond: object = None
    target: int | None = None
    other: int | None = None
    ins: Instruction | None = None


@dataclass
class DBlock:
    id: int
    body: list                    # Op and non-terminator DStmt, then one terminator DStmt


@dataclass
class Dispatch:
    entry: int
    blocks: list
    call_overflow: str
    limit: int


class StructureError(Exception):
    """The program uses a flow opcode the general path does not know."""

    def __init__(self, message: str, ins: Instruction | None):
        super().__init__(message)
        self.ins = ins


_structurize_functions = structurize


def structurize(prog: Program, allow_recursion: bool = False) -> Structured:  # noqa: F811
    """Structured form of ``prog``: the per-function tree when labels only start subroutines
    (NV4 and structured inputs), else the general path (see the comment above)."""
    if not needs_general(prog):
        st = _structurize_functions(prog, allow_recursion)
        st.mode = "functions"
        return st
    return structurize_general(prog)


def needs_general(prog: Program) -> bool:
    ins = prog.instructions
    if any(i.op in ("BRA", "PUSHA", "POPA") for i in ins):
        return True
    if any(i.op == "SWITCH" for i in ins):
        return False              # TGSI: structured by construction (the general path has no SWITCH)
    for p in set(prog.labels.values()):
        if 0 < p <= len(ins) and not _ends(ins[p - 1]):
            return True           # execution falls through into the label
    if prog.call_overflow == "terminate" and any(i.op == "CAL" for i in ins):
        # the per-function tree ignores the call-depth limit and returns at the end of a
        # subroutine; both must match the dialect: no recursion, at most MAX_CALL_DEPTH
        # nested calls, and no subroutine that runs off the end of the program
        try:
            st = _structurize_functions(prog)
        except RecursionError_:
            return True
        if call_depth(st) > MAX_CALL_DEPTH:
            return True
        last = max(set(prog.labels.values()) | {prog.entry})
        if ins and last < len(ins) and last != prog.entry and not _ends(ins[-1]):
            return True
    return False


def _ends(i: Instruction) -> bool:
    return i.op in ("RET", "BRA") and i.cond is None


def call_depth(st: Structured) -> int:
    """Deepest chain of nested calls (``st`` has no recursion: st.order lists callees before
    their callers, so each depth is known when a caller needs it)."""
    memo: dict[str, int] = {}

    def depth(body) -> int:
        return max((1 + memo.get(call.target, 0) for call in calls_in(body)), default=0)
    for name in st.order:
        memo[name] = depth(st.functions[name].body)
    return depth(st.main.body)


# ---- the expanded control-flow graph ------------------------------------------------------------

@dataclass
class _Block:
    key: tuple
    ops: list = field(default_factory=list)
    term: tuple = ()              # ("goto", t) | ("branch", cond, t, f, ins) | ("exit",)

    def succ(self) -> list:
        if self.term[0] == "goto":
            return [self.term[1]]
        if self.term[0] == "branch":
            return [self.term[2], self.term[3]]
        return []


class _TooBig(Exception):
    pass


def _merge_chains(entry, blocks: dict) -> dict:
    """Fold each block reached only by a plain goto from one predecessor into it: straight-line
    code that labels split into blocks (cgc's fall-through labels) becomes one block again.  The
    same program, with a dominator tree that is not one level deeper per label."""
    preds: dict = {}
    for b in blocks.values():
        for t in b.succ():
            preds[t] = preds.get(t, 0) + 1
    for k in list(blocks):
        b = blocks.get(k)
        while b is not None and b.term and b.term[0] == "goto":
            t = b.term[1]
            if t == EXIT or t == k or t == entry or preds.get(t) != 1 or t not in blocks:
                break
            nxt = blocks.pop(t)
            b.ops.extend(nxt.ops)
            b.term = nxt.term
    return blocks


def _match_blocks(ins: list[Instruction]) -> dict[int, dict[str, int]]:
    """IF/ELSE/ENDIF and REP/ENDREP partners (the IR validator guarantees proper nesting)."""
    out: dict[int, dict[str, int]] = {}
    stack: list[int] = []
    loops: list[int] = []
    for i, x in enumerate(ins):
        if x.op in ("IF", "REP"):
            stack.append(i)
            out[i] = {}
            if x.op == "REP":
                loops.append(i)
        elif x.op == "ELSE":
            out[stack[-1]]["else"] = i
            out[i] = {"if": stack[-1]}
        elif x.op in ("ENDIF", "ENDREP"):
            j = stack.pop()
            out[j]["end"] = i
            if "else" in out[j]:
                out[out[j]["else"]]["end"] = i
            if x.op == "ENDREP":
                loops.pop()
                out[i] = {"rep": j}
        elif x.op in ("BRK", "CONT"):
            out[i] = {"rep": loops[-1]}
    for i, x in enumerate(ins):
        if x.op in ("BRK", "CONT"):
            out[i]["end"] = out[out[i]["rep"]]["end"]
    return out


class _Builder:
    """Program -> expanded CFG (shared registers added to the program: %astackN, %rcN)."""

    def __init__(self, prog: Program):
        self.prog = prog
        self.ins = prog.instructions
        self.match = _match_blocks(self.ins)
        self.leaders = set(prog.labels.values())
        for i, x in enumerate(self.ins):
            if x.op == "CAL":
                self.leaders.add(i + 1)
            elif x.op == "IF":
                m = self.match[i]
                self.leaders.add(m.get("else", m["end"]) + 1)
                self.leaders.add(i + 1)
                self.leaders.add(m["end"] + 1)
            elif x.op in ("REP", "ENDREP"):
                rep = i if x.op == "REP" else self.match[i]["rep"]
                end = self.match[rep]["end"]
                self.leaders |= {rep + 1, end, end + 1}
        self.counters: dict[tuple, str] = {}

    def register(self, name: str, dtype: DataType) -> str:
        if name not in self.prog.registers:
            self.prog.registers[name] = Register(name, RegKind.TEMP, dtype, implicit=True)
        return name

    def const(self, value: int) -> str:
        name = f"%kcfg{value & 0xFFFFFFFF:08x}"
        if name not in self.prog.registers:
            words = (value & 0xFFFFFFFF,) * 4
            self.prog.registers[name] = Register(name, RegKind.CONST, DataType.INT, None, (),
                                                 (words,), implicit=True)
        return name

    def counter(self, rep: int, stack: tuple) -> tuple[str, bool]:
        x = self.ins[rep]
        unsigned = x.dtype == DataType.UINT
        name = self.counters.get((rep, stack))
        if name is None:
            name = self.register(f"%rc{len(self.counters)}",
                                 DataType.UINT if unsigned else DataType.INT)
            self.counters[(rep, stack)] = name
        return name, unsigned

    def expand(self) -> tuple[tuple, dict]:
        prog, ins = self.prog, self.ins
        n = len(ins)
        entry = (prog.entry, ())
        blocks: dict[tuple, _Block] = {}
        work = [entry]
        total = 0
        while work:
            key = work.pop()
            if key == EXIT or key in blocks:
                continue
            blk = blocks[key] = _Block(key)
            pc, stack = key
            first = True
            while True:
                total += 1
                if total > MAX_EXPANDED:
                    raise _TooBig
                if pc >= n:
                    blk.term = ("exit",)
                    break
                if not first and pc in self.leaders:
                    blk.term = ("goto", (pc, stack))
                    break
                first = False
                term, pc, stack = self.step(blk, pc, stack)
                if term is not None:
                    blk.term = term
                    break
            work.extend(k for k in blk.succ() if k != EXIT and k not in blocks)
        return entry, blocks

    def branch(self, cond, taken, other, ins) -> tuple:
        if cond is None or cond.rule == "TR":
            return ("goto", taken)
        if cond.rule == "FL":
            return ("goto", other)
        if taken == other:
            return ("goto", taken)
        return ("branch", cond, taken, other, ins)

    def step(self, blk: _Block, pc: int, stack: tuple):
        """One instruction: (terminator or None, next pc, stack after it)."""
        i = self.ins[pc]
        op = i.op
        nxt = (pc + 1, stack)
        if op == "BRA":
            target = (self.prog.labels[i.label], stack)
            return self.branch(i.cond, target, nxt, i), pc, stack
        if op == "CAL":
            if len(stack) >= MAX_CALL_DEPTH:
                taken = EXIT if self.prog.call_overflow == "terminate" else nxt
            else:
                taken = (self.prog.labels[i.label], stack + (("ret", pc + 1),))
            return self.branch(i.cond, taken, nxt, i), pc, stack
        if op == "RET":
            if not stack or stack[-1][0] != "ret":
                taken = EXIT          # normal end, or an address entry on top (abnormal end)
            else:
                taken = (stack[-1][1], stack[:-1])
            return self.branch(i.cond, taken, nxt, i), pc, stack
        if op == "PUSHA":
            if len(stack) >= MAX_CALL_DEPTH:
                return ("goto", EXIT), pc, stack          # VP3 2.14.5.44: full stack ends
            reg = self.register(f"%astack{len(stack)}", DataType.INT)
            blk.ops.append(Op(Instruction("MOV", DataType.INT, Dest(reg), (i.srcs[0],),
                                          span=i.span, text="(PUSHA)")))
            return None, pc + 1, stack + (("addr",),)
        if op == "POPA":
            if not stack or stack[-1][0] != "addr":
                return ("goto", EXIT), pc, stack          # VP3 2.14.5.43: abnormal end
            reg = self.register(f"%astack{len(stack) - 1}", DataType.INT)
            blk.ops.append(Op(Instruction("MOV", DataType.INT, i.dst, (Source(reg),),
                                          span=i.span, text="(POPA)")))
            return None, pc + 1, stack[:-1]
        if op == "IF":
            m = self.match[pc]
            false = (m.get("else", m["end"]) + 1, stack)
            return self.branch(i.cond, nxt, false, i), pc, stack
        if op == "ELSE":
            return ("goto", (self.match[pc]["end"] + 1, stack)), pc, stack
        if op == "ENDIF":
            return None, pc + 1, stack
        if op == "REP":
            end = self.match[pc]["end"]
            if not i.srcs:
                return ("goto", nxt), pc, stack
            reg, unsigned = self.counter(pc, stack)
            t = i.dtype
            load = "FLR" if t == DataType.FLOAT else "MOV"
            src = replace(i.srcs[0], swizzle=(i.srcs[0].swizzle[0],) * 4)
            blk.ops.append(Op(Instruction(load, t if t != DataType.FLOAT else DataType.INT,
                                          Dest(reg, None, (True, False, False, False)), (src,),
                                          span=i.span, text="(REP count)")))
            return ("branch", CountTest(reg, unsigned), nxt, (end + 1, stack), i), pc, stack
        if op == "ENDREP":
            rep = self.match[pc]["rep"]
            if not self.ins[rep].srcs:
                return ("goto", (rep + 1, stack)), pc, stack
            reg, unsigned = self.counter(rep, stack)
            t = DataType.UINT if unsigned else DataType.INT
            blk.ops.append(Op(Instruction("ADD", t, Dest(reg, None, (True, False, False, False)),
                                          (Source(reg), Source(self.const(-1))), span=i.span,
                                          text="(ENDREP)")))
            return ("branch", CountTest(reg, unsigned), (rep + 1, stack), nxt, i), pc, stack
        if op in ("BRK", "CONT"):
            m = self.match[pc]
            target = (m["end"] + 1 if op == "BRK" else m["end"], stack)
            return self.branch(i.cond, target, nxt, i), pc, stack
        if OPCODES[op].category == "flow":
            raise StructureError(f"{op} is not supported with unstructured control flow", i)
        blk.ops.append(Op(i))
        return None, pc + 1, stack


# ---- Ramsey's structuring of a reducible graph -------------------------------------------------

class _Irreducible(Exception):
    pass


class _Ramsey:
    def __init__(self, entry, blocks: dict):
        self.entry = entry
        self.blocks = blocks
        self.ids = 0
        order: list = []
        seen: set = set()
        stack = [(entry, iter(blocks[entry].succ()))]
        seen.add(entry)
        while stack:                                  # iterative DFS, postorder
            node, it = stack[-1]
            for s in it:
                if s != EXIT and s not in seen:
                    seen.add(s)
                    stack.append((s, iter(blocks[s].succ())))
                    break
            else:
                order.append(node)
                stack.pop()
        order.reverse()
        self.rpo = {k: i for i, k in enumerate(order)}
        self.order = order
        preds: dict = {k: [] for k in order}
        for k in order:
            for s in blocks[k].succ():
                if s != EXIT:
                    preds[s].append(k)
        self.preds = preds
        self.idom = self._dominators()
        self.children: dict = {k: [] for k in order}
        for k in order:
            if k != entry:
                self.children[self.idom[k]].append(k)
        self.headers = set()
        self.fwd_in = {k: 0 for k in order}
        for k in order:
            for s in set(blocks[k].succ()):
                if s == EXIT:
                    continue
                if self.rpo[s] <= self.rpo[k]:
                    if not self.dominates(s, k):
                        raise _Irreducible
                    self.headers.add(s)
                else:
                    self.fwd_in[s] += 1

    def _dominators(self) -> dict:
        """Cooper, Harvey and Kennedy's iterative algorithm."""
        rpo, order = self.rpo, self.order
        idom = {self.entry: self.entry}
        changed = True
        while changed:
            changed = False
            for b in order[1:]:
                new = None
                for p in self.preds[b]:
                    if p in idom:
                        new = p if new is None else self._intersect(p, new, idom)
                if new is not None and idom.get(b) != new:
                    idom[b] = new
                    changed = True
        return idom

    def _intersect(self, a, b, idom):
        rpo = self.rpo
        while a != b:
            while rpo[a] > rpo[b]:
                a = idom[a]
            while rpo[b] > rpo[a]:
                b = idom[b]
        return a

    def dominates(self, a, b) -> bool:
        while True:
            if a == b:
                return True
            if b == self.entry:
                return False
            b = self.idom[b]

    def merge(self, k) -> bool:
        return self.fwd_in[k] >= 2

    def new_id(self) -> int:
        self.ids += 1
        return self.ids

    def tree(self, entry) -> list:
        """The structured body of the graph from ``entry``.

        Ramsey's three mutually recursive functions (tree: a dominator-tree node, wrapped in a
        loop when it is a loop header; within: one block per merge child, innermost the node's
        own code; branch: an edge as a Goto or the target's tree) run on an explicit stack of
        tasks, so no graph reaches Python's recursion limit.  Each task appends to one output
        list; a task's subtasks are pushed in reverse, so they run (and number their constructs)
        in the order the recursive formulation would.  Every task knows how deeply its list is
        nested; a construct nested deeper than twice MAX_STRUCTURE_DEPTH raises _TooBig (the
        caller takes the flat dispatch loop), which bounds the work per node (ctx copies,
        find)."""
        body: list = []
        tasks: list = [("tree", entry, [], body, 0)]
        while tasks:
            task = tasks.pop()
            kind, x, ctx, out, level = task[0], task[1], task[2], task[3], task[4]
            if kind == "tree":
                merges = sorted((c for c in self.children[x] if self.merge(c)),
                                key=lambda k: self.rpo[k], reverse=True)
                if x in self.headers:
                    self.check_depth(level + 1)
                    lid = self.new_id()
                    loop = Labeled("loop", lid, [], guard=True)
                    out.append(loop)
                    tasks.append(("within", x, ctx + [("loop", x, lid)], loop.body, level + 1,
                                  merges))
                else:
                    tasks.append(("within", x, ctx, out, level, merges))
            elif kind == "within":
                ys = task[5]
                if ys:
                    y = ys[0]
                    self.check_depth(level + 1)
                    bid = self.new_id()
                    block = Labeled("block", bid, [])
                    out.append(block)
                    # [block: the rest, inside] then y's tree after it, in this order
                    tasks.append(("tree", y, ctx, out, level))
                    tasks.append(("within", x, ctx + [("block", y, bid)], block.body, level + 1,
                                  ys[1:]))
                    continue
                blk = self.blocks[x]
                out.extend(blk.ops)
                term = blk.term
                if term[0] == "exit":
                    out.append(Jump("return", None, None))
                elif term[0] == "goto":
                    tasks.append(("branch", x, ctx, out, level, term[1]))
                else:
                    _, cond, t, f, ins = term
                    self.check_depth(level + 1)
                    node = If(cond, [], [], ins)
                    out.append(node)
                    tasks.append(("branch", x, ctx, node.orelse, level + 1, f))
                    tasks.append(("branch", x, ctx, node.then, level + 1, t))
            else:                                    # branch from x to dst
                dst = task[5]
                if dst == EXIT:
                    out.append(Jump("return", None, None))
                elif self.rpo[dst] <= self.rpo[x]:
                    out.append(Goto(self.find(ctx, "loop", dst)))
                elif self.merge(dst):
                    out.append(Goto(self.find(ctx, "block", dst)))
                else:
                    tasks.append(("tree", dst, ctx, out, level))
        return body

    @staticmethod
    def check_depth(level: int) -> None:
        # before simplify() a level can be a block that it then removes (an if/else diamond's
        # wrapper): twice the final bound, which structurize_general checks after simplify()
        if level > 2 * MAX_STRUCTURE_DEPTH:
            raise _TooBig

    @staticmethod
    def find(ctx: list, kind: str, node) -> int:
        for k, n, i in reversed(ctx):
            if k == kind and n == node:
                return i
        raise AssertionError(f"no enclosing {kind} for {node}")


#: subroutines the per-function path turns into GLSL functions
MAX_SUBROUTINES = 4096
#: deepest nesting of constructs (loops, blocks, ifs) the general path produces; deeper graphs
#: take the dispatch loop, which is flat.  Bounds the recursion of the GLSL backend (a few
#: frames per level) and the size of what glslang is given to nest; the per-function path
#: checks the same bound (its nesting comes from the frontends' limits: 52, TGSI 64)
MAX_STRUCTURE_DEPTH = 160


def structurize_general(prog: Program) -> Structured:
    """The general path (see the comment at the top of this section)."""
    limit = prog.max_exec_instructions or ITERATION_LIMIT
    try:
        entry, blocks = _Builder(prog).expand()
        r = _Ramsey(entry, _merge_chains(entry, blocks))
        body = simplify(r.tree(entry))
        if nesting_depth(body) > MAX_STRUCTURE_DEPTH:
            raise _TooBig     # the GLSL backend recurses once per level (a few frames each)
        st = Structured(prog, Function("main", [], body, prog.entry))
        st.mode = "structured"
        st.limit = limit
        return st
    except (_TooBig, _Irreducible):
        pass
    st = Structured(prog, Function("main", [], [dispatch(prog, limit)], prog.entry))
    st.mode = "dispatch"
    st.limit = limit
    return st


def nesting_depth(nodes: list) -> int:
    """How deeply Labeled and If constructs nest in ``nodes`` (0: none), without recursion."""
    best, stack = 0, [(nodes, 0)]
    while stack:
        body, depth = stack.pop()
        best = max(best, depth)
        for node in body:
            if isinstance(node, Labeled):
                stack.append((node.body, depth + 1))
            elif isinstance(node, If):
                stack.append((node.then, depth + 1))
                stack.append((node.orelse, depth + 1))
    return best


def _containers(nodes: list) -> list:
    """Every Labeled and If in ``nodes``, parents before their descendants (preorder), found
    without recursion."""
    out = []
    stack = [nodes]
    while stack:
        for node in stack.pop():
            if isinstance(node, Labeled):
                out.append(node)
                stack.append(node.body)
            elif isinstance(node, If):
                out.append(node)
                stack.append(node.orelse)
                stack.append(node.then)
    return out


def simplify(nodes: list) -> list:
    """Readable output without changing the meaning: a Goto to a block in the block's tail
    position is dropped (falling off the end of a block leaves it), and a block no Goto
    targets any more is replaced by its body (if/else diamonds lose their wrapper).
    Iterative (the nesting is bounded, but nothing here needs the call stack): containers are
    handled in reverse preorder, so each after everything inside it, as a post-order walk."""
    def strip_tail(body: list, target: int) -> None:
        lists = [body]
        while lists:
            b = lists.pop()
            if not b:
                continue
            last = b[-1]
            if isinstance(last, Goto) and last.target == target:
                b.pop()
            elif isinstance(last, If):
                lists.append(last.orelse)
                lists.append(last.then)
            elif isinstance(last, Labeled):
                lists.append(last.body)          # leaving it falls to our end too

    def flatten(body: list, used: set) -> list:
        # one level: the blocks inside were flattened before (reverse preorder)
        out = []
        for node in body:
            if isinstance(node, Labeled) and node.kind == "block" and node.id not in used:
                out.extend(node.body)
            else:
                out.append(node)
        return out

    containers = _containers(nodes)
    for node in reversed(containers):
        if isinstance(node, Labeled) and node.kind == "block":
            strip_tail(node.body, node.id)
    used = {n.target for c in containers
            for n in (c.body if isinstance(c, Labeled) else c.then + c.orelse)
            if isinstance(n, Goto)} | {n.target for n in nodes if isinstance(n, Goto)}
    for node in reversed(containers):
        if isinstance(node, Labeled):
            node.body = flatten(node.body, used)
        else:
            node.then = flatten(node.then, used)
            node.orelse = flatten(node.orelse, used)
    return flatten(nodes, used)


# ---- the dispatch fallback -----------------------------------------------------------------------

def dispatch(prog: Program, limit: int) -> Dispatch:
    """Basic blocks of the original program in a ``while (true) switch (pc)`` loop with an
    explicit return stack (CAL pushes the block after it, RET pops; PUSHA/POPA share it)."""
    b = _Builder(prog)
    ins = b.ins
    n = len(ins)
    starts = sorted({prog.entry, 0} | {p for p in b.leaders if p < n} |
                    {i + 1 for i, x in enumerate(ins) if OPCODES[x.op].category == "flow"
                     and i + 1 < n})
    ids = {p: k for k, p in enumerate(starts)}
    ids[n] = -1                                      # past the end: exit

    def bid(p: int) -> int:
        return ids[p] if p < n else -1

    out = []
    for k, start in enumerate(starts):
        end = starts[k + 1] if k + 1 < len(starts) else n
        body: list = []
        term = None
        for pc in range(start, end):
            i = ins[pc]
            op = i.op
            nxt = bid(pc + 1) if OPCODES[op].category == "flow" else None
            if op == "BRA":
                term = _dbranch(i.cond, bid(prog.labels[i.label]), nxt, i)
            elif op == "CAL":
                term = DStmt("call", _cond(i.cond), bid(prog.labels[i.label]), nxt, i)
            elif op == "RET":
                term = DStmt("ret", _cond(i.cond), None, nxt, i)
            elif op == "PUSHA":
                body.append(DStmt("pusha", ins=i))
            elif op == "POPA":
                body.append(DStmt("popa", ins=i))
            elif op == "IF":
                m = b.match[pc]
                term = _dbranch(i.cond, nxt, bid(m.get("else", m["end"]) + 1), i)
            elif op == "ELSE":
                term = DStmt("goto", target=bid(b.match[pc]["end"] + 1), ins=i)
            elif op == "ENDIF":
                pass
            elif op == "REP":
                end_ = b.match[pc]["end"]
                if i.srcs:
                    reg, unsigned = b.counter(pc, ())
                    t = i.dtype
                    src = replace(i.srcs[0], swizzle=(i.srcs[0].swizzle[0],) * 4)
                    body.append(Op(Instruction("FLR" if t == DataType.FLOAT else "MOV",
                                               t if t != DataType.FLOAT else DataType.INT,
                                               Dest(reg, None, (True, False, False, False)),
                                               (src,), span=i.span, text="(REP count)")))
                    term = DStmt("branch", CountTest(reg, unsigned), nxt, bid(end_ + 1), i)
                else:
                    term = DStmt("goto", target=nxt, ins=i)
            elif op == "ENDREP":
                rep = b.match[pc]["rep"]
                if ins[rep].srcs:
                    reg, unsigned = b.counter(rep, ())
                    t = DataType.UINT if unsigned else DataType.INT
                    body.append(Op(Instruction("ADD", t, Dest(reg, None, (True, False, False, False)),
                                               (Source(reg), Source(b.const(-1))), span=i.span,
                                               text="(ENDREP)")))
                    term = DStmt("branch", CountTest(reg, unsigned), bid(rep + 1), nxt, i)
                else:
                    term = DStmt("goto", target=bid(rep + 1), ins=i)
            elif op in ("BRK", "CONT"):
                m = b.match[pc]
                target = bid(m["end"] + 1) if op == "BRK" else bid(m["end"])
                term = _dbranch(i.cond, target, nxt, i)
            elif OPCODES[op].category == "flow":
                raise StructureError(f"{op} is not supported with unstructured control flow", i)
            else:
                body.append(Op(i))
        if term is None:
            term = DStmt("goto", target=bid(end)) if end < n else DStmt("exit")
        body.append(term)
        out.append(DBlock(k, body))
    return Dispatch(ids[prog.entry] if prog.entry < n else -1, out, prog.call_overflow, limit)


def _cond(c):
    return None if c is None or c.rule == "TR" else c


def _dbranch(cond, taken: int, other: int, ins) -> DStmt:
    if cond is None or cond.rule == "TR":
        return DStmt("goto", target=taken, ins=ins)
    if cond.rule == "FL":
        return DStmt("goto", target=other, ins=ins)
    return DStmt("branch", cond, taken, other, ins)


# ---- back to linear IR (tests; locating a pass that broke a program) ------------------------------

def linearize(st: Structured) -> Program:
    """The structured form of the general path as a linear IR program (BRA/CAL/RET and labels)
    that the executor runs: running it against the original program checks the structurizer.
    Iteration guards are left out (the executor has its own step limit)."""
    src = st.program
    prog = Program(src.stage, src.dialect, dict(src.registers), [], {}, 0, src.options,
                   src.geometry, source_name=src.source_name)
    prog.call_overflow = src.call_overflow
    prog.max_exec_instructions = src.max_exec_instructions
    prog.fragcoord_origin_upper_left = src.fragcoord_origin_upper_left
    prog.fragcoord_pixel_center_integer = src.fragcoord_pixel_center_integer
    out = prog.instructions
    counter = [0]

    def fresh(prefix: str) -> str:
        counter[0] += 1
        return f"%{prefix}{counter[0]}"

    def place(name: str) -> None:
        prog.labels[name] = len(out)

    def cond_of(c) -> CondTest:
        if isinstance(c, CountTest):
            # test the counter through CC1.x (linearized programs only): GT = reg.x > 0
            t = DataType.UINT if c.unsigned else DataType.INT
            out.append(Instruction("MOV", t, Dest("%cc_probe", None, (True, False, False, False)),
                                   (Source(c.reg, swizzle=(0, 0, 0, 0)),), cc_update=1,
                                   cc_kind=CCKind.INT, text="(count test)"))
            prog.registers.setdefault("%cc_probe", Register("%cc_probe", RegKind.TEMP, t))
            return CondTest("NE" if c.unsigned else "GT", 1, (0, 0, 0, 0))
        return c

    def emit(nodes: list, targets: dict) -> None:
        for node in nodes:
            if isinstance(node, Op):
                out.append(node.ins)
            elif isinstance(node, If):
                then, end = fresh("then"), fresh("endif")
                out.append(Instruction("BRA", label=then, cond=cond_of(node.cond)))
                emit(node.orelse, targets)
                out.append(Instruction("BRA", label=end))
                place(then)
                emit(node.then, targets)
                place(end)
            elif isinstance(node, Labeled):
                start, end = fresh("start"), fresh("end")
                place(start)
                emit(node.body, {**targets, node.id: start if node.kind == "loop" else end})
                place(end)
            elif isinstance(node, Goto):
                out.append(Instruction("BRA", label=targets[node.target]))
            elif isinstance(node, Jump) and node.kind == "return":
                out.append(Instruction("BRA", label=END, cond=node.cond))
            elif isinstance(node, Dispatch):
                emit_dispatch(node)
            else:
                raise AssertionError(node)

    def emit_dispatch(d: Dispatch) -> None:
        name = {b.id: fresh("b") for b in d.blocks}
        name[-1] = END
        if d.entry != (d.blocks[0].id if d.blocks else -1):
            out.append(Instruction("BRA", label=name[d.entry]))
        for blk in d.blocks:
            place(name[blk.id])
            for s in blk.body:
                if isinstance(s, Op):
                    out.append(s.ins)
                    continue
                k = s.kind
                if k == "goto":
                    out.append(Instruction("BRA", label=name[s.target]))
                elif k == "branch":
                    out.append(Instruction("BRA", label=name[s.target], cond=cond_of(s.cond)))
                    out.append(Instruction("BRA", label=name[s.other]))
                elif k == "call":
                    out.append(Instruction("CAL", label=name[s.target], cond=s.cond))
                    out.append(Instruction("BRA", label=name[s.other]))
                elif k == "ret":
                    out.append(Instruction("RET", cond=s.cond))
                    out.append(Instruction("BRA", label=name[s.other]))
                elif k in ("pusha", "popa"):
                    out.append(s.ins)
                elif k == "exit":
                    out.append(Instruction("BRA", label=name[-1]))

    # the end of the program (a label after the last instruction): execution ends there even
    # with return addresses on the call stack, as at the end of the original program
    END = "%end"
    emit(st.main.body, {})
    place(END)
    return prog
