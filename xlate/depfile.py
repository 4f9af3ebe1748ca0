"""Make-syntax dependency files (``--depfile FILE`` of ``xlate convert`` and ``xlate batch``).

One rule on one line, ``out1 out2: in1 in2``, the form make (``-include``) and ninja
(``depfile =``) read, with file names escaped the way GCC's ``-MD`` escapes them: a space or tab
gets a backslash (and the backslashes right before it are doubled), ``$`` becomes ``$$`` and
``#`` becomes ``\\#``.  A newline cannot be written in a make file name at all, so such a name is
refused.  The file is written atomically like every output (:func:`xlate.cli.atomic_write`).
"""
from __future__ import annotations


def make_escape(name: str) -> str:
    out: list[str] = []
    backslashes = 0
    for ch in name:
        if ch in " \t":
            out.append("\\" * backslashes + "\\")       # double the run, then escape the blank
        elif ch == "$":
            out.append("$")
        elif ch == "#":
            out.append("\\")
        out.append(ch)
        backslashes = backslashes + 1 if ch == "\\" else 0
    return "".join(out)


def make_rule(targets: list[str], prerequisites: list[str]) -> str:
    """``targets: prerequisites`` and a newline; ValueError for a name make cannot hold."""
    for name in (*targets, *prerequisites):
        if "\n" in name or "\r" in name:
            raise ValueError(f"the file name {name!r} has a line break, which a make rule "
                             "cannot hold")
    if not targets:
        raise ValueError("no output was written, so there is no rule to write")
    head = " ".join(make_escape(t) for t in targets)
    tail = " ".join(make_escape(p) for p in prerequisites)
    return f"{head}:{' ' + tail if tail else ''}\n"


def write_depfile(path: str, targets: list[str], prerequisites: list[str]) -> str | None:
    """Write the rule to ``path`` atomically; the problem as a message, or None."""
    from .fsio import atomic_write
    try:
        data = make_rule(targets, prerequisites).encode("utf-8", "surrogateescape")
    except ValueError as e:
        return f"cannot write the depfile {path}: {e}"
    try:
        atomic_write(path, data)
    except OSError as e:
        return f"cannot write {path}: {e.strerror}"
    return None
