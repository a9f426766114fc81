// The regression's readouts for a tour step's goal (twin of regression_readouts in readouts.py), worked out with
// AttnMirror when the tour asks (AttnCommon.askReadouts): the numbers of the query now, of the curve along x and
// of the leave-one-out error cost too much to work out at every move of a drag for a goal that may not need them.

const RegressionReadouts = (function (M) {
  "use strict";

  // The settings a step may compare, read from the section's declared controls as they are now (a tour's glide
  // moves them: the engine's own state may follow a frame later; a check box's is not a name a step compares).
  function values(a, c) {
    const out = {};
    for (const t of c.cfg.settings) {
      const v = a["w_" + t.widget].value;
      out[t.key] = t.log ? 10 ** v : v;
    }
    return out;
  }

  // The lowest leave-one-out error over the tour's grid of bandwidths, once per dataset and kernel.  The Gaussian
  // kernel's comes from the windowed sums of training (AttnTrain.lowestLoo: at 2000 samples the full n x n sums
  // at 241 bandwidths held the page for a minute); the dot-product kernel's from the full sums.
  function looCache(c, xs, ys, kernel, keyNorm, ks) {
    const key = kernel + "|" + keyNorm;
    if (!c.loo || c.loo.xs !== xs || c.loo.key !== key) {
      const sorted = kernel === "gaussian" ? AttnTrain.sortedData(xs, ys) : null;
      let best = Infinity;
      if (sorted) best = AttnTrain.lowestLooSorted(sorted, c.cfg.loo_grid);
      else for (const e of M.looError(xs, ys, c.looGrid, { kernel, bandwidth: 1, temperature: 1, keyScale: ks })) best = Math.min(best, e);
      c.loo = { xs, key, best, sorted };
    }
    return c.loo;
  }

  // The curves over x follow the data, the kernel, h and T, never the query: worked out once for them, not at
  // every move of a drag (at 2000 samples the facts alone weigh 400 x 2000 weights).
  function alongX(c, xs, ys, v, opt) {
    const key = [v.kernel, v.key_norm, v.bandwidth, v.temperature].join("|");
    if (!c.alongX || c.alongX.xs !== xs || c.alongX.ys !== ys || c.alongX.key !== key)
      c.alongX = { xs, ys, key, curves: null };
    const k = c.alongX;
    // the prediction and the facts from one set of weights per grid point (AttnMirror.gridCurves)
    return k.curves || (k.curves = M.gridCurves(c.grid, xs, ys, opt, c.cfg.limits.sharp_weight, c.cfg.limits.flat_tol));
  }

  // The names of ``needs`` (a Set) and the cheap ones, for the section's state now.
  function readouts(a, c, needs) {
    const v = values(a, c), xs = a.ds.data.x, ys = a.ds.data.y;
    const ks = v.kernel === "dot" && v.key_norm !== 0 ? M.keyNormTilt(xs, v.key_norm) : null;
    const opt = { kernel: v.kernel, bandwidth: v.bandwidth, temperature: v.temperature, keyScale: ks };
    const r = M.readout(v.query, xs, ys, opt, null), w = r.weights;
    let top = 0, near = Infinity;
    for (let j = 0; j < w.length; j++) if (w[j] > w[top]) top = j;
    for (const x of xs) near = Math.min(near, Math.abs(x - v.query));
    const out = Object.assign(v, {
      h_eff: v.bandwidth * Math.sqrt(v.temperature), n: r.n, max_weight: r.max_weight,
      entropy_bits: r.entropy_bits, effective_points: r.effective_points,
      effective_share: r.effective_points / r.n, prediction: r.prediction, global_mean: r.global_mean,
      winner_gap: Math.abs(xs[top] - v.query) - near,
    });
    if (needs.has("curve_range")) {
      const pred = alongX(c, xs, ys, v, opt).pred;
      let lo = Infinity, hi = -Infinity, ylo = Infinity, yhi = -Infinity;
      for (const p of pred) { lo = Math.min(lo, p); hi = Math.max(hi, p); }
      for (const v of ys) { ylo = Math.min(ylo, v); yhi = Math.max(yhi, v); }
      out.curve_range = yhi > ylo ? (hi - lo) / (yhi - ylo) : 0;
    }
    if (needs.has("curve_winners") || needs.has("nearest_share") || needs.has("sharp_share")) {
      const f = alongX(c, xs, ys, v, opt).facts;
      Object.assign(out, { curve_winners: f.winners, nearest_share: f.nearest_share, sharp_share: f.sharp_share });
    }
    if (needs.has("loo_excess")) {
      const o = { kernel: v.kernel, bandwidth: out.h_eff, temperature: 1, keyScale: ks };
      const loo = looCache(c, xs, ys, v.kernel, v.key_norm, ks);
      const here = loo.sorted ? AttnTrain.evaluate(loo.sorted, Math.log(out.h_eff), 1).loss : M.looError(xs, ys, [out.h_eff], o)[0];
      const best = Math.min(loo.best, here);
      out.loo_excess = best > 0 ? here / best - 1 : 0;
    }
    return out;
  }


  // Offer them on the page's bus, for the tour; the section's own cache keeps their costly parts.
  function offer(a, c) {
    const own = { cfg: c.cfg, grid: c.grid, looGrid: M.geomspace(c.cfg.loo_grid[0], c.cfg.loo_grid[1], c.cfg.loo_grid[2]) };
    AttnCommon.offerReadouts(a.ds.document, "regression", (needs) => readouts(a, own, needs || new Set()));
  }

  return { readouts, offer };
})(AttnMirror);
