// The routing section's engine: plays back W_Q and W_K learning the sense of "bank" (attention.train_qk).
//
// One Bokeh CustomJS runs the page's library (attention/mirror.js: the formulas; ui/common.js: the URL parser, number
// formats and the page's bus; attention/words.js: AttnWords, a typed sentence's tokens and vectors), then this
// section's modules, each using the ones before it: head.js (the twins of attention/learn_qk.py), onpage.js (the cache,
// the readouts and the link), plots.js, lines.js (the readout in words), texts.js, playback.js, and this file, which
// starts the section and hands each event to the part that answers it.

const Routing = (function (U, Head, State, Plots, Texts, Playback) {
  "use strict";

  const clamp = U.clamp, setHtml = U.setHtml, setWidget = U.setWidget;
  const { shownSentence, clueCurve, frameAt } = Head;
  const { cacheFor, para, flush, fail } = State;
  const { matrixAxes } = Plots;
  const { prefMax, ownInfo } = Texts;
  const { showFrame, loadSentence, showShown, showTyped, stop, stepOnce, play, reset, apply } = Playback;

  // ---- start and dispatch -----------------------------------------------------------------------------------

  // Whether the page is in presentation mode as the section starts (later changes come over the page's bus).
  function pagePresent() {
    const page = typeof document !== "undefined" ? document.querySelector(".attn-page") : null;
    return !!page && page.getAttribute("data-present") === "1";
  }

  // The link's step and sentence (a notebook's address is JupyterLab's: it keeps the component's own).
  function opening(c) {
    let v = Object.assign({}, c.cfg.initial);
    if (!U.hostOwnsAddress()) v = Object.assign(v, U.parseQuery(window.location.search, c.cfg.spec, c.cfg.url_rules).values);
    const steps = c.cfg.plain.frame_steps, f = frameAt(steps, v.qk_step), notices = [];
    if (steps[f] !== v.qk_step)
      notices.push(`Training is recorded at steps ${steps.slice(0, 3).join(", ")}, \u2026 ${steps[steps.length - 1]}; ` +
        `showing step ${steps[f]} for qk_step=${v.qk_step}.`);
    return { frame: f, sentence: v.qk_sentence, notices };
  }

  function init(a, c) {
    c.cfg = a.config;
    c.sentences = c.cfg.plain.sentences.map((_, i) => shownSentence(c.cfg, i));
    c.clue = c.sentences.map((s) => clueCurve(c.cfg, s));
    c.prefMax = prefMax(c);
    c.present = pagePresent();
    U.subscribe(a.heat.document, "present", (v) => {
      if (!c.ready) c.present = !!v; else handle({ event_name: "present", present: !!v }, a);
    });
    const o = opening(c);
    setHtml(a.notice_div, o.notices.map((s) => para("notice", s)).join(""));
    if (o.notices.length) a.notice_div.visible = true;
    c.frame = o.frame;
    setWidget(a.w_sentence, "value", String(clamp(o.sentence, 0, c.sentences.length - 1)));
    showShown(a, c, o.sentence);
    c.ready = true;
    c.urlArmed = true;
    U.onApply(a.heat.document, c, "routing", (v) => U.runGuarded(c, () => { apply(a, c, v); flush(c); },
                                                                    (e) => { c.pending = []; fail(a, e); }));
  }

  function onButton(a, c, origin) {
    if (origin === a.w_play) play(a, c);
    else if (origin === a.w_pause) stop(a, c);
    else if (origin === a.w_step) stepOnce(a, c);
    else if (origin === a.w_reset) reset(a, c);
  }

  function onSentence(a, c) {
    const v = a.w_sentence.value;
    if (v === c.cfg.own) {
      if (c.typed && c.sent !== c.typed) { loadSentence(a, c, c.typed); ownInfo(a, c); showFrame(a, c); }
      else if (!c.typed) {
        setWidget(a.w_sentence, "value", String(c.shown));
        ownInfo(a, c, para("small", "Type a sentence in the box below and press Enter."));
      }
      return;
    }
    const i = Number(v);
    if (!Number.isInteger(i) || (i === c.shown && !c.sent.own)) return;
    showShown(a, c, i);
  }

  function dispatch(ev, a, c) {
    const name = ev && ev.event_name;
    if (name === "document_ready") return;
    if (name === "button_click") return onButton(a, c, ev.origin);
    if (name === "present") {
      if (ev.present === c.present) return;
      c.present = ev.present;   // (the page's theme sizes every text: app/ui/theme.js; here the matrix's labels)
      matrixAxes(a, c);
      return showFrame(a, c);
    }
    if (ev === a.w_sentence) return onSentence(a, c);
    if (ev === a.w_frame) {
      const f = Math.round(a.w_frame.value);
      if (f === c.frame) return;
      stop(a, c);
      c.frame = f;
      return showFrame(a, c);
    }
    if (ev === a.w_input) return showTyped(a, c, a.w_input.value);
  }

  function handle(ev, a) {
    const c = cacheFor(a);
    U.runGuarded(c, () => { if (!c.ready) init(a, c); else dispatch(ev, a, c); flush(c); },
                 (e) => { c.pending = []; fail(a, e); });
  }

  return { handle, attend: Head.attend, evenOf: Head.evenOf, senseOf: Head.senseOf, clueWeight: Head.clueWeight,
           clueCurve, holdFrame: Head.holdFrame, dueFrame: Playback.dueFrame, preference: Head.preference,
           sharedColumns: Head.sharedColumns, sharedSummary: Head.sharedSummary, frameAt, cacheFor };
})(AttnCommon, RoutingHead, RoutingOnPage, RoutingPlots, RoutingTexts, RoutingPlayback);
