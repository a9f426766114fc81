"""A finger drag on a phone-sized screen moves the query (touch events, not a mouse)."""

from __future__ import annotations

import attention
from tests.browser.pageutil import readout_text, wait_ready

PLOT_BOX_JS = """(name) => {
  const find = (v) => { if (v.model && v.model.name === name) return v;
    for (const c of (v.child_views || [])) { const r = find(c); if (r) return r; } return null; };
  for (const v of Object.values(Bokeh.index)) { const p = find(v); if (p) {
    const r = p.el.getBoundingClientRect(), fb = p.frame.bbox;
    return {left: r.left + fb.left, top: r.top + fb.top, width: fb.width, height: fb.height,
            x0: p.frame.x_range.start, x1: p.frame.x_range.end}; } }
  return null; }"""


LEGEND_ICONS_DRAWN_JS = """(name) => {
  const pv = Bokeh.index.find_one(Bokeh.documents[0].get_model_by_name(name));
  const lv = [...pv.renderer_views.values()].find((v) => v.model.type === 'Legend');
  const drawn = (cv) => { const d = cv.getContext('2d').getImageData(0, 0, cv.width, cv.height).data;
    for (let i = 3; i < d.length; i += 4) if (d[i] > 0) return true; return false; };
  return lv.entries.length >= 3 && lv.entries.every((e) => drawn(e.glyph.canvas)); }"""


def test_finger_drag_moves_the_query_on_a_phone(browser, static_file):
    ctx = browser.new_context(viewport={"width": 390, "height": 800}, has_touch=True, is_mobile=True)
    page = ctx.new_page()
    try:
        page.goto(static_file.as_uri())
        wait_ready(page)
        page.wait_for_function(LEGEND_ICONS_DRAWN_JS, arg="main_plot", timeout=10000)
        box = page.evaluate(PLOT_BOX_JS, "main_plot")
        px = lambda x: box["left"] + (x - box["x0"]) / (box["x1"] - box["x0"]) * box["width"]
        y = box["top"] + box["height"] * 0.6
        cdp = ctx.new_cdp_session(page)

        def touch(kind, x):
            points = [] if kind == "touchEnd" else [{"x": x, "y": y, "id": 1}]
            cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

        touch("touchStart", px(3.2))
        for i in range(1, 13):
            touch("touchMove", px(3.2 - 0.1 * i))
        touch("touchEnd", px(2.0))
        # the legend's icons are drawn, after the drag as after the opening (a blank icon canvas has no
        # opaque pixel); they once stayed blank on phones once the query's glyphs moved to the overlay
        page.wait_for_function(LEGEND_ICONS_DRAWN_JS, arg="main_plot", timeout=10000)
        page.wait_for_function(
            "Math.abs(Bokeh.documents[0].get_model_by_name('query_slider').value - 2.0) < 0.08", timeout=10000)
        q = page.evaluate("Bokeh.documents[0].get_model_by_name('query_slider').value")
        d = attention.load_dataset()
        r = attention.readout(q, d.x, d.y, bandwidth=0.62, true_function=d.true_function)
        assert f"{r.max_weight:.3f}" in readout_text(page)
    finally:
        ctx.close()
