"""Control flow of the direct SPIR-V path: structured selections and loops, TGSI SWITCH, jumps,
and the general structurizer's labeled blocks and loops (GlslEmitter.emit_cfg_node)."""
from __future__ import annotations

from ...ir.model import MAX_CALL_DEPTH, DataType
from ...passes.structurize import Goto, If, Jump, Labeled, Loop, Op, Switch
from ...passes.structurize.cfg import Dispatch
from .alu import f2i
from .base import NotCovered
from .module import OP as _OP


class FlowMixin:
    def emit_body(self, nodes: list) -> None:
        for node in nodes:
            if not self.open:
                return                    # after a break/return/kill: nothing runs
            self.emit_node(node)

    def emit_node(self, node) -> None:
        if isinstance(node, Op):
            self.emit_ins(node.ins)
        elif isinstance(node, If):
            cond = self.branch_cond(node.cond)
            if cond is None:
                cond = self.c("b", True, 1)
            then, merge = self.m.id(), self.m.id()
            other = self.m.id() if node.orelse else merge
            self.put("SelectionMerge", merge, 0)
            self.put("BranchConditional", cond, then, other)
            self.label(then)
            self.emit_body(node.then)
            if self.open:
                self.branch(merge)
            if node.orelse:
                self.label(other)
                self.emit_body(node.orelse)
                if self.open:
                    self.branch(merge)
            self.label(merge)
        elif isinstance(node, Loop):
            self.emit_loop(node)
        elif isinstance(node, Jump):
            self.emit_jump(node)
        elif isinstance(node, Switch):
            self.emit_switch(node)
        elif isinstance(node, Labeled):
            self.emit_labeled(node)
        elif isinstance(node, Goto):
            self.emit_goto(node)
        elif isinstance(node, Dispatch):
            self.emit_dispatch(node)
        else:
            raise NotCovered(f"the control-flow construct {type(node).__name__}",
                             getattr(node, "ins", None))

    def emit_loop(self, node: Loop) -> None:
        counter = n = None
        if node.count is not None:
            dtype = node.ins.dtype
            kind = "u" if dtype == DataType.UINT else "i"
            v = self.operand(node.count, dtype, True)
            if dtype == DataType.FLOAT:
                v = self.x(f2i(self, self.splat(self.ext("Floor", self.t("f", 1), v), "f")), 0, "i")
            n = v
            ct = self.t(kind, 1)
            counter = self.m.id()
            self.fn_vars += [((4 << 16) | _OP["Variable"]), self.m.pointer("Function", ct),
                             counter, 7]
            self.put("Store", counter, self.c(kind, 0, 1))
        header, body, cont, merge = (self.m.id() for _ in range(4))
        self.branch(header)
        self.label(header)
        if counter is not None:
            # the test before OpLoopMerge: the merge instruction must be second to last
            i = self.val("Load", ct, counter)
            test = self.cmp("SLessThan" if kind == "i" else "ULessThan", i, n, 1)
            self.put("LoopMerge", merge, cont, 0)
            self.put("BranchConditional", test, body, merge)
        else:
            self.put("LoopMerge", merge, cont, 0)
            self.put("Branch", body)
        self.label(body)
        self.loops.append((merge, cont))
        self.emit_body(node.body)
        self.loops.pop()
        if self.open:
            self.branch(cont)
        self.label(cont)
        if counter is not None:
            i = self.val("Load", ct, counter)
            self.put("Store", counter, self.val("IAdd", ct, i, self.c(kind, 1, 1)))
        self.branch(header)
        self.label(merge)

    def cfg_var(self, name: str) -> int:
        v = self.cfg_vars.get(name)
        if v is None:
            it = self.t("i", 1)
            v = self.cfg_vars[name] = self.m.variable(self.m.pointer("Private", it), "Private",
                                                      self.c("i", 0, 1))
        return v

    def emit_labeled(self, node: Labeled) -> None:
        """A block or loop that Gotos leave: a SPIR-V loop construct either way.  Falling off
        its end leaves it; a Goto to a block branches to its merge, to a loop to its continue
        target; a Goto further out sets ``xl_br`` and leaves, and each construct it passes
        re-dispatches after itself (break on, or finish when it is the target)."""
        if self.loops:
            raise NotCovered("a labeled construct inside a REP loop or SWITCH")
        header, body, cont, merge = (self.m.id() for _ in range(4))
        self.branch(header)
        self.label(header)
        self.put("LoopMerge", merge, cont, 0)
        self.branch(body)
        self.label(body)
        if node.kind == "loop" and node.guard:
            it = self.t("i", 1)
            var = self.cfg_var("iter")
            n = self.val("IAdd", it, self.val("Load", it, var), self.c("i", 1, 1))
            self.put("Store", var, n)
            limit = self.c("i", self.lowered.loop_limit or 65536, 1)
            self.conditional(self.cmp("SGreaterThan", n, limit, 1), lambda: self.terminate("Return"))
        self.cfg_stack.append((node, merge, cont))
        self.emit_body(node.body)
        self.cfg_stack.pop()
        if self.open:
            self.branch(merge)
        self.label(cont)
        self.branch(header)
        self.label(merge)
        from ..glsl.records import _escaping
        escaping = _escaping(node)
        if not escaping:
            return
        if not self.cfg_stack:
            raise NotCovered("a Goto out of the outermost labeled construct")
        parent, pmerge, pcont = self.cfg_stack[-1]
        it = self.t("i", 1)
        br = self.val("Load", it, self.cfg_var("br"))
        pending = self.cmp("INotEqual", br, self.c("i", 0, 1), 1)

        def redispatch():
            if parent.id in escaping:
                def arrive():
                    self.put("Store", self.cfg_var("br"), self.c("i", 0, 1))
                    self.branch(pmerge if parent.kind == "block" else pcont)
                self.conditional(self.cmp("IEqual", br, self.c("i", parent.id, 1), 1), arrive)
                if escaping - {parent.id}:
                    self.branch(pmerge)
            else:
                self.branch(pmerge)
        self.conditional(pending, redispatch)

    def emit_goto(self, node: Goto) -> None:
        k = next(j for j, (c, _, _) in enumerate(reversed(self.cfg_stack)) if c.id == node.target)
        target, merge, cont = self.cfg_stack[-1 - k]
        if k == 0:
            self.branch(merge if target.kind == "block" else cont)
            return
        self.put("Store", self.cfg_var("br"), self.c("i", node.target, 1))
        self.branch(self.cfg_stack[-1][1])

    def emit_switch(self, node: Switch) -> None:
        """TGSI SWITCH: OpSwitch on the unsigned selector; a case that does not end in a
        break falls through to the next, as GLSL's (and TGSI's) cases do."""
        sel = self.operand(node.selector, DataType.UINT, True)
        merge = self.m.id()
        labels = [self.m.id() for _ in node.cases]
        default = next((lab for lab, case in zip(labels, node.cases) if case.default), merge)
        targets = []
        seen = set()
        for lab, case in zip(labels, node.cases):
            for v in case.values:
                if v not in seen:              # a repeated value: its first case takes it
                    seen.add(v)
                    targets += [v & 0xFFFFFFFF, lab]
        self.put("SelectionMerge", merge, 0)
        self.put("Switch", sel, default, *targets)
        self.open = False
        self.loops.append((merge, None))
        for i, (lab, case) in enumerate(zip(labels, node.cases)):
            self.label(lab)
            self.emit_body(case.body)
            if self.open:
                self.branch(labels[i + 1] if i + 1 < len(labels) else merge)
        self.loops.pop()
        self.label(merge)

    def emit_jump(self, node: Jump) -> None:
        kind = node.kind
        if kind == "call":
            if self.call_depth is None:
                fid = self.fn_ids.get(node.target)
            elif self.call_depth >= MAX_CALL_DEPTH:
                return           # the call stack is full: the CAL does nothing (GP4 issue 38)
            else:
                fid = self.fn_ids.get((node.target, self.call_depth + 1))
            if fid is None:
                raise NotCovered(f"the call of '{node.target}'", node.ins)

            def act():
                self.call(fid)
        elif kind == "return":
            def act():
                self.terminate("Return")
        elif kind in ("break", "continue"):
            if kind == "break":
                target = self.loops[-1][0] if self.loops else None
            else:
                target = next((c for _, c in reversed(self.loops) if c is not None), None)
            if target is None:
                raise NotCovered(f"{kind} outside a loop", node.ins)

            def act():
                self.branch(target)
        else:
            raise NotCovered(f"the jump {kind}", node.ins)
        self.conditional(self.branch_cond(node.cond), act)

    def terminate(self, op: str) -> None:
        self.put(op)
        self.open = False

    def conditional(self, cond: int | None, then) -> None:
        """``if (cond) then()`` as a selection construct; unconditional when cond is None."""
        if cond is None:
            then()
            return
        body, merge = self.m.id(), self.m.id()
        self.put("SelectionMerge", merge, 0)
        self.put("BranchConditional", cond, body, merge)
        self.label(body)
        then()
        if self.open:
            self.branch(merge)
        self.label(merge)
