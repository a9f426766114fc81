// The seeded dataset generator: twin of attention.make_dataset (attention/datasets.py), whose docstring
// states the recipe.  The same seed gives the same samples here as in Python: the random numbers come from
// xoshiro128** seeded through splitmix32, on 32-bit integers (Math.imul and >>> 0), and every double
// operation is written in the core's order; tests/browser/test_compute_parity.py holds the samples to the
// core's (within 1e-12) and the description to Python's, character for character.
// Needs AttnMirror (the true functions) and AttnNumbers (attention/numbers.js: Python's :g format); no DOM.

const AttnGenerator = (function (M, E) {
  "use strict";

  const MAX_N = 2000;                 // attention.datasets.MAX_GENERATED_N
  const SEED_MAX = 4294967295;        // attention.datasets.SEED_MAX (2^32 - 1)
  const X_RANGE = [0.0, 6.0];         // make_dataset's default x_range
  // attention.datasets.FUNCTIONS: the formulas as printed (the functions themselves are AttnMirror's)
  const FORMULAS = {
    wave: "f(x) = 0.5 sin(2x) + 0.5 cos(3x)",
    bump: "f(x) = 1.5 exp(-(x - 3)^2 / 2) - 0.5",
    step: "f(x) = -0.5 for x < 2, 0.5 for 2 <= x < 4, -0.5 for x >= 4",
    sine: "f(x) = sin(x)",
  };

  // attention.datasets._splitmix32: [new state, output], mod 2^32
  function splitmix32(state) {
    const next = (state + 0x9e3779b9) >>> 0;
    let z = next;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return [next, (z ^ (z >>> 16)) >>> 0];
  }

  function rotl(v, k) { return ((v << k) | (v >>> (32 - k))) >>> 0; }

  // attention.datasets._xoshiro128ss: count 32-bit outputs from the state [s0, s1, s2, s3]
  function xoshiro128ss(state, count) {
    let [s0, s1, s2, s3] = state;
    const out = new Array(count);
    for (let k = 0; k < count; k++) {
      out[k] = Math.imul(rotl(Math.imul(s1, 5) >>> 0, 7), 9) >>> 0;
      const t = (s1 << 9) >>> 0;
      s2 = (s2 ^ s0) >>> 0;
      s3 = (s3 ^ s1) >>> 0;
      s1 = (s1 ^ s2) >>> 0;
      s0 = (s0 ^ s3) >>> 0;
      s2 = (s2 ^ t) >>> 0;
      s3 = rotl(s3, 11);
    }
    return out;
  }

  // attention.datasets._uniforms: count doubles in [0, 1), each from two outputs' 27 and 26 high bits
  function uniforms(seed, count) {
    let st = seed;
    const state = [];
    for (let k = 0; k < 4; k++) {
      const [next, z] = splitmix32(st);
      st = next;
      state.push(z);
    }
    const w = xoshiro128ss(state, 2 * count), u = new Float64Array(count);
    for (let k = 0; k < count; k++) u[k] = ((w[2 * k] >>> 5) * 67108864 + (w[2 * k + 1] >>> 6)) / 9007199254740992;
    return u;
  }

  // numpy's rint: round half to even, keeping the sign of a zero
  function rint(t) {
    const f = Math.floor(t), d = t - f;   // exact for every double that is not already whole
    const r = d < 0.5 ? f : d > 0.5 ? f + 1 : (f % 2 === 0 ? f : f + 1);
    return r === 0 && (t < 0 || Object.is(t, -0)) ? -0 : r;
  }

  // numpy's np.round(v, 2): rint(v * 100) / 100
  function round2(v) { return rint(v * 100) / 100; }

  // make_dataset's checks, with its messages (a number shown as Python's repr would show it)
  function check(fn, n, noise, seed) {
    if (typeof fn !== "string" || !Object.prototype.hasOwnProperty.call(FORMULAS, fn))
      throw new Error(`function must be one of ${Object.keys(FORMULAS).map((k) => `'${k}'`).join(", ")}, ` +
                      `got ${typeof fn === "string" ? `'${fn}'` : String(fn)}`);
    if (typeof n !== "number" || !Number.isInteger(n) || n < 2 || n > MAX_N)
      throw new Error(`n must be a whole number from 2 to ${MAX_N}, got ${String(n)}`);
    if (typeof noise !== "number" || !isFinite(noise) || noise < 0 || noise > 10)
      throw new Error(`noise must be a number from 0 to 10, got ${String(noise)}`);
    if (typeof seed !== "number" || !Number.isInteger(seed) || seed < 0 || seed > SEED_MAX)
      throw new Error(`seed must be a whole number from 0 to ${SEED_MAX}, got ${String(seed)}`);
  }

  // attention.make_dataset(fn, n, noise, seed) on x in [0, 6]:
  //   x_i = round(lo + (i + 1/2) s + (a + (b - a) u_i), 2),  s = (hi - lo) / n,  a = -0.4 s,  b = 0.4 s;  sorted
  //   y_i = round(f(x_i) + noise sqrt(-2 log(1 - v_i)) cos(2 pi w_i), 2)
  // Returns {x, y, function, noise, description} (x, y plain arrays).
  function makeDataset(fn, n, noise, seed) {
    check(fn, n, noise, seed);
    const f = M.trueFunction(fn), [lo, hi] = X_RANGE;
    const u = uniforms(seed, 3 * n), s = (hi - lo) / n, a = -0.4 * s, b = 0.4 * s;
    const x = new Float64Array(n);
    for (let i = 0; i < n; i++) x[i] = round2(lo + (i + 0.5) * s + (a + (b - a) * u[i]));
    x.sort();
    const y = new Array(n);
    for (let i = 0; i < n; i++) {
      const z = Math.sqrt(-2.0 * Math.log(1.0 - u[n + 2 * i])) * Math.cos(2.0 * Math.PI * u[n + 2 * i + 1]);
      y[i] = round2(f(x[i]) + noise * z);
    }
    const description = `${n} samples of ${FORMULAS[fn]} with noise ${E.general(noise, 6)} (seed ${seed})`;
    return { x: Array.from(x), y, function: fn, noise, description };
  }

  return { makeDataset, uniforms, xoshiro128ss, splitmix32, round2, MAX_N, SEED_MAX, FORMULAS };
})(AttnMirror, AttnNumbers);
