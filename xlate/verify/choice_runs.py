"""Runs of the ORIGINAL program that take a freedom GL leaves to the implementation, made by
the executor: the mutation harness's ``edge-only`` class (:mod:`xlate.verify.mutants`).  A
mutant the verifier passes whose outputs are, lane by lane and bit for bit, those of such a
run is no wrong translation on those inputs: a right translation on an implementation that
takes the freedom gives the same words.

``edge-only``: a NEAREST lookup whose coordinate lies on a texel edge may take the texel on
either side: GL 4.5 §8.14.2 selects it by ``floor(u)`` of ``u = s * size``, and §2.3.4.1
holds that product to "about 1 part in 10^5", so a right translation may give either texel
(``permits.rule_boundary``, which the verifier applies per lane and component).  A mutant that
moves such a coordinate just across the edge (generated ARBvp+NV3 vertex 7, campaign seed 7:
``TEXC0 ..., {10.0, -1.0}, texture[7], 3D`` with -1.0 -> -1.01, REPEAT) gives the other
texel.  The runs: the lookups' coordinates moved across their edges (the moves of
``permits_texture.edge_moves``, all lookups the same way in one run).

``lod-only``: GL 4.5 §8.14.1 lets an implementation approximate rho (the scale factor whose
log2 is the level of detail) between max(|du|, |dv|) and |du| + |dv| -- a factor sqrt(n),
half a level in 2D -- and llvmpipe's log2 is approximate too: ``permits_texture.lod_reach``
(0.75 of a level in 2D).  A mutant whose lookup lands on the level a right translation may
take with a lambda that far from the executor's gives that level's texel (cg arbfp1
scalefx-hybrid-pass0, campaign seed 12: a coordinate ``.yw`` -> ``.yx`` whose lookup read the
1x1 level, which the original reads at lambda 2.06 + 0.75).  The runs: every implicit-LOD
lookup (TEX, TXB; not TXP, whose w projects, nor a depth comparison keeping its reference in
w) at its own lambda plus one of :data:`LOD_SHIFTS`, all lookups the same shift in one run.
"""
from __future__ import annotations

import itertools

import numpy as np

from ..exec.operands import saturate
from ..ir.model import Stage
from ..exec.texture_ops import _texture, reference_in_lod_place
from .nonfinite_runs import ResultHook
from .permits_site import SAMPLING_OPS
from .permits_texture import LOD_STEP, edge_moves, lod_reach, lookup_dims

F32, U32 = np.float32, np.uint32


def _written(x, res) -> np.ndarray:
    """An instruction's recomputed result as the executor writes it (``machine.run_alu``):
    saturated, a scalar replicated, as words."""
    if res.ndim == 1:
        res = res[:, None]
    if x.sat is not None:
        res = saturate(res, *x.sat)
    if res.shape[1] != 4:
        res = np.broadcast_to(res, (res.shape[0], 4))
    return np.ascontiguousarray(res).view(U32)


class _MovedLookups(ResultHook):
    """Executor hook: each sampling instruction's result recomputed at its coordinate moved
    by the ``choice``-th of :func:`edge_moves` (one ulp or the far reach, per component down,
    up or not at all)."""

    def __init__(self, program, choice: int):
        self.instructions = [i for i, ins in enumerate(program.instructions)
                             if ins.op in SAMPLING_OPS and ins.tex is not None]
        self.choice = choice

    def __call__(self, x, st, idx, ops, bits, cmask):
        c = np.asarray(ops[0])
        if c.dtype != F32:
            return bits, cmask
        c = np.array(np.atleast_2d(c), F32)
        # every lookup is moved in 3 components' pattern: a 2D one takes the first two
        # components of it (a pattern that moves only z leaves it alone)
        dims, cube = lookup_dims(x.inst.tex.target)
        moved = next(itertools.islice(edge_moves(c, 3, cube), self.choice, None))
        moved[:, dims:3] = c[:, dims:3]
        with np.errstate(all="ignore"):
            res = x.fn(x, moved, *ops[1:])
        return _written(x, res), cmask


class _ShiftedLod(ResultHook):
    """Executor hook: each TEX and TXB recomputed at its own lambda plus ``shift`` (a TEX as a
    TXB of that bias, a TXB with its bias moved by it): the level of detail an implementation
    approximating rho within GL's bounds may compute."""

    def __init__(self, program, shift: float):
        self.instructions = [i for i, ins in enumerate(program.instructions)
                             if ins.op in ("TEX", "TXB") and ins.tex is not None
                             and not reference_in_lod_place(ins.tex.target)]
        self.shift = F32(shift)

    def __call__(self, x, st, idx, ops, bits, cmask):
        from ..exec.texture import BASE_TARGET
        base = BASE_TARGET[x.inst.tex.target]
        if abs(float(self.shift)) > lod_reach(3 if base == "3D" else 1 if "1D" in base else 2) \
                + 1e-6:
            return bits, cmask          # beyond what GL lets this lookup's rho be off by
        c = np.array(np.atleast_2d(np.asarray(ops[0], F32)))
        c[:, 3] = self.shift if x.inst.op == "TEX" else c[:, 3] + self.shift
        with np.errstate(all="ignore"):
            res = _texture(x, "TXB", c)
        return _written(x, res), cmask



class _DenormalUnclamped(ResultHook):
    """Executor hook: a saturated float instruction whose unsaturated result is a denormal
    writes that result, unclamped."""

    def __init__(self, program):
        from ..ir.model import Sat
        self.instructions = [i for i, ins in enumerate(program.instructions)
                             if ins.dst is not None and ins.sat != Sat.NONE]

    def __call__(self, x, st, idx, ops, bits, cmask):
        from ..ir.model import DataType
        if x.sat is None or x.rt != DataType.FLOAT or getattr(x.inst, "mem", None) is not None:
            return bits, cmask
        with np.errstate(all="ignore"):
            raw = x.fn(x, *ops)
        if raw.ndim == 1:
            raw = raw[:, None]
        raw = np.ascontiguousarray(np.broadcast_to(raw, np.shape(bits))).view(U32)
        denormal = ((raw & 0x7F800000) == 0) & ((raw & 0x007FFFFF) != 0)
        if not denormal.any():
            return bits, cmask
        return np.where(denormal, raw, bits).astype(U32), cmask



#: the level-of-detail shifts of :func:`lod_choice_lanes`: a quarter level apart, up to the
#: 2D reach of ``permits_texture.lod_reach`` (the grid of the verifier's rule_lod is finer:
#: a shift it takes and these do not leaves the mutant counted as fooling the verifier)
LOD_SHIFTS = tuple(float(d) for d in np.arange(-lod_reach(2), lod_reach(2) + LOD_STEP, 0.25)
                   if abs(d) > 1e-9)


#: the number of coordinate moves :func:`edge_moves` makes for three components
MOVES = 2 * (3 ** 3 - 1)


def reproduced_lanes(program, gen, lanes: int, reflection: dict, cap, hooks, done=None):
    """(lanes,) bool: the lanes on which the capture ``cap`` is, bit for bit, the original
    program run by the executor on the verifier's main-run inputs ``gen`` with one of
    ``hooks`` (an iterable; one run each).  ``done(matched)``: stop early once it returns
    True.  None: a stage whose captures are not per lane (compute, tessellation)."""
    from .analysis import analyse
    from .compare import INEXACT
    from .draw_run import run_executor
    from .output_compare import compare_all
    if program.stage not in (Stage.VERTEX, Stage.FRAGMENT, Stage.GEOMETRY):
        return None
    facts = analyse(program, set(INEXACT))
    matched = np.zeros(lanes, bool)
    for hook in hooks:
        res = run_executor(program, gen, lanes, hooks=hook)
        diffs, _ = compare_all(program, facts, reflection, res, cap, [], strict=True)
        apart = np.zeros(lanes, bool)
        for d in diffs:
            if d.lane is not None and 0 <= d.lane < lanes:
                apart[d.lane] = True
        matched |= ~apart
        if done is not None and done(matched):
            break
    return matched


def edge_choice_lanes(program, gen, lanes: int, reflection: dict, cap, done=None):
    """:func:`reproduced_lanes` by the runs with every lookup's coordinate moved across its
    texel edges one of the ways :func:`edge_moves` moves it (one way per run); None also
    when the program has no lookup."""
    if not _MovedLookups(program, 0).instructions:
        return None
    return reproduced_lanes(program, gen, lanes, reflection, cap,
                            (_MovedLookups(program, c) for c in range(MOVES)), done)



def lod_choice_lanes(program, gen, lanes: int, reflection: dict, cap, done=None):
    """:func:`reproduced_lanes` by the runs with every TEX/TXB at its lambda plus one of
    :data:`LOD_SHIFTS`; None also when the program has no such lookup, or is no fragment
    program (elsewhere implicit derivatives are zero, GLSL: no level to approximate)."""
    if program.stage != Stage.FRAGMENT or not _ShiftedLod(program, 0.0).instructions:
        return None
    return reproduced_lanes(program, gen, lanes, reflection, cap,
                            (_ShiftedLod(program, d) for d in LOD_SHIFTS), done)


def unclamped_lanes(program, gen, lanes: int, reflection: dict, cap):
    """:func:`reproduced_lanes` by the run whose saturated denormals are written unclamped;
    None also when no instruction saturates."""
    hook = _DenormalUnclamped(program)
    if not hook.instructions:
        return None
    return reproduced_lanes(program, gen, lanes, reflection, cap, [hook])


def unclamped_words(program, inputs) -> dict | None:
    """A compute program's buffer words and texels (by capture name) after the run whose
    saturated denormals are written unclamped; None when no instruction saturates."""
    from .nonfinite_runs import compute_words
    hook = _DenormalUnclamped(program)
    if not hook.instructions:
        return None
    return compute_words(inputs.run(program, hooks=hook))
