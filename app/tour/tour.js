// The guided tour's step card: runs in the browser, served page and offline file alike.
//
// One Bokeh CustomJS holds this file, after steps.js and dock.js, on the page's library.  The tour goes through every section of
// the page (data/tours/lesson.json).  The card moves to the section of the step it shows (an empty slot at the
// top of each section's side column or body, app/ui/layout.py).  A step of another section reads that
// section's numbers from the page's bus ("readouts:<section>", which each engine publishes) and its Show me asks
// the section to reach its state ("apply:<section>"), after drawing the section if it is not drawn yet.
//
// The regression's numbers it asks for on the same bus (app/regression/readouts.js), and its Show me moves the
// regression's declared controls (view.py control_table) as a student moves them, so its engine redraws as for a
// drag.  The card's HTML is built and escaped in Python (view.py); this file only chooses among those texts.

const AttnTour = (function (U, S, D) {
  "use strict";
  const { holds, stepFromUrl, writeUrl, opening } = S;
  const { markOverflow, docked, dock, moveCard, presenting, presenterKeys, framedKeys, hiddenLooks, turned, shownHeard,
          savePng } = D;

  // ---- page state ------------------------------------------------------------------------------

  function stateFor(a) {
    const map = globalThis.__attnTour || (globalThis.__attnTour = new WeakMap());
    let c = map.get(a.card);
    if (!c) { c = { ready: false }; map.set(a.card, c); }
    return c;
  }

  function set(m, prop, v) { if (m && m[prop] !== v) m[prop] = v; }

  // The synced step (app/tour/view.py's stepper): 0 while the card is hidden.  Python (a notebook's
  // e.tour) reads it, and sets it to move the card (fromStepper).
  function writeStepper(a, c) {
    const k = c.visible ? c.step : 0;
    if (a.stepper && a.stepper.value !== k) a.stepper.value = k;
  }

  function fromStepper(a, c) {
    const n = c.cfg.steps.length, raw = Number(a.stepper.value);
    if (!Number.isFinite(raw)) return;
    const k = Math.min(Math.max(Math.round(raw), 0), n);
    if (k === (c.visible ? c.step : 0)) return;   // the card's own change coming back
    if (k === 0) { stopTween(c); setVisible(a, c, false); return; }
    c.visible = true;
    openStep(a, c, k, "synced");
  }

  // ---- the card ----------------------------------------------------------------------------------

  // Your own data (the dataset menu on "yours"): a step written for the shipped data (needs_shipped_data) says
  // so and offers them back (the note's button, app/tour/view.py); any other step's Show me keeps your data.
  // `target`: what Show me is about to set.
  function yourData(a, c, target) {
    const step = c.cfg.steps[c.step - 1], mine = !!a.w.dataset && a.w.dataset.value === "yours", shipped = !!(step && step.shipped);
    if (a.shipped_note) set(a.shipped_note, "visible", mine && shipped && c.visible);
    if (target && mine && !shipped && step && !("dataset" in step.state)) target.dataset = "yours";
  }

  // The card's words: the count line with its small buttons, the title, the step's words when they are open, the
  // Try it line, then the status (app/tour/view.py card_parts; every text escaped there).  A docked card folds its
  // words away unless the screen has room for them ("Read more" opens them, and the student's choice holds from
  // step to step); the extra buttons (Free exploration, Skip, PNG) fold with them where they would take a row of
  // a phone's screen.
  function expanded(a, c) {
    if (c.expandChoice !== undefined) return c.expandChoice;
    return !docked() || (innerHeight >= 900 && innerWidth >= 900 && !presenting(a));
  }

  function cardHtml(a, c, open) {
    const p = c.cfg.cards[c.step - 1], k = c.step;
    // a phone's docked card, and a presenter's on a screen under 900 px tall (its words 22 px), keeps the line
    // about what was found or shown for "More" (the check mark by the title says a find): the figure needs the screen
    const brief = !open && docked() && (innerWidth < 600 || (presenting(a) && innerHeight < 900));
    const status = brief ? "" : c.status === "found" ? c.cfg.found[k - 1] : c.status === "shown" ? c.cfg.shown[k - 1] : "";
    const check = c.status === "found" ? c.cfg.check : "";   // found: a check mark by the title too, always in view
    // in presentation mode, what the keys do, until the presenter has used them once
    const keys = !presenting(a) || c.keysUsed ? "" : framedKeys(c) ? c.cfg.keys_framed : c.cfg.keys;
    const png = c.pngSaid && c.pngSaid.k === k ? `<p class="tour-png-said" role="status">${c.pngSaid.html}</p>` : "";
    return `<div class="tour-card" role="region" aria-label="${p.label}">${p.count}</p><h2>${p.num}${check}` +
      `${p.title}</h2>${open ? c.cfg.tools.open : c.cfg.tools.folded}${open ? p.text : ""}${p.do}${keys}${status}${png}</div>`;
  }

  function render(a, c) {
    const n = c.cfg.steps.length, k = c.step, step = c.cfg.steps[k - 1], end = !!c.closing;
    dock(c, step.section, () => render(a, c), step.look, presenting(a));
    const open = expanded(a, c);
    set(a.card, "text", end ? c.cfg.closing : cardHtml(a, c, open));
    set(a.prev, "disabled", !end && k <= 1);
    set(a.next, "disabled", end);   // the last step's Next opens the closing card
    set(a.show, "visible", !end);
    set(a.box, "visible", c.visible);
    set(a.open, "visible", !c.visible);
    set(a.open, "label", `${c.cfg.words.open} (step ${k} of ${n})`);
    set(a.skip, "visible", !end && !!step.skip);
    if (step.skip) set(a.skip, "label", step.skip[1]);
    // a step that looks at controls only has no figure to save, nor a page without the loader (a notebook)
    set(a.png, "visible", !end && !!step.png && !!(globalThis.AttnPage && globalThis.AttnPage.savePng));
    // (the closing card has its own two ways on)
    if (a.more_buttons) set(a.more_buttons, "visible", !end && (open || !docked()));
    yourData(a, c);
    moveCard(step);
    markOverflow(a);
  }

  // The card's own small buttons (view.py tools and closing_html), inside the card's HTML: one listener for the
  // page, found by their data-tour-act through the shadow roots BokehJS draws into.
  function cardClicks(a, c) {
    if (c.clicks || typeof document === "undefined") return;
    c.clicks = true;
    document.addEventListener("click", (e) => {
      const path = e.composedPath ? e.composedPath() : [];
      const b = path.find((el) => el && el.getAttribute && el.getAttribute("data-tour-act"));
      if (!b) return;
      const act = b.getAttribute("data-tour-act");
      try {
        if (act === "more") { c.expandChoice = !expanded(a, c); render(a, c); }
        else if (act === "hide") { stopTween(c); c.closing = false; setVisible(a, c, false); }
        else if (act === "restart") turnTo(a, c, 1);
      } catch (err) { console.error("attention explorable tour:", err); }
    });
  }

  // ---- the other sections: their numbers from the page's bus, their Show me through it -------------------

  function listen(a, c) {
    const doc = a.card.document;
    c.sectionReadouts = {};
    for (const section of new Set(c.cfg.steps.filter((s) => !s.asked).map((s) => s.section))) {
      U.subscribe(doc, `readouts:${section}`, (r) => {
        c.sectionReadouts[section] = r;
        const step = c.cfg.steps[c.step - 1];
        if (step && step.section === section) {
          if (c.showing === section && holds(a, c)) {
            c.showing = null;
            c.held = true;
            if (c.status !== "found") c.status = "shown";
            render(a, c);
            reveal(c);   // the card's new line moved what is under it
            shownHeard(a, c);
          }
          else moved(a, c);
        }
      });
    }
  }

  // A section asked for settings (a step's Show me, or what shows its control), drawn first if it is not drawn yet.
  function ask(a, c, section, values) {
    const page = globalThis.AttnPage;
    c.applySeq = (c.applySeq || 0) + 1;
    const req = { seq: c.applySeq, values }, send = () => U.publish(a.card.document, `apply:${section}`, req);
    if (page && page.ensure) page.ensure(section).then(send, send); else send();
  }

  // Each section that owns a setting of the step is asked for it.
  function showMeElsewhere(a, c, step) {
    c.showing = step.section;
    for (const [section, values] of Object.entries(step.apply)) ask(a, c, section, values);
    reveal(c);
  }

  function stopTween(c) {
    if (c.tween) cancelAnimationFrame(c.tween);
    c.tween = null;
    c.tweening = false;
  }

  // A step that needs a control behind "More controls" (its state sets one) opens that disclosure
  // (app/regression/disclosure.js hears the change and updates the button).
  function openMore(a, c) {
    const step = c.cfg.steps[c.step - 1];
    if (c.visible && step && step.more && a.more && a.more.visible !== true) a.more.visible = true;
  }

  // Every step opens here (steps.js opening says what it does, `how` it opens): the page starting on it, a turn,
  // a notebook moving the card.  In presentation mode it opens shown, from a link as from a key.
  function openStep(a, c, k, how) {
    k = Math.min(Math.max(k, 1), c.cfg.steps.length);
    const step = c.cfg.steps[k - 1];
    const todo = opening(step, k, how, { presenting: presenting(a), visible: c.visible, named: c.named,
                                         prepared: c.prepared, hidden: hiddenLooks(a.card.document, step.look) });
    go(a, c, k, todo.look, todo.ready);
    if (todo.show) showMe(a, c);
  }

  // A step whose words ask for a control still hidden: the settings that show it (steps.js opening), set at once
  // as a student would, the regression's through its widgets, another section's through the page's bus.
  function ready(a, c, settings) {
    for (const [section, values] of Object.entries(settings)) {
      if (section !== c.cfg.glider) { ask(a, c, section, values); continue; }
      for (const t of c.cfg.controls.filter((t) => t.key in values))
        set(a.w[t.widget], t.prop, t.log ? Math.log10(values[t.key]) : values[t.key]);
    }
  }

  function go(a, c, k, look, settings) {
    stopTween(c);
    c.focusAfterShow = false;
    c.closing = false;
    c.step = k;
    c.showing = null;
    c.status = c.foundSteps.has(k) ? "found" : null;   // a step found earlier keeps its check mark
    if (settings) ready(a, c, settings);
    c.held = holds(a, c);   // a state the page is already in is not a discovery: reaching it is
    render(a, c);
    openMore(a, c);
    writeStepper(a, c);
    writeUrl(c);
    if (look) reveal(c);
  }

  // What the step talks about and asks the student to move, on screen together (app/ui/loader.js reveal), above
  // the docked card (or with the card, where it is not docked).
  function reveal(c) {
    const step = c.cfg.steps[c.step - 1], page = globalThis.AttnPage;
    if (c.visible && !c.closing && step && page && page.reveal)
      page.reveal(step.look, { with: "attn-b-tour" }).catch((e) => console.error(e));
  }

  // The student turns the steps (Next, Previous, Skip, the keys): by `by` steps, past the last one to the closing
  // card (in presentation mode each opens shown: openStep).
  function turn(a, c, by) {
    const n = c.cfg.steps.length, from = c.closing ? n + 1 : c.step;
    turnTo(a, c, Math.min(Math.max(from + by, 1), n + 1));
  }

  function turnTo(a, c, k) {
    const n = c.cfg.steps.length;
    if (k === (c.closing ? n + 1 : c.step)) return;
    if (k === n + 1) { stopTween(c); c.closing = true; c.status = null; render(a, c); return; }
    openStep(a, c, k, "turn");
  }

  function setVisible(a, c, visible) {
    c.visible = visible;
    render(a, c);
    openMore(a, c);
    writeStepper(a, c);
    writeUrl(c);
  }

  // "Show me": the discrete settings at once, the numbers tweened (ease in and out) through the widgets,
  // so the regression engine redraws every frame as for a drag.
  function showMe(a, c) {
    const step = c.cfg.steps[c.step - 1], w = a.w;
    if (!step.glide) return showMeElsewhere(a, c, step);
    const target = Object.assign({}, c.cfg.defaults, step.state);
    yourData(a, c, target);
    stopTween(c);
    c.tweening = true;
    c.target = target;
    // What the tween wrote last, control by control: a control that holds anything else was moved by the
    // student, and that stops the tween (studentMoved).  Recorded before each write, which the widgets'
    // callbacks hear at once.
    c.wrote = {};
    const own = (key, m, prop, v) => { c.wrote[key] = v; set(m, prop, v); c.wrote[key] = m[prop]; };
    openMore(a, c);
    reveal(c);
    own("link", w.link, "active", false);   // linked, moving h would move T: unlink while the numbers travel
    // the regression's declared controls (app/tour/view.py control_table): a menu or a check box at once, a
    // slider glides
    const moves = c.cfg.controls.filter((t) => t.key !== "link");
    for (const t of moves) if (!t.glide) own(t.widget, w[t.widget], t.prop, target[t.key]);
    const keys = moves.filter((t) => t.glide).map((t) => [t.widget, w[t.widget],
                                                           t.log ? Math.log10(target[t.key]) : target[t.key]]);
    for (const [key, m] of keys) c.wrote[key] = m.value;
    const from = keys.map(([, m]) => m.value);
    // Over tween_ms, and in at least min_frames frames: where a frame takes long (a slow machine, a big
    // page) the move takes longer rather than jumping.
    // (a student who asked for less motion gets the step's state at once)
    const still = typeof matchMedia === "function" && matchMedia("(prefers-reduced-motion: reduce)").matches;
    const t0 = performance.now(), dur = still ? 0 : c.cfg.tween_ms, minFrames = still ? 1 : c.cfg.min_frames;
    let k = 0;
    const frame = (now) => {
      if (!c.tweening) return;
      k += 1;
      const u = dur > 0 ? Math.min(1, Math.max(0, (now - t0) / dur), k / minFrames) : 1;
      const e = u < 0.5 ? 2 * u * u : 1 - (-2 * u + 2) ** 2 / 2;
      keys.forEach(([key, m, to], i) => own(key, m, "value", u >= 1 ? to : from[i] + (to - from[i]) * e));
      if (!c.tweening) return;   // the student took over during this frame
      if (u < 1) { c.tween = requestAnimationFrame(frame); return; }
      own("link", w.link, "active", target.link);
      c.tween = null;
      c.tweening = false;
      c.held = holds(a, c);
      if (c.held && c.status !== "found") c.status = "shown";
      render(a, c);
      reveal(c);   // the state is reached: what it talks about, on screen (a column that opened moved things)
      shownHeard(a, c);
    };
    c.tween = requestAnimationFrame(frame);
  }

  // During "Show me", did the student move something?  A drag or tap on the main plot, or a control that
  // holds something other than what the tween wrote last into it (a slider, a menu, a check box, Reset).
  function studentMoved(ev, a, c) {
    const name = ev && ev.event_name;
    if (name === "panstart" || name === "pan" || name === "tap" || name === "press") return true;
    for (const t of c.cfg.controls) {
      const key = t.widget, m = a.w[key];
      if (ev !== m || !c.wrote || !(key in c.wrote)) continue;
      const now = m[t.prop], was = c.wrote[key];
      if (typeof now === "number" && typeof was === "number") return Math.abs(now - was) > 1e-9;
      return now !== was;
    }
    return false;
  }

  // The student's value wins: the tween stops where it is, and only the link of h and T (unset while the
  // numbers travelled) goes back to what the step asks for.
  function takeOver(a, c) {
    const target = c.target;
    stopTween(c);
    c.focusAfterShow = false;   // the student is acting already: the focus stays where they are
    if (target) set(a.w.link, "active", target.link);
  }

  // A student's own move (a drag, a slider, a menu): recognise the step's condition when it starts to hold.
  function moved(a, c) {
    if (c.tweening || !c.visible || c.pending) return;
    c.pending = requestAnimationFrame(() => {
      c.pending = null;
      if (c.tweening) return;
      const now = holds(a, c);
      if (now && !c.held && c.status !== "found") {
        c.status = "found"; c.foundSteps.add(c.step); render(a, c);
        U.say(c.cfg.said.found[c.step - 1], "tour");
      }
      c.held = now;
    });
  }

  function init(a, c) {
    c.cfg = a.config;
    // in a notebook, the synced step (Python may have moved it since the page was built); else the link's
    let k;
    if (globalThis.__attnHostOwnsAddress !== true) {
      const r = stepFromUrl(c.cfg);
      k = r.k; c.named = r.named; c.prepared = r.prepared || c.cfg.prepared;
      if (r.notice) notice(a, r.notice);
    } else {
      const synced = a.stepper && Number.isFinite(Number(a.stepper.value)) ? Number(a.stepper.value) : 1;
      k = Math.min(Math.max(synced, 0), c.cfg.steps.length); c.named = true;
    }
    listen(a, c);
    c.visible = k > 0;
    c.step = Math.max(1, k);
    c.status = null;
    c.foundSteps = new Set();
    c.ready = true;
    c.urlArmed = true;   // a corrected link is written back at once
    presenterKeys(a, c, (by) => { turn(a, c, by); turned(a, c, false); });
    openStep(a, c, c.step, "start");   // a link to a later step brings its figure into view, shown when presenting
    cardClicks(a, c);
  }

  // A notice about the link's tour value, beside the regression's own notices about the link (escaped).
  function notice(a, text) {
    const d = a.notice_div;
    if (!d) { console.warn("attention explorable tour:", text); return; }
    d.text = (d.text || "") + `<p class="notice">${U.esc(text)}</p>`;
    d.visible = true;
  }

  function handle(ev, a) {
    const c = stateFor(a);
    try {
      // A document's callbacks get the document as cb_obj (and the event as cb_data); a model's get the event.
      const ready = ev && (ev.event_name === "document_ready" || typeof ev.roots === "function");
      if (!c.ready) {
        if (ready) init(a, c);
        return;   // the regression engine setting its widgets up is not the student's doing
      }
      if (ready) return;
      const origin = ev && ev.origin;
      if (ev && ev.event_name === "button_click") {
        if (origin === a.next) { turn(a, c, 1); turned(a, c, true); }
        else if (origin === a.prev) { turn(a, c, -1); turned(a, c, true); }
        else if (origin === a.show) { c.focusAfterShow = true; showMe(a, c); }
        else if (origin === a.hide) { stopTween(c); c.closing = false; setVisible(a, c, false); }
        else if (origin === a.open) setVisible(a, c, true);
        else if (origin === a.skip) { const sk = c.cfg.steps[c.step - 1].skip; if (sk) turnTo(a, c, sk[0]); }
        else if (origin === a.png) savePng(a, c, () => render(a, c));
        return;
      }
      if (ev === a.stepper) { fromStepper(a, c); return; }
      if (c.tweening && studentMoved(ev, a, c)) takeOver(a, c);
      moved(a, c);
      yourData(a, c);
    } catch (e) {
      console.error("attention explorable tour:", e);
    }
  }

  return { handle, compare: S.compare, holds, stateFor, resolveStep: S.resolveStep };
})(AttnCommon, AttnTourSteps, AttnTourDock);
