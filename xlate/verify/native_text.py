"""The program text of ``xlate verify --backend native``: its header, and the interface edits
the harness makes to it (:mod:`native`'s docstring lists them) -- text rewrites of the
interface only, never of the computation, in the ARB syntax (``result.position``) and in
NV_vertex_program's (``o[HPOS]``)."""
from __future__ import annotations

import re


class HarnessLimit(Exception):
    """The harness cannot feed or capture something the program uses (the reason)."""


def header(text: str) -> str:
    """The program's ``!!`` header (``!!ARBvp1.0``), or ""."""
    m = re.match(r"\s*(!!\w+(?:\.\d+)?)", text)
    return m.group(1) if m else ""


#: the NV_vertex_program / NV_fragment_program register syntax (``v[3]``, ``o[HPOS]``,
#: ``f[TEX0]``, ``o[COLR]``): the harness renames their ``o[..]`` registers instead
NV1_HEADERS = ("!!VP1.0", "!!VP1.1", "!!VP2.0", "!!FP1.0")


def _blank_comments(text: str) -> str:
    """The text with comments replaced by spaces (same offsets), for searching statements."""
    return re.sub(r"#[^\n]*", lambda m: " " * len(m.group()), text)


def _prologue_at(text: str) -> int:
    """Offset after the header and the OPTION statements: where the harness's own first
    instruction goes (before every instruction of the program)."""
    blank = _blank_comments(text)
    at = len(header(text)) + (len(text) - len(text.lstrip()))
    for m in re.finditer(r"\bOPTION\s+\w+\s*;", blank):
        at = m.end()
    return at


_RESULT = re.compile(r"\bresult\.(position|pointsize|fogcoord|depth|clip|texcoord|"
                     r"color(?:\.(?:front|back))?(?:\.(?:primary|secondary))?)\b(\s*\[\s*\d+\s*\])?")


def canonical_result(m: re.Match) -> str:
    """The canonical binding text of a matched ``result.*`` spelling (as Binding.text())."""
    name, idx = m.group(1), m.group(2)
    if name.startswith("color"):
        parts = name.split(".")[1:]
        back = "back" in parts
        sec = "secondary" in parts
        out = "result.color" + (".back" if back else "") + (".secondary" if sec else "")
        if idx and not back and not sec:
            n = int(idx.strip()[1:-1])
            return out if n == 0 else f"result.color[{n}]"
        return out
    if name in ("texcoord", "clip"):
        n = int(idx.strip()[1:-1]) if idx else 0
        return f"result.{name}[{n}]"
    return f"result.{name}"


def rename_results(text: str, mapping: dict[str, str]) -> str:
    """Rename output bindings simultaneously (``mapping``: canonical text -> new text); the
    components after the name (``.xyz``) are kept.  Output arrays (``[0..3]``) are refused."""
    blank = _blank_comments(text)
    touched = set(mapping) | set(mapping.values())
    for m in re.finditer(r"\bresult\.(\w+)\s*\[\s*(\d+)\s*\.\.\s*(\d+)\s*\]", blank):
        # an output array bound to a range (cg's NVvp4 ``OUTPUT t[] = { result.texcoord[0..1]
        # };``) is left alone unless a renamed binding lies in it
        family, lo, hi = m.group(1), int(m.group(2)), int(m.group(3))
        if any(re.fullmatch(rf"result\.{family}\[(\d+)\]", b) and
               lo <= int(b[b.index("[") + 1:-1]) <= hi for b in touched):
            raise HarnessLimit("an output array bound to a range of result bindings holds "
                               "one the harness renames")
    out, last = [], 0
    for m in _RESULT.finditer(blank):
        new = mapping.get(canonical_result(m))
        if new is None:
            continue
        out.append(text[last:m.start()])
        out.append(new)
        last = m.end()
    out.append(text[last:])
    return "".join(out)


#: output binding (canonical text) -> NV_vertex_program output register (NV_vertex_program
#: table X.3; texture coordinates: TEX0..TEX7)
NV1_OUTPUTS = {"result.position": "HPOS", "result.color": "COL0",
               "result.color.secondary": "COL1", "result.color.back": "BFC0",
               "result.color.back.secondary": "BFC1", "result.fogcoord": "FOGC",
               "result.pointsize": "PSIZ"}


def _nv1_output(binding: str) -> str:
    m = re.fullmatch(r"result\.texcoord\[(\d)\]", binding)
    if m:
        return f"TEX{m.group(1)}"
    if binding not in NV1_OUTPUTS:
        raise HarnessLimit(f"output {binding} has no NV_vertex_program register")
    return NV1_OUTPUTS[binding]


def nv1_output_register(binding: str) -> str:
    """``result.texcoord[3]`` -> ``o[TEX3]`` (NV_vertex_program's spelling of an output)."""
    return f"o[{_nv1_output(binding)}]"


def rename_nv1_results(text: str, mapping: dict[str, str]) -> str:
    """:func:`rename_results` for the NV_vertex_program syntax: ``o[HPOS]`` -> ``o[TEX7]``
    and the like, simultaneously (``mapping`` in canonical ARB bindings, as for ARB texts)."""
    pairs = {_nv1_output(a): _nv1_output(b) for a, b in mapping.items()}
    blank = _blank_comments(text)
    out, last = [], 0
    for m in re.finditer(r"\bo\[\s*([A-Z0-9]+)\s*\]", blank):
        new = pairs.get(m.group(1))
        if new is None:
            continue
        out.append(text[last:m.start(1)])
        out.append(new)
        last = m.end(1)
    out.append(text[last:])
    return "".join(out)


def drop_option(text: str, option: str) -> str:
    """Remove ``OPTION <option>;`` (replaced by blanks: every offset kept, and a statement
    after it on the same line stays a statement -- a comment would swallow it)."""
    return re.sub(rf"\bOPTION\s+{option}\s*;", lambda m: " " * len(m.group()), text)


def add_option(text: str, option: str) -> str:
    if re.search(rf"\bOPTION\s+{option}\b", _blank_comments(text)):
        return text
    at = len(header(text)) + (len(text) - len(text.lstrip()))
    return text[:at] + f"\nOPTION {option};" + text[at:]


def insert_prologue(text: str, lines: list[str]) -> str:
    at = _prologue_at(text)
    return text[:at] + "\n" + "\n".join(lines) + "\n" + text[at:]
