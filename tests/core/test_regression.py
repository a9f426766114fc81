"""Kernel regression: predictions, readouts, limits, numerical stability and argument checks."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

import attention

FAST = settings(max_examples=60, deadline=None)

position = st.floats(min_value=-10.0, max_value=10.0)
positions = st.lists(position, min_size=1, max_size=30).map(np.array)
value = st.floats(min_value=-100.0, max_value=100.0)
bandwidth = st.floats(min_value=0.01, max_value=100.0)
temperature = st.floats(min_value=0.01, max_value=100.0)
kernel = st.sampled_from(["gaussian", "dot"])


@st.composite
def samples(draw, min_size=1, max_size=30):
    """keys and values of the same length."""
    n = draw(st.integers(min_size, max_size))
    k = np.array(draw(st.lists(position, min_size=n, max_size=n)))
    v = np.array(draw(st.lists(value, min_size=n, max_size=n)))
    return k, v


def strict():
    """No numpy floating-point error may pass silently, except underflow to 0 (exp of a very
    negative score is meant to be 0), and every warning is an error."""
    return np.errstate(all="raise", under="ignore")


@pytest.fixture(autouse=True)
def _warnings_are_errors():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


# ---------------------------------------------------------------- worked by hand

def test_predict_by_hand():
    # midway between two keys: the mean of their values
    assert attention.predict(0.5, [0.0, 1.0], [2.0, 4.0], bandwidth=0.7) == 3.0
    # query 0, h = 1: weights 1/(1 + e^-1/2) and e^-1/2/(1 + e^-1/2)
    w1 = 1.0 / (1.0 + math.exp(-0.5))
    assert attention.predict(0.0, [0.0, 1.0], [2.0, 4.0], bandwidth=1.0) == pytest.approx(
        2.0 * w1 + 4.0 * (1.0 - w1), abs=1e-14)


def test_entropy_and_effective_points_by_hand():
    assert float(attention.entropy_bits([0.5, 0.5])) == 1.0
    assert float(attention.entropy_bits([1.0, 0.0])) == 0.0
    assert float(attention.entropy_bits([1.0])) == 0.0
    assert float(attention.entropy_bits([0.25] * 4)) == 2.0
    assert float(attention.entropy_bits([0.5, 0.25, 0.25])) == 1.5
    assert float(attention.effective_points([0.5, 0.5])) == 2.0
    assert float(attention.effective_points([1.0, 0.0, 0.0])) == 1.0
    assert float(attention.effective_points([0.25] * 4)) == 4.0
    # over the last axis, row by row
    assert attention.entropy_bits(np.array([[0.5, 0.5], [1.0, 0.0]])).tolist() == [1.0, 0.0]
    # never -0.0
    assert math.copysign(1.0, float(attention.entropy_bits([0.0, 1.0]))) == 1.0


def test_readout_by_hand():
    r = attention.readout(0.5, [0.0, 1.0], [2.0, 4.0], bandwidth=0.3, true_function=lambda x: 10 * x)
    assert r == attention.Readout(query=0.5, n=2, max_weight=0.5, entropy_bits=1.0, effective_points=2.0,
                                  prediction=3.0, true_value=5.0, nearest_neighbor_prediction=3.0,
                                  global_mean=3.0)
    r = attention.readout(0.0, [0.0, 1.0, 2.0], [1.0, 2.0, 6.0], bandwidth=1.0)
    z = 1.0 + math.exp(-0.5) + math.exp(-2.0)
    w = [1.0 / z, math.exp(-0.5) / z, math.exp(-2.0) / z]
    assert r.max_weight == pytest.approx(1.0 / z, abs=1e-15)
    assert r.entropy_bits == pytest.approx(-sum(a * math.log2(a) for a in w), abs=1e-14)
    assert r.effective_points == pytest.approx(2.0 ** r.entropy_bits, abs=1e-14)
    assert r.prediction == pytest.approx(w[0] * 1.0 + w[1] * 2.0 + w[2] * 6.0, abs=1e-14)
    assert r.true_value is None
    assert r.nearest_neighbor_prediction == 1.0
    assert r.global_mean == 3.0
    assert set(r.as_dict()) == {"query", "n", "max_weight", "entropy_bits", "effective_points", "prediction",
                                "true_value", "nearest_neighbor_prediction", "global_mean"}


def test_nearest_neighbor_by_hand():
    k, v = [0.0, 1.0, 3.0], [10.0, 20.0, 30.0]
    assert attention.nearest_neighbor_predict(0.2, k, v) == 10.0
    assert attention.nearest_neighbor_predict(0.5, k, v) == 15.0        # a tie shares evenly
    assert attention.nearest_neighbor_predict(2.5, k, v) == 30.0
    assert attention.nearest_neighbor_predict(-50.0, k, v) == 10.0
    assert attention.nearest_neighbor_predict([0.2, 2.0, 9.0], k, v).tolist() == [10.0, 25.0, 30.0]
    assert attention.nearest_neighbor_predict(2.9, k, v, kernel="dot", bandwidth=0.5) == 30.0
    # duplicate keys tie exactly
    assert attention.nearest_neighbor_predict(1.1, [0.0, 1.0, 1.0], [0.0, 1.0, 2.0]) == 1.5


def test_vector_values_and_vector_queries():
    k = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    v = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    out = attention.predict(np.array([[0.0, 0.0], [5.0, 5.0]]), k, v, bandwidth=1e-9)
    assert out.shape == (2, 2)
    assert out[0].tolist() == [1.0, 0.0]
    assert out[1].tolist() == [0.5, 1.0]          # (5, 5) is equally far from (1, 0) and (0, 1)
    one = attention.predict(np.array([[0.2, 0.1]]), k, v)
    assert one.shape == (1, 2)                    # a (1, d) array is one vector query ...
    with pytest.raises(ValueError, match="^queries and keys must have the same dimension, got 1 and 2"):
        attention.predict([0.2, 0.1], k, v)       # ... and a 1-D array is 1-D positions


def test_predict_returns_a_float_for_a_scalar_query():
    p = attention.predict(1.0, [0.0, 2.0], [0.0, 1.0])
    assert isinstance(p, float) and p == 0.5
    assert attention.predict([1.0], [0.0, 2.0], [0.0, 1.0]).shape == (1,)


# ---------------------------------------------------------------- properties

@FAST
@given(kv=samples(), q=positions, h=bandwidth, t=temperature, kern=kernel)
def test_prediction_lies_within_the_values(kv, q, h, t, kern):
    k, v = kv
    p = attention.predict(q, k, v, kernel=kern, bandwidth=h, temperature=t)
    slack = 1e-12 * (1.0 + np.abs(v).max())
    assert np.all(p >= v.min() - slack) and np.all(p <= v.max() + slack)


@FAST
@given(kv=samples(), q=positions, h=bandwidth, kern=kernel, seed=st.integers(0, 2 ** 32 - 1))
def test_predict_is_invariant_to_permuting_keys_with_values(kv, q, h, kern, seed):
    k, v = kv
    p = np.random.default_rng(seed).permutation(k.shape[0])
    a = attention.predict(q, k, v, kernel=kern, bandwidth=h)
    b = attention.predict(q, k[p], v[p], kernel=kern, bandwidth=h)
    assert np.abs(a - b).max() <= 1e-12 * (1.0 + np.abs(v).max())
    wa = attention.weights(q, k, kernel=kern, bandwidth=h)
    wb = attention.weights(q, k[p], kernel=kern, bandwidth=h)
    assert np.abs(wa[:, p] - wb).max() <= 1e-12


def _nearest_mean(q, k, v):
    d = np.abs(k - q)
    return float(v[d == d.min()].mean()), np.sort(np.unique(d))


@FAST
@given(kv=samples(), q=position)
def test_tiny_bandwidth_is_one_nearest_neighbour(kv, q):
    k, v = kv
    expected, gaps = _nearest_mean(q, k, v)
    assume(gaps.shape[0] == 1 or gaps[1] - gaps[0] > 1e-6)   # no near-tie closer than 1e-6
    with strict():
        p = attention.predict(q, k, v, bandwidth=1e-9)
        nn = attention.nearest_neighbor_predict(q, k, v)
    assert p == pytest.approx(expected, rel=1e-12, abs=1e-12)
    assert nn == pytest.approx(expected, rel=1e-12, abs=1e-12)


@FAST
@given(kv=samples(), q=positions, kern=kernel)
# keys 2.2e-311 apart (found on Python 3.13): the circle's radius was that small, and q / R overflowed
@example(kv=(np.array([0.0, 2.22507386e-311]), np.array([0.0, 0.0])), q=np.array([1.0]), kern="dot")
def test_huge_bandwidth_is_the_global_mean(kv, q, kern):
    k, v = kv
    with strict():
        p = attention.predict(q, k, v, kernel=kern, bandwidth=1e9)
    assert np.abs(p - v.mean()).max() <= 1e-12 * (1.0 + np.abs(v).max())


@FAST
@given(q=positions, k=positions, h=bandwidth, t=temperature, kern=kernel)
def test_entropy_and_effective_points_ranges(q, k, h, t, kern):
    w = attention.weights(q, k, kernel=kern, bandwidth=h, temperature=t)
    n = k.shape[0]
    hb = attention.entropy_bits(w)
    ep = attention.effective_points(w)
    assert hb.shape == ep.shape == (q.shape[0],)
    # (a relative 1e-12 of slack at the top: uniform weights can round a hair above log2 n)
    assert np.all(hb >= 0.0) and np.all(hb <= math.log2(n) * (1 + 1e-12))
    assert np.all(ep >= 1.0) and np.all(ep <= n * (1 + 1e-12))
    assert np.allclose(ep, 2.0 ** hb, rtol=1e-15, atol=0)


@FAST
@given(kv=samples(), q=position, h=bandwidth, t=temperature, kern=kernel,
       f=st.sampled_from([None, math.sin, lambda x: 2 * x]))
def test_readout_agrees_with_the_separate_functions(kv, q, h, t, kern, f):
    k, v = kv
    r = attention.readout(q, k, v, kernel=kern, bandwidth=h, temperature=t, true_function=f)
    w = attention.weights(q, k, kernel=kern, bandwidth=h, temperature=t)
    assert r.query == q and r.n == k.shape[0]
    assert r.max_weight == float(w.max())
    assert r.entropy_bits == float(attention.entropy_bits(w))
    assert r.effective_points == pytest.approx(float(attention.effective_points(w)), rel=1e-15)
    assert r.prediction == attention.predict(q, k, v, kernel=kern, bandwidth=h, temperature=t)
    assert r.nearest_neighbor_prediction == attention.nearest_neighbor_predict(q, k, v, kernel=kern, bandwidth=h)
    assert r.global_mean == float(np.mean(v))
    assert r.true_value == (None if f is None else float(f(q)))


def test_readout_with_key_scale_matches_weights():
    d = attention.load_dataset()
    ks = attention.key_norm_tilt(d.x, 0.4)
    r = attention.readout(3.2, d.x, d.y, kernel="dot", bandwidth=0.62, key_scale=ks)
    w = attention.weights(3.2, d.x, kernel="dot", bandwidth=0.62, key_scale=ks)
    assert r.max_weight == float(w.max())
    assert r.prediction == float(w @ d.y)
    assert r.nearest_neighbor_prediction == attention.nearest_neighbor_predict(
        3.2, d.x, d.y, kernel="dot", bandwidth=0.62, key_scale=ks)


def test_readout_accepts_numpy_and_integer_queries():
    d = attention.load_dataset()
    a = attention.readout(3.0, d.x, d.y, bandwidth=0.5)
    assert attention.readout(np.float64(3.0), d.x, d.y, bandwidth=0.5) == a
    assert attention.readout(3, d.x, d.y, bandwidth=0.5) == a
    assert attention.readout(np.array(3.0), d.x, d.y, bandwidth=0.5) == a
    assert attention.readout(3.0, list(d.x), list(d.y), bandwidth=0.5) == a


# ---------------------------------------------------------------- numerical stability

EXTREME_QUERIES = [1e6, -1e6, 1e150, -1e150]


@pytest.mark.parametrize("kern", ["gaussian", "dot"])
@pytest.mark.parametrize("h", [1e-9, 0.62, 1e9])
@pytest.mark.parametrize("t", [1e-9, 1.0, 1e9])
def test_extreme_bandwidths_temperatures_and_queries(kern, h, t):
    d = attention.load_dataset()
    q = np.array([3.2, d.x[0], d.x[-1], *EXTREME_QUERIES])
    with strict():
        w = attention.weights(q, d.x, kernel=kern, bandwidth=h, temperature=t)
        p = attention.predict(q, d.x, d.y, kernel=kern, bandwidth=h, temperature=t)
        hb, ep = attention.entropy_bits(w), attention.effective_points(w)
        nn = attention.nearest_neighbor_predict(q, d.x, d.y, kernel=kern, bandwidth=h)
        rs = [attention.readout(float(x), d.x, d.y, kernel=kern, bandwidth=h, temperature=t,
                                true_function=d.true_function) for x in q]
    for a in (w, p, hb, ep, nn):
        assert np.all(np.isfinite(a))
    assert np.all(np.abs(w.sum(axis=1) - 1.0) <= 1e-12) and np.all(w >= 0)
    assert np.all((p >= d.y.min() - 1e-12) & (p <= d.y.max() + 1e-12))
    for r in rs:
        assert all(math.isfinite(x) for x in r.as_dict().values())


def test_far_queries_get_the_nearest_end():
    d = attention.load_dataset()
    with strict():
        for h in (1e-9, 0.62):
            w = attention.weights(np.array([1e6, -1e6]), d.x, bandwidth=h)
            assert w[0].argmax() == d.n - 1 and w[1].argmax() == 0
            assert w[0, -1] == 1.0 and w[1, 0] == 1.0        # every other weight underflows to 0


def test_astronomical_query_is_finite_with_vector_keys():
    rng = np.random.default_rng(0)
    k, v = rng.normal(size=(20, 3)), rng.normal(size=20)
    for qq in EXTREME_QUERIES:
        q = np.array([[qq, 0.5, -qq]])
        with strict():
            for kern, h in (("gaussian", 1e-9), ("gaussian", 1.0), ("gaussian", 1e9), ("dot", 1.0)):
                w = attention.weights(q, k, kernel=kern, bandwidth=h)
                assert np.all(np.isfinite(w)) and abs(w.sum() - 1.0) <= 1e-12
                assert np.isfinite(attention.predict(q, k, v, kernel=kern, bandwidth=h)).all()


@pytest.mark.parametrize("kern", ["gaussian", "dot"])
def test_one_hundred_thousand_keys(kern):
    rng = np.random.default_rng(1)
    x = np.sort(rng.uniform(0.0, 6.0, 100_000))
    y = np.sin(x)
    with strict():
        for h in (1e-9, 0.05, 1e9):
            r = attention.readout(3.2, x, y, kernel=kern, bandwidth=h)
            assert all(math.isfinite(a) for a in r.as_dict().values() if a is not None)
            assert 1.0 <= r.effective_points <= 100_000 * (1 + 1e-12)
            w = attention.weights(np.array([3.2, -1e6]), x, kernel=kern, bandwidth=h)
            assert np.all(np.abs(w.sum(axis=1) - 1.0) <= 1e-12)
        assert attention.readout(3.2, x, y, kernel=kern, bandwidth=1e-9).max_weight == 1.0
        assert attention.readout(3.2, x, y, kernel=kern, bandwidth=1e9).effective_points == pytest.approx(
            100_000, rel=1e-9)


def test_tiny_bandwidth_is_one_hot_and_ties_split_evenly():
    d = attention.load_dataset()
    with strict():
        w = attention.weights(3.2, d.x, bandwidth=1e-9)
        i = int(np.abs(d.x - 3.2).argmin())
        assert w[i] == 1.0 and np.count_nonzero(w) == 1
        i, j = 12, 13
        mid = (d.x[i] + d.x[j]) / 2          # 3.16 and 3.38: 3.27 is equidistant in floating point too
        assert abs(mid - d.x[i]) == abs(d.x[j] - mid)
        w = attention.weights(mid, d.x, bandwidth=1e-9)
        assert w[i] == 0.5 and w[j] == 0.5 and np.count_nonzero(w) == 2
        r = attention.readout(float(mid), d.x, d.y, bandwidth=1e-9)
        assert r.max_weight == 0.5 and r.entropy_bits == 1.0 and r.effective_points == 2.0
        assert r.prediction == r.nearest_neighbor_prediction == (d.y[i] + d.y[j]) / 2
        # the same for T -> 0
        w = attention.weights(0.5, [0.0, 1.0], bandwidth=1.0, temperature=1e-9)
        assert w.tolist() == [0.5, 0.5]
        # The dot kernel is one-hot on the nearest key too.  (An exact tie it cannot split: its
        # 1-D scores are dot products of size R^2 / h^2 ~ 1e20 whose rounding, not the geometry,
        # then picks the winner.)
        w = attention.weights(3.2, d.x, kernel="dot", bandwidth=1e-9)
        i = int(np.abs(d.x - 3.2).argmin())
        assert w[i] == 1.0 and np.count_nonzero(w) == 1


# ---------------------------------------------------------------- leave-one-out and bias/variance

def test_loo_error_has_an_interior_minimum_on_the_default_data():
    d = attention.load_dataset()
    hs = np.geomspace(0.01, 100.0, 25)
    loo = attention.loo_error(d.x, d.y, bandwidths=hs)
    assert loo.shape == hs.shape and np.all(np.isfinite(loo)) and np.all(loo > 0)
    best = int(loo.argmin())
    assert 0 < best < hs.shape[0] - 1
    assert loo[0] > 1.2 * loo[best] and loo[-1] > 1.2 * loo[best]


def test_loo_error_limits_by_hand():
    d = attention.load_dataset()
    x, y = d.x, d.y
    n = d.n
    # h -> 0: each sample predicted by its nearest *other* sample (ties averaged)
    nn = []
    for i in range(n):
        dist = np.abs(x - x[i])
        dist[i] = np.inf
        nn.append(y[dist == dist.min()].mean())
    expected_small = np.mean((y - np.array(nn)) ** 2)
    # h -> infinity: by the mean of the other n - 1 samples
    others = (y.sum() - y) / (n - 1)
    expected_large = np.mean((y - others) ** 2)
    with strict():
        small, large = attention.loo_error(x, y, bandwidths=[1e-9, 1e9])
    assert small == pytest.approx(expected_small, rel=1e-12)
    assert large == pytest.approx(expected_large, rel=1e-9)


def test_loo_error_never_copies_the_sample_itself():
    # with two samples, LOO predicts each from the other whatever h is
    for h in (1e-3, 1.0, 1e3):
        assert attention.loo_error([0.0, 1.0], [1.0, 3.0], bandwidths=[h])[0] == 4.0


def test_bias_grows_and_variance_falls_with_bandwidth():
    d = attention.load_dataset()
    hs = [0.02, 0.1, 0.3, 1.0, 3.0, 10.0]
    bv = attention.bias_variance(d.x, d.true_function, noise=0.3, bandwidths=hs, n_resamples=500, seed=1)
    assert set(bv) >= {"bandwidth", "bias2", "variance", "error"}
    assert bv["bandwidth"].tolist() == hs
    b, v = bv["bias2"], bv["variance"]
    assert np.all(b >= 0) and np.all(v >= 0)
    assert np.allclose(bv["error"], b + v)
    # coarse trend, allowing noise: compare the ends and the halves
    assert b[-1] > 10 * b[0] and v[0] > 10 * v[-1]
    assert b[3:].mean() > b[:3].mean() and v[:3].mean() > v[3:].mean()


def test_bias_variance_variance_matches_the_analytic_variance():
    d = attention.load_dataset()
    sigma = 0.3
    hs = [0.1, 0.62, 3.0]
    bv = attention.bias_variance(d.x, d.true_function, noise=sigma, bandwidths=hs, n_resamples=20_000, seed=3)
    for g, h in enumerate(hs):
        w = attention.weights(d.x, d.x, bandwidth=h)
        analytic = sigma ** 2 * np.mean(np.sum(w * w, axis=1))
        assert bv["variance"][g] == pytest.approx(analytic, rel=0.03)
        # and bias^2 against the exact mean fit W f
        exact_bias2 = np.mean((w @ d.true_function(d.x) - d.true_function(d.x)) ** 2)
        assert bv["bias2"][g] == pytest.approx(exact_bias2, rel=0.05, abs=2e-4)


def test_bias_variance_is_reproducible_and_zero_noise_has_no_variance():
    d = attention.load_dataset()
    a = attention.bias_variance(d.x, d.true_function, noise=0.3, bandwidths=[0.5], n_resamples=50, seed=7)
    b = attention.bias_variance(d.x, d.true_function, noise=0.3, bandwidths=[0.5], n_resamples=50, seed=7)
    assert a["variance"].tolist() == b["variance"].tolist()
    z = attention.bias_variance(d.x, d.true_function, noise=0.0, bandwidths=[0.5], n_resamples=5)
    assert z["variance"][0] == pytest.approx(0.0, abs=1e-28)
    ev = attention.bias_variance(d.x, d.true_function, noise=0.3, bandwidths=[0.5], n_resamples=5,
                                 eval_points=np.linspace(0, 6, 7))
    assert ev["bias2"].shape == (1,)


# ---------------------------------------------------------------- argument checks

BAD_POSITIVE = [0.0, -1.0, float("nan"), float("inf"), -float("inf"), "wide", None]


@pytest.mark.parametrize("bad", BAD_POSITIVE)
def test_bad_bandwidth(bad):
    for call in (lambda: attention.weights(1.0, [0.0, 1.0], bandwidth=bad),
                 lambda: attention.predict(1.0, [0.0, 1.0], [1.0, 2.0], bandwidth=bad),
                 lambda: attention.readout(1.0, [0.0, 1.0], [1.0, 2.0], bandwidth=bad),
                 lambda: attention.nearest_neighbor_predict(1.0, [0.0, 1.0], [1.0, 2.0], bandwidth=bad)):
        with pytest.raises(ValueError, match=r"^bandwidth must be a positive finite number"):
            call()


@pytest.mark.parametrize("bad", BAD_POSITIVE)
def test_bad_temperature(bad):
    for call in (lambda: attention.weights(1.0, [0.0, 1.0], temperature=bad),
                 lambda: attention.predict(1.0, [0.0, 1.0], [1.0, 2.0], temperature=bad),
                 lambda: attention.readout(1.0, [0.0, 1.0], [1.0, 2.0], temperature=bad)):
        with pytest.raises(ValueError, match=r"^temperature must be a positive finite number"):
            call()


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf")])
def test_non_finite_inputs(bad):
    with pytest.raises(ValueError, match=r"^queries must contain only finite numbers"):
        attention.weights(bad, [0.0, 1.0])
    with pytest.raises(ValueError, match=r"^queries must contain only finite numbers"):
        attention.predict([0.0, bad], [0.0, 1.0], [1.0, 2.0])
    with pytest.raises(ValueError, match=r"^keys must contain only finite numbers"):
        attention.weights(0.5, [0.0, bad])
    with pytest.raises(ValueError, match=r"^keys must contain only finite numbers"):
        attention.readout(0.5, [0.0, bad], [1.0, 2.0])
    with pytest.raises(ValueError, match=r"^values must contain only finite numbers"):
        attention.predict(0.5, [0.0, 1.0], [1.0, bad])
    with pytest.raises(ValueError, match=r"^values must contain only finite numbers"):
        attention.readout(0.5, [0.0, 1.0], [1.0, bad])
    with pytest.raises(ValueError, match=r"^query must contain only finite numbers"):
        attention.readout(bad, [0.0, 1.0], [1.0, 2.0])
    with pytest.raises(ValueError, match=r"^key_scale must contain only finite numbers"):
        attention.weights(0.5, [0.0, 1.0], kernel="dot", key_scale=[1.0, bad])
    with pytest.raises(ValueError, match=r"^bandwidths must contain only finite numbers"):
        attention.loo_error([0.0, 1.0], [1.0, 2.0], bandwidths=[0.5, bad])
    with pytest.raises(ValueError, match=r"^noise must be"):
        attention.bias_variance([0.0, 1.0], np.sin, noise=bad, bandwidths=[0.5])


def test_shape_mismatches():
    with pytest.raises(ValueError, match=r"^values must have one entry per key \(2\), got 3"):
        attention.predict(0.5, [0.0, 1.0], [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match=r"^values must have one entry per key"):
        attention.readout(0.5, [0.0, 1.0], [1.0])
    with pytest.raises(ValueError, match=r"^values must have one entry per key"):
        attention.nearest_neighbor_predict(0.5, [0.0, 1.0], [1.0])
    with pytest.raises(ValueError, match=r"^values must have one entry per key"):
        attention.loo_error([0.0, 1.0], [1.0], bandwidths=[1.0])
    with pytest.raises(ValueError, match=r"^queries and keys must have the same dimension, got 2 and 3"):
        attention.weights(np.zeros((1, 2)), np.zeros((4, 3)))
    with pytest.raises(ValueError, match=r"^queries and keys must have the same dimension"):
        attention.weights(0.5, np.zeros((4, 3)))
    with pytest.raises(ValueError, match=r"^values must be one number per key for a readout"):
        attention.readout(0.5, [0.0, 1.0], np.zeros((2, 2)))
    with pytest.raises(ValueError, match=r"^query must have between 0 and 0 dimensions"):
        attention.readout([0.5, 0.6], [0.0, 1.0], [1.0, 2.0])
    with pytest.raises(ValueError, match=r"^keys must have between 1 and 2 dimensions"):
        attention.weights(0.5, 1.0)
    with pytest.raises(ValueError, match=r"^keys must have between 1 and 2 dimensions"):
        attention.weights(0.5, np.zeros((2, 2, 2)))
    with pytest.raises(ValueError, match=r"^queries must have at least one coordinate"):
        attention.weights(np.zeros((1, 0)), np.zeros((2, 0)))
    with pytest.raises(ValueError, match=r"^keys must hold at least 2 samples"):
        attention.loo_error([0.0], [1.0], bandwidths=[1.0])
    with pytest.raises(ValueError, match=r"^queries must be an array of numbers"):
        attention.weights("near", [0.0, 1.0])


def test_no_keys():
    with pytest.raises(ValueError, match=r"^keys must not be empty"):
        attention.weights(0.5, [])
    with pytest.raises(ValueError, match=r"^keys must not be empty"):
        attention.weights(np.zeros((1, 2)), np.zeros((0, 2)))
    with pytest.raises(ValueError, match=r"^keys must not be empty"):
        attention.readout(0.5, [], [])
    with pytest.raises(ValueError, match=r"^queries must not be empty"):
        attention.predict([], [0.0, 1.0], [1.0, 2.0])


@pytest.mark.parametrize("bad", ["Gaussian", "rbf", "", None, 3])
def test_unknown_kernel(bad):
    with pytest.raises(ValueError, match=r"^kernel must be one of 'gaussian', 'dot', got"):
        attention.weights(0.5, [0.0, 1.0], kernel=bad)
    with pytest.raises(ValueError, match=r"^kernel must be one of"):
        attention.readout(0.5, [0.0, 1.0], [1.0, 2.0], kernel=bad)
    with pytest.raises(ValueError, match=r"^kernel must be one of"):
        attention.loo_error([0.0, 1.0], [1.0, 2.0], bandwidths=[1.0], kernel=bad)


def test_dot_kernel_with_vector_keys_takes_no_bandwidth():
    k = np.eye(3)
    attention.weights(np.ones((1, 3)), k, kernel="dot", bandwidth=1.0)   # fine
    with pytest.raises(ValueError, match=r"^bandwidth applies to the 'gaussian' kernel and to 1-D positions"):
        attention.weights(np.ones((1, 3)), k, kernel="dot", bandwidth=2.0)


def test_key_scale_checks():
    with pytest.raises(ValueError, match=r"^key_scale applies to the 'dot' kernel only"):
        attention.weights(0.5, [0.0, 1.0], kernel="gaussian", key_scale=[1.0, 1.0])
    with pytest.raises(ValueError, match=r"^key_scale applies to the 'dot' kernel only"):
        attention.readout(0.5, [0.0, 1.0], [1.0, 2.0], key_scale=[1.0, 1.0])
    with pytest.raises(ValueError, match=r"^key_scale must hold one positive factor per key \(2\)"):
        attention.weights(0.5, [0.0, 1.0], kernel="dot", key_scale=[1.0, 1.0, 1.0])
    with pytest.raises(ValueError, match=r"^key_scale must hold one positive factor per key"):
        attention.weights(0.5, [0.0, 1.0], kernel="dot", key_scale=[1.0, 0.0])
    with pytest.raises(ValueError, match=r"^key_scale must have between 1 and 1 dimensions"):
        attention.weights(0.5, [0.0, 1.0], kernel="dot", key_scale=2.0)


def test_bias_variance_checks():
    with pytest.raises(ValueError, match=r"^noise must be a finite number >= 0"):
        attention.bias_variance([0.0, 1.0], np.sin, noise=-0.1, bandwidths=[0.5])
    with pytest.raises(ValueError, match=r"^true_function is needed"):
        attention.bias_variance([0.0, 1.0], None, noise=0.1, bandwidths=[0.5])
    with pytest.raises(ValueError, match=r"^bandwidth must be a positive finite number"):
        attention.bias_variance([0.0, 1.0], np.sin, noise=0.1, bandwidths=[0.0])
    with pytest.raises(ValueError, match=r"^bandwidth must be a positive finite number"):
        attention.loo_error([0.0, 1.0], [1.0, 2.0], bandwidths=[-1.0])
