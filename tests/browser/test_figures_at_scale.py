"""The regression figures at large n and on a laptop's 1366 x 768 (issue 46, "every word true").

* The weights plot shows which samples carry the weight at any n: up to view.WEIGHT_AXIS_FIXED_UP_TO_N samples of the
  shipped or generated data on its fixed 0 to 1 axis (peakedness compares by eye between states), beyond and on your
  own data (even 10 rows) on an axis zoomed to the largest weight, which fills half of it or more, as the query, h and T move and when the data change; its title says
  which axis is shown.  On the shipped "large" dataset and on your own data in days (365 rows), millimetres (10
  rows) and millions (2000 rows).
* The spread plot's tick labels (entropy in bits, effective points) keep apart at 1366 x 768 whatever n.
* The main plot's legend keeps each swatch on the line of its label ("- - -" and "true f(x)").
* The generator's notices write a negative number with the true minus.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from app.regression.view import WEIGHT_AXIS_FIXED_UP_TO_N, WEIGHT_AXIS_PAD, WEIGHT_TITLES
from app.sections import CATALOGUE
from app.ui.share import PNG_TEXTS, ROWS_SHOWN
from app.ui.text import plain
from app.ui.theme import SHARED_X_BORDERS
from tests.browser.pageutil import (FIND_VIEW_JS, block_outside, draw, model_element, open_more_controls,
                                    shown_paragraphs, wait_frames, wait_ready, wait_texts)
from tests.browser.test_own_data import EXAMPLE, SLOW, open_box, put_text, wait_data
from tests.browser.test_sentence import DRAWN_TICK_LABELS_JS, LABEL_GAP

FIGURES = CATALOGUE.figure_names()   # every figure of the page, by the words a person calls it

LAPTOP = (1366, 768)


# ---- your own data of three scales and sizes ---------------------------------------------------------------

def _rows(head, xs, ys):
    return head + "\n" + "".join(f"{x!r},{y!r}\n" for x, y in zip(xs, ys))


def millimetres():
    """10 rows: rainfall in millimetres (uneven) against a yield."""
    x = [0.4, 1.2, 2.5, 3.1, 5.0, 7.7, 9.3, 12.0, 15.5, 18.2]
    return _rows("rain_mm,yield_t", x, [round(2 + 0.3 * v - 0.01 * v * v, 3) for v in x])


def millions():
    """2000 rows: x in millions of units (a population), y a cost."""
    rng = np.random.default_rng(46)
    x = np.sort(rng.uniform(2.0e6, 9.5e9, 2000)).round(0)
    y = (np.sin(x / 1.5e9) + 0.3 * rng.standard_normal(2000)).round(4)
    return _rows("population,cost", x.tolist(), y.tolist())


CSVS = {"days": (lambda: EXAMPLE.read_text(encoding="utf-8"), 365),
        "millimetres": (millimetres, 10),
        "millions": (millions, 2000)}


def open_page(browser, static_file, tail="", size=LAPTOP, **kw):
    ctx = browser.new_context(viewport={"width": size[0], "height": size[1]}, **kw)
    page = ctx.new_page()
    page.set_default_timeout(SLOW)
    block_outside(page)
    page.goto(static_file.as_uri() + tail)
    wait_ready(page, timeout=SLOW)
    wait_texts(page)
    return ctx, page


def use_csv(page, name):
    """Paste one of CSVS into the box under "More controls" and use it; returns its number of rows."""
    make, n = CSVS[name]
    open_box(page)
    put_text(page, make())
    page.locator("button.own-use").click()
    wait_data(page, n)
    return n


# ---- the weights plot's axis ---------------------------------------------------------------------------------

WEIGHTS_JS = """() => { const d = Bokeh.documents[0], m = d.get_model_by_name('weights_plot');
  const w = d.get_model_by_name('samples').data.w; let mx = 0; for (const v of w) mx = Math.max(mx, v);
  return {n: w.length, max: mx, start: m.y_range.start, end: m.y_range.end, title: m.title.text,
          ticks: Array.from(m.left[0].ticker.ticks), query: d.get_model_by_name('query_slider').value}; }"""


def weights_axis(page):
    wait_texts(page)
    return page.evaluate(WEIGHTS_JS)


def axis_problems(r, where, own=False):
    """What is wrong with the weights plot's axis ``r`` (WEIGHTS_JS) for its n (``own``: your own data): [] when
    nothing."""
    bad, top = [], r["end"] / WEIGHT_AXIS_PAD
    if r["start"] != 0:
        bad.append(f"{where}: the axis starts at {r['start']}")
    if r["n"] <= WEIGHT_AXIS_FIXED_UP_TO_N and not own:
        if (r["end"], r["ticks"], r["title"]) != (WEIGHT_AXIS_PAD, [0, 0.5, 1], WEIGHT_TITLES["fixed"]):
            bad.append(f"{where}: {r['n']} samples, want the fixed 0 to 1 axis, got {r}")
        return bad
    if not r["max"] / r["end"] >= 0.5:
        bad.append(f"{where}: the largest weight {r['max']:.4g} fills {r['max'] / r['end']:.0%} of the axis "
                   f"(0 to {r['end']:.4g})")
    want = WEIGHT_TITLES["fixed"] if top == 1 else WEIGHT_TITLES["zoomed"].format(top=plain(top, 2))
    if r["title"] != want or not math.isclose(r["ticks"][-1], top, rel_tol=1e-12):
        bad.append(f"{where}: the title {r['title']!r} and ticks {r['ticks']} do not say the axis' top {top:.4g}")
    return bad


def set_slider(page, name, value):
    """Move a slider as a student does; for the query, wait until the engine has drawn it (a move may wait for
    the next frame, views.js setQuery)."""
    page.evaluate("([n, v]) => { Bokeh.documents[0].get_model_by_name(n).value = v; }", [name, value])
    if name == "query_slider":
        page.wait_for_function("(v) => Math.abs(Bokeh.documents[0].get_model_by_name('query_span').location - v) < 1e-9",
                               arg=value)
    wait_texts(page)


def test_on_the_default_dataset_the_weights_axis_stays_0_to_1_as_everything_moves(browser, static_file):
    ctx, page = open_page(browser, static_file)
    try:
        seen = {"on load": weights_axis(page)}
        for q in (0.0, 1.7, 6.0):
            set_slider(page, "query_slider", q)
            seen[f"query {q}"] = weights_axis(page)
        for logh in (-2.0, 1.5):
            set_slider(page, "bandwidth_slider", logh)
            seen[f"log10 h {logh}"] = weights_axis(page)
    finally:
        ctx.close()
    assert seen["on load"]["n"] == 24
    assert [b for when, r in seen.items() for b in axis_problems(r, when)] == []


def test_on_the_large_dataset_the_largest_weight_fills_the_zoomed_axis_as_query_h_and_t_move(browser, static_file):
    ctx, page = open_page(browser, static_file, "?dataset=large")
    try:
        seen = {"on load": weights_axis(page)}
        # a sweep of the query as a drag makes it: the top changes seldom, and never back and forth at once
        sweep = []
        for k in range(0, 61, 2):
            set_slider(page, "query_slider", round(k * 0.1, 2))
            sweep.append(weights_axis(page))
        for logh, logt in ((-1.0, 0.0), (0.5, 0.0), (0.5, 1.0), (-2.3, 0.0), (-0.2, -1.0)):
            set_slider(page, "bandwidth_slider", logh)
            set_slider(page, "temperature_slider", logt)
            seen[f"log10 h {logh}, log10 T {logt}"] = weights_axis(page)
        # the data change: the shipped 24 samples bring the fixed axis back, the 400 the zoomed one
        page.evaluate("() => { Bokeh.documents[0].get_model_by_name('dataset_select').value = 'default'; }")
        page.wait_for_function("() => Bokeh.documents[0].get_model_by_name('samples').data.x.length === 24")
        seen["back on the default dataset"] = weights_axis(page)
        page.evaluate("() => { Bokeh.documents[0].get_model_by_name('dataset_select').value = 'large'; }")
        page.wait_for_function("() => Bokeh.documents[0].get_model_by_name('samples').data.x.length === 400")
        seen["on large again"] = weights_axis(page)
    finally:
        ctx.close()
    assert seen["on load"]["n"] == 400 and seen["on load"]["end"] < 0.1, seen["on load"]
    bad = [b for when, r in seen.items() for b in axis_problems(r, when)]
    bad += [b for r in sweep for b in axis_problems(r, f"query {r['query']}")]
    tops = [r["end"] for r in sweep]
    changes = sum(1 for a, b in zip(tops, tops[1:]) if a != b)
    flips = sum(1 for a, b, c in zip(tops, tops[1:], tops[2:]) if a == c != b)
    assert bad == [] and changes <= 6 and flips == 0, (bad, changes, flips, tops)
    assert seen["back on the default dataset"]["end"] == WEIGHT_AXIS_PAD
    zoomed = [r for r in [*seen.values(), *sweep] if r["end"] < WEIGHT_AXIS_PAD]
    assert len(zoomed) >= 30, "the large dataset's axis is zoomed nearly everywhere at these settings"


@pytest.mark.parametrize("name", list(CSVS))
def test_on_your_data_the_weights_axis_says_its_scale_and_the_largest_weight_fills_it(browser, static_file, name,
                                                                                      tmp_path):
    ctx, page = open_page(browser, static_file, "?tour=0")
    try:
        n = use_csv(page, name)
        seen = {"on load": weights_axis(page)}
        for q in (0.3, 5.9):
            set_slider(page, "query_slider", q)
            seen[f"query {q}"] = weights_axis(page)
        set_slider(page, "bandwidth_slider", 0.3)
        seen["log10 h 0.3"] = weights_axis(page)
        if n > ROWS_SHOWN / 3:
            capped_table(page, tmp_path)
    finally:
        ctx.close()
    assert all(r["n"] == n for r in seen.values())
    assert [b for when, r in seen.items() for b in axis_problems(r, f"{name}, {when}", own=True)] == []
    assert all(r["max"] / r["end"] >= 0.5 for r in seen.values()), seen   # zoomed, even on 10 rows
    if n > WEIGHT_AXIS_FIXED_UP_TO_N:
        assert seen["on load"]["end"] < 0.1, seen["on load"]   # the weights are all small here


def capped_table(page, tmp_path):
    """Issue 47: the weights plot of 2000 samples draws 6000 rows (a stem and two dots each); its table shows the
    first ROWS_SHOWN, says how many the CSV adds, and the CSV holds them all."""
    import csv

    from tests.browser.test_share import SHOWN_TABLES_JS, SOURCE_ROWS_JS, _figure_picker

    menu = _figure_picker(page)
    menu.select_option("weights_plot")
    page.get_by_role("button", name=PNG_TEXTS["numbers"], exact=True).click()
    page.get_by_role("status").filter(has_text=PNG_TEXTS["counted"].format(figure=FIGURES["weights_plot"])).wait_for()
    rows = [n for n in page.evaluate(SOURCE_ROWS_JS, "weights_plot") if n]
    shown = page.evaluate(SHOWN_TABLES_JS)
    assert max(rows) > ROWS_SHOWN and shown == [[n, min(n, ROWS_SHOWN)] for n in rows], (rows, shown)
    big = rows.index(max(rows))
    page.get_by_text(PNG_TEXTS["more"].format(shown=ROWS_SHOWN, k=max(rows) - ROWS_SHOWN)).first.wait_for()
    with page.expect_download() as info:
        page.get_by_role("button", name=PNG_TEXTS["csv"], exact=True).nth(big).click()
    path = tmp_path / info.value.suggested_filename
    info.value.save_as(path)
    assert len(list(csv.reader(path.open(encoding="utf-8")))) == max(rows) + 1   # the head and every row


# ---- tick labels that keep apart at 1366 x 768 -------------------------------------------------------------------

TICKS_IN_RANGE_JS = """(name) => { const v = Bokeh.index.find_one(Bokeh.documents[0].get_model_by_name(name));
  return [...v.renderer_views.values()].filter((r) => /Axis$/.test(r.model.type) && r.model.visible).map((av) => {
    const [r] = av.ranges, lo = Math.min(r.start, r.end), hi = Math.max(r.start, r.end);
    const t = av.model.ticker.get_ticks(lo, hi, r, NaN).major.filter((x) => x >= lo - 1e-9 && x <= hi + 1e-9);
    return {side: av.panel.side, ticks: t, frame: v.frame.bbox.height}; }); }"""


def label_problems(page, name):
    """Tick labels of a plot that meet (closer than LABEL_GAP), run off its canvas, or were left out."""
    got, ticks = page.evaluate(DRAWN_TICK_LABELS_JS, name), page.evaluate(TICKS_IN_RANGE_JS, name)
    w, h = got["canvas"]
    bad = []
    for ax, tk in zip(got["axes"], ticks):
        labels = [b for b in ax["labels"] or [] if b["text"]]
        vertical = ax["side"] in ("left", "right")
        lo, hi = (1, 3) if vertical else (0, 2)
        spans = sorted((b["box"][lo], b["box"][hi], b["text"]) for b in labels)
        for (a0, a1, ta), (b0, b1, tb) in zip(spans, spans[1:]):
            if b0 - a1 < LABEL_GAP:
                bad.append(f"{name} {ax['side']}: {ta!r} and {tb!r} are {b0 - a1:.1f} px apart")
        for b in labels:
            x0, y0, x1, y1 = b["box"]
            if x0 < -0.5 or y0 < -0.5 or x1 > w + 0.5 or y1 > h + 0.5:
                bad.append(f"{name} {ax['side']}: {b['text']!r} runs out of the {w:.0f}x{h:.0f} canvas")
        if name == "entropy_x_plot" and (len(labels) != len(tk["ticks"]) or len(labels) < 2):
            bad.append(f"{name} {ax['side']}: {len(labels)} labels for the ticks {tk['ticks']} "
                       f"(frame {tk['frame']:.0f} px tall)")
    return bad, got


@pytest.mark.parametrize("data", ["default", "large", "millions"])
def test_the_spread_plots_tick_labels_keep_apart_at_1366_x_768(browser, static_file, data):
    ctx, page = open_page(browser, static_file, "?tour=0" + ("&dataset=large" if data == "large" else ""))
    try:
        n = use_csv(page, data) if data in CSVS else (400 if data == "large" else 24)
        draw(page, "regression-spread")
        wait_frames(page, 2)
        frame = page.evaluate("""() => Bokeh.index.find_one(Bokeh.documents[0].get_model_by_name('entropy_x_plot'))
          .frame.bbox.height""")
        bad, got = label_problems(page, "entropy_x_plot")
        more, _ = label_problems(page, "weights_plot")
    finally:
        ctx.close()
    assert frame < 80, f"the spread plot's frame is {frame} px tall at 1366 x 768: the case this test is for"
    assert bad + more == [], f"{data} ({n} samples):\n  " + "\n  ".join(bad + more)
    sides = {ax["side"]: [b["text"] for b in ax["labels"]] for ax in got["axes"]}
    # the two axes label the same places: effective points are 2 to the bits
    assert sides["right"] == [str(2 ** int(t)) for t in sides["left"]], sides
    assert 2 ** int(sides["left"][-1]) <= n, sides


# ---- the main plot's legend ---------------------------------------------------------------------------------------

# For each key (swatch) of the legend under the main plot: whether it sits on the line of its label's first letter.
LEGEND_JS = """() => { const v = (FIND_VIEW)('legend'), out = [];
  for (const k of v.shadow_el.querySelectorAll('p.legend .key')) {
    let t = k.nextSibling;
    while (t && t.nodeType !== 3) t = t.firstChild;
    const rg = document.createRange(); rg.setStart(t, 0); rg.setEnd(t, 1);
    const kr = k.getBoundingClientRect(), tr = rg.getBoundingClientRect(), mid = (kr.top + kr.bottom) / 2;
    out.push({label: t.data, key: [kr.top, kr.bottom], text: [tr.top, tr.bottom], same: mid >= tr.top && mid <= tr.bottom});
  }
  return {keys: out, lines: Math.round(v.shadow_el.querySelector('p.legend').getBoundingClientRect().height /
                                       parseFloat(getComputedStyle(v.shadow_el.querySelector('p.legend')).lineHeight))}; }"""


@pytest.mark.parametrize("screen", ["390x844", "1366x768", "1280x720 present"])
def test_each_legend_key_stays_on_the_line_of_its_label(browser, static_file, screen):
    size, _, present = screen.partition(" ")
    w, h = map(int, size.split("x"))
    found = {}
    for limits in ("0", "1"):   # three entries, then five with the 1-NN limit and the global mean
        ctx, page = open_page(browser, static_file, f"?tour=0&limits={limits}" + ("&present=1" if present else ""),
                              size=(w, h), is_mobile=w < 600, has_touch=w < 600)
        try:
            draw(page, "regression-legend")
            page.wait_for_function(f"() => !!({FIND_VIEW_JS})('legend')")
            wait_frames(page, 2)
            found[limits] = page.evaluate(LEGEND_JS.replace("FIND_VIEW", FIND_VIEW_JS))
        finally:
            ctx.close()
    assert [len(found[k]["keys"]) for k in ("0", "1")] == [3, 5], found
    apart = [(k, e["label"]) for k, r in found.items() for e in r["keys"] if not e["same"]]
    assert apart == [], f"at {screen}, keys on another line than their labels: {apart}\n{found}"
    assert max(r["lines"] for r in found.values()) >= 2, "the legend wraps at this size: the case this test is for"


# The weights plot's title against its canvas, and its frame's left edge (and the main plot's).
TITLE_FIT_JS = """() => { const d = Bokeh.documents[0], m = d.get_model_by_name('weights_plot'), v = Bokeh.index.find_one(m);
  const tv = [...v.renderer_views.values()].find((r) => r.model === m.title);
  const ctx = document.createElement('canvas').getContext('2d'); ctx.font = tv.visuals.text.font_value();
  const main = Bokeh.index.find_one(d.get_model_by_name('main_plot'));
  return {title: m.title.text, right: v.frame.bbox.left + ctx.measureText(m.title.text).width, canvas: v.bbox.width,
          left: v.frame.bbox.left, main_left: main.frame.bbox.left}; }"""


def test_on_a_phone_the_zoomed_axis_keeps_its_title_on_the_canvas_and_its_border(browser, static_file):
    """2000 samples at the widest h: every weight is about 1/2000, the longest top the title writes ("0.0005")."""
    ctx, page = open_page(browser, static_file, "?tour=0", size=(360, 800), is_mobile=True, has_touch=True)
    try:
        use_csv(page, "millions")
        widest = page.evaluate("() => Bokeh.documents[0].get_model_by_name('bandwidth_slider').end")
        set_slider(page, "bandwidth_slider", widest)
        r = weights_axis(page)
        wait_frames(page, 2)
        fit = page.evaluate(TITLE_FIT_JS)
    finally:
        ctx.close()
    assert widest > 1 and r["max"] < 0.001 and axis_problems(r, "widest h") == [], r
    assert "0.000" in fit["title"] and fit["right"] <= fit["canvas"], fit
    # its left border is the phone's shared one: the zoomed axis' labels ("0" alone) do not widen it
    assert fit["left"] == SHARED_X_BORDERS["normal_narrow"][0], fit


def test_the_generators_notice_writes_a_negative_n_with_the_true_minus(browser, static_file):
    ctx, page = open_page(browser, static_file, "?tour=0")
    try:
        open_more_controls(page)
        draw(page, "regression-more")
        # (once on the generated dataset: from a shipped one, the menu's move to "generated" generates a second
        # time, from the field the first set to 2, and that clears the notice; see the report of issue 46)
        model_element(page, "generator_go", "button").click()
        page.wait_for_function("() => Bokeh.documents[0].get_model_by_name('samples').data.x.length === 50")
        page.evaluate("() => { Bokeh.documents[0].get_model_by_name('generator_n').value = -5; }")
        model_element(page, "generator_go", "button").click()
        page.wait_for_function("() => Bokeh.documents[0].get_model_by_name('samples').data.x.length === 2")
        shown = shown_paragraphs(page, "notices")
    finally:
        ctx.close()
    assert "n = \u22125 is outside what the generator draws (2 to 2000 samples); it uses n = 2." in shown, shown
