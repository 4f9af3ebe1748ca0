"""Small records and tree queries the emitter's modules share."""
from __future__ import annotations


from dataclasses import dataclass, field

from ...ir.model import (MAX_CALL_DEPTH, DataType, Stage)
from ...passes.structurize import Goto, Labeled
from ...passes.structurize import If, Loop, Structured, Switch, calls_in




@dataclass
class GlslOutput:
    source: str
    reflection: dict
    stage: Stage
    #: source line each GLSL line came from: ``line_map[i]`` for line ``i + 1`` of ``source``
    #: (0: no instruction -- declarations, helpers, ``#line`` directives)
    line_map: list[int] = field(default_factory=list)


@dataclass
class _Tex:
    unit: int
    target: str
    dtype: DataType
    name: str = ""


def called_copies(st: Structured) -> set[tuple[str, int]]:
    """(subroutine, call depth) pairs some call reaches when every subroutine has one copy per
    depth: main calls the depth-1 copies, the copy at depth d calls those at d + 1, and a CAL in
    a copy at MAX_CALL_DEPTH has no effect (GP4 issue 38).  Only these copies are emitted."""
    seen: set[tuple[str, int]] = set()
    todo = [(call.target, 1) for call in calls_in(st.main.body)]
    while todo:
        key = todo.pop()
        if key in seen:
            continue
        seen.add(key)
        name, depth = key
        if depth < MAX_CALL_DEPTH:
            todo += [(call.target, depth + 1) for call in calls_in(st.functions[name].body)]
    return seen


def _escaping(node: Labeled) -> set[int]:
    """Ids of the constructs outside ``node`` that Gotos inside it leave to."""
    inner: set[int] = set()
    targets: set[int] = set()

    def walk(nodes):
        for n in nodes:
            if isinstance(n, Labeled):
                inner.add(n.id)
                walk(n.body)
            elif isinstance(n, Goto):
                targets.add(n.target)
            elif isinstance(n, If):
                walk(n.then)
                walk(n.orelse)
            elif isinstance(n, Loop):
                walk(n.body)
            elif isinstance(n, Switch):
                for case in n.cases:
                    walk(case.body)
    inner.add(node.id)
    walk(node.body)
    return targets - inner


