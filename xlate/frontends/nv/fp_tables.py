"""Tables of the fragment-program dialects ``!!ARBfp1.0`` (+ ``OPTION NV_fragment_program`` /
``NV_fragment_program2``) and ``!!FP1.0``: opcodes with their legal suffixes, options, limits,
reserved words, and the binding trees (walked by :func:`xlate.frontends.nv.bindings.resolve`).

Sources: ARBFP 3.11.2 (grammar), Table X.1 (attributes), Tables X.2.1-X.2.7 (state), Table X.3
(results), Table X.5 (opcodes); FPO Table X.5 (suffixes with NV_fragment_program); FP2 Table X.5
(NV_fragment_program2); FP1 Table X.4 and 3.11.1-3.11.3; ARBFPS (shadow targets).
"""
from __future__ import annotations

import re
import struct

from ...ir.model import DataType, RegKind
from . import bindings as B
from .syntax import IndexConst, IndexRange, Member, Ref

# ---- opcodes and their suffixes --------------------------------------------------------------
# Each table maps a mnemonic to the suffixes it takes: R, H, X (precision), C (condition-code
# update), S (_SAT, and _SSAT where the dialect has it).  "" = no suffix at all.

#: ARBFP Table X.5: 33 opcodes, "_SAT" on all but KIL
ARBFP_OPS: dict[str, str] = {op: ("" if op == "KIL" else "S") for op in (
    "ABS ADD CMP COS DP3 DP4 DPH DST EX2 FLR FRC KIL LG2 LIT LRP MAD MAX MIN MOV MUL POW RCP RSQ "
    "SCS SGE SIN SLT SUB SWZ TEX TXB TXP XPD").split()}


def _table(text: str) -> dict[str, str]:
    out = {}
    for line in text.strip().splitlines():
        op, flags = line.split()
        out[op] = flags.replace("-", "")
    return out


#: FPO Table X.5 (ARB_fragment_program + OPTION NV_fragment_program): 52 opcodes
ARBFP_NV_OPS = _table("""
ABS RHXCS
ADD RHXCS
CMP ----S
COS RH-CS
DDX RH-CS
DDY RH-CS
DP3 RHXCS
DP4 RHXCS
DPH RHXCS
DST RH-CS
EX2 RH-CS
FLR RHXCS
FRC RHXCS
KIL -----
LG2 RH-CS
LIT RH-CS
LRP RHXCS
MAD RHXCS
MAX RHXCS
MIN RHXCS
MOV RHXCS
MUL RHXCS
PK2H -----
PK2US -----
PK4B -----
PK4UB -----
POW RH-CS
RCP RH-CS
RFL RH-CS
RSQ RH-CS
SCS ----S
SEQ RHXCS
SFL RHXCS
SGE RHXCS
SGT RHXCS
SIN RH-CS
SLE RHXCS
SLT RHXCS
SNE RHXCS
STR RHXCS
SUB RHXCS
SWZ ----S
TEX ---CS
TXB ---CS
TXD ---CS
TXP ---CS
UP2H ---CS
UP2US ---CS
UP4B ---CS
UP4UB ---CS
X2D RH-CS
XPD ----S
""")

#: FP2 Table X.5 (OPTION NV_fragment_program2): 67 opcodes; vs FPO: CMP gains C, SCS/SWZ/XPD
#: gain R, H, C; new DIV DP2 DP2A NRM TXL and the flow opcodes (no suffixes); "S" also admits
#: "_SSAT" (FP2 3.11.4.3).
ARBFP_NV2_OPS = {**ARBFP_NV_OPS, **_table("""
CMP ---CS
SCS RH-CS
SWZ RH-CS
XPD RH-CS
DIV RH-CS
DP2 RHXCS
DP2A RHXCS
NRM RH-CS
TXL ---CS
BRK -----
CAL -----
ELSE -----
ENDIF -----
ENDLOOP -----
ENDREP -----
IF -----
LOOP -----
REP -----
RET -----
""")}

#: FP1 Table X.4 (!!FP1.0): 45 opcodes
FP1_OPS = _table("""
ADD RHXCS
COS RH-CS
DDX RH-CS
DDY RH-CS
DP3 RHXCS
DP4 RHXCS
DST RH-CS
EX2 RH-CS
FLR RHXCS
FRC RHXCS
KIL -----
LG2 RH-CS
LIT RH-CS
LRP RHXCS
MAD RHXCS
MAX RHXCS
MIN RHXCS
MOV RHXCS
MUL RHXCS
PK2H -----
PK2US -----
PK4B -----
PK4UB -----
POW RH-CS
RCP RH-CS
RFL RH-CS
RSQ RH-CS
SEQ RHXCS
SFL RHXCS
SGE RHXCS
SGT RHXCS
SIN RH-CS
SLE RHXCS
SLT RHXCS
SNE RHXCS
STR RHXCS
SUB RHXCS
TEX ---CS
TXD ---CS
TXP ---CS
UP2H ---CS
UP2US ---CS
UP4B ---CS
UP4UB ---CS
X2D RH-CS
""")

#: the dialect tables in increasing order: ARB_fragment_program, + NV_fragment_program,
#: + NV_fragment_program2 (index = the "NV level" of the program)
ARB_LEVELS = (ARBFP_OPS, ARBFP_NV_OPS, ARBFP_NV2_OPS)
LEVEL_OPTION = ("", "NV_fragment_program", "NV_fragment_program2")

#: every mnemonic any fragment dialect knows (used to say "needs OPTION ..." instead of
#: "unknown opcode", and to recognise vertex-only opcodes)
VERTEX_ONLY_OPS = frozenset("ARL ARA ARR BRA EXP LOG PUSHA POPA RCC SSG".split())

#: flow opcodes of NV_fragment_program2
FLOW_OPS = frozenset("BRK CAL ELSE ENDIF ENDLOOP ENDREP IF LOOP REP RET".split())

#: scalar operand positions: the IR opcode table says "s"; the dialect mnemonics map 1:1 except
#: those lowered to another IR opcode (FP1 numerics, xlate.ir.ops)
FP1_CANONICAL = {"MIN": "MINN", "MAX": "MAXN", "LIT": "LITNC"}

# ---- options ---------------------------------------------------------------------------------
ARBFP_OPTIONS = frozenset({
    "ARB_fog_exp", "ARB_fog_exp2", "ARB_fog_linear",                      # ARBFP 3.11.4.5.1
    "ARB_precision_hint_fastest", "ARB_precision_hint_nicest",            # ARBFP 3.11.4.5.2
    "ARB_fragment_program_shadow",                                        # ARBFPS
    "NV_fragment_program", "NV_fragment_program2",                        # FPO, FP2
    "ARB_draw_buffers", "ATI_draw_buffers",                               # result.color[n]
    # GL_ARB_fragment_coord_conventions: the window coordinates fragment.position holds
    "ARB_fragment_coord_origin_upper_left", "ARB_fragment_coord_pixel_center_integer",
    "MESA_texture_array",        # ARRAY1D/ARRAY2D/ARRAYSHADOW1D/ARRAYSHADOW2D (Mesa's parser)
})

#: OPTION MESA_texture_array targets, spelled as Mesa's program_lexer.l spells them (the shadow
#: ones need ARB_fragment_program_shadow too) -> the IR target (NV_gpu_program4's names)
ARRAY_TARGETS = {"ARRAY1D": "ARRAY1D", "ARRAY2D": "ARRAY2D",
                 "ARRAYSHADOW1D": "SHADOWARRAY1D", "ARRAYSHADOW2D": "SHADOWARRAY2D"}

# ---- implementation limits (a program over them fails to load) --------------------------------
# The specs give minimums (ARBFP 3.11.3.6, FP1 3.11.3, FP2 New Implementation Dependent State);
# xlate models a GeForce 6-8 class implementation, generous enough for every cgc program.
MAX_INSTRUCTIONS = 16384          # MAX_PROGRAM_INSTRUCTIONS_ARB (>= 72); ALU and TEX the same
MAX_TEMPORARIES = 512             # MAX_PROGRAM_TEMPORARIES_ARB (>= 16)
MAX_PARAMETERS = 1024             # MAX_PROGRAM_PARAMETERS_ARB (>= 24)
MAX_ATTRIBS = 16                  # MAX_PROGRAM_ATTRIBS_ARB (>= 10)
MAX_ENV = 256                     # MAX_PROGRAM_ENV_PARAMETERS_ARB (>= 24)
MAX_LOCAL = 1024                  # MAX_PROGRAM_LOCAL_PARAMETERS_ARB (>= 24)
MAX_TEXTURE_COORDS = 8            # MAX_TEXTURE_COORDS_ARB
MAX_TEXTURE_UNITS = 16            # MAX_TEXTURE_IMAGE_UNITS_ARB (texture[n]; FP1 TEX0..TEX15)
MAX_LEGACY_TEXTURE_UNITS = 8      # MAX_TEXTURE_UNITS (state.texenv[n])
MAX_DRAW_BUFFERS = 8              # MAX_DRAW_BUFFERS_ARB (result.color[n])
MAX_IF_DEPTH = 48                 # MAX_PROGRAM_IF_DEPTH_NV (FP2)
MAX_LOOP_DEPTH = 4                # MAX_PROGRAM_LOOP_DEPTH_NV (FP2)
MAX_LOOP_COUNT = 255              # MAX_PROGRAM_LOOP_COUNT_NV (FP2; larger counts are clamped)
MAX_EXEC_INSTRUCTIONS = 65536     # MAX_PROGRAM_EXEC_INSTRUCTIONS_NV (FP2)
MAX_A0_OFFSET = 9                 # fragment.texcoord[A0.x + n], n in [0, 9] (FP2 grammar)
FP1_MAX_LOCALS = 64               # MAX_FRAGMENT_PROGRAM_LOCAL_PARAMETERS_NV: p[0..63]
FP1_REGISTER_UNITS = 64           # FP1 3.11.3: fp32 registers count 2, fp16 registers 1
#: fog options lower these limits (ARBFP 3.11.4.5.1): instructions by 3/4/2, temporaries and
#: attributes by 1, parameters by 2
FOG_INSTRUCTIONS = {"ARB_fog_exp": 3, "ARB_fog_exp2": 4, "ARB_fog_linear": 2}

# ---- reserved words ----------------------------------------------------------------------------
#: ARBFP 3.11.2: opcodes (and their _SAT forms), the statement keywords and the binding roots
ARBFP_RESERVED = frozenset(
    {"ALIAS", "ATTRIB", "END", "OPTION", "OUTPUT", "PARAM", "TEMP", "fragment", "program",
     "result", "state", "texture"} | set(ARBFP_OPS) | {op + "_SAT" for op in ARBFP_OPS if op != "KIL"})
#: FPO/FP2: the keywords, "SHORT"/"LONG", and every opcode with every suffix variant (checked by
#: decomposing the name, see arbfp.py)
ARBFP_NV_KEYWORDS = frozenset({"ALIAS", "ATTRIB", "END", "OPTION", "OUTPUT", "PARAM", "TEMP",
                               "fragment", "program", "result", "state", "texture", "SHORT",
                               "LONG"})

# ---- bindings ----------------------------------------------------------------------------------
leaf, _indexed = B.leaf, B._indexed

#: ARBFP Table X.1; FP2 adds fragment.facing (and fragment.texcoord[A0.x + n], arbfp.py)
ARBFP_INPUTS = B.Node({
    "color": B._color(False), "texcoord": _indexed(False, 0, MAX_TEXTURE_COORDS - 1),
    "fogcoord": leaf(), "position": leaf(),
})
ARBFP_NV2_INPUTS = B.Node({**ARBFP_INPUTS.children, "facing": leaf()})

#: ARBFP Table X.3 (result.color[n] only with a draw-buffers option, checked in arbfp.py)
ARBFP_RESULTS = B.Node({"color": _indexed(False, 0, MAX_DRAW_BUFFERS - 1), "depth": leaf()})

#: ARBFP Table X.2.1
ARBFP_PROGRAM = B.Node({"env": _indexed(True, max_index=MAX_ENV - 1),
                        "local": _indexed(True, max_index=MAX_LOCAL - 1)})

#: ARBFP Tables X.2.2-X.2.7 (<stateSingleItem>, <stateMatrixRows>): the vertex-program state
#: texgen, clip planes and point parameters do not exist here; the matrix set adds palette[n]
_MATRIX = B.STATE.children["matrix"]
ARBFP_STATE = B.Node({
    **{k: v for k, v in B.STATE.children.items() if k not in ("texgen", "clip", "point", "texenv",
                                                              "matrix")},
    "texenv": B.Node({"color": leaf()}, index="opt", default_index=0,
                     max_index=MAX_LEGACY_TEXTURE_UNITS - 1),
    "matrix": B.Node({**_MATRIX.children,
                      "texture": B._matrix("opt", 0, MAX_TEXTURE_COORDS - 1),
                      "palette": B._matrix("req", None, 31)}),
})

#: FP1 Table X.1: f[...] attribute names -> (binding path, index)
FP1_ATTRIBS = {"WPOS": ("fragment.position", None), "COL0": ("fragment.color", None),
               "COL1": ("fragment.color.secondary", None), "FOGC": ("fragment.fogcoord", None),
               **{f"TEX{i}": ("fragment.texcoord", i) for i in range(8)}}
#: FP1 Table X.3: o[...] output names -> (binding path, index, fp16?)
FP1_OUTPUTS = {"COLR": ("result.color", 0, False), "COLH": ("result.color", 0, True),
               "DEPR": ("result.depth", None, False)}
#: FP1 3.11.2: names a DEFINE/DECLARE may not use (keywords and grammar terminals, opcodes with
#: their suffix variants are checked separately): register and texture unit names too
FP1_RESERVED = frozenset(
    {"DEFINE", "DECLARE", "END", "RC", "HC", "f", "o", "p", "x", "y", "z", "w",
     "EQ", "GE", "GT", "LE", "LT", "NE", "TR", "FL", "CUBE", "RECT", "COLR", "COLH", "DEPR"}
    | set(FP1_ATTRIBS) | {f"R{i}" for i in range(32)} | {f"H{i}" for i in range(64)}
    | {f"TEX{i}" for i in range(16)})

TARGETS = ("1D", "2D", "3D", "CUBE", "RECT")
SHADOW_TARGETS = ("SHADOW1D", "SHADOW2D", "SHADOWRECT")


# ---- ARBfp's own (arbfp.py and its parts) --------------------------------------------------

F = DataType.FLOAT
S = DataType.INT
IDENTITY = (0, 1, 2, 3)
FULL_MASK = (True, True, True, True)
MASK_X = (True, False, False, False)
MASK_Y = (False, True, False, False)
_SUFFIXES = re.compile(r"^(R|H|X)?(C)?(_SAT|_SSAT)?$")
_SWZ = {c: i for i, c in enumerate("xyzw")} | {c: i for i, c in enumerate("rgba")}
#: the FP2 condition-code rules (FPO/FP2 <ccMaskRule>; FP1 the same)
OLD_CC_RULES = ("EQ", "GE", "GT", "LE", "LT", "NE", "TR", "FL")
PACK_OPS = frozenset({"PK2H", "PK2US", "PK4B", "PK4UB"})
UNPACK_OPS = frozenset({"UP2H", "UP2US", "UP4B", "UP4UB"})
TEX_OPS = frozenset({"TEX", "TXP", "TXB", "TXD", "TXL"})
#: attributes whose unused components are constants in this dialect: binding -> (y, z, w)
CONST_COMPONENTS = {"fragment.facing": (0.0, 0.0, 1.0), "fragment.fogcoord": (0.0, 0.0, 1.0)}


def f32(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


def ref_text(ref: Ref) -> str:
    """A reference as the program spelled it (for messages)."""
    out = ref.name
    for sel in ref.selectors:
        if isinstance(sel, Member):
            out += "." + sel.name
        else:
            idx = sel.index
            if isinstance(idx, IndexConst):
                out += f"[{idx.value}]"
            elif isinstance(idx, IndexRange):
                out += f"[{idx.first}..{idx.last}]"
            else:
                off = f" + {idx.offset}" if idx.offset > 0 else (f" - {-idx.offset}" if idx.offset else "")
                out += f"[{idx.reg}{'.' + idx.comp if idx.comp else ''}{off}]"
    return out


_A_KIND = {RegKind.INPUT: "an attribute", RegKind.PARAM: "a parameter",
           RegKind.CONST: "a constant"}
