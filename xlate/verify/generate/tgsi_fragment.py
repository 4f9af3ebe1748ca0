"""The TGSI generator's fragment-only statements (part of :class:`.tgsi.TGSIGen`): ``KILL``/
``KILL_IF``, ``DDX``/``DDY`` (uniform flow only), the texture opcodes of the first two units
(``TEX``/``TXP``/``TXB``/``TXL``, on sampler views ``SAMPLE``/``SAMPLE_L``/``SAMPLE_B``,
``TG4``), double-precision and 64-bit integer opcodes on the integer temporaries, and three
streams of their own, each inserted between the instructions the main stream draws (so a
seed's earlier program is still there, in order): the second stream's third unit (``TXL2``,
``TXF``/``SAMPLE_I_MS``, ``TXQS``, ``TXQ``) and ``LODQ``, the third stream's
``INTERP_CENTROID``/``INTERP_SAMPLE``/``INTERP_OFFSET`` and the fourth stream's
``VOTE_*``/``BALLOT``/``READ_FIRST``/``READ_INVOC``.

Why the implicit-derivative forms only in uniform flow: derivatives are undefined in non-uniform
flow, so the texture opcodes fall back to ``TXL`` there.
"""
from __future__ import annotations

from .common import XYZW
from .tgsi_coverage import GATHER_TARGETS, LODQ_TARGETS

TEX_TARGETS = ("1D", "2D", "3D", "CUBE", "RECT")
#: targets of issue 20, on a third sampler unit; drawn from a second random stream, so that the
#: programs of the pinned seeds keep the instructions they had (new ones are added in between)
EXTRA_TARGETS = ("CUBEARRAY", "2D_MSAA", "2D_ARRAY_MSAA")
EXTRA_UNIT = 2
#: double opcodes (operand count) of fragment programs (DFMA, DDIV, DRCP, DSQRT, DRSQ and more
#: 64-bit integer opcodes are drawn from the seventh stream: tgsi_coverage.COVER_DOUBLE_OPS)
DOUBLE_OPS = {"DADD": 2, "DMUL": 2, "DMAD": 3, "DMIN": 2, "DMAX": 2, "DSEQ": 2, "DSNE": 2,
              "DSLT": 2, "DSGE": 2, "DFRAC": 1, "DTRUNC": 1, "DCEIL": 1, "DFLR": 1, "DROUND": 1,
              "DSSG": 1, "DABS": 1, "DLDEXP": 2, "DFRACEXP": 1, "F2D": 1, "I2D": 1, "U2D": 1,
              "D2F": 1, "D2I": 1, "D2U": 1,
              # 64-bit integers (no source modifiers: isrc's "-" is refused on them)
              "U64ADD": 2, "U64MUL": 2, "U64MIN": 2, "I64MAX": 2, "U64SLT": 2, "I64SGE": 2,
              "U64SEQ": 2, "U64SHL": 2, "I64SHR": 2, "U64DIV": 2, "I64MOD": 2, "I64ABS": 1,
              "I64NEG": 1, "I64SSG": 1, "F2I64": 1, "I2I64": 1, "U2I64": 1, "I642F": 1,
              "U642D": 1, "D2I64": 1}
#: the 64-bit integer opcodes among them
INT64_OPS = {o for o in DOUBLE_OPS if "64" in o}


class FragmentOps:
    """Fragment statements and the second, third and fourth streams (methods of
    :class:`.tgsi.TGSIGen`)."""

    def interp_op(self) -> None:
        """INTERP_CENTROID / INTERP_SAMPLE / INTERP_OFFSET of a varying, drawn from the third
        stream (the harness feeds the varyings they read as planes: xlate/verify/planes.py)."""
        main, self.rng = self.rng, self.interp_rng
        try:
            rng = self.rng
            neg = "-" if self.chance(0.2) else ""
            src = f"{neg}IN[{rng.randrange(self.varyings)}]{self.swz4()}"
            op = rng.choice(["INTERP_CENTROID", "INTERP_SAMPLE", "INTERP_OFFSET",
                             "INTERP_OFFSET"])
            if op == "INTERP_CENTROID":
                self.ins(f"{op} {self.fdst()}, {src}")
            elif op == "INTERP_SAMPLE":
                c = rng.choice(XYZW)
                self.ins(f"{op} {self.fdst()}, {src}, IMM[{self.sample_imm}].{c * 4}")
            else:
                self.ins(f"{op} {self.fdst()}, {src}, IMM[{self.offset_imm}].{self.swz4_letters()}")
        finally:
            self.rng = main

    def lane_op(self) -> None:
        """VOTE_ANY/VOTE_ALL/VOTE_EQ and BALLOT of an integer word into the integer
        temporaries, READ_FIRST and READ_INVOC (an immediate invocation number, so uniform) of
        a float operand; drawn from the fourth stream (verify learns the subgroups from a
        probe: xlate/verify/subgroups.py)."""
        main, self.rng = self.rng, self.lane_rng
        try:
            rng = self.rng
            op = rng.choice(["VOTE_ANY", "VOTE_ALL", "VOTE_EQ", "BALLOT", "READ_FIRST",
                             "READ_INVOC"])
            if op.startswith("VOTE") or op == "BALLOT":
                if not self.itemps:
                    return
                self.ins(f"{op} {self.idst()}, {self.isrc()}")
            elif op == "READ_FIRST":
                self.ins(f"{op} {self.fdst()}, {self.fsrc()}")
            else:
                c = rng.choice(XYZW)
                self.ins(f"{op} {self.fdst()}, {self.fsrc()}, IMM[{self.sample_imm}].{c * 4}")
        finally:
            self.rng = main

    def fragment_op(self) -> None:
        if self.has("interp") and self.varyings and self.interp_rng.random() < 0.15:
            self.interp_op()
        if self.has("lanes") and self.lane_rng.random() < 0.1:
            self.lane_op()
        rng = self.rng
        r = rng.random()
        if r < 0.2 and self.has("kill"):
            if self.chance(0.2):
                self.ins("KILL")
            else:
                self.ins(f"KILL_IF {self.fsrc()}")
        elif r < 0.35 and self.has("derivative") and self.uniform_flow():
            self.ins(f"{rng.choice(['DDX', 'DDY'])} {self.fdst()}, {self.fsrc()}")
        elif r < 0.6 and self.has("double") and self.itemps:
            self.double_op()
        elif self.has("tex"):
            unit = rng.choice(sorted(self.samplers))
            target = self.samplers[unit]
            ops = ["TEX", "TEX", "TXP", "TXB", "TXL"]
            if unit in self.sviews:
                ops += ["SAMPLE", "SAMPLE", "SAMPLE_L", "SAMPLE_B"]
            if target in GATHER_TARGETS:
                ops.append("TG4")
            op = rng.choice(ops)
            if not self.uniform_flow() and op not in ("TXL", "SAMPLE_L", "TG4"):
                op = "TXL"           # implicit derivatives are undefined in non-uniform flow
            if op.startswith("SAMPLE"):
                extra = f", {self.fsrc()}" if op != "SAMPLE" else ""
                self.ins(f"{op} {self.fdst()}, {self.fsrc()}, SVIEW[{unit}], SAMP[{unit}]{extra}")
            elif op == "TG4":
                comp = f"IMM[{self.comp_imm}].{XYZW[rng.randrange(4)] * 4}"
                self.ins(f"TG4 {self.fdst()}, {self.fsrc()}, {comp}, SAMP[{unit}], {target}")
            else:
                self.ins(f"{op} {self.fdst()}, {self.fsrc()}, SAMP[{unit}], {target}")
            if self.tex_rng.random() < 0.5:
                main, self.rng = self.rng, self.tex_rng
                try:
                    self.extra_tex_op()
                finally:
                    self.rng = main
        else:
            self.float_op()

    def extra_tex_op(self) -> None:
        """Issue 20's texture forms, drawn from the second stream: on the extra unit's cube
        array TXL2 / TXQ, on its multisample texture TXF / SAMPLE_I_MS (the coordinate masked
        into the 8x8 texels, 4 layers and 4 samples the harness creates) / TXQS / TXQ, and
        LODQ on the first units' 1D/2D/3D textures."""
        rng = self.rng
        lodq = [u for u, t in self.samplers.items() if t in LODQ_TARGETS]
        if lodq and self.uniform_flow() and (self.extra_target is None or self.chance(0.3)):
            u = rng.choice(lodq)
            self.ins(f"LODQ {self.fdst()}, {self.fsrc()}, SAMP[{u}], {self.samplers[u]}")
            return
        target, u = self.extra_target, EXTRA_UNIT
        if target is None:
            return
        if target == "CUBEARRAY":
            if self.chance(0.8):
                self.ins(f"TXL2 {self.fdst()}, {self.fsrc()}, {self.fsrc()}, SAMP[{u}], {target}")
            else:
                self.ins(f"TXQ {self.fdst()}, IMM[{self.comp_imm}].xxxx, SAMP[{u}], {target}")
            return
        r = rng.random()
        if r < 0.5 and self.itemps:
            t = rng.choice(self.itemps)
            self.ins(f"AND TEMP[{t}], {self.isrc()}, IMM[{self.ms_imm}]")
            if self.chance(0.5):
                self.ins(f"TXF {self.fdst()}, TEMP[{t}], SAMP[{u}], {target}")
            else:
                self.ins(f"SAMPLE_I_MS {self.fdst()}, TEMP[{t}], SVIEW[{u}], "
                         f"TEMP[{t}].{rng.choice(XYZW) * 4}")
        elif r < 0.8:
            self.ins(f"TXQS {self.idst() if self.itemps else self.fdst()}, SAMP[{u}], {target}")
        else:
            self.ins(f"TXQ {self.fdst()}, IMM[{self.comp_imm}].xxxx, SAMP[{u}], {target}")

    def double_op(self) -> None:
        """A double-precision opcode on the integer temporaries (words: a double in xy and one
        in zw), or a conversion between doubles and floats / integers."""
        rng = self.rng
        op = rng.choice(sorted(DOUBLE_OPS))
        if op in ("F2D", "F2I64"):
            self.ins(f"{op} {self.idst()}, {self.fsrc()}")
        elif op == "I642F":
            self.ins(f"I642F {self.fdst()}, {self.isrc().lstrip('-')}")
        elif op == "D2F":
            self.ins(f"D2F {self.fdst()}, {self.isrc()}")
        elif op == "DFRACEXP":
            a, b = rng.sample(self.itemps, 2) if len(self.itemps) > 1 else (self.itemps[0],) * 2
            if a == b:
                self.ins(f"DFRACEXP TEMP[{a}].xy, TEMP[{a}].zw, {self.isrc()}")
            else:
                self.ins(f"DFRACEXP TEMP[{a}], TEMP[{b}], {self.isrc()}")
        else:
            srcs = [self.isrc() for _ in range(DOUBLE_OPS[op])]
            if op in INT64_OPS:
                srcs = [x.lstrip("-") for x in srcs]
            self.ins(f"{op} {self.idst()}, {', '.join(srcs)}")
