"""The TGSI generator's fifth random stream (``modern_rng``, feature name ``modern``; part of
:class:`.tgsi.TGSIGen`): issue 20's remaining groups -- the bitfield opcodes on the integer
temporaries, ``FMA``, ``LDEXP``, the packs and unpacks in every processor; in fragment programs
also ``DEMOTE`` (under a condition), ``READ_HELPER``, ``DDX_FINE``/``DDY_FINE``, ``SAMPLE_D`` and
the fourth unit's depth comparisons (``SAMPLE_C``/``SAMPLE_C_LZ``, ``TEX2``, ``TXB2``).

Why a stream of its own: its instructions are inserted between those the other streams draw,
so a seed's earlier program is still there, in order (the verdict pins of the pinned seeds move
less).
"""
from __future__ import annotations

from .tgsi_fragment import EXTRA_UNIT

#: issue 20's remaining groups, drawn from a fifth random stream (``modern_rng``): bitfield
#: opcodes on the integer temporaries (operand count), float FMA / LDEXP, and the packs (float
#: sources into an integer temporary) with their unpacks (an integer word into a float one)
BITFIELD_OPS = {"IBFE": 3, "UBFE": 3, "BFI": 4, "BREV": 1, "POPC": 1, "LSB": 1, "IMSB": 1,
                "UMSB": 1}
PACK_OPS = ("PK2H", "PK2US", "PK4B", "PK4UB")
UNPACK_OPS = ("UP2H", "UP2US", "UP4B", "UP4UB")
#: the fourth unit's sampler-view targets: the depth-comparing SAMPLE_C / SAMPLE_C_LZ read the
#: plain ones as their shadow targets (SAMPLE_C on CUBEARRAY is TEX2 on SHADOWCUBEARRAY); TEX2
#: samples SHADOWCUBEARRAY and TXB2 SHADOWCUBE (tgsi.rst: the only targets TEX2 and, with
#: CUBEARRAY, TXB2 take)
COMPARE_UNIT = 3
COMPARE_TARGETS = ("1D", "2D", "RECT", "CUBE", "1D_ARRAY", "2D_ARRAY", "CUBEARRAY")
SHADOW_CUBE_TARGETS = ("SHADOWCUBE", "SHADOWCUBEARRAY")
#: the views SAMPLE_C_LZ compares on: the reference and the zero level both fit the coordinate
#: (xlate refuses it on CUBE, 2D_ARRAY and CUBEARRAY: tests/test_tgsi_sample.py)
COMPARE_LZ_TARGETS = ("1D", "2D", "RECT", "1D_ARRAY")


class ModernOps:
    """The fifth stream's statements (methods of :class:`.tgsi.TGSIGen`)."""

    def modern_op(self) -> None:
        """One opcode of issue 20's remaining groups, drawn from the fifth stream: bitfield,
        FMA/LDEXP and pack/unpack in every processor; in fragment programs also DEMOTE (under
        a condition), READ_HELPER, DDX_FINE/DDY_FINE and the texture forms of
        :meth:`modern_tex_op`."""
        main, self.rng = self.rng, self.modern_rng
        try:
            groups = ["float"] + (["bitfield", "bitfield", "pack"] if self.itemps else [])
            if self.frag:
                groups += ["fragment"] * 3
            group = self.rng.choice(groups)
            if group == "float":
                if self.chance(0.5):
                    self.ins(f"FMA {self.fdst()}, {self.fsrc()}, {self.fsrc()}, {self.fsrc()}")
                else:
                    self.ins(f"LDEXP {self.fdst()}, {self.fsrc()}, {self.isrc()}")
            elif group == "bitfield":
                op = self.rng.choice(sorted(BITFIELD_OPS))
                srcs = [self.isrc() for _ in range(BITFIELD_OPS[op])]
                self.ins(f"{op} {self.idst()}, {', '.join(srcs)}")
            elif group == "pack":
                if self.chance(0.5):
                    self.ins(f"{self.rng.choice(PACK_OPS)} {self.idst()}, {self.fsrc()}")
                else:
                    self.ins(f"{self.rng.choice(UNPACK_OPS)} {self.fdst()}, {self.isrc()}")
            else:
                self.modern_fragment_op()
        finally:
            self.rng = main

    def modern_fragment_op(self) -> None:
        rng = self.rng
        r = rng.random()
        if r < 0.1 and self.has("kill"):
            # a condition, so that some lanes stay: a demoted lane's outputs are discarded (the
            # verifier compares who was discarded, as for KILL) but it goes on running, so the
            # derivatives its quad takes after it stay defined
            op, src = self.cond_src()
            self.ins(f"{op} {src} :0", nest_after=1)
            self.ins("DEMOTE")
            self.ins("ENDIF", nest_before=-1)
        elif r < 0.2 and self.itemps:
            self.ins(f"READ_HELPER {self.idst()}")
        elif r < 0.35 and self.has("derivative") and self.uniform_flow():
            self.ins(f"{rng.choice(['DDX_FINE', 'DDY_FINE'])} {self.fdst()}, {self.fsrc()}")
        elif self.has("tex") and self.samplers:
            self.modern_tex_op()

    def modern_tex_op(self) -> None:
        """SAMPLE_D on the first units' sampler views (explicit derivatives: any flow), on the
        fourth unit SAMPLE_C / SAMPLE_C_LZ (a depth texture the harness makes for a shadow
        target: xlate/verify/textures.py), TEX2 (SHADOWCUBEARRAY) and TXB2 (SHADOWCUBE), and
        TXB2 on the third unit's cube array.  The implicit-derivative forms only in uniform
        flow (undefined elsewhere)."""
        rng = self.rng
        uniform = self.uniform_flow()
        choices = []
        if self.sviews:
            choices.append("SAMPLE_D")
        t = self.compare_target
        if t in SHADOW_CUBE_TARGETS:
            if uniform:
                choices += ["COMPARE"] * 3
        elif t is not None and (uniform or t in COMPARE_LZ_TARGETS):
            choices += ["COMPARE"] * 3
        if self.extra_target == "CUBEARRAY" and uniform:
            choices.append("TXB2")
        if not choices:
            return
        kind = rng.choice(choices)
        u = COMPARE_UNIT
        if kind == "SAMPLE_D":
            v = rng.choice(sorted(self.sviews))
            self.ins(f"SAMPLE_D {self.fdst()}, {self.fsrc()}, SVIEW[{v}], SAMP[{v}], "
                     f"{self.fsrc()}, {self.fsrc()}")
        elif kind == "TXB2":
            self.ins(f"TXB2 {self.fdst()}, {self.fsrc()}, {self.fsrc()}, SAMP[{EXTRA_UNIT}], "
                     f"{self.extra_target}")
        elif t == "SHADOWCUBEARRAY":
            self.ins(f"TEX2 {self.fdst()}, {self.fsrc()}, {self.fsrc()}, SAMP[{u}], {t}")
        elif t == "SHADOWCUBE":
            self.ins(f"TXB2 {self.fdst()}, {self.fsrc()}, {self.fsrc()}, SAMP[{u}], {t}")
        else:
            op = "SAMPLE_C_LZ" if t in COMPARE_LZ_TARGETS and (
                not uniform or self.chance(0.4)) else "SAMPLE_C"
            self.ins(f"{op} {self.fdst()}, {self.fsrc()}, SVIEW[{u}], SAMP[{u}], {self.fsrc()}")
