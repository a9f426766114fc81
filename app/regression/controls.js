// The regression section's controls: the state read from the widgets and written back to them (a link's values,
// or the defaults on Reset), the kernel menu's labels, presentation mode, and the main plot's keys and touch.

const RegressionControls = (function (U, T, R, V, S) {
  "use strict";

  const setWidget = U.setWidget;
  const { kernelOptions } = T;
  const { showLimits, showError } = R;
  const { setQuery } = V;
  const { swapDataset, generate } = S;

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
    for (const t of c.cfg.toggles) c[t.key] = a["w_" + t.widget].active;
  }

  function applyState(a, c, v) {
    // values parsed from the URL (static file) or the defaults (reset)
    if (v.query !== undefined) c.query = v.query;
    if (v.bandwidth !== undefined) c.h = v.bandwidth;
    if (v.temperature !== undefined) c.t = v.temperature;
    if (v.kernel !== undefined) c.kernel = v.kernel;
    if (v.key_norm !== undefined) c.key_norm = v.key_norm;
    for (const t of c.cfg.toggles) if (v[t.key] !== undefined) c[t.key] = v[t.key];
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
    for (const t of c.cfg.toggles) setWidget(a["w_" + t.widget], "active", c[t.key]);
    showLimits(a, c);
    c.heff = c.h * Math.sqrt(c.t);
  }

  function kernelLabel(a, c) {
    const want = kernelOptions(c.cfg.kernel_labels, c.key_norm);
    if (JSON.stringify(a.w_kernel.options) !== JSON.stringify(want)) a.w_kernel.options = want;
  }

  // The main plot takes the keyboard's focus (the first Tab stop) and its keys move the query as the query
  // slider's own do (a screen reader hears it as a slider of the query: plotSays, written with the caption): the
  // arrows by the slider's step (Shift: ten steps), Page Up and Page Down by ten steps, Home and End to the slider's
  // ends.  Presenting, Page Up and Page Down turn the tour's steps instead (a clicker's).
  const PLOT_KEYS = { ArrowRight: 1, ArrowLeft: -1, PageUp: 10, PageDown: -10, Home: -Infinity, End: Infinity };

  function plotKeyQuery(key, shift, query, slider) {
    const step = slider.step, d = PLOT_KEYS[key] * (shift && Math.abs(PLOT_KEYS[key]) === 1 ? 10 : 1);
    if (d === Infinity) return slider.end;
    if (d === -Infinity) return slider.start;
    return Math.min(slider.end, Math.max(slider.start, Math.round((query + d * step) / step) * step));
  }

  function arrowKeysMoveQuery(a, c) {
    const v = U.findView(a.shared_figs[0]), el = v && v.canvas_view && v.canvas_view.el;
    if (!el || el.__attnKeys) return;
    el.__attnKeys = true;
    el.setAttribute("tabindex", "0");
    // a slider of the query to a screen reader (its keys are a slider's; Orca reads a role=application plot as a
    // document of its own, says nothing and keeps the arrows): it says the query as the caption writes it
    el.setAttribute("role", "slider");
    el.setAttribute("aria-orientation", "horizontal");
    el.setAttribute("aria-label", "the main plot's query: the arrow keys, Page Up, Page Down, Home and End move it");
    c.plotSays = (q, words) => {
      const put = (k, v) => { if (el.getAttribute(k) !== v) el.setAttribute(k, v); };
      put("aria-valuemin", String(a.w_query.start));
      put("aria-valuemax", String(a.w_query.end));
      put("aria-valuenow", String(q));
      put("aria-valuetext", words);
    };
    if (c.last) c.plotSays(c.query, c.queryWords || "");
    el.addEventListener("keydown", (e) => {
      // presenting, Page Up and Page Down are the clicker's: they turn the tour's steps (app/tour/dock.js)
      if (!Object.prototype.hasOwnProperty.call(PLOT_KEYS, e.key) || e.altKey || e.ctrlKey || e.metaKey) return;
      if (c.present && (e.key === "PageUp" || e.key === "PageDown")) return;
      e.preventDefault();
      e.stopPropagation();
      const q = plotKeyQuery(e.key, e.shiftKey, c.query, a.w_query);
      U.runGuarded(c, () => { setQuery(a, c, q); setWidget(a.w_query, "value", c.query); }, (err) => showError(a, err));
    });
  }

  // On a touch screen the main plot keeps horizontal drags (they move the query) and leaves vertical
  // swipes to the browser, so a swipe that starts on the plot scrolls the page.  This rule, in the canvas'
  // own shadow root, wins over Bokeh's; the sideways-arrow cursor says that the plot is dragged sideways.

  function letVerticalSwipesScroll(fig) {
    const v = U.findView(fig), cv = v && v.canvas_view, root = cv && cv.shadow_el;
    if (!root || root.querySelector("style[data-attn-touch]")) return;
    const st = document.createElement("style");
    st.setAttribute("data-attn-touch", "");
    st.textContent = ".bk-events { touch-action: pan-y pinch-zoom !important; cursor: ew-resize; }";
    root.appendChild(st);
  }

  return { readWidgets, applyState, syncWidgets, kernelLabel, applyPresent, arrowKeysMoveQuery, letVerticalSwipesScroll };
})(AttnCommon, RegressionText, RegressionQueryTexts, RegressionViews, RegressionDatasets);
