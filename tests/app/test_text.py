"""The words students read are derived from the state: plain numbers, the typographic minus, honest notices.

Python twins of the engines' texts (app/ui/text.py, app/regression/text.py, app/learning/text.py); tests/browser/test_parity.py holds the JS to them.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import attention
from app.learning import view as lv
from app.learning.text import refusal_text
from app.regression import text
from attention.regression import GRID_N
from app.sentence import view as sentence_view
from app.ui import theme
from app.learning.state import BANDWIDTH_LR_PRESETS, METRIC_LR_PRESETS
from attention.datasets import X_RANGE
from app.sections import url_spec

EXPONENT = re.compile(r"\d[eE][+-]?\d")
HYPHEN_MINUS = re.compile(r"(?<![\w.])-\d")


@pytest.mark.parametrize("v, want", [
    (1000.0, "1000"), (0.62, "0.62"), (50.0, "50"), (0.001, "0.001"), (0.002, "0.002"), (0.005, "0.005"),
    (5.87e7, "58.7 million"), (2.6e9, "2.6 billion"), (-4.15e-12, "\u2248 0"), (-1.5, "\u22121.5"),
    (123456.0, "123456"), (0.0001234, "0.000123"), (0.0, "0"),
])
def test_plain_numbers_have_no_exponent(v, want):
    assert text.plain(v, 3) == want


def test_plain_never_writes_an_exponent_or_a_hyphen_minus():
    rng = np.random.default_rng(3)
    values = np.concatenate([10.0 ** rng.uniform(-15, 15, 500), -(10.0 ** rng.uniform(-15, 15, 500))])
    for v in values:
        for p in (1, 3, 4):
            s = text.plain(float(v), p)
            assert not EXPONENT.search(s) and "-" not in s, (v, p, s)


GRID = np.linspace(*X_RANGE, GRID_N)   # the queries of the prediction curve


def _state(kernel, h, key_norm, q=3.2, t=1.0):
    """The readout at ``q``, its heaviest sample and the curve's facts, from the core, on the default dataset."""
    d = attention.load_dataset("default")
    ks = attention.key_norm_tilt(d.x, key_norm) if kernel == "dot" and key_norm else None
    kw = dict(kernel=kernel, bandwidth=h, temperature=t, key_scale=ks)
    r = attention.readout(q, d.x, d.y, true_function=d.true_function, **kw)
    w = np.asarray(attention.weights(q, d.x, **kw)).reshape(-1)
    return r, text.heaviest_sample(q, d.x, d.y, w), text.curve_facts(GRID, d.x, attention.weights(GRID, d.x, **kw), d.y)


def test_a_far_key_that_wins_by_its_length_is_not_called_the_nearest():
    """Dot product at the largest tilt, x = 3.2: the longest key (x = 5.78) takes the weight wherever the query is.
    Only half the curve lies at its value, 0.10, to the digits shown, so the curve leans towards it and is not
    called flat at it (issue 46)."""
    r, heavy, curve = _state("dot", 0.62, 0.25)
    assert r.max_weight >= 0.95 and heavy == {"x": 5.78, "y": pytest.approx(0.10), "nearest": False}
    assert curve["winners"] == 1 and curve["sharp_share"] >= text.SHARP_SHARE
    (note,) = text.limit_notices(r, heavy, curve, 0.25)
    assert "nearest-neighbour" not in note and "which is not the nearest one" in note and "x = 5.78" in note
    assert "rewards a key's length as well as its direction" in note and "wins wherever the query is" in note
    assert curve["flat_share"] < text.SHARP_SHARE
    assert note.endswith("The prediction curve leans towards its value, 0.10.")


def test_a_curve_that_is_not_flat_is_not_called_flat():
    """At tilt 0.2 the same key still wins everywhere, but a fifth of the curve has no single winner."""
    r, heavy, curve = _state("dot", 0.62, 0.2)
    assert curve["winners"] == 1 and curve["sharp_share"] < text.SHARP_SHARE
    (note,) = text.limit_notices(r, heavy, curve, 0.2)
    assert "flat" not in note and note.endswith("The prediction curve leans towards its value, 0.10.")


def test_the_nearest_sample_winning_everywhere_is_called_1_nn_with_steps():
    r, heavy, curve = _state("gaussian", 0.01, 0.0)
    assert heavy["nearest"] and curve["nearest_share"] == 1.0 and curve["winners"] > 1
    (note,) = text.limit_notices(r, heavy, curve)
    assert "(1-nearest-neighbour)" in note and note.endswith("the prediction curve turns into steps.")


def test_the_tilts_range_spans_the_change_from_the_nearest_to_one_long_key():
    """At 0 the nearest sample wins everywhere along x; at either end of the range one long key wins everywhere."""
    lo, hi = url_spec()["key_norm"]["lo"], url_spec()["key_norm"]["hi"]
    _, _, level = _state("dot", 0.62, 0.0)
    assert level["nearest_share"] == 1.0 and level["winners"] > 1
    for tilt in (lo, hi):
        _, heavy, curve = _state("dot", 0.62, tilt)
        assert curve["winners"] == 1 and not heavy["nearest"], tilt


def test_nearly_uniform_weights_name_the_global_mean():
    r, heavy, curve = _state("gaussian", 30.0, 0.0)
    (note,) = text.limit_notices(r, heavy, curve)
    assert note == (f"{r.effective_points:.1f} of {r.n} effective points: the weights are nearly uniform, so the "
                    f"prediction flattens toward the global mean (\u2212{abs(r.global_mean):.2f}).")
    assert r.global_mean < 0


def test_the_caption_names_the_tilt_only_when_there_is_one():
    r, _, _ = _state("dot", 0.62, 0.25)
    tilted = text.caption(r, kernel="dot", bandwidth=0.62, temperature=1000.0, key_norm=0.25)
    assert "key-norm tilt 0.25" in tilted and "further right are longer" in tilted and "T = 1000" in tilted
    left = text.caption(r, kernel="dot", bandwidth=0.62, temperature=1.0, key_norm=-0.15)
    assert "key-norm tilt \u22120.15" in left and "further left are longer" in left
    assert "tilt" not in text.caption(r, kernel="dot", bandwidth=0.62, temperature=1.0, key_norm=0.0)
    assert "tilt" not in text.caption(r, kernel="gaussian", bandwidth=0.62, temperature=1.0, key_norm=0.25)


def test_a_negative_query_takes_the_typographic_minus():
    r, _, _ = _state("gaussian", 0.62, 0.0, q=-0.4)
    cap = text.caption(r, kernel="gaussian", bandwidth=0.005, temperature=0.001)
    assert "x = \u22120.40" in cap and "h = 0.005" in cap and "T = 0.001" in cap
    assert not HYPHEN_MINUS.search(cap) and not EXPONENT.search(cap)


@pytest.mark.parametrize("dataset", attention.list_datasets())
def test_refused_bandwidth_steps_suggest_only_rates_the_page_offers(dataset):
    refused = 0
    for lr in BANDWIDTH_LR_PRESETS:
        for m in lv.bandwidth_trajectory(dataset, lr)["message"]:
            if not m:
                continue
            refused += 1
            assert "try " not in m and not EXPONENT.search(m), m
            pick = re.search(r"pick (\S+) or less from the list", m)
            assert pick and pick.group(1) in BANDWIDTH_LR_PRESETS and float(pick.group(1)) < float(lr), m
    if dataset == "default":
        assert refused >= 1   # 300 is refused on the worked example, and says so in plain numbers


def test_the_worked_examples_refusal_reads_in_words():
    (m,) = [m for m in lv.bandwidth_trajectory("default", "300")["message"] if m]
    assert "h would become about 58.7 million, outside the range 0.0001 to 10000" in m
    assert "(learning rate 300, pick 50 or less from the list)" in m


def test_refused_metric_steps_suggest_only_rates_the_page_offers():
    msgs = [m for lr in METRIC_LR_PRESETS for m in lv.metric_trajectory(lr)["message"] if m]
    assert msgs
    for m in msgs:
        pick = re.search(r"pick (\S+) or less from the list", m)
        assert pick and pick.group(1) in METRIC_LR_PRESETS and "try " not in m and not EXPONENT.search(m), m


def test_refusal_without_a_smaller_preset_says_so():
    m = refusal_text("step refused: the loss would jump from 0.184 to 3.12e+03 (more than 10x); "
                          "learning rate too large \u2014 lower it (learning rate 0.5, try 0.05)", 0.5, ("0.5", "2"))
    assert "about 3120" in m and "the list offers no smaller rate" in m and "0.05" not in m


def test_refusal_of_a_step_the_core_cannot_take_says_so_in_words():
    """The core writes a step whose log h is 700 or more as h "inf" (10 rows in millimetres at lr 300): the page
    says it in words."""
    m = refusal_text("step refused: h would become inf, outside [0.0001, 10000]; learning rate too large \u2014 "
                     "lower it (learning rate 300, try 30)", 300.0, BANDWIDTH_LR_PRESETS)
    assert "h would become too large to compute, outside the range 0.0001 to 10000" in m and "inf" not in m


def _page_texts():
    return [text.INTRO, text.EXPLAIN_REGRESSION, text.bias_note(0.3), text.bias_note(None, own=True), sentence_view.INTRO,
            sentence_view.ROUTING, sentence_view.MULTIHEAD, sentence_view.COST, sentence_view.PERSPECTIVE,
            lv.INTRO, lv.BANDWIDTH_TEXT, lv.METRIC_TEXT, lv.METRIC_EXPLAIN]


def test_no_paragraph_twice_and_sqrt_d_in_the_self_attention_section():
    joined = "\n".join(_page_texts())
    assert joined.count("Weights are not explanations") == 1
    assert "Why divide by" not in text.EXPLAIN_REGRESSION and "Why divide by" in sentence_view.INTRO


def test_the_bias_variance_explanation_names_the_noise_gap_of_the_data_shown():
    d = attention.load_dataset("default")
    assert d.noise == 0.3
    bv = text.bias_note(d.noise)
    assert "bias&sup2; + variance + &sigma;&sup2;" in bv and "&sigma;&nbsp;=&nbsp;0.3, so &sigma;&sup2;&nbsp;=&nbsp;0.09" in bv
    # each dataset's own noise (the step function's is 0.1), and no noise named where none is known
    assert "&sigma;&nbsp;=&nbsp;0.1, so &sigma;&sup2;&nbsp;=&nbsp;0.01" in text.bias_note(0.1)
    assert "Here the noise" not in text.bias_note(None)
    # your own data: no true function and no noise, so the note says bias² and variance cannot be computed
    own = text.bias_note(None, own=True)
    assert "cannot be computed" in own and "&sigma;" not in own and "worked example" not in own
    # the plot's title follows too
    assert text.BIAS_TITLES == {"truth": "Bias and variance", "own": "Leave-one-out error"}


def test_the_kernel_menu_says_equal_norm_keys_only_without_a_tilt():
    assert text.kernel_options(0.0) == [("gaussian", "Gaussian"), ("dot", "dot product, equal-norm keys")]
    for tilt in (0.25, -0.1):
        label = dict(text.kernel_options(tilt))["dot"]
        assert "equal" not in label and "tilted" in label


def test_colour_words_match_the_colours():
    """The query line, the selected output and the similarity curve are vermillion (#D55E00): orange-red."""
    joined = "\n".join(_page_texts())
    assert not re.search(r"(?<!orange-)\bred\b", joined)
    assert "orange-red line" in text.INTRO


def test_default_tick_formatters_are_replaced_by_plain_numbers():
    from bokeh.models import BasicTickFormatter, CustomJSTickFormatter
    from bokeh.plotting import figure

    fig = theme.style_figure(figure(x_axis_type="log"))
    for ax in fig.axis:
        assert isinstance(ax.formatter, CustomJSTickFormatter) and not isinstance(ax.formatter, BasicTickFormatter)
        assert ax.formatter.code == theme.PLAIN_TICKS_JS
