// The regression section's plots: what is computed (with AttnMirror) and drawn at a query, for a bandwidth and a
// kernel, and for new data, from the cheapest (every pointer move) up.  A drag draws at most one query a frame.

const RegressionViews = (function (M, U, R) {
  "use strict";

  const clamp = U.clamp, setWidget = U.setWidget;
  const { queryTexts, looHere, errorText, showNotices, showError } = R;

  function options(c) {
    const kernel = c.kernel;
    const keyScale = kernel === "dot" && c.key_norm !== 0 ? M.keyNormTilt(c.x, c.key_norm) : null;
    return { kernel, bandwidth: c.h, temperature: c.t, keyScale, tilt: keyScale ? c.key_norm : 0 };
  }

  // ---- computations, from the cheapest (every pointer move) up ---------------

  // The kernel's shape around the query, drawn through the tops of the weight stems: at position x' it is the
  // largest weight times exp((score(q, x') - score(q, x_top)) / T), the weight a key at x' would get beside the
  // heaviest one.  With a key-norm tilt, a key at x' has the tilt's length there (keyNormTilt's factor, continued
  // between the samples), so the curve shows why a far, long key can win.
  function kernelShape(grid, q, xs, opt, peak, top) {
    const h = opt.bandwidth, t = opt.temperature, ky = new Float64Array(grid.length), xt = xs[top];
    if (opt.kernel === "gaussian") {
      const st = -((q - xt) ** 2) / (2 * h * h);
      for (let i = 0; i < grid.length; i++) ky[i] = peak * Math.exp((-((grid[i] - q) ** 2) / (2 * h * h) - st) / t);
      return ky;
    }
    const R = M.circleRadius(xs), c = 2.0 ** 0.25 / h, a0 = q / R;
    const q0 = c * (R * Math.cos(a0)), q1 = c * (R * Math.sin(a0));
    let lo = Infinity, hi = -Infinity;
    for (const x of xs) { if (x < lo) lo = x; if (x > hi) hi = x; }
    const strength = opt.keyScale ? opt.tilt : 0;
    const scale = (x) => (strength && hi > lo ? Math.exp(strength * (2 * (x - lo) / (hi - lo) - 1)) : 1);
    const score = (x) => { const a = x / R; return (q0 * (c * (R * Math.cos(a))) + q1 * (c * (R * Math.sin(a)))) * scale(x) / Math.sqrt(2); };
    const st = score(xt);
    for (let i = 0; i < grid.length; i++) ky[i] = peak * Math.exp((score(grid[i]) - st) / t);
    return ky;
  }

  // Entropy against bandwidth at this query, T folded into h (the h axis is h * sqrt(T)): T = 1 at every h.
  // (AttnMirror.entropyAgainstH: one exponential per key and bandwidth, at every pointer move)
  function entropyAtQuery(q, xs, hgrid, opt) {
    return M.entropyAgainstH(q, xs, hgrid, opt);
  }

  function queryViews(a, c) {
    const opt = options(c), q = c.query;
    const r = M.readout(q, c.x, c.y, opt, c.fn);
    c.last = r;
    c.drawnQuery = q;
    const w = r.weights, n = c.x.length, mx = r.max_weight, sc = c.scale * markerScale(n);
    // (typed arrays: BokehJS looks through a plain array's every element for models when it is set)
    const size = new Float64Array(n), wn = new Float64Array(n);
    let top = 0;
    for (let j = 0; j < n; j++) { wn[j] = w[j] / mx; size[j] = sc * (4 + 18 * Math.sqrt(wn[j])); if (w[j] > w[top]) top = j; }
    a.samples.data = { x: c.xs, y: c.ys, w: Float64Array.from(w), wn, size, alpha: c.alpha };
    drawSamples(a, c, w, wn, size);
    weightAxis(a, c, mx, n);

    if (c.kernel_shape) {   // the check box "show the kernel's shape" (state.py CONTROLS)
      const kx = c.grid, ky = kernelShape(kx, q, c.x, opt, mx, top);
      a.kshape.data = { x: Float64Array.from(kx), k: Float64Array.from(ky) };
    } else if (a.kshape.data.x.length) a.kshape.data = { x: [], k: [] };

    const pts = { x: [q], y: [r.prediction], label: ["prediction"] };
    a.qpred.data = pts;
    a.qtrue.data = r.true_value === null ? { x: [], y: [] } : { x: [q], y: [r.true_value] };
    setWidget(a.span_main, "location", q);
    if (a.qline.data.x[0] !== q) a.qline.data = { x: [q] };
    // The plot under the pointer is painted as soon as BokehJS has taken in its new data, before the
    // frame; the others (the weights, the two entropy plots) paint at the frame.
    U.paintSoon(a.figs[0]);

    // entropy against bandwidth at this query (T folded into h: the h axis is h * sqrt(T)), once its plot is drawn
    if (U.plotView(a.figs[3])) a.hent.data = { h: c.hlist, ent: entropyAtQuery(q, c.x, c.hgrid, opt) };
    else c.hentStale = true;
    // The HTML (the slider, the readouts, the caption) changes after the plots have painted (U.afterPaint).
    U.afterPaint(c, "query texts", () => queryTexts(a, c, r), (e) => showError(a, e));
  }

  // What the plots draw of the samples at this query.  The weights plot: every stem (from 0 to the weight) and
  // every stem's top in one line each, NaN between samples: one canvas path each, whatever n.  The main plot:
  // a marker per sample up to cfg.dots_above_n samples; beyond, dots grouped by how they look (their colour,
  // which the palette bins by normalised weight, and their width, rounded to a step of a twenty-fourth of its
  // range), each group one canvas path of round-capped strokes a tenth of a pixel long, lightest group first.
  // At 2000 samples that is about 30 paths for a move instead of 4000 arcs.
  const DOT_STEPS = 24;
  function onWhite(hex, alpha) {     // "#rrggbb" painted with this alpha on white, as an opaque colour
    const v = (i) => Math.round(255 - alpha * (255 - parseInt(hex.slice(i, i + 2), 16)));
    return `rgb(${v(1)}, ${v(3)}, ${v(5)})`;
  }
  function drawSamples(a, c, w, wn, size) {
    const n = c.x.length, xs = c.x, nan = NaN;
    const span = c.cfg.x_range[1] - c.cfg.x_range[0], dx = 2e-5 * span;   // ~ a tenth of a pixel
    if (c.stemsOf !== c.xs) {   // the x columns of the stems and their tops follow the data, not the query
      const sx = new Float64Array(3 * n);
      for (let j = 0, k = 0; j < n; j++, k += 3) { sx[k] = sx[k + 1] = xs[j]; sx[k + 2] = nan; }
      const tx = sx.slice();
      for (let k = 1; k < tx.length; k += 3) tx[k] += dx;
      c.stemsOf = c.xs; c.stemX = sx; c.topX = tx;
    }
    const sy = new Float64Array(3 * n), ty = new Float64Array(3 * n);
    for (let j = 0, k = 0; j < n; j++, k += 3) {
      sy[k] = 0; sy[k + 1] = w[j]; sy[k + 2] = nan;
      ty[k] = ty[k + 1] = w[j]; ty[k + 2] = nan;
    }
    a.stems.data = { x: c.stemX, y: sy };
    a.stem_tops.data = { x: c.topX, y: ty };
    if (n <= c.cfg.dots_above_n) {
      a.marks.data = { x: c.xs, y: c.ys, wn, size, alpha: c.alpha };
      if (a.dots.data.xs.length) a.dots.data = { xs: [], ys: [], width: [], color: [], alpha: [] };
      return;
    }
    if (a.marks.data.x.length) a.marks.data = { x: [], y: [], wn: [], size: [], alpha: [] };
    const pal = c.cfg.palette, P = pal.length, sc = c.scale * markerScale(n), groups = new Map();
    for (let j = 0; j < n; j++) {
      const ci = Math.min(P - 1, Math.max(0, Math.floor(wn[j] * P)));    // LinearColorMapper's bin, low 0 high 1
      const si = Math.round(Math.sqrt(Math.max(0, wn[j])) * DOT_STEPS), key = ci * (DOT_STEPS + 1) + si;
      let g = groups.get(key);
      if (!g) groups.set(key, g = { key, ci, si, x: [], y: [] });
      g.x.push(xs[j], xs[j] + dx, nan); g.y.push(c.y[j], c.y[j], nan);
    }
    const alpha = markerAlpha(n), d = { xs: [], ys: [], width: [], color: [], alpha: [] };
    const put = (g, width, color, al) => { d.xs.push(g.x); d.ys.push(g.y); d.width.push(width); d.color.push(color); d.alpha.push(al); };
    // each group: its dark rim (the markers' half-pixel outline, faint as theirs), then its colour inside,
    // opaque so that the rim shows only as a ring, and as strong as two faint markers on top of each other
    // look (where the samples crowd, as they do when there are this many)
    for (const g of Array.from(groups.values()).sort((p, q) => p.key - q.key)) {
      const size = sc * (4 + 18 * g.si / DOT_STEPS);           // the marker's width, as for the markers
      g.x = Float64Array.from(g.x); g.y = Float64Array.from(g.y);
      put(g, size + 0.5, "#222222", alpha);
      put(g, Math.max(0.5, size - 0.5), onWhite(pal[g.ci], 1 - (1 - alpha) ** 2), 1);
    }
    a.dots.data = d;
  }

  // The weights plot's y axis (view.py WEIGHT_AXIS_FIXED_UP_TO_N and the rest): 0 to 1 up to so many samples of the
  // shipped or generated data; beyond, and on your own data, 0 to the largest weight rounded up to a step, kept while the largest weight fills enough of it, so a drag does
  // not flicker between two steps.  The title says which; the range, ticks and title change only with the top.
  function weightAxis(a, c, mx, n) {
    const cfg = c.cfg.weight_axis, fig = a.figs[1];
    if (!cfg || !fig || !(mx > 0)) return;
    let top = 1;
    if (n > cfg.fixed_up_to_n || c.units) {
      top = c.weightTop;
      if (!(c.weightTopN === (c.units ? -n : n) && mx <= top && mx >= cfg.keep * top)) top = niceTop(mx, cfg.steps);
    }
    c.weightTopN = c.units ? -n : n;   // (your data and shipped data of one size keep no top across them)
    if (top === c.weightTop && fig.y_range.end === top * cfg.pad) return;
    c.weightTop = top;
    setWidget(fig.y_range, "end", top * cfg.pad);
    const ticker = fig.left[0] && fig.left[0].ticker;
    if (ticker) ticker.ticks = top === 1 ? [0, 0.5, 1] : [0, top / 2, top];
    setWidget(fig.title, "text", top === 1 ? cfg.titles.fixed : cfg.titles.zoomed.replace("{top}", U.plain(top, 2)));
  }

  // The smallest step (times a power of ten) at or above w > 0: 0.0106 -> 0.015 with steps 1, 1.5, 2, 3, ...
  function niceTop(w, steps) {
    const p = 10 ** Math.floor(Math.log10(w));
    const s = steps.find((k) => k * p >= w * (1 - 1e-12)) || steps[steps.length - 1];
    return Math.min(1, Number((s * p).toPrecision(12)));
  }

  // Many samples stay readable: smaller, fainter markers as n grows (the curve draws above them).
  function markerScale(n) { return clamp(Math.sqrt(40 / n), 0.3, 1); }
  function markerAlpha(n) { return clamp(Math.sqrt(60 / n), 0.3, 0.9); }

  function kernelViews(a, c) {
    c.curvesLater = (c.curvesLater || 0) + 1;   // a pending one (dataViews) is not needed any more
    const opt = options(c);
    // the curves over x and their facts from one set of weights per grid point
    const { pred, ent, nn, facts } = M.gridCurves(c.grid, c.x, c.y, opt, c.cfg.limits.sharp_weight,
      c.cfg.limits.flat_tol);
    const f = M.trueFunction(c.fn);
    const eff = Array.from(ent, (e) => 2 ** e);
    a.curve.data = {
      x: Array.from(c.grid), pred: Array.from(pred), ent: Array.from(ent), eff, nn: Array.from(nn),
      truth: f ? Array.from(c.grid, f) : Array.from(c.grid, () => NaN),
    };
    c.curveFacts = facts;
    const heff = c.h * Math.sqrt(c.t);
    for (const s of [a.hspan_ent, a.hspan_bv]) setWidget(s, "location", heff);
    errorText(a, c);
    looHere(a, c);
    queryViews(a, c);
  }

  // Whether a plot that draws the error curves is drawn: the bias-variance plot, or else another section's that
  // draws the same source (the learning section's descent on h, alone in a short frame; looked for only then).
  function errorsDrawn(a) {
    if (U.plotView(a.figs[4])) return true;
    const doc = a.hcurve.document;
    return !!doc && Array.from(doc.all_models).some((m) => Array.isArray(m.renderers) &&
      m.renderers.some((r) => r.data_source === a.hcurve) && !!U.plotView(m));
  }

  // Leave-one-out error, bias² and variance against h (at T = 1): they follow the data and the kernel only.
  // A large dataset's curves (2000 samples: 2000 x 2000 pairs at each of 61 bandwidths) are worked out in a Web
  // Worker, so the drag stays smooth meanwhile; a small one's on the spot.
  function errorCurves(a, c) {
    c.hcurveStale = false;
    const payload = { x: c.x, y: c.y, fn: c.fn, noise: c.noise, hs: c.hlist, kernel: c.kernel,
                      tilt: c.kernel === "dot" ? c.key_norm : 0 };
    const token = c.curvesToken = (c.curvesToken || 0) + 1;   // only the latest request's answer is shown
    const show = (cols) => {
      if (token !== c.curvesToken) return;
      c.hcols = cols;
      a.hcurve.data = Object.assign({ h: c.hlist }, cols);
      errorText(a, c);
    };
    if (c.x.length <= c.cfg.worker_above_n) { show(M.errorCurves(payload)); return; }
    const nan = c.hlist.map(() => NaN), shown = a.hcurve.data.loo;
    if (!(shown.length === nan.length && shown.every(Number.isNaN)))   // (new data cleared them already)
      show({ loo: nan, bias2: nan, variance: nan, error: nan });   // until the worker answers
    const key = `error-curves:${a.hcurve.id}`;   // this page's run: a newer one cancels it
    const ask = (job) => job.promise.then(show, (e) => {
      if (e.reason === "unavailable") return ask(AttnWorker.runHere(M.errorCurves, payload, { key }));
      if (e.reason !== "cancelled") showNotices(a, [e.message]);
    });
    ask(AttnWorker.run(AttnWorker.modules(c.cfg.worker_modules), "AttnMirror.errorCurves", payload, { key }));
  }

  // New data: the samples first, then the curves.  With many samples (more than worker_above_n) the curves
  // over x take longest (400 points x n keys), so the samples and the query are drawn at once and the curves
  // a frame later, in their own task: the student sees the new data while the curves are worked out.  Until
  // then no curve is shown (the old one would lie about the new data) and no notice that reads the curve.
  // The error curves against h (worked out by a Worker for so many samples) are asked for in that later task
  // too: starting a Worker costs the click several milliseconds, and their plot sits far below the samples.
  function dataViews(a, c) {
    c.viewedData = a.ds.data;
    const errors = () => { if (errorsDrawn(a)) errorCurves(a, c); else c.hcurveStale = true; };
    setWidget(a.mean_span, "location", M.mean(c.y));
    const token = c.curvesLater = (c.curvesLater || 0) + 1;
    if (c.x.length <= c.cfg.worker_above_n || typeof requestAnimationFrame !== "function") {
      errors();
      kernelViews(a, c);
      return;
    }
    a.curve.data = { x: [], pred: [], ent: [], eff: [], nn: [], truth: [] };
    c.curvesToken = (c.curvesToken || 0) + 1;   // an answer still coming for the old data is not shown
    if (a.hcurve.data.loo.length) {   // the old errors would lie about the new data until the Worker answers
      const nan = c.hlist.map(() => NaN);
      a.hcurve.data = { h: c.hlist, loo: nan, bias2: nan, variance: nan, error: nan };
      errorText(a, c);
    }
    c.curveFacts = null;
    queryViews(a, c);
    // (counted with the texts still to come: scripts and tests that wait for the page's texts wait for these too)
    globalThis.__attnTextsPending = (globalThis.__attnTextsPending || 0) + 1;
    requestAnimationFrame(() => setTimeout(() => {
      try {
        if (token === c.curvesLater) U.runGuarded(c, () => { errors(); kernelViews(a, c); }, (e) => showError(a, e));
      } finally {
        globalThis.__attnTextsPending -= 1;
      }
    }, 0));
  }

  // New data written by this engine: drawn here, once (a generated n = 2000 costs about 20 ms a drawing).  The
  // data source's change, which this engine hears too (a notebook's or a script's new data), comes after this
  // task and finds it drawn; should it come first, it draws the data and this finds it drawn.
  function newDataViews(a, c) {
    if (c.viewedData !== a.ds.data) dataViews(a, c);
  }

  // A drag draws at most one query per frame: a move that arrives after this frame's drawing is kept, and
  // the latest one is drawn at the next frame (a mouse may report moves faster than the screen shows them).
  function setQuery(a, c, x) {
    if (!isFinite(x)) return;
    c.query = clamp(x, c.cfg.x_range[0], c.cfg.x_range[1]);
    if (c.moveFrame) { c.moveLater = c.query !== c.drawnQuery; return; }
    queryViews(a, c);
    if (typeof requestAnimationFrame !== "function") return;
    c.moveFrame = requestAnimationFrame(() => {
      c.moveFrame = null;
      if (!c.moveLater) return;
      c.moveLater = false;
      U.runGuarded(c, () => setQuery(a, c, c.query), (e) => showError(a, e));
    });
  }

  return { options, kernelShape, entropyAtQuery, markerAlpha, niceTop, queryViews, kernelViews, errorCurves, errorsDrawn, dataViews, newDataViews,
           setQuery };
})(AttnMirror, AttnCommon, RegressionQueryTexts);
