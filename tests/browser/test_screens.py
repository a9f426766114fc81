"""Every screen (issue 12): a phone, a laptop and a projector each see the whole page, legible and aligned.

The offline file at four screens: phones 360x740 and 390x844 (touch, 2x pixels), a laptop 1366x768 and a
projector 1920x1080 in presentation mode (``?present=1``); and the served page (the same bytes at / of
``attention-explorable serve``) on the laptop for the fonts, which come under the server's
Content-Security-Policy there (the other checks read the same page laid out the same way).  Each case loads
the page once (a module-scoped fixture), scrolls through all of it, waits until the loader has drawn every
block and the layout is stable, and gathers one report in the browser; the tests below each check one part
of that report, with messages that name the element and the numbers.  The touch, scale and audit tests then
drive the same page.  With SCREENS_REPORT_DIR set, each case's whole report is written there as JSON.
(That a tour step's figure and control are on screen together: tests/browser/test_in_view.py.)

Bokeh draws into shadow DOM and onto canvases, so the report reads the views (Bokeh.index) and the
models (text_font_size, ...) rather than CSS selectors.  The tests need only the fonts CI installs
(Debian's fonts-dejavu-core): sizes are read from computed styles and models, and widths are
measured with the browser's own fonts.
"""

from __future__ import annotations

import json
import math
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.browser.pageutil import (ALL_VIEWS_JS, DRAW_ALL_JS, block_outside, core_readout, data_to_page_x, drag,
                                    page_state, plot_geometry, readout_rows, expected_rows, scroll_through,
                                    set_model_prop, shown_paragraphs, touch_gesture, wait_frames, wait_ready,
                                    wait_texts)


@dataclass(frozen=True)
class Screen:
    name: str
    width: int
    height: int
    touch: bool = False
    present: bool = False

    @property
    def phone(self):
        return self.touch


PHONE_360 = Screen("phone360", 360, 740, touch=True)
PHONE_390 = Screen("phone390", 390, 844, touch=True)
LAPTOP = Screen("laptop1366", 1366, 768)
PROJECTOR = Screen("projector1920", 1920, 1080, present=True)
SCREENS = [PHONE_360, PHONE_390, LAPTOP, PROJECTOR]


def cases(screens, deliveries=("offline",)):
    return [pytest.param((d, s), id=f"{d}-{s.name}") for d in deliveries for s in screens]


ALL_CASES = cases(SCREENS)
PHONE_CASES = cases([PHONE_360, PHONE_390])
FLAT_CASES = cases([PHONE_360, PHONE_390, LAPTOP])       # the shared-x check: phones and the laptop
LAPTOP_CASES = cases([LAPTOP])
FONT_CASES = LAPTOP_CASES + cases([LAPTOP], ("served",))  # the page's fonts under the server's headers too

# Minimum sizes in CSS px.  HTML: "body" is the text of Divs (intro, readouts, captions, explanations),
# "label" the text of widgets and legends; <sub>/<sup> may be SUB_SHRINK times smaller.
HTML_MIN = {"phone": {"body": 14, "label": 14}, "laptop": {"body": 16, "label": 14},
            "projector": {"body": 22, "label": 22}}
SUB_SHRINK = 0.75
# Canvas: titles, axis labels, legends, colour bar titles; tick labels, colour bar labels and the words drawn in a
# plot (text glyphs, labels) have their own minimum: every canvas text is at least 20 px on a projector.
CANVAS_MIN = {"phone": (14, 12), "laptop": (14, 12), "projector": (20, 20)}
SMALL_CANVAS_TEXT = ("tick labels", "colour bar labels", "text glyph", "label", "label set")
PX_TOL = 0.5          # rounding of boxes
GLYPH_TOL = 1.0       # a text's measured width includes its first and last glyphs' side bearings (no ink)
SHARED_X_TOL = 1.0    # issue 12: x = 3 at the same screen x within 1 px
SLIDER_TOL = 4.0      # the slider track's ends against the main plot's frame


def kind(screen):
    return "projector" if screen.present else ("phone" if screen.phone else "laptop")


# Every text a plot draws on its canvas, read from its renderers' views (what they paint with, value specs and
# data columns resolved): (pv, kids) => [{what, text, size (px), font, ...}], kids being the plot's renderer views.
# Titles, tick labels, axis labels, colour bars, legends (and their titles), Label and LabelSet annotations, and
# the words of Text glyphs (each one with its box in canvas px, from the glyph's own rect_i, its data x and y
# and its source's name).  A text the list does not know comes back as "unknown", so a test that reads it sees
# a new kind of text instead of skipping it.
CANVAS_TEXTS_JS = r"""(pv, kids) => {
  const out = [];
  const px = (font) => { const m = /(\d*\.?\d+)(px|pt|em|rem)\b/.exec(font || '');
    if (!m) return NaN; const n = parseFloat(m[1]); return m[2] === 'px' ? n : m[2] === 'pt' ? n * 4 / 3 : n * 16; };
  const str = (t) => t == null ? '' : typeof t === 'string' ? t : (t.text !== undefined ? String(t.text) : String(t));
  const put = (what, visual, text, i, extra) => {
    const font = i === undefined ? visual.font_value() : visual.font_value(i);
    out.push(Object.assign({what, text: String(text).slice(0, 40), size: px(font), font}, extra || {}));
  };
  const box = (r) => { const xs = [r.p0.x, r.p1.x, r.p2.x, r.p3.x], ys = [r.p0.y, r.p1.y, r.p2.y, r.p3.y];
    return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)]; };
  const texty = (vis) => Object.entries(vis || {}).filter(([, x]) => x && typeof x.font_value === 'function');
  for (const v of kids) {
    const m = v.model, vis = v.visuals || {}, t = m.type;
    if (m.visible === false) continue;
    if (t === 'Title') { if (str(m.text)) put('title', vis.text, str(m.text)); continue; }
    if (/Axis$/.test(t) && t !== 'CategoricalAxis') {
      const coords = v.tick_coords.major[v.dimension];
      const labels = coords.length ? v.compute_labels(coords).items.map((l) => str(l.text)).filter(Boolean) : [];
      if (labels.length) put('tick labels', vis.major_label_text, labels.join(' '));
      if (str(m.axis_label)) put('axis label', vis.axis_label_text, str(m.axis_label));
      continue;
    }
    if (t === 'ColorBar') {
      put('colour bar labels', vis.major_label_text, 'colour bar');
      if (str(m.title)) put('colour bar title', vis.title_text, str(m.title));
      continue;
    }
    if (t === 'Legend') {
      if ((m.items || []).length) put('legend', vis.label_text, `${m.items.length} items`);
      if (str(m.title)) put('legend title', vis.title_text, str(m.title));
      continue;
    }
    if (t === 'Label') { if (str(m.text)) put('label', vis.text, str(m.text)); continue; }
    if (t === 'LabelSet') {
      const text = v.text || [], at = (i) => str(text.get ? text.get(i) : text[i]);
      for (let i = 0; i < text.length; i++) if (at(i)) put('label set', vis.text, at(i), i);
      continue;
    }
    const g = v.glyph;
    if (t === 'GlyphRenderer' && g && g.model.type === 'Text') {
      for (let i = 0; i < g.data_size; i++) {
        const l = g.labels && g.labels[i];
        if (!l || !str(l.text)) continue;
        const b = box(g.rect_i(i));
        if (!b.every(isFinite)) continue;
        put('text glyph', g.visuals.text, str(l.text), i, {box: b, x: g.x[i], y: g.y[i], source: m.data_source.name});
      }
      continue;
    }
    for (const [name] of [...texty(vis), ...texty(g && g.visuals)])
      out.push({what: 'unknown', text: `${t} ${name}`, size: NaN});
  }
  return out;
}"""


GATHER_JS = r"""
async (args) => {
  const views = (ALL_VIEWS)();
  // the screen's width: without a device-width viewport a phone lays the page out wider (980 px) and zooms out
  const W = args.screen_width || window.innerWidth, H = window.innerHeight;
  const doc = Bokeh.documents[0];
  const rep = {width: W, height: H, inner_width: window.innerWidth,
               visual_scale: window.visualViewport ? window.visualViewport.scale : 1};
  const meta = document.querySelector('meta[name="viewport"]');
  rep.viewport_meta = meta ? meta.getAttribute('content') : null;
  rep.scroll_width = document.documentElement.scrollWidth;
  rep.body_scroll_width = document.body.scrollWidth;
  const label = (v) => `${v.model.type}${v.model.name ? ' ' + v.model.name : ''}`;

  // -- boxes wider than the screen
  const scrollsInside = (el) => { const s = getComputedStyle(el);
    return /(auto|scroll|hidden|clip)/.test(s.overflowX) && el.scrollWidth > el.clientWidth; };
  const parentEl = (el) => el.parentElement || (el.parentNode && el.parentNode.host) || null;
  const insideScroller = (el) => { for (let p = parentEl(el); p; p = parentEl(p)) if (scrollsInside(p)) return true; return false; };
  rep.roots = []; rep.sections = []; rep.too_wide = [];
  const sx = window.scrollX;
  for (const v of Object.values(Bokeh.index).filter((v) => v && v.model && v.el)) { const r = v.el.getBoundingClientRect();
    rep.roots.push({what: label(v), left: r.left + sx, right: r.right + sx}); }
  for (const el of document.querySelectorAll('section.attn-sec')) { const r = el.getBoundingClientRect();
    rep.sections.push({what: 'section ' + el.id, left: r.left + sx, right: r.right + sx}); }
  for (const v of views) {
    if (!v.el || !v.el.isConnected) continue;
    const r = v.el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    if ((r.right + sx > W + 0.5 || r.left + sx < -0.5) && !insideScroller(v.el))
      rep.too_wide.push({what: label(v), left: Math.round(r.left + sx), right: Math.round(r.right + sx)});
  }

  // -- computed font sizes of visible HTML text, through open shadow roots
  const hostView = new Map();
  for (const v of views) if (v.el) hostView.set(v.el, v);
  const BODY = new Set(['Div', 'Paragraph', 'PreText', 'HTML', 'Markup']);
  const owner = (el) => { for (let p = el; p; p = parentEl(p)) { const v = hostView.get(p); if (v) return v; } return null; };
  const texts = [];
  const walk = (node) => {
    if (node.nodeType === 3) {
      const t = node.textContent.replace(/\s+/g, ' ').trim();
      if (!t) return;
      const el = node.parentElement || (node.parentNode && node.parentNode.host);
      if (!el) return;
      const s = getComputedStyle(el);
      if (s.visibility !== 'visible' || s.display === 'none' || parseFloat(s.opacity) === 0) return;
      const range = document.createRange(); range.selectNodeContents(node);
      const rr = range.getBoundingClientRect();
      if (rr.width < 1 || rr.height < 1) return;
      const v = owner(el);
      // text for screen readers only (clipped to a 1 px box, app/regression/view.py VISUALLY_HIDDEN) is not shown
      if (v) { const vr = v.el.getBoundingClientRect(); if (vr.width <= 1 && vr.height <= 1) return; }
      const kind = !v ? 'page' : (BODY.has(v.model.type) ? 'body' : 'label');
      texts.push({text: t.slice(0, 60), size: parseFloat(s.fontSize), kind, view: v ? label(v) : 'page',
                  tag: el.tagName.toLowerCase(), family: s.fontFamily});
      return;
    }
    if (node.nodeType !== 1 && node.nodeType !== 11 && node.nodeType !== 9) return;
    if (node.nodeType === 1) {
      const tag = node.tagName;
      if (tag === 'SCRIPT' || tag === 'STYLE' || tag === 'TEMPLATE' || tag === 'NOSCRIPT' || tag === 'HEAD') return;
      // a select's shown choice and a text field's text are no text nodes of the page: measure the control
      if (tag === 'SELECT' || (tag === 'INPUT' && !['hidden', 'checkbox', 'radio', 'range'].includes(node.type))) {
        const s = getComputedStyle(node), rr = node.getBoundingClientRect();
        if (rr.width >= 1 && rr.height >= 1 && s.visibility === 'visible' && s.display !== 'none') {
          const v = owner(node);
          const shown = tag === 'SELECT' ? ((node.selectedOptions[0] || {}).text || '') : (node.value || node.placeholder);
          texts.push({text: (shown || tag.toLowerCase()).slice(0, 60), size: parseFloat(s.fontSize), kind: 'label',
                      view: v ? label(v) : 'page', tag: tag.toLowerCase(), family: s.fontFamily});
        }
      }
      if (node.shadowRoot) walk(node.shadowRoot);
    }
    for (const c of node.childNodes) walk(c);
  };
  walk(document.body);
  rep.texts = texts;

  // -- canvas text: every plot's titles, axes, colour bars, legends and the words drawn in it (canvasTexts)
  const ctx = document.createElement('canvas').getContext('2d');
  const measure = (font, text) => { ctx.font = font;
    return Math.max(...String(text).split('\n').map((line) => ctx.measureText(line).width)); };
  const canvasTexts = (CANVAS_TEXTS);
  rep.plots = [];
  for (const pv of views.filter((v) => v.model.type === 'Figure' || v.model.type === 'Plot' || v.model.type === 'GMapPlot')) {
    const m = pv.model, r = pv.el.getBoundingClientRect();
    const shown = pv.el.isConnected && r.width > 0 && r.height > 0 && m.visible !== false;
    const plot = {name: m.name || (m.title && m.title.text) || '(unnamed)', shown, canvas_width: pv.bbox.width,
                  canvas_height: pv.bbox.height, frame: {left: pv.frame.bbox.left, right: pv.frame.bbox.right,
                  top: pv.frame.bbox.top, bottom: pv.frame.bbox.bottom}, sizes: [], titles: [], axis_labels: [], legends: []};
    const kids = views.filter((v) => v.parent === pv);
    plot.sizes = canvasTexts(pv, kids).map((t) => ({what: t.what, size: t.size, text: t.text}));
    for (const tv of kids.filter((v) => v.model.type === 'Title')) {
      const t = tv.model; if (!t.text || t.visible === false) continue;
      const font = tv.visuals.text.font_value(), w = measure(font, t.text), bb = tv.bbox;
      let avail;
      if (t.align === 'center') { const c = (bb.x0 + bb.x1) / 2; avail = 2 * Math.min(c, pv.bbox.width - c); }
      else if (t.align === 'right') avail = bb.x1;
      else avail = pv.bbox.width - bb.x0 - (t.offset || 0);
      plot.titles.push({text: t.text, font, width: Math.round(w), avail: Math.round(avail), x0: bb.x0});
    }
    for (const av of kids.filter((v) => /Axis$/.test(v.model.type))) {
      const a = av.model; if (a.visible === false) continue;
      const side = av.panel ? av.panel.side : av.position;
      if (a.axis_label) {
        const font = av.visuals.axis_label_text.font_value(), w = measure(font, a.axis_label);
        const vertical = side === 'left' || side === 'right';
        const length = vertical ? av.bbox.height : av.bbox.width;
        // the label is centred on its axis: where it starts and ends along the canvas's height (or width)
        const mid = vertical ? (av.bbox.y0 + av.bbox.y1) / 2 : (av.bbox.x0 + av.bbox.x1) / 2;
        plot.axis_labels.push({text: a.axis_label, font, side, width: Math.round(w), length: Math.round(length),
                               start: mid - w / 2, end: mid + w / 2,
                               room: Math.round(vertical ? pv.bbox.height : pv.bbox.width)});
      }
    }
    for (const lv of kids.filter((v) => v.model.type === 'Legend')) {
      const l = lv.model; if (l.visible === false) continue;
      const bb = lv.bbox;
      if (bb) plot.legends.push({left: Math.round(bb.x0), right: Math.round(bb.x1), top: Math.round(bb.y0),
                                 bottom: Math.round(bb.y1)});
    }
    rep.plots.push(plot);
  }

  // -- the shared x: x = 3 on screen in the three plots, and the query slider's track
  rep.x3 = {};
  for (const name of ['main_plot', 'weights_plot', 'entropy_x_plot']) {
    const pv = Bokeh.index.find_one(doc.get_model_by_name(name));
    if (!pv) continue;
    const host = pv.el.getBoundingClientRect();
    rep.x3[name] = {x3: host.left + pv.frame.x_scale.compute(3), frame_left: host.left + pv.frame.bbox.left,
                    frame_right: host.left + pv.frame.bbox.right};
  }
  const sv = views.find((v) => v.model.name === 'query_slider');
  if (sv) {
    const base = sv.shadow_el.querySelector('.noUi-base') || sv.shadow_el.querySelector('.noUi-target');
    const r = base ? base.getBoundingClientRect() : null;
    rep.slider_track = r ? {left: r.left, right: r.right} : null;
  }

  // -- the honest scales
  const yr = (name) => { const m = doc.get_model_by_name(name); return m ? [m.y_range.start, m.y_range.end] : null; };
  rep.weights_y = yr('weights_plot');
  rep.entropy_y = yr('entropy_x_plot');
  rep.n = doc.get_model_by_name('samples').data.x.length;
  rep.present = doc.get_model_by_name('present_toggle').active;
  rep.all_drawn = AttnPage.allDrawn();
  return rep;
}
""".replace("ALL_VIEWS", ALL_VIEWS_JS).replace("CANVAS_TEXTS", CANVAS_TEXTS_JS)

SECTIONS_READY_JS = """() => { const d = Bokeh.documents[0], m = (n) => d.get_model_by_name(n);
  const s = m('sentence_readouts'), l = m('learn_bw_readout');
  return !!(s && s.text.includes('max weight') && l && l.text.includes('Step ')); }"""


@dataclass
class Loaded:
    delivery: str
    screen: Screen
    page: object
    cdp: object
    report: dict
    frames_to_stable: int
    timings: dict = field(default_factory=dict)

    @property
    def zoom(self):
        """How much the phone zooms the page out (1 with a device-width viewport): CSS px times zoom = what shows."""
        return min(1.0, self.screen.width / self.report["inner_width"])

    def where(self):
        return f"{self.delivery} page at {self.screen.width}x{self.screen.height}" + (
            " (presentation mode)" if self.screen.present else "")


def platform_fonts(cdp):
    """Fonts Chromium used for the page's text: {family: glyphs}, through shadow roots (CDP)."""
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    root = cdp.send("DOM.getDocument", {"depth": -1, "pierce": True})["root"]
    holders = []

    def visit(node):
        kids = list(node.get("children", [])) + list(node.get("shadowRoots", []))
        if node.get("nodeType") == 1 and node.get("nodeName") not in ("SCRIPT", "STYLE", "HEAD") and any(
                k.get("nodeType") == 3 and k.get("nodeValue", "").strip() for k in kids):
            holders.append(node["nodeId"])
        for k in kids + ([node["contentDocument"]] if "contentDocument" in node else []):
            visit(k)

    visit(root)
    used = {}
    for node_id in holders:
        try:
            fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node_id})["fonts"]
        except Exception:  # a node that went away meanwhile
            continue
        for f in fonts:
            key = f["familyName"] + (" (shipped in the page)" if f.get("isCustomFont") else "")
            used[key] = used.get(key, 0) + f["glyphCount"]
    return used


@pytest.fixture(scope="module", params=ALL_CASES)
def screen(request, browser):
    """One page per delivery x screen, loaded, scrolled through, every block drawn, stable, with its report."""
    delivery, scr = request.param
    base = request.getfixturevalue("served_page") if delivery == "served" else \
        request.getfixturevalue("static_file").as_uri()
    url = base + ("?present=1" if scr.present else "")
    extra = dict(has_touch=True, is_mobile=True, device_scale_factor=2) if scr.touch else {}
    ctx = browser.new_context(viewport={"width": scr.width, "height": scr.height}, idle_drawing=True, **extra)
    page = ctx.new_page()
    page.set_default_timeout(30000)
    try:
        if delivery == "offline":
            block_outside(page)
        t0 = time.perf_counter()
        page.goto(url)
        wait_ready(page, timeout=90000)
        if scr.present:
            page.wait_for_function("() => Bokeh.documents[0].get_model_by_name('present_toggle').active === true")
        t_ready = time.perf_counter() - t0
        page.wait_for_function("() => AttnPage.allDrawn()", timeout=90000)   # the loader, left to itself
        page.wait_for_function(SECTIONS_READY_JS, timeout=60000)
        frames = scroll_through(page)
        report = page.evaluate(GATHER_JS, {"screen_width": scr.width})
        cdp = ctx.new_cdp_session(page)
        loaded = Loaded(delivery, scr, page, cdp, report, frames)
        loaded.timings = {"ready": round(t_ready, 1), "report": round(time.perf_counter() - t0, 1)}
        if os.environ.get("SCREENS_REPORT_DIR"):          # a developer's look at everything measured
            out = Path(os.environ["SCREENS_REPORT_DIR"]) / f"{delivery}-{scr.name}.json"
            out.write_text(json.dumps({"timings": loaded.timings, "frames_to_stable": frames, **report}, indent=1))
        yield loaded
    finally:
        ctx.close()


def fmt(items, n=12):
    items = list(items)
    more = f"\n  … and {len(items) - n} more" if len(items) > n else ""
    return "\n  " + "\n  ".join(str(i) for i in items[:n]) + more


# ----------------------------------------------------------------------------------- layout

@pytest.mark.parametrize("screen", ALL_CASES, indirect=True)
def test_viewport_meta_is_device_width(screen):
    meta = screen.report["viewport_meta"]
    assert meta is not None and "width=device-width" in meta.replace(" ", ""), \
        f"{screen.where()}: <meta name=viewport> is {meta!r}; want content with width=device-width"


@pytest.mark.parametrize("screen", ALL_CASES, indirect=True)
def test_nothing_is_wider_than_the_screen(screen):
    r = screen.report
    w = r["width"]
    assert r["all_drawn"], f"{screen.where()}: measured before every block was drawn"
    assert len(r["sections"]) >= 5, r["sections"]
    assert r["scroll_width"] <= w, \
        f"{screen.where()}: document scrollWidth {r['scroll_width']} px > viewport {w} px (sideways scrolling)"
    boxes = [b for b in r["roots"] + r["sections"] if b["right"] > w + PX_TOL or b["left"] < -PX_TOL]
    assert not boxes, f"{screen.where()}: roots/sections outside the {w} px viewport:" + fmt(boxes)
    assert not r["too_wide"], (f"{screen.where()}: elements reaching past the {w} px viewport"
                               f" (not inside a box that scrolls):" + fmt(r["too_wide"]))


@pytest.mark.parametrize("screen", ALL_CASES, indirect=True)
def test_html_text_is_large_enough(screen):
    mins, zoom = HTML_MIN[kind(screen.screen)], screen.zoom
    small = []
    for t in screen.report["texts"]:
        want = mins["body" if t["kind"] in ("body", "page") else "label"]
        if t["tag"] in ("sub", "sup"):
            want *= SUB_SHRINK
        size = round(t["size"] * zoom, 2)                  # as it shows on the screen
        if size < want - 0.01:
            small.append((size, want, t["view"], t["tag"], t["text"]))
    groups = {}
    for size, want, view, tag, text in small:            # one line per (view, tag, size), with a sample
        g = groups.setdefault((size, want, view, tag), [0, text])
        g[0] += 1
    lines = sorted(((k[0], k[1], k[2], k[3], f"{n}x", text) for k, (n, text) in groups.items()), key=lambda s: s[0])
    sizes = sorted({s[0] for s in small})
    zoomed = f" (page zoomed out to {zoom:.2f})" if zoom < 1 else ""
    assert not small, (f"{screen.where()}{zoomed}: {len(small)} visible texts below the minimum "
                       f"(body {mins['body']} px, labels {mins['label']} px); sizes {sizes};"
                       " (size, min, view, tag, count, sample text):" + fmt(lines, 40))


@pytest.mark.parametrize("screen", ALL_CASES, indirect=True)
def test_canvas_text_is_large_enough(screen):
    least, ticks = CANVAS_MIN[kind(screen.screen)]
    zoom, small = screen.zoom, []
    for p in screen.report["plots"]:
        if not p["shown"]:
            continue
        for s in p["sizes"]:
            want = ticks if s["what"] in SMALL_CANVAS_TEXT else least
            if not (s["size"] * zoom >= want - 0.01):
                small.append((p["name"], s["what"], s["text"], round(s["size"] * zoom, 2), want))
    zoomed = f" (page zoomed out to {zoom:.2f})" if zoom < 1 else ""
    assert not small, (f"{screen.where()}{zoomed}: canvas text below the minimum (titles, axis labels, legends"
                       f" {least} px, ticks and words in plots {ticks} px); (plot, what, text, px, min):"
                       + fmt(small, 40))


@pytest.mark.parametrize("screen", ALL_CASES, indirect=True)
def test_titles_axis_labels_and_legends_are_whole(screen):
    cut = []
    for p in screen.report["plots"]:
        if not p["shown"]:
            continue
        for t in p["titles"]:
            if t["width"] > t["avail"] + PX_TOL:
                cut.append(f"{p['name']}: title {t['text']!r} is {t['width']} px ({t['font']}), "
                           f"{t['avail']} px available")
        for a in p["axis_labels"]:   # longer than its axis is fine (it reaches into the plot's corner), cut is not
            if a["start"] < -GLYPH_TOL or a["end"] > a["room"] + GLYPH_TOL:
                cut.append(f"{p['name']}: {a['side']} axis label {a['text']!r} is {a['width']} px ({a['font']}), "
                           f"centred on a {a['length']} px axis: {a['start']:.1f} to {a['end']:.1f} px of the "
                           f"canvas's {a['room']} px")
        for lg in p["legends"]:
            if lg["left"] < -PX_TOL or lg["right"] > p["canvas_width"] + PX_TOL or lg["top"] < -PX_TOL \
                    or lg["bottom"] > p["canvas_height"] + PX_TOL:
                cut.append(f"{p['name']}: legend box {lg} outside the {p['canvas_width']}x{p['canvas_height']}"
                           " canvas")
    assert not cut, f"{screen.where()}: clipped canvas text:" + fmt(cut, 30)


@pytest.mark.parametrize("screen", FLAT_CASES, indirect=True)
def test_shared_x_plots_and_query_slider_line_up(screen):
    r = screen.report
    x3 = {k: round(v["x3"], 1) for k, v in r["x3"].items()}
    assert set(x3) == {"main_plot", "weights_plot", "entropy_x_plot"}, f"{screen.where()}: plots found: {x3}"
    spread = max(x3.values()) - min(x3.values())
    assert spread <= SHARED_X_TOL, \
        f"{screen.where()}: x = 3 sits at different screen x (px): {x3}, {spread:.1f} px apart (max {SHARED_X_TOL})"
    main, track = r["x3"]["main_plot"], r["slider_track"]
    assert track is not None, f"{screen.where()}: no track (.noUi-base) in the query slider"
    assert abs(track["left"] - main["frame_left"]) <= SLIDER_TOL and \
        abs(track["right"] - main["frame_right"]) <= SLIDER_TOL, (
        f"{screen.where()}: query slider track spans {track['left']:.0f}–{track['right']:.0f} px, the main plot's"
        f" x axis {main['frame_left']:.0f}–{main['frame_right']:.0f} px (tolerance {SLIDER_TOL} px)")


# ----------------------------------------------------------------------------------- touch

QUERY_JS = "() => Bokeh.documents[0].get_model_by_name('query_slider').value"


@pytest.mark.parametrize("screen", PHONE_CASES, indirect=True)
def test_vertical_swipe_on_the_main_plot_scrolls_the_page(screen):
    page, cdp = screen.page, screen.cdp
    page.evaluate("""() => { const v = Bokeh.index.find_one(Bokeh.documents[0].get_model_by_name('main_plot'));
      const r = v.el.getBoundingClientRect(); window.scrollTo(0, window.scrollY + r.top - 10); }""")
    wait_frames(page, 3)
    g = plot_geometry(page, "main_plot")
    q0 = page.evaluate(QUERY_JS)
    # start well away from the query line, on the side with more room
    x_far = g["x0"] + 0.1 * (g["x1"] - g["x0"]) if q0 - g["x0"] > g["x1"] - q0 else g["x1"] - 0.1 * (g["x1"] - g["x0"])
    px = data_to_page_x(g, x_far)
    assert abs(px - data_to_page_x(g, q0)) >= 40, f"{screen.where()}: no room away from the query line"
    y0 = g["top"] + g["height"] * 0.75
    sy0 = page.evaluate("window.scrollY")
    touch_gesture(cdp, [(px, y0 - 25 * i) for i in range(10)])           # finger moves up 225 px
    try:
        page.wait_for_function("(y) => window.scrollY > y + 20", arg=sy0, timeout=5000)
    except Exception:
        pass
    wait_frames(page, 3)
    sy1, q1 = page.evaluate("window.scrollY"), page.evaluate(QUERY_JS)
    assert sy1 > sy0 + 20 and abs(q1 - q0) < 1e-9, (
        f"{screen.where()}: a vertical swipe from x = {x_far:.2f} on the main plot (query at {q0:.2f}) should"
        f" scroll the page and leave the query: scrollY {sy0:.0f} -> {sy1:.0f}, query {q0:.3f} -> {q1:.3f}")


@pytest.mark.parametrize("screen", PHONE_CASES, indirect=True)
def test_finger_drag_from_the_query_line_moves_the_query(screen):
    page, cdp = screen.page, screen.cdp
    page.evaluate("""() => { const v = Bokeh.index.find_one(Bokeh.documents[0].get_model_by_name('main_plot'));
      const r = v.el.getBoundingClientRect(); window.scrollTo(0, window.scrollY + r.top - 10); }""")
    wait_frames(page, 3)
    g = plot_geometry(page, "main_plot")
    q = page.evaluate("() => Bokeh.documents[0].get_model_by_name('query_span').location")
    target = q - 1.2 if q - g["x0"] > 1.5 else q + 1.2
    y = g["top"] + g["height"] * 0.5
    xs = [q + (target - q) * i / 10 for i in range(11)]
    touch_gesture(cdp, [(data_to_page_x(g, x), y) for x in xs])
    try:
        page.wait_for_function(f"() => Math.abs(({QUERY_JS})() - {target}) < 0.15", timeout=5000)
    except Exception:
        pass
    q2 = page.evaluate(QUERY_JS)
    assert abs(q2 - target) < 0.15, (f"{screen.where()}: a finger drag along the query line from {q:.2f} to"
                                      f" {target:.2f} left the query at {q2:.3f}")
    wait_texts(page)   # the readouts follow the finger: the core's numbers at the query it left
    state = page_state(page)
    assert state["query"] == q2 and readout_rows(page) == expected_rows(core_readout(state))


# ----------------------------------------------------------------------------------- honest scales

RANGES_JS = """async () => { const d = Bokeh.documents[0];
  const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
  const out = {};
  for (const name of ['weights_plot', 'entropy_x_plot']) {
    const m = d.get_model_by_name(name); Bokeh.index.find_one(m).el.scrollIntoView({block: 'center'});
    await frame(); await frame(); await frame();
    out[name] = [m.y_range.start, m.y_range.end];
  }
  out.n = d.get_model_by_name('samples').data.x.length;
  return out; }"""


def _scale_problems(ranges, n, when):
    bad = []
    w0, w1 = ranges["weights_plot"]
    if not (abs(w0) <= 0.05 and abs(w1 - 1) <= 0.05):
        bad.append(f"{when}: weights plot y range {w0:.3g}–{w1:.3g}, want 0–1")
    e0, e1, top = *ranges["entropy_x_plot"], math.log2(n)
    if not (abs(e0) <= 0.05 * top and abs(e1 - top) <= 0.05 * top):
        bad.append(f"{when}: entropy-along-x y range {e0:.3g}–{e1:.3g}, want 0–log2({n}) = {top:.3g}")
    return bad


@pytest.mark.parametrize("screen", ALL_CASES, indirect=True)
def test_weights_and_entropy_scales_stay_fixed(screen):
    page, r = screen.page, screen.report
    seen = {"on load": {"weights_plot": r["weights_y"], "entropy_x_plot": r["entropy_y"], "n": r["n"]}}
    # a real drag on the main plot (a mouse, also in the touch contexts), then the query slider
    page.evaluate("""() => { const v = Bokeh.index.find_one(Bokeh.documents[0].get_model_by_name('main_plot'));
      v.el.scrollIntoView({block: 'center'}); }""")
    wait_frames(page, 3)
    g = plot_geometry(page, "main_plot")
    q = page.evaluate(QUERY_JS)
    drag(page, g, g["top"] + g["height"] * 0.5, [q, 1.5 if q > 3 else 4.5])
    seen["after a drag"] = page.evaluate(RANGES_JS)
    page.evaluate("() => { Bokeh.documents[0].get_model_by_name('query_slider').value = 5.5; }")
    page.wait_for_function("() => Math.abs(Bokeh.documents[0].get_model_by_name('query_span').location - 5.5) < 1e-9")
    seen["query at 5.5"] = page.evaluate(RANGES_JS)
    page.evaluate("() => { const s = Bokeh.documents[0].get_model_by_name('bandwidth_slider'); s.value = s.start; }")
    seen["smallest bandwidth"] = page.evaluate(RANGES_JS)
    bad = [b for when, rg in seen.items() for b in _scale_problems(rg, rg["n"], when)]
    changed = [f"{when}: {name} {rg[name]} vs {seen['on load'][name]} on load"
               for when, rg in seen.items() for name in ("weights_plot", "entropy_x_plot")
               if any(abs(a - b) > 1e-9 for a, b in zip(rg[name], seen["on load"][name]))]
    assert not bad and not changed, f"{screen.where()}: scales that move or mislead:" + fmt(bad + changed, 20)


# ----------------------------------------------------------------------------------- accessibility, fonts

WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]


@pytest.mark.parametrize("screen", ALL_CASES, indirect=True)
def test_axe_finds_no_wcag_violation(screen):
    """axe-core with the WCAG 2.0, 2.1 and 2.2 A and AA rules, on every screen (the phones, the laptop, the projector
    in presentation mode), every block drawn: no violation of any impact (issue 47)."""
    import axe_playwright_python
    from axe_playwright_python.sync_playwright import Axe

    # axe-core ships inside the package: nothing is fetched at run time
    assert (Path(axe_playwright_python.__file__).parent / "axe.min.js").stat().st_size > 100_000
    page = screen.page
    requests = []
    page.on("request", lambda q: requests.append(q.url))
    result = Axe().run(page, options={"runOnly": {"type": "tag", "values": WCAG_TAGS}})
    violations = result.response["violations"]
    bad = [(v["impact"], v["id"], len(v["nodes"]), v["help"],
            [" ".join(n.get("html", "").split())[:100] for n in v["nodes"][:3]]) for v in violations]
    assert not [u for u in requests if u.startswith(("http:", "https:")) and "127.0.0.1" not in u], requests
    assert not bad, f"{screen.where()}: axe-core finds (impact, rule, nodes, help, first nodes):" + fmt(bad, 30)


# The focused element (inside shadow roots) as the Tab walk sees it: None on the page itself, "again" for one it
# has met (the walk has gone round), else what a screen reader would name it by and whether it is a plot's layer.
TAB_STOP_JS = """() => { let e = document.activeElement;
  while (e && e.shadowRoot && e.shadowRoot.activeElement) e = e.shadowRoot.activeElement;
  if (!e || e === document.body) return null;
  if (e.__attnWalked) return 'again';
  e.__attnWalked = true;
  const labelled = (e.getAttribute('aria-labelledby') || '').split(' ').filter(Boolean)
    .map((id) => (e.getRootNode().getElementById ? e.getRootNode().getElementById(id) : null)).filter(Boolean);
  const name = (e.getAttribute('aria-label') || labelled.map((l) => l.textContent).join(' ') ||
    (e.labels && e.labels.length ? e.labels[0].textContent : '') || e.getAttribute('title') || e.textContent || '').trim();
  window.__attnStop = e;
  const r = e.getBoundingClientRect();
  return { name, layer: e.classList.contains('bk-events'), html: e.outerHTML.slice(0, 120),
           box: [r.left, r.top, r.width, r.height] }; }"""


def focus_ring_seen(page, box) -> bool:
    """Whether the stop the walk is on (window.__attnStop) looks different focused and blurred, in the pixels of its
    box and 4 px around it (the ring), the caret hidden; the focus is put back so the walk goes on from it."""
    width, height = page.viewport_size["width"], page.viewport_size["height"]
    x0, y0 = max(0, box[0] - 4), max(0, box[1] - 4)
    x1, y1 = min(width, box[0] + box[2] + 4), min(height, box[1] + box[3] + 4)
    if x1 - x0 < 1 or y1 - y0 < 1:
        return False
    clip = {"x": x0, "y": y0, "width": x1 - x0, "height": y1 - y0}
    focused = page.screenshot(clip=clip, animations="disabled", caret="hide")
    page.evaluate("() => window.__attnStop.blur()")
    blurred = page.screenshot(clip=clip, animations="disabled", caret="hide")
    page.evaluate("() => window.__attnStop.focus({ preventScroll: true })")
    return focused != blurred


# The next Tab starts from the top of the page, whatever had the focus before (a blur keeps the place it left).
FROM_THE_TOP_JS = """() => { window.scrollTo(0, 0); const r = document.documentElement;
  r.tabIndex = -1; r.focus({ preventScroll: true }); r.removeAttribute('tabindex'); }"""


@pytest.mark.parametrize("screen", LAPTOP_CASES, indirect=True)
def test_a_tab_walk_meets_only_named_stops_and_no_plot_layer(screen):
    """Tab from the top through the whole page, every block drawn: every stop has a name, none is a plot's event
    layer (BokehJS gives each plot one; a plot that is not a control is no Tab stop), and there are at most 200
    (issue 47: 296 stops, 117 with no name); each stop looks different focused, in pixels (its focus ring)."""
    page = screen.page
    page.evaluate(DRAW_ALL_JS)
    page.evaluate(FROM_THE_TOP_JS)
    # the first stop skips to the lesson: after it, the next Tab is in the step card
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.textContent").startswith("Skip to the lesson")
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    assert page.evaluate("""() => { let e = document.activeElement;
      while (e && e.shadowRoot && e.shadowRoot.activeElement) e = e.shadowRoot.activeElement;
      for (let p = e; p; p = p.parentNode || p.host) if (p.id === 'attn-b-tour') return true;
      return false; }"""), "the Tab after the skip link is not in the step card"
    page.evaluate(FROM_THE_TOP_JS)
    stops = []
    for _ in range(400):
        page.keyboard.press("Tab")
        stop = page.evaluate(TAB_STOP_JS)
        if stop == "again":
            break
        if stop is not None:
            stop["ring"] = focus_ring_seen(page, stop["box"])
            stops.append(stop)
    assert 40 <= len(stops) <= 200, len(stops)
    assert [(s["html"], s["box"]) for s in stops if not s["ring"]] == []
    assert [s["html"] for s in stops if not s["name"]] == []
    assert [s["html"] for s in stops if s["layer"]] == []


def figures_heard(cdp) -> list[tuple[str, str]]:
    """(name, description) of every node Chromium's accessibility tree gives the role figure: what a screen reader
    gets."""
    nodes = cdp.send("Accessibility.getFullAXTree")["nodes"]
    value = lambda n, k: (n.get(k) or {}).get("value", "")   # noqa: E731
    return [(value(n, "name"), value(n, "description")) for n in nodes
            if value(n, "role") == "figure" and not n.get("ignored")]


@pytest.mark.parametrize("screen", LAPTOP_CASES, indirect=True)
def test_every_plot_is_a_named_figure_and_the_main_plot_says_its_state(screen):
    """Every plot the page draws reaches a screen reader as a figure with the name its section declares (issue 47:
    38 of 39 said nothing); the main plot's description is its caption, the state in words, and follows a move."""
    from app.sections import CONTRACTS

    page, cdp = screen.page, screen.cdp
    page.evaluate(DRAW_ALL_JS)
    declared = {words for c in CONTRACTS.values() for words in c.figures.values()}
    plots = page.evaluate("""() => Array.from(Bokeh.documents[0].all_models).filter((m) => m.x_range && m.renderers)
      .map((m) => m.name)""")
    cdp.send("Accessibility.enable")
    heard = figures_heard(cdp)
    names = [n for n, _ in heard]
    assert len(set(names)) >= len(set(plots)) - 1 and all(names), heard   # (the learning's copy shares a name)
    assert declared <= set(names), declared - set(names)
    caption = shown_paragraphs(page, "caption")[0]
    assert (MAIN_NAME, caption) in heard
    set_model_prop(page, "query_slider", "value", 1.0)
    page.wait_for_function("() => Bokeh.documents[0].get_model_by_name('caption').text.includes('x = 1.00')")
    moved = shown_paragraphs(page, "caption")[0]
    page.wait_for_function("(t) => Bokeh.documents[0].get_model_by_name('main_plot').html_attributes"
                           "['aria-description'] === t", arg=moved)
    assert (MAIN_NAME, moved) in figures_heard(cdp)


MAIN_NAME = "The samples, the query and the prediction"


@pytest.mark.parametrize("screen", FONT_CASES, indirect=True)
def test_text_uses_only_fonts_ci_installs_or_the_page_ships(screen):
    fonts = platform_fonts(screen.cdp)
    assert fonts, f"{screen.where()}: CDP reported no fonts for the page's text"
    other = {f: n for f, n in fonts.items() if not (f.startswith("DejaVu") or f.endswith("(shipped in the page)"))}
    assert not other, (f"{screen.where()}: text drawn with fonts that neither CI installs (fonts-dejavu-core) nor the"
                       f" page ships: {other} (all fonts, glyphs: {fonts})")



# --------------------------------------------------------------------------- many samples

SAMPLES_JS = """() => { const d = Bokeh.documents[0], s = d.get_model_by_name('samples').data;
  const main = d.get_model_by_name('main_plot');
  const order = main.renderers.map((r) => r.data_source ? r.data_source.name : null);
  return { n: s.x.length, maxSize: Math.max(...s.size), alpha: Math.max(...s.alpha),
           marksAt: order.indexOf('sample_marks'), dotsAt: order.indexOf('sample_dots'),
           dotGroups: d.get_model_by_name('sample_dots').data.xs.length, curveAt: order.indexOf('curve'),
           predAt: order.indexOf('qpred'), range: [d.get_model_by_name('entropy_range').start,
                                                     d.get_model_by_name('entropy_range').end] }; }"""


def test_many_samples_get_smaller_fainter_markers_under_the_curves(browser, static_file):
    """400 samples: the markers shrink and fade (drawn as dots), the curves and the query's markers draw above
    them."""
    ctx = browser.new_context(viewport={"width": 1366, "height": 768})
    page = ctx.new_page()
    try:
        block_outside(page)
        page.goto(static_file.as_uri())
        wait_ready(page)
        few = page.evaluate(SAMPLES_JS)
        page.evaluate("() => { Bokeh.documents[0].get_model_by_name('dataset_select').value = 'large'; }")
        page.wait_for_function("() => Bokeh.documents[0].get_model_by_name('samples').data.x.length === 400")
        wait_texts(page)
        many = page.evaluate(SAMPLES_JS)
    finally:
        ctx.close()
    assert (few["n"], many["n"]) == (24, 400)
    assert many["maxSize"] < 0.5 * few["maxSize"], (few, many)
    assert many["alpha"] < 0.5 * few["alpha"], (few, many)
    # 400 samples are drawn as dots in groups (the markers' renderer empty), both renderers under the curves
    assert many["dotGroups"] > 0 and few["dotGroups"] == 0, (few, many)
    assert 0 <= many["marksAt"] < many["curveAt"] and 0 <= many["dotsAt"] < many["curveAt"] < many["predAt"], many
    assert many["range"][0] == 0 and math.isclose(many["range"][1], math.log2(400) * 1.04, rel_tol=1e-9)


# --------------------------------------------------------------------------- text spacing (last: it restyles the page)

# WCAG 1.4.12: line height 1.5, letter spacing 0.12 em, word spacing 0.16 em, 2 em after paragraphs, in the page and
# in every shadow root; then every text element that hides its overflow, and whether the page scrolls sideways.
SPACING_CSS = ("* { line-height: 1.5 !important; letter-spacing: 0.12em !important; word-spacing: 0.16em !important; }"
               " p { margin-bottom: 2em !important; }")
SPACED_JS = """(css) => { const add = (root) => { const st = document.createElement('style');
    st.className = 'attn-spacing-test'; st.textContent = css; (root.head || root).appendChild(st);
    for (const e of root.querySelectorAll('*')) if (e.shadowRoot) add(e.shadowRoot); };
  add(document); }"""
CLIPPED_JS = """() => { const out = [];
  const walk = (root) => {
    for (const e of root.querySelectorAll('p, h1, h2, h3, h4, span, label, td, th, button, summary, li')) {
      const cs = getComputedStyle(e);
      if (cs.overflowX === 'visible' && cs.overflowY === 'visible') continue;
      if (e.scrollHeight > e.clientHeight + 1 || e.scrollWidth > e.clientWidth + 1)
        out.push([e.tagName, e.textContent.slice(0, 40), e.scrollHeight, e.clientHeight, e.scrollWidth, e.clientWidth]);
    }
    for (const e of root.querySelectorAll('*')) if (e.shadowRoot) walk(e.shadowRoot);
  };
  walk(document);
  return { clipped: out, wide: document.documentElement.scrollWidth - document.documentElement.clientWidth }; }"""


@pytest.mark.parametrize("screen", cases([PHONE_390, LAPTOP]), indirect=True)
def test_wcag_text_spacing_clips_no_text_and_scrolls_nothing_sideways(screen):
    """With the text spacing WCAG 1.4.12 asks a page to bear, no text element clips its words and the page does not
    scroll sideways (issue 47), on the phone and the laptop, every block drawn."""
    page = screen.page
    page.evaluate(DRAW_ALL_JS)
    page.evaluate(SPACED_JS, SPACING_CSS)
    try:
        wait_frames(page, 3)
        got = page.evaluate(CLIPPED_JS)
    finally:
        page.evaluate("""() => { const rm = (root) => { for (const s of root.querySelectorAll('style.attn-spacing-test'))
          s.remove(); for (const e of root.querySelectorAll('*')) if (e.shadowRoot) rm(e.shadowRoot); }; rm(document); }""")
    assert got["clipped"] == [] and got["wide"] <= 0, f"{screen.where()}: {got}"
