"""In Chromium: the sections' engine modules (app/regression, learning and sentence) against app/*.py and the core,
what Chromium's own Math and URLSearchParams could change, and the page's bus.

The pure files (the mirror's formulas, the number formats, the link parser) are held to Python in tests/js, in an
embedded V8 with the same cases (tests/parity); a browser test that only repeated one of those checks is gone.  The
JS files are loaded into a blank page, in the order the engines join them, and each function is compared with its
Python twin; each batch of states is evaluated by one ``page.evaluate`` call.  Tolerance: 1e-9 absolute on every
number; texts (caption, limit notices, URL notices) equal character for character.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import attention
from app.learning.view import ENGINE_FILES as LEARNING_JS
from app.regression import text
from app.regression.view import ENGINE_JS as REGRESSION_JS
from attention.regression import GRID_N
from app.sentence.view import ENGINE_FILES as SENTENCE_JS
from app.sentence.sizes import GEOMETRY, geometry
from app.learning.state import METRIC_LR_PRESETS
from attention.datasets import X_RANGE
from app.sections import url_spec
from app.ui.engine import url_rules

from tests.browser.pageutil import ROOT, harness_page
from tests.parity import batched, batches, library_js
from tests.parity import mirror as pm
from tests.parity.queries import check_parse_query, queries
from tests.parity.mirror import DATASETS, TOL, close, core_kwargs, random_states

SPEC = url_spec()

# One JS entry point per family of checks; each takes a list of cases and
# returns plain arrays (typed arrays converted), so one round trip per batch.
HARNESS = r"""
window.AttnMirror = AttnMirror; window.Regression = Regression; window.AttnCommon = AttnCommon;
window.parity = (function (M, E, U, L, S) {
  const arr = (a) => a === null ? null : Array.from(a);
  const opt = (c) => ({ kernel: c.kernel, bandwidth: c.h, temperature: c.t,
                        keyScale: c.key_norm === null ? null : M.keyNormTilt(c.x, c.key_norm),
                        tilt: c.key_norm === null ? 0 : c.key_norm });
  return {
    kshape: (cases) => cases.map((c) => arr(E.kernelShape(c.grid, c.q, c.x, opt(c), c.peak, c.top))),
    hcurve: (cases) => cases.map((c) => arr(E.entropyAtQuery(c.q, c.x, c.hs, opt(c)))),
    columns: (Ws) => Ws.map((W) => L.columnLengths(W)),
    sizes: (cases) => cases.map((c) => S.sizes(c.n, c.longest, c.present, c.width, GEOMETRY)),
    words: (c) => ({ bias: c.bias.map((b) => E.biasNote(c.note, b.noise, b.own)),
                     kernels: c.tilts.map((t) => E.kernelOptions(c.labels, t)),
                     start: c.starts.map((t) => L.bwText(c.template, t, c.focus, c.limits)) }),
    parse: (cases) => cases.map((s) => U.parseQuery(s, SPEC, RULES)),
    bus: () => {  // the page's bus: sections hear each other by topic, per document, late subscribers included
      const doc = {}, other = {}, heard = [], events = [];
      addEventListener("attention-explorable:present", (e) => events.push(e.detail));
      U.subscribe(doc, "present", (v) => heard.push(["early", v]));
      U.publish(doc, "present", true);
      U.publish(other, "present", false);               // another page's document: not heard here
      U.subscribe(doc, "present", (v) => heard.push(["late", v]));   // hears the last value at once
      U.publish(doc, "present", false);
      U.subscribe(doc, "ready", (v) => heard.push(["ready", v]));    // nothing published yet: nothing heard
      return { heard, events };
    },
    guard: () => {  // the engines' shared per-page state and re-entrancy guard
      const key = {}, other = {};
      const c = U.pageState("__attnGuardTest", key, { pending: [1] });
      const log = [];
      let caught = null;
      U.runGuarded(c, () => { log.push("outer");
                              U.runGuarded(c, () => log.push("inner"), () => log.push("inner error")); },
                   () => log.push("outer error"));
      U.runGuarded(c, () => { throw new Error("boom"); }, (e) => { caught = e.message; });
      U.runGuarded(c, () => log.push("after the error"), () => log.push("second error"));
      return { same: U.pageState("__attnGuardTest", key) === c, fresh: U.pageState("__attnGuardTest", other) !== c,
               ready: c.ready, busy: c.busy, pending: c.pending, log, caught };
    },
  };
})(AttnMirror, { ...RegressionText, ...RegressionViews }, AttnCommon, Learning, Sentence);
"""


@pytest.fixture(scope="module")
def js(browser):
    """A blank page holding the mirror, the shared helpers, the tokenizer, the regression, learning and sentence
    engines' modules; js(name, cases) runs one batch."""
    library = library_js(("numbers.js", "kernels.js", "mirror.js", "format.js", "common.js", "words.js"))
    engines = [ROOT / "app" / "regression" / name for name in REGRESSION_JS] + \
        list(LEARNING_JS) + list(SENTENCE_JS)
    glue = "\n".join(path.read_text(encoding="utf-8") for path in engines)
    limits = {"one_sample": text.ONE_SAMPLE_WEIGHT, "near_uniform": text.NEAR_UNIFORM_FRACTION,
              "sharp_weight": text.SHARP_WEIGHT, "sharp_share": text.SHARP_SHARE, "flat_tol": text.FLAT_TOL}
    script = (f"{library}\n{glue}\nconst SPEC = {json.dumps(SPEC)};\nconst RULES = {json.dumps(url_rules())};\n"
              f"const LIMITS = {json.dumps(limits)};\nconst GEOMETRY = {json.dumps(GEOMETRY)};\n{HARNESS}")
    with harness_page(browser, script, "parity") as run:
        yield run


# ---- the mirror's formulas: held to the core in tests/js (an embedded V8, tests/parity/mirror.py's cases); here
# only what Chromium's own Math could change --------------------------------------------------------------------

def test_cos_and_sin_agree_bit_for_bit_on_the_page_angles(browser):
    """Math.cos/sin in Chromium and np.cos/sin give the same doubles on the angles x / R the page uses.

    Angles: positions in [-0.5, 6.5] over radii 2 x span, span of any shipped or
    generated dataset (about 4 to 6): |x / R| < 1.  If this fails on some
    platform, the dot kernel's extreme states above lose digits for that reason.
    """
    page = browser.new_page()
    try:
        a = np.random.default_rng(23).uniform(-1, 1, 50000)
        for d in DATASETS:
            x = attention.load_dataset(d).x
            a = np.concatenate([a, np.linspace(-0.5, 6.5, 2001) / attention.kernels.circle_radius(x)])
        got = page.evaluate("(a) => [a.map(Math.cos), a.map(Math.sin)]", a.tolist())
        assert np.count_nonzero(np.array(got[0]) != np.cos(a)) == 0
        assert np.count_nonzero(np.array(got[1]) != np.sin(a)) == 0
    finally:
        page.close()


# ---- the words on the page -----------------------------------------------------------------------

def test_the_words_that_follow_the_data_and_the_tilt_equal_python_text(js):
    """The error plot's words for each dataset's noise and for your own data, the kernel menu's labels for the
    tilt, and the learning text's starting h: filled in the browser as Python fills them, from the same templates."""
    from app.learning.text import FOCUS_LIMITS
    from app.learning.view import BANDWIDTH_TEXT, bandwidth_text

    noises = [attention.load_dataset(n).noise for n in DATASETS] + [0.0, 0.25, 0.05, 1.0, 2.0, None]
    bias = [{"noise": v, "own": False} for v in noises] + [{"noise": None, "own": True}, {"noise": 0.3, "own": True}]
    tilts = [0.0, 0.25, -0.25, 0.005, -0.005]
    starts = ["h = 0.15", "h\u00b7\u221aT = 0.15", "h = 0.7254 (day)", "h = 1 (<b>&amp;)"]
    focus = attention.regression.Focus(0.5973, 2.42)
    got = js("words", {"note": text.BIAS_NOTE, "bias": bias, "labels": text.KERNEL_LABELS, "tilts": tilts,
                       "template": BANDWIDTH_TEXT, "starts": starts, "limits": FOCUS_LIMITS,
                       "focus": {"max_weight": focus.max_weight, "effective_points": focus.effective_points}})
    assert got["bias"] == [text.bias_note(b["noise"], own=b["own"]) for b in bias]
    assert got["kernels"] == [[list(o) for o in text.kernel_options(t)] for t in tilts]
    assert got["start"] == [bandwidth_text(t, focus) for t in starts]


# ---- the URL ------------------------------------------------------------------------------------

def test_parse_query_equals_python(js):
    """Through the browser's own URLSearchParams (tests/js reads the same queries through a shim of it)."""
    qs, got = queries(), []
    for batch in batches(qs, 100):
        got += js("parse", batch)
    check_parse_query(qs, got)


def test_page_bus_reaches_subscribers_of_the_same_document_and_late_ones(js):
    """ui/common.js publish/subscribe: how the learning engine hears 'ready' and the sentence engine 'present'."""
    r = js("bus", [])
    assert r["heard"] == [["early", True], ["late", True], ["early", False], ["late", False]]
    assert r["events"] == [True, False, False]             # window events too, for scripts outside the engines


def test_engine_guard_keeps_state_per_page_and_never_reenters(js):
    """ui/common.js's pageState/runGuarded, which every engine uses around every event."""
    r = js("guard", [])
    assert r["same"] is True and r["fresh"] is True          # one state per key, kept across calls
    assert (r["ready"], r["busy"], r["pending"]) == (False, False, [1])  # defaults plus the engine's own
    assert r["log"] == ["outer", "after the error"]          # an event raised inside an event is dropped
    assert r["caught"] == "boom"                             # an error reaches onError, and the guard frees


# ---- the sections' own formulas (issue 11: each has a twin in Python) ------------------------------

def test_kernel_shape_through_the_stem_tops_matches_core_weights(js):
    """The dashed kernel curve of the weights plot (regression engine, kernelShape) passes through the tops of the
    weight stems: at a position x' it is the largest weight times exp((score(q, x') - score(q, x_top)) / T), the
    weight a key at x' would get beside the heaviest sample x_top, its tilt's factor continued there.  By the core:
    the softmax's w(x') / w(x_top) = exp((s(x') - s(x_top)) / T) from the core's scores of the keys x' and x_top
    (attention.kernels.scores, the tilt factors from the data's own span: key_norm_tilt over keys that span the
    data), times the heaviest weight; and at each sample the curve is that sample's weight."""
    grid = np.linspace(*X_RANGE, GRID_N)
    cases = []
    for c in random_states(14, 240):
        x = np.asarray(c["x"])
        pts = grid
        if c["kernel"] == "dot":   # positions inside the data's span: the circle's radius is the data's
            pts = grid[(grid >= x.min()) & (grid <= x.max())]
        c["grid"] = np.concatenate([pts, x]).tolist()
        w = attention.weights(c["q"], x, **core_kwargs(c))
        c["top"], c["peak"] = int(np.argmax(w)), float(w.max())
        cases.append(c)
    seen = stems = 0
    for batch in batches(cases, 60):
        for c, k in zip(batch, js("kshape", batch)):
            x = np.asarray(c["x"])
            keys = np.array(c["grid"] + [x[c["top"]]])
            ks = None if c["key_norm"] is None else attention.key_norm_tilt(keys, c["key_norm"])
            S = attention.kernels.scores(np.array([[c["q"]]]), keys[:, None], kernel=c["kernel"], bandwidth=c["h"],
                                         key_scale=ks)[0]
            k = np.asarray(k, dtype=float)
            with np.errstate(over="ignore"):   # far above the plot the ratio may overflow
                want = c["peak"] * np.exp((S[:-1] - S[-1]) / c["t"])   # w(x') / w(x_top) under the softmax
            what = (c["name"], c["kernel"], c["h"], c["t"], c["q"], c["key_norm"])
            # within the weights plot (0 to 1.04) the curve is the core's to 1e-9; above it (a key at x' nearer
            # the query than the heaviest sample would outweigh it) the curve leaves the plot, as the core's does
            shown = want <= PLOT_TOP
            assert close(k[shown], want[shown], TOL), (what, float(np.max(np.abs(k[shown] - want[shown]))))
            assert np.all(k[~shown] > PLOT_TOP), what
            finite = ~shown & np.isfinite(want)
            assert np.all(np.abs(k[finite] - want[finite]) <= TOL * want[finite]), what
            seen += int(np.count_nonzero(want[shown] > 1e-3))
            # through the stem tops: at each sample's own x the curve is that sample's weight
            stem = np.asarray(k)[len(c["grid"]) - len(x):]
            assert close(stem, attention.weights(c["q"], x, **core_kwargs(c)), TOL)
            stems += 1
    assert seen > 1000 and stems == len(cases)   # compared where it is drawn, not only where it has vanished


PLOT_TOP = 1.04   # the weights plot's fixed y range is 0 to this (app/regression/view.py weights_figure)


def test_entropy_against_h_sqrt_t_at_the_query_matches_core(js):
    """The entropy-against-bandwidth plot at the query (the 'hent' source): T is folded into h, so the
    curve is the core's entropy at bandwidth g and T = 1 for every g of the h axis (h * sqrt(T)), the tilt kept;
    and the core's entropy at (h, T) is the curve's value at h * sqrt(T)."""
    states, want = pm.entropy_cases()
    pm.assert_entropy_against_h(states, batched(js, 40)("hcurve", states), want)
    for c in states:
        kw = dict(core_kwargs(c), temperature=1.0)
        kw.pop("bandwidth")
        folded = attention.weights(c["q"], c["x"], bandwidth=c["h"] * math.sqrt(c["t"]), **kw)
        at_ht = attention.weights(c["q"], c["x"], **core_kwargs(c))
        assert abs(float(attention.entropy_bits(folded)) - float(attention.entropy_bits(at_ht))) <= 1e-6



def test_metric_readout_column_lengths_match_core_column_ratio(js):
    """The learning section's W readout (column lengths and 'counts ... % as much'): attention.learn's
    MetricTrajectory.column_ratio on every step of every shipped learning rate's path."""
    m = attention.learn.load_metric_dataset()
    for lr in METRIC_LR_PRESETS:
        tr = attention.train_metric(m.X, m.y, W0=np.eye(2), learning_rate=float(lr), steps=40)
        got = js("columns", tr.W.tolist())
        norms = np.linalg.norm(tr.W, axis=1)
        assert close([g["ratio"] for g in got], tr.column_ratio(), 1e-12), lr
        assert close([[g["c1"], g["c2"]] for g in got], norms, 1e-12), lr


def test_sentence_sizes_equal_python_geometry(js):
    """The sentence engine's sizes (cells, frame, box, vertical labels) against app/sentence/view.py geometry,
    over sentence lengths, word lengths, both modes and screen widths from a phone to a wide desktop."""
    rng = np.random.default_rng(16)
    cases, want = [], []
    for i in range(600):
        n = int(rng.integers(1, attention.sentences.MAX_TOKENS + 1))
        tokens = ["w" * int(rng.integers(1, 25)) for _ in range(n)]
        present, width = bool(i % 2), int(rng.choice([320, 360, 414, 600, 768, 1024, 1280, 1920, rng.integers(300, 2600)]))
        cases.append({"n": n, "longest": max(map(len, tokens)), "present": present, "width": width})
        want.append(geometry(tokens, present=present, inner_width=width))
    for c, g, w in zip(cases, js("sizes", cases), want):
        got = {"cell": g["cell"], "extra": g["extra"], "frame_width": g["frameWidth"],
               "frame_height": g["frameHeight"], "box": g["box"], "heat_vertical": g["heatVertical"],
               "bars_vertical": g["barsVertical"], "narrow": g["narrow"]}
        assert got == w, c
