"""The per-function tree: structured inputs (NV4, FP2, TGSI, VP2 without branches) whose labels
only start subroutines (the package docstring).
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass, field


from ...ir.model import (CondTest, Instruction, Program, Source)


#: subroutines the per-function path turns into GLSL functions
MAX_SUBROUTINES = 4096


#: deepest nesting of constructs (loops, blocks, ifs) the general path produces; deeper graphs
#: take the dispatch loop, which is flat.  Bounds the recursion of the GLSL backend (a few
#: frames per level) and the size of what glslang is given to nest; the per-function path
#: checks the same bound (its nesting comes from the frontends' limits: 52, TGSI 64)
MAX_STRUCTURE_DEPTH = 160


class StructureError(Exception):
    """The program uses a flow opcode the general path does not know."""

    def __init__(self, message: str, ins: Instruction | None):
        super().__init__(message)
        self.ins = ins


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


def structurize_functions(prog: Program, allow_recursion: bool = False) -> Structured:
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
