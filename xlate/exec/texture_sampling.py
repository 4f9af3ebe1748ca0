"""Texel selection and filtering of the executor's texture lookups (the rules: ``texture.py``'s
docstring): wrapping, texel fetches, depth comparison, cube-map face selection and seamless
remapping, NEAREST/LINEAR footprints and mipmap selection."""
from __future__ import annotations

import numpy as np

from .texture_objects import _BIG, COMPARE_FUNCS, F32, _Prepared

# ---- wrapping and texel fetches -----------------------------------------------------------------

def _ifloor(u: np.ndarray) -> np.ndarray:
    """floor to int64; NaN -> 0, magnitudes clamped to 2^40 (project choice)."""
    u = np.where(np.isnan(u), F32(0), u)
    return np.floor(np.clip(u, -_BIG, _BIG)).astype(np.int64)


def _wrap(i: np.ndarray, n: np.ndarray, mode: str) -> np.ndarray:
    """GL 4.5 Table 8.20 on integer texel coordinates."""
    if mode == "REPEAT":
        return np.mod(i, n)
    if mode == "CLAMP_TO_EDGE":
        return np.clip(i, 0, n - 1)
    if mode == "CLAMP_TO_BORDER":
        return np.clip(i, -1, n)
    if mode == "MIRRORED_REPEAT":
        m = np.mod(i, 2 * n) - n
        return (n - 1) - np.where(m >= 0, m, -(1 + m))
    # MIRROR_CLAMP_TO_EDGE
    return np.clip(np.where(i >= 0, i, -(1 + i)), 0, n - 1)


def _fetch(P: _Prepared, lv, i, j, z, outside=None) -> np.ndarray:
    """Texels (k, 4) at integer coordinates of level ``lv``; coordinates outside the level read
    the border colour (or ``outside``)."""
    W, H, Z = P.W[lv], P.H[lv], P.Z[lv]
    inside = (i >= 0) & (i < W) & (j >= 0) & (j < H) & (z >= 0) & (z < Z)
    pos = P.off[lv] + (z * H + j) * W + i
    allin = bool(np.all(inside))
    if not allin:
        pos = np.where(inside, pos, 0)
    out = P.data[pos]
    if not allin:
        fill = P.border if outside is None else outside
        out = np.where(inside[:, None], out, fill)
    return out


def _compare(P: _Prepared, ref, texels) -> np.ndarray:
    """GL §8.22.1: 1.0 where ``ref OP D_t`` holds, else 0.0 (D_t = first component)."""
    fn = COMPARE_FUNCS[P.compare]
    if fn is None:
        v = 1.0 if P.compare == "ALWAYS" else 0.0
        return np.full(texels.shape[0], v, F32)
    return fn(ref, texels[:, 0]).astype(F32)


def _lerp(a, b, w):
    if a.ndim == 2:
        w = w[:, None]
    return a + w * (b - a)


# -- cube maps -------------------------------------------------------------------------------------

def _cube_select(x, y, z):
    """GL 4.5 Table 8.19: the face (0..5 = +X -X +Y -Y +Z -Z) of each direction, by the
    component of largest magnitude.  Ties (GL leaves them to the implementation): Z wins, then
    Y -- llvmpipe's lp_build_cube_lookup takes Z when |z| >= max(|x|, |y|), else X only when
    |x| > |y| (measured: (1, 1, 0.5) samples +Y); a zero component counts as positive."""
    ax, ay, az = np.abs(x), np.abs(y), np.abs(z)
    zmaj = (az >= ax) & (az >= ay)
    xmaj = ~zmaj & (ax > ay)
    ymaj = ~zmaj & ~xmaj
    face = np.where(xmaj, np.where(x >= 0, 0, 1),
                    np.where(ymaj, np.where(y >= 0, 2, 3), np.where(z >= 0, 4, 5)))
    return face


# (sc component, sc sign, tc component, tc sign, major component, major sign) per face
_CUBE_TABLE = np.array([
    (2, -1, 1, -1, 0, 1),     # +X: sc = -rz, tc = -ry, ma = rx
    (2, 1, 1, -1, 0, -1),     # -X: sc = +rz, tc = -ry
    (0, 1, 2, 1, 1, 1),       # +Y: sc = +rx, tc = +rz
    (0, 1, 2, -1, 1, -1),     # -Y: sc = +rx, tc = -rz
    (0, 1, 1, -1, 2, 1),      # +Z: sc = +rx, tc = -ry
    (0, -1, 1, -1, 2, -1),    # -Z: sc = -rx, tc = -ry
], np.int64)


def _cube_project(v, face):
    """(k,3) direction -> (sc, tc, |ma|) for the given faces."""
    T = _CUBE_TABLE[face]
    rows = np.arange(v.shape[0])
    sc = v[rows, T[:, 0]] * T[:, 1].astype(F32)
    tc = v[rows, T[:, 2]] * T[:, 3].astype(F32)
    ma = v[rows, T[:, 4]] * T[:, 5].astype(F32)
    return sc, tc, ma


def _cube_remap(face, i, j, N):
    """Seamless cube filtering (GL §8.13.1): texel (i, j) of ``face`` one texel beyond an edge
    -> the texel of the adjacent face.  Works on the doubled integer lattice of texel centres
    on the cube of half-size N; returns (face, i, j, corner)."""
    A = 2 * i + 1 - N
    B = 2 * j + 1 - N
    T = _CUBE_TABLE[face]
    k = face.shape[0]
    N = np.broadcast_to(N, (k,))
    v = np.zeros((k, 3), np.int64)
    rows = np.arange(k)
    v[rows, T[:, 0]] = A * T[:, 1]
    v[rows, T[:, 2]] = B * T[:, 3]
    v[rows, T[:, 4]] = N * T[:, 5]
    over = np.abs(v) > N[:, None]
    n_over = over.sum(axis=1)
    corner = n_over >= 2
    single = n_over == 1
    if single.any():
        r = np.flatnonzero(single)
        ax = np.argmax(over[r], axis=1)
        old = T[r, 4]
        v[r, ax] = np.sign(v[r, ax]) * N[r]
        v[r, old] = np.sign(v[r, old]) * (N[r] - 1)
        maj = np.argmax(np.abs(v[r]), axis=1)
        pos = v[r, maj] > 0
        nf = maj * 2 + np.where(pos, 0, 1)
        T2 = _CUBE_TABLE[nf]
        a2 = v[r, T2[:, 0]] * T2[:, 1]
        b2 = v[r, T2[:, 2]] * T2[:, 3]
        face = face.copy()
        i = np.array(i, copy=True)
        j = np.array(j, copy=True)
        face[r] = nf
        i[r] = (a2 + N[r] - 1) // 2
        j[r] = (b2 + N[r] - 1) // 2
    if corner.any():
        i = np.where(corner, np.clip(i, 0, N - 1), i)
        j = np.where(corner, np.clip(j, 0, N - 1), j)
    return face, i, j, corner


# -- filtering -------------------------------------------------------------------------------------

class _Lookup:
    """What one sampling instruction needs besides the level: coordinates (normalized, or texel
    units for RECT), layer/face, offsets, shadow reference."""

    __slots__ = ("P", "dims", "rect", "cube", "s", "t", "r", "z", "off", "ref", "zb")

    def subset(self, m):
        o = _Lookup()
        o.P, o.dims, o.rect, o.cube, o.off = self.P, self.dims, self.rect, self.cube, self.off
        for n in ("s", "t", "r", "z", "ref", "zb"):
            a = getattr(self, n)
            setattr(o, n, None if a is None else a[m])
        return o


def _texel_coord(L: _Lookup, lv, axis: int):
    """Unnormalized coordinate u/v/w (GL §8.14.2: u = s * w_t + delta_u; RECT: u = s + du)."""
    c = (L.s, L.t, L.r)[axis]
    size = (L.P.W, L.P.H, L.P.Z)[axis][lv]
    u = c if L.rect else c * size.astype(F32)
    if L.off[axis]:
        u = u + F32(L.off[axis])
    return u, size


def _nearest(L: _Lookup, lv) -> np.ndarray:
    P = L.P
    idx = []
    for axis in range(L.dims):
        u, n = _texel_coord(L, lv, axis)
        i = _ifloor(u)
        if L.cube and P.seamless:
            i = np.clip(i, 0, n - 1)
        else:
            i = _wrap(i, n, P.wrap[axis])
        idx.append(i)
    zero = np.zeros_like(idx[0])
    i = idx[0]
    j = idx[1] if L.dims > 1 else zero
    z = idx[2] if L.dims > 2 else L.z
    tx = _fetch(P, lv, i, j, z)
    if L.ref is not None:
        return _compare(P, L.ref, tx)
    return tx


def _linear(L: _Lookup, lv) -> np.ndarray:
    vals, wt = _footprint(L, lv)
    # nested lerps: along u (pairs differing in i), then v, then w
    for w in wt:
        vals = [_lerp(vals[m], vals[m + 1], w) for m in range(0, len(vals), 2)]
    return vals[0]


def _footprint(L: _Lookup, lv) -> tuple[list, list]:
    """The texels LINEAR filtering blends (compared, for a shadow lookup) and their weights:
    corners (i0, j0), (i1, j0), (i0, j1), (i1, j1) (then the same at k1 for 3D)."""
    P = L.P
    lo, hi, wt = [], [], []
    for axis in range(L.dims):
        u, n = _texel_coord(L, lv, axis)
        a = u - F32(0.5)
        a = np.where(np.isnan(a), F32(0), np.clip(a, -_BIG, _BIG))
        fl = np.floor(a)
        i0 = fl.astype(np.int64)
        if L.cube and P.seamless:
            lo.append(np.clip(i0, -1, n - 1))
            hi.append(np.clip(i0 + 1, 0, n))
        else:
            lo.append(_wrap(i0, n, P.wrap[axis]))
            hi.append(_wrap(i0 + 1, n, P.wrap[axis]))
        wt.append((a - fl).astype(F32))
    dims = L.dims
    corners = [(a, b, c) for c in ((0, 1) if dims > 2 else (0,))
               for b in ((0, 1) if dims > 1 else (0,)) for a in (0, 1)]
    vals = []
    cube_corner = []
    for a, b, c in corners:
        i = (lo, hi)[a][0]
        j = (lo, hi)[b][1] if dims > 1 else np.zeros_like(i)
        z = (lo, hi)[c][2] if dims > 2 else L.z
        if L.cube and P.seamless:
            # a cube array: the layer's first layer-face (zb) stays, the face may change
            zb = 0 if L.zb is None else L.zb
            z, i, j, corner = _cube_remap(L.z - zb, i, j, P.W[lv])
            z = z + zb
            cube_corner.append(corner)
        tx = _fetch(P, lv, i, j, z)
        if L.ref is not None:
            tx = _compare(P, L.ref, tx)
        vals.append(tx)
    if cube_corner and any(c.any() for c in cube_corner):
        # GL §8.13.1: the missing corner texel = the average of the three available ones
        for n, corner in enumerate(cube_corner):
            if corner.any():
                # llvmpipe's rounding, measured on gathered corners (tests/test_tgsi_gather.py):
                # the other row's two texels summed first, then the one beside the missing
                # texel in its own row, times 1/3 rather than divided by 3 -- corners
                # (i0,j0)=0 (i1,j0)=1 (i0,j1)=2 (i1,j1)=3
                pair, beside = ((2, 3), 1 - n) if n < 2 else ((0, 1), 5 - n)
                avg = (vals[pair[0]] + vals[pair[1]] + vals[beside]) * F32(1.0 / 3.0)
                m = corner[:, None] if vals[n].ndim == 2 else corner
                vals[n] = np.where(m, avg, vals[n])
    return vals, wt


def _filter(L: _Lookup, lv, lin) -> np.ndarray:
    """Sample level ``lv`` (per lane) with LINEAR where ``lin`` else NEAREST."""
    if lin.all():
        return _linear(L, lv)
    if not lin.any():
        return _nearest(L, lv)
    out = _nearest(L, lv)             # float textures only: integer ones are NEAREST (GL §8.17)
    m = np.flatnonzero(lin)
    out[m] = _linear(L.subset(m), lv[m])
    return out


def _sample(L: _Lookup, lam: np.ndarray) -> np.ndarray:
    """GL §8.14-8.15: choose magnification/minification by lambda vs c, then the mipmap
    level(s) (§8.14.3) and filter."""
    P = L.P
    k = lam.shape[0]
    mini = lam > P.c                                   # NaN -> magnification
    lin = np.where(mini, P.min_lin, P.mag_lin)
    lv = np.full(k, P.base, np.int64)
    if P.mip is None or not mini.any():
        return _filter(L, lv, lin)
    span = P.q - P.base
    lam_c = np.where(mini, np.clip(lam, F32(0), F32(span + 1)), F32(0))
    if P.mip == "N":
        # d = base if lambda <= 1/2, else base + ceil(lambda + 1/2) - 1, clamped to q
        d = np.where(lam_c <= F32(0.5), 0, np.ceil(lam_c + F32(0.5)).astype(np.int64) - 1)
        lv = np.where(mini, np.minimum(P.base + d, P.q), lv)
        return _filter(L, lv, lin)
    # *_MIPMAP_LINEAR: d1 = base + floor(lambda), d2 = d1 + 1, blend by frac(lambda);
    # lambda >= q - base: the last level alone
    top = mini & (lam_c >= F32(span))
    fl = np.floor(lam_c)
    d1 = np.where(top, P.q, P.base + fl.astype(np.int64))
    lv = np.where(mini, d1, lv)
    out = _filter(L, lv, lin)
    blend = mini & ~top
    if blend.any():
        m = np.flatnonzero(blend)
        sub = L.subset(m)
        second = _filter(sub, lv[m] + 1, lin[m])
        frac = (lam_c - fl)[m].astype(F32)
        out[m] = _lerp(out[m], second, frac)
    return out


