"""The inter-lane opcodes (IR VOTEANY / VOTEALL / VOTEEQ / BALLOT / READFIRST / READINVOC, TGSI
"Inter-lane opcodes"; issue 20).

tgsi.rst: they "reduce the given value across the shader invocations running in the current
SIMD group" -- a subgroup, whose membership is the implementation's.  The executor's model: the
lanes are partitioned into subgroups given as input (``execute(..., subgroups=)``: per lane its
subgroup number and its invocation number in it, < 64); without one, consecutive blocks of
``DEFAULT_SUBGROUP_SIZE`` lanes in lane order (for fragment programs, whole 2x2 quads).  The
active invocations of an instruction are the lanes of the subgroup that execute it: the
executor runs structured control flow in step (the lowest program counter first), so lanes
reconverge after an IF, a loop's iterations run together, and a lane that took KIL is inactive.
``xlate verify`` learns the implementation's partition from a probe run and gives it to the
executor (xlate/verify/subgroups.py), so both sides reduce over the same lanes.

* VOTEANY / VOTEALL: ~0 when a.x is non-zero in any / every active invocation of the subgroup;
  VOTEEQ: ~0 when a.x is the same word in all of them.
* BALLOT: bit i of the 64-bit mask is set when invocation i is active and its a.x is non-zero;
  (low word, high word) in x, y; z and w 0 (tgsi.rst writes xy only: undefined there).
* READFIRST: a of the active invocation with the lowest number.
* READINVOC: a of invocation b.x of the lane's subgroup ("must be the same across all active
  invocations ... otherwise, the results are undefined"; an inactive or missing invocation
  reads 0 here, a value GLSL also leaves undefined).
"""
from __future__ import annotations

import numpy as np

from .alu import alu

#: subgroup size of the executor's default partition (a multiple of 4: whole quads)
DEFAULT_SUBGROUP_SIZE = 16
MAX_SUBGROUP_SIZE = 64


def default_partition(lanes: int, size: int = DEFAULT_SUBGROUP_SIZE) -> np.ndarray:
    """(lanes, 2) int64: subgroup number and invocation number of each lane."""
    lane = np.arange(lanes, dtype=np.int64)
    return np.stack([lane // size, lane % size], axis=1)


def _groups(x):
    """(executing lanes, their subgroup indices 0..n-1, n, their invocation numbers, which of
    them are active).  Every executing lane is active, except, in a verifier probe program
    (``Program.kills_as_flags``), a lane flagged by KIL: it runs on and gets its subgroup's
    result, to which it contributes nothing -- as if its KIL had ended it."""
    st = x.st
    lanes = st.all_lanes if x.idx is None else x.idx
    part = st.subgroups[lanes]
    keys, inv = np.unique(part[:, 0], return_inverse=True)
    return lanes, inv.reshape(-1), len(keys), part[:, 1], ~st.flagged[lanes]


def _vote(x, a, reduce):
    lanes, g, n, _, active = _groups(x)
    val = np.broadcast_to(np.asarray(a)[:, 0], (len(lanes),))
    return reduce(val[active], g[active], n)[g][:, None]


def _any(val, g, n):
    acc = np.zeros(n, bool)
    np.logical_or.at(acc, g, val != 0)
    return np.where(acc, np.uint32(0xFFFFFFFF), np.uint32(0))


def _all(val, g, n):
    acc = np.ones(n, bool)
    np.logical_and.at(acc, g, val != 0)
    return np.where(acc, np.uint32(0xFFFFFFFF), np.uint32(0))


def _eq(val, g, n):
    v = val.astype(np.int64)
    lo = np.full(n, np.iinfo(np.int64).max)
    hi = np.full(n, np.iinfo(np.int64).min)
    np.minimum.at(lo, g, v)
    np.maximum.at(hi, g, v)
    return np.where(lo >= hi, np.uint32(0xFFFFFFFF), np.uint32(0))     # (>=: no active lane)


def undefined_results(st) -> dict:
    """instruction index -> (active lanes,) bool: the lanes whose result of the last execution
    of that instruction the specs leave undefined (``permits.rule_undefined`` reads it)."""
    d = getattr(st, "undefined_lanes", None)
    if d is None:
        d = st.undefined_lanes = {}
    return d


@alu("VOTEANY")
def op_vote_any(x, a):
    return _vote(x, a, _any)


@alu("VOTEALL")
def op_vote_all(x, a):
    return _vote(x, a, _all)


@alu("VOTEEQ")
def op_vote_eq(x, a):
    return _vote(x, a, _eq)


@alu("BALLOT")
def op_ballot(x, a):
    lanes, g, n, inv, active = _groups(x)
    val = np.broadcast_to(np.asarray(a)[:, 0], (len(lanes),))
    bits = np.where((val != 0) & active, np.left_shift(np.uint64(1), inv.astype(np.uint64)),
                    np.uint64(0))
    acc = np.zeros(n, np.uint64)
    np.bitwise_or.at(acc, g, bits)
    mask = acc[g]
    out = np.zeros((len(lanes), 4), np.uint32)
    out[:, 0] = (mask & np.uint64(0xFFFFFFFF)).astype(np.uint32)
    out[:, 1] = (mask >> np.uint64(32)).astype(np.uint32)
    return out


@alu("READFIRST")
def op_read_first(x, a):
    lanes, g, n, inv, active = _groups(x)
    a = np.broadcast_to(a, (len(lanes), 4))
    first = np.full(n, MAX_SUBGROUP_SIZE, np.int64)
    np.minimum.at(first, g[active], inv[active])
    if not active.all():
        # a group of flagged lanes only (its result reaches nothing the verifier compares):
        # its own first invocation
        empty = first == MAX_SUBGROUP_SIZE
        np.minimum.at(first, g[empty[g]], inv[empty[g]])
    pick = np.zeros(n, np.int64)
    hit = inv == first[g]
    pick[g[hit]] = np.nonzero(hit)[0]
    return a[pick[g]]


@alu("READINVOC")
def op_read_invoc(x, a, b):
    # (every executing lane can be read, a flagged one too: its KIL would have made the read
    # undefined -- tgsi.rst: an invocation that is not active -- and the GLSL reads it)
    st = x.st
    lanes, g, n, inv, _ = _groups(x)
    full = x.loaders[0](st, None)             # the operand on every lane of the chunk
    full = np.broadcast_to(full, (st.lanes, 4))
    part = st.subgroups
    want = np.broadcast_to(np.asarray(b)[:, 0], (len(lanes),)).astype(np.int64)
    # the lane of (subgroup of each active lane, invocation wanted), among the active lanes
    key_all = part[lanes, 0] * MAX_SUBGROUP_SIZE + part[lanes, 1]
    order = np.argsort(key_all, kind="stable")
    target = part[lanes, 0] * MAX_SUBGROUP_SIZE + np.clip(want, 0, MAX_SUBGROUP_SIZE - 1)
    pos = np.searchsorted(key_all[order], target)
    pos = np.clip(pos, 0, len(order) - 1)
    found = (key_all[order][pos] == target) & (want >= 0) & (want < MAX_SUBGROUP_SIZE)
    src = lanes[order[pos]]
    # undefined (tgsi.rst, GLSL readInvocationARB): an index that differs within the subgroup,
    # or an invocation that is not active; recorded per execution for the verifier's replay
    lo = np.full(n, np.iinfo(np.int64).max)
    hi = np.full(n, np.iinfo(np.int64).min)
    np.minimum.at(lo, g, want)
    np.maximum.at(hi, g, want)
    undefined_results(st)[x.index] = ~found | (lo[g] != hi[g])
    out = np.where(found[:, None], full[src], np.uint32(0))
    return out.astype(np.uint32)
