"""The executor's texture opcodes (the rules: ``texture.py``'s docstring): TEX TXB TXL TXP
TXD, TEX2 TXB2 TXL2, TXF, TXQ, TXG, TXQLEVELS, TXQS and LODQ."""
from __future__ import annotations

from typing import Callable

import numpy as np

from ..ir.model import Stage
from .texture_objects import (BASE_TARGET, CUBES, F32, I32, MAX_TEXTURE_LOD_BIAS, MULTISAMPLE,
                              _SPATIAL, _Prepared)
from .texture_sampling import (_cube_project, _cube_select, _fetch, _footprint, _ifloor,
                               _Lookup, _sample)

# ---- the opcodes --------------------------------------------------------------------------------

def split_coords(target: str, c: np.ndarray):
    """GP4 Table X.17: (s, t, r, layer, shadow reference) columns of the coordinate vector."""
    col = lambda n: c[:, n]  # noqa: E731
    return {
        "1D": (col(0), None, None, None, None),
        "2D": (col(0), col(1), None, None, None),
        "3D": (col(0), col(1), col(2), None, None),
        "CUBE": (col(0), col(1), col(2), None, None),
        "RECT": (col(0), col(1), None, None, None),
        "ARRAY1D": (col(0), None, None, col(1), None),
        "ARRAY2D": (col(0), col(1), None, col(2), None),
        "SHADOW1D": (col(0), None, None, None, col(2)),
        "SHADOW2D": (col(0), col(1), None, None, col(2)),
        "SHADOWRECT": (col(0), col(1), None, None, col(2)),
        "SHADOWCUBE": (col(0), col(1), col(2), None, col(3)),
        "SHADOWARRAY1D": (col(0), None, None, col(1), col(2)),
        "SHADOWARRAY2D": (col(0), col(1), None, col(2), col(3)),
        # the reference of a shadow cube array is TEX2's second operand
        "ARRAYCUBE": (col(0), col(1), col(2), col(3), None),
        "SHADOWARRAYCUBE": (col(0), col(1), col(2), col(3), None),
    }[target]


_COLUMN_NUMBERS = np.arange(4, dtype=F32)[None]


def reference_in_lod_place(target: str) -> bool:
    """Whether a depth comparison on ``target`` keeps its reference where TXL reads its level
    of detail: the coordinate's w (Table X.17, :func:`split_coords`) or, for a shadow cube array,
    TEX2's second operand (where its TXL2 reads the level).  Such a lookup at another level
    cannot be written as a TXL; it takes :func:`_texture`'s ``lod`` argument."""
    if not target.startswith("SHADOW"):
        return False
    if target == "SHADOWARRAYCUBE":
        return True
    reference = split_coords(target, _COLUMN_NUMBERS)[4]
    return reference is not None and reference[0] == 3


def _project(c: np.ndarray) -> np.ndarray:
    """GP4 TXP: x, y, z divided by w (w kept)."""
    out = np.array(c, F32, copy=True)
    out[:, :3] = out[:, :3] / out[:, 3:4]
    return out


def _implicit_partials(x, comps, project: bool, fine: bool = False):
    """GP4 ComputePartialsX/Y: fragment programs -- coarse quad differences (module docstring);
    vertex/geometry programs -- zero.  Returns (dx, dy) of shape (k|1, len(comps)).

    ``fine``: each lane's own row and column pair of its quad instead (GLSL 4.50 §8.14.1
    dFdxFine/dFdyFine; which of the two an implicit derivative is, is the implementation's
    choice -- llvmpipe takes fine differences for cube maps, see
    ``xlate.verify.permits.rule_fine_derivatives``)."""
    zero = np.zeros((1, len(comps)), F32)
    if x.stage != Stage.FRAGMENT:
        return zero, zero
    full = x.loaders[0](x.st, None)           # the coordinate on every lane of the chunk
    if full.shape[0] == 1:
        return zero, zero
    if project:
        full = _project(full)
    cols = full[:, list(comps)]
    total = cols.shape[0]
    lanes = x.st.all_lanes if x.idx is None else x.idx
    q = lanes - (lanes & 3)
    x0, y0 = (lanes - (lanes & 1), lanes - (lanes & 2)) if fine else (q, q)
    px = x0 + 1
    py = y0 + 2
    px = np.where(px >= total, x0, px)
    py = np.where(py >= total, y0, py)
    return cols[px] - cols[x0], cols[py] - cols[y0]


def _rho_log2(dx: np.ndarray, dy: np.ndarray, fast: bool) -> np.ndarray:
    """lambda_base = log2(rho), rho = max(|dx|, |dy|) (GL eq. 8.7-8.8, exact lengths, float32).

    ``fast``: Mesa llvmpipe's evaluation (gallivm ``lp_build_fast_log2`` of rho^2, halved):
    log2(m * 2^e) ~ e + (m - 1) for m in [1, 2), piecewise linear between powers of two."""
    rx = np.sum(dx * dx, axis=1, dtype=F32)
    ry = np.sum(dy * dy, axis=1, dtype=F32)
    r2 = np.maximum(rx, ry)
    with np.errstate(divide="ignore", invalid="ignore"):
        if not fast:
            return np.log2(np.sqrt(r2)).astype(F32)
        m, e = np.frexp(r2)                       # r2 = m * 2^e, m in [0.5, 1)
        lg = (e - 1).astype(F32) + (F32(2) * m.astype(F32) - F32(1))
        lg = np.where(r2 == 0, F32(-np.inf), np.where(np.isfinite(r2), lg, r2))
        return (lg * F32(0.5)).astype(F32)


def _cube_array_layer(L: _Lookup, P: _Prepared, layer) -> None:
    """A cube-map array lookup's layer: GL §8.14.2 (cube map arrays as 2D arrays), layer =
    clamp(floor(q + 0.5), 0, d - 1); its six faces start at 6 * layer (``L.z`` holds the
    face)."""
    nl = P.Z[P.base] // 6
    L.zb = 6 * np.clip(_ifloor(layer + F32(0.5)), 0, nl - 1)
    L.z = L.z + L.zb


def _texture(x, op: str, c, gdx=None, gdy=None, extra=None, fine: bool = False, lod=None,
             projected: bool = False):
    """TEX TXB TXL TXP TXD (GP4 §2.X.8.Z): TextureSample(coord, lambda, ddx, ddy, offset);
    TEX2/TXB2/TXL2 (tgsi.rst) with the reference, bias or level in ``extra``'s x; LODQ: the
    level of detail the lookup would use (:func:`op_lodq`).  ``fine``: implicit partials from
    fine differences (:func:`_implicit_partials`).  ``lod``: the verifier's lookup of ``op``
    at that level of detail instead of its own (a depth comparison whose reference takes the
    place TXL reads its level from: SHADOWCUBE and the shadow arrays' w, SHADOWARRAYCUBE's
    second operand -- no opcode has both).  ``projected``: implicit partials of the
    projected coordinates, as TXP takes them (the verifier's LODQ of a TXP)."""
    P: _Prepared = x.st.textures[x.inst.tex.unit]
    target = x.inst.tex.target
    base = BASE_TARGET[target]
    rect = base == "RECT"
    cube = base in CUBES
    comps = _SPATIAL[base]
    c = np.asarray(c, F32)
    second = None
    if extra is not None:
        second = np.asarray(extra, F32)[:, 0]
        op = {"TEX2": "TEX", "TXB2": "TXB", "TXL2": "TXL"}[op]
    if op == "TXP":
        c = _project(c)
    explicit = None
    bias = None
    if lod is not None:
        dx = dy = None
        explicit = np.asarray(lod, F32)
    elif op == "TXD":
        dx = np.asarray(gdx, F32)[:, list(comps)]
        dy = np.asarray(gdy, F32)[:, list(comps)]
    elif op == "TXL" and not rect:
        dx = dy = None
        explicit = c[:, 3] if second is None else second
    else:
        # GLSL: rectangle samplers have no LOD/bias argument -> implicit derivatives
        dx, dy = _implicit_partials(x, comps, op == "TXP" or projected, fine)
        if op == "TXB" and not rect:
            bias = c[:, 3] if second is None else second
    k = max(a.shape[0] for a in (c, dx, dy, second) if a is not None)
    c = np.broadcast_to(c, (k, 4))
    s, t, r, layer, ref = split_coords(target, c)
    if target == "SHADOWARRAYCUBE":
        ref = np.broadcast_to(second, (k,))

    L = _Lookup()
    L.P, L.rect, L.cube, L.ref, L.zb = P, rect, cube, ref, None
    L.off = tuple(int(o) for o in x.inst.tex.offset) + (0, 0, 0)
    L.r = None
    if cube:
        v = c[:, :3]
        face = _cube_select(v[:, 0], v[:, 1], v[:, 2])
        sc, tc, ma = _cube_project(v, face)
        L.s = (sc / ma) * F32(0.5) + F32(0.5)
        L.t = (tc / ma) * F32(0.5) + F32(0.5)
        L.z = face.astype(np.int64)
        if base == "ARRAYCUBE":
            _cube_array_layer(L, P, layer)
        L.dims = 2
        if dx is not None:
            dx, dy = cube_face_partials(P, v, face, dx, dy)
    else:
        L.s, L.t = s, t
        L.dims = len(comps)
        if base == "3D":
            L.r = r
        if layer is not None:
            nl = P.Z[P.base]
            # GL §8.14.2: layer = clamp(floor(coord + 0.5), 0, layers - 1)
            L.z = np.clip(_ifloor(layer + F32(0.5)), 0, nl - 1)
        else:
            L.z = np.zeros(k, np.int64)
        if dx is not None:
            # u = s * size (GL §8.14.1); RECT coordinates are texel units already (llvmpipe
            # scales them by the size once more: emulated in "llvmpipe" sampling)
            unit_scale = rect and not P.llvmpipe
            scale = np.array([1, 1, 1] if unit_scale else [int(v) for v in P.size], F32)[:len(comps)]
            dx = np.broadcast_to(dx, (k, len(comps))) * scale
            dy = np.broadcast_to(dy, (k, len(comps))) * scale
    if explicit is not None:
        lam = np.array(explicit, F32)
    else:
        lam = _rho_log2(dx, dy, P.fast_log2)
    # GL eq. 8.6: lambda' = lambda_base + clamp(bias_texobj + bias_shader); then clamp to
    # [TEXTURE_MIN_LOD, TEXTURE_MAX_LOD]
    b = P.lod_bias if bias is None else P.lod_bias + bias
    b = np.clip(b, F32(-MAX_TEXTURE_LOD_BIAS), F32(MAX_TEXTURE_LOD_BIAS))
    if op == "LODQ":
        return _lod_query(P, np.broadcast_to((lam + b).astype(F32), (k,)))
    lam = np.clip(lam + b, P.min_lod, P.max_lod).astype(F32)
    lam = np.broadcast_to(lam, (k,))
    res = _sample(L, lam)
    if ref is not None:
        one = np.ones(k, F32)
        return np.stack([res, res, res, one], axis=1)
    return res


def cube_face_partials(P: _Prepared, v: np.ndarray, face: np.ndarray, dx, dy):
    """The partials of a cube direction ``v`` (k, 3), projected onto ``face`` by the chain rule
    (GL 4.5 §8.14.1 with §8.13's s = (sc / |ma| + 1) / 2), in texels of the base level: the
    (k, 2) pairs d(u, v)/dx and d(u, v)/dy.  The verifier projects them onto another face of a
    tie (permits_texture.rule_cube_tie_derivatives)."""
    k = len(v)
    sc, tc, ma = _cube_project(v, face)
    n = F32(P.size[0])
    out = []
    for d in (dx, dy):
        d = np.broadcast_to(d, (k, 3))
        dsc, dtc, dma = _cube_project(d, face)
        ds = F32(0.5) * (dsc * ma - sc * dma) / (ma * ma)
        dt = F32(0.5) * (dtc * ma - tc * dma) / (ma * ma)
        out.append(np.stack([ds * n, dt * n], axis=1))
    return out


def _lod_query(P: _Prepared, lam_prime: np.ndarray) -> np.ndarray:
    """LODQ / textureQueryLod: (level accessed, lambda', 0, 0).

    y = lambda' (GL 4.5 eq. 8.6: lambda_base plus the biases, before the TEXTURE_MIN_LOD /
    TEXTURE_MAX_LOD clamp); x = the level the lookup reads relative to the base level: lambda'
    clamped to [MIN_LOD, MAX_LOD], then 0 without mipmaps, rounded to the nearest level
    (halves to even) for *_MIPMAP_NEAREST, and clamped to [0, q - base].  Neither tgsi.rst nor
    GLSL 4.50 8.9.1 define the rounding: this is what Mesa llvmpipe computes
    (gallivm lp_build_lod_selector / lp_build_sample_common with is_lodq: lp_build_round then
    lp_build_clamp), the implementation ``xlate verify`` runs on."""
    lam = np.clip(lam_prime, P.min_lod, P.max_lod).astype(F32)
    span = F32(P.q - P.base)
    if P.mip is None:
        level = np.zeros_like(lam)
    elif P.mip == "N":
        level = np.clip(np.round(lam), F32(0), span)
    else:
        level = np.clip(lam, F32(0), span)
    zero = np.zeros_like(lam)
    return np.stack([level, lam_prime, zero, zero], axis=1).astype(F32)


def op_tex(x, c):
    return _texture(x, "TEX", c)


def op_tex2(x, c, extra):
    return _texture(x, "TEX2", c, extra=extra)


def op_txb2(x, c, extra):
    return _texture(x, "TXB2", c, extra=extra)


def op_txl2(x, c, extra):
    return _texture(x, "TXL2", c, extra=extra)


def op_lodq(x, c):
    """LODQ (tgsi.rst) / textureQueryLod: :func:`_lod_query` of the lookup's level of detail,
    computed as TEX computes it (implicit derivatives; zero outside fragment programs)."""
    return _texture(x, "LODQ", c)


def op_txb(x, c):
    return _texture(x, "TXB", c)


def op_txl(x, c):
    return _texture(x, "TXL", c)


def op_txp(x, c):
    return _texture(x, "TXP", c)


def op_txd(x, c, dx, dy):
    return _texture(x, "TXD", c, dx, dy)


def op_txf(x, c):
    """GP4 TXF / TexelFetch (Table X.18): integer texel coordinates, LOD = base + w; no wrap,
    no filtering.  Out-of-range coordinates/levels -> (0, 0, 0, 0) (project choice)."""
    P: _Prepared = x.st.textures[x.inst.tex.unit]
    target = x.inst.tex.target
    c = np.asarray(c).astype(np.int64)
    k = c.shape[0]
    off = tuple(int(o) for o in x.inst.tex.offset) + (0, 0, 0)
    zero = np.zeros(k, np.int64)
    i = c[:, 0] + off[0]
    j = zero
    z = zero
    if target in MULTISAMPLE:
        # tgsi.rst TXF: "if the texture is multisampled, the fourth component indicates the
        # sample"; a sample or layer out of range reads 0 (as other out-of-range fetches)
        nl = P.Z[0] // P.samples
        sample = c[:, 3]
        layer = c[:, 2] if target == "ARRAY2DMS" else zero
        ok = (sample >= 0) & (sample < P.samples) & (layer >= 0) & (layer < nl)
        z = np.where(ok, layer * P.samples + sample, -1)
        lv = np.zeros(k, np.int64)
        return _fetch(P, lv, i, c[:, 1], z, outside=np.zeros(4, P.dtype))
    if target in ("2D", "RECT", "ARRAY2D", "3D"):
        j = c[:, 1] + off[1]
    if target == "3D":
        z = c[:, 2] + off[2]
    elif target == "ARRAY1D":
        z = c[:, 1]
    elif target == "ARRAY2D":
        z = c[:, 2]
    if target in ("RECT", "BUFFER"):
        lod = zero                       # GLSL texelFetch(sampler2DRect/samplerBuffer): no LOD
    else:
        lod = c[:, 3]
    lv = P.base + lod
    ok = (lod >= 0) & (lv <= P.q)
    lv = np.clip(lv, 0, P.q)
    zeros = np.zeros(4, P.dtype)
    if not ok.all():
        i = np.where(ok, i, -1)
    return _fetch(P, lv, i, j, z, outside=zeros)


def op_txq(x, c):
    """GP4 TXQ: the size of level base + x; components as GLSL ``textureSize`` (rest 0).
    RECT/BUFFER ignore the level; a level out of range gives (0, 0, 0, 0) (project choice)."""
    P: _Prepared = x.st.textures[x.inst.tex.unit]
    target = x.inst.tex.target
    base = BASE_TARGET[target]
    c = np.asarray(c).astype(np.int64)
    k = c.shape[0]
    if base in ("RECT", "BUFFER") or base in MULTISAMPLE:
        lod = np.zeros(k, np.int64)
    else:
        lod = c[:, 0]
    lv = P.base + lod
    ok = (lod >= 0) & (lv <= P.q)
    lv = np.clip(lv, 0, P.q)
    W, H, Z = P.W[lv], P.H[lv], P.Z[lv]
    zero = np.zeros(k, np.int64)
    cols = {"1D": (W, zero, zero), "BUFFER": (W, zero, zero), "2D": (W, H, zero),
            "RECT": (W, H, zero), "CUBE": (W, H, zero), "3D": (W, H, Z),
            "ARRAY1D": (W, Z, zero), "ARRAY2D": (W, H, Z), "ARRAYCUBE": (W, H, Z // 6),
            "2DMS": (W, H, zero), "ARRAY2DMS": (W, H, Z // P.samples)}[base]
    out = np.stack(list(cols) + [zero], axis=1)
    out = np.where(ok[:, None], out, 0)
    return out.astype(I32)


def op_txg(x, c):
    """Texture gather (ARB_texture_gather; GLSL textureGather): the four texels of the LINEAR
    footprint of the base level, whatever the filters, component ``tex.component`` of each
    (a shadow lookup: each texel's comparison result), as (i0,j1), (i1,j1), (i1,j0), (i0,j0) in
    x, y, z, w."""
    P: _Prepared = x.st.textures[x.inst.tex.unit]
    target = x.inst.tex.target
    base = BASE_TARGET[target]
    c = np.asarray(c, F32)
    k = c.shape[0]
    s, t, _r, layer, ref = split_coords(target, c)
    L = _Lookup()
    L.P, L.rect, L.cube, L.ref, L.r, L.zb = P, base == "RECT", base in CUBES, ref, None, None
    L.off = tuple(int(o) for o in x.inst.tex.offset) + (0, 0, 0)
    L.dims = 2
    if L.cube:
        v = c[:, :3]
        face = _cube_select(v[:, 0], v[:, 1], v[:, 2])
        sc, tc, ma = _cube_project(v, face)
        L.s = (sc / ma) * F32(0.5) + F32(0.5)
        L.t = (tc / ma) * F32(0.5) + F32(0.5)
        L.z = face.astype(np.int64)
        if base == "ARRAYCUBE":
            _cube_array_layer(L, P, layer)
    else:
        L.s, L.t = s, t
        L.z = np.zeros(k, np.int64) if layer is None else \
            np.clip(_ifloor(layer + F32(0.5)), 0, P.Z[P.base] - 1)
    vals, _w = _footprint(L, np.full(k, P.base, np.int64))
    if ref is None:
        comp = x.inst.tex.component
        vals = [v[:, comp] for v in vals]
    out = np.stack([vals[2], vals[3], vals[1], vals[0]], axis=1)
    return out.astype(P.data.dtype)


def op_txqlevels(x, c):
    """The number of mipmap levels the texture's view offers, base to max (GLSL
    ``textureQueryLevels``) in every component; the operand is not read."""
    P: _Prepared = x.st.textures[x.inst.tex.unit]
    k = np.asarray(c).shape[0]
    return np.full((k, 4), P.q - P.base + 1, I32)


def op_txqs(x, c):
    """TXQS (tgsi.rst): the samples per texel of a multisample texture, 1 of any other; in
    every component (x is the one tgsi.rst defines)."""
    P: _Prepared = x.st.textures[x.inst.tex.unit]
    k = np.asarray(c).shape[0]
    return np.full((k, 4), P.samples, I32)


TEX: dict[str, Callable] = {"TEX": op_tex, "TXB": op_txb, "TXD": op_txd, "TXF": op_txf,
                            "TXL": op_txl, "TXP": op_txp, "TXQ": op_txq, "TXG": op_txg,
                            "TXQLEVELS": op_txqlevels, "TEX2": op_tex2, "TXB2": op_txb2,
                            "TXL2": op_txl2, "TXQS": op_txqs, "LODQ": op_lodq}
