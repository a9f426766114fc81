// The routing section's engine: plays back W_Q and W_K learning the sense of "bank" (attention.train_qk).
//
// One Bokeh CustomJS holds ui/mirror.js (the formulas), ui/common.js (the URL parser, number formats and the
// page's bus), ui/words.js (AttnWords: a typed sentence's tokens and vectors) and this file.  Python hands over the path as plain data (QKTrajectory.to_plain()): W_Q and W_K at each
// recorded step, the loss and accuracy at every step, and the shown sentences' X.  Everything drawn is
// computed here from those, for the chosen sentence at the chosen step:
//
//     A = softmax((X W_Q)(X W_K)^T / sqrt(d_k)),   out = A (X W_V P)   (W_V P: the values' points),
//
// the twin of attention/learn_qk.py (_bank_rows, sense_readout, _preference); tests/browser/test_routing.py
// holds it to the core within 1e-9.  Every text that reaches a Div goes through esc().

const Routing = (function (M, E, W) {
  "use strict";

  const esc = E.esc, fixed = E.fixed, signed = E.signed, clamp = E.clamp, quiet = E.quiet;
  const setHtml = E.setHtml, setWidget = E.setWidget;

  function cacheFor(a) { return E.pageState("__attnRoutingCache", a.status_div, { pending: [] }); }
  function range(n) { return Array.from({ length: n }, (_, i) => i); }
  function para(cls, s) { return `<p class="${cls}">${esc(s)}</p>`; }
  function quote(w) { return `\u201c${w}\u201d`; }

  // New data for a source, applied all at once when the event's work is done (see put in app/sentence/engine.js).
  function put(c, src, data) { c.pending.push([src, data]); }
  function flush(c) { const p = c.pending; c.pending = []; for (const [src, data] of p) src.data = data; }

  // ---- the head: twins of attention/learn_qk.py ---------------------------------------------------

  // Every word's row of weights and output point for X under (W_Q, W_K): the matrix whose ambiguous word's row
  // is learn_qk._bank_rows's, A = softmax((X W_Q)(X W_K)^T / sqrt(d_k)), and out = A (X W_V P).
  function attend(x, valueXY, wq, wk) {
    return M.dotProductAttention(M.matmul(x, wq), M.matmul(x, wk), valueXY, false, 1);
  }

  // learn_qk.sense_readout: z = point_x - point_y, P(water) = sigma(beta z), the sense by the diagonal's side.
  function senseOf(point, beta) {
    const z = point[0] - point[1];
    return { z, pWater: 1 / (1 + Math.exp(-beta * z)), sense: z > 0 ? "water" : z < 0 ? "money" : "undecided" };
  }

  // learn_qk._preference: c = (x_word W_Q) W_K^T / sqrt(d_k) on the meaning dimensions: how much one unit of
  // each meaning in a key adds to the word's score.
  function preference(xWord, wq, wk, nDims) {
    const q = M.matmul([xWord], wq)[0], dk = q.length, out = [];
    for (let i = 0; i < nDims; i++) {
      let t = 0;
      for (let j = 0; j < dk; j++) t += q[j] * wk[i][j];
      out.push(t / Math.sqrt(dk));
    }
    return out;
  }

  // attention.encode([word]): the word's vector, then the position features of index 0 (0, 0, 1).
  function wordX(cfg, word) {
    const m = cfg.words_model, pos = { "position": 0, "position squared": 0, "constant": 1 };
    return m.vocab[word].concat(m.position_features.map((f) => pos[f]));
  }

  // ---- sentences ------------------------------------------------------------------------------------

  function shownSentence(cfg, i) {
    const s = cfg.plain.sentences[i];
    return { text: s.text, tokens: s.tokens, x: s.x, valueXY: s.value_xy, index: s.index, count: 1, clue: s.clue,
             sense: s.sense, split: s.split, unknown: [], own: false };
  }

  // A typed sentence through AttnWords (ui/words.js): its tokens, X = encode(tokens) and the values' points
  // X (W_V P).  Throws the core's ValueError (an empty or over-long sentence).
  function typedSentence(cfg, raw) {
    const tokens = W.tokenize(raw);
    const enc = W.encode(tokens, cfg.words_model);
    const word = cfg.plain.word;
    const valueXY = M.matmul(enc.x, cfg.plain.value_projection).map((r) => Array.from(r));
    return { text: raw, tokens, x: enc.x, valueXY, index: tokens.indexOf(word),
             count: tokens.filter((t) => t === word).length, clue: null, sense: null, split: null,
             unknown: Array.from(enc.unknown || []), own: true };
  }

  // The ambiguous word's output point at every recorded step (its trail on the sense plot), once per sentence.
  function trailOf(c) {
    const s = c.sent, p = c.cfg.plain;
    if (s.index < 0) return [];
    if (!s.trail) s.trail = p.w_q.map((wq, f) => Array.from(attend(s.x, s.valueXY, wq, p.w_k[f]).outputs[s.index]));
    return s.trail;
  }

  // The frame to show for a training step: the recorded step at or before it.
  function frameAt(steps, step) {
    let f = 0;
    for (let i = 0; i < steps.length; i++) if (steps[i] <= step) f = i;
    return f;
  }

  // ---- drawing ----------------------------------------------------------------------------------------

  function sizes(c) { return c.cfg.theme.sizes[c.present ? "present" : "normal"]; }

  // The width of one cell on screen (px), from the drawn plot, or a guess before it is drawn.
  function cellPx(a, c) {
    const v = E.plotView(a.heat), n = c.sent.tokens.length;
    const w = v && v.frame && v.frame.bbox ? v.frame.bbox.width : 360;
    return w / n;
  }

  // The matrix's axes follow the sentence: one tick per word, labels turned upright when they do not fit a cell.
  function matrixAxes(a, c) {
    const toks = c.sent.tokens, n = toks.length, font = parseFloat(sizes(c).tick);
    const was = a.tokens_src.data.tok;
    a.tokens_src.data = { tok: toks.slice() };
    if (!was || was.join("\u0000") !== toks.join("\u0000")) E.relabel(a.heat);   // new words: measure the axes again
    a.ticker.ticks = range(n);
    a.heat.x_range.setv({ start: -0.5, end: n - 0.5 });
    a.heat.y_range.setv({ start: n - 0.5, end: -0.5 });
    const longest = Math.max(...toks.map((t) => Array.from(t).length));
    const upright = longest * 0.62 * font > cellPx(a, c) - 4;
    for (const ax of a.heat.above) {
      const want = upright ? "vertical" : "horizontal";
      if (ax.major_label_orientation !== want) ax.major_label_orientation = want;
    }
  }

  function drawMatrix(a, c) {
    const s = c.sent, n = s.tokens.length, A = c.res.weights, b = s.index;
    const cells = { x: [], y: [], w: [], q_tok: [], k_tok: [] }, labels = { x: [], y: [], label: [], tc: [] };
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        cells.x.push(j); cells.y.push(i); cells.w.push(A[i][j]);
        cells.q_tok.push(`${s.tokens[i]} (${i})`); cells.k_tok.push(`${s.tokens[j]} (${j})`);
      }
    }
    // the ambiguous word's weights, written in its cells when they fit ("0.00" at the tick size)
    if (b >= 0 && cellPx(a, c) >= 2.6 * parseFloat(sizes(c).tick)) {
      for (let j = 0; j < n; j++) {
        labels.x.push(j); labels.y.push(b); labels.label.push(fixed(A[b][j], 2));
        labels.tc.push(A[b][j] > 0.55 ? "#222222" : "#FFFFFF");
      }
    }
    put(c, a.cells, cells);
    put(c, a.cell_labels, labels);
    put(c, a.rowmark, b >= 0 ? { x: [(n - 1) / 2], y: [b], width: [n] } : { x: [], y: [], width: [] });
  }

  // The words' values on the sense plot (words on one spot share a label); the axes widen for a typed
  // sentence whose made-up vectors fall outside them.
  function senseValues(a, c) {
    const s = c.sent, groups = new Map();
    s.valueXY.forEach((v, j) => {
      const k = `${v[0].toFixed(6)},${v[1].toFixed(6)}`;
      if (!groups.has(k)) groups.set(k, { x: v[0], y: v[1], words: [] });
      const g = groups.get(k);
      if (!g.words.includes(s.tokens[j])) g.words.push(s.tokens[j]);
    });
    const pts = { x: [], y: [], label: [], tok: [], align: [], dx: [] };
    for (const g of groups.values()) {
      const shown = g.words.length > 3 ? g.words.slice(0, 3).join(", ") + ` +${g.words.length - 3}` : g.words.join(", ");
      const left = g.x > 0.75;   // near the right edge the label goes left of its dot
      pts.x.push(g.x); pts.y.push(g.y); pts.label.push(shown); pts.tok.push(g.words.join(", "));
      pts.align.push(left ? "right" : "left"); pts.dx.push(left ? -7 : 7);
    }
    put(c, a.sense_values, pts);
    let [lo, hi] = c.cfg.sense_range;
    for (const v of s.valueXY) for (const u of v) { lo = Math.min(lo, u - 0.08); hi = Math.max(hi, u + 0.08); }
    for (const r of [a.sense_fig.x_range, a.sense_fig.y_range])
      if (r.start !== lo || r.end !== hi) r.setv({ start: lo, end: hi });
  }

  function drawSense(a, c) {
    const s = c.sent;
    if (s.index < 0) {
      put(c, a.sense_trail, { x: [], y: [] });
      put(c, a.sense_point, { x: [], y: [], label: [] });
      return;
    }
    const tr = trailOf(c).slice(0, c.frame + 1), pt = c.res.outputs[s.index];
    put(c, a.sense_trail, { x: tr.map((p) => p[0]), y: tr.map((p) => p[1]) });
    put(c, a.sense_point, { x: [pt[0]], y: [pt[1]], label: [s.tokens[s.index]] });
  }

  // The loss and the share of right answers at every step up to the shown one.
  function drawCurves(a, c) {
    const p = c.cfg.plain, k = p.frame_steps[c.frame], pct = (v) => 100 * v;
    put(c, a.loss_src, { step: range(k + 1), train: p.loss.slice(0, k + 1), held: p.held_out_loss.slice(0, k + 1) });
    put(c, a.acc_src, { step: range(k + 1), train: p.train_accuracy.slice(0, k + 1).map(pct),
                        held: p.held_out_accuracy.slice(0, k + 1).map(pct) });
  }

  // ---- texts --------------------------------------------------------------------------------------------

  function drawStatus(a, c) {
    const p = c.cfg.plain, k = p.frame_steps[c.frame];
    const right = (acc, n) => `${Math.round(acc * n)} of ${n}`;
    setHtml(a.status_div, `<p class="step" aria-live="polite"><b>${esc(`Step ${k} of ${p.steps}`)}</b>: ` +
      esc(`loss ${fixed(p.loss[k], 3)} on the training sentences, ${fixed(p.held_out_loss[k], 3)} held out; ` +
          `right: ${right(p.train_accuracy[k], p.train_size)} training, ${right(p.held_out_accuracy[k], p.held_out_size)} ` +
          `held out.`) + `</p>`);
  }

  // What the ambiguous word does in this sentence at this step, in words (HTML: every piece escaped).
  function readoutLines(c) {
    const s = c.sent, word = c.cfg.plain.word;
    if (s.index < 0)
      return [esc(`There is no ${quote(word)} in this sentence, so nothing here asks which bank is meant. The ` +
        `matrix still shows where every word looks with`) + " this step's W<sub>Q</sub> and W<sub>K</sub>."];
    const w = c.res.weights[s.index];
    let top = 0;
    for (let j = 1; j < w.length; j++) if (w[j] > w[top]) top = j;
    const pt = c.res.outputs[s.index], r = senseOf(pt, c.cfg.plain.readout_scale);
    const side = r.sense === "undecided" ? "exactly on the diagonal: undecided"
      : `the ${r.sense} side (${fixed(100 * (r.sense === "water" ? r.pWater : 1 - r.pWater), 0)} % ${r.sense})`;
    // nearly even: no word gets half as much again as an even share
    const looks = w[top] < 1.5 / w.length
      ? `${quote(word)} spreads its weight almost evenly; the largest share, ${fixed(w[top], 2)}, goes to ${quote(s.tokens[top])}.`
      : `${quote(word)} looks most at ${quote(s.tokens[top])}, with ${fixed(w[top], 2)} of its weight.`;
    const out = [esc(`${looks} Its output lands at water ${signed(pt[0], 2)}, money ${signed(pt[1], 2)}: ${side}.`)];
    if (s.count > 1) out.push(esc(`${quote(word)} appears ${s.count} times; the framed row is the first.`));
    if (!s.own)
      out.push(esc(`${r.sense === s.sense ? "Right" : "Not right yet"}: here it is the ${s.sense} sense, and the ` +
        `word that decides it is ${quote(s.clue)} (${s.split === "train" ? "a training sentence" : "held out, never trained on"}).`));
    return out;
  }

  function drawReadout(a, c) {
    setHtml(a.readout_div, readoutLines(c).map((h, i) => `<p class="${i ? "small" : "step"}">${h}</p>`).join(""));
  }

  // W_Q, W_K and the learned preference as one table: a row per dimension of x, coloured by sign and size.
  function drawWeights(a, c) {
    const p = c.cfg.plain, f = c.frame, wq = p.w_q[f], wk = p.w_k[f], nm = p.trained_rows.length;
    const pref = preference(wordX(c.cfg, p.word), wq, wk, nm), col = c.cfg.colors;
    const shade = (v, top) => {
      const rgb = v >= 0 ? col.positive : col.negative, t = Math.min(1, Math.abs(v) / (top || 1));
      return `background:${rgb}${Math.round(0x99 * t).toString(16).padStart(2, "0")}`;
    };
    const cell = (v, top) => `<td style="${shade(v, top)}">${esc(signed(v, 2))}</td>`;
    // a box that scrolls sideways (a narrow column) is reached with the keyboard too
    let html = `<div style="overflow-x:auto" tabindex="0">` +
      `<table class="w" aria-label="W_Q, W_K and what the word looks for">` +
      `<tr><th></th><th colspan="2">W<sub>Q</sub></th><th colspan="2">W<sub>K</sub></th>` +
      `<th>${esc(p.word)}<br>looks for</th></tr>`;
    p.model_dims.forEach((name, i) => {
      const learned = i < nm;
      html += `<tr${learned ? "" : ' class="fixed"'}><th>${esc(name)}</th>` + cell(wq[i][0], c.cfg.w_max) +
        cell(wq[i][1], c.cfg.w_max) + cell(wk[i][0], c.cfg.w_max) + cell(wk[i][1], c.cfg.w_max) +
        (learned ? cell(pref[i], c.prefMax) : `<td>${esc("fixed")}</td>`) + `</tr>`;
    });
    setHtml(a.weights_div, html + `</table></div>`);
  }

  function prefMax(c) {
    const p = c.cfg.plain, x = wordX(c.cfg, p.word);
    let top = 0;
    p.w_q.forEach((wq, f) => { for (const v of preference(x, wq, p.w_k[f], p.trained_rows.length)) top = Math.max(top, Math.abs(v)); });
    return top;
  }

  // The typed sentence's words, with the ones the toy vocabulary does not know marked and named.
  function ownInfo(a, c, note) {
    const s = c.typed;
    let html = note ? note : "";
    if (s && c.sent === s) {
      const unknown = new Set(s.unknown);
      const chips = s.tokens.map((t) => `<span class="tok${unknown.has(t) ? " unknown" : ""}">${esc(t)}</span>`);
      html += `<p class="small">${esc(`${quote(s.text)} becomes ${s.tokens.length} word${s.tokens.length === 1 ? "" : "s"}:`)} ` +
        chips.join(" ") + `</p>`;
      if (s.unknown.length)
        html += para("limit", `Not in the toy vocabulary, so given made-up vectors that carry no meaning ` +
          `(highlighted): ${s.unknown.map(quote).join(", ")}.`);
    }
    setHtml(a.own_div, html);
  }

  // ---- one state, drawn ---------------------------------------------------------------------------------

  // The plots take the step's data now and paint at the next frame; the texts follow a frame later
  // (E.afterPaint: HTML changed before a paint makes the paint restyle the whole page first).
  function showFrame(a, c) {
    const p = c.cfg.plain;
    c.frame = clamp(c.frame, 0, p.frame_steps.length - 1);
    c.res = attend(c.sent.x, c.sent.valueXY, p.w_q[c.frame], p.w_k[c.frame]);
    drawMatrix(a, c);
    drawSense(a, c);
    drawCurves(a, c);
    if (a.w_frame.value !== c.frame) quiet(a.w_frame, "value", c.frame);
    E.afterPaint(c, "texts", () => { drawStatus(a, c); drawReadout(a, c); drawWeights(a, c); }, (e) => fail(a, e));
    scheduleUrl(a, c);
  }

  function loadSentence(a, c, s) {
    c.sent = s;
    matrixAxes(a, c);
    senseValues(a, c);
  }

  function showShown(a, c, i) {
    c.shown = clamp(i, 0, c.cfg.plain.sentences.length - 1);
    loadSentence(a, c, c.sentences[c.shown]);
    ownInfo(a, c);
    showFrame(a, c);
  }

  // The box's sentence: read it (AttnWords), show it with the trained projections; a refusal keeps what is shown.
  function showTyped(a, c, raw) {
    let s;
    try { s = typedSentence(c.cfg, String(raw)); } catch (e) {
      if (!W.isRefusal(e)) throw e;
      ownInfo(a, c, para("notice", `That sentence was not used: ${e.message}. The sentence shown stays.`));
      return;
    }
    stop(a, c);
    c.typed = s;
    setWidget(a.w_sentence, "value", c.cfg.own);
    loadSentence(a, c, s);
    c.frame = c.cfg.plain.frame_steps.length - 1;   // the trained W_Q and W_K
    ownInfo(a, c);
    showFrame(a, c);
  }

  // ---- playback -------------------------------------------------------------------------------------------

  function lastFrame(c) { return c.cfg.plain.frame_steps.length - 1; }

  function stop(a, c) {
    if (c.timer) { clearInterval(c.timer); c.timer = null; tell(a, c); }
    quiet(a.w_play, "disabled", false);
    quiet(a.w_pause, "disabled", true);
  }

  function stepOnce(a, c) {
    stop(a, c);
    if (c.frame >= lastFrame(c)) return;
    c.frame += 1;
    showFrame(a, c);
  }

  // The path advances with the clock, one recorded step per tick_ms: a slow redraw makes the next one jump
  // to where the clock is, so the pace holds on a slow machine.
  function play(a, c) {
    if (c.timer) return;
    if (c.frame >= lastFrame(c)) { c.frame = 0; showFrame(a, c); }
    // a student who asked for less motion gets the end of training at once (as the learning section does)
    if (typeof matchMedia === "function" && matchMedia("(prefers-reduced-motion: reduce)").matches) {
      c.frame = lastFrame(c);
      showFrame(a, c);
      return;
    }
    quiet(a.w_play, "disabled", true);
    quiet(a.w_pause, "disabled", false);
    const t0 = performance.now(), f0 = c.frame;
    c.timer = setInterval(() => {
      E.runGuarded(c, () => {
        const due = Math.min(lastFrame(c), f0 + Math.floor((performance.now() - t0) / c.cfg.tick_ms));
        if (due > c.frame) { c.frame = due; showFrame(a, c); }
        if (c.frame >= lastFrame(c)) stop(a, c);
        flush(c);
      }, (e) => { c.pending = []; stop(a, c); fail(a, e); });
    }, Math.max(10, c.cfg.tick_ms / 2));
  }

  function reset(a, c) {
    stop(a, c);
    c.frame = 0;
    showFrame(a, c);
  }

  // ---- what the tour reads and sets (app/tour/model.py routing_readouts) ------------------------------------

  function readouts(c) {
    const s = c.sent, key = s.tokens.join(" "), steps = c.cfg.plain.frame_steps;
    const out = { qk_step: steps[c.frame], qk_finished: c.frame === lastFrame(c), qk_playing: !!c.timer,
                  qk_sentence: key, qk_typed: !!s.own, held_out: !c.cfg.train_keys.includes(key) };
    if (s.index >= 0 && c.res) {
      const w = c.res.weights[s.index];
      let top = 0;
      for (let j = 0; j < w.length; j++) if (w[j] > w[top]) top = j;
      const z = senseOf(c.res.outputs[s.index], c.cfg.plain.readout_scale);
      Object.assign(out, { bank_top_word: s.tokens[top], bank_top_weight: w[top], bank_sense: z.sense });
    }
    return out;
  }

  function tell(a, c) { E.tellReadouts(a.heat.document, c, "routing", () => readouts(c)); }

  // A tour step's Show me: a shown sentence and a training step (playback stops).
  function apply(a, c, v) {
    stop(a, c);
    if (v.qk_sentence !== undefined) {
      setWidget(a.w_sentence, "value", String(clamp(Number(v.qk_sentence), 0, c.sentences.length - 1)));
      showShown(a, c, Number(v.qk_sentence));
    }
    if (v.qk_step !== undefined) { c.frame = frameAt(c.cfg.plain.frame_steps, Number(v.qk_step)); showFrame(a, c); }
  }

  // ---- the URL and presentation mode ------------------------------------------------------------------------

  function scheduleUrl(a, c) {
    tell(a, c);
    E.scheduleUrl(c, () => {
      const d = c.cfg.defaults, out = new URLSearchParams(window.location.search);
      const putKey = (k, v) => { if (v === d[k]) out.delete(k); else out.set(k, String(v)); };
      putKey("qk_step", c.cfg.plain.frame_steps[c.frame]);
      putKey("qk_sentence", c.shown);
      return out.toString();
    });
  }

  function pagePresent() {
    const page = typeof document !== "undefined" ? document.querySelector(".attn-page") : null;
    return !!page && page.getAttribute("data-present") === "1";
  }

  // ---- start and dispatch -----------------------------------------------------------------------------------

  // The link's step and sentence (a notebook's address is JupyterLab's: it keeps the component's own).
  function opening(c) {
    let v = Object.assign({}, c.cfg.initial);
    if (!E.hostOwnsAddress()) v = Object.assign(v, E.parseQuery(window.location.search, c.cfg.spec, c.cfg.url_rules).values);
    const steps = c.cfg.plain.frame_steps, f = frameAt(steps, v.qk_step), notices = [];
    if (steps[f] !== v.qk_step)
      notices.push(`Training is recorded at steps ${steps.slice(0, 3).join(", ")}, \u2026 ${steps[steps.length - 1]}; ` +
        `showing step ${steps[f]} for qk_step=${v.qk_step}.`);
    return { frame: f, sentence: v.qk_sentence, notices };
  }

  function init(a, c) {
    c.cfg = a.config;
    c.sentences = c.cfg.plain.sentences.map((_, i) => shownSentence(c.cfg, i));
    c.prefMax = prefMax(c);
    c.present = pagePresent();
    E.subscribe(a.heat.document, "present", (v) => {
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
    E.onApply(a.heat.document, c, "routing", (v) => E.runGuarded(c, () => { apply(a, c, v); flush(c); },
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

  function fail(a, e) {
    console.error("attention explorable (routing):", e);
    if (a.notice_div) {
      setHtml(a.notice_div, para("notice", `Something went wrong in this section (${e.message}).`));
      a.notice_div.visible = true;
    }
  }

  function handle(ev, a) {
    const c = cacheFor(a);
    E.runGuarded(c, () => { if (!c.ready) init(a, c); else dispatch(ev, a, c); flush(c); },
                 (e) => { c.pending = []; fail(a, e); });
  }

  return { handle, attend, senseOf, preference, frameAt, cacheFor };
})(AttnMirror, AttnCommon, AttnWords);
