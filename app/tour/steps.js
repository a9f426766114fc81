// The guided tour's steps: what a step's goal compares and whether it holds, the step a link opens, and what opening
// a step does.
//
// compare and holds (twins of compare and holds in app/tour/model.py) on the readouts each section gives the
// page's bus, and the link's tour value read and written back (twin of resolve_step).  The tour's engine (tour.js) runs after this file and dock.js, in one Bokeh CustomJS.

const AttnTourSteps = (function (U) {
  "use strict";

  // twin of compare in app/tour/model.py
  function compare(x, op, y, tol) {
    const exact = (v) => typeof v === "string" || typeof v === "boolean";
    if (exact(x) || exact(y)) {   // text and true/false: equal only in type and value (model.py compare)
      const same = typeof x === typeof y && x === y;
      return op === "==" ? same : op === "!=" ? !same : false;
    }
    const close = Math.abs(x - y) <= tol;
    switch (op) {
      case "<": return x < y && !close;
      case "<=": return x <= y || close;
      case ">": return x > y && !close;
      case ">=": return x >= y || close;
      case "==": return close;
      case "!=": return !close;
      default: return false;
    }
  }

  // Whether the step's goal holds, on its section's readouts (they say whether Play runs, too: twin of holds in
  // app/tour/model.py, whose Show-me check reads Play as stopped).
  function holds(a, c) {
    const step = c.cfg.steps[c.step - 1];
    if (!step) return false;
    // a section may work its numbers out when asked (the regression's cost too much to publish at every move);
    // the others publish theirs on the page's bus
    const r = step.asked
      ? U.askReadouts(a.card.document, step.section, new Set(step.when.map((w) => w[0])))
      : c.sectionReadouts[step.section];
    if (!r) return false;
    c.last = r;
    return step.when.every(([name, op, v]) => r[name] !== undefined && compare(r[name], op, v, c.cfg.tolerance));
  }

  // A link's tour value: the step it opens and a notice when it had to be corrected (twin of resolve_step in
  // app/tour/model.py: a number 0 to n, or a step's id; anything else opens step 1 and says why).
  const ID = /^(?=[a-z0-9-]*[a-z])[a-z0-9]+(-[a-z0-9]+)*$/;
  function quoted(raw, L) {
    const cps = Array.from(raw);
    return `\u201c${cps.length <= L.shown_max ? raw : cps.slice(0, L.shown_max).join("") + "\u2026"}\u201d`;
  }
  function resolveStep(given, cfg) {
    const n = cfg.steps.length, L = cfg.link;
    if (given === null || given === undefined) return { k: 1, notice: null };
    const raw = String(given).replace(/^[ \t\n\r\f\v]+|[ \t\n\r\f\v]+$/g, "");
    if (raw === "") return { k: 1, notice: "Ignored an empty value for \u201ctour\u201d." };
    if (/^[0-9]+$/.test(raw)) {
      const v = Number(raw);
      if (v <= n) return { k: v, notice: null };
      return { k: 1, notice: `There is no step ${raw.replace(/^0+(?=\d)/, "")} in this tour (it has ${n} step${n === 1 ? "" : "s"}); showing step 1.` };
    }
    const low = raw.replace(/[A-Z]/g, (ch) => ch.toLowerCase());
    const at = cfg.steps.findIndex((s) => s.id === low);
    if (at >= 0) return { k: at + 1, notice: null };
    if (ID.test(low) && low.length <= L.max_id) return { k: 1, notice: `There is no step ${quoted(raw, L)} in this tour; showing step 1.` };
    return { k: 1, notice: `Ignored tour=${quoted(raw, L)}: expected a step's number (0 to ${n}) or its id, such as ` +
                           `\u201c${L.first_id}\u201d; showing step 1.` };
  }
  // The link's step, whether the link names it, and whether it carries a setting of the page (a prepared state).
  function stepFromUrl(cfg) {
    let params = null;
    try { params = new URLSearchParams(window.location.search); } catch (e) { params = null; }
    const vals = params ? params.getAll("tour") : [];
    const prepared = !!params && [...params.keys()].some((k) => !cfg.how_shown.includes(k) && k in cfg.defaults);
    return Object.assign(resolveStep(vals.length ? vals[vals.length - 1] : null, cfg), { named: vals.length > 0, prepared });
  }

  function writeUrl(c) {   // not in a notebook, whose address is JupyterLab's (see app/delivery/page.py)
    if (!c.urlArmed || globalThis.__attnHostOwnsAddress === true) return;
    try {
      const out = new URLSearchParams(window.location.search);
      const k = c.visible ? c.step : 0;
      if (k === 1) out.delete("tour"); else out.set("tour", k === 0 ? "0" : c.cfg.steps[k - 1].id);
      const q = out.toString();
      window.history.replaceState(null, "", (q ? "?" + q : window.location.pathname) + window.location.hash);
    } catch (e) { /* a sandboxed frame may refuse; the tour works without it */ }
  }

  // What opening step k does (tour.js openStep, the one way every step opens).  `how` it opens: "start" (the page
  // opens on it: a link, or a notebook's synced step), "turn" (Next, Previous, Skip, a presenter's key, Start
  // again) or "synced" (a notebook moves the card); `now`: whether the page is in presentation mode, whether the
  // card is visible, how many of the models the step looks at are hidden, and at the start whether the link names
  // the step (`named`) and whether the page opens in a prepared state (`prepared`: a link's or an export's settings).
  // In presentation mode every step opens shown (its Show me), a link's as a key's, except the first step a page
  // opens on unnamed in a prepared state: an instructor's `export --present --query 2.5` keeps its state.  Elsewhere
  // a turned step, or a linked one past the first, comes into view, and a step that asks for a control still hidden
  // first sets what shows it (its `ready`: the settings of its state other than those of the controls it looks at,
  // by the section that owns them).
  function opening(step, k, how, now) {
    if (!now.visible) return { show: false, look: false, ready: null };
    const show = !!now.presenting && !(how === "start" && !now.named && now.prepared);
    const look = !show && (how === "turn" || (how === "start" && k > 1));
    const ready = !show && now.hidden > 0 && Object.keys(step.ready || {}).length > 0 ? step.ready : null;
    return { show, look, ready };
  }

  return { compare, holds, resolveStep, stepFromUrl, writeUrl, opening };
})(AttnCommon);
