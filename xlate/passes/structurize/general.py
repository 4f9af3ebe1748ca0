"""The general path: Ramsey's structuring of the expanded graph (``cfg``), and the choice
between it, the per-function tree and the dispatch loop (see ``cfg``'s docstring).
"""
from __future__ import annotations

from ...ir.model import MAX_CALL_DEPTH, Instruction, Program
from .cfg import EXIT, Goto, ITERATION_LIMIT, Labeled, _Builder, _TooBig, _merge_chains
from .dispatch import dispatch
from .tree import (MAX_STRUCTURE_DEPTH, Function, If, Jump, RecursionError_, Structured,
                   calls_in, structurize_functions)


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
            st = structurize_functions(prog)
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
