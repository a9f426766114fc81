"""The learning section's builder (no browser): its blocks and engine, the shipped paths are the core's, a
dataset the page makes is trained in the browser, links parse."""

from __future__ import annotations

import numpy as np
import pytest

import attention
from attention import learn
from app.learning import view as lv
from app.learning import text
from app.regression.view import build_regression
from app.delivery.export import SECTIONS, build_document
from app.learning.state import BANDWIDTH_LR_PRESETS, METRIC_LR_PRESETS
from app.sections import ExplorableState, parse_query, to_query, url_spec
from app.ui.engine import read_js
from app.ui.layout import layout_names
from app.ui.theme import GREEN

from tests.browser.pageutil import ROOT


def _build(state=None, dataset=None):
    state = state or ExplorableState()
    reg = build_regression(state, dataset=dataset)
    return reg, lv.build_learning(state, regression=reg.lent)


@pytest.fixture(scope="module")
def built():
    return _build()


def test_builds_its_blocks_and_its_engine(built):
    reg, view = built
    assert [(b.name, b.place) for b in view.blocks] == [
        ("learning-intro", "body"), ("learning-bandwidth-head", "body"), ("learning-bandwidth", "body"),
        ("learning-bandwidth-words", "body"), ("learning-metric", "body")]
    shown = {n for b in view.blocks for n in layout_names(b.model)}
    assert {"learn_fit_plot", "learn_path_plot", "learn_loss_plot", "metric_plot", "metric_loss_plot",
            "learn_lr_select", "metric_lr_select"} <= shown
    assert "Learning.handle(cb_obj" in view.engine.code and "const AttnMirror" in view.engine.args["library"].code
    assert set(view.engine.args) == set(lv.ENGINE_ARGS) | {"library"}   # the page's shared JavaScript, once
    cfg = view.models["config"]
    assert "mode" not in cfg
    assert cfg["initial"] == {"lr": "2", "step": 0, "metric_lr": "2", "metric_step": 0}
    # the engine listens to its controls, the regression's slider and dataset, and the metric plot's gestures
    for w in ("lr", "metric_lr"):
        assert view.engine in view.widgets[w].js_property_callbacks["change:value"]
    assert view.engine in reg.models["w_logh"].js_property_callbacks["change:value"]
    assert view.engine in reg.ds.js_property_callbacks["change:data"]
    for b in ("play", "pause", "step", "reset", "metric_play", "metric_pause", "metric_step", "metric_reset"):
        assert view.engine in view.widgets[b].js_event_callbacks["button_click"]
    assert {"tap", "pan", "panstart"} <= set(view.models["m_fig"].js_event_callbacks)
    # what the engine writes every step never travels to the server
    for name in ("bw_path", "bw_now", "bw_loss", "bw_readout", "m_samples", "m_ellipse", "m_query", "m_matrix"):
        assert view.models[name].syncable is False


def test_a_dataset_the_page_makes_is_trained_in_the_browser_never_in_python(built):
    """The generator's samples (and your own data) are trained by attention/train.js, in a Web Worker for large ones:
    the engine carries the trainer, the worker gets the library modules it runs, and no Python callback is left to train."""
    reg, view = built
    code, cfg = view.engine.args["library"].code, view.models["config"]   # the trainer is in the page's library
    train, worker = read_js(ROOT / "attention" / "train.js"), read_js(ROOT / "app" / "ui" / "worker.js")
    assert code.count(train) == 1 and code.count(worker) == 1
    # cut from the library's text by ui/worker.js, with the module AttnCommon is built from (ui/format.js)
    assert cfg["worker_modules"] == ["AttnNumbers", "AttnFormat", "AttnCommon", "AttnTrain"]
    for module in cfg["worker_modules"]:
        assert code.count(f"/*<attn:{module}>*/") == 1 and code.count(f"/*</attn:{module}>*/") == 1
    assert cfg["worker_above_n"] == lv.WORKER_ABOVE_N
    assert cfg["bandwidth"]["h0"] == lv.H0 and cfg["bandwidth"]["steps"] == lv.STEPS
    assert view.models["gen"].data["h"] == []
    assert not reg.ds._callbacks and not view.models["gen"]._callbacks   # nothing in Python listens


def test_path_is_drawn_on_the_bias_variance_plot(built):
    reg, view = built
    fb = next(f for f in reg.models["figs"] if f.name == "bias_variance_plot")
    sources = {r.data_source.name for r in fb.renderers}
    assert {"learn_bw_path", "learn_bw_now", "hcurve"} <= sources
    # the plot's legend is HTML under it: the path's entry joins the regression's own, in its colour
    assert ("gradient descent on h", GREEN, "solid") in reg.bias_items
    assert "gradient descent on h" in reg.bias_legend.text and reg.bias_legend.text.count('class="key"') == len(
        reg.bias_items) == 5


def test_defaults_match_the_core():
    spec = url_spec()
    assert spec["lr"]["default"] == f"{learn.DEFAULT_BANDWIDTH_LEARNING_RATE:g}"
    assert spec["metric_lr"]["default"] == f"{learn.DEFAULT_METRIC_LEARNING_RATE:g}"
    assert lv.STEPS == learn.DEFAULT_BANDWIDTH_STEPS and lv.METRIC_STEPS == learn.DEFAULT_METRIC_STEPS
    assert spec["step"]["hi"] == lv.STEPS and spec["metric_step"]["hi"] == lv.METRIC_STEPS


def test_bandwidth_paths_are_the_cores(built):
    _, view = built
    trajs = view.models["config"]["bandwidth"]["trajectories"]
    assert set(trajs) == set(attention.list_datasets())
    for name in attention.list_datasets():
        d = attention.load_dataset(name)
        assert set(trajs[name]) == set(BANDWIDTH_LR_PRESETS)
        for lr in BANDWIDTH_LR_PRESETS:
            tr = attention.train_bandwidth(d.x, d.y, h0=lv.H0, learning_rate=float(lr), steps=lv.STEPS)
            got = trajs[name][lr]
            np.testing.assert_array_equal(got["h"], tr.h)
            np.testing.assert_array_equal(got["loss"], tr.loss)
            np.testing.assert_array_equal(got["grad"], tr.grad)
            assert got["status"] == list(tr.status)
            # the core's message in the page's words: plain numbers, and a rate the drop-down offers
            assert got["message"] == [text.refusal_text(m, float(lr), BANDWIDTH_LR_PRESETS) for m in tr.message]


def test_metric_paths_are_the_cores(built):
    _, view = built
    mc = view.models["config"]["metric"]
    m = learn.load_metric_dataset()
    np.testing.assert_array_equal(mc["X"], m.X)
    np.testing.assert_array_equal(mc["y"], m.y)
    assert set(mc["trajectories"]) == set(METRIC_LR_PRESETS)
    for lr in METRIC_LR_PRESETS:
        tr = attention.train_metric(m.X, m.y, W0=np.eye(2), learning_rate=float(lr), steps=lv.METRIC_STEPS)
        got = mc["trajectories"][lr]
        np.testing.assert_array_equal(got["W"], tr.W)
        np.testing.assert_array_equal(got["loss"], tr.loss)
        assert got["status"] == list(tr.status)
        assert got["message"] == [text.refusal_text(m, float(lr), METRIC_LR_PRESETS) for m in tr.message]
    # the default preset does what the text promises: the x2 column shrinks, x1 grows
    W = np.array(mc["trajectories"]["2"]["W"][-1])
    assert np.linalg.norm(W[:, 1]) < 0.05 * np.linalg.norm(W[:, 0])


def test_presets_show_every_behaviour_on_the_default_dataset():
    """The text promises: one preset crawls, one is refused, and the default ends at the LOO optimum."""
    trajs = lv.bandwidth_trajectories()["default"]
    d = attention.load_dataset("default")
    hs = np.geomspace(0.05, 5, 400)
    best = hs[np.argmin(attention.loo_error(d.x, d.y, bandwidths=hs))]
    assert abs(trajs["2"]["h"][-1] / best - 1) < 0.05
    assert trajs["0.5"]["h"][5] < trajs["2"]["h"][5]  # a small rate crawls
    assert trajs["20"]["status"][-1] == "ok" and abs(trajs["20"]["h"][-1] / best - 1) > 0.1  # bounces, never settles
    assert trajs["50"]["h"][-1] < 0.05                       # leaps onto the flat 1-NN stretch and stalls


@pytest.mark.parametrize("lr", ["300"])
def test_a_diverging_preset_carries_status_and_hint(lr):
    t = lv.bandwidth_trajectories()["default"][lr]
    assert t["status"][-1] == learn.STATUS_DIVERGED
    assert learn.HINT in t["message"][-1] and "step refused" in t["message"][-1]
    assert t["h"][-1] == t["h"][-2] == lv.H0  # the last good state is kept
    mt = lv.metric_config()["trajectories"][METRIC_LR_PRESETS[-1]]
    assert mt["status"][-1] == learn.STATUS_DIVERGED and learn.HINT in mt["message"][-1]
    assert mt["W"][-1] == mt["W"][-2]


def test_shipped_paths_are_computed_once_per_process(monkeypatch):
    lv.precompute()
    calls = []
    real_bw, real_metric = attention.train_bandwidth, attention.train_metric
    monkeypatch.setattr(attention, "train_bandwidth", lambda *a, **k: calls.append("h") or real_bw(*a, **k))
    monkeypatch.setattr(attention, "train_metric", lambda *a, **k: calls.append("W") or real_metric(*a, **k))
    _build()
    assert calls == []   # a second page (a served session's, a notebook cell's) trains nothing again
    assert lv.bandwidth_trajectories() is lv.bandwidth_trajectories()


def test_deep_link_keys_parse_and_clamp():
    values, notices = parse_query("lr=10&step=10&metric_lr=3000&metric_step=40")
    assert values == {"lr": "10", "step": 10, "metric_lr": "3000", "metric_step": 40}
    assert notices == []
    values, notices = parse_query("lr=7&step=999")
    assert values == {"step": lv.STEPS} and len(notices) == 2
    state = ExplorableState(lr="50", step=3)
    assert "lr=50" in to_query(state) and "step=3" in to_query(state)
    _, view = _build(state=ExplorableState(lr="10", step=12, metric_lr="100", metric_step=7))
    assert view.models["config"]["initial"] == {"lr": "10", "step": 12, "metric_lr": "100", "metric_step": 7}
    assert view.widgets["lr"].value == "10" and view.widgets["metric_lr"].value == "100"


def test_offline_document_carries_the_section(offline):
    assert "learning" in SECTIONS
    assert offline.doc.get_model_by_name("metric_plot") is not None
    assert [b["name"] for b in offline.plan["blocks"] if b["section"] == "learning"] == [
        "learning-intro", "learning-bandwidth-head", "learning-bandwidth", "learning-bandwidth-words", "learning-metric"]
    with pytest.raises(ValueError, match="regression"):
        build_document(ExplorableState(), sections=("learning",))


def test_texts_are_fixed_html_without_user_input():
    focus = attention.regression.Focus(0.6, 2.4)
    for part in (lv.INTRO, lv.bandwidth_text("h = 0.15", focus), lv.METRIC_TEXT, lv.METRIC_EXPLAIN):
        assert "<script" not in part.lower() and "{" not in part
    # where training starts is the one thing filled in, and as text: a column's name is never markup
    assert "Training starts at h = 0.725 (day)," in lv.bandwidth_text("h = 0.725 (day)", focus)
    said = lv.bandwidth_text("h = 1 (<b>)", focus)
    assert "&lt;b&gt;" in said and "<b>)" not in said
    assert "W<sub>Q</sub>" in lv.METRIC_EXPLAIN


def _example_x():
    """data/examples/temperatures.csv's days on the sliders' scale, as the page puts them."""
    from app import userdata
    x = np.loadtxt(ROOT / "data" / "examples" / "temperatures.csv", delimiter=",", skiprows=1, usecols=0)
    return userdata.scale_for(x).from_units(x)


def test_where_training_starts_is_said_as_the_core_finds_it_on_every_dataset():
    """Issue 46: the start h is not everywhere where "the query nearly copies its nearest sample".  On every
    shipped dataset and on the example's temperatures, the sentence states the core's typical largest weight
    (median over the curve's x grid) and words that hold for it: 0.60 leans mostly on the nearest sample, 0.04
    averages about 38 samples."""
    cases = {name: attention.load_dataset(name).x for name in attention.list_datasets()}
    cases["temperatures"] = _example_x()
    said = {}
    for name, x in cases.items():
        f = lv.start_focus(x)
        w = attention.weights(np.linspace(*lv.FOCUS_GRID), x, bandwidth=lv.H0)
        assert f.max_weight == pytest.approx(float(np.median(w.max(axis=1))), abs=1e-12)
        assert f.effective_points == pytest.approx(float(np.median(attention.effective_points(w))), abs=1e-12)
        said[name] = s = text.start_sentence("h = 0.15", *f)
        assert f"typically {f.max_weight:.2f}:" in s, s
        shown = round(f.max_weight, 2)
        assert ("nearly copies" in s) == (shown >= text.NEARLY_COPIES), s
        assert ("leans mostly" in s) == (text.LEANS_MOSTLY <= shown < text.NEARLY_COPIES), s
        assert ("leans mostly" not in s) or shown > 0.5          # "mostly": more than half
        assert ("averages about" in s) == (shown < text.A_FEW), s
        if "about" in s:
            assert f"about {text.points_text(f.effective_points)} " in s, s
    assert "typically 0.60: it leans mostly on its nearest sample" in said["default"]
    assert "typically 0.50: it mixes its nearest few samples" in said["step"]
    assert "typically 0.39: it mixes its nearest few samples, effectively about 4.1 of them" in said["bump"]
    assert "typically 0.04: it averages about 41 samples" in said["large"]
    assert "typically 0.04: it averages about 38 samples" in said["temperatures"]
    assert not any("nearly copies" in s for s in said.values())


@pytest.mark.parametrize("w", [v / 1000 for v in range(0, 1001, 5)])
def test_the_start_sentence_says_nothing_its_number_does_not(w):
    """A sweep of largest weights: the words change only at the named limits, on the number as shown."""
    s = text.start_sentence("h = 0.15", w, 3.0)
    shown = float(f"{w:.2f}")
    want = ("nearly copies" if shown >= text.NEARLY_COPIES else "leans mostly" if shown >= text.LEANS_MOSTLY
            else "mixes its nearest few" if shown >= text.A_FEW else "averages about")
    assert want in s and f"typically {w:.2f}:" in s
    assert "-" not in s and "e+" not in s


def test_the_lessons_learning_card_claims_nothing_that_varies_by_dataset():
    """Card 8 (learn-play) leaves what a query does at the start to the page's sentence."""
    import json
    steps = {s["id"]: s for s in json.loads((ROOT / "data" / "tours" / "lesson.json").read_text())["steps"]}
    t = steps["learn-play"]["text"]
    assert "nearly copies" not in t and "0.15" not in t and "typically" not in t
