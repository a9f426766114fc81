"""Two-way sync between the Explorable's parameters and the page's widgets, without a browser.

Parameters -> widgets: ``e.query = 4.0`` in a notebook sets the Bokeh widget, whose JS callback runs the engine.
Widgets -> parameters: a widget changed in the browser sets the parameter, with no echo back to the widget.
"""

from __future__ import annotations

import logging
import math

import panel as pn
import pytest
from bokeh.document import Document

from app.page import Explorable


@pytest.fixture
def page():
    e = Explorable(query=2.5, bandwidth=0.3)
    e.__panel__()
    return e


def test_parameters_set_after_building_move_the_regression_widgets(page):
    w = page._view.widgets
    assert (w["query"].value, w["logh"].value) == (2.5, pytest.approx(math.log10(0.3)))
    page.query = 4.0
    page.bandwidth = 1.0
    page.temperature = 4.0
    page.kernel = "dot"
    page.key_norm = 0.5
    page.dataset = "bump"
    page.link = True
    page.limits = True
    page.present = True
    assert w["query"].value == 4.0
    assert w["logh"].value == 0.0
    assert w["logt"].value == pytest.approx(math.log10(4.0))
    assert (w["kernel"].value, w["keynorm"].value, w["dataset"].value) == ("dot", 0.5, "bump")
    assert (w["link"].active, w["limits"].active, w["present"].active) == (True, True, True)
    # a later rendering of the same component starts its engine from the new state, not the first one
    assert page._view.models["config"]["initial"] == {"query": 4.0, "bandwidth": 1.0, "temperature": 4.0,
                                                      "kernel": "dot", "key_norm": 0.5}


def test_parameters_set_after_building_move_the_sentence_widgets(page):
    w = page._sentence_view.widgets
    page.token = 3
    page.head = 2
    page.att_temperature = 10.0
    page.causal = True
    assert (w["token"].value, w["head"].active, w["temperature"].value, w["causal"].active) == ("3", 2, 1.0, True)
    initial = page._sentence_view.models["config"]["initial"]
    assert (initial["token"], initial["head"], initial["temperature"], initial["causal"]) == (3, 2, 10.0, True)


def test_a_value_the_page_does_not_offer_is_refused_with_a_message(page, caplog):
    w = page._sentence_view.widgets
    with caplog.at_level(logging.WARNING, logger="app.page"):
        page.token = 31  # the opening sentence has 5 words
    assert w["token"].value == "1"
    assert "token=31 is not offered by the page" in caplog.text


def test_widgets_set_the_parameters_without_an_echo(page):
    w = page._view.widgets
    seen = []
    page.param.watch(lambda ev: seen.append((ev.name, ev.new)), ["bandwidth", "query"])
    changes = []
    w["logh"].on_change("value", lambda attr, old, new: changes.append(new))
    w["logh"].value = math.log10(0.8)
    assert page.bandwidth == pytest.approx(0.8)
    # the parameter did not write its (rounded) value back to the widget: one change, the browser's
    assert changes == [math.log10(0.8)]
    assert w["logh"].value == math.log10(0.8)
    w["query"].value = 1.25
    assert page.query == 1.25
    assert [name for name, _ in seen] == ["bandwidth", "query"]
    # a later rendering of the component starts where the browser left it
    initial = page._view.models["config"]["initial"]
    assert (initial["query"], initial["bandwidth"]) == (1.25, pytest.approx(0.8))


def test_out_of_range_widget_values_are_clamped_into_the_parameter(page):
    page._view.widgets["logh"].value = 5.0  # a stray value from a client
    assert page.bandwidth == 50.0


def test_a_param_widget_beside_the_page_drives_it():
    e = Explorable(query=2.5, bandwidth=0.3)
    row = pn.Row(e.param.bandwidth, e)
    row.get_root(Document())  # rendered once, as a notebook would
    slider = row[0]
    assert isinstance(slider, pn.widgets.FloatSlider) and slider.value == 0.3
    slider.value = 1.0
    assert e.bandwidth == 1.0 and e._view.widgets["logh"].value == 0.0
