// The regression section's own data.
//
// An instructor's x, y pairs (pasted, dropped or chosen under "More controls", in the link's fragment
// "#data1.…", carried by the page itself, or handed over by a notebook's e.data) become the dataset "yours".
// ds holds x on the sliders' scale (AttnUserData.scaleFor: 0 … 6 when the data lie elsewhere), y as given
// and xu, x in its own units; its tag names the columns and holds the scale.  Everything computes on the
// sliders' scale, as for any dataset (weights, entropy and errors do not change under that map when h follows
// it); the axes, the sliders and the texts write the data's units (units.js relabel, text.js unitText and
// lengthText).  A bad input gets its one sentence (AttnUserData's) under the box, and the page keeps what it
// showed.

const RegressionOwnData = (function (U, A, R, V, S) {
  "use strict";

  const esc = U.esc, setWidget = U.setWidget, setHtml = U.setHtml;
  const { scheduleUrl, setHash, publishLink } = A;
  const { showNotices, showError } = R;
  const { dataViews } = V;
  const { loadData, swapDataset, formButtons } = S;

  const D = typeof AttnUserData !== "undefined" ? AttnUserData : null;   // ui/userdata.js, on the page

  function own(c, key, vals) {
    let t = c.cfg.own[key];
    for (const [k, v] of Object.entries(vals || {})) t = t.split(`{${k}}`).join(String(v));
    return t;
  }

  // The points d ({x, y, xName, yName, notices}, from AttnUserData) become "yours" and are shown.
  // how: {said: a sentence on where they came from, fragment: the link's own, key: a notebook's hand-over}.
  function useData(a, c, d, how) {
    const s = D.scaleFor(d.x, c.cfg.userdata);
    c.ownCount = (c.ownCount || 0) + 1;
    c.yours = { x: d.x.map((v) => D.fromUnits(s, v)), y: Array.from(d.y), xu: Array.from(d.x), xName: d.xName,
                yName: d.yName, scale: s, key: how.key || `page-${c.ownCount}`, fragment: how.fragment || null,
                link: null, embed: null };
    addOption(a, c);
    showYours(a, c);
    const notes = (how.said ? [how.said] : []).concat(d.notices || []);
    ownSay(a, c, [["dataset", own(c, "loaded", { n: d.x.length, x: d.xName, y: d.yName })]].concat(
      notes.map((t) => ["small", t])));
    if (!how.key) handToPython(a, c);
    if (!c.yours.fragment) writeFragment(a, c); else publishLink(a, c);
    return true;
  }

  function yoursTag(c) {
    const y = c.yours;
    let lo = Infinity, hi = -Infinity;
    for (const v of y.xu) { if (v < lo) lo = v; if (v > hi) hi = v; }
    return JSON.stringify({ name: "yours", function: null, noise: null, key: y.key, x_name: y.xName, y_name: y.yName,
                            description: own(c, "described", { n: y.x.length, x: y.xName, y: y.yName }), scale: y.scale,
                            span: hi - lo });
  }

  // Show the data kept in c.yours (loaded now, or picked again in the dataset menu).
  function showYours(a, c) {
    const y = c.yours;
    a.ds.tags = [yoursTag(c)];
    a.ds.data = { x: y.x, y: y.y, xu: y.xu };
    setWidget(a.w_dataset, "value", "yours");
    loadData(a, c);
  }

  function addOption(a, c) {
    const opts = a.w_dataset.options.filter((o) => (Array.isArray(o) ? o[0] : o) !== "yours");
    a.w_dataset.options = opts.concat([["yours", own(c, "option")]]);
  }

  // The data as the user gave them, back to a notebook (e.data follows the page); in a notebook only: elsewhere
  // they stay in this browser.
  function handToPython(a, c) {
    if (!U.hostOwnsAddress()) return;
    const y = c.yours;
    a.user_data.tags = [JSON.stringify({ x_name: y.xName, y_name: y.yName, key: y.key, from: "page" })];
    a.user_data.data = { x: y.xu, y: y.y };
  }

  // A notebook's e.data = ... (or the page built with data): the user_data source, in the data's units.
  function fromPython(a, c) {
    let tag = {};
    try { tag = JSON.parse(a.user_data.tags[0] || "{}"); } catch (e) { tag = {}; }
    if (tag.from !== "python" && tag.key !== "none") return false;
    if (tag.key === (c.yours ? c.yours.key : "none") || tag.key === c.pythonKey) return false;
    c.pythonKey = tag.key;
    if (tag.key === "none") { forgetYours(a, c); return true; }
    const d = D.fromArrays(Array.from(a.user_data.data.x), Array.from(a.user_data.data.y), tag.x_name, tag.y_name,
                           c.cfg.userdata);
    if (d.error) { ownRefused(a, c, d.error); return false; }
    d.notices = (tag.notices || []).concat(d.notices);
    return useData(a, c, d, { key: tag.key });
  }

  function forgetYours(a, c) {
    const showing = a.w_dataset.value === "yours";
    c.yours = null;
    a.w_dataset.options = a.w_dataset.options.filter((o) => (Array.isArray(o) ? o[0] : o) !== "yours");
    if (showing) { setWidget(a.w_dataset, "value", c.cfg.defaults.dataset); swapDataset(a, c, c.cfg.defaults.dataset); }
    ownSay(a, c, []);
  }

  function backToShipped(a, c) {
    const d = c.cfg.defaults.dataset;
    setWidget(a.w_dataset, "value", d);
    swapDataset(a, c, d);
    dataViews(a, c);
    scheduleUrl(a, c);
  }

  // ---- reading: the box, a file, the link, the page itself -------------------------------------------------

  function ownSay(a, c, lines) {
    setHtml(a.own_status, lines.map(([cls, t]) => `<p class="${cls}" role="status">${esc(t)}</p>`).join(""));
  }

  function ownRefused(a, c, sentence) {
    ownSay(a, c, [["notice", sentence], ["small", c.cfg.own.kept]]);
    U.say(`${sentence} ${c.cfg.own.kept}`, "data");   // heard once, politely (app/ui/common.js say)
    return false;
  }

  // The x and y columns picked in the box ("" : the reader picks).
  function picks(c) {
    const f = c.form;
    return f ? { x: f.x.value || null, y: f.y.value || null } : {};
  }

  function parseAndUse(a, c, how) {
    const d = D.parse(c.ownSource ? c.ownSource.text : "", picks(c), c.cfg.userdata);
    if (d.error) return ownRefused(a, c, d.error);
    return useData(a, c, d, how);
  }

  function readPasted(a, c) {
    c.ownSource = { text: c.form ? c.form.text.value : "" };
    if (parseAndUse(a, c, {})) { dataViews(a, c); scheduleUrl(a, c); }
  }

  // A file chosen or dropped: refused from its name, type and size before anything reads it (AttnUserData).
  function readChosen(a, c, file) {
    const refused = D.checkFile(file, c.cfg.userdata), name = typeof file.name === "string" ? file.name : "";
    if (refused) return ownRefused(a, c, refused.error);
    ownSay(a, c, [["small", own(c, "reading", { file: name })]]);
    D.readFile(file, c.cfg.userdata).then((text) => U.runGuarded(c, () => {
      if (typeof text !== "string") { ownRefused(a, c, text.error); return; }
      c.ownSource = { text, file: name };
      fillColumns(c, text);
      if (parseAndUse(a, c, { said: own(c, "from_file", { file: name }) })) { dataViews(a, c); scheduleUrl(a, c); }
    }, (e) => showError(a, e)), (e) => showError(a, e));
  }

  // The link's data ("#data1.…"), decoded once the page is drawn (DecompressionStream answers later).
  function readFragment(a, c) {
    const h = window.location.hash;
    if (!/^#data/.test(h)) return;
    D.decodeFragment(h, c.cfg.userdata).then((d) => U.runGuarded(c, () => {
      if (d.error) { showNotices(a, [d.error]); return; }
      if (useData(a, c, d, { fragment: h.slice(1) })) { dataViews(a, c); scheduleUrl(a, c); }
    }, (e) => showError(a, e)), (e) => showError(a, e));
  }

  // The data the page carries (export --data, or a page saved with its data): <script id="attn-data">.
  function readCarried(a, c) {
    const el = typeof document !== "undefined" ? document.getElementById("attn-data") : null;
    if (!el) return false;
    const d = D.fromEmbedded(el.textContent, c.cfg.userdata);
    if (d.error) { showNotices(a, [d.error]); return false; }
    return useData(a, c, d, {});
  }

  // Your data's fragment ("#data1.…"), worked out once they are shown (CompressionStream answers later).

  function writeFragment(a, c) {
    const y = c.yours;
    D.encodeFragment({ x: y.xu, y: y.y, xName: y.xName, yName: y.yName }, c.cfg.userdata).then((f) => {
      if (c.yours !== y) return;
      if (typeof f === "string") y.fragment = f; else y.link = f.error;
      U.runGuarded(c, () => { setHash(a, c); publishLink(a, c); }, (e) => showError(a, e));
    }, (e) => console.error("attention explorable:", e));
  }

  // ---- the box: paste, drop, choose ---------------------------------------------------------------------

  // The box's own elements (static HTML from app/regression/text.py), found once it is drawn.
  function wireForm(a, c) {
    const v = U.findView(a.own_form), root = v && v.shadow_el && v.shadow_el.querySelector(".own");
    if (!root || root.__attnWired) return;
    root.__attnWired = true;
    const q = (sel) => root.querySelector(sel);
    c.form = { root, text: q(".own-text"), x: q(".own-x"), y: q(".own-y"), back: q(".own-back"), save: q(".own-download") };
    const guarded = (fn) => (e) => U.runGuarded(c, () => fn(e), (err) => showError(a, err));
    q(".own-use").addEventListener("click", guarded(() => readPasted(a, c)));
    q(".own-input").addEventListener("change", guarded((e) => {
      const f = e.target.files && e.target.files[0];
      if (f) readChosen(a, c, f);
      e.target.value = "";
    }));
    // a paste over the size limit is refused before the box takes it (a box of millions of lines stalls the page)
    c.form.text.addEventListener("paste", guarded((e) => {
      const big = e.clipboardData ? D.checkSize(e.clipboardData.getData("text/plain"), c.cfg.userdata) : null;
      if (big) { e.preventDefault(); ownRefused(a, c, big.error); }
    }));
    c.form.text.addEventListener("input", () => {
      if (c.columnsTimer) clearTimeout(c.columnsTimer);
      c.columnsTimer = setTimeout(() => { c.ownSource = null; fillColumns(c, c.form.text.value); }, 200);
    });
    for (const sel of [c.form.x, c.form.y]) sel.addEventListener("change", guarded(() => {
      if (!c.ownSource && c.form.text.value.trim()) c.ownSource = { text: c.form.text.value };
      if (c.ownSource && parseAndUse(a, c, {})) { dataViews(a, c); scheduleUrl(a, c); }
    }));
    c.form.back.addEventListener("click", guarded(() => backToShipped(a, c)));
    c.form.save.addEventListener("click", () => {
      const y = c.yours;
      if (y && !AttnShare.download(D.embedText({ x: y.xu, y: y.y, xName: y.xName, yName: y.yName }, c.cfg.userdata),
                                   "attention-explorable-your-data.html"))
        ownSay(a, c, [["notice", c.cfg.own.no_download]]);
    });
    acceptDrops(a, c, root, root);
    formButtons(a, c);
  }

  // A file dropped on `zone` (or text dragged there, unless filesOnly) is read; `mark` shows where it will land.
  function acceptDrops(a, c, zone, mark, filesOnly) {
    const kinds = filesOnly ? ["Files"] : ["Files", "text/plain"];
    const over = (e) => {
      if (!e.dataTransfer || !Array.from(e.dataTransfer.types || []).some((t) => kinds.includes(t))) return;
      e.preventDefault();
      e.stopPropagation();
      if (mark) mark.classList.add("own-over");
    };
    zone.addEventListener("dragenter", over);
    zone.addEventListener("dragover", over);
    zone.addEventListener("dragleave", () => { if (mark) mark.classList.remove("own-over"); });
    zone.addEventListener("drop", (e) => {
      if (mark) mark.classList.remove("own-over");
      const dt = e.dataTransfer;
      if (!dt || !Array.from(dt.types || []).some((t) => kinds.includes(t))) return;
      e.preventDefault();
      e.stopPropagation();
      U.runGuarded(c, () => {
        if (dt.files && dt.files.length) { readChosen(a, c, dt.files[0]); return; }
        const text = dt.getData("text/plain"), big = text ? D.checkSize(text, c.cfg.userdata) : null;
        if (!text) return;
        if (big) { ownRefused(a, c, big.error); return; }
        if (c.form) c.form.text.value = text;
        c.ownSource = { text };
        fillColumns(c, text);
        if (parseAndUse(a, c, {})) { dataViews(a, c); scheduleUrl(a, c); }
      }, (err) => showError(a, err));
    });
  }

  // The column pickers offer the text's columns when it has more than two (their labels set as text, never markup).
  function fillColumns(c, text) {
    if (!c.form) return;
    const cols = D.columnNames(text, c.cfg.userdata), list = Array.isArray(cols) && cols.length > 2 ? cols : [];
    for (const sel of [c.form.x, c.form.y]) {
      const keep = sel.value;
      while (sel.options.length > 1) sel.remove(1);
      for (const col of list) {
        const o = document.createElement("option");
        o.value = col.value;
        o.textContent = col.label;
        sel.appendChild(o);
      }
      sel.value = list.some((col) => col.value === keep) ? keep : "";
    }
  }

  return { useData, showYours, fromPython, readFragment, readCarried, wireForm, acceptDrops };
})(AttnCommon, RegressionAddress, RegressionQueryTexts, RegressionViews, RegressionDatasets);
