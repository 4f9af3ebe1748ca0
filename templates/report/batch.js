/* xlate batch report: filters, and a program's diagnostics and source beside its GLSL.
   Inlined by batch.html.j2 (a Jinja include: no double braces in this file). */
(function () {
  "use strict";
  var DATA = JSON.parse(document.getElementById("xlate-data").textContent);
  var rows = Array.prototype.slice.call(document.querySelectorAll("tr.file"));

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  // One div per line (class "line", data-n its number); annotations (class "ann") under the
  // lines that diagnostics are about carry the caret and the message.
  function codePane(title, text, isMapped, diagsAt) {
    var pane = el("div", "pane"), box = el("div", "code");
    pane.appendChild(el("h3", null, title));
    var lines = text.split("\n");
    if (lines.length && lines[lines.length - 1] === "") lines.pop();
    lines.forEach(function (line, i) {
      var n = i + 1, row = el("div", "line");
      row.dataset.n = String(n);
      row.appendChild(el("span", "ln", String(n)));
      row.appendChild(document.createTextNode(line));
      if (isMapped(n)) row.classList.add("mapped");
      box.appendChild(row);
      (diagsAt[n] || []).forEach(function (d) {
        row.classList.add("has-diag");
        var ann = el("div", "ann " + d.severity);
        ann.appendChild(el("span", "ln", ""));
        var pad = new Array(Math.max(d.col, 1)).join(" ");
        ann.appendChild(document.createTextNode(pad + new Array(Math.max(d.length, 1) + 1).join("^") +
          " " + d.severity + "[" + d.code + "]: " + d.message));
        box.appendChild(ann);
      });
    });
    pane.appendChild(box);
    return [pane, box];
  }

  function highlight(box, numbers) {
    var first = null;
    box.querySelectorAll(".line").forEach(function (row) {
      var on = numbers.indexOf(+row.dataset.n) >= 0;
      row.classList.toggle("hl", on);
      if (on && first === null) first = row;
    });
    if (first) box.scrollTop = first.offsetTop - box.offsetTop - 40;
  }

  function lineOf(ev) {
    var row = ev.target.closest(".line");
    return row ? +row.dataset.n : 0;
  }

  function details(f) {
    var td = el("td");
    td.colSpan = 8;
    f.diag.forEach(function (d, i) {
      td.appendChild(el("pre", "diag " + f.diags[i].severity, d));
    });
    var diagsAt = {};
    f.diags.forEach(function (d) {
      if (d.line) (diagsAt[d.line] = diagsAt[d.line] || []).push(d);
    });
    if (!f.glsl) {
      td.appendChild(el("p", "note", "No GLSL (the program has errors)."));
      td.appendChild(codePane("source", f.src, function () { return false; }, diagsAt)[0]);
      return td;
    }
    var map = f.map || [], bySrc = {};
    map.forEach(function (s, i) { if (s) (bySrc[s] = bySrc[s] || []).push(i + 1); });
    var panes = el("div", "panes");
    var src = codePane("source", f.src, function (n) { return !!bySrc[n]; }, diagsAt);
    var gl = codePane("GLSL (" + f.profile + ")", f.glsl, function (n) { return !!map[n - 1]; }, {});
    panes.appendChild(src[0]);
    panes.appendChild(gl[0]);
    src[1].addEventListener("click", function (ev) {
      var n = lineOf(ev);
      if (!n) return;
      highlight(src[1], [n]);
      highlight(gl[1], bySrc[n] || []);
    });
    gl[1].addEventListener("click", function (ev) {
      var n = lineOf(ev);
      if (!n || !map[n - 1]) return;
      highlight(gl[1], bySrc[map[n - 1]]);
      highlight(src[1], [map[n - 1]]);
    });
    if (!f.map) td.appendChild(el("p", "note", "No line map for this file: source and GLSL are shown side by side."));
    td.appendChild(panes);
    return td;
  }

  function toggle(tr) {
    var next = tr.nextElementSibling;
    if (next && next.classList.contains("details")) {
      next.remove();
      tr.classList.remove("open");
      return;
    }
    var row = el("tr", "details");
    row.appendChild(details(DATA[+tr.dataset.i]));
    tr.parentNode.insertBefore(row, tr.nextSibling);
    tr.classList.add("open");
  }

  rows.forEach(function (tr) {
    tr.addEventListener("click", function () { toggle(tr); });
    tr.addEventListener("keydown", function (ev) { if (ev.key === "Enter") toggle(tr); });
  });

  var statusInputs = document.querySelectorAll("input[name=status]");
  var dialect = document.getElementById("dialect"), stage = document.getElementById("stage");
  var q = document.getElementById("q"), shown = document.getElementById("shown");

  function filter() {
    var status = document.querySelector("input[name=status]:checked").value;
    document.querySelectorAll("input[name=status]").forEach(function (r) {
      r.parentNode.classList.toggle("on", r.checked);     // the chosen button, drawn pressed
    });
    var text = q.value.toLowerCase(), visible = 0;
    rows.forEach(function (tr) {
      var ok = (status === "all" || tr.dataset.status === status) &&
               (!dialect.value || tr.dataset.dialect === dialect.value) &&
               (!stage.value || tr.dataset.stage === stage.value) &&
               (!text || tr.textContent.toLowerCase().indexOf(text) >= 0);
      tr.hidden = !ok;
      if (ok) visible++;
      var next = tr.nextElementSibling;
      if (next && next.classList.contains("details")) next.hidden = !ok;
    });
    shown.textContent = visible + " of " + rows.length + " shown";
  }

  statusInputs.forEach(function (r) { r.addEventListener("change", filter); });
  dialect.addEventListener("change", filter);
  stage.addEventListener("change", filter);
  q.addEventListener("input", filter);

  // a count in the summary grid shows those programs
  document.querySelectorAll("#summary button").forEach(function (b) {
    b.addEventListener("click", function () {
      statusInputs.forEach(function (r) { r.checked = r.value === b.dataset.status; });
      dialect.value = b.dataset.dialect;
      stage.value = "";
      q.value = "";
      filter();
      document.getElementById("files").scrollIntoView();
    });
  });
  filter();
})();
