"""Your own data on the page (issue 28): pasted, dropped, chosen, carried by a link's fragment or by the page itself.

The page reads the data with app/ui/userdata.js (held to app/userdata/ by test_userdata_parity.py); these tests
drive the whole page: the box under "More controls", the dataset menu, the link, the learning section, the tour,
against the numpy core on the same arrays, in the exported file.  The served page (`attention-explorable serve`,
the page at /) is the same bytes under the server's headers at an http address: the link's round trip runs there,
and one served page takes a paste (checked against the core), a dropped file and every bad input; the file of
`export --data` is opened from a plain http server too.

Run as a script, this module takes the README's screenshot (tests/browser/screenshots/screenshot-own-data.png)
and measures paste-to-drawn times and link lengths:  .venv/bin/python -m tests.browser.test_own_data
"""

from __future__ import annotations

import html
import json
import math
import re
import subprocess
import sys

import numpy as np
import pytest

import attention
from app import userdata as u
from app.learning.view import H0
from app.regression import text
from app.regression.view import H_GRID
from app.learning.state import BANDWIDTH_LR_PRESETS
from tests.browser.pageutil import (ROOT, SAID_JS, axe_violations, block_outside, draw, free_port, model_element, model_prop,
                                    open_more_controls, set_model_prop, shown_paragraphs, source_data, wait_ready,
                                    wait_settled, wait_texts)
from tests.core.test_userdata import LONG_HEAD, LONG_ROW_JS, long_row

EXAMPLE = ROOT / "data" / "examples" / "temperatures.csv"
YEAR_TEXT = EXAMPLE.read_text(encoding="utf-8")
YEAR = u.read_csv_file(EXAMPLE)
SLOW = 90000   # ms: a served page and a 2000-point dataset take seconds on a busy machine
TOL = 1e-9


# ---- driving the page ----------------------------------------------------------------------------------

def open_box(page):
    """Open "More controls" and wait until the data box is drawn and listening."""
    open_more_controls(page)
    draw(page, "regression-more")
    page.wait_for_function("""() => { const v = Bokeh.index.find_one(Bokeh.documents[0].get_model_by_name('own_data_form'));
      const r = v && v.shadow_el && v.shadow_el.querySelector('.own'); return !!(r && r.__attnWired); }""", timeout=SLOW)


def put_text(page, data_text, head="", times=1):
    """Put text into the box as a paste does (the value, then an input event: Playwright's fill types it); the
    text is head + data_text repeated ``times`` times, put together in the page (a long text costs nothing to send)."""
    page.locator("textarea.own-text").evaluate("""(el, [head, t, k]) => { el.focus(); el.value = head + t.repeat(k);
      el.dispatchEvent(new InputEvent('input', { bubbles: true, inputType: 'insertFromPaste' })); }""",
                                               [head, data_text, times])


def paste(page, data_text, head="", times=1):
    """Paste into the box (as put_text puts it) and press "Use this data"."""
    open_box(page)
    put_text(page, data_text, head, times)
    page.locator("button.own-use").click()


def shown_data(page):
    """What the page shows: its dataset source (x on the sliders' scale, y, xu in the data's units) and tag."""
    d = source_data(page, "dataset")
    d["tag"] = json.loads(model_prop(page, "dataset", "tags")[0])
    return d


def wait_data(page, n, timeout=SLOW):
    """Wait until the page shows n points of your data, its readouts written for them."""
    page.wait_for_function("""(n) => { const m = (k) => Bokeh.documents[0].get_model_by_name(k), ds = m('dataset');
      let tag = {}; try { tag = JSON.parse(ds.tags[0]); } catch (e) {}
      return tag.name === 'yours' && ds.data.x.length === n && m('readouts').text.includes(`of ${n}<`); }""",
                           arg=n, timeout=timeout)
    wait_texts(page, timeout=timeout)


def status(page):
    return shown_paragraphs(page, "own_data_status")


def readouts(page):
    wait_texts(page)
    rows = re.findall(r'<th scope="row">(.*?)</th><td>(.*?)</td>', model_prop(page, "readouts", "text"))
    return {html.unescape(k): html.unescape(v) for k, v in rows}


def _drop(page, selector, fill_js, arg):
    """Drop on an element what ``fill_js`` (a JavaScript function of a DataTransfer and ``arg``) puts into a
    DataTransfer, as a browser does (drop events cross the shadow root, as a real drop's do)."""
    page.locator(selector).first.evaluate(f"""(el, arg) => {{
      const dt = new DataTransfer();
      ({fill_js})(dt, arg);
      for (const type of ['dragenter', 'dragover', 'drop'])
        el.dispatchEvent(new DragEvent(type, {{ dataTransfer: dt, bubbles: true, composed: true, cancelable: true }}));
    }}""", arg)


def drop_file(page, name, content: bytes, mime="text/csv", selector=".own"):
    """Drop a file of these bytes on an element."""
    _drop(page, selector, """(dt, [name, bytes, mime]) =>
      dt.items.add(new File([new Uint8Array(bytes)], name, { type: mime }))""", [name, list(content), mime])


def drop_long_file(page, n, name="long.csv"):
    """Drop a CSV file of n rows of tests/core/test_userdata.py's long_row, made in the page, on the box."""
    _drop(page, ".own", f"""(dt, [name, head, n]) => {{ const row = {LONG_ROW_JS}, parts = [head];
      for (let i = 0; i < n; i++) parts.push(row(i));
      dt.items.add(new File(parts, name, {{ type: 'text/csv' }})); }}""", [name, LONG_HEAD, n])


# 17 MB of text on three lines, made in the page (a box of millions of lines stalls Chromium's layout for minutes)
BIG_TEXT = ["x,y\n1,2\n2,3\n", " ", 17_000_000 - 12]


def paste_event(page, head, t, k):
    """A paste of head + t repeated k times into the box, as the browser sends it (the text in the event)."""
    open_box(page)
    page.locator("textarea.own-text").evaluate("""(el, [head, t, k]) => { const dt = new DataTransfer();
      dt.setData('text/plain', head + t.repeat(k)); el.focus();
      el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true })); }""",
                                               [head, t, k])


def drop_text(page, head, t, k):
    """Text (not a file) dragged onto the box: head + t repeated k times."""
    _drop(page, ".own", "(dt, [head, t, k]) => dt.setData('text/plain', head + t.repeat(k))", [head, t, k])


def box_length(page):
    return page.locator("textarea.own-text").evaluate("(el) => el.value.length")


@pytest.fixture
def page_at(request, watch):
    """The page offline (the exported file, every request outside it refused), or served (the page at / of
    `attention-explorable serve`) for a test that parametrizes it indirectly with "served"; page_at(query) opens
    it and waits until it is drawn."""
    if getattr(request, "param", "static") == "static":
        base = request.getfixturevalue("static_file").as_uri()
        block_outside(watch.page)
        allowed = ["file:", "data:", "blob:"]
    else:
        base = request.getfixturevalue("served_page")
        allowed = [base, "data:", "blob:"]
    watch.page.set_default_timeout(SLOW)

    def go(tail=""):
        watch.page.goto(base + tail)
        wait_ready(watch.page, timeout=SLOW)
        return watch.page

    go.base = base
    yield go
    assert watch.console_errors() == []
    assert watch.outside_requests(allowed) == []


# ---- the core on the same arrays -------------------------------------------------------------------------

def core_state(page):
    """The page's state in the data's units: query and h·√T through the scale the page used."""
    d = shown_data(page)
    s = u.scale_for(d["xu"])
    q, logh, logt = (model_prop(page, n, "value") for n in ("query_slider", "bandwidth_slider", "temperature_slider"))
    return d, s, q, 10 ** logh, 10 ** logt


def check_against_core(page, kernel="gaussian", key_norm=0.0):
    """Weights, prediction, entropy, the prediction curve, the leave-one-out curve and readout, the caption and
    the limit notices of the page equal the core's on the data in their own units (h scaled with x)."""
    wait_texts(page)
    d, s, q, h, t = core_state(page)
    x, y = np.asarray(d["xu"]), np.asarray(d["y"])
    assert d["tag"]["scale"]["scaled"] == s.scaled and d["x"] == pytest.approx(s.from_units(x), abs=1e-12)
    ks = attention.key_norm_tilt(x, key_norm) if kernel == "dot" and key_norm else None
    opt = dict(kernel=kernel, temperature=t, key_scale=ks)
    r = attention.readout(s.to_units(q), x, y, bandwidth=s.h_to_units(h), **opt)
    samples, qpred = source_data(page, "samples"), source_data(page, "qpred")
    w = attention.weights(s.to_units(q), x, bandwidth=s.h_to_units(h), **opt)
    np.testing.assert_allclose(samples["w"], np.asarray(w).reshape(-1), rtol=0, atol=TOL)
    assert (max(samples["w"]), r.max_weight) == pytest.approx((r.max_weight, max(samples["w"])), abs=TOL)
    assert qpred["y"][0] == pytest.approx(r.prediction, abs=TOL)
    curve = source_data(page, "curve")
    grid_units = s.to_units(np.asarray(curve["x"]))
    pred = attention.predict(grid_units, x, y, bandwidth=s.h_to_units(h), **opt)
    np.testing.assert_allclose(curve["pred"], np.asarray(pred).reshape(-1), rtol=0, atol=TOL)
    # the error curves against h (at T = 1) on the grid of h's, scaled to the data's units; a large dataset's
    # come from a Web Worker (NaN meanwhile, or the last state's): wait for this state's first value
    hs = np.geomspace(*H_GRID)
    loo = attention.loo_error(x, y, bandwidths=s.h_to_units(hs), kernel=kernel, key_scale=ks)
    draw(page, "regression")   # (their plot's block: the page works them out once it is drawn)
    page.wait_for_function("(v) => Math.abs(Bokeh.documents[0].get_model_by_name('hcurve').data.loo[0] - v) <= 1e-9",
                           arg=loo[0], timeout=SLOW)
    hc = source_data(page, "hcurve")
    np.testing.assert_allclose(hc["h"], hs, rtol=1e-12)
    np.testing.assert_allclose(hc["loo"], loo, rtol=1e-9, atol=TOL)
    assert all(math.isnan(v) for v in hc["bias2"])    # no true function: bias² and variance are not drawn
    # the readouts' error: the leave-one-out error at h·√T (a large dataset's from a worker, once h rests)
    here = attention.loo_error(x, y, bandwidths=[s.h_to_units(h * math.sqrt(t))], kernel=kernel, key_scale=ks)[0]
    page.wait_for_function("(v) => Bokeh.documents[0].get_model_by_name('readouts').text.includes(`<td>${v}</td>`)",
                           arg=text.plain(here, 3), timeout=SLOW)
    rows = readouts(page)
    assert rows["leave-one-out error"] == text.plain(here, 3)
    assert rows[f"prediction ({d['tag']['y_name']})"] == text._signed(r.prediction, 2)
    assert "true f(x)" not in rows and "error" not in rows
    # the words, character for character (app/regression/text.py's twins), from the readout on the sliders' scale
    tilt = key_norm if kernel == "dot" else 0.0
    span = float(x.max() - x.min())
    xs = np.asarray(d["x"])
    page_opt = dict(opt, key_scale=attention.key_norm_tilt(xs, key_norm) if ks is not None else None)
    page_r = attention.readout(q, xs, y, bandwidth=h, **page_opt)
    words = text.units_words(d["tag"]["x_name"], s, span, q, h)
    assert shown_paragraphs(page, "caption") == [text.caption(page_r, kernel=kernel, bandwidth=h, temperature=t,
                                                              key_norm=tilt, units=words)]
    at = lambda v: f"{d['tag']['x_name']} = {text.unit_text(s.to_units(v), span)}"  # noqa: E731
    heaviest = text.heaviest_sample(q, xs, y, samples["w"])
    grid = np.asarray(curve["x"])
    facts = text.curve_facts(grid, xs, np.asarray(attention.weights(grid, xs, bandwidth=h, **page_opt)), y)
    assert shown_paragraphs(page, "limits") == text.limit_notices(page_r, heaviest, facts, tilt, at=at)
    return d, s


# ---- every word true on your data ---------------------------------------------------------------------------

# 30 days of the year, as the issue pasted them
MONTH_TEXT = "".join(YEAR_TEXT.splitlines(keepends=True)[:31])
NAMES_THE_TRUTH = re.compile(r"bias|variance|\u03c3|worked example|true\sf\(x\)|noise has", re.I)


def test_with_your_data_every_word_follows_them(page_at):
    """After a paste, no visible text names the worked example's noise, bias² or variance, except the one sentence
    under the error plot that says they cannot be computed; the plot's title and legend show the leave-one-out
    error alone; the learning text names the h training starts at, as its readout shows it.  The shipped data
    bring the words back."""
    from tests.browser.test_length import TEXT_JS

    page = page_at()
    paste(page, MONTH_TEXT)
    wait_data(page, 30)
    assert page.evaluate("async () => { for (const s of document.querySelectorAll('section[data-section]')) "
                         "await AttnPage.ensure(s.getAttribute('data-section')); return AttnPage.allDrawn(); }")
    page.wait_for_function("() => Bokeh.documents[0].get_model_by_name('learn_bw_readout').text.includes('(day)')")
    wait_texts(page)
    fig = "Bokeh.documents[0].get_model_by_name('bias_variance_plot')"
    assert page.evaluate(f"() => {fig}.title.text") == text.BIAS_TITLES["own"]
    legend = model_prop(page, "bias_legend", "text")
    assert "leave-one-out\u00a0error" in legend and not NAMES_THE_TRUTH.search(legend)   # (held on one line)
    note = model_prop(page, "bias_note", "text")
    assert note == text.bias_note(None, own=True) and "cannot be computed" in note
    runs = page.evaluate(TEXT_JS, {"skip": []})["runs"]
    named = [r["text"] for r in runs if NAMES_THE_TRUTH.search(r["text"]) and "cannot be computed" not in r["text"]]
    assert named == []
    said = [r["text"] for r in runs if "cannot be computed" in r["text"]]
    assert len(said) == 1 and said[0].startswith("Your data have no known true function")
    assert axe_violations(page) == []   # issue 47: your own data loaded, every block drawn
    # where the student looks: right under the plot and its legend, on screen with the plot's top
    top = model_element(page, "bias_variance_plot").bounding_box()["y"]
    page.evaluate("(y) => scrollBy({top: y, behavior: 'instant'})", top - 8)
    wait_settled(page, scroll_only=True)
    plot = model_element(page, "bias_variance_plot").bounding_box()
    para = model_element(page, "bias_note", "p.dataset").bounding_box()
    assert 0 <= para["y"] - (plot["y"] + plot["height"]) <= 160, (plot, para)
    assert para["y"] + para["height"] <= page.viewport_size["height"]
    # the learning text's starting h is the readout's at step 0, in the data's units
    start = re.search(r"Step 0 of \d+</b>: (h = [^,]+ \(day\)),", model_prop(page, "learn_bw_readout", "text"))
    assert start, model_prop(page, "learn_bw_readout", "text")
    s = u.scale_for(YEAR.x[:30])
    assert start.group(1) == f"h = {text.plain(s.h_to_units(H0), 4)} (day)"
    assert f"Training starts at {start.group(1)}," in model_prop(page, "learn_bw_text", "text")
    # and how sharply a query attends there, on these data (issue 46): the core's numbers, the core's words
    from app.learning import text as learning_text
    from app.learning.view import start_focus
    focus = start_focus(s.from_units(YEAR.x[:30]))
    said = html.unescape(model_prop(page, "learn_bw_text", "text"))
    assert learning_text.start_sentence(start.group(1), *focus) in said, said
    # back to the shipped data: the worked example's words again
    set_model_prop(page, "dataset_select", "value", "default")
    page.wait_for_function(f"() => {fig}.title.text === 'Bias and variance'")
    page.wait_for_function("(t) => Bokeh.documents[0].get_model_by_name('bias_note').text === t",
                           arg=text.bias_note(0.3))
    assert "variance" in model_prop(page, "bias_legend", "text")
    page.wait_for_function("() => Bokeh.documents[0].get_model_by_name('learn_bw_text').text"
                           ".includes('Training starts at h = 0.15,')")


@pytest.mark.parametrize("width", [360, 390])
def test_slider_titles_with_the_datas_units_fit_a_phone(browser, static_file, width):
    """With your data the sliders' titles carry the unit ("bandwidth h: 37.6 (day)"); on a phone each title wraps
    inside its slider instead of running into the next one ("temperature T")."""
    from tests.browser.test_regression_page import check_slider_titles

    ctx = browser.new_context(viewport={"width": width, "height": 800}, is_mobile=True, has_touch=True)
    page = ctx.new_page()
    page.set_default_timeout(SLOW)
    try:
        block_outside(page)
        page.goto(static_file.as_uri() + "?tour=0&temperature=0.001")
        wait_ready(page, timeout=SLOW)
        paste(page, YEAR_TEXT)
        wait_data(page, 365)
        page.evaluate("() => scrollTo({top: 0, behavior: 'instant'})")
        page.wait_for_function("""() => Bokeh.index.find_one(Bokeh.documents[0].get_model_by_name('bandwidth_slider'))
          .shadow_el.querySelector('.bk-slider-title').textContent.includes('(day)')""")
        titles = check_slider_titles(page)
        assert "(day)" in titles[0]["text"] and "temperature T" in titles[1]["text"]
    finally:
        ctx.close()


# ---- paste, drop, choose ---------------------------------------------------------------------------------

def test_pasted_data_drive_the_page_in_their_units(page_at):
    page = page_at()
    paste(page, YEAR_TEXT)
    wait_data(page, 365)
    d = shown_data(page)
    assert d["xu"] == YEAR.x.tolist() and d["y"] == YEAR.y.tolist()
    assert (d["tag"]["x_name"], d["tag"]["y_name"]) == ("day", "temp_c")
    assert model_prop(page, "dataset_select", "value") == "yours"
    assert ["yours", "your data"] in model_prop(page, "dataset_select", "options")
    # the axes and sliders speak the data's units; x was rescaled for the sliders, and the page says so
    assert shown_paragraphs(page, "dataset_description") == [
        "365 points of temp_c against day: your data.", u.scale_for(YEAR.x).sentence]
    labels = page.evaluate("""() => { const f = (n) => Bokeh.documents[0].get_model_by_name(n);
      const lab = (ax) => typeof ax.axis_label === 'string' ? ax.axis_label : ax.axis_label.text;
      return [lab(f('main_plot').below[0]), lab(f('main_plot').left[0]), lab(f('weights_plot').below[0]),
              lab(f('entropy_x_plot').below[0]), lab(f('bias_variance_plot').below[0])]; }""")
    assert labels == ["day", "temp_c", "day", "query day", "bandwidth h\u00b7\u221aT (day)"]
    slider = model_element(page, "query_slider", ".bk-slider-value").inner_text()
    s = u.scale_for(YEAR.x)
    assert slider == f"{text.unit_text(s.to_units(model_prop(page, 'query_slider', 'value')), 364.0)} (day)"
    assert model_element(page, "main_plot").is_visible()
    # no true function: its legend entry and readouts are gone, the bias-variance plot says why
    assert "f(x)" not in model_prop(page, "legend", "text")
    assert model_prop(page, "bias_note", "visible") is True
    assert model_prop(page, "bias_note", "text") == text.bias_note(None, own=True)
    assert status(page) == ["Showing your 365 points: temp_c against day."]
    check_against_core(page)


def test_the_columns_can_be_picked_from_a_header(page_at):
    page = page_at()
    table = "station,day,note,temp_c\n" + "".join(f"A,{i},n{i},{t}\n" for i, t in zip(YEAR.x[:40], YEAR.y[:40]))
    paste(page, table)
    wait_data(page, 40)
    assert (shown_data(page)["tag"]["x_name"], shown_data(page)["tag"]["y_name"]) == ("day", "temp_c")
    assert status(page) == ["Showing your 40 points: temp_c against day.", u.parse_text(table).notices[0]]
    # the pickers offer the header's names (set as text: a name is never markup); picking y = day, x = temp_c
    page.wait_for_function("() => document.querySelectorAll('body').length === 1")
    page.locator("select.own-x option").nth(4).wait_for(state="attached")
    opts = page.locator("select.own-x option").all_inner_texts()
    assert opts[1:] == ["station", "day", "note", "temp_c"]
    page.locator("select.own-y").select_option("day")
    page.locator("select.own-x").select_option("temp_c")
    page.wait_for_function("() => JSON.parse(Bokeh.documents[0].get_model_by_name('dataset').tags[0]).x_name === 'temp_c'")
    d = shown_data(page)
    ref = u.parse_text(table, x="temp_c", y="day")
    assert d["xu"] == ref.x.tolist() and d["y"] == ref.y.tolist()
    # the query slider writes the new data's units at once (its formatter is the same model, the scale is new)
    wait_texts(page)
    s2, q = u.scale_for(ref.x), model_prop(page, "query_slider", "value")
    want = f"{text.unit_text(s2.to_units(q), float(ref.x.max() - ref.x.min()))} (temp_c)"
    assert model_element(page, "query_slider", ".bk-slider-value").inner_text() == want


def test_a_dropped_or_chosen_file_is_read(page_at, tmp_path):
    page = page_at()
    open_box(page)
    drop_file(page, "temperatures.csv", EXAMPLE.read_bytes())
    wait_data(page, 365)
    assert shown_data(page)["xu"] == YEAR.x.tolist()
    assert status(page) == ["Showing your 365 points: temp_c against day.", "Read temperatures.csv."]
    # a file dropped anywhere on the page (not only on the box) is read too, rather than opened in its place
    week = "t;v\n" + "".join(f"{i};{i * 0.5:.1f}".replace(".", ",") + "\n" for i in range(7))
    drop_file(page, "week.csv", week.encode(), selector="main.attn-page")
    wait_data(page, 7)
    assert shown_data(page)["y"] == [i * 0.5 for i in range(7)]
    assert page.url.startswith(page_at.base.split("#")[0].split("?")[0])   # still the page, not the file
    # "Choose a file…"
    f = tmp_path / "temps.tsv"
    f.write_text(YEAR_TEXT.replace(",", "\t"), encoding="utf-8")
    page.locator("input.own-input").set_input_files(str(f))
    wait_data(page, 365)
    assert shown_data(page)["y"] == YEAR.y.tolist()


# ---- the link ----------------------------------------------------------------------------------------------

def paste_200_days(page):
    """Paste 200 of the year's days (about what a link carries) and wait for the link; returns their UserData."""
    idx = np.round(np.linspace(0, 364, 200)).astype(int)
    sub = u.from_arrays(YEAR.x[idx], YEAR.y[idx], "day", "temp_c")
    paste(page, "day,temp_c\n" + "".join(f"{u.number_text(a)},{u.number_text(b)}\n" for a, b in zip(sub.x, sub.y)))
    wait_data(page, 200)
    page.wait_for_function("() => location.hash.startsWith('#data1.')")
    return sub


@pytest.mark.parametrize("page_at", ["static", "served"], indirect=True)   # served: the link is an http address
def test_a_link_carries_200_points_and_opens_them(page_at, browser):
    page = page_at("?query=2.5")
    sub = paste_200_days(page)
    fragment = page.evaluate("() => location.hash")
    back = u.decode_fragment(fragment)        # the page's link opens in Python too, exactly
    assert back.x.tolist() == sub.x.tolist() and back.y.tolist() == sub.y.tolist()
    assert len(fragment) - 1 <= u.MAX_FRAGMENT_CHARS
    # the state keeps the fragment when the address follows a move, and "Copy a link" copies both
    set_model_prop(page, "query_slider", "value", 4.0)
    page.wait_for_function("() => new URLSearchParams(location.search).get('query') === '4'")
    assert page.evaluate("() => location.hash") == fragment
    model_element(page, "share_button", "button").click()
    page.wait_for_function("() => Bokeh.documents[0].get_model_by_name('share_status').text.length > 0")
    assert html.escape(page.url, quote=True) in model_prop(page, "share_status", "text")
    # the link, opened afresh, shows the same points at the same state
    other = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        p2 = other.new_page()
        p2.set_default_timeout(SLOW)
        if page_at.base.startswith("file:"):
            block_outside(p2)
        p2.goto(page.url)
        wait_ready(p2, timeout=SLOW)
        wait_data(p2, 200)
        d2 = shown_data(p2)
        assert d2["xu"] == sub.x.tolist() and d2["y"] == sub.y.tolist()
        assert model_prop(p2, "query_slider", "value") == 4.0
        assert readouts(p2) == readouts(page)
        # back to the shipped data: the fragment goes, and with it the data from a copied link
        open_box(p2)
        p2.locator("button.own-back").click()
        p2.wait_for_function("() => Bokeh.documents[0].get_model_by_name('dataset_select').value === 'default'")
        p2.wait_for_function("() => location.hash === ''")
        assert "true f(x)" in readouts(p2)
        # the menu still offers your data
        set_model_prop(p2, "dataset_select", "value", "yours")
        wait_data(p2, 200)
        p2.wait_for_function("(f) => location.hash === f", arg=fragment)
    finally:
        other.close()


def test_a_damaged_link_says_so_and_keeps_the_shipped_data(page_at):
    page = page_at("#data1.AAAA")
    page.wait_for_function("() => Bokeh.documents[0].get_model_by_name('notices').text.includes('damaged')")
    assert shown_paragraphs(page, "notices") == [u.SAY.damaged]
    assert shown_data(page)["tag"]["name"] == "default"


def test_too_many_points_for_a_link_are_offered_as_the_page_with_them_inside(static_file, watch, tmp_path):
    page = watch.page
    page.set_default_timeout(SLOW)
    block_outside(page)
    page.goto(static_file.as_uri())
    wait_ready(page, timeout=SLOW)
    rng = np.random.default_rng(28)
    n = 600                 # far more than a link carries (about 200 points), and quick to draw twice
    x = np.sort(rng.uniform(1990, 2024, n)).round(3)
    y = (np.sin(x) * 10 + rng.normal(size=n)).round(2)
    paste(page, "year,value\n" + "".join(f"{a},{b}\n" for a, b in zip(x, y)))
    wait_data(page, n)
    link_error = u.SAY.too_long_for_link(n, u.MAX_FRAGMENT_CHARS)
    model_element(page, "share_button", "button").click()
    page.wait_for_function("() => Bokeh.documents[0].get_model_by_name('share_status').text.includes('do not fit')")
    assert shown_paragraphs(page, "share_status")[0] == link_error
    assert page.evaluate("() => location.hash") == ""
    with page.expect_download() as dl:
        model_element(page, "share_status", "button.share-save").click()
    saved = tmp_path / "saved.html"
    dl.value.save_as(saved)
    got = saved.read_text(encoding="utf-8")
    carried = re.search(r'<script type="application/json" id="attn-data">(.*?)</script>', got, re.S).group(1)
    back = u.from_embedded(carried)
    assert back.x.tolist() == x.tolist() and back.y.tolist() == y.tolist()
    # the file as exported, the data added: the same skeleton (nothing drawn into it), head and scripts
    exported = static_file.read_text(encoding="utf-8")
    main = lambda page_html: re.search(r"<main.*?</main>", page_html, re.S).group(0)  # noqa: E731
    # (marked as carrying data: it opens on "Loading this state…", not on the file's own posters; ui/opening.js)
    assert got.count('id="attn-data"') == 1 and ' data-carries-data=""' in main(got)
    assert _markup(main(got).replace(' data-carries-data=""', "", 1)) == _markup(main(exported))
    tail = lambda page_html: re.sub(r"\s+", "", page_html.split("</main>")[1])  # noqa: E731
    assert tail(got.replace(re.search(r'<script type="application/json" id="attn-data">.*?</script>', got,
                                      re.S).group(0), "")) == tail(exported)
    # the saved page opens offline on the data, with nothing fetched
    p2 = watch.page.context.new_page()
    p2.set_default_timeout(SLOW)
    block_outside(p2)
    errors = []
    p2.on("pageerror", lambda e: errors.append(str(e)))
    p2.add_init_script("document.addEventListener('DOMContentLoaded', () => { window.__opening = "
                       "document.querySelector('main').getAttribute('data-opening'); });")
    p2.goto(saved.as_uri())
    wait_ready(p2, timeout=SLOW)
    assert p2.evaluate("() => window.__opening") == "loading"
    wait_data(p2, n)
    assert shown_data(p2)["xu"] == x.tolist()
    assert shown_paragraphs(p2, "dataset_description")[-1] == u.scale_for(x).sentence
    check_against_core(p2)
    assert errors == []


# ---- the whole page follows ----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def year_file(tmp_path_factory):
    """`attention-explorable export year.html --data temperatures.csv --x day --y temp_c`."""
    out = tmp_path_factory.mktemp("own") / "year.html"
    done = subprocess.run([sys.executable, "-m", "app.delivery.cli", "export", str(out), "--data", str(EXAMPLE),
                           "--x", "day", "--y", "temp_c"], cwd=ROOT, capture_output=True, text=True, check=True)
    assert done.stdout.startswith("notice: 365 points of temp_c against day from")
    return out


def open_year(watch, year_file, tail=""):
    page = watch.page
    page.set_default_timeout(SLOW)
    block_outside(page)
    page.goto(year_file.as_uri() + tail)
    wait_ready(page, timeout=SLOW)
    wait_data(page, 365)
    return page


def test_the_export_with_data_opens_on_them_and_equals_the_core(watch, year_file):
    from tests.browser.test_regression_page import spoken

    page = open_year(watch, year_file)
    assert shown_data(page)["xu"] == YEAR.x.tolist()
    check_against_core(page)
    # issue 47: on your data too, every slider's handle says the value its title shows, in the data's units, at
    # load and after Home, End, Page Up and three arrows
    said = spoken(page)
    assert {"query_slider", "bandwidth_slider", "temperature_slider"} <= set(said), said
    assert [n for n, (a, b) in said.items() if a != b] == [], said
    for name in ("query_slider", "bandwidth_slider", "temperature_slider"):
        model_element(page, name, ".noUi-handle").focus()
        for key in ("End", "Home", "PageUp", "ArrowRight", "ArrowRight", "ArrowRight"):
            before = model_prop(page, name, "value")
            page.keyboard.press(key)
            page.wait_for_function(f"() => Bokeh.documents[0].get_model_by_name('{name}').value !== {before}")
            a, b = spoken(page)[name]
            assert a == b, (name, key, a, b)
    # issue 47: the figures' descriptions give their axes' ranges in the data's units, as their ticks do, and the
    # error plot's says where its curve is lowest on the day axis
    from attention.datasets import X_RANGE

    sc, span = u.scale_for(YEAR.x), float(YEAR.x.max() - YEAR.x.min())
    days = f"day from {text.unit_text(sc.to_units(X_RANGE[0]), span)} to {text.unit_text(sc.to_units(X_RANGE[1]), span)}"
    draw(page, "regression")
    page.wait_for_function("(want) => ['weights_plot', 'bias_variance_plot'].map((n) => Bokeh.documents[0]"
                           ".get_model_by_name(n).html_attributes['aria-description'] || '').every((d, i) => "
                           "d.includes(want[i]))", arg=[days, "lowest"])
    bias = model_prop(page, "bias_variance_plot", "html_attributes")["aria-description"]
    assert "on the day axis" in bias and f"bandwidth h\u00b7\u221aT (day) from {text.length_text(sc.h_to_units(H_GRID[0]))}" in bias, bias
    for q, logh, logt in [(0.3, -1.2, 0.0), (5.8, 0.4, 0.5), (3.0, -0.5, -0.3)]:
        set_model_prop(page, "query_slider", "value", q)
        set_model_prop(page, "bandwidth_slider", "value", logh)
        set_model_prop(page, "temperature_slider", "value", logt)
        page.wait_for_function("(q) => Bokeh.documents[0].get_model_by_name('qpred').data.x[0] === q", arg=q)
        check_against_core(page)
    set_model_prop(page, "kernel_select", "value", "dot")
    set_model_prop(page, "keynorm_slider", "value", 0.1)
    page.wait_for_function("() => Bokeh.documents[0].get_model_by_name('caption').text.includes('tilt')")
    check_against_core(page, kernel="dot", key_norm=0.1)
    assert watch.console_errors() == []


def test_the_learning_section_trains_h_on_your_data_as_the_core_does(watch, year_file):
    page = open_year(watch, year_file)
    draw(page, "learning")
    page.wait_for_function("() => Bokeh.documents[0].get_model_by_name('learn_generated').data.h.length > 0",
                           timeout=SLOW)
    path = source_data(page, "learn_generated")
    s = u.scale_for(YEAR.x)
    lr = model_prop(page, "learn_lr_select", "value")
    assert lr in BANDWIDTH_LR_PRESETS
    core = attention.train_bandwidth(YEAR.x, YEAR.y, h0=s.h_to_units(H0), learning_rate=float(lr), steps=60)
    np.testing.assert_allclose(s.h_to_units(np.asarray(path["h"])), core.h, rtol=1e-6)
    np.testing.assert_allclose(path["loss"], core.loss, rtol=1e-6)
    # h in the data's units, in the readout and on the path's axis
    page.wait_for_function("() => Bokeh.documents[0].get_model_by_name('learn_bw_readout').text.includes('(day)')")
    assert f"h = {text.plain(s.h_to_units(path['h'][0]), 4)} (day)" in model_prop(page, "learn_bw_readout", "text")
    label = page.evaluate("() => Bokeh.documents[0].get_model_by_name('learn_path_plot').below[0].axis_label.text")
    assert label == "bandwidth h\u00b7\u221aT (day)"
    assert watch.console_errors() == []


def test_tour_reset_and_the_shipped_data_around_your_data(watch, year_file):
    page = open_year(watch, year_file, "?tour=1")
    # step 1 makes sense on any data: Show me keeps them
    model_element(page, "tour_show", "button").click()
    page.wait_for_function("() => Bokeh.documents[0].get_model_by_name('query_slider').value === 1")
    assert model_prop(page, "dataset_select", "value") == "yours" and model_prop(page, "tour_shipped_note", "visible") is False
    # step 2 needs the shipped data: it says so, and offers them back
    model_element(page, "tour_next", "button").click()
    page.wait_for_function("() => Bokeh.documents[0].get_model_by_name('tour_shipped_note').visible === true")
    model_element(page, "tour_shipped_switch", "button").click()
    page.wait_for_function("() => Bokeh.documents[0].get_model_by_name('dataset_select').value === 'default'")
    page.wait_for_function("() => Bokeh.documents[0].get_model_by_name('tour_shipped_note').visible === false")
    assert shown_data(page)["tag"]["name"] == "default"
    assert ["yours", "your data"] in model_prop(page, "dataset_select", "options")
    # your data again from the menu; Reset keeps them and puts the rest back
    set_model_prop(page, "dataset_select", "value", "yours")
    wait_data(page, 365)
    set_model_prop(page, "bandwidth_slider", "value", -1.0)
    open_box(page)
    model_element(page, "reset_button", "button").click()
    page.wait_for_function("() => Math.abs(Bokeh.documents[0].get_model_by_name('bandwidth_slider').value - Math.log10(0.62)) < 1e-9")
    assert model_prop(page, "dataset_select", "value") == "yours" and len(shown_data(page)["x"]) == 365
    assert watch.console_errors() == []


# ---- the notebook's hand-over (the user_data source), in a real page ---------------------------------------

@pytest.fixture(scope="module")
def handed_file(tmp_path_factory):
    """A page built for a notebook's ``Explorable(data=...)``: the data wait in the user_data source."""
    from app.delivery.export import build_document, page_html
    from app.delivery.page import Explorable

    out = tmp_path_factory.mktemp("own") / "handed.html"
    half = u.from_arrays(YEAR.x[:180], YEAR.y[:180], "day", "temp_c")
    out.write_text(page_html(build_document(Explorable(data=half), sections=("regression",))), encoding="utf-8")
    return out


def test_a_notebooks_data_open_the_page_and_the_pages_go_back(watch, handed_file):
    page = watch.page
    page.set_default_timeout(SLOW)
    block_outside(page)
    page.add_init_script("globalThis.__attnHostOwnsAddress = true;")   # as app/delivery/page.py's EngineStarter says
    page.goto(handed_file.as_uri())
    wait_ready(page, timeout=SLOW)
    wait_data(page, 180)
    assert shown_data(page)["xu"] == YEAR.x[:180].tolist()
    assert page.evaluate("() => location.hash") == ""                  # a notebook's address is JupyterLab's
    # e.data = ... later: Python writes the tag, then the columns, under a new key
    page.evaluate("""([x, y]) => { const s = Bokeh.documents[0].get_model_by_name('user_data');
      s.tags = [JSON.stringify({ x_name: 'hour', y_name: 'load', notices: ['Skipped 1 point with a missing value (point 4).'],
                                 key: 'py-2', from: 'python' })];
      s.data = { x, y }; }""", [[0.5, 1.5, 2.5], [3.0, 2.0, 4.0]])
    wait_data(page, 3)
    assert shown_data(page)["tag"]["x_name"] == "hour"
    assert status(page) == ["Showing your 3 points: load against hour.", "Skipped 1 point with a missing value (point 4)."]
    # a paste on the page goes back to Python in the same source, marked as the page's
    paste(page, YEAR_TEXT)
    wait_data(page, 365)
    handed = page.evaluate("""() => { const s = Bokeh.documents[0].get_model_by_name('user_data');
      return { tag: JSON.parse(s.tags[0]), x: Array.from(s.data.x), y: Array.from(s.data.y) }; }""")
    assert handed["tag"]["from"] == "page" and (handed["x"], handed["y"]) == (YEAR.x.tolist(), YEAR.y.tolist())
    assert handed["tag"]["x_name"] == "day"
    # e.data = None: back to the shipped data, and "your data" leaves the menu
    page.evaluate("""() => { const s = Bokeh.documents[0].get_model_by_name('user_data');
      s.tags = [JSON.stringify({ key: 'none' })]; s.data = { x: [], y: [] }; }""")
    page.wait_for_function("() => Bokeh.documents[0].get_model_by_name('dataset_select').value === 'default'")
    assert ["yours", "your data"] not in model_prop(page, "dataset_select", "options")
    assert watch.console_errors() == []


# ---- bad input: one sentence, and the data shown before stay --------------------------------------------------

def _sentence(data_text, **opts):
    try:
        u.parse_text(data_text, **opts)
    except ValueError as e:
        return str(e)
    raise AssertionError("the text was accepted")


BAD_TEXTS = [
    ("day,temp_c\n1,3.5\n2,warm\n3,4\n", "Line 3", "warm"),                 # a cell that is not a number
    ("day,temp_c\n1,3.5\n\n2,4\n", "Line 3 is empty", None),                # an empty line between the rows
    ("day,temp_c\n", "header row (line 1)", None),                          # a header only
    ("day,temp_c\n1,3.5\n", "only one point", None),                        # a single point
    ("day,temp_c\n1,3.5\n2,NaN\n3,4\n", "Line 3", "NaN"),                   # NaN
    ("day,temp_c\n1,3.5\n2,inf\n", "Line 3", "inf"),                        # infinite
    ("day,temp_c\n1,3.5\n2,1e308\n", "Line 3", "1e308"),                    # too large
    ("day,temp_c\n4,3.5\n4,1\n4,2\n", "Every x", "4"),                      # all x equal
    ("day,temp_c\n0,3.5\n5e-324,1\n", "within a billionth", None),          # x too close together to scale
    ("", "nothing to read", None),
]
NOTED_TEXTS = [   # accepted, and said
    "day,temp_c\n1,3.5\n2,NA\n3,5\n\n\n",              # a missing value, skipped; the blank lines after the rows: not data
    "day,temp_c\n1,3.5\n1,4\n2,5\n",                                        # duplicated x, kept
    "day;temp_c\n1;3,5\n2;4,25\n3;5\n",                                     # semicolons and decimal commas
    'day,temp_c\n1,"3,5"\n2,"4,25"\n',                                      # decimal commas quoted between commas
]   # (100 000 rows, cut to the page's 2000 with a notice: the file of bad_inputs_keep_the_data)


def expect_refused(page, sentence, before):
    """The box says ``sentence`` and that the page keeps what it showed, and it does."""
    page.wait_for_function("(s) => Bokeh.documents[0].get_model_by_name('own_data_status').text.includes(s)",
                           arg=html.escape(sentence, quote=True))
    assert status(page) == [sentence, "The page keeps showing what it showed before."]
    assert shown_data(page) == before
    # issue 47: a screen reader hears it too, once, in the page's live region
    page.wait_for_function(f"(s) => ({SAID_JS})() === s", arg=f"{sentence} The page keeps showing what it showed before.")


def bad_inputs_keep_the_data(page):
    """Every bad input of the issue's list, on a page showing data: one sentence, and the data shown before stay;
    the inputs taken with a notice are taken and said.  (Offline and served: the two tests below.)"""
    before = shown_data(page)
    for bad, where, value in BAD_TEXTS:
        paste(page, bad)
        sentence = _sentence(bad)
        expect_refused(page, sentence, before)
        assert where in sentence and (value is None or f"\u201c{value}\u201d" in sentence)
    # a 17 MB paste, and a 17 MB text dragged onto the box: refused from their size before the box takes them
    big = u.SAY.text_too_big(17_000_000, u.MAX_INPUT_BYTES)
    paste_event(page, *BIG_TEXT)
    expect_refused(page, big, before)
    assert box_length(page) < 100
    for noted in NOTED_TEXTS:
        paste(page, noted)
        d = u.parse_text(noted)
        wait_data(page, d.n)
        assert status(page)[1:] == list(d.notices) and d.notices
        assert shown_data(page)["xu"] == d.x.tolist()
    before, in_box = shown_data(page), box_length(page)
    drop_text(page, *BIG_TEXT)
    expect_refused(page, big, before)
    assert box_length(page) == in_box
    # a file of 100 000 rows (6 MB) is read and cut to the page's 2000 points, and says so
    drop_long_file(page, 100_000)
    d = u.parse_text(LONG_HEAD + "".join(long_row(i) for i in range(100_000)))
    wait_data(page, u.MAX_ROWS)
    assert status(page) == ["Showing your 2000 points: temp_c against minute.", "Read long.csv.", *d.notices]
    assert shown_data(page)["xu"] == d.x.tolist() and d.notices[-1].startswith("There are 100000 rows")
    before = shown_data(page)
    # a 50 MB file whose every reader records the call: refused from its size, never read
    page.evaluate("""() => { const calls = [];
      const f = new File([new Uint8Array(1)], 'huge.csv', { type: 'text/csv' });
      Object.defineProperty(f, 'size', { value: 50000000 });
      for (const k of ['text', 'arrayBuffer', 'stream', 'slice']) f[k] = () => { calls.push(k); throw new Error('read'); };
      window.__bigCalls = calls; window.__big = f; }""")
    page.locator(".own").first.evaluate("""(el) => { const dt = new DataTransfer();
      Object.defineProperty(dt, 'files', { value: [window.__big] });
      Object.defineProperty(dt, 'types', { value: ['Files'] });
      el.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, composed: true, cancelable: true })); }""")
    expect_refused(page, "This file is 50 MB; the page reads files up to 16 MB.", before)
    assert page.evaluate("() => window.__bigCalls") == []
    # not text, a workbook, empty
    for name, content, expected in [("data.csv", b"PK\x03\x04\x00\x00" + bytes(range(256)), u.SAY.binary),
                                    ("temps.xlsx", b"PK\x03\x04", u.SAY.workbook("temps.xlsx")),
                                    ("empty.csv", b"", u.SAY.file_empty)]:
        drop_file(page, name, content)
        expect_refused(page, expected, before)


def test_every_bad_input_says_one_sentence_and_keeps_the_data(watch, year_file):
    page = open_year(watch, year_file)
    bad_inputs_keep_the_data(page)
    assert watch.console_errors() == []


@pytest.mark.parametrize("page_at", ["served"], indirect=True)
def test_the_served_page_reads_pasted_and_dropped_data_as_the_core_and_refuses_bad_input(page_at):
    """The served page (its headers, its http address) in one page: a paste checked against the core, a file
    dropped, then every bad input (the offline file's tests above and below check each of these in detail)."""
    page = page_at()
    paste(page, YEAR_TEXT)
    wait_data(page, 365)
    assert shown_data(page)["xu"] == YEAR.x.tolist()
    check_against_core(page)
    week = "t;v\n" + "".join(f"{i};{i * 0.5:.1f}".replace(".", ",") + "\n" for i in range(7))
    drop_file(page, "week.csv", week.encode())
    wait_data(page, 7)
    assert shown_data(page)["y"] == [i * 0.5 for i in range(7)]
    assert status(page)[:2] == ["Showing your 7 points: v against t.", "Read week.csv."]
    bad_inputs_keep_the_data(page)


def test_the_export_with_data_served_over_http_opens_on_them(watch, year_file):
    """The file of ``export --data`` put on a course's web server (any static server) opens on its data."""
    import http.server
    import threading
    from functools import partial

    handler = partial(http.server.SimpleHTTPRequestHandler, directory=str(year_file.parent))
    handler.log_message = lambda *a: None
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{httpd.server_address[1]}/"
    try:
        page = watch.page
        page.set_default_timeout(SLOW)
        page.goto(base + year_file.name)
        wait_ready(page, timeout=SLOW)
        wait_data(page, 365)
        assert shown_data(page)["xu"] == YEAR.x.tolist()
        check_against_core(page)
        assert watch.console_errors() == [] and watch.outside_requests([base, "data:", "blob:"]) == []
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_nothing_from_the_data_is_markup(page_at):
    page = page_at()
    name = '<img src=x onerror="window.__owned=1">$$\\alpha$$'
    paste(page, f"{name},y\n1,2\n2,3\n3,1\n")
    wait_data(page, 3)
    shown = shown_data(page)["tag"]["x_name"]
    assert shown == u.parse._clean_name(name)
    assert page.evaluate("() => window.__owned") is None
    # no element was made from it anywhere on the page, shadow roots included
    imgs = page.evaluate("""() => { let k = 0; const walk = (root) => { for (const el of root.querySelectorAll('*')) {
      if (el.tagName === 'IMG') k++; if (el.shadowRoot) walk(el.shadowRoot); } }; walk(document); return k; }""")
    assert imgs == 0
    assert html.escape(shown, quote=True) in model_prop(page, "caption", "text")
    assert page.evaluate("() => Bokeh.documents[0].get_model_by_name('main_plot').below[0].axis_label.text") == shown


# ---- as a script: the README's screenshot and the figures -------------------------------------------------------

def _paste_to_drawn(page, data_text, n, runs):
    """Median and p95 of the time from "Use this data" to the readouts written for the new data (ms)."""
    times = []
    for k in range(runs):
        other = "x,y\n0,0\n1,1\n2,0\n" if k % 2 == 0 else "x,y\n0,1\n1,0\n2,1\n"   # start from something else
        paste(page, other)
        wait_data(page, 3)
        put_text(page, data_text)
        t = page.evaluate("""(n) => new Promise((done) => {
          const t0 = performance.now(), m = (k) => Bokeh.documents[0].get_model_by_name(k);
          const check = () => (m('dataset').data.x.length === n && m('readouts').text.includes(`of ${n}<`)
                               && !(globalThis.__attnTextsPending > 0)) ? done(performance.now() - t0)
                               : requestAnimationFrame(check);
          const v = Bokeh.index.find_one(m('own_data_form'));
          v.shadow_el.querySelector('button.own-use').click();
          requestAnimationFrame(check); })""", n)
        times.append(t)
    times.sort()
    return float(np.median(times)), times[min(len(times) - 1, math.ceil(0.95 * len(times)) - 1)]


def main():   # pragma: no cover - a script, not a test
    from playwright.sync_api import sync_playwright

    from tests.browser.pageutil import CHROMIUM, LAUNCH_ARGS

    out = ROOT / "tests" / "browser" / "screenshots" / "screenshot-own-data.png"
    export = ROOT / "build" / "own-data.html"
    export.parent.mkdir(exist_ok=True)
    subprocess.run([sys.executable, "-m", "app.delivery.cli", "export", str(export)], cwd=ROOT, check=True,
                   capture_output=True)
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        page = b.new_page(viewport={"width": 1366, "height": 768})
        page.set_default_timeout(SLOW)
        page.goto(export.as_uri() + "?query=3.4&tour=0")
        wait_ready(page, timeout=SLOW)
        rng = np.random.default_rng(5)
        many = "x,y\n" + "".join(f"{a:.4f},{b:.3f}\n" for a, b in zip(np.sort(rng.uniform(0, 100, 2000)),
                                                                      rng.normal(size=2000)))
        for label, data_text, n in [("the year of temperatures (365 points)", YEAR_TEXT, 365),
                                    ("2000 points", many, 2000)][:0 if "screenshot" in sys.argv else 2]:
            med, p95 = _paste_to_drawn(page, data_text, n, runs=9)
            print(f"paste to drawn, {label}: median {med:.0f} ms, p95 {p95:.0f} ms (9 runs)")
        sub = paste_200_days(page)
        made = page.evaluate("() => [location.hash.length - 1, location.href.length]")
        print(f"link for 200 of the year's days: fragment of {made[0]} characters from the page "
              f"({len(u.encode_fragment(sub))} from Python), whole address {made[1]}; the whole year: "
              f"{len(u.encode_fragment(YEAR))}")
        page.close()
        # the picture: a fresh page, the year pasted, the figure (kept in view) beside the box that read it
        page = b.new_page(viewport={"width": 1366, "height": 768})
        page.set_default_timeout(SLOW)
        page.goto(export.as_uri() + "?query=3.4&bandwidth=0.2&tour=0")
        wait_ready(page, timeout=SLOW)
        paste(page, YEAR_TEXT)
        wait_data(page, 365)
        page.wait_for_function("() => AttnPage.allDrawn()", timeout=SLOW)
        model_element(page, "own_data_status").scroll_into_view_if_needed()
        page.evaluate("() => window.scrollBy(0, 120)")
        wait_texts(page)
        wait_settled(page)    # the smooth scroll has stopped and the texts are written
        page.screenshot(path=str(out))
        print(f"wrote {out}")
        b.close()


if __name__ == "__main__":   # pragma: no cover
    main()


def _markup(text: str) -> list:
    """HTML as its tags, attributes and text, the way a browser reads it: a page the browser writes back (outerHTML)
    spells ``<line/>`` as ``<line></line>`` and ``hidden`` as ``hidden=""``."""
    from html.parser import HTMLParser

    out = []

    class Reader(HTMLParser):
        def handle_starttag(self, tag, attrs):
            out.append(("start", tag, sorted((k, v or "") for k, v in attrs)))

        def handle_startendtag(self, tag, attrs):
            self.handle_starttag(tag, attrs)
            out.append(("end", tag))

        def handle_endtag(self, tag):
            out.append(("end", tag))

        def handle_data(self, data):
            out.append(("text", data))

    Reader(convert_charrefs=True).feed(text)
    return out
