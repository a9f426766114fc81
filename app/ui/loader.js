// The page's loader: draws the first screen first and the rest as the student comes near it.
//
// The offline file and the served page carry one Bokeh document whose roots are the page's blocks
// (app/ui/layout.py), and a plan: for each block, its root and the element it is drawn into; for each
// section, the engines to start once its first block is drawn.  BokehJS's own embedding draws every root
// before anything moves (20 s on a slow phone for the whole page); this file draws the first screen's
// blocks, starts their engines, waits until the first readouts are written, and then draws the other
// blocks one at a time: those the student scrolls near first, then the rest when the browser is idle.
// A block that is being dragged or typed into is never interrupted: drawing waits while a pointer is down
// and for a moment after the last move or key.  AttnPage.ensure(name) draws a block at once (the tour, a
// deep link into a later section).  Runs after ui/theme.js and ui/common.js.

const AttnPage = (function (U) {
  "use strict";

  const QUIET_MS = 200;        // after a pointer move or a key, wait this long before drawing a block
  const NEAR = "150% 0px";     // a block this near the screen (1.5 screens) is drawn before the others
  const S = { doc: null, views: null, plan: null, byName: new Map(), started: new Set(), near: new Set(),
              pointers: 0, lastInput: 0, timer: null, firstDone: false, drawing: null };

  // ---- what the student is doing: drawing waits for a pause --------------------------------------

  function watchInput() {
    const busy = () => { S.lastInput = performance.now(); };
    addEventListener("pointerdown", () => { S.pointers += 1; busy(); }, true);
    for (const t of ["pointerup", "pointercancel"]) addEventListener(t, () => { S.pointers = Math.max(0, S.pointers - 1); busy(); }, true);
    for (const t of ["pointermove", "keydown", "wheel", "touchmove"]) addEventListener(t, busy, { capture: true, passive: true });
  }

  function quiet() { return S.pointers === 0 && performance.now() - S.lastInput >= QUIET_MS; }

  // ---- drawing one block ---------------------------------------------------------------------------

  async function draw(b, start = true) {
    if (b.view || b.drawing) return b.drawing;
    b.drawing = (async () => {
      const model = S.doc.get_model_by_id(b.root), el = document.getElementById(b.el);
      if (!model || !el) throw new Error(`block ${b.name} has no model or no element`);
      const view = await S.views.build_view(model);
      view.build(el);
      b.view = view;
      setUp(view);
      el.style.minHeight = "";
      el.setAttribute("data-drawn", "");
      if (start) await startSection(b.section);
      U.publish(S.doc, "drawn", b.name);
      return view;
    })();
    return b.drawing;
  }

  // What every drawn block needs: its plots paint once per animation frame (U.framePaints), and its controls
  // get the accessible names BokehJS leaves out (Theme.nameControls).
  function setUp(view) {
    const walk = (v) => {
      if (typeof v.repaint === "function" && v.renderer_views) U.framePaints(v);
      for (const ch of v.child_views || []) walk(ch);
    };
    try { walk(view); Theme.nameControls(S.doc, view); } catch (e) { console.error("attention explorable:", e); }
  }

  // A section's engines start once its first block is drawn (they find their other blocks' views when
  // those are drawn: the page's bus says "drawn" with the block's name).
  async function startSection(name) {
    if (S.started.has(name)) return;
    S.started.add(name);
    for (const id of S.plan.engines[name] || []) {
      const cb = S.doc.get_model_by_id(id);
      try { if (cb) await cb.execute({ event_name: "document_ready" }, {}); } catch (e) { console.error("attention explorable:", e); }
    }
  }

  function waiting() { return S.plan.blocks.filter((b) => !b.view && !b.drawing); }

  // The next block to draw: one near the screen, else the first in page order.
  function next() {
    const todo = waiting();
    return todo.find((b) => S.near.has(b.name)) || todo[0] || null;
  }

  function schedule(delay) {
    if (S.timer !== null || !S.firstDone) return;
    S.timer = setTimeout(step, delay === undefined ? 0 : delay);
  }

  async function step() {
    S.timer = null;
    const b = next();
    if (!b) { U.publish(S.doc, "all-drawn", true); return; }
    if (!quiet()) { schedule(QUIET_MS); return; }
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

  // ---- start ---------------------------------------------------------------------------------------

  async function start(docsText, plan) {
    const { Document } = Bokeh.require("document");
    const { unescape } = Bokeh.require("core/util/string");
    const { ViewManager } = Bokeh.require("core/view_manager");
    const docs = JSON.parse(unescape(docsText));
    S.doc = Document.from_json(Object.values(docs)[0]);
    S.plan = plan;
    for (const b of plan.blocks) S.byName.set(b.name, b);
    S.views = new ViewManager([], Bokeh.index);
    S.doc.views_manager = views();
    watchInput();
    applyLook(presentFromLink());
    // the document's own root without a view (its configuration) counts as drawn, as in BokehJS
    for (const m of S.doc.all_roots) if (m.default_view == null) S.doc.notify_idle(m);
    const first = plan.blocks.filter((b) => b.first);
    for (const b of first) await draw(b, false);
    for (const name of new Set(first.map((b) => b.section))) await startSection(name);
    observe();
    watchWidth();
    afterFirstTexts(() => { S.firstDone = true; U.publish(S.doc, "first-screen", true); schedule(); });
    return S.doc;
  }

  function views() { return S.views; }

  // The first screen's texts (the readouts) are written a frame after its plots paint (U.afterPaint);
  // the rest waits for them, so a student on a slow phone reads numbers as early as possible.
  function afterFirstTexts(then) {
    const t0 = performance.now();
    const poll = () => {
      if (!(globalThis.__attnTextsPending > 0) || performance.now() - t0 > 10000) { then(); return; }
      requestAnimationFrame(poll);
    };
    requestAnimationFrame(() => requestAnimationFrame(poll));
  }

  // ---- for the engines, the tour and tests ----------------------------------------------------------

  // Draw a block (or every block of a section) now; resolves when drawn.
  async function ensure(name) {
    const list = S.byName.has(name) ? [S.byName.get(name)] : S.plan ? S.plan.blocks.filter((b) => b.section === name) : [];
    for (const b of list) await draw(b);
  }

  function drawn(name) { const b = S.byName.get(name); return !!(b && b.view); }

  function allDrawn() { return !!S.plan && S.plan.blocks.every((b) => b.view); }

  return { start, ensure, drawn, allDrawn, get doc() { return S.doc; } };
})(AttnCommon);
globalThis.AttnPage = AttnPage;   // for the engines (each runs in its own function) and for tests
