// The browser mirror of the attention core, one query at a time: the kernels' scores, the weights and the
// readout at one query.
//
// Each function below repeats one formula of the numpy package `attention/`, whose modules sit beside this file
// (the one repeated is named beside each function), operation for operation, so the page can recompute while the
// pointer moves without asking Python.  tests/js and tests/browser/test_parity.py hold every function to its
// numpy twin (within 1e-9) over many random states.  attention/mirror.js builds the curves, the leave-one-out
// error and the heads on these; AttnMirror carries both.
// No DOM, no Bokeh: plain numbers in, plain numbers out.

const AttnKernels = (function () {
  "use strict";

  // attention.datasets.FUNCTIONS
  const TRUE_FUNCTIONS = {
    wave: (x) => 0.5 * Math.sin(2 * x) + 0.5 * Math.cos(3 * x),
    bump: (x) => 1.5 * Math.exp(-0.5 * (x - 3.0) ** 2) - 0.5,
    step: (x) => (x < 2.0 ? -0.5 : x < 4.0 ? 0.5 : -0.5),
    sine: (x) => Math.sin(x),
  };

  function trueFunction(name) {
    return name && Object.prototype.hasOwnProperty.call(TRUE_FUNCTIONS, name) ? TRUE_FUNCTIONS[name] : null;
  }

  // attention.kernels.softmax, in place: exp(s_i - max s) / sum_j exp(s_j - max s)
  function softmaxInPlace(s) {
    let top = -Infinity;
    for (let i = 0; i < s.length; i++) if (s[i] > top) top = s[i];
    let sum = 0;
    for (let i = 0; i < s.length; i++) { s[i] = Math.exp(s[i] - top); sum += s[i]; }
    for (let i = 0; i < s.length; i++) s[i] /= sum;
    return s;
  }

  // attention.kernels.circle_radius: 2 x the keys' span (1 if the span is 0, or below SMALLEST_SPAN, the square
  // root of the smallest normal double: the dot kernel's R squared must be a normal number)
  const SMALLEST_SPAN = Math.sqrt(2.2250738585072014e-308);
  function circleRadius(xs) {
    let lo = Infinity, hi = -Infinity;
    for (const x of xs) { if (x < lo) lo = x; if (x > hi) hi = x; }
    const span = hi - lo;
    return span >= SMALLEST_SPAN ? 2.0 * span : 1.0;
  }

  // attention.kernels.key_norm_tilt: s_i = exp(strength * u_i), u_i in [-1, 1]
  function keyNormTilt(xs, strength) {
    let lo = Infinity, hi = -Infinity;
    for (const x of xs) { if (x < lo) lo = x; if (x > hi) hi = x; }
    const out = new Float64Array(xs.length);
    for (let i = 0; i < xs.length; i++) {
      const u = hi > lo ? 2 * (xs[i] - lo) / (hi - lo) - 1 : 0;
      out[i] = Math.exp(strength * u);
    }
    return out;
  }

  // Key embedding for the 1-D dot kernel: c * R (cos(x/R), sin(x/R)) [* key scale]
  function embedKeys(xs, h, radius, keyScale) {
    const c = 2.0 ** 0.25 / h, n = xs.length;
    const e0 = new Float64Array(n), e1 = new Float64Array(n);
    for (let j = 0; j < n; j++) {
      const a = xs[j] / radius;
      e0[j] = c * (radius * Math.cos(a));
      e1[j] = c * (radius * Math.sin(a));
      if (keyScale) { e0[j] = e0[j] * keyScale[j]; e1[j] = e1[j] * keyScale[j]; }
    }
    return { e0, e1, c, radius };
  }

  // attention.kernels.scores for one 1-D query, shifted so the maximum is 0.
  //   gaussian: -(|q-k|^2 - min |q-k|^2) / (2 h^2), computed as (a - a_min)(a + a_min)
  //   dot: phi(q) . phi(k) / sqrt(2) on the circle embedding scaled by 2^(1/4) / h
  function scores1d(q, xs, kernel, h, keyScale, emb) {
    const n = xs.length, s = new Float64Array(n);
    if (kernel === "gaussian") {
      let near = Infinity;
      for (let j = 0; j < n; j++) { s[j] = Math.abs(q - xs[j]); if (s[j] < near) near = s[j]; }
      const f = -0.5 / (h * h);
      for (let j = 0; j < n; j++) s[j] = ((s[j] - near) * (s[j] + near)) * f;
      return s;
    }
    if (kernel !== "dot") throw new Error("unknown kernel " + kernel);
    const E = emb || embedKeys(xs, h, circleRadius(xs), keyScale);
    const a = q / E.radius;
    const q0 = E.c * (E.radius * Math.cos(a)), q1 = E.c * (E.radius * Math.sin(a));
    const r2 = Math.sqrt(2);
    let top = -Infinity;
    for (let j = 0; j < n; j++) { s[j] = (q0 * E.e0[j] + q1 * E.e1[j]) / r2; if (s[j] > top) top = s[j]; }
    for (let j = 0; j < n; j++) s[j] = s[j] - top;
    return s;
  }

  // attention.weights for one query: softmax(scores / T)
  function weights1d(q, xs, opt, emb) {
    const s = scores1d(q, xs, opt.kernel, opt.bandwidth, opt.keyScale, emb);
    for (let j = 0; j < s.length; j++) s[j] = s[j] / opt.temperature;
    return softmaxInPlace(s);
  }

  function dot(w, v) { let t = 0; for (let j = 0; j < w.length; j++) t += w[j] * v[j]; return t; }

  // attention.entropy_bits: H = -sum w log2 w, with 0 log 0 = 0
  function entropyBits(w) {
    let h = 0;
    for (let j = 0; j < w.length; j++) if (w[j] > 0) h -= w[j] * Math.log2(w[j]);
    return Math.max(h, 0);
  }

  // attention.effective_points: 2^H
  function effectivePoints(w) { return 2 ** entropyBits(w); }

  // attention.nearest_neighbor_predict: mean value of the top-scoring keys
  function nearestNeighbor1d(q, xs, ys, opt, emb) {
    const s = scores1d(q, xs, opt.kernel, opt.bandwidth, opt.keyScale, emb);
    let sum = 0, count = 0;
    for (let j = 0; j < s.length; j++) if (s[j] === 0) { sum += ys[j]; count += 1; }
    return sum / count;
  }

  function mean(v) { let t = 0; for (const a of v) t += a; return t / v.length; }

  // attention.readout
  function readout(q, xs, ys, opt, fname) {
    const w = weights1d(q, xs, opt);
    let mx = 0;
    for (const a of w) if (a > mx) mx = a;
    const H = entropyBits(w), f = trueFunction(fname);
    return {
      query: q, n: xs.length, weights: w, max_weight: mx, entropy_bits: H,
      effective_points: 2 ** H, prediction: dot(w, ys),
      true_value: f ? f(q) : null,
      nearest_neighbor_prediction: nearestNeighbor1d(q, xs, ys, opt),
      global_mean: mean(ys),
    };
  }

  function geomspace(lo, hi, num) {
    const out = new Float64Array(num), a = Math.log10(lo), b = Math.log10(hi);
    for (let i = 0; i < num; i++) out[i] = 10 ** (a + (b - a) * i / (num - 1));
    return out;
  }

  function linspace(lo, hi, num) {
    const out = new Float64Array(num);
    for (let i = 0; i < num; i++) out[i] = lo + (hi - lo) * i / (num - 1);
    return out;
  }

  return {
    TRUE_FUNCTIONS, trueFunction, softmaxInPlace, circleRadius, keyNormTilt, embedKeys, scores1d, weights1d,
    entropyBits, effectivePoints, nearestNeighbor1d, readout, geomspace, linspace, mean, dot,
  };
})();
