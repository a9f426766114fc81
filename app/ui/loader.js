// The page's loader: draws the first screen first and the rest as the student comes near it.
//
// The offline file and the served page carry one Bokeh document whose roots are the page's blocks
// (app/ui/layout.py), and a plan: for each block, its root and the element it is drawn into; for each
// section, the engines to start once its first block is drawn.  The document comes in parts: the first
// screen's blocks, then each later section's (decoded when needed, or one a task after the first readouts).
// BokehJS's own embedding draws every root before anything moves (20 s on a slow phone for the whole page); this
// file draws the first screen's blocks (in a short frame, ui/embed.js's), starts their engines, waits for the first
// readouts, then draws the other blocks one at a time: those the student scrolls near first, the rest when idle.
// A block that is being dragged or typed into is never interrupted: drawing waits while a pointer is down
// and for a moment after the last move or key, and a block far from the screen waits a second after a drag.
// AttnPage.ensure(name) draws a block at once (the tour, a deep link into a later section), and AttnPage.reveal(names)
// brings named elements on screen (ui/reveal.js scrolls).  Runs after the library, ui/reveal.js and ui/embed.js.

const AttnPage = (function (U) {
  "use strict";

  const QUIET_MS = 200;        // after a pointer move or a key, wait this long before drawing a block
  // after a drag (or a finger), a block the student is not near waits this long (a build, 5 to 300 ms, would meet a
  // student who pauses half a second and drags again)
  const IDLE_AFTER_DRAG_MS = 1000;
  const NEAR = "150% 0px";     // a block this near the screen (1.5 screens) is drawn before the others
  const S = { doc: null, parts: [], decodeFailed: false, presentAtStart: false, views: null, plan: null, byName: new Map(), started: new Set(), near: new Set(),
              pointers: 0, idle: true, lastInput: 0, lastDrag: -1e9, timer: null, firstDone: false, drawing: null, timings: [], revealing: 0, asks: 0 };

  // ---- what the student is doing: drawing waits for a pause --------------------------------------

  function watchInput() {
    const busy = () => { S.lastInput = performance.now(); }, drag = () => { S.lastInput = S.lastDrag = performance.now(); };
    S.pointers = (globalThis.AttnOpening && AttnOpening.pointers) || 0;   // a finger down since the posters showed
    addEventListener("pointerdown", () => { S.pointers += 1; drag(); }, true);
    for (const t of ["pointerup", "pointercancel"]) addEventListener(t, () => { S.pointers = Math.max(0, S.pointers - 1); drag(); }, true);
    // a pointer that moves with a button down (a drag) or a finger; a mouse merely passing over does not count
    addEventListener("pointermove", (e) => { if (e.buttons || e.pointerType === "touch") drag(); }, { capture: true, passive: true });
    for (const t of ["keydown", "wheel", "touchmove"]) addEventListener(t, busy, { capture: true, passive: true });
    focusClearOfStage();
  }

  // On a narrow screen the stage (plot, sliders) is pinned at the top: the browser scrolls the focus clear of it
  // (scroll-padding-top), and so does this, again when a block drawn above has moved it (S.keepClear; WCAG 2.4.11).
  function focusClearOfStage() {
    const stage = document.querySelector(".attn-stage"), root = document.documentElement;
    const pad = () => { root.style.scrollPaddingTop = getComputedStyle(stage).position === "sticky" ? `${stage.offsetHeight + 8}px` : ""; };
    if (stage && typeof ResizeObserver === "function") new ResizeObserver(pad).observe(stage);
    const clear = (host, el) => requestAnimationFrame(() => {
      if (!stage || !el || !el.isConnected || !el.getBoundingClientRect || stage.contains(host) || !root.style.scrollPaddingTop) return;
      const r = el.getBoundingClientRect(), st = stage.getBoundingClientRect();
      if (st.bottom > 0 && r.top < st.bottom && r.bottom > st.top) scrollBy(0, r.top - st.bottom - 8);
    });
    addEventListener("focusin", (e) => clear(e.target, e.composedPath ? e.composedPath()[0] : e.target));
    S.keepClear = () => {
      let el = document.activeElement;
      while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
      if (document.activeElement && document.activeElement !== document.body) clear(document.activeElement, el);
    };
  }

  // How long to wait before drawing block b (0: now): while a pointer is down, and for a moment after the
  // last input; longer after a drag unless the student is near b (scrolling towards it).
  function wait(b) {
    if (S.pointers > 0) return QUIET_MS;
    const now = performance.now();
    const left = Math.max(QUIET_MS - (now - S.lastInput), S.near.has(b.name) ? 0 : IDLE_AFTER_DRAG_MS - (now - S.lastDrag));
    return Math.max(0, Math.ceil(left));
  }

  // ---- drawing one block ---------------------------------------------------------------------------

  async function draw(b, start = true) {
    if (b.view || b.drawing) return b.drawing;
    decodeFor(b);
    b.drawing = (async () => {
      const model = S.doc.get_model_by_id(b.root), el = document.getElementById(b.el);
      if (!model || !el) throw new Error(`block ${b.name} has no model or no element`);
      const t0 = performance.now(), view = await S.views.build_view(model);
      if (globalThis.AttnOpening) AttnOpening.cover(el);   // its poster stays over it until the handover
      view.build(el);
      b.view = view;
      setUp(view);
      S.timings.push({ block: b.name, ms: performance.now() - t0, at: t0 });
      el.style.minHeight = "";
      el.setAttribute("data-drawn", "");
      if (start) await startSection(b.section);
      if (globalThis.AttnDescribe) AttnDescribe.start(S.doc);   // its figures' descriptions (app/ui/describe.js)
      U.publish(S.doc, "drawn", b.name);
      if (S.keepClear) S.keepClear();
      return view;
    })();
    return b.drawing;
  }

  // What every drawn block needs: its plots paint once per animation frame (U.framePaints) and have a button in
  // their corner that shows their numbers (AttnShare), and its controls get the names BokehJS leaves out (Theme).
  function setUp(view) {
    const walk = (v) => {
      if (typeof v.repaint === "function" && v.renderer_views) { U.framePaints(v); AttnShare.numbersButton(v, S.plan.numbers); }
      for (const ch of v.child_views || []) walk(ch);
    };
    try { walk(view); Theme.nameControls(S.doc, view); } catch (e) { console.error("attention explorable:", e); }
  }

  // A section's engines start once its first block is drawn, after those of the sections it needs (contract.py needs;
  // they find their blocks' views as they are drawn: the page's bus says "drawn" with the block's name).
  async function startSection(name) {
    if (S.started.has(name)) return;
    S.started.add(name);
    for (const other of (S.plan.needs || {})[name] || []) await startSection(other);
    const ids = S.plan.engines[name] || [];
    while (ids.some((id) => !S.doc.get_model_by_id(id)) && decodeNext());   // (an engine in a later part)
    for (const id of ids) {
      const cb = S.doc.get_model_by_id(id);
      if (!cb) { console.error(`attention explorable: the engine ${id} of ${name} is not in the document`); continue; }
      try { await cb.execute({ event_name: "document_ready" }, {}); } catch (e) { console.error("attention explorable:", e); }
    }
  }

  function waiting() { return S.plan.blocks.filter((b) => !b.view && !b.drawing && (!S.embed || (b.embed && b.section === S.embed))); }

  // The next block to draw: one near the screen, else (drawing when idle) the first in page order.
  function next() {
    const todo = waiting();
    return todo.find((b) => S.near.has(b.name)) || (S.idle && todo[0]) || null;
  }

  function schedule(delay) {
    if (S.timer !== null || !S.firstDone) return;
    S.timer = setTimeout(step, delay === undefined ? 0 : delay);
  }

  async function step() {
    S.timer = null;
    const b = next();
    if (!b) { if (!waiting().length) U.publish(S.doc, "all-drawn", true); return; }
    const later = wait(b);
    if (later > 0) { schedule(later); return; }
    try { await draw(b); } catch (e) { console.error("attention explorable:", e); b.view = b.view || "failed"; }
    // let the browser paint and handle input between blocks
    schedule(S.near.size ? 0 : 16);
  }

  function observe() {
    if (typeof IntersectionObserver !== "function") return;
    const io = new IntersectionObserver((entries) => {
      for (const e of entries) {
        const b = S.byName.get(e.target.getAttribute("data-block"));
        if (!b) continue;
        if (e.isIntersecting) S.near.add(b.name); else S.near.delete(b.name);
      }
      // a block just come near is not kept waiting for the second after a drag
      if (S.timer !== null && S.firstDone) { clearTimeout(S.timer); S.timer = null; }
      schedule();
    }, { rootMargin: NEAR });
    for (const b of S.plan.blocks) {
      const el = document.getElementById(b.el);
      if (el) { el.setAttribute("data-block", b.name); io.observe(el); }
    }
  }

  // ---- presentation mode and narrow screens, applied to the models before any view exists ---------

  function presentFromLink() {
    let v = null;
    try { v = new URLSearchParams(location.search).getAll("present").pop(); } catch (e) { v = null; }
    if (v === undefined || v === null) return S.plan.present;
    v = v.trim().toLowerCase();
    return ["1", "true", "yes", "on"].includes(v) ? true : ["0", "false", "no", "off"].includes(v) ? false : S.plan.present;
  }

  function applyLook(present) {
    const root = document.querySelector(".attn-page");
    if (root) root.setAttribute("data-present", present ? "1" : "0");
    Theme.apply(S.doc, S.plan.theme, present, sharedFigures(), true);
  }

  // Turning a phone or resizing a window across the narrow width gives the shared plots their borders again.
  function watchWidth() {
    let narrow = innerWidth < S.plan.theme.narrow_width;
    addEventListener("resize", () => {
      const now = innerWidth < S.plan.theme.narrow_width;
      if (now === narrow) return;
      narrow = now;
      const page = document.querySelector(".attn-page");
      Theme.apply(S.doc, S.plan.theme, !!page && page.getAttribute("data-present") === "1", sharedFigures(), false);
    });
  }

  function sharedFigures() {
    return (S.plan.shared || []).map((id) => S.doc.get_model_by_id(id)).filter(Boolean);
  }

  // ---- the document in parts ------------------------------------------------------------------------

  // The document holds the first screen's blocks; each later section's come in a part of their own (export.py
  // document_parts), which refers by id to the models an earlier part defined.  A part is decoded when one of its
  // blocks is to be drawn, or, after the first screen, one a task while the student is not dragging (the first
  // readouts wait only for the models they need), in page order.  AttnPage.whole: every model is in the document.
  function decodeNext() {
    const part = S.parts.shift();
    if (!part) return false;
    const doc = S.doc;
    // (the decoding itself reaches BokehJS's private parts: app/ui/bokehjs.js)
    const { fresh } = AttnBokeh.decodePart(S.bokeh, doc, JSON.parse(unescape(part.textContent)));
    // the page's look (presentation sizes, phone borders), which the earlier parts got at start, for these models;
    // their heights too unless the look was switched since (a switch at run time changes the text only)
    const page = document.querySelector(".attn-page"), present = !!page && page.getAttribute("data-present") === "1";
    Theme.apply({ all_models: fresh, roots: () => [] }, S.plan.theme, present,
                sharedFigures().filter((f) => fresh.includes(f)), present === S.presentAtStart);
    for (const m of fresh) if (doc.all_roots.includes(m)) AttnBokeh.idle(doc, m);
    return true;
  }

  function decodeFor(b) { while (!S.doc.get_model_by_id(b.root) && decodeNext()); }

  // After the frame that shows the first readouts, a part a task, each after a quiet moment (as a block waits).
  function decodeLater(first = true) {
    if (!S.parts.length) return;
    if (first) { requestAnimationFrame(() => setTimeout(() => decodeLater(false), 0)); return; }
    const quiet = S.pointers === 0 && performance.now() - S.lastInput >= QUIET_MS;
    if (quiet) {
      try { decodeNext(); } catch (e) { console.error("attention explorable:", e); S.decodeFailed = true; S.parts.length = 0; }
    }
    if (S.parts.length) setTimeout(() => decodeLater(false), quiet ? 0 : QUIET_MS);
  }

  // ---- start ---------------------------------------------------------------------------------------

  // The JSON in the page's <script> elements, escaped as HTML by app/delivery/export.py (html.escape).
  const ENTITIES = { amp: "&", lt: "<", gt: ">", quot: '"', "#x27": "'", "#39": "'", "#x60": "`" };
  function unescape(text) { return text.replace(/&(amp|lt|gt|quot|#x27|#39|#x60);/g, (_, e) => ENTITIES[e]); }

  async function start(docsText, plan) {
    const docs = JSON.parse(unescape(docsText));
    S.plan = plan;
    for (const b of plan.blocks) S.byName.set(b.name, b);
    const page = document.querySelector("main.attn-page"), embedded = AttnEmbed.start(plan, page);
    S.embed = embedded ? AttnEmbed.embedded() : null;
    // BokehJS's private parts that drawing block by block needs (app/ui/bokehjs.js); without one, the whole page
    S.bokeh = AttnBokeh.loaderParts();
    if (S.bokeh) {
      S.doc = S.bokeh.Document.from_json(Object.values(docs)[0]);
      if (!AttnBokeh.canTakeParts(S.doc)) S.bokeh = null;
    }
    if (!S.bokeh) return startWhole(docs, plan);
    S.parts = Array.from(document.querySelectorAll("script.attn-part"));
    // the rest is drawn when the browser is idle, unless a test holds it (window.AttnLoaderOptions = {idle: false},
    // tests/browser/conftest.py): then only what comes near the screen or is asked for (ensure, reveal) is drawn
    S.idle = !(globalThis.AttnLoaderOptions && globalThis.AttnLoaderOptions.idle === false);
    S.views = new S.bokeh.ViewManager([], Bokeh.index);
    S.doc.views_manager = S.views;
    watchInput();
    applyLook(S.presentAtStart = presentFromLink());
    // the document's own root without a view (its configuration) counts as drawn, as in BokehJS
    for (const m of S.doc.all_roots) AttnBokeh.idle(S.doc, m);
    const first = embedded || plan.blocks.filter((b) => b.first);
    for (const b of first) await draw(b, false);
    if (embedded) AttnEmbed.leaveOut(S.doc);   // before the engines size their figures to the frame
    for (const name of new Set(first.map((b) => b.section))) await startSection(name);
    observe();
    watchWidth();
    AttnEmbed.fit(page);
    afterFirstTexts(() => { handover(); S.firstDone = true; U.publish(S.doc, "first-screen", true); decodeLater(); schedule(); });
    return S.doc;
  }

  // The page drawn BokehJS's public way (Bokeh.embed.embed_items), for a BokehJS whose private parts the loader cannot
  // find: every part's roots in the one document (export.py defines a model before it is referred to), every block
  // drawn at once into its place, then every section's engines.  Slower to open on a phone; the same page.
  async function startWhole(docs, plan) {
    const [docid, json] = Object.entries(docs)[0], roots = json.roots.slice();
    for (const part of document.querySelectorAll("script.attn-part")) roots.push(...JSON.parse(unescape(part.textContent)).roots);
    const item = { docid, root_ids: plan.blocks.map((b) => b.root),
                   roots: Object.fromEntries(plan.blocks.map((b) => [b.root, b.el])) };
    S.parts = [];
    S.whole = true;
    watchInput();
    await Bokeh.embed.embed_items({ [docid]: Object.assign({}, json, { roots }) }, [item]);
    S.doc = Bokeh.documents[Bokeh.documents.length - 1];
    applyLook(S.presentAtStart = presentFromLink());
    for (const b of plan.blocks) {
      const model = S.doc.get_model_by_id(b.root), el = document.getElementById(b.el);
      b.view = (model && Bokeh.index.find_one(model)) || "whole";
      if (el) { el.style.minHeight = ""; el.setAttribute("data-drawn", ""); }
      if (b.view !== "whole") setUp(b.view);
    }
    for (const name of new Set(plan.blocks.map((b) => b.section))) await startSection(name);
    watchWidth();
    AttnEmbed.fit(document.querySelector("main.attn-page"));
    afterFirstTexts(() => { handover(); S.firstDone = true; U.publish(S.doc, "first-screen", true); U.publish(S.doc, "all-drawn", true); });
    return S.doc;
  }

  // The first screen's texts (the readouts) are written a frame after its plots paint (U.afterPaint); the posters
  // leave then (ui/opening.js), and the rest waits for them, so a student on a slow phone reads numbers early.
  function handover() { if (globalThis.AttnOpening) AttnOpening.handover(S.doc); }
  function afterFirstTexts(then) {
    const t0 = performance.now();
    const poll = () => {
      if (!(globalThis.__attnTextsPending > 0) || performance.now() - t0 > 10000) { then(); return; }
      requestAnimationFrame(poll);
    };
    requestAnimationFrame(() => requestAnimationFrame(poll));
  }

  // ---- for the engines, the tour and tests ----------------------------------------------------------

  // Draw a block (or every block of a section) now; resolves, when drawn, to how many blocks the name covers
  // (0: no block or section of that name).
  async function ensure(name) {
    const list = S.byName.has(name) ? [S.byName.get(name)] : S.plan ? S.plan.blocks.filter((b) => b.section === name) : [];
    for (const b of list) await draw(b);
    return list.length;
  }

  function drawn(name) { const b = S.byName.get(name); return !!(b && b.view); }
  function allDrawn() { return !!S.plan && S.plan.blocks.every((b) => b.view); }

  // ---- keeping what a step talks about on screen ---------------------------------------------------

  // The block that holds a named model (plan.blocks[].looks: the names a tour step may look at).
  function blockOf(name) { return S.plan.blocks.find((b) => (b.looks || []).includes(name)) || null; }

  function elementOf(name) {
    const m = S.doc.get_model_by_name(name), v = m && Bokeh.index.find_one(m);
    return v && v.el && v.el.isConnected ? v.el : null;
  }

  // The blocks just above a block that the lazy drawing would reach once the page scrolls there: drawn first, so
  // their real heights do not push the block down after it has been brought into view.
  async function drawAbove(b) {
    const el = document.getElementById(b.el);
    if (!el) return;
    const top = el.getBoundingClientRect().top, reach = 3 * innerHeight;
    for (const o of S.plan.blocks) {
      if (o.view || o === b) continue;
      const oe = document.getElementById(o.el), r = oe && oe.getBoundingClientRect();
      if (r && r.bottom <= top + 1 && r.bottom > top - reach) await draw(o);
    }
  }

  // The newest request wins: a reveal still drawing or waiting for a layout when another is asked for (the step was
  // turned meanwhile) stops without scrolling, as it does when the student scrolls, drags or presses a key meanwhile.
  async function reveal(names, options) {
    const ask = ++S.asks, at = performance.now(), current = () => ask === S.asks && S.lastInput <= at;
    S.revealing += 1;
    try {
      // a block just drawn may still be settling into its size: look again until nothing needs to move
      for (let k = 0; k < 4 && current(); k++) if (!(await revealNow(names, options || {}, current))) break;
    } finally { S.revealing -= 1; }
  }

  // The named elements on screen (ui/reveal.js): their blocks drawn first, and the blocks just above them.
  async function revealNow(names, options, current) {
    for (const n of names) { const b = blockOf(n); if (b && current()) { await draw(b); await drawAbove(b); } }
    return current() && AttnReveal.show(() => names.map(elementOf), Object.assign({}, options, { current }));
  }


  // A plot as a PNG file for slides (what BokehJS's save tool does, without a toolbar on the page).
  // A block just drawn is laid out within a few frames: its plot is saved once it has a size (at most a second).
  async function savePng(name, file) {
    const b = blockOf(name);
    if (b) await draw(b);
    const m = S.doc.get_model_by_name(name), v = m && Bokeh.index.find_one(m);
    if (!v || typeof v.export !== "function") throw new Error(`no plot named ${name} to save`);
    for (let k = 0; k < 60 && !(v.bbox && v.bbox.width > 0 && v.bbox.height > 0); k++)
      await new Promise((r) => requestAnimationFrame(r));
    const blob = await v.export("png").to_blob();
    const link = document.createElement("a");
    link.href = URL.createObjectURL(blob);
    link.download = `${file || name}.png`;
    link.dispatchEvent(new MouseEvent("click"));
    setTimeout(() => URL.revokeObjectURL(link.href), 5000);
    return link.download;
  }

  // A figure's numbers: for each data source a visible glyph of the plot draws from, its name and columns (each
  // column a plain array), after drawing the figure's block if it is not drawn yet.
  async function figureSources(name) {
    const b = blockOf(name);
    if (b) await draw(b);
    const m = S.doc.get_model_by_name(name);
    if (!m || !Array.isArray(m.renderers)) throw new Error(`no plot named ${name}`);
    const out = [], seen = new Set();
    for (const r of m.renderers) {
      const src = r && r.visible !== false ? r.data_source : null;
      if (!src || !src.data || seen.has(src)) continue;
      seen.add(src);
      const columns = {};
      for (const [k, v] of Object.entries(src.data)) columns[k] = Array.from(v, (e) => (ArrayBuffer.isView(e) ? Array.from(e) : e));
      out.push({ name: src.name || (r.glyph ? r.glyph.type : "data"), columns });
    }
    return out;
  }

  return { start, ensure, drawn, allDrawn, reveal, blockOf, savePng, figureSources, unescape, get doc() { return S.doc; },
           get timings() { return S.timings; }, get whole() { return !!S.plan && !S.parts.length && !S.decodeFailed; },
           get drawnWhole() { return !!S.whole; },
           get revealing() { return S.revealing; } };
})(AttnCommon);
globalThis.AttnPage = AttnPage;   // for the engines (each runs in its own function) and for tests
