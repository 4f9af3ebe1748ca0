"""cgc's GLSL reading variables it never wrote: the ``uninitialised`` verdict, shown by a run.

cgc copies the Cg source's locals into GLSL declarations without initialisers
(``bvec2 _px1;`` in xBR's main(), ``vec4 _mask_config0084;`` at file scope) and reads them on
paths where nothing wrote them (xBR writes ``_px1`` in some branches and packs it into the
output on all).  GLSL 1.10 §4.3 gives such a variable no value ("undefined" until written;
§4.3.7 for globals without storage qualifier likewise), so cgc's GLSL computes with whatever
the implementation leaves there, while the assembly of the same entry point reads
temporaries the executor starts at 0 (NV_gpu_program4 leaves them undefined too: the Cg
source's defect reaches both outputs, with different values).

:func:`initialised` writes the defined value -- zero, false -- into every such declaration;
:mod:`oracle` runs this *initialised twin* of cgc's GLSL on the same inputs.  A lane that
differs from the assembly with cgc's GLSL and agrees with the twin is explained by the read of
an undefined value (shown: the one change is the initialisers); a lane that still differs
is judged against the twin's outputs by :mod:`oracle_explain`.
"""
from __future__ import annotations

import re

#: GLSL 1.10 types that get a zero initialiser, and the zero of each
_ZERO = {"float": "0.0", "int": "0", "bool": "false"}
for _n in (2, 3, 4):
    _ZERO[f"vec{_n}"] = f"vec{_n}(0.0)"
    _ZERO[f"ivec{_n}"] = f"ivec{_n}(0)"
    _ZERO[f"bvec{_n}"] = f"bvec{_n}(false)"
    _ZERO[f"mat{_n}"] = f"mat{_n}(0.0)"

_DECL = re.compile(r"^(?P<indent>[ \t]*)(?P<type>" + "|".join(sorted(_ZERO, key=len, reverse=True))
                   + r")[ \t]+(?P<name>[A-Za-z_]\w*)[ \t]*;[ \t]*$", re.M)


def initialised(glsl: str) -> tuple[str, list[str]]:
    """cgc's GLSL with every plain declaration without initialiser (a local, or a global with
    no storage qualifier) given its type's zero; returns the text and the names changed.
    Arrays and structs are left as they are (GLSL 1.10 has no array initialisers)."""
    names: list[str] = []
    # struct members are not variables (``struct VOUT { vec2 _texCoord; };``)
    members = [(m.start(), m.end()) for m in
               re.finditer(r"\bstruct\s+\w*\s*\{[^}]*\}", glsl)]

    def repl(m: re.Match) -> str:
        if any(a <= m.start() < b for a, b in members):
            return m.group(0)
        names.append(m.group("name"))
        return f"{m.group('indent')}{m.group('type')} {m.group('name')} = " \
               f"{_ZERO[m.group('type')]};"
    return _DECL.sub(repl, glsl), names
