"""Self-attention: every token is a query at once.

With a sequence X (n x d_model) and projections W_Q, W_K, W_V,

    Q = X W_Q,  K = X W_K,  V = X W_V,
    A = softmax(Q K^T / (sqrt(d_k) T))     (n x n, every row sums to 1)
    out = A V.

Row i of A is exactly one kernel-regression query: token i's weights over all
tokens.  A causal mask sets the scores of future tokens (j > i) to -inf, so
each token attends only to itself and the past.  A has n^2 entries, which is
why attention costs O(n^2) in time and memory.
"""

from __future__ import annotations

import numpy as np

from . import _checks
from .kernels import softmax


def _array(name, value, min_ndim):
    a = _checks.finite_array(name, value, min_ndim=min_ndim, max_ndim=4)
    if a.ndim >= 1 and 0 in a.shape:
        raise ValueError(f"{name} must not be empty, got shape {a.shape}")
    return a


def dot_product_attention(queries, keys, values, *, causal=False, temperature=1.0):
    """Scaled dot-product attention: out = softmax(Q K^T / (sqrt(d) T)) V.

    Parameters
    ----------
    queries : array-like of shape (..., n, d)
        Q.
    keys : array-like of shape (..., m, d)
        K.
    values : array-like of shape (..., m, d_v)
        V.  Any leading batch or head axes of the three must match (or broadcast).
    causal : bool, default False
        Mask keys j > i (needs n == m): a decoder's view of the sequence.
    temperature : float > 0, default 1.0
        T.

    Returns
    -------
    outputs : ndarray of shape (..., n, d_v)
        A V.
    weights : ndarray of shape (..., n, m)
        A, rows positive (zero where masked) and summing to 1.
    """
    q = _array("queries", queries, 2)
    k = _array("keys", keys, 2)
    v = _array("values", values, 2)
    t = _checks.positive("temperature", temperature)
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(f"queries and keys must have the same last dimension d, got {q.shape[-1]} and {k.shape[-1]}")
    if k.shape[-2] != v.shape[-2]:
        raise ValueError(f"keys and values must have the same number of rows, got {k.shape[-2]} and {v.shape[-2]}")
    n, m = q.shape[-2], k.shape[-2]
    if causal and n != m:
        raise ValueError(f"causal=True needs as many queries as keys, got {n} and {m}")
    try:
        np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    except ValueError:
        raise ValueError(f"leading (batch or head) axes do not match: {q.shape[:-2]}, {k.shape[:-2]}, "
                         f"{v.shape[:-2]}") from None

    att = q @ np.swapaxes(k, -1, -2)                   # (..., n, m) scores
    att *= 1.0 / (np.sqrt(q.shape[-1]) * t)
    keep = np.tril(np.ones((n, m), dtype=bool)) if causal else None   # causal: keys j <= i only
    softmax(att, axis=-1, mask=keep, out=att)
    return att @ v, att


def self_attention(x, w_q, w_k, w_v, *, causal=False, temperature=1.0):
    """One head of self-attention: queries, keys and values all come from the same X.

    Q = X W_Q, K = X W_K, V = X W_V; returns ``dot_product_attention(Q, K, V)``.

    Parameters
    ----------
    x : array-like of shape (..., n, d_model)
        X, one row per token.
    w_q, w_k : array-like of shape (d_model, d_k)
        The query and key projections.
    w_v : array-like of shape (d_model, d_v)
        The value projection.
    causal, temperature
        As in ``dot_product_attention``.

    Returns
    -------
    outputs : ndarray of shape (..., n, d_v)
    weights : ndarray of shape (..., n, n)
    """
    x = _array("x", x, 2)
    mats = [_array(name, w, 2) for name, w in (("w_q", w_q), ("w_k", w_k), ("w_v", w_v))]
    for name, w in zip(("w_q", "w_k", "w_v"), mats):
        if w.shape[-2] != x.shape[-1]:
            raise ValueError(f"{name} must have {x.shape[-1]} rows (the width of x), got shape {w.shape}")
    return dot_product_attention(x @ mats[0], x @ mats[1], x @ mats[2], causal=causal, temperature=temperature)


def multi_head_attention(x, w_q, w_k, w_v, w_o=None, *, causal=False, temperature=1.0):
    """Several heads side by side, concatenated, then the output projection W_O.

    Parameters
    ----------
    x : array-like of shape (n, d_model)
        X, one row per token.
    w_q, w_k : array-like of shape (h, d_model, d_k)
        One projection per head: h learned kernels applied in parallel.
    w_v : array-like of shape (h, d_model, d_v)
        One value projection per head.
    w_o : array-like of shape (h * d_v, d_out), optional
        The output projection (identity when omitted).
    causal, temperature
        As in ``dot_product_attention``.

    Returns
    -------
    output : ndarray of shape (n, d_out)
        concat_h(A_h X W_V^h) W_O.
    weights : ndarray of shape (h, n, n)
        One attention matrix per head.
    heads : ndarray of shape (h, n, d_v)
        Each head's output before concatenation.
    """
    x = _array("x", x, 2)
    if x.ndim != 2:
        raise ValueError(f"x must be (n, d_model), got shape {x.shape}")
    ws = [_array(name, w, 3) for name, w in (("w_q", w_q), ("w_k", w_k), ("w_v", w_v))]
    for name, w in zip(("w_q", "w_k", "w_v"), ws):
        if w.ndim != 3 or w.shape[1] != x.shape[1]:
            raise ValueError(f"{name} must be (heads, {x.shape[1]}, d), got shape {w.shape}")
    if not (ws[0].shape[0] == ws[1].shape[0] == ws[2].shape[0]):
        raise ValueError("w_q, w_k and w_v must have the same number of heads")
    heads, att = dot_product_attention(x @ ws[0], x @ ws[1], x @ ws[2], causal=causal, temperature=temperature)
    h, n, dv = heads.shape
    concat = np.transpose(heads, (1, 0, 2)).reshape(n, h * dv)
    if w_o is None:
        return concat, att, heads
    wo = _array("w_o", w_o, 2)
    if wo.ndim != 2 or wo.shape[0] != h * dv:
        raise ValueError(f"w_o must be ({h * dv}, d_out) to follow {h} heads of width {dv}, got shape {wo.shape}")
    return concat @ wo, att, heads


def attention_cost(n, *, bytes_per_score=4):
    """Number of scores (n^2) and bytes of one n x n float32 matrix, for sequence lengths n.

    Parameters
    ----------
    n : float or array-like
        Sequence lengths.
    bytes_per_score : int, default 4
        Bytes of one score (4 for float32).

    Returns
    -------
    scores : ndarray of float, the shape of ``n``
        n^2.
    bytes : ndarray of float, the shape of ``n``
        n^2 x bytes_per_score.
    """
    n = np.asarray(n, dtype=float)
    return n * n, n * n * bytes_per_score


__all__ = ["dot_product_attention", "self_attention", "multi_head_attention", "attention_cost"]
