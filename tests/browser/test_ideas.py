"""The ideas section (sequential against parallel, a known lag) in a real browser, in the offline file.

What the engine draws is held to the Python that precomputed it: the dependency graphs to ``graph_data`` /
``graph_caption`` for every preset sentence and a typed one (the longest the page takes), the lag panel to
``lag_sources`` / ``errors_html`` for every period.  The section is the page's last: the test draws it and the
sentence section it follows (AttnPage.ensure), as a student's scroll would.  That it fits a phone is checked
with the whole page in tests/browser/test_screens.py.
"""

from __future__ import annotations

import numpy as np
import pytest

import attention
from app.ideas.view import (PERIODS, errors_html, graph_caption, graph_data, graph_size, lag_intro, lag_results,
                            lag_sources, lag_ticks)
from tests.browser.pageutil import block_outside, draw, model_element, model_prop, source_data, wait_ready

MODEL = attention.load_sentence_model()
PRESETS = [p.text for p in MODEL.presets]
FIGURES = ("dependency_graph", "sequence_timing_plot", "sequence_counts_plot", "lag_weights", "lag_predictions")
MAX_FILE_BYTES = 3_000_000

# Every figure of the section has a view whose canvas was painted at a size > 0.
DRAWN_JS = """(names) => names.every((n) => { const m = Bokeh.documents[0].get_model_by_name(n);
  const v = m && Bokeh.index.find_one(m); if (!v || !v.canvas_view) return false;
  const c = v.canvas_view.primary.canvas; return c.width > 0 && c.height > 0; })"""


def _open(page, url):
    block_outside(page)
    page.goto(url)
    wait_ready(page)
    draw(page, "sentence")
    draw(page, "ideas")
    page.wait_for_function("() => Bokeh.documents[0].get_model_by_name('sentence_readouts').text"
                           ".includes('max weight')")
    page.wait_for_function(DRAWN_JS, arg=list(FIGURES), timeout=30000)


def _select(page, name, value):
    h = page.evaluate_handle("""([n]) => Bokeh.index.find_one(Bokeh.documents[0].get_model_by_name(n)).input_el""",
                             [name])
    h.as_element().select_option(value=value)


def _assert_same(got: dict, want: dict):
    assert set(got) == set(want)
    for k, v in want.items():
        if v and isinstance(v[0], str):
            assert got[k] == v, k
        else:
            np.testing.assert_allclose(np.asarray(got[k], dtype=float), np.asarray(v, dtype=float), rtol=0,
                                       atol=1e-12, err_msg=k)


def check_lag(page, period):
    res = lag_results()[str(period)]
    want = lag_sources(res)
    page.wait_for_function("(w) => Bokeh.documents[0].get_model_by_name('lag_errors').text === w",
                           arg=errors_html(res), timeout=20000)
    page.wait_for_function("(p) => Bokeh.documents[0].get_model_by_name('lag_weight_bars').data.color"
                           ".filter((c, i) => i === p - 1)[0] === '#D55E00'", arg=period, timeout=20000)
    _assert_same(source_data(page, "lag_weight_bars"), want["weights"])
    _assert_same(source_data(page, "lag_actual"), want["actual"])
    _assert_same(source_data(page, "lag_pred"), want["pred"])
    ticks = page.evaluate("() => Array.from(Bokeh.documents[0].get_model_by_name('lag_ticker').ticks)")
    assert ticks == lag_ticks(period)
    # the words name this period's pattern: "weekly" at 7 days only, and the linear model's own lag
    words = model_prop(page, "lag_intro", "text")
    assert words == lag_intro(period)
    assert ("weekly" in words) == (period == 7) and f"(the value {period} days ago)" in words
    assert ("every {} days".format(period) in words) == (period not in (7, 14))
    assert res["top_lag"] == period and res["lag"] == period


def type_sentence(page, text):
    box = page.evaluate_handle("""() => Bokeh.index.find_one(Bokeh.documents[0]
      .get_model_by_name('sentence_input')).input_el""").as_element()
    box.fill(text)
    box.press("Enter")


def check_graph(page, tokens):
    want = graph_data(tokens)
    # wait for this sentence's nodes (two sentences in a row may have the same length)
    page.wait_for_function("(tok) => JSON.stringify(Array.from(Bokeh.documents[0].get_model_by_name('graph_nodes')"
                           ".data.tok)) === JSON.stringify(tok)", arg=list(want["nodes"]["tok"]), timeout=20000)
    for k in ("nodes", "chain", "pairs"):
        _assert_same(source_data(page, f"graph_{k}"), want[k])
    assert model_prop(page, "graph_caption", "text") == graph_caption(len(tokens))
    assert {k: model_prop(page, "dependency_graph", k) for k in ("height", "min_width")} == graph_size(len(tokens))


def test_the_panels_draw_and_follow_every_sentence_and_period(static_file, watch):
    page = watch.page
    _open(page, static_file.as_uri())
    check_graph(page, ["the", "bank", "by", "the", "river"])
    for text in PRESETS:
        h = page.evaluate_handle("""() => Bokeh.index.find_one(Bokeh.documents[0]
          .get_model_by_name('preset_select')).input_el""")
        h.as_element().select_option(label=text)
        check_graph(page, attention.tokenize(text))
    words = [f"w{i}" for i in range(attention.MAX_TOKENS)]   # the longest sentence: small nodes, named above
    type_sentence(page, " ".join(words))
    check_graph(page, words)
    assert all(label == "" for label in source_data(page, "graph_nodes")["label"])   # not under the nodes...
    assert model_prop(page, "graph_words_axis", "visible") is True                 # ...but above the chain
    for period in PERIODS[::-1]:
        _select(page, "lag_period_select", str(period))
        check_lag(page, period)
    assert watch.outside_requests(["file:", "data:", "blob:"]) == []
    assert watch.console_errors() == []


# 18 words, as the issue typed them, and the longest sentence the page takes, of the vocabulary's longer words
EIGHTEEN = "we sat on the bank of the river and watched the fisherman row his boat past the mill"
LONGEST = " ".join((["institution", "approved", "fisherman", "the"] * 8)[:attention.MAX_TOKENS])
GRAPH_VIEW_JS = """() => { const v = Bokeh.index.find_one(Bokeh.documents[0].get_model_by_name('dependency_graph'));
  const f = v.frame.bbox, r = v.model.x_range, box = Bokeh.index.find_one(Bokeh.documents[0].get_model_by_name('graph_box'));
  const b = box.el.getBoundingClientRect();
  return {frame: [f.left, f.right], x: [r.start, r.end], box: [b.left, b.right, box.el.scrollWidth, box.el.clientWidth],
          screen: document.documentElement.clientWidth}; }"""


@pytest.mark.parametrize("width, words", [(1366, EIGHTEEN), (360, EIGHTEEN), (360, LONGEST)])
def test_a_long_sentences_chain_names_its_words(browser, static_file, width, words):
    """Over six words the nodes are too close to name under them: each word then stands upright above its node of
    the chain, at 14 px, every one painted, none touching the next, inside the canvas; a sentence too long for
    the screen keeps its words apart and scrolls sideways inside the graph's box, not the page."""
    from tests.browser.test_sentence import DRAWN_TICK_LABELS_JS, LABEL_GAP

    ctx = browser.new_context(viewport={"width": width, "height": 800}, is_mobile=width < 600, has_touch=width < 600)
    page = ctx.new_page()
    try:
        _open(page, static_file.as_uri() + "?tour=0")
        tokens = attention.tokenize(words)
        type_sentence(page, words)
        check_graph(page, tokens)
        assert model_prop(page, "graph_words_axis", "major_label_text_font_size") == "14px"
        model_element(page, "graph_box").scroll_into_view_if_needed()
        page.wait_for_function("(n) => Bokeh.index.find_one(Bokeh.documents[0].get_model_by_name('dependency_graph'))"
                               ".frame.bbox.width > 0 && Bokeh.documents[0].get_model_by_name('graph_words_axis')"
                               ".ticker.ticks.length === n", arg=len(tokens))
        got = page.evaluate(DRAWN_TICK_LABELS_JS, "dependency_graph")
        (above,) = [ax for ax in got["axes"] if ax["side"] == "above"]
        labels = above["labels"]
        assert [lb["text"] for lb in labels] == [t if len(t) <= 14 else t[:13] + "\u2026" for t in tokens]
        g = page.evaluate(GRAPH_VIEW_JS)
        (f0, f1), (x0, x1) = g["frame"], g["x"]
        node = lambda i: f0 + (i - x0) / (x1 - x0) * (f1 - f0)  # noqa: E731
        w, h = got["canvas"]
        for i, lb in enumerate(labels):
            left, top, right, bottom = lb["box"]
            assert abs((left + right) / 2 - node(i)) <= 4, (i, lb, node(i))       # above its own node
            assert 10 <= right - left <= 20, lb                                    # one upright 14 px line
            assert left >= 0 and top >= 0 and right <= w and bottom <= h, (lb, w, h)
        longest = max(labels, key=lambda lb: len(lb["text"]))
        assert longest["box"][3] - longest["box"][1] >= 6 * len(longest["text"])      # its letters run upwards
        for a, b in zip(labels, labels[1:]):
            assert b["box"][0] - a["box"][2] >= LABEL_GAP, (a, b)
        # the graph's box stays on the screen; a graph wider than it scrolls inside it
        left, right, scroll_w, client_w = g["box"]
        assert left >= 0 and right <= g["screen"] + 0.5
        assert (scroll_w > client_w) == (w > client_w + 1)
    finally:
        ctx.close()


def test_offline_file_stays_within_3_mb(static_file):
    size = static_file.stat().st_size
    assert size <= MAX_FILE_BYTES, f"the offline file is {size / 1e6:.2f} MB"
