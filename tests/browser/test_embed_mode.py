"""The page in a short frame (issue 48): ``?embed=1`` shows one section's figure, sliders and readout line fitted to a
slide's or a learning management system's frame (app/ui/embed.js, the blocks each contract declares: embed), under a
bar with "Open the whole page", Copy a link and Save PNG.  Checked in frames of 1280 x 560 and 700 x 560 on the
README's course page that grows its frame to the height the page posts (its listener, verbatim): nothing scrolls, the figure is tall
enough, the sliders and the readout line are in the frame, a drag and a slider's keys work, the bar's link carries
the state, Save PNG downloads, and the frame stays 560 px tall.  The self-attention and routing sections, by link."""

from __future__ import annotations

import pytest

from app.sections import CONTRACTS
from tests.browser.pageutil import FIND_VIEW_JS, block_outside, model_element
from tests.browser.test_course_pages import readme_blocks



def host_html(src, width):
    """The README's one-section course page (its frame and the height listener, verbatim) framing ``src`` in a
    ``width`` x 560 frame."""
    (html,) = [text for lang, text in readme_blocks("one-section") if lang == "html"]
    frame = 'src="regression.html?kernel=dot&bandwidth=0.5" style="width:100%;height:1200px;border:0"'
    assert frame in html, "the README's one-section frame changed: change this test with it"
    html = html.replace(frame, f'src="{src}" style="width:{width}px;height:560px;border:0"')
    return f'<!doctype html><html><head><meta charset="utf-8"><title>course page</title></head><body style="margin:0">{html}</body></html>'


# Every element that scrolls (its content taller or wider than its box, by more than a pixel), in the document and
# in every shadow root, and the document itself when it does.
SCROLLS_JS = """() => { const out = [];
  const walk = (root) => { for (const el of root.querySelectorAll('*')) {
      if (el.clientHeight > 0 && (el.scrollHeight > el.clientHeight + 1 || el.scrollWidth > el.clientWidth + 1)) {
        const cs = getComputedStyle(el);
        if (/(auto|scroll)/.test(cs.overflowY + ' ' + cs.overflowX)) out.push([el.tagName, String(el.className).slice(0, 40)]);
      }
      if (el.shadowRoot) walk(el.shadowRoot); } };
  walk(document);
  const d = document.documentElement;
  if (d.scrollHeight > d.clientHeight + 1 || d.scrollWidth > d.clientWidth + 1) out.push(['document', d.scrollHeight, d.scrollWidth]);
  return out; }"""

# A named model's view's box in the frame's viewport.
BOX_JS = f"""(n) => {{ const v = ({FIND_VIEW_JS})(n); if (!v) return null;
  const r = v.el.getBoundingClientRect(); return {{x: r.x, y: r.y, w: r.width, h: r.height}}; }}"""
READY_JS = """() => globalThis.AttnEmbed && AttnEmbed.embedded() && window.Bokeh && Bokeh.documents.length > 0 &&
  !(globalThis.__attnTextsPending > 0) && document.querySelector('.attn-embed-bar') !== null"""


def open_framed(browser, static_file, tmp_path, width, tail):
    ctx = browser.new_context(viewport={"width": width + 40, "height": 700}, accept_downloads=True)
    page = ctx.new_page()
    page.set_default_timeout(60000)
    block_outside(page)
    host = tmp_path / f"host-{width}.html"
    host.write_text(host_html(static_file.as_uri() + tail, width), encoding="utf-8")
    page.goto(host.as_uri())
    frame = page.locator("#regression").element_handle().content_frame()
    frame.wait_for_function(READY_JS)
    return ctx, page, frame


def inside(box, width, height=560):
    return box is not None and box["x"] >= -0.5 and box["y"] >= -0.5 and box["x"] + box["w"] <= width + 0.5 and \
        box["y"] + box["h"] <= height + 0.5


@pytest.mark.parametrize("width,least", [(1280, 300), (700, 240)])
def test_the_regression_fits_a_short_frame_and_works_there(browser, static_file, tmp_path, width, least):
    ctx, page, frame = open_framed(browser, static_file, tmp_path, width, "?embed=1&query=2.5")
    try:
        assert frame.evaluate(SCROLLS_JS) == []
        assert frame.evaluate("() => document.querySelector('main').getAttribute('data-embed')") == "regression"
        plot = frame.evaluate(BOX_JS, "main_plot")
        assert plot["h"] >= least and inside(plot, width), plot
        for name in ("query_slider", "bandwidth_slider", "temperature_slider", "readout_strip"):
            assert inside(frame.evaluate(BOX_JS, name), width), name
        # no step card, nothing of the other sections or blocks drawn
        assert frame.evaluate("() => AttnPage.drawn('tour') || AttnPage.drawn('regression-readouts')") is False
        # a drag on the plot and the slider's keys move the query
        box = model_element(frame, "main_plot").bounding_box()   # (in the host page's coordinates)
        y = box["y"] + box["height"] / 2
        page.mouse.move(box["x"] + box["width"] * 0.3, y)
        page.mouse.down()
        page.mouse.move(box["x"] + box["width"] * 0.6, y, steps=6)
        page.mouse.up()
        frame.wait_for_function("() => Bokeh.documents[0].get_model_by_name('query_slider').value !== 2.5")
        model_element(frame, "query_slider", ".noUi-handle").focus()
        page.keyboard.press("End")
        frame.wait_for_function("() => Bokeh.documents[0].get_model_by_name('query_slider').value === 6.5")
        frame.wait_for_function("() => new URLSearchParams(location.search).get('query') === '6.5'")
        # the bar: the whole page in this state, in a tab of its own; the figure as a PNG
        link = frame.locator("a.attn-embed-whole")
        link.hover()
        href = link.get_attribute("href")
        assert "query=6.5" in href and "embed" not in href and link.get_attribute("target") == "_blank", href
        with page.expect_download() as info:
            frame.get_by_role("button", name="Save PNG").click()
        assert info.value.suggested_filename == "main_plot.png"
        frame.get_by_role("status").filter(has_text="main_plot.png").wait_for()
        own = frame.locator(".attn-embed-said a").get_attribute("href")   # framed: "if no file appeared, open..."
        assert "query=6.5" in own and "embed" not in own, own
        frame.get_by_role("button", name="Copy a link").click()
        said = frame.locator(".attn-embed-said")
        said.filter(has_text="Link").wait_for()   # copied, or the link shown selected to copy by hand
        field = frame.locator("input.attn-embed-link")
        assert said.inner_text() == "Link copied." or field.input_value() == href
        # still fitted, and the frame keeps its height: the page posts none in a frame this way
        assert frame.evaluate(SCROLLS_JS) == []
        assert page.evaluate("() => document.getElementById('regression').getBoundingClientRect().height") == 560
    finally:
        ctx.close()


# how tall a section's tallest figure is at least, by the frame's width (issue 48: as the main plot)
TALL = {1280: 300, 700: 240}


@pytest.mark.parametrize("section", [n for n, c in CONTRACTS.items() if c.embed and n != "regression"])
def test_another_sections_stage_fits_a_short_frame_by_link(browser, static_file, tmp_path, section):
    """Each other section's frame blocks, chosen by link, fit a 1280 x 560 and a 700 x 560 frame: nothing scrolls,
    every figure they draw lies inside the frame, and the tallest is as tall as the main plot must be."""
    for width in (1280, 700):
        ctx, page, frame = open_framed(browser, static_file, tmp_path, width, f"?embed={section}")
        try:
            assert frame.evaluate("() => document.querySelector('main').getAttribute('data-embed')") == section
            frame.wait_for_function("() => AttnEmbed.fitted === true")
            boxes = {f: frame.evaluate(BOX_JS, f) for f in CONTRACTS[section].figures}
            boxes = {f: b for f, b in boxes.items() if b is not None and b["h"] > 0}
            assert frame.evaluate(SCROLLS_JS) == [], width
            assert boxes and all(inside(b, width) for b in boxes.values()), (width, boxes)
            assert max(b["h"] for b in boxes.values()) >= TALL[width], (width, boxes)
            # the section's controls that its frame blocks hold lie inside the frame too
            controls = {c.name: frame.evaluate(BOX_JS, c.name) for c in CONTRACTS[section].controls}
            drawn = {n: b for n, b in controls.items() if b is not None and b["h"] > 0}
            assert drawn and all(inside(b, width) for b in drawn.values()), (width, controls)
            if section == "learning":   # its engine runs there, with the regression's that computes its curves
                frame.get_by_role("button", name="Step \u203a").click()
                frame.wait_for_function("() => /Step 1 of/.test(Bokeh.documents[0].get_model_by_name('learn_bw_readout').text)")
        finally:
            ctx.close()
