// How the page writes numbers and text, and how it reads its link: Python's number formats (twins of
// app/ui/text.py), HTML escaping, and the URL parser (twin of app/state.py parse_query).  Strings in, strings
// out: no DOM, so a Web Worker runs it too.  ui/common.js carries every function here, as AttnCommon.

const AttnFormat = (function () {
  "use strict";

  // ---- text (twins of app/ui/text.py) ---------------------------------------------------------------

  function esc(s) {
    return String(s).replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[ch]));
  }

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

  // ---- the URL (twin of app/state.py parse_query; the rules come from state.url_rules()) ---------------

  // rules: the patterns, words and notice length of app/state.py (url_rules(), in each engine's config).
  function compile(rules) {
    return { number: new RegExp(rules.number), integer: new RegExp(rules.integer), trueWords: rules.true_words,
             falseWords: rules.false_words, shownMax: rules.shown_max };
  }
  // A value repeated back in a notice: at most `max` characters (code points), then an ellipsis.
  function shorten(text, max) {
    const cps = Array.from(text);
    return cps.length <= max ? text : cps.slice(0, max).join("") + "\u2026";
  }

  const WS = /^[ \t\n\r\f\v]+|[ \t\n\r\f\v]+$/g;

  function parseValue(key, raw, s, R, notices, values) {
    const shown = (text) => shorten(text, R.shownMax);
    if (s.kind === "float" || s.kind === "int") {
      const pattern = s.kind === "float" ? R.number : R.integer;
      if (!pattern.test(raw)) {
        notices.push(`Ignored ${key}=\u201c${shown(raw)}\u201d: not ${s.kind === "float" ? "a number" : "a whole number"}.`);
        return;
      }
      let v = Number(raw);
      if (v < s.lo || v > s.hi) {
        const low = v < s.lo;
        notices.push(`${key}=${shown(raw)} is outside ${s.lo_text} to ${s.hi_text}; using ${low ? s.lo_text : s.hi_text}.`);
        v = low ? s.lo : s.hi;
      }
      values[key] = s.kind === "int" ? Math.trunc(v) : v;
    } else if (s.kind === "bool") {
      const low = raw.toLowerCase();
      if (R.trueWords.includes(low) || R.falseWords.includes(low)) values[key] = R.trueWords.includes(low);
      else notices.push(`Ignored ${key}=\u201c${shown(raw)}\u201d: expected 1 or 0.`);
    } else if (s.kind === "choice") {
      if (s.choices.includes(raw)) values[key] = raw;
      else notices.push(`Ignored ${key}=\u201c${shown(raw)}\u201d: expected one of ${s.choices.join(", ")}.`);
    } else if (s.kind === "tour") {   // a step's number or id, kept as written: the tour resolves it
      values[key] = Array.from(raw).slice(0, s.max).join("");
    } else {
      if (Array.from(raw).length > s.max) { notices.push(`Ignored ${key}: longer than ${s.max} characters.`); return; }
      values[key] = raw;
    }
  }

  function parseQuery(search, spec, rules) {
    const R = compile(rules), grouped = new Map();
    for (const [k, v] of new URLSearchParams(search)) {
      if (!grouped.has(k)) grouped.set(k, []);
      grouped.get(k).push(v);
    }
    const values = {}, notices = [];
    for (const [key, vals] of grouped) {
      if (!Object.prototype.hasOwnProperty.call(spec, key)) {
        notices.push(`Ignored unknown setting \u201c${shorten(key, R.shownMax)}\u201d.`);
        continue;
      }
      if (vals.length > 1) notices.push(`\u201c${key}\u201d was given ${vals.length} times; using the last value.`);
      const raw = vals[vals.length - 1].replace(WS, "");
      if (raw === "" && spec[key].kind === "tour") { values[key] = raw; continue; }   // the tour says so itself
      if (raw === "") { notices.push(`Ignored an empty value for \u201c${key}\u201d.`); continue; }
      parseValue(key, raw, spec[key], R, notices, values);
    }
    return { values, notices };
  }

  return { esc, fixed, general, signed, plain, parseQuery };
})();
