"""Self-attention: rows are kernel-regression queries, masks, heads and argument checks."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import attention

FAST = settings(max_examples=50, deadline=None)
entry = st.floats(min_value=-3.0, max_value=3.0)


def matrix(rows, cols):
    return hnp.arrays(np.float64, (rows, cols), elements=entry)


def reference_attention(q, k, v, causal=False, t=1.0):
    """softmax(Q K^T / (sqrt(d) T)) V in plain Python loops."""
    n, d = len(q), len(q[0])
    out, weights = [], []
    for i in range(n):
        s = [sum(q[i][c] * k[j][c] for c in range(d)) / (math.sqrt(d) * t) for j in range(len(k))]
        if causal:
            s = [x if j <= i else -math.inf for j, x in enumerate(s)]
        top = max(s)
        e = [math.exp(x - top) for x in s]
        z = sum(e)
        w = [x / z for x in e]
        weights.append(w)
        out.append([sum(w[j] * v[j][c] for j in range(len(v))) for c in range(len(v[0]))])
    return np.array(out), np.array(weights)


@pytest.fixture(autouse=True)
def _warnings_are_errors():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


# ---------------------------------------------------------------- by hand

def test_two_tokens_by_hand():
    q = np.array([[1.0, 0.0]])
    k = np.array([[1.0, 0.0], [0.0, 1.0]])
    v = np.array([[10.0], [20.0]])
    out, w = attention.dot_product_attention(q, k, v)
    # scores 1/sqrt(2) and 0
    a = math.exp(1 / math.sqrt(2))
    assert w[0] == pytest.approx([a / (a + 1), 1 / (a + 1)], abs=1e-15)
    assert out[0, 0] == pytest.approx(10 * a / (a + 1) + 20 / (a + 1), abs=1e-13)


def test_identical_keys_give_equal_weights():
    out, w = attention.dot_product_attention(np.ones((3, 4)), np.ones((5, 4)), np.arange(10.0).reshape(5, 2))
    assert np.allclose(w, 0.2, rtol=0, atol=1e-15)
    assert np.allclose(out, [[4.0, 5.0]] * 3, atol=1e-13)


def test_causal_first_token_attends_only_to_itself():
    x = np.random.default_rng(0).normal(size=(4, 3))
    out, w = attention.dot_product_attention(x, x, x, causal=True)
    assert w[0].tolist() == [1.0, 0.0, 0.0, 0.0]
    assert np.array_equal(out[0], x[0])


def test_attention_cost():
    scores, nbytes = attention.attention_cost(1024)
    assert scores == 1024 ** 2 and nbytes == 4 * 1024 ** 2
    s, b = attention.attention_cost([10, 20], bytes_per_score=8)
    assert s.tolist() == [100.0, 400.0] and b.tolist() == [800.0, 3200.0]


# ---------------------------------------------------------------- properties

@FAST
@given(data=st.data(), n=st.integers(1, 7), m=st.integers(1, 7), d=st.integers(1, 5), dv=st.integers(1, 3),
       t=st.floats(0.1, 10.0))
def test_rows_sum_to_one_and_match_a_python_reference(data, n, m, d, dv, t):
    q, k, v = data.draw(matrix(n, d)), data.draw(matrix(m, d)), data.draw(matrix(m, dv))
    out, w = attention.dot_product_attention(q, k, v, temperature=t)
    assert out.shape == (n, dv) and w.shape == (n, m)
    assert np.all(w >= 0) and np.all(np.abs(w.sum(axis=1) - 1.0) <= 1e-12)
    ref_out, ref_w = reference_attention(q.tolist(), k.tolist(), v.tolist(), t=t)
    assert np.allclose(w, ref_w, rtol=0, atol=1e-12)
    assert np.allclose(out, ref_out, rtol=0, atol=1e-11)
    # each output is a convex combination of the value rows
    assert np.all(out >= v.min(axis=0) - 1e-12) and np.all(out <= v.max(axis=0) + 1e-12)


@FAST
@given(data=st.data(), n=st.integers(1, 8), d=st.integers(1, 4))
def test_causal_mask_zeroes_the_strict_upper_triangle(data, n, d):
    x = data.draw(matrix(n, d))
    out, w = attention.dot_product_attention(x, x, x, causal=True)
    assert np.all(w[np.triu_indices(n, k=1)] == 0.0)
    assert np.all(np.abs(w.sum(axis=1) - 1.0) <= 1e-12)
    assert np.all(w[np.tril_indices(n)] > 0.0)       # entries are small (|s| < 3^2 * 4 / 1): no underflow
    ref_out, ref_w = reference_attention(x.tolist(), x.tolist(), x.tolist(), causal=True)
    assert np.allclose(w, ref_w, atol=1e-12) and np.allclose(out, ref_out, atol=1e-11)
    # token i's output ignores every later token: changing the last token leaves the others alone
    if n > 1:
        y = x.copy()
        y[-1] += 1.0
        out2, _ = attention.dot_product_attention(y, y, y, causal=True)
        assert np.array_equal(out2[:-1], out[:-1])


@FAST
@given(data=st.data(), b=st.integers(1, 3), h=st.integers(1, 3), n=st.integers(1, 6), d=st.integers(1, 4),
       causal=st.booleans())
def test_leading_axes_equal_a_loop_over_heads(data, b, h, n, d, causal):
    q = data.draw(hnp.arrays(np.float64, (b, h, n, d), elements=entry))
    k = data.draw(hnp.arrays(np.float64, (b, h, n, d), elements=entry))
    v = data.draw(hnp.arrays(np.float64, (b, h, n, 2), elements=entry))
    out, w = attention.dot_product_attention(q, k, v, causal=causal)
    assert out.shape == (b, h, n, 2) and w.shape == (b, h, n, n)
    for i in range(b):
        for j in range(h):
            o1, w1 = attention.dot_product_attention(q[i, j], k[i, j], v[i, j], causal=causal)
            assert np.allclose(o1, out[i, j], rtol=0, atol=1e-12)
            assert np.allclose(w1, w[i, j], rtol=0, atol=1e-14)


def test_leading_axes_broadcast():
    rng = np.random.default_rng(2)
    q = rng.normal(size=(3, 5, 4))          # three heads of queries
    k = rng.normal(size=(5, 4))             # shared keys and values
    v = rng.normal(size=(5, 2))
    out, w = attention.dot_product_attention(q, k, v)
    assert out.shape == (3, 5, 2)
    for i in range(3):
        o1, w1 = attention.dot_product_attention(q[i], k, v)
        assert np.allclose(o1, out[i], atol=1e-12) and np.allclose(w1, w[i], atol=1e-14)


@FAST
@given(data=st.data(), n=st.integers(1, 6), dm=st.integers(1, 5), dk=st.integers(1, 4), causal=st.booleans(),
       t=st.floats(0.25, 4.0))
def test_self_attention_is_dot_product_attention_of_projections(data, n, dm, dk, causal, t):
    x = data.draw(matrix(n, dm))
    wq, wk, wv = data.draw(matrix(dm, dk)), data.draw(matrix(dm, dk)), data.draw(matrix(dm, 3))
    out, w = attention.self_attention(x, wq, wk, wv, causal=causal, temperature=t)
    o2, w2 = attention.dot_product_attention(x @ wq, x @ wk, x @ wv, causal=causal, temperature=t)
    assert np.array_equal(out, o2) and np.array_equal(w, w2)


@FAST
@given(data=st.data(), heads=st.integers(1, 4), n=st.integers(1, 6), dm=st.integers(1, 5), dk=st.integers(1, 3),
       dv=st.integers(1, 3), dout=st.integers(1, 4), causal=st.booleans())
def test_multi_head_is_heads_concatenated_times_w_o(data, heads, n, dm, dk, dv, dout, causal):
    x = data.draw(matrix(n, dm))
    wq = data.draw(hnp.arrays(np.float64, (heads, dm, dk), elements=entry))
    wk = data.draw(hnp.arrays(np.float64, (heads, dm, dk), elements=entry))
    wv = data.draw(hnp.arrays(np.float64, (heads, dm, dv), elements=entry))
    wo = data.draw(matrix(heads * dv, dout))
    out, att, per_head = attention.multi_head_attention(x, wq, wk, wv, wo, causal=causal)
    assert out.shape == (n, dout) and att.shape == (heads, n, n) and per_head.shape == (heads, n, dv)
    singles = [attention.self_attention(x, wq[h], wk[h], wv[h], causal=causal) for h in range(heads)]
    concat = np.concatenate([o for o, _ in singles], axis=1)
    assert np.allclose(out, concat @ wo, rtol=0, atol=1e-10)
    for h, (o, w) in enumerate(singles):
        assert np.allclose(att[h], w, atol=1e-14) and np.allclose(per_head[h], o, atol=1e-12)
    plain, _, _ = attention.multi_head_attention(x, wq, wk, wv, causal=causal)
    assert np.allclose(plain, concat, atol=1e-12)


@FAST
@given(data=st.data(), n=st.integers(1, 6), d=st.integers(1, 4), t=st.floats(0.1, 10.0))
def test_temperature_scales_the_queries(data, n, d, t):
    q, k, v = data.draw(matrix(n, d)), data.draw(matrix(n, d)), data.draw(matrix(n, 2))
    _, w1 = attention.dot_product_attention(q, k, v, temperature=t)
    _, w2 = attention.dot_product_attention(q / t, k, v)
    assert np.allclose(w1, w2, rtol=0, atol=1e-12)


@pytest.mark.parametrize("t", [1e-9, 1e9])
@pytest.mark.parametrize("causal", [False, True])
def test_extreme_temperatures_stay_finite(t, causal):
    rng = np.random.default_rng(3)
    x = rng.normal(size=(16, 8))
    with np.errstate(all="raise", under="ignore"):
        out, w = attention.dot_product_attention(x, x, x, causal=causal, temperature=t)
    assert np.all(np.isfinite(out)) and np.all(np.isfinite(w))
    assert np.all(np.abs(w.sum(axis=1) - 1.0) <= 1e-12)
    if t == 1e9 and not causal:
        assert np.allclose(w, 1 / 16, atol=1e-12)
    if t == 1e-9:   # hard attention: one-hot on the highest score
        assert np.all(w.max(axis=1) == 1.0)


def test_large_sequence_is_finite():
    rng = np.random.default_rng(4)
    x = rng.normal(size=(1024, 64))
    with np.errstate(all="raise", under="ignore"):
        out, w = attention.dot_product_attention(x, x, x, causal=True)
    assert out.shape == (1024, 64) and np.all(np.isfinite(out))
    assert np.all(np.abs(w.sum(axis=1) - 1.0) <= 1e-12)


# ---------------------------------------------------------------- argument checks

def test_dot_product_attention_checks():
    q, k, v = np.ones((3, 4)), np.ones((5, 4)), np.ones((5, 2))
    with pytest.raises(ValueError, match=r"^queries and keys must have the same last dimension d, got 3 and 4"):
        attention.dot_product_attention(np.ones((3, 3)), k, v)
    with pytest.raises(ValueError, match=r"^keys and values must have the same number of rows, got 5 and 4"):
        attention.dot_product_attention(q, k, np.ones((4, 2)))
    with pytest.raises(ValueError, match=r"^causal=True needs as many queries as keys"):
        attention.dot_product_attention(q, k, v, causal=True)
    with pytest.raises(ValueError, match=r"^leading \(batch or head\) axes do not match"):
        attention.dot_product_attention(np.ones((2, 3, 4)), np.ones((3, 5, 4)), np.ones((3, 5, 2)))
    with pytest.raises(ValueError, match=r"^queries must contain only finite numbers"):
        attention.dot_product_attention(np.full((3, 4), np.nan), k, v)
    with pytest.raises(ValueError, match=r"^keys must contain only finite numbers"):
        attention.dot_product_attention(q, np.full((5, 4), np.inf), v)
    with pytest.raises(ValueError, match=r"^values must contain only finite numbers"):
        attention.dot_product_attention(q, k, np.full((5, 2), np.nan))
    with pytest.raises(ValueError, match=r"^keys must not be empty"):
        attention.dot_product_attention(q, np.ones((0, 4)), np.ones((0, 2)))
    with pytest.raises(ValueError, match=r"^queries must have between 2 and 4 dimensions"):
        attention.dot_product_attention(np.ones(4), k, v)
    for bad in (0.0, -1.0, np.nan, np.inf):
        with pytest.raises(ValueError, match=r"^temperature must be a positive finite number"):
            attention.dot_product_attention(q, k, v, temperature=bad)


def test_self_and_multi_head_checks():
    x = np.ones((4, 3))
    w = np.ones((3, 2))
    with pytest.raises(ValueError, match=r"^w_k must have 3 rows \(the width of x\)"):
        attention.self_attention(x, w, np.ones((2, 2)), w)
    with pytest.raises(ValueError, match=r"^x must contain only finite numbers"):
        attention.self_attention(np.full((4, 3), np.nan), w, w, w)
    with pytest.raises(ValueError, match=r"^temperature must be a positive finite number"):
        attention.self_attention(x, w, w, w, temperature=0.0)
    heads = np.ones((2, 3, 2))
    with pytest.raises(ValueError, match=r"^x must be \(n, d_model\)"):
        attention.multi_head_attention(np.ones((1, 4, 3)), heads, heads, heads)
    with pytest.raises(ValueError, match=r"^w_q must be \(heads, 3, d\)"):
        attention.multi_head_attention(x, np.ones((2, 4, 2)), heads, heads)
    with pytest.raises(ValueError, match=r"^w_v must have between 3 and 4 dimensions"):
        attention.multi_head_attention(x, heads, heads, np.ones((3, 2)))
    with pytest.raises(ValueError, match=r"^w_v must be \(heads, 3, d\)"):
        attention.multi_head_attention(x, heads, heads, np.ones((1, 2, 3, 2)))
    with pytest.raises(ValueError, match=r"^w_q, w_k and w_v must have the same number of heads"):
        attention.multi_head_attention(x, heads, heads, np.ones((3, 3, 2)))
    with pytest.raises(ValueError, match=r"^w_o must be \(4, d_out\) to follow 2 heads of width 2"):
        attention.multi_head_attention(x, heads, heads, heads, np.ones((5, 3)))
