// The ideas section's engine: redraws the dependency graphs when the sentence changes, and switches the
// lag panel between the results Python computed for every period (no formula of the core runs here).
//
// graphData, graphCaption, lagData and errorsHtml are twins of graph_data, graph_caption, lag_sources and
// errors_html in app/ideas/view.py; tests/browser/test_ideas.py holds them to the Python output.

const Ideas = (function (U) {
  "use strict";

  const MINUS = "\u2212";

  function esc(s) {
    return String(s).replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;",
                                                    "'": "&#39;" })[ch]);
  }
  function fmtNum(v, digits = 2) {
    let s = Number(v).toFixed(digits);
    if (Number(s) === 0) s = s.replace(/^-/, "");
    return s.replace("-", MINUS);
  }
  function fmtCount(n) {
    if (n >= 1e6) return (n / 1e6).toFixed(1) + " million";
    if (n < 10000) return String(Math.round(n));
    return Math.round(n).toLocaleString("en-US").replace(/,/g, "\u2009");
  }

  // ---- sequential against parallel -------------------------------------------------------------------

  // G: app/ideas/view.py GRAPH (the twin graph_data reads it too)
  function graphData(tokens, G) {
    const toks = tokens.map(String), n = toks.length, span = Math.max(n - 1, 1);
    const labels = n <= G.labels_up_to ? toks : toks.map(() => "");
    const xs = toks.map((_, i) => i);
    const size = n <= G.node_px_up_to ? G.node_px : Math.max(G.node_min, Math.round(G.node_area / n));  // long: smaller
    const nodes = { x: xs.concat(xs), y: xs.map(() => 2).concat(xs.map(() => 0)), tok: toks.concat(toks),
                    label: labels.concat(labels), size: xs.concat(xs).map(() => size) };
    const chain = { x0: [], x1: [], y0: [], y1: [] };
    for (let i = 0; i + 1 < n; i++) { chain.x0.push(i); chain.x1.push(i + 1); chain.y0.push(2); chain.y1.push(2); }
    const pairs = { x0: [], x1: [], cx: [], cy: [], y0: [], y1: [] };
    for (let i = 0; i < n; i++) {
      for (let j = i + 1; j < n; j++) {
        pairs.x0.push(i); pairs.x1.push(j); pairs.cx.push((i + j) / 2); pairs.cy.push(G.bulge * (j - i) / span);
        pairs.y0.push(0); pairs.y1.push(0);
      }
    }
    return { nodes, chain, pairs, n };
  }

  function graphCaption(n) {
    const pairs = n * (n - 1) / 2, steps = n === 1 ? "step" : "steps";
    return `<p>For these ${n} words the RNN takes <b>${n} ${steps} in a row</b>, one per link of the chain. ` +
      `Attention scores all ${fmtCount(n * n)} pairs (the ${fmtCount(pairs)} links between different words ` +
      `are drawn) in <b>one step</b>.</p>`;
  }

  // The graph's height and least width for n words (twin of graph_size in app/ideas/view.py).
  function graphSize(n, G) {
    if (n <= G.labels_up_to) return { height: G.height, min_width: G.min_width };
    return { height: G.height + G.word_room, min_width: Math.max(G.min_width, n * G.word_px + G.word_margin) };
  }

  function drawGraph(a) {
    const toks = Array.from(a.tokens_src.data.tok || []);
    if (!toks.length) return;
    const G = a.config.graph, g = graphData(toks, G), fig = a.graph_fig;
    const r = fig.x_range, end = g.n - 0.4;
    if (r.start !== -0.6 || r.end !== end) r.setv({ start: -0.6, end: end });
    a.nodes.data = g.nodes;
    a.chain.data = g.chain;
    a.pairs.data = g.pairs;
    // a longer sentence's words stand upright above the chain, one per node
    const named = g.n > G.labels_up_to, words = (fig.above || []).find((m) => m.name === "graph_words_axis");
    if (words) {
      const ticks = named ? Array.from({ length: g.n }, (_, i) => i) : [];
      if (String(words.ticker.ticks) !== String(ticks)) words.ticker.ticks = ticks;
      if (words.visible !== named) words.visible = named;
    }
    const size = graphSize(g.n, G);
    if (fig.height !== size.height || fig.min_width !== size.min_width) fig.setv(size);
    // (written into the rendered Div, U.setHtml: a Div's new text would lay its block out again at once)
    U.setHtml(a.graph_div, graphCaption(g.n));
  }

  // ---- a known lag is a feature ---------------------------------------------------------------------

  function lagTicks(period, maxLag) {
    const t = new Set([1, period]);
    if (period < maxLag - 2) t.add(maxLag);
    return Array.from(t).sort((x, y) => x - y);
  }

  function lagData(res, colors) {
    const k = res.period, lags = res.weights.map((_, i) => i + 1);
    return {
      weights: { lag: lags, w: res.weights.slice(), color: lags.map((i) => (i === k ? colors.top : colors.other)),
                 label: lags.map((i, idx) => (i === res.top_lag ? fmtNum(res.weights[idx]) : "")) },
      actual: { day: res.actual.day.slice(), y: res.actual.y.slice() },
      pred: { day: res.pred.day.slice(), attention: res.pred.attention.slice(), linear: res.pred.linear.slice() },
    };
  }

  function errorsHtml(res) {
    const k = res.lag;
    const rows = [
      [`attention over 14 days (14 learned weights; largest on lag ${res.top_lag})`, res.rmse_attention],
      [`linear model on the value ${k} days back (a = ${fmtNum(res.intercept)}, b = ${fmtNum(res.slope)})`,
       res.rmse_linear],
      ["equal weights over 14 days (attention before learning)", res.rmse_equal_weights],
    ];
    const body = rows.map(([name, v]) => `<tr><th>${esc(name)}</th><td>${fmtNum(v)}</td></tr>`).join("");
    return '<table class="errors"><tr><th><i>error on the 4 held-out weeks (root mean square)</i></th>' +
      `<td></td></tr>${body}</table>`;
  }

  // The lag panel's words for a period (twin of lag_intro and pattern_words in app/ideas/view.py).
  function patternWords(k) {
    return k === 7 ? "a weekly pattern" : k === 14 ? "a two-week pattern" : `a pattern that repeats every ${k} days`;
  }

  function lagIntro(period) {
    const k = Number(period);
    return `<p>A shop's daily sales follow ${patternWords(k)}, plus noise and a drifting level. Two models ` +
      "predict tomorrow from the last 14 days (trained on 20 weeks, tested on the next 4):</p>" +
      "<ul><li><b>attention over the past</b>: a weighted average of the 14 days, one learned weight per " +
      "lag;</li><li><b>a linear model with one lagged column</b>: a + b &times; (the value " +
      `${k} ${k === 1 ? "day" : "days"} ago), fitted by least squares.</li></ul>`;
  }

  function drawLag(a) {
    const res = a.config.lags[String(a.w_period.value)];
    if (!res) return;
    const d = lagData(res, a.config.colors);
    const ticks = lagTicks(res.period, res.weights.length);
    if (String(a.lag_ticker.ticks) !== String(ticks)) a.lag_ticker.ticks = ticks;
    const html = errorsHtml(res);
    if (a.errors_div.text !== html) a.errors_div.text = html;   // texts first, data last (see app/sentence/engine.js)
    U.setHtml(a.lag_intro, lagIntro(res.period));
    a.lag_w.data = d.weights;
    a.lag_actual.data = d.actual;
    a.lag_pred.data = d.pred;
  }

  // ---- the link, and what the tour reads and sets (app/tour/model.py ideas_readouts) --------------------

  function readouts(a) {
    const n = a.tokens_src.data.tok.length, p = Number(a.w_period.value), res = a.config.lags[String(p)];
    return { rnn_steps: n, attention_steps: 1, period: p, top_lag: res.top_lag, top_lag_weight: res.weights[res.top_lag - 1],
             rmse_attention: res.rmse_attention, rmse_linear: res.rmse_linear };
  }

  function tell(a, c) { U.tellReadouts(a.w_period.document, c, "ideas", () => readouts(a)); }

  function setPeriod(a, p) {
    const v = String(p);
    if (a.config.lags[v] && a.w_period.value !== v) a.w_period.value = v;   // its change event redraws the panel
  }

  function scheduleUrl(a, c) {
    tell(a, c);
    U.scheduleUrl(c, () => {
      const out = new URLSearchParams(window.location.search), p = Number(a.w_period.value);
      if (p === a.config.spec.period.default) out.delete("period"); else out.set("period", String(p));
      return out.toString();
    });
  }

  function init(a, c) {
    c.ready = true;
    if (!U.hostOwnsAddress()) {
      const { values } = U.parseQuery(window.location.search, a.config.spec, a.config.url_rules);
      if (values.period !== undefined) setPeriod(a, values.period);
    }
    drawGraph(a);
    drawLag(a);
    c.urlArmed = true;
    tell(a, c);
    U.onApply(a.w_period.document, c, "ideas", (v) => { if (v.period !== undefined) setPeriod(a, v.period); });
  }

  function handle(ev, a) {
    const c = U.pageState("__attnIdeasCache", a.w_period);
    try {
      if (!c.ready) return init(a, c);
      if (ev === a.w_period) { drawLag(a); return scheduleUrl(a, c); }
      // a new sentence: the graphs follow once the sentence section has painted its matrix (they are further
      // down the page; drawn in the same task, they would hold the matrix back)
      if (ev === a.tokens_src) {
        U.afterPaint(c, "graph", () => drawGraph(a), (e) => console.error("attention explorable (ideas):", e));
        return tell(a, c);
      }
    } catch (e) {
      console.error("attention explorable (ideas):", e);
    }
  }

  return { handle, graphData, graphCaption, graphSize, lagData, errorsHtml, lagTicks, lagIntro };
})(AttnCommon);
