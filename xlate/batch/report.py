"""Reports of ``xlate batch --report FILE.json|FILE.html``.

JSON (schema ``xlate-batch-report/1``, documented in docs/batch.md): options, summary counts and
one entry per input file in sorted order.  Everything except ``summary.seconds``,
``options.jobs`` and the per-file ``cached`` flags is the same for the same inputs and options,
whatever ``-j``.

HTML: one self-contained file (inline CSS and script, no external resources).  A table of
every program with its status and diagnostics; a row opens the source beside the generated
GLSL, where clicking a source line highlights the GLSL lines its instruction became and
clicking a GLSL line highlights its source line (the map is the backend's own,
``GlslOutput.line_map``, made while the GLSL is emitted).
"""
from __future__ import annotations

import html
import json

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
        data = html_report(summary)
    atomic_write(path, data.encode("utf-8"))


# ---- HTML ------------------------------------------------------------------------------------------
def html_report(summary) -> str:
    from ..diagnostics import INTERNAL_CODES
    from .outputs import diagnostic_from_json
    doc = report_document(summary)
    data = []
    for e, f in zip(summary.entries, doc["files"]):
        if e.skipped:
            continue
        text = e.data.decode("utf-8", "replace") if e.data is not None else ""
        if len(text) > MAX_EMBEDDED_SOURCE:
            text = text[:MAX_EMBEDDED_SOURCE] + "\n... (truncated)\n"
        rendered = []
        for d in f["diagnostics"]:
            internal = d["code"] in INTERNAL_CODES
            rendered.append(diagnostic_from_json(d).render(None if internal else text))
        data.append({"src": text, "glsl": e.record.get("glsl", ""),
                     "profile": e.record.get("glsl_profile", ""),
                     "map": e.record.get("linemap"), "diag": rendered})
    rows = []
    index = 0
    for f in doc["files"]:
        if f["status"] == "skipped":
            continue
        n_err = sum(1 for d in f["diagnostics"] if d["severity"] == "error")
        n_warn = len(f["diagnostics"]) - n_err
        first = f["diagnostics"][0] if f["diagnostics"] else None
        first_text = f"{first['code']}: {first['message']}" if first else ""
        rows.append(
            f'<tr class="file {f["status"]}" data-i="{index}" tabindex="0">'
            f'<td><span class="badge {f["status"]}">{f["status"]}</span></td>'
            f'<td class="path">{html.escape(f["source"])}</td>'
            f'<td>{html.escape(f["dialect"] or "")}</td><td>{html.escape(f["stage"] or "")}</td>'
            f'<td class="num">{n_err or ""}</td><td class="num">{n_warn or ""}</td>'
            f'<td class="msg">{html.escape(first_text)}</td>'
            f'<td class="outs">{html.escape(" ".join(f["outputs"]))}</td></tr>')
        index += 1
    skipped = [f["source"] for f in doc["files"] if f["status"] == "skipped"]
    c = doc["summary"]
    opts = doc["options"]
    payload = json.dumps(data, separators=(",", ":")).replace("<", "\\u003c")
    counts = (f'{c["programs"]} programs: <b class="ok">{c["ok"]} ok</b> '
              f'({c["warnings"]} with warnings), <b class="error">{c["errors"]} with errors</b>; '
              f'{c["skipped"]} other files skipped; {c["translated"]} translated, '
              f'{c["cached"]} unchanged; {c["seconds"]} s')
    skipped_html = ""
    if skipped:
        skipped_html = ("<details><summary>Files that are not shader programs "
                        f"({len(skipped)})</summary><ul>"
                        + "".join(f"<li>{html.escape(s)}</li>" for s in skipped) + "</ul></details>")
    return _PAGE.format(
        version=html.escape(doc["xlate"]), counts=counts,
        options=html.escape(f'targets {",".join(opts["targets"])}, profile '
                            f'{opts["profile"] or "default"}, output {opts["outdir"]}'),
        rows="\n".join(rows), skipped=skipped_html, data=payload)


_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>xlate batch report</title>
<style>
body {{ font: 14px system-ui, sans-serif; margin: 1em 2em; color: #222; }}
h1 {{ font-size: 1.3em; }}
table.files {{ border-collapse: collapse; width: 100%; }}
table.files td, table.files th {{ padding: 2px 6px; border-bottom: 1px solid #eee; text-align: left;
  vertical-align: top; }}
tr.file {{ cursor: pointer; }} tr.file:hover {{ background: #f4f7ff; }}
td.path {{ font-family: monospace; }} td.num {{ text-align: right; }}
td.msg {{ color: #555; max-width: 40em; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }}
td.outs {{ font-family: monospace; font-size: 12px; color: #555; }}
.badge {{ border-radius: 3px; padding: 0 5px; font-size: 12px; color: #fff; }}
.badge.ok {{ background: #2a7d2a; }} .badge.warning {{ background: #b07800; }} .badge.error {{ background: #b22; }}
b.ok {{ color: #2a7d2a; }} b.error {{ color: #b22; }}
.filters {{ margin: .5em 0; }} .filters input {{ width: 20em; }}
tr.details > td {{ background: #fafafa; padding: 8px; }}
pre.diag {{ background: #fff3f3; padding: 6px; white-space: pre-wrap; margin: 0 0 8px 0; }}
.panes {{ display: flex; gap: 10px; }}
.pane {{ flex: 1; min-width: 0; }} .pane h3 {{ font-size: 13px; margin: 2px 0; }}
.code {{ font: 12px/1.35 monospace; border: 1px solid #ddd; background: #fff; max-height: 36em;
  overflow: auto; white-space: pre; }}
.code div {{ padding-right: 6px; }}
.code .ln {{ display: inline-block; width: 3.5em; color: #999; text-align: right; margin-right: 8px;
  user-select: none; }}
.code .mapped {{ cursor: pointer; }} .code .mapped .ln {{ color: #36c; }}
.code .hl {{ background: #fff2a8; }}
.note {{ color: #777; font-size: 12px; }}
</style></head><body>
<h1>xlate batch report</h1>
<p>xlate {version}: {counts}<br><span class="note">{options}</span></p>
<div class="filters">Show: <label><input type="radio" name="show" value="all" checked> all</label>
<label><input type="radio" name="show" value="error"> errors</label>
<label><input type="radio" name="show" value="warning"> warnings</label>
<label><input type="radio" name="show" value="ok"> ok</label>
&nbsp; <input type="search" id="q" placeholder="filter by path or message"></div>
<table class="files"><thead><tr><th>status</th><th>source</th><th>dialect</th><th>stage</th>
<th>errors</th><th>warnings</th><th>first diagnostic</th><th>outputs</th></tr></thead>
<tbody>
{rows}
</tbody></table>
{skipped}
<p class="note">Click a file to see its diagnostics and its source beside the GLSL. Click a source
line to highlight the GLSL its instruction became; click a GLSL line to find its source line.</p>
<script type="application/json" id="xlate-data">{data}</script>
<script>
(function () {{
  var DATA = JSON.parse(document.getElementById("xlate-data").textContent);
  function el(tag, cls, text) {{
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }}
  function codePane(title, text, mapped) {{
    var pane = el("div", "pane"), box = el("div", "code");
    pane.appendChild(el("h3", null, title));
    var lines = text.split("\\n");
    if (lines.length && lines[lines.length - 1] === "") lines.pop();
    lines.forEach(function (line, i) {{
      var row = el("div");
      row.appendChild(el("span", "ln", String(i + 1)));
      row.appendChild(document.createTextNode(line));
      if (mapped(i + 1)) row.classList.add("mapped");
      box.appendChild(row);
    }});
    pane.appendChild(box);
    return [pane, box];
  }}
  function highlight(box, numbers) {{
    var rows = box.children, first = null;
    for (var i = 0; i < rows.length; i++) {{
      var on = numbers.indexOf(i + 1) >= 0;
      rows[i].classList.toggle("hl", on);
      if (on && first === null) first = rows[i];
    }}
    if (first) box.scrollTop = first.offsetTop - box.offsetTop - 40;
  }}
  function details(f) {{
    var td = el("td");
    td.colSpan = 8;
    f.diag.forEach(function (d) {{ td.appendChild(el("pre", "diag", d)); }});
    if (!f.glsl) {{
      td.appendChild(el("p", "note", "No GLSL (the program has errors)."));
      td.appendChild(codePane("source", f.src, function () {{ return false; }})[0]);
      return td;
    }}
    var map = f.map || [], bySrc = {{}};
    map.forEach(function (s, i) {{ if (s) (bySrc[s] = bySrc[s] || []).push(i + 1); }});
    var panes = el("div", "panes");
    var src = codePane("source", f.src, function (n) {{ return !!bySrc[n]; }});
    var gl = codePane("GLSL (" + f.profile + ")", f.glsl, function (n) {{ return !!map[n - 1]; }});
    panes.appendChild(src[0]);
    panes.appendChild(gl[0]);
    src[1].addEventListener("click", function (ev) {{
      var row = ev.target.closest("div"), n = Array.prototype.indexOf.call(src[1].children, row) + 1;
      if (n < 1) return;
      highlight(src[1], [n]);
      highlight(gl[1], bySrc[n] || []);
    }});
    gl[1].addEventListener("click", function (ev) {{
      var row = ev.target.closest("div"), n = Array.prototype.indexOf.call(gl[1].children, row) + 1;
      if (n < 1 || !map[n - 1]) return;
      highlight(gl[1], bySrc[map[n - 1]]);
      highlight(src[1], [map[n - 1]]);
    }});
    if (!f.map) td.appendChild(el("p", "note", "No line map for this file: source and GLSL are shown side by side."));
    td.appendChild(panes);
    return td;
  }}
  function toggle(tr) {{
    var next = tr.nextElementSibling;
    if (next && next.classList.contains("details")) {{ next.remove(); return; }}
    var row = el("tr", "details");
    row.appendChild(details(DATA[+tr.dataset.i]));
    tr.parentNode.insertBefore(row, tr.nextSibling);
  }}
  document.querySelectorAll("tr.file").forEach(function (tr) {{
    tr.addEventListener("click", function () {{ toggle(tr); }});
    tr.addEventListener("keydown", function (ev) {{ if (ev.key === "Enter") toggle(tr); }});
  }});
  function filter() {{
    var show = document.querySelector("input[name=show]:checked").value;
    var q = document.getElementById("q").value.toLowerCase();
    document.querySelectorAll("tr.file").forEach(function (tr) {{
      var ok = (show === "all" || tr.classList.contains(show)) &&
               (!q || tr.textContent.toLowerCase().indexOf(q) >= 0);
      tr.style.display = ok ? "" : "none";
      var next = tr.nextElementSibling;
      if (!ok && next && next.classList.contains("details")) next.remove();
    }});
  }}
  document.querySelectorAll("input[name=show]").forEach(function (r) {{ r.addEventListener("change", filter); }});
  document.getElementById("q").addEventListener("input", filter);
}})();
</script>
</body></html>
"""
