"""Public entry point: :func:`execute` and :class:`ExecResult`."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..ir.model import Program, RegKind, Stage
from .bind import ExecError, bind, binding_keys
from ..gcpause import paused
from .machine import compile_program, run_chunk
from .memory import Memory
from .state import State
from .texture import Texture, prepare


@dataclass
class ExecResult:
    """What a run produced.

    ``outputs``: OUTPUT register name -> (lanes, 4) uint32 raw words ((lanes, n, 4) for arrays).
    ``killed``: (lanes,) bool for fragment programs (KIL), else None.
    ``primitives``: geometry programs: per lane a list of strips, each a list of vertices
    {output register name: (4,) uint32 words ((n, 4) for arrays)}; else None.
    ``steps_exceeded``: (lanes,) bool, lanes stopped by the ``max_steps`` watchdog.
    ``abnormal``: (lanes,) bool, lanes whose program terminated abnormally as its specification
    defines it: a CAL with MAX_PROGRAM_CALL_DEPTH_NV calls pending (VP2, the ARBvp options,
    FP2), RET or POPA finding the wrong kind of call-stack entry, POPA on an empty or PUSHA on
    a full stack (VP3), an IF/LOOP/REP past the run-time nesting limits (FP2), or the program's
    own executed-instruction limit (``Program.max_exec_instructions``, 65536: VP2 2.14.2.3,
    FP2 3.11.4.X) -- the last also sets ``steps_exceeded``.  The outputs of such a lane hold
    the values written so far: VP2 and FP2 emit exactly those ("the final values of the ...
    result registers"); the ARB vertex options call them undefined.  A RET with an empty call
    stack is a *normal* end and is not recorded.
    """

    outputs: dict[str, np.ndarray]
    killed: np.ndarray | None
    primitives: list | None
    steps_exceeded: np.ndarray
    aliases: dict[str, str] = field(default_factory=dict, repr=False)
    abnormal: np.ndarray | None = None
    #: binding text of one element of an output array -> (register name, element)
    element_aliases: dict[str, tuple[str, int]] = field(default_factory=dict, repr=False)
    #: programs with storage buffers: binding -> the buffer's words after the run (memory.py)
    buffers: dict[int, np.ndarray] | None = None
    #: an access fell outside its resource (its value is unspecified: memory.py)
    out_of_range: bool = False
    #: programs with images: unit -> the texels after the run (images.py)
    images: dict[int, np.ndarray] | None = None

    def _name(self, name: str) -> str:
        if name in self.outputs:
            return name
        if name in self.aliases:
            return self.aliases[name]
        raise KeyError(f"no output {name!r}")

    def words(self, name: str) -> np.ndarray:
        """Raw words of an output, by register name or binding text (``result.color``; an
        element of an output array by its own binding, ``result.generic[1]``)."""
        if name not in self.outputs and name not in self.aliases and name in self.element_aliases:
            reg, k = self.element_aliases[name]
            return self.outputs[reg][:, k]
        return self.outputs[self._name(name)]

    def float(self, name: str) -> np.ndarray:
        """An output viewed as float32 (register name or binding text)."""
        return self.words(name).view(np.float32)

    def int(self, name: str) -> np.ndarray:
        return self.words(name).view(np.int32)


def _output_aliases(program: Program) -> dict[str, str]:
    aliases: dict[str, str] = {}
    for reg in program.registers.values():
        if reg.kind != RegKind.OUTPUT or reg.size is not None:
            continue
        for b in reg.bindings[:1]:
            if b is not None:
                for k in binding_keys(b):
                    aliases.setdefault(k, reg.name)
                if b.index == 0 and b.index2 is None and b.vertex is None:
                    aliases.setdefault(b.path, reg.name)     # result.color = result.color[0]
    return aliases


def _element_aliases(program: Program) -> dict[str, tuple[str, int]]:
    aliases: dict[str, tuple[str, int]] = {}
    for reg in program.registers.values():
        if reg.kind != RegKind.OUTPUT or reg.size is None:
            continue
        for k, b in enumerate(reg.bindings):
            if b is not None and b.vertex is None:
                for key in binding_keys(b):
                    aliases.setdefault(key, (reg.name, k))
    return aliases


def _partition(subgroups, total: int, chunk: int) -> np.ndarray:
    """The subgroup partition of ``execute`` (see there), checked."""
    from .subgroup import MAX_SUBGROUP_SIZE, default_partition
    if subgroups is None:
        return default_partition(total)
    part = np.asarray(subgroups, np.int64)
    if part.shape != (total, 2):
        raise ExecError(f"subgroups: expected ({total}, 2) integers, got shape {part.shape}")
    if ((part[:, 1] < 0) | (part[:, 1] >= MAX_SUBGROUP_SIZE)).any():
        raise ExecError(f"subgroups: invocation numbers are 0..{MAX_SUBGROUP_SIZE - 1}")
    chunk_of = np.arange(total) // chunk
    first = {}
    for g, c in zip(part[:, 0].tolist(), chunk_of.tolist()):
        if first.setdefault(g, c) != c:
            raise ExecError(f"subgroups: subgroup {g} spans two chunks of {chunk} lanes")
    keys = part[:, 0] * MAX_SUBGROUP_SIZE + part[:, 1]
    if len(np.unique(keys)) != total:
        raise ExecError("subgroups: two lanes have the same subgroup and invocation number")
    return part


def execute(program: Program | str, inputs: dict | None = None, *, lanes: int | None = None,
            params: dict | None = None, textures: dict[int, Texture] | None = None,
            chunk: int = 65536, max_steps: int = 1 << 16,
            filename: str = "<input>", sampling: str = "spec", hooks=None,
            buffers: dict | None = None, images: dict | None = None,
            subgroups=None) -> ExecResult:
    """Run ``program`` on many invocations ("lanes") at once.

    ``program``: an IR :class:`~xlate.ir.model.Program` or program source text (parsed with
    :func:`xlate.parse`, which raises :class:`~xlate.XlateError` with the diagnostics;
    ``filename`` names it in them).

    ``inputs``: INPUT register name or binding text (``vertex.attrib[3]``,
    ``fragment.texcoord[0]``) -> values broadcast to (lanes, 4) (arrays (lanes, n, 4);
    geometry per-vertex inputs (lanes, vertices, 4)).  ``params``: PARAM/BUFFER register name,
    element binding text (``program.local[3]``, ``state.matrix.mvp.row[0]``) or binding path
    (``program.local`` -> an (N, 4) array); PARAM elements without a binding use their constant
    value.  Float arrays are stored as float32 bits, integer arrays as raw 32-bit words.
    ``lanes`` defaults to the leading dimension of the per-lane values.  Lanes run in chunks of
    ``chunk`` (rounded up to whole 2x2 quads for fragment programs, so DDX/DDY see the same
    neighbours whatever the chunk).  ``max_steps`` bounds the instructions executed per lane.
    ``textures``: texture unit -> :class:`Texture` for every unit the program samples.
    ``sampling``: "spec" (default) samples by the GL 4.5 formulas; "llvmpipe" departs from
    them where Mesa llvmpipe does (LOD log2 approximation, no c = 0.5 switch-over), to compare
    mipmapped results with llvmpipe bit for bit (``xlate.exec.texture.prepare``).

    ``hooks``: an object with ``instructions`` (indices), ``__call__(op, state, idx, operands,
    bits, cmask) -> (bits, cmask)``, called with the result of each of those ALU/texture
    instructions before it is written (``state.base`` + ``idx``: the lanes; see
    ``machine.run_alu``), and ``before_flow(op, state, lanes)``, called before each of those
    flow instructions runs, and ``kill_decision(op, state, lanes, kill, operand) -> kill`` for a
    KIL with an operand; the verifier's replay (``xlate.verify.replay``) uses it.

    ``buffers``: storage-buffer binding -> its initial words (32-bit arrays; a buffer not given
    holds 1024 zero bytes); the words after the run are ``ExecResult.buffers``.  ``images``:
    image unit -> its texels (``xlate.exec.images``), after the run ``ExecResult.images``.  Chunks run in
    lane order and share the buffers (``xlate.exec.memory``).  Compute programs run through
    :func:`xlate.exec.compute.execute_compute` (a grid of workgroups).
    ``subgroups``: (lanes, 2) integers, each lane's subgroup number and invocation number in
    it (< 64), the partition the inter-lane opcodes reduce over (``exec/subgroup.py``; default:
    consecutive blocks of ``DEFAULT_SUBGROUP_SIZE`` lanes); a subgroup must lie within one chunk.

    Bad inputs raise :class:`ExecError` naming the offending input, parameter or texture unit.
    """
    if isinstance(program, (bytes, bytearray)):
        program = bytes(program).decode("utf-8", errors="replace")
    if isinstance(program, str):
        from ..frontends import parse_program
        program = parse_program(program, filename)
    if not isinstance(program, Program):
        raise ExecError(f"program: expected xlate.ir.model.Program or source text, got "
                        f"{type(program).__name__}")
    if not isinstance(chunk, (int, np.integer)) or chunk < 1:
        raise ExecError(f"chunk: must be a positive integer, got {chunk!r}")
    if not isinstance(max_steps, (int, np.integer)) or max_steps < 1:
        raise ExecError(f"max_steps: must be a positive integer, got {max_steps!r}")
    if program.stage == Stage.COMPUTE:
        raise ExecError("a compute program runs as a dispatch of workgroups: "
                        "xlate.exec.compute.execute_compute")
    tex = prepare(program, textures, sampling)
    memory = Memory(program, buffers, images) if program.resources or buffers or images \
        else None
    total, storage = bind(program, inputs, params, lanes)
    with paused():               # linear set-up time for large programs (xlate/gcpause.py)
        code, loop_depth = compile_program(program, hooks)
    fragment = program.stage == Stage.FRAGMENT
    geometry = program.stage == Stage.GEOMETRY
    if fragment:
        chunk = (int(chunk) + 3) // 4 * 4

    # results are written into preallocated arrays chunk by chunk: memory stays bounded by the
    # inputs, the outputs and one chunk of machine state
    out_regs = [r for r in program.registers.values() if r.kind == RegKind.OUTPUT]
    outputs = {r.name: np.empty((total, 4) if r.size is None else (total, r.size, 4), np.uint32)
               for r in out_regs}
    killed = np.zeros(total, bool)
    exceeded = np.zeros(total, bool)
    abnormal = np.zeros(total, bool)
    # the watchdog stops a lane at min(max_steps, the program's own limit): only the program's
    # limit is an abnormal termination of the program (a smaller max_steps is the caller's)
    own_limit = program.max_exec_instructions is not None and \
        int(max_steps) >= program.max_exec_instructions
    prims: list = []
    part = _partition(subgroups, total, int(chunk))
    for start in range(0, total, int(chunk)):
        end = min(total, start + int(chunk))
        regs = {name: (a if a.shape[0] == 1 else a[start:end]) for name, a in storage.items()}
        st = State(program, end - start, regs, tex, loop_depth)
        st.base = start
        st.memory = memory
        st.subgroups = part[start:end]
        run_chunk(code, st, int(max_steps))
        for name, value in st.outputs().items():
            outputs[name][start:end] = value
        killed[start:end] = st.killed
        exceeded[start:end] = st.exceeded
        if getattr(st, "abnormal", None) is not None:
            abnormal[start:end] = st.abnormal
        if own_limit:
            abnormal[start:end] |= st.exceeded
        if geometry:
            prims.extend(st.primitives())
    return ExecResult(
        outputs=outputs,
        killed=killed if fragment else None,
        primitives=prims if geometry else None,
        steps_exceeded=exceeded,
        aliases=_output_aliases(program), element_aliases=_element_aliases(program),
        abnormal=abnormal,
        buffers=memory.buffers() if memory is not None else None,
        images=memory.image_data() if memory is not None else None,
        out_of_range=memory.out_of_range if memory is not None else False,
    )
