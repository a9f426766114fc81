"""The learning section in the browser: paths of gradient descent played back, against numpy.

* the bandwidth demo: Step puts the regression's slider at the core's h for that step (1e-12) and the
  regression's readouts follow; Play runs to the end near the grid's leave-one-out optimum; a diverging
  learning rate shows the core's hint and keeps the last good h; a link opens at its step, also when the
  section is drawn only later (a phone: the loader draws it after the first screen);
* a generated dataset is trained in the browser (attention/train.js in a Web Worker for 400 samples), served and
  offline, along the core's path;
* the metric demo: for a query dragged with the mouse, the weights on the samples equal numpy's (1e-9)
  and the similarity curve is the core's ellipse for that step's W;
* the mirror's formulas (metricWeights, metricAxes, similarityEllipse) against numpy over random W.

The section sits under the regression in the one page; most tests open the offline file and draw the section
at once (AttnPage.ensure), as a student's scroll would.
"""

from __future__ import annotations

import numpy as np
import pytest

import attention
from attention import learn
from app.learning import view as lv
from app.ui import text as words

from tests.browser.pageutil import (FIRST_READOUTS_JS, OFFLINE_ORIGINS, SAID_JS, block_outside, check_against_core,
                                    draw, first_readouts, harness_page, model_element, model_prop, plot_geometry,
                                    source_data, wait_drawn, wait_frames, wait_ready)
from tests.parity import library_js

STEPS = lv.STEPS
REL = 1e-6    # a path trained in the browser against the core's (the trainer's own parity test holds it there)
LONG = 90000  # ms: playback of a whole path on a busy 2-core machine


def traj(lr="2", dataset="default"):
    d = attention.load_dataset(dataset)
    return attention.train_bandwidth(d.x, d.y, h0=lv.H0, learning_rate=float(lr), steps=STEPS)


def metric_traj(lr="2"):
    m = learn.load_metric_dataset()
    return attention.train_metric(m.X, m.y, W0=np.eye(2), learning_rate=float(lr), steps=lv.METRIC_STEPS)


def wait_learning(page, timeout=60000):
    """Wait until the page is ready, draw the learning section and wait until its engine has written the step."""
    wait_ready(page, timeout=timeout)
    draw(page, "learning")
    page.wait_for_function("() => { const m = Bokeh.documents[0].get_model_by_name('learn_bw_readout');"
                           " return m && m.text.includes('Step '); }", timeout=timeout)


def wait_step(page, name, k, timeout=30000):
    page.wait_for_function("([n, s]) => Bokeh.documents[0].get_model_by_name(n).text.includes(s)",
                           arg=[name, f"Step {k} of"], timeout=timeout)


def slider_h(page):
    return 10 ** model_prop(page, "bandwidth_slider", "value")


def wait_slider_h(page, h, timeout=30000):
    page.wait_for_function("(h) => Math.abs(10 ** Bokeh.documents[0].get_model_by_name('bandwidth_slider').value"
                           " - h) <= 1e-12", arg=h, timeout=timeout)


def click(page, name):
    model_element(page, name, "button").click()


def select(page, name, value):
    page.evaluate("([n, v]) => { Bokeh.documents[0].get_model_by_name(n).value = v; }", [name, value])


@pytest.fixture
def opened(static_file, watch):
    """The offline file (every request outside it refused) with the learning section drawn and started."""
    url = static_file.as_uri()
    block_outside(watch.page)
    watch.page.goto(url)
    wait_learning(watch.page)
    yield watch, url
    assert watch.outside_requests(OFFLINE_ORIGINS) == []
    assert watch.console_errors() == []


# ---- the bandwidth -------------------------------------------------------------------------------------

def test_opens_at_step_zero_without_moving_the_worked_example(opened):
    watch, _ = opened
    page = watch.page
    assert "Step 0 of 60" in model_prop(page, "learn_bw_readout", "text")
    assert slider_h(page) == pytest.approx(0.62, abs=1e-12)   # the regression's opening state is left alone
    assert source_data(page, "learn_bw_path") == {"h": [lv.H0], "loss": [pytest.approx(traj().loss[0], abs=1e-15)]}


NEW_DATA_LOG_JS = """() => {
  const d = Bokeh.documents[0], log = window.__newData = [];
  const main = Bokeh.index.find_one(d.get_model_by_name('main_plot')), samples = d.get_model_by_name('samples');
  const orig = main.repaint;
  main.repaint = function (...args) { const r = orig.apply(this, args); log.push(['main painted', samples.data.x.length]); return r; };
  d.get_model_by_name('learn_bw_path').properties.data.change.connect(() => log.push(['learning path', 0]));
  return true;
}"""


def test_a_new_dataset_is_painted_before_the_learning_section_loads_its_path(opened):
    """The learning section hears a new dataset in the task that writes it, and loads its path only after the
    frame that paints the new samples (the main plot is not kept waiting); then the path is the core's."""
    watch, _ = opened
    page = watch.page
    page.evaluate(NEW_DATA_LOG_JS)
    select(page, "dataset_select", "large")
    wait_step(page, "learn_bw_readout", 0)
    page.wait_for_function("() => window.__newData.some((e) => e[0] === 'learning path')")
    log = page.evaluate("() => window.__newData")
    painted = next(i for i, e in enumerate(log) if e == ["main painted", 400])
    loaded = next(i for i, e in enumerate(log) if e[0] == "learning path")
    assert painted < loaded, log
    want = traj(dataset="large")
    assert source_data(page, "learn_bw_path") == {"h": [lv.H0], "loss": [pytest.approx(want.loss[0], abs=1e-12)]}
    # and a step goes along the new dataset's path
    click(page, "learn_step_button")
    wait_step(page, "learn_bw_readout", 1)
    wait_slider_h(page, want.h[1])


def test_the_words_on_where_training_starts_follow_the_dataset(opened):
    """Issue 46: the sentence on where training starts states the core's typical largest weight for the data
    shown (attention.typical_focus over the curve's x grid at h = 0.15), in the core's words, and follows a new
    dataset: 0.60 on the worked example, 0.04 (about 41 samples) on the large one."""
    from app.learning import text as learning_text
    import html
    watch, _ = opened
    page = watch.page

    def said(name):
        return learning_text.start_sentence("h = 0.15", *lv.start_focus(attention.load_dataset(name).x))

    assert said("default") in html.unescape(model_prop(page, "learn_bw_text", "text"))
    assert "typically 0.60" in said("default") and "typically 0.04" in said("large")
    select(page, "dataset_select", "large")
    page.wait_for_function("(s) => Bokeh.documents[0].get_model_by_name('learn_bw_text').text.includes(s)",
                           arg=said("large").split(", where ")[1].replace("'", "&#39;"))
    assert said("large") in html.unescape(model_prop(page, "learn_bw_text", "text"))


def test_step_button_moves_the_bandwidth_slider_along_the_path(opened):
    watch, _ = opened
    page = watch.page
    t = traj()
    for k in (1, 2, 3):
        click(page, "learn_step_button")
        wait_step(page, "learn_bw_readout", k)
        wait_slider_h(page, t.h[k])
        assert abs(slider_h(page) - t.h[k]) <= 1e-12
        text = model_prop(page, "learn_bw_readout", "text")
        assert f"h = {words.plain(t.h[k], 4)}" in text and f"leave-one-out error {t.loss[k]:.4f}" in text
        assert f"slope dL/d(log h) {words.plain(t.grad[k], 3)}" in text
        path = source_data(page, "learn_bw_path")
        np.testing.assert_allclose(path["h"], t.h[:k + 1], rtol=0, atol=1e-15)
        np.testing.assert_allclose(path["loss"], t.loss[:k + 1], rtol=0, atol=1e-15)
        assert source_data(page, "learn_bw_loss")["step"] == list(range(k + 1))
        # the regression redrew at the new h: its readouts are the core's
        page.wait_for_function("(h) => Bokeh.documents[0].get_model_by_name('caption').text.includes('h = ' + h)",
                               arg=words.plain(t.h[k], 3))
        state, _ = check_against_core(page)
        assert state["bandwidth"] == pytest.approx(t.h[k], abs=1e-12)
    page.wait_for_function("() => location.search.includes('step=3')")


def test_play_runs_to_the_end_near_the_loo_optimum(opened):
    watch, _ = opened
    page = watch.page
    t = traj()
    click(page, "learn_play")
    page.wait_for_function("() => Bokeh.documents[0].get_model_by_name('learn_pause').disabled === false")
    wait_step(page, "learn_bw_readout", STEPS, timeout=LONG)
    wait_slider_h(page, t.h[-1])
    d = attention.load_dataset("default")
    hs = np.geomspace(0.05, 5, 400)
    best = hs[np.argmin(attention.loo_error(d.x, d.y, bandwidths=hs))]
    assert abs(slider_h(page) / best - 1) < 0.05
    assert len(source_data(page, "learn_bw_loss")["loss"]) == STEPS + 1
    page.wait_for_function("() => Bokeh.documents[0].get_model_by_name('learn_play').disabled === false")
    assert "Done" in model_prop(page, "learn_bw_status", "text")
    # issue 47: the finished training is said once in the page's live region, as the status line says it
    page.wait_for_function(f"() => (({SAID_JS})() || '').startsWith('Done')")
    done = page.evaluate(SAID_JS)
    assert done.startswith(f"Done: after {STEPS} steps h = ") and done in model_prop(page, "learn_bw_status", "text")
    check_against_core(page)


def test_a_diverging_learning_rate_shows_the_hint_and_keeps_h(opened):
    watch, _ = opened
    page = watch.page
    t = traj("300")
    assert t.diverged and len(t.h) == 2
    select(page, "learn_lr_select", "300")
    wait_slider_h(page, lv.H0)          # a new learning rate starts again from h0
    click(page, "learn_step_button")
    page.wait_for_function("() => Bokeh.documents[0].get_model_by_name('learn_bw_status').text.includes('refused')")
    status = model_prop(page, "learn_bw_status", "text")
    assert learn.HINT in status and "Step 1:" in status and 'class="notice"' in status
    assert "&lt;" not in t.message[-1] and "outside the range 0.0001 to 10000" in status   # escaped as text
    # in plain words, and the hint names a rate the drop-down offers (not the core's "try 30")
    assert "about 58.7 million" in status and "pick 50 or less from the list" in status and "try 30" not in status
    assert abs(slider_h(page) - lv.H0) <= 1e-12                          # the last good h is kept
    click(page, "learn_step_button")                                     # nothing further to play
    assert "Step 1 of 60" in model_prop(page, "learn_bw_readout", "text")
    page.wait_for_function("() => location.search.includes('lr=300')")


def test_reset_returns_to_h0_and_leaves_other_settings(opened):
    watch, _ = opened
    page = watch.page
    page.evaluate("() => { Bokeh.documents[0].get_model_by_name('query_slider').value = 2.0; }")
    for k in (1, 2):
        click(page, "learn_step_button")
        wait_step(page, "learn_bw_readout", k)
    click(page, "learn_reset")
    wait_step(page, "learn_bw_readout", 0)
    wait_slider_h(page, lv.H0)
    assert model_prop(page, "query_slider", "value") == 2.0
    assert model_prop(page, "temperature_slider", "value") == 0


def test_a_deep_link_into_the_section_lands_at_its_step_once_the_loader_draws_it(browser, static_file):
    """On a phone the learning section is far below the first screen: the loader draws it after the first
    readouts, by itself.  The link's step is then the page's state: the path's h on the regression's slider
    and the metric demo at its step.  (Offline: a served link is read by the same code from the same bytes,
    tests/browser/test_url_state.py.)"""
    base = static_file.as_uri()
    ctx = browser.new_context(viewport={"width": 390, "height": 700}, is_mobile=True, has_touch=True, idle_drawing=True)
    page = ctx.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    try:
        block_outside(page)
        page.add_init_script(FIRST_READOUTS_JS.replace("NAMES", '["learn_fit_plot", "metric_plot"]'))
        page.goto(base + "?lr=10&step=20&metric_lr=10&metric_step=20")
        wait_ready(page)
        first = first_readouts(page)
        assert first["drawn"] == {"learn_fit_plot": False, "metric_plot": False}
        assert 10 ** first["logh"] == pytest.approx(0.62, abs=1e-12)   # the regression opened as it is
        wait_drawn(page, "learn_fit_plot")
        t = traj("10")
        wait_step(page, "learn_bw_readout", 20)
        wait_slider_h(page, t.h[20])
        assert model_prop(page, "learn_lr_select", "value") == "10"
        assert len(source_data(page, "learn_bw_path")["h"]) == 21
        check_against_core(page)
        wait_drawn(page, "metric_plot")
        wait_step(page, "learn_metric_readout", 20)
        assert model_prop(page, "metric_lr_select", "value") == "10"
        W = metric_traj("10").W[20]
        assert f"{abs(W[0, 0]):.3f}" in model_prop(page, "learn_metric_W", "text")
        search = page.evaluate("() => location.search")
        assert "step=20" in search and "lr=10" in search
        assert errors == []
    finally:
        ctx.close()


def test_temperature_other_than_one_follows_the_path_in_h_sqrt_t(opened):
    watch, _ = opened
    page = watch.page
    t = traj()
    page.evaluate("() => { Bokeh.documents[0].get_model_by_name('temperature_slider').value = Math.log10(4); }")
    click(page, "learn_step_button")
    wait_step(page, "learn_bw_readout", 1)
    page.wait_for_function("(h) => Math.abs(10 ** Bokeh.documents[0].get_model_by_name('bandwidth_slider').value"
                           " - h) <= 1e-12", arg=t.h[1] / 2)
    assert "Training runs at T = 1" in model_prop(page, "learn_bw_status", "text")


# ---- the metric ------------------------------------------------------------------------------------------

def _metric_geometry(page):
    model_element(page, "metric_plot").scroll_into_view_if_needed()
    g = plot_geometry(page, "metric_plot")
    g["y0"], g["y1"] = lv.METRIC_RANGE
    return g


def _to_page(g, x, y):
    return (g["left"] + (x - g["x0"]) / (g["x1"] - g["x0"]) * g["width"],
            g["top"] + (g["y1"] - y) / (g["y1"] - g["y0"]) * g["height"])


def test_metric_weights_for_a_dragged_query_equal_numpys(opened):
    watch, _ = opened
    page = watch.page
    g = _metric_geometry(page)
    per_px = (g["x1"] - g["x0"]) / g["width"]
    page.mouse.click(*_to_page(g, 0.6, -0.4))           # a tap moves the query too (it opens elsewhere)
    page.wait_for_function("([x, y, tol]) => { const m = Bokeh.documents[0].get_model_by_name('learn_metric_query');"
                           " return Math.abs(m.data.x[0] - x) <= tol && Math.abs(m.data.y[0] - y) <= tol; }",
                           arg=[0.6, -0.4, 2 * per_px])
    g = _metric_geometry(page)
    page.mouse.move(*_to_page(g, 1.0, 0.0))
    page.mouse.down()
    for x, y in ((0.0, 0.5), (-1.0, 1.2), (-1.5, 1.6)):
        end = _to_page(g, x, y)
        page.mouse.move(*end, steps=5)
    page.mouse.up()
    g = _metric_geometry(page)                           # where the pointer ended, in the plot's data units
    x_end = g["x0"] + (end[0] - g["left"]) / g["width"] * (g["x1"] - g["x0"])
    y_end = g["y1"] - (end[1] - g["top"]) / g["height"] * (g["y1"] - g["y0"])
    per_px = (g["x1"] - g["x0"]) / g["width"]
    page.wait_for_function("([x, y, tol]) => { const m = Bokeh.documents[0].get_model_by_name('learn_metric_query');"
                           " return Math.abs(m.data.x[0] - x) <= tol && Math.abs(m.data.y[0] - y) <= tol; }",
                           arg=[x_end, y_end, 2 * per_px])
    # a button held still until BokehJS calls it a press (300 ms), then moved: the press puts the query there, the
    # moves drag it, and after the release a hover moves nothing (BokehJS sends no pan after a press)
    query_at = ("([x, y, tol]) => { const m = Bokeh.documents[0].get_model_by_name('learn_metric_query');"
                " return Math.abs(m.data.x[0] - x) <= tol && Math.abs(m.data.y[0] - y) <= tol; }")
    page.mouse.move(*_to_page(g, 0.5, -0.5))
    page.mouse.down()
    page.wait_for_function(query_at, arg=[0.5, -0.5, 2 * per_px])
    end = _to_page(g, 1.5, 1.0)
    page.mouse.move(*end, steps=6)
    page.mouse.up()
    page.wait_for_function(query_at, arg=[1.5, 1.0, 2 * per_px])
    page.mouse.move(*_to_page(g, -1.0, -1.0), steps=4)
    wait_frames(page, 10)
    assert page.evaluate(query_at, [1.5, 1.0, 2 * per_px])
    mt = metric_traj()
    m = learn.load_metric_dataset()
    for k in range(1, 6):
        click(page, "metric_step_button")
        wait_step(page, "learn_metric_readout", k)
    q = source_data(page, "learn_metric_query")
    q = np.array([q["x"][0], q["y"][0]])
    W = mt.W[5]
    got = np.array(source_data(page, "learn_metric_samples")["w"])
    want = attention.weights((W @ q)[None, :], m.X @ W.T, kernel="gaussian", bandwidth=1.0)[0]
    assert np.max(np.abs(got - want)) <= 1e-9
    # the curve is the core's similarity ellipse for this W, around the query: every point on {||W d||^2/2 = 1}
    e = source_data(page, "learn_metric_ellipse")
    d = np.stack([np.array(e["x"]) - q[0], np.array(e["y"]) - q[1]], axis=1)
    np.testing.assert_allclose(0.5 * np.sum((d @ W.T) ** 2, axis=1), lv.ELLIPSE_LEVEL, rtol=1e-9)
    ref = attention.similarity_ellipse(W, level=lv.ELLIPSE_LEVEL, points=lv.ELLIPSE_POINTS,
                                       max_radius=lv.ELLIPSE_MAX_RADIUS)
    np.testing.assert_allclose(sorted(np.linalg.norm(d, axis=1)), sorted(np.linalg.norm(ref, axis=1)), atol=1e-6)
    # the matrix shown is W at step 5
    text = model_prop(page, "learn_metric_W", "text")
    for v in W.ravel():
        assert f"{abs(v):.3f}" in text


def test_metric_play_stretches_the_curve_along_x2(opened):
    watch, _ = opened
    page = watch.page
    click(page, "metric_play")
    wait_step(page, "learn_metric_readout", lv.METRIC_STEPS, timeout=LONG)
    e = source_data(page, "learn_metric_ellipse")
    q = source_data(page, "learn_metric_query")
    dx = np.ptp(np.array(e["x"]) - q["x"][0])
    dy = np.ptp(np.array(e["y"]) - q["y"][0])
    assert dy > 10 * dx      # long along the irrelevant x2, narrow along x1
    W = metric_traj().W[-1]
    assert source_data(page, "learn_metric_loss")["loss"][-1] == pytest.approx(metric_traj().loss[-1], abs=1e-15)
    assert f"{W[0, 0]:.3f}" in model_prop(page, "learn_metric_W", "text")
    page.wait_for_function(f"(s) => ({SAID_JS})() === s", arg=f"Done after {lv.METRIC_STEPS} steps.")   # said once


def test_metric_diverging_rate_shows_the_hint(opened):
    watch, _ = opened
    page = watch.page
    select(page, "metric_lr_select", "100000")
    click(page, "metric_step_button")
    page.wait_for_function("() => Bokeh.documents[0].get_model_by_name('learn_metric_status').text.includes('refused')")
    assert learn.HINT in model_prop(page, "learn_metric_status", "text")
    assert "pick 3000 or less from the list" in model_prop(page, "learn_metric_status", "text")
    assert "1.000" in model_prop(page, "learn_metric_W", "text")   # W stays the identity


# ---- the mirror's new formulas against numpy ----------------------------------------------------------------

@pytest.fixture(scope="module")
def mirror(browser):
    script = library_js(("kernels.js", "mirror.js")) + "\nwindow.AttnMirror = AttnMirror;"
    with harness_page(browser, script, "AttnMirror") as run:
        yield run.page


def _random_W(rng, i):
    if i % 5 == 0:
        return np.diag(rng.uniform(0.05, 5, 2))                   # axis-aligned, as at W0 = I scaled
    if i % 7 == 0:
        return rng.uniform(0.1, 3) * np.array([[np.cos(a := rng.uniform(0, 6)), -np.sin(a)], [np.sin(a), np.cos(a)]])
    return rng.normal(0, 2, (2, 2))


def test_mirror_metric_formulas_match_numpy(mirror):
    rng = np.random.default_rng(7)
    m = learn.load_metric_dataset()
    cases = []
    for i in range(60):
        W = _random_W(rng, i)
        cases.append({"W": W.tolist(), "q": rng.uniform(-4, 4, 2).tolist(), "t": float(10 ** rng.uniform(-1, 1)),
                      "level": float(rng.uniform(0.2, 3))})
    cases += [{"W": W.tolist(), "q": [0.3, -1.0], "t": 1.0, "level": 1.0} for W in metric_traj().W[::15]]
    out = mirror.evaluate("""([cs, X]) => cs.map((c) => {
        const M = window.AttnMirror, ax = M.metricAxes(c.W, c.level), e = M.similarityEllipse(c.W, c.level, 64, 50);
        return { w: Array.from(M.metricWeights(c.q, X, c.W, c.t)), lengths: ax.lengths, dirs: ax.dirs,
                 ex: Array.from(e.x), ey: Array.from(e.y) }; })""", [cases, m.X.tolist()])
    for c, o in zip(cases, out):
        W, q = np.array(c["W"]), np.array(c["q"])
        want = attention.weights((W @ q)[None, :], m.X @ W.T, kernel="gaussian", bandwidth=1.0,
                                 temperature=c["t"])[0]
        assert np.max(np.abs(np.array(o["w"]) - want)) <= 1e-9
        lengths, dirs = learn.metric_axes(W, level=c["level"])
        np.testing.assert_allclose(o["lengths"], lengths, rtol=1e-9)
        if abs(lengths[0] - lengths[1]) <= 1e-9 * lengths[0]:
            # a circle (W a scaled rotation): every direction is an axis, numpy's pick is arbitrary
            pts = np.stack([o["ex"], o["ey"]], axis=1)
            np.testing.assert_allclose(np.linalg.norm(pts, axis=1), min(lengths[0], 50), rtol=1e-9)
            continue
        signs = []
        for got, ref in zip(np.array(o["dirs"]), dirs):    # singular vectors: equal up to sign
            s = 1.0 if got @ ref > 0 else -1.0
            np.testing.assert_allclose(got, s * ref, atol=1e-9)
            signs.append(s)
        # the ellipse: numpy's formula with the browser's signs, point for point
        L = np.minimum(lengths, 50)
        th = np.linspace(0, 2 * np.pi, 64)
        ref = (L[0] * np.cos(th))[:, None] * (signs[0] * dirs[0]) + (L[1] * np.sin(th))[:, None] * (signs[1] * dirs[1])
        np.testing.assert_allclose(np.stack([o["ex"], o["ey"]], axis=1), ref, atol=1e-9)
        if signs == [1.0, 1.0]:
            np.testing.assert_allclose(np.stack([o["ex"], o["ey"]], axis=1),
                                       attention.similarity_ellipse(W, level=c["level"], points=64, max_radius=50),
                                       atol=1e-9)


def test_identity_metric_ellipse_is_the_cores_exactly(mirror):
    e = mirror.evaluate("() => { const e = AttnMirror.similarityEllipse([[1, 0], [0, 1]], 1, 64, 50);"
                        " return [Array.from(e.x), Array.from(e.y)]; }")
    np.testing.assert_allclose(np.stack(e, axis=1), attention.similarity_ellipse(np.eye(2), points=64, max_radius=50),
                               atol=1e-12)


# ---- a generated dataset: trained in the browser (attention/train.js), in a Web Worker when it is large ------------

@pytest.mark.parametrize("where", ["served", "offline"])   # served: the Web Worker under the server's CSP
def test_a_generated_dataset_is_trained_in_a_worker_along_the_cores_path(request, watch, where):
    n = 400   # above the section's worker_above_n: the path is worked out in a Web Worker
    base = request.getfixturevalue("served_page") if where == "served" else \
        request.getfixturevalue("static_file").as_uri()
    page, workers = watch.page, []
    page.on("worker", lambda w: workers.append(w.url))
    if where == "offline":
        block_outside(page)
    page.goto(base + f"?dataset=generated&n={n}")
    wait_learning(page)
    page.wait_for_function("() => { const g = Bokeh.documents[0].get_model_by_name('learn_generated');"
                           " return g.data.h.length > 0; }", timeout=60000)
    assert workers and all(u.startswith("blob:") for u in workers), workers
    wait_step(page, "learn_bw_readout", 0)
    d = attention.make_dataset("wave", n, 0.3, 0)          # the generator's defaults, the link's n
    assert source_data(page, "dataset")["x"] == d.x.tolist()
    # the browser's path is the core's (attention/train.js: within 1e-6, tests/browser/test_compute_parity.py) ...
    t = attention.train_bandwidth(d.x, d.y, h0=lv.H0, learning_rate=2.0, steps=STEPS)
    path = source_data(page, "learn_generated")
    np.testing.assert_allclose(path["h"], t.h, rtol=REL, atol=0)
    np.testing.assert_allclose(path["loss"], t.loss, rtol=REL, atol=0)
    assert f"leave-one-out error {path['loss'][0]:.4f}" in model_prop(page, "learn_bw_readout", "text")
    # ... and the page follows it: Step puts its next h on the regression's slider
    click(page, "learn_step_button")
    wait_step(page, "learn_bw_readout", 1)
    wait_slider_h(page, path["h"][1])
    select(page, "learn_lr_select", "10")                  # a new rate: the browser trains again
    page.wait_for_function("() => JSON.parse(Bokeh.documents[0].get_model_by_name('learn_generated').tags[0]).lr"
                           " === '10'", timeout=60000)
    wait_slider_h(page, lv.H0)                             # like any new rate: back to h0 once the path is in
    path10 = source_data(page, "learn_generated")
    t10 = attention.train_bandwidth(d.x, d.y, h0=lv.H0, learning_rate=10.0, steps=STEPS)
    np.testing.assert_allclose(path10["h"], t10.h, rtol=REL, atol=0)
    click(page, "learn_step_button")
    wait_step(page, "learn_bw_readout", 1)
    wait_slider_h(page, path10["h"][1])
    assert watch.console_errors() == []
    allowed = [base, "data:", "blob:"] if where == "served" else OFFLINE_ORIGINS
    assert watch.outside_requests(allowed) == []


def test_the_live_copy_beside_play_draws_the_fit_at_each_learned_h(opened):
    """The small fit plot in the learning section follows training: after each step its prediction
    curve is the core's Nadaraya-Watson prediction at the learned h, on the dataset it learns from."""
    watch, _ = opened
    page = watch.page
    t = traj()
    for k in (1, 2):
        click(page, "learn_step_button")
        wait_step(page, "learn_bw_readout", k)
        wait_slider_h(page, t.h[k])
        page.wait_for_function("(h) => Bokeh.documents[0].get_model_by_name('caption').text.includes('h = ' + h)",
                               arg=words.plain(t.h[k], 3))
        drawn = page.evaluate("""() => { const d = Bokeh.documents[0], fig = d.get_model_by_name('learn_fit_plot');
          const r = fig.renderers.find((r) => r.glyph.type === 'Line' && r.glyph.y.field === 'pred');
          const s = r.data_source.data, xs = d.get_model_by_name('dataset').data;
          return { x: Array.from(s.x), pred: Array.from(s.pred), kx: Array.from(xs.x), ky: Array.from(xs.y) }; }""")
        assert len(drawn["x"]) > 50
        want = attention.predict(np.array(drawn["x"]), np.array(drawn["kx"]), np.array(drawn["ky"]),
                                 bandwidth=t.h[k])
        np.testing.assert_allclose(drawn["pred"], want, rtol=0, atol=1e-9)
