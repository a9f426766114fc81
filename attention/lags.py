"""A known lag is a feature: attention over the past days against one lagged column.

A daily series with a pattern that repeats every ``period`` days.  Two ways to
predict day t from the days before it:

* **attention over the last L days** (L = 14 on the page): the prediction is a
  weighted average of the past values, with weights that depend only on the lag,

      p_t = sum_{k=1..L} alpha_k y_{t-k},    alpha = softmax(s),

  where the L scores s_k are learned.  Day t itself is never among the keys
  (only its past is), so the training loss is a leave-one-out error as in
  ``attention.learn``:  L(s) = (1/N) sum_t (y_t - p_t)^2  over the training days.
  With r_t = y_t - p_t and the softmax derivative dp_t/ds_k = alpha_k (y_{t-k} - p_t),

      dL/ds_k = -(2/N) sum_t r_t alpha_k (y_{t-k} - p_t),

  the same identity G_tk = dL/ds_tk as in ``attention.learn``, summed over t
  because every day shares one score per lag.

* **a linear model with one lagged feature**: p_t = a + b y_{t-lag}, two
  numbers fitted by least squares.

When the lag is known, the second does the first's job with two numbers.

This module uses numpy and the standard library only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from . import _checks
from .kernels import softmax

MAX_LAG = 14
DEFAULT_PERIOD = 7
DEFAULT_DAYS = 168               # 24 weeks
DEFAULT_HOLDOUT = 28             # the last 4 weeks are held out
DEFAULT_NOISE = 0.3
DEFAULT_DRIFT = 0.1
LAG_LEARNING_RATE = 2.0
LAG_STEPS = 300


def _whole(name, value, lo, hi=None):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < lo or (
            hi is not None and value > hi):
        upper = f" and <= {hi}" if hi is not None else ""
        raise ValueError(f"{name} must be a whole number >= {lo}{upper}, got {value!r}")
    return int(value)


def _nonneg(name, value) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r}") from None
    if not math.isfinite(v) or v < 0:
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
    return v


def make_series(period=DEFAULT_PERIOD, *, days=DEFAULT_DAYS, noise=DEFAULT_NOISE, drift=DEFAULT_DRIFT,
                seed=0) -> np.ndarray:
    """A daily series: a pattern that repeats every ``period`` days, a slowly wandering level, and noise.

        y_t = pattern[t mod period] + level_t + e_t,   e_t ~ N(0, noise^2),
        level_t = level_{t-1} + N(0, drift^2),  level_0 = 0.

    Drawn with numpy's default_rng(seed), in this order: the pattern (``period``
    standard normal values, shifted and scaled to mean 0 and standard deviation 1,
    so neighbouring days are unrelated), the level's steps, then the noise.  The
    wandering level makes last week a better guide than the week before it.

    Parameters
    ----------
    period : int >= 2, default 7
        Days before the pattern repeats.
    days : int >= 2, default 168
        Length of the series.
    noise : float >= 0, default 0.3
        Standard deviation of the daily noise e_t.
    drift : float >= 0, default 0.1
        Standard deviation of the level's daily step.
    seed : int >= 0, default 0
        Seed of numpy's default_rng.

    Returns
    -------
    y : ndarray of shape (days,)
        The series y_0 ... y_{days-1}.
    """
    p = _whole("period", period, 2)
    n = _whole("days", days, 2)
    sigma = _nonneg("noise", noise)
    dr = _nonneg("drift", drift)
    s = _whole("seed", seed, 0)
    rng = np.random.default_rng(s)
    pattern = rng.normal(0.0, 1.0, p)
    pattern -= pattern.mean()
    pattern /= pattern.std()
    steps = rng.normal(0.0, 1.0, n)
    steps[0] = 0.0
    level = np.cumsum(steps * dr)
    e = rng.normal(0.0, 1.0, n) * sigma
    return pattern[np.arange(n) % p] + level + e


def _series(y, max_lag):
    ya = _checks.finite_array("y", y, min_ndim=1, max_ndim=1)
    if ya.shape[0] < max_lag + 2:
        raise ValueError(f"y must hold at least max_lag + 2 = {max_lag + 2} days, got {ya.shape[0]}")
    return ya


def _targets(name, targets, n, max_lag):
    """Indices of the days to predict: each needs max_lag days before it."""
    if targets is None:
        return np.arange(max_lag, n)
    try:
        t = np.asarray(targets)
    except (TypeError, ValueError):
        t = np.asarray([None])
    if t.ndim != 1 or t.shape[0] == 0 or not np.issubdtype(t.dtype, np.integer):
        raise ValueError(f"{name} must be a non-empty 1-D array of whole day indices, got {targets!r}")
    if t.min() < max_lag or t.max() >= n:
        raise ValueError(f"{name} must lie in [{max_lag}, {n - 1}] (each day needs {max_lag} days before it), "
                         f"got {int(t.min())} .. {int(t.max())}")
    return t.astype(int)


def lag_matrix(y, targets=None, *, max_lag=MAX_LAG) -> np.ndarray:
    """The past of each target day: Y[i, k - 1] = y[t_i - k] for lags k = 1 ... max_lag.

    Parameters
    ----------
    y : array-like of shape (days,)
        The series, with at least max_lag + 2 days.
    targets : array-like of int, optional
        The days t_i to predict, each with max_lag days before it; default:
        every such day (max_lag ... days - 1).
    max_lag : int >= 1, default 14
        How many past days each row holds.

    Returns
    -------
    Y : ndarray of shape (len(targets), max_lag)
        Row i holds y[t_i - 1], y[t_i - 2], ..., y[t_i - max_lag].
    """
    L = _whole("max_lag", max_lag, 1)
    ya = _series(y, L)
    t = _targets("targets", targets, ya.shape[0], L)
    return ya[t[:, None] - np.arange(1, L + 1)[None, :]]


def _scores(name, s, L):
    sa = _checks.finite_array(name, s, min_ndim=1, max_ndim=1)
    if sa.shape != (L,):
        raise ValueError(f"{name} must hold one score per lag ({L}), got shape {sa.shape}")
    return sa


def _lag_eval(Y, y_t, s):
    """(loss, dL/ds, alpha, p) for lag scores s; Y is the lag matrix of the targets y_t."""
    a = softmax(s)
    p = Y @ a
    r = y_t - p
    n = y_t.shape[0]
    # G_tk = -(2/N) r_t alpha_k (y_{t-k} - p_t); dL/ds_k = sum_t G_tk
    grad = (-2.0 / n) * a * (r @ (Y - p[:, None]))
    return float(r @ r) / n, grad, a, p


def lag_attention_loss_and_grad(y, scores, targets=None, *, max_lag=MAX_LAG) -> tuple[float, np.ndarray]:
    """Mean squared error of attention over the last max_lag days, and its gradient in the scores.

        p_t = sum_k alpha_k y_{t-k},  alpha = softmax(scores),  L = (1/N) sum_t (y_t - p_t)^2,
        dL/ds_k = -(2/N) sum_t (y_t - p_t) alpha_k (y_{t-k} - p_t).

    Parameters
    ----------
    y : array-like of shape (days,)
        The series.
    scores : array-like of shape (max_lag,)
        One score s_k per lag k = 1 ... max_lag.
    targets : array-like of int, optional
        The N days the loss averages over (default: every day with max_lag days before it).
    max_lag : int >= 1, default 14
        Number of lags, L.

    Returns
    -------
    loss : float
        L, the mean squared error over the target days.
    grad : ndarray of shape (max_lag,)
        dL/ds.
    """
    L = _whole("max_lag", max_lag, 1)
    ya = _series(y, L)
    t = _targets("targets", targets, ya.shape[0], L)
    s = _scores("scores", scores, L)
    loss, grad, _, _ = _lag_eval(lag_matrix(ya, t, max_lag=L), ya[t], s)
    return loss, grad


def lag_attention_predict(y, scores, targets=None, *, max_lag=MAX_LAG) -> np.ndarray:
    """p_t = sum_k softmax(scores)_k y_{t-k} for each target day t.

    Parameters
    ----------
    y : array-like of shape (days,)
        The series.
    scores : array-like of shape (max_lag,)
        One score per lag k = 1 ... max_lag.
    targets : array-like of int, optional
        The days to predict (default: every day with max_lag days before it).
    max_lag : int >= 1, default 14
        Number of lags.

    Returns
    -------
    p : ndarray of shape (len(targets),)
        The prediction of each target day from its past.
    """
    L = _whole("max_lag", max_lag, 1)
    ya = _series(y, L)
    s = _scores("scores", scores, L)
    return lag_matrix(ya, targets, max_lag=L) @ softmax(s)


@dataclass(frozen=True)
class LagAttentionFit:
    """Gradient descent on the lag scores: the final scores and weights, and the loss at every step."""

    scores: np.ndarray
    weights: np.ndarray
    loss: np.ndarray
    learning_rate: float

    @property
    def top_lag(self) -> int:
        """The lag with the largest weight (1 ... max_lag)."""
        return int(np.argmax(self.weights)) + 1


def train_lag_attention(y, targets=None, *, max_lag=MAX_LAG, learning_rate=LAG_LEARNING_RATE,
                        steps=LAG_STEPS) -> LagAttentionFit:
    """Plain gradient descent on the lag scores from s = 0 (equal weights, the plain average):

        s <- s - learning_rate * dL/ds      (``lag_attention_loss_and_grad``), ``steps`` times.

    The loss is measured on the ``targets`` days only (the training days); every
    target is predicted from its past, never from itself.

    Parameters
    ----------
    y : array-like of shape (days,)
        The series.
    targets : array-like of int, optional
        The training days (default: every day with max_lag days before it).
    max_lag : int >= 1, default 14
        Number of lags.
    learning_rate : float > 0, default 2.0
        The step size.
    steps : int >= 0, default 300
        Number of gradient steps.

    Returns
    -------
    fit : LagAttentionFit
        The final scores and weights, and the loss before each step and after the last.
    """
    L = _whole("max_lag", max_lag, 1)
    ya = _series(y, L)
    t = _targets("targets", targets, ya.shape[0], L)
    lr = _checks.positive("learning_rate", learning_rate)
    n_steps = _whole("steps", steps, 0)
    Y, y_t = lag_matrix(ya, t, max_lag=L), ya[t]
    s = np.zeros(L)
    losses = []
    for _ in range(n_steps):     # a loop over training steps
        loss, grad, _, _ = _lag_eval(Y, y_t, s)
        losses.append(loss)
        s = s - lr * grad
    loss, _, a, _ = _lag_eval(Y, y_t, s)
    losses.append(loss)
    return LagAttentionFit(scores=s, weights=a, loss=np.array(losses), learning_rate=lr)


@dataclass(frozen=True)
class LagFit:
    """p_t = intercept + slope * y_{t-lag}, fitted by least squares; ``mse`` on the fitted days."""

    lag: int
    intercept: float
    slope: float
    mse: float

    def predict(self, y, targets) -> np.ndarray:
        ya = _checks.finite_array("y", y, min_ndim=1, max_ndim=1)
        t = _targets("targets", targets, ya.shape[0], self.lag)
        return self.intercept + self.slope * ya[t - self.lag]


def fit_lag(y, lag, targets=None) -> LagFit:
    """Least squares for p_t = a + b y_{t-lag} over the target days (default: every day from ``lag`` on).

        b = cov(y_{t-lag}, y_t) / var(y_{t-lag}),   a = mean(y_t) - b mean(y_{t-lag})

    (b = 0 and a = mean(y_t) if the lagged values are all equal).

    Parameters
    ----------
    y : array-like of shape (days,)
        The series.
    lag : int >= 1
        The one lagged column the model reads.
    targets : array-like of int, optional
        The days fitted on (default: every day from ``lag`` on).

    Returns
    -------
    fit : LagFit
        The lag, intercept a, slope b and the mean squared error on the fitted days.
    """
    k = _whole("lag", lag, 1)
    ya = _series(y, k)
    t = _targets("targets", targets, ya.shape[0], k)
    x, v = ya[t - k], ya[t]
    xc = x - x.mean()
    var = float(xc @ xc)
    b = float(xc @ (v - v.mean())) / var if var > 0 else 0.0
    a = float(v.mean() - b * x.mean())
    r = v - (a + b * x)
    return LagFit(lag=k, intercept=a, slope=b, mse=float(r @ r) / r.shape[0])


def best_lag(y, targets=None, *, max_lag=MAX_LAG) -> LagFit:
    """The ``fit_lag`` with the smallest error among lags 1 ... max_lag, all fitted on the same days.

    Ties (errors within 1e-9 of the series' variance) go to the shortest lag:
    on a pure sine of period 7, lags 7 and 14 both fit exactly, and 7 is returned.

    Parameters
    ----------
    y : array-like of shape (days,)
        The series.
    targets : array-like of int, optional
        The days fitted on (default: every day with max_lag days before it).
    max_lag : int >= 1, default 14
        The longest lag tried.

    Returns
    -------
    fit : LagFit
        The best lag's fit.
    """
    L = _whole("max_lag", max_lag, 1)
    ya = _series(y, L)
    t = _targets("targets", targets, ya.shape[0], L)
    fits = [fit_lag(ya, k, t) for k in range(1, L + 1)]
    tol = 1e-9 * max(float(np.var(ya)), 1e-300)
    low = min(f.mse for f in fits)
    return next(f for f in fits if f.mse <= low + tol)


def rmse(a, b) -> float:
    """Root mean squared difference sqrt(mean((a - b)^2)).

    Parameters
    ----------
    a, b : array-like of shape (n,)
        Two non-empty sequences of the same length.

    Returns
    -------
    rmse : float
    """
    aa = _checks.finite_array("a", a, min_ndim=1, max_ndim=1)
    ba = _checks.finite_array("b", b, min_ndim=1, max_ndim=1)
    if aa.shape != ba.shape or aa.shape[0] == 0:
        raise ValueError(f"a and b must be non-empty and of the same length, got {aa.shape} and {ba.shape}")
    return float(np.sqrt(np.mean((aa - ba) ** 2)))


def compare_lag_models(period=DEFAULT_PERIOD, *, days=DEFAULT_DAYS, holdout=DEFAULT_HOLDOUT, max_lag=MAX_LAG,
                       noise=DEFAULT_NOISE, drift=DEFAULT_DRIFT, seed=0, learning_rate=LAG_LEARNING_RATE,
                       steps=LAG_STEPS) -> dict:
    """Both models on ``make_series(period)``: trained on all but the last ``holdout`` days, tested on those.

    Parameters
    ----------
    period : int, 2 <= period <= max_lag, default 7
        The series' period, which is also the linear model's lag (the lag is known).
    days : int >= max_lag + 2, default 168
        Length of the series.
    holdout : int >= 1, default 28
        The last ``holdout`` days are the test days.
    max_lag : int >= 1, default 14
        Number of lags attention weighs.
    noise, drift, seed
        As in ``make_series``.
    learning_rate, steps
        As in ``train_lag_attention``.

    Returns
    -------
    result : dict
        Plain numbers and lists: the series, the day indices of the held-out
        days, the learned attention weights over lags 1 ... max_lag (and the loss path),
        the linear model's lag (the period: the lag is known), intercept and slope,
        both models' predictions on the held-out days and their root mean squared
        errors there, plus the error of equal weights (before learning).
    """
    L = _whole("max_lag", max_lag, 1)
    n = _whole("days", days, L + 2)
    h = _whole("holdout", holdout, 1, n - L - 2)
    p = _whole("period", period, 2, L)
    y = make_series(p, days=n, noise=noise, drift=drift, seed=seed)
    train, test = np.arange(L, n - h), np.arange(n - h, n)
    att = train_lag_attention(y, train, max_lag=L, learning_rate=learning_rate, steps=steps)
    lin = fit_lag(y, p, train)
    p_att = lag_attention_predict(y, att.scores, test, max_lag=L)
    p_lin = lin.predict(y, test)
    p_avg = lag_attention_predict(y, np.zeros(L), test, max_lag=L)
    return {"period": p, "y": y.tolist(), "test_days": test.tolist(), "max_lag": L,
            "weights": att.weights.tolist(), "top_lag": att.top_lag, "train_loss": att.loss.tolist(),
            "lag": lin.lag, "intercept": lin.intercept, "slope": lin.slope,
            "pred_attention": p_att.tolist(), "pred_linear": p_lin.tolist(),
            "rmse_attention": rmse(p_att, y[test]), "rmse_linear": rmse(p_lin, y[test]),
            "rmse_equal_weights": rmse(p_avg, y[test])}


__all__ = ["make_series", "lag_matrix", "lag_attention_loss_and_grad", "lag_attention_predict",
           "train_lag_attention", "LagAttentionFit", "fit_lag", "best_lag", "LagFit", "rmse", "compare_lag_models",
           "MAX_LAG"]
