"""Binding tables of the NV_gpu_program4 family: which ``vertex.*``, ``fragment.*``,
``primitive.*``, ``result.*``, ``program.*`` and ``state.*`` names exist per program type.

Each root is a tree of :class:`Node`; a reference is resolved by walking its ``.member`` and
``[index]`` selectors down the tree (one walker, :func:`resolve`).  The canonical binding path
drops optional words so that equal bindings compare equal (``vertex.color.primary`` and
``vertex.color`` are both ``vertex.color``).

Sources: VP4 Table X.X (vertex attributes) and X.4 (results), FP4 fragment attribute and result
tables, GEO4 Tables X.2/X.3, GP4 2.X.3.3 (program parameters, ``state.*``), PBO.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ...ir.model import Binding, Stage
from .syntax import IndexConst, IndexRange, Member, Subscript


@dataclass
class Node:
    children: dict[str, "Node"] = field(default_factory=dict)
    index: str | None = None        # None | "opt" | "req": whether the member takes [n]
    default_index: int | None = None
    terminal: bool = False          # may end here
    canon: str | None = None        # replacement for this word in the canonical path ("" drops it)
    integer: bool = False           # the binding holds integers (vertex.id, primitive.id, ...)
    rows: bool = False              # a matrix: a declaration may bind all four rows
    decl_only: bool = False         # only legal in declarations (program.buffer)
    max_index: int = 255


def leaf(**kw) -> Node:
    return Node(terminal=True, **kw)


def _color(faces: bool) -> Node:
    sides = {"primary": leaf(canon=""), "secondary": leaf()}
    node = Node(dict(sides), terminal=True)
    if faces:
        node.children["front"] = Node(dict(sides), terminal=True, canon="")
        node.children["back"] = Node(dict(sides), terminal=True)
    return node


def _indexed(required: bool, default: int | None = None, max_index: int = 255, **kw) -> Node:
    return Node(index="req" if required else "opt", default_index=default, terminal=True,
                max_index=max_index, **kw)


# ---- attributes ----------------------------------------------------------------------------
VERTEX_INPUTS = Node({
    "position": leaf(), "normal": leaf(), "color": _color(False), "fogcoord": leaf(),
    "texcoord": _indexed(False, 0, 7), "attrib": _indexed(True, max_index=15),
    "id": leaf(integer=True), "instance": leaf(integer=True),
})
FRAGMENT_INPUTS = Node({
    "color": _color(False), "texcoord": _indexed(False, 0, 7), "fogcoord": leaf(),
    "clip": _indexed(True, max_index=7), "attrib": _indexed(True, max_index=15),
    "position": leaf(), "facing": leaf(),
})
GEOMETRY_VERTEX = Node({
    "position": leaf(), "color": _color(True), "fogcoord": leaf(), "pointsize": leaf(),
    "texcoord": _indexed(False, 0, 7), "attrib": _indexed(True, max_index=15),
    "clip": _indexed(True, max_index=7), "id": leaf(integer=True),
})
PRIMITIVE = Node({"id": leaf(integer=True)})

# ---- results -------------------------------------------------------------------------------
_VERTEX_RESULT_COMMON = {
    "position": leaf(), "color": _color(True), "fogcoord": leaf(), "pointsize": leaf(),
    "texcoord": _indexed(False, 0, 7), "attrib": _indexed(True, max_index=15),
    "clip": _indexed(True, max_index=7),
}
VERTEX_RESULTS = Node({**_VERTEX_RESULT_COMMON, "id": leaf(integer=True)})
GEOMETRY_RESULTS = Node({**_VERTEX_RESULT_COMMON, "primid": leaf(integer=True),
                         "layer": leaf(integer=True)})
FRAGMENT_RESULTS = Node({"color": _indexed(False, 0, 7), "depth": leaf()})

# ---- program parameters ----------------------------------------------------------------------
PROGRAM = Node({
    "local": _indexed(True, max_index=4095), "env": _indexed(True, max_index=4095),
    "buffer": Node(index="req", terminal=True, decl_only=True, max_index=15),
})

_MAT_PROPS = {p: leaf() for p in ("ambient", "diffuse", "specular", "emission", "shininess")}
_LPROD = {p: leaf() for p in ("ambient", "diffuse", "specular")}
_ROW = Node({"row": _indexed(True, max_index=3)}, terminal=True, rows=True)
_MATRIX_MODS = {"inverse": _ROW, "transpose": _ROW, "invtrans": _ROW}


def _matrix(index: str | None, default: int | None = None, max_index: int = 31) -> Node:
    return Node({**_MATRIX_MODS, "row": _indexed(True, max_index=3)}, index=index,
                default_index=default, terminal=True, rows=True, max_index=max_index)


STATE = Node({
    "material": Node({**_MAT_PROPS, "front": Node(dict(_MAT_PROPS), canon=""),
                      "back": Node(dict(_MAT_PROPS))}),
    "light": Node({"ambient": leaf(), "diffuse": leaf(), "specular": leaf(), "position": leaf(),
                   "attenuation": leaf(), "spot": Node({"direction": leaf()}), "half": leaf()},
                  index="req", max_index=7),
    "lightmodel": Node({"ambient": leaf(), "scenecolor": leaf(),
                        "front": Node({"scenecolor": leaf()}, canon=""),
                        "back": Node({"scenecolor": leaf()})}),
    "lightprod": Node({**_LPROD, "front": Node(dict(_LPROD), canon=""), "back": Node(dict(_LPROD))},
                      index="req", max_index=7),
    "fog": Node({"color": leaf(), "params": leaf()}),
    "matrix": Node({"modelview": _matrix("opt", 0), "projection": _matrix(None),
                    "mvp": _matrix(None), "texture": _matrix("opt", 0, 7),
                    "program": _matrix("req", None, 7)}),
    "texgen": Node({t: Node({c: leaf() for c in "strq"}) for t in ("eye", "object")},
                   index="opt", default_index=0, max_index=7),
    "clip": Node({"plane": leaf()}, index="req", max_index=7),
    "point": Node({"size": leaf(), "attenuation": leaf()}),
    "texenv": Node({"color": leaf()}, index="opt", default_index=0, max_index=7),
    "depth": Node({"range": leaf()}),
})


def input_roots(stage: Stage) -> dict[str, Node]:
    if stage == Stage.VERTEX:
        return {"vertex": VERTEX_INPUTS}
    if stage == Stage.FRAGMENT:
        return {"fragment": FRAGMENT_INPUTS, "primitive": PRIMITIVE}
    return {"vertex": GEOMETRY_VERTEX, "primitive": PRIMITIVE}


def result_root(stage: Stage) -> Node:
    return {Stage.VERTEX: VERTEX_RESULTS, Stage.FRAGMENT: FRAGMENT_RESULTS,
            Stage.GEOMETRY: GEOMETRY_RESULTS}[stage]


class BindingError(Exception):
    def __init__(self, message: str, span, code: str = "E2004"):
        super().__init__(message)
        self.span = span
        self.code = code


@dataclass
class Resolved:
    bindings: list[Binding]
    rest: list                  # selectors after the binding (swizzle / mask members)
    integer: bool
    vertex_index: object = None  # geometry: Subscript given right after "vertex" (or None)


def resolve(root_name: str, root: Node, selectors: list, ref_span, *, decl: bool,
            geometry_vertex: bool = False) -> Resolved:
    """Walk ``selectors`` from ``root``; return the binding(s) and the unused selectors.

    ``decl``: a declaration initializer (ranges ``[a..b]`` and whole matrices allowed).
    ``geometry_vertex``: the root is ``vertex`` of a geometry program, which takes ``[m]``.
    """
    sels = list(selectors)
    vertex_index = None
    if geometry_vertex and sels and isinstance(sels[0], Subscript):
        vertex_index = sels.pop(0)
    path = [root_name]
    node = root
    indices: list[int | tuple[int, int] | None] = []
    pos = 0
    while pos < len(sels):
        sel = sels[pos]
        if isinstance(sel, Member) and sel.name in node.children:
            child = node.children[sel.name]
            node = child
            if child.canon is None:
                path.append(sel.name)
            elif child.canon:
                path.append(child.canon)
            pos += 1
            # an index directly after this member
            if node.index and pos < len(sels) and isinstance(sels[pos], Subscript):
                indices.append(_index_value(sels[pos], node, decl))
                pos += 1
            elif node.index == "opt":
                indices.append(node.default_index)
            elif node.index == "req":
                indices.append(None)   # checked when leaving or at the end
            continue
        break
    rest = sels[pos:]
    if not node.terminal:
        nxt = rest[0] if rest else None
        where = nxt.span if nxt is not None else ref_span
        options = ", ".join(sorted(node.children))
        if isinstance(nxt, Member):
            raise BindingError(f"unknown binding member '{nxt.name}' after '{'.'.join(path)}' "
                               f"(expected one of: {options})", where)
        raise BindingError(f"incomplete binding '{'.'.join(path)}' (expected one of: {options})",
                           where)
    if None in indices:
        raise BindingError(f"'{'.'.join(path)}' needs an index", ref_span, "E2004")
    if node.decl_only and not decl:
        raise BindingError(f"'{'.'.join(path)}' can only be used in a BUFFER declaration, not in "
                           "an instruction", ref_span)
    bindings = _expand(".".join(path), indices, decl, ref_span)
    return Resolved(bindings, rest, node.integer, vertex_index)


def _index_value(sub: Subscript, node: Node, decl: bool):
    idx = sub.index
    if isinstance(idx, IndexConst):
        if idx.value > node.max_index or idx.value < 0:
            raise BindingError(f"binding index {idx.value} out of range [0, {node.max_index}]",
                               idx.span, "E2006")
        return idx.value
    if isinstance(idx, IndexRange):
        if not decl:
            raise BindingError("index ranges are only allowed in declarations", idx.span)
        if idx.first > idx.last:
            raise BindingError(f"empty range [{idx.first}..{idx.last}]", idx.span, "E2006")
        if idx.last > node.max_index:
            raise BindingError(f"binding index {idx.last} out of range [0, {node.max_index}]",
                               idx.span, "E2006")
        return (idx.first, idx.last)
    raise BindingError("bindings cannot be indexed relatively; declare an array variable and "
                       "index that", idx.span, "E2010")


def _expand(path: str, indices: list, decl: bool, span) -> list[Binding]:
    """Turn indices (some may be ranges) into one Binding per element."""
    first = indices[0] if indices else None
    second = indices[1] if len(indices) > 1 else None
    is_matrix = path.startswith("state.matrix.")
    if is_matrix:
        if not path.endswith(".row"):
            if not decl:
                raise BindingError("a whole matrix can only be bound by a PARAM array; use "
                                   ".row[n] in instructions", span)
            path = path + ".row"
            second = (0, 3)
            if len(indices) < 1:
                first = None
        # indices: [matrix index (opt/req or absent)], row
        if path.startswith(("state.matrix.projection", "state.matrix.mvp")):
            if second is None:
                second = first
            first = None
    out = []
    firsts = range(first[0], first[1] + 1) if isinstance(first, tuple) else [first]
    seconds = range(second[0], second[1] + 1) if isinstance(second, tuple) else [second]
    for a in firsts:
        for b in seconds:
            out.append(Binding(path, a, b))
    return out
