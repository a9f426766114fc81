"""The ideas section (sequential against parallel, a known lag) in a real browser, in the offline file.

What the engine draws is held to the Python that precomputed it: the dependency graphs to ``graph_data`` /
``graph_caption`` for every preset sentence and a typed one (the longest the page takes), the lag panel to
``lag_sources`` / ``errors_html`` for every period.  The section is the page's last: the test draws it and the
sentence section it follows (AttnPage.ensure), as a student's scroll would.  That it fits a phone is checked
with the whole page in tests/browser/test_screens.py.
"""

from __future__ import annotations

import numpy as np

import attention
from app.ideas.view import (PERIODS, errors_html, graph_caption, graph_data, lag_intro, lag_results, lag_sources,
                            lag_ticks)
from tests.browser.pageutil import block_outside, draw, model_prop, source_data, wait_ready

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


def check_graph(page, tokens):
    want = graph_data(tokens)
    # wait for this sentence's nodes (two sentences in a row may have the same length)
    page.wait_for_function("(tok) => JSON.stringify(Array.from(Bokeh.documents[0].get_model_by_name('graph_nodes')"
                           ".data.tok)) === JSON.stringify(tok)", arg=list(want["nodes"]["tok"]), timeout=20000)
    for k in ("nodes", "chain", "pairs"):
        _assert_same(source_data(page, f"graph_{k}"), want[k])
    assert model_prop(page, "graph_caption", "text") == graph_caption(len(tokens))


def test_the_panels_draw_and_follow_every_sentence_and_period(static_file, watch):
    page = watch.page
    _open(page, static_file.as_uri())
    check_graph(page, ["the", "bank", "by", "the", "river"])
    for text in PRESETS:
        h = page.evaluate_handle("""() => Bokeh.index.find_one(Bokeh.documents[0]
          .get_model_by_name('preset_select')).input_el""")
        h.as_element().select_option(label=text)
        check_graph(page, attention.tokenize(text))
    words = [f"w{i}" for i in range(attention.MAX_TOKENS)]   # the longest sentence: small nodes, no names
    box = page.evaluate_handle("""() => Bokeh.index.find_one(Bokeh.documents[0]
      .get_model_by_name('sentence_input')).input_el""").as_element()
    box.fill(" ".join(words))
    box.press("Enter")
    check_graph(page, words)
    assert all(label == "" for label in source_data(page, "graph_nodes")["label"])   # too many words to name
    for period in PERIODS[::-1]:
        _select(page, "lag_period_select", str(period))
        check_lag(page, period)
    assert watch.outside_requests(["file:", "data:", "blob:"]) == []
    assert watch.console_errors() == []


def test_offline_file_stays_within_3_mb(static_file):
    size = static_file.stat().st_size
    assert size <= MAX_FILE_BYTES, f"the offline file is {size / 1e6:.2f} MB"
