"""A freedom only the main compilation took, shown at the output's last writer.

The replay (:mod:`replay`) judges every instruction by the values the *probe* compilations
computed.  On some lanes every probed value agrees with the executor while the outputs do not
(the ``interface`` lanes of :func:`core._explain`): the difference arose in the main
compilation alone.  Measured: llvmpipe flushes the denormal operand of the SSG that writes
``OUT[0]`` in the main shader, and not in the probe shader, whose code around it differs
(generated TGSI fragment seed 44: SSG of -1.4e-45 gives -1 in the executor and the probes,
-0 in the main run).

There the main run's output word *is* the value the output's last writer wrote, and it is
judged as a probed value is: the writer recomputed by the executor with the cause named by a
rule of :mod:`permits` removed (``ftz``: the denormal operands flushed; ``signedzero``;
``tolerance``: within the opcode's documented bound of the exact result) must give that word.
Where it does for every differing component of a lane, the replayed executor adopting those
words at the writers reproduces every output of the lane -- by construction, since nothing
reads them -- and the lane is explained with that verdict.

What makes this sound, and where it is not applied:

* Nothing reads the written value afterwards: the program reads no output register (TGSI
  may), so the adopted word changes no other value.
* Only rules that recompute the value (:data:`SHOWN_AT_WRITER`).  The rules that permit any
  value (``nonfinite``, ``undefined``, ``implementation``, ...) would excuse a defect of the
  main shader's own output statement on a lane where the writer had such an operand: the
  output statement is code only the main shader has (the same reason
  :func:`replay.recompiled_lanes` is not applied to translations).
* Vertex and fragment programs whose output registers are written whole-register (no
  relative addressing) and alias no other register: the last writer of a component is then
  the executor's, found by recording the replay itself.  Geometry outputs are captured per
  emitted vertex; tessellation and compute have their own harnesses.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..ir.model import Program, RegKind, Stage
from . import permits
from .output_compare import binding_elements, output_elements
from .replay import ReplayHook

#: the verdicts a writer's value may be shown permitted by here: each recomputes it
SHOWN_AT_WRITER = ("signedzero", "ftz", "tolerance")


@dataclass
class WriterVerdicts:
    """``lanes``: the lanes explained; ``adopted``: (instruction, verdict) -> components;
    ``examples``: one departure (:class:`replay.Departure`) per (instruction, verdict)."""

    lanes: list = field(default_factory=list)
    adopted: dict = field(default_factory=dict)
    examples: list = field(default_factory=list)


def applies(program: Program) -> bool:
    """Whether :func:`writer_verdicts` may judge ``program`` (the module docstring)."""
    if program.stage not in (Stage.VERTEX, Stage.FRAGMENT):
        return False
    outputs = {r.name for r in program.registers.values() if r.kind == RegKind.OUTPUT}
    for ins in program.instructions:
        if any(s.reg in outputs for s in ins.srcs):
            return False
        if ins.dst is not None and ins.dst.reg in outputs and ins.dst.index is not None:
            return False
    return True


class _WriterRecorder(ReplayHook):
    """The final replay again, recording for the target lanes the last execution of each
    output register's writers: the operation, its operands, the lane's row and the value."""

    def __init__(self, program: Program, hook: ReplayHook, lanes: int, targets: set[int],
                 impl_killed):
        super().__init__(program, hook.values, lanes, hook.backend, hook.conds, final=True,
                         impl_killed=impl_killed)
        self.outputs = {r.name for r in program.registers.values()
                        if r.kind == RegKind.OUTPUT}
        writers = {k for k, ins in enumerate(program.instructions)
                   if ins.dst is not None and ins.dst.reg in self.outputs}
        for k in writers - set(self.instructions):
            self.passes[k] = np.zeros(lanes, np.int64)
        self.instructions = sorted(set(self.instructions) | writers)
        self.targets = targets
        self.last: dict[tuple[str, int, int], tuple] = {}

    def __call__(self, x, st, idx, ops, bits, cmask):
        out, cmask = super().__call__(x, st, idx, ops, bits, cmask)
        dst = x.inst.dst
        if dst is None or dst.reg not in self.outputs:
            return out, cmask
        sel = st.all_lanes if idx is None else np.asarray(idx)
        lanes = st.base + sel
        words = np.broadcast_to(out, (len(lanes), 4))
        written = np.broadcast_to(np.array(dst.mask, bool), (len(lanes), 4))
        if cmask is not None:
            written = written & np.broadcast_to(cmask, (len(lanes), 4))
        for row in np.flatnonzero(np.isin(lanes, list(self.targets))):
            for c in np.flatnonzero(written[row]):
                self.last[(dst.reg, int(lanes[row]), int(c))] = (
                    x, ops, lanes, int(row), np.array(words[row], np.uint32))
        return out, cmask


def writer_verdicts(program: Program, diffs: list, silent: list[int], hook: ReplayHook,
                    harness, gen, lanes: int, impl_killed=None) -> WriterVerdicts:
    """The ``silent`` lanes (no unexplained departure; outputs differ) whose every differing
    output component (``diffs``: the final replay's differences) is the writer's value shown
    permitted by a rule of :data:`SHOWN_AT_WRITER` (the module docstring).  ``hook``: the
    final replay's; ``harness.execute`` runs the executor."""
    found = WriterVerdicts()
    if not silent or not applies(program):
        return found
    elems_of = output_elements(program)
    wanted: dict[int, list] = {}
    for d in diffs:
        if d.lane in silent:
            wanted.setdefault(d.lane, []).append(d)
    recorder = _WriterRecorder(program, hook, lanes, set(wanted), impl_killed)
    harness.execute(program, gen, lanes, hooks=recorder)
    for lane, lane_diffs in sorted(wanted.items()):
        judged = _judge_lane(lane_diffs, elems_of, recorder, hook.backend)
        if judged is None:
            continue
        found.lanes.append(lane)
        for key, example in judged:
            if key not in found.adopted:
                found.examples.append(example)
            found.adopted[key] = found.adopted.get(key, 0) + 1
    return found


def _judge_lane(lane_diffs: list, elems_of: dict, recorder: _WriterRecorder, backend):
    """[((instruction, verdict), departure)] for every differing component of one lane, or
    None when one of them is not shown."""
    judged = []
    for d in lane_diffs:
        elems = binding_elements(elems_of, d.output)
        if d.kind != "value" or d.component is None or elems is None or len(elems) != 1 \
                or elems[0][1] is not None:
            return None
        reg = elems[0][0]
        rec = recorder.last.get((reg, d.lane, d.component))
        if rec is None:
            return None
        x, ops, call_lanes, row, exe = rec
        if int(exe[d.component]) != int(d.expected):
            return None             # the recorded write is not what the executor output
        imp = exe.copy()
        imp[d.component] = np.uint32(d.got)
        site = permits.Site(x, ops, np.array([row]), exe[None], imp[None], backend)
        differ = np.zeros((1, 4), bool)
        differ[0, d.component] = True
        site.written = differ.copy()
        verdict = permits.permitted(site, differ)[0, d.component]
        if verdict not in SHOWN_AT_WRITER:
            return None
        dep = recorder._departure(x, site, 0, d.lane, int(recorder.passes[x.index][d.lane]),
                                  (d.component,), verdict)
        judged.append(((x.index, verdict), dep))
    return judged
