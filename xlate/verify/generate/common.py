"""Pieces every dialect generator shares: swizzles, write masks, float constants, and the
statement/limit bookkeeping of :class:`Gen`.

Why a program stays *verifiable* and not only valid (the rules every generator follows; the
dialect modules say how):

* nothing is read before it is defined: registers the dialect leaves undefined at program start
  (ARB temporaries, address registers and results, TGSI temporaries) are written whole first,
  and every declared result is written whole before any masked write could leave a component
  undefined;
* every loop is counted by a register no random instruction writes, and every backward branch is
  such a loop's back edge, so a program terminates for every input on both sides long before a
  dialect's executed-instruction limit (VP2's 65536) -- the executor and the translation would
  otherwise have to agree on what an abnormal termination leaves behind;
* subroutines only call later subroutines (no recursion), and the call chain stays within the
  dialect's call-stack depth (4);
* static limits (instructions, temporaries, parameters, nesting, texture indirections, one
  parameter/attribute per instruction) are kept with a margin.

Undefined *results* (a relative index out of range, integer division by zero, NaN operands) are
left to chance on purpose: ``xlate verify`` explains them with spec-cited verdicts.
"""
from __future__ import annotations

import random

XYZW = "xyzw"


def swz(rng: random.Random, full: bool = False) -> str:
    """A source swizzle: none, a scalar selector (``.y``), or four components."""
    r = rng.random()
    if r < 0.45:
        return ""
    if r < 0.7 and not full:
        return "." + rng.choice(XYZW)
    return "." + "".join(rng.choice(XYZW) for _ in range(4))


def mask(rng: random.Random) -> str:
    """A write mask: none, or an ordered, non-empty subset of xyzw."""
    if rng.random() < 0.45:
        return ""
    comps = [c for c in XYZW if rng.random() < 0.5] or [rng.choice(XYZW)]
    return "." + "".join(comps)


def fconst(rng: random.Random) -> str:
    """A float literal: small exact values, a few magnitudes, sometimes an arbitrary one."""
    v = rng.choice([0.0, 1.0, -1.0, 0.5, 2.0, -2.5, 3.0, 0.25, 10.0, 1e-3, 100.0,
                    round(rng.uniform(-4, 4), 3)])
    return repr(float(v))


def scalar_swz(rng: random.Random) -> str:
    return "." + rng.choice(XYZW)


class Gen:
    """Statement bookkeeping shared by the dialect generators.

    ``budget``: instructions the random part may still emit (the scaffolding -- initialisation,
    loop counters, final writes -- is counted by the dialect against its own limit);
    ``depth``: indentation (= static nesting of blocks); ``avoid``: feature names to leave out.
    """

    def __init__(self, rng: random.Random, size: int, avoid=frozenset()):
        self.rng = rng
        self.size = size
        self.avoid = set(avoid)
        self.lines: list[str] = []
        self.depth = 0
        self.count = 0                # instructions emitted (labels and declarations excluded)

    def has(self, feature: str) -> bool:
        return feature not in self.avoid

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def emit(self, text: str, instruction: bool = True) -> None:
        self.lines.append("  " * self.depth + text)
        if instruction:
            self.count += 1

    def label(self, name: str) -> None:
        self.lines.append(f"{name}:")
