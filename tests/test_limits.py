"""Limits: hostile or enormous inputs are translated or rejected with a diagnostic, never a
traceback, a RecursionError or an unbounded amount of work.

Inputs up to 10 MB: a program of one repeated instruction, a 10 MB single line, 10 MB of
garbage, 10,000 nested IF levels, 100,000 labels, huge register indices, too many
declarations, long chains of subroutines and branches.  Each case asserts the exact outcome.
The size limits are checked on the text before a program is parsed in full (E1008: 131,072
statements / 1,048,576 tokens of NV/ARB text, 1,048,576 tokens of TGSI text, 262,144 tokens of
a token stream, 65,536 TGSI instructions), so the work is proportional to the input; no time
is asserted here (tools/bench_scaling.py measures it), but peak memory is, for the 10 MB cases
(tracemalloc).
"""
from __future__ import annotations

import random
import struct
import tracemalloc

import pytest

import xlate
from xlate import XlateError

MB = 1 << 20


def outcome(src):
    def rows(diags):
        return [(d.severity, d.code, (d.span.line, d.span.col) if d.span else None, d.message)
                for d in diags]
    try:
        t = xlate.translate(src, filename="t", target="spirv")
    except XlateError as e:
        return rows(e.diagnostics)
    assert t.spirv
    return ("ok", rows(t.diagnostics))


def repeat(head: str, body: str, tail: str, size: int = 10 * MB) -> str:
    return head + body * ((size - len(head) - len(tail)) // len(body)) + tail


STATEMENTS = "more than 131072 statements; xlate translates programs of at most 131072"


# ---- 10 MB of one repeated instruction ------------------------------------------------------------
@pytest.mark.parametrize("head,body,tail", [
    ("!!ARBfp1.0\nTEMP R0, R1;\n", "ADD R0, R0, R1;\n", "MOV result.color, R0;\nEND\n"),
    ("!!NVfp4.0\nTEMP R0, R1;\n", "ADD.F R0, R0, R1;\n", "MOV.F result.color, R0;\nEND\n"),
    ("!!VP1.0\n", "ADD R0, R0, v[0];\n", "MOV o[HPOS], R0;\nEND\n"),
], ids=["arbfp", "nv4", "vp1"])
def test_10mb_of_repeated_nv_instructions(head, body, tail):
    assert outcome(repeat(head, body, tail)) == [("error", "E1008", (131074, 1), STATEMENTS)]


def test_10mb_of_repeated_tgsi_instructions():
    src = repeat("FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL TEMP[0]\n",
                 "  ADD TEMP[0], TEMP[0], IN[0]\n", "  MOV OUT[0], TEMP[0]\n  END\n")
    assert outcome(src) == [("error", "E1008", (69908, 1), "more than 1048576 tokens (by line "
                             "69908); xlate reads TGSI programs of at most that many")]


def tgsi_stream(n_add: int) -> bytes:
    """FRAG; DCL IN[0] GENERIC; DCL OUT[0] COLOR; DCL TEMP[0]; ADD TEMP[0], TEMP[0], IN[0] n
    times; MOV OUT[0], TEMP[0]; END -- in Mesa's layout (the ADD token words repeated)."""
    from xlate.diagnostics import DiagnosticSink
    from xlate.frontends.tgsi import binary
    from xlate.frontends.tgsi.text import parse_text
    src = ("FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL TEMP[0]\n"
           "  ADD TEMP[0], TEMP[0], IN[0]\n  MOV OUT[0], TEMP[0]\n  END\n")
    sh = parse_text(src, DiagnosticSink("x", src))
    head = binary.encode_modern(dataclass_replace(sh, instructions=[]))
    one = binary.encode_modern(dataclass_replace(sh, instructions=sh.instructions[:1]))
    rest = binary.encode_modern(dataclass_replace(sh, instructions=sh.instructions[1:]))
    add = one[len(head):]
    body = head[8:] + add * n_add + rest[len(head):]
    return struct.pack("<I", 2 | (len(body) // 4) << 8) + head[4:8] + body


def dataclass_replace(obj, **kw):
    import dataclasses
    return dataclasses.replace(obj, **kw)


def test_10mb_token_stream():
    data = tgsi_stream(10 * MB // 16)
    assert len(data) > 10 * MB
    assert outcome(data) == [("error", "E1008", (1, 1), "word 1048579: more than 262144 tokens; "
                              "xlate reads token streams of at most that many")]


def test_token_stream_over_the_instruction_limit():
    assert outcome(tgsi_stream(70000)) == [
        ("error", "E1008", (1, 1), "70002 instructions; xlate translates TGSI programs of at "
         "most 65536")]


@pytest.mark.slow
def test_token_stream_at_the_instruction_limit_translates():
    assert outcome(tgsi_stream(65536 - 2)) == ("ok", [])


# ---- a 10 MB single line -------------------------------------------------------------------------------
def test_10mb_single_line_nv():
    src = repeat("!!ARBfp1.0 TEMP R0, R1; ", "ADD R0, R0, R1; ", "MOV result.color, R0; END")
    assert outcome(src) == [("error", "E1008", (1, 2097161), STATEMENTS)]


def test_10mb_single_declaration():
    src = "!!ARBfp1.0\nTEMP " + ", ".join(f"T{i}" for i in range(900000)) + ";\nEND\n"
    assert outcome(src) == [("error", "E1008", (2, 4607486), "more than 1048576 tokens; xlate "
                             "translates programs of at most 1048576")]


def test_10mb_single_line_tgsi_immediate():
    src = ("FRAG\nDCL OUT[0], COLOR\nIMM[0] FLT32 {" + "1.0, " * (2 * MB) + "1.0}\n"
           "  MOV OUT[0], IMM[0]\n  END\n")
    assert outcome(src) == [
        ("error", "E1002", (3, 14), "FLT32 immediates take exactly 4 values, found 2097153"),
        ("error", "E2003", (4, 15), "IMM[0] is not declared (the program has 0 immediates)")]


def test_10mb_name():
    assert outcome("!!ARBfp1.0\nTEMP " + "R" * (10 * MB) + ";\nEND\n") == [
        ("error", "E1008", (2, 6), "a name of 10485760 characters; the limit is 256")]


@pytest.mark.parametrize("src,where", [
    ("!!NVfp4.0\nMOV.S result.color, " + "1" * 5000 + ";\nEND\n", (2, 21)),
    ("!!ARBfp1.0\nMOV result.color, program.local[" + "1" * 100000 + "];\nEND\n", (2, 33)),
    ("FRAG\nDCL OUT[0], COLOR\nIMM[0] UINT32 {" + "1" * 5000 + ", 1, 1, 1}\n"
     "  MOV OUT[0], IMM[0]\n  END\n", (3, 16)),
], ids=["nv4-int", "arbfp-index", "tgsi-imm"])
def test_numbers_of_thousands_of_digits(src, where):
    # Python's int() refuses more than 4300 digits (ValueError): E1007 first
    digits = max(len(run) for run in __import__("re").findall(r"[0-9]+", src))
    assert outcome(src) == [("error", "E1007", where, f"a number of {digits} digits; xlate reads "
                             "numbers of at most 1000 digits")]


def test_infinite_index():
    assert outcome("!!ARBfp1.0\nMOV result.color, program.local[1e999];\nEND\n") == [
        ("error", "E2006", (2, 33), "binding index 18446744073709551616 out of range [0, 1023]")]


# ---- 10 MB of garbage --------------------------------------------------------------------------------
def test_10mb_random_bytes():
    data = random.Random(1).randbytes(10 * MB)
    assert outcome(data) == [("error", "E1003", (1, 108), "NUL character in program text")]


@pytest.mark.slow
def test_10mb_random_text():
    rng = random.Random(1)
    text = "".join(rng.choice("abcXYZ012[]{};:.,-+ \n") for _ in range(10 * MB))
    assert outcome(text) == [("error", "E1001", (1, 1), "not a program: it does not start with a "
                              "header such as '!!NVfp4.0'")]
    assert outcome("!!ARBfp1.0\n" + text) == [
        ("error", "E1008", (130963, 18), STATEMENTS),
        ("error", "E1004", (499286, 7), "program has no END statement")]
    assert outcome("FRAG\n" + text) == [
        ("error", "E1008", (103867, 1), "more than 1048576 tokens (by line 103867); xlate reads "
         "TGSI programs of at most that many")]


@pytest.mark.slow
def test_10mb_inputs_in_bounded_memory():
    """Peak Python memory (tracemalloc) of rejecting 10 MB inputs stays a small multiple of the
    input: no syntax tree of the whole program is built."""
    cases = [repeat("!!ARBfp1.0\nTEMP R0, R1;\n", "ADD R0, R0, R1;\n", "END\n"),
             repeat("FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL TEMP[0]\n",
                    "  ADD TEMP[0], TEMP[0], IN[0]\n", "  END\n")]
    for src in cases:
        tracemalloc.start()
        try:
            out = outcome(src)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert out[0][1] == "E1008"
        assert peak < 12 * len(src), peak / MB


# ---- nesting ------------------------------------------------------------------------------------------
# One E4005 per limit, at the first block beyond it (every block nested deeper exceeds it too:
# 10,000 nested IFs used to give 9,952 errors, and counting the open blocks per IF was
# quadratic); the depth checks are O(1) per block (tools/bench_scaling.py, tests/
# test_structurize_cfg.py count the work).

def nested(head: str, open_: str, inner: str, close: str, tail: str, n: int) -> str:
    return head + open_ * n + inner + close * n + tail


NV4_IF = ("!!NVfp4.0\nTEMP R0;\nMOV.F.CC R0, fragment.color;\n", "IF GT.x;\n", "MOV.F R0, 1;\n",
          "ENDIF;\n", "MOV.F result.color, R0;\nEND\n")
NV4_REP = ("!!NVfp4.0\nTEMP R0;\nMOV.F R0, fragment.color;\n", "REP 2;\n", "ADD.F R0, R0, 1;\n",
           "ENDREP;\n", "MOV.F result.color, R0;\nEND\n")
FP2_IF = ("!!ARBfp1.0\nOPTION NV_fragment_program2;\nTEMP R0;\nMOVC R0, fragment.color;\n",
          "IF GT.x;\n", "MOV R0, 1;\n", "ENDIF;\n", "MOV result.color, R0;\nEND\n")
FP2_LOOP = ("!!ARBfp1.0\nOPTION NV_fragment_program2;\nTEMP R0;\nMOV R0, fragment.color;\n",
            "LOOP {2, 0, 1};\n", "ADD R0, R0, 1;\n", "ENDLOOP;\n", "MOV result.color, R0;\nEND\n")
FP2_REP = ("!!ARBfp1.0\nOPTION NV_fragment_program2;\nTEMP R0;\nMOV R0, fragment.color;\n",
           "REP {2};\n", "ADD R0, R0, 1;\n", "ENDREP;\n", "MOV result.color, R0;\nEND\n")
BEYOND = "blocks nested deeper still are not reported again"


@pytest.mark.parametrize("shape,n,expected", [
    (NV4_IF, 10000, [("error", "E4005", (52, 1), "IF nested deeper than 48")]),
    (NV4_IF, 49, [("error", "E4005", (52, 1), "IF nested deeper than 48")]),
    (NV4_IF, 48, ("ok", [])),
    (NV4_REP, 10000, [("error", "E4005", (8, 1), "REP nested deeper than 4")]),
    (NV4_REP, 5, [("error", "E4005", (8, 1), "REP nested deeper than 4")]),
    (NV4_REP, 4, ("ok", [])),
    (FP2_IF, 10000, [("error", "E4005", (53, 1), "IF nested inside 48 IF blocks "
                      "(MAX_PROGRAM_IF_DEPTH_NV)")]),
    (FP2_IF, 48, ("ok", [])),
    (FP2_LOOP, 10000, [("error", "E4005", (9, 1), "LOOP nested inside 4 LOOP/REP blocks "
                        "(MAX_PROGRAM_LOOP_DEPTH_NV)")]),
    (FP2_LOOP, 4, ("ok", [])),
    (FP2_REP, 10000, [("error", "E4005", (9, 1), "REP nested inside 4 LOOP/REP blocks "
                       "(MAX_PROGRAM_LOOP_DEPTH_NV)")]),
], ids=["nv4-if-10000", "nv4-if-49", "nv4-if-48", "nv4-rep-10000", "nv4-rep-5", "nv4-rep-4",
        "fp2-if-10000", "fp2-if-48", "fp2-loop-10000", "fp2-loop-4", "fp2-rep-10000"])
def test_deep_nesting_reports_one_error(shape, n, expected):
    assert outcome(nested(*shape, n)) == expected


def test_deep_nesting_error_says_it_is_reported_once():
    with pytest.raises(XlateError) as e:
        xlate.parse(nested(*NV4_IF, 10000))
    (d,) = e.value.diagnostics
    assert d.notes == (BEYOND,)


def test_each_nesting_limit_reported_once():
    # both limits of GP4 2.X.5 exceeded, twice each (two separate nests): one error per limit
    deep_ifs = "IF GT.x;\n" * 50 + "ENDIF;\n" * 50
    deep_reps = "REP 2;\n" * 6 + "ENDREP;\n" * 6
    src = ("!!NVfp4.0\nTEMP R0;\nMOV.F.CC R0, fragment.color;\n" + deep_ifs + deep_reps +
           deep_ifs + deep_reps + "MOV.F result.color, R0;\nEND\n")
    assert outcome(src) == [("error", "E4005", (52, 1), "IF nested deeper than 48"),
                            ("error", "E4005", (108, 1), "REP nested deeper than 4")]
    mixed = ("!!ARBfp1.0\nOPTION NV_fragment_program2;\nTEMP R0;\nMOV R0, fragment.color;\n"
             + "LOOP {2, 0, 1};\nREP {2};\n" * 3 + "ADD R0, R0, 1;\n" + "ENDREP;\nENDLOOP;\n" * 3
             + "MOV result.color, R0;\nEND\n")
    assert outcome(mixed) == [("error", "E4005", (9, 1), "LOOP nested inside 4 LOOP/REP blocks "
                               "(MAX_PROGRAM_LOOP_DEPTH_NV)")]


def python_calls(fn) -> int:
    """Python and builtin function calls (generator resumptions included) while ``fn`` runs: a
    measure of work that does not depend on the machine (no timed asserts here)."""
    import sys
    n = 0

    def prof(frame, event, arg):
        nonlocal n
        if event in ("call", "c_call"):
            n += 1
    sys.setprofile(prof)
    try:
        fn()
    except XlateError:
        pass
    finally:
        sys.setprofile(None)
    return n


@pytest.mark.parametrize("shape", [NV4_IF, NV4_REP, FP2_IF, FP2_LOOP],
                         ids=["nv4-if", "nv4-rep", "fp2-if", "fp2-loop"])
def test_deep_nesting_work_is_linear(shape):
    # 8x the nesting, at most 9x the work: counting the open blocks at every IF was quadratic
    python_calls(lambda: xlate.parse(nested(*shape, 500)))            # warm caches
    a = python_calls(lambda: xlate.parse(nested(*shape, 500)))
    b = python_calls(lambda: xlate.parse(nested(*shape, 4000)))
    assert b <= 9 * a, b / a


def test_rejected_program_is_freed_before_the_collector_resumes():
    """The traceback of a frontend error kept the half-built program alive past the parse's
    collector pause, and the collection the pause had deferred walked all of it (300k objects
    for 8,000 nested loops; xlate/frontends/__init__.py).  The objects a rejected parse leaves
    to the collector no longer grow with the program."""
    import gc

    def left(n: int) -> int:
        gc.collect()
        gc.disable()
        try:
            before = gc.get_count()[0]
            with pytest.raises(XlateError) as e:
                xlate.parse(nested(*FP2_LOOP, n))
            assert [d.code for d in e.value.diagnostics] == ["E4005"]
            return gc.get_count()[0] - before
        finally:
            gc.enable()
    small = left(500)
    assert left(4000) < small + 5000, (small, left(4000))


def test_deep_nesting_inside_every_subroutine_translates():
    # GP4 2.X.5: the limits are per subroutine; 48 IFs inside 4 REPs in each of a chain of
    # 40 subroutines (call depth beyond 4 is GP4 issue 38: a CAL past it does nothing)
    sub = "REP 2;\n" * 4 + "MOV.F.CC R0, R0;\n" + "IF GT.x;\n" * 48 + "ADD.F R0, R0, 1;\n" + \
        "ENDIF;\n" * 48 + "ENDREP;\n" * 4
    body = "".join(f"s{i}:\n{sub}CAL s{i + 1};\nRET;\n" for i in range(40))
    src = ("!!NVfp4.0\nTEMP R0;\nMOV.F R0, fragment.color;\nCAL s0;\nMOV.F result.color, R0;\n"
           f"RET;\n{body}s40: RET;\nEND\n")
    assert outcome(src) == ("ok", [])


@pytest.mark.parametrize("open_,close", [("IF TEMP[0].xxxx :0", "ENDIF"),
                                         ("BGNLOOP :0", "ENDLOOP :0")])
def test_10000_nested_tgsi_blocks(open_, close):
    # was a RecursionError in the structurizer: now one E4005 at the 65th level
    src = ("FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL TEMP[0]\n"
           "  MOV TEMP[0], IN[0]\n" + f"  {open_}\n" * 10000 + "  BRK\n" * (open_[0] == "B") +
           "  MOV TEMP[0], IN[0].yyyy\n" + f"  {close}\n" * 10000 + "  MOV OUT[0], TEMP[0]\n  END\n")
    op = open_.split()[0]
    assert outcome(src) == [("error", "E4005", (70, 3), f"{op} nested inside 64 blocks; xlate "
                             "translates TGSI blocks (IF/UIF, BGNLOOP, SWITCH) nested at most 64 "
                             "deep")]


def test_64_nested_tgsi_blocks_translate():
    src = ("FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL TEMP[0]\n"
           "  MOV TEMP[0], IN[0]\n" + "  IF TEMP[0].xxxx :0\n" * 64 + "  MOV TEMP[0], IN[0].yyyy\n"
           + "  ENDIF\n" * 64 + "  MOV OUT[0], TEMP[0]\n  END\n")
    assert outcome(src) == ("ok", [])


# ---- labels, branches, subroutines --------------------------------------------------------------------
LABELS = "".join(f"L{i}:\n" for i in range(100000))


@pytest.mark.parametrize("src", [
    "!!NVfp4.0\nTEMP R0;\nMOV.F R0, fragment.color;\nMOV.F result.color, R0;\nRET;\n" + LABELS +
    "RET;\nEND\n",
    "!!ARBvp1.0\nOPTION NV_vertex_program2;\nTEMP R0;\nMOV R0, vertex.position;\n" + LABELS +
    "MOV result.position, R0;\nEND\n",
    "!!VP2.0\nMOV R0, v[0];\n" + LABELS + "MOV o[HPOS], R0;\nEND\n",
    "!!ARBfp1.0\nOPTION NV_fragment_program2;\nTEMP R0;\nMOV R0, fragment.color;\n"
    "MOV result.color, R0;\nRET;\n" + LABELS + "RET;\nEND\n",
], ids=["nv4", "arbvp-nv2", "vp2", "arbfp-nv2"])
def test_100000_labels(src):
    assert outcome(src) == ("ok", [])


def test_tgsi_20000_subroutines():
    src = ("FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL TEMP[0]\n"
           "  MOV TEMP[0], IN[0]\n  MOV OUT[0], TEMP[0]\n  END\n" + "BGNSUB\n  RET\nENDSUB\n" * 20000)
    assert outcome(src) == ("ok", [])


def call_chain(n: int) -> str:
    body = "".join(f"L{i}: ADD.F R0, R0, 1; CAL L{i + 1};\nRET;\n" for i in range(n))
    return ("!!NVfp4.0\nTEMP R0;\nMOV.F R0, fragment.color;\nCAL L0;\nMOV.F result.color, R0;\n"
            f"RET;\n{body}L{n}: RET;\nEND\n")


def test_4000_fall_through_labels_fold_into_one_block():
    # labels that execution falls into (cgc's BBn): one block again, structured, where the
    # dominator tree used to be 4,000 levels deep (a RecursionError before the depth limit)
    from xlate.passes.structurize import structurize
    body = "".join(f"L{i}: ADD R0, R0, vertex.position;\n" for i in range(4000))
    src = ("!!ARBvp1.0\nOPTION NV_vertex_program2;\nTEMP R0;\nMOV R0, vertex.position;\n" + body +
           "MOV result.position, R0;\nEND\n")
    assert outcome(src) == ("ok", [])
    assert structurize(xlate.parse(src)).mode == "structured"


def test_chain_of_2000_subroutine_calls():
    # was a RecursionError (call_order walked the call graph recursively)
    assert outcome(call_chain(2000)) == ("ok", [])


def test_too_many_called_subroutines():
    assert outcome(call_chain(5000)) == [
        ("error", "E7001", None, "5001 called subroutines (at most 4096 GLSL functions) cannot be "
         "expressed in the vulkan profile")]


@pytest.mark.parametrize("n,mode", [(75, "structured"), (1300, "structured")])
def test_long_branch_chains(n, mode):
    # was a RecursionError (the dominator-tree structuring recursed once per block), then the
    # dispatch loop past a recursion-depth bound; the structuring is iterative now and a chain
    # of conditional skips nests only one level deep, so it stays structured at any length
    from xlate.passes.structurize import structurize
    body = "".join(f"L{i}: ADD R0, R0, vertex.position;\nBRA L{i + 1} (GT.x);\n"
                   "MUL R0, R0, R0;\n" for i in range(n))
    src = ("!!ARBvp1.0\nOPTION NV_vertex_program2;\nTEMP R0;\nMOVC R0, vertex.position;\n" + body +
           f"L{n}: MOV result.position, R0;\nEND\n")
    assert outcome(src) == ("ok", [])
    assert structurize(xlate.parse(src)).mode == mode


# ---- huge register indices ------------------------------------------------------------------------------
@pytest.mark.parametrize("src,expected", [
    ("!!VP1.0\nMOV R99999999, v[0];\nMOV o[HPOS], R0;\nEND\n",
     [("error", "E2006", (2, 5), "temporary register R99999999 does not exist (R0-R11)")]),
    ("!!VP1.0\nMOV R0, c[4294967296];\nMOV o[HPOS], R0;\nEND\n",
     [("error", "E2006", (2, 11), "program parameter c[4294967296] does not exist (c[0]-c[95])")]),
    ("!!ARBvp1.0\nMOV result.position, program.env[4294967296];\nEND\n",
     [("error", "E2006", (2, 34), "binding index 4294967296 out of range [0, 4095]")]),
    ("!!NVvp4.0\nPARAM c[4294967296] = { program.local[0..4294967295] };\n"
     "MOV.F result.position, c[0];\nEND\n",
     [("error", "E2006", (2, 39), "binding index 4294967295 out of range [0, 4095]")]),
    ("FRAG\nDCL OUT[0], COLOR\nDCL TEMP[2147483647]\n  MOV OUT[0], TEMP[2147483647]\n  END\n",
     [("error", "E2006", (3, 5), "DCL TEMP[2147483647..2147483647]: register indices are 0..65535"),
      ("error", "E2006", (4, 3), "TEMP[2147483647]: register indices are 0..65535")]),
    ("FRAG\nDCL OUT[0], COLOR\nDCL TEMP[0..2147483647]\n  MOV OUT[0], TEMP[5]\n  END\n",
     [("error", "E2006", (3, 5), "DCL TEMP[0..2147483647]: register indices are 0..65535")]),
    ("FRAG\nDCL OUT[0], COLOR\nDCL CONST[0..2147483647]\n  MOV OUT[0], CONST[5]\n  END\n",
     [("error", "E2006", (3, 5), "DCL CONST[0..2147483647]: register indices are 0..65535")]),
    ("FRAG\nDCL OUT[0], COLOR\nIMM[0] FLT32 {1, 2, 3, 4}\n  MOV OUT[0], IMM[4294967296]\n  END\n",
     [("error", "E1007", (4, 19), "integer 4294967296 does not fit in 32 bits")]),
    ("FRAG\nDCL OUT[0], COLOR\nDCL TEMP[0..3]\nDCL ADDR[0]\n  ARL ADDR[0].x, TEMP[0].xxxx\n"
     "  MOV OUT[0], TEMP[ADDR[0].x+2147483647]\n  END\n", ("ok", [])),
], ids=["R99999999", "c-2^32", "env-2^32", "nv4-param-2^32", "TEMP-2^31", "TEMP-range",
        "CONST-range", "IMM-2^32", "TEMP-relative-2^31"])
def test_huge_register_indices(src, expected):
    assert outcome(src) == expected


# ---- too many declarations ------------------------------------------------------------------------------
def test_too_many_declarations_nv4():
    src = "!!NVfp4.0\n" + "".join(f"TEMP T{i};\n" for i in range(700000)) + \
        "MOV.F result.color, fragment.color;\nEND\n"
    assert outcome(src) == [("error", "E1008", (131074, 1), STATEMENTS)]


def test_too_many_temporaries_arbfp():
    src = "!!ARBfp1.0\nTEMP " + ", ".join(f"T{i}" for i in range(600)) + \
        ";\nMOV result.color, fragment.color;\nEND\n"
    assert outcome(src) == [("error", "E1008", (1, 1), "600 temporaries; the limit is 512 "
                             "(MAX_PROGRAM_TEMPORARIES_ARB)")]


def test_too_many_declarations_tgsi():
    src = "FRAG\nDCL OUT[0], COLOR\n" + "".join(f"DCL TEMP[{i}]\n" for i in range(500000)) + \
        "  MOV OUT[0], TEMP[5]\n  END\n"
    assert outcome(src) == [("error", "E1008", (209716, 1), "more than 1048576 tokens (by line "
                             "209716); xlate reads TGSI programs of at most that many")]


def test_tgsi_full_declaration_range_translates():
    src = ("FRAG\nDCL OUT[0], COLOR\nDCL TEMP[0..65535]\n  MOV TEMP[65535], TEMP[3]\n"
           "  MOV OUT[0], TEMP[65535]\n  END\n")
    assert outcome(src) == ("ok", [])
