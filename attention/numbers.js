// Numbers as the page writes them: Python's number formats (fixed, :g) and numbers as students read them (plain,
// the typographic minus), twins of attention/numbers.py.  Numbers in, strings out: no DOM, so a Web Worker runs it
// too; the core's JS twins (train.js, generator.js) write their messages with it, and app/ui/format.js hands it on.

const AttnNumbers = (function () {
  "use strict";

  // Python's f"{v:.{d}f}", including round-half-even on exact binary ties.
  function fixed(v, d) {
    let s = v.toFixed(d);
    if (Object.is(v, -0)) return "-" + s;  // Python keeps the sign of -0.0
    const m = Math.abs(v) * 10 ** d;
    // m is rounded, so m = k + 0.5 can also come from a double just beside a
    // decimal tie (0.005 is 0.00500000000000000010...); the exact decimal
    // expansion (toFixed is exact) tells a true tie from a near one.
    const exact = Math.abs(v).toFixed(d + 30);
    if (m - Math.floor(m) === 0.5 && Math.floor(m) % 2 === 0 && /^50*$/.test(exact.slice(exact.indexOf(".") + 1 + d))) {
      s = (Math.sign(v) * Math.floor(m) / 10 ** d).toFixed(d);
      if (v < 0 && !s.startsWith("-")) s = "-" + s;
    }
    return s;
  }

  // Python's f"{v:.{p}g}"
  function general(v, p) {
    if (v === 0) return Object.is(v, -0) ? "-0" : "0";
    if (!isFinite(v)) return String(v);
    const e = Number(v.toExponential(p - 1).split("e")[1]);
    if (e >= -4 && e < p) {
      let s = fixed(v, Math.max(p - 1 - e, 0));
      if (s.includes(".")) s = s.replace(/0+$/, "").replace(/\.$/, "");
      return s;
    }
    let [mant, ex] = v.toExponential(p - 1).split("e");
    if (mant.includes(".")) mant = mant.replace(/0+$/, "").replace(/\.$/, "");
    const sign = ex[0] === "-" ? "-" : "+";
    ex = ex.replace(/^[+-]/, "");
    return mant + "e" + sign + (ex.length < 2 ? "0" + ex : ex);
  }

  function signed(v, d) {
    const s = fixed(v, d);
    return s.startsWith("-") ? "\u2212" + s.slice(1) : s;
  }

  // A number as students read it (twin of plain in app/ui/text.py): about p significant digits, never
  // exponent notation: 1000 stays "1000", 58 700 000 is "58.7 million", a number below 0.0001 is
  // "\u2248 0", and a negative number takes the typographic minus.
  const BIG_WORDS = [[1e12, "trillion"], [1e9, "billion"], [1e6, "million"]];
  function plain(v, p) {
    if (p === undefined) p = 3;
    if (Number.isNaN(v)) return "not a number";
    if (!isFinite(v)) return (v > 0 ? "" : "\u2212") + "infinity";
    if (v === 0) return "0";
    const a = Math.abs(v), sign = v < 0 ? "\u2212" : "";
    for (const [size, word] of BIG_WORDS) if (a >= size) return `${sign}${plain(a / size, p)} ${word}`;
    if (a < 1e-4) return "\u2248 0";
    const e = Number(a.toExponential(p - 1).split("e")[1]);
    if (e >= p) return sign + fixed(a, 0);
    let s = fixed(a, Math.max(p - 1 - e, 0));
    if (s.includes(".")) s = s.replace(/0+$/, "").replace(/\.$/, "");
    return sign + s;
  }

  return { fixed, general, signed, plain };
})();
