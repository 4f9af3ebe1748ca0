"""Control flow: the structured tree's blocks, loops, switches and the general (goto) path, the
subroutine copies per call depth, and the line tags that give the line map."""
from __future__ import annotations


import math
import re
import struct

from ...ir.model import (MAX_CALL_DEPTH, DataType, Instruction, RegKind, Source)
from ...passes.structurize import Dispatch, Goto, Labeled
from ...passes.structurize import If, Jump, Loop, Op, Switch

from .records import _escaping
from ..literals import negate_bits
from .text import bitcast, components


class ControlFlow:
    """Part of :class:`~xlate.backends.glsl.emitter.GlslEmitter` (mixed in)."""

    # ---- control flow --------------------------------------------------------------------------------
    def emit_body(self, nodes: list, depth: int, in_main: bool) -> list[str]:
        out: list[str] = []
        pad = "    " * depth
        previous = None
        plain = not self.comments and not self.line_directives
        for node in nodes:
            if isinstance(node, Op):
                before, lines = self.print_op(node.ins, pad)
                if before:
                    out += before
                span = node.ins.span
                if plain and span is not None and span.line and len(lines) == 1 \
                        and "\n" not in lines[0] and "\x00" not in lines[0]:
                    # the usual statement: one line, tagged with its source line (tag_lines)
                    if lines[0].strip():
                        out.append(f"{pad}{lines[0]}\x00{span.line}\x00")
                    else:
                        out.append(pad + lines[0])
                    continue
                lines, previous = self.tag_lines(node, [pad + x for x in lines], pad, previous)
                out += lines
                continue
            lines, previous = self.tag_lines(node, self.emit_node(node, depth, in_main), pad, previous)
            out += lines
        return out

    def tag_lines(self, node, lines: list[str], pad: str, previous: str | None = None):
        """Tag the lines a node produced with its source line (lines tagged by an inner node
        keep theirs), and with ``comments`` put the instruction's text before them -- unless
        the node before it had the same comment (one statement lowered to several
        instructions).  Returns the lines and the comment."""
        ins = getattr(node, "ins", None)
        if ins is None:
            return lines, previous
        line = ins.span.line if ins.span is not None else 0
        out = lines
        if line:
            tag = f"\x00{line}\x00"
            if self.line_directives and isinstance(node, Op) and len(lines) > 1 and not any(
                    "//" in x for x in lines[:-1]):
                # one physical line per instruction: one #line makes all of it its source line
                lines = [lines[0][:len(lines[0]) - len(lines[0].lstrip())]
                         + " ".join(x.strip() for x in lines)]
            out = []
            for text in lines:
                # the usual line is one statement: split only the few that hold several
                parts = text.split("\n") if "\n" in text else (text,)
                out += [part if "\x00" in part or not part.strip() else part + tag
                        for part in parts]
        comment = None
        if self.comments and lines:
            text = self.comment_text(ins)
            comment = f"{line}:{text}"
            if comment != previous:     # a comment line is tagged "c": any number may do for it
                out.insert(0, f"{pad}// {text}" + (f"\x00{line}c\x00" if line else ""))
        return out, comment

    def comment_text(self, ins: Instruction) -> str:
        """The instruction as the source wrote it (the caller's ``instruction_text``), else as
        the IR printer writes it; printable ASCII only (GLSL 3.30's character set), and no
        trailing backslash, which would continue the comment onto the code line."""
        text = self.instruction_text(ins) if self.instruction_text is not None else None
        if not text:
            from ...ir.printer import instruction_text
            text = instruction_text(ins, self.prog)
        text = "".join(ch if " " <= ch <= "~" else "?" for ch in text)
        return text.strip().rstrip("\\").rstrip()

    def emit_node(self, node, depth: int, in_main: bool) -> list[str]:
        """The GLSL lines of one structured node."""
        out: list[str] = []
        pad = "    " * depth
        if isinstance(node, Op):
            out += [pad + line for line in self.emit_ins(node.ins)]
        elif isinstance(node, If):
            cond = self.branch_cond(node.cond) or "true"
            out.append(f"{pad}if ({cond})")
            out.append(pad + "{")
            out += self.emit_body(node.then, depth + 1, in_main)
            out.append(pad + "}")
            if node.orelse:
                out.append(pad + "else")
                out.append(pad + "{")
                out += self.emit_body(node.orelse, depth + 1, in_main)
                out.append(pad + "}")
        elif isinstance(node, Loop):
            out += self.emit_loop(node, depth, in_main)
        elif isinstance(node, Switch):
            out += self.emit_switch(node, depth, in_main)
        elif isinstance(node, (Labeled, Goto, Dispatch)):     # general structurizer
            out += self.emit_cfg_node(node, depth, in_main)
        elif isinstance(node, Jump):
            stmt = {"break": "break;", "continue": "continue;", "return": "return;"}.get(node.kind)
            if node.kind == "call":
                if self.depth is not None and self.depth >= MAX_CALL_DEPTH:
                    out.append(f"{pad}// CAL {node.target}: call stack full, ignored (GP4 issue 38)")
                    return out
                stmt = f"{self.call_name(node.target, None if self.depth is None else self.depth + 1)}();"
            cond = self.branch_cond(node.cond)
            out.append(f"{pad}{stmt}" if cond is None else f"{pad}if ({cond}) {stmt}")
        return out

    # ---- unstructured control flow (structurize.structurize_general) -------------------------
    def emit_cfg_node(self, node, depth: int, in_main: bool) -> list[str]:
        """Labeled blocks/loops, Goto exits and the dispatch fallback.  A block is
        ``do { } while (false)``, a loop ``for (;;)`` with the iteration guard; a Goto to the
        innermost construct is ``break``/``continue``, one to an outer construct sets
        ``xl_br`` to its id and breaks, and every construct it passes re-dispatches after
        itself (break on, or finish when it is the target)."""
        pad = "    " * depth
        if isinstance(node, Goto):
            k = next(j for j, c in enumerate(reversed(self.cfg_stack)) if c.id == node.target)
            target = self.cfg_stack[-1 - k]
            if k == 0:
                return [pad + ("break;" if target.kind == "block" else "continue;")]
            self.cfg_vars.add("br")
            return [f"{pad}xl_br = {target.id};", pad + "break;"]
        if isinstance(node, Dispatch):
            return self.emit_dispatch(node, depth)
        self.cfg_stack.append(node)
        body = self.emit_body(node.body, depth + 1, in_main)
        self.cfg_stack.pop()
        if node.kind == "loop":
            out = [pad + "for (;;)", pad + "{"]
            if node.guard:
                self.cfg_vars.add("iter")
                out.append(f"{pad}    if (++xl_iter > {self.cfg_limit}) return;   // "
                           "iteration guard (MAX_PROGRAM_EXEC_INSTRUCTIONS)")
            out += body
            if not body or body[-1].strip() not in ("break;", "continue;", "return;"):
                out.append(pad + "    break;")
            out.append(pad + "}")
        else:
            out = [pad + "do", pad + "{"] + body + [pad + "} while (false);"]
        escaping = _escaping(node)
        if escaping:
            parent = self.cfg_stack[-1]
            if parent.id in escaping:
                leave = "break;" if parent.kind == "block" else "continue;"
                out += [f"{pad}if (xl_br != 0)", pad + "{",
                        f"{pad}    if (xl_br == {parent.id}) {{ xl_br = 0; {leave} }}"]
                if escaping - {parent.id}:
                    out.append(pad + "    break;")
                out.append(pad + "}")
            else:
                out.append(f"{pad}if (xl_br != 0) break;")
        return out

    def emit_dispatch(self, node: Dispatch, depth: int) -> list[str]:
        """``while (true) switch (pc)`` over the basic blocks, with the return stack
        ``xl_rs`` (return block, -1 for a PUSHA entry) and the pushed address vectors
        ``xl_as`` (VP2 2.14.2.3, VP3 2.14.5.43-44)."""
        pad = "    " * depth
        self.cfg_vars.add("iter")
        out = [f"{pad}int xl_pc = {node.entry};", f"{pad}int xl_sp = 0;",
               f"{pad}int xl_rs[{MAX_CALL_DEPTH}];", f"{pad}ivec4 xl_as[{MAX_CALL_DEPTH}];",
               pad + "for (;;)", pad + "{",
               f"{pad}    if (++xl_iter > {node.limit}) return;   // iteration guard",
               f"{pad}    switch (xl_pc)", pad + "    {"]
        inner = pad + "        "

        def goto(b: int) -> list[str]:
            return [inner + "return;"] if b < 0 else [f"{inner}xl_pc = {b};", inner + "break;"]

        for blk in node.blocks:
            out.append(f"{pad}    case {blk.id}:")
            out.append(pad + "    {")
            previous = None
            for s in blk.body:
                lines, previous = self.tag_lines(s, self.emit_dstmt(s, node, inner, goto), inner,
                                                 previous)
                out += lines
            out.append(pad + "    }")
        out += [f"{pad}    default:", f"{pad}        return;", pad + "    }", pad + "}"]
        return out

    def emit_dstmt(self, s, node: Dispatch, inner: str, goto) -> list[str]:
        """One statement of a dispatch block (:meth:`emit_dispatch`)."""
        out: list[str] = []
        if isinstance(s, Op):
            return [inner + line for line in self.emit_ins(s.ins)]
        k = s.kind
        if k == "goto":
            out += goto(s.target)
        elif k == "exit":
            out.append(inner + "return;")
        elif k == "branch":
            cond = self.branch_cond(s.cond)
            out.append(f"{inner}if ({cond})")
            out.append(inner + "{")
            out += ["    " + x for x in goto(s.target)]
            out.append(inner + "}")
            out += goto(s.other)
        elif k == "call":
            cond = self.branch_cond(s.cond)
            full = "return;" if node.call_overflow == "terminate" else (
                f"{{ xl_pc = {s.other}; break; }}" if s.other >= 0 else "return;")
            lines = [f"if (xl_sp >= {MAX_CALL_DEPTH}) {full}",
                     f"xl_rs[xl_sp] = {s.other};", "xl_sp++;"] + (
                [f"xl_pc = {s.target};", "break;"] if s.target >= 0 else ["return;"])
            if cond is None:
                out += [inner + x for x in lines]
            else:
                out += [f"{inner}if ({cond})", inner + "{"] + \
                    [inner + "    " + x for x in lines] + [inner + "}"] + goto(s.other)
        elif k == "ret":
            cond = self.branch_cond(s.cond)
            lines = ["if (xl_sp == 0) return;", "xl_sp--;",
                     "if (xl_rs[xl_sp] < 0) return;   // a PUSHA entry: abnormal end",
                     "xl_pc = xl_rs[xl_sp];", "break;"]
            if cond is None:
                out += [inner + x for x in lines]
            else:
                out += [f"{inner}if ({cond})", inner + "{"] + \
                    [inner + "    " + x for x in lines] + [inner + "}"] + goto(s.other)
        elif k == "pusha":
            src = self.operand(s.ins.srcs[0], DataType.INT, False)
            out += [f"{inner}if (xl_sp >= {MAX_CALL_DEPTH}) return;",
                    f"{inner}xl_as[xl_sp] = {src};", f"{inner}xl_rs[xl_sp] = -1;",
                    inner + "xl_sp++;"]
        elif k == "popa":
            dst = s.ins.dst
            target = self.element(dst.reg, dst.index, None)
            st = self.storage_type(dst.reg)
            value = bitcast("xl_as[xl_sp]", DataType.INT, st)
            if dst.cond is not None:
                # a CC write mask (E3009): the pop always happens, the write is conditional
                value = self.select(target, value, self.cc_test(dst.cond), st)
            out += [f"{inner}if (xl_sp == 0 || xl_rs[xl_sp - 1] >= 0) return;",
                    inner + "xl_sp--;", f"{inner}{target} = {value};"]
        return out

    def emit_switch(self, node: Switch, depth: int, in_main: bool) -> list[str]:
        """TGSI SWITCH: a GLSL switch on the unsigned selector; CASE runs fall through like
        GLSL's, BRK is GLSL's break.  GLSL needs a statement after the last label."""
        pad = "    " * depth
        sel = self.operand(node.selector, DataType.UINT, True)
        out = [f"{pad}switch ({sel})", pad + "{"]
        for n, case in enumerate(node.cases):
            out += [f"{pad}case {v}u:" for v in case.values]
            if case.default:
                out.append(f"{pad}default:")
            body = self.emit_body(case.body, depth + 1, in_main)
            if not body and n == len(node.cases) - 1:
                body = [pad + "    break;"]
            out += body
        out.append(pad + "}")
        return out

    def emit_loop(self, node: Loop, depth: int, in_main: bool) -> list[str]:
        pad = "    " * depth
        out = []
        if node.count is None:
            out.append(f"{pad}for (;;)")
        else:
            i, n = self.fresh("i"), self.fresh("n")
            dtype = node.ins.dtype
            count = self.operand(node.count, dtype, False)
            if count.startswith("vec4(") or count.startswith("ivec4(") or count.startswith("uvec4("):
                count = self.operand(node.count, dtype, True)
            else:
                count = components(count, ".x", self.vector_names)    # 'n.x', not 'n.xxxx.x'
            const = self.constant_count(node.count, dtype)
            if const is not None:
                count = str(const) if dtype != DataType.UINT else f"{const}u"
            elif dtype == DataType.FLOAT:
                self.need("f2i")
                count = f"xl_f2i(vec4(floor({count}))).x"
            if dtype == DataType.FLOAT:
                out.append(f"{pad}for (int {i} = 0, {n} = {count}; {i} < {n}; ++{i})")
            elif dtype == DataType.INT:
                out.append(f"{pad}for (int {i} = 0, {n} = {count}; {i} < {n}; ++{i})")
            else:
                out.append(f"{pad}for (uint {i} = 0u, {n} = {count}; {i} < {n}; ++{i})")
        out.append(pad + "{")
        out += self.emit_body(node.body, depth + 1, in_main)
        out.append(pad + "}")
        return out

    def constant_count(self, src: Source, dtype: DataType) -> int | None:
        """REP count known at translation time (a literal): floor and clamp like xl_f2i."""
        reg = self.prog.registers[src.reg]
        if reg.kind != RegKind.CONST or src.abs or any(src.comp_neg):
            return None
        c = src.swizzle[0]
        bits = 0 if c == 4 else (0x3F800000 if dtype == DataType.FLOAT else 1) if c == 5 else reg.value[0][c]
        if src.neg:
            bits = negate_bits(bits, dtype)
        if dtype == DataType.FLOAT:
            value = struct.unpack("<f", struct.pack("<I", bits))[0]
            if value != value:
                return 0
            return int(max(-2**31, min(2**31 - 1, math.floor(value)))) if math.isfinite(value) else (
                2**31 - 1 if value > 0 else -2**31)
        if dtype == DataType.INT:
            return bits - (1 << 32) if bits & 0x80000000 else bits
        return bits

    def call_name(self, label: str, depth: int | None) -> str:
        """GLSL name of a subroutine (per call depth when the program recurses)."""
        name = self.fn_names.get(label)
        if name is None:
            base = re.sub(r"_+", "_", re.sub(r"[^A-Za-z0-9]", "_", label.replace("$", "S"))).strip("_")
            name = "sub_" + (base or "label")
            # the names taken so far, as a set (a program may have 10^5 subroutines)
            used = self.__dict__.get("_fn_names_used")
            if used is None:
                used = self._fn_names_used = set(self.fn_names.values())
            while name in used:
                name += "x"
            self.fn_names[label] = name
            used.add(name)
        return name if depth is None else f"{name}_d{depth}"
