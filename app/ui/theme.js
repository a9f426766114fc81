// The page's text sizes for presentation mode (app/ui/theme.py holds the numbers).
//
// The sizes come from app/ui/theme.py through each engine's config (cfg.theme):
// HTML text follows the CSS variables set on the document's roots, canvas text
// (titles, ticks, axis labels, legends, colour bars) is set on each figure.

const Theme = (function () {
  "use strict";

  function sizeFigure(fig, s) {
    if (fig.title && fig.title.text_font_size !== undefined && fig.title.text_font_size !== s.title)
      fig.title.text_font_size = s.title;
    for (const r of [...fig.left, ...fig.below, ...fig.right, ...fig.above, ...fig.center]) {
      if (r.type === "Legend") {
        if (r.label_text_font_size !== s.legend) r.label_text_font_size = s.legend;
      } else if (r.type === "ColorBar") {
        if (r.major_label_text_font_size !== s.tick) r.major_label_text_font_size = s.tick;
        if (r.title_text_font_size !== s.tick) r.title_text_font_size = s.tick;
      } else if (r.major_label_text_font_size !== undefined) {
        if (r.major_label_text_font_size !== s.tick) r.major_label_text_font_size = s.tick;
        if (r.axis_label_text_font_size !== s.axis_label) r.axis_label_text_font_size = s.axis_label;
      }
    }
  }

  // The page's look is page-wide: whichever section owns the presentation toggle applies it to every
  // figure of the document and to the CSS variables of its roots.  shared: the figures whose x axes line up.
  // Taller plots for a projector come with a page opened at ?present=1 (built so in Python by
  // theme.present_figures when it can be, else grown here at start); switching at run time changes the
  // text only, since resizing every live plot takes seconds.
  // heights: also grow the fixed-height plots (when the page opens, never on a live toggle).
  // A fixed-height plot's height at normal sizes, remembered the first time it is seen (the page may have
  // been built at presentation sizes), so applying a look twice never grows a plot twice.
  // (on globalThis: this file runs in the loader and again inside the engines' code, and they must agree)
  const BASE = globalThis.__attnThemeBase || (globalThis.__attnThemeBase = new WeakMap());
  const FRAMES = globalThis.__attnThemeFrames || (globalThis.__attnThemeFrames = new WeakMap());
  function baseHeight(m, cfg) {
    if (!BASE.has(m)) {   // a page built at presentation sizes noted each plot's normal height in its tags
      const noted = cfg.built_present ? (m.tags || []).find((t) => t && typeof t.normal_height === "number") : null;
      BASE.set(m, noted ? noted.normal_height : m.height);
    }
    return BASE.get(m);
  }
  // twin of present_height in app/ui/theme.py: PRESENT_GROWTH px taller, and at least PRESENT_MIN_HEIGHT
  function presentHeight(h, cfg) { return Math.max(h + cfg.present_growth, cfg.present_min_height); }

  // The shared-x plots' borders: narrower on a phone, where every pixel of the plot's frame counts.
  function isNarrow(cfg) { return typeof window !== "undefined" && window.innerWidth < (cfg.narrow_width || 0); }
  function borders(cfg, key) {
    return (isNarrow(cfg) && cfg.shared_x_borders[key + "_narrow"]) || cfg.shared_x_borders[key];
  }

  // On a phone the axis labels of the shared-x plots step aside (each plot's title says what it shows),
  // so their narrow borders hold the tick labels alone; they come back on a wider screen.
  const LABELS = globalThis.__attnThemeLabels || (globalThis.__attnThemeLabels = new WeakMap());
  function sideLabels(fig, show) {
    for (const ax of [...fig.left, ...fig.right, ...fig.below]) {
      if (ax.axis_label === undefined) continue;
      if (!LABELS.has(ax)) LABELS.set(ax, ax.axis_label);
      const want = show ? LABELS.get(ax) : "";
      if (ax.axis_label !== want) ax.axis_label = want;
    }
  }

  // Words drawn inside a plot (a text glyph): larger on a projector, at least 20 px (twin of
  // present_text_size in app/ui/theme.py); their normal size is remembered the first time they are seen.
  const TEXT_BASE = globalThis.__attnThemeText || (globalThis.__attnThemeText = new WeakMap());
  function sizeTexts(fig, cfg, present) {
    for (const r of fig.renderers || []) {
      const g = r.glyph, size = g && g.text_font_size;
      if (!size) continue;
      if (!TEXT_BASE.has(g)) {
        const raw = typeof size === "string" ? size : size.value;
        const px = typeof raw === "string" && raw.endsWith("px") ? Number(raw.slice(0, -2)) : NaN;
        TEXT_BASE.set(g, cfg.built_present ? Math.round(px / cfg.present_text[0]) : px);
      }
      const base = TEXT_BASE.get(g);
      if (!isFinite(base)) continue;
      const [scale, min] = cfg.present_text;
      const want = `${present ? Math.max(min, Math.round(base * scale)) : base}px`;
      const now = typeof size === "string" ? size : size.value;
      if (now !== want) g.text_font_size = typeof size === "string" ? want : { value: want };
    }
  }

  function apply(doc, cfg, present, shared, heights) {
    const key = present ? "present" : "normal", s = cfg.sizes[key], vars = cfg.vars[key];
    if (!doc) return;
    // the plots' font sizes, kept for the task (app/ui/common.js lightenRepaints), are read again
    const light = globalThis.__attnLightRepaints;
    if (light) light.task += 1;
    for (const m of doc.all_models) {
      if (m.title === undefined || m.left === undefined || m.below === undefined) continue;
      sizeFigure(m, s);
      sizeTexts(m, cfg, present);
      if (heights && m.height != null && m.frame_height == null && m.sizing_mode !== "stretch_both") {
        const h = present ? presentHeight(baseHeight(m, cfg), cfg) : baseHeight(m, cfg);
        if (m.height !== h) m.height = h;
      }
      // a small fixed frame (a head's matrix) grows by half for a projector, as theme.present_figures grows it.  (A
      // page built at presentation sizes and opened at normal ones keeps those frames as built: which ones grew
      // cannot be told from their sizes, and larger small multiples do no harm.)
      if (heights && m.frame_height != null && m.frame_width != null && !cfg.built_present) {
        if (!FRAMES.has(m)) FRAMES.set(m, [m.frame_width, m.frame_height]);
        const [w0, h0] = FRAMES.get(m), grow = present && h0 < cfg.present_min_frame;
        const [fw, fh] = grow ? [w0, h0].map((v) => Math.round(v * cfg.present_height)) : [w0, h0];
        if (m.frame_width !== fw) m.frame_width = fw;
        if (m.frame_height !== fh) m.frame_height = fh;
      }
    }
    const [left, right] = borders(cfg, key), narrow = isNarrow(cfg);
    for (const fig of shared || []) {
      if (fig.min_border_left !== left) fig.min_border_left = left;
      if (fig.min_border_right !== right) fig.min_border_right = right;
      sideLabels(fig, !narrow);
    }
    // The page (the offline file, the served page) sizes its text by CSS variables on its <main>; a notebook's
    // output by the variables on its roots.
    const page = typeof document !== "undefined" ? document.querySelector(".attn-page") : null;
    if (page) {
      if (page.getAttribute("data-present") !== (present ? "1" : "0")) page.setAttribute("data-present", present ? "1" : "0");
      return;
    }
    for (const root of doc.roots()) {
      const st = root.styles || {};
      if (Object.keys(vars).some((k) => st[k] !== vars[k])) root.styles = Object.assign({}, st, vars);
    }
  }

  // Every control gets an accessible name that BokehJS leaves out: the slider handles, the checkbox
  // inputs and the number inputs' step buttons.  Run once the views exist (at document_ready).
  function nameControls(doc, view) {
    const index = typeof window !== "undefined" && window.Bokeh && window.Bokeh.index;
    if (!doc || !index || !index.find_one) return;
    const put = (el, name) => { if (el && name && !el.getAttribute("aria-label")) el.setAttribute("aria-label", name); };
    const views = [];
    if (view) {   // one drawn block: its views only
      const walk = (v) => { views.push(v); for (const ch of v.child_views || []) walk(ch); };
      walk(view);
    }
    for (const v of view ? views : Array.from(doc.all_models, (m) => index.find_one(m))) {
      const m = v && v.model, root = v && v.shadow_el;
      untabPlot(v);
      if (!root) continue;
      const name = String(m.title || m.label || m.name || "").trim();
      for (const h of root.querySelectorAll(".noUi-handle")) put(h, name);
      speakShownValue(root);
      for (const i of root.querySelectorAll('input[type="checkbox"]')) put(i, name);
      for (const b of root.querySelectorAll(".bk-spin-btn-up")) put(b, `${name}: one more`);
      for (const b of root.querySelectorAll(".bk-spin-btn-down")) put(b, `${name}: one less`);
    }
  }

  // BokehJS gives every plot's event layer a Tab stop with no name; a plot is not a control (the main plot, which
  // is, takes the keyboard on its canvas: app/regression/controls.js), so the layer leaves the Tab order.
  function untabPlot(v) {
    const cv = v && v.canvas_view, root = cv && cv.shadow_el;
    if (!root) return;
    for (const e of root.querySelectorAll(".bk-events")) if (e.tabIndex !== -1) e.tabIndex = -1;
  }

  // A slider's handle says the value the slider shows (its title's value: "0.620" for h, not noUiSlider's "-0.21",
  // the log it moves on), after every move: noUiSlider writes its raw value into aria-valuetext on each update,
  // and the title is written after it, so an observer of the slider's shadow root writes the shown text last.
  const SPOKEN = new WeakSet();
  function speakShownValue(root) {
    if (SPOKEN.has(root) || !root.querySelector(".noUi-handle") || typeof MutationObserver !== "function") return;
    SPOKEN.add(root);
    const say = () => {
      const shown = root.querySelector(".bk-slider-value");
      const text = shown && shown.textContent.trim();
      if (!text) return;
      for (const h of root.querySelectorAll(".noUi-handle"))
        if (h.getAttribute("aria-valuetext") !== text) h.setAttribute("aria-valuetext", text);
    };
    new MutationObserver(say).observe(root, { childList: true, subtree: true, characterData: true,
                                              attributes: true, attributeFilter: ["aria-valuetext"] });
    say();
  }

  return { apply, sizeFigure, nameControls };
})();
