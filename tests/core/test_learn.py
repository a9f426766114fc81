"""Tests for attention.learn: learning the bandwidth and a 2-D metric by gradient descent."""

from __future__ import annotations

import ast
import json
import math
import warnings
from pathlib import Path

import numpy as np
import pytest

import attention
from attention import learn
from attention.datasets import data_path

HS_GRID = np.geomspace(0.05, 5, 400)


@pytest.fixture(scope="module")
def default():
    return attention.load_dataset()


@pytest.fixture(scope="module")
def metric():
    return learn.load_metric_dataset()


@pytest.fixture(scope="module")
def grid_optimum(default):
    e = attention.loo_error(default.x, default.y, bandwidths=HS_GRID)
    i = int(np.argmin(e))
    return float(HS_GRID[i]), float(e[i])


def _central_difference(f, x0, eps):
    return (f(x0 + eps) - f(x0 - eps)) / (2 * eps)


def _rel_err(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return float(np.linalg.norm(a - b) / max(np.linalg.norm(a), np.linalg.norm(b)))


def _reference_metric_loss(X, y, W, temperature=1.0):
    """Straightforward (n, n, d) implementation, independent of the module's matrix tricks."""
    d = X[:, None, :] - X[None, :, :]
    proj = d @ np.asarray(W).T
    s = -np.sum(proj ** 2, axis=-1) / (2 * temperature)
    np.fill_diagonal(s, -np.inf)
    a = attention.softmax(s)
    return float(np.mean((y - a @ y) ** 2))


# ---------------------------------------------------------------------------
# 1-D bandwidth: loss and gradient
# ---------------------------------------------------------------------------

def test_loo_loss_matches_loo_error_without_warnings(default):
    hs = np.geomspace(1e-3, 1e3, 31)
    expected = attention.loo_error(default.x, default.y, bandwidths=hs)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(over="raise", invalid="raise", divide="raise"):
            got = [learn.loo_loss_and_grad(default.x, default.y, math.log(h)) for h in hs]
    losses = np.array([g[0] for g in got])
    grads = np.array([g[1] for g in got])
    np.testing.assert_allclose(losses, expected, rtol=1e-12, atol=1e-15)
    assert np.all(np.isfinite(grads))
    assert learn.loo_loss(default.x, default.y, math.log(0.62)) == pytest.approx(
        float(attention.loo_error(default.x, default.y, bandwidths=[0.62])[0]), rel=1e-12)


def test_temperature_acts_as_bandwidth_sqrt_t(default):
    h, t = 0.4, 2.5
    l1, g1 = learn.loo_loss_and_grad(default.x, default.y, math.log(h), temperature=t)
    l2, g2 = learn.loo_loss_and_grad(default.x, default.y, math.log(h * math.sqrt(t)))
    assert l1 == pytest.approx(l2, rel=1e-12)
    assert g1 == pytest.approx(g2, rel=1e-9)
    assert l1 == pytest.approx(float(attention.loo_error(default.x, default.y, bandwidths=[h], temperature=t)[0]),
                               rel=1e-12)


@pytest.mark.parametrize("h", [0.05, 0.15, 0.62, 1.0, 3.0])
@pytest.mark.parametrize("temperature", [1.0, 0.5])
def test_bandwidth_gradient_matches_finite_differences(default, h, temperature):
    def f(u):
        return learn.loo_loss(default.x, default.y, u, temperature=temperature)

    u = math.log(h)
    _, g = learn.loo_loss_and_grad(default.x, default.y, u, temperature=temperature)
    fd = _central_difference(f, u, 1e-5)
    assert abs(g) > 1e-4  # away from the optimum, so the relative error means something
    assert abs(g - fd) / abs(g) <= 1e-6


def test_bandwidth_gradient_is_zero_at_the_optimum(default, grid_optimum):
    h_star, _ = grid_optimum
    # the derivative changes sign across the grid's minimum
    _, g_lo = learn.loo_loss_and_grad(default.x, default.y, math.log(h_star / 1.05))
    _, g_hi = learn.loo_loss_and_grad(default.x, default.y, math.log(h_star * 1.05))
    assert g_lo < 0 < g_hi


# ---------------------------------------------------------------------------
# 1-D bandwidth: training
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("h0", [0.15, 3.0])
def test_train_bandwidth_reaches_the_grid_optimum(default, grid_optimum, h0):
    """Page default: learning rate 2 on log h, 60 steps (learn.DEFAULT_BANDWIDTH_LEARNING_RATE)."""
    h_star, loss_star = grid_optimum
    assert learn.DEFAULT_BANDWIDTH_LEARNING_RATE == 2.0
    tr = learn.train_bandwidth(default.x, default.y, h0=h0, learning_rate=learn.DEFAULT_BANDWIDTH_LEARNING_RATE,
                               steps=learn.DEFAULT_BANDWIDTH_STEPS)
    assert not tr.diverged
    assert tr.status[0] == "start" and set(tr.status[1:]) == {"ok"}
    assert len(tr.h) == learn.DEFAULT_BANDWIDTH_STEPS + 1
    assert tr.h[0] == pytest.approx(h0)
    assert tr.final_loss < tr.loss[0]
    assert tr.final_loss <= 1.05 * loss_star
    assert abs(tr.final_h / h_star - 1) <= 0.05
    # with this learning rate the loss never goes up
    assert np.all(np.diff(tr.loss) <= 1e-15)
    np.testing.assert_allclose(tr.h, np.exp(tr.log_h))


def test_bandwidth_step_matches_training(default):
    tr = learn.train_bandwidth(default.x, default.y, h0=0.15, learning_rate=2.0, steps=3)
    u = math.log(0.15)
    for k in range(3):
        new_u, loss, grad, ok, message = learn.bandwidth_step(default.x, default.y, u, 2.0)
        assert ok and message == ""
        assert loss == pytest.approx(tr.loss[k], rel=1e-14)
        assert grad == pytest.approx(tr.grad[k], rel=1e-12)
        assert new_u == pytest.approx(u - 2.0 * grad)
        u = new_u
    assert u == pytest.approx(tr.log_h[-1])


def test_trajectory_as_dict_is_json_ready(default):
    tr = learn.train_bandwidth(default.x, default.y, h0=1.0, learning_rate=2.0, steps=4)
    d = json.loads(json.dumps(tr.as_dict()))
    assert d["step"] == [0, 1, 2, 3, 4]
    assert d["status"] == ["start", "ok", "ok", "ok", "ok"]


# ---------------------------------------------------------------------------
# divergence
# ---------------------------------------------------------------------------

def test_huge_learning_rate_is_refused(default):
    tr = learn.train_bandwidth(default.x, default.y, h0=0.15, learning_rate=1e6, steps=20)
    assert tr.diverged
    assert tr.status == ("start", "diverged")
    assert "learning rate too large" in tr.message[-1] and "lower it" in tr.message[-1]
    assert tr.h[-1] == pytest.approx(0.15)            # the last good state is kept
    assert tr.loss[-1] == tr.loss[0]
    assert np.all(np.isfinite(tr.loss)) and np.all(np.isfinite(tr.h))

    step = learn.bandwidth_step(default.x, default.y, math.log(0.15), 1e6)
    assert not step.ok
    assert step.new_log_h == math.log(0.15)
    assert "learning rate too large" in step.message


def test_divergence_keeps_earlier_good_steps(default):
    # lr = 100 bounces between h ~ 0.1 and ~ 18 for a few steps, then overshoots below 1e-4
    lr = 100.0
    tr = learn.train_bandwidth(default.x, default.y, h0=3.0, learning_rate=lr, steps=50)
    assert tr.diverged
    k = len(tr.status) - 1
    assert k >= 1
    assert tr.h[k] == tr.h[k - 1] and tr.loss[k] == tr.loss[k - 1]
    assert all(s == "ok" for s in tr.status[1:k])


def test_loss_blow_up_is_refused():
    # Nearly linear data: small h is good, a jump to h = 100 (inside the h bounds)
    # multiplies the loss by about 60 and must be refused by the 10x rule.
    rng = np.random.default_rng(0)
    x = np.linspace(0, 1, 40)
    y = x + 0.05 * rng.standard_normal(40)
    h0 = 0.02
    loss0, g = learn.loo_loss_and_grad(x, y, math.log(h0))
    assert g < 0
    lr = math.log(100 / h0) / -g
    assert learn.loo_loss(x, y, math.log(100)) > 10 * loss0
    tr = learn.train_bandwidth(x, y, h0=h0, learning_rate=lr, steps=5)
    assert tr.status == ("start", "diverged")
    assert "loss would jump" in tr.message[-1] and "lower it" in tr.message[-1]
    assert tr.h[-1] == pytest.approx(h0)
    # a much smaller step is fine
    assert learn.bandwidth_step(x, y, math.log(h0), lr / 1e3).ok


def test_metric_huge_learning_rate_is_refused(metric):
    W0 = np.eye(2)
    tr = learn.train_metric(metric.X, metric.y, W0=W0, learning_rate=1e7, steps=10)
    assert tr.status == ("start", "diverged")
    assert "learning rate too large" in tr.message[-1]
    np.testing.assert_array_equal(tr.W[-1], W0)
    step = learn.metric_step(metric.X, metric.y, W0, 1e7)
    assert not step.ok and "lower it" in step.message
    np.testing.assert_array_equal(step.new_W, W0)


@pytest.mark.parametrize("bad", [
    dict(h0=0.0), dict(h0=-1.0), dict(h0=1e9), dict(learning_rate=0.0), dict(learning_rate=float("nan")),
    dict(steps=-1), dict(steps=2.5), dict(temperature=0.0),
])
def test_train_bandwidth_rejects_bad_arguments(default, bad):
    kw = dict(h0=0.5, learning_rate=1.0, steps=3) | bad
    with pytest.raises(ValueError):
        learn.train_bandwidth(default.x, default.y, **kw)


def test_loss_rejects_mismatched_inputs():
    with pytest.raises(ValueError, match="y must have one value"):
        learn.loo_loss([0.0, 1.0, 2.0], [1.0, 2.0], 0.0)
    with pytest.raises(ValueError, match="at least 2"):
        learn.loo_loss([0.0], [1.0], 0.0)
    with pytest.raises(ValueError, match="log_h"):
        learn.loo_loss([0.0, 1.0], [1.0, 2.0], 1e4)
    with pytest.raises(ValueError, match="W must be"):
        learn.metric_loss(np.zeros((3, 2)) + np.arange(3)[:, None], np.arange(3.0), np.eye(3))


# ---------------------------------------------------------------------------
# 2-D metric
# ---------------------------------------------------------------------------

def test_metric_loss_agrees_with_reference_and_gaussian(metric):
    rng = np.random.default_rng(3)
    for _ in range(4):
        W = rng.normal(size=(2, 2))
        assert learn.metric_loss(metric.X, metric.y, W) == pytest.approx(
            _reference_metric_loss(metric.X, metric.y, W), rel=1e-11)
    assert learn.metric_loss(metric.X, metric.y, W, temperature=0.3) == pytest.approx(
        _reference_metric_loss(metric.X, metric.y, W, temperature=0.3), rel=1e-11)
    # W = I / h is the plain Gaussian kernel of bandwidth h
    for h in (0.2, 0.7, 2.0):
        assert learn.metric_loss(metric.X, metric.y, np.eye(2) / h) == pytest.approx(
            float(attention.loo_error(metric.X, metric.y, bandwidths=[h])[0]), rel=1e-11)


def test_metric_reduces_to_bandwidth_in_1d(default):
    h = 0.4
    loss, gW = learn.metric_loss_and_grad(default.x[:, None], default.y, [[1 / h]])
    l1, gu = learn.loo_loss_and_grad(default.x, default.y, math.log(h))
    assert loss == pytest.approx(l1, rel=1e-11)
    # W = e^{-u}: dL/du = -W dL/dW
    assert -(1 / h) * gW[0, 0] == pytest.approx(gu, rel=1e-9)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize("temperature", [1.0, 0.7])
def test_metric_gradient_matches_finite_differences(metric, seed, temperature):
    rng = np.random.default_rng(seed)
    W = rng.normal(scale=1.2, size=(2, 2))
    _, g = learn.metric_loss_and_grad(metric.X, metric.y, W, temperature=temperature)
    fd = np.zeros((2, 2))
    eps = 1e-6
    for a in range(2):
        for b in range(2):
            E = np.zeros((2, 2))
            E[a, b] = eps
            fd[a, b] = (learn.metric_loss(metric.X, metric.y, W + E, temperature=temperature)
                        - learn.metric_loss(metric.X, metric.y, W - E, temperature=temperature)) / (2 * eps)
    assert _rel_err(g, fd) <= 1e-6


@pytest.mark.parametrize("seed", [0, 1])
def test_dot_metric_gradients_match_finite_differences(metric, seed):
    rng = np.random.default_rng(10 + seed)
    Wq, Wk = rng.normal(size=(2, 2)), rng.normal(size=(2, 2))
    loss, gq, gk = learn.dot_metric_loss_and_grad(metric.X, metric.y, Wq, Wk, temperature=0.8)
    # loss against self_attention's weights with the diagonal masked
    q, k = metric.X @ Wq, metric.X @ Wk
    s = q @ k.T / (math.sqrt(2) * 0.8)
    np.fill_diagonal(s, -np.inf)
    assert loss == pytest.approx(float(np.mean((metric.y - attention.softmax(s) @ metric.y) ** 2)), rel=1e-11)
    eps = 1e-6
    for which, g in ((0, gq), (1, gk)):
        fd = np.zeros((2, 2))
        for a in range(2):
            for b in range(2):
                E = np.zeros((2, 2))
                E[a, b] = eps
                ws_p = [Wq, Wk]
                ws_m = [Wq, Wk]
                ws_p[which] = ws_p[which] + E
                ws_m[which] = ws_m[which] - E
                fd[a, b] = (learn.dot_metric_loss_and_grad(metric.X, metric.y, *ws_p, temperature=0.8)[0]
                            - learn.dot_metric_loss_and_grad(metric.X, metric.y, *ws_m, temperature=0.8)[0]) / (2 * eps)
        assert _rel_err(g, fd) <= 1e-6


def test_metric_loss_is_stable_for_extreme_scales(metric):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(over="raise", invalid="raise", divide="raise"):
            for c in (1e-3, 1e-1, 1e1, 1e3):
                loss, g = learn.metric_loss_and_grad(metric.X, metric.y, c * np.eye(2))
                assert np.isfinite(loss) and np.all(np.isfinite(g))


def test_train_metric_learns_to_ignore_x2(metric):
    """Page default: learning rate 2 on W from W0 = I, 150 steps (learn.DEFAULT_METRIC_LEARNING_RATE)."""
    tr = learn.train_metric(metric.X, metric.y, W0=np.eye(2), learning_rate=learn.DEFAULT_METRIC_LEARNING_RATE,
                            steps=learn.DEFAULT_METRIC_STEPS)
    assert not tr.diverged
    assert tr.W.shape == (learn.DEFAULT_METRIC_STEPS + 1, 2, 2)
    assert tr.final_loss < 0.5 * tr.loss[0]
    assert np.all(np.diff(tr.loss) <= 1e-15)
    ratio = tr.column_ratio()
    assert ratio[0] == pytest.approx(1.0)
    assert ratio[-1] < 0.1                     # x2's column shrank to a tenth of x1's or less
    # the similarity ellipse stretches along x2
    lengths0, _ = learn.metric_axes(tr.W[0])
    lengths, dirs = learn.metric_axes(tr.final_W)
    assert lengths0[0] / lengths0[1] == pytest.approx(1.0)
    assert lengths[0] / lengths[1] > 10
    assert abs(dirs[0, 1]) > 0.95              # the long axis points along x2
    ell = learn.similarity_ellipse(tr.final_W)
    assert np.ptp(ell[:, 1]) > 10 * np.ptp(ell[:, 0])


def test_metric_step_matches_training(metric):
    tr = learn.train_metric(metric.X, metric.y, W0=np.eye(2), learning_rate=2.0, steps=2)
    W = np.eye(2)
    for k in range(2):
        new_W, loss, grad, ok, message = learn.metric_step(metric.X, metric.y, W, 2.0)
        assert ok and message == ""
        assert loss == pytest.approx(tr.loss[k], rel=1e-13)
        np.testing.assert_allclose(grad, tr.grad[k], rtol=1e-12)
        np.testing.assert_allclose(new_W, W - 2.0 * grad)
        W = new_W
    np.testing.assert_allclose(W, tr.final_W)
    json.dumps(tr.as_dict())


def test_similarity_ellipse_is_the_level_set():
    rng = np.random.default_rng(7)
    W = rng.normal(size=(2, 2))
    ell = learn.similarity_ellipse(W, level=1.5, points=50)
    assert ell.shape == (50, 2)
    np.testing.assert_allclose(ell[0], ell[-1], atol=1e-12)                 # closed curve
    np.testing.assert_allclose(0.5 * np.sum((ell @ W.T) ** 2, axis=1), 1.5, rtol=1e-10)
    # an isotropic W = I / h gives a circle of radius h sqrt(2 level)
    circ = learn.similarity_ellipse(np.eye(2) / 0.5, level=1.0)
    np.testing.assert_allclose(np.linalg.norm(circ, axis=1), 0.5 * math.sqrt(2), rtol=1e-12)


def test_similarity_ellipse_caps_an_ignored_direction():
    ell = learn.similarity_ellipse(np.array([[2.0, 0.0], [0.0, 0.0]]), max_radius=50.0, points=65)
    assert np.all(np.isfinite(ell))
    assert np.max(np.abs(ell[:, 1])) == pytest.approx(50.0)
    assert np.max(np.abs(ell[:, 0])) == pytest.approx(math.sqrt(2) / 2)


# ---------------------------------------------------------------------------
# the metric dataset
# ---------------------------------------------------------------------------

def test_metric_dataset_file_regenerates_from_its_recipe(metric):
    raw = json.loads(data_path("metric2d.json").read_text(encoding="utf-8"))
    for key in ("generated_by", "seed", "noise", "formula", "description"):
        assert key in raw
    assert "\n" not in raw["description"]
    again = learn.make_metric_dataset(n=raw["n"], noise=raw["noise"], seed=raw["seed"])
    np.testing.assert_array_equal(metric.X, again.X)
    np.testing.assert_array_equal(metric.y, again.y)
    assert raw["generated_by"] == again.meta["generated_by"]
    # byte for byte: the shipped file is exactly what the recipe writes
    assert data_path("metric2d.json").read_text(encoding="utf-8") == learn.metric_dataset_json(
        raw["n"], raw["noise"], raw["seed"])


def test_metric_dataset_shape_and_content(metric):
    assert metric.X.shape == (60, 2) and metric.y.shape == (60,)
    assert np.all(np.abs(metric.X) <= 3)
    assert metric.noise == 0.1
    assert "sin(x1)" in metric.formula
    resid = metric.y - metric.true_function(metric.X)
    assert 0.05 < np.std(resid) < 0.15
    # x2 carries no information about y
    assert abs(np.corrcoef(metric.X[:, 1], resid)[0, 1]) < 0.3


def test_make_metric_dataset_validates():
    with pytest.raises(ValueError):
        learn.make_metric_dataset(n=1)
    with pytest.raises(ValueError):
        learn.make_metric_dataset(noise=-1)
    with pytest.raises(ValueError):
        learn.make_metric_dataset(seed=-3)


# ---------------------------------------------------------------------------
# the core's rules
# ---------------------------------------------------------------------------

def test_learn_imports_only_numpy_and_the_standard_library():
    import sys

    src = Path(learn.__file__).read_text(encoding="utf-8")
    roots = set()
    for node in ast.walk(ast.parse(src)):
        if isinstance(node, ast.Import):
            roots |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            roots.add(node.module.split(".")[0])
    assert roots - {"numpy"} <= set(sys.stdlib_module_names)


# ---------------------------------------------------------------------------
# 1-D bandwidth: the windowed sums against the full n x n sums
# ---------------------------------------------------------------------------

def _exact_loo_and_grad(x, y, h, temperature=1.0):
    """All n x n terms in extended precision, straight from the formulas of ``loo_loss_and_grad``'s docstring:
    s_ij = -(x_i - x_j)^2 / (2 h^2 T), alpha = softmax over j != i, dL/du = (4/n) sum_i r_i sum_j alpha_ij
    (s_ij - sbar_i)(y_j - p_i).  No window, no sorting, no centring."""
    x = np.asarray(x, dtype=np.longdouble)
    y = np.asarray(y, dtype=np.longdouble)
    d = x[:, None] - x[None, :]
    s = -(d * d) / (2 * np.longdouble(h) ** 2 * np.longdouble(temperature))
    np.fill_diagonal(s, -np.inf)
    e = np.exp(s - s.max(axis=1, keepdims=True))
    a = e / e.sum(axis=1, keepdims=True)
    p = a @ y
    r = y - p
    np.fill_diagonal(s, 0)
    sbar = (a * s).sum(axis=1)
    t = (a * (s - sbar[:, None]) * (y[None, :] - p[:, None])).sum(axis=1)
    n = x.shape[0]
    return float(r @ r / n), float(4 * (r @ t) / n)


def _hard_datasets(seed):
    """Random datasets of the shapes that stress a window: spread out, many duplicated x, tight clusters far
    apart, an isolated key, and noise-free values."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 400))
    spread = np.sort(rng.uniform(0, 6, n))
    dup = np.round(rng.uniform(0, 6, n), 1)                                   # ~60 distinct x, each many times
    centres = rng.uniform(0, 6, 5)
    clusters = centres[rng.integers(0, 5, n)] + rng.normal(0, 1e-3, n)      # five clusters 1e-3 wide
    lonely = np.concatenate([rng.uniform(0, 1, n - 1), [40.0]])              # one key far from the rest
    out = []
    for x in (spread, dup, clusters, lonely):
        y = np.sin(2 * x) + rng.normal(0, 0.3, n)
        out.append((x, y))
    out.append((spread, np.sin(2 * spread)))
    return out


@pytest.mark.parametrize("seed", range(6))
def test_windowed_loss_and_gradient_match_the_full_sums(seed):
    rng = np.random.default_rng(100 + seed)
    hs = [0.005, 50.0] + [float(v) for v in 10 ** rng.uniform(-2.5, 1.5, 4)]
    for x, y in _hard_datasets(seed):
        for h in hs:
            t = float(rng.choice([1.0, 0.3, 2.0]))
            loss, grad = learn.loo_loss_and_grad(x, y, math.log(h), temperature=t)
            loss_ref, grad_ref = _exact_loo_and_grad(x, y, h, t)
            assert abs(loss - loss_ref) <= 1e-10 * loss_ref, (seed, h, t)
            # relative to the slope, or to the loss where the slope is flatter than the loss itself (as at
            # h = 0.005 on duplicated x: every row's weight sits on its duplicates and the slope is ~1e-17)
            assert abs(grad - grad_ref) <= 1e-10 * max(abs(grad_ref), loss_ref), (seed, h, t, grad, grad_ref)


def test_the_window_holds_every_key_that_counts_and_saves_work():
    d = attention.make_dataset("wave", 2000, 0.3, 0)
    P = learn._sorted_1d(d.x, d.y)
    assert np.all(np.diff(P.x) >= 0) and abs(P.y.mean()) < 1e-12
    # grouped by distinct x: the generator's 2 decimals leave at most 601 of them on 0..6
    assert np.array_equal(P.ux[P.group], P.x) and np.all(np.diff(P.ux) > 0) and P.ux.shape[0] <= 601
    assert P.count_ysum[:, 0].sum() == 2000 and np.allclose(np.bincount(P.group, P.y), P.count_ysum[:, 1])
    n, m = P.x.shape[0], P.ux.shape[0]
    dmin = np.array([np.min(np.delete((P.x - xi) ** 2, i)) for i, xi in enumerate(P.x)])
    assert np.array_equal(P.udmin[P.group], dmin)                     # each key's nearest other key
    for h in (0.005, 0.05, 0.5):
        c = 0.5 / h ** 2
        lo, hi = learn._windows(P, learn.WINDOW_SCORE / c)
        sigma = c * ((P.ux[:, None] - P.ux[None, :]) ** 2 - P.udmin[:, None])
        inside = np.zeros((m, m), dtype=bool)
        for a in range(m):
            inside[a, lo[a]:hi[a]] = True
        assert np.all(inside[sigma <= learn.WINDOW_SCORE])            # every key of weight >= 1e-16 of the best
        assert np.all(np.exp(-sigma[~inside]) < 1e-16)                  # only keys below it are left out
        assert (hi - lo).sum() < m * m * min(1.0, 3 * h) < n * n / 10    # a fraction of m^2, itself below n^2 / 10
    assert learn.WINDOW_SCORE == pytest.approx(math.log(1 / learn.WINDOW_WEIGHT), rel=1e-15)
