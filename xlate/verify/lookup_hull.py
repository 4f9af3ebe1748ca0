"""What a texture lookup can give whatever texels it reads: the bound on the freedom that a
non-finite coordinate, level of detail or derivative gives a lookup (:func:`permits.rule_nonfinite`).

GLSL 4.50 §4.7.1 leaves the operations on an Inf or a NaN to the implementation, and a lookup
at a NaN coordinate is such an operation: which texels, which level, face or layer it reads,
and with which filter weights, are the implementation's (llvmpipe turns a NaN into some texel
index; a filter weight computed from a NaN is NaN).  What is *not* left open is what the
texture holds: a lookup returns a blend of the texture's texels or its border colour (GL 4.5
§8.14.2, §8.14.3) -- each result channel within the range of that channel's texels and
border -- or, where a NaN weight enters the blend, a NaN.  A depth comparison (GL 4.5
§8.22.1) blends the 0.0/1.0 results of comparing its reference with the texels it reads, so
where the reference compares the same way with every texel and the border, the result is that
value (and w is 1.0).

Before this bound, a lookup with a NaN coordinate was free to give anything: a mutant that
moved a shadow lookup's reference from z (1.0, which every texel passes) to w (0.0) passed as
``nonfinite`` (generated TGSI fragment 20, mutation campaign seed 16).
"""
from __future__ import annotations

import numpy as np

from ..exec.texture_objects import COMPARE_FUNCS
from ..exec.texture_ops import split_coords
from ..ir.model import DataType
from .permits_site import F32, SAMPLING_OPS, Site

#: relative slack of a blend's bounds: a + w * (b - a) in float32 may round past max(a, b)
_SLACK = 1e-6


def possible_lookup(s: Site) -> np.ndarray:
    """(lanes, 4) bool: where the implementation's value is one a lookup of the site's
    texture can give, whatever texels it reads (module docstring).  All True where no bound
    is known: not a filtered float lookup, a texture the site does not hold, a projected
    depth comparison (its reference is divided by q too), a non-finite reference, or a
    channel with a non-finite texel."""
    free = np.ones(s.exe.shape, bool)
    tex = s.ins.tex
    if s.ins.op not in SAMPLING_OPS or tex is None or s.op.rt != DataType.FLOAT:
        return free
    textures = getattr(s.op.st, "textures", None)
    P = textures.get(tex.unit) if hasattr(textures, "get") else None
    if P is None or getattr(P, "kind", "f") != "f":
        return free
    n = len(s.exe)
    imp = np.ascontiguousarray(s.imp).view(F32).astype(np.float64)
    data = np.asarray(P.data, np.float64).reshape(-1, np.shape(P.data)[-1])
    # the border colour is read only through CLAMP_TO_BORDER (GL 4.5 §8.14.2)
    border = np.asarray(P.border, np.float64).reshape(1, -1) \
        if "CLAMP_TO_BORDER" in tuple(getattr(P, "wrap", ())) else np.zeros((0, data.shape[1]))
    with np.errstate(all="ignore"):
        if tex.target.startswith("SHADOW"):
            if s.ins.op == "TXP":
                return free
            lo, hi = _compared_bounds(s, P, data, border, n)
            if lo is None:
                return free
            bounds = [(lo, hi)] * 3 + [(np.ones(n), np.ones(n))]
        else:
            bounds = []
            for c in range(4):
                if c >= data.shape[1]:
                    bounds.append(None)
                    continue
                values = np.concatenate([data[:, c], border[:, c]])
                if not np.isfinite(values).all():
                    bounds.append(None)
                    continue
                bounds.append((np.full(n, values.min()), np.full(n, values.max())))
        ok = np.isnan(imp)
        for c, b in enumerate(bounds):
            if b is None:
                ok[:, c] = True
                continue
            lo, hi = b
            slack = _SLACK * np.maximum(np.abs(lo), np.abs(hi)) + 1e-30
            ok[:, c] |= (imp[:, c] >= lo - slack) & (imp[:, c] <= hi + slack)
    return ok


def _compared_bounds(s: Site, P, data, border, n: int):
    """(lo, hi) per lane of a depth comparison's result: the least and the greatest of the
    reference compared with each texel's depth and the border's where it is read (clamped to
    [0, 1] as the depth image stores it, and as given); (None, None) where a lane's reference is not finite
    or the comparison is unknown."""
    coord = np.asarray(s.operands[0], F32).reshape(n, -1)
    if s.ins.tex.target == "SHADOWARRAYCUBE":
        if len(s.operands) < 2:
            return None, None
        ref = np.asarray(s.operands[1], F32).reshape(n, -1)[:, 0]
    else:
        ref = split_coords(s.ins.tex.target, coord)[4]
    if ref is None or not np.isfinite(ref).all():
        return None, None
    depths = np.unique(np.concatenate([data[:, 0], border[:, 0], np.clip(border[:, 0], 0.0, 1.0)]))
    if not np.isfinite(depths).all():
        return None, None
    name = getattr(P, "compare", None) or "LEQUAL"
    if name not in COMPARE_FUNCS:
        return None, None
    fn = COMPARE_FUNCS[name]
    if fn is None:           # ALWAYS / NEVER: one value whatever the texels
        v = 1.0 if name == "ALWAYS" else 0.0
        return np.full(n, v), np.full(n, v)
    passed = fn(ref.astype(F32)[:, None], depths.astype(F32)[None, :])
    return passed.min(axis=1).astype(np.float64), passed.max(axis=1).astype(np.float64)
