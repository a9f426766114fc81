"""The ideas section without a browser: both builds, the shipped lag results, and the phone-friendly rules."""

from __future__ import annotations

import re

import pytest
from bokeh.models import Axis, Div, Legend, Plot

from app.ideas import view as ideas_view
from app.ideas.view import PERIODS, build_ideas, fmt_count, fmt_ms, fmt_num, graph_data, lag_results

EXPONENT = re.compile(r"\d[eE][+-]?\d")


@pytest.fixture(scope="module", params=["served", "static"])
def view(request):
    return build_ideas(mode=request.param)


def _px(size: str) -> float:
    assert size.endswith("px"), size
    return float(size[:-2])


def test_builds_with_its_figures_and_engine(view):
    names = {m.name for m in view.layout.references() if m.name}
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
    plots = [m for m in view.layout.references() if isinstance(m, Plot)]
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
    for d in (m for m in view.layout.references() if isinstance(m, Div)):
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
    v = build_ideas(mode="static", tokens_src=src)
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
        build_ideas(mode="static")
        build_ideas(mode="served")
        assert len(calls) == 1
    finally:
        ideas_view.sequence_timings.cache_clear()


def test_bad_mode_is_refused():
    with pytest.raises(ValueError, match="mode"):
        build_ideas(mode="paper")
