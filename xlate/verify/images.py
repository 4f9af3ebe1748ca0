"""The pictures of ``xlate verify --report`` (PNG, written with Pillow).

Fragment programs: a lane is a pixel (the harness's layout, :func:`capture.quad_layout`: lanes 4k..4k+3
are the 2x2 quad k, quads row by row, 64 pixels wide), so each output gets three images of the
same size:

* the **executor's** and the **implementation's** image: the output's x, y, z as red, green,
  blue (a one-component output, ``gl_FragDepth``, in grey; an integer component shows its low 8
  bits); a NaN is magenta; a fragment that side killed is a grey checker; alpha is not drawn
  (it is in the numbers).  Float values are shown as a colour buffer would store them, clamped
  to [0, 1], when every finite value of the output lies there; otherwise -- generated inputs
  give values anywhere -- the range from the 1st to the 99th percentile of the finite values of
  both sides is stretched to [0, 1] (the same for both images, so they stay comparable, and
  printed under them);
* the **difference heat map**: where the two agree bit for bit, the executor's image dimmed to a
  dark grey; where they differ, a colour by how far apart the words are (log2 of the distance in
  units in the last place for floats, of the absolute difference for integers, over 2^32):
  red to yellow for differences nothing explains, blue to cyan for differences the replay
  showed permitted; white where one side killed the fragment and the other did not.

Vertex and geometry programs: a **lane plot** per output -- 64 lanes per row, lane 0 at the top
left, each lane a 2x2 cell of its components (x y / z w); light grey where the component agreed,
the heat colours above where it differed, near-white where the component does not travel
(``gl_PointSize`` has only x), purple on every component of a geometry lane that emitted a
different number of primitives.  A geometry lane is an input primitive; its cell shows the worst
of the vertices it emitted.

Images are scaled up by a whole factor (nearest neighbour) to about 256 pixels wide.  Same words,
same pixels, same PNG bytes (no time stamps or text chunks are written).
"""
from __future__ import annotations

import io

import numpy as np

from . import compare as cmp

LANES_PER_ROW = 64
TARGET_WIDTH = 256
#: lanes drawn (a picture of 2^20 lanes would be 16384 rows of 64 pixels): the report says so
MAX_PICTURE_LANES = 16384

NAN = (255, 0, 255)
KILLED = ((96, 96, 96), (150, 150, 150))            # the checker's two greys
KILL_DIFFERS = (255, 255, 255)
STRUCTURE = (128, 0, 170)
AGREE_PLOT = (215, 215, 215)
ABSENT_PLOT = (247, 247, 247)
UNEXPLAINED = ((150, 0, 0), (255, 235, 0))          # ramp ends: small .. large distance
EXPLAINED = ((0, 60, 170), (80, 220, 255))


def png_bytes(rgb: np.ndarray) -> bytes:
    """An (h, w, 3) uint8 array as PNG bytes, scaled up by a whole factor."""
    from PIL import Image
    h, w, _ = rgb.shape
    k = max(1, TARGET_WIDTH // max(w, 1))
    img = Image.fromarray(np.ascontiguousarray(rgb, np.uint8), "RGB")
    if k > 1:
        img = img.resize((w * k, h * k), Image.Resampling.NEAREST)
    buf = io.BytesIO()
    img.save(buf, format="PNG", optimize=False, compress_level=9)
    return buf.getvalue()


def distance(expected: np.ndarray, got: np.ndarray, integer: bool) -> np.ndarray:
    """How far apart two words are (uint32 arrays of one component): 0 when the strict
    comparison calls them equal."""
    e = np.asarray(expected, np.uint32)
    g = np.asarray(got, np.uint32)
    if integer:
        d = np.abs(e.view(np.int32).astype(np.int64) - g.view(np.int32).astype(np.int64))
    else:
        d = np.abs(cmp.ordered(e) - cmp.ordered(g))
    return np.where(cmp.same_words(e, g), 0, np.maximum(d, 1))


def heat(dist: np.ndarray, explained: np.ndarray) -> np.ndarray:
    """(n,) distances (> 0) -> (n, 3) colours on the ramp of unexplained or explained ones."""
    t = np.clip(np.log2(1.0 + dist.astype(np.float64)) / 32.0, 0.0, 1.0)[:, None]
    lo_u, hi_u = (np.array(c, np.float64) for c in UNEXPLAINED)
    lo_e, hi_e = (np.array(c, np.float64) for c in EXPLAINED)
    u = lo_u + (hi_u - lo_u) * t
    x = lo_e + (hi_e - lo_e) * t
    return np.where(explained[:, None], x, u).round().astype(np.uint8)


# ---- fragment programs ---------------------------------------------------------------------------

def _shown(components: tuple[int, ...]) -> list[int]:
    return [c for c in (0, 1, 2) if c in components] or list(components[:1])


def display_range(out, active: np.ndarray) -> tuple[float, float]:
    """The float values mapped to [0, 1] in both images of one output (see above)."""
    vals = [side[active, c].view(np.float32) for side in (out.executor, out.implementation)
            for c in _shown(out.components) if not out.integer[c]]
    if not vals:
        return 0.0, 1.0
    v = np.concatenate(vals)
    v = v[np.isfinite(v)]
    if not v.size or (v.min() >= 0.0 and v.max() <= 1.0):
        return 0.0, 1.0
    lo, hi = (float(x) for x in np.percentile(v.astype(np.float64), [1.0, 99.0]))
    if not hi > lo:
        lo, hi = lo - 0.5, lo + 0.5
    return lo, hi


def _colours(words: np.ndarray, components: tuple[int, ...], integer,
             span: tuple[float, float]) -> np.ndarray:
    """(lanes, 4) words -> (lanes, 3) uint8, float values from ``span`` to [0, 1]."""
    n = words.shape[0]
    shown = _shown(components)
    lo, hi = span
    chans = []
    nan = np.zeros(n, bool)
    for c in shown:
        w = words[:, c]
        if integer[c]:
            chans.append((w & 0xFF).astype(np.uint8))
            continue
        f = w.view(np.float32)
        nan |= np.isnan(f)
        with np.errstate(all="ignore"):
            t = (np.nan_to_num(f.astype(np.float64), nan=lo) - lo) / (hi - lo)
            chans.append((np.clip(t, 0.0, 1.0) * 255.0 + 0.5).astype(np.uint8))
    if len(chans) == 1:
        rgb = np.stack(chans * 3, axis=-1)
    else:
        while len(chans) < 3:
            chans.append(np.zeros(n, np.uint8))
        rgb = np.stack(chans, axis=-1)
    rgb[nan] = NAN
    return rgb


def _place(values: np.ndarray, lanes: int) -> np.ndarray:
    """(lanes, 3) per-lane colours -> the (h, w, 3) image of the harness's pixel layout."""
    from .capture import quad_layout
    x, y, w, h = quad_layout(lanes)
    img = np.zeros((h, w, 3), np.uint8)
    img[y, x] = values
    return img


def _checker(lanes: int) -> np.ndarray:
    from .capture import quad_layout
    x, y, _, _ = quad_layout(lanes)
    return np.where(((x + y) % 2 == 0)[:, None], np.array(KILLED[0], np.uint8),
                    np.array(KILLED[1], np.uint8))


def fragment_images(out, killed, lanes: int, unexplained: set) -> dict:
    """One fragment output (:class:`evidence.OutputWords`): PNGs "executor",
    "implementation", "heat"; "range" (the values shown from black to full colour) and
    "counts" {"differ", "unexplained", "explained", "kill"} (fragments)."""
    ek, gk = killed
    active = ~(ek | gk)
    span = display_range(out, active)
    exe = _colours(out.executor, out.components, out.integer, span)
    imp = _colours(out.implementation, out.components, out.integer, span)
    checker = _checker(lanes)
    exe[ek] = checker[ek]
    imp[gk] = checker[gk]
    worst = np.zeros(lanes, np.int64)
    bad = np.zeros(lanes, bool)                # a difference nothing explains
    for c in out.components:
        d = distance(out.executor[:, c], out.implementation[:, c], out.integer[c])
        d[~active] = 0
        worst = np.maximum(worst, d)
        for lane in np.nonzero(d)[0]:
            if (out.binding, int(lane), c) in unexplained:
                bad[lane] = True
    differ = worst > 0
    lum = (exe.astype(np.uint16).sum(axis=1) // 3 // 4 + 16).astype(np.uint8)
    hm = np.stack([lum] * 3, axis=-1)
    hm[~active & (ek == gk)] = checker[~active & (ek == gk)]
    if differ.any():
        hm[differ] = heat(worst[differ], ~bad[differ])
    kill = ek != gk
    hm[kill] = KILL_DIFFERS
    counts = {"differ": int(differ.sum()), "unexplained": int(bad.sum()),
              "explained": int((differ & ~bad).sum()), "kill": int(kill.sum())}
    return {"executor": png_bytes(_place(exe, lanes)),
            "implementation": png_bytes(_place(imp, lanes)),
            "heat": png_bytes(_place(hm, lanes)), "range": span, "counts": counts}


# ---- vertex and geometry programs ------------------------------------------------------------------

def lane_plot(out, lanes: int, differences: list, unexplained: set) -> tuple[bytes, dict]:
    """The lane plot of one output of a vertex or geometry program, from the differences of
    the main run (every one, :class:`compare.Difference`); and counts {"lanes", "components"}
    (the lanes that differ, and which components)."""
    rows = -(-max(lanes, 1) // LANES_PER_ROW)
    img = np.empty((rows * 2, LANES_PER_ROW * 2, 3), np.uint8)
    img[:] = ABSENT_PLOT
    lane = np.arange(lanes)
    ly, lx = lane // LANES_PER_ROW, lane % LANES_PER_ROW
    for c in range(4):
        if c in out.components:
            img[2 * ly + (c >> 1), 2 * lx + (c & 1)] = AGREE_PLOT
    worst: dict[tuple[int, int], tuple[int, bool]] = {}     # (lane, c) -> (distance, explained)
    structural = set()
    for d in differences:
        if d.kind == "primitives":
            structural.add(d.lane)
            continue
        if d.output != out.binding or d.component is None or d.lane >= lanes:
            continue
        dist = int(distance(np.array([d.expected], np.uint32), np.array([d.got], np.uint32),
                            d.integer)[0])
        key = (d.lane, d.component)
        ok = (d.output, d.lane, d.component) not in unexplained
        old = worst.get(key)
        worst[key] = (max(dist, old[0]), ok and old[1]) if old else (dist, ok)
    if worst:
        keys = sorted(worst)
        dist = np.array([worst[k][0] for k in keys])
        ok = np.array([worst[k][1] for k in keys])
        colours = heat(dist, ok)
        for (ln, c), col in zip(keys, colours):
            img[2 * (ln // LANES_PER_ROW) + (c >> 1), 2 * (ln % LANES_PER_ROW) + (c & 1)] = col
    for ln in structural:
        if ln < lanes:
            img[2 * (ln // LANES_PER_ROW):2 * (ln // LANES_PER_ROW) + 2,
                2 * (ln % LANES_PER_ROW):2 * (ln % LANES_PER_ROW) + 2] = STRUCTURE
    differing = sorted({ln for ln, _ in worst} | structural)
    comps = "".join("xyzw"[c] for c in sorted({c for _, c in worst}))
    return png_bytes(img), {"lanes": differing, "components": comps,
                            "unexplained": sum(1 for v in worst.values() if not v[1]),
                            "explained": sum(1 for v in worst.values() if v[1]),
                            "structural": sorted(structural)}
