"""The regression view in a real browser, served (the page at / of `attention-explorable serve`) and as the offline
file.

Every number the page prints is checked against the numpy core for the state the page is in
(``check_against_core``), after real gestures: a mouse drag on the plot, a drag of the red line, the keyboard on
a slider, and the widgets.  The engine is the same in both deliveries (the served page is the offline file's
bytes); what may differ, the server's headers for a Web Worker, is tested on both: a large dataset's error
curves, which a worker works out.  The rest runs offline.
"""

from __future__ import annotations

import html
import json
import math
from urllib.parse import parse_qs, urlsplit

import numpy as np
import pytest

import attention
from app.regression.view import DOTS_ABOVE_N
from app.ui import text
from app.ui.theme import WEIGHT_PALETTE

from tests.browser.pageutil import (OFFLINE_ORIGINS, block_outside, check_against_core, core_curve_facts,
                                    core_heaviest, data_to_page_x, draw, drag, model_element, model_prop,
                                    open_more_controls, page_state, page_to_data_x, plot_geometry, readout_rows,
                                    set_model_prop, shown_paragraphs, source_data, wait_frames, wait_prop,
                                    wait_query, wait_ready)

WORKED_EXAMPLE = ("0.163", "3.35 bits", "10.2", "\u22120.30", "\u22120.43")


@pytest.fixture
def offline(static_file, watch):
    """The offline file opened and ready, every request outside it refused; after the test, no console error."""
    block_outside(watch.page)
    watch.page.goto(static_file.as_uri())
    wait_ready(watch.page)
    yield watch.page
    assert watch.console_errors() == []
    assert watch.outside_requests(OFFLINE_ORIGINS) == []


def test_opening_then_dragging_the_plot_and_the_red_line(open_page):
    """The worked example, then real mouse drags: on the plot, then on the red line; the URL follows."""
    page = open_page()
    rows = readout_rows(page)
    assert [rows[k] for k in ("max weight", "entropy", "effective points", "prediction", "true f(x)")] == \
        list(WORKED_EXAMPLE)
    state, _ = check_against_core(page)
    assert (state["query"], state["kernel"], len(state["x"])) == (3.2, "gaussian", 24)
    assert "query=" not in page.url  # the opening state is the default: nothing to carry

    # a drag anywhere on the plot: the query lands where the mouse stopped
    g = plot_geometry(page)
    per_px = (g["x1"] - g["x0"]) / g["width"]
    end_px = drag(page, g, g["top"] + 0.25 * g["height"], [1.0, 1.6, 2.4, 4.1, 4.73])
    target = page_to_data_x(g, end_px)
    wait_query(page, target, 1.5 * per_px)
    state, r = check_against_core(page)
    assert abs(state["query"] - target) <= 1.5 * per_px
    assert readout_rows(page) != rows
    assert model_prop(page, "query_span", "location") == state["query"]
    assert source_data(page, "qpred") == {"x": [state["query"]], "y": [pytest.approx(r.prediction, abs=1e-9)],
                                          "label": ["prediction"]}
    # the URL follows (throttled): query=<3 decimals>
    page.wait_for_function("(q) => Math.abs(Number(new URLSearchParams(window.location.search).get('query')) - q)"
                           " < 0.0006", arg=state["query"])
    assert parse_qs(urlsplit(page.url).query)["query"] == [f"{state['query']:.3f}".rstrip("0").rstrip(".")]

    # grab the red line itself and drag it: it follows the pointer's motion from wherever on its
    # few pixels it was grabbed
    end_px = drag(page, g, g["top"] + 0.6 * g["height"], [state["query"], 2.5, 1.37], steps=8)
    target = page_to_data_x(g, end_px)
    wait_query(page, target, 4 * per_px)
    state, _ = check_against_core(page)
    assert model_prop(page, "query_span", "location") == state["query"]
    page.wait_for_function("(q) => Math.abs(Number(new URLSearchParams(window.location.search).get('query')) - q)"
                           " < 0.0006", arg=state["query"])


def test_a_button_held_still_then_moved_drags_the_query(offline):
    """A mouse button held still on the plot for BokehJS's press time (300 ms) before it moves (a hand that pauses,
    or a busy machine) is a press, after which BokehJS sends no pan (tests/browser/test_bokeh_press.py): the press
    puts the query where the button went down, the moves drag it, and after the release a hover moves nothing."""
    page = offline
    g = plot_geometry(page)
    per_px, y = (g["x1"] - g["x0"]) / g["width"], g["top"] + 0.25 * g["height"]
    down_px = data_to_page_x(g, 1.0)
    page.mouse.move(down_px, y)
    page.mouse.down()
    wait_query(page, page_to_data_x(g, down_px), 1.5 * per_px)   # the press, the button still held
    end_px = data_to_page_x(g, 4.7)
    page.mouse.move(end_px, y, steps=8)
    page.mouse.up()
    dropped = page_to_data_x(g, end_px)
    wait_query(page, dropped, 1.5 * per_px)
    check_against_core(page)
    page.mouse.move(data_to_page_x(g, 2.0), y, steps=4)
    wait_frames(page, 10)
    assert abs(model_prop(page, "query_slider", "value") - dropped) <= 1.5 * per_px


def test_query_slider_by_model_and_by_keyboard(offline):
    page = offline
    set_model_prop(page, "query_slider", "value", 4.0)
    wait_prop(page, "query_span", "location", "(v) => v === 4.0")
    state, r = check_against_core(page)
    assert state["query"] == 4.0
    assert shown_paragraphs(page, "caption")[0].startswith("A query at x = 4.00 averages the 24 samples")

    handle = model_element(page, "query_slider", ".noUi-handle")
    handle.focus()
    for _ in range(5):
        page.keyboard.press("ArrowRight")
    wait_query(page, 4.05, 1e-9)
    check_against_core(page)
    page.keyboard.press("ArrowLeft")
    wait_query(page, 4.04, 1e-9)
    check_against_core(page)
    page.keyboard.press("Home")
    wait_query(page, -0.5, 0)
    check_against_core(page)
    assert model_prop(page, "query_span", "location") == -0.5
    # the bandwidth slider from the keyboard too: one step (0.01 in log10 h, on the slider's grid) down
    logh = model_prop(page, "bandwidth_slider", "value")
    model_element(page, "bandwidth_slider", ".noUi-handle").focus()
    page.keyboard.press("ArrowLeft")
    wait_prop(page, "bandwidth_slider", "value", f"(v) => v < {logh} && v >= {logh - 0.02}")
    h = 10 ** model_prop(page, "bandwidth_slider", "value")
    page.wait_for_function("(h) => Bokeh.documents[0].get_model_by_name('caption').text.includes(h)",
                           arg=f"(h = {h:.3g})")
    check_against_core(page)


# Every slider's handle, what it says (aria-valuetext) and what its title shows, in the page's drawn blocks.
SPOKEN_JS = """() => { const out = {};
  for (const m of Bokeh.documents[0].all_models) {
    const v = Bokeh.index.find_one(m), root = v && v.shadow_el, h = root && root.querySelector('.noUi-handle');
    const shown = root && root.querySelector('.bk-slider-value');
    if (h && shown && m.name) out[m.name] = [h.getAttribute('aria-valuetext'), shown.textContent.trim()];
  }
  return out; }"""


def spoken(page) -> dict:
    """{slider name: (what its handle says, what its title shows)} once every handle says its shown value (or
    after 5 s, for the assertion to show which does not)."""
    try:
        page.wait_for_function(f"() => Object.values(({SPOKEN_JS})()).every(([a, b]) => a === b)", timeout=5000)
    except Exception:   # noqa: BLE001 - the assertion below says which slider
        pass
    return page.evaluate(SPOKEN_JS)


def test_every_slider_says_the_value_it_shows(offline):
    """A screen reader reads a slider's aria-valuetext: it is the value the slider's title shows (h: 0.620, not its
    log, -0.21; T: 1.00, not 0.00; a count: 24, not 24.00), at load and after Home, End, Page Up and three arrows,
    on every slider of the section (issue 47)."""
    page = offline
    said = spoken(page)
    assert {"query_slider", "bandwidth_slider", "temperature_slider"} <= set(said), said
    assert [n for n, (a, b) in said.items() if a != b] == [], said
    assert said["bandwidth_slider"][1] == "0.620" and said["temperature_slider"][1] == "1.00"
    # each handle is at least 24 x 24 px (WCAG 2.2, 2.5.8)
    for name in ("query_slider", "bandwidth_slider", "temperature_slider"):
        box = model_element(page, name, ".noUi-handle").bounding_box()
        assert box["width"] >= 24 and box["height"] >= 24, (name, box)
    for name in ("bandwidth_slider", "temperature_slider"):
        model_element(page, name, ".noUi-handle").focus()
        for key in ("End", "Home", "PageUp", "ArrowLeft", "ArrowLeft", "ArrowLeft"):
            before = model_prop(page, name, "value")
            page.keyboard.press(key)
            wait_prop(page, name, "value", f"(v) => v !== {before}")
            a, b = spoken(page)[name]
            assert a == b, (name, key, a, b)


# An AudioContext that records what it is asked to play (an init script): each oscillator's frequency, its panner's
# pan and its start, in window.__tones, and how many contexts were made, in window.__contexts.
RECORDING_AUDIO_JS = """(() => { window.__tones = []; window.__contexts = 0;
  class Param { constructor() { this.value = 0; } setValueAtTime() {} linearRampToValueAtTime() {} }
  class Node { connect(n) { this.next = n; return n; } }
  class Osc extends Node { constructor() { super(); this.frequency = new Param(); }
    start(t) { let n = this.next, pan = 0; while (n) { if (n.pan) pan = n.pan.value; n = n.next; }
      this.tone = { freq: this.frequency.value, pan, at: t }; window.__tones.push(this.tone); }
    stop(t) { if (t < this.tone.at) this.tone.cut = true; } }
  class Ctx { constructor() { window.__contexts += 1; this.currentTime = 0; this.state = 'running';
      this.destination = new Node(); }
    createOscillator() { return new Osc(); }
    createGain() { const g = new Node(); g.gain = new Param(); return g; }
    createStereoPanner() { const p = new Node(); p.pan = new Param(); return p; } }
  window.AudioContext = Ctx; })();"""


def test_hear_the_weights_plays_them_as_tones_and_again_after_a_move(watch, static_file):
    """No sound before the student asks; "Hear the weights" plays one tone per sample from left to right, the
    highest where the weight is largest; after a move the new weights play (issue 47)."""
    from tests.parity.audio import tones_of

    page = watch.page
    block_outside(page)
    page.add_init_script(RECORDING_AUDIO_JS)
    page.goto(static_file.as_uri())
    wait_ready(page)
    open_more_controls(page)
    assert page.evaluate("() => window.__contexts") == 0
    sound = page.evaluate("() => AttnAudio.SOUND")
    for q in (None, 1.0):
        if q is not None:
            page.evaluate("() => { window.__tones.length = 0; }")
            set_model_prop(page, "query_slider", "value", q)
            page.wait_for_function("() => Bokeh.documents[0].get_model_by_name('caption').text.includes('x = 1.00')")
        else:
            model_element(page, "hear_toggle", "button").click()
        s = source_data(page, "samples")
        r = page.evaluate("() => { const r = Bokeh.documents[0].get_model_by_name('main_plot').x_range;"
                          " return [r.start, r.end]; }")
        want = tones_of(s["x"], s["w"], r[0], r[1], sound)
        # a tone cut short before it sounds (a newer sweep took over) is not heard
        page.wait_for_function("(n) => window.__tones.filter((t) => !t.cut).length >= n", arg=len(want),
                               timeout=10000)
        got = page.evaluate("() => window.__tones.filter((t) => !t.cut)")
        assert [t["freq"] for t in got] == pytest.approx([t["freq"] for t in want], rel=1e-9)
        assert [t["pan"] for t in got] == pytest.approx([t["pan"] for t in want], abs=1e-9)
        top = int(np.argmax(s["w"]))
        assert max(got, key=lambda t: t["freq"])["pan"] == pytest.approx(
            2 * (s["x"][top] - r[0]) / (r[1] - r[0]) - 1, abs=1e-9)
    assert page.evaluate("() => window.__contexts") == 1
    assert watch.console_errors() == []


def test_limit_notices_and_presentation_mode(offline):
    page = offline
    assert shown_paragraphs(page, "limits") == []
    page.mouse.click(2, 2)   # the student acts (the page announces nothing before: issue 47)
    set_model_prop(page, "bandwidth_slider", "value", math.log10(0.01))
    page.wait_for_function("() => Bokeh.documents[0].get_model_by_name('limits').text.includes('nearest')")
    _, r = check_against_core(page)
    notes = shown_paragraphs(page, "limits")
    assert len(notes) == 1 and "(1-nearest-neighbour)" in notes[0] and r.max_weight >= 0.95
    # issue 47: the live region says the limit with the readouts, once the page rests
    page.wait_for_function("(s) => Bokeh.documents[0].get_model_by_name('readout_announcer').text.includes(s)",
                           arg=html.escape(notes[0], quote=True))

    set_model_prop(page, "bandwidth_slider", "value", math.log10(50))
    page.wait_for_function("() => Bokeh.documents[0].get_model_by_name('limits').text.includes('global mean')")
    _, r = check_against_core(page)
    notes = shown_paragraphs(page, "limits")
    assert len(notes) == 1 and "flattens toward the global mean" in notes[0]
    assert f"({text._signed(r.global_mean, 2)})" in notes[0]

    # presentation mode: a real click on the checkbox enlarges the fonts
    size = "() => Bokeh.documents[0].get_model_by_name('main_plot').below[0].axis_label_text_font_size"
    small = page.evaluate(size)
    open_more_controls(page)   # the check boxes sit behind "More controls"
    model_element(page, "present_toggle", "input").click()
    page.wait_for_function(f"(s) => ({size})() !== s", arg=small)
    big = page.evaluate(size)
    assert float(big.rstrip("px")) > float(small.rstrip("px"))
    # the readouts' HTML text follows the page's font-size variable, which presentation mode raises
    readout_px = """() => { const v = Bokeh.index.find_one(Bokeh.documents[0].get_model_by_name('readouts'));
      return parseFloat(getComputedStyle(v.markup_el || v.el).fontSize); }"""
    page.wait_for_function(f"() => ({readout_px})() >= 22")
    check_against_core(page)
    page.wait_for_function("() => new URLSearchParams(window.location.search).get('present') === '1'")
    model_element(page, "present_toggle", "input").click()
    page.wait_for_function(f"(s) => ({size})() === s", arg=small)
    page.wait_for_function(f"() => ({readout_px})() === 16")


def test_linked_temperature_keeps_the_weights_then_a_new_dataset(offline):
    page = offline
    set_model_prop(page, "query_slider", "value", 2.2)
    wait_prop(page, "query_span", "location", "(v) => v === 2.2")
    w0 = np.array(source_data(page, "samples")["w"])
    h0 = 10 ** model_prop(page, "bandwidth_slider", "value")
    open_more_controls(page)
    model_element(page, "link_toggle", "input").click()
    wait_prop(page, "link_toggle", "active", "(v) => v === true")
    set_model_prop(page, "temperature_slider", "value", math.log10(4.0))
    # the bandwidth slider moves by itself: h sqrt(T) stays 0.62, so h = 0.31
    wait_prop(page, "bandwidth_slider", "value", f"(v) => Math.abs(v - {math.log10(0.31)}) < 1e-9")
    state, _ = check_against_core(page)
    assert state["bandwidth"] * math.sqrt(state["temperature"]) == pytest.approx(h0, abs=1e-12)
    assert np.max(np.abs(np.array(source_data(page, "samples")["w"]) - w0)) <= 1e-12
    # ... and the other way round
    set_model_prop(page, "bandwidth_slider", "value", math.log10(1.24))
    wait_prop(page, "temperature_slider", "value", f"(v) => Math.abs(v - {math.log10(0.25)}) < 1e-9")
    assert np.max(np.abs(np.array(source_data(page, "samples")["w"]) - w0)) <= 1e-12
    check_against_core(page)

    # another dataset from the select: the samples and the readouts follow
    model_element(page, "dataset_select", "select").select_option(label="step")
    wait_prop(page, "dataset", "data", "(d) => d.x.length === 30")
    d = attention.load_dataset("step")
    state, r = check_against_core(page)
    assert state["x"] == d.x.tolist() and state["y"] == d.y.tolist()
    assert json.loads(state["meta"])["function"] == "step"
    assert source_data(page, "samples")["x"] == d.x.tolist()
    _check_stems(_drawn_samples(page))   # the stems moved to the new samples
    assert readout_rows(page)["true f(x)"] == text._signed(float(d.true_function(state["query"])), 2)


def test_dot_kernel_key_norm_tilt_and_reset(offline):
    page = offline
    assert model_prop(page, "keynorm_slider", "visible") is False
    open_more_controls(page)
    model_element(page, "kernel_select", "select").select_option(label="dot product, equal-norm keys")
    wait_prop(page, "keynorm_slider", "visible", "(v) => v === true")
    page.wait_for_function("() => Bokeh.documents[0].get_model_by_name('caption').text.includes('dot-product')")
    state, r_dot = check_against_core(page)
    assert state["kernel"] == "dot" and state["key_norm"] == 0
    assert model_element(page, "keynorm_slider").is_visible()
    before = model_prop(page, "readouts", "text")
    set_model_prop(page, "keynorm_slider", "value", 0.25)
    page.wait_for_function("(t) => Bokeh.documents[0].get_model_by_name('readouts').text !== t", arg=before)
    state, r_tilt = check_against_core(page)
    assert state["key_norm"] == 0.25
    assert r_tilt.prediction != r_dot.prediction  # longer keys on the right pull the weights their way
    # the menu no longer calls the keys equal: the label the student reads follows the tilt, and back at 0
    assert _kernel_label(page) == "dot product, tilted keys"
    set_model_prop(page, "keynorm_slider", "value", 0.0)
    page.wait_for_function(f"() => ({KERNEL_LABEL_JS})() === 'dot product, equal-norm keys'")
    set_model_prop(page, "keynorm_slider", "value", 0.25)
    page.wait_for_function(f"() => ({KERNEL_LABEL_JS})() === 'dot product, tilted keys'")

    # more changes, then Reset: back to the worked example
    set_model_prop(page, "query_slider", "value", 5.5)
    set_model_prop(page, "bandwidth_slider", "value", math.log10(3.0))
    model_element(page, "dataset_select", "select").select_option(label="bump")
    wait_prop(page, "dataset", "data", "(d) => d.x.length === 40")
    page.get_by_role("button", name="Reset", exact=True).click()
    wait_prop(page, "dataset", "data", "(d) => d.x.length === 24")
    wait_query(page, 3.2, 0)
    state, _ = check_against_core(page)
    assert state["kernel"] == "gaussian" and state["key_norm"] == 0
    assert state["bandwidth"] == pytest.approx(0.62, rel=1e-12)
    rows = readout_rows(page)
    assert [rows[k] for k in ("max weight", "entropy", "effective points", "prediction", "true f(x)")] == \
        list(WORKED_EXAMPLE)
    assert model_prop(page, "keynorm_slider", "visible") is False
    assert model_prop(page, "dataset_select", "value") == "default"


# The kernel menu's shown label: the selected option's text in the drawn <select>.
KERNEL_LABEL_JS = """() => { const v = Bokeh.index.find_one(Bokeh.documents[0].get_model_by_name('kernel_select'));
  const s = v && v.shadow_el.querySelector('select'); return s ? s.options[s.selectedIndex].textContent : null; }"""


def _kernel_label(page):
    page.wait_for_function(f"() => ({KERNEL_LABEL_JS})() !== null")
    return page.evaluate(KERNEL_LABEL_JS)


# Each slider title's text box (every line of it), the slider's box and the screen's width, for the sliders named.
SLIDER_TITLES_JS = """(names) => names.map((n) => {
  const v = Bokeh.index.find_one(Bokeh.documents[0].get_model_by_name(n)), t = v.shadow_el.querySelector('.bk-slider-title');
  const r = document.createRange(); r.selectNodeContents(t);
  const lines = [...r.getClientRects()].filter((b) => b.width > 0).map((b) => ({left: b.left, right: b.right, top: b.top,
                                                                                bottom: b.bottom}));
  const e = v.el.getBoundingClientRect();
  return {name: n, text: t.textContent, lines, box: {left: e.left, right: e.right}, screen: document.documentElement.clientWidth}; })"""


def check_slider_titles(page, names=("bandwidth_slider", "temperature_slider", "query_slider")):
    """Every line of each slider's title lies inside its slider and on the screen, and no two titles overlap."""
    titles = page.evaluate(SLIDER_TITLES_JS, list(names))
    for t in titles:
        assert t["lines"], t
        for b in t["lines"]:
            assert t["box"]["left"] - 0.5 <= b["left"] and b["right"] <= t["box"]["right"] + 0.5, t
            assert 0 <= b["left"] and b["right"] <= t["screen"], t
    boxes = [(t["name"], b) for t in titles for b in t["lines"]]
    for i, (n1, a) in enumerate(boxes):
        for n2, b in boxes[i + 1:]:
            if n1 != n2:
                apart = a["right"] <= b["left"] or b["right"] <= a["left"] or a["bottom"] <= b["top"] or b["bottom"] <= a["top"]
                assert apart, (n1, a, n2, b)
    return titles


@pytest.mark.parametrize("width", [390, 360])
def test_slider_titles_fit_on_a_phone_at_the_sliders_ends(browser, static_file, width):
    """At T = 0.001 and h = 0.005 the titles are at their longest ("temperature T: 0.00100"): on a phone each stays
    within its slider and the screen, its last digit included (a title wraps rather than run past the edge)."""
    ctx = browser.new_context(viewport={"width": width, "height": 800}, is_mobile=True, has_touch=True)
    page = ctx.new_page()
    try:
        block_outside(page)
        page.goto(static_file.as_uri() + "?temperature=0.001&bandwidth=0.005&tour=0")
        wait_ready(page)
        page.wait_for_function("() => Bokeh.index.find_one(Bokeh.documents[0].get_model_by_name('temperature_slider'))"
                               ".shadow_el.querySelector('.bk-slider-title').textContent.includes('0.00100')")
        titles = check_slider_titles(page)
        assert [t["text"].replace("\u00a0", " ") for t in titles[:2]] == ["bandwidth h: 0.00500", "temperature T: 0.00100"]
        assert page.evaluate("() => document.documentElement.scrollWidth") <= width   # nothing runs past the screen
    finally:
        ctx.close()


def test_a_far_key_that_wins_by_its_length_is_named_not_called_nearest(offline):
    """Dot product at the largest key-norm tilt (0.25), x = 3.2: nearly all the weight goes to one far sample,
    which is not the nearest; the notice says a longer key wins wherever the query is, the caption names the tilt,
    and moving the query keeps the winner."""
    page = offline
    open_more_controls(page)
    model_element(page, "kernel_select", "select").select_option(label="dot product, equal-norm keys")
    wait_prop(page, "keynorm_slider", "visible", "(v) => v === true")
    set_model_prop(page, "keynorm_slider", "value", 0.25)
    page.wait_for_function("() => Bokeh.documents[0].get_model_by_name('limits').text.includes('not the nearest')")
    state, r = check_against_core(page)   # the notice is the core's, word for word
    winner = core_heaviest(state)
    assert state["key_norm"] == 0.25 and r.max_weight >= 0.95 and not winner["nearest"]
    assert core_curve_facts(state)["winners"] == 1
    (note,) = shown_paragraphs(page, "limits")
    assert f"x = {text._signed(winner['x'], 2)}" in note and "not the nearest" in note and "rewards" in note
    assert "wins wherever the query is" in note and "1-nearest-neighbour" not in note
    assert "key-norm tilt 0.25" in shown_paragraphs(page, "caption")[0]

    set_model_prop(page, "query_slider", "value", 1.0)
    page.wait_for_function("() => Bokeh.documents[0].get_model_by_name('caption').text.includes('x = 1.00 ')")
    state, r = check_against_core(page)
    assert core_heaviest(state)["x"] == winner["x"] and f"x = {text._signed(winner['x'], 2)}" in \
        shown_paragraphs(page, "limits")[0]

    # back to equal norms with a tiny bandwidth: now the nearest sample wins, and the notice says so
    set_model_prop(page, "keynorm_slider", "value", 0.0)
    set_model_prop(page, "bandwidth_slider", "value", math.log10(0.01))
    page.wait_for_function("() => Bokeh.documents[0].get_model_by_name('limits').text.includes('1-nearest')")
    check_against_core(page)
    assert "key-norm tilt" not in shown_paragraphs(page, "caption")[0]


def test_generator_draws_the_cores_seeded_dataset(offline):
    """The generator behind "More controls" draws attention.make_dataset's samples in the browser
    (attention/generator.js), offline as served."""
    page = offline
    open_more_controls(page)
    page.get_by_label("true function").select_option("bump")
    for label, value in (("samples n", "37"), ("noise", "0.5"), ("seed", "5")):
        box = page.get_by_label(label, exact=True)
        box.fill(value)
        box.press("Enter")
    page.get_by_role("button", name="Generate").click()
    wait_prop(page, "dataset", "data", "(d) => d.x.length === 37", timeout=30000)
    want = attention.make_dataset("bump", 37, 0.5, 5)
    state, _ = check_against_core(page)
    assert state["x"] == want.x.tolist() and state["y"] == want.y.tolist()
    assert len(source_data(page, "samples")["x"]) == 37
    assert model_prop(page, "dataset_select", "value") == "generated"
    meta = json.loads(state["meta"])
    assert (meta["function"], meta["noise"]) == ("bump", 0.5)
    page.wait_for_function("() => new URLSearchParams(location.search).get('seed') === '5'")   # the link carries it
    # choosing "generated" in the dataset select draws again from the generator's fields
    model_element(page, "dataset_select", "select").select_option(label="default")
    wait_prop(page, "dataset", "data", "(d) => d.x.length === 24")
    model_element(page, "dataset_select", "select").select_option(label="generated (seeded)")
    wait_prop(page, "dataset", "data", "(d) => d.x.length === 37", timeout=30000)
    assert page_state(page)["x"] == want.x.tolist()


@pytest.mark.both_ways   # a Web Worker under the served page's Content-Security-Policy
def test_a_large_datasets_error_curves_come_from_a_worker_as_the_core_computes_them(open_page):
    """400 samples: the error curves against h (400 x 400 pairs at each bandwidth) are worked out in a Web Worker,
    served (under the page's Content-Security-Policy) and offline (from a file), and equal the core's."""
    workers = []
    open_page.watch.page.on("worker", lambda w: workers.append(w.url))
    page = open_page("?dataset=large")
    draw(page, "regression-bias")
    page.wait_for_function("() => { const s = Bokeh.documents[0].get_model_by_name('hcurve').data;"
                           " return s.loo.length > 0 && s.loo.every(Number.isFinite); }", timeout=60000)
    assert workers and all(u.startswith("blob:") for u in workers), workers
    d = attention.load_dataset("large")
    curves = source_data(page, "hcurve")
    hs = np.asarray(curves["h"])
    np.testing.assert_allclose(curves["loo"], attention.loo_error(d.x, d.y, bandwidths=hs), rtol=0, atol=1e-9)
    bv = attention.bias_variance(d.x, d.true_function, noise=d.noise, bandwidths=hs, n_resamples=None)
    for k in ("bias2", "variance", "error"):
        np.testing.assert_allclose(curves[k], bv[k], rtol=0, atol=1e-9)
    check_against_core(page)


# Every write of the samples, of the curves over x and of the error curves against h after the dataset menu
# changes to `name`, with the frames between them and each Worker started, until an entry named `until` is
# filled (n > 0, or finite): ['samples', n], ['curve', n], ['hcurve', every value finite], ['frame'], ['worker'].
NEW_DATA_ORDER_JS = """async ([name, until]) => {
  const d = Bokeh.documents[0], log = [], W = window.Worker;
  window.Worker = function (...a) { log.push(['worker']); return new W(...a); };
  const hear = (src, entry) => d.get_model_by_name(src).properties.data.change.connect(() => log.push(entry()));
  hear('samples', () => ['samples', d.get_model_by_name('samples').data.x.length]);
  hear('curve', () => ['curve', d.get_model_by_name('curve').data.x.length]);
  hear('hcurve', () => { const l = d.get_model_by_name('hcurve').data.loo;
    return ['hcurve', l.length > 0 && l.every(Number.isFinite)]; });
  let on = true;
  const tick = () => { if (!on) return; log.push(['frame']); requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
  d.get_model_by_name('dataset_select').value = name;
  while (!log.some((e) => e[0] === until && (e[1] === true || e[1] > 0))) await new Promise((r) => setTimeout(r, 10));
  on = false;
  window.Worker = W;
  return log;
}"""


def test_new_data_clears_the_old_errors_at_once_and_asks_the_worker_after_the_samples_are_shown(offline,
                                                                                                static_file):
    """From 1000 generated samples to the 400 of "large": the error curves of the old data go in the task of the
    change (they would lie about the new data), before the samples are written; the Worker is asked only after a
    frame has shown the samples (starting a Worker costs the change milliseconds), and its answer is the core's."""
    page = offline
    page.goto(static_file.as_uri() + "?dataset=generated&fn=wave&n=1000&noise=0.3&seed=0")
    wait_ready(page)
    draw(page, "regression-bias")
    page.wait_for_function("() => { const s = Bokeh.documents[0].get_model_by_name('hcurve').data;"
                           " return s.loo.length > 0 && s.loo.every(Number.isFinite); }", timeout=60000)
    log = page.evaluate(NEW_DATA_ORDER_JS, ["large", "hcurve"])
    samples = next(i for i, e in enumerate(log) if e[0] == "samples")
    cleared = next(i for i, e in enumerate(log) if e[0] == "hcurve")
    assert log[cleared] == ["hcurve", False] and cleared < samples, log
    worker = log.index(["worker"])
    answered = next(i for i, e in enumerate(log) if e == ["hcurve", True])
    assert ["frame"] in log[samples:worker] and worker < answered, log
    d = attention.load_dataset("large")
    curves = source_data(page, "hcurve")
    np.testing.assert_allclose(curves["loo"], attention.loo_error(d.x, d.y, bandwidths=np.asarray(curves["h"])),
                               rtol=0, atol=1e-9)


def test_the_reference_is_folded_until_a_student_opens_it(offline):
    """The formulas behind the plots sit in a closed disclosure at first; one click (or Enter) opens it."""
    page = offline
    draw(page, "regression-explain")  # a lower block: drawn now, as a scroll to it would, not when the loader idles
    summary = page.get_by_text("What you are looking at: the formulas behind the plots")
    summary.wait_for()
    detail = page.get_by_text("Not a Kalman filter.")
    assert not detail.is_visible()
    summary.click()
    detail.wait_for(state="visible")
    summary.click()
    detail.wait_for(state="hidden")


def test_many_new_samples_are_drawn_first_and_their_curves_a_frame_later(offline):
    """400 samples (more than worker_above_n): the samples and the query are drawn in the task of the change, with
    no curve (the old one would not fit the new data); the curves over x follow after a frame, from the core's
    weights, and the page's texts count as settled only once they are in."""
    page = offline
    log = page.evaluate(NEW_DATA_ORDER_JS, ["large", "curve"])
    first_samples = next(i for i, e in enumerate(log) if e == ["samples", 400])
    cleared = next(i for i, e in enumerate(log) if e[0] == "curve")
    filled = next(i for i, e in enumerate(log) if e[0] == "curve" and e[1] > 0)
    assert log[cleared] == ["curve", 0] and cleared < filled, log
    assert ["frame"] in log[first_samples:filled], f"the curves were worked out before a frame showed the samples: {log}"
    check_against_core(page)
    state = page_state(page)
    d = attention.load_dataset("large")
    curve = source_data(page, "curve")
    pred = attention.predict(np.asarray(curve["x"]), d.x, d.y, bandwidth=state["bandwidth"],
                             temperature=state["temperature"])
    np.testing.assert_allclose(curve["pred"], np.asarray(pred).reshape(-1), rtol=0, atol=1e-9)


def _drawn_samples(page) -> dict:
    return {name: source_data(page, name) for name in ("samples", "sample_marks", "sample_dots", "weight_stems",
                                                        "weight_tops")}


def _on_white(hex_colour: str, alpha: float) -> str:
    v = [round(255 - alpha * (255 - int(hex_colour[i:i + 2], 16))) for i in (1, 3, 5)]
    return f"rgb({v[0]}, {v[1]}, {v[2]})"


def _check_stems(d: dict) -> None:
    """Every sample's stem runs from 0 to its weight, and its top sits at its weight, one line with NaN between."""
    s, n = d["samples"], len(d["samples"]["x"])
    for src, y0 in (("weight_stems", 0.0), ("weight_tops", None)):
        xs, ys = np.asarray(d[src]["x"], float), np.asarray(d[src]["y"], float)
        assert len(xs) == 3 * n and np.isnan(xs[2::3]).all() and np.isnan(ys[2::3]).all()
        np.testing.assert_allclose(xs[0::3], s["x"], rtol=0, atol=0)
        np.testing.assert_allclose(ys[1::3], s["w"], rtol=0, atol=0)
        np.testing.assert_allclose(ys[0::3], s["w"] if y0 is None else y0, rtol=0, atol=0)
        # the tops are strokes a tenth of a pixel long, the stems vertical
        assert np.all(xs[1::3] - xs[0::3] > 0) if y0 is None else np.array_equal(xs[1::3], xs[0::3])


def test_what_the_plots_draw_of_the_samples_follows_their_weights_at_any_n(offline):
    """Up to dots_above_n samples the main plot draws a marker each (size and colour from the weight); beyond, dots
    grouped by look, each sample in exactly one group whose colour is the palette's bin of its normalised weight
    and whose width is its marker's size to within half a step.  The weights plot draws every stem and its top
    in one line each.  Checked against the samples the core's weights fill, before and after the query moves."""
    page = offline
    d = _drawn_samples(page)
    assert d["sample_marks"]["x"] == d["samples"]["x"] and d["sample_marks"]["size"] == d["samples"]["size"]
    assert d["sample_marks"]["wn"] == d["samples"]["wn"] and d["sample_dots"]["xs"] == []
    _check_stems(d)

    n = 3 * DOTS_ABOVE_N
    page.goto(page.url.split("?")[0] + f"?dataset=generated&fn=wave&n={n}&noise=0.3&seed=2")
    wait_ready(page)
    wait_prop(page, "samples", "data", f"(d) => d.x.length === {n}")
    for query in (None, 1.3):
        if query is not None:
            set_model_prop(page, "query_slider", "value", query)
            wait_prop(page, "query_span", "location", f"(v) => v === {query}")
        check_against_core(page)
        d = _drawn_samples(page)
        s, dots = d["samples"], d["sample_dots"]
        assert d["sample_marks"]["x"] == []
        assert len(dots["xs"]) % 2 == 0 and len(dots["xs"]) >= 2
        rims, fills = range(0, len(dots["xs"]), 2), range(1, len(dots["xs"]), 2)
        alpha = min(0.9, max(0.3, math.sqrt(60 / n)))
        sc = min(1.0, max(0.3, math.sqrt(40 / n)))
        group_of = {}
        for k in fills:
            xs = np.asarray(dots["xs"][k], float)
            for col in ("xs", "ys"):
                assert np.array_equal(np.asarray(dots[col][k - 1], float), np.asarray(dots[col][k], float),
                                      equal_nan=True)
            assert dots["color"][k - 1] == "#222222" and dots["alpha"][k - 1] == pytest.approx(alpha)
            assert dots["width"][k - 1] - dots["width"][k] == pytest.approx(1.0) or dots["width"][k] == 0.5
            for x, y in zip(xs[0::3], np.asarray(dots["ys"][k], float)[0::3]):
                assert (x, y) not in group_of, "a sample drawn twice"
                group_of[(x, y)] = k
        assert len(group_of) == n, "every sample drawn once"
        for x, y, wn, size in zip(s["x"], s["y"], s["wn"], s["size"]):
            k = group_of[(x, y)]
            assert dots["color"][k] == _on_white(WEIGHT_PALETTE[min(9, int(wn * 10))], 1 - (1 - alpha) ** 2)
            assert abs((dots["width"][k - 1] - 0.5) - size) <= sc * 18 / 48 + 1e-9
        # lightest group first, so the heavy samples are drawn on top
        first = [min(wn for (x, y), wn in zip(zip(s["x"], s["y"]), s["wn"]) if group_of[(x, y)] == k) for k in fills]
        assert first == sorted(first)
        _check_stems(d)


def test_in_forced_colours_the_curve_and_the_query_line_still_show(offline):
    """Issue 47: under forced colours (Windows' contrast themes; Chromium's emulation) the page's HTML takes the
    theme's colours, and the canvas keeps its own: the prediction curve and the query line still differ from the
    plot's background in pixels, where they are drawn."""
    import io

    from PIL import Image

    from app.ui.theme import BLUE

    page = offline
    page.emulate_media(forced_colors="active")
    assert page.evaluate("() => matchMedia('(forced-colors: active)').matches")
    wait_frames(page, 3)
    g = plot_geometry(page)
    shot = Image.open(io.BytesIO(page.screenshot())).convert("RGB")
    ratio = shot.width / page.evaluate("innerWidth")
    px = lambda x, y: shot.getpixel((int(x * ratio), int(y * ratio)))   # noqa: E731
    far = lambda a, b: sum(abs(p - q) for p, q in zip(a, b)) > 90        # noqa: E731
    background = px(g["left"] + 3, g["top"] + 3)
    q = model_prop(page, "query_slider", "value")
    column = [px(data_to_page_x(g, q), g["top"] + g["height"] * k / 40) for k in range(2, 39)]
    assert sum(far(c, background) for c in column) >= 0.9 * len(column)   # the query line, top to bottom
    blue = tuple(int(BLUE[i:i + 2], 16) for i in (1, 3, 5))
    x = data_to_page_x(g, 1.0)
    curve = [px(x, g["top"] + y) for y in range(2, int(g["height"]) - 2)]
    assert any(not far(c, blue) and far(c, background) for c in curve)      # the prediction curve crosses x = 1
