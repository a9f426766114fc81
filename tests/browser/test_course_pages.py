"""The README's course-page snippets, each in a tiny host page built from the README's own text.

The offline file in an <iframe> on a static page (sizing itself through the height message), one
section exported with --sections inside a page, and the notebook cell (run for real by
tests/browser/test_jupyterlab.py; here: the README shows exactly what that test runs).
"""

from __future__ import annotations

import http.server
import os
import re
import shlex
import shutil
import subprocess
import sys
import threading
from functools import partial

import pytest

from tests.browser.pageutil import ROOT, free_port, model_prop, plot_geometry, wait_ready

SLOW = 90000
PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>Week 5: attention</title>
<link rel="icon" href="data:,"></head><body><h1>Week 5: attention</h1><p>Read this, then try it:</p>
{snippet}
<p>Questions for next week.</p></body></html>"""


def readme_blocks(name):
    """The code blocks (language, text) after the README's ``<!-- course-page: name -->`` marker."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    marker = f"<!-- course-page: {name} -->"
    assert marker in text, f"README lost its {marker} snippet"
    rest = text.split(marker, 1)[1]
    rest = re.split(r"<!-- course-page: |\n## ", rest)[0]
    return re.findall(r"```(\w+)\n(.*?)```", rest, re.S)


@pytest.fixture
def static_site(tmp_path):
    """A static web server on 127.0.0.1 for tmp_path: (directory, base URL)."""
    port = free_port()
    handler = partial(http.server.SimpleHTTPRequestHandler, directory=str(tmp_path))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield tmp_path, f"http://127.0.0.1:{port}"
    httpd.shutdown()


def _open_host(browser, url, frame_id):
    """Open the host page with every request off this machine refused; returns (ctx, page, frame, outside)."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, idle_drawing=True)   # sized once all drawn
    ctx.set_default_timeout(SLOW)
    page = ctx.new_page()
    outside = []

    def only_local(route):
        if route.request.url.startswith(("http://127.0.0.1", "data:", "blob:", "about:")):
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    page.route("**/*", only_local)
    page.goto(url)
    frame = page.frame_locator(f"#{frame_id}")
    frame.locator("body").wait_for()
    f = next(fr for fr in page.frames if fr != page.main_frame)
    wait_ready(f, timeout=SLOW)
    return ctx, page, f, outside


def _wait_sized(page, frame, frame_id):
    """Once the explorable has drawn every block, the host page sets the frame's height from its message to the
    height of the explorable's content; returns that height."""
    frame.wait_for_function("() => AttnPage.allDrawn()", timeout=SLOW)
    page.wait_for_function("""(id) => { const f = document.getElementById(id);
      return Math.abs(parseInt(f.style.height) - f.contentDocument.documentElement.scrollHeight) <= 2; }""",
                           arg=frame_id, timeout=SLOW)
    return page.evaluate("(id) => parseInt(document.getElementById(id).style.height)", frame_id)


def test_the_offline_file_in_an_iframe_on_a_static_course_page(static_site, static_file, browser):
    """The README's frame: as tall as the window, the page scrolling inside it with its figure pinned."""
    (lang, html), = readme_blocks("offline-iframe")
    assert lang == "html" and 'src="lecture.html?' in html and "height:100vh" in html
    site, base = static_site
    shutil.copy(static_file, site / "lecture.html")
    (site / "index.html").write_text(PAGE.format(snippet=html), encoding="utf-8")
    ctx, page, frame, outside = _open_host(browser, f"{base}/index.html", "explorable")
    try:
        assert model_prop(frame, "query_slider", "value") == 2.5  # the state in the iframe's src
        assert model_prop(frame, "bandwidth_slider", "value") == pytest.approx(-0.5229, abs=1e-3)
        frame.wait_for_function("() => AttnPage.allDrawn()", timeout=SLOW)
        height = page.evaluate("() => document.getElementById('explorable').getBoundingClientRect().height")
        assert height == page.viewport_size["height"]          # 100vh, kept: nothing resizes the frame
        assert frame.evaluate("() => document.documentElement.scrollHeight") > 3 * height
        # (400 px down: the figure column stays pinned while the side column beside it scrolls on)
        frame.evaluate("() => window.scrollTo(0, 400)")
        frame.wait_for_function("() => window.scrollY >= 400")
        g = plot_geometry(frame)                               # the figure stays in the frame's view
        assert 0 <= g["top"] and g["top"] + g["height"] <= height, g
        assert outside == []
    finally:
        ctx.close()


def test_one_section_exported_with_sections_inside_a_page(static_site, browser):
    (sh_lang, command), (html_lang, html) = readme_blocks("one-section")
    assert (sh_lang, html_lang) == ("sh", "html")
    site, base = static_site
    args = shlex.split(command.replace("\\\n", " "))
    assert args[0] == ".venv/bin/attention-explorable" and "--sections" in args
    r = subprocess.run([sys.executable, "-m", "app.delivery.cli", *args[1:]], cwd=site, capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=600)
    assert r.returncode == 0, r.stderr
    (site / "index.html").write_text(PAGE.format(snippet=html), encoding="utf-8")
    ctx, page, frame, outside = _open_host(browser, f"{base}/index.html", "regression")
    try:
        assert model_prop(frame, "kernel_select", "value") == "dot"  # the state in the iframe's src
        assert model_prop(frame, "bandwidth_slider", "value") == pytest.approx(-0.30103, abs=1e-4)
        # only the exported section is in the file
        assert frame.evaluate("() => Bokeh.documents[0].get_model_by_name('sentence_intro')") is None
        assert frame.evaluate("() => document.title") == "Kernel regression"
        assert _wait_sized(page, frame, "regression") != 1200   # the snippet's height, replaced by the message
        assert outside == []
    finally:
        ctx.close()


def test_the_readme_notebook_cell_is_what_the_jupyterlab_test_runs():
    from tests.browser.test_jupyterlab import CELLS

    blocks = readme_blocks("notebook")
    assert [lang for lang, _ in blocks] == ["python", "python"]
    cells = ["\n".join(line.split("  #")[0].rstrip() for line in code.strip().splitlines()) for _, code in blocks]
    assert cells == CELLS
    import json

    lecture = json.loads((ROOT / "data" / "notebooks" / "lecture.ipynb").read_text(encoding="utf-8"))
    first_code = next(c for c in lecture["cells"] if c["cell_type"] == "code")
    assert "".join(first_code["source"]) == CELLS[0]
