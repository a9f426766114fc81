"""What students read, over random deep-link states: no exponent notation, no hyphen-minus as a minus sign.

Seeded random states (query, h, T, kernel, tilt, dataset, learning rates and steps, sentence row, causal mask)
are opened as deep links in the offline file; the readouts, captions, notices and learning status texts
the page then shows are read back and checked.
"""

from __future__ import annotations

import html
import re
from urllib.parse import urlencode

import numpy as np

import attention
from app.ui import theme
from app.state import BANDWIDTH_LR_PRESETS, BANDWIDTH_TRAIN_STEPS, METRIC_LR_PRESETS, METRIC_TRAIN_STEPS

from tests.browser.pageutil import model_prop, wait_ready

EXPONENT = re.compile(r"\d[eE][+-]?\d")
HYPHEN_MINUS = re.compile(r"(?<![\w.])-\d")
SHOWN = ["readouts", "caption", "limits", "notices", "learn_bw_readout", "learn_bw_status", "learn_metric_readout",
         "learn_metric_status", "sentence_readouts", "sentence_caption", "sentence_notices"]
SENTENCES = [p.text for p in attention.load_sentence_model().presets]

READY_JS = """() => { const m = (n) => Bokeh.documents[0].get_model_by_name(n);
  return m('readouts').text.includes('max weight') && m('learn_bw_readout').text.includes('Step')
    && m('sentence_readouts').text.includes('max weight'); }"""


def random_links(seed, count):
    rng = np.random.default_rng(seed)
    out = [  # the states the issue names: T = 1000, a refused step, a causal first row, a negative query
        {"temperature": 1000, "lr": "300", "step": BANDWIDTH_TRAIN_STEPS, "causal": 1, "token": 0},
        {"kernel": "dot", "key_norm": 2, "query": -0.4, "metric_lr": "100000", "metric_step": METRIC_TRAIN_STEPS,
         "bandwidth": 0.005, "temperature": 0.001},
    ]
    for _ in range(count - len(out)):
        s = {"query": round(float(rng.uniform(-0.5, 6.5)), 3),
             "bandwidth": float(f"{10 ** rng.uniform(np.log10(0.005), np.log10(50)):.4g}"),
             "temperature": float(f"{10 ** rng.uniform(-3, 3):.4g}"),
             "kernel": str(rng.choice(["gaussian", "dot"])),
             "key_norm": round(float(rng.uniform(-2, 2)), 2),
             "dataset": str(rng.choice(attention.list_datasets())),
             "lr": str(rng.choice(BANDWIDTH_LR_PRESETS)), "step": int(rng.integers(0, BANDWIDTH_TRAIN_STEPS + 1)),
             "metric_lr": str(rng.choice(METRIC_LR_PRESETS)),
             "metric_step": int(rng.integers(0, METRIC_TRAIN_STEPS + 1)),
             "sentence": str(rng.choice(SENTENCES)), "causal": int(rng.integers(0, 2)),
             "att_temperature": float(f"{10 ** rng.uniform(-2, 2):.3g}")}
        s["token"] = int(rng.integers(0, len(attention.tokenize(s["sentence"]))))
        out.append(s)
    return out


def shown_text(page, name):
    raw = model_prop(page, name, "text") or ""
    return html.unescape(re.sub(r"<[^>]+>", " ", raw))


def test_random_deep_links_show_no_exponent_and_no_hyphen_minus(static_file, watch):
    page = watch.page
    links = random_links(2026, 20)
    seen = set()
    for s in links:
        page.goto(static_file.as_uri() + "?" + urlencode(s))
        wait_ready(page, timeout=120000)      # each link is a fresh page load of the whole offline file
        page.wait_for_function(READY_JS, timeout=60000)
        if s.get("step"):   # a link that opens at a step moves the bandwidth slider once the regression is drawn
            page.wait_for_function("""() => { const t = Bokeh.documents[0].get_model_by_name('learn_bw_readout').text;
              return !t.includes('Step 0 of'); }""", timeout=60000)
        for name in SHOWN:
            t = shown_text(page, name)
            assert not EXPONENT.search(t), (s, name, t)
            assert not HYPHEN_MINUS.search(t), (s, name, t)
            if t.strip():
                seen.add(name)
        if s.get("causal") and s.get("token") is not None:
            assert "visible" in shown_text(page, "sentence_readouts"), s
    # the sweep read every kind of text, the refused step's notice among them
    assert {"readouts", "caption", "limits", "learn_bw_readout", "learn_bw_status", "learn_metric_readout",
            "learn_metric_status", "sentence_readouts", "sentence_caption"} <= seen
    assert watch.console_errors() == []


def test_axis_tick_labels_are_plain_decimals(static_file, watch):
    """The plain tick formatter that replaces Bokeh's defaults writes 0.002, not 2.000e-3, in the browser."""
    page = watch.page
    page.goto(static_file.as_uri())
    wait_ready(page)
    got = page.evaluate("""(code) => { const f = new Function('tick', code);
      return [0.002, -0.0015, 0.30000000000000004, 2.5, 1000, 1e-7, -3, 0].map((t) => f(t)); }""",
                        theme.PLAIN_TICKS_JS)
    assert got == ["0.002", "\u22120.0015", "0.3", "2.5", "1000", "0.0000001", "\u22123", "0"]


def test_steady_tick_labels_are_the_plain_ones_and_all_equally_wide(static_file, watch):
    """theme.steady_ticks pads the plain labels on the left with figure and punctuation spaces: in the page's
    font every label up to four digits is as wide as any other, so an axis keeps its width when its range
    changes; stripped of the padding, each is the plain label."""
    page = watch.page
    page.goto(static_file.as_uri())
    wait_ready(page)
    ticks = [0, 0.05, 0.1, 0.125, 0.075, 1, 1.5, 12, 0.35, 2.25]
    got = page.evaluate("""([steady, plain, ticks, font]) => {
      const s = new Function('tick', steady), p = new Function('tick', plain);
      const c = document.createElement('canvas').getContext('2d'); c.font = font;
      return ticks.map((t) => [s(t), p(t), c.measureText(s(t)).width]); }""",
                        [theme.STEADY_TICKS_JS, theme.PLAIN_TICKS_JS, ticks,
                         f"{theme.SIZES['normal']['tick']} {theme.FONT}"])
    for label, plain, _ in got:
        assert label.lstrip("\u2007\u2008") == plain
        assert label.count("\u2007") == max(0, theme.STEADY_DIGITS - sum(ch.isdigit() for ch in plain)), (label, plain)
    widths = {round(w, 3) for *_, w in got}
    assert len(widths) == 1, got
