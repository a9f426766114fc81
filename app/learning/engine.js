// The learning section's engine: plays back the paths of gradient descent that the core computed.
//
// One Bokeh CustomJS holds ui/mirror.js, ui/common.js (the URL parser, number formats and the page's
// bus) and this file.  It is attached to the section's buttons and selects, the metric plot's pan/tap events, the
// regression's bandwidth slider and dataset source, and the source that carries a generated dataset's
// path from the server.  Every text it writes goes through esc().
//
// The bandwidth demo plays a path of attention.train_bandwidth (at T = 1) and sets the regression's
// bandwidth slider at every step, so the regression's own engine redraws the main plot.  The weights
// depend on h and T only through h·√T, so with T ≠ 1 the path is followed in h·√T: the slider is set
// to h = h_path / √T and everything on the page stays exact.

const Learning = (function (M, E) {
  "use strict";

  const esc = E.esc, fixed = E.fixed, plain = E.plain, signed = E.signed;
  const clamp = E.clamp, quiet = E.quiet;

  function cacheFor(a) { return E.pageState("__attnLearningCache", a.bw_readout); }
  function range(n) { return Array.from({ length: n }, (_, i) => i); }
  function para(cls, s) { return `<p class="${cls}">${esc(s)}</p>`; }

  // Texts that change at every step go straight into the rendered Div (see setHtml in ui/common.js);
  // texts that change rarely (the notes) go through the model as usual.
  const setHtml = E.setHtml;

  // ---- the bandwidth ------------------------------------------------------------------------------

  function datasetMeta(a) {
    try { return JSON.parse(a.ds.tags[0] || "{}"); } catch (e) { return {}; }
  }

  // The path for the regression's current dataset and the selected learning rate, or null while the
  // browser is still working it out (a dataset the page made: the generator's, or your own data).
  function bwTrajectory(a, c) {
    const meta = datasetMeta(a), lr = a.bw_lr.value;
    const name = meta.name || "default", shipped = c.cfg.bandwidth.trajectories[name];
    c.bw.waiting = false;
    c.bw.error = "";
    if (!shipped) {
      let g = {};
      try { g = JSON.parse(a.gen.tags[0] || "{}"); } catch (e) { g = {}; }
      if (g.lr === lr && g.dataset === (a.ds.tags[0] || "")) {
        if (g.error) { c.bw.error = g.error; return null; }
        const d = a.gen.data;
        return { h: Array.from(d.h), loss: Array.from(d.loss), grad: Array.from(d.grad),
                 status: Array.from(d.status), message: Array.from(d.message) };
      }
      c.bw.waiting = true;   // the browser is working it out
      requestPath(a, c, lr);
      return null;
    }
    return shipped[lr] || null;
  }

  // Train h on a dataset the page made (the generator, your own data), keyed by the dataset source's tag: AttnTrain, the twin of attention.train_bandwidth, in a
  // Web Worker for a large dataset (the drag stays smooth meanwhile), on the spot for a small one.  The path
  // arrives in the `gen` source, tagged with its dataset and rate, as any path does (dispatch: ev === a.gen).
  function requestPath(a, c, lr) {
    const key = JSON.stringify([a.ds.tags[0] || "", lr]);
    if (c.bw.asked === key) return;
    c.bw.asked = key;
    const cfg = c.cfg.bandwidth, x = Array.from(a.ds.data.x), y = Array.from(a.ds.data.y);
    const payload = { x, y, lr, h0: cfg.h0, steps: cfg.steps, presets: cfg.presets };
    const tag = { lr, dataset: a.ds.tags[0] || "" };
    const arrive = (cols, extra) => {
      if (c.bw.asked !== key) return;   // the dataset or the rate changed meanwhile
      a.gen.tags = [JSON.stringify(Object.assign({}, tag, extra || {}))];
      a.gen.data = cols;
    };
    const empty = { h: [], loss: [], grad: [], status: [], message: [] };
    const failed = (e) => { if (e.reason !== "cancelled") arrive(empty, { error: e.message }); };
    const here = () => AttnWorker.runHere(AttnTrain.trainColumns, payload, { key: `learning-path:${a.gen.id}` });
    if (x.length <= c.cfg.worker_above_n) { here().promise.then(arrive, failed); return; }
    AttnWorker.run(AttnWorker.modules(c.cfg.worker_modules), "AttnTrain.trainColumns", payload, { key: `learning-path:${a.gen.id}` }).promise.then(arrive, (e) => {
      if (e.reason !== "unavailable") return failed(e);
      // no worker in this browser: train here (the page pauses for a moment), and say why
      c.bw.workerNote = e.message;
      here().promise.then(arrive, failed);
    });
  }

  function lastStep(s) { return s.traj ? s.traj.loss.length - 1 : 0; }

  // The loss plots' y axis spans the whole path from the start, so it never rescales while playing
  // (a rescale costs a re-layout of the plot at every step).  It spans at least a tenth of the path's
  // highest loss: a path that lowers the loss by a hair looks nearly flat rather than like a cliff, and
  // its tick labels keep to four digits (theme.steady_ticks), so a new dataset does not re-lay out the page.
  function fitRange(r, loss, fromZero) {
    let lo = Infinity, hi = -Infinity;
    for (const v of loss) { if (v < lo) lo = v; if (v > hi) hi = v; }
    if (!isFinite(lo)) { lo = 0; hi = 1; }
    lo = Math.min(lo, hi - 0.1 * Math.abs(hi));
    const pad = hi > lo ? 0.08 * (hi - lo) : 0.05 * Math.abs(hi) || 0.05;
    const start = fromZero ? 0 : lo - pad, end = hi + pad;
    if (r.start !== start || r.end !== end) r.setv({ start, end });
  }

  // Put the regression's bandwidth slider at the path's h (in h·√T, see the top of this file).
  function moveSlider(a, c, hEff) {
    const s = c.bw;
    if (a.w_kernel.value !== "gaussian") { a.w_kernel.value = "gaussian"; s.notes.kernel = true; }
    if (a.w_link.active) { a.w_link.active = false; s.notes.link = true; }
    const t = 10 ** a.w_logt.value;
    const want = Math.log10(hEff / Math.sqrt(t));
    const v = clamp(want, a.w_logh.start, a.w_logh.end);
    s.notes.clamped = v !== want ? 10 ** v : null;
    s.expect = v;
    s.manual = false;
    s.moved = true;
    if (a.w_logh.value !== v) a.w_logh.value = v;
  }

  // On your own data (the dataset's tag holds the scale of its x to the sliders'), h in the data's units:
  // the path is trained on the sliders' scale, where h0 = 0.15 means the same everywhere.
  function hText(a, h, p) {
    const sc = datasetMeta(a).scale;
    return sc ? `${plain(h * sc.span / sc.uspan, p)} (${datasetMeta(a).x_name || "x"})` : plain(h, p);
  }

  // The demo's words name where training starts as the readout writes it (twin of bandwidth_text in view.py):
  // the path's first h, or h0 while there is none, in the data's units on your own data.
  function bwText(template, start) { return template.split("{start}").join(esc(start)); }

  function bwReadout(a, c) {
    const s = c.bw, T = s.traj, k = s.step, steps = c.cfg.bandwidth.steps;
    const t = 10 ** a.w_logt.value, hname = t === 1 ? "h" : "h\u00b7\u221aT";
    setHtml(a.bw_text, bwText(c.cfg.bandwidth.text, `${hname} = ${hText(a, T ? T.h[0] : c.cfg.bandwidth.h0, 4)}`));
    if (!T) {
      setHtml(a.bw_readout, s.waiting ? para("step", "Working out the path for this dataset\u2026")
        : para("step", s.error ? `No path for this dataset: ${s.error}` : "No path for this dataset."));
      setHtml(a.bw_status, "");
      return;
    }
    const head = `Step ${k} of ${steps}`;
    const slope = plain(T.grad[k], 3);
    const rest = `${hname} = ${hText(a, T.h[k], 4)}, leave-one-out error ${fixed(T.loss[k], 4)}, ` +
      `slope dL/d(log h) ${slope}`;
    setHtml(a.bw_readout, `<p class="step" aria-live="polite"><b>${esc(head)}</b>: ${esc(rest)}</p>`);

    const notes = [];
    const st = T.status[k];
    if (st === "diverged") notes.push(["notice", `Step ${k}: ${T.message[k]}. The last good h is kept.`]);
    else if (k === lastStep(s) && k > 0) notes.push(["dataset", `Done: after ${k} steps h = ${hText(a, T.h[k], 4)}.`]);
    if (s.moved && t !== 1)
      notes.push(["dataset", `Training runs at T = 1. With T = ${plain(t, 3)} only h\u00b7\u221aT matters, so the ` +
        `path is followed in h\u00b7\u221aT and the slider shows h = (h\u00b7\u221aT) / \u221aT.`]);
    if (s.notes.clamped !== null && s.notes.clamped !== undefined)
      notes.push(["limit", `h = ${hText(a, T.h[k] / Math.sqrt(t), 3)} is beyond the slider's range; ` +
        `the slider stops at ${hText(a, s.notes.clamped, 3)}.`]);
    if (s.notes.kernel)
      notes.push(["dataset", "Training uses the Gaussian similarity, so the kernel was switched to Gaussian."]);
    if (s.notes.link) notes.push(["dataset", "Training moves h alone, so \u201clink h and T\u201d was switched off."]);
    if (s.manual)
      notes.push(["dataset", `You moved h by hand. Step or Play carries on along the path from step ${k}.`]);
    if (s.workerNote) notes.push(["notice", s.workerNote]);
    setHtml(a.bw_status, notes.map(([cls, m]) => para(cls, m)).join(""));   // (Bokeh's .text re-lays out the page)
  }

  function showBandwidth(a, c, move) {
    const s = c.bw, T = s.traj;
    if (!T) {
      a.bw_path.data = { h: [], loss: [] };
      a.bw_now.data = { h: [], loss: [] };
      a.bw_loss.data = { step: [], loss: [] };
      bwReadout(a, c);
      tell(a, c);
      return;
    }
    s.step = clamp(s.step, 0, lastStep(s));
    const k = s.step;
    if (k > 0 && a.bw_path.get_length() === k && a.bw_loss.get_length() === k) {
      // one step on from what is drawn (playing): append a point, cheaper than replacing the columns
      a.bw_path.stream({ h: [T.h[k]], loss: [T.loss[k]] });
      a.bw_loss.stream({ step: [k], loss: [T.loss[k]] });
    } else {
      const ls = T.loss.slice(0, k + 1);
      a.bw_path.data = { h: T.h.slice(0, k + 1), loss: ls };
      a.bw_loss.data = { step: range(k + 1), loss: ls };
    }
    a.bw_now.data = { h: [T.h[k]], loss: [T.loss[k]] };
    if (move) moveSlider(a, c, T.h[k]);
    bwReadout(a, c);
    scheduleUrl(a, c);
  }

  function loadBandwidth(a, c) {
    stop(a, c, "bw");
    c.bw.traj = bwTrajectory(a, c);
    c.bw.lr = a.bw_lr.value;
    c.bw.dsKey = a.ds.tags[0] || "";
    c.bw.step = 0;
    c.bw.manual = false;
    c.bw.notes = {};
    c.bw.moved = false;   // the slider is not on this path until a step, a reset or a link puts it there
    if (c.bw.traj) fitRange(a.bw_loss_range, c.bw.traj.loss, false);
  }

  // ---- the metric -----------------------------------------------------------------------------------

  // The lengths of W's two columns and attention.learn.MetricTrajectory.column_ratio: |column 2| / |column 1|,
  // how much a step along x2 counts relative to one along x1.
  function columnLengths(W) {
    const c1 = Math.hypot(W[0][0], W[1][0]), c2 = Math.hypot(W[0][1], W[1][1]);
    return { c1, c2, ratio: c2 / c1 };
  }

  function showMetric(a, c) {
    const s = c.m, mc = c.cfg.metric, T = s.traj;
    s.step = clamp(s.step, 0, lastStep(s));
    const k = s.step, W = T.W[k], q = s.q;
    const w = M.metricWeights(q, mc.X, W, 1);
    let mx = 0;
    for (const v of w) if (v > mx) mx = v;
    const size = Array.from(w, (v) => 5 + 20 * Math.sqrt(v / mx));
    a.m_samples.data = { x1: c.x1, x2: c.x2, y: mc.y, w: Array.from(w), size };
    const e = M.similarityEllipse(W, mc.level, mc.points, mc.max_radius);
    a.m_ellipse.data = { x: Array.from(e.x, (v) => v + q[0]), y: Array.from(e.y, (v) => v + q[1]) };
    a.m_query.data = { x: [q[0]], y: [q[1]] };
    a.m_loss.data = { step: range(k + 1), loss: T.loss.slice(0, k + 1) };

    const pred = M.dot(w, mc.y), { c1, c2, ratio } = columnLengths(W);
    setHtml(a.m_readout, `<p class="step" aria-live="polite"><b>${esc(`Step ${k} of ${mc.steps}`)}</b>: ` +
      esc(`leave-one-out error ${fixed(T.loss[k], 4)}; at the query (${signed(q[0], 2)}, ${signed(q[1], 2)}) ` +
          `the prediction is ${signed(pred, 2)}, and sin(x\u2081) = ${signed(Math.sin(q[0]), 2)}.`) + `</p>`);
    const cell = (v) => `<td>${esc(signed(v, 3))}</td>`;
    const pct = 100 * ratio;
    setHtml(a.m_matrix,
      `<table class="matrix" aria-label="learned W"><tr><th>W</th><th>x\u2081</th><th>x\u2082</th></tr>` +
      `<tr><th></th>${cell(W[0][0])}${cell(W[0][1])}</tr><tr><th></th>${cell(W[1][0])}${cell(W[1][1])}</tr></table>` +
      para("dataset", `Length of the x\u2081 column ${fixed(c1, 3)}, of the x\u2082 column ${fixed(c2, 3)}: ` +
        `a step along x\u2082 counts ${pct < 10 ? fixed(pct, 1) : fixed(pct, 0)} % as much as one along x\u2081.`));
    const notes = [];
    if (T.status[k] === "diverged") notes.push(para("notice", `Step ${k}: ${T.message[k]}. The last good W is kept.`));
    else if (k === lastStep(s) && k > 0) notes.push(para("dataset", `Done after ${k} steps.`));
    setHtml(a.m_status, notes.join(""));
    scheduleUrl(a, c);
  }

  function loadMetric(a, c) {
    stop(a, c, "m");
    c.m.lr = a.m_lr.value;
    c.m.traj = c.cfg.metric.trajectories[c.m.lr] || c.cfg.metric.trajectories[c.cfg.defaults.metric_lr];
    c.m.step = 0;
    fitRange(a.m_loss_range, c.m.traj.loss, true);
  }

  function setMetricQuery(a, c, x, y) {
    if (!isFinite(x) || !isFinite(y)) return;
    const [lo, hi] = c.cfg.metric.range;
    c.m.q = [clamp(x, lo, hi), clamp(y, lo, hi)];
    showMetric(a, c);
  }

  // ---- playback (shared by both demos) ---------------------------------------------------------------

  function demo(a, c, which) {
    return which === "bw"
      ? { s: c.bw, show: (move) => showBandwidth(a, c, move), play: a.bw_play, pause: a.bw_pause }
      : { s: c.m, show: () => showMetric(a, c), play: a.m_play, pause: a.m_pause };
  }

  function stop(a, c, which) {
    const d = demo(a, c, which);
    if (d.s.timer) { clearInterval(d.s.timer); d.s.timer = null; tell(a, c); }
    quiet(d.play, "disabled", false);
    quiet(d.pause, "disabled", true);
  }

  function stepOnce(a, c, which) {
    const d = demo(a, c, which);
    if (!d.s.traj || d.s.step >= lastStep(d.s)) { stop(a, c, which); return false; }
    d.s.step += 1;
    d.show(true);
    if (d.s.step >= lastStep(d.s)) stop(a, c, which);
    return true;
  }

  function reducedMotion() {
    return typeof matchMedia === "function" && matchMedia("(prefers-reduced-motion: reduce)").matches;
  }

  function play(a, c, which) {
    const d = demo(a, c, which);
    if (d.s.timer || !d.s.traj) return;
    if (d.s.step >= lastStep(d.s)) { d.s.step = 0; d.show(true); }  // at the end: play again from the start
    if (reducedMotion()) {   // a student who asked for less motion gets the path's end at once, drawn whole
      d.s.step = lastStep(d.s) - 1;
      stepOnce(a, c, which);
      return;
    }
    quiet(d.play, "disabled", true);
    quiet(d.pause, "disabled", false);
    tell(a, c);
    // The path advances with the clock, one step per tick_ms: when a redraw takes
    // longer than a tick, the next frame jumps to the step the clock has reached
    // (the plots keep every step), so the pace holds on a slow machine too.
    const t0 = performance.now(), step0 = d.s.step;
    d.s.timer = setInterval(() => {
      try {
        const due = Math.min(lastStep(d.s), step0 + Math.floor((performance.now() - t0) / c.cfg.tick_ms));
        if (due <= d.s.step) return;
        d.s.step = due - 1;
        stepOnce(a, c, which);
      } catch (e) { console.error("attention learning:", e); stop(a, c, which); }
    }, Math.max(10, c.cfg.tick_ms / 2));
  }

  function reset(a, c, which) {
    const d = demo(a, c, which);
    stop(a, c, which);
    d.s.step = 0;
    if (which === "bw") { c.bw.manual = false; d.show(true); } else d.show();
  }

  // ---- the URL follows the state (throttled; only this section's keys are touched) ----------------------

  // ---- what the tour reads and sets (app/tour/model.py learning_readouts, show_me_settings) ----------------

  // The lowest leave-one-out error of the current dataset across the tour's grid of bandwidths, once per dataset
  // (AttnTrain.lowestLoo, windowed sums): on the spot for a small dataset, in a Web Worker above worker_above_n
  // samples (2000 samples and 241 bandwidths take a second or more); null until it is known, and the readouts
  // are told again when it arrives.
  function lowestLoo(a, c) {
    const key = a.ds.tags[0] || "", x = a.ds.data.x;
    if (c.lowest && c.lowest.key === key && c.lowest.n === x.length) return c.lowest.value;
    const lowest = c.lowest = { key, n: x.length, value: null };
    const payload = { x: Array.from(x), y: Array.from(a.ds.data.y), grid: c.cfg.loo_grid };
    const job = `learning-lowest-loo:${a.gen.id}`;
    const arrive = (v) => { if (c.lowest === lowest) { lowest.value = v; tell(a, c); } };
    const failed = (e) => { if (e.reason !== "cancelled") console.error("attention learning:", e.message); };
    if (x.length <= c.cfg.worker_above_n) {
      try { lowest.value = AttnTrain.lowestLoo(payload); } catch (e) { console.error("attention learning:", e.message); }
      return lowest.value;
    }
    AttnWorker.run(AttnWorker.modules(c.cfg.worker_modules), "AttnTrain.lowestLoo", payload, { key: job }).promise.then(arrive, (e) => {
      if (e.reason !== "unavailable") return failed(e);
      AttnWorker.runHere(AttnTrain.lowestLoo, payload, { key: job }).promise.then(arrive, failed);
    });
    return null;
  }

  function readouts(a, c) {
    const out = { lr: a.bw_lr.value, playing: !!c.bw.timer, metric_lr: a.m_lr.value, metric_step: c.m.step,
                  metric_playing: !!c.m.timer };
    const W = c.m.traj.W[c.m.step];
    Object.assign(out, { column_ratio: columnLengths(W).ratio, metric_refused: c.m.traj.status[c.m.step] === "diverged",
                         metric_finished: c.m.step === lastStep(c.m) });
    const T = c.bw.pending ? null : c.bw.traj, k = c.bw.step;   // (a new dataset's path not loaded yet: unknown)
    if (T) {
      const loss = T.loss[k];
      Object.assign(out, { step: k, learned_h: T.h[k], refused: T.status[k] === "diverged", finished: k === lastStep(c.bw) });
      // How far the path's error is above the lowest over the tour's grid: worked out when the tour first reads
      // it (a step that asks), not for every dataset a student makes (at 2000 samples a worker's seconds, which
      // would compete with training for the cores).  Unknown until then: a condition on it is not met yet.
      Object.defineProperty(out, "learned_excess", { enumerable: true, configurable: true, get() {
        const lowest = lowestLoo(a, c);
        if (lowest === null) return undefined;
        const best = Math.min(lowest, loss);
        return best > 0 ? loss / best - 1 : 0;
      } });
    }
    return out;
  }

  function tell(a, c) { E.tellReadouts(a.ds.document, c, "learning", () => readouts(a, c)); }

  // A tour step's Show me: the learning rates, then each path at its step (playback stops).
  function apply(a, c, v) {
    catchUp(a, c);
    stop(a, c, "bw");
    stop(a, c, "m");
    if (v.lr !== undefined && c.cfg.bandwidth.presets.includes(v.lr) && a.bw_lr.value !== v.lr) { a.bw_lr.value = v.lr; loadBandwidth(a, c); }
    if (v.metric_lr !== undefined && c.cfg.metric.presets.includes(v.metric_lr) && a.m_lr.value !== v.metric_lr) {
      a.m_lr.value = v.metric_lr;
      loadMetric(a, c);
    }
    if (v.step !== undefined) { c.bw.step = v.step; c.bw.manual = false; showBandwidth(a, c, c.bw.traj !== null); }
    if (v.metric_step !== undefined) { c.m.step = v.metric_step; showMetric(a, c); }
  }

  function scheduleUrl(a, c) {
    tell(a, c);
    E.scheduleUrl(c, () => {
      const d = c.cfg.defaults, out = new URLSearchParams(window.location.search);
      const put = (k, v) => { if (v === d[k]) out.delete(k); else out.set(k, String(v)); };
      put("lr", a.bw_lr.value);
      put("step", c.bw.step);
      put("metric_lr", a.m_lr.value);
      put("metric_step", c.m.step);
      return out.toString();
    });
  }

  // ---- your own data's units on this section's plots over x and over h ----------------------------------

  // The regression section says on the page's bus which tickers, formatters and labels write the data's units
  // (topic "units"; null: the page's own); the fit (over x) and the path (over h) follow.
  function followUnits(a, c) {
    E.subscribe(a.ds.document, "units", (u) => {
      try { relabel(a, c, u); } catch (e) { console.error("attention learning:", e); }
    });
  }

  function relabel(a, c, u) {
    const axes = c.axes || (c.axes = builtAxes(a));
    const key = u ? u.key : null, fresh = key !== c.unitsKey;   // a new dataset's scale: the same models, drawn again
    c.unitsKey = key;
    for (const k of axes) {
      const scaled = !!(u && u.scaled && k.kind);
      const set = (prop, v) => { if (k.axis[prop] !== v) k.axis[prop] = v; };
      set("axis_label", u ? u[k.label] : k.built.axis_label);
      set("ticker", scaled ? u[`${k.kind}_ticker`] : k.built.ticker);
      set("formatter", scaled ? u[`${k.kind}_format`] : k.built.formatter);
      if (fresh && scaled) k.axis.setv({ formatter: k.axis.formatter }, { check_eq: false });
    }
  }

  function builtAxes(a) {
    return [[a.fit_x_axis, "x", "x_label"], [a.fit_y_axis, null, "y_label"], [a.path_h_axis, "h", "h_label"]]
      .map(([axis, kind, label]) => ({ axis, kind, label,
                                       built: { axis_label: axis.axis_label, ticker: axis.ticker, formatter: axis.formatter } }));
  }

  // ---- start-up and dispatch ----------------------------------------------------------------------------

  // Run fn once the regression's engine has drawn its first frame (both start on document_ready, in
  // either order): the regression section says so on the page's bus (ui/common.js), once.
  function afterRegression(a, fn) {
    let done = false;
    E.subscribe(a.ds.document, "ready", () => { if (!done) { done = true; fn(); } });
  }

  function init(a, c) {
    c.cfg = a.config;
    const mc = c.cfg.metric;
    c.x1 = mc.X.map((p) => p[0]);
    c.x2 = mc.X.map((p) => p[1]);
    c.bw = { step: 0, traj: null, notes: {}, timer: null };
    c.m = { step: 0, traj: null, timer: null, q: Array.from(mc.query) };
    let v = Object.assign({}, c.cfg.initial);
    if (!E.hostOwnsAddress()) {   // the page reads its own link (a notebook's address is JupyterLab's)
      // the regression's engine reports bad values in its notices; here only the clean ones matter
      v = Object.assign(v, E.parseQuery(window.location.search, c.cfg.spec, c.cfg.url_rules).values);
    }
    if (c.cfg.bandwidth.presets.includes(v.lr) && a.bw_lr.value !== v.lr) a.bw_lr.value = v.lr;
    if (mc.presets.includes(v.metric_lr) && a.m_lr.value !== v.metric_lr) a.m_lr.value = v.metric_lr;
    loadBandwidth(a, c);
    loadMetric(a, c);
    c.bw.step = v.step || 0;
    c.m.step = v.metric_step || 0;
    c.ready = true;
    showMetric(a, c);
    showBandwidth(a, c, false);
    if (c.bw.traj && c.bw.step > 0) {
      // a link that opens at a step: put the slider there once the regression is drawn
      afterRegression(a, () => {
        try { showBandwidth(a, c, true); } catch (e) { console.error("attention learning:", e); }
      });
    }
    followUnits(a, c);
    c.urlArmed = true;
    // a tour step's Show me, once the regression is drawn (a path moves its bandwidth slider)
    afterRegression(a, () => E.onApply(a.ds.document, c, "learning",
                                       (v) => E.runGuarded(c, () => apply(a, c, v), (e) => console.error(e))));
  }

  function which(a, origin) {
    for (const [m, w, act] of [[a.bw_play, "bw", "play"], [a.bw_pause, "bw", "pause"], [a.bw_step, "bw", "step"],
                               [a.bw_reset, "bw", "reset"], [a.m_play, "m", "play"], [a.m_pause, "m", "pause"],
                               [a.m_step, "m", "step"], [a.m_reset, "m", "reset"]])
      if (origin === m) return [w, act];
    return [null, null];
  }

  // A new dataset heard but not loaded yet (dispatch, ev === a.ds): load its path and show it now.
  function catchUp(a, c) {
    if (!c.bw.pending) return;
    c.bw.pending = false;
    if ((a.ds.tags[0] || "") === c.bw.dsKey) return;
    loadBandwidth(a, c);
    c.bw.moveOnArrival = false;
    showBandwidth(a, c, false);
  }

  function dispatch(ev, a, c) {
    const name = ev && ev.event_name;
    if (name === "document_ready") return;
    if (ev !== a.ds) catchUp(a, c);
    if (name === "button_click") {
      const [w, act] = which(a, ev.origin);
      if (!w) return;
      if (act === "play") play(a, c, w);
      else if (act === "pause") stop(a, c, w);
      else if (act === "step") { stop(a, c, w); stepOnce(a, c, w); }
      else reset(a, c, w);
      return;
    }
    if (name === "pan" || name === "panstart" || name === "tap" || name === "press") {
      if (ev.x !== undefined && ev.x !== null) setMetricQuery(a, c, ev.x, ev.y);
      return;
    }
    if (ev === a.bw_lr) {  // a new learning rate starts again from h0 (ignore the echo of our own change)
      if (a.bw_lr.value === c.bw.lr) return;
      loadBandwidth(a, c);
      c.bw.moveOnArrival = c.bw.waiting;   // a generated dataset: its path is being trained
      return showBandwidth(a, c, c.bw.traj !== null);
    }
    if (ev === a.ds) {  // a new dataset: a new path, at step 0; the slider stays where it is
      if ((a.ds.tags[0] || "") === c.bw.dsKey) return;
      // The regression engine has drawn the new data and its main plot paints once this task's promises
      // settle: the new path (at 2000 samples about 40 ms here, a Web Worker to start) waits until that frame
      // is drawn.  Meanwhile the old path stops and the tour hears no path readouts (catchUp brings the new
      // path in at once when anything here needs it sooner).
      stop(a, c, "bw");
      c.bw.pending = true;
      tell(a, c);
      return E.afterPaint(c, "new dataset", () => catchUp(a, c), (e) => console.error("attention learning:", e));
    }
    if (ev === a.gen) {  // the browser's path for a generated dataset has arrived
      if (!c.bw.waiting) return;
      const move = c.bw.moveOnArrival === true;
      loadBandwidth(a, c);
      c.bw.moveOnArrival = false;
      return showBandwidth(a, c, move && c.bw.traj !== null);
    }
    if (ev === a.w_logh) {
      if (c.bw.moved && c.bw.expect !== undefined && Math.abs(a.w_logh.value - c.bw.expect) > 1e-12) {
        if (c.bw.timer) stop(a, c, "bw");
        c.bw.manual = true;
        c.bw.expect = undefined;
        bwReadout(a, c);
      }
      return;
    }
    if (ev === a.m_lr) {
      if (a.m_lr.value === c.m.lr) return;
      loadMetric(a, c);
      return showMetric(a, c);
    }
  }

  function handle(ev, a) {
    const c = cacheFor(a);
    E.runGuarded(c, () => { if (!c.ready) init(a, c); else dispatch(ev, a, c); }, (e) => {
      console.error("attention learning:", e);
      if (a.bw_status) a.bw_status.text = para("notice", `Something went wrong in the learning demo (${e.message}).`);
    });
  }

  return { handle, columnLengths, cacheFor, bwText };
})(AttnMirror, AttnCommon);
