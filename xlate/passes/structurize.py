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
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..ir.model import CondTest, Instruction, Program, Source


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
        end = next(b for b in boundaries if b > start) if start < len(ins) else start
        return start, end

    functions: dict[str, Function] = {}

    def build(start: int, end: int) -> list:
        pos = start
        body, stack = [], []
        cur = body
        while pos < end:
            i = ins[pos]
            if i.op == "IF":
                node = If(i.cond, [], [], i)
                cur.append(node)
                stack.append((node, cur))
                cur = node.then
            elif i.op == "ELSE":
                node = stack[-1][0]
                cur = node.orelse
            elif i.op == "ENDIF" or i.op == "ENDREP":
                _, cur = stack.pop()
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
    return st


def calls_in(body: list):
    for node in body:
        if isinstance(node, Jump) and node.kind == "call":
            yield node
        elif isinstance(node, If):
            yield from calls_in(node.then)
            yield from calls_in(node.orelse)
        elif isinstance(node, Loop):
            yield from calls_in(node.body)


def call_order(st: Structured, allow_recursion: bool = False) -> list[str]:
    """Reachable subroutines, callees before callers; raise on recursion unless allowed."""
    order: list[str] = []
    state: dict[str, int] = {}     # 1 visiting, 2 done

    def visit(name: str, path: list[str], via: Instruction | None):
        if state.get(name) == 2:
            return
        if state.get(name) == 1:
            if allow_recursion:
                return
            cycle = path[path.index(name):] + [name]
            raise RecursionError_(cycle, via)
        state[name] = 1
        fn = st.functions[name]
        for call in calls_in(fn.body):
            visit(call.target, path + [name], call.ins)
        state[name] = 2
        order.append(name)

    for call in calls_in(st.main.body):
        if call.target in st.functions:
            visit(call.target, ["main"], call.ins)
    return order
