"""The cyclic garbage collector paused while xlate builds a large object graph.

Parsing, GLSL emission and the executor's compilation allocate many objects and few reference
cycles; each collector pass walks every live object, so with the collector on their cost grew
faster than the program (measured: executor set-up of a 12,800-instruction program 1.1 s with,
0.25 s without; parsing 2x the statements took 4x the time).  Memory without cycles is still
freed at once by reference counting; the few cycles made meanwhile are collected once the
collector is back on.  Nested uses are fine (only the outermost one re-enables it).
"""
from __future__ import annotations

import gc
from contextlib import contextmanager


@contextmanager
def paused():
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
