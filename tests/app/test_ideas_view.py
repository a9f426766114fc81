"""The ideas section without a browser: its blocks, the shipped lag results, the phone-friendly rules, and the
timing note that says what was measured, whichever of the two came out faster."""

from __future__ import annotations

import re

import pytest
from bokeh.models import Axis, Div, Legend, Plot

from app.ideas import view as ideas_view
from app.ideas.view import (PERIODS, build_ideas, fmt_count, fmt_ms, fmt_num, graph_data, lag_results,
                            timing_note)

EXPONENT = re.compile(r"\d[eE][+-]?\d")


@pytest.fixture(scope="module")
def view():
    return build_ideas()


def _shown(view):
    """Every model the section's blocks show or refer to."""
    return {m for b in view.blocks for m in b.model.references()}


def _px(size: str) -> float:
    assert size.endswith("px"), size
    return float(size[:-2])


def test_builds_with_its_blocks_figures_and_engine(view):
    assert [(b.name, b.place) for b in view.blocks] == [("ideas-intro", "body"), ("ideas-sequence", "body"),
                                                         ("ideas-lag-head", "body"), ("ideas-lag", "body"),
                                                         ("ideas-lag-after", "body")]
    names = {m.name for m in _shown(view) if m.name}
    for name in ("dependency_graph", "sequence_timing_plot", "sequence_counts_plot", "lag_weights",
                 "lag_predictions", "lag_period_select", "lag_errors", "graph_caption"):
        assert name in names, name
    assert "Ideas.handle(cb_obj" in view.engine.code
    assert set(view.models["config"]["lags"]) == {str(p) for p in PERIODS}


def test_every_period_is_found_by_both_models():
    for p, r in lag_results().items():
        assert r["top_lag"] == r["lag"] == int(p)
        assert abs(r["rmse_attention"] - r["rmse_linear"]) < 0.15 * r["rmse_linear"]
        assert len(r["weights"]) == 14 and abs(sum(r["weights"]) - 1) < 1e-3


def test_canvas_text_is_at_least_14px_and_figures_fit_a_phone(view):
    plots = [m for m in _shown(view) if isinstance(m, Plot)]
    assert len(plots) == 5
    for p in plots:
        assert p.sizing_mode == "stretch_width" and p.min_width <= 300, p.name
        for ax in p.select(type=Axis):
            if ax.visible:
                assert _px(ax.major_label_text_font_size) >= 14 and _px(ax.axis_label_text_font_size) >= 14
        for leg in p.select(type=Legend):
            assert _px(leg.label_text_font_size) >= 14
        for r in p.renderers:
            size = getattr(r.glyph, "text_font_size", None)
            if size is not None:
                assert _px(size if isinstance(size, str) else size["value"]) >= 14, p.name


def test_texts_have_no_exponent_notation_and_use_a_real_minus(view):
    for d in (m for m in _shown(view) if isinstance(m, Div)):
        plain = re.sub(r"<[^>]+>", "", d.text)
        assert not EXPONENT.search(plain), plain
        assert not re.search(r"(?<![\w])-\d", plain), plain
    assert fmt_num(-0.5) == "\u22120.50" and fmt_num(-0.001) == "0.00"
    assert fmt_count(1024) == "1024" and fmt_count(262144) == "262\u2009144" and fmt_count(4194304) == "4.2 million"
    assert fmt_ms(2e-9) == "\u2248 0" and "e" not in fmt_ms(3e-6)


def test_graph_data_is_a_chain_and_all_pairs():
    g = graph_data(["a", "b", "c", "d"])
    assert g["chain"]["x0"] == [0.0, 1.0, 2.0] and len(g["pairs"]["x0"]) == 6
    assert g["nodes"]["label"][:4] == ["a", "b", "c", "d"]
    assert set(graph_data(["w"] * 7)["nodes"]["label"]) == {""}


def test_the_graphs_follow_the_sentence_sections_words():
    from bokeh.models import ColumnDataSource
    src = ColumnDataSource({"tok": ["one", "two", "three"]})
    v = build_ideas(sentence={"tokens_src": src})
    assert v.models["tokens_src"] is src
    assert v.models["nodes"].data["x"] == [0.0, 1.0, 2.0] * 2
    assert src.js_property_callbacks["change:data"] == [v.engine]


def test_timings_are_measured_once_per_process(monkeypatch):
    calls = []
    real = ideas_view.attention.time_rnn_and_attention
    ideas_view.sequence_timings.cache_clear()
    monkeypatch.setattr(ideas_view.attention, "time_rnn_and_attention",
                        lambda: calls.append(1) or real(ns=(8, 16), d=4, budget_s=0.05))
    try:
        build_ideas()
        build_ideas()
        assert len(calls) == 1
    finally:
        ideas_view.sequence_timings.cache_clear()


# ---- the timing note: true whichever of the two came out faster -------------------------------------------

def _timings(rnn_ms, att_ms, complete=True):
    ns = [64, 128, 256, 512, 1024, 2048][:len(rnn_ms)]
    return {"n": ns, "rnn_s": [t / 1000 for t in rnn_ms], "attention_s": [t / 1000 for t in att_ms], "d": 64,
            "budget_s": 2.0, "complete": complete}


def _plain(note: str) -> str:
    return re.sub(r"<[^>]+>", "", note)


def test_attention_faster_at_the_largest_n_is_said_so():
    note = _plain(timing_note(_timings([1.0, 2.0, 4.0, 8.25], [0.5, 1.0, 2.0, 3.5])))
    assert "Here attention was faster" in note and "took longer" not in note
    assert "At n = 512 the RNN loop took 8.25 ms for 512 steps in a row; attention took 3.5 ms for " \
           "262\u2009144 scores in one step." in note


def test_attention_slower_everywhere_is_said_so_without_a_from():
    note = _plain(timing_note(_timings([1.0, 2.0, 4.0], [2.0, 5.0, 9.0])))
    assert "Here attention took longer:" in note and "from n =" not in note and "was faster" not in note


@pytest.mark.parametrize("rnn, att, since", [
    ([1.0, 2.0, 4.0, 8.0, 16.0], [0.5, 1.0, 5.0, 9.0, 40.0], 256),    # faster up to 128, slower from 256 on
    ([1.0, 2.0, 4.0, 8.0, 16.0], [3.0, 1.0, 5.0, 9.0, 40.0], 256),    # slower at 64 too, but not at 128
    ([1.0, 2.0, 4.0, 8.0, 16.0], [0.5, 1.0, 2.0, 4.0, 20.0], 1024),   # only at the largest n
])
def test_from_n_on_names_where_attention_started_taking_longer_for_good(rnn, att, since):
    note = _plain(timing_note(_timings(rnn, att)))
    assert f"Here attention took longer from n = {since} on:" in note
    slower = [n for n, r, a in zip(_timings(rnn, att)["n"], rnn, att) if a > r]
    assert all(n in slower for n in _timings(rnn, att)["n"] if n >= since)   # and it did, at every n from there


def test_slower_at_small_n_but_faster_at_the_largest_is_called_faster():
    note = _plain(timing_note(_timings([1.0, 2.0, 4.0, 8.0], [2.0, 3.0, 3.0, 4.0])))
    assert "Here attention was faster" in note and "took longer" not in note


def test_a_measurement_cut_short_by_its_budget_says_so_and_no_note_has_exponents():
    cut = _plain(timing_note(_timings([1.0, 2.0, 4.0], [2.0, 5.0, 9.0], complete=False)))
    assert cut.endswith("The time budget of 2.0 s stopped the measurement at n = 256.")
    tiny = _plain(timing_note(_timings([0.000001, 0.00002], [0.0000004, 0.00009])))
    for note in (cut, tiny):
        assert not EXPONENT.search(note) and not re.search(r"(?<![\w])-\d", note)


def test_the_pages_note_is_true_of_the_measurement_it_shows():
    from app.ideas.view import sequence_timings

    t = sequence_timings()
    note = _plain(timing_note(t))
    faster = t["attention_s"][-1] <= t["rnn_s"][-1]
    assert ("Here attention was faster" in note) == faster and ("Here attention took longer" in note) == (not faster)
