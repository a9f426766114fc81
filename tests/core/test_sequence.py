"""Tests for attention.sequence (an RNN against attention) and attention.lags (a known lag is a feature)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import attention
from attention import lags, sequence


# ---------------------------------------------------------------------------
# the RNN, by hand
# ---------------------------------------------------------------------------

def test_rnn_of_three_steps_by_hand():
    # d_h = 1, d_in = 1: h_t = tanh(0.5 h_{t-1} + 2 x_t), h_0 = 0
    X = [[1.0], [0.0], [-1.0]]
    H = attention.rnn_forward(X, [[0.5]], [[2.0]])
    h1 = math.tanh(2.0)                       # tanh(2) = 0.96403
    h2 = math.tanh(0.5 * h1)                  # tanh(0.48201) = 0.44785
    h3 = math.tanh(0.5 * h2 - 2.0)            # tanh(-1.77607) = -0.94427
    assert H.shape == (3, 1)
    assert H[:, 0] == pytest.approx([h1, h2, h3], abs=1e-15)
    assert H[:, 0] == pytest.approx([0.96403, 0.44785, -0.94427], abs=1e-5)


def test_rnn_two_dimensional_state_and_h0_by_hand():
    W = [[0.0, 1.0], [1.0, 0.0]]              # swaps the two state coordinates
    U = [[1.0], [0.0]]
    H = attention.rnn_forward([[0.0], [0.0]], W, U, h0=[0.3, -0.2])
    assert H[0] == pytest.approx([math.tanh(-0.2), math.tanh(0.3)])
    assert H[1] == pytest.approx([math.tanh(math.tanh(0.3)), math.tanh(math.tanh(-0.2))])


def test_rnn_step_t_depends_on_every_earlier_input_only():
    rng = np.random.default_rng(1)
    X, W, U = rng.normal(size=(6, 3)), rng.normal(size=(4, 4)) / 2, rng.normal(size=(4, 3))
    H = attention.rnn_forward(X, W, U)
    X2 = X.copy()
    X2[3] += 1.0
    H2 = attention.rnn_forward(X2, W, U)
    assert np.array_equal(H[:3], H2[:3])                 # the past does not see the future
    assert np.all(np.abs(H[3:] - H2[3:]).max(axis=1) > 0)


@pytest.mark.parametrize("args, name", [
    (([[1.0]], [[1.0, 0.0]], [[1.0]]), "W"),
    (([[1.0]], [[1.0]], [[1.0, 2.0]]), "U"),
    (([[1.0]], [[1.0]], [[1.0]], [0.0, 0.0]), "h0"),
    (([[np.nan]], [[1.0]], [[1.0]]), "X"),
    (([], [[1.0]], [[1.0]]), "X"),
])
def test_rnn_bad_arguments_name_the_argument(args, name):
    with pytest.raises(ValueError, match=rf"^{name}\b"):
        attention.rnn_forward(*args)


def test_dependency_edges_chain_and_all_pairs():
    e = attention.dependency_edges(5)
    assert e["rnn"] == [(0, 1), (1, 2), (2, 3), (3, 4)]
    assert len(e["attention"]) == 10 and (0, 4) in e["attention"]
    assert attention.dependency_edges(1) == {"rnn": [], "attention": []}
    assert attention.sequential_steps(5) == {"rnn": 5, "attention": 1, "scores": 25}
    for bad in (0, -1, 2.5, True, "3"):
        with pytest.raises(ValueError, match="^n "):
            attention.dependency_edges(bad)


def test_timing_reports_monotone_step_counts_within_its_budget():
    t = attention.time_rnn_and_attention(ns=(8, 16, 32, 64), d=8, budget_s=0.2, repeats=2)
    assert len(t.n) >= 1 and t.n == (8, 16, 32, 64)[:len(t.n)]
    assert list(t.rnn_steps) == list(t.n)
    assert all(a < b for a, b in zip(t.rnn_steps, t.rnn_steps[1:]))       # n steps: grows with n
    assert set(t.attention_steps) == {1}                                   # one step whatever n
    assert list(t.scores) == [n * n for n in t.n]
    assert all(s > 0 and math.isfinite(s) for s in t.rnn_s + t.attention_s)
    assert t.spent_s < 1.0
    assert t.as_dict()["n"] == list(t.n)


def test_timing_stops_at_the_budget():
    t = attention.time_rnn_and_attention(ns=(64, 128, 256, 512, 1024, 2048, 4096), budget_s=1e-6)
    assert t.n == (64,) and not t.complete


@pytest.mark.parametrize("kwargs, name", [
    ({"ns": (64, 32)}, "ns"), ({"ns": ()}, "ns"), ({"ns": (0, 4)}, "ns"), ({"ns": "abc"}, "ns"),
    ({"d": 0}, "d"), ({"budget_s": -1}, "budget_s"), ({"repeats": 0}, "repeats"), ({"seed": -1}, "seed"),
])
def test_timing_bad_arguments_name_the_argument(kwargs, name):
    with pytest.raises(ValueError, match=rf"^{name}\b"):
        attention.time_rnn_and_attention(**kwargs)


# ---------------------------------------------------------------------------
# lags
# ---------------------------------------------------------------------------

def test_lag_fit_on_a_pure_weekly_sine_recovers_lag_7_and_slope_1():
    y = np.sin(2 * np.pi * np.arange(100) / 7)
    fit = attention.best_lag(y)
    assert fit.lag == 7
    assert fit.slope == pytest.approx(1.0, abs=1e-9)
    assert fit.intercept == pytest.approx(0.0, abs=1e-9)
    assert fit.mse == pytest.approx(0.0, abs=1e-20)


def test_fit_lag_by_hand():
    # y_t = 1 + 2 y_{t-1} on three pairs: (1 -> 3), (3 -> 7), (7 -> 15)
    fit = attention.fit_lag([1.0, 3.0, 7.0, 15.0], 1)
    assert (fit.intercept, fit.slope, fit.mse) == pytest.approx((1.0, 2.0, 0.0))
    assert fit.predict([1.0, 3.0, 7.0, 15.0], [2, 3]) == pytest.approx([7.0, 15.0])


def test_lag_attention_by_hand():
    # two lags, equal weights: p_t = (y_{t-1} + y_{t-2}) / 2
    y = [0.0, 2.0, 4.0, 1.0]
    loss, grad = attention.lag_attention_loss_and_grad(y, [0.0, 0.0], max_lag=2)
    p = np.array([1.0, 3.0])                      # targets t = 2, 3
    r = np.array([4.0, 1.0]) - p                  # 3, -2
    assert loss == pytest.approx(float(r @ r) / 2)
    Y = np.array([[2.0, 0.0], [4.0, 2.0]])
    want = -(2 / 2) * 0.5 * (r @ (Y - p[:, None]))
    assert grad == pytest.approx(want)
    assert attention.lag_attention_predict(y, [0.0, 0.0], max_lag=2) == pytest.approx(p)


def test_lag_attention_gradient_matches_finite_differences():
    y = lags.make_series(7, days=80, seed=3)
    rng = np.random.default_rng(0)
    s = rng.normal(size=14)
    _, g = attention.lag_attention_loss_and_grad(y, s)
    eps = 1e-6
    fd = np.array([(attention.lag_attention_loss_and_grad(y, s + eps * e)[0]
                    - attention.lag_attention_loss_and_grad(y, s - eps * e)[0]) / (2 * eps) for e in np.eye(14)])
    assert np.linalg.norm(g - fd) <= 1e-6 * np.linalg.norm(g)


def test_learned_weights_find_the_period_and_the_loss_falls():
    y = lags.make_series(7)
    fit = attention.train_lag_attention(y, np.arange(14, 140))
    assert fit.top_lag == 7
    assert fit.weights[6] > 0.5
    assert fit.weights.sum() == pytest.approx(1.0)
    assert fit.loss[-1] < 0.5 * fit.loss[0]
    assert np.all(np.diff(fit.loss) <= 1e-12)


@pytest.mark.parametrize("period", [3, 5, 7, 10, 14])
def test_both_models_follow_the_period(period):
    r = attention.compare_lag_models(period)
    assert r["top_lag"] == period and r["lag"] == period
    assert 0.7 < r["slope"] < 1.1
    # about as good as each other, and far better than equal weights over the 14 days
    assert abs(r["rmse_attention"] - r["rmse_linear"]) < 0.15 * r["rmse_linear"]
    assert max(r["rmse_attention"], r["rmse_linear"]) < 0.7 * r["rmse_equal_weights"]
    assert len(r["pred_attention"]) == len(r["pred_linear"]) == len(r["test_days"]) == 28


def test_series_is_seeded():
    assert np.array_equal(lags.make_series(7, seed=4), lags.make_series(7, seed=4))
    assert not np.array_equal(lags.make_series(7, seed=4), lags.make_series(7, seed=5))


@pytest.mark.parametrize("call, name", [
    (lambda: lags.make_series(1), "period"),
    (lambda: lags.make_series(7, days=0), "days"),
    (lambda: lags.make_series(7, noise=-1), "noise"),
    (lambda: lags.make_series(7, drift=float("nan")), "drift"),
    (lambda: lags.make_series(7, seed=-2), "seed"),
    (lambda: attention.fit_lag([1.0, 2.0, 3.0], 0), "lag"),
    (lambda: attention.fit_lag([1.0, 2.0], 3), "y"),
    (lambda: attention.best_lag(np.zeros(30), max_lag=0), "max_lag"),
    (lambda: attention.lag_attention_loss_and_grad(np.zeros(30), np.zeros(3)), "scores"),
    (lambda: attention.lag_attention_loss_and_grad(np.zeros(30), np.zeros(14), [3]), "targets"),
    (lambda: attention.train_lag_attention(np.zeros(30), learning_rate=0), "learning_rate"),
    (lambda: attention.train_lag_attention(np.zeros(30), steps=-1), "steps"),
    (lambda: attention.compare_lag_models(15), "period"),
    (lambda: attention.compare_lag_models(7, holdout=0), "holdout"),
])
def test_lag_bad_arguments_name_the_argument(call, name):
    with pytest.raises(ValueError, match=rf"^{name}\b"):
        call()


def test_sequence_modules_import_numpy_only():
    import ast
    for mod in (sequence, lags):
        tree = ast.parse(open(mod.__file__, encoding="utf-8").read())
        names = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        names |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
        assert names <= {"numpy", "math", "time", "dataclasses", "__future__", "_checks", "selfattention", "kernels"}, names
