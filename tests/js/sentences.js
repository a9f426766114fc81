// The sentence builders' entry points for the sentence sweep (tests/app/test_true_sentences.py, through
// tests/app/sweep/render.py): each takes a batch of states as plain JSON and returns the texts the page would show.
// Run in an embedded V8 after the page's pure files and the builders (tests/js/v8.py), with no page.

const sentences = (function (D, R) {
  "use strict";
  const at = (c) => c.units ? (v) => `${c.units.x_name} = ${R.unitText(D.toUnits(c.scale, v), c.span)}` : undefined;
  return {
    // app/regression/text.js: the caption, the notices that name a limit, and what a screen reader hears
    regression: (cases) => cases.map((c) => ({
      caption: R.caption(c.r, c.kernel, c.h, c.t, c.tilt, c.units),
      notices: R.limitNotices(c.r, R.heaviestSample(c.q, c.x, c.y, c.w), c.curve, c.limits, c.tilt, at(c)),
      announcement: R.announcement(c.r),
      // the words under the error plot (querytexts.js errorText)
      errors: R.errorWords(c.words, c.hs, c.loo, c.err, c.h * Math.sqrt(c.t), c.units ?
        (h) => `${R.lengthText(D.hToUnits(c.scale, h))} on the ${c.x_name} axis` : R.lengthText),
    })),

    // app/learning/starttext.js: where training starts, from the mirror's typical focus over the curve's x grid
    // (bandwidth.js startFocus), h written by LearningText.hText (in the data's units on your own data)
    learning: (c) => c.cases.map((s) => {
      const f = AttnMirror.typicalFocus(AttnMirror.linspace(...c.grid), s.x,
                                        { kernel: "gaussian", bandwidth: s.h, temperature: 1, keyScale: null });
      const h = LearningText.hText(s.h, 4, s.scale, s.x_name);
      return LearningText.startSentence(`${s.hname} = ${h}`, f.max_weight, f.effective_points, c.limits);
    }),
    // attention/train.js: a path's messages, refused steps written by refusalText (app/learning/text.py's twin)
    refusals: (cases) => cases.map((c) => AttnTrain.trainColumns(c).message),

    // app/routing/head.js: what the word's query and the other word's key share (texts.js drawWeights)
    shared: (c) => c.cases.map((s) => {
      const cfg = { words_model: c.model }, xw = RoutingHead.wordX(cfg, s.word), xo = RoutingHead.wordX(cfg, s.other);
      return RoutingHead.sharedSummary(s.word, s.other, RoutingHead.sharedColumns(xw, xo, s.wq, s.wk, c.names, c.share,
                                                                                 c.from_share), c.share);
    }),
    // app/sentence/rowtext.js: the selected row's readout table and the line under the matrix, each row computed
    // as the page does (analysis.js compute: AttnWords.analyze, then AttnMirror.multiHeadAttention)
    sentence: (c) => c.cases.map((s) => {
      const p = AttnWords.analyze(s.text, c.model), M = AttnMirror;
      const r = M.multiHeadAttention(p.heads.map((h) => h.q), p.heads.map((h) => h.k), p.heads.map((h) => h.v),
                                     p.w_o, s.causal, s.t);
      const out = M.matmul(r.heads[s.head], p.sense_plane.value_projection)[s.token];
      const comb = M.matmul(r.output, p.sense_plane.output_projection)[s.token];
      return [SentenceRowText.rowReadouts(p.tokens, s.token, r.weights[s.head][s.token], s.causal, out, comb),
              SentenceRowText.rowLine(p.tokens, s.token, p.d_k, s.t)];
    }),
    // app/ideas/engine.js: the line under the dependency graphs, and the lag panel's errors
    ideas: (c) => ({ graph: c.lengths.map((n) => Ideas.graphCaption(n)), errors: c.results.map((r) => Ideas.errorsHtml(r)) }),
    // app/routing/lines.js: the readout's lines (texts.js drawReadout) and the status line (drawStatus)
    readout: (cases) => cases.map((c) => RoutingLines.readoutLines(c.s, c.row, c.point, c.p)),
    status: (c) => c.frames.map(([f, moment]) => {
      const t = RoutingLines.statusText(c.plain, f, moment);
      return `${t.head}: ${t.body}` + (t.moment ? ` ${t.moment}` : "");
    }),
  };
})(AttnUserData, RegressionText);
