"""The layering of ARCHITECTURE.md, kept by a test: data flows one way, nothing imports the CLI.

Every ``import`` in ``xlate/`` is read from the source (the AST, function-level imports
included; ``if TYPE_CHECKING:`` blocks left out) and checked against the layer of its module:

    0 diagnostics, gcpause, ir, pages, fsio (shared helpers)       1 frontends      2 passes      3 backends, exec
    4 verify     5 batch, api, check, depfile, warmup, cluster     7 the command lines     8 console

A module may import its own layer and those below; the package root only for ``__version__``.
Import cycles among modules are reported too.  What is known to break a rule today is listed in
KNOWN_* with the reason: those lists may only shrink.
"""
from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "xlate"

LAYERS = [("xlate.diagnostics", 0), ("xlate.gcpause", 0), ("xlate.ir", 0), ("xlate.pages", 0), ("xlate.fsio", 0),
          ("xlate.frontends", 1), ("xlate.passes", 2),
          ("xlate.backends", 3), ("xlate.exec.cli", 7), ("xlate.exec", 3),
          ("xlate.verify.cli", 7), ("xlate.verify", 4),
          ("xlate.batch", 5), ("xlate.api", 5), ("xlate.check", 5), ("xlate.depfile", 5),
          ("xlate.warmup", 5), ("xlate.cluster", 5), ("xlate.usage", 5), ("xlate.cli", 7), ("xlate.console", 8),
          ("xlate.__main__", 8)]

#: upward imports known today (importer, imported)
KNOWN_UPWARD = {
    # the verifier's batch mode runs on the cluster engine, which fingerprints the code with
    # batch.cache.code_fingerprint (a shared helper living in batch/)
    ("xlate.verify.batch", "xlate.cluster"),
}
#: import cycles known today (sorted member lists; lazy, function-level imports count: a cycle is
#: a design knot even when Python can load it)
KNOWN_CYCLES = [
    # the grammar tables in syntax.py and the two parsers that use them
    ["xlate.frontends.nv.fastparse", "xlate.frontends.nv.larkparse", "xlate.frontends.nv.syntax"],
    # core dispatches a program to its stage's verdict (compute, tessellation, the native
    # backend), and each of those ends in core's verdict tail (``_explain``).  The draw's runs
    # (draw_run), its comparison (output_compare) and the direct module's cross-check
    # (direct_check) are outside it: the replay, the probes and the permits no longer are in it
    ["xlate.verify.compute_verify", "xlate.verify.core", "xlate.verify.native_probe",
     "xlate.verify.native_verify", "xlate.verify.tess_verify"],
]


#: cycles of module-level imports (Python loads them only in one order)
KNOWN_MODULE_CYCLES: list = [
    # (none: the rules' Site and shared helpers are permits_site.py, which permits,
    # permits_texture and permits_native import)
]


def modules() -> dict[str, Path]:
    out = {}
    for p in PACKAGE.rglob("*.py"):
        name = ".".join(p.relative_to(PACKAGE.parent).with_suffix("").parts)
        out[name.removesuffix(".__init__")] = p
    return out


def imports(name: str, path: Path, known: dict[str, Path], *, module_level: bool) -> set[tuple[str, tuple[str, ...]]]:
    """``(module imported, names imported from it)`` of one module."""
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    out = set()

    def visit(node, top: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                continue
            nested = not top or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))
            if isinstance(child, ast.ImportFrom) and not (module_level and nested):
                if child.level:
                    parts = package.split(".")
                    base = ".".join(parts[:len(parts) - child.level + 1])
                    target = f"{base}.{child.module}" if child.module else base
                else:
                    target = child.module or ""
                names = tuple(a.name for a in child.names)
                submodules = {n for n in names if f"{target}.{n}" in known}
                for n in submodules:          # 'from . import compare': a module
                    out.add((f"{target}.{n}", ()))
                if target in known and len(submodules) < len(names):
                    out.add((target, tuple(n for n in names if n not in submodules)))
            elif isinstance(child, ast.Import) and not (module_level and nested):
                out.update((a.name, ()) for a in child.names if a.name in known)
            visit(child, top and not nested)
    visit(ast.parse(path.read_text()), True)
    return {(t, n) for t, n in out if t != name}


def layer(name: str) -> int | None:
    for prefix, rank in LAYERS:
        if name == prefix or name.startswith(prefix + "."):
            return rank
    return None


def test_every_module_has_a_layer():
    assert [m for m in modules() if m != "xlate" and layer(m) is None] == []


def test_no_module_imports_a_higher_layer():
    known = modules()
    upward = set()
    for name, path in known.items():
        if name == "xlate":
            continue
        for target, names in imports(name, path, known, module_level=False):
            if target == "xlate":
                assert names == ("__version__",), (name, names)
                continue
            if layer(target) > layer(name):
                upward.add((name, target))
    assert upward - KNOWN_UPWARD == set()
    assert KNOWN_UPWARD - upward == set(), "fixed: remove from KNOWN_UPWARD"


def test_nothing_imports_the_command_line():
    known = modules()
    importers = {name for name, path in known.items()
                 for target, _ in imports(name, path, known, module_level=False)
                 if target == "xlate.cli"}
    command_lines = {name for name in known if (layer(name) or 0) >= layer("xlate.cli")}
    assert importers - command_lines == {a for a, b in KNOWN_UPWARD if b == "xlate.cli"}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def strong(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))
    for v in sorted(graph):
        if v not in index:
            strong(v)
    return sorted(out)


def test_import_cycles():
    known = modules()
    for module_level in (True, False):
        graph = {name: {t for t, _ in imports(name, path, known, module_level=module_level)
                        if t != "xlate" and not name.startswith(t + ".")}
                 for name, path in known.items()}
        assert cycles(graph) == (KNOWN_MODULE_CYCLES if module_level else KNOWN_CYCLES)


def test_the_cycle_finder_finds_cycles():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


#: the most lines a module of xlate/ may have (issue 18: "no module over ~800 lines": small
#: modules with one job each)
MAX_MODULE_LINES = 800
#: modules over it today, with the reason; the list may only shrink
KNOWN_LONG: dict[str, str] = {}


def test_no_module_is_over_the_line_limit():
    lengths = {name: len(path.read_text().splitlines()) for name, path in modules().items()}
    long = {name for name, n in lengths.items() if n > MAX_MODULE_LINES}
    assert long == set(KNOWN_LONG), {name: lengths[name] for name in long ^ set(KNOWN_LONG)}
