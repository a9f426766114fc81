// Where the guided tour's step card stands on the page: docked at the foot of the screen, moved into the
// section of the step it shows, faded where its words go on below its foot; presentation mode, whose keys
// turn the steps; what a screen reader hears of a turn, and where the focus goes; the step figure's PNG.  Reads and
// moves the page's elements only; the tour's engine (tour.js, after this file)
// decides what the card says.

const AttnTourDock = (function (U) {
  "use strict";

  // A card whose words go on below its foot (its height is capped where docked) fades out there (CARD_CSS).
  function markOverflow(a) {
    if (typeof requestAnimationFrame !== "function") return;
    requestAnimationFrame(() => {
      const box = AttnBokeh.markupElement(U.findView(a.card)), el = box && box.querySelector(".tour-card");
      if (el) el.classList.toggle("tour-more-below", el.scrollHeight - el.scrollTop > el.clientHeight + 2);
      if (el && !el.__attnScrollWatch) {
        el.__attnScrollWatch = true;
        el.addEventListener("scroll", () => markOverflow(a), { passive: true });
      }
    });
  }

  // ---- the card docked at the foot of the screen -------------------------------------------------------
  //
  // On the page (not in a notebook, whose cell has no screen of its own) the card stands at the foot of the
  // screen while it shows a step, above everything else, so its title, its Try it line and its buttons are
  // always there, whatever the step scrolls into view; the page keeps room for it at its end (--dock-h,
  // app/ui/layout.py SKELETON_CSS), and AttnPage.reveal brings a step's figure and control into view above it.
  // A page that does not scroll inside its window (a frame as tall as the page) keeps the card in its place.

  function dockEl() { return typeof document === "undefined" ? null : document.getElementById("attn-b-tour"); }

  function docked() { const el = dockEl(); return !!el && el.classList.contains("attn-docked"); }

  // Where the card docks: on a wide screen, in a section with a side column, at the foot of that column, beside the
  // figure column, which keeps its whole height; elsewhere (a phone, a tablet, a section of one column) across the
  // foot of the screen.
  // Projected, a step that looks only at what the side column holds (the sense plot) has the card across the foot
  // of the screen instead: at the foot of that column its large words would leave the plot too little of a small
  // projector's height (tests/browser/test_in_view.py).
  function dockSide(section, look, present) {
    if (innerWidth < 900 || (present && sideOnly(look))) return null;
    const side = document.querySelector(`#attn-sec-${section} > .attn-grid > .attn-side`);
    const r = side && side.getBoundingClientRect();
    return r && r.width > 0 ? r : null;
  }

  function sideOnly(look) {
    const page = globalThis.AttnPage;
    return !!(look && look.length && page && page.blockOf) &&
      look.every((n) => { const b = page.blockOf(n); return !!b && b.place === "side"; });
  }

  // redraw(): the card drawn again, when a resize may move it.  look: the step's look; present: presentation mode.
  function dock(c, section, redraw, look, present) {
    const el = dockEl();
    if (!el || !document.querySelector(".attn-page")) return;
    const root = document.documentElement, was = el.classList.contains("attn-docked");
    const room = was ? el.getBoundingClientRect().height : 0;
    const on = c.visible && root.scrollHeight - room > innerHeight + 2;
    const side = on ? dockSide(section, look, present) : null;
    el.classList.toggle("attn-docked", on);
    el.classList.toggle("attn-docked-side", !!side);
    el.style.left = side ? `${Math.round(side.left)}px` : "";
    el.style.width = side ? `${Math.round(side.width)}px` : "";
    // a narrow card (a 1024 px screen's side column) leaves the section's name out of its count line
    el.style.setProperty("--tour-section-display", side && side.width < 560 ? "none" : "inline");
    if (!c.dockWatch) {
      c.dockWatch = true;
      const note = () => {   // the card's height: the room the page keeps at its end, and over the figure column
        const h = el.classList.contains("attn-docked") ? Math.ceil(el.getBoundingClientRect().height) : 0;
        const fig = el.classList.contains("attn-docked-side") ? 0 : h;
        if (root.style.getPropertyValue("--dock-h") !== `${h}px`) root.style.setProperty("--dock-h", `${h}px`);
        if (root.style.getPropertyValue("--dock-fig") !== `${fig}px`) root.style.setProperty("--dock-fig", `${fig}px`);
      };
      if (typeof ResizeObserver === "function") new ResizeObserver(note).observe(el);
      c.noteDock = note;
      addEventListener("resize", () => { if (c.ready && c.visible) redraw(); });
    }
    c.noteDock();
  }

  // The card travels with its section.  Where the section's figure stays in view (a wide screen, or a phone whose
  // stage sticks), the card heads the side column beside it; where one column holds everything and the figure
  // scrolls with the page, the card stands above the figure; in a section of one column, right above the block
  // that holds the step's figure.  (In a notebook the page has no slots, and the card stays put.)
  function moveCard(step) {
    if (typeof document === "undefined") return;
    const card = document.getElementById("attn-b-tour"), page = globalThis.AttnPage;
    const slot = (where) => document.querySelector(`.attn-card-slot[data-section="${step.section}"][data-where="${where}"]`);
    if (!card) return;
    let where = null, before = null;
    const b = page && page.blockOf ? page.blockOf(step.look[0]) : null, el = b && document.getElementById(b.el);
    // on a wide screen a plot far down the side column (the bias and variance plot) would leave the card a
    // screen above it: there too the card goes right above what the step looks at
    const lowInSide = b && b.place === "side" && innerWidth >= 900 && slot("side") &&
      slot("side").parentElement === (el && el.parentElement);
    if (b && (b.place === "body" || lowInSide) && el && el.parentElement) {
      // what the step looks at is in the section's body, under its figure and side column: the card goes
      // right above it
      where = el.parentElement;
      before = el;
    } else if (slot("side")) {
      const sec = document.getElementById(`attn-sec-${step.section}`), stage = sec && sec.querySelector(".attn-stage");
      const pinned = innerWidth >= 900 || (stage && getComputedStyle(stage).position === "sticky");
      where = pinned ? slot("side") : slot("top");
    } else if (slot("body")) {
      where = slot("body");
    }
    if (where && (card.parentElement !== where || card.nextElementSibling !== before)) where.insertBefore(card, before);
  }

  // In presentation mode the tour is a lecture script: the arrow keys go to the next and previous
  // step, unless a control that uses the arrows itself (a slider, a menu, a text field) has the focus.
  function presenting(a) {
    if (a.w && a.w.present) return a.w.present.active;
    const page = typeof document !== "undefined" && document.querySelector(".attn-page");
    return !!page && page.getAttribute("data-present") === "1";
  }

  // The keys that turn the steps in presentation mode (app/tour/view.py TURN_KEYS, whose words the card's hint
  // says): what a presenter's clicker sends (Page Down, Page Up), the arrows and the space bar (Shift for back),
  // each row {keys, shift, by}.  The arrows and the space bar not while a control that uses them has the focus (a
  // slider, a menu, a text field, the main plot), and the space bar stays a focused button's own (usesKeys); the
  // clicker's keys turn the step whatever has the focus (clicker).
  function keyTurn(e, table) {
    if (e.altKey || e.ctrlKey || e.metaKey || e.defaultPrevented) return 0;
    const row = table.find((t) => t.keys.includes(e.key) && t.shift === !!e.shiftKey);
    return row ? row.by : 0;
  }

  // How many of the models a step looks at (by name) are hidden now: a control shown only in some states (the
  // key-norm tilt, for the dot kernel alone).
  function hiddenLooks(doc, names) {
    return names.filter((n) => { const m = doc && doc.get_model_by_name(n); return !!m && m.visible === false; }).length;
  }

  function clicker(e) { return e.key === "PageDown" || e.key === "PageUp"; }

  function usesKeys(e) {
    for (const el of e.composedPath ? e.composedPath() : []) {
      if (!el || !el.tagName) continue;
      if (/^(INPUT|SELECT|TEXTAREA)$/.test(el.tagName)) return true;
      const role = el.getAttribute && el.getAttribute("role");
      if (role === "slider" || role === "application" || (el.classList && el.classList.contains("noUi-handle")) ||
          el.isContentEditable) return true;
      if ((e.key === " " || e.key === "Spacebar") && (el.tagName === "BUTTON" || role === "button")) return true;
    }
    return false;
  }

  // Whose the presenter's keys are in a frame (a slide deck): the link's keys=tour (in a notebook, Python's
  // setting) gives them to the tour; by default they are the deck's (app/ui/frame.js).
  function tourKeys(s) {
    if (!s) return false;
    const v = U.hostOwnsAddress() ? undefined : U.parseQuery(window.location.search, s.spec, s.url_rules).values.keys;
    return (v === undefined ? s.initial : v) === "tour";
  }

  // Whether the card's hint says the deck's keys are the deck's: framed, and the tour not given them.
  function framedKeys(c) { return !!globalThis.AttnFrame && AttnFrame.framed() && !c.tourKeys; }

  // The keys turn the steps (`turn(by)`) while the page presents and the card shows a step; the card's hint goes
  // once the presenter has used them (c.keysUsed).  Framed with keys=tour, the tour claims the keys it turns with.
  // It listens first (capturing): a focused slider, menu or plot does not also act on the clicker's key.
  function presenterKeys(a, c, turn) {
    if (c.keys) return;
    c.keys = true;
    c.tourKeys = tourKeys(c.cfg.keys_setting);
    const turns = (e) => !!keyTurn(e, c.cfg.turn_keys) && presenting(a) && c.visible && (clicker(e) || !usesKeys(e)) &&
      !document.querySelector("dialog[open]");   // not behind a figure's numbers (app/ui/share.js openNumbers)
    if (c.tourKeys && globalThis.AttnFrame) AttnFrame.claim(turns);
    window.addEventListener("keydown", (e) => {
      if (!turns(e)) return;
      const by = keyTurn(e, c.cfg.turn_keys);
      e.preventDefault();
      e.stopImmediatePropagation();
      c.keysUsed = true;
      try { turn(by); } catch (err) { console.error("attention explorable tour:", err); }
    }, { capture: true });
  }

  // A step's figure as a PNG for slides (the first plot the step looks at: app/tour/model.py Step.figure); the card
  // says what was done, as the page's figure menu does (share.js savedHtml: in a frame, what to do if nothing came).
  function savePng(a, c, render) {
    const step = c.cfg.steps[c.step - 1], page = globalThis.AttnPage, k = c.step, t = c.cfg.png_texts;
    const said = (html) => { c.pngSaid = { k, html }; render(); };
    if (step.png && page && page.savePng) page.savePng(step.png, step.id).then((file) => said(AttnShare.savedHtml(t, file)),
      (e) => { said(U.esc(t.failed)); console.error("attention explorable tour:", e); });
  }

  // ---- a screen reader and a keyboard -----------------------------------------------------------------------

  // A step reached by a turn is said in the page's live region ("Step 3 of 21: ..."); after Next or Previous
  // pressed on the card, the focus goes to the card (its words are what to read next), so a screen reader's
  // reading and the Tab order start there.
  function turned(a, c, byButton) {
    if (c.closing) return;
    U.say(c.cfg.cards[c.step - 1].said, "tour");
    if (byButton) U.focusModel(a.card, true);
  }

  // Show me's state reached: its line said, and, after the Show me button was pressed, the focus on the step's
  // control (the first control the step looks at), where the student acts next; the card when it has none, and
  // in presentation mode, whose arrows turn the steps unless a control has the focus.
  function shownHeard(a, c) {
    if (c.status === "shown") U.say(c.cfg.said.shown[c.step - 1], "tour-shown");   // joins the step said just before
    if (!c.focusAfterShow) return;
    c.focusAfterShow = false;
    if (presenting(a)) { U.focusModel(a.card, true); return; }
    const doc = a.card.document, step = c.cfg.steps[c.step - 1];
    const models = step.look.map((name) => doc.get_model_by_name(name)).filter((m) => m);
    // a slider, a menu or a button first; a plot that takes keys itself (the main plot) when the step has none
    const inner = (m) => { const el = U.actionElement(m), v = U.findView(m); return !!el && !!v && el !== v.el; };
    const pick = models.find(inner) || models.find((m) => U.actionElement(m));
    if (!(pick && U.focusModel(pick))) U.focusModel(a.card, true);
  }

  return { markOverflow, docked, dock, moveCard, presenting, keyTurn, usesKeys, presenterKeys, framedKeys, hiddenLooks,
           turned, shownHeard, savePng };
})(AttnCommon);
