"""The whole lesson, guided (issue 26): every step beyond the regression's, in the browser.

For each step of the shipped lesson (data/tours/lesson.json) that belongs to another section, in the offline file
(and, for the first of them, on the served page too: it sends the offline file's bytes, tests/app/test_plugin.py,
so one served step shows the tour under the server's headers):
* ``?tour=<id>`` opens it, and the card stands in that step's section;
* *Show me* reaches a state that meets the step's goal by the numpy core (app/tour/model.py
  section_readouts on the settings the page writes into its address), with its figure on screen;
* reaching the goal by hand (real clicks, menus, typing and keys on the widgets a student moves) is recognised
  with the check mark.
On the served page, one page walks every one of these steps' Show me (by Next), each checked by the core.
(The regression's seven steps: tests/browser/test_tour.py.)
Bad ``?tour=`` values get their notice and a corrected address.  Motion is reduced, so playback and
Show me land at once.
"""

from __future__ import annotations

import html
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from app.sections import CATALOGUE, parse_query
from app.tour import default_tour
from app.tour.model import holds, resolve_step, section_readouts
from app.tour.terms import terms

from tests.browser.pageutil import (FIND_VIEW_JS, SETTLED_JS, axe_violations, block_outside, draw, model_element, model_prop,
                                    wait_ready)
from tests.browser.test_in_view import SHOWN_JS

TERMS = terms(CATALOGUE)   # what the tour knows of the page's sections

TOUR = default_tour(CATALOGUE)
LATER = [(k, s) for k, s in enumerate(TOUR.steps, 1) if s.section != "regression"]

CARD = "() => Bokeh.documents[0].get_model_by_name('tour_card').text"
STATUS = "(cls) => Bokeh.documents[0].get_model_by_name('tour_card').text.includes(cls)"

# What a student does by hand to reach each step's goal, with real input (Playwright's clicks, choices in a menu, typing
# and keys): ("click", button), ("choose", menu, value), ("type", text box, text), ("key", slider, key),
# ("tick", check box), ("press", button group, label); the regression's: tests/browser/test_tour.py.
HANDS = {
    "learn-play": [("click", "learn_play")],
    "learn-overshoot": [("choose", "learn_lr_select", "50"), ("click", "learn_play")],
    "learn-refused": [("choose", "learn_lr_select", "300"), ("click", "learn_step_button")],
    "metric-stretch": [("click", "metric_play")],
    "bank-row": [("choose", "preset_select", "2"), ("choose", "token_select", "4")],
    "bank-loan": [("choose", "preset_select", "1")],
    "rows-sum-to-one": [("key", "att_temperature_slider", "End")],
    "causal-mask": [("tick", "causal_toggle")],
    "heads": [("press", "head_select", "1: previous word")],
    "n-squared": [("type", "sentence_input", "one two three four five six seven eight nine ten bank")],
    "qk-play": [("click", "routing_play")],
    "qk-held-out": [("click", "routing_play"), ("choose", "routing_sentence_select", "4")],
    "rnn-chain": [("type", "sentence_input", " ".join(["word"] * 15 + ["bank"]))],
    "lag-feature": [("choose", "lag_period_select", "5")],
}


# The sections drawn before a step's hands move its widgets.  The ideas section's graph counts the words of the
# sentence section's sentence: that section's engine must be running (drawn) before the box is set, or, started
# later, it writes its own sentence back into the box (the tour's reveal draws it only on its way, not surely first).
DRAWN_WITH = {"ideas": ("sentence", "ideas")}


def test_every_later_step_has_a_way_by_hand():
    assert sorted(HANDS) == sorted(s.id for _, s in LATER)


def page_values(url: str) -> dict:
    values, _notices = parse_query(urlsplit(url).query)
    return values


# The first later step of each section: offline, its fresh page (for Show me) is a presentation link instead, which
# opens the step already shown (issue 46), as a presenter's key does: nothing is pressed there.
PRESENTED = {s.section: s.id for _, s in reversed(LATER)}


def open_step(browser, base, step_id, *, offline=True, present=False):
    ctx = browser.new_context(viewport={"width": 1366, "height": 768}, reduced_motion="reduce")
    page = ctx.new_page()
    page.set_default_timeout(30000)
    if offline:
        block_outside(page)
    page.goto(f"{base}?{'present=1&' if present else ''}tour={step_id}")
    wait_ready(page)
    return ctx, page


def do(page, action):
    """One of HANDS' actions, as a student does it."""
    kind, name, *rest = action
    if kind == "click":
        model_element(page, name, "button").click()
    elif kind == "choose":   # by the option's words, as a student reads them (the menu's DOM values are its labels)
        options = model_prop(page, name, "options")
        label = next((o[1] for o in options if isinstance(o, list) and o[0] == rest[0]), rest[0])
        model_element(page, name, "select").select_option(label=label)
    elif kind == "type":
        box = model_element(page, name, "input")
        box.fill(rest[0])
        box.press("Enter")
    elif kind == "key":   # a key on a slider's handle, once or ``rest[1]`` times
        handle = model_element(page, name, ".noUi-handle")
        handle.focus()
        for _ in range(rest[1] if len(rest) > 1 else 1):
            page.keyboard.press(rest[0])
    elif kind == "tick":
        model_element(page, name, "input[type=checkbox]").click()
    elif kind == "press":
        button = page.evaluate_handle(f"""([n, label]) => {{ const v = ({FIND_VIEW_JS})(n);
          return Array.from(v.shadow_el.querySelectorAll('button')).find((b) => b.textContent.trim() === label); }}""",
                                      [name, rest[0]]).as_element()
        assert button is not None, action
        button.click()
    else:
        raise ValueError(kind)


# The served page sends the offline file's bytes: it is walked at the first later step only.
CASES = [pytest.param("static", k, s, id=f"static-{s.id}") for k, s in LATER] + \
        [pytest.param("served", k, s, id=f"served-{s.id}") for k, s in LATER[:1]]


@pytest.mark.parametrize("delivery, k, step", CASES)
def test_show_me_meets_the_goal_by_the_core_and_by_hand_is_recognised(request, browser, delivery, k, step):
    offline = delivery == "static"
    base = request.getfixturevalue("static_file").as_uri() if offline else request.getfixturevalue("served_page")
    ctx, page = open_step(browser, base, step.id, offline=offline)
    try:
        assert f"Step {k} of {len(TOUR)}" in page.evaluate(CARD)
        # the card stands in the step's section
        assert page.evaluate("(s) => !!document.querySelector(`#attn-sec-${s} #attn-b-tour`)", step.section)
        # by hand, from the page as the link opens it
        for action in HANDS[step.id]:
            for section in DRAWN_WITH.get(step.section, (step.section,)):
                draw(page, section)
            do(page, action)
        page.wait_for_function(STATUS, arg="tour-found", timeout=20000)
    finally:
        ctx.close()
    # Show me from the link's state: each step's Show me meets its goal in the served one-page walk below (after
    # Next) and keeps its figure in view in tests/browser/test_in_view.py; here, a presentation link to each
    # section's first later step opens it shown, its goal met, with nothing pressed
    present = offline and PRESENTED[step.section] == step.id
    if not present:
        return
    ctx, page = open_step(browser, base, step.id, offline=offline, present=present)
    try:
        show_me_meets_the_goal(page, k, step, press=False)
        # issue 47: a tour step of each section, presented, meets WCAG 2.2 A and AA as axe-core checks it
        assert axe_violations(page) == [], step.id
        shown = page.evaluate(SHOWN_JS, [TERMS.look_models.get(n, n) for n in step.looks_at])
        assert all(f >= 0.99 for f in shown.values()), shown
    finally:
        ctx.close()


def show_me_meets_the_goal(page, k, step, press=True):
    """Press Show me on step ``k`` (shown; ``press=False``: a presentation link has shown it already) and wait until
    the page's address holds a state that meets the step's goal by the numpy core."""
    if press:
        page.get_by_role("button", name="Show me").click()
    # shown: the card's state says so (a presenter's card under 900 px leaves the line that says it for "More")
    page.wait_for_function(f"""() => {{ const card = Bokeh.documents[0].get_model_by_name('tour_card');
      const c = globalThis.__attnTour && globalThis.__attnTour.get(card);
      return ({CARD})().includes('Step {k} of') && !!c && c.status === 'shown'; }}""", timeout=20000)
    page.evaluate(SETTLED_JS)
    # the address follows the state at most every 150 ms (common.js scheduleUrl): until it holds the goal,
    # wait for its next rewrite (none within 5 s fails the test)
    while True:
        href = page.evaluate("() => location.href")
        values = page_values(href)
        got = section_readouts(CATALOGUE, step.section, values, needs={n for n, _, _ in step.when})
        if holds(step.when, got):
            return
        try:
            page.wait_for_function("(u) => location.href !== u", arg=href, timeout=5000)
        except PlaywrightTimeout:
            raise AssertionError((step.id, values, got)) from None


def test_served_every_later_steps_show_me_meets_its_goal_in_one_page(browser, served_page):
    """On the served page (the server's headers), in one page: from the first later step, opened by its id, each
    step by Next and its Show me, whose state meets the step's goal by the numpy core."""
    (k0, first), rest = LATER[0], LATER[1:]
    ctx, page = open_step(browser, served_page, first.id, offline=False)
    try:
        assert f"Step {k0} of {len(TOUR)}" in page.evaluate(CARD)
        show_me_meets_the_goal(page, k0, first)
        for k, step in rest:
            page.get_by_role("button", name="Next \u2192").click()
            page.wait_for_function(f"() => ({CARD})().includes('Step {k} of')")
            show_me_meets_the_goal(page, k, step)
    finally:
        ctx.close()


@pytest.fixture(scope="module")
def one_tab(browser):
    """One tab for the links below, each opened in it as a new page (a link typed into the address bar): the
    browser keeps the page's compiled scripts between them, which a fresh tab each would compile again."""
    ctx = browser.new_context(viewport={"width": 1366, "height": 768}, reduced_motion="reduce")
    page = ctx.new_page()
    page.set_default_timeout(30000)
    block_outside(page)
    yield page
    ctx.close()


@pytest.mark.parametrize("raw", ["-1", "99", "no-such-step", "<b>3</b>", "", "  shrink-h  ", "SHRINK-H", "0", "7"])
def test_a_tour_value_opens_the_step_the_core_says_with_its_notice(one_tab, static_file, raw):
    want, notice = resolve_step(raw, TOUR)
    page = one_tab
    page.goto(static_file.as_uri() + "?" + "tour=" + raw.replace(" ", "%20").replace("<", "%3C").replace(">", "%3E"))
    wait_ready(page)
    card = page.evaluate(CARD)
    if want > 0:
        assert f"Step {want} of {len(TOUR)}" in card
    else:
        assert page.evaluate("() => Bokeh.documents[0].get_model_by_name('tour_box').visible") is False
    # the step the card says is the one a notebook's e.tour reads (the synced stepper; 0: the card hidden)
    assert model_prop(page, "tour_step", "value") == want
    notices = page.evaluate("() => Bokeh.documents[0].get_model_by_name('notices').text")
    if notice is None:
        assert "tour" not in notices
    else:
        assert html.unescape(notices) == f'<p class="notice">{notice}</p>'
        # on screen as text: the student reads the value as written, and no element was made of it
        shown = model_element(page, "notices", "p.notice")
        page.wait_for_function("(el) => el.getBoundingClientRect().height > 0", arg=shown)
        assert shown.inner_text() == notice
        assert page.evaluate("() => Bokeh.index.find_one(Bokeh.documents[0].get_model_by_name('notices'))"
                             ".shadow_el.querySelectorAll('b, script').length") == 0
    page.evaluate(SETTLED_JS)
    page.wait_for_function("(w) => (new URLSearchParams(location.search).get('tour') || '1') === w",
                           arg="1" if want == 1 else ("0" if want == 0 else TOUR.steps[want - 1].id))


def test_the_browser_reads_tour_values_as_the_core_does(browser, static_file):
    """The twin of resolve_step (tour.js resolveStep) on many values, through the page's own engine code."""
    cases = ["1", "21", "22", "007", "0", "", " ", "x", "shrink-h", "Shrink-H", "bank-row", "1e3", "+2", "٣",
             "a" * 41, "no-such-" + "x" * 30, "--", "a--b", "3.0", "tour", "-", "learn-play "]
    ctx = browser.new_context()
    page = ctx.new_page()
    try:
        page.goto(static_file.as_uri())
        wait_ready(page)
        got = page.evaluate("""(cases) => { const tour = Bokeh.documents[0].get_model_by_name('tour_prev');
            const cb = tour.js_event_callbacks.button_click[0];
            const code = cb.code.replace(/AttnTour\\.handle\\(cb_obj[^;]*;\\s*$/, 'return AttnTour;');
            const T = new Function(...Object.keys(cb.args), 'cb_obj', code)(...Object.values(cb.args), null);
            return cases.map((r) => T.resolveStep(r, cb.args.config)); }""", cases)
        for raw, g in zip(cases, got):
            k, notice = resolve_step(raw, TOUR)
            assert (g["k"], g["notice"]) == (k, notice), raw
    finally:
        ctx.close()
