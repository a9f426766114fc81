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
  const S = { doc: null, owned: new Set(), timer: null, dirty: new Set() };

  // A range in words: "from −0.50 to 6.50", or for words on an axis "5 words, bank to loan".
  function rangeWords(r) {
    if (!r) return "";
    if (Array.isArray(r.factors)) {
      const f = r.factors.map(String);
      return f.length ? `${f.length} ${f.length === 1 ? "word" : "words"}, ${f[0]} to ${f[f.length - 1]}` : "no words";
    }
    return Number.isFinite(r.start) && Number.isFinite(r.end) ? `from ${F.plain(r.start, 3)} to ${F.plain(r.end, 3)}` : "";
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
    const x = rangeWords(plot.x_range), y = rangeWords(plot.y_range);
    if (x) parts.push(`${axisLabel(plot, "below")} ${x}`);
    if (y) parts.push(`${axisLabel(plot, "left")} ${y}`);
    const seen = new Set(), series = [];
    for (const r of plot.renderers || []) {
      const src = r && r.visible !== false ? r.data_source : null;
      if (!src || !src.data || seen.has(src)) continue;
      seen.add(src);
      const n = typeof src.get_length === "function" ? src.get_length() : null;
      if (n) series.push(`${n} ${n === 1 ? "point" : "points"}`);
    }
    const drawn = series.length ? `; it draws ${series.join(", ")}` : "";
    return parts.length ? `${parts.join("; ")}${drawn}.` : "";
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
    const text = words && drawn ? `${words} ${drawn.charAt(0).toUpperCase()}${drawn.slice(1)}` : words || drawn;
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

  return { start, changed, own, describe, rangeWords, plainWords };
})(AttnFormat);
