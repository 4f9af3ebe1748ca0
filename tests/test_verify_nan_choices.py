"""Which NaN an operation returns is its compilation's choice (xlate/verify/nan_choices.py): a
reader of a NaN's bits probed in another compilation than the NaN's producer is recomputed with
the NaNs the producer may have returned -- its NaN operands quieted and the default NaN, either
sign (IEEE 754-2008 6.2.3, 6.3) -- and nothing else; a NaN made by integer operations, or a
value that is no NaN, leaves the reader exact."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from conftest import gl_runner
from test_verify_replay import _Record

from xlate import api, execute
from xlate.verify.nan_choices import CHOICES, choices
from xlate.verify.replay import ImplValues, ReplayHook

# two double NaNs (low word first): the executor's DMUL returns the first, quieted
A = (0x80000000, 0xFFFFFFFF)
B = (0x20000000, 0xFFFFFFFF)
SIGN = 0x80000000


def program(first: str) -> str:
    """``first`` writes TEMP[0] from IMM[0] (two doubles); XOR negates both doubles; MOV."""
    return ("FRAG\nDCL OUT[0], COLOR\nDCL TEMP[0..1]\n"
            f"IMM[0] UINT32 {{{A[0]}, {A[1]}, {B[0]}, {B[1]}}}\n"
            f"IMM[1] UINT32 {{0, {SIGN}, 0, {SIGN}}}\n"
            f"  0: {first}\n  1: XOR TEMP[1], TEMP[0], IMM[1]\n  2: MOV OUT[0], TEMP[1]\n"
            "  3: END\n")


DMUL = "DMUL TEMP[0], IMM[0].xyxy, IMM[0].zwzw"
#: the same words as the DMUL's NaN, made by an integer operation: exact bits, no choice
AND = "AND TEMP[0], IMM[0].xyxy, IMM[0].xyxy"


def replay(first: str, produced, xored):
    """The replay hook run against implementation values: the executor's own, with the first
    instruction's words ``produced`` and the XOR's (and the MOV's) ``xored`` (4 words or None:
    the executor's)."""
    prog = api.parse(program(first), filename="nan.tgsi")
    rec = _Record(len(prog.instructions))
    execute(prog, {}, lanes=1, hooks=rec)
    words = dict(rec.words)
    if produced is not None:
        words[0] = np.array([produced], np.uint32)
    if xored is not None:
        words[1] = words[2] = np.array([xored], np.uint32)
    hook = ReplayHook(prog, {k: ImplValues(w) for k, w in words.items()}, 1, "gl")
    execute(prog, {}, lanes=1, hooks=hook)
    return rec.words, hook


def neg(*words):
    return [w ^ SIGN if i % 2 else w for i, w in enumerate(words)]


def test_the_executor_returns_the_first_nan():
    words, hook = replay(DMUL, None, None)
    assert words[0][0].tolist() == [*A, *A]
    assert hook.unexplained == [] and hook.adopted == {}


def test_reader_of_another_compilations_nan_is_recomputed_with_it():
    """The DMUL's probe compilation returned B, the XOR's compilation negated A (llvmpipe on
    tests/test_tgsi_doubles.py 'fma', lane 224): the XOR is the executor's XOR of A."""
    _, hook = replay(DMUL, [*B, *B], neg(*A, *B))
    assert hook.unexplained == []
    # (counted per component: the low words differ)
    assert hook.adopted == {(0, "nonfinite"): 2, (1, "nanchoice"): 1}
    # the default NaN, and either sign, are choices too
    _, hook = replay(DMUL, [*B, *B], neg(0, 0xFFF80000, *A))
    assert hook.unexplained == [] and (1, "nanchoice") in hook.adopted
    _, hook = replay(DMUL, [*B, *B], [*A, *B])
    assert hook.unexplained == [] and (1, "nanchoice") in hook.adopted


@pytest.mark.parametrize("xored", [neg(0x80000001, 0xFFFFFFFF, *B),     # a payload no input has
                                   neg(*A, 0x20000000, 0x7FF00000)])    # INF: no NaN
def test_reader_of_no_possible_nan_departs(xored):
    _, hook = replay(DMUL, [*B, *B], xored)
    assert [(d.index, d.verdict) for d in hook.unexplained] == [(1, "")]


def test_nan_made_by_integer_operations_is_no_choice():
    """The AND writes A's words exactly: a reader that saw other words is a departure, whatever
    NaN those words spell."""
    _, hook = replay(AND, None, neg(*B, *A))
    assert [(d.index, d.components) for d in hook.unexplained] == [(1, (0,))]


#: a float NaN (0 * INF) written to an element of the TEMP array, read back through the
#: address register by an XOR (its bits) -- generated TGSI geometry seed 505, inputs seed 500:
#: a DP3's NaN read by ``UARL ADDR[0], TEMP[ADDR[0].x+2]``; ``{}``: the element written
INDEXED = ("FRAG\nDCL OUT[0], COLOR\nDCL TEMP[0..2]\nDCL ADDR[0]\n"
           "IMM[0] UINT32 {{2139095040, 0, 0, 0}}\nIMM[1] INT32 {{1, 0, 0, 0}}\n"
           "  0: UARL ADDR[0], IMM[1].xxxx\n  1: MUL TEMP[{}], IMM[0].xxxx, IMM[0].yyyy\n"
           "  2: XOR TEMP[0], TEMP[ADDR[0].x+1], IMM[1].yyyy\n  3: MOV OUT[0], TEMP[0]\n"
           "  4: END\n")


@pytest.mark.parametrize("element, explained", [(2, True), (1, False)])
def test_a_nan_read_through_an_address_register_is_a_choice_of_its_element(element, explained):
    """The reader's compilation took the positive default NaN where the executor's MUL gave
    x86's negative one: explained when the element the address selects (1 + 1) holds the
    MUL's NaN; the same bits read from an element the MUL did not write (TEMP[2], zeros) are a
    departure."""
    prog = api.parse(INDEXED.format(element), filename="idx.tgsi")
    rec = _Record(len(prog.instructions))
    execute(prog, {}, lanes=1, hooks=rec)
    words = dict(rec.words)
    words[2] = words[3] = np.array([[0x7FC00000] * 4], np.uint32)
    hook = ReplayHook(prog, {k: ImplValues(w) for k, w in words.items()}, 1, "gl")
    execute(prog, {}, lanes=1, hooks=hook)
    if explained:
        assert rec.words[1][0].tolist() == [0xFFC00000] * 4
        assert hook.unexplained == [] and hook.adopted == {(2, "nanchoice"): 4}
    else:
        assert [(d.index, d.verdict) for d in hook.unexplained] == [(2, "")]


def test_a_nan_read_through_an_address_register_in_a_later_chunk():
    """The replay's lanes count from the run's first lane, the registers from their chunk's:
    the element read on a lane of the second chunk is that lane's (a compute run holds one
    workgroup at a time -- generated TGSI compute seed 1019, inputs seed 1000, read past the
    chunk's registers)."""
    prog = api.parse(INDEXED.format(2), filename="idx.tgsi")
    rec = _Record(len(prog.instructions))
    execute(prog, {}, lanes=8, chunk=4, hooks=rec)
    # (the recorder keeps the last chunk's words; every lane computes the same)
    words = {k: np.tile(w, (2, 1)) for k, w in rec.words.items()}
    words[2] = words[3] = np.full((8, 4), 0x7FC00000, np.uint32)
    hook = ReplayHook(prog, {k: ImplValues(w) for k, w in words.items()}, 8, "gl")
    execute(prog, {}, lanes=8, chunk=4, hooks=hook)
    assert hook.unexplained == [] and hook.adopted == {(2, "nanchoice"): 32}


def test_choices_of_a_double_operation():
    """Per double holding a NaN: the result itself, the default NaN, each NaN operand quieted
    (a signalling NaN gains bit 51), each with either sign; the other double is kept."""
    x = SimpleNamespace(inst=SimpleNamespace(op="DADD"), rt=None)
    signalling = np.array([[1, 0x7FF00000, 0, 0x3FF00000]], np.uint32)     # sNaN, 1.0
    out = np.array([[5, 0x7FF80000, 0, 0x40000000]], np.uint32)           # qNaN, 2.0
    alts, mask = choices(x, [signalling, signalling], out)
    assert alts.shape == (CHOICES, 1, 4)
    assert mask.tolist() == [[True, True, False, False]]
    got = {tuple(a[0].tolist()) for a in alts}
    want = {(5, 0x7FF80000), (0, 0x7FF80000), (1, 0x7FF80000)}
    want |= {(lo, hi ^ SIGN) for lo, hi in want}
    assert got == {(lo, hi, 0, 0x40000000) for lo, hi in want}
    assert choices(x, [signalling, signalling], np.array([[0, 0, 0, 0x40000000]], np.uint32)) \
        is None


BAD_NEGATION = """uvec4 xl_badneg(uvec4 a) {
    return a ^ uvec4(0u, 0x80000000u, 0u, 0x80000000u)
             ^ uvec4(greaterThan(a & 0x7fffffffu, uvec4(0x7f800000u)));
}
"""


def test_reader_wrong_only_on_nan_lanes_is_a_mismatch(monkeypatch):
    """The double negation (an XOR of the sign words) flipping bit 0 of each word that is a
    float NaN pattern -- wrong only where it reads a NaN, in the main shader and in every probe
    shader: no NaN a producer may choose explains it (without the flip 'fma' passes,
    tests/test_tgsi_doubles.py)."""
    import re

    from xlate.backends import glsl
    from xlate.verify.core import verify_source
    from test_tgsi_doubles import VERIFY
    right = glsl.emit_glsl

    def emit(*args, **kw):
        out = right(*args, **kw)
        src, n = re.subn(r"(\w+\([^()]*\)|\w+) \^ uvec4\(0u, 0x80000000u, 0u, 0x80000000u\)",
                         r"xl_badneg(\1)", out.source)
        assert n, out.source
        out.source = src.replace("void xl_main()", BAD_NEGATION + "\nvoid xl_main()")
        return out
    monkeypatch.setattr(glsl, "emit_glsl", emit)
    rep = verify_source(VERIFY["fma"], "fma.tgsi", lanes=4096, seed=1, backend="gl",
                        runner=gl_runner("gl"))
    assert rep.status == "mismatch", rep.reason
    assert rep.reason == "localized: divergence at 'XOR.U %dm2, TEMP3, " \
        "{0, 0x80000000, 0, 0x80000000}' (line 10)", rep.reason


#: PK2H of two float NaNs (x: the default NaN, negative; y: all payload bits), read by IMAX as
#: an integer -- generated TGSI tess_control seed 706 (inputs seed 700): llvmpipe's probe of the
#: PK2H kept the payloads, its compilation of the IMAX read 0xFFFF for x's half
PACKED = ("FRAG\nDCL OUT[0], COLOR\nDCL TEMP[0..1]\n"
          "IMM[0] UINT32 {4290772992, 2147483647, 0, 0}\nIMM[1] INT32 {0, 0, 0, 0}\n"
          "  0: PK2H TEMP[0], IMM[0]\n  1: IMAX TEMP[1], TEMP[0], IMM[1]\n"
          "  2: MOV OUT[0], TEMP[1]\n  3: END\n")


def replay_packed(packed, read):
    prog = api.parse(PACKED, filename="pk2h.tgsi")
    rec = _Record(len(prog.instructions))
    execute(prog, {}, lanes=1, hooks=rec)
    words = dict(rec.words)
    if packed is not None:
        words[0] = np.array([[packed] * 4], np.uint32)
    words[1] = words[2] = np.array([[read] * 4], np.uint32)
    hook = ReplayHook(prog, {k: ImplValues(w) for k, w in words.items()}, 1, "gl")
    execute(prog, {}, lanes=1, hooks=hook)
    return rec.words, hook


def test_choices_of_a_half_pack():
    """Each 16-bit NaN of the word: kept, the default 0x7E00, all payload bits 0x7FFF, or its
    float's payload (quieted, truncated), each with either sign -- one choice for both NaN
    halves (one conversion) and every component (one word); a finite half is kept."""
    x = SimpleNamespace(inst=SimpleNamespace(op="PK2H"), rt=None)
    src = np.array([[0xFFC00000, 0x7FA46000, 0x3F800000, 0]], np.uint32)
    out = np.array([[0x7E09FE00] * 4], np.uint32)                  # y payload lost: 0x7E09
    alts, mask = choices(x, [src], out)
    assert mask.tolist() == [[True] * 4]
    assert all(len(set(a[0].tolist())) == 1 for a in alts)
    got = {int(a[0, 0]) for a in alts}
    want = set()
    for lo, hi in ((0xFE00, 0x7E09), (0xFE00, 0x7E00), (0xFFFF, 0x7FFF), (0xFE00, 0x7F23)):
        want |= {lo | hi << 16, (lo ^ 0x8000) | (hi ^ 0x8000) << 16}
    assert got == want
    # a word whose halves are no NaN (an infinity, 1.0) has no choice
    assert choices(x, [src], np.array([[0x3C007C00] * 4], np.uint32)) is None
    # one NaN half: the finite half is kept in every choice
    alts, _ = choices(x, [src], np.array([[0x3C00FE00] * 4], np.uint32))
    assert {int(a[0, 0]) >> 16 for a in alts} == {0x3C00}


def test_choices_of_a_half_unpack():
    """UP2H's float NaN is the conversion's: the half's payload kept (the executor: a signalling
    0x7FB34000), quieted (0x7FF34000), the default NaN, or the fp16 round trip's all-payload
    0x7FFFFFFF / 0x7FFFE000 (llvmpipe: generated ARBfp+NV2 fragment 3101), either sign; a
    finite component is kept, and no operand passes its bits on as a NaN."""
    x = SimpleNamespace(inst=SimpleNamespace(op="UP2H", precision=None), rt=None)
    packed = np.array([[0x7D9A7D9A] * 4], np.uint32)
    out = np.array([[0x7FB34000, 0x3F800000, 0x7FB34000, 0x3F800000]], np.uint32)
    alts, mask = choices(x, [packed], out)
    assert mask.tolist() == [[True, False, True, False]]
    got = {int(w) for w in alts[:, 0, 0]}
    assert got == {w ^ sign for w in (0x7FB34000, 0x7FF34000, 0x7FC00000, 0x7FFFFFFF, 0x7FFFE000)
                   for sign in (0, SIGN)}
    assert {int(w) for w in alts[:, 0, 1]} == {0x3F800000}


def test_reader_of_another_compilations_half_nan_is_recomputed_with_it():
    words, hook = replay_packed(None, 0x7FFFFFFF)
    assert words[0][0].tolist() == [0x7FFFFE00] * 4          # the executor keeps the payloads
    assert hook.unexplained == [] and hook.adopted == {(1, "nanchoice"): 4}


@pytest.mark.parametrize("read", [0x7FFFFFFE,      # no conversion writes 0xFFFE
                                  0x7C00FE00])     # y's NaN read as an infinity
def test_reader_of_no_possible_half_nan_departs(read):
    _, hook = replay_packed(None, read)
    assert [(d.index, d.verdict) for d in hook.unexplained] == [(1, "")]


@pytest.mark.parametrize("packed, permitted", [
    (0x7FFFFFFF, True),          # both NaN halves written as 0x7FFF, with their signs
    (0x7E00FE01, True),          # any NaN, as long as it is one
    (0x7FFF3C00, False),         # x's NaN written as 1.0
])
def test_a_half_nan_is_any_half_nan_and_nothing_else(packed, permitted):
    words, hook = replay_packed(packed, packed)
    assert words[0][0].tolist() == [0x7FFFFE00] * 4
    if permitted:
        assert hook.unexplained == [] and hook.adopted == {(0, "nonfinite"): 4}
    else:
        assert [(d.index, d.verdict) for d in hook.unexplained] == [(0, "")]


def test_the_finite_half_of_a_word_packing_a_nan_is_exact():
    """y = 1.0 beside x's NaN: a y half other than 0x3C00 is no freedom (before, x's NaN let the
    whole word be anything)."""
    prog = api.parse(PACKED.replace("2147483647", "1065353216"), filename="pk2h.tgsi")
    rec = _Record(len(prog.instructions))
    execute(prog, {}, lanes=1, hooks=rec)
    assert rec.words[0][0].tolist() == [0x3C00FE00] * 4
    for packed, ok in ((0x3C00FFFF, True), (0x3C01FE00, False)):
        words = dict(rec.words)
        words[0] = words[1] = words[2] = np.array([[packed] * 4], np.uint32)
        hook = ReplayHook(prog, {k: ImplValues(w) for k, w in words.items()}, 1, "gl")
        execute(prog, {}, lanes=1, hooks=hook)
        assert (hook.unexplained == []) == ok, packed


@pytest.mark.parametrize("packed, permitted", [(0x00FF80FF, True),    # NaN's byte: any value
                                               (0x00FF81FF, False)])  # 0.5's byte: exact
def test_a_unorm_pack_of_a_nan_frees_that_byte_only(packed, permitted):
    """PK4UB of (NaN, 0.5, 1.0, 0.0): clamping the NaN is an operation on it (GLSL 4.50
    §4.7.1), so its byte may be anything; the other three bytes are exact."""
    prog = api.parse("FRAG\nDCL OUT[0], COLOR\nDCL TEMP[0]\n"
                     "IMM[0] UINT32 {2143289344, 1056964608, 1065353216, 0}\n"
                     "  0: PK4UB TEMP[0], IMM[0]\n  1: MOV OUT[0], TEMP[0]\n  2: END\n",
                     filename="pk4ub.tgsi")
    rec = _Record(len(prog.instructions))
    execute(prog, {}, lanes=1, hooks=rec)
    assert rec.words[0][0].tolist() == [0x00FF8000] * 4
    words = {k: np.array([[packed] * 4], np.uint32) for k in rec.words}
    hook = ReplayHook(prog, {k: ImplValues(w) for k, w in words.items()}, 1, "gl")
    execute(prog, {}, lanes=1, hooks=hook)
    if permitted:
        assert hook.unexplained == [] and hook.adopted == {(0, "nonfinite"): 4}
    else:
        assert [(d.index, d.verdict) for d in hook.unexplained] == [(0, "")]


#: a NaN (INF * 0) written to a SHORT temporary -- converted to fp16 and back -- then through
#: a DP3 to UP2US, which reads its bits (generated ARBfp+NV2 fragment seed 908, inputs seed
#: 900: llvmpipe's SHORT temporary held 0x7FFFFFFF where the executor's held the default NaN)
THROUGH_FP16 = """!!ARBfp1.0
OPTION NV_fragment_program2;
SHORT TEMP h;
TEMP r, d;
RCP r.x, 0.0;
MUL r.y, r.x, 0.0;
MOV h, r.y;
DP3 d, -h, {-2.5, 0.25, 3.0, 0.0};
UP2US result.color, d.y;
END
"""


@pytest.mark.parametrize("short, explained", [(True, True), (False, False)])
def test_a_nan_through_fp16_may_come_back_with_every_payload_bit(short, explained):
    """The NaN's fp16 round trip (FP16_NANS) is a choice of the SHORT write, and passes through
    the DP3 that reads it: UP2US of 0x7FFFFFFF is explained.  Without the SHORT (a full-precision
    temporary) no conversion made the NaN, and the same bits are a departure."""
    text = THROUGH_FP16 if short else THROUGH_FP16.replace("SHORT TEMP h;\nTEMP r, d;",
                                                          "TEMP h, r, d;")
    prog = api.parse(text, filename="fp16.fp")
    assert (prog.instructions[2].precision == "FP16") == short
    rec = _Record(len(prog.instructions))
    execute(prog, {}, lanes=1, hooks=rec)
    assert rec.words[3][0].tolist() == [0x7FC00000] * 4            # the executor's DP3 NaN
    words = dict(rec.words)
    words[2] = words[3] = np.array([[0x7FFFFFFF] * 4], np.uint32)
    words[4] = np.array([[0x3F800000, 0x3EFFFF00] * 2], np.uint32)  # UP2US of 0x7FFFFFFF
    hook = ReplayHook(prog, {k: ImplValues(w) for k, w in words.items()}, 1, "gl")
    execute(prog, {}, lanes=1, hooks=hook)
    if explained:
        assert hook.unexplained == [] and hook.adopted == {(4, "nanchoice"): 4}
    else:
        assert [(d.index, d.verdict) for d in hook.unexplained] == [(4, "")]
