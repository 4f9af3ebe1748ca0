"""TGSI lowering: the opcode functions (``fn(lowerer, instruction)``, emitting IR through the
:class:`~xlate.frontends.tgsi.lower.Lowerer`) and the opcode table ``_OPS``; the readings chosen
are in ``lower.py``'s docstring."""
from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from . import model as M
from ...ir.model import CCKind, CondTest, DataType, Dest, Instruction, Sat, Source, Stage
from .doubles import DOUBLE_OPS
from .lower_fragment import FRAGMENT_OPS
from .lower_common import F, S, U, f32_bits
from .lower_memory import MEMORY_OPS
from .opcodes import OPCODES as TGSI_OPCODES
from .textures import SAMPLE_OPS, TEXTURE_OPS

if TYPE_CHECKING:
    from .lower import Lowerer


# ---- opcode functions -------------------------------------------------------------------------------
# Each takes (lowerer, tgsi instruction) and emits IR instructions.

def _simple(irop: str, dtype: DataType, integer_srcs: bool = False, integer_result: bool = False,
            **kw):
    def fn(lw: Lowerer, t: M.Instruction):
        srcs = tuple(lw.src(s, integer_srcs) for s in t.srcs)
        lw.emit(Instruction(irop, dtype, lw.dst(t.dsts[0]), srcs, lw.sat(integer_result), **kw))
    return fn


def _mov(lw: Lowerer, t: M.Instruction):
    s = t.srcs[0]
    plain = not (s.neg or s.abs or s.abs_neg or any(s.comp_neg)) and not t.saturate
    # outputs are float interfaces (colours, varyings): a bit copy into one stays float-typed
    dtype = U if plain and lw.is_int_src(s) and t.dsts[0].reg.file != "OUT" else F
    lw.emit(Instruction("MOV", dtype, lw.dst(t.dsts[0]), (lw.src(s),), lw.sat()))


def _demote(lw: Lowerer, t: M.Instruction):
    if lw.stage != Stage.FRAGMENT:
        lw.reject("E3004", f"{t.opcode} is a fragment-shader opcode")
    lw.emit(Instruction("DEMOTE"))


def _read_helper(lw: Lowerer, t: M.Instruction):
    if lw.stage != Stage.FRAGMENT:
        lw.reject("E3004", f"{t.opcode} is a fragment-shader opcode")
    lw.emit(Instruction("READHELPER", U, lw.dst(t.dsts[0]), ()))


def _ldexp(lw: Lowerer, t: M.Instruction):
    # tgsi.rst LDEXP: src1 is an integer (no |x| on it)
    a = lw.src(t.srcs[0])
    e = lw.src(t.srcs[1], integer=True)
    lw.emit(Instruction("LDEXP", F, lw.dst(t.dsts[0]), (a, e), lw.sat()))


def _ineg(lw: Lowerer, t: M.Instruction):
    s = lw.src(t.srcs[0], integer=True)
    lw.emit(Instruction("MOV", S, lw.dst(t.dsts[0]), (dataclasses.replace(s, neg=not s.neg),)))


def _per_channel(irop: str, dtype: DataType):
    """TGSI componentwise a OP b onto the IR's vector-by-scalar form: one IR instruction per
    written channel c with operand 1 replicated from its component c; through a scratch
    register when the destination is also a source (all sources are read first in TGSI)."""
    def fn(lw: Lowerer, t: M.Instruction):
        integer = dtype != F
        d = t.dsts[0]
        a = lw.src(t.srcs[0], integer)
        b = lw.src(t.srcs[1], integer)
        dest = lw.dst(d)
        alias = lw.overlaps(d, t.srcs)
        target = Dest(lw.scratch("pc")) if alias else dest
        sat = lw.sat(integer)
        for c in range(4):
            if not d.mask[c]:
                continue
            mask = tuple(i == c for i in range(4))
            bc = Source(b.reg, b.index, b.vertex, (b.swizzle[c],) * 4, b.neg, b.abs,
                        (b.comp_neg[c],) * 4)
            lw.emit(Instruction(irop, dtype, Dest(target.reg, target.index, mask, None if alias else dest.cond),
                                (a, bc), Sat.NONE if alias else sat))
        if alias:
            lw.emit(Instruction("MOV", F if sat != Sat.NONE else U, dest,
                                (Source(target.reg),), sat))
    return fn


def _with_constant_channels(irop: str, fixed: dict[int, float]):
    """XPD/SCS/NRM: the IR op, then the channels tgsi_exec writes as constants."""
    def fn(lw: Lowerer, t: M.Instruction):
        d = t.dsts[0]
        dest = lw.dst(d)
        srcs = tuple(lw.src(s) for s in t.srcs)
        mask_main = tuple(m and c not in fixed for c, m in enumerate(d.mask))
        if any(mask_main):
            lw.emit(Instruction(irop, F, Dest(dest.reg, dest.index, mask_main, dest.cond), srcs,
                                lw.sat()))
        mask_fixed = tuple(m and c in fixed for c, m in enumerate(d.mask))
        if any(mask_fixed):
            words = tuple(f32_bits(fixed.get(c, 0.0)) for c in range(4))
            lw.emit(Instruction("MOV", F, Dest(dest.reg, dest.index, mask_fixed, dest.cond),
                                (Source(lw.const(words)),)))
    return fn


def _nrm4(lw: Lowerer, t: M.Instruction):
    a = lw.src(t.srcs[0])
    k = lw.scratch("n")
    lw.emit(Instruction("DP4", F, Dest(k, mask=(True, False, False, False)), (a, a)))
    lw.emit(Instruction("RSQ", F, Dest(k, mask=(True, False, False, False)), (Source(k, swizzle=(0, 0, 0, 0)),)))
    lw.emit(Instruction("MUL", F, lw.dst(t.dsts[0]), (a, Source(k, swizzle=(0, 0, 0, 0))), lw.sat()))


def _select_on(cmp_op: str, threshold: float, true_src: int, false_src: int):
    """CND/CND0: dst = src2 CMP threshold ? src[true] : src[false], exactly: the set-on result
    (1.0/0.0) into a scratch, then CMP -c, x, y (-1.0 < 0 picks x; -0.0 does not)."""
    def fn(lw: Lowerer, t: M.Instruction):
        srcs = [lw.src(s) for s in t.srcs]
        k = lw.scratch("c")
        limit = Source(lw.const((f32_bits(threshold),) * 4))
        lw.emit(Instruction(cmp_op, F, Dest(k), (srcs[2], limit)))
        lw.emit(Instruction("CMP", F, lw.dst(t.dsts[0]),
                            (Source(k, neg=True), srcs[true_src], srcs[false_src]), lw.sat()))
    return fn


def _clamp(lw: Lowerer, t: M.Instruction):
    """CLAMP: s0 < s1 ? s1 : (s0 > s2 ? s2 : s0).  The inner part is exactly GP4 MIN(s0, s2);
    the outer select goes through SLT and CMP like CND (NaN in s0 stays NaN)."""
    s0, s1, s2 = (lw.src(s) for s in t.srcs)
    m, k = lw.scratch("m"), lw.scratch("c")
    lw.emit(Instruction("MIN", F, Dest(m), (s0, s2)))
    lw.emit(Instruction("SLT", F, Dest(k), (s0, s1)))
    lw.emit(Instruction("CMP", F, lw.dst(t.dsts[0]), (Source(k, neg=True), s1, Source(m)),
                        lw.sat()))


def _if(lw: Lowerer, t: M.Instruction):
    if t.cond is not None and not t.srcs:
        lw.emit(Instruction("IF", cond=lw.cond(t.cond)))
        return
    s = lw.src(t.srcs[0], integer=t.opcode == "UIF")
    cc = lw.flag_cc()
    k = lw.scratch("if")
    x = (True, False, False, False)
    if t.cond is not None:
        # seed IF with a source and CondFlowEnable: taken where the CC test passes (any of the
        # four swizzled components, as IF with the test alone) and src.x != 0.0.  Both as
        # ~0/0 words: the test through a conditional write of ~0 into a zeroed scratch, ORed
        # over its components, ANDed with FSNE src.x, 0.0 (NaN != 0.0; -0.0 is not), then the
        # bit test of UIF.
        g = lw.scratch("ifc")
        zero, ones = lw.const((0, 0, 0, 0)), lw.const((0xFFFFFFFF,) * 4)
        lw.emit(Instruction("MOV", U, Dest(g), (Source(zero),)))
        lw.emit(Instruction("MOV", U, Dest(g, cond=lw.cond(t.cond)), (Source(ones),)))
        lw.emit(Instruction("OR", U, Dest(g, mask=(True, True, False, False)),
                            (Source(g), Source(g, swizzle=(2, 3, 2, 3)))))
        lw.emit(Instruction("OR", U, Dest(g, mask=x), (Source(g), Source(g, swizzle=(1, 1, 1, 1)))))
        if t.opcode == "UIF":
            lw.emit(Instruction("AND", U, Dest(g, mask=x), (Source(g), s)))
        else:
            lw.emit(Instruction("FSNE", F, Dest(k, mask=x), (s, Source(zero))))
            lw.emit(Instruction("AND", U, Dest(g, mask=x), (Source(g), Source(k))))
        lw.emit(Instruction("MOV", U, Dest(k, mask=x), (Source(g),), cc_update=cc,
                            cc_kind=CCKind.INT))
        lw.emit(Instruction("IF", cond=CondTest("NE", cc, (0, 0, 0, 0))))
        return
    if t.opcode == "UIF":
        # UIF: src.x != 0 as bits (so -0.0 is true)
        lw.emit(Instruction("MOV", U, Dest(k, mask=x), (s,), cc_update=cc, cc_kind=CCKind.INT))
    else:
        # IF: src.x != 0.0 as a float (-0.0 false, NaN true).  The float flag rule sets SF for
        # NaN and ZF for +-0 and NaN (GP4 2.X.4.3), and NE = SF or not ZF: exactly that.
        lw.emit(Instruction("MOV", F, Dest(k, mask=x), (s,), cc_update=cc, cc_kind=CCKind.FLOAT))
    lw.emit(Instruction("IF", cond=CondTest("NE", cc, (0, 0, 0, 0))))


def _plain(irop: str):
    def fn(lw: Lowerer, t: M.Instruction):
        cond = lw.cond(t.cond) if t.cond is not None else None
        lw.emit(Instruction(irop, cond=cond))
    return fn


def _breakc(lw: Lowerer, t: M.Instruction):
    s = lw.src(t.srcs[0], integer=True)
    k = lw.scratch("if")
    cc = lw.flag_cc()
    lw.emit(Instruction("MOV", U, Dest(k, mask=(True, False, False, False)), (s,), cc_update=cc,
                        cc_kind=CCKind.INT))
    lw.emit(Instruction("BRK", cond=CondTest("NE", cc, (0, 0, 0, 0))))


def _switch(lw: Lowerer, t: M.Instruction):
    # structure() keeps the CASE values of each open SWITCH (lw.case_values)
    lw.emit(Instruction("SWITCH", U, srcs=(lw.src(t.srcs[0], integer=True),)))


def _case(lw: Lowerer, t: M.Instruction):
    s = t.srcs[0]
    if s.reg.file != "IMM" or s.reg.indirect is not None or s.neg or s.abs:
        lw.reject("E3004", "CASE needs an integer immediate operand (IMM[n].c)")
    value = lw.imm_words(s.reg.index)[s.swizzle[0]]
    seen = lw.case_values[-1]
    if value in seen:
        lw.reject("E3004", f"CASE {value} appears twice in this SWITCH")
    seen.add(value)
    lw.emit(Instruction("CASE", U, srcs=(Source(lw.const((value,) * 4)),)))


def _endswitch(lw: Lowerer, t: M.Instruction):
    lw.emit(Instruction("ENDSWITCH"))


def _cal(lw: Lowerer, t: M.Instruction):
    name = lw.sub_at.get(t.label) if t.label is not None else None
    if name is None:
        lw.reject("E4001", f"CAL :{t.label} does not name a BGNSUB instruction")
    cond = lw.cond(t.cond) if t.cond is not None else None
    lw.emit(Instruction("CAL", label=name, cond=cond))


def _kill(lw: Lowerer, t: M.Instruction):
    if lw.stage != Stage.FRAGMENT:
        lw.reject("E3004", f"{t.opcode} is a fragment-shader opcode")
    if t.opcode == "KILL":
        cond = lw.cond(t.cond) if t.cond is not None else CondTest("TR")
        lw.emit(Instruction("KIL", cond=cond))
    elif t.cond is not None:
        # seed KILL_IF with CondFlowEnable: component c takes part where the CC test of
        # CondSwizzle[c] passes (the per-component reading of "executes only where the test
        # passes", as for the writes of an ALU instruction): the gated components into a
        # zeroed scratch, then KIL on it (0.0 never kills)
        k = lw.scratch("kc")
        lw.emit(Instruction("MOV", F, Dest(k), (Source(lw.const((0, 0, 0, 0))),)))
        lw.emit(Instruction("MOV", F, Dest(k, cond=lw.cond(t.cond)), (lw.src(t.srcs[0]),)))
        lw.emit(Instruction("KIL", F, srcs=(Source(k),)))
    else:
        lw.emit(Instruction("KIL", F, srcs=(lw.src(t.srcs[0]),)))


def _deriv(irop: str):
    def fn(lw: Lowerer, t: M.Instruction):
        if lw.stage != Stage.FRAGMENT:
            lw.reject("E3004", f"{t.opcode} is a fragment-shader opcode")
        _simple(irop, F)(lw, t)
    return fn


def _emit_geom(irop: str):
    def fn(lw: Lowerer, t: M.Instruction):
        if lw.stage != Stage.GEOMETRY:
            lw.reject("E3004", f"{t.opcode} is a geometry-shader opcode")
        if t.srcs:
            s = t.srcs[0]
            if s.reg.file != "IMM" or lw.imm_words(s.reg.index)[s.swizzle[0]] != 0:
                lw.reject("E7001", f"{t.opcode} to a vertex stream other than 0 is not supported")
        if irop == "EMIT" and lw.out_read:
            lw.copy_outputs()
        lw.emit(Instruction(irop))
    return fn


_OPS = {
    # float arithmetic (tgsi.md 2.2)
    "MOV": _mov, "ADD": _simple("ADD", F), "SUB": _simple("SUB", F), "MUL": _simple("MUL", F),
    "MAD": _simple("MAD", F), "LRP": _simple("LRP", F), "DP2": _simple("DP2", F),
    "DP3": _simple("DP3", F), "DP4": _simple("DP4", F), "DPH": _simple("DPH", F),
    "DP2A": _simple("DP2A", F), "DST": _simple("DST", F), "MIN": _simple("MINNUM", F),
    "MAX": _simple("MAXNUM", F), "SLT": _simple("SLT", F), "SGE": _simple("SGE", F),
    "SEQ": _simple("SEQ", F), "SGT": _simple("SGT", F), "SLE": _simple("SLE", F),
    "SNE": _simple("SNE", F), "SFL": _simple("SFL", F), "STR": _simple("STR", F),
    "CMP": _simple("CMP", F), "SSG": _simple("SSG", F), "FRC": _simple("FRC", F),
    "FLR": _simple("FLR", F), "CEIL": _simple("CEIL", F), "TRUNC": _simple("TRUNC", F),
    "ROUND": _simple("ROUND", F), "RCP": _simple("RCP", F), "RSQ": _simple("RSQ", F),
    "SQRT": _simple("SQRT", F), "EX2": _simple("EX2", F), "LG2": _simple("LG2", F),
    "POW": _simple("POW", F), "SIN": _simple("SIN", F), "COS": _simple("COS", F),
    "EXP": _simple("EXPA", F), "LOG": _simple("LOGA", F), "LIT": _simple("LIT", F),
    # EXP/LOG: tgsi.rst's formulas have no special cases (IR EXPA/LOGA, not VP1's EXP/LOG)
    "ABS": _simple("ABS", F), "RCC": _simple("RCC", F), "RFL": _simple("RFL", F),
    "X2D": _simple("X2D", F), "DIV": _per_channel("DIV", F),
    "PK2H": _simple("PK2H", F), "UP2H": _simple("UP2H", F),
    # tgsi.rst PK2US/PK4UB: f32_to_unorm16/8 (NaN 0, clamped, rounded to nearest even: the IR's
    # NV rows); UP2US/UP4UB are "TBD" there: read as their inverses (the IR's NV unpacks)
    "PK2US": _simple("PK2US", F), "PK4UB": _simple("PK4UB", F),
    "UP2US": _simple("UP2US", F), "UP4UB": _simple("UP4UB", F),
    # PK4B: two's-complement snorm8 (tgsi.rst), not GP4's excess-128: its own IR rows, .U
    "PK4B": _simple("PK4SNORM", U), "UP4B": _simple("UP4SNORM", U),
    "XPD": _with_constant_channels("XPD", {3: 1.0}),
    "SCS": _with_constant_channels("SCS", {2: 0.0, 3: 1.0}),
    "NRM": _with_constant_channels("NRM", {3: 1.0}), "NRM4": _nrm4,
    "CLAMP": _clamp, "CND": _select_on("SGT", 0.5, 0, 1), "CND0": _select_on("SGE", 0.0, 0, 1),
    "DDX": _deriv("DDX"), "DDY": _deriv("DDY"),
    # address registers
    "ARL": _simple("FLR", S), "ARR": _simple("ROUND", S), "UARL": _simple("MOV", S, True, True),
    # integer (2.4)
    "I2F": _simple("I2F", S, True), "U2F": _simple("I2F", U, True),
    "F2I": _simple("TRUNC", S, integer_result=True), "F2U": _simple("TRUNC", U, integer_result=True),
    "UADD": _simple("ADD", U, True, True), "UMUL": _simple("MUL", U, True, True),
    "UMAD": _simple("MAD", U, True, True),
    "IMUL_HI": _simple("MUL", S, True, True, mul_mode="HI"),
    "UMUL_HI": _simple("MUL", U, True, True, mul_mode="HI"),
    "IDIV": _per_channel("DIV", S), "UDIV": _per_channel("DIV", U),
    "MOD": _per_channel("MOD", S), "UMOD": _per_channel("MOD", U),
    "IMAX": _simple("MAX", S, True, True), "IMIN": _simple("MIN", S, True, True),
    "UMAX": _simple("MAX", U, True, True), "UMIN": _simple("MIN", U, True, True),
    "INEG": _ineg, "IABS": _simple("ABS", S, True, True), "ISSG": _simple("ISSG", S, True, True),
    "NOT": _simple("NOT", U, True, True), "AND": _simple("AND", U, True, True),
    "OR": _simple("OR", U, True, True), "XOR": _simple("XOR", U, True, True),
    "SHL": _per_channel("SHL", U), "ISHR": _per_channel("SHR", S), "USHR": _per_channel("SHR", U),
    "ISLT": _simple("SLT", S, True, True), "ISGE": _simple("SGE", S, True, True),
    "USLT": _simple("SLT", U, True, True), "USGE": _simple("SGE", U, True, True),
    "USEQ": _simple("SEQ", U, True, True), "USNE": _simple("SNE", U, True, True),
    "FSLT": _simple("FSLT", F, integer_result=True), "FSGE": _simple("FSGE", F, integer_result=True),
    "FSEQ": _simple("FSEQ", F, integer_result=True), "FSNE": _simple("FSNE", F, integer_result=True),
    "FMA": _simple("FMA", F), "LDEXP": _ldexp,
    "DEMOTE": _demote, "READ_HELPER": _read_helper,
    # DDX/DDY are fine derivatives in the IR already (one per row / column of the 2x2 quad)
    "DDX_FINE": _deriv("DDX"), "DDY_FINE": _deriv("DDY"),
    # bitfield (2.5): offsets and widths are unsigned words (IR BFEXT..MSB)
    "IBFE": _simple("BFEXT", S, True, True), "UBFE": _simple("BFEXT", U, True, True),
    "BFI": _simple("BFINS", U, True, True), "BREV": _simple("BREV", U, True, True),
    "POPC": _simple("POPC", U, True, True), "LSB": _simple("LSB", U, True, True),
    "IMSB": _simple("MSB", S, True, True), "UMSB": _simple("MSB", U, True, True),
    "UCMP": lambda lw, t: _simple("UCMP", U if all(lw.is_int_src(s) and not (s.neg or s.abs)
                                                   for s in t.srcs[1:]) else F)(lw, t),
    # control flow (2.6)
    "IF": _if, "UIF": _if, "ELSE": _plain("ELSE"), "ENDIF": _plain("ENDIF"),
    "BGNLOOP": _plain("REP"), "ENDLOOP": _plain("ENDREP"), "BRK": _plain("BRK"),
    "CONT": _plain("CONT"), "RET": _plain("RET"), "CAL": _cal, "BREAKC": _breakc,
    "SWITCH": _switch, "CASE": _case, "DEFAULT": _plain("DEFAULT"), "ENDSWITCH": _endswitch,
    "NOP": lambda lw, t: None,
    "KILL": _kill, "KILL_IF": _kill,
    "EMIT": _emit_geom("EMIT"), "ENDPRIM": _emit_geom("ENDPRIM"),
    # textures (2.7)
    **TEXTURE_OPS, **SAMPLE_OPS, **DOUBLE_OPS,
    # memory and synchronisation (lower_memory.py)
    **MEMORY_OPS,
    **FRAGMENT_OPS,
}


#: opcodes refused for good (issue 20), with the reason a modern target cannot express them
_BINDLESS = ("a bindless handle (tgsi.rst: PIPE_CAP_BINDLESS_TEXTURE) is the driver's 64-bit "
             "value, made and used only through GL_ARB_bindless_texture, which llvmpipe does not "
             "have and Vulkan SPIR-V has no form of (descriptors are bound, not handles)")
_REFUSED = {"IMG2HND": _BINDLESS, "SAMP2HND": _BINDLESS}


def _unsupported_why(op: str) -> str:
    """Why an opcode without a lowering function is refused (E3008): "not yet supported" and
    its group for the opcodes of tgsi.rst xlate does not translate yet (the list
    tests/test_tgsi_opcode_coverage.py keeps, which may only shrink); a reason for the rest."""
    tier = TGSI_OPCODES[op].tier if op in TGSI_OPCODES else "?"
    if tier == "X":
        return "no Mesa driver ever implemented it"
    if op in _REFUSED:
        return _REFUSED[op]
    group = "resources, atomics, barriers, subgroups, multisample and interpolation forms" \
        if tier == "R" else None
    return "not yet supported" + (f": {group}" if group else "")
