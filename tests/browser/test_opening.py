"""Issue #49: the first screen painted from plain HTML and SVG before BokehJS, then handed to the live page.

The page holds its handover (window.AttnOpeningOptions = {hold: true}, app/ui/opening.js) so the test sees the
poster over the drawn live blocks just before, and the live page just after: the same picture, the same frame,
no layout shift, the press made meanwhile kept.  Another state shows "Loading this state…", never the file's poster;
without JavaScript the words and the poster are there; a BokehJS that does not start says so.
"""

from __future__ import annotations

import io

import numpy as np
import pytest

from tests.browser.pageutil import axe_violations, block_outside, wait_frames, wait_ready

pytestmark = pytest.mark.browser

HOLD_JS = """window.AttnOpeningOptions = { hold: true };
window.__shifts = [];
new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__shifts.push({ t: e.startTime, v: e.value,
  input: e.hadRecentInput }); }).observe({ type: 'layout-shift', buffered: true });
document.addEventListener('DOMContentLoaded', () => {
  const m = document.querySelector('main.attn-page'), p = document.querySelector('[data-poster=main_plot]');
  const w = document.querySelector('.attn-poster-wait');
  window.__atParse = { opening: m.getAttribute('data-opening'), poster: !!p && p.getBoundingClientRect().height > 0,
                       waiting: !!w && getComputedStyle(w).display !== 'none' };
});"""
WAITING_JS = "() => window.AttnOpening && AttnOpening.waiting"
LIVE_JS = "() => document.querySelector('main.attn-page').getAttribute('data-opening') === 'live'"
# a plot's frame in its block, on the poster and in BokehJS's layout
POSTER_FRAME_JS = """([name, block]) => { const f = document.querySelector(`[data-poster=${name}] .attn-pv-frame`)
  .getBoundingClientRect(), b = document.getElementById(block).getBoundingClientRect();
  return [f.left - b.left, f.top - b.top, f.right - b.left, f.bottom - b.top]; }"""
LIVE_FRAME_JS = """(name) => { const v = Bokeh.index.find_one(AttnPage.doc.get_model_by_name(name)), f = v.frame.bbox;
  return [f.left, f.top, f.right, f.bottom]; }"""
PLOTS = {"main_plot": "attn-b-regression-plot", "weights_plot": "attn-b-regression-weights"}
POSTER_SIZES_JS = """() => Array.from(document.querySelectorAll('[data-poster=main_plot] circle'))
  .slice(0, -2).map((c) => 2 * Number(c.getAttribute('r')))"""
# whether the machine has the page's font (a missing one falls back to monospace here, and measures as it does)
DEJAVU_JS = """() => { const c = document.createElement('canvas').getContext('2d'), w = (f) => { c.font = f;
  return c.measureText('Drag the query line').width; };
  return w('bold 16px "DejaVu Sans", monospace') !== w('bold 16px monospace'); }"""
PHONE = dict(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
LAPTOP = dict(viewport={"width": 1366, "height": 768})


def _plot_shot(page) -> np.ndarray:
    from PIL import Image

    r = page.eval_on_selector("#attn-b-regression-plot",
                              "e => { const r = e.getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; }")
    png = page.screenshot(clip=dict(x=r[0], y=r[1], width=r[2], height=r[3]))
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)


def _held(browser, static_file, device, query=""):
    ctx = browser.new_context(**device)
    ctx.add_init_script(HOLD_JS)
    page = ctx.new_page()
    page.set_default_timeout(45000)
    block_outside(page)
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(static_file.as_uri() + query)
    return ctx, page, errors


@pytest.mark.parametrize("device", [PHONE, LAPTOP], ids=["phone", "laptop"])
def test_the_poster_is_painted_first_and_handed_over_in_place(browser, static_file, device):
    ctx, page, errors = _held(browser, static_file, device)
    try:
        page.wait_for_function(WAITING_JS)     # the live blocks are drawn under the posters, their words written
        at_parse = page.evaluate("() => window.__atParse")
        assert at_parse == {"opening": "poster", "poster": True, "waiting": False}
        poster = page.locator("[data-poster=main_plot]")
        assert poster.get_attribute("role") == "img"
        assert poster.get_attribute("aria-label") == "The samples, the query and the prediction"
        described = page.evaluate("() => document.getElementById('attn-pv-desc-main_plot').textContent")
        assert described.startswith("A query at x = 3.20 averages the 24 samples")
        words = page.locator("[data-poster=regression-controls] .attn-pv-div").inner_text()
        titles = page.locator("[data-poster=regression-controls] .attn-pv-st").all_inner_texts()
        poster_frames = {n: page.evaluate(POSTER_FRAME_JS, [n, b]) for n, b in PLOTS.items()}
        # the readout line's words where the live line has them, under the poster (the block's padding kept)
        at = page.evaluate("""() => [document.querySelector('[data-poster=regression-controls] p.strip'),
          AttnBokeh.markupElement(Bokeh.index.find_one(AttnPage.doc.get_model_by_name('readout_strip')))
            .querySelector('p.strip')].map((e) => { const r = e.getBoundingClientRect(); return [r.left, r.top]; })""")
        assert abs(at[0][0] - at[1][0]) <= 1 and abs(at[0][1] - at[1][1]) <= 1, at
        sizes = page.evaluate(POSTER_SIZES_JS)
        if device is LAPTOP:   # the page's accessibility checks pass while the poster is shown
            assert axe_violations(page) == []
        before = _plot_shot(page)
        shifts_before = len(page.evaluate("() => window.__shifts"))
        page.evaluate("() => AttnOpening.release()")
        page.wait_for_function(LIVE_JS)
        wait_frames(page, 3)
        after = _plot_shot(page)
        assert page.locator(".attn-poster").count() == 0
        # the live page says what the poster said, in the same state
        marks = page.evaluate("() => Array.from(AttnPage.doc.get_model_by_name('sample_marks').data.size)")
        np.testing.assert_allclose(sizes, marks, atol=2e-3)
        live_words = page.evaluate("() => AttnPage.doc.get_model_by_name('readout_strip').text")
        assert " ".join(words.split()) in " ".join(live_words.replace("<b>", "").replace("</b>", "")
                                                    .replace('<p class="strip">', "").replace("</p>", "").split())
        live_titles = page.evaluate("""() => ['query_slider', 'bandwidth_slider', 'temperature_slider'].map((n) =>
          Bokeh.index.find_one(AttnPage.doc.get_model_by_name(n)).shadow_el.querySelector('.bk-slider-title').textContent)""")
        assert [" ".join(t.split()) for t in titles] == [" ".join(t.split()) for t in live_titles]
        shift = sum(s["v"] for s in page.evaluate("() => window.__shifts")[shifts_before:] if not s["input"])
        assert shift <= 0.05
        assert errors == []
        if page.evaluate(DEJAVU_JS):   # the poster's borders are BokehJS's in the page's own font
            for name, poster_frame in poster_frames.items():
                live_frame = page.evaluate(LIVE_FRAME_JS, name)
                assert max(abs(a - b) for a, b in zip(poster_frame, live_frame)) <= 1, (name, poster_frame, live_frame)
            changed = (np.abs(before - after).max(axis=2) > 48).mean()
            assert changed <= 0.01, f"{changed:.2%} of the plot's pixels changed at the handover"
    finally:
        ctx.close()


def test_a_press_on_the_poster_moves_the_live_query_there(browser, static_file):
    ctx, page, errors = _held(browser, static_file, LAPTOP)
    try:
        page.wait_for_function("() => !!document.querySelector('[data-poster=main_plot] .attn-pv-frame')")
        f = page.eval_on_selector("[data-poster=main_plot] .attn-pv-frame",
                                  "e => { const r = e.getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; }")
        x = f[0] + f[2] * (1.5 + 0.5) / 7   # x = 1.5 on the frame's -0.5 .. 6.5
        page.mouse.move(x, f[1] + f[3] / 2)
        page.mouse.down()
        page.mouse.up()
        assert page.evaluate("() => document.querySelector('main').hasAttribute('data-opening-press')")
        page.wait_for_function(WAITING_JS)
        page.evaluate("() => AttnOpening.release()")
        page.wait_for_function("() => Math.abs(AttnPage.doc.get_model_by_name('query_slider').value - 1.5) < 0.011")
        assert errors == []
    finally:
        ctx.close()


@pytest.mark.parametrize("link", ["?query=1.5", "#data1.AAAA"], ids=["deep-link", "data-in-the-fragment"])
def test_another_state_shows_loading_never_the_files_poster(browser, static_file, link):
    ctx, page, errors = _held(browser, static_file, PHONE, link)
    try:
        assert page.evaluate("() => window.__atParse") == {"opening": "loading", "poster": False, "waiting": True}
        assert page.locator("[data-poster=regression-head]").is_visible()   # the words are the same in any state
        assert page.locator("[data-poster=main_plot], [data-poster=regression-controls]").count() == 0   # not in the page
        page.wait_for_function(WAITING_JS)
        page.evaluate("() => AttnOpening.release()")
        page.wait_for_function(LIVE_JS)
        if link.startswith("?"):
            assert page.evaluate("() => AttnPage.doc.get_model_by_name('query_slider').value") == 1.5
        assert page.locator(".attn-poster").count() == 0
        assert errors == []
    finally:
        ctx.close()


def test_a_presenters_page_down_before_the_page_is_live_turns_the_step_once_it_is(browser, static_file):
    """Presenting, a clicker's Page Down pressed as the file is read, before BokehJS has run (no tour is listening
    yet), turns the step once the page is live: to step 2, once."""
    ctx = browser.new_context(viewport={"width": 1920, "height": 1080})
    ctx.add_init_script("document.addEventListener('DOMContentLoaded', () => { window.__early = typeof AttnPage; "
                        "dispatchEvent(new KeyboardEvent('keydown', { key: 'PageDown', bubbles: true })); });")
    page = ctx.new_page()
    try:
        block_outside(page)
        page.goto(static_file.as_uri() + "?present=1")
        assert page.evaluate("() => window.__early") == "undefined"   # pressed before the page's script ran
        page.wait_for_function(LIVE_JS)
        card = "() => AttnPage.doc.get_model_by_name('tour_card').text"
        page.wait_for_function(f"() => ({card})().includes('Step 2 of 21')")
        wait_frames(page, 3)
        assert "Step 2 of 21" in page.evaluate(card) and "tour=" in page.url
    finally:
        ctx.close()


def test_without_javascript_the_words_and_the_poster_are_there(browser, static_file):
    page = browser.new_page(viewport={"width": 390, "height": 844}, java_script_enabled=False)
    try:
        block_outside(page)
        page.goto(static_file.as_uri())
        assert "picture of its opening state, drawn with JavaScript off" in page.locator("noscript").first.inner_text() \
            or page.get_by_text("drawn with JavaScript off").is_visible()
        assert page.locator("[data-poster=main_plot]").is_visible()
        assert page.get_by_role("img", name="The samples, the query and the prediction").is_visible()
        assert "max weight 0.163" in page.locator("[data-poster=regression-controls]").inner_text()
        assert page.get_by_role("heading", name="Attention is a weighted average").is_visible()
        assert page.evaluate("() => document.scrollingElement.scrollWidth <= innerWidth")
    finally:
        page.context.close()


def test_a_bokehjs_that_does_not_start_says_so(browser, static_file, tmp_path):
    broken = tmp_path / "broken.html"
    html = static_file.read_text(encoding="utf-8")
    broken.write_text(html.replace('class="attn-later">', 'class="attn-later">throw new Error("no BokehJS");', 1),
                      encoding="utf-8")
    page = browser.new_page(viewport={"width": 1366, "height": 768})
    try:
        block_outside(page)
        page.goto(broken.as_uri())
        page.wait_for_function("() => document.querySelector('main').getAttribute('data-opening') === 'failed'")
        assert page.get_by_role("alert").filter(has_text="could not start").is_visible()
        assert page.locator("[data-poster=main_plot]").is_visible()
    finally:
        page.context.close()


def test_the_live_page_still_opens_in_the_usual_way(browser, static_file):
    """Without the hold, the posters leave by themselves once the first readouts are written."""
    ctx = browser.new_context(**PHONE)
    page = ctx.new_page()
    try:
        block_outside(page)
        page.goto(static_file.as_uri())
        wait_ready(page)
        page.wait_for_function(LIVE_JS)
        assert page.locator(".attn-poster").count() == 0
    finally:
        ctx.close()
