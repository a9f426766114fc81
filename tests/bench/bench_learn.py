"""Benchmarks for attention.learn: one gradient step on the bandwidth and on a 2-D metric, and the path the page
trains on a generated n = 2000 (windowed sums, beside the full n x n sums they replaced).

``run(quick)`` returns one row per measurement (see tests/bench/__main__.py):
section, name, median_us, p95_us, n_runs and, where there is a budget,
target (microseconds), meets_target (median <= target) and ratio (median / target).
Run this file directly to print the rows.
"""

from __future__ import annotations

import math
import time

import numpy as np

import attention
from attention import learn

SECTION = "learn"
TARGET_STEP_1D_US = 200.0      # one bandwidth step, default dataset (n = 24)
TARGET_STEP_2D_US = 2000.0     # one metric step, n = 200
TARGET_PATHS_US = 1e6          # every path the learning section ships, computed once per process
TARGET_PLAYBACK_US = 50000.0   # the page, playing: a new step drawn every 50 ms (>= 20 steps a second)


def _time(fn, repeats: int, warmup: int = 5) -> np.ndarray:
    """Wall time of each of ``repeats`` calls, in microseconds."""
    for _ in range(warmup):
        fn()
    out = np.empty(repeats)
    for k in range(repeats):
        t0 = time.perf_counter_ns()
        fn()
        out[k] = (time.perf_counter_ns() - t0) / 1e3
    return out


def _row(name, us, *, target=None, note="", per=1):
    us = us / per
    row = {"section": SECTION, "name": name, "median_us": float(np.median(us)),
           "p95_us": float(np.percentile(us, 95)), "n_runs": int(us.shape[0])}
    if target is not None:
        row.update(target=target, meets_target=row["median_us"] <= target, ratio=row["median_us"] / target)
    if note:
        row["note"] = note
    return row


def run(quick: bool) -> list[dict]:
    reps_1d, reps_2d, reps_train = (300, 100, 5) if quick else (5000, 1000, 30)
    rows = []

    d = attention.load_dataset()
    u = math.log(0.62)
    lr = learn.DEFAULT_BANDWIDTH_LEARNING_RATE
    rows.append(_row(f"bandwidth_step, 1-D, n = {d.n}",
                     _time(lambda: learn.bandwidth_step(d.x, d.y, u, lr), reps_1d),
                     target=TARGET_STEP_1D_US,
                     note="loss + gradient at log h, then the loss at the proposed step (divergence check)"))
    rows.append(_row(f"loo_loss_and_grad, 1-D, n = {d.n}",
                     _time(lambda: learn.loo_loss_and_grad(d.x, d.y, u), reps_1d)))
    steps = learn.DEFAULT_BANDWIDTH_STEPS
    rows.append(_row(f"train_bandwidth per step ({steps} steps), n = {d.n}",
                     _time(lambda: learn.train_bandwidth(d.x, d.y, h0=0.15, learning_rate=lr, steps=steps),
                           reps_train, warmup=1), per=steps, note="median of whole runs divided by the steps"))

    rows += _large_path_rows(quick)

    m = learn.make_metric_dataset(n=200, noise=0.1, seed=0)
    W = np.eye(2)
    lr2 = learn.DEFAULT_METRIC_LEARNING_RATE
    rows.append(_row("metric_step, 2-D, n = 200",
                     _time(lambda: learn.metric_step(m.X, m.y, W, lr2), reps_2d),
                     target=TARGET_STEP_2D_US,
                     note="loss + gradient at W, then the loss at the proposed step (divergence check)"))
    rows.append(_row("metric_loss_and_grad, 2-D, n = 200",
                     _time(lambda: learn.metric_loss_and_grad(m.X, m.y, W), reps_2d)))
    steps2 = 50
    rows.append(_row(f"train_metric per step ({steps2} steps), n = 200",
                     _time(lambda: learn.train_metric(m.X, m.y, W0=W, learning_rate=lr2, steps=steps2),
                           reps_train, warmup=1), per=steps2, note="median of whole runs divided by the steps"))
    mm = learn.load_metric_dataset()
    rows.append(_row(f"metric_step, 2-D, n = {mm.n} (metric2d.json)",
                     _time(lambda: learn.metric_step(mm.X, mm.y, W, lr2), reps_2d)))
    rows += _section_rows(quick)
    return rows


# ---------------------------------------------------------------------------
# a generated n = 2000: the path the page trains, windowed against the full n x n sums
# ---------------------------------------------------------------------------

def _full_sums(x, y, log_h):
    """The loss and slope from all n x n terms (the algorithm before the window), with the core's own helper."""
    d = x[:, None] - x[None, :]
    D = d * d
    np.fill_diagonal(D, np.inf)
    D -= D.min(axis=1, keepdims=True)
    np.fill_diagonal(D, 0.0)
    c = 0.5 * math.exp(-2.0 * log_h)
    loss, G = learn._loo_from_excess(D, y, c)
    return loss, 2.0 * c * float(np.sum(G * D))


def _large_path_rows(quick: bool) -> list[dict]:
    big = attention.make_dataset("wave", 2000, 0.3, 0)
    lr, steps = learn.DEFAULT_BANDWIDTH_LEARNING_RATE, learn.DEFAULT_BANDWIDTH_STEPS
    reps = 2 if quick else 7
    tr = learn.train_bandwidth(big.x, big.y, h0=0.15, learning_rate=lr, steps=steps)
    rows = [_row(f"train_bandwidth, wave n = 2000 (seed 0), h0 = 0.15, learning rate {lr:g}, {steps} steps",
                 _time(lambda: learn.train_bandwidth(big.x, big.y, h0=0.15, learning_rate=lr, steps=steps), reps,
                       warmup=1),
                 note="windowed sums: each row sums over the keys of weight >= 1e-16 of its best "
                      f"(h from 0.15 to {tr.final_h:.3f} on this path)")]
    rows.append(_row("the same path's 61 evaluations with the full n x n sums (the algorithm before the window)",
                     _time(lambda: [_full_sums(big.x, big.y, u) for u in tr.log_h], max(2, reps // 2), warmup=0),
                     note="reference for the row above: the loss and slope at each h of the path"))
    return rows


# ---------------------------------------------------------------------------
# the learning section of the page (app/learning/view.py, app/learning/engine.js)
# ---------------------------------------------------------------------------

def _all_paths():
    from app.learning import view as lv

    for f in (lv.bandwidth_trajectory, lv.bandwidth_trajectories, lv.metric_trajectory, lv.metric_config):
        f.cache_clear()
    lv.precompute()


def _section_rows(quick: bool) -> list[dict]:
    from app.learning import view as lv

    rows = [_row("learning section: every shipped path (4 datasets x 6 rates, metric x 6 rates)",
                 _time(_all_paths, 1 if quick else 3, warmup=0), target=TARGET_PATHS_US,
                 note="train_bandwidth 60 steps and train_metric 150 steps, once per process (lru_cache); "
                      "the large dataset (n = 400) is about 3/4 of it (all 6 rates kept: well under 1 s)")]
    from app.regression.view import build_regression
    from app.sections import ExplorableState

    state = ExplorableState()
    rows.append(_row("learning section: build the Bokeh models (paths cached)",
                     _time(lambda: lv.build_learning(state, regression=build_regression(state).lent),
                           3 if quick else 10, warmup=1),
                     note="includes building the regression view it drives"))
    rate = _playback_row(windows=1 if quick else 3)
    if rate is not None:
        rows.append(rate)
    return rows


# Counted in the page: every animation frame in which a new training step is on screen is one step drawn.
_PLAYBACK_JS = """(ms) => new Promise((resolve) => {
  const d = Bokeh.documents[0], now = d.get_model_by_name('learn_bw_now');
  const st = { changes: 0, drawn: [], seen: 0, t0: null };
  now.connect(now.properties.data.change, () => { st.changes += 1; if (st.t0 === null) st.t0 = performance.now(); });
  const frame = (t) => {
    if (st.t0 !== null && st.changes !== st.seen) { st.seen = st.changes; st.drawn.push(t); }
    if (st.t0 !== null && performance.now() - st.t0 >= ms) {
      resolve({ changes: st.changes, drawn: st.drawn.filter((x) => x - st.t0 <= ms), ms }); return; }
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
  const play = d.get_model_by_name('learn_play'), views = Object.values(Bokeh.index);
  while (views.length) {                      // press the Play button on screen
    const v = views.pop();
    if (v.model === play) { v.shadow_el.querySelector('button').click(); break; }
    for (const c of v.child_views || []) views.push(c);
  }
})"""


# The ceiling: the same page, its bandwidth slider set every 40 ms by a timer (no training involved);
# every frame in which the regression's prediction curve changed counts as one redraw.
_SLIDER_JS = """(ms) => new Promise((resolve) => {
  const d = Bokeh.documents[0], s = d.get_model_by_name('bandwidth_slider'), cur = d.get_model_by_name('curve');
  const st = { changes: 0, drawn: [], seen: 0, t0: performance.now() };
  cur.connect(cur.properties.data.change, () => { st.changes += 1; });
  let i = 0;
  const timer = setInterval(() => { i += 1; s.value = Math.log10(0.15 + 0.002 * i); }, 40);
  const frame = (t) => {
    if (st.changes !== st.seen) { st.seen = st.changes; st.drawn.push(t); }
    if (performance.now() - st.t0 >= ms) {
      clearInterval(timer); resolve({ changes: st.changes, drawn: st.drawn, ms }); return; }
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
})"""


_READY_JS = """() => { const m = window.Bokeh && Bokeh.documents[0] &&
  Bokeh.documents[0].get_model_by_name('learn_bw_readout'); return !!(m && m.text.includes('Step 0')); }"""


def _fresh_page(browser, url: str):
    """A fresh page of the offline file, every block drawn (the Play button's view exists), the path at step 0."""
    from tests.bench import pages as P

    ctx, page, _cdp, _t = P.new_page(browser, {"viewport": {"width": 1280, "height": 900}}, block=True)
    page.goto(url, wait_until="commit")
    page.wait_for_function(P.READOUTS_SHOWN_JS, polling=100, timeout=120000)
    page.evaluate(P.DRAW_ALL_JS)
    page.wait_for_function(_READY_JS, polling=100, timeout=120000)
    return ctx, page


def _playback_row(windows: int):
    """Steps per second drawn while the page (the offline file: the served page sends the same bytes) plays the
    bandwidth's path (headless Chromium)."""
    from tests.bench import pages as P

    if not P.chromium_available():
        return None
    url = P.exported_page().as_uri()
    intervals, rates, changes, ceiling = [], [], [], []
    with P.chromium() as browser:
        for _ in range(windows):
            ctx, page = _fresh_page(browser, url)
            try:
                r = page.evaluate(_PLAYBACK_JS, 2000)
            finally:
                ctx.close()
            drawn = np.asarray(r["drawn"])
            intervals += np.diff(drawn).tolist()
            rates.append(len(drawn) / (r["ms"] / 1000))
            changes.append(r["changes"] / (r["ms"] / 1000))
            ctx, page = _fresh_page(browser, url)
            try:
                r = page.evaluate(_SLIDER_JS, 2000)
            finally:
                ctx.close()
            ceiling.append(len(r["drawn"]) / (r["ms"] / 1000))
    if len(intervals) < 2:
        return None
    row = _row("the page, playing the bandwidth's path: time between steps drawn",
               np.asarray(intervals) * 1e3, target=TARGET_PLAYBACK_US,
               note=f"the offline file in headless Chromium 1280x900, every block drawn, over {windows} x 2 s: "
                    f"{np.median(rates):.1f} steps drawn/s ({np.median(changes):.1f} steps set/s); each step redraws "
                    f"the regression's main, weights, entropy and bias-variance plots and the learning plots. "
                    f"Ceiling on the same page and machine, the bandwidth slider alone set every 40 ms: "
                    f"{np.median(ceiling):.1f} redraws/s")
    row["steps_per_s"] = float(np.median(rates))
    row["slider_redraws_per_s"] = float(np.median(ceiling))
    return row


if __name__ == "__main__":
    import sys

    for r in run(quick="--quick" in sys.argv):
        extra = f"  target {r['target']:.0f} us, {'ok' if r['meets_target'] else 'MISSED'}" if "target" in r else ""
        print(f"{r['name']:<50} median {r['median_us']:9.1f} us  p95 {r['p95_us']:9.1f} us  "
              f"(n={r['n_runs']}){extra}")
