"""A compute dispatch in the executor: a grid of workgroups, each one chunk of lanes.

Workgroup (gx, gy, gz) of a dispatch of ``groups`` runs as one chunk of ``x * y * z`` lanes
(``Program.local_size``), lane ``i`` being the invocation with ``gl_LocalInvocationIndex == i``
(x fastest, then y, then z).  Workgroups run one after the other in dispatch order, x fastest;
each gets fresh shared memory; storage buffers persist across them.  The order rules of the
memory instructions are in ``memory.py``.

The compute system values are inputs computed here: ``invocation.localid`` (x, y, z, 0),
``invocation.groupid``, ``invocation.numgroups`` (the grid) and ``invocation.groupsize``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..gcpause import paused
from ..ir.model import Program, RegKind, Stage
from .bind import ExecError, bind
from .machine import compile_program, run_chunk
from .memory import Memory
from .state import State
from .texture import prepare

#: the most invocations one dispatch may run (a guard against a mistyped grid)
MAX_INVOCATIONS = 1 << 22


@dataclass
class ComputeResult:
    """``buffers``: binding -> the storage buffer's words after the dispatch (uint32).
    ``steps_exceeded``: (invocations,) bool in dispatch order (workgroup by workgroup).
    ``out_of_range``: some access fell outside its resource (its value is unspecified)."""

    buffers: dict[int, np.ndarray]
    steps_exceeded: np.ndarray
    out_of_range: bool = False
    #: image unit -> its texels after the dispatch, (layers, height, width, 4) words (images.py)
    images: dict[int, np.ndarray] | None = None
    #: every atomic performed (memory.Memory.atomic_log)
    atomics: list | None = None
    #: some invocation read shared memory its workgroup had not written (GLSL: undefined;
    #: the executor reads 0)
    uninitialized_shared: bool = False
    #: the first data race found (exec/races.py), or None: the results of a racy program
    #: depend on an order the executor fixes and the implementation need not take
    race: str | None = None
    #: resource name -> the invocation (dispatch order) that last stored to or atomically
    #: changed each location (-1: none) -- words of buffers, texels of images (races.py): the
    #: verifier's replay attributes a differing word to its writer
    writers: dict | None = None

    def float(self, binding: int) -> np.ndarray:
        return self.buffers[binding].view(np.float32)

    def int(self, binding: int) -> np.ndarray:
        return self.buffers[binding].view(np.int32)


def invocation_ids(local_size, groups) -> dict[str, np.ndarray]:
    """The four compute system values of every invocation of a dispatch, in dispatch order
    ((n, 4) uint32 each, w = 0), by binding path."""
    lx, ly, lz = local_size
    gx, gy, gz = groups
    nl = lx * ly * lz
    li = np.arange(nl)
    local = np.stack([li % lx, li // lx % ly, li // (lx * ly), np.zeros(nl, int)], 1)
    gi = np.arange(gx * gy * gz)
    group = np.stack([gi % gx, gi // gx % gy, gi // (gx * gy), np.zeros(len(gi), int)], 1)
    n = nl * len(gi)
    return {
        "invocation.localid": np.tile(local, (len(gi), 1)).astype(np.uint32),
        "invocation.groupid": np.repeat(group, nl, axis=0).astype(np.uint32),
        "invocation.numgroups": np.broadcast_to(np.array([gx, gy, gz, 0], np.uint32), (n, 4)),
        "invocation.groupsize": np.broadcast_to(np.array([lx, ly, lz, 0], np.uint32), (n, 4)),
    }


def execute_compute(program: Program, groups=(1, 1, 1), *, buffers: dict | None = None,
                    images: dict | None = None, atomic_values: dict | None = None,
                    params: dict | None = None, textures: dict | None = None,
                    max_steps: int = 1 << 16, sampling: str = "spec",
                    hooks=None) -> ComputeResult:
    """Run a compute program over a grid of ``groups`` (x, y, z) workgroups.  ``buffers``:
    storage-buffer binding -> initial words; ``images``: image unit -> initial texels
    (``xlate.exec.images``); ``atomic_values``: (invocation, its n-th atomic) -> the word that
    atomic returns instead of the rule's (the verifier's replay of another order; memory.py);
    ``params``/``textures`` as for
    :func:`xlate.exec.execute`.  Raises :class:`ExecError` for bad arguments and for a BARRIER
    only part of a workgroup reaches (memory.py)."""
    if not isinstance(program, Program) or program.stage != Stage.COMPUTE:
        raise ExecError("execute_compute runs a compute program (TGSI COMP)")
    try:
        groups = tuple(int(g) for g in groups)
    except (TypeError, ValueError):
        raise ExecError(f"groups: expected three positive integers, got {groups!r}") from None
    if len(groups) != 3 or min(groups) < 1:
        raise ExecError(f"groups: expected three positive integers, got {groups!r}")
    lx, ly, lz = program.local_size
    nl = lx * ly * lz
    ng = groups[0] * groups[1] * groups[2]
    if nl * ng > MAX_INVOCATIONS:
        raise ExecError(f"{nl * ng} invocations: at most {MAX_INVOCATIONS} per dispatch")
    ids = invocation_ids(program.local_size, groups)
    inputs = {}
    for reg in program.registers.values():
        if reg.kind == RegKind.INPUT and reg.bindings and reg.bindings[0] is not None:
            path = reg.bindings[0].path
            if path not in ids:
                raise ExecError(f"input {reg.name} ({path}) is not a compute system value")
            inputs[reg.name] = ids[path]
    tex = prepare(program, textures, sampling)
    total, storage = bind(program, inputs, params, nl * ng)
    with paused():
        code, loop_depth = compile_program(program, hooks)
    memory = Memory(program, buffers, images)
    memory.forced = atomic_values
    exceeded = np.zeros(total, bool)
    for g in range(ng):
        start, end = g * nl, (g + 1) * nl
        regs = {name: (a if a.shape[0] == 1 else a[start:end]) for name, a in storage.items()}
        st = State(program, nl, regs, tex, loop_depth)
        st.base = start
        st.group = (g % groups[0], g // groups[0] % groups[1], g // (groups[0] * groups[1]))
        memory.new_group()
        st.memory = memory
        run_chunk(code, st, int(max_steps))
        exceeded[start:end] = st.exceeded
    return ComputeResult(memory.buffers(), exceeded, memory.out_of_range, memory.image_data(),
                         memory.atomic_log, memory.uninitialized_shared, memory.races.race,
                         {r.name: memory.races.writer[r.name].copy()
                          for r in program.resources.values() if r.kind != "shared"})
