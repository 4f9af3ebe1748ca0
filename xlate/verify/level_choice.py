"""The level-of-detail counterfactual: the ``lod`` verdict of lookups whose derivatives GLSL
leaves undefined, shown by a run with the level choice removed.

GLSL 4.50 §8.9 (and §6.4 after a non-uniform ``discard``): implicit derivatives inside
non-uniform control flow are undefined, so such a lookup may take any level of its texture
(``permits.rule_undefined_derivatives``).  The implementation's choice there follows the code
it generated (the quad's inactive lanes hold whatever they hold), so it changes with every
compilation -- including the probe compilations the replay reads its values from.  A program
with many such lookups (cg super-xbr, 17 lookups inside one ``IF``) then has its lookups'
values probed from compilations that chose other levels than the one that computed a value
from them, and the replay cannot reproduce it: an unexplained divergence at a ``DP3`` of a
lookup, though every instruction is right.

The counterfactual removes the cause, not the lanes: the same program, the same translation,
the same inputs, with each texture that *only* such lookups read reduced to its base level
and one filter for magnification and minification -- a lookup of it then gives the same texel
whatever level of detail the implementation computes (GL 4.5 §8.14: with one level and
equal filters, lambda selects nothing).  The executor and the implementation both run that,
and the whole verification (rules, replay) judges it.  If it passes, every difference of the
main run is shown to come from the level choice: ``lod (shown: ...)``.  A texture that a query,
a fetch or an explicit-level lookup reads keeps its levels, and the counterfactual is not
tried when no texture qualifies.

A texture read by such lookups and also by implicit-level lookups where derivatives are
defined (:func:`shared_level_units`: corpus TGSI webgl-water-40, cg fp40 nedi-pass0 noopt --
one texture read in uniform flow and inside an IF) joins only when the main run's replay
departed at none of those defined lookups (:func:`defined_lookup_departures`): a level chosen
wrongly there (a wrong bias, wrongly scaled coordinates' derivatives) departs at the lookup on
every lane that reaches it, held to ``permits_texture.lod_reach``, and keeps the texture out --
in the one-level run no bias would change anything (test_verify_level_choice: a TXB with 2.0
more bias stays a mismatch, and passes as ``lod`` without the condition).
"""
from __future__ import annotations

import dataclasses

from ..ir.model import Program, Stage


def _unit_reads(program: Program) -> tuple[dict[int, list[int]], set[int]]:
    """(texture unit -> the instructions that read it, the instructions whose derivatives are
    undefined: :func:`trace._undefined_derivatives`); nothing outside a fragment program."""
    from .trace import _undefined_derivatives
    if program.stage != Stage.FRAGMENT:
        return {}, set()
    reads: dict[int, list[int]] = {}
    for k, ins in enumerate(program.instructions):
        if ins.tex is not None:
            reads.setdefault(ins.tex.unit, []).append(k)
    return reads, _undefined_derivatives(program)


def free_level_units(program: Program) -> set[int]:
    """The texture units every instruction of which is a lookup with undefined derivatives
    (:func:`trace._undefined_derivatives`): their level is the implementation's choice at
    every read."""
    reads, chosen = _unit_reads(program)
    return {u for u, ks in reads.items() if all(k in chosen for k in ks)}


#: lookups whose level the implementation computes from the derivatives alone (a bias adds to
#: it): a texture that only these read, where derivatives are defined, may join the
#: counterfactual when the main run found no departure at them (:func:`shared_level_units`)
IMPLICIT_LEVEL_LOOKUPS = frozenset({"TEX", "TXB", "TXP", "TEX2", "TXB2"})


def shared_level_units(program: Program) -> set[int]:
    """The texture units read by lookups with undefined derivatives *and* by lookups where
    derivatives are defined, every read an implicit-level lookup (:data:`IMPLICIT_LEVEL_LOOKUPS`:
    no fetch, query or explicit level, whose results a one-level texture changes apart from
    the level choice).  Their undefined lookups have the same freedom as those of
    :func:`free_level_units`; pinning them to one level also stops checking the levels the
    defined lookups choose, so :func:`defined_lookup_departures` must show none departed."""
    reads, chosen = _unit_reads(program)
    return {u for u, ks in reads.items()
            if any(k in chosen for k in ks) and not all(k in chosen for k in ks)
            and all(program.instructions[k].op in IMPLICIT_LEVEL_LOOKUPS for k in ks)}


def defined_lookup_departures(program: Program, departures, units: set[int]) -> list:
    """The replay's unexplained departures at a lookup of ``units`` whose derivatives are
    defined: a level chosen wrongly there (a wrong bias, a wrong scale of the derivatives)
    departs at the lookup itself on every lane that reaches it."""
    from .trace import _undefined_derivatives
    chosen = _undefined_derivatives(program)
    out = []
    for d in departures:
        ins = program.instructions[d.index]
        if ins.tex is not None and ins.tex.unit in units and d.index not in chosen:
            out.append(d)
    return out


def _within_level(filt: str) -> str:
    """The filter within one level of a minification filter (LINEAR_MIPMAP_NEAREST: LINEAR),
    as the executor reads it (``texture_objects.MIN_FILTERS``: linear within a level?)."""
    from ..exec.texture_objects import MIN_FILTERS
    return "LINEAR" if MIN_FILTERS[str(filt).upper()][0] else "NEAREST"


def one_level(texture):
    """``texture`` with only its base level, magnified and minified by one filter: a lookup of
    it gives the same value at every level of detail."""
    mag = texture.mag_filter or _within_level(texture.filter)
    base = texture.levels[texture.base_level]
    return dataclasses.replace(texture, levels=[base], base_level=0, filter=mag,
                               mag_filter=mag)


def pinned_inputs(program: Program, gen, also: set[int] = frozenset()):
    """(the generated inputs with every texture of :func:`free_level_units` and of ``also``
    at one level, the units changed); None when no texture qualifies or none has more than
    one level or two filters."""
    textures = dict(gen.textures or {})
    changed = []
    for unit in sorted(free_level_units(program) | set(also)):
        t = textures.get(unit)
        if t is None:
            continue
        pinned = one_level(t)
        if len(t.levels) > 1 or pinned.filter != t.filter or pinned.mag_filter != t.mag_filter:
            textures[unit] = pinned
            changed.append(unit)
    if not changed:
        return None
    return dataclasses.replace(gen, textures=textures), changed
