"""Probes of the ORIGINAL assembly text: what each instruction wrote, read from the driver.

The native backend (:mod:`native`) runs the program text the user gave, not a translation, so
the translation path's probes (:func:`trace._probe_events`: instrument the IR, translate,
run) do not apply: they would observe our own GLSL.  Here the *text* is instrumented instead,
and the driver compiles it through the same assembly interface as the original:

* after the statement of instruction ``k`` (its ``span``; plain ARB statements map one to one
  onto IR instructions) a ``MOV <probe output>, <destination>;`` copies the register the
  statement just wrote to an output the harness captures -- a bit copy (MOV does no
  arithmetic on either side);
* ARB result registers are write-only (ARBvp 2.14.3.4, ARBfp 3.11.3.4), so a statement whose
  destination is a ``result.*`` binding (or an ``OUTPUT`` name) writes a harness temporary
  instead, and two moves follow: the temporary to the original destination (same write mask)
  and to the probe output;
* probe outputs: fragment programs ``result.color[1..7]`` the program does not write
  (``OPTION ARB_draw_buffers`` added), read from RGBA32F attachments; vertex programs the
  ``result.texcoord[n]`` and primary/secondary colours the program does not write, captured
  at known pixels like the program's own outputs (:meth:`native.Runner.run_vertex`), one
  texture coordinate left for the position the harness moves;
* fragment programs run without their ``KIL`` statements (a killed fragment writes no probe;
  the values its lane computed are still needed -- as ``replay._probe_program`` does for the
  IR).

Plain ``!!ARBvp1.0``/``!!ARBfp1.0`` have no loops, branches or condition codes: every statement
runs once per invocation, so the execution counts the replay asks for are 1 and the n-th pass
is the only one.  Programs whose text has control flow or condition-code tests (the NV
options and dialects an NVIDIA driver loads) are refused by :class:`TextProbe` with
:class:`native_text.HarnessLimit` naming the case: their differences stay unexplained, never pass.

A vertex program's values reach the harness through the rasterizer, whose attribute set-up
(``a0 + 0*x + 0*y``) turns -0.0 into +0.0: the sign of a zero a vertex program writes cannot be
observed.  Where the driver's captured word is +0.0 and the executor's is -0.0, the executor's
word is taken (:func:`zero_sign_unobservable`) -- for the probes and for the outputs; this
hides nothing else.

Instructions the frontend adds without a statement (``ARB_position_invariant``'s DP4s, the
``ARB_fog_*`` blend: fixed-function work the driver does its own way) have no text to probe;
the replay takes the executor's value there, and the outputs decide.
"""
from __future__ import annotations

import re

import numpy as np

from ..ir.model import DataType, Program, RegKind, Stage
from ..ir.ops import OPCODES

TEMP_NAME = "xv_probe_t"
#: the harness temporary a condition-code test probe is built in
COND_NAME = "xv_probe_c"
#: counter temporaries of execution-count probes (xv_cnt0, xv_cnt1, ...)
COUNT_NAME = "xv_cnt"

#: ``OPCODE[_SAT|.modifiers] destination`` at the start of a statement: the destination runs
#: to the first comma (or the end of a source-less statement)
_STATEMENT = re.compile(r"([A-Za-z0-9_.]+)\s+([^,;]+?)\s*(?=[,;])")
_MASK = re.compile(r"\.(?:[xyzw]{1,4}|[rgba]{1,4})$")


NEGATIVE_ZERO = np.uint32(0x80000000)


def zero_sign_unobservable(captured: np.ndarray, executor: np.ndarray) -> np.ndarray:
    """A vertex capture's words with the executor's -0.0 where the capture reads +0.0 (module
    docstring: the rasterizer loses a zero's sign)."""
    captured = np.asarray(captured, np.uint32)
    executor = np.broadcast_to(np.asarray(executor, np.uint32), captured.shape)
    return np.where((captured == 0) & (executor == NEGATIVE_ZERO), executor, captured)


class _Recorder:
    """An executor result hook that keeps each instruction's last result words per lane (the
    executor's side of every probe, for :func:`zero_sign_unobservable`)."""

    def __init__(self, program: Program, lanes: int):
        self.instructions = [k for k, ins in enumerate(program.instructions)
                             if ins.dst is not None and OPCODES[ins.op].writes]
        self.lanes = lanes
        self.values: dict[int, np.ndarray] = {}

    def __call__(self, x, st, idx, ops, bits, cmask):
        sel = st.all_lanes if idx is None else np.asarray(idx)
        lanes = st.base + sel
        words = np.ascontiguousarray(np.broadcast_to(bits, (len(lanes), 4)))
        words = words.view(np.uint32) if words.dtype.itemsize == 4 else words.astype(np.uint32)
        out = self.values.setdefault(x.index, np.zeros((self.lanes, 4), np.uint32))
        out[lanes] = words
        return bits, cmask

    def before_flow(self, x, st, sel):
        return None

    def kill_decision(self, x, st, sel, kill, operand):
        return kill


class ProbeRefused(Exception):
    """The text cannot be probed this way (the reason)."""


def _line_starts(text: str) -> list[int]:
    starts = [0]
    for m in re.finditer("\n", text):
        starts.append(m.end())
    return starts


def statement_extent(text: str, blank: str, starts: list[int], span) -> tuple[int, int]:
    """(start, end) offsets of the statement whose opcode is at ``span``; ``end`` is just after
    its ``;`` (``blank``: the text with comments blanked, same offsets)."""
    at = starts[span.line - 1] + span.col - 1
    semi = blank.find(";", at)
    if semi < 0:
        raise ProbeRefused(f"no ';' ends the statement at line {span.line}")
    return at, semi + 1


#: a destination's condition, NV style: ``R0.xy (GT.x)``
_DST_CONDITION = re.compile(r"\s*\([^()]*\)\s*$")


def destination(blank: str, start: int, end: int) -> tuple[int, int, str, str]:
    """(offset, end offset, register text without its write mask, write mask text) of the
    statement's destination operand (the offsets span its condition too, if any:
    :func:`destination_condition`)."""
    m = _STATEMENT.match(blank, start, end)
    if m is None:
        raise ProbeRefused(f"no destination in {blank[start:end]!r}")
    dst = m.group(2)
    cond = _DST_CONDITION.search(dst)
    if cond:
        dst = dst[:cond.start()]
    mask = _MASK.search(dst)
    name = dst[:mask.start()] if mask else dst
    return m.start(2), m.end(2), name.strip(), mask.group() if mask else ""


def destination_condition(blank: str, start: int, end: int) -> str:
    """The destination's condition text (`` (GT.x)``), or ""."""
    m = _STATEMENT.match(blank, start, end)
    cond = _DST_CONDITION.search(m.group(2)) if m else None
    return " " + cond.group().strip() if cond else ""


def statement_condition(blank: str, start: int, end: int, op: str) -> str:
    """The condition-code test of a statement as a destination condition (`` (GT.x)``): a
    destination's, a flow instruction's parenthesized one (``BRA l (GT.x);``, ``RET (EQ);``),
    or the bare test of ``IF NE.x;`` / ``KIL LT.xyzw;``; "" when there is none."""
    cond = destination_condition(blank, start, end)
    if cond:
        return cond
    stmt = blank[start:end].rstrip().rstrip(";")
    m = re.search(r"\(([^()]*)\)\s*$", stmt)
    if m:
        return f" ({m.group(1).strip()})"
    m = re.match(r"\s*[A-Za-z0-9_.]+\s+([A-Z]{2}[01]?(?:\.[xyzw]{1,4})?)\s*$", stmt)
    if m and op in ("IF", "KIL", "BRK", "CONT", "RET"):
        return f" ({m.group(1)})"
    return ""


def probe_slots(stage: Stage, keys: list[str]) -> tuple[list[str], set[int]]:
    """Output bindings free for probes (the program writes none of them) and, for vertex
    programs, the texture coordinates the program writes (the harness's position needs
    another)."""
    if stage == Stage.FRAGMENT:
        return [f"result.color[{n}]" for n in range(1, 8) if f"result.color[{n}]" not in keys], \
            set()
    busy = {int(k[len("result.texcoord["):-1]) for k in keys
            if k.startswith("result.texcoord[")}
    free = [n for n in range(8) if n not in busy]
    slots = [f"result.texcoord[{n}]" for n in free[:-1]]     # the last one: the position
    if not any(k.startswith("result.color") for k in keys):
        slots += ["result.color", "result.color.secondary"]
    return slots, busy


#: outputs whose capture holds all four components (the scalar ones -- depth, point size,
#: fog coordinate -- arrive as one component)
_SCALAR = ("result.depth", "result.pointsize", "result.fogcoord")


def final_components(program: Program) -> dict[int, tuple[str, tuple[int, ...]]]:
    """Instructions some of whose written components no later instruction overwrites ->
    (output binding, those components), for those :func:`final_writers` leaves out because a
    later one overwrites the rest (``MUL oCol0, e, l; MAX oCol0.w, ...``): the components that
    stay are the output too."""
    from .trace import execution_order
    order = execution_order(program)
    whole = final_writers(program)
    out = {}
    for pos, k in enumerate(order):
        ins = program.instructions[k]
        if k in whole:
            continue
        reg = program.registers.get(ins.dst.reg) if ins.dst is not None else None
        if reg is None or reg.kind != RegKind.OUTPUT or not reg.bindings or \
                reg.bindings[0] is None or reg.size is not None:
            continue
        left = list(ins.dst.mask)
        for j in order[pos + 1:]:
            later = program.instructions[j]
            if later.dst is not None and later.dst.reg == ins.dst.reg:
                left = [a and not b for a, b in zip(left, later.dst.mask)]
        key = reg.bindings[0].text()
        key = "result.color" if key == "result.color[0]" else key
        key = "result.texcoord[0]" if key == "result.texcoord" else key
        comps = tuple(c for c in range(4) if left[c])
        if comps and key not in _SCALAR:
            out[k] = (key, comps)
    return out


def scalar_final_writers(program: Program) -> dict[int, str]:
    """Vertex instructions that write ``result.fogcoord.x`` or ``result.pointsize.x`` last ->
    the binding: those outputs' captures hold the value in their x (the other components
    are not the program's), read like :func:`final_writers`'."""
    from .trace import execution_order
    if program.stage != Stage.VERTEX:
        return {}
    out = {}
    for k in execution_order(program):
        ins = program.instructions[k]
        reg = program.registers.get(ins.dst.reg) if ins.dst is not None else None
        if reg is None or reg.kind != RegKind.OUTPUT or not reg.bindings or \
                reg.bindings[0] is None or reg.size is not None:
            continue
        key = reg.bindings[0].text()
        if key in ("result.fogcoord", "result.pointsize"):
            for j in [j for j, v in out.items() if v == key]:
                del out[j]                  # a later write replaces it
            if ins.dst.mask == (True, False, False, False):
                out[k] = key
    return out


def _words_of(source: dict, key: str):
    """An output's capture under its binding or the harness's name for a scalar output."""
    from .native_verify import SCALAR_NAMES
    if key in source:
        return source[key]
    return source.get(SCALAR_NAMES.get(key, key))


def final_writers(program: Program) -> dict[int, str]:
    """Instructions that write an output last, in execution order -> its binding: their value
    is the output itself.  Read from the ORIGINAL run's capture, not from a probed compilation:
    Mesa reassociates and contracts a chain of ARB instructions (they are not exact) and the
    probes' extra reads of intermediate values change what it does, so the last value is the
    one the program really produced; the instructions before it are probed.  Statement-less
    ones (a fog option's blend) have no other probe."""
    from .trace import execution_order
    order = execution_order(program)
    out = {}
    for pos, k in enumerate(order):
        ins = program.instructions[k]
        reg = program.registers.get(ins.dst.reg) if ins.dst is not None else None
        if reg is None or reg.kind != RegKind.OUTPUT or not reg.bindings or \
                reg.bindings[0] is None or reg.size is not None:
            continue
        later = any(program.instructions[j].dst is not None and
                    program.instructions[j].dst.reg == ins.dst.reg and
                    any(a and b for a, b in zip(program.instructions[j].dst.mask, ins.dst.mask))
                    for j in order[pos + 1:])
        key = reg.bindings[0].text()
        key = "result.color" if key == "result.color[0]" else key
        key = "result.texcoord[0]" if key == "result.texcoord" else key
        if not later and key not in _SCALAR:
            out[k] = key
    return out


#: no longer than the shortest binding it replaces (``result.color``): offsets stay valid
SINK_NAME = "xv_sink"
_SUNK = re.compile(r"\bresult\.(?:texcoord(?:\s*\[\s*\d+\s*\])?|"
                   r"color(?:\.(?:front|back))?(?:\.(?:primary|secondary))?)(?![\w\[])")
_OUTPUT_DECL = re.compile(r"\bOUTPUT(\s+\w+\s*=\s*)(result\.[^;]*);")


def sink_outputs(text: str, blank: str, keys=None) -> str:
    """The text with every texture-coordinate and colour output (those among ``keys``,
    canonical binding texts, when given) replaced by the harness temporary
    :data:`SINK_NAME` (``OUTPUT`` declarations of them become ``TEMP``), padded with blanks
    so that every offset stays valid."""
    from .native_text import _RESULT, canonical_result
    out = list(text)

    def chosen(binding: str) -> bool:
        m = _RESULT.match(binding.strip())
        return keys is None or (m is not None and canonical_result(m) in keys)

    def put(start, end, new):
        assert len(new) <= end - start, (new, start, end)
        out[start:end] = list(new.ljust(end - start))

    for m in _OUTPUT_DECL.finditer(blank):
        if _SUNK.fullmatch(m.group(2).strip()) and chosen(m.group(2)):
            name = m.group(1).split("=")[0].strip()
            put(m.start(), m.end(), f"TEMP {name};")
    for m in _SUNK.finditer(blank):
        if "".join(out[m.start():m.end()]) == text[m.start():m.end()] and chosen(m.group()):
            put(m.start(), m.end(), SINK_NAME)       # (not inside a declaration replaced)
    return "".join(out)


def declare_sink(text: str) -> str:
    """``TEMP`` :data:`SINK_NAME` after the header and options."""
    from .native_text import insert_prologue
    return insert_prologue(text, [f"TEMP {SINK_NAME};"])


def free_nv1_temporaries(text: str, hdr: str, count: int) -> list[str]:
    """``count`` temporary registers an NV_vertex_program text never names (from ``R11``
    down; ``!!VP2.0`` has R0-R15), for the harness: these texts declare nothing."""
    from .native_text import _blank_comments
    top = 16 if hdr == "!!VP2.0" else 12
    used = {int(n) for n in re.findall(r"\bR(\d+)\b", _blank_comments(text))}
    free = [f"R{n}" for n in range(top - 1, -1, -1) if n not in used][:count]
    if len(free) < count:
        raise ProbeRefused(f"the program uses every temporary register (R0-R{top - 1}): "
                           f"not {count} left for the harness")
    return free


def free_nv1_temporary(text: str, hdr: str) -> str:
    return free_nv1_temporaries(text, hdr, 1)[0]


def sink_nv1_outputs(text: str, blank: str, temp: str, registers=None) -> str:
    """:func:`sink_outputs` for NV_vertex_program texts: every texture-coordinate and colour
    output register (``o[TEX3]``, ``o[COL0]``, ``o[BFC1]`` ...; only those named in
    ``registers``, e.g. ``{"TEX7"}``, when given) replaced by the temporary ``temp``, padded
    with blanks *before* it so that every offset stays valid."""
    out = list(text)
    for m in re.finditer(r"\bo\[\s*(TEX\d|COL[01]|BFC[01])\s*\]", blank):
        if registers is not None and m.group(1) not in registers:
            continue
        new = temp.rjust(m.end() - m.start())
        out[m.start():m.end()] = list(new)
    return "".join(out)


#: one move of a packed probe: (probe output, its components, the instruction's components
#: they receive, in the same order)
Segment = tuple[str, tuple[int, ...], tuple[int, ...]]

_XYZW = "xyzw"


def probe_moves(slot: str | list, name: str, spell=None) -> str:
    """The moves that copy register ``name`` to a probe output: the whole register to a
    binding, or each packed :data:`Segment` (``MOV result.color[1].zw, r.xxxy;`` copies ``r.x``
    to ``.z`` and ``r.y`` to ``.w``: a write mask names the output's components in order, the
    swizzle gives each one its source component; the components the mask leaves out repeat a
    chosen one)."""
    spell = spell or (lambda binding: binding)
    if isinstance(slot, str):
        return f"\nMOV {spell(slot)}, {name};"
    out = []
    for binding, to, frm in slot:
        binding = spell(binding)
        swizzle = [frm[0]] * 4
        for t, f in zip(to, frm):
            swizzle[t] = f
        mask = "".join(_XYZW[t] for t in to)
        out.append(f"\nMOV {binding}.{mask}, {name}.{''.join(_XYZW[c] for c in swizzle)};")
    return "".join(out)


def pack_probes(wanted: list[tuple[object, tuple[int, ...]]], slots: list[str]) \
        -> list[list[tuple[object, list[Segment]]]]:
    """Compilations (batches) of probes: each wanted (key, written components) gets as many
    probe-output components as it writes, in order, across outputs where needed; a batch holds
    as many as its outputs' components (4 each).  Packing by component instead of one whole
    output per instruction (most instructions write one or two components) cuts the
    compilations about threefold, and every value read in one compilation is one consistent
    run of the driver -- the condition :func:`replay.recompiled_lanes` needs."""
    capacity = 4 * len(slots)
    batches: list[list[tuple[object, list[Segment]]]] = []
    used = capacity
    for key, comps in wanted:
        comps = tuple(comps)
        if not comps:
            continue
        if used + len(comps) > capacity:
            batches.append([])
            used = 0
        segments: list[Segment] = []
        left = list(comps)
        while left:
            slot, at = divmod(used, 4)
            take = min(4 - at, len(left))
            segments.append((slots[slot], tuple(range(at, at + take)), tuple(left[:take])))
            left = left[take:]
            used += take
        batches[-1].append((key, segments))
    return batches


def unpack_probe(got: dict, segments: list[Segment], lanes: int) -> np.ndarray:
    """An instruction's words (lanes, 4) from a packed capture; components it does not write
    read zero (the replay compares written components only)."""
    out = np.zeros((lanes, 4), np.uint32)
    for binding, to, frm in segments:
        words = np.asarray(got[binding], np.uint32)
        out[:, list(frm)] = words[:, list(to)]
    return out


class TextProbe:
    """A probe function for :func:`replay.replay` (``trace._probe_events``'s signature) that
    instruments the original text (module docstring) and runs it on ``runner`` (a
    :class:`native.Runner`)."""

    def __init__(self, text: str, program: Program, keys: list[str]):
        from .native_text import NV1_HEADERS, header, nv1_output_register
        self.nv1 = header(text) in NV1_HEADERS
        #: how a probe output is spelled in the text, and the harness temporary: NV_vertex_
        #: program texts name outputs o[TEXn] and declare nothing (a temporary the program
        #: leaves unused serves)
        self.spell = nv1_output_register if self.nv1 else None
        self.temp, self.sink = TEMP_NAME, SINK_NAME
        if self.nv1:
            if program.stage != Stage.VERTEX:
                raise ProbeRefused(f"native probes of {header(text)} fragment programs (one "
                                   "colour output: no output left for a probe)")
            self.temp, self.sink = free_nv1_temporaries(text, header(text), 2)
        self.text = text
        self.program = program
        self.blank = re.sub(r"#[^\n]*", lambda m: " " * len(m.group()), text)
        self.starts = _line_starts(text)
        self.slots, self.busy_tc = probe_slots(program.stage, keys)
        # a vertex program writing (nearly) every texture coordinate: in probe runs its own
        # coordinate and colour outputs go to a harness temporary (only the probes are read
        # there; the outputs come from the original run)
        self.base = self.text
        self.sunk = program.stage == Stage.VERTEX and len(self.slots) < 3
        if self.sunk:
            self.base = sink_nv1_outputs(self.text, self.blank, self.sink) if self.nv1 else \
                sink_outputs(self.text, self.blank)
            self.slots = [f"result.texcoord[{n}]" for n in range(7)] + \
                ["result.color", "result.color.secondary"]
            self.busy_tc = set()
        for k, ins in enumerate(program.instructions):
            if ins.span is None:
                continue
            cat = OPCODES[ins.op].category
            if cat == "flow" and self.nv1:
                raise ProbeRefused(f"native probes of NV_vertex_program2 texts with control "
                                   f"flow ({ins.op} at line {ins.span.line}: counting passes "
                                   "needs literal constants) are not implemented")
            # condition codes: a probe is a MOV without a condition-code update, so it
            # changes no code, and it copies the register after the (conditional) write --
            # the words the replay compares ("as written").  What cannot be probed is a
            # condition-code *test* event (the replay asks for those only where the codes
            # themselves differ: __call__ refuses then)
        self.keys = keys
        #: with control flow in the text a probe holds the value of its instruction's last
        #: execution on the lane, and how often it ran is counted by a counter temporary
        #: (nth == 0).  (Not the frontend's own: a fog option's blend wraps the body in a
        #: CAL that runs once.)
        self.flow = any(OPCODES[ins.op].category == "flow" and ins.span is not None
                        for ins in program.instructions)
        self.finals = {**final_writers(program), **scalar_final_writers(program)}
        self.partial_finals = final_components(program)
        if self.flow:
            # the last writer in execution order is not the last writer on every lane (an
            # IF's two branches, a subroutine): every instruction is probed instead
            self.finals, self.partial_finals = {}, {}
        self.cap = None         # the original run's capture (set by the caller)

    # ---- the text ---------------------------------------------------------------------------
    def instrumented(self, probes: list[tuple[int, str | list]]) -> str:
        """The text with each (instruction, probe output) probe, and without KILs in fragment
        programs.  A probe output is a binding (the whole register is copied to it) or a list
        of :data:`Segment` tuples (:func:`pack_probes`: the written components only, packed)."""
        from .native_text import add_option, _prologue_at
        edits: list[tuple[int, int, str]] = []          # (start, end, replacement)
        need_temp = need_cond = False
        counters: list[str] = []
        for probe in probes:
            k, slot = probe[:2]
            ins = self.program.instructions[k]
            start, end = statement_extent(self.text, self.blank, self.starts, ins.span)
            if probe[2:3] == ("count",):
                # executions of the instruction on the lane: a counter temporary set to 0 at
                # the entry, incremented just before (a condition event) or after (a value
                # event) the statement, and copied to the probe output at each increment
                name = f"{COUNT_NAME}{len(counters)}"
                counters.append(name)
                at = start if probe[3] == "before" else end
                edits.append((at, at, ("" if probe[3] == "before" else "\n") +
                              f"ADD {name}.x, {name}.x, {{1, 0, 0, 0}}.x;" +
                              probe_moves(slot, name) + ("\n" if probe[3] == "before" else "")))
                continue
            if probe[2:] == ("cond",):
                # before the statement: 0.0, then 1.0 where the statement's condition passes
                if self.nv1:
                    raise ProbeRefused("native probes of condition-code tests in NV_vertex_"
                                       "program2 texts (no literal constants) are not "
                                       "implemented")
                cond = statement_condition(self.blank, start, end, ins.op)
                if not cond:
                    raise ProbeRefused(f"no condition-code test found at line {ins.span.line}")
                need_cond = True
                edits.append((start, start, f"MOV {COND_NAME}, {{0, 0, 0, 0}};\n"
                                            f"MOV {COND_NAME}{cond}, {{1, 1, 1, 1}};"
                                            + probe_moves(slot, COND_NAME) + "\n"))
                continue
            d0, d1, _, mask = destination(self.blank, start, end)
            cond = destination_condition(self.blank, start, end)
            name = _DST_CONDITION.sub("", self.base[d0:d1]).strip()
            name = name[:-len(mask)].strip() if mask else name
            reg = self.program.registers.get(ins.dst.reg)
            # a declared temporary can be read back; anything else (a result binding, an
            # OUTPUT name, the register a fog option gives result.color) cannot
            if (reg is None or reg.kind != RegKind.TEMP or reg.implicit or
                    name.startswith("result.")) and name not in (SINK_NAME, self.sink):
                if cond and ins.cc_update is not None:
                    # the copy to the real destination would test the updated codes
                    raise ProbeRefused(f"native probes of a conditional write that updates "
                                       f"the condition codes into {name} (line "
                                       f"{ins.span.line}) are not implemented")
                need_temp = True
                edits.append((d0, d1, self.temp + mask + cond))
                # the copy carries the condition: components the write skipped keep their value
                edits.append((end, end, f"\nMOV {name}{mask}{cond}, {self.temp};"
                                        + probe_moves(slot, self.temp, self.spell)))
            else:
                edits.append((end, end, probe_moves(slot, name, self.spell)))
        if self.program.stage == Stage.FRAGMENT:
            for ins in self.program.instructions:
                if ins.op == "KIL" and ins.span is not None:
                    start, end = statement_extent(self.text, self.blank, self.starts, ins.span)
                    edits.append((start, end, "# (probe) KIL removed"))
        if need_temp and not self.nv1:
            at = _prologue_at(self.text)
            edits.append((at, at, f"\nTEMP {TEMP_NAME};"))
        if need_cond:
            at = _prologue_at(self.text)
            edits.append((at, at, f"\nTEMP {COND_NAME};"))
        if counters:
            at = _prologue_at(self.text)
            edits.append((at, at, f"\nTEMP {', '.join(counters)};"))
            # zeroed where execution starts: the first statement in execution order (a main
            # label may follow the subroutines; a fog option's CAL wrapper has no statement)
            from .trace import execution_order
            entry = next((self.program.instructions[k] for k in
                          execution_order(self.program)
                          if self.program.instructions[k].span is not None), None)
            if entry is None:
                raise ProbeRefused("no statement to zero the counters before")
            e0, _ = statement_extent(self.text, self.blank, self.starts, entry.span)
            edits.append((e0, e0, "".join(f"MOV {n}, {{0, 0, 0, 0}};\n" for n in counters)))
        if self.sunk and not self.nv1:
            at = _prologue_at(self.text)
            edits.append((at, at, f"\nTEMP {SINK_NAME};"))
        out = self.base
        for start, end, new in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
            out = out[:start] + new + out[end:]
        if self.program.stage == Stage.FRAGMENT and probes:
            # result.color[n] needs the option in NV_fragment_program4 too (its section
            # 2.X.6.Y; NVIDIA's driver: "expected ','" at the "[")
            out = add_option(out, "ARB_draw_buffers")
        return out

    def _run(self, runner, text, lanes, inputs, gen, wanted) -> dict[str, np.ndarray]:
        """A probe text on the driver: output binding -> words for ``wanted``."""
        if self.program.stage == Stage.FRAGMENT:
            return runner.run_fragment(text, lanes, inputs, gen.params, wanted, gen.textures,
                                       gen.shadow).outputs
        return runner.run_vertex(text, lanes, inputs, gen.params, wanted, busy_tc=self.busy_tc,
                                 textures=gen.textures, shadow=gen.shadow)

    def _counts(self, gen, runner, lanes, events, todo) -> dict[int, np.ndarray]:
        """How often each event's instruction ran on each lane (x, an integer word), by
        counter probes (:meth:`instrumented`)."""
        wanted = [((i, ("count", events[i][1], "before" if events[i][0] == "cond" else "after")),
                   (0,)) for i in todo if self.program.instructions[events[i][1]].span is not None]
        if wanted and not self.slots:
            raise ProbeRefused("the program writes every output a probe could use")
        inputs = {key: v for key, v in gen.inputs.items() if key not in gen.builtin}
        out: dict[int, np.ndarray] = {}
        for group in pack_probes(wanted, self.slots):
            slots = sorted({seg[0] for _, segments in group for seg in segments},
                           key=self.slots.index)
            text = self.instrumented([(k[1], segments, "count", k[2])
                                      for (_, k), segments in group])
            got = self._run(runner, text, lanes, inputs, gen, slots)
            for (i, _), segments in group:
                counted = unpack_probe(got, segments, lanes).view(np.float32)[:, :1]
                words = np.zeros((lanes, 4), np.uint32)
                with np.errstate(invalid="ignore"):
                    words[:, 0] = np.where(np.isfinite(counted[:, 0]),
                                           counted[:, 0], 0).astype(np.uint32)
                out[i] = words
        return out

    # ---- the replay's interface -------------------------------------------------------------
    def __call__(self, program, gen, runner, lanes, events, which=None, into=None, nth=None,
                 runs: list | None = None):
        """The implementation's words of the events ``which`` (value events, and the
        condition-code tests of destinations: 1.0 per passing component; counts are 1 and
        every pass is the first: module docstring).  Returns ({}, {event index: words}).
        ``runs`` (:func:`replay.recompiled_lanes`): when every value fits one compilation, that
        compilation also gives the program's outputs -- recorded in ``runs`` -- and the values
        of the instructions that write outputs last, so that one run gives everything."""
        todo = list(range(len(events)) if which is None else sorted(which))
        imp: dict[int, np.ndarray] = {}
        # where the outputs' writers were read from the one probe compilation: the main run's
        # words of the same instructions (instruction -> words), for replay.main_run_lanes
        self.main_finals: dict[int, np.ndarray] = {}
        if nth == 0:
            if not self.flow:
                ones = np.ones((lanes, 4), np.uint32)
                return {}, {i: ones for i in todo}
            return {}, self._counts(gen, runner, lanes, events, todo)
        if nth is not None:
            # the n-th pass of an instruction that ran more than once is not probed (that
            # needs a pass counter compared in the text): no value -- the replay cannot adopt
            # one there, so what differs on those lanes stays unexplained
            return {}, {}
        values, tails, conds = [], [], []
        for i in todo:
            kind, k, _ = events[i]
            ins = self.program.instructions[k]
            if kind == "cond":
                # a destination's or a flow instruction's condition (``MOV r (GT.x), s``,
                # ``IF NE.x``): read before the statement (trace._probe_program's CondTest
                # probe: 1.0 in each passing component)
                if ins.span is None:
                    raise ProbeRefused(f"native probes of the condition-code test of a "
                                       f"{ins.op} without a statement are not implemented")
                conds.append((i, k))
                continue
            if kind != "value":
                raise ProbeRefused(f"native probes of {kind} events are not implemented")
            reg = self.program.registers.get(ins.dst.reg) if ins.dst is not None else None
            if reg is not None and reg.dtype in (DataType.INT, DataType.UINT) and \
                    self.program.dialect.startswith("ARB"):
                continue                # an ARB address register: no MOV reads it
            if k in self.finals and self.cap is not None and \
                    _words_of(self.cap.outputs, self.finals[k]) is not None:
                tails.append((i, k))
            elif ins.span is not None and ins.dst is not None:
                values.append((i, k))
        inputs = {key: v for key, v in gen.inputs.items() if key not in gen.builtin}
        executor = None
        if self.program.stage == Stage.VERTEX:
            from .draw_run import run_executor
            executor = _Recorder(self.program, lanes)
            run_executor(self.program, gen, lanes, hooks=executor)
        if (values or conds) and not self.slots:
            raise ProbeRefused("the program writes every output a probe could use")
        batches = pack_probes([((i, k), tuple(c for c in range(4)
                                              if self.program.instructions[k].dst.mask[c]))
                               for i, k in values] +
                              [((i, ("cond", k)), (0, 1, 2, 3)) for i, k in conds],
                              self.slots)
        # (not with KIL -- the probe runs have none -- nor with instructions the frontend added,
        # such as a fog option's: the driver applies fog after the program, and the probe
        # text's ARB_draw_buffers changes which colours it fogs)
        whole = runs is not None and not self.sunk and \
            not any(ins.op == "KIL" or ins.span is None for ins in self.program.instructions)
        run_outputs = None
        if whole and not batches:
            batches = [[]]          # no value to probe: one run still gives the outputs
        for group in batches:
            slots = sorted({seg[0] for _, segments in group for seg in segments},
                           key=self.slots.index)
            text = self.instrumented([(k, segments) if not isinstance(k, tuple) else
                                      (k[1], segments, "cond") for (_, k), segments in group])
            wanted = slots + ([key for key in self.keys if key not in slots] if whole else [])
            got = self._run(runner, text, lanes, inputs, gen, wanted)
            if whole:
                from .capture import Capture
                outputs = {key: got[key] for key in self.keys if key in got}
                runs.append(Capture(outputs=outputs, killed=np.zeros(lanes, bool)))
                if len(batches) == 1:
                    # one compilation gave every value: the instructions writing outputs last
                    # from it too (replay.recompiled_lanes ties it to the main one); with
                    # several, the values come from different compilations anyway and the
                    # last writers are the main run's outputs, judged against the values
                    # before them within GL's propagated precision (spread.py)
                    run_outputs = outputs
            for (i, k), segments in group:
                imp[i] = unpack_probe(got, segments, lanes)
                if isinstance(k, tuple):
                    continue                    # a condition's outcome: 0.0 / 1.0
                if executor is not None and k in executor.values:
                    imp[i] = zero_sign_unobservable(imp[i], executor.values[k])
        for i, k in values:
            # components that stay in an output: the output's words (as for the last writers)
            if k not in self.partial_finals or i not in imp:
                continue
            key, comps = self.partial_finals[k]
            source = run_outputs if run_outputs is not None and key in run_outputs else \
                (self.cap.outputs if self.cap is not None else {})
            if key in source and not (getattr(self.cap, "killed", None) is not None
                                      and self.cap.killed.any()):
                probed = imp[i]
                for dest, src in ((imp, source), (self.main_finals, self.cap.outputs)):
                    if key not in src:
                        continue
                    words = np.array(probed, np.uint32)
                    words[:, list(comps)] = np.asarray(src[key], np.uint32)[:, list(comps)]
                    if executor is not None and k in executor.values:
                        words = zero_sign_unobservable(words, executor.values[k])
                    dest[i if dest is imp else k] = words
        if tails:
            killed = getattr(self.cap, "killed", None)
            kil_less = None
            if killed is not None and killed.any():
                # lanes the original run killed wrote nothing: their values from a run of the
                # text without KILs
                keys = sorted({self.finals[k] for _, k in tails})
                kil_less = runner.run_fragment(self.instrumented([]), lanes, inputs,
                                               gen.params, keys, gen.textures, gen.shadow)
            for i, k in tails:
                source = run_outputs if run_outputs is not None and \
                    self.finals[k] in run_outputs else self.cap.outputs
                words = np.array(_words_of(source, self.finals[k]), np.uint32)
                if kil_less is not None and self.finals[k] in kil_less.outputs:
                    words[killed] = np.asarray(kil_less.outputs[self.finals[k]],
                                               np.uint32)[killed]
                if executor is not None and k in executor.values:
                    words = zero_sign_unobservable(words, executor.values[k])
                imp[i] = words
                if source is not self.cap.outputs and (killed is None or not killed.any()):
                    main = _words_of(self.cap.outputs, self.finals[k])
                    if main is not None:
                        words = np.array(main, np.uint32)
                        if executor is not None and k in executor.values:
                            words = zero_sign_unobservable(words, executor.values[k])
                        self.main_finals[k] = words
        return {}, imp
