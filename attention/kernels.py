"""Similarity scores and the stable softmax that turns them into weights.

Two kernels (score functions) compare a query q with a key k:

* ``gaussian``: score(q, k) = -||q - k||^2 / (2 h^2), h the bandwidth (the
  Gaussian's standard deviation);
* ``dot``: the scaled dot product score(q, k) = q . k / sqrt(d).

For keys of equal norm r, -||q - k||^2 = 2 q . k - ||q||^2 - r^2: the terms
without k are the same for every key and cancel in the softmax, so dot-product
attention *is* the Gaussian kernel on such keys.  ``circle_embedding`` places
1-D positions on a circle (all norms equal) so the 1-D regression can run on
the dot product too, and ``key_scale`` stretches individual keys to watch the
equivalence break.
"""

from __future__ import annotations

import numpy as np

# How much larger than the keys' span the circle's radius is, for 1-D positions
# under the dot kernel.  The data then cover 1/2 radian of the circle, where
# chord distance and distance along the line differ by at most 2 %.
CIRCLE_RADIUS_PER_SPAN = 2.0
# A span below this counts as none: the dot kernel's scores are R^2 cos((q - k)/R), and below it R^2 is not a
# normal number (and q/R may overflow): the square root of the smallest normal double, about 1.5e-154.
SMALLEST_SPAN = float(np.sqrt(np.finfo(float).tiny))


def softmax(scores, axis: int = -1, *, mask=None, out=None, shifted: bool = False) -> np.ndarray:
    """Softmax along ``axis``: alpha_i = exp(s_i - max_j s_j) / sum_j exp(s_j - max_j s_j).

    Subtracting the maximum (the log-sum-exp trick) keeps every exponent <= 0,
    so nothing overflows; the largest score contributes exp(0) = 1, so the sum
    is never 0.  Exact ties at the top split the weight evenly.  Scores may be
    -inf (masked); each slice along ``axis`` needs at least one finite score.
    This is the one softmax of the package: every module's weights come from it.

    Parameters
    ----------
    scores : array_like
        The scores s, any shape.
    axis : int, default -1
        The axis the weights sum to 1 along.
    mask : array_like of bool, optional
        Broadcastable to ``scores``; where it is False the score is set to
        -inf, so that entry's weight is exactly 0 (a causal mask, padding, or
        a sample left out of its own prediction).
    out : ndarray of float, optional
        Where to write the weights, with the shape of ``scores``; it may be
        ``scores`` itself, which is then overwritten (no new n x m array).
    shifted : bool, default False
        True when every slice's maximum along ``axis`` is already exactly 0
        (as ``kernels.scores`` returns them).  The shift would subtract 0, so
        it is skipped and the result is the same bit for bit.

    Returns
    -------
    weights : ndarray of float
        The shape of ``scores``: entries in [0, 1], summing to 1 along ``axis``.

    Examples
    --------
    >>> softmax([0.0, 0.0, np.log(2.0)]).round(3).tolist()
    [0.25, 0.25, 0.5]
    >>> softmax([[1.0, 1000.0], [5.0, 6.0]], mask=[[True, False], [True, True]]).round(3).tolist()
    [[1.0, 0.0], [0.269, 0.731]]
    """
    s = np.asarray(scores, dtype=float)
    if out is None and mask is None and not shifted:
        out = s - s.max(axis=axis, keepdims=True)              # one new array, already shifted
    else:
        if out is None:
            out = s.copy()
        elif out is not s:
            np.copyto(out, s)
        if mask is not None:
            np.copyto(out, -np.inf, where=np.logical_not(mask))
        if not shifted:
            out -= out.max(axis=axis, keepdims=True)
    np.exp(out, out=out)
    out /= out.sum(axis=axis, keepdims=True)
    return out


def circle_radius(keys: np.ndarray) -> float:
    """Radius of the circle that carries 1-D positions: 2 x the keys' span (1 if the span is 0, or below
    ``SMALLEST_SPAN``: keys that close are one place).

    Parameters
    ----------
    keys : array-like
        The 1-D positions.

    Returns
    -------
    radius : float
        R = ``CIRCLE_RADIUS_PER_SPAN`` x (max - min), or 1.

    >>> circle_radius([0.0, 1e-311])   # a span too small to square: one place, the unit circle
    1.0
    """
    span = float(np.max(keys) - np.min(keys))
    return CIRCLE_RADIUS_PER_SPAN * span if span >= SMALLEST_SPAN else 1.0


def circle_embedding(x, *, radius: float) -> np.ndarray:
    """Embed 1-D positions on a circle: phi(x) = R (cos(x/R), sin(x/R)).

    Every phi(x) has norm R, and ||phi(q) - phi(k)||^2 = 2 R^2 (1 - cos((q-k)/R)),
    which is (q - k)^2 to within (q - k)^4 / (12 R^2): close to the line's own
    distance when R is large compared with q - k.

    Parameters
    ----------
    x : array-like of any shape
        Positions.
    radius : float > 0
        R.

    Returns
    -------
    phi : ndarray of shape x.shape + (2,)
    """
    a = np.asarray(x, dtype=float) / radius
    return radius * np.stack([np.cos(a), np.sin(a)], axis=-1)


def key_norm_tilt(keys, strength: float) -> np.ndarray:
    """Per-key norm factors s_i = exp(strength * u_i), u_i in [-1, 1] across the keys' span.

    With strength 0 every key keeps its norm (the dot product stays a Gaussian
    kernel); with strength > 0 keys on the right grow longer and win more
    weight from every query, so the weights lean right: the equal-norm
    equivalence is broken.

    Parameters
    ----------
    keys : array-like of shape (n,)
        The 1-D positions.
    strength : float
        How far the norms lean; 0 leaves them equal.

    Returns
    -------
    factors : ndarray of shape (n,)
        The positive s_i, for ``weights(..., key_scale=...)``.
    """
    k = np.asarray(keys, dtype=float).reshape(-1)
    lo, hi = float(np.min(k)), float(np.max(k))
    u = (2 * (k - lo) / (hi - lo) - 1) if hi > lo else np.zeros_like(k)
    return np.exp(strength * u)


def scores(q: np.ndarray, k: np.ndarray, *, kernel: str, bandwidth: float,
           key_scale: np.ndarray | None = None) -> np.ndarray:
    """Scores of m queries against n keys, shifted so each row's maximum is 0.

    The shift by the row maximum changes no softmax but keeps every number
    finite even for h down to 1e-9 and queries far outside the data.

    * gaussian: s_ij = -(||q_i - k_j||^2 - min_j ||q_i - k_j||^2) / (2 h^2)
    * dot, vectors (d > 1): s_ij = q_i . k_j / sqrt(d)
    * dot, 1-D positions (d = 1): q and k are embedded on a circle and scaled by
      d'^(1/4) / h with d' = 2 (what projections W_Q = W_K = (d'^(1/4)/h) I would
      do), so that s_ij = phi(q_i) . phi(k_j) / h^2 = -||phi(q_i) - phi(k_j)||^2 / (2h^2) + const_i.

    Parameters
    ----------
    q : ndarray of shape (m, d)
        The queries.
    k : ndarray of shape (n, d)
        The keys.
    kernel : {"gaussian", "dot"}
        The score function.
    bandwidth : float > 0
        h.
    key_scale : ndarray of shape (n,), optional
        Used by ``dot`` only: multiplies key j by s_j.

    Returns
    -------
    s : ndarray of shape (m, n)
        The scores, each row's maximum exactly 0.
    """
    if kernel == "gaussian":
        return _gaussian_scores(q, k, bandwidth)
    s = _dot_scores(q, k, bandwidth, key_scale)
    s -= s.max(axis=1, keepdims=True)
    return s


# The arithmetic of the two helpers is written in place to save allocations (it runs on every
# slider move); the operations and their order are exactly the formulas of ``scores``.

def _gaussian_scores(q, k, bandwidth):
    """The gaussian scores of ``scores``, each row's maximum exactly 0 (its nearest key's excess is 0)."""
    if q.shape[1] == 1:
        # (|dq| - |dq_min|)(|dq| + |dq_min|): exact 0 at the nearest key and
        # no overflow from squaring a huge distance.
        ad = q - k[:, 0]
        np.abs(ad, out=ad)
        near = ad.min(axis=1, keepdims=True)
        excess = ad - near
        ad += near
        excess *= ad
    else:
        diff = q[:, None, :] - k[None, :, :]
        np.square(diff, out=diff)
        excess = diff.sum(axis=-1)
        excess -= excess.min(axis=1, keepdims=True)
    excess *= -0.5 / (bandwidth * bandwidth)
    return excess


def _dot_scores(q, k, bandwidth, key_scale):
    """The dot scores of ``scores`` before the shift by each row's maximum."""
    if q.shape[1] == 1:
        radius = circle_radius(k)
        c = 2.0 ** 0.25 / bandwidth
        qe = c * circle_embedding(q[:, 0], radius=radius)
        ke = c * circle_embedding(k[:, 0], radius=radius)
        if key_scale is not None:
            ke = ke * key_scale[:, None]
        # the two-term dot product written out (no BLAS, no fused multiply-add),
        # so the browser mirror repeats it exactly
        s = qe[:, :1] * ke[:, 0]
        s += qe[:, 1:] * ke[:, 1]
        s /= np.sqrt(2)
        return s
    ke = k if key_scale is None else k * key_scale[:, None]
    s = q @ ke.T
    s /= np.sqrt(q.shape[1])
    return s


__all__ = ["softmax", "scores", "circle_radius", "circle_embedding", "key_norm_tilt",
           "CIRCLE_RADIUS_PER_SPAN", "SMALLEST_SPAN"]
