"""``xlate verify --report FILE.html``: one self-contained page for the programs verified.

Rendered from ``templates/report/verify.html.j2`` (:mod:`xlate.pages`: autoescaped; inline CSS,
script and images -- PNG ``data:`` URLs made by :mod:`images` with Pillow -- nothing loaded).
At the top: the implementation, the counts by status, filters and an index of the programs.
Then per program:

* the verdict and its reason, the components compared, how many differences the replay
  explained and how many it could not;
* fragment programs: for each output the executor's image, the implementation's image and the
  difference heat map; vertex and geometry programs: a plot of which lanes and components
  differ (:mod:`images` says how to read them).  A program that passes gets them too ("no
  differences");
* the source with the localized instructions highlighted (red: a departure nothing explains,
  blue: one the replay showed permitted) and tagged with the verdict, lane and components;
* the evidence: each departure (instruction, lane, pass, components, both results, the
  executor's operands), the first differences, the inputs of a differing lane, the spec passage
  of every verdict that explained something (``compare.EXPLANATIONS``), the notes, and the
  translation that ran.

:func:`program_section` turns one report into plain data right after its verification (the
images are made then, and the arrays of ``rep.evidence`` can go); :func:`render` makes the page.
The page holds no timings: the same programs, options and implementation give the same bytes.
"""
from __future__ import annotations

import base64

import PIL  # noqa: F401  -- imported here so that a missing Pillow is known before any work

from . import compare as cmp
from . import images
from .core import SUSPECT

STATUSES = ("mismatch", "error", "unsupported", "skipped", "pass")
MAX_SOURCE = 256 * 1024         # characters of one program shown
MAX_DIFFERENCES = 20
SHOWN_DEPARTURES = 8            # in the open table; the rest behind a "more" switch


def _data_url(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def _departure(loc: dict) -> dict:
    """One localization entry (:mod:`replay`) as the template shows it."""
    ins = loc.get("instruction") or {}
    verdict = loc.get("verdict") or "divergence"
    return {"verdict": verdict, "unexplained": verdict in SUSPECT,
            "line": ins.get("line"), "text": ins.get("text", ""), "lane": loc.get("lane"),
            "pass": loc.get("pass", 1), "components": loc.get("components", ""),
            "executor": ", ".join(loc.get("executor") or []),
            "implementation": ", ".join(loc.get("implementation") or []),
            "operands": [", ".join(v) for v in loc.get("operands") or []],
            "lanes": loc.get("lanes") or [], "detail": loc.get("detail", "")}


def _source_lines(text: str, departures: list[dict]) -> list[dict]:
    if "\0" in text:               # a TGSI token stream: nothing to list line by line
        return [{"n": 1, "text": "(a binary program: no source lines to show)", "cls": "",
                 "tags": [], "more": 0}]
    if len(text) > MAX_SOURCE:
        text = text[:MAX_SOURCE] + "\n... (truncated)"
    tags: dict[int, list[dict]] = {}
    for d in departures:
        if d["line"]:
            tags.setdefault(d["line"], []).append(d)
    lines = []
    for n, line in enumerate(text.split("\n"), 1):
        found = tags.get(n, [])
        cls = ""
        if any(d["unexplained"] for d in found):
            cls = "localized"
        elif found:
            cls = "explained"
        seen, labels = set(), []
        for d in found:
            label = f"{d['verdict']} lane {d['lane']}" + (f" .{d['components']}"
                                                          if d["components"] else "")
            if label not in seen:
                seen.add(label)
                labels.append(label)
        lines.append({"n": n, "text": line, "cls": cls, "tags": labels[:3],
                      "more": max(0, len(labels) - 3)})
    if lines and lines[-1]["text"] == "" and not lines[-1]["cls"]:
        lines.pop()
    return lines


def program_section(rep, text: str) -> dict:
    """Everything the page shows of one :class:`core.ProgramReport` (``rep.evidence`` from a
    run with ``keep_evidence=True``) verified from the source ``text``."""
    departures = [_departure(loc) for loc in rep.localization]
    # the replay's examples of permitted departures carry the verdicts that explained something
    adopted = sorted({d["verdict"] for d in departures if not d["unexplained"]})
    section = {
        "file": rep.file, "status": rep.status, "reason": rep.reason, "stage": rep.stage,
        "dialect": rep.dialect, "lanes": rep.lanes, "seed": rep.seed, "compared": rep.compared,
        "total_differences": rep.total_differences,
        "differences": [d.describe() for d in rep.differences[:MAX_DIFFERENCES]],
        "departures": [d for d in departures if d["line"] or d["text"]][:SHOWN_DEPARTURES],
        "more_departures": [d for d in departures if d["line"] or d["text"]][SHOWN_DEPARTURES:],
        "findings": [d for d in departures if not (d["line"] or d["text"])],
        "inputs": [{"lane": lane, "bindings": [{"binding": k, "value": ", ".join(v)}
                                             for k, v in vals.items()]}
                   for lane, vals in list(rep.inputs_of.items())[:1]],
        "explanations": [{"verdict": v, "spec": cmp.EXPLANATIONS[v][0],
                          "rule": cmp.EXPLANATIONS[v][1]} for v in adopted
                         if v in cmp.EXPLANATIONS],
        "notes": list(rep.notes),
        "diagnostics": [d.render(text) for d in rep.diagnostics],
        "source": _source_lines(text, departures),
        "images": [], "plots": [], "no_pictures": "", "partial": "", "glsl": "",
        "counts": {"differ": 0, "explained": 0, "unexplained": 0},
    }
    ev = rep.evidence
    if ev is None:
        section["no_pictures"] = _why_no_pictures(rep)
        return section
    section["glsl"] = ev.glsl
    unexplained = ev.unexplained_keys(rep.status)
    explained = sum(1 for d in ev.differences
                    if (d.output, d.lane, d.component) not in unexplained)
    section["counts"] = {"differ": len(ev.differences), "explained": explained,
                         "unexplained": len(ev.differences) - explained}
    drawn = min(ev.lanes, images.MAX_PICTURE_LANES)
    if drawn < ev.lanes:
        section["partial"] = f"the pictures show the first {drawn} of {ev.lanes} lanes"
    if ev.stage == "fragment":
        killed = (ev.killed[0][:drawn], ev.killed[1][:drawn])
        for out in ev.outputs:
            if drawn < ev.lanes:
                out.executor, out.implementation = (out.executor[:drawn],
                                                    out.implementation[:drawn])
            pic = images.fragment_images(out, killed, drawn, unexplained)
            lo, hi = pic["range"]
            section["images"].append({
                "binding": out.binding, "name": out.name,
                "components": "".join("xyzw"[c] for c in out.components),
                "executor": _data_url(pic["executor"]),
                "implementation": _data_url(pic["implementation"]),
                "heat": _data_url(pic["heat"]), "counts": pic["counts"],
                "range": "" if (lo, hi) == (0.0, 1.0) else f"[{lo:.4g}, {hi:.4g}]"})
    else:
        for out in ev.outputs:
            png, counts = images.lane_plot(out, drawn, ev.differences, unexplained)
            shown = counts["lanes"][:12]
            section["plots"].append({
                "binding": out.binding, "name": out.name,
                "components": "".join("xyzw"[c] for c in out.components),
                "plot": _data_url(png), "counts": counts, "first_lanes": shown,
                "more_lanes": len(counts["lanes"]) - len(shown)})
        if not ev.outputs:
            section["no_pictures"] = "no output of the translation was compared"
    rep.evidence = None                 # the arrays are drawn: let them go
    return section


def _why_no_pictures(rep) -> str:
    if rep.status == "error":
        return "the program does not parse: nothing ran"
    if rep.status in ("unsupported", "skipped"):
        return f"nothing was compared ({rep.status})"
    if rep.backend == "native":
        return "the native backend keeps no per-lane outputs for pictures"
    if rep.reason.startswith("implementation error"):
        return "the implementation failed to run the translation"
    return "no outputs were kept for pictures"


def render(sections: list[dict], *, version: str, backend: str, implementation: str,
           seed: int, lanes) -> str:
    """The page for ``sections`` (:func:`program_section`, in the order verified)."""
    from .. import pages
    counts = {s: sum(1 for x in sections if x["status"] == s) for s in STATUSES}
    choices = [("all", len(sections))] + [(s, counts[s]) for s in STATUSES if counts[s]]
    return pages.render("verify.html.j2", sections=sections, version=version, backend=backend,
                        implementation=implementation, seed=seed,
                        lanes=lanes if lanes is not None else "default", counts=counts,
                        statuses=[s for s in STATUSES if counts[s]], choices=choices)
