"""The direct SPIR-V forms of the shader clock (IR CLOCK, TGSI CLOCK: SPV_KHR_shader_clock's
OpReadClockKHR, subgroup scope -- what glslang makes of clock2x32ARB) and of the fragment
interpolation opcodes (IR INTERPCENTROID /
INTERPSAMPLE / INTERPOFFSET, TGSI INTERP_*; issue 20): GLSL.std.450 InterpolateAtCentroid /
InterpolateAtSample / InterpolateAtOffset (capability InterpolationFunction).  Their operand is
a pointer to the Input variable itself (GLSL.std.450: "the interpolant must be a pointer to a
variable of the Input storage class"), not the staged copy the rest of the program reads:
:meth:`StagingMixin.input_value` records each varying's Input variable by binding.  The operand's
swizzle is applied to the result (the frontend leaves no other modifier on it)."""
from __future__ import annotations

from ...ir.model import DataType, Instruction, RegKind
from .base import NotCovered
from .module import CAPABILITY, DECORATION, GLSL, string_words

# the enumerants of this module's instructions, added to module.py's tables (kept here, with
# their only user)
GLSL.update(InterpolateAtCentroid=76, InterpolateAtSample=77, InterpolateAtOffset=78)
CAPABILITY.update(InterpolationFunction=52, InputAttachment=40, ShaderClockKHR=5055,
                  SubgroupBallotKHR=4423, SubgroupVoteKHR=4431)
DECORATION.update(InputAttachmentIndex=43)
#: opcodes written here (module.OP has the ones the rest of the path writes)
EXT_OP = dict(Extension=10, ImageRead=98, ReadClockKHR=5056, SubgroupBallotKHR=4421,
              SubgroupFirstInvocationKHR=4422, SubgroupAllKHR=4428, SubgroupAnyKHR=4429,
              SubgroupAllEqualKHR=4430, SubgroupReadInvocationKHR=4432)

INTERP_OPS = frozenset({"INTERPCENTROID", "INTERPSAMPLE", "INTERPOFFSET"})
_EXT = {"INTERPCENTROID": "InterpolateAtCentroid", "INTERPSAMPLE": "InterpolateAtSample",
        "INTERPOFFSET": "InterpolateAtOffset"}
_IDENTITY = (0, 1, 2, 3)


def interpolate(e, ins: Instruction) -> int:
    """The float vec4 ``ins`` computes (before its write)."""
    s = ins.srcs[0]
    reg = e.prog.registers[s.reg]
    if reg.kind != RegKind.INPUT or s.neg or s.abs or any(s.comp_neg) or max(s.swizzle) > 3:
        raise NotCovered(f"the instruction {ins.op} of an operand other than a swizzled input", ins)
    if s.index is not None and s.index.relative:
        raise NotCovered(f"the instruction {ins.op} of a relatively addressed input", ins)
    b = reg.bindings[0 if s.index is None else s.index.offset]
    var = interpolant_var(e, ins, b)
    e.m.capability("InterpolationFunction")
    f4 = e.t("f")
    if ins.op == "INTERPCENTROID":
        v = e.ext(_EXT[ins.op], f4, var)
    elif ins.op == "INTERPSAMPLE":
        v = e.ext(_EXT[ins.op], f4, var, e.operand(ins.srcs[1], DataType.INT, True))
    else:
        off = e.operand(ins.srcs[1], DataType.FLOAT, False)
        v = e.ext(_EXT[ins.op], f4, var, e.shuffle(off, off, (0, 1), "f"))
    if tuple(s.swizzle) != _IDENTITY:
        v = e.shuffle(v, v, s.swizzle, "f")
    return v



def interpolant_var(e, ins: Instruction, b) -> int:
    """The Input variable of the varying bound to ``b``, made now (before the prologue that
    stages it in, which takes this one and decorates it)."""
    key = b.text() if b is not None else None
    v = e.interp_inputs.get(key)
    if v is not None:
        return v
    for var, _, bb in e.plan.input_vars:
        if bb.text() != key:
            continue
        if var.builtin or var.glsl_type != "vec4" or var.name in e.instr.feeds:
            break
        v = e.interp_inputs[key] = e.interface_var("Input", e.t("f"), var)
        return v
    raise NotCovered(f"the instruction {ins.op} of the input {key}, which is not a float "
                     f"varying of the module (a built-in, or fed by the harness)", ins)


_SUBGROUP = 3          # SPIR-V Scope Subgroup


def _extension(m, name: str) -> None:
    if ("extension", name) not in m.cache:
        m.cache[("extension", name)] = 1
        words = string_words(name)
        # OpExtension goes before every OpExtInstImport (SPIR-V 2.4)
        m.sec["imports"][0:0] = [((len(words) + 1) << 16) | EXT_OP["Extension"], *words]


def _ext_val(e, op: str, rtype: int, *operands: int) -> int:
    r = e.m.id()
    e.body.extend((((len(operands) + 3) << 16) | EXT_OP[op], rtype, r, *operands))
    return r


def read_clock(e) -> int:
    """uvec4(clock low, clock high, 0, 0)."""
    m = e.m
    _extension(m, "SPV_KHR_shader_clock")
    m.capability("ShaderClockKHR")
    u2 = e.t("u", 2)
    r = m.id()
    e.body.extend(((4 << 16) | EXT_OP["ReadClockKHR"], u2, r, m.const_bits("u", _SUBGROUP)))
    zero = e.c("u", 0, 1)
    return e.vec("u", [e.x(r, 0, "u"), e.x(r, 1, "u"), zero, zero])


def subpass_input(e, var) -> tuple[int, str]:
    """TGSI FBFETCH's input (interface.py ``fragment.framebuffer``, Vulkan): a SubpassData
    image at the GLSL path's descriptor binding and input attachment index, read at the
    fragment's own position (OpImageRead at (0, 0): coordinates are relative to it)."""
    m = e.m
    m.capability("InputAttachment")
    img = m._type(("img", 6, 0, 0, "f", 2), "TypeImage", m.scalar("f"), 6, 0, 0, 0, 2, 0)
    v = m.variable(m.pointer("UniformConstant", img), "UniformConstant")
    m.decorate(v, "DescriptorSet", 0)
    m.decorate(v, "Binding", var.location)
    m.decorate(v, "InputAttachmentIndex", var.binding_index())
    image = e.val("Load", img, v)
    r = m.id()
    at = tuple(e.c("i", k, 1) for k in _FETCH_AT)
    e.body.extend(((5 << 16) | EXT_OP["ImageRead"], e.t("f"), r, image,
                   m.composite(e.t("i", 2), at)))
    return r, "f"


#: the subpass input's coordinate: (0, 0) is the fragment's own pixel (a test moves it)
_FETCH_AT = (0, 0)



def lane_op(e, ins: Instruction) -> int:
    """The inter-lane opcodes through SPV_KHR_subgroup_vote / SPV_KHR_shader_ballot (SPIR-V
    1.0; what glslang makes of GL_ARB_shader_group_vote / GL_ARB_shader_ballot): the uvec4
    ``ins`` writes."""
    m, op = e.m, ins.op
    u4, u1, b1 = e.t("u"), e.t("u", 1), e.t("b", 1)
    ones, zero = e.c("u", 0xFFFFFFFF, 1), e.c("u", 0, 1)
    if op in ("VOTEANY", "VOTEALL", "VOTEEQ", "BALLOT"):
        a = e.operand(ins.srcs[0], DataType.UINT, True)
        if op == "BALLOT":
            _extension(m, "SPV_KHR_shader_ballot")
            m.capability("SubgroupBallotKHR")
            set_ = e.val("INotEqual", b1, a, zero)
            mask = _ext_val(e, "SubgroupBallotKHR", u4, set_)
            return e.vec("u", [e.x(mask, 0, "u"), e.x(mask, 1, "u"), zero, zero])
        _extension(m, "SPV_KHR_subgroup_vote")
        m.capability("SubgroupVoteKHR")
        if op == "VOTEEQ":
            _extension(m, "SPV_KHR_shader_ballot")
            m.capability("SubgroupBallotKHR")
            first = _ext_val(e, "SubgroupFirstInvocationKHR", u1, a)
            vote = _ext_val(e, "SubgroupAllEqualKHR", b1, e.val("IEqual", b1, a, first))
        else:
            name = "SubgroupAnyKHR" if op == "VOTEANY" else "SubgroupAllKHR"
            vote = _ext_val(e, name, b1, e.val("INotEqual", b1, a, zero))
        return e.splat(e.sel(vote, ones, zero, "u", 1), "u")
    _extension(m, "SPV_KHR_shader_ballot")
    m.capability("SubgroupBallotKHR")
    a = e.operand(ins.srcs[0], DataType.UINT, False)
    if op == "READFIRST":
        return _ext_val(e, "SubgroupFirstInvocationKHR", u4, a)
    b = e.operand(ins.srcs[1], DataType.UINT, True)
    return _ext_val(e, "SubgroupReadInvocationKHR", u4, a, b)
