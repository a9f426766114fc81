"""The page in Firefox ESR and WebKitGTK (Safari's engine), besides Chromium: a smoke suite on the offline file.

In each engine, one page (1366x768, conftest.py ``page``) is walked by these tests in order, with real input (the
engine's own pointer and keys) and checked with the Chromium tests' helpers against the numpy core:
* it loads and its readouts are the core's;
* a drag of the query on the main plot moves the query, and the readouts follow;
* Next and Show me through every step of the shipped lesson: each step is the one the tour's stepper and the
  address name, its card shows its title, and Show me reaches a state that meets the step's goal by the core;
* a typed sentence in the self-attention section changes the matrix to numpy's for it;
* a CSV pasted (copied and pasted with the keyboard) into "Your data", under "More controls", loads;
* by then the loader has drawn every block (as it does while the page is idle);
* at 320 and 683 px wide (1280 px at 400 % and 1366 px at 200 % zoom), and at 390 in WebKit, nothing scrolls
  sideways (WCAG 1.4.10).
After each test: no console error, uncaught exception or request outside the file (conftest.py ``walk``).
Buttons are found by their accessible names wherever they are, and pressed where a student's pointer lands: a
press fails when something else covers the button there.  Every wait is for a condition.
"""

from __future__ import annotations

import html
from pathlib import Path
from urllib.parse import urlsplit

from app import userdata as u
from app.sections import CATALOGUE, parse_query
from app.tour import default_tour
from app.tour.model import holds, section_readouts
from tests.browser.pageutil import (DRAW_ALL_JS, READY_JS, SETTLED_JS, check_against_core, draw, drag, model_prop,
                                    plot_geometry, readout_text, wait_query)
from tests.browser.test_own_data import check_against_core as check_own_data_against_core
from tests.browser.test_own_data import EXAMPLE, shown_data, wait_data
from tests.browser.test_sentence import READY_JS as SENTENCE_READY_JS
from tests.browser.test_sentence import check_parity, wait_tokens
from tests.engines.drivers import WaitTimeout

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"   # screenshots of a failed press (not in git)
TOUR = default_tour(CATALOGUE)
N = len(TOUR)
CARD_JS = "() => Bokeh.documents[0].get_model_by_name('tour_card').text"
CSV_ROWS = 30


# ---- pressing what a student presses -------------------------------------------------------------------

# The button (or role=button) whose accessible name is ``name`` (its aria-label, else its words), searched through
# every shadow root; the first one drawn.  It is noted in window.__engineTarget.
FIND_JS = """(name) => { const norm = (s) => (s || '').replace(/\\s+/g, ' ').trim(), found = [];
  const visit = (root) => { for (const el of root.querySelectorAll('*')) {
    if (el.shadowRoot) visit(el.shadowRoot);
    if ((el.tagName === 'BUTTON' || el.getAttribute('role') === 'button') && !el.disabled &&
        norm(el.getAttribute('aria-label') || el.textContent) === name) found.push(el); } };
  visit(document);
  const b = found.find((el) => { const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== 'hidden'; });
  window.__engineTarget = b || null; return !!b; }"""

# window.__engineTarget to the middle of the screen, as a student scrolls to a control that is off screen or under
# something (the docked step card, say)
CENTRE_JS = "() => { window.__engineTarget.scrollIntoView({block: 'center', inline: 'nearest'}); return true; }"

# Where window.__engineTarget's centre is and whether a pointer there reaches it (the innermost element there,
# through shadow roots, is it or inside it); ``what`` is what it reaches.
HIT_JS = """() => { const b = window.__engineTarget, r = b.getBoundingClientRect();
  const x = r.left + r.width / 2, y = r.top + r.height / 2;
  let e = document.elementFromPoint(x, y);
  while (e && e.shadowRoot && e.shadowRoot.elementFromPoint) {
    const f = e.shadowRoot.elementFromPoint(x, y); if (!f || f === e) break; e = f; }
  let hit = false; for (let p = e; p; p = p.parentNode || p.host) if (p === b) { hit = true; break; }
  const what = e ? e.tagName.toLowerCase() + (e.className && typeof e.className === 'string' ? '.' + e.className : '') : null;
  return {x, y, hit, what}; }"""

# the element a selector finds inside the shadow root of a named model's view (or its view's element)
ELEMENT_JS = """([name, sel]) => { const v = Bokeh.index.find_one(Bokeh.documents[0].get_model_by_name(name));
  const el = v && (sel ? v.shadow_el.querySelector(sel) : v.el); window.__engineTarget = el || null; return !!el; }"""


def aim(page) -> tuple[float, float]:
    """The centre of window.__engineTarget where a pointer reaches it: where it is, or else scrolled to the middle
    of the screen (the page settled first, each time)."""
    page.evaluate(SETTLED_JS, {"scroll": True})
    at = page.evaluate(HIT_JS)
    if not at["hit"]:
        page.evaluate(CENTRE_JS)
        page.evaluate(SETTLED_JS, {"scroll": True})
        at = page.evaluate(HIT_JS)
    if not at["hit"]:
        ARTIFACTS.mkdir(exist_ok=True)
        shot = ARTIFACTS / f"{page.engine}-covered.png"
        page.screenshot(shot)
        raise AssertionError(f"{page.engine}: a press at the target's centre lands on {at['what']} (screen: {shot})")
    return at["x"], at["y"]


def press(page, name: str, timeout=30000):
    """A real click on the button named ``name`` (once one is drawn)."""
    page.wait_for_function(FIND_JS, arg=name, timeout=timeout)
    page.mouse.click(*aim(page))


def click_element(page, model, selector=None):
    assert page.evaluate(ELEMENT_JS, [model, selector]), (model, selector)
    page.mouse.click(*aim(page))


# ---- the tests, in the order they walk the page -----------------------------------------------------------

def test_loads_with_the_cores_readouts(walk):
    page = walk
    assert page.version
    check_against_core(page)
    # the posters painted before BokehJS (app/ui/opening.js) have been handed over to the live page
    page.wait_for_function("() => document.querySelector('main').getAttribute('data-opening') === 'live'")
    assert page.evaluate("() => document.querySelectorAll('.attn-poster').length") == 0


def test_a_real_drag_of_the_query_moves_it_and_the_readouts_follow(walk):
    page = walk
    before = readout_text(page)
    # the page settled first (no scroll going on, no reveal under way), so the plot is where it is measured
    page.evaluate(SETTLED_JS, {"scroll": True})
    g = plot_geometry(page)
    drag(page, g, g["top"] + 0.3 * g["height"], [3.2, 2.4, 1.6, 1.0])
    wait_query(page, 1.0, 1.5 * (g["x1"] - g["x0"]) / g["width"])
    state, _ = check_against_core(page)
    assert readout_text(page) != before and abs(state["query"] - 1.0) < 0.05
    # the page took it for a student's drag: the tour's first step ("drag the query to the left") is found
    page.wait_for_function(f"() => ({CARD_JS})().includes('class=\"tour-found\"')")


def page_values(page) -> tuple[str, dict]:
    href = page.evaluate("() => location.href")
    return href, parse_query(urlsplit(href).query)[0]


def goal_reached(page, k, step):
    """Wait until the address (which follows the page's state at most every 150 ms) holds a state that meets step
    ``k``'s goal by the core (tests/browser/test_lesson.py show_me_meets_the_goal)."""
    needs = {n for n, _, _ in step.when}
    while True:
        href, values = page_values(page)
        got = section_readouts(CATALOGUE, step.section, values, needs=needs)
        if holds(step.when, got):
            return
        try:
            page.wait_for_function("(u) => location.href !== u", arg=href, timeout=5000)
        except WaitTimeout:
            raise AssertionError(f"{page.engine}: step {k} ({step.id}): Show me left {values}: {got}") from None


def test_next_and_show_me_through_every_step_of_the_lesson(walk):
    page = walk
    for k, step in enumerate(TOUR.steps, 1):
        if k > 1:
            press(page, "Next \u2192")
        # the tour's stepper, the address and the card say it is step k
        page.wait_for_function("([k, id]) => Bokeh.documents[0].get_model_by_name('tour_step').value === k &&"
                               " (new URLSearchParams(location.search).get('tour') || '1') === id",
                               arg=[k, "1" if k == 1 else step.id])
        assert html.escape(step.title, quote=False) in page.evaluate(CARD_JS), (page.engine, k)
        press(page, "Show me")
        page.wait_for_function(f"""() => {{ const t = ({CARD_JS})();
          return t.includes('class="tour-shown"') || t.includes('class="tour-found"'); }}""")
        page.evaluate(SETTLED_JS)
        goal_reached(page, k, step)
    assert page.evaluate("() => Bokeh.documents[0].get_model_by_name('tour_step').value") == N


def test_a_typed_sentence_changes_the_matrix(walk):
    page = walk
    draw(page, "sentence")
    page.wait_for_function(SENTENCE_READY_JS)
    text = "The loan from the bank was paid."
    before = page.evaluate("() => Bokeh.documents[0].get_model_by_name('sentence_tokens').data.tok.join(' ')")
    click_element(page, "sentence_input", "input")
    page.keyboard.press("Control+a")
    page.keyboard.type(text)
    page.keyboard.press("Enter")
    tokens = ["the", "loan", "from", "the", "bank", "was", "paid"]
    assert " ".join(tokens) != before
    wait_tokens(page, tokens)
    check_parity(page, "the loan from the bank was paid")


COPY_JS = """(text) => { const t = document.createElement('textarea'); t.id = '__engineClip'; t.value = text;
  document.body.append(t); t.focus(); t.select(); return document.activeElement === t; }"""


def test_a_pasted_csv_loads_in_your_data(walk):
    page = walk
    csv = "\n".join(EXAMPLE.read_text(encoding="utf-8").splitlines()[: CSV_ROWS + 1]) + "\n"   # header, 30 rows
    want = u.parse_text(csv)
    if model_prop(page, "more_controls", "visible") is not True:
        press(page, "More controls")
    page.wait_for_function("() => Bokeh.documents[0].get_model_by_name('more_controls').visible === true")
    draw(page, "regression-more")
    page.wait_for_function("""() => { const v = Bokeh.index.find_one(Bokeh.documents[0].get_model_by_name(
      'own_data_form')); const r = v && v.shadow_el && v.shadow_el.querySelector('.own'); return !!(r && r.__attnWired); }""")
    # the CSV onto the clipboard with the keyboard (from a text box of the test's, removed again) ...
    assert page.evaluate(COPY_JS, csv)
    page.keyboard.press("Control+c")
    page.evaluate("() => document.getElementById('__engineClip').remove()")
    # ... and pasted with the keyboard into the box
    click_element(page, "own_data_form", "textarea.own-text")
    page.keyboard.press("Control+v")
    page.wait_for_function("""(want) => { const v = Bokeh.index.find_one(Bokeh.documents[0].get_model_by_name(
      'own_data_form')); return v.shadow_el.querySelector('textarea.own-text').value.trim() === want.trim(); }""",
                           arg=csv)
    press(page, "Use this data")
    wait_data(page, CSV_ROWS)
    d = shown_data(page)
    assert d["xu"] == want.x.tolist() and d["y"] == want.y.tolist()
    assert (d["tag"]["x_name"], d["tag"]["y_name"]) == ("day", "temp_c")
    check_own_data_against_core(page)


def test_every_block_is_drawn(walk):
    """By now the loader has drawn every block of the page, as it does for a student while the page is idle: the
    check after this test (no console error) then covers every block in this engine."""
    walk.wait_for_function("() => AttnPage.allDrawn()", timeout=90000)


# Whether anything of the page reaches past the viewport's right edge: the document's width, and the widest element
# (through shadow roots) that is not inside something that scrolls sideways itself.
WIDER_JS = """() => { const W = document.documentElement.clientWidth, out = [];
  if (document.documentElement.scrollWidth <= W + 1) return out;
  out.push(['document', document.documentElement.scrollWidth, W]);
  const clipped = (el) => { for (let p = el.parentElement || (el.parentNode && el.parentNode.host); p;
      p = p.parentElement || (p.parentNode && p.parentNode.host)) {
      const o = getComputedStyle(p).overflowX; if (o !== 'visible') return true; } return false; };
  const visit = (root) => { for (const el of root.querySelectorAll('*')) {
    if (el.shadowRoot) visit(el.shadowRoot);
    const r = el.getBoundingClientRect();
    if (r.width && r.right > W + 1 && !clipped(el) && out.length < 8)
      out.push([el.tagName.toLowerCase() + '.' + String(el.className || '').slice(0, 40), Math.round(r.left),
                Math.round(r.right)]); } };
  visit(document); return out; }"""


def test_nothing_scrolls_sideways_at_320_and_683_px(walk):
    """Issue 47 (WCAG 1.4.10, reflow): at 320 and 683 CSS px, and in WebKit at 390 (a phone), every block drawn,
    nothing reaches past the viewport's right edge (a desktop scrollbar taken from it).  MiniBrowser's toolbar keeps
    WebKitGTK's window at least 447 px wide: there, 320 and 390 are the page in a frame of that width (the last
    thing the walk does)."""
    def fits(width):
        walk.wait_for_function(f"() => innerWidth === {width}")
        walk.evaluate(SETTLED_JS, {"scroll": True})
        wider = walk.evaluate(WIDER_JS)
        assert wider == [], f"{walk.engine} at {width} px: (the document's width, the viewport's), then " \
                            f"what reaches past it (element, left, right): {wider}"

    for width in (683,) if walk.engine == "webkit" else (320, 683):
        walk.resize(width, 768)
        fits(width)
    walk.resize(1366, 768)
    if walk.engine == "webkit":
        for width in (320, 390):
            walk.framed(width, 768)
            walk.wait_for_function(READY_JS, timeout=120000)
            walk.evaluate(DRAW_ALL_JS)
            fits(width)
