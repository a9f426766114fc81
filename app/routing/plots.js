// The routing section's plots: the attention matrix, the sense plot (the words' values, where an even spread
// lands, the ambiguous word's point and its trail) and the curves of what is learned.

const RoutingPlots = (function (U, Head, State) {
  "use strict";

  const fixed = U.fixed;
  const { trailOf } = Head;
  const { range, put } = State;

  // ---- drawing ----------------------------------------------------------------------------------------

  function sizes(c) { return c.cfg.theme.sizes[c.present ? "present" : "normal"]; }

  // The width of one cell on screen (px), from the drawn plot, or a guess before it is drawn.
  function cellPx(a, c) {
    const v = U.plotView(a.heat), n = c.sent.tokens.length;
    const w = v && v.frame && v.frame.bbox ? v.frame.bbox.width : 360;
    return w / n;
  }

  // The matrix's axes follow the sentence: one tick per word, labels turned upright when they do not fit a cell.
  function matrixAxes(a, c) {
    const toks = c.sent.tokens, n = toks.length, font = parseFloat(sizes(c).tick);
    const was = a.tokens_src.data.tok;
    a.tokens_src.data = { tok: toks.slice() };
    if (!was || was.join("\u0000") !== toks.join("\u0000")) U.relabel(a.heat);   // new words: measure the axes again
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

  return { matrixAxes, drawMatrix, senseValues, drawSense, drawCurves };
})(AttnCommon, RoutingHead, RoutingOnPage);
