"""Every figure speaks its state (issue 47): what Chromium's accessibility tree, which a screen reader reads, gives
for each plot the page draws: the role figure, its section's name for it (app/sections.py name_figures), and a
description: the main plot's caption (app/regression/querytexts.js), every other figure's axes, ranges and points
(app/ui/describe.js), after the words of its section's readouts where the section declares them (said_with),
written again when the page rests after a change."""

from __future__ import annotations

import pytest

from app.sections import CATALOGUE
from tests.browser.pageutil import DRAW_ALL_JS, block_outside, set_model_prop, wait_ready

FIGURES = CATALOGUE.figure_names()   # every figure of the page, by the words a person calls it

# Every plot drawn and shown, by its model's name (a plot hidden with its section's part, or one not on the
# page's list of figures, is left out; the list is the composition's: FIGURES).
SHOWN_PLOTS_JS = """() => Array.from(Bokeh.documents[0].all_models).filter((m) => Array.isArray(m.renderers) && m.x_range && m.name)
  .filter((m) => { const v = Bokeh.index.find_one(m); if (!v || !v.el.isConnected) return false;
    const r = v.el.getBoundingClientRect(); return r.width > 0 && r.height > 0; }).map((m) => m.name)"""


def figures_heard(page) -> dict:
    """{name: description} of every node with the role figure in Chromium's accessibility tree."""
    cdp = page.context.new_cdp_session(page)
    try:
        nodes = cdp.send("Accessibility.getFullAXTree")["nodes"]
    finally:
        cdp.detach()
    out = {}
    for n in nodes:
        if n.get("role", {}).get("value") != "figure" or n.get("ignored"):
            continue
        out[n.get("name", {}).get("value", "")] = n.get("description", {}).get("value", "")
    return out


@pytest.fixture
def every_block(browser, static_file):
    ctx = browser.new_context(viewport={"width": 1366, "height": 900}, reduced_motion="reduce")
    page = ctx.new_page()
    page.set_default_timeout(30000)
    block_outside(page)
    page.goto(static_file.as_uri())
    wait_ready(page)
    assert page.evaluate(DRAW_ALL_JS)
    yield page
    ctx.close()


def test_every_drawn_plot_is_a_named_figure_with_a_description_that_follows_the_state(every_block):
    page = every_block
    shown = page.evaluate(SHOWN_PLOTS_JS)
    labels = page.evaluate("(ns) => ns.map((n) => Bokeh.documents[0].get_model_by_name(n).html_attributes['aria-label'])",
                           shown)
    assert len(shown) >= 20 and all(labels), dict(zip(shown, labels))
    # a figure on the composition's list has its section's name; the others (the heads' matrices) their view's
    assert [(n, a) for n, a in zip(shown, labels) if n in FIGURES and a != FIGURES[n]] == []
    want = set(labels)
    page.wait_for_function("(n) => Array.from(Bokeh.documents[0].all_models).filter((m) => m.html_attributes && "
                           "m.html_attributes['aria-description']).length >= n", arg=len(want))
    heard = figures_heard(page)
    missing = sorted(want - set(heard))
    silent = sorted(label for label in want & set(heard) if not heard[label].strip())
    assert (missing, silent) == ([], []), (missing, silent)
    # the main plot says its state, and says it again after a move (once the readouts rest)
    main = heard[FIGURES["main_plot"]]
    assert "x = 3.20" in main and "largest weight is 0.163" in main, main
    set_model_prop(page, "query_slider", "value", 1.0)
    page.wait_for_function("() => (Bokeh.documents[0].get_model_by_name('main_plot').html_attributes"
                           "['aria-description'] || '').includes('x = 1.00')")
    caption = page.evaluate("() => Bokeh.documents[0].get_model_by_name('caption').text")
    assert figures_heard(page)[FIGURES["main_plot"]] in caption.replace("&#x27;", "'").replace("&amp;", "&")
    # another figure's ranges follow its data: the self-attention matrix takes a longer sentence's words
    before = figures_heard(page)[FIGURES["attention_heatmap"]]
    box = page.evaluate_handle("() => Bokeh.index.find_one(Bokeh.documents[0].get_model_by_name('sentence_input'))"
                               ".shadow_el.querySelector('input')").as_element()
    box.fill("the bank approved the loan after a long meeting")
    box.press("Enter")
    page.wait_for_function("(b) => { const m = Bokeh.documents[0].get_model_by_name('attention_heatmap');"
                           " return m.html_attributes['aria-description'] !== b; }", arg=before)
    after = figures_heard(page)[FIGURES["attention_heatmap"]]
    assert "from 8.5 to \u22120.5" in after and "from 4.5 to \u22120.5" in before, (before, after)   # 9 rows, not 5
    # issue 47: a figure whose section declares its readouts (said_with) begins with their words, as the page shows
    # them, and they follow the state: the matrix's row after the longer sentence's, the words as written there
    from app.sections import CONTRACTS

    said_with = {n: text for c in CONTRACTS.values() for n, text in c.said_with.items()}
    assert {"attention_heatmap", "sense_plot", "routing_clue_plot", "dependency_graph", "lag_weights",
            "learn_path_plot", "metric_plot", "routing_matrix_plot", "bias_variance_plot"} <= set(said_with)
    page.wait_for_function("() => !(globalThis.__attnTextsPending > 0)")
    shown_words = page.evaluate("""(pairs) => pairs.map(([fig, text]) => [fig,
      AttnDescribe.plainWords(Bokeh.documents[0].get_model_by_name(text).text)])""", sorted(said_with.items()))
    page.wait_for_function("""(pairs) => pairs.every(([fig, words]) => (Bokeh.documents[0].get_model_by_name(fig)
      .html_attributes['aria-description'] || '').startsWith(words))""", arg=shown_words)
    heard = figures_heard(page)
    for fig, words in shown_words:
        if fig in shown:
            assert words and heard[FIGURES[fig]].startswith(words), (fig, words, heard[FIGURES[fig]])
    # the error plot says where its curves are lowest; the cost plot what it writes on itself (the sentence's n)
    assert "lowest" in dict(shown_words)["bias_variance_plot"], shown_words
    assert "\u201cthis sentence, n = 9, 81 scores\u201d" in heard[FIGURES["cost_plot"]], heard[FIGURES["cost_plot"]]
    row = dict(shown_words)["attention_heatmap"]
    assert "max weight" in row and "loan" in after and row in after, (row, after)
