// "More controls": the regression section's one disclosure, served page and offline file alike.
//
// One small Bokeh CustomJS of its own (after ui/common.js), not part of the section's engine.
// The column of less-used controls (those app/regression/state.py declares with the role "more": kernel,
// key-norm tilt, dataset, the check boxes; then Reset, the link button and the dataset generator) is shown or
// hidden by the button,
// whose aria-expanded says which.  The column opens by itself, and never closes by itself, when a
// control inside it holds something other than its default: a deep link (?kernel=dot, ?link=1 ...),
// a tour step's "Show me", a notebook setting e.kernel = "dot".  The tour opens it too when a step
// needs one of these controls (app/tour/tour.js).

const AttnMore = (function (U) {
  "use strict";

  // The widget's value against the deep link's default for its key.
  function away(key, value, cfg) {
    const d = cfg.defaults[key];
    if (typeof d === "number") return Math.abs(Number(value) - d) > 1e-9;
    return value !== d;
  }

  // A control behind the disclosure (the section's declared ones, app/regression/state.py) away from its default.
  function needed(a) {
    return a.config.controls.some((t) => away(t.key, a.w[t.widget][t.prop], a.config));
  }

  // The page reads its own link (in a notebook the address is JupyterLab's, and Python set the widgets).
  function linkNeedsIt(a) {
    if (U.hostOwnsAddress()) return false;
    const { values } = U.parseQuery(window.location.search, a.config.spec, a.config.url_rules);
    return a.config.keys.some((k) => values[k] !== undefined && away(k, values[k], a.config));
  }

  // The button's DOM element: BokehJS has no property for aria-expanded, so it is set on the element.
  function buttonEl(m) {
    const index = typeof window !== "undefined" && window.Bokeh && window.Bokeh.index;
    const v = index && index.find_one ? index.find_one(m) : null;
    return v && v.shadow_el ? v.shadow_el.querySelector("button") : null;
  }

  function show(a) {
    const open = a.more.visible === true;
    const b = buttonEl(a.button);
    if (b && b.getAttribute("aria-expanded") !== String(open)) b.setAttribute("aria-expanded", String(open));
    // the column is a block of its own, drawn when the browser is idle: opened earlier, it is drawn now
    if (open && globalThis.AttnPage && a.config.block) globalThis.AttnPage.ensure(a.config.block);
  }

  function open(a) {
    if (a.more.visible !== true) a.more.visible = true;
    show(a);
  }

  function handle(ev, a) {
    try {
      const ready = ev && (ev.event_name === "document_ready" || typeof ev.roots === "function");
      if (ready) {
        if (linkNeedsIt(a) || needed(a)) open(a); else show(a);
        return;
      }
      if (ev && ev.event_name === "button_click") {
        a.more.visible = a.more.visible !== true;
        show(a);
        return;
      }
      if (ev === a.more) { show(a); return; }
      if (needed(a)) open(a); else show(a);   // a hidden control moved away from its default
    } catch (e) {
      console.error("attention explorable, more controls:", e);
    }
  }

  return { handle, needed, away };
})(AttnCommon);
