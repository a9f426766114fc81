// The twins' entry points for tests/js (run by tests/js/v8.py in an embedded V8, after the page's pure files):
// each takes one batch of cases as plain JSON and returns plain values.  The same calls as the browser
// parity tests' harnesses (tests/browser/test_parity.py, test_words_parity.py, test_userdata_parity.py,
// test_compute_parity.py), without a page; and the tour's pure decisions (app/tour/steps.js, dock.js).  Texts cross as lists of code points, as there: a Python string may
// hold a lone surrogate.

const twins = (function (M, W, U, G, T) {
  "use strict";
  const opt = (c) => ({ kernel: c.kernel, bandwidth: c.h, temperature: c.t,
                        keyScale: c.key_norm === null ? null : M.keyNormTilt(c.x, c.key_norm) });
  const str = (cps) => String.fromCodePoint(...cps);
  const attempt = (f) => { try { return { ok: f() }; } catch (e) { return { name: e.name, error: e.message }; } };
  const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  const SIGMA_CONTEXTS = [(c) => "\u0391" + c + "\u03a3", (c) => "\u0391\u03a3" + c + "\u0391",
                          (c) => c + "\u03a3", (c) => "\u0391\u03a3" + c];
  return {
    // ---- attention/kernels.js and attention/mirror.js: the core's formulas (AttnMirror carries both)
    weights: (cases) => cases.map((c) => M.weights1d(c.q, c.x, opt(c))),
    readout: (cases) => cases.map((c) => M.readout(c.q, c.x, c.y, opt(c), c.fn)),
    nearest: (cases) => cases.map((c) => M.nearestNeighbor1d(c.q, c.x, c.y, opt(c))),
    predict: (cases) => cases.map((c) => M.predictCurve(c.qs, c.x, c.y, opt(c))),
    grid: (cases) => cases.map((c) => M.gridCurves(c.qs, c.x, c.y, opt(c), c.sharp, c.flat_tol)),
    entropyH: (cases) => cases.map((c) => M.entropyAgainstH(c.q, c.x, c.hs, opt(c))),
    loo: (cases) => cases.map((c) => M.looError(c.x, c.y, c.hs, opt(c))),
    biasvar: (cases) => cases.map((c) => M.biasVarianceExact(c.x, c.fn, c.noise, c.hs, opt(c))),
    errorCurves: (cases) => cases.map((c) => M.errorCurves(c)),
    tilt: (cases) => cases.map((c) => M.keyNormTilt(c.x, c.strength)),
    dpa: (cases) => cases.map((c) => M.dotProductAttention(c.Q, c.K, c.V, c.causal, c.t)),
    mha: (cases) => cases.map((c) => M.multiHeadAttention(c.Qs, c.Ks, c.Vs, c.W_O, c.causal, c.t).output),
    metric: (cases) => cases.map((c) => M.metricWeights(c.q, c.keys, c.W, c.t)),
    focus: (cases) => cases.map((c) => M.typicalFocus(c.qs, c.x, opt(c))),
    truefn: (cases) => ({ names: Object.keys(M.TRUE_FUNCTIONS).sort(),
                          values: cases.map((c) => { const f = M.trueFunction(c.name); return f ? c.x.map(f) : null; }) }),

    // ---- attention/words.js: the tokenizer, the unknown words' vectors and the heads
    max: () => W.MAX_TOKENS,
    unicode: () => W.UNICODE,
    runs: (names) => names.map((n) => { const r = W.decodeRuns(AttnUnicode.classes[n]); return [r.starts, r.ends]; }),
    member: ([name, cps]) => cps.map((cp) => W.member(name, cp)),
    tokenize: (texts) => texts.map((cps) => attempt(() => W.tokenize(str(cps)))),
    // each code point alone: its tokens joined by spaces, or null when refused
    singles: (cps) => cps.map((cp) => { const r = attempt(() => W.tokenize(String.fromCodePoint(cp)));
                                        return r.ok ? r.ok.join(" ") : null; }),
    // for each code point, how many final sigmas each context holds once folded: 4 digits
    sigmas: (cps) => cps.map((cp) => SIGMA_CONTEXTS.map((f) => W.fold(f(String.fromCodePoint(cp))).split("\u03c2").length - 1)
                                                   .join("")),
    sha256: (inputs) => inputs.map((bytes) => hex(W.sha256(Uint8Array.from(bytes)))),
    utf8: (texts) => texts.map((cps) => hex(W.utf8(str(cps)))),
    round2: (xs) => xs.map((x) => W.round2(x)),
    vectors: (cases) => cases.map((c) => W.unknownWordVector(str(c.word), c.n, c.scale)),
    encode: (cases) => cases.map((tokens) => attempt(() => W.encode(tokens.map(str), MODEL))),
    analyze: (cases) => cases.map((c) => attempt(() => W.analyze(str(c.text), MODEL,
                                                                 { temperature: c.t, causal: c.causal }))),

    // ---- ui/userwords.js, ui/userparse.js and ui/userdata.js: your own data (AttnUserData carries them)
    parse: (cases) => cases.map(([text, opts]) => U.parse(text, opts, CFG)),
    numbers: (vs) => vs.map((v) => U.numberText(v)),
    sizes: (ns) => ns.map((n) => U.sizeText(n)),
    scale: (cases) => cases.map((c) => {
      const s = U.scaleFor(c.x, CFG);
      return { s, page: c.x.map((v) => U.fromUnits(s, v)), back: c.q.map((v) => U.toUnits(s, v)),
               h: [U.hFromUnits(s, c.h), U.hToUnits(s, c.h)] };
    }),

    // ---- attention/generator.js and attention/train.js
    datasets: (cases) => cases.map((c) => G.makeDataset(c.fn, c.n, c.noise, c.seed)),
    uniforms: (cases) => cases.map((c) => G.uniforms(c.seed, c.count)),
    badDatasets: (cases) => cases.map((c) => { try { G.makeDataset(c.fn, c.n, c.noise, c.seed); return null; }
                                               catch (e) { return e.message; } }),
    train: (cases) => cases.map((c) => T.trainBandwidth(c.x, c.y, c.opt)),
    columns: (cases) => cases.map((c) => T.trainColumns(c)),
    lowestLoo: (cases) => cases.map((c) => T.lowestLoo(c)),
    exp: (ss) => ss.map((v) => T.expNeg(v)),

    // ---- app/ui/audiograph.js: the weights as tones
    tones: (cases) => cases.map((c) => AttnAudio.tones(c.x, c.w, c.lo, c.hi)),
    sound: () => AttnAudio.SOUND,

    // ---- the sections' pure files (tests/js/v8.py FILES)
    startSentences: (c) => c.cases.map(([start, w, p]) => LearningText.startSentence(start, w, p, c.limits)),
    readoutLines: (cases) => cases.map((c) => RoutingLines.readoutLines(c.s, c.row, c.point, c.p)),

    // ---- app/ui/format.js: the page's number formats, and a link read by its spec (URLSearchParams: the shim of
    // tests/js/urlsearchparams.js)
    format: (cases) => cases.map((c) => ({ fixed: AttnFormat.fixed(c.v, c.d), general: AttnFormat.general(c.v, c.d + 1),
                                           signed: AttnFormat.signed(c.v, c.d), plain: AttnFormat.plain(c.v, c.d + 1) })),
    parseQuery: (c) => c.queries.map((s) => AttnFormat.parseQuery(s, c.spec, c.rules)),

    // ---- app/regression/readouts.js: a tour step's regression numbers, from the section's controls and data
    regressionReadouts: (c) => c.cases.map((k) => {
      const a = { ds: { data: { x: k.x, y: k.y } } };
      for (const t of c.cfg.settings) a["w_" + t.widget] = { value: t.log ? Math.log10(k.values[t.key]) : k.values[t.key] };
      const own = { cfg: c.cfg, grid: M.linspace(c.cfg.x_range[0], c.cfg.x_range[1], c.cfg.grid_n),
                    looGrid: M.geomspace(c.cfg.loo_grid[0], c.cfg.loo_grid[1], c.cfg.loo_grid[2]) };
      return RegressionReadouts.readouts(a, own, new Set(k.needs));
    }),

    // ---- app/ideas/engine.js: the dependency graphs and the lag panel's numbers and words
    ideasGraphs: (c) => c.ns.map((n) => ({ data: Ideas.graphData(Array.from({ length: n }, (_, i) => "w" + i), c.graph),
                                           caption: Ideas.graphCaption(n), size: Ideas.graphSize(n, c.graph) })),
    ideasLags: (c) => Object.values(c.lags).map((res) => ({ data: Ideas.lagData(res, c.colors), errors: Ideas.errorsHtml(res),
                                                            intro: Ideas.lagIntro(res.period) })),

    // ---- app/tour/steps.js and app/tour/dock.js: what opening a step does, a link's step, the presenter's keys
    opening: (cases) => cases.map((c) => AttnTourSteps.opening(c.step, c.k, c.how, c.now)),
    resolveStep: ([cfg, raws]) => raws.map((r) => AttnTourSteps.resolveStep(r, cfg)),
    keyTurn: ([table, events]) => events.map((e) => AttnTourDock.keyTurn(e, table)),
    // ---- app/ui/frame.js: which keys a framed page leaves to its host
    toHost: (cases) => cases.map((c) => AttnFrame.toHost(c.key, c.kind, c.mods, c.taken)),
  };
})(AttnMirror, AttnWords, AttnUserData, AttnGenerator, AttnTrain);
