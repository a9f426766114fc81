"""Presentation mode on a 1920x1080 projector (``?present=1``): every text drawn on every canvas is at least 20 px.

The offline file, every block drawn at once (pageutil ``draw_all``), then every plot's canvas text read from its
renderers' views (tests/browser/test_screens.py ``CANVAS_TEXTS_JS``): titles, ticks, axis labels, colour bars,
legends, labels and the words of every Text glyph (the matrix's numbers and row sums, the sense plot's words, the
cost plot's "this sentence", the ideas section's graph and lag labels), each at the size it is painted with.
The matrix's numbers grow with the text: a cell prints its weight only when the number fits inside it, for a
sentence whose cells are large (5 words) and for ones whose cells are not (10 and 12 words).
"""

from __future__ import annotations

import pytest

from app.ui import theme
from tests.browser.pageutil import ALL_VIEWS_JS, block_outside, draw_all, wait_frames, wait_ready, wait_settled
from tests.browser.test_screens import CANVAS_TEXTS_JS, SECTIONS_READY_JS

MIN_PX = theme.PRESENT_TEXT_MIN    # 20
PX_TOL = 0.5                       # rounding of boxes

# Every shown plot's canvas texts: [{plot, what, text, size, box, x, y, source}], plus each plot's frame (canvas px)
# and, for the matrix, the size of one cell.
PLOT_TEXTS_JS = """() => { const views = (ALL_VIEWS)(), texts = (CANVAS_TEXTS), out = {texts: [], plots: {}};
  for (const pv of views.filter((v) => v.model.type === 'Figure' || v.model.type === 'Plot')) {
    const m = pv.model, r = pv.el.getBoundingClientRect();
    if (!pv.el.isConnected || r.width === 0 || r.height === 0 || m.visible === false) continue;
    const name = m.name || (m.title && m.title.text) || '(unnamed)', f = pv.frame.bbox;
    out.plots[name] = {frame: [f.left, f.top, f.right, f.bottom]};
    const sc = pv.frame.x_scale, sy = pv.frame.y_scale;
    for (const t of texts(pv, views.filter((v) => v.parent === pv))) {
      if (t.x !== undefined) t.cell = [sc.compute(t.x - 0.5), sy.compute(t.y - 0.5), sc.compute(t.x + 0.5),
                                       sy.compute(t.y + 0.5)];
      out.texts.push(Object.assign({plot: name}, t));
    }
  }
  return out; }""".replace("ALL_VIEWS", ALL_VIEWS_JS).replace("CANVAS_TEXTS", CANVAS_TEXTS_JS)

# Every Text glyph has painted its source's current words: as many labels as rows, each one the row's text.
GLYPHS_CURRENT_JS = """() => { const views = (ALL_VIEWS)();
  return views.every((v) => { const g = v.glyph; if (!g || g.model.type !== 'Text' || !v.model.data_source) return true;
    const src = v.model.data_source, col = g.model.text && g.model.text.field;
    if (!col) return true;
    const want = Array.from(src.data[col] || []).map(String);
    return g.data_size === want.length && g.labels && want.every((t, i) => g.labels[i] && g.labels[i].text === t); });
}""".replace("ALL_VIEWS", ALL_VIEWS_JS)


@pytest.fixture(scope="module")
def projector(browser, static_file):
    ctx = browser.new_context(viewport={"width": 1920, "height": 1080})
    page = ctx.new_page()
    page.set_default_timeout(60000)
    try:
        block_outside(page)
        page.goto(static_file.as_uri() + "?present=1")
        wait_ready(page, timeout=90000)
        page.wait_for_function("() => Bokeh.documents[0].get_model_by_name('present_toggle').active === true")
        draw_all(page)
        page.wait_for_function(SECTIONS_READY_JS)
        yield page
    finally:
        ctx.close()


def gather(page):
    """The canvas texts once every glyph shows its current words and the page has settled."""
    page.wait_for_function(GLYPHS_CURRENT_JS)
    wait_settled(page)
    wait_frames(page, 2)
    return page.evaluate(PLOT_TEXTS_JS)


def fmt(rows, n=40):
    rows = list(rows)
    more = f"\n  ... and {len(rows) - n} more" if len(rows) > n else ""
    return "\n  " + "\n  ".join(str(r) for r in rows[:n]) + more


def test_every_canvas_text_is_at_least_20_px(projector):
    got = gather(projector)
    texts = got["texts"]
    kinds = {t["what"] for t in texts}
    # the list reads every kind of text the page draws, the words in the plots among them
    assert {"title", "tick labels", "axis label", "legend", "colour bar labels", "text glyph"} <= kinds, kinds
    words = [t for t in texts if t["what"] == "text glyph"]
    by_source = {t["source"] for t in words}
    assert {"cell_labels", "row_sums", "sense_values", "sense_output", "cost_now"} <= by_source, by_source
    assert len([t for t in words if t["source"] == "cell_labels"]) == 25   # the opening sentence's 5 x 5 numbers
    small = [(t["plot"], t["what"], t.get("source", ""), t["text"], t["size"]) for t in texts
             if not t["size"] >= MIN_PX - 0.01]
    assert not small, (f"at 1920x1080 in presentation mode, {len(small)} canvas texts under {MIN_PX} px"
                       " (plot, what, source, text, px):" + fmt(small))


def _cells_problems(got):
    """The matrix's numbers that reach out of their cells, and row sums that reach out of the frame."""
    bad = []
    frame = got["plots"]["attention_heatmap"]["frame"]
    for t in got["texts"]:
        if t["plot"] != "attention_heatmap" or t["what"] != "text glyph":
            continue
        x0, y0, x1, y1 = t["box"]
        if t["source"] == "cell_labels":
            c0, c1 = sorted(t["cell"][0::2]), sorted(t["cell"][1::2])
            if x0 < c0[0] - PX_TOL or x1 > c0[1] + PX_TOL or y0 < c1[0] - PX_TOL or y1 > c1[1] + PX_TOL:
                bad.append(("number", t["text"], t["size"], [round(v, 1) for v in t["box"]],
                            [round(v, 1) for v in (c0[0], c1[0], c0[1], c1[1])]))
        elif t["source"] == "row_sums":
            if x1 > frame[2] + PX_TOL:
                bad.append(("row sum", t["text"], t["size"], [round(v, 1) for v in t["box"]], frame))
    return bad


SENTENCES = {5: "the bank by the river",
             10: "the bank by the river approved the loan for boats",
             12: "the bank by the river approved the loan for the old boat"}


@pytest.mark.parametrize("n", sorted(SENTENCES))
def test_the_matrix_prints_only_numbers_its_cells_hold(projector, n):
    text = SENTENCES[n]
    assert len(text.split()) == n
    projector.evaluate("(t) => { Bokeh.documents[0].get_model_by_name('sentence_input').value = t; }", text)
    projector.wait_for_function("(n) => Bokeh.documents[0].get_model_by_name('attention_cells').data.w.length"
                                " === n * n && !(globalThis.__attnTextsPending > 0)", arg=n)
    got = gather(projector)
    numbers = [t for t in got["texts"] if t.get("source") == "cell_labels"]
    sums = [t for t in got["texts"] if t.get("source") == "row_sums"]
    assert len(sums) == n and all(t["size"] >= MIN_PX for t in numbers + sums)
    cell = projector.evaluate("""(n) => Bokeh.index.find_one(Bokeh.documents[0].get_model_by_name('attention_heatmap'))
      .frame.bbox.height / n""", n)
    if n == 5:
        assert len(numbers) == n * n, f"{cell:.0f} px cells print no numbers"   # big cells print every weight
    bad = _cells_problems(got)
    assert not bad, (f"{n} words, {cell:.1f} px cells at 1920x1080 in presentation mode: text out of its place"
                     " (what, text, px, box, cell or frame):" + fmt(bad))
