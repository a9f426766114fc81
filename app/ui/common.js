// What every section's engine shares: per-page state, writing to models and rendered Divs, the throttled
// address, and a page-level bus through which sections tell each other what happened (the regression is
// drawn, presentation mode changed) without knowing each other's models; with the text and number formats
// and the URL parser of ui/format.js, which AttnCommon carries too.  Every engine is one Bokeh CustomJS made
// of its own engine.js on the page's one library (app/ui/engine.py); no engine includes another's.

const AttnCommon = (function (F) {
  "use strict";

  // ---- per-page state and guarded handlers ---------------------------------------------------------

  // Bokeh runs the CustomJS body afresh on every event (each engine's file is re-evaluated), so an engine's
  // per-page state lives outside it: in a WeakMap on globalThis called `store`, keyed by one model of its section.
  function pageState(store, key, fresh) {
    const map = globalThis[store] || (globalThis[store] = new WeakMap());
    let c = map.get(key);
    if (!c) { c = Object.assign({ ready: false, busy: false }, fresh); map.set(key, c); }
    return c;
  }

  // Run one event's work for an engine: never re-entered (an engine's own changes fire events
  // too), and an error goes to `onError` (shown on the page) instead of stopping the page.
  function runGuarded(c, work, onError) {
    if (c.busy) return;
    c.busy = true;
    try {
      work();
    } catch (e) {
      onError(e);
    } finally {
      c.busy = false;
    }
  }

  function clamp(v, lo, hi) { return Math.min(hi, Math.max(lo, v)); }

  // ---- writing to the page -------------------------------------------------------------------------

  function setWidget(w, prop, v) { if (w && w[prop] !== v) w[prop] = v; }

  // Set a property without telling the server (a served page would otherwise
  // send every frame of a drag over the websocket).
  function quiet(m, prop, v) { if (m && m[prop] !== v) m.setv({ [prop]: v }, { sync: false }); }

  // Bokeh re-renders a Div and re-lays out the page on every change of its text (10-40 ms): too slow for a drag.
  // Texts that change every frame are written straight into the Div's rendered element, and the model is updated
  // silently so it always holds what is shown.
  // The views found, by model, kept on the page: an engine's code runs afresh for every event, and looking a
  // view up walks every view of the page (a few ms each time on the whole page).
  const VIEWS = globalThis.__attnViews || (globalThis.__attnViews = new WeakMap());

  // (a view Bokeh has since destroyed, as when a notebook output is drawn again, is looked up afresh)
  function findView(model) {
    const known = VIEWS.get(model);
    if (known && !known.is_destroyed) return known;
    const index = (typeof window !== "undefined" && window.Bokeh && window.Bokeh.index) || {};
    if (typeof index.find_one === "function") {
      const v = index.find_one(model);
      if (v) VIEWS.set(model, v);
      return v || null;
    }
    const stack = Object.values(index);
    while (stack.length) {
      const v = stack.pop();
      if (v.model === model) { VIEWS.set(model, v); return v; }
      for (const child of v.child_views || []) stack.push(child);
    }
    return null;
  }

  // ---- painting plots: one paint per frame, and the plot under the pointer at once ------------------

  // BokehJS paints a plot at the animation frame after a change, but also at most once per 1000/60 ms by
  // the clock (rounded to whole ms): a drag that moves every frame often finds 16 ms since the last paint,
  // waits a timer and paints a frame late.  framePaints(view) swaps that for a frame-aligned schedule: a
  // change is painted at the next frame, once, however many changes came before it.
  function plotView(fig) {
    const v = findView(fig);
    return v && typeof v.repaint === "function" ? v : null;
  }

  // The plot's tick labels changed without its ranges (a sentence of as many words, other words): its next paint
  // measures its axes again (lightenRepaints asks them only when a range, a title or a legend changed).
  function relabel(fig) {
    const v = plotView(fig);
    if (!v) return;
    v.__attnSideKey = null;
    v.request_paint();
  }

  function framePaints(view) {
    if (view.__attnFrames) return view.__attnFrames;
    lightenRepaints(view);
    const s = view.__attnFrames = { frame: null, waiting: [], soon: false };
    s.paint = () => {
      s.frame = null;
      const done = s.waiting.splice(0);
      try { if (!view.is_destroyed) view.repaint(); } finally { for (const r of done) r(); }
    };
    if (typeof requestAnimationFrame !== "function") return s;
    AttnBokeh.paintRequests(view, () => new Promise((resolve) => {
      s.waiting.push(resolve);
      if (s.frame === null) s.frame = requestAnimationFrame(s.paint);
    }));
    return s;
  }

  // Three things BokehJS 3.9 does at every repaint of every plot, which a drag pays for at every move and this
  // page never needs (profiled at the default n: 430 and 250 ms of the main thread per 150 moves, a quarter
  // of the JavaScript):
  // - before it paints, a plot asks each axis and title whether its size changed, and the axis answers by
  //   laying out and measuring every tick label again.  That size depends on the ranges (which ticks, how
  //   wide their labels), the categories of a categorical axis, a title's text, a legend's entries and the
  //   fonts; any other change of an axis (its label, its formatter, its font size) already asks the plot
  //   for a new layout itself.  So the question is asked only when one of those changed since last asked.
  // - each colour, width and dash read at paint time first looks for a --bk-* CSS variable that would
  //   override it (getComputedStyle, which restyles the page first when any text changed since).  The page
  //   and Panel define none; each visual's answer is kept once its element is on the page.
  // - each text a plot lays out (every tick label of every axis) asks the plot for its font size, which reads
  //   getComputedStyle and restyles the page first whenever anything was written since: a new sentence's
  //   matrix, whose labels are measured while the page is written, restyled it once per label.  The answer
  //   is kept until a timer task after it has run (the page's CSS sizes do not change meanwhile; Theme.apply starts a new
  //   count anyway).
  // - each glyph renderer writes its element's position (an empty element: glyphs are drawn on the canvas)
  //   into a <style> of its own at every paint, and BokehJS writes sheets again with the text they hold;
  //   every written sheet is parsed again and restyles the page (at the shipped 24 samples a fifth of the
  //   main thread's work in a drag).  A glyph's position is written only when its element holds something,
  //   and a sheet only when its text changes.
  // All are patched on BokehJS's classes once per page, found from the first plot view (nothing changes if a later
  // BokehJS renames them); globalThis.__attnLightRepaints records what was patched, for the tests.
  const LIGHT = globalThis.__attnLightRepaints || (globalThis.__attnLightRepaints = { layout: false, css: false, sheets: false, positions: false, fontSize: false, fontEpoch: 0, task: 0, taskEnds: false });

  function rangeKey(r) {
    if (!r) return "";
    return Array.isArray(r.factors) ? `${r.start}|${r.end}|${r.factors.join("\u0001")}` : `${r.start}|${r.end}`;
  }

  function sideKey(pv) {
    const m = pv.model, parts = [LIGHT.fontEpoch, rangeKey(m.x_range), rangeKey(m.y_range)];
    for (const extra of [m.extra_x_ranges, m.extra_y_ranges]) {
      if (extra) for (const r of (extra instanceof Map ? extra.values() : Object.values(extra))) parts.push(rangeKey(r));
    }
    for (const panel of m.side_panels || []) {
      if (typeof panel.text === "string") parts.push(panel.text);   // a title
      if (Array.isArray(panel.items))                                // a legend beside the plot: its entries
        for (const item of panel.items) parts.push(`${item.visible !== false}${JSON.stringify(item.label)}`);
    }
    return parts.join("\u0002");
  }

  // The patches themselves reach BokehJS's private names, so they live behind its door (app/ui/bokehjs.js).
  function lightenRepaints(view) { AttnBokeh.lighten(view, LIGHT, sideKey); }

  // paintSoon(fig): paint this plot before the coming frame instead of at it, for the plot under the pointer.
  // BokehJS takes in a source's new columns through promises that settle before the current task ends, and the
  // plot is painted right after them: a pointer event runs before the frame's callbacks, so the frame shows it.
  function paintSoon(fig) {
    const v = plotView(fig);
    if (!v || !v.renderer_views) return;
    const s = framePaints(v);
    if (s.soon) return;
    s.soon = true;
    const paint = () => {
      s.soon = false;
      if (s.frame === null) return;   // nothing new to show (or painted meanwhile)
      cancelAnimationFrame(s.frame);
      s.paint();
    };
    Promise.all(Array.from(v.renderer_views.values(), (r) => r.ready)).then(paint, paint);
  }

  // relayoutWhenReady(box, fig): lay out the block around `box` again (its sizes were set silently) once the
  // plot `fig` in it has taken in its new data, then paint that plot at once, a single time.  BokehJS paints a
  // plot whose size changed inside the layout itself: laid out before the new data is in, the plot painted
  // its old data once more in vain (the dearest part of a new sentence's matrix) and the frame painted it
  // again.  Here the layout holds the paint (the plot's hold_render, set silently) and the plot paints right
  // after it, as paintSoon does, instead of at the frame.  Returns at once; all of it runs before the task ends.
  function relayoutWhenReady(box, fig) {
    const bv = findView(box), v = plotView(fig);
    if (!bv) return;
    const run = () => {
      if (bv.is_destroyed) return;
      const m = v && !v.is_destroyed ? v.model : null;
      if (m) m.setv({ hold_render: true }, { silent: true });
      try { bv.invalidate_layout(); } finally { if (m) m.setv({ hold_render: false }, { silent: true }); }
      if (!m) return;
      const s = v.__attnFrames;
      if (s && s.frame !== null) { cancelAnimationFrame(s.frame); s.paint(); } else v.repaint();
    };
    if (!v || !v.renderer_views) { run(); return; }
    Promise.all(Array.from(v.renderer_views.values(), (r) => r.ready)).then(run, run);
  }

  function setHtml(div, html) {
    if (div.text === html) return;
    const el = AttnBokeh.markupElement(findView(div));
    if (el) {
      div.setv({ text: html }, { silent: true });
      el.innerHTML = html;
    } else {
      div.text = html;
    }
  }

  // A plot's paint reads its colours through getComputedStyle, so HTML changed before the paint makes the
  // paint restyle the whole page first (about 10 ms).  afterPaint(c, key, job, onError) runs job once, at
  // the frame after the next one: the plots paint the new data in the next frame and the texts follow a
  // frame later.  Several calls with the same key before then run only the last one (a drag's latest).
  // globalThis.__attnTextsPending counts the sections whose texts are still to come (0: the page's texts
  // show its state), for scripts and tests that read them.
  function afterPaint(c, key, job, onError) {
    if (typeof requestAnimationFrame !== "function") { runGuarded(c, job, onError); return; }
    (c.afterPaint || (c.afterPaint = new Map())).set(key, job);
    if (c.afterPaintFrame) return;
    globalThis.__attnTextsPending = (globalThis.__attnTextsPending || 0) + 1;
    c.afterPaintFrame = requestAnimationFrame(() => requestAnimationFrame(() => {
      c.afterPaintFrame = null;
      const jobs = Array.from(c.afterPaint.values());
      c.afterPaint.clear();
      try {
        for (const j of jobs) runGuarded(c, j, onError);
      } finally {
        globalThis.__attnTextsPending -= 1;
      }
    }));
  }

  // ---- the address follows the state (throttled) ---------------------------------------------------

  // In a notebook the address is JupyterLab's (app/delivery/page.py's EngineStarter says so): it keeps it.
  function hostOwnsAddress() { return globalThis.__attnHostOwnsAddress === true; }

  // At most one rewrite of the address per `delay` ms (not every frame of a drag).  query(): the section's new query;
  // before(): work due at the same pace (optional).  The fragment ("#data1.…") is the regression's: kept.
  function scheduleUrl(c, query, before, delay) {
    if (!c.urlArmed || c.urlTimer || hostOwnsAddress()) return;
    c.urlTimer = setTimeout(() => {
      c.urlTimer = null;
      if (before) before();
      try {
        const q = query();
        window.history.replaceState(null, "", (q ? "?" + q : window.location.pathname) + window.location.hash);
      } catch (e) { /* a sandboxed frame may refuse; the page works without it */ }
    }, delay === undefined ? 150 : delay);
  }

  // The page's skeleton as its file brought it, before anything was drawn into it (common.js first runs in the
  // loader's script, at the file's end), to save itself later (AttnShare.pageWithData); null in a notebook, a session.
  if (typeof document !== "undefined" && globalThis.__attnSkeleton === undefined) {
    const main = document.querySelector("main.attn-page");
    globalThis.__attnSkeleton = main && !main.querySelector("[data-drawn]") && document.getElementById("attn-doc")
      ? main.innerHTML : null;
  }

  // ---- the page-level bus --------------------------------------------------------------------------

  // One bus per Bokeh document.  publish(doc, topic, value) tells every subscriber of the same document,
  // now, and keeps the value: a section that subscribes later hears the latest value at once.  It also
  // dispatches "attention-explorable:<topic>" on window, for scripts outside the engines.
  // Topics: "ready" (the regression section has drawn its first frame), "present" (presentation mode).
  // (on globalThis: every engine's code, this file included, is evaluated afresh on every event)
  const BUSES = globalThis.__attnBuses || (globalThis.__attnBuses = new WeakMap());
  function bus(doc) {
    let b = BUSES.get(doc);
    if (!b) { b = { last: new Map(), listeners: new Map() }; BUSES.set(doc, b); }
    return b;
  }

  function publish(doc, topic, value) {
    if (!doc) return;
    const b = bus(doc);
    b.last.set(topic, value);
    for (const fn of b.listeners.get(topic) || []) {
      try { fn(value); } catch (e) { console.error("attention explorable:", e); }
    }
    if (typeof window !== "undefined" && typeof CustomEvent === "function")
      window.dispatchEvent(new CustomEvent(`attention-explorable:${topic}`, { detail: value }));
    // a section said something: its figures may have changed (their descriptions follow once the page rests)
    if (globalThis.AttnDescribe) globalThis.AttnDescribe.changed(doc);
  }

  // The last value published on a topic (undefined: none yet), for a handler that runs now and then (a click).
  function heard(doc, topic) { return doc ? bus(doc).last.get(topic) : undefined; }

  function subscribe(doc, topic, fn) {
    if (!doc) return;
    const b = bus(doc);
    if (!b.listeners.has(topic)) b.listeners.set(topic, []);
    b.listeners.get(topic).push(fn);
    if (b.last.has(topic)) fn(b.last.get(topic));
  }

  // ---- the tour and the sections (app/tour/tour.js) -------------------------------------------------------

  // A section tells the page its numbers (the names a tour step's goal compares, app/tour/model.py CONDITIONS)
  // whenever they change: topic "readouts:<section>", at most once a frame.
  function tellReadouts(doc, c, section, compute) {
    if (!doc || c.readoutsFrame) return;
    const send = () => { c.readoutsFrame = null; try { publish(doc, `readouts:${section}`, compute()); } catch (e) { console.error(e); } };
    if (typeof requestAnimationFrame !== "function") { send(); return; }
    c.readoutsFrame = requestAnimationFrame(send);
  }

  // A section whose numbers cost more than it should work out at every move offers them on demand instead: the
  // tour asks with the names its step compares, and gets them at once, worked out on the section's state now.
  function offerReadouts(doc, section, compute) {
    if (doc) bus(doc).offers = Object.assign(bus(doc).offers || {}, { [section]: compute });
  }

  // A section's offered readouts for the names in ``needs`` (undefined when the page has no such offer).
  function askReadouts(doc, section, needs) {
    const offer = doc && bus(doc).offers && bus(doc).offers[section];
    return offer ? offer(needs) : undefined;
  }

  // The tour asks a section to reach a state (a step's Show me): topic "apply:<section>", {seq, values}.  A
  // section that starts later hears the last request at once; each request is applied once.
  function onApply(doc, c, section, apply) {
    subscribe(doc, `apply:${section}`, (req) => {
      if (!req || req.seq === c.appliedSeq) return;
      c.appliedSeq = req.seq;
      apply(req.values || {});
    });
  }

  // ---- for a screen reader and a keyboard -----------------------------------------------------------------

  // One polite live region for the page, outside every shadow root (a region re-drawn with its text is not heard
  // reliably): `say(text, source)` has it read once, after what is being read now.  Plain text, never HTML.
  function say(text, source) {
    if (typeof document === "undefined" || !document.body) return;
    let el = document.getElementById("attn-say");
    if (!el) {
      el = document.createElement("div");
      el.id = "attn-say";
      el.setAttribute("role", "status");
      el.setAttribute("aria-live", "polite");
      el.className = "attn-visually-hidden";
      el.style.cssText = "position:absolute;width:1px;height:1px;margin:-1px;padding:0;border:0;overflow:hidden;" +
        "clip:rect(0 0 0 0);white-space:nowrap;font-size:var(--page-font-size, 1em)";
      // inside the page's <main>, so it has the page's text sizes (projected too)
      (document.querySelector(".attn-page") || document.body).appendChild(el);
    }
    // the same words again (Next, then Previous and Next back) are read again: empty it first, fill it a frame on.
    // Words from another `source` said while the last are still fresh (a training's end, then the tour's find)
    // join them; the same source's newer words replace them (Next pressed twice says the step it reached).
    clearTimeout(SETTLING.get(source));   // (words of the same source waiting to settle are replaced by these)
    const now = typeof performance !== "undefined" ? performance.now() : 0;
    const join = now - (el.__saidAt || -1e9) < 1500 && el.__source !== source;
    el.__saidAt = now;
    el.__source = source;
    if (join) { el.__pending = `${el.__pending || el.textContent} ${text}`; el.textContent = el.__pending; return; }
    el.__pending = String(text);
    el.textContent = "";
    requestAnimationFrame(() => { el.textContent = el.__pending; });
  }

  // A section's words (or a function writing them, run only when said) that follow the state, said once rested
  // SETTLE_MS (a drag or a training: where it ends), only when the student's last act (acted(): pointer presses,
  // input, keys but Tab, Shift, Esc...) was in its blocks; a source's first words are the opening state, not said.
  const SETTLE_MS = 600, SETTLING = new Map(), ACTED = { n: 0, path: [] }, OPENED = new Set();
  const MOVES_NOT = /^(Tab|Shift|Control|Alt|Meta|Escape)$/;
  if (typeof document !== "undefined")
    for (const ev of ["keydown", "pointerdown", "input"]) document.addEventListener(ev, (e) => {
      if (ev !== "keydown" || !MOVES_NOT.test(e.key)) { ACTED.n += 1; ACTED.path = e.composedPath ? e.composedPath() : []; }
    }, true);
  function acted() { return ACTED.n; }
  function sayWhenSettled(text, source, section) {
    if (!OPENED.has(source)) { OPENED.add(source); return; }
    const block = `attn-b-${section || source}-`, words = () => (typeof text === "function" ? text() : text);
    if (!text || !ACTED.path.some((el) => el && typeof el.id === "string" && el.id.startsWith(block))) return;
    clearTimeout(SETTLING.get(source));
    SETTLING.set(source, setTimeout(() => { SETTLING.delete(source); say(words(), source); }, SETTLE_MS));
  }

  // The element a student acts on in a model's view: a slider's handle, a menu, a text field, a button, or a
  // plot that takes keys itself (tabIndex 0 on its element); null for anything else.
  function actionElement(model) {
    const v = model ? findView(model) : null;
    if (!v || !v.el || !v.el.isConnected) return null;
    if (v.el.tabIndex >= 0 && v.el.getAttribute("tabindex") !== null) return v.el;
    const root = v.shadow_el || v.el;
    return root.querySelector(".noUi-handle, select, input, textarea, button:not(.attn-numbers-open)") || null;
  }

  // Focus that element (or, with `host`, the view's own element, made focusable by script only), without
  // scrolling: the page's reveal has put it on screen.  Whether focus moved.
  function focusModel(model, host) {
    const v = model ? findView(model) : null;
    const el = host ? (v && v.el) : actionElement(model);
    if (!el || !el.isConnected || typeof el.focus !== "function") return false;
    if (host && el.getAttribute("tabindex") === null) el.setAttribute("tabindex", "-1");
    el.focus({ preventScroll: true });
    return (el.getRootNode && el.getRootNode().activeElement === el) || document.activeElement === el;
  }

  return { ...F, pageState, runGuarded, clamp, setWidget, quiet, tellReadouts, offerReadouts, askReadouts, onApply, findView, plotView, relabel,
           framePaints, paintSoon, relayoutWhenReady, setHtml, afterPaint, scheduleUrl, hostOwnsAddress, publish,
           subscribe, heard, say, acted, sayWhenSettled, actionElement, focusModel };
})(AttnFormat);
