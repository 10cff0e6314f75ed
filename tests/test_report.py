"""--html REPORT: one self-contained page per run or expression, checked as text and, where
Chromium is installed, in a real headless browser (a screenshot, pan and zoom)."""
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from _cli_helpers import SAMPLES, SEED, invoke, png_size, write
from gradviz.render import html

NOTEBOOK = str(SAMPLES / "autograd_basics.ipynb")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (.ci/run installs it)")
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def sections(page):
    return re.findall(r'<section class="gv-cell( failed)?" id="([^"]+)"><h2><a href="#[^"]+">([^<]+)</a>', page)


def assert_self_contained(page):
    assert page.startswith("<!DOCTYPE html>")
    assert not re.search(r'<(script|img|link|iframe)[^>]+(src|href)=', page)
    assert "http://" not in page.replace("http://www.w3.org/", "") and "https://" not in page
    assert "@import" not in page and "url(" not in page


# --------------------------------------------------------------------------- gradviz run --html


@pytest.fixture(scope="module")
def notebook_report(tmp_path_factory):
    out = tmp_path_factory.mktemp("report") / "report.html"
    r = invoke("run", NOTEBOOK, "--html", out)
    return r, out.read_text(encoding="utf-8")


def test_a_notebook_report_has_every_cell(notebook_report):
    r, page = notebook_report
    assert r.exit_code == 1  # as without --html: In [5] raises
    assert r.stdout.rstrip().endswith(f"Report written to {r.stdout.rsplit('Report written to ', 1)[1].strip()}")
    assert_self_contained(page)
    found = sections(page)
    assert [(bool(f), a, t) for f, a, t in found] == [
        (False, "cell-1", "In [1] (cell 1 of 6)"), (False, "cell-2", "In [2] (cell 2 of 6)"),
        (False, "cell-3", "In [3] (cell 3 of 6)"), (False, "cell-4", "In [4] (cell 4 of 6)"),
        (True, "cell-5", "In [5] (cell 5 of 6)"), (False, "cell-6", "In [6] (cell 6 of 6)"),
        (False, "end", "After the run")]


def test_each_cell_shows_its_code_output_error_tensors_and_graph(notebook_report):
    _, page = notebook_report
    cells = re.split(r'<section class="gv-cell', page)[1:]
    first, second, third, fourth, fifth, sixth, end = cells
    assert "!pip install torch" in first and "skipped `%matplotlib inline`" in first  # as written, with its notes
    assert "Tensors this cell made or changed: none" in first
    assert '<pre class="gv-stdout">(True, None)</pre>' in second
    assert second.count('<td class="name">') == 5 and "<svg" not in second  # no backward: no picture
    assert '<span class="k">import</span>' in first  # highlighted code
    assert "<svg" in fourth and "The graph of the backward call at In [4], line 1, as that call ended" in fourth
    assert 'class="marked"><i>2</i>L.backward()' in fifth  # the failing line
    assert "RuntimeError: Trying to backward through the graph a second time" in fifth
    assert '<div class="gv-explain"><h4>Second backward through a graph whose buffers were already freed' in fifth
    assert '<span class="gv-id">backward_twice</span>' in fifth
    assert "<span>before (an example, not your code)</span>" in fifth  # the catalog's code, not the user's
    assert "<svg" in sixth and "Every named tensor" in end
    assert page.count("<svg") == 3  # In [4], In [5], In [6]: the run's graph is In [6]'s, not drawn twice


def test_svg_ids_are_unique_across_pictures(notebook_report):
    _, page = notebook_report
    ids = re.findall(r'\bid="([^"]+)"', page)
    assert len(ids) == len(set(ids))


def test_script_report_with_backward_twice_and_json(tmp_path):
    out = tmp_path / "r.html"
    r = invoke("run", SEED, "--backward-twice", "--json", "--html", out)
    assert r.exit_code == 0
    doc = json.loads(r.stdout)
    assert doc["report"] == str(out)
    page = out.read_text()
    assert_self_contained(page)
    assert [t for _, _, t in sections(page)] == ["Cell 1 of 4 (line 1)", "Cell 2 of 4 (line 6)",
                                                 "Cell 3 of 4 (line 13)", "Cell 4 of 4 (line 20)", "After the run"]
    assert '<i>20</i>L.backward()' in page  # lines numbered as in the file
    end = page.split('id="end"', 1)[1]
    assert "Second backward on L (--backward-twice) raised, as PyTorch does:" in end
    assert "The first backward freed 8 saved tensors" in end
    assert "<svg" in end  # the graph after the second pass, drawn once more


@pytest.mark.parametrize("name, message", [
    ("r.txt", "a report is HTML; name it .html"),
    ("missing/r.html", "the folder '.*missing' does not exist"),
    ("adir.html", "it is a directory"),
    ("-", "--html needs a file name"),
])
def test_a_bad_report_path_is_refused_before_the_script_runs(tmp_path, name, message):
    (tmp_path / "adir.html").mkdir()
    script = write(tmp_path, "print('ran')\n")
    path = name if name == "-" else str(tmp_path / name)
    r = invoke("run", script, "--html", path)
    assert r.exit_code == 2
    assert re.search(f"^gradviz run: error: (cannot write '.*': )?{message}", r.stderr), r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "ran" not in r.stdout


# --------------------------------------------------------------------------- gradviz graph --html


def test_graph_report(tmp_path):
    out = tmp_path / "g.html"
    r = invoke("graph", "(x*y).sum()", "--backward-twice", "--html", out)
    assert r.exit_code == 0 and f"Report written to {out}" in r.stdout
    page = out.read_text()
    assert_self_contained(page)
    assert "<title>gradviz: (x*y).sum()</title>" in page
    assert "Second backward on (x*y).sum() (--backward-twice) raised" in page and page.count("<svg") == 1


def test_graph_report_of_an_error(tmp_path):
    out = tmp_path / "g.html"
    r = invoke("graph", "x @ y", "--var", "x=2x3", "--var", "y=2x3", "--html", out)
    assert r.exit_code == 1
    page = out.read_text()
    assert "the expression raised RuntimeError: mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)" in page
    assert '<span class="gv-id">mm_shape_mismatch</span>' in page and "Tensors computed before the error" in page
    r = invoke("graph", "x.sum()", "--html", tmp_path / "nope" / "g.html")
    assert r.exit_code == 2 and "does not exist" in r.stderr


# --------------------------------------------------------------------------- the HTML pieces


def test_text_is_escaped_everywhere():
    from gradviz.scripting import Stats, TensorInfo

    t = TensorInfo("<script>x</script>", (1,), "float32", False, True, False, None, [1.0],
                   Stats(1.0, 1.0, 1.0, 1.0), None, 1)
    table = html.tensor_table([t], "a <caption>")
    assert "<script>" not in table and "&lt;script&gt;x&lt;/script&gt;" in table and "a &lt;caption&gt;" in table
    code = html.code_block("if a < b and '<b>':\n    pass  # <i>")
    assert "<b>" not in code and "&lt;b&gt;" in code and '<span class="c"># &lt;i&gt;</span>' in code


def test_code_that_python_cannot_read_is_shown_plain():
    code = html.code_block("%time x = (1 +\ns = '''open")
    text = re.sub(r"<[^>]+>", "", code.replace("<i>", "[").replace("</i>", "]"))
    assert text == "[1]%time x = (1 +[2]s = &#x27;&#x27;&#x27;open"


def test_inline_svg_drops_the_prolog_and_prefixes_ids():
    svg = ('<?xml version="1.0"?>\n<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "x">\n<!-- Generated -->\n'
           '<svg viewBox="0 0 10 10"><g id="graph0"><a xlink:href="#node1"/></g></svg>')
    out = html.inline_svg(svg, "g3-")
    assert out.startswith("<svg") and 'id="g3-graph0"' in out and 'xlink:href="#g3-node1"' in out


# --------------------------------------------------------------------------- in a real browser


def _chromium(*args, timeout=90):
    profile = Path(os.environ.get("TMPDIR", "/tmp")) / f"gradviz-chromium-{os.getpid()}"
    try:
        return subprocess.run([CHROMIUM, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args],
                              capture_output=True, text=True, timeout=timeout)
    finally:
        shutil.rmtree(profile, ignore_errors=True)


@needs_chromium
@pytest.mark.slow
def test_the_report_renders_in_chromium(notebook_report, tmp_path):
    _, page = notebook_report
    report = tmp_path / "report.html"
    report.write_text(page)
    shot = tmp_path / "shot.png"
    p = _chromium("--window-size=1280,2400", f"--screenshot={shot}", report.as_uri())
    assert shot.exists(), p.stderr[-2000:]
    assert png_size(shot) == (1280, 2400)
    from PIL import Image

    image = Image.open(shot).convert("RGB")
    colours = image.getcolors(maxcolors=1 << 20)
    assert colours is not None and len(colours) > 200  # text, code colours, tables and pictures: not blank
    red = sum(n for n, (r, g, b) in colours if r > 180 and g < 80 and b < 80)
    assert red > 50  # the failing cell's red border and its error
    dom = _chromium("--dump-dom", "--virtual-time-budget=2000", report.as_uri()).stdout
    # the page's script ran: each picture's viewport has its height, the SVG fills it
    assert dom.count('class="gv-viewport" style="height:') == 3
    assert not re.search(r'<svg width="\d', dom)


@needs_chromium
@pytest.mark.slow
def test_pan_and_zoom_in_chromium(notebook_report, tmp_path):
    sync_api = pytest.importorskip("playwright.sync_api")
    _, page_text = notebook_report
    report = tmp_path / "report.html"
    report.write_text(page_text)
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS[1:])
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            errors = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(report.as_uri())
            fig = page.locator(".gv-figure").first
            svg = fig.locator("svg")
            full = svg.get_attribute("viewBox")
            fig.locator("button[data-zoom=in]").click()
            zoomed = [float(v) for v in svg.get_attribute("viewBox").split()]
            assert zoomed[2] < float(full.split()[2]) / 1.3  # 1.4 times closer
            box = fig.locator(".gv-viewport").bounding_box()
            page.mouse.move(box["x"] + 200, box["y"] + 100)
            page.mouse.down()
            page.mouse.move(box["x"] + 300, box["y"] + 150)
            page.mouse.up()
            panned = [float(v) for v in svg.get_attribute("viewBox").split()]
            assert panned[0] < zoomed[0] and panned[1] < zoomed[1] and panned[2:] == zoomed[2:]
            page.mouse.move(box["x"] + 100, box["y"] + 100)
            page.mouse.wheel(0, -300)
            assert float(svg.get_attribute("viewBox").split()[2]) < panned[2]
            fig.locator("button[data-zoom=fit]").click()
            assert [float(v) for v in svg.get_attribute("viewBox").split()] == \
                [float(v) for v in full.split()]
            assert errors == []
        finally:
            browser.close()
