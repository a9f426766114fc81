// The learning section's engine: plays back the paths of gradient descent that the core computed.
//
// One Bokeh CustomJS runs the page's library (attention/mirror.js, ui/common.js: the URL parser, number formats and the
// page's bus, ...), then this section's modules, each using the ones before it: onpage.js (the cache, the readouts and
// the link), bandwidth.js and metric.js (the two demos), playback.js, and this file, which starts the section and hands
// each event to the part that answers it.  It is attached to the section's buttons and selects, the metric plot's
// pan/tap events, the regression's bandwidth slider and dataset source, and the source that carries a generated
// dataset's path from the server.

const Learning = (function (U, State, Bandwidth, Metric, Playback) {
  "use strict";

  const { cacheFor, para, tell } = State;
  const { bwReadout, showBandwidth } = Bandwidth;
  const { showMetric, setMetricQuery } = Metric;
  const { loadBandwidth, loadMetric, stop, stepOnce, play, reset, catchUp, apply } = Playback;

  // ---- your own data's units on this section's plots over x and over h ----------------------------------

  // The regression section says on the page's bus which tickers, formatters and labels write the data's units
  // (topic "units"; null: the page's own); the fit (over x) and the path (over h) follow.
  function followUnits(a, c) {
    U.subscribe(a.ds.document, "units", (u) => {
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
    U.subscribe(a.ds.document, "ready", () => { if (!done) { done = true; fn(); } });
  }

  function init(a, c) {
    c.cfg = a.config;
    const mc = c.cfg.metric;
    c.x1 = mc.X.map((p) => p[0]);
    c.x2 = mc.X.map((p) => p[1]);
    c.bw = { step: 0, traj: null, notes: {}, timer: null };
    c.m = { step: 0, traj: null, timer: null, q: Array.from(mc.query) };
    let v = Object.assign({}, c.cfg.initial);
    if (!U.hostOwnsAddress()) {   // the page reads its own link (a notebook's address is JupyterLab's)
      // the regression's engine reports bad values in its notices; here only the clean ones matter
      v = Object.assign(v, U.parseQuery(window.location.search, c.cfg.spec, c.cfg.url_rules).values);
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
    afterRegression(a, () => U.onApply(a.ds.document, c, "learning",
                                       (v) => U.runGuarded(c, () => apply(a, c, v), (e) => console.error(e))));
  }

  function which(a, origin) {
    for (const [m, w, act] of [[a.bw_play, "bw", "play"], [a.bw_pause, "bw", "pause"], [a.bw_step, "bw", "step"],
                               [a.bw_reset, "bw", "reset"], [a.m_play, "m", "play"], [a.m_pause, "m", "pause"],
                               [a.m_step, "m", "step"], [a.m_reset, "m", "reset"]])
      if (origin === m) return [w, act];
    return [null, null];
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
    if (name === "pan" || name === "panstart" || name === "tap" || name === "press" || name === "mousemove") {
      // a button held still 300 ms is BokehJS's press, whose moves come as plain mouse moves until it is let go
      if (name === "press") holdPress(c);
      else if (name !== "mousemove") c.pressing = false;
      if ((name !== "mousemove" || c.pressing) && ev.x !== undefined && ev.x !== null) setMetricQuery(a, c, ev.x, ev.y);
      return;
    }
    if (name === "pressup") { c.pressing = false; return; }
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
      return U.afterPaint(c, "new dataset", () => catchUp(a, c), (e) => console.error("attention learning:", e));
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
    U.runGuarded(c, () => { if (!c.ready) init(a, c); else dispatch(ev, a, c); }, (e) => {
      console.error("attention learning:", e);
      if (a.bw_status) a.bw_status.text = para("notice", `Something went wrong in the learning demo (${e.message}).`);
    });
  }

  // A press lasts until the button or the finger is let go anywhere (a touch the browser takes for a scroll sends
  // BokehJS no pressup).
  function holdPress(c) {
    c.pressing = true;
    if (c.pressEnds || typeof addEventListener !== "function") return;
    c.pressEnds = true;
    for (const t of ["pointerup", "pointercancel"]) addEventListener(t, () => { c.pressing = false; }, true);
  }

  return { handle, columnLengths: State.columnLengths, cacheFor, bwText: Bandwidth.bwText };
})(AttnCommon, LearningOnPage, LearningBandwidth, LearningMetric, LearningPlayback);
