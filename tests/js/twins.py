"""The checks of the pure JS twins against Python, for tests/js/test_twins.py and test_mutations.py.

Most are the browser parity tests' own: their cases, Python's answers and their comparisons are made once, in
tests/parity, and run here through ``js`` (a tests/js/v8.py ``Twins``), with the same tolerances (1e-9 on the
core's numbers, texts character for character).  The few below are this folder's alone: formulas no browser
test compares one by one, and samples of what the browser tests try exhaustively.  Python's answers are worked
out once per process (``functools.cache``), so a mutated copy is checked against the same answers at the cost
of its JS alone.

``CHECKS`` names them by the file they hold to its twin: the mutation test runs a mutated file's checks.
"""

from __future__ import annotations

import html
import math
import random
from functools import cache
from pathlib import Path

import numpy as np

import attention

from tests.parity import answers
from tests.parity import compute as pc
from tests.parity import mirror as pm
from tests.parity import userdata as pu
from tests.parity import words as pw
from tests.parity.audio import tones_of

TOL = pm.TOL
close = pm.close


# ---- attention/kernels.js and attention/mirror.js --------------------------------------------------------------

def check_keys_too_close_to_square(js):
    """Keys closer than kernels.SMALLEST_SPAN are one place under the dot kernel (the circle's radius is 1, not
    their span, whose square is not a normal number): finite weights, the same in both (found by Hypothesis)."""
    base = pm.random_states(1, 1)[0]
    states = [{**base, "kernel": "dot", "key_norm": None, "x": [0.0, gap], "y": [0.0, 1.0], "q": q, "h": h, "t": 1.0}
              for gap in (2.22507386e-311, 1e-200, attention.kernels.SMALLEST_SPAN) for q in (1.0, 6.0)
              for h in (0.1, 1e9)]
    for c, w_js in zip(states, answers(js, "weights", states)):
        w_np = attention.weights(c["q"], c["x"], **pm.core_kwargs(c))
        assert np.isfinite(w_js).all() and close(w_js, w_np, TOL), (c["x"], c["q"], c["h"], w_js)


def check_entropy_against_h(js):
    """AttnMirror.entropyAgainstH, handed T = 1, on tests/parity's states (the browser test holds the regression
    engine's entropyAtQuery, which folds T into h itself, to the same answers)."""
    states, want = pm.entropy_cases()
    pm.assert_entropy_against_h(states, js("entropyH", [dict(c, t=1.0) for c in states]), want)


@cache
def _error_curve_cases():
    """What the bias-variance plot's worker computes (AttnMirror.errorCurves) at T = 1, tilt on and off, with
    and without a known true function."""
    cases, want = [], []
    for i, c in enumerate(c for c in pm.random_states(17, 8) if c["name"] != "large"):   # n^2 per h: kept quick
        d = attention.load_dataset(c["name"])
        tilt = c["key_norm"] or 0.0
        ks = attention.key_norm_tilt(d.x, tilt) if c["kernel"] == "dot" and tilt else None
        known = i % 3 != 2
        cases.append({"x": c["x"], "y": c["y"], "kernel": c["kernel"], "tilt": tilt, "hs": pm.HS.tolist(),
                      "fn": c["fn"] if known else None, "noise": d.noise if known else None})
        w = {"loo": attention.loo_error(d.x, d.y, bandwidths=pm.HS, kernel=c["kernel"], key_scale=ks)}
        if known:
            w.update(attention.bias_variance(d.x, d.true_function, noise=d.noise, bandwidths=pm.HS, kernel=c["kernel"],
                                             key_scale=ks, n_resamples=None))
        want.append(w)
    return cases, want


def check_error_curves(js):
    cases, want = _error_curve_cases()
    for c, g, w in zip(cases, answers(js, "errorCurves", cases), want):
        for f in ("loo", "bias2", "variance", "error"):
            assert close(g[f], w[f], TOL) if f in w else all(math.isnan(v) for v in g[f]), (f, c["kernel"])


@cache
def _multi_head_cases():
    """Heads from an input X and projections (attention.multi_head_attention); the twin is handed each head's
    Q, K and V."""
    rng = np.random.default_rng(12)
    cases, want = [], []
    for i in range(30):
        n, dm, dk, dv, h = (int(rng.integers(1, 7)) for _ in range(5))
        x = rng.normal(size=(n, dm))
        wq, wk, wv = rng.normal(size=(h, dm, dk)), rng.normal(size=(h, dm, dk)), rng.normal(size=(h, dm, dv))
        wo = rng.normal(size=(h * dv, int(rng.integers(1, 5))))
        causal, t = bool(i % 2), pm.log_uniform(rng, 0.1, 10)
        cases.append({"Qs": (x @ wq).tolist(), "Ks": (x @ wk).tolist(), "Vs": (x @ wv).tolist(), "W_O": wo.tolist(),
                      "causal": causal, "t": t})
        want.append(attention.multi_head_attention(x, wq, wk, wv, wo, causal=causal, temperature=t)[0])
    return cases, want


def check_multi_head_attention(js):
    cases, want = _multi_head_cases()
    for c, g, w in zip(cases, answers(js, "mha", cases), want):
        assert close(g, w, TOL), (c["causal"], c["t"])


@cache
def _metric_cases():
    """One 2-D query under a metric W (the learning section's plot): attention.weights(W q, X W^T, Gaussian,
    h = 1, T)."""
    rng = np.random.default_rng(13)
    m = attention.learn.load_metric_dataset()
    cases = []
    for i in range(80):
        W = rng.normal(size=(2, 2)) * pm.log_uniform(rng, 0.1, 10)
        cases.append({"q": rng.uniform(-3, 3, 2).tolist(), "keys": m.X.tolist(), "W": W.tolist(),
                      "t": pm.log_uniform(rng, 0.05, 20)})
    want = [attention.weights((np.array(c["W"]) @ c["q"])[None, :], m.X @ np.array(c["W"]).T, kernel="gaussian",
                              bandwidth=1.0, temperature=c["t"])[0] for c in cases]
    return cases, want


def check_metric_weights(js):
    cases, want = _metric_cases()
    for c, g, w in zip(cases, answers(js, "metric", cases), want):
        assert close(g, w, TOL), (c["W"], c["t"])


def example_on_sliders() -> list:
    """data/examples/temperatures.csv's days, on the sliders' scale as the page puts them (app/userdata/)."""
    from app import userdata
    path = Path(__file__).resolve().parents[2] / "data" / "examples" / "temperatures.csv"
    x = np.loadtxt(path, delimiter=",", skiprows=1, usecols=0)
    return userdata.scale_for(x).from_units(x).tolist()


@cache
def _focus_cases():
    """attention.typical_focus over the regression's x grid: every shipped dataset and the example's temperatures
    (scaled onto the sliders) where training starts (h = 0.15), and random states of both kernels."""
    from app.learning.view import FOCUS_GRID, H0
    grid = np.linspace(*FOCUS_GRID).tolist()
    xs = [attention.load_dataset(n).x.tolist() for n in attention.list_datasets()] + [example_on_sliders()]
    cases = [{"qs": grid, "x": x, "kernel": "gaussian", "h": H0, "t": 1.0, "key_norm": None} for x in xs]
    cases += [dict(c, qs=grid[::7]) for c in pm.random_states(19, 24)]
    want = [attention.typical_focus(c["qs"], c["x"], **pm.core_kwargs(c)) for c in cases]
    return cases, want


def check_typical_focus(js):
    cases, want = _focus_cases()
    for c, g, w in zip(cases, answers(js, "focus", cases), want):
        assert close([g["max_weight"], g["effective_points"]], list(w), TOL), (c["kernel"], c["h"], g, w)


# ---- attention/words.js: samples of what tests/browser/test_words_parity.py tries for every code point ---------

@cache
def _code_points():
    """Code points to tokenize alone: every one up to U+3100 (Latin, Greek, Cyrillic, the scripts of India,
    punctuation, symbols, the CJK punctuation), each class's edges, and 20 000 drawn from the planes where
    Unicode 14 assigns characters."""
    rng = random.Random(29)
    cps = set(range(0x3100))
    for name in attention.charclasses.CLASSES:
        cps.update(pw.class_edges(name))
    cps.update(rng.choice(pw.PLANES_14) << 16 | rng.randrange(0x10000) for _ in range(20000))
    cps = sorted(cps)
    want = []
    for cp in cps:
        r = pw.core_tokens(chr(cp))
        want.append(" ".join(r["ok"]) if "ok" in r else None)
    return cps, want


def check_code_points_alone(js):
    cps, want = _code_points()
    got = answers(js, "singles", cps)
    bad = [(hex(cp), w, g) for cp, w, g in zip(cps, want, got) if w != g]
    assert bad == [], bad[:10]


@cache
def _sigma_cases():
    """Code points beside a capital sigma (final sigma): the case classes' edges and 5000 drawn ones."""
    rng = random.Random(31)
    cps = set(pw.class_edges("cased")) | set(pw.class_edges("case_ignorable"))
    cps.update(rng.choice(pw.PLANES_14) << 16 | rng.randrange(0x10000) for _ in range(5000))
    cps = sorted(cp for cp in cps if not 0xD800 <= cp < 0xE000)
    return cps, [pw.final_sigmas(cp) for cp in cps]


def check_final_sigma(js):
    cps, want = _sigma_cases()
    bad = [(hex(cp), w, g) for cp, w, g in zip(cps, want, answers(js, "sigmas", cps)) if w != g]
    assert bad == [], bad[:10]


def check_sentences(js):
    """The 200 random sentences at two settings each, and the refused ones."""
    cases, _ = pw.random_sentences()
    pw.assert_random_sentences(js("analyze", pw.analyze_payload(cases)))
    cases, want = pw.refused_sentences()
    assert pw.assert_analyses(cases, js("analyze", pw.analyze_payload(cases)), want) == 0


# ---- app/ui/userwords.js, app/ui/userparse.js and app/ui/userdata.js ---------------------------------------------

def check_parse(js):
    cases, _ = pu.parse_cases()
    pu.assert_parse(js("parse", cases))


# ---- attention/generator.js and attention/train.js ----------------------------------------------------------------

@cache
def _training_cases():
    """The shipped datasets and a generated one of 90 points at every preset, and one of 2000 points at one
    preset (tests/browser/test_compute_parity.py trains all 30 of tests/parity's datasets)."""
    data = pc.training_datasets()
    chosen = list(data[:4]) + [d for d in data if d[1].n == 90]
    chosen += [(name, d, ["20"]) for name, d, _ in data if d.n == 2000]
    cases = pc.column_cases(chosen)
    return cases, [pc.columns_want(c) for c in cases]


def check_training(js):
    cases, want = _training_cases()
    assert pc.check_columns(js, cases, want) == {"ok", "diverged"}


# ---- app/ui/audiograph.js --------------------------------------------------------------------------------------

def check_weight_tones(js):
    """The default data's weights at three queries and bandwidths, the large dataset's (binned), and a 2000-sample
    generated set's: the same tones as the rule in Python; the highest tone where the most weight is."""
    sound = js("sound")
    cases = []
    for name, q, h in (("default", 3.2, 0.62), ("default", 1.0, 0.05), ("default", 5.0, 5.0), ("large", 2.0, 0.3)):
        d = attention.load_dataset(name)
        cases.append((d.x, attention.weights(q, d.x, bandwidth=h).reshape(-1)))
    g = attention.make_dataset("wave", n=2000, noise=0.3, seed=3)
    cases.append((g.x, attention.weights(4.4, g.x, bandwidth=0.2).reshape(-1)))
    got = answers(js, "tones", [{"x": x.tolist(), "w": w.tolist(), "lo": -0.5, "hi": 6.5} for x, w in cases])
    for (x, w), tones in zip(cases, got):
        want = tones_of(x, w, -0.5, 6.5, sound)
        assert len(tones) == len(want) <= sound["bins"], (len(tones), len(want))
        for t, u in zip(tones, want):
            assert all(close(t[k], u[k], TOL) for k in u), (t, u)
        loudest = max(tones, key=lambda t: t["weight"])
        assert loudest["freq"] == max(t["freq"] for t in tones)
        assert [t["pan"] for t in tones] == sorted(t["pan"] for t in tones)


# ---- app/learning/starttext.js: where training starts, in words ------------------------------------------------

@cache
def _start_cases():
    """A sweep of largest weights (around every limit, at the digits shown) and effective points, and the
    readout's ways of writing the start."""
    ws = sorted({round(v, 4) for v in np.linspace(0.0, 1.0, 201)} | {0.004999, 0.005, 0.194999, 0.195, 0.545, 0.5449,
                                                                    0.895, 0.8949, 0.199, 0.549, 0.899, 1.0})
    ps = [1.0, 1.449, 2.42, 9.949, 9.95, 10.4, 37.6, 41.3, 400.0]
    starts = ["h = 0.15", "h\u00b7\u221aT = 0.15", "h = 9.1 (day)"]
    return [[starts[i % 3], w, p] for i, (w, p) in enumerate((w, p) for w in ws for p in ps)]


def check_start_sentences(js):
    from app.learning import text
    cases = _start_cases()
    got = js("startSentences", {"cases": cases, "limits": text.FOCUS_LIMITS})
    want = [text.start_sentence(*c) for c in cases]
    bad = [(c, g, w) for c, g, w in zip(cases, got, want) if g != w]
    assert bad == [], bad[:5]


# ---- app/routing/lines.js: the routing readout in words --------------------------------------------------------

@cache
def _readout_cases():
    """Every shown sentence at every recorded step (the core's rows and points, attention.train_qk's path as the page
    gets it), each once as a shown sentence and once as if typed; and made-up rows with ties."""
    from app.routing import view as rv
    plain = rv.trajectory().to_plain(frames=rv.FRAMES)
    p = {"readout_scale": plain["readout_scale"], "undecided_within": plain["undecided_within"]}
    cases = []
    for s in plain["sentences"]:
        even = np.mean(np.asarray(s["value_xy"]), axis=0).tolist()
        base = {"word": plain["word"], "tokens": s["tokens"], "index": s["index"], "count": 1, "own": False,
                "sense": s["sense"], "clue": s["clue"], "split": s["split"], "even": even}
        for f, (row, point) in enumerate(zip(s["weights"], s["point"])):
            cases.append({"s": base if f % 2 == 0 else dict(base, own=True), "row": row, "point": point, "p": p})
    toks = ["the", "bank", "by", "the", "river"]
    for row in ([0.3, 0.1, 0.3, 0.0, 0.3], [0.4, 0.1, 0.05, 0.4, 0.05], [0.24, 0.24, 0.2, 0.16, 0.16]):
        s = {"word": "bank", "tokens": toks, "index": 1, "count": 1, "own": True, "sense": None, "clue": None,
             "split": None, "even": [0.5, 0.5]}
        cases.append({"s": s, "row": row, "point": [0.5, 0.5], "p": p})
    return cases


def check_readout_lines(js):
    """Issue 46: when the largest share ties to the digits shown, the readout says so instead of naming one word
    (all five words of "the bank by the river" get 0.20 at step 0: "every word gets 0.20"); otherwise it names the
    word the core's row puts first.  The sense it reads is the core's rule on the core's point; the verdict names
    the sentence's sense and deciding word; every line is in plain words."""
    from attention import learn_qk
    from app.routing.text import plain_words
    cases = _readout_cases()
    got = js("readoutLines", cases)
    q = lambda w: f"\u201c{w}\u201d"   # noqa: E731
    for c, lines in zip(cases, got):
        row, toks, first = c["row"], c["s"]["tokens"], lines[0]
        shown = f"{max(row):.2f}"
        at = [j for j, v in enumerate(row) if f"{v:.2f}" == shown]
        assert first.startswith(q(c["s"]["word"]) + " ")
        named = {t for t in toks if q(t) in first[len(q(c["s"]["word"])):]}   # (after the word the line is about)
        if len(at) == len(row):
            assert f"every word gets {shown}." in first and named == set(), (row, first)
        else:
            assert named == {toks[j] for j in at}, (row, first)
            assert (" each." in first) == (len(at) > 1 and "looks most" in first), (row, first)
            assert f"{shown} of its weight" in first or f"largest share {shown}, on " in first, (row, first)
        d = np.asarray(c["point"]) - np.asarray(c["s"]["even"])
        z = d[0] - d[1]
        sense = "undecided" if abs(z) <= learn_qk.UNDECIDED_WITHIN else "water" if z > 0 else "money"
        assert (": undecided." in first) == (sense == "undecided"), (z, first)
        if sense != "undecided":
            assert f"towards {sense}" in first, (z, first)
        if not c["s"]["own"]:
            assert f"here it is the {c['s']['sense']} sense, decided by {q(c['s']['clue'])}" in lines[-1]
        assert all(plain_words(t) and "<" not in t for t in lines), lines
    first_of_opening = [g[0] for c, g in zip(cases, got) if c["s"]["tokens"] == ["the", "bank", "by", "the", "river"]]
    assert first_of_opening[0].startswith("\u201cbank\u201d spreads its weight almost evenly: every word gets 0.20.")


# ---- app/ui/format.js: the number formats and a link's settings ---------------------------------------------------

# Values where formatting is delicate: exact binary ties (Python rounds them to even, JS's toFixed away from zero),
# doubles just beside a decimal tie, zeros, negatives, and the 'g' format's switch to exponents.
FORMAT_VALUES = [0.0, -0.0, 0.5, 1.5, 2.5, -2.5, 0.125, 0.375, -0.125, 0.25, 0.75, 2.25, 9.75, 0.005, 0.015,
                 0.025, 1.005, 2.675, 1.0005, 0.0005, 0.00049999999999999999, 0.9995, 9.995, 99.95, 999.5, 998.5,
                 0.001, 0.0001, 0.00001234, 1e-5, 123456.0, 1e21 / 1e6, 3.35, 10.25, -0.005, -0.30, -0.43, 0.163,
                 1 / 3, -2 / 3, 50.0, 0.00501, 1000.0, 0.0625, 0.9999999, -0.0001, 5.87e7, -4.15e-12, 2.6e9,
                 999.96e6, 1.2e13, 0.002, -123456.7]


@cache
def _format_cases():
    from app.ui import text

    rng = np.random.default_rng(13)
    values = FORMAT_VALUES + [float(v) for v in rng.uniform(-10, 10, 200)]
    values += [float(np.nextafter(v, s)) for v in (0.125, 0.005, 2.5, 0.0625, 1.5) for s in (0, 10)]
    values += [round(float(v), 3) + 0.0005 for v in rng.uniform(-5, 5, 100)]  # near 3-decimal ties
    cases = [{"v": v, "d": d} for v in values for d in (0, 1, 2, 3)]
    want = [{"fixed": f"{c['v']:.{c['d']}f}", "general": f"{c['v']:.{c['d'] + 1}g}",
             "signed": text._signed(c["v"], c["d"]), "plain": text.plain(c["v"], c["d"] + 1)} for c in cases]
    return cases, want


def check_number_format(js):
    """The page's four number formats (AttnFormat.fixed, general, signed, plain) write every value as Python's
    format and app/ui/text.py do, ties and exponents included."""
    cases, want = _format_cases()
    got = js("format", cases)
    assert [(c, g, w) for c, g, w in zip(cases, got, want) if g != w] == []


def check_parse_query(js):
    """A link's settings and notices (AttnFormat.parseQuery, through URLSearchParams) as app/state.py parse_query
    reads them, on the explicit and the nasty queries (tests/parity/queries.py): values of the same kind (a bool
    only equal to a bool), the notices character for character."""
    from app.sections import url_spec
    from app.ui.engine import url_rules

    from tests.parity import queries as pq

    qs = pq.queries()
    pq.check_parse_query(qs, js("parseQuery", {"queries": qs, "spec": url_spec(), "rules": url_rules()}))


# ---- app/regression/readouts.js: a tour step's regression numbers --------------------------------------------

READOUT_NAMES = ("h_eff", "n", "max_weight", "entropy_bits", "effective_points", "effective_share", "prediction",
                 "global_mean", "winner_gap", "curve_range", "curve_winners", "nearest_share", "sharp_share",
                 "loo_excess")


@cache
def _regression_readout_cases():
    from app.regression.readouts import regression_readouts
    from app.regression.view import build_regression
    from app.sections import ExplorableState

    cfg = build_regression(ExplorableState()).models["config"]
    cfg = {k: cfg[k] for k in ("settings", "loo_grid", "limits", "x_range", "grid_n")}
    rnd, cases, want = random.Random(5), [], []
    for name in attention.list_datasets():
        d = attention.load_dataset(name)
        for kernel in ("gaussian", "dot"):
            s = {"query": rnd.uniform(-0.5, 6.5), "bandwidth": 10 ** rnd.uniform(-2, 1), "temperature": 10 ** rnd.uniform(-1, 1),
                 "kernel": kernel, "key_norm": rnd.choice([0.0, 0.1, -0.2]) if kernel == "dot" else 0.0, "dataset": name}
            cases.append({"x": d.x.tolist(), "y": d.y.tolist(), "values": s, "needs": list(READOUT_NAMES)})
            want.append(regression_readouts(s))
    return {"cfg": cfg, "cases": cases}, want


def check_regression_readouts(js):
    """Every number a tour step of the regression compares (app/regression/readouts.js, which the tour asks for)
    is app/regression/readouts.py's, by the core, on each shipped dataset with both kernels."""
    payload, want = _regression_readout_cases()
    got = js("regressionReadouts", payload)
    bad = [(c["values"], k, g[k], w[k]) for c, g, w in zip(payload["cases"], got, want) for k in READOUT_NAMES
           if not close(g[k], w[k], TOL)]
    assert bad == [], bad[:3]


# ---- app/ideas/engine.js: the dependency graphs and the lag panel ---------------------------------------------

def check_ideas_graphs(js):
    """The graphs of 1 to 32 words, their caption and size (graphData, graphCaption, graphSize) as
    app/ideas/view.py's graph_data, graph_caption and graph_size."""
    from app.ideas.view import GRAPH, graph_caption, graph_data, graph_size

    ns = list(range(1, attention.MAX_TOKENS + 1))
    got = js("ideasGraphs", {"ns": ns, "graph": GRAPH})
    for n, g in zip(ns, got):
        want = graph_data([f"w{i}" for i in range(n)])
        assert g["caption"] == graph_caption(n) and g["size"] == graph_size(n), n
        for part in ("nodes", "chain", "pairs"):
            for k, v in want[part].items():
                assert close(g["data"][part][k], v, TOL) if v and not isinstance(v[0], str) else g["data"][part][k] == v, \
                    (n, part, k)


def check_ideas_lags(js):
    """The lag panel for every period (lagData, errorsHtml, lagIntro) as lag_sources, errors_html and lag_intro."""
    from app.ideas.view import errors_html, lag_intro, lag_results, lag_sources
    from app.ui.theme import BLUE, VERMILLION

    results = lag_results()
    got = js("ideasLags", {"lags": results, "colors": {"top": VERMILLION, "other": BLUE}})
    for res, g in zip(results.values(), got):
        want = lag_sources(res)
        assert g["errors"] == errors_html(res) and g["intro"] == lag_intro(res["period"]), res["period"]
        for part in ("weights", "actual", "pred"):
            for k, v in want[part].items():
                assert close(g["data"][part][k], v, TOL) if v and not isinstance(v[0], str) else g["data"][part][k] == v, \
                    (res["period"], part, k)


# ---- app/tour/steps.js and app/tour/dock.js ---------------------------------------------------------------------

@cache
def _tour():
    """The shipped lesson and the config its card hands tour.js (app/tour/view.py tour_config)."""
    from app.sections import CATALOGUE   # the page's sections, which the tour is read against
    from app.tour import default_tour
    from app.tour.view import tour_config

    tour = default_tour(CATALOGUE)
    return tour, tour_config(tour, step="1")


def _opening_want(step, k, how, now):
    """What opening a step does (the README: in presentation mode each step opens already shown, from a link as
    from a key; elsewhere a turned or linked step comes into view, and one whose control is hidden is made ready)."""
    if not now["visible"]:
        return {"show": False, "look": False, "ready": None}
    if now["presenting"] and not (how == "start" and not now["named"] and now["prepared"]):
        return {"show": True, "look": False, "ready": None}
    return {"show": False, "look": how == "turn" or (how == "start" and k > 1),
            "ready": step["ready"] if now["hidden"] and step["ready"] else None}


def check_opening(js):
    """app/tour/steps.js opening, the one rule every step opens by (tour.js openStep), on every step of the lesson."""
    tour, cfg = _tour()
    cases = [{"step": step, "k": k, "how": how, "now": {"presenting": p, "visible": v, "hidden": h, "named": nm,
                                                        "prepared": pr}}
             for k, step in enumerate(cfg["steps"], 1) for how in ("start", "turn", "synced")
             for p in (False, True) for v in (False, True) for h in (0, 1) for nm in (False, True)
             for pr in (False, True)]
    got = answers(js, "opening", cases)
    bad = [(c["step"]["id"], c["how"], c["now"], g) for c, g in zip(cases, got)
           if g != _opening_want(c["step"], c["k"], c["how"], c["now"])]
    assert bad == [], bad[:5]
    # issue 46: a presentation link shows its step (step 2 and step 1 alike), as a key does
    by = {(c["k"], c["how"], c["now"]["presenting"], c["now"]["visible"], c["now"]["hidden"]): g
          for c, g in zip(cases, got) if c["now"]["named"] and not c["now"]["prepared"]}
    assert by[2, "start", True, True, 0]["show"] and by[1, "start", True, True, 0]["show"]
    assert by[2, "turn", True, True, 0]["show"]
    # ... but a page opened in a prepared state (export --present --query 2.5) keeps it on an unnamed first step
    kept = [g for c, g in zip(cases, got) if c["k"] == 1 and c["how"] == "start" and c["now"]["presenting"]
            and c["now"]["visible"] and not c["now"]["named"] and c["now"]["prepared"]]
    assert kept and not any(g["show"] for g in kept)
    # ... and step 6 by Next, its tilt slider hidden, switches to the dot kernel first (the slider shows for it)
    six = tour.number_of("long-keys-win")
    assert by[six, "turn", False, True, 1]["ready"] == {"regression": {"kernel": "dot"}}
    assert by[six, "turn", False, True, 0]["ready"] is None


def check_resolve_step(js):
    """app/tour/steps.js resolveStep, the twin of app/tour/model.py resolve_step (also through the page's engine in
    tests/browser/test_lesson.py)."""
    from app.tour.model import resolve_step

    tour, cfg = _tour()
    raws = ["1", "21", "22", "007", "0", "", " ", "x", "shrink-h", "Shrink-H", "bank-row", "1e3", "+2", "\u0663",
            "a" * 41, "no-such-" + "x" * 30, "--", "a--b", "3.0", "tour", "-", "learn-play ", None]
    got = js("resolveStep", [cfg, raws])
    assert [(g["k"], g["notice"]) for g in got] == [resolve_step(r, tour) for r in raws]


# What a person calls each key a presenter may press (KeyboardEvent key names), for the card's hint.
KEY_WORDS = {"ArrowRight": "\u2192", "ArrowLeft": "\u2190", "PageDown": "Page Down", "PageUp": "Page Up", " ": "Space",
             "Spacebar": "Space", "ArrowUp": "\u2191", "ArrowDown": "\u2193", "Enter": "Enter", "Home": "Home",
             "End": "End", "Tab": "Tab", "Backspace": "Backspace", "b": "B", "n": "N", "p": "P", ".": "."}


def check_turn_keys(js):
    """app/tour/dock.js keyTurn with the card's key table: the arrows, Page Down and Page Up and the space bar (Shift
    for back) turn the steps, no other key and no key with Ctrl, Alt or Meta; and the card's hint in presentation
    mode names every key that turns a step (issue 46: it left the space bar out)."""
    from app.tour.view import WORDS

    _, cfg = _tour()
    mods = ({}, {"ctrlKey": True}, {"altKey": True}, {"metaKey": True})
    events = [{"key": key, "shiftKey": shift, **m} for key in KEY_WORDS for shift in (False, True) for m in mods]
    got = js("keyTurn", [cfg["turn_keys"], events])
    turns = {(e["key"], e["shiftKey"]): g for e, g in zip(events, got) if not set(e) - {"key", "shiftKey"}}
    assert all(g == 0 for e, g in zip(events, got) if set(e) - {"key", "shiftKey"})
    want = {("ArrowRight", False): 1, ("PageDown", False): 1, (" ", False): 1, ("Spacebar", False): 1,
            ("ArrowLeft", False): -1, ("PageUp", False): -1, (" ", True): -1, ("Spacebar", True): -1}
    assert {k: g for k, g in turns.items() if g} == want
    hint = WORDS["keys"]
    for key, shift in want:
        assert ("Shift+" if shift else "") + KEY_WORDS[key] in hint, (key, shift, hint)
    assert cfg["keys"].count(html.escape(hint)) == 1


# ---- app/ui/frame.js: a framed page leaves the deck its keys (issue 48) ------------------------------------------

def check_frame_keys(js):
    """Which keys a framed page posts to its host and does not act on: Escape always (the host takes the focus
    back); Page Down, Page Up, "b" and "." unless a text field has the focus; the space bar unless a text field or a
    button has it; the arrows only while no control has it; nothing with Ctrl, Alt or Meta, and no other key.  A key
    the tour has taken (keys=tour, presenting) stays in the page, Escape excepted."""
    kinds = (None, "control", "button", "text")
    keys = ("PageDown", "PageUp", " ", "b", ".", "ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "Escape", "Enter",
            "Tab", "Home", "a")
    mods = (None, {"ctrl": True}, {"alt": True}, {"meta": True})
    cases = [{"key": k, "kind": kind, "mods": m, "taken": t} for k in keys for kind in kinds for m in mods
             for t in (False, True)]

    def want(c):
        k, kind = c["key"], c["kind"]
        if c["mods"]:
            return False
        if k == "Escape":
            return True
        if kind == "text" or c["taken"]:
            return False
        if k.startswith("Arrow"):
            return kind is None
        if k == " ":
            return kind != "button"
        return k in ("PageDown", "PageUp", "b", ".")

    got = js("toHost", cases)
    assert [(c["key"], c["kind"], c["mods"]) for c, g in zip(cases, got) if g != want(c)] == []


CHECKS = {
    "attention/kernels.js": [pm.check_weights, pm.check_dot_kernel_extremes, check_keys_too_close_to_square, pm.check_readout,
                   pm.check_nearest_neighbour, pm.check_key_norm_tilt, pm.check_true_functions],
    "attention/mirror.js": [pm.check_prediction_curve, pm.check_grid_curves, check_entropy_against_h, pm.check_loo_error,
                  pm.check_bias_variance, check_error_curves, pm.check_dot_product_attention,
                  check_multi_head_attention, check_metric_weights, check_typical_focus],
    "attention/words.js": [pw.check_table_and_classes, check_code_points_alone, check_final_sigma, pw.check_texts,
                 pw.check_sha256, pw.check_utf8, pw.check_rounding, pw.check_unknown_word_vectors, pw.check_encode,
                 check_sentences],
    "app/ui/userwords.js": [pu.check_number_text, pu.check_size_text, pu.check_scale_and_units, check_parse],
    "app/ui/userparse.js": [check_parse],
    "app/ui/userdata.js": [pu.check_number_text, pu.check_size_text, pu.check_scale_and_units, check_parse],
    "attention/generator.js": [pc.check_generated_samples, pc.check_random_stream, pc.check_generator_refusals],
    "attention/train.js": [check_training, pc.check_lowest_loo, pc.check_trainers_exponential],
    "app/ui/audiograph.js": [check_weight_tones],
    "app/ui/frame.js": [check_frame_keys],
    "app/learning/starttext.js": [check_start_sentences],
    "app/routing/lines.js": [check_readout_lines],
    "app/tour/steps.js": [check_opening, check_resolve_step],
    "attention/numbers.js": [check_number_format],
    "app/ui/format.js": [check_number_format, check_parse_query],
    "app/regression/readouts.js": [check_regression_readouts],
    "app/ideas/engine.js": [check_ideas_graphs, check_ideas_lags],
    "app/tour/dock.js": [check_turn_keys],
}
