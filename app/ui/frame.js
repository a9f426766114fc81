// Inside a frame (a slide deck, a learning management system, a course page), the page leaves the host its keys.
// Once a presenter has clicked into the frame, the frame's window has the keyboard, and a blur cannot give it back.
// So, framed, the keys a deck turns its slides with are not the page's: Page Down, Page Up, the space bar, "b" and
// "." (what clickers send), and the arrows while no control of the page has the focus.  Each is posted to the
// parent, {type: "attention-explorable:key", key, shift}, in the page's message namespace (as its height is), and
// Escape too, so that the host can take the focus back (README, "Slides and learning management systems").  A
// focused control keeps its own keys: a slider's arrows, a text field's letters and spaces, a button's space bar.
// A link with keys=tour gives the presenter's keys to the tour in presentation mode: the tour claims each key it
// turns a step with (claim()), and that key stays in the page.  Outside a frame nothing changes.

const AttnFrame = (function () {
  "use strict";

  const DECK = ["PageDown", "PageUp", " ", "Spacebar", "b", "B", "."];
  const ARROWS = ["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown"];

  function framed() {
    if (typeof window === "undefined") return false;   // (V8 in the tests, a Web Worker)
    try { return window.parent !== window; } catch (e) { return true; }
  }

  // What the focused element does with a key: "text" (a field: every printable key is its own), "control" (a
  // slider, a menu, a plot that takes keys: the arrows are its own), "button" (the space bar presses it), or null.
  function focusKind(e) {
    for (const el of e.composedPath ? e.composedPath() : []) {
      if (!el || !el.tagName) continue;
      if (/^(INPUT|TEXTAREA)$/.test(el.tagName) && !/^(button|checkbox|radio|range)$/i.test(el.type || "")) return "text";
      if (el.isContentEditable) return "text";
      if (el.tagName === "SELECT") return "control";
      const role = el.getAttribute && el.getAttribute("role");
      if (role === "slider" || (el.classList && el.classList.contains("noUi-handle"))) return "control";
      if (el.tagName === "INPUT" && /^range$/i.test(el.type || "")) return "control";
      if (el.tagName === "BUTTON" || role === "button" || (el.tagName === "INPUT" && /^(button|checkbox|radio)$/i.test(el.type || "")))
        return "button";
      // a plot that takes keys itself (the main plot's canvas: app/regression/controls.js)
      if (role === "application") return "control";
    }
    return null;
  }

  // Whether a key goes to the host: the pure rule, `kind` being focusKind's answer, `taken` whether the page's tour
  // turns a step with it now (keys=tour in presentation mode; tests/js checks it).
  function toHost(key, kind, mods, taken) {
    if (mods && (mods.alt || mods.ctrl || mods.meta)) return false;
    if (key === "Escape") return true;
    if (kind === "text" || taken) return false;
    if (ARROWS.includes(key)) return kind === null;
    if (key === " " || key === "Spacebar") return kind !== "button";
    return DECK.includes(key);
  }

  // The tour's claim on a key event: a function of the event, true where the tour turns a step with it.
  let claimed = null;
  function claim(fn) { claimed = fn; }

  function post(key, shift) {
    try { window.parent.postMessage({ type: "attention-explorable:key", key, shift: !!shift }, "*"); }
    catch (e) { console.error("attention explorable:", e); }
  }

  // Framed, listen first (capturing, on the window): a key for the host is posted, and neither the page (the tour's
  // presenter keys, a slider) nor the browser (Page Down scrolls the frame) acts on it.  Escape is posted and left
  // to the page as well.
  function start() {
    if (!framed() || globalThis.__attnFrameKeys) return;
    globalThis.__attnFrameKeys = true;
    window.addEventListener("keydown", (e) => {
      if (document.querySelector("dialog[open]")) return;   // a figure's numbers (share.js): its keys are its own
      const mods = { alt: e.altKey, ctrl: e.ctrlKey, meta: e.metaKey };
      let taken = false;
      try { taken = !!claimed && !!claimed(e); } catch (err) { console.error("attention explorable:", err); }
      if (!toHost(e.key, focusKind(e), mods, taken)) return;
      post(e.key, e.shiftKey);
      if (e.key === "Escape") return;
      e.preventDefault();
      e.stopImmediatePropagation();
    }, { capture: true });
  }

  return { start, toHost, focusKind, framed, claim };
})();
AttnFrame.start();
