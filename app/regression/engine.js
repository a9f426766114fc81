// The regression section's engine: runs in the browser on every gesture.
//
// One Bokeh CustomJS holds the section's modules, each using only those before it: text.js (the words),
// address.js, units.js, querytexts.js, views.js (the plots), datasets.js, owndata.js (your own data), controls.js
// and this file (the start and the events).  The page's library (attention/mirror.js, ui/common.js and the rest) is on
// globalThis.  The engine is attached to every control, the query line and the main plot's pointer events, so
// the served page and the offline file behave identically.  It reads the state from the widgets, computes with
// AttnMirror and writes the plots' data sources and the readout texts.

const Regression = (function (M, U, A, R, V, S, O, C) {
  "use strict";

  const clamp = U.clamp, setWidget = U.setWidget;
  const { scheduleUrl, setHash } = A;
  const { showLimits, showNotices, showError } = R;
  const { queryViews, kernelViews, errorCurves, dataViews, newDataViews, setQuery } = V;
  const { loadData, swapDataset, generatorValues, generate } = S;
  const { showYours, fromPython, readFragment, readCarried, wireForm, acceptDrops } = O;
  const { readWidgets, applyState, syncWidgets, kernelLabel, applyPresent, arrowKeysMoveQuery,
          letVerticalSwipesScroll } = C;

  function cacheFor(a) { return U.pageState("__attnExplorableCache", a.ds); }

  function init(a, c) {
    c.cfg = a.config;
    c.grid = M.linspace(c.cfg.x_range[0], c.cfg.x_range[1], c.cfg.grid_n);
    RegressionReadouts.offer(a, c);   // the tour asks for them (readouts.js)
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
    if (c.hcurveStale && V.errorsDrawn(a)) errorCurves(a, c);
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
    // (fitted to a short frame, ?embed=, the page posts no height: app/ui/embed.js)
    if (window.parent === window || window.__attnHeightWatch || (globalThis.AttnEmbed && AttnEmbed.embedded())) return;
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

  // ---- what each gesture does -------------------------------------------------------------------------

  // A drag moves the query while it goes more sideways than up or down; a vertical swipe on a phone
  // is the browser's, to scroll the page.  Where the event carries no usable screen position (seen in
  // a JupyterLab output), every drag moves the query, as a mouse drag always should.
  function onPan(ev, a, c) {
    const p = c.pan || {};
    const dx = Math.abs(ev.sx - p.sx), dy = Math.abs(ev.sy - p.sy);
    const sideways = !(isFinite(dx) && isFinite(dy)) || dx > dy;
    if (sideways && ev.x !== undefined && ev.x !== null) setQuery(a, c, ev.x);
  }

  // The generator's samples, drawn anew: its button, or "generated" picked in the dataset menu.
  function onGenerate(a, c) {
    const { values, notes } = generatorValues(a, c);
    if (generate(a, c, values)) { showNotices(a, notes); newDataViews(a, c); scheduleUrl(a, c); }
  }

  // Reset: the opening state, your data kept (a separate button returns the shipped)
  function onReset(a, c) {
    const d = Object.assign({}, c.cfg.defaults);
    if (a.w_dataset.value === "yours") delete d.dataset;
    else if (a.w_dataset.value !== d.dataset) { setWidget(a.w_dataset, "value", d.dataset); swapDataset(a, c, d.dataset); }
    applyState(a, c, d);
    applyPresent(a, c);
    dataViews(a, c);
  }

  // A button held still for BokehJS's press time (300 ms) before it moves is a press, not a drag: BokehJS then
  // sends no pan for the moves that follow, only the plain moves of the pointer (tests/browser/test_bokeh_press.py).
  // From the press to its release those moves drag the query as a pan's do.  (A release BokehJS does not report,
  // a touch the browser took over for scrolling, ends the press too: a later hover moves nothing.)
  function onPress(name, ev, a, c) {
    if (name === "press") {
      c.pan = { sx: ev.sx, sy: ev.sy };
      c.pressing = true;
      if (!c.pressEnds && typeof addEventListener === "function") {
        c.pressEnds = true;
        for (const t of ["pointerup", "pointercancel"]) addEventListener(t, () => { c.pressing = false; }, true);
      }
      if (ev.x !== undefined && ev.x !== null) setQuery(a, c, ev.x);
    } else if (name === "mousemove") { if (c.pressing) onPan(ev, a, c); }
    else c.pressing = false;   // pressup
  }

  // Bokeh's named events: on the main plot a drag, a tap or a press (held and moved: onPress) moves the query; the
  // generator's button and Reset.  True when the event was one of them.
  function onEvent(name, ev, a, c) {
    if (name === "panstart") { c.pan = { sx: ev.sx, sy: ev.sy }; c.pressing = false; }
    else if (name === "pan") onPan(ev, a, c);
    else if (name === "press" || name === "pressup" || name === "mousemove") onPress(name, ev, a, c);
    else if (name === "tap") { c.pressing = false; if (ev.x !== undefined && ev.x !== null) setQuery(a, c, ev.x); }
    else if (name === "button_click" && ev.origin === a.g_go) onGenerate(a, c);
    else if (name === "button_click") onReset(a, c);
    else return false;
    return true;
  }

  // The engine's own write of the slider comes back here as a change, after a microtask: nothing to redo,
  // even when a newer move is waiting for the next frame (the slider shows the query drawn last).
  function onQuerySlider(a, c) {
    const v = a.w_query.value, echo = v === c.sliderWrite;
    c.sliderWrite = undefined;
    if (v !== c.query && !echo) setQuery(a, c, v);
  }

  function onWidthSliders(ev, a, c) {
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
    kernelViews(a, c);
  }

  function onKernel(a, c) {
    c.kernel = a.w_kernel.value;
    c.key_norm = a.w_keynorm.value;
    setWidget(a.w_keynorm, "visible", c.kernel === "dot");
    kernelLabel(a, c);
    dataViews(a, c);
  }

  function onDatasetMenu(a, c) {
    if (a.w_dataset.value === "generated") return onGenerate(a, c);
    if (a.w_dataset.value === "yours") {
      if (c.yours) { showYours(a, c); dataViews(a, c); scheduleUrl(a, c); }
      return;
    }
    if (swapDataset(a, c, a.w_dataset.value)) { newDataViews(a, c); scheduleUrl(a, c); }
  }

  function onDataSource(a, c) {
    // (this engine's own write of the data source is heard after the write's task: already drawn)
    if (c.loadedData === a.ds.data && c.viewedData === a.ds.data) return;
    loadData(a, c);
    dataViews(a, c);
  }

  // An event (named) or a model that changed (the widget, span or data source this engine is attached to).
  function dispatch(ev, a, c) {
    const name = ev && ev.event_name;
    if (name === "document_ready" || onEvent(name, ev, a, c)) return;
    if (ev === a.span_main) setQuery(a, c, a.span_main.location);
    else if (ev === a.w_query) onQuerySlider(a, c);
    else if (ev === a.w_logh || ev === a.w_logt) onWidthSliders(ev, a, c);
    else if (ev === a.w_kernel || ev === a.w_keynorm) onKernel(a, c);
    else if (ev === a.w_dataset) onDatasetMenu(a, c);
    else if (ev === a.ds) onDataSource(a, c);
    else if (ev === a.user_data) { if (fromPython(a, c)) { dataViews(a, c); scheduleUrl(a, c); } }
    else {
      const t = c.cfg.toggles.find((t) => ev === a["w_" + t.widget]);
      if (t) { c[t.key] = ev.active; TOGGLED[t.key](a, c); }
    }
  }

  // What a check box does once the state holds its new value (the check boxes are state.py's CONTROLS).
  const TOGGLED = {
    link: (a, c) => { c.heff = c.h * Math.sqrt(c.t); scheduleUrl(a, c); },
    limits: (a, c) => { showLimits(a, c); scheduleUrl(a, c); },
    present: (a, c) => { applyPresent(a, c); queryViews(a, c); },
    kernel_shape: (a, c) => { queryViews(a, c); scheduleUrl(a, c); },
  };

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

  return { handle, cacheFor };
})(AttnMirror, AttnCommon, RegressionAddress, RegressionQueryTexts, RegressionViews,
   RegressionDatasets, RegressionOwnData, RegressionControls);
