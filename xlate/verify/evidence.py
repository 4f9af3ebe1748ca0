"""What ``xlate verify --report`` draws, kept from a verification run (:mod:`core`).

:func:`core.verify_source` with ``keep_evidence=True`` attaches an :class:`Evidence` to the
report (``ProgramReport.evidence``; not part of the JSON): the translation that ran, every
difference the strict comparison found in the main run, what the replay (:mod:`replay`) left
unexplained, and -- for fragment programs, whose lanes are pixels -- every output's words on
both sides and which fragments each side killed.  The HTML report (:mod:`report`) turns it into
images; nothing here decides a verdict.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from .output_compare import (binding_elements, captured_names, executor_output, output_elements,
                             output_spec)


@dataclass
class OutputWords:
    """One output of the translation, as compared."""

    binding: str                         # result.color, result.position ...
    name: str                            # the GLSL variable
    components: tuple[int, ...]          # the components that travel (gl_FragDepth: z only)
    integer: tuple[bool, bool, bool, bool]
    executor: np.ndarray | None = None   # (lanes, 4) uint32; fragment programs only
    implementation: np.ndarray | None = None


@dataclass
class Evidence:
    stage: str                           # vertex | fragment | geometry
    lanes: int
    glsl: str
    outputs: list[OutputWords] = field(default_factory=list)
    #: fragment programs: (executor, implementation) kill masks, (lanes,) bool each
    killed: tuple[np.ndarray, np.ndarray] | None = None
    #: every difference of the main run's strict comparison (compare.Difference), none left out
    differences: list = field(default_factory=list)
    #: the differences the replay could not explain; None when no replay ran (no difference,
    #: localization off, or the probed translation failed)
    unexplained: list | None = None

    def unexplained_keys(self, status: str) -> set[tuple]:
        """(output, lane, component) of the differences nothing explains: the replay's, or --
        where none ran -- every difference of a program that did not pass."""
        diffs = self.unexplained if self.unexplained is not None else \
            ([] if status == "pass" else self.differences)
        return {(d.output, d.lane, d.component) for d in diffs}


def collect(program, facts, reflection: dict, run, glsl: str, lanes: int) -> Evidence:
    """The evidence of one main run (``draw_run.DrawRun``) of ``program`` translated to
    ``glsl``."""
    from ..ir.model import Stage
    stage = program.stage
    ev = Evidence(stage.value, lanes, glsl, differences=list(run.diffs))
    elems_of = output_elements(program)
    captured = captured_names(run.cap) if stage == Stage.GEOMETRY else set(run.cap.outputs)
    for o in reflection["outputs"]:
        elems = binding_elements(elems_of, o["binding"])
        if elems is None or o["name"] not in captured:
            continue
        spec = output_spec(program, facts, o, elems)
        words = OutputWords(o["binding"], o["name"], tuple(spec.components), tuple(spec.integer))
        if stage == Stage.FRAGMENT:
            exe, _ = executor_output(program, facts, run.res.outputs, o["binding"], elems)
            words.executor = np.ascontiguousarray(exe, np.uint32)
            words.implementation = np.ascontiguousarray(run.cap.outputs[o["name"]], np.uint32)
        ev.outputs.append(words)
    if stage == Stage.FRAGMENT:
        ev.killed = (np.asarray(run.res.killed, bool).copy(), np.asarray(run.cap.killed, bool).copy())
    return ev
