// How the page writes numbers and text, and how it reads its link: Python's number formats (attention/numbers.js,
// handed on), HTML escaping (twin of app/ui/text.py), and the URL parser (twin of app/state.py parse_query).  Strings in, strings
// out: no DOM, so a Web Worker runs it too.  ui/common.js carries every function here, as AttnCommon.

const AttnFormat = (function (N) {
  "use strict";

  // ---- text (twins of app/ui/text.py) ---------------------------------------------------------------

  function esc(s) {
    return String(s).replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[ch]));
  }

  const { fixed, general, signed, plain } = N;   // attention/numbers.js

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
})(AttnNumbers);
