"""Data races of a compute dispatch: two invocations accessing one memory location, at least
one of them storing, with nothing ordering the two.

The rule (tgsi.rst leaves the order of memory accesses of different invocations open except
through BARRIER; GLSL 4.60 4.10 / 8.16 likewise: shared and buffer memory written by one
invocation is seen by another only after a barrier() both pass, and never across
workgroups): an access by invocation I races a previous access by another invocation J to
the same location when it is not the case that J is in I's workgroup and a BARRIER came
between them.  Two plain stores of the *same* value do not race in effect (every order leaves
that value) and are not counted; two atomics never race (their order is checked apart:
``verify/gl_compute.check_atomics``), but an atomic and a plain access do.

The executor runs one order (memory.py); a program with a race has results that order fixes
and another does not, so the verifier does not compare it (``ComputeResult.race`` names the
first race found).

Locations are words (buffers, shared memory) or texels (images), per resource; shared memory
is one fresh copy per workgroup (:meth:`RaceTracker.reset`).
"""
from __future__ import annotations

import numpy as np

NOBODY = -1


class RaceTracker:
    def __init__(self):
        self.writer: dict[str, np.ndarray] = {}      # location -> last writing invocation
        self.token: dict[str, np.ndarray] = {}       # ... its group and barrier epoch
        self.value: dict[str, np.ndarray] = {}       # ... the value it stored (plain stores)
        self.atomic: dict[str, np.ndarray] = {}      # ... 0 plain, 1 one invocation, 2 several
        self.readers: dict[str, dict[int, tuple[int, int]]] = {}   # location -> (inv, token)
        self.race: str | None = None

    def reset(self, name: str, size: int) -> None:
        self.writer[name] = np.full(size, NOBODY, np.int64)
        self.token[name] = np.zeros(size, np.int64)
        self.value[name] = np.zeros((size, 4), np.uint32)
        self.atomic[name] = np.zeros(size, np.int8)
        self.readers[name] = {}

    def _unordered(self, prior_inv: int, prior_token: int, inv: int, token: int) -> bool:
        return prior_inv not in (NOBODY, inv) and not (
            prior_token >> 32 == token >> 32 and prior_token < token)

    def _found(self, name: str, loc: int, what: str) -> None:
        if self.race is None:
            self.race = f"{name} location {loc}: {what}"

    def access(self, name: str, locs, invs, token: int, kind: str, values=None) -> None:
        """Accesses of ``locs`` by invocations ``invs`` (one each, in lane order) in the
        workgroup and barrier epoch ``token`` (:func:`sync_token`); ``kind``: "load",
        "store" (``values``: the (n, 4) words stored) or "atomic"."""
        if self.race is not None or name not in self.writer:
            return
        writer, tokens, stored, atomic = (self.writer[name], self.token[name],
                                          self.value[name], self.atomic[name])
        readers = self.readers[name]
        for j, (loc, inv) in enumerate(zip(np.asarray(locs).tolist(),
                                           np.asarray(invs).tolist())):
            if loc < 0 or loc >= len(writer):
                continue
            w, t, a = int(writer[loc]), int(tokens[loc]), int(atomic[loc])
            synced = t >> 32 == token >> 32 and t < token     # a BARRIER of the group between
            other = w not in (NOBODY, inv)
            unordered = other and not synced
            if kind == "load":
                if unordered or (a == 2 and not synced):
                    self._found(name, loc, f"invocation {inv} loads what invocation {w} "
                                "stored, with no BARRIER between")
                    return
                readers[loc] = (inv, token)
                continue
            r = readers.get(loc)
            if r is not None and r[0] != inv and not (r[1] >> 32 == token >> 32
                                                      and r[1] < token):
                self._found(name, loc, f"invocation {inv} stores where invocation {r[0]} "
                            "loaded, with no BARRIER between")
                return
            if kind == "atomic":
                if unordered and a == 0:
                    self._found(name, loc, f"invocation {inv}'s atomic and invocation {w}'s "
                                "store, with no BARRIER between")
                    return
                atomic[loc] = 2 if a and not synced and (other or a == 2) else 1
            else:
                v = np.asarray(values[j], np.uint32)
                if unordered and (a or not np.array_equal(stored[loc], v)):
                    what = "after an atomic" if a else "different values"
                    self._found(name, loc, f"invocations {w} and {inv} store {what} with no "
                                "BARRIER between")
                    return
                stored[loc] = v
                atomic[loc] = 0
            writer[loc] = inv
            tokens[loc] = token


def sync_token(group: int, epoch: int) -> int:
    """Accesses of one workgroup are ordered by its completed BARRIERs (``epoch``); accesses
    of different workgroups never are."""
    return (group << 32) | epoch
