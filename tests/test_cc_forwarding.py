"""Condition-code tests forwarded to the value their update wrote, by that update's own kind
(passes/condcodes.py ``forward_value_tests``): TGSI's IF (a float update of CC1) and UIF (an
integer one) share CC1, so CC1 holds no single kind of value -- yet each test right after its
update compares the written value with zero, and no flag words are left.

Why it matters beyond readability: Mesa 22.3.6's llvmpipe miscompiles a loop whose first exit
tests flag words (``(f & 1u) | (1u - ((f >> 1) & 1u))``) and whose second exit is divergent --
a lane that left by the second exit takes values from the next pass of the loop.  In the probed
translation of TGSI fragment seed 202 (inputs seed 202) that showed as a departure at the loop's
UIF that no output had (reduced to :data:`LOOP_LEFT_BY_RET`)."""
from __future__ import annotations

import pytest

from conftest import gl_runner

from xlate import api
from xlate.passes import condcodes
from xlate.verify.core import verify_source

IF_AND_UIF = """FRAG
DCL IN[0], GENERIC[0], LINEAR
DCL OUT[0], COLOR
DCL TEMP[0]
IMM[0] INT32 {0, 1, 3, -1}
  0: MOV TEMP[0], IMM[0].yyyy
  1: BGNLOOP :0
  2:   ISGE TEMP[0].y, IMM[0].xxxx, TEMP[0].xxxx
  3:   UIF TEMP[0].yyyy :0
  4:     BRK
  5:   ENDIF
  6:   UADD TEMP[0].x, TEMP[0].xxxx, IMM[0].wwww
  7:   IF IN[0].xxxx :0
  8:     RET
  9:   ENDIF
 10: ENDLOOP :0
 11: MOV OUT[0], TEMP[0]
 12: END
"""


def test_if_and_uif_sharing_cc1_compare_their_values():
    glsl = api.translate(IF_AND_UIF, filename="loop.tgsi").glsl
    assert "xl_cc1" not in glsl and "xl_ccNE" not in glsl
    assert "        u__if.x = TEMP0.y;\n        if (u__if.x != 0u)\n        {\n            break;" \
        in glsl, glsl
    assert "if (uintBitsToFloat(u__if.x) != 0.0)\n        {\n            return;" in glsl, glsl


#: TGSI fragment seed 202 reduced (inputs seed 202, instructions removed while the departure
#: stayed): a counted loop left by UIF/BRK or by a RET of a float IF; two more counted loops and
#: a DEMOTE after it (the declarations as generated: they decide the inputs)
LOOP_LEFT_BY_RET = """FRAG
DCL IN[0], GENERIC[0], LINEAR
DCL IN[1], COLOR[0], LINEAR
DCL OUT[0], COLOR
DCL SAMP[0]
DCL SVIEW[0], 1D, FLOAT
DCL SAMP[3]
DCL SVIEW[3], RECT, FLOAT
DCL CONST[0..7]
DCL TEMP[0..10], LOCAL
DCL ADDR[0]
IMM[0] UINT32 {0, 1, 2, 3}
IMM[1] FLT32 {0.0, 0.5, -2.5, -2.5}
IMM[2] INT32 {0, 1, 3, -1}
IMM[3] INT32 {7, -1, 2, 16}
IMM[4] UINT32 {4294967295, 2147483648, 3, 4294967295}
IMM[5] FLT32 {0.0625, 0.0, -0.125, -0.375}
IMM[6] INT32 {0, 1, 3, 4}
IMM[7] UINT32 {7, 7, 7, 0}
  0: MOV TEMP[2], IN[1]
  1: MOV TEMP[3], IN[0].zzzz
  2: MOV TEMP[7], IMM[2].xxxx
  3: MOV TEMP[8], IMM[2].xxxx
  4: MOV TEMP[9], IMM[2].xxxx
  5: ARL ADDR[0], TEMP[2]
  6: MOV TEMP[7].x, IMM[2].yyyy
  7: BGNLOOP :0
  8:   ISGE TEMP[7].y, IMM[2].xxxx, TEMP[7].xxxx
  9:   UIF TEMP[7].yyyy :0
 10:     BRK
 11:   ENDIF
 12:   UADD TEMP[7].x, TEMP[7].xxxx, IMM[2].wwww
 13:   IF CONST[ADDR[0].x+3].zwwx :0
 14:     RET
 15:   ENDIF
 16: ENDLOOP :0
 17: F2I TEMP[8].x, IN[1]
 18: IMIN TEMP[8].x, TEMP[8].xxxx, IMM[2].zzzz
 19: BGNLOOP :0
 20:   ISGE TEMP[8].y, IMM[2].xxxx, TEMP[8].xxxx
 21:   UIF TEMP[8].yyyy :0
 22:     BRK
 23:   ENDIF
 24:   UADD TEMP[8].x, TEMP[8].xxxx, IMM[2].wwww
 25: ENDLOOP :0
 26: IF TEMP[3] :0
 27:   IF TEMP[3] :0
 28:     DEMOTE
 29:   ENDIF
 30:   MOV TEMP[9].x, IMM[2].zzzz
 31:   BGNLOOP :0
 32:     ISGE TEMP[9].y, IMM[2].xxxx, TEMP[9].xxxx
 33:     UIF TEMP[9].yyyy :0
 34:       BRK
 35:     ENDIF
 36:     UADD TEMP[9].x, TEMP[9].xxxx, IMM[2].wwww
 37:   ENDLOOP :0
 38:   IF TEMP[0] :0
 39:     USHR TEMP[5], CONST[0][3].wzzz, TEMP[6]
 40:   ENDIF
 41: ELSE :0
 42:   IF IMM[1] :0
 43:   ELSE :0
 44:   ENDIF
 45: ENDIF
 46: END

"""


@pytest.mark.parametrize("forwarded,backend", [(True, "gl"), (True, "vulkan"), (False, "gl")])
def test_a_loop_left_by_ret_verifies_when_its_tests_compare_values(forwarded, backend,
                                                                  monkeypatch):
    """With the tests forwarded the program verifies -- on vulkan too, where the probe of the
    UIF is an IF whose test is forwarded as well (verify/trace.probe_value; as a conditional
    write it read the flag words there).  With CC1's flag words kept (the update's own kind
    ignored, as before) llvmpipe's compilation that probes the UIF's every pass reads the next
    pass's outcome on the lanes that left by RET -- an unexplained departure no output showed
    while the replay took that last value; the pass probed on its own (round two,
    replay.ReplayHook._impl) is right, and the program verifies that way too."""
    if not forwarded:
        monkeypatch.setattr(condcodes, "_value_kind", lambda kind: None)
    rep = verify_source(LOOP_LEFT_BY_RET, "loop.tgsi", lanes=256, seed=202, backend=backend,
                        runner=gl_runner(backend))
    assert rep.status == "pass", (rep.reason, rep.localization[:2])
