"""Embedding the served page (the page at / of ``attention-explorable serve``) in an iframe of a page on another
origin, and dragging the query inside it.  (The offline file in an iframe on a static course page:
tests/browser/test_course_pages.py.)"""

from __future__ import annotations

import http.server
import threading
from functools import partial

import pytest

import attention
from tests.browser.pageutil import free_port

HOST_PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>course page</title>
<link rel="icon" href="data:,"></head><body>
<h1>Week 5: attention</h1>
<iframe id="explorable" src="{src}" style="width:100%;height:900px;border:0" title="attention explorable"></iframe>
<script>
window.addEventListener("message", (e) => {{
  if (e.data && e.data.type === "attention-explorable:height")
    document.getElementById("explorable").style.height = e.data.height + "px";
}});
</script></body></html>"""


@pytest.fixture
def host_page(served_page, tmp_path):
    src = served_page + "?query=2.5&bandwidth=0.3"
    (tmp_path / "index.html").write_text(HOST_PAGE.format(src=src), encoding="utf-8")
    port = free_port()
    handler = partial(http.server.SimpleHTTPRequestHandler, directory=str(tmp_path))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    # "localhost" is another origin than the app's 127.0.0.1, as a course site would be
    yield f"http://localhost:{port}/index.html"
    httpd.shutdown()


def _frame_readouts(frame):
    return frame.evaluate("Bokeh.documents[0].get_model_by_name('readouts').text")


def test_drag_the_query_inside_an_iframe_on_another_origin(host_page, watch):
    page = watch.page
    page.goto(host_page)
    frame_el = page.locator("#explorable")
    frame = page.frame_locator("#explorable")
    frame.locator("body").wait_for()
    f = page.frames[1]
    f.wait_for_function("""() => { const d = window.Bokeh && Bokeh.documents[0];
        const m = d && d.get_model_by_name('readouts'); return !!(m && m.text.includes('max weight')); }""",
                        timeout=30000)
    # the deep link in the iframe's src set the state
    d = attention.load_dataset()
    r = attention.readout(2.5, d.x, d.y, bandwidth=0.3, true_function=d.true_function)
    assert f"{r.max_weight:.3f}" in _frame_readouts(f)
    # the app tells the host its height and the host sizes the frame to it
    page.wait_for_function("parseInt(document.getElementById('explorable').style.height) > 1200", timeout=15000)

    # a real mouse drag on the main plot, inside the frame
    box = f.evaluate("""() => {
        const views = Object.values(Bokeh.index);
        const find = (v) => { if (v.model && v.model.name === 'main_plot') return v;
          for (const c of (v.child_views || [])) { const r = find(c); if (r) return r; } return null; };
        for (const v of views) { const p = find(v); if (p) {
          const r = p.el.getBoundingClientRect(); const fb = p.frame.bbox;
          return {left: r.left + fb.left, top: r.top + fb.top, width: fb.width, height: fb.height,
                  x0: p.frame.x_range.start, x1: p.frame.x_range.end}; } }
        return null; }""")
    assert box is not None
    frame_el.scroll_into_view_if_needed()
    offset = frame_el.bounding_box()
    to_px = lambda x: offset["x"] + box["left"] + (x - box["x0"]) / (box["x1"] - box["x0"]) * box["width"]
    y = offset["y"] + box["top"] + box["height"] / 2
    page.mouse.move(to_px(2.5), y)
    page.mouse.down()
    for i in range(1, 11):
        page.mouse.move(to_px(2.5 + 0.15 * i), y)
    page.mouse.up()
    f.wait_for_function("Math.abs(Bokeh.documents[0].get_model_by_name('query_slider').value - 4.0) < 0.05",
                        timeout=10000)
    q = f.evaluate("Bokeh.documents[0].get_model_by_name('query_slider').value")
    assert abs(q - 4.0) < 0.05
    r = attention.readout(q, d.x, d.y, bandwidth=0.3, true_function=d.true_function)
    assert f"{r.max_weight:.3f}" in _frame_readouts(f)
    assert watch.console_errors() == []
