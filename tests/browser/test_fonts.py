"""Every text on the page names the page's font, canvas text included, so the layout is the same on a machine
that has Liberation Sans (Chromium's recommended fonts-liberation) and on one that does not (issue #23, item 8).

Bokeh draws canvas text in "helvetica" unless a model names a font, and fontconfig answers "helvetica" with
Liberation Sans where it is installed: the page would then measure and wrap its words differently from machine
to machine.  app/ui/theme.py name_fonts gives every text FONT.  Three checks:

1. every ``*text_font`` of every model in the browser's documents is FONT (or MONO_FONT), after every block is
   drawn and a step of the tour has moved the card;
2. what the browser actually drew: every font string a canvas was given names FONT, and every glyph of the
   page's HTML text (Chrome DevTools' CSS.getPlatformFontsForNode) came from DejaVu Sans or DejaVu Sans Mono;
3. the same page in a second Chromium whose fontconfig rejects every Liberation font lays out every view and
   every axis at the same pixels as the first.  .ci/run installs fonts-liberation, so one run tests a machine
   with it and one without.
"""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from app.ui.theme import FONT, MONO_FONT
from tests.browser.pageutil import ALL_VIEWS_JS, CHROMIUM, LAUNCH_ARGS, block_outside, draw_all, wait_frames, wait_ready

PAGE_FAMILIES = {"DejaVu Sans", "DejaVu Sans Mono"}

# Records every font string any canvas on the page is given (Bokeh sets ctx.font before it measures or draws).
CANVAS_FONTS_HOOK = """(() => {
  const seen = new Set();
  globalThis.__canvasFonts = seen;
  const d = Object.getOwnPropertyDescriptor(CanvasRenderingContext2D.prototype, 'font');
  Object.defineProperty(CanvasRenderingContext2D.prototype, 'font', {
    get: d.get, set(v) { seen.add(v); d.set.call(this, v); }, configurable: true });
})();"""

TEXT_FONTS_JS = """() => {
  const out = [];
  for (const doc of Bokeh.documents) for (const m of doc.all_models) for (const [name, p] of Object.entries(m.properties)) {
    if (!name.endsWith('text_font')) continue;
    const v = p.get_value();
    out.push([m.type + (m.name ? ':' + m.name : ''), name, typeof v === 'string' ? v : (v && v.value)]);
  }
  return out;
}"""

# Every view's box and every plot part's box (an axis is as wide as its widest label), in page pixels.
BOXES_JS = "() => (" + ALL_VIEWS_JS + """)().map((v) => {
  const r = v.el && v.el.isConnected ? v.el.getBoundingClientRect() : null;
  const b = v.bbox;
  return [v.model.id, v.model.type + (v.model.name ? ':' + v.model.name : ''),
          r ? [r.left, r.top + scrollY, r.width, r.height].map(Math.round) : null,
          b ? [b.x0, b.y0, b.x1, b.y1].map(Math.round) : null];
})"""


def _liberation_installed() -> bool:
    if not shutil.which("fc-list"):
        return False
    out = subprocess.run(["fc-list", ":family=Liberation Sans"], capture_output=True, text=True).stdout
    return bool(out.strip())


def _open(browser, static_file, query="", viewport=(1366, 768)):
    ctx = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]}, reduced_motion="reduce")
    page = ctx.new_page()
    page.set_default_timeout(60000)
    block_outside(page)
    page.add_init_script(CANVAS_FONTS_HOOK)
    page.goto(static_file.as_uri() + query)
    wait_ready(page)
    draw_all(page)   # every block, whatever the loader would have drawn by now
    wait_frames(page, 3)
    return ctx, page


def _platform_families(ctx, page) -> dict:
    """Glyph counts per font family that Chromium drew the page's HTML text with (shadow roots included)."""
    cdp = ctx.new_cdp_session(page)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    root = cdp.send("DOM.getDocument", {"depth": -1, "pierce": True})["root"]
    families, stack = {}, [root]
    while stack:
        node = stack.pop()
        kids = node.get("children", [])
        stack.extend(kids + node.get("shadowRoots", []))
        if node.get("nodeType") == 1 and node.get("nodeName") not in ("SCRIPT", "STYLE") and \
                any(k.get("nodeType") == 3 and k.get("nodeValue", "").strip() for k in kids):
            for f in cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node["nodeId"]})["fonts"]:
                families[f["familyName"]] = families.get(f["familyName"], 0) + f["glyphCount"]
    return families


@pytest.fixture(scope="module")
def masked_browser(browser, tmp_path_factory):
    """A second Chromium whose fontconfig knows every font of this machine except Liberation's."""
    conf = tmp_path_factory.mktemp("fontconfig") / "fonts.conf"
    conf.write_text('<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">\n<fontconfig>\n'
                    '  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>\n'
                    '  <selectfont><rejectfont><glob>*/Liberation*</glob></rejectfont></selectfont>\n'
                    '</fontconfig>\n')
    b = browser.browser_type.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS,
                                    env={**os.environ, "FONTCONFIG_FILE": str(conf)})
    yield b
    b.close()


def test_every_text_of_every_model_names_the_pages_font(browser, static_file):
    ctx, page = _open(browser, static_file, "?tour=bank-row")
    try:
        fonts = page.evaluate(TEXT_FONTS_JS)
        assert len(fonts) > 100   # every axis, title, label set and colour bar of the five sections
        other = [f for f in fonts if f[2] not in (FONT, MONO_FONT)]
        assert other == []
    finally:
        ctx.close()


def test_the_browser_draws_every_glyph_in_the_pages_font(browser, static_file):
    ctx, page = _open(browser, static_file, "?tour=bank-row")
    try:
        canvas = page.evaluate("() => [...globalThis.__canvasFonts]")
        assert len(canvas) >= 3   # bold titles, plain tick labels, italic colour-bar title: every canvas hooked
        assert [f for f in canvas if FONT not in f and MONO_FONT not in f] == []
        families = _platform_families(ctx, page)
        assert sum(families.values()) > 5000   # the words of five sections, not an empty walk
        assert {f: n for f, n in families.items() if f not in PAGE_FAMILIES} == {}
    finally:
        ctx.close()


@pytest.mark.parametrize("viewport", [(1366, 768), (390, 844)], ids=["laptop", "phone"])
def test_the_layout_is_the_same_with_and_without_liberation(browser, masked_browser, static_file, viewport):
    if not _liberation_installed():
        if os.environ.get("CI") == "true":
            pytest.fail("fonts-liberation is not installed; .ci/run installs it so CI tests a machine that has it")
        pytest.skip("fonts-liberation is not installed: both browsers would see the same fonts")
    boxes = []
    for b in (browser, masked_browser):
        ctx, page = _open(b, static_file, viewport=viewport)
        try:
            if b is masked_browser:   # the mask works: a text that asks for Liberation Sans does not get it
                page.evaluate("""() => { const p = document.createElement('p'); p.id = 'probe';
                  p.style.fontFamily = '"Liberation Sans"'; p.textContent = 'probe'; document.body.append(p); }""")
                cdp = ctx.new_cdp_session(page)
                cdp.send("DOM.enable")
                cdp.send("CSS.enable")
                node = cdp.send("DOM.querySelector", {"nodeId": cdp.send("DOM.getDocument")["root"]["nodeId"],
                                                      "selector": "#probe"})["nodeId"]
                got = {f["familyName"] for f in cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]}
                assert "Liberation Sans" not in got, got
                page.evaluate("() => document.getElementById('probe').remove()")
                wait_frames(page, 2)
            boxes.append(page.evaluate(BOXES_JS))
        finally:
            ctx.close()
    with_it, without = ({view[0]: view[1:] for view in views} for views in boxes)   # by model id: the file's
    assert len(with_it) > 300 and with_it.keys() == without.keys()                   # views, drawn in any order
    moved = {k: (v, without[k]) for k, v in with_it.items() if v != without[k]}
    assert moved == {}
