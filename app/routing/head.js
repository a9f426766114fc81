// The routing section's head and its sentences: twins of attention/learn_qk.py, with no page and no Bokeh.
//
// Python hands over the path as plain data (QKTrajectory.to_plain()): W_Q and W_K at each recorded step, the loss
// and accuracy at every step, and the shown sentences' X.  Everything drawn is computed from those, for the chosen
// sentence at the chosen step:
//
//     A = softmax((X W_Q)(X W_K)^T / sqrt(d_k)),   out = A (X W_V P)   (W_V P: the values' points),
//
// the sense read from how far out moved from where an even spread lands, the weight on each shown sentence's
// deciding word, and what the ambiguous word's query shares with a key: the twins of attention/learn_qk.py
// (_bank_rows, sense_readout, clue_weights, _preference, shared_columns, shared_summary);
// tests/browser/test_routing.py holds them to the core within 1e-9.  A typed sentence is read by AttnWords
// (attention/words.js).

const RoutingHead = (function (M, U, W) {
  "use strict";

  const signed = U.signed;

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
    const dk = cols.length;
    let text = `${cap}'s query and ${other}'s key share column ${top.column + 1} (${signed(top.query, 2)} and ` +
      `${signed(top.key, 2)}). Their product, ${signed(top.query * top.key, 2)}, divided by \u221a${dk} (a key has ` +
      `${dk} numbers), adds ${signed(top.score, 2)} to ${word}'s score for ${other}.`;
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

  // A typed sentence through AttnWords (attention/words.js): its tokens, X = encode(tokens) and the values' points
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

  return { attend, evenOf, senseOf, clueWeight, preference, wordX, sharedColumns, sharedSummary, shownSentence,
           typedSentence, trailOf, clueCurve, holdFrame, frameAt };
})(AttnMirror, AttnCommon, AttnWords);
