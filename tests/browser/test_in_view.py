"""See it while you do it (issues 23 and 39): the figure a tour step talks about, the control it asks the student to
move and the step card are on screen together, on every screen, after Show me, Next and Previous.

Each screen opens the offline file once and walks the whole tour: for every step, Next (a finger's tap on a phone, a
click on a laptop, the arrow key on a projector), then Show me, then (on the laptop and the phone) Previous and Next
back.  Each time it measures
each of the step's `look` elements (data/tours/*.json) against the viewport: fully inside it, and not hidden under
what stays stuck at the top (the stage on a phone) or at the foot (the docked step card), checked with
elementFromPoint at its edges; and the card's title and its Next button at least 90 % on screen, a tap at Next's
middle reaching Next.  The served page (the offline file's bytes, tests/app/test_plugin.py) gets the walk by Next and
Show me on the phone, the laptop and the projector at 1280 x 720.  Motion is reduced (the context asks for it), so
Show me lands at once and the page scrolls without gliding; the page still scrolls by itself."""

from __future__ import annotations

import pytest

from app.tour import default_tour
from app.sections import CATALOGUE
from app.tour.terms import terms

from tests.browser.pageutil import SETTLED_JS, block_outside, wait_ready

TERMS = terms(CATALOGUE)   # what the tour knows of the page's sections

SCREENS = {
    "laptop": dict(viewport={"width": 1366, "height": 768}),
    "projector": dict(viewport={"width": 1920, "height": 1080}),
    "phone": dict(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True),
    "projector-1280": dict(viewport={"width": 1280, "height": 720}),
    "projector-1024": dict(viewport={"width": 1024, "height": 768}),
    "tablet": dict(viewport={"width": 768, "height": 1024}, is_mobile=True, has_touch=True),
    "tablet-turned": dict(viewport={"width": 1024, "height": 768}, is_mobile=True, has_touch=True),
}
PRESENT = {"projector", "projector-1280", "projector-1024"}

# How much of an element is on screen and not covered: the share of a 5 x 3 grid of points inside it that
# are inside the viewport and hit the element itself (or something inside it).
SHOWN_JS = """(names) => { const d = Bokeh.documents[0], W = innerWidth, H = innerHeight, out = {};
  for (const n of names) {
    const m = d.get_model_by_name(n), v = m && Bokeh.index.find_one(m);
    if (!v || !v.el.isConnected) { out[n] = 0; continue; }
    const r = v.el.getBoundingClientRect(); let hit = 0, all = 0;
    if (r.width === 0 || r.height === 0) { out[n] = 0; continue; }
    for (let i = 0; i < 5; i++) for (let j = 0; j < 3; j++) {
      const x = r.left + r.width * (0.05 + 0.9 * i / 4), y = r.top + r.height * (0.08 + 0.84 * j / 2); all++;
      if (x < 0 || y < 0 || x >= W || y >= H) continue;
      let e = document.elementFromPoint(x, y);
      while (e && e.shadowRoot && e.shadowRoot.elementFromPoint) { const f = e.shadowRoot.elementFromPoint(x, y); if (!f || f === e) break; e = f; }
      for (let p = e; p; p = p.parentNode || p.host) if (p === v.el || (v.shadow_el && p === v.shadow_el)) { hit++; break; }
    }
    out[n] = hit / all;
  }
  return out; }"""


def looks(step) -> list[str]:
    return [TERMS.look_models.get(n, n) for n in step.looks_at]


def shown(page, names) -> dict:
    page.evaluate(SETTLED_JS)
    return page.evaluate(SHOWN_JS, names)


# where the walk also goes Previous and Next back at every step: a mouse's and a finger's screens (the projector's
# keys turn back by the same path as forward: tests/browser/test_tour.py turns them both ways)
BACK_SCREENS = ("laptop", "phone")
# the screens where issue 39 asks for the step card with its figure, served as offline (issue 46: three screens)
SERVED_SCREENS = ("phone", "laptop", "projector-1280")

# The step card's title and its Next button (app/tour/view.py): how much of each is on screen and not covered (a
# 5 x 3 grid of points inside it that hit it, as SHOWN_JS counts), and the point at the middle of Next.
CARD_JS = """() => { const d = Bokeh.documents[0], W = innerWidth, H = innerHeight;
  const deep = (x, y) => { let e = document.elementFromPoint(x, y);
    while (e && e.shadowRoot && e.shadowRoot.elementFromPoint) { const f = e.shadowRoot.elementFromPoint(x, y);
      if (!f || f === e) break; e = f; } return e; };
  const inside = (e, el) => { for (let p = e; p; p = p.parentNode || p.host) if (p === el) return true; return false; };
  const share = (el) => { const r = el.getBoundingClientRect(); let hit = 0;
    if (!r.width || !r.height) return 0;
    for (let i = 0; i < 5; i++) for (let j = 0; j < 3; j++) {
      const x = r.left + r.width * (0.05 + 0.9 * i / 4), y = r.top + r.height * (0.1 + 0.8 * j / 2);
      if (x >= 0 && y >= 0 && x < W && y < H && inside(deep(x, y), el)) hit++; }
    return hit / 15; };
  const card = Bokeh.index.find_one(d.get_model_by_name('tour_card'));
  const title = card && card.shadow_el.querySelector('h2');
  const next = Bokeh.index.find_one(d.get_model_by_name('tour_next')), button = next && next.shadow_el.querySelector('button');
  if (!title || !button) return null;
  const r = button.getBoundingClientRect(), cx = r.left + r.width / 2, cy = r.top + r.height / 2;
  return { title: share(title), next: share(button), centre: [cx, cy], reaches: inside(deep(cx, cy), button) }; }"""


# The step card's words: their height and the height the card gives them (its words scroll inside it beyond that).
CARD_WORDS_JS = """() => { const v = Bokeh.index.find_one(Bokeh.documents[0].get_model_by_name('tour_card'));
  const el = v && v.shadow_el.querySelector('.tour-card'); return el ? [el.scrollHeight, el.clientHeight] : null; }"""


# Every text of the step card with its font size in px.
CARD_SIZES_JS = """() => { const v = Bokeh.index.find_one(Bokeh.documents[0].get_model_by_name('tour_card'));
  const out = [], walk = (n) => { for (const c of n.childNodes) {
    if (c.nodeType === 3 && c.textContent.trim() && !['STYLE', 'SCRIPT'].includes(c.parentElement.tagName))
      out.push([c.textContent.trim().slice(0, 40), parseFloat(getComputedStyle(c.parentElement).fontSize)]);
    else if (c.nodeType === 1) walk(c); }
    if (n.shadowRoot) walk(n.shadowRoot); };
  walk(v.el); return out; }"""


def card_problems(page, screen, k, after) -> list:
    """The step card after a turn, once the page has settled (the caller waits, once per state): its title and Next
    at least 90 % on screen, and Next's middle reaching Next; on a projector (issue 46: at 1280 x 720 the words were
    cut and faded), every word of the card in it, none to scroll."""
    got = page.evaluate(CARD_JS)
    if got is None:
        return [(screen, k, after, "the card", "not drawn")]
    out = [(screen, k, after, what, got[what]) for what in ("title", "next") if got[what] < 0.9]
    words = page.evaluate(CARD_WORDS_JS) if screen in PRESENT else None
    if words is not None and words[0] > words[1] + 1:
        out.append((screen, k, after, "the card's words", f"cut: {words[0]} px in {words[1]} px"))
    if screen == "projector":   # read from the back of a lecture hall
        sizes = page.evaluate(CARD_SIZES_JS)
        if not (any("Step" in t for t, _ in sizes) and any("Try it" in t for t, _ in sizes)):
            out.append((screen, k, after, "the card's words", "no step line or no Try it"))
        out += [(screen, k, after, f"{t!r}", f"{px} px, under 28") for t, px in sizes if px < 28]
    return out + ([] if got["reaches"] else [(screen, k, after, "a tap on Next", "lands elsewhere")])


def turn(page, screen, forward=True):
    """Turn the step as a student on that screen does: a finger's tap on a phone, a click on a laptop, the arrow key
    on a projector; the tap and the click land at the middle of the button, wherever the page put it."""
    if screen in PRESENT:
        page.keyboard.press("ArrowRight" if forward else "ArrowLeft")
        return
    name = "Next \u2192" if forward else "\u2190 Previous"
    box = page.get_by_role("button", name=name).bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    if SCREENS[screen].get("has_touch"):
        page.touchscreen.tap(x, y)
    else:
        page.mouse.click(x, y)


def walk_tour(page, screen, steps=None, *, back=None):
    """Every step (or the first ``steps``): reached by Next (turned as on that screen), then Show me, then Previous
    + Next (on the laptop and the phone, unless ``back`` says): its look elements on screen, and the step card's title
    and Next with them (a tap on Next reaches it).  On the 1920 px projector every word of the card is at least
    28 px, at every step."""
    tour, problems = default_tour(CATALOGUE), []
    back = screen in BACK_SCREENS if back is None else back
    if screen in PRESENT:   # the keys turn the steps when the page has the keyboard's focus
        page.locator("body").click(position={"x": 2, "y": 2})
    page.evaluate(SETTLED_JS)
    problems += card_problems(page, screen, 1, "opening")
    for k, step in enumerate(tour.steps[:steps], 1):
        if k > 1:
            turn(page, screen)
            page.wait_for_function("(k) => Bokeh.documents[0].get_model_by_name('tour_card').text.includes(`Step ${k} of`)",
                                   arg=k)
            got = shown(page, looks(step))
            problems += [(screen, k, "Next", n, f) for n, f in got.items() if f < 0.99]
            problems += card_problems(page, screen, k, "Next")
        page.get_by_role("button", name="Show me").click()
        page.wait_for_function("() => !(globalThis.__attnTextsPending > 0)")
        got = shown(page, looks(step))
        problems += [(screen, k, "Show me", n, f) for n, f in got.items() if f < 0.99]
        problems += card_problems(page, screen, k, "Show me")
        if k > 1 and back:
            turn(page, screen, forward=False)
            page.evaluate(SETTLED_JS)
            problems += card_problems(page, screen, k - 1, "Previous")
            turn(page, screen)
            got = shown(page, looks(step))
            problems += [(screen, k, "Previous, Next", n, f) for n, f in got.items() if f < 0.99]
            problems += card_problems(page, screen, k, "Previous, Next")
    return problems


def open_at(browser, base, screen, *, offline):
    ctx = browser.new_context(reduced_motion="reduce", **SCREENS[screen])
    page = ctx.new_page()
    page.set_default_timeout(30000)
    if offline:
        block_outside(page)
    page.goto(base + ("?present=1" if screen in PRESENT else ""))
    wait_ready(page)
    return ctx, page


@pytest.mark.parametrize("screen", list(SCREENS))
def test_every_step_keeps_its_figure_and_control_on_screen_offline(browser, static_file, screen):
    ctx, page = open_at(browser, static_file.as_uri(), screen, offline=True)
    try:
        assert walk_tour(page, screen) == []
    finally:
        ctx.close()


@pytest.mark.parametrize("screen", SERVED_SCREENS)
def test_every_step_keeps_the_card_with_its_figure_on_the_served_page(browser, served_page, screen):
    """The served page (the offline file's bytes under the server's headers, which the offline walks cannot see):
    every step reached by Next and after Show me keeps its figure, its control and the step card on screen."""
    ctx, page = open_at(browser, served_page, screen, offline=False)
    try:
        assert walk_tour(page, screen, back=False) == []
    finally:
        ctx.close()


GEOMETRY_JS = """(names) => { const d = Bokeh.documents[0], out = {};
  for (const n of names) { const v = Bokeh.index.find_one(d.get_model_by_name(n)); const r = v.el.getBoundingClientRect();
    out[n] = {top: r.top, bottom: r.bottom, left: r.left, right: r.right, x3: r.left + (v.frame ? v.frame.x_scale.compute(3) : 0),
              frame: v.frame ? v.frame.bbox.width : null}; }
  return out; }"""


def test_more_controls_never_push_the_plots_apart(browser, static_file):
    ctx, page = open_at(browser, static_file.as_uri(), "laptop", offline=True)
    try:
        names = ["main_plot", "query_slider", "weights_plot", "entropy_x_plot"]
        before = page.evaluate(GEOMETRY_JS, names)
        page.get_by_role("button", name="More controls").click()
        page.wait_for_function("() => Bokeh.documents[0].get_model_by_name('more_controls').visible === true")
        page.evaluate(SETTLED_JS)
        after = page.evaluate(GEOMETRY_JS, names)
        # the figure column stays as it was: each plot and the slider keep their place under the main plot
        for n in names:
            for edge in ("top", "bottom"):
                was = before[n][edge] - before["main_plot"]["top"]
                now = after[n][edge] - after["main_plot"]["top"]
                assert abs(now - was) < 1, (n, edge, was, now)
        shown = page.evaluate(SHOWN_JS, ["main_plot", "weights_plot"])
        assert shown == {"main_plot": 1, "weights_plot": 1}   # and stays on screen beside the open column
    finally:
        ctx.close()


@pytest.mark.parametrize("width", [360, 390])
def test_a_phone_keeps_the_readouts_under_the_plot_and_a_wide_frame(browser, static_file, width):
    ctx = browser.new_context(viewport={"width": width, "height": 780}, is_mobile=True, has_touch=True,
                              reduced_motion="reduce")
    page = ctx.new_page()
    try:
        block_outside(page)
        page.goto(static_file.as_uri())
        wait_ready(page)
        page.wait_for_function("() => AttnPage.drawn('regression-spread')")
        g = page.evaluate(GEOMETRY_JS, ["main_plot", "readout_strip", "weights_plot", "entropy_x_plot"])
        strip, plot = g["readout_strip"], g["main_plot"]
        assert 0 <= strip["top"] - plot["bottom"] <= 12          # the compact readouts right under the plot
        assert g["main_plot"]["frame"] >= 280                     # the plot's frame keeps 280 px of the screen
        xs = [g[n]["x3"] for n in ("main_plot", "weights_plot", "entropy_x_plot")]
        assert max(xs) - min(xs) < 1                              # one x mapping for the three plots
        text = page.evaluate("() => Bokeh.documents[0].get_model_by_name('readout_strip').text")
        assert "max weight" in text and "effective points" in text and "prediction" in text
    finally:
        ctx.close()





# Scrolls to each block not drawn yet, as a student scrolling down would, until every block is drawn (the pages the
# tests open do not draw when idle, so a block scrolled past before the loader reached it waits to be scrolled to).
SCROLL_TO_EACH_BLOCK_JS = """async () => {
  const end = performance.now() + 150000;
  while (!AttnPage.allDrawn() && performance.now() < end) {
    const el = Array.from(document.querySelectorAll('[data-block]'))
      .find((e) => !AttnPage.drawn(e.getAttribute('data-block')));
    if (el) el.scrollIntoView({ block: 'center' });
    await new Promise((r) => setTimeout(r, 50));
  }
  scrollTo(0, 0);
  return AttnPage.allDrawn();
}"""


@pytest.mark.parametrize("width, phone", [(320, True), (390, True), (683, False)])
def test_no_section_widens_the_page_once_everything_is_drawn(browser, static_file, width, phone):
    """A phone's layout viewport grows to the widest thing on the page (then everything shrinks): every block,
    drawn, fits the screen; wide tables and matrices scroll inside their own boxes.  320 px is also 1280 px at
    400 % zoom, and 683 px 1366 px at 200 %, where WCAG 1.4.10 asks for no sideways scrolling (issue 47; Firefox
    and WebKit: tests/engines)."""
    ctx = browser.new_context(viewport={"width": width, "height": 780}, is_mobile=phone, has_touch=phone,
                              reduced_motion="reduce")
    page = ctx.new_page()
    try:
        block_outside(page)
        page.goto(static_file.as_uri() + "?sentence=the+bank+approved+the+loan+after+a+long+meeting+with+the+board")
        wait_ready(page)
        assert page.evaluate(SCROLL_TO_EACH_BLOCK_JS)
        page.evaluate(SETTLED_JS)
        assert page.evaluate("[innerWidth, document.documentElement.scrollWidth]") == [width, width]
    finally:
        ctx.close()


# Whether the focused element (inside shadow roots) is seen where it is: the point at its middle (10 px down, for a
# tall one) hits it, not the pinned stage or the docked card over it.
FOCUS_SEEN_JS = """() => { let e = document.activeElement;
  while (e && e.shadowRoot && e.shadowRoot.activeElement) e = e.shadowRoot.activeElement;
  if (!e || e === document.body || e === document.documentElement) return null;
  const r = e.getBoundingClientRect(), x = r.left + r.width / 2, y = r.top + Math.min(r.height / 2, 10);
  let h = document.elementFromPoint(x, y);
  while (h && h.shadowRoot && h.shadowRoot.elementFromPoint) {
    const f = h.shadowRoot.elementFromPoint(x, y); if (!f || f === h) break; h = f; }
  for (let p = h; p; p = p.parentNode || p.host) if (p === e) return { seen: true };
  return { seen: false, what: (e.getAttribute('aria-label') || e.textContent || '').trim().slice(0, 50),
           top: Math.round(r.top) }; }"""


def test_the_keyboards_focus_is_never_under_the_pinned_stage_or_the_card_on_a_phone(browser, static_file):
    """Issue 47 (WCAG 2.4.11, focus not obscured): on a phone the stage (the plot and its sliders) is pinned at the
    top and the step card docked at the foot.  Tab forward through the first section, then Shift+Tab back: every
    stop the focus reaches is seen where it is, under neither."""
    ctx = browser.new_context(reduced_motion="reduce", **SCREENS["phone"])
    page = ctx.new_page()
    try:
        block_outside(page)
        page.goto(static_file.as_uri())
        wait_ready(page)
        hidden, seen = [], 0
        for key in ["Tab"] * 13 + ["Shift+Tab"] * 12:
            page.keyboard.press(key)
            page.evaluate(SETTLED_JS, {"scroll": True})
            got = page.evaluate(FOCUS_SEEN_JS)
            if got is not None:
                seen += 1
                if not got["seen"]:
                    hidden.append((key, got))
        assert seen >= 20 and hidden == [], (seen, hidden)
    finally:
        ctx.close()
