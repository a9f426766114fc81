// The regression view's engine: runs in the browser on every gesture.
//
// One Bokeh CustomJS holds this file (after mirror.js) and is attached to every
// control, the query line and the main plot's pan/tap events, so the served
// page and the offline file behave identically.  It reads the state from the
// widgets, computes with AttnMirror and writes the plots' data sources and the
// readout texts.  Nothing the user types is ever inserted as HTML: every text
// goes through esc().

const Explorable = (function (M) {
  "use strict";

  // ---- text helpers (twins of app/text.py) ---------------------------------

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

  // A number as students read it (twin of plain in app/text.py): about p significant digits, never
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

  function similarityWords(kernel, keyNorm) {
    if (kernel === "gaussian") return "a Gaussian similarity";
    if (!keyNorm) return "a dot-product similarity on circle-embedded keys of equal length";
    return `a dot-product similarity on circle-embedded keys with key-norm tilt ${signed(keyNorm, 2)} ` +
      `which makes keys further ${keyNorm > 0 ? "right" : "left"} longer`;
  }

  function caption(r, kernel, h, t, keyNorm) {
    const sim = similarityWords(kernel, keyNorm || 0);
    const temp = t === 1 ? "" : `, T = ${plain(t, 3)}`;
    const truth = r.true_value === null ? "" : ` where the true function is ${signed(r.true_value, 2)}`;
    return `A query at x = ${signed(r.query, 2)} averages the ${r.n} samples with softmax weights of ${sim} ` +
      `(h = ${plain(h, 3)}${temp}). The largest weight is ${fixed(r.max_weight, 3)} and the weights spread over ` +
      `about ${fixed(r.effective_points, 1)} effective points, giving a prediction of ${signed(r.prediction, 2)}${truth}.`;
  }

  // The sample with the largest weight, and whether it is (one of) the nearest to the query
  // (twin of heaviest_sample in app/text.py).
  function heaviestSample(q, xs, ys, w) {
    let i = 0, nearest = Infinity;
    for (let j = 0; j < w.length; j++) if (w[j] > w[i]) i = j;
    for (const k of xs) nearest = Math.min(nearest, Math.abs(k - q));
    return { x: xs[i], y: ys[i], nearest: Math.abs(xs[i] - q) <= nearest + 1e-9 };
  }

  function limitNotices(r, heaviest) {
    const out = [];
    if (r.max_weight >= 0.95) {
      if (!heaviest || heaviest.nearest)
        out.push(`Max weight ${fixed(r.max_weight, 3)}: the query now copies its nearest sample ` +
          `(1-nearest-neighbour), and the prediction curve turns into steps.`);
      else
        out.push(`Max weight ${fixed(r.max_weight, 3)}, on the sample at x = ${signed(heaviest.x, 2)}, which is ` +
          `not the nearest one: its key is longer than the keys nearer the query, and a dot product rewards ` +
          `length as well as direction, so this far key wins wherever the query is. The prediction ` +
          `flattens to that sample's value, ${signed(heaviest.y, 2)}.`);
    }
    if (r.effective_points >= 0.9 * r.n)
      out.push(`${fixed(r.effective_points, 1)} of ${r.n} effective points: the weights are nearly uniform, ` +
        `so the prediction flattens toward the global mean (${signed(r.global_mean, 2)}).`);
    return out;
  }

  // ---- the URL (twin of app/state.py parse_query) ---------------------------

  const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/, INTEGER = /^\d+$/;
  const TRUE_WORDS = ["1", "true", "yes", "on"], FALSE_WORDS = ["0", "false", "no", "off"];
  const WS = /^[ \t\n\r\f\v]+|[ \t\n\r\f\v]+$/g;

  function shown(text) {
    const cps = Array.from(text);
    return cps.length <= 40 ? text : cps.slice(0, 40).join("") + "\u2026";
  }

  function parseQuery(search, spec) {
    const grouped = new Map();
    for (const [k, v] of new URLSearchParams(search)) {
      if (!grouped.has(k)) grouped.set(k, []);
      grouped.get(k).push(v);
    }
    const values = {}, notices = [];
    for (const [key, vals] of grouped) {
      if (!Object.prototype.hasOwnProperty.call(spec, key)) {
        notices.push(`Ignored unknown setting \u201c${shown(key)}\u201d.`);
        continue;
      }
      if (vals.length > 1) notices.push(`\u201c${key}\u201d was given ${vals.length} times; using the last value.`);
      const raw = vals[vals.length - 1].replace(WS, "");
      if (raw === "") { notices.push(`Ignored an empty value for \u201c${key}\u201d.`); continue; }
      const s = spec[key];
      if (s.kind === "float" || s.kind === "int") {
        const pattern = s.kind === "float" ? NUMBER : INTEGER;
        if (!pattern.test(raw)) {
          notices.push(`Ignored ${key}=\u201c${shown(raw)}\u201d: not ${s.kind === "float" ? "a number" : "a whole number"}.`);
          continue;
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
        if (TRUE_WORDS.includes(low) || FALSE_WORDS.includes(low)) values[key] = TRUE_WORDS.includes(low);
        else notices.push(`Ignored ${key}=\u201c${shown(raw)}\u201d: expected 1 or 0.`);
      } else if (s.kind === "choice") {
        if (s.choices.includes(raw)) values[key] = raw;
        else notices.push(`Ignored ${key}=\u201c${shown(raw)}\u201d: expected one of ${s.choices.join(", ")}.`);
      } else {
        if (Array.from(raw).length > s.max) { notices.push(`Ignored ${key}: longer than ${s.max} characters.`); continue; }
        values[key] = raw;
      }
    }
    return { values, notices };
  }

  // ---- state -----------------------------------------------------------------

  // Bokeh runs the CustomJS body afresh on every event (each engine's file is
  // re-evaluated), so an engine's per-page state lives outside it: in a WeakMap
  // on globalThis called `store`, keyed by one model of its section.
  function pageState(store, key, fresh) {
    const map = globalThis[store] || (globalThis[store] = new WeakMap());
    let c = map.get(key);
    if (!c) { c = Object.assign({ ready: false, busy: false }, fresh); map.set(key, c); }
    return c;
  }

  // Run one event's work for an engine: never re-entered (an engine's own changes fire events
  // too), and an error goes to `onError` (shown on the page) instead of stopping the page.
  function runGuarded(c, work, onError) {
    if (c.busy) return;
    c.busy = true;
    try {
      work();
    } catch (e) {
      onError(e);
    } finally {
      c.busy = false;
    }
  }

  function cacheFor(a) { return pageState("__attnExplorableCache", a.ds); }

  function clamp(v, lo, hi) { return Math.min(hi, Math.max(lo, v)); }

  function options(c) {
    const kernel = c.kernel;
    const keyScale = kernel === "dot" && c.key_norm !== 0 ? M.keyNormTilt(c.x, c.key_norm) : null;
    return { kernel, bandwidth: c.h, temperature: c.t, keyScale };
  }

  function setWidget(w, prop, v) { if (w && w[prop] !== v) w[prop] = v; }

  // Bokeh re-renders a Div and re-lays out the page on every change of its
  // text (10-40 ms): too slow for a drag.  Texts that change every frame are
  // written straight into the Div's rendered element, and the model is
  // updated silently so it always holds what is shown.
  const VIEWS = new WeakMap();

  function findView(model) {
    if (VIEWS.has(model)) return VIEWS.get(model);
    const roots = (typeof window !== "undefined" && window.Bokeh && window.Bokeh.index) || {};
    const stack = Object.values(roots);
    while (stack.length) {
      const v = stack.pop();
      if (v.model === model) { VIEWS.set(model, v); return v; }
      for (const child of v.child_views || []) stack.push(child);
    }
    return null;
  }

  function setHtml(div, html) {
    if (div.text === html) return;
    const view = findView(div);
    if (view && view.markup_el && view.markup_el.isConnected) {
      div.setv({ text: html }, { silent: true });
      view.markup_el.innerHTML = html;
    } else {
      div.text = html;
    }
  }

  // Set a property without telling the server (a served page would otherwise
  // send every frame of a drag over the websocket); see syncQuery.
  function quiet(m, prop, v) { if (m && m[prop] !== v) m.setv({ [prop]: v }, { sync: false }); }

  // ---- computations, from the cheapest (every pointer move) up ---------------

  function queryViews(a, c) {
    const opt = options(c), q = c.query;
    const r = M.readout(q, c.x, c.y, opt, c.fn);
    c.last = r;
    const w = r.weights, n = c.x.length, mx = r.max_weight, sc = c.scale * markerScale(n);
    const size = new Array(n), wn = new Array(n);
    for (let j = 0; j < n; j++) { wn[j] = w[j] / mx; size[j] = sc * (4 + 18 * Math.sqrt(wn[j])); }
    a.samples.data = { x: c.x, y: c.y, w: Array.from(w), wn, size, alpha: c.alpha };

    // the kernel's shape around the query, scaled so its peak is the largest weight
    const kx = c.grid, ky = new Float64Array(kx.length);
    const emb = opt.kernel === "dot" ? M.embedKeys(kx, opt.bandwidth, M.circleRadius(c.x), null) : null;
    if (opt.kernel === "gaussian") {
      for (let i = 0; i < kx.length; i++) ky[i] = mx * Math.exp(-((kx[i] - q) ** 2) / (2 * c.h * c.h * c.t));
    } else {
      // a key at position x' of unit norm factor: exp((score(q, x') - max) / T)
      const R = M.circleRadius(c.x), cc = 2.0 ** 0.25 / c.h, a0 = q / R;
      const q0 = cc * (R * Math.cos(a0)), q1 = cc * (R * Math.sin(a0));
      const sq = (q0 * q0 + q1 * q1) / Math.sqrt(2);
      for (let i = 0; i < kx.length; i++) ky[i] = mx * Math.exp(((q0 * emb.e0[i] + q1 * emb.e1[i]) / Math.sqrt(2) - sq) / c.t);
    }
    a.kshape.data = { x: Array.from(kx), k: Array.from(ky) };

    const pts = { x: [q], y: [r.prediction], label: ["prediction"] };
    a.qpred.data = pts;
    a.qtrue.data = r.true_value === null ? { x: [], y: [] } : { x: [q], y: [r.true_value] };
    for (const s of [a.span_main, a.span_w, a.span_ent]) setWidget(s, "location", q);
    if (a.w_query.value !== q) { quiet(a.w_query, "value", q); c.queryDirty = true; }

    // entropy against bandwidth at this query (T folded into h: the h axis is h * sqrt(T))
    const ent = new Array(c.hgrid.length);
    for (let g = 0; g < c.hgrid.length; g++) {
      const o = Object.assign({}, opt, { bandwidth: c.hgrid[g], temperature: 1 });
      ent[g] = M.entropyBits(M.weights1d(q, c.x, o));
    }
    a.hcurve.data = Object.assign({ h: Array.from(c.hgrid), ent }, c.hcols);

    const err = r.true_value === null ? null : r.prediction - r.true_value;
    const row = (k, v, extra) => `<tr><th scope="row">${k}</th><td>${v}</td>${extra ? `<td class="extra">${extra}</td>` : "<td></td>"}</tr>`;
    setHtml(a.readout_div,
      `<table class="readouts" aria-live="polite" aria-label="readouts">` +
      row("max weight", fixed(r.max_weight, 3)) +
      row("entropy", `${fixed(r.entropy_bits, 2)} bits`, `of ${fixed(Math.log2(n), 2)}`) +
      row("effective points", fixed(r.effective_points, 1), `of ${n}`) +
      row("prediction", signed(r.prediction, 2)) +
      row("true f(x)", r.true_value === null ? "unknown" : signed(r.true_value, 2)) +
      row("error", err === null ? "\u2013" : signed(err, 2)) +
      `</table>`);
    const tilt = c.kernel === "dot" ? c.key_norm : 0;
    setHtml(a.caption_div, `<p class="caption" aria-live="polite">${esc(caption(r, c.kernel, c.h, c.t, tilt))}</p>`);
    const notes = limitNotices(r, heaviestSample(q, c.x, c.y, w));
    setHtml(a.limits_div, notes.map((s) => `<p class="limit">${esc(s)}</p>`).join(""));
    scheduleUrl(a, c);
  }

  function kernelViews(a, c) {
    const opt = options(c);
    const pred = M.predictCurve(c.grid, c.x, c.y, opt);
    const ent = M.entropyCurve(c.grid, c.x, opt);
    const nn = M.nearestCurve(c.grid, c.x, c.y, opt);
    const f = M.trueFunction(c.fn);
    const eff = Array.from(ent, (e) => 2 ** e);
    a.curve.data = {
      x: Array.from(c.grid), pred: Array.from(pred), ent: Array.from(ent), eff, nn: Array.from(nn),
      truth: f ? Array.from(c.grid, f) : Array.from(c.grid, () => NaN),
    };
    const heff = c.h * Math.sqrt(c.t);
    for (const s of [a.hspan_ent, a.hspan_bv]) setWidget(s, "location", heff);
    queryViews(a, c);
  }

  function dataViews(a, c) {
    const opt = Object.assign(options(c), { temperature: 1 });
    c.hcols = { loo: Array.from(M.looError(c.x, c.y, c.hgrid, opt)) };
    const bv = c.noise === null ? null : M.biasVarianceExact(c.x, c.fn, c.noise, c.hgrid, opt);
    const nan = () => Array.from(c.hgrid, () => NaN);
    c.hcols.bias2 = bv ? Array.from(bv.bias2) : nan();
    c.hcols.variance = bv ? Array.from(bv.variance) : nan();
    c.hcols.error = bv ? Array.from(bv.error) : nan();
    setWidget(a.mean_span, "location", M.mean(c.y));
    kernelViews(a, c);
  }

  // ---- inputs ----------------------------------------------------------------

  // Many samples stay readable: smaller, fainter markers as n grows (the curve draws above them).
  function markerScale(n) { return clamp(Math.sqrt(40 / n), 0.3, 1); }
  function markerAlpha(n) { return clamp(Math.sqrt(60 / n), 0.3, 0.9); }

  function loadData(a, c) {
    c.x = Array.from(a.ds.data.x);
    c.y = Array.from(a.ds.data.y);
    const n = c.x.length;
    c.alpha = Array.from(c.x, () => markerAlpha(n));
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
    if (a.dataset_div) a.dataset_div.text = `<p class="dataset">${esc(c.describe)}</p>`;
  }

  function swapDataset(a, c, name) {
    const d = c.cfg.datasets[name];
    if (!d) return false;
    a.ds.tags = [JSON.stringify({ name, function: d.function, noise: d.noise, description: d.description })];
    a.ds.data = { x: d.x, y: d.y };
    loadData(a, c);
    return true;
  }

  function setQuery(a, c, x) {
    if (!isFinite(x)) return;
    c.query = clamp(x, c.cfg.x_range[0], c.cfg.x_range[1]);
    queryViews(a, c);
  }

  function applyPresent(a, c, atStart) {
    c.scale = c.present ? 1.6 : 1;
    Theme.apply(a.ds.document, c.cfg.theme, c.present, a.shared_figs, !!atStart);
  }

  function readWidgets(a, c) {
    c.query = a.w_query.value;
    c.h = 10 ** a.w_logh.value;
    c.t = 10 ** a.w_logt.value;
    c.kernel = a.w_kernel.value;
    c.key_norm = a.w_keynorm.value;
    c.link = a.w_link.active;
    c.limits = a.w_limits.active;
    c.present = a.w_present.active;
  }

  function applyState(a, c, v) {
    // values parsed from the URL (static file) or the defaults (reset)
    if (v.query !== undefined) c.query = v.query;
    if (v.bandwidth !== undefined) c.h = v.bandwidth;
    if (v.temperature !== undefined) c.t = v.temperature;
    if (v.kernel !== undefined) c.kernel = v.kernel;
    if (v.key_norm !== undefined) c.key_norm = v.key_norm;
    if (v.link !== undefined) c.link = v.link;
    if (v.limits !== undefined) c.limits = v.limits;
    if (v.present !== undefined) c.present = v.present;
    if (v.dataset !== undefined && c.cfg.datasets[v.dataset]) {
      setWidget(a.w_dataset, "value", v.dataset);
      swapDataset(a, c, v.dataset);
    }
    syncWidgets(a, c);
  }

  function syncWidgets(a, c) {
    setWidget(a.w_query, "value", c.query);
    setWidget(a.w_logh, "value", Math.log10(c.h));
    setWidget(a.w_logt, "value", Math.log10(c.t));
    setWidget(a.w_kernel, "value", c.kernel);
    setWidget(a.w_keynorm, "value", c.key_norm);
    setWidget(a.w_keynorm, "visible", c.kernel === "dot");
    setWidget(a.w_link, "active", c.link);
    setWidget(a.w_limits, "active", c.limits);
    setWidget(a.w_present, "active", c.present);
    setWidget(a.nn_renderer, "visible", c.limits);
    setWidget(a.nn_item, "visible", c.limits);
    setWidget(a.mean_span, "visible", c.limits);
    c.heff = c.h * Math.sqrt(c.t);
  }

  // On a touch screen the main plot keeps horizontal drags (they move the query) and leaves vertical
  // swipes to the browser, so a swipe that starts on the plot scrolls the page.  Bokeh's pan tool asks
  // for every gesture (touch-action: pinch-zoom); this rule, in the canvas' own shadow root, wins.
  function letVerticalSwipesScroll(fig) {
    const v = findView(fig), cv = v && v.canvas_view, root = cv && cv.shadow_el;
    if (!root || root.querySelector("style[data-attn-touch]")) return;
    const st = document.createElement("style");
    st.setAttribute("data-attn-touch", "");
    st.textContent = ".bk-events { touch-action: pan-y pinch-zoom !important; }";
    root.appendChild(st);
  }

  function init(a, c) {
    c.cfg = a.config;
    c.grid = M.linspace(c.cfg.x_range[0], c.cfg.x_range[1], c.cfg.grid_n);
    c.hgrid = M.geomspace(c.cfg.h_grid[0], c.cfg.h_grid[1], c.cfg.h_grid[2]);
    c.scale = 1;
    readWidgets(a, c);
    const init0 = c.cfg.initial || {};
    for (const [k, key] of [["query", "query"], ["h", "bandwidth"], ["t", "temperature"], ["kernel", "kernel"],
                            ["key_norm", "key_norm"]])
      if (init0[key] !== undefined) c[k] = init0[key];
    loadData(a, c);
    if (c.cfg.mode === "static") {
      const { values, notices } = parseQuery(window.location.search, c.cfg.spec);
      applyState(a, c, values);
      a.notice_div.text = notices.map((s) => `<p class="notice">${esc(s)}</p>`).join("");
      a.notice_div.visible = notices.length > 0;
    } else {
      syncWidgets(a, c);
    }
    applyPresent(a, c, true);
    letVerticalSwipesScroll(a.shared_figs[0]);
    Theme.nameControls(a.ds.document);
    c.ready = true;
    dataViews(a, c);
    c.urlArmed = true;
    announceHeight();
  }

  // Inside an iframe, tell the host page how tall the explorable is, so a
  // one-line listener there can size the frame (see the README).
  function announceHeight() {
    if (window.parent === window || window.__attnHeightWatch) return;
    window.__attnHeightWatch = true;
    let last = 0;
    const post = () => {
      const h = Math.ceil(document.documentElement.scrollHeight);
      if (h !== last) {
        last = h;
        window.parent.postMessage({ type: "attention-explorable:height", height: h }, "*");
      }
    };
    setTimeout(post, 300);
    window.addEventListener("resize", post);
    setInterval(post, 1000);
  }

  // ---- the URL follows the state (throttled) -----------------------------------

  function stateQuery(a, c) {
    const s = c.cfg.spec, out = new URLSearchParams(window.location.search);
    const put = (k, v) => { if (v === s[k].default) out.delete(k); else out.set(k, v); };
    put("query", Number(c.query.toFixed(3)));
    put("bandwidth", Number(c.h.toPrecision(4)));
    put("temperature", Number(c.t.toPrecision(4)));
    put("kernel", c.kernel);
    put("key_norm", Number(c.key_norm.toFixed(2)));
    put("dataset", a.w_dataset.value);
    for (const k of ["link", "limits", "present"]) {
      if (c[k] === s[k].default) out.delete(k); else out.set(k, c[k] ? "1" : "0");
    }
    if (a.w_dataset.value !== "generated") for (const k of ["fn", "n", "noise", "seed"]) out.delete(k);
    return out.toString();
  }

  function scheduleUrl(a, c) {
    if (!c.urlArmed || c.urlTimer) return;
    c.urlTimer = setTimeout(() => {
      c.urlTimer = null;
      if (c.queryDirty) {  // the server learns the query a few times a second, not every frame
        c.queryDirty = false;
        c.busy = true;
        try { a.w_query.setv({ value: c.query }, { check_eq: false }); } finally { c.busy = false; }
      }
      try {
        const q = stateQuery(a, c);
        window.history.replaceState(null, "", q ? "?" + q : window.location.pathname);
      } catch (e) { /* a sandboxed frame may refuse; the page works without it */ }
    }, 150);
  }

  // ---- dispatch ------------------------------------------------------------------

  function dispatch(ev, a, c) {
    const name = ev && ev.event_name;
    if (name === "document_ready") return;
    if (name === "panstart") { c.pan = { sx: ev.sx, sy: ev.sy }; return; }
    if (name === "pan") {
      // A drag moves the query while it goes more sideways than up or down; a vertical swipe on a phone
      // is the browser's, to scroll the page.  Where the event carries no usable screen position (seen in
      // a JupyterLab output), every drag moves the query, as a mouse drag always should.
      const p = c.pan || {};
      const dx = Math.abs(ev.sx - p.sx), dy = Math.abs(ev.sy - p.sy);
      const sideways = !(isFinite(dx) && isFinite(dy)) || dx > dy;
      if (sideways && ev.x !== undefined && ev.x !== null) setQuery(a, c, ev.x);
      return;
    }
    if (name === "tap" || name === "press") {
      if (ev.x !== undefined && ev.x !== null) setQuery(a, c, ev.x);
      return;
    }
    if (name === "button_click") {
      const d = c.cfg.defaults;
      if (a.w_dataset.value !== d.dataset) { setWidget(a.w_dataset, "value", d.dataset); swapDataset(a, c, d.dataset); }
      applyState(a, c, d);
      applyPresent(a, c);
      dataViews(a, c);
      return;
    }
    if (ev === a.span_main) return setQuery(a, c, a.span_main.location);
    if (ev === a.w_query) return setQuery(a, c, a.w_query.value);
    if (ev === a.w_logh || ev === a.w_logt) {
      const h = 10 ** a.w_logh.value, t = 10 ** a.w_logt.value;
      if (c.link) {
        // one knob: keep h * sqrt(T) fixed by moving the other slider
        const s = c.cfg.spec;
        if (ev === a.w_logh) c.t = clamp((c.heff / h) ** 2, s.temperature.lo, s.temperature.hi), c.h = h;
        else c.h = clamp(c.heff / Math.sqrt(t), s.bandwidth.lo, s.bandwidth.hi), c.t = t;
        setWidget(a.w_logh, "value", Math.log10(c.h));
        setWidget(a.w_logt, "value", Math.log10(c.t));
      } else {
        c.h = h; c.t = t; c.heff = c.h * Math.sqrt(c.t);
      }
      return kernelViews(a, c);
    }
    if (ev === a.w_kernel || ev === a.w_keynorm) {
      c.kernel = a.w_kernel.value;
      c.key_norm = a.w_keynorm.value;
      setWidget(a.w_keynorm, "visible", c.kernel === "dot");
      return dataViews(a, c);
    }
    if (ev === a.w_dataset) {
      if (swapDataset(a, c, a.w_dataset.value)) dataViews(a, c);
      return; // 'generated': Python fills the data source, which calls back here
    }
    if (ev === a.ds) { loadData(a, c); return dataViews(a, c); }
    if (ev === a.w_link) { c.link = a.w_link.active; c.heff = c.h * Math.sqrt(c.t); return scheduleUrl(a, c); }
    if (ev === a.w_limits) {
      c.limits = a.w_limits.active;
      setWidget(a.nn_renderer, "visible", c.limits);
      setWidget(a.nn_item, "visible", c.limits);
      setWidget(a.mean_span, "visible", c.limits);
      return scheduleUrl(a, c);
    }
    if (ev === a.w_present) { c.present = a.w_present.active; applyPresent(a, c); return queryViews(a, c); }
  }

  function handle(ev, a) {
    const c = cacheFor(a);
    runGuarded(c, () => { if (!c.ready) init(a, c); else dispatch(ev, a, c); }, (e) => {
      console.error("attention explorable:", e);
      if (a.notice_div) {
        a.notice_div.text = `<p class="notice">Something went wrong while redrawing (${esc(e.message)}); reset restores the opening state.</p>`;
        a.notice_div.visible = true;
      }
    });
  }

  return { handle, parseQuery, caption, limitNotices, heaviestSample, plain, fixed, general, signed, esc, cacheFor, setHtml, clamp,
           pageState, runGuarded };
})(AttnMirror);
