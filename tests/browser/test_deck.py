"""Issue 48: the page on a slide of a real reveal.js deck, whose keys the README's host script hands back.

reveal.js is pinned in tests/engines/package-lock.json, installed with ``npm ci --ignore-scripts`` beside
puppeteer-core and never shipped.  The deck has three slides, the offline file in the middle one's frame, and the
README's "deck-keys" script, taken verbatim.  Before each key press the deck's focused element is the frame: the
presenter has clicked into the page, so the frame's window has the keyboard.
"""

from __future__ import annotations

import http.server
import os
import shutil
import threading
from functools import partial

import pytest

from tests.browser.pageutil import ROOT, free_port, model_element, model_prop, wait_ready
from tests.browser.test_course_pages import readme_blocks

REVEAL = ROOT / "tests" / "engines" / "node_modules" / "reveal.js" / "dist"
DECK = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Week 5: attention</title>
<link rel="icon" href="data:,"><link rel="stylesheet" href="reveal.css"></head><body>
<div class="reveal"><div class="slides">
<section><h2>Before the explorable</h2></section>
<section><iframe id="explorable" src="page.html{query}" title="attention explorable"
                 style="width:100%;height:560px;border:0"></iframe></section>
<section><h2>After the explorable</h2></section>
</div></div>
<script src="reveal.js"></script>
<script>Reveal.initialize({{ hash: false, transition: "none", width: 1280, height: 720, margin: 0 }});</script>
{snippet}
</body></html>"""
NEXT_FRAME_JS = "() => new Promise((r) => requestAnimationFrame(() => r()))"


def readme_script():
    (lang, snippet), = readme_blocks("deck-keys")
    assert lang == "html"
    return snippet


def test_the_example_deck_holds_the_readmes_script():
    assert readme_script() in (ROOT / "data" / "examples" / "deck.html").read_text(encoding="utf-8")


@pytest.fixture
def deck(tmp_path, static_file):
    """deck(query) -> the address of a reveal.js deck (on 127.0.0.1) whose middle slide frames the offline file."""
    if not (REVEAL / "reveal.js").exists():
        msg = "reveal.js is not installed (npm ci --prefix tests/engines --ignore-scripts)"
        if os.environ.get("CI") == "true":
            pytest.fail(msg)
        pytest.skip(msg)
    for name in ("reveal.js", "reveal.css"):
        shutil.copy(REVEAL / name, tmp_path / name)
    (tmp_path / "page.html").symlink_to(static_file)
    port = free_port()
    handler = partial(http.server.SimpleHTTPRequestHandler, directory=str(tmp_path))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()

    def write(query=""):
        name = f"deck{len(list(tmp_path.glob('deck*.html')))}.html"
        (tmp_path / name).write_text(DECK.format(query=query, snippet=readme_script()), encoding="utf-8")
        return f"http://127.0.0.1:{port}/{name}"

    yield write
    httpd.shutdown()


class Deck:
    """The deck's page and the explorable's frame in it."""

    def __init__(self, browser, url):
        self.ctx = browser.new_context(viewport={"width": 1280, "height": 720})
        self.ctx.set_default_timeout(60000)
        self.page = self.ctx.new_page()
        self.page.goto(url)
        self.page.wait_for_function("() => window.Reveal && Reveal.isReady()")
        self.page.evaluate("() => Reveal.slide(1)")
        self.page.wait_for_function("() => document.querySelectorAll('iframe').length === 1 && "
                                    "Reveal.getIndices().h === 1")
        self.frame = self.page.frames[1]
        wait_ready(self.frame)

    def slide(self):
        return self.page.evaluate("() => Reveal.getIndices().h")

    def to_slide(self, h):
        self.page.evaluate("(h) => Reveal.slide(h)", h)
        self.page.wait_for_function("(h) => Reveal.getIndices().h === h", arg=h)

    def click_text(self):
        """A click on the page's words, not on a control: the frame takes the keyboard."""
        self.frame.get_by_text("Attention compares a", exact=False).first.click()

    def press(self, key):
        """A key, pressed while the frame has the deck's focus."""
        assert self.page.evaluate("() => document.activeElement === document.getElementById('explorable')")
        self.page.keyboard.press(key)

    def query(self):
        return model_prop(self.frame, "query_slider", "value")

    def step(self):
        return model_prop(self.frame, "tour_card", "text")


def test_the_readmes_script_turns_a_reveal_deck_from_inside_the_page(deck, browser):
    """After a click into the page and a drag of the query: the arrows move the query while the main plot has the
    focus; ->, Page Down and the space bar turn to the next slide and <-, Page Up to the previous once the focus is
    on the page's words; Escape gives the keys back to the deck, whose own arrows then turn its slides."""
    d = Deck(browser, deck())
    try:
        d.click_text()
        # a drag of the query on the main plot (in page coordinates: the slide is scaled), which takes the focus
        box = model_element(d.frame, "main_plot").bounding_box()
        y, before = box["y"] + box["height"] * 0.5, d.query()
        d.page.mouse.move(box["x"] + box["width"] * 0.3, y)
        d.page.mouse.down()
        d.frame.evaluate(NEXT_FRAME_JS)
        d.page.mouse.move(box["x"] + box["width"] * 0.6, y, steps=8)
        d.frame.evaluate(NEXT_FRAME_JS)
        d.page.mouse.up()
        d.frame.wait_for_function("(q) => Bokeh.documents[0].get_model_by_name('query_slider').value !== q",
                                  arg=before)
        dragged = d.query()
        d.press("ArrowRight")
        d.frame.wait_for_function("(q) => Bokeh.documents[0].get_model_by_name('query_slider').value > q",
                                  arg=dragged)
        assert d.slide() == 1
        d.press("PageDown")                       # the main plot keeps its arrows, not the clicker's keys
        d.page.wait_for_function("() => Reveal.getIndices().h === 2")
        for key, to in (("ArrowRight", 2), ("PageDown", 2), ("Space", 2), ("ArrowLeft", 0), ("PageUp", 0)):
            d.to_slide(1)
            d.click_text()
            q = d.query()
            d.press(key)
            d.page.wait_for_function("(h) => Reveal.getIndices().h === h", arg=to)
            assert d.query() == q, key            # the page did not act on it
        d.to_slide(1)
        d.click_text()
        d.press("Escape")
        d.page.wait_for_function("() => document.activeElement !== document.getElementById('explorable')")
        d.page.keyboard.press("ArrowRight")       # the deck's own keys, with the deck's focus
        d.page.wait_for_function("() => Reveal.getIndices().h === 2")
    finally:
        d.ctx.close()


@pytest.mark.parametrize("keys, turns", [("", "the deck"), ("&keys=tour", "the tour")])
def test_presenting_in_a_deck_the_clicker_turns_the_slides_or_with_keys_tour_the_steps(deck, browser, keys, turns):
    d = Deck(browser, deck(f"?present=1&tour=1{keys}"))
    try:
        d.frame.wait_for_function("() => Bokeh.documents[0].get_model_by_name('tour_card').text.includes('Step 1 of')")
        d.click_text()
        d.press("PageDown")
        if turns == "the deck":
            d.page.wait_for_function("() => Reveal.getIndices().h === 2")
            assert "Step 1 of" in d.step()
        else:
            d.frame.wait_for_function(
                "() => Bokeh.documents[0].get_model_by_name('tour_card').text.includes('Step 2 of')")
            assert d.slide() == 1
    finally:
        d.ctx.close()
