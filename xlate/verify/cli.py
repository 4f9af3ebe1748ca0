"""``xlate verify FILE... [--lanes N] [--seed S] [--backend gl|gl-spirv|vulkan] [--json REPORT]
[--report FILE.html] [--cluster ADDRESS]``

Runs every program in the software executor and, translated, on a real implementation, with
the same generated inputs, and compares the outputs (:mod:`xlate.verify`).  ``--report`` writes
an HTML page with the outputs' images and the evidence of every verdict (:mod:`report`; needs
Pillow: a one-line hint and exit 3 without it); on a cluster the outputs stay on the workers and
the page has the verdicts without the images.

Exit codes: 0 every program passed (or is unsupported: reported, not an error); 1 a
mismatch, or a program with errors (diagnostics as ``xlate convert`` prints them); 2 usage
(bad arguments, unreadable file, unwritable report); 3 no implementation available (no EGL /
OpenGL 4.5, no GL_ARB_gl_spirv; for ``vulkan`` no ``vulkan`` Python package, Vulkan loader,
driver or device with transform feedback) or no glslang for ``gl-spirv``/``vulkan``.
"""
from __future__ import annotations

import json
import sys

EXIT_OK, EXIT_MISMATCH, EXIT_USAGE, EXIT_UNAVAILABLE = 0, 1, 2, 3


def _print_diagnostics(diags, source) -> None:
    from ..diagnostics import use_color
    color = use_color(sys.stderr)
    if not isinstance(source, str):
        source = None                # a binary token stream has no lines to show
    for d in diags:
        print(d.render(source, color), file=sys.stderr)


def _read(path: str) -> tuple[str | bytes, str]:
    """(source, name): text, or the bytes of a TGSI token stream (xlate.fsio.read_program)."""
    from ..fsio import read_program
    return read_program(path)


def format_departure(loc: dict) -> list[str]:
    """Lines for one localization entry: a departure of the replay (:mod:`replay`) -- the
    instruction, lane, pass, components, verdict, both results and the executor's operands --
    or a finding without an instruction (``interface``)."""
    ins = loc.get("instruction")
    verdict = loc.get("verdict")
    if not ins:
        lanes = loc.get("lanes")
        where = f" lanes {', '.join(map(str, lanes))}" if lanes else ""
        return [f"  [{verdict}]{where}: {loc.get('detail', '')}"]
    line_no = f"line {ins['line']}: " if ins.get("line") else ""
    comps = f".{loc['components']}" if loc.get("components") else ""
    passno = f", pass {loc['pass']}" if loc.get("pass", 1) != 1 else ""
    kind = "unexplained" if verdict in ("divergence", "cc", "flow") else "permitted"
    out = [f"  lane {loc.get('lane')}{passno}: {kind} [{verdict}] at {line_no}{ins['text']}"
           f"{comps}",
           f"      executor       {', '.join(loc.get('executor', []))}",
           f"      implementation {', '.join(loc.get('implementation', []))}"]
    for j, v in enumerate(loc.get("operands") or []):
        out.append(f"      operand {j}: {', '.join(v)}")
    return out


def format_report(rep, verbose: bool = True) -> list[str]:
    """Human-readable lines for one :class:`core.ProgramReport`."""
    head = {"pass": "PASS", "mismatch": "MISMATCH", "unsupported": "UNSUPPORTED",
            "error": "ERROR", "skipped": "SKIPPED"}[rep.status]
    what = f"{rep.stage} program, {rep.lanes} lanes" if rep.stage else ""
    line = f"{head} {rep.file}"
    if what:
        line += f" ({what}"
        line += f", {rep.compared} components compared)" if rep.compared else ")"
    if rep.reason:
        line += f": {rep.reason}"
    out = [line]
    if rep.status == "mismatch" and verbose:
        out.append(f"  {rep.total_differences} differences; first:")
        for d in rep.differences[:5]:
            out.append(f"    {d.describe()}")
        for loc in rep.localization:
            out += format_departure(loc)
        for lane, vals in list(rep.inputs_of.items())[:1]:
            out.append(f"  inputs of lane {lane}:")
            for k, v in vals.items():
                out.append(f"    {k} = {', '.join(v)}")
    if verbose:
        for n in rep.notes[:5]:
            out.append(f"  note: {n}")
    return out


def _verify_on_cluster(address: str, texts: list[tuple[str, str]], args):
    """``--cluster``: the reports of ``texts`` verified on the cluster, in input order as each
    becomes available, with the implementation's description: ``(report, implementation)``.
    A program whose verifier crashed is an ``error`` report with the reason."""
    from .batch import verify_on_cluster
    from .core import ProgramReport
    items = [(name, text.encode("utf-8", "surrogateescape")) for text, name in texts]
    pending: dict[int, tuple] = {}
    nxt = 0
    for idx, rep, implementation in verify_on_cluster(address, items, backend=args.backend,
                                                      lanes=args.lanes, seed=args.seed):
        if isinstance(rep, dict):               # timeout / crash of the verifier
            rep = ProgramReport(file=rep["file"], status="error", backend=args.backend,
                                seed=args.seed, reason=f"{rep['status']}: {rep['reason']}")
        pending[idx] = (rep, implementation)
        while nxt in pending:
            yield pending.pop(nxt)
            nxt += 1


def main(args) -> int:
    import os
    os.environ.setdefault("EGL_PLATFORM", "surfaceless")
    if args.lanes is not None and args.lanes < 1:
        print("xlate verify: error: --lanes must be a positive integer", file=sys.stderr)
        return EXIT_USAGE
    if args.lanes is not None and args.lanes > 1 << 20:
        print("xlate verify: error: --lanes must be at most 1048576", file=sys.stderr)
        return EXIT_USAGE
    report_page = getattr(args, "report", None)
    html = None
    if report_page:
        problem = _report_problem(report_page)
        if problem:
            print(f"xlate verify: error: {problem}", file=sys.stderr)
            return EXIT_USAGE
        try:
            from . import report as html
        except ModuleNotFoundError as e:
            if e.name != "PIL":
                raise
            print("xlate verify: error: --report needs the Python package 'pillow' "
                  "(python3 -m pip install 'xlate[verify]')", file=sys.stderr)
            return EXIT_UNAVAILABLE
    from .core import make_runner, verify_source
    from .glapi import GLUnavailable
    from ..fsio import SourceTooLarge, output_folder_problem
    why = output_folder_problem(args.json) if args.json else None
    if why:                          # before the work, not after it
        print(f"xlate: error[E8002]: cannot write {args.json}: {why}", file=sys.stderr)
        return EXIT_USAGE
    texts = []
    for path in args.files:
        try:
            texts.append(_read(path))
        except OSError as e:
            print(f"xlate: error[E8001]: cannot read {path}: {e.strerror}", file=sys.stderr)
            return EXIT_USAGE
        except SourceTooLarge as e:
            _print_diagnostics([e.diagnostic], None)
            return EXIT_MISMATCH
    cluster = getattr(args, "cluster", None)
    profile = getattr(args, "profile", None)
    if profile not in (None, "glsl450") and (args.backend != "gl" or cluster):
        print(f"xlate verify: error: --profile {profile} runs on the local gl backend only",
              file=sys.stderr)
        return EXIT_USAGE
    if cluster:
        results = _verify_on_cluster(cluster, texts, args)
        runner = None
    elif not getattr(args, "in_process", False):
        # a child process verifies: an implementation that aborts gives an ERROR report
        from .isolated import verify_isolated
        results = verify_isolated(texts, backend=args.backend, profile=profile,
                                  lanes=args.lanes, seed=args.seed,
                                  keep_evidence=html is not None,
                                  via=getattr(args, "via", "auto"))
        runner = None
    else:
        try:
            runner = make_runner(args.backend, profile=profile)
        except GLUnavailable as e:
            print(f"xlate verify: error: no implementation available for backend "
                  f"'{args.backend}': {e}", file=sys.stderr)
            return EXIT_UNAVAILABLE
        results = ((verify_source(text, name, lanes=args.lanes, seed=args.seed,
                                  backend=args.backend, runner=runner,
                                  keep_evidence=html is not None,
                                  via=getattr(args, "via", "auto")), None)
                   for text, name in texts)
    reports, sections = [], []
    implementation = None
    code = EXIT_OK
    from ..cluster import ClusterUnavailable
    try:
        for text, name in texts:
            try:
                rep, implementation = next(results)
            except (GLUnavailable, ClusterUnavailable) as e:
                print(f"xlate verify: error: {e}", file=sys.stderr)
                return EXIT_UNAVAILABLE
            reports.append(rep)
            if html is not None:     # drawn now: the outputs of one program at a time are kept
                sections.append(html.program_section(rep, text))
            if rep.status == "error":
                _print_diagnostics(rep.diagnostics, text)
                code = max(code, EXIT_MISMATCH)
            for line in format_report(rep):
                print(line)
            if rep.status == "mismatch":
                code = max(code, EXIT_MISMATCH)
    finally:
        results.close()             # the cluster's connection (a local cluster: stopped)
    counts = {}
    for r in reports:
        counts[r.status] = counts.get(r.status, 0) + 1
    if len(reports) > 1:
        print("summary: " + ", ".join(f"{v} {k}" for k, v in sorted(counts.items())))
    if args.json:
        from .. import __version__
        doc = {"tool": "xlate verify", "version": __version__, "backend": args.backend,
               "implementation": runner.describe() if runner else implementation,
               "seed": args.seed, "lanes": args.lanes,
               "summary": counts, "programs": [r.to_json() for r in reports]}
        try:
            from ..fsio import atomic_write
            atomic_write(args.json, (json.dumps(doc, indent=2) + "\n").encode())
        except OSError as e:
            print(f"xlate: error[E8002]: cannot write {args.json}: {e.strerror}", file=sys.stderr)
            return EXIT_USAGE
    if html is not None:
        from .. import __version__
        page = html.render(sections, version=__version__, backend=args.backend,
                           implementation=runner.describe() if runner else implementation,
                           seed=args.seed, lanes=args.lanes)
        try:
            from ..fsio import atomic_write
            atomic_write(report_page, page.encode("utf-8"))
        except OSError as e:
            print(f"xlate: error[E8002]: cannot write {report_page}: {e.strerror}",
                  file=sys.stderr)
            return EXIT_USAGE
    sys.stdout.flush()
    return code


def _report_problem(path: str) -> str | None:
    """Why ``--report path`` cannot be written, checked before any work: the name must end in
    .html (``--json`` writes JSON) and its folder must exist and be writable (none is made)."""
    import os
    if not path.endswith((".html", ".htm")):
        return f"--report {path}: the name must end in .html (--json writes a JSON report)"
    folder = os.path.dirname(path) or "."
    if not os.path.isdir(folder):
        return f"--report {path}: no folder {folder}"
    if os.path.isdir(path):
        return f"--report {path}: is a folder"
    if not os.access(folder, os.W_OK):
        return f"--report {path}: folder {folder} is not writable"
    return None
