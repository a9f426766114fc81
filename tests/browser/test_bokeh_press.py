"""BokehJS's gestures on a small page of its own: a mouse button held still for BokehJS's press time (300 ms)
before it moves is a press, and BokehJS sends no pan for the moves that follow it, only plain pointer moves.

This is why a drag on the main plot was lost on a busy machine (tests/bench/RESULTS.md, 2026-12-06): a test's
drag waits for a frame between its press and its first move, and under load that frame took longer than
300 ms.  A student who presses, holds still a moment and then drags met the same.  The page now follows a press's
moves itself (app/regression/engine.js onPress; tests/browser/test_tour.py and test_drag_frames.py check it on
the page).  Should BokehJS one day send a pan after a press, this test says so, and the page's own following
of the moves may go.
"""

from __future__ import annotations

from bokeh.embed import file_html
from bokeh.models import CustomJS
from bokeh.plotting import figure
from bokeh.resources import INLINE

from tests.browser.pageutil import block_outside, data_to_page_x, plot_geometry

EVENTS = ("panstart", "pan", "panend", "tap", "press", "pressup", "mousemove")


def small_page(path):
    """A figure and nothing else; every pointer event BokehJS sends is written to window.__events."""
    fig = figure(name="plot", width=500, height=300, x_range=(0, 10), y_range=(0, 1), tools="",
                 toolbar_location=None)
    fig.scatter([1, 5, 9], [0.5, 0.5, 0.5])
    record = CustomJS(code="(window.__events = window.__events || []).push([cb_obj.event_name, cb_obj.x]);")
    for name in EVENTS:
        fig.js_on_event(name, record)
    path.write_text(file_html(fig, INLINE, "press"), encoding="utf-8")
    return path


def test_a_button_held_still_then_moved_is_a_press_and_bokehjs_sends_no_pan(browser, tmp_path):
    page = browser.new_page()
    try:
        block_outside(page)
        page.goto(small_page(tmp_path / "press.html").as_uri())
        page.wait_for_function("() => window.Bokeh && Bokeh.documents.length > 0 && Object.keys(Bokeh.index).length > 0")
        g = plot_geometry(page, "plot")
        y = g["top"] + g["height"] / 2
        page.mouse.move(data_to_page_x(g, 3.0), y)
        page.mouse.down()
        # held still until BokehJS calls it a press (its 300 ms), then moved well past its 5 px of slack
        page.wait_for_function("() => (window.__events || []).some((e) => e[0] === 'press')")
        page.mouse.move(data_to_page_x(g, 6.0), y, steps=8)
        page.mouse.up()
        page.wait_for_function("() => window.__events.some((e) => e[0] === 'pressup')")
        events = page.evaluate("() => window.__events")
        names = [e[0] for e in events]
        after = events[names.index("press"):]
        assert [e[0] for e in after if e[0] in ("panstart", "pan", "panend", "tap")] == []
        xs = [e[1] for e in after if e[0] == "mousemove"]
        assert len(xs) >= 4 and xs == sorted(xs) and abs(xs[-1] - 6.0) < 0.1 and after[-1][0] == "pressup"
        assert abs(after[0][1] - 3.0) < 0.1   # the press is where the button went down
    finally:
        page.close()
