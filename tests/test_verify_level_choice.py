"""The level-of-detail counterfactual (xlate/verify/level_choice.py, core._level_choice_shown):
lookups whose derivatives GLSL leaves undefined may take any level, and the implementation's
choice changes with every compilation, probes included; the verdict ``lod`` is shown by the
same program and inputs with those textures at one level and one filter."""
from __future__ import annotations

import numpy as np
import pytest

from xlate import api
from xlate.exec import Texture, execute
from xlate.verify.level_choice import (defined_lookup_departures, free_level_units, one_level,
                                       pinned_inputs, shared_level_units)

#: unit 0 read only inside an IF (undefined derivatives), unit 1 only outside, unit 2 both
IF_AND_OUTSIDE = """!!NVfp4.0
TEMP R0, R1, HC;
SGT.F R0.y, fragment.texcoord[0].x, {0}.x;
TRUNC.U.CC HC.x, R0.y;
IF NE.x;
TEX.F R0, fragment.texcoord[0], texture[0], 2D;
TEX.F R0, R0, texture[2], 2D;
ENDIF;
TEX.F R1, fragment.texcoord[0], texture[1], 2D;
TEX.F R1, R1, texture[2], 2D;
ADD.F result.color, R0, R1;
END
"""


def _mipmapped(levels: int = 4, **kw) -> Texture:
    rng = np.random.default_rng(5)
    lv = [rng.uniform(-2, 2, (8 >> i, 8 >> i, 4)).astype(np.float32) for i in range(levels)]
    return Texture(levels=lv, target="2D", **kw)


def test_only_textures_every_read_of_which_has_undefined_derivatives_qualify():
    prog = api.parse(IF_AND_OUTSIDE, filename="t.fp")
    assert free_level_units(prog) == {0}


def test_one_level_keeps_the_base_level_and_one_filter():
    t = _mipmapped(filter="LINEAR_MIPMAP_NEAREST", mag_filter="NEAREST", base_level=1)
    p = one_level(t)
    assert len(p.levels) == 1 and p.levels[0] is t.levels[1] and p.base_level == 0
    assert (p.filter, p.mag_filter) == ("NEAREST", "NEAREST")
    # no mag filter given: the minification filter's within-level part for both
    q = one_level(_mipmapped(filter="LINEAR_MIPMAP_LINEAR"))
    assert (q.filter, q.mag_filter) == ("LINEAR", "LINEAR")


@pytest.mark.parametrize("filt, mag", [("LINEAR_MIPMAP_NEAREST", "NEAREST"),
                                       ("NEAREST_MIPMAP_LINEAR", "LINEAR"),
                                       ("LINEAR_MIPMAP_LINEAR", None)])
def test_a_one_level_texture_gives_the_same_texel_at_every_level_of_detail(filt, mag):
    """What the counterfactual rests on (GL 4.5 §8.14): with one level and equal filters,
    lambda selects nothing -- the executor's TXL at LOD -2 .. 5 gives the same words; the
    mipmapped original does not."""
    prog = api.parse("!!NVfp4.0\nTXL.F result.color, fragment.texcoord[0], texture[0], 2D;\n"
                     "END\n", filename="t.fp")
    rng = np.random.default_rng(9)
    lanes = 64
    coords = rng.uniform(-1.5, 1.5, (lanes, 4)).astype(np.float32)

    def at(tex, lod):
        c = coords.copy()
        c[:, 3] = lod
        res = execute(prog, inputs={"fragment.texcoord[0]": c.view(np.uint32)}, lanes=lanes,
                      textures={0: tex})
        return np.asarray(next(iter(res.outputs.values())), np.uint32)

    t = _mipmapped(filter=filt, mag_filter=mag)
    pinned = one_level(t)
    first = at(pinned, -2.0)
    for lod in (0.0, 0.75, 1.5, 3.0, 5.0):
        assert np.array_equal(at(pinned, lod), first), lod
    assert not all(np.array_equal(at(t, lod), at(t, 0.0)) for lod in (1.5, 3.0))


def test_pinned_inputs_change_only_the_qualifying_textures():
    from xlate.verify.inputs import GeneratedInputs
    prog = api.parse(IF_AND_OUTSIDE, filename="t.fp")
    textures = {u: _mipmapped(filter="LINEAR_MIPMAP_LINEAR", mag_filter="NEAREST")
                for u in (0, 1, 2)}
    gen = GeneratedInputs(lanes=4, textures=textures)
    pinned, units = pinned_inputs(prog, gen)
    assert units == [0]
    assert len(pinned.textures[0].levels) == 1 and pinned.textures[0].filter == "NEAREST"
    assert pinned.textures[1] is textures[1] and pinned.textures[2] is textures[2]
    assert gen.textures[0] is textures[0]                   # the main run's inputs untouched
    # already one level and one filter: nothing to pin
    one = GeneratedInputs(lanes=4, textures={0: one_level(textures[0])})
    assert pinned_inputs(prog, one) is None


SUPER_XBR_FAST = "cg/gp4fp/xbr__shaders__super-xbr__super-xbr-fast-pass1.cg__main_fragment.fp"


def _verify(text: str, name: str, runner, seed: int = 11):
    from xlate.verify.core import verify_source
    return verify_source(text, name, lanes=4096, seed=seed, runner=runner)


def test_super_xbr_lookups_in_an_if_are_shown_to_differ_by_level_only():
    """cg super-xbr-fast-pass1 (gp4fp), inputs seed 11: 17 lookups inside one IF.  The
    replay reads each lookup's value from a probe compilation, and those chose other levels
    than the compilations of the values computed from them: an unexplained divergence at
    'DP3.F R3.z, R0' whose probe is DP3 of another level's texels (before this counterfactual,
    a mismatch; the corpus sample of campaign seed 11).  With the texture at one level and
    one filter the same inputs agree bit for bit: 'lod', shown."""
    from conftest import gl_runner, shared_corpus_or_skip
    path = shared_corpus_or_skip(SUPER_XBR_FAST)
    rep = _verify(path.read_text(), str(path), gl_runner("gl"))
    assert rep.status == "pass", rep.reason
    assert rep.reason == (
        "differences explained: lod (shown: with texture units 0 -- read only by lookups "
        "whose derivatives GLSL leaves undefined -- at one level and one filter, the same "
        "inputs agree bit for bit)"), rep.reason


@pytest.mark.parametrize("kind", ["texcoord", "arith", "swizzle"])
def test_a_wrong_translation_of_lookups_in_an_if_stays_a_mismatch(kind):
    """The counterfactual only removes the level choice: a coordinate, an operator or a
    swizzle made wrong in the same program is a mismatch in the one-level run as well, so
    the verdict stays a mismatch (the first site of each kind in xl_main)."""
    from conftest import gl_runner, shared_corpus_or_skip
    from xlate.backends.glsl import emit_glsl
    from xlate.verify import mutants as M
    path = shared_corpus_or_skip(SUPER_XBR_FAST)
    text = path.read_text()
    glsl = emit_glsl(api.parse(text, filename=str(path)), "glsl450").source
    sites = M.candidates(glsl, (kind,))[kind]
    assert sites, kind
    runner = gl_runner("gl")
    rep = _verify(text, str(path), sites[0].mutating_runner(runner))
    assert rep.status == "mismatch", (sites[0].before, sites[0].after, rep.reason)


# ---- a texture read both inside and outside non-uniform flow -----------------------------------

def test_a_texture_read_in_and_outside_non_uniform_flow_may_join():
    """Unit 2 is read inside the IF and outside it, by implicit-level lookups only; a fetch or
    an explicit level outside keeps it out (a one-level texture changes what those give apart
    from the level choice)."""
    prog = api.parse(IF_AND_OUTSIDE, filename="t.fp")
    assert shared_level_units(prog) == {2}
    explicit = IF_AND_OUTSIDE.replace("TEX.F R1, R1, texture[2], 2D;",
                                      "TXL.F R1, R1, texture[2], 2D;")
    assert shared_level_units(api.parse(explicit, filename="t.fp")) == set()


def test_departures_at_lookups_with_defined_derivatives_are_found():
    from xlate.verify.replay import Departure
    prog = api.parse(IF_AND_OUTSIDE, filename="t.fp")
    # instruction 4: TEX of unit 2 inside the IF; 7: TEX of unit 2 outside; 6: unit 1 outside
    at = {k: Departure(k, 0, 0, (0,), "", [], [], []) for k in (4, 6, 7)}
    assert [ins.tex.unit for ins in (prog.instructions[k] for k in (4, 6, 7))] == [2, 1, 2]
    assert defined_lookup_departures(prog, [at[4]], {2}) == []
    assert defined_lookup_departures(prog, [at[4], at[7]], {2}) == [at[7]]
    assert defined_lookup_departures(prog, [at[6]], {2}) == []


#: unit 0 read by a TXB in uniform flow, before any flow instruction (its level judged by the
#: replay's window, permits_texture._lod_window), and by a TEX inside an IF
BIAS_THEN_IF = """!!NVfp4.0
TEMP R0, R1, R2, HC;
MUL.F R2, fragment.position, {0.03, 0.05, 0, 0};
MOV.F R2.w, {1.0}.x;
TXB.F R1, R2, texture[0], 2D;
SGT.F R0.y, fragment.texcoord[0].x, {0}.x;
TRUNC.U.CC HC.x, R0.y;
MOV.F R0, {0, 0, 0, 0};
IF NE.x;
TEX.F R0, fragment.texcoord[0], texture[0], 2D;
ENDIF;
ADD.F result.color, R0, R1;
END
"""


class _BiasMutant:
    """The translation's TXB with 2.0 more bias: a wrong level, and nothing else."""

    def apply(self, glsl: str) -> str:
        return glsl.replace("texture(texture0, R2.xy, R2.w)",
                            "texture(texture0, R2.xy, R2.w + 2.0)")


def test_a_wrong_level_where_derivatives_are_defined_keeps_its_texture_out(monkeypatch):
    """The main run departs at the TXB (a level where derivatives are defined), so unit 0
    does not join the counterfactual and the mutant stays a mismatch.  Without that
    condition, the one-level run -- where no bias changes anything -- passes it as 'lod'."""
    from conftest import gl_runner
    from xlate.verify import level_choice
    from xlate.verify.mutants_glsl import MutatingRunner
    from xlate.verify.core import verify_source
    runner = MutatingRunner(gl_runner("gl"), _BiasMutant())
    rep = verify_source(BIAS_THEN_IF, "bias.fp", lanes=256, seed=2, runner=runner)
    assert runner.applied > 0
    assert (rep.status, rep.reason) == (
        "mismatch", "localized: divergence at 'TXB.F R1, R2, texture[0], 2D' (line 5)")
    monkeypatch.setattr(level_choice, "defined_lookup_departures", lambda *a: [])
    rep = verify_source(BIAS_THEN_IF, "bias.fp", lanes=256, seed=2,
                        runner=MutatingRunner(gl_runner("gl"), _BiasMutant()))
    assert rep.status == "pass" and "unit 0 also read where derivatives are defined" in \
        rep.reason, rep.reason


#: unit 0 read by a TXB after an IF has closed: every fragment of the quad runs it, so its
#: derivatives are defined and its level is judged by the replay's window
#: (permits_texture._lod_window), not left open
BIAS_AFTER_IF = """!!NVfp4.0
TEMP R0, R1, R2, HC;
SGT.F R0.y, fragment.texcoord[0].x, {0}.x;
TRUNC.U.CC HC.x, R0.y;
MOV.F R0, {0, 0, 0, 0};
IF NE.x;
MOV.F R0, {0.5, 0.25, 0, 0};
ENDIF;
MUL.F R2, fragment.position, {0.03, 0.05, 0, 0};
MOV.F R2.w, {1.0}.x;
TXB.F R1, R2, texture[0], 2D;
ADD.F result.color, R0, R1;
END
"""


def test_a_wrong_level_after_a_closed_block_is_a_mismatch(monkeypatch):
    """A TXB with 2.0 more bias after an ENDIF.  The window used to be open for any lookup
    after a flow instruction, and this mutant passed as 'lod'; the program as translated
    passes.  With the old reading put back (monkeypatched), the mutant passes again -- the
    test sees the difference the rule makes."""
    from conftest import gl_runner
    from xlate.verify import permits_texture
    from xlate.verify.core import verify_source
    from xlate.verify.mutants_glsl import MutatingRunner
    rep = verify_source(BIAS_AFTER_IF, "after.fp", lanes=256, seed=2, runner=gl_runner("gl"))
    assert rep.status == "pass" and "lod" not in rep.reason, rep.reason
    runner = MutatingRunner(gl_runner("gl"), _BiasMutant())
    rep = verify_source(BIAS_AFTER_IF, "after.fp", lanes=256, seed=2, runner=runner)
    assert runner.applied > 0
    assert (rep.status, rep.reason) == (
        "mismatch", "localized: divergence at 'TXB.F R1, R2, texture[0], 2D' (line 11)")
    monkeypatch.setattr(permits_texture, "level_is_open", lambda program, k: True)
    rep = verify_source(BIAS_AFTER_IF, "after.fp", lanes=256, seed=2,
                        runner=MutatingRunner(gl_runner("gl"), _BiasMutant()))
    assert rep.status == "pass" and "lod" in rep.reason, rep.reason


def _lookup_index(prog) -> int:
    return next(k for k, ins in enumerate(prog.instructions) if ins.tex is not None)


@pytest.mark.parametrize("before, after, is_open", [
    ("IF NE.x;\nMOV.F R0, {1}.x;\nENDIF;", "", False),
    ("REP {2}.x;\nADD.F R0, R0, {1}.x;\nENDREP;", "", False),
    ("IF NE.x;", "ENDIF;", True),                      # inside the block
    ("IF NE.x;\nRET;\nENDIF;", "", True),              # some fragments left main
    ("KIL NE.x;", "", True),                           # GLSL 4.50 §6.4
    ("", "", False),
])
def test_the_level_is_open_only_where_the_quad_may_have_diverged(before, after, is_open):
    from xlate.verify.permits_texture import level_is_open
    text = (f"!!NVfp4.0\nTEMP R0, R1, HC;\nMOVC.F HC.x, fragment.texcoord[0].x;\n{before}\n"
            f"TXB.F R1, fragment.texcoord[0], texture[0], 2D;\n{after}\n"
            "ADD.F result.color, R0, R1;\nEND\n")
    prog = api.parse(text, filename="t.fp")
    assert level_is_open(prog, _lookup_index(prog)) is is_open


def test_a_program_with_subroutines_leaves_every_level_open():
    from xlate.verify.permits_texture import level_is_open
    prog = api.parse("!!NVfp4.0\nTEMP R0;\nCAL sub;\n"
                     "TEX.F R0, fragment.texcoord[0], texture[0], 2D;\n"
                     "MOV.F result.color, R0;\nRET;\nsub:\nMOV.F R0, {1}.x;\nRET;\nEND\n",
                     filename="t.fp")
    assert level_is_open(prog, _lookup_index(prog)) is True


NEDI_PASS0_NOOPT = "cg/fp40/nedi__shaders__nedi-pass0.cg__main_fragment__noopt.fp"


def test_nedi_pass0_lookups_in_an_if_of_a_texture_read_outside_it_differ_by_level_only():
    """cg fp40 nedi-pass0 noopt, inputs seed 13, 256 lanes: texture 0 is read in uniform flow
    and inside an IF; the replay took the IF's lookups from probe compilations that chose
    other levels (a divergence at a DP3 after them: unexplained in every corpus sample since
    0d8f10b).  No lookup in uniform flow departed, so unit 0 joins the counterfactual, and
    the one-level run passes."""
    from conftest import gl_runner, shared_corpus_or_skip
    from xlate.verify.core import verify_source
    path = shared_corpus_or_skip(NEDI_PASS0_NOOPT)
    rep = verify_source(path.read_text(), str(path), lanes=256, seed=13,
                        runner=gl_runner("gl"))
    assert rep.status == "pass", rep.reason
    assert rep.reason.startswith(
        "differences explained: lod (shown: with texture units 0 -- read by lookups whose "
        "derivatives GLSL leaves undefined; unit 0 also read where derivatives are defined, "
        "and no lookup there departed in the main run -- at one level and one filter, the "
        "same inputs "), rep.reason
