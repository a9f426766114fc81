"""The offline file, opened from file:// with the network blocked, computes what numpy computes."""

from __future__ import annotations

import numpy as np

import attention
from attention.regression import GRID_N
from attention.datasets import X_RANGE
from app.sections import url_spec
from tests.browser.pageutil import block_outside, wait_ready

# CustomJS callbacks may run asynchronously (BokehJS compiles them on first use), so wait until the regression
# engine's state (its per-page cache, keyed by the dataset source) agrees with every widget: then no pending
# callback would change anything.  (The engine may move the query slider back while it catches up, so the
# state is compared with the widgets as they end up, and the test reads the query from the slider.)
SET_STATE_JS = """async ([q, logh, logt, kernel, tilt]) => {
  const d = Bokeh.documents[0], m = (n) => d.get_model_by_name(n);
  m('kernel_select').value = kernel; m('keynorm_slider').value = tilt;
  m('bandwidth_slider').value = logh; m('temperature_slider').value = logt;
  m('query_slider').value = q;
  const e = globalThis.__attnExplorableCache.get(m('dataset'));
  const near = (a, b) => Math.abs(a - b) <= 1e-12;
  const settled = () => !e.busy && e.kernel === kernel && near(e.key_norm, m('keynorm_slider').value) &&
    near(Math.log10(e.h), m('bandwidth_slider').value) && near(Math.log10(e.t), m('temperature_slider').value) &&
    e.query === m('query_slider').value;
  while (!settled()) await new Promise((r) => requestAnimationFrame(r));
  const s = m('samples').data, c = m('curve').data;
  return {w: Array.from(s.w), pred: Array.from(c.pred), ent: Array.from(c.ent),
          q: m('query_slider').value, logh: m('bandwidth_slider').value, logt: m('temperature_slider').value}; }"""


def test_offline_file_matches_numpy_over_random_states(static_file, watch):
    page = watch.page
    block_outside(page)
    page.goto(static_file.as_uri())
    wait_ready(page)
    d = attention.load_dataset()
    grid = np.linspace(X_RANGE[0], X_RANGE[1], GRID_N)
    rng = np.random.default_rng(20261129)
    worst = 0.0
    tilt_lo, tilt_hi = url_spec()["key_norm"]["lo"], url_spec()["key_norm"]["hi"]   # the tilt slider's range
    for i in range(40):
        kernel = "gaussian" if i % 3 else "dot"
        tilt = float(np.round(rng.uniform(tilt_lo, tilt_hi), 3)) if kernel == "dot" and i % 2 else 0.0
        q = float(np.round(rng.uniform(*X_RANGE), 2))
        logh = float(np.round(rng.uniform(np.log10(0.02), np.log10(20)), 2))
        logt = float(np.round(rng.uniform(-1.5, 1.5), 2))
        got = page.evaluate(SET_STATE_JS, [q, logh, logt, kernel, tilt])
        h, t = 10.0 ** got["logh"], 10.0 ** got["logt"]
        ks = attention.key_norm_tilt(d.x, tilt) if kernel == "dot" and tilt else None
        w = attention.weights(got["q"], d.x, kernel=kernel, bandwidth=h, temperature=t, key_scale=ks)
        pred = attention.predict(grid, d.x, d.y, kernel=kernel, bandwidth=h, temperature=t, key_scale=ks)
        ent = attention.entropy_bits(attention.weights(grid, d.x, kernel=kernel, bandwidth=h, temperature=t,
                                                       key_scale=ks))
        for name, a, b in (("weights", got["w"], w), ("prediction curve", got["pred"], pred),
                           ("entropy curve", got["ent"], ent)):
            err = float(np.max(np.abs(np.asarray(a) - b)))
            worst = max(worst, err)
            assert err <= 1e-9, (name, kernel, q, h, t, tilt, err)
    assert worst <= 1e-9
    assert watch.console_errors() == []
