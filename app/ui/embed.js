// The page in a short frame (?embed=1, or ?embed=<section>; export --embed): one section's stage, the blocks its
// contract declares for a frame (app/contract.py embed: its figure, its sliders, its one-line readout), fitted to
// the frame's height, under a bar with "Open the whole page" (this state, in a tab of its own), Copy a link and
// Save PNG.  Everything else stays undrawn.  The loader asks `start` which blocks to draw, and calls `fit` once they
// are drawn.  The page posts no height in a frame this way (the regression engine's announceHeight): it fits the
// frame it is given, and a host that grows a frame to the page's height would grow it without end.

const AttnEmbed = (function () {
  "use strict";

  const TEXTS = {
    whole: "Open the whole page",
    copy: "Copy a link",
    copied: "Link copied.",
    select: "Copy this link:",
    save: "Save PNG",
    failed: "The page could not save the figure.",
  };
  const S = { section: null, bar: null, blocks: [], pngTexts: null, plan: null, tall: new Map(), fitted: false };

  // The section a link asks for: ?embed=1 (or true, yes, on) the page's first, ?embed=<name> that one, ?embed=0 none
  // (a file exported with --embed opens on plan.embed); null for no embed, or a section the page does not offer.
  function sectionOf(search, plan) {
    const asked = new URLSearchParams(search).get("embed"), v = asked === null ? plan.embed || null : asked;
    if (v === null) return null;
    const names = [];
    for (const b of plan.blocks) if (b.embed && !names.includes(b.section)) names.push(b.section);
    if (["1", "true", "yes", "on"].includes(v.toLowerCase())) return names[0] || null;
    return names.includes(v) ? v : null;
  }

  // The address of the whole page in this state: this one without "embed" (embed=0 for a file exported with --embed).
  function wholeLink(loc, plan) {
    const q = new URLSearchParams(loc.search);
    q.delete("embed");
    if (plan && plan.embed) q.set("embed", "0");
    const s = q.toString();
    return loc.href.split(/[?#]/)[0] + (s ? `?${s}` : "") + (loc.hash || "");
  }

  const esc = AttnFormat.esc;

  function barHtml() {
    return `<a class="attn-embed-whole" target="_blank" rel="noopener" href="${esc(wholeLink(location, S.plan))}">` +
      `${esc(TEXTS.whole)}</a><button type="button" class="attn-embed-copy">${esc(TEXTS.copy)}</button>` +
      `<button type="button" class="attn-embed-save">${esc(TEXTS.save)}</button><span class="attn-embed-said" ` +
      `role="status"></span>`;
  }

  function said(html) { S.bar.querySelector(".attn-embed-said").innerHTML = html; }

  async function copy() {
    const link = wholeLink(location, S.plan);
    try {
      await navigator.clipboard.writeText(link);
      said(esc(TEXTS.copied));
    } catch (e) {   // a frame without clipboard-write, an opaque origin: the link, selected, to copy by hand
      said(`${esc(TEXTS.select)} <input class="attn-embed-link" readonly aria-label="${esc(TEXTS.select)}" ` +
           `value="${esc(link)}">`);
      const input = S.bar.querySelector("input.attn-embed-link");
      input.focus();
      input.select();
    }
  }

  function save(figure) {
    globalThis.AttnPage.savePng(figure).then(
      (file) => {
        said(AttnShare.savedHtml(S.pngTexts, file));
        // framed, it offers this state in a tab of its own: the whole page's, not this frame's
        const own = S.bar.querySelector(".attn-embed-said a");
        if (own) own.href = wholeLink(location, S.plan);
      },
      (e) => { said(esc(TEXTS.failed)); console.error("attention explorable:", e); });
  }

  // Which blocks to draw (the section's embed blocks), with the page marked so that its CSS shows only them; null
  // when the link asks for no embed.  Save PNG saves the section's first figure (plan.embed_figures).
  function start(plan, page) {
    const name = sectionOf(location.search, plan);
    if (!name || !page) return null;
    S.section = name;
    S.plan = plan;
    S.blocks = plan.blocks.filter((b) => b.section === name && b.embed);
    page.setAttribute("data-embed", name);
    const sec = document.getElementById(`attn-sec-${name}`);
    if (sec) sec.classList.add("attn-embedded");
    for (const b of S.blocks) {
      const el = document.getElementById(b.el);
      if (el) el.classList.add("attn-embed-block", ...(b.fill ? ["attn-embed-fill"] : []));
    }
    S.bar = document.createElement("nav");
    S.bar.className = "attn-embed-bar";
    S.bar.setAttribute("aria-label", "this figure");
    S.bar.innerHTML = barHtml();
    page.prepend(S.bar);
    S.bar.querySelector(".attn-embed-copy").addEventListener("click", copy);
    const figure = (plan.embed_figures || {})[name];
    S.pngTexts = plan.png_texts;
    S.bar.querySelector(".attn-embed-save").addEventListener("click", () => save(figure));
    // the address follows the state (history.replaceState): the link is written anew as it is used
    const whole = S.bar.querySelector("a.attn-embed-whole"), fresh = () => { whole.href = wholeLink(location, S.plan); };
    for (const ev of ["pointerenter", "focus", "click"]) whole.addEventListener(ev, fresh);
    return S.blocks;
  }

  // The plots that fill the frame share its height left after the bar and the other blocks (--embed-rest), again
  // whenever those change size (a slider's title that wraps, a narrower frame).
  function fit(page) {
    if (!S.section) return;
    const fills = S.blocks.filter((b) => b.fill).length || 1;
    const measure = () => {
      let rest = S.bar.getBoundingClientRect().height;
      for (const b of S.blocks) {
        const el = document.getElementById(b.el);
        if (el && !b.fill) rest += el.getBoundingClientRect().height;
      }
      page.style.setProperty("--embed-rest", `${Math.ceil(rest) + 8}px`);
      page.style.setProperty("--embed-fills", String(fills));
    };
    measure();
    const again = () => {   // from the plots' own heights, to the frame's
      for (const [m, h] of S.tall) m.height = h;
      S.fitted = false;
      requestAnimationFrame(() => requestAnimationFrame(() => fitPlots(page, 4)));
    };
    again();
    let width = window.innerWidth, height = window.innerHeight;
    window.addEventListener("resize", () => {
      if (window.innerWidth === width && window.innerHeight === height) return;
      width = window.innerWidth; height = window.innerHeight;
      again();
    });
    if (typeof ResizeObserver === "function") {
      const ro = new ResizeObserver(measure);
      ro.observe(S.bar);
      for (const b of S.blocks) if (!b.fill) { const el = document.getElementById(b.el); if (el) ro.observe(el); }
    }
  }

  // Plots of a fixed height (the learning section's descent and fit) take the frame's height left, together: each
  // row of them grows or shrinks by an equal share of what is left over or too much (no plot under SHORTEST px
  // nor over twice its own height), measured again after each change until the page fits the frame.
  const SHORTEST = 140;
  function fitPlots(page, tries) {
    const doc = globalThis.AttnPage && AttnPage.doc;
    S.fitted = !doc || tries <= 0;
    if (S.fitted) return;
    for (const m of doc.all_models) {
      if (Array.isArray(m.renderers) && typeof m.height === "number" && !/both|height/.test(m.sizing_mode || "") &&
          !S.tall.has(m) && Bokeh.index.find_one(m)) S.tall.set(m, m.height);
    }
    const shown = Array.from(S.tall.keys()).filter((m) => {
      const v = m.visible !== false && Bokeh.index.find_one(m);
      return v && v.el.isConnected && v.el.getBoundingClientRect().height > 0;
    });
    const left = window.innerHeight - Math.ceil(page.getBoundingClientRect().bottom + window.scrollY) - 4;
    const rows = new Set(shown.map((m) => Math.round(Bokeh.index.find_one(m).el.getBoundingClientRect().top))).size;
    if (!rows || Math.abs(left) < rows * 2) { S.fitted = true; return; }
    const by = Math.floor(left / rows);
    for (const m of shown) m.height = Math.max(SHORTEST, Math.min(2 * S.tall.get(m), m.height + by));
    requestAnimationFrame(() => requestAnimationFrame(() => fitPlots(page, tries - 1)));
  }

  // What the section's frame leaves out (app/contract.py embed_leaves_out), hidden once its blocks are drawn.
  function leaveOut(doc) {
    for (const name of (S.plan.embed_leaves_out || {})[S.section] || []) {
      const m = doc && doc.get_model_by_name(name);
      if (m) m.visible = false;
    }
  }

  function embedded() { return S.section; }

  // The frame's height left for one block: the frame's, less the bar's and the other frame blocks' (a block that
  // sizes itself, the self-attention matrix, fits into it: app/sentence/sizes.js).
  function room(name) {
    let rest = S.bar ? S.bar.getBoundingClientRect().height : 0;
    for (const b of S.blocks) {
      const el = b.name === name ? null : document.getElementById(b.el);
      if (el) rest += el.getBoundingClientRect().height;
    }
    return window.innerHeight - rest;
  }

  // A frame block's height as drawn (0 before it is drawn).
  function height(name) {
    const b = S.blocks.find((x) => x.name === name), el = b && document.getElementById(b.el);
    return el ? el.getBoundingClientRect().height : 0;
  }

  return { start, fit, leaveOut, embedded, room, height, sectionOf, wholeLink,
           get fitted() { return S.fitted; } };   // (the plots have their heights: for tests)
})();
globalThis.AttnEmbed = AttnEmbed;
