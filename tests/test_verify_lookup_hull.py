"""A lookup at a non-finite coordinate reads texels the implementation picks, but what it gives
is still its texture's (xlate/verify/lookup_hull.py, applied by permits.rule_nonfinite): each
channel within its texels' range (and the border's, where CLAMP_TO_BORDER reads it), or NaN; a
depth comparison whose reference every texel passes gives 1.0.  Before, any value passed as
``nonfinite`` (mutation campaign seed 16: a shadow lookup's reference moved from z to w)."""
from __future__ import annotations

import numpy as np
import pytest

from xlate.exec import Texture
from xlate.verify import permits

from test_verify_texture_freedoms import f32, judge

F32 = np.float32
NAN = float("nan")

COLOUR = "!!NVfp4.0\nTEX result.color, fragment.texcoord[0], texture[0], 2D;\nEND\n"
SHADOW = "!!NVfp4.0\nTEX result.color, fragment.texcoord[0], texture[0], SHADOW2D;\nEND\n"


def _texture(first: float, last: float, **kw) -> Texture:
    """A 4x4 2D texture whose channels run from ``first`` to ``last``."""
    level = np.linspace(first, last, 64, dtype=F32).reshape(4, 4, 4)
    return Texture([level], "2D", **kw)


def _all(value):
    def imp(e):
        out = e.copy()
        out[:] = f32(*value)
        return out
    return imp


def _verdicts(text, texture, coord, value):
    """rule_nonfinite's verdicts of the lookup given ``value`` on every lane, where it
    differs from the executor's value; True where it does not (nothing to permit)."""
    inputs = {"fragment.texcoord[0]": np.array([coord] * 4, F32)}
    hook = judge(text, 0, _all(value), inputs, {0: texture}, rule=permits.rule_nonfinite)
    differ = hook.exe != f32(*value)[None, :]
    return hook.verdicts | ~differ


@pytest.mark.parametrize("value,free", [
    ((0.25, 0.5, 0.75, 0.5), True),          # a blend of texels: within every channel's range
    ((NAN, NAN, NAN, NAN), True),            # a NaN filter weight
    ((0.25, 0.5, 0.75, 0.95), False),        # past the greatest texel of w (0.9)
    ((0.05, 0.5, 0.5, 0.5), False),          # below the least of x (0.1)
])
def test_a_lookup_at_a_nan_coordinate_gives_what_its_texture_holds(value, free):
    v = _verdicts(COLOUR, _texture(0.1, 0.9), (NAN, 0.5, 0.0, 0.0), value)
    assert v[0].all() == free and v.all() == free


def test_the_border_counts_where_clamp_to_border_reads_it():
    value = (0.25, 0.5, 0.75, 1.5)
    texture = _texture(0.1, 0.9, wrap="CLAMP_TO_BORDER", border=(0.0, 0.0, 0.0, 1.5))
    assert _verdicts(COLOUR, texture, (NAN, 0.5, 0.0, 0.0), value).all()
    texture = _texture(0.1, 0.9, wrap="CLAMP_TO_EDGE", border=(0.0, 0.0, 0.0, 1.5))
    assert not _verdicts(COLOUR, texture, (NAN, 0.5, 0.0, 0.0), value)[:, 3].any()


@pytest.mark.parametrize("wrap,border,reference,value,free", [
    # every texel's depth (0.1 .. 0.9) passes GEQUAL 1.0: the lookup gives 1.0 whatever it reads
    ("CLAMP_TO_EDGE", 0.0, 1.0, (0.0, 0.0, 0.0, 1.0), False),
    ("CLAMP_TO_EDGE", 0.0, 1.0, (0.5, 0.5, 0.5, 1.0), False),
    ("CLAMP_TO_EDGE", 0.0, 1.0, (1.0, 1.0, 1.0, 1.0), True),          # (the executor's)
    # a border depth of 2.0 (1.0 as the depth image clamps it) fails ... or passes: either
    ("CLAMP_TO_BORDER", 2.0, 1.0, (0.0, 0.0, 0.0, 1.0), True),
    # a reference between the texels' depths: some pass, some fail, a blend of both
    ("CLAMP_TO_EDGE", 0.0, 0.5, (0.25, 0.25, 0.25, 1.0), True),
    ("CLAMP_TO_EDGE", 0.0, 0.5, (0.25, 0.25, 0.25, 0.5), False),    # w is 1.0
    # a non-finite reference: the comparison itself is on a NaN, anything
    ("CLAMP_TO_EDGE", 0.0, NAN, (0.0, 0.0, 0.0, 0.5), True),
])
def test_a_depth_comparison_at_a_nan_coordinate(wrap, border, reference, value, free):
    texture = _texture(0.1, 0.9, wrap=wrap, border=(border, 0.0, 0.0, 0.0), compare="GEQUAL")
    v = _verdicts(SHADOW, texture, (NAN, 0.5, reference, 0.0), value)
    assert v.all() == free
