"""Comparing executor results with what the implementation produced.

``xlate verify`` compares **strictly** (:func:`same_words`: bit for bit, any two NaNs equal);
every difference then has to be shown permitted by the replay (:mod:`replay`, rules in
:mod:`permits`) or it is a mismatch.  The tolerance rules below are the *looser* comparison
the cgc-GLSL oracle (:mod:`oracle`) still uses, and they define the per-opcode bounds
(:data:`INEXACT`) the replay's ``tolerance`` rule applies at the approximate instruction
itself.  Per output component:

* **Integer results** (the component is written only by integer instructions, or its GLSL
  output is ``ivec4``/``uvec4``): the 32-bit words must be identical.
* **Float results** are compared as IEEE values after modelling what llvmpipe does to them:
  - denormals are flushed to zero on both sides (llvmpipe flushes them in vertex and fragment
    shader arithmetic, toolchain.md §2.7), and +0 equals -0;
  - NaN equals NaN, whatever the payload;
  - otherwise the values must be equal -- *unless* the component depends (through the
    data-flow of :mod:`analysis`) on an opcode in :data:`INEXACT`.  Then a difference of at
    most ``ulps`` units in the last place, or at most ``abs`` absolute, of the loosest such
    opcode is accepted.  Everything else (add, mul, mad, dot products summed in the same
    order, divide, sqrt-based RSQ, conversions, compares, integer ops, derivatives) is exact
    in IEEE float32 and must match bit for bit (modulo the two rules above).
* **Undefined components** are not compared: XPD/NRM/RFL ``.w``, SCS ``.zw`` and everything
  computed from them, components a built-in output does not carry (``gl_PointSize`` has
  only x, ``gl_FragDepth`` only z), and every output of a killed fragment.

Tolerances (``INEXACT``): opcode -> (ulps, absolute).  Measured on llvmpipe (LLVM 15, Mesa
22.3) against NumPy's float32 functions (``tools``-free probe, 20000 values per decade):
exp2 <= 3 ulp on [-126, 127]; log2 <= 3.8e-6 absolute on [2^-60, 2^60]; sin/cos <= 1.2e-7
absolute for |x| < 1e7 -- beyond about 2^24 llvmpipe's range reduction gives garbage (up to
2.0 off), which localization reports as verdict ``range``.  POW/LIT (exp2(y*log2 x)) inherit
log2's absolute error times |y|.  GLSL's own limits are looser (exp2 3+2|x| ulp, log2 3 ulp or
2^-21 absolute near 1, pow inherited, sin/cos none).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..ir.ops import INEXACT as OPS_INEXACT

#: opcode -> (ulps, absolute) accepted for results depending on it: the opcode table's
#: INEXACT (xlate/ir/ops.py), where each approximate opcode has its bound
INEXACT = OPS_INEXACT

#: Verdicts of the departures the replay (:mod:`replay`) adopts, each with the specification
#: passage that permits it and how the rule in :mod:`permits` shows it (the documented contract
#: a program "passes, differences explained" under; ``tools/diffcheck.py`` prints both).  A
#: verdict not in this table is unexplained: a translation or executor bug until shown otherwise.
EXPLANATIONS: dict[str, tuple[str, str]] = {
    "tolerance": (
        "NV_gpu_program4 2.X.8.Z EX2/LG2/POW/SIN/COS/SCS/RSQ/LIT: the results are "
        "approximations (\"ApproxExp2\", \"ApproxLog2\", \"ApproxSine\" ...); GLSL 4.50 "
        "§4.7.1 precision of exp2/log2/pow/inversesqrt; NV_vertex_program2 EXP/LOG "
        "(RoughApprox2ToX/RoughApproxLog2 \"accurate to at least 11 bits\"), "
        "ARB_vertex_program issue 28",
        "permits.rule_tolerance: the approximate instruction's value is within INEXACT's bound "
        "(EX2 8 ulp; LG2 8 ulp or 2^-17; POW/LIT 4096 ulp or 2^-20, or -- exp2(y * log2 x), "
        "GLSL's pow \"inherited\" -- a log2 within |y| times LG2's bound; SIN/COS/SCS 16 ulp or "
        "2^-20; RSQ 4 ulp; NRM/RFL 4 ulp; EXP 4096 ulp; LOG 4096 ulp or 2^-11; filtered TEX* "
        "2^-7) of the executor's result for the same operands; adopted, and every later "
        "instruction must then agree exactly.  Native backend only, GL 2.1 §2.1.1's \"about 1 "
        "part in 10^5\" for float arithmetic: permits.rule_gl_precision, within 1e-5 of the "
        "sum of the magnitudes of the terms the instruction adds (its exact value for one "
        "operation), from the executor's operands"),
    "range": (
        "NV_gpu_program4 2.X.8.Z SIN/COS (ApproxSine/ApproxCosine: no precision is required); "
        "GLSL 4.50 §8.1 sin/cos carry no precision guarantee; GL 4.5 §2.3.4.1 \"about 1 part "
        "in 10^5\" for the texel coordinate of a lookup",
        "permits.rule_range: SIN/COS/SCS of an operand beyond 2^23 in magnitude: any value; "
        "permits.rule_texcoord_range: a float lookup whose texel coordinate reaches 1e5 in a "
        "spatial component (known only to more than a texel): a value within the range of the "
        "texture's texels and border colour"),
    "ftz": (
        "NV_gpu_program4 issue 18: \"Denorms ... are supported, but may be flushed to zero, "
        "preserving the sign bit\"; GLSL 4.50 §4.7.1: a denormalized value may be flushed to 0",
        "permits.rule_ftz: the value equals the executor's result flushed, or the instruction "
        "recomputed with (a subset of) its denormal operands flushed, or a dot product/MAD "
        "with its denormal products flushed, or -- a saturation compares the flushed value, "
        "in range, and moves the value's bits -- the unsaturated result where it is a "
        "denormal; condition codes and KIL decisions of a denormal may take the flushed "
        "value's outcome (replay, each pass of a loop with that pass's outcome); a reader "
        "of a flush adopted from another probe compilation, recomputed with the denormal that "
        "compilation may have kept (replay.flushes); "
        "permits.rule_cube_flushed_reciprocal: a cube lookup whose major axis reaches 2^126 "
        "(1/|ma| a denormal; GLSL 4.50 §4.7.1 defines a / b up to |b| = 2^126) recomputed at "
        "the major axis alone, the face's centre, every written component at once"),
    "nonfinite": (
        "GLSL 4.50 §4.7.1: NaNs are not required to be generated, and operations on NaN or "
        "Inf need not follow IEEE 754 (Mesa folds x*0 -> 0 even for 'precise'); NV_gpu_program4 "
        "issue 18 describes the IEEE behaviour the executor follows",
        "permits.rule_nonfinite: a NaN/Inf among the operand components that reach the result "
        "component (per component for componentwise opcodes; shown by recomputing with finite "
        "words in their place otherwise), a non-finite result, POW/LIT of a base <= 0, TXP with "
        "q = 0, a cube lookup of the zero direction: any value -- but a select (MIN, MAX, CMP) "
        "gives one of its operands or a NaN, a lookup a value its texture can give or a NaN, and "
        "an overflow (ADD, MUL, DP4, EX2 ...) an infinity of its sign or a value of the top "
        "binade; a pack (PK2H ...): only the non-finite component's field, and PK2H's NaN half "
        "any 16-bit NaN"),
    "undefined": (
        "NV_gpu_program4 2.X.8.Z DIV/MOD (integer divisor <= 0 or negative dividend), "
        "SHL/SHR (count < 0 or >= 32); XPD/NRM/RFL w and SCS z/w: \"undefined\"",
        "permits.rule_undefined: any value of those components"),
    "lod": (
        "GL 4.5 §8.14.1: equations 8.7-8.8 \"are often impractical to implement. "
        "Therefore, an implementation may approximate the ideal rho\" (and the LOD with it); "
        "GLSL 4.50 §8.14.1/§6.4: derivatives in non-uniform control flow, and after a "
        "non-uniform discard, are undefined; GLSL 4.50 §8.14.1: dFdx/dFdy are coarse or fine "
        "\"based on implementation choice\"",
        "permits.rule_fine_derivatives: the value is the same lookup with fine derivatives "
        "(each fragment's own row/column pair; llvmpipe's cube maps), within TEX's 2^-7; "
        "permits.rule_lod: the value is the same lookup at one explicit level of detail for "
        "every written component, on a "
        "1/64 grid around the texture's levels (within TEX's 2^-7) or, for *_MIPMAP_LINEAR "
        "filters, on the straight blend between two neighbouring grid points (GL 4.5 "
        "§8.14.3: linear in lambda between levels), or with the coordinates moved as "
        "rule_boundary moves them (a texel edge or the edge of two cube faces, and the LOD: "
        "both freedoms at once), also for lookups whose "
        "derivatives are undefined (the LOD is open, the lookup is at some LOD); DDX/DDY in "
        "non-uniform flow or after a KIL: any value of that instruction, adopted"),
    "implementation": (
        "a defect of the implementation, reduced to a strict-xfail test in "
        "tests/test_verify_cases.py and matched by trace.known_defect (llvmpipe's TXQ with a "
        "varying LOD; Mesa folding umulExtended of constants); or Mesa's GL compiler "
        "evaluating constant expressions otherwise than it runs the same operations (x * 0.0 "
        "folded to +0.0, 1.0 / 0.0 to 0.0: tests/test_verify_folding.py)",
        "permits.rule_implementation: TXQ: the size at the LOD of a fragment of the same "
        "8-lane block, or 0, recomputed; mul-hi of constants on gl: any value; "
        "core._folding_shown: the whole program passes again with no float literal known at "
        "compile time (verify/opaque.py: the same values at run time, nothing to fold)"),
    "signedzero": (
        "GLSL 4.50 §4.7.1 leaves operations on special values to the implementation (Mesa "
        "folds 0 + x to x and x * 0 to +0, losing IEEE's sign of a zero); NV_vertex_program "
        "2.14.1.11 itself defines 0*x = +0 for every x, where the executor's IEEE product "
        "gives -0 (a documented divergence, frontends/nv/vp.py)",
        "permits.rule_signedzero: both results are zeros: the implementation's sign adopted, "
        "so later instructions that tell the zeros apart (RCP, SGE) must agree with it"),
    "boundary": (
        "GL 4.5 §8.14.2 NEAREST: the texel chosen for a coordinate exactly on a texel edge "
        "depends on the implementation's rounding of u = s * width; NV_gpu_program4 2.X.8.Z: "
        "an array layer is the coordinate \"rounded to the nearest integer\", a tie either way",
        "permits.rule_boundary: the value equals the lookup recomputed with the coordinates "
        "moved one ulp down or up (the operands as read, or with their denormals flushed: "
        "the edge at the level a flushed LOD selects), within TEX's filtering tolerance "
        "(2^-7; llvmpipe fetches a NEAREST texel through its linear filter where the SIMD "
        "group also minifies); permits.rule_cube_tie_derivatives: a TXD on a cube whose "
        "direction ties its largest magnitudes (GL 4.5 Table 8.19 leaves the face to the "
        "implementation), recomputed with the texels of one tied face and the derivatives "
        "projected onto another; permits.rule_layer_tie: a layer coordinate k + 0.5, "
        "recomputed at layer k"),
    "reassociated": (
        "native backend (the driver's own ARB program): GL 2.1 §2.1.1 asks of floating-point "
        "results only \"about 1 part in 10^5\" (ARB_fragment_program issue 3, "
        "ARB_vertex_program issue 22: no order is required for compound operations such as "
        "DP4)",
        "permits.rule_reassociated: the value equals the instruction (MAD, DPn, DPH, DP2A, "
        "X2D, LRP, XPD) recomputed with its products added in another order, each rounded or "
        "fused into the addition (FMA)"),
    "propagated": (
        "native backend: GL 2.1 §2.1.1 \"about 1 part in 10^5\" for each operation, and no order "
        "of evaluation required (ARB_vertex_program issue 22, ARB_fragment_program issue 3): a "
        "compilation may fold instructions into one expression, so an instruction is computed "
        "from operands that differ from the earlier instructions' values within their bounds",
        "permits_native.rule_propagated: the driver's value within the spread of the "
        "executor's (spread.py): this operation's 1e-5 of its terms plus each operand's spread "
        "carried through the instruction, recomputed at the ends of the operand's interval (and "
        "at +0/-0 where it holds a pole: a side may be unbounded, RSQ near 0 reaches +inf, the "
        "RCP reading it is bounded again); FLT_MAX for an RCP/RSQ/EX2 that overflowed where an "
        "exact result over the operand's interval lies within 1e-5 of it"),
    "recompiled": (
        "each freedom above is the implementation's choice per compilation: the probe "
        "compilation and the main one may choose differently (llvmpipe flushes a denormal in "
        "one and not the other)",
        "replay.recompiled_lanes (native backend): the lane has a freedom (adopted, or a NaN, "
        "infinite, denormal or undefined operand), no unexplained departure, and the replay "
        "reproduces the complete run of every probe compilation (programs without flow or "
        "KIL)"),
    "nanchoice": (
        "IEEE 754-2008 6.2.3: a NaN result \"should\" carry one of the input NaNs' payloads, "
        "6.3: a NaN's sign is not interpreted; GLSL 4.50 §4.7.1: operations on NaN need not "
        "follow IEEE 754 -- which NaN an operation returns follows the generated code, and "
        "llvmpipe's compilations of one program choose differently",
        "nan_choices: an instruction reading a NaN that a float or double operation wrote, "
        "recomputed with another NaN that operation may have returned (a NaN operand of it, "
        "quieted, or the default NaN, either sign; a PK2H half NaN: its payload, 0x7E00 or "
        "0x7FFF, either sign; a NaN through an fp16 conversion: 0x7FFFFFFF or 0x7FFFE000, "
        "either sign), gives the implementation's value exactly"),
}

F32_MIN_NORMAL = np.float32(1.1754943508222875e-38)


def flush(words: np.ndarray) -> np.ndarray:
    """float32 words with denormals flushed to zero (sign kept)."""
    w = np.asarray(words, np.uint32)
    exp = w & 0x7F800000
    mant = w & 0x007FFFFF
    return np.where((exp == 0) & (mant != 0), w & 0x80000000, w).astype(np.uint32)


def ordered(words: np.ndarray) -> np.ndarray:
    """float32 words -> int64 keys whose difference is the distance in ulps."""
    w = np.asarray(words, np.uint32).astype(np.int64)
    neg = w >= 0x80000000
    mag = w & 0x7FFFFFFF
    return np.where(neg, -mag, mag)


def tolerance_for(ops) -> tuple[int, float]:
    ulps, ab = 0, 0.0
    for op in ops:
        u, a = INEXACT.get(op, (0, 0.0))
        ulps, ab = max(ulps, u), max(ab, a)
    return ulps, ab


def float_equal(expected: np.ndarray, got: np.ndarray, ulps: int = 0,
                absolute: float = 0.0) -> np.ndarray:
    """Element-wise: do float32 words agree under the rules above?"""
    e, g = flush(expected), flush(got)
    ef, gf = e.view(np.float32), g.view(np.float32)
    with np.errstate(all="ignore"):
        same = (ef == gf) | (np.isnan(ef) & np.isnan(gf))
        if ulps or absolute:
            finite = np.isfinite(ef) & np.isfinite(gf)
            dist = np.abs(ordered(e) - ordered(g))
            near = finite & ((dist <= ulps) | (np.abs(ef.astype(np.float64) - gf) <= absolute))
            same |= near
    return same


def canonical_nans(words: np.ndarray) -> np.ndarray:
    """float32 words with every NaN given as the one quiet NaN 0x7FC00000 (words that are
    equal after it are :func:`same_words`)."""
    w = np.asarray(words, np.uint32)
    nan = ((w & 0x7F800000) == 0x7F800000) & ((w & 0x007FFFFF) != 0)
    return np.where(nan, np.uint32(0x7FC00000), w)


def same_words(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Bit-identical words, any two NaNs counting as equal (a NaN's payload is nobody's
    contract).  The verifier's strict comparison: every other difference must be shown
    permitted by :mod:`replay`."""
    a = np.asarray(a, np.uint32)
    b = np.asarray(b, np.uint32)
    nan_a = ((a & 0x7F800000) == 0x7F800000) & ((a & 0x007FFFFF) != 0)
    nan_b = ((b & 0x7F800000) == 0x7F800000) & ((b & 0x007FFFFF) != 0)
    return (a == b) | (nan_a & nan_b)


def within_exact(expected: np.ndarray, got: np.ndarray) -> np.ndarray:
    return float_equal(expected, got)


def diff_lanes(diffs, lanes: int) -> set[int]:
    """The lanes (invocations) the differences ``diffs`` belong to, those below ``lanes``: a
    difference's ``lane``, or for a word or texel of a compute dispatch (kinds ``memory`` and
    ``texel``, whose ``lane`` is the location) the invocation that stored it last
    (``invocation``; none when no invocation did)."""
    out = set()
    for d in diffs:
        lane = d.invocation if d.kind in ("memory", "texel") else d.lane
        if lane is not None and 0 <= lane < lanes:
            out.add(int(lane))
    return out


@dataclass
class Difference:
    """One disagreement."""

    output: str                 # binding text (result.color), or "kill" / "primitives"
    lane: int
    component: int | None
    expected: int | None        # executor word
    got: int | None             # implementation word
    kind: str = "value"         # value | kill | primitives
    detail: str = ""
    tolerance: tuple[int, float] = (0, 0.0)
    integer: bool = False
    #: memory and texel differences of a compute dispatch (``lane`` is then the word or texel):
    #: the invocation that last stored there on the executor's side, None when none did
    invocation: int | None = None

    def describe(self) -> str:
        if self.kind == "atomic":        # an atomic the order rule rejects (gl_compute.py)
            return f"{self.output}: {self.detail}"
        if self.kind == "texel":         # a texel channel of an image (gl_compute.py)
            return (f"{self.output}.{'xyzw'[self.component]}: executor "
                    f"{self.expected} = {fmt_word(self.expected, False)}, implementation "
                    f"{self.got} = {fmt_word(self.got, False)}")
        if self.kind == "memory":        # a word of a storage buffer (gl_compute.py): lane = word
            # untyped words: unsigned and float readings both
            def word(w: int) -> str:
                return f"{w} = {fmt_word(w, False)}"
            return (f"{self.output} word {self.lane} (byte {4 * self.lane}): executor "
                    f"{word(self.expected)}, implementation {word(self.got)}")
        if self.kind != "value":
            return f"{self.output} lane {self.lane}: {self.detail}"
        c = "xyzw"[self.component]
        return (f"{self.output}.{c} lane {self.lane}: executor {fmt_word(self.expected, self.integer)}"
                f", implementation {fmt_word(self.got, self.integer)}")

    def to_json(self) -> dict:
        d = {"output": self.output, "lane": self.lane, "kind": self.kind}
        if self.component is not None:
            d["component"] = "xyzw"[self.component]
        if self.expected is not None:
            d["expected"] = fmt_word(self.expected, self.integer)
            d["expected_bits"] = f"0x{self.expected:08x}"
        if self.got is not None:
            d["got"] = fmt_word(self.got, self.integer)
            d["got_bits"] = f"0x{self.got:08x}"
        if self.detail:
            d["detail"] = self.detail
        if self.invocation is not None:
            d["invocation"] = self.invocation
        if self.tolerance != (0, 0.0):
            d["tolerance"] = {"ulps": self.tolerance[0], "abs": self.tolerance[1]}
        return d


def fmt_word(w: int | None, integer: bool = False) -> str:
    if w is None:
        return "-"
    if integer:
        s = w - (1 << 32) if w & 0x80000000 else w
        return f"{s} (0x{w:08x})"
    v = np.array([w], np.uint32).view(np.float32)[0]
    return f"{float(v)!r} (0x{w:08x})"


@dataclass
class OutputSpec:
    """How to compare one output binding."""

    binding: str
    components: tuple[int, ...]          # components that travel
    integer: tuple[bool, bool, bool, bool]
    tolerance: list[tuple[int, float]] = field(default_factory=lambda: [(0, 0.0)] * 4)
    undefined: tuple[bool, bool, bool, bool] = (False, False, False, False)
    #: components that depend on a value of the implementation that changes from run to run
    #: (analysis.RUN_VARYING: TGSI CLOCK): never compared, strict or not
    varies: tuple[bool, bool, bool, bool] = (False, False, False, False)


def compare_output(spec: OutputSpec, expected: np.ndarray, got: np.ndarray,
                   active: np.ndarray, strict: bool = False) -> tuple[list[Difference], int]:
    """Differences for one output over lanes where ``active``; also the count compared.
    ``strict``: every component, bit for bit (:func:`same_words`) -- the verifier's comparison;
    otherwise the tolerance rules above (the oracle and reports that name a tolerance)."""
    diffs: list[Difference] = []
    compared = 0
    for c in spec.components:
        if (spec.undefined[c] and not strict) or spec.varies[c]:
            continue
        e, g = expected[:, c], got[:, c]
        if spec.integer[c]:
            # an integer's words are compared exactly, strict or not: -766 and -5 have a float
            # NaN's bits (0xFFFFFD02, 0xFFFFFFFB), and same_words took them for one NaN (a
            # generated NV4 fragment's MOV.S of I0.yyzw for I0 passed the verifier so: found
            # by the direct path's mutation campaign, seed 10)
            ok = np.asarray(e, np.uint32) == np.asarray(g, np.uint32)
        elif strict:
            ok = same_words(e, g)
        else:
            ok = float_equal(e, g, *spec.tolerance[c])
        ok |= ~active
        compared += int(active.sum())
        for lane in np.nonzero(~ok)[0]:
            diffs.append(Difference(spec.binding, int(lane), c, int(e[lane]), int(g[lane]),
                                    tolerance=spec.tolerance[c], integer=spec.integer[c]))
    return diffs, compared
