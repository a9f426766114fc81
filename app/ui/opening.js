// The first screen before BokehJS (issue #49): the page's HTML carries the opening's words and a poster of its
// figures (plain HTML and SVG, app/ui/poster.py), and BokehJS and the page's own script as text
// (<script type="text/plain" class="attn-later">), run only after the first frame has painted.
//
// AttnOpening.decide(main) runs as <main> opens, before any poster is parsed: the posters show the file's
// opening state, so a link that opens another state (a query string, a fragment, a page saved with your data,
// presentation sizes) shows "Loading this state…" in their place instead (main[data-opening]).
// AttnOpening.boot() runs at the file's end: after a frame has painted, each later script in a task of its own,
// then the page's start; a visible message if BokehJS or the page cannot start.
// AttnOpening.handover(), called by the loader once the first screen's live blocks have painted their words,
// takes the posters away (from the accessibility tree and the focus order too) in one frame.  A press on the
// poster's plot meanwhile is kept, and the live query is moved there when the page is ready; so are a presenter's
// Page Down and Page Up, pressed again then.
const AttnOpening = (function () {
  "use strict";

  // The link asks for the file's own opening state: no query string (or only ?present=0) and no fragment but a
  // section's anchor.
  function plainLink(loc) {
    const params = Array.from(new URLSearchParams(loc.search));
    const plainSearch = params.every(([k, v]) => k === "present" && /^\s*(0|false|no|off)\s*$/i.test(v));
    return plainSearch && (!loc.hash || /^#attn-[\w-]*$/.test(loc.hash));
  }

  function decide(main) {
    let poster = false;
    try {
      poster = main.getAttribute("data-present") !== "1" && !main.hasAttribute("data-carries-data") && plainLink(location);
    } catch (e) { poster = false; }
    main.setAttribute("data-opening", poster ? "poster" : "loading");
    if (poster) watchPresses(main);
    watchKeys(main);
    // the pointers down before the loader listens (a finger on the poster): it starts from this count (ui/loader.js)
    addEventListener("pointerdown", () => { if (!S.loaderListens) S.pointers += 1; }, true);
    for (const t of ["pointerup", "pointercancel"]) addEventListener(t, () => { if (!S.loaderListens) S.pointers = Math.max(0, S.pointers - 1); }, true);
  }

  // ---- a press on the poster's plot before the live page is there ---------------------------------

  const S = { press: null, keys: [], pointers: 0, loaderListens: false, started: false, done: false, asked: null,
              released: false };

  // The x under a pointer on a poster's frame (data-x0, data-x1: the ends of its x range).
  function xAt(frame, clientX) {
    const r = frame.getBoundingClientRect(), x0 = Number(frame.getAttribute("data-x0")), x1 = Number(frame.getAttribute("data-x1"));
    if (!(r.width > 0)) return null;
    return x0 + Math.min(1, Math.max(0, (clientX - r.left) / r.width)) * (x1 - x0);
  }

  // A press (or a drag) on a poster whose figure names a slider (data-poster-drag): its x is kept for that slider.
  function watchPresses(main) {
    const take = (e) => {
      if (S.done || (e.type === "pointermove" && !e.buttons && e.pointerType !== "touch")) return;
      const fig = e.target && e.target.closest ? e.target.closest(".attn-poster-fig[data-poster-drag]") : null;
      const frame = fig && fig.getAttribute("data-poster-drag") ? fig.querySelector(".attn-pv-frame") : null;
      const x = frame ? xAt(frame, e.clientX) : null;
      if (x === null) return;
      S.press = { slider: fig.getAttribute("data-poster-drag"), x };
      main.setAttribute("data-opening-press", "");   // the poster shows it waits (a progress cursor)
    };
    main.addEventListener("pointerdown", take);
    main.addEventListener("pointermove", take, { passive: true });
  }

  // The presenter's keys (a clicker's Page Down and Page Up) pressed before the page is live, presenting: kept, and
  // pressed again once it is (the tour turns its steps with them: app/tour/dock.js), so none is lost.
  function presenting(main) {
    let v = null;
    try { v = new URLSearchParams(location.search).getAll("present").pop(); } catch (e) { v = null; }
    return v ? /^\s*(1|true|yes|on)\s*$/i.test(v) : main.getAttribute("data-present") === "1";
  }

  function watchKeys(main) {
    if (!presenting(main)) return;
    addEventListener("keydown", (e) => {
      if (S.done || !(e.key === "PageDown" || e.key === "PageUp") || e.ctrlKey || e.altKey || e.metaKey) return;
      e.preventDefault();   // (not also a scroll now, nor a turn by a tour already drawn under the posters)
      e.stopImmediatePropagation();
      S.keys.push(e.key);
      main.setAttribute("data-opening-press", "");
    }, { capture: true });
  }

  // ---- running the later scripts -------------------------------------------------------------------

  function failed(main, why) {
    console.error("attention explorable:", why);
    main.setAttribute("data-opening", "failed");
    const note = document.getElementById("attn-opening-failed");
    if (note) note.hidden = false;
  }

  // Each later script runs in a task of its own after the first frame has painted, by an element put in and taken out
  // at once (it has run), so the file the page may save of itself (AttnShare.pageWithData) holds the scripts as the
  // file brought them.  (From blob: URLs, which the browser may compile off the main thread, the first paint came
  // later and the live page too, on the 4x-slowed phone: tests/bench/RESULTS.md.)
  function boot() {
    const main = document.querySelector("main.attn-page");
    // another state loads: the file's own posters (hidden since <main> opened) leave the page, words and all
    if (main.getAttribute("data-opening") === "loading")
      for (const p of document.querySelectorAll(".attn-poster:not(.attn-poster-static):not(.attn-poster-wait)")) p.remove();
    const later = Array.from(document.querySelectorAll("script.attn-later"));
    const run = (k) => {
      if (k === later.length) return;
      const s = document.createElement("script");
      s.text = later[k].textContent;
      document.head.appendChild(s);
      s.remove();
      if (k === 0 && typeof Bokeh === "undefined") { failed(main, "BokehJS did not start"); return; }
      if (k === later.length - 1 && typeof AttnPage === "undefined") { failed(main, "the page's script did not start"); return; }
      setTimeout(() => run(k + 1), 0);
    };
    const first = () => setTimeout(() => run(0), 0);
    // after the frame that paints the posters (a page opened in a background tab has no frames: at once)
    if (document.visibilityState === "hidden" || typeof requestAnimationFrame !== "function") first();
    else requestAnimationFrame(first);
  }

  function started(promise) {
    S.started = true;
    const main = document.querySelector("main.attn-page");
    Promise.resolve(promise).catch((e) => failed(main, e));
  }

  // ---- the handover ---------------------------------------------------------------------------------

  // A block about to be drawn into its place: its posters stay over it, at their height, until the handover.  The
  // first call reads every poster's height at once (one layout, not one per block drawn).
  function cover(el) {
    if (!S.heights) {
      S.heights = new Map();
      for (const p of document.querySelectorAll(".attn-block > .attn-poster")) S.heights.set(p, p.getBoundingClientRect().height);
    }
    const posters = el.querySelectorAll(":scope > .attn-poster");
    if (!posters.length) return;
    for (const p of posters) if (S.heights.has(p)) p.style.height = `${S.heights.get(p)}px`;
    el.classList.add("attn-covered");
  }

  // The posters leave once the live blocks under them have painted (a frame after the first readouts), in one frame;
  // a press on a poster meanwhile moves its slider there (rounded to the slider's step, inside its ends).
  // (window.AttnOpeningOptions = {hold: true}, set before the page's scripts, holds it until AttnOpening.release():
  // tests look at the page just before and just after)
  function handover(doc) {
    if (S.done || S.asked) return;
    const hold = globalThis.AttnOpeningOptions && globalThis.AttnOpeningOptions.hold;
    if (hold && !S.released) { S.asked = () => { S.asked = null; handover(doc); }; return; }
    S.done = true;
    const main = document.querySelector("main.attn-page");
    for (const p of document.querySelectorAll(".attn-poster")) p.remove();
    for (const el of document.querySelectorAll(".attn-covered")) el.classList.remove("attn-covered");
    if (main) { main.setAttribute("data-opening", "live"); main.removeAttribute("data-opening-press"); }
    // (a frame later: the tour's keys are listening by then)
    const keys = S.keys.splice(0);
    if (keys.length) requestAnimationFrame(() => { for (const key of keys) dispatchEvent(new KeyboardEvent("keydown", { key, bubbles: true })); });
    const m = S.press && doc ? doc.get_model_by_name(S.press.slider) : null;
    if (m && typeof m.step === "number") {
      const v = Math.min(m.end, Math.max(m.start, m.start + Math.round((S.press.x - m.start) / m.step) * m.step));
      m.value = Number(v.toFixed(10));
    }
  }

  function release() { S.released = true; if (S.asked) S.asked(); }

  // (read once, by the loader as it starts listening itself)
  function pointersDown() { S.loaderListens = true; return S.pointers; }

  return { decide, boot, started, cover, handover, release, plainLink, get pressed() { return S.press; },
           get pointers() { return pointersDown(); },
           get waiting() { return !!S.asked; } };
})();
globalThis.AttnOpening = AttnOpening;
