// The self-attention section's engine: runs in the browser on every gesture.
//
// One Bokeh CustomJS runs the page's library (attention/mirror.js: the formulas; ui/common.js: the helpers every
// section shares; attention/words.js: a sentence's tokens, vectors and heads, ...), then this section's modules, each
// using the ones before it: onpage.js (the cache, the queued writes, the readouts and the link), sizes.js, analysis.js
// (a sentence analysed and loaded), drawing.js, and this file, which starts the section and hands each event to the
// part that answers it.  Typed text is only ever data: every text that reaches a Div goes through esc(), so words,
// sentences and notices are never HTML.

const Sentence = (function (U, W, State, Sizes, Analysis, Drawing) {
  "use strict";

  const clamp = U.clamp, setWidget = U.setWidget;
  const { cacheFor, flush, mySearch, scheduleUrl, tell } = State;
  const { geometry } = Sizes;
  const { notify, fill, analysis, loadSentence } = Analysis;
  const { redrawSelection, redrawHead, redrawAll } = Drawing;

  // The text box's sentence (Enter): shown when the core would take it; otherwise the page stays as it was,
  // with the reason.
  function typed(a, c, raw) {
    if (raw === c.plain.text) return;   // the box already shows the page's sentence (an example, the link's)
    const r = analysis(c, String(raw));
    if (!r.plain) return notify(a, [fill(c.cfg.refused.typed, r.reason)]);
    notify(a, []);
    loadSentence(a, c, r.plain, "typed");
    redrawAll(a, c);
  }

  // A tour step's Show me: the sentence (analysed here, as a typed one), then the word, the head, T and the mask.
  function apply(a, c, v) {
    if (v.sentence !== undefined) {
      const r = analysis(c, String(v.sentence));
      if (r.plain) { notify(a, []); loadSentence(a, c, r.plain, "preset"); setWidget(a.w_input, "value", r.plain.text); }
    }
    if (v.token !== undefined) c.token = clamp(Number(v.token), 0, c.n - 1);
    if (v.head !== undefined) c.head = clamp(Number(v.head), 0, c.plain.heads.length - 1);
    if (v.att_temperature !== undefined) c.t = Number(v.att_temperature);
    if (v.causal !== undefined) c.causal = !!v.causal;
    redrawAll(a, c);
  }

  // ---- start -------------------------------------------------------------------------------------

  // Presentation mode belongs to the page (the regression section's toggle): this section hears of it on
  // the page's bus, at once if it was already announced, and afterwards as a "present" event.
  function listenForPresent(a, c) {
    U.subscribe(a.heat.document, "present", (present) => {
      if (!c.ready) c.present = !!present;
      else handle({ event_name: "present", present: !!present }, a);
    });
  }

  // A word or head the sentence does not have: the last one, with a notice.
  function clampToSentence(c, plain, notices) {
    const n = plain.tokens.length, H = plain.heads.length;
    if (c.token > n - 1) {
      notices.push(`token=${c.token} is past the end of this ${n}-word sentence; showing the last word (${n - 1}).`);
      c.token = n - 1;
    }
    if (c.head > H - 1) {
      notices.push(`head=${c.head} does not exist (there are ${H} heads, 0 to ${H - 1}); showing head ${H - 1}.`);
      c.head = H - 1;
    }
  }

  // The offline file and the live page read their own link (served, Python read it into the config): its
  // settings go into c, and its sentence, analysed here, is returned (null when it has none or it is refused).
  function readLink(a, c, notices) {
    const spec = c.cfg.spec;
    const { values, notices: more } = U.parseQuery(mySearch(window.location.search, spec), spec, c.cfg.url_rules);
    notices.push(...more);
    if (values.token !== undefined) c.token = values.token;
    if (values.head !== undefined) c.head = values.head;
    if (values.att_temperature !== undefined) c.t = values.att_temperature;
    if (values.causal !== undefined) c.causal = values.causal;
    if (values.sentence === undefined) return null;
    const r = analysis(c, values.sentence);
    if (!r.plain) notices.push(fill(c.cfg.refused.link, r.reason, c.cfg.initial.text));
    return r.plain || null;
  }

  function init(a, c) {
    c.cfg = a.config;
    // what flush puts first
    c.matrixKeys = new Set([a.cells, a.cell_image, a.cell_edges, a.cell_labels, a.rowsums, a.rowmark]);
    const i0 = c.cfg.initial;
    c.token = i0.token; c.head = i0.head; c.t = i0.att_temperature; c.causal = i0.causal;
    c.present = false;
    c.defaultKey = W.tokenize(c.cfg.default_sentence).join(" ");
    listenForPresent(a, c);
    let plain = null;
    if (!U.hostOwnsAddress()) {   // the page reads its own link (in a notebook, Python set the state)
      const notices = c.cfg.notices.slice();
      plain = readLink(a, c, notices) || W.analyze(i0.text, c.cfg.model);
      clampToSentence(c, plain, notices);
      notify(a, notices);
    } else {
      plain = W.analyze(i0.text, c.cfg.model);   // Python checked it, and the word and head, against the core
    }
    loadSentence(a, c, plain, "initial");
    setWidget(a.w_input, "value", plain.text);   // the box shows the sentence on the page
    c.ready = true;
    redrawAll(a, c);
    c.urlArmed = true;
    if (!U.hostOwnsAddress()) scheduleUrl(a, c);
    tell(a, c);
    U.onApply(a.heat.document, c, "sentence", (v) => U.runGuarded(c, () => { apply(a, c, v); flush(c); }, (e) => {
      c.pending = [];
      console.error("attention explorable (sentence):", e);
    }));
  }

  // ---- dispatch --------------------------------------------------------------------------------------

  function dispatch(ev, a, c) {
    const name = ev && ev.event_name;
    if (name === "document_ready") return;
    if (name === "tap") {
      if (ev.y === undefined || ev.y === null) return;
      if (ev.origin === a.heat) {
        const i = Math.round(ev.y), j = Math.round(ev.x);
        if (i < 0 || i >= c.n || j < -1 || j > c.n) return;
        c.token = i;
        setWidget(a.w_token, "value", String(i));
        return redrawSelection(a, c);
      }
      const h = a.mini_figs.indexOf(ev.origin);
      if (h >= 0 && h !== c.head) { c.head = h; setWidget(a.w_head, "active", h); return redrawHead(a, c); }
      return;
    }
    if (ev === a.w_input) return typed(a, c, a.w_input.value);
    if (ev === a.w_preset) {
      const p = c.cfg.presets[Number(a.w_preset.value)];
      if (!a.w_preset.value || !p || p.key === c.key) return;
      notify(a, []);   // a notice about an earlier sentence is out of date
      loadSentence(a, c, W.analyze(p.text, c.cfg.model), "preset");
      setWidget(a.w_input, "value", p.text);   // the box shows it (served, Python learns the sentence too)
      return redrawAll(a, c);
    }
    // (the engine's own widget writes come back here a moment later: those change nothing and return)
    if (ev === a.w_token) {
      const i = Number(a.w_token.value);
      if (!Number.isInteger(i) || i < 0 || i >= c.n || i === c.token) return;
      c.token = i;
      return redrawSelection(a, c);
    }
    if (ev === a.w_head) {
      const h = clamp(a.w_head.active, 0, c.plain.heads.length - 1);
      if (h === c.head) return;
      c.head = h;
      return redrawHead(a, c);
    }
    if (ev === a.w_logt) {
      if (Math.abs(a.w_logt.value - Math.log10(c.t)) <= 1e-12) return;
      c.t = 10 ** a.w_logt.value;
      return redrawAll(a, c);
    }
    if (ev === a.w_causal) {
      if (a.w_causal.active === c.causal) return;
      c.causal = a.w_causal.active;
      return redrawAll(a, c);
    }
    if (name === "present") {
      if (ev.present === c.present) return;
      c.present = ev.present;   // (every canvas text's size follows the page's theme: app/ui/theme.js)
      geometry(a, c);
      return redrawHead(a, c);
    }
  }

  function handle(ev, a) {
    const c = cacheFor(a);
    U.runGuarded(c, () => { if (!c.ready) init(a, c); else dispatch(ev, a, c); flush(c); }, (e) => {
      c.pending = [];
      console.error("attention explorable (sentence):", e);
      if (a.notice_div) notify(a, [`Something went wrong while redrawing (${e.message}).`]);
    });
  }

  return { handle, sizes: Sizes.sizes, cacheFor, cellText: Drawing.cellText };
})(AttnCommon, AttnWords, SentenceOnPage, SentenceSizes, SentenceAnalysis, SentenceDrawing);
