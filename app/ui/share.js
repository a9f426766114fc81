// "Copy a link to this state": copies the page's deep link, in every delivery; and the page saved with
// your own data inside, when a link cannot carry them.  "Save a figure as PNG" (figures): a menu of the page's
// figures and a button that saves the one chosen, through the loader (AttnPage.savePng).
//
// The engines keep the address's query string equal to the page's state (history.replaceState), so
// the link is the page's own address: the served app's (also inside an iframe on a course page, where
// the frame's address is the app's), or the offline file's file:// or https:// address.  Your own data
// travel after "#" ("#data1.…", written by the regression engine; no server ever sees that part): the
// link keeps the fragment only when it holds such data.  Data too large for a link (the regression
// engine says so on the page's bus, topic "data-link") are not copied: the page says why and offers
// itself as a file with the data inside (pageWithData).  The clipboard may be refused (a frame without
// allow="clipboard-write", an old browser): the link then shows in a selected text field to copy by
// hand.  The link and every sentence are only ever inserted escaped.

const AttnShare = (function () {
  "use strict";

  function esc(s) {
    return String(s).replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[ch]));
  }

  const DATA_FRAGMENT = /^#data[0-9]+\./;

  // the address without its fragment, unless the fragment holds your data
  function currentLink(loc) {
    const base = loc.href.split("#")[0];
    return DATA_FRAGMENT.test(loc.hash) ? base + loc.hash : base;
  }

  // ---- the page as a file, with your data as its opening data ---------------------------------------

  // The file this page came from, rebuilt from the live document: the head and the scripts as they are (none of
  // them changes once loaded), the skeleton as it was before anything was drawn (ui/common.js keeps it), what
  // BokehJS added to the body left out, and the data in <script type="application/json" id="attn-data">, which
  // the regression engine reads when the page opens (AttnUserData.embedText wrote it: no markup can end it).
  // null where the page is not such a file (a notebook, Panel's per-session page).
  function pageWithData(embed) {
    const skeleton = globalThis.__attnSkeleton;
    if (typeof skeleton !== "string" || !document.getElementById("attn-doc")) return null;
    const root = document.documentElement.cloneNode(true), body = root.querySelector("body");
    for (const el of Array.from(body.children))
      if (!(el.tagName === "MAIN" || el.tagName === "SCRIPT") || el.id === "attn-data") el.remove();
    const main = body.querySelector("main.attn-page");
    main.innerHTML = skeleton;
    main.setAttribute("data-carries-data", "");   // its posters show the file's opening data, not these (ui/opening.js)
    for (const a of ["data-opening", "data-opening-press"]) main.removeAttribute(a);
    const data = document.createElement("script");
    data.type = "application/json";
    data.id = "attn-data";
    data.textContent = embed;
    main.after(data);
    return "<!DOCTYPE html>\n" + root.outerHTML + "\n";
  }

  // Save it: a download made in the browser (no server involved).  Returns false where it cannot.
  function download(embed, filename) {
    const html = pageWithData(embed);
    if (html === null) return false;
    saveBlob(new Blob([html], { type: "text/html" }), filename);
    return true;
  }

  // A download made in the browser: the blob offered under `filename` through a link clicked once.
  function saveBlob(blob, filename) {
    const url = URL.createObjectURL(blob), a = document.createElement("a");
    a.href = url;
    a.download = filename;
    a.style.display = "none";
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60000);
  }

  // ---- the button ---------------------------------------------------------------------------------

  // the rendered view of a model (Bokeh keeps root views in Bokeh.index, each with its child views)
  function findView(model) {
    const stack = Object.values((window.Bokeh && window.Bokeh.index) || {});
    while (stack.length) {
      const v = stack.pop();
      if (v.model === model) return v;
      for (const child of v.child_views || []) stack.push(child);
    }
    return null;
  }

  // run fn(element) on the status line's element matching `selector` once Bokeh has drawn the new text
  // (a few frames at most)
  function whenShown(status, selector, fn, tries) {
    const view = findView(status);
    const el = view && view.shadow_el && view.shadow_el.querySelector(selector);
    if (el) fn(el);
    else if (tries > 0) requestAnimationFrame(() => whenShown(status, selector, fn, tries - 1));
  }

  function show(a, html) {
    a.status.visible = true;
    a.status.text = html;
  }

  // Data too large for a link: say so, and offer the page as a file with the data inside.
  function tooLong(a, link) {
    const t = a.texts, saved = pageWithData("") !== null;
    show(a, `<p class="notice" role="status">${esc(link.message)}</p>` +
      (saved ? `<button type="button" class="share-save">${esc(t.save)}</button>` : `<p>${esc(t.no_save)}</p>`));
    if (saved) whenShown(a.status, "button.share-save", (b) => {
      b.addEventListener("click", () => download(link.embed, link.filename));
      b.focus();
    }, 30);
  }

  function handle(a) {
    const t = a.texts, doc = a.status.document;
    const link = typeof AttnCommon !== "undefined" && doc ? AttnCommon.heard(doc, "data-link") : undefined;
    if (link && link.state === "too_long") { tooLong(a, link); return; }
    const href = currentLink(window.location);
    const copied = () => show(a,
      `<p class="share-done" role="status">${esc(t.copied)}</p><p class="share-shown">${esc(href)}</p>`);
    const fallback = () => {
      show(a, `<p class="share-by-hand" role="status">${esc(t.fallback)}</p>` +
        `<input class="share-link" type="text" readonly aria-label="${esc(t.field)}" value="${esc(href)}">`);
      whenShown(a.status, "input.share-link", (field) => { field.focus(); field.select(); }, 30);
    };
    let writing = null;
    try {
      // a frame whose host did not allow the clipboard (no allow="clipboard-write"): straight to the field,
      // rather than asking and logging a refusal
      const policy = document.permissionsPolicy || document.featurePolicy;
      const allowed = !policy || typeof policy.allowsFeature !== "function" || policy.allowsFeature("clipboard-write");
      if (allowed && navigator.clipboard && typeof navigator.clipboard.writeText === "function")
        writing = navigator.clipboard.writeText(href);
    } catch (e) {
      writing = null;
    }
    if (writing && typeof writing.then === "function") writing.then(copied, fallback);
    else fallback();
  }

  // ---- a figure of the page as a PNG, for slides -----------------------------------------------------

  // The page's own figures ({name, label, group}, in the page's order): those the loader's plan places in a block
  // (a page built with some sections only has the others' in none).  [] where no loader draws the page.
  function figuresHere(figures) {
    const page = globalThis.AttnPage;
    return page && page.blockOf && page.savePng ? figures.filter((f) => page.blockOf(f.name)) : [];
  }

  // The menu of figures, grouped by section, and its button (every text escaped; the names are the page's own).
  function pickerHtml(t, figures) {
    const groups = [];
    for (const f of figures) {
      if (!groups.length || groups[groups.length - 1].label !== f.group) groups.push({ label: f.group, items: [] });
      groups[groups.length - 1].items.push(f);
    }
    const options = groups.map((g) => `<optgroup label="${esc(g.label)}">` +
      g.items.map((f) => `<option value="${esc(f.name)}">${esc(f.label)}</option>`).join("") + "</optgroup>").join("");
    return `<div class="png-row"><label class="png-pick" for="png-figure">${esc(t.pick)}</label>` +
      `<select class="png-figure" id="png-figure">${options}</select>` +
      `<button type="button" class="share-save png-save">${esc(t.save)}</button>` +
      `<button type="button" class="share-save png-numbers">${esc(t.numbers)}</button></div>` +
      `<p class="png-said" role="status"></p><div class="figure-numbers"></div>`;
  }

  // ---- a figure's numbers as a table, for a student who cannot see the plot ----------------------------

  // The tables of a figure's data sources ({name, columns} each, AttnPage.figureSources): the columns of the
  // source's length (the rows the glyphs draw); the page shows the first t.rows_shown of each, its CSV every row.
  // Numbers are shown to 4 significant digits with a true minus sign, and written whole into the CSV.
  // `style`: the columns that only style a mark, left out.
  function numbersTables(sources, style) {
    const skip = new Set(style || []);
    return sources.map((s) => {
      const names = Object.keys(s.columns).filter((k) => !skip.has(k));
      const n = Math.max(0, ...names.map((k) => s.columns[k].length));
      const cols = names.filter((k) => s.columns[k].length === n && s.columns[k].every((v) => typeof v !== "object" || v === null));
      const rows = [];
      for (let i = 0; i < n; i++) rows.push(cols.map((k) => s.columns[k][i]));
      return { name: s.name, columns: cols, rows };
    }).filter((tb) => tb.columns.length && tb.rows.length);
  }

  // a number as students read it: 4 significant digits, no exponent, a true minus (AttnFormat.plain)
  function shownNumber(v) {
    return typeof v === "number" ? globalThis.AttnFormat.plain(v, 4) : String(v);
  }

  // heads: the columns' words ({name: words}; a name without words is its own head)
  function head(heads, k) { return (heads && heads[k]) || k; }

  function csvOf(tb, heads) {
    // a cell holding a comma, a line break or a double quote is quoted, its quotes doubled (RFC 4180)
    const q = String.fromCharCode(34);
    const cell = (v) => { const s = String(v); return /[,\n\u0022]/.test(s) ? q + s.split(q).join(q + q) + q : s; };
    return [tb.columns.map((k) => cell(head(heads, k))).join(","), ...tb.rows.map((r) => r.map(cell).join(","))]
      .join("\n") + "\n";
  }

  function tablesHtml(t, label, tables) {
    return tables.map((tb, j) => {
      const shown = tb.rows.slice(0, t.rows_shown), more = tb.rows.length - shown.length;
      const rest = t.more.replace("{shown}", String(t.rows_shown)).replace("{k}", String(more));
      const caption = t.caption.replace("{figure}", label).replace("{source}", head(t.sources, tb.name)).replace("{n}", String(tb.rows.length));
      return `<div class="numbers-box" tabindex="0" role="region" aria-label="${esc(caption)}">` +
        `<table class="figure-numbers"><caption>${esc(caption)}</caption><thead><tr>` +
        tb.columns.map((c) => `<th scope="col">${esc(head(t.columns, c))}</th>`).join("") + `</tr></thead><tbody>` +
        shown.map((r) => `<tr>${r.map((v) => `<td>${esc(shownNumber(v))}</td>`).join("")}</tr>`).join("") +
        `</tbody></table></div>` + (more > 0 ? `<p>${esc(rest)}</p>` : "") +
        `<button type="button" class="share-save numbers-csv" data-table="${j}">${esc(t.csv)}</button>`;
    }).join("");
  }

  function showNumbers(select, root, t) {
    const label = select.options[select.selectedIndex] ? select.options[select.selectedIndex].textContent : select.value;
    fillNumbers(root, select.value, label, t);
  }

  // The tables of figure `name` (built now, from its sources as they are) into `root`'s div.figure-numbers, and
  // what was done into its p.png-said.
  function fillNumbers(root, name, label, t) {
    const box = root.querySelector("div.figure-numbers"), said = root.querySelector("p.png-said");
    said.textContent = t.counting;
    return globalThis.AttnPage.figureSources(name).then((sources) => {
      const tables = numbersTables(sources, t.style);
      box.innerHTML = tables.length ? tablesHtml(t, label, tables) : `<p>${esc(t.empty)}</p>`;
      for (const b of box.querySelectorAll("button.numbers-csv"))
        b.addEventListener("click", () => saveCsv(tables[Number(b.dataset.table)], t.columns, `${name}-${tables[Number(b.dataset.table)].name}.csv`));
      said.textContent = t.counted.replace("{figure}", label);
    }, (e) => { said.textContent = t.failed; console.error("attention explorable:", e); });
  }

  // ---- one tap from each figure: a button in its corner opens its numbers in a dialog ---------------------

  // Top left, above the y axis's tick labels and left of the title: a corner the plots with a y axis leave empty.
  const CORNER = "position:absolute;left:0;top:0;z-index:1;width:26px;height:26px;padding:0;display:flex;" +
    "align-items:center;justify-content:center;color:#1F5F99;background:rgba(255,255,255,0.92);" +
    "border:1px solid #1F5F99;border-radius:4px;cursor:pointer;";

  // The button of a drawn plot's view whose figure t.figures names (app/delivery/export.py plan.numbers), in the
  // view's shadow root; put back if a re-render of the view empties the root.
  function numbersButton(view, t) {
    const name = view.model && view.model.name, label = t && t.figures ? t.figures[name] : null;
    const root = view.shadow_el;
    if (!label || !root || view.__attnNumbers) return;
    const button = document.createElement("button");
    button.type = "button";
    button.className = "attn-numbers-open";
    button.innerHTML = t.icon;   // a fixed picture (app/ui/share.py TABLE_ICON)
    button.title = t.open;
    button.setAttribute("aria-label", t.open_name.replace("{figure}", label));
    // (a plot without a y axis, a diagram, may have its title at the left edge: its button sits top right)
    button.style.cssText = CORNER + ((view.model.left || []).length ? "" : "left:auto;right:0;");
    button.addEventListener("click", () => openNumbers(name, label, t, button));
    const put = () => { if (!button.isConnected) root.append(button); };
    put();
    new MutationObserver(put).observe(root, { childList: true });
    view.__attnNumbers = button;
  }

  // A modal dialog (the browser keeps the focus in it; Esc or Close shuts it and the focus goes back to the
  // button) with the figure's tables, built when it opens.
  function openNumbers(name, label, t, opener) {
    const d = document.createElement("dialog");
    d.className = "attn-numbers";
    d.setAttribute("aria-labelledby", "attn-numbers-title");
    d.innerHTML = `<div class="attn-numbers-top"><h2 id="attn-numbers-title">${esc(t.title.replace("{figure}", label))}</h2>` +
      `<button type="button" class="attn-numbers-close">${esc(t.close)}</button></div>` +
      `<p class="png-said" role="status"></p><div class="figure-numbers"></div>`;
    document.body.append(d);
    d.querySelector("button.attn-numbers-close").addEventListener("click", () => d.close());
    d.addEventListener("close", () => { d.remove(); if (opener.isConnected) opener.focus(); });
    d.showModal();
    return fillNumbers(d, name, label, t);
  }

  function saveCsv(tb, heads, file) { saveBlob(new Blob([csvOf(tb, heads)], { type: "text/csv" }), file); }

  // What the status line says once a file was handed to the browser, as HTML.  In a frame the page cannot know
  // whether the host lets it download: it says what it did, and offers this state in a tab of its own.
  function savedHtml(t, file) {
    if (!(globalThis.AttnFrame && AttnFrame.framed())) return esc(t.saved.replace("{file}", file));
    const link = currentLink(window.location);
    return `${esc(t.saved_framed.replace("{file}", file))} <a href="${esc(link)}" target="_blank" rel="noopener">${esc(t.own_tab)}</a>.`;
  }

  function savePicked(select, said, t) {
    said.textContent = t.saving;
    globalThis.AttnPage.savePng(select.value).then(
      (file) => { said.innerHTML = savedHtml(t, file); },
      (e) => { said.textContent = t.failed; console.error("attention explorable:", e); });
  }

  // "Save a figure as PNG": the menu and its button under it (once; a second press brings the menu back into focus).
  function figures(a) {
    const t = a.texts, here = figuresHere(a.figures);
    if (!here.length) { show(a, `<p role="status">${esc(t.none)}</p>`); return; }
    if (!a.status.visible || !String(a.status.text).includes("png-figure")) show(a, pickerHtml(t, here));
    whenShown(a.status, "select.png-figure", (select) => {
      const root = select.getRootNode(), save = root.querySelector("button.png-save");
      if (save && !save.dataset.wired) {
        save.dataset.wired = "1";
        save.addEventListener("click", () => savePicked(select, root.querySelector("p.png-said"), t));
        const numbers = root.querySelector("button.png-numbers");
        if (numbers) numbers.addEventListener("click", () => showNumbers(select, root, t));
      }
      select.focus();
    }, 30);
  }

  return { handle, figures, esc, currentLink, pageWithData, download, numbersTables, shownNumber, csvOf, savedHtml,
           numbersButton, openNumbers };
})();
