"""Memory instructions of the executor: LOAD, STORE, BARRIER, MEMBAR (``Instruction.mem``).

Memory is words: every resource of ``Program.resources`` is a flat uint32 array
(:class:`Memory`), addressed by byte offsets -- component c of an access is the word at
``(address >> 2) + c`` (the two low bits of a byte offset are ignored: tgsi.rst gives no
unaligned access; the GLSL backend indexes ``words[address >> 2]`` the same way).

Order (the rule the verifier relies on; ``verify/gl_compute.py`` checks a run against it):

* Instructions run as the machine schedules them (machine.py): the smallest pc first, so every
  invocation of a workgroup that has not yet reached an instruction runs up to it before any
  runs past it.  Within one instruction the lanes act in lane order (``gl_LocalInvocationIndex``
  order in a workgroup): for two STOREs of one instruction to one word, the higher lane's value
  is the one left.
* Workgroups run one after the other, in dispatch order (x fastest, then y, then z); shared
  memory is one fresh, zero-filled copy per workgroup.
* An access outside a resource reads 0 and writes nothing (tgsi.rst: "the result is
  unspecified"; the verifier compares no value that depends on one -- see ``out_of_range``).
* BARRIER: as the scheduler already brings every invocation to the instruction first, a
  BARRIER only checks that the whole workgroup is there.  One reached by only some of the
  invocations (under divergent control flow, or after others ended) is undefined (tgsi.rst:
  "Results are unspecified if any of the remaining threads terminates or never reaches an
  executed BARRIER instruction"; GLSL 4.60 8.16 allows barrier() only in uniform control flow)
  and raises :class:`ExecError` naming the instruction.
* MEMBAR orders nothing more: the executor is sequentially consistent.
* Data races (races.py): two invocations touching one location with no BARRIER of their
  workgroup between, one of them storing, have an order the executor fixes and the
  implementation need not take; the first is recorded (``Memory.races``,
  ``ComputeResult.race``) so that the verifier does not compare such a run.
* Atomics (atomics.py has each rule) of one instruction act in lane order; every one is
  logged (``Memory.atomic_log``) so the verifier can replay another order (``forced``).
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from ..ir.image_formats import image_format
from ..ir.model import Program
from .bind import ExecError
from .atomics import RULES
from .flow import DEAD, PARKED
from .images import IMAGE_SAMPLES, MULTISAMPLE_IMAGES, new_image, store_words, texel_index
from .races import RaceTracker, sync_token

MEM: dict[str, Callable] = {}

#: bytes a storage buffer holds when the caller binds none (the verifier's default)
DEFAULT_BUFFER_BYTES = 1024


def mem(*names: str):
    def deco(fn):
        for n in names:
            MEM[n] = fn
        return fn
    return deco


class Memory:
    """The words of every resource of a run: ``words[name]`` (uint32, flat).  Storage buffers
    live for the whole run; shared memory is replaced for each workgroup (:meth:`new_group`).
    ``out_of_range``: set when an access fell outside its resource."""

    def __init__(self, program: Program, buffers: dict | None, images: dict | None = None):
        self.program = program
        self.words: dict[str, np.ndarray] = {}
        self.images: dict[str, np.ndarray] = {}      # images.py: (layers, height, width, 4)
        self.out_of_range = False
        # atomics (atomics.py): every one performed, in order, as (invocation, its sequence
        # number in that invocation, resource, location, opcode, a, b, returned, the word
        # before it); ``forced``:
        # (invocation, sequence number) -> the word to return instead (the verifier's replay
        # of an implementation's order)
        self.atomic_log: list[tuple] = []
        self.atomic_seq: dict[int, int] = {}
        self.forced: dict[tuple[int, int], int] | None = None
        # shared memory starts undefined in GLSL (4.60 4.3.8: "shared variables ... cannot be
        # initialized"): the executor zero-fills it, and records a read of a word the
        # workgroup has not written (``uninitialized_shared``)
        self.shared_written: dict[str, np.ndarray] = {}
        self.uninitialized_shared = False
        # data races (races.py): the workgroup running (dispatch order) and its BARRIERs passed
        self.races = RaceTracker()
        self.group = -1
        self.epoch = 0
        images = dict(images or {})
        for r in program.resources.values():
            if r.kind == "image":
                self.images[r.name] = new_image(r, images.pop(r.binding, None))
        if images:
            raise ExecError(f"images {sorted(map(str, images))}: the program declares no such "
                            "IMAGE")
        buffers = dict(buffers or {})
        for r in program.resources.values():
            if r.kind != "buffer":
                continue
            data = buffers.pop(r.binding, None)
            if data is None:
                data = buffers.pop(r.name, None)
            if data is None:
                self.words[r.name] = np.zeros(DEFAULT_BUFFER_BYTES // 4, np.uint32)
                continue
            a = np.ascontiguousarray(np.asarray(data))
            if a.dtype.itemsize != 4 or a.dtype.kind not in "fiu":
                raise ExecError(f"buffer {r.binding}: expected 32-bit words (float32, int32 or "
                                f"uint32), got {a.dtype}")
            self.words[r.name] = a.reshape(-1).view(np.uint32).copy()
        if buffers:
            raise ExecError(f"buffers {sorted(map(str, buffers))}: the program declares no such "
                            "BUFFER")
        for name, w in self.words.items():
            self.races.reset(name, len(w))
        for name, img in self.images.items():
            self.races.reset(name, int(np.prod(img.shape[:3])))
        self.new_group()

    def new_group(self) -> None:
        self.group += 1
        self.epoch = 0
        for r in self.program.resources.values():
            if r.kind == "shared":
                self.words[r.name] = np.zeros(r.size // 4, np.uint32)
                self.shared_written[r.name] = np.zeros(r.size // 4, bool)
                self.races.reset(r.name, r.size // 4)

    def track(self, name: str, locs: np.ndarray, st, lanes, kind: str, values=None) -> None:
        """Note accesses for the race check (races.py); ``lanes``: the accessing lanes."""
        self.races.access(name, locs, st.base + np.asarray(lanes),
                          sync_token(self.group, self.epoch), kind, values)

    def read(self, name: str, at: np.ndarray) -> None:
        """Note a read of words ``at`` (in range) of resource ``name``."""
        w = self.shared_written.get(name)
        if w is not None and not w[at].all():
            self.uninitialized_shared = True

    def wrote(self, name: str, at: np.ndarray) -> None:
        w = self.shared_written.get(name)
        if w is not None:
            w[at] = True

    def buffers(self) -> dict[int, np.ndarray]:
        return {r.binding: self.words[r.name].copy() for r in self.program.resources.values()
                if r.kind == "buffer"}

    def image_data(self) -> dict[int, np.ndarray]:
        return {r.binding: self.images[r.name].copy() for r in self.program.resources.values()
                if r.kind == "image"}


def _memory(st) -> Memory:
    m = getattr(st, "memory", None)
    if m is None:
        m = st.memory = Memory(st.program, None)
    return m


def _vectors(value: np.ndarray, n: int) -> np.ndarray:
    """An operand's words as (n, 4): a loader gives one row per lane, or one row for all
    lanes (an immediate, a constant: found by generated compute programs, whose stored
    immediates crashed here)."""
    v = np.ascontiguousarray(value).view(np.uint32)
    return np.broadcast_to(v.reshape(v.shape[0], -1), (n, 4))


def _first_words(value: np.ndarray, n: int) -> np.ndarray:
    """An operand's first component's word, one per lane (as :func:`_vectors`)."""
    v = np.ascontiguousarray(value).view(np.uint32)
    return np.broadcast_to(v.reshape(v.shape[0], -1)[:, 0], (n,))


def _word_index(addr: np.ndarray, n: int) -> np.ndarray:
    """Word indices of the byte offsets ``addr`` (the first column), one per lane."""
    return (_first_words(addr, n) >> np.uint32(2)).astype(np.int64)


@mem("LOAD")
def op_load(x, st, lanes, cur):
    m = _memory(st)
    words = m.words[x.inst.mem.resource]
    base = _word_index(x.loaders[0](st, lanes), len(lanes))
    out = np.zeros((len(lanes), 4), np.uint32)
    for c in range(4):
        if not x.inst.dst.mask[c]:
            continue
        at = base + c
        ok = at < len(words)
        if not ok.all():
            m.out_of_range = True
        m.read(x.inst.mem.resource, at[ok])
        m.track(x.inst.mem.resource, at[ok], st, np.asarray(lanes)[ok], "load")
        out[ok, c] = words[at[ok]]
    x.write(st, lanes, out, None, None, None)
    st.pc[lanes] = cur + 1


@mem("STORE")
def op_store(x, st, lanes, cur):
    m = _memory(st)
    words = m.words[x.inst.mem.resource]
    base = _word_index(x.loaders[0](st, lanes), len(lanes))
    value = _vectors(x.loaders[1](st, lanes), len(lanes))
    for c in range(4):
        if not x.inst.mem.mask[c]:
            continue
        at = base + c
        ok = at < len(words)
        if not ok.all():
            m.out_of_range = True
        at, v = at[ok], value[ok, c]
        words4 = np.zeros((len(v), 4), np.uint32)
        words4[:, 0] = v
        m.track(x.inst.mem.resource, at, st, np.asarray(lanes)[ok], "store", words4)
        # lane order: of several lanes storing to one word, the last (highest) lane's value
        # stays -- numpy leaves repeated indices of one assignment unordered, so keep the last
        rev = at[::-1]
        uniq, first_in_rev = np.unique(rev, return_index=True)
        last = len(at) - 1 - first_in_rev
        words[uniq] = v[last]
        m.wrote(x.inst.mem.resource, uniq)
    st.pc[lanes] = cur + 1


def _texels(x, st, lanes):
    m = _memory(st)
    r = st.program.resources[x.inst.mem.resource]
    img = m.images[r.name]
    coords = _vectors(x.loaders[0](st, lanes), len(lanes))
    layer, y, xx, inside = texel_index(r, img.shape[:3], np.ascontiguousarray(coords))
    if not inside.all():
        m.out_of_range = True
    return m, img, (layer, y, xx), inside


@mem("IMGLOAD")
def op_imgload(x, st, lanes, cur):
    m, img, at, inside = _texels(x, st, lanes)
    m.track(x.inst.mem.resource, np.ravel_multi_index(at, img.shape[:3])[inside], st,
            np.asarray(lanes)[inside], "load")
    out = np.where(inside[:, None], img[at], np.uint32(0)).astype(np.uint32)
    x.write(st, lanes, out, None, None, None)
    st.pc[lanes] = cur + 1


@mem("IMGSTORE")
def op_imgstore(x, st, lanes, cur):
    m, img, at, inside = _texels(x, st, lanes)
    r = st.program.resources[x.inst.mem.resource]
    value = _vectors(x.loaders[1](st, lanes), len(lanes))
    fmt = image_format(r.format)
    texel = store_words(fmt, value) if fmt is not None else np.array(value, np.uint32)
    flat = np.ravel_multi_index(at, img.shape[:3])[inside]
    texel = texel[inside]
    m.track(r.name, flat, st, np.asarray(lanes)[inside], "store", texel)
    # lane order: the last lane storing to a texel wins (as for STORE)
    uniq, first_in_rev = np.unique(flat[::-1], return_index=True)
    last = len(flat) - 1 - first_in_rev
    img.reshape(-1, 4)[uniq] = texel[last]
    st.pc[lanes] = cur + 1


@mem("RESQ")
def op_resq(x, st, lanes, cur):
    # tgsi.rst RESQ: a buffer's size in bytes in x; an image's width, height, layers (depth)
    # in x, y, z and "the number of samples for multi-sampled images" in w (0 for the others,
    # whose GLSL has no imageSamples); components a target lacks are 0
    m = _memory(st)
    r = st.program.resources[x.inst.mem.resource]
    out = np.zeros((len(lanes), 4), np.uint32)
    if r.kind == "buffer":
        out[:, 0] = 4 * len(m.words[r.name])
    else:
        layers, h, w = m.images[r.name].shape[:3]
        dims = {"BUFFER": (w,), "1D": (w,), "2D": (w, h), "RECT": (w, h), "3D": (w, h, layers),
                "CUBE": (w, h), "ARRAY1D": (w, layers), "ARRAY2D": (w, h, layers),
                "ARRAYCUBE": (w, h, layers // 6), "2DMS": (w, h),
                "ARRAY2DMS": (w, h, layers // IMAGE_SAMPLES)}[r.target]
        out[:, :len(dims)] = dims
        if r.target in MULTISAMPLE_IMAGES:
            out[:, 3] = IMAGE_SAMPLES
    x.write(st, lanes, out, None, None, None)
    st.pc[lanes] = cur + 1


NOWHERE = 0xFFFFFFFF        # the location logged for an atomic outside its resource


@mem(*RULES)
def op_atomic(x, st, lanes, cur):
    m = _memory(st)
    ins = x.inst
    r = st.program.resources[ins.mem.resource]
    n = len(lanes)
    if r.kind == "image":
        img = m.images[r.name]
        coords = _vectors(x.loaders[0](st, lanes), n)
        layer, y, xx, inside = texel_index(r, img.shape[:3], np.ascontiguousarray(coords))
        loc = np.ravel_multi_index((layer, y, xx), img.shape[:3])
        words_view = img.reshape(-1, 4)           # an atomic image holds one 32-bit channel
        words = None
    else:
        words = m.words[r.name]
        words_view = None
        loc = _word_index(x.loaders[0](st, lanes), n)
        inside = loc < len(words)
    a = _first_words(x.loaders[1](st, lanes), n)
    b = _first_words(x.loaders[2](st, lanes), n) if len(x.loaders) > 2 else \
        np.zeros(n, np.uint32)
    rule = RULES[ins.op]
    out = np.zeros((n, 4), np.uint32)
    for j in range(n):                           # lane order (the module docstring)
        inv = int(st.base + lanes[j])
        seq = m.atomic_seq.get(inv, 0)
        m.atomic_seq[inv] = seq + 1
        if not inside[j]:
            m.out_of_range = True
            m.atomic_log.append((inv, seq, r.name, NOWHERE, ins.op, int(a[j]), int(b[j]), 0, 0))
            continue
        at = int(loc[j])
        m.track(r.name, np.array([at]), st, lanes[j:j + 1], "atomic")
        if words_view is None:
            m.read(r.name, np.array([at]))
            m.wrote(r.name, np.array([at]))
        old = int(words_view[at, 0]) if words_view is not None else int(words[at])
        ret, new = rule(old, int(a[j]), int(b[j]))
        if m.forced is not None:
            ret = m.forced.get((inv, seq), ret)
        if words_view is not None:
            words_view[at, 0] = new
        else:
            words[at] = new
        out[j] = ret
        m.atomic_log.append((inv, seq, r.name, at, ins.op, int(a[j]), int(b[j]), ret, old))
    x.write(st, lanes, out, None, None, None)
    st.pc[lanes] = cur + 1


@mem("BARRIER")
def op_barrier(x, st, lanes, cur):
    """The lanes here pass once the whole workgroup is here.  Lanes that arrive while others
    still run elsewhere (those that returned early from a subroutine placed after main, whose
    instructions the smallest-pc-first scheduler runs later: found by generated compute
    programs) wait, parked; the last to arrive releases them.  Invocations that end or wait at
    another BARRIER instead leave it undefined."""
    pc = st.pc
    here = np.zeros(st.lanes, bool)
    here[lanes] = True
    arrived = here | (pc == PARKED)
    waiting = getattr(st, "barrier", None)
    if waiting is not None and waiting[0] != cur:
        _undefined_barrier(waiting[1], st, int((pc == PARKED).sum()),
                           "the others wait at another BARRIER")
    if (~arrived & (pc != DEAD)).any():
        pc[lanes] = PARKED
        st.barrier = (cur, x)
    elif arrived.all():
        pc[arrived] = cur + 1
        st.barrier = None
        _memory(st).epoch += 1          # accesses on either side are ordered (races.py)
    else:
        _undefined_barrier(x, st, int(arrived.sum()), "the others took another path or ended")


def barrier_never_completed(st) -> None:
    """The scheduler found every live lane parked at a BARRIER the others did not reach."""
    _undefined_barrier(st.barrier[1], st, int((st.pc == PARKED).sum()),
                       "the others took another path or ended")


def _undefined_barrier(x, st, arrived: int, why: str) -> None:
    sp = x.inst.span
    where = f"BARRIER at {sp.file}:{sp.line}" if sp is not None else "BARRIER"
    raise ExecError(f"{where} reached by {arrived} of the {st.lanes} invocations of workgroup "
                    f"{getattr(st, 'group', (0, 0, 0))}: {why} -- undefined (tgsi.rst BARRIER; "
                    "GLSL allows barrier() in uniform control flow only)")


@mem("MEMBAR")
def op_membar(x, st, lanes, cur):
    st.pc[lanes] = cur + 1
