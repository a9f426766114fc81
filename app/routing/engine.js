// The routing section's engine: plays back W_Q and W_K learning the sense of "bank" (attention.train_qk).
//
// One Bokeh CustomJS holds ui/mirror.js (the formulas), ui/common.js (the URL parser, number formats and the
// page's bus), ui/words.js (AttnWords: a typed sentence's tokens and vectors) and this file.  Python hands over the path as plain data (QKTrajectory.to_plain()): W_Q and W_K at each
// recorded step, the loss and accuracy at every step, and the shown sentences' X.  Everything drawn is
// computed here from those, for the chosen sentence at the chosen step:
//
//     A = softmax((X W_Q)(X W_K)^T / sqrt(d_k)),   out = A (X W_V P)   (W_V P: the values' points),
//
// the sense read from how far out moved from where an even spread lands, the weight on each shown sentence's
// deciding word, and what the ambiguous word's query shares with a key: the twins of attention/learn_qk.py
// (_bank_rows, sense_readout, clue_weights, _preference, shared_columns, shared_summary);
// tests/browser/test_routing.py holds them to the core within 1e-9.  Every text that reaches a Div goes
// through esc().

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

  // Where an even spread lands: the mean of the words' points (learn_qk.SenseReadout.even).
  function evenOf(valueXY) {
    let x = 0, y = 0;
    for (const v of valueXY) { x += v[0]; y += v[1]; }
    return [x / valueXY.length, y / valueXY.length];
  }

  // learn_qk.sense_readout: z = (point - even)_x - (point - even)_y, how far attention moved the output towards
  // water and away from money; P(water) = sigma(beta z); undecided when |z| <= tol (a tie: half right).
  function senseOf(point, even, beta, tol) {
    const z = (point[0] - even[0]) - (point[1] - even[1]);
    return { z, pWater: 1 / (1 + Math.exp(-beta * z)),
             sense: Math.abs(z) <= tol ? "undecided" : z > 0 ? "water" : "money" };
  }

  // learn_qk.QKTrajectory.clue_weights: the weight on the deciding word (summed over its occurrences).
  function clueWeight(row, tokens, clue) {
    let t = 0;
    for (let j = 0; j < tokens.length; j++) if (tokens[j] === clue) t += row[j];
    return t;
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

  // attention.encode([word])[0][0]: the word's vector (a made-up one for a word the vocabulary lacks), then
  // the position features of index 0 (0, 0, 1).
  function wordX(cfg, word) { return Array.from(W.encode([word], cfg.words_model).x[0]); }

  // learn_qk.shared_columns: column j's part of the word's score for the other word, q_j k_j / sqrt(d_k); the
  // meanings that put q_j and k_j there (same sign, at least fromShare of the value); the meanings a key needs
  // to score high there (q_j W_K[d][j] / sqrt(d_k) >= share).  names: the meaning dimensions.
  function sharedColumns(xw, xo, wq, wk, names, share, fromShare) {
    const nd = names.length, q = M.matmul([xw], wq)[0], k = M.matmul([xo], wk)[0], dk = q.length, c = Math.sqrt(dk);
    const from = (x, col, v) => {
      const keep = [];
      for (let d = 0; d < nd; d++) {
        const t = x[d] * col(d);
        if (t * v > 0 && Math.abs(t) >= fromShare * Math.abs(v)) keep.push([t, names[d], d]);
      }
      return keep.sort((p, r) => Math.abs(r[0]) - Math.abs(p[0]) || p[2] - r[2]).map((t) => t[1]);
    };
    const out = [];
    for (let j = 0; j < dk; j++) {
      const pref = [];
      for (let d = 0; d < nd; d++) pref.push([q[j] * wk[d][j] / c, names[d], d]);
      const looks = pref.filter((t) => t[0] >= share).sort((p, r) => r[0] - p[0] || p[2] - r[2]).map((t) => t[1]);
      out.push({ column: j, query: q[j], key: k[j], score: q[j] * k[j] / c, queryFrom: from(xw, (d) => wq[d][j], q[j]),
                 keyFrom: from(xo, (d) => wk[d][j], k[j]), looksFor: looks });
    }
    return out;
  }

  // learn_qk._listing: "a", "a and b", "a, b and c".
  function listing(items) {
    return items.length === 1 ? items[0] : items.slice(0, -1).join(", ") + " and " + items[items.length - 1];
  }

  // learn_qk.shared_summary: which column the word's query and the other word's key share, in words.
  function sharedSummary(word, other, cols, share) {
    let top = cols[0], total = 0;
    for (const col of cols) { total += col.score; if (col.score > top.score) top = col; }
    const cap = word.slice(0, 1).toUpperCase() + word.slice(1);
    if (top.score < share)
      return `${cap}'s query and ${other}'s key share no column yet: together they add ${signed(total, 2)} to ` +
        `${word}'s score for ${other}.`;
    let text = `${cap}'s query and ${other}'s key share column ${top.column + 1} (${signed(top.query, 2)} and ` +
      `${signed(top.key, 2)}), which adds ${signed(top.score, 2)} to ${word}'s score for ${other}.`;
    const parts = (top.queryFrom.length ? [`${word}'s query gets there from ${listing(top.queryFrom)}`] : [])
      .concat(top.keyFrom.length ? [`${other}'s key from ${listing(top.keyFrom)}`] : []);
    if (parts.length) { const rest = parts.join("; "); text += ` ${rest.slice(0, 1).toUpperCase()}${rest.slice(1)}.`; }
    return text;
  }

  // ---- sentences ------------------------------------------------------------------------------------

  function shownSentence(cfg, i) {
    const s = cfg.plain.sentences[i];
    return { text: s.text, tokens: s.tokens, x: s.x, valueXY: s.value_xy, even: evenOf(s.value_xy), index: s.index,
             count: 1, clue: s.clue, sense: s.sense, split: s.split, unknown: [], own: false };
  }

  // A typed sentence through AttnWords (ui/words.js): its tokens, X = encode(tokens) and the values' points
  // X (W_V P).  Throws the core's ValueError (an empty or over-long sentence).
  function typedSentence(cfg, raw) {
    const tokens = W.tokenize(raw);
    const enc = W.encode(tokens, cfg.words_model);
    const word = cfg.plain.word;
    const valueXY = M.matmul(enc.x, cfg.plain.value_projection).map((r) => Array.from(r));
    return { text: raw, tokens, x: enc.x, valueXY, even: evenOf(valueXY), index: tokens.indexOf(word),
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

  // A shown sentence's weight on its deciding word at every recorded step (the plot of what is learned).
  function clueCurve(cfg, s) {
    const p = cfg.plain;
    return p.w_q.map((wq, f) => clueWeight(attend(s.x, s.valueXY, wq, p.w_k[f]).weights[s.index], s.tokens, s.clue));
  }

  // The moment playback holds at: the first recorded step where the deciding word gets at least `share` of the
  // ambiguous word's weight (-1: a typed sentence, which has no deciding word, or one that never gets there).
  function holdFrame(curve, share) {
    if (!curve) return -1;
    for (let f = 0; f < curve.length; f++) if (curve[f] >= share) return f;
    return -1;
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
        const t = c.cfg.cell_text;   // black on the palette's brighter half, white on the darker (CELL_TEXT)
        labels.tc.push(A[b][j] >= t.from ? t.dark : t.light);
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
    // where an even spread lands, and the line of undecided points through it (parallel to the diagonal)
    const ev = s.even;
    put(c, a.sense_even, s.index >= 0 ? { x: [ev[0]], y: [ev[1]], label: ["even"] } : { x: [], y: [], label: [] });
    const cut = s.index >= 0 ? ev[1] - ev[0] : 0;
    if (a.undecided_line.y_intercept !== cut) a.undecided_line.y_intercept = cut;
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

  // The weight on the deciding word of every shown sentence, up to the shown step (training sentences solid,
  // held-out ones dashed, the chosen one bold with its word and weight at its end), and the share of right
  // answers at every step up to the shown one.
  function drawCurves(a, c) {
    const p = c.cfg.plain, k = p.frame_steps[c.frame], pct = (v) => 100 * v, col = c.cfg.colors;
    const xs = p.frame_steps.slice(0, c.frame + 1), lines = { xs: [], ys: [], color: [], dash: [], width: [],
                                                                  alpha: [], text: [] };
    const order = range(c.sentences.length).filter((i) => c.sent.own || i !== c.shown);
    if (!c.sent.own) order.push(c.shown);   // the chosen sentence last, over the others
    for (const i of order) {
      const s = c.sentences[i], mine = !c.sent.own && i === c.shown;
      lines.xs.push(xs); lines.ys.push(c.clue[i].slice(0, c.frame + 1));
      lines.color.push(s.split === "train" ? col.train : col.held);
      lines.dash.push(s.split === "train" ? "solid" : "dashed");
      lines.width.push(mine ? 3.5 : 1.5); lines.alpha.push(mine ? 1 : 0.55); lines.text.push(s.text);
    }
    put(c, a.clue_src, lines);
    if (c.sent.own) put(c, a.clue_now, { x: [], y: [], label: [] });
    else {
      const w = c.clue[c.shown][c.frame];
      put(c, a.clue_now, { x: [k], y: [w], label: [c.sent.clue] });
    }
    put(c, a.acc_src, { step: range(k + 1), train: p.train_accuracy.slice(0, k + 1).map(pct),
                        held: p.held_out_accuracy.slice(0, k + 1).map(pct) });
  }

  // ---- texts --------------------------------------------------------------------------------------------

  // The shown step, its loss and its right, undecided and wrong sentences (the accuracy plot counts an
  // undecided one as half right); at the moment playback holds, what happened there.
  function drawStatus(a, c) {
    const p = c.cfg.plain, k = p.frame_steps[c.frame];
    const counts = (acc, ties, n) => {
      const right = Math.round(acc * n - ties / 2), wrong = n - right - ties;
      return [`${right} right`].concat(ties ? [`${ties} undecided`] : [], wrong ? [`${wrong} wrong`] : []).join(", ");
    };
    let html = `<p class="step" aria-live="polite"><b>${esc(`Step ${k} of ${p.steps}`)}</b>: ` +
      esc(`loss ${fixed(p.loss[k], 3)} training, ${fixed(p.held_out_loss[k], 3)} held out. ` +
          `Training: ${counts(p.train_accuracy[k], p.train_undecided[k], p.train_size)}; ` +
          `held out: ${counts(p.held_out_accuracy[k], p.held_out_undecided[k], p.held_out_size)}.`);
    const s = c.sent;
    if (!s.own && c.frame === c.hold) {
      const share = c.cfg.hold_share === 0.5 ? "half" : fixed(c.cfg.hold_share, 2);
      html += ` <b class="moment">${esc(`Here ${quote(p.word)} first gives ${quote(s.clue)} ${share} of its ` +
        `weight or more (${fixed(c.clue[c.shown][c.frame], 2)}).`)}</b>`;
    }
    setHtml(a.status_div, html + `</p>`);
  }

  // The word the ambiguous word looks at most, itself left out (-1: no other word).
  function topOther(row, b) {
    let top = -1;
    for (let j = 0; j < row.length; j++) if (j !== b && (top < 0 || row[j] > row[top])) top = j;
    return top;
  }

  // What the ambiguous word does in this sentence at this step, in words (HTML: every piece escaped).
  function readoutLines(c) {
    const s = c.sent, p = c.cfg.plain, word = p.word;
    if (s.index < 0)
      return [esc(`There is no ${quote(word)} in this sentence, so nothing here asks which bank is meant. The ` +
        `matrix still shows where every word looks with`) + " this step's W<sub>Q</sub> and W<sub>K</sub>."];
    const w = c.res.weights[s.index];
    let top = 0;
    for (let j = 1; j < w.length; j++) if (w[j] > w[top]) top = j;
    const pt = c.res.outputs[s.index], r = senseOf(pt, s.even, p.readout_scale, p.undecided_within);
    // nearly even: no word gets half as much again as an even share
    const looks = w[top] < 1.5 / w.length
      ? `${quote(word)} spreads its weight almost evenly (largest share ${fixed(w[top], 2)}, on ${quote(s.tokens[top])}).`
      : `${quote(word)} looks most at ${quote(s.tokens[top])}, with ${fixed(w[top], 2)} of its weight.`;
    const moved = r.sense === "undecided"
      ? `Its output is within ${fixed(p.undecided_within, 2)} of where an even spread lands: undecided.`
      : `Its output moved ${fixed(Math.abs(r.z), 2)} towards ${r.z > 0 ? "water" : "money"} from where an even ` +
        `spread lands: ${r.sense} (${fixed(100 * (r.sense === "water" ? r.pWater : 1 - r.pWater), 0)} %).`;
    const out = [esc(`${looks} ${moved}`)];
    if (s.count > 1) out.push(esc(`${quote(word)} appears ${s.count} times; the framed row is the first.`));
    if (!s.own) {
      const verdict = r.sense === "undecided" ? "Undecided, half right" : r.sense === s.sense ? "Right" : "Not right yet";
      out.push(esc(`${verdict}: here it is the ${s.sense} sense, decided by ${quote(s.clue)} ` +
        `(${s.split === "train" ? "a training sentence" : "held out, never trained on"}).`));
    }
    return out;
  }

  function drawReadout(a, c) {
    setHtml(a.readout_div, readoutLines(c).map((h, i) => `<p class="${i ? "small" : "step"}">${h}</p>`).join(""));
  }

  // Whether the student opened the Div's disclosure (kept open when the Div is written again).
  function opened(div) {
    const v = E.findView(div);
    const el = AttnBokeh.markupElement(v);
    return !!(el && el.querySelector("details[open]"));
  }

  // W_Q, W_K and the learned preference as one table, behind "more": a row per dimension of x, coloured by sign
  // and size; each column labelled with the meanings a key needs to score high there with the ambiguous word's
  // query; under it, what that query shares with the key of the word it looks at most in this sentence.
  function drawWeights(a, c) {
    const p = c.cfg.plain, f = c.frame, wq = p.w_q[f], wk = p.w_k[f], nm = p.trained_rows.length;
    const xw = wordX(c.cfg, p.word), pref = preference(xw, wq, wk, nm), col = c.cfg.colors, T = c.cfg.weights_texts;
    const shade = (v, top) => {
      const rgb = v >= 0 ? col.positive : col.negative, t = Math.min(1, Math.abs(v) / (top || 1));
      return `background:${rgb}${Math.round(0x99 * t).toString(16).padStart(2, "0")}`;
    };
    const cell = (v, top) => `<td style="${shade(v, top)}">${esc(signed(v, 2))}</td>`;
    const names = p.trained_rows, short = c.cfg.short_dims;
    const cols = sharedColumns(xw, xw, wq, wk, names, p.feature_share, c.cfg.from_share);
    const label = (j) => {
      const k = cols[j].looksFor.slice(0, 2).map((n) => short[names.indexOf(n)]);
      return `<th class="col">${j + 1}${k.map((n) => `<br><span class="lab">${esc(n)}</span>`).join("")}</th>`;
    };
    const labels = range(wq[0].length).map(label).join("");
    // a box that scrolls sideways (a narrow column) is reached with the keyboard too
    let html = `<details class="more"${opened(a.weights_div) ? " open" : ""}><summary>${esc(T.summary)}</summary>` +
      T.intro + `<div style="overflow-x:auto" tabindex="0">` +
      `<table class="w" aria-label="W_Q, W_K and what the word looks for">` +
      `<tr><th></th><th colspan="2">W<sub>Q</sub></th><th colspan="2">W<sub>K</sub></th>` +
      `<th rowspan="2">${esc(p.word)}<br>looks for</th></tr><tr><th>column</th>${labels}${labels}</tr>`;
    p.model_dims.forEach((name, i) => {
      const learned = i < nm;
      html += `<tr${learned ? "" : ' class="fixed"'}><th>${esc(name)}</th>` + cell(wq[i][0], c.cfg.w_max) +
        cell(wq[i][1], c.cfg.w_max) + cell(wk[i][0], c.cfg.w_max) + cell(wk[i][1], c.cfg.w_max) +
        (learned ? cell(pref[i], c.prefMax) : `<td>${esc("fixed")}</td>`) + `</tr>`;
    });
    html += `</table></div>` + T.columns + T.preference;
    const s = c.sent, o = s.index >= 0 ? topOther(c.res.weights[s.index], s.index) : -1;
    if (o >= 0) {
      const other = s.tokens[o];
      html += `<p class="learned">${esc(sharedSummary(p.word, other, sharedColumns(xw, wordX(c.cfg, other), wq, wk,
        names, p.feature_share, c.cfg.from_share), p.feature_share))}</p>`;
    }
    setHtml(a.weights_div, html + `</details>`);
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
    c.hold = s.own ? -1 : holdFrame(c.clue[c.shown], c.cfg.hold_share);
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

  // The frame due `ms` after Play was pressed at frame f0 (pace: ms per recorded state, app/routing/view.py PACE):
  // pace.slow per frame up to the hold frame h, a pause of pace.hold on it, pace.fast per frame after it; a
  // sentence without a hold frame (h < 0) at pace.even.  (Not capped: the caller stops at the last frame.)
  function dueFrame(ms, f0, h, pace) {
    if (h < 0) return f0 + Math.floor(ms / pace.even);
    let t = ms, f = f0;
    if (f0 < h) {
      const reach = (h - f0) * pace.slow;
      if (t < reach) return f0 + Math.floor(t / pace.slow);
      t -= reach + pace.hold;
      if (t < 0) return h;
      f = h;
    }
    return f + Math.floor(t / pace.fast);
  }

  // The path advances with the clock: a slow redraw makes the next one jump to where the clock is, so the pace
  // holds on a slow machine.
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
    const t0 = performance.now(), f0 = c.frame, h = c.hold;
    c.timer = setInterval(() => {
      E.runGuarded(c, () => {
        const due = Math.min(lastFrame(c), dueFrame(performance.now() - t0, f0, h, c.cfg.pace));
        if (due > c.frame) { c.frame = due; showFrame(a, c); }
        if (c.frame >= lastFrame(c)) stop(a, c);
        flush(c);
      }, (e) => { c.pending = []; stop(a, c); fail(a, e); });
    }, 40);
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
      const z = senseOf(c.res.outputs[s.index], s.even, c.cfg.plain.readout_scale, c.cfg.plain.undecided_within);
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
    c.clue = c.sentences.map((s) => clueCurve(c.cfg, s));
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

  return { handle, attend, evenOf, senseOf, clueWeight, clueCurve, holdFrame, dueFrame, preference, sharedColumns,
           sharedSummary, frameAt, cacheFor };
})(AttnMirror, AttnCommon, AttnWords);
