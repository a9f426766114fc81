"""The checks of the pure JS twins against Python, for tests/js/test_twins.py and test_mutations.py.

Each ``check_*`` runs one family of the browser parity tests' cases (tests/browser/test_parity.py,
test_words_parity.py, test_userdata_parity.py, test_compute_parity.py; their case makers and Python references
are imported from there) through ``js`` (a tests/js/v8.py ``Twins``) and raises AssertionError at the first
difference, with the same tolerances (1e-9 on the core's numbers, texts character for character).  The Python
side's reference outputs are worked out once per process (``functools.cache``), so a mutated copy is checked
against the same references at the cost of its JS alone.

``CHECKS`` names them by the file they hold to its twin: the mutation test runs a mutated file's checks.
"""

from __future__ import annotations

import hashlib
import math
import random
from functools import cache

import numpy as np
import pytest

import attention
from app.ui import userdata as u
from app.learning import view as lv
from app.regression import text
from app.regression.view import GRID_N, H_GRID
from app.state import X_RANGE
from attention import charclasses
from attention.sentences import MAX_TOKENS, encode, unknown_word_vector

from tests.browser import test_compute_parity as cp
from tests.browser import test_parity as pp
from tests.browser import test_userdata_parity as up
from tests.browser import test_words_parity as wp
from tests.core.test_userdata import CORPUS, REFUSED, random_text

TOL = 1e-9
close = pp.close


# ---- attention/kernels.js and attention/mirror.js -------------------------------------------------------------------

@cache
def _weights_cases():
    states = pp.random_states(1, 400)
    return states, [attention.weights(c["q"], c["x"], **pp.core_kwargs(c)) for c in states]


def check_weights(js):
    states, want = _weights_cases()
    for c, w_js, w_np in zip(states, js("weights", states), want):
        err = float(np.max(np.abs(np.asarray(w_js) - w_np)))
        assert err <= TOL, (c["name"], c["kernel"], c["h"], c["t"], c["q"], c["key_norm"], err)
        assert abs(sum(w_js) - 1) < 1e-12


@cache
def _extreme_cases():
    """The dot kernel at tiny h sqrt(T), the query between two keys that share the weight (test_parity.py
    test_dot_kernel_extreme_states)."""
    rng = np.random.default_rng(21)
    states = []
    for c in pp.random_states(22, 240):
        if c["kernel"] != "dot":
            continue
        x = np.asarray(c["x"])
        j = int(rng.integers(len(x) - 1))
        c["q"] = float((x[j] + x[j + 1]) / 2 + rng.normal(0, 1e-4))
        c["h"], c["t"] = pp._log_uniform(rng, 0.005, 0.05), pp._log_uniform(rng, 0.001, 0.05)
        states.append(c)
    return states, [attention.weights(c["q"], c["x"], **pp.core_kwargs(c)) for c in states]


def check_dot_kernel_extremes(js):
    states, want = _extreme_cases()
    shared = 0
    for c, w_js, w_np in zip(states, js("weights", states), want):
        shared += bool(np.sort(w_np)[-2] > 1e-3)
        assert close(w_js, w_np, TOL), (c["h"], c["t"], c["q"], c["key_norm"])
    assert shared > len(states) // 10, shared


def check_keys_too_close_to_square(js):
    """Keys closer than kernels.SMALLEST_SPAN are one place under the dot kernel (the circle's radius is 1, not
    their span, whose square is not a normal number): finite weights, the same in both (found by Hypothesis)."""
    base = pp.random_states(1, 1)[0]
    states = [{**base, "kernel": "dot", "key_norm": None, "x": [0.0, gap], "y": [0.0, 1.0], "q": q, "h": h, "t": 1.0}
              for gap in (2.22507386e-311, 1e-200, attention.kernels.SMALLEST_SPAN) for q in (1.0, 6.0)
              for h in (0.1, 1e9)]
    for c, w_js in zip(states, js("weights", states)):
        w_np = attention.weights(c["q"], c["x"], **pp.core_kwargs(c))
        assert np.isfinite(w_js).all() and close(w_js, w_np, TOL), (c["x"], c["q"], c["h"], w_js)


@cache
def _readout_cases():
    states = pp.random_states(4, 300)
    want = []
    for c in states:
        d = attention.load_dataset(c["name"])
        r = attention.readout(c["q"], d.x, d.y, true_function=d.true_function, **pp.core_kwargs(c))
        want.append((r, attention.weights(c["q"], d.x, **pp.core_kwargs(c))))
    return states, want


def check_readout(js):
    states, want = _readout_cases()
    for c, r_js, (r, w_np) in zip(states, js("readout", states), want):
        for f in pp.READOUT_FIELDS:
            a, b = r_js[f], getattr(r, f)
            if b is None:
                assert a is None, f
                continue
            assert abs(a - b) <= TOL, (f, a, b, c["name"], c["kernel"], c["h"], c["t"], c["q"])
        assert r_js["n"] == r.n
        assert close(r_js["weights"], w_np, TOL)


@cache
def _nearest_cases():
    states = pp.random_states(5, 200)
    want = []
    for c in states:
        kw = pp.core_kwargs(c)
        kw.pop("temperature")
        want.append(attention.nearest_neighbor_predict(c["q"], c["x"], c["y"], **kw))
    return states, want


def check_nearest_neighbour(js):
    states, want = _nearest_cases()
    for c, v, w in zip(states, js("nearest", states), want):
        assert abs(v - w) <= TOL, (c["name"], c["kernel"], c["h"], c["q"])


@cache
def _predict_cases():
    qs = np.linspace(-0.5, 6.5, 120)
    states = [dict(c, qs=qs.tolist()) for c in pp.random_states(6, 40)]
    return states, [attention.predict(qs, c["x"], c["y"], **pp.core_kwargs(c)) for c in states]


def check_prediction_curve(js):
    states, want = _predict_cases()
    for c, p, w in zip(states, js("predict", states), want):
        assert close(p, w, TOL), (c["kernel"], c["h"], c["t"])


@cache
def _grid_cases():
    """The engine's grid of queries (prediction, entropy, 1-NN and the facts along the curve)."""
    grid = np.linspace(X_RANGE[0], X_RANGE[1], GRID_N)
    states = [dict(c, qs=grid.tolist(), sharp=text.SHARP_WEIGHT) for c in pp.random_states(16, 16)]
    want = []
    for c in states:
        kw = pp.core_kwargs(c)
        w = attention.weights(grid, c["x"], **kw)
        kw_nn = {k: v for k, v in kw.items() if k != "temperature"}
        want.append({"pred": attention.predict(grid, c["x"], c["y"], **kw), "ent": attention.entropy_bits(w),
                     "nn": [attention.nearest_neighbor_predict(q, c["x"], c["y"], **kw_nn) for q in grid],
                     "facts": text.curve_facts(grid, np.array(c["x"]), w)})
    return states, want


def check_grid_curves(js):
    states, want = _grid_cases()
    for c, g, w in zip(states, js("grid", states), want):
        what = (c["kernel"], c["h"], c["t"])
        for key in ("pred", "ent", "nn"):
            assert close(g[key], w[key], TOL), (key, what)
        assert g["facts"] == pytest.approx(w["facts"], rel=0, abs=1e-12), what


@cache
def _entropy_cases():
    """The entropy at the query against the bandwidth, at T = 1 (AttnMirror.entropyAgainstH), on the engine's
    h axis."""
    hs = np.geomspace(*H_GRID)
    states = [dict(c, hs=hs.tolist(), t=1.0) for c in pp.random_states(15, 24)]
    want = []
    for c in states:
        kw = pp.core_kwargs(c)
        kw.pop("bandwidth")
        want.append([float(attention.entropy_bits(attention.weights(c["q"], c["x"], bandwidth=g, **kw))) for g in hs])
    return states, want


def check_entropy_against_h(js):
    states, want = _entropy_cases()
    for c, e, w in zip(states, js("entropyH", states), want):
        assert close(e, w, TOL), (c["name"], c["kernel"], c["q"], c["key_norm"])


HS = np.geomspace(0.005, 50, 13)


@cache
def _loo_cases():
    states = [c for c in pp.random_states(7, 16) if c["name"] != "large"]
    states += [dict(pp.random_states(8, 1)[0], name="large", **pp._data("large"), t=1.0)]
    states = [dict(c, hs=HS.tolist()) for c in states]
    return states, [attention.loo_error(c["x"], c["y"], bandwidths=HS, kernel=c["kernel"], temperature=c["t"],
                                        key_scale=pp.key_scale(c)) for c in states]


def check_loo_error(js):
    states, want = _loo_cases()
    for c, err, w in zip(states, js("loo", states), want):
        assert close(err, w, TOL), (c["name"], c["kernel"], c["t"], np.max(np.abs(np.array(err) - w)))


@cache
def _bias_variance_cases():
    states = [dict(c, hs=HS.tolist()) for c in pp.random_states(9, 16) if c["name"] != "large"]
    want = []
    for c in states:
        d = attention.load_dataset(c["name"])
        want.append(attention.bias_variance(d.x, d.true_function, noise=d.noise, bandwidths=HS, kernel=c["kernel"],
                                            temperature=c["t"], key_scale=pp.key_scale(c), n_resamples=None))
    return states + [dict(states[0], fn=None)], want + [None]    # no true function: nothing to draw


def check_bias_variance(js):
    states, want = _bias_variance_cases()
    for c, bv, w in zip(states, js("biasvar", states), want):
        if w is None:
            assert bv is None
            continue
        for f in ("bias2", "variance", "error"):
            assert close(bv[f], w[f], TOL), (f, c["name"], c["kernel"], c["t"])


@cache
def _error_curve_cases():
    """What the bias-variance plot's worker computes (AttnMirror.errorCurves) at T = 1, tilt on and off, with
    and without a known true function."""
    cases, want = [], []
    for i, c in enumerate(c for c in pp.random_states(17, 8) if c["name"] != "large"):   # n^2 per h: kept quick
        d = attention.load_dataset(c["name"])
        tilt = c["key_norm"] or 0.0
        ks = attention.key_norm_tilt(d.x, tilt) if c["kernel"] == "dot" and tilt else None
        known = i % 3 != 2
        cases.append({"x": c["x"], "y": c["y"], "kernel": c["kernel"], "tilt": tilt, "hs": HS.tolist(),
                      "fn": c["fn"] if known else None, "noise": d.noise if known else None})
        w = {"loo": attention.loo_error(d.x, d.y, bandwidths=HS, kernel=c["kernel"], key_scale=ks)}
        if known:
            w.update(attention.bias_variance(d.x, d.true_function, noise=d.noise, bandwidths=HS, kernel=c["kernel"],
                                             key_scale=ks, n_resamples=None))
        want.append(w)
    return cases, want


def check_error_curves(js):
    cases, want = _error_curve_cases()
    for c, g, w in zip(cases, js("errorCurves", cases), want):
        for f in ("loo", "bias2", "variance", "error"):
            assert close(g[f], w[f], TOL) if f in w else all(math.isnan(v) for v in g[f]), (f, c["kernel"])


@cache
def _tilt_cases():
    rng = np.random.default_rng(10)
    cases = [{"x": attention.load_dataset(n).x.tolist(), "strength": float(rng.uniform(-2, 2))}
             for n in pp.DATASETS for _ in range(5)]
    cases += [{"x": [1.5, 1.5, 1.5], "strength": 1.3}, {"x": [0.0, 1.0], "strength": 0.0}]
    return cases, [attention.key_norm_tilt(c["x"], c["strength"]) for c in cases]


def check_key_norm_tilt(js):
    cases, want = _tilt_cases()
    for c, s, w in zip(cases, js("tilt", cases), want):
        assert close(s, w, 1e-12), c["strength"]


@cache
def _attention_cases():
    rng = np.random.default_rng(11)
    cases = []
    for i in range(60):
        n, d, dv = int(rng.integers(1, 9)), int(rng.integers(1, 9)), int(rng.integers(1, 5))
        causal = bool(i % 2)
        m = n if causal else int(rng.integers(1, 9))
        cases.append({"Q": rng.normal(size=(n, d)).tolist(), "K": rng.normal(size=(m, d)).tolist(),
                      "V": rng.normal(size=(m, dv)).tolist(), "causal": causal, "t": pp._log_uniform(rng, 0.05, 20)})
    want = [attention.dot_product_attention(np.array(c["Q"]), np.array(c["K"]), np.array(c["V"]), causal=c["causal"],
                                            temperature=c["t"]) for c in cases]
    return cases, want


def check_dot_product_attention(js):
    cases, want = _attention_cases()
    for c, r, (out, w) in zip(cases, js("dpa", cases), want):
        assert close(r["weights"], w, TOL) and close(r["outputs"], out, TOL), c["t"]
        if c["causal"]:
            assert np.all(np.triu(np.array(r["weights"]), k=1) == 0)


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
        causal, t = bool(i % 2), pp._log_uniform(rng, 0.1, 10)
        cases.append({"Qs": (x @ wq).tolist(), "Ks": (x @ wk).tolist(), "Vs": (x @ wv).tolist(), "W_O": wo.tolist(),
                      "causal": causal, "t": t})
        want.append(attention.multi_head_attention(x, wq, wk, wv, wo, causal=causal, temperature=t)[0])
    return cases, want


def check_multi_head_attention(js):
    cases, want = _multi_head_cases()
    for c, g, w in zip(cases, js("mha", cases), want):
        assert close(g, w, TOL), (c["causal"], c["t"])


@cache
def _metric_cases():
    """One 2-D query under a metric W (the learning section's plot): attention.weights(W q, X W^T, Gaussian,
    h = 1, T)."""
    rng = np.random.default_rng(13)
    m = attention.learn.load_metric_dataset()
    cases = []
    for i in range(80):
        W = rng.normal(size=(2, 2)) * pp._log_uniform(rng, 0.1, 10)
        cases.append({"q": rng.uniform(-3, 3, 2).tolist(), "keys": m.X.tolist(), "W": W.tolist(),
                      "t": pp._log_uniform(rng, 0.05, 20)})
    want = [attention.weights((np.array(c["W"]) @ c["q"])[None, :], m.X @ np.array(c["W"]).T, kernel="gaussian",
                              bandwidth=1.0, temperature=c["t"])[0] for c in cases]
    return cases, want


def check_metric_weights(js):
    cases, want = _metric_cases()
    for c, g, w in zip(cases, js("metric", cases), want):
        assert close(g, w, TOL), (c["W"], c["t"])


def check_true_functions(js):
    xs = np.concatenate([np.linspace(-0.5, 6.5, 701), [2.0, 4.0, 3.0, np.pi, -np.pi / 2]]).tolist()
    names = sorted(attention.datasets.FUNCTIONS)
    got = js("truefn", [{"name": n, "x": xs} for n in names] + [{"name": "no such function", "x": xs}])
    assert got["names"] == names and got["values"][-1] is None
    for n, v in zip(names, got["values"]):
        assert close(v, attention.datasets.FUNCTIONS[n][0](np.array(xs)), 1e-15), n


# ---- attention/words.js ---------------------------------------------------------------------------------------------

def check_table_and_classes(js):
    """The runs words.js decodes from the table are attention.charclasses', and its lookups agree at every
    run's edges."""
    assert js("max") == MAX_TOKENS
    assert js("unicode") == charclasses.unicode_version()
    names = list(charclasses.CLASSES)
    assert js("runs", names) == [list(map(list, charclasses.ranges(n))) for n in names]
    for name in names:
        edges = _edges(name)
        assert js("member", [name, edges]) == [charclasses.member(name, chr(cp)) for cp in edges], name


@cache
def _edges(name):
    starts, ends = charclasses.ranges(name)
    return sorted({cp for a, b in zip(starts, ends) for cp in (a - 1, a, b, b + 1) if 0 <= cp < 0x110000})


@cache
def _code_points():
    """Code points to tokenize alone: every one up to U+3100 (Latin, Greek, Cyrillic, the scripts of India,
    punctuation, symbols, the CJK punctuation), each class's edges, and 20 000 drawn from the planes where
    Unicode 14 assigns characters.  (tests/browser/test_words_parity.py tries all 1 114 112.)"""
    rng = random.Random(29)
    cps = set(range(0x3100))
    for name in charclasses.CLASSES:
        cps.update(_edges(name))
    cps.update(rng.choice(wp.PLANES_14) << 16 | rng.randrange(0x10000) for _ in range(20000))
    cps = sorted(cps)
    want = []
    for cp in cps:
        r = wp.core_tokens(chr(cp))
        want.append(" ".join(r["ok"]) if "ok" in r else None)
    return cps, want


def check_code_points_alone(js):
    cps, want = _code_points()
    got = js("singles", cps)
    bad = [(hex(cp), w, g) for cp, w, g in zip(cps, want, got) if w != g]
    assert bad == [], bad[:10]


@cache
def _sigma_cases():
    """Code points beside a capital sigma (final sigma): the case classes' edges and 5000 drawn ones."""
    rng = random.Random(31)
    cps = set(_edges("cased")) | set(_edges("case_ignorable"))
    cps.update(rng.choice(wp.PLANES_14) << 16 | rng.randrange(0x10000) for _ in range(5000))
    cps = sorted(cp for cp in cps if not 0xD800 <= cp < 0xE000)
    contexts = [lambda c: "\u0391" + c + "\u03a3", lambda c: "\u0391\u03a3" + c + "\u0391",
                lambda c: c + "\u03a3", lambda c: "\u0391\u03a3" + c]
    return cps, ["".join(str(charclasses.fold(f(chr(cp))).count("\u03c2")) for f in contexts) for cp in cps]


def check_final_sigma(js):
    cps, want = _sigma_cases()
    bad = [(hex(cp), w, g) for cp, w, g in zip(cps, want, js("sigmas", cps)) if w != g]
    assert bad == [], bad[:10]


@cache
def _text_cases():
    texts = wp.SHIPPED + wp.HAND_MADE + wp.REFUSED + wp.random_texts(17, 600)
    return texts, [wp.core_tokens(t) for t in texts]


def check_texts(js):
    texts, want = _text_cases()
    got = js("tokenize", [wp.cps(t) for t in texts])
    bad = [(t, g, w) for t, g, w in zip(texts, got, want) if g != w]
    assert bad == [], bad[:5]


def check_sha256_utf8_and_rounding(js):
    rng = random.Random(3)
    lengths = list(range(0, 130)) + [183, 184, 1000, 4095, 4096, 65537]
    inputs = [[rng.randrange(256) for _ in range(n)] for n in lengths]
    assert js("sha256", inputs) == [hashlib.sha256(bytes(b)).hexdigest() for b in inputs]
    rng = random.Random(5)
    texts = ["", "bank", "café", "日本", "🙂", "\ud800", "\udfff", "a\udc00b", "\U0010FFFF", "\x00"]
    texts += [wp.random_word(rng, rng.randint(1, 12)) for _ in range(300)]
    assert js("utf8", [wp.cps(t) for t in texts]) == [t.encode("utf-8", errors="surrogatepass").hex() for t in texts]
    g = np.random.default_rng(7)
    xs = [k / 8 for k in range(-40, 41)] + [k / 200 for k in range(-400, 401)] + [-0.0, 0.0, 2.675, -2.675, 1.005]
    xs = [float(x) for x in xs + list(g.uniform(-2, 2, 500)) + list(g.integers(-65535, 65536, 200) / 65535 * 0.3)]
    assert np.array_equal(np.array(js("round2", xs), dtype=float), np.round(np.array(xs), 2))


@cache
def _vector_cases():
    rng = random.Random(11)
    words = ["zorblat", "quux", "constructor", "__proto__", "ＢＡＮＫ", "河岸", "🙂", "\ud800", "a\udfffb"]
    words += [wp.random_word(rng, rng.randint(1, 20)) for _ in range(150)]
    cases = [{"word": wp.cps(w), "n": (1, 2, 7, 16, 17, 33, 48)[i % 7], "scale": (0.3, 0.05, 1.7, 0.125, 4.0)[i % 5]}
             for i, w in enumerate(words)]
    return words, cases, [unknown_word_vector(w, c["n"], c["scale"]) for w, c in zip(words, cases)]


def check_unknown_word_vectors(js):
    words, cases, want = _vector_cases()
    for w, c, g, v in zip(words, cases, js("vectors", cases), want):
        assert np.array_equal(np.array(g, dtype=float), v), (w, c["n"], c["scale"])


def check_encode(js):
    vocab = sorted(wp.MODEL.vocab)
    rng = random.Random(13)
    cases = [["bank"], ["constructor", "__proto__", "tostring", "bank", "constructor"], ["w"] * 32,
             [rng.choice(vocab + ["zorblat", "river2", "ｂａｎｋ", "日本"]) for _ in range(20)], [], ["w"] * 33, ["bank", ""]]
    for c, g in zip(cases, js("encode", [[wp.cps(t) for t in c] for c in cases])):
        try:
            x, unknown = encode(c, model=wp.MODEL)
        except ValueError as e:
            assert g == {"name": "ValueError", "error": str(e)}, c
            continue
        wp.close(g["ok"], {"x": x.tolist(), "unknown": unknown})


@cache
def _sentence_cases():
    cases = wp.sentence_cases(19, 100) + [{"text": t, "t": 1.0, "causal": False} for t in wp.REFUSED]
    want = []
    for c in cases:
        try:
            want.append({"ok": attention.analyze_sentence(c["text"], temperature=c["t"], causal=c["causal"]).to_plain()})
        except ValueError as e:
            want.append({"name": "ValueError", "error": str(e)})
    return cases, want


def check_sentences(js):
    """100 random sentences at two settings each, and the refused ones: every number of the heads within 1e-9,
    every string and flag equal."""
    cases, want = _sentence_cases()
    got = js("analyze", [dict(c, text=wp.cps(c["text"])) for c in cases])
    shown = 0
    for c, g, w in zip(cases, got, want):
        if "error" in w:
            assert g == w, c
            continue
        assert "ok" in g, (c, g)
        wp.close(g["ok"], w["ok"])
        shown += 1
    assert shown >= 150


# ---- ui/userwords.js, ui/userparse.js and ui/userdata.js ------------------------------------------------------------

# Lines holding more than one of tab, semicolon and comma: which separates the columns decides what is read
# (the first of tab, semicolon, comma on every line, else on the first line).
SEPARATOR_TEXTS = [("x\ty;z\n1\t2;3\n2\t3;4\n", {}), ("x;y\tz\n1;2\t3\n2;3\t4\n", {}),
                   ("x;y,z\n1;2,5\n2;3,5\n", {}), ("x,y;z\n1,2;3\n2,3;4\n", {}),
                   ("x;y\tz\n1;2\n2;3\n", {}), ("x,y\tz\n1,2\n2\t3\n", {}), ("a\tb;c,d\n1\t2;3,4\n5\t6;7,8\n", {})]


@cache
def _parse_cases():
    rng = random.Random(28)
    cases = [(t, o) for t, o, _ in REFUSED] + list(CORPUS) + [random_text(rng) for _ in range(600)]
    cases.append(("x,y\n" + "".join(f"{i},{i % 7}\n" for i in range(2500)), {}))      # cut to 2000
    cases.append(("a;b\n" + "".join(f"{i},5;{i}\n" for i in range(30)), {}))          # decimal commas
    cases += SEPARATOR_TEXTS
    return cases, [up.py_parse(t, o) for t, o in cases]


def check_parse(js):
    cases, want = _parse_cases()
    got = js("parse", cases)
    bad = [(t[:80], o, g, w) for (t, o), g, w in zip(cases, got, want) if g != w]
    assert bad == [], bad[:3]
    assert [r.get("error") for r in got[:len(REFUSED)]] == [s for _, _, s in REFUSED]
    refused = sum("error" in r for r in got)
    assert 100 < refused < len(got) - 100          # the random texts exercise both outcomes


@cache
def _number_cases():
    rng = random.Random(7)
    vs = up._random_doubles(rng, 3000)
    vs += [round(rng.uniform(-1e4, 1e4), rng.randint(0, 6)) for _ in range(2000)]
    vs += [10.0 ** k for k in range(-30, 30)] + [1e-7, 9.99e-7, 1e-6, 1e21, 9.99e20, 5e-324, 2.0 ** 53, 0.1 + 0.2]
    return vs, [u.number_text(v) for v in vs]


def check_numbers_sizes_and_scales(js):
    vs, want = _number_cases()
    assert js("numbers", vs) == want
    sizes = [0, 1, 2, 999, 1000, 1001, 1023, 1024, 1536, 999_949, 999_950, 999_999, 1_000_000, 16_000_000,
             16_000_001, 5 * 1024 * 1024, 50_000_000, 50 * 1024 * 1024, 1000 ** 3 - 1, 1024 ** 3 - 1]
    assert js("sizes", sizes) == [u._size_text(s) for s in sizes]
    rng = np.random.default_rng(2)
    xs = [[0.0, 6.0], [1.0, 4.0], [2.0, 3.0], [-1.0, 4.0], list(range(1, 366)), [1990.0, 2024.0], [1e-6, 2e-6],
          rng.uniform(-1e6, 1e6, 40).tolist()]
    cases = [{"x": x, "q": [-0.5, 0.0, 1.7, 6.0, 6.5], "h": 0.62} for x in xs]
    for c, got in zip(cases, js("scale", cases)):
        s = u.scale_for(c["x"])
        assert got["s"] == {"scaled": s.scaled, "x0": s.x0, "span": s.span, "u0": s.u0, "uspan": s.uspan,
                            "factor": s.factor, "sentence": s.sentence}
        assert got["page"] == [s.from_units(v) for v in c["x"]]
        assert got["back"] == [s.to_units(v) for v in c["q"]]
        assert got["h"] == [s.h_from_units(c["h"]), s.h_to_units(c["h"])]


# ---- attention/generator.js and attention/train.js ------------------------------------------------------------------

@cache
def _generator_cases():
    cases = cp._generator_settings()
    return cases, [attention.make_dataset(c["fn"], c["n"], c["noise"], c["seed"]) for c in cases]


def check_generator(js):
    cases, want = _generator_cases()
    for c, g, d in zip(cases, js("datasets", cases), want):
        assert g["x"] == d.x.tolist(), c
        assert np.max(np.abs(np.asarray(g["y"]) - d.y)) <= 1e-12, c
        assert (g["description"], g["function"], g["noise"]) == (d.description, d.function, d.noise)
    seeds = [{"seed": s, "count": 500} for s in (0, 1, 2 ** 31 - 1, attention.datasets.SEED_MAX, 123456789)]
    for c, got in zip(seeds, js("uniforms", seeds)):
        assert got == attention.datasets._uniforms(c["seed"], c["count"]).tolist()
    bad = [{"fn": "cosine", "n": 10, "noise": 0.3, "seed": 0}, {"fn": "wave", "n": 2001, "noise": 0.3, "seed": 0},
           {"fn": "wave", "n": 1, "noise": 0.3, "seed": 0}, {"fn": "wave", "n": 10, "noise": -0.1, "seed": 0},
           {"fn": "wave", "n": 10, "noise": 0.3, "seed": 2 ** 32}]
    for c, message in zip(bad, js("badDatasets", bad)):
        with pytest.raises(ValueError) as err:
            attention.make_dataset(c["fn"], c["n"], c["noise"], c["seed"])
        assert message == str(err.value), c


@cache
def _training_cases():
    """The shipped datasets and a generated one of 90 points at every preset, and one of 2000 points at one
    preset (test_compute_parity.py trains 30 datasets)."""
    data = cp._training_datasets()
    chosen = data[:4] + [d for d in data if d[1].n == 90]
    chosen += [(name, d, ["20"]) for name, d, _ in data if d.n == 2000]
    cases = cp._column_cases(chosen)
    want = [lv.bandwidth_trajectory_for(np.asarray(c["x"]), np.asarray(c["y"]), c["lr"]) for c in cases]
    return cases, want


def check_training(js):
    cases, want = _training_cases()
    statuses = set()
    for c, got, w in zip(cases, js("columns", cases), want):
        cp._assert_columns(got, w, (c["name"], c["lr"]), xy=(np.asarray(c["x"]), np.asarray(c["y"])))
        statuses.add(w["status"][-1])
    assert statuses == {"ok", "diverged"}


@cache
def _lowest_loo_cases():
    from app.tour.model import LOO_GRID

    grid = np.geomspace(*LOO_GRID[:2], LOO_GRID[2])
    data = [attention.load_dataset(n) for n in attention.list_datasets() if n != "large"]   # n^2 sums: kept quick
    data += [attention.make_dataset(fn, n, 0.3, 7 + n) for fn, n in (("step", 2), ("wave", 40), ("bump", 120))]
    cases = [{"x": d.x.tolist(), "y": d.y.tolist(), "grid": list(LOO_GRID)} for d in data]
    cases.append({"x": [0.0, 0.0, 1.0, 1.0, 2.5, 2.5, 4.0], "y": [1.0, 2.0, 0.5, 0.25, 3.0, 3.5, -1.0],
                  "grid": list(LOO_GRID)})
    return cases, [float(attention.loo_error(np.asarray(c["x"]), np.asarray(c["y"]), bandwidths=grid).min())
                   for c in cases]


def check_lowest_loo_and_exp(js):
    cases, want = _lowest_loo_cases()
    for c, got, w in zip(cases, js("lowestLoo", cases), want):
        assert math.isclose(got, w, rel_tol=1e-9), (len(c["x"]), got, w)
    rng = np.random.default_rng(5)
    s = np.concatenate([rng.uniform(0, attention.learn.WINDOW_SCORE, 20000), np.arange(0, 2359) / 64,
                        np.arange(1, 2359) / 64 - 2.0 ** -40, [0.0, attention.learn.WINDOW_SCORE]])
    got = np.asarray(js("exp", s.tolist()))
    exact = np.exp(-s.astype(np.longdouble))
    assert np.max(np.abs((got - exact) / exact)) <= 4e-16


CHECKS = {
    "kernels.js": [check_weights, check_dot_kernel_extremes, check_keys_too_close_to_square, check_readout, check_nearest_neighbour,
                   check_key_norm_tilt, check_true_functions],
    "mirror.js": [check_prediction_curve, check_grid_curves, check_entropy_against_h, check_loo_error,
                  check_bias_variance, check_error_curves, check_dot_product_attention,
                  check_multi_head_attention, check_metric_weights],
    "words.js": [check_table_and_classes, check_code_points_alone, check_final_sigma, check_texts,
                 check_sha256_utf8_and_rounding, check_unknown_word_vectors, check_encode, check_sentences],
    "userwords.js": [check_numbers_sizes_and_scales, check_parse],
    "userparse.js": [check_parse],
    "userdata.js": [check_numbers_sizes_and_scales, check_parse],
    "generator.js": [check_generator],
    "train.js": [check_training, check_lowest_loo_and_exp],
}
