"""The opcode table: one row per canonical IR opcode.

Both the executor (``xlate/exec``) and the GLSL backend (``templates/glsl/ops.j2``) are driven
by this table; a test checks that each opcode here has an executor function and a GLSL
snippet.  Rows follow NV_gpu_program4 Table X.13, whose mnemonics are the canonical names.

Operand/result kinds (GP4 Table X.13):
  ``v``  4-component vector, data type of the instruction
  ``vf`` 4-component vector, always float      ``vs`` always signed int    ``vu`` always unsigned
  ``s``  scalar (one selected component), data type of the instruction; as a result: replicated
  ``-``  no result
Modifier classes: F float types, I integer types (.S/.U), C condition-code update,
S saturation, H half-precision suffix.
"""
from __future__ import annotations

from dataclasses import dataclass

from .model import DataType


@dataclass(frozen=True)
class OpInfo:
    name: str
    inputs: tuple[str, ...]
    output: str
    mods: str                 # subset of "FICSH"
    default: DataType
    category: str             # alu | tex | flow | kill | geom
    description: str

    @property
    def scalar_result(self) -> bool:
        return self.output == "s"

    @property
    def writes(self) -> bool:
        return self.output != "-"

    def allows(self, dtype: DataType) -> bool:
        if dtype == DataType.FLOAT:
            return "F" in self.mods or (self.default == DataType.FLOAT and not self.mods)
        return "I" in self.mods or (self.default == dtype)

    def operand_type(self, i: int, dtype: DataType) -> DataType:
        return _FIXED_KIND.get(self.inputs[i], dtype)

    def result_type(self, dtype: DataType) -> DataType:
        return _FIXED_KIND.get(self.output, dtype)

    # ---- the properties below read the tables at the end of this module -------------------
    @property
    def shape(self) -> str:
        """Operand shapes, one letter per operand: ``v`` a vector (of any type), ``s`` a
        scalar (one selected component) -- the frontends' signature tables and the random
        program generators use these."""
        return "".join("s" if k == "s" else "v" for k in self.inputs)

    @property
    def componentwise(self) -> bool:
        return self.name in COMPONENTWISE

    @property
    def inexact(self) -> tuple[int, float] | None:
        """(ulps, absolute) a result depending on this opcode may differ by (INEXACT)."""
        return INEXACT.get(self.name)

    @property
    def undefined_components(self) -> tuple[int, ...]:
        """Result components the specs leave undefined (XPD .w, SCS .zw ...)."""
        return UNDEFINED_COMPONENTS.get(self.name, ())

    @property
    def reads(self) -> tuple[int, ...] | None:
        """Components each vector operand is read in (dot products: DP3 reads x, y, z of both);
        None: all four."""
        return COMPONENTS_READ.get(self.name)

    @property
    def raw_operands(self) -> bool:
        """The operand is read as its 32 bits whatever the instruction's type (UP2H ...)."""
        return self.name in RAW_OPERAND_OPS

    @property
    def raw_result(self) -> bool:
        """The result is a packed word whatever the instruction's type (PK2H ...)."""
        return self.name in RAW_RESULT_OPS

    @property
    def boolean_result(self) -> bool:
        """A float result is exactly 0.0 or 1.0 (BOOLEAN_RESULTS)."""
        return self.name in BOOLEAN_RESULTS

    @property
    def selected_operands(self) -> tuple[int, ...]:
        """The operands a select returns one of, per component (SELECTED_OPERANDS); () for
        an opcode that computes its result."""
        return SELECTED_OPERANDS.get(self.name, ())

    @property
    def overflows(self) -> bool:
        """A non-finite result from finite operands can only be an overflow (OVERFLOWS)."""
        return self.name in OVERFLOWS

    @property
    def carry(self) -> bool:
        """An integer form sets OF/CF from an addition (ir/carry.py has the rule)."""
        return self.name in CARRY_OPS


F, S = DataType.FLOAT, DataType.INT
_FIXED_KIND = {"vf": DataType.FLOAT, "vs": DataType.INT, "vu": DataType.UINT}


def _row(name, out, inputs, mods, default, category, description):
    return OpInfo(name, tuple(inputs.split(",")) if inputs else (), out, mods, default, category,
                  description)


_TABLE = [
    # name     out   inputs        mods     dflt cat    description
    _row("ABS", "v", "v", "FICSH", F, "alu", "absolute value"),
    _row("ADD", "v", "v,v", "FICSH", F, "alu", "add"),
    _row("AND", "v", "v,v", "ICS", S, "alu", "bitwise and"),
    _row("CEIL", "v", "vf", "FICSH", F, "alu", "ceiling"),
    _row("CMP", "v", "v,v,v", "FICSH", F, "alu", "a < 0 ? b : c"),
    _row("COS", "s", "s", "FCSH", F, "alu", "cosine"),
    _row("DDX", "v", "v", "FCSH", F, "alu", "partial derivative in x"),
    _row("DDY", "v", "v", "FCSH", F, "alu", "partial derivative in y"),
    _row("DIV", "v", "v,s", "FICSH", F, "alu", "divide vector components by scalar"),
    _row("DP2", "s", "v,v", "FCSH", F, "alu", "2-component dot product"),
    _row("DP2A", "s", "v,v,v", "FCSH", F, "alu", "2-component dot product plus c.x"),
    _row("DP3", "s", "v,v", "FCSH", F, "alu", "3-component dot product"),
    _row("DP4", "s", "v,v", "FCSH", F, "alu", "4-component dot product"),
    _row("DPH", "s", "v,v", "FCSH", F, "alu", "homogeneous dot product"),
    _row("DST", "v", "v,v", "FCSH", F, "alu", "distance vector"),
    _row("EX2", "s", "s", "FCSH", F, "alu", "exponential base 2"),
    _row("FLR", "v", "vf", "FICSH", F, "alu", "floor"),
    _row("FRC", "v", "v", "FCSH", F, "alu", "fraction"),
    _row("I2F", "vf", "v", "ICS", S, "alu", "integer to float"),
    _row("LG2", "s", "s", "FCSH", F, "alu", "logarithm base 2"),
    _row("LIT", "v", "v", "FCSH", F, "alu", "lighting coefficients"),
    _row("LRP", "v", "v,v,v", "FCSH", F, "alu", "linear interpolation a*b + (1-a)*c"),
    _row("MAD", "v", "v,v,v", "FICSH", F, "alu", "multiply and add"),
    _row("MAX", "v", "v,v", "FICSH", F, "alu", "maximum"),
    _row("MIN", "v", "v,v", "FICSH", F, "alu", "minimum"),
    _row("MOD", "v", "v,s", "ICS", S, "alu", "modulus by scalar"),
    _row("MOV", "v", "v", "FICSH", F, "alu", "move"),
    _row("MUL", "v", "v,v", "FICSH", F, "alu", "multiply"),
    _row("NOT", "v", "v", "ICS", S, "alu", "bitwise not"),
    _row("NRM", "v", "v", "FCSH", F, "alu", "normalize 3-component vector"),
    _row("OR", "v", "v,v", "ICS", S, "alu", "bitwise or"),
    _row("PK2H", "s", "vf", "FI", F, "alu", "pack two 16-bit floats"),
    _row("PK2US", "s", "vf", "FI", F, "alu", "pack two unsigned 16-bit normalized"),
    _row("PK4B", "s", "vf", "FI", F, "alu", "pack four signed 8-bit (excess-128)"),
    _row("PK4UB", "s", "vf", "FI", F, "alu", "pack four unsigned 8-bit normalized"),
    _row("POW", "s", "s,s", "FCSH", F, "alu", "exponentiate"),
    _row("RCC", "s", "s", "FCSH", F, "alu", "reciprocal, clamped magnitude"),
    _row("RCP", "s", "s", "FCSH", F, "alu", "reciprocal"),
    _row("RFL", "v", "v,v", "FCSH", F, "alu", "reflection vector"),
    _row("ROUND", "v", "vf", "FICSH", F, "alu", "round to nearest even"),
    _row("RSQ", "s", "s", "FCSH", F, "alu", "reciprocal square root"),
    _row("SAD", "vu", "v,v,vu", "ICS", S, "alu", "sum of absolute differences"),
    _row("SCS", "v", "s", "FCSH", F, "alu", "cosine and sine"),
    _row("SEQ", "v", "v,v", "FICSH", F, "alu", "set on equal"),
    _row("SFL", "v", "v,v", "FICSH", F, "alu", "set on false"),
    _row("SGE", "v", "v,v", "FICSH", F, "alu", "set on greater or equal"),
    _row("SGT", "v", "v,v", "FICSH", F, "alu", "set on greater"),
    _row("SHL", "v", "v,s", "ICS", S, "alu", "shift left"),
    _row("SHR", "v", "v,s", "ICS", S, "alu", "shift right"),
    _row("SIN", "s", "s", "FCSH", F, "alu", "sine"),
    _row("SLE", "v", "v,v", "FICSH", F, "alu", "set on less or equal"),
    _row("SLT", "v", "v,v", "FICSH", F, "alu", "set on less"),
    _row("SNE", "v", "v,v", "FICSH", F, "alu", "set on not equal"),
    _row("SSG", "v", "v", "FCSH", F, "alu", "set sign"),
    _row("STR", "v", "v,v", "FICSH", F, "alu", "set on true"),
    _row("SUB", "v", "v,v", "FICSH", F, "alu", "subtract"),
    _row("SWZ", "v", "v", "FCSH", F, "alu", "extended swizzle"),
    _row("TRUNC", "v", "vf", "FICSH", F, "alu", "round toward zero"),
    _row("UP2H", "vf", "s", "FICS", F, "alu", "unpack two 16-bit floats"),
    _row("UP2US", "vf", "s", "FICS", F, "alu", "unpack two unsigned 16-bit normalized"),
    _row("UP4B", "vf", "s", "FICS", F, "alu", "unpack four signed 8-bit (excess-128)"),
    _row("UP4UB", "vf", "s", "FICS", F, "alu", "unpack four unsigned 8-bit normalized"),
    _row("X2D", "v", "v,v,v", "FCSH", F, "alu", "2D coordinate transformation"),
    _row("XOR", "v", "v,v", "ICS", S, "alu", "bitwise exclusive or"),
    _row("XPD", "v", "v,v", "FCSH", F, "alu", "cross product"),
    # textures: the result type follows the instruction's data type (the texture's format)
    _row("TEX", "v", "vf", "FICS", F, "tex", "texture sample"),
    _row("TXB", "v", "vf", "FICS", F, "tex", "texture sample with LOD bias"),
    _row("TXD", "v", "vf,vf,vf", "FICS", F, "tex", "texture sample with partials"),
    _row("TXF", "v", "vs", "FICS", F, "tex", "texel fetch"),
    _row("TXL", "v", "vf", "FICS", F, "tex", "texture sample with explicit LOD"),
    _row("TXP", "v", "vf", "FICS", F, "tex", "projective texture sample"),
    _row("TXQ", "vs", "vs", "", S, "tex", "texture size query"),
    # fragment kill, geometry emission
    _row("KIL", "-", "v", "FIH", F, "kill", "kill fragment if any component < 0 (or CC test)"),
    _row("EMIT", "-", "", "", F, "geom", "emit a vertex"),
    _row("ENDPRIM", "-", "", "", F, "geom", "end the output primitive"),
    # structured control flow (conditions in Instruction.cond)
    _row("IF", "-", "", "", F, "flow", "start of if block"),
    _row("ELSE", "-", "", "", F, "flow", "else block"),
    _row("ENDIF", "-", "", "", F, "flow", "end of if block"),
    _row("REP", "-", "v", "FIH", F, "flow", "repeat block (count from x, optional)"),
    _row("ENDREP", "-", "", "", F, "flow", "end of repeat block"),
    _row("BRK", "-", "", "", F, "flow", "leave innermost loop"),
    _row("CONT", "-", "", "", F, "flow", "next iteration of innermost loop"),
    _row("CAL", "-", "", "", F, "flow", "subroutine call"),
    _row("RET", "-", "", "", F, "flow", "return (ends the program in main)"),
    # ---- opcodes of the older NV/ARB dialects (not NV_gpu_program4; see LEGACY_OPCODES) ------
    # Their numerics differ from the GP4 opcodes of the same name, so a frontend that needs them
    # emits these (nv_dialects.md sections 5, 9; each executor function cites its spec).
    _row("MINN", "v", "v,v", "FCSH", F, "alu", "minimum, NaN if either operand is NaN (VP2, FP1)"),
    _row("MAXN", "v", "v,v", "FCSH", F, "alu", "maximum, NaN if either operand is NaN (VP2, FP1)"),
    _row("SEQN", "v", "v,v", "FCSH", F, "alu", "set on equal, NaN if either operand is NaN (VP2)"),
    _row("SGEN", "v", "v,v", "FCSH", F, "alu", "set on greater or equal, NaN in -> NaN (VP2)"),
    _row("SGTN", "v", "v,v", "FCSH", F, "alu", "set on greater, NaN in -> NaN (VP2)"),
    _row("SLEN", "v", "v,v", "FCSH", F, "alu", "set on less or equal, NaN in -> NaN (VP2)"),
    _row("SLTN", "v", "v,v", "FCSH", F, "alu", "set on less, NaN in -> NaN (VP2)"),
    _row("SNEN", "v", "v,v", "FCSH", F, "alu", "set on not equal, NaN in -> NaN (VP2)"),
    _row("SGET", "v", "v,v", "FC", F, "alu", "set on greater or equal, total order (VP1)"),
    _row("SLTT", "v", "v,v", "FC", F, "alu", "set on less, total order -NaN < -INF < -0 < +0 (VP1)"),
    _row("SSGN", "v", "v", "FCSH", F, "alu", "set sign, NaN -> NaN (VP2)"),
    # EXP/LOG with VP1's special cases (2.14.1.10.15-16: an underflowing or infinite 2^floor
    # gives y = 0, LOG(0) and LOG(INF) give y = 1); EXPA/LOGA are the pseudo-code of ARBvp
    # 2.14.5.9/14, VP2 2.14.3.14/19 and tgsi.rst with no exception (t - floor(t) is NaN for an
    # infinite t, |t| / 2^floor(log2 |t|) is NaN for 0 and INF).
    _row("EXP", "v", "s", "FCSH", F, "alu", "(2^floor(a), a - floor(a), 2^a, 1), VP1 special cases"),
    _row("LOG", "v", "s", "FCSH", F, "alu", "(exponent, mantissa, log2 |a|, 1) of |a|, VP1 special cases"),
    _row("EXPA", "v", "s", "FCSH", F, "alu", "(2^floor(a), a - floor(a), 2^a, 1) (VP2, ARBvp, TGSI)"),
    _row("LOGA", "v", "s", "FCSH", F, "alu", "(exponent, mantissa, log2 |a|, 1) of |a| (VP2, ARBvp, TGSI)"),
    _row("BRA", "-", "", "", F, "flow", "branch to a label if the condition passes (unstructured)"),
    _row("PUSHA", "-", "vs", "", S, "flow", "push an address vector on the call stack (VP3)"),
    _row("POPA", "vs", "", "", S, "flow", "pop an address vector off the call stack (VP3)"),
]

OPCODES: dict[str, OpInfo] = {row.name: row for row in _TABLE}

#: condition-code rules (GP4 Table X.16), the flags they read
CC_RULES = ("EQ", "NE", "LT", "LE", "GT", "GE", "TR", "FL", "NAN", "LEG", "CF", "NCF", "OF", "NOF",
            "AB", "BLE", "SF", "NSF")

#: opcodes whose result component c reads only component c of each vector operand (a scalar
#: operand, input kind ``s``, is one value for every component).  Used by the backends to narrow
#: such an instruction to its write mask, and by the verifier to track which result components
#: a property of the operands (a NaN, a denormal) can reach.
COMPONENTWISE = frozenset("""ABS ADD AND CEIL CMP DDX DDY FLR FRC I2F MAD MAX MIN MOV MUL NOT OR
ROUND SEQ SFL SGE SGT SLE SLT SNE SSG STR SUB SWZ TRUNC XOR LRP SAD DIV MOD SHL SHR MINN MAXN SEQN
SGEN SGTN SLEN SLTN SNEN SGET SLTT SSGN FMA LDEXP BFEXT BFINS BREV POPC LSB MSB MINNUM MAXNUM""".split())

#: opcodes whose float result is exactly 0.0 or 1.0: the set-on comparisons (GP4 SEQ ... SNE,
#: SFL, STR; VP1's total-order SGE/SLT, exec/alu_dialects.py) -- not the VP2/FP1 forms that
#: return NaN for a NaN operand.  Both values are fixed points of saturation and of the fp16
#: and fx12 conversions, so a backend writes neither step for them.
BOOLEAN_RESULTS = frozenset({"SEQ", "SGE", "SGT", "SLE", "SLT", "SNE", "SFL", "STR", "SGET", "SLTT"})

#: the selects -> the operands whose value each result component is one of: MIN/MAX (GP4:
#: ``a > b ? b : a``), TGSI's MINNUM/MAXNUM, VP2/FP1's NaN-keeping MINN/MAXN (or the NaN they
#: make), and CMP (``a < 0 ? b : c``).  The verifier bounds what an implementation may write
#: for them on special values by these operands.
SELECTED_OPERANDS = {"MIN": (0, 1), "MAX": (0, 1), "MINN": (0, 1), "MAXN": (0, 1),
                     "MINNUM": (0, 1), "MAXNUM": (0, 1), "CMP": (1, 2)}

#: opcodes whose non-finite result from finite operands can only be an overflow (no operand
#: outside a GLSL function's domain, as log2(0) or pow(0, -1) are): GLSL 4.50 §4.7.1 "positive
#: and negative infinities ... are generated as dictated by IEEE, but subject to the
#: precisions allowed" -- an infinity, or a value of the top binade (>= 2^127), not any value
OVERFLOWS = frozenset({"ADD", "SUB", "MUL", "MAD", "FMA", "DP2", "DP2A", "DP3", "DP4", "DPH",
                       "LRP", "EX2", "DST", "XPD", "X2D"})

#: opcodes whose integer form derives carry/overflow flags from an addition (the rule, in the
#: IR's terms, is ir/carry.py's)
CARRY_OPS = frozenset({"ADD", "SUB", "MAD", "SAD"})

#: the lane (subgroup) operations: results read from other invocations of the subgroup (tgsi.rst
#: VOTE_ANY/ALL/EQ, BALLOT, READ_FIRST, READ_INVOC) -- the executor runs them over its lane
#: groups, the backends need the subgroup extensions, the verifier probes them apart
LANE_OPS = frozenset({"VOTEANY", "VOTEALL", "VOTEEQ", "BALLOT", "READFIRST", "READINVOC"})
#: the packs: opcode -> bits of the field each component packs into (GP4 2.X.8.Z PK2H PK2US
#: PK4B PK4UB: two 16-bit or four 8-bit fields of one word)
PACK_FIELD_BITS = {"PK2H": 16, "PK2US": 16, "PK4B": 8, "PK4UB": 8}
#: packs whose fields are IEEE half floats (a NaN component packs to a half NaN)
HALF_FLOAT_PACKS = frozenset({"PK2H"})
#: results that are raw bit patterns whatever the instruction's type label (packing), and
#: operands read as raw bit patterns (unpacking): passes/types.py types them as words
RAW_RESULT_OPS = frozenset(PACK_FIELD_BITS)
RAW_OPERAND_OPS = frozenset({"UP2H", "UP2US", "UP4B", "UP4UB"})
#: opcodes that only move bits (a negation or |x| acts on the sign bit alone): a NaN or -0.0
#: moved stays exactly one, so an implementation has no freedom there (verify's permits and
#: NaN choices)
BIT_MOVES = frozenset({"MOV", "SWZ"})

#: result components the specs leave undefined (GP4 2.X.8.Z XPD/NRM/RFL .w, SCS .zw): the
#: verifier compares none of them, nor anything computed from them; generators never read them
UNDEFINED_COMPONENTS = {"XPD": (3,), "NRM": (3,), "RFL": (3,), "SCS": (2, 3),
                        "CLOCK": (0, 1, 2, 3), "BALLOT": (2, 3)}

#: components each operand of a dot product reads (DPH: x, y, z of a, all of b; DP2A: x, y of a
#: and b, x of c)
COMPONENTS_READ = {"DP2": (2, 2), "DP3": (3, 3), "DP4": (4, 4), "DPH": (3, 4), "DP2A": (2, 2, 1)}

#: approximate opcodes -> (ulps, absolute) accepted for results depending on them.  The specs
#: name these approximations ("ApproxExp2", "ApproxLog2", "ApproxSine" ..., NV_vertex_program2
#: EXP/LOG "accurate to at least 11 bits"); the bounds were measured on llvmpipe (LLVM 15, Mesa
#: 22.3; verify/compare.py says how) and are what the verifier's tolerance rule allows.
INEXACT: dict[str, tuple[int, float]] = {
    "EX2": (8, 0.0),
    "LG2": (8, 2.0 ** -17),
    "POW": (4096, 2.0 ** -20),
    "LIT": (4096, 2.0 ** -20),
    # FP1's LIT (no clamp of the exponent): the same ApproxPower (FP1 3.11.5.13, 3.11.5.24)
    "LITNC": (4096, 2.0 ** -20),
    "SIN": (16, 2.0 ** -20),
    "COS": (16, 2.0 ** -20),
    "SCS": (16, 2.0 ** -20),
    # ApproxRSQRT: |error| < 2^-22 for 1 <= x < 4 (NV_fragment_program 3.11.5.27; the other
    # dialects name the same approximation without a bound), results in (0.5, 1] where an ulp
    # is 2^-24: 4 ulp.  lavapipe's inversesqrt is 3 ulp off at times (generated ARBvp+NV2
    # seed 2005 on vulkan), past GLSL's 2 ulp for inversesqrt but within the program's own
    "RSQ": (4, 0.0),
    # the partial-precision forms (VP1/VP2/ARBvp; z only, x/y are exact): "accurate to at least
    # 11 bits" (NV_vertex_program2 EXP/LOG, ARB_vertex_program issue 28: 2^-11 relative)
    "EXP": (4096, 0.0),
    "LOG": (4096, 2.0 ** -11),
    "EXPA": (4096, 0.0),
    "LOGA": (4096, 2.0 ** -11),
    "NRM": (4, 0.0),
    "RFL": (4, 0.0),
    # filtered texture lookups: llvmpipe weights bilinear/trilinear samples in 8-bit fixed point
    "TEX": (0, 2.0 ** -7),
    "TXB": (0, 2.0 ** -7),
    "TXD": (0, 2.0 ** -7),
    "TXL": (0, 2.0 ** -7),
    "TXP": (0, 2.0 ** -7),
    "TEX2": (0, 2.0 ** -7),
    "TXB2": (0, 2.0 ** -7),
    "TXL2": (0, 2.0 ** -7),
}


def shapes(names) -> dict[str, str]:
    """``{opcode: operand shapes}`` of ``names`` in their order (signature tables, generators)."""
    return {name: OPCODES[name].shape for name in names}

TEX_TARGETS = ("1D", "2D", "3D", "CUBE", "RECT", "SHADOW1D", "SHADOW2D", "SHADOWRECT", "ARRAY1D",
               "ARRAY2D", "SHADOWCUBE", "SHADOWARRAY1D", "SHADOWARRAY2D", "BUFFER")
#: targets only the TGSI frontend produces (issue 20): cube-map arrays, multisample 2D textures
#: and arrays of them (the NV assembly dialects have no spelling for them)
TGSI_TEX_TARGETS = ("ARRAYCUBE", "SHADOWARRAYCUBE", "2DMS", "ARRAY2DMS")


def op(name: str) -> OpInfo:
    return OPCODES[name]


#: opcodes that exist only for the older NV/ARB dialects (VP1, VP2, ARBvp options, FP1 ...).
#: NV_gpu_program4 frontends must not accept them as mnemonics (GP4 issue 2 removed ARL, ARR,
#: ARA, BRA, EXP, LOG, PUSHA, POPA; the N-suffixed and total-order set-ons are IR-only names).
LEGACY_OPCODES = frozenset({"MINN", "MAXN", "SEQN", "SGEN", "SGTN", "SLEN", "SLTN", "SNEN", "SGET",
                            "SLTT", "SSGN", "EXP", "LOG", "EXPA", "LOGA", "BRA", "PUSHA", "POPA"})


# ---- FP1 LIT (issue 5, fragment dialects; frontends/nv/fp1.py) ---------------------------------
# NV_fragment_program LIT: no clamp of the exponent, and z = ApproxPower(y, w) with the POW rules,
# so 0^0 = NaN (FP1 3.11.5.13/24; nv_dialects.md 5.6).  An IR-only name, like LEGACY_OPCODES.
_TABLE.append(_row("LITNC", "v", "v", "FCSH", F, "alu",
                   "lighting coefficients, no exponent clamp, 0^0 = NaN (FP1)"))
OPCODES["LITNC"] = _TABLE[-1]
LEGACY_OPCODES = LEGACY_OPCODES | {"LITNC"}


# ---- TGSI opcodes with no NV_gpu_program4 equivalent (issue 6; frontends/tgsi/lower.py) --------
# Semantics from Mesa's tgsi.rst / tgsi_exec (tgsi.md section 2); each executor function cites it.
_TGSI_ROWS = [
    _row("SQRT", "s", "s", "F", F, "alu", "square root (TGSI SQRT)"),
    _row("MINNUM", "v", "v,v", "F", F, "alu", "minimum, the non-NaN operand if one is NaN (TGSI MIN, fminf)"),
    _row("MAXNUM", "v", "v,v", "F", F, "alu", "maximum, the non-NaN operand if one is NaN (TGSI MAX, fmaxf)"),
    _row("FSEQ", "vu", "vf,vf", "", F, "alu", "float ==, ~0/0 (TGSI FSEQ; NaN -> 0)"),
    _row("FSNE", "vu", "vf,vf", "", F, "alu", "float !=, ~0/0 (TGSI FSNE; NaN -> ~0)"),
    _row("FSLT", "vu", "vf,vf", "", F, "alu", "float <, ~0/0 (TGSI FSLT; NaN -> 0)"),
    _row("FSGE", "vu", "vf,vf", "", F, "alu", "float >=, ~0/0 (TGSI FSGE; NaN -> 0)"),
    _row("ISSG", "v", "v", "I", S, "alu", "integer set sign -1/0/1 (TGSI ISSG)"),
    _row("UCMP", "v", "vu,v,v", "FI", F, "alu", "a != 0 ? b : c, a tested as bits (TGSI UCMP)"),
    # bitfield (issue 20; tgsi.rst IBFE..UMSB).  Offsets and widths are unsigned words; a window
    # reaching past bit 31 (offset + width > 32, which tgsi.rst leaves undefined) is clipped at
    # bit 31 -- Mesa's tgsi_exec / SM5 result for offsets and widths below 32.
    _row("FMA", "v", "v,v,v", "F", F, "alu", "a * b + c rounded once (TGSI FMA)"),
    _row("DEMOTE", "-", "", "", F, "kill",
         "demote to a helper invocation: outputs discarded, execution goes on (TGSI DEMOTE)"),
    _row("READHELPER", "vu", "", "", DataType.UINT, "alu",
         "~0 in a helper (or demoted) invocation, else 0 (TGSI READ_HELPER)"),
    # TGSI INTERP_* (issue 20): operand a is a fragment INPUT register read with a swizzle and
    # no modifier (the frontend moves modifiers onto a MOV after); its value at a point other
    # than the pixel centre.  Single-sampled, the centroid and every sample are the centre
    # (GL 4.5 14.6.x / GLSL 4.50 8.13.2); an offset point is the input's screen-space plane
    # through the lane (xlate/exec/interp.py says how the executor knows the plane)
    _row("INTERPCENTROID", "v", "v", "", F, "alu", "the input interpolated at the centroid"),
    _row("INTERPSAMPLE", "v", "v,vs", "", F, "alu",
         "the input interpolated at sample b.x (single-sampled: the pixel centre)"),
    _row("INTERPOFFSET", "v", "v,vf", "", F, "alu",
         "the input interpolated at the pixel centre + (b.x, b.y) pixels"),
    # TGSI CLOCK (issue 20): "the current shader time", 64 bits in xy (low word first), zw not
    # written by tgsi.rst's formula.  The value is the implementation's: every component is
    # undefined (UNDEFINED_COMPONENTS), so the verifier compares nothing computed from it until
    # its replay adopts the implementation's value (permits.rule_undefined)
    _row("CLOCK", "vu", "", "", DataType.UINT, "alu",
         "the shader clock: a monotonic 64-bit count, low word in x, high word in y"),
    # TGSI inter-lane opcodes (issue 20): over the active invocations of the lane's subgroup
    # (xlate/exec/subgroup.py: the partition is the executor's input).  a.x is a boolean word
    # (non-zero: set) for the votes and BALLOT; VOTEEQ compares a.x's words
    _row("VOTEANY", "s", "s", "", DataType.UINT, "alu", "~0 if a.x is set in any active invocation"),
    _row("VOTEALL", "s", "s", "", DataType.UINT, "alu", "~0 if a.x is set in every active invocation"),
    _row("VOTEEQ", "s", "s", "", DataType.UINT, "alu", "~0 if a.x is the same in every active invocation"),
    _row("BALLOT", "vu", "s", "", DataType.UINT, "alu",
         "(low, high) words of the 64-bit mask of active invocations where a.x is set; z, w 0"),
    _row("READFIRST", "v", "v", "", DataType.UINT, "alu",
         "a of the first (lowest-numbered) active invocation"),
    _row("READINVOC", "v", "v,s", "", DataType.UINT, "alu",
         "a of invocation b.x (b.x the same in every active invocation)"),
    # TGSI PK4B is two's-complement snorm8 (tgsi.rst f32_to_snorm8), not GP4's excess-128 PK4B;
    # UP4B is "TBD" there: read as its inverse.  Used with the .U type (the word as bits).
    _row("PK4SNORM", "s", "vf", "", DataType.UINT, "alu",
         "pack four snorm8: round-even(127 * clamp(v, -1, 1)), NaN 0, x low (TGSI PK4B)"),
    _row("UP4SNORM", "vf", "s", "", DataType.UINT, "alu",
         "unpack four snorm8: max(byte / 127, -1), x from the low byte (TGSI UP4B)"),
    _row("LDEXP", "v", "v,vs", "F", F, "alu", "a * 2^b, b a signed integer (TGSI LDEXP)"),
    _row("BFEXT", "v", "v,vu,vu", "I", S, "alu",
         "bitfield extract (TGSI IBFE .S sign-extends, UBFE .U); width 0 gives 0"),
    _row("BFINS", "vu", "vu,vu,vu,vu", "", DataType.UINT, "alu",
         "bitfield insert: the low bits of b into a at offset c, width d (TGSI BFI)"),
    _row("BREV", "vu", "vu", "", DataType.UINT, "alu", "bit reverse (TGSI BREV)"),
    _row("POPC", "vu", "vu", "", DataType.UINT, "alu", "population count (TGSI POPC)"),
    _row("LSB", "vs", "vu", "", DataType.UINT, "alu", "index of the lowest set bit, -1 for 0 (TGSI LSB)"),
    _row("MSB", "vs", "v", "I", S, "alu",
         "index of the highest set bit (.U) / highest non-sign bit (.S), -1 for 0 and (.S) -1 "
         "(TGSI UMSB, IMSB)"),
    # SWITCH: selector .x as unsigned; CASE: an unsigned constant (srcs[0] names a CONST register,
    # component swizzle[0]); BRK leaves the innermost SWITCH or loop, CONT the innermost loop.
    _row("SWITCH", "-", "vu", "", DataType.UINT, "flow", "start of switch on the selector's x"),
    _row("CASE", "-", "vu", "", DataType.UINT, "flow", "case label (constant)"),
    _row("DEFAULT", "-", "", "", F, "flow", "default label"),
    _row("ENDSWITCH", "-", "", "", F, "flow", "end of switch"),
    # texture gather and the level count (issue 20; TGSI TG4/GATHER4, SVIEWINFO's w)
    _row("TXG", "v", "vf", "FICS", F, "tex", "texture gather: one component of the four texels "
         "of the bilinear footprint (TexRef.component)"),
    _row("TXQLEVELS", "vs", "vs", "", S, "tex", "number of mipmap levels (replicated)"),
    # the forms with a second operand (issue 20; TGSI TEX2/TXB2/TXL2: a cube-array coordinate
    # fills all four components), the sample count and the level-of-detail query
    _row("TEX2", "v", "vf,vf", "FICS", F, "tex", "texture sample, the depth reference in b.x "
         "(shadow cube arrays)"),
    _row("TXB2", "v", "vf,vf", "FICS", F, "tex", "texture sample with the LOD bias in b.x"),
    _row("TXL2", "v", "vf,vf", "FICS", F, "tex", "texture sample with the explicit LOD in b.x"),
    _row("TXQS", "vs", "vs", "", S, "tex", "number of samples (replicated; 1 when the "
         "texture is not multisampled)"),
    _row("LODQ", "vf", "vf", "", F, "tex", "level-of-detail query: (level accessed, "
         "lambda', 0, 0)"),
    # doubles (issue 20; tgsi.rst "Double ISA"): words in, words out (.U), a double in xy and one
    # in zw, low word first; semantics and the readings chosen in xlate/exec/doubles.py
    *[_row(n, "vu", "vu,vu", "", DataType.UINT, "alu", d) for n, d in (
        ("DADD", "double add"), ("DMUL", "double multiply"), ("DDIV", "double divide"),
        ("DMIN", "double minimum (the non-NaN operand)"),
        ("DMAX", "double maximum (the non-NaN operand)"),
        ("DSEQ", "double a == b: ~0/0 in x (xy) and z (zw)"),
        ("DSNE", "double a != b: ~0/0 in x and z"), ("DSLT", "double a < b: ~0/0 in x and z"),
        ("DSGE", "double a >= b: ~0/0 in x and z"),
        ("DLDEXP", "double a * 2^b (b.x for xy, b.z for zw, signed)"))],
    _row("DMAD", "vu", "vu,vu,vu", "", DataType.UINT, "alu", "double a * b + c, two roundings"),
    _row("DFMA", "vu", "vu,vu,vu", "", DataType.UINT, "alu", "double a * b + c, one rounding"),
    # 64-bit integers (issue 20; tgsi.rst "64-bit Integer ISA"): words as the doubles, one in xy
    # and one in zw; semantics and readings in xlate/exec/doubles.py
    *[_row(n, "vu", "vu,vu", "", DataType.UINT, "alu", d) for n, d in (
        ("U64ADD", "64-bit add"), ("U64MUL", "64-bit multiply (low 64 bits)"),
        ("U64MIN", "64-bit unsigned minimum"), ("U64MAX", "64-bit unsigned maximum"),
        ("I64MIN", "64-bit signed minimum"), ("I64MAX", "64-bit signed maximum"),
        ("U64SEQ", "64-bit a == b: ~0/0 in x and z"), ("U64SNE", "64-bit a != b: ~0/0 in x, z"),
        ("U64SLT", "64-bit unsigned a < b: ~0/0 in x, z"),
        ("U64SGE", "64-bit unsigned a >= b: ~0/0 in x, z"),
        ("I64SLT", "64-bit signed a < b: ~0/0 in x, z"),
        ("I64SGE", "64-bit signed a >= b: ~0/0 in x, z"),
        ("U64SHL", "64-bit shift left by b.x / b.y & 63"),
        ("U64SHR", "64-bit logical shift right by b.x / b.y & 63"),
        ("I64SHR", "64-bit arithmetic shift right by b.x / b.y & 63"),
        ("U64DIV", "64-bit unsigned quotient (/0: all bits)"),
        ("U64MOD", "64-bit unsigned remainder (/0: all bits)"),
        ("I64DIV", "64-bit signed quotient, truncated (/0: -1)"),
        ("I64MOD", "64-bit signed remainder, the dividend's sign (/0: -1)"))],
    *[_row(n, "vu", k, "", DataType.UINT, "alu", d) for n, k, d in (
        ("I64ABS", "vu", "64-bit absolute value"), ("I64NEG", "vu", "64-bit negate"),
        ("I64SSG", "vu", "64-bit sign: -1, 0, 1"),
        ("F2U64", "vf", "float x, y -> uint64 xy, zw (truncated, clamped, NaN 0)"),
        ("F2I64", "vf", "float x, y -> int64 xy, zw (truncated, clamped, NaN 0)"),
        ("D2U64", "vu", "doubles -> uint64 (truncated, clamped, NaN 0)"),
        ("D2I64", "vu", "doubles -> int64 (truncated, clamped, NaN 0)"),
        ("U2I64", "vu", "uint x, y -> 64-bit xy, zw (zero extension)"),
        ("I2I64", "vu", "int x, y -> 64-bit xy, zw (sign extension)"),
        ("U642F", "vu", "uint64 -> float x, y (z, w 0)"), ("I642F", "vu", "int64 -> float x, y"),
        ("U642D", "vu", "uint64 -> doubles"), ("I642D", "vu", "int64 -> doubles"))],
    # F2D reads floats (so the verifier sees its denormal operands as such)
    _row("F2D", "vu", "vf", "", DataType.UINT, "alu", "float x, y -> doubles xy, zw"),
    *[_row(n, "vu", "vu", "", DataType.UINT, "alu", d) for n, d in (
        ("DFRAC", "double a - floor(a)"), ("DTRUNC", "double truncate"), ("DCEIL", "double ceil"),
        ("DFLR", "double floor"), ("DROUND", "double round half to even"),
        ("DSSG", "double sign: 1.0, -1.0 or 0.0 (NaN 0.0)"), ("DRCP", "double 1 / a"),
        ("DSQRT", "double square root"), ("DRSQ", "double 1 / sqrt(a), two roundings"),
        ("DFREXPM", "double mantissa of frexp, in [0.5, 1)"),
        ("DFREXPE", "frexp's exponent of each double, in x y (xy) and z w (zw)"),
        ("I2D", "int x, y -> doubles xy, zw"), ("U2D", "uint x, y -> doubles xy, zw"),
        ("D2F", "doubles xy, zw -> float x, y (z, w 0)"),
        ("D2I", "doubles -> int x, y: truncated, clamped, NaN 0 (z, w 0)"),
        ("D2U", "doubles -> uint x, y: truncated, clamped, NaN 0 (z, w 0)"))],
]
# memory, synchronisation and atomics (issue 20: TGSI COMP, BUFFER, MEMORY, IMAGE)
_TGSI_ROWS += [
    # memory (Instruction.mem names the resource; addresses are byte offsets, word c of an access
    # at offset + 4c; the words move as raw bits)
    _row("LOAD", "vu", "s", "", DataType.UINT, "mem", "load words from memory at a byte offset"),
    _row("STORE", "-", "s,v", "", DataType.UINT, "mem", "store words to memory at a byte offset"),
    _row("RESQ", "vu", "", "", DataType.UINT, "mem", "resource size (buffer bytes; image w, h, d/layers)"),
    _row("IMGLOAD", "vu", "vu", "", DataType.UINT, "mem", "load a texel's words from an image"),
    _row("IMGSTORE", "-", "vu,v", "", DataType.UINT, "mem", "store words as a texel of an image"),
    # atomics (exec/atomics.py has each one's rule): the address (byte offset in x, or image
    # coordinates), the operand(s); the result is the value the rule returns, replicated
    *[_row(f"ATOM{name}", "vu", "v,s,s" if name == "CAS" else "v,s", "", DataType.UINT, "mem",
           f"atomic {name.lower()} (exec/atomics.py)")
      for name in ("ADD", "FADD", "XCHG", "CAS", "AND", "OR", "XOR", "UMIN", "UMAX", "IMIN",
                   "IMAX", "INCWRAP", "DECWRAP")],
    _row("BARRIER", "-", "", "", F, "mem", "workgroup control barrier (and shared-memory ordering)"),
    _row("MEMBAR", "-", "", "", F, "mem", "memory barrier (the kinds in Instruction.mem.flags)"),
]
_TABLE.extend(_TGSI_ROWS)
OPCODES.update({row.name: row for row in _TGSI_ROWS})
#: IR-only names the NV frontends must not accept as mnemonics
TGSI_OPCODES = frozenset(row.name for row in _TGSI_ROWS)
