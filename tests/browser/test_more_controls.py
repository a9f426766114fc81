"""The regression section's "More controls" disclosure, served and offline (app/regression/disclosure.js).

The first screen shows three controls (the query, h and T); everything else, the seeded generator included,
waits behind one button whose aria-expanded says whether it is open.  The column is a block of its own
(``regression-more``): a click draws it at once if the loader has not yet.  A deep link that sets a hidden
control opens it, so the student sees why the page looks as it does.  Every wait is for a condition.
"""

from __future__ import annotations

import json

import pytest

import attention
from app.sections import url_spec
from tests.browser.pageutil import (FINGER_DOWN_JS, block_outside, model_element, model_prop, source_data,
                                    wait_prop, wait_ready)

FIRST_SCREEN = ["query_slider", "bandwidth_slider", "temperature_slider"]
# each hidden control, and the element a student would use in its view
HIDDEN = [("kernel_select", "select"), ("dataset_select", "select"), ("link_toggle", "input"),
          ("limits_toggle", "input"), ("present_toggle", "input"), ("reset_button", "button"),
          ("share_button", "button"), ("generator_go", "button")]


def button(page):
    return model_element(page, "more_controls_toggle", "button")


def wait_expanded(page, value: str):
    """Wait until the disclosure's button says aria-expanded=value (the disclosure's JS has run)."""
    button(page)   # the view exists
    page.wait_for_function("""(want) => { const m = Bokeh.documents[0].get_model_by_name('more_controls_toggle');
      const v = Bokeh.index.find_one(m), b = v && v.shadow_el.querySelector('button');
      return !!b && b.getAttribute('aria-expanded') === want; }""", arg=value)


def visible(page, name, selector=None):
    """Whether a named model's element is on the page and shown (a block not yet drawn has none: not shown)."""
    shown = page.evaluate("""([n, sel]) => { const m = Bokeh.documents[0].get_model_by_name(n);
      const v = Bokeh.index.find_one(m); if (!v || !v.el.isConnected) return false;
      const el = sel ? v.shadow_el.querySelector(sel) : v.el; if (!el) return false;
      const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; }""", [name, selector])
    return shown


@pytest.mark.both_ways   # a link read from the served address as from the file's
@pytest.mark.idle_drawing
def test_a_link_with_first_screen_settings_opens_closed_and_a_click_opens_them(open_page):
    page = open_page("?query=1.5&bandwidth=0.3&temperature=2")
    wait_expanded(page, "false")
    assert model_prop(page, "more_controls", "visible") is False
    assert [n for n in FIRST_SCREEN if visible(page, n, ".noUi-handle")] == FIRST_SCREEN
    page.wait_for_function("() => AttnPage.allDrawn()", timeout=90000)   # drawn, and still hidden
    assert [n for n, sel in HIDDEN if visible(page, n, sel)] == []
    b = page.get_by_role("button", name="More controls")   # its accessible name
    assert b.count() == 1 and b.is_visible()

    b.click()
    wait_expanded(page, "true")
    assert model_prop(page, "more_controls", "visible") is True
    page.get_by_role("button", name="Generate").wait_for(state="visible")
    assert [n for n, sel in HIDDEN if visible(page, n, sel)] == [n for n, _ in HIDDEN]

    b.click()   # and closes again
    wait_expanded(page, "false")
    page.get_by_role("button", name="Generate").wait_for(state="hidden")
    assert [n for n, sel in HIDDEN if visible(page, n, sel)] == []


def test_a_click_draws_the_column_at_once_while_the_loader_waits(static_file, watch):
    page = watch.page
    block_outside(page)
    page.add_init_script(FINGER_DOWN_JS)
    page.goto(static_file.as_uri())
    wait_ready(page)
    page.wait_for_function("() => AttnPage.timings.length > 0")
    assert page.evaluate("() => [AttnPage.drawn('regression-more'), AttnPage.drawn('regression-words')]") == \
        [False, False]
    button(page).click()
    wait_expanded(page, "true")
    page.wait_for_function("() => AttnPage.drawn('regression-more')")
    assert visible(page, "kernel_select", "select")
    assert page.evaluate("() => AttnPage.drawn('regression-words')") is False   # the loader still waits
    assert watch.console_errors() == []


# Each key behind the button, in a link of its own (offline: the file reads its link as the served page does).
@pytest.mark.parametrize("query", ["?kernel=dot", "?key_norm=0.2", "?dataset=step", "?link=1", "?limits=1",
                                   "?present=1"])
def test_a_link_that_sets_a_hidden_control_opens_them(static_file, watch, query):
    block_outside(watch.page)
    page = watch.page
    page.goto(static_file.as_uri() + query)
    wait_ready(page)
    wait_expanded(page, "true")
    assert model_prop(page, "more_controls", "visible") is True
    page.wait_for_function("() => AttnPage.drawn('regression-more')")
    assert visible(page, "kernel_select", "select") and visible(page, "present_toggle", "input")
    if query == "?kernel=dot":
        assert model_prop(page, "kernel_select", "value") == "dot"
        wait_prop(page, "keynorm_slider", "visible", "(v) => v === true")
        assert visible(page, "keynorm_slider", ".noUi-handle")
    assert watch.console_errors() == []


def test_a_link_to_a_generated_dataset_shows_the_generator_and_its_samples(static_file, watch):
    """The generator runs in the browser (attention/generator.js), offline as served: ?dataset=generated&n=30 draws the
    core's seeded samples for the link's n and the defaults of the rest, and opens the disclosure on them."""
    page = watch.page
    block_outside(page)
    page.goto(static_file.as_uri() + "?dataset=generated&n=30")
    wait_ready(page)
    page.wait_for_function("() => Bokeh.documents[0].get_model_by_name('dataset').data.x.length === 30")
    wait_expanded(page, "true")
    page.get_by_role("button", name="Generate").wait_for(state="visible")
    assert model_prop(page, "dataset_select", "value") == "generated"
    spec = url_spec()
    want = attention.make_dataset(spec["fn"]["default"], 30, spec["noise"]["default"], spec["seed"]["default"])
    got = source_data(page, "dataset")
    assert got["x"] == want.x.tolist() and got["y"] == want.y.tolist()
    assert json.loads(model_prop(page, "dataset", "tags")[0])["name"] == "generated"
    assert model_prop(page, "generator_n", "value") == 30
    assert watch.console_errors() == []


@pytest.mark.both_ways
def test_the_kernel_shape_check_box_declared_once_works_from_a_link_a_click_and_reset(open_page):
    """The control added by its declaration alone (app/regression/state.py) and its engine code: a link that turns
    it off opens More controls and leaves the dashed kernel curve undrawn; a click draws it and writes the link
    back; Reset turns it on again, as its default is."""
    page = open_page("?kernel_shape=0")
    wait_ready(page)
    wait_expanded(page, "true")   # a hidden control away from its default opens the column
    assert model_prop(page, "kernel_shape_toggle", "active") is False
    assert source_data(page, "kshape")["x"] == []
    box = model_element(page, "kernel_shape_toggle", "input")
    box.scroll_into_view_if_needed()
    box.click()
    wait_prop(page, "kernel_shape_toggle", "active", "(v) => v === true")
    page.wait_for_function("() => Bokeh.documents[0].get_model_by_name('kshape').data.x.length > 0")
    assert all(k >= 0 for k in source_data(page, "kshape")["k"])
    page.wait_for_function("() => !new URLSearchParams(location.search).has('kernel_shape')")   # back to its default
    box.click()
    page.wait_for_function("() => new URLSearchParams(location.search).get('kernel_shape') === '0'")
    page.wait_for_function("() => Bokeh.documents[0].get_model_by_name('kshape').data.x.length === 0")
    reset = model_element(page, "reset_button", "button")
    reset.click()
    wait_prop(page, "kernel_shape_toggle", "active", "(v) => v === true")
    page.wait_for_function("() => Bokeh.documents[0].get_model_by_name('kshape').data.x.length > 0")
