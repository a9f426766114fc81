// The regression section's words in the browser, the twins of app/regression/text.py: the caption, the notices
// that name a limit, the kernel menu's options, the words under the error plot, and numbers in your data's units.
// Pure functions of their arguments: they read no page and write no model.

const RegressionText = (function (U) {
  "use strict";

  const fixed = U.fixed, signed = U.signed, plain = U.plain, clamp = U.clamp;

  function similarityWords(kernel, keyNorm) {
    if (kernel === "gaussian") return "a Gaussian similarity";
    if (!keyNorm) return "a dot-product similarity on circle keys of equal length";
    return `a dot-product similarity on circle keys with key-norm tilt ${signed(keyNorm, 2)}, so keys further ` +
      `${keyNorm > 0 ? "right" : "left"} are longer`;
  }

  // units: on your own data, the query and h as the data's units write them (unitsWords); null otherwise
  function caption(r, kernel, h, t, keyNorm, units) {
    const sim = similarityWords(kernel, keyNorm || 0);
    const temp = t === 1 ? "" : `, T = ${plain(t, 3)}`;
    const truth = r.true_value === null ? "" : ` (true value ${signed(r.true_value, 2)})`;
    const where = units ? `${units.x_name} = ${units.query}` : `x = ${signed(r.query, 2)}`;
    const hw = units ? `${units.h} on the ${units.x_name} axis` : plain(h, 3);
    return `A query at ${where} averages the ${r.n} samples with softmax weights of ${sim} ` +
      `(h = ${hw}${temp}). The largest weight is ${fixed(r.max_weight, 3)}, the weights spread over about ` +
      `${fixed(r.effective_points, 1)} effective points, and the prediction is ${signed(r.prediction, 2)}${truth}.`;
  }

  // The sample with the largest weight, and whether it is (one of) the nearest to the query
  // (twin of heaviest_sample in app/regression/text.py).
  function heaviestSample(q, xs, ys, w) {
    let i = 0, nearest = Infinity;
    for (let j = 0; j < w.length; j++) if (w[j] > w[i]) i = j;
    for (const k of xs) nearest = Math.min(nearest, Math.abs(k - q));
    return { x: xs[i], y: ys[i], index: i, nearest: Math.abs(xs[i] - q) <= nearest + 1e-9 };
  }

  // limits: the thresholds of app/regression/text.py (config.limits).  Every claim is checked against the
  // numbers: `heaviest` at the query, `curve` along the prediction curve (the facts of AttnMirror.gridCurves).
  // at: how a sample's position is written ("x = 2.10" by default; on your own data, in its units)
  function limitNotices(r, heaviest, curve, limits, keyNorm, at) {
    const out = [], mw = `Max weight ${fixed(r.max_weight, 3)}`;
    const why = "a dot product rewards a key's length as well as its direction";
    if (r.max_weight >= limits.one_sample) {
      const hx = (at || ((v) => `x = ${signed(v, 2)}`))(heaviest.x), hy = signed(heaviest.y, 2);
      let flat = curve.sharp_share >= limits.sharp_share;
      if (curve.winners === 1) {
        flat = curve.flat_share >= limits.sharp_share && Math.abs(r.prediction - heaviest.y) <= limits.flat_tol;
        const where = heaviest.nearest ? " (here it is also the nearest sample)" : ", which is not the nearest one";
        const words = flat ? `The prediction curve is flat at its value, ${hy}.` : `The prediction curve leans towards its value, ${hy}.`;
        out.push(`${mw}, on the sample at ${hx}${where}: its key is longer than the keys nearer the query, ` +
          `and ${why}, so this sample wins wherever the query is. ${words}`);
      } else if (heaviest.nearest && curve.nearest_share >= 1.0) {
        out.push(flat ? `${mw}: the query copies its nearest sample (1-nearest-neighbour), and the prediction curve turns into steps.`
          : `${mw}: the query copies its nearest sample (1-nearest-neighbour) here; elsewhere along x the weights still spread over more than one sample.`);
      } else if (heaviest.nearest) {
        out.push(`${mw}: the query copies its nearest sample here, but elsewhere along x a longer key further ` +
          `${keyNorm > 0 ? "right" : "left"} wins over nearer ones, because ${why}.`);
      } else {
        out.push(`${mw}, on the sample at ${hx}, which is not the nearest one: its key is longer than the keys ` +
          `nearer the query, and ${why}. The prediction is close to that sample's value, ${hy}.`);
      }
    }
    if (r.effective_points >= limits.near_uniform * r.n)
      out.push(`${fixed(r.effective_points, 1)} of ${r.n} effective points: the weights are nearly uniform, ` +
        `so the prediction flattens toward the global mean (${signed(r.global_mean, 2)}).`);
    return out;
  }

  // What a screen reader hears once the readouts rest after a move (the page's polite live region).
  function announcement(r) {
    return `max weight ${fixed(r.max_weight, 3)}, effective points ${fixed(r.effective_points, 1)} of ${r.n}, ` +
      `prediction ${signed(r.prediction, 2)}`;
  }

  // The kernel menu's options (twin of kernel_options in app/regression/text.py): the dot product is called
  // "equal-norm keys" only while the key-norm tilt is 0.
  function kernelOptions(labels, keyNorm) {
    return [["gaussian", labels.gaussian], ["dot", labels[keyNorm ? "dot_tilted" : "dot"]]];
  }

  // The words under the error plot (twin of bias_note in app/regression/text.py, from the same templates).
  function biasNote(note, noise, own) {
    if (own) return note.own;
    const sigma = noise === null || noise === undefined ? "" :
      note.sigma.split("{sigma}").join(plain(noise, 3)).split("{sigma2}").join(plain(noise * noise, 3));
    return note.truth.split("{sigma}").join(sigma);
  }

  // Where the error plot's curves are lowest over the bandwidths hs, and where its marker h·√T stands (twin of
  // error_words in app/regression/text.py, from the same templates: words).  error: null without a true function;
  // "" while a curve is not worked out (NaN).  hText writes a bandwidth (in the data's units on your own data).
  function errorWords(words, hs, loo, error, marker, hText) {
    const out = [];
    for (const [key, ys] of [["loo", loo], ["error", error]]) {
      if (ys === null || ys === undefined) continue;
      if (!ys.length || Array.from(ys).some((v) => Number.isNaN(v))) return "";
      let i = 0;
      for (let j = 1; j < ys.length; j++) if (ys[j] < ys[i]) i = j;
      out.push(words[key].split("{v}").join(plain(ys[i], 3)).split("{h}").join(hText(hs[i])));
    }
    return out.length ? out.concat([words.marker.split("{h}").join(hText(marker))]).join(" ") : "";
  }

  // A position in the data's units: decimals that tell apart two positions a six-hundredth of the data's span
  // apart; a length (a bandwidth): three significant digits.  Never exponent notation.  (Twins of unit_text and
  // length_text in app/regression/text.py.)
  function unitDecimals(span) { return clamp(Math.ceil(-Math.log10(span / 600)), 0, 12); }
  function unitText(v, span) { return signed(v, unitDecimals(span)); }
  function lengthText(v) {
    if (v >= 1e-4 || v <= 0) return plain(v, 3);
    return fixed(v, Math.min(2 - Math.floor(Math.log10(v)), 20));
  }

  return { similarityWords, caption, heaviestSample, limitNotices, announcement, kernelOptions, biasNote, errorWords,
           unitText, lengthText };
})(AttnCommon);
