// Keeping what a step talks about on screen: the page scrolled as little as possible so that the named elements
// show, below whatever stays stuck at the top of the screen above them (the stage on a phone) and above the
// tour's card where it is docked at the screen's foot; a pinned column that scrolls inside itself (a wide
// screen's figure column) scrolled so that they show in it.  The loader (ui/loader.js, AttnPage.reveal) draws
// their blocks first and asks AttnReveal.show.  Runs after the library, in the page's own script.

const AttnReveal = (function () {
  "use strict";

  const frame = () => new Promise((r) => requestAnimationFrame(r));

  // The page's section an element is in (walking out of the shadow roots BokehJS draws into).
  function sectionOf(el) {
    for (let e = el; e; e = e.parentElement || (e.getRootNode && e.getRootNode().host) || null)
      if (e.nodeType === 1 && e.classList.contains("attn-sec")) return e;
    return null;
  }

  // Where the grid of an element's section starts on the page (px from the page's top): a sticky column in it
  // (the figure on a wide screen, the stage on a phone) sticks once the page is scrolled past this.
  function gridTop(el) {
    let grid = null;
    for (let e = el; e && !grid; e = e.parentElement || (e.getRootNode && e.getRootNode().host) || null)
      if (e.nodeType === 1 && e.classList.contains("attn-grid")) grid = e;
    const from = grid || stickyAncestor(el);
    return from ? from.getBoundingClientRect().top + scrollY : scrollY;
  }

  function stickyAncestor(el) {
    for (let e = el; e; e = e.parentElement || (e.getRootNode && e.getRootNode().host) || null)
      if (e.nodeType === 1 && getComputedStyle(e).position === "sticky") return e;
    return null;
  }

  // The foot of what the student can see: the top of the tour's card where it is docked at the foot of the screen
  // (app/tour/tour.js), else the screen's bottom.
  // (above what lies over the same columns: on a wide screen the card docks under the side column only)
  function dockTop(left = -Infinity, right = Infinity) {
    const d = document.querySelector(".attn-docked"), r = d && d.getBoundingClientRect();
    if (!r || r.height <= 0 || r.right <= left || r.left >= right) return innerHeight;
    return Math.max(0, Math.min(innerHeight, r.top));
  }

  // A pinned column taller than the room it has (a wide screen's figure column, which scrolls inside itself):
  // scrolled so that the elements it holds are inside its visible part, the first one first.
  // Returns whether it scrolled one.
  function scrollColumns(pinned) {
    let moved = false;
    for (const e of pinned) {
      const box = scrollBox(e);
      if (!box) continue;
      const r = e.getBoundingClientRect(), b = box.getBoundingClientRect();
      const bottom = Math.min(b.bottom, dockTop(r.left, r.right)), was = box.scrollTop;
      if (r.top < b.top) box.scrollTop -= b.top - r.top + 4;
      else if (r.bottom > bottom) box.scrollTop += Math.min(r.bottom - bottom + 4, r.top - b.top);
      moved = moved || Math.abs(box.scrollTop - was) >= 1;
    }
    return moved;
  }

  function scrollBox(el) {
    for (let e = el.parentElement || (el.getRootNode && el.getRootNode().host); e;
         e = e.parentElement || (e.getRootNode && e.getRootNode().host) || null) {
      if (e.nodeType !== 1) continue;
      const st = getComputedStyle(e);
      if (/(auto|scroll)/.test(st.overflowY) && e.scrollHeight > e.clientHeight + 1) return e;
      if (e.classList.contains("attn-sec")) return null;
    }
    return null;
  }

  // The elements find() returns once they are laid out (a block just drawn, a column just opened) and the texts
  // that follow a change have been written (they move what is under them), at most 1 s: those with a size.
  async function laidOut(find) {
    let els = [], last = "", still = 0;
    for (let k = 0; k < 60; k++) {
      await frame();
      els = find();
      const now = els.map((e) => { if (!e) return "-"; const r = e.getBoundingClientRect(); return `${r.top},${r.height}`; }).join("|");
      still = now === last ? still + 1 : 0;
      last = now;
      const ready = els.every((e) => e && e.getBoundingClientRect().height > 0) && !(globalThis.__attnTextsPending > 0);
      if (ready && still >= 2) break;   // laid out, and not moving for two frames
    }
    return els.filter((e) => e && e.getBoundingClientRect().height > 0);
  }

  // Where a list of elements lies on the page: its top and bottom from the page's top, its left and right.
  function span(list, y0) {
    const rs = list.map((e) => e.getBoundingClientRect());
    return { top: Math.min(...rs.map((r) => r.top)) + y0, bottom: Math.max(...rs.map((r) => r.bottom)) + y0,
             left: Math.min(...rs.map((r) => r.left)), right: Math.max(...rs.map((r) => r.right)) };
  }

  // What stays stuck above the elements `need` spans (sticky, in their section, horizontally over them): its
  // height is lost to them.
  function stuckBand(free, need, H, y0) {
    let band = 0;
    const sec = sectionOf(free[0]);
    for (const st of sec ? sec.querySelectorAll(".attn-stage, .attn-fig") : []) {
      if (getComputedStyle(st).position !== "sticky") continue;
      // (its column: the nearest ancestor with a box; a phone's figure column is display: contents)
      let col = st.parentElement;
      while (col && getComputedStyle(col).display === "contents") col = col.parentElement;
      const r = st.getBoundingClientRect(), box = col && col.getBoundingClientRect();
      if (box && box.bottom + y0 <= need.top) continue;   // its column ends above them: it scrolls away first
      if (r.right > need.left && r.left < need.right && r.height < H * 0.75) band = Math.max(band, r.height);
    }
    return band;
  }

  // Where to scroll so that the elements that scroll with the page show whole, above the docked card and below
  // what stays stuck (and the pinned ones stuck, from stuckFrom on); too tall together, the first (the figure)
  // whole, at the top.  options.with: the id of one more element to keep on screen when it fits too (the step
  // card above a figure).
  function freeTarget(free, stuckFrom, options, y0, gap) {
    const need = span(free, y0);
    const H = dockTop(need.left, need.right);
    const band = stuckBand(free, need, H, y0);
    const room = H - band - 2 * gap;
    // the scroll positions that show a span whole: [bottom - H + gap, top - band - gap]
    const range = (sp) => [sp.bottom - H + gap, sp.top - band - gap];
    let [lo, hi] = range(need);
    if (stuckFrom !== null) lo = Math.max(lo, stuckFrom);
    if (need.bottom - need.top > room) {   // too tall together: the first (the figure) whole, at the top
      const first = span([free[0]], y0);
      lo = hi = first.top - band - gap;
    } else {
      // one more element (the step card, where it is not docked), when everything fits with it
      const extra = options.with ? document.getElementById(options.with) : null;
      if (extra && !extra.classList.contains("attn-docked") && !stickyAncestor(extra) &&
          extra.getBoundingClientRect().height > 0) {
        const all = span(free.concat([extra]), y0);
        if (all.bottom - all.top <= room) [lo, hi] = range(all);
      }
    }
    return Math.min(Math.max(y0, lo), hi);
  }

  // Only pinned elements: their column brought into view, stuck at the top of the screen, if one of them is not
  // on screen above the docked card.
  function pinnedTarget(pinned, stuckFrom, y0, gap) {
    let want = y0;
    const rs = pinned.map((e) => e.getBoundingClientRect()), top = Math.min(...rs.map((r) => r.top));
    if (top < 0) want = y0 + top - gap;   // the column has scrolled away with the end of its section: back to it
    else if (y0 < stuckFrom && rs.some((r) => r.bottom > dockTop(r.left, r.right))) want = stuckFrom;
    return want;
  }

  // Scroll as little as possible so that every element find() returns is on screen.  Elements inside a sticky
  // column stay in view by themselves once their section is; the others decide where to scroll.  Returns
  // whether the page or a column moved (then the caller looks again: a block just drawn may still be settling).
  // options.current: whether this is still the newest request (ui/loader.js); once it is not, nothing moves.
  async function show(find, options) {
    const els = await laidOut(find);
    if (!els.length || (options.current && !options.current())) return false;
    const free = els.filter((e) => !stickyAncestor(e)), pinned = els.filter((e) => stickyAncestor(e));
    const y0 = scrollY, gap = 8;
    // where the page must be scrolled to at least for the pinned elements to be stuck at the top of the screen (a
    // sticky column starts at the top of its section's grid): below, they would sit lower, in their own place
    const stuckFrom = pinned.length ? Math.min(...pinned.map(gridTop)) - gap : null;
    let want = free.length ? freeTarget(free, stuckFrom, options, y0, gap) : pinnedTarget(pinned, stuckFrom, y0, gap);
    want = Math.max(0, Math.round(want));
    if (Math.abs(want - y0) < 2) return scrollColumns(pinned);   // the page is where it should be: now the columns
    const smooth = !(matchMedia && matchMedia("(prefers-reduced-motion: reduce)").matches);
    scrollTo({ top: want, behavior: smooth ? "smooth" : "auto" });
    if (smooth) {   // the glide's end, at most a second
      for (let k = 0; k < 60 && Math.abs(scrollY - want) > 2; k++) await frame();
    }
    return true;
  }

  return { show };
})();
