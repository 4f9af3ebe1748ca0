"""``xlate verify --backend native``: the original ARB program on the driver's own assembly
interface (Mesa llvmpipe's compatibility profile), compared with the executor.  Skipped only
where no GL implementation exists."""
from __future__ import annotations

import numpy as np
import pytest

from xlate.verify import native, native_state
from xlate.verify.core import verify_source
from xlate.verify.glapi import GLUnavailable

_runner: list = []


def runner_or_skip():
    if not _runner:
        try:
            _runner.append(native.Runner())
        except GLUnavailable as e:
            _runner.append(e)
    r = _runner[0]
    if isinstance(r, GLUnavailable):
        pytest.skip(f"no GL implementation with an assembly program interface: {r}")
    return r


FP = """!!ARBfp1.0
TEMP r;
MUL r, fragment.texcoord[0], program.local[0];
ADD r.x, r.x, fragment.color.y;
RCP r.z, r.y;
MAD r.w, fragment.texcoord[1].x, r.x, program.env[2].y;
MOV result.color, r;
END
"""

VP = """!!ARBvp1.0
TEMP r;
DP4 result.position.x, state.matrix.mvp.row[0], vertex.position;
DP4 result.position.y, state.matrix.mvp.row[1], vertex.position;
DP4 result.position.z, state.matrix.mvp.row[2], vertex.position;
DP4 result.position.w, state.matrix.mvp.row[3], vertex.position;
ADD r, vertex.attrib[6], program.env[1];
SLT r.y, r.x, vertex.texcoord[2].y;
MOV result.texcoord[1], r;
MOV result.color, vertex.texcoord[2];
MOV result.color.back, vertex.attrib[6];
MOV result.pointsize, vertex.attrib[6].y;
MOV result.fogcoord.x, vertex.normal.w;
END
"""

KIL = """!!ARBfp1.0
KIL fragment.texcoord[0];
MOV result.color, fragment.texcoord[0];
END
"""


def test_arbfp_passes_natively():
    r = runner_or_skip()
    rep = verify_source(FP, "fp.fp", backend="native", runner=r, lanes=256)
    assert rep.status == "pass", (rep.reason, [d.describe() for d in rep.differences[:3]])
    assert rep.compared == 256 * 4


def test_arbvp_passes_natively_every_output_captured():
    r = runner_or_skip()
    rep = verify_source(VP, "vp.vp", backend="native", runner=r, lanes=256)
    assert rep.status == "pass", (rep.reason, [d.describe() for d in rep.differences[:3]])
    # position, texcoord[1], colour, back colour: 4 components; point size, fog: x
    assert rep.compared == 256 * (4 * 4 + 2)
    assert not [n for n in rep.notes if "not compared" in n]


def test_kill_masks_compared():
    r = runner_or_skip()
    rep = verify_source(KIL, "k.fp", backend="native", runner=r, lanes=256)
    assert rep.status == "pass", rep.reason


def test_nv_option_is_unsupported_with_the_driver_message():
    r = runner_or_skip()
    if "GL_NV_fragment_program2" in r.gl.extensions:
        pytest.skip("this driver accepts NV_fragment_program2")
    text = "!!ARBfp1.0\nOPTION NV_fragment_program2;\nMOV result.color, fragment.texcoord[0];\nEND\n"
    rep = verify_source(text, "nv.fp", backend="native", runner=r, lanes=64)
    assert rep.status == "unsupported"
    assert rep.reason.startswith("driver refuses the program: ")
    assert "option" in rep.reason.lower()         # Mesa: "invalid ARB fragment program option"


def test_wrong_executor_gives_mismatch(monkeypatch):
    """The comparison can fail: an executor whose ADD subtracts disagrees with the driver."""
    r = runner_or_skip()
    from xlate.exec import machine
    monkeypatch.setitem(machine.EXECUTORS, "ADD", lambda x, a, b: a - b)
    rep = verify_source(FP, "fp.fp", backend="native", runner=r, lanes=256)
    assert rep.status == "mismatch"
    # the probes of the original text localize it: the ADD is the first departure, and no
    # rule permits a subtraction's result in its place
    assert rep.reason == "localized: divergence at 'ADD.F r.x, r.x, fragment.color.y' (line 4)"
    first = rep.localization[0]
    assert first["verdict"] == "divergence" and first["instruction"]["index"] == 1
    assert {d.output for d in rep.differences} == {"result.color"}
    assert rep.inputs_of                           # the inputs of differing lanes


def test_state_is_read_back_through_the_driver():
    """state.* values the executor gets are what the driver reads (mvp = projection *
    modelview as the driver computes it), not the generated rows."""
    r = runner_or_skip()
    mvp = {"state.matrix.mvp.row[0]": np.array([1.5, 2, 3, 4], np.float32).view(np.uint32)}
    native_state.set_state(r, mvp)               # mvp alone: loaded as the modelview matrix
    got = native_state.read_state(r, "vertex", list(mvp))
    assert list(got["state.matrix.mvp.row[0]"].view(np.float32)) == [1.5, 2, 3, 4]
    mv = {"state.matrix.modelview[0].row[1]": np.array([0, 0.5, 0, 0], np.float32).view(np.uint32),
          "state.matrix.modelview[0].inverse.row[1]": np.zeros(4, np.uint32)}
    native_state.set_state(r, mv)                # the inverse is the driver's arithmetic
    got = native_state.read_state(r, "fragment", list(mv))
    assert list(got["state.matrix.modelview[0].inverse.row[1]"].view(np.float32)) == [0, 2, 0, 0]


def test_driver_refusal_names_the_line():
    r = runner_or_skip()
    rep = verify_source("!!ARBvp1.0\nMOV result.position, vertex.position;\nEND;\n", "e.vp",
                        backend="native", runner=r, lanes=16)
    if rep.status == "error":
        pytest.skip("xlate rejects this text itself")
    assert rep.status == "unsupported" and "line 3" in rep.reason


def test_interface_edits_rename_outputs_only():
    text = "!!ARBvp1.0\nOPTION ARB_position_invariant;\nMOV result.color.front.primary.xyz, " \
           "vertex.color;   # result.color\nMOV result.color.back, vertex.color;\nEND\n"
    out = native.rename_results(text, native.SWAP)
    assert "MOV result.color.back.xyz, vertex.color;" in out
    assert "MOV result.color, vertex.color;" in out
    out = native.insert_prologue(native.drop_option(text, "ARB_position_invariant"),
                                 ["MOV result.position, vertex.attrib[15];"])
    assert out.index("MOV result.position") < out.index("MOV result.color.front")
    assert "OPTION ARB_position_invariant;" not in out


def test_header_targets():
    assert native.TARGETS[native.header("  !!ARBfp1.0\n")][0] == native.GL_FRAGMENT_PROGRAM_ARB
    assert native.TARGETS["!!VP1.1"] == (native.GL_VERTEX_PROGRAM_ARB, "nv")
    assert native.TARGETS["!!FP1.0"][0] == native.GL_FRAGMENT_PROGRAM_NV
    assert native.TARGETS["!!NVgp4.0"][0] == native.GL_GEOMETRY_PROGRAM_NV


def test_fog_blends_the_clamped_color():
    """Found by the native backend (llvmpipe): ARBFP 3.11.4.5.1 applies fog to "the program's
    final clamped color"; the executor blended the unclamped colour."""
    from xlate.exec import execute
    text = "!!ARBfp1.0\nOPTION ARB_fog_linear;\nMOV result.color, fragment.color;\nEND\n"
    f32 = lambda *v: np.array(v, np.float32)                      # noqa: E731
    res = execute(text, inputs={"fragment.color": f32(3, -1, 0.5, 7),
                                "fragment.fogcoord": f32(0.5, 0, 0, 1)},
                  params={"state.fog.params": f32(0, 0, 1, 1), "state.fog.color": f32(0, 0, 0, 0)},
                  lanes=4)
    out = next(iter(res.outputs.values()))[0].view(np.float32)
    assert list(out) == [0.5, 0.0, 0.25, 1.0]


def test_passthrough_fragment_flat_reads_flat_attributes():
    """On a driver with NV_fragment_program4 the capture program declares its inputs FLAT
    (interpolation turns Inf into NaN on NVIDIA's), except the fog coordinate (a FLAT one
    reads 0.0 there)."""
    assert native.passthrough_fragment(["fragment.texcoord[2]", "fragment.fogcoord"],
                                       flat=True) == (
        "!!NVfp4.0\nOPTION ARB_draw_buffers;\n"
        "FLAT ATTRIB xl_in0 = fragment.texcoord[2];\nATTRIB xl_in1 = fragment.fogcoord;\n"
        "MOV result.color[0], xl_in0;\nMOV result.color[1], xl_in1;\nEND\n")
    assert native.passthrough_fragment(["fragment.color.primary"]) == (
        "!!ARBfp1.0\nOPTION ARB_draw_buffers;\nMOV result.color[0], fragment.color.primary;\n"
        "END\n")


def test_delivered_fragment_inputs_are_what_the_program_reads():
    """The read-back gives the words a fragment program receives: finite values bit for bit,
    one value per quad, the fog coordinate's constant components as the GL supplies them."""
    r = runner_or_skip()
    lanes = 16
    tc = np.arange(lanes * 4, dtype=np.float32).reshape(lanes, 4) * np.float32(0.37) - 3
    fog = np.zeros((lanes, 4), np.float32)
    fog[:, 0] = np.linspace(-2, 2, lanes, dtype=np.float32)
    inputs = {"fragment.texcoord[1]": tc.view(np.uint32).copy(),
              "fragment.fogcoord": fog.view(np.uint32).copy()}
    native.conform_inputs(inputs)
    native.quad_constant(inputs, set())
    got = r.delivered_fragment_inputs(inputs, lanes)
    assert sorted(got) == sorted(inputs)
    for key in inputs:
        assert got[key].tolist() == inputs[key].tolist(), key


def test_rename_results_leaves_output_ranges_it_does_not_touch():
    """cg's NVvp4 output declares ``OUTPUT t[] = { result.texcoord[0..1] };``: renaming the
    position into coordinate 7 leaves it; renaming into coordinate 1 is refused."""
    text = ("!!NVvp4.0\nOUTPUT t[] = { result.texcoord[0..1] };\n"
            "MOV.F result.position, vertex.attrib[0];\nEND\n")
    got = native.rename_results(text, {"result.position": "result.texcoord[7]"})
    assert got == text.replace("MOV.F result.position", "MOV.F result.texcoord[7]")
    with pytest.raises(native.HarnessLimit, match="range"):
        native.rename_results(text, {"result.position": "result.texcoord[1]"})
