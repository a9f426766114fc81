"""A drag of the query, frame by frame: the plot under the pointer is painted before the frame that follows
the move, with the numpy core's prediction, and a drag never draws more than one query per frame.

These are orders of events, not timings: "before the frame" means within the task that made the move, which
no frame can interrupt (app/ui/common.js's paintSoon and framePaints, app/regression/views.js's setQuery).
"""

from __future__ import annotations

import math

import pytest

from tests.browser.pageutil import (block_outside, core_readout, draw, page_state, wait_frames, wait_ready,
                                    wait_texts)

# Logs every paint of the four plots a query move changes, with the query and prediction the main plot's
# prediction marker holds at that moment (as its glyph holds them: what the paint draws), and every frame.
LOG_JS = """() => {
  const doc = Bokeh.documents[0], find = (n) => Bokeh.index.find_one(doc.get_model_by_name(n));
  const main = find('main_plot'), qpred = doc.get_model_by_name('qpred');
  const pred = Array.from(main.renderer_views.values()).find((r) => r.model.data_source === qpred);
  const log = window.__dragLog = [];
  for (const name of ['main_plot', 'weights_plot', 'entropy_x_plot', 'entropy_h_plot']) {
    const v = find(name), paint = v.repaint;
    v.repaint = function (...args) { log.push([name, pred.glyph.x[0], pred.glyph.y[0]]); return paint.apply(this, args); };
  }
  let writes = 0;
  doc.get_model_by_name('samples').properties.data.change.connect(() => log.push(['samples written', ++writes]));
  return true;
}"""

# One move, then what has been painted before this task ends (awaiting resolved promises never leaves the
# task, so no frame can come in between), then after two frames.
MOVE_THEN_FRAME_JS = """async (x) => {
  const log = window.__dragLog;
  log.length = 0;
  Bokeh.documents[0].get_model_by_name('query_span').location = x;
  for (let k = 0; k < 2000 && !log.some((e) => e[0] === 'main_plot' && e[1] === x); k++) await Promise.resolve();
  const inTask = log.slice();
  await new Promise((r) => requestAnimationFrame(r));
  await new Promise((r) => requestAnimationFrame(r));
  return { inTask, after: log.slice() };
}"""

# Twelve moves that all arrive before the next frame (a mouse that reports faster than the screen refreshes,
# or a browser that does not hold pointer events for the frame as Chromium does); a frame marker in the log
# each time an animation frame starts.
FAST_MOVES_JS = """async (xs) => {
  const log = window.__dragLog, span = Bokeh.documents[0].get_model_by_name('query_span');
  let on = true;
  await new Promise((r) => requestAnimationFrame(r));
  log.length = 0;
  const tick = () => { if (!on) return; log.push(['frame']); requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
  // the engine hears each move a few microtasks later (BokehJS runs a callback after an await): let it
  for (const x of xs) { span.location = x; for (let k = 0; k < 50; k++) await Promise.resolve(); }
  for (let k = 0; k < 4; k++) await new Promise((r) => requestAnimationFrame(r));
  on = false;
  return log.slice();
}"""


@pytest.fixture
def page(static_file, watch):
    block_outside(watch.page)
    watch.page.goto(static_file.as_uri())
    wait_ready(watch.page)
    draw(watch.page, "regression-spread-h")   # the fourth plot a query move changes: beside the first screen
    wait_texts(watch.page)
    watch.page.evaluate(LOG_JS)
    yield watch.page
    assert watch.console_errors() == []


def test_the_main_plot_paints_the_new_prediction_in_the_moves_own_task(page):
    for x in (1.3, 4.75, -0.4):
        r = page.evaluate(MOVE_THEN_FRAME_JS, x)
        painted_main = [e for e in r["inTask"] if e[0] == "main_plot"]
        assert painted_main, f"after a move to {x} the main plot waited for the frame: {r['inTask']}"
        _, shown_x, shown_pred = painted_main[-1]
        assert shown_x == x
        wait_texts(page)
        core = core_readout(page_state(page))
        assert core.query == x
        assert math.isclose(shown_pred, core.prediction, rel_tol=1e-9, abs_tol=1e-12)
        # the other three plots it changes follow at the frame
        others = {e[0] for e in r["after"] if e[0] in ("weights_plot", "entropy_x_plot", "entropy_h_plot")}
        assert others == {"weights_plot", "entropy_x_plot", "entropy_h_plot"}
        assert not {e[0] for e in r["inTask"]} & others


def test_a_fast_drag_draws_at_most_one_query_per_frame_and_ends_on_the_last(page):
    xs = [0.5 + 0.37 * k for k in range(12)]
    log = page.evaluate(FAST_MOVES_JS, xs)
    frames = [i for i, e in enumerate(log) if e[0] == "frame"]
    bounds = [0, *frames, len(log)]
    for lo, hi in zip(bounds, bounds[1:]):
        chunk = log[lo:hi]
        drawn = {e[1] for e in chunk if e[0] == "main_plot"}
        assert len(drawn) <= 1, f"two queries drawn between two frames: {chunk}"
        assert sum(e[0] == "samples written" for e in chunk) <= 1, f"computed twice in one frame: {chunk}"
    paints = [e for e in log if e[0] == "main_plot"]
    assert paints[-1][1] == xs[-1]
    # the first move is drawn at once, the last at the frame, and none in between
    assert [e[1] for e in log if e[0] == "samples written"] == [1, 2]
    assert {e[1] for e in paints} == {xs[0], xs[-1]}
    wait_frames(page, 2)
    wait_texts(page)
    core = core_readout(page_state(page))
    assert core.query == xs[-1]


# The main plot's axes and title: how often the plot asked whether their size changed, and the left axis's width.
SIDES_JS = """() => {
  const doc = Bokeh.documents[0], v = Bokeh.index.find_one(doc.get_model_by_name('main_plot'));
  const asked = window.__sidesAsked = { n: 0 };
  const sides = v.model.side_panels.map((m) => v.renderer_views.get(m)).filter((s) => s && s.layout);
  for (const s of sides) {
    const ask = s.layout.has_size_changed;
    s.layout.has_size_changed = function (...args) { asked.n += 1; return ask.apply(this, args); };
  }
  return sides.length;
}"""

LEFT_AXIS_WIDTH_JS = """() => { const doc = Bokeh.documents[0], v = Bokeh.index.find_one(doc.get_model_by_name('main_plot'));
  return v.renderer_views.get(v.model.left[0]).layout.bbox.width; }"""


# Every text written from now on into a <style> element on the page while one of the four plots a query move
# changes repaints (a rewritten sheet restyles its part of the page).
STYLE_WRITES_JS = """() => {
  const doc = Bokeh.documents[0], d = Object.getOwnPropertyDescriptor(Node.prototype, 'textContent');
  let painting = 0;
  window.__styleWrites = [];
  for (const name of ['main_plot', 'weights_plot', 'entropy_x_plot', 'entropy_h_plot']) {
    const v = Bokeh.index.find_one(doc.get_model_by_name(name)), paint = v.repaint;
    v.repaint = function (...args) { painting++; try { return paint.apply(this, args); } finally { painting--; } };
  }
  Object.defineProperty(HTMLStyleElement.prototype, 'textContent', { configurable: true, get: d.get,
    set(v) { if (painting && this.isConnected) window.__styleWrites.push(String(v).slice(0, 80)); return d.set.call(this, v); } });
}"""


def test_a_query_move_repaints_without_measuring_the_axes_and_a_range_change_still_does(page):
    """app/ui/common.js (lightenRepaints) spares every repaint BokehJS's question "did an axis or the title change
    size?", which lays out every tick label again: at a query move nothing they depend on changed.  Nor does a
    move rewrite style sheets: BokehJS wrote each glyph's (empty) element position into a <style> at every
    paint, and any sheet again with the same text, and the page restyled itself at every move.  A range
    change is still asked about, and the axis still grows to fit longer labels."""
    patched = page.evaluate("() => globalThis.__attnLightRepaints")
    assert patched["layout"] is True and patched["css"] is True
    assert patched["sheets"] is True and patched["positions"] is True
    assert page.evaluate(SIDES_JS) >= 2          # its two axes (and a title, if it has one)
    narrow = page.evaluate(LEFT_AXIS_WIDTH_JS)
    page.evaluate(STYLE_WRITES_JS)
    for x in (1.3, 4.75, 2.2):
        r = page.evaluate(MOVE_THEN_FRAME_JS, x)
        assert [e for e in r["after"] if e[0] == "main_plot"], "the move was not painted"
    assert page.evaluate("() => window.__sidesAsked.n") == 0
    assert page.evaluate("() => window.__styleWrites") == [], "a repaint rewrote a style sheet"
    y = page.evaluate("() => { const r = Bokeh.documents[0].get_model_by_name('main_plot').y_range; "
                      "return [r.start, r.end]; }")
    try:
        page.evaluate("""() => { const r = Bokeh.documents[0].get_model_by_name('main_plot').y_range;
          r.setv({ start: -123456789, end: 123456789 }); }""")
        wait_frames(page, 3)
        assert page.evaluate("() => window.__sidesAsked.n") > 0
        assert page.evaluate(LEFT_AXIS_WIDTH_JS) > narrow + 20, "the axis did not grow for nine-digit labels"
    finally:
        page.evaluate("""([s, e]) => Bokeh.documents[0].get_model_by_name('main_plot').y_range.setv({ start: s, end: e })""",
                      y)
    wait_frames(page, 3)
    assert page.evaluate(LEFT_AXIS_WIDTH_JS) == narrow


FONT_SIZE_READS_JS = """() => {
  const v = Bokeh.index.find_one(Bokeh.documents[0].get_model_by_name('main_plot'));
  const gcs = window.getComputedStyle;
  let reads = 0;
  window.getComputedStyle = function (...args) { reads += 1; return gcs.apply(this, args); };
  try {
    const sizes = [];
    for (let k = 0; k < 50; k++) sizes.push(v.base_font_size);   // as 50 tick labels laid out in one task
    const once = reads;
    globalThis.__attnLightRepaints.task += 1;                     // what Theme.apply does: a new look
    sizes.push(v.base_font_size);
    return { once, after: reads, sizes: Array.from(new Set(sizes)), css: parseFloat(gcs(v.el).fontSize) };
  } finally { window.getComputedStyle = gcs; }
}"""


def test_a_plot_reads_its_font_size_once_per_task(page):
    """Every text a plot lays out asks for the plot's font size (getComputedStyle, which restyles the page first
    when anything changed): asked 50 times in one task it is read once, and read again after a new look."""
    assert page.evaluate("() => globalThis.__attnLightRepaints.fontSize") is True
    r = page.evaluate(FONT_SIZE_READS_JS)
    assert r["once"] <= 1 and r["after"] == r["once"] + 1, r
    assert r["sizes"] == [r["css"]], r
