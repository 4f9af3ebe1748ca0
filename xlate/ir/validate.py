"""IR invariants.  Run after the frontend and after every pass (tests do); a violation is a
bug in xlate, never a user error, so it raises IRValidationError naming the instruction."""
from __future__ import annotations

from .carry import instruction_carry
from .model import CCKind, DataType, Index, Program, RegKind
from .ops import CARRY_OPS, CC_RULES, OPCODES

_CARRY_KINDS = (CCKind.ADD, CCKind.SUB, CCKind.UNDEF_OFCF)


class IRValidationError(AssertionError):
    pass


def validate(prog: Program) -> None:
    problems: list[str] = []

    def bad(i: int | None, msg: str) -> None:
        where = f"instruction {i} ({prog.instructions[i].op})" if i is not None else "program"
        problems.append(f"{where}: {msg}")

    regs = prog.registers
    for name, reg in regs.items():
        if reg.name != name:
            bad(None, f"register key {name!r} differs from its name {reg.name!r}")
        if reg.kind == RegKind.CONST and (not reg.value or len(reg.value) != 1):
            bad(None, f"constant {name} has no value")
        if reg.kind in (RegKind.INPUT, RegKind.OUTPUT, RegKind.PARAM) and len(reg.bindings) != reg.length:
            bad(None, f"{name}: {len(reg.bindings)} bindings for {reg.length} elements")
        if reg.kind == RegKind.PARAM and any(b is None for b in reg.bindings) and (
                reg.value is None or len(reg.value) != reg.length):
            bad(None, f"{name}: constant elements without values")

    def check_index(i, idx: Index | None, size: int | None, what: str):
        if idx is None:
            if size is not None:
                bad(i, f"{what}: array used without index")
            return
        if size is None:
            bad(i, f"{what}: index on a non-array")
            return
        if not idx.relative and not 0 <= idx.offset < size:
            bad(i, f"{what}: index {idx.offset} out of range {size}")
        if idx.relative:
            r = regs.get(idx.reg)
            if r is None or r.size is not None:
                bad(i, f"{what}: bad index register {idx.reg}")
            if not 0 <= idx.comp < 4:
                bad(i, f"{what}: bad index component")

    depth = []
    for i, ins in enumerate(prog.instructions):
        info = OPCODES.get(ins.op)
        if info is None:
            bad(i, "unknown opcode")
            continue
        if info.writes and info.category != "flow" and ins.dst is None:
            bad(i, "missing destination")
        if not info.writes and ins.dst is not None:
            bad(i, "destination on an opcode without result")
        expected = len(info.inputs)
        if ins.op == "REP":
            ok = len(ins.srcs) in (0, 1)
        elif ins.op == "KIL":
            ok = (len(ins.srcs) == 1) != (ins.cond is not None)
        else:
            ok = len(ins.srcs) == expected
        if not ok:
            bad(i, f"{len(ins.srcs)} sources")
        if (info.category == "tex") != (ins.tex is not None):
            bad(i, "texture reference mismatch")
        if (ins.op in ("LOAD", "STORE", "RESQ", "IMGLOAD", "IMGSTORE") or ins.op.startswith("ATOM")) \
                and (ins.mem is None or ins.mem.resource not in prog.resources):
            bad(i, "memory access without a declared resource")
        if ins.cc_update is not None and (ins.cc_kind is None or ins.cc_update not in (0, 1)):
            bad(i, "CC update without flag rule")
        if ins.cc_kind in _CARRY_KINDS and (ins.op not in CARRY_OPS or ok and instruction_carry(ins).kind != ins.cc_kind):
            # the carry/overflow rule is ir/carry.py's (negations turn adds into subtracts)
            bad(i, f"flag rule {ins.cc_kind.value} is not the carry rule of {ins.op} with these negations")
        for cond in (ins.cond, ins.dst.cond if ins.dst else None):
            if cond is not None and (cond.rule not in CC_RULES or cond.cc not in (0, 1)):
                bad(i, f"bad condition {cond}")
        if ins.op == "CAL" and ins.label not in prog.labels:
            bad(i, f"CAL to unknown label {ins.label}")
        if ins.dtype not in (DataType.FLOAT, DataType.INT, DataType.UINT):
            bad(i, "instruction without a data type")
        for j, src in enumerate(ins.srcs):
            reg = regs.get(src.reg)
            if reg is None:
                bad(i, f"source {j}: unknown register {src.reg}")
                continue
            if reg.kind == RegKind.OUTPUT:
                bad(i, f"source {j}: reads output {src.reg}")
            check_index(i, src.index, reg.size, f"source {j}")
            if reg.per_vertex != (src.vertex is not None):
                bad(i, f"source {j}: vertex index mismatch")
            if len(src.swizzle) != 4 or any(not 0 <= s <= 5 for s in src.swizzle):
                bad(i, f"source {j}: bad swizzle")
        if ins.dst is not None:
            reg = regs.get(ins.dst.reg)
            if reg is None:
                bad(i, f"destination: unknown register {ins.dst.reg}")
            else:
                if reg.kind not in (RegKind.TEMP, RegKind.OUTPUT):
                    bad(i, f"destination: {reg.kind.value} register {reg.name}")
                check_index(i, ins.dst.index, reg.size, "destination")
        if ins.op in ("IF", "REP", "SWITCH"):
            depth.append(ins.op)
        elif ins.op in ("CASE", "DEFAULT") and (not depth or depth[-1] != "SWITCH"):
            bad(i, f"{ins.op} outside SWITCH")
        elif ins.op == "ENDSWITCH":
            if not depth or depth[-1] != "SWITCH":
                bad(i, "unbalanced ENDSWITCH")
            else:
                depth.pop()
        elif ins.op == "ELSE" and (not depth or depth[-1] != "IF"):
            bad(i, "ELSE outside IF")
        elif ins.op in ("ENDIF", "ENDREP"):
            want = "IF" if ins.op == "ENDIF" else "REP"
            if not depth or depth[-1] != want:
                bad(i, f"unbalanced {ins.op}")
            else:
                depth.pop()
        elif ins.op == "CONT" and "REP" not in depth:
            bad(i, "CONT outside a loop")
        elif ins.op == "BRK" and "REP" not in depth and "SWITCH" not in depth:
            bad(i, "BRK outside a loop or switch")
    if depth:
        bad(None, f"unclosed blocks {depth}")
    for name, at in prog.labels.items():
        if not 0 <= at <= len(prog.instructions):
            bad(None, f"label {name} at {at} out of range")
    if not 0 <= prog.entry <= len(prog.instructions):
        bad(None, "entry out of range")
    if problems:
        raise IRValidationError("invalid IR:\n  " + "\n  ".join(problems))
