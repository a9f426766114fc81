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
    if (!keyNorm) return "a dot-product similarity on circle-embedded keys of equal length";
    return `a dot-product similarity on circle-embedded keys with key-norm tilt ${signed(keyNorm, 2)} ` +
      `which makes keys further ${keyNorm > 0 ? "right" : "left"} longer`;
  }

  function caption(r, kernel, h, t, keyNorm) {
    const sim = similarityWords(kernel, keyNorm || 0);
    const temp = t === 1 ? "" : `, T = ${plain(t, 3)}`;
    const truth = r.true_value === null ? "" : ` where the true function is ${signed(r.true_value, 2)}`;
    return `A query at x = ${signed(r.query, 2)} averages the ${r.n} samples with softmax weights of ${sim} ` +
      `(h = ${plain(h, 3)}${temp}). The largest weight is ${fixed(r.max_weight, 3)} and the weights spread over ` +
      `about ${fixed(r.effective_points, 1)} effective points, giving a prediction of ${signed(r.prediction, 2)}${truth}.`;
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
  function limitNotices(r, heaviest, curve, limits, keyNorm) {
    const out = [], mw = `Max weight ${fixed(r.max_weight, 3)}`;
    const why = "a dot product rewards a key's length as well as its direction";
    if (r.max_weight >= limits.one_sample) {
      const hx = signed(heaviest.x, 2), hy = signed(heaviest.y, 2), flat = curve.sharp_share >= limits.sharp_share;
      if (curve.winners === 1) {
        const where = heaviest.nearest ? " (here it is also the nearest sample)" : ", which is not the nearest one";
        const words = flat ? `The prediction curve is flat at its value, ${hy}.` : `The prediction curve leans towards its value, ${hy}.`;
        out.push(`${mw}, on the sample at x = ${hx}${where}: its key is longer than the keys nearer the query, ` +
          `and ${why}, so this sample wins wherever the query is. ${words}`);
      } else if (heaviest.nearest && curve.nearest_share >= 1.0) {
        out.push(flat ? `${mw}: the query copies its nearest sample (1-nearest-neighbour), and the prediction curve turns into steps.`
          : `${mw}: the query copies its nearest sample (1-nearest-neighbour) here; elsewhere along x the weights still spread over more than one sample.`);
      } else if (heaviest.nearest) {
        out.push(`${mw}: the query copies its nearest sample here, but elsewhere along x a longer key further ` +
          `${keyNorm > 0 ? "right" : "left"} wins over nearer ones, because ${why}.`);
      } else {
        out.push(`${mw}, on the sample at x = ${hx}, which is not the nearest one: its key is longer than the keys ` +
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
  function entropyAtQuery(q, xs, hgrid, opt) {
    const ent = new Array(hgrid.length);
    for (let g = 0; g < hgrid.length; g++) {
      const o = Object.assign({}, opt, { bandwidth: hgrid[g], temperature: 1 });
      ent[g] = M.entropyBits(M.weights1d(q, xs, o));
    }
    return ent;
  }

  function queryViews(a, c) {
    const opt = options(c), q = c.query;
    const r = M.readout(q, c.x, c.y, opt, c.fn);
    c.last = r;
    c.drawnQuery = q;
    const w = r.weights, n = c.x.length, mx = r.max_weight, sc = c.scale * markerScale(n);
    const size = new Array(n), wn = new Array(n);
    let top = 0;
    for (let j = 0; j < n; j++) { wn[j] = w[j] / mx; size[j] = sc * (4 + 18 * Math.sqrt(wn[j])); if (w[j] > w[top]) top = j; }
    a.samples.data = { x: c.x, y: c.y, w: Array.from(w), wn, size, alpha: c.alpha };

    const kx = c.grid, ky = kernelShape(kx, q, c.x, opt, mx, top);
    a.kshape.data = { x: Array.from(kx), k: Array.from(ky) };

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

  function queryTexts(a, c, r) {
    const q = r.query, n = c.x.length, w = r.weights;
    // (a newer query, waiting for the next frame, writes the slider when it is drawn: this one is stale)
    if (a.w_query.value !== q && c.query === q) { quiet(a.w_query, "value", q); c.queryDirty = true; c.sliderWrite = q; }
    const err = r.true_value === null ? null : r.prediction - r.true_value;
    const row = (k, v, extra) => `<tr><th scope="row">${k}</th><td>${v}</td>${extra ? `<td class="extra">${extra}</td>` : "<td></td>"}</tr>`;
    setHtml(a.strip_div, `<p class="strip">max weight <b>${fixed(r.max_weight, 3)}</b> \u00b7 effective points ` +
      `<b>${fixed(r.effective_points, 1)}</b> of ${n} \u00b7 prediction <b>${signed(r.prediction, 2)}</b></p>`);
    setHtml(a.readout_div,
      `<table class="readouts" aria-label="readouts">` +
      row("max weight", fixed(r.max_weight, 3)) +
      row("entropy", `${fixed(r.entropy_bits, 2)} bits`, `of ${fixed(Math.log2(n), 2)}`) +
      row("effective points", fixed(r.effective_points, 1), `of ${n}`) +
      row("prediction", signed(r.prediction, 2)) +
      row("true f(x)", r.true_value === null ? "unknown" : signed(r.true_value, 2)) +
      row("error", err === null ? "\u2013" : signed(err, 2)) +
      `</table>`);
    const tilt = c.kernel === "dot" ? c.key_norm : 0;
    setHtml(a.caption_div, `<p class="caption">${esc(caption(r, c.kernel, c.h, c.t, tilt))}</p>`);
    announce(a, c, r);
    const notes = limitNotices(r, heaviestSample(q, c.x, c.y, w), c.curveFacts, c.cfg.limits, tilt);
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
    const opt = options(c);
    const pred = M.predictCurve(c.grid, c.x, c.y, opt);
    const ent = M.entropyCurve(c.grid, c.x, opt);
    const nn = M.nearestCurve(c.grid, c.x, c.y, opt);
    const f = M.trueFunction(c.fn);
    const eff = Array.from(ent, (e) => 2 ** e);
    a.curve.data = {
      x: Array.from(c.grid), pred: Array.from(pred), ent: Array.from(ent), eff, nn: Array.from(nn),
      truth: f ? Array.from(c.grid, f) : Array.from(c.grid, () => NaN),
    };
    c.curveFacts = M.curveFacts(c.grid, c.x, opt, c.cfg.limits.sharp_weight);
    const heff = c.h * Math.sqrt(c.t);
    for (const s of [a.hspan_ent, a.hspan_bv]) setWidget(s, "location", heff);
    queryViews(a, c);
  }

  // Leave-one-out error, bias² and variance against h (at T = 1): they follow the data and the kernel only.
  // A large dataset's curves (2000 samples: 2000 x 2000 pairs at each of 61 bandwidths) are worked out in a Web
  // Worker, so the drag stays smooth meanwhile; a small one's on the spot.
  function errorCurves(a, c) {
    c.hcurveStale = false;
    const payload = { x: c.x, y: c.y, fn: c.fn, noise: c.noise, hs: c.hlist, kernel: c.kernel,
                      tilt: c.kernel === "dot" ? c.key_norm : 0 };
    const show = (cols) => { c.hcols = cols; a.hcurve.data = Object.assign({ h: c.hlist }, cols); };
    if (c.x.length <= c.cfg.worker_above_n) { show(M.errorCurves(payload)); return; }
    const nan = c.hlist.map(() => NaN);
    show({ loo: nan, bias2: nan, variance: nan, error: nan });   // until the worker answers
    const ask = (job) => job.promise.then(show, (e) => {
      if (e.reason === "unavailable") return ask(AttnWorker.runHere(M.errorCurves, payload, { key: "error-curves" }));
      if (e.reason !== "cancelled") showNotices(a, [e.message]);
    });
    ask(AttnWorker.run(c.cfg.worker_sources, "AttnMirror.errorCurves", payload, { key: "error-curves" }));
  }

  function dataViews(a, c) {
    if (U.plotView(a.figs[4])) errorCurves(a, c); else c.hcurveStale = true;
    setWidget(a.mean_span, "location", M.mean(c.y));
    kernelViews(a, c);
  }

  // ---- inputs ----------------------------------------------------------------

  // Many samples stay readable: smaller, fainter markers as n grows (the curve draws above them).
  function markerScale(n) { return clamp(Math.sqrt(40 / n), 0.3, 1); }
  function markerAlpha(n) { return clamp(Math.sqrt(60 / n), 0.3, 0.9); }

  function loadData(a, c) {
    c.x = Array.from(a.ds.data.x);
    c.y = Array.from(a.ds.data.y);
    const n = c.x.length;
    c.alpha = Array.from(c.x, () => markerAlpha(n));
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
    // straight into the page: a Div's new text through Bokeh re-lays out the whole document (300-700 ms here)
    if (a.dataset_div) setHtml(a.dataset_div, `<p class="dataset">${esc(c.describe)}</p>`);
  }

  function swapDataset(a, c, name) {
    const d = c.cfg.datasets[name];
    if (!d) return false;
    a.ds.tags = [JSON.stringify({ name, function: d.function, noise: d.noise, description: d.description })];
    a.ds.data = { x: d.x, y: d.y };
    loadData(a, c);
    return true;
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
    loadData(a, c);
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
    setWidget(a.w_link, "active", c.link);
    setWidget(a.w_limits, "active", c.limits);
    setWidget(a.w_present, "active", c.present);
    showLimits(a, c);
    c.heff = c.h * Math.sqrt(c.t);
  }

  // The 1-NN curve and the global mean, and their entries in the legend under the plot.
  function showLimits(a, c) {
    setWidget(a.nn_renderer, "visible", c.limits);
    setWidget(a.mean_span, "visible", c.limits);
    setHtml(a.legend_div, c.cfg.legend[c.limits ? "on" : "off"]);
  }

  // On a touch screen the main plot keeps horizontal drags (they move the query) and leaves vertical
  // swipes to the browser, so a swipe that starts on the plot scrolls the page.  This rule, in the canvas'
  // own shadow root, wins over Bokeh's; the sideways-arrow cursor says that the plot is dragged sideways.
  // The main plot takes the keyboard's focus (the first Tab stop): its arrow keys move the query, as the
  // slider's do (Shift: ten times further), outside presentation mode, where they turn the tour's steps.
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
      const d = (e.key === "ArrowRight" ? 1 : -1) * (e.shiftKey ? 0.5 : 0.05);
      U.runGuarded(c, () => { setQuery(a, c, c.query + d); setWidget(a.w_query, "value", c.query); }, (err) => showError(a, err));
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
    } else {
      if (a.w_dataset.value === "generated" && a.ds.data.x.length === 0) generate(a, c, generatorValues(a, c).values);
      syncWidgets(a, c);
    }
    applyPresent(a, c, true);
    if (!globalThis.AttnPage) Theme.nameControls(a.ds.document);   // the page's loader names each block it draws
    c.ready = true;
    dataViews(a, c);
    lazyViews(a, c);
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
    if (live && live.markup_el && !live.markup_el.hasAttribute("aria-live")) live.markup_el.setAttribute("aria-live", "polite");
    letVerticalSwipesScroll(a.shared_figs[0]);
    arrowKeysMoveQuery(a, c);
    if (c.hentStale && U.plotView(a.figs[3])) { c.hentStale = false; queryViews(a, c); }
    if (c.hcurveStale && U.plotView(a.figs[4])) errorCurves(a, c);
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
    put("dataset", a.w_dataset.value);
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
      if (generate(a, c, values)) { showNotices(a, notes); dataViews(a, c); scheduleUrl(a, c); }
      return;
    }
    if (name === "button_click") {
      const d = c.cfg.defaults;
      if (a.w_dataset.value !== d.dataset) { setWidget(a.w_dataset, "value", d.dataset); swapDataset(a, c, d.dataset); }
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
      return dataViews(a, c);
    }
    if (ev === a.w_dataset) {
      if (a.w_dataset.value === "generated") {
        const { values, notes } = generatorValues(a, c);
        if (generate(a, c, values)) { showNotices(a, notes); dataViews(a, c); scheduleUrl(a, c); }
        return;
      }
      if (swapDataset(a, c, a.w_dataset.value)) { dataViews(a, c); scheduleUrl(a, c); }
      return;
    }
    if (ev === a.ds) { loadData(a, c); return dataViews(a, c); }
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

  return { handle, caption, limitNotices, heaviestSample, kernelShape, entropyAtQuery, cacheFor };
})(AttnMirror, AttnCommon);
