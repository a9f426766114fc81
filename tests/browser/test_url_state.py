"""Deep links, served and offline: a link opens the page in its state; bad values are named, never run.

The served page reads the link in Python (app.state.parse_query); the offline
file reads it in the browser (parseQuery in explorable.js).  Both must show
the same notices as parse_query and open in the same state.
"""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from app.state import parse_query

from tests.browser.pageutil import (block_outside, check_against_core, drag, model_element, model_prop,
                                    page_to_data_x, plot_geometry, shown_paragraphs, wait_query, wait_ready)

GOOD = "?query=2.5&bandwidth=0.3&kernel=dot&temperature=2"
BAD = "?bandwidth=-1&query=abc&foo=<script>alert(1)</script>"
# ... plus the same kind of junk where the page does repeat it: as a known key's value and as a key
HOSTILE = (BAD + "&kernel=<img src=x onerror=alert(1)>&<script>alert(2)</script>=1"
           "&dataset=%3Cscript%3Ealert(3)%3C%2Fscript%3E")
CLAMPED = "?query=99&bandwidth=1e999&temperature=0&key_norm=-7&n=5&link=maybe&dataset=step&dataset=bump&seed="


@pytest.fixture(params=["served", "static"])
def open_link(request, watch):
    """open_link(query) opens the page with that query string, served or offline, and waits until it is ready.

    Any alert/confirm/prompt dialog fails the test: nothing from a link may run.
    """
    dialogs = []
    watch.page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    if request.param == "served":
        base = request.getfixturevalue("served_app")
    else:
        base = request.getfixturevalue("static_file").as_uri()
        block_outside(watch.page)

    def go(query):
        watch.page.goto(base + query)
        wait_ready(watch.page)
        return watch.page

    go.where = request.param
    yield go
    assert dialogs == []
    assert watch.console_errors() == []


def notices_shown(page):
    return shown_paragraphs(page, "notices")


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
    # ... and the page still answers a drag
    g = plot_geometry(page)
    end_px = drag(page, g, g["top"] + 0.4 * g["height"], [1.0, 2.0, 2.61])
    target = page_to_data_x(g, end_px)
    wait_query(page, target, 1.5 * (g["x1"] - g["x0"]) / g["width"])
    check_against_core(page)


def test_out_of_range_values_are_clamped_like_parse_query(open_link):
    page = open_link(CLAMPED)
    values, notices = parse_query(CLAMPED)
    assert notices_shown(page) == notices
    assert values["query"] == 6.5 and values["bandwidth"] == 50.0 and values["temperature"] == 0.001
    state, _ = check_against_core(page)
    assert state["query"] == 6.5
    assert state["bandwidth"] == pytest.approx(50.0, rel=1e-12)
    assert state["temperature"] == pytest.approx(0.001, rel=1e-12)
    assert len(state["x"]) == 40  # dataset=bump, the last of the two
    assert model_prop(page, "dataset_select", "value") == "bump"
    assert model_prop(page, "link_toggle", "active") is False
