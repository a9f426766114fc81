// The browser mirror of the attention core, over many queries and bandwidths: the curves across the plot, the
// leave-one-out error, bias and variance, the heads of dot-product attention and the learned 2-D metric, each
// built on one query's weights (attention/kernels.js).  AttnMirror carries these and every function of
// AttnKernels, so an engine asks one module for the core's formulas.
//
// Each function below repeats one formula of the numpy package `attention/`, whose modules sit beside this file
// (the one repeated is named beside each function), operation for operation.  tests/js and
// tests/browser/test_parity.py hold every function to its numpy twin (within 1e-9) over many random states.
// No DOM, no Bokeh: plain numbers in, plain numbers out.

const AttnMirror = (function (K) {
  "use strict";

  const { trueFunction, softmaxInPlace, circleRadius, keyNormTilt, embedKeys, scores1d, weights1d, entropyBits,
          dot } = K;

  // The error curves against h of the bias-variance plot, from plain data (a Web Worker runs this for a large
  // dataset): leave-one-out error, and bias², variance and their sum when the true function and noise are known.
  function errorCurves(p) {
    const keyScale = p.kernel === "dot" && p.tilt ? keyNormTilt(p.x, p.tilt) : null;
    const opt = { kernel: p.kernel, bandwidth: 1, temperature: 1, keyScale };
    const out = { loo: Array.from(looError(p.x, p.y, p.hs, opt)) };
    const bv = p.noise === null || p.noise === undefined ? null : biasVarianceExact(p.x, p.fn, p.noise, p.hs, opt);
    for (const k of ["bias2", "variance", "error"]) out[k] = bv ? Array.from(bv[k]) : p.hs.map(() => NaN);
    return out;
  }

  // attention.predict over many queries (the prediction curve)
  function predictCurve(qs, xs, ys, opt) {
    const emb = opt.kernel === "dot" ? embedKeys(xs, opt.bandwidth, circleRadius(xs), opt.keyScale) : null;
    const out = new Float64Array(qs.length);
    for (let i = 0; i < qs.length; i++) out[i] = dot(weights1d(qs[i], xs, opt, emb), ys);
    return out;
  }

  // Everything over the grid of queries from one set of scores per grid point: the prediction (as
  // predictCurve), the entropy of the weights in bits, the 1-nearest-neighbour curve (as nearestNeighbor1d)
  // and the facts along the curve (app/regression/text.py curve_facts: how many samples win somewhere, the share of
  // the grid won by the nearest sample, the share where one sample holds `sharp` of the weight or more, and the
  // share where the prediction lies within `flatTol` of its winner's value), for the plots over x and the tour.
  // At 2000 samples and 400 grid points the four apart weighed 3.2 million exponentials; this, 800 000.
  function gridCurves(qs, xs, ys, opt, sharp, flatTol) {
    const emb = opt.kernel === "dot" ? embedKeys(xs, opt.bandwidth, circleRadius(xs), opt.keyScale) : null;
    const m = qs.length, n = xs.length, t = opt.temperature;
    const pred = new Float64Array(m), ent = new Float64Array(m), nn = new Float64Array(m);
    const winners = new Set();
    let nearestCount = 0, sharpCount = 0, flatCount = 0;
    for (let i = 0; i < m; i++) {
      const s = scores1d(qs[i], xs, opt.kernel, opt.bandwidth, opt.keyScale, emb);
      let sum = 0, count = 0;
      for (let j = 0; j < n; j++) if (s[j] === 0) { sum += ys[j]; count += 1; }
      nn[i] = sum / count;
      for (let j = 0; j < n; j++) s[j] = s[j] / t;
      const w = softmaxInPlace(s);
      pred[i] = dot(w, ys);
      ent[i] = entropyBits(w);
      let top = 0, near = Infinity;
      for (let j = 0; j < n; j++) { if (w[j] > w[top]) top = j; near = Math.min(near, Math.abs(qs[i] - xs[j])); }
      winners.add(top);
      if (Math.abs(qs[i] - xs[top]) <= near + 1e-9) nearestCount += 1;
      if (w[top] >= sharp) sharpCount += 1;
      if (Math.abs(pred[i] - ys[top]) <= flatTol) flatCount += 1;
    }
    return { pred, ent, nn, facts: { winners: winners.size, nearest_share: nearestCount / m, sharp_share: sharpCount / m,
                                     flat_share: flatCount / m } };
  }

  // The entropy (bits) of the weights at one query for each bandwidth of hs, at T = 1 (entropyBits of weights1d
  // at each h), with one exponential per key and bandwidth: with s the shifted scores (max 0), e = exp(s) and
  // Z = sum e, the weights are e / Z and H = (ln Z - sum e s / Z) / ln 2.  A Gaussian's squared distances are
  // worked out once for all bandwidths (as scores1d does, bit for bit), and a key whose exp(s) is 0 in doubles
  // (s below -746) is skipped, as entropyBits skips a weight of 0.
  function entropyAgainstH(q, xs, hs, opt) {
    const n = xs.length, out = new Array(hs.length);
    let d2 = null;
    if (opt.kernel === "gaussian") {
      d2 = new Float64Array(n);
      let near = Infinity;
      for (let j = 0; j < n; j++) { d2[j] = Math.abs(q - xs[j]); if (d2[j] < near) near = d2[j]; }
      for (let j = 0; j < n; j++) d2[j] = (d2[j] - near) * (d2[j] + near);
    }
    for (let g = 0; g < hs.length; g++) {
      let s = null, f = 0;
      if (d2) f = -0.5 / (hs[g] * hs[g]);
      else s = scores1d(q, xs, opt.kernel, hs[g], opt.keyScale);
      let z = 0, a = 0;
      for (let j = 0; j < n; j++) {
        const v = d2 ? d2[j] * f : s[j];
        if (v < -746) continue;
        const e = Math.exp(v);
        z += e;
        a += e * v;
      }
      out[g] = Math.max((Math.log(z) - a / z) / Math.LN2, 0);
    }
    return out;
  }

  // attention.loo_error: (1/n) sum_i (y_i - sum_{j != i} alpha_ij y_j)^2 for each bandwidth
  function looError(xs, ys, hs, opt) {
    const n = xs.length, out = new Float64Array(hs.length);
    for (let g = 0; g < hs.length; g++) {
      const o = Object.assign({}, opt, { bandwidth: hs[g] });
      const emb = o.kernel === "dot" ? embedKeys(xs, o.bandwidth, circleRadius(xs), o.keyScale) : null;
      let err = 0;
      for (let i = 0; i < n; i++) {
        const s = scores1d(xs[i], xs, o.kernel, o.bandwidth, o.keyScale, emb);
        for (let j = 0; j < n; j++) s[j] = s[j] / o.temperature;
        s[i] = -Infinity;
        softmaxInPlace(s);
        const r = ys[i] - dot(s, ys);
        err += r * r;
      }
      out[g] = err / n;
    }
    return out;
  }

  // attention.bias_variance(..., n_resamples=None): exact bias^2 and variance at the keys
  function biasVarianceExact(xs, fname, noise, hs, opt) {
    const f = trueFunction(fname);
    if (!f) return null;
    const n = xs.length, fx = xs.map(f);
    const bias2 = new Float64Array(hs.length), variance = new Float64Array(hs.length);
    for (let g = 0; g < hs.length; g++) {
      const o = Object.assign({}, opt, { bandwidth: hs[g] });
      const emb = o.kernel === "dot" ? embedKeys(xs, o.bandwidth, circleRadius(xs), o.keyScale) : null;
      let b = 0, v = 0;
      for (let i = 0; i < n; i++) {
        const w = weights1d(xs[i], xs, o, emb);
        const r = dot(w, fx) - fx[i];
        b += r * r;
        v += dot(w, w);
      }
      bias2[g] = b / n;
      variance[g] = noise * noise * (v / n);
    }
    const error = bias2.map((b, g) => b + variance[g]);
    return { bias2, variance, error };
  }

  // attention.dot_product_attention for one head: softmax(Q K^T / (sqrt(d) T)) V.
  // Q, K: arrays of n rows of length d; V: n rows of length dv.
  function dotProductAttention(Q, K, V, causal, temperature) {
    const n = Q.length, m = K.length, d = Q[0].length;
    const scale = 1.0 / (Math.sqrt(d) * temperature);
    const W = [], out = [];
    for (let i = 0; i < n; i++) {
      const s = new Float64Array(m);
      for (let j = 0; j < m; j++) {
        if (causal && j > i) { s[j] = -Infinity; continue; }
        let t = 0;
        for (let c = 0; c < d; c++) t += Q[i][c] * K[j][c];
        s[j] = t * scale;
      }
      softmaxInPlace(s);
      W.push(s);
      const o = new Float64Array(V[0].length);
      for (let j = 0; j < m; j++) for (let c = 0; c < o.length; c++) o[c] += s[j] * V[j][c];
      out.push(o);
    }
    return { weights: W, outputs: out };
  }

  // numpy's A @ B for plain arrays of rows: (n x k) @ (k x m) -> n rows of length m
  function matmul(A, B) {
    const k = B.length, m = B[0].length, out = [];
    for (let i = 0; i < A.length; i++) {
      const row = new Float64Array(m), a = A[i];
      for (let t = 0; t < k; t++) { const at = a[t], b = B[t]; for (let c = 0; c < m; c++) row[c] += at * b[c]; }
      out.push(row);
    }
    return out;
  }

  // attention.multi_head_attention after the projections (as in attention.analyze_sentence):
  //   out_h = dot_product_attention(Q_h, K_h, V_h);  concat = [out_1 ... out_H] per row;  output = concat @ W_O.
  // Qs, Ks, Vs: one array of n rows per head; W_O: (H d_v) rows of length d_out.
  function multiHeadAttention(Qs, Ks, Vs, W_O, causal, temperature) {
    const heads = [], weights = [];
    for (let h = 0; h < Qs.length; h++) {
      const r = dotProductAttention(Qs[h], Ks[h], Vs[h], causal, temperature);
      heads.push(r.outputs);
      weights.push(r.weights);
    }
    const n = heads[0].length, concat = [];
    for (let i = 0; i < n; i++) {
      const row = [];
      for (let h = 0; h < heads.length; h++) for (const x of heads[h][i]) row.push(x);
      concat.push(row);
    }
    return { output: matmul(concat, W_O), weights, heads, concat };
  }

  // ---- the learned 2-D metric (attention/learn.py), one projection W shared by queries and keys ----

  // Weights of one 2-D query under the metric W, at temperature T:
  //   alpha_j = softmax_j(-||W q - W k_j||^2 / (2T)),
  // twin of attention.weights(W q, X W^T, kernel="gaussian", bandwidth=1, temperature=T) (the score
  // family of attention.learn.metric_loss_and_grad, for a query that is not one of the samples).
  // q = [q1, q2]; keys: rows [x1, x2]; W: [[w11, w12], [w21, w22]].
  function metricWeights(q, keys, W, temperature) {
    const a = W[0][0], b = W[0][1], c = W[1][0], d = W[1][1];
    const p0 = a * q[0] + b * q[1], p1 = c * q[0] + d * q[1];
    const n = keys.length, s = new Float64Array(n);
    let near = Infinity;
    for (let j = 0; j < n; j++) {
      const k = keys[j];
      const d0 = p0 - (a * k[0] + b * k[1]), d1 = p1 - (c * k[0] + d * k[1]);
      s[j] = d0 * d0 + d1 * d1;
      if (s[j] < near) near = s[j];
    }
    for (let j = 0; j < n; j++) s[j] = ((s[j] - near) * -0.5) / temperature;  // best key scores exactly 0
    return softmaxInPlace(s);
  }

  // attention.learn.metric_axes for a 2 x 2 W: the similarity ellipse {d : ||W d||^2 / 2 = level} has
  // half-lengths sqrt(2 level) / sigma_k along W's right singular vectors v_k, longest first.
  // Closed form: W^T W = [[p, r], [r, s]]; sigma_max^2 = (p + s)/2 + hypot((p - s)/2, r),
  // sigma_min = |det W| / sigma_max; v_max = (cos t, sin t) with t = atan2(2r, p - s) / 2.
  // (Singular vectors are defined up to sign: numpy may return -v; the ellipse is the same.)
  function metricAxes(W, level) {
    const a = W[0][0], b = W[0][1], c = W[1][0], d = W[1][1];
    const p = a * a + c * c, s = b * b + d * d, r = a * b + c * d;
    const big = Math.sqrt((p + s) / 2 + Math.hypot((p - s) / 2, r));
    const small = big > 0 ? Math.abs(a * d - b * c) / big : 0;
    const t = Math.atan2(2 * r, p - s) / 2;
    const vBig = [Math.cos(t), Math.sin(t)], vSmall = [-Math.sin(t), Math.cos(t)];
    const root = Math.sqrt(2 * level);
    const lBig = root / big, lSmall = root / small;   // x / 0 = Infinity: an ignored direction
    // longest first; on a tie numpy's stable sort keeps the larger singular value's vector first
    return lSmall > lBig ? { lengths: [lSmall, lBig], dirs: [vSmall, vBig] }
                         : { lengths: [lBig, lSmall], dirs: [vBig, vSmall] };
  }

  // attention.learn.similarity_ellipse: points d(theta) = L0 cos(theta) v0 + L1 sin(theta) v1 for
  // theta = linspace(0, 2 pi, points), each half-length capped at maxRadius.  Returns {x: [...], y: [...]}
  // around the origin (add the query to centre it on the query).
  function similarityEllipse(W, level, points, maxRadius) {
    const ax = metricAxes(W, level);
    const l0 = Math.min(ax.lengths[0], maxRadius), l1 = Math.min(ax.lengths[1], maxRadius);
    const [v0, v1] = ax.dirs, step = (2 * Math.PI) / (points - 1);
    const x = new Float64Array(points), y = new Float64Array(points);
    for (let i = 0; i < points; i++) {
      const th = i === points - 1 ? 2 * Math.PI : i * step;
      const c0 = l0 * Math.cos(th), c1 = l1 * Math.sin(th);
      x[i] = c0 * v0[0] + c1 * v1[0];
      y[i] = c0 * v0[1] + c1 * v1[1];
    }
    return { x, y };
  }

  // numpy's median: the middle value, or the mean of the two middle ones
  function median(v) {
    const s = Float64Array.from(v).sort(), m = s.length >> 1;
    return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
  }

  // attention.typical_focus: over the queries qs, the median of each query's largest weight and of its 2^H
  function typicalFocus(qs, xs, opt) {
    const top = new Float64Array(qs.length), eff = new Float64Array(qs.length);
    for (let i = 0; i < qs.length; i++) {
      const w = K.weights1d(qs[i], xs, opt);
      let mx = 0;
      for (let j = 0; j < w.length; j++) if (w[j] > mx) mx = w[j];
      top[i] = mx;
      eff[i] = K.effectivePoints(w);
    }
    return { max_weight: median(top), effective_points: median(eff) };
  }

  return {
    ...K, predictCurve, gridCurves, entropyAgainstH, looError, biasVarianceExact, dotProductAttention, matmul,
    multiHeadAttention, metricWeights, metricAxes, similarityEllipse, errorCurves, typicalFocus,
  };
})(AttnKernels);
