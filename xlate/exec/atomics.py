"""Atomic memory operations (tgsi.rst "Atomic opcodes"): each IR ``ATOM*`` opcode's rule,
defined once here for the executor and for the verifier's order reconstruction
(``verify/gl_compute.py``).

A rule takes the word in memory before the operation and the operand words and gives
(the word returned to the invocation, the word left in memory); words are uint32, read as
the operation says:

* ADD wraps (unsigned); FADD adds float32 (IEEE round to nearest even; the order of several
  adds to one word changes the sum's rounding -- the verifier finds the order);
* UMIN/UMAX unsigned, IMIN/IMAX signed; AND/OR/XOR bits; XCHG stores the operand; CAS stores
  the second operand where the word equals the first;
* INCWRAP and DECWRAP as tgsi.rst writes them, which differs from the CUDA/D3D forms Mesa's
  drivers implement -- the spec wins (tests/test_tgsi_compute.py pins both):
  ``INCWRAP``: returned = old + 1 (wrapping), stored = returned <= src ? returned : 0;
  ``DECWRAP``: returned = old, stored = (old > 0 && old < src) ? old - 1 : 0.

Order (exec/memory.py): the executor applies the atomics of one instruction in lane order.
Which order real invocations take is open; the verifier accepts any order that reproduces what
the implementation returned to every invocation and left in memory.
"""
from __future__ import annotations

import struct
from typing import Callable

M32 = 0xFFFFFFFF


def _s(w: int) -> int:
    return w - (1 << 32) if w & 0x80000000 else w


def _f(w: int) -> float:
    return struct.unpack("<f", struct.pack("<I", w))[0]


def _fadd(old: int, a: int) -> int:
    import numpy as np
    with np.errstate(all="ignore"):
        return int((np.float32(_f(old)) + np.float32(_f(a))).view(np.uint32))


def _inc(old: int, a: int, b: int) -> tuple[int, int]:
    ret = (old + 1) & M32
    return ret, (ret if ret <= a else 0)


def _dec(old: int, a: int, b: int) -> tuple[int, int]:
    return old, ((old - 1) & M32 if 0 < old < a else 0)


#: IR opcode -> rule(old, a, b) -> (returned, stored)
RULES: dict[str, Callable[[int, int, int], tuple[int, int]]] = {
    "ATOMADD": lambda o, a, b: (o, (o + a) & M32),
    "ATOMFADD": lambda o, a, b: (o, _fadd(o, a)),
    "ATOMXCHG": lambda o, a, b: (o, a),
    "ATOMCAS": lambda o, a, b: (o, b if o == a else o),
    "ATOMAND": lambda o, a, b: (o, o & a),
    "ATOMOR": lambda o, a, b: (o, o | a),
    "ATOMXOR": lambda o, a, b: (o, o ^ a),
    "ATOMUMIN": lambda o, a, b: (o, min(o, a)),
    "ATOMUMAX": lambda o, a, b: (o, max(o, a)),
    "ATOMIMIN": lambda o, a, b: (o, o if _s(o) < _s(a) else a),
    "ATOMIMAX": lambda o, a, b: (o, o if _s(o) > _s(a) else a),
    "ATOMINCWRAP": _inc,
    "ATOMDECWRAP": _dec,
}

def find_order(initial: int, ops: list[tuple[str, int, int, int]], limit: int = 200_000,
               stored: Callable[[str, int, int, int, int], tuple[int, ...]] | None = None):
    """An order of the atomic operations ``ops`` -- (opcode, a, b, returned) on one word that
    held ``initial`` -- in which every operation returns what it returned; (the order as indices
    into ``ops``, the word left, how many operations of it left another word than their rule's)
    or None when no order does.  Operations that are the same
    (opcode, operands and returned value) are interchangeable and tried once per state, so the
    search is over distinct operations; ``limit`` bounds the states visited (then
    ``RuntimeError``).  ``stored(opcode, old, a, b, word)``: the words an implementation may
    leave where the rule leaves ``word`` (the rule's first; the verifier's freedoms of a float
    add, ``verify/gl_compute.float_add_words``), each tried."""
    groups: dict[tuple, list[int]] = {}
    for k, op in enumerate(ops):
        groups.setdefault(op, []).append(k)
    keys = list(groups)
    counts = [len(groups[k]) for k in keys]
    seen: set = set()
    visited = [0]

    def search(cur: int, left: tuple[int, ...]) -> list[tuple[int, int]] | None:
        if not any(left):
            return []
        state = (cur, left)
        if state in seen:
            return None
        visited[0] += 1
        if visited[0] > limit:
            raise RuntimeError(f"order search gave up after {limit} states")
        for g, n in enumerate(left):
            if not n:
                continue
            name, a, b, returned = keys[g]
            ret, new = RULES[name](cur, a, b)
            if ret != returned:
                continue
            for word in (new,) if stored is None else stored(name, cur, a, b, new):
                rest = search(word, left[:g] + (n - 1,) + left[g + 1:])
                if rest is not None:
                    return [(g, word)] + rest
        seen.add(state)
        return None

    import sys
    depth = sys.getrecursionlimit()
    sys.setrecursionlimit(max(depth, len(ops) + 1000))
    try:
        path = search(initial, tuple(counts))
    finally:
        sys.setrecursionlimit(depth)
    if path is None:
        return None
    taken = {g: 0 for g in range(len(keys))}
    order, cur, freed = [], initial, 0
    for g, word in path:
        order.append(groups[keys[g]][taken[g]])
        taken[g] += 1
        name, a, b, _ = keys[g]
        freed += word != RULES[name](cur, a, b)[1]
        cur = word
    return order, cur, freed
