"""Every opcode property in the one table (xlate/ir/ops.py), and the places that read it from
there rather than repeating it (docs/adding-an-opcode.md lists them)."""
from __future__ import annotations

import pytest

from xlate.ir import ops
from xlate.ir.ops import OPCODES, shapes


@pytest.mark.parametrize("table", ["COMPONENTWISE", "CARRY_OPS", "RAW_OPERAND_OPS", "RAW_RESULT_OPS",
                                   "UNDEFINED_COMPONENTS", "COMPONENTS_READ", "INEXACT"])
def test_side_tables_name_opcodes(table):
    """The property tables name rows of the table (FMA, LDEXP ... of COMPONENTWISE included)."""
    assert set(getattr(ops, table)) <= set(OPCODES), set(getattr(ops, table)) - set(OPCODES)


def test_properties_of_a_few_rows():
    assert OPCODES["MAD"].shape == "vvv" and OPCODES["POW"].shape == "ss"
    assert OPCODES["DIV"].shape == "vs" and OPCODES["SAD"].shape == "vvv"
    assert OPCODES["EX2"].inexact == (8, 0.0) and OPCODES["ADD"].inexact is None
    assert OPCODES["SCS"].undefined_components == (2, 3) and OPCODES["MUL"].undefined_components == ()
    assert OPCODES["DPH"].reads == (3, 4) and OPCODES["ADD"].reads is None
    assert OPCODES["UP2H"].raw_operands and OPCODES["PK2H"].raw_result
    assert OPCODES["SUB"].carry and not OPCODES["MUL"].carry
    assert OPCODES["ADD"].componentwise and not OPCODES["DP3"].componentwise


def test_readers_take_the_tables_not_copies():
    from xlate.passes import types
    from xlate.verify import analysis, compare, permits
    assert compare.INEXACT is ops.INEXACT
    assert analysis.UNDEFINED_COMPONENTS is ops.UNDEFINED_COMPONENTS
    assert permits.UNDEFINED_COMPONENTS is ops.UNDEFINED_COMPONENTS
    assert analysis.DOT_READS is ops.COMPONENTS_READ
    assert analysis.TEX_OPS == {n for n, info in OPCODES.items() if info.category == "tex"}
    assert types.RAW_OPERAND_OPS is ops.RAW_OPERAND_OPS


def test_signature_and_generator_shapes_are_the_tables():
    from xlate.frontends.nv.legacy_vertex import SIGNATURES
    from xlate.verify.generate import arbfp, arbvp, fp1, nv4
    from xlate.verify.generate import vp as gvp
    for table in (nv4.FLOAT_OPS, nv4.INT_OPS, arbfp.SHAPES, arbvp.SHAPES, fp1.SHAPES, gvp.SHAPES):
        assert table == shapes(table)
    arithmetic = {op: sig for op, sig in SIGNATURES.items() if sig.isupper() and set(sig) <= {"V", "S"}}
    assert len(arithmetic) == 35
    assert arithmetic == {op: shape.upper() for op, shape in shapes(arithmetic).items()}
    assert arbfp.DEFINED == {"XPD": "xyz", "NRM": "xyz", "RFL": "xyz", "SCS": "xy"}
