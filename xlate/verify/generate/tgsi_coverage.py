"""The TGSI generator's seventh random stream (feature name ``coverage``): the opcodes of
tgsi.rst no other stream writes, inserted between the instructions the other streams draw (a
seed's earlier program is still there, in order) -- ``NOP`` and ``ARR`` in every processor; in
fragment programs ``DFMA``, ``DDIV``, ``DRCP``, ``DSQRT``, ``DRSQ`` and the 64-bit integer
opcodes :data:`.tgsi_fragment.DOUBLE_OPS` leaves out (:data:`COVER_DOUBLE_OPS`), ``TEX_LZ``,
``TXD``, and on sampler views ``SAMPLE_I``, ``GATHER4``, ``SVIEWINFO`` and ``LOD`` -- and
:data:`NOT_GENERATED`, what no random program writes and why (tests/test_generate_dialects.py
checks that every other opcode of tgsi.rst is written in seeds 0..199 of some processor).

:class:`CoverageOps` is a part of :class:`.tgsi.TGSIGen` (its operands, temporaries and
flow state).
"""
from __future__ import annotations

#: targets whose level-of-detail query LODQ runs on (llvmpipe computes the LOD of cube maps by
#: its own approximation, which the executor does not model: tests/test_tgsi_textures.py)
LODQ_TARGETS = ("1D", "2D", "3D")
GATHER_TARGETS = ("2D", "CUBE", "RECT")
#: the opcodes no other stream writes, drawn from a seventh random stream (``cover_rng``,
#: feature name ``coverage``): double and 64-bit integer opcodes (operand count) beside
#: :data:`.tgsi_fragment.DOUBLE_OPS` in fragment programs, on the integer temporaries
COVER_DOUBLE_OPS = {"DFMA": 3, "U64SNE": 2, "U64SGE": 2, "I64SLT": 2, "I64MIN": 2, "U64MAX": 2,
                    "U64SHR": 2, "I64DIV": 2, "U64MOD": 2, "F2U64": 1, "D2U64": 1, "U642F": 1,
                    "I642D": 1, "DDIV": 2, "DRCP": 1, "DSQRT": 1, "DRSQ": 1}
#: the targets SAMPLE_I fetches from (a texel fetch takes no cube map: GLSL texelFetch)
FETCH_TARGETS = ("1D", "2D", "3D", "RECT")
#: tgsi.rst opcodes the translator accepts (or refuses) that no random program writes, and why;
#: tests/test_generate_dialects.py checks that every other opcode of tgsi.rst is written in
#: seeds 0..199 of some processor, and that none of these is
NOT_GENERATED = {
    "CLOCK": "the implementation's shader time has no reproducible value: the verifier compares "
             "nothing computed from it (tests/test_tgsi_clock.py), so in a random program it "
             "would hide every result it reaches",
    "FBFETCH": "refused by the glsl450 profile, which xlate verify's default gl backend runs "
               "(GL_EXT_shader_framebuffer_fetch, which glslang does not implement): a random "
               "program using it would not run there; only the vulkan backend reads it, "
               "through a subpass input (tests/test_tgsi_fbfetch.py)",
    "IMG2HND": "refused: a bindless handle is the driver's value (GL_ARB_bindless_texture, not "
               "in llvmpipe; Vulkan SPIR-V has no handles)",
    "SAMP2HND": "refused: a bindless handle is the driver's value (GL_ARB_bindless_texture, not "
                "in llvmpipe; Vulkan SPIR-V has no handles)",
    "SAMPLE_POS": "refused: no Mesa driver ever implemented it (tgsi.rst)",
    "SAMPLE_INFO": "refused: no Mesa driver ever implemented it (tgsi.rst)",
}


class CoverageOps:
    """The seventh stream's statements (methods of :class:`.tgsi.TGSIGen`)."""

    def coverage_op(self) -> None:
        """One opcode no other stream writes, drawn from the seventh stream: NOP and (with the
        address register) ARR in every processor; in fragment programs also
        :data:`COVER_DOUBLE_OPS` and the texture forms of :meth:`coverage_tex_op`."""
        main, self.rng = self.rng, self.cover_rng
        try:
            groups = ["nop"] + (["arr"] if self.addr and self.rel_ok else [])
            if self.frag and self.has("double") and self.itemps:
                groups += ["double"] * 3
            if self.frag and self.has("tex") and self.samplers:
                groups += ["tex"] * 4
            group = self.rng.choice(groups)
            if group == "nop":
                self.ins("NOP")
            elif group == "arr":
                self.ins(f"ARR ADDR[0]{self.wmask()}, {self.fsrc()}")
            elif group == "double":
                self.coverage_double_op()
            else:
                self.coverage_tex_op()
        finally:
            self.rng = main

    def coverage_double_op(self) -> None:
        op = self.rng.choice(sorted(COVER_DOUBLE_OPS))
        if op == "F2U64":
            self.ins(f"F2U64 {self.idst()}, {self.fsrc()}")
        elif op == "U642F":
            self.ins(f"U642F {self.fdst()}, {self.isrc().lstrip('-')}")
        else:
            srcs = [self.isrc() for _ in range(COVER_DOUBLE_OPS[op])]
            if "64" in op:       # 64-bit integers take no source modifiers (double_op)
                srcs = [x.lstrip("-") for x in srcs]
            self.ins(f"{op} {self.idst()}, {', '.join(srcs)}")

    def coverage_tex_op(self) -> None:
        """TEX_LZ and TXD (explicit level and derivatives: any flow) on the first units;
        on their sampler views SAMPLE_I (an integer texel of level 0, masked into the
        texture), GATHER4 (gather targets), SVIEWINFO (levels 0 and 1) and, in uniform flow,
        LOD (the targets LODQ takes)."""
        rng = self.rng
        unit = rng.choice(sorted(self.samplers))
        target = self.samplers[unit]
        ops = ["TEX_LZ", "TXD"]
        if unit in self.sviews:
            ops += ["SVIEWINFO"]
            if target in FETCH_TARGETS and self.itemps:
                ops.append("SAMPLE_I")
            if target in GATHER_TARGETS:
                ops.append("GATHER4")
            if target in LODQ_TARGETS and self.uniform_flow():
                ops.append("LOD")
        op = rng.choice(ops)
        if op == "TEX_LZ":
            self.ins(f"TEX_LZ {self.fdst()}, {self.fsrc()}, SAMP[{unit}], {target}")
        elif op == "TXD":
            self.ins(f"TXD {self.fdst()}, {self.fsrc()}, {self.fsrc()}, {self.fsrc()}, "
                     f"SAMP[{unit}], {target}")
        elif op == "SVIEWINFO":
            dst = self.idst() if self.itemps else self.fdst()
            self.ins(f"SVIEWINFO {dst}, IMM[{self.loop_imm}].{rng.choice('xy') * 4}, "
                     f"SVIEW[{unit}]")
        elif op == "SAMPLE_I":
            t = rng.choice(self.itemps)
            self.ins(f"AND TEMP[{t}], {self.isrc()}, IMM[{self.fetch_imm}]")
            self.ins(f"SAMPLE_I {self.fdst()}, TEMP[{t}], SVIEW[{unit}]")
        else:
            self.ins(f"{op} {self.fdst()}, {self.fsrc()}, SVIEW[{unit}], SAMP[{unit}]")
