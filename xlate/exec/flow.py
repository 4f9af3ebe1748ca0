"""Control flow, KIL and geometry emission (GP4 §2.X.5, §2.X.8.Z BRK CAL CONT ELSE ENDIF
ENDREP IF REP RET; FP4 KIL; GEO4 EMIT/ENDPRIM; digest §7.3).

Execution model (see ``machine.py``): every lane has its own program counter; each step runs
the instruction at the smallest pc for exactly the lanes sitting there.  A flow function gets
the compiled instruction ``x``, the state, the int array ``lanes`` of those lanes and the
instruction index ``cur``; it must set ``st.pc[lanes]`` (``DEAD`` ends a lane).

Per-lane stacks (state.py): a loop stack of remaining REP counts, and a call stack of return
addresses that also remembers the loop-stack depth at the call, so that RET leaves every REP
block it is inside of (GP4 §2.X.5 "RET ... will break out of any IF/ELSE/ENDIF or REP/ENDREP
blocks").

Unstructured flow (VP2 §2.14.2.3, VP2O, VP3): BRA jumps to any label; the per-lane pcs need
nothing else.  PUSHA/POPA share the call stack with CAL/RET: a PUSHA entry has the return
address ADDRESS_ENTRY and its vector in ``st.call_addr`` (created on first use).  Dialect
limits come from the Program: ``call_overflow == "terminate"`` ends a lane at a CAL with four
entries pending; RET or POPA finding the wrong kind of entry, POPA on an empty stack and PUSHA
on a full one end it too (abnormal terminations are recorded in ``st.abnormal``);
``max_exec_instructions`` caps the step watchdog (machine.py).
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from ..ir.model import DataType, Program
from .bind import ExecError
from .operands import any_cond, cond_mask

DEAD = np.int32(np.iinfo(np.int32).max)
#: pc of a lane waiting at a compute BARRIER for the rest of its workgroup (memory.py): above
#: every instruction, so the scheduler's smallest-pc-first runs the others up to it first
PARKED = np.int32(DEAD - 1)

# A CAL made with Program.call_depth (MAX_CALL_DEPTH) calls pending is ignored (GP4 issue 38:
# "in the initial implementation ... such instructions will have no effect") unless
# Program.call_overflow says the dialect terminates the program.

#: loop count of a REP without operand (loops until BRK/RET)
INFINITE = np.int64(1) << np.int64(62)

FLOW: dict[str, Callable] = {}


def flow(*names: str):
    def deco(fn):
        for n in names:
            FLOW[n] = fn
        return fn
    return deco


# ---- static structure ---------------------------------------------------------------------------

def link(program: Program) -> tuple[dict[int, dict[str, int]], int]:
    """Match IF/ELSE/ENDIF and REP/ENDREP blocks and resolve BRK/CONT/CAL targets.

    Returns ({instruction index: {name: target index}}, deepest static REP nesting)."""
    jumps: dict[int, dict[str, int]] = {}
    stack: list[tuple[str, int]] = []
    loops: list[int] = []             # REP indices of the open loops
    breakable: list[int] = []         # REP and SWITCH indices of the open ones (BRK target)
    conts: dict[int, list[int]] = {}  # REP index -> CONT inside it (innermost loop)
    pending: dict[int, list[int]] = {}  # REP index -> BRK/CONT inside it (innermost)
    depth = 0
    for i, inst in enumerate(program.instructions):
        op = inst.op
        if op == "IF":
            stack.append(("IF", i))
            jumps[i] = {}
        elif op == "ELSE":
            if not stack or stack[-1][0] != "IF":
                raise ExecError(f"malformed program: ELSE at instruction {i} without IF")
            j = stack.pop()[1]
            jumps[j]["false"] = i + 1
            jumps[j]["else"] = i              # the false part runs inside the block
            stack.append(("ELSE", i))
            jumps[i] = {}
        elif op == "ENDIF":
            if not stack or stack[-1][0] not in ("IF", "ELSE"):
                raise ExecError(f"malformed program: ENDIF at instruction {i} without IF")
            kind, j = stack.pop()
            jumps[j]["false" if kind == "IF" else "end"] = i + 1
        elif op == "REP":
            stack.append(("REP", i))
            loops.append(i)
            breakable.append(i)
            pending[i] = []
            depth = max(depth, len(loops))
        elif op == "SWITCH":
            stack.append(("SWITCH", i))
            breakable.append(i)
            pending[i] = []
            jumps[i] = {"cases": [], "default": None}
        elif op in ("CASE", "DEFAULT"):
            if not stack or stack[-1][0] != "SWITCH":
                raise ExecError(f"malformed program: {op} at instruction {i} outside SWITCH")
            sw = jumps[stack[-1][1]]
            if op == "DEFAULT":
                sw["default"] = i + 1
            else:
                if program.registers[inst.srcs[0].reg].value is None:
                    raise ExecError(f"malformed program: CASE operand {inst.srcs[0].reg} is not "
                                    "a constant")
                sw["cases"].append((program.case_value(inst), i + 1))
        elif op == "ENDSWITCH":
            if not stack or stack[-1][0] != "SWITCH":
                raise ExecError(f"malformed program: ENDSWITCH at instruction {i} without SWITCH")
            j = stack.pop()[1]
            breakable.pop()
            if jumps[j]["default"] is None:
                jumps[j]["default"] = i + 1
            for b in pending.pop(j):
                jumps[b] = {"exit": i + 1, "switch": True}
        elif op == "ENDREP":
            if not stack or stack[-1][0] != "REP":
                raise ExecError(f"malformed program: ENDREP at instruction {i} without REP")
            j = stack.pop()[1]
            loops.pop()
            breakable.pop()
            jumps[j] = {"skip": i + 1}
            jumps[i] = {"top": j + 1, "exit": i + 1}
            for b in pending.pop(j):
                jumps[b] = {"exit": i + 1, "endrep": i}
            for c in conts.pop(j, []):
                jumps[c] = {"exit": i + 1, "endrep": i}
        elif op == "BRK":
            # BRK leaves the innermost REP or SWITCH (TGSI: "break innermost loop or switch")
            if not breakable:
                raise ExecError(f"malformed program: BRK at instruction {i} outside REP")
            pending[breakable[-1]].append(i)
        elif op == "CONT":
            if not loops:
                raise ExecError(f"malformed program: CONT at instruction {i} outside REP")
            conts.setdefault(loops[-1], []).append(i)
        elif op in ("CAL", "BRA"):
            if inst.label not in program.labels:
                raise ExecError(f"malformed program: {op} to undefined label {inst.label!r}")
            jumps[i] = {"target": program.labels[inst.label]}
    if stack:
        kind, j = stack[-1]
        raise ExecError(f"malformed program: {kind} at instruction {j} is never closed")
    return jumps, depth


# ---- IF / ELSE / ENDIF ------------------------------------------------------------------------

# Run-time nesting (FP2 3.11.X.7-9, Program.nesting_limits): ``st.if_depth`` counts the IF blocks
# a lane is inside, those of its callers included; ``st.loop_depth`` already counts its active
# REP blocks.  An IF with nesting_limits[0] IF blocks active, or a REP (FP2 LOOP/REP) with
# nesting_limits[1] loops active, terminates the lane abnormally (its results are kept: "it will
# emit a fragment whose attributes are taken from the final values").  A block left early --
# BRK (back to the depth at the REP), RET (to the depth at the CAL) -- takes its IF blocks with
# it.  Only tracked when the program has the limits.

def _if_depth(st) -> np.ndarray:
    d = getattr(st, "if_depth", None)
    if d is None:
        d = st.if_depth = np.zeros(st.lanes, np.int32)
        st.loop_if = np.zeros_like(st.loop_count, dtype=np.int32)   # if_depth at each REP
        st.call_if = np.zeros_like(st.call_ret)                      # if_depth at each CAL
    return d


@flow("IF")
def op_if(x, st, lanes, cur):
    # GP4 IF: passes if any of the four swizzled CC tests passes; else continue after the
    # matching ELSE (if present) or ENDIF.
    take = any_cond(st, x.inst.cond, lanes)
    new = np.where(take, cur + 1, x.jump["false"]).astype(np.int32)
    limits = st.program.nesting_limits
    if limits is not None:
        depth = _if_depth(st)
        over = depth[lanes] >= limits[0]
        _abnormal(st, lanes[over])
        new[over] = DEAD
        inside = ~over & (take | ("else" in x.jump))     # the true part, or the ELSE part
        depth[lanes[inside]] += 1
    st.pc[lanes] = new


@flow("ELSE")
def op_else(x, st, lanes, cur):
    # GP4 ELSE: reached from the true part -> continue after ENDIF
    if st.program.nesting_limits is not None:
        _if_depth(st)[lanes] -= 1
    st.pc[lanes] = x.jump["end"]


@flow("ENDIF")
def op_endif(x, st, lanes, cur):
    if st.program.nesting_limits is not None:
        _if_depth(st)[lanes] -= 1
    st.pc[lanes] = cur + 1                    # GP4 ENDIF: no other effect


# ---- REP / ENDREP / BRK / CONT ----------------------------------------------------------------

def _rep_count(x, st, lanes) -> np.ndarray:
    """GP4 REP: LoopCount = floor(op.x) for floats, the integer for .S/.U; read once when the
    loop is entered (GP4 issue 17).  Project choice: a NaN count is 0 (block skipped), huge
    counts saturate to the int64 range (the step watchdog ends them)."""
    v = x.loaders[0](st, lanes)[:, 0]
    if x.t == DataType.FLOAT:
        d = np.floor(v.astype(np.float64))
        d = np.where(np.isnan(d), 0.0, np.clip(d, -INFINITE + 1, INFINITE - 1))
        return d.astype(np.int64)
    return v.astype(np.int64)


@flow("REP")
def op_rep(x, st, lanes, cur):
    limits = st.program.nesting_limits
    over = None
    if limits is not None:
        # FP2 3.11.X.8/9: "if (LOOP block nested too deeply) terminate" -- before the count
        over = st.loop_depth[lanes] >= limits[1]
        _abnormal(st, lanes[over])
    if x.loaders:
        count = np.broadcast_to(_rep_count(x, st, lanes), lanes.shape)
    else:
        count = np.full(lanes.shape, INFINITE)      # REP without count: until BRK/RET
    enter = count > 0                                 # GP4 REP: count <= 0 skips the block
    if over is not None:
        enter &= ~over
    ln = lanes[enter]
    d = st.loop_depth[ln]
    if len(d) and d.max() >= st.loop_count.shape[1]:
        raise RuntimeError("loop stack overflow (malformed program?)")
    st.loop_count[ln, d] = count[enter]
    if limits is not None:
        depth = _if_depth(st)
        st.loop_if[ln, d] = depth[ln]
    st.loop_depth[ln] = d + 1
    new = np.where(enter, cur + 1, x.jump["skip"]).astype(np.int32)
    if over is not None:
        new[over] = DEAD
    st.pc[lanes] = new


@flow("ENDREP")
def op_endrep(x, st, lanes, cur):
    # GP4 ENDREP: LoopCount--; loop while > 0; a count-less REP always loops.
    d = np.maximum(st.loop_depth[lanes] - 1, 0)
    c = st.loop_count[lanes, d]
    inf = c == INFINITE
    c = np.where(inf, c, c - 1)
    again = inf | (c > 0)
    st.loop_count[lanes, d] = c
    st.loop_depth[lanes[~again]] = d[~again]
    st.pc[lanes] = np.where(again, x.jump["top"], x.jump["exit"])


@flow("BRK")
def op_brk(x, st, lanes, cur):
    # GP4 BRK: if the (optional) test passes, continue after the innermost ENDREP.
    # Inside a SWITCH (TGSI): continue after its ENDSWITCH; no loop is left.
    take = any_cond(st, x.inst.cond, lanes)
    if not x.jump.get("switch"):
        ln = lanes[take]
        st.loop_depth[ln] = np.maximum(st.loop_depth[ln] - 1, 0)
        if st.program.nesting_limits is not None:
            depth = _if_depth(st)
            depth[ln] = st.loop_if[ln, st.loop_depth[ln]]            # IF blocks left with it
    st.pc[lanes] = np.where(take, x.jump["exit"], cur + 1)


# ---- SWITCH / CASE / DEFAULT / ENDSWITCH (TGSI, tgsi.md 2.6 and 3) ------------------------------

@flow("SWITCH")
def op_switch(x, st, lanes, cur):
    # tgsi.rst SWITCH: jump to the CASE whose constant equals src.x (compared as unsigned bits),
    # else to DEFAULT wherever it is, else past ENDSWITCH; execution then falls through the
    # following labels until BRK.  The first matching CASE wins.
    sel = x.loaders[0](st, lanes)[:, 0].astype(np.uint32)
    target = np.full(lanes.shape, x.jump["default"], dtype=np.int32)
    done = np.zeros(lanes.shape, dtype=bool)
    for value, at in x.jump["cases"]:
        hit = ~done & (sel == np.uint32(value))
        target[hit] = at
        done |= hit
    st.pc[lanes] = target


@flow("CASE", "DEFAULT", "ENDSWITCH")
def op_case(x, st, lanes, cur):
    st.pc[lanes] = cur + 1                    # labels: fall through


@flow("CONT")
def op_cont(x, st, lanes, cur):
    # GP4 CONT: if the (optional) test passes, continue at the innermost ENDREP
    take = any_cond(st, x.inst.cond, lanes)
    if st.program.nesting_limits is not None:
        ln = lanes[take]
        depth = _if_depth(st)
        depth[ln] = st.loop_if[ln, np.maximum(st.loop_depth[ln] - 1, 0)]
    st.pc[lanes] = np.where(take, x.jump["endrep"], cur + 1)


# ---- CAL / RET ---------------------------------------------------------------------------------

@flow("CAL")
def op_cal(x, st, lanes, cur):
    # GP4 CAL: if the test passes, push the next instruction and jump to the label.  A CAL with
    # MAX_PROGRAM_CALL_DEPTH calls pending is undefined in GP4; project choice (GP4 issue 38):
    # ignored.  Program.call_overflow == "terminate" (VP2 §2.14.3.7, VP2O, FP2): the program
    # terminates (abnormally) instead.
    take = any_cond(st, x.inst.cond, lanes)
    depth = st.call_depth[lanes]
    go = take & (depth < st.call_limit)
    ln, d = lanes[go], depth[go]
    st.call_ret[ln, d] = cur + 1
    st.call_loop[ln, d] = st.loop_depth[ln]
    if st.program.nesting_limits is not None:
        depth = _if_depth(st)
        st.call_if[ln, d] = depth[ln]
    st.call_depth[ln] = d + 1
    new = np.where(go, x.jump["target"], cur + 1).astype(np.int32)
    if st.program.call_overflow == "terminate":
        over = take & ~go
        _abnormal(st, lanes[over])
        new[over] = DEAD
    st.pc[lanes] = new


@flow("RET")
def op_ret(x, st, lanes, cur):
    # GP4 RET: if the test passes, pop and return (leaving any enclosing IF/REP blocks); with an
    # empty call stack the program terminates normally.  VP3 §2.14.5.34: an entry pushed by
    # PUSHA on top of the stack terminates the program abnormally.
    take = any_cond(st, x.inst.cond, lanes)
    depth = st.call_depth[lanes]
    end = take & (depth == 0)
    pop = take & (depth > 0)
    ln, d = lanes[pop], depth[pop] - 1
    new = np.full(lanes.shape, cur + 1, np.int32)
    target = st.call_ret[ln, d]
    new[pop] = target
    new[end] = DEAD
    bad = np.zeros(lanes.shape, bool)
    bad[pop] = target == ADDRESS_ENTRY
    new[bad] = DEAD
    _abnormal(st, lanes[bad])
    st.loop_depth[ln] = st.call_loop[ln, d]
    if st.program.nesting_limits is not None:
        depth = _if_depth(st)
        depth[ln] = st.call_if[ln, d]              # RET leaves the subroutine's IF blocks
    st.call_depth[ln] = d
    st.pc[lanes] = new


# ---- BRA, PUSHA / POPA (VP2, ARB + NV_vertex_program2/3) ------------------------------------

#: call-stack entries pushed by PUSHA carry this return address (VP3: the call stack holds
#: instruction references and address vectors; the vectors are kept in ``st.call_addr``)
ADDRESS_ENTRY = np.int32(-1)


def _abnormal(st, lanes) -> None:
    """Record an abnormal termination (VP2 §2.14.2.3, VP3 §2.14.5.34/43/44): the lane stops
    with the results it has (VP2: "it will emit a vertex whose attributes are taken from the
    final values of the vertex result registers"; the ARB options call them undefined)."""
    if len(lanes):
        if getattr(st, "abnormal", None) is None:
            st.abnormal = np.zeros(st.lanes, bool)
        st.abnormal[lanes] = True


def _addr_stack(st) -> np.ndarray:
    stack = getattr(st, "call_addr", None)
    if stack is None:
        stack = st.call_addr = np.zeros((st.lanes, st.call_limit, 4), np.uint32)
    return stack


@flow("BRA")
def op_bra(x, st, lanes, cur):
    # VP2 §2.14.3.6 BRA: if any of the four swizzled CC tests passes, continue at the
    # instruction following the label; otherwise with the next instruction.
    take = any_cond(st, x.inst.cond, lanes)
    st.pc[lanes] = np.where(take, x.jump["target"], cur + 1)


@flow("PUSHA")
def op_pusha(x, st, lanes, cur):
    # VP3 §2.14.5.44 PUSHA: push the address register vector on the call stack; a full stack
    # (MAX_PROGRAM_CALL_DEPTH_NV entries) terminates the program abnormally.
    value = np.broadcast_to(x.loaders[0](st, lanes).view(np.uint32), (len(lanes), 4))
    depth = st.call_depth[lanes]
    ok = depth < st.call_limit
    ln, d = lanes[ok], depth[ok]
    _addr_stack(st)[ln, d] = value[ok]
    st.call_ret[ln, d] = ADDRESS_ENTRY
    st.call_loop[ln, d] = st.loop_depth[ln]
    st.call_depth[ln] = d + 1
    _abnormal(st, lanes[~ok])
    st.pc[lanes] = np.where(ok, cur + 1, DEAD)


@flow("POPA")
def op_popa(x, st, lanes, cur):
    # VP3 §2.14.5.43 POPA: pop an address vector into the destination (write mask .xyzw); an
    # empty stack or a return address on top terminates abnormally.  A CC write mask (E3009,
    # accepted as NVIDIA's drivers did) makes the write conditional; the pop happens anyway.
    depth = st.call_depth[lanes]
    d = np.maximum(depth - 1, 0)
    ok = (depth > 0) & (st.call_ret[lanes, d] == ADDRESS_ENTRY)
    ln, dd = lanes[ok], d[ok]
    if len(ln):
        reg = st.regs[x.inst.dst.reg]
        value = _addr_stack(st)[ln, dd]
        if x.inst.dst.cond is not None:
            value = np.where(cond_mask(st, x.inst.dst.cond, ln), value, reg[ln, 0, :])
        reg[ln, 0, :] = value
        st.call_depth[ln] = dd
    _abnormal(st, lanes[~ok])
    st.pc[lanes] = np.where(ok, cur + 1, DEAD)


# ---- KIL ------------------------------------------------------------------------------------------

@flow("KIL")
def op_kil(x, st, lanes, cur):
    # FP4 KIL: with a CC test, kill if any of the four swizzled tests passes; with a vector
    # operand, kill if any component < 0 (.F IEEE: -0.0 and NaN do not kill; .S signed;
    # .U never).  A killed fragment stops executing.
    if x.inst.cond is not None or not x.loaders:
        kill = any_cond(st, x.inst.cond, lanes)
    elif x.t == DataType.UINT:
        kill = np.zeros(lanes.shape, bool)
    else:
        a = x.loaders[0](st, lanes)
        kill = np.broadcast_to((a < 0).any(axis=1), lanes.shape)
        if x.hook is not None:          # the verifier's replay may take the other permitted one
            kill = x.hook.kill_decision(x, st, lanes, kill, a)
    if st.program.kills_as_flags:
        # a verifier probe program: the lane runs on, out of the inter-lane opcodes' reach
        st.flagged[lanes[kill]] = True
        st.pc[lanes] = cur + 1
        return
    st.killed[lanes[kill]] = True
    st.pc[lanes] = np.where(kill, DEAD, cur + 1)


@flow("DEMOTE")
def op_demote(x, st, lanes, cur):
    # tgsi.rst DEMOTE: the invocation becomes a helper -- its outputs are discarded (recorded
    # as killed) but it keeps executing, so its neighbours' derivatives stay defined
    st.killed[lanes] = True
    st.pc[lanes] = cur + 1


# ---- EMIT / ENDPRIM ---------------------------------------------------------------------------

@flow("EMIT")
def op_emit(x, st, lanes, cur):
    # GEO4 EMIT: snapshot every result (OUTPUT register) as a vertex of the current strip.
    # Project choices: results keep their values after EMIT (GEO4: undefined); vertices beyond
    # VERTICES_OUT are ignored ("may or may not have any effect").
    ok = st.emitted[lanes] < st.vertices_out
    ln = lanes[ok]
    if len(ln):
        snap = {name: st.regs[name][ln].copy() for name in st.output_names}
        st.records.append((ln.copy(), st.strip[ln].copy(), snap))
        st.emitted[ln] += 1
    st.pc[lanes] = cur + 1


@flow("ENDPRIM")
def op_endprim(x, st, lanes, cur):
    # GEO4 ENDPRIM: end the current strip and start a new one (empty strips are dropped later)
    st.strip[lanes] += 1
    st.pc[lanes] = cur + 1
