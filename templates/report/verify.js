/* xlate verify report: the status and file filters hide programs in the index and their
   sections.  Inlined by verify.html.j2 (a Jinja include: no double braces in this file). */
(function () {
  "use strict";
  var rows = Array.prototype.slice.call(document.querySelectorAll("#index tr.file"));
  var sections = Array.prototype.slice.call(document.querySelectorAll("section.program"));
  var q = document.getElementById("q"), shown = document.getElementById("shown");

  function filter() {
    var status = document.querySelector("input[name=status]:checked").value;
    document.querySelectorAll("input[name=status]").forEach(function (r) {
      r.parentNode.classList.toggle("on", r.checked);     // the chosen button, drawn pressed
    });
    var text = q.value.toLowerCase(), visible = 0;
    rows.forEach(function (tr, i) {
      var ok = (status === "all" || tr.dataset.status === status) &&
               (!text || tr.dataset.file.toLowerCase().indexOf(text) >= 0);
      tr.hidden = !ok;
      sections[i].hidden = !ok;
      if (ok) visible++;
    });
    shown.textContent = visible + " of " + rows.length + " shown";
  }

  document.querySelectorAll("input[name=status]").forEach(function (r) {
    r.addEventListener("change", filter);
  });
  q.addEventListener("input", filter);
  filter();
})();
