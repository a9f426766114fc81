"""What students read, over many states: no exponent notation, no hyphen-minus as a minus sign.

A few deep links (the states the issue names: T = 1000, a refused step, a causal first row, a negative query;
links are the only way to open the learning demos at a step) and then seeded random states set in the page as a
student's widgets would (query, h, T, kernel, tilt, dataset, learning rates, sentence, row, head, temperature,
causal mask): the readouts, captions, notices and learning status texts the page then shows are read back and
checked.  The formats themselves are held to Python's character for character by tests/browser/test_parity.py.
"""

from __future__ import annotations

import html
import math
import re
from urllib.parse import urlencode

import numpy as np

import attention
from app.learning.state import BANDWIDTH_LR_PRESETS, BANDWIDTH_TRAIN_STEPS, METRIC_LR_PRESETS, METRIC_TRAIN_STEPS
from app.ui import text, theme

from tests.browser.pageutil import block_outside, draw_all, model_prop, wait_ready, wait_texts

EXPONENT = re.compile(r"\d[eE][+-]?\d")
HYPHEN_MINUS = re.compile(r"(?<![\w.])-\d")
SHOWN = ["readouts", "readout_strip", "caption", "limits", "notices", "learn_bw_readout", "learn_bw_status",
         "learn_metric_readout", "learn_metric_status", "sentence_readouts", "sentence_caption", "sentence_notices"]
SENTENCES = [p.text for p in attention.load_sentence_model().presets]

READY_JS = """() => { const m = (n) => Bokeh.documents[0].get_model_by_name(n);
  return m('readouts').text.includes('max weight') && m('learn_bw_readout').text.includes('Step')
    && m('sentence_readouts').text.includes('max weight'); }"""

LINKS = [  # the states the issue names: T = 1000, a refused step, a causal first row, a negative query
    {"temperature": 1000, "lr": "300", "step": BANDWIDTH_TRAIN_STEPS, "causal": 1, "token": 0},
    {"kernel": "dot", "key_norm": -0.25, "query": -0.4, "metric_lr": "100000", "metric_step": METRIC_TRAIN_STEPS,
     "bandwidth": 0.005, "temperature": 0.001},
    {"dataset": "step", "lr": "50", "step": 37, "metric_lr": "3000", "metric_step": 90, "bandwidth": 50,
     "att_temperature": 0.01, "sentence": SENTENCES[-1], "token": 2},
]

# One student's settings at once, as the widgets take them; then the page's texts once written.
SET_JS = """(s) => { const d = Bokeh.documents[0], m = (n) => d.get_model_by_name(n);
  m('dataset_select').value = s.dataset; m('kernel_select').value = s.kernel; m('keynorm_slider').value = s.key_norm;
  m('bandwidth_slider').value = s.logh; m('temperature_slider').value = s.logt; m('query_slider').value = s.query;
  m('learn_lr_select').value = s.lr; m('metric_lr_select').value = s.metric_lr;
  m('preset_select').value = s.preset; m('token_select').value = String(s.token);
  m('head_select').active = s.head; m('att_temperature_slider').value = s.logat;
  m('causal_toggle').active = s.causal; }"""


def random_states(seed, count):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        k = int(rng.integers(0, len(SENTENCES)))
        out.append({"query": round(float(rng.uniform(-0.5, 6.5)), 3),
                    "logh": float(rng.uniform(math.log10(0.005), math.log10(50))),
                    "logt": float(rng.uniform(-3, 3)), "kernel": str(rng.choice(["gaussian", "dot"])),
                    "key_norm": round(float(rng.uniform(-0.25, 0.25)), 3),
                    "dataset": str(rng.choice(attention.list_datasets())),
                    "lr": str(rng.choice(BANDWIDTH_LR_PRESETS)), "metric_lr": str(rng.choice(METRIC_LR_PRESETS)),
                    "preset": str(k), "token": int(rng.integers(0, len(attention.tokenize(SENTENCES[k])))),
                    "head": int(rng.integers(0, 3)), "logat": float(rng.uniform(-2, 2)),
                    "causal": bool(rng.integers(0, 2))})
    return out


def shown_text(page, name):
    raw = model_prop(page, name, "text") or ""
    return html.unescape(re.sub(r"<[^>]+>", " ", raw))


def check_texts(page, what, seen):
    wait_texts(page)
    for name in SHOWN:
        t = shown_text(page, name)
        assert not EXPONENT.search(t), (what, name, t)
        assert not HYPHEN_MINUS.search(t), (what, name, t)
        if t.strip():
            seen.add(name)


def test_deep_links_and_random_states_show_no_exponent_and_no_hyphen_minus(static_file, watch):
    page, seen = watch.page, set()
    block_outside(page)
    for s in LINKS:
        page.goto(static_file.as_uri() + "?" + urlencode(s))
        wait_ready(page)
        draw_all(page)                   # every section's engine reads the link when its first block is drawn
        page.wait_for_function(READY_JS)
        if s.get("step"):   # the learning section opens at the link's step (300 is refused at its first step)
            step = 1 if s["lr"] == "300" else s["step"]
            page.wait_for_function("(s) => Bokeh.documents[0].get_model_by_name('learn_bw_readout').text.includes(s)",
                                   arg=f"Step {step} of")
        check_texts(page, s, seen)
        if s.get("causal") and s.get("token") is not None:
            assert "visible" in shown_text(page, "sentence_readouts"), s
    for s in random_states(2026, 12):   # on the last link's page: set as a student would, no reload
        page.evaluate(SET_JS, s)
        page.wait_for_function("(q) => Bokeh.documents[0].get_model_by_name('caption').text.includes(q)",
                               arg=f"x = {text._signed(s['query'], 2)} ")
        check_texts(page, s, seen)
    # the sweep read every kind of text, the refused step's notice among them
    assert {"readouts", "readout_strip", "caption", "limits", "learn_bw_readout", "learn_bw_status",
            "learn_metric_readout", "learn_metric_status", "sentence_readouts", "sentence_caption"} <= seen
    assert watch.console_errors() == []


def test_axis_tick_labels_are_plain_decimals_and_steady_ones_equally_wide(browser):
    """The plain tick formatter that replaces Bokeh's defaults writes 0.002, not 2.000e-3, in the browser; and
    theme.steady_ticks pads the plain labels on the left with figure and punctuation spaces: in the page's font
    every label up to four digits is as wide as any other, so an axis keeps its width when its range changes;
    stripped of the padding, each is the plain label."""
    page = browser.new_page()
    try:
        page.set_content("<!DOCTYPE html><html><body></body></html>")
        got = page.evaluate("""(code) => { const f = new Function('tick', code);
          return [0.002, -0.0015, 0.30000000000000004, 2.5, 1000, 1e-7, -3, 0].map((t) => f(t)); }""",
                            theme.PLAIN_TICKS_JS)
        assert got == ["0.002", "\u22120.0015", "0.3", "2.5", "1000", "0.0000001", "\u22123", "0"]
        ticks = [0, 0.05, 0.1, 0.125, 0.075, 1, 1.5, 12, 0.35, 2.25]
        got = page.evaluate("""([steady, plain, ticks, font]) => {
          const s = new Function('tick', steady), p = new Function('tick', plain);
          const c = document.createElement('canvas').getContext('2d'); c.font = font;
          return ticks.map((t) => [s(t), p(t), c.measureText(s(t)).width]); }""",
                            [theme.STEADY_TICKS_JS, theme.PLAIN_TICKS_JS, ticks,
                             f"{theme.SIZES['normal']['tick']} {theme.FONT}"])
        for label, plain, _ in got:
            assert label.lstrip("\u2007\u2008") == plain
            assert label.count("\u2007") == max(0, theme.STEADY_DIGITS - sum(ch.isdigit() for ch in plain)), \
                (label, plain)
        widths = {round(w, 3) for *_, w in got}
        assert len(widths) == 1, got
    finally:
        page.close()
