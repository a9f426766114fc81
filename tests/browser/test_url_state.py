"""Deep links, served and offline: a link opens the page in its state; bad values are named, never run.

The page reads its link in the browser (parseQuery in app/ui/common.js, held to app.state.parse_query by
tests/browser/test_parity.py over hundreds of hostile links); here a few links show it on the page itself:
the same notices as parse_query, escaped, the same state, and a page that still draws every block and answers
a drag.  The address and every section's widgets agree both ways: a link sets the widgets, and a change of a
widget is written to the address.
"""

from __future__ import annotations

import time
from urllib.parse import urlsplit

import pytest

from app.sections import parse_query, url_spec

from tests.browser.pageutil import (block_outside, check_against_core, drag, draw_all, model_element, model_prop,
                                    page_to_data_x, plot_geometry, set_model_prop, shown_paragraphs, wait_query,
                                    wait_ready)

GOOD = "?query=2.5&bandwidth=0.3&kernel=dot&temperature=2"
BAD = "?bandwidth=-1&query=abc&foo=<script>alert(1)</script>"
# ... plus the same kind of junk where the page does repeat it: as a known key's value and as a key
HOSTILE = (BAD + "&kernel=<img src=x onerror=alert(1)>&<script>alert(2)</script>=1"
           "&dataset=%3Cscript%3Ealert(3)%3C%2Fscript%3E")
CLAMPED = "?query=99&bandwidth=1e999&temperature=0&key_norm=-7&n=5&link=maybe&dataset=step&dataset=bump&seed="


@pytest.fixture
def open_link(open_page):
    """open_link(query) opens the page with that query string, served or offline (conftest's open_page), and waits
    until it is ready.  Any alert/confirm/prompt dialog fails the test: nothing from a link may run."""
    dialogs = []
    open_page.watch.page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    yield open_page
    assert dialogs == []


def notices_shown(page):
    return shown_paragraphs(page, "notices")


@pytest.mark.both_ways   # the address is the served page's own
def test_a_deep_link_opens_in_its_state(open_link):
    page = open_link(GOOD)
    state, r = check_against_core(page)
    assert state["query"] == 2.5 and state["kernel"] == "dot"
    assert state["bandwidth"] == pytest.approx(0.3, rel=1e-12)
    assert state["temperature"] == pytest.approx(2.0, rel=1e-12)
    assert model_prop(page, "keynorm_slider", "visible") is True
    assert model_prop(page, "notices", "visible") is False and notices_shown(page) == []
    assert shown_paragraphs(page, "caption")[0].startswith("A query at x = 2.50 averages the 24 samples with "
                                                           "softmax weights of a dot-product similarity")


@pytest.mark.both_ways
@pytest.mark.idle_drawing   # every block drawn by the loader, with the hostile link's state
def test_bad_values_are_named_escaped_and_the_page_keeps_working(open_link):
    query = HOSTILE
    page = open_link(query)
    # what the browser really sent (it percent-encodes < > and spaces) gives the same notices as the raw
    # link (page.url has moved on: the page rewrites its URL to the state it settled on)
    sent = "?" + urlsplit(page.evaluate("() => performance.getEntriesByType('navigation')[0].name")).query
    want = parse_query(sent)[1]
    assert want == parse_query(query)[1]
    assert model_prop(page, "notices", "visible") is True
    assert notices_shown(page) == want
    assert "outside 0.005 to 50; using 0.005" in want[0] and "Ignored query=\u201cabc\u201d" in want[1]
    html = model_prop(page, "notices", "text")
    assert want[:3] == parse_query(BAD)[1] and len(want) == 6
    assert "&lt;script&gt;alert(2)&lt;/script&gt;" in html and "&lt;img src=x onerror=alert(1)&gt;" in html
    assert "&lt;script&gt;alert(3)&lt;/script&gt;" in html
    assert "<script" not in html and "<img" not in html
    # nothing was turned into elements: the notices hold paragraphs of text only
    tags = model_element(page, "notices").evaluate(
        "(el) => Array.from(el.shadowRoot.querySelectorAll('script, img, iframe, object')).length")
    assert tags == 0
    # the clamped bandwidth is in force, the rest is the default
    state, _ = check_against_core(page)
    assert state["bandwidth"] == pytest.approx(0.005, rel=1e-12) and state["query"] == 3.2
    # ... and the page still draws every block and answers a drag
    page.wait_for_function("() => AttnPage.allDrawn()", timeout=90000)
    g = plot_geometry(page)
    end_px = drag(page, g, g["top"] + 0.4 * g["height"], [1.0, 2.0, 2.61])
    target = page_to_data_x(g, end_px)
    wait_query(page, target, 1.5 * (g["x1"] - g["x0"]) / g["width"])
    check_against_core(page)


def test_out_of_range_values_are_clamped_like_parse_query(static_file, watch):
    page = watch.page
    block_outside(page)
    page.goto(static_file.as_uri() + CLAMPED)
    wait_ready(page)
    values, notices = parse_query(CLAMPED)
    assert notices_shown(page) == notices
    assert values["query"] == 6.5 and values["bandwidth"] == 50.0 and values["temperature"] == 0.001
    assert values["key_norm"] == -0.25
    # a negative bound is written with the true minus in the sentence (the link keeps its ASCII "-")
    assert [n for n in notices if n.startswith("key_norm=")] == [
        "key_norm=-7 is outside \u22120.25 to 0.25; using \u22120.25."]
    state, _ = check_against_core(page)
    assert state["query"] == 6.5
    assert state["bandwidth"] == pytest.approx(50.0, rel=1e-12)
    assert state["temperature"] == pytest.approx(0.001, rel=1e-12)
    assert state["key_norm"] == -0.25
    assert len(state["x"]) == 40  # dataset=bump, the last of the two
    assert model_prop(page, "dataset_select", "value") == "bump"
    assert model_prop(page, "link_toggle", "active") is False
    assert watch.console_errors() == []


# Every section's widgets that the address carries: the URL key, the widget, its property, and how the widget
# reads the key's value (as parse_query gives it): "log" sliders hold log10 of it.
WIDGETS = [("query", "query_slider", "value", float), ("bandwidth", "bandwidth_slider", "value", "log"),
           ("temperature", "temperature_slider", "value", "log"), ("kernel", "kernel_select", "value", str),
           ("key_norm", "keynorm_slider", "value", float), ("dataset", "dataset_select", "value", str),
           ("limits", "limits_toggle", "active", bool), ("token", "token_select", "value", str),
           ("head", "head_select", "active", int), ("att_temperature", "att_temperature_slider", "value", "log"),
           ("causal", "causal_toggle", "active", bool), ("lr", "learn_lr_select", "value", str),
           ("metric_lr", "metric_lr_select", "value", str)]
# The address writes h and T with 4 significant digits (toPrecision(4)) and the query with 3 decimals: it
# agrees with a widget within that rounding.
URL_REL = 5.1e-4
DEEP = ("?query=1.75&bandwidth=0.4&temperature=2&kernel=dot&key_norm=0.2&dataset=bump&limits=1&token=3&head=1"
        "&att_temperature=2&causal=1&lr=10&metric_lr=10")
# one change per widget, made in the page as a student's would be (from the opening state)
CHANGES = [("query_slider", "value", 4.25), ("bandwidth_slider", "value", 0.0), ("temperature_slider", "value", 1.0),
           ("kernel_select", "value", "dot"), ("keynorm_slider", "value", -0.2), ("dataset_select", "value", "step"),
           ("limits_toggle", "active", True), ("token_select", "value", "2"), ("head_select", "active", 2),
           ("att_temperature_slider", "value", -1.0), ("causal_toggle", "active", True),
           ("learn_lr_select", "value", "50"), ("metric_lr_select", "value", "100")]


def _disagreements(page, values):
    """Where the widgets do not hold ``values`` (a key missing from ``values`` means its default)."""
    spec, out = url_spec(), []
    for key, name, prop, kind in WIDGETS:
        want, got = values.get(key, spec[key]["default"]), model_prop(page, name, prop)
        if kind == "log":
            ok = 10 ** got == pytest.approx(want, rel=URL_REL)
        elif kind is float:
            ok = got == pytest.approx(want, abs=5e-4)
        else:
            ok = got == kind(want)
        if not ok:
            out.append((key, got, want))
    return out


def _address_agrees(page, timeout=20):
    """Wait until the address, read by parse_query, is what every widget holds (the page writes its address
    a moment after a change, each section its own keys); returns the address's values."""
    deadline = time.monotonic() + timeout
    while True:
        values, notices = parse_query("?" + urlsplit(page.url).query)
        bad = _disagreements(page, values)
        if not bad or time.monotonic() > deadline:
            assert notices == [] and bad == [], (page.url, notices, bad)
            return values
        page.evaluate("() => new Promise((r) => requestAnimationFrame(r))")   # look again at the next frame


def test_served_address_and_widgets_agree_both_ways(served_page, watch):
    """The served page: a deep link sets every section's widgets (each section reads it when its engine starts,
    with its first block), and after a change of any widget the address (read by parse_query) holds what every
    widget holds."""
    page = watch.page
    page.goto(served_page + DEEP)
    wait_ready(page)
    draw_all(page)
    values, notices = parse_query(DEEP)
    assert notices == [] and set(values) == {k for k, *_ in WIDGETS}
    assert _disagreements(page, values) == []
    assert _address_agrees(page) == pytest.approx(values)   # the page keeps the link's state in its address

    page.goto(served_page)
    wait_ready(page)
    draw_all(page)
    assert _address_agrees(page) == {}
    for name, prop, value in CHANGES:
        key = next(k for k, n, *_ in WIDGETS if n == name)
        set_model_prop(page, name, prop, value)
        page.wait_for_function("(k) => new URLSearchParams(location.search).has(k)", arg=key)
        _address_agrees(page)
    # the learning rate's path starts from its own h on the Gaussian kernel (the learning section sets those
    # widgets), so the end state has most, not all, of the changes
    assert len(_address_agrees(page)) >= len(CHANGES) - 2
    assert watch.console_errors() == []
