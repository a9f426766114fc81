// Learning the bandwidth in the browser: twin of attention.train_bandwidth (attention/learn.py), whose
// docstrings derive the formulas, and of the columns the learning section ships for a path
// (app/learning/view.py bandwidth_trajectory_for, with app/learning/text.py refusal_text for the messages).
//
// The loss is the leave-one-out error; each step of gradient descent on log h evaluates it and its slope
// with the core's windowed sums: the keys are sorted by x, and row i sums only over the run of keys whose
// weight is at least 1e-16 of the row's largest, found by binary search.  tests/browser/test_compute_parity.py
// holds the paths to the core's (1e-6 relative) and the columns' messages to Python's, character for character.
// Needs AttnNumbers (attention/numbers.js: Python's :g format, plain numbers); no DOM, so it runs in a Web Worker
// too.

const AttnTrain = (function (E) {
  "use strict";

  // attention.learn's constants
  const H_MIN = 1e-4, H_MAX = 1e4, BLOWUP_FACTOR = 10.0, LOG_H_LIMIT = 230.0;
  const WINDOW_SCORE = 36.841361487904734;   // attention.learn.WINDOW_SCORE = ln(1e16)
  const HINT = "learning rate too large \u2014 lower it";
  const STATUS_START = "start", STATUS_OK = "ok", STATUS_DIVERGED = "diverged";

  // Python's f"{v:.{p}g}", including inf and nan
  function pyG(v, p) {
    if (Number.isNaN(v)) return "nan";
    if (!isFinite(v)) return v > 0 ? "inf" : "-inf";
    return E.general(v, p);
  }

  // attention.learn._xy_1d: x and y as arrays of finite numbers, at least 2, one y per x
  function checkXY(x, y) {
    const finite = (a) => Array.from(a).every((v) => typeof v === "number" && isFinite(v));
    if (!x || !finite(x)) throw new Error("x must contain only finite numbers (found NaN or infinity)");
    if (!y || !finite(y)) throw new Error("y must contain only finite numbers (found NaN or infinity)");
    if (x.length < 2) throw new Error(`x must hold at least 2 samples for leave-one-out error, got ${x.length}`);
    if (y.length !== x.length) throw new Error(`y must have one value per sample of x (${x.length}), got ${y.length}`);
  }

  // attention.learn._sorted_1d: keys sorted by x (ties keep their order) and y minus its mean (xs, yc, one per
  // key), and the keys grouped by distinct x (one per distinct value): the value ux, how many keys share it
  // (count), the sum of their values (ysum) and the squared distance to the nearest other key (udmin: 0 when
  // the x is shared, else to the neighbouring distinct x); group[k] is key k's distinct value.
  function sortedData(x, y) {
    const n = x.length, order = Array.from({ length: n }, (_, i) => i);
    order.sort((a, b) => x[a] - x[b] || a - b);
    const xs = new Float64Array(n), yc = new Float64Array(n), group = new Int32Array(n);
    let mean = 0;
    for (let k = 0; k < n; k++) { xs[k] = x[order[k]]; yc[k] = y[order[k]]; mean += yc[k]; }
    mean /= n;
    for (let k = 0; k < n; k++) yc[k] -= mean;
    let m = 0;
    for (let k = 0; k < n; k++) { if (k > 0 && xs[k] !== xs[k - 1]) m++; group[k] = m; }
    m = n ? m + 1 : 0;
    const ux = new Float64Array(m), count = new Float64Array(m), ysum = new Float64Array(m), udmin = new Float64Array(m);
    for (let k = 0; k < n; k++) { const g = group[k]; ux[g] = xs[k]; count[g] += 1; ysum[g] += yc[k]; }
    for (let g = 0; g < m; g++) {
      const left = g > 0 ? (ux[g] - ux[g - 1]) ** 2 : Infinity;
      const right = g < m - 1 ? (ux[g + 1] - ux[g]) ** 2 : Infinity;
      udmin[g] = count[g] > 1 ? 0 : Math.min(left, right);
    }
    return { xs, yc, group, ux, count, ysum, udmin };
  }

  // exp(-s) for 0 <= s <= WINDOW_SCORE, the only scores a window holds: exp(-k/64) from a table times a
  // degree-6 Taylor polynomial of exp(-r), r = s - k/64 in [0, 1/64) (truncation below 5e-17).  Within 4e-16
  // relative of Math.exp and twice as fast; the exponential is most of the work of a step.
  const EXP_STEPS = 64, EXP_TABLE = new Float64Array(Math.ceil(WINDOW_SCORE * EXP_STEPS) + 2);
  for (let k = 0; k < EXP_TABLE.length; k++) EXP_TABLE[k] = Math.exp(-k / EXP_STEPS);

  function expNeg(s) {
    const k = Math.floor(s * EXP_STEPS), r = s - k / EXP_STEPS;   // both exact
    return EXP_TABLE[k] * (1 + r * (-1 + r * (0.5 + r * (-1 / 6 + r * (1 / 24 + r * (-1 / 120 + r * (1 / 720)))))));
  }

  // A key at x_j is in the window of the keys at distinct x u_a when (u_a - x_j)^2 - dmin_a <= K
  // (attention.learn._windows).  Along the sorted distinct x this holds on one run around a, so each end is
  // found by binary search.
  function inWindow(xa, xb, da, K) { const d = xa - xb; return d * d - da <= K; }

  function windowStart(ux, a, da, K) {
    let lo = 0, hi = a;
    while (lo < hi) { const m = (lo + hi) >> 1; if (inWindow(ux[a], ux[m], da, K)) hi = m; else lo = m + 1; }
    return lo;
  }

  function windowEnd(ux, a, da, K) {
    let lo = a, hi = ux.length - 1;
    while (lo < hi) { const m = (lo + hi + 1) >> 1; if (inWindow(ux[a], ux[m], da, K)) lo = m; else hi = m - 1; }
    return lo;
  }

  // attention.learn._bandwidth_eval: the leave-one-out loss and dL/dlog h at log h.  Per key i, with
  // sigma_ij = c ((x_i - x_j)^2 - dmin_i) and e_ij = exp(-sigma_ij) over the window (j != i):
  //   Z = sum e,  A = sum e y,  B = sum e sigma,  C = sum e sigma y;  p_i = A / Z,  r_i = y_i - p_i,
  //   L = (1/n) sum r_i^2,  dL/dlog h = -(4/n) sum_i r_i (C - p_i B) / Z.
  // As in attention.learn._window_sums the sums run over distinct x u_b (count n_b, values summing to Y_b):
  // a key at u_a gets sum over b != a of e_ab [n_b, Y_b] and e_ab sigma_ab [n_b, Y_b], plus the other keys at
  // its own x (sigma = 0, e = 1): n_a - 1 for Z and Y_a - y_i for A.
  function evaluate(P, logH, T) {
    const { yc, group, ux, count, ysum, udmin } = P, n = yc.length, m = ux.length;
    const c = 0.5 * Math.exp(-2.0 * logH) / T, K = WINDOW_SCORE / c;
    const sums = new Float64Array(4 * m);
    for (let a = 0; a < m; a++) {
      const xa = ux[a], da = udmin[a], lo = windowStart(ux, a, da, K), hi = windowEnd(ux, a, da, K);
      let Z = 0, A = 0, B = 0, C = 0;
      for (let b = lo; b <= hi; b++) {
        if (b === a) continue;
        const d = xa - ux[b], s = c * (d * d - da), e = expNeg(s), es = e * s, nb = count[b], yb = ysum[b];
        Z += e * nb; A += e * yb; B += es * nb; C += es * yb;
      }
      sums[4 * a] = Z; sums[4 * a + 1] = A; sums[4 * a + 2] = B; sums[4 * a + 3] = C;
    }
    let rr = 0, rt = 0;
    for (let i = 0; i < n; i++) {
      const a = group[i];
      const Z = sums[4 * a] + (count[a] - 1), A = sums[4 * a + 1] + (ysum[a] - yc[i]);
      const p = A / Z, r = yc[i] - p;
      rr += r * r;
      rt += r * ((sums[4 * a + 3] - p * sums[4 * a + 2]) / Z);
    }
    return { loss: rr / n, grad: (-4.0 / n) * rt };
  }

  // attention.learn._refusal: why a proposed step is refused ("" if it is acceptable)
  function refusal(loss0, loss1, size, sizeName, lr) {
    let why;
    const range = `[${pyG(H_MIN, 6)}, ${pyG(H_MAX, 6)}]`;
    if (!(H_MIN <= size && size <= H_MAX)) why = `${sizeName} would become ${pyG(size, 3)}, outside ${range}`;
    else if (!isFinite(loss1)) why = "the step gave a non-finite loss";
    else if (loss1 > BLOWUP_FACTOR * loss0)
      why = `the loss would jump from ${pyG(loss0, 3)} to ${pyG(loss1, 3)} (more than ${pyG(BLOWUP_FACTOR, 6)}x)`;
    else return "";
    return `step refused: ${why}; ${HINT} (learning rate ${pyG(lr, 6)}, try ${pyG(lr / 10, 6)})`;
  }

  // attention.learn._bandwidth_try: propose log h - lr * grad
  function tryStep(P, logH, loss, grad, lr, T) {
    const next = logH - lr * grad;
    const h1 = isFinite(next) && Math.abs(next) < 700.0 ? Math.exp(next) : Infinity;
    const v = H_MIN <= h1 && h1 <= H_MAX ? evaluate(P, next, T) : { loss: NaN, grad: NaN };
    return { next, loss: v.loss, grad: v.grad, message: refusal(loss, v.loss, h1, "h", lr) };
  }

  function positive(name, v) {
    if (typeof v !== "number" || !isFinite(v) || v <= 0)
      throw new Error(`${name} must be a positive finite number, got ${v}`);
    return v;
  }

  function trainOptions(opt) {
    const o = Object.assign({ learningRate: 2.0, steps: 60, temperature: 1.0 }, opt);
    const h0 = positive("h0", o.h0), lr = positive("learning_rate", o.learningRate);
    const T = positive("temperature", o.temperature);
    if (!(H_MIN <= h0 && h0 <= H_MAX))
      throw new Error(`h0 must lie in [${pyG(H_MIN, 6)}, ${pyG(H_MAX, 6)}], got ${h0}`);
    if (!Number.isInteger(o.steps) || o.steps < 0) throw new Error(`steps must be a whole number >= 0, got ${o.steps}`);
    return { h0, lr, T, steps: o.steps };
  }

  // attention.train_bandwidth(x, y, h0=..., learning_rate=..., steps=..., temperature=...).as_dict():
  // gradient descent on u = log h, u <- u - lr dL/du, stopping at the first refused step.
  function trainBandwidth(x, y, opt) {
    checkXY(x, y);
    const { h0, lr, T, steps } = trainOptions(opt || {});
    const P = sortedData(x, y);
    let u = Math.log(h0), { loss, grad } = evaluate(P, u, T);
    const out = { step: [0], log_h: [u], h: [], loss: [loss], grad: [grad], status: [STATUS_START], message: [""],
                  learning_rate: lr, temperature: T };
    for (let k = 1; k <= steps; k++) {
      const t = tryStep(P, u, loss, grad, lr, T);
      if (!t.message) { u = t.next; loss = t.loss; grad = t.grad; }
      out.step.push(k); out.log_h.push(u); out.loss.push(loss); out.grad.push(grad);
      out.status.push(t.message ? STATUS_DIVERGED : STATUS_OK);
      out.message.push(t.message);
      if (t.message) break;
    }
    out.h = out.log_h.map(Math.exp);
    return out;
  }

  // ---- the learning section's columns (app/learning/view.py, app/learning/text.py) ----------------------

  // text.smaller_preset: the largest learning rate offered below lr (null if none)
  function smallerPreset(lr, presets) {
    let best = null;
    for (const p of presets) if (Number(p) < lr && (best === null || Number(p) > Number(best))) best = p;
    return best;
  }

  // text.refusal_text: the core's refusal as the page shows it (no exponent notation, no "inf"; the hint names a
  // learning rate the page offers)
  function refusalText(message, lr, presets) {
    if (!message) return message;
    const number = (m) => {
      const v = Number(m);
      return Math.abs(v) < 1e-4 ? "almost 0 (below 0.0001)" : "about " + E.plain(v, 3);
    };
    let out = message.replace(/[-+]?\d+(?:\.\d+)?[eE][-+]?\d+/g, number);
    out = out.replace(/outside \[([^,\]]+), ([^\]]+)\]/g, "outside the range $1 to $2");
    out = out.replace(/would become inf\b/g, "would become too large to compute");   // (text.TOO_LARGE)
    const pick = smallerPreset(lr, presets);
    const hint = pick ? `pick ${pick} or less from the list)` : "the list offers no smaller rate)";
    return out.replace(/try [^)]*\)/g, () => hint);
  }

  // view.bandwidth_trajectory_for(x, y, lr): the path from h0 at the learning rate named by the string lr, as
  // the columns the learning engine plays: {h, loss, grad, status, message}.
  // payload: {x, y, lr, h0, steps, presets} (h0, steps and presets from the section's config).
  function trainColumns(payload) {
    const lr = Number(payload.lr);
    const tr = trainBandwidth(payload.x, payload.y, { h0: payload.h0, learningRate: lr, steps: payload.steps });
    return { h: tr.h, loss: tr.loss, grad: tr.grad, status: tr.status,
             message: tr.message.map((m) => refusalText(m, tr.learning_rate, payload.presets)) };
  }

  // The lowest leave-one-out error of the Gaussian kernel (T = 1) over the bandwidths geomspace(lo, hi, count):
  // min over h of attention.loo_error(x, y, bandwidths=...) (app/tour/model.py _lowest_loo, the tour's "near the
  // best h").  Each bandwidth's error comes from the windowed sums of a training step (evaluate), within 1e-15
  // relative of the full n x n sums: at n = 2000 and 241 bandwidths those took a minute of the page's thread.
  // payload: {x, y, grid: [lo, hi, count]}.
  function lowestLoo(payload) {
    checkXY(payload.x, payload.y);
    return lowestLooSorted(sortedData(payload.x, payload.y), payload.grid);
  }

  // the same from data already sorted by sortedData (the tour keeps it for the error at the slider's h)
  function lowestLooSorted(P, [lo, hi, count]) {
    const a = Math.log10(lo), b = Math.log10(hi);
    let best = Infinity;
    for (let g = 0; g < count; g++) {
      const h = 10 ** (count > 1 ? a + (b - a) * g / (count - 1) : a);   // AttnMirror.geomspace's grid
      best = Math.min(best, evaluate(P, Math.log(h), 1).loss);
    }
    return best;
  }

  return { trainBandwidth, trainColumns, evaluate, sortedData, refusal, refusalText, smallerPreset, expNeg,
           lowestLoo, lowestLooSorted, WINDOW_SCORE };
})(AttnNumbers);
