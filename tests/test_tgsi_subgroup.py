"""TGSI inter-lane opcodes (issue 20): VOTE_ANY, VOTE_ALL, VOTE_EQ, BALLOT, READ_FIRST,
READ_INVOC.  The executor reduces over a given partition of the lanes into subgroups
(xlate/exec/subgroup.py); ``xlate verify`` learns the implementation's partition from a probe
run of the same draw and re-runs the executor on it (xlate/verify/subgroups.py) -- with the
executor's default partition instead, the same program is a mismatch, so the partition is
shown, not assumed.  READ_INVOC of an inactive invocation is undefined (the lanes the executor
records; the replay adopts only those)."""
from __future__ import annotations

import numpy as np
import pytest

from conftest import gl_runner

from xlate import api, execute
from xlate.diagnostics import XlateError
from xlate.exec import ExecError
from xlate.verify.core import verify_source

PROGRAM = """FRAG
DCL IN[0], GENERIC[0], CONSTANT
DCL OUT[0], COLOR
DCL OUT[1], COLOR[1]
DCL OUT[2], COLOR[2]
DCL OUT[3], COLOR[3]
DCL TEMP[0..4]
IMM[0] UINT32 {0, 1, 2, 3}
  0: VOTE_ANY TEMP[0].x, IN[0].xxxx
  1: VOTE_EQ TEMP[0].y, IN[0].yyyy
  2: VOTE_ALL TEMP[0].zw, IN[0].zzzz
  3: BALLOT TEMP[1].xy, IN[0].zzzz
  4: MOV TEMP[1].zw, IMM[0].xxxx
  5: UIF IN[0].wwww :8
  6:   BALLOT TEMP[1].zw, IN[0].xxxx
  7: ENDIF
  8: READ_FIRST TEMP[2], IN[0]
  9: READ_INVOC TEMP[3], IN[0], IMM[0].zzzz
 10: MOV OUT[0], TEMP[0]
 11: MOV OUT[1], TEMP[1]
 12: MOV OUT[2], TEMP[2]
 13: MOV OUT[3], TEMP[3]
 14: END
"""

SMALL = """FRAG
DCL IN[0], GENERIC[0], CONSTANT
DCL OUT[0], COLOR
DCL TEMP[0..3]
IMM[0] UINT32 {0, 0, 0, 2}
  0: VOTE_ANY TEMP[0].x, IN[0].xxxx
  1: VOTE_EQ TEMP[0].y, IN[0].yyyy
  2: BALLOT TEMP[1].xy, IN[0].zzzz
  3: READ_FIRST TEMP[2], IN[0]
  4: READ_INVOC TEMP[3], IN[0], IMM[0].wwww
  5: MOV OUT[0].xy, TEMP[0]
  6: MOV OUT[0].z, TEMP[1].xxxx
  7: ADD OUT[0].w, TEMP[2].wwww, TEMP[3].wwww
  8: END
"""


def _run(part):
    v = np.zeros((8, 4), np.uint32)
    v[:, 0] = [0, 0, 0, 1, 0, 0, 0, 0]
    v[:, 1] = [5, 5, 5, 5, 5, 5, 5, 6]
    v[:, 2] = [1, 0, 1, 0, 0, 0, 0, 1]
    v[:, 3] = np.float32([1, 2, 3, 4, 5, 6, 7, 8]).view(np.uint32)
    return execute(api.parse(SMALL), {"fragment.generic[0]": v}, subgroups=part).outputs["OUT0"]


def test_executor_reduces_over_the_given_subgroups():
    # two subgroups of 4; the second numbers its invocations backwards
    part = np.array([[0, i] for i in range(4)] + [[1, 3 - i] for i in range(4)])
    out = _run(part)
    ones = 0xFFFFFFFF
    f = lambda x: int(np.float32(x).view(np.uint32))        # noqa: E731
    # group 0: any x; y all 5; ballot of z (1, 0, 1, 0) = 0b0101; first = lane 0 (w 1.0),
    # invocation 2 = lane 2 (w 3.0)
    assert out[0].tolist() == [ones, ones, 0b0101, f(4.0)]
    # group 1: no x; y differs; z set at lane 7 = invocation 0; first = lane 7 (w 8.0),
    # invocation 2 = lane 5 (w 6.0)
    assert out[4].tolist() == [0, 0, 0b0001, f(14.0)]


def test_executor_default_partition_is_blocks_of_sixteen():
    from xlate.exec.subgroup import DEFAULT_SUBGROUP_SIZE, default_partition
    assert DEFAULT_SUBGROUP_SIZE == 16
    assert default_partition(18)[15:].tolist() == [[0, 15], [1, 0], [1, 1]]


@pytest.mark.parametrize("part, message", [
    (np.zeros((8, 3)), "subgroups: expected (8, 2) integers, got shape (8, 3)"),
    (np.array([[0, 64]] * 8), "subgroups: invocation numbers are 0..63"),
    (np.array([[0, 0]] * 8), "subgroups: two lanes have the same subgroup and invocation number"),
])
def test_executor_refuses_a_bad_partition(part, message):
    with pytest.raises(ExecError) as e:
        _run(part)
    assert str(e.value) == message


def test_a_subgroup_cannot_span_chunks():
    with pytest.raises(ExecError) as e:
        execute(api.parse(SMALL), {"fragment.generic[0]": np.zeros((8, 4), np.float32)},
                subgroups=np.array([[0, i] for i in range(8)]), chunk=4)
    assert str(e.value) == "subgroups: subgroup 0 spans two chunks of 4 lanes"


def test_glsl_uses_the_arb_extensions():
    glsl = api.translate(SMALL).glsl
    for ext in ("GL_ARB_shader_group_vote", "GL_ARB_shader_ballot", "GL_ARB_gpu_shader_int64"):
        assert f"#extension {ext} : require\n" in glsl
    assert ("    TEMP1.xy = uvec4(unpackUint2x32(ballotARB(floatBitsToUint(fragment_generic_0.z) "
            "!= 0u)), 0u, 0u).xy;\n") in glsl


def test_direct_spirv_uses_the_khr_extensions():
    from xlate.backends.spirv import disassemble_spirv
    text = disassemble_spirv(api.translate_program(api.parse(SMALL), target="spirv",
                                                   profile="vulkan", via="direct").spirv)
    for word in ('OpExtension "SPV_KHR_shader_ballot"', 'OpExtension "SPV_KHR_subgroup_vote"',
                 "OpSubgroupAnyKHR", "OpSubgroupAllEqualKHR", "OpSubgroupBallotKHR",
                 "OpSubgroupFirstInvocationKHR", "OpSubgroupReadInvocationKHR"):
        assert word in text


@pytest.mark.parametrize("profile", ["glsl330", "es310"])
def test_profiles_without_subgroups_refuse(profile):
    with pytest.raises(XlateError) as e:
        api.translate(SMALL, filename="t.tgsi", profile=profile)
    assert [d.header() for d in e.value.diagnostics] == [
        f"t.tgsi:6:6: error[E7001]: the instruction VOTEANY.U cannot be expressed in the "
        f"{profile} profile"]


BACKENDS = [("gl", "auto"), ("vulkan", "direct"), ("vulkan", "glsl")]


@pytest.mark.parametrize("backend, via", BACKENDS)
def test_subgroup_program_verifies_on_the_probed_partition(backend, via):
    rep = verify_source(PROGRAM, "lanes.tgsi", lanes=256, seed=3, backend=backend,
                        runner=gl_runner(backend), via=via)
    assert rep.status == "pass", (rep.reason, [d.describe() for d in rep.differences[:5]])
    assert rep.compared == 256 * 16
    assert any(n.startswith("subgroups probed: ") for n in rep.notes)
    # the only freedom taken: READ_INVOC of an invocation that is not active
    adopted = {(x["instruction"]["op"], x["verdict"]) for x in rep.localization}
    assert adopted <= {("READINVOC", "undefined")}


def test_the_default_partition_instead_of_the_probed_one_is_a_mismatch(monkeypatch):
    from xlate.exec.subgroup import default_partition
    from xlate.verify import draw_run
    monkeypatch.setattr(draw_run, "probe_partition", lambda runner, profile, lanes:
                        default_partition(lanes))
    rep = verify_source(PROGRAM, "lanes.tgsi", lanes=256, seed=3, backend="gl",
                        runner=gl_runner("gl"))
    assert rep.status == "mismatch"


@pytest.mark.parametrize("op, wrong", [
    ("VOTEANY", "(allInvocationsARB({a} != 0u) ? 0xffffffffu : 0u)"),
    ("VOTEEQ", "(allInvocationsEqualARB({a} == readInvocationARB({a}, 1u)) ? 0xffffffffu : 0u)"),
    ("BALLOT", "uvec4(unpackUint2x32(ballotARB({a} != 0u)).yx, 0u, 0u)"),
    ("READFIRST", "readInvocationARB({a}, 1u)"),
    ("READINVOC", "readInvocationARB({a}, {b} + 1u)"),
])
def test_a_wrong_translation_is_a_mismatch(monkeypatch, op, wrong):
    from xlate.backends.glsl import emitter
    table = dict(emitter.snippet_table())
    table[(op, "U")] = (wrong, ())
    monkeypatch.setattr(emitter, "snippet_table", lambda: table)
    rep = verify_source(PROGRAM, "lanes.tgsi", lanes=256, seed=3, backend="gl",
                        runner=gl_runner("gl"))
    assert rep.status == "mismatch", rep.reason


def test_gl_spirv_is_refused_with_the_reason():
    rep = verify_source(PROGRAM, "lanes.tgsi", lanes=256, seed=3, backend="gl-spirv",
                        runner=gl_runner("gl-spirv"))
    assert (rep.status, rep.reason) == (
        "unsupported", "inter-lane opcodes on gl-spirv: Mesa's GL_ARB_gl_spirv crashes on "
                       "SPV_KHR_shader_ballot modules; the gl and vulkan backends verify them")


#: the inter-lane opcodes after a KILL_IF: lanes with a negative x take the KIL
KILLED = """FRAG
DCL IN[0], GENERIC[0], CONSTANT
DCL OUT[0], COLOR
DCL OUT[1], COLOR[1]
DCL TEMP[0..1]
IMM[0] UINT32 {1, 0, 0, 0}
  0: KILL_IF IN[0].xxxx
  1: BALLOT TEMP[0].xy, IMM[0].xxxx
  2: VOTE_ALL TEMP[0].z, IN[0].yyyy
  3: VOTE_EQ TEMP[0].w, IN[0].zzzz
  4: READ_FIRST TEMP[1], IN[0].wwww
  5: MOV OUT[0], TEMP[0]
  6: MOV OUT[1], TEMP[1]
  7: END
"""
ONE_GROUP = np.array([[0, i] for i in range(8)])


def _killed_run(flags: bool):
    """Lanes 0 and 5 take the KIL; only they have y = 0 and z = 7; w is the lane number."""
    v = np.zeros((8, 4), np.uint32)
    v[:, 0] = np.float32(1.0).view(np.uint32)
    v[[0, 5], 0] = np.float32(-1.0).view(np.uint32)
    v[:, 1] = 1
    v[[0, 5], 1] = 0
    v[[0, 5], 2] = 7
    v[:, 3] = np.arange(8)
    prog = api.parse(KILLED)
    prog.kills_as_flags = flags
    return execute(prog, {"fragment.generic[0]": v}, subgroups=ONE_GROUP)


def test_a_kil_ends_the_invocation_for_the_inter_lane_opcodes():
    res = _killed_run(False)
    assert np.flatnonzero(res.killed).tolist() == [0, 5]
    ones = 0xFFFFFFFF
    alive = [1, 2, 3, 4, 6, 7]
    assert res.outputs["OUT0"][alive].tolist() == [[0b11011110, 0, ones, ones]] * 6
    assert res.outputs["OUT1"][alive, 0].tolist() == [1] * 6       # lane 1 reads first


def test_a_probe_program_flags_a_kil_and_leaves_the_lane_out_of_the_results():
    """Program.kills_as_flags (the verifier's probe programs): lanes 0 and 5 run on and write
    their outputs, and every lane gets the result over the others only -- what the program
    gives its surviving lanes."""
    res = _killed_run(True)
    assert not res.killed.any()
    ones = 0xFFFFFFFF
    assert res.outputs["OUT0"].tolist() == [[0b11011110, 0, ones, ones]] * 8
    assert res.outputs["OUT1"][:, 0].tolist() == [1] * 8


def test_a_probe_program_with_inter_lane_opcodes_keeps_its_kils_as_flags():
    from xlate.backends.glsl import emit_glsl
    from xlate.verify.trace import without_kills
    probe = without_kills(api.parse(KILLED))
    assert probe.kills_as_flags and probe.instructions[0].op == "KIL"
    body = emit_glsl(probe, "glsl450").source.split("void xl_main()\n{\n", 1)[1]
    g = "floatBitsToUint(fragment_generic_0"
    assert body.split("    result_color0 =")[0] == (
        "    if (any(lessThan(fragment_generic_0.xxxx, vec4(0.0)))) xl_killed = true;\n"
        "    TEMP0.xy = uvec4(unpackUint2x32(ballotARB(1u != 0u && !xl_killed)), 0u, 0u).xy;\n"
        f"    TEMP0.z = allInvocationsARB({g}.y) != 0u || xl_killed) ? 0xffffffffu : 0u;\n"
        f"    TEMP0.w = allInvocationsARB(xl_killed || {g}.z) == xl_read_active({g}.z))) ? "
        "0xffffffffu : 0u;\n"
        f"    TEMP1 = xl_read_active({g}.wwww));\n")
    # without inter-lane opcodes a KIL becomes a move, as before
    plain = without_kills(api.parse(KILLED.split("  1:")[0] + "  1: END\n"))
    assert not plain.kills_as_flags and plain.instructions[0].op == "MOV"


def test_the_direct_path_does_not_take_a_probe_program():
    from xlate.backends.spirv_direct import NotCovered, emit_spirv
    from xlate.verify.trace import without_kills
    with pytest.raises(NotCovered, match="a verifier probe program"):
        emit_spirv(without_kills(api.parse(KILLED)))


#: inter-lane opcodes after a KILL_IF that follows a texture lookup, whose freedoms send the
#: verifier to its probes (after generated TGSI fragment seed 718, inputs seed 700)
BALLOT_AFTER_KILL = """FRAG
DCL IN[0], GENERIC[0], PERSPECTIVE
DCL OUT[0], COLOR
DCL OUT[1], COLOR[1]
DCL SAMP[0]
DCL TEMP[0..2]
IMM[0] UINT32 {1, 0, 0, 0}
  0: TXP TEMP[1], IN[0], SAMP[0], 2D
  1: KILL_IF IN[0].xxxx
  2: BALLOT TEMP[0].xy, IMM[0].xxxx
  3: VOTE_EQ TEMP[0].z, IN[0].yyyy
  4: VOTE_ALL TEMP[0].w, IN[0].zzzz
  5: READ_FIRST TEMP[2], IN[0]
  6: MOV OUT[0], TEMP[0]
  7: ADD OUT[1], TEMP[1], TEMP[2]
  8: END
"""


#: the same without its BALLOT: the probe program's READ_FIRST and VOTE_EQ find the first
#: unflagged invocation through a ballot of their own, which needs GL_ARB_gpu_shader_int64
#: (generated TGSI fragment seed 816 was refused without it)
NO_BALLOT = BALLOT_AFTER_KILL.replace("BALLOT TEMP[0].xy, IMM[0].xxxx", "MOV TEMP[0].xy, IMM[0]")


@pytest.mark.parametrize("backend", ["gl", "vulkan"])
@pytest.mark.parametrize("program", [BALLOT_AFTER_KILL, NO_BALLOT], ids=["ballot", "no-ballot"])
def test_a_ballot_after_a_kil_verifies_through_its_probes(backend, program):
    rep = verify_source(program, "kill.tgsi", lanes=256, seed=700, backend=backend,
                        runner=gl_runner(backend))
    assert rep.status == "pass", rep.reason
    assert rep.reason.startswith("differences explained: "), rep.reason


def test_probes_that_count_the_killed_lanes_are_a_mismatch(monkeypatch):
    """The probe programs' BALLOT without the flag (every lane counted, as before): the probes
    depart from the executor at the BALLOT, which the program never does."""
    from xlate.backends.glsl import emitter
    table = dict(emitter.snippet_table())
    table[("BALLOT@flagged", "U")] = table[("BALLOT", "U")]
    monkeypatch.setattr(emitter, "snippet_table", lambda: table)
    rep = verify_source(BALLOT_AFTER_KILL, "kill.tgsi", lanes=256, seed=700, backend="gl",
                        runner=gl_runner("gl"))
    assert (rep.status, rep.reason) == (
        "mismatch", "localized: divergence at 'BALLOT.U TEMP0.xy, {1, 0, 0, 0}.x' (line 10)")


def test_every_lane_opcode_names_its_glsl_extensions():
    """The GLSL backend's extension table covers the opcode table's lane operations exactly."""
    from xlate.backends.glsl.fragment_ops import LANE_EXTENSIONS
    from xlate.ir.ops import LANE_OPS
    assert set(LANE_EXTENSIONS) == LANE_OPS
