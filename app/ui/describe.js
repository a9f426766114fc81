// What a screen reader hears of each figure: its description, on the plot's host element (its html_attributes,
// which BokehJS keeps through every re-render; app/sections.py name_figures gave it its role and name).
// A section that says more of a figure (the main plot's caption, app/regression/querytexts.js) writes its own and
// tells this file so (`own`); every other figure is described from what it draws: its axes and their ranges, and
// how many points each of its data sources holds, after the words of the text its section declares for it (its
// readouts: app/contract.py said_with).  Written once the page rests after a change (a drag changes the
// data every frame): a change the document hears, or any message on the page's bus.

const AttnDescribe = (function (F) {
  "use strict";

  const REST_MS = 600;
  const S = { doc: null, owned: new Set(), timer: null, dirty: new Set(), formats: new Map() };

  // A range in words: "from −0.50 to 6.50", or for words on an axis "5 words, bank to loan".  words: how the
  // axis writes a number, where its ticks are not the range's own numbers (your data's units, see `units`).
  function rangeWords(r, words) {
    if (!r) return "";
    if (Array.isArray(r.factors)) {
      const f = r.factors.map(String);
      return f.length ? `${f.length} ${f.length === 1 ? "word" : "words"}, ${f[0]} to ${f[f.length - 1]}` : "no words";
    }
    const say = words || ((v) => F.plain(v, 3));
    return Number.isFinite(r.start) && Number.isFinite(r.end) ? `from ${say(r.start)} to ${say(r.end)}` : "";
  }

  function axisOf(plot, side) { return (plot[side] || []).find((a) => a && a.formatter !== undefined) || null; }

  function axisWords(plot, side) {
    const axis = axisOf(plot, side), words = axis ? S.formats.get(axis.formatter) : null;
    return words ? (v) => words(v) || F.plain(v, 3) : null;
  }

  function axisLabel(plot, side) {
    for (const a of plot[side] || []) {
      const t = a && a.axis_label;
      if (typeof t === "string" && t.trim()) return t.trim();
      if (t && typeof t.text === "string" && t.text.trim()) return t.text.trim();
    }
    return side === "below" ? "x" : "y";
  }

  // The description of a plot from what it draws (a pure function of the model; tests/browser checks it).
  function describe(plot) {
    const parts = [];
    const x = rangeWords(plot.x_range, axisWords(plot, "below")), y = rangeWords(plot.y_range, axisWords(plot, "left"));
    if (x) parts.push(`${axisLabel(plot, "below")} ${x}`);
    if (y) parts.push(`${axisLabel(plot, "left")} ${y}`);
    const seen = new Set(), series = [], labels = [];
    for (const r of plot.renderers || []) {
      const src = r && r.visible !== false ? r.data_source : null;
      if (!src || !src.data) continue;
      labels.push(...labelsOf(r.glyph, src));
      if (seen.has(src)) continue;
      seen.add(src);
      const n = typeof src.get_length === "function" ? src.get_length() : null;
      if (n) series.push(`${n} ${n === 1 ? "point" : "points"}`);
    }
    const drawn = series.length ? ` It draws ${series.join(", ")}.` : "";
    // (a plot that writes more, a matrix's cells, says them in its table: "Show its numbers")
    const written = labels.length && labels.length <= LABELS_SAID ?
      ` It writes ${labels.map((t) => `\u201c${t}\u201d`).join(", ")}.` : "";
    return parts.length ? `Axes: ${parts.join("; ")}.${drawn}${written}` : "";
  }

  // The words a text glyph writes on the plot (a label "this sentence\nn = 12" as "this sentence, n = 12"), said
  // where a plot writes at most LABELS_SAID of them.
  const LABELS_SAID = 6;
  function labelsOf(glyph, src) {
    const spec = glyph ? glyph.text : null, col = spec && typeof spec.field === "string" ? src.data[spec.field] : null;
    if (!col || typeof col.length !== "number") return [];
    return Array.from(col).filter((t) => typeof t === "string" && t.trim())
      .map((t) => t.trim().split(/\s*\n\s*/).join(", "));
  }

  // The words of a text the section writes from the state (a Div's HTML, which the page's own engines build and
  // escape), as one plain sentence: parsed inert (DOMParser runs no script and loads nothing); a table's cells
  // one space apart and its rows a semicolon apart, paragraphs a space apart; a full stop at the end.
  function plainWords(html) {
    if (typeof html !== "string" || !html || typeof DOMParser !== "function") return "";
    const doc = new DOMParser().parseFromString(html, "text/html");
    if (!doc.body) return "";
    for (const el of doc.body.querySelectorAll("th, td, p, div, li, br, h1, h2, h3, h4")) el.append(" ");
    for (const tr of doc.body.querySelectorAll("tr")) tr.append("; ");
    const words = doc.body.textContent.replace(/\s+/g, " ").replace(/ ;/g, ";").replace(/[;,\s]+$/, "").trim();
    return !words || /[.!?]$/.test(words) ? words : `${words}.`;
  }

  // A figure's description: the state in the words of its section's text (app/contract.py said_with), if it
  // declares one, then what it draws.
  function write(plot) {
    const have = plot.html_attributes || {}, withName = have["data-said-with"];
    const said = withName && S.doc ? S.doc.get_model_by_name(withName) : null;
    const words = said ? plainWords(said.text) : "", drawn = describe(plot);
    const text = words && drawn ? `${words} ${drawn}` : words || drawn;
    if (text && have["aria-description"] !== text)
      plot.html_attributes = Object.assign({}, have, { "aria-description": text });
  }

  function plots(doc) {
    return Array.from(doc.all_models).filter((m) => m && m.name && Array.isArray(m.renderers) && m.x_range &&
      !S.owned.has(m.name));
  }

  function flush() {
    S.timer = null;
    if (!S.doc) return;
    const dirty = S.dirty;
    S.dirty = new Set();
    for (const p of plots(S.doc)) {
      if (dirty.has("*") || dirty.has(p) || dirty.has(p.x_range) || dirty.has(p.y_range) ||
          (p.renderers || []).some((r) => dirty.has(r.data_source))) write(p);
    }
  }

  function soon(what) {
    S.dirty.add(what);
    if (S.timer !== null) clearTimeout(S.timer);
    S.timer = setTimeout(flush, REST_MS);
  }

  // Describe the document's figures now, and again whenever their data or ranges have changed and rested.
  // (The loader calls it when a block has been drawn: its figures are new in the document.)
  function start(doc) {
    if (!doc) return;
    if (S.doc !== doc) {
      S.doc = doc;
      doc.on_change((ev) => {
        const m = ev && ev.model, attr = ev && ev.attr;
        if (!m) return;
        if (attr === "data" || attr === "start" || attr === "end" || attr === "factors") soon(m);
        else if (attr === "text") soon("*");   // a section's text, which a figure's description may begin with
      });
    }
    soon("*");
  }

  // A section published on the page's bus (app/ui/common.js publish): its engines write their figures quietly
  // (no document event), so every figure is looked at again once the page rests.
  function changed(doc) { if (S.doc && doc === S.doc) soon("*"); }

  // A section writes this figure's description itself.
  function own(name) { S.owned.add(name); }

  // A tick formatter whose labels are not the axis's own numbers (your data's units, app/regression/units.js):
  // every axis that writes its ticks with it says its range's ends in the same words (words(v); "" for the
  // plain number).
  function units(formatter, words) {
    if (!formatter) return;
    if (words) S.formats.set(formatter, words); else S.formats.delete(formatter);
    soon("*");
  }

  return { start, changed, own, units, describe, rangeWords, plainWords };
})(AttnFormat);
