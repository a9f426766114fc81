"""The learning section's builder (no browser): both modes build, the shipped paths are the core's, links parse."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest

import attention
from attention import learn
from app.learning import view as lv
from app.learning import text
from app.regression.view import build_regression
from app.export import SECTIONS, build_static_document
from app.state import (BANDWIDTH_LR_PRESETS, METRIC_LR_PRESETS, ExplorableState, parse_query, to_query,
                       url_spec)


def _build(mode="static", state=None, dataset=None):
    state = state or ExplorableState()
    reg = build_regression(state, mode=mode, dataset=dataset)
    return reg, lv.build_learning(state, mode=mode, regression=reg)


@pytest.mark.parametrize("mode", ["served", "static"])
def test_builds_in_both_modes(mode):
    reg, view = _build(mode)
    assert view.layout.name == "learning_section"
    assert "Learning.handle(cb_obj" in view.engine.code and "const AttnMirror" in view.engine.code
    assert set(view.engine.args) == set(lv.ENGINE_ARGS)
    cfg = view.models["config"]
    assert cfg["mode"] == mode
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


def test_path_is_drawn_on_the_bias_variance_plot():
    reg, view = _build()
    fb = next(f for f in reg.models["figs"] if f.name == "bias_variance_plot")
    sources = {r.data_source.name for r in fb.renderers}
    assert {"learn_bw_path", "learn_bw_now", "hcurve"} <= sources
    labels = [item.label.value for item in fb.legend[0].items]
    assert "gradient descent on h" in labels


def test_defaults_match_the_core():
    spec = url_spec()
    assert spec["lr"]["default"] == f"{learn.DEFAULT_BANDWIDTH_LEARNING_RATE:g}"
    assert spec["metric_lr"]["default"] == f"{learn.DEFAULT_METRIC_LEARNING_RATE:g}"
    assert lv.STEPS == learn.DEFAULT_BANDWIDTH_STEPS and lv.METRIC_STEPS == learn.DEFAULT_METRIC_STEPS
    assert spec["step"]["hi"] == lv.STEPS and spec["metric_step"]["hi"] == lv.METRIC_STEPS


def test_bandwidth_paths_are_the_cores():
    _, view = _build()
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


def test_metric_paths_are_the_cores():
    _, view = _build()
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


def test_shipped_paths_are_computed_once_per_process():
    lv.precompute()
    t0 = time.perf_counter()
    assert lv.precompute() < 0.05
    _build()
    assert time.perf_counter() - t0 < 5.0
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


def test_served_generated_dataset_is_trained_on_demand():
    state = ExplorableState(dataset="generated", fn="sine", n=40, noise=0.2, seed=3)
    d = attention.make_dataset("sine", 40, 0.2, 3)
    reg, view = _build("served", state=state, dataset=d)
    gen = view.models["gen"]
    meta = json.loads(gen.tags[0])
    assert meta["lr"] == "2" and json.loads(meta["dataset"])["name"] == "generated"
    tr = attention.train_bandwidth(d.x, d.y, h0=lv.H0, learning_rate=2.0, steps=lv.STEPS)
    np.testing.assert_array_equal(gen.data["h"], tr.h)
    # a new learning rate: trained again, for the same dataset
    view.widgets["lr"].value = "10"
    tr10 = attention.train_bandwidth(d.x, d.y, h0=lv.H0, learning_rate=10.0, steps=lv.STEPS)
    assert json.loads(gen.tags[0])["lr"] == "10"
    np.testing.assert_array_equal(gen.data["h"], tr10.h)
    assert state.lr == "10"
    # a new generated dataset (as Explorable._push_generated sets it): trained again
    d2 = attention.make_dataset("wave", 30, 0.3, 1)
    reg.ds.tags = [json.dumps({"name": "generated", "description": "another"})]
    reg.ds.data = {"x": d2.x.tolist(), "y": d2.y.tolist()}
    np.testing.assert_array_equal(gen.data["h"], attention.train_bandwidth(d2.x, d2.y, h0=lv.H0,
                                                                           learning_rate=10.0, steps=lv.STEPS).h)
    assert json.loads(gen.tags[0])["dataset"] == reg.ds.tags[0]


def test_static_mode_never_trains_in_python():
    reg, view = _build("static")
    assert view.models["gen"].data["h"] == []
    assert not reg.ds._callbacks  # no Python callback: the offline file has no server


def test_offline_document_carries_the_section():
    assert "learning" in SECTIONS
    doc = build_static_document(ExplorableState(), sections=("regression", "learning"))
    assert doc.get_model_by_name("learning_section") is not None
    assert doc.get_model_by_name("metric_plot") is not None
    with pytest.raises(ValueError, match="regression"):
        build_static_document(ExplorableState(), sections=("learning",))


def test_texts_are_fixed_html_without_user_input():
    _, view = _build()
    for part in (lv.INTRO, lv.BANDWIDTH_TEXT, lv.METRIC_TEXT, lv.METRIC_EXPLAIN):
        assert "<script" not in part.lower() and "{" not in part
    assert "W<sub>Q</sub>" in lv.METRIC_EXPLAIN


class _FakeDoc:
    """Stands in for a served session's document: next-tick callbacks are collected, run by the test."""

    def __init__(self):
        self.session_context = object()
        self.ticks = []

    def add_next_tick_callback(self, fn):
        self.ticks.append(fn)


def test_large_generated_dataset_trains_in_a_worker_and_the_latest_request_wins():
    from types import SimpleNamespace

    from bokeh.models import ColumnDataSource

    doc = _FakeDoc()
    big = attention.make_dataset("wave", lv.BACKGROUND_N + 100, 0.3, 0)
    ds = SimpleNamespace(tags=['{"name": "generated", "description": "big"}'],
                         data={"x": big.x.tolist(), "y": big.y.tolist()}, document=doc)
    gen = ColumnDataSource({"h": [], "loss": [], "grad": [], "status": [], "message": []}, tags=["{}"])
    trainer = lv._GeneratedTrainer(ds, gen)
    t0 = time.perf_counter()
    trainer.request("2")
    trainer.request("10")          # asked for before the first one finished: only this one is applied
    assert time.perf_counter() - t0 < 0.5 and gen.data["h"] == []   # the session was not held up
    deadline = time.time() + 120
    while len(doc.ticks) < 2 and time.time() < deadline:
        time.sleep(0.05)
    assert len(doc.ticks) == 2
    for fn in doc.ticks:
        fn()
    meta = json.loads(gen.tags[0])
    assert meta == {"lr": "10", "dataset": ds.tags[0]}
    want = attention.train_bandwidth(big.x, big.y, h0=lv.H0, learning_rate=10.0, steps=lv.STEPS)
    np.testing.assert_array_equal(gen.data["h"], want.h)


def test_a_dataset_the_core_refuses_reaches_the_browser_as_a_reason():
    from types import SimpleNamespace

    from bokeh.models import ColumnDataSource

    ds = SimpleNamespace(tags=['{"name": "generated"}'], data={"x": [1.0], "y": [2.0]}, document=None)
    gen = ColumnDataSource({"h": [], "loss": [], "grad": [], "status": [], "message": []}, tags=["{}"])
    lv._GeneratedTrainer(ds, gen).request("2")
    meta = json.loads(gen.tags[0])
    assert "at least 2 samples" in meta["error"] and gen.data["h"] == []


def test_a_student_who_leaves_while_the_worker_trains_leaves_no_error_in_the_log(caplog):
    """The session's document is destroyed before the worker finishes: the path is dropped quietly."""
    import weakref
    from concurrent.futures import Future
    from types import SimpleNamespace

    from bokeh.document import Document
    from bokeh.models import ColumnDataSource

    class Session:
        def _document_patched(self, *args):
            pass

    doc, context = Document(), Session()
    doc._session_context = weakref.ref(context)           # as in a served session
    session = Session()
    doc.on_change_dispatch_to(session)
    pending = Future()

    class Pool:
        def submit(self, fn, *args):
            pending.fn, pending.args = fn, args
            return pending

    big = attention.make_dataset("wave", lv.BACKGROUND_N + 1, 0.3, 0)
    ds = SimpleNamespace(tags=['{"name": "generated"}'], data={"x": big.x.tolist(), "y": big.y.tolist()},
                         document=doc)
    gen = ColumnDataSource({"h": [], "loss": [], "grad": [], "status": [], "message": []}, tags=["{}"])
    real_pool, lv._pool = lv._pool, lambda: Pool()
    try:
        lv._GeneratedTrainer(ds, gen).request("2")
    finally:
        lv._pool = real_pool
    doc.destroy(session)                                  # the browser left
    with caplog.at_level("DEBUG", logger="concurrent.futures"):
        pending.set_result(pending.fn(*pending.args))     # the worker finishes afterwards
    assert [r.getMessage() for r in caplog.records if r.levelname in ("ERROR", "CRITICAL")] == []
    assert gen.data["h"] == []
