"""'Copy a link to this state' (app/ui/share.py, app/ui/share.js) in the served page, the offline file and a
cross-origin iframe, with the clipboard granted and refused; and the served page's address agrees
with its widgets.  'Save a figure as PNG' beside it: any figure of the page, downloaded at its size."""

from __future__ import annotations

import html
import http.server
import math
import threading
from functools import partial
from urllib.parse import parse_qs, urlsplit

import pytest

from app.tour import default_tour

from app.ui.share import COLUMN_WORDS, PNG_TEXTS, ROWS_SHOWN, SOURCE_WORDS, STYLE_COLUMNS, TEXTS
from app.sections import CATALOGUE
from app.tour.terms import terms
from tests.browser.pageutil import (DRAW_ALL_JS, axe_violations, block_outside, free_port, model_element, model_prop,
                                    open_more_controls, set_model_prop, source_data, wait_prop, wait_ready)

TERMS = terms(CATALOGUE)   # what the tour knows of the page's sections

CLIPBOARD = ["clipboard-read", "clipboard-write"]
SLOW = 60000  # ms: a page opening on a busy machine


def _context(browser, **grant):
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    ctx.set_default_timeout(SLOW)
    ctx.set_default_navigation_timeout(SLOW)
    if grant:
        ctx.grant_permissions(CLIPBOARD, **({"origin": grant["origin"]} if grant.get("origin") else {}))
    return ctx


def _click_share(page_or_frame):
    open_more_controls(page_or_frame)   # the link button sits behind "More controls"
    model_element(page_or_frame, "share_button", "button").click()


def _status(page_or_frame):
    return model_prop(page_or_frame, "share_status", "text")


def _query_of(url):
    return {k: v[-1] for k, v in parse_qs(urlsplit(url).query).items()}


def _wait_url(page, key, value):
    page.wait_for_function("([k, v]) => new URLSearchParams(location.search).get(k) === v", arg=[key, value],
                           timeout=20000)


def test_served_page_copies_its_deep_link_and_the_url_agrees_with_the_widgets(served_page, browser):
    ctx = _context(browser, origin=served_page.rstrip("/"))
    page = ctx.new_page()
    try:
        page.goto(served_page + "?query=2.5&bandwidth=0.3&kernel=dot")
        wait_ready(page, timeout=SLOW)
        # the address, the widgets and the state agree from the start ...
        assert model_prop(page, "query_slider", "value") == 2.5
        assert model_prop(page, "bandwidth_slider", "value") == pytest.approx(math.log10(0.3))
        assert model_prop(page, "kernel_select", "value") == "dot"
        # ... and after a change in the page: the engine rewrites the address
        set_model_prop(page, "query_slider", "value", 4.25)
        set_model_prop(page, "bandwidth_slider", "value", 0.0)
        _wait_url(page, "query", "4.25")
        _wait_url(page, "bandwidth", "1")
        q = _query_of(page.url)
        assert float(q["query"]) == model_prop(page, "query_slider", "value")
        assert float(q["bandwidth"]) == pytest.approx(10 ** model_prop(page, "bandwidth_slider", "value"))
        assert q["kernel"] == model_prop(page, "kernel_select", "value") == "dot"

        assert model_prop(page, "share_button", "label") == "Copy a link to this state"
        _click_share(page)
        wait_prop(page, "share_status", "text", "(t) => t.includes('Link copied')", timeout=SLOW)
        assert model_prop(page, "share_status", "visible") is True
        copied = page.evaluate("() => navigator.clipboard.readText()")
        assert copied == page.url.split("#")[0]
        assert _query_of(copied) == {"query": "4.25", "bandwidth": "1", "kernel": "dot"}
        # the visible confirmation shows the link, escaped
        assert copied.replace("&", "&amp;") in _status(page)

        # opening the copied link gives the same state
        other = ctx.new_page()
        other.goto(copied)
        wait_ready(other, timeout=SLOW)
        assert model_prop(other, "query_slider", "value") == 4.25
        assert model_prop(other, "bandwidth_slider", "value") == 0.0
        assert model_prop(other, "kernel_select", "value") == "dot"
    finally:
        ctx.close()


def test_offline_file_copies_its_own_address_with_the_state(static_file, browser):
    ctx = _context(browser, origin=None, grant=True)
    page = ctx.new_page()
    block_outside(page)
    try:
        page.goto(static_file.as_uri() + "?query=2.5&bandwidth=0.3")
        wait_ready(page, timeout=SLOW)
        set_model_prop(page, "query_slider", "value", 1.5)
        _wait_url(page, "query", "1.5")
        _click_share(page)
        wait_prop(page, "share_status", "text", "(t) => t.includes('Link copied')", timeout=SLOW)
        copied = page.evaluate("() => navigator.clipboard.readText()")
        assert copied.startswith(static_file.as_uri() + "?")
        assert _query_of(copied) == {"query": "1.5", "bandwidth": "0.3"}
    finally:
        ctx.close()


def test_refused_clipboard_shows_the_link_selected_in_a_text_field(static_file, browser):
    ctx = _context(browser)
    page = ctx.new_page()
    block_outside(page)
    # a browser that refuses the clipboard (as a frame without clipboard-write permission does)
    page.add_init_script("""navigator.clipboard.writeText = () =>
        Promise.reject(new DOMException('Write permission denied.', 'NotAllowedError'));""")
    try:
        # a hostile query string: the link is shown, but never as HTML
        page.goto(static_file.as_uri() + '?query=2&x="><img src=y onerror=alert(1)>')
        wait_ready(page, timeout=SLOW)
        _click_share(page)
        wait_prop(page, "share_status", "text", "(t) => t.includes('copy it by hand')", timeout=SLOW)
        field = model_element(page, "share_status", "input.share-link")
        link = page.evaluate("() => location.href")
        assert field.input_value() == link
        page.wait_for_function("""(el) => el.getRootNode().activeElement === el && el.selectionStart === 0 &&
                                  el.selectionEnd === el.value.length""", arg=field, timeout=10000)
        assert field.get_attribute("readonly") is not None
        status = _status(page)
        assert "<img" not in status and "<input" in status  # only the page's own markup is markup
        assert page.evaluate("""() => { const v = Object.values(Bokeh.index); const out = [];
            const walk = (x) => { if (x.model && x.model.name === 'share_status') out.push(x);
              (x.child_views || []).forEach(walk); }; v.forEach(walk);
            return out[0].shadow_el.querySelectorAll('img').length; }""") == 0
        assert TEXTS["fallback"].split(".")[0] in status
    finally:
        ctx.close()


HOST_PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>course page</title>
<link rel="icon" href="data:,"></head><body><h1>Week 5: attention</h1>
<iframe id="explorable" src="{src}" {allow} style="width:100%;height:1400px;border:0" title="attention explorable">
</iframe></body></html>"""


@pytest.fixture
def host(tmp_path, served_page):
    """A course page on another origin (localhost) than the app (127.0.0.1): write(name, allow) -> its URL."""
    port = free_port()
    handler = partial(http.server.SimpleHTTPRequestHandler, directory=str(tmp_path))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()

    def write(name, allow):
        (tmp_path / name).write_text(HOST_PAGE.format(src=served_page + "?query=2.5&bandwidth=0.3", allow=allow),
                                     encoding="utf-8")
        return f"http://localhost:{port}/{name}"

    yield write
    httpd.shutdown()


def _frame(page):
    page.wait_for_function("document.querySelectorAll('iframe').length === 1")
    frame = page.frames[1]
    wait_ready(frame, timeout=SLOW)
    return frame


@pytest.mark.parametrize("allow", [True, False], ids=["clipboard-allowed", "clipboard-refused"])
def test_the_button_inside_a_cross_origin_iframe(host, served_page, browser, allow):
    app_origin = served_page.rstrip("/")
    ctx = _context(browser, grant=True) if allow else _context(browser)
    page = ctx.new_page()
    try:
        page.goto(host("allowed.html" if allow else "refused.html", 'allow="clipboard-write"' if allow else ""))
        frame = _frame(page)
        set_model_prop(frame, "query_slider", "value", 3.75)
        frame.wait_for_function("new URLSearchParams(location.search).get('query') === '3.75'", timeout=20000)
        frame_url = frame.evaluate("() => location.href")
        assert frame_url.startswith(app_origin)  # the link is the app's, not the course page's
        open_more_controls(frame)
        model_element(frame, "share_button", "button").scroll_into_view_if_needed()
        _click_share(frame)
        if allow:
            wait_prop(frame, "share_status", "text", "(t) => t.includes('Link copied')", timeout=SLOW)
            # read back from the course page (the frame itself is only allowed to write)
            copied = page.evaluate("() => navigator.clipboard.readText()")
            assert copied == frame_url
        else:
            # Chromium refuses the clipboard to a cross-origin frame without allow="clipboard-write"
            wait_prop(frame, "share_status", "text", "(t) => t.includes('copy it by hand')", timeout=SLOW)
            field = model_element(frame, "share_status", "input.share-link")
            assert field.input_value() == frame_url
            frame.wait_for_function("""(el) => el.selectionStart === 0 && el.selectionEnd === el.value.length""",
                                    arg=field, timeout=10000)
            # issue 48: in a frame the page cannot know whether it may download, and does not claim it did
            model_element(frame, "figure_png_button", "button").click()
            frame.get_by_label(PNG_TEXTS["pick"], exact=True).wait_for(state="visible")
            frame.get_by_role("button", name=PNG_TEXTS["save"], exact=True).click()
            said = PNG_TEXTS["saved_framed"].format(file="main_plot.png")
            frame.get_by_role("status").filter(has_text=said).wait_for()
            assert "it is in your downloads" not in model_prop(frame, "figure_png_box", "text")
            link = frame.get_by_role("link", name=PNG_TEXTS["own_tab"])
            assert link.get_attribute("href") == frame.evaluate("() => location.href")   # the state, outside the frame
            assert link.get_attribute("target") == "_blank"
        assert model_prop(frame, "share_status", "visible") is True
    finally:
        ctx.close()


# Frames as learning management systems embed them: sandboxed, with and without the page's own origin, and with the
# attributes the README recommends.
SANDBOXES = {
    "scripts": 'sandbox="allow-scripts"',
    "scripts-same-origin": 'sandbox="allow-scripts allow-same-origin"',
    "recommended": 'sandbox="allow-scripts allow-downloads allow-popups allow-popups-to-escape-sandbox" '
                   'allow="clipboard-write"',
}


@pytest.mark.parametrize("sandbox", list(SANDBOXES))
def test_a_sandboxed_frame_claims_nothing_it_cannot_know_and_offers_a_tab_of_its_own(host, browser, sandbox):
    """Issue 48: in a sandboxed frame the page cannot know whether a download happened.  Both PNG buttons (the
    figure menu's and the tour card's) say that they handed the file over and, if none appeared, offer this state
    in a tab of its own (a link with the state); Copy a link copies or shows the link selected.  With the README's
    attributes, the PNG does download."""
    ctx = _context(browser)
    page = ctx.new_page()
    try:
        page.goto(host(f"{sandbox}.html", SANDBOXES[sandbox]))
        frame = _frame(page)
        here = frame.evaluate("() => location.href")
        said = PNG_TEXTS["saved_framed"].format(file="main_plot.png")
        # the figure menu (under More controls)
        open_more_controls(frame)
        model_element(frame, "figure_png_button", "button").click()
        frame.get_by_label(PNG_TEXTS["pick"], exact=True).wait_for(state="visible")
        save = frame.get_by_role("button", name=PNG_TEXTS["save"], exact=True)
        if sandbox == "recommended":
            with page.expect_download() as got:
                save.click()
            assert got.value.suggested_filename == "main_plot.png"
        else:
            save.click()
        box = frame.get_by_role("status").filter(has_text=said)
        box.wait_for()
        assert box.get_by_role("link", name=PNG_TEXTS["own_tab"]).get_attribute("href") == here
        # the tour card's PNG button says the same, in the card
        card_png = model_element(frame, "tour_png", "button")
        if not card_png.is_visible():
            frame.locator("[data-tour-act=more]").first.click()
        card_png.click()
        first = default_tour(CATALOGUE).steps[0].id
        card_said = PNG_TEXTS["saved_framed"].format(file=f"{first}.png")   # step 1's figure
        frame.wait_for_function("(t) => Bokeh.documents[0].get_model_by_name('tour_card').text.includes(t)",
                                arg=html.escape(card_said))
        assert f'href="{html.escape(here)}"' in model_prop(frame, "tour_card", "text")
        assert "in your downloads" not in model_prop(frame, "tour_card", "text")
        # Copy a link: copied, or the link shown selected to copy by hand; never a claim it cannot back
        _click_share(frame)
        wait_prop(frame, "share_status", "text", "(t) => t.includes('Link copied') || t.includes('copy it by hand')",
                  timeout=SLOW)
        if "copy it by hand" in model_prop(frame, "share_status", "text"):
            assert model_element(frame, "share_status", "input.share-link").input_value() == here
    finally:
        ctx.close()


# ---- "Save a figure as PNG": any figure of the page, for slides ---------------------------------------------

FIGURE_SIZE_JS = """(n) => { const v = Bokeh.index.find_one(Bokeh.documents[0].get_model_by_name(n));
  return [v.bbox.width, v.bbox.height, devicePixelRatio]; }"""


def _figure_picker(page):
    """Open "More controls", press "Save a figure as PNG" (real clicks) and return the menu, found by its label."""
    open_more_controls(page)
    button = model_element(page, "figure_png_button", "button")
    button.scroll_into_view_if_needed()
    button.click()
    menu = page.get_by_label(PNG_TEXTS["pick"], exact=True)
    menu.wait_for(state="visible")
    return menu


def test_any_figure_is_saved_as_a_png_of_its_size(browser, static_file, tmp_path):
    """The menu lists the page's figures by their names, in the page's order; choosing one and pressing Save PNG
    downloads that figure as a PNG of its size on screen, not blank, also one whose block was not drawn yet."""
    from PIL import Image

    ctx = _context(browser)
    page = ctx.new_page()
    try:
        block_outside(page)
        page.goto(static_file.as_uri())
        wait_ready(page, timeout=SLOW)
        menu = _figure_picker(page)
        assert menu.locator("option").all_inner_texts() == list(TERMS.figures.values())
        assert page.evaluate("() => AttnPage.drawn('ideas-lag')") is False
        for name in ("main_plot", "lag_predictions"):
            menu.select_option(name)
            with page.expect_download() as info:
                page.get_by_role("button", name=PNG_TEXTS["save"], exact=True).click()
            download = info.value
            assert download.suggested_filename == f"{name}.png"
            path = tmp_path / download.suggested_filename
            download.save_as(path)
            width, height, ratio = page.evaluate(FIGURE_SIZE_JS, name)
            with Image.open(path) as img:
                assert img.format == "PNG" and img.size == (round(width * ratio), round(height * ratio)), name
                rgba = img.convert("RGBA")
                colors = rgba.getcolors(maxcolors=1 << 20)
                assert colors is None or len(colors) > 20, (name, colors and len(colors))   # lines, text: not blank
                assert rgba.getchannel("A").getextrema()[1] == 255, name                    # painted, not empty
            page.get_by_role("status").filter(has_text=f"Saved {name}.png").wait_for()
        # issue 47: its numbers as a table, from the plot's own data, and the whole as CSV
        menu.select_option("main_plot")
        page.get_by_role("button", name=PNG_TEXTS["numbers"], exact=True).click()
        marks = source_data(page, "sample_marks")   # the samples as the main plot draws them
        n = len(marks["x"])
        caption = PNG_TEXTS["caption"].format(figure=TERMS.figures["main_plot"], source=SOURCE_WORDS["sample_marks"],
                                              n=n)
        table = page.get_by_role("table", name=caption)
        table.wait_for()
        names = [k for k in marks if k not in STYLE_COLUMNS]
        heads = table.locator("thead th").all_inner_texts()
        assert heads == [COLUMN_WORDS.get(k, k) for k in names] and len(table.locator("tbody tr").all()) == n
        assert "weight \u00f7 the largest" in heads and "size" not in names
        cells = table.locator("tbody tr").first.locator("td").all_inner_texts()
        for name, cell in zip(names, cells):
            v = marks[name][0]
            if isinstance(v, (int, float)) and abs(v) < 1e-4:
                assert cell == "\u2248 0", name   # as the page writes numbers: no exponent
            elif isinstance(v, (int, float)):
                assert float(cell.replace("\u2212", "-")) == pytest.approx(v, rel=5e-4, abs=1e-12), name
        assert "-" not in "".join(cells)   # a true minus sign
        page.get_by_role("status").filter(has_text=TERMS.figures["main_plot"]).wait_for()
        assert axe_violations(page) == []   # the table, its box and its buttons too (issue 47)
        box = page.get_by_role("region", name=caption)
        with page.expect_download() as info:
            box.locator("xpath=following-sibling::button[1]").click()
        assert info.value.suggested_filename == "main_plot-sample_marks.csv"
        path = tmp_path / "main_plot-sample_marks.csv"
        info.value.save_as(path)
        import csv

        rows = list(csv.reader(path.open(encoding="utf-8")))
        assert rows[0] == heads and len(rows) == n + 1
        for i, row in enumerate(rows[1:]):
            for name, cell in zip(names, row):
                v = marks[name][i]
                assert (float(cell) == v) if isinstance(v, (int, float)) else cell == str(v), (i, name)
        # every figure of the menu offers its numbers one tap away, from a button in its corner: a dialog with a
        # table for each source its shown glyphs draw, with as many rows as the source (at most ROWS_SHOWN;
        # tests/browser/test_figures_at_scale.py checks the cap); Esc shuts it and the focus is back on the button
        tables_of = {}
        for name, label in TERMS.figures.items():
            button = page.get_by_role("button", name=PNG_TEXTS["open_name"].format(figure=label), exact=True).first
            button.click()
            dialog = page.get_by_role("dialog", name=PNG_TEXTS["title"].format(figure=label), exact=True)
            dialog.get_by_role("status").filter(has_text=PNG_TEXTS["counted"].format(figure=label)).wait_for()
            tables_of[name] = (page.evaluate(SHOWN_TABLES_JS, "dialog.attn-numbers"), page.evaluate(SOURCE_ROWS_JS, name))
            if name == "main_plot":
                assert axe_violations(page) == []   # the dialog, its tables and buttons
            page.keyboard.press("Escape")
            dialog.wait_for(state="detached")
            assert page.evaluate(FOCUSED_LABEL_JS) == PNG_TEXTS["open_name"].format(figure=label)
        assert [n for n, (shown, _) in tables_of.items() if not shown] == [], "a figure without a table"
        for name, (shown, sources) in tables_of.items():
            assert shown == [[n, min(n, ROWS_SHOWN)] for n in sources if n], (name, shown, sources)
    finally:
        ctx.close()


# The tables shown under the figure menu, or in the element `where` selects (a figure's dialog): [rows their captions
# count, rows in the table].
SHOWN_TABLES_JS = """(where) => { const box = where ? document.querySelector(where) :
  Bokeh.index.find_one(Bokeh.documents[0].get_model_by_name('figure_png_box')).shadow_el.querySelector('div.figure-numbers');
  return [...box.querySelectorAll('table.figure-numbers')].map((t) => [
    Number(/, (\\d+) rows$/.exec(t.caption.textContent)[1]), t.tBodies[0].rows.length]); }"""
# The name of the element that has the focus, through the shadow roots it is in.
FOCUSED_LABEL_JS = """() => { let e = document.activeElement;
  while (e && e.shadowRoot && e.shadowRoot.activeElement) e = e.shadowRoot.activeElement;
  return e && e.getAttribute('aria-label'); }"""
# How many rows each source the plot's shown glyphs draw holds, counted here: its longest column of plain values
# (numbers or words) that does not only style a mark.
SOURCE_ROWS_JS = """(name) => AttnPage.figureSources(name).then((sources) => sources.map((s) => {
  const plain = Object.entries(s.columns).filter(([k, v]) => !%s.includes(k) &&
    v.every((e) => typeof e !== 'object' || e === null));
  return Math.max(0, ...plain.map(([, v]) => v.length)); }))""" % list(STYLE_COLUMNS)


def test_presenting_a_figures_numbers_keep_the_clickers_keys_until_closed(browser, static_file):
    """In presentation mode Page Down turns the step whatever has the focus; while a figure's numbers are open (a
    modal dialog) it does not turn the step behind them, and once Esc has closed them it turns the step again."""
    ctx = _context(browser)
    page = ctx.new_page()
    try:
        block_outside(page)
        page.goto(static_file.as_uri() + "?present=1")
        wait_ready(page, timeout=SLOW)
        step = "() => /Step (\\d+) of/.exec(Bokeh.documents[0].get_model_by_name('tour_card').text)[1]"
        assert page.evaluate(step) == "1"
        label = TERMS.figures["main_plot"]
        page.get_by_role("button", name=PNG_TEXTS["open_name"].format(figure=label), exact=True).first.click()
        dialog = page.get_by_role("dialog", name=PNG_TEXTS["title"].format(figure=label), exact=True)
        dialog.get_by_role("table").first.wait_for()
        page.keyboard.press("PageDown")
        page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
        assert page.evaluate(step) == "1" and dialog.is_visible()
        page.keyboard.press("Escape")
        dialog.wait_for(state="detached")
        page.keyboard.press("PageDown")
        page.wait_for_function(f"() => ({step})() === '2'")
    finally:
        ctx.close()


def test_the_figure_menu_is_small_on_a_phone_and_lists_only_the_pages_sections(browser, tmp_path):
    """On a 360 px phone the menu and its button fit the screen's width in two lines at most; a page exported with
    some sections lists only their figures."""
    from app.delivery.cli import main

    out = tmp_path / "two.html"
    assert main(["export", str(out), "--sections", "regression,ideas"]) == 0
    ctx = browser.new_context(viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True)
    ctx.set_default_timeout(SLOW)
    page = ctx.new_page()
    try:
        block_outside(page)
        page.goto(out.as_uri())
        wait_ready(page, timeout=SLOW)
        menu = _figure_picker(page)

        assert menu.locator("option").all_inner_texts() == [
            words for n, words in TERMS.figures.items() if TERMS.figure_section(n) in ("regression", "ideas")]
        save = page.get_by_role("button", name=PNG_TEXTS["save"], exact=True)
        width = page.evaluate("() => document.documentElement.clientWidth")
        for box in (menu.bounding_box(), save.bounding_box()):
            assert box["x"] >= 0 and box["x"] + box["width"] <= width + 0.5, box
        box = model_element(page, "figure_png_box").bounding_box()
        assert box["height"] <= 3 * save.bounding_box()["height"] + 40, box   # the row and its status line
    finally:
        ctx.close()


KEYS_HEARD_JS = """() => { window.__keys = []; addEventListener('message', (e) => {
  if (e.data && e.data.type === 'attention-explorable:key') window.__keys.push(e.data.key); }); }"""


# A stand-in for reveal.js: what the deck was told to do.
REVEAL_STUB = """<script>window.deck = [];
window.Reveal = { next: () => deck.push('next'), prev: () => deck.push('prev'), togglePause: () => deck.push('pause') };
</script>"""


@pytest.fixture
def deck(tmp_path, served_page, request):
    """data/examples/deck.html around the served page, with a stand-in for reveal.js, on another origin; a test's
    parameter adds to the frame's link (``&keys=tour``)."""
    from tests.browser.pageutil import ROOT

    more = getattr(request, "param", "")
    html = (ROOT / "data" / "examples" / "deck.html").read_text(encoding="utf-8")
    html = html.replace('src="attention-explorable.html?present=1&tour=1"', f'src="{served_page}?present=1&tour=1{more}"')
    assert served_page in html
    (tmp_path / "deck.html").write_text(html.replace("<body>", "<body>" + REVEAL_STUB, 1), encoding="utf-8")
    port = free_port()
    handler = partial(http.server.SimpleHTTPRequestHandler, directory=str(tmp_path))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://localhost:{port}/deck.html"
    httpd.shutdown()


def _open_deck(browser, deck):
    """The deck opened, listening for the page's key messages: (context, page, frame, card), ``card()`` the tour
    card's HTML once the card shows step 1 shown (presentation mode opens it so)."""
    ctx = _context(browser)
    page = ctx.new_page()
    page.goto(deck)
    page.evaluate(KEYS_HEARD_JS)
    frame = _frame(page)
    frame.wait_for_function("""() => { const card = Bokeh.documents[0].get_model_by_name('tour_card');
      const c = globalThis.__attnTour && globalThis.__attnTour.get(card); return !!c && c.status === 'shown'; }""")
    return ctx, page, frame, lambda: model_prop(frame, "tour_card", "text")


def test_a_framed_page_leaves_the_deck_its_keys(deck, browser):
    """Issue 48: in a slide deck's frame, once the presenter has clicked into the page, the keys that turn slides
    are posted to the host ({type: "attention-explorable:key", key}) and the page does not act on them (Page Down
    does not scroll the frame, the arrows do not move the query); a focused slider keeps its arrows, but Page Down
    still goes to the deck; Escape is posted, and data/examples/deck.html's script turns the slides with them and
    takes the focus back on Escape."""
    from app.tour.view import WORDS

    ctx, page, frame, card = _open_deck(browser, deck)
    try:
        heard = lambda: page.evaluate("() => window.__keys.slice()")   # noqa: E731
        query = lambda: model_prop(frame, "query_slider", "value")     # noqa: E731
        # presenting in a slide, the card says whose keys are whose (not the presenter's keys' hint)
        assert html.escape(WORDS["keys_framed"]) in card() and html.escape(WORDS["keys"]) not in card()
        frame.get_by_text("Attention compares a", exact=False).first.click()   # text, not a control
        # (every block drawn: a block drawn above meanwhile would move the page by itself, on a busy machine)
        assert frame.evaluate(DRAW_ALL_JS)
        frame.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
        y, q = frame.evaluate("() => scrollY"), query()
        for key in ("PageDown", "Space", "ArrowRight", "b"):
            page.keyboard.press(key)
        page.wait_for_function("() => window.__keys.length >= 4")
        assert heard() == ["PageDown", " ", "ArrowRight", "b"]
        assert (frame.evaluate("() => scrollY"), query()) == (y, q)   # neither scrolled nor moved
        assert "Step 1 of" in card()                                   # nor turned the tour's step
        # a focused slider keeps its arrows; Page Down still turns the slide
        model_element(frame, "query_slider", ".noUi-handle").focus()
        page.keyboard.press("ArrowRight")
        frame.wait_for_function("(q) => Bokeh.documents[0].get_model_by_name('query_slider').value > q", arg=q)
        moved = query()
        page.keyboard.press("PageDown")
        page.keyboard.press("Escape")
        page.wait_for_function("() => window.__keys.length >= 6")
        assert heard()[4:] == ["PageDown", "Escape"] and query() == moved
        # the example deck's script: Page Down, the space bar, -> next; b a blank screen; Escape gives it the focus
        page.wait_for_function("() => window.deck.length >= 5")
        assert page.evaluate("() => window.deck") == ["next", "next", "next", "pause", "next"]
        page.wait_for_function("() => document.activeElement !== document.getElementById('explorable')")
    finally:
        ctx.close()


@pytest.mark.parametrize("deck", ["&keys=tour"], indirect=True)
def test_keys_tour_in_a_framed_page_turns_the_tours_steps(deck, browser):
    """Issue 48: with keys=tour in the frame's link, the presenter's keys turn the tour's steps in presentation mode,
    as outside a frame, and are not posted; "b" (a blank screen) and Escape still go to the deck, and the card gives
    the presenter's keys' hint, not the deck's."""
    from app.tour.view import WORDS

    ctx, page, frame, card = _open_deck(browser, deck)
    try:
        assert html.escape(WORDS["keys"]) in card() and html.escape(WORDS["keys_framed"]) not in card()
        frame.get_by_text("Attention compares a", exact=False).first.click()   # text, not a control
        page.keyboard.press("PageDown")
        frame.wait_for_function("() => Bokeh.documents[0].get_model_by_name('tour_card').text.includes('Step 2 of')")
        page.keyboard.press("ArrowLeft")
        frame.wait_for_function("() => Bokeh.documents[0].get_model_by_name('tour_card').text.includes('Step 1 of')")
        page.keyboard.press("b")
        page.keyboard.press("Escape")
        page.wait_for_function("() => window.__keys.length >= 2")
        assert page.evaluate("() => window.__keys.slice()") == ["b", "Escape"]
        page.wait_for_function("() => window.deck.length >= 1")
        assert page.evaluate("() => window.deck") == ["pause"]
    finally:
        ctx.close()
