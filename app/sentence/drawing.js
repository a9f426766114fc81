// The self-attention section's drawing: the matrix, the small matrices of the heads, the selected word's row and
// readouts, the sense plane and the cost, and the widgets set to the state.

const SentenceDrawing = (function (U, State, Analysis, RowText) {
  "use strict";

  const esc = U.esc, fixed = U.fixed, setWidget = U.setWidget;
  const { put, setText, scheduleUrl } = State;
  const { compute, senseRange } = Analysis;

  // ---- drawing -------------------------------------------------------------------------------

  // A weight's number in its cell: black on the palette's brighter half, white on the darker (CELL_TEXT in
  // app/ui/weights.py; app/routing/plots.js writes its cells the same way).
  function cellText(w, t) { return w >= t.from ? t.dark : t.light; }

  function drawMatrix(a, c) {
    const n = c.n, W = c.res.weights[c.head], toks = c.plain.tokens;
    const cols = { x: [], y: [], w: [], q_tok: [], k_tok: [] };
    const wc = new Float64Array(n * n);   // the image's cells: row i from y = i - 1/2 (the y axis runs down)
    const labels = { x: [], y: [], label: [], tc: [] };   // the numbers, only when the cells are big enough
    const sums = { x: [], y: [], sum: [], text: [] };
    // (a cell prints its weight when the number fits it at the text's size: 13 px, 20 px projected)
    const showNumbers = c.cell >= c.cfg.geometry.numbers_cell[c.present ? 1 : 0];
    for (let i = 0; i < n; i++) {
      let s = 0;
      for (let j = 0; j < n; j++) {
        const w = W[i][j], masked = c.causal && j > i;
        s += w;
        // colour: the weight itself, 0 to 1 (the page's one scale), grey where masked
        cols.x.push(j); cols.y.push(i); cols.w.push(w); wc[i * n + j] = masked ? NaN : w;
        cols.q_tok.push(`${toks[i]} (${i})`); cols.k_tok.push(`${toks[j]} (${j})`);
        if (showNumbers && !masked) {
          labels.x.push(j); labels.y.push(i); labels.label.push(fixed(w, 2));
          labels.tc.push(cellText(w, c.cfg.cell_text));
        }
      }
      sums.x.push(n - 0.5 + 0.15); sums.y.push(i); sums.sum.push(s); sums.text.push(fixed(s, 3));
    }
    put(c, a.cells, cols);
    put(c, a.cell_image, image(wc, n));
    // the white lines between the cells (2 (n - 1) of them): they change with n only, not with a drag of T
    if (a.cell_edges.data.x0.length !== 2 * (n - 1)) {
      const edges = { x0: [], y0: [], x1: [], y1: [] };
      for (let k = 1; k < n; k++) {
        edges.x0.push(k - 0.5, -0.5); edges.y0.push(-0.5, k - 0.5);
        edges.x1.push(k - 0.5, n - 0.5); edges.y1.push(n - 0.5, k - 0.5);
      }
      put(c, a.cell_edges, edges);
    }
    put(c, a.cell_labels, labels);
    put(c, a.rowsums, sums);
    // the selected head is named under its small matrix (a Div: repainting the small plots would cost more)
    a.head_divs.forEach((d, h) => {
      const p = c.plain.heads[h];
      setText(c, d, `<p class="head">${h === c.head ? '<b class="shown">shown above</b> ' : ""}${esc(p.description)}</p>`);
    });
  }

  // An n x n image (a Bokeh image glyph's source) of the cells' colour values, row i over y = i - 1/2 .. i + 1/2
  function image(flat, n) {
    return { image: [AttnBokeh.image2d(flat, n)], x: [-0.5], y: [-0.5], dw: [n], dh: [n] };
  }

  // one small matrix per head (coloured as the big one: the weight itself, 0 to 1); they change with the
  // sentence, the temperature and the mask, not with the selected head
  function drawMinis(a, c) {
    const n = c.n;
    c.plain.heads.forEach((_, h) => {
      const Wh = c.res.weights[h];
      const wc = new Float64Array(n * n);
      for (let i = 0; i < n; i++)
        for (let j = 0; j < n; j++) wc[i * n + j] = c.causal && j > i ? NaN : Wh[i][j];
      put(c, a.minis[h], image(wc, n));
    });
  }


  function drawRow(a, c) {
    const n = c.n, i = c.token, toks = c.plain.tokens, w = c.res.weights[c.head][i];
    put(c, a.rowmark, { x: [(n - 1) / 2], y: [i], width: [n] });
    put(c, a.bars, { x: toks.map((_, j) => j), w: Array.from(w), tok: toks.slice(),
                    color: toks.map((_, j) => (j === i ? c.cfg.colors.selected : c.cfg.colors.row)) });
    // (the bars' axis stays at 0 to 1, as the regression's weights do: a row's peakedness compares by eye)
    const table = RowText.rowReadouts(toks, i, w, c.causal, c.outXY[c.head][i], c.combXY[i]);
    setText(c, a.readout_div, table);
    if (globalThis.AttnDescribe) U.sayWhenSettled(() => AttnDescribe.plainWords(table), "sentence");
    setText(c, a.caption_div, RowText.rowLine(toks, i, c.plain.d_k, c.t));
  }

  function drawSense(a, c) {
    const n = c.n, i = c.token, h = c.head, toks = c.plain.tokens, w = c.res.weights[h][i];
    const V = c.valueXY[h], out = c.outXY[h][i];
    // words whose values sit on the same spot share one label
    const groups = new Map();
    for (let j = 0; j < n; j++) {
      const k = `${V[j][0].toFixed(6)},${V[j][1].toFixed(6)}`;
      if (!groups.has(k)) groups.set(k, { x: V[j][0], y: V[j][1], words: [] });
      const g = groups.get(k);
      if (!g.words.includes(toks[j])) g.words.push(toks[j]);
    }
    const pts = { x: [], y: [], label: [], tok: [] };
    for (const g of groups.values()) {
      const label = g.words.length > 4 ? g.words.slice(0, 4).join(", ") + ` +${g.words.length - 4}` : g.words.join(", ");
      pts.x.push(g.x); pts.y.push(g.y); pts.label.push(label); pts.tok.push(g.words.join(", "));
    }
    put(c, a.sense_values, pts);
    const cb = c.combXY[i];
    const span = c.senseSpan;
    let mx = 0;
    for (const v of w) if (v > mx) mx = v;
    // arrows stop just short of the output's dot so their heads stay visible
    const gap = 0.035 * span;
    const ar = { x0: [], y0: [], x1: [], y1: [], w: [], lw: [], head: [], alpha: [], tok: [] };
    for (let j = 0; j < n; j++) {
      if (w[j] < 1e-3) continue;
      const dx = out[0] - V[j][0], dy = out[1] - V[j][1], d = Math.hypot(dx, dy);
      const f = d > 2.5 * gap ? (d - gap) / d : 1;
      ar.x0.push(V[j][0]); ar.y0.push(V[j][1]); ar.x1.push(V[j][0] + f * dx); ar.y1.push(V[j][1] + f * dy);
      ar.w.push(w[j]); ar.lw.push(1 + 9 * w[j]); ar.head.push(8 + 12 * w[j]); ar.alpha.push(0.2 + 0.8 * w[j] / mx);
      ar.tok.push(toks[j]);
    }
    put(c, a.sense_arrows, ar);
    put(c, a.sense_output, outputLabel(c, out, cb, `${toks[i]} (output)`));
    put(c, a.sense_combined, { x: [cb[0]], y: [cb[1]], label: [toks[i]] });
  }

  // The selected word's output and its label: the label sits above or below the dot, on the side away from the
  // purple diamond (all heads combined), so neither marker covers it whatever the sentence, and it leans
  // toward the wider part of the plot, so it stays inside the frame (the y range keeps room for it: senseRange).
  function outputLabel(c, out, cb, label) {
    const L = c.cfg.sense_label, f = (out[0] - c.senseX[0]) / (c.senseX[1] - c.senseX[0]);
    const below = cb[1] >= out[1];   // the diamond above the dot, or level with it
    const align = f < 1 / 3 ? "left" : f > 2 / 3 ? "right" : "center";
    return { x: [out[0]], y: [out[1]], label: [label], align: [align], baseline: [below ? "top" : "bottom"],
             dx: [align === "left" ? -L.lean : align === "right" ? L.lean : 0], dy: [below ? L.gap : -L.gap] };
  }

  function drawCost(a, c) {
    const n = c.n;
    // three short lines: the label fits right of its dot in the narrowest cost plot (180 px: a phone)
    put(c, a.cost_now, { n: [n], scores: [n * n], label: [`this sentence\nn = ${n}\n${n * n} scores`] });
  }

  function redrawSelection(a, c) { drawRow(a, c); drawSense(a, c); scheduleUrl(a, c); }
  function redrawHead(a, c) { drawMatrix(a, c); redrawSelection(a, c); }
  function redrawAll(a, c) {
    compute(c); senseRange(a, c); drawCost(a, c); drawMinis(a, c); redrawHead(a, c); syncWidgets(a, c);
  }

  function syncWidgets(a, c) {
    setWidget(a.w_token, "value", String(c.token));
    setWidget(a.w_head, "active", c.head);
    if (Math.abs(a.w_logt.value - Math.log10(c.t)) > 1e-9) setWidget(a.w_logt, "value", Math.log10(c.t));
    setWidget(a.w_causal, "active", c.causal);
  }

  return { cellText, redrawSelection, redrawHead, redrawAll };
})(AttnCommon, SentenceOnPage, SentenceAnalysis, SentenceRowText);
