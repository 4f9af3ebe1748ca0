"""The HTML reports (issue 21 "reports people look at"), without a browser: what the pages
hold, that they escape what they show and are the same bytes for the same input, and the
pictures of ``xlate verify --report`` pixel by pixel.  tests/test_reports_browser.py looks at
both pages in Chromium."""
from __future__ import annotations

import base64
import io
import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from report_cases import BATCH_COUNTS, ROOT, run_batch_report, run_verify_report

from xlate.cli import main


def _data(html: str) -> list:
    start = html.index('<script type="application/json" id="xlate-data">') + 48
    return json.loads(html[start:html.index("</script>", start)])


def _png(url: str):
    from PIL import Image
    assert url.startswith("data:image/png;base64,")
    img = Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1])))
    assert img.format == "PNG"
    return np.asarray(img.convert("RGB"))


# ---- batch ---------------------------------------------------------------------------------------

def test_batch_page_paths_summary_and_escaping(tmp_path):
    page = tmp_path / "report.html"
    assert run_batch_report(tmp_path, page) == 1
    html = page.read_text()
    # paths relative to the batch root, though the batch was given an absolute one; only the
    # GLSL (the output files byte for byte, whose header names the source as given) has more
    data = _data(html)
    page_text = html.replace(html[html.index('<script type="application/json"'):
                                  html.index("</script>") + 9], "")
    assert str(tmp_path) not in page_text
    assert str(tmp_path) not in json.dumps([dict(f, glsl="") for f in data])
    assert '<td class="path" title="arb/broken.fp">arb/broken.fp</td>' in html
    assert "output folder <code>out</code>" in html
    broken = data[0]
    assert broken["diag"][0].startswith("arb/broken.fp:3:19: error[E2003]: undeclared name 'b'")
    assert broken["diags"][0] == {"line": 3, "col": 19, "length": 1, "severity": "error",
                                  "code": "E2003", "message": "undeclared name 'b'"}
    # the summary by dialect and status
    grid = re.search(r'<table class="summary" id="summary">.*?</table>', html, re.S).group(0)
    cells = re.findall(r'<tr><th class="rowhead mono">([^<]+)</th>(.*?)</tr>', grid, re.S)
    got = {d: [re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>",
                                                                      row, re.S)]
           for d, row in cells}
    assert got == {"ARBfp1.0": ["1", "0", "1", "2"], "ARBvp1.0": ["0", "1", "0", "1"],
                   "NVfp4.0": ["2", "0", "0", "2"], "NVvp4.0": ["1", "0", "0", "1"]}
    assert (f'{BATCH_COUNTS["programs"]} programs: <b>{BATCH_COUNTS["ok"]} ok</b>, '
            f'{BATCH_COUNTS["warning"]} with warnings') in html
    for value, n in (("all", 6), ("error", 1), ("warning", 1), ("ok", 4)):
        assert f'value="{value}"' in html and f"{value} ({n})</label>" in html
    # the program text that tries to end the script is data, escaped, not markup
    assert html.count("</script>") == 2
    assert "<b>not bold</b>" not in html
    assert any("</script><script>document.title" in f["src"] for f in data)
    assert '<details id="skipped">' in html and "<code>README.txt</code>" in html


def test_batch_page_same_bytes_for_the_same_input(tmp_path):
    """Fresh, from the cache, and with two workers: the same page."""
    pages = [tmp_path / f"r{i}.html" for i in range(3)]
    assert run_batch_report(tmp_path, pages[0]) == 1
    assert run_batch_report(tmp_path, pages[1]) == 1          # every record cached now
    assert run_batch_report(tmp_path, pages[2], "-j", "2", "--no-cache") == 1
    first = pages[0].read_bytes()
    assert pages[1].read_bytes() == first and pages[2].read_bytes() == first


# ---- verify: the pictures ------------------------------------------------------------------------

def _fragment_output(lanes=8):
    from xlate.verify.evidence import OutputWords
    red = np.array([1.0, 0.0, 0.0, 1.0], np.float32).view(np.uint32)
    exe = np.tile(red, (lanes, 1))
    imp = exe.copy()
    imp[5] = np.array([0.0, 1.0, 0.0, 1.0], np.float32).view(np.uint32)      # x and y differ
    imp[6, 3] = np.float32(0.5).view(np.uint32)                               # only w differs
    return OutputWords("result.color", "result_color0", (0, 1, 2, 3), (False,) * 4, exe, imp)


def _decode(png: bytes):
    from PIL import Image
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


def test_fragment_images_pixel_by_pixel():
    from xlate.verify import images
    out = _fragment_output()
    killed = (np.array([0, 0, 1, 0, 0, 0, 0, 0], bool), np.array([0, 0, 1, 1, 0, 0, 0, 0], bool))
    unexplained = {("result.color", 5, 0)}          # lane 5's x; its y and lane 6's w: permitted
    pic = images.fragment_images(out, killed, 8, unexplained)
    assert pic["range"] == (0.0, 1.0)
    assert pic["counts"] == {"differ": 2, "unexplained": 1, "explained": 1, "kill": 1}
    exe, imp, heat = (_decode(pic[k]) for k in ("executor", "implementation", "heat"))
    assert exe.shape == imp.shape == heat.shape == (8, 256, 3)     # 64x2 pixels, scaled x4

    def at(img, lane):                # lanes 4k..4k+3: quad k, x0y0 x1y0 x0y1 x1y1
        k, j = divmod(lane, 4)
        return tuple(int(v) for v in img[4 * (j >> 1), 4 * (2 * k + (j & 1))])

    assert at(exe, 0) == at(imp, 0) == (255, 0, 0)
    assert at(imp, 5) == (0, 255, 0)
    # killed: a checker of two greys by pixel parity (lane 2 is x0y1, lane 3 x1y1)
    assert at(exe, 2) == images.KILLED[1] and at(exe, 3) == (255, 0, 0)
    assert at(imp, 3) == images.KILLED[0]
    assert at(heat, 0) == (37, 37, 37)              # equal: the executor's grey (85), dimmed
    assert at(heat, 3) == images.KILL_DIFFERS
    assert at(heat, 2) == images.KILLED[1]          # killed on both sides: not compared
    big = images.distance(out.executor[5, 0], out.implementation[5, 0], False)
    assert at(heat, 5) == tuple(images.heat(np.array([big]), np.array([False]))[0])
    small = images.distance(out.executor[6, 3], out.implementation[6, 3], False)
    assert at(heat, 6) == tuple(images.heat(np.array([small]), np.array([True]))[0])
    assert at(heat, 5)[2] == 0 and at(heat, 6)[2] > 170     # red-yellow vs blue-cyan


def test_display_range_stretches_values_outside_0_1():
    from xlate.verify import images
    out = _fragment_output(lanes=200)
    vals = np.linspace(-10.0, 10.0, 200, dtype=np.float32)
    out.executor[:, 0] = vals.view(np.uint32)
    out.implementation = out.executor.copy()
    lo, hi = images.display_range(out, np.ones(200, bool))     # x: vals; y, z: 0 (both sides)
    assert lo == pytest.approx(np.percentile(np.r_[vals, vals, np.zeros(800)], 1.0))
    assert hi == pytest.approx(np.percentile(np.r_[vals, vals, np.zeros(800)], 99.0))
    nan = _fragment_output()
    nan.executor[1, 1] = 0x7FC00000
    pic = images.fragment_images(nan, (np.zeros(8, bool),) * 2, 8, set())
    assert tuple(_decode(pic["executor"])[0, 4]) == images.NAN


def test_distance_and_heat_ends():
    from xlate.verify import images
    one = np.float32(1.0).view(np.uint32)
    assert images.distance(np.uint32(0x7FC00000), np.uint32(0x7FC00001), False) == 0
    assert images.distance(one, one + np.uint32(1), False) == 1
    assert images.distance(np.uint32(0x80000000), np.uint32(0), False) == 1     # -0 vs +0
    assert images.distance(np.uint32(5), np.uint32(0xFFFFFFFF), True) == 6     # 5 vs -1
    ends = images.heat(np.array([2 ** 32 - 1, 2 ** 32 - 1]), np.array([False, True]))
    assert ends.tolist() == [[255, 235, 0], [80, 220, 255]]


def test_lane_plot_cells():
    from xlate.verify import images
    from xlate.verify.compare import Difference
    from xlate.verify.evidence import OutputWords
    size = OutputWords("result.pointsize", "gl_PointSize", (0,), (False,) * 4)
    pos = OutputWords("result.position", "gl_Position", (0, 1, 2, 3), (False,) * 4)
    one = int(np.float32(1.0).view(np.uint32))
    diffs = [Difference("result.position", 65, 1, one, one + 4),
             Difference("result.position", 0, 3, one, one + 1),
             Difference("primitives", 129, None, None, None, kind="primitives")]
    unexplained = {("result.position", 65, 1)}
    png, counts = images.lane_plot(pos, 130, diffs, unexplained)
    img = _decode(png)
    assert img.shape == (12, 256, 3)                # 3 rows of 64 lanes, 2x2 cells, scaled x2

    def cell(lane, c):
        y, x = 2 * (lane // 64) + (c >> 1), 2 * (lane % 64) + (c & 1)
        return tuple(int(v) for v in img[2 * y, 2 * x])

    assert cell(1, 0) == images.AGREE_PLOT
    assert cell(65, 1) == tuple(images.heat(np.array([4]), np.array([False]))[0])
    assert cell(0, 3) == tuple(images.heat(np.array([1]), np.array([True]))[0])
    assert cell(129, 0) == cell(129, 3) == images.STRUCTURE
    assert cell(130, 0) == images.ABSENT_PLOT       # past the last lane
    assert counts == {"lanes": [0, 65, 129], "components": "yw", "unexplained": 1,
                      "explained": 1, "structural": [129]}
    png, counts = images.lane_plot(size, 130, diffs, unexplained)
    img = _decode(png)
    assert cell(3, 0) == images.AGREE_PLOT and cell(3, 1) == images.ABSENT_PLOT
    assert counts["lanes"] == [129] and counts["components"] == ""


# ---- xlate verify --report -----------------------------------------------------------------------

def test_verify_report_of_wrong_translations(tmp_path, monkeypatch):
    assert run_verify_report(tmp_path, "v.html", monkeypatch) == 1
    html = (tmp_path / "v.html").read_text()
    sections = re.split(r'<section class="program" ', html)[1:]
    assert [re.search(r'data-file="([^"]+)"', s).group(1) for s in sections] == \
        ["kinds.fp", "kinds.vp", "bright_pass.fp"]
    fp, vp, ok = sections
    assert 'data-status="mismatch"' in fp and 'data-status="mismatch"' in vp
    assert 'data-status="pass"' in ok
    # the verdict, and the localized instruction highlighted in the source: the mutated MUL
    # (its statement is spelled differently in the probe shaders that probe the ADD it
    # inlines, so only some probe batches carry the mutation; the replay takes each value
    # from a compilation whose outputs are the main one's -- replay.consistent_values -- and
    # the MUL's own probe, compiled alone, carries it.  Before, the last ADD was named)
    assert "localized: divergence at &#39;MUL.F r, r, fragment.texcoord[1].yxzw&#39; (line 6)" \
        in fp
    assert re.search(r'<div class="line localized" data-n="6"><span class="ln">6</span>'
                     r'MUL r, r, fragment.texcoord\[1\].yxzw;<span class="tag">&larr; '
                     r'divergence lane \d+ \.\w+</span>', fp)
    assert fp.count('class="line localized"') == 1
    assert re.search(r'<div class="line localized" data-n="5"><span class="ln">5</span>'
                     r'MOV.F R0 \(GT.x\), vertex.attrib\[2\];', vp)
    assert "<h3>Departures found by the replay</h3>" in fp and "<td>divergence</td>" in fp
    # fragment: executor, implementation and heat map per output; a wrong pixel is unexplained
    urls = re.findall(r'<img src="(data:image/png;base64,[^"]+)" alt="(\w+): ([^"]+)"', fp)
    assert [(kind, binding) for _, kind, binding in urls] == \
        [("executor", "result.color[0]"), ("implementation", "result.color[0]"),
         ("differences", "result.color[0]")]
    exe, imp, heat = (_png(u) for u, _, _ in urls)
    assert exe.shape == imp.shape == heat.shape == (16, 256, 3)     # 256 lanes: 64x4, x4
    assert (exe != imp).any()
    red_yellow = (heat[..., 0] >= 150) & (heat[..., 2] == 0)
    assert red_yellow.any()
    # vertex: one lane plot per output; the wrong condition moves the position, not the colour
    plots = re.findall(r'<img src="(data:image/png;base64,[^"]+)" alt="lanes: ([^"]+)"', vp)
    assert [b for _, b in plots] == ["result.position", "result.color"]
    position, colour = (_png(u) for u, _ in plots)
    assert ((position[..., 0] >= 150) & (position[..., 2] == 0)).any()
    assert (colour == np.array([215, 215, 215])).all()
    # a program that passes gets its pictures too
    assert "No differences: every compared component is bit for bit equal." in ok
    ok_urls = re.findall(r'<img src="(data:image/png;base64,[^"]+)"', ok)
    assert len(ok_urls) == 3
    heat = _png(ok_urls[2])
    assert (heat[..., 0] == heat[..., 1]).all() and (heat[..., 1] == heat[..., 2]).all()
    assert re.search(r"differences:\s+no differences", ok)
    # no timings: the same run gives the same bytes
    first = (tmp_path / "v.html").read_bytes()
    assert run_verify_report(tmp_path, "v.html", monkeypatch) == 1
    assert (tmp_path / "v.html").read_bytes() == first


@pytest.mark.parametrize("name, message", [
    ("out.json", "--report out.json: the name must end in .html (--json writes a JSON report)"),
    ("nodir/out.html", "--report nodir/out.html: no folder nodir"),
])
def test_verify_report_name_checked_before_any_work(tmp_path, monkeypatch, capsys, name, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.fp").write_text("!!ARBfp1.0\nMOV result.color, fragment.color;\nEND\n")
    assert main(["verify", "a.fp", "--report", name]) == 2
    assert capsys.readouterr().err == f"xlate verify: error: {message}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.fp"]


def test_verify_report_without_pillow_is_a_one_line_hint(tmp_path):
    """Pillow blocked in a child: exit 3 and what to install, no traceback, nothing run."""
    (tmp_path / "a.fp").write_text("!!ARBfp1.0\nMOV result.color, fragment.color;\nEND\n")
    code = ("import sys; sys.modules['PIL'] = None\n"
            "from xlate.cli import main\n"
            "sys.exit(main(['verify', 'a.fp', '--report', 'r.html']))\n")
    r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                       text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert r.returncode == 3, r.stderr
    assert r.stderr == ("xlate verify: error: --report needs the Python package 'pillow' "
                        "(python3 -m pip install 'xlate[verify]')\n")
    assert not (tmp_path / "r.html").exists()


def test_verify_report_of_a_geometry_program():
    """Geometry lanes are input primitives: one lane plot per captured output."""
    from conftest import gl_runner
    from xlate.verify import report
    from xlate.verify.core import verify_source
    from xlate.verify.generate import generate
    runner = gl_runner("gl")
    text = generate("tgsi", 4, stage="geometry")
    rep = verify_source(text, "geom.tgsi", lanes=64, runner=runner, keep_evidence=True)
    assert rep.stage == "geometry" and rep.status == "pass", rep.reason
    outputs = [o.binding for o in rep.evidence.outputs]
    assert "result.position" in outputs
    section = report.program_section(rep, text)
    assert rep.evidence is None                     # drawn: the arrays are let go
    assert [p["binding"] for p in section["plots"]] == outputs and section["images"] == []
    for plot in section["plots"]:
        assert _png(plot["plot"]).shape == (4, 256, 3)     # one row of 64 lanes, 2x2, x2
    page = report.render([section], version="v", backend="gl", implementation="i", seed=1,
                         lanes=64)
    assert page.count('alt="lanes: ') == len(outputs)


def test_pictures_of_many_lanes_show_the_first_ones():
    """2^20 lanes would be a picture 16384 rows high: the first MAX_PICTURE_LANES are drawn,
    and the page says so."""
    from xlate.verify import images, report
    from xlate.verify.core import ProgramReport
    from xlate.verify.evidence import Evidence
    lanes = 4 * images.MAX_PICTURE_LANES
    out = _fragment_output(lanes)
    ev = Evidence("fragment", lanes, "void main() {}", [out],
                  (np.zeros(lanes, bool), np.zeros(lanes, bool)))
    rep = ProgramReport("a.fp", stage="fragment", dialect="ARBfp1.0", status="pass",
                        lanes=lanes, compared=4 * lanes, evidence=ev)
    section = report.program_section(rep, "!!ARBfp1.0\nEND\n")
    assert section["partial"] == f"the pictures show the first 16384 of {lanes} lanes"
    assert _png(section["images"][0]["executor"]).shape == (1024, 256, 3)   # 64 x 256, x4
    page = report.render([section], version="v", backend="gl", implementation="i", seed=1,
                         lanes=lanes)
    assert f"Note: the pictures show the first 16384 of {lanes} lanes." in page
