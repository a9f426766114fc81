"""Kernels, scores and the softmax: the properties the explorable teaches.

Properties run under hypothesis; a few cases are worked by hand.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import attention
from attention import kernels

FAST = settings(max_examples=60, deadline=None)

position = st.floats(min_value=-10.0, max_value=10.0, allow_nan=False, allow_infinity=False)
positions = st.lists(position, min_size=1, max_size=30).map(np.array)
bandwidth = st.floats(min_value=0.01, max_value=100.0)
temperature = st.floats(min_value=0.01, max_value=100.0)


def reference_gaussian_weights(q: float, keys, h: float, t: float = 1.0) -> list[float]:
    """exp(-(q - k)^2 / (2 h^2 T)) normalised, in plain Python, shifted by the nearest key.

    (q - k)^2 - d_min^2 is taken as (|q - k| - d_min)(|q - k| + d_min): the plain
    difference of squares cancels catastrophically for keys 1e-8 apart.
    """
    d = [abs(q - k) for k in keys]
    near = min(d)
    e = [math.exp(-((x - near) * (x + near)) / (2 * h * h * t)) for x in d]
    z = sum(e)
    return [x / z for x in e]


# ---------------------------------------------------------------- worked by hand

def test_two_keys_midway_split_evenly():
    assert attention.weights(0.5, [0.0, 1.0], bandwidth=0.3).tolist() == [0.5, 0.5]
    assert attention.weights(0.5, [0.0, 1.0], bandwidth=1e-9).tolist() == [0.5, 0.5]


def test_gaussian_weights_by_hand():
    # query 0, keys 0 and 1, h = 1: scores 0 and -1/2
    w = attention.weights(0.0, [0.0, 1.0], bandwidth=1.0)
    expected = [1.0 / (1.0 + math.exp(-0.5)), math.exp(-0.5) / (1.0 + math.exp(-0.5))]
    assert w == pytest.approx(expected, abs=1e-15)
    # three keys at 0, 1, 2, query 1, h = 1: scores -1/2, 0, -1/2
    w = attention.weights(1.0, [0.0, 1.0, 2.0], bandwidth=1.0)
    z = 1.0 + 2.0 * math.exp(-0.5)
    assert w == pytest.approx([math.exp(-0.5) / z, 1.0 / z, math.exp(-0.5) / z], abs=1e-15)


def test_temperature_by_hand():
    # T = 2 halves the scores: weights exp(0), exp(-1/4)
    w = attention.weights(0.0, [0.0, 1.0], bandwidth=1.0, temperature=2.0)
    z = 1.0 + math.exp(-0.25)
    assert w == pytest.approx([1.0 / z, math.exp(-0.25) / z], abs=1e-15)


def test_softmax_by_hand():
    assert attention.softmax(np.array([0.0, 0.0])).tolist() == [0.5, 0.5]
    assert attention.softmax(np.array([1.0, 1.0, 1.0, 1.0])).tolist() == [0.25] * 4
    w = attention.softmax(np.array([math.log(1.0), math.log(3.0)]))
    assert w == pytest.approx([0.25, 0.75], abs=1e-15)
    # -inf is a masked score: weight exactly 0
    assert attention.softmax(np.array([0.0, -np.inf, 0.0])).tolist() == [0.5, 0.0, 0.5]
    # huge scores do not overflow (the log-sum-exp shift)
    with np.errstate(all="raise"):
        assert attention.softmax(np.array([1000.0, 1000.0])).tolist() == [0.5, 0.5]


def test_softmax_axis():
    s = np.array([[0.0, 0.0], [0.0, math.log(3.0)]])
    assert attention.softmax(s, axis=0) == pytest.approx(np.array([[0.5, 0.25], [0.5, 0.75]]), abs=1e-15)
    assert attention.softmax(s, axis=1) == pytest.approx(np.array([[0.5, 0.5], [0.25, 0.75]]), abs=1e-15)


def test_softmax_does_not_modify_its_input():
    s = np.array([[1.0, 2.0, 3.0]])
    before = s.copy()
    attention.softmax(s)
    assert np.array_equal(s, before)


def test_softmax_mask_gives_weight_zero_and_broadcasts():
    s = np.array([[[2.0, 1.0, 9.0], [0.0, 0.0, 0.0]]] * 2)              # (2, 2, 3): a batch axis first
    keep = np.array([[True, True, False], [True, False, True]])         # broadcast over the batch axis
    w = attention.softmax(s, mask=keep)
    z = 1.0 + math.exp(-1.0)
    for b in range(2):
        assert w[b, 0] == pytest.approx([1.0 / z, math.exp(-1.0) / z, 0.0], abs=1e-15)
        assert w[b, 1].tolist() == [0.5, 0.0, 0.5]
    assert s[0, 0, 2] == 9.0                                            # the input is left alone


def test_softmax_out_writes_in_place_with_the_same_numbers():
    rng = np.random.default_rng(3)
    s = rng.normal(size=(5, 7)) * 40
    expected = attention.softmax(s, axis=0)
    buf = np.empty_like(s)
    assert attention.softmax(s, axis=0, out=buf) is buf
    assert np.array_equal(buf, expected)
    t = s.copy()
    assert attention.softmax(t, axis=0, out=t) is t
    assert np.array_equal(t, expected)


def test_softmax_shifted_skips_a_shift_that_would_subtract_zero():
    rng = np.random.default_rng(4)
    s = rng.normal(size=(6, 9)) * 30
    s -= s.max(axis=1, keepdims=True)                                   # every row's maximum is exactly 0
    assert np.array_equal(attention.softmax(s, axis=1, shifted=True), attention.softmax(s, axis=1))
    masked = np.tril(np.ones((6, 9), dtype=bool))
    s2 = np.where(masked, s, -np.inf)
    s2 -= s2.max(axis=1, keepdims=True)
    assert np.array_equal(attention.softmax(s2, axis=1, mask=masked, shifted=True),
                          attention.softmax(s, axis=1, mask=masked))


# Every exp in the core that is not kernels.softmax, with what it computes.  A softmax written by hand
# elsewhere (exp of shifted scores, then a division by their sum) should call kernels.softmax instead.
_OTHER_EXPS = {
    "datasets.py": ["1.5 * np.exp(-0.5 *"],                          # the "bump" function's Gaussian
    "kernels.py": ["np.exp(out, out=out)",                          # the softmax itself
                   "np.exp(strength * u)"],                         # key_norm_tilt's norm factors
    "learn.py": ["np.exp(np.negative(sigma))",                      # windowed LOO sums, not weights
                 "h=np.exp(log_h)"],                                # h from log h
    "learn_qk.py": ["np.exp(-np.logaddexp(0.0, margin))"],         # the logistic loss's sigma(-margin)
}


def test_the_core_has_one_softmax():
    from pathlib import Path
    found = {}
    for path in sorted(Path(kernels.__file__).parent.glob("*.py")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if "np.exp(" in line and not line.lstrip().startswith("#"):
                found.setdefault(path.name, []).append(line)
    unexplained = {name: [ln.strip() for ln in lines if not any(ok in ln for ok in _OTHER_EXPS.get(name, ()))]
                   for name, lines in found.items()}
    assert {k: v for k, v in unexplained.items() if v} == {}, "use attention.kernels.softmax"
    assert sum(len(v) for v in found.values()) == sum(len(v) for v in _OTHER_EXPS.values())


def test_circle_embedding_by_hand():
    p = attention.circle_embedding(np.array([0.0, math.pi]), radius=1.0)
    assert p == pytest.approx(np.array([[1.0, 0.0], [-1.0, 0.0]]), abs=1e-15)
    p = attention.circle_embedding(2.0 * math.pi, radius=4.0)  # a quarter turn of a radius-4 circle
    assert p.shape == (2,)
    assert p == pytest.approx([0.0, 4.0], abs=1e-14)


def test_circle_radius():
    assert kernels.circle_radius(np.array([1.0, 4.0, 2.0])) == 2.0 * 3.0
    assert kernels.circle_radius(np.array([5.0, 5.0])) == 1.0  # no span: a unit circle
    # a span too small to square (found by Hypothesis on Python 3.13: x / R overflowed for keys 0 and 2.2e-311)
    assert kernels.circle_radius(np.array([0.0, 2.22507386e-311])) == 1.0
    assert kernels.circle_radius(np.array([0.0, kernels.SMALLEST_SPAN])) == 2.0 * kernels.SMALLEST_SPAN
    assert np.isfinite(attention.predict(np.array([1.0]), np.array([0.0, 2.22507386e-311]), np.zeros(2),
                                         kernel="dot", bandwidth=1e9)).all()


def test_key_norm_tilt_by_hand():
    assert attention.key_norm_tilt([0.0, 1.0, 2.0], 0.0).tolist() == [1.0, 1.0, 1.0]
    s = attention.key_norm_tilt([0.0, 1.0, 2.0], 1.0)
    assert s == pytest.approx([math.exp(-1.0), 1.0, math.e], abs=1e-15)
    assert attention.key_norm_tilt([3.0, 3.0], 2.0).tolist() == [1.0, 1.0]


# ---------------------------------------------------------------- scores

grid_positions = st.lists(st.floats(-10.0, 10.0).map(lambda v: round(v, 6)), min_size=1, max_size=30).map(np.array)


@FAST
@given(q=grid_positions, k=grid_positions, h=bandwidth)
def test_gaussian_scores_follow_their_formula(q, k, h):
    # (positions on a 1e-6 grid: a gap of 1e-196 would square to an underflowed 0 and tie)
    s = kernels.scores(q[:, None], k[:, None], kernel="gaussian", bandwidth=h)
    assert s.shape == (q.shape[0], k.shape[0])
    # the row maximum is exactly 0, at the nearest key(s)
    assert np.all(s.max(axis=1) == 0.0)
    d = np.abs(q[:, None] - k[None, :])
    assert np.array_equal(s == 0.0, d == d.min(axis=1, keepdims=True))
    expected = -(d ** 2 - d.min(axis=1, keepdims=True) ** 2) / (2 * h * h)
    assert np.allclose(s, expected, rtol=1e-9, atol=1e-9 * (1 + np.abs(expected).max()))


@FAST
@given(data=st.data(), m=st.integers(1, 4), n=st.integers(1, 8), d=st.integers(2, 5))
def test_vector_scores_follow_their_formula(data, m, n, d):
    coord = st.floats(min_value=-5, max_value=5)
    q = np.array(data.draw(st.lists(coord, min_size=m * d, max_size=m * d))).reshape(m, d)
    k = np.array(data.draw(st.lists(coord, min_size=n * d, max_size=n * d))).reshape(n, d)
    g = kernels.scores(q, k, kernel="gaussian", bandwidth=1.5)
    d2 = ((q[:, None, :] - k[None, :, :]) ** 2).sum(-1)
    assert np.allclose(g, -(d2 - d2.min(1, keepdims=True)) / (2 * 1.5 ** 2), atol=1e-12)
    s = kernels.scores(q, k, kernel="dot", bandwidth=1.0)
    raw = q @ k.T / math.sqrt(d)
    assert np.allclose(s, raw - raw.max(1, keepdims=True), atol=1e-12)
    assert np.all(s.max(axis=1) == 0.0) and np.all(g.max(axis=1) == 0.0)


def test_scores_of_one_dimensional_dot_are_circle_dot_products():
    x = np.array([0.0, 0.7, 1.5, 3.0])
    q = np.array([0.2, 2.9])
    h = 0.8
    r = kernels.circle_radius(x)
    pq, pk = attention.circle_embedding(q, radius=r), attention.circle_embedding(x, radius=r)
    raw = pq @ pk.T / h ** 2
    s = kernels.scores(q[:, None], x[:, None], kernel="dot", bandwidth=h)
    assert np.allclose(s, raw - raw.max(1, keepdims=True), atol=1e-12)


# ---------------------------------------------------------------- weight properties

@FAST
@given(q=positions, k=positions, h=bandwidth, t=temperature, kernel=st.sampled_from(["gaussian", "dot"]))
def test_weights_are_a_probability_distribution(q, k, h, t, kernel):
    w = attention.weights(q, k, kernel=kernel, bandwidth=h, temperature=t)
    assert w.shape == (q.shape[0], k.shape[0])
    assert np.all(w >= 0.0)
    assert np.all(np.abs(w.sum(axis=1) - 1.0) <= 1e-12)
    # the top-scoring key always keeps weight >= 1/n, and nothing exceeds 1
    assert np.all(w.max(axis=1) >= 1.0 / k.shape[0] - 1e-15)
    assert np.all(w <= 1.0)


@FAST
@given(q=position, k=st.lists(st.floats(-3, 3), min_size=1, max_size=20).map(np.array),
       h=st.floats(0.5, 10.0), t=st.floats(0.5, 4.0))
def test_weights_are_strictly_positive_without_underflow(q, k, h, t):
    # all squared distances are at most (13)^2 / (2 * 0.25 * 0.5) = 338 in score: exp(-338) > 0
    w = attention.weights(q, k, bandwidth=h, temperature=t)
    assert np.all(w > 0.0)
    assert w == pytest.approx(reference_gaussian_weights(q, k.tolist(), h, t), rel=1e-11, abs=1e-300)


@FAST
@given(q=position, k=positions, h=bandwidth, t=temperature)
def test_gaussian_matches_a_plain_python_reference(q, k, h, t):
    w = attention.weights(q, k, bandwidth=h, temperature=t)
    assert w == pytest.approx(reference_gaussian_weights(q, k.tolist(), h, t), abs=1e-12)


@FAST
@given(q=positions, k=positions, h=bandwidth, t=temperature)
def test_temperature_equals_a_wider_bandwidth(q, k, h, t):
    a = attention.weights(q, k, kernel="gaussian", bandwidth=h, temperature=t)
    b = attention.weights(q, k, kernel="gaussian", bandwidth=h * math.sqrt(t))
    assert np.abs(a - b).max() <= 1e-12


@FAST
@given(data=st.data(), n=st.integers(1, 12), d=st.integers(2, 6), r=st.floats(0.2, 3.0))
def test_dot_on_equal_norm_keys_is_a_gaussian(data, n, d, r):
    coord = st.floats(min_value=-1, max_value=1)
    raw = np.array(data.draw(st.lists(coord, min_size=n * d, max_size=n * d))).reshape(n, d)
    norms = np.linalg.norm(raw, axis=1)
    assume(np.all(norms > 1e-3))
    keys = r * raw / norms[:, None]                    # every key has norm r
    q = np.array(data.draw(st.lists(st.floats(-3, 3), min_size=2 * d, max_size=2 * d))).reshape(2, d)
    a = attention.weights(q, keys, kernel="dot")
    b = attention.weights(q, keys, kernel="gaussian", bandwidth=d ** 0.25)
    assert np.abs(a - b).max() <= 1e-12


@FAST
@given(q=st.lists(st.floats(-3, 9), min_size=1, max_size=8).map(np.array),
       x=st.lists(st.floats(0, 6).map(lambda v: round(v, 3)), min_size=1, max_size=30).map(np.array),
       h=st.floats(0.3, 10.0))
def test_one_dimensional_dot_is_the_gaussian_of_circle_embedded_points(q, x, h):
    r = kernels.circle_radius(x)
    a = attention.weights(q, x, kernel="dot", bandwidth=h)
    b = attention.weights(attention.circle_embedding(q, radius=r), attention.circle_embedding(x, radius=r),
                          kernel="gaussian", bandwidth=h)
    assert np.abs(a - b).max() <= 1e-12


@FAST
@given(q=st.floats(0.5, 5.5), h=st.floats(0.3, 3.0),
       strength=st.one_of(st.floats(0.1, 2.0), st.floats(-2.0, -0.1)))
def test_key_norm_tilt_breaks_the_equivalence(q, h, strength):
    d = attention.load_dataset()
    r = kernels.circle_radius(d.x)
    gauss = attention.weights(attention.circle_embedding(q, radius=r)[None], attention.circle_embedding(d.x, radius=r),
                              bandwidth=h)[0]
    flat = attention.weights(q, d.x, kernel="dot", bandwidth=h, key_scale=attention.key_norm_tilt(d.x, 0.0))
    tilted = attention.weights(q, d.x, kernel="dot", bandwidth=h, key_scale=attention.key_norm_tilt(d.x, strength))
    assert np.abs(flat - gauss).max() <= 1e-12          # strength 0: norms equal, still a Gaussian
    assert np.abs(tilted - gauss).max() > 1e-6          # tilted norms: not any more
    # longer keys win weight: a right tilt moves the weighted mean position right
    shift = float(tilted @ d.x - gauss @ d.x)
    assert shift > 0 if strength > 0 else shift < 0


@FAST
@given(k=positions, q=positions, kernel=st.sampled_from(["gaussian", "dot"]))
def test_huge_bandwidth_gives_uniform_weights(k, q, kernel):
    w = attention.weights(q, k, kernel=kernel, bandwidth=1e9)
    assert np.abs(w - 1.0 / k.shape[0]).max() <= 1e-12


@FAST
@given(k=positions, q=positions, h=st.floats(0.5, 5.0))
def test_huge_temperature_gives_uniform_weights(k, q, h):
    # scores are at most 20^2 / (2 * 0.25) = 800 here; / 1e15 leaves them below 1e-12
    w = attention.weights(q, k, bandwidth=h, temperature=1e15)
    assert np.abs(w - 1.0 / k.shape[0]).max() <= 1e-12


def test_weights_of_a_scalar_query_are_one_row():
    w = attention.weights(1.0, [0.0, 1.0, 2.0])
    assert w.shape == (3,)
    assert np.array_equal(attention.weights([1.0], [0.0, 1.0, 2.0])[0], w)
    assert np.array_equal(attention.weights(np.array([[1.0]]), np.array([[0.0], [1.0], [2.0]]))[0], w)
