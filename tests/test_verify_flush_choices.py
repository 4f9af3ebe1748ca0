"""A flush is its compilation's choice (xlate/verify/replay.py ``flushes``,
nan_choices.NanChoices.wrote_flushed): where the replay adopted a denormal's flush from one
probe compilation (verdict ``ftz``), a reader probed in another compilation -- which kept the
denormal -- is recomputed with the denormal too, and with nothing else (generated NV4 vertex
seed 2506, inputs seed 2500: ``ABS.F.SAT R4.xyw, R4.xxxy`` in a loop, the first pass flushed
in its own probe compilation, the second pass reading the denormal on in another)."""
from __future__ import annotations

import numpy as np
import pytest

from test_verify_replay import _Record

from xlate import api, execute
from xlate.verify.replay import ImplValues, ReplayHook

#: R0.x is the denormal 8 * 2^-149 (MUL of two small normals); ADD doubles it; MOV outputs
PROGRAM = ("!!NVvp4.0\nTEMP R0, R1;\nMUL.F R0, vertex.attrib[0], 1e-20;\n"
           "ADD.F R1, R0, R0;\nMOV.F result.texcoord[0], R1;\n"
           "MOV.F result.position, vertex.attrib[0];\nEND\n")
#: the attribute whose product with 1e-20 is a denormal in x only
ATTRIB = np.array([[1.1210388e-25, 1.0, 2.0, 3.0]], np.float32)


def replay(produced, read):
    """The replay against implementation values: the executor's own, with the MUL's x word
    ``produced`` and the ADD's (and the output MOV's) x word ``read``."""
    prog = api.parse(PROGRAM, filename="flush.vp")
    rec = _Record(len(prog.instructions))
    execute(prog, {"vertex.attrib[0]": ATTRIB}, lanes=1, hooks=rec)
    words = {k: w.copy() for k, w in rec.words.items()}
    words[0][0, 0] = produced
    words[1][0, 0] = words[2][0, 0] = read
    hook = ReplayHook(prog, {k: ImplValues(w) for k, w in words.items()}, 1, "gl")
    execute(prog, {"vertex.attrib[0]": ATTRIB}, lanes=1, hooks=hook)
    return rec.words, hook


def test_the_program_makes_a_denormal():
    prog = api.parse(PROGRAM, filename="flush.vp")
    rec = _Record(len(prog.instructions))
    execute(prog, {"vertex.attrib[0]": ATTRIB}, lanes=1, hooks=rec)
    d = int(rec.words[0][0, 0])
    assert 0 < d < 0x00800000 and int(rec.words[1][0, 0]) == 2 * d


@pytest.mark.parametrize("read_factor, explained", [
    (2, True),     # the reader's compilation kept the denormal: 2d
    (0, True),     # it read the flushed zero: 0 + 0 (the replay's own value)
    (3, False),    # 3d is no value either compilation gives
])
def test_a_reader_of_a_flushed_denormal_may_have_read_it_unflushed(read_factor, explained):
    prog = api.parse(PROGRAM, filename="flush.vp")
    rec = _Record(len(prog.instructions))
    execute(prog, {"vertex.attrib[0]": ATTRIB}, lanes=1, hooks=rec)
    d = int(rec.words[0][0, 0])
    _, hook = replay(0, read_factor * d)
    assert (hook.unexplained == []) == explained, [u.verdict for u in hook.unexplained]
    assert hook.adopted.get((0, "ftz")) == 1            # the MUL's flush, adopted
    if explained and read_factor:
        assert hook.adopted.get((1, "ftz")) == 1        # the ADD of the unflushed denormal
