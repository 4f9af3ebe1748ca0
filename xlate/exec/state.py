"""Per-chunk machine state (digest §14 "interpreter state model", vectorised over lanes).

* ``regs``: register name -> uint32 words; (lanes|1, n, 4), per-vertex geometry inputs
  (lanes|1, V, n, 4).  Read-only registers shared by all lanes keep a leading 1.
* ``cc``: (2, lanes, 4) uint8 flag words (cc.py), initialised to EQ.
* ``pc``, ``steps``, ``killed``, ``exceeded``: per lane.
* loop stack ``loop_count`` (lanes, cap) / ``loop_depth``; call stack ``call_ret``,
  ``call_loop`` (loop depth at the call) / ``call_depth``.
* geometry: ``emitted`` vertices, current ``strip`` id, and the EMIT ``records``.
"""
from __future__ import annotations

import numpy as np

from ..ir.model import Program, RegKind, Stage
from .cc import CC_INIT


class State:
    def __init__(self, program: Program, lanes: int, regs: dict[str, np.ndarray],
                 textures: dict, loop_depth: int):
        self.program = program
        self.lanes = lanes
        self.base = 0                   # index of this chunk's first lane in the whole run
        self.all_lanes = np.arange(lanes)
        self.regs = dict(regs)
        for reg in program.registers.values():
            if reg.kind in (RegKind.TEMP, RegKind.OUTPUT):
                # project choice: temps and results start as all-zero words (NV4: undefined)
                self.regs[reg.name] = np.zeros((lanes, reg.length, 4), np.uint32)
        self.output_names = [r.name for r in program.registers.values()
                             if r.kind == RegKind.OUTPUT]
        self.textures = textures
        self.cc = np.full((2, lanes, 4), CC_INIT, np.uint8)
        self.cc32 = self.cc.view(np.uint32)[..., 0]       # (2, lanes): one word per CC row
        self.flat: dict[str, np.ndarray] = {}              # operands.flat_rows cache
        self.pc = np.full(lanes, program.entry, np.int32)
        self.steps = np.zeros(lanes, np.int64)
        self.killed = np.zeros(lanes, bool)
        self.flagged = np.zeros(lanes, bool)    # a KIL taken under Program.kills_as_flags
        self.exceeded = np.zeros(lanes, bool)
        self.call_limit = program.call_depth          # MAX_PROGRAM_CALL_DEPTH_NV of the run
        cap = max(1, loop_depth * (self.call_limit + 1))
        self.loop_count = np.zeros((lanes, cap), np.int64)
        self.loop_depth = np.zeros(lanes, np.int32)
        self.call_ret = np.zeros((lanes, self.call_limit), np.int32)
        self.call_loop = np.zeros((lanes, self.call_limit), np.int32)
        self.call_depth = np.zeros(lanes, np.int32)
        geo = program.geometry
        self.vertices_out = geo.vertices_out if (geo and program.stage == Stage.GEOMETRY) \
            else np.iinfo(np.int32).max
        self.emitted = np.zeros(lanes, np.int32)
        self.strip = np.zeros(lanes, np.int32)
        self.records: list = []
        self.memory = None              # memory.Memory: the run's resources (memory.py)

    def outputs(self) -> dict[str, np.ndarray]:
        out = {}
        for name in self.output_names:
            r = self.program.registers[name]
            a = self.regs[name]
            out[name] = a[:, 0, :] if r.size is None else a
        return out

    def primitives(self) -> list[list[list[dict[str, np.ndarray]]]]:
        """Per lane: strips (in order) of vertices {output name: words}; empty strips dropped."""
        per_lane: list[dict[int, list]] = [dict() for _ in range(self.lanes)]
        arrays = {n: self.program.registers[n].size is not None for n in self.output_names}
        for lanes, strips, snap in self.records:
            for j in range(len(lanes)):
                vertex = {n: (v[j] if arrays[n] else v[j, 0]) for n, v in snap.items()}
                per_lane[lanes[j]].setdefault(int(strips[j]), []).append(vertex)
        return [[s for _, s in sorted(d.items())] for d in per_lane]
