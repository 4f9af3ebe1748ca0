"""The cgc oracle's match of two compilations' values, shared by :mod:`oracle` (the comparison)
and :mod:`oracle_explain` (the explanation of a difference), which both need it and must not
import each other both ways."""
from __future__ import annotations

import numpy as np

REL = 2.0 ** -12          # relative tolerance between the two translations
ABS = 2.0 ** -16


def near(mine: np.ndarray, other: np.ndarray) -> np.ndarray:
    """The oracle's match of two compilations' words (any shape): bit-equal floats, or within
    :data:`REL` relative / :data:`ABS` absolute of each other (denormals flushed)."""
    from . import compare as cmp
    exact = cmp.float_equal(mine, other)
    ef, gf = cmp.flush(mine).view(np.float32), cmp.flush(other).view(np.float32)
    with np.errstate(all="ignore"):
        return exact | (np.abs(ef.astype(np.float64) - gf) <=
                        np.maximum(ABS, REL * np.maximum(np.abs(ef), np.abs(gf))))
