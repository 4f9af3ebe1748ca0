"""TGSI opcodes as the text names them: operand counts, flags and support tier (tgsi.md section 2).

One row per mnemonic.  ``tier``: ``C`` core, ``T2`` tier 2, ``R`` rare (doubles, int64, images,
atomics, barriers, subgroups, bindless), ``L`` legacy (old dumps; lowered), ``X`` never
implemented by any Mesa driver.  Whether an opcode is *translated* is decided by ``lower.py``
(which has one function per supported opcode); an opcode without one is rejected there with
E3008 naming it.  Binary opcode numbers live in ``binary.py`` (they differ between versions).
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TgsiOp:
    name: str
    ndst: int
    nsrc: int
    tier: str
    tex: bool = False          # takes a texture target (TEX-style) and optional offsets
    branch: bool = False       # may carry a ":N" label
    memory: bool = False       # takes memory qualifiers / target / format


def _t(spec: str, tier: str, **kw) -> list[TgsiOp]:
    """``"ADD 1,2 MUL 1,2"`` -> rows."""
    items = spec.split()
    rows = []
    for name, counts in zip(items[::2], items[1::2]):
        d, s = counts.split(",")
        rows.append(TgsiOp(name, int(d), int(s), tier, **kw))
    return rows


_ROWS: list[TgsiOp] = [
    # float arithmetic, comparison, transcendental (2.2)
    *_t("ARL 1,1 ARR 1,1 UARL 1,1 MOV 1,1 ADD 1,2 MUL 1,2 MAD 1,3 LRP 1,3 DIV 1,2 DP2 1,2 "
        "DP3 1,2 DP4 1,2 DST 1,2 MIN 1,2 MAX 1,2 SLT 1,2 SGE 1,2 SEQ 1,2 SGT 1,2 SLE 1,2 SNE 1,2 "
        "CMP 1,3 SSG 1,1 FRC 1,1 FLR 1,1 CEIL 1,1 TRUNC 1,1 ROUND 1,1 RCP 1,1 RSQ 1,1 SQRT 1,1 "
        "EX2 1,1 LG2 1,1 POW 1,2 SIN 1,1 COS 1,1 EXP 1,1 LOG 1,1 LIT 1,1 DDX 1,1 DDY 1,1", "C"),
    *_t("FMA 1,3 LDEXP 1,2 DDX_FINE 1,1 DDY_FINE 1,1 PK2H 1,1 UP2H 1,1", "T2"),
    *_t("PK2US 1,1 PK4B 1,1 PK4UB 1,1 UP2US 1,1 UP4B 1,1 UP4UB 1,1", "R"),
    # fragment-only and special (2.3)
    *_t("KILL 0,0 KILL_IF 0,1 NOP 0,0 END 0,0", "C"),
    *_t("DEMOTE 0,0 READ_HELPER 1,0", "T2"),
    *_t("FBFETCH 1,1 CLOCK 1,0", "R"),
    # integer (2.4)
    *_t("I2F 1,1 U2F 1,1 F2I 1,1 F2U 1,1 UADD 1,2 UMUL 1,2 UMAD 1,3 IDIV 1,2 UDIV 1,2 UMOD 1,2 "
        "MOD 1,2 IMAX 1,2 IMIN 1,2 UMAX 1,2 UMIN 1,2 INEG 1,1 IABS 1,1 ISSG 1,1 NOT 1,1 AND 1,2 "
        "OR 1,2 XOR 1,2 SHL 1,2 ISHR 1,2 USHR 1,2 ISLT 1,2 ISGE 1,2 USLT 1,2 USGE 1,2 USEQ 1,2 "
        "USNE 1,2 FSLT 1,2 FSGE 1,2 FSEQ 1,2 FSNE 1,2 UCMP 1,3", "C"),
    *_t("IMUL_HI 1,2 UMUL_HI 1,2", "T2"),
    # bit manipulation (2.5)
    *_t("IBFE 1,3 UBFE 1,3 BFI 1,4 BREV 1,1 POPC 1,1 LSB 1,1 IMSB 1,1 UMSB 1,1", "T2"),
    # control flow (2.6)
    *_t("IF 0,1 UIF 0,1 ELSE 0,0 BGNLOOP 0,0 ENDLOOP 0,0 CAL 0,0", "C", branch=True),
    *_t("ENDIF 0,0 BRK 0,0 CONT 0,0 RET 0,0 ENDSUB 0,0", "C"),
    *_t("BGNSUB 0,0", "C", branch=True),
    *_t("SWITCH 0,1 CASE 0,1 DEFAULT 0,0 ENDSWITCH 0,0", "C"),
    # textures (2.7): TEX-style take a target
    *_t("TEX 1,2 TXP 1,2 TXB 1,2 TXL 1,2", "C", tex=True),
    *_t("TXD 1,4 TEX2 1,3 TXB2 1,3 TXL2 1,3 TEX_LZ 1,2 TXF 1,2 TXF_LZ 1,2 TXQ 1,2 TG4 1,3 "
        "LODQ 1,2", "T2", tex=True),
    *_t("TXQS 1,1", "R", tex=True),
    *_t("SAMPLE 1,3 SAMPLE_I 1,2 SAMPLE_B 1,4 SAMPLE_C 1,4 SAMPLE_C_LZ 1,4 SAMPLE_D 1,5 "
        "SAMPLE_L 1,4 SVIEWINFO 1,2", "T2"),
    *_t("SAMPLE_I_MS 1,3 GATHER4 1,3 LOD 1,3", "R"),
    # tgsi.rst on both: "no driver has implemented this opcode yet (and no gallium frontend
    # emits it)" -- refused as the never-implemented ones are
    *_t("SAMPLE_POS 1,2 SAMPLE_INFO 1,2", "X"),
    # resources, memory, sync, geometry, interpolation, subgroups (2.8)
    *_t("LOAD 1,2 STORE 1,2 RESQ 1,1 ATOMUADD 1,3 ATOMXCHG 1,3 ATOMCAS 1,4 ATOMAND 1,3 "
        "ATOMOR 1,3 ATOMXOR 1,3 ATOMUMIN 1,3 ATOMUMAX 1,3 ATOMIMIN 1,3 ATOMIMAX 1,3 ATOMFADD 1,3 "
        "ATOMINC_WRAP 1,3 ATOMDEC_WRAP 1,3", "R", memory=True),
    *_t("BARRIER 0,0 MEMBAR 0,1 IMG2HND 1,1 SAMP2HND 1,1 INTERP_CENTROID 1,1 INTERP_SAMPLE 1,2 "
        "INTERP_OFFSET 1,2 VOTE_ANY 1,1 VOTE_ALL 1,1 VOTE_EQ 1,1 BALLOT 1,1 READ_FIRST 1,1 "
        "READ_INVOC 1,2", "R"),
    *_t("EMIT 0,1 ENDPRIM 0,1", "T2"),
    # legacy (2.9): removed from Mesa, present in old dumps
    *_t("SUB 1,2 ABS 1,1 XPD 1,2 DPH 1,2 SCS 1,1 DP2A 1,3 CLAMP 1,3 CND 1,3 CND0 1,3 NRM 1,1 "
        "NRM4 1,1 RCC 1,1 SFL 1,2 STR 1,2 RFL 1,2 X2D 1,3 SAD 1,3 BREAKC 0,1 SWZ 1,1", "L"),
    *_t("TXQ_LZ 1,1", "L", tex=True),
    *_t("ARA 1,1 BRA 0,0 PUSHA 0,1 POPA 1,0 CALLNZ 0,1 IFC 0,1", "X"),
    # doubles (2.10) and 64-bit integers (2.11)
    *_t("F2D 1,1 D2F 1,1 DABS 1,1 DNEG 1,1 DADD 1,2 DMUL 1,2 DMAX 1,2 DMIN 1,2 DSLT 1,2 "
        "DSGE 1,2 DSEQ 1,2 DSNE 1,2 DRCP 1,1 DSQRT 1,1 DMAD 1,3 DFRAC 1,1 DLDEXP 1,2 D2I 1,1 "
        "I2D 1,1 D2U 1,1 U2D 1,1 DRSQ 1,1 DTRUNC 1,1 DCEIL 1,1 DFLR 1,1 DROUND 1,1 DSSG 1,1 "
        "DFMA 1,3 DDIV 1,2 DFRACEXP 2,1", "R"),
    *_t("U64SEQ 1,2 U64SNE 1,2 I64SLT 1,2 U64SLT 1,2 I64SGE 1,2 U64SGE 1,2 I64MIN 1,2 "
        "U64MIN 1,2 I64MAX 1,2 U64MAX 1,2 I64ABS 1,1 I64SSG 1,1 I64NEG 1,1 U64ADD 1,2 U64MUL 1,2 "
        "U64SHL 1,2 I64SHR 1,2 U64SHR 1,2 I64DIV 1,2 U64DIV 1,2 I64MOD 1,2 U64MOD 1,2 F2U64 1,1 "
        "F2I64 1,1 U2I64 1,1 I2I64 1,1 D2U64 1,1 D2I64 1,1 U642D 1,1 U642F 1,1 I642F 1,1 "
        "I642D 1,1", "R"),
]

OPCODES: dict[str, TgsiOp] = {row.name: row for row in _ROWS}

#: old spellings accepted by the text parser, mapped to the modern name (tgsi.md 2.9, 1.11)
ALIASES = {"KILP": "KILL", "KIL": "KILL_IF", "BGNLOOP2": "BGNLOOP", "ENDLOOP2": "ENDLOOP",
           "LERP": "LRP", "FRAC": "FRC", "FLOOR": "FLR", "EXPBASE2": "EX2", "LOGBASE2": "LG2",
           "POWER": "POW", "CROSSPRODUCT": "XPD", "DOT2ADD": "DP2A"}

#: opcodes that open / close an indentation level in tgsi_dump output (tgsi.md 1.8)
INDENT_OPEN = frozenset({"IF", "UIF", "ELSE", "BGNLOOP", "BGNSUB", "SWITCH"})
INDENT_CLOSE = frozenset({"ELSE", "ENDIF", "ENDLOOP", "ENDSUB", "ENDSWITCH"})


def lookup(name: str) -> TgsiOp | None:
    name = name.upper()
    return OPCODES.get(ALIASES.get(name, name))
