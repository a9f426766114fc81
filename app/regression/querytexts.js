// The regression section's texts that follow the query: the strip, the readout table, the caption, the notices
// that name a limit and what a screen reader hears, with the leave-one-out error they show on your own data; and
// the limits' legend, the notices and the errors under the plot.  Nothing the user types is ever inserted as HTML: every text goes through
// esc().

const RegressionQueryTexts = (function (M, U, T, A, N) {
  "use strict";

  const esc = U.esc, fixed = U.fixed, signed = U.signed, plain = U.plain;
  const setWidget = U.setWidget, setHtml = U.setHtml, quiet = U.quiet;
  const { caption, heaviestSample, limitNotices, announcement, unitText, errorWords, lengthText } = T;
  const { scheduleUrl } = A;
  const { unitsWords } = N;

  const D = typeof AttnUserData !== "undefined" ? AttnUserData : null;   // ui/userdata.js, on the page

  function queryTexts(a, c, r) {
    const q = r.query, n = c.x.length, w = r.weights, u = c.units;
    // (a newer query, waiting for the next frame, writes the slider when it is drawn: this one is stale)
    if (a.w_query.value !== q && c.query === q) { quiet(a.w_query, "value", q); c.queryDirty = true; c.sliderWrite = q; }
    const err = r.true_value === null ? null : r.prediction - r.true_value;
    const row = (k, v, extra) => `<tr><th scope="row">${k}</th><td>${v}</td>${extra ? `<td class="extra">${extra}</td>` : "<td></td>"}</tr>`;
    setHtml(a.strip_div, `<p class="strip">max weight <b>${fixed(r.max_weight, 3)}</b> \u00b7 effective points ` +
      `<b>${fixed(r.effective_points, 1)}</b> of ${n} \u00b7 prediction <b>${signed(r.prediction, 2)}</b></p>`);
    // on your own data no true f(x) is known: the error is the leave-one-out error at h·√T (looHere)
    const truth = u ? row(esc(c.cfg.own.loo), c.looHere === null ? "\u2026" : plain(c.looHere, 3))
      : row("true f(x)", r.true_value === null ? "unknown" : signed(r.true_value, 2)) +
        row("error", err === null ? "\u2013" : signed(err, 2));
    setHtml(a.readout_div,
      `<table class="readouts" aria-label="readouts">` +
      row("max weight", fixed(r.max_weight, 3)) +
      row("entropy", `${fixed(r.entropy_bits, 2)} bits`, `of ${fixed(Math.log2(n), 2)}`) +
      row("effective points", fixed(r.effective_points, 1), `of ${n}`) +
      row(u ? `prediction (${esc(u.yName)})` : "prediction", signed(r.prediction, 2)) + truth +
      `</table>`);
    const tilt = c.kernel === "dot" ? c.key_norm : 0;
    c.captionText = caption(r, c.kernel, c.h, c.t, tilt, u ? unitsWords(c, q, c.h) : null);
    setHtml(a.caption_div, `<p class="caption">${esc(c.captionText)}</p>`);
    c.queryWords = u ? `${u.xName} = ${unitText(D.toUnits(u.scale, q), u.span)}` : `x = ${signed(q, 2)}`;
    if (c.plotSays) c.plotSays(q, c.queryWords);   // the main plot, as a slider of the query (controls.js)
    const at = u ? (v) => `${u.xName} = ${unitText(D.toUnits(u.scale, v), u.span)}` : undefined;
    const notes = c.curveFacts ? limitNotices(r, heaviestSample(q, c.x, c.y, w), c.curveFacts, c.cfg.limits, tilt, at) : [];
    setHtml(a.limits_div, notes.map((s) => `<p class="limit">${esc(s)}</p>`).join(""));
    c.limitTexts = notes;
    announce(a, c, r);
    scheduleUrl(a, c);
  }

  // Screen readers hear the readouts politely, and not at every frame of a drag: the live region is written
  // once the numbers have rested for ANNOUNCE_MS, and at most once every ANNOUNCE_MAX_MS while they keep moving.
  const ANNOUNCE_MS = 600, ANNOUNCE_MAX_MS = 2000;
  function announce(a, c, r) {
    c.toAnnounce = announcement(r);
    if (c.lastSaid === undefined) { c.lastSaid = c.toAnnounce; c.lastSaidActs = U.acted(); }   // the opening's
    const now = performance.now();
    if (c.announceTimer) clearTimeout(c.announceTimer);
    const say = () => {
      c.announceTimer = null;
      c.announcedAt = performance.now();
      describeMain(a, c.captionText);
      // only after the student has acted (as common.js sayWhenSettled): the opening readouts are read with the
      // page, not announced, nor words said already with no act since (a block drawn later writes them again)
      const acts = U.acted();
      if (!acts || (c.toAnnounce === c.lastSaid && acts === c.lastSaidActs)) return;
      c.lastSaid = c.toAnnounce;
      c.lastSaidActs = acts;
      // a limit the readouts reach is said with them, once, when it is new (the notices under the plot stay)
      const limits = (c.limitTexts || []).join(" "), fresh = limits && limits !== c.saidLimits;
      c.saidLimits = limits;
      setHtml(a.announce_div, `<p>${esc(c.toAnnounce)}</p>` + (fresh ? `<p>${esc(limits)}</p>` : ""));
    };
    if (c.announcedAt !== undefined && now - c.announcedAt >= ANNOUNCE_MAX_MS) { say(); return; }
    c.announceTimer = setTimeout(say, ANNOUNCE_MS);
  }

  // The main plot's description for a screen reader, on its host element (app/sections.py name_figures gave it its
  // role and name): the caption, once the readouts rest, as the live region is written.
  function describeMain(a, text) {
    const main = a.shared_figs && a.shared_figs[0], have = main && main.html_attributes;
    if (main && globalThis.AttnDescribe) AttnDescribe.own(main.name);   // its own words, not its ranges
    if (!main || !text || (have && have["aria-description"] === text)) return;
    main.html_attributes = Object.assign({}, have || {}, { "aria-description": text });
  }

  // ---- the leave-one-out error at h·√T (your data's error readout) ----------------------------------------

  // The leave-one-out error at h·√T (T = 1, as on the bias-variance plot): on the spot for a small dataset, in
  // a Web Worker once h rests for a larger one (n x n weights: 4 million at n = 2000).
  function looHere(a, c) {
    c.looHere = null;
    if (!c.units) return;
    const payload = { x: c.x, y: c.y, fn: null, noise: null, hs: [c.h * Math.sqrt(c.t)], kernel: c.kernel,
                      tilt: c.kernel === "dot" ? c.key_norm : 0 };
    const token = c.looToken = (c.looToken || 0) + 1;   // an answer for an older h (a worker still busy) is dropped
    const show = (cols) => {
      if (token !== c.looToken) return;
      c.looHere = cols.loo[0];
      if (c.last) U.afterPaint(c, "query texts", () => queryTexts(a, c, c.last), (e) => showError(a, e));
    };
    if (c.x.length <= c.cfg.worker_above_n) { show(M.errorCurves(payload)); return; }
    if (c.looTimer) clearTimeout(c.looTimer);
    c.looTimer = setTimeout(() => {
      c.looTimer = null;
      const key = `loo-here:${a.hcurve.id}`;
      const ask = (job) => job.promise.then(show, (e) => {
        if (e.reason === "unavailable") return ask(AttnWorker.runHere(M.errorCurves, payload, { key }));
        if (e.reason !== "cancelled") showNotices(a, [e.message]);
      });
      ask(AttnWorker.run(AttnWorker.modules(c.cfg.worker_modules), "AttnMirror.errorCurves", payload, { key }));
    }, LOO_REST_MS);
  }
  const LOO_REST_MS = 120;

  // Under the error plot, and in its description: where its curves are lowest and where the marker stands
  // (text.js errorWords), from the curves it draws; nothing while they are being worked out.
  function errorText(a, c) {
    if (!a.bias_words) return;
    const d = a.hcurve.data, u = c.units, marker = c.h * Math.sqrt(c.t);
    const hText = u ? (h) => `${lengthText(D.hToUnits(u.scale, h))} on the ${u.xName} axis` : lengthText;
    const words = d.loo && d.loo.length ? errorWords(c.cfg.error_words, d.h, d.loo,
                                                     c.noise === null || c.noise === undefined ? null : d.error,
                                                     marker, hText) : "";
    const html = words ? `<p class="bias-words">${esc(words)}</p>` : "";
    if (a.bias_words.text === html) return;
    setHtml(a.bias_words, html);
    if (globalThis.AttnDescribe) AttnDescribe.changed(a.ds.document);
  }

  // The 1-NN curve and the global mean, and their entries in the legend under the plot.
  function showLimits(a, c) {
    setWidget(a.nn_renderer, "visible", c.limits);
    setWidget(a.mean_span, "visible", c.limits);
    setHtml(a.legend_div, c.cfg.legend[(c.limits ? "on" : "off") + (c.units ? "_data" : "")]);
  }

  function showNotices(a, notes) {
    setWidget(a.notice_div, "text", notes.map((t) => `<p class="notice">${esc(t)}</p>`).join(""));
    setWidget(a.notice_div, "visible", notes.length > 0);
  }

  function showError(a, e) {
    console.error("attention explorable:", e);
    if (a.notice_div) {
      a.notice_div.text = `<p class="notice">Something went wrong while redrawing (${esc(e.message)}); reset restores the opening state.</p>`;
      a.notice_div.visible = true;
    }
  }

  return { queryTexts, looHere, errorText, showLimits, showNotices, showError };
})(AttnMirror, AttnCommon, RegressionText, RegressionAddress, RegressionUnits);
