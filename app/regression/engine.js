// The regression section's engine: runs in the browser on every gesture.
//
// One Bokeh CustomJS holds this file (after ui/mirror.js, ui/theme.js and ui/common.js) and is attached to every
// control, the query line and the main plot's pan/tap events, so the served
// page and the offline file behave identically.  It reads the state from the
// widgets, computes with AttnMirror and writes the plots' data sources and the
// readout texts.  Nothing the user types is ever inserted as HTML: every text
// goes through esc().

const Explorable = (function (M, U) {
  "use strict";

  const esc = U.esc, fixed = U.fixed, signed = U.signed, plain = U.plain, clamp = U.clamp;
  const setWidget = U.setWidget, setHtml = U.setHtml, quiet = U.quiet;

  // ---- the words (twins of app/regression/text.py) ---------------------------

  function similarityWords(kernel, keyNorm) {
    if (kernel === "gaussian") return "a Gaussian similarity";
    if (!keyNorm) return "a dot-product similarity on circle keys of equal length";
    return `a dot-product similarity on circle keys with key-norm tilt ${signed(keyNorm, 2)}, so keys further ` +
      `${keyNorm > 0 ? "right" : "left"} are longer`;
  }

  // units: on your own data, the query and h as the data's units write them (unitsWords); null otherwise
  function caption(r, kernel, h, t, keyNorm, units) {
    const sim = similarityWords(kernel, keyNorm || 0);
    const temp = t === 1 ? "" : `, T = ${plain(t, 3)}`;
    const truth = r.true_value === null ? "" : ` (true value ${signed(r.true_value, 2)})`;
    const where = units ? `${units.x_name} = ${units.query}` : `x = ${signed(r.query, 2)}`;
    const hw = units ? `${units.h} on the ${units.x_name} axis` : plain(h, 3);
    return `A query at ${where} averages the ${r.n} samples with softmax weights of ${sim} ` +
      `(h = ${hw}${temp}). The largest weight is ${fixed(r.max_weight, 3)}, the weights spread over about ` +
      `${fixed(r.effective_points, 1)} effective points, and the prediction is ${signed(r.prediction, 2)}${truth}.`;
  }

  // The sample with the largest weight, and whether it is (one of) the nearest to the query
  // (twin of heaviest_sample in app/regression/text.py).
  function heaviestSample(q, xs, ys, w) {
    let i = 0, nearest = Infinity;
    for (let j = 0; j < w.length; j++) if (w[j] > w[i]) i = j;
    for (const k of xs) nearest = Math.min(nearest, Math.abs(k - q));
    return { x: xs[i], y: ys[i], index: i, nearest: Math.abs(xs[i] - q) <= nearest + 1e-9 };
  }

  // limits: the thresholds of app/regression/text.py (config.limits).  Every claim is checked against the
  // numbers: `heaviest` at the query, `curve` along the prediction curve (AttnMirror.curveFacts).
  // at: how a sample's position is written ("x = 2.10" by default; on your own data, in its units)
  function limitNotices(r, heaviest, curve, limits, keyNorm, at) {
    const out = [], mw = `Max weight ${fixed(r.max_weight, 3)}`;
    const why = "a dot product rewards a key's length as well as its direction";
    if (r.max_weight >= limits.one_sample) {
      const hx = (at || ((v) => `x = ${signed(v, 2)}`))(heaviest.x), hy = signed(heaviest.y, 2);
      const flat = curve.sharp_share >= limits.sharp_share;
      if (curve.winners === 1) {
        const where = heaviest.nearest ? " (here it is also the nearest sample)" : ", which is not the nearest one";
        const words = flat ? `The prediction curve is flat at its value, ${hy}.` : `The prediction curve leans towards its value, ${hy}.`;
        out.push(`${mw}, on the sample at ${hx}${where}: its key is longer than the keys nearer the query, ` +
          `and ${why}, so this sample wins wherever the query is. ${words}`);
      } else if (heaviest.nearest && curve.nearest_share >= 1.0) {
        out.push(flat ? `${mw}: the query copies its nearest sample (1-nearest-neighbour), and the prediction curve turns into steps.`
          : `${mw}: the query copies its nearest sample (1-nearest-neighbour) here; elsewhere along x the weights still spread over more than one sample.`);
      } else if (heaviest.nearest) {
        out.push(`${mw}: the query copies its nearest sample here, but elsewhere along x a longer key further ` +
          `${keyNorm > 0 ? "right" : "left"} wins over nearer ones, because ${why}.`);
      } else {
        out.push(`${mw}, on the sample at ${hx}, which is not the nearest one: its key is longer than the keys ` +
          `nearer the query, and ${why}. The prediction is close to that sample's value, ${hy}.`);
      }
    }
    if (r.effective_points >= limits.near_uniform * r.n)
      out.push(`${fixed(r.effective_points, 1)} of ${r.n} effective points: the weights are nearly uniform, ` +
        `so the prediction flattens toward the global mean (${signed(r.global_mean, 2)}).`);
    return out;
  }

  // ---- state -----------------------------------------------------------------

  function cacheFor(a) { return U.pageState("__attnExplorableCache", a.ds); }

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

    const kx = c.grid, ky = kernelShape(kx, q, c.x, opt, mx, top);
    a.kshape.data = { x: Float64Array.from(kx), k: Float64Array.from(ky) };

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

  function queryTexts(a, c, r) {
    const q = r.query, n = c.x.length, w = r.weights, u = c.units;
    // (a newer query, waiting for the next frame, writes the slider when it is drawn: this one is stale)
    if (a.w_query.value !== q && c.query === q) { quiet(a.w_query, "value", q); c.queryDirty = true; c.sliderWrite = q; }
    const err = r.true_value === null ? null : r.prediction - r.true_value;
    const row = (k, v, extra) => `<tr><th scope="row">${k}</th><td>${v}</td>${extra ? `<td class="extra">${extra}</td>` : "<td></td>"}</tr>`;
    setHtml(a.strip_div, `<p class="strip">max weight <b>${fixed(r.max_weight, 3)}</b> \u00b7 effective points ` +
      `<b>${fixed(r.effective_points, 1)}</b> of ${n} \u00b7 prediction <b>${signed(r.prediction, 2)}</b></p>`);
    // on your own data no true f(x) is known: the error is the leave-one-out error at h·√T (looHere)
    const truth = u ? row(esc(c.cfg.own.loo), c.looHere === null ? "\u2026" : plain(c.looHere, 3))
      : row("true f(x)", r.true_value === null ? "unknown" : signed(r.true_value, 2)) +
        row("error", err === null ? "\u2013" : signed(err, 2));
    setHtml(a.readout_div,
      `<table class="readouts" aria-label="readouts">` +
      row("max weight", fixed(r.max_weight, 3)) +
      row("entropy", `${fixed(r.entropy_bits, 2)} bits`, `of ${fixed(Math.log2(n), 2)}`) +
      row("effective points", fixed(r.effective_points, 1), `of ${n}`) +
      row(u ? `prediction (${esc(u.yName)})` : "prediction", signed(r.prediction, 2)) + truth +
      `</table>`);
    const tilt = c.kernel === "dot" ? c.key_norm : 0;
    setHtml(a.caption_div, `<p class="caption">${esc(caption(r, c.kernel, c.h, c.t, tilt, u ? unitsWords(c, q, c.h) : null))}</p>`);
    announce(a, c, r);
    const at = u ? (v) => `${u.xName} = ${unitText(D.toUnits(u.scale, v), u.span)}` : undefined;
    const notes = c.curveFacts ? limitNotices(r, heaviestSample(q, c.x, c.y, w), c.curveFacts, c.cfg.limits, tilt, at) : [];
    setHtml(a.limits_div, notes.map((s) => `<p class="limit">${esc(s)}</p>`).join(""));
    scheduleUrl(a, c);
  }

  // Screen readers hear the readouts politely, and not at every frame of a drag: the live region is written
  // once the numbers have rested for ANNOUNCE_MS, and at most once every ANNOUNCE_MAX_MS while they keep moving.
  const ANNOUNCE_MS = 600, ANNOUNCE_MAX_MS = 2000;
  function announce(a, c, r) {
    c.toAnnounce = `max weight ${fixed(r.max_weight, 3)}, effective points ${fixed(r.effective_points, 1)} of ` +
      `${r.n}, prediction ${signed(r.prediction, 2)}`;
    const now = performance.now();
    if (c.announceTimer) clearTimeout(c.announceTimer);
    const say = () => { c.announceTimer = null; c.announcedAt = performance.now(); setHtml(a.announce_div, `<p>${esc(c.toAnnounce)}</p>`); };
    if (c.announcedAt !== undefined && now - c.announcedAt >= ANNOUNCE_MAX_MS) { say(); return; }
    c.announceTimer = setTimeout(say, ANNOUNCE_MS);
  }

  function kernelViews(a, c) {
    c.curvesLater = (c.curvesLater || 0) + 1;   // a pending one (dataViews) is not needed any more
    const opt = options(c);
    // the curves over x and their facts from one set of weights per grid point
    const { pred, ent, nn, facts } = M.gridCurves(c.grid, c.x, c.y, opt, c.cfg.limits.sharp_weight);
    const f = M.trueFunction(c.fn);
    const eff = Array.from(ent, (e) => 2 ** e);
    a.curve.data = {
      x: Array.from(c.grid), pred: Array.from(pred), ent: Array.from(ent), eff, nn: Array.from(nn),
      truth: f ? Array.from(c.grid, f) : Array.from(c.grid, () => NaN),
    };
    c.curveFacts = facts;
    const heff = c.h * Math.sqrt(c.t);
    for (const s of [a.hspan_ent, a.hspan_bv]) setWidget(s, "location", heff);
    looHere(a, c);
    queryViews(a, c);
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
    const errors = () => { if (U.plotView(a.figs[4])) errorCurves(a, c); else c.hcurveStale = true; };
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

  // ---- inputs ----------------------------------------------------------------

  // Many samples stay readable: smaller, fainter markers as n grows (the curve draws above them).
  function markerScale(n) { return clamp(Math.sqrt(40 / n), 0.3, 1); }
  function markerAlpha(n) { return clamp(Math.sqrt(60 / n), 0.3, 0.9); }

  function loadData(a, c) {
    c.loadedData = a.ds.data;
    c.x = Array.from(a.ds.data.x);
    c.y = Array.from(a.ds.data.y);
    const n = c.x.length;
    c.xs = Float64Array.from(c.x); c.ys = Float64Array.from(c.y);    // what the plots are handed
    c.alpha = new Float64Array(n).fill(markerAlpha(n));
    // honest scales: entropy runs from 0 (one sample) to log2 n (uniform), whatever the query
    if (a.ent_range) {
      const top = Math.log2(Math.max(n, 2));
      setWidget(a.ent_range, "start", 0);
      setWidget(a.ent_range, "end", top * 1.04);
    }
    let meta = {};
    try { meta = JSON.parse(a.ds.tags[0] || "{}"); } catch (e) { meta = {}; }
    c.fn = meta.function || null;
    c.noise = meta.noise === undefined ? null : meta.noise;
    c.describe = meta.description || "";
    c.units = meta.name === "yours" && meta.scale ? unitsOf(a, meta) : null;
    c.looHere = null;
    const scaled = c.units && c.units.scale.sentence ? `<p class="dataset">${esc(c.units.scale.sentence)}</p>` : "";
    // straight into the page: a Div's new text through Bokeh re-lays out the whole document (300-700 ms here)
    if (a.dataset_div) setHtml(a.dataset_div, `<p class="dataset">${esc(c.describe)}</p>${scaled}`);
    showYoursAround(a, c);
  }

  function swapDataset(a, c, name) {
    const d = c.cfg.datasets[name];
    if (!d) return false;
    a.ds.tags = [JSON.stringify({ name, function: d.function, noise: d.noise, description: d.description })];
    a.ds.data = { x: d.x, y: d.y };
    if (c.loadedData !== a.ds.data) loadData(a, c);
    return true;
  }


  // ---- your own data ------------------------------------------------------------------------------------
  //
  // An instructor's x, y pairs (pasted, dropped or chosen under "More controls", in the link's fragment
  // "#data1.…", carried by the page itself, or handed over by a notebook's e.data) become the dataset "yours".
  // ds holds x on the sliders' scale (AttnUserData.scaleFor: 0 … 6 when the data lie elsewhere), y as given
  // and xu, x in its own units; its tag names the columns and holds the scale.  Everything computes on the
  // sliders' scale, as for any dataset (weights, entropy and errors do not change under that map when h follows
  // it); the axes, the sliders and the texts write the data's units (relabel, unitText, lengthText).  A bad
  // input gets its one sentence (AttnUserData's) under the box, and the page keeps what it showed.

  const D = typeof AttnUserData !== "undefined" ? AttnUserData : null;   // ui/userdata.js, in this engine's code

  function own(c, key, vals) {
    let t = c.cfg.own[key];
    for (const [k, v] of Object.entries(vals || {})) t = t.split(`{${k}}`).join(String(v));
    return t;
  }

  // A position in the data's units: decimals that tell apart two positions a six-hundredth of the data's span
  // apart; a length (a bandwidth): three significant digits.  Never exponent notation.  (Twins of unit_text and
  // length_text in app/regression/text.py.)
  function unitDecimals(span) { return clamp(Math.ceil(-Math.log10(span / 600)), 0, 12); }
  function unitText(v, span) { return signed(v, unitDecimals(span)); }
  function lengthText(v) {
    if (v >= 1e-4 || v <= 0) return plain(v, 3);
    return fixed(v, Math.min(2 - Math.floor(Math.log10(v)), 20));
  }

  function unitsWords(c, q, h) {
    const u = c.units;
    return { x_name: u.xName, query: unitText(D.toUnits(u.scale, q), u.span), h: lengthText(D.hToUnits(u.scale, h)) };
  }

  function unitsOf(a, meta) {
    return { scale: meta.scale, xName: meta.x_name || "x", yName: meta.y_name || "y", span: meta.span };
  }

  // The points d ({x, y, xName, yName, notices}, from AttnUserData) become "yours" and are shown.
  // how: {said: a sentence on where they came from, fragment: the link's own, key: a notebook's hand-over}.
  function useData(a, c, d, how) {
    const s = D.scaleFor(d.x, c.cfg.userdata);
    c.ownCount = (c.ownCount || 0) + 1;
    c.yours = { x: d.x.map((v) => D.fromUnits(s, v)), y: Array.from(d.y), xu: Array.from(d.x), xName: d.xName,
                yName: d.yName, scale: s, key: how.key || `page-${c.ownCount}`, fragment: how.fragment || null,
                link: null, embed: null };
    addOption(a, c);
    showYours(a, c);
    const notes = (how.said ? [how.said] : []).concat(d.notices || []);
    ownSay(a, c, [["dataset", own(c, "loaded", { n: d.x.length, x: d.xName, y: d.yName })]].concat(
      notes.map((t) => ["small", t])));
    if (!how.key) handToPython(a, c);
    if (!c.yours.fragment) writeFragment(a, c); else publishLink(a, c);
    return true;
  }

  function yoursTag(c) {
    const y = c.yours;
    let lo = Infinity, hi = -Infinity;
    for (const v of y.xu) { if (v < lo) lo = v; if (v > hi) hi = v; }
    return JSON.stringify({ name: "yours", function: null, noise: null, key: y.key, x_name: y.xName, y_name: y.yName,
                            description: own(c, "described", { n: y.x.length, x: y.xName, y: y.yName }), scale: y.scale,
                            span: hi - lo });
  }

  // Show the data kept in c.yours (loaded now, or picked again in the dataset menu).
  function showYours(a, c) {
    const y = c.yours;
    a.ds.tags = [yoursTag(c)];
    a.ds.data = { x: y.x, y: y.y, xu: y.xu };
    setWidget(a.w_dataset, "value", "yours");
    loadData(a, c);
  }

  function addOption(a, c) {
    const opts = a.w_dataset.options.filter((o) => (Array.isArray(o) ? o[0] : o) !== "yours");
    a.w_dataset.options = opts.concat([["yours", own(c, "option")]]);
  }

  // Whatever shows, around it: the axes' units, the legend, the bias-variance note, the box's buttons, the address.
  function showYoursAround(a, c) {
    relabel(a, c);
    showLimits(a, c);
    errorWords(a, c);
    formButtons(a, c);
    setHash(a, c);
    publishLink(a, c);
  }

  // The error plot's title, legend and words follow the data: bias² and variance need a true function and a known
  // noise, which your own data do not have, so there the plot shows the leave-one-out error alone and says why.
  function errorWords(a, c) {
    const own = !!c.units, b = c.cfg.bias, fig = a.figs[4];
    if (fig && fig.title) setWidget(fig.title, "text", b.titles[own ? "own" : "truth"]);
    if (a.bias_legend && a.bias_legend.tags.length === 2) setHtml(a.bias_legend, a.bias_legend.tags[own ? 1 : 0]);
    setHtml(a.bias_note, biasNote(b.note, c.noise, own));
  }

  // The words under the error plot (twin of bias_note in app/regression/text.py, from the same templates).
  function biasNote(note, noise, own) {
    if (own) return note.own;
    const sigma = noise === null || noise === undefined ? "" :
      note.sigma.split("{sigma}").join(plain(noise, 3)).split("{sigma2}").join(plain(noise * noise, 3));
    return note.truth.split("{sigma}").join(sigma);
  }

  // The data as the user gave them, back to a notebook (e.data follows the page); in a notebook only: elsewhere
  // they stay in this browser.
  function handToPython(a, c) {
    if (!U.hostOwnsAddress()) return;
    const y = c.yours;
    a.user_data.tags = [JSON.stringify({ x_name: y.xName, y_name: y.yName, key: y.key, from: "page" })];
    a.user_data.data = { x: y.xu, y: y.y };
  }

  // A notebook's e.data = ... (or the page built with data): the user_data source, in the data's units.
  function fromPython(a, c) {
    let tag = {};
    try { tag = JSON.parse(a.user_data.tags[0] || "{}"); } catch (e) { tag = {}; }
    if (tag.from !== "python" && tag.key !== "none") return false;
    if (tag.key === (c.yours ? c.yours.key : "none") || tag.key === c.pythonKey) return false;
    c.pythonKey = tag.key;
    if (tag.key === "none") { forgetYours(a, c); return true; }
    const d = D.fromArrays(Array.from(a.user_data.data.x), Array.from(a.user_data.data.y), tag.x_name, tag.y_name,
                           c.cfg.userdata);
    if (d.error) { ownRefused(a, c, d.error); return false; }
    d.notices = (tag.notices || []).concat(d.notices);
    return useData(a, c, d, { key: tag.key });
  }

  function forgetYours(a, c) {
    const showing = a.w_dataset.value === "yours";
    c.yours = null;
    a.w_dataset.options = a.w_dataset.options.filter((o) => (Array.isArray(o) ? o[0] : o) !== "yours");
    if (showing) { setWidget(a.w_dataset, "value", c.cfg.defaults.dataset); swapDataset(a, c, c.cfg.defaults.dataset); }
    ownSay(a, c, []);
  }

  function backToShipped(a, c) {
    const d = c.cfg.defaults.dataset;
    setWidget(a.w_dataset, "value", d);
    swapDataset(a, c, d);
    dataViews(a, c);
    scheduleUrl(a, c);
  }

  // ---- reading: the box, a file, the link, the page itself -------------------------------------------------

  function ownSay(a, c, lines) {
    setHtml(a.own_status, lines.map(([cls, t]) => `<p class="${cls}" role="status">${esc(t)}</p>`).join(""));
  }

  function ownRefused(a, c, sentence) {
    ownSay(a, c, [["notice", sentence], ["small", c.cfg.own.kept]]);
    return false;
  }

  // The x and y columns picked in the box ("" : the reader picks).
  function picks(c) {
    const f = c.form;
    return f ? { x: f.x.value || null, y: f.y.value || null } : {};
  }

  function parseAndUse(a, c, how) {
    const d = D.parse(c.ownSource ? c.ownSource.text : "", picks(c), c.cfg.userdata);
    if (d.error) return ownRefused(a, c, d.error);
    return useData(a, c, d, how);
  }

  function readPasted(a, c) {
    c.ownSource = { text: c.form ? c.form.text.value : "" };
    if (parseAndUse(a, c, {})) { dataViews(a, c); scheduleUrl(a, c); }
  }

  // A file chosen or dropped: refused from its name, type and size before anything reads it (AttnUserData).
  function readChosen(a, c, file) {
    const refused = D.checkFile(file, c.cfg.userdata), name = typeof file.name === "string" ? file.name : "";
    if (refused) return ownRefused(a, c, refused.error);
    ownSay(a, c, [["small", own(c, "reading", { file: name })]]);
    D.readFile(file, c.cfg.userdata).then((text) => U.runGuarded(c, () => {
      if (typeof text !== "string") { ownRefused(a, c, text.error); return; }
      c.ownSource = { text, file: name };
      fillColumns(c, text);
      if (parseAndUse(a, c, { said: own(c, "from_file", { file: name }) })) { dataViews(a, c); scheduleUrl(a, c); }
    }, (e) => showError(a, e)), (e) => showError(a, e));
  }

  // The link's data ("#data1.…"), decoded once the page is drawn (DecompressionStream answers later).
  function readFragment(a, c) {
    const h = window.location.hash;
    if (!/^#data/.test(h)) return;
    D.decodeFragment(h, c.cfg.userdata).then((d) => U.runGuarded(c, () => {
      if (d.error) { showNotices(a, [d.error]); return; }
      if (useData(a, c, d, { fragment: h.slice(1) })) { dataViews(a, c); scheduleUrl(a, c); }
    }, (e) => showError(a, e)), (e) => showError(a, e));
  }

  // The data the page carries (export --data, or a page saved with its data): <script id="attn-data">.
  function readCarried(a, c) {
    const el = typeof document !== "undefined" ? document.getElementById("attn-data") : null;
    if (!el) return false;
    const d = D.fromEmbedded(el.textContent, c.cfg.userdata);
    if (d.error) { showNotices(a, [d.error]); return false; }
    return useData(a, c, d, {});
  }

  // ---- the address and the link ---------------------------------------------------------------------------

  function writeFragment(a, c) {
    const y = c.yours;
    D.encodeFragment({ x: y.xu, y: y.y, xName: y.xName, yName: y.yName }, c.cfg.userdata).then((f) => {
      if (c.yours !== y) return;
      if (typeof f === "string") y.fragment = f; else y.link = f.error;
      U.runGuarded(c, () => { setHash(a, c); publishLink(a, c); }, (e) => showError(a, e));
    }, (e) => console.error("attention explorable:", e));
  }

  // The fragment holds your data while they are shown (and fit in a link); any other fragment is left alone.
  function setHash(a, c) {
    if (U.hostOwnsAddress() || !c.ready) return;
    const want = c.units && c.yours && c.yours.fragment ? "#" + c.yours.fragment : "";
    const now = window.location.hash;
    if (now === want || (!want && !/^#data/.test(now))) return;
    try { window.history.replaceState(null, "", window.location.pathname + window.location.search + want); }
    catch (e) { /* a sandboxed frame may refuse; the page works without it */ }
  }

  // Tell "Copy a link" (ui/share.js) whether the link carries the data shown, and what to offer when it cannot.
  function publishLink(a, c) {
    const y = c.units ? c.yours : null;
    let v = { state: "none" };
    if (y && y.fragment) v = { state: "link" };
    else if (y && y.link) {
      if (!y.embed) y.embed = D.embedText({ x: y.xu, y: y.y, xName: y.xName, yName: y.yName }, c.cfg.userdata);
      v = { state: "too_long", message: y.link, embed: y.embed, filename: "attention-explorable-your-data.html" };
    } else if (y) v = { state: "pending" };
    U.publish(a.ds.document, "data-link", v);
  }

  // ---- the axes and sliders in the data's units -------------------------------------------------------------

  function axisOf(fig, side) { return (fig[side] || []).find((m) => m && m.ticker !== undefined) || null; }

  // What the page built (tickers, formatters, labels), kept once, to put back when the shipped data return.
  function builtAxes(a) {
    const keep = (axis, label) => axis && { axis, ticker: axis.ticker, formatter: axis.formatter, label: axis.axis_label,
                                            units: label };
    const [main, weights, spread, enth, bias] = a.figs, m = a.units;
    return { x: [keep(axisOf(main, "below"), m.x_label), keep(axisOf(weights, "below"), m.x_label),
                 keep(axisOf(spread, "below"), m.qx_label)].filter(Boolean),
             h: [keep(axisOf(enth, "below"), m.h_label), keep(axisOf(bias, "below"), m.h_label)].filter(Boolean),
             y: [keep(axisOf(main, "left"), m.y_label)].filter(Boolean),
             query: a.w_query.format, logh: a.w_logh.format };
  }

  // Your data: labels name the columns (PlainText models: a name is never read as markup or TeX); where x was
  // scaled, round numbers of the data's units are placed and written (view.py units_models).  Axes repaint once.
  function relabel(a, c) {
    const u = c.units, m = a.units, b = c.axes || (c.axes = builtAxes(a)), scaled = !!(u && u.scale.scaled);
    // the same tickers and formatters read a new dataset's scale from its tag: draw them again when it changes
    const key = u ? a.ds.tags[0] : null, fresh = key !== c.unitsKey;
    c.unitsKey = key;
    if (u) {
      setWidget(m.x_label, "text", u.xName);
      setWidget(m.y_label, "text", u.yName);
      setWidget(m.qx_label, "text", `query ${u.xName}`);
      setWidget(m.h_label, "text", `bandwidth h\u00b7\u221aT (${u.xName})`);
    }
    const put = (k, ticker, formatter) => {
      setWidget(k.axis, "axis_label", u ? k.units : k.label);
      setWidget(k.axis, "ticker", scaled ? ticker : k.ticker);
      setWidget(k.axis, "formatter", scaled ? formatter : k.formatter);
      if (fresh && scaled) k.axis.setv({ formatter }, { check_eq: false });
    };
    for (const k of b.x) put(k, m.x_ticker, m.x_format);
    for (const k of b.h) put(k, m.h_ticker, m.h_format);
    for (const k of b.y) setWidget(k.axis, "axis_label", u ? k.units : k.label);
    for (const [w, f] of [[a.w_query, u ? m.q_slider : b.query], [a.w_logh, u ? m.h_slider : b.logh]]) {
      if (w.format === f && !(fresh && u)) continue;
      w.format = f;
      w.setv({ title: w.title }, { check_eq: false });   // a slider writes its value anew on a title change only
    }
    U.publish(a.ds.document, "units", u ? { key, scaled, x_ticker: m.x_ticker, x_format: m.x_format,
                                            h_ticker: m.h_ticker, h_format: m.h_format, x_label: m.x_label,
                                            y_label: m.y_label, h_label: m.h_label } : null);
  }

  // ---- the leave-one-out error at h·√T (your data's error readout) ----------------------------------------

  // The leave-one-out error at h·√T (T = 1, as on the bias-variance plot): on the spot for a small dataset, in
  // a Web Worker once h rests for a larger one (n x n weights: 4 million at n = 2000).
  function looHere(a, c) {
    c.looHere = null;
    if (!c.units) return;
    const payload = { x: c.x, y: c.y, fn: null, noise: null, hs: [c.h * Math.sqrt(c.t)], kernel: c.kernel,
                      tilt: c.kernel === "dot" ? c.key_norm : 0 };
    const token = c.looToken = (c.looToken || 0) + 1;   // an answer for an older h (a worker still busy) is dropped
    const show = (cols) => {
      if (token !== c.looToken) return;
      c.looHere = cols.loo[0];
      if (c.last) U.afterPaint(c, "query texts", () => queryTexts(a, c, c.last), (e) => showError(a, e));
    };
    if (c.x.length <= c.cfg.worker_above_n) { show(M.errorCurves(payload)); return; }
    if (c.looTimer) clearTimeout(c.looTimer);
    c.looTimer = setTimeout(() => {
      c.looTimer = null;
      const key = `loo-here:${a.hcurve.id}`;
      const ask = (job) => job.promise.then(show, (e) => {
        if (e.reason === "unavailable") return ask(AttnWorker.runHere(M.errorCurves, payload, { key }));
        if (e.reason !== "cancelled") showNotices(a, [e.message]);
      });
      ask(AttnWorker.run(AttnWorker.modules(c.cfg.worker_modules), "AttnMirror.errorCurves", payload, { key }));
    }, LOO_REST_MS);
  }
  const LOO_REST_MS = 120;

  // ---- the box: paste, drop, choose ---------------------------------------------------------------------

  // The box's own elements (static HTML from app/regression/text.py), found once it is drawn.
  function wireForm(a, c) {
    const v = U.findView(a.own_form), root = v && v.shadow_el && v.shadow_el.querySelector(".own");
    if (!root || root.__attnWired) return;
    root.__attnWired = true;
    const q = (sel) => root.querySelector(sel);
    c.form = { root, text: q(".own-text"), x: q(".own-x"), y: q(".own-y"), back: q(".own-back"), save: q(".own-download") };
    const guarded = (fn) => (e) => U.runGuarded(c, () => fn(e), (err) => showError(a, err));
    q(".own-use").addEventListener("click", guarded(() => readPasted(a, c)));
    q(".own-input").addEventListener("change", guarded((e) => {
      const f = e.target.files && e.target.files[0];
      if (f) readChosen(a, c, f);
      e.target.value = "";
    }));
    // a paste over the size limit is refused before the box takes it (a box of millions of lines stalls the page)
    c.form.text.addEventListener("paste", guarded((e) => {
      const big = e.clipboardData ? D.checkSize(e.clipboardData.getData("text/plain"), c.cfg.userdata) : null;
      if (big) { e.preventDefault(); ownRefused(a, c, big.error); }
    }));
    c.form.text.addEventListener("input", () => {
      if (c.columnsTimer) clearTimeout(c.columnsTimer);
      c.columnsTimer = setTimeout(() => { c.ownSource = null; fillColumns(c, c.form.text.value); }, 200);
    });
    for (const sel of [c.form.x, c.form.y]) sel.addEventListener("change", guarded(() => {
      if (!c.ownSource && c.form.text.value.trim()) c.ownSource = { text: c.form.text.value };
      if (c.ownSource && parseAndUse(a, c, {})) { dataViews(a, c); scheduleUrl(a, c); }
    }));
    c.form.back.addEventListener("click", guarded(() => backToShipped(a, c)));
    c.form.save.addEventListener("click", () => {
      const y = c.yours;
      if (y && !AttnShare.download(D.embedText({ x: y.xu, y: y.y, xName: y.xName, yName: y.yName }, c.cfg.userdata),
                                   "attention-explorable-your-data.html"))
        ownSay(a, c, [["notice", c.cfg.own.no_download]]);
    });
    acceptDrops(a, c, root, root);
    formButtons(a, c);
  }

  // A file dropped on `zone` (or text dragged there, unless filesOnly) is read; `mark` shows where it will land.
  function acceptDrops(a, c, zone, mark, filesOnly) {
    const kinds = filesOnly ? ["Files"] : ["Files", "text/plain"];
    const over = (e) => {
      if (!e.dataTransfer || !Array.from(e.dataTransfer.types || []).some((t) => kinds.includes(t))) return;
      e.preventDefault();
      e.stopPropagation();
      if (mark) mark.classList.add("own-over");
    };
    zone.addEventListener("dragenter", over);
    zone.addEventListener("dragover", over);
    zone.addEventListener("dragleave", () => { if (mark) mark.classList.remove("own-over"); });
    zone.addEventListener("drop", (e) => {
      if (mark) mark.classList.remove("own-over");
      const dt = e.dataTransfer;
      if (!dt || !Array.from(dt.types || []).some((t) => kinds.includes(t))) return;
      e.preventDefault();
      e.stopPropagation();
      U.runGuarded(c, () => {
        if (dt.files && dt.files.length) { readChosen(a, c, dt.files[0]); return; }
        const text = dt.getData("text/plain"), big = text ? D.checkSize(text, c.cfg.userdata) : null;
        if (!text) return;
        if (big) { ownRefused(a, c, big.error); return; }
        if (c.form) c.form.text.value = text;
        c.ownSource = { text };
        fillColumns(c, text);
        if (parseAndUse(a, c, {})) { dataViews(a, c); scheduleUrl(a, c); }
      }, (err) => showError(a, err));
    });
  }

  // The column pickers offer the text's columns when it has more than two (their labels set as text, never markup).
  function fillColumns(c, text) {
    if (!c.form) return;
    const cols = D.columnNames(text, c.cfg.userdata), list = Array.isArray(cols) && cols.length > 2 ? cols : [];
    for (const sel of [c.form.x, c.form.y]) {
      const keep = sel.value;
      while (sel.options.length > 1) sel.remove(1);
      for (const col of list) {
        const o = document.createElement("option");
        o.value = col.value;
        o.textContent = col.label;
        sel.appendChild(o);
      }
      sel.value = list.some((col) => col.value === keep) ? keep : "";
    }
  }

  function formButtons(a, c) {
    if (!c.form) return;
    const showing = !!c.units;
    c.form.back.hidden = !showing;
    c.form.save.hidden = !(showing && typeof globalThis.__attnSkeleton === "string");
  }

  // ---- the seeded generator (ui/generator.js, the twin of attention.make_dataset) ---------------------

  // fn, n, noise and seed from the generator's fields, each kept within its deep-link bounds; a value that
  // cannot be used gets a notice naming it (n is typed freely: 5000 becomes 2000, and the page says so).
  function generatorValues(a, c) {
    const spec = c.cfg.spec, notes = [];
    const fields = { fn: a.g_fn.value, n: a.g_n.value, noise: a.g_noise.value, seed: a.g_seed.value };
    const out = {};
    for (const k of c.cfg.generator_keys) {
      const s = spec[k], v = fields[k];
      if (s.kind === "choice") { out[k] = s.choices.includes(v) ? v : s.default; continue; }
      if (v === null || v === undefined || !isFinite(v)) { out[k] = c.gen ? c.gen[k] : s.default; continue; }
      const kept = clamp(s.kind === "int" ? Math.round(v) : v, s.lo, s.hi);
      if (kept !== v) notes.push(k === "n" ? `n = ${v} is outside what the generator draws (${s.lo_text} to ${s.hi_text} samples); it uses n = ${kept}.`
                                           : `${k} = ${v} is outside ${s.lo_text} to ${s.hi_text}; it uses ${kept}.`);
      out[k] = kept;
    }
    return { values: out, notes };
  }

  function showNotices(a, notes) {
    setWidget(a.notice_div, "text", notes.map((t) => `<p class="notice">${esc(t)}</p>`).join(""));
    setWidget(a.notice_div, "visible", notes.length > 0);
  }

  // Draw the generator's samples into the data source (the same samples as Python for the same values).
  function generate(a, c, values) {
    const G = typeof AttnGenerator !== "undefined" ? AttnGenerator : null;   // ui/generator.js, in this engine's code
    if (!G) return false;
    const d = G.makeDataset(values.fn, values.n, values.noise, values.seed);
    c.gen = values;
    for (const [k, w] of [["fn", a.g_fn], ["n", a.g_n], ["noise", a.g_noise], ["seed", a.g_seed]]) setWidget(w, "value", values[k]);
    a.ds.tags = [JSON.stringify({ name: "generated", function: d.function, noise: d.noise, description: d.description })];
    a.ds.data = { x: Array.from(d.x), y: Array.from(d.y) };
    setWidget(a.w_dataset, "value", "generated");
    if (c.loadedData !== a.ds.data) loadData(a, c);
    return true;
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

  // The page's look follows presentation mode; the other sections hear of it on the page's bus.
  function applyPresent(a, c, atStart) {
    c.scale = c.present ? c.cfg.theme.present_marker_scale : 1;
    Theme.apply(a.ds.document, c.cfg.theme, c.present, a.shared_figs, !!atStart);
    if (c.announcedPresent !== c.present) U.publish(a.ds.document, "present", c.announcedPresent = c.present);
  }

  function readWidgets(a, c) {
    c.query = a.w_query.value;
    c.h = 10 ** a.w_logh.value;
    c.t = 10 ** a.w_logt.value;
    c.kernel = a.w_kernel.value;
    c.key_norm = a.w_keynorm.value;
    c.link = a.w_link.active;
    c.limits = a.w_limits.active;
    c.present = a.w_present.active;
  }

  function applyState(a, c, v) {
    // values parsed from the URL (static file) or the defaults (reset)
    if (v.query !== undefined) c.query = v.query;
    if (v.bandwidth !== undefined) c.h = v.bandwidth;
    if (v.temperature !== undefined) c.t = v.temperature;
    if (v.kernel !== undefined) c.kernel = v.kernel;
    if (v.key_norm !== undefined) c.key_norm = v.key_norm;
    if (v.link !== undefined) c.link = v.link;
    if (v.limits !== undefined) c.limits = v.limits;
    if (v.present !== undefined) c.present = v.present;
    if (v.dataset !== undefined && c.cfg.datasets[v.dataset]) {
      setWidget(a.w_dataset, "value", v.dataset);
      swapDataset(a, c, v.dataset);
    } else if (v.dataset === "generated") {
      const g = {};
      for (const k of c.cfg.generator_keys) g[k] = v[k] !== undefined ? v[k] : c.cfg.spec[k].default;
      generate(a, c, g);
    }
    syncWidgets(a, c);
  }

  function syncWidgets(a, c) {
    setWidget(a.w_query, "value", c.query);
    setWidget(a.w_logh, "value", Math.log10(c.h));
    setWidget(a.w_logt, "value", Math.log10(c.t));
    setWidget(a.w_kernel, "value", c.kernel);
    setWidget(a.w_keynorm, "value", c.key_norm);
    setWidget(a.w_keynorm, "visible", c.kernel === "dot");
    kernelLabel(a, c);
    setWidget(a.w_link, "active", c.link);
    setWidget(a.w_limits, "active", c.limits);
    setWidget(a.w_present, "active", c.present);
    showLimits(a, c);
    c.heff = c.h * Math.sqrt(c.t);
  }

  // The kernel menu's options (twin of kernel_options in app/regression/text.py): the dot product is called
  // "equal-norm keys" only while the key-norm tilt is 0.
  function kernelOptions(labels, keyNorm) {
    return [["gaussian", labels.gaussian], ["dot", labels[keyNorm ? "dot_tilted" : "dot"]]];
  }

  function kernelLabel(a, c) {
    const want = kernelOptions(c.cfg.kernel_labels, c.key_norm);
    if (JSON.stringify(a.w_kernel.options) !== JSON.stringify(want)) a.w_kernel.options = want;
  }

  // The 1-NN curve and the global mean, and their entries in the legend under the plot.
  function showLimits(a, c) {
    setWidget(a.nn_renderer, "visible", c.limits);
    setWidget(a.mean_span, "visible", c.limits);
    setHtml(a.legend_div, c.cfg.legend[(c.limits ? "on" : "off") + (c.units ? "_data" : "")]);
  }

  // On a touch screen the main plot keeps horizontal drags (they move the query) and leaves vertical
  // swipes to the browser, so a swipe that starts on the plot scrolls the page.  This rule, in the canvas'
  // own shadow root, wins over Bokeh's; the sideways-arrow cursor says that the plot is dragged sideways.
  // The main plot takes the keyboard's focus (the first Tab stop): its arrow keys move the query by the
  // slider's step, as the slider's own do (Shift: ten steps), outside presentation mode, where they turn the
  // tour's steps.
  function arrowKeysMoveQuery(a, c) {
    const v = U.findView(a.shared_figs[0]), el = v && v.canvas_view && v.canvas_view.el;
    if (!el || el.__attnKeys) return;
    el.__attnKeys = true;
    el.setAttribute("tabindex", "0");
    el.setAttribute("role", "application");
    el.setAttribute("aria-label", "the main plot: the left and right arrow keys move the query");
    el.addEventListener("keydown", (e) => {
      if ((e.key !== "ArrowLeft" && e.key !== "ArrowRight") || e.altKey || e.ctrlKey || e.metaKey || c.present) return;
      e.preventDefault();
      e.stopPropagation();
      const step = a.w_query.step, d = (e.key === "ArrowRight" ? 1 : -1) * (e.shiftKey ? 10 : 1) * step;
      U.runGuarded(c, () => { setQuery(a, c, Math.round((c.query + d) / step) * step); setWidget(a.w_query, "value", c.query); },
                   (err) => showError(a, err));
    });
  }

  function letVerticalSwipesScroll(fig) {
    const v = U.findView(fig), cv = v && v.canvas_view, root = cv && cv.shadow_el;
    if (!root || root.querySelector("style[data-attn-touch]")) return;
    const st = document.createElement("style");
    st.setAttribute("data-attn-touch", "");
    st.textContent = ".bk-events { touch-action: pan-y pinch-zoom !important; cursor: ew-resize; }";
    root.appendChild(st);
  }

  function init(a, c) {
    c.cfg = a.config;
    c.grid = M.linspace(c.cfg.x_range[0], c.cfg.x_range[1], c.cfg.grid_n);
    c.hgrid = M.geomspace(c.cfg.h_grid[0], c.cfg.h_grid[1], c.cfg.h_grid[2]);
    c.hlist = Array.from(c.hgrid);
    c.scale = 1;
    readWidgets(a, c);
    const init0 = c.cfg.initial || {};
    for (const [k, key] of [["query", "query"], ["h", "bandwidth"], ["t", "temperature"], ["kernel", "kernel"],
                            ["key_norm", "key_norm"]])
      if (init0[key] !== undefined) c[k] = init0[key];
    loadData(a, c);
    if (!U.hostOwnsAddress()) {   // the page reads its own link (in a notebook, Python set the widgets)
      const { values, notices } = U.parseQuery(window.location.search, c.cfg.spec, c.cfg.url_rules);
      applyState(a, c, values);
      if (notices.length) showNotices(a, notices);
      if (!/^#data/.test(window.location.hash)) readCarried(a, c) || fromPython(a, c);   // else: readFragment below
    } else {
      if (a.w_dataset.value === "generated" && a.ds.data.x.length === 0) generate(a, c, generatorValues(a, c).values);
      syncWidgets(a, c);
      fromPython(a, c);
    }
    applyPresent(a, c, true);
    if (!globalThis.AttnPage) Theme.nameControls(a.ds.document);   // the page's loader names each block it draws
    c.ready = true;
    dataViews(a, c);
    lazyViews(a, c);
    if (!U.hostOwnsAddress()) { readFragment(a, c); dropsAnywhere(a, c); }
    setHash(a, c);
    U.subscribe(a.ds.document, "drawn", () => U.runGuarded(c, () => lazyViews(a, c), (e) => showError(a, e)));
    // another section's tour step may set this one's dataset (a learning step trains on a shipped dataset)
    U.onApply(a.ds.document, c, "regression", (v) => U.runGuarded(c, () => {
      if (v.dataset !== undefined && v.dataset !== a.w_dataset.value) { applyState(a, c, { dataset: v.dataset }); dataViews(a, c); }
    }, (e) => showError(a, e)));
    c.urlArmed = true;
    announceHeight();
  }

  // The plots of this section are drawn one by one (app/ui/loader.js): each is set up when it appears, and
  // the curves against h, which cost the most, are computed only once their plots are on the page.
  function lazyViews(a, c) {
    for (const f of a.figs) { const v = U.plotView(f); if (v) U.framePaints(v); }
    const live = U.findView(a.announce_div);
    const liveEl = AttnBokeh.markupElement(live);
    if (liveEl && !liveEl.hasAttribute("aria-live")) liveEl.setAttribute("aria-live", "polite");
    letVerticalSwipesScroll(a.shared_figs[0]);
    arrowKeysMoveQuery(a, c);
    wireForm(a, c);
    if (c.hentStale && U.plotView(a.figs[3])) { c.hentStale = false; queryViews(a, c); }
    if (c.hcurveStale && U.plotView(a.figs[4])) errorCurves(a, c);
  }

  // A file dropped anywhere on the page is read as your data (rather than opened by the browser in its place).
  // Not in a notebook, whose own page takes dropped files.
  function dropsAnywhere(a, c) {
    if (window.__attnDrops) return;
    window.__attnDrops = true;
    acceptDrops(a, c, window, null, true);
  }

  // Inside an iframe, tell the host page how tall the explorable is, so a
  // one-line listener there can size the frame (see the README).
  function announceHeight() {
    if (window.parent === window || window.__attnHeightWatch) return;
    window.__attnHeightWatch = true;
    let last = 0;
    const post = () => {
      const h = Math.ceil(document.documentElement.scrollHeight);
      if (h !== last) {
        last = h;
        window.parent.postMessage({ type: "attention-explorable:height", height: h }, "*");
      }
    };
    setTimeout(post, 300);
    window.addEventListener("resize", post);
    setInterval(post, 1000);
  }

  // ---- the URL follows the state (throttled) -----------------------------------

  function stateQuery(a, c) {
    const s = c.cfg.spec, out = new URLSearchParams(window.location.search);
    const put = (k, v) => { if (v === s[k].default) out.delete(k); else out.set(k, v); };
    put("query", Number(c.query.toFixed(3)));
    put("bandwidth", Number(c.h.toPrecision(4)));
    put("temperature", Number(c.t.toPrecision(4)));
    put("kernel", c.kernel);
    put("key_norm", Number(c.key_norm.toFixed(2)));
    put("dataset", a.w_dataset.value === "yours" ? s.dataset.default : a.w_dataset.value);   // yours: after "#"
    for (const k of ["link", "limits", "present"]) {
      if (c[k] === s[k].default) out.delete(k); else out.set(k, c[k] ? "1" : "0");
    }
    for (const k of c.cfg.generator_keys) {
      if (a.w_dataset.value === "generated" && c.gen) put(k, c.gen[k]); else out.delete(k);
    }
    return out.toString();
  }

  function scheduleUrl(a, c) {
    U.scheduleUrl(c, () => stateQuery(a, c), () => {
      if (!c.queryDirty) return;  // the server learns the query a few times a second, not every frame
      c.queryDirty = false;
      c.busy = true;
      try { a.w_query.setv({ value: c.query }, { check_eq: false }); } finally { c.busy = false; }
    }, c.cfg.url_delay_ms);
  }

  // ---- dispatch ------------------------------------------------------------------

  function dispatch(ev, a, c) {
    const name = ev && ev.event_name;
    if (name === "document_ready") return;
    if (name === "panstart") { c.pan = { sx: ev.sx, sy: ev.sy }; return; }
    if (name === "pan") {
      // A drag moves the query while it goes more sideways than up or down; a vertical swipe on a phone
      // is the browser's, to scroll the page.  Where the event carries no usable screen position (seen in
      // a JupyterLab output), every drag moves the query, as a mouse drag always should.
      const p = c.pan || {};
      const dx = Math.abs(ev.sx - p.sx), dy = Math.abs(ev.sy - p.sy);
      const sideways = !(isFinite(dx) && isFinite(dy)) || dx > dy;
      if (sideways && ev.x !== undefined && ev.x !== null) setQuery(a, c, ev.x);
      return;
    }
    if (name === "tap" || name === "press") {
      if (ev.x !== undefined && ev.x !== null) setQuery(a, c, ev.x);
      return;
    }
    if (name === "button_click" && ev.origin === a.g_go) {
      const { values, notes } = generatorValues(a, c);
      if (generate(a, c, values)) { showNotices(a, notes); newDataViews(a, c); scheduleUrl(a, c); }
      return;
    }
    if (name === "button_click") {   // Reset: the opening state, your data kept (a separate button returns the shipped)
      const d = Object.assign({}, c.cfg.defaults);
      if (a.w_dataset.value === "yours") delete d.dataset;
      else if (a.w_dataset.value !== d.dataset) { setWidget(a.w_dataset, "value", d.dataset); swapDataset(a, c, d.dataset); }
      applyState(a, c, d);
      applyPresent(a, c);
      dataViews(a, c);
      return;
    }
    if (ev === a.span_main) return setQuery(a, c, a.span_main.location);
    // The engine's own write of the slider comes back here as a change, after a microtask: nothing to redo,
    // even when a newer move is waiting for the next frame (the slider shows the query drawn last).
    if (ev === a.w_query) {
      const v = a.w_query.value, echo = v === c.sliderWrite;
      c.sliderWrite = undefined;
      return v === c.query || echo ? undefined : setQuery(a, c, v);
    }
    if (ev === a.w_logh || ev === a.w_logt) {
      const h = 10 ** a.w_logh.value, t = 10 ** a.w_logt.value;
      if (c.link) {
        // one knob: keep h * sqrt(T) fixed by moving the other slider
        const s = c.cfg.spec;
        if (ev === a.w_logh) c.t = clamp((c.heff / h) ** 2, s.temperature.lo, s.temperature.hi), c.h = h;
        else c.h = clamp(c.heff / Math.sqrt(t), s.bandwidth.lo, s.bandwidth.hi), c.t = t;
        setWidget(a.w_logh, "value", Math.log10(c.h));
        setWidget(a.w_logt, "value", Math.log10(c.t));
      } else {
        c.h = h; c.t = t; c.heff = c.h * Math.sqrt(c.t);
      }
      return kernelViews(a, c);
    }
    if (ev === a.w_kernel || ev === a.w_keynorm) {
      c.kernel = a.w_kernel.value;
      c.key_norm = a.w_keynorm.value;
      setWidget(a.w_keynorm, "visible", c.kernel === "dot");
      kernelLabel(a, c);
      return dataViews(a, c);
    }
    if (ev === a.w_dataset) {
      if (a.w_dataset.value === "generated") {
        const { values, notes } = generatorValues(a, c);
        if (generate(a, c, values)) { showNotices(a, notes); newDataViews(a, c); scheduleUrl(a, c); }
        return;
      }
      if (a.w_dataset.value === "yours") {
        if (c.yours) { showYours(a, c); dataViews(a, c); scheduleUrl(a, c); }
        return;
      }
      if (swapDataset(a, c, a.w_dataset.value)) { newDataViews(a, c); scheduleUrl(a, c); }
      return;
    }
    if (ev === a.ds) {
      // (this engine's own write of the data source is heard after the write's task: already drawn)
      if (c.loadedData === a.ds.data && c.viewedData === a.ds.data) return;
      loadData(a, c);
      return dataViews(a, c);
    }
    if (ev === a.user_data) { if (fromPython(a, c)) { dataViews(a, c); scheduleUrl(a, c); } return; }
    if (ev === a.w_link) { c.link = a.w_link.active; c.heff = c.h * Math.sqrt(c.t); return scheduleUrl(a, c); }
    if (ev === a.w_limits) {
      c.limits = a.w_limits.active;
      showLimits(a, c);
      return scheduleUrl(a, c);
    }
    if (ev === a.w_present) { c.present = a.w_present.active; applyPresent(a, c); return queryViews(a, c); }
  }

  function showError(a, e) {
    console.error("attention explorable:", e);
    if (a.notice_div) {
      a.notice_div.text = `<p class="notice">Something went wrong while redrawing (${esc(e.message)}); reset restores the opening state.</p>`;
      a.notice_div.visible = true;
    }
  }

  // After the first frame is drawn (and outside the guard, so a listener may move this section's
  // widgets), the page's bus says so: the learning section waits for it before it sets the bandwidth.
  function handle(ev, a) {
    const c = cacheFor(a);
    U.runGuarded(c, () => { if (!c.ready) init(a, c); else dispatch(ev, a, c); }, (e) => showError(a, e));
    if (c.ready && !c.announced) {
      c.announced = true;
      U.publish(a.ds.document, "ready", "regression");
    }
  }

  return { handle, caption, limitNotices, heaviestSample, kernelShape, entropyAtQuery, cacheFor, unitText, lengthText,
           biasNote, kernelOptions };
})(AttnMirror, AttnCommon);
