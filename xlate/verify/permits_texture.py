"""The permission rules of texture lookups (:mod:`permits` lists them in :data:`permits.RULES`):
a lookup's level of detail, derivatives and texel coordinates, each shown by recomputing the
lookup with the cause removed."""
from __future__ import annotations

import numpy as np

from ..exec.texture_ops import reference_in_lod_place
from ..ir.model import DataType, Stage
from ..ir.ops import OPCODES, TEX_TARGETS, TGSI_TEX_TARGETS
from . import compare as cmp
from .compare import same_words
from .permits_site import (F32, SAMPLING_OPS, U32, Site, _flush_operand, _holds_denormal,
                           _nonfinite)


#: texels a filtered lookup's coordinate must stay under for its texel to be known: GL 4.5
#: section 2.3.4.1 asks a floating-point operation for "about 1 part in 10^5", so the texel
#: coordinate u = s * size of a larger coordinate is known only to more than one texel
TEXEL_RANGE_LIMIT = 1.0e5
#: lookups whose coordinate components are wrapped/filtered texel positions
_RANGE_TARGETS = {"1D": (0,), "2D": (0, 1), "3D": (0, 1, 2), "RECT": (0, 1),
                  "ARRAY1D": (0,), "ARRAY2D": (0, 1)}


def rule_texcoord_range(s: Site) -> np.ndarray:
    """A float lookup (TEX/TXB/TXL/TXD/TEX2/TXB2/TXL2 on a 1D, 2D, 3D, rectangle or array
    target, not a shadow one) whose texel coordinate u = s * size (s itself for a rectangle)
    reaches :data:`TEXEL_RANGE_LIMIT` in magnitude in a spatial component: GL 4.5 section
    2.3.4.1's precision ("about 1 part in 10^5") leaves u uncertain by more than a texel, so
    any texel of any level, or the border colour, may be read and filtered.  Shown by the
    value: each component lies within the range of the texture's texels and border colour.
    (The generator's inputs reach 1e38; llvmpipe wraps such coordinates through integer
    conversions.)  Where u overflows the float range, any value.  Verdict ``range``.
    A gather (TXG) reads its four texels' gathered component: each result component lies
    within that component's range (generated TGSI fragment seed 816, inputs seed 800: TG4 at
    s = 1.4e32 on a 2D texture)."""
    none = np.zeros(s.exe.shape, bool)
    tex = s.ins.tex
    if s.ins.op not in SAMPLING_OPS + ("TXG",) or tex is None or s.op.rt != DataType.FLOAT or \
            "SHADOW" in tex.target or tex.target not in _RANGE_TARGETS:
        return none
    textures = getattr(s.op.st, "textures", None)
    P = textures.get(tex.unit) if hasattr(textures, "get") else None
    if P is None or getattr(P, "kind", "f") != "f":
        return none
    size = (1.0, 1.0, 1.0) if tex.target == "RECT" else \
        (float(P.W[0]), float(P.H[0]), float(P.Z[0]))
    c = np.asarray(s.operands[0], F32).astype(np.float64).reshape(len(s.exe), -1)
    with np.errstate(all="ignore"):
        far = np.zeros(len(s.exe), bool)
        overflow = np.zeros(len(s.exe), bool)
        for i in _RANGE_TARGETS[tex.target]:
            u = np.abs(c[:, i] * size[i])
            far |= ~np.isfinite(u) | (u >= TEXEL_RANGE_LIMIT)
            # u past the float range: the implementation's texel arithmetic is on an
            # infinity, which GL 4.5 2.3.4.1 leaves unspecified ("providing a value that is
            # not a floating-point number ... is unspecified"): any value, NaN included
            # (llvmpipe: NaN for s = -1.7e38 on an 8-texel texture, random TGSI fragment
            # seed 9)
            overflow |= u > np.finfo(np.float32).max
    if not far.any():
        return none
    data = np.asarray(P.data, np.float64).reshape(-1, np.shape(P.data)[-1])
    border = np.asarray(P.border, np.float64).reshape(-1)
    ok = np.zeros(s.exe.shape, bool)
    imp = np.ascontiguousarray(s.imp).view(F32).astype(np.float64)
    gather = s.ins.op == "TXG"
    for comp in range(4 if gather else min(4, data.shape[1])):
        read = tex.component if gather else comp
        if read >= data.shape[1]:
            continue
        values = np.concatenate([data[:, read], border[read:read + 1]])
        values = values[np.isfinite(values)]
        if not len(values):
            continue
        lo, hi = values.min(), values.max()
        ok[:, comp] = far & (imp[:, comp] >= lo) & (imp[:, comp] <= hi)
    ok |= overflow[:, None]
    return ok


def rule_boundary(s: Site) -> np.ndarray:
    """A NEAREST-filtered lookup whose coordinate lies on a texel edge: GL 4.5 §8.14.2 selects
    the texel by ``floor(u)`` of ``u = s * size``, and the implementation's rounding of that
    product picks either neighbour.  Shown by recomputation with the coordinates moved by one
    ulp down or up (each spatial component independently), or by EDGE_REACH of their magnitude
    (of the major axis's for a cube direction; an edge that near cannot be told apart by the
    implementation's arithmetic of the texel position), within the filtering tolerance of
    compare.INEXACT (TEX's 2^-7, as :func:`rule_tolerance` allows the unmoved lookup; a
    shadow lookup's w exactly).  The moves start from the operands as read and, where they
    hold denormals, from the operands flushed (:func:`_as_read_and_flushed`).

    The tolerance is needed because llvmpipe does not always fetch a NEAREST texel as it is:
    where some fragment of an 8-wide SIMD group is minified with a LINEAR filter and another
    magnified with NEAREST (or the reverse), gallivm samples the whole group with the linear
    filter and forces the NEAREST fragments' weights to 0 or 1 ("whatever texel had more
    weight": ``fpart > 0.5``, lp_build_sample_image_linear's linear_mask).  That picks the
    lower texel at u exactly on an edge (fpart = 0.5 of u - 0.5) -- the edge case here -- and
    returns ``a + 1.0 * (b - a)``, which can be b's neighbour float (gb-palette.cg fp40:
    ``TEX oCol.xyz, H0, texture[1], 2D`` with H0.x = 0.5 on an 8-texel texture, the texel's
    value 1 ulp off in x, y and z; tests/test_verify_replay.py)."""
    if s.ins.op not in SAMPLING_OPS or s.ins.tex is None:
        return np.zeros(s.exe.shape, bool)
    ok = np.zeros(s.exe.shape, bool)
    dims, cube = lookup_dims(s.ins.tex.target)
    tol = cmp.INEXACT.get(s.ins.op, cmp.INEXACT["TEX"])
    shadow = "SHADOW" in s.ins.tex.target
    filtered = s.op.rt == DataType.FLOAT        # integer texels are fetched, not filtered
    for operands in _as_read_and_flushed(s.all_operands):
        c = np.asarray(operands[0], F32)
        rest = list(operands[1:])
        for moved in edge_moves(c, dims, cube):
            ok |= _boundary_match(s, moved, rest, tol, filtered, shadow)
        if cube and filtered:
            ok |= _cube_corner_average(s, c, rest, tol, shadow)
    return ok


def _cube_corner_average(s: Site, c: np.ndarray, rest: list, tol, shadow: bool) -> np.ndarray:
    """A cube direction whose three magnitudes tie points at a corner of three faces, where
    the texel a NEAREST lookup selects lies beyond both edges of its face: with seamless
    filtering GL 4.5 §8.14.2 takes such a texel as the average of the three texels that meet
    at the corner, which llvmpipe does (generated ARBvp+NV3 vertex seed 1602, inputs seed
    1600: TXL CUBE at (0.3125, 0.3125, -0.3125), the mean of the +X, +Y and -Z corner texels
    to 2e-8).  Recomputed: the lookup with each axis made the major one by a one-ulp move, the
    three averaged, within the filtering tolerance."""
    mag = np.abs(c[:, :3])
    corner = (mag[:, 0] > 0) & (mag[:, 0] == mag[:, 1]) & (mag[:, 1] == mag[:, 2])
    if len(corner) > 1:
        corner = corner[s.rows]            # the judged lanes (recompute's rows)
    if not corner.any():
        return np.zeros(s.exe.shape, bool)
    faces = []
    for axis in range(3):
        moved = c.copy()
        moved[:, axis] = np.nextafter(c[:, axis], np.where(c[:, axis] < 0, F32(-np.inf),
                                                           F32(np.inf)))
        faces.append(s.recompute([moved] + rest).view(F32))
    with np.errstate(all="ignore"):
        mean = ((faces[0] + faces[1] + faces[2]) * F32(1.0 / 3.0)).astype(F32)
    return _near(s, np.ascontiguousarray(mean).view(U32), tol, True, shadow) & corner[:, None]


def _axis_face(c: np.ndarray, axis: int) -> np.ndarray:
    """The cube face of each direction ``c`` with ``axis`` taken as its major axis (GL's face
    order +X -X +Y -Y +Z -Z; a zero counts as positive, as the executor's _cube_select)."""
    return 2 * axis + (c[:, axis] < 0)


def rule_cube_tie_derivatives(s: Site) -> np.ndarray:
    """A cube lookup with explicit derivatives (TXD) whose direction has two or three largest
    magnitudes equal -- an edge or corner of the faces: GL 4.5 Table 8.19 picks the face by
    the major axis and leaves ties to the implementation, and the choice it makes for the
    coordinates need not be the one it makes for projecting the derivatives onto a face
    (§8.14.1's chain rule; GLSL 4.50 §8.9.5: textureGrad's cube partials are taken before
    the projection).  Generated TGSI fragment seed 1119 (inputs seed 1100): ``SAMPLE_D ...
    CUBE`` at (0.8125, 0.8125, 0.8125) gave llvmpipe the +Y face's texels at LOD 2.50, the
    level of the derivatives projected onto +Z (+Y's own: 2.78; the executor, Z first for
    both: +Z's texels).  Shown by recomputation: for each ordered pair of tied axes, the
    lookup with the coordinates made major on the first by a one-ulp move (as
    :func:`_moved_on_grid`) at the level of detail of the derivatives projected onto the
    second's face, every written component within TEX's filtering tolerance at once."""
    n = len(s.exe)
    ok = np.zeros((n, 4), bool)
    if s.ins.op != "TXD" or s.ins.tex is None or \
            s.ins.tex.target.replace("SHADOW", "") not in ("CUBE", "ARRAYCUBE"):
        return ok
    from ..exec import texture as tx
    from ..exec.texture_ops import _rho_log2, cube_face_partials
    P = s.op.st.textures.get(s.ins.tex.unit)
    if P is None:
        return ok
    c = np.asarray(s.operands[0], F32).reshape(n, -1)
    dx = np.asarray(s.operands[1], F32).reshape(n, -1)[:, :3]
    dy = np.asarray(s.operands[2], F32).reshape(n, -1)[:, :3]
    mag = np.abs(c[:, :3])
    top = mag.max(axis=1)
    tied = (top > 0) & np.isfinite(top) & ((mag == top[:, None]).sum(axis=1) > 1)
    written = s.written_components()
    tol = cmp.INEXACT["TEX"]
    lane_ok = np.zeros(n, bool)
    for major in range(3):
        for deriv_major in range(3):
            todo = tied & ~lane_ok & (mag[:, major] == top) & (mag[:, deriv_major] == top)
            if major == deriv_major or not todo.any():
                continue
            rows = np.flatnonzero(todo)
            moved = c[rows].copy()
            moved[:, major] = np.nextafter(moved[:, major], np.where(
                moved[:, major] < 0, F32(-np.inf), F32(np.inf)))
            face = _axis_face(c[rows], deriv_major)
            with np.errstate(all="ignore"):
                pdx, pdy = cube_face_partials(P, c[rows, :3], face, dx[rows], dy[rows])
                lam = _rho_log2(pdx, pdy, P.fast_log2)
                r = tx._texture(s.op, "TXD", moved, lod=lam)
            r = np.ascontiguousarray(np.broadcast_to(r, (len(rows), 4))).view(U32)
            imp = s.imp[rows]
            near = cmp.float_equal(r, imp, *tol) & ~_nonfinite(r) & ~_nonfinite(imp)
            near |= same_words(r, imp)
            if "SHADOW" in s.ins.tex.target:     # w is 1.0 exactly, not filtered
                near[:, 3] = same_words(r[:, 3], imp[:, 3])
            lane_ok[rows] |= (near | ~written[rows]).all(axis=1)
    return np.broadcast_to(lane_ok[:, None], (n, 4)) & written


#: GLSL 4.50 §4.7.1 gives a / b its 2.5 ULP only for |b| in [2^-126, 2^126]; beyond, 1/b is a
#: denormal, which an implementation that divides through the reciprocal flushes
DIVISION_RANGE = 2.0 ** 126


def rule_cube_flushed_reciprocal(s: Site) -> np.ndarray:
    """A cube lookup whose major axis's magnitude reaches :data:`DIVISION_RANGE`: the face
    coordinates sc / |ma| (GL 4.5 §8.13) are a division GLSL leaves open there, and llvmpipe
    computes them as sc * (1 / |ma|), whose denormal reciprocal it flushes (GLSL 4.50 §4.7.1),
    so the coordinates become the face's centre.  Shown by recomputation: the lookup at the
    major axis alone -- the other two components 0; for a direction whose largest magnitudes
    tie, each tied axis's -- gives the implementation's value, every written component of the
    one lookup (within the filtering tolerance of compare.INEXACT, as rule_boundary).
    Generated TGSI fragment seed 531 (inputs seed 500): GATHER4 of a CUBE at (-1.5e38,
    -1.5e38, -2.59) gathered the -Y face's centre."""
    none = np.zeros(s.exe.shape, bool)
    if s.ins.op not in SAMPLING_OPS + ("TXG",) or s.ins.tex is None or \
            s.ins.tex.target.replace("SHADOW", "") not in ("CUBE", "ARRAYCUBE"):
        return none
    with np.errstate(all="ignore"):
        mag = np.abs(np.asarray(s.operands[0], F32)[:, :3]).astype(np.float64)  # judged rows
    top = mag.max(axis=1)
    big = np.isfinite(top) & (top >= DIVISION_RANGE)
    if not big.any():
        return none
    tol = cmp.INEXACT.get(s.ins.op, cmp.INEXACT["TEX"])
    written = s.written_components()
    ok = none.copy()
    for axis in range(3):
        rows = big & (mag[:, axis] == top)
        if not rows.any():
            continue
        moved = np.array(s.all_operands[0], F32)      # every lane: the recomputation's input
        moved[:, [a for a in range(3) if a != axis]] = 0
        near = _boundary_match(s, moved, list(s.all_operands[1:]), tol,
                               s.op.rt == DataType.FLOAT, "SHADOW" in s.ins.tex.target)
        # one lookup: every written component of it (not a component from each face)
        ok |= ((near | ~written).all(axis=1) & rows)[:, None] & written
    return ok


def _edge_reach(c: np.ndarray, cube: bool) -> np.ndarray:
    """(n, 4) float32: how far each coordinate component is moved to the other side of an edge
    -- EDGE_REACH of its magnitude (at least 1.0, the extent of a normalized texture): an edge
    closer than that to the coordinate is one the implementation's float arithmetic of
    s * size and the half-texel offsets cannot place the coordinate on a side of (llvmpipe
    fetched the border colour for s = 7.6e-16 on an 8-texel CLAMP_TO_BORDER texture, where
    floor(s * 8) = 0 selects texel 0: random TGSI fragment seed 9; GL 4.5 §2.3.4.1 allows
    "about 1 part in 10^5" for such arithmetic).  A cube's face coordinates are sc / |ma| (GP4
    2.X.8.Z, GL 4.5 §8.13): there an edge within EDGE_REACH of them is one the major axis's
    magnitude scales -- x = 2 at |ma| = 1.02e8 puts s 1e-8 below the face's middle, which
    float rounds onto it; llvmpipe took the texel below (generated TGSI fragment seed 531,
    inputs seed 500)."""
    reach = np.maximum(np.abs(c), F32(1)) * F32(EDGE_REACH)
    if cube:
        reach[:, :3] = np.abs(c[:, :3]).max(axis=1, keepdims=True) * F32(EDGE_REACH)
    return reach


def _as_read_and_flushed(operands: list) -> list[list]:
    """The lookup's operands as read and, where they hold denormals, with every denormal
    flushed (GP4 issue 18, GLSL 4.50 §4.7.1 let an implementation flush any operand before it
    computes): an edge choice is the implementation's at the coordinate and level it computes
    with.  Generated TGSI fragment seed 81 (inputs seed 31): ``TXL ..., CUBE`` at direction
    (6e-45, 6e-45, 3.0) with a denormal LOD; llvmpipe flushed the LOD to 0, magnified with
    NEAREST, and took the texel on the other side of the +Z face's centre, an edge."""
    if not any(_holds_denormal(o) for o in operands):
        return [list(operands)]
    return [list(operands), [_flush_operand(o) for o in operands]]


#: how close (relative to the coordinate's magnitude, at least 1.0) a texel edge may be for
#: either side to be taken: 2^-20, between float's resolution of those terms (2^-24) and the
#: 1e-5 GL allows
EDGE_REACH = 2.0 ** -20


def _boundary_match(s: Site, moved, rest, tol, filtered: bool, shadow: bool) -> np.ndarray:
    """The lanes and components where the lookup at ``moved`` gives the implementation's
    value (within the filtering tolerance for float texels; a shadow lookup's w exactly)."""
    return _near(s, s.recompute([moved] + rest), tol, filtered, shadow)


def _near(s: Site, r: np.ndarray, tol, filtered: bool, shadow: bool) -> np.ndarray:
    """Where the lookup words ``r`` give the implementation's value (within the filtering
    tolerance for float texels; a shadow lookup's w exactly)."""
    near = same_words(r, s.imp)
    if filtered:
        near |= cmp.float_equal(r, s.imp, *tol) & ~_nonfinite(r) & ~_nonfinite(s.imp)
    if shadow:                          # w is 1.0 exactly, not filtered
        near[:, 3] = same_words(r[:, 3], s.imp[:, 3])
    return near


def _nudges(dims: int):
    import itertools
    for combo in itertools.product((-1, 0, 1), repeat=dims):
        if any(combo):
            yield combo


def lookup_dims(target: str) -> tuple[int, bool]:
    """(spatial coordinate components a texel edge can lie across, cube) of a lookup's
    target, as :func:`rule_boundary` moves them."""
    target = target.replace("SHADOW", "")
    return (3 if target in ("3D", "CUBE", "ARRAYCUBE") else 2), target in ("CUBE", "ARRAYCUBE")


def edge_moves(c: np.ndarray, dims: int, cube: bool):
    """The coordinates (n, 4) float32 ``c`` moved across the texel edges they may lie on:
    each of the first ``dims`` components independently down, up or not at all, by one ulp
    and then by the far reach of :func:`_edge_reach` (:func:`rule_boundary`)."""
    reach = _edge_reach(c, cube)
    for far in (False, True):
        for nudge in _nudges(dims):
            moved = c.copy()
            for i, d in enumerate(nudge):
                if d and far:
                    moved[:, i] = c[:, i] + F32(d) * reach[:, i]
                elif d:
                    moved[:, i] = np.nextafter(c[:, i], F32(np.inf) if d > 0 else F32(-np.inf))
            yield moved


#: levels of detail tried around the executor's: GL 4.5 §8.14.1 lets rho be approximated
#: between max(|du|, |dv|) and |du| + |dv| (log2: within 1 level), and llvmpipe takes one
#: LOD per 2x2 quad
LOD_SPAN, LOD_STEP = 1.5, 1.0 / 64


def rule_lod(s: Site) -> np.ndarray:
    """An implicit-derivative lookup (TEX/TXB/TXP/TEX2/TXB2 in a fragment program; depth
    comparisons included, their reference kept: REFERENCE_IN_LOD_PLACE) on a texture where the
    level of detail matters: GL 4.5 §8.14.1 lets implementations approximate rho (and the LOD
    with it).  Shown by recomputation: the implementation's value is the same lookup at an
    explicit level of detail on a grid of LOD_STEP spanning every level of the texture (and
    LOD_SPAN beyond both ends, where the clamp to the level range decides), within the
    filtering tolerance of compare.INEXACT["TEX"].  The same rule covers implicit lookups whose
    derivatives GLSL leaves undefined (non-uniform flow, after a KIL: GLSL 4.50 §8.14.1): the
    LOD is then open, the lookup is still a lookup at some LOD -- not any value.

    One lookup has one level of detail (GL 4.5 §8.14: lambda is computed once per fragment
    and selects the levels every component is filtered from): a lane is permitted only when
    one grid LOD gives every component the instruction wrote, not each component at an LOD
    of its own (which let a wrong value through: x from one level, y from another)."""
    n = len(s.exe)
    if s.op.stage != Stage.FRAGMENT or s.ins.op not in ("TEX", "TXB", "TXP", "TEX2", "TXB2") \
            or s.ins.tex is None:
        return np.zeros((n, 4), bool)
    from ..exec import texture as tx
    P = s.op.st.textures.get(s.ins.tex.unit)
    if P is None or tx.BASE_TARGET[s.ins.tex.target] == "RECT":
        return np.zeros((n, 4), bool)
    c = np.asarray(s.operands[0], F32).copy()
    if s.ins.op == "TXP":
        c = tx._project(c)
    # the executor's own LOD is unknown here; the grid spans every level the texture has
    top = float(getattr(P, "q", 0)) - float(getattr(P, "base", 0))
    written = s.written_components()
    tol = cmp.INEXACT["TEX"]
    grid = np.arange(-LOD_SPAN, top + LOD_SPAN + LOD_STEP / 2, LOD_STEP,
                     dtype=np.float64).astype(F32)
    allowed = _lod_window(s, P, grid)
    lane_ok, looked = _lod_grid(s, c, grid, written, tol, np.zeros(n, bool), allowed=allowed)
    # (a LOD bias off the grid would put the level boundaries inside grid segments)
    if not lane_ok.all() and getattr(P, "mip", None) == "L" and \
            float(getattr(P, "lod_bias", 0.0)) / LOD_STEP % 1 == 0:
        lane_ok |= _between_grid(looked, s.imp, written, tol, "SHADOW" in s.ins.tex.target,
                                 allowed)
    if not lane_ok.all():
        lane_ok |= _moved_on_grid(s, c, grid, written, tol, lane_ok, allowed)
    return np.broadcast_to(lane_ok[:, None], (n, 4)) & written


#: how far the implementation's level of detail may lie from the executor's where the
#: derivatives are defined, by the number of spatial dimensions: GL 4.5 §8.14.1 lets rho be
#: approximated by an f(x, y) between the largest partial and the sum of the partials'
#: magnitudes -- within a factor sqrt(n) of rho in n dimensions, log2(n) / 2 levels (0.5 in
#: 2D, 0.79 in 3D, none in 1D) -- plus a quarter level for the approximate log2 of rho
#: (llvmpipe's lp_build_fast_log2, texture_ops._rho_log2) and rounding.  (One whole level let
#: a coordinate swizzled from .zw to .zx through: cg fp40 advanced-aa, campaign seed 7.)
LOD_MARGIN = 0.25


def lod_reach(dims: int) -> float:
    return 0.5 * float(np.log2(max(dims, 1))) + LOD_MARGIN


def _lod_window(s: Site, P, grid: np.ndarray) -> np.ndarray | None:
    """(levels, n) bool: the grid LODs of :func:`rule_lod` each judged lane may take -- those
    within :func:`lod_reach` of the executor's own lambda' (GL eq. 8.6: rho's log2 plus the
    biases, computed as the lookup computes it), clamped to the grid's ends (beyond them every
    LOD reads the same clamped level).  None where the level of detail is open: derivatives
    GLSL leaves undefined, or may (:func:`level_is_open`), a cube lookup (llvmpipe's own rho
    approximations), a lookup whose lambda' is not finite.  Before (the whole range on every lane), a coordinate swizzled
    from .zw to .zx passed as a lookup at some other LOD (cg fp40 advanced-aa, campaign seed 7)."""
    from ..exec import texture as tx
    op = s.ins.op
    if op not in ("TEX", "TXB", "TXP", "TEX2", "TXB2") or tx.BASE_TARGET[s.ins.tex.target] in (
            "CUBE", "ARRAYCUBE") or s.ins.tex.target in REFERENCE_IN_LOD_PLACE:
        return None
    if level_is_open(s.op.st.program, s.op.index):
        return None
    coords = np.asarray(s.all_operands[0], F32)
    with np.errstate(all="ignore"):
        # a projected lookup's lambda from the projected coordinates' partials, as TXP takes
        # them (before, its whole range was open: a projection by '* w' for '/ w' passed as
        # a lookup at a coarse level -- TGSI maniadrive-04, mutation campaign seed 12)
        lam = np.asarray(tx._texture(s.op, "LODQ", coords, projected=op == "TXP"), F32)[:, 1]
        lam = np.broadcast_to(lam, (coords.shape[0],))[s.rows]
        if op in ("TXB", "TXB2"):
            bias = (np.asarray(s.operands[0], F32)[:, 3] if op == "TXB"
                    else np.asarray(s.operands[1], F32).reshape(len(s.rows), -1)[:, 0])
            total = np.clip(F32(P.lod_bias) + bias, F32(-tx.MAX_TEXTURE_LOD_BIAS),
                            F32(tx.MAX_TEXTURE_LOD_BIAS))
            lam = lam - F32(P.lod_bias) + total
    if not np.isfinite(lam).all():
        return None
    # a grid point g is the lookup at lambda' = g + the texture's own bias (TXL adds it)
    centre = lam.astype(np.float64) - float(P.lod_bias)
    base = tx.BASE_TARGET[s.ins.tex.target]
    reach = lod_reach(3 if base == "3D" else 1 if "1D" in base else 2)
    lo = np.clip(centre - reach, grid[0], grid[-1])
    hi = np.clip(centre + reach, grid[0], grid[-1])
    g = grid.astype(np.float64)[:, None]
    return (g >= lo[None] - LOD_STEP / 2) & (g <= hi[None] + LOD_STEP / 2)


def level_is_open(program, k: int) -> bool:
    """Whether instruction ``k``'s implicit level of detail is left open: derivatives GLSL
    leaves undefined there, or may, by what this reading follows.  Open: inside an IF, REP or
    SWITCH block, or after a KIL (trace._undefined_derivatives, GLSL 4.50 §8.14.1 and §6.4);
    after a DEMOTE or a RET (a fragment that left main early, or became a helper, leaves its
    quad's later flow non-uniform as far as this reading follows); and anywhere in a program
    with subroutines or branches (CAL, BRA), whose flow is not followed here.  After a block
    has closed, every fragment of the quad runs again and the derivatives are defined: the
    window holds there (before, any flow instruction earlier in the program opened it, and a
    TXB with 2.0 more bias after an ENDIF passed as 'lod': tests/test_verify_level_choice.py)."""
    from .trace import _undefined_derivatives
    instructions = program.instructions
    if any(i.op in ("CAL", "BRA") for i in instructions):
        return True
    if any(OPCODES[i.op].category == "kill" or i.op == "RET" for i in instructions[:k]):
        return True
    return k in _undefined_derivatives(program)


def _moved_on_grid(s: Site, c: np.ndarray, grid: np.ndarray, written: np.ndarray, tol,
                   settled: np.ndarray, allowed: np.ndarray | None = None) -> np.ndarray:
    """The lanes (not ``settled``) whose implementation's value is the lookup at one LOD of
    ``grid`` with the coordinates moved as rule_boundary moves them: each spatial component
    left or moved by EDGE_REACH of its magnitude (at least 1.0; of the major axis's for a cube
    direction), and a cube direction whose largest magnitudes tie -- the edge of two faces --
    with each tied axis made the major one by a one-ulp move.  Both freedoms at once: GL 4.5
    §8.14.1's approximate LOD, and §8.14.2's choice at a texel edge (or the face the
    implementation's arithmetic picks).  Generated TGSI fragment seed 927 (inputs seed 900),
    TXB2 ARRAYCUBE: at (-0.625, 0, -0.625) llvmpipe minified with NEAREST on the -Z face, row 3
    of the two at t = 0.5, where the executor magnified on the -X face; at (0, 0, 1), the
    centre of the +Z face, it minified onto the texel below and left of the centre."""
    import itertools
    from ..exec import texture as tx
    ok = np.zeros(len(c), bool)
    rows = np.flatnonzero(~settled)
    if not len(rows):
        return ok
    base = c[rows]
    target = tx.BASE_TARGET[s.ins.tex.target]
    cube = target in ("CUBE", "ARRAYCUBE")
    dims = 3 if target in ("3D", "CUBE", "ARRAYCUBE") else (1 if "1D" in target else 2)
    mag = np.abs(base[:, :3])
    top_mag = mag.max(axis=1)
    reach = _edge_reach(base, cube)
    tied = cube & (top_mag > 0) & ((mag == top_mag[:, None]).sum(axis=1) > 1)
    majors = [None] + [a for a in range(3) if (tied & (mag[:, a] == top_mag)).any()]
    for major in majors:
        for moves in itertools.product((-1, 0, 1), repeat=dims):
            if major is None and not any(moves):
                continue                    # the unmoved lookup: rule_lod's own grid
            moved = base.copy()
            for a, d in enumerate(moves):
                if a != major:
                    moved[:, a] = base[:, a] + F32(d) * reach[:, a]
            todo = ~ok[rows]
            if major is not None:
                moved[:, major] = np.nextafter(base[:, major], np.where(
                    base[:, major] < 0, F32(-np.inf), F32(np.inf)))
                todo &= tied & (mag[:, major] == top_mag)
            if todo.any():
                ok[rows] |= _lod_grid(s, moved, grid, written, tol, ~todo, rows,
                                      allowed=allowed)[0]
    return ok


#: depth comparisons whose reference is where TXL reads its level of detail (w; a cube array's
#: second operand): looked up at each level with the executor's ``lod`` argument
REFERENCE_IN_LOD_PLACE = frozenset(t for t in TEX_TARGETS + TGSI_TEX_TARGETS
                                   if reference_in_lod_place(t))


def _lod_grid(s: Site, c: np.ndarray, grid: np.ndarray, written: np.ndarray, tol,
              settled: np.ndarray, rows: np.ndarray | None = None,
              allowed: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Which lanes (not ``settled``) the lookup at coordinates ``c`` gives the implementation's
    value at one LOD of ``grid`` (every written component within ``tol``); and the lookups,
    (levels, lanes, 4) words.  ``rows``: the site's rows ``c`` holds (all by default);
    ``allowed``: (levels, site rows) the grid LODs each lane may take (:func:`_lod_window`;
    None: all)."""
    from ..exec import texture as tx
    n = len(c)
    imp_rows = s.imp if rows is None else s.imp[rows]
    if rows is not None:
        written = written[rows]
    cube_array = s.ins.tex.target == "ARRAYCUBE"
    lane_ok = np.zeros(n, bool)
    # an explicit LOD reads no neighbours: the judged lanes alone suffice, and every (lane,
    # LOD) pair is one independent lookup -- they are made in batches of LOD_BATCH levels,
    # one executor call each (the same lookups one level at a time cost a call per level)
    looked: list[np.ndarray] = []          # (levels, n, 4) words per batch, for _between_grid
    for g0 in range(0, len(grid), LOD_BATCH):
        lams = grid[g0:g0 + LOD_BATCH]
        cc = np.repeat(c[None], len(lams), axis=0)            # (levels, n, 4)
        with np.errstate(all="ignore"):
            if s.ins.tex.target in REFERENCE_IN_LOD_PLACE:
                # the lookup with its reference, at each level (generated TGSI fragment seed
                # 1104, inputs seed 1100: TEX2 SHADOWARRAYCUBE, llvmpipe's LOD not the
                # executor's)
                lod = np.repeat(lams, n)
                ref = None
                if s.ins.op == "TEX2":
                    ref = np.tile(np.asarray(s.operands[1], F32).reshape(n, -1), (len(lams), 1))
                r = tx._texture(s.op, "TEX2" if ref is not None else "TEX", cc.reshape(-1, 4),
                                extra=ref, lod=lod)
            elif cube_array:
                ex = np.repeat(lams, n)[:, None] * np.ones((1, 4), F32)
                r = tx._texture(s.op, "TXL2", cc.reshape(-1, 4), extra=ex)
            else:
                cc[:, :, 3] = lams[:, None]
                r = tx._texture(s.op, "TXL", cc.reshape(-1, 4))
        r = np.ascontiguousarray(np.broadcast_to(r, (len(lams) * n, 4))).view(U32)
        looked.append(r.reshape(len(lams), n, 4))
        imp = np.tile(imp_rows, (len(lams), 1))
        near = cmp.float_equal(r, imp, *tol)
        if "SHADOW" in s.ins.tex.target:     # w is 1.0 exactly, not filtered
            near[:, 3] = same_words(r[:, 3], imp[:, 3])
        # every written component at this one LOD (unwritten ones hold the old value)
        at_one = (near.reshape(len(lams), n, 4) | ~written[None]).all(axis=2)
        if allowed is not None:
            window = allowed[g0:g0 + LOD_BATCH]
            at_one &= window if rows is None else window[:, rows]
        lane_ok |= at_one.any(axis=0) & ~settled
        if (lane_ok | settled).all():
            break
    return lane_ok, np.concatenate(looked)


#: where llvmpipe's explicit level of detail wraps: Mesa 22.3.6 converts it to a 32-bit
#: integer, and a value at or beyond 2^31 becomes INT_MIN (x86's "integer indefinite"), a
#: level of detail below every level.  Measured (TXL on a 1D texture of 4 levels, gl): an LOD
#: of 2e9 gives the last level, as GL 4.5 §8.14.1's clamp to TEXTURE_MAX_LOD asks; 3e9 and
#: 1e14 give the base level (generated TGSI fragment seed 128, inputs seed 31)
LLVMPIPE_LOD_WRAP = 2.0 ** 31


#: explicit derivatives (TXD) whose scaled magnitude |d * size| reaches 2^64: llvmpipe's rho
#: sums their squares in float, which overflows to infinity, and its LOD (log2 of that) is
#: infinite -- beyond LLVMPIPE_LOD_WRAP (generated TGSI fragment seed 522, inputs seed 500:
#: ddx = -1e34 on an 8x8x8 3D texture, llvmpipe's value the base level's)
LLVMPIPE_RHO_OVERFLOW = 2.0 ** 64
#: the coordinates each target's derivatives scale (cube maps project theirs onto the face:
#: _cube_partials_in_texels)
_DERIVATIVE_DIMS = {"1D": 1, "2D": 2, "3D": 3, "ARRAY1D": 1, "ARRAY2D": 2}


def _cube_partials_in_texels(s: Site, P, c: np.ndarray) -> list[np.ndarray]:
    """|d(u, v)/dx| and |d(u, v)/dy| of a cube TXD, in texels, projected onto the face of each
    largest magnitude of the direction (the executor's face, and the other faces of a tie,
    which the implementation may take): (n, 2 * faces) each, float64.  Generated TGSI fragment
    seed 1301 (inputs seed 1300): ``SAMPLE_D ... CUBE`` at (100, 100, -6.5) with a derivative
    of 1e34: the projected partial 4e31 overflows llvmpipe's rho, and its lookup is the base
    level's where the executor's is the last level's."""
    from ..exec.texture_ops import cube_face_partials
    n = len(c)
    mag = np.abs(c[:, :3])
    top = mag.max(axis=1)
    dx = np.asarray(s.operands[1], F32).reshape(n, -1)[:, :3]
    dy = np.asarray(s.operands[2], F32).reshape(n, -1)[:, :3]
    out_x, out_y = [], []
    for axis in range(3):
        face = _axis_face(c, axis)
        with np.errstate(all="ignore"):
            px, py = cube_face_partials(P, c[:, :3], face, dx, dy)
        major = (mag[:, axis] == top)[:, None]
        out_x.append(np.where(major, np.abs(px.astype(np.float64)), 0.0))
        out_y.append(np.where(major, np.abs(py.astype(np.float64)), 0.0))
    return [np.concatenate(out_x, axis=1), np.concatenate(out_y, axis=1)]


def rule_wrapped_lod(s: Site) -> np.ndarray:
    """A llvmpipe/lavapipe defect, not a freedom: an explicit level of detail (TXL's w) at or
    beyond :data:`LLVMPIPE_LOD_WRAP` -- or one computed from explicit derivatives (TXD) that
    reach :data:`LLVMPIPE_RHO_OVERFLOW`, an infinite LOD -- selects the base level instead of
    the last.  Shown by
    recomputation: the implementation's value is the same lookup at the base level --
    magnified (an LOD of -LOD_SPAN) or minified (an LOD of 2^-20, the next level's weight
    negligible) -- within the filtering tolerance of compare.INEXACT["TEX"], every written
    component at one of the two.  Only on the backends that sample
    with llvmpipe's code (gl, gl-spirv, vulkan); below those bounds nothing is permitted
    here."""
    n = len(s.exe)
    none = np.zeros((n, 4), bool)
    if s.ins.op not in ("TXL", "TXD") or s.ins.tex is None or \
            s.backend not in ("gl", "gl-spirv", "vulkan"):
        return none
    from ..exec import texture as tx
    P = s.op.st.textures.get(s.ins.tex.unit)
    if P is None or \
            tx.BASE_TARGET[s.ins.tex.target] == "RECT" or "SHADOW" in s.ins.tex.target or \
            s.ins.tex.target == "ARRAYCUBE":
        return none
    c = np.asarray(s.operands[0], F32).reshape(n, -1).copy()
    if s.ins.op == "TXL":
        wrapped = np.isfinite(c[:, 3]) & (c[:, 3] >= LLVMPIPE_LOD_WRAP)
    else:
        if tx.BASE_TARGET[s.ins.tex.target] == "CUBE":
            scaled = _cube_partials_in_texels(s, P, c)
        else:
            dims = _DERIVATIVE_DIMS.get(tx.BASE_TARGET[s.ins.tex.target])
            if dims is None:
                return none
            size = np.array(P.size[:dims], np.float64)
            with np.errstate(all="ignore"):
                scaled = [np.abs(np.asarray(d, F32)[:, :dims].astype(np.float64)) * size
                          for d in s.operands[1:3]]
        wrapped = np.zeros(n, bool)
        for d in scaled:
            wrapped |= (np.isfinite(d) & (d >= LLVMPIPE_RHO_OVERFLOW)).any(axis=1)
    if not wrapped.any():
        return none
    written = s.written_components()
    ok = np.zeros(n, bool)
    # the base level magnified, or minified (INT_MIN's fraction is 0: llvmpipe's minifying
    # path at level 0, the next level weighted 0 -- an LOD just above 0)
    for lod in (-LOD_SPAN, 2.0 ** -20):
        c[:, 3] = lod
        with np.errstate(all="ignore"):
            r = tx._texture(s.op, "TXL", c)
        r = np.ascontiguousarray(np.broadcast_to(r, (n, 4))).view(U32)
        ok |= (cmp.float_equal(r, s.imp, *cmp.INEXACT["TEX"]) | ~written).all(axis=1)
    return np.broadcast_to((wrapped & ok)[:, None], (n, 4)) & written


def _between_grid(looked: np.ndarray, imp: np.ndarray, written: np.ndarray, tol,
                  shadow: bool, allowed: np.ndarray | None = None) -> np.ndarray:
    """(n,) lanes whose value is a lookup at a level of detail between two neighbouring grid
    points of :func:`rule_lod`, for a texture whose minification filter blends two levels
    (``*_MIPMAP_LINEAR``).  GL 4.5 §8.14.3 (eq. 8.x): tau = (1 - frac(lambda)) tau_1 +
    frac(lambda) tau_2 -- between two integer levels the lookup is linear in lambda, and every
    point where it is not (the integers, the magnification switch at c, the ends of the level
    range) is a grid point, so a grid segment is a straight piece: the lookup at lambda_i + t
    LOD_STEP is ``r_i + t (r_{i+1} - r_i)``.  The grid's step alone misses such values by up
    to LOD_STEP / 2 of a level's difference: llvmpipe's blend at lambda = 0.7451 lies 0.01 from
    either grid point where two texels differ by 2 (cg crt-ddt.fp, a lookup in divergent flow:
    undefined derivatives, so any LOD).  ``t`` is the least-squares fit over the written
    components, and the value must lie within the filtering tolerance of that one lookup."""
    r = np.ascontiguousarray(looked).view(F32).astype(np.float64)       # (levels, n, 4)
    g = np.ascontiguousarray(imp).view(F32).astype(np.float64)          # (n, 4)
    w = np.asarray(written, bool)
    with np.errstate(all="ignore"):
        a, d = r[:-1], r[1:] - r[:-1]
        usable = w[None] & np.isfinite(a) & np.isfinite(d) & np.isfinite(g)[None]
        num = np.where(usable, (g[None] - a) * d, 0.0).sum(axis=2)
        den = np.where(usable, d * d, 0.0).sum(axis=2)
        t = np.clip(np.where(den > 0, num / den, 0.0), 0.0, 1.0)
        fit = (a + t[..., None] * d).astype(F32)
    words = np.ascontiguousarray(fit).view(U32)
    near = cmp.float_equal(words, np.broadcast_to(imp, words.shape), *tol)
    if shadow:                          # w is 1.0 exactly, not filtered
        near[..., 3] = same_words(words[..., 3], np.broadcast_to(imp[:, 3], words.shape[:2]))
    fits = (near | ~w[None]).all(axis=2)
    if allowed is not None:             # a segment whose two ends the lane may take
        window = allowed[:len(looked)]
        fits &= window[:-1] & window[1:]
    return fits.any(axis=0)


#: levels of detail looked up per executor call in :func:`rule_lod`
LOD_BATCH = 64


def _implicit_lookup(s: Site) -> bool:
    """The instruction is a lookup whose LOD comes from implicit derivatives (the executor's
    :func:`xlate.exec.texture._implicit_partials`): TEX/TXB/TXP in a fragment program, and
    TXL on a rectangle texture (GLSL has no LOD for it: ``texture()``)."""
    if s.op.stage != Stage.FRAGMENT or s.ins.tex is None:
        return False
    from ..exec import texture as tx
    if s.ins.op in ("TEX", "TXB", "TXP", "TEX2", "TXB2", "LODQ"):
        return True
    return s.ins.op == "TXL" and tx.BASE_TARGET.get(s.ins.tex.target) == "RECT"


def rule_fine_derivatives(s: Site) -> np.ndarray:
    """An implicit-derivative lookup whose implementation took *fine* differences where the
    executor takes coarse ones.  GLSL 4.50 §8.14.1: "dFdx returns either dFdxCoarse or
    dFdxFine ... The implementation may choose which calculation to perform" (fine: from the
    fragment and its immediate neighbour; coarse: fewer unique locations, one per 2x2 quad),
    and GL 4.5 §8.14.1 leaves rho -- so the derivatives a lookup's LOD is computed from -- to
    the implementation ("an implementation may approximate the ideal rho").  The executor takes the quad's coarse differences
    (xlate/exec/texture.py, one LOD per quad as llvmpipe has it for 2D/3D); Mesa llvmpipe
    (gallivm ``lp_build_cube_lookup``, Mesa 22.3) differentiates a cube map's direction with
    ``lp_build_ddx``/``lp_build_ddy``, which are fine (each pixel's row/column pair), and
    projects them onto each pixel's own face: a cube lookup where the direction varies in
    the quad gets an LOD per pixel (measured: 187 of 187 unclamped lanes of
    ffox-otmc-57.tgsi at exactly that LOD, tests/test_verify_replay.py).

    Shown by recomputation: the same lookup, the same coordinates, with fine derivatives
    (:func:`xlate.exec.texture._texture` ``fine=True``), within the filtering tolerance of
    compare.INEXACT["TEX"] (a shadow lookup's w exactly).  Any other value is not permitted."""
    n = len(s.exe)
    if not _implicit_lookup(s) or s.op.st.textures.get(s.ins.tex.unit) is None:
        return np.zeros((n, 4), bool)
    from ..exec import texture as tx
    op = s.ins.op

    def fine(x, c, extra=None):
        return tx._texture(x, op, c, extra=extra, fine=True)

    r = s.recompute(s.all_operands, fn=fine)
    ok = same_words(r, s.imp)
    if s.op.rt == DataType.FLOAT:           # integer texels are fetched, not filtered
        bound = cmp.INEXACT.get(op, cmp.INEXACT["TEX"])
        ok |= cmp.float_equal(r, s.imp, *bound) & ~_nonfinite(r) & ~_nonfinite(s.imp)
    if "SHADOW" in s.ins.tex.target:         # w is 1.0 exactly, not filtered
        ok[:, 3] = same_words(r[:, 3], s.imp[:, 3])
    return ok


def rule_undefined_derivatives(s: Site) -> np.ndarray:
    """DDX/DDY in non-uniform control flow or after a KIL: GLSL 4.50 §8.14.1 "derivatives are
    undefined within non-uniform control flow" (and §6.4: after a non-uniform ``discard``
    "subsequent implicit or explicit derivatives are undefined"; the assembly models keep
    killed fragments running for their neighbours): any value *of this instruction's result*,
    which the replay adopts -- everything computed from it is checked exactly.

    Not for implicit-LOD lookups there: an undefined derivative only leaves the level of
    detail open, and a lookup at an undefined LOD is still the filtered result at *some* LOD
    in the texture's range (GL 4.5 §8.14: lambda is clamped to [TEXTURE_MIN_LOD,
    TEXTURE_MAX_LOD] whatever rho is).  :func:`rule_lod` shows that by recomputation over every
    level; a lookup it cannot re-run (RECT, shadow cube/array targets) is unexplained."""
    if s.ins.op not in ("DDX", "DDY"):
        return np.zeros(s.exe.shape, bool)
    from .trace import _undefined_derivatives
    hit = s.op.stage == Stage.FRAGMENT and s.op.index in _undefined_derivatives(s.op.st.program)
    return np.full(s.exe.shape, hit)
