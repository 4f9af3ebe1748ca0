"""Reports of ``xlate batch --report FILE.json|FILE.html``.

JSON (schema ``xlate-batch-report/1``, documented in docs/batch.md): options, summary counts and
one entry per input file in sorted order.  Everything except ``summary.seconds``,
``options.jobs`` and the per-file ``cached`` flags is the same for the same inputs and options,
whatever ``-j``.

HTML: one self-contained page (inline CSS and script, nothing loaded) rendered from
``templates/report/batch.html.j2`` (:mod:`xlate.pages`: autoescaped).  Paths are relative to
the batch root (``Entry.rel``); a summary by dialect and status at the top; a table of every
program with filters (status, dialect, stage, text); a row opens the diagnostics and the source
beside the generated GLSL, diagnostics shown under the lines they are about, where clicking a
source line highlights the GLSL lines its instruction became and clicking a GLSL line
highlights its source line (the map is the backend's own, ``GlslOutput.line_map``, made while
the GLSL is emitted).  The page holds nothing about the run itself (seconds, jobs, which
outputs came from the cache), so the same inputs and options give the same bytes.
"""
from __future__ import annotations

import json
import os

SCHEMA = "xlate-batch-report/1"
MAX_EMBEDDED_SOURCE = 256 * 1024      # characters of one source shown in the HTML report


def report_document(summary) -> dict:
    """The JSON report as a dict."""
    from .. import __version__
    files = []
    for e in summary.entries:
        if e.skipped:
            files.append({"source": e.display, "status": "skipped", "cached": False,
                          "dialect": None, "stage": None, "outputs": [], "diagnostics": []})
            if e.skip_reason:            # not a regular file: what it is instead
                files[-1]["reason"] = e.skip_reason
            continue
        r = e.record
        files.append({"source": e.display, "status": r["status"], "cached": e.cached,
                      "dialect": r.get("dialect"), "stage": r.get("stage"),
                      "outputs": list(r["outputs"]), "diagnostics": list(r["diagnostics"])})
    return {"schema": SCHEMA, "xlate": __version__,
            "options": {"targets": list(summary.targets), "profile": summary.profile,
                        "outdir": summary.outdir, "jobs": summary.jobs},
            "summary": dict(summary.counts, seconds=round(summary.seconds, 3)),
            "files": files}


def write_report(summary, path: str) -> None:
    from ..fsio import atomic_write
    if path.endswith(".json"):
        data = json.dumps(report_document(summary), indent=2) + "\n"
    else:
        data = html_report(summary, path)
    atomic_write(path, data.encode("utf-8"))


# ---- HTML ------------------------------------------------------------------------------------------
STATUSES = ("ok", "warning", "error")
NO_DIALECT = "(unknown)"          # a file that could not be read: no header was seen


def html_report(summary, report_path: str | None = None) -> str:
    """The HTML page.  ``report_path``: where it will be written (the output folder is shown
    relative to it)."""
    from .. import pages
    from ..diagnostics import INTERNAL_CODES
    from .outputs import diagnostic_from_json
    doc = report_document(summary)
    rows, data, skipped = [], [], []
    grid: dict[str, dict[str, int]] = {}
    for e, f in zip(summary.entries, doc["files"]):
        if f["status"] == "skipped":
            skipped.append({"path": e.rel, "reason": f.get("reason", "")})
            continue
        text = e.data.decode("utf-8", "replace") if e.data is not None else ""
        if len(text) > MAX_EMBEDDED_SOURCE:
            text = text[:MAX_EMBEDDED_SOURCE] + "\n... (truncated)\n"
        # diagnostics name the file as the batch root sees it, like every path on the page
        diags = [dict(d, file=e.rel) if "file" in d else d for d in f["diagnostics"]]
        rendered = [diagnostic_from_json(d).render(None if d["code"] in INTERNAL_CODES else text)
                    for d in diags]
        data.append({"src": text, "glsl": e.record.get("glsl", ""),
                     "profile": e.record.get("glsl_profile", ""),
                     "map": e.record.get("linemap"), "diag": rendered,
                     "diags": [{"line": d.get("line", 0), "col": d.get("col", 1),
                                "length": d.get("length", 1), "severity": d["severity"],
                                "code": d["code"], "message": d["message"]} for d in diags]})
        n_err = sum(1 for d in diags if d["severity"] == "error")
        first = diags[0] if diags else None
        dialect = f["dialect"] or NO_DIALECT
        rows.append({"status": f["status"], "path": e.rel, "dialect": dialect,
                     "stage": f["stage"] or "", "errors": n_err, "warnings": len(diags) - n_err,
                     "first": f"{first['code']}: {first['message']}" if first else "",
                     "outputs": " ".join(f["outputs"])})
        cell = grid.setdefault(dialect, dict.fromkeys(STATUSES, 0))
        cell[f["status"]] = cell.get(f["status"], 0) + 1
    by_status = {s: sum(1 for r in rows if r["status"] == s) for s in STATUSES}
    opts = doc["options"]
    outdir = opts["outdir"]
    if report_path is not None:
        outdir = os.path.relpath(os.path.abspath(outdir),
                                 os.path.dirname(os.path.abspath(report_path)))
    return pages.render(
        "batch.html.j2", version=doc["xlate"], targets=", ".join(opts["targets"]),
        profile=opts["profile"] or "default", outdir=outdir, counts=doc["summary"],
        statuses=STATUSES,
        grid=[{"dialect": d, "counts": grid[d], "total": sum(grid[d].values())}
              for d in sorted(grid)],
        status_choices=[("all", "all", len(rows))] + [(s, s, by_status[s]) for s in
                                                      ("error", "warning", "ok")],
        dialects=sorted(grid), stages=sorted({r["stage"] for r in rows if r["stage"]}),
        rows=rows, skipped=skipped, data=data)
