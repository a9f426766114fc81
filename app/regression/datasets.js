// The regression section's data: a shipped dataset, the seeded generator's samples (attention/generator.js, the twin of
// attention.make_dataset) or yours (owndata.js) are read from the data source, and what follows the data around
// the plots (the axes' units, the legend, the error plot's words, the own-data box's buttons, the address) is
// set with them.

const RegressionDatasets = (function (U, T, A, N, R, V) {
  "use strict";

  const esc = U.esc, clamp = U.clamp, setWidget = U.setWidget, setHtml = U.setHtml;
  const { biasNote } = T;
  const { setHash, publishLink } = A;
  const { unitsOf, relabel } = N;
  const { showLimits } = R;
  const { markerAlpha } = V;

  function loadData(a, c) {
    c.loadedData = a.ds.data;
    c.x = Array.from(a.ds.data.x);
    c.y = Array.from(a.ds.data.y);
    const n = c.x.length;
    c.xs = Float64Array.from(c.x); c.ys = Float64Array.from(c.y);    // what the plots are handed
    c.alpha = new Float64Array(n).fill(markerAlpha(n));
    // honest scales: entropy runs from 0 (one sample) to log2 n (uniform), whatever the query
    if (a.ent_range) {
      const top = Math.log2(Math.max(n, 2));
      setWidget(a.ent_range, "start", 0);
      setWidget(a.ent_range, "end", top * 1.04);
    }
    let meta = {};
    try { meta = JSON.parse(a.ds.tags[0] || "{}"); } catch (e) { meta = {}; }
    c.fn = meta.function || null;
    c.noise = meta.noise === undefined ? null : meta.noise;
    c.describe = meta.description || "";
    c.units = meta.name === "yours" && meta.scale ? unitsOf(a, meta) : null;
    c.looHere = null;
    const scaled = c.units && c.units.scale.sentence ? `<p class="dataset">${esc(c.units.scale.sentence)}</p>` : "";
    // straight into the page: a Div's new text through Bokeh re-lays out the whole document (300-700 ms here)
    if (a.dataset_div) setHtml(a.dataset_div, `<p class="dataset">${esc(c.describe)}</p>${scaled}`);
    showYoursAround(a, c);
  }

  function swapDataset(a, c, name) {
    const d = c.cfg.datasets[name];
    if (!d) return false;
    a.ds.tags = [JSON.stringify({ name, function: d.function, noise: d.noise, description: d.description })];
    a.ds.data = { x: d.x, y: d.y };
    if (c.loadedData !== a.ds.data) loadData(a, c);
    return true;
  }

  // Whatever shows, around it: the axes' units, the legend, the bias-variance note, the box's buttons, the address.
  function showYoursAround(a, c) {
    relabel(a, c);
    showLimits(a, c);
    errorWords(a, c);
    formButtons(a, c);
    setHash(a, c);
    publishLink(a, c);
  }

  // The error plot's title, legend and words follow the data: bias² and variance need a true function and a known
  // noise, which your own data do not have, so there the plot shows the leave-one-out error alone and says why.
  function errorWords(a, c) {
    const own = !!c.units, b = c.cfg.bias, fig = a.figs[4];
    if (fig && fig.title) setWidget(fig.title, "text", b.titles[own ? "own" : "truth"]);
    if (a.bias_legend && a.bias_legend.tags.length === 2) setHtml(a.bias_legend, a.bias_legend.tags[own ? 1 : 0]);
    setHtml(a.bias_note, biasNote(b.note, c.noise, own));
  }

  function formButtons(a, c) {
    if (!c.form) return;
    const showing = !!c.units;
    c.form.back.hidden = !showing;
    c.form.save.hidden = !(showing && typeof globalThis.__attnSkeleton === "string");
  }

  // ---- the seeded generator (attention/generator.js, the twin of attention.make_dataset) ---------------------

  // A typed number as a sentence writes it: a negative one with the true minus (the link keeps "-").
  const said = (v) => String(v).replace(/-/g, "\u2212");

  // fn, n, noise and seed from the generator's fields, each kept within its deep-link bounds; a value that
  // cannot be used gets a notice naming it (n is typed freely: 5000 becomes 2000, and the page says so).
  function generatorValues(a, c) {
    const spec = c.cfg.spec, notes = [];
    const fields = { fn: a.g_fn.value, n: a.g_n.value, noise: a.g_noise.value, seed: a.g_seed.value };
    const out = {};
    for (const k of c.cfg.generator_keys) {
      const s = spec[k], v = fields[k];
      if (s.kind === "choice") { out[k] = s.choices.includes(v) ? v : s.default; continue; }
      if (v === null || v === undefined || !isFinite(v)) { out[k] = c.gen ? c.gen[k] : s.default; continue; }
      const kept = clamp(s.kind === "int" ? Math.round(v) : v, s.lo, s.hi);
      if (kept !== v) notes.push(k === "n" ? `n = ${said(v)} is outside what the generator draws (${s.lo_text} to ${s.hi_text} samples); it uses n = ${said(kept)}.`
                                           : `${k} = ${said(v)} is outside ${s.lo_text} to ${s.hi_text}; it uses ${said(kept)}.`);
      out[k] = kept;
    }
    return { values: out, notes };
  }

  // Draw the generator's samples into the data source (the same samples as Python for the same values).
  function generate(a, c, values) {
    const G = typeof AttnGenerator !== "undefined" ? AttnGenerator : null;   // attention/generator.js, in this engine's code
    if (!G) return false;
    const d = G.makeDataset(values.fn, values.n, values.noise, values.seed);
    c.gen = values;
    for (const [k, w] of [["fn", a.g_fn], ["n", a.g_n], ["noise", a.g_noise], ["seed", a.g_seed]]) setWidget(w, "value", values[k]);
    a.ds.tags = [JSON.stringify({ name: "generated", function: d.function, noise: d.noise, description: d.description })];
    a.ds.data = { x: Array.from(d.x), y: Array.from(d.y) };
    setWidget(a.w_dataset, "value", "generated");
    if (c.loadedData !== a.ds.data) loadData(a, c);
    return true;
  }

  return { loadData, swapDataset, formButtons, generatorValues, generate };
})(AttnCommon, RegressionText, RegressionAddress, RegressionUnits, RegressionQueryTexts,
   RegressionViews);
