"""Inline the subroutines called from one place only (per-function structured form).

Why: glslang's call-graph checks (``checkCallGraphCycles`` and ``checkCallGraphBodies`` in its
linkValidate.cpp) compare every call edge with every other, so the time glslang takes grows
with the square of the number of GLSL functions, whatever each does: 2,400 subroutines called
once each took 20x the time of 300 (tools/bench_scaling.py, nv4-calls).  Unoptimized Cg output
makes one subroutine per source function, most of them called once.  A subroutine called from
exactly one place computes the same spliced in there -- when nothing in it depends on being a
call:

* it leaves only by running off its end: no RET but trailing ones at its top level (a RET
  inside IF/REP blocks leaves them and the subroutine, GP4 2.X.8.Z; spliced in, it would leave
  the caller), no BRK/CONT outside its own REP/LOOP (or, for BRK, SWITCH) blocks;
* it is not the main program called as a subroutine (a CAL to the entry label);
* the nesting it adds to the call site stays within MAX_STRUCTURE_DEPTH.

A conditional CAL becomes an If on the same condition test (a CAL on TR is always taken).
Only the plain per-function form is inlined (every call made: no recursion, call chains within
MAX_CALL_DEPTH): the per-depth copies of a recursive program (or of a chain past the limit) and
the general path's forms are left as they are.  Calls inside an inlined body stay calls, and
stay as deep: the chains of the plain form are within the limit, so no call in them depends on
its depth.
"""
from __future__ import annotations

from .structurize import MAX_STRUCTURE_DEPTH, If, Jump, Loop, Op, Structured, Switch


def inline_single_calls(st: Structured) -> list[str]:
    """Splice every subroutine of ``st`` (mode "functions", from structurize: ``st.call_sites``
    counts the calls) that one call site calls into that site, callees first; drop them from
    ``st.functions``/``st.order``.  Returns their names, callees first."""
    sites = st.call_sites
    candidates: dict[str, tuple[list, int]] = {}     # name -> (body to splice, its nesting)
    inlined: set[str] = set()
    for name in st.order:                             # callees before their callers
        fn = st.functions[name]
        if fn.body is st.main.body:
            # the main program called as a subroutine (only by recursion, which takes the
            # per-depth copies instead): its body is main's, expanded below
            continue
        if candidates:
            fn.body = _expand(fn.body, candidates, inlined)
        if sites.get(name) == 1:
            splice = _splice_body(fn.body)
            if splice is not None:
                candidates[name] = splice
    if candidates:
        st.main.body = _expand(st.main.body, candidates, inlined)
    if not inlined:
        return []
    names = [name for name in st.order if name in inlined]
    st.order = [name for name in st.order if name not in inlined]
    st.functions = {name: fn for name, fn in st.functions.items() if name not in inlined}
    return names


def _splice_body(body: list) -> tuple[list, int] | None:
    """``body`` without its trailing RETs, and how deeply blocks nest in it, when nothing else
    in it leaves it; else None."""
    end = len(body)
    while end and type(body[end - 1]) is Jump and body[end - 1].kind == "return":
        end -= 1                  # taken or not, the subroutine ends there
    body = body[:end]
    deepest = 0
    stack = [(body, 0, 0, 0)]     # (nodes, nesting, enclosing loops, enclosing switches)
    while stack:
        nodes, depth, loops, switches = stack.pop()
        deepest = max(deepest, depth)
        for node in nodes:
            t = type(node)
            if t is Op:
                continue
            if t is Jump:
                if node.kind == "return" or (node.kind == "break" and not loops + switches) \
                        or (node.kind == "continue" and not loops):
                    return None
            elif t is If:
                stack += [(node.then, depth + 1, loops, switches),
                          (node.orelse, depth + 1, loops, switches)]
            elif t is Loop:
                stack.append((node.body, depth + 1, loops + 1, switches))
            elif t is Switch:
                stack += [(case.body, depth + 1, loops, switches + 1) for case in node.cases]
            else:
                return None       # no other node in the per-function form; keep it a call
    return body, deepest


def _expand(body: list, candidates: dict, inlined: set, depth: int = 0) -> list:
    """``body`` with each call of a candidate replaced by the candidate's body (inside an If
    for a conditional call) where the nesting allows; the children are expanded in place.
    A body with nothing to splice is returned as it is."""
    out = None
    for at, node in enumerate(body):
        t = type(node)
        if t is Jump:
            if node.kind == "call" and node.target in candidates:
                inner, inner_depth = candidates[node.target]
                always = node.cond is None or node.cond.rule == "TR"   # CAL s (TR): taken
                if depth + (0 if always else 1) + inner_depth <= MAX_STRUCTURE_DEPTH:
                    inlined.add(node.target)
                    if out is None:
                        out = body[:at]
                    if always:
                        out += inner
                    else:
                        out.append(If(node.cond, inner, [], node.ins))
                    continue
        elif t is If:
            node.then = _expand(node.then, candidates, inlined, depth + 1)
            node.orelse = _expand(node.orelse, candidates, inlined, depth + 1)
        elif t is Loop:
            node.body = _expand(node.body, candidates, inlined, depth + 1)
        elif t is Switch:
            for case in node.cases:
                case.body = _expand(case.body, candidates, inlined, depth + 1)
        if out is not None:
            out.append(node)
    return body if out is None else out
