"""A projector's lower resolutions (issue 39): at 1280 x 720 and 1024 x 768 in presentation mode the page is as
legible as at 1920 x 1080.  Every plot, once drawn, keeps a frame of 240 px or more; the tick labels an axis paints
keep apart and stay on the canvas; an axis's title fits along its side (a plot squeezed into a strip cut "entropy
(bits)" to "ropy (b").
"""

from __future__ import annotations

import pytest

from tests.browser.pageutil import SETTLED_JS, block_outside, draw_all, wait_ready
from tests.browser.test_sentence import DRAWN_TICK_LABELS_JS, LABEL_GAP

MIN_FRAME = 240   # px
SCREENS = {"1280x720": (1280, 720), "1024x768": (1024, 768), "1920x1080": (1920, 1080)}

# Every plot drawn on the page: its name, its frame's size and its canvas's, and each axis's title against the
# length of its side (the title's width in its own font).
PLOTS_JS = """() => { const out = [], ctx = document.createElement('canvas').getContext('2d');
  for (const m of Bokeh.documents[0].all_models) {
    if (!('x_range' in m) || !m.visible) continue;
    const v = Bokeh.index.find_one(m);
    if (!v || !v.el.isConnected || v.bbox.width === 0) continue;
    const titles = [];
    for (const av of [...v.renderer_views.values()].filter((r) => /Axis$/.test(r.model.type) && r.model.visible)) {
      if (!av.model.axis_label) continue;
      ctx.font = av.visuals.axis_label_text.font_value();
      const along = ['left', 'right'].includes(av.panel.side) ? v.bbox.height : v.bbox.width;
      titles.push({text: String(av.model.axis_label), width: ctx.measureText(String(av.model.axis_label)).width, along});
    }
    out.push({name: m.name, frame: [v.frame.bbox.width, v.frame.bbox.height], canvas: [v.bbox.width, v.bbox.height],
              titles});
  }
  return out; }"""


@pytest.fixture(scope="module", params=list(SCREENS))
def projected(request, browser, static_file):
    w, h = SCREENS[request.param]
    ctx = browser.new_context(viewport={"width": w, "height": h}, reduced_motion="reduce")
    page = ctx.new_page()
    block_outside(page)
    page.goto(static_file.as_uri() + "?present=1")
    wait_ready(page)
    draw_all(page)
    page.evaluate(SETTLED_JS)
    yield request.param, page
    ctx.close()


def test_every_plot_keeps_a_frame_of_240_px_and_its_axis_titles_fit(projected):
    screen, page = projected
    plots = page.evaluate(PLOTS_JS)
    assert len(plots) >= 20, [p["name"] for p in plots]
    small = [(p["name"], round(p["frame"][1])) for p in plots if p["frame"][1] < MIN_FRAME]
    assert small == [], f"at {screen}, frames under {MIN_FRAME} px tall"
    cut = [(p["name"], t["text"]) for p in plots for t in p["titles"] if t["width"] > t["along"] - 4]
    assert cut == [], f"at {screen}, axis titles longer than their side"


def test_no_tick_label_meets_another_or_leaves_the_canvas(projected):
    screen, page = projected
    bad = []
    for p in page.evaluate(PLOTS_JS):
        if not p["name"]:
            continue
        got = page.evaluate(DRAWN_TICK_LABELS_JS, p["name"])
        w, h = got["canvas"]
        for ax in got["axes"]:
            labels = ax["labels"] or []
            vertical = ax["side"] in ("left", "right")
            lo, hi = (1, 3) if vertical else (0, 2)
            spans = sorted((b["box"][lo], b["box"][hi], b["text"]) for b in labels)
            for (a0, a1, ta), (b0, b1, tb) in zip(spans, spans[1:]):
                if b0 - a1 < LABEL_GAP:
                    bad.append(f"{p['name']} {ax['side']}: {ta!r} and {tb!r} are {b0 - a1:.1f} px apart")
            for b in labels:
                x0, y0, x1, y1 = b["box"]
                if x0 < -0.5 or y0 < -0.5 or x1 > w + 0.5 or y1 > h + 0.5:
                    bad.append(f"{p['name']} {ax['side']}: {b['text']!r} runs out of the {w:.0f}x{h:.0f} canvas")
    assert not bad, f"at {screen}:\n  " + "\n  ".join(bad[:30])
