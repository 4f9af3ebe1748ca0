"""Integer results the source dialect leaves undefined (permits.rule_undefined): NV_gpu_program4
leaves DIV by zero, MOD by a divisor <= 0 or of a negative dividend, and shifts by a count
outside 0..31 undefined (2.X.8.Z); TGSI defines UDIV and UMOD by zero (0xffffffff) and masks
shift counts (tgsi.rst), leaving IDIV by zero "TBD" and MOD (C's remainder) by zero.  A mutant
of a TGSI UMOD by zero passed as 'undefined' before (campaign seed 13, generated TGSI
compute 27: ``xl_mod(TEMP4, TEMP4.w).w`` -> ``.x``)."""
from __future__ import annotations

import numpy as np
import pytest

from test_verify_texture_freedoms import judge

from xlate.verify import permits


def _tgsi(op: str, b: int = 0) -> str:
    return ("VERT\nDCL IN[0]\nDCL OUT[0], POSITION\nDCL OUT[1], GENERIC[0]\nDCL TEMP[0]\n"
            f"IMM[0] UINT32 {{7, {b}, 3, 0}}\n  0: {op} TEMP[0], IMM[0].xxxx, IMM[0].yyyy\n"
            "  1: MOV OUT[0], IN[0]\n  2: MOV OUT[1], TEMP[0]\n  3: END\n")


def _nv4(op: str) -> str:
    kind = "UINT" if op.endswith(".U") else "INT"
    return (f"!!NVvp4.0\n{kind} TEMP t;\n"
            f"{op} t, {{7, 7, 7, 7}}, 0;\n"
            f"MOV result.position, vertex.attrib[0];\nI2F{op[-2:]} result.texcoord[0], t;\n"
            "END\n")


@pytest.mark.parametrize("text, k, free", [
    (_tgsi("UMOD"), 0, False),       # tgsi.rst: 0xffffffff
    (_tgsi("UDIV"), 0, False),       # tgsi.rst: 0xffffffff
    (_tgsi("SHL", 33), 0, False),    # the count masked: 7 << 1
    (_tgsi("USHR", 40), 0, False),
    (_tgsi("IDIV"), 0, True),        # "TBD"
    (_tgsi("MOD"), 0, True),         # C's remainder by zero
    (_nv4("MOD.U"), 0, True),        # GP4 2.X.8.Z: undefined
    (_nv4("DIV.S"), 0, True),
    (_nv4("SHL.U").replace(", 0;", ", 33;"), 0, True),
])
def test_an_integer_result_is_free_only_where_the_dialect_leaves_it_undefined(text, k, free):
    attrib = "IN0" if text.startswith("VERT") else "vertex.attrib[0]"
    hook = judge(text, k, lambda e: e ^ np.uint32(0x5A5A5A5A),
                 {attrib: np.zeros((4, 4), np.float32)}, {}, rule=permits.rule_undefined)
    # (TGSI's integer DIV/MOD are split per channel: instruction 0 writes x)
    assert hook.verdicts[:, 0].all() == free and hook.verdicts.any() == free
