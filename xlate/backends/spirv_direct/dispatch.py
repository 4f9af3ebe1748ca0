"""The general structurizer's dispatch loop in the direct SPIR-V path: irreducible control flow
(VP2/VP3 branch webs, PUSHA/POPA, calls through BRA targets), printed as the GLSL backend
prints it (``GlslEmitter.emit_dispatch``): a loop around a switch over the basic blocks.

* ``xl_pc`` (the block to run), ``xl_sp`` (the return stack's depth), ``xl_rs`` (return blocks,
  -1 for a PUSHA entry) and ``xl_as`` (pushed address vectors, VP2 2.14.2.3, VP3
  2.14.5.43-44) are ``Function`` variables of the function holding the dispatch;
* the loop: ``OpLoopMerge`` in its header, the iteration guard (``xl_iter``, shared with the
  labeled loops, ``return`` past the limit), then ``OpSelectionMerge`` + ``OpSwitch`` on
  ``xl_pc`` with one case per block and a default that returns;
* a block's goto stores ``xl_pc`` and leaves the switch by its merge block, which branches to
  the loop's continue target -- glslang's shape of GLSL's ``break`` in a switch.  Branching to
  the continue target straight from a case, also valid SPIR-V, made lavapipe (Mesa 22.3) lose
  the program's output writes on the 323-block dispatch of ``nested_skips(161)``
  (tests/test_structurize_cfg.py; every lane's position came back 0).  A goto to the
  program's end returns; ``CAL`` pushes the
  return block (a full stack ends the program or skips the call as ``call_overflow`` says),
  ``RET`` pops it (an empty stack, or a PUSHA entry on top, ends the program).
"""
from __future__ import annotations

from ...ir.model import MAX_CALL_DEPTH, DataType
from ...passes.structurize import Op
from ...passes.structurize.cfg import Dispatch
from .base import NotCovered
from .module import OP as _OP


class DispatchMixin:
    def fn_var(self, t: int) -> int:
        """A ``Function`` variable of the current function (declared in its first block)."""
        v = self.m.id()
        self.fn_vars += [((4 << 16) | _OP["Variable"]), self.m.pointer("Function", t), v, 7]
        return v

    def emit_dispatch(self, node: Dispatch) -> None:
        it, i4 = self.t("i", 1), self.t("i")
        pc, sp = self.fn_var(it), self.fn_var(it)
        rs = self.fn_var(self.m.array(it, MAX_CALL_DEPTH))
        addr = self.fn_var(self.m.array(i4, MAX_CALL_DEPTH))
        self.put("Store", pc, self.c("i", node.entry, 1))
        self.put("Store", sp, self.c("i", 0, 1))
        header, body, cont, merge, smerge, default = (self.m.id() for _ in range(6))
        labels = {blk.id: self.m.id() for blk in node.blocks}
        self.branch(header)
        self.label(header)
        self.put("LoopMerge", merge, cont, 0)
        self.branch(body)
        self.label(body)
        guard = self.cfg_var("iter")
        n = self.val("IAdd", it, self.val("Load", it, guard), self.c("i", 1, 1))
        self.put("Store", guard, n)
        self.conditional(self.cmp("SGreaterThan", n, self.c("i", node.limit, 1), 1),
                         lambda: self.terminate("Return"))
        targets = []
        for blk in node.blocks:
            targets += [blk.id & 0xFFFFFFFF, labels[blk.id]]
        at = self.val("Load", it, pc)
        self.put("SelectionMerge", smerge, 0)
        self.put("Switch", at, default, *targets)
        self.open = False
        state = _State(pc, sp, rs, addr, smerge, node)
        for blk in node.blocks:
            self.label(labels[blk.id])
            for s in blk.body:
                if not self.open:
                    break
                if isinstance(s, Op):
                    self.emit_ins(s.ins)
                else:
                    self.emit_dstmt(s, state)
            if self.open:                 # a block ends in a terminator: never reached
                raise NotCovered("a dispatch block without a terminator")
        self.label(default)
        self.terminate("Return")
        self.label(smerge)                # a case's goto: on to the next iteration
        self.branch(cont)
        self.label(cont)
        self.branch(header)
        self.label(merge)

    def dispatch_goto(self, st: "_State", b: int) -> None:
        if b < 0:
            self.terminate("Return")
            return
        self.put("Store", st.pc, self.c("i", b, 1))
        self.branch(st.leave)

    def emit_dstmt(self, s, st: "_State") -> None:
        """One statement of a dispatch block (GlslEmitter.emit_dstmt)."""
        it, i4 = self.t("i", 1), self.t("i")
        k = s.kind
        if k == "goto":
            self.dispatch_goto(st, s.target)
        elif k == "exit":
            self.terminate("Return")
        elif k == "branch":
            cond = self.branch_cond(s.cond)
            if cond is None:
                self.dispatch_goto(st, s.target)
                return
            self.conditional(cond, lambda: self.dispatch_goto(st, s.target))
            self.dispatch_goto(st, s.other)
        elif k == "call":
            def call():
                depth = self.val("Load", it, st.sp)

                def overflow():
                    if st.node.call_overflow == "terminate" or s.other < 0:
                        self.terminate("Return")
                    else:
                        self.dispatch_goto(st, s.other)
                self.conditional(self.cmp("SGreaterThanEqual", depth,
                                          self.c("i", MAX_CALL_DEPTH, 1), 1), overflow)
                slot = self.val("AccessChain", self.m.pointer("Function", it), st.rs, depth)
                self.put("Store", slot, self.c("i", s.other, 1))
                self.put("Store", st.sp, self.val("IAdd", it, depth, self.c("i", 1, 1)))
                self.dispatch_goto(st, s.target)
            self.unless_cond(s, st, call)
        elif k == "ret":
            def ret():
                depth = self.val("Load", it, st.sp)
                self.conditional(self.cmp("IEqual", depth, self.c("i", 0, 1), 1),
                                 lambda: self.terminate("Return"))
                top = self.val("ISub", it, depth, self.c("i", 1, 1))
                self.put("Store", st.sp, top)
                r = self.val("Load", it, self.val("AccessChain", self.m.pointer("Function", it),
                                                  st.rs, top))
                # a PUSHA entry on top: an abnormal end
                self.conditional(self.cmp("SLessThan", r, self.c("i", 0, 1), 1),
                                 lambda: self.terminate("Return"))
                self.put("Store", st.pc, r)
                self.branch(st.leave)
            self.unless_cond(s, st, ret)
        elif k == "pusha":
            value = self.operand(s.ins.srcs[0], DataType.INT, False)
            depth = self.val("Load", it, st.sp)
            self.conditional(self.cmp("SGreaterThanEqual", depth,
                                      self.c("i", MAX_CALL_DEPTH, 1), 1),
                             lambda: self.terminate("Return"))
            self.put("Store", self.val("AccessChain", self.m.pointer("Function", i4), st.addr,
                                       depth), value)
            self.put("Store", self.val("AccessChain", self.m.pointer("Function", it), st.rs,
                                       depth), self.c("i", -1, 1))
            self.put("Store", st.sp, self.val("IAdd", it, depth, self.c("i", 1, 1)))
        elif k == "popa":
            depth = self.val("Load", it, st.sp)
            empty = self.cmp("IEqual", depth, self.c("i", 0, 1), 1)
            # rs[max(sp - 1, 0)]: the index stays in bounds when the stack is empty (then the
            # first test ends the program anyway)
            top = self.ext("SMax", it, self.val("ISub", it, depth, self.c("i", 1, 1)),
                           self.c("i", 0, 1))
            r = self.val("Load", it, self.val("AccessChain", self.m.pointer("Function", it),
                                              st.rs, top))
            not_pushed = self.cmp("SGreaterThanEqual", r, self.c("i", 0, 1), 1)
            self.conditional(self.bor(empty, not_pushed, 1), lambda: self.terminate("Return"))
            self.put("Store", st.sp, top)
            value = self.val("Load", i4, self.val("AccessChain", self.m.pointer("Function", i4),
                                                  st.addr, top))
            # the pop always happens; a CC write mask makes the write conditional (E3009)
            self.write(s.ins, value, "i")
        else:
            raise NotCovered(f"the dispatch statement {k}", s.ins)

    def unless_cond(self, s, st: "_State", act) -> None:
        """``act`` (which leaves the block) when ``s.cond`` passes, else on to ``s.other``."""
        cond = self.branch_cond(s.cond)
        if cond is None:
            act()
            return
        self.conditional(cond, act)
        self.dispatch_goto(st, s.other)


class _State:
    __slots__ = ("pc", "sp", "rs", "addr", "leave", "node")

    def __init__(self, pc, sp, rs, addr, leave, node):
        self.pc, self.sp, self.rs, self.addr, self.leave, self.node = pc, sp, rs, addr, leave, node
