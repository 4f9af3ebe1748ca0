"""A real browser for the report tests: headless Chromium (Debian's ``chromium`` package) driven
by Playwright.

Why Playwright rather than the DevTools protocol by hand: its pip wheel carries its own driver,
so nothing is downloaded at run time (``playwright install`` is never run: the browser is the
system's, ``executable_path``), and it gives console messages, page errors, requests, element
queries and screenshots through a kept API; speaking CDP directly would mean writing and
keeping a websocket client and the protocol plumbing ourselves.

Where no browser exists the tests skip with the reason -- or fail when ``XLATE_REQUIRE_BROWSER``
is set (``.ci/run`` sets it, after installing ``chromium`` as root), like the GL switches of
``conftest.py``.  ``XLATE_CHROMIUM`` names another Chromium binary.
"""
from __future__ import annotations

import os
import shutil
from contextlib import contextmanager
from pathlib import Path

from conftest import missing

REQUIRE_BROWSER = "XLATE_REQUIRE_BROWSER"
# what the brief asks of a test browser: no GPU, no network of its own, nothing in the background
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--hide-scrollbars", "--font-render-hinting=none", "--force-color-profile=srgb"]
VIEWPORT = {"width": 1280, "height": 900}


def chromium_path() -> str:
    """The Chromium binary, or a skip (a failure under XLATE_REQUIRE_BROWSER) with the reason."""
    named = os.environ.get("XLATE_CHROMIUM")
    if named:
        if not (os.path.isfile(named) and os.access(named, os.X_OK)):
            missing(REQUIRE_BROWSER, f"no browser: XLATE_CHROMIUM={named} is not an executable")
        path = named
    else:
        path = shutil.which("chromium") or shutil.which("chromium-browser")
    if not path:
        missing(REQUIRE_BROWSER, "no browser: the 'chromium' package is not installed "
                                 "(apt-get install chromium)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        missing(REQUIRE_BROWSER, "no browser driver: the Python package 'playwright' is not "
                                 "installed (it is in the [test] extra)")
    return path


class Page:
    """A loaded page and what happened while it loaded and ran: ``errors`` (console errors and
    uncaught exceptions) and ``requests`` (every URL it asked for beyond its own file)."""

    def __init__(self, page, url: str):
        self.page, self.url = page, url
        self.errors: list[str] = []
        self.requests: list[str] = []

    def visible_rows(self, selector: str) -> int:
        return self.page.eval_on_selector_all(
            selector, "rows => rows.filter(r => r.offsetParent !== null).length")

    def images(self, selector: str = "img") -> list[dict]:
        """Every image: its alt text and natural (decoded) size."""
        return self.page.eval_on_selector_all(
            selector, "imgs => imgs.map(i => ({alt: i.alt, complete: i.complete, "
                      "width: i.naturalWidth, height: i.naturalHeight}))")

    def screenshot(self, path: Path, full_page: bool = False) -> None:
        self.page.screenshot(path=str(path), full_page=full_page, animations="disabled",
                             caret="hide")


@contextmanager
def open_page(path: Path):
    """``path`` (an HTML file) in headless Chromium; yields a :class:`Page`."""
    from playwright.sync_api import sync_playwright
    exe = chromium_path()
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS, headless=True)
        try:
            context = browser.new_context(viewport=VIEWPORT, device_scale_factor=1,
                                          color_scheme="light", locale="en-US",
                                          timezone_id="UTC", reduced_motion="reduce")
            page = context.new_page()
            url = Path(path).resolve().as_uri()
            seen = Page(page, url)
            page.on("console", lambda m: seen.errors.append(f"console {m.type}: {m.text}")
                    if m.type in ("error", "warning") else None)
            page.on("pageerror", lambda e: seen.errors.append(f"uncaught: {e}"))
            page.on("request", lambda r: seen.requests.append(r.url)
                    if r.url != url and not r.url.startswith("data:") else None)
            page.goto(url, wait_until="load")
            yield seen
        finally:
            browser.close()
