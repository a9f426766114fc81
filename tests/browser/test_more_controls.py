"""The regression section's "More controls" disclosure, served and offline (app/regression/disclosure.js).

The first screen shows three controls (the query, h and T); everything else waits behind one button whose
aria-expanded says whether it is open.  A deep link that sets a hidden control opens it, so the student
sees why the page looks as it does.  Every wait is for a condition, never for a time.
"""

from __future__ import annotations

import pytest

from tests.browser.pageutil import model_element, model_prop, wait_prop, wait_ready

FIRST_SCREEN = ["query_slider", "bandwidth_slider", "temperature_slider"]
# each hidden control, and the element a student would use in its view
HIDDEN = [("kernel_select", "select"), ("dataset_select", "select"), ("link_toggle", "input"),
          ("limits_toggle", "input"), ("present_toggle", "input"), ("reset_button", "button"),
          ("share_button", "button")]


def button(page):
    return model_element(page, "more_controls_toggle", "button")


def wait_expanded(page, value: str):
    """Wait until the disclosure's button says aria-expanded=value (the disclosure's JS has run)."""
    button(page)   # the view exists
    page.wait_for_function("""(want) => { const m = Bokeh.documents[0].get_model_by_name('more_controls_toggle');
      const v = Bokeh.index.find_one(m), b = v && v.shadow_el.querySelector('button');
      return !!b && b.getAttribute('aria-expanded') === want; }""", arg=value)


def visible(page, name, selector=None):
    return model_element(page, name, selector).is_visible()


def test_more_controls_start_closed_and_a_click_opens_them(open_page):
    page = open_page()
    wait_expanded(page, "false")
    assert model_prop(page, "more_controls", "visible") is False
    assert [n for n in FIRST_SCREEN if visible(page, n)] == FIRST_SCREEN
    assert [n for n, sel in HIDDEN if visible(page, n, sel)] == []
    b = page.get_by_role("button", name="More controls")   # its accessible name
    assert b.count() == 1 and b.is_visible()
    if open_page.where in ("served", "live"):   # the generator waits behind the same button
        assert not page.get_by_role("button", name="Generate").is_visible()

    b.click()
    wait_expanded(page, "true")
    assert model_prop(page, "more_controls", "visible") is True
    assert [n for n, sel in HIDDEN if visible(page, n, sel)] == [n for n, _ in HIDDEN]
    if open_page.where in ("served", "live"):
        page.get_by_role("button", name="Generate").wait_for(state="visible")

    b.click()   # and closes again
    wait_expanded(page, "false")
    assert [n for n, sel in HIDDEN if visible(page, n, sel)] == []
    if open_page.where in ("served", "live"):
        page.get_by_role("button", name="Generate").wait_for(state="hidden")


@pytest.mark.parametrize("query", ["?kernel=dot&key_norm=1", "?kernel=dot", "?key_norm=1", "?link=1",
                                   "?limits=1", "?present=1", "?dataset=step"])
def test_a_link_that_sets_a_hidden_control_opens_them(open_page, query):
    page = open_page(query)
    wait_expanded(page, "true")
    assert model_prop(page, "more_controls", "visible") is True
    assert visible(page, "kernel_select", "select") and visible(page, "present_toggle", "input")
    if query.startswith("?kernel=dot"):
        assert model_prop(page, "kernel_select", "value") == "dot"
        wait_prop(page, "keynorm_slider", "visible", "(v) => v === true")
        assert visible(page, "keynorm_slider", ".noUi-handle")


def test_a_link_with_only_first_screen_settings_keeps_them_closed(open_page):
    page = open_page("?query=1.5&bandwidth=0.3&temperature=2")
    wait_expanded(page, "false")
    assert model_prop(page, "more_controls", "visible") is False


@pytest.mark.parametrize("where", ["served", "live"])
def test_a_link_to_a_generated_dataset_shows_the_generator(request, watch, where):
    """Served and live (the offline file has no generator): ?dataset=generated opens the disclosure, and the
    generator that made the data shows."""
    page = watch.page
    page.goto(request.getfixturevalue(f"{where}_app") + "?dataset=generated&n=30")
    wait_ready(page)
    page.wait_for_function("() => Bokeh.documents[0].get_model_by_name('dataset').data.x.length === 30")
    wait_expanded(page, "true")
    page.get_by_role("button", name="Generate").wait_for(state="visible")
    assert model_prop(page, "dataset_select", "value") == "generated"
    assert watch.console_errors() == []
