// The self-attention section's engine: runs in the browser on every gesture.
//
// One Bokeh CustomJS holds ui/mirror.js (the formulas), ui/common.js (the
// helpers every section shares), ui/words.js and this file.  Every sentence (the
// opening one, an example, the link's, a typed one) is analysed here by AttnWords,
// the twin of attention.analyze_sentence(...).to_plain(), from the toy model in the
// config; then the weights, the outputs and the sense-plane points are recomputed
// with AttnMirror for the chosen temperature and mask, and drawn.  Typed text is
// only ever data: every text that reaches a Div goes through esc(), so words,
// sentences and notices are never HTML.

const SentenceExplorable = (function (M, X, W) {
  "use strict";

  const esc = X.esc, fixed = X.fixed, plain = X.plain, signed = X.signed;
  const clamp = X.clamp, setWidget = X.setWidget;

  // the state lives on the page, keyed by the tokens source (one entry per section on the page)
  function cacheFor(a) { return X.pageState("__attentionSentenceState", a.tokens_src, { pending: [], waiting: new Map() }); }

  // What a gesture changes (a source's data, a plot's range, a Div's text), applied once the handler is done
  // (flush), each keyed by its model.  BokehJS rebuilds a glyph from new data asynchronously, but a Div's new
  // text can lay the page out (and paint plots) at once; a plot painted between the two reads arrays of the
  // old length and throws.  So the texts of a gesture go first and the data last.
  function put(c, src, data) { c.pending.push([src, "data", () => { src.data = data; }]); }
  function putRange(c, range, start, end) { c.pending.push([range, "data", () => { range.setv({ start, end }); }]); }

  // A Div's new text makes BokehJS lay out and repaint the whole page at once (10-30 ms with every section
  // on it).  The live texts here keep their size in the page's flow, so they go through X.setHtml, which
  // writes the (escaped) HTML into the rendered element and gives the model the text silently.
  function setText(c, div, html) { c.pending.push([div, "text", () => X.setHtml(div, html)]); }

  function applyAll(entries) {
    for (const [, kind, fn] of entries) if (kind === "text") fn();
    for (const [, kind, fn] of entries) if (kind !== "text") fn();
  }

  // When the matrix changes size (a sentence of another length), it goes first and alone: its sources,
  // then its block's layout and its paint (geometry's c.relayout); everything else (the small matrices, the
  // row, the sense plane, the cost, the texts) follows two frames later (X.afterPaint), so the matrix is on
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
    X.afterPaint(c, "after the matrix", () => {
      const rest = Array.from(c.waiting.values()); c.waiting.clear();
      applyAll(rest);
    }, (e) => console.error("attention explorable (sentence):", e));
  }
  function sameArray(p, q) { return p.length === q.length && p.every((v, i) => v === q[i]); }

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

  // ---- sizes ---------------------------------------------------------------------------

  // Sizes that follow the sentence's length.  Python (app/sentence/view.py geometry) computes the same numbers for
  // the opening sentence on a wide screen, so on a desktop nothing changes when the page starts.
  function sizes(n, longest, present, innerWidth, G, innerHeight) {
    const i = present ? 1 : 0, big = present ? G.present_scale : 1;
    // cells fill about G.room px (less on a narrow screen), never under G.cell_range[0]: a long sentence scrolls
    const room = Math.min(G.room, innerWidth - G.room_margin);
    let cell = Math.round(clamp(Math.floor(room / (n + 1)), G.cell_range[0], G.cell_range[1]) * big);
    // ... and fit the screen's height too (a small projector in presentation mode)
    if (innerHeight !== undefined && isFinite(innerHeight))
      cell = Math.max(G.cell_range[0], Math.min(cell, Math.floor((innerHeight - G.height_margin[i]) / n)));
    const extra = G.sums_pad + G.sums_px[i] / cell;   // room for the row sums
    const frameWidth = Math.round((n + extra) * cell);
    // the box around the matrix: as wide as the plot (labels and colour bar included), at most the screen
    const px = G.char_px[i], narrow = innerWidth < G.narrow_width;
    const want = frameWidth + longest * px + G.labels_px[i] - (narrow ? G.narrow_px : 0);
    const box = Math.round(Math.max(G.box_min, Math.min(want, innerWidth - G.screen_margin)));
    return { cell, extra, frameWidth, frameHeight: n * cell, box, narrow,
             heatVertical: longest * px > cell - G.label_pad, barsVertical: longest * px > G.bars_px / n - G.label_pad };
  }

  // Layout changes are expensive (BokehJS lays out the matrix's block and paints the matrix at once for each),
  // so the sizes are set silently and the block is laid out once, after the new data is in (flush): that
  // layout's paint is the matrix's only one.
  function geometry(a, c) {
    const n = c.n;
    const longest = Math.max(...c.plain.tokens.map((t) => Array.from(t).length));
    const g = sizes(n, longest, c.present, window.innerWidth || 1280, c.cfg.geometry, window.innerHeight || Infinity);
    c.cell = g.cell;
    a.heat.x_range.setv({ start: -0.5, end: n - 0.5 + g.extra });
    a.heat.y_range.setv({ start: n - 0.5, end: -0.5 });
    putRange(c, a.bars_fig.x_range, -0.5, n - 0.5);   // (with their data: flush)
    for (const f of a.mini_figs) {
      putRange(c, f.x_range, -0.5, n - 0.5);
      putRange(c, f.y_range, n - 0.5, -0.5);
    }
    const ticks = Array.from({ length: n }, (_, i) => i);
    if (!sameArray(a.ticker.ticks, ticks)) a.ticker.ticks = ticks;
    setWidget(a.heat.above[0], "major_label_orientation", g.heatVertical ? Math.PI / 2 : "horizontal");
    setWidget(a.bars_fig.below[0], "major_label_orientation", g.barsVertical ? Math.PI / 2 : "horizontal");
    const view = X.findView(a.matrix_box);
    let relayout = false;
    const quietly = (m, props) => {
      const diff = {};
      for (const [k, v] of Object.entries(props)) if (m[k] !== v) diff[k] = v;
      if (Object.keys(diff).length) { m.setv(diff, { silent: view !== null }); relayout = true; }
    };
    quietly(a.heat, { frame_width: g.frameWidth, frame_height: g.frameHeight });
    // a phone: the cells print their weights and the note under the matrix says rows are queries
    for (const bar of a.heat.right.filter((m) => m.color_mapper !== undefined)) quietly(bar, { visible: !g.narrow });
    const rows = a.heat.left[0];
    if (c.rowsTitle === undefined) c.rowsTitle = rows.axis_label;   // as the page was built
    quietly(rows, { axis_label: g.narrow ? null : c.rowsTitle });
    quietly(a.matrix_box, { width: g.box });
    if (relayout && view) c.relayout = () => X.relayoutWhenReady(a.matrix_box, a.heat);
    a.fmt.change.emit();   // the tokens changed: redraw the tick labels even when n did not
  }


  // ---- drawing -------------------------------------------------------------------------------

  // A weight's number in its cell: black on the palette's brighter half, white on the darker (CELL_TEXT in
  // app/sentence/view.py; app/routing/engine.js writes its cells the same way).
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
    let mx = 0, arg = 0;
    for (let j = 0; j < n; j++) if (w[j] > mx) { mx = w[j]; arg = j; }
    // (the bars' axis stays at 0 to 1, as the regression's weights do: a row's peakedness compares by eye)
    const H = M.entropyBits(w);
    // with the causal mask, row i sees only words 0..i: its spread is out of those k words
    const k = c.causal ? i + 1 : n;
    const row = (k, v, extra) => `<tr><th scope="row">${k}</th><td>${v}</td><td class="extra">${extra || ""}</td></tr>`;
    const o = c.outXY[c.head][i], cb = c.combXY[i];
    setText(c, a.readout_div,
      `<table class="readouts" aria-live="polite" aria-label="readouts for the selected word">` +
      row("query word", esc(toks[i]), `row ${i}`) +
      row("max weight", fixed(mx, 3), `on \u201c${esc(toks[arg])}\u201d`) +
      row("entropy", `${fixed(H, 2)} bits`, `of ${fixed(Math.log2(k), 2)}${c.causal ? ` (${k} visible)` : ""}`) +
      row("effective tokens", fixed(2 ** H, 1), `of ${k}${c.causal ? " visible" : ""}`) +
      row("output (water, money)", `${signed(o[0], 2)}, ${signed(o[1], 2)}`, "this head") +
      row("all heads (water, money)", `${signed(cb[0], 2)}, ${signed(cb[1], 2)}`, "after W\u2092") +
      `</table>`);
    const t = c.t === 1 ? "" : ` and by T = ${plain(c.t, 3)}`;
    setText(c, a.caption_div,
      `<p class="rowline">Row ${i} is one regression query, like the orange-red line above: ` +
      `\u201c${esc(toks[i])}\u201d compares its query with every word's key, a softmax turns the scores ` +
      `into weights, and its output is the weighted average of the values. Only the similarity is new: ` +
      `a dot product of vectors, divided by \u221ad\u2096 = ${plain(Math.sqrt(c.plain.d_k), 3)}${t}.</p>`);
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

  function scheduleUrl(a, c) { X.scheduleUrl(c, () => stateQuery(c)); tell(a, c); }

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

  function tell(a, c) { X.tellReadouts(a.heat.document, c, "sentence", () => readouts(c)); }

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
    X.subscribe(a.heat.document, "present", (present) => {
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
    const { values, notices: more } = X.parseQuery(mySearch(window.location.search, spec), spec, c.cfg.url_rules);
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
    c.token = i0.token; c.head = i0.head; c.t = i0.temperature; c.causal = i0.causal;
    c.present = false;
    c.defaultKey = W.tokenize(c.cfg.default_sentence).join(" ");
    listenForPresent(a, c);
    let plain = null;
    if (!X.hostOwnsAddress()) {   // the page reads its own link (in a notebook, Python set the state)
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
    if (!X.hostOwnsAddress()) scheduleUrl(a, c);
    tell(a, c);
    X.onApply(a.heat.document, c, "sentence", (v) => X.runGuarded(c, () => { apply(a, c, v); flush(c); }, (e) => {
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
    X.runGuarded(c, () => { if (!c.ready) init(a, c); else dispatch(ev, a, c); flush(c); }, (e) => {
      c.pending = [];
      console.error("attention explorable (sentence):", e);
      if (a.notice_div) notify(a, [`Something went wrong while redrawing (${e.message}).`]);
    });
  }

  return { handle, sizes, cacheFor, cellText };
})(AttnMirror, AttnCommon, AttnWords);
