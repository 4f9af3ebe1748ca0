"""TGSI texture opcodes -> IR texture instructions (tgsi.rst "Texture Sampling"): the classic
forms (TEX TXP TXB TXL TXD TXF TXQ TEX_LZ TXF_LZ, the texture unit named by ``SAMP[n]`` and the
target by the instruction) and the sampler-view forms of the SAMPLE family (the target and the
return type from ``DCL SVIEW[n]``).  Each maps onto the IR's texture opcodes, its operands
gathered into the coordinate vector the IR opcode reads (GP4 Table X.17)."""
from __future__ import annotations

import dataclasses
import struct
from typing import TYPE_CHECKING

from ...ir.model import DataType, Dest, Instruction, Source, TexRef
from . import model as M

if TYPE_CHECKING:
    from .lower import Lowerer

F, S, U = DataType.FLOAT, DataType.INT, DataType.UINT
MAX_SAMPLER = 31               # texture[n] units (E5004 in the NV frontends too)
_TARGETS = {"1D": "1D", "2D": "2D", "3D": "3D", "CUBE": "CUBE", "RECT": "RECT",
            "SHADOW1D": "SHADOW1D", "SHADOW2D": "SHADOW2D", "SHADOWRECT": "SHADOWRECT",
            "SHADOWCUBE": "SHADOWCUBE", "1D_ARRAY": "ARRAY1D", "2D_ARRAY": "ARRAY2D",
            "SHADOW1D_ARRAY": "SHADOWARRAY1D", "SHADOW2D_ARRAY": "SHADOWARRAY2D",
            "BUFFER": "BUFFER", "CUBEARRAY": "ARRAYCUBE", "SHADOWCUBEARRAY": "SHADOWARRAYCUBE",
            "2D_MSAA": "2DMS", "2D_ARRAY_MSAA": "ARRAY2DMS"}
#: multisample targets: texel fetches (the sample index in w) and size/sample queries only
MULTISAMPLE = frozenset({"2DMS", "ARRAY2DMS"})
#: targets with exactly one level, which GLSL's textureQueryLevels does not take (GLSL 4.50
#: 8.9.1: no rectangle, buffer or multisample sampler; glslang accepts sampler2DRect, Mesa's
#: compiler refuses it -- TGSI fragment seed 905)
ONE_LEVEL = MULTISAMPLE | {"RECT", "SHADOWRECT", "BUFFER"}
CUBE_ARRAYS = frozenset({"ARRAYCUBE", "SHADOWARRAYCUBE"})
#: the TGSI spelling of an IR target, for messages
_TGSI_NAME = {ir: tgsi for tgsi, ir in _TARGETS.items()}

def _sampler(lw: "Lowerer", s: M.Src) -> int:
    if s.reg.file != "SAMP" or s.reg.indirect is not None:
        lw.reject("E7001", f"{lw.cur.opcode}: the sampler operand must be SAMP[n] (indirect "
                  "samplers are not supported)")
    if not 0 <= s.reg.index <= MAX_SAMPLER:
        lw.reject("E5004", f"SAMP[{s.reg.index}]: texture units are 0..{MAX_SAMPLER} (as "
                  "texture[n] of the NV frontends)")
    return s.reg.index


def _tex_target(lw: "Lowerer", t: M.Instruction) -> str:
    target = _TARGETS.get(t.texture or "")
    if target is None:
        lw.reject("E7001", f"texture target {t.texture} is not supported")
    return target


def _tex_offset(lw: "Lowerer", t: M.Instruction) -> tuple[int, int, int]:
    if not t.tex_offsets:
        return (0, 0, 0)
    if len(t.tex_offsets) > 1:
        lw.reject("E7001", "more than one texel offset operand")
    o = t.tex_offsets[0]
    if o.reg.file != "IMM" or o.reg.indirect is not None:
        lw.reject("E5003", "texel offsets must be immediates")
    words = lw.imm_words(o.reg.index)
    vals = []
    for c in range(3):
        w = words[o.swizzle[c]]
        vals.append(w - (1 << 32) if w & 0x80000000 else w)
    return tuple(vals)


def _tex(op: str, nsrc_coord: int = 1, lod_zero: bool = False):
    """TEX/TXP/TXB/TXL/TXD/TXF/TXQ and the LOD-zero forms: coordinate operands, then SAMP."""
    def fn(lw: "Lowerer", t: M.Instruction):
        irop = op
        unit = _sampler(lw, t.srcs[nsrc_coord])
        target = _tex_target(lw, t)
        dtype = lw.sview_type.get(unit, F)
        integer_coord = irop in ("TXF", "TXQ")
        srcs = [lw.src(s, integer_coord) for s in t.srcs[:nsrc_coord]]
        if lod_zero and target in CUBE_ARRAYS and irop == "TXL":
            # a cube-array coordinate fills all four components: the level goes in TXL2's
            # second operand (TEX_LZ on a shadow cube array: no GLSL function, refused below)
            irop, srcs = "TXL2", srcs + [Source(lw.const((0, 0, 0, 0)))]
        elif lod_zero:
            # TEX_LZ / TXF_LZ: the same with LOD 0 in w
            k = lw.scratch("lz")
            lw.emit(Instruction("MOV", U, Dest(k), (srcs[0],)))
            lw.emit(Instruction("MOV", U, Dest(k, mask=(False, False, False, True)),
                                (Source(lw.const((0, 0, 0, 0))),)))
            srcs[0] = Source(k)
        if irop == "TXQ":
            dtype = S
        elif target.startswith("SHADOW"):
            dtype = F      # a depth comparison yields a float, whatever SVIEW's return type
        offset = _check_tex(lw, irop, unit, target, _tex_offset(lw, t))
        lw.emit(Instruction(irop, dtype, lw.dst(t.dsts[0]), tuple(srcs), lw.sat(dtype != F),
                            tex=TexRef(unit, target, offset)))
    return fn


#: texel offset components a target uses (the rest are ignored: TGSI always carries three)
_OFFSET_DIMS = {"1D": 1, "ARRAY1D": 1, "SHADOW1D": 1, "SHADOWARRAY1D": 1, "3D": 3, "CUBE": 0,
                "SHADOWCUBE": 0, "BUFFER": 0, "ARRAYCUBE": 0, "SHADOWARRAYCUBE": 0}
TEXEL_OFFSET_RANGE = (-8, 7)      # MIN/MAX_PROGRAM_TEXEL_OFFSET (GL minimum maximums)


def _check_tex(lw: "Lowerer", irop: str, unit: int, target: str,
               offset: tuple[int, int, int]) -> tuple[int, int, int]:
    """What the NV4 frontend checks too (GP4 2.X.4.4; nv4.py check_target/texel_offset): the
    target suits the opcode, one target per sampler, offsets in range.  Returns the offset
    with the components the target does not use zeroed."""
    op = lw.cur.opcode
    name = _TGSI_NAME.get(target, target)
    if target in MULTISAMPLE and irop not in ("TXF", "TXQ", "TXQS"):
        lw.reject("E5001", f"{op} cannot sample a multisample ({name}) texture: only texel "
                  "fetches (TXF, SAMPLE_I_MS) and size/sample-count queries read one")
    if target in MULTISAMPLE and irop == "TXF" and any(offset):
        lw.reject("E5003", f"{op}: texel offsets are not allowed with multisample textures "
                  "(GLSL has no texelFetchOffset for them)")
    if target in CUBE_ARRAYS:
        if irop == "TXF":
            lw.reject("E5001", f"{op} cannot fetch from {name} textures")
        if irop in ("TXB", "TXL", "TXP"):
            lw.reject("E5001", f"{op} cannot be used with {name} (a cube-array coordinate "
                      "fills all four components; TGSI has TXB2/TXL2 for the bias and the level)")
        if target == "SHADOWARRAYCUBE" and irop in ("TEX", "TXD", "TXB2", "TXL2"):
            reason = ("the reference value goes in TEX2's second operand" if irop == "TEX" else
                      "GLSL has no lookup of a samplerCubeArrayShadow with a bias, a level or "
                      "gradients")
            lw.reject("E5001" if irop == "TEX" else "E7001",
                      f"{op} on a shadow cube array: {reason}")
        if any(offset):
            lw.reject("E5003", f"texel offsets are not allowed with the {name} target")
    if irop == "TEX2" and target != "SHADOWARRAYCUBE":
        lw.reject("E5001", f"{op} is for shadow cube arrays only (tgsi.rst TEX2), not {name}")
    if irop == "TXL2" and target != "ARRAYCUBE":
        lw.reject("E5001", f"{op} is for cube arrays only (tgsi.rst TXL2), not {name}")
    if irop == "TXB2" and target not in ("ARRAYCUBE", "SHADOWCUBE"):
        lw.reject("E5001", f"{op} is for cube arrays and shadow cube maps only (tgsi.rst TXB2), "
                  f"not {name}")
    if target == "BUFFER" and irop not in ("TXF", "TXQ"):
        lw.reject("E5001", f"the BUFFER target is only valid with TXF and TXQ, not {lw.cur.opcode}")
    if irop == "TXF" and (target.startswith("SHADOW") or target == "CUBE"):
        lw.reject("E5001", f"{lw.cur.opcode} cannot fetch from {target} textures")
    if irop in ("TXB", "TXL", "TXP") and target in ("SHADOWCUBE", "SHADOWARRAY2D"):
        lw.reject("E5001", f"{lw.cur.opcode} cannot be used with {target} (no coordinate left "
                  "for the reference value; TGSI has TXB2/TXL2 for it)")
    dims = _OFFSET_DIMS.get(target, 2)
    if any(offset) and dims == 0:
        lw.reject("E5003", f"texel offsets are not allowed with the {target} target")
    lo, hi = TEXEL_OFFSET_RANGE
    for v in offset[:dims]:
        if not lo <= v <= hi:
            lw.reject("E5003", f"texel offset {v} out of range [{lo}, {hi}]")
    prev = lw.tex_targets.setdefault(unit, target)
    if prev != target:
        lw.reject("E5002", f"SAMP[{unit}] is used with target {target} and {prev}; one target "
                  "per sampler")
    return tuple(offset[:dims]) + (0,) * (3 - dims)



def _scalar_operand(irop: str):
    """TEX2 / TXB2 / TXL2 dst, coord, extra, SAMP[n] (tgsi.rst): the reference, bias or level
    in extra.x (a shadow cube array's reference in extra.y: TXB2/TXL2 on one are refused, as
    GLSL cannot express them)."""
    def fn(lw: "Lowerer", t: M.Instruction):
        unit = _sampler(lw, t.srcs[2])
        target = _tex_target(lw, t)
        dtype = F if target.startswith("SHADOW") else lw.sview_type.get(unit, F)
        offset = _check_tex(lw, irop, unit, target, _tex_offset(lw, t))
        srcs = (lw.src(t.srcs[0]), _scalar(lw.src(t.srcs[1])))
        lw.emit(Instruction(irop, dtype, lw.dst(t.dsts[0]), srcs, lw.sat(dtype != F),
                            tex=TexRef(unit, target, offset)))
    return fn


def _txqs(lw: "Lowerer", t: M.Instruction):
    """TXQS dst, SAMP[n]: the sample count in x (tgsi.rst: an unsigned integer, 1 for a
    texture that is not multisampled; the other components undefined -- the IR replicates)."""
    unit = _sampler(lw, t.srcs[0])
    target = _tex_target(lw, t)
    _check_tex(lw, "TXQS", unit, target, (0, 0, 0))
    lw.emit(Instruction("TXQS", S, lw.dst(t.dsts[0]), (Source(lw.const((0, 0, 0, 0))),),
                        tex=TexRef(unit, target)))


#: the targets textureQueryLod takes (GLSL 4.50 8.9.1: no rectangle, buffer or multisample ones)
_LODQ_TARGETS = frozenset({"1D", "2D", "3D", "CUBE", "ARRAY1D", "ARRAY2D", "ARRAYCUBE",
                           "SHADOW1D", "SHADOW2D", "SHADOWCUBE", "SHADOWARRAY1D",
                           "SHADOWARRAY2D", "SHADOWARRAYCUBE"})


def _lodq(lw: "Lowerer", t: M.Instruction):
    """LODQ dst, coord, SAMP[n]: (level accessed, lambda') in xy (tgsi.rst LODQ; the executor's
    op_lodq says how each is computed); z and w, undefined there, are 0 here."""
    _emit_lodq(lw, t, _sampler(lw, t.srcs[1]), _tex_target(lw, t), "texture")


def _emit_lodq(lw: "Lowerer", t: M.Instruction, unit: int, target: str, what: str) -> None:
    """The IR LODQ of ``t``'s coordinate (its first source) on ``unit``, refused (E5001) for
    the targets textureQueryLod does not take; ``what``: "texture" or "sampler view"."""
    if target not in _LODQ_TARGETS:
        lw.reject("E5001", f"{t.opcode} cannot query the level of detail of a "
                  f"{_TGSI_NAME.get(target, target)} {what} (GLSL's textureQueryLod takes no "
                  "rectangle, buffer or multisample sampler)")
    _check_tex(lw, "LODQ", unit, target, _tex_offset(lw, t))
    lw.emit(Instruction("LODQ", F, lw.dst(t.dsts[0]), (lw.src(t.srcs[0]),), lw.sat(False),
                        tex=TexRef(unit, target)))


TEXTURE_OPS = {
    "TEX": _tex("TEX"), "TXP": _tex("TXP"), "TXB": _tex("TXB"), "TXL": _tex("TXL"),
    "TXD": _tex("TXD", 3), "TXF": _tex("TXF"), "TXQ": _tex("TXQ"),
    "TEX_LZ": _tex("TXL", lod_zero=True), "TXF_LZ": _tex("TXF", lod_zero=True),
    "TEX2": _scalar_operand("TEX2"), "TXB2": _scalar_operand("TXB2"),
    "TXL2": _scalar_operand("TXL2"), "TXQS": _txqs, "LODQ": _lodq,
}


# ---- the sampler-view forms (SAMPLE*, SVIEWINFO) ------------------------------------------------
#: the depth-comparison target of a sampler view's target for SAMPLE_C / SAMPLE_C_LZ, and the
#: coordinate component the reference goes in (GP4 Table X.17: the one after the coordinates)
_COMPARE = {"1D": ("SHADOW1D", 2), "2D": ("SHADOW2D", 2), "RECT": ("SHADOWRECT", 2),
            "ARRAY1D": ("SHADOWARRAY1D", 2), "CUBE": ("SHADOWCUBE", 3),
            "ARRAY2D": ("SHADOWARRAY2D", 3)}


def _sview(lw: "Lowerer", s: M.Src) -> tuple[int, str]:
    """The texture unit and IR target of a ``SVIEW[n]`` operand (its declaration's target)."""
    op = lw.cur.opcode
    if s.reg.file != "SVIEW" or s.reg.indirect is not None:
        lw.reject("E7001", f"{op}: the sampler-view operand must be SVIEW[n] (indirect sampler "
                  "views are not supported)")
    n = s.reg.index
    if not 0 <= n <= MAX_SAMPLER:
        lw.reject("E5004", f"SVIEW[{n}]: texture units are 0..{MAX_SAMPLER}")
    d = lw.decl_of.get(("SVIEW", None, n))
    if d is None:
        lw.reject("E2003", f"SVIEW[{n}] is not declared ({op} takes its target from the "
                  "declaration)")
    target = _TARGETS.get(d.target or "")
    if target is None:
        lw.reject("E7001", f"SVIEW[{n}] has target {d.target}, which is not supported")
    return n, target


def _scalar(src: Source) -> Source:
    """The first component of an operand, replicated (the ``.x`` of a lod, bias or reference
    operand: tgsi_exec reads channel X of its swizzle)."""
    x = src.swizzle[0]
    return dataclasses.replace(src, swizzle=(x, x, x, x))


def _sample(form: str):
    """SAMPLE (``""``), SAMPLE_B, SAMPLE_L, SAMPLE_D, SAMPLE_C, SAMPLE_C_LZ, SAMPLE_I.

    ``SAMPLE dst, address, SVIEW[v], SAMP[s], extra...``: the IR binds a texture and its
    sampler state as one unit, so ``s`` must equal ``v`` (Mesa's state trackers pair them so).
    The sampler view's swizzle applies to the result, as tgsi_exec's ``exec_sample`` stores
    ``r[swizzle]``."""
    def fn(lw: "Lowerer", t: M.Instruction):
        kind = form
        op = t.opcode
        view = t.srcs[1]
        unit, target = _sview(lw, view)
        if kind != "I":
            samp = _sampler(lw, t.srcs[2])
            if samp != unit:
                lw.reject("E7001", f"{op} pairs SVIEW[{unit}] with SAMP[{samp}]: xlate binds a "
                          "sampler view with the sampler of the same index (texture unit n)")
        coord = lw.src(t.srcs[0], integer=kind == "I")
        extra = [lw.src(s) for s in t.srcs[3:]]
        irop, srcs = {"": "TEX", "B": "TXB", "L": "TXL", "D": "TXD", "C": "TEX",
                      "C_LZ": "TXL", "I": "TXF"}[kind], [coord]
        if kind == "I" and target in MULTISAMPLE:
            lw.reject("E5001", f"{op} cannot fetch from a multisample sampler view "
                      f"({_TGSI_NAME[target]}): SAMPLE_I_MS names the sample")
        if target == "ARRAYCUBE" and kind in ("B", "L", "C", "C_LZ"):
            # the coordinate fills all four components: the bias, level or reference goes in
            # a second operand (TXB2, TXL2, TEX2 -- as Mesa's state tracker emits them)
            if kind == "C_LZ":
                lw.reject("E7001", f"{op} on a cube-array sampler view: GLSL has no "
                          "explicit-level lookup of a samplerCubeArrayShadow")
            irop = {"B": "TXB2", "L": "TXL2", "C": "TEX2"}[kind]
            target = "SHADOWARRAYCUBE" if kind == "C" else target
            srcs = [coord, _scalar(extra[0])]
            kind = "2"
        if kind == "D":
            srcs += extra
        elif kind in ("B", "L", "C", "C_LZ"):
            k = lw.scratch("sc")
            lw.emit(Instruction("MOV", F, Dest(k), (coord,)))
            if kind in ("C", "C_LZ"):
                if target not in _COMPARE:
                    lw.reject("E5001", f"{op} cannot compare against a {target} sampler view")
                target, ref_at = _COMPARE[target]
                if kind == "C_LZ" and ref_at == 3:
                    lw.reject("E7001", f"{op} on a {target[6:]} sampler view: the IR's "
                              "explicit-LOD lookup has no coordinate left for both the reference "
                              "and the level (GLSL has no textureLod for this sampler type)")
                mask = tuple(c == ref_at for c in range(4))
                lw.emit(Instruction("MOV", F, Dest(k, mask=mask), (_scalar(extra[0]),)))
            if kind != "C":
                w = (False, False, False, True)
                lod = Source(lw.const((0, 0, 0, 0))) if kind == "C_LZ" else _scalar(extra[0])
                lw.emit(Instruction("MOV", F, Dest(k, mask=w), (lod,)))
            srcs = [Source(k)]
        dtype = F if target.startswith("SHADOW") else lw.sview_type.get(unit, F)
        offset = _check_tex(lw, irop, unit, target, _tex_offset(lw, t))
        ins = Instruction(irop, dtype, None, tuple(srcs), lw.sat(dtype != F),
                          tex=TexRef(unit, target, offset))
        _store_swizzled(lw, t, ins, view.swizzle)
    return fn


def _sample_i_ms(lw: "Lowerer", t: M.Instruction):
    """SAMPLE_I_MS dst, address, SVIEW[v], sample: a texel fetch from a multisample view, the
    sample index (sample.x) in the IR fetch's w (TXF on 2DMS/ARRAY2DMS: tgsi.rst TXF "the
    fourth component indicates the sample")."""
    view = t.srcs[1]
    unit, target = _sview(lw, view)
    if target not in MULTISAMPLE:
        lw.reject("E5001", f"{t.opcode} fetches from multisample sampler views only, not "
                  f"{_TGSI_NAME.get(target, target)} (SAMPLE_I reads the others)")
    k = lw.scratch("ms")
    lw.emit(Instruction("MOV", U, Dest(k), (lw.src(t.srcs[0], integer=True),)))
    lw.emit(Instruction("MOV", U, Dest(k, mask=(False, False, False, True)),
                        (_scalar(lw.src(t.srcs[2], integer=True)),)))
    dtype = lw.sview_type.get(unit, F)
    offset = _check_tex(lw, "TXF", unit, target, _tex_offset(lw, t))
    ins = Instruction("TXF", dtype, None, (Source(k),), lw.sat(dtype != F),
                      tex=TexRef(unit, target, offset))
    _store_swizzled(lw, t, ins, view.swizzle)


def _store_swizzled(lw: "Lowerer", t: M.Instruction, ins: Instruction, swizzle) -> None:
    """Emit ``ins`` into the destination, its result swizzled by the sampler view's swizzle."""
    if tuple(swizzle) == (0, 1, 2, 3):
        ins.dst = lw.dst(t.dsts[0])
        lw.emit(ins)
        return
    r = lw.scratch("sv")
    sat = ins.sat
    ins.dst, ins.sat = Dest(r), type(sat).NONE
    lw.emit(ins)
    mov_type = F if ins.dtype == F else U        # a bit copy of integer results
    lw.emit(Instruction("MOV", mov_type, lw.dst(t.dsts[0]), (Source(r, swizzle=tuple(swizzle)),),
                        sat))


def _sviewinfo(lw: "Lowerer", t: M.Instruction):
    """SVIEWINFO dst, mip_level, SVIEW[n]: (width, height, depth or layers) of the level as TXQ
    gives them, and in w the number of mipmap levels (IR TXQLEVELS; tgsi.rst: correct even where
    the level is out of range, the size then 0)."""
    unit, target = _sview(lw, t.srcs[1])
    lod = lw.src(t.srcs[0], integer=True)
    offset = _check_tex(lw, "TXQ", unit, target, (0, 0, 0))
    d = lw.dst(t.dsts[0])
    size_mask = tuple(m for m in d.mask[:3]) + (False,)
    if any(size_mask):
        lw.emit(Instruction("TXQ", S, Dest(d.reg, d.index, size_mask, d.cond), (_scalar(lod),),
                            tex=TexRef(unit, target, offset)))
    if d.mask[3] and target in ONE_LEVEL:
        # one level (GLSL's textureQueryLevels takes no rectangle, buffer or multisample sampler)
        lw.emit(Instruction("MOV", U, Dest(d.reg, d.index, (False, False, False, True), d.cond),
                            (Source(lw.const((1, 1, 1, 1))),)))
    elif d.mask[3]:
        lw.emit(Instruction("TXQLEVELS", S, Dest(d.reg, d.index, (False, False, False, True),
                                                 d.cond), (_scalar(lod),),
                            tex=TexRef(unit, target, offset)))


#: the targets texture gather reads (ARB_texture_gather; tgsi.rst TG4, GATHER4)
_GATHER_TARGETS = frozenset({"2D", "ARRAY2D", "CUBE", "ARRAYCUBE", "RECT", "SHADOW2D",
                             "SHADOWARRAY2D", "SHADOWCUBE", "SHADOWRECT"})


def _gather_component(lw: "Lowerer", s: M.Src) -> int:
    """TG4's component operand: an immediate 0..3 (GLSL's textureGather takes a constant), as
    an integer word or the float tgsi_dump prints for an FLT32 immediate."""
    if s.reg.file == "IMM" and s.reg.indirect is None and not (s.neg or s.abs):
        w = lw.imm_words(s.reg.index)[s.swizzle[0]]
        for c in range(4):
            if w in (c, struct.unpack("<I", struct.pack("<f", c))[0]):
                return c
    lw.reject("E7001", f"{lw.cur.opcode}: the component operand must be an immediate 0..3 "
              "(GLSL's textureGather takes a constant component)")


def _gather_checked(lw: "Lowerer", unit: int, target: str, t: M.Instruction, component: int,
                    coord: Source, dtype: DataType) -> Instruction:
    if target == "SHADOWARRAYCUBE":
        # GLSL's textureGather(samplerCubeArrayShadow, vec4, float refZ) takes the reference
        # apart from the four coordinates; TG4 has no operand to carry it (TEX2's second
        # operand is where tgsi.rst puts a shadow cube array's reference)
        lw.reject("E7001", f"{t.opcode} from a shadow cube array ({_TGSI_NAME[target]}): the "
                  "depth reference has no operand of its own in TG4")
    if target not in _GATHER_TARGETS:
        lw.reject("E5001", f"{t.opcode} cannot gather from {target} textures (2D, 2D array, cube, "
                  "cube array and rectangle textures only)")
    offset = _check_tex(lw, "TXG", unit, target, _tex_offset(lw, t))
    if target.startswith("SHADOW"):
        dtype = F
    return Instruction("TXG", dtype, None, (coord,), lw.sat(dtype != F),
                       tex=TexRef(unit, target, offset, component))


def _tg4(lw: "Lowerer", t: M.Instruction):
    """TG4 dst, coord, component, SAMP[n] (target in the instruction); a shadow target takes
    the reference from the coordinate as TEX does and ignores the component."""
    unit = _sampler(lw, t.srcs[2])
    target = _tex_target(lw, t)
    comp = 0 if target.startswith("SHADOW") else _gather_component(lw, t.srcs[1])
    ins = _gather_checked(lw, unit, target, t, comp, lw.src(t.srcs[0]),
                          lw.sview_type.get(unit, F))
    ins.dst = lw.dst(t.dsts[0])
    lw.emit(ins)


def _gather4(lw: "Lowerer", t: M.Instruction):
    """GATHER4 dst, address, SVIEW[v], SAMP[v]: the red components (D3D10 gather4), the
    view's swizzle applied to the result as for SAMPLE."""
    view = t.srcs[1]
    unit, target = _sview(lw, view)
    samp = _sampler(lw, t.srcs[2])
    if samp != unit:
        lw.reject("E7001", f"{t.opcode} pairs SVIEW[{unit}] with SAMP[{samp}]: xlate binds a "
                  "sampler view with the sampler of the same index (texture unit n)")
    ins = _gather_checked(lw, unit, target, t, 0, lw.src(t.srcs[0]),
                          lw.sview_type.get(unit, F))
    _store_swizzled(lw, t, ins, view.swizzle)


def _lod_sview(lw: "Lowerer", t: M.Instruction):
    """LOD dst, address, SVIEW[v], SAMP[s] (tgsi.rst "LOD - level of detail"): "Same syntax as
    the SAMPLE opcode" and the result of LODQ -- x the level accessed, y lambda', z and w 0.
    The sampler view's swizzle is not applied: it rearranges texel components, and LOD returns
    none (tgsi.rst names the components of the result itself)."""
    unit, target = _sview(lw, t.srcs[1])
    samp = _sampler(lw, t.srcs[2])
    if samp != unit:
        lw.reject("E7001", f"{t.opcode} pairs SVIEW[{unit}] with SAMP[{samp}]: xlate binds a "
                  "sampler view with the sampler of the same index (texture unit n)")
    _emit_lodq(lw, t, unit, target, "sampler view")


SAMPLE_OPS = {
    "TG4": _tg4, "GATHER4": _gather4, "SVIEWINFO": _sviewinfo, "LOD": _lod_sview,
    "SAMPLE": _sample(""), "SAMPLE_B": _sample("B"), "SAMPLE_L": _sample("L"),
    "SAMPLE_D": _sample("D"), "SAMPLE_C": _sample("C"), "SAMPLE_C_LZ": _sample("C_LZ"),
    "SAMPLE_I": _sample("I"), "SAMPLE_I_MS": _sample_i_ms,
}
