"""Two-way sync between the Explorable's parameters and the page's widgets, without a browser.

Parameters -> widgets: ``e.query = 4.0`` in a notebook sets the Bokeh widget, whose JS callback runs the engine.
Widgets -> parameters: a widget changed in the browser sets the parameter, with no echo back to the widget.
Every entry of ``app.delivery.page._LINKS`` is driven both ways.  The tests share one built page and each sets the
values it checks.
"""

from __future__ import annotations

import logging
import math

import panel as pn
import param
import pytest
from bokeh.document import Document

from app.delivery.page import _LINKS, Explorable
from app.sections import ExplorableState

# For each parameter, two values: the first (not the default) set on the parameter, then the second on the widget.
# A check box's two: the other value, then its default (a new one is tested as it is declared).
VALUES = {"query": (4.0, 1.25), "bandwidth": (1.0, 0.05), "temperature": (4.0, 0.25), "kernel": ("dot", "gaussian"),
          "key_norm": (0.1, -0.2), "dataset": ("bump", "step"), "fn": ("sine", "step"), "n": (120, 7),
          "noise": (0.5, 1.25), "seed": (7, 123), "token": (3, 2), "head": (2, 1), "att_temperature": (10.0, 0.1),
          "sentence": ("the boat by the bank", "a river bank"), "period": (5, 10)}
VALUES.update({name: (not p.default, p.default) for name, p in ExplorableState.param.objects("existing").items()
               if isinstance(p, param.Boolean) and name in {link[2] for link in _LINKS}})


@pytest.fixture(scope="module")
def page():
    e = Explorable(query=2.5, bandwidth=0.3)
    e.__panel__()
    return e


def _widget(page, section, key):
    w = page._widgets.get((section, key))
    assert w is not None, f"the page has no widget for {section}.{key}"
    return w


def _same(got, want) -> bool:
    """Equal, floats to rounding (a log slider holds log10 of the parameter)."""
    if isinstance(want, float) and not isinstance(want, bool):
        return got == pytest.approx(want, rel=1e-12)
    return got == want and type(got) is type(want)


def _initial(page, section) -> dict:
    """The section engine's "initial" config, which a later rendering of the component starts from."""
    return getattr(page._built, section).models.get("config", {}).get("initial", {})


def test_the_settings_a_later_rendering_starts_from_are_the_engines_initial_ones(page):
    started = {pname for section, _, pname, *_ in _LINKS if pname in _initial(page, section)}
    assert started == {"query", "bandwidth", "temperature", "kernel", "key_norm", "token", "head", "att_temperature",
                       "causal"}


def test_every_parameter_of_the_links_is_a_parameter_with_two_test_values():
    assert {link[2] for link in _LINKS} == set(VALUES)
    for name, values in VALUES.items():
        default = ExplorableState.param[name].default
        assert values[0] != default and values[1] != values[0], name   # each move is a change


@pytest.mark.parametrize("link", _LINKS, ids=[f"{s}.{k}" for s, k, *_ in _LINKS])
def test_a_parameter_moves_its_widget_and_the_widget_moves_the_parameter(page, link):
    section, key, pname, prop, from_w, to_w = link
    widget = _widget(page, section, key)
    to_param, to_widget = VALUES[pname]
    starts = pname in _initial(page, section)
    setattr(page, pname, to_param)                       # a notebook sets the parameter
    assert _same(getattr(widget, prop), to_w(to_param))
    if starts:                                           # a later rendering starts from it
        assert _initial(page, section)[pname] == to_param
    setattr(widget, prop, to_w(to_widget))               # the browser moves the widget
    assert _same(getattr(page, pname), to_widget)
    if starts:
        assert _same(_initial(page, section)[pname], to_widget)


def test_the_generators_fields_follow_fn_n_noise_and_seed(page):
    g = page._built.regression.generator
    page.param.update(fn="wave", n=300, noise=0.75, seed=99)
    assert (g["fn"].value, g["n"].value, g["noise"].value, g["seed"].value) == ("wave", 300, 0.75, 99)
    g["n"].value, g["seed"].value = 40, 5
    assert (page.n, page.seed) == (40, 5)


def test_a_value_the_page_does_not_offer_is_refused_with_a_message(page, caplog):
    w = page._built.sentence.widgets
    page.token = 1
    with caplog.at_level(logging.WARNING, logger="app.delivery.page"):
        page.token = 31  # the opening sentence has 5 words
    assert w["token"].value == "1"
    assert "token=31 is not offered by the page" in caplog.text


def test_widgets_set_the_parameters_without_an_echo(page):
    w = page._built.regression.widgets
    page.bandwidth, page.query = 0.3, 2.5
    seen = []
    watcher = page.param.watch(lambda ev: seen.append((ev.name, ev.new)), ["bandwidth", "query"])
    changes = []

    def heard(_attr, _old, new):
        changes.append(new)

    w["logh"].on_change("value", heard)
    try:
        w["logh"].value = math.log10(0.8)
        assert page.bandwidth == pytest.approx(0.8)
        # the parameter did not write its (rounded) value back to the widget: one change, the browser's
        assert changes == [math.log10(0.8)]
        assert w["logh"].value == math.log10(0.8)
        w["query"].value = 1.75
        assert page.query == 1.75
        assert [name for name, _ in seen] == ["bandwidth", "query"]
    finally:
        page.param.unwatch(watcher)
        w["logh"].remove_on_change("value", heard)


@pytest.mark.parametrize("section, key, prop, stray, pname, kept", [
    ("regression", "logh", "value", 5.0, "bandwidth", 50.0),              # a stray value from a client
    ("regression", "query", "value", -3.0, "query", -0.5),
    ("regression", "n", "value", 5000, "n", 2000),                        # a typed n beyond the generator's range
    ("regression", "n", "value", 1, "n", 2),
])
def test_out_of_range_widget_values_are_clamped_into_the_parameter(page, section, key, prop, stray, pname, kept):
    setattr(_widget(page, section, key), prop, stray)
    assert getattr(page, pname) == kept


def test_a_value_no_parameter_can_take_is_ignored_and_logged(page, caplog):
    page.token = 2
    with caplog.at_level(logging.WARNING, logger="app.delivery.page"):
        _widget(page, "sentence", "token").value = "second"
    assert page.token == 2 and "ignored token='second' from the browser" in caplog.text


def test_the_tour_step_follows_both_ways(page):
    stepper = page._built.tour.models["stepper"]
    page.tour = 3
    assert stepper.value == 3
    stepper.value = 2                                    # Previous in the browser
    assert page.tour == 2


def test_a_param_widget_beside_the_page_drives_it(page):
    row = pn.Row(page.param.bandwidth, page)
    row.get_root(Document())  # rendered, as a notebook would
    slider = row[0]
    assert isinstance(slider, pn.widgets.FloatSlider) and slider.value == page.bandwidth
    slider.value = 1.0
    assert page.bandwidth == 1.0 and page._built.regression.widgets["logh"].value == 0.0
