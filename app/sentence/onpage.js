// The self-attention section's state on the page: its cache, the writes a gesture queues (texts first, data last,
// the matrix before the rest), the readouts the tour reads and the link.

const SentenceOnPage = (function (U) {
  "use strict";

  // the state lives on the page, keyed by the tokens source (one entry per section on the page)
  function cacheFor(a) { return U.pageState("__attentionSentenceState", a.tokens_src, { pending: [], waiting: new Map() }); }

  // What a gesture changes (a source's data, a plot's range, a Div's text), applied once the handler is done
  // (flush), each keyed by its model.  BokehJS rebuilds a glyph from new data asynchronously, but a Div's new
  // text can lay the page out (and paint plots) at once; a plot painted between the two reads arrays of the
  // old length and throws.  So the texts of a gesture go first and the data last.
  function put(c, src, data) { c.pending.push([src, "data", () => { src.data = data; }]); }
  function putRange(c, range, start, end) { c.pending.push([range, "data", () => { range.setv({ start, end }); }]); }

  // A Div's new text makes BokehJS lay out and repaint the whole page at once (10-30 ms with every section
  // on it).  The live texts here keep their size in the page's flow, so they go through U.setHtml, which
  // writes the (escaped) HTML into the rendered element and gives the model the text silently.
  function setText(c, div, html) { c.pending.push([div, "text", () => U.setHtml(div, html)]); }

  function applyAll(entries) {
    for (const [, kind, fn] of entries) if (kind === "text") fn();
    for (const [, kind, fn] of entries) if (kind !== "text") fn();
  }

  // When the matrix changes size (a sentence of another length), it goes first and alone: its sources,
  // then its block's layout and its paint (geometry's c.relayout); everything else (the small matrices, the
  // row, the sense plane, the cost, the texts) follows two frames later (U.afterPaint), so the matrix is on
  // screen a frame before them instead of waiting for all of it.  Whatever a later gesture writes before
  // then replaces what was waiting for the same model.
  function flush(c) {
    const p = c.pending; c.pending = [];
    const first = c.relayout ? c.matrixKeys : null;
    const now = first ? p.filter((e) => first.has(e[0])) : p;
    for (const e of now) c.waiting.delete(e[0]);
    if (first) for (const e of p) if (!first.has(e[0])) { c.waiting.delete(e[0]); c.waiting.set(e[0], e); }
    applyAll(now);
    if (!c.relayout) return;
    const r = c.relayout; c.relayout = null;
    r();
    U.afterPaint(c, "after the matrix", () => {
      const rest = Array.from(c.waiting.values()); c.waiting.clear();
      applyAll(rest);
    }, (e) => console.error("attention explorable (sentence):", e));
  }
  function sameArray(p, q) { return p.length === q.length && p.every((v, i) => v === q[i]); }

  // ---- the URL --------------------------------------------------------------------------------

  function mySearch(search, spec) {
    const out = new URLSearchParams();
    for (const [k, v] of new URLSearchParams(search)) if (Object.prototype.hasOwnProperty.call(spec, k)) out.append(k, v);
    return "?" + out.toString();
  }

  function stateQuery(c) {
    const s = c.cfg.spec, out = new URLSearchParams(window.location.search);
    if (c.key === c.defaultKey) out.delete("sentence");
    else if (Array.from(c.plain.text).length <= s.sentence.max) out.set("sentence", c.plain.text);
    const put = (k, v) => { if (v === s[k].default) out.delete(k); else out.set(k, String(v)); };
    put("token", c.token);
    put("head", c.head);
    put("att_temperature", Number(c.t.toPrecision(4)));
    if (c.causal === s.causal.default) out.delete("causal"); else out.set("causal", c.causal ? "1" : "0");
    return out.toString();
  }

  function scheduleUrl(a, c) { U.scheduleUrl(c, () => stateQuery(c)); tell(a, c); }

  // ---- what the tour reads and sets (app/tour/model.py sentence_readouts, show_me_settings) -------------

  function readouts(c) {
    const i = c.token, h = c.head, toks = c.plain.tokens, w = c.res.weights[h][i];
    let top = 0, sum = 0, future = 0;
    for (let j = 0; j < w.length; j++) { if (w[j] > w[top]) top = j; sum += w[j]; if (j > i) future += w[j]; }
    const o = c.outXY[h][i];
    return { sentence: c.key, n_tokens: c.n, n_scores: c.n * c.n, token: i, word: toks[i], head: h,
             head_name: c.plain.heads[h].name, causal: c.causal, att_temperature: c.t, top_word: toks[top],
             top_weight: w[top], row_sum: sum, future_weight: future, sense_water: o[0], sense_money: o[1] };
  }

  function tell(a, c) { U.tellReadouts(a.heat.document, c, "sentence", () => readouts(c)); }

  return { cacheFor, put, putRange, setText, flush, sameArray, mySearch, scheduleUrl, tell };
})(AttnCommon);
