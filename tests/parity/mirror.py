"""The core's formulas in the browser (attention/kernels.js and attention/mirror.js) against numpy: seeded random
states over the page's whole range, and the checks both tests/js and tests/browser/test_parity.py run on them.

Tolerance: 1e-9 absolute on every number, the dot kernel's extreme states included (test_parity.py
``test_dot_kernel_extreme_states`` says why that holds).
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np
import pytest

import attention
from app.regression import text
from app.regression.view import H_GRID
from attention.regression import GRID_N
from attention.datasets import X_RANGE

from tests.parity import answers

TOL = 1e-9
DATASETS = attention.list_datasets()
HS = np.geomspace(0.005, 50, 13)     # the bandwidths of the leave-one-out and bias-variance curves
READOUT_FIELDS = ("query", "n", "max_weight", "entropy_bits", "effective_points", "prediction", "true_value",
                  "nearest_neighbor_prediction", "global_mean")


# ---- random states -------------------------------------------------------------------------------------------

def log_uniform(rng, lo, hi):
    return float(10 ** rng.uniform(math.log10(lo), math.log10(hi)))


def random_states(seed, count):
    """Seeded states over the page's whole range: both kernels, tilt on and off, every dataset."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(count):
        name = DATASETS[i % len(DATASETS)]
        d = attention.load_dataset(name)
        kernel = ("gaussian", "dot")[(i // len(DATASETS)) % 2]
        key_norm = None
        if kernel == "dot" and rng.random() < 0.5:
            key_norm = float(rng.uniform(-2, 2))
        pick = rng.random()
        if pick < 0.1:  # exactly on a key
            q = float(d.x[rng.integers(d.n)])
        elif pick < 0.2:  # halfway between two neighbouring keys: exact ties under the Gaussian
            j = int(rng.integers(d.n - 1))
            q = float((d.x[j] + d.x[j + 1]) / 2)
        else:
            q = float(rng.uniform(-0.5, 6.5))
        out.append({"name": name, "x": d.x.tolist(), "y": d.y.tolist(), "fn": d.function, "noise": d.noise,
                    "kernel": kernel, "h": log_uniform(rng, 0.005, 50), "t": log_uniform(rng, 0.001, 1000),
                    "q": q, "key_norm": key_norm})
    return out


def dataset_state(name):
    d = attention.load_dataset(name)
    return {"x": d.x.tolist(), "y": d.y.tolist(), "fn": d.function, "noise": d.noise}


def key_scale(c):
    return None if c["key_norm"] is None else attention.key_norm_tilt(np.array(c["x"]), c["key_norm"])


def core_kwargs(c):
    return dict(kernel=c["kernel"], bandwidth=c["h"], temperature=c["t"], key_scale=key_scale(c))


def close(a, b, tol):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    assert a.shape == b.shape, (a.shape, b.shape)
    return bool(np.all(np.abs(a - b) <= tol))


# ---- one query -----------------------------------------------------------------------------------------------

@cache
def weights_cases():
    states = random_states(1, 400)
    return states, [attention.weights(c["q"], c["x"], **core_kwargs(c)) for c in states]


def check_weights(js):
    states, want = weights_cases()
    for c, w_js, w_np in zip(states, answers(js, "weights", states), want):
        err = float(np.max(np.abs(np.asarray(w_js) - w_np)))
        assert err <= TOL, (c["name"], c["kernel"], c["h"], c["t"], c["q"], c["key_norm"], err)
        assert abs(sum(w_js) - 1) < 1e-12


@cache
def extreme_dot_cases():
    """The dot kernel at tiny h sqrt(T), the query between two keys that share the weight."""
    rng = np.random.default_rng(21)
    states = []
    for c in random_states(22, 240):
        if c["kernel"] != "dot":
            continue
        x = np.asarray(c["x"])
        j = int(rng.integers(len(x) - 1))
        c["q"] = float((x[j] + x[j + 1]) / 2 + rng.normal(0, 1e-4))  # two keys share the weight
        c["h"], c["t"] = log_uniform(rng, 0.005, 0.05), log_uniform(rng, 0.001, 0.05)
        states.append(c)
    return states, [attention.weights(c["q"], c["x"], **core_kwargs(c)) for c in states]


def check_dot_kernel_extremes(js):
    """The readout's weights in the extreme states; the delicate case (a second key holding weight) occurs."""
    states, want = extreme_dot_cases()
    shared = 0
    for c, r_js, w_np in zip(states, answers(js, "readout", states), want):
        shared += bool(np.sort(w_np)[-2] > 1e-3)
        assert close(r_js["weights"], w_np, TOL), (c["h"], c["t"], c["q"], c["key_norm"])
    assert shared > len(states) // 10, shared


@cache
def readout_cases():
    states = random_states(4, 300)
    want = []
    for c in states:
        d = attention.load_dataset(c["name"])
        r = attention.readout(c["q"], d.x, d.y, true_function=d.true_function, **core_kwargs(c))
        want.append((r, attention.weights(c["q"], d.x, **core_kwargs(c))))
    return states, want


def check_readout(js):
    states, want = readout_cases()
    for c, r_js, (r, w_np) in zip(states, answers(js, "readout", states), want):
        for f in READOUT_FIELDS:
            a, b = r_js[f], getattr(r, f)
            if b is None:
                assert a is None, f
                continue
            assert abs(a - b) <= TOL, (f, a, b, c["name"], c["kernel"], c["h"], c["t"], c["q"])
        assert r_js["n"] == r.n
        assert close(r_js["weights"], w_np, TOL)


@cache
def nearest_cases():
    states = random_states(5, 200)
    want = []
    for c in states:
        kw = core_kwargs(c)
        kw.pop("temperature")
        want.append(attention.nearest_neighbor_predict(c["q"], c["x"], c["y"], **kw))
    return states, want


def check_nearest_neighbour(js):
    states, want = nearest_cases()
    for c, v, w in zip(states, answers(js, "nearest", states), want):
        assert abs(v - w) <= TOL, (c["name"], c["kernel"], c["h"], c["q"])


@cache
def tilt_cases():
    rng = np.random.default_rng(10)
    cases = [{"x": attention.load_dataset(n).x.tolist(), "strength": float(rng.uniform(-2, 2))}
             for n in DATASETS for _ in range(5)]
    cases.append({"x": [1.5, 1.5, 1.5], "strength": 1.3})  # zero span: every factor is 1
    cases.append({"x": [0.0, 1.0], "strength": 0.0})
    return cases, [attention.key_norm_tilt(c["x"], c["strength"]) for c in cases]


def check_key_norm_tilt(js):
    cases, want = tilt_cases()
    for c, s, w in zip(cases, answers(js, "tilt", cases), want):
        assert close(s, w, 1e-12), c["strength"]


def check_true_functions(js):
    """Every true function the datasets name (sine included) against attention.datasets.FUNCTIONS, and none for
    a name it does not know."""
    xs = np.concatenate([np.linspace(-0.5, 6.5, 701), [2.0, 4.0, 3.0, np.pi, -np.pi / 2]]).tolist()
    names = sorted(attention.datasets.FUNCTIONS)
    got = js("truefn", [{"name": n, "x": xs} for n in names] + [{"name": "no such function", "x": xs}])
    assert got["names"] == names
    assert len(got["values"]) == len(names) + 1 and got["values"][-1] is None
    for n, v in zip(names, got["values"]):
        assert close(v, attention.datasets.FUNCTIONS[n][0](np.array(xs)), 1e-15), n


# ---- many queries and bandwidths -----------------------------------------------------------------------------

@cache
def predict_cases():
    qs = np.linspace(-0.5, 6.5, 120)
    states = [dict(c, qs=qs.tolist()) for c in random_states(6, 40)]
    return states, [attention.predict(qs, c["x"], c["y"], **core_kwargs(c)) for c in states]


def check_prediction_curve(js):
    states, want = predict_cases()
    for c, p, w in zip(states, answers(js, "predict", states), want):
        assert close(p, w, TOL), (c["kernel"], c["h"], c["t"])


@cache
def grid_cases():
    """The engine's grid of queries: prediction, entropy, 1-NN and the facts along the curve."""
    grid = np.linspace(X_RANGE[0], X_RANGE[1], GRID_N)
    states = [dict(c, qs=grid.tolist(), sharp=text.SHARP_WEIGHT, flat_tol=text.FLAT_TOL) for c in random_states(16, 40)]
    want = []
    for c in states:
        kw = core_kwargs(c)
        w = attention.weights(grid, c["x"], **kw)
        kw_nn = {k: v for k, v in kw.items() if k != "temperature"}
        want.append({"pred": attention.predict(grid, c["x"], c["y"], **kw), "ent": attention.entropy_bits(w),
                     "nn": [attention.nearest_neighbor_predict(q, c["x"], c["y"], **kw_nn) for q in grid],
                     "facts": text.curve_facts(grid, np.array(c["x"]), w, np.array(c["y"]))})
    return states, want


def check_grid_curves(js):
    """The four curves over x the page draws in one pass (AttnMirror.gridCurves)."""
    states, want = grid_cases()
    for c, g, w in zip(states, answers(js, "grid", states), want):
        what = (c["kernel"], c["h"], c["t"])
        for key in ("pred", "ent", "nn"):
            assert close(g[key], w[key], TOL), (key, what)
        assert g["facts"] == pytest.approx(w["facts"], rel=0, abs=1e-12), what


@cache
def entropy_cases():
    """The entropy at the query against the bandwidth on the engine's h axis: the core's at bandwidth g and
    T = 1, the tilt kept, for every g."""
    hs = np.geomspace(*H_GRID)
    states = [dict(c, hs=hs.tolist()) for c in random_states(15, 120)]
    want = []
    for c in states:
        kw = dict(core_kwargs(c), temperature=1.0)
        kw.pop("bandwidth")
        want.append([float(attention.entropy_bits(attention.weights(c["q"], c["x"], bandwidth=g, **kw))) for g in hs])
    return states, want


def assert_entropy_against_h(states, got, want):
    assert len(got) == len(states)
    for c, e, w in zip(states, got, want):
        assert close(e, w, TOL), (c["name"], c["kernel"], c["q"], c["key_norm"])


@cache
def loo_cases():
    states = [c for c in random_states(7, 16) if c["name"] != "large"]  # n^2 per bandwidth: kept quick
    states += [dict(random_states(8, 1)[0], name="large", **dataset_state("large"), t=1.0)]
    states = [dict(c, hs=HS.tolist()) for c in states]
    return states, [attention.loo_error(c["x"], c["y"], bandwidths=HS, kernel=c["kernel"], temperature=c["t"],
                                        key_scale=key_scale(c)) for c in states]


def check_loo_error(js):
    states, want = loo_cases()
    for c, err, w in zip(states, answers(js, "loo", states), want):
        assert close(err, w, TOL), (c["name"], c["kernel"], c["t"], np.max(np.abs(np.array(err) - w)))


@cache
def bias_variance_cases():
    states = [dict(c, hs=HS.tolist()) for c in random_states(9, 16) if c["name"] != "large"]
    want = []
    for c in states:
        d = attention.load_dataset(c["name"])
        want.append(attention.bias_variance(d.x, d.true_function, noise=d.noise, bandwidths=HS, kernel=c["kernel"],
                                            temperature=c["t"], key_scale=key_scale(c), n_resamples=None))
    return states + [dict(states[0], fn=None)], want + [None]    # no true function: nothing to draw


def check_bias_variance(js):
    states, want = bias_variance_cases()
    got = answers(js, "biasvar", states)
    assert got[-1] is None
    for c, bv, w in zip(states[:-1], got[:-1], want[:-1]):
        for f in ("bias2", "variance", "error"):
            assert close(bv[f], w[f], TOL), (f, c["name"], c["kernel"], c["t"])


@cache
def attention_cases():
    """Dot-product attention, causal and not, at temperatures from 0.05 to 20."""
    rng = np.random.default_rng(11)
    cases = []
    for i in range(60):
        n, d, dv = int(rng.integers(1, 9)), int(rng.integers(1, 9)), int(rng.integers(1, 5))
        causal = bool(i % 2)
        m = n if causal else int(rng.integers(1, 9))
        cases.append({"Q": rng.normal(size=(n, d)).tolist(), "K": rng.normal(size=(m, d)).tolist(),
                      "V": rng.normal(size=(m, dv)).tolist(), "causal": causal, "t": log_uniform(rng, 0.05, 20)})
    want = [attention.dot_product_attention(np.array(c["Q"]), np.array(c["K"]), np.array(c["V"]), causal=c["causal"],
                                            temperature=c["t"]) for c in cases]
    return cases, want


def check_dot_product_attention(js):
    cases, want = attention_cases()
    for c, r, (out, w) in zip(cases, answers(js, "dpa", cases), want):
        assert close(r["weights"], w, TOL) and close(r["outputs"], out, TOL), c["t"]
        if c["causal"]:
            assert np.all(np.triu(np.array(r["weights"]), k=1) == 0)
