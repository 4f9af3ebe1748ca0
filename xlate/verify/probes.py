"""The implementation's values for the replay (:mod:`replay`): what each writing instruction
left in its destination and each condition test decided, per lane, at its last execution and
-- for instructions that run more than once -- at each pass, with the execution counts; and
the choice, on the lanes still differing, of values from compilations that ran the program as
the main compilation did (:func:`consistent_values`).  The probes themselves (instrumenting
the IR, translating, running) are :mod:`trace`'s; a native run passes its own probe function
with :func:`trace._probe_events`'s signature."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..ir.model import Program, Stage
from .compare import same_words


@dataclass
class ImplValues:
    """The implementation's value of one instruction: ``last`` (lanes, 4) words after its last
    execution, ``count`` (lanes,) executions (None: the instruction runs at most once), ``nth``
    pass number (1-based) -> (lanes, 4)."""

    last: np.ndarray
    count: np.ndarray | None = None
    nth: dict = field(default_factory=dict)


def _value_events(program: Program) -> list[tuple]:
    from .trace import _events
    return [ev for ev in _events(program) if ev[0] == "value"]


def _probe_program(program: Program) -> Program:
    """The program the probes run: fragment programs without their KILs and DEMOTEs (a
    discarded fragment writes no probe; the values its lane computed are still needed)."""
    from .trace import has_discards, without_kills
    if program.stage == Stage.FRAGMENT and has_discards(program):
        return without_kills(program)
    return program


def regions(program: Program) -> dict[int, int]:
    """Instruction -> straight-line region: the stretches between flow instructions and labels,
    whose instructions run equally often on a lane (one execution count probes a region)."""
    from ..ir.ops import OPCODES
    out = {}
    region = 0
    labelled = set(program.labels.values())
    for k, ins in enumerate(program.instructions):
        if k in labelled:
            region += 1
        out[k] = region
        if OPCODES[ins.op].category in ("flow", "kill", "geom"):
            region += 1
    return out


def _has_flow(program: Program) -> bool:
    from ..ir.ops import OPCODES
    return bool(program.labels) or any(OPCODES[i.op].category == "flow"
                                       for i in program.instructions)


def _prober(probe):
    """The probe function: ``probe`` or, by default, the IR probes of the translation."""
    if probe is not None:
        return probe
    from .trace import _probe_events
    return _probe_events


def probe_values(program: Program, gen, runner, lanes: int,
                 probe=None, runs: list | None = None,
                 log: list | None = None) -> dict[int, ImplValues]:
    """The implementation's last value of every writing instruction, and -- in programs with
    control flow -- how often each ran (one count per straight-line region): an instruction
    the implementation did not run on a lane has no value there (its probe reads zero).
    ``probe``: how events are probed (:func:`trace._probe_events`'s signature; that function,
    which instruments the IR and runs its translation, by default).  ``runs``: receives the
    capture of each compilation that probed the values (:func:`recompiled_lanes`).  ``log``:
    a list that receives, per probed value, the compilation it came from
    (:func:`consistent_values`; the default probes only)."""
    _probe_events = _prober(probe)
    events = _value_events(program)
    probed = _probe_program(program)
    origins = _origins(probe, log)
    _, imp = _probe_events(probed, gen, runner, lanes, events, runs=runs, **origins)
    region_of = regions(program)
    first_of: dict[int, int] = {}
    if _has_flow(program):
        for i, ev in enumerate(events):
            first_of.setdefault(region_of[ev[1]], i)
    counts = {}
    if first_of:
        _, counts = _probe_events(probed, gen, runner, lanes, events,
                                  sorted(first_of.values()), nth=0)
    values = {}
    for i, (_, k, _) in enumerate(events):
        if imp.get(i) is None:
            continue
        count = _count(counts, first_of, region_of[k])
        if first_of and count is None:
            # a program with flow whose count for this region is unknown (a compute probe
            # dispatch whose atomics ran otherwise is not used: compute_replay): the last
            # value cannot be placed at a pass, so the instruction stays unprobed
            continue
        values[k] = ImplValues(np.asarray(imp[i], np.uint32), count)
    _note_origins(log, origins, "value", events, None)
    return values


def _origins(probe, log) -> dict:
    """The ``origins=`` keyword for the default probe function when ``log`` is kept."""
    return {"origins": {}} if log is not None and probe is None else {}


def _note_origins(log, origins: dict, kind: str, events, nth) -> None:
    """Append (kind, event index, instruction, nth, capture) for each event probed."""
    if log is None or "origins" not in origins:
        return
    for i, cap in origins["origins"].items():
        log.append((kind, i, events[i][1], nth, cap))


def _count(counts, first_of, region):
    rep = first_of.get(region)
    c = counts.get(rep) if rep is not None else None
    return None if c is None else np.asarray(c, np.uint32).astype(np.int64)[:, 0]


def probe_conditions(program: Program, gen, runner, lanes: int,
                     values: dict[int, ImplValues], probe=None,
                     log: list | None = None) -> dict[int, ImplValues]:
    """The implementation's outcome of every condition-code test (1.0 per passing
    component), with the execution counts of :func:`probe_values`."""
    from .trace import _events
    _probe_events = _prober(probe)
    events = [ev for ev in _events(program) if ev[0] == "cond"]
    if not events:
        return {}
    probed = _probe_program(program)
    origins = _origins(probe, log)
    _, imp = _probe_events(probed, gen, runner, lanes, events, **origins)
    _note_origins(log, origins, "cond", events, None)
    region_of = regions(program)
    count_of = {region_of[k]: v.count for k, v in values.items()}
    if _has_flow(program):
        # a test alone in its region (a BRA right after a label) has no value event to lend
        # it a count: its own
        alone = {}
        for i, ev in enumerate(events):
            if count_of.get(region_of[ev[1]]) is None:
                alone.setdefault(region_of[ev[1]], i)
        if alone:
            _, counts = _probe_events(probed, gen, runner, lanes, events,
                                      sorted(alone.values()), nth=0)
            for region, i in alone.items():
                if counts.get(i) is not None:
                    count_of[region] = np.asarray(counts[i], np.uint32).astype(np.int64)[:, 0]
    out = {}
    for i, (_, k, _) in enumerate(events):
        if imp.get(i) is not None:
            out[k] = ImplValues(np.asarray(imp[i], np.uint32), count_of.get(region_of[k]))
    return out


def _probe_passes(program: Program, gen, runner, lanes: int, values: dict[int, ImplValues],
                  upto: int, probe=None, conds: dict[int, ImplValues] | None = None,
                  log: list | None = None) -> bool:
    """Fill ``nth`` for passes 1..upto of the instructions that run more than once: their
    values, and (``conds``) the outcomes of their condition-code tests -- a test inside a loop
    is judged at every pass, as a value is (a TGSI ``IF`` of a denormal in a loop, flushed by
    the implementation on its first pass: the executor must see that pass's outcome to take
    the flushed value's branch, tgsi tess_evaluation seed 168)."""
    from .trace import _events
    _probe_events = _prober(probe)
    probed = _probe_program(program)
    added = False
    for kind, table in (("value", values), ("cond", conds or {})):
        events = [ev for ev in _events(program) if ev[0] == kind]
        which = [i for i, ev in enumerate(events) if ev[1] in table
                 and table[ev[1]].count is not None]
        for q in range(1, upto + 1):
            todo = [i for i in which if q not in table[events[i][1]].nth]
            if not todo:
                continue
            origins = _origins(probe, log)
            _, imp = _probe_events(probed, gen, runner, lanes, events, todo, nth=q, **origins)
            _note_origins(log, origins, kind, events, q)
            for i in todo:
                if imp.get(i) is not None:
                    table[events[i][1]].nth[q] = np.asarray(imp[i], np.uint32)
                    added = True
    return added


#: single-probe compilations :func:`consistent_values` may spend on one program
MAX_REPROBES = 48


def _agreeing_lanes(main, cap) -> np.ndarray | None:
    """(lanes,) bool: the lanes where the probe compilation ``cap`` computed the program's own
    outputs bit for bit as the main compilation did (NaNs of any payload alike); None when its
    outputs cannot be matched (an output missing, another shape)."""
    agree = None
    for name, words in main.outputs.items():
        other = cap.outputs.get(name)
        if other is None or np.shape(other) != np.shape(words):
            return None
        same = same_words(np.asarray(words, np.uint32), np.asarray(other, np.uint32))
        same = same.reshape(same.shape[0], -1).all(axis=1)
        agree = same if agree is None else agree & same
    return agree


def consistent_values(program: Program, gen, runner, lanes: int, main, log: list,
                      values: dict[int, ImplValues], conds: dict[int, ImplValues],
                      needed: set[int], inconsistent: np.ndarray | None = None) -> bool:
    """Take each probed value, on the lanes still differing (``needed``), from a compilation
    that ran the program as the main compilation did there.

    A probe is an extra output and a move; the compilation around it is another one, and
    where the program has a freedom whose choice follows the generated code -- a lookup whose
    derivatives GLSL leaves undefined (non-uniform flow) takes its level of detail from
    whatever the quad's inactive lanes hold -- two compilations may choose differently.  The
    replay then mixes runs: a lookup's value from one compilation, a value computed from it
    (an n-th pass of a subroutine) from another that looked up something else (cg
    crt-ddt.fp: the lookup's batch of probes chose another LOD than the main compilation and
    every other batch; POW of the second call then read a value its own run never had).  So
    each value whose compilation's *own outputs* differ from the main compilation's on a needed
    lane is probed again alone (one probe: the least perturbed compilation), and its words
    are replaced on the lanes where that compilation agrees with the main one.  The values of
    the instructions whose choice follows the code by nature (the lookups and derivatives in
    :func:`trace._undefined_derivatives`) are probed again alone whatever their batch's
    outputs say: equal outputs do not make equal choices (crt-ddt.fp lane 4: the batch's
    lookup gave 0.615 where the lone probe and every later pass saw -0.165, and a clamp
    made the outputs agree).  Values no agreeing compilation gives stay as they were, and so do
    the execution counts; more than :data:`MAX_REPROBES` values to probe again: none is.  This only chooses among the
    implementation's own runs: every value is still judged by the rules, and the outputs are
    still compared with the main compilation's -- it can cost nothing a single compilation
    shows, and buy nothing none shows.  True when some value changed.  ``inconsistent``:
    (lanes,) bool, set on the needed lanes where some value stays one that no agreeing
    compilation gave (the rules that bound a freedom by the operands' values do not know the
    main compilation's operands there: permits.rule_nonfinite)."""
    if not needed or program.stage == Stage.GEOMETRY:
        return False
    from .trace import _events, _probe_events, _undefined_derivatives
    chosen_by_code = _undefined_derivatives(program)
    want = np.zeros(lanes, bool)
    want[sorted(needed)] = True
    killed = getattr(main, "killed", None)
    if killed is not None:          # a fragment the main run discarded has no outputs to match
        want &= ~np.asarray(killed, bool)[:lanes]
    agree_of: dict[int, np.ndarray | None] = {}
    todo = []
    for kind, i, k, nth, cap in log:
        if id(cap) not in agree_of:
            agree_of[id(cap)] = _agreeing_lanes(main, cap)
        agree = agree_of[id(cap)]
        if agree is None:
            continue
        bad = want & ~agree[:lanes] if k not in chosen_by_code else want
        if bad.any():
            todo.append((kind, i, k, nth, bad))
    if not todo:
        return False
    if len(todo) > MAX_REPROBES:
        if inconsistent is not None:
            for item in todo:
                inconsistent |= item[4]
        return False
    probed = _probe_program(program)
    lists = {kind: [ev for ev in _events(program) if ev[0] == kind] for kind in ("value", "cond")}
    changed = False
    for kind, i, k, nth, bad in todo:
        origins: dict = {}
        _, imp = _probe_events(probed, gen, runner, lanes, lists[kind], [i], nth=nth,
                               origins=origins, batch=1)
        agree = _agreeing_lanes(main, origins[i]) \
            if imp.get(i) is not None and i in origins else None
        take = bad & agree[:lanes] if agree is not None else np.zeros(lanes, bool)
        if inconsistent is not None:
            inconsistent |= bad & ~take
        if not take.any():
            continue
        iv = (values if kind == "value" else conds).get(k)
        if iv is None:
            continue
        target = iv.last if nth is None else iv.nth.get(nth)
        if target is None:
            continue
        target[take] = np.asarray(imp[i], np.uint32)[take]
        changed = True
    return changed
