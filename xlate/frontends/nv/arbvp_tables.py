"""Tables of ``!!ARBvp1.0`` (+ ``OPTION NV_vertex_program2`` / ``NV_vertex_program3``): opcodes
per option set, options, reserved words, limits, texture targets, and the binding trees (walked
by :func:`xlate.frontends.nv.bindings.resolve`) with the conventional-to-generic attribute
aliases.

Sources: ARBVP 2.14.3.1, 2.14.3.2, 2.14.3.4 (bindings), Table X.2.1 (aliases), the ARBVP grammar
(offsets); VP2O (``result.clip``); VP3 (texture units, POPA/PUSHA, TEX).  The limits are xlate's
readings of implementation-dependent values: :mod:`xlate.frontends.nv.arbvp` says why each.
"""
from __future__ import annotations

from ...ir.model import Binding
from . import bindings as B

ARBVP_OPS = frozenset("ABS ADD ARL DP3 DP4 DPH DST EX2 EXP FLR FRC LG2 LIT LOG MAD MAX MIN MOV MUL "
                      "POW RCP RSQ SGE SLT SUB SWZ XPD".split())
NV2_OPS = ARBVP_OPS | frozenset("ARA ARR BRA CAL COS RCC RET SEQ SFL SGT SIN SLE SNE SSG STR".split())
NV3_OPS = NV2_OPS | frozenset("POPA PUSHA TEX TXB TXL TXP".split())

OPTIONS = ("ARB_position_invariant", "NV_vertex_program2", "NV_vertex_program3",
           "ARB_fragment_program_shadow")
RESERVED_BASE = frozenset("ABS ADD ADDRESS ALIAS ARL ATTRIB DP3 DP4 DPH DST END EX2 EXP FLR FRC LG2 "
                          "LIT LOG MAD MAX MIN MOV MUL OPTION OUTPUT PARAM POW RCP RSQ SGE SLT SUB "
                          "SWZ TEMP XPD program result state vertex".split())
MAX_INSTRUCTIONS = 4096
MAX_VERTEX_TEXTURE_UNITS = 4
MAX_TEXTURE_UNIT = 15
REL_OFFSET = (-64, 63)
#: offsets beyond REL_OFFSET are accepted up to Mesa's MaxAddressOffset (E2017, see index())
REL_OFFSET_MAX = (-4096, 4095)
TARGETS = ("1D", "2D", "3D", "CUBE", "RECT")
SHADOW_TARGETS = ("SHADOW1D", "SHADOW2D", "SHADOWRECT")

# ---- binding tables (ARBVP 2.14.3.1, 2.14.3.2, 2.14.3.4; VP2O result.clip; VP3) -----------------
leaf, _color, _indexed, Node = B.leaf, B._color, B._indexed, B.Node

VERTEX_INPUTS = Node({
    "position": leaf(), "weight": _indexed(False, 0, 3), "normal": leaf(), "color": _color(False),
    "fogcoord": leaf(), "texcoord": _indexed(False, 0, 7), "matrixindex": _indexed(False, 0, 3),
    "attrib": _indexed(True, max_index=15),
})
_RESULTS = {"position": leaf(), "color": _color(True), "fogcoord": leaf(), "pointsize": leaf(),
            "texcoord": _indexed(False, 0, 7)}
VERTEX_RESULTS = Node(dict(_RESULTS))
VERTEX_RESULTS_NV2 = Node({**_RESULTS, "clip": _indexed(True, max_index=5)})
PROGRAM = Node({"local": _indexed(True, max_index=4095), "env": _indexed(True, max_index=4095)})
_MATRIX = dict(B.STATE.children["matrix"].children)
_MATRIX["palette"] = B._matrix("req", None, 31)
STATE = Node({k: v for k, v in B.STATE.children.items() if k not in ("texenv", "depth", "matrix")})
STATE.children["matrix"] = Node(_MATRIX)
STATE.children["clip"] = Node({"plane": leaf()}, index="req", max_index=5)

# ARBVP Table X.2.1: conventional attribute -> the generic attribute it aliases
GENERIC_ALIAS = {"vertex.position": 0, "vertex.weight": 1, "vertex.normal": 2, "vertex.color": 3,
                 "vertex.color.secondary": 4, "vertex.fogcoord": 5}
#: bindings that may carry an index range in a PARAM array initializer (ARBVP <progEnvParams>,
#: <progLocalParams>, <stateMatrixRows>)
RANGE_MEMBERS = ("env", "local", "row")


def generic_slot(b: Binding) -> tuple[int, bool] | None:
    """(generic attribute number, is generic) of an attribute binding, None if unaliased."""
    if b.path == "vertex.attrib":
        return b.index, True
    if b.path == "vertex.texcoord":
        return 8 + (b.index or 0), False
    if b.path == "vertex.weight":
        return 1, False
    if b.path in GENERIC_ALIAS:
        return GENERIC_ALIAS[b.path], False
    return None
