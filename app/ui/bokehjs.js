// BokehJS's private parts, behind one door: every name of BokehJS's that is not its public API and that the page
// uses is reached through this file, with the reason for each.  Any BokehJS release may rename one; this file
// finds out which, says so once in the console with BokehJS's version, and the page takes the way round that each
// name has (AttnBokeh.report() lists what was found, for the tests):
//
//   name                                   why the page uses it                       without it
//   require("document").Document           decode the page's document (first part)    the whole page, drawn at once
//   require("core/view_manager")           draw one block at a time                   the whole page, drawn at once
//   require("core/serialization/deserializer")  decode a later section's part          the whole page, drawn at once
//   Document#_all_models, #_roots           put a decoded part's models and roots in   the whole page, drawn at once
//   Document#notify_idle                    tell BokehJS a root without a view is done  the whole page, drawn at once
//   PlotView#_invalidate_layout_if_needed   lay out axes only when ranges changed      every repaint lays them out
//   <style> view #_update                   write a sheet only when its text changes   every repaint writes them
//   GlyphRendererView#update_position       place an empty glyph element only if used  every repaint places them
//   view #base_font_size (getter)           read the font size once per task           read at every text laid out
//   visual #_get_css_value                  read a --bk-* CSS variable once            read at every paint
//   PlotView#throttled_paint                paint at the next frame, not the clock's   BokehJS's own timing
//   MarkupView#markup_el                    write a changing text without a relayout   the model's text (a relayout)
//   require("core/util/ndarray").ndarray    an image's cells as one typed array        rows of plain arrays (copied)
//
// The "whole page" way is BokehJS's public embedding (Bokeh.embed.embed_items): slower to open, the same page.
// Runs before app/ui/common.js, in the loader and in each engine (a notebook has no loader).

const AttnBokeh = (function () {
  "use strict";

  const FOUND = globalThis.__attnBokeh || (globalThis.__attnBokeh = { missing: [], said: new Set() });

  function version() {
    return (typeof Bokeh !== "undefined" && Bokeh.version) || "(unknown version)";
  }

  // Say once that `name` is missing, and what the page does instead.
  function without(name, instead) {
    if (FOUND.said.has(name)) return;
    FOUND.said.add(name);
    FOUND.missing.push(name);
    console.warn(`attention explorable: BokehJS ${version()} has no ${name}; ${instead}.`);
  }

  // A BokehJS module by its path inside BokehJS (not a public API: its paths are BokehJS's own files).
  function module(path) {
    try { return typeof Bokeh !== "undefined" && typeof Bokeh.require === "function" ? Bokeh.require(path) : null; }
    catch (e) { return null; }
  }

  // ---- the loader: one document, decoded in parts and drawn block by block ----------------------------------

  const WHOLE = "the page is drawn whole, at once, by BokehJS's public embedding";

  // What the loader needs to decode the page in parts and draw it block by block, or null (said in the console)
  // when one of them is missing.
  function loaderParts() {
    const need = [["Document", "document"], ["ViewManager", "core/view_manager"],
                  ["Deserializer", "core/serialization/deserializer"]];
    const out = {};
    for (const [name, path] of need) {
      const m = module(path);
      if (!m || typeof m[name] !== "function") { without(`require("${path}").${name}`, WHOLE); return null; }
      out[name] = m[name];
    }
    if (typeof out.Document.from_json !== "function") { without("Document.from_json", WHOLE); return null; }
    if (typeof out.Document.prototype.notify_idle !== "function") { without("Document#notify_idle", WHOLE); return null; }
    return out;
  }

  // A document's map of models and list of roots, which a part's decoded models join; null when either is missing.
  function documentInsides(doc) {
    const models = doc && doc._all_models, roots = doc && doc._roots;
    if (!(models instanceof Map) || !Array.isArray(roots)) { without("Document#_all_models or #_roots", WHOLE); return null; }
    return { models, roots };
  }

  // Decode one part (its JSON) into `doc`: its new models attached, its roots among the document's roots.
  // The roots join the list directly: add_root would walk every model of the page again to find them.
  function decodePart(parts, doc, json) {
    const inside = documentInsides(doc);
    if (!inside) throw new Error("the document cannot take a part");
    const fresh = [];
    const de = new parts.Deserializer(doc.resolver, inside.models, (m) => { m.attach_document(doc); fresh.push(m); });
    const roots = de.decode(json.roots);
    inside.roots.push(...roots.filter((r) => !inside.roots.includes(r)));
    return { fresh, roots };
  }

  // A root that draws nothing (the document's configuration) counts as drawn, as BokehJS's own embedding says.
  function idle(doc, model) { if (model.default_view == null) doc.notify_idle(model); }

  // ---- a Div's text written where it shows, without laying the page out again -----------------------------

  function markupElement(view) {
    const el = view && view.markup_el;
    if (view && !el && !FOUND.said.has("MarkupView#markup_el"))
      without("MarkupView#markup_el", "texts that change at every move go through the model (a relayout each)");
    return el && el.isConnected ? el : null;
  }

  // ---- paints at the animation frame ---------------------------------------------------------------------------

  // Replace a plot view's own paint request (BokehJS waits for the clock's 16 ms) with `request`; false when the
  // view has no such method to replace.
  function paintRequests(view, request) {
    if (typeof view.throttled_paint !== "function") {
      without("PlotView#throttled_paint", "plots paint on BokehJS's own schedule");
      return false;
    }
    view.throttled_paint = request;
    return true;
  }

  // ---- lighter repaints: what BokehJS does at every repaint and this page never needs -----------------------
  // (app/ui/common.js lightenRepaints says why each one is safe to skip)

  function ownerOf(obj, name) {
    for (let p = obj && Object.getPrototypeOf(obj); p; p = Object.getPrototypeOf(p))
      if (Object.prototype.hasOwnProperty.call(p, name) && typeof p[name] === "function") return p;
    return null;
  }

  // Each patch, given a drawn plot view: true once it is in place (or found missing: said, and never looked for
  // again), false when this view cannot tell (a plot without glyphs yet).
  const PATCHES = {
    layout(view, light, sideKey) {
      const P = ownerOf(view, "_invalidate_layout_if_needed");
      if (!P || !Array.isArray(view.model.side_panels)) {
        without("PlotView#_invalidate_layout_if_needed", "every repaint lays the axes out again");
        return true;
      }
      const original = P._invalidate_layout_if_needed;
      P._invalidate_layout_if_needed = function () {
        const key = sideKey(this);
        if (!this._needs_layout && key === this.__attnSideKey) return;
        original.call(this);
        this.__attnSideKey = key;
      };
      if (typeof document !== "undefined" && document.fonts && document.fonts.addEventListener)
        document.fonts.addEventListener("loadingdone", () => { light.fontEpoch += 1; });
      return true;
    },
    sheets(view) {
      if (!view.renderer_views) return false;
      for (const r of view.renderer_views.values()) {
        if (!r.position || !r.position.el) continue;
        const P = ownerOf(r.position, "_update");
        if (!P) break;
        const original = P._update;
        P._update = function (css) {
          if (this.el && this.el.textContent === css) return;
          original.call(this, css);
        };
        return true;
      }
      if (!view.renderer_views.size) return false;
      without("the style sheet view's _update", "every repaint writes its sheets again");
      return true;
    },
    positions(view) {
      if (!view.renderer_views) return false;
      for (const r of view.renderer_views.values()) {
        if (!r.glyph) continue;
        if (typeof r.update_position !== "function") break;
        const P = Object.getPrototypeOf(r), inherited = P.update_position;
        P.update_position = function () { if (this.el && this.el.firstElementChild) inherited.call(this); };
        return true;
      }
      if (![...view.renderer_views.values()].some((r) => r.glyph)) return false;
      without("GlyphRendererView#update_position", "every repaint places the glyphs' empty elements");
      return true;
    },
    fontSize(view, light) {
      for (let p = Object.getPrototypeOf(view); p; p = Object.getPrototypeOf(p)) {
        const d = Object.getOwnPropertyDescriptor(p, "base_font_size");
        if (!d) continue;
        if (typeof d.get !== "function") break;
        const get = d.get;
        Object.defineProperty(p, "base_font_size", {
          configurable: true, enumerable: d.enumerable, set: d.set,
          get() {
            const known = this.__attnFontSize;
            if (known && known.task === light.task) return known.value;
            const value = get.call(this);
            this.__attnFontSize = { task: light.task, value };
            if (!light.taskEnds) {
              light.taskEnds = true;
              setTimeout(() => { light.taskEnds = false; light.task += 1; }, 0);
            }
            return value;
          },
        });
        return true;
      }
      without("the view's base_font_size getter", "every text laid out reads the font size again");
      return true;
    },
    css(view) {
      if (!view.renderer_views) return false;
      for (const r of view.renderer_views.values()) {
        const visual = r.visuals && Object.values(r.visuals).find((v) => v && ownerOf(v, "_get_css_value"));
        const P = visual && ownerOf(visual, "_get_css_value");
        if (!P) continue;
        const original = P._get_css_value;
        P._get_css_value = function (name) {
          const known = this.__attnCss && this.__attnCss.get(name);
          if (known !== undefined) return known;
          const value = original.call(this, name);
          if (this.obj && this.obj.el && this.obj.el.isConnected) (this.__attnCss || (this.__attnCss = new Map())).set(name, value);
          return value;
        };
        return true;
      }
      if (![...view.renderer_views.values()].some((r) => r.visuals)) return false;
      without("the visuals' _get_css_value", "every paint reads the --bk-* CSS variables again");
      return true;
    },
  };

  // Put each patch in place once per page, from the first plot view that can tell (`light`: the page's record).
  function lighten(view, light, sideKey) {
    for (const [name, patch] of Object.entries(PATCHES)) {
      if (light[name]) continue;
      try { light[name] = patch(view, light, sideKey); }
      catch (e) { light[name] = true; without(name, `it could not be patched (${e.message})`); }
    }
  }

  // What was found missing (names), for the tests and for a curious reader of the console.
  function report() { return { version: version(), missing: FOUND.missing.slice() }; }

  function canTakeParts(doc) { return !!documentInsides(doc); }

  // ---- an image glyph's cells ----------------------------------------------------------------------------------

  // An n x n image from its cells in rows (a Float64Array): BokehJS's ndarray takes them as they are; without it,
  // an image is given as n rows of plain numbers, which BokehJS copies.
  function image2d(flat, n) {
    const m = module("core/util/ndarray");
    if (m && typeof m.ndarray === "function") return m.ndarray(flat, { dtype: "float64", shape: [n, n] });
    without('require("core/util/ndarray").ndarray', "an image's cells are passed as rows of numbers");
    return Array.from({ length: n }, (_, i) => Array.from(flat.subarray ? flat.subarray(i * n, (i + 1) * n) : flat.slice(i * n, (i + 1) * n)));
  }

  return { version, module, loaderParts, canTakeParts, decodePart, idle, markupElement, paintRequests, lighten,
           image2d, report, without };
})();
globalThis.AttnBokeh = AttnBokeh;
