// The guided tour's steps: what a step's goal compares and whether it holds, and the step a link opens.
//
// The regression's readouts a step compares, worked out from the document's widgets and dataset source with
// AttnMirror (twin of readouts in app/tour/model.py), compare and holds (twins of compare and holds there; the
// other sections' readouts come from the page's bus), and the link's tour value read and written back (twin of
// resolve_step).  The tour's engine (tour.js) runs after this file and dock.js, in one Bokeh CustomJS.

const AttnTourSteps = (function (M) {
  "use strict";

  // ---- the step's readouts (twin of readouts in app/tour/model.py) ---------------------------

  // The regression's settings a step may compare, read from its declared controls (app/tour/view.py
  // control_table; a check box's is not a name a step compares).
  function values(a, c) {
    const out = {};
    for (const t of c.cfg.controls) {
      if (t.prop !== "value") continue;
      const v = a.w[t.widget].value;
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
    return k.curves || (k.curves = M.gridCurves(c.grid, xs, ys, opt, c.cfg.sharp_weight));
  }

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

  // twin of compare in app/tour/model.py
  function compare(x, op, y, tol) {
    const exact = (v) => typeof v === "string" || typeof v === "boolean";
    if (exact(x) || exact(y)) {   // text and true/false: equal only in type and value (model.py compare)
      const same = typeof x === typeof y && x === y;
      return op === "==" ? same : op === "!=" ? !same : false;
    }
    const close = Math.abs(x - y) <= tol;
    switch (op) {
      case "<": return x < y && !close;
      case "<=": return x <= y || close;
      case ">": return x > y && !close;
      case ">=": return x >= y || close;
      case "==": return close;
      case "!=": return !close;
      default: return false;
    }
  }

  // Whether the step's goal holds, on its section's readouts (they say whether Play runs, too: twin of holds in
  // app/tour/model.py, whose Show-me check reads Play as stopped).
  function holds(a, c) {
    const step = c.cfg.steps[c.step - 1];
    if (!step) return false;
    const r = step.section === "regression" ? readouts(a, c, new Set(step.when.map((w) => w[0])))
      : c.sectionReadouts[step.section];
    if (!r) return false;
    c.last = r;
    return step.when.every(([name, op, v]) => r[name] !== undefined && compare(r[name], op, v, c.cfg.tolerance));
  }

  // A link's tour value: the step it opens and a notice when it had to be corrected (twin of resolve_step in
  // app/tour/model.py: a number 0 to n, or a step's id; anything else opens step 1 and says why).
  const ID = /^(?=[a-z0-9-]*[a-z])[a-z0-9]+(-[a-z0-9]+)*$/;
  function quoted(raw, L) {
    const cps = Array.from(raw);
    return `\u201c${cps.length <= L.shown_max ? raw : cps.slice(0, L.shown_max).join("") + "\u2026"}\u201d`;
  }
  function resolveStep(given, cfg) {
    const n = cfg.steps.length, L = cfg.link;
    if (given === null || given === undefined) return { k: 1, notice: null };
    const raw = String(given).replace(/^[ \t\n\r\f\v]+|[ \t\n\r\f\v]+$/g, "");
    if (raw === "") return { k: 1, notice: "Ignored an empty value for \u201ctour\u201d." };
    if (/^[0-9]+$/.test(raw)) {
      const v = Number(raw);
      if (v <= n) return { k: v, notice: null };
      return { k: 1, notice: `There is no step ${raw.replace(/^0+(?=\d)/, "")} in this tour (it has ${n} step${n === 1 ? "" : "s"}); showing step 1.` };
    }
    const low = raw.replace(/[A-Z]/g, (ch) => ch.toLowerCase());
    const at = cfg.steps.findIndex((s) => s.id === low);
    if (at >= 0) return { k: at + 1, notice: null };
    if (ID.test(low) && low.length <= L.max_id) return { k: 1, notice: `There is no step ${quoted(raw, L)} in this tour; showing step 1.` };
    return { k: 1, notice: `Ignored tour=${quoted(raw, L)}: expected a step's number (0 to ${n}) or its id, such as ` +
                           `\u201c${L.first_id}\u201d; showing step 1.` };
  }
  function stepFromUrl(cfg) {
    let vals = [];
    try { vals = new URLSearchParams(window.location.search).getAll("tour"); } catch (e) { vals = []; }
    return resolveStep(vals.length ? vals[vals.length - 1] : null, cfg);
  }

  function writeUrl(c) {   // not in a notebook, whose address is JupyterLab's (see app/page.py)
    if (!c.urlArmed || globalThis.__attnHostOwnsAddress === true) return;
    try {
      const out = new URLSearchParams(window.location.search);
      const k = c.visible ? c.step : 0;
      if (k === 1) out.delete("tour"); else out.set("tour", k === 0 ? "0" : c.cfg.steps[k - 1].id);
      const q = out.toString();
      window.history.replaceState(null, "", (q ? "?" + q : window.location.pathname) + window.location.hash);
    } catch (e) { /* a sandboxed frame may refuse; the tour works without it */ }
  }

  return { readouts, compare, holds, resolveStep, stepFromUrl, writeUrl };
})(AttnMirror);
