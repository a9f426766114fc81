"""The guided tour in a real browser, served and offline: show me, recognition, ?tour=N, presentation keys.

"Show me" must reach the step's state (the widgets hold it, and the numpy core agrees that the step's
condition holds there); a real drag or slider move must fire the check mark; a link opens a step; in
presentation mode the arrow keys turn the steps.  Every wait is for a condition, never for a time.
"""

from __future__ import annotations

import math

import pytest

from app.tour import default_tour, full_state, holds, readouts

from tests.browser.pageutil import (block_outside, drag, model_element, model_prop, page_state, plot_geometry,
                                    shown_paragraphs, wait_query, wait_ready)

TOUR = default_tour()
N = len(TOUR)
CARD_JS = "() => Bokeh.documents[0].get_model_by_name('tour_card').text"


@pytest.fixture(params=["served", "static"])
def open_tour(request, watch):
    """open_tour(query) opens the page (served or offline) with that query string and waits for the card."""
    if request.param == "served":
        base = request.getfixturevalue("served_app")
        allowed = [base.rsplit("/", 1)[0], "data:", "blob:"]
    else:
        base = request.getfixturevalue("static_file").as_uri()
        block_outside(watch.page)
        allowed = ["file:", "data:", "blob:"]

    def go(query=""):
        watch.page.goto(base + query)
        wait_ready(watch.page)
        wait_tour(watch.page)
        return watch.page

    go.where = request.param
    yield go
    assert watch.console_errors() == []
    assert watch.outside_requests(allowed) == []


def wait_tour(page, timeout=30000):
    """Wait until the tour's engine has started (its page state says so)."""
    page.wait_for_function("""() => { const d = Bokeh.documents[0], card = d.get_model_by_name('tour_card');
      const c = card && globalThis.__attnTour && globalThis.__attnTour.get(card); return !!(c && c.ready); }""",
                           timeout=timeout)


def wait_card(page, needle, timeout=30000):
    page.wait_for_function(f"() => ({CARD_JS})().includes({needle!r})", timeout=timeout)


def click(page, name):
    model_element(page, name, "button").click()


def step_shown(page) -> int:
    import re

    return int(re.search(r"Step (\d+) of", model_prop(page, "tour_card", "text"))[1])


def test_show_me_reaches_every_steps_state(open_tour):
    """Each step's "show me" moves the widgets to the step's state, and there its condition holds (numpy core)."""
    page = open_tour()
    assert step_shown(page) == 1
    for k in range(1, N + 1):
        step = TOUR.steps[k - 1]
        if k > 1:
            click(page, "tour_next")
            wait_card(page, f"Step {k} of {N}")
        click(page, "tour_show")
        wait_card(page, 'class="tour-shown"')   # the tween has ended and its state meets the condition
        target, state = full_state(step.state), page_state(page)
        assert state["query"] == pytest.approx(target["query"], abs=1e-9), k
        assert state["bandwidth"] == pytest.approx(target["bandwidth"], rel=1e-9), k
        assert state["temperature"] == pytest.approx(target["temperature"], rel=1e-9), k
        assert (state["kernel"], state["dataset"]) == (target["kernel"], target["dataset"]), k
        assert state["key_norm"] == pytest.approx(target["key_norm"], abs=1e-9), k
        assert model_prop(page, "limits_toggle", "active") is target["limits"], k
        values = {key: state[key] for key in ("query", "bandwidth", "temperature", "kernel", "key_norm", "dataset")}
        core = readouts(values)
        assert holds(step.when, core), (k, values)
        # the browser's readouts (app/tour/tour.js, with the JS mirror) are the core's numbers
        js = page.evaluate("""() => { const card = Bokeh.documents[0].get_model_by_name('tour_card');
          return globalThis.__attnTour.get(card).last; }""")
        for name, _, _ in step.when:
            if isinstance(core[name], str):
                assert js[name] == core[name], (k, name)
            else:
                assert js[name] == pytest.approx(core[name], rel=1e-9, abs=1e-9), (k, name)
        assert "tour-found" not in model_prop(page, "tour_card", "text"), "show me is not the student's find"
    assert model_prop(page, "tour_next", "disabled") is True


def test_show_me_moves_smoothly(open_tour):
    """Show me glides: the bandwidth passes through many values on its way down, never jumping back."""
    page = open_tour("?tour=2")
    page.evaluate("""() => { const s = Bokeh.documents[0].get_model_by_name('bandwidth_slider');
      window.__seen = []; s.properties.value.change.connect(() => window.__seen.push(s.value)); }""")
    click(page, "tour_show")
    wait_card(page, 'class="tour-shown"')
    seen = page.evaluate("() => window.__seen")
    assert len(seen) >= 4, seen                       # frames in between, not one jump (tour.js: 6 at least)
    assert all(b <= a for a, b in zip(seen, seen[1:])), seen
    assert seen[-1] == pytest.approx(math.log10(0.05), abs=1e-12)


def test_a_real_drag_and_a_real_slider_move_are_recognised(open_tour):
    """Step 1: a mouse drag of the query on the plot; step 2: the bandwidth slider from the keyboard."""
    page = open_tour()
    g = plot_geometry(page)
    y = g["top"] + g["height"] * 0.3
    drag(page, g, y, [3.2, 2.4, 1.6, 1.0])
    wait_query(page, 1.0, 0.05)
    wait_card(page, 'class="tour-found"')
    found = shown_paragraphs(page, "tour_card")[-1]
    assert "\u2713" in found and "Found it." in found and TOUR.steps[0].found in found

    click(page, "tour_next")
    wait_card(page, f"Step 2 of {N}")
    assert "tour-found" not in model_prop(page, "tour_card", "text")
    model_element(page, "bandwidth_slider", ".noUi-handle").focus()
    page.keyboard.press("Home")               # the smallest h: one sample takes all the weight
    wait_card(page, 'class="tour-found"')
    assert 10 ** model_prop(page, "bandwidth_slider", "value") == pytest.approx(0.005, rel=1e-6)
    click(page, "tour_prev")                  # a step found earlier keeps its check mark
    wait_card(page, f"Step 1 of {N}")
    assert 'class="tour-found"' in model_prop(page, "tour_card", "text")


def test_free_exploration_is_one_click_away(open_tour):
    page = open_tour("?tour=3")
    assert step_shown(page) == 3
    click(page, "tour_hide")
    page.wait_for_function("() => !Bokeh.documents[0].get_model_by_name('tour_box').visible")
    assert model_prop(page, "tour_open", "visible") is True
    assert f"step 3 of {N}" in model_prop(page, "tour_open", "label")
    page.wait_for_function("() => new URLSearchParams(location.search).get('tour') === '0'")
    click(page, "tour_open")
    page.wait_for_function("() => Bokeh.documents[0].get_model_by_name('tour_box').visible")
    page.wait_for_function("() => new URLSearchParams(location.search).get('tour') === '3'")


@pytest.mark.parametrize("query, step, notice", [
    ("?tour=4", 4, None),
    ("?tour=abc", 1, "Ignored tour=\u201cabc\u201d: not a whole number."),
    ("?tour=99", N, f"tour=99 is outside 0 to {N}; using {N}."),
    ("?tour=-2", 1, "Ignored tour=\u201c-2\u201d: not a whole number."),
    ("?tour=<b>2</b>", 1, "Ignored tour=\u201c<b>2</b>\u201d: not a whole number."),
])
def test_tour_in_the_link_opens_that_step(open_tour, query, step, notice):
    page = open_tour(query)
    assert step_shown(page) == step
    shown = shown_paragraphs(page, "notices")
    assert shown == ([notice] if notice else [])


def test_tour_zero_opens_in_free_exploration(open_tour):
    page = open_tour("?tour=0")
    assert model_prop(page, "tour_box", "visible") is False
    assert model_prop(page, "tour_open", "visible") is True


def test_arrow_keys_turn_the_steps_in_presentation_mode_only(open_tour):
    page = open_tour()
    page.locator("body").click(position={"x": 2, "y": 2})
    page.keyboard.press("ArrowRight")         # not presenting: the page's arrows are left alone
    click(page, "tour_next")
    wait_card(page, f"Step 2 of {N}")         # the key did nothing: one click, one step
    model_element(page, "present_toggle", "input").click()
    page.wait_for_function("() => Bokeh.documents[0].get_model_by_name('present_toggle').active")
    page.locator("body").click(position={"x": 2, "y": 2})
    page.keyboard.press("ArrowRight")
    wait_card(page, f"Step 3 of {N}")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    wait_card(page, f"Step 1 of {N}")
    # a focused slider keeps its arrows: the query moves, the step stays
    model_element(page, "query_slider", ".noUi-handle").focus()
    before = model_prop(page, "query_slider", "value")
    page.keyboard.press("ArrowRight")
    page.wait_for_function(f"() => Bokeh.documents[0].get_model_by_name('query_slider').value > {before}")
    assert step_shown(page) == 1
    assert math.isfinite(model_prop(page, "query_slider", "value"))


def test_serve_with_a_tour_file_shows_that_tour(watch, tmp_path, monkeypatch):
    """What `attention-explorable serve --tour FILE` starts: a server whose pages show that file's steps."""
    import json

    from app.tour import ENV_TOUR
    from tests.browser.pageutil import free_port, start_server, stop_server

    step = {"title": "Mine", "text": "My own words.", "do": "Shrink h.", "state": {"bandwidth": 0.05},
            "when": [["max_weight", ">=", 0.95]], "found": "One sample wins."}
    mine = tmp_path / "mine.json"
    mine.write_text(json.dumps({"title": "My lecture", "steps": [step] * 3}), encoding="utf-8")
    monkeypatch.setenv(ENV_TOUR, str(mine))
    port = free_port()
    proc = start_server(port)
    try:
        page = watch.page
        page.goto(f"http://127.0.0.1:{port}/main?tour=5")
        wait_ready(page)
        wait_tour(page)
        assert "Step 3 of 3 \u00b7 My lecture" in model_prop(page, "tour_card", "text")
        assert shown_paragraphs(page, "notices") == ["tour=5 is outside 0 to 3; using 3."]
        assert watch.console_errors() == []
    finally:
        stop_server(proc)
