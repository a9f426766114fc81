"""The notebook component per session (app/delivery/page.py ``Explorable``, what ``panel serve app/delivery/main.py``
shows at /main): its parameters and the page in Chromium follow each other both ways, as in a notebook.

The session is served from this process (conftest's ``session_app``), so the test reaches the session's
``Explorable`` and sets its parameters on the session's document, as a notebook cell does.  The same
component in a real JupyterLab, with a second output beside it: tests/browser/test_jupyterlab.py (slower);
the sync itself without a browser: tests/app/test_param_sync.py.
"""

from __future__ import annotations

import math

import pytest

from tests.browser.pageutil import (check_against_core, drag, model_element, model_prop, page_to_data_x,
                                    plot_geometry, wait_prop, wait_query, wait_ready)


def test_a_drag_reaches_python_and_python_moves_the_page(session_app, watch):
    page = watch.page
    page.goto(session_app.url + "?query=2.5&bandwidth=0.3&tour=2")
    wait_ready(page)
    e = session_app.explorable
    assert (e.query, e.bandwidth, str(e.tour)) == (2.5, 0.3, "2")   # Python read the link (a step or an id)
    state, _ = check_against_core(page)
    assert (state["query"], state["bandwidth"]) == (2.5, pytest.approx(0.3, rel=1e-12))

    # a real drag in the browser: the query reaches Python
    g = plot_geometry(page)
    end_px = drag(page, g, g["top"] + 0.4 * g["height"], [2.5, 3.3, 4.0])
    target = page_to_data_x(g, end_px)
    per_px = (g["x1"] - g["x0"]) / g["width"]
    wait_query(page, target, 1.5 * per_px)
    q = model_prop(page, "query_slider", "value")
    session_app.wait_param(page, "query", lambda v: v == q)
    assert abs(e.query - target) <= 1.5 * per_px

    # parameters set in Python move the page, whose engines redraw at the new state
    session_app.set(bandwidth=1.0)
    wait_prop(page, "bandwidth_slider", "value", "(v) => Math.abs(v) < 1e-12")
    page.wait_for_function("() => Bokeh.documents[0].get_model_by_name('caption').text.includes('(h = 1)')")
    state, _ = check_against_core(page)
    assert (state["query"], state["bandwidth"]) == (q, pytest.approx(1.0, rel=1e-12))

    session_app.set(kernel="dot", temperature=4.0)   # a hidden control: "More controls" opens to show it
    wait_prop(page, "kernel_select", "value", "(v) => v === 'dot'")
    wait_prop(page, "more_controls", "visible", "(v) => v === true")
    wait_prop(page, "temperature_slider", "value", f"(v) => Math.abs(v - {math.log10(4.0)}) < 1e-12")
    page.wait_for_function("() => Bokeh.documents[0].get_model_by_name('caption').text.includes('dot-product')")
    check_against_core(page)

    # the tour's step, both ways: e.tour moves the card, Next moves e.tour
    session_app.set(tour=4)
    page.wait_for_function("() => Bokeh.documents[0].get_model_by_name('tour_card').text.includes('Step 4 of')")
    model_element(page, "tour_next", "button").click()
    page.wait_for_function("() => Bokeh.documents[0].get_model_by_name('tour_card').text.includes('Step 5 of')")
    session_app.wait_param(page, "tour", lambda v: v == 5)
    assert watch.console_errors() == []
