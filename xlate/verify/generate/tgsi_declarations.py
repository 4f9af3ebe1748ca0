"""The TGSI generator's declarations (part of :class:`.tgsi.TGSIGen`): the processor and its
properties (geometry primitives and vertex count, tessellation modes, ``TCS_VERTICES_OUT``),
inputs with their semantics (and, in fragment programs, interpolation modes), outputs, system
values; then what every processor declares: samplers and sampler views, ``CONST`` ranges and a
second constant buffer, the ``TEMP`` range (the random temporaries, the loop counters, a
processor's reserved ones), ``ADDR`` and the ``IMM`` immediates.

Why the draws of the units after the first two come from other streams: so that the programs of
the pinned seeds keep the declarations they had.
"""
from __future__ import annotations

from .common import fconst
from .tgsi_fragment import EXTRA_TARGETS, EXTRA_UNIT, TEX_TARGETS
from .tgsi_modern import COMPARE_TARGETS, COMPARE_UNIT, SHADOW_CUBE_TARGETS

GS_IN = {"POINTS": 1, "LINES": 2, "TRIANGLES": 3, "LINES_ADJACENCY": 4, "TRIANGLES_ADJACENCY": 6}
GS_OUT = ("POINTS", "LINE_STRIP", "TRIANGLE_STRIP")
PROC = {"vertex": "VERT", "fragment": "FRAG", "geometry": "GEOM",
        "tess_evaluation": "TESS_EVAL", "tess_control": "TESS_CTRL"}


class DeclarationOps:
    """Declarations and immediates (methods of :class:`.tgsi.TGSIGen`)."""

    def declarations(self) -> list[str]:
        d = self.stage_declarations()
        self.common_declarations(d)
        return d

    def stage_declarations(self) -> list[str]:
        """The processor, its properties, inputs, outputs and system values."""
        rng = self.rng
        d = [PROC[self.stage]]
        if self.geom:
            prim = rng.choice(list(GS_IN))
            self.nverts = GS_IN[prim]
            self.out_prim = rng.choice(GS_OUT)
            self.max_vertices = rng.randint(1, 6)
            d += [f"PROPERTY GS_INPUT_PRIMITIVE {prim}",
                  f"PROPERTY GS_OUTPUT_PRIMITIVE {self.out_prim}",
                  f"PROPERTY GS_MAX_OUTPUT_VERTICES {self.max_vertices}"]
        if self.tes:
            self.nverts = rng.randint(1, 4)
            d += [f"PROPERTY TES_PRIM_MODE {rng.choice([4, 7, 1])}",
                  f"PROPERTY TES_SPACING {rng.randrange(3)}",
                  f"PROPERTY TES_VERTEX_ORDER_CW {rng.randrange(2)}",
                  f"PROPERTY TES_POINT_MODE {int(self.chance(0.2))}"]
        if self.tcs:
            self.nverts = rng.randint(1, 4)
            self.vertices_out = rng.randint(1, 4)
            d.append(f"PROPERTY TCS_VERTICES_OUT {self.vertices_out}")
        for i in range(self.nin):
            if self.stage == "vertex":
                d.append(f"DCL IN[{i}]")
            elif self.geom or self.tes or self.tcs:
                sem = "POSITION" if i == 0 else f"GENERIC[{i}]"
                d.append(f"DCL IN[][{i}], {sem}")
            else:
                sems = [f"GENERIC[{i}]", f"TEXCOORD[{i}]"] + ([f"COLOR[{i - 1}]"] if i <= 2 else [])
                sem = rng.choice(sems) if i else "GENERIC[0]"
                interp = rng.choice([", PERSPECTIVE", ", PERSPECTIVE", ", LINEAR", ", CONSTANT"])
                d.append(f"DCL IN[{i}], {sem}{interp}")
        if self.tes:
            d += [f"DCL IN[{self.nin}], PATCH[0]", f"DCL IN[{self.nin + 1}], TESSOUTER",
                  f"DCL IN[{self.nin + 2}], TESSINNER", "DCL SV[0], TESSCOORD"]
        self.varyings = self.nin
        if self.frag and self.chance(0.3):
            d.append(f"DCL IN[{self.nin}], POSITION, LINEAR")
            self.nin += 1
        # outputs
        if self.tcs:
            # per-vertex outputs written to the invocation's own vertex (ADDR[1].x holds
            # INVOCATIONID), the outer levels and a per-patch varying (lower_tess.py)
            n = rng.randint(1, 3)
            for i in range(n):
                sem = "POSITION" if i == 0 else f"GENERIC[{i}]"
                d.append(f"DCL OUT[][{i}], {sem}")
            d += [f"DCL OUT[{n}], TESSOUTER", f"DCL OUT[{n + 1}], PATCH[0]",
                  "DCL SV[0], INVOCATIONID", "DCL ADDR[1]"]
            self.outputs = [f"OUT[ADDR[1].x][{i}]" for i in range(n)] + [f"OUT[{n}]",
                                                                         f"OUT[{n + 1}]"]
            self.sv = "INVOCATIONID"
        elif self.frag:
            self.outputs = ["OUT[0]"]
            d.append("DCL OUT[0], COLOR")
            if self.chance(0.15):
                d.append("DCL OUT[1], POSITION")
                self.outputs.append("OUT[1]")      # depth: only z is meaningful
        else:
            d.append("DCL OUT[0], POSITION")
            self.outputs = ["OUT[0]"]
            for i in range(1, rng.randint(2, 4)):
                sem = rng.choice([f"GENERIC[{i}]", "COLOR" if i == 1 else f"GENERIC[{i}]",
                                  f"TEXCOORD[{i}]"])
                d.append(f"DCL OUT[{i}], {sem}")
                self.outputs.append(f"OUT[{i}]")
        if self.stage == "vertex" and self.has("int") and self.chance(0.3):
            d.append("DCL SV[0], VERTEXID")
            self.sv = "VERTEXID"
        return d

    def common_declarations(self, d: list[str]) -> None:
        """Samplers, constants, temporaries, the address register and the immediates."""
        rng = self.rng
        if self.frag and self.has("tex"):
            for u in range(rng.randint(1, 2)):
                d.append(f"DCL SAMP[{u}]")
                self.samplers[u] = rng.choice(TEX_TARGETS)
                if self.chance(0.5):
                    d.append(f"DCL SVIEW[{u}], {self.samplers[u]}, FLOAT")
                    self.sviews.add(u)
            self.comp_imm = self.imm("UINT32", [0, 1, 2, 3])      # TG4's component
            if self.tex_rng.random() < 0.5:
                self.extra_target = self.tex_rng.choice(EXTRA_TARGETS)
                d.append(f"DCL SAMP[{EXTRA_UNIT}]")
                d.append(f"DCL SVIEW[{EXTRA_UNIT}], {self.extra_target}, FLOAT")
            if self.has("modern") and self.modern_rng.random() < 0.6:
                self.compare_target = self.modern_rng.choice(
                    SHADOW_CUBE_TARGETS if self.modern_rng.random() < 0.4 else COMPARE_TARGETS)
                d.append(f"DCL SAMP[{COMPARE_UNIT}]")
                d.append(f"DCL SVIEW[{COMPARE_UNIT}], {self.compare_target}, FLOAT")
        d.append(f"DCL CONST[0..{self.nconst - 1}]" if self.chance(0.6)
                 else f"DCL CONST[0][0..{self.nconst - 1}]")
        if self.cbuf1:
            d.append("DCL CONST[1][0..3]")
        nloops = self.max_loops if self.has("flow") else 0
        # reserved temporaries a processor adds after the loop counters (compute: the texel
        # coordinates of tgsi_compute.py's resource stream)
        self.first_extra_temp = self.ntemp + nloops
        last = self.first_extra_temp + self.extra_temps - 1
        d.append(f"DCL TEMP[0..{last}]" + (", LOCAL" if self.chance(0.3) else ""))
        if self.addr:
            d.append("DCL ADDR[0]")
        # immediates
        self.hex_floats = self.chance(0.25)
        self.float_imms = [self.imm("FLT32", [float(fconst(rng)) for _ in range(4)])
                           for _ in range(rng.randint(1, 3))]
        self.loop_imm = self.imm("INT32", [0, 1, rng.choice([2, 3]), -1])
        self.int_imms = [self.loop_imm]
        self.case_imms = []
        if self.has("int"):
            k = self.imm("INT32", [rng.choice([0, 1, 2, 3, -1, 5, 7, 16, 31, 255, -8])
                                   for _ in range(4)])
            self.int_imms.append(k)
            self.case_imms.append(k)
            u = self.imm("UINT32", [rng.choice([0, 1, 3, 8, 32, 0xFF, 0xFFFF, 0x80000000,
                                                0xFFFFFFFF]) for _ in range(4)])
            self.int_imms.append(u)
            self.case_imms.append(u)
        if self.geom:
            self.stream_imm = self.loop_imm          # x = 0: vertex stream 0
        if self.extra_target in ("2D_MSAA", "2D_ARRAY_MSAA"):
            # TXF / SAMPLE_I_MS coordinate masks (x, y < 8; layer, sample < 4)
            self.ms_imm = self.imm("UINT32", [7, 7, 3, 3])
        if self.frag and self.has("interp"):
            # INTERP_OFFSET offsets: sixteenths of a pixel within [-0.5, 0.4375] (GLSL 4.50
            # 8.13.2: coarser steps are implementation-defined, farther ones undefined);
            # INTERP_SAMPLE sample numbers (single-sampled: any is the centre)
            irng = self.interp_rng
            self.offset_imm = self.imm("FLT32", [irng.randint(-8, 7) / 16 for _ in range(4)])
            self.sample_imm = self.imm("INT32", [0, 1, 3, irng.randint(0, 15)])
        elif self.frag:
            self.sample_imm = self.imm("INT32", [0, 1, 3, 2])
        self.stage_immediates()
        if self.frag and self.has("tex") and self.has("coverage"):
            # SAMPLE_I's coordinate mask: texels 0..7 of level 0 (verify's textures are 8 a side)
            self.fetch_imm = self.imm("UINT32", [7, 7, 7, 0])
        d += [self.imm_text(k) for k in range(len(self.imms))]

    def stage_immediates(self) -> None:
        """Immediates a processor's own statements use (compute: tgsi_compute.py)."""
