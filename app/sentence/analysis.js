// The self-attention section's sentence: analysed by AttnWords (the twin of
// attention.analyze_sentence(...).to_plain()) from the toy model in the config, or refused with the core's reason;
// loaded into the state, its words listed; and its weights, outputs and sense-plane points recomputed with
// AttnMirror for the chosen temperature and mask.  Typed text is only ever data: it reaches a Div through esc().

const SentenceAnalysis = (function (M, U, W, State, Sizes) {
  "use strict";

  const esc = U.esc, clamp = U.clamp, setWidget = U.setWidget;
  const { putRange, setText, sameArray } = State;
  const { geometry } = Sizes;

  // ---- a sentence ------------------------------------------------------------------

  function notify(a, notices) {
    a.notice_div.text = notices.map((s) => `<p class="notice">${esc(s)}</p>`).join("");
    a.notice_div.visible = notices.length > 0;
  }

  // A template of the config's "refused" with its {reason} (and {shown}) filled in (functions, so that no "$"
  // in a reason is read as a replacement pattern).
  function fill(template, reason, shown) {
    return template.replace("{reason}", () => reason).replace("{shown}", () => shown);
  }

  // The analysis of `raw` (AttnWords.analyze), or {reason} when the core would refuse it; other errors throw.
  function analysis(c, raw) {
    if (Array.from(raw).length > c.cfg.spec.sentence.max) return { reason: c.cfg.refused.too_long };
    try {
      return { plain: W.analyze(raw, c.cfg.model) };
    } catch (e) {
      if (!W.isRefusal(e)) throw e;
      return { reason: e.message };
    }
  }

  function loadSentence(a, c, plain, how) {
    const old = c.plain;
    const same = old && sameArray(old.tokens, plain.tokens);
    c.plain = plain;
    c.n = plain.tokens.length;
    c.key = plain.tokens.join(" ");
    if (how === "initial") c.token = clamp(c.token, 0, c.n - 1);
    else if (!same) {
      // a new sentence: follow "bank" when it has one (the examples are about it), else keep the row if it exists
      const b = plain.tokens.indexOf("bank");
      c.token = b >= 0 ? b : clamp(c.token, 0, c.n - 1);
    }
    c.head = clamp(c.head, 0, plain.heads.length - 1);
    const vp = plain.sense_plane.value_projection;
    c.valueXY = plain.heads.map((h) => M.matmul(h.v, vp));
    a.tokens_src.data = { tok: plain.tokens.slice() };   // read by the tick formatter, drawn by no glyph
    setWidget(a.w_token, "options", plain.tokens.map((t, i) => [String(i), `${i}: ${t}`]));
    const idx = c.cfg.presets.findIndex((p) => p.key === c.key);
    setWidget(a.w_preset, "value", idx >= 0 ? String(idx) : "");
    setText(c, a.preset_div, idx >= 0 ? `<p class="small">${esc(c.cfg.presets[idx].note)}</p>` : "");
    const unknown = new Set(plain.unknown);
    const chips = plain.tokens.map((t) => `<span class="tok${unknown.has(t) ? " unknown" : ""}">${esc(t)}</span>`);
    let info = `<p class="tokens">\u201c${esc(plain.text)}\u201d becomes ${c.n} token${c.n === 1 ? "" : "s"}: ` +
      `${chips.join(" ")}</p><p class="small">${esc(c.cfg.tokenize_note)}`;
    if (plain.unknown.length)
      info += ` Not in the toy vocabulary, so given made-up vectors (the same every time; highlighted above): ` +
        `${plain.unknown.map((w) => `\u201c${esc(w)}\u201d`).join(", ")}.`;
    setText(c, a.info_div, info + "</p>");
    geometry(a, c);
  }

  function compute(c) {
    const p = c.plain;
    const r = M.multiHeadAttention(p.heads.map((h) => h.q), p.heads.map((h) => h.k), p.heads.map((h) => h.v),
      p.w_o, c.causal, c.t);
    c.res = r;
    const vp = p.sense_plane.value_projection;
    c.outXY = r.heads.map((o) => M.matmul(o, vp));
    c.combXY = M.matmul(r.output, p.sense_plane.output_projection);
  }

  // The sense plot's range covers every value and output of every head and word, so it stays put while
  // the word or the head changes (a changed range can change the axes' size, and the page's layout).
  function senseRange(a, c) {
    let x0 = 0, x1 = 1, y0 = 0, y1 = 1;
    const take = (pts) => {
      for (const [x, y] of pts) { x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, y); y1 = Math.max(y1, y); }
    };
    c.valueXY.forEach(take); c.outXY.forEach(take); take(c.combXY);
    const span = Math.max(x1 - x0, y1 - y0), M = c.cfg.sense_label.margin;
    c.senseSpan = span;
    // room to the right for the words' labels, and above and below every dot for the output's label
    c.senseX = [x0 - 0.12 * span, x1 + 0.3 * span];
    putRange(c, a.sense_fig.x_range, c.senseX[0], c.senseX[1]);   // (with its data: flush)
    putRange(c, a.sense_fig.y_range, y0 - M * span, y1 + M * span);
  }

  return { notify, fill, analysis, loadSentence, compute, senseRange };
})(AttnMirror, AttnCommon, AttnWords, SentenceOnPage, SentenceSizes);
