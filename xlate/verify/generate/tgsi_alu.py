"""The TGSI generator's ALU statements, in every processor (part of :class:`.tgsi.TGSIGen`):
float ALU (``_SAT`` sometimes; the transcendental ones unless avoided), integer ALU (``UADD``
... ``UMUL_HI``, divisions and shifts unless avoided), conversions between floats and integers,
and ``ARL``/``UARL`` writes of ``ADDR[0]``.

The operand counts are TGSI's (tgsi.rst; the frontend's table is
``xlate/frontends/tgsi/opcodes.py``).  Which opcodes count as transcendental is a generator
choice: changing the set changes every seeded campaign's programs.
"""
from __future__ import annotations

FLOAT_OPS = {  # opcode -> operand count
    "MOV": 1, "ADD": 2, "MUL": 2, "MAD": 3, "LRP": 3, "DP2": 2, "DP3": 2, "DP4": 2, "DST": 2,
    "MIN": 2, "MAX": 2, "SLT": 2, "SGE": 2, "SEQ": 2, "SGT": 2, "SLE": 2, "SNE": 2, "CMP": 3,
    "SSG": 1, "FRC": 1, "FLR": 1, "CEIL": 1, "TRUNC": 1, "ROUND": 1, "RCP": 1, "RSQ": 1,
    "SQRT": 1, "EX2": 1, "LG2": 1, "POW": 2, "SIN": 1, "COS": 1, "EXP": 1, "LOG": 1, "LIT": 1,
    "DIV": 2,
}
SCALAR_FLOAT = {"RCP", "RSQ", "SQRT", "EX2", "LG2", "POW", "SIN", "COS", "EXP", "LOG"}
TRANSCENDENTAL = {"EX2", "LG2", "POW", "SIN", "COS", "EXP", "LOG", "LIT"}
INT_OPS = {
    "UADD": 2, "UMUL": 2, "UMAD": 3, "IDIV": 2, "UDIV": 2, "UMOD": 2, "MOD": 2, "IMAX": 2,
    "IMIN": 2, "UMAX": 2, "UMIN": 2, "INEG": 1, "IABS": 1, "ISSG": 1, "NOT": 1, "AND": 2,
    "OR": 2, "XOR": 2, "SHL": 2, "ISHR": 2, "USHR": 2, "ISLT": 2, "ISGE": 2, "USLT": 2,
    "USGE": 2, "USEQ": 2, "USNE": 2, "UCMP": 3, "IMUL_HI": 2, "UMUL_HI": 2,
}
INT_DIV = {"IDIV", "UDIV", "UMOD", "MOD"}
SHIFTS = {"SHL", "ISHR", "USHR"}
FLOAT_TO_INT = {"F2I": 1, "F2U": 1, "FSLT": 2, "FSGE": 2, "FSEQ": 2, "FSNE": 2}
INT_TO_FLOAT = {"I2F": 1, "U2F": 1}


class AluOps:
    """Float, integer, conversion and address statements (methods of :class:`.tgsi.TGSIGen`)."""

    def float_op(self) -> None:
        rng = self.rng
        ops = [o for o in FLOAT_OPS if self.has("transcendental") or o not in TRANSCENDENTAL]
        op = rng.choice(ops)
        srcs = [self.fsrc() for _ in range(FLOAT_OPS[op])]
        sat = "_SAT" if self.chance(0.12) else ""
        self.ins(f"{op}{sat} {self.fdst()}, {', '.join(srcs)}")

    def int_op(self) -> None:
        rng = self.rng
        ops = [o for o in INT_OPS if (self.has("intdiv") or o not in INT_DIV)
               and (self.has("shift") or o not in SHIFTS)]
        op = rng.choice(ops)
        srcs = [self.isrc() for _ in range(INT_OPS[op])]
        if op.endswith("MUL_HI") and all(s.lstrip("-").startswith("IMM[") for s in srcs):
            # not both operands immediates: Mesa 22.3's GLSL compiler folds the high product
            # of constants wrongly -- pinned by tests/test_verify_cases.py::
            # test_mulhi_of_constants; the localization names it only when its probe lands
            srcs[0] = self.temp_ref(self.itemps) + self.swz4()
        self.ins(f"{op} {self.idst()}, {', '.join(srcs)}")

    def convert(self) -> None:
        rng = self.rng
        if self.chance(0.5):
            op = rng.choice(list(FLOAT_TO_INT))
            srcs = [self.fsrc() for _ in range(FLOAT_TO_INT[op])]
            self.ins(f"{op} {self.idst()}, {', '.join(srcs)}")
        else:
            op = rng.choice(list(INT_TO_FLOAT))
            self.ins(f"{op} {self.fdst()}, {self.isrc()}")

    def address(self) -> None:
        if self.chance(0.5) or not self.itemps:
            self.ins(f"ARL ADDR[0]{self.wmask()}, {self.fsrc()}")
        else:
            self.ins(f"UARL ADDR[0]{self.wmask()}, {self.isrc()}")
