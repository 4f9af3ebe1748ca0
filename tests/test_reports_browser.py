"""Both HTML reports in a real browser (headless Chromium through Playwright, tests/browser.py):
each page loads without console errors or requests, its filters change what is shown, its
images are decoded, and its screenshot is taken -- into tmp, or into docs/ (report-batch.png,
report-verify.png) when ``XLATE_REFRESH_DOCS=1`` asks to refresh the committed ones.  Skips with
the reason where no browser exists (fails under XLATE_REQUIRE_BROWSER, as .ci/run sets it)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys

from browser import chromium_path, open_page
from report_cases import BATCH_COUNTS, ROOT, run_batch_report, run_verify_report

DOCS = ROOT / "docs"


def _screenshot(page, tmp_path, name: str) -> None:
    shot = tmp_path / name
    page.page.evaluate("document.activeElement && document.activeElement.blur()")
    page.screenshot(shot)
    assert shot.stat().st_size > 10_000
    if os.environ.get("XLATE_REFRESH_DOCS", "").strip() not in ("", "0"):
        shutil.copy(shot, DOCS / name)


def _status(page, value: str) -> None:
    page.page.click(f"#filters label:has(input[value={value}])")


def test_batch_report_in_a_browser(tmp_path):
    chromium_path()
    page_file = tmp_path / "report.html"
    assert run_batch_report(tmp_path, page_file) == 1
    with open_page(page_file) as p:
        pg = p.page
        assert p.errors == [] and p.requests == []
        assert pg.title() == "xlate batch report"          # the program text ran no script
        rows = "tr.file"
        assert p.visible_rows(rows) == BATCH_COUNTS["programs"]
        # every row one line high, whatever its text (long messages and output lists are cut
        # with an ellipsis, the full text in the title); the status choice a compact row
        heights = "rs => rs.filter(r => r.offsetParent).map(r => r.cells[6].clientHeight)"
        assert set(pg.eval_on_selector_all(rows, heights)) == {24}
        assert pg.eval_on_selector("#filters fieldset", "f => f.getBoundingClientRect().width") < 400
        for status in ("error", "warning", "ok", "all"):
            _status(p, status)
            want = BATCH_COUNTS["programs"] if status == "all" else BATCH_COUNTS[status]
            assert p.visible_rows(rows) == want, status
            assert pg.inner_text("#shown") == f"{want} of {BATCH_COUNTS['programs']} shown"
            assert pg.inner_text("#filters label.on") == f"{status} ({want})"   # drawn pressed
        pg.select_option("#dialect", "NVfp4.0")
        assert p.visible_rows(rows) == 2
        pg.fill("#q", "gbuffer")
        assert p.visible_rows(rows) == 1
        pg.fill("#q", "")
        pg.select_option("#dialect", "")
        pg.hover("tr.file[data-status=warning]")
        assert set(pg.eval_on_selector_all(rows, heights)) == {24}
        # a count in the summary grid filters to its programs
        pg.click('#summary button[data-status=error][data-dialect="ARBfp1.0"]')
        assert p.visible_rows(rows) == 1
        assert pg.is_checked("input[name=status][value=error]")
        # the broken program: its diagnostics under the lines they are about
        pg.click("tr.file[data-status=error]")
        anns = pg.eval_on_selector_all("tr.details .ann", "as => as.map(a => a.textContent)")
        assert anns == [" " * 18 + "^ error[E2003]: undeclared name 'b'",
                        "^^^ error[E3003]: ADD takes a destination and 2 source operands; "
                        "found 2 operands"]
        assert pg.eval_on_selector_all("tr.details .line.has-diag", "ls => ls.map(l => +l.dataset.n)") \
            == [3, 4]
        _status(p, "all")                                   # the dialect choice stays
        assert p.visible_rows(rows) == 2
        pg.select_option("#dialect", "")
        assert p.visible_rows(rows) == BATCH_COUNTS["programs"]
        pg.click("tr.file[data-status=error]")                # closed again
        assert pg.locator("tr.details").count() == 0
        # source <-> GLSL through the line map
        pg.click('tr.file:has(td[title="bright_pass.fp"])')
        pg.click('tr.details .pane:first-child .line[data-n="12"]')
        assert pg.eval_on_selector_all("tr.details .pane:last-child .line.hl",
                                       "ls => ls.map(l => l.textContent.trim())") \
            == ["30    sum = vec4(0.0);"]
        pg.click('tr.details .pane:first-child .line[data-n="13"]')
        assert p.errors == []
        _screenshot(p, tmp_path, "report-batch.png")


def test_verify_report_in_a_browser(tmp_path, monkeypatch):
    chromium_path()
    assert run_verify_report(tmp_path, "v.html", monkeypatch, lanes=2048) == 1
    with open_page(tmp_path / "v.html") as p:
        pg = p.page
        assert p.errors == [] and p.requests == []
        imgs = p.images()
        # kinds.fp: executor, implementation, heat map; kinds.vp: two lane plots; bright_pass.fp: 3
        assert [i["alt"] for i in imgs] == [
            "executor: result.color[0]", "implementation: result.color[0]",
            "differences: result.color[0]", "lanes: result.position", "lanes: result.color",
            "executor: result.color[0]", "implementation: result.color[0]",
            "differences: result.color[0]"]
        assert all(i["complete"] and i["width"] == 256 and i["height"] > 0 for i in imgs), imgs
        sections = "section.program"
        assert p.visible_rows(sections) == 3
        _status(p, "mismatch")
        assert p.visible_rows(sections) == 2 and p.visible_rows("#index tr.file") == 2
        _status(p, "pass")
        assert p.visible_rows(sections) == 1
        assert pg.inner_text("section.program:not([hidden]) h2 .mono") == "bright_pass.fp"
        _status(p, "all")
        pg.fill("#q", "kinds")
        assert p.visible_rows(sections) == 2
        pg.fill("#q", "")
        assert p.visible_rows(sections) == 3
        # the localized line (test_reports.py: the mutated MUL, line 6)
        assert pg.eval_on_selector_all("#p0 .line.localized", "ls => ls.map(l => +l.dataset.n)") \
            == [6]
        assert p.errors == []
        _screenshot(p, tmp_path, "report-verify.png")


def test_no_browser_skips_with_the_reason_or_fails_when_required(tmp_path):
    """A child pytest run whose browser is missing: skipped with the reason, or -- under
    XLATE_REQUIRE_BROWSER=1 -- failed."""
    child = tmp_path / "test_child.py"
    child.write_text("from browser import chromium_path\n\n"
                     "def test_needs_a_browser():\n    chromium_path()\n")
    env = dict(os.environ, XLATE_CHROMIUM=str(tmp_path / "no-chromium"),
               PYTHONPATH=os.pathsep.join([str(ROOT / "tests"), str(ROOT)]))
    env.pop("XLATE_REQUIRE_BROWSER", None)
    args = [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", str(child)]
    r = subprocess.run(args, cwd=tmp_path, env=env, capture_output=True, text=True)
    assert r.returncode == 0 and "1 skipped" in r.stdout, r.stdout
    assert f"no browser: XLATE_CHROMIUM={tmp_path / 'no-chromium'} is not an executable" in r.stdout
    r = subprocess.run(args, cwd=tmp_path, env=dict(env, XLATE_REQUIRE_BROWSER="1"),
                       capture_output=True, text=True)
    assert r.returncode == 1 and "1 failed" in r.stdout, r.stdout
    assert "[XLATE_REQUIRE_BROWSER is set: this environment must provide it]" in r.stdout
