"""Counterfactual executor runs without the Inf and NaN values a program computes.

GLSL 4.50 §4.7.1 (and Vulkan's default float controls) leave operations on an infinity or NaN
unspecified, and a division by zero makes one: where such a value reaches an output, a right
translation may give any word there.  *Where* it reaches is shown, not assumed: the executor
runs the program again with every Inf/NaN result -- and every result computed from an
Inf/NaN operand -- replaced by a finite word, once per word of :data:`REPLACEMENTS`; an
output component that changes in either run depends on one.  An Inf written and then
overwritten changes nothing.  Used by the mutation harness (``nonfinite-only``,
:func:`mutants.undetermined_lanes`) and by the direct SPIR-V check
(:func:`direct_check.nonfinite_departures`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: the finite words the counterfactual runs give in place of each Inf or NaN result: two, so
#: that an output that happens to come out the same for one (a compare, a clamp) still shows
#: its dependence through the other
REPLACEMENTS = (0x00000000, 0x3FC00000)        # 0.0, 1.5


class ResultHook:
    """An executor result hook (``xlate.exec.execute``'s ``hooks``) that changes results only:
    flow and kills run as they would."""

    instructions: list

    def before_flow(self, x, st, sel):
        pass

    def kill_decision(self, x, st, sel, kill, operand):
        return kill


class NonFiniteResults(ResultHook):
    """Executor hook: notes the lanes on which some instruction writes an Inf or NaN float, or
    computes from one (a float operand that is Inf or NaN: the verifier's ``nonfinite`` rule
    frees such a result too -- ``x / Inf`` may be any value, not only 0), and gives
    ``replacement`` (a float word) in place of each such written component."""

    def __init__(self, program, lanes: int, replacement: int):
        self.instructions = list(range(len(program.instructions)))
        self.lanes = np.zeros(lanes, bool)
        self.replacement = np.uint32(replacement)

    def __call__(self, x, st, idx, ops, bits, cmask):
        if x.inst.dst is None:
            return bits, cmask
        sel = st.all_lanes if idx is None else np.asarray(idx)
        w = np.array(np.broadcast_to(np.asarray(bits, np.uint32).reshape(
            -1, np.shape(bits)[-1] if np.ndim(bits) else 1), (len(sel), 4)))
        written = np.broadcast_to(np.array(x.inst.dst.mask, bool), w.shape)
        if cmask is not None:
            written = written & np.broadcast_to(cmask, w.shape)
        bad = self.replaced(x, ops, w) & written
        if bad.any():
            self.lanes[(st.base + sel)[bad.any(axis=1)]] = True
            w[bad] = self.replacement
            return w, cmask
        return bits, cmask

    def replaced(self, x, ops, w: np.ndarray) -> np.ndarray:
        """(k, 4): the result components ``w`` (words) of instruction ``x`` to replace."""
        from ..ir.model import DataType
        bad = np.zeros(w.shape, bool)
        if x.rt == DataType.FLOAT:
            bad |= (w & 0x7F800000) == 0x7F800000
        for i, o in enumerate(ops):
            if x.info.operand_type(i, x.t) != DataType.FLOAT:
                continue
            a = np.asarray(o)
            if a.dtype != np.float32 or a.ndim == 0:
                continue
            lanes_bad = ~np.isfinite(a.reshape(a.shape[0], -1)).all(axis=1)
            bad |= np.broadcast_to(lanes_bad, (len(w),))[:, None]
        return bad


def nonfinite_counterfactuals(program, gen, lanes: int) -> list | None:
    """The executor's runs of ``program`` on ``gen`` with every Inf/NaN result (and result of
    an Inf/NaN operand) replaced by each word of :data:`REPLACEMENTS`: one result per word;
    [] when the program computes no such value on these inputs; None for a compute program
    (no outputs by lane)."""
    from ..ir.model import Stage
    from .draw_run import run_executor
    if program.stage == Stage.COMPUTE:
        return None
    return _replaced_runs(program, lanes,
                          lambda hook: run_executor(program, gen, lanes, hooks=hook))


class UndefinedResults(NonFiniteResults):
    """Executor hook: gives ``replacement`` in place of each result component the
    specifications leave undefined (:func:`permits.rule_undefined`: an integer MOD of a negative
    dividend, a DIV by zero, a shift by 32 or more ...; XPD's w) and notes the lanes -- where
    such a result reaches an output, a right translation may give any word there as well."""

    def replaced(self, x, ops, w: np.ndarray) -> np.ndarray:
        from .permits import rule_undefined
        from .permits_site import Site
        return np.asarray(rule_undefined(Site(x, ops, np.arange(len(w)), w, w, None)), bool)


def undefined_counterfactuals(program, gen, lanes: int) -> list | None:
    """:func:`nonfinite_counterfactuals` for the results the specifications leave undefined
    (:class:`UndefinedResults`)."""
    from ..ir.model import Stage
    from .draw_run import run_executor
    if program.stage == Stage.COMPUTE:
        return None
    return _replaced_runs(program, lanes,
                          lambda hook: run_executor(program, gen, lanes, hooks=hook),
                          UndefinedResults)


def _replaced_runs(program, lanes: int, run, hook_class=NonFiniteResults) -> list:
    """``run(hook)`` with a ``hook_class`` (:class:`NonFiniteResults`) hook of each word of
    :data:`REPLACEMENTS`: the results; [] when no value was replaced."""
    runs = []
    for word in REPLACEMENTS:
        hook = hook_class(program, lanes, word)
        res = run(hook)
        if not hook.lanes.any():
            return []
        runs.append(res)
    return runs


@dataclass
class ComputeInputs:
    """A compute dispatch's executor inputs, as the verifier ran it (:mod:`compute_verify`):
    the grid, the initial buffers and images, and ``execute_compute``'s other arguments."""

    groups: tuple
    buffers: dict
    images: dict
    exec_kw: dict

    def run(self, program, hooks=None):
        from ..exec.compute import execute_compute
        return execute_compute(program, self.groups,
                               buffers={b: np.array(w) for b, w in self.buffers.items()},
                               images={u: np.array(t) for u, t in self.images.items()},
                               hooks=hooks, **self.exec_kw)


def compute_words(res) -> dict:
    """A compute result's buffers and images by the names a capture gives them
    (``gl_compute.ComputeCapture.outputs``)."""
    from ..ir.model import storage_label
    out = {storage_label(b): np.asarray(w, np.uint32) for b, w in res.buffers.items()}
    out.update({f"IMAGE[{u}]": np.asarray(t, np.uint32) for u, t in (res.images or {}).items()})
    return out


def undetermined_words(program, inputs: ComputeInputs, lanes: int) -> dict | None:
    """Resource name -> bool mask of the words (texel channels) whose final value depends on
    an Inf or NaN the compute program computes: changed by a counterfactual run (NaNs as
    one); None: the program computes none on these inputs."""
    from .compare import canonical_nans
    base = compute_words(inputs.run(program))
    runs = _replaced_runs(program, lanes, lambda hook: inputs.run(program, hooks=hook))
    if not runs:
        return None
    out = {name: np.zeros(w.shape, bool) for name, w in base.items()}
    for res in runs:
        other = compute_words(res)
        for name, w in base.items():
            a, b = canonical_nans(w), canonical_nans(other.get(name, w))
            out[name] |= (a != b) if a.shape == b.shape else True
    return out
