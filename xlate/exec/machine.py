"""Compile a Program into per-instruction closures and run them over a chunk of lanes.

Where an opcode is executed: :data:`EXECUTORS` maps every opcode of ``xlate.ir.ops.OPCODES``
to its function -- ``alu.py`` (arithmetic/logic), ``texture.py`` (texture ops), ``flow.py``
(IF/REP/CAL/..., KIL, EMIT/ENDPRIM).

Scheduling (ARCHITECTURE.md "The executor"): per-lane program counters; each step runs the
instruction at the smallest pc among live lanes, for exactly the lanes sitting at it.  While
every lane is alive and at the same pc ("uniform"), ALU instructions run on whole arrays
without gathering and the pc is one integer; a flow instruction or a partial step drops to the
general path, and the machine returns to the uniform path as soon as all lanes meet again.
"""
from __future__ import annotations

from types import MappingProxyType
from typing import Callable

import numpy as np

from ..ir.model import CCKind, DataType, Instruction, Program, RegKind, Sat
from ..ir.ops import CARRY_OPS, OPCODES, OpInfo
from . import cc as ccmod
from .alu import ALU
from . import alu_dialects  # noqa: F401  (registers the other dialects' opcodes in ALU)
from . import doubles  # noqa: F401  (registers the double-precision opcodes in ALU)
from . import interp  # noqa: F401  (registers the interpolation opcodes in ALU)
from . import subgroup  # noqa: F401  (registers the inter-lane opcodes in ALU)
from .bind import ExecError
from .flow import DEAD, FLOW, PARKED, link
from .operands import F32, U32, cond_mask, make_loader, make_writer, saturate
from .state import State
from .texture import TEX
from .memory import MEM

#: opcode -> executor function (ALU/texture: fn(x, *operands) -> result; flow: fn(x, st,
#: lanes, cur))
EXECUTORS: dict[str, Callable] = {**ALU, **TEX, **FLOW, **MEM}

_NO_JUMPS = MappingProxyType({})    # shared by the instructions without jumps: read-only
_SAT = {Sat.SAT: (0.0, 1.0), Sat.SSAT: (-1.0, 1.0)}


class Op:
    """One compiled instruction.  ``shared``: the operand loaders and destination writers
    compiled so far, keyed by what they are built from (see compile_program)."""

    __slots__ = ("index", "inst", "info", "t", "rt", "fn", "loaders", "write", "kind", "sat",
                 "cc_reg", "cc_kind", "carry", "cond", "jump", "stage", "st", "idx", "cost",
                 "hook")

    def __init__(self, index: int, inst: Instruction, info: OpInfo, program: Program,
                 jump: dict[str, int] | None, shared: dict):
        self.index = index
        self.inst = inst
        self.info = info
        self.stage = program.stage
        self.jump = jump or _NO_JUMPS
        self.st = None
        self.idx = None
        self.hook = None
        # Programs with an executed-instruction limit (VP2, ARB + NV options): instructions a
        # frontend synthesized (``text`` "(...)": result initialisation, the VP2 address clamp
        # steps, position-invariant transforms) are not program instructions and do not count
        # against Program.max_exec_instructions; everywhere else every instruction counts.
        self.cost = 0 if (program.max_exec_instructions is not None
                          and inst.text.startswith("(")) else 1
        t = inst.dtype
        if inst.op == "MUL" and inst.mul_mode in ("S24", "U24"):
            t = DataType.INT if inst.mul_mode == "S24" else DataType.UINT   # implied type (GP4 MUL)
        if t == DataType.NONE or not info.allows(t):
            t = info.default
        self.t = t
        self.rt = info.result_type(t)
        self.fn = EXECUTORS[inst.op]
        # memory instructions run as flow ones (fn(x, st, lanes, cur)): they see the lanes in
        # order and the workgroup's state (memory.py)
        self.kind = "flow" if info.category in ("flow", "kill", "geom", "mem") else "alu"
        if len(inst.srcs) > len(info.inputs):
            raise ExecError(f"instruction {index} ({inst.op}): {len(inst.srcs)} operands, "
                            f"expected {len(info.inputs)}")
        if self.kind == "alu" and len(inst.srcs) != len(info.inputs):
            raise ExecError(f"instruction {index} ({inst.op}): {len(inst.srcs)} operands, "
                            f"expected {len(info.inputs)}")
        for s in inst.srcs:
            for name in (s.reg, s.index.reg if s.index else None, s.vertex.reg if s.vertex else None):
                if name is not None and name not in program.registers:
                    raise ExecError(f"instruction {index} ({inst.op}): unknown register {name!r}")
        loaders = []
        for i, s in enumerate(inst.srcs):
            key = (s, info.operand_type(i, t), info.inputs[i] == "s")
            load = shared.get(key)
            if load is None:
                load = shared[key] = make_loader(program, s, *key[1:])
            loaders.append(load)
        self.loaders = tuple(loaders)
        self.cond = inst.dst.cond if inst.dst is not None else None
        self.sat = _SAT.get(inst.sat) if self.rt == DataType.FLOAT else None
        self.cc_reg = inst.cc_update
        self.cc_kind = inst.cc_kind or ccmod.default_kind(inst, self.rt)
        self.carry = (self.cc_kind in (CCKind.ADD, CCKind.SUB) and inst.op in CARRY_OPS
                      and self.rt != DataType.FLOAT)
        if self.kind == "alu":
            if inst.dst is not None and inst.dst.reg not in program.registers:
                raise ExecError(f"instruction {index} ({inst.op}): unknown register "
                                f"{inst.dst.reg!r}")
            if inst.dst is not None:
                kind = program.registers[inst.dst.reg].kind
                if kind not in (RegKind.TEMP, RegKind.OUTPUT, RegKind.CC):
                    raise ExecError(f"instruction {index} ({inst.op}): cannot write "
                                    f"{kind.value} register {inst.dst.reg!r}")
            key = (inst.dst, inst.precision)
            write = shared.get(key)
            if write is None:
                write = shared[key] = make_writer(program, inst.dst, inst.precision)
            self.write = write
        elif info.category == "mem" and inst.dst is not None:
            self.write = make_writer(program, inst.dst, None)
        else:
            self.write = None


def compile_program(program: Program, hooks=None) -> tuple[list[Op], int]:
    """Compile every instruction.  ``hooks``: an optional :class:`ResultHook` (see
    :func:`run_alu`) whose ``instructions`` name the ALU/texture instructions it sees."""
    jumps, loop_depth = link(program)
    # Operand loaders and destination writers are pure functions of what they are built from
    # (Source + operand type + scalar; Dest + precision; the IR values compare by value), so
    # instructions that read or write the same operand share one: shaders repeat operands
    # (R0, c[0].x, ...), and a compiled program of 3,200 instructions held ~8 MB of distinct
    # closures, enough to spill the CPU cache and make the compile and the run of a longer
    # program slower per instruction (tools/bench_scaling.py exec ratios).
    shared: dict = {}
    code = []
    for i, inst in enumerate(program.instructions):
        info = OPCODES.get(inst.op)
        if info is None or inst.op not in EXECUTORS:
            raise ExecError(f"instruction {i}: unknown opcode {inst.op!r}")
        code.append(Op(i, inst, info, program, jumps.get(i), shared))
    if hooks is not None:
        for i in hooks.instructions:
            if code[i].write is not None or code[i].kind == "flow":
                code[i].hook = hooks
    return code, loop_depth


def _flags(x: Op, ops, res: np.ndarray, bits: np.ndarray) -> np.ndarray:
    """CC update flags of the value written (after saturation) -- GP4 §2.X.4.3; rule per
    ``Instruction.cc_kind`` (cc.py)."""
    k = x.cc_kind
    if k == CCKind.FLOAT:
        return ccmod.flags_float(bits.view(F32))
    if x.carry:
        return ccmod.carry_flags(x.inst, k, ops, bits)
    return ccmod.flags_int(bits)       # INT, UNDEF_OFCF (OF/CF cleared), non-carry ops


def run_alu(x: Op, st: State, idx) -> None:
    x.st, x.idx = st, idx
    ops = [ld(st, idx) for ld in x.loaders]          # all operands before any write (§4.1)
    res = x.fn(x, *ops)
    if res.ndim == 1:
        res = res[:, None]
    if x.sat is not None:
        res = saturate(res, *x.sat)                  # float results only (§4.3 step 2)
    if res.shape[1] != 4:
        res = np.broadcast_to(res, (res.shape[0], 4))  # scalar results replicate
    bits = res.view(U32)
    cmask = cond_mask(st, x.cond, idx) if x.cond is not None else None
    if x.hook is not None:
        # a result hook (xlate.verify.replay) sees the result before it is written and may
        # replace it; the flags are then computed from what it returns
        bits, cmask = x.hook(x, st, idx, ops, bits, cmask)
        res = bits.view(F32)
    flags = _flags(x, ops, res, bits) if x.cc_reg is not None else None
    x.write(st, idx, bits, flags, x.cc_reg, cmask)


def run_chunk(code: list[Op], st: State, max_steps: int) -> None:
    limit = st.program.max_exec_instructions
    if limit is not None:
        # VP2 §2.14.2.3: "a vertex program will terminate abnormally after executing 65536
        # instructions" (Program.max_exec_instructions): the step watchdog stops each lane
        # once it has executed that many instructions (ExecResult.steps_exceeded).
        max_steps = min(max_steps, limit)
    n = len(code)
    L = st.lanes
    pc = st.pc
    steps = st.steps
    uniform = True
    upc = int(pc[0]) if L else n
    pending = 0                 # steps taken in uniform mode, not yet added to `steps`
    base_max = 0                # steps.max() when uniform mode was (re-)entered
    bound = 0                   # upper bound of steps.max() in the general path
    with np.errstate(all="ignore"):
        while True:
            if uniform:
                if upc >= n:
                    break                                   # every lane ran off the end
                if base_max + pending >= max_steps:         # watchdog: leave to the slow path
                    steps += pending
                    pending = 0
                    pc[:] = upc
                    uniform = False
                    bound = max_steps
                    continue
                x = code[upc]
                pending += x.cost
                if x.kind == "alu":
                    run_alu(x, st, None)
                    upc += 1
                    continue
                steps += pending
                pending = 0
                pc[:] = upc
                if x.hook is not None:
                    x.hook.before_flow(x, st, st.all_lanes)
                x.fn(x, st, st.all_lanes, upc)
                lo, hi = pc.min(), pc.max()
                if lo == hi and lo != DEAD:
                    upc = int(lo)
                    base_max = int(steps.max())
                else:
                    uniform = False
                    bound = int(steps.max())
                continue

            cur = int(pc.min())
            if cur == DEAD:
                break
            if cur == PARKED:       # lanes wait at a BARRIER the rest of the group never reaches
                from .memory import barrier_never_completed
                barrier_never_completed(st)
            if cur >= n:                                    # ran past the last instruction
                pc[(pc >= n) & (pc < PARKED)] = DEAD
                continue
            here = pc == cur
            if bound >= max_steps:                          # the step watchdog may fire
                over = here & (steps >= max_steps)
                if over.any():
                    st.exceeded |= over
                    pc[over] = DEAD
                    steps[over] = 0                         # dead lanes no longer count
                    here &= ~over
                bound = int(steps.max())
                if not here.any():
                    continue
            x = code[cur]
            if x.cost:
                steps += here
            bound += 1
            everyone = bool(here.all())
            sel = st.all_lanes if everyone else np.flatnonzero(here)
            if x.kind == "alu":
                run_alu(x, st, None if everyone else sel)
                if everyone:
                    uniform, upc, base_max = True, cur + 1, int(steps.max())
                else:
                    pc += here
            else:
                if x.hook is not None:
                    x.hook.before_flow(x, st, sel)
                x.fn(x, st, sel, cur)
                if everyone:
                    lo, hi = pc.min(), pc.max()
                    if lo == hi and lo != DEAD:
                        uniform, upc, base_max = True, int(lo), int(steps.max())
    if uniform and pending:
        steps += pending
