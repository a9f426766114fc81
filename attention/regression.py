"""Attention pooling as kernel regression (Nadaraya-Watson).

A query q is compared with n keys k_i; the scores go through a softmax with
temperature T and the output is the weighted average of the values:

    alpha_i(q) = softmax_i(score(q, k_i) / T),    out(q) = sum_i alpha_i(q) v_i.

Small h (or T) puts all weight on the nearest key (1-nearest-neighbour); large h
(or T) spreads it evenly (the global mean).  For the Gaussian kernel the two
knobs are one: (h, T) gives the same weights as (h sqrt(T), 1).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import NamedTuple

import numpy as np

from . import _checks
from .kernels import key_norm_tilt, scores, softmax

# The grids the explorable's readouts are defined on (the page's JS twins get them in their engines' config):
GRID_N = 400                     # points of a prediction curve across the queries' range (datasets.X_RANGE)
LOO_GRID = (0.005, 50.0, 241)    # bandwidths (from, to, how many, geometric) searched for the lowest leave-one-out
                                 # error: the bandwidth slider's range


# Fast paths for the common, valid arguments; anything unusual goes through
# ``_checks``, which accepts exactly the same inputs and words every error.
def _all_finite(a):
    return np.count_nonzero(np.isfinite(a)) == a.size  # (quicker than np.isfinite(a).all())


def _points(name, value, allow_scalar):
    if allow_scalar and isinstance(value, float) and math.isfinite(value):
        return np.array([[value]]), True
    try:
        a = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        a = None
    if a is not None and 1 <= a.ndim <= 2 and a.shape[0] > 0 and a.size > 0 and _all_finite(a):
        return (a[:, None] if a.ndim == 1 else a), False
    return _checks.points(name, value, allow_scalar=allow_scalar)


def _finite(name, value, min_ndim=1, max_ndim=2):
    try:
        a = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        a = None
    if a is not None and min_ndim <= a.ndim <= max_ndim and _all_finite(a):
        return a
    return _checks.finite_array(name, value, min_ndim=min_ndim, max_ndim=max_ndim)


def _prepare(queries, keys, kernel, bandwidth, temperature, key_scale):
    kernel = _checks.kernel(kernel)
    h = _checks.positive("bandwidth", bandwidth)
    t = _checks.positive("temperature", temperature)
    q, scalar = _points("queries", queries, allow_scalar=True)
    k, _ = _points("keys", keys, allow_scalar=False)
    if q.shape[1] != k.shape[1]:
        raise ValueError(f"queries and keys must have the same dimension, got {q.shape[1]} and {k.shape[1]}")
    if kernel == "dot" and k.shape[1] > 1 and h != 1.0:
        raise ValueError("bandwidth applies to the 'gaussian' kernel and to 1-D positions; for vector "
                         "keys the 'dot' kernel's scale is set by the vectors (scale them, as W_Q and W_K do)")
    if key_scale is not None:
        if kernel != "dot":
            raise ValueError("key_scale applies to the 'dot' kernel only (a Gaussian ignores norms)")
        key_scale = _finite("key_scale", key_scale, min_ndim=1, max_ndim=1)
        if key_scale.shape != (k.shape[0],) or np.any(key_scale <= 0):
            raise ValueError(f"key_scale must hold one positive factor per key ({k.shape[0]}), "
                             f"got shape {key_scale.shape}")
    return q, k, scalar, kernel, h, t, key_scale


def weights(queries, keys, *, kernel="gaussian", bandwidth=1.0, temperature=1.0, key_scale=None):
    """Attention weights alpha_ij = softmax_j(score(q_i, k_j) / T).

    Parameters
    ----------
    queries : float, array-like of shape (m,) positions or (m, d) vectors
        The queries q_i.
    keys : array-like of shape (n,) positions or (n, d) vectors
        The keys k_j.
    kernel : {"gaussian", "dot"}, default "gaussian"
        See ``attention.kernels.scores`` for both formulas.
    bandwidth : float > 0, default 1.0
        h of the Gaussian, or the scale of the 1-D circle embedding under ``dot``.
    temperature : float > 0, default 1.0
        T; the scores are divided by it before the softmax.
    key_scale : array-like of shape (n,), optional
        ``dot`` only: positive factors that multiply each key's norm (``key_norm_tilt`` makes some).

    Returns
    -------
    weights : ndarray of shape (m, n), or (n,) for a scalar query
        Rows positive and summing to 1.
    """
    q, k, scalar, kernel, h, t, key_scale = _prepare(queries, keys, kernel, bandwidth, temperature, key_scale)
    w = _softmax_scores(scores(q, k, kernel=kernel, bandwidth=h, key_scale=key_scale), t)
    return w[0] if scalar else w


def _softmax_scores(s, t):
    """softmax(s / t) along the last axis of a fresh score array from ``scores``, computed in place.

    ``scores`` already shifts every row so that its maximum is exactly 0 (and
    s / t keeps it 0), so the softmax is told so (``shifted=True``) and skips
    its own shift, which would subtract 0.
    """
    if t != 1.0:
        s /= t
    return softmax(s, out=s, shifted=True)


def _values(values, n):
    v = _finite("values", values, min_ndim=1)
    if v.shape[0] != n:
        raise ValueError(f"values must have one entry per key ({n}), got {v.shape[0]}")
    return v


def predict(queries, keys, values, *, kernel="gaussian", bandwidth=1.0, temperature=1.0, key_scale=None):
    """Kernel-regression prediction out(q_i) = sum_j alpha_ij v_j.

    Each prediction lies within the values' range, being a convex combination of them.

    Parameters
    ----------
    queries, keys
        As in ``weights``.
    values : array-like of shape (n,) or (n, d_v)
        The values v_j, one per key.
    kernel, bandwidth, temperature, key_scale
        As in ``weights``.

    Returns
    -------
    out : ndarray of shape (m,) or (m, d_v); float or (d_v,) for a scalar query
    """
    w = weights(queries, keys, kernel=kernel, bandwidth=bandwidth, temperature=temperature, key_scale=key_scale)
    v = _values(values, w.shape[-1])
    out = w @ v
    return float(out) if np.ndim(out) == 0 else out


def entropy_bits(weights) -> np.ndarray:
    """Entropy of the weights in bits, over the last axis: H = -sum_i alpha_i log2 alpha_i.

    0 log 0 is taken as 0.  H = 0 when one key has all the weight and log2(n)
    when the weights are uniform.

    Parameters
    ----------
    weights : array-like of shape (..., n)
        Rows of weights that sum to 1.

    Returns
    -------
    H : ndarray of shape (...)
        The entropy of each row, >= 0.
    """
    w = np.asarray(weights, dtype=float)
    logs = np.log2(w, out=np.zeros(w.shape), where=w > 0)
    logs *= w
    h = -logs.sum(axis=-1)
    return np.maximum(h, 0.0)  # -0.0 and rounding below zero read as 0 bits


def effective_points(weights) -> np.ndarray:
    """Effective number of points 2^H (the perplexity): how many keys a query really consults.

    1 for one-hot weights, n for uniform weights.

    Parameters
    ----------
    weights : array-like of shape (..., n)
        Rows of weights that sum to 1.

    Returns
    -------
    points : ndarray of shape (...)
        2^H of each row, from 1 to n.
    """
    return np.exp2(entropy_bits(weights))


class Focus(NamedTuple):
    """How sharply a typical query attends (see ``typical_focus``)."""

    max_weight: float        # the median over the queries of each query's largest weight
    effective_points: float  # the median over the queries of each query's 2^H


def typical_focus(queries, keys, *, kernel="gaussian", bandwidth=1.0, temperature=1.0, key_scale=None) -> Focus:
    """How sharply a typical query attends: medians over ``queries`` of the largest weight and of 2^H.

    For each query q_i (a grid of x, say) the weights alpha_ij = softmax_j(score(q_i, k_j) / T) are
    formed (``weights``), then

        max_weight       = median_i max_j alpha_ij,
        effective_points = median_i 2^H_i,   H_i = -sum_j alpha_ij log2 alpha_ij   (``effective_points``).

    A max_weight near 1 means a query nearly copies one key; near 1/n, it averages all n of them.

    Parameters
    ----------
    queries : array-like of shape (m,)
        Where the queries sit (at least one).
    keys : array-like of shape (n,)
        The keys' positions.
    kernel, bandwidth, temperature, key_scale
        As in ``weights``.

    Returns
    -------
    focus : Focus
        (max_weight, effective_points), plain floats.

    >>> f = typical_focus([0.0, 1.0, 2.0], [0.0, 1.0, 2.0], bandwidth=0.01)
    >>> round(f.max_weight, 6), round(f.effective_points, 6)
    (1.0, 1.0)
    """
    w = weights(np.atleast_1d(np.asarray(queries, dtype=float)), keys, kernel=kernel, bandwidth=bandwidth,
                temperature=temperature, key_scale=key_scale)
    w = np.atleast_2d(w)
    return Focus(float(np.median(w.max(axis=-1))), float(np.median(effective_points(w))))


def nearest_neighbor_predict(queries, keys, values, *, kernel="gaussian", bandwidth=1.0, key_scale=None):
    """The T -> 0 (or, for the Gaussian, h -> 0) limit: the mean value of the top-scoring keys.

    For the Gaussian that is the nearest key's value (1-nearest-neighbour);
    exact ties share it evenly, as the limit of the softmax does.

    Parameters
    ----------
    queries, keys, values, kernel, bandwidth, key_scale
        As in ``predict`` (the temperature has gone to 0).

    Returns
    -------
    out : ndarray of shape (m,) or (m, d_v); float or (d_v,) for a scalar query
    """
    q, k, scalar, kernel, h, _, key_scale = _prepare(queries, keys, kernel, bandwidth, 1.0, key_scale)
    v = _values(values, k.shape[0])
    out = _top_mean(scores(q, k, kernel=kernel, bandwidth=h, key_scale=key_scale), v)
    return float(out[0]) if scalar and np.ndim(out[0]) == 0 else (out[0] if scalar else out)


def _top_mean(s, v):
    """Mean of the values of the keys scoring exactly the row maximum (0, see ``scores``)."""
    top = s == 0.0
    return (top / top.sum(axis=1, keepdims=True)) @ v


@dataclass(frozen=True)
class Readout:
    """Everything the explorable prints for one query."""

    query: float
    n: int
    max_weight: float
    entropy_bits: float
    effective_points: float
    prediction: float
    true_value: float | None
    nearest_neighbor_prediction: float
    global_mean: float

    def as_dict(self) -> dict:
        return asdict(self)


def readout(query, keys, values, *, kernel="gaussian", bandwidth=1.0, temperature=1.0,
            key_scale=None, true_function=None) -> Readout:
    """Max weight, entropy (bits), effective points, prediction, true f(q) and both limits for one query.

    Parameters
    ----------
    query : float
        One query position.
    keys, values, kernel, bandwidth, temperature, key_scale
        As in ``predict``; ``values`` holds one number per key.
    true_function : callable, optional
        f, for the true value f(q).

    Returns
    -------
    readout : Readout
        The numbers the page prints for one query.
    """
    if isinstance(query, float) and math.isfinite(query):
        qf = float(query)
    else:
        qf = float(_checks.finite_array("query", query, max_ndim=0))
    # One validation and one score computation serve the weights and the
    # nearest-neighbour limit; the steps are those of weights(), entropy_bits()
    # and nearest_neighbor_predict(), inlined for a single row, and give the
    # same numbers bit for bit.
    q, k, _, kernel, h, t, key_scale = _prepare(qf, keys, kernel, bandwidth, temperature, key_scale)
    n = k.shape[0]
    v = _values(values, n)
    if v.ndim != 1:
        raise ValueError(f"values must be one number per key for a readout, got shape {v.shape}")
    s = scores(q, k, kernel=kernel, bandwidth=h, key_scale=key_scale)  # (1, n), row maximum exactly 0
    top = s[0] == 0.0
    best = int(top.argmax())
    nn = float(v[best]) if np.count_nonzero(top) == 1 else float(_top_mean(s, v)[0])
    w = _softmax_scores(s[0], t)              # the weights; the top key's is exp(0) / z = 1 / z, the largest
    # entropy_bits(w): log2 skips zero weights; when there are none (the usual
    # case) the plain log2 gives the same numbers
    logs = np.log2(w) if np.count_nonzero(w) == n else np.log2(w, out=np.zeros(n), where=w > 0)
    logs *= w
    ent = 0.0 - float(np.add.reduce(logs))    # entropy_bits(w), with -0.0 read as 0
    return Readout(
        query=qf, n=n, max_weight=float(w[best]), entropy_bits=ent,
        effective_points=float(2.0 ** ent), prediction=float(w @ v),
        true_value=None if true_function is None else float(true_function(qf)),
        nearest_neighbor_prediction=nn,
        global_mean=float(np.add.reduce(v)) / n,
    )


def loo_error(keys, values, *, bandwidths, kernel="gaussian", temperature=1.0, key_scale=None) -> np.ndarray:
    """Leave-one-out mean squared error for each bandwidth in ``bandwidths``.

    Each sample i is predicted from the other n - 1 (its own score is set to
    -inf before the softmax), so a kernel cannot win by copying the sample
    itself:  LOO(h) = (1/n) sum_i (y_i - sum_{j != i} alpha_ij(h) y_j)^2.

    Parameters
    ----------
    keys : array-like of shape (n,) or (n, d)
        The samples' positions, n >= 2.
    values : array-like of shape (n,)
        Their values y.
    bandwidths : array-like of shape (g,)
        The bandwidths h to try.
    kernel, temperature, key_scale
        As in ``weights``.

    Returns
    -------
    loo : ndarray of shape (g,)
        LOO(h) for each bandwidth.
    """
    k, _ = _checks.points("keys", keys, allow_scalar=False)
    y = _values(values, k.shape[0])
    if k.shape[0] < 2:
        raise ValueError("keys must hold at least 2 samples for leave-one-out error")
    hs = _checks.finite_array("bandwidths", bandwidths, min_ndim=1, max_ndim=1)
    out = np.empty(hs.shape[0])
    for g, h in enumerate(hs):  # a loop over the grid, never over samples
        _, _, _, kern, hh, t, ks = _prepare(k, k, kernel, h, temperature, key_scale)
        s = scores(k, k, kernel=kern, bandwidth=hh, key_scale=ks) / t
        np.fill_diagonal(s, -np.inf)
        pred = softmax(s) @ y
        out[g] = np.mean((y - pred) ** 2)
    return out


def bias_variance(keys, true_function, *, noise, bandwidths, kernel="gaussian", temperature=1.0,
                  key_scale=None, n_resamples=200, seed=0, eval_points=None) -> dict:
    """Bias^2, variance and their sum against bandwidth, over resampled noise.

    Data sets y^(r) = f(x) + eps^(r), eps ~ N(0, noise^2), are drawn at the
    fixed ``keys`` x; the kernel regression is fitted to each and evaluated at
    ``eval_points`` x_e (default: the keys).  With f_hat^(r) the fits and f_bar
    their mean over r:

        bias^2   = mean_e (f_bar(x_e) - f(x_e))^2
        variance = mean_e mean_r (f_hat^(r)(x_e) - f_bar(x_e))^2
        error    = bias^2 + variance  (mean squared error against f)

    ``n_resamples=None`` returns the exact expectations instead of a Monte-Carlo
    estimate.  The weights W do not depend on y, so f_bar = W f exactly and the
    variance is noise^2 mean_e sum_j W_ej^2 (what the page draws).

    Parameters
    ----------
    keys : array-like of shape (n,) or (n, d)
        The fixed positions x.
    true_function : callable
        f, applied to positions.
    noise : float >= 0
        Standard deviation of eps.
    bandwidths : array-like of shape (g,)
        The bandwidths h.
    kernel, temperature, key_scale
        As in ``weights``.
    n_resamples : int or None, default 200
        Number of resampled data sets; None for the exact expectations.
    seed : int, default 0
        Seed of numpy's default_rng for the resamples.
    eval_points : array-like, optional
        The positions x_e (default: the keys).

    Returns
    -------
    curves : dict of ndarray of shape (g,)
        ``bandwidth``, ``bias2``, ``variance`` and ``error``.
    """
    k, _ = _checks.points("keys", keys, allow_scalar=False)
    sigma = float(noise)
    if not np.isfinite(sigma) or sigma < 0:
        raise ValueError(f"noise must be a finite number >= 0, got {noise!r}")
    if true_function is None:
        raise ValueError("true_function is needed for bias and variance (this dataset has none)")
    hs = _checks.finite_array("bandwidths", bandwidths, min_ndim=1, max_ndim=1)
    xe = k if eval_points is None else _checks.points("eval_points", eval_points, allow_scalar=False)[0]
    f_keys = np.asarray(true_function(k[:, 0] if k.shape[1] == 1 else k), dtype=float)
    f_eval = np.asarray(true_function(xe[:, 0] if xe.shape[1] == 1 else xe), dtype=float)
    ys = None if n_resamples is None else (                                 # (n, R): the resampled data sets
        f_keys[:, None] + sigma * np.random.default_rng(seed).standard_normal((k.shape[0], int(n_resamples))))
    bias2, var = np.empty(hs.shape[0]), np.empty(hs.shape[0])
    for g, h in enumerate(hs):  # a loop over the grid, never over samples
        w = weights(xe, k, kernel=kernel, bandwidth=h, temperature=temperature, key_scale=key_scale)
        bias2[g], var[g] = _bias2_and_variance(w, f_keys, f_eval, sigma, ys)
    return {"bandwidth": hs, "bias2": bias2, "variance": var, "error": bias2 + var}


def _bias2_and_variance(w, f_keys, f_eval, sigma, ys):
    """(bias^2, variance) of the fits W y at one bandwidth: exact when ``ys`` is None, else over its columns."""
    if ys is None:
        return np.mean((w @ f_keys - f_eval) ** 2), sigma * sigma * np.mean(np.sum(w * w, axis=1))
    fits = w @ ys  # (e, R): every resample fitted at once
    mean_fit = fits.mean(axis=1)
    return np.mean((mean_fit - f_eval) ** 2), np.mean((fits - mean_fit[:, None]) ** 2)


__all__ = ["weights", "predict", "entropy_bits", "effective_points", "nearest_neighbor_predict",
           "readout", "Readout", "loo_error", "bias_variance", "key_norm_tilt", "typical_focus", "Focus"]
