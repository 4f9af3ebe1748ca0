"""Random valid programs of every dialect xlate accepts, for differential testing
(executor vs the translation on a real implementation: ``xlate verify``).

One module per dialect family; :data:`DIALECTS` is the index:

=============  ==========================================  =====================================
dialect        header / options                            module
=============  ==========================================  =====================================
``nv4``        ``!!NVvp4.0`` ``!!NVfp4.0``                 :mod:`.nv4` (:func:`random_program`)
``vp1.0``      ``!!VP1.0``                                 :mod:`.vp`
``vp1.1``      ``!!VP1.1`` (+ ``NV_position_invariant``)   :mod:`.vp`
``vsp1.0``     ``!!VSP1.0`` (vertex state program)         :mod:`.vp`
``vp2.0``      ``!!VP2.0`` (+ ``NV_position_invariant``)   :mod:`.vp`
``arbvp``      ``!!ARBvp1.0``                              :mod:`.arbvp`
``arbvp-nv2``  ``!!ARBvp1.0`` + ``NV_vertex_program2``     :mod:`.arbvp`
``arbvp-nv3``  ``!!ARBvp1.0`` + ``NV_vertex_program3``     :mod:`.arbvp`
``arbfp``      ``!!ARBfp1.0``                              :mod:`.arbfp`
``arbfp-nv``   ``!!ARBfp1.0`` + ``NV_fragment_program``    :mod:`.arbfp`
``arbfp-nv2``  ``!!ARBfp1.0`` + ``NV_fragment_program2``   :mod:`.arbfp`
``fp1.0``      ``!!FP1.0``                                 :mod:`.fp1`
``tgsi``       TGSI text ``VERT`` ... ``COMP``             :mod:`.tgsi`, :mod:`.tgsi_compute`
=============  ==========================================  =====================================

:func:`generate` writes one program from ``(dialect, seed, stage)`` -- the same arguments always
give the same text -- and checks that it parses (a program that does not is a generator or
frontend bug and raises :class:`GeneratorError` with the diagnostics; nothing is retried, so a
test over many seeds sees every such case).  What keeps the programs *verifiable* (defined
values, termination, limits) is described in :mod:`.common`; each module's docstring lists
the features it exercises and the spec rules it keeps.

``avoid``: feature names to leave out, so that property tests can exclude constructs with a
known, separately tracked disagreement.  Common names: ``transcendental``, ``relative``,
``cc``, ``flow`` (branches, loops, subroutines), ``kill``, ``tex``, ``derivative``, ``int``,
``precision`` (H/X suffixes, fp16 registers); each module lists its own.

The NV_gpu_program4 API of the former ``generate.py`` is kept: :func:`random_program` (retries
with another draw when a program does not parse) and :func:`programs` (hypothesis strategy).
"""
from __future__ import annotations

import random
from dataclasses import dataclass

from . import arbfp, arbvp, fp1, nv4, tgsi, tgsi_compute, vp


@dataclass(frozen=True)
class Dialect:
    name: str
    stages: tuple[str, ...]      # stages the generator can write (the first is the default)
    ext: str                     # file extension tools/gen_programs.py uses
    what: str                    # one line for --help


DIALECTS: dict[str, Dialect] = {d.name: d for d in (
    Dialect("nv4", ("vertex", "fragment"), "", "NV_gpu_program4 !!NVvp4.0 / !!NVfp4.0"),
    Dialect("vp1.0", ("vertex",), ".vp", "!!VP1.0"),
    Dialect("vp1.1", ("vertex",), ".vp", "!!VP1.1"),
    Dialect("vsp1.0", ("vertex",), ".vp", "!!VSP1.0 (vertex state program)"),
    Dialect("vp2.0", ("vertex",), ".vp", "!!VP2.0"),
    Dialect("arbvp", ("vertex",), ".vp", "!!ARBvp1.0"),
    Dialect("arbvp-nv2", ("vertex",), ".vp", "!!ARBvp1.0 + OPTION NV_vertex_program2"),
    Dialect("arbvp-nv3", ("vertex",), ".vp", "!!ARBvp1.0 + OPTION NV_vertex_program3"),
    Dialect("arbfp", ("fragment",), ".fp", "!!ARBfp1.0"),
    Dialect("arbfp-nv", ("fragment",), ".fp", "!!ARBfp1.0 + OPTION NV_fragment_program"),
    Dialect("arbfp-nv2", ("fragment",), ".fp", "!!ARBfp1.0 + OPTION NV_fragment_program2"),
    Dialect("fp1.0", ("fragment",), ".fp", "!!FP1.0"),
    Dialect("tgsi", ("vertex", "fragment", "geometry", "tess_evaluation", "tess_control",
                     "compute"),
            ".tgsi", "TGSI text VERT/FRAG/GEOM/TESS_EVAL/TESS_CTRL/COMP"),
)}


class GeneratorError(RuntimeError):
    """A generated program does not parse: a generator (or frontend) bug."""


def _text(dialect: str, rng: random.Random, stage: str, size: int, avoid) -> str:
    if dialect == "nv4":
        return nv4.generate(rng, stage, size, avoid)
    if dialect in vp.DIALECTS:
        return vp.generate(rng, dialect, size, avoid)
    if dialect in arbvp.DIALECTS:
        return arbvp.generate(rng, dialect, size, avoid)
    if dialect in arbfp.DIALECTS:
        return arbfp.generate(rng, dialect, size, avoid)
    if dialect == "fp1.0":
        return fp1.generate(rng, size, avoid)
    if dialect == "tgsi" and stage == "compute":
        return tgsi_compute.generate(rng, size, avoid)
    if dialect == "tgsi":
        return tgsi.generate(rng, stage, size, avoid)
    raise ValueError(f"unknown dialect {dialect!r} (known: {', '.join(DIALECTS)})")


def generate(dialect: str, seed: int, stage: str | None = None, size: int = 12,
             avoid=frozenset(), check: bool = True) -> str:
    """One program of ``dialect`` (a key of :data:`DIALECTS`), reproducible from ``seed``.

    ``stage``: for ``nv4`` and ``tgsi`` (default: the dialect's first stage).  ``check``:
    parse the text and raise :class:`GeneratorError` when it does not."""
    d = DIALECTS.get(dialect)
    if d is None:
        raise ValueError(f"unknown dialect {dialect!r} (known: {', '.join(DIALECTS)})")
    stage = stage or d.stages[0]
    if stage not in d.stages:
        raise ValueError(f"dialect {dialect} has no {stage} programs (stages: {', '.join(d.stages)})")
    if dialect == "nv4":
        return random_program(seed, stage, size, avoid)
    text = _text(dialect, random.Random(f"{dialect}:{stage}:{seed}"), stage, size, avoid)
    if check:
        from ...diagnostics import XlateError
        from ...frontends import parse_program
        try:
            parse_program(text, f"random-{dialect}-{seed}")
        except XlateError as e:
            raise GeneratorError(f"{dialect} seed {seed} ({stage}) does not parse:\n"
                                 + "\n".join(str(x) for x in e.diagnostics) + "\n" + text) from e
    return text


def file_name(dialect: str, seed: int, stage: str) -> str:
    """``<dialect>-<stage>-<seed><ext>`` (NV4: ``<stage>-<seed>.vp``/``.fp`` as before)."""
    if dialect == "nv4":
        return f"{stage}-{seed}{'.vp' if stage == 'vertex' else '.fp'}"
    d = DIALECTS[dialect]
    if len(d.stages) > 1:
        return f"{dialect}-{stage}-{seed}{d.ext}"
    return f"{dialect}-{seed}{d.ext}"


# ---- NV_gpu_program4: the original API ------------------------------------------------------------

def random_program(seed: int, stage: str = "vertex", size: int = 12,
                   avoid: set[str] | frozenset = frozenset(), tries: int = 20) -> str:
    """A valid random NV_gpu_program4 program (reproducible from ``seed``)."""
    from ...diagnostics import XlateError
    from ...frontends import parse_program
    last = None
    for attempt in range(tries):
        rng = random.Random(f"{seed}:{stage}:{attempt}")
        text = nv4.generate(rng, stage, size, set(avoid))
        try:
            parse_program(text, f"random-{seed}")
            return text
        except XlateError as e:
            last = e
    raise RuntimeError(f"no valid program after {tries} attempts (seed {seed}): {last}")


def programs(stage: str | None = None, size: int = 12, avoid=frozenset(), dialect: str = "nv4"):
    """A hypothesis strategy of (stage, program text)."""
    from hypothesis import strategies as st
    stages = DIALECTS[dialect].stages
    st_stage = st.sampled_from(list(stages)) if stage is None else st.just(stage)
    return st.tuples(st_stage, st.integers(0, 2 ** 31 - 1)).map(
        lambda t: (t[0], generate(dialect, t[1], t[0], size, avoid)))
